//! Lowering one function: SSA values to registers, LLVM's core instructions, and the
//! control-flow graph (blocks, branches, phis as parallel copies on edges).
//!
//! Owns: the per-function state ([`FnLower`]), the register form of every value, and
//! the instructions that are not memory accesses or `dx.op` calls. Memory lives in
//! `memory`, `dx.op` calls in `ops`.
//!
//! # Values and registers
//!
//! A value is a list of *leaves* (see `layout::leaves`), each held by one register (a
//! register pair for 64-bit leaves). Leaves need not be consecutive registers, so
//! aggregate operations are pure renaming: `extractvalue` takes a slice of the
//! aggregate's registers, `insertvalue` replaces one, `extractelement` with a constant
//! index and same-width bitcasts reuse the operand's register. This is sound because a
//! value's registers are written only by its defining instruction, or (phis) by the copies
//! on the edges into the phi's block, and every use of a renamed value is dominated by
//! its definition, which re-reads the current registers after any such edge.
//!
//! Narrow integers (`i8`, `i16`) live zero-extended in 32 bits; `half` values as their
//! binary16 bits in the low half; `i1` as the IR boolean (0 or 0xffff_ffff). Pointers are
//! not registers but [`Ptr`]s: a statically known memory (local array, group shared
//! memory, constant array) and a byte offset `reg + off`.

use std::collections::HashMap;

use super::copies;
use super::layout::{self, DataLayout, Leaf};
use super::resources::{HandleKind, Range};
use crate::dxil::llvm::{
    self, BinOp, CastOp, Constant, FunctionBody, InstKind, Instruction, Module, Predicate, Type,
    TypeId, Value, ValueId, ValueKind,
};
use crate::ir::{
    BlockId, Builder, ConstId, FCond, ICond, Inst, LocalId, Reg, SourceLoc, Terminator,
};
use crate::lower::LowerError;

/// Which memory a pointer points into.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Root {
    /// A per-lane array (an `alloca`, or a non-constant global of address space 0).
    Local(LocalId),
    /// Group shared memory (address space 3 globals); offsets are absolute.
    Shared,
    /// A read-only array (a constant global with an initializer).
    Const(ConstId),
    /// A resource global of a library (`createHandleForLib` loads it): the range index.
    Resource(usize),
}

/// A pointer value: its memory and its byte offset `reg + off` (`reg` absent: `off`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Ptr {
    /// The memory.
    pub root: Root,
    /// The variable part of the offset.
    pub reg: Option<Reg>,
    /// The constant part of the offset (wrapping).
    pub off: u32,
}

/// The register form of a value.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Val {
    /// One register (pair) per leaf.
    Regs(Vec<Reg>),
    /// A pointer.
    Ptr(Ptr),
    /// A library resource loaded from its global (before `createHandleForLib`).
    Resource(usize),
}

/// Per-function lowering state.
pub struct FnLower<'m> {
    /// The module.
    pub m: &'m Module,
    /// The function's body.
    pub body: &'m FunctionBody,
    /// Function index in the module.
    pub fi: u32,
    /// Function name.
    pub fname: &'m str,
    /// The IR being built.
    pub b: Builder,
    /// The module's data layout.
    pub dl: DataLayout,
    /// The resource ranges, parallel to the shader's `resources`.
    pub ranges: Vec<Range>,
    /// The register form of each value lowered so far.
    pub vals: HashMap<ValueId, Val>,
    /// Global variables' pointers (module values), made on first use.
    pub globals: HashMap<ValueId, Ptr>,
    /// Stores that initialise non-constant globals, run at entry.
    pub global_inits: Vec<Inst>,
    /// The values live instructions read (1 for each; see `lower_function`).
    pub uses: HashMap<ValueId, u32>,
    /// The live instructions using each value.
    pub users: HashMap<ValueId, Vec<u32>>,
    /// What each handle value refers to (from the analysis).
    pub handles: HashMap<ValueId, HandleKind>,
    /// Which memory each pointer value points into (from the analysis).
    pub roots: HashMap<ValueId, Root>,
    /// The per-lane array of each alloca (by its instruction's result).
    pub allocas: HashMap<ValueId, LocalId>,
    /// The IR block of each LLVM block.
    pub blocks: Vec<BlockId>,
    /// The instruction being lowered (for error locations).
    pub inst: u32,
    /// The `dx.precise` metadata kind, when the module has one.
    pub precise_kind: Option<u32>,
    /// The stage and where its signature elements are.
    pub io: super::stage::Io,
    /// The element being lowered of a vector-overloaded `dx.op` call (`vectors`).
    pub lane: Option<super::vectors::Lane>,
}

/// A phi: its result, its incoming (value, predecessor) pairs and its type.
type Phi<'m> = (ValueId, &'m [(ValueId, llvm::BlockId)], TypeId);

/// A result of this module.
pub type R<T> = Result<T, LowerError>;

/// The i-th element of a slice, or an error naming what was missing.
pub fn at<T: Copy>(v: &[T], i: usize) -> Result<T, String> {
    v.get(i)
        .copied()
        .ok_or_else(|| format!("missing operand {i}"))
}

impl<'m> FnLower<'m> {
    /// Where the current instruction is, for error messages.
    pub fn location(&self) -> String {
        format!(
            "dxil function {} (@{}) instruction {}",
            self.fi, self.fname, self.inst
        )
    }

    /// An `Unsupported` error at the current instruction.
    pub fn unsupported(&self, what: impl Into<String>) -> LowerError {
        LowerError::Unsupported {
            what: what.into(),
            location: self.location(),
        }
    }

    /// An `Invalid` error at the current instruction.
    pub fn invalid(&self, message: impl Into<String>) -> LowerError {
        LowerError::Invalid {
            message: message.into(),
            location: self.location(),
        }
    }

    /// Makes a string error `Invalid`.
    pub fn inv<T>(&self, r: Result<T, String>) -> R<T> {
        r.map_err(|e| self.invalid(e))
    }

