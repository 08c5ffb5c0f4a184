//! The IR validator: every invariant code that runs a shader relies on, checked once.
//!
//! A shader is valid when:
//!
//! 1. **Layout.** There is at least one block; block 0 is the entry; the blocks' runs
//!    of instructions are contiguous and in order and cover `insts` exactly;
//!    `locs.len() == insts.len()`.
//! 2. **Registers.** `num_regs` is at most [`Shader::MAX_REGS`]; every register operand
//!    is below `num_regs` (both halves of a 64-bit operand); `consts.len() <= num_regs`; no instruction writes a constant
//!    register (`0..consts.len()`).
//! 3. **Operand lists.** In a `[Reg; 4]` list governed by a `mask`, exactly the
//!    components in the mask name registers, the others are `_`; masks are non-empty
//!    4-bit values. Registers carrying 64-bit data (width `b64`, `wide` wave operations,
//!    64-bit wave types) have their second half in range.
//! 4. **Indices.** Array, constant-array and resource-range ids are in range; a heap
//!    handle appears only when the shader says it uses that heap; small immediates are
//!    in range (`sysval` axis < 3, `sext` bits 8 or 16, gather channel < 4); sampler
//!    feedback's mode is `implicit`, `bias`, `level` or `grad`.
//! 5. **Types.** Bitwise wave operations take integer types.
//! 6. **Control flow.** Terminator targets are in range, switch values distinct, and
//!    the blocks are in a structured order (see [`crate::ir::cfg`]): reducible, forward
//!    edges forward, loops contiguous.
//! 7. **Arrays.** Local array sizes are multiples of 4 bytes.
//! 8. **Stage inputs and outputs.** Every element's words (`slot + 4·row + c` for its
//!    rows and mask components) are below `input_words`/`output_words`, rows ≥ 1, masks
//!    non-empty; every `input`/`output` word (all `rows` of an indexed one) is below the
//!    stage's word count; `eval` only in pixel shaders, and only on input words;
//!    compute shaders have no inputs or outputs.
//! 9. **Geometry.** `emit` and `cut` only in geometry shaders with their
//!    [`GeometryState`](crate::ir::GeometryState), on streams 0 … 3; the state only in
//!    geometry shaders, its input vertices' words within `input_words`, `max_vertices`
//!    ≤ 1024, 1 ≤ `instances` ≤ 32, and `max_vertices × instances` ≤ 1024 (D3D11's
//!    limits; the last from `dcl_gsinstances`).
//! 10. **Mesh and amplification.** The [`MeshState`](crate::ir::MeshState) only in mesh
//!     and amplification shaders, which have it, with at most 256 vertices and 256
//!     primitives and a payload of at most 16 KiB (the mesh shader spec's limits); the
//!     output instructions (`mesh_counts`, `mesh_indices`, `mesh_vertex_out`,
//!     `mesh_primitive_out`) only in mesh shaders, their words below `output_words` or
//!     `primitive_words`; `dispatch_mesh` only in amplification shaders, its payload
//!     inside group shared memory.
//! 11. **Ray tracing.** The [`RayState`](crate::ir::RayState) in exactly the ray-tracing
//!     stages, its payload (any-hit, closest-hit, miss, callable) and attributes
//!     (any-hit, closest-hit; at most 32 bytes) in arrays that hold them; `rt_get` only
//!     of a value the stage may read and a component it has; `rt_trace` in ray
//!     generation, closest-hit and miss, `rt_call` there and in callable programs,
//!     `rt_report_hit` in intersection and `rt_hit_end` in any-hit programs (DXR spec,
//!     each intrinsic's "can be called from"); copied memory at most 16 KiB.

use super::cfg::{self, Cfg, CfgError};
use super::ids::{BlockId, InstId, Reg};
use super::inst::{Inst, SampleMode, WaveOp, WaveTy, Width};
use super::io::{IoElement, NO_REGISTER};
use super::operand::Role;
use super::shader::{Shader, SourceLoc, Stage, Terminator};

/// A broken invariant, with where it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ValidateError {
    /// The block/instruction layout is broken.
    #[error("layout: {0}")]
    Layout(String),
    /// An instruction is wrong.
    #[error("{inst} ({loc}): `{text}`: {message}")]
    Inst {
        /// The instruction.
        inst: InstId,
        /// Its source.
        loc: SourceLoc,
        /// The instruction as printed.
        text: String,
        /// What is wrong.
        message: String,
    },
    /// A terminator is wrong.
    #[error("terminator of {block}: {message}")]
    Terminator {
        /// The block.
        block: BlockId,
        /// What is wrong.
        message: String,
    },
    /// The control-flow graph cannot be run with reconvergence.
    #[error(transparent)]
    Cfg(#[from] CfgError),
}

