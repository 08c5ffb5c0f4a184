//! Shader execution reordering (SM 6.9 `HitObject`): the `ho_*` instructions, each
//! lane's hit objects, and what the pipeline does for `HitObject::TraceRay` and
//! `HitObject::Invoke` (asked through [`RayContext`]).
//!
//! Owns: where a lane's hit objects live (one per creation site and lane in
//! [`Wave::hit_objects`], as inline ray queries keep theirs: a hit object is the value
//! that names its slot, so it flows through phis and copies; running the site again
//! replaces the object there), what a hit object holds ([`HitObject`]), the values its
//! accessors return, and copying payload and attribute memory between the lane's
//! arrays and the pipeline. Does not own: traversal, any-hit and intersection programs,
//! the shader table and recursion (`pipeline::rays`).
//!
//! `MaybeReorderThread` has no instruction: reordering changes no result (HLSL proposal
//! 0027, "Reorder points": the minimal implementation is a no-op), so the lowering
//! checks its stage and operands and dxlane keeps lane order.
//!
//! # Rules (HLSL proposal 0027, "HitObject HLSL Additions")
//!
//! - A NOP hit object (`MakeNop`, or a query with nothing committed) and a slot no
//!   instruction made: every accessor 0 but the two matrices, which are the identity;
//!   `Invoke` runs nothing.
//! - A miss: ray flags, `TMin`, `TCurrent` (= `TMax`), world origin and direction;
//!   object origin and direction are the world ones; hit values 0; matrices identity;
//!   the shader table index is the miss index.
//! - A hit: everything the committed hit gives; the shader table index is the hit-group
//!   record the trace computed ("Addressing calculations within shader tables"), or
//!   none for a hit from a ray query until `SetShaderTableIndex` (0 is read, and
//!   `Invoke` runs nothing).
//! - `SetShaderTableIndex` on a NOP hit object leaves it a NOP.
//! - `GetAttributes` writes the hit's attributes (barycentrics for a triangle, what the
//!   intersection program or `FromRayQuery` gave for a procedural primitive), zeros past
//!   them and for anything but a hit.

use std::sync::Arc;

use crate::ir::{HitObjectValue, LocalId, MAKE_MISS_ARGS, Reg, TRACE_RAY_ARGS};
use crate::raytracing::{Hit, PrimitiveKind, Ray, TopLevel, Transform3x4};
use crate::resources::Descriptor;

use super::Ctx;
use super::budget::ExecError;
use super::control;
use super::rays::{RayContext, read, write};
use super::wave::{Wave, lanes};

/// What a hit object encodes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum HitObjectKind {
    /// A NOP hit object: neither hit nor miss.
    #[default]
    Nop,
    /// A miss.
    Miss,
    /// A committed hit.
    Hit,
}

/// One lane's hit object: the ray, and the hit or miss it encodes.
#[derive(Clone, Debug)]
pub struct HitObject {
    /// Hit, miss or NOP.
    pub kind: HitObjectKind,
    /// The ray (`TMax` is the miss's `TCurrent`).
    pub ray: Ray,
    /// The ray flags the object was made with.
    pub flags: u32,
    /// The hit (for [`HitObjectKind::Hit`]).
    pub hit: Option<Hit>,
    /// The hit's attributes as words (triangles: the barycentrics).
    pub attributes: Vec<u32>,
    /// The hit-group (hit) or miss (miss) record the object names; `None` for a NOP and
    /// for a hit from a ray query that no `SetShaderTableIndex` gave one.
    pub index: Option<u32>,
}

const TRUE: u32 = u32::MAX;

impl Default for HitObject {
    /// A NOP hit object (HLSL: a default-initialized `HitObject`).
    fn default() -> Self {
        HitObject {
            kind: HitObjectKind::Nop,
            ray: Ray {
                origin: [0.0; 3],
                t_min: 0.0,
                direction: [0.0; 3],
                t_max: 0.0,
            },
            flags: 0,
            hit: None,
            attributes: Vec::new(),
            index: None,
        }
    }
}

