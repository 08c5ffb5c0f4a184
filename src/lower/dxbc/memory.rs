//! Memory and resources: raw, structured and typed loads and stores on SRVs, UAVs and
//! group shared memory, texture loads, size queries, explicit-LOD sampling and gathers,
//! atomics and UAV counters.
//!
//! Every load result passes through the resource operand's swizzle (`ld r0.xy, r1,
//! t0.zwxy` puts the texel's z in r0.x), as D3D11.3 §22 defines for each load.

use super::Lowerer;
use super::decls::{RangeInfo, Tgsm};
use super::operands::{Dest, comps, needed, plus, swizzle};
use crate::dxbc::{
    Components, Executable, InfoReturnType, Opcode, Operand, OperandType, RegisterType,
};
use crate::ir::{
    AtomicOp, FUnOp, ICond, Inst, Reg, ResourceKind, SampleArgs, SampleMode, Stage, Width,
};
use crate::lower::LowerError;

/// An address past every group shared memory region: accesses through it read 0 and
/// write nothing.
const OUTSIDE: u32 = u32::MAX;

/// Whether this file lowers `op`.
pub(super) fn handles(op: Opcode) -> bool {
    use Opcode as O;
    matches!(
        op,
        O::Ld
            | O::LdMs
            | O::LdUavTyped
            | O::StoreUavTyped
            | O::LdRaw
            | O::StoreRaw
            | O::LdStructured
            | O::StoreStructured
            | O::Resinfo
            | O::Bufinfo
            | O::SampleInfo
            | O::SamplePos
            | O::SampleL
            | O::SampleD
            | O::SampleCLz
            | O::Sample
            | O::SampleB
            | O::SampleC
            | O::Lod
            | O::Gather4
            | O::Gather4C
            | O::Gather4Po
            | O::Gather4PoC
            | O::AtomicAnd
            | O::AtomicOr
            | O::AtomicXor
            | O::AtomicCmpStore
            | O::AtomicIadd
            | O::AtomicImax
            | O::AtomicImin
            | O::AtomicUmax
            | O::AtomicUmin
            | O::ImmAtomicAlloc
            | O::ImmAtomicConsume
            | O::ImmAtomicIadd
            | O::ImmAtomicAnd
            | O::ImmAtomicOr
            | O::ImmAtomicXor
            | O::ImmAtomicExch
            | O::ImmAtomicCmpExch
            | O::ImmAtomicImax
            | O::ImmAtomicImin
            | O::ImmAtomicUmax
            | O::ImmAtomicUmin
            | O::LdFeedback
            | O::LdMsFeedback
            | O::LdUavTypedFeedback
            | O::LdRawFeedback
            | O::LdStructuredFeedback
            | O::SampleLFeedback
            | O::SampleCLzFeedback
            | O::SampleDClampFeedback
            | O::SampleClampFeedback
            | O::SampleBClampFeedback
            | O::SampleCClampFeedback
            | O::Gather4Feedback
            | O::Gather4CFeedback
            | O::Gather4PoFeedback
            | O::Gather4PoCFeedback
    )
}

/// Whether `op` takes its level of detail from the quad's derivatives (`sample`,
/// `sample_b`, `sample_c`, `lod` and their `_cl_s` forms): pixel programs only.
pub(super) fn implicit_lod(op: Opcode) -> bool {
    use Opcode as O;
    matches!(
        op,
        O::Sample
            | O::SampleB
            | O::SampleC
            | O::Lod
            | O::SampleClampFeedback
            | O::SampleBClampFeedback
            | O::SampleCClampFeedback
    )
}

/// A scalar address operand: a constant, or a register.
#[derive(Debug, Clone, Copy)]
enum Val {
    Imm(u32),
    Reg(Reg),
}

/// The number of address coordinates of a texture or buffer shape for loads (`ld`,
/// `ld_uav_typed`) and the atomics on typed UAVs: texel coordinates then array slice.
fn load_coords(kind: ResourceKind) -> Option<usize> {
    use ResourceKind as K;
    Some(match kind {
        K::TypedBuffer | K::Texture1D => 1,
        K::Texture1DArray | K::Texture2D | K::Texture2DMS => 2,
        K::Texture2DArray | K::Texture2DMSArray | K::Texture3D => 3,
        _ => return None,
    })
}

/// The number of sampling coordinates (`u`, `v`, `w` or a cube direction, then the
/// array index) and of gradient components of a texture shape.
fn sample_coords(kind: ResourceKind) -> Option<(usize, usize)> {
    use ResourceKind as K;
    Some(match kind {
        K::Texture1D => (1, 1),
        K::Texture1DArray => (2, 1),
        K::Texture2D => (2, 2),
        K::Texture2DArray => (3, 2),
        K::Texture3D | K::TextureCube => (3, 3),
        K::TextureCubeArray => (4, 3),
        _ => return None,
    })
}

/// The atomic operation of an `atomic_*`/`imm_atomic_*` opcode (`None`: compare forms).
fn atomic_op(op: Opcode) -> Option<AtomicOp> {
    use Opcode as O;
    Some(match op {
        O::AtomicIadd | O::ImmAtomicIadd => AtomicOp::Add,
        O::AtomicAnd | O::ImmAtomicAnd => AtomicOp::And,
        O::AtomicOr | O::ImmAtomicOr => AtomicOp::Or,
        O::AtomicXor | O::ImmAtomicXor => AtomicOp::Xor,
        O::AtomicImax | O::ImmAtomicImax => AtomicOp::IMax,
        O::AtomicImin | O::ImmAtomicImin => AtomicOp::IMin,
        O::AtomicUmax | O::ImmAtomicUmax => AtomicOp::UMax,
        O::AtomicUmin | O::ImmAtomicUmin => AtomicOp::UMin,
        O::ImmAtomicExch => AtomicOp::Exchange,
        _ => return None,
    })
}

