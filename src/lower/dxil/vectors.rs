//! SM 6.9 native vectors in `dx.op` calls (DirectX-Specs proposal 0030 "DXIL Vectors"):
//! the elementwise operations called with a vector overload, `RawBufferVectorLoad` and
//! `RawBufferVectorStore`, `VectorReduceAnd`/`VectorReduceOr` and `FDot`, all lowered to
//! the scalar IR here (the IR stays scalar; both engines then run them unchanged).
//!
//! Owns: recognising a vector-overloaded call, running the scalar lowering of an
//! elementwise operation once per element (`ops` reads the element's registers through
//! [`Lane`]), and the vector memory and reduction operations. LLVM's own instructions on
//! vectors (arithmetic, casts, compares, `select`, element and shuffle operations, `phi`,
//! loads and stores) are lowered leaf by leaf in `func` and `memory` like any aggregate;
//! only the length rule is checked here ([`FnLower::check_vector_lengths`]).
//!
//! Decisions, each stated where it is made:
//! - A vector holds 2 to 1024 elements (0026 "HLSL Long Vectors": 1024 at most; 0030: a
//!   single-element vector is a scalar in DXIL); longer vectors are refused by name of
//!   the function and instruction before anything is sized by the length.
//! - `RawBufferVectorLoad`/`Store` follow `RawBufferLoad`/`Store` (0030 "a new form of
//!   rawBufferLoad"; DXIL.rst: SM 5.1 out-of-bounds and alignment rules): each element
//!   out of bounds reads 0 or is not written, the status is "mapped", and the
//!   alignment operand must be a constant (a hint; accesses here are byte-exact).
//! - `FDot` is computed as `Dot2`–`Dot4` are: each product rounded, summed in order;
//!   half vectors in float, rounded to half once at the end.

use super::func::{FnLower, R, Val};
use super::layout::Leaf;
use crate::dxil::dxop::{DxOp, DxOpCall, MAX_VECTOR_LEN, vector_overload};
use crate::dxil::llvm::{BinOp, Instruction, Type, ValueId};
use crate::ir::{ICond, Inst, Reg, ResourceKind, Width};

/// The element being lowered of a vector-overloaded elementwise call: the operand
/// helpers of `ops` read element `k` of vector operands, and the call's result collects
/// one register per element in `out`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Lane {
    /// The element index.
    pub k: usize,
    /// The call's result.
    pub result: Option<ValueId>,
    /// The result's element registers so far.
    pub out: Vec<Reg>,
}

impl<'m> FnLower<'m> {
    /// Whether value `v` is a vector.
    pub fn is_vector(&self, v: ValueId) -> bool {
        self.ty(v)
            .ok()
            .and_then(|t| self.m.ty(t))
            .is_some_and(|t| matches!(t, Type::Vector { .. }))
    }

    /// The register of element `k` of vector `v` (its elements are scalars).
    pub fn element_reg(&mut self, v: ValueId, k: usize) -> R<Reg> {
        let regs = self.regs(v)?;
        regs.get(k).copied().ok_or_else(|| {
            self.invalid(format!(
                "{} has no element {k} ({} leaves)",
                self.name_of(v),
                regs.len()
            ))
        })
    }

    /// Refuses a vector longer than DXIL allows among an instruction's result and
    /// operands, before any lowering sizes something by its length.
    pub fn check_vector_lengths(&self, inst: &'m Instruction) -> R<()> {
        let types = std::iter::once(inst.ty).chain(
            inst.kind
                .value_operands()
                .into_iter()
                .filter_map(|v| self.ty(v).ok()),
        );
        for t in types {
            if let Some(Type::Vector { len, .. }) = self.m.ty(t)
                && *len > MAX_VECTOR_LEN
            {
                return Err(self.invalid(format!(
                    "a vector of {len} elements (DXIL vectors hold at most {MAX_VECTOR_LEN})"
                )));
            }
        }
        Ok(())
    }

    /// Lowers `c` if it is one of the calls this module owns (a vector-overloaded
    /// elementwise operation, or one of the SM 6.9 vector operations); `false` leaves it
    /// to `ops`.
    pub fn vector_call(&mut self, c: &DxOpCall<'m>, inst: &'m Instruction) -> R<bool> {
        match c.op() {
            DxOp::RawBufferVectorLoad => self.raw_vector_load(c, inst)?,
            DxOp::RawBufferVectorStore => self.raw_vector_store(c)?,
            DxOp::VectorReduceAnd | DxOp::VectorReduceOr => self.vector_reduce(c, inst)?,
            DxOp::FDot => self.fdot(c, inst)?,
            // A vector overload, but not elementwise: one mask for the whole vector (`ops`).
            DxOp::WaveMatch => return Ok(false),
            _ => {
                let Some(first) = c.arg(0) else {
                    return Ok(false);
                };
                if !c.info.overloads.contains('<') || !self.is_vector(first) {
                    return Ok(false);
                }
                self.elementwise(c, inst, first)?;
            }
        }
        Ok(true)
    }

