//! Shader execution reordering (SM 6.9 `HitObject`, `MaybeReorderThread`; HLSL proposal
//! 0027, DXR functional spec 1.2 "Shader Execution Reordering") in `lib_6_9` libraries
//! built with `dxil::llvm::build::Mb` (no compiler on this machine writes them), run
//! through `[rays]` jobs under both engines, every value worked out by hand below.
//!
//! The scene (as the corpus's `ray_tracing.toml`): one opaque triangle (0,0,0) (1,0,0)
//! (0,1,0) under an instance moved to z = 5, ID 3, hit-group contribution 1. A 2 × 1
//! launch: lane 0's ray from (0.25, 0.25, 0) along +z (`TMin` 0, `TMax` 100) meets it at
//! t = 5 with barycentrics (0.25, 0.25), seen from its back ("D3D12_RAYTRACING_INSTANCE_
//! FLAGS": clockwise is front; these vertices turn counter-clockwise), so hit kind 255;
//! lane 1's ray from (2, 2, 0) misses. Hit group record 1 (contribution 1 + 0 + 0,
//! "Addressing calculations within shader tables") is `ch_b`, record 0 `ch_a`; miss
//! records 0 and 1 are `miss_a` and `miss_b`.
//!
//! The programs write the 16-byte payload: `ch_a` (10, RayTCurrent, barycentric x,
//! InstanceID), `ch_b` the same with 20, `miss_a` (30, RayTCurrent, 0, 0) and `miss_b`
//! with 40; a miss's `RayTCurrent()` is `TMax` ("RayTCurrent").

use std::path::PathBuf;

use dxlane::dxil::dxop::DxOp;
use dxlane::dxil::llvm::{CastOp, TypeId, ValueId};
use dxlane::exec::jit::Engine;

use crate::common;

use crate::cornell::make::{ANY_HIT, CLOSEST_HIT, L, MISS, RAYGEN, Res};

/// The shader model the libraries declare (`lib_6_9`).
const SM_MINOR: i64 = 9;

/// `%dx.types.HitObject = type { i8* }`.
fn hit_object_ty(l: &mut L) -> TypeId {
    let i8t = l.mb.int(8);
    let p = l.ptr(i8t);
    l.mb.named("dx.types.HitObject", vec![p])
}

/// The lane's ray: origin (0.25 + 1.75 x, 0.25 + 1.75 x, 0), `TMin` 0, direction
/// (0, 0, 1), `TMax` 100; and `DispatchRaysIndex().x`.
struct LaneRay {
    origin: [ValueId; 3],
    t_min: ValueId,
    dir: [ValueId; 3],
    t_max: ValueId,
    x: ValueId,
}

fn lane_ray(l: &mut L) -> LaneRay {
    let i32t = l.i32t;
    let f32t = l.f32t;
    let c0 = l.mb.ci(8, 0);
    let x = l.mb.dx(
        "dispatchRaysIndex.i32",
        DxOp::DispatchRaysIndex,
        &[c0],
        i32t,
    );
    let xf = l.mb.cast(CastOp::UiToFp, x, f32t);
    let (step, quarter) = (l.f(1.75), l.f(0.25));
    let s = l.mb.bin(dxlane::dxil::llvm::BinOp::Mul, xf, step, f32t);
    let o = l.mb.bin(dxlane::dxil::llvm::BinOp::Add, s, quarter, f32t);
    let (zero, one, far) = (l.f(0.0), l.f(1.0), l.f(100.0));
    LaneRay {
        origin: [o, o, zero],
        t_min: zero,
        dir: [zero, zero, one],
        t_max: far,
        x,
    }
}

/// `[scene, flags, 0xff, contribution 0, multiplier 0, miss, ray…]` (TraceRay's
/// operands before the payload).
fn trace_operands(l: &mut L, r: &LaneRay, flags: i64, miss: i64) -> Vec<ValueId> {
    let scene = l.handle(Res::Scene);
    let (fl, mask, hc, mult, mi) = (l.i(flags), l.i(0xff), l.i(0), l.i(0), l.i(miss));
    vec![
        scene,
        fl,
        mask,
        hc,
        mult,
        mi,
        r.origin[0],
        r.origin[1],
        r.origin[2],
        r.t_min,
        r.dir[0],
        r.dir[1],
        r.dir[2],
        r.t_max,
    ]
}

/// A payload alloca holding `init`.
fn payload(l: &mut L, init: [f32; 4]) -> ValueId {
    let ty = l.payload;
    let p = l.alloca(ty);
    let v = init.map(|x| l.f(x));
    l.store_fields(ty, p, &v);
    p
}

/// `u0[x, row] = v`.
fn store(l: &mut L, x: ValueId, row: i64, v: [ValueId; 4]) {
    let picture = l.handle(Res::Picture);
    let i32t = l.i32t;
    let u = l.mb.undef(i32t);
    let y = l.i(row);
    let mask = l.mb.ci(8, 15);
    let void = l.mb.void();
    l.mb.dx(
        "textureStore.f32",
        DxOp::TextureStore,
        &[picture, x, y, u, v[0], v[1], v[2], v[3], mask],
        void,
    );
}

/// `u0[x, row] =` the payload's four floats.
fn store_payload(l: &mut L, x: ValueId, row: i64, p: ValueId) {
    let ty = l.payload;
    let v = [0, 1, 2, 3].map(|k| l.load_field(ty, p, k));
    store(l, x, row, v);
}

/// An `i32` (or, zero-extended, an `i1`) as the float of the same bits.
fn bits(l: &mut L, v: ValueId, boolean: bool) -> ValueId {
    let f32t = l.f32t;
    let i32t = l.i32t;
    let v = if boolean {
        l.mb.cast(CastOp::ZExt, v, i32t)
    } else {
        v
    };
    l.mb.cast(CastOp::BitCast, v, f32t)
}

/// `HitObject::TraceRay` of the lane's ray with `flags`, miss index 0.
fn ho_trace(l: &mut L, r: &LaneRay, flags: i64, p: ValueId) -> ValueId {
    let ho = hit_object_ty(l);
    let mut ops = trace_operands(l, r, flags, 0);
    ops.push(p);
    l.mb.dx(
        "hitObject_TraceRay.struct.Payload",
        DxOp::HitObject_TraceRay,
        &ops,
        ho,
    )
}

