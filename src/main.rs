//! The `dxlane` command line; everything it does lives in the library's `cli` module.

fn main() -> std::process::ExitCode {
    dxlane::cli::main()
}