/// Checks every invariant listed in the module documentation.
pub fn validate(s: &Shader) -> Result<(), ValidateError> {
    layout(s)?;
    if s.num_regs > Shader::MAX_REGS {
        return Err(ValidateError::Layout(format!(
            "{} registers; a program may have at most {}",
            s.num_regs,
            Shader::MAX_REGS
        )));
    }
    if s.consts.len() as u64 > u64::from(s.num_regs) {
        return Err(ValidateError::Layout(format!(
            "{} constants but {} registers",
            s.consts.len(),
            s.num_regs
        )));
    }
    for (i, x) in s.locals.iter().enumerate() {
        if x.bytes % 4 != 0 {
            return Err(ValidateError::Layout(format!(
                "local x{i} has {} bytes, not a multiple of 4",
                x.bytes
            )));
        }
    }
    io(s)?;
    check_geometry(s).map_err(ValidateError::Layout)?;
    check_mesh(s).map_err(ValidateError::Layout)?;
    check_tessellation(s).map_err(ValidateError::Layout)?;
    check_ray(s).map_err(ValidateError::Layout)?;
    for (i, inst) in s.insts.iter().enumerate() {
        check_inst(s, inst).map_err(|message| ValidateError::Inst {
            inst: InstId(i as u32),
            loc: s.locs.get(i).copied().unwrap_or_default(),
            text: inst.to_string(),
            message,
        })?;
    }
    let nblocks = s.blocks.len() as u32;
    for (b, block) in s.blocks.iter().enumerate() {
        let err = |message: String| ValidateError::Terminator {
            block: BlockId(b as u32),
            message,
        };
        for t in block.term.successors() {
            if t.0 >= nblocks {
                return Err(err(format!("target {t} does not exist")));
            }
        }
        if let Some(r) = block.term.reg()
            && r.0 >= s.num_regs
        {
            return Err(err(format!("register {r} out of range")));
        }
        if let Terminator::Switch { cases, .. } = &block.term {
            let mut values: Vec<u32> = cases.iter().map(|c| c.0).collect();
            values.sort_unstable();
            if values.windows(2).any(|w| w[0] == w[1]) {
                return Err(err("switch has a repeated case value".into()));
            }
        }
    }
    cfg::check_order(&Cfg::new(s))?;
    Ok(())
}

/// Invariant 8 for the element tables.
fn io(s: &Shader) -> Result<(), ValidateError> {
    if s.stage == Stage::Compute && (s.input_words > 0 || s.output_words > 0) {
        return Err(ValidateError::Layout(
            "a compute shader has no stage inputs or outputs".into(),
        ));
    }
    let prim_words = s.mesh.map_or(0, |m| m.primitive_words);
    for (what, elems, words) in [
        ("input", &s.inputs, s.input_words),
        ("output", &s.outputs, s.output_words),
        ("primitive output", &s.primitive_outputs, prim_words),
    ] {
        io_elements(what, elems, words)?;
    }
    let streams: Vec<IoElement> = s.stream_outputs.iter().map(|(_, e)| e.clone()).collect();
    io_elements("stream output", &streams, s.output_words)?;
    if let Some((stream, e)) = s.stream_outputs.iter().find(|(k, _)| *k >= MAX_STREAMS) {
        return Err(ValidateError::Layout(format!(
            "stream output element {} on stream {stream}: a geometry program has streams 0 to {}",
            e.semantic_name(),
            MAX_STREAMS - 1
        )));
    }
    Ok(())
}

/// Invariant 8 for one element table of `words` words.
fn io_elements(what: &str, elems: &[IoElement], words: u32) -> Result<(), ValidateError> {
    {
        for (i, e) in elems.iter().enumerate() {
            // The highest word the element uses: its last row's highest component.
            let high = 7u32.saturating_sub(e.mask.leading_zeros());
            let fits = e.mask != 0
                && e.mask < 16
                && e.rows >= 1
                && u64::from(e.slot) + 4 * (u64::from(e.rows) - 1) + u64::from(high)
                    < u64::from(words);
            if !fits {
                return Err(ValidateError::Layout(format!(
                    "{what} element {i} ({}) at slot {} with {} rows and mask {:#x} does not fit {words} words",
                    e.semantic_name(),
                    e.slot,
                    e.rows,
                    e.mask
                )));
            }
        }
    }
    Ok(())
}

/// Whether words `slot`, `slot + 4`, … (`rows` of them) are all below `words`.
/// Output streams of a geometry shader (`D3D11_SO_STREAM_COUNT`).
pub const MAX_STREAMS: u32 = 4;
/// The most vertices one geometry invocation may emit
/// (`D3D11_GS_MAX_OUTPUT_VERTEX_COUNT_ACROSS_INSTANCES`).
pub const MAX_GS_VERTICES: u32 = 1024;
/// The most `[instance(n)]` invocations per primitive (`D3D11_GS_MAX_INSTANCE_COUNT`).
pub const MAX_GS_INSTANCES: u32 = 32;

