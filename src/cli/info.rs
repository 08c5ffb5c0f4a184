//! `dxlane info FILE [--json]`.

use std::path::Path;
use std::process::ExitCode;

/// Prints what a container holds.
pub fn run(_file: &Path, _json: bool) -> Result<ExitCode, Box<dyn std::error::Error>> {
    Err("info: not built yet".into())
}
