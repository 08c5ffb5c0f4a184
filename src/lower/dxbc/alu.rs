//! Arithmetic: 32-bit float, integer and bit instructions, moves, conversions and
//! doubles, one IR instruction (or a short sequence) per written component.

use super::Lowerer;
use super::operands::{Dest, comps};
use crate::dxbc::{Executable, Opcode, Operand, OperandType};
use crate::ir::{FCond, FUnOp, ICond, Inst, Reg};
use crate::lower::LowerError;

/// Whether this file lowers `op`.
pub(super) fn handles(op: Opcode) -> bool {
    use Opcode as O;
    matches!(
        op,
        O::Add
            | O::Mul
            | O::Div
            | O::Mad
            | O::Min
            | O::Max
            | O::Dp2
            | O::Dp3
            | O::Dp4
            | O::Frc
            | O::RoundNe
            | O::RoundNi
            | O::RoundPi
            | O::RoundZ
            | O::Sqrt
            | O::Rsq
            | O::Rcp
            | O::Exp
            | O::Log
            | O::Sincos
            | O::Eq
            | O::Ne
            | O::Lt
            | O::Ge
            | O::Mov
            | O::Movc
            | O::Swapc
            | O::Ftoi
            | O::Ftou
            | O::Itof
            | O::Utof
            | O::F32tof16
            | O::F16tof32
            | O::Iadd
            | O::Ineg
            | O::Imul
            | O::Umul
            | O::Imad
            | O::Umad
            | O::Udiv
            | O::Imin
            | O::Imax
            | O::Umin
            | O::Umax
            | O::Ieq
            | O::Ine
            | O::Ilt
            | O::Ige
            | O::Ult
            | O::Uge
            | O::Ishl
            | O::Ishr
            | O::Ushr
            | O::And
            | O::Or
            | O::Xor
            | O::Not
            | O::Bfi
            | O::Ubfe
            | O::Ibfe
            | O::Bfrev
            | O::Countbits
            | O::FirstbitHi
            | O::FirstbitLo
            | O::FirstbitShi
            | O::Uaddc
            | O::Usubb
            | O::Msad
            | O::Dadd
            | O::Dmul
            | O::Ddiv
            | O::Dfma
            | O::Dmin
            | O::Dmax
            | O::Dmov
            | O::Dmovc
            | O::Deq
            | O::Dne
            | O::Dlt
            | O::Dge
            | O::Drcp
            | O::Dtof
            | O::Ftod
            | O::Dtoi
            | O::Dtou
            | O::Itod
            | O::Utod
            | O::CheckAccessFullyMapped
    )
}

/// One component's computation: `(lowerer, component, result register, sources)`.
type CompFn<'a> = dyn FnMut(&mut Lowerer<'_>, usize, Reg, &[Reg]) -> Result<(), LowerError> + 'a;

/// A two-result computation: `(lowerer, component, first result, second result, sources)`
/// (a result is `None` where its destination does not write the component).
type Comp2Fn<'a> = dyn FnMut(&mut Lowerer<'_>, usize, Option<Reg>, Option<Reg>, &[Reg]) -> Result<(), LowerError>
    + 'a;

fn un(op: FUnOp) -> impl Fn(Reg, Reg) -> Inst {
    move |dst, src| Inst::FUnary { op, dst, src }
}