    /// A value of the module or the function.
    pub fn value(&self, v: ValueId) -> R<&'m Value> {
        self.m
            .value(Some(self.body), v)
            .ok_or_else(|| self.invalid(format!("value {v} does not exist")))
    }

    /// A value's type.
    pub fn ty(&self, v: ValueId) -> R<TypeId> {
        Ok(self.value(v)?.ty)
    }

    /// A type.
    pub fn typ(&self, t: TypeId) -> R<&'m Type> {
        self.m
            .ty(t)
            .ok_or_else(|| self.invalid(format!("type {t} does not exist")))
    }

    /// A value's name for messages (`%name` or `v12`).
    pub fn name_of(&self, v: ValueId) -> String {
        match self
            .m
            .value(Some(self.body), v)
            .and_then(|x| x.name.as_deref())
        {
            Some(n) => format!("%{n}"),
            None => match self.m.value(Some(self.body), v).map(|x| &x.kind) {
                Some(ValueKind::Instruction(i)) => format!("the result of instruction {i}"),
                _ => format!("{v}"),
            },
        }
    }

    /// The constant a value is, if it is one.
    pub fn constant(&self, v: ValueId) -> Option<&'m Constant> {
        match &self.m.value(Some(self.body), v)?.kind {
            ValueKind::Constant(c) => Some(c),
            _ => None,
        }
    }

    /// The integer a constant value holds (sign-extended as stored).
    pub fn const_int(&self, v: ValueId) -> Option<i64> {
        self.constant(v).and_then(Constant::as_int)
    }

    /// Whether a value is `undef`.
    pub fn is_undef(&self, v: ValueId) -> bool {
        matches!(self.constant(v), Some(Constant::Undef))
    }

    /// The leaves of a type, or an error.
    pub fn leaves(&self, t: TypeId) -> R<Vec<Leaf>> {
        layout::leaves(self.m, t).map_err(|e| self.unsupported(e))
    }

    /// The single leaf of a scalar type.
    pub fn leaf(&self, t: TypeId) -> R<Leaf> {
        Leaf::of(self.m, t).ok_or_else(|| {
            self.unsupported(format!(
                "a value of type {:?} where a scalar is needed",
                self.m.ty(t)
            ))
        })
    }

    /// Appends an instruction.
    pub fn emit(&mut self, i: Inst) {
        self.b.emit(i);
    }

    /// A fresh register (pair for wide leaves).
    pub fn fresh(&mut self, l: Leaf) -> Reg {
        if l.wide() {
            self.b.temp64()
        } else {
            self.b.temp()
        }
    }

    /// A 32-bit constant register.
    pub fn k(&mut self, v: u32) -> Reg {
        self.b.konst(v)
    }

    /// Emits a two-operand instruction into a fresh register.
    pub fn op2(&mut self, f: impl FnOnce(Reg) -> Inst) -> Reg {
        let d = self.b.temp();
        self.emit(f(d));
        d
    }

    /// Emits a 64-bit result instruction into a fresh pair.
    pub fn op64(&mut self, f: impl FnOnce(Reg) -> Inst) -> Reg {
        let d = self.b.temp64();
        self.emit(f(d));
        d
    }

    /// `src & mask` into a fresh register.
    pub fn and_k(&mut self, src: Reg, mask: u32) -> Reg {
        let m = self.k(mask);
        self.op2(|dst| Inst::And { dst, a: src, b: m })
    }

    /// Sign-extends the low `bits` bits (8 or 16).
    pub fn sext(&mut self, src: Reg, bits: u8) -> Reg {
        self.op2(|dst| Inst::SExtBits { bits, dst, src })
    }

    /// `half` bits to a float.
    pub fn h2f(&mut self, src: Reg) -> Reg {
        self.op2(|dst| Inst::F16ToF32 { dst, src })
    }

    /// A float to `half` bits, rounded to nearest even (WARP's native 16-bit results,
    /// DESIGN "16-bit float math is computed in fp32 and rounded to nearest even").
    pub fn f2h(&mut self, src: Reg) -> Reg {
        self.op2(|dst| Inst::F32ToF16 { dst, src })
    }

    /// `cond != 0` as a boolean.
    pub fn ne_zero(&mut self, src: Reg) -> Reg {
        let z = self.k(0);
        self.op2(|dst| Inst::ICmp {
            cond: ICond::Ne,
            dst,
            a: src,
            b: z,
        })
    }

    /// The registers of a value: lowered values from the map, constants made on demand.
    pub fn regs(&mut self, v: ValueId) -> R<Vec<Reg>> {
        match self.vals.get(&v) {
            Some(Val::Regs(r)) => return Ok(r.clone()),
            Some(Val::Ptr(_)) => {
                return Err(self.unsupported(format!(
                    "pointer {} used as a value (ptrtoint)",
                    self.name_of(v)
                )));
            }
            Some(Val::Resource(_)) => {
                return Err(self.unsupported(format!(
                    "library resource {} used as a value",
                    self.name_of(v)
                )));
            }
            None => {}
        }
        let val = self.value(v)?;
        match &val.kind {
            ValueKind::Constant(c) => {
                let r = self.const_regs(c, val.ty)?;
                self.vals.insert(v, Val::Regs(r.clone()));
                Ok(r)
            }
            ValueKind::Argument(_) => {
                Err(self.unsupported("a function argument (entry points take none)"))
            }
            _ => Err(self.invalid(format!("{} is used before it is defined", self.name_of(v)))),
        }
    }

    /// The one register of a scalar value.
    pub fn reg(&mut self, v: ValueId) -> R<Reg> {
        let r = self.regs(v)?;
        match r.as_slice() {
            [x] => Ok(*x),
            _ => Err(self.invalid(format!(
                "{} has {} leaves where a scalar is needed",
                self.name_of(v),
                r.len()
            ))),
        }
    }

    /// Registers of a constant, leaf by leaf.
    pub fn const_regs(&mut self, c: &'m Constant, ty: TypeId) -> R<Vec<Reg>> {
        let leaves = self.leaves(ty)?;
        match c {
            Constant::Null | Constant::Undef => Ok(leaves
                .iter()
                .map(|l| {
                    if l.wide() {
                        self.b.konst64(0)
                    } else {
                        self.b.konst(0)
                    }
                })
                .collect()),
            Constant::Int(i) => {
                let l = *leaves
                    .first()
                    .ok_or_else(|| self.invalid("empty constant"))?;
                Ok(vec![self.scalar_const(l, *i as u64)])
            }
            Constant::Float(bits) => {
                let l = *leaves
                    .first()
                    .ok_or_else(|| self.invalid("empty constant"))?;
                Ok(vec![self.scalar_const(l, *bits)])
            }
            Constant::Aggregate(ids) => {
                let mut out = Vec::with_capacity(leaves.len());
                for id in ids {
                    out.extend(self.regs(*id)?);
                }
                if out.len() != leaves.len() {
                    return Err(self.invalid("a constant aggregate of the wrong size"));
                }
                Ok(out)
            }
            Constant::Data(words) => {
                if words.len() != leaves.len() {
                    return Err(self.invalid("a constant array of the wrong size"));
                }
                Ok(words
                    .iter()
                    .zip(&leaves)
                    .map(|(w, l)| self.scalar_const(*l, *w))
                    .collect())
            }
            Constant::String(bytes) | Constant::CString(bytes) => {
                let mut out: Vec<Reg> = bytes.iter().map(|b| self.b.konst(u32::from(*b))).collect();
                while out.len() < leaves.len() {
                    out.push(self.b.konst(0));
                }
                out.truncate(leaves.len());
                Ok(out)
            }
            Constant::Cast {
                op: CastOp::BitCast,
                value,
            } => {
                let src = self.regs(*value)?;
                let from = self.leaves(self.ty(*value)?)?;
                self.bitcast(&src, &from, &leaves)
            }
            other => {
                Err(self.unsupported(format!("constant expression {}", const_kind_name(other))))
            }
        }
    }

    /// A constant register for a scalar leaf from its stored bits.
    pub fn scalar_const(&mut self, l: Leaf, bits: u64) -> Reg {
        match l {
            Leaf::Bool => self.b.konst(if bits & 1 != 0 { u32::MAX } else { 0 }),
            Leaf::I8 => self.b.konst((bits & 0xff) as u32),
            Leaf::I16 | Leaf::F16 => self.b.konst((bits & 0xffff) as u32),
            Leaf::I64 | Leaf::F64 => self.b.konst64(bits),
            _ => self.b.konst((bits & 0xffff_ffff) as u32),
        }
    }

    /// Records the register form of an instruction's result.
    pub fn define(&mut self, v: Option<ValueId>, val: Val) {
        // One element of a vector-overloaded call: collected until every element is done.
        if let Some(lane) = self.lane.as_mut()
            && v.is_some()
            && lane.result == v
            && let Val::Regs(r) = &val
        {
            lane.out.extend_from_slice(r);
            return;
        }
        if let Some(v) = v {
            self.vals.insert(v, val);
        }
    }

    // ---- core instructions --------------------------------------------------------

    /// Lowers one non-terminator instruction.
    pub fn lower_inst(&mut self, inst: &'m Instruction) -> R<()> {
        let res = inst.result;
        if let Some(v) = res
            && self.uses.get(&v).copied().unwrap_or(0) == 0
            && is_pure(self.m, self.body, &inst.kind)
        {
            // A value nothing reads, from an instruction without effects.
            return Ok(());
        }
        self.check_vector_lengths(inst)?;
        self.check_types(inst)?;
        match &inst.kind {
            InstKind::Binary { op, lhs, rhs, .. } => {
                let leaves = self.leaves(inst.ty)?;
                let a = self.regs(*lhs)?;
                let b = self.regs(*rhs)?;
                let mut out = Vec::with_capacity(leaves.len());
                for (i, l) in leaves.iter().enumerate() {
                    let x = self.inv(at(&a, i))?;
                    let y = self.inv(at(&b, i))?;
                    out.push(self.binary(*op, *l, x, y)?);
                }
                self.define(res, Val::Regs(out));
            }
            InstKind::Cast { op, value } => self.cast(*op, *value, inst.ty, res)?,
            InstKind::Cmp { pred, lhs, rhs, .. } => {
                let out = self.compare(*pred, *lhs, *rhs)?;
                self.define(res, Val::Regs(out));
            }
            InstKind::Select {
                cond,
                if_true,
                if_false,
            } => self.select(*cond, *if_true, *if_false, inst.ty, res)?,
            InstKind::ExtractValue { aggregate, indices } => {
                let (start, len, _) =
                    self.inv(layout::leaf_range(self.m, self.ty(*aggregate)?, indices))?;
                let regs = self.regs(*aggregate)?;
                let part = regs
                    .get(start..start.saturating_add(len))
                    .ok_or_else(|| self.invalid("extractvalue past the aggregate"))?
                    .to_vec();
                self.define(res, Val::Regs(part));
            }
            InstKind::InsertValue {
                aggregate,
                value,
                indices,
            } => {
                let (start, len, _) =
                    self.inv(layout::leaf_range(self.m, self.ty(*aggregate)?, indices))?;
                let mut regs = self.regs(*aggregate)?;
                let new = self.regs(*value)?;
                if new.len() != len {
                    return Err(self.invalid("insertvalue of the wrong size"));
                }
                let slot = regs
                    .get_mut(start..start.saturating_add(len))
                    .ok_or_else(|| self.invalid("insertvalue past the aggregate"))?;
                slot.copy_from_slice(&new);
                self.define(res, Val::Regs(regs));
            }
            InstKind::ExtractElement { vector, index } => {
                let out = self.extract_element(*vector, *index)?;
                self.define(res, Val::Regs(out));
            }
            InstKind::InsertElement {
                vector,
                element,
                index,
            } => {
                let out = self.insert_element(*vector, *element, *index)?;
                self.define(res, Val::Regs(out));
            }
            InstKind::ShuffleVector { a, b, mask } => {
                let out = self.shuffle(*a, *b, *mask, inst.ty)?;
                self.define(res, Val::Regs(out));
            }
            InstKind::Phi { .. } => {} // allocated before the blocks are lowered
            InstKind::Call { callee, .. } => self.call(inst, *callee)?,
            InstKind::Alloca { .. }
            | InstKind::Load { .. }
            | InstKind::Store { .. }
            | InstKind::Gep { .. }
            | InstKind::AtomicRmw { .. }
            | InstKind::CmpXchg { .. } => self.memory(inst)?,
            InstKind::Fence { .. } => return Err(self.unsupported("LLVM instruction fence")),
            InstKind::Br { .. }
            | InstKind::CondBr { .. }
            | InstKind::Switch { .. }
            | InstKind::Ret { .. }
            | InstKind::Unreachable => {
                return Err(self.invalid("a terminator in the middle of a block"));
            }
        }
        Ok(())
    }

    /// Refuses an instruction whose operand types do not fit it (the decoder checks
    /// real modules; this keeps the lowering's invariant — a value's registers are those
    /// of its type — for any module): the result's type is the value's, binary operands
    /// and select arms have the result's type, compared values one type, inserted
    /// values the slot's type, phi inputs the phi's type, call arguments the callee's
    /// parameter types.
    fn check_types(&self, inst: &'m Instruction) -> R<()> {
        let same = |a: TypeId, b: TypeId, what: &str| -> R<()> {
            if a == b {
                Ok(())
            } else {
                Err(self.invalid(format!("{what}: type {a} where {b} is needed")))
            }
        };
        if let Some(v) = inst.result {
            same(self.ty(v)?, inst.ty, "result")?;
        }
        match &inst.kind {
            InstKind::Binary { lhs, rhs, .. } => {
                same(self.ty(*lhs)?, inst.ty, "operand")?;
                same(self.ty(*rhs)?, inst.ty, "operand")?;
            }
            InstKind::Cmp { lhs, rhs, .. } => same(self.ty(*lhs)?, self.ty(*rhs)?, "operand")?,
            InstKind::Select {
                if_true, if_false, ..
            } => {
                same(self.ty(*if_true)?, inst.ty, "operand")?;
                same(self.ty(*if_false)?, inst.ty, "operand")?;
            }
            InstKind::InsertValue {
                aggregate,
                value,
                indices,
            } => {
                same(self.ty(*aggregate)?, inst.ty, "aggregate")?;
                let (_, _, slot) =
                    self.inv(layout::leaf_range(self.m, self.ty(*aggregate)?, indices))?;
                same(self.ty(*value)?, slot, "inserted value")?;
            }
            InstKind::ExtractValue { aggregate, indices } => {
                let (_, _, slot) =
                    self.inv(layout::leaf_range(self.m, self.ty(*aggregate)?, indices))?;
                same(inst.ty, slot, "extracted value")?;
            }
            InstKind::ShuffleVector { a, b, .. } => {
                same(self.ty(*a)?, self.ty(*b)?, "operand")?;
                let el = |t: TypeId| match self.m.ty(t) {
                    Some(Type::Vector { element, .. }) => Some(*element),
                    _ => None,
                };
                if el(self.ty(*a)?) != el(inst.ty) {
                    return Err(self.invalid("shufflevector of another element type"));
                }
            }
            InstKind::ExtractElement { vector, .. } => {
                if let Type::Vector { element, .. } = self.typ(self.ty(*vector)?)? {
                    same(inst.ty, *element, "element")?;
                }
            }
            InstKind::InsertElement {
                vector, element, ..
            } => {
                same(self.ty(*vector)?, inst.ty, "vector")?;
                if let Type::Vector { element: e, .. } = self.typ(inst.ty)? {
                    same(self.ty(*element)?, *e, "element")?;
                }
            }
            InstKind::Phi { incoming } => {
                for (v, _) in incoming {
                    same(self.ty(*v)?, inst.ty, "phi input")?;
                }
            }
            InstKind::Call { fn_ty, args, .. } => {
                let Type::Function { ret, params, .. } = self.typ(*fn_ty)? else {
                    return Err(self.invalid("a call through a non-function type"));
                };
                same(inst.ty, *ret, "call result")?;
                if params.len() != args.len() {
                    return Err(self.invalid("a call with the wrong number of arguments"));
                }
                for (a, p) in args.iter().zip(params) {
                    if let Some(v) = a.value() {
                        same(self.ty(v)?, *p, "argument")?;
                    }
                }
            }
            InstKind::Store { ptr, value, .. } => {
                if let Type::Pointer { pointee, .. } = self.typ(self.ty(*ptr)?)? {
                    same(self.ty(*value)?, *pointee, "stored value")?;
                }
            }
            InstKind::Load { ptr, .. } => {
                if let Type::Pointer { pointee, .. } = self.typ(self.ty(*ptr)?)? {
                    same(inst.ty, *pointee, "loaded value")?;
                }
            }
            InstKind::AtomicRmw { ptr, value, .. } => {
                if let Type::Pointer { pointee, .. } = self.typ(self.ty(*ptr)?)? {
                    same(self.ty(*value)?, *pointee, "atomic operand")?;
                }
            }
            InstKind::CmpXchg { ptr, cmp, new, .. } => {
                if let Type::Pointer { pointee, .. } = self.typ(self.ty(*ptr)?)? {
                    same(self.ty(*cmp)?, *pointee, "compared value")?;
                    same(self.ty(*new)?, *pointee, "new value")?;
                }
            }
            _ => {}
        }
        Ok(())
    }

    /// A call: `dx.op` operations, LLVM's lifetime markers (no effect here), nothing else.
    fn call(&mut self, inst: &'m Instruction, callee: ValueId) -> R<()> {
        let name = self
            .m
            .function_of_value(callee)
            .map(|f| f.name.as_str())
            .unwrap_or("");
        if crate::dxil::dxop::is_dx_op(name) {
            let call = crate::dxil::dxop::decode_call(self.m, self.fi, self.body, self.inst)
                .map_err(|e| self.invalid(e.what))?
                .ok_or_else(|| self.invalid("not a dx.op call"))?;
            if self.vector_call(&call, inst)? {
                return Ok(());
            }
            return self.dx_op(&call, inst);
        }
        if name.starts_with("llvm.lifetime.") || name.starts_with("llvm.dbg.") {
            return Ok(());
        }
        if name.is_empty() {
            return Err(self.unsupported("an indirect call"));
        }
        Err(self.unsupported(format!("call to @{name}")))
    }

    /// One scalar leaf of a binary operator, into a fresh register.
    pub fn binary(&mut self, op: BinOp, l: Leaf, a: Reg, b: Reg) -> R<Reg> {
        use BinOp::*;
        if matches!(l, Leaf::F16 | Leaf::F32 | Leaf::F64) && !op.allows_float() {
            return Err(self.invalid(format!("LLVM {} on a float", op.name(false))));
        }
        Ok(match l {
            // (`float_op` is total on the operators floats allow.)
            Leaf::F32 => {
                self.op2(|dst| float_op(op, dst, a, b).unwrap_or(Inst::Mov { dst, src: a }))
            }
            Leaf::F16 => {
                let x = self.h2f(a);
                let y = self.h2f(b);
                let r =
                    self.op2(|dst| float_op(op, dst, x, y).unwrap_or(Inst::Mov { dst, src: x }));
                self.f2h(r)
            }
            Leaf::F64 => {
                let inst = |dst| match op {
                    Add => Inst::DAdd { dst, a, b },
                    Sub => Inst::DSub { dst, a, b },
                    Mul => Inst::DMul { dst, a, b },
                    SDiv => Inst::DDiv { dst, a, b },
                    _ => Inst::DRem { dst, a, b },
                };
                if !op.allows_float() {
                    return Err(self.invalid("an integer operator on double"));
                }
                self.op64(inst)
            }
            Leaf::I32 | Leaf::Handle => self.op2(|dst| int_op(op, dst, a, b)),
            Leaf::Bool => match op {
                And | Or | Xor => self.op2(|dst| int_op(op, dst, a, b)),
                // On one bit, + and − are xor and × is and.
                Add | Sub => self.op2(|dst| Inst::Xor { dst, a, b }),
                Mul => self.op2(|dst| Inst::And { dst, a, b }),
                _ => {
                    return Err(self.unsupported(format!("LLVM {} on i1", op.name(false))));
                }
            },
            Leaf::I8 | Leaf::I16 => {
                let (mask, bits) = if l == Leaf::I8 {
                    (0xff, 8)
                } else {
                    (0xffff, 16)
                };
                match op {
                    And | Or | Xor | LShr => self.op2(|dst| int_op(op, dst, a, b)),
                    Add | Sub | Mul | Shl | UDiv | URem => {
                        let r = self.op2(|dst| int_op(op, dst, a, b));
                        self.and_k(r, mask)
                    }
                    SDiv | SRem => {
                        let x = self.sext(a, bits);
                        let y = self.sext(b, bits);
                        let r = self.op2(|dst| int_op(op, dst, x, y));
                        self.and_k(r, mask)
                    }
                    AShr => {
                        let x = self.sext(a, bits);
                        let r = self.op2(|dst| Inst::IShr { dst, a: x, b });
                        self.and_k(r, mask)
                    }
                }
            }
            Leaf::I64 => match op {
                Add => self.op64(|dst| Inst::I64Add { dst, a, b }),
                Sub => self.op64(|dst| Inst::I64Sub { dst, a, b }),
                Mul => self.op64(|dst| Inst::I64Mul { dst, a, b }),
                UDiv => self.op64(|dst| Inst::U64Div { dst, a, b }),
                SDiv => self.op64(|dst| Inst::I64Div { dst, a, b }),
                URem => self.op64(|dst| Inst::U64Rem { dst, a, b }),
                SRem => self.op64(|dst| Inst::I64Rem { dst, a, b }),
                Shl => self.op64(|dst| Inst::I64Shl { dst, a, b }),
                LShr => self.op64(|dst| Inst::U64Shr { dst, a, b }),
                AShr => self.op64(|dst| Inst::I64Shr { dst, a, b }),
                And | Or | Xor => {
                    let d = self.b.temp64();
                    self.emit(int_op(op, d, a, b));
                    self.emit(int_op(op, d.hi(), a.hi(), b.hi()));
                    d
                }
            },
            Leaf::Ptr => return Err(self.unsupported("arithmetic on a pointer")),
        })
    }

    /// `icmp`/`fcmp`, leaf by leaf (vectors compare element-wise).
    fn compare(&mut self, pred: Predicate, lhs: ValueId, rhs: ValueId) -> R<Vec<Reg>> {
        let t = self.ty(lhs)?;
        if matches!(self.typ(t)?, Type::Pointer { .. }) {
            let a = self.ptr_of(lhs)?;
            let b = self.ptr_of(rhs)?;
            let x = self.materialize(a);
            let y = self.materialize(b);
            let cond = icond(pred).ok_or_else(|| self.invalid("fcmp on pointers"))?;
            return Ok(vec![self.op2(|dst| Inst::ICmp {
                cond,
                dst,
                a: x,
                b: y,
            })]);
        }
        let leaves = self.leaves(t)?;
        let a = self.regs(lhs)?;
        let b = self.regs(rhs)?;
        let mut out = Vec::with_capacity(leaves.len());
        for (i, l) in leaves.iter().enumerate() {
            let x = self.inv(at(&a, i))?;
            let y = self.inv(at(&b, i))?;
            out.push(self.compare_leaf(pred, *l, x, y)?);
        }
        Ok(out)
    }

    /// One scalar comparison into a fresh boolean.
    pub fn compare_leaf(&mut self, pred: Predicate, l: Leaf, a: Reg, b: Reg) -> R<Reg> {
        if pred.is_float() {
            let cond = fcond(pred);
            return Ok(match l {
                Leaf::F32 => self.op2(|dst| Inst::FCmp { cond, dst, a, b }),
                Leaf::F64 => self.op2(|dst| Inst::DCmp { cond, dst, a, b }),
                Leaf::F16 => {
                    let x = self.h2f(a);
                    let y = self.h2f(b);
                    self.op2(|dst| Inst::FCmp {
                        cond,
                        dst,
                        a: x,
                        b: y,
                    })
                }
                _ => return Err(self.invalid("fcmp on integers")),
            });
        }
        let cond = icond(pred).ok_or_else(|| self.invalid(format!("predicate {}", pred.0)))?;
        let signed = matches!(cond, ICond::SLt | ICond::SLe | ICond::SGt | ICond::SGe);
        Ok(match l {
            Leaf::I64 => self.op2(|dst| Inst::I64Cmp { cond, dst, a, b }),
            Leaf::I8 | Leaf::I16 if signed => {
                let bits = if l == Leaf::I8 { 8 } else { 16 };
                let x = self.sext(a, bits);
                let y = self.sext(b, bits);
                self.op2(|dst| Inst::ICmp {
                    cond,
                    dst,
                    a: x,
                    b: y,
                })
            }
            // Booleans are 0 / −1: signed order is i1's (true = −1 < 0) and unsigned
            // order too (true is the larger).
            Leaf::I8 | Leaf::I16 | Leaf::I32 | Leaf::Bool | Leaf::Handle => {
                self.op2(|dst| Inst::ICmp { cond, dst, a, b })
            }
            _ => return Err(self.invalid("icmp on floats")),
        })
    }

    /// `select`: per leaf, with a scalar or per-element condition.
    fn select(
        &mut self,
        cond: ValueId,
        t: ValueId,
        f: ValueId,
        ty: TypeId,
        res: Option<ValueId>,
    ) -> R<()> {
        if matches!(self.typ(ty)?, Type::Pointer { .. }) {
            let a = self.ptr_of(t)?;
            let b = self.ptr_of(f)?;
            if a.root != b.root {
                return Err(self.unsupported(format!(
                    "select of pointers into two different arrays ({})",
                    res.map(|v| self.name_of(v)).unwrap_or_default()
                )));
            }
            let c = self.reg(cond)?;
            let x = self.materialize(a);
            let y = self.materialize(b);
            let r = self.op2(|dst| Inst::Select {
                dst,
                cond: c,
                a: x,
                b: y,
            });
            self.define(
                res,
                Val::Ptr(Ptr {
                    root: a.root,
                    reg: Some(r),
                    off: 0,
                }),
            );
            return Ok(());
        }
        let leaves = self.leaves(ty)?;
        let c = self.regs(cond)?;
        let a = self.regs(t)?;
        let b = self.regs(f)?;
        let mut out = Vec::with_capacity(leaves.len());
        for (i, l) in leaves.iter().enumerate() {
            let ci = if c.len() == 1 {
                self.inv(at(&c, 0))?
            } else {
                self.inv(at(&c, i))?
            };
            let x = self.inv(at(&a, i))?;
            let y = self.inv(at(&b, i))?;
            out.push(if l.wide() {
                self.op64(|dst| Inst::Select64 {
                    dst,
                    cond: ci,
                    a: x,
                    b: y,
                })
            } else {
                self.op2(|dst| Inst::Select {
                    dst,
                    cond: ci,
                    a: x,
                    b: y,
                })
            });
        }
        self.define(res, Val::Regs(out));
        Ok(())
    }

    /// Casts, leaf by leaf; pointer casts keep the pointer.
    fn cast(&mut self, op: CastOp, value: ValueId, to: TypeId, res: Option<ValueId>) -> R<()> {
        let from = self.ty(value)?;
        let to_ptr = matches!(self.typ(to)?, Type::Pointer { .. });
        let from_ptr = matches!(self.typ(from)?, Type::Pointer { .. });
        match op {
            CastOp::BitCast | CastOp::AddrSpaceCast if to_ptr && from_ptr => {
                let p = self.ptr_of(value)?;
                self.define(res, Val::Ptr(p));
                return Ok(());
            }
            CastOp::PtrToInt | CastOp::IntToPtr => {
                return Err(self.unsupported(format!("LLVM instruction {}", op.name())));
            }
            _ if to_ptr || from_ptr => {
                return Err(self.unsupported(format!("{} of a pointer", op.name())));
            }
            _ => {}
        }
        let src = self.regs(value)?;
        let fl = self.leaves(from)?;
        let tl = self.leaves(to)?;
        let out = if op == CastOp::BitCast {
            self.bitcast(&src, &fl, &tl)?
        } else {
            if fl.len() != tl.len() || src.len() != fl.len() {
                return Err(self.invalid("a cast between values of different lengths"));
            }
            let mut out = Vec::with_capacity(tl.len());
            for ((s, f), t) in src.iter().zip(&fl).zip(&tl) {
                out.push(self.cast_leaf(op, *f, *t, *s)?);
            }
            out
        };
        self.define(res, Val::Regs(out));
        Ok(())
    }

    /// `bitcast`: the same bits in another shape. Same-width leaves reuse their
    /// registers; otherwise 32-bit words are regrouped (two words into a pair).
    pub fn bitcast(&mut self, src: &[Reg], from: &[Leaf], to: &[Leaf]) -> R<Vec<Reg>> {
        let width = |l: &Leaf| match l {
            Leaf::I64 | Leaf::F64 => 64,
            Leaf::I16 | Leaf::F16 => 16,
            Leaf::I8 => 8,
            Leaf::Bool => 1,
            _ => 32,
        };
        if from.len() == to.len() && from.iter().zip(to).all(|(a, b)| width(a) == width(b)) {
            return Ok(src.to_vec());
        }
        if from.iter().chain(to).any(|l| width(l) < 32) {
            return Err(self.unsupported("bitcast that regroups values narrower than 32 bits"));
        }
        let mut words = Vec::new();
        for (r, l) in src.iter().zip(from) {
            words.push(*r);
            if l.wide() {
                words.push(r.hi());
            }
        }
        let mut out = Vec::with_capacity(to.len());
        let mut i = 0usize;
        for l in to {
            let w0 = self.inv(at(&words, i))?;
            if l.wide() {
                let w1 = self.inv(at(&words, i.saturating_add(1)))?;
                if w1 == w0.hi() {
                    out.push(w0);
                } else {
                    let d = self.b.temp64();
                    self.emit(Inst::Mov { dst: d, src: w0 });
                    self.emit(Inst::Mov {
                        dst: d.hi(),
                        src: w1,
                    });
                    out.push(d);
                }
                i = i.saturating_add(2);
            } else {
                out.push(w0);
                i = i.saturating_add(1);
            }
        }
        if i != words.len() {
            return Err(self.invalid("bitcast between types of different sizes"));
        }
        Ok(out)
    }

    /// One scalar conversion; returns the register holding the result (the source
    /// itself when the bits already are the result).
    ///
    /// Rules: narrow integers are zero-extended, so `zext` from them is free and `sext`
    /// is `sext 8/16`; `trunc` masks; `i1` is 0/−1, so `sext i1` is free and `zext i1`
    /// is `and 1`; float → narrow integer converts as 32-bit (saturating, NaN → 0, the
    /// IR's `ftoi`/`ftou`) then keeps the low bits; `half` sources are widened exactly
    /// first and `half` results are rounded to nearest even from float (double → half
    /// rounds twice, through float).
    pub fn cast_leaf(&mut self, op: CastOp, from: Leaf, to: Leaf, s: Reg) -> R<Reg> {
        use CastOp::*;
        let mask_of = |l: Leaf| l.narrow_mask();
        Ok(match op {
            Trunc => match to {
                Leaf::Bool => {
                    let t = self.and_k(s, 1);
                    self.ne_zero(t)
                }
                Leaf::I8 | Leaf::I16 => self.and_k(s, mask_of(to).unwrap_or(u32::MAX)),
                Leaf::I32 => s, // the low half of a pair is its first register
                _ => return Err(self.invalid("trunc to a non-integer")),
            },
            ZExt => match (from, to) {
                (Leaf::Bool, Leaf::I64) => {
                    let t = self.and_k(s, 1);
                    self.op64(|dst| Inst::ZExt64 { dst, src: t })
                }
                (Leaf::Bool, _) => self.and_k(s, 1),
                (_, Leaf::I64) => self.op64(|dst| Inst::ZExt64 { dst, src: s }),
                _ => s,
            },
            SExt => match (from, to) {
                (Leaf::Bool, Leaf::I64) | (Leaf::I32, Leaf::I64) => {
                    self.op64(|dst| Inst::SExt64 { dst, src: s })
                }
                (Leaf::Bool, Leaf::I32) => s,
                (Leaf::Bool, _) => self.and_k(s, mask_of(to).unwrap_or(u32::MAX)),
                (Leaf::I8 | Leaf::I16, _) => {
                    let bits = if from == Leaf::I8 { 8 } else { 16 };
                    let x = self.sext(s, bits);
                    match to {
                        Leaf::I64 => self.op64(|dst| Inst::SExt64 { dst, src: x }),
                        Leaf::I32 => x,
                        _ => self.and_k(x, mask_of(to).unwrap_or(u32::MAX)),
                    }
                }
                _ => return Err(self.invalid("sext between these types")),
            },
            FpToUi | FpToSi => {
                let signed = op == FpToSi;
                let (src, wide) = match from {
                    Leaf::F16 => (self.h2f(s), false),
                    Leaf::F32 => (s, false),
                    Leaf::F64 => (s, true),
                    _ => return Err(self.invalid("fpto*i of an integer")),
                };
                match to {
                    Leaf::I64 => self.op64(|dst| match (wide, signed) {
                        (false, false) => Inst::FToU64 { dst, src },
                        (false, true) => Inst::FToI64 { dst, src },
                        (true, false) => Inst::DToU64 { dst, src },
                        (true, true) => Inst::DToI64 { dst, src },
                    }),
                    _ => {
                        let r = self.op2(|dst| match (wide, signed) {
                            (false, false) => Inst::FToU { dst, src },
                            (false, true) => Inst::FToI { dst, src },
                            (true, false) => Inst::DToU { dst, src },
                            (true, true) => Inst::DToI { dst, src },
                        });
                        match to {
                            Leaf::Bool => self.ne_zero(r),
                            Leaf::I8 | Leaf::I16 => self.and_k(r, mask_of(to).unwrap_or(u32::MAX)),
                            _ => r,
                        }
                    }
                }
            }
            UiToFp | SiToFp => {
                let signed = op == SiToFp;
                let (src, wide) = match from {
                    Leaf::Bool if !signed => (self.and_k(s, 1), false),
                    Leaf::I8 | Leaf::I16 if signed => {
                        (self.sext(s, if from == Leaf::I8 { 8 } else { 16 }), false)
                    }
                    Leaf::I64 => (s, true),
                    Leaf::Bool | Leaf::I8 | Leaf::I16 | Leaf::I32 => (s, false),
                    _ => return Err(self.invalid("*itofp of a float")),
                };
                match to {
                    Leaf::F64 => self.op64(|dst| match (wide, signed) {
                        (false, false) => Inst::UToD { dst, src },
                        (false, true) => Inst::IToD { dst, src },
                        (true, false) => Inst::U64ToD { dst, src },
                        (true, true) => Inst::I64ToD { dst, src },
                    }),
                    Leaf::F32 | Leaf::F16 => {
                        let r = self.op2(|dst| match (wide, signed) {
                            (false, false) => Inst::UToF { dst, src },
                            (false, true) => Inst::IToF { dst, src },
                            (true, false) => Inst::U64ToF { dst, src },
                            (true, true) => Inst::I64ToF { dst, src },
                        });
                        if to == Leaf::F16 { self.f2h(r) } else { r }
                    }
                    _ => return Err(self.invalid("*itofp to an integer")),
                }
            }
            FpTrunc => match (from, to) {
                (Leaf::F64, Leaf::F32) => self.op2(|dst| Inst::DToF { dst, src: s }),
                (Leaf::F32, Leaf::F16) => self.f2h(s),
                (Leaf::F64, Leaf::F16) => {
                    let f = self.op2(|dst| Inst::DToF { dst, src: s });
                    self.f2h(f)
                }
                _ => return Err(self.invalid("fptrunc between these types")),
            },
            FpExt => match (from, to) {
                (Leaf::F16, Leaf::F32) => self.h2f(s),
                (Leaf::F32, Leaf::F64) => self.op64(|dst| Inst::FToD { dst, src: s }),
                (Leaf::F16, Leaf::F64) => {
                    let f = self.h2f(s);
                    self.op64(|dst| Inst::FToD { dst, src: f })
                }
                _ => return Err(self.invalid("fpext between these types")),
            },
            BitCast | PtrToInt | IntToPtr | AddrSpaceCast => {
                return Err(self.unsupported(format!("LLVM instruction {}", op.name())));
            }
        })
    }

    /// `extractelement`: a constant index names the element's registers; a variable
    /// one selects among them (an index past the end gives element 0).
    fn extract_element(&mut self, vector: ValueId, index: ValueId) -> R<Vec<Reg>> {
        let (n, per, el) = self.vector_shape(self.ty(vector)?)?;
        let regs = self.regs(vector)?;
        let elem = |k: usize| -> Option<Vec<Reg>> {
            regs.get(k.checked_mul(per)?..k.checked_mul(per)?.checked_add(per)?)
                .map(<[Reg]>::to_vec)
        };
        if let Some(i) = self.const_int(index) {
            return elem(usize::try_from(i).unwrap_or(usize::MAX))
                .ok_or_else(|| self.unsupported("extractelement past the vector"));
        }
        if self.is_undef(index) {
            return elem(0).ok_or_else(|| self.invalid("empty vector"));
        }
        let idx = self.reg(index)?;
        let mut acc = elem(0).ok_or_else(|| self.invalid("empty vector"))?;
        for k in 1..n {
            let e = elem(k).ok_or_else(|| self.invalid("short vector"))?;
            let kk = self.k(u32::try_from(k).unwrap_or(u32::MAX));
            let c = self.op2(|dst| Inst::ICmp {
                cond: ICond::Eq,
                dst,
                a: idx,
                b: kk,
            });
            acc = self.select_leaves(c, &e, &acc, &el)?;
        }
        Ok(acc)
    }

    /// `insertelement`.
    fn insert_element(&mut self, vector: ValueId, element: ValueId, index: ValueId) -> R<Vec<Reg>> {
        let (n, per, el) = self.vector_shape(self.ty(vector)?)?;
        let mut regs = self.regs(vector)?;
        let new = self.regs(element)?;
        if new.len() != per {
            return Err(self.invalid("insertelement of the wrong size"));
        }
        if let Some(i) = self.const_int(index) {
            let k = usize::try_from(i).unwrap_or(usize::MAX);
            if let Some(slot) = k
                .checked_mul(per)
                .and_then(|s| regs.get_mut(s..s.checked_add(per)?))
            {
                slot.copy_from_slice(&new);
            }
            return Ok(regs);
        }
        let idx = self.reg(index)?;
        for k in 0..n {
            let start = k.saturating_mul(per);
            let old: Vec<Reg> = regs
                .get(start..start.saturating_add(per))
                .ok_or_else(|| self.invalid("short vector"))?
                .to_vec();
            let kk = self.k(u32::try_from(k).unwrap_or(u32::MAX));
            let c = self.op2(|dst| Inst::ICmp {
                cond: ICond::Eq,
                dst,
                a: idx,
                b: kk,
            });
            let sel = self.select_leaves(c, &new, &old, &el)?;
            if let Some(slot) = regs.get_mut(start..start.saturating_add(per)) {
                slot.copy_from_slice(&sel);
            }
        }
        Ok(regs)
    }

    /// `shufflevector` with a constant mask (an undefined mask element gives 0).
    fn shuffle(&mut self, a: ValueId, b: ValueId, mask: ValueId, ty: TypeId) -> R<Vec<Reg>> {
        let (_, per, el) = self.vector_shape(self.ty(a)?)?;
        let mut all = self.regs(a)?;
        all.extend(self.regs(b)?);
        let (n_out, _, _) = self.vector_shape(ty)?;
        let picks: Vec<Option<u64>> = match self.constant(mask) {
            Some(Constant::Data(d)) => d.iter().map(|x| Some(*x)).collect(),
            Some(Constant::Aggregate(ids)) => ids
                .iter()
                .map(|i| self.const_int(*i).map(|v| v as u64))
                .collect(),
            Some(Constant::Null) => vec![Some(0); n_out],
            Some(Constant::Undef) => vec![None; n_out],
            _ => return Err(self.invalid("shufflevector mask is not a constant")),
        };
        let mut out = Vec::new();
        for p in picks {
            let start = p.and_then(|p| usize::try_from(p).ok()?.checked_mul(per));
            match start.and_then(|s| all.get(s..s.checked_add(per)?)) {
                Some(regs) => out.extend_from_slice(regs),
                None => {
                    for l in &el {
                        let z = if l.wide() {
                            self.b.konst64(0)
                        } else {
                            self.k(0)
                        };
                        out.push(z);
                    }
                }
            }
        }
        Ok(out)
    }

    /// A vector's element count, leaves per element and the element's leaves.
    fn vector_shape(&self, t: TypeId) -> R<(usize, usize, Vec<Leaf>)> {
        match self.typ(t)? {
            Type::Vector { len, element } | Type::Array { len, element } => {
                let el = self.leaves(*element)?;
                if el.is_empty() {
                    return Err(self.unsupported("a vector of empty elements"));
                }
                Ok((usize::try_from(*len).unwrap_or(usize::MAX), el.len(), el))
            }
            _ => Err(self.invalid("not a vector")),
        }
    }

    /// `cond ? a : b` leaf by leaf, into fresh registers.
    pub fn select_leaves(
        &mut self,
        cond: Reg,
        a: &[Reg],
        b: &[Reg],
        leaves: &[Leaf],
    ) -> R<Vec<Reg>> {
        let mut out = Vec::with_capacity(leaves.len());
        for (i, l) in leaves.iter().enumerate() {
            let x = self.inv(at(a, i))?;
            let y = self.inv(at(b, i))?;
            out.push(if l.wide() {
                self.op64(|dst| Inst::Select64 {
                    dst,
                    cond,
                    a: x,
                    b: y,
                })
            } else {
                self.op2(|dst| Inst::Select {
                    dst,
                    cond,
                    a: x,
                    b: y,
                })
            });
        }
        Ok(out)
    }

    // ---- control flow -------------------------------------------------------------

    /// The phis at the start of LLVM block `b`: (result, incoming) pairs.
    fn phis(&self, b: llvm::BlockId) -> Vec<Phi<'m>> {
        self.body
            .block_instructions(b)
            .iter()
            .map_while(|i| match (&i.kind, i.result) {
                (InstKind::Phi { incoming }, Some(r)) => Some((r, incoming.as_slice(), i.ty)),
                _ => None,
            })
            .collect()
    }

    /// Gives every phi of the function its registers (before any block is lowered, so
    /// edges into blocks not lowered yet can write them).
    pub fn allocate_phis(&mut self) -> R<()> {
        for b in 0..self.body.blocks.len() {
            let b = llvm::BlockId(u32::try_from(b).unwrap_or(u32::MAX));
            for (r, _, ty) in self.phis(b) {
                if matches!(self.typ(ty)?, Type::Pointer { .. }) {
                    let Some(root) = self.roots.get(&r).copied() else {
                        continue; // never reached (its block is unreachable)
                    };
                    let reg = self.b.temp();
                    self.vals.insert(
                        r,
                        Val::Ptr(Ptr {
                            root,
                            reg: Some(reg),
                            off: 0,
                        }),
                    );
                } else {
                    let leaves = self.leaves(ty)?;
                    let regs = leaves.iter().map(|l| self.fresh(*l)).collect();
                    self.vals.insert(r, Val::Regs(regs));
                }
            }
        }
        Ok(())
    }

    /// Emits, at the current position, the copies the phis of `to` make on the edge from
    /// `from`: all sources are read before any destination is written.
    fn edge_copies(&mut self, from: llvm::BlockId, to: llvm::BlockId) -> R<()> {
        let mut pairs: Vec<(Reg, Reg)> = Vec::new();
        for (phi, incoming, _) in self.phis(to) {
            let Some((src, _)) = incoming.iter().find(|(_, b)| *b == from) else {
                return Err(self.invalid(format!(
                    "phi {} has no value for the edge from {from}",
                    self.name_of(phi)
                )));
            };
            if self.is_undef(*src) {
                continue;
            }
            match self.vals.get(&phi).cloned() {
                Some(Val::Regs(dst)) => {
                    let s = self.regs(*src)?;
                    let leaves = self.leaves(self.ty(phi)?)?;
                    for ((d, s), l) in dst.iter().zip(&s).zip(&leaves) {
                        pairs.push((*d, *s));
                        if l.wide() {
                            pairs.push((d.hi(), s.hi()));
                        }
                    }
                }
                Some(Val::Ptr(dst)) => {
                    let p = self.ptr_of(*src)?;
                    if p.root != dst.root {
                        return Err(self.unsupported(format!(
                            "phi {} of pointers into two different arrays",
                            self.name_of(phi)
                        )));
                    }
                    let s = self.materialize(p);
                    if let Some(d) = dst.reg {
                        pairs.push((d, s));
                    }
                }
                _ => return Err(self.invalid("phi without registers")),
            }
        }
        let moves = copies::sequence(&pairs, || self.b.temp());
        for (dst, src) in moves {
            self.emit(Inst::Mov { dst, src });
        }
        Ok(())
    }

    /// The IR target of the edge `from → to`: `to` itself when it has no phis, else a
    /// new block holding the edge's copies (the edge is critical: `from` has several
    /// successors, so the copies cannot go at its end).
    fn edge_target(
        &mut self,
        from: llvm::BlockId,
        to: llvm::BlockId,
        cache: &mut HashMap<u32, BlockId>,
    ) -> R<BlockId> {
        let target = self.ir_block(to)?;
        if self.phis(to).is_empty() {
            return Ok(target);
        }
        if let Some(b) = cache.get(&to.0) {
            return Ok(*b);
        }
        let e = self.b.new_block();
        let here = self.ir_block(from)?;
        self.b.switch_to(e);
        self.edge_copies(from, to)?;
        self.b.terminate(Terminator::Jump(target));
        self.b.switch_to(here);
        cache.insert(to.0, e);
        Ok(e)
    }

    /// The IR block of an LLVM block.
    fn ir_block(&self, b: llvm::BlockId) -> R<BlockId> {
        self.blocks
            .get(b.index())
            .copied()
            .ok_or_else(|| self.invalid(format!("block {b} does not exist")))
    }

    /// Lowers a block's terminator, with the phi copies of its edges.
    pub fn lower_terminator(&mut self, from: llvm::BlockId, inst: &'m Instruction) -> R<()> {
        let distinct = {
            let mut s = inst.kind.successors();
            s.sort();
            s.dedup();
            s
        };
        if let [only] = distinct.as_slice()
            && !matches!(inst.kind, InstKind::Ret { .. } | InstKind::Unreachable)
        {
            // One successor (a plain branch, or every target the same): copies at the end.
            self.edge_copies(from, *only)?;
            let t = self.ir_block(*only)?;
            self.b.terminate(Terminator::Jump(t));
            return Ok(());
        }
        let mut cache = HashMap::new();
        let term = match &inst.kind {
            InstKind::CondBr {
                cond,
                if_true,
                if_false,
            } => {
                let c = self.reg(*cond)?;
                let then_ = self.edge_target(from, *if_true, &mut cache)?;
                let else_ = self.edge_target(from, *if_false, &mut cache)?;
                Terminator::Branch {
                    cond: c,
                    then_,
                    else_,
                }
            }
            InstKind::Switch {
                cond,
                default,
                cases,
            } => {
                let l = self.leaf(self.ty(*cond)?)?;
                if !matches!(l, Leaf::I32 | Leaf::I16 | Leaf::I8 | Leaf::Bool) {
                    return Err(self.unsupported(format!("switch on {l:?}")));
                }
                let sel = self.reg(*cond)?;
                let mut out = Vec::with_capacity(cases.len());
                for (v, target) in cases {
                    let c = self
                        .const_int(*v)
                        .ok_or_else(|| self.invalid("switch case is not a constant"))?;
                    let value = match l {
                        Leaf::Bool => {
                            if c & 1 != 0 {
                                u32::MAX
                            } else {
                                0
                            }
                        }
                        _ => (c as u64 & u64::from(l.narrow_mask().unwrap_or(u32::MAX))) as u32,
                    };
                    let t = self.edge_target(from, *target, &mut cache)?;
                    if !out.iter().any(|(x, _)| *x == value) {
                        out.push((value, t));
                    }
                }
                let default = self.edge_target(from, *default, &mut cache)?;
                Terminator::Switch {
                    sel,
                    cases: out,
                    default,
                }
            }
            InstKind::Ret { value } => {
                if value.is_some() {
                    return Err(self.unsupported("ret with a value"));
                }
                Terminator::Return
            }
            InstKind::Unreachable => Terminator::Unreachable,
            _ => return Err(self.invalid("a block does not end with a terminator")),
        };
        self.b.terminate(term);
        Ok(())
    }

    /// Sets the source location of what is emitted next.
    pub fn at_inst(&mut self, index: u32) {
        self.inst = index;
        self.b.set_loc(SourceLoc::Dxil {
            function: self.fi,
            inst: index,
        });
    }
}

