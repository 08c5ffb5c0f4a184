//! Traversal with DXR's rules: one resumable state machine ([`Traversal`]) that walks a
//! top-level structure and its instances' bottom-level structures, commits opaque
//! triangle hits itself and stops at every other candidate; [`RayQuery`] exposes it as
//! HLSL's inline `RayQuery` does, [`Tracer::trace_ray`] drives it with any-hit and
//! intersection programs as `TraceRay` does.
//!
//! # Rules, with their DXR spec sections
//!
//! - Rays ("Ray extents"): triangle hits need `TMin < t < TMax`, procedural hits
//!   `TMin <= t <= TMax`; `TMax` shrinks to each committed hit. A ray with a NaN or
//!   infinite origin or direction component, a NaN extent, or a zero direction meets
//!   nothing (the spec leaves such rays undefined).
//! - Instances ("Instance masking"): skipped when `InstanceInclusionMask & InstanceMask`
//!   (low 8 bits) is zero; inactive instances (NULL structure, no active primitive,
//!   singular or non-finite transform) are never entered and still count in
//!   `InstanceIndex()`. Rays enter an instance's object space through the inverse of its
//!   transform; `t` is the same in both spaces.
//! - Opacity ("TraceRay control flow" [3], "Ray flags", "D3D12_RAYTRACING_INSTANCE_FLAGS"):
//!   the geometry's `OPAQUE` flag, overridden by the instance's `FORCE_OPAQUE` /
//!   `FORCE_NON_OPAQUE`, overridden by the ray's `FORCE_OPAQUE` / `FORCE_NON_OPAQUE`. Where
//!   both flags of a pair are set (the spec calls them mutually exclusive), `FORCE_OPAQUE`
//!   wins. `CULL_OPAQUE` / `CULL_NON_OPAQUE` cull by the result.
//! - Facing ("D3D12_RAYTRACING_INSTANCE_FLAGS"): front-facing when the vertices appear
//!   clockwise from the ray origin in object space (left-handed), reversed by
//!   `TRIANGLE_FRONT_COUNTERCLOCKWISE`. An instance transform with a negative determinant
//!   does not change facing (the spec says so); a geometry transform does (it is baked into
//!   the vertices). `CULL_BACK_FACING_TRIANGLES` / `CULL_FRONT_FACING_TRIANGLES` cull by it
//!   unless the instance has `TRIANGLE_CULL_DISABLE`; `SKIP_TRIANGLES` and
//!   `SKIP_PROCEDURAL_PRIMITIVES` cull whole kinds and cannot be overruled.
//! - Hit kinds ("HitKind"): `HIT_KIND_TRIANGLE_FRONT_FACE` (254) or `_BACK_FACE` (255);
//!   procedural hits carry the intersection program's value.
//! - Candidates ("TraceRayInline control flow"): an opaque triangle hit is committed
//!   without stopping; a non-opaque triangle is a candidate only when it would be the
//!   closest hit so far; a procedural primitive is a candidate when the ray meets its AABB
//!   within `[TMin, TMax]` (the program decides the hit). `ACCEPT_FIRST_HIT_AND_END_SEARCH`
//!   ends the search at the first commit.
//! - Any-hit ("Any hit shaders", "IgnoreHit", "AcceptHitAndEndSearch"): invoked for every
//!   non-opaque hit within the extents; it accepts (commit, go on), ignores, or accepts
//!   and ends the search. Each primitive sits in exactly one leaf, so no primitive is
//!   offered twice for a ray and `NO_DUPLICATE_ANYHIT_INVOCATION` changes nothing
//!   ("Preservation of triangle set").
//!
//! # Order (the spec leaves it open)
//!
//! Candidates come in hierarchy order: at each node the child whose box the ray enters
//! first is visited first (the first child on a tie); a leaf's primitives in the order the
//! build left them; the top level likewise over instances. Nodes are the binary tree's:
//! bottom levels are walked over wide nodes that store two of its levels together, with
//! the binary walk's decisions (`walk_instance`). The builds are deterministic
//! (`bvh`), so the same structures, ray and answers give the same candidates in the same
//! order, on any thread.
//!
//! # Robustness
//!
//! Box tests are conservative: every box is grown by `2^-19 · (M + |o|)` for a structure
//! whose coordinates are at most `M` in magnitude and a ray origin `o` (well above the
//! rounding error of the triangle test's projection, which is a few units in the last
//! place of `|v - o|`), and far distances get Ize's slack; so a triangle the test would hit
//! is never culled by a box, and the watertightness of [`super::triangle`] holds through
//! the hierarchy.

use std::sync::Arc;

use super::accel::{BottomLevel, GeometryType, Instance, TopLevel};
use super::bvh::{BoxRay, Child, STACK_DEPTH, hit_box, hit_node, hit_wide, pad_far};
use super::flags::{
    GeometryFlags, HIT_KIND_TRIANGLE_BACK_FACE, HIT_KIND_TRIANGLE_FRONT_FACE, InstanceFlags,
    RayFlags,
};
use super::math::{Transform3x4, finite3, max_abs3};
use super::triangle::{Shear, intersect};
use crate::wide::wide_fn;

/// `RayDesc`: `origin + t·direction` for `t` in the extents.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Ray {
    /// World-space origin.
    pub origin: [f32; 3],
    /// `TMin`.
    pub t_min: f32,
    /// World-space direction (not normalised).
    pub direction: [f32; 3],
    /// `TMax`.
    pub t_max: f32,
}

/// What a hit or candidate is on.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PrimitiveKind {
    /// A triangle, intersected by the fixed-function test.
    Triangle,
    /// A procedural primitive (AABB).
    Procedural,
}

/// `CANDIDATE_TYPE` (HLSL's values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CandidateType {
    /// `CANDIDATE_NON_OPAQUE_TRIANGLE` (0).
    NonOpaqueTriangle = 0,
    /// `CANDIDATE_PROCEDURAL_PRIMITIVE` (1).
    ProceduralPrimitive = 1,
}