    /// The length of the vector overload `v` of `c` (checked by [`vector_overload`]).
    fn overload_len(&self, c: &DxOpCall<'m>, v: ValueId) -> R<usize> {
        let n = vector_overload(self.m, c.info, self.ty(v)?).map_err(|e| self.invalid(e))?;
        usize::try_from(n).map_err(|_| self.invalid("vector length"))
    }

    /// An elementwise operation on vectors: the scalar lowering once per element
    /// (0030 "Elementwise intrinsics": element i of the result is the operation on
    /// element i of each operand).
    fn elementwise(&mut self, c: &DxOpCall<'m>, inst: &'m Instruction, first: ValueId) -> R<()> {
        let n = self.overload_len(c, first)?;
        let result = inst.result;
        self.lane = Some(Lane {
            k: 0,
            result,
            out: Vec::with_capacity(n),
        });
        for k in 0..n {
            if let Some(l) = self.lane.as_mut() {
                l.k = k;
            }
            if let Err(e) = self.dx_op(c, inst) {
                self.lane = None;
                return Err(e);
            }
        }
        let out = self.lane.take().map(|l| l.out).unwrap_or_default();
        if result.is_some() && out.len() != n {
            return Err(self.invalid(format!(
                "{} on a vector of {n} gave {} elements",
                c.name(),
                out.len()
            )));
        }
        self.define(result, Val::Regs(out));
        Ok(())
    }

    /// The element leaf and length of a vector value's type.
    fn vector_of(&self, c: &DxOpCall<'m>, v: ValueId) -> R<(usize, Leaf)> {
        let n = self.overload_len(c, v)?;
        let l = match self.typ(self.ty(v)?)? {
            Type::Vector { element, .. } => self.leaf(*element)?,
            _ => return Err(self.invalid(format!("{} of a non-vector", c.name()))),
        };
        Ok((n, l))
    }

    /// The alignment operand: a constant (DXIL.rst "RawBufferLoad": SM 5.1 alignment
    /// rules; dxc writes the element alignment).
    fn vector_alignment(&self, c: &DxOpCall<'m>, i: usize) -> R<()> {
        let v = self.a(c, i)?;
        if self.const_int(v).is_none() {
            return Err(self.invalid(format!(
                "{} with an alignment that is not a constant",
                c.name()
            )));
        }
        Ok(())
    }

    /// `base + add`, or 0xffff_ffff when that wraps: a later part of a vector access at
    /// an address past 32 bits stays out of bounds instead of wrapping to the start.
    fn offset_saturating(&mut self, base: Reg, add: u32) -> Reg {
        if add == 0 {
            return base;
        }
        let a = self.k(add);
        let s = self.op2(|dst| Inst::IAdd { dst, a: base, b: a });
        let wrapped = self.op2(|dst| Inst::ICmp {
            cond: ICond::ULt,
            dst,
            a: s,
            b: base,
        });
        let max = self.k(u32::MAX);
        self.op2(|dst| Inst::Select {
            dst,
            cond: wrapped,
            a: max,
            b: s,
        })
    }

    /// The resource kind of a vector access's handle: raw or structured buffers only.
    fn vector_buffer(&self, c: &DxOpCall<'m>) -> R<ResourceKind> {
        let h = self.hkind(c, 0)?;
        match h.kind {
            ResourceKind::RawBuffer | ResourceKind::StructuredBuffer { .. } => Ok(h.kind),
            other => Err(self.invalid(format!(
                "{} on a {other} (raw and structured buffers only)",
                c.name()
            ))),
        }
    }

    /// `RawBufferVectorLoad(handle, index, elementOffset, alignment)`: a
    /// `%dx.types.ResRet.v<N><T>` of the vector and the status, read four elements at a
    /// time as `RawBufferLoad` reads its four.
    fn raw_vector_load(&mut self, c: &DxOpCall<'m>, inst: &'m Instruction) -> R<()> {
        let vty = match self.typ(inst.ty)? {
            Type::Struct { elements, .. } if elements.len() == 2 => elements.first().copied(),
            _ => None,
        }
        .ok_or_else(|| {
            self.invalid(format!(
                "{} result is not a {{ vector, i32 }} ResRet",
                c.name()
            ))
        })?;
        let n = usize::try_from(vector_overload(self.m, c.info, vty).map_err(|e| self.invalid(e))?)
            .map_err(|_| self.invalid("vector length"))?;
        let l = match self.typ(vty)? {
            Type::Vector { element, .. } => self.leaf(*element)?,
            _ => return Err(self.invalid("ResRet without a vector")),
        };
        let kind = self.vector_buffer(c)?;
        let handle = self.ar(c, 0)?;
        let index = self.ar(c, 1)?;
        let offset = self.ao(c, 2)?;
        self.vector_alignment(c, 3)?;
        let width = self.width(l)?;
        let step = width_bytes(width);
        let mut out = Vec::with_capacity(n + 1);
        for chunk in 0..n.div_ceil(4) {
            let count = (n - 4 * chunk).min(4);
            let mut dst = [Reg::NONE; 4];
            for d in dst.iter_mut().take(count) {
                *d = self.fresh(l);
                out.push(*d);
            }
            let mask = ((1u16 << count) - 1) as u8;
            let add = step.saturating_mul(4 * chunk as u32);
            let i = match kind {
                ResourceKind::RawBuffer => Inst::RawLoad {
                    width,
                    mask,
                    dst,
                    handle,
                    addr: self.offset_saturating(index, add),
                },
                _ => {
                    let base = if offset.is_none() { self.k(0) } else { offset };
                    Inst::StructLoad {
                        width,
                        mask,
                        dst,
                        handle,
                        index,
                        offset: self.offset_saturating(base, add),
                    }
                }
            };
            self.emit(i);
        }
        // Raw and structured accesses have no residency status: always mapped.
        out.push(self.k(1));
        self.define(inst.result, Val::Regs(out));
        Ok(())
    }

