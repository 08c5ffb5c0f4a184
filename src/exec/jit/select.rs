//! Which instructions the native engine compiles, and how they group into segments.
//!
//! Compilable: lane-wise 32-bit arithmetic whose only state is the wave's registers —
//! moves and selects, 32-bit float and integer arithmetic, comparisons, classification,
//! the 32-bit conversions and bit operations. Everything else (64-bit values, memory,
//! resources, sampling, wave and quad operations, derivatives, system values, stage
//! inputs and outputs, barriers, discard, demote) ends a segment and runs in the
//! interpreter. [`native`] decides each instruction in an exhaustive `match`, so a new
//! instruction does not build until it is decided.

use std::ops::Range;

use crate::ir::{FUnOp, Inst, Shader};

use super::MAX_SEGMENT;

/// How the native engine runs an instruction.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Native {
    /// Not compiled: the instruction ends a segment and the interpreter runs it.
    Interpreted,
    /// Compiled to vector code, or to calls of integer or bit rules that need no
    /// particular float environment.
    Inline,
    /// Compiled to a call of one of the interpreter's float rules, which must run in the
    /// default float environment (no DAZ; see `emit::daz`).
    FloatRule,
}

/// How the native engine runs `inst`.
///
/// This is the engine's knowledge, not the instruction table's: it changes when the
/// engine learns an instruction, and the IR knows nothing of engines. So it is an
/// exhaustive `match` (no `_` arm): a new instruction does not compile until it is
/// decided here.
pub fn native(inst: &Inst) -> Native {
    use Native::{FloatRule, Inline, Interpreted};
    match inst {
        Inst::FUnary { op, .. } => match op {
            FUnOp::Sqrt
            | FUnOp::Rcp
            | FUnOp::RoundNe
            | FUnOp::Floor
            | FUnOp::Ceil
            | FUnOp::Trunc
            | FUnOp::Frac
            | FUnOp::Sat => Inline,
            FUnOp::Rsq
            | FUnOp::Exp2
            | FUnOp::Log2
            | FUnOp::Sin
            | FUnOp::Cos
            | FUnOp::Tan
            | FUnOp::Asin
            | FUnOp::Acos
            | FUnOp::Atan
            | FUnOp::Sinh
            | FUnOp::Cosh
            | FUnOp::Tanh => FloatRule,
        },
        Inst::FRem { .. } | Inst::F32ToF16Legacy { .. } | Inst::F16ToF32 { .. } => FloatRule,
        Inst::Mov { .. }
        | Inst::Select { .. }
        | Inst::FAdd { .. }
        | Inst::FSub { .. }
        | Inst::FMul { .. }
        | Inst::FDiv { .. }
        | Inst::FMin { .. }
        | Inst::FMax { .. }
        | Inst::FMad { .. }
        | Inst::FMadPrecise { .. }
        | Inst::FFma { .. }
        | Inst::FCmp { .. }
        | Inst::FTest { .. }
        | Inst::FToI { .. }
        | Inst::FToU { .. }
        | Inst::IToF { .. }
        | Inst::UToF { .. }
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
        | Inst::Msad { .. } => Inline,
        // 64-bit values.
        Inst::Select64 { .. }
        | Inst::DAdd { .. }
        | Inst::DSub { .. }
        | Inst::DMul { .. }
        | Inst::DDiv { .. }
        | Inst::DRem { .. }
        | Inst::DMin { .. }
        | Inst::DMax { .. }
        | Inst::DFma { .. }
        | Inst::DRcp { .. }
        | Inst::DSqrt { .. }
        | Inst::DCmp { .. }
        | Inst::DTest { .. }
        | Inst::DToF { .. }
        | Inst::FToD { .. }
        | Inst::DToI { .. }
        | Inst::DToU { .. }
        | Inst::IToD { .. }
        | Inst::UToD { .. }
        | Inst::FToI64 { .. }
        | Inst::FToU64 { .. }
        | Inst::DToI64 { .. }
        | Inst::DToU64 { .. }
        | Inst::I64ToF { .. }
        | Inst::U64ToF { .. }
        | Inst::I64ToD { .. }
        | Inst::U64ToD { .. }
        | Inst::SExt64 { .. }
        | Inst::ZExt64 { .. }
        | Inst::I64Add { .. }
        | Inst::I64Sub { .. }
        | Inst::I64Mul { .. }
        | Inst::U64Div { .. }
        | Inst::U64Rem { .. }
        | Inst::I64Div { .. }
        | Inst::I64Rem { .. }
        | Inst::I64Shl { .. }
        | Inst::U64Shr { .. }
        | Inst::I64Shr { .. }
        | Inst::I64Cmp { .. }
        | Inst::I64Min { .. }
        | Inst::I64Max { .. }
        | Inst::U64Min { .. }
        | Inst::U64Max { .. }
        | Inst::CountBits64 { .. }
        | Inst::FirstBitHi64 { .. }
        | Inst::FirstBitLo64 { .. }
        | Inst::FirstBitShi64 { .. }
        | Inst::Bfrev64 { .. } => Interpreted,
        // 16-bit float results: the profile's fp16 rule.
        Inst::F32ToF16 { .. } => Interpreted,
        // Other lanes, the wave's or group's state, stage inputs and outputs.
        Inst::Deriv { .. }
        | Inst::SysValue { .. }
        | Inst::GroupIndex { .. }
        | Inst::LaneIndex { .. }
        | Inst::LaneCount { .. }
        | Inst::WaveReduce { .. }
        | Inst::WavePrefix { .. }
        | Inst::WaveAnyTrue { .. }
        | Inst::WaveAllTrue { .. }
        | Inst::WaveAllEqual { .. }
        | Inst::WaveBallot { .. }
        | Inst::WaveCountBits { .. }
        | Inst::WavePrefixCountBits { .. }
        | Inst::WaveReadLane { .. }
        | Inst::WaveReadFirst { .. }
        | Inst::WaveIsFirstLane { .. }
        | Inst::WaveMatch { .. }
        | Inst::WaveMultiPrefix { .. }
        | Inst::WaveMultiPrefixCountBits { .. }
        | Inst::QuadReadLane { .. }
        | Inst::QuadSwap { .. }
        | Inst::QuadVote { .. }
        | Inst::Input { .. }
        | Inst::InputIndexed { .. }
        | Inst::Output { .. }
        | Inst::OutputIndexed { .. }
        | Inst::Emit { .. }
        | Inst::Cut { .. }
        | Inst::MeshCounts { .. }
        | Inst::MeshIndices { .. }
        | Inst::MeshVertexOut { .. }
        | Inst::MeshPrimOut { .. }
        | Inst::DispatchMesh { .. }
        | Inst::Eval { .. }
        | Inst::RasterSampleCount { .. }
        | Inst::RasterSamplePos { .. }
        | Inst::Barrier { .. }
        | Inst::Discard { .. }
        | Inst::Demote { .. }
        | Inst::IsHelper { .. }
        | Inst::CycleCounter { .. } => Interpreted,
        // Memory, resources and sampling.
        Inst::LocalLoad { .. }
        | Inst::LocalStore { .. }
        | Inst::ConstLoad { .. }
        | Inst::SharedLoad { .. }
        | Inst::SharedStore { .. }
        | Inst::SharedAtomic { .. }
        | Inst::SharedCmpXchg { .. }
        | Inst::SharedAtomic64 { .. }
        | Inst::SharedCmpXchg64 { .. }
        | Inst::Handle { .. }
        | Inst::HeapHandle { .. }
        | Inst::RayGet { .. }
        | Inst::RayTrace { .. }
        | Inst::RayCall { .. }
        | Inst::RayReportHit { .. }
        | Inst::RayHitEnd { .. }
        | Inst::RayQueryAlloc { .. }
        | Inst::RayQueryTrace { .. }
        | Inst::RayQueryProceed { .. }
        | Inst::RayQueryControl { .. }
        | Inst::RayQueryGet { .. }
        | Inst::HitObjectTrace { .. }
        | Inst::HitObjectMiss { .. }
        | Inst::HitObjectNop { .. }
        | Inst::HitObjectFromQuery { .. }
        | Inst::HitObjectFromQueryAttrs { .. }
        | Inst::HitObjectSetIndex { .. }
        | Inst::HitObjectInvoke { .. }
        | Inst::HitObjectGet { .. }
        | Inst::HitObjectLoadLocal { .. }
        | Inst::HitObjectAttributes { .. }
        | Inst::RawLoad { .. }
        | Inst::RawStore { .. }
        | Inst::StructLoad { .. }
        | Inst::StructStore { .. }
        | Inst::TypedLoad { .. }
        | Inst::TypedStore { .. }
        | Inst::ResAtomic { .. }
        | Inst::ResCmpXchg { .. }
        | Inst::ResAtomic64 { .. }
        | Inst::ResCmpXchg64 { .. }
        | Inst::CounterInc { .. }
        | Inst::CounterDec { .. }
        | Inst::CbLoad { .. }
        | Inst::Dimensions { .. }
        | Inst::SampleCount { .. }
        | Inst::SamplePos { .. }
        | Inst::Sample { .. }
        | Inst::Gather { .. }
        | Inst::GatherRaw { .. }
        | Inst::WriteFeedback { .. }
        | Inst::Lod { .. } => Interpreted,
    }
}