impl<'p> Lowerer<'p> {
    /// Lowers an arithmetic instruction.
    pub(super) fn alu(&mut self, e: &Executable) -> Result<(), LowerError> {
        use Opcode as O;
        match e.opcode {
            O::Add => self.bin(e, |dst, a, b| Inst::FAdd { dst, a, b }),
            O::Mul => self.bin(e, |dst, a, b| Inst::FMul { dst, a, b }),
            O::Div => self.bin(e, |dst, a, b| Inst::FDiv { dst, a, b }),
            O::Min => self.bin(e, |dst, a, b| Inst::FMin { dst, a, b }),
            O::Max => self.bin(e, |dst, a, b| Inst::FMax { dst, a, b }),
            O::Mad => {
                let precise = e.precise.0;
                self.map(e, &mut |l, c, dst, s| {
                    let (a, b, cc) = three(s);
                    l.emit(if precise & (1 << c) != 0 {
                        Inst::FMadPrecise { dst, a, b, c: cc }
                    } else {
                        Inst::FMad { dst, a, b, c: cc }
                    });
                    Ok(())
                })
            }
            O::Dp2 => self.dot(e, 2),
            O::Dp3 => self.dot(e, 3),
            O::Dp4 => self.dot(e, 4),
            O::Frc => self.unary(e, un(FUnOp::Frac)),
            O::RoundNe => self.unary(e, un(FUnOp::RoundNe)),
            O::RoundNi => self.unary(e, un(FUnOp::Floor)),
            O::RoundPi => self.unary(e, un(FUnOp::Ceil)),
            O::RoundZ => self.unary(e, un(FUnOp::Trunc)),
            O::Sqrt => self.unary(e, un(FUnOp::Sqrt)),
            O::Rsq => self.unary(e, un(FUnOp::Rsq)),
            O::Rcp => self.unary(e, un(FUnOp::Rcp)),
            O::Exp => self.unary(e, un(FUnOp::Exp2)),
            O::Log => self.unary(e, un(FUnOp::Log2)),
            O::Sincos => self.map2(e, &mut |l, _, sin, cos, s| {
                let src = one(s);
                if let Some(dst) = sin {
                    l.emit(Inst::FUnary {
                        op: FUnOp::Sin,
                        dst,
                        src,
                    });
                }
                if let Some(dst) = cos {
                    l.emit(Inst::FUnary {
                        op: FUnOp::Cos,
                        dst,
                        src,
                    });
                }
                Ok(())
            }),
            O::Eq => self.fcmp(e, FCond::Eq),
            O::Ne => self.fcmp(e, FCond::Ne),
            O::Lt => self.fcmp(e, FCond::Lt),
            O::Ge => self.fcmp(e, FCond::Ge),
            O::Mov => self.mov(e),
            O::Movc => self.map(e, &mut |l, _, dst, s| {
                let (cond, a, b) = three(s);
                l.emit(Inst::Select { dst, cond, a, b });
                Ok(())
            }),
            // swapc dst0, dst1, c, a, b: dst0 = c ? b : a, dst1 = c ? a : b, every source
            // read before either destination is written (D3D11.3 §22, `swapc`).
            O::Swapc => self.map2(e, &mut |l, _, d0, d1, s| {
                let (cond, a, b) = three(s);
                if let Some(dst) = d0 {
                    l.emit(Inst::Select {
                        dst,
                        cond,
                        a: b,
                        b: a,
                    });
                }
                if let Some(dst) = d1 {
                    l.emit(Inst::Select { dst, cond, a, b });
                }
                Ok(())
            }),
            O::Ftoi => self.unary(e, |dst, src| Inst::FToI { dst, src }),
            O::Ftou => self.unary(e, |dst, src| Inst::FToU { dst, src }),
            O::Itof => self.unary(e, |dst, src| Inst::IToF { dst, src }),
            O::Utof => self.unary(e, |dst, src| Inst::UToF { dst, src }),
            O::F32tof16 => self.unary(e, |dst, src| Inst::F32ToF16Legacy { dst, src }),
            O::F16tof32 => self.unary(e, |dst, src| Inst::F16ToF32 { dst, src }),
            O::Iadd => self.bin(e, |dst, a, b| Inst::IAdd { dst, a, b }),
            O::Ineg => self.unary(e, |dst, src| Inst::INeg { dst, src }),
            O::Imul | O::Umul => {
                let signed = e.opcode == O::Imul;
                self.map2(e, &mut |l, _, hi, lo, s| {
                    let (a, b) = two(s);
                    if let Some(dst) = hi {
                        l.emit(if signed {
                            Inst::IMulHi { dst, a, b }
                        } else {
                            Inst::UMulHi { dst, a, b }
                        });
                    }
                    if let Some(dst) = lo {
                        l.emit(Inst::IMul { dst, a, b });
                    }
                    Ok(())
                })
            }
            O::Imad | O::Umad => self.map(e, &mut |l, _, dst, s| {
                let (a, b, c) = three(s);
                l.emit(Inst::IMad { dst, a, b, c });
                Ok(())
            }),
            O::Udiv => self.map2(e, &mut |l, _, q, r, s| {
                let (a, b) = two(s);
                if let Some(dst) = q {
                    l.emit(Inst::UDiv { dst, a, b });
                }
                if let Some(dst) = r {
                    l.emit(Inst::URem { dst, a, b });
                }
                Ok(())
            }),
            O::Imin => self.bin(e, |dst, a, b| Inst::IMin { dst, a, b }),
            O::Imax => self.bin(e, |dst, a, b| Inst::IMax { dst, a, b }),
            O::Umin => self.bin(e, |dst, a, b| Inst::UMin { dst, a, b }),
            O::Umax => self.bin(e, |dst, a, b| Inst::UMax { dst, a, b }),
            O::Ieq => self.icmp(e, ICond::Eq),
            O::Ine => self.icmp(e, ICond::Ne),
            O::Ilt => self.icmp(e, ICond::SLt),
            O::Ige => self.icmp(e, ICond::SGe),
            O::Ult => self.icmp(e, ICond::ULt),
            O::Uge => self.icmp(e, ICond::UGe),
            O::Ishl => self.bin(e, |dst, a, b| Inst::Shl { dst, a, b }),
            O::Ishr => self.bin(e, |dst, a, b| Inst::IShr { dst, a, b }),
            O::Ushr => self.bin(e, |dst, a, b| Inst::UShr { dst, a, b }),
            O::And => self.bin(e, |dst, a, b| Inst::And { dst, a, b }),
            O::Or => self.bin(e, |dst, a, b| Inst::Or { dst, a, b }),
            O::Xor => self.bin(e, |dst, a, b| Inst::Xor { dst, a, b }),
            O::Not => self.unary(e, |dst, src| Inst::Not { dst, src }),
            O::Bfi => self.map(e, &mut |l, _, dst, s| {
                let (width, offset, insert, base) = four(s);
                l.emit(Inst::Bfi {
                    dst,
                    width,
                    offset,
                    insert,
                    base,
                });
                Ok(())
            }),
            O::Ubfe | O::Ibfe => {
                let signed = e.opcode == O::Ibfe;
                self.map(e, &mut |l, _, dst, s| {
                    let (width, offset, src) = three(s);
                    l.emit(if signed {
                        Inst::IBfe {
                            dst,
                            width,
                            offset,
                            src,
                        }
                    } else {
                        Inst::UBfe {
                            dst,
                            width,
                            offset,
                            src,
                        }
                    });
                    Ok(())
                })
            }
            O::Bfrev => self.unary(e, |dst, src| Inst::Bfrev { dst, src }),
            O::Countbits => self.unary(e, |dst, src| Inst::CountBits { dst, src }),
            O::FirstbitHi => self.unary(e, |dst, src| Inst::FirstBitHi { dst, src }),
            O::FirstbitLo => self.unary(e, |dst, src| Inst::FirstBitLo { dst, src }),
            O::FirstbitShi => self.unary(e, |dst, src| Inst::FirstBitShi { dst, src }),
            O::Uaddc | O::Usubb => {
                let add = e.opcode == O::Uaddc;
                self.map2(e, &mut |l, _, r0, r1, s| {
                    let (a, b) = two(s);
                    let r0 = r0.unwrap_or_else(|| l.temp());
                    let r1 = r1.unwrap_or_else(|| l.temp());
                    l.emit(if add {
                        Inst::UAddc {
                            sum: r0,
                            carry: r1,
                            a,
                            b,
                        }
                    } else {
                        Inst::USubb {
                            diff: r0,
                            borrow: r1,
                            a,
                            b,
                        }
                    });
                    Ok(())
                })
            }
            O::Msad => self.map(e, &mut |l, _, dst, s| {
                let (reference, src, accum) = three(s);
                l.emit(Inst::Msad {
                    dst,
                    reference,
                    src,
                    accum,
                });
                Ok(())
            }),
            O::CheckAccessFullyMapped => self.map(e, &mut |l, _, dst, s| {
                // Resources here are never tiled: every access is fully mapped, and its
                // status (set by the `_s` loads) is nonzero.
                let zero = l.k(0);
                l.emit(Inst::ICmp {
                    cond: ICond::Ne,
                    dst,
                    a: one(s),
                    b: zero,
                });
                Ok(())
            }),
            O::Dadd => self.dbin(e, |dst, a, b| Inst::DAdd { dst, a, b }),
            O::Dmul => self.dbin(e, |dst, a, b| Inst::DMul { dst, a, b }),
            O::Ddiv => self.dbin(e, |dst, a, b| Inst::DDiv { dst, a, b }),
            O::Dmin => self.dbin(e, |dst, a, b| Inst::DMin { dst, a, b }),
            O::Dmax => self.dbin(e, |dst, a, b| Inst::DMax { dst, a, b }),
            O::Dfma | O::Drcp | O::Dmov | O::Dmovc => self.double_op(e),
            O::Deq => self.dcmp(e, FCond::Eq),
            O::Dne => self.dcmp(e, FCond::Ne),
            O::Dlt => self.dcmp(e, FCond::Lt),
            O::Dge => self.dcmp(e, FCond::Ge),
            O::Dtof | O::Dtoi | O::Dtou => self.double_to_32(e),
            O::Ftod | O::Itod | O::Utod => self.convert_to_double(e),
            other => Err(self.unsupported(format!("opcode {}", other.mnemonic()))),
        }
    }

