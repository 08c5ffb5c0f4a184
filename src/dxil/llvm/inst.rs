//! Instructions of a function body (FUNCTION_BLOCK records), with their operands
//! resolved to absolute value ids.

use std::fmt;

use super::{MdId, TypeId, ValueId};

/// A basic block's index in its function. `Display` prints `bb3`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BlockId(pub u32);

impl BlockId {
    /// The index as `usize`.
    pub fn index(self) -> usize {
        self.0 as usize
    }
}

impl fmt::Display for BlockId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "bb{}", self.0)
    }
}

/// Binary operators (LLVM bitcode `BinaryOpcodes`); the float flavour (`fadd` …) is
/// chosen by the operand type.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BinOp {
    /// `add` / `fadd` (0).
    Add = 0,
    /// `sub` / `fsub` (1).
    Sub = 1,
    /// `mul` / `fmul` (2).
    Mul = 2,
    /// `udiv` (3).
    UDiv = 3,
    /// `sdiv` / `fdiv` (4).
    SDiv = 4,
    /// `urem` (5).
    URem = 5,
    /// `srem` / `frem` (6).
    SRem = 6,
    /// `shl` (7).
    Shl = 7,
    /// `lshr` (8).
    LShr = 8,
    /// `ashr` (9).
    AShr = 9,
    /// `and` (10).
    And = 10,
    /// `or` (11).
    Or = 11,
    /// `xor` (12).
    Xor = 12,
}

impl BinOp {
    /// The operator's bitcode code (its discriminant, as declared above).
    pub fn code(self) -> u64 {
        self as u64
    }

    /// The operator for a bitcode code.
    pub fn from_code(code: u64) -> Option<Self> {
        use BinOp::*;
        Some(match code {
            0 => Add,
            1 => Sub,
            2 => Mul,
            3 => UDiv,
            4 => SDiv,
            5 => URem,
            6 => SRem,
            7 => Shl,
            8 => LShr,
            9 => AShr,
            10 => And,
            11 => Or,
            12 => Xor,
            _ => return None,
        })
    }

    /// Whether the operator exists for floating-point operands.
    pub fn allows_float(self) -> bool {
        matches!(
            self,
            BinOp::Add | BinOp::Sub | BinOp::Mul | BinOp::SDiv | BinOp::SRem
        )
    }

    /// The LLVM assembly name for integer (`float == false`) or float operands.
    pub fn name(self, float: bool) -> &'static str {
        use BinOp::*;
        match (self, float) {
            (Add, false) => "add",
            (Add, true) => "fadd",
            (Sub, false) => "sub",
            (Sub, true) => "fsub",
            (Mul, false) => "mul",
            (Mul, true) => "fmul",
            (UDiv, _) => "udiv",
            (SDiv, false) => "sdiv",
            (SDiv, true) => "fdiv",
            (URem, _) => "urem",
            (SRem, false) => "srem",
            (SRem, true) => "frem",
            (Shl, _) => "shl",
            (LShr, _) => "lshr",
            (AShr, _) => "ashr",
            (And, _) => "and",
            (Or, _) => "or",
            (Xor, _) => "xor",
        }
    }
}

/// Cast operators (LLVM bitcode `CastOpcodes`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum CastOp {
    /// `trunc` (0).
    Trunc = 0,
    /// `zext` (1).
    ZExt = 1,
    /// `sext` (2).
    SExt = 2,
    /// `fptoui` (3).
    FpToUi = 3,
    /// `fptosi` (4).
    FpToSi = 4,
    /// `uitofp` (5).
    UiToFp = 5,
    /// `sitofp` (6).
    SiToFp = 6,
    /// `fptrunc` (7).
    FpTrunc = 7,
    /// `fpext` (8).
    FpExt = 8,
    /// `ptrtoint` (9).
    PtrToInt = 9,
    /// `inttoptr` (10).
    IntToPtr = 10,
    /// `bitcast` (11).
    BitCast = 11,
    /// `addrspacecast` (12).
    AddrSpaceCast = 12,
}

impl CastOp {
    /// The operator's bitcode code (its discriminant, as declared above).
    pub fn code(self) -> u64 {
        self as u64
    }