/// `COMMITTED_STATUS` (HLSL's values).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum CommittedStatus {
    /// `COMMITTED_NOTHING` (0).
    Nothing = 0,
    /// `COMMITTED_TRIANGLE_HIT` (1).
    TriangleHit = 1,
    /// `COMMITTED_PROCEDURAL_PRIMITIVE_HIT` (2).
    ProceduralPrimitiveHit = 2,
}

/// A candidate or committed hit with everything DXR's accessors return about it.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Hit {
    /// Triangle or procedural primitive.
    pub kind: PrimitiveKind,
    /// `RayTCurrent()` / `CommittedRayT()` / `CandidateTriangleRayT()`; for a procedural
    /// candidate not yet reported, where the ray enters its AABB (clamped to `TMin`).
    pub t: f32,
    /// `InstanceIndex()`.
    pub instance_index: u32,
    /// `InstanceID()`.
    pub instance_id: u32,
    /// `InstanceContributionToHitGroupIndex`.
    pub instance_contribution_to_hit_group_index: u32,
    /// `GeometryIndex()`.
    pub geometry_index: u32,
    /// `PrimitiveIndex()`.
    pub primitive_index: u32,
    /// Triangles: weights of vertices 1 and 2; zero for procedural primitives.
    pub barycentrics: [f32; 2],
    /// Triangles: front-facing after the instance's winding flag.
    pub front_face: bool,
    /// `HitKind()`: 254/255 for triangles, the reported value for procedural hits (0 for
    /// a candidate not yet reported).
    pub hit_kind: u32,
    /// Whether the geometry, instance and ray flags make the primitive non-opaque
    /// (`CandidateProceduralPrimitiveNonOpaque()`).
    pub non_opaque: bool,
    /// `ObjectRayOrigin()`.
    pub object_ray_origin: [f32; 3],
    /// `ObjectRayDirection()`.
    pub object_ray_direction: [f32; 3],
    /// `ObjectToWorld3x4()`; [`Transform3x4::to_4x3`] gives the 4×3 form.
    pub object_to_world: Transform3x4,
    /// `WorldToObject3x4()`.
    pub world_to_object: Transform3x4,
}

/// Work counts of one traversal (for summaries and budgets).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct TraversalStats {
    /// Inner nodes visited (each tests both children's boxes).
    pub nodes: u64,
    /// Primitives tested (triangles intersected, AABBs tested).
    pub primitives: u64,
    /// Instances entered.
    pub instances: u64,
}

/// The state of a hit while it travels: instance, primitive and what the test found.
#[derive(Clone, Copy, Debug, PartialEq)]
struct Core {
    kind: PrimitiveKind,
    t: f32,
    instance: u32,
    geometry: u32,
    primitive: u32,
    barycentrics: [f32; 2],
    front: bool,
    hit_kind: u32,
    non_opaque: bool,
}

#[derive(Clone, Copy, Debug, Default)]
struct Entry {
    child: Child,
    t: f32,
}

/// An entry of a bottom-level stack (wide nodes, `bvh::Wide`): a child to visit, or a
/// *group*, a binary node whose box the ray met and whose visit the binary walk would make
/// when it pops it, with its two children's entry distances already measured.
#[derive(Clone, Copy, Debug, Default)]
struct WideEntry {
    /// The entry distance of the child or of the group's box.
    t: f32,
    /// A group's children's entry distances, `NaN` where the ray misses the box.
    near: [f32; 2],
    /// A child in `kids[0]`; a group's two children.
    kids: [Child; 2],
    group: bool,
}

impl WideEntry {
    #[inline(always)]
    fn child(child: Child, t: f32) -> Self {
        WideEntry {
            t,
            near: [0.0; 2],
            kids: [child, Child::default()],
            group: false,
        }
    }
}

#[derive(Clone, Debug)]
struct Stack<E> {
    e: [E; STACK_DEPTH],
    len: usize,
}

impl<E: Copy + Default> Stack<E> {
    fn new() -> Self {
        Stack {
            e: [E::default(); STACK_DEPTH],
            len: 0,
        }
    }

    #[inline(always)]
    fn push_entry(&mut self, entry: E) {
        // The trees are shallower than the stack (bvh's module doc; a wide walk pushes no
        // more than the binary walk it follows); a full stack can only come from a bug,
        // and dropping the entry is the safe failure.
        if let Some(slot) = self.e.get_mut(self.len) {
            *slot = entry;
            self.len += 1;
        }
    }

    #[inline(always)]
    fn pop(&mut self) -> Option<E> {
        self.len = self.len.checked_sub(1)?;
        self.e.get(self.len).copied()
    }
}

impl Stack<Entry> {
    #[inline(always)]
    fn push(&mut self, child: Child, t: f32) {
        self.push_entry(Entry { child, t });
    }
}

/// A ray prepared for one level: the box test's and the triangle test's constants.
#[derive(Clone, Copy, Debug)]
struct LevelRay {
    org: [f32; 3],
    boxes: BoxRay,
    shear: Shear,
}

impl LevelRay {
    /// `None` when the ray cannot meet anything in this space (see the module doc).
    #[inline(always)]
    fn new(org: [f32; 3], dir: [f32; 3], magnitude: f32) -> Option<LevelRay> {
        if !finite3(org) {
            return None;
        }
        let shear = Shear::new(dir)?;
        Some(LevelRay {
            org,
            boxes: BoxRay::new(org, dir, Self::pad(org, magnitude)),
            shear,
        })
    }

    /// The growth of every box (module doc).
    fn pad(org: [f32; 3], magnitude: f32) -> f32 {
        (magnitude + max_abs3(org)) * (1.0 / 524_288.0)
    }

    /// The same ray padded for a structure of another magnitude.
    #[inline(always)]
    fn repadded(&self, magnitude: f32) -> LevelRay {
        let pad = Self::pad(self.org, magnitude);
        LevelRay {
            boxes: BoxRay {
                lo: self.org.map(|o| o + pad),
                hi: self.org.map(|o| o - pad),
                inv: self.boxes.inv,
            },
            ..*self
        }
    }
}

wide_fn! {
    /// [`Traversal::proceed`], run by its AVX2 copy where the processor has AVX2.
    fn proceed_wide(t: &mut Traversal, tlas: &TopLevel) -> bool {
        t.proceed_in(tlas)
    }
}