fn invoke(l: &mut L, h: ValueId, p: ValueId) {
    let void = l.mb.void();
    l.mb.dx(
        "hitObject_Invoke.struct.Payload",
        DxOp::HitObject_Invoke,
        &[h, p],
        void,
    );
}

fn reorder(l: &mut L, h: ValueId, hint: Option<ValueId>, hint_bits: i64) {
    let i32t = l.i32t;
    let hint = hint.unwrap_or_else(|| l.mb.undef(i32t));
    let nb = l.i(hint_bits);
    let void = l.mb.void();
    l.mb.dx(
        "maybeReorderThread",
        DxOp::MaybeReorderThread,
        &[h, hint, nb],
        void,
    );
}

/// A closest-hit program: payload (marker, RayTCurrent, barycentric x, InstanceID).
fn closest_hit(name: &str, marker: f32) -> Vec<u8> {
    let mut l = L::new();
    let p = l.payload_param();
    let f = l.f32t;
    let attr_ty =
        l.mb.named("struct.BuiltInTriangleIntersectionAttributes", vec![f, f]);
    let ap = l.ptr(attr_ty);
    let a = l.mb.param(ap);
    l.mb.block();
    let m = l.f(marker);
    let t = l.mb.dx("rayTCurrent.f32", DxOp::RayTCurrent, &[], f);
    let u = l.load_field(attr_ty, a, 0);
    let i32t = l.i32t;
    let id = l.mb.dx("instanceID.i32", DxOp::InstanceID, &[], i32t);
    let idf = l.mb.cast(CastOp::UiToFp, id, f);
    let ty = l.payload;
    l.store_fields(ty, p, &[m, t, u, idf]);
    l.finish_as(name, CLOSEST_HIT, Some((16, 8)), SM_MINOR)
}

/// A miss program: payload (marker, RayTCurrent, 0, 0).
fn miss(name: &str, marker: f32) -> Vec<u8> {
    let mut l = L::new();
    let p = l.payload_param();
    l.mb.block();
    let f = l.f32t;
    let m = l.f(marker);
    let t = l.mb.dx("rayTCurrent.f32", DxOp::RayTCurrent, &[], f);
    let z = l.f(0.0);
    let ty = l.payload;
    l.store_fields(ty, p, &[m, t, z, z]);
    l.finish_as(name, MISS, Some((16, 0)), SM_MINOR)
}

/// `TraceRay` with the payload written to row 0 (the reference for `rg_ser`).
fn rg_trace() -> Vec<u8> {
    let mut l = L::new();
    l.mb.block();
    let r = lane_ray(&mut l);
    let p = payload(&mut l, [0.0; 4]);
    let mut ops = trace_operands(&mut l, &r, 0, 0);
    ops.push(p);
    let void = l.mb.void();
    l.mb.dx("traceRay.struct.Payload", DxOp::TraceRay, &ops, void);
    store_payload(&mut l, r.x, 0, p);
    l.finish_as("rg_trace", RAYGEN, None, SM_MINOR)
}

/// `HitObject::TraceRay`, `MaybeReorderThread(hit, x, 1)`, `HitObject::Invoke`: the
/// canonical replacement of `TraceRay` (proposal 0027, "Detailed Design").
fn rg_ser() -> Vec<u8> {
    let mut l = L::new();
    l.mb.block();
    let r = lane_ray(&mut l);
    let p = payload(&mut l, [0.0; 4]);
    let h = ho_trace(&mut l, &r, 0, p);
    reorder(&mut l, h, Some(r.x), 1);
    invoke(&mut l, h, p);
    store_payload(&mut l, r.x, 0, p);
    l.finish_as("rg_ser", RAYGEN, None, SM_MINOR)
}

/// `HitObject::MakeMiss(0, 1, ray)` then `Invoke`: miss record 1 for both lanes, whatever
/// the ray would hit ("HitObject::MakeMiss").
fn rg_miss() -> Vec<u8> {
    let mut l = L::new();
    l.mb.block();
    let r = lane_ray(&mut l);
    let p = payload(&mut l, [0.0; 4]);
    let ho = hit_object_ty(&mut l);
    let (fl, mi) = (l.i(0), l.i(1));
    let h = l.mb.dx(
        "hitObject_MakeMiss",
        DxOp::HitObject_MakeMiss,
        &[
            fl,
            mi,
            r.origin[0],
            r.origin[1],
            r.origin[2],
            r.t_min,
            r.dir[0],
            r.dir[1],
            r.dir[2],
            r.t_max,
        ],
        ho,
    );
    invoke(&mut l, h, p);
    store_payload(&mut l, r.x, 0, p);
    l.finish_as("rg_miss", RAYGEN, None, SM_MINOR)
}

/// `HitObject::MakeNop`, `MaybeReorderThread(nop)` (undef hint, 0 bits), `Invoke`: no
/// program runs, the payload (5, 6, 7, 8) stays; then `MaybeReorderThread(x, 1)` (the
/// hint-only overload, dxc's NOP hit object) and the accessors of the NOP in row 1:
/// `IsNop`, `IsHit`, `GetObjectToWorld3x4()[0][0]` (identity) and `GetRayTCurrent` (0).
fn rg_nop() -> Vec<u8> {
    let mut l = L::new();
    l.mb.block();
    let r = lane_ray(&mut l);
    let p = payload(&mut l, [5.0, 6.0, 7.0, 8.0]);
    let ho = hit_object_ty(&mut l);
    let h =
        l.mb.dx("hitObject_MakeNop", DxOp::HitObject_MakeNop, &[], ho);
    reorder(&mut l, h, None, 0);
    invoke(&mut l, h, p);
    store_payload(&mut l, r.x, 0, p);
    let h2 =
        l.mb.dx("hitObject_MakeNop", DxOp::HitObject_MakeNop, &[], ho);
    reorder(&mut l, h2, Some(r.x), 1);
    let b = l.mb.int(1);
    let f = l.f32t;
    let nop =
        l.mb.dx("hitObject_StateScalar.i1", DxOp::HitObject_IsNop, &[h2], b);
    let hit =
        l.mb.dx("hitObject_StateScalar.i1", DxOp::HitObject_IsHit, &[h2], b);
    let (z, zz) = (l.i(0), l.i(0));
    let m00 = l.mb.dx(
        "hitObject_StateMatrix.f32",
        DxOp::HitObject_ObjectToWorld3x4,
        &[h2, z, zz],
        f,
    );
    let tc = l.mb.dx(
        "hitObject_StateScalar.f32",
        DxOp::HitObject_RayTCurrent,
        &[h2],
        f,
    );
    let (nop, hit) = (bits(&mut l, nop, true), bits(&mut l, hit, true));
    store(&mut l, r.x, 1, [nop, hit, m00, tc]);
    l.finish_as("rg_nop", RAYGEN, None, SM_MINOR)
}