/// Bytes an access with component mask `mask` spans from its address.
fn span(mask: u8) -> u32 {
    let top = 8u32.saturating_sub(u32::from(mask & 0xf).leading_zeros().saturating_sub(24));
    top.saturating_mul(4)
}

impl<'p> Lowerer<'p> {
    /// Lowers a memory or resource instruction.
    pub(super) fn memory(&mut self, e: &Executable) -> Result<(), LowerError> {
        use Opcode as O;
        let feedback = matches!(
            e.opcode,
            O::LdFeedback
                | O::LdMsFeedback
                | O::LdUavTypedFeedback
                | O::LdRawFeedback
                | O::LdStructuredFeedback
                | O::SampleLFeedback
                | O::SampleCLzFeedback
                | O::SampleDClampFeedback
                | O::SampleClampFeedback
                | O::SampleBClampFeedback
                | O::SampleCClampFeedback
                | O::Gather4Feedback
                | O::Gather4CFeedback
                | O::Gather4PoFeedback
                | O::Gather4PoCFeedback
        );
        let ops = e.operands(self.p);
        let Some((dst_op, rest)) = ops.split_first() else {
            return Err(self.invalid("an instruction without operands".into()));
        };
        let (status_op, srcs) = if feedback {
            match rest.split_first() {
                Some((s, r)) => (Some(s), r),
                None => return Err(self.invalid("a feedback load without its status".into())),
            }
        } else {
            (None, rest)
        };
        let status = match status_op {
            Some(op) => {
                let d = self.dest(op)?;
                (d.mask != 0).then(|| (d, self.temp()))
            }
            None => None,
        };
        let status_reg = status.map_or(Reg::NONE, |s| s.1);
        match e.opcode {
            O::LdRaw | O::LdRawFeedback => self.ld_raw(e, dst_op, srcs, status_reg)?,
            O::LdStructured | O::LdStructuredFeedback => {
                self.ld_structured(e, dst_op, srcs, status_reg)?;
            }
            O::StoreRaw | O::StoreStructured => self.store(e, dst_op, srcs)?,
            O::LdUavTyped
            | O::LdUavTypedFeedback
            | O::Ld
            | O::LdFeedback
            | O::LdMs
            | O::LdMsFeedback => self.ld_typed(e, dst_op, srcs, status_reg)?,
            O::StoreUavTyped => self.store_typed(e, dst_op, srcs)?,
            O::Resinfo => self.resinfo(e, dst_op, srcs)?,
            O::Bufinfo => self.bufinfo(dst_op, srcs)?,
            O::SampleInfo | O::SamplePos => self.sample_info(e, dst_op, srcs)?,
            O::SampleL
            | O::SampleD
            | O::SampleCLz
            | O::Sample
            | O::SampleB
            | O::SampleC
            | O::SampleLFeedback
            | O::SampleCLzFeedback
            | O::SampleDClampFeedback
            | O::SampleClampFeedback
            | O::SampleBClampFeedback
            | O::SampleCClampFeedback => self.sample(e, dst_op, srcs, status_reg)?,
            O::Lod => self.lod(dst_op, srcs)?,
            O::Gather4
            | O::Gather4C
            | O::Gather4Po
            | O::Gather4PoC
            | O::Gather4Feedback
            | O::Gather4CFeedback
            | O::Gather4PoFeedback
            | O::Gather4PoCFeedback => self.gather(e, dst_op, srcs, status_reg)?,
            O::ImmAtomicAlloc | O::ImmAtomicConsume => self.counter(e, dst_op, srcs)?,
            O::AtomicAnd
            | O::AtomicOr
            | O::AtomicXor
            | O::AtomicCmpStore
            | O::AtomicIadd
            | O::AtomicImax
            | O::AtomicImin
            | O::AtomicUmax
            | O::AtomicUmin => self.atomic(e, None, dst_op, srcs)?,
            _ => {
                // imm_atomic_*: dst, resource, address, value(s).
                let Some((res, srcs)) = srcs.split_first() else {
                    return Err(self.invalid("an atomic without its resource".into()));
                };
                self.atomic(e, Some(dst_op), res, srcs)?;
            }
        }
        if let Some((d, t)) = status {
            if raw_status(e.opcode) {
                // Raw and structured loads carry no status in the IR; resources here are
                // never tiled, so every access is fully mapped (nonzero status).
                let one = self.k(1);
                self.emit(Inst::Mov { dst: t, src: one });
            }
            self.splat(&d, t);
        }
        Ok(())
    }

    /// A scalar address operand, kept constant when it is an immediate.
    fn val(&mut self, op: &Operand) -> Result<Val, LowerError> {
        if op.register == RegisterType::Immediate32
            && op.modifier == crate::dxbc::OperandModifier::None
        {
            let c = swizzle(op).first().copied().unwrap_or(0);
            let v = match op.components {
                Components::One => op.values[0],
                _ => op.values.get(c).copied().unwrap_or(0),
            };
            return Ok(Val::Imm(v));
        }
        Ok(Val::Reg(self.scalar(op, OperandType::Uint)?))
    }

    fn val_reg(&mut self, v: Val) -> Reg {
        match v {
            Val::Imm(x) => self.k(x),
            Val::Reg(r) => r,
        }
    }