/// Whether a primitive is opaque after the geometry, instance and ray flags (module doc).
fn is_opaque(g: GeometryFlags, i: InstanceFlags, r: RayFlags) -> bool {
    if r.contains(RayFlags::FORCE_OPAQUE) {
        true
    } else if r.contains(RayFlags::FORCE_NON_OPAQUE) {
        false
    } else if i.contains(InstanceFlags::FORCE_OPAQUE) {
        true
    } else if i.contains(InstanceFlags::FORCE_NON_OPAQUE) {
        false
    } else {
        g.contains(GeometryFlags::OPAQUE)
    }
}

/// The resumable traversal of one ray (see the module doc). The structure is passed to
/// each step; [`RayQuery`] and [`Tracer`] always pass the one the trace began with.
#[derive(Clone, Debug)]
pub struct Traversal {
    flags: RayFlags,
    /// What `RayFlags()` reports (without pipeline flags).
    visible_flags: RayFlags,
    mask: u32,
    ray: Ray,
    world: Option<LevelRay>,
    t_committed: f32,
    committed: Option<Core>,
    candidate: Option<Core>,
    candidate_committed: bool,
    done: bool,
    top: Stack<Entry>,
    top_leaf: (u32, u32),
    bottom: Stack<WideEntry>,
    bottom_leaf: (u32, u32),
    /// Tests: walk bottom levels over the binary nodes, as before the wide ones, to hold
    /// the wide walk to it.
    #[cfg(test)]
    binary: Option<Stack<Entry>>,
    instance: Option<u32>,
    object: Option<LevelRay>,
    stats: TraversalStats,
}

impl Default for Traversal {
    fn default() -> Self {
        Self::new()
    }
}

impl Traversal {
    /// A traversal that has not begun (every step reports the end).
    pub fn new() -> Self {
        Traversal {
            flags: RayFlags::NONE,
            visible_flags: RayFlags::NONE,
            mask: 0,
            ray: Ray {
                origin: [0.0; 3],
                t_min: 0.0,
                direction: [0.0; 3],
                t_max: 0.0,
            },
            world: None,
            t_committed: 0.0,
            committed: None,
            candidate: None,
            candidate_committed: false,
            done: true,
            top: Stack::new(),
            top_leaf: (0, 0),
            bottom: Stack::new(),
            bottom_leaf: (0, 0),
            #[cfg(test)]
            binary: None,
            instance: None,
            object: None,
            stats: TraversalStats::default(),
        }
    }

    /// Starts a new trace of `ray` into `tlas` (`None`: a NULL structure, a miss), as
    /// `TraceRayInline` does. `pipeline_flags` are ORed into the ray flags for traversal
    /// without showing in [`Self::ray_flags`] (`D3D12_RAYTRACING_PIPELINE_CONFIG1`'s skip
    /// flags).
    pub fn begin(
        &mut self,
        tlas: Option<&TopLevel>,
        flags: RayFlags,
        pipeline_flags: RayFlags,
        mask: u32,
        ray: Ray,
    ) {
        self.flags = flags | pipeline_flags;
        self.visible_flags = flags;
        self.mask = mask & 0xff;
        self.ray = ray;
        self.t_committed = ray.t_max;
        self.committed = None;
        self.candidate = None;
        self.candidate_committed = false;
        self.top.len = 0;
        self.bottom.len = 0;
        self.top_leaf = (0, 0);
        self.bottom_leaf = (0, 0);
        self.instance = None;
        self.object = None;
        self.stats = TraversalStats::default();
        let usable = !ray.t_min.is_nan() && !ray.t_max.is_nan();
        self.world = match tlas {
            Some(t) if usable => LevelRay::new(ray.origin, ray.direction, t.magnitude),
            _ => None,
        };
        self.done = self.world.is_none();
        if let (Some(t), false) = (tlas, self.done) {
            match t.bvh.root {
                Some(root) => self.top.push(root, f32::NEG_INFINITY),
                None => self.done = true,
            }
        }
    }

    /// Runs to the next candidate that needs the caller: `true` with
    /// [`Self::candidate`] set, `false` when the search is over (`Proceed()`).
    ///
    /// The walk is compiled twice, for the baseline and for AVX2 (`crate::wide`), and
    /// the AVX2 copy runs where the processor has it: measured about 5% faster per ray
    /// (`docs/raytracing.md`, "Figures"). The same IEEE operations run in either copy, so
    /// every decision and value is the same.
    pub fn proceed(&mut self, tlas: &TopLevel) -> bool {
        proceed_wide(self, tlas)
    }

    /// [`Self::proceed`]'s body, inlined into both of `proceed_wide`'s copies.
    #[inline(always)]
    fn proceed_in(&mut self, tlas: &TopLevel) -> bool {
        self.candidate = None;
        self.candidate_committed = false;
        if self.done {
            return false;
        }
        if self.world.is_none() {
            self.done = true;
            return false;
        }
        // The object-space ray of the instance being walked, held here as well as in
        // `self.object` (which a later call resumes from): reading back the whole ray
        // just stored field by field stalls on store forwarding, tens of cycles a ray.
        let mut obj = None;
        loop {
            if let Some(ii) = self.instance {
                if obj.is_none() {
                    obj = self.object;
                }
                let found = match &obj {
                    Some(o) => self.walk_instance(tlas, ii, o),
                    None => None,
                };
                if let Some(c) = found {
                    self.candidate = Some(c);
                    return true;
                }
                if self.done {
                    return false;
                }
                self.instance = None;
                obj = None;
            } else {
                while self.top_leaf.0 < self.top_leaf.1 {
                    let k = self.top_leaf.0;
                    self.top_leaf.0 += 1;
                    if let Some(&i) = tlas.leaf_instances.get(k as usize)
                        && let Some(o) = self.enter(tlas, i)
                    {
                        obj = Some(o);
                        break;
                    }
                }
                if self.instance.is_some() {
                    continue;
                }
                match self.top.pop() {
                    Some(e) => {
                        if e.t > pad_far(self.t_committed) {
                            continue;
                        }
                        if e.child.count > 0 {
                            self.top_leaf =
                                (e.child.index, e.child.index.saturating_add(e.child.count));
                        } else if let Some(boxes) = self.world.as_ref().map(|w| w.boxes) {
                            self.visit_top(tlas.bvh.nodes.get(e.child.index as usize), &boxes);
                        }
                    }
                    None => {
                        self.done = true;
                        return false;
                    }
                }
            }
        }
    }