/// `HitObject::TraceRay` with `RAY_FLAG_FORCE_OPAQUE` (1), then `SetShaderTableIndex(0)`
/// and `Invoke` (row 0: the hit runs `ch_a` instead of `ch_b`; the miss runs miss record
/// 0), and every accessor of the traced object in rows 1–5.
fn rg_get() -> Vec<u8> {
    let mut l = L::new();
    l.mb.block();
    let r = lane_ray(&mut l);
    let p = payload(&mut l, [0.0; 4]);
    let h = ho_trace(&mut l, &r, 1, p);
    let ho = hit_object_ty(&mut l);
    let zero = l.i(0);
    let h0 = l.mb.dx(
        "hitObject_SetShaderTableIndex",
        DxOp::HitObject_SetShaderTableIndex,
        &[h, zero],
        ho,
    );
    let p0 = payload(&mut l, [0.0; 4]);
    invoke(&mut l, h0, p0);
    store_payload(&mut l, r.x, 0, p0);
    let (b, i32t, f) = (l.mb.int(1), l.i32t, l.f32t);
    let scalar = |l: &mut L, op: DxOp, ty: TypeId, name: &str| l.mb.dx(name, op, &[h], ty);
    // Row 1: IsHit, IsMiss, IsNop, GetShaderTableIndex.
    let is_hit = scalar(&mut l, DxOp::HitObject_IsHit, b, "hitObject_StateScalar.i1");
    let is_miss = scalar(
        &mut l,
        DxOp::HitObject_IsMiss,
        b,
        "hitObject_StateScalar.i1",
    );
    let is_nop = scalar(&mut l, DxOp::HitObject_IsNop, b, "hitObject_StateScalar.i1");
    let index = scalar(
        &mut l,
        DxOp::HitObject_ShaderTableIndex,
        i32t,
        "hitObject_StateScalar.i32",
    );
    let row1 = [
        bits(&mut l, is_hit, true),
        bits(&mut l, is_miss, true),
        bits(&mut l, is_nop, true),
        bits(&mut l, index, false),
    ];
    store(&mut l, r.x, 1, row1);
    // Row 2: GetRayFlags, GetRayTMin, GetRayTCurrent, GetHitKind.
    let flags = scalar(
        &mut l,
        DxOp::HitObject_RayFlags,
        i32t,
        "hitObject_StateScalar.i32",
    );
    let tmin = scalar(
        &mut l,
        DxOp::HitObject_RayTMin,
        f,
        "hitObject_StateScalar.f32",
    );
    let tcur = scalar(
        &mut l,
        DxOp::HitObject_RayTCurrent,
        f,
        "hitObject_StateScalar.f32",
    );
    let kind = scalar(
        &mut l,
        DxOp::HitObject_HitKind,
        i32t,
        "hitObject_StateScalar.i32",
    );
    let row2 = [
        bits(&mut l, flags, false),
        tmin,
        tcur,
        bits(&mut l, kind, false),
    ];
    store(&mut l, r.x, 2, row2);
    // Row 3: GetObjectRayOrigin, GetInstanceID.
    let oo = [0, 1, 2].map(|c| {
        let cv = l.i(c);
        l.mb.dx(
            "hitObject_StateVector.f32",
            DxOp::HitObject_ObjectRayOrigin,
            &[h, cv],
            f,
        )
    });
    let id = scalar(
        &mut l,
        DxOp::HitObject_InstanceID,
        i32t,
        "hitObject_StateScalar.i32",
    );
    let id = bits(&mut l, id, false);
    store(&mut l, r.x, 3, [oo[0], oo[1], oo[2], id]);
    // Row 4: GetWorldToObject3x4() row 2.
    let w2o = [0, 1, 2, 3].map(|c| {
        let (row, col) = (l.i(2), l.i(c));
        l.mb.dx(
            "hitObject_StateMatrix.f32",
            DxOp::HitObject_WorldToObject3x4,
            &[h, row, col],
            f,
        )
    });
    store(&mut l, r.x, 4, w2o);
    // Row 5: GetAttributes (barycentrics), GetInstanceIndex, GetWorldRayOrigin().x.
    let attr_ty =
        l.mb.named("struct.BuiltInTriangleIntersectionAttributes", vec![f, f]);
    let a = l.alloca(attr_ty);
    let void = l.mb.void();
    l.mb.dx(
        "hitObject_Attributes.struct.BuiltInTriangleIntersectionAttributes",
        DxOp::HitObject_Attributes,
        &[h, a],
        void,
    );
    let (u, v) = (l.load_field(attr_ty, a, 0), l.load_field(attr_ty, a, 1));
    let ii = scalar(
        &mut l,
        DxOp::HitObject_InstanceIndex,
        i32t,
        "hitObject_StateScalar.i32",
    );
    let ii = bits(&mut l, ii, false);
    let c0 = l.i(0);
    let wo = l.mb.dx(
        "hitObject_StateVector.f32",
        DxOp::HitObject_WorldRayOrigin,
        &[h, c0],
        f,
    );
    store(&mut l, r.x, 5, [u, v, ii, wo]);
    l.finish_as("rg_get", RAYGEN, None, SM_MINOR)
}

