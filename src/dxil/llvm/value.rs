//! Values and constants.
//!
//! LLVM numbers values in one space per function: the module-level values first
//! (global variables, functions and aliases in record order, then the module's
//! constants), then the function's arguments, its constants and the results of its
//! instructions. A [`ValueId`] is an index in that space; [`super::Module::value`] looks
//! one up.

use std::fmt;

use super::TypeId;
use super::inst::{BinOp, CastOp, Predicate};

/// A value number (absolute, as LLVM's reader numbers them). `Display` prints `v12`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ValueId(pub u32);

impl ValueId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for ValueId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "v{}", self.0)
    }
}

/// One value: its type, what it is, and its name from the value symbol table.
#[derive(Debug, Clone, PartialEq)]
pub struct Value {
    /// The value's type (for globals and functions: the pointer type).
    pub ty: TypeId,
    /// What the value is.
    pub kind: ValueKind,
    /// The name (`@name` or `%name` without the sigil), if the symbol table gives one.
    pub name: Option<String>,
}

/// What a [`Value`] is.
#[derive(Debug, Clone, PartialEq)]
pub enum ValueKind {
    /// A global variable: index into [`super::Module::globals`].
    Global(u32),
    /// A function: index into [`super::Module::functions`].
    Function(u32),
    /// An alias: index into [`super::Module::aliases`].
    Alias(u32),
    /// A constant.
    Constant(Constant),
    /// The n-th argument of the function being read.
    Argument(u32),
    /// The result of the instruction with this index in its function.
    Instruction(u32),
}

/// A constant (CONSTANTS_BLOCK records). Operand value ids are absolute.
#[derive(Debug, Clone, PartialEq)]
pub enum Constant {
    /// `null` / `zeroinitializer`.
    Null,
    /// `undef`.
    Undef,
    /// An integer of at most 64 bits, sign-extended from the signed VBR the stream
    /// holds (mask to the type's width for the unsigned value).
    Int(i64),
    /// An integer wider than 64 bits: 64-bit words, least significant first, each as
    /// the stream's signed VBR decoded.
    WideInt(Vec<i64>),
    /// A floating-point value's bits (16, 32 or 64 of them by the type).
    Float(u64),
    /// A struct, array or vector of other constants.
    Aggregate(Vec<ValueId>),
    /// An `i8` array without a terminating NUL.
    String(Vec<u8>),
    /// An `i8` array whose last element, a NUL, is not stored.
    CString(Vec<u8>),
    /// An array or vector of integers or floats, given as their bits.
    Data(Vec<u64>),
    /// A cast constant expression.
    Cast {
        /// The cast.
        op: CastOp,
        /// The operand.
        value: ValueId,
    },
    /// A binary-operator constant expression.
    Binary {
        /// The operator (integer or float flavour by the type).
        op: BinOp,
        /// Left operand.
        lhs: ValueId,
        /// Right operand.
        rhs: ValueId,
        /// nuw/nsw/exact flags as stored.
        flags: u64,
    },
    /// A `getelementptr` constant expression.
    Gep {
        /// `inbounds`.
        inbounds: bool,
        /// The source element type, when the record states it.
        source_ty: Option<TypeId>,
        /// The base pointer then the indices.
        operands: Vec<ValueId>,
    },
    /// A `select` constant expression.
    Select {
        /// The condition.
        cond: ValueId,
        /// Value when true.
        if_true: ValueId,
        /// Value when false.
        if_false: ValueId,
    },
    /// An `icmp`/`fcmp` constant expression.
    Cmp {
        /// The predicate.
        pred: Predicate,
        /// Left operand.
        lhs: ValueId,
        /// Right operand.
        rhs: ValueId,
    },
    /// An `extractelement` constant expression.
    ExtractElement {
        /// The vector.
        vector: ValueId,
        /// The index.
        index: ValueId,
    },
    /// An `insertelement` constant expression.
    InsertElement {
        /// The vector.
        vector: ValueId,
        /// The element.
        element: ValueId,
        /// The index.
        index: ValueId,
    },
    /// A `shufflevector` constant expression.
    ShuffleVector {
        /// First vector.
        a: ValueId,
        /// Second vector.
        b: ValueId,
        /// The mask.
        mask: ValueId,
    },
    /// `blockaddress(function, block)`.
    BlockAddress {
        /// The function.
        function: ValueId,
        /// The block index in that function.
        block: u32,
    },
    /// A record this decoder keeps without interpreting (inline assembly): the code and
    /// operands as stored.
    Raw {
        /// The CONSTANTS record code.
        code: u32,
        /// Its operands.
        ops: Vec<u64>,
    },
}

impl Constant {
    /// The integer value, for [`Constant::Int`] (and 0 for [`Constant::Null`], which
    /// is how a zero integer is usually stored).
    pub fn as_int(&self) -> Option<i64> {
        match self {
            Constant::Int(v) => Some(*v),
            Constant::Null => Some(0),
            _ => None,
        }
    }
}

/// Decodes LLVM's signed VBR convention: the sign in bit 0, the magnitude above it
/// (LLVM BitcodeReader `decodeSignRotatedValue`).
pub fn decode_signed(v: u64) -> i64 {
    let mag = (v >> 1) as i64;
    if v & 1 == 0 {
        mag
    } else if mag == 0 {
        // "-0" encodes i64::MIN.
        i64::MIN
    } else {
        mag.wrapping_neg()
    }
}