    /// Walks the bottom-level structure of instance `ii` from where it stopped, until a
    /// candidate (returned) or its end or the end of the search (`None`).
    ///
    /// The walk is over wide nodes (`bvh::Wide`) and makes the binary walk's decisions
    /// in the binary walk's order: visiting binary node `N` (a wide node) tests its two
    /// children, keeps the nearer in hand and pushes the farther; when the nearer is an
    /// inner node it is visited at once (nothing can commit in between), so its two
    /// children are decided against the same extent from the lanes already tested. The
    /// farther child, when inner, is pushed as a group with its children's entry
    /// distances; popping it is the binary walk's visit of that node, decided against the
    /// extent of that moment (`bvh::hit_wide`'s split of the test). Candidates, their
    /// order and the node count are therefore those of the binary walk.
    #[inline(always)]
    fn walk_instance(&mut self, tlas: &TopLevel, ii: u32, obj: &LevelRay) -> Option<Core> {
        #[cfg(test)]
        if self.binary.is_some() {
            return self.walk_instance_binary(tlas, ii, obj);
        }
        let inst = tlas.instances.get(ii as usize)?;
        let blas = inst.blas.as_deref()?;
        let nodes = &blas.wide[..];
        const MISS: f32 = f32::INFINITY;
        loop {
            // The rest of the current leaf.
            while self.bottom_leaf.0 < self.bottom_leaf.1 {
                let k = self.bottom_leaf.0;
                self.bottom_leaf.0 += 1;
                if let Some(c) = self.test_primitive(ii, inst, blas, obj, k) {
                    return Some(c);
                }
                if self.done {
                    return None;
                }
            }
            // The next leaf.
            let mut cur = self.next_bottom()?;
            while cur.count == 0 {
                let n = nodes.get(cur.index as usize)?;
                self.stats.nodes += 1;
                let near = hit_wide(n, &obj.boxes, self.ray.t_min);
                let limit = pad_far(self.t_committed);
                let within = |t: f32| if t <= limit { t } else { MISS };
                let tg = [within(near[0]), within(near[1])];
                let (gn, gf) = if tg[1] < tg[0] { (1, 0) } else { (0, 1) };
                if tg[gn] == MISS {
                    cur = self.next_bottom()?;
                    continue;
                }
                if tg[gf] < MISS {
                    self.bottom.push_entry(if n.leaf_group(gf) {
                        WideEntry::child(n.kids[2 * gf], tg[gf])
                    } else {
                        WideEntry {
                            t: tg[gf],
                            near: [near[2 + 2 * gf], near[3 + 2 * gf]],
                            kids: [n.kids[2 * gf], n.kids[2 * gf + 1]],
                            group: true,
                        }
                    });
                }
                if n.leaf_group(gn) {
                    cur = n.kids[2 * gn];
                    continue;
                }
                // The binary walk's visit of the nearer child, at once.
                self.stats.nodes += 1;
                let tm = [within(near[2 + 2 * gn]), within(near[3 + 2 * gn])];
                let (mn, mf) = if tm[1] < tm[0] { (1, 0) } else { (0, 1) };
                if tm[mn] == MISS {
                    cur = self.next_bottom()?;
                    continue;
                }
                if tm[mf] < MISS {
                    self.bottom
                        .push_entry(WideEntry::child(n.kids[2 * gn + mf], tm[mf]));
                }
                cur = n.kids[2 * gn + mn];
            }
            self.bottom_leaf = (cur.index, cur.index.saturating_add(cur.count));
        }
    }

    /// Pops the bottom-level stack to the next child the ray may still meet; a group is
    /// visited as the binary walk visits a popped node (its children against the extent
    /// of this moment, the farther pushed).
    #[inline(always)]
    fn next_bottom(&mut self) -> Option<Child> {
        loop {
            let e = self.bottom.pop()?;
            let limit = pad_far(self.t_committed);
            // Skipped unless within (a NaN limit, from a `-∞` extent, lets nothing in).
            let within = e.t <= limit;
            if !within {
                continue;
            }
            if !e.group {
                return Some(e.kids[0]);
            }
            self.stats.nodes += 1;
            let t = e.near.map(|n| if n <= limit { n } else { f32::INFINITY });
            let (n, f) = if t[1] < t[0] { (1, 0) } else { (0, 1) };
            if t[n] == f32::INFINITY {
                continue;
            }
            if t[f] < f32::INFINITY {
                self.bottom.push_entry(WideEntry::child(e.kids[f], t[f]));
            }
            return Some(e.kids[n]);
        }
    }

    /// The walk over binary nodes that the wide walk replaced (tests hold the wide walk to
    /// it).
    #[cfg(test)]
    fn walk_instance_binary(&mut self, tlas: &TopLevel, ii: u32, obj: &LevelRay) -> Option<Core> {
        let inst = tlas.instances.get(ii as usize)?;
        let blas = inst.blas.as_deref()?;
        let nodes = &blas.bvh.nodes[..];
        loop {
            // The rest of the current leaf.
            while self.bottom_leaf.0 < self.bottom_leaf.1 {
                let k = self.bottom_leaf.0;
                self.bottom_leaf.0 += 1;
                if let Some(c) = self.test_primitive(ii, inst, blas, obj, k) {
                    return Some(c);
                }
                if self.done {
                    return None;
                }
            }
            // The next leaf: descend from the top of the stack, keeping the nearer child
            // in hand and pushing the farther.
            let mut cur = loop {
                let e = self.binary.as_mut()?.pop()?;
                if e.t <= pad_far(self.t_committed) {
                    break e.child;
                }
            };
            while cur.count == 0 {
                let n = nodes.get(cur.index as usize)?;
                self.stats.nodes += 1;
                let t = hit_node(n, &obj.boxes, self.ray.t_min, self.t_committed);
                let (near, far) = if t[1] < t[0] { (1, 0) } else { (0, 1) };
                if t[near] == f32::INFINITY {
                    cur = loop {
                        let e = self.binary.as_mut()?.pop()?;
                        if e.t <= pad_far(self.t_committed) {
                            break e.child;
                        }
                    };
                    continue;
                }
                if t[far] < f32::INFINITY {
                    self.binary.as_mut()?.push(n.child[far], t[far]);
                }
                cur = n.child[near];
            }
            self.bottom_leaf = (cur.index, cur.index.saturating_add(cur.count));
        }
    }

