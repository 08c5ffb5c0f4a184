//! Metadata (METADATA_BLOCK, LLVM 3.7 encoding).
//!
//! Every string, value, node, location and debug-info record gets the next metadata id,
//! module-level ones first, then (per function) the function's local ones. Names, named
//! nodes and kinds take no id.

use std::fmt;

use super::{TypeId, ValueId};

/// A metadata id. `Display` prints `!12`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct MdId(pub u32);

impl MdId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for MdId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "!{}", self.0)
    }
}

/// One metadata entry.
#[derive(Debug, Clone, PartialEq)]
pub enum Metadata {
    /// `!"text"` (METADATA_STRING).
    String(Vec<u8>),
    /// `T value` wrapped as metadata (METADATA_VALUE): a constant, global or (in a
    /// function) a local value.
    Value {
        /// The value's type.
        ty: TypeId,
        /// The value.
        value: ValueId,
    },
    /// `!{…}` or `distinct !{…}` (METADATA_NODE / METADATA_DISTINCT_NODE); `None` is a
    /// null operand.
    Node {
        /// `distinct`.
        distinct: bool,
        /// The operands.
        ops: Vec<Option<MdId>>,
    },
    /// `!DILocation(…)` (METADATA_LOCATION).
    Location {
        /// `distinct`.
        distinct: bool,
        /// Line.
        line: u32,
        /// Column.
        column: u32,
        /// The scope.
        scope: MdId,
        /// The inlined-at location.
        inlined_at: Option<MdId>,
    },
    /// Any other debug-info record (DI* nodes: files, compile units, subprograms, types,
    /// variables, expressions, …), kept as stored: operands that name metadata hold
    /// id + 1 (0 for null), as LLVM 3.7 writes them.
    Debug {
        /// The METADATA record code (12 generic debug … 34 macro file).
        code: u32,
        /// `distinct` (bit 0 of the first operand).
        distinct: bool,
        /// All operands as stored (the first included).
        ops: Vec<u64>,
    },
}

/// `!name = !{…}` (METADATA_NAME followed by METADATA_NAMED_NODE).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct NamedMetadata {
    /// The name (`dx.entryPoints`, `llvm.ident`, …).
    pub name: String,
    /// The nodes, in order.
    pub ops: Vec<MdId>,
}

/// An instruction metadata kind (METADATA_KIND record): id and name.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MetadataKind {
    /// The kind id used in attachments.
    pub id: u32,
    /// The name (`dbg`, `tbaa`, `dx.precise`, …).
    pub name: String,
}
