//! The interpreter IR that both DXBC and DXIL programs are lowered to.
//!
//! Owns: the instruction set ([`Inst`], one documented variant per operation, declared
//! with its properties in one table in `inst.rs`), the shader container ([`Shader`]: blocks, registers,
//! memories, resource ranges, source map), the control-flow analyses that order blocks
//! for reconvergence ([`cfg`](mod@cfg)), the text form ([`parse_shader`] and `Display`), the
//! [`Builder`] the lowerings use, and the [`validate`](fn@validate) check. Knows nothing of DXBC,
//! DXIL or execution; depends on nothing else in the crate.
//!
//! # Registers
//!
//! A register is a numbered 32-bit slot with one value per lane. Registers are mutable
//! (not SSA): DXBC temporaries and DXIL SSA values both map onto them, and DXIL phis
//! become copies on the incoming edges. Registers are untyped bags of bits, as DXBC's
//! are; each instruction says how it reads them (`fadd` reads floats, `iadd` integers).
//! A 64-bit value (double, 64-bit integer) occupies two consecutive registers, low half
//! first, and the instruction names the first. A 16-bit value lives in the low half of
//! a register. Booleans are `0` or `0xffff_ffff`; conditions test `!= 0`.
//!
//! Registers `0..consts.len()` are *constants*: set to [`Shader::consts`] in every lane
//! before the first instruction and never written. Instructions take registers only;
//! an immediate operand is a constant register, so every handler reads all operands the
//! same way.
//!
//! # Blocks, terminators, reconvergence
//!
//! Instructions sit in basic blocks ([`Block`]), each ending in a [`Terminator`]: jump,
//! branch, switch, return or unreachable. Block 0 is the entry. A wave runs its lanes
//! together; when they branch apart, execution continues with the lowest-numbered block
//! some lane waits at, so with blocks in a *structured order* (see [`cfg`](mod@cfg)) the lanes
//! reconverge at each branch's immediate post-dominator — where wave operations expect
//! them. The [`Builder`] computes that order; [`validate`](fn@validate) checks it.
//!
//! # Memory and resources
//!
//! Per-lane arrays ([`LocalArray`]: DXBC indexable temps, DXIL allocas), read-only shared
//! arrays ([`ConstArray`]: immediate constant buffers, constant globals), group shared
//! memory (`groupshared_bytes`) and resources are all addressed in bytes, and every
//! access is robust: out of bounds reads give 0, writes are dropped. Resources are
//! reached through *handles*: a register whose per-lane value names one descriptor,
//! made by [`Inst::Handle`] from a declared [`ResourceRange`] (and an array index), or
//! by [`Inst::HeapHandle`] from the SM 6.6 descriptor heaps.
//!
//! # Stage inputs and outputs
//!
//! Vertex and pixel shaders read their signature elements and system values from
//! per-lane *input words* and write *output words* ([`io`]): `input`/`output` name a word,
//! `input_indexed`/`output_indexed` a row chosen at run time, and `eval` asks the pipeline
//! for a pixel input interpolated somewhere other than its declared mode's position.
//! [`Shader::inputs`] and [`Shader::outputs`] describe each element (semantic, system
//! value, signature register, rows, mask, type, interpolation) and the words it occupies,
//! which is all the pipeline needs to feed one stage from the last.
//!
//! # Source map
//!
//! Every instruction and terminator carries a [`SourceLoc`]: the DXBC instruction (index
//! and token offset) or the DXIL function and instruction it came from, so the debugger
//! and error messages can point at the original program.

pub mod builder;
pub mod cfg;
mod ids;
mod inst;
pub mod io;
mod operand;
pub mod opt;
pub mod parse;
mod print;
mod props;
mod shader;
pub mod validate;

