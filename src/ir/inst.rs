//! Every IR instruction, with its semantics as a lane formula.
//!
//! Notation: for each *active* lane `l`, `a` means `a[l]`, the 32 bits of register `a`
//! in lane `l`; `a:64` means the 64-bit value in registers `a` (low half) and `a+1` (high
//! half); `f32(a)`, `f64(a)`, `i32(a)` read those bits as that type. Inactive lanes'
//! registers are never written. Booleans are `0` (false) and `0xffff_ffff` (true), as in
//! DXBC; a condition operand tests `!= 0`.
//!
//! Float rules (denormal flushing, NaN handling of min/max, conversion saturation, and
//! which [`Profile`](crate::exec) choices apply) live in `exec::float`; each
//! instruction's doc says which rule applies.
//!
//! The table at the bottom of this file is the one place an instruction is declared: the
//! enum, its mnemonic, the printer, the parser, the register visitor and the properties
//! are all derived from it. Each row is
//!
//! ```text
//! Variant "mnemonic" { field: Type = Role, … }
//!     [effects: …, lanes: …, result: …, rules: […], handles: […], pairs: …],
//! ```
//!
//! where the role (`R`, `W`, `R64`, `W64`, `N`) says how a register field is used, and
//! every column in brackets must be stated, in this order (a row that leaves one out does
//! not compile; the types are in `props.rs`):
//!
//! - `effects: yes | no` — whether it does anything besides writing its result
//!   registers: writes memory or a stage output, synchronises, ends or demotes lanes
//!   ([`Inst::effects`]; dead-code removal keeps it).
//! - `lanes: own | quad | wave` — which lanes' values it reads besides its own
//!   ([`Inst::lanes`]; decides how lanes may be batched into waves). `quad if <cond>` when
//!   a field decides (own lanes otherwise).
//! - `result: bits | f32 | i32 | u32 | bool | f64 | i64` — the type it gives the registers
//!   it writes, as the debugger prints them ([`Inst::result_type`]).
//! - `rules: [fuse_mad, wave_read_inactive, f16, fp32_denormals]` — which of the WARP
//!   profile's release-dependent rules its result depends on, any of them, each
//!   optionally `if <cond>` ([`Inst::profile_rules`]; `capture::explain` tries those).
//! - `handles: [<expr>, …]` — up to three handle operands through which it reads, writes,
//!   queries or samples a descriptor ([`Inst::handles`]; the unbound-descriptor check
//!   reads them).
//! - `pairs: none | writes if <cond> | reads(<field>) if <cond> | both(<field>) if <cond>`
//!   — register operands that hold 64-bit pairs although their role is 32-bit, because
//!   another field gives their width ([`Inst::pairs`]; the debugger's record of a step).
//!
//! A condition is a Rust expression over the row's fields, bound by reference
//! (`*width == Width::B64`, `mode.implicit_lod()`). Whether the native engine compiles
//! an instruction is not a column: that is the engine's decision, an exhaustive match in
//! `exec::jit::select`.

use std::fmt;

use super::ids::{ConstId, LocalId, RangeId, Reg};
use super::io::EvalAt;
use super::operand::{Operand, Role, word_enum};
use super::parse::{ParseError, Tokens};
use super::props::{AsRegs, Lanes, Pairs, ProfileRules, ValueType};

word_enum!(
    /// A floating-point comparison (LLVM `fcmp` predicates; DXBC `eq`/`ne`/`lt`/`ge`).
    /// Ordered comparisons are false when either operand is NaN; unordered ones true.
    FCond {
        /// Ordered equal (DXBC `eq`).
        Eq = "eq",
        /// Unordered not-equal (DXBC `ne`: NaN != x is true).
        Ne = "ne",
        /// Ordered less-than (DXBC `lt`).
        Lt = "lt",
        /// Ordered less-or-equal.
        Le = "le",
        /// Ordered greater-than.
        Gt = "gt",
        /// Ordered greater-or-equal (DXBC `ge`).
        Ge = "ge",
        /// Ordered not-equal (LLVM `one`).
        OrdNe = "one",
        /// Unordered equal (LLVM `ueq`).
        UnordEq = "ueq",
        /// Unordered less-than.
        UnordLt = "ult",
        /// Unordered less-or-equal.
        UnordLe = "ule",
        /// Unordered greater-than.
        UnordGt = "ugt",
        /// Unordered greater-or-equal.
        UnordGe = "uge",
        /// Neither is NaN (LLVM `ord`).
        Ord = "ord",
        /// Either is NaN (LLVM `uno`).
        Uno = "uno",
        /// Always false.
        False = "false",
        /// Always true.
        True = "true",
    }
);

word_enum!(
    /// An integer comparison.
    ICond {
        /// Equal.
        Eq = "eq",
        /// Not equal.
        Ne = "ne",
        /// Signed less-than.
        SLt = "slt",
        /// Signed less-or-equal.
        SLe = "sle",
        /// Signed greater-than.
        SGt = "sgt",
        /// Signed greater-or-equal.
        SGe = "sge",
        /// Unsigned less-than.
        ULt = "ult",
        /// Unsigned less-or-equal.
        ULe = "ule",
        /// Unsigned greater-than.
        UGt = "ugt",
        /// Unsigned greater-or-equal.
        UGe = "uge",
    }
);

word_enum!(
    /// A unary float function on 32-bit floats.
    FUnOp {
        /// Square root (DXBC `sqrt`, dx.op `Sqrt`).
        Sqrt = "sqrt",
        /// Reciprocal square root (DXBC `rsq`, dx.op `Rsqrt`).
        Rsq = "rsq",
        /// Reciprocal (DXBC `rcp`).
        Rcp = "rcp",
        /// 2^x (DXBC `exp`, dx.op `Exp`).
        Exp2 = "exp2",
        /// log2(x) (DXBC `log`, dx.op `Log`).
        Log2 = "log2",
        /// Sine (DXBC `sincos`, dx.op `Sin`).
        Sin = "sin",
        /// Cosine.
        Cos = "cos",
        /// Tangent (dx.op `Tan`).
        Tan = "tan",
        /// Arc sine (dx.op `Asin`).
        Asin = "asin",
        /// Arc cosine.
        Acos = "acos",
        /// Arc tangent.
        Atan = "atan",
        /// Hyperbolic sine (dx.op `Hsin`).
        Sinh = "sinh",
        /// Hyperbolic cosine.
        Cosh = "cosh",
        /// Hyperbolic tangent.
        Tanh = "tanh",
        /// Round to nearest even (DXBC `round_ne`).
        RoundNe = "round_ne",
        /// Round toward -inf (DXBC `round_ni`).
        Floor = "floor",
        /// Round toward +inf (DXBC `round_pi`).
        Ceil = "ceil",
        /// Round toward zero (DXBC `round_z`).
        Trunc = "trunc",
        /// x - floor(x) (DXBC `frc`).
        Frac = "frac",
        /// Clamp to [0, 1], NaN → 0 (DXBC `_sat`, dx.op `Saturate`; D3D11.3 §3.1.2).
        Sat = "sat",
    }
);

word_enum!(
    /// A float classification test (dx.op `IsNaN`, `IsInf`, `IsFinite`, `IsNormal`).
    FClass {
        /// NaN.
        Nan = "nan",
        /// ±infinity.
        Inf = "inf",
        /// Neither NaN nor infinite.
        Finite = "finite",
        /// Normal (not zero, denormal, infinite or NaN).
        Normal = "normal",
    }
);

word_enum!(
    /// A read-modify-write atomic operation (DXBC `atomic_*`/`imm_atomic_*`, dx.op
    /// `AtomicBinOp`, LLVM `atomicrmw`).
    AtomicOp {
        /// Add (wrapping).
        Add = "add",
        /// Bitwise and.
        And = "and",
        /// Bitwise or.
        Or = "or",
        /// Bitwise xor.
        Xor = "xor",
        /// Signed minimum.
        IMin = "imin",
        /// Signed maximum.
        IMax = "imax",
        /// Unsigned minimum.
        UMin = "umin",
        /// Unsigned maximum.
        UMax = "umax",
        /// Exchange.
        Exchange = "xchg",
        /// Subtract (LLVM `atomicrmw sub`).
        Sub = "sub",
    }
);

word_enum!(
    /// Access width of a memory operation: each component is this wide.
    Width {
        /// 16 bits, zero-extended into a 32-bit register (stores take the low half).
        B16 = "b16",
        /// 32 bits.
        B32 = "b32",
        /// 64 bits, in a register pair.
        B64 = "b64",
    }
);

word_enum!(
    /// A compute-stage system value with three axes.
    SysVec {
        /// `SV_DispatchThreadID` (DXBC `vThreadID`, dx.op `ThreadId`).
        ThreadId = "thread_id",
        /// `SV_GroupID` (DXBC `vThreadGroupID`, dx.op `GroupId`).
        GroupId = "group_id",
        /// `SV_GroupThreadID` (DXBC `vThreadIDInGroup`, dx.op `ThreadIdInGroup`).
        GroupThreadId = "group_thread_id",
    }
);

word_enum!(
    /// An arithmetic wave reduction or scan operation.
    WaveOp {
        /// Sum.
        Sum = "sum",
        /// Product.
        Product = "product",
        /// Minimum.
        Min = "min",
        /// Maximum.
        Max = "max",
        /// Bitwise and.
        And = "and",
        /// Bitwise or.
        Or = "or",
        /// Bitwise xor.
        Xor = "xor",
    }
);

word_enum!(
    /// The element type a wave operation works on.
    WaveTy {
        /// 16-bit float (computed in f32, result rounded to nearest even).
        F16 = "f16",
        /// 32-bit float.
        F32 = "f32",
        /// 64-bit float (register pairs).
        F64 = "f64",
        /// Signed 16-bit integer (low half of the register).
        I16 = "i16",
        /// Unsigned 16-bit integer.
        U16 = "u16",
        /// Signed 32-bit integer.
        I32 = "i32",
        /// Unsigned 32-bit integer.
        U32 = "u32",
        /// Signed 64-bit integer (register pairs).
        I64 = "i64",
        /// Unsigned 64-bit integer (register pairs).
        U64 = "u64",
    }
);

impl WaveTy {
    /// Whether values of this type occupy register pairs.
    pub fn is_wide(self) -> bool {
        matches!(self, WaveTy::F64 | WaveTy::I64 | WaveTy::U64)
    }
}

word_enum!(
    /// Which lanes a quad swap exchanges with.
    QuadDir {
        /// The horizontal neighbour (lane ^ 1).
        X = "x",
        /// The vertical neighbour (lane ^ 2).
        Y = "y",
        /// The diagonal neighbour (lane ^ 3).
        Diagonal = "diag",
    }
);

word_enum!(
    /// Which screen axis a derivative is taken along, and how finely.
    DerivKind {
        /// Coarse d/dx: the same value for the whole quad (top row).
        CoarseX = "coarse_x",
        /// Coarse d/dy: the same value for the whole quad (left column).
        CoarseY = "coarse_y",
        /// Fine d/dx: per row of the quad.
        FineX = "fine_x",
        /// Fine d/dy: per column of the quad.
        FineY = "fine_y",
    }
);

word_enum!(
    /// How a sample instruction picks its level of detail and compares.
    SampleMode {
        /// Implicit LOD from quad derivatives (DXBC `sample`).
        Implicit = "implicit",
        /// Implicit LOD plus a bias (DXBC `sample_b`).
        Bias = "bias",
        /// Explicit LOD (DXBC `sample_l`).
        Level = "level",
        /// Explicit gradients (DXBC `sample_d`).
        Grad = "grad",
        /// Comparison with implicit LOD (DXBC `sample_c`).
        Cmp = "cmp",
        /// Comparison at level 0 (DXBC `sample_c_lz`).
        CmpLevelZero = "cmp_lz",
        /// Comparison with explicit LOD (dx.op `SampleCmpLevel`).
        CmpLevel = "cmp_level",
        /// Comparison with implicit LOD plus a bias (dx.op `SampleCmpBias`).
        CmpBias = "cmp_bias",
        /// Comparison with explicit gradients (dx.op `SampleCmpGrad`).
        CmpGrad = "cmp_grad",
    }
);