/// Invariant 10: the mesh state fits its stage.
fn check_mesh(s: &Shader) -> Result<(), String> {
    use super::io::{MAX_MESH_PAYLOAD_BYTES, MAX_MESH_PRIMITIVES, MAX_MESH_VERTICES};
    let ms = matches!(s.stage, Stage::Mesh | Stage::Amplification);
    let Some(m) = s.mesh else {
        return match ms {
            true => Err(format!("a {} shader without its mesh state", s.stage)),
            false => Ok(()),
        };
    };
    if !ms {
        return Err(format!("mesh state in a {} shader", s.stage));
    }
    if m.max_vertices > MAX_MESH_VERTICES || m.max_primitives > MAX_MESH_PRIMITIVES {
        return Err(format!(
            "{} vertices and {} primitives: at most {MAX_MESH_VERTICES} and {MAX_MESH_PRIMITIVES}",
            m.max_vertices, m.max_primitives
        ));
    }
    if m.payload_bytes > MAX_MESH_PAYLOAD_BYTES {
        return Err(format!(
            "a payload of {} bytes: at most {MAX_MESH_PAYLOAD_BYTES}",
            m.payload_bytes
        ));
    }
    Ok(())
}

/// The most control points a patch has (`D3D11_IA_PATCH_MAX_CONTROL_POINT_COUNT`).
pub const MAX_CONTROL_POINTS: u32 = 32;

/// Invariant 11: the hull and domain states fit their stages and their words.
fn check_tessellation(s: &Shader) -> Result<(), String> {
    let fits = |what: &str, start: u32, words: u64, total: u32| -> Result<(), String> {
        if u64::from(start).saturating_add(words) > u64::from(total) {
            return Err(format!(
                "{what} (words {start} + {words}) past the {total} words"
            ));
        }
        Ok(())
    };
    if let Some(h) = s.hull {
        if s.stage != Stage::Hull {
            return Err(format!("hull state in a {} shader", s.stage));
        }
        if !(1..=MAX_CONTROL_POINTS).contains(&h.input_points)
            || h.output_points > MAX_CONTROL_POINTS
        {
            return Err(format!(
                "{} input and {} output control points: 1 … {MAX_CONTROL_POINTS} and 0 … {MAX_CONTROL_POINTS}",
                h.input_points, h.output_points
            ));
        }
        let n = s.input_words;
        fits(
            "the input control points",
            0,
            u64::from(h.point_words) * u64::from(h.input_points),
            n,
        )?;
        fits(
            "the output control points (vocp)",
            h.ocp_word,
            u64::from(h.output_point_words) * u64::from(h.output_points),
            n,
        )?;
        fits(
            "the patch constants (vpc)",
            h.vpc_word,
            u64::from(s.output_words.saturating_sub(h.output_point_words)),
            n,
        )?;
        fits("the phase word", h.phase_word, 1, n)?;
        fits(
            "the output control point",
            0,
            u64::from(h.output_point_words),
            s.output_words,
        )?;
        for w in h.factor_words.iter().filter(|w| **w != NO_REGISTER) {
            fits("a tessellation factor", *w, 1, s.output_words)?;
        }
    }
    if let Some(d) = s.domain {
        if s.stage != Stage::Domain {
            return Err(format!("domain state in a {} shader", s.stage));
        }
        if !(1..=MAX_CONTROL_POINTS).contains(&d.input_points) {
            return Err(format!(
                "{} control points: 1 … {MAX_CONTROL_POINTS}",
                d.input_points
            ));
        }
        let n = s.input_words;
        fits(
            "the control points",
            0,
            u64::from(d.point_words) * u64::from(d.input_points),
            n,
        )?;
        fits("the patch constants", d.patch_word, 0, n)?;
        fits("the domain location", d.location_word, 3, n)?;
    }
    Ok(())
}

/// Invariant 9: the geometry state fits its stage and its words.
fn check_geometry(s: &Shader) -> Result<(), String> {
    let Some(g) = s.geometry else {
        return Ok(());
    };
    if s.stage != Stage::Geometry {
        return Err(format!("geometry state in a {} shader", s.stage));
    }
    if g.max_vertices > MAX_GS_VERTICES {
        return Err(format!(
            "max_vertices {}: at most {MAX_GS_VERTICES}",
            g.max_vertices
        ));
    }
    if !(1..=MAX_GS_INSTANCES).contains(&g.instances) {
        return Err(format!(
            "instances {}: 1 to {MAX_GS_INSTANCES}",
            g.instances
        ));
    }
    // `dcl_gsinstances`' reference page: the instance count times the per-instance
    // `dcl_maxOutputVertexCount` is at most 1024, so instancing spreads one budget of
    // vertices over the instances rather than multiplying it.
    if u64::from(g.max_vertices) * u64::from(g.instances) > u64::from(MAX_GS_VERTICES) {
        return Err(format!(
            "max_vertices {} × instances {}: at most {MAX_GS_VERTICES} across the instances",
            g.max_vertices, g.instances
        ));
    }
    let words = u64::from(g.vertex_words) * u64::from(g.input.vertices());
    if words > u64::from(s.input_words) {
        return Err(format!(
            "{} input vertices of {} words exceed the {} input words",
            g.input.vertices(),
            g.vertex_words,
            s.input_words
        ));
    }
    Ok(())
}

fn words_fit(slot: u32, rows: u32, words: u32) -> bool {
    rows >= 1 && u64::from(slot) + 4 * (u64::from(rows) - 1) < u64::from(words)
}

