//! Lowering DXBC programs and DXIL modules to the interpreter IR.
//!
//! Owns: turning a decoded program into an [`ir::Shader`](crate::ir::Shader) — the only
//! module that knows both the decoders and the IR. [`load`] takes a container's bytes,
//! decodes whichever program it holds, and lowers it; [`dxbc`] and [`dxil`] do the two
//! kinds.
//!
//! Rule: anything the lowering does not support is refused here, at load time, with its
//! name and source location ([`LowerError::Unsupported`]) — never skipped, never left
//! for execution to trip over.

pub mod dxbc;
pub mod dxil;

use crate::container::{Container, ContainerError, FourCc, ProgramHeader, ProgramVersion};
use crate::ir::{BuildError, Shader};

/// Why a program could not be lowered.
#[derive(Debug, thiserror::Error)]
pub enum LowerError {
    /// The container could not be read.
    #[error(transparent)]
    Container(#[from] ContainerError),
    /// The program could not be decoded.
    #[error("{0}")]
    Decode(String),
    /// The program uses something the lowering does not support yet.
    #[error("unsupported {what} at {location}")]
    Unsupported {
        /// The construct, by its DXBC or DXIL name (`opcode emit_stream`, `dx.op.traceRay`).
        what: String,
        /// Where: DXBC instruction index and token offset, or DXIL function and
        /// instruction index.
        location: String,
    },
    /// The program is malformed in a way the decoder does not catch (an operand of the
    /// wrong kind, a use of an undeclared register, …).
    #[error("invalid program at {location}: {message}")]
    Invalid {
        /// What is wrong.
        message: String,
        /// Where.
        location: String,
    },
    /// The entry point asked for does not exist (or several exist and none was named).
    #[error("{0}")]
    Entry(String),
    /// The lowered shader could not be built (irreducible control flow, a lowering bug).
    #[error(transparent)]
    Build(#[from] BuildError),
}

/// Options for [`load`].
#[derive(Debug, Clone, Default)]
pub struct LoadOptions {
    /// The entry point (DXIL libraries or containers with several); `None` takes the only one.
    pub entry: Option<String>,
    /// Skip the IR clean-up passes ([`crate::ir::opt`]), keeping every instruction the
    /// lowering wrote (so each maps back to its source instruction, for debugging).
    pub no_opt: bool,
    /// Lower for a debugger (`dxlane debug`, the DAP server): `IsDebuggingEnabled()`
    /// reads true and each `DebugBreak()` / `debug_break` / `abort` keeps a step of its
    /// own (a `mov` to an unused register) for the debugger to stop at. Otherwise
    /// `IsDebuggingEnabled()` reads false and a break is no instruction at all.
    pub debugging: bool,
}

/// A lowered program and what it was.
#[derive(Debug, Clone)]
pub struct Loaded {
    /// The lowered shader.
    pub shader: Shader,
    /// The program's kind and shader model.
    pub version: ProgramVersion,
    /// Whether it came from DXIL (else DXBC).
    pub dxil: bool,
}

pub use dxil::LibraryExport;

/// The program's kind and shader model, and, when it is a DXIL library, its exports
/// (empty for any other program); nothing is lowered.
pub fn library_exports(bytes: &[u8]) -> Result<(ProgramVersion, Vec<LibraryExport>), LowerError> {
    let container = Container::parse(bytes)?;
    let part = container
        .program_part()
        .ok_or(ContainerError::MissingPart(FourCc::SHEX))?;
    let header = ProgramHeader::parse(part)?;
    let version = header.version();
    if !matches!(header, ProgramHeader::Dxil(_))
        || version.kind != crate::container::ProgramKind::Library
    {
        return Ok((version, Vec::new()));
    }
    Ok((version, dxil::library_exports(&container)?))
}

/// Decodes and lowers the program in a container (DXBC `SHDR`/`SHEX` or DXIL).
pub fn load(bytes: &[u8], opts: &LoadOptions) -> Result<Loaded, LowerError> {
    let container = Container::parse(bytes)?;
    let part = container
        .program_part()
        .ok_or(ContainerError::MissingPart(FourCc::SHEX))?;
    let header = ProgramHeader::parse(part)?;
    let dxil = matches!(header, ProgramHeader::Dxil(_));
    let mut shader = if dxil {
        dxil::lower_container(&container, opts)?
    } else {
        dxbc::lower_container(&container, opts)?
    };
    if !opts.no_opt {
        crate::ir::opt::optimize(&mut shader);
    }
    Ok(Loaded {
        shader,
        version: header.version(),
        dxil,
    })
}