/// Whether an instruction has no effect besides its result (so an unused one is
/// dropped): arithmetic, casts, comparisons, aggregates, address computations, plain
/// loads, allocas and `dx.op` calls marked `readnone`/`readonly`.
pub fn is_pure(m: &Module, body: &FunctionBody, k: &InstKind) -> bool {
    match k {
        InstKind::Binary { .. }
        | InstKind::Cast { .. }
        | InstKind::Cmp { .. }
        | InstKind::Select { .. }
        | InstKind::ExtractElement { .. }
        | InstKind::InsertElement { .. }
        | InstKind::ShuffleVector { .. }
        | InstKind::ExtractValue { .. }
        | InstKind::InsertValue { .. }
        | InstKind::Phi { .. }
        | InstKind::Gep { .. }
        | InstKind::Alloca { .. } => true,
        InstKind::Load {
            volatile, atomic, ..
        } => !volatile && atomic.is_none(),
        InstKind::Call { callee, args, .. } => {
            let Some(f) = m.function_of_value(*callee) else {
                return false;
            };
            if !crate::dxil::dxop::is_dx_op(&f.name) {
                return false;
            }
            let Some(opcode) = args
                .first()
                .and_then(|a| a.value())
                .and_then(|v| m.value(Some(body), v))
                .and_then(|v| match &v.kind {
                    ValueKind::Constant(c) => c.as_int(),
                    _ => None,
                })
                .and_then(|o| u32::try_from(o).ok())
            else {
                return false;
            };
            crate::dxil::dxop::op_info(opcode).is_some_and(|i| {
                matches!(
                    i.attr,
                    crate::dxil::dxop::OpAttr::ReadNone | crate::dxil::dxop::OpAttr::ReadOnly
                )
            })
        }
        _ => false,
    }
}