    /// `RawBufferVectorStore(handle, index, elementOffset, value, alignment)`: every
    /// element written, four at a time as `RawBufferStore` writes its four.
    fn raw_vector_store(&mut self, c: &DxOpCall<'m>) -> R<()> {
        let value = self.a(c, 3)?;
        let (n, l) = self.vector_of(c, value)?;
        let kind = self.vector_buffer(c)?;
        let handle = self.ar(c, 0)?;
        let index = self.ar(c, 1)?;
        let offset = self.ao(c, 2)?;
        self.vector_alignment(c, 4)?;
        let width = self.width(l)?;
        let step = width_bytes(width);
        let regs = self.regs(value)?;
        for chunk in 0..n.div_ceil(4) {
            let count = (n - 4 * chunk).min(4);
            let mut src = [Reg::NONE; 4];
            for (i, s) in src.iter_mut().take(count).enumerate() {
                *s = regs
                    .get(4 * chunk + i)
                    .copied()
                    .ok_or_else(|| self.invalid("short vector"))?;
            }
            let mask = ((1u16 << count) - 1) as u8;
            let add = step.saturating_mul(4 * chunk as u32);
            let i = match kind {
                ResourceKind::RawBuffer => Inst::RawStore {
                    width,
                    mask,
                    handle,
                    addr: self.offset_saturating(index, add),
                    src,
                },
                _ => {
                    let base = if offset.is_none() { self.k(0) } else { offset };
                    Inst::StructStore {
                        width,
                        mask,
                        handle,
                        index,
                        offset: self.offset_saturating(base, add),
                        src,
                    }
                }
            };
            self.emit(i);
        }
        Ok(())
    }

    /// `VectorReduceAnd`/`VectorReduceOr`: the bitwise AND or OR of the elements, left
    /// to right, of the element type (0030 "Boolean Vector Reduction Intrinsics").
    fn vector_reduce(&mut self, c: &DxOpCall<'m>, inst: &'m Instruction) -> R<()> {
        let v = self.a(c, 0)?;
        let (n, l) = self.vector_of(c, v)?;
        if self.leaf(inst.ty)? != l {
            return Err(self.invalid(format!(
                "{} result is not the vector's element type",
                c.name()
            )));
        }
        let op = if c.op() == DxOp::VectorReduceAnd {
            BinOp::And
        } else {
            BinOp::Or
        };
        let regs = self.regs(v)?;
        let mut acc = *regs.first().ok_or_else(|| self.invalid("empty vector"))?;
        for &e in regs.iter().take(n).skip(1) {
            acc = self.binary(op, l, acc, e)?;
        }
        self.define(inst.result, Val::Regs(vec![acc]));
        Ok(())
    }

    /// `FDot(a, b)`: Σ a_i·b_i over half or float vectors (see the module doc).
    fn fdot(&mut self, c: &DxOpCall<'m>, inst: &'m Instruction) -> R<()> {
        let a = self.a(c, 0)?;
        let b = self.a(c, 1)?;
        let (n, l) = self.vector_of(c, a)?;
        if self.ty(b)? != self.ty(a)? || self.leaf(inst.ty)? != l {
            return Err(self.invalid(format!(
                "{} operands and result are not two vectors of one type and its element",
                c.name()
            )));
        }
        let (ra, rb) = (self.regs(a)?, self.regs(b)?);
        let mut acc: Option<Reg> = None;
        for (&x, &y) in ra.iter().zip(rb.iter()).take(n) {
            let (x, y) = if l == Leaf::F16 {
                (self.h2f(x), self.h2f(y))
            } else {
                (x, y)
            };
            let p = self.op2(|dst| Inst::FMul { dst, a: x, b: y });
            acc = Some(match acc {
                None => p,
                Some(s) => self.op2(|dst| Inst::FAdd { dst, a: s, b: p }),
            });
        }
        let mut d = acc.ok_or_else(|| self.invalid("empty dot product"))?;
        if l == Leaf::F16 {
            d = self.f2h(d);
        }
        self.define(inst.result, Val::Regs(vec![d]));
        Ok(())
    }
}

/// The bytes of one access of width `w`.
fn width_bytes(w: Width) -> u32 {
    match w {
        Width::B16 => 2,
        Width::B32 => 4,
        Width::B64 => 8,
    }
}