    /// Whether `_sat` applies to results of this type: it clamps float results (and
    /// untyped ones, which `mov_sat` treats as floats); on an integer result it is not
    /// defined.
    fn saturates(&self, e: &Executable, ty: OperandType) -> Result<bool, LowerError> {
        if !e.saturate {
            return Ok(false);
        }
        match ty {
            OperandType::Float | OperandType::Untyped | OperandType::Double => Ok(true),
            OperandType::Int | OperandType::Uint => Err(self.invalid(format!(
                "_sat on {}, whose result is an integer",
                e.opcode.mnemonic()
            ))),
        }
    }

    /// Computes component `c` into `out` with `f`, through a fresh register and a
    /// saturate (D3D11.3 §3.1: clamp to [0, 1], NaN → 0) when `sat`.
    fn put(
        &mut self,
        sat: bool,
        out: Reg,
        f: impl FnOnce(&mut Self, Reg) -> Result<(), LowerError>,
    ) -> Result<(), LowerError> {
        if sat {
            let t = self.temp();
            f(self, t)?;
            self.emit(Inst::FUnary {
                op: FUnOp::Sat,
                dst: out,
                src: t,
            });
            Ok(())
        } else {
            f(self, out)
        }
    }

    /// The general one-destination component loop: reads every source's components for
    /// the destination mask, then computes each written component with `f`.
    fn map(&mut self, e: &Executable, f: &mut CompFn<'_>) -> Result<(), LowerError> {
        let p = self.p;
        let ops = e.operands(p);
        let types = e.opcode.info().types;
        let Some((dst_op, srcs)) = ops.split_first() else {
            return Err(self.invalid("an instruction without operands".into()));
        };
        let sat = self.saturates(e, types.first().copied().unwrap_or(OperandType::Untyped))?;
        let d = self.dest(dst_op)?;
        if d.mask == 0 {
            return Ok(());
        }
        let mut per_src: Vec<[Reg; 4]> = Vec::with_capacity(srcs.len());
        for (k, s) in srcs.iter().enumerate() {
            let ty = types
                .get(k.saturating_add(1))
                .copied()
                .unwrap_or(OperandType::Untyped);
            per_src.push(self.read_for(s, ty, d.mask)?);
        }
        for c in comps(d.mask) {
            let args: Vec<Reg> = per_src
                .iter()
                .map(|r| r.get(c).copied().unwrap_or(Reg::NONE))
                .collect();
            self.put(sat, d.reg(c), |l, out| f(l, c, out, &args))?;
        }
        self.commit(&d);
        Ok(())
    }

