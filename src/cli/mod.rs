//! The `dxlane` command line: parses arguments and calls the library; owns nothing.

mod compare;
mod disasm;
mod info;
mod run;

use std::process::ExitCode;

use clap::{Parser, Subcommand};

/// dxlane: run Direct3D shader programs on the CPU as WARP does.
#[derive(Debug, Parser)]
#[command(name = "dxlane", version, about)]
pub struct Cli {
    /// What to do.
    #[command(subcommand)]
    pub command: Command,
}

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
    /// Run a compute job file: bind its resources, dispatch, write its outputs and
    /// check its expectations (exit 0: all hold, 1: some fail, 2: error).
    Run(run::RunArgs),
    /// Run a job and compare its resources with a capture folder (exit 0: equal, 1:
    /// differs, 2: error).
    Compare(compare::CompareArgs),
}

/// Runs the command line and returns the process exit status.
pub fn main() -> ExitCode {
    let cli = Cli::parse();
    match run(cli) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("dxlane: {e}");
            ExitCode::FAILURE
        }
    }
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
    }
}