impl HitObject {
    /// A miss of `ray` with `flags`, naming miss record `index`.
    pub fn miss(ray: Ray, flags: u32, index: u32) -> HitObject {
        HitObject {
            kind: HitObjectKind::Miss,
            ray,
            flags,
            hit: None,
            attributes: Vec::new(),
            index: Some(index),
        }
    }

    /// The committed `hit` of `ray`, with its attributes, naming hit-group record
    /// `index` (if any).
    pub fn hit(ray: Ray, flags: u32, hit: Hit, attributes: Vec<u32>, index: Option<u32>) -> Self {
        HitObject {
            kind: HitObjectKind::Hit,
            ray,
            flags,
            hit: Some(hit),
            attributes,
            index,
        }
    }

    /// Component `i` of `value` (see the module's rules).
    pub fn read(&self, value: HitObjectValue, i: usize) -> u32 {
        use HitObjectValue as V;
        let f = |x: f32| x.to_bits();
        let comp = |v: [f32; 3]| v.get(i).copied().map_or(0, f32::to_bits);
        let boolean = |b: bool| if b { TRUE } else { 0 };
        let nop = self.kind == HitObjectKind::Nop;
        let hit = self
            .hit
            .as_ref()
            .filter(|_| self.kind == HitObjectKind::Hit);
        let matrix = |m: Option<&Transform3x4>| {
            let m = m.copied().unwrap_or(Transform3x4::IDENTITY);
            m.0.get(i).copied().map_or(0, f32::to_bits)
        };
        match value {
            V::IsMiss => boolean(self.kind == HitObjectKind::Miss),
            V::IsHit => boolean(self.kind == HitObjectKind::Hit),
            V::IsNop => boolean(nop),
            _ if nop => match value {
                V::ObjectToWorld | V::WorldToObject => matrix(None),
                _ => 0,
            },
            V::RayFlags => self.flags,
            V::RayTMin => f(self.ray.t_min),
            V::RayTCurrent => hit.map_or(f(self.ray.t_max), |h| f(h.t)),
            V::WorldRayOrigin => comp(self.ray.origin),
            V::WorldRayDirection => comp(self.ray.direction),
            V::ObjectRayOrigin => comp(hit.map_or(self.ray.origin, |h| h.object_ray_origin)),
            V::ObjectRayDirection => {
                comp(hit.map_or(self.ray.direction, |h| h.object_ray_direction))
            }
            V::ObjectToWorld => matrix(hit.map(|h| &h.object_to_world)),
            V::WorldToObject => matrix(hit.map(|h| &h.world_to_object)),
            V::GeometryIndex => hit.map_or(0, |h| h.geometry_index),
            V::InstanceIndex => hit.map_or(0, |h| h.instance_index),
            V::InstanceId => hit.map_or(0, |h| h.instance_id),
            V::PrimitiveIndex => hit.map_or(0, |h| h.primitive_index),
            V::HitKind => hit.map_or(0, |h| h.hit_kind),
            V::ShaderTableIndex => self.index.unwrap_or(0),
        }
    }
}

/// The context, or the error for an instruction that needs one.
fn context<'a>(cx: &Ctx<'a>, what: &str) -> Result<&'a dyn RayContext, ExecError> {
    cx.rays.ok_or_else(|| {
        ExecError::Dispatch(format!(
            "`{what}` runs only in a ray-tracing pipeline (DispatchRays)"
        ))
    })
}

fn reg<const W: usize>(w: &Wave<W>, r: Reg, l: usize) -> u32 {
    if r.is_none() { 0 } else { w.regs[r.index()][l] }
}

/// The lane's hit object the value `h` names, if any.
fn object_of<const W: usize>(w: &Wave<W>, h: u32, l: usize) -> Option<&HitObject> {
    let i = (h as usize).checked_mul(W)?.checked_add(l)?;
    w.hit_objects.get(i)?.as_deref()
}

/// Puts `o` in lane `l`'s `slot`.
fn put<const W: usize>(w: &mut Wave<W>, slot: u32, l: usize, o: HitObject) {
    // `ir::validate` keeps `slot` below `ir::MAX_HIT_OBJECT_SLOTS`, so this is bounded.
    let need = (slot as usize + 1) * W;
    if w.hit_objects.len() < need {
        w.hit_objects.resize_with(need, || None);
    }
    w.hit_objects[slot as usize * W + l] = Some(Box::new(o));
}