    /// The cast for a bitcode code.
    pub fn from_code(code: u64) -> Option<Self> {
        use CastOp::*;
        Some(match code {
            0 => Trunc,
            1 => ZExt,
            2 => SExt,
            3 => FpToUi,
            4 => FpToSi,
            5 => UiToFp,
            6 => SiToFp,
            7 => FpTrunc,
            8 => FpExt,
            9 => PtrToInt,
            10 => IntToPtr,
            11 => BitCast,
            12 => AddrSpaceCast,
            _ => return None,
        })
    }

    /// The LLVM assembly name.
    pub fn name(self) -> &'static str {
        use CastOp::*;
        match self {
            Trunc => "trunc",
            ZExt => "zext",
            SExt => "sext",
            FpToUi => "fptoui",
            FpToSi => "fptosi",
            UiToFp => "uitofp",
            SiToFp => "sitofp",
            FpTrunc => "fptrunc",
            FpExt => "fpext",
            PtrToInt => "ptrtoint",
            IntToPtr => "inttoptr",
            BitCast => "bitcast",
            AddrSpaceCast => "addrspacecast",
        }
    }
}

/// A comparison predicate: `fcmp` predicates 0–15, `icmp` predicates 32–41 (LLVM
/// `CmpInst::Predicate`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Predicate(pub u8);

impl Predicate {
    /// Whether this is an `fcmp` predicate.
    pub fn is_float(self) -> bool {
        self.0 <= 15
    }

    /// Whether this is an `icmp` predicate.
    pub fn is_int(self) -> bool {
        (32..=41).contains(&self.0)
    }

    /// The LLVM assembly name (`oeq`, `slt`, …).
    pub fn name(self) -> &'static str {
        const F: [&str; 16] = [
            "false", "oeq", "ogt", "oge", "olt", "ole", "one", "ord", "uno", "ueq", "ugt", "uge",
            "ult", "ule", "une", "true",
        ];
        const I: [&str; 10] = [
            "eq", "ne", "ugt", "uge", "ult", "ule", "sgt", "sge", "slt", "sle",
        ];
        if self.is_float() {
            F.get(usize::from(self.0)).copied().unwrap_or("?")
        } else {
            I.get(usize::from(self.0.wrapping_sub(32)))
                .copied()
                .unwrap_or("?")
        }
    }
}

/// `atomicrmw` operations (LLVM bitcode `RMWOperations`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum RmwOp {
    /// `xchg` (0).
    Xchg = 0,
    /// `add` (1).
    Add = 1,
    /// `sub` (2).
    Sub = 2,
    /// `and` (3).
    And = 3,
    /// `nand` (4).
    Nand = 4,
    /// `or` (5).
    Or = 5,
    /// `xor` (6).
    Xor = 6,
    /// `max` (7).
    Max = 7,
    /// `min` (8).
    Min = 8,
    /// `umax` (9).
    UMax = 9,
    /// `umin` (10).
    UMin = 10,
}

impl RmwOp {
    /// The operator's bitcode code (its discriminant, as declared above).
    pub fn code(self) -> u64 {
        self as u64
    }

    /// The operation for a bitcode code.
    pub fn from_code(code: u64) -> Option<Self> {
        use RmwOp::*;
        Some(match code {
            0 => Xchg,
            1 => Add,
            2 => Sub,
            3 => And,
            4 => Nand,
            5 => Or,
            6 => Xor,
            7 => Max,
            8 => Min,
            9 => UMax,
            10 => UMin,
            _ => return None,
        })
    }

    /// The LLVM assembly name.
    pub fn name(self) -> &'static str {
        use RmwOp::*;
        match self {
            Xchg => "xchg",
            Add => "add",
            Sub => "sub",
            And => "and",
            Nand => "nand",
            Or => "or",
            Xor => "xor",
            Max => "max",
            Min => "min",
            UMax => "umax",
            UMin => "umin",
        }
    }
}

/// Memory ordering of an atomic operation (bitcode `AtomicOrderingCodes`: 0 not atomic,
/// 1 unordered, 2 monotonic, 3 acquire, 4 release, 5 acq_rel, 6 seq_cst).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Ordering(pub u8);

impl Ordering {
    /// The LLVM assembly name.
    pub fn name(self) -> &'static str {
        [
            "notatomic",
            "unordered",
            "monotonic",
            "acquire",
            "release",
            "acq_rel",
            "seq_cst",
        ]
        .get(usize::from(self.0))
        .copied()
        .unwrap_or("?")
    }
}