impl SampleMode {
    /// Whether the mode compares against a reference value.
    pub fn compares(self) -> bool {
        matches!(
            self,
            SampleMode::Cmp
                | SampleMode::CmpLevelZero
                | SampleMode::CmpLevel
                | SampleMode::CmpBias
                | SampleMode::CmpGrad
        )
    }

    /// Whether the mode needs quad derivatives of the coordinates.
    pub fn implicit_lod(self) -> bool {
        matches!(
            self,
            SampleMode::Implicit | SampleMode::Bias | SampleMode::Cmp | SampleMode::CmpBias
        )
    }
}

word_enum!(
    /// What `rq_control` does to a ray query.
    RayQueryOp {
        /// `Abort()`: the query ends; `Proceed()` returns false from now on.
        Abort = "abort",
        /// `CommitNonOpaqueTriangleHit()`: the candidate triangle becomes the committed hit.
        CommitTriangle = "commit_triangle",
        /// `CommitProceduralPrimitiveHit(t)`: the candidate procedural primitive is
        /// committed at `t`.
        CommitProcedural = "commit_procedural",
    }
);

word_enum!(
    /// A value of a ray query's state that `rq_get` reads (HLSL's `RayQuery` methods).
    RayQueryValue {
        /// `CommittedStatus()` (`COMMITTED_STATUS`).
        CommittedStatus = "committed_status",
        /// `CandidateType()` (`CANDIDATE_TYPE`).
        CandidateType = "candidate_type",
        /// `CandidateObjectToWorld3x4()`.
        CandidateObjectToWorld = "candidate_object_to_world",
        /// `CandidateWorldToObject3x4()`.
        CandidateWorldToObject = "candidate_world_to_object",
        /// `CommittedObjectToWorld3x4()`.
        CommittedObjectToWorld = "committed_object_to_world",
        /// `CommittedWorldToObject3x4()`.
        CommittedWorldToObject = "committed_world_to_object",
        /// `CandidateProceduralPrimitiveNonOpaque()` (boolean).
        CandidateProceduralNonOpaque = "candidate_procedural_non_opaque",
        /// `CandidateTriangleFrontFace()` (boolean).
        CandidateFrontFace = "candidate_front_face",
        /// `CommittedTriangleFrontFace()` (boolean).
        CommittedFrontFace = "committed_front_face",
        /// `CandidateTriangleBarycentrics()` (x, y).
        CandidateBarycentrics = "candidate_barycentrics",
        /// `CommittedTriangleBarycentrics()` (x, y).
        CommittedBarycentrics = "committed_barycentrics",
        /// `RayFlags()`.
        RayFlags = "ray_flags",
        /// `WorldRayOrigin()`.
        WorldRayOrigin = "world_ray_origin",
        /// `WorldRayDirection()`.
        WorldRayDirection = "world_ray_direction",
        /// `RayTMin()`.
        RayTMin = "ray_t_min",
        /// `CandidateTriangleRayT()`.
        CandidateRayT = "candidate_ray_t",
        /// `CommittedRayT()`.
        CommittedRayT = "committed_ray_t",
        /// `CandidateInstanceIndex()`.
        CandidateInstanceIndex = "candidate_instance_index",
        /// `CandidateInstanceID()`.
        CandidateInstanceId = "candidate_instance_id",
        /// `CandidateGeometryIndex()`.
        CandidateGeometryIndex = "candidate_geometry_index",
        /// `CandidatePrimitiveIndex()`.
        CandidatePrimitiveIndex = "candidate_primitive_index",
        /// `CandidateObjectRayOrigin()`.
        CandidateObjectRayOrigin = "candidate_object_ray_origin",
        /// `CandidateObjectRayDirection()`.
        CandidateObjectRayDirection = "candidate_object_ray_direction",
        /// `CommittedInstanceIndex()`.
        CommittedInstanceIndex = "committed_instance_index",
        /// `CommittedInstanceID()`.
        CommittedInstanceId = "committed_instance_id",
        /// `CommittedGeometryIndex()`.
        CommittedGeometryIndex = "committed_geometry_index",
        /// `CommittedPrimitiveIndex()`.
        CommittedPrimitiveIndex = "committed_primitive_index",
        /// `CommittedObjectRayOrigin()`.
        CommittedObjectRayOrigin = "committed_object_ray_origin",
        /// `CommittedObjectRayDirection()`.
        CommittedObjectRayDirection = "committed_object_ray_direction",
        /// `CandidateInstanceContributionToHitGroupIndex()`.
        CandidateContribution = "candidate_contribution",
        /// `CommittedInstanceContributionToHitGroupIndex()`.
        CommittedContribution = "committed_contribution",
    }
);

word_enum!(
    /// How an any-hit program ends early (`rt_hit_end`).
    RayHitOp {
        /// `IgnoreHit()`: the candidate hit is not committed; traversal goes on.
        Ignore = "ignore",
        /// `AcceptHitAndEndSearch()`: the hit is committed and traversal ends.
        AcceptAndEnd = "accept_and_end",
    }
);

word_enum!(
    /// A system value of a ray-tracing program that `rt_get` reads (DXR spec "System
    /// value intrinsics"; dx.ops 141–154, 161, 213).
    RaySystemValue {
        /// `DispatchRaysIndex()` (x, y, z).
        DispatchRaysIndex = "dispatch_rays_index",
        /// `DispatchRaysDimensions()` (x, y, z).
        DispatchRaysDimensions = "dispatch_rays_dimensions",
        /// `WorldRayOrigin()`.
        WorldRayOrigin = "world_ray_origin",
        /// `WorldRayDirection()`.
        WorldRayDirection = "world_ray_direction",
        /// `ObjectRayOrigin()`.
        ObjectRayOrigin = "object_ray_origin",
        /// `ObjectRayDirection()`.
        ObjectRayDirection = "object_ray_direction",
        /// `ObjectToWorld3x4()` (row · 4 + column; HLSL's 4×3 form is its transpose).
        ObjectToWorld = "object_to_world",
        /// `WorldToObject3x4()`.
        WorldToObject = "world_to_object",
        /// `RayTMin()`.
        RayTMin = "ray_t_min",
        /// `RayTCurrent()`: the closest committed `t` so far (intersection and any-hit),
        /// the hit's `t` (closest-hit), `TMax` (miss).
        RayTCurrent = "ray_t_current",
        /// `RayFlags()`: the flags `TraceRay` was given.
        RayFlags = "ray_flags",
        /// `InstanceIndex()`.
        InstanceIndex = "instance_index",
        /// `InstanceID()`.
        InstanceId = "instance_id",
        /// `PrimitiveIndex()`.
        PrimitiveIndex = "primitive_index",
        /// `GeometryIndex()`.
        GeometryIndex = "geometry_index",
        /// `HitKind()`.
        HitKind = "hit_kind",
    }
);

impl RaySystemValue {
    /// How many components the value has: 12 for a 3×4 matrix, 3 for a vector, 1 for a
    /// scalar (`rt_get`'s `index` is below it).
    pub fn components(self) -> u8 {
        use RaySystemValue as V;
        match self {
            V::ObjectToWorld | V::WorldToObject => 12,
            V::DispatchRaysIndex
            | V::DispatchRaysDimensions
            | V::WorldRayOrigin
            | V::WorldRayDirection
            | V::ObjectRayOrigin
            | V::ObjectRayDirection => 3,
            _ => 1,
        }
    }

    /// Whether a program of `stage` may read the value (DXR spec "System value
    /// intrinsics", its table of shader types per intrinsic).
    pub fn available_in(self, stage: super::Stage) -> bool {
        use super::Stage as S;
        use RaySystemValue as V;
        match self {
            V::DispatchRaysIndex | V::DispatchRaysDimensions => stage.is_ray_tracing(),
            V::WorldRayOrigin
            | V::WorldRayDirection
            | V::RayTMin
            | V::RayTCurrent
            | V::RayFlags => {
                matches!(stage, S::Intersection | S::AnyHit | S::ClosestHit | S::Miss)
            }
            V::ObjectRayOrigin
            | V::ObjectRayDirection
            | V::ObjectToWorld
            | V::WorldToObject
            | V::InstanceIndex
            | V::InstanceId
            | V::PrimitiveIndex
            | V::GeometryIndex => matches!(stage, S::Intersection | S::AnyHit | S::ClosestHit),
            V::HitKind => matches!(stage, S::AnyHit | S::ClosestHit),
        }
    }
}

word_enum!(
    /// A value of a hit object that `ho_get` reads (SM 6.9 `HitObject` accessors,
    /// dx.ops 269–286).
    HitObjectValue {
        /// `IsMiss()` (boolean).
        IsMiss = "is_miss",
        /// `IsHit()` (boolean).
        IsHit = "is_hit",
        /// `IsNop()` (boolean).
        IsNop = "is_nop",
        /// `GetRayFlags()`.
        RayFlags = "ray_flags",
        /// `GetRayTMin()`.
        RayTMin = "ray_t_min",
        /// `GetRayTCurrent()`: the hit's `t`, `TMax` for a miss.
        RayTCurrent = "ray_t_current",
        /// `GetWorldRayOrigin()`.
        WorldRayOrigin = "world_ray_origin",
        /// `GetWorldRayDirection()`.
        WorldRayDirection = "world_ray_direction",
        /// `GetObjectRayOrigin()` (a miss: the world origin).
        ObjectRayOrigin = "object_ray_origin",
        /// `GetObjectRayDirection()` (a miss: the world direction).
        ObjectRayDirection = "object_ray_direction",
        /// `GetObjectToWorld3x4()` (row · 4 + column; identity when not a hit).
        ObjectToWorld = "object_to_world",
        /// `GetWorldToObject3x4()` (identity when not a hit).
        WorldToObject = "world_to_object",
        /// `GetGeometryIndex()`.
        GeometryIndex = "geometry_index",
        /// `GetInstanceIndex()`.
        InstanceIndex = "instance_index",
        /// `GetInstanceID()`.
        InstanceId = "instance_id",
        /// `GetPrimitiveIndex()`.
        PrimitiveIndex = "primitive_index",
        /// `GetHitKind()`.
        HitKind = "hit_kind",
        /// `GetShaderTableIndex()`: the hit group or miss record the object names.
        ShaderTableIndex = "shader_table_index",
    }
);

impl HitObjectValue {
    /// How many components the value has: 12 for a 3×4 matrix, 3 for a vector, 1 for a
    /// scalar (`ho_get`'s `index` is below it).
    pub fn components(self) -> u8 {
        use HitObjectValue as V;
        match self {
            V::ObjectToWorld | V::WorldToObject => 12,
            V::WorldRayOrigin
            | V::WorldRayDirection
            | V::ObjectRayOrigin
            | V::ObjectRayDirection => 3,
            _ => 1,
        }
    }
}

/// The most hit-object slots (`ho_trace`, `ho_miss`, `ho_nop`, `ho_from_query`,
/// `ho_set_index` sites) a program may have (`ir::validate` checks it): each is one hit
/// object per lane while the program runs.
pub const MAX_HIT_OBJECT_SLOTS: u32 = 256;

/// The operands of `HitObject::MakeMiss`, in dx.op order: ray flags, `MissShaderIndex`,
/// then the `RayDesc`: origin x, y, z, `TMin`, direction x, y, z, `TMax`.
pub const MAKE_MISS_ARGS: usize = 10;

/// The operands of `TraceRay` after the structure, in dx.op order: ray flags, instance
/// inclusion mask, `RayContributionToHitGroupIndex`,
/// `MultiplierForGeometryContributionToHitGroupIndex`, `MissShaderIndex`, then the
/// `RayDesc`: origin x, y, z, `TMin`, direction x, y, z, `TMax`.
pub const TRACE_RAY_ARGS: usize = 13;

/// The most `rq_alloc` slots a program may have (`ir::validate` checks it): each is one
/// query per lane while the program runs.
pub const MAX_RAY_QUERY_SLOTS: u32 = 256;