/// `RayQuery<RAY_FLAG_FORCE_OMM_2_STATE, RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS>`
/// (`AllocateRayQuery2(0x400, 1)`) traces the lane's ray; one `Proceed()` commits the
/// opaque triangle. `HitObject::FromRayQuery` has no shader table index, so `Invoke`
/// runs nothing (row 0 keeps (5, 6, 7, 8)); after `SetShaderTableIndex(1)` it runs `ch_b`
/// for lane 0 with the query's hit (row 1: (20, 5, 0.25, 3)), while lane 1's query
/// committed nothing: a NOP, which runs nothing (row 1 keeps (5, 6, 7, 8)).
fn rg_query() -> Vec<u8> {
    let mut l = L::new();
    l.mb.block();
    let r = lane_ray(&mut l);
    let i32t = l.i32t;
    let (rf, qf) = (l.i(0x400), l.i(1));
    let q = l.mb.dx(
        "allocateRayQuery2",
        DxOp::AllocateRayQuery2,
        &[rf, qf],
        i32t,
    );
    let scene = l.handle(Res::Scene);
    let (fl, mask) = (l.i(0), l.i(0xff));
    let void = l.mb.void();
    l.mb.dx(
        "rayQuery_TraceRayInline",
        DxOp::RayQuery_TraceRayInline,
        &[
            q,
            scene,
            fl,
            mask,
            r.origin[0],
            r.origin[1],
            r.origin[2],
            r.t_min,
            r.dir[0],
            r.dir[1],
            r.dir[2],
            r.t_max,
        ],
        void,
    );
    let b = l.mb.int(1);
    l.mb.dx("rayQuery_Proceed.i1", DxOp::RayQuery_Proceed, &[q], b);
    let ho = hit_object_ty(&mut l);
    let h = l.mb.dx(
        "hitObject_FromRayQuery",
        DxOp::HitObject_FromRayQuery,
        &[q],
        ho,
    );
    let p0 = payload(&mut l, [5.0, 6.0, 7.0, 8.0]);
    invoke(&mut l, h, p0);
    store_payload(&mut l, r.x, 0, p0);
    let one = l.i(1);
    let h1 = l.mb.dx(
        "hitObject_SetShaderTableIndex",
        DxOp::HitObject_SetShaderTableIndex,
        &[h, one],
        ho,
    );
    let p1 = payload(&mut l, [5.0, 6.0, 7.0, 8.0]);
    invoke(&mut l, h1, p1);
    store_payload(&mut l, r.x, 1, p1);
    l.finish_as("rg_query", RAYGEN, None, SM_MINOR)
}

/// `HitObject::LoadLocalRootTableConstant(h, offset)`.
fn load_local(l: &mut L, h: ValueId, offset: i64) -> ValueId {
    let i32t = l.i32t;
    let o = l.i(offset);
    l.mb.dx(
        "hitObject_LoadLocalRootTableConstant",
        DxOp::HitObject_LoadLocalRootTableConstant,
        &[h, o],
        i32t,
    )
}

/// `HitObject::TraceRay` (flags 0), then `LoadLocalRootTableConstant` of the record the
/// object names at bytes 0 and 4, of a NOP hit object at byte 8, and
/// `GetShaderTableIndex()` (row 0); after `SetShaderTableIndex(0)`, bytes 0 and 4 again
/// (row 1, then zeros).
fn rg_local() -> Vec<u8> {
    let mut l = L::new();
    l.mb.block();
    let r = lane_ray(&mut l);
    let p = payload(&mut l, [0.0; 4]);
    let h = ho_trace(&mut l, &r, 0, p);
    let (c0, c1) = (load_local(&mut l, h, 0), load_local(&mut l, h, 4));
    let ho = hit_object_ty(&mut l);
    let nop =
        l.mb.dx("hitObject_MakeNop", DxOp::HitObject_MakeNop, &[], ho);
    let c2 = load_local(&mut l, nop, 8);
    let i32t = l.i32t;
    let index = l.mb.dx(
        "hitObject_StateScalar.i32",
        DxOp::HitObject_ShaderTableIndex,
        &[h],
        i32t,
    );
    let row0 = [c0, c1, c2, index].map(|v| bits(&mut l, v, false));
    store(&mut l, r.x, 0, row0);
    let zero = l.i(0);
    let h0 = l.mb.dx(
        "hitObject_SetShaderTableIndex",
        DxOp::HitObject_SetShaderTableIndex,
        &[h, zero],
        ho,
    );
    let (d0, d1) = (load_local(&mut l, h0, 0), load_local(&mut l, h0, 4));
    let (d0, d1) = (bits(&mut l, d0, false), bits(&mut l, d1, false));
    let z = l.f(0.0);
    store(&mut l, r.x, 1, [d0, d1, z, z]);
    l.finish_as("rg_local", RAYGEN, None, SM_MINOR)
}

/// `LoadLocalRootTableConstant(HitObject::TraceRay(…), offset)` into row 0.
fn rg_local_at(name: &str, offset: i64) -> Vec<u8> {
    let mut l = L::new();
    l.mb.block();
    let r = lane_ray(&mut l);
    let p = payload(&mut l, [0.0; 4]);
    let h = ho_trace(&mut l, &r, 0, p);
    let c = load_local(&mut l, h, offset);
    let c = bits(&mut l, c, false);
    let z = l.f(0.0);
    store(&mut l, r.x, 0, [c, z, z, z]);
    l.finish_as(name, RAYGEN, None, SM_MINOR)
}

/// A closest-hit program for procedural hits with two floats of attributes `(a, b)`:
/// payload (`HitKind()`, `RayTCurrent()`, a, b).
fn ch_proc() -> Vec<u8> {
    let mut l = L::new();
    let p = l.payload_param();
    let f = l.f32t;
    let attr_ty = l.mb.named("struct.Attributes", vec![f, f]);
    let ap = l.ptr(attr_ty);
    let a = l.mb.param(ap);
    l.mb.block();
    let i32t = l.i32t;
    let kind = l.mb.dx("hitKind.i32", DxOp::HitKind, &[], i32t);
    let kind = l.mb.cast(CastOp::UiToFp, kind, f);
    let t = l.mb.dx("rayTCurrent.f32", DxOp::RayTCurrent, &[], f);
    let (x, y) = (l.load_field(attr_ty, a, 0), l.load_field(attr_ty, a, 1));
    let ty = l.payload;
    l.store_fields(ty, p, &[kind, t, x, y]);
    l.finish_as("ch_proc", CLOSEST_HIT, Some((16, 8)), SM_MINOR)
}