/// An operand of a call: a value, or (for `metadata` parameters) a metadata node, or
/// (for `label` parameters) a block.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Operand {
    /// A value.
    Value(ValueId),
    /// A metadata operand (`metadata !3`), by metadata id.
    Metadata(MdId),
    /// A block operand.
    Block(BlockId),
}

impl Operand {
    /// The value, when the operand is one.
    pub fn value(self) -> Option<ValueId> {
        match self {
            Operand::Value(v) => Some(v),
            _ => None,
        }
    }
}

/// Fast-math flags as stored (bit 0 unsafe-algebra/fast, 1 nnan, 2 ninf, 3 nsz, 4 arcp).
pub type FastMathFlags = u8;

/// What an instruction does, with its operands.
#[derive(Debug, Clone, PartialEq)]
pub enum InstKind {
    /// A binary operator.
    Binary {
        /// The operator.
        op: BinOp,
        /// Left operand.
        lhs: ValueId,
        /// Right operand.
        rhs: ValueId,
        /// Flags as stored: nuw (bit 0) / nsw (bit 1) for add, sub, mul, shl; exact (bit
        /// 0) for divisions and right shifts; fast-math flags for float operators.
        flags: u8,
    },
    /// A cast to the instruction's type.
    Cast {
        /// The cast.
        op: CastOp,
        /// The operand.
        value: ValueId,
    },
    /// `icmp` / `fcmp` (CMP and CMP2 records).
    Cmp {
        /// The predicate.
        pred: Predicate,
        /// Left operand.
        lhs: ValueId,
        /// Right operand.
        rhs: ValueId,
        /// Fast-math flags (fcmp), 0 when absent.
        flags: FastMathFlags,
    },
    /// `select` (VSELECT record).
    Select {
        /// The condition (`i1` or a vector of `i1`).
        cond: ValueId,
        /// Value when true.
        if_true: ValueId,
        /// Value when false.
        if_false: ValueId,
    },
    /// `extractelement`.
    ExtractElement {
        /// The vector.
        vector: ValueId,
        /// The index.
        index: ValueId,
    },
    /// `insertelement`.
    InsertElement {
        /// The vector.
        vector: ValueId,
        /// The new element.
        element: ValueId,
        /// The index.
        index: ValueId,
    },
    /// `shufflevector`.
    ShuffleVector {
        /// First vector.
        a: ValueId,
        /// Second vector.
        b: ValueId,
        /// The constant mask.
        mask: ValueId,
    },
    /// `extractvalue`.
    ExtractValue {
        /// The aggregate.
        aggregate: ValueId,
        /// The constant indices.
        indices: Vec<u32>,
    },
    /// `insertvalue`.
    InsertValue {
        /// The aggregate.
        aggregate: ValueId,
        /// The inserted value.
        value: ValueId,
        /// The constant indices.
        indices: Vec<u32>,
    },
    /// `phi`: one (value, predecessor) pair per incoming edge, in record order.
    Phi {
        /// The incoming values and blocks.
        incoming: Vec<(ValueId, BlockId)>,
    },
    /// `br label %target`.
    Br {
        /// The target.
        target: BlockId,
    },
    /// `br i1 %cond, label %t, label %f`.
    CondBr {
        /// The condition.
        cond: ValueId,
        /// Target when true.
        if_true: BlockId,
        /// Target when false.
        if_false: BlockId,
    },
    /// `switch`.
    Switch {
        /// The selector.
        cond: ValueId,
        /// The default target.
        default: BlockId,
        /// The cases: constant value id and target.
        cases: Vec<(ValueId, BlockId)>,
    },
    /// `ret` (with a value unless the function returns void).
    Ret {
        /// The returned value.
        value: Option<ValueId>,
    },
    /// `unreachable`.
    Unreachable,
    /// `call`.
    Call {
        /// The callee (a function value, or any pointer-to-function value).
        callee: ValueId,
        /// The callee's function type.
        fn_ty: TypeId,
        /// The arguments.
        args: Vec<Operand>,
        /// Attribute list: 1-based index into [`super::Module::attribute_lists`], 0 for
        /// none.
        attributes: u32,
        /// The calling convention.
        calling_conv: u32,
        /// `tail` (bit 0), `musttail` (bit 1), `notail` (bit 2).
        tail: u8,
        /// Fast-math flags (0 when absent).
        flags: FastMathFlags,
        /// Whether the record stated the function type explicitly.
        explicit_type: bool,
    },
    /// `alloca`.
    Alloca {
        /// The allocated type.
        allocated: TypeId,
        /// The element count operand.
        size: ValueId,
        /// Alignment in bytes (0 when unstated).
        align: u64,
        /// `inalloca`.
        inalloca: bool,
        /// The record's alignment word as stored (log2 + 1, flag bits).
        raw_align: u64,
    },
    /// `load`.
    Load {
        /// The pointer.
        ptr: ValueId,
        /// Alignment in bytes (0 when unstated).
        align: u64,
        /// `volatile`.
        volatile: bool,
        /// Atomic ordering and scope (LOADATOMIC), `None` for a plain load.
        atomic: Option<(Ordering, u8)>,
    },
    /// `store`.
    Store {
        /// The pointer.
        ptr: ValueId,
        /// The stored value.
        value: ValueId,
        /// Alignment in bytes (0 when unstated).
        align: u64,
        /// `volatile`.
        volatile: bool,
        /// Atomic ordering and scope (STOREATOMIC), `None` for a plain store.
        atomic: Option<(Ordering, u8)>,
    },
    /// `getelementptr`.
    Gep {
        /// `inbounds`.
        inbounds: bool,
        /// The source element type.
        source_ty: TypeId,
        /// The base pointer.
        base: ValueId,
        /// The indices.
        indices: Vec<ValueId>,
        /// Whether the record was the GEP record with an explicit type (vs the old one).
        explicit_type: bool,
    },
    /// `atomicrmw`.
    AtomicRmw {
        /// The operation.
        op: RmwOp,
        /// The pointer.
        ptr: ValueId,
        /// The operand.
        value: ValueId,
        /// `volatile`.
        volatile: bool,
        /// The ordering.
        ordering: Ordering,
        /// Synchronisation scope (0 singlethread, 1 system).
        scope: u8,
    },
    /// `cmpxchg`; the result is `{ T, i1 }`.
    CmpXchg {
        /// The pointer.
        ptr: ValueId,
        /// The expected value.
        cmp: ValueId,
        /// The new value.
        new: ValueId,
        /// `volatile`.
        volatile: bool,
        /// Ordering on success.
        success: Ordering,
        /// Synchronisation scope.
        scope: u8,
        /// Ordering on failure.
        failure: Ordering,
        /// `weak`.
        weak: bool,
    },
    /// `fence`.
    Fence {
        /// The ordering.
        ordering: Ordering,
        /// Synchronisation scope.
        scope: u8,
    },
}