    /// The `i`-th source, or an error naming what is missing.
    fn src<'a>(
        &self,
        srcs: &'a [Operand],
        i: usize,
        what: &str,
    ) -> Result<&'a Operand, LowerError> {
        srcs.get(i)
            .ok_or_else(|| self.invalid(format!("missing {what} operand")))
    }

    /// The group shared memory region a `g#` operand names.
    fn tgsm(&self, op: &Operand) -> Result<Tgsm, LowerError> {
        let g = self.register_number(op)?;
        self.d
            .tgsm
            .get(&g)
            .copied()
            .ok_or_else(|| self.invalid(format!("g{g} is not declared")))
    }

    /// The address of an access of `bytes` bytes to region `g`, as (address register,
    /// immediate offset) for loads and stores, or one address register (offset 0) when
    /// `single` (atomics). A raw region takes a byte address; a structured region an
    /// element index and a byte offset within the element.
    ///
    /// D3D does not define what an out-of-bounds `g#` access does; here each declaration
    /// is bounded the way D3D bounds a buffer (reads outside give 0, writes outside are
    /// dropped): an access that does not lie wholly inside its
    /// region (a raw address with the access past the size, a structured index past the
    /// count, or an offset with the access past the stride) reads 0 and writes nothing,
    /// rather than touching a neighbouring region.
    fn tgsm_addr(
        &mut self,
        g: Tgsm,
        at: (Val, Option<Val>),
        bytes: u32,
        single: bool,
    ) -> (Reg, u32) {
        let (addr, ok): (Val, Vec<Reg>) = match at {
            (a, None) => {
                let Some(limit) = g.size.checked_sub(bytes) else {
                    return (self.k(OUTSIDE), 0);
                };
                match a {
                    Val::Imm(v) if v <= limit => (Val::Imm(v), Vec::new()),
                    Val::Imm(_) => return (self.k(OUTSIDE), 0),
                    Val::Reg(r) => {
                        let ok = self.temp();
                        let lim = self.k(limit);
                        self.emit(Inst::ICmp {
                            cond: ICond::ULe,
                            dst: ok,
                            a: r,
                            b: lim,
                        });
                        (Val::Reg(r), vec![ok])
                    }
                }
            }
            (index, Some(offset)) => {
                let Some(limit) = g.stride.checked_sub(bytes) else {
                    return (self.k(OUTSIDE), 0);
                };
                let mut ok = Vec::new();
                match index {
                    Val::Imm(v) if v < g.count => {}
                    Val::Imm(_) => return (self.k(OUTSIDE), 0),
                    Val::Reg(r) => {
                        let t = self.temp();
                        let count = self.k(g.count);
                        self.emit(Inst::ICmp {
                            cond: ICond::ULt,
                            dst: t,
                            a: r,
                            b: count,
                        });
                        ok.push(t);
                    }
                }
                match offset {
                    Val::Imm(v) if v <= limit => {}
                    Val::Imm(_) => return (self.k(OUTSIDE), 0),
                    Val::Reg(r) => {
                        let t = self.temp();
                        let lim = self.k(limit);
                        self.emit(Inst::ICmp {
                            cond: ICond::ULe,
                            dst: t,
                            a: r,
                            b: lim,
                        });
                        ok.push(t);
                    }
                }
                let addr = match (index, offset) {
                    (Val::Imm(i), Val::Imm(o)) => {
                        Val::Imm(i.wrapping_mul(g.stride).wrapping_add(o))
                    }
                    (i, o) => {
                        let (i, o) = (self.val_reg(i), self.val_reg(o));
                        let t = self.temp();
                        let stride = self.k(g.stride);
                        self.emit(Inst::IMad {
                            dst: t,
                            a: i,
                            b: stride,
                            c: o,
                        });
                        Val::Reg(t)
                    }
                };
                (addr, ok)
            }
        };
        // Both conditions must hold.
        let ok = match ok.as_slice() {
            [] => None,
            [one] => Some(*one),
            [a, b, ..] => {
                let t = self.temp();
                self.emit(Inst::And {
                    dst: t,
                    a: *a,
                    b: *b,
                });
                Some(t)
            }
        };
        match (addr, single) {
            (Val::Imm(a), true) => (self.k(g.base.wrapping_add(a)), 0),
            (Val::Imm(a), false) => (self.k(0), g.base.wrapping_add(a)),
            (Val::Reg(r), _) => {
                let (r, offset) = if single && g.base != 0 {
                    let t = self.temp();
                    let base = self.k(g.base);
                    self.emit(Inst::IAdd {
                        dst: t,
                        a: r,
                        b: base,
                    });
                    (t, 0)
                } else if single {
                    (r, 0)
                } else {
                    (r, g.base)
                };
                match ok {
                    None => (r, offset),
                    Some(ok) => {
                        let t = self.temp();
                        let outside = self.k(OUTSIDE);
                        self.emit(Inst::Select {
                            dst: t,
                            cond: ok,
                            a: r,
                            b: outside,
                        });
                        (t, offset)
                    }
                }
            }
        }
    }

    /// Delivers a four-component result through the resource's swizzle: `produce` fills
    /// the result components it is given (those the swizzle reads for the destination
    /// mask), then each destination component takes its swizzled one. When the swizzle
    /// reads each written component in place, the result goes straight to the
    /// destination.
    fn deliver(
        &mut self,
        d: &Dest,
        res: &Operand,
        produce: impl FnOnce(&mut Self, u8, [Reg; 4]) -> Result<(), LowerError>,
    ) -> Result<(), LowerError> {
        self.deliver_sat(d, res, false, produce)
    }

    /// [`Lowerer::deliver`], saturating each destination component (`_sat`) when `sat`.
    fn deliver_sat(
        &mut self,
        d: &Dest,
        res: &Operand,
        sat: bool,
        produce: impl FnOnce(&mut Self, u8, [Reg; 4]) -> Result<(), LowerError>,
    ) -> Result<(), LowerError> {
        if d.mask == 0 {
            return produce(self, 0, [Reg::NONE; 4]).map(|_| ());
        }
        let sw = swizzle(res);
        let need = needed(sw, d.mask);
        let in_place = !sat && comps(d.mask).all(|c| sw.get(c) == Some(&c));
        if in_place {
            produce(self, need, d.regs)?;
        } else {
            let base = self.scratch(4);
            let mut regs = [Reg::NONE; 4];
            for c in comps(need) {
                if let Some(slot) = regs.get_mut(c) {
                    *slot = plus(base, c);
                }
            }
            produce(self, need, regs)?;
            for c in comps(d.mask) {
                let from = sw
                    .get(c)
                    .and_then(|s| regs.get(*s))
                    .copied()
                    .unwrap_or(Reg::NONE);
                self.emit(if sat {
                    Inst::FUnary {
                        op: FUnOp::Sat,
                        dst: d.reg(c),
                        src: from,
                    }
                } else {
                    Inst::Mov {
                        dst: d.reg(c),
                        src: from,
                    }
                });
            }
        }
        self.commit(d);
        Ok(())
    }

    /// `ld_raw dst, byte address, t#|u#|g#`.
    fn ld_raw(
        &mut self,
        _e: &Executable,
        dst_op: &Operand,
        srcs: &[Operand],
        _status: Reg,
    ) -> Result<(), LowerError> {
        let addr_op = self.src(srcs, 0, "address")?;
        let res = self.src(srcs, 1, "resource")?;
        let d = self.dest(dst_op)?;
        let addr = self.val(addr_op)?;
        if res.register == RegisterType::ThreadGroupSharedMemory {
            let g = self.tgsm(res)?;
            return self.deliver(&d, res, |l, need, dst| {
                if need == 0 {
                    return Ok(());
                }
                let (a, offset) = l.tgsm_addr(g, (addr, None), span(need), false);
                l.emit(Inst::SharedLoad {
                    width: Width::B32,
                    mask: need,
                    dst,
                    addr: a,
                    offset,
                });
                Ok(())
            });
        }
        let (_, handle) = self.handle(res)?;
        let addr = self.val_reg(addr);
        self.deliver(&d, res, |l, need, dst| {
            if need != 0 {
                l.emit(Inst::RawLoad {
                    width: Width::B32,
                    mask: need,
                    dst,
                    handle,
                    addr,
                });
            }
            Ok(())
        })
    }

    /// `ld_structured dst, index, byte offset, t#|u#|g#`.
    fn ld_structured(
        &mut self,
        _e: &Executable,
        dst_op: &Operand,
        srcs: &[Operand],
        _status: Reg,
    ) -> Result<(), LowerError> {
        let index_op = self.src(srcs, 0, "index")?;
        let offset_op = self.src(srcs, 1, "offset")?;
        let res = self.src(srcs, 2, "resource")?;
        let d = self.dest(dst_op)?;
        let index = self.val(index_op)?;
        let offset = self.val(offset_op)?;
        if res.register == RegisterType::ThreadGroupSharedMemory {
            let g = self.tgsm(res)?;
            return self.deliver(&d, res, |l, need, dst| {
                if need == 0 {
                    return Ok(());
                }
                let (a, off) = l.tgsm_addr(g, (index, Some(offset)), span(need), false);
                l.emit(Inst::SharedLoad {
                    width: Width::B32,
                    mask: need,
                    dst,
                    addr: a,
                    offset: off,
                });
                Ok(())
            });
        }
        let (_, handle) = self.handle(res)?;
        let (index, offset) = (self.val_reg(index), self.val_reg(offset));
        self.deliver(&d, res, |l, need, dst| {
            if need != 0 {
                l.emit(Inst::StructLoad {
                    width: Width::B32,
                    mask: need,
                    dst,
                    handle,
                    index,
                    offset,
                });
            }
            Ok(())
        })
    }

    /// `store_raw u#|g#.mask, address, value` and `store_structured u#|g#.mask, index,
    /// offset, value`: the masked components of the value (after its swizzle) go to
    /// consecutive 32-bit words.
    fn store(
        &mut self,
        e: &Executable,
        dst_op: &Operand,
        srcs: &[Operand],
    ) -> Result<(), LowerError> {
        let structured = e.opcode == Opcode::StoreStructured;
        let mask = dst_op.write_mask().map_or(0, |m| m.0 & 0xf);
        let value_op = self.src(srcs, if structured { 2 } else { 1 }, "value")?;
        let a = self.val(self.src(srcs, 0, "address")?)?;
        let b = if structured {
            Some(self.val(self.src(srcs, 1, "offset")?)?)
        } else {
            None
        };
        let src = self.read_for(value_op, OperandType::Untyped, mask)?;
        if mask == 0 {
            return Ok(());
        }
        if dst_op.register == RegisterType::ThreadGroupSharedMemory {
            let g = self.tgsm(dst_op)?;
            let (addr, offset) = self.tgsm_addr(g, (a, b), span(mask), false);
            self.emit(Inst::SharedStore {
                width: Width::B32,
                mask,
                addr,
                offset,
                src,
            });
            return Ok(());
        }
        let (_, handle) = self.handle(dst_op)?;
        let addr = self.val_reg(a);
        match b {
            None => self.emit(Inst::RawStore {
                width: Width::B32,
                mask,
                handle,
                addr,
                src,
            }),
            Some(offset) => {
                let offset = self.val_reg(offset);
                self.emit(Inst::StructStore {
                    width: Width::B32,
                    mask,
                    handle,
                    index: addr,
                    offset,
                    src,
                });
            }
        }
        Ok(())
    }

    /// The shape of the resource an operand names, and a handle to it.
    fn typed_handle(&mut self, res: &Operand) -> Result<(RangeInfo, Reg), LowerError> {
        self.handle(res)
    }

    /// The first `n` components of a coordinate operand (as unsigned integers or floats).
    fn coords<const N: usize>(
        &mut self,
        op: &Operand,
        n: usize,
        ty: OperandType,
    ) -> Result<[Reg; N], LowerError> {
        let mask = u8::try_from((1u32 << n.min(4)).wrapping_sub(1)).unwrap_or(0xf);
        let r = self.read_for(op, ty, mask)?;
        let mut out = [Reg::NONE; N];
        for (i, slot) in out.iter_mut().enumerate().take(n) {
            *slot = r.get(i).copied().unwrap_or(Reg::NONE);
        }
        Ok(out)
    }

    /// `ld`, `ld_ms` (SRV textures and typed buffers) and `ld_uav_typed`: the texel at
    /// integer coordinates (address x, y, z by shape, then the array slice), of mip
    /// `address.w` for mipmapped SRV textures, of sample `index` for `ld_ms`, moved by the
    /// instruction's immediate texel offsets.
    fn ld_typed(
        &mut self,
        e: &Executable,
        dst_op: &Operand,
        srcs: &[Operand],
        status: Reg,
    ) -> Result<(), LowerError> {
        let addr_op = self.src(srcs, 0, "address")?;
        let res = self.src(srcs, 1, "resource")?;
        let ms = matches!(e.opcode, Opcode::LdMs | Opcode::LdMsFeedback);
        let sample_op = if ms {
            Some(self.src(srcs, 2, "sample index")?)
        } else {
            None
        };
        let d = self.dest(dst_op)?;
        let (info, handle) = self.typed_handle(res)?;
        let n = load_coords(info.kind).ok_or_else(|| {
            self.invalid(format!(
                "{} of a {} resource",
                e.opcode.mnemonic(),
                info.kind
            ))
        })?;
        let coord: [Reg; 3] = self.coords(addr_op, n, OperandType::Uint)?;
        let uav = res.register == RegisterType::UnorderedAccessView;
        let mipmapped = !uav
            && !ms
            && !matches!(
                info.kind,
                ResourceKind::TypedBuffer
                    | ResourceKind::Texture2DMS
                    | ResourceKind::Texture2DMSArray
            );
        let mip = if mipmapped {
            let w = self.read_for(addr_op, OperandType::Uint, 0b1000)?;
            w[3]
        } else {
            Reg::NONE
        };
        let sample = match sample_op {
            Some(op) => self.scalar(op, OperandType::Int)?,
            None => Reg::NONE,
        };
        let offset = e.texel_offsets.unwrap_or([0; 3]);
        self.deliver_sat(&d, res, e.saturate, |l, _, dst| {
            l.emit(Inst::TypedLoad {
                dst,
                handle,
                coord,
                mip,
                sample,
                offset,
                status,
            });
            Ok(())
        })
    }

    /// `store_uav_typed u#.mask, coordinates, value`.
    fn store_typed(
        &mut self,
        _e: &Executable,
        dst_op: &Operand,
        srcs: &[Operand],
    ) -> Result<(), LowerError> {
        let addr_op = self.src(srcs, 0, "address")?;
        let value_op = self.src(srcs, 1, "value")?;
        let mask = dst_op.write_mask().map_or(0xf, |m| m.0 & 0xf);
        let (info, handle) = self.typed_handle(dst_op)?;
        let n = load_coords(info.kind)
            .ok_or_else(|| self.invalid(format!("store_uav_typed to a {} resource", info.kind)))?;
        let coord: [Reg; 3] = self.coords(addr_op, n, OperandType::Uint)?;
        let src = self.read_for(value_op, OperandType::Untyped, mask)?;
        if mask != 0 {
            self.emit(Inst::TypedStore {
                handle,
                coord,
                sample: Reg::NONE,
                src,
                mask,
            });
        }
        Ok(())
    }

    /// `resinfo[_uint|_rcpFloat] dst, mip, t#|u#`: `[width, height, depth or array size,
    /// mip count]` of mip `mip`, unused dimensions 0 (D3D11.3 §22, `resinfo`). The plain
    /// form converts all four to float; `_rcpFloat` returns 1/width, 1/height and 1/depth
    /// (infinite for a mip past the last, whose dimensions are 0) and the array size and
    /// mip count as plain floats; `_uint` returns the integers. A multisampled texture
    /// has one mip; UAVs report one.
    fn resinfo(
        &mut self,
        e: &Executable,
        dst_op: &Operand,
        srcs: &[Operand],
    ) -> Result<(), LowerError> {
        let mip_op = self.src(srcs, 0, "mip level")?;
        let res = self.src(srcs, 1, "resource")?;
        let d = self.dest(dst_op)?;
        let mip = self.scalar(mip_op, OperandType::Uint)?;
        let (info, handle) = self.typed_handle(res)?;
        use ResourceKind as K;
        // Which components are width/height/depth (reciprocated by `_rcpFloat`).
        let dims: u8 = match info.kind {
            K::Texture1D | K::Texture1DArray => 0b0001,
            K::Texture2D
            | K::Texture2DMS
            | K::Texture2DArray
            | K::Texture2DMSArray
            | K::TextureCube
            | K::TextureCubeArray => 0b0011,
            K::Texture3D => 0b0111,
            other => {
                return Err(self.invalid(format!(
                    "resinfo of a {other} resource (bufinfo queries buffers)"
                )));
            }
        };
        let ms = matches!(info.kind, K::Texture2DMS | K::Texture2DMSArray);
        let rt = e.return_type.unwrap_or(InfoReturnType::Float);
        self.deliver(&d, res, |l, need, out| {
            let raw = l.scratch(4);
            let raw_regs = [0, 1, 2, 3].map(|c| plus(raw, c));
            l.emit(Inst::Dimensions {
                dst: raw_regs,
                handle,
                mip,
            });
            for c in comps(need) {
                let dst = out.get(c).copied().unwrap_or(Reg::NONE);
                let mut src = raw_regs.get(c).copied().unwrap_or(Reg::NONE);
                if ms && c == 3 {
                    src = l.k(1);
                }
                match rt {
                    InfoReturnType::Uint => l.emit(Inst::Mov { dst, src }),
                    InfoReturnType::Float => l.emit(Inst::UToF { dst, src }),
                    InfoReturnType::RcpFloat => {
                        if dims & (1 << c) != 0 {
                            let f = l.temp();
                            l.emit(Inst::UToF { dst: f, src });
                            l.emit(Inst::FUnary {
                                op: FUnOp::Rcp,
                                dst,
                                src: f,
                            });
                        } else {
                            l.emit(Inst::UToF { dst, src });
                        }
                    }
                }
            }
            Ok(())
        })
    }

    /// `bufinfo dst, t#|u#`: every component receives the element count of the buffer
    /// view — elements of its format for typed buffers, structures for structured
    /// buffers, bytes for raw buffers (D3D11.3 §22, `bufinfo`).
    fn bufinfo(&mut self, dst_op: &Operand, srcs: &[Operand]) -> Result<(), LowerError> {
        let res = self.src(srcs, 0, "resource")?;
        let d = self.dest(dst_op)?;
        let (info, handle) = self.typed_handle(res)?;
        if !matches!(
            info.kind,
            ResourceKind::RawBuffer
                | ResourceKind::StructuredBuffer { .. }
                | ResourceKind::TypedBuffer
        ) {
            return Err(self.invalid(format!("bufinfo of a {} resource", info.kind)));
        }
        let count = self.temp();
        self.emit(Inst::Dimensions {
            dst: [count, Reg::NONE, Reg::NONE, Reg::NONE],
            handle,
            mip: Reg::NONE,
        });
        self.splat(&d, count);
        Ok(())
    }

    /// `sampleinfo[_uint] dst, t#` (the sample count in x, 0 elsewhere) and `samplepos
    /// dst, t#, index` (the sample's position in x and y, 0 elsewhere), through the
    /// resource's swizzle. The `rasterizer` operand (the render target) has no meaning
    /// in a compute program.
    fn sample_info(
        &mut self,
        e: &Executable,
        dst_op: &Operand,
        srcs: &[Operand],
    ) -> Result<(), LowerError> {
        let res = self.src(srcs, 0, "resource")?;
        if res.register == RegisterType::Rasterizer {
            if self.d.stage != Stage::Pixel {
                return Err(self.unsupported(format!(
                    "{} of the rasterizer (a {} program has no render target)",
                    e.opcode.mnemonic(),
                    self.d.stage
                )));
            }
            return self.rasterizer_info(e, dst_op, res, srcs);
        }
        let d = self.dest(dst_op)?;
        let (_, handle) = self.typed_handle(res)?;
        if e.opcode == Opcode::SampleInfo {
            let uint = e.return_type == Some(InfoReturnType::Uint);
            return self.deliver(&d, res, |l, need, out| {
                let n = l.temp();
                l.emit(Inst::SampleCount { dst: n, handle });
                for c in comps(need) {
                    let dst = out.get(c).copied().unwrap_or(Reg::NONE);
                    if c == 0 {
                        l.emit(if uint {
                            Inst::Mov { dst, src: n }
                        } else {
                            Inst::UToF { dst, src: n }
                        });
                    } else {
                        let zero = l.k(0);
                        l.emit(Inst::Mov { dst, src: zero });
                    }
                }
                Ok(())
            });
        }
        let index_op = self.src(srcs, 1, "sample index")?;
        let index = self.scalar(index_op, OperandType::Int)?;
        self.deliver(&d, res, |l, need, out| {
            let xy = l.scratch(2);
            l.emit(Inst::SamplePos {
                dst: [xy, xy.hi()],
                handle,
                index,
            });
            for c in comps(need) {
                let dst = out.get(c).copied().unwrap_or(Reg::NONE);
                let src = match c {
                    0 => xy,
                    1 => xy.hi(),
                    _ => l.k(0),
                };
                l.emit(Inst::Mov { dst, src });
            }
            Ok(())
        })
    }

    /// `sample_l`, `sample_d`, `sample_c_lz` (and their `_s` forms): sampling with an
    /// explicit level of detail, explicit gradients, or at level 0 with a comparison —
    /// the forms any program may use; and, in pixel programs, `sample`, `sample_b`,
    /// `sample_c` (and their `_cl_s` forms, with a minimum-LOD clamp), whose level of
    /// detail comes from the quad's derivatives of the coordinates (plus the bias of
    /// `sample_b`).
    fn sample(
        &mut self,
        e: &Executable,
        dst_op: &Operand,
        srcs: &[Operand],
        status: Reg,
    ) -> Result<(), LowerError> {
        let coord_op = self.src(srcs, 0, "coordinates")?;
        let res = self.src(srcs, 1, "resource")?;
        let smp = self.src(srcs, 2, "sampler")?;
        let d = self.dest(dst_op)?;
        let (info, texture) = self.typed_handle(res)?;
        let (_, sampler) = self.handle(smp)?;
        let (n, grads) = sample_coords(info.kind).ok_or_else(|| {
            self.invalid(format!(
                "{} of a {} resource",
                e.opcode.mnemonic(),
                info.kind
            ))
        })?;
        let coord: [Reg; 4] = self.coords(coord_op, n, OperandType::Float)?;
        let mut args = SampleArgs {
            dst: [Reg::NONE; 4],
            texture,
            sampler,
            coord,
            offset: e.texel_offsets.unwrap_or([0; 3]),
            dyn_offset: [Reg::NONE; 2],
            lod: Reg::NONE,
            reference: Reg::NONE,
            ddx: [Reg::NONE; 3],
            ddy: [Reg::NONE; 3],
            clamp: Reg::NONE,
            status,
        };
        let mode = match e.opcode {
            Opcode::SampleL | Opcode::SampleLFeedback => {
                args.lod = self.scalar(self.src(srcs, 3, "LOD")?, OperandType::Float)?;
                SampleMode::Level
            }
            Opcode::Sample | Opcode::SampleClampFeedback => {
                if e.opcode == Opcode::SampleClampFeedback {
                    args.clamp =
                        self.scalar(self.src(srcs, 3, "LOD clamp")?, OperandType::Float)?;
                }
                SampleMode::Implicit
            }
            Opcode::SampleB | Opcode::SampleBClampFeedback => {
                args.lod = self.scalar(self.src(srcs, 3, "bias")?, OperandType::Float)?;
                if e.opcode == Opcode::SampleBClampFeedback {
                    args.clamp =
                        self.scalar(self.src(srcs, 4, "LOD clamp")?, OperandType::Float)?;
                }
                SampleMode::Bias
            }
            Opcode::SampleC | Opcode::SampleCClampFeedback => {
                args.reference =
                    self.scalar(self.src(srcs, 3, "reference")?, OperandType::Float)?;
                if e.opcode == Opcode::SampleCClampFeedback {
                    args.clamp =
                        self.scalar(self.src(srcs, 4, "LOD clamp")?, OperandType::Float)?;
                }
                SampleMode::Cmp
            }
            Opcode::SampleCLz | Opcode::SampleCLzFeedback => {
                args.reference =
                    self.scalar(self.src(srcs, 3, "reference")?, OperandType::Float)?;
                SampleMode::CmpLevelZero
            }
            _ => {
                args.ddx = self.coords(self.src(srcs, 3, "d/dx")?, grads, OperandType::Float)?;
                args.ddy = self.coords(self.src(srcs, 4, "d/dy")?, grads, OperandType::Float)?;
                if e.opcode == Opcode::SampleDClampFeedback {
                    args.clamp =
                        self.scalar(self.src(srcs, 5, "LOD clamp")?, OperandType::Float)?;
                }
                SampleMode::Grad
            }
        };
        self.deliver_sat(&d, res, e.saturate, |l, _, dst| {
            args.dst = dst;
            l.emit(Inst::Sample {
                mode,
                args: Box::new(args),
            });
            Ok(())
        })
    }

    /// `lod dst, coordinates, t#, s#` (pixel programs): the vector (clamped LOD,
    /// unclamped LOD, 0, 0) a sample at the coordinates would use, through the resource's
    /// swizzle (the `lod` reference page, Shader Model 4.1). The level of detail comes
    /// from the quad's derivatives of the coordinates that address the texture (not the
    /// array index).
    fn lod(&mut self, dst_op: &Operand, srcs: &[Operand]) -> Result<(), LowerError> {
        let coord_op = self.src(srcs, 0, "coordinates")?;
        let res = self.src(srcs, 1, "resource")?;
        let smp = self.src(srcs, 2, "sampler")?;
        let d = self.dest(dst_op)?;
        let (info, texture) = self.typed_handle(res)?;
        let (_, sampler) = self.handle(smp)?;
        let (_, grads) = sample_coords(info.kind)
            .ok_or_else(|| self.invalid(format!("lod of a {} resource", info.kind)))?;
        let coord: [Reg; 3] = self.coords(coord_op, grads, OperandType::Float)?;
        self.deliver(&d, res, |l, need, out| {
            if need == 0 {
                return Ok(());
            }
            let xy = l.scratch(2);
            l.emit(Inst::Lod {
                dst: [xy, xy.hi()],
                texture,
                sampler,
                coord,
            });
            for c in comps(need) {
                let dst = out.get(c).copied().unwrap_or(Reg::NONE);
                let src = match c {
                    0 => xy,
                    1 => xy.hi(),
                    _ => l.k(0),
                };
                l.emit(Inst::Mov { dst, src });
            }
            Ok(())
        })
    }

    /// `sampleinfo[_uint] dst, rasterizer` (the render target's sample count in x, 0
    /// elsewhere; a float unless `_uint`) and `samplepos dst, rasterizer, index` (the
    /// position of sample `index` of the render target's pattern in x and y, 0 elsewhere),
    /// through the operand's swizzle (D3D11.3 §22, `sampleinfo`, `samplepos`).
    fn rasterizer_info(
        &mut self,
        e: &Executable,
        dst_op: &Operand,
        res: &Operand,
        srcs: &[Operand],
    ) -> Result<(), LowerError> {
        let d = self.dest(dst_op)?;
        if e.opcode == Opcode::SampleInfo {
            let uint = e.return_type == Some(InfoReturnType::Uint);
            return self.deliver(&d, res, |l, need, out| {
                let n = l.temp();
                l.emit(Inst::RasterSampleCount { dst: n });
                for c in comps(need) {
                    let dst = out.get(c).copied().unwrap_or(Reg::NONE);
                    if c == 0 {
                        l.emit(if uint {
                            Inst::Mov { dst, src: n }
                        } else {
                            Inst::UToF { dst, src: n }
                        });
                    } else {
                        let zero = l.k(0);
                        l.emit(Inst::Mov { dst, src: zero });
                    }
                }
                Ok(())
            });
        }
        let index_op = self.src(srcs, 1, "sample index")?;
        let index = self.scalar(index_op, OperandType::Int)?;
        self.deliver(&d, res, |l, need, out| {
            let xy = l.scratch(2);
            l.emit(Inst::RasterSamplePos {
                dst: [xy, xy.hi()],
                index,
            });
            for c in comps(need) {
                let dst = out.get(c).copied().unwrap_or(Reg::NONE);
                let src = match c {
                    0 => xy,
                    1 => xy.hi(),
                    _ => l.k(0),
                };
                l.emit(Inst::Mov { dst, src });
            }
            Ok(())
        })
    }

    /// `gather4`, `gather4_c`, `gather4_po`, `gather4_po_c` (and `_s` forms): the four
    /// texels a bilinear sample at level 0 would use; the sampler operand's selected
    /// component picks the channel; `_po` forms take per-lane offsets.
    fn gather(
        &mut self,
        e: &Executable,
        dst_op: &Operand,
        srcs: &[Operand],
        status: Reg,
    ) -> Result<(), LowerError> {
        use Opcode as O;
        let po = matches!(
            e.opcode,
            O::Gather4Po | O::Gather4PoC | O::Gather4PoFeedback | O::Gather4PoCFeedback
        );
        let cmp = matches!(
            e.opcode,
            O::Gather4C | O::Gather4PoC | O::Gather4CFeedback | O::Gather4PoCFeedback
        );
        let coord_op = self.src(srcs, 0, "coordinates")?;
        let shift = usize::from(po);
        let res = self.src(srcs, shift.saturating_add(1), "resource")?;
        let smp = self.src(srcs, shift.saturating_add(2), "sampler")?;
        let d = self.dest(dst_op)?;
        let (info, texture) = self.typed_handle(res)?;
        let (_, sampler) = self.handle(smp)?;
        let n = match info.kind {
            ResourceKind::Texture2D => 2,
            ResourceKind::Texture2DArray | ResourceKind::TextureCube => 3,
            ResourceKind::TextureCubeArray => 4,
            other => {
                return Err(self.invalid(format!("{} of a {other} resource", e.opcode.mnemonic())));
            }
        };
        let coord: [Reg; 4] = self.coords(coord_op, n, OperandType::Float)?;
        let dyn_offset: [Reg; 2] = if po {
            self.coords(self.src(srcs, 1, "offset")?, 2, OperandType::Int)?
        } else {
            [Reg::NONE; 2]
        };
        let reference = if cmp {
            self.scalar(
                self.src(srcs, shift.saturating_add(3), "reference")?,
                OperandType::Float,
            )?
        } else {
            Reg::NONE
        };
        let channel = match smp.components {
            Components::Select(c) => c.index(),
            Components::Swizzle(s) => s.0[0].index(),
            _ => 0,
        };
        let channel = u8::try_from(channel).unwrap_or(0);
        let mode = if cmp {
            SampleMode::Cmp
        } else {
            SampleMode::Implicit
        };
        let args = SampleArgs {
            dst: [Reg::NONE; 4],
            texture,
            sampler,
            coord,
            offset: e.texel_offsets.unwrap_or([0; 3]),
            dyn_offset,
            lod: Reg::NONE,
            reference,
            ddx: [Reg::NONE; 3],
            ddy: [Reg::NONE; 3],
            clamp: Reg::NONE,
            status,
        };
        self.deliver_sat(&d, res, e.saturate, |l, _, dst| {
            l.emit(Inst::Gather {
                mode,
                channel,
                args: Box::new(SampleArgs { dst, ..args }),
            });
            Ok(())
        })
    }

    /// `imm_atomic_alloc dst, u#` (`dst` = the counter before incrementing) and
    /// `imm_atomic_consume dst, u#` (`dst` = the counter after decrementing).
    fn counter(
        &mut self,
        e: &Executable,
        dst_op: &Operand,
        srcs: &[Operand],
    ) -> Result<(), LowerError> {
        let res = self.src(srcs, 0, "resource")?;
        let d = self.dest(dst_op)?;
        let (_, handle) = self.handle(res)?;
        let t = self.temp();
        self.emit(if e.opcode == Opcode::ImmAtomicAlloc {
            Inst::CounterInc { dst: t, handle }
        } else {
            Inst::CounterDec { dst: t, handle }
        });
        self.splat(&d, t);
        Ok(())
    }

    /// `atomic_* u#|g#, address, value` and `imm_atomic_* dst, u#|g#, address, value`
    /// (compare forms: `…, compare, value`). The address is a byte address for raw
    /// views, (index, byte offset) for structured ones, texel coordinates for typed UAVs.
    fn atomic(
        &mut self,
        e: &Executable,
        dst_op: Option<&Operand>,
        res: &Operand,
        srcs: &[Operand],
    ) -> Result<(), LowerError> {
        let types = e.opcode.info().types;
        let value_ty = types.last().copied().unwrap_or(OperandType::Uint);
        let addr_op = self.src(srcs, 0, "address")?;
        let compare = atomic_op(e.opcode).is_none();
        let (cmp, value) = if compare {
            let c = self.scalar(self.src(srcs, 1, "compare value")?, OperandType::Uint)?;
            let v = self.scalar(self.src(srcs, 2, "value")?, OperandType::Uint)?;
            (c, v)
        } else {
            (
                Reg::NONE,
                self.scalar(self.src(srcs, 1, "value")?, value_ty)?,
            )
        };
        let d = match dst_op {
            Some(op) => Some(self.dest(op)?),
            None => None,
        };
        let result = if d.is_some_and(|d| d.mask != 0) {
            self.temp()
        } else {
            Reg::NONE
        };
        if res.register == RegisterType::ThreadGroupSharedMemory {
            let g = self.tgsm(res)?;
            let at = if g.stride == 0 {
                (self.val(addr_op)?, None)
            } else {
                let i = self.read_for(addr_op, OperandType::Uint, 0b11)?;
                (Val::Reg(i[0]), Some(Val::Reg(i[1])))
            };
            let (addr, _) = self.tgsm_addr(g, at, 4, true);
            let dst = if result.is_none() {
                self.temp()
            } else {
                result
            };
            self.emit(match atomic_op(e.opcode) {
                Some(op) => Inst::SharedAtomic {
                    op,
                    dst,
                    addr,
                    src: value,
                },
                None => Inst::SharedCmpXchg {
                    dst,
                    addr,
                    cmp,
                    src: value,
                },
            });
        } else {
            let (info, handle) = self.handle(res)?;
            let n = match info.kind {
                ResourceKind::RawBuffer => 1,
                ResourceKind::StructuredBuffer { .. } => 2,
                kind => load_coords(kind).ok_or_else(|| {
                    self.invalid(format!("{} on a {kind} resource", e.opcode.mnemonic()))
                })?,
            };
            let coord: [Reg; 3] = self.coords(addr_op, n, OperandType::Uint)?;
            self.emit(match atomic_op(e.opcode) {
                Some(op) => Inst::ResAtomic {
                    op,
                    dst: result,
                    handle,
                    coord,
                    src: value,
                },
                None => Inst::ResCmpXchg {
                    dst: result,
                    handle,
                    coord,
                    cmp,
                    src: value,
                },
            });
        }
        if let Some(d) = d {
            self.splat(&d, result);
        }
        Ok(())
    }
}

/// Whether a feedback opcode's load has no status field in the IR (raw and structured
/// loads), so its status is written as "fully mapped" separately.
fn raw_status(op: Opcode) -> bool {
    matches!(op, Opcode::LdRawFeedback | Opcode::LdStructuredFeedback)
}