/// A ray query (`RayQuery<RAY_FLAG_NONE>`) of the lane's ray over the procedural scene:
/// one `Proceed()` meets the box's AABB as a procedural candidate, which
/// `CommitProceduralPrimitiveHit(1.5)` commits; `HitObject::FromRayQuery(q, 7, attrs)`
/// with attributes (0.5 + x, 0.75) and `SetShaderTableIndex(2)` then `Invoke` runs
/// `ch_proc` (row 0); the object's `GetHitKind()`, `IsHit()`, attribute a
/// (`GetAttributes`) and `GetObjectRayOrigin().z` in row 1.
fn rg_proc() -> Vec<u8> {
    let mut l = L::new();
    l.mb.block();
    let r = lane_ray(&mut l);
    let i32t = l.i32t;
    let f = l.f32t;
    let fl = l.i(0);
    let q =
        l.mb.dx("allocateRayQuery", DxOp::AllocateRayQuery, &[fl], i32t);
    let scene = l.handle(Res::Scene);
    let mask = l.i(0xff);
    let void = l.mb.void();
    l.mb.dx(
        "rayQuery_TraceRayInline",
        DxOp::RayQuery_TraceRayInline,
        &[
            q,
            scene,
            fl,
            mask,
            r.origin[0],
            r.origin[1],
            r.origin[2],
            r.t_min,
            r.dir[0],
            r.dir[1],
            r.dir[2],
            r.t_max,
        ],
        void,
    );
    let b = l.mb.int(1);
    l.mb.dx("rayQuery_Proceed.i1", DxOp::RayQuery_Proceed, &[q], b);
    let t = l.f(1.5);
    l.mb.dx(
        "rayQuery_CommitProceduralPrimitiveHit",
        DxOp::RayQuery_CommitProceduralPrimitiveHit,
        &[q, t],
        void,
    );
    let attr_ty = l.mb.named("struct.Attributes", vec![f, f]);
    let attrs = l.alloca(attr_ty);
    let xf = l.mb.cast(CastOp::UiToFp, r.x, f);
    let half = l.f(0.5);
    let a = l.mb.bin(dxlane::dxil::llvm::BinOp::Add, xf, half, f);
    let bv = l.f(0.75);
    l.store_fields(attr_ty, attrs, &[a, bv]);
    let ho = hit_object_ty(&mut l);
    let kind = l.i(7);
    let h = l.mb.dx(
        "hitObject_FromRayQueryWithAttrs.struct.Attributes",
        DxOp::HitObject_FromRayQueryWithAttrs,
        &[q, kind, attrs],
        ho,
    );
    let two = l.i(2);
    let h2 = l.mb.dx(
        "hitObject_SetShaderTableIndex",
        DxOp::HitObject_SetShaderTableIndex,
        &[h, two],
        ho,
    );
    let p = payload(&mut l, [0.0; 4]);
    invoke(&mut l, h2, p);
    store_payload(&mut l, r.x, 0, p);
    let hk = l.mb.dx(
        "hitObject_StateScalar.i32",
        DxOp::HitObject_HitKind,
        &[h2],
        i32t,
    );
    let is_hit =
        l.mb.dx("hitObject_StateScalar.i1", DxOp::HitObject_IsHit, &[h2], b);
    let back = l.alloca(attr_ty);
    l.mb.dx(
        "hitObject_Attributes.struct.Attributes",
        DxOp::HitObject_Attributes,
        &[h2, back],
        void,
    );
    let ga = l.load_field(attr_ty, back, 0);
    let c2 = l.i(2);
    let oz = l.mb.dx(
        "hitObject_StateVector.f32",
        DxOp::HitObject_ObjectRayOrigin,
        &[h2, c2],
        f,
    );
    let (hk, is_hit) = (bits(&mut l, hk, false), bits(&mut l, is_hit, true));
    store(&mut l, r.x, 1, [hk, is_hit, ga, oz]);
    l.finish_as("rg_proc", RAYGEN, None, SM_MINOR)
}

/// The libraries, written to the scratch folder once per test: (export, path).
fn libraries(tag: &str) -> Vec<(String, PathBuf)> {
    let dir = common::scratch().join("ser").join(tag);
    std::fs::create_dir_all(&dir).unwrap();
    let libs: Vec<(&str, Vec<u8>)> = vec![
        ("ch_a", closest_hit("ch_a", 10.0)),
        ("ch_b", closest_hit("ch_b", 20.0)),
        ("miss_a", miss("miss_a", 30.0)),
        ("miss_b", miss("miss_b", 40.0)),
        ("rg_trace", rg_trace()),
        ("rg_ser", rg_ser()),
        ("rg_miss", rg_miss()),
        ("rg_nop", rg_nop()),
        ("rg_get", rg_get()),
        ("rg_query", rg_query()),
        ("rg_local", rg_local()),
        ("rg_local_2", rg_local_at("rg_local_2", 2)),
        ("rg_local_8", rg_local_at("rg_local_8", 8)),
        ("ch_proc", ch_proc()),
        ("rg_proc", rg_proc()),
    ];
    libs.into_iter()
        .map(|(n, bytes)| {
            let path = dir.join(format!("{n}.lib.dxil"));
            std::fs::write(&path, bytes).unwrap();
            (n.to_string(), path)
        })
        .collect()
}

/// What a job changes from the scene and tables of the module doc.
#[derive(Default, Clone, Copy)]
struct Setup<'a> {
    /// The instance's `flags` list.
    instance_flags: &'a str,
    /// Replaces the `miss` and `hit_groups` lines.
    tables: Option<&'a str>,
    /// Replaces the acceleration structures.
    scene: Option<&'a str>,
    /// Names the job file apart from the default one.
    tag: &'a str,
}

/// The default scene's structures (the module doc).
const TRIANGLE_SCENE: &str = "[[acceleration_structure]]\nname = \"tri\"\nlevel = \"bottom\"\n\
[[acceleration_structure.geometry]]\ntype = \"triangles\"\nopaque = true\n\
vertices = { f32 = [0, 0, 0, 1, 0, 0, 0, 1, 0] }\n\
[[acceleration_structure]]\nname = \"scene\"\nlevel = \"top\"\n\
[[acceleration_structure.instance]]\nblas = \"tri\"\ntransform = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 5]\nid = 3\ncontribution = 1\n";