impl InstKind {
    /// Whether the instruction ends a basic block.
    pub fn is_terminator(&self) -> bool {
        matches!(
            self,
            InstKind::Br { .. }
                | InstKind::CondBr { .. }
                | InstKind::Switch { .. }
                | InstKind::Ret { .. }
                | InstKind::Unreachable
        )
    }

    /// The instruction's LLVM opcode name (`add`/`fadd` need the operand type; this
    /// returns the integer spelling for binary operators).
    pub fn opcode_name(&self) -> &'static str {
        match self {
            InstKind::Binary { op, .. } => op.name(false),
            InstKind::Cast { op, .. } => op.name(),
            InstKind::Cmp { pred, .. } => {
                if pred.is_float() {
                    "fcmp"
                } else {
                    "icmp"
                }
            }
            InstKind::Select { .. } => "select",
            InstKind::ExtractElement { .. } => "extractelement",
            InstKind::InsertElement { .. } => "insertelement",
            InstKind::ShuffleVector { .. } => "shufflevector",
            InstKind::ExtractValue { .. } => "extractvalue",
            InstKind::InsertValue { .. } => "insertvalue",
            InstKind::Phi { .. } => "phi",
            InstKind::Br { .. } | InstKind::CondBr { .. } => "br",
            InstKind::Switch { .. } => "switch",
            InstKind::Ret { .. } => "ret",
            InstKind::Unreachable => "unreachable",
            InstKind::Call { .. } => "call",
            InstKind::Alloca { .. } => "alloca",
            InstKind::Load { .. } => "load",
            InstKind::Store { .. } => "store",
            InstKind::Gep { .. } => "getelementptr",
            InstKind::AtomicRmw { .. } => "atomicrmw",
            InstKind::CmpXchg { .. } => "cmpxchg",
            InstKind::Fence { .. } => "fence",
        }
    }

    /// The successor blocks of a terminator, in operand order.
    pub fn successors(&self) -> Vec<BlockId> {
        match self {
            InstKind::Br { target } => vec![*target],
            InstKind::CondBr {
                if_true, if_false, ..
            } => vec![*if_true, *if_false],
            InstKind::Switch { default, cases, .. } => std::iter::once(*default)
                .chain(cases.iter().map(|c| c.1))
                .collect(),
            _ => Vec::new(),
        }
    }

    /// Every value operand, in the order LLVM lists the instruction's operands.
    pub fn value_operands(&self) -> Vec<ValueId> {
        use InstKind::*;
        match self {
            Binary { lhs, rhs, .. } | Cmp { lhs, rhs, .. } => vec![*lhs, *rhs],
            Cast { value, .. } => vec![*value],
            Select {
                cond,
                if_true,
                if_false,
            } => vec![*cond, *if_true, *if_false],
            ExtractElement { vector, index } => vec![*vector, *index],
            InsertElement {
                vector,
                element,
                index,
            } => vec![*vector, *element, *index],
            ShuffleVector { a, b, mask } => vec![*a, *b, *mask],
            ExtractValue { aggregate, .. } => vec![*aggregate],
            InsertValue {
                aggregate, value, ..
            } => vec![*aggregate, *value],
            Phi { incoming } => incoming.iter().map(|i| i.0).collect(),
            Br { .. } | Unreachable | Fence { .. } => Vec::new(),
            CondBr { cond, .. } => vec![*cond],
            Switch { cond, cases, .. } => std::iter::once(*cond)
                .chain(cases.iter().map(|c| c.0))
                .collect(),
            Ret { value } => value.iter().copied().collect(),
            Call { callee, args, .. } => args
                .iter()
                .filter_map(|a| a.value())
                .chain(std::iter::once(*callee))
                .collect(),
            Alloca { size, .. } => vec![*size],
            Load { ptr, .. } => vec![*ptr],
            Store { ptr, value, .. } => vec![*value, *ptr],
            Gep { base, indices, .. } => std::iter::once(*base)
                .chain(indices.iter().copied())
                .collect(),
            AtomicRmw { ptr, value, .. } => vec![*ptr, *value],
            CmpXchg { ptr, cmp, new, .. } => vec![*ptr, *cmp, *new],
        }
    }
}