/// The IR float instruction of a binary operator.
fn float_op(op: BinOp, dst: Reg, a: Reg, b: Reg) -> Option<Inst> {
    Some(match op {
        BinOp::Add => Inst::FAdd { dst, a, b },
        BinOp::Sub => Inst::FSub { dst, a, b },
        BinOp::Mul => Inst::FMul { dst, a, b },
        BinOp::SDiv => Inst::FDiv { dst, a, b },
        BinOp::SRem => Inst::FRem { dst, a, b },
        _ => return None,
    })
}

/// The IR 32-bit integer instruction of a binary operator. Shift counts use their low
/// five bits (the IR's `shl`/`ushr`/`ishr`, as D3D does); LLVM leaves counts of 32 and
/// more undefined, and dxc masks HLSL's shift counts itself.
fn int_op(op: BinOp, dst: Reg, a: Reg, b: Reg) -> Inst {
    match op {
        BinOp::Add => Inst::IAdd { dst, a, b },
        BinOp::Sub => Inst::ISub { dst, a, b },
        BinOp::Mul => Inst::IMul { dst, a, b },
        BinOp::UDiv => Inst::UDiv { dst, a, b },
        BinOp::SDiv => Inst::IDiv { dst, a, b },
        BinOp::URem => Inst::URem { dst, a, b },
        BinOp::SRem => Inst::IRem { dst, a, b },
        BinOp::Shl => Inst::Shl { dst, a, b },
        BinOp::LShr => Inst::UShr { dst, a, b },
        BinOp::AShr => Inst::IShr { dst, a, b },
        BinOp::And => Inst::And { dst, a, b },
        BinOp::Or => Inst::Or { dst, a, b },
        BinOp::Xor => Inst::Xor { dst, a, b },
    }
}

