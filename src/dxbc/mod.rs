//! Shader Model 4.0–5.1 token programs (`SHEX`/`SHDR` parts): decoding into a typed
//! [`Program`], and the fxc-style listing.
//!
//! Owns: the token stream of a program part — version and length tokens, opcodes,
//! extended opcode tokens, operands, declarations, custom data — following seed
//! `002_…txt` (the flattened `d3d12TokenizedProgramFormat.hpp`), and printing it the way
//! fxc's `/dumpbin` does.
//!
//! Does not own: the container around the program (see [`crate::container`]), what the
//! instructions compute (that is `lower` and `exec`), or Shader Model 6 (see
//! [`crate::dxil`]).
//!
//! Layers, each knowing nothing above it: [`token`] (bit fields of one token) →
//! [`operand`], [`decl`] (operands and declarations) → [`decode`] (the instruction
//! stream) → [`mod@listing`] (text). Every decoder function treats its input as untrusted:
//! it returns a [`DxbcError`] naming the part, token offset and byte offset, never
//! panics, and allocates only after checking a count against the tokens that hold it.
//!
//! ```no_run
//! # fn main() -> Result<(), Box<dyn std::error::Error>> {
//! let bytes = std::fs::read("shaders/compute_basic.cs_5_0.dxbc")?;
//! let program = dxlane::dxbc::Program::from_bytes(&bytes)?;
//! for (inst, exec) in program.executables() {
//!     println!("{} at token {}: {} operands", exec.opcode.mnemonic(), inst.offset, exec.operands(&program).len());
//! }
//! print!("{}", dxlane::dxbc::listing(&program));
//! # Ok(())
//! # }
//! ```

#![deny(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

pub mod decl;
pub mod decode;
pub mod error;
pub mod listing;
pub mod opcode;
mod opcode_table;
pub mod operand;
pub mod token;

pub use decl::{
    BindingRange, CustomData, Declaration, GlobalFlags, HullPhase, InterfaceDecl, Interpolation,
    Primitive, PrimitiveTopology, ResourceDimension, ReturnType, SamplerMode, ShaderMessage,
    SystemName, TessDomain, TessOutputPrimitive, TessPartitioning, UavFlags,
};
pub use decode::{
    Executable, InfoReturnType, Instruction, InstructionKind, OperandRange, Program, SyncFlags,
    Test,
};
pub use error::{DxbcError, Location};
pub use listing::listing;
pub use opcode::{ALL_OPCODES, Opcode, OpcodeClass, OpcodeInfo, OperandType};
pub use operand::{
    Component, ComponentMask, Components, Index, MinPrecision, Operand, OperandModifier,
    RegisterType, RelativeRegister, Swizzle,
};

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects, clippy::cast_possible_truncation)]
mod tests;