fn layout(s: &Shader) -> Result<(), ValidateError> {
    let e = |m: String| Err(ValidateError::Layout(m));
    if s.blocks.is_empty() {
        return e("no blocks".into());
    }
    if s.locs.len() != s.insts.len() {
        return e(format!(
            "{} source locations for {} instructions",
            s.locs.len(),
            s.insts.len()
        ));
    }
    let mut at = 0u32;
    for (b, block) in s.blocks.iter().enumerate() {
        if block.start != at || block.end < block.start {
            return e(format!(
                "block{b} covers {}..{}, expected to start at {at}",
                block.start, block.end
            ));
        }
        at = block.end;
    }
    if at as usize != s.insts.len() {
        return e(format!(
            "blocks cover {at} of {} instructions",
            s.insts.len()
        ));
    }
    Ok(())
}

fn check_reg(s: &Shader, role: Role, r: Reg) -> Result<(), String> {
    let top = if role.is_wide() {
        r.0.checked_add(1)
    } else {
        Some(r.0)
    };
    if top.is_none_or(|t| t >= s.num_regs) {
        return Err(format!(
            "register {r} out of range (the shader has {})",
            s.num_regs
        ));
    }
    if role.writes() && s.is_const(r) {
        return Err(format!("writes constant register {r}"));
    }
    if role == Role::Write64 && s.is_const(r.hi()) {
        return Err(format!("writes constant register {}", r.hi()));
    }
    Ok(())
}

fn wide(s: &Shader, regs: &[Reg], writes: bool) -> Result<(), String> {
    for r in regs.iter().filter(|r| !r.is_none()) {
        check_reg(s, if writes { Role::Write64 } else { Role::Read64 }, *r)?;
    }
    Ok(())
}

fn masked(mask: u8, regs: &[Reg; 4]) -> Result<(), String> {
    if mask == 0 || mask > 0xf {
        return Err(format!("mask {mask:#x} is not a non-empty 4-bit mask"));
    }
    for (i, r) in regs.iter().enumerate() {
        let on = mask & (1 << i) != 0;
        if on == r.is_none() {
            return Err(format!(
                "component {i} is {} the mask but names {r:?}",
                if on { "in" } else { "outside" }
            ));
        }
    }
    Ok(())
}

/// "a miss", "an intersection": the stage with its article, for messages.
fn a_stage(stage: Stage) -> String {
    let name = stage.to_string();
    let article = if name.starts_with(['a', 'e', 'i', 'o', 'u']) {
        "an"
    } else {
        "a"
    };
    format!("{article} {name}")
}

/// The size of memory a ray-tracing operation copies: at most
/// [`MAX_RAY_PAYLOAD_BYTES`](super::MAX_RAY_PAYLOAD_BYTES).
fn ray_memory(bytes: u32) -> Result<(), String> {
    if bytes > super::MAX_RAY_PAYLOAD_BYTES {
        return Err(format!(
            "{bytes} bytes of payload (at most {})",
            super::MAX_RAY_PAYLOAD_BYTES
        ));
    }
    Ok(())
}

/// Invariant 11: the ray state only in ray-tracing stages (which have it), its arrays
/// existing and at least as large as the bytes they hold; a payload only in any-hit,
/// closest-hit, miss and callable programs, attributes only in any-hit and closest-hit.
fn check_ray(s: &Shader) -> Result<(), String> {
    let Some(r) = s.ray else {
        if s.stage.is_ray_tracing() {
            return Err(format!("{} shader without its ray state", a_stage(s.stage)));
        }
        return Ok(());
    };
    if !s.stage.is_ray_tracing() {
        return Err(format!("ray state in {} shader", a_stage(s.stage)));
    }
    let fits = |(x, bytes): (super::LocalId, u32), what: &str| match s.locals.get(x.index()) {
        Some(a) if a.bytes >= bytes => Ok(()),
        Some(a) => Err(format!(
            "{what} of {bytes} bytes in {x} of {} bytes",
            a.bytes
        )),
        None => Err(format!("{what} in {x}, which does not exist")),
    };
    if let Some(p) = r.payload {
        if !matches!(
            s.stage,
            Stage::AnyHit | Stage::ClosestHit | Stage::Miss | Stage::Callable
        ) {
            return Err(format!("a payload in {} shader", a_stage(s.stage)));
        }
        fits(p, "the payload")?;
        ray_memory(p.1)?;
    }
    if let Some(a) = r.attributes {
        if !matches!(s.stage, Stage::AnyHit | Stage::ClosestHit) {
            return Err(format!("attributes in {} shader", a_stage(s.stage)));
        }
        fits(a, "the attributes")?;
        if a.1 > super::MAX_RAY_ATTRIBUTE_BYTES {
            return Err(format!(
                "{} bytes of attributes (at most {})",
                a.1,
                super::MAX_RAY_ATTRIBUTE_BYTES
            ));
        }
    }
    Ok(())
}