impl RayQueryValue {
    /// How many components the value has: 12 for a 3×4 matrix, 3 for a vector, 2 for
    /// barycentrics, 1 for a scalar (`rq_get`'s `index` is below it).
    pub fn components(self) -> u8 {
        use RayQueryValue as V;
        match self {
            V::CandidateObjectToWorld
            | V::CandidateWorldToObject
            | V::CommittedObjectToWorld
            | V::CommittedWorldToObject => 12,
            V::CandidateBarycentrics | V::CommittedBarycentrics => 2,
            V::WorldRayOrigin
            | V::WorldRayDirection
            | V::CandidateObjectRayOrigin
            | V::CandidateObjectRayDirection
            | V::CommittedObjectRayOrigin
            | V::CommittedObjectRayDirection => 3,
            _ => 1,
        }
    }
}

/// The operands of a sample or gather instruction, boxed to keep [`Inst`] small.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SampleArgs {
    /// Results: four 32-bit components (gather: the four texels' chosen component).
    pub dst: [Reg; 4],
    /// The texture handle.
    pub texture: Reg,
    /// The sampler handle.
    pub sampler: Reg,
    /// Coordinates: u, v, w (or cube direction), then array index; unused ones are `_`.
    pub coord: [Reg; 4],
    /// Immediate texel offsets (u, v, w).
    pub offset: [i8; 3],
    /// Programmable offsets (gather with per-lane offsets), or `_`.
    pub dyn_offset: [Reg; 2],
    /// Bias or explicit LOD (by mode), or `_`.
    pub lod: Reg,
    /// Comparison reference value (comparison modes), or `_`.
    pub reference: Reg,
    /// Gradients d/dx (u, v, w) for [`SampleMode::Grad`], or `_`.
    pub ddx: [Reg; 3],
    /// Gradients d/dy (u, v, w).
    pub ddy: [Reg; 3],
    /// Minimum LOD clamp, or `_`.
    pub clamp: Reg,
    /// Residency status result (`CheckAccessFullyMapped` input), or `_`.
    pub status: Reg,
}

impl Operand for Box<SampleArgs> {
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let a = &**self;
        a.dst.print(f)?;
        write!(f, ", {}, {}, ", a.texture, a.sampler)?;
        a.coord.print(f)?;
        f.write_str(", ")?;
        a.offset.print(f)?;
        f.write_str(", ")?;
        a.dyn_offset.print(f)?;
        f.write_str(", ")?;
        a.lod.print(f)?;
        f.write_str(", ")?;
        a.reference.print(f)?;
        f.write_str(", ")?;
        a.ddx.print(f)?;
        f.write_str(", ")?;
        a.ddy.print(f)?;
        f.write_str(", ")?;
        a.clamp.print(f)?;
        f.write_str(", ")?;
        a.status.print(f)
    }
    fn parse(t: &mut Tokens<'_>) -> Result<Self, ParseError> {
        let dst = Operand::parse(t)?;
        t.expect(",")?;
        let texture = Reg::parse(t)?;
        t.expect(",")?;
        let sampler = Reg::parse(t)?;
        t.expect(",")?;
        let coord = Operand::parse(t)?;
        t.expect(",")?;
        let offset = Operand::parse(t)?;
        t.expect(",")?;
        let dyn_offset = Operand::parse(t)?;
        t.expect(",")?;
        let lod = Reg::parse(t)?;
        t.expect(",")?;
        let reference = Reg::parse(t)?;
        t.expect(",")?;
        let ddx = Operand::parse(t)?;
        t.expect(",")?;
        let ddy = Operand::parse(t)?;
        t.expect(",")?;
        let clamp = Reg::parse(t)?;
        t.expect(",")?;
        let status = Reg::parse(t)?;
        Ok(Box::new(SampleArgs {
            dst,
            texture,
            sampler,
            coord,
            offset,
            dyn_offset,
            lod,
            reference,
            ddx,
            ddy,
            clamp,
            status,
        }))
    }
    fn visit(&self, _role: Role, v: &mut dyn FnMut(Role, Reg)) {
        let a = &**self;
        a.dst.visit(Role::Write, v);
        for r in [a.texture, a.sampler, a.lod, a.reference, a.clamp] {
            r.visit(Role::Read, v);
        }
        a.coord.visit(Role::Read, v);
        a.dyn_offset.visit(Role::Read, v);
        a.ddx.visit(Role::Read, v);
        a.ddy.visit(Role::Read, v);
        a.status.visit(Role::Write, v);
    }
    fn visit_mut(&mut self, _role: Role, v: &mut dyn FnMut(Role, &mut Reg)) {
        let a = &mut **self;
        a.dst.visit_mut(Role::Write, v);
        for r in [
            &mut a.texture,
            &mut a.sampler,
            &mut a.lod,
            &mut a.reference,
            &mut a.clamp,
        ] {
            r.visit_mut(Role::Read, v);
        }
        a.coord.visit_mut(Role::Read, v);
        a.dyn_offset.visit_mut(Role::Read, v);
        a.ddx.visit_mut(Role::Read, v);
        a.ddy.visit_mut(Role::Read, v);
        a.status.visit_mut(Role::Write, v);
    }
}

#[cfg(test)]
impl super::props::Example for Box<SampleArgs> {
    fn example(next: &mut u32) -> Self {
        use super::props::Example;
        Box::new(SampleArgs {
            dst: Example::example(next),
            texture: Example::example(next),
            sampler: Example::example(next),
            coord: Example::example(next),
            offset: [0; 3],
            dyn_offset: Example::example(next),
            lod: Example::example(next),
            reference: Example::example(next),
            ddx: Example::example(next),
            ddy: Example::example(next),
            clamp: Example::example(next),
            status: Example::example(next),
        })
    }
}

/// Declares the instruction enum and derives its mnemonic, printer, parser, register
/// visitors and properties from one table.
macro_rules! instructions {
    ($(
        $(#[$doc:meta])*
        $name:ident $mnemonic:literal { $($field:ident : $fty:ty = $role:ident),* $(,)? }
        [
            effects: $effects:ident,
            lanes: $lanes:ident $(if $lanes_if:expr)?,
            result: $result:ident,
            rules: [$($rule:ident $(if $rule_if:expr)?),* $(,)?],
            handles: [$($handle:expr),* $(,)?],
            pairs: $pairs:ident $(($pairs_of:expr))? $(if $pairs_if:expr)? $(,)?
        ]
    ),* $(,)?) => {
        /// An IR instruction. See the module documentation for the notation.
        #[derive(Debug, Clone, PartialEq)]
        pub enum Inst {
            $(
                $(#[$doc])*
                $name {
                    $(
                        #[allow(missing_docs)]
                        $field: $fty
                    ),*
                },
            )*
        }

        impl Inst {
            /// Every mnemonic, in table order.
            pub const MNEMONICS: &'static [&'static str] = &[$($mnemonic),*];

            /// The instruction's mnemonic.
            pub fn mnemonic(&self) -> &'static str {
                match self {
                    $(Inst::$name { .. } => $mnemonic,)*
                }
            }

            /// Calls `v` with every register the instruction reads or writes, with its role.
            #[allow(unused_variables)]
            pub fn visit_regs(&self, v: &mut dyn FnMut(Role, Reg)) {
                match self {
                    $(Inst::$name { $($field),* } => { $( Operand::visit($field, role!($role), v); )* })*
                }
            }

            /// Calls `v` with a mutable reference to every register operand, with its role.
            #[allow(unused_variables)]
            pub fn visit_regs_mut(&mut self, v: &mut dyn FnMut(Role, &mut Reg)) {
                match self {
                    $(Inst::$name { $($field),* } => { $( Operand::visit_mut($field, role!($role), v); )* })*
                }
            }

            /// Whether the instruction does something besides writing its result registers:
            /// writes memory or a stage output, synchronises, or ends or demotes lanes.
            /// (The `effects` column.)
            #[allow(unused_variables)]
            pub fn effects(&self) -> bool {
                match self {
                    $(Inst::$name { $($field),* } => effects!($effects),)*
                }
            }

            /// Which lanes' values the instruction reads besides its own (the `lanes`
            /// column).
            #[allow(unused_variables)]
            pub fn lanes(&self) -> Lanes {
                match self {
                    $(Inst::$name { $($field),* } => lanes!($lanes $(if $lanes_if)?),)*
                }
            }

            /// The type the instruction gives the registers it writes (the `result`
            /// column).
            #[allow(unused_variables)]
            pub fn result_type(&self) -> ValueType {
                match self {
                    $(Inst::$name { $($field),* } => value_type!($result),)*
                }
            }

            /// The WARP-release-dependent rules the instruction's result depends on (the
            /// `rules` column).
            #[allow(unused_variables)]
            pub fn profile_rules(&self) -> ProfileRules {
                match self {
                    $(Inst::$name { $($field),* } => {
                        ProfileRules::NONE $(.union(rule!($rule) $(.when($rule_if))?))*
                    })*
                }
            }

            /// The handle operands through which the instruction reads, writes, queries
            /// or samples a descriptor, [`Reg::NONE`] for none (the `handles` column).
            /// Making a handle is not an access.
            #[allow(unused_variables)]
            pub fn handles(&self) -> [Reg; 3] {
                match self {
                    $(Inst::$name { $($field),* } => handles!($($handle),*),)*
                }
            }

            /// The register operands that hold 64-bit pairs although their role is
            /// 32-bit (the `pairs` column).
            #[allow(unused_variables)]
            pub fn pairs(&self) -> Pairs<'_> {
                match self {
                    $(Inst::$name { $($field),* } => {
                        pairs!($pairs $(($pairs_of))? $(if $pairs_if)?)
                    })*
                }
            }

            /// Every instruction, with each field at an example value, and again with
            /// each enum or flag field at each of its other values (one field at a
            /// time); distinct registers in each instruction.
            #[cfg(test)]
            pub(crate) fn examples() -> Vec<Inst> {
                use super::props::Example;
                let mut out = Vec::new();
                $({
                    let mut next = 1;
                    let base = Inst::$name { $($field: <$fty as Example>::example(&mut next)),* };
                    $(
                        for v in <$fty as Example>::others() {
                            let mut i = base.clone();
                            if let Inst::$name { $field, .. } = &mut i {
                                *$field = v;
                            }
                            out.push(i);
                        }
                    )*
                    out.push(base);
                })*
                out
            }

            /// Parses the operands of the instruction named `mnemonic`.
            #[allow(unused_assignments)]
            pub fn parse_operands(mnemonic: &str, t: &mut Tokens<'_>) -> Result<Inst, ParseError> {
                match mnemonic {
                    $($mnemonic => {
                        #[allow(unused_mut, unused_assignments)]
                        let mut first = true;
                        $(
                            let $field = {
                                if !first { t.expect(",")?; }
                                first = false;
                                <$fty as Operand>::parse(t)?
                            };
                        )*
                        Ok(Inst::$name { $($field),* })
                    })*
                    _ => Err(t.error(format!("unknown instruction `{mnemonic}`"))),
                }
            }
        }

        impl fmt::Display for Inst {
            #[allow(unused_assignments, unused_mut)]
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                match self {
                    $(Inst::$name { $($field),* } => {
                        f.write_str($mnemonic)?;
                        let mut sep = " ";
                        $(
                            f.write_str(sep)?;
                            sep = ", ";
                            Operand::print($field, f)?;
                        )*
                        Ok(())
                    })*
                }
            }
        }
    };
}

/// The `effects` column: `yes` or `no`.
macro_rules! effects {
    (yes) => {
        true
    };
    (no) => {
        false
    };
}

/// The `lanes` column: `own`, `quad` or `wave`, or `quad if …` / `wave if …` (own
/// lanes otherwise).
macro_rules! lanes {
    (own) => {
        Lanes::Own
    };
    (quad) => {
        Lanes::Quad
    };
    (wave) => {
        Lanes::Wave
    };
    ($lanes:ident if $cond:expr) => {
        if $cond { lanes!($lanes) } else { Lanes::Own }
    };
}

/// The `result` column: a [`ValueType`] in lower case.
macro_rules! value_type {
    (bits) => {
        ValueType::Bits
    };
    (f32) => {
        ValueType::F32
    };
    (i32) => {
        ValueType::I32
    };
    (u32) => {
        ValueType::U32
    };
    (bool) => {
        ValueType::Bool
    };
    (f64) => {
        ValueType::F64
    };
    (i64) => {
        ValueType::I64
    };
}