/// Runs the `[rays]` job with ray generation export `raygen` under `engine`; the
/// output texture (2 × 6 texels of four 32-bit words), as bits.
fn run(
    libs: &[(String, PathBuf)],
    raygen: &str,
    engine: Engine,
    setup: Setup<'_>,
) -> Result<Vec<[u32; 4]>, String> {
    let instance_flags = setup.instance_flags;
    let path_of = |n: &str| {
        libs.iter()
            .find(|(e, _)| e == n)
            .map(|(_, p)| p.display().to_string())
            .unwrap()
    };
    let tables = setup.tables.unwrap_or(
        "miss = [\"miss_a\", \"miss_b\"]\n\
hit_groups = [{ name = \"g0\", closest_hit = \"ch_a\" }, { name = \"g1\", closest_hit = \"ch_b\" }]",
    );
    let scene = match setup.scene {
        Some(s) => s.to_string(),
        None => format!("{TRIANGLE_SCENE}flags = [{instance_flags}]\n"),
    };
    let text = format!(
        "[program]\nlibraries = [\"{}\", \"{}\", \"{}\", \"{}\", \"{}\", \"{}\"]\n\
[rays]\ndispatch = [2, 1, 1]\nraygen = \"{raygen}\"\n{tables}\n\
max_recursion_depth = 1\nmax_payload_size = 16\nmax_attribute_size = 8\n\
{scene}\
[[resource]]\nreg = \"t0\"\nkind = \"acceleration_structure\"\nacceleration_structure = \"scene\"\n\
[[resource]]\nreg = \"u0\"\nkind = \"texture2d\"\nformat = \"R32G32B32A32_FLOAT\"\nwidth = 2\nheight = 6\n",
        path_of(raygen),
        path_of("ch_a"),
        path_of("ch_b"),
        path_of("miss_a"),
        path_of("miss_b"),
        path_of("ch_proc"),
    );
    let dir = common::scratch().join("ser").join("jobs");
    std::fs::create_dir_all(&dir).unwrap();
    let tag = if instance_flags.is_empty() {
        setup.tag
    } else {
        ".omm"
    };
    let path = dir.join(format!("{raygen}{tag}.{engine}.toml"));
    std::fs::write(&path, text).unwrap();
    let opts = dxlane::job::RunOptions {
        engine: Some(engine),
        ..common::run_options()
    };
    let finished = dxlane::job::Job::load(&path)
        .and_then(|j| dxlane::job::prepare(j, &opts))
        .and_then(|p| p.execute(&opts))
        .map_err(|e| e.to_string())?;
    let dxlane::job::Finished::Rays(r) = finished else {
        panic!("{raygen}: not a ray dispatch");
    };
    let bytes = r
        .bound
        .resources
        .iter()
        .find(|e| e.name.contains("(u0)"))
        .and_then(|e| e.memory())
        .map(|m| m.to_bytes())
        .expect("the output texture");
    Ok(bytes
        .chunks_exact(16)
        .map(|c| {
            let w = |k: usize| u32::from_le_bytes(c[4 * k..4 * k + 4].try_into().unwrap());
            [w(0), w(1), w(2), w(3)]
        })
        .collect())
}

/// Texel (x, row) of a 2-wide output.
fn at(t: &[[u32; 4]], x: usize, row: usize) -> [u32; 4] {
    t[row * 2 + x]
}

fn f(v: [f32; 4]) -> [u32; 4] {
    v.map(f32::to_bits)
}

/// Runs `raygen` under both engines, which must agree word for word.
fn run_both(libs: &[(String, PathBuf)], raygen: &str) -> Vec<[u32; 4]> {
    run_both_with(libs, raygen, "")
}

/// [`run_both`] with the instance's `flags` list.
fn run_both_with(libs: &[(String, PathBuf)], raygen: &str, flags: &str) -> Vec<[u32; 4]> {
    run_both_setup(
        libs,
        raygen,
        Setup {
            instance_flags: flags,
            ..Setup::default()
        },
    )
}

/// [`run_both`] with `setup`.
fn run_both_setup(libs: &[(String, PathBuf)], raygen: &str, setup: Setup<'_>) -> Vec<[u32; 4]> {
    let interp =
        run(libs, raygen, Engine::Interp, setup).unwrap_or_else(|e| panic!("{raygen}: {e}"));
    let jit = run(libs, raygen, Engine::Jit, setup).unwrap_or_else(|e| panic!("{raygen}: {e}"));
    assert_eq!(interp, jit, "{raygen}: the engines differ");
    jit
}

/// Tables whose records carry two root constants each (a job-declared local root
/// signature `[{ constants = 2, reg = "b3" }]`, which no program reads): miss record 0
/// (51, 52), miss record 1 none, hit group 0 (1, 2), hit group 1 (17, 34).
const LOCAL_TABLES: &str = "miss = [{ export = \"miss_a\", local_root_signature = [{ constants = 2, reg = \"b3\" }], local = [{ constants = [51, 52] }] }, \"miss_b\"]\n\
hit_groups = [{ name = \"g0\", closest_hit = \"ch_a\", local_root_signature = [{ constants = 2, reg = \"b3\" }], local = [{ constants = [1, 2] }] }, \
{ name = \"g1\", closest_hit = \"ch_b\", local_root_signature = [{ constants = 2, reg = \"b3\" }], local = [{ constants = [17, 34] }] }]";

/// `HitObject::LoadLocalRootTableConstant` reads the 32-bit word at its byte offset
/// from the start of the local root arguments, after the shader identifier, of the
/// record the hit object names: lane 0's hit names hit group record 1 (17, 34), lane
/// 1's miss miss record 0 (51, 52); a NOP reads 0 at any offset; after
/// `SetShaderTableIndex(0)` the hit reads hit group 0's (1, 2) and the miss still miss
/// record 0's (HLSL proposal 0027, "HitObject::LoadLocalRootTableConstant",
/// "HitObject::SetShaderTableIndex").
#[test]
fn load_local_root_table_constant_reads_the_named_record() {
    let libs = libraries("local");
    let setup = Setup {
        tables: Some(LOCAL_TABLES),
        tag: ".local",
        ..Setup::default()
    };
    let t = run_both_setup(&libs, "rg_local", setup);
    assert_eq!(at(&t, 0, 0), [17, 34, 0, 1]);
    assert_eq!(at(&t, 1, 0), [51, 52, 0, 0]);
    assert_eq!(at(&t, 0, 1), [1, 2, 0, 0]);
    assert_eq!(at(&t, 1, 1), [51, 52, 0, 0]);
}