pub use builder::{BuildError, Builder};
pub use ids::{BlockId, ConstId, InstId, LocalId, RangeId, Reg};
pub use inst::{
    AtomicOp, DerivKind, FClass, FCond, FUnOp, HitObjectValue, ICond, Inst, MAKE_MISS_ARGS,
    MAX_HIT_OBJECT_SLOTS, MAX_RAY_QUERY_SLOTS, QuadDir, RayHitOp, RayQueryOp, RayQueryValue,
    RaySystemValue, SampleArgs, SampleMode, SysVec, TRACE_RAY_ARGS, WaveOp, WaveTy, Width,
};
pub use io::{
    DomainState, EvalAt, GeometryState, GsInput, GsOutput, HullState, Interp, IoElement,
    MAX_RAY_ATTRIBUTE_BYTES, MAX_RAY_PAYLOAD_BYTES, MESH_STATUS_WORDS, MeshFault, MeshRegion,
    MeshState, MeshTopology, RayState, SysValue, TessDomain, TessOutput, TessPartitioning,
    hull_phase,
};
pub use operand::Role;
pub use parse::{ParseError, parse_shader};
pub use print::WithLocs;
pub use props::{Lanes, Pairs, ProfileRules, ValueType};
pub use shader::{
    Block, ComponentType, ConstArray, DenormMode, LocalArray, ResourceClass, ResourceKind,
    ResourceRange, Shader, SourceLoc, SourceVar, Stage, Terminator, VarKey, WaveSizeReq,
};
pub use validate::{ValidateError, validate};

#[cfg(test)]
mod tests {
    use super::*;

    /// The text form reads back what it prints, for every operand kind.
    #[test]
    fn text_form_round_trips() {
        let text = r#"shader compute
entry "main"
group [8 4 1]
wave_size 8 32 16
fp32 preserve
regs 40
const r0 = 0x3    ; 3
const r1 = 0x3f800000    ; 1065353216 1.0
local x0 64 "tmp"
constarray icb0 [0x1 0x2 0x3]
groupshared 256
heap resource
resource range0 = uav space 0 lower 0 count 1 structured_buffer(stride 4) uint counter "out"    ; u0
resource range1 = srv space 2 lower 3 count unbounded texture2d float "tex"    ; t3.., space2
resource range2 = sampler space 0 lower 0 count 1 sampler(comparison) mixed
block0:
    sysval thread_id, 0, r2
    fadd r3, r2, r1
    funary sqrt, r4, r3
    fcmp lt, r5, r3, r4
    dadd r6, r8, r10
    local_store b32, 5, x0, r2, 4, [r3 _ r4 _]
    const_load b32, 1, [r12 _ _ _], icb0, r2, 0
    handle r13, range0, r0
    heap_handle false, r14, r2
    struct_store b32, 1, r13, r2, r0, [r3 _ _ _]
    typed_load [r15 r16 r17 r18], r14, [r2 r2 _], r0, _, (1 -1 0), _
    res_atomic add, _, r13, [r2 _ _], r3
    wave_reduce sum, f32, r19, r3
    wave_multi_prefix sum, u32, r20, r3, [r21 r22 r23 r24]
    quad_swap diag, false, r25, r3
    sample implicit, [r26 r27 r28 r29], r14, r13, [r2 r3 _ _], (0 0 0), [_ _], _, _, [_ _ _], [_ _ _], _, _
    barrier true, true, false
    branch r5, block1, block2
block1:
    switch r2, [0: block2, 7: block2], block2
block2:
    return
"#;
        let s = parse_shader(text).unwrap();
        validate(&s).unwrap();
        let printed = s.to_string();
        let again = parse_shader(&printed).unwrap();
        assert_eq!(s, again, "{printed}");
        assert_eq!(printed, again.to_string());
    }

    /// Keep instructions small: the interpreter walks arrays of them.
    #[test]
    fn inst_size() {
        assert!(
            std::mem::size_of::<Inst>() <= 48,
            "{}",
            std::mem::size_of::<Inst>()
        );
    }
}