/// One rule of the `rules` column: a [`ProfileRules`] constant in lower case.
macro_rules! rule {
    (fuse_mad) => {
        ProfileRules::FUSE_MAD
    };
    (wave_read_inactive) => {
        ProfileRules::WAVE_READ_INACTIVE
    };
    (f16) => {
        ProfileRules::F16
    };
    (fp32_denormals) => {
        ProfileRules::FP32_DENORMALS
    };
}

/// The `handles` column: up to three handle registers.
macro_rules! handles {
    () => {
        [Reg::NONE, Reg::NONE, Reg::NONE]
    };
    ($a:expr) => {
        [$a, Reg::NONE, Reg::NONE]
    };
    ($a:expr, $b:expr) => {
        [$a, $b, Reg::NONE]
    };
    ($a:expr, $b:expr, $c:expr) => {
        [$a, $b, $c]
    };
}

/// The `pairs` column: `none`; `writes if …` (every written register is a pair);
/// `reads(field) if …` (that read field's registers are pairs); `both(field) if …`.
macro_rules! pairs {
    (none) => {
        Pairs::NONE
    };
    (writes if $cond:expr) => {
        Pairs {
            writes: $cond,
            reads: &[],
        }
    };
    (reads($regs:expr) if $cond:expr) => {
        Pairs {
            writes: false,
            reads: if $cond { $regs.as_regs() } else { &[] },
        }
    };
    (both($regs:expr) if $cond:expr) => {{
        let wide = $cond;
        Pairs {
            writes: wide,
            reads: if wide { $regs.as_regs() } else { &[] },
        }
    }};
}

macro_rules! role {
    (R) => {
        Role::Read
    };
    (W) => {
        Role::Write
    };
    (R64) => {
        Role::Read64
    };
    (W64) => {
        Role::Write64
    };
    (N) => {
        Role::None
    };
}