    /// Tests both children of a top-level node and pushes those the ray meets, the
    /// nearer on top.
    fn visit_top(&mut self, node: Option<&super::bvh::Node>, r: &BoxRay) {
        let Some(n) = node else { return };
        self.stats.nodes += 1;
        let t = hit_node(n, r, self.ray.t_min, self.t_committed);
        let (near, far) = if t[1] < t[0] { (1, 0) } else { (0, 1) };
        if t[far] < f32::INFINITY {
            self.top.push(n.child[far], t[far]);
        }
        if t[near] < f32::INFINITY {
            self.top.push(n.child[near], t[near]);
        }
    }

    /// Enters instance `i` when the ray may meet it, returning the object-space ray;
    /// `None` when it is skipped. Inlined, so that the ray stays in registers: returned
    /// through memory, field by field, and read back whole, it stalled on store
    /// forwarding (a tenth of a primary ray's time).
    #[inline(always)]
    fn enter(&mut self, tlas: &TopLevel, i: u32) -> Option<LevelRay> {
        let inst = tlas.instances.get(i as usize)?;
        if self.mask & u32::from(inst.mask) == 0 {
            return None;
        }
        let (Some(blas), Some(w2o)) = (inst.blas.as_deref(), inst.world_to_object) else {
            return None;
        };
        let skip = match blas.kind {
            Some(GeometryType::Triangles) => self.flags.contains(RayFlags::SKIP_TRIANGLES),
            Some(GeometryType::ProceduralPrimitiveAabbs) => {
                self.flags.contains(RayFlags::SKIP_PROCEDURAL_PRIMITIVES)
            }
            None => true,
        };
        let root = blas.wide_root?;
        if skip {
            return None;
        }
        let obj = match (inst.identity, self.world.as_ref()) {
            // The object-space ray is the world ray: keep its divisions, pad for the
            // bottom level.
            (true, Some(w)) => w.repadded(blas.magnitude),
            _ => {
                let org = w2o.transform_point(self.ray.origin);
                let dir = w2o.transform_vector(self.ray.direction);
                LevelRay::new(org, dir, blas.magnitude)?
            }
        };
        self.stats.instances += 1;
        self.object = Some(obj);
        self.instance = Some(i);
        self.bottom.len = 0;
        self.bottom_leaf = (0, 0);
        self.bottom
            .push_entry(WideEntry::child(root, f32::NEG_INFINITY));
        #[cfg(test)]
        if let (Some(b), Some(root)) = (self.binary.as_mut(), blas.bvh.root) {
            b.len = 0;
            b.push(root, f32::NEG_INFINITY);
        }
        Some(obj)
    }

    /// Tests leaf item `k` of `blas`: commits an opaque triangle hit, returns a candidate
    /// for the caller, or `None`.
    #[inline(always)]
    fn test_primitive(
        &mut self,
        ii: u32,
        inst: &Instance,
        blas: &BottomLevel,
        obj: &LevelRay,
        k: u32,
    ) -> Option<Core> {
        self.stats.primitives += 1;
        match blas.kind {
            Some(GeometryType::Triangles) => {
                let tri = blas.tris.get(k as usize)?;
                let h = intersect(&obj.shear, obj.org, tri, self.ray.t_min, self.t_committed)?;
                let r = *blas.refs.get(k as usize)?;
                let gflags = blas.geometries.get(r.geometry as usize)?.flags;
                let opaque = is_opaque(gflags, inst.flags, self.flags);
                if self.flags.contains(if opaque {
                    RayFlags::CULL_OPAQUE
                } else {
                    RayFlags::CULL_NON_OPAQUE
                }) {
                    return None;
                }
                let front = h.clockwise
                    != inst
                        .flags
                        .contains(InstanceFlags::TRIANGLE_FRONT_COUNTERCLOCKWISE);
                if !inst.flags.contains(InstanceFlags::TRIANGLE_CULL_DISABLE)
                    && self.flags.contains(if front {
                        RayFlags::CULL_FRONT_FACING_TRIANGLES
                    } else {
                        RayFlags::CULL_BACK_FACING_TRIANGLES
                    })
                {
                    return None;
                }
                let core = Core {
                    kind: PrimitiveKind::Triangle,
                    t: h.t,
                    instance: ii,
                    geometry: r.geometry,
                    primitive: r.primitive,
                    barycentrics: h.barycentrics,
                    front,
                    hit_kind: if front {
                        HIT_KIND_TRIANGLE_FRONT_FACE
                    } else {
                        HIT_KIND_TRIANGLE_BACK_FACE
                    },
                    non_opaque: !opaque,
                };
                if opaque {
                    self.commit(core);
                    None
                } else {
                    Some(core)
                }
            }
            Some(GeometryType::ProceduralPrimitiveAabbs) => {
                let b = blas.boxes.get(k as usize)?;
                hit_box(b.min, b.max, &obj.boxes, self.ray.t_min, self.t_committed)?;
                let r = *blas.refs.get(k as usize)?;
                let gflags = blas.geometries.get(r.geometry as usize)?.flags;
                let opaque = is_opaque(gflags, inst.flags, self.flags);
                if self.flags.contains(if opaque {
                    RayFlags::CULL_OPAQUE
                } else {
                    RayFlags::CULL_NON_OPAQUE
                }) {
                    return None;
                }
                // The entry distance into the box as given (the test above used the grown
                // box), for the candidate's informational `t`.
                let inv = obj.boxes.inv;
                let entry = (0..3)
                    .map(|a| {
                        ((b.min[a] - obj.org[a]) * inv[a]).min((b.max[a] - obj.org[a]) * inv[a])
                    })
                    .fold(self.ray.t_min, f32::max);
                Some(Core {
                    kind: PrimitiveKind::Procedural,
                    t: entry,
                    instance: ii,
                    geometry: r.geometry,
                    primitive: r.primitive,
                    barycentrics: [0.0; 2],
                    front: false,
                    hit_kind: 0,
                    non_opaque: !opaque,
                })
            }
            None => None,
        }
    }