    /// The two-destination component loop (`sincos`, `imul`, `umul`, `udiv`, `uaddc`,
    /// `usubb`, `swapc`): each component in either mask is computed once from the
    /// sources, for the destinations that write it.
    fn map2(&mut self, e: &Executable, f: &mut Comp2Fn<'_>) -> Result<(), LowerError> {
        let p = self.p;
        let ops = e.operands(p);
        let types = e.opcode.info().types;
        let (Some(op0), Some(op1), Some(srcs)) = (ops.first(), ops.get(1), ops.get(2..)) else {
            return Err(self.invalid("an instruction lacks a destination".into()));
        };
        let sat0 = self.saturates(e, types.first().copied().unwrap_or(OperandType::Untyped))?;
        let sat1 = self.saturates(e, types.get(1).copied().unwrap_or(OperandType::Untyped))?;
        let d0 = self.dest(op0)?;
        let d1 = self.dest(op1)?;
        let mask = d0.mask | d1.mask;
        if mask == 0 {
            return Ok(());
        }
        let mut per_src: Vec<[Reg; 4]> = Vec::with_capacity(srcs.len());
        for (k, s) in srcs.iter().enumerate() {
            let ty = types
                .get(k.saturating_add(2))
                .copied()
                .unwrap_or(OperandType::Untyped);
            per_src.push(self.read_for(s, ty, mask)?);
        }
        for c in comps(mask) {
            let args: Vec<Reg> = per_src
                .iter()
                .map(|r| r.get(c).copied().unwrap_or(Reg::NONE))
                .collect();
            let out = |d: &Dest, sat: bool, l: &mut Self| -> Option<(Reg, Reg)> {
                (d.mask & (1 << c) != 0).then(|| {
                    let target = d.reg(c);
                    (if sat { l.temp() } else { target }, target)
                })
            };
            let o0 = out(&d0, sat0, self);
            let o1 = out(&d1, sat1, self);
            f(self, c, o0.map(|o| o.0), o1.map(|o| o.0), &args)?;
            for o in [o0, o1].into_iter().flatten() {
                if o.0 != o.1 {
                    self.emit(Inst::FUnary {
                        op: FUnOp::Sat,
                        dst: o.1,
                        src: o.0,
                    });
                }
            }
        }
        self.commit(&d0);
        self.commit(&d1);
        Ok(())
    }

