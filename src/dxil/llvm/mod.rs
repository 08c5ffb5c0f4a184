//! The LLVM 3.7 module a DXIL program carries: types, values, constants, attributes,
//! metadata, global variables, functions and their bodies.
//!
//! Owns: interpreting the bitstream's blocks and records as an LLVM 3.7 module
//! (IDENTIFICATION, MODULE, TYPE_BLOCK_NEW, PARAMATTR_GROUP, PARAMATTR, CONSTANTS,
//! METADATA, METADATA_KIND, METADATA_ATTACHMENT, VALUE_SYMTAB, USELIST and
//! FUNCTION_BLOCK), resolving relative value ids and forward references, giving every
//! value its type and name, and refusing a self-inconsistent module (a value or block
//! that does not exist, a type index out of range, operands of the wrong type, a call
//! with the wrong number of arguments) with the bit offset.
//!
//! Does not own: the bitstream encoding (see [`super::bitstream`]) or what DXIL makes
//! of the module (`dx.op` calls in [`super::dxop`], named metadata in [`super::meta`]).
//!
//! # Walking a module
//!
//! ```no_run
//! # fn f(m: &dxlane::dxil::llvm::Module) {
//! for f in &m.functions {
//!     let Some(body) = &f.body else { continue };
//!     for (b, block) in body.blocks.iter().enumerate() {
//!         for inst in body.block_instructions(dxlane::dxil::llvm::BlockId(b as u32)) {
//!             // inst.kind names value ids; m.value(Some(body), id) gives type and kind.
//!             let _ = (block, inst);
//!         }
//!     }
//! }
//! # }
//! ```
//!
//! The record layouts are those of LLVM 3.7's `BitcodeReader.cpp`/`BitcodeWriter.cpp`
//! (the version dxc forks); each decoding function names the record it reads.

mod body;
pub mod build;
mod inst;
mod metadata;
mod module;
mod reader;
mod types;
mod value;
pub mod write;

pub use super::bitstream;
pub use inst::{
    BinOp, BlockId, CastOp, DebugLoc, FastMathFlags, InstKind, Instruction, Operand, Ordering,
    Predicate, RmwOp,
};
pub use metadata::{MdId, Metadata, MetadataKind, NamedMetadata};
pub use module::{
    Alias, Attribute, AttributeGroup, AttributeList, BasicBlock, Function, FunctionBody, GlobalVar,
    Identification, Linkage, Module, attribute_kind_name,
};
pub use types::{Type, TypeId};
pub use value::{Constant, Value, ValueId, ValueKind, decode_signed};

use bitstream::BitstreamError;

/// Block ids of LLVM 3.7 (LLVMBitCodes.h `BlockIDs`).
pub mod block {
    /// MODULE_BLOCK.
    pub const MODULE: u32 = 8;
    /// PARAMATTR_BLOCK.
    pub const PARAMATTR: u32 = 9;
    /// PARAMATTR_GROUP_BLOCK.
    pub const PARAMATTR_GROUP: u32 = 10;
    /// CONSTANTS_BLOCK.
    pub const CONSTANTS: u32 = 11;
    /// FUNCTION_BLOCK.
    pub const FUNCTION: u32 = 12;
    /// IDENTIFICATION_BLOCK.
    pub const IDENTIFICATION: u32 = 13;
    /// VALUE_SYMTAB_BLOCK.
    pub const VALUE_SYMTAB: u32 = 14;
    /// METADATA_BLOCK.
    pub const METADATA: u32 = 15;
    /// METADATA_ATTACHMENT.
    pub const METADATA_ATTACHMENT: u32 = 16;
    /// TYPE_BLOCK_ID_NEW.
    pub const TYPE_NEW: u32 = 17;
    /// USELIST_BLOCK.
    pub const USELIST: u32 = 18;
    /// METADATA_KIND_BLOCK.
    pub const METADATA_KIND: u32 = 22;
}

/// Limits that bound what a module may make the reader allocate or loop over.
pub mod limits {
    /// The widest integer type (LLVM's `IntegerType::MAX_INT_BITS`).
    pub const MAX_INT_BITS: u64 = (1 << 23) - 1;
    /// The largest alignment exponent + 1 accepted (alignments up to 2^29 bytes, LLVM's
    /// `Value::MaximumAlignment`).
    pub const MAX_ALIGN_EXPONENT: u64 = 30;
}

/// An error decoding the LLVM module.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum LlvmError {
    /// The bitstream itself is malformed.
    #[error(transparent)]
    Bitstream(#[from] BitstreamError),
    /// A record outside any function body is malformed or inconsistent.
    #[error("{what} at bit {bit} ({block})")]
    Invalid {
        /// Bit offset of the record (or block).
        bit: u64,
        /// The block being read.
        block: &'static str,
        /// What is wrong.
        what: String,
    },
    /// An instruction (or other record of a function body) is malformed or inconsistent.
    #[error("function @{function}, instruction {inst} at bit {bit}: {what}")]
    Function {
        /// The function's name.
        function: String,
        /// The instruction index within the function (the count of instructions read
        /// before it).
        inst: u32,
        /// Bit offset of the record.
        bit: u64,
        /// What is wrong.
        what: String,
    },
    /// The stream holds no MODULE_BLOCK.
    #[error("bitcode holds no module block")]
    NoModule,
}

impl Module {
    /// Decodes and checks an LLVM 3.7 bitcode module (raw bitcode, or with the bitcode
    /// wrapper header).
    pub fn parse(bitcode: &[u8]) -> Result<Module, LlvmError> {
        reader::read_module(bitcode)
    }
}

#[cfg(test)]
mod tests;
