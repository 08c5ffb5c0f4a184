//! Shader Model 6 programs: the LLVM bitstream, the LLVM 3.7 module, the `dx.op` table,
//! and DXIL metadata.
//!
//! Owns, in layers that each know nothing of the layers above them:
//! - [`bitstream`]: blocks, abbreviations and records (no LLVM knowledge);
//! - [`llvm`]: the LLVM 3.7 module (types, values, constants, metadata, attributes,
//!   functions and their instructions), checked for self-consistency;
//! - [`dxop_table`] and [`dxop`]: the `dx.op` operation table and the decoding of
//!   `call @dx.op.<class>.<overload>(i32 opcode, …)` into named operations;
//! - [`meta`]: DXIL's named metadata (`dx.version`, `dx.shaderModel`,
//!   `dx.entryPoints`, `dx.resources`, `dx.typeAnnotations`, …) as typed structs.
//!
//! Does not own: the container (see [`crate::container`]), lowering to the interpreter
//! IR, the dxc-style listing, or checks against PSV0.
//!
//! Every layer treats its input as untrusted: errors say what and where (bit offset;
//! function and instruction index), counts are checked before allocation, nothing
//! panics.

#![deny(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

pub mod bitstream;
pub mod dxop;
pub mod dxop_table;
pub mod llvm;
pub mod meta;
