//! Inline ray queries (SM 6.5 `RayQuery<flags>`): the `rq_*` instructions, each lane's
//! queries driven through [`crate::raytracing::RayQuery`].
//!
//! Owns: where a lane's queries live (one per allocation slot and lane in
//! [`Wave::ray_queries`], made at the slot's `rq_alloc` and replaced each time it runs
//! again), resolving the acceleration structure behind a handle, the values the
//! accessors return, and charging traversal to the budget. Does not own: the traversal
//! and its rules (`raytracing::traverse`, DXR spec "RayQuery intrinsics",
//! "TraceRayInline control flow").
//!
//! # Rules
//!
//! - A query value that names no allocated query of the lane (only possible in a program
//!   that passes a forged value) behaves as a query that never started: `Proceed()` is
//!   false, every accessor 0, controls do nothing.
//! - A handle whose descriptor is not an acceleration structure (a null descriptor, or a
//!   heap entry of another kind) traces through no structure: the ray misses
//!   (`resource`'s rule for descriptors of the wrong kind).
//! - NaN or infinite origins and directions, a zero direction, and `TMin > TMax`: the
//!   ray misses (`raytracing::Traversal::begin`; DXR spec "Ray extents" leaves them
//!   undefined, and this is the choice the traversal documents).
//! - `Proceed()` after `Abort()`, or after traversal ended, returns false; a commit in
//!   the wrong state does nothing (`raytracing::RayQuery`).
//! - Traversal is work: each `Proceed()` charges the lane the nodes, instances and
//!   primitives it visited, one lane-instruction each, on top of the instruction itself,
//!   so a scene cannot hide an unbounded loop from the budget.
//! - Values with no candidate or committed hit to answer from are 0 (HLSL leaves them
//!   undefined); `CommittedRayT()` without a hit is `TMax`, as the spec says.

use std::sync::Arc;

use crate::ir::{RayQueryOp, RayQueryValue, Reg};
use crate::raytracing::{Hit, Ray, RayFlags, RayQuery, TopLevel, TraversalStats};

use super::Ctx;
use super::budget::ExecError;
use super::control;
use super::wave::{Wave, lanes};

/// One lane's query in one slot: the traversal state and the template flags of its
/// `RayQuery<flags>`.
#[derive(Clone, Debug, Default)]
pub struct LaneQuery {
    query: RayQuery,
    flags: u32,
}

const TRUE: u32 = u32::MAX;

/// The lane's query the value `q` names, if any.
fn query_of<const W: usize>(w: &mut Wave<W>, q: u32, l: usize) -> Option<&mut LaneQuery> {
    let i = (q as usize).checked_mul(W)?.checked_add(l)?;
    w.ray_queries.get_mut(i)?.as_deref_mut()
}

/// `rq_alloc`: a new query in `slot` for every active lane; `dst = slot`.
pub fn alloc<const W: usize>(w: &mut Wave<W>, slot: u32, flags: u32, dst: Reg) {
    // `ir::validate` keeps `slot` below `ir::MAX_RAY_QUERY_SLOTS`, so this is bounded.
    let need = (slot as usize + 1) * W;
    if w.ray_queries.len() < need {
        w.ray_queries.resize_with(need, || None);
    }
    for l in lanes(w.ex.mask) {
        let i = slot as usize * W + l;
        w.ray_queries[i] = Some(Box::new(LaneQuery {
            query: RayQuery::new(),
            flags,
        }));
    }
    w.ex.store(&mut w.regs, dst, &[slot; W]);
}

/// The top-level structure behind handle `h`, if its descriptor is one.
fn structure(cx: &Ctx<'_>, h: u32) -> Option<Arc<TopLevel>> {
    cx.table.get(h).top_level()
}

/// The operands of `rq_trace`.
pub struct TraceArgs {
    /// The query value.
    pub query: Reg,
    /// The acceleration structure's handle.
    pub accel: Reg,
    /// Dynamic ray flags.
    pub flags: Reg,
    /// Instance inclusion mask.
    pub mask: Reg,
    /// Origin x, y, z, `TMin`, direction x, y, z, `TMax`.
    pub ray: [Reg; 8],
}

