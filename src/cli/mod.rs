//! The `dxlane` command line: parses arguments and calls the library; owns nothing.

mod batch;
mod compare;
mod debug;
mod disasm;
mod info;
mod offload;
mod run;
mod shader_test;
mod tessellate;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// dxlane: run Direct3D shader programs on the CPU as WARP does.
#[derive(Debug, Parser)]
#[command(name = "dxlane", version, about, after_help = EXIT_STATUS)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

/// One exit-status convention for every command (printed by `--help`).
pub const EXIT_STATUS: &str = "Exit status, every command:
  0  done: the listing or report was printed, every check and expectation holds
  1  done, but a check failed: `info --check` found a mismatch, or a job's [[expect]] failed
  2  error: a file could not be read, decoded or run, or the command line is wrong";

/// The subcommands.
#[derive(Debug, Subcommand)]
pub enum Command {
    /// Show a container's parts, signatures, resources and feature flags.
    Info {
        /// The shader container (.dxbc, .dxil, .cso).
        file: std::path::PathBuf,
        /// Print everything as JSON.
        #[arg(long)]
        json: bool,
        /// Cross-check PSV0 and SFI0 against the DXIL module instead; exit status 1
        /// when any value differs.
        #[arg(long)]
        check: bool,
    },
    /// Print the program listing (fxc style for DXBC, dxc style for DXIL).
    Disasm {
        /// The shader container.
        file: std::path::PathBuf,
    },
    /// Run a job file: bind its resources, dispatch its compute program or render its
    /// draw, write its outputs (inside the job's folder) and check its expectations (exit
    /// 0: all hold, 1: some fail, 2: error).
    Run(run::RunArgs),
    /// Run a job and compare its resources with a capture folder (exit 0: equal, 1:
    /// differs, 2: error).
    Compare(compare::CompareArgs),
    /// Debug one lane of a job (a compute thread, or a vertex or pixel lane of a draw):
    /// step forwards and backwards, breakpoints, `why` (exit 0; 1: a scripted command
    /// failed; 2: the job or lane could not be opened).
    Debug(debug::DebugArgs),
    /// Run many cases — jobs, job and capture pairs, shader tests — from folders or case
    /// lists, each as its own process, sharded, cached, with JSONL and JUnit reports (exit
    /// 0: all pass, 1: some case failed, 2: the run itself failed); `batch merge` joins
    /// shards' reports.
    Batch(batch::BatchArgs),
    /// Run vkd3d-format shader tests (`.shader_test`) once per shader model, compiling
    /// with vkd3d-compiler (SM 4–5) and dxc (SM 6) (exit 0: no run failed, 1: a run
    /// failed, 2: a malformed file).
    ShaderTest(shader_test::ShaderTestArgs),
    /// Run an offload test suite pipeline (PIPELINE.yaml SHADER…) as the suite's
    /// `offloader` does, with dxlane as the device; `--api-query` describes the device
    /// (exit 0: every result rule holds; 1: a rule failed or an error, as `offloader`).
    Offload(offload::OffloadArgs),
    /// Run D3D's fixed-function tessellator on one patch's factors and print its domain
    /// points (with their f32 bits) and primitives (exit 0; 2: a bad command line).
    Tessellate(tessellate::TessellateArgs),
}

/// Runs the command line and returns the process exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    // A reader that stops early (`dxlane disasm F | head`) closes the pipe; Rust ignores
    // SIGPIPE, so the next `print!` panics. That is the reader's choice, not a failure:
    // the panic is kept quiet and the command ends with status 0. Every other panic is
    // reported as before.
    let default_hook = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !is_broken_pipe(info.payload()) {
            default_hook(info);
        }
    }));
    let outcome = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| run(cli)));
    match outcome {
        Ok(Ok(code)) => code,
        Ok(Err(e)) => {
            eprintln!("dxlane: {e}");
            // Errors are status 2 for every command (see EXIT_STATUS); 1 means a check
            // ran and failed.
            ExitCode::from(2)
        }
        Err(payload) if is_broken_pipe(payload.as_ref()) => ExitCode::SUCCESS,
        Err(payload) => std::panic::resume_unwind(payload),
    }
}

/// Whether a panic is `print!`'s on a closed standard output or error (its message is
/// std's `failed printing to stdout: Broken pipe (os error 32)`).
fn is_broken_pipe(payload: &(dyn std::any::Any + Send)) -> bool {
    let text = payload
        .downcast_ref::<String>()
        .map(String::as_str)
        .or_else(|| payload.downcast_ref::<&str>().copied())
        .unwrap_or("");
    // A program that never calls setlocale gets strerror's C-locale text.
    text.starts_with("failed printing to std") && text.to_ascii_lowercase().contains("broken pipe")
}

fn run(cli: Cli) -> Result<ExitCode, Box<dyn std::error::Error>> {
    match cli.command {
        Command::Info { file, json, check } => {
            if check {
                info::run_check(&file)
            } else {
                info::run(&file, json)
            }
        }
        Command::Disasm { file } => disasm::run(&file),
        Command::Run(args) => Ok(run::run(&args)),
        Command::Compare(args) => Ok(compare::run(&args)),
        Command::Debug(args) => Ok(debug::run(&args)),
        Command::Tessellate(args) => tessellate::run(&args),
        Command::Batch(args) => Ok(batch::run(&args)),
        Command::ShaderTest(args) => Ok(shader_test::run(&args)),
        Command::Offload(args) => Ok(offload::run_cli(&args)),
    }
}

/// The engine when neither `--engine` nor the job's `[options] engine` names one: the
/// one `DXLANE_ENGINE` names (`jit` or `interp`), else the native engine. The only place
/// the environment chooses an engine; the library is handed the choice. This is how the
/// whole test suite runs under each engine (see `docs/testing.md`); a value that names no
/// engine is ignored.
pub(crate) fn default_engine() -> crate::exec::jit::Engine {
    std::env::var("DXLANE_ENGINE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_default()
}