    fn commit(&mut self, c: Core) {
        self.t_committed = c.t;
        self.committed = Some(c);
        if self
            .flags
            .contains(RayFlags::ACCEPT_FIRST_HIT_AND_END_SEARCH)
        {
            self.done = true;
        }
    }

    /// `Abort()`: the search is over; the committed hit stays.
    pub fn abort(&mut self) {
        self.done = true;
        self.candidate = None;
    }

    /// `CandidateType()`, `None` when there is no candidate.
    pub fn candidate_type(&self) -> Option<CandidateType> {
        self.candidate.map(|c| match c.kind {
            PrimitiveKind::Triangle => CandidateType::NonOpaqueTriangle,
            PrimitiveKind::Procedural => CandidateType::ProceduralPrimitive,
        })
    }

    /// `CommitNonOpaqueTriangleHit()`: commits the triangle candidate (again: no effect).
    pub fn commit_non_opaque_triangle_hit(&mut self) {
        if let Some(c) = self.candidate
            && c.kind == PrimitiveKind::Triangle
            && !self.candidate_committed
        {
            self.candidate_committed = true;
            self.commit(c);
        }
    }

    /// `CommitProceduralPrimitiveHit(t)`: commits the procedural candidate at `t`, as
    /// given: the spec makes the program responsible for `TMin <= t <= TMax`.
    pub fn commit_procedural_primitive_hit(&mut self, t: f32) {
        if let Some(c) = self.candidate
            && c.kind == PrimitiveKind::Procedural
        {
            self.commit(Core { t, ..c });
        }
    }

    /// `CommittedStatus()`.
    pub fn committed_status(&self) -> CommittedStatus {
        match self.committed.map(|c| c.kind) {
            None => CommittedStatus::Nothing,
            Some(PrimitiveKind::Triangle) => CommittedStatus::TriangleHit,
            Some(PrimitiveKind::Procedural) => CommittedStatus::ProceduralPrimitiveHit,
        }
    }

    /// `CommittedRayT()`: `TMax` until a hit is committed.
    pub fn committed_ray_t(&self) -> f32 {
        self.t_committed
    }

    /// `RayFlags()`.
    pub fn ray_flags(&self) -> RayFlags {
        self.visible_flags
    }

    /// The ray as given (`WorldRayOrigin()`, `WorldRayDirection()`, `RayTMin()`).
    pub fn ray(&self) -> &Ray {
        &self.ray
    }

    /// Whether the search is over.
    pub fn is_done(&self) -> bool {
        self.done
    }

    /// Work done so far.
    pub fn stats(&self) -> TraversalStats {
        self.stats
    }

    /// The candidate, with every accessor's value (`tlas`: the structure being traced).
    pub fn candidate(&self, tlas: &TopLevel) -> Option<Hit> {
        self.candidate.and_then(|c| self.materialize(tlas, c))
    }

    /// The committed hit, with every accessor's value.
    pub fn committed(&self, tlas: &TopLevel) -> Option<Hit> {
        self.committed.and_then(|c| self.materialize(tlas, c))
    }

    fn materialize(&self, tlas: &TopLevel, c: Core) -> Option<Hit> {
        let inst = tlas.instances.get(c.instance as usize)?;
        let w2o = inst.world_to_object?;
        Some(Hit {
            kind: c.kind,
            t: c.t,
            instance_index: c.instance,
            instance_id: inst.instance_id,
            instance_contribution_to_hit_group_index: inst.contribution,
            geometry_index: c.geometry,
            primitive_index: c.primitive,
            barycentrics: c.barycentrics,
            front_face: c.front,
            hit_kind: c.hit_kind,
            non_opaque: c.non_opaque,
            // The same arithmetic as when the instance was entered.
            object_ray_origin: w2o.transform_point(self.ray.origin),
            object_ray_direction: w2o.transform_vector(self.ray.direction),
            object_to_world: inst.object_to_world,
            world_to_object: w2o,
        })
    }
}

/// An inline ray query (`RayQuery<flags>`): [`Traversal`] bound to the structure each
/// trace was started with. Methods called in a state where HLSL leaves them undefined do
/// nothing or return `None`.
#[derive(Clone, Debug, Default)]
pub struct RayQuery {
    tlas: Option<Arc<TopLevel>>,
    t: Traversal,
}

impl RayQuery {
    /// A query before its first `TraceRayInline`.
    pub fn new() -> Self {
        Self::default()
    }

    /// `TraceRayInline`: `flags` are the template flags ORed with the dynamic ones.
    /// Replaces any trace in progress.
    pub fn trace_ray_inline(
        &mut self,
        tlas: Option<Arc<TopLevel>>,
        flags: RayFlags,
        instance_inclusion_mask: u32,
        ray: Ray,
    ) {
        self.t.begin(
            tlas.as_deref(),
            flags,
            RayFlags::NONE,
            instance_inclusion_mask,
            ray,
        );
        self.tlas = tlas;
    }

    /// `Proceed()`.
    pub fn proceed(&mut self) -> bool {
        match &self.tlas {
            Some(tlas) => self.t.proceed(tlas),
            None => {
                self.t.abort();
                false
            }
        }
    }

    /// `Abort()`.
    pub fn abort(&mut self) {
        self.t.abort();
    }

    /// `CandidateType()`.
    pub fn candidate_type(&self) -> Option<CandidateType> {
        self.t.candidate_type()
    }

    /// The candidate's values (`Candidate*()`).
    pub fn candidate(&self) -> Option<Hit> {
        self.tlas.as_ref().and_then(|t| self.t.candidate(t))
    }

    /// `CandidateProceduralPrimitiveNonOpaque()`.
    pub fn candidate_procedural_primitive_non_opaque(&self) -> bool {
        self.t
            .candidate
            .is_some_and(|c| c.kind == PrimitiveKind::Procedural && c.non_opaque)
    }

