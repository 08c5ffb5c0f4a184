//! dxc-style listings of DXIL programs: what `dxc -dumpbin` prints for a container.
//!
//! A listing is the comment block dxc writes from the container's parts and the
//! program's metadata (feature flags, signature tables, shader hash, pipeline runtime
//! information, DXIL signatures, buffer definitions, resource bindings, view-id state;
//! see [`header`]) followed by the module as LLVM 3.7 text (see [`asm`]), with dxc's
//! comments after `dx.op` calls (see [`opsig`]) and one extra newline at the end.
//!
//! The text follows DirectXShaderCompiler's sources: `dxcdisassembler.cpp` (the
//! comment block and the `dx.op` comments), `DxilPipelineStateValidation.cpp`
//! (`PrintPSVRuntimeInfo`) and its LLVM's `lib/IR/AsmWriter.cpp` (the module text),
//! with the layout rules the seed `000_…` "Listings" section states (dxc's type sizes,
//! predecessor order, the trailing newline).
//!
//! Owns: turning a decoded container and module into that text. Does not own: decoding
//! (see [`crate::container`], [`crate::dxil::llvm`], [`crate::dxil::meta`]).

// A printer of already decoded, checked data: column arithmetic and index casts here
// work on small counts and never on raw input lengths.
#![allow(clippy::arithmetic_side_effects, clippy::cast_possible_truncation)]

pub mod asm;
pub mod buffers;
pub mod constants;
pub mod header;
pub mod layout;
pub mod opsig;
pub mod subobjects;

use crate::container::{Container, ContainerError, DxilProgramHeader, FourCc};
use crate::dxil::llvm::{LlvmError, Module};

/// Why a listing could not be made.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ListingError {
    /// The container itself is malformed.
    #[error(transparent)]
    Container(#[from] ContainerError),
    /// The container holds no `DXIL` (or `ILDB`) part: not a Shader Model 6 program.
    #[error("the container holds no DXIL program part (not a Shader Model 6 program)")]
    NotDxil,
    /// The program's bitcode does not decode.
    #[error("DXIL part: {0}")]
    Module(#[from] LlvmError),
}

/// The dxc-style listing of a whole container (`dxc -dumpbin`): the comment block,
/// then the module's LLVM 3.7 text, then one more newline.
///
/// The program is the `ILDB` part when the container has one (dxc prints the debug
/// module when present), else the `DXIL` part. Parts that fail to decode are left out
/// of the comment block; a program that fails to decode is an error.
pub fn disassemble(bytes: &[u8]) -> Result<String, ListingError> {
    let c = Container::parse(bytes)?;
    let part = c
        .part(FourCc::ILDB)
        .or_else(|| c.part(FourCc::DXIL))
        .ok_or(ListingError::NotDxil)?;
    let (program, bitcode) = DxilProgramHeader::parse(part)?;
    let module = Module::parse(bitcode)?;
    let mut out = header::header(&c, &program, &module);
    out.push_str(&module_text(&module));
    out.push('\n');
    Ok(out)
}

/// [`disassemble`], with the 1-based line of every function instruction in the text:
/// `(function index, instruction index, line)`, and the decoded module.
pub fn disassemble_with_lines(
    bytes: &[u8],
) -> Result<(String, Vec<asm::InstLine>, Module), ListingError> {
    let c = Container::parse(bytes)?;
    // The program the lowering runs (the `DXIL` part), not the `ILDB` debug module, so
    // that instruction indices match the IR's source map.
    let part = c
        .part(FourCc::DXIL)
        .or_else(|| c.part(FourCc::ILDB))
        .ok_or(ListingError::NotDxil)?;
    let (program, bitcode) = DxilProgramHeader::parse(part)?;
    let module = Module::parse(bitcode)?;
    let mut out = header::header(&c, &program, &module);
    let before = out.matches('\n').count() as u32;
    let mut w = asm::AsmWriter::new(&module);
    w.dxc_comments = true;
    let (text, lines) = w.print_module_with_lines();
    out.push_str(&text);
    out.push('\n');
    let lines = lines
        .into_iter()
        .map(|(f, i, l)| (f, i, l + before + 1))
        .collect();
    Ok((out, lines, module))
}

/// The `ILDB` debug module of a container (dxc writes it with `-Zi` beside the stripped
/// `DXIL` part), decoded; `None` when the container has no such part.
pub fn debug_module(bytes: &[u8]) -> Option<Result<Module, ListingError>> {
    let c = match Container::parse(bytes) {
        Ok(c) => c,
        Err(e) => return Some(Err(e.into())),
    };
    let part = c.part(FourCc::ILDB)?;
    Some(
        DxilProgramHeader::parse(part)
            .map_err(ListingError::from)
            .and_then(|(_, bitcode)| Module::parse(bitcode).map_err(ListingError::from)),
    )
}

/// A module as dxc's LLVM prints it, with dxc's comments after `dx.op` calls.
pub fn module_text(m: &Module) -> String {
    let mut w = asm::AsmWriter::new(m);
    w.dxc_comments = true;
    w.print_module()
}