/// LLVM's `fcmp` predicate as the IR's (LLVM LangRef "fcmp": 0 false, 1 oeq, 2 ogt,
/// 3 oge, 4 olt, 5 ole, 6 one, 7 ord, 8 uno, 9 ueq, 10 ugt, 11 uge, 12 ult, 13 ule,
/// 14 une, 15 true).
pub fn fcond(p: Predicate) -> FCond {
    match p.0 {
        1 => FCond::Eq,
        2 => FCond::Gt,
        3 => FCond::Ge,
        4 => FCond::Lt,
        5 => FCond::Le,
        6 => FCond::OrdNe,
        7 => FCond::Ord,
        8 => FCond::Uno,
        9 => FCond::UnordEq,
        10 => FCond::UnordGt,
        11 => FCond::UnordGe,
        12 => FCond::UnordLt,
        13 => FCond::UnordLe,
        14 => FCond::Ne,
        15 => FCond::True,
        _ => FCond::False,
    }
}

/// LLVM's `icmp` predicate as the IR's (32 eq, 33 ne, 34 ugt, 35 uge, 36 ult, 37 ule,
/// 38 sgt, 39 sge, 40 slt, 41 sle).
pub fn icond(p: Predicate) -> Option<ICond> {
    Some(match p.0 {
        32 => ICond::Eq,
        33 => ICond::Ne,
        34 => ICond::UGt,
        35 => ICond::UGe,
        36 => ICond::ULt,
        37 => ICond::ULe,
        38 => ICond::SGt,
        39 => ICond::SGe,
        40 => ICond::SLt,
        41 => ICond::SLe,
        _ => return None,
    })
}

/// A constant expression's name for messages.
fn const_kind_name(c: &Constant) -> String {
    match c {
        Constant::Cast { op, .. } => op.name().to_owned(),
        Constant::Binary { op, .. } => op.name(false).to_owned(),
        Constant::Gep { .. } => "getelementptr".into(),
        Constant::Select { .. } => "select".into(),
        Constant::Cmp { .. } => "compare".into(),
        Constant::ExtractElement { .. } => "extractelement".into(),
        Constant::InsertElement { .. } => "insertelement".into(),
        Constant::ShuffleVector { .. } => "shufflevector".into(),
        Constant::BlockAddress { .. } => "blockaddress".into(),
        Constant::WideInt(_) => "integer wider than 64 bits".into(),
        Constant::Raw { code, .. } => format!("record {code}"),
        _ => "constant".into(),
    }
}
