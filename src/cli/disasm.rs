//! `dxlane disasm FILE`: prints the listing of the program a container holds — fxc style
//! for Shader Model 4–5 (`SHEX`/`SHDR`), dxc style for Shader Model 6 (`DXIL`).

use std::path::Path;
use std::process::ExitCode;

use crate::container::{Container, FourCc};
use crate::dxbc;

/// Prints a program's listing on stdout. Errors (unreadable file, bad container, a
/// program the decoder refuses, a program kind with no listing yet) are returned as one
/// line for the caller to print; the exit status is then non-zero.
pub fn run(file: &Path) -> Result<ExitCode, Box<dyn std::error::Error>> {
    let bytes = super::info::read_container(file)?;
    let container = Container::parse(&bytes).map_err(|e| format!("{}: {e}", file.display()))?;
    let part = container.program_part().ok_or_else(|| {
        format!(
            "{}: container has no program part (SHEX, SHDR or DXIL)",
            file.display()
        )
    })?;
    let text = match part.tag {
        FourCc::SHEX | FourCc::SHDR => {
            let program =
                dxbc::Program::from_part(part).map_err(|e| format!("{}: {e}", file.display()))?;
            dxbc::listing(&program)
        }
        FourCc::DXIL | FourCc::ILDB => crate::dxil::listing::disassemble(&bytes)
            .map_err(|e| format!("{}: {e}", file.display()))?,
        other => {
            return Err(
                format!("{}: no listing for a {other} program part", file.display()).into(),
            );
        }
    };
    print!("{text}");
    Ok(ExitCode::SUCCESS)
}
