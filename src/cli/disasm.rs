//! `dxlane disasm FILE`.

use std::path::Path;
use std::process::ExitCode;

/// Prints a program's listing.
pub fn run(_file: &Path) -> Result<ExitCode, Box<dyn std::error::Error>> {
    Err("disasm: not built yet".into())
}
