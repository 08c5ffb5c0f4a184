//! Which instructions the native engine compiles, and how they group into segments.
//!
//! Compilable: lane-wise 32-bit arithmetic whose only state is the wave's registers —
//! moves and selects, 32-bit float and integer arithmetic, comparisons, classification,
//! the 32-bit conversions and bit operations. Everything else (64-bit values, memory,
//! resources, sampling, wave and quad operations, derivatives, system values, stage
//! inputs and outputs, barriers, discard, demote) ends a segment and runs in the
//! interpreter.

use std::ops::Range;

use crate::ir::{Inst, Shader};

use super::MAX_SEGMENT;

/// Whether the native engine compiles `inst`.
pub fn compilable(inst: &Inst) -> bool {
    matches!(
        inst,
        Inst::Mov { .. }
            | Inst::Select { .. }
            | Inst::FAdd { .. }
            | Inst::FSub { .. }
            | Inst::FMul { .. }
            | Inst::FDiv { .. }
            | Inst::FRem { .. }
            | Inst::FMin { .. }
            | Inst::FMax { .. }
            | Inst::FMad { .. }
            | Inst::FMadPrecise { .. }
            | Inst::FFma { .. }
            | Inst::FUnary { .. }
            | Inst::FCmp { .. }
            | Inst::FTest { .. }
            | Inst::FToI { .. }
            | Inst::FToU { .. }
            | Inst::IToF { .. }
            | Inst::UToF { .. }
            | Inst::F32ToF16Legacy { .. }
            | Inst::F16ToF32 { .. }
            | Inst::SExtBits { .. }
            | Inst::IAdd { .. }
            | Inst::ISub { .. }
            | Inst::IMul { .. }
            | Inst::IMulHi { .. }
            | Inst::UMulHi { .. }
            | Inst::IMad { .. }
            | Inst::UDiv { .. }
            | Inst::URem { .. }
            | Inst::IDiv { .. }
            | Inst::IRem { .. }
            | Inst::INeg { .. }
            | Inst::IMin { .. }
            | Inst::IMax { .. }
            | Inst::UMin { .. }
            | Inst::UMax { .. }
            | Inst::And { .. }
            | Inst::Or { .. }
            | Inst::Xor { .. }
            | Inst::Not { .. }
            | Inst::Shl { .. }
            | Inst::UShr { .. }
            | Inst::IShr { .. }
            | Inst::ICmp { .. }
            | Inst::Bfi { .. }
            | Inst::UBfe { .. }
            | Inst::IBfe { .. }
            | Inst::Bfrev { .. }
            | Inst::CountBits { .. }
            | Inst::FirstBitHi { .. }
            | Inst::FirstBitLo { .. }
            | Inst::FirstBitShi { .. }
            | Inst::UAddc { .. }
            | Inst::USubb { .. }
            | Inst::Msad { .. }
    )
}

/// The segments of `shader`: maximal runs of [compilable] instructions inside one block,
/// at most [`MAX_SEGMENT`] long. A lone instruction is a segment too: one call over the
/// wave costs about what one interpreted instruction does.
pub fn segments(shader: &Shader) -> Vec<Range<usize>> {
    let mut out = Vec::new();
    for b in &shader.blocks {
        let (start, end) = (b.start as usize, b.end as usize);
        let mut i = start;
        while i < end {
            if !shader.insts.get(i).is_some_and(compilable) {
                i += 1;
                continue;
            }
            let s = i;
            while i < end && i - s < MAX_SEGMENT && shader.insts.get(i).is_some_and(compilable) {
                i += 1;
            }
            out.push(s..i);
        }
    }
    out
}