    /// `CommitNonOpaqueTriangleHit()`.
    pub fn commit_non_opaque_triangle_hit(&mut self) {
        self.t.commit_non_opaque_triangle_hit();
    }

    /// `CommitProceduralPrimitiveHit(t)`.
    pub fn commit_procedural_primitive_hit(&mut self, t: f32) {
        self.t.commit_procedural_primitive_hit(t);
    }

    /// `CommittedStatus()`.
    pub fn committed_status(&self) -> CommittedStatus {
        self.t.committed_status()
    }

    /// The committed hit's values (`Committed*()`).
    pub fn committed(&self) -> Option<Hit> {
        self.tlas.as_ref().and_then(|t| self.t.committed(t))
    }

    /// `CommittedRayT()`.
    pub fn committed_ray_t(&self) -> f32 {
        self.t.committed_ray_t()
    }

    /// `RayFlags()`.
    pub fn ray_flags(&self) -> RayFlags {
        self.t.ray_flags()
    }

    /// `WorldRayOrigin()`.
    pub fn world_ray_origin(&self) -> [f32; 3] {
        self.t.ray.origin
    }

    /// `WorldRayDirection()`.
    pub fn world_ray_direction(&self) -> [f32; 3] {
        self.t.ray.direction
    }

    /// `RayTMin()`.
    pub fn ray_t_min(&self) -> f32 {
        self.t.ray.t_min
    }

    /// Work done by the current trace.
    pub fn stats(&self) -> TraversalStats {
        self.t.stats
    }
}

#[cfg(test)]
impl RayQuery {
    /// A query whose bottom levels are walked over the binary nodes (the reference the
    /// wide walk is held to).
    pub(crate) fn binary_reference() -> Self {
        let mut q = Self::new();
        q.t.binary = Some(Stack::new());
        q
    }
}

#[cfg(test)]
impl Tracer {
    /// A tracer whose bottom levels are walked over the binary nodes.
    pub(crate) fn binary_reference() -> Self {
        let mut t = Self::new();
        t.t.binary = Some(Stack::new());
        t
    }
}

/// An any-hit program's verdict (DXR spec "Any hit shader").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum AnyHitDecision {
    /// Return without `IgnoreHit`: commit the hit and go on.
    Accept,
    /// `IgnoreHit()`: the hit is not committed.
    Ignore,
    /// `AcceptHitAndEndSearch()`: commit the hit and end the search.
    AcceptAndEndSearch,
}

/// What `ReportHit` returned (DXR spec "ReportHit").
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum ReportHitOutcome {
    /// `false`: outside the current extents, or the any-hit program ignored it.
    Rejected,
    /// `true`: committed; the search goes on.
    Accepted,
    /// Committed and the search is over: the intersection program must return (the
    /// spec ends it here). Later reports are rejected.
    AcceptedAndEnded,
}

impl ReportHitOutcome {
    /// `ReportHit`'s value.
    pub fn accepted(self) -> bool {
        self != ReportHitOutcome::Rejected
    }
}

/// The any-hit programs of a trace: called for every non-opaque hit (DXR spec "Any hit
/// shaders"). `attributes` are the intersection program's for procedural hits and
/// `None` for triangles (whose attributes are [`Hit::barycentrics`]). A hit group
/// without an any-hit program answers [`AnyHitDecision::Accept`], which is how the spec
/// treats it ("if there is no any hit shader, the geometry is considered opaque").
pub trait AnyHitProgram<A> {
    /// Decides hit `hit` (`hit.t` is `RayTCurrent()`).
    fn any_hit(&mut self, hit: &Hit, attributes: Option<&A>) -> AnyHitDecision;
}

impl<A, F: FnMut(&Hit, Option<&A>) -> AnyHitDecision> AnyHitProgram<A> for F {
    fn any_hit(&mut self, hit: &Hit, attributes: Option<&A>) -> AnyHitDecision {
        self(hit, attributes)
    }
}

/// The intersection programs of a trace: called for every procedural candidate, they
/// report hits through the [`HitReporter`] (DXR spec "Intersection shader").
pub trait IntersectionProgram<A> {
    /// Runs for `candidate` (its AABB); reports hits with `reporter.report_hit`.
    fn intersect(&mut self, candidate: &Hit, reporter: &mut HitReporter<'_, A>);
}

impl<A, F: FnMut(&Hit, &mut HitReporter<'_, A>)> IntersectionProgram<A> for F {
    fn intersect(&mut self, candidate: &Hit, reporter: &mut HitReporter<'_, A>) {
        self(candidate, reporter)
    }
}

/// Programs that do nothing: any-hit accepts, intersection reports nothing (a closest-hit
/// search over triangles).
#[derive(Clone, Copy, Debug, Default)]
pub struct NoPrograms;

impl<A> AnyHitProgram<A> for NoPrograms {
    fn any_hit(&mut self, _: &Hit, _: Option<&A>) -> AnyHitDecision {
        AnyHitDecision::Accept
    }
}

impl<A> IntersectionProgram<A> for NoPrograms {
    fn intersect(&mut self, _: &Hit, _: &mut HitReporter<'_, A>) {}
}

/// What an intersection program reports hits to (`ReportHit`), while the traversal waits.
pub struct HitReporter<'a, A> {
    t: &'a mut Traversal,
    tlas: &'a TopLevel,
    candidate: Core,
    any_hit: &'a mut dyn AnyHitProgram<A>,
    attributes: &'a mut Option<A>,
}

impl<A> HitReporter<'_, A> {
    /// `RayTMin()`.
    pub fn t_min(&self) -> f32 {
        self.t.ray.t_min
    }

    /// `RayTCurrent()` in the intersection program: the closest committed hit so far
    /// (`TMax` before any).
    pub fn t_current(&self) -> f32 {
        self.t.t_committed
    }

    /// `RayFlags()`.
    pub fn ray_flags(&self) -> RayFlags {
        self.t.visible_flags
    }

    /// Whether the search has ended (the program should return).
    pub fn search_ended(&self) -> bool {
        self.t.done
    }