    /// A one-source instruction computing each written component with `f` (`_sat` and
    /// source modifiers applied as for every float instruction).
    pub(super) fn alu_unary(
        &mut self,
        e: &Executable,
        f: impl Fn(Reg, Reg) -> Inst,
    ) -> Result<(), LowerError> {
        self.unary(e, f)
    }

    fn unary(&mut self, e: &Executable, f: impl Fn(Reg, Reg) -> Inst) -> Result<(), LowerError> {
        self.map(e, &mut |l, _, dst, s| {
            l.emit(f(dst, one(s)));
            Ok(())
        })
    }

    fn bin(&mut self, e: &Executable, f: impl Fn(Reg, Reg, Reg) -> Inst) -> Result<(), LowerError> {
        self.map(e, &mut |l, _, dst, s| {
            let (a, b) = two(s);
            l.emit(f(dst, a, b));
            Ok(())
        })
    }

    /// `mov`: a bit copy (with float modifiers and `_sat`). A move into an indexable
    /// temporary or a stage output stores the source components directly.
    fn mov(&mut self, e: &Executable) -> Result<(), LowerError> {
        use crate::dxbc::RegisterType as R;
        let ops = e.operands(self.p);
        if let (Some(dst_op), Some(src_op)) = (ops.first(), ops.get(1))
            && !e.saturate
            && matches!(
                dst_op.register,
                R::IndexableTemp
                    | R::Output
                    | R::OutputDepth
                    | R::OutputDepthGreaterEqual
                    | R::OutputDepthLessEqual
                    | R::OutputCoverageMask
                    | R::OutputStencilRef
            )
        {
            let d = self.dest(dst_op)?;
            let values = self.read_for(src_op, OperandType::Untyped, d.mask)?;
            let d = d.with_regs(values);
            if d.is_stored() {
                self.commit(&d);
            }
            return Ok(());
        }
        self.unary(e, |dst, src| Inst::Mov { dst, src })
    }

