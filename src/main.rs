//! The `dxlane` command line; everything it does lives in the library's `cli` module.

/// Large blocks in the kernel's 2 MiB pages (`resources::memory::LargePages`).
#[global_allocator]
static ALLOCATOR: dxlane::resources::memory::LargePages = dxlane::resources::memory::LargePages;

fn main() -> std::process::ExitCode {
    dxlane::cli::main()
}