/// An offset that is not a multiple of 4 ("`RootConstantOffsetInBytes` must be a
/// multiple of 4") and one past the record's 8 bytes of arguments (D3D would read
/// whatever the table holds there) are errors naming the ray, the offset and the record.
#[test]
fn load_local_root_table_constant_refuses_bad_offsets_by_name() {
    let libs = libraries("local_bad");
    let setup = Setup {
        tables: Some(LOCAL_TABLES),
        tag: ".local",
        ..Setup::default()
    };
    let e = run(&libs, "rg_local_2", Engine::Interp, setup).unwrap_err();
    assert!(
        e.contains("ray (0, 0, 0)")
            && e.contains("LoadLocalRootTableConstant(2)")
            && e.contains("not a multiple of 4"),
        "{e}"
    );
    let e = run(&libs, "rg_local_8", Engine::Interp, setup).unwrap_err();
    assert!(
        e.contains("ray (0, 0, 0)")
            && e.contains("hit-group record 1")
            && e.contains("bytes 8..12 pass the record's 8 bytes"),
        "{e}"
    );
}

/// `HitObject::FromRayQueryWithAttrs` of a committed procedural hit: the box
/// (-1, -1, -1)–(3, 3, 1) under an instance moved to z = 2 meets both lanes' rays, the
/// query commits it at t = 1.5, and the hit object carries hit kind 7 and the
/// attributes (0.5 + x, 0.75) given to it; `SetShaderTableIndex(2)` and `Invoke` run
/// hit group 2's `ch_proc`, which reads them and `RayTCurrent()` 1.5 (row 0: 7, 1.5,
/// 0.5 + x, 0.75); the accessors read them too, and the object-space origin's z is
/// 0 - 2 = -2 (row 1) (HLSL proposal 0027, "HitObject::FromRayQuery": "An overload
/// takes a user-defined hit kind and custom attributes associated with
/// COMMITTED_PROCEDURAL_PRIMITIVE_HIT").
#[test]
fn from_ray_query_with_attrs_invokes_a_procedural_hit() {
    let libs = libraries("proc");
    let scene = "[[acceleration_structure]]\nname = \"box\"\nlevel = \"bottom\"\n\
[[acceleration_structure.geometry]]\ntype = \"aabbs\"\naabbs = { f32 = [-1, -1, -1, 3, 3, 1] }\n\
[[acceleration_structure]]\nname = \"scene\"\nlevel = \"top\"\n\
[[acceleration_structure.instance]]\nblas = \"box\"\ntransform = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 2]\n";
    let tables = "miss = [\"miss_a\"]\n\
hit_groups = [{ name = \"g0\", closest_hit = \"ch_a\" }, { name = \"g1\", closest_hit = \"ch_b\" }, { name = \"g2\", closest_hit = \"ch_proc\" }]";
    let setup = Setup {
        tables: Some(tables),
        scene: Some(scene),
        tag: ".proc",
        ..Setup::default()
    };
    let t = run_both_setup(&libs, "rg_proc", setup);
    for x in 0..2 {
        let a = 0.5 + x as f32;
        assert_eq!(at(&t, x, 0), f([7.0, 1.5, a, 0.75]), "lane {x}");
        assert_eq!(
            at(&t, x, 1),
            [7, 1, a.to_bits(), (-2f32).to_bits()],
            "lane {x}"
        );
    }
}

/// `HitObject::TraceRay` then `HitObject::Invoke` is `TraceRay` (proposal 0027,
/// "Detailed Design": "functionally equivalent"), with `MaybeReorderThread` between them
/// changing nothing (dxlane keeps lane order: "the minimal allowed implementation is
/// simply a no-op"): lane 0 runs `ch_b` (hit group 1), lane 1 `miss_a`.
#[test]
fn trace_then_invoke_is_trace_ray() {
    let libs = libraries("trace");
    let want = [f([20.0, 5.0, 0.25, 3.0]), f([30.0, 100.0, 0.0, 0.0])];
    for rg in ["rg_trace", "rg_ser"] {
        let t = run_both(&libs, rg);
        assert_eq!([at(&t, 0, 0), at(&t, 1, 0)], want, "{rg}");
    }
}

/// `HitObject::MakeMiss(flags, 1, ray)` invokes miss record 1 for a ray that would hit
/// ("HitObject::MakeMiss": the object may differ from what tracing would give), with
/// `RayTCurrent()` its `TMax`; a NOP hit object invokes nothing and reads identity
/// matrices and zeros ("HitObject::MakeNop", "HitObject::Invoke",
/// "HitObject::GetObjectToWorld3x4").
#[test]
fn make_miss_and_nop_invoke_as_the_spec_says() {
    let libs = libraries("make");
    let t = run_both(&libs, "rg_miss");
    for x in 0..2 {
        assert_eq!(at(&t, x, 0), f([40.0, 100.0, 0.0, 0.0]), "rg_miss lane {x}");
    }
    let t = run_both(&libs, "rg_nop");
    for x in 0..2 {
        assert_eq!(at(&t, x, 0), f([5.0, 6.0, 7.0, 8.0]), "rg_nop lane {x}");
        assert_eq!(at(&t, x, 1), [1, 0, 1f32.to_bits(), 0], "rg_nop lane {x}");
    }
}

