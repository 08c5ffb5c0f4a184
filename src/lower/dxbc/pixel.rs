//! The instructions only pixel programs have: `discard`, the screen-space derivatives
//! `deriv_rt{x,y}[_coarse|_fine]`, and attribute evaluation `eval_centroid`,
//! `eval_sample_index`, `eval_snapped`. (Implicit-LOD sampling and the `rasterizer`
//! operand of `sampleinfo`/`samplepos` live with the other resource instructions.)

use super::Lowerer;
use super::operands::{SIGN, comps, swizzle};
use crate::dxbc::{Executable, Opcode, OperandModifier, OperandType, RegisterType, Test};
use crate::ir::{DerivKind, EvalAt, FUnOp, ICond, Inst, Reg};
use crate::lower::LowerError;

/// Whether this file lowers `op`.
pub(super) fn handles(op: Opcode) -> bool {
    use Opcode as O;
    matches!(
        op,
        O::Discard
            | O::DerivRtx
            | O::DerivRty
            | O::DerivRtxCoarse
            | O::DerivRtyCoarse
            | O::DerivRtxFine
            | O::DerivRtyFine
            | O::EvalCentroid
            | O::EvalSampleIndex
            | O::EvalSnapped
    )
}

/// The derivative an opcode takes.
///
/// The unqualified `deriv_rtx`/`deriv_rty` of Shader Model 4 are **coarse**: their
/// reference page says "only a single x,y derivative pair is computed for each 2x2 stamp
/// of pixels", and Shader Model 5's `_coarse`/`_fine` pages present the pair as the
/// replacement of the unqualified forms (HLSL `ddx`/`ddy` likewise become DXIL's
/// `DerivCoarseX`/`DerivCoarseY`). Coarse derivatives are taken from the quad's top row
/// (x) and left column (y), as `exec` computes `deriv coarse_*`.
fn deriv_kind(op: Opcode) -> DerivKind {
    match op {
        Opcode::DerivRtxFine => DerivKind::FineX,
        Opcode::DerivRtyFine => DerivKind::FineY,
        Opcode::DerivRty | Opcode::DerivRtyCoarse => DerivKind::CoarseY,
        _ => DerivKind::CoarseX,
    }
}

impl Lowerer<'_> {
    /// Lowers a pixel-only instruction.
    pub(super) fn pixel(&mut self, e: &Executable) -> Result<(), LowerError> {
        use Opcode as O;
        match e.opcode {
            O::Discard => self.discard(e),
            O::EvalCentroid | O::EvalSampleIndex | O::EvalSnapped => self.eval(e),
            op => {
                let kind = deriv_kind(op);
                self.alu_unary(e, move |dst, src| Inst::Deriv { kind, dst, src })
            }
        }
    }

    /// `discard_nz src` / `discard_z src`: the lanes whose selected component has any bit
    /// set (`_nz`) or none (`_z`) are flagged as discarded but keep running as helper
    /// lanes, so that the quad's derivatives stay defined; nothing they write afterwards
    /// (outputs, memory) counts. The SM4 assembly reference for `discard` says so: the
    /// instruction "flags the current pixel as terminated, while continuing execution" and
    /// all of the pixel's output writes are discarded. This is `demote`, as the DXIL
    /// lowering does for dx.op `Discard`, so DXBC and DXIL twins agree.
    fn discard(&mut self, e: &Executable) -> Result<(), LowerError> {
        let op = e
            .operands(self.p)
            .first()
            .ok_or_else(|| self.invalid("discard without its condition".into()))?;
        let v = self.scalar(op, OperandType::Uint)?;
        let cond = if e.test == Some(Test::Zero) {
            let t = self.temp();
            let zero = self.k(0);
            self.emit(Inst::ICmp {
                cond: ICond::Eq,
                dst: t,
                a: v,
                b: zero,
            });
            t
        } else {
            v
        };
        self.emit(Inst::Demote { cond });
        Ok(())
    }

    /// `eval_centroid dst, v#`, `eval_sample_index dst, v#, index`, `eval_snapped dst,
    /// v#, offset.xy`: each written component is the swizzled input component
    /// interpolated at the centroid, at sample `index`, or at the pixel centre moved by
    /// the (signed 4-bit, sixteenths of a pixel) offsets (D3D11.3 §16.5), then the source
    /// modifier and `_sat` as for any float source. The input may be indexed
    /// (`v[r0.x + n]`).
    fn eval(&mut self, e: &Executable) -> Result<(), LowerError> {
        let ops = e.operands(self.p);
        let (Some(dst_op), Some(src)) = (ops.first(), ops.get(1)) else {
            return Err(self.invalid(format!("{} lacks an operand", e.opcode.mnemonic())));
        };
        if src.register != RegisterType::Input {
            return Err(self.invalid(format!(
                "{} of register {} (it evaluates pixel inputs)",
                e.opcode.mnemonic(),
                src.register.name()
            )));
        }
        let at = match e.opcode {
            Opcode::EvalCentroid => EvalAt::Centroid,
            Opcode::EvalSampleIndex => EvalAt::Sample,
            _ => EvalAt::Snapped,
        };
        let arg = match at {
            EvalAt::Centroid | EvalAt::Vertex => [Reg::NONE; 2],
            EvalAt::Sample => {
                let op = ops
                    .get(2)
                    .ok_or_else(|| self.invalid("eval_sample_index lacks its index".into()))?;
                [self.scalar(op, OperandType::Int)?, Reg::NONE]
            }
            EvalAt::Snapped => {
                let op = ops
                    .get(2)
                    .ok_or_else(|| self.invalid("eval_snapped lacks its offset".into()))?;
                let xy = self.read_for(op, OperandType::Int, 0b11)?;
                [xy[0], xy[1]]
            }
        };
        let d = self.dest(dst_op)?;
        if d.mask == 0 {
            return Ok(());
        }
        let (slot, row, rows) = self.io_row(src, false)?;
        let sw = swizzle(src);
        for c in comps(d.mask) {
            let s = sw.get(c).copied().unwrap_or(0);
            let word = slot.wrapping_add(u32::try_from(s).unwrap_or(0));
            let plain = src.modifier == OperandModifier::None && !e.saturate;
            let v = if plain { d.reg(c) } else { self.temp() };
            self.emit(Inst::Eval {
                at,
                dst: v,
                slot: word,
                index: row.unwrap_or(Reg::NONE),
                rows,
                arg,
            });
            if plain {
                continue;
            }
            let m = match src.modifier {
                OperandModifier::None => v,
                m => {
                    let t = self.temp();
                    let (op_inst, bits) = match m {
                        OperandModifier::Neg => (0, SIGN),
                        OperandModifier::Abs => (1, !SIGN),
                        _ => (2, SIGN),
                    };
                    let k = self.k(bits);
                    self.emit(match op_inst {
                        0 => Inst::Xor { dst: t, a: v, b: k },
                        1 => Inst::And { dst: t, a: v, b: k },
                        _ => Inst::Or { dst: t, a: v, b: k },
                    });
                    t
                }
            };
            self.emit(if e.saturate {
                Inst::FUnary {
                    op: FUnOp::Sat,
                    dst: d.reg(c),
                    src: m,
                }
            } else {
                Inst::Mov {
                    dst: d.reg(c),
                    src: m,
                }
            });
        }
        self.commit(&d);
        Ok(())
    }
}