/// `rq_trace`: `TraceRayInline` on each active lane's query.
pub fn trace<const W: usize>(w: &mut Wave<W>, cx: &Ctx<'_>, a: &TraceArgs) {
    for l in lanes(w.ex.mask) {
        let r = |w: &Wave<W>, reg: Reg| {
            if reg.is_none() {
                0
            } else {
                w.regs[reg.index()][l]
            }
        };
        let f = |w: &Wave<W>, reg: Reg| f32::from_bits(r(w, reg));
        let q = r(w, a.query);
        let tlas = structure(cx, r(w, a.accel));
        let dynamic = r(w, a.flags);
        let mask = r(w, a.mask);
        let x = a.ray.map(|reg| f(w, reg));
        let ray = Ray {
            origin: [x[0], x[1], x[2]],
            t_min: x[3],
            direction: [x[4], x[5], x[6]],
            t_max: x[7],
        };
        if let Some(lq) = query_of(w, q, l) {
            // HLSL: the template flags are ORed with the call's (DXR spec
            // "TraceRayInline").
            let flags = RayFlags(lq.flags | dynamic);
            lq.query.trace_ray_inline(tlas, flags, mask, ray);
        }
    }
}

/// The work a trace has done, in lane-instructions.
fn work(s: TraversalStats) -> u64 {
    s.nodes
        .saturating_add(s.primitives)
        .saturating_add(s.instances)
}

/// `rq_proceed`: `dst = Proceed()` in each active lane, charging the traversal.
pub fn proceed<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    dst: Reg,
    query: Reg,
    pc: usize,
) -> Result<(), ExecError> {
    let mut out = [0u32; W];
    let mut costs = [0u64; W];
    for l in lanes(w.ex.mask) {
        let q = if query.is_none() {
            0
        } else {
            w.regs[query.index()][l]
        };
        if let Some(lq) = query_of(w, q, l) {
            let before = work(lq.query.stats());
            out[l] = if lq.query.proceed() { TRUE } else { 0 };
            costs[l] = work(lq.query.stats()).saturating_sub(before);
        }
    }
    w.ex.store(&mut w.regs, dst, &out);
    control::charge_lanes(w, cx, &costs, pc)
}

/// `rq_control`: `Abort()` or a commit in each active lane.
pub fn control<const W: usize>(w: &mut Wave<W>, op: RayQueryOp, query: Reg, t: Reg) {
    for l in lanes(w.ex.mask) {
        let q = if query.is_none() {
            0
        } else {
            w.regs[query.index()][l]
        };
        let tv = if t.is_none() {
            0.0
        } else {
            f32::from_bits(w.regs[t.index()][l])
        };
        if let Some(lq) = query_of(w, q, l) {
            match op {
                RayQueryOp::Abort => lq.query.abort(),
                RayQueryOp::CommitTriangle => lq.query.commit_non_opaque_triangle_hit(),
                RayQueryOp::CommitProcedural => lq.query.commit_procedural_primitive_hit(tv),
            }
        }
    }
}

/// `rq_get`: component `index` of `value` in each active lane.
pub fn get<const W: usize>(w: &mut Wave<W>, value: RayQueryValue, index: u8, dst: Reg, query: Reg) {
    let mut out = [0u32; W];
    for l in lanes(w.ex.mask) {
        let q = if query.is_none() {
            0
        } else {
            w.regs[query.index()][l]
        };
        if let Some(lq) = query_of(w, q, l) {
            out[l] = read(&lq.query, value, usize::from(index));
        }
    }
    w.ex.store(&mut w.regs, dst, &out);
}