/// Whether the native engine compiles `inst` ([`native`]).
pub fn compilable(inst: &Inst) -> bool {
    native(inst) != Native::Interpreted
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

#[cfg(test)]
mod tests {
    use super::*;

    /// The instructions the engine compiled before [`native`] was an exhaustive match
    /// (the list it replaced, kept as data).
    const COMPILED: &[&str] = &[
        "mov",
        "select",
        "fadd",
        "fsub",
        "fmul",
        "fdiv",
        "frem",
        "fmin",
        "fmax",
        "fmad",
        "fmad_precise",
        "ffma",
        "funary",
        "fcmp",
        "ftest",
        "ftoi",
        "ftou",
        "itof",
        "utof",
        "f32tof16",
        "f16tof32",
        "sext",
        "iadd",
        "isub",
        "imul",
        "imulhi",
        "umulhi",
        "imad",
        "udiv",
        "urem",
        "idiv",
        "irem",
        "ineg",
        "imin",
        "imax",
        "umin",
        "umax",
        "and",
        "or",
        "xor",
        "not",
        "shl",
        "ushr",
        "ishr",
        "icmp",
        "bfi",
        "ubfe",
        "ibfe",
        "bfrev",
        "countbits",
        "firstbit_hi",
        "firstbit_lo",
        "firstbit_shi",
        "uaddc",
        "usubb",
        "msad",
    ];

    /// Of those, the ones emitted as calls of a float rule: these, and every `funary`
    /// function but the ones below.
    const FLOAT_RULES: &[&str] = &["frem", "f32tof16", "f16tof32"];

    /// The `funary` functions emitted as native code.
    const INLINE_FUNARY: &[FUnOp] = &[
        FUnOp::Sqrt,
        FUnOp::Rcp,
        FUnOp::RoundNe,
        FUnOp::Floor,
        FUnOp::Ceil,
        FUnOp::Trunc,
        FUnOp::Frac,
        FUnOp::Sat,
    ];

    /// Every instruction (with every value of its enum fields) is run as before.
    #[test]
    fn every_instruction_runs_as_pinned() {
        let examples = Inst::examples();
        assert!(examples.len() > Inst::MNEMONICS.len());
        for i in &examples {
            let m = i.mnemonic();
            let want = if !COMPILED.contains(&m) {
                Native::Interpreted
            } else if FLOAT_RULES.contains(&m)
                || matches!(i, Inst::FUnary { op, .. } if !INLINE_FUNARY.contains(op))
            {
                Native::FloatRule
            } else {
                Native::Inline
            };
            assert_eq!(native(i), want, "{i}");
            assert_eq!(compilable(i), want != Native::Interpreted, "{i}");
        }
    }
}