    fn fcmp(&mut self, e: &Executable, cond: FCond) -> Result<(), LowerError> {
        self.bin(e, move |dst, a, b| Inst::FCmp { cond, dst, a, b })
    }

    fn icmp(&mut self, e: &Executable, cond: ICond) -> Result<(), LowerError> {
        self.bin(e, move |dst, a, b| Inst::ICmp { cond, dst, a, b })
    }

    /// `dp2`/`dp3`/`dp4`: the products of the first `n` component pairs summed in order,
    /// each step rounded — `((a.x*b.x + a.y*b.y) + a.z*b.z) + a.w*b.w` with no fused
    /// multiply-add (D3D11.3 §22 leaves the order and fusion to the implementation; WARP's
    /// is not documented, so this is the plain left-to-right, unfused evaluation). The one
    /// result goes to every written component.
    fn dot(&mut self, e: &Executable, n: usize) -> Result<(), LowerError> {
        let p = self.p;
        let ops = e.operands(p);
        let (Some(dst_op), Some(a_op), Some(b_op)) = (ops.first(), ops.get(1), ops.get(2)) else {
            return Err(self.invalid("dp without its operands".into()));
        };
        let sat = self.saturates(e, OperandType::Float)?;
        let d = self.dest(dst_op)?;
        if d.mask == 0 {
            return Ok(());
        }
        let first_n: u8 = (1u8 << n).wrapping_sub(1);
        let a = self.read_for(a_op, OperandType::Float, first_n)?;
        let b = self.read_for(b_op, OperandType::Float, first_n)?;
        let single = d.mask.count_ones() == 1 && !sat;
        let result = if single {
            comps(d.mask).next().map_or(Reg::NONE, |c| d.reg(c))
        } else {
            self.temp()
        };
        let mut acc = Reg::NONE;
        for i in 0..n {
            let (x, y) = (
                a.get(i).copied().unwrap_or(Reg::NONE),
                b.get(i).copied().unwrap_or(Reg::NONE),
            );
            let dst = if i.saturating_add(1) == n {
                result
            } else {
                self.temp()
            };
            self.emit(if i == 0 {
                Inst::FMul { dst, a: x, b: y }
            } else {
                Inst::FMadPrecise {
                    dst,
                    a: x,
                    b: y,
                    c: acc,
                }
            });
            acc = dst;
        }
        if !single {
            for c in comps(d.mask) {
                self.emit(if sat {
                    Inst::FUnary {
                        op: FUnOp::Sat,
                        dst: d.reg(c),
                        src: result,
                    }
                } else {
                    Inst::Mov {
                        dst: d.reg(c),
                        src: result,
                    }
                });
            }
        }
        self.commit(&d);
        Ok(())
    }

    // ---- doubles ----------------------------------------------------------------------

    /// The double destinations of a mask: pair 0 (`xy`) and pair 1 (`zw`). A mask that
    /// writes half of a pair is not a double destination.
    fn pairs(&self, d: &Dest) -> Result<Vec<usize>, LowerError> {
        let mut out = Vec::new();
        for k in 0..2usize {
            let bits = (d.mask >> k.wrapping_mul(2)) & 3;
            match bits {
                0 => {}
                3 => out.push(k),
                _ => {
                    return Err(self.invalid(format!(
                        "double destination mask {:#x} writes half of a double",
                        d.mask
                    )));
                }
            }
        }
        Ok(out)
    }