fn check_inst(s: &Shader, inst: &Inst) -> Result<(), String> {
    let mut err = Ok(());
    inst.visit_regs(&mut |role, r| {
        if err.is_ok() {
            err = check_reg(s, role, r);
        }
    });
    err?;
    let local = |x: super::ids::LocalId| {
        if x.index() < s.locals.len() {
            Ok(())
        } else {
            Err(format!("{x} does not exist"))
        }
    };
    match inst {
        Inst::LocalLoad {
            width,
            mask,
            dst,
            array,
            ..
        } => {
            local(*array)?;
            masked(*mask, dst)?;
            if *width == Width::B64 {
                wide(s, dst, true)?;
            }
        }
        Inst::LocalStore {
            width,
            mask,
            src,
            array,
            ..
        } => {
            local(*array)?;
            masked(*mask, src)?;
            if *width == Width::B64 {
                wide(s, src, false)?;
            }
        }
        Inst::ConstLoad {
            width,
            mask,
            dst,
            array,
            ..
        } => {
            if array.index() >= s.const_arrays.len() {
                return Err(format!("{array} does not exist"));
            }
            masked(*mask, dst)?;
            if *width == Width::B64 {
                wide(s, dst, true)?;
            }
        }
        Inst::SharedLoad {
            width, mask, dst, ..
        }
        | Inst::RawLoad {
            width, mask, dst, ..
        }
        | Inst::StructLoad {
            width, mask, dst, ..
        }
        | Inst::CbLoad {
            width, mask, dst, ..
        } => {
            masked(*mask, dst)?;
            if *width == Width::B64 {
                wide(s, dst, true)?;
            }
        }
        Inst::SharedStore {
            width, mask, src, ..
        }
        | Inst::RawStore {
            width, mask, src, ..
        }
        | Inst::StructStore {
            width, mask, src, ..
        } => {
            masked(*mask, src)?;
            if *width == Width::B64 {
                wide(s, src, false)?;
            }
        }
        Inst::TypedStore { mask, src, .. } => masked(*mask, src)?,
        Inst::Handle { range, .. } if range.index() >= s.resources.len() => {
            return Err(format!("{range} does not exist"));
        }
        Inst::RayQueryAlloc { slot, .. } if *slot >= super::MAX_RAY_QUERY_SLOTS => {
            return Err(format!(
                "ray query slot {slot} is not below {}",
                super::MAX_RAY_QUERY_SLOTS
            ));
        }
        Inst::RayQueryGet { value, index, .. } if *index >= value.components() => {
            return Err(format!(
                "component {index} of {value}, which has {}",
                value.components()
            ));
        }
        Inst::RayGet { value, index, .. } => {
            if *index >= value.components() {
                return Err(format!(
                    "component {index} of {value}, which has {}",
                    value.components()
                ));
            }
            if !value.available_in(s.stage) {
                return Err(format!("{value} in {} shader", a_stage(s.stage)));
            }
        }
        Inst::RayTrace { payload, bytes, .. } => {
            local(*payload)?;
            ray_memory(*bytes)?;
            // DXR spec "TraceRay": callable from ray generation, closest-hit and miss.
            if !matches!(
                s.stage,
                Stage::RayGeneration | Stage::ClosestHit | Stage::Miss
            ) {
                return Err(format!("TraceRay in {} shader", a_stage(s.stage)));
            }
        }
        Inst::RayCall { param, bytes, .. } => {
            local(*param)?;
            ray_memory(*bytes)?;
            // DXR spec "CallShader": ray generation, closest-hit, miss and callable.
            if !matches!(
                s.stage,
                Stage::RayGeneration | Stage::ClosestHit | Stage::Miss | Stage::Callable
            ) {
                return Err(format!("CallShader in {} shader", a_stage(s.stage)));
            }
        }
        Inst::RayReportHit { attrs, bytes, .. } => {
            local(*attrs)?;
            if *bytes > super::MAX_RAY_ATTRIBUTE_BYTES {
                return Err(format!(
                    "{bytes} bytes of attributes (at most {})",
                    super::MAX_RAY_ATTRIBUTE_BYTES
                ));
            }
            // DXR spec "ReportHit": intersection programs only.
            if s.stage != Stage::Intersection {
                return Err(format!("ReportHit in {} shader", a_stage(s.stage)));
            }
        }
        Inst::HitObjectTrace { slot, .. }
        | Inst::HitObjectMiss { slot, .. }
        | Inst::HitObjectNop { slot, .. }
        | Inst::HitObjectFromQuery { slot, .. }
        | Inst::HitObjectFromQueryAttrs { slot, .. }
        | Inst::HitObjectSetIndex { slot, .. }
            if *slot >= super::MAX_HIT_OBJECT_SLOTS =>
        {
            return Err(format!(
                "hit object slot {slot} is not below {}",
                super::MAX_HIT_OBJECT_SLOTS
            ));
        }
        Inst::HitObjectGet { value, index, .. } if *index >= value.components() => {
            return Err(format!(
                "component {index} of {value}, which has {}",
                value.components()
            ));
        }
        Inst::HitObjectTrace { .. }
        | Inst::HitObjectMiss { .. }
        | Inst::HitObjectNop { .. }
        | Inst::HitObjectFromQuery { .. }
        | Inst::HitObjectFromQueryAttrs { .. }
        | Inst::HitObjectSetIndex { .. }
        | Inst::HitObjectInvoke { .. }
        | Inst::HitObjectGet { .. }
        | Inst::HitObjectLoadLocal { .. }
        | Inst::HitObjectAttributes { .. }
            if !matches!(
                s.stage,
                Stage::RayGeneration | Stage::ClosestHit | Stage::Miss
            ) =>
        {
            // HLSL proposal 0027 "Valid Shader Stages": ray generation, closest-hit and
            // miss (the stages that may call TraceRay).
            return Err(format!("a hit object in {} shader", a_stage(s.stage)));
        }
        Inst::HitObjectTrace { payload, bytes, .. }
        | Inst::HitObjectInvoke { payload, bytes, .. } => {
            local(*payload)?;
            ray_memory(*bytes)?;
        }
        Inst::HitObjectFromQueryAttrs { attrs, bytes, .. }
        | Inst::HitObjectAttributes { attrs, bytes, .. } => {
            local(*attrs)?;
            if *bytes > super::MAX_RAY_ATTRIBUTE_BYTES {
                return Err(format!(
                    "{bytes} bytes of attributes (at most {})",
                    super::MAX_RAY_ATTRIBUTE_BYTES
                ));
            }
        }
        Inst::RayHitEnd { op, .. } if s.stage != Stage::AnyHit => {
            // DXR spec "IgnoreHit", "AcceptHitAndEndSearch": any-hit programs only.
            return Err(format!("{op} in {} shader", a_stage(s.stage)));
        }
        Inst::HeapHandle { sampler, .. } => {
            let declared = if *sampler {
                s.uses_sampler_heap
            } else {
                s.uses_resource_heap
            };
            if !declared {
                return Err("heap handle in a shader that does not declare heap use".into());
            }
        }
        Inst::Input { slot, .. } if !words_fit(*slot, 1, s.input_words) => {
            return Err(format!("input word {slot} of {}", s.input_words));
        }
        Inst::InputIndexed { slot, rows, .. } if !words_fit(*slot, *rows, s.input_words) => {
            return Err(format!(
                "input words {slot} + 4 × {rows} rows of {}",
                s.input_words
            ));
        }
        Inst::Output { slot, .. } if !words_fit(*slot, 1, s.output_words) => {
            return Err(format!("output word {slot} of {}", s.output_words));
        }
        Inst::OutputIndexed { slot, rows, .. } if !words_fit(*slot, *rows, s.output_words) => {
            return Err(format!(
                "output words {slot} + 4 × {rows} rows of {}",
                s.output_words
            ));
        }
        Inst::Emit { stream } | Inst::Cut { stream } => {
            if s.stage != Stage::Geometry || s.geometry.is_none() {
                return Err("emit or cut outside a geometry shader with its state".into());
            }
            if *stream >= MAX_STREAMS {
                return Err(format!(
                    "stream {stream}: a geometry shader has {MAX_STREAMS}"
                ));
            }
        }
        Inst::MeshCounts { .. } | Inst::MeshIndices { .. } if s.stage != Stage::Mesh => {
            return Err("a mesh output outside a mesh shader".into());
        }
        Inst::MeshVertexOut { slot, rows, .. } | Inst::MeshPrimOut { slot, rows, .. } => {
            let words = match (inst, s.mesh) {
                (_, None) => return Err("a mesh output outside a mesh shader".into()),
                (Inst::MeshVertexOut { .. }, _) => s.output_words,
                (_, Some(m)) => m.primitive_words,
            };
            if s.stage != Stage::Mesh {
                return Err("a mesh output outside a mesh shader".into());
            }
            if !words_fit(*slot, *rows, words) {
                return Err(format!("output words {slot} + 4 × {rows} rows of {words}"));
            }
        }
        Inst::DispatchMesh { payload, .. } => {
            let Some(m) = s.mesh.filter(|_| s.stage == Stage::Amplification) else {
                return Err("dispatch_mesh outside an amplification shader".into());
            };
            if u64::from(*payload) + u64::from(m.payload_bytes) > u64::from(s.groupshared_bytes) {
                return Err(format!(
                    "a payload of {} bytes at byte {payload} of {} bytes of group shared memory",
                    m.payload_bytes, s.groupshared_bytes
                ));
            }
        }
        Inst::Eval { slot, rows, .. } => {
            if s.stage != Stage::Pixel {
                return Err("eval outside a pixel shader".into());
            }
            if !words_fit(*slot, *rows, s.input_words) {
                return Err(format!(
                    "input words {slot} + 4 × {rows} rows of {}",
                    s.input_words
                ));
            }
        }
        Inst::SysValue { axis, .. } if *axis >= 3 => {
            return Err(format!("axis {axis} is not 0, 1 or 2"));
        }
        Inst::SExtBits { bits, .. } if *bits != 8 && *bits != 16 => {
            return Err(format!("sext of {bits} bits"));
        }
        Inst::Gather { channel, .. } if *channel >= 4 => {
            return Err(format!("gather channel {channel}"));
        }
        Inst::GatherRaw { bits, word, .. } => {
            let words = match bits {
                16 | 32 => 1,
                64 => 2,
                _ => return Err(format!("raw gather of {bits}-bit elements")),
            };
            if *word >= words {
                return Err(format!("word {word} of a {bits}-bit raw gather"));
            }
        }
        Inst::WriteFeedback { mode, .. }
            if !matches!(
                mode,
                SampleMode::Implicit | SampleMode::Bias | SampleMode::Level | SampleMode::Grad
            ) =>
        {
            return Err(format!(
                "write_feedback in mode {mode}: feedback does not compare"
            ));
        }
        Inst::WaveReduce { op, ty, dst, src } | Inst::WavePrefix { op, ty, dst, src } => {
            wave_ty(*op, *ty)?;
            if ty.is_wide() {
                wide(s, &[*dst], true)?;
                wide(s, &[*src], false)?;
            }
        }
        Inst::WaveMultiPrefix {
            op, ty, dst, src, ..
        } => {
            wave_ty(*op, *ty)?;
            if ty.is_wide() {
                wide(s, &[*dst], true)?;
                wide(s, &[*src], false)?;
            }
        }
        Inst::WaveAllEqual {
            wide: true, src, ..
        }
        | Inst::WaveMatch {
            wide: true, src, ..
        } => wide(s, &[*src], false)?,
        Inst::WaveReadLane {
            wide: true,
            dst,
            src,
            ..
        }
        | Inst::WaveReadFirst {
            wide: true,
            dst,
            src,
        }
        | Inst::QuadReadLane {
            wide: true,
            dst,
            src,
            ..
        }
        | Inst::QuadSwap {
            wide: true,
            dst,
            src,
            ..
        } => {
            wide(s, &[*dst], true)?;
            wide(s, &[*src], false)?;
        }
        _ => {}
    }
    Ok(())
}