/// Every accessor reads what the trace found (proposal 0027, the `HitObject::Get*`
/// sections): lane 0's hit and lane 1's miss, traced with `RAY_FLAG_FORCE_OPAQUE`; and
/// `SetShaderTableIndex(0)` makes `Invoke` run hit group 0's `ch_a` (the miss, index 0,
/// still runs `miss_a`).
#[test]
fn accessors_read_what_the_trace_found() {
    let libs = libraries("get");
    let t = run_both(&libs, "rg_get");
    // Row 0: SetShaderTableIndex(0) then Invoke.
    assert_eq!(at(&t, 0, 0), f([10.0, 5.0, 0.25, 3.0]));
    assert_eq!(at(&t, 1, 0), f([30.0, 100.0, 0.0, 0.0]));
    // Row 1: IsHit, IsMiss, IsNop, GetShaderTableIndex (hit group 1; miss record 0).
    assert_eq!(at(&t, 0, 1), [1, 0, 0, 1]);
    assert_eq!(at(&t, 1, 1), [0, 1, 0, 0]);
    // Row 2: ray flags 1, TMin 0, TCurrent (t = 5; a miss: TMax), hit kind 255 (back
    // face; 0 for a miss).
    assert_eq!(at(&t, 0, 2), [1, 0, 5f32.to_bits(), 255]);
    assert_eq!(at(&t, 1, 2), [1, 0, 100f32.to_bits(), 0]);
    // Row 3: object-space origin (the instance moves the triangle to z = 5, so the origin
    // moves to z = -5; a miss: the world origin), InstanceID 3 (0 for a miss).
    assert_eq!(
        at(&t, 0, 3),
        [0.25f32.to_bits(), 0.25f32.to_bits(), (-5f32).to_bits(), 3]
    );
    assert_eq!(at(&t, 1, 3), [2f32.to_bits(), 2f32.to_bits(), 0, 0]);
    // Row 4: WorldToObject's row 2: (0, 0, 1, -5); a miss: the identity's (0, 0, 1, 0).
    assert_eq!(at(&t, 0, 4), f([0.0, 0.0, 1.0, -5.0]));
    assert_eq!(at(&t, 1, 4), f([0.0, 0.0, 1.0, 0.0]));
    // Row 5: attributes (barycentrics; zeros for a miss), InstanceIndex 0, world origin x.
    assert_eq!(
        at(&t, 0, 5),
        [0.25f32.to_bits(), 0.25f32.to_bits(), 0, 0.25f32.to_bits()]
    );
    assert_eq!(at(&t, 1, 5), [0, 0, 0, 2f32.to_bits()]);
}

/// `HitObject::FromRayQuery` of a query allocated by `AllocateRayQuery2` (SM 6.9's
/// `RayQuery<RayFlags, RayQueryFlags>`): no shader table index, so `Invoke` runs
/// nothing until `SetShaderTableIndex` gives one; a query with nothing committed makes a
/// NOP ("HitObject::FromRayQuery").
#[test]
fn from_ray_query_invokes_after_set_shader_table_index() {
    let libs = libraries("query");
    let t = run_both(&libs, "rg_query");
    for x in 0..2 {
        assert_eq!(at(&t, x, 0), f([5.0, 6.0, 7.0, 8.0]), "lane {x}");
    }
    assert_eq!(at(&t, 0, 1), f([20.0, 5.0, 0.25, 3.0]));
    assert_eq!(at(&t, 1, 1), f([5.0, 6.0, 7.0, 8.0]));
}

/// The lowering refuses SER where SM 6.9 does not allow it, naming the operation and
/// the stage: `MaybeReorderThread` outside ray generation, a hit object in an any-hit
/// program (proposal 0027, "Valid Shader Stages", "MaybeReorderThread HLSL
/// Additions"); and `AllocateRayQuery2` forcing OMM 2-state without allowing opacity
/// micromaps (DXC's validator: RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS must be set when
/// RAY_FLAG_FORCE_OMM_2_STATE is).
#[test]
fn ser_is_refused_outside_its_stages() {
    let load = |bytes: Vec<u8>| {
        dxlane::lower::load(&bytes, &dxlane::lower::LoadOptions::default())
            .err()
            .map(|e| e.to_string())
            .expect("refused")
    };
    // A closest-hit program that calls MaybeReorderThread.
    let mut l = L::new();
    let _ = l.payload_param();
    let f = l.f32t;
    let attr_ty = l.mb.named("struct.Attributes", vec![f, f]);
    let ap = l.ptr(attr_ty);
    let _ = l.mb.param(ap);
    l.mb.block();
    let ho = hit_object_ty(&mut l);
    let h =
        l.mb.dx("hitObject_MakeNop", DxOp::HitObject_MakeNop, &[], ho);
    reorder(&mut l, h, None, 0);
    let e = load(l.finish_as("ch_reorder", CLOSEST_HIT, Some((16, 8)), SM_MINOR));
    assert!(
        e.contains("MaybeReorderThread") && e.contains("closest-hit"),
        "{e}"
    );
    // An any-hit program that makes a hit object (and writes `IsNop()` to its payload,
    // so the call is not dead code).
    let mut l = L::new();
    let p = l.payload_param();
    let attr_ty = l.mb.named("struct.Attributes", vec![f, f]);
    let ap = l.ptr(attr_ty);
    let _ = l.mb.param(ap);
    l.mb.block();
    let ho = hit_object_ty(&mut l);
    let h =
        l.mb.dx("hitObject_MakeNop", DxOp::HitObject_MakeNop, &[], ho);
    let b = l.mb.int(1);
    let nop =
        l.mb.dx("hitObject_StateScalar.i1", DxOp::HitObject_IsNop, &[h], b);
    let (one, zero) = (l.f(1.0), l.f(0.0));
    let v = l.mb.select(nop, one, zero);
    let ty = l.payload;
    let field = l.field(ty, p, 0);
    l.mb.store(field, v);
    let e = load(l.finish_as("ah_nop", ANY_HIT, Some((16, 8)), SM_MINOR));
    assert!(
        e.contains("HitObject_MakeNop") && e.contains("any-hit"),
        "{e}"
    );
    // AllocateRayQuery2(RAY_FLAG_FORCE_OMM_2_STATE, 0).
    let mut l = L::new();
    l.mb.block();
    let i32t = l.i32t;
    let (rf, qf) = (l.i(0x400), l.i(0));
    l.mb.dx(
        "allocateRayQuery2",
        DxOp::AllocateRayQuery2,
        &[rf, qf],
        i32t,
    );
    let e = load(l.finish_as("rg_omm", RAYGEN, None, SM_MINOR));
    assert!(
        e.contains("AllocateRayQuery2") && e.contains("RAYQUERY_FLAG_ALLOW_OPACITY_MICROMAPS"),
        "{e}"
    );
}

/// Opacity micromap flags change nothing in a scene without opacity micromaps (DXR spec
/// "Opacity micromaps": OMMs act only on geometry that links one; no job geometry
/// does): the instance flags `FORCE_OMM_2_STATE` and `DISABLE_OMMS` leave `TraceRay`'s
/// and the hit objects' results as they were.
#[test]
fn omm_flags_change_nothing_without_micromaps() {
    let libs = libraries("omm");
    let flags = "\"force_omm_2_state\", \"disable_omms\"";
    for rg in ["rg_trace", "rg_get", "rg_query"] {
        assert_eq!(run_both_with(&libs, rg, flags), run_both(&libs, rg), "{rg}");
    }
}