fn ray_of(x: &[u32]) -> Ray {
    let f = |k: usize| f32::from_bits(x.get(k).copied().unwrap_or(0));
    Ray {
        origin: [f(0), f(1), f(2)],
        t_min: f(3),
        direction: [f(4), f(5), f(6)],
        t_max: f(7),
    }
}

/// The operands of `ho_trace`.
pub struct TraceArgs<'i> {
    /// The slot and result register.
    pub slot: (u32, Reg),
    /// The structure's handle.
    pub accel: Reg,
    /// `TraceRay`'s other operands.
    pub args: &'i [Reg; TRACE_RAY_ARGS],
    /// The payload's array, address register, offset and size.
    pub payload: (LocalId, Reg, u32, u32),
}

/// `ho_trace`, one lane after another.
pub fn trace<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    a: &TraceArgs<'_>,
    pc: usize,
) -> Result<(), ExecError> {
    let rc = context(cx, "ho_trace")?;
    let (x, addr, offset, bytes) = a.payload;
    let (slot, dst) = a.slot;
    let mut costs = [0u64; W];
    for l in lanes(w.ex.mask) {
        let accel: Option<Arc<TopLevel>> = match cx.table.get(reg(w, a.accel, l)) {
            Descriptor::AccelerationStructure(s) => Some(s.0.clone()),
            _ => None,
        };
        let args = a.args.map(|r| reg(w, r, l));
        let at = reg(w, addr, l).wrapping_add(offset);
        let mut payload = read(w, x, at, bytes.div_ceil(4) as usize, l);
        let (o, cost) = rc.trace_hit_object(w.tags[l], accel, &args, &mut payload)?;
        costs[l] = cost;
        write(w, x, at, &payload, l);
        put(w, slot, l, o);
    }
    w.ex.store(&mut w.regs, dst, &[slot; W]);
    control::charge_lanes(w, cx, &costs, pc)
}

/// `ho_miss`: a miss of the lane's ray in `slot`.
pub fn miss<const W: usize>(w: &mut Wave<W>, slot: u32, dst: Reg, args: &[Reg; MAKE_MISS_ARGS]) {
    for l in lanes(w.ex.mask) {
        let x = args.map(|r| reg(w, r, l));
        // HLSL proposal 0027 "HitObject::MakeMiss": only the low 16 bits of the index.
        let o = HitObject::miss(ray_of(&x[2..]), x[0], x[1] & 0xffff);
        put(w, slot, l, o);
    }
    w.ex.store(&mut w.regs, dst, &[slot; W]);
}

/// `ho_nop`: a NOP hit object in `slot`.
pub fn nop<const W: usize>(w: &mut Wave<W>, slot: u32, dst: Reg) {
    for l in lanes(w.ex.mask) {
        put(w, slot, l, HitObject::default());
    }
    w.ex.store(&mut w.regs, dst, &[slot; W]);
}

/// `ho_from_query` (`attrs` `None`) and `ho_from_query_attrs`: the query's committed
/// hit in `slot`; a procedural hit takes the given hit kind and attributes.
pub fn from_query<const W: usize>(
    w: &mut Wave<W>,
    slot: u32,
    dst: Reg,
    query: Reg,
    attrs: Option<(Reg, (LocalId, Reg, u32, u32))>,
) {
    for l in lanes(w.ex.mask) {
        let q = reg(w, query, l);
        let o = match super::ray_query::committed_hit(w, q, l) {
            None => HitObject::default(),
            Some((mut h, ray, flags)) => {
                let words = match (h.kind, attrs) {
                    (PrimitiveKind::Triangle, _) => {
                        vec![h.barycentrics[0].to_bits(), h.barycentrics[1].to_bits()]
                    }
                    (PrimitiveKind::Procedural, Some((kind, (x, addr, offset, bytes)))) => {
                        h.hit_kind = reg(w, kind, l);
                        let at = reg(w, addr, l).wrapping_add(offset);
                        read(w, x, at, bytes.div_ceil(4) as usize, l)
                    }
                    (PrimitiveKind::Procedural, None) => Vec::new(),
                };
                HitObject::hit(ray, flags, h, words, None)
            }
        };
        put(w, slot, l, o);
    }
    w.ex.store(&mut w.regs, dst, &[slot; W]);
}