    /// `ReportHit(t, hit_kind, attributes)`: a hit at `t` within `[TMin, RayTCurrent()]`
    /// runs the any-hit program if the primitive is non-opaque, and is committed unless
    /// ignored (DXR spec "ReportHit", "Ray extents").
    pub fn report_hit(&mut self, t: f32, hit_kind: u32, attributes: A) -> ReportHitOutcome {
        if self.t.done || !(t >= self.t.ray.t_min && t <= self.t.t_committed) {
            return ReportHitOutcome::Rejected;
        }
        let core = Core {
            t,
            hit_kind,
            ..self.candidate
        };
        let decision = if core.non_opaque {
            match self.t.materialize(self.tlas, core) {
                Some(hit) => self.any_hit.any_hit(&hit, Some(&attributes)),
                None => AnyHitDecision::Ignore,
            }
        } else {
            AnyHitDecision::Accept
        };
        match decision {
            AnyHitDecision::Ignore => ReportHitOutcome::Rejected,
            d => {
                self.t.commit(core);
                *self.attributes = Some(attributes);
                if d == AnyHitDecision::AcceptAndEndSearch {
                    self.t.done = true;
                }
                if self.t.done {
                    ReportHitOutcome::AcceptedAndEnded
                } else {
                    ReportHitOutcome::Accepted
                }
            }
        }
    }
}

/// `TraceRay`'s arguments that concern traversal.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TraceRayDesc {
    /// `RayFlags`.
    pub flags: RayFlags,
    /// `D3D12_RAYTRACING_PIPELINE_FLAGS`' skip flags, applied without showing in
    /// `RayFlags()`.
    pub pipeline_flags: RayFlags,
    /// `InstanceInclusionMask` (low 8 bits used).
    pub instance_inclusion_mask: u32,
    /// The ray.
    pub ray: Ray,
}

/// What a `TraceRay` found.
#[derive(Clone, Debug, PartialEq)]
pub struct TraceResult<A> {
    /// The closest committed hit (or the first, with `ACCEPT_FIRST_HIT_AND_END_SEARCH`);
    /// `None`: the miss program runs.
    pub committed: Option<Hit>,
    /// The committed procedural hit's attributes.
    pub attributes: Option<A>,
    /// Whether the closest-hit program runs: a hit and no `SKIP_CLOSEST_HIT_SHADER`.
    pub run_closest_hit: bool,
    /// Work counts.
    pub stats: TraversalStats,
}

/// Runs `TraceRay` traversals; keeps its stacks from one ray to the next.
#[derive(Clone, Debug, Default)]
pub struct Tracer {
    t: Traversal,
}

impl Tracer {
    /// A tracer.
    pub fn new() -> Self {
        Self::default()
    }

    /// `TraceRay` into `tlas` (`None`: a NULL structure, a miss) with the given programs
    /// (DXR spec "TraceRay control flow").
    pub fn trace_ray<A>(
        &mut self,
        tlas: Option<&TopLevel>,
        desc: &TraceRayDesc,
        any_hit: &mut dyn AnyHitProgram<A>,
        intersection: &mut dyn IntersectionProgram<A>,
    ) -> TraceResult<A> {
        let t = &mut self.t;
        t.begin(
            tlas,
            desc.flags,
            desc.pipeline_flags,
            desc.instance_inclusion_mask,
            desc.ray,
        );
        let mut attributes: Option<A> = None;
        if let Some(tlas) = tlas {
            while t.proceed(tlas) {
                let Some(c) = t.candidate else { break };
                match c.kind {
                    PrimitiveKind::Triangle => {
                        let Some(hit) = t.materialize(tlas, c) else {
                            continue;
                        };
                        match any_hit.any_hit(&hit, None) {
                            AnyHitDecision::Ignore => {}
                            d => {
                                t.commit(c);
                                attributes = None;
                                if d == AnyHitDecision::AcceptAndEndSearch {
                                    t.done = true;
                                }
                            }
                        }
                    }
                    PrimitiveKind::Procedural => {
                        let Some(hit) = t.materialize(tlas, c) else {
                            continue;
                        };
                        let before = t.committed;
                        let mut reported = None;
                        let mut reporter = HitReporter {
                            t: &mut *t,
                            tlas,
                            candidate: c,
                            any_hit: &mut *any_hit,
                            attributes: &mut reported,
                        };
                        intersection.intersect(&hit, &mut reporter);
                        if t.committed != before
                            && let Some(a) = reported
                        {
                            attributes = Some(a);
                        }
                    }
                }
            }
            // A triangle committed after a procedural hit replaces it.
            if t.committed
                .is_some_and(|c| c.kind == PrimitiveKind::Triangle)
            {
                attributes = None;
            }
        }
        let committed = tlas.and_then(|tl| t.committed(tl));
        TraceResult {
            run_closest_hit: committed.is_some()
                && !desc.flags.contains(RayFlags::SKIP_CLOSEST_HIT_SHADER),
            committed,
            attributes,
            stats: t.stats,
        }
    }

    /// The closest hit of `ray` with no programs (every any-hit accepts, procedural
    /// primitives report nothing); the fast path of a visibility or primary ray.
    pub fn closest_hit(
        &mut self,
        tlas: &TopLevel,
        flags: RayFlags,
        mask: u32,
        ray: Ray,
    ) -> Option<Hit> {
        let t = &mut self.t;
        t.begin(Some(tlas), flags, RayFlags::NONE, mask, ray);
        while t.proceed(tlas) {
            if let Some(c) = t.candidate
                && c.kind == PrimitiveKind::Triangle
            {
                t.commit(c);
            }
        }
        t.committed(tlas)
    }

    /// Work counts of the last trace.
    pub fn stats(&self) -> TraversalStats {
        self.t.stats
    }
}

/// [`Tracer::trace_ray`] with a tracer of its own.
pub fn trace_ray<A>(
    tlas: Option<&TopLevel>,
    desc: &TraceRayDesc,
    any_hit: &mut dyn AnyHitProgram<A>,
    intersection: &mut dyn IntersectionProgram<A>,
) -> TraceResult<A> {
    Tracer::new().trace_ray(tlas, desc, any_hit, intersection)
}