instructions! {
    // ---- moves --------------------------------------------------------------------
    /// `dst = src` (bit copy; no float rule applies). DXBC `mov` without modifiers;
    /// DXIL bitcasts, phi copies.
    Mov "mov" { dst: Reg = W, src: Reg = R }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// `dst = cond != 0 ? a : b` (bit copy). DXBC `movc`, LLVM `select`.
    Select "select" { dst: Reg = W, cond: Reg = R, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// `dst:64 = cond != 0 ? a:64 : b:64`. DXBC `dmovc`, LLVM `select` on 64-bit values.
    Select64 "select64" { dst: Reg = W64, cond: Reg = R, a: Reg = R64, b: Reg = R64 }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: none],

    // ---- 32-bit float arithmetic (denormals per the shader's fp32 mode) ---------------
    /// `dst = a + b`. DXBC `add`, LLVM `fadd`.
    FAdd "fadd" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: f32, rules: [fp32_denormals], handles: [], pairs: none],
    /// `dst = a - b`. LLVM `fsub`.
    FSub "fsub" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: f32, rules: [fp32_denormals], handles: [], pairs: none],
    /// `dst = a * b`. DXBC `mul`, LLVM `fmul`.
    FMul "fmul" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: f32, rules: [fp32_denormals], handles: [], pairs: none],
    /// `dst = a / b`. DXBC `div`, LLVM `fdiv`.
    FDiv "fdiv" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: f32, rules: [fp32_denormals], handles: [], pairs: none],
    /// `dst = a - b * trunc(a / b)` (C `fmod`). LLVM `frem`.
    FRem "frem" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: f32, rules: [fp32_denormals], handles: [], pairs: none],
    /// `dst = min(a, b)`, the other operand when one is NaN. DXBC `min`, dx.op `FMin`.
    FMin "fmin" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: f32, rules: [fp32_denormals], handles: [], pairs: none],
    /// `dst = max(a, b)`, the other operand when one is NaN. DXBC `max`, dx.op `FMax`.
    FMax "fmax" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: f32, rules: [fp32_denormals], handles: [], pairs: none],
    /// `dst = a * b + c`; fused or not as the run's WARP profile says (WARP 1.0.14 and
    /// later fuse). DXBC `mad`, dx.op `FMad`.
    FMad "fmad" { dst: Reg = W, a: Reg = R, b: Reg = R, c: Reg = R }
        [effects: no, lanes: own, result: f32, rules: [fuse_mad, fp32_denormals], handles: [], pairs: none],
    /// `dst = round(round(a * b) + c)`: never fused (the operation is `precise`).
    FMadPrecise "fmad_precise" { dst: Reg = W, a: Reg = R, b: Reg = R, c: Reg = R }
        [effects: no, lanes: own, result: f32, rules: [fp32_denormals], handles: [], pairs: none],
    /// `dst = fma(a, b, c)`, one rounding.
    FFma "ffma" { dst: Reg = W, a: Reg = R, b: Reg = R, c: Reg = R }
        [effects: no, lanes: own, result: f32, rules: [fp32_denormals], handles: [], pairs: none],
    /// `dst = op(a)` for a unary float function ([`FUnOp`]).
    FUnary "funary" { op: FUnOp = N, dst: Reg = W, src: Reg = R }
        [effects: no, lanes: own, result: f32, rules: [fp32_denormals], handles: [], pairs: none],
    /// `dst = cond(a, b) ? true : false`. DXBC `eq`/`ne`/`lt`/`ge`, LLVM `fcmp`.
    FCmp "fcmp" { cond: FCond = N, dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: bool, rules: [fp32_denormals], handles: [], pairs: none],
    /// `dst = class(a) ? true : false` (no flushing). dx.op `IsNaN`/`IsInf`/…
    FTest "ftest" { class: FClass = N, dst: Reg = W, src: Reg = R }
        [effects: no, lanes: own, result: bool, rules: [], handles: [], pairs: none],
    /// `dst = derivative of src` across the lane's quad. DXBC `deriv_rt*`, dx.op `DerivCoarseX`…
    Deriv "deriv" { kind: DerivKind = N, dst: Reg = W, src: Reg = R }
        [effects: no, lanes: quad, result: f32, rules: [fp32_denormals], handles: [], pairs: none],

    // ---- 64-bit float arithmetic (register pairs; denormals preserved) ----------------
    /// `dst:64 = a:64 + b:64`. DXBC `dadd`, LLVM `fadd double`.
    DAdd "dadd" { dst: Reg = W64, a: Reg = R64, b: Reg = R64 }
        [effects: no, lanes: own, result: f64, rules: [], handles: [], pairs: none],
    /// `dst:64 = a:64 - b:64`.
    DSub "dsub" { dst: Reg = W64, a: Reg = R64, b: Reg = R64 }
        [effects: no, lanes: own, result: f64, rules: [], handles: [], pairs: none],
    /// `dst:64 = a:64 * b:64`. DXBC `dmul`.
    DMul "dmul" { dst: Reg = W64, a: Reg = R64, b: Reg = R64 }
        [effects: no, lanes: own, result: f64, rules: [], handles: [], pairs: none],
    /// `dst:64 = a:64 / b:64`. DXBC `ddiv`.
    DDiv "ddiv" { dst: Reg = W64, a: Reg = R64, b: Reg = R64 }
        [effects: no, lanes: own, result: f64, rules: [], handles: [], pairs: none],
    /// `dst:64 = fmod(a:64, b:64)`. LLVM `frem double`.
    DRem "drem" { dst: Reg = W64, a: Reg = R64, b: Reg = R64 }
        [effects: no, lanes: own, result: f64, rules: [], handles: [], pairs: none],
    /// `dst:64 = min(a:64, b:64)` (NaN rule as [`Inst::FMin`]). DXBC `dmin`.
    DMin "dmin" { dst: Reg = W64, a: Reg = R64, b: Reg = R64 }
        [effects: no, lanes: own, result: f64, rules: [], handles: [], pairs: none],
    /// `dst:64 = max(a:64, b:64)`. DXBC `dmax`.
    DMax "dmax" { dst: Reg = W64, a: Reg = R64, b: Reg = R64 }
        [effects: no, lanes: own, result: f64, rules: [], handles: [], pairs: none],
    /// `dst:64 = fma(a, b, c)`. DXBC `dfma`, dx.op `Fma`.
    DFma "dfma" { dst: Reg = W64, a: Reg = R64, b: Reg = R64, c: Reg = R64 }
        [effects: no, lanes: own, result: f64, rules: [], handles: [], pairs: none],
    /// `dst:64 = 1 / a:64`. DXBC `drcp`.
    DRcp "drcp" { dst: Reg = W64, src: Reg = R64 }
        [effects: no, lanes: own, result: f64, rules: [], handles: [], pairs: none],
    /// `dst:64 = sqrt(a:64)`.
    DSqrt "dsqrt" { dst: Reg = W64, src: Reg = R64 }
        [effects: no, lanes: own, result: f64, rules: [], handles: [], pairs: none],
    /// `dst = cond(a:64, b:64)` as a 32-bit boolean. DXBC `deq`/`dne`/`dlt`/`dge`.
    DCmp "dcmp" { cond: FCond = N, dst: Reg = W, a: Reg = R64, b: Reg = R64 }
        [effects: no, lanes: own, result: bool, rules: [], handles: [], pairs: none],
    /// `dst = class(a:64)`.
    DTest "dtest" { class: FClass = N, dst: Reg = W, src: Reg = R64 }
        [effects: no, lanes: own, result: bool, rules: [], handles: [], pairs: none],

    // ---- conversions ----------------------------------------------------------------
    /// `dst = i32(f32(src))`, toward zero, saturating, NaN → 0. DXBC `ftoi`.
    FToI "ftoi" { dst: Reg = W, src: Reg = R }
        [effects: no, lanes: own, result: i32, rules: [], handles: [], pairs: none],
    /// `dst = u32(f32(src))`, toward zero, saturating, NaN → 0. DXBC `ftou`.
    FToU "ftou" { dst: Reg = W, src: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = f32(i32(src))`, round to nearest even. DXBC `itof`.
    IToF "itof" { dst: Reg = W, src: Reg = R }
        [effects: no, lanes: own, result: f32, rules: [], handles: [], pairs: none],
    /// `dst = f32(u32(src))`. DXBC `utof`.
    UToF "utof" { dst: Reg = W, src: Reg = R }
        [effects: no, lanes: own, result: f32, rules: [], handles: [], pairs: none],
    /// `dst = half bits of f32(src)` rounded toward zero (WARP's `legacyF32ToF16`, DXBC
    /// `f32tof16`; rule in `exec::float`).
    F32ToF16Legacy "f32tof16" { dst: Reg = W, src: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = half bits of f32(src)` rounded to nearest even, NaN → `0x7fff` (WARP's
    /// native 16-bit float results).
    F32ToF16 "f32tohalf" { dst: Reg = W, src: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [f16], handles: [], pairs: none],
    /// `dst = f32(half(src & 0xffff))`, exact. DXBC `f16tof32`, dx.op `LegacyF16ToF32`.
    F16ToF32 "f16tof32" { dst: Reg = W, src: Reg = R }
        [effects: no, lanes: own, result: f32, rules: [], handles: [], pairs: none],
    /// `dst = f32(f64(src:64))`, round to nearest even. DXBC `dtof`.
    DToF "dtof" { dst: Reg = W, src: Reg = R64 }
        [effects: no, lanes: own, result: f32, rules: [fp32_denormals], handles: [], pairs: none],
    /// `dst:64 = f64(f32(src))`, exact. DXBC `ftod`.
    FToD "ftod" { dst: Reg = W64, src: Reg = R }
        [effects: no, lanes: own, result: f64, rules: [fp32_denormals], handles: [], pairs: none],
    /// `dst = i32(f64)`, saturating, NaN → 0. DXBC `dtoi`.
    DToI "dtoi" { dst: Reg = W, src: Reg = R64 }
        [effects: no, lanes: own, result: i32, rules: [], handles: [], pairs: none],
    /// `dst = u32(f64)`, saturating, NaN → 0. DXBC `dtou`.
    DToU "dtou" { dst: Reg = W, src: Reg = R64 }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst:64 = f64(i32(src))`. DXBC `itod`.
    IToD "itod" { dst: Reg = W64, src: Reg = R }
        [effects: no, lanes: own, result: f64, rules: [], handles: [], pairs: none],
    /// `dst:64 = f64(u32(src))`. DXBC `utod`.
    UToD "utod" { dst: Reg = W64, src: Reg = R }
        [effects: no, lanes: own, result: f64, rules: [], handles: [], pairs: none],
    /// `dst:64 = i64(f32)`, saturating, NaN → 0.
    FToI64 "ftoi64" { dst: Reg = W64, src: Reg = R }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// `dst:64 = u64(f32)`, saturating, NaN → 0.
    FToU64 "ftou64" { dst: Reg = W64, src: Reg = R }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// `dst:64 = i64(f64)`, saturating, NaN → 0.
    DToI64 "dtoi64" { dst: Reg = W64, src: Reg = R64 }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// `dst:64 = u64(f64)`, saturating, NaN → 0.
    DToU64 "dtou64" { dst: Reg = W64, src: Reg = R64 }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// `dst = f32(i64(src:64))`.
    I64ToF "i64tof" { dst: Reg = W, src: Reg = R64 }
        [effects: no, lanes: own, result: i64, rules: [], handles: [], pairs: none],
    /// `dst = f32(u64(src:64))`.
    U64ToF "u64tof" { dst: Reg = W, src: Reg = R64 }
        [effects: no, lanes: own, result: i64, rules: [], handles: [], pairs: none],
    /// `dst:64 = f64(i64(src:64))`.
    I64ToD "i64tod" { dst: Reg = W64, src: Reg = R64 }
        [effects: no, lanes: own, result: i64, rules: [], handles: [], pairs: none],
    /// `dst:64 = f64(u64(src:64))`.
    U64ToD "u64tod" { dst: Reg = W64, src: Reg = R64 }
        [effects: no, lanes: own, result: i64, rules: [], handles: [], pairs: none],
    /// `dst:64 = sign-extend(i32(src))`. LLVM `sext i32 to i64`.
    SExt64 "sext64" { dst: Reg = W64, src: Reg = R }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// `dst:64 = zero-extend(src)`. LLVM `zext i32 to i64`.
    ZExt64 "zext64" { dst: Reg = W64, src: Reg = R }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// `dst = sign-extend the low `bits` bits of src` (8 or 16). LLVM `sext i16/i8`.
    SExtBits "sext" { bits: u8 = N, dst: Reg = W, src: Reg = R }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: none],

    // ---- 32-bit integer arithmetic -------------------------------------------------------
    /// `dst = a + b` (wrapping). DXBC `iadd`, LLVM `add`.
    IAdd "iadd" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: i32, rules: [], handles: [], pairs: none],
    /// `dst = a - b` (wrapping). LLVM `sub`.
    ISub "isub" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: i32, rules: [], handles: [], pairs: none],
    /// `dst = low 32 bits of a * b`. DXBC `imul`/`umul` (low result), LLVM `mul`.
    IMul "imul" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: i32, rules: [], handles: [], pairs: none],
    /// `dst = high 32 bits of i64(a) * i64(b)`. DXBC `imul` (high result), dx.op `IMul`.
    IMulHi "imulhi" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: i32, rules: [], handles: [], pairs: none],
    /// `dst = high 32 bits of u64(a) * u64(b)`. DXBC `umul` (high result), dx.op `UMul`.
    UMulHi "umulhi" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = low 32 bits of a * b + c`. DXBC `imad`/`umad`, dx.op `IMad`/`UMad`.
    IMad "imad" { dst: Reg = W, a: Reg = R, b: Reg = R, c: Reg = R }
        [effects: no, lanes: own, result: i32, rules: [], handles: [], pairs: none],
    /// `dst = b == 0 ? 0xffffffff : a / b` (unsigned). DXBC `udiv`, LLVM `udiv`.
    UDiv "udiv" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = b == 0 ? 0xffffffff : a % b` (unsigned). DXBC `udiv`, LLVM `urem`.
    URem "urem" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = b == 0 ? 0xffffffff : a / b` (signed, toward zero; MIN / -1 = MIN). LLVM `sdiv`.
    IDiv "idiv" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: i32, rules: [], handles: [], pairs: none],
    /// `dst = b == 0 ? 0xffffffff : a % b` (signed; MIN % -1 = 0). LLVM `srem`.
    IRem "irem" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: i32, rules: [], handles: [], pairs: none],
    /// `dst = -a` (wrapping). DXBC `ineg`.
    INeg "ineg" { dst: Reg = W, src: Reg = R }
        [effects: no, lanes: own, result: i32, rules: [], handles: [], pairs: none],
    /// `dst = min(i32(a), i32(b))`. DXBC `imin`.
    IMin "imin" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: i32, rules: [], handles: [], pairs: none],
    /// `dst = max(i32(a), i32(b))`. DXBC `imax`.
    IMax "imax" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: i32, rules: [], handles: [], pairs: none],
    /// `dst = min(a, b)` unsigned. DXBC `umin`.
    UMin "umin" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = max(a, b)` unsigned. DXBC `umax`.
    UMax "umax" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = a & b`. DXBC `and`.
    And "and" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = a | b`. DXBC `or`.
    Or "or" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = a ^ b`. DXBC `xor`.
    Xor "xor" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = !a`. DXBC `not`.
    Not "not" { dst: Reg = W, src: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = a << (b & 31)`. DXBC `ishl` (D3D masks the count to 5 bits).
    Shl "shl" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = a >> (b & 31)`, logical. DXBC `ushr`.
    UShr "ushr" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = i32(a) >> (b & 31)`, arithmetic. DXBC `ishr`.
    IShr "ishr" { dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: i32, rules: [], handles: [], pairs: none],
    /// `dst = cond(a, b) ? true : false`. DXBC `ieq`/`ine`/`ilt`/`ige`/`ult`/`uge`, LLVM `icmp`.
    ICmp "icmp" { cond: ICond = N, dst: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: bool, rules: [], handles: [], pairs: none],
    /// `dst = bitfield insert`: with w = width & 31, o = offset & 31, mask =
    /// ((1 << w) - 1) << o, `dst = ((insert << o) & mask) | (base & !mask)`. DXBC `bfi`.
    Bfi "bfi" { dst: Reg = W, width: Reg = R, offset: Reg = R, insert: Reg = R, base: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// Unsigned bitfield extract of `width & 31` bits at `offset & 31` (width 0 → 0;
    /// w + o > 32 → src >> o). DXBC `ubfe`.
    UBfe "ubfe" { dst: Reg = W, width: Reg = R, offset: Reg = R, src: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// Signed bitfield extract (as [`Inst::UBfe`], sign-extended from the top extracted bit). DXBC `ibfe`.
    IBfe "ibfe" { dst: Reg = W, width: Reg = R, offset: Reg = R, src: Reg = R }
        [effects: no, lanes: own, result: i32, rules: [], handles: [], pairs: none],
    /// `dst = reverse the 32 bits of src`. DXBC `bfrev`.
    Bfrev "bfrev" { dst: Reg = W, src: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = number of set bits`. DXBC `countbits`.
    CountBits "countbits" { dst: Reg = W, src: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = index of the highest set bit counted from the MSB (0 = bit 31)`, or
    /// 0xffffffff when src is 0. DXBC `firstbit_hi`, dx.op `FirstbitHi`.
    FirstBitHi "firstbit_hi" { dst: Reg = W, src: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = index of the lowest set bit`, or 0xffffffff when src is 0. DXBC `firstbit_lo`.
    FirstBitLo "firstbit_lo" { dst: Reg = W, src: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = index (from the MSB) of the highest bit that differs from the sign bit`, or
    /// 0xffffffff when src is 0 or -1. DXBC `firstbit_shi`, dx.op `FirstbitSHi`.
    FirstBitShi "firstbit_shi" { dst: Reg = W, src: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `sum = a + b`, `carry = 1 if it overflowed else 0`. DXBC `uaddc`, dx.op `UAddc`.
    UAddc "uaddc" { sum: Reg = W, carry: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `diff = a - b`, `borrow = 1 if b > a else 0`. DXBC `usubb`, dx.op `USubb`.
    USubb "usubb" { diff: Reg = W, borrow: Reg = W, a: Reg = R, b: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// Masked sum of absolute differences: for each byte of `reference` that is not 0,
    /// add `|reference byte - src byte|` to `accum`, wrapping modulo 2^32. DXBC
    /// `msad`, dx.op `Msad`. (HLSL's `msad4` is four of these on shifted windows.)
    Msad "msad" { dst: Reg = W, reference: Reg = R, src: Reg = R, accum: Reg = R }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: none],

    // ---- 64-bit integer arithmetic (register pairs) -------------------------------
    /// `dst:64 = a:64 + b:64`.
    I64Add "i64add" { dst: Reg = W64, a: Reg = R64, b: Reg = R64 }
        [effects: no, lanes: own, result: i64, rules: [], handles: [], pairs: none],
    /// `dst:64 = a:64 - b:64`.
    I64Sub "i64sub" { dst: Reg = W64, a: Reg = R64, b: Reg = R64 }
        [effects: no, lanes: own, result: i64, rules: [], handles: [], pairs: none],
    /// `dst:64 = a:64 * b:64` (low 64 bits).
    I64Mul "i64mul" { dst: Reg = W64, a: Reg = R64, b: Reg = R64 }
        [effects: no, lanes: own, result: i64, rules: [], handles: [], pairs: none],
    /// `dst:64 = b == 0 ? !0 : a / b` (unsigned).
    U64Div "u64div" { dst: Reg = W64, a: Reg = R64, b: Reg = R64 }
        [effects: no, lanes: own, result: i64, rules: [], handles: [], pairs: none],
    /// `dst:64 = b == 0 ? !0 : a % b` (unsigned).
    U64Rem "u64rem" { dst: Reg = W64, a: Reg = R64, b: Reg = R64 }
        [effects: no, lanes: own, result: i64, rules: [], handles: [], pairs: none],
    /// `dst:64 = b == 0 ? !0 : a / b` (signed).
    I64Div "i64div" { dst: Reg = W64, a: Reg = R64, b: Reg = R64 }
        [effects: no, lanes: own, result: i64, rules: [], handles: [], pairs: none],
    /// `dst:64 = b == 0 ? !0 : a % b` (signed).
    I64Rem "i64rem" { dst: Reg = W64, a: Reg = R64, b: Reg = R64 }
        [effects: no, lanes: own, result: i64, rules: [], handles: [], pairs: none],
    /// `dst:64 = a:64 << (b & 63)`.
    I64Shl "i64shl" { dst: Reg = W64, a: Reg = R64, b: Reg = R }
        [effects: no, lanes: own, result: i64, rules: [], handles: [], pairs: none],
    /// `dst:64 = a:64 >> (b & 63)`, logical.
    U64Shr "u64shr" { dst: Reg = W64, a: Reg = R64, b: Reg = R }
        [effects: no, lanes: own, result: i64, rules: [], handles: [], pairs: none],
    /// `dst:64 = i64(a:64) >> (b & 63)`, arithmetic.
    I64Shr "i64shr" { dst: Reg = W64, a: Reg = R64, b: Reg = R }
        [effects: no, lanes: own, result: i64, rules: [], handles: [], pairs: none],
    /// `dst = cond(a:64, b:64)` as a 32-bit boolean.
    I64Cmp "i64cmp" { cond: ICond = N, dst: Reg = W, a: Reg = R64, b: Reg = R64 }
        [effects: no, lanes: own, result: i64, rules: [], handles: [], pairs: none],
    /// `dst:64 = signed min`.
    I64Min "i64min" { dst: Reg = W64, a: Reg = R64, b: Reg = R64 }
        [effects: no, lanes: own, result: i64, rules: [], handles: [], pairs: none],
    /// `dst:64 = signed max`.
    I64Max "i64max" { dst: Reg = W64, a: Reg = R64, b: Reg = R64 }
        [effects: no, lanes: own, result: i64, rules: [], handles: [], pairs: none],
    /// `dst:64 = unsigned min`.
    U64Min "u64min" { dst: Reg = W64, a: Reg = R64, b: Reg = R64 }
        [effects: no, lanes: own, result: i64, rules: [], handles: [], pairs: none],
    /// `dst:64 = unsigned max`.
    U64Max "u64max" { dst: Reg = W64, a: Reg = R64, b: Reg = R64 }
        [effects: no, lanes: own, result: i64, rules: [], handles: [], pairs: none],
    /// `dst = number of set bits of src:64`.
    CountBits64 "countbits64" { dst: Reg = W, src: Reg = R64 }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = index of the highest set bit of src:64 counted from the MSB`, or 0xffffffff.
    FirstBitHi64 "firstbit_hi64" { dst: Reg = W, src: Reg = R64 }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = index of the lowest set bit of src:64`, or 0xffffffff.
    FirstBitLo64 "firstbit_lo64" { dst: Reg = W, src: Reg = R64 }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = index (from the MSB) of the highest bit of src:64 differing from its sign`, or 0xffffffff.
    FirstBitShi64 "firstbit_shi64" { dst: Reg = W, src: Reg = R64 }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst:64 = reverse the 64 bits of src:64`.
    Bfrev64 "bfrev64" { dst: Reg = W64, src: Reg = R64 }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],

    // ---- system values and lanes ------------------------------------------------------
    /// `dst = component `axis` (0..3) of the compute system value `sv` for this lane`.
    SysValue "sysval" { sv: SysVec = N, axis: u8 = N, dst: Reg = W }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = SV_GroupIndex` (the flattened thread index in its group).
    GroupIndex "group_index" { dst: Reg = W }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = this lane's index in its wave`. dx.op `WaveGetLaneIndex`.
    LaneIndex "lane_index" { dst: Reg = W }
        [effects: no, lanes: wave, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = the wave's lane count`. dx.op `WaveGetLaneCount`.
    LaneCount "lane_count" { dst: Reg = W }
        [effects: no, lanes: wave, result: u32, rules: [], handles: [], pairs: none],

    // ---- per-lane and group memory ------------------------------------------------------
    /// `dst[i] = array[addr + offset + i * size]` for each component i of `mask`; reads
    /// outside the array give 0. Addresses are in bytes.
    LocalLoad "local_load" { width: Width = N, mask: u8 = N, dst: [Reg; 4] = W, array: LocalId = N, addr: Reg = R, offset: u32 = N }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: writes if *width == Width::B64],
    /// `array[addr + offset + i * size] = src[i]` for each component of `mask`; writes
    /// outside the array are dropped.
    LocalStore "local_store" { width: Width = N, mask: u8 = N, array: LocalId = N, addr: Reg = R, offset: u32 = N, src: [Reg; 4] = R }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [], pairs: reads(src) if *width == Width::B64],
    /// As [`Inst::LocalLoad`] from a read-only shared array (DXBC `icb`).
    ConstLoad "const_load" { width: Width = N, mask: u8 = N, dst: [Reg; 4] = W, array: ConstId = N, addr: Reg = R, offset: u32 = N }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: writes if *width == Width::B64],
    /// As [`Inst::LocalLoad`] from the thread group's shared memory (`groupshared`,
    /// DXBC `g#`); reads outside it give 0.
    SharedLoad "shared_load" { width: Width = N, mask: u8 = N, dst: [Reg; 4] = W, addr: Reg = R, offset: u32 = N }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: writes if *width == Width::B64],
    /// As [`Inst::LocalStore`] into group shared memory; writes outside it are dropped.
    SharedStore "shared_store" { width: Width = N, mask: u8 = N, addr: Reg = R, offset: u32 = N, src: [Reg; 4] = R }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [], pairs: reads(src) if *width == Width::B64],
    /// `old = shared[addr]; shared[addr] = op(old, src); dst = old` (32-bit, atomic with
    /// respect to the group). DXBC `atomic_*`/`imm_atomic_*` on `g#`.
    SharedAtomic "shared_atomic" { op: AtomicOp = N, dst: Reg = W, addr: Reg = R, src: Reg = R }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// `old = shared[addr]; if old == cmp { shared[addr] = src }; dst = old`.
    SharedCmpXchg "shared_cmpxchg" { dst: Reg = W, addr: Reg = R, cmp: Reg = R, src: Reg = R }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// 64-bit [`Inst::SharedAtomic`].
    SharedAtomic64 "shared_atomic64" { op: AtomicOp = N, dst: Reg = W64, addr: Reg = R, src: Reg = R64 }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// 64-bit [`Inst::SharedCmpXchg`].
    SharedCmpXchg64 "shared_cmpxchg64" { dst: Reg = W64, addr: Reg = R, cmp: Reg = R64, src: Reg = R64 }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [], pairs: none],

    // ---- resource handles ----------------------------------------------------------------
    /// `dst = handle of element `index` of declared range `range``; an index past the
    /// range gives a null handle (reads 0, writes dropped).
    Handle "handle" { dst: Reg = W, range: RangeId = N, index: Reg = R }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// `dst = handle of entry `index` of the resource (or, with `sampler`, sampler)
    /// descriptor heap` (SM 6.6 `ResourceDescriptorHeap[i]`); past the heap: null.
    HeapHandle "heap_handle" { sampler: bool = N, dst: Reg = W, index: Reg = R }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: none],

    // ---- DXR ray-tracing programs (`pipeline::rays` answers them) ---------------------------
    /// `dst = value[index]` for the lane's ray, hit or dispatch: a system value of a
    /// ray-tracing program (a vector's component, a 3×4 matrix's `row · 4 + column`).
    /// dx.ops `DispatchRaysIndex`, `DispatchRaysDimensions`, `WorldRayOrigin`,
    /// `WorldRayDirection`, `ObjectRayOrigin`, `ObjectRayDirection`, `ObjectToWorld`,
    /// `WorldToObject`, `RayTMin`, `RayTCurrent`, `RayFlags`, `InstanceIndex`,
    /// `InstanceID`, `PrimitiveIndex`, `GeometryIndex`, `HitKind`.
    RayGet "rt_get" { value: RaySystemValue = N, index: u8 = N, dst: Reg = W }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// Traces the lane's ray `args` (see [`TRACE_RAY_ARGS`]) through the structure
    /// `accel` and runs the hit group's and miss programs the shader table selects, each
    /// reading and writing the payload: the `bytes` bytes of per-lane array `payload`
    /// at `addr + offset`, copied to the invoked programs and back. dx.op `TraceRay`.
    RayTrace "rt_trace" { accel: Reg = R, args: Box<[Reg; TRACE_RAY_ARGS]> = R, payload: LocalId = N, addr: Reg = R, offset: u32 = N, bytes: u32 = N }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [*accel], pairs: none],
    /// Runs callable program `index` of the shader table with the parameter at
    /// `addr + offset` of per-lane array `param` (`bytes` bytes, copied in and back).
    /// dx.op `CallShader`.
    RayCall "rt_call" { index: Reg = R, param: LocalId = N, addr: Reg = R, offset: u32 = N, bytes: u32 = N }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// `dst = whether the hit at t with hit kind kind was accepted`: reports a
    /// procedural hit with the `bytes` bytes of attributes at `addr + offset` of per-lane
    /// array `attrs`, running the any-hit program when the hit is in range and not
    /// opaque. dx.op `ReportHit`.
    RayReportHit "rt_report_hit" { dst: Reg = W, t: Reg = R, kind: Reg = R, attrs: LocalId = N, addr: Reg = R, offset: u32 = N, bytes: u32 = N }
        [effects: yes, lanes: own, result: bool, rules: [], handles: [], pairs: none],
    /// Ends the any-hit program's lane with the decision `op` (the lane runs no further
    /// instruction). dx.ops `IgnoreHit`, `AcceptHitAndEndSearch`.
    RayHitEnd "rt_hit_end" { op: RayHitOp = N }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [], pairs: none],

    // ---- inline ray queries (SM 6.5 `RayQuery<flags>`; `exec::ray_query`) -------------------
    /// `dst = slot`, and the lane's query in `slot` becomes a new query whose template
    /// ray flags are `flags` (dx.op `AllocateRayQuery`). Each allocation site has its own
    /// slot, so a query object is the value that names its slot; running the site again
    /// starts a new query there.
    RayQueryAlloc "rq_alloc" { slot: u32 = N, flags: u32 = N, dst: Reg = W }
        [effects: yes, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `TraceRayInline`: the query named by `query` starts tracing the ray `ray` (f32
    /// origin x, y, z, `TMin`, direction x, y, z, `TMax`: `RayDesc`'s order; boxed to
    /// keep `Inst` small) with ray flags `flags | template flags` and instance inclusion
    /// mask `mask` through the top-level structure behind handle `accel` (another kind
    /// of descriptor, or a null one: no structure, every ray misses). dx.op
    /// `RayQuery_TraceRayInline`.
    RayQueryTrace "rq_trace" { query: Reg = R, accel: Reg = R, flags: Reg = R, mask: Reg = R, ray: Box<[Reg; 8]> = R }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [*accel], pairs: none],
    /// `dst = Proceed()` of the query named by `query` (boolean): traverses to the next
    /// candidate the program decides on, or to the end. The nodes and primitives visited
    /// are charged to the lane's budget. dx.op `RayQuery_Proceed`.
    RayQueryProceed "rq_proceed" { dst: Reg = W, query: Reg = R }
        [effects: yes, lanes: own, result: bool, rules: [], handles: [], pairs: none],
    /// `Abort()`, `CommitNonOpaqueTriangleHit()` or `CommitProceduralPrimitiveHit(f32(t))`
    /// on the query named by `query` (`t` is `_` except for the last). dx.ops
    /// `RayQuery_Abort`, `RayQuery_CommitNonOpaqueTriangleHit`,
    /// `RayQuery_CommitProceduralPrimitiveHit`.
    RayQueryControl "rq_control" { op: RayQueryOp = N, query: Reg = R, t: Reg = R }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// `dst = ` component `index` of the query's `value` (vectors: x, y, z; 3×4 matrices:
    /// `row * 4 + column`); booleans as 0 / `0xffff_ffff`; 0 when the query has no
    /// candidate or committed hit to answer from. dx.ops `RayQuery_StateScalar`,
    /// `RayQuery_StateVector`, `RayQuery_StateMatrix` (opcodes 184–215).
    RayQueryGet "rq_get" { value: RayQueryValue = N, index: u8 = N, dst: Reg = W, query: Reg = R }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: none],

    // ---- shader execution reordering (SM 6.9 `HitObject`; `exec::hit_object`) ---------------
    /// `dst = slot`, and the lane's hit object in `slot` becomes what tracing the ray
    /// `args` (as [`Inst::RayTrace`]'s) through `accel` finds, running the any-hit and
    /// intersection programs (with the payload at `addr + offset` of per-lane array
    /// `payload`, `bytes` bytes, copied in and back) but no closest-hit or miss program.
    /// Each creation site has its own slot, as `rq_alloc`'s. dx.op `HitObject_TraceRay`.
    HitObjectTrace "ho_trace" { slot: u32 = N, dst: Reg = W, accel: Reg = R, args: Box<[Reg; TRACE_RAY_ARGS]> = R, payload: LocalId = N, addr: Reg = R, offset: u32 = N, bytes: u32 = N }
        [effects: yes, lanes: own, result: u32, rules: [], handles: [*accel], pairs: none],
    /// `dst = slot`, and the lane's hit object in `slot` becomes a miss of the ray
    /// `args` (see [`MAKE_MISS_ARGS`]). dx.op `HitObject_MakeMiss`.
    HitObjectMiss "ho_miss" { slot: u32 = N, dst: Reg = W, args: Box<[Reg; MAKE_MISS_ARGS]> = R }
        [effects: yes, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = slot`, and the lane's hit object in `slot` becomes a NOP hit object. dx.op
    /// `HitObject_MakeNop`.
    HitObjectNop "ho_nop" { slot: u32 = N, dst: Reg = W }
        [effects: yes, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = slot`, and the lane's hit object in `slot` becomes the committed hit of the
    /// ray query named by `query` (a NOP hit object when nothing is committed), with no
    /// shader table index. dx.op `HitObject_FromRayQuery`.
    HitObjectFromQuery "ho_from_query" { slot: u32 = N, dst: Reg = W, query: Reg = R }
        [effects: yes, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// As [`Inst::HitObjectFromQuery`], and a committed procedural hit takes hit kind
    /// `kind` and the `bytes` bytes of attributes at `addr + offset` of per-lane array
    /// `attrs`. dx.op `HitObject_FromRayQueryWithAttrs`.
    HitObjectFromQueryAttrs "ho_from_query_attrs" { slot: u32 = N, dst: Reg = W, query: Reg = R, kind: Reg = R, attrs: LocalId = N, addr: Reg = R, offset: u32 = N, bytes: u32 = N }
        [effects: yes, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = slot`, and the lane's hit object in `slot` becomes a copy of the one `hit`
    /// names with shader table index `index` (a NOP stays a NOP). dx.op
    /// `HitObject_SetShaderTableIndex`.
    HitObjectSetIndex "ho_set_index" { slot: u32 = N, dst: Reg = W, hit: Reg = R, index: Reg = R }
        [effects: yes, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// Runs the closest-hit program of the hit group, or the miss program, that the hit
    /// object `hit` names, with the payload at `addr + offset` of per-lane array
    /// `payload` (`bytes` bytes, copied in and back); a NOP hit object, or one from a
    /// query without a shader table index, runs nothing. dx.op `HitObject_Invoke`.
    HitObjectInvoke "ho_invoke" { hit: Reg = R, payload: LocalId = N, addr: Reg = R, offset: u32 = N, bytes: u32 = N }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// `dst = ` component `index` of the hit object's `value` (vectors: x, y, z; 3×4
    /// matrices: `row * 4 + column`); booleans as 0 / `0xffff_ffff`. dx.ops
    /// `HitObject_StateScalar`, `_StateVector`, `_StateMatrix` (269–286).
    HitObjectGet "ho_get" { value: HitObjectValue = N, index: u8 = N, dst: Reg = W, hit: Reg = R }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// `dst = ` the 32 bits at byte `offset` of the local root arguments (after the
    /// shader identifier) of the shader record the hit object `hit` names: its hit-group
    /// record, or its miss record; 0 for a NOP hit object and one without a shader table
    /// index. dx.op `HitObject_LoadLocalRootTableConstant`.
    HitObjectLoadLocal "ho_load_local" { dst: Reg = W, hit: Reg = R, offset: Reg = R }
        [effects: no, lanes: own, result: u32, rules: [], handles: [], pairs: none],
    /// Writes the hit object's attributes (zeros past them, or when it is not a hit)
    /// into the `bytes` bytes at `addr + offset` of per-lane array `attrs`. dx.op
    /// `HitObject_Attributes`.
    HitObjectAttributes "ho_attributes" { hit: Reg = R, attrs: LocalId = N, addr: Reg = R, offset: u32 = N, bytes: u32 = N }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [], pairs: none],

    // ---- buffers ------------------------------------------------------------------------------
    /// Raw (byte address) buffer load: `dst[i] = buf[addr + i * size]` for each
    /// component of `mask`; out of bounds → 0. DXBC `ld_raw`, dx.op `RawBufferLoad`.
    RawLoad "raw_load" { width: Width = N, mask: u8 = N, dst: [Reg; 4] = W, handle: Reg = R, addr: Reg = R }
        [effects: no, lanes: own, result: bits, rules: [], handles: [*handle], pairs: writes if *width == Width::B64],
    /// Raw buffer store; out-of-bounds components are dropped. DXBC `store_raw`.
    RawStore "raw_store" { width: Width = N, mask: u8 = N, handle: Reg = R, addr: Reg = R, src: [Reg; 4] = R }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [*handle], pairs: reads(src) if *width == Width::B64],
    /// Structured buffer load of element `index` at byte `offset` within it; an index
    /// past the element count or an offset past the stride gives 0. DXBC `ld_structured`.
    StructLoad "struct_load" { width: Width = N, mask: u8 = N, dst: [Reg; 4] = W, handle: Reg = R, index: Reg = R, offset: Reg = R }
        [effects: no, lanes: own, result: bits, rules: [], handles: [*handle], pairs: writes if *width == Width::B64],
    /// Structured buffer store; out of bounds is dropped. DXBC `store_structured`.
    StructStore "struct_store" { width: Width = N, mask: u8 = N, handle: Reg = R, index: Reg = R, offset: Reg = R, src: [Reg; 4] = R }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [*handle], pairs: reads(src) if *width == Width::B64],
    /// Typed load: typed buffer element `coord[0]`, or texel `coord` at mip `mip`
    /// (multisampled: sample `sample`), converted from the view's format to four 32-bit
    /// values (float, or integer by format; missing channels (0, 0, 0, 1)); out of
    /// bounds → 0. DXBC `ld`/`ld_ms`/`ld_uav_typed`, dx.op `BufferLoad`/`TextureLoad`.
    TypedLoad "typed_load" { dst: [Reg; 4] = W, handle: Reg = R, coord: [Reg; 3] = R, mip: Reg = R, sample: Reg = R, offset: [i8; 3] = N, status: Reg = W }
        [effects: no, lanes: own, result: bits, rules: [], handles: [*handle], pairs: none],
    /// Typed store of four components, converted to the view's format, at typed buffer
    /// element `coord[0]` or texel `coord` (multisampled: sample `sample`, `_` = 0); out
    /// of bounds dropped. DXBC `store_uav_typed`, dx.op `BufferStore`/`TextureStore`/
    /// `TextureStoreSample`.
    TypedStore "typed_store" { handle: Reg = R, coord: [Reg; 3] = R, sample: Reg = R, src: [Reg; 4] = R, mask: u8 = N }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [*handle], pairs: none],
    /// Atomic on a UAV: raw (`coord[0]` = byte address), structured (`coord[0]` element,
    /// `coord[1]` byte offset) or typed (texel coordinates, R32 formats);
    /// `dst = old value` (or `_`). DXBC `atomic_*`/`imm_atomic_*`, dx.op `AtomicBinOp`.
    ResAtomic "res_atomic" { op: AtomicOp = N, dst: Reg = W, handle: Reg = R, coord: [Reg; 3] = R, src: Reg = R }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [*handle], pairs: none],
    /// Compare-exchange on a UAV (addressing as [`Inst::ResAtomic`]).
    ResCmpXchg "res_cmpxchg" { dst: Reg = W, handle: Reg = R, coord: [Reg; 3] = R, cmp: Reg = R, src: Reg = R }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [*handle], pairs: none],
    /// 64-bit [`Inst::ResAtomic`].
    ResAtomic64 "res_atomic64" { op: AtomicOp = N, dst: Reg = W64, handle: Reg = R, coord: [Reg; 3] = R, src: Reg = R64 }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [*handle], pairs: none],
    /// 64-bit [`Inst::ResCmpXchg`].
    ResCmpXchg64 "res_cmpxchg64" { dst: Reg = W64, handle: Reg = R, coord: [Reg; 3] = R, cmp: Reg = R64, src: Reg = R64 }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [*handle], pairs: none],
    /// `dst = counter++` (the value before). DXBC `imm_atomic_alloc`, dx.op
    /// `BufferUpdateCounter(+1)`.
    CounterInc "counter_inc" { dst: Reg = W, handle: Reg = R }
        [effects: yes, lanes: own, result: u32, rules: [], handles: [*handle], pairs: none],
    /// `dst = --counter` (the value after). DXBC `imm_atomic_consume`.
    CounterDec "counter_dec" { dst: Reg = W, handle: Reg = R }
        [effects: yes, lanes: own, result: u32, rules: [], handles: [*handle], pairs: none],
    /// Constant buffer read: `dst[i] = cb[addr + offset + i * size]`, 0 past the end.
    /// DXBC `cb#[…]` operands, dx.op `CBufferLoadLegacy`.
    CbLoad "cb_load" { width: Width = N, mask: u8 = N, dst: [Reg; 4] = W, handle: Reg = R, addr: Reg = R, offset: u32 = N }
        [effects: no, lanes: own, result: bits, rules: [], handles: [*handle], pairs: writes if *width == Width::B64],
    /// Dimensions: `dst = [width, height, depth or array size, mip count]` of mip `mip`
    /// (buffers: element count — bytes for raw buffers — then stride for structured).
    /// Null handle: zeros. DXBC `resinfo`/`bufinfo`, dx.op `GetDimensions`.
    Dimensions "dimensions" { dst: [Reg; 4] = W, handle: Reg = R, mip: Reg = R }
        [effects: no, lanes: own, result: bits, rules: [], handles: [*handle], pairs: none],
    /// `dst = sample count of a multisampled texture` (0 for others). DXBC `sampleinfo`.
    SampleCount "sample_count" { dst: Reg = W, handle: Reg = R }
        [effects: no, lanes: own, result: bits, rules: [], handles: [*handle], pairs: none],
    /// `dst = [x, y] standard position of sample `index`` for the texture's sample count.
    /// DXBC `samplepos`, dx.op `Texture2DMSGetSamplePosition`.
    SamplePos "sample_pos" { dst: [Reg; 2] = W, handle: Reg = R, index: Reg = R }
        [effects: no, lanes: own, result: bits, rules: [], handles: [*handle], pairs: none],

    // ---- sampling -------------------------------------------------------------------------
    /// Filtered sample of a texture through a sampler. DXBC `sample*`, dx.op `Sample*`.
    Sample "sample" { mode: SampleMode = N, args: Box<SampleArgs> = N }
        [effects: no, lanes: quad if mode.implicit_lod(), result: bits, rules: [], handles: [args.texture, args.sampler], pairs: none],
    /// Gather of component `channel` (0..3) of the four texels a bilinear sample would
    /// use. DXBC `gather4*`, dx.op `TextureGather*`.
    Gather "gather" { mode: SampleMode = N, channel: u8 = N, args: Box<SampleArgs> = N }
        [effects: no, lanes: quad if mode.implicit_lod(), result: bits, rules: [], handles: [args.texture, args.sampler], pairs: none],
    /// Raw gather (SM 6.7 `GatherRaw`): word `word` of the `bits`-bit elements (16, 32
    /// or 64: an `R16_UINT`, `R32_UINT` or `R32G32_UINT` view; word 1 is the high half
    /// of a 64-bit element) of the four texels `gather` picks, unconverted; a view of
    /// another format or shape reads 0. dx.op `TextureGatherRaw`.
    GatherRaw "gather_raw" { bits: u8 = N, word: u8 = N, args: Box<SampleArgs> = N }
        [effects: no, lanes: own, result: bits, rules: [], handles: [args.texture, args.sampler], pairs: none],
    /// Sampler feedback (SM 6.5 `WriteSamplerFeedback*`): records in the feedback map
    /// `feedback` the paired-texture texels a `sample` of `args.texture` through
    /// `args.sampler` in `mode` (`implicit`, `bias`, `level`, `grad`; with `args.clamp`)
    /// would read, as `resources::feedback` states; `args.dst`, offsets and status are
    /// unused. Helper lanes record nothing; a null or non-feedback `feedback` records
    /// nothing. dx.op `WriteSamplerFeedback`, `…Bias`, `…Level`, `…Grad`.
    WriteFeedback "write_feedback" { mode: SampleMode = N, feedback: Reg = R, args: Box<SampleArgs> = N }
        [effects: yes, lanes: quad if mode.implicit_lod(), result: bits, rules: [], handles: [*feedback, args.texture, args.sampler], pairs: none],
    /// `dst = [clamped LOD, unclamped LOD]` a sample at `coord` would use. DXBC `lod`,
    /// dx.op `CalculateLOD`.
    Lod "lod" { dst: [Reg; 2] = W, texture: Reg = R, sampler: Reg = R, coord: [Reg; 3] = R }
        [effects: no, lanes: quad, result: bits, rules: [], handles: [*texture, *sampler], pairs: none],

    // ---- waves and quads ---------------------------------------------------------------
    /// `dst = op over all active lanes of src` (in lane order). dx.op `WaveActiveOp`/`WaveActiveBit`.
    WaveReduce "wave_reduce" { op: WaveOp = N, ty: WaveTy = N, dst: Reg = W, src: Reg = R }
        [effects: no, lanes: wave, result: bits, rules: [f16 if *ty == WaveTy::F16], handles: [], pairs: both(src) if ty.is_wide()],
    /// `dst = op over active lanes below this one` (Sum/Product; identity for the first).
    /// dx.op `WavePrefixOp`.
    WavePrefix "wave_prefix" { op: WaveOp = N, ty: WaveTy = N, dst: Reg = W, src: Reg = R }
        [effects: no, lanes: wave, result: bits, rules: [f16 if *ty == WaveTy::F16], handles: [], pairs: both(src) if ty.is_wide()],
    /// `dst = true if src != 0 in any active lane`. dx.op `WaveAnyTrue`.
    WaveAnyTrue "wave_any" { dst: Reg = W, src: Reg = R }
        [effects: no, lanes: wave, result: bool, rules: [], handles: [], pairs: none],
    /// `dst = true if src != 0 in every active lane`. dx.op `WaveAllTrue`.
    WaveAllTrue "wave_all" { dst: Reg = W, src: Reg = R }
        [effects: no, lanes: wave, result: bool, rules: [], handles: [], pairs: none],
    /// `dst = true if src (`wide`: src:64) is the same in every active lane`. dx.op `WaveActiveAllEqual`.
    WaveAllEqual "wave_all_equal" { wide: bool = N, dst: Reg = W, src: Reg = R }
        [effects: no, lanes: wave, result: bool, rules: [], handles: [], pairs: reads(src) if *wide],
    /// `dst = 128-bit mask of active lanes where src != 0`. dx.op `WaveActiveBallot`.
    WaveBallot "wave_ballot" { dst: [Reg; 4] = W, src: Reg = R }
        [effects: no, lanes: wave, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = count of active lanes where src != 0`. dx.op `WaveActiveCountBits`.
    WaveCountBits "wave_countbits" { dst: Reg = W, src: Reg = R }
        [effects: no, lanes: wave, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = count of active lanes below this one where src != 0`. dx.op `WavePrefixBitCount`.
    WavePrefixCountBits "wave_prefix_countbits" { dst: Reg = W, src: Reg = R }
        [effects: no, lanes: wave, result: u32, rules: [], handles: [], pairs: none],
    /// `dst = src (src:64 when `wide`) of lane `lane` (of the first lane's `lane` value);
    /// an inactive or out-of-range lane gives 0 (WARP 1.0.14 and later).
    /// dx.op `WaveReadLaneAt`.
    WaveReadLane "wave_read_lane" { wide: bool = N, dst: Reg = W, src: Reg = R, lane: Reg = R }
        [effects: no, lanes: wave, result: bits, rules: [wave_read_inactive], handles: [], pairs: both(src) if *wide],
    /// `dst = src of the first active lane`. dx.op `WaveReadLaneFirst`.
    WaveReadFirst "wave_read_first" { wide: bool = N, dst: Reg = W, src: Reg = R }
        [effects: no, lanes: wave, result: bits, rules: [], handles: [], pairs: both(src) if *wide],
    /// `dst = true in the first active lane`. dx.op `WaveIsFirstLane`.
    WaveIsFirstLane "wave_is_first" { dst: Reg = W }
        [effects: no, lanes: wave, result: bool, rules: [], handles: [], pairs: none],
    /// `dst = mask of active lanes whose src (src:64 when `wide`) equals this lane's`.
    /// dx.op `WaveMatch`.
    WaveMatch "wave_match" { wide: bool = N, dst: [Reg; 4] = W, src: Reg = R }
        [effects: no, lanes: wave, result: bits, rules: [], handles: [], pairs: reads(src) if *wide],
    /// `dst = op over active lanes below this one that are in this lane's `mask``.
    /// dx.op `WaveMultiPrefixOp`.
    WaveMultiPrefix "wave_multi_prefix" { op: WaveOp = N, ty: WaveTy = N, dst: Reg = W, src: Reg = R, mask: [Reg; 4] = R }
        [effects: no, lanes: wave, result: bits, rules: [f16 if *ty == WaveTy::F16], handles: [], pairs: both(src) if ty.is_wide()],
    /// `dst = count of lanes below this one in `mask` where src != 0`. dx.op `WaveMultiPrefixBitCount`.
    WaveMultiPrefixCountBits "wave_multi_prefix_countbits" { dst: Reg = W, src: Reg = R, mask: [Reg; 4] = R }
        [effects: no, lanes: wave, result: bits, rules: [], handles: [], pairs: none],
    /// `dst = src of lane `lane & 3` of this lane's quad`. dx.op `QuadReadLaneAt`.
    QuadReadLane "quad_read_lane" { wide: bool = N, dst: Reg = W, src: Reg = R, lane: Reg = R }
        [effects: no, lanes: quad, result: bits, rules: [wave_read_inactive], handles: [], pairs: both(src) if *wide],
    /// `dst = src of the quad neighbour in direction `dir``. dx.op `QuadOp`.
    QuadSwap "quad_swap" { dir: QuadDir = N, wide: bool = N, dst: Reg = W, src: Reg = R }
        [effects: no, lanes: quad, result: bits, rules: [wave_read_inactive], handles: [], pairs: both(src) if *wide],
    /// `dst = true if src != 0 in any (`all` = false) or every (`all`) lane of the quad`.
    /// dx.op `QuadVote`.
    QuadVote "quad_vote" { all: bool = N, dst: Reg = W, src: Reg = R }
        [effects: no, lanes: quad, result: bool, rules: [], handles: [], pairs: none],

    // ---- stage inputs and outputs (vertex and pixel stages; see `ir::io`) -----------------
    /// `dst = in[slot]`: input word `slot` of the lane (a signature element's component,
    /// or a system value the pipeline supplies). DXBC `v#` operands, dx.op `LoadInput`
    /// with a constant row, `Coverage`, `InnerCoverage`.
    Input "input" { dst: Reg = W, slot: u32 = N }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// `dst = index < rows ? in[slot + 4·index] : 0`: an element row chosen at run time.
    /// DXBC `v[r#.x + n]`, dx.op `LoadInput` with a non-constant row.
    InputIndexed "input_indexed" { dst: Reg = W, slot: u32 = N, index: Reg = R, rows: u32 = N }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// `out[slot] = src`. DXBC `o#`, `oDepth`, `oMask` destinations; dx.op `StoreOutput`.
    Output "output" { slot: u32 = N, src: Reg = R }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// `out[slot + 4·index] = src` when `index < rows` (else nothing).
    OutputIndexed "output_indexed" { slot: u32 = N, index: Reg = R, rows: u32 = N, src: Reg = R }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// Pixel stage: `dst =` input word `slot + 4·row` (row = `index`, or 0 when `index` is
    /// `_`; a row past the element reads 0) interpolated at `at` instead of where its
    /// declared mode puts it; `arg` holds the sample index (`sample`) or the x and y offsets
    /// (`snapped`). A non-interpolated input gives its value. DXBC `eval_centroid`,
    /// `eval_sample_index`, `eval_snapped`; dx.op `EvalCentroid`, `EvalSampleIndex`,
    /// `EvalSnapped`.
    Eval "eval" { at: EvalAt = N, dst: Reg = W, slot: u32 = N, index: Reg = R, rows: u32 = N, arg: [Reg; 2] = R }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// `dst =` the render target's sample count (1 without MSAA). DXBC `sampleinfo` of the
    /// `rasterizer` operand, dx.op `RenderTargetGetSampleCount`.
    RasterSampleCount "raster_sample_count" { dst: Reg = W }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// `dst[0], dst[1] =` f32 x and y of sample `index` of the render target's standard
    /// pattern, relative to the pixel centre (0, 0 for an index out of range). DXBC
    /// `samplepos` of the `rasterizer` operand, dx.op `RenderTargetGetSamplePosition`.
    RasterSamplePos "raster_sample_pos" { dst: [Reg; 2] = W, index: Reg = R }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: none],

    /// Geometry stage: appends one vertex to stream `stream` of the lane — a copy of its
    /// output words as they are now — unless the lane has already emitted the program's
    /// `max_vertices` (D3D drops the excess). The output words keep their values
    /// (the `emit` reference page makes them undefined after an emit; see `exec::stage`). DXBC
    /// `emit`, `emit_stream`, the emit of `emit_then_cut(_stream)`; dx.op `EmitStream`.
    Emit "emit" { stream: u32 = N }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// Geometry stage: ends the lane's current strip on stream `stream` (the next
    /// vertex starts a new one). DXBC `cut`, `cut_stream`, the cut of
    /// `emit_then_cut(_stream)`; dx.op `CutStream`.
    Cut "cut" { stream: u32 = N }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [], pairs: none],

    /// Mesh stage: `SetMeshOutputCounts(vertices, primitives)`. The group's counts are
    /// the first active lane's of the first wave to call it (the mesh shader spec,
    /// "SetMeshOutputCounts": "only the input values from the first active thread are
    /// used"); every active lane is marked as having called it. Counts above the declared
    /// maxima and a lane's second call are recorded as the group's fault (see
    /// [`MeshRegion`](crate::ir::MeshRegion)). dx.op `SetMeshOutputCounts`.
    MeshCounts "mesh_counts" { vertices: Reg = R, primitives: Reg = R }
        [effects: yes, lanes: wave, result: bits, rules: [], handles: [], pairs: none],
    /// Mesh stage: `indices[prim] = (v[0], v[1], v[2])` (`v[2]` is `_` for lines). A
    /// lane that has not called `mesh_counts`, or a `prim` not below the primitive
    /// count, records the group's fault instead. dx.op `EmitIndices`.
    MeshIndices "mesh_indices" { prim: Reg = R, v: [Reg; 3] = R }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// Mesh stage: word `slot + 4·row` of vertex `vertex` `= src` (`row` `_` is 0; a row
    /// not below `rows` writes nothing). Faults as [`Inst::MeshIndices`], against the
    /// vertex count. dx.op `StoreVertexOutput`.
    MeshVertexOut "mesh_vertex_out" { slot: u32 = N, row: Reg = R, rows: u32 = N, vertex: Reg = R, src: Reg = R }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// Mesh stage: word `slot + 4·row` of primitive `prim`'s per-primitive outputs
    /// `= src`, as [`Inst::MeshVertexOut`]. dx.op `StorePrimitiveOutput`.
    MeshPrimOut "mesh_primitive_out" { slot: u32 = N, row: Reg = R, rows: u32 = N, prim: Reg = R, src: Reg = R }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// Amplification stage: `DispatchMesh(groups[0], groups[1], groups[2], payload)`,
    /// the payload being the shared memory at byte `payload`. The first active lane of
    /// the first wave to call it gives the counts (the spec's "DispatchMesh intrinsic":
    /// arguments are read from the first thread); every caller is counted, and the wave
    /// then waits as at a group barrier (the call "implies a
    /// GroupMemoryBarrierWithGroupSync()"). The pipeline reads the payload when the
    /// group has ended. dx.op `DispatchMesh`.
    DispatchMesh "dispatch_mesh" { groups: [Reg; 3] = R, payload: u32 = N }
        [effects: yes, lanes: wave, result: bits, rules: [], handles: [], pairs: none],

    // ---- synchronisation and lane control ------------------------------------------------
    /// Memory barrier; with `group_sync`, every wave of the thread group reaches it before
    /// any passes it. DXBC `sync`, dx.op `Barrier`.
    Barrier "barrier" { group_sync: bool = N, group_memory: bool = N, device_memory: bool = N }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// Ends the lanes where `cond != 0` (pixel `discard`); they write nothing more.
    Discard "discard" { cond: Reg = R }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// Turns the lanes where `cond != 0` into helper lanes: they run on for their quad's
    /// derivatives but write nothing more, and their pixels are discarded (reported as
    /// killed). dx.op `Discard` (D3D's discard demotes; SPIR-V `OpDemoteToHelperInvocation`).
    Demote "demote" { cond: Reg = R }
        [effects: yes, lanes: own, result: bits, rules: [], handles: [], pairs: none],
    /// `dst = true if this lane is a helper lane`. dx.op `IsHelperLane`.
    IsHelper "is_helper" { dst: Reg = W }
        [effects: no, lanes: own, result: bool, rules: [], handles: [], pairs: none],
    /// `dst:64 = a cycle counter` (the lane's count of executed instructions).
    CycleCounter "cycle_counter" { dst: Reg = W64 }
        [effects: no, lanes: own, result: bits, rules: [], handles: [], pairs: none],
}