/// `ho_set_index`: a copy of the hit object `hit` with shader table index `index`.
pub fn set_index<const W: usize>(w: &mut Wave<W>, slot: u32, dst: Reg, hit: Reg, index: Reg) {
    for l in lanes(w.ex.mask) {
        let mut o = object_of(w, reg(w, hit, l), l).cloned().unwrap_or_default();
        let i = reg(w, index, l);
        // HLSL proposal 0027 "HitObject::SetShaderTableIndex": a NOP ignores it; a hit
        // uses the bottom 28 bits, a miss the bottom 16.
        match o.kind {
            HitObjectKind::Nop => {}
            HitObjectKind::Hit => o.index = Some(i & 0x0fff_ffff),
            HitObjectKind::Miss => o.index = Some(i & 0xffff),
        }
        put(w, slot, l, o);
    }
    w.ex.store(&mut w.regs, dst, &[slot; W]);
}

/// `ho_invoke`, one lane after another.
pub fn invoke<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    hit: Reg,
    payload: (LocalId, Reg, u32, u32),
    pc: usize,
) -> Result<(), ExecError> {
    let rc = context(cx, "ho_invoke")?;
    let (x, addr, offset, bytes) = payload;
    let mut costs = [0u64; W];
    for l in lanes(w.ex.mask) {
        let o = object_of(w, reg(w, hit, l), l).cloned().unwrap_or_default();
        let at = reg(w, addr, l).wrapping_add(offset);
        let mut data = read(w, x, at, bytes.div_ceil(4) as usize, l);
        costs[l] = rc.invoke(w.tags[l], &o, &mut data)?;
        write(w, x, at, &data, l);
    }
    control::charge_lanes(w, cx, &costs, pc)
}

/// `ho_get`: component `index` of `value` in each active lane.
pub fn get<const W: usize>(w: &mut Wave<W>, value: HitObjectValue, index: u8, dst: Reg, hit: Reg) {
    let mut out = [0u32; W];
    let nop = HitObject::default();
    for l in lanes(w.ex.mask) {
        let o = object_of(w, reg(w, hit, l), l).unwrap_or(&nop);
        out[l] = o.read(value, usize::from(index));
    }
    w.ex.store(&mut w.regs, dst, &out);
}

/// `ho_load_local`: each active lane's 32-bit local root constant at byte `offset` of
/// the record its hit object names (the pipeline reads the record: HLSL proposal 0027,
/// "HitObject::LoadLocalRootTableConstant").
pub fn load_local<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    dst: Reg,
    hit: Reg,
    offset: Reg,
) -> Result<(), ExecError> {
    let rc = context(cx, "ho_load_local")?;
    let mut out = [0u32; W];
    let nop = HitObject::default();
    for l in lanes(w.ex.mask) {
        let o = object_of(w, reg(w, hit, l), l).unwrap_or(&nop);
        out[l] = rc.local_root_constant(w.tags[l], o, reg(w, offset, l))?;
    }
    w.ex.store(&mut w.regs, dst, &out);
    Ok(())
}

/// `ho_attributes`: the hit object's attribute words into the lane's array.
pub fn attributes<const W: usize>(w: &mut Wave<W>, hit: Reg, attrs: (LocalId, Reg, u32, u32)) {
    let (x, addr, offset, bytes) = attrs;
    for l in lanes(w.ex.mask) {
        let words = bytes.div_ceil(4) as usize;
        let mut data = vec![0u32; words];
        if let Some(o) = object_of(w, reg(w, hit, l), l)
            && o.kind == HitObjectKind::Hit
        {
            for (d, s) in data.iter_mut().zip(&o.attributes) {
                *d = *s;
            }
        }
        let at = reg(w, addr, l).wrapping_add(offset);
        write(w, x, at, &data, l);
    }
}