fn wave_ty(op: WaveOp, ty: WaveTy) -> Result<(), String> {
    let float = matches!(ty, WaveTy::F16 | WaveTy::F32 | WaveTy::F64);
    if float && matches!(op, WaveOp::And | WaveOp::Or | WaveOp::Xor) {
        return Err(format!("bitwise wave {op} on {ty}"));
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_shader;

    fn check(text: &str) -> Result<(), ValidateError> {
        validate(&parse_shader(text).unwrap())
    }

    #[test]
    fn accepts_a_small_loop() {
        let text = "shader compute\nregs 3\nconst r0 = 1\nblock0:\n    mov r1, r0\n    jump block1\nblock1:\n    iadd r1, r1, r0\n    icmp ult, r2, r1, r0\n    branch r2, block1, block2\nblock2:\n    return\n";
        check(text).unwrap();
    }

    /// A range of no registers (DXIL metadata can say so) is legal and binds nothing;
    /// naming it overflowed (found by the interpreter fuzz target).
    #[test]
    fn an_empty_resource_range_has_a_name() {
        let s = parse_shader("shader compute\nregs 2\nresource range0 = uav space 0 lower 3 count 0 raw_buffer uint \"x\"\nblock0:\n    return\n").unwrap();
        validate(&s).unwrap();
        assert_eq!(s.resources[0].binding_name(), "u3 (no registers)");
    }

    /// Runners and analyses size per-register state from `num_regs`: a program claiming
    /// billions of registers must be refused before anything is allocated, and `_`'s
    /// number written as a register must not slip past the operand checks (found by the
    /// interpreter fuzz target: it made a 2^32-register program that validated).
    #[test]
    fn refuses_more_registers_than_a_program_may_have() {
        let e = check("shader compute\nregs 4000000000\nblock0:\n    return\n").unwrap_err();
        assert!(e.to_string().contains("at most 1048576"), "{e}");
        let e = parse_shader(
            "shader compute\nregs 2\nconst r0 = 1\nblock0:\n    mov r4294967295, r0\n    return\n",
        )
        .unwrap_err();
        assert!(
            e.to_string().contains("past the most a program may have"),
            "{e}"
        );
        check("shader compute\nregs 2\nconst r0 = 1\nblock0:\n    mov r1048575, r0\n    return\n")
            .unwrap();
    }

    /// `dcl_gsinstances` (its reference page): `instances × max_vertices ≤ 1024`; 32
    /// instances of 32 vertices is the most, 32 of 33 is refused, and so is 2 × 1024.
    #[test]
    fn geometry_instances_share_the_vertex_budget() {
        let gs = |max: u32, instances: u32| {
            format!(
                "shader geometry\nregs 2\nio_words in 4 out 4\n\
output \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0\n\
geometry input point output pointlist max_vertices {max} instances {instances} vertex_words 4\n\
block0:\n    return\n"
            )
        };
        check(&gs(32, 32)).unwrap();
        check(&gs(1024, 1)).unwrap();
        for (max, instances) in [(33, 32), (1024, 2)] {
            let e = check(&gs(max, instances)).unwrap_err();
            assert!(e.to_string().contains("across the instances"), "{e}");
        }
    }

    /// Invariant 11. DXR spec "Shader parameters": any-hit and closest-hit take a
    /// payload and attributes, miss a payload, callable a parameter, ray generation and
    /// intersection nothing; "System value intrinsics": `HitKind()` only in any-hit and
    /// closest-hit; "ReportHit": intersection only; "TraceRay": ray generation, closest
    /// hit and miss; "IgnoreHit": any-hit only; attributes at most 32 bytes
    /// (`D3D12_RAYTRACING_MAX_ATTRIBUTE_SIZE_IN_BYTES`).
    #[test]
    fn ray_tracing_rules() {
        let prog = |stage: &str, ray: &str, body: &str| {
            format!(
                "shader {stage}\nregs 4\nconst r0 = 0\nlocal x0 20 \"payload\"\nlocal x1 8 \"attributes\"\n{ray}\nblock0:\n{body}    return\n"
            )
        };
        let ok = |stage: &str, ray: &str, body: &str| {
            check(&prog(stage, ray, body)).unwrap_or_else(|e| panic!("{stage}: {e}"))
        };
        let bad = |stage: &str, ray: &str, body: &str, want: &str| {
            let e = check(&prog(stage, ray, body)).unwrap_err().to_string();
            assert!(e.contains(want), "{stage} {ray} {body}: {e}");
        };
        let both = "ray payload x0 bytes 20 attributes x1 bytes 8";
        ok("closesthit", both, "    rt_get hit_kind, 0, r1\n");
        ok("anyhit", both, "    rt_hit_end ignore\n");
        ok(
            "miss",
            "ray payload x0 bytes 20",
            "    rt_get world_ray_direction, 2, r1\n",
        );
        ok(
            "raygeneration",
            "ray",
            "    rt_get dispatch_rays_index, 1, r1\n",
        );
        ok(
            "intersection",
            "ray",
            "    rt_report_hit r1, r0, r0, x1, r0, 0, 8\n",
        );
        bad(
            "miss",
            "ray payload x0 bytes 20",
            "    rt_get hit_kind, 0, r1\n",
            "hit_kind in a miss",
        );
        bad(
            "raygeneration",
            "ray",
            "    rt_get ray_t_current, 0, r1\n",
            "ray_t_current in a raygeneration",
        );
        bad(
            "closesthit",
            both,
            "    rt_get world_ray_origin, 3, r1\n",
            "component 3",
        );
        bad(
            "closesthit",
            both,
            "    rt_report_hit r1, r0, r0, x1, r0, 0, 8\n",
            "ReportHit in a closesthit",
        );
        bad(
            "miss",
            "ray payload x0 bytes 20",
            "    rt_hit_end ignore\n",
            "ignore in a miss",
        );
        bad(
            "intersection",
            "ray",
            "    rt_call r0, x0, r0, 0, 4\n",
            "CallShader in an intersection",
        );
        bad(
            "raygeneration",
            "ray payload x0 bytes 20",
            "",
            "a payload in a raygeneration",
        );
        bad(
            "miss",
            "ray payload x0 bytes 20 attributes x1 bytes 8",
            "",
            "attributes in a miss",
        );
        bad(
            "closesthit",
            "ray payload x0 bytes 24 attributes x1 bytes 8",
            "",
            "24 bytes in x0 of 20",
        );
        bad("compute", "ray", "", "ray state in a compute");
        let e = check("shader miss\nregs 1\nblock0:\n    return\n").unwrap_err();
        assert!(e.to_string().contains("without its ray state"), "{e}");
        // Attributes past D3D's 32 bytes.
        let e = check(
            "shader closesthit\nregs 1\nlocal x0 4 \"p\"\nlocal x1 36 \"a\"\nray payload x0 bytes 4 attributes x1 bytes 36\nblock0:\n    return\n",
        )
        .unwrap_err();
        assert!(e.to_string().contains("at most 32"), "{e}");
    }

    #[test]
    fn refuses_writing_a_constant() {
        let e =
            check("shader compute\nregs 2\nconst r0 = 1\nblock0:\n    mov r0, r1\n    return\n")
                .unwrap_err();
        assert!(e.to_string().contains("writes constant register r0"), "{e}");
    }

    #[test]
    fn refuses_mask_mismatch_and_missing_array() {
        let e = check("shader compute\nregs 4\nblock0:\n    local_load b32, 3, [r1 _ _ _], x0, r0, 0\n    return\n")
            .unwrap_err();
        assert!(e.to_string().contains("x0 does not exist"), "{e}");
        let e = check("shader compute\nregs 4\nlocal x0 16\nblock0:\n    local_load b32, 3, [r1 _ _ _], x0, r0, 0\n    return\n")
            .unwrap_err();
        assert!(e.to_string().contains("component 1"), "{e}");
    }

    #[test]
    fn refuses_badly_ordered_blocks() {
        // block1 jumps back to block0, which is not a loop header dominating it… it is,
        // but block2 (the exit) sits between the loop's blocks.
        let text = "shader compute\nregs 2\nblock0:\n    jump block1\nblock1:\n    branch r0, block2, block3\nblock2:\n    return\nblock3:\n    jump block1\n";
        assert!(matches!(
            check(text),
            Err(ValidateError::Cfg(CfgError::LoopNotContiguous { .. }))
        ));
    }
}