    /// Writes double result `f(pair)` to pair `k` of `d`, saturated to [0, 1] (NaN → 0)
    /// with `dmax` then `dmin` when `sat`.
    fn put64(&mut self, d: &Dest, k: usize, sat: bool, f: impl FnOnce(&mut Self, Reg)) {
        let out = d.reg(k.wrapping_mul(2));
        if sat {
            let t = self.temp64();
            f(self, t);
            let zero = self.b.konst64(0);
            let one = self.b.konst64(1f64.to_bits());
            let t2 = self.temp64();
            self.emit(Inst::DMax {
                dst: t2,
                a: t,
                b: zero,
            });
            self.emit(Inst::DMin {
                dst: out,
                a: t2,
                b: one,
            });
        } else {
            f(self, out);
        }
    }

    /// The operands of a double instruction: destination and sources.
    fn double_operands(&self, e: &Executable) -> Result<(&'p Operand, &'p [Operand]), LowerError> {
        let ops = e.operands(self.p);
        ops.split_first()
            .ok_or_else(|| self.invalid("an instruction without operands".into()))
    }

    /// `dadd`, `dmul`, `ddiv`, `dmin`, `dmax`: per double of the destination.
    fn dbin(
        &mut self,
        e: &Executable,
        f: impl Fn(Reg, Reg, Reg) -> Inst,
    ) -> Result<(), LowerError> {
        let (dst_op, srcs) = self.double_operands(e)?;
        let (Some(a_op), Some(b_op)) = (srcs.first(), srcs.get(1)) else {
            return Err(self.invalid("a double instruction lacks a source".into()));
        };
        let sat = self.saturates(e, OperandType::Double)?;
        let d = self.dest(dst_op)?;
        for k in self.pairs(&d)? {
            let a = self.read_pair(a_op, k)?;
            let b = self.read_pair(b_op, k)?;
            self.put64(&d, k, sat, |l, dst| l.emit(f(dst, a, b)));
        }
        self.commit(&d);
        Ok(())
    }

    /// `dfma`, `drcp`, `dmov`, `dmovc`.
    fn double_op(&mut self, e: &Executable) -> Result<(), LowerError> {
        let (dst_op, srcs) = self.double_operands(e)?;
        let sat = self.saturates(e, OperandType::Double)?;
        let d = self.dest(dst_op)?;
        let src = |i: usize| srcs.get(i);
        for k in self.pairs(&d)? {
            match e.opcode {
                Opcode::Dfma => {
                    let (Some(a), Some(b), Some(c)) = (src(0), src(1), src(2)) else {
                        return Err(self.invalid("dfma lacks a source".into()));
                    };
                    let (a, b, c) = (
                        self.read_pair(a, k)?,
                        self.read_pair(b, k)?,
                        self.read_pair(c, k)?,
                    );
                    self.put64(&d, k, sat, |l, dst| l.emit(Inst::DFma { dst, a, b, c }));
                }
                Opcode::Drcp | Opcode::Dmov => {
                    let Some(s) = src(0) else {
                        return Err(self.invalid("a double instruction lacks its source".into()));
                    };
                    let s = self.read_pair(s, k)?;
                    let rcp = e.opcode == Opcode::Drcp;
                    self.put64(&d, k, sat, |l, dst| {
                        if rcp {
                            l.emit(Inst::DRcp { dst, src: s });
                        } else {
                            l.emit(Inst::Mov { dst, src: s });
                            l.emit(Inst::Mov {
                                dst: dst.hi(),
                                src: s.hi(),
                            });
                        }
                    });
                }
                _ => {
                    // dmovc dst, cond, a, b: the condition of double k is the 32-bit
                    // component k of the condition operand (after its swizzle).
                    let (Some(c), Some(a), Some(b)) = (src(0), src(1), src(2)) else {
                        return Err(self.invalid("dmovc lacks a source".into()));
                    };
                    let conds = self.read_for(c, OperandType::Uint, 1 << k)?;
                    let cond = conds.get(k).copied().unwrap_or(Reg::NONE);
                    let (a, b) = (self.read_pair(a, k)?, self.read_pair(b, k)?);
                    self.put64(&d, k, sat, |l, dst| {
                        l.emit(Inst::Select64 { dst, cond, a, b });
                    });
                }
            }
        }
        self.commit(&d);
        Ok(())
    }