/// A source location (DEBUG_LOC record).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DebugLoc {
    /// Line.
    pub line: u32,
    /// Column.
    pub column: u32,
    /// The scope node.
    pub scope: Option<MdId>,
    /// The inlined-at location node.
    pub inlined_at: Option<MdId>,
}

/// One instruction.
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    /// What it does.
    pub kind: InstKind,
    /// The result type (`void` for instructions without a result).
    pub ty: TypeId,
    /// The value id of the result, for instructions that produce a non-void value.
    pub result: Option<ValueId>,
    /// The source location, from a DEBUG_LOC record after it or a DEBUG_LOC_AGAIN.
    pub debug_loc: Option<DebugLoc>,
    /// Whether the location came from DEBUG_LOC_AGAIN (the previous location repeated).
    pub debug_loc_again: bool,
    /// Metadata attachments (kind id, node), in METADATA_ATTACHMENT record order.
    pub attachments: Vec<(u32, MdId)>,
    /// Bit offset of the instruction's record.
    pub bit: u64,
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The writer encodes with `code()`, the reader decodes with `from_code`: LLVM's
    /// `BinaryOpcodes`, `CastOpcodes` and `RMWOperations` numbering, both ways.
    #[test]
    fn codes_round_trip() {
        for c in 0..64 {
            if let Some(op) = BinOp::from_code(c) {
                assert_eq!(op.code(), c);
            }
            if let Some(op) = CastOp::from_code(c) {
                assert_eq!(op.code(), c);
            }
            if let Some(op) = RmwOp::from_code(c) {
                assert_eq!(op.code(), c);
            }
        }
        assert_eq!(
            (
                BinOp::Xor.code(),
                CastOp::AddrSpaceCast.code(),
                RmwOp::UMin.code()
            ),
            (12, 12, 10)
        );
    }
}