/// One component of one value of a query (see [`get`]).
pub fn read(q: &RayQuery, value: RayQueryValue, i: usize) -> u32 {
    use RayQueryValue as V;
    let bits = |x: f32| x.to_bits();
    let comp = |v: [f32; 3]| v.get(i).copied().map_or(0, f32::to_bits);
    let boolean = |b: bool| if b { TRUE } else { 0 };
    let candidate = || q.candidate();
    let committed = || q.committed();
    let of = |h: Option<Hit>, f: &dyn Fn(&Hit) -> u32| h.as_ref().map_or(0, f);
    match value {
        V::CommittedStatus => q.committed_status() as u32,
        V::CandidateType => q.candidate_type().map_or(0, |c| c as u32),
        V::CandidateObjectToWorld => of(candidate(), &|h| matrix(&h.object_to_world.0, i)),
        V::CandidateWorldToObject => of(candidate(), &|h| matrix(&h.world_to_object.0, i)),
        V::CommittedObjectToWorld => of(committed(), &|h| matrix(&h.object_to_world.0, i)),
        V::CommittedWorldToObject => of(committed(), &|h| matrix(&h.world_to_object.0, i)),
        V::CandidateProceduralNonOpaque => boolean(q.candidate_procedural_primitive_non_opaque()),
        V::CandidateFrontFace => of(candidate(), &|h| boolean(h.front_face)),
        V::CommittedFrontFace => of(committed(), &|h| boolean(h.front_face)),
        V::CandidateBarycentrics => of(candidate(), &|h| {
            h.barycentrics.get(i).copied().map_or(0, f32::to_bits)
        }),
        V::CommittedBarycentrics => of(committed(), &|h| {
            h.barycentrics.get(i).copied().map_or(0, f32::to_bits)
        }),
        V::RayFlags => q.ray_flags().bits(),
        V::WorldRayOrigin => comp(q.world_ray_origin()),
        V::WorldRayDirection => comp(q.world_ray_direction()),
        V::RayTMin => bits(q.ray_t_min()),
        V::CandidateRayT => of(candidate(), &|h| bits(h.t)),
        V::CommittedRayT => bits(q.committed_ray_t()),
        V::CandidateInstanceIndex => of(candidate(), &|h| h.instance_index),
        V::CandidateInstanceId => of(candidate(), &|h| h.instance_id),
        V::CandidateGeometryIndex => of(candidate(), &|h| h.geometry_index),
        V::CandidatePrimitiveIndex => of(candidate(), &|h| h.primitive_index),
        V::CandidateObjectRayOrigin => of(candidate(), &|h| comp(h.object_ray_origin)),
        V::CandidateObjectRayDirection => of(candidate(), &|h| comp(h.object_ray_direction)),
        V::CommittedInstanceIndex => of(committed(), &|h| h.instance_index),
        V::CommittedInstanceId => of(committed(), &|h| h.instance_id),
        V::CommittedGeometryIndex => of(committed(), &|h| h.geometry_index),
        V::CommittedPrimitiveIndex => of(committed(), &|h| h.primitive_index),
        V::CommittedObjectRayOrigin => of(committed(), &|h| comp(h.object_ray_origin)),
        V::CommittedObjectRayDirection => of(committed(), &|h| comp(h.object_ray_direction)),
        V::CandidateContribution => {
            of(candidate(), &|h| h.instance_contribution_to_hit_group_index)
        }
        V::CommittedContribution => {
            of(committed(), &|h| h.instance_contribution_to_hit_group_index)
        }
    }
}

/// Element `i` (`row * 4 + column`) of a row-major 3×4 matrix.
fn matrix(m: &[f32; 12], i: usize) -> u32 {
    m.get(i).copied().map_or(0, f32::to_bits)
}

/// The committed hit of the lane's query that the value `q` names, with the query's ray
/// and ray flags (`HitObject::FromRayQuery`); `None` without a query or a committed hit.
pub(super) fn committed_hit<const W: usize>(
    w: &mut Wave<W>,
    q: u32,
    l: usize,
) -> Option<(Hit, Ray, u32)> {
    let lq = query_of(w, q, l)?;
    let h = lq.query.committed()?;
    let ray = Ray {
        origin: lq.query.world_ray_origin(),
        t_min: lq.query.ray_t_min(),
        direction: lq.query.world_ray_direction(),
        t_max: lq.query.committed_ray_t(),
    };
    Some((h, ray, lq.query.ray_flags().bits()))
}