    /// `deq`, `dne`, `dlt`, `dge`: the n-th written (32-bit) component receives the
    /// comparison of the n-th doubles.
    fn dcmp(&mut self, e: &Executable, cond: FCond) -> Result<(), LowerError> {
        let (dst_op, srcs) = self.double_operands(e)?;
        let (Some(a_op), Some(b_op)) = (srcs.first(), srcs.get(1)) else {
            return Err(self.invalid("a double comparison lacks a source".into()));
        };
        let d = self.dest(dst_op)?;
        for (k, c) in comps(d.mask).enumerate().take(2) {
            let a = self.read_pair(a_op, k)?;
            let b = self.read_pair(b_op, k)?;
            self.emit(Inst::DCmp {
                cond,
                dst: d.reg(c),
                a,
                b,
            });
        }
        self.commit(&d);
        Ok(())
    }

    /// `dtof`, `dtoi`, `dtou`: the n-th written component receives the conversion of the
    /// n-th double of the source (D3D11.3 §22, `dtof`: "the first conversion goes to the
    /// first component in the mask").
    fn double_to_32(&mut self, e: &Executable) -> Result<(), LowerError> {
        let (dst_op, srcs) = self.double_operands(e)?;
        let Some(s_op) = srcs.first() else {
            return Err(self.invalid("a conversion lacks its source".into()));
        };
        let sat = self.saturates(e, OperandType::Float)? && e.opcode == Opcode::Dtof;
        let d = self.dest(dst_op)?;
        let op = e.opcode;
        for (k, c) in comps(d.mask).enumerate().take(2) {
            let src = self.read_pair(s_op, k)?;
            self.put(sat, d.reg(c), |l, dst| {
                l.emit(match op {
                    Opcode::Dtof => Inst::DToF { dst, src },
                    Opcode::Dtoi => Inst::DToI { dst, src },
                    _ => Inst::DToU { dst, src },
                });
                Ok(())
            })?;
        }
        self.commit(&d);
        Ok(())
    }

    /// `ftod`, `itod`, `utod`: double k of the destination (`xy`, `zw`) receives the
    /// conversion of source component k (after its swizzle).
    fn convert_to_double(&mut self, e: &Executable) -> Result<(), LowerError> {
        let (dst_op, srcs) = self.double_operands(e)?;
        let Some(s_op) = srcs.first() else {
            return Err(self.invalid("a conversion lacks its source".into()));
        };
        let ty = e
            .opcode
            .info()
            .types
            .get(1)
            .copied()
            .unwrap_or(OperandType::Float);
        let sat = self.saturates(e, OperandType::Double)?;
        let d = self.dest(dst_op)?;
        let pairs = self.pairs(&d)?;
        let mask = pairs.iter().fold(0u8, |m, k| m | (1 << k));
        let values = self.read_for(s_op, ty, mask)?;
        let op = e.opcode;
        for k in pairs {
            let src = values.get(k).copied().unwrap_or(Reg::NONE);
            self.put64(&d, k, sat, |l, dst| {
                l.emit(match op {
                    Opcode::Ftod => Inst::FToD { dst, src },
                    Opcode::Itod => Inst::IToD { dst, src },
                    _ => Inst::UToD { dst, src },
                });
            });
        }
        self.commit(&d);
        Ok(())
    }
}

fn one(s: &[Reg]) -> Reg {
    s.first().copied().unwrap_or(Reg::NONE)
}

fn two(s: &[Reg]) -> (Reg, Reg) {
    (one(s), s.get(1).copied().unwrap_or(Reg::NONE))
}

fn three(s: &[Reg]) -> (Reg, Reg, Reg) {
    let (a, b) = two(s);
    (a, b, s.get(2).copied().unwrap_or(Reg::NONE))
}

fn four(s: &[Reg]) -> (Reg, Reg, Reg, Reg) {
    let (a, b, c) = three(s);
    (a, b, c, s.get(3).copied().unwrap_or(Reg::NONE))
}
