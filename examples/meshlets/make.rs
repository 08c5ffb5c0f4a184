//! The meshlet example's data and programs: a torus split into meshlets, the scene's
//! constants, and four DXIL programs built with `dxlane::dxil::llvm::build::Mb` (no
//! compiler is needed): an amplification program that culls meshlets by the view
//! frustum, a mesh program that emits the visible meshlets, a lit pixel program, and a
//! vertex program that computes what the mesh program computes, operation for
//! operation, so the two paths draw the same image.
//!
//! Shared by `examples/make_meshlets.rs` (which writes the files) and the tests (which
//! check that the committed files are what this makes, and count the culled meshlets
//! with [`visible_meshlets`]).

use dxlane::container::write::{dxil_part, write_container};
use dxlane::container::{FourCc, ProgramKind, ProgramVersion};
use dxlane::dxil::dxop::DxOp;
use dxlane::dxil::llvm::build::{EntryPoint, Mb};
use dxlane::dxil::llvm::write::write_module;
use dxlane::dxil::llvm::{
    BinOp, BlockId, CastOp, Constant, InstKind, MdId, Metadata, Predicate, Type, TypeId, ValueId,
};
use glam::{Mat3, Mat4, Vec3};

/// Torus segments around the ring and around the tube; quads are grouped in blocks of
/// `BLOCK_U` × `BLOCK_V` (50 vertices, 72 triangles) so each block fills one meshlet.
const RING: u32 = 72;
const TUBE: u32 = 36;
const BLOCK_U: u32 = 4;
const BLOCK_V: u32 = 9;

/// The meshlet limits the programs declare (and the builder keeps to).
pub const MAX_VERTICES: usize = 64;
pub const MAX_PRIMITIVES: usize = 126;
/// Amplification threads per group: one meshlet each.
pub const AS_THREADS: u32 = 32;
/// Mesh threads per group: enough for every vertex and every primitive of a meshlet.
pub const MS_THREADS: u32 = 128;
/// Bytes of a `meshlets.bin` record: centre, radius, vertex offset and count, primitive
/// offset and count.
pub const MESHLET_BYTES: u32 = 32;
/// Bytes of a vertex: position, normal, and its meshlet's colour.
pub const VERTEX_BYTES: u32 = 36;
/// The payload: one meshlet index per amplification thread.
pub const PAYLOAD_BYTES: u32 = 4 * AS_THREADS;

/// One meshlet: its bounding sphere and where its vertices and triangles are.
#[derive(Debug, Clone, Copy)]
pub struct Meshlet {
    pub center: Vec3,
    pub radius: f32,
    pub vertex_offset: u32,
    pub vertex_count: u32,
    pub prim_offset: u32,
    pub prim_count: u32,
}

/// The model as the programs read it: vertices in meshlet order (each meshlet's own
/// copy, carrying the meshlet's colour), triangles as meshlet-local indices.
pub struct Model {
    pub positions: Vec<Vec3>,
    pub normals: Vec<Vec3>,
    pub colours: Vec<Vec3>,
    pub meshlets: Vec<Meshlet>,
    pub triangles: Vec<[u8; 3]>,
}

/// The scene's constant buffer (`b0`), one 16-byte row each: the clip matrix (rows
/// 0–3), the normal matrix (4–6), the light direction and ambient term (7), the six
/// frustum planes (8–13), the albedo and diffuse weight (14), the meshlet count (15).
pub struct Scene {
    pub clip: Mat4,
    pub normal: Mat3,
    pub light: Vec3,
    pub ambient: f32,
    pub planes: [[f32; 4]; 6],
    pub albedo: Vec3,
    pub meshlet_count: u32,
}

/// A torus of `RING` × `TUBE` quads (two triangles each), in blocks.
fn torus() -> (Vec<Vec3>, Vec<Vec3>, Vec<[u32; 3]>) {
    let (big, small) = (1.0f32, 0.42f32);
    let mut pos = Vec::new();
    let mut nrm = Vec::new();
    for u in 0..RING {
        let t = std::f32::consts::TAU * u as f32 / RING as f32;
        for v in 0..TUBE {
            let p = std::f32::consts::TAU * v as f32 / TUBE as f32;
            let n = Vec3::new(p.cos() * t.cos(), p.sin(), p.cos() * t.sin());
            pos.push(Vec3::new(
                (big + small * p.cos()) * t.cos(),
                small * p.sin(),
                (big + small * p.cos()) * t.sin(),
            ));
            nrm.push(n);
        }
    }
    let at = |u: u32, v: u32| (u % RING) * TUBE + (v % TUBE);
    let mut tris = Vec::new();
    for bu in (0..RING).step_by(BLOCK_U as usize) {
        for bv in (0..TUBE).step_by(BLOCK_V as usize) {
            for u in bu..bu + BLOCK_U {
                for v in bv..bv + BLOCK_V {
                    let (a, b, c, d) = (at(u, v), at(u + 1, v), at(u, v + 1), at(u + 1, v + 1));
                    tris.push([a, c, b]);
                    tris.push([b, c, d]);
                }
            }
        }
    }
    (pos, nrm, tris)
}

/// Splits `tris` greedily, in order, into meshlets of at most [`MAX_VERTICES`] vertices
/// and [`MAX_PRIMITIVES`] triangles; each meshlet's bounding sphere is centred on the
/// mean of its vertices.
pub fn model() -> Model {
    let (pos, nrm, tris) = torus();
    let mut m = Model {
        positions: Vec::new(),
        normals: Vec::new(),
        colours: Vec::new(),
        meshlets: Vec::new(),
        triangles: Vec::new(),
    };
    let mut local: Vec<u32> = Vec::new();
    let mut prims: Vec<[u8; 3]> = Vec::new();
    let flush = |m: &mut Model, local: &mut Vec<u32>, prims: &mut Vec<[u8; 3]>| {
        if prims.is_empty() {
            return;
        }
        let pts: Vec<Vec3> = local.iter().map(|&i| pos[i as usize]).collect();
        let center = pts.iter().copied().sum::<Vec3>() / pts.len() as f32;
        let radius = pts
            .iter()
            .map(|p| p.distance(center))
            .fold(0.0f32, f32::max);
        m.meshlets.push(Meshlet {
            center,
            radius,
            vertex_offset: m.positions.len() as u32,
            vertex_count: local.len() as u32,
            prim_offset: m.triangles.len() as u32,
            prim_count: prims.len() as u32,
        });
        m.positions.extend(pts);
        m.normals.extend(local.iter().map(|&i| nrm[i as usize]));
        let colour = meshlet_colour(m.meshlets.len() - 1);
        m.colours.extend(local.iter().map(|_| colour));
        m.triangles.append(prims);
        local.clear();
    };
    for t in &tris {
        let new = t.iter().filter(|i| !local.contains(i)).count();
        if local.len() + new > MAX_VERTICES || prims.len() + 1 > MAX_PRIMITIVES {
            flush(&mut m, &mut local, &mut prims);
        }
        let mut p = [0u8; 3];
        for (k, i) in t.iter().enumerate() {
            let at = match local.iter().position(|x| x == i) {
                Some(at) => at,
                None => {
                    local.push(*i);
                    local.len() - 1
                }
            };
            p[k] = at as u8;
        }
        prims.push(p);
    }
    flush(&mut m, &mut local, &mut prims);
    m
}

/// A pale colour per meshlet, neighbours apart: hues a golden-ratio turn apart.
fn meshlet_colour(i: usize) -> Vec3 {
    let h = (i as f32 * 0.618_034).fract() * 6.0;
    let x = 1.0 - ((h % 2.0) - 1.0).abs();
    let (r, g, b) = match h as u32 {
        0 => (1.0, x, 0.0),
        1 => (x, 1.0, 0.0),
        2 => (0.0, 1.0, x),
        3 => (0.0, x, 1.0),
        4 => (x, 0.0, 1.0),
        _ => (1.0, 0.0, x),
    };
    Vec3::splat(0.55) + Vec3::new(r, g, b) * 0.45
}

/// The view: the torus tilted towards a camera close enough that part of the ring is
/// outside the frustum (left, right and bottom), so the amplification program has
/// meshlets to cull.
pub fn scene(meshlet_count: u32) -> Scene {
    let model = Mat4::from_rotation_x(-0.35) * Mat4::from_rotation_y(0.2);
    let view = Mat4::look_at_lh(Vec3::new(1.0, 1.3, -2.0), Vec3::new(1.0, 0.0, 0.0), Vec3::Y);
    let proj = Mat4::perspective_lh(1.0, 1.0, 0.3, 10.0);
    let clip = proj * view * model;
    // Gribb and Hartmann: with clip = M·p, a point is inside when −w ≤ x ≤ w,
    // −w ≤ y ≤ w and 0 ≤ z ≤ w (D3D's clip volume), i.e. row3 ± row0, row3 ± row1, row2,
    // row3 − row2 are non-negative; scaled to unit normals so they measure distance.
    let r = |i: usize| clip.row(i);
    let planes = [
        r(3) + r(0),
        r(3) - r(0),
        r(3) + r(1),
        r(3) - r(1),
        r(2),
        r(3) - r(2),
    ]
    .map(|p| (p / p.truncate().length()).to_array());
    Scene {
        clip,
        normal: Mat3::from_mat4(model),
        light: Vec3::new(-0.4, 0.7, -0.6).normalize(),
        ambient: 0.18,
        planes,
        albedo: Vec3::new(0.95, 0.62, 0.3),
        meshlet_count,
    }
}

/// Whether a meshlet's sphere is on the inside of every plane, computed as the
/// amplification program computes it: `s = ((a·x + b·y) + c·z) + d + r`, kept when
/// `s >= 0` for all six planes (each operation rounded to f32, in that order).
pub fn meshlet_visible(planes: &[[f32; 4]; 6], m: &Meshlet) -> bool {
    planes.iter().all(|p| {
        let d = p[0] * m.center.x + p[1] * m.center.y + p[2] * m.center.z + p[3];
        d + m.radius >= 0.0
    })
}

/// The meshlets [`meshlet_visible`] keeps, in order.
pub fn visible_meshlets(model: &Model, scene: &Scene) -> Vec<u32> {
    (0..model.meshlets.len() as u32)
        .filter(|&i| meshlet_visible(&scene.planes, &model.meshlets[i as usize]))
        .collect()
}

fn f32s(v: impl IntoIterator<Item = f32>) -> Vec<u8> {
    v.into_iter().flat_map(f32::to_le_bytes).collect()
}

fn u32s(v: impl IntoIterator<Item = u32>) -> Vec<u8> {
    v.into_iter().flat_map(u32::to_le_bytes).collect()
}

/// Every file of the example, by its path under `examples/`, with its bytes.
pub fn files() -> Vec<(String, Vec<u8>)> {
    let m = model();
    let s = scene(m.meshlets.len() as u32);
    let mut out = Vec::new();
    let vertices: Vec<u8> = m
        .positions
        .iter()
        .zip(&m.normals)
        .zip(&m.colours)
        .flat_map(|((p, n), c)| f32s([p.x, p.y, p.z, n.x, n.y, n.z, c.x, c.y, c.z]))
        .collect();
    out.push(("data/meshlet_vertices.bin".into(), vertices));
    let records: Vec<u8> = m
        .meshlets
        .iter()
        .flat_map(|x| {
            let mut r = f32s([x.center.x, x.center.y, x.center.z, x.radius]);
            r.extend(u32s([
                x.vertex_offset,
                x.vertex_count,
                x.prim_offset,
                x.prim_count,
            ]));
            r
        })
        .collect();
    out.push(("data/meshlets.bin".into(), records));
    let packed = m
        .triangles
        .iter()
        .map(|t| u32::from(t[0]) | u32::from(t[1]) << 8 | u32::from(t[2]) << 16);
    out.push(("data/meshlet_triangles.bin".into(), u32s(packed)));
    // The vertex twin's index buffer: the same triangles as indices into the same
    // vertex buffer.
    let indices = m.meshlets.iter().flat_map(|x| {
        let tris = &m.triangles[x.prim_offset as usize..(x.prim_offset + x.prim_count) as usize];
        tris.iter()
            .flat_map(move |t| t.map(|i| x.vertex_offset + u32::from(i)))
    });
    out.push(("data/meshlet_indices.bin".into(), u32s(indices)));
    out.push(("data/meshlet_scene.bin".into(), scene_bytes(&s)));
    for (name, bytes) in programs() {
        out.push((format!("meshlets/{name}"), bytes));
    }
    out
}

/// The constant buffer's bytes (see [`Scene`]).
pub fn scene_bytes(s: &Scene) -> Vec<u8> {
    let mut cb = Vec::new();
    for r in 0..4 {
        cb.extend(f32s(s.clip.row(r).to_array()));
    }
    for r in 0..3 {
        let row = s.normal.row(r);
        cb.extend(f32s([row.x, row.y, row.z, 0.0]));
    }
    cb.extend(f32s([s.light.x, s.light.y, s.light.z, s.ambient]));
    for p in s.planes {
        cb.extend(f32s(p));
    }
    cb.extend(f32s([s.albedo.x, s.albedo.y, s.albedo.z, 1.0 - s.ambient]));
    cb.extend(u32s([s.meshlet_count, 0, 0, 0]));
    cb
}

/// The byte size of the constant buffer.
const CB_BYTES: i64 = 16 * 16;

// ---- programs ----------------------------------------------------------------------------

/// dxc's data layout without 16-bit types.
const LAYOUT: &str =
    "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64";

/// The four programs' containers, by file name.
pub fn programs() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("cull.as.dxil", amplification()),
        ("meshlet.ms.dxil", mesh()),
        ("lit.ps.dxil", pixel()),
        ("twin.vs.dxil", vertex()),
    ]
}

/// A small helper over [`Mb`] for the programs' arithmetic and metadata.
struct P {
    mb: Mb,
    f32t: TypeId,
    i32t: TypeId,
}

/// A signature element: semantic name and kind (DXIL `SemanticKind`), component type
/// (DXIL `ComponentType`: 5 u32, 9 f32), interpolation (DXIL `InterpolationMode`: 0
/// undefined, 2 linear, 4 linear without perspective), columns, start row.
struct Sig {
    name: &'static str,
    kind: i64,
    ty: i64,
    interp: i64,
    cols: i64,
    row: i64,
}

const POSITION_IN: Sig = Sig {
    name: "POSITION",
    kind: 0,
    ty: 9,
    interp: 0,
    cols: 3,
    row: 0,
};
const NORMAL_IN: Sig = Sig {
    name: "NORMAL",
    kind: 0,
    ty: 9,
    interp: 0,
    cols: 3,
    row: 1,
};
const COLOUR_IN: Sig = Sig {
    name: "COLOR",
    kind: 0,
    ty: 9,
    interp: 0,
    cols: 3,
    row: 2,
};
/// The meshlet's colour, `nointerpolation` (DXIL `InterpolationMode` 1, constant).
const COLOUR_OUT: Sig = Sig {
    name: "COLOR",
    kind: 0,
    ty: 9,
    interp: 1,
    cols: 3,
    row: 2,
};
const SV_POSITION: Sig = Sig {
    name: "SV_Position",
    kind: 3,
    ty: 9,
    interp: 4,
    cols: 4,
    row: 0,
};
const NORMAL_OUT: Sig = Sig {
    name: "NORMAL",
    kind: 0,
    ty: 9,
    interp: 2,
    cols: 3,
    row: 1,
};
const SV_TARGET: Sig = Sig {
    name: "SV_Target",
    kind: 16,
    ty: 9,
    interp: 0,
    cols: 4,
    row: 0,
};

/// A resource the programs bind: `t` registers are raw buffers (SRVs), `b0` the scene.
#[derive(Clone, Copy, PartialEq)]
enum Res {
    Srv(i64),
    Cbv,
}

impl P {
    fn new() -> P {
        let mut mb = Mb::new(LAYOUT);
        let f32t = mb.t(Type::Float);
        let i32t = mb.int(32);
        mb.block();
        P { mb, f32t, i32t }
    }

    fn f(&mut self, v: f32) -> ValueId {
        let t = self.f32t;
        self.mb.c(t, Constant::Float(u64::from(v.to_bits())))
    }

    fn i(&mut self, v: i64) -> ValueId {
        self.mb.ci(32, v)
    }

    fn fbin(&mut self, op: BinOp, a: ValueId, b: ValueId) -> ValueId {
        let t = self.f32t;
        self.mb.bin(op, a, b, t)
    }

    fn ibin(&mut self, op: BinOp, a: ValueId, b: ValueId) -> ValueId {
        let t = self.i32t;
        self.mb.bin(op, a, b, t)
    }

    /// `((a0·b0 + a1·b1) + a2·b2) (+ w)`, each product and sum rounded in that order.
    fn dot3(&mut self, a: [ValueId; 3], b: [ValueId; 3], w: Option<ValueId>) -> ValueId {
        let p0 = self.fbin(BinOp::Mul, a[0], b[0]);
        let p1 = self.fbin(BinOp::Mul, a[1], b[1]);
        let s = self.fbin(BinOp::Add, p0, p1);
        let p2 = self.fbin(BinOp::Mul, a[2], b[2]);
        let s = self.fbin(BinOp::Add, s, p2);
        match w {
            Some(w) => self.fbin(BinOp::Add, s, w),
            None => s,
        }
    }

    /// `createHandle` of a resource (its range id is its register).
    fn handle(&mut self, r: Res) -> ValueId {
        match r {
            Res::Srv(t) => self.mb.handle(0, t, t),
            Res::Cbv => self.mb.handle(2, 0, 0),
        }
    }

    /// Row `row` of the constant buffer as four floats (`cbufferLoadLegacy.f32`).
    fn cb_row(&mut self, cb: ValueId, row: i64) -> [ValueId; 4] {
        let f32t = self.f32t;
        let ret = self
            .mb
            .named("dx.types.CBufRet.f32", vec![f32t, f32t, f32t, f32t]);
        let r = self.i(row);
        let v = self.mb.dx(
            "cbufferLoadLegacy.f32",
            DxOp::CBufferLoadLegacy,
            &[cb, r],
            ret,
        );
        [0, 1, 2, 3].map(|k| self.extract(v, k, f32t))
    }

    /// Word 0 of constant-buffer row `row` as an integer.
    fn cb_uint(&mut self, cb: ValueId, row: i64) -> ValueId {
        let i32t = self.i32t;
        let ret = self
            .mb
            .named("dx.types.CBufRet.i32", vec![i32t, i32t, i32t, i32t]);
        let r = self.i(row);
        let v = self.mb.dx(
            "cbufferLoadLegacy.i32",
            DxOp::CBufferLoadLegacy,
            &[cb, r],
            ret,
        );
        self.extract(v, 0, i32t)
    }

    fn extract(&mut self, v: ValueId, k: u32, ty: TypeId) -> ValueId {
        self.mb.push(
            InstKind::ExtractValue {
                aggregate: v,
                indices: vec![k],
            },
            ty,
        )
    }

    /// `rawBufferLoad` of `n` 32-bit words at byte `addr` (`float` or `i32`).
    fn raw_load(&mut self, h: ValueId, addr: ValueId, n: u32, float: bool) -> Vec<ValueId> {
        let t = if float { self.f32t } else { self.i32t };
        let i32t = self.i32t;
        let (name, ov) = if float {
            ("dx.types.ResRet.f32", "rawBufferLoad.f32")
        } else {
            ("dx.types.ResRet.i32", "rawBufferLoad.i32")
        };
        let ret = self.mb.named(name, vec![t, t, t, t, i32t]);
        let u = self.mb.undef(i32t);
        let mask = self.mb.ci(8, (1i64 << n) - 1);
        let align = self.i(4);
        let v = self
            .mb
            .dx(ov, DxOp::RawBufferLoad, &[h, addr, u, mask, align], ret);
        (0..n).map(|k| self.extract(v, k, t)).collect()
    }

    fn icmp(&mut self, pred: u8, a: ValueId, b: ValueId) -> ValueId {
        self.mb.icmp(pred, a, b)
    }

    /// The clip position and the turned normal of a vertex: rows 0–3 and 4–6 of the
    /// constant buffer, each component a [`P::dot3`] (plus the row's fourth column for
    /// the position).
    fn transform(&mut self, cb: ValueId, p: [ValueId; 3], n: [ValueId; 3]) -> [ValueId; 7] {
        let mut out = [ValueId(0); 7];
        for r in 0..4 {
            let m = self.cb_row(cb, r);
            out[r as usize] = self.dot3([m[0], m[1], m[2]], p, Some(m[3]));
        }
        for r in 0..3 {
            let m = self.cb_row(cb, 4 + r);
            out[4 + r as usize] = self.dot3([m[0], m[1], m[2]], n, None);
        }
        out
    }

    /// Finishes the module as the entry point `main` of `kind` `x_6_5` (6.0 for vertex
    /// and pixel programs), with its signatures, resources and properties (`props`:
    /// tag and value node), and wraps it in a container with a `PSV0` part (validator
    /// 1.0's 24-byte runtime info: `stage_words`) and an empty `SFI0`.
    #[allow(clippy::too_many_arguments)]
    fn finish(
        mut self,
        kind: ProgramKind,
        inputs: &[&Sig],
        outputs: &[&Sig],
        res: &[Res],
        props: Vec<(i64, MdId)>,
        stage_words: [u32; 4],
    ) -> Vec<u8> {
        let (profile, minor) = match kind {
            ProgramKind::Vertex => ("vs", 0),
            ProgramKind::Pixel => ("ps", 0),
            ProgramKind::Mesh => ("ms", 5),
            _ => ("as", 5),
        };
        let mb = &mut self.mb;
        let mi = |mb: &mut Mb, bits: u32, v: i64| {
            let c = mb.ci(bits, v);
            let t = mb.int(bits);
            Some(mb.md(Metadata::Value { ty: t, value: c }))
        };
        let string = |mb: &mut Mb, s: &str| Some(mb.md(Metadata::String(s.as_bytes().to_vec())));
        let node = |mb: &mut Mb, ops: Vec<Option<MdId>>| {
            Some(mb.md(Metadata::Node {
                distinct: false,
                ops,
            }))
        };
        let version = [mi(mb, 32, 1), mi(mb, 32, i64::from(minor))];
        let version = node(mb, version.to_vec());
        let sm = [
            string(mb, profile),
            mi(mb, 32, 6),
            mi(mb, 32, i64::from(minor)),
        ];
        let sm = node(mb, sm.to_vec());
        let sig_list = |mb: &mut Mb, sigs: &[&Sig]| {
            if sigs.is_empty() {
                return None;
            }
            let mut list = Vec::new();
            for (id, s) in sigs.iter().enumerate() {
                let zero = mi(mb, 32, 0);
                let indices = node(mb, vec![zero]);
                let ops = vec![
                    mi(mb, 32, id as i64),
                    string(mb, s.name),
                    mi(mb, 8, s.ty),
                    mi(mb, 8, s.kind),
                    indices,
                    mi(mb, 8, s.interp),
                    mi(mb, 32, 1),
                    mi(mb, 8, s.cols),
                    mi(mb, 32, s.row),
                    mi(mb, 8, 0),
                    None,
                ];
                list.push(node(mb, ops));
            }
            node(mb, list)
        };
        let ins = sig_list(mb, inputs);
        let outs = sig_list(mb, outputs);
        let sigs = if ins.is_none() && outs.is_none() {
            None
        } else {
            node(mb, vec![ins, outs, None])
        };
        let mut srvs = Vec::new();
        let mut cbvs = Vec::new();
        for r in res {
            match r {
                Res::Srv(t) => {
                    let ops = vec![
                        mi(mb, 32, *t),
                        None,
                        string(mb, ""),
                        mi(mb, 32, 0),
                        mi(mb, 32, *t),
                        mi(mb, 32, 1),
                        mi(mb, 32, 11),
                        mi(mb, 32, 0),
                        None,
                    ];
                    srvs.push(node(mb, ops));
                }
                Res::Cbv => {
                    let ops = vec![
                        mi(mb, 32, 0),
                        None,
                        string(mb, ""),
                        mi(mb, 32, 0),
                        mi(mb, 32, 0),
                        mi(mb, 32, 1),
                        mi(mb, 32, CB_BYTES),
                        None,
                    ];
                    cbvs.push(node(mb, ops));
                }
            }
        }
        let srvs = (!srvs.is_empty()).then(|| node(mb, srvs)).flatten();
        let cbvs = (!cbvs.is_empty()).then(|| node(mb, cbvs)).flatten();
        let resources = node(mb, vec![srvs, None, cbvs, None]);
        let mut prop_ops = Vec::new();
        for (tag, v) in props {
            prop_ops.push(mi(mb, 32, tag));
            prop_ops.push(Some(v));
        }
        let props = (!prop_ops.is_empty()).then(|| node(mb, prop_ops)).flatten();
        mb.ret();
        let (mut m, fi) = self.mb.finish();
        EntryPoint {
            name: "main",
            version,
            shader_model: sm,
            signatures: sigs,
            resources,
            module_resources: resources,
            properties: props,
        }
        .declare(&mut m, fi);
        let bitcode = write_module(&m).expect("the writer takes the built module");
        let program = ProgramVersion {
            kind,
            major: 6,
            minor,
        };
        let dxil = dxil_part(program, (1, minor), &bitcode).expect("a DXIL part");
        let psv = psv0(stage_words, res);
        let sfi0 = [0u8; 8];
        write_container(&[
            (FourCc(*b"SFI0"), &sfi0[..]),
            (FourCc(*b"PSV0"), &psv),
            (FourCc::DXIL, &dxil),
        ])
        .expect("a container")
    }
}

/// A `PSV0` part as validator 1.0 lays it out (DXC `DxilPipelineStateValidation.h`):
/// the 24-byte runtime info (four stage words, the wave lane range 0 to 0xffffffff of a
/// program without `[WaveSize]`), then the resource count and, when there are any, the
/// 16-byte records (type, space, lower and upper bound) in dxc's order: constant
/// buffers, then SRVs.
fn psv0(stage_words: [u32; 4], res: &[Res]) -> Vec<u8> {
    let mut out = u32s([24]);
    out.extend(u32s(stage_words));
    out.extend(u32s([0, u32::MAX]));
    out.extend(u32s([res.len() as u32]));
    if !res.is_empty() {
        out.extend(u32s([16]));
        let mut ordered: Vec<Res> = res.iter().copied().filter(|r| *r == Res::Cbv).collect();
        ordered.extend(res.iter().copied().filter(|r| *r != Res::Cbv));
        for r in ordered {
            // PSVResourceType: 2 constant buffer, 4 raw SRV.
            let (t, reg) = match r {
                Res::Cbv => (2, 0),
                Res::Srv(t) => (4, t as u32),
            };
            out.extend(u32s([t, 0, reg, reg]));
        }
    }
    out
}

/// The output element and column of a vertex's k-th value: the clip position (4), the
/// normal (3), the colour (3).
fn outputs_of(k: usize) -> (i64, usize) {
    match k {
        0..4 => (0, k),
        4..7 => (1, k - 4),
        _ => (2, k - 7),
    }
}

/// ICmp predicates (LLVM `CmpInst::Predicate`).
const EQ: u8 = 32;
const ULT: u8 = 36;
/// FCmp `oge`.
const OGE: u8 = 3;

/// The amplification program, `[numthreads(32, 1, 1)]`: thread t of group g tests
/// meshlet 32·g + t's sphere against the six planes ([`meshlet_visible`]) and writes
/// its verdict to group-shared `flags[t]`; after a barrier, thread 0 compacts the
/// visible meshlets' indices into the payload in order (each index written at the count
/// so far, the count advanced by the verdict) and the count into group-shared memory;
/// after a second barrier every thread calls `DispatchMesh(count, 1, 1, payload)`.
fn amplification() -> Vec<u8> {
    let mut p = P::new();
    let i32t = p.i32t;
    let arr = p.mb.t(Type::Array {
        len: u64::from(AS_THREADS),
        element: i32t,
    });
    let payload_ty = p.mb.named("struct.Payload", vec![arr]);
    let undef_arr = p.mb.undef(arr);
    let undef_payload = p.mb.undef(payload_ty);
    let undef_i = p.mb.undef(i32t);
    let flags = p.mb.global("flags", arr, 3, Some(undef_arr));
    let payload = p.mb.global("payload", payload_ty, 3, Some(undef_payload));
    let count = p.mb.global("count", i32t, 3, Some(undef_i));
    let cb = p.handle(Res::Cbv);
    let meshlets = p.handle(Res::Srv(0));
    let zero = p.i(0);
    let tid =
        p.mb.dx("threadIdInGroup.i32", DxOp::ThreadIdInGroup, &[zero], i32t);
    let gid = p.mb.dx("groupId.i32", DxOp::GroupId, &[zero], i32t);
    let threads = p.i(i64::from(AS_THREADS));
    let base = p.ibin(BinOp::Mul, gid, threads);
    let index = p.ibin(BinOp::Add, base, tid);
    let n = p.cb_uint(cb, 15);
    let mut visible = p.icmp(ULT, index, n);
    let stride = p.i(i64::from(MESHLET_BYTES));
    let addr = p.ibin(BinOp::Mul, index, stride);
    let s = p.raw_load(meshlets, addr, 4, true);
    let fzero = p.f(0.0);
    let i1 = p.mb.int(1);
    for k in 0..6 {
        let plane = p.cb_row(cb, 8 + k);
        let d = p.dot3(
            [plane[0], plane[1], plane[2]],
            [s[0], s[1], s[2]],
            Some(plane[3]),
        );
        let d = p.fbin(BinOp::Add, d, s[3]);
        let inside = p.mb.push(
            InstKind::Cmp {
                pred: Predicate(OGE),
                lhs: d,
                rhs: fzero,
                flags: 0,
            },
            i1,
        );
        visible = p.mb.bin(BinOp::And, visible, inside, i1);
    }
    let flag = p.mb.cast(CastOp::ZExt, visible, i32t);
    let gep = |p: &mut P, ty: TypeId, base: ValueId, idx: Vec<ValueId>| {
        let pt = p.mb.t(Type::Pointer {
            pointee: i32t,
            address_space: 3,
        });
        p.mb.push(
            InstKind::Gep {
                inbounds: true,
                source_ty: ty,
                base,
                indices: idx,
                explicit_type: true,
            },
            pt,
        )
    };
    let at = gep(&mut p, arr, flags, vec![zero, tid]);
    p.mb.store(at, flag);
    let void = p.mb.void();
    let sync = p.i(9); // SyncThreadGroup | TGSMFence (DXIL.rst "Barrier")
    p.mb.dx("barrier", DxOp::Barrier, &[sync], void);
    let first = p.icmp(EQ, tid, zero);
    p.mb.cond_br(first, BlockId(1), BlockId(2));
    p.mb.block(); // 1: thread 0 compacts
    let mut n = zero;
    for j in 0..AS_THREADS {
        let jv = p.i(i64::from(j));
        let at = gep(&mut p, arr, flags, vec![zero, jv]);
        let f = p.mb.load(at, i32t);
        let slot = gep(&mut p, payload_ty, payload, vec![zero, zero, n]);
        let id = p.ibin(BinOp::Add, base, jv);
        p.mb.store(slot, id);
        n = p.ibin(BinOp::Add, n, f);
    }
    p.mb.store(count, n);
    p.mb.br(BlockId(2));
    p.mb.block(); // 2
    p.mb.dx("barrier", DxOp::Barrier, &[sync], void);
    let c = p.mb.load(count, i32t);
    let one = p.i(1);
    p.mb.dx(
        "dispatchMesh.struct.Payload",
        DxOp::DispatchMesh,
        &[c, one, one, payload],
        void,
    );
    let threads_md = three(&mut p.mb, [AS_THREADS, 1, 1]);
    let payload_md = md_int(&mut p.mb, i64::from(PAYLOAD_BYTES));
    let state = md_node(&mut p.mb, vec![Some(threads_md), Some(payload_md)]);
    p.finish(
        ProgramKind::Amplification,
        &[],
        &[],
        &[Res::Srv(0), Res::Cbv],
        vec![(10, state)],
        [PAYLOAD_BYTES, 0, 0, 0],
    )
}

fn md_int(mb: &mut Mb, v: i64) -> MdId {
    let c = mb.ci(32, v);
    let t = mb.int(32);
    mb.md(Metadata::Value { ty: t, value: c })
}

fn md_node(mb: &mut Mb, ops: Vec<Option<MdId>>) -> MdId {
    mb.md(Metadata::Node {
        distinct: false,
        ops,
    })
}

fn three(mb: &mut Mb, v: [u32; 3]) -> MdId {
    let ops = v.map(|x| Some(md_int(mb, i64::from(x)))).to_vec();
    md_node(mb, ops)
}

/// The mesh program, `[numthreads(128, 1, 1)]`, triangles, at most 64 vertices and 126
/// primitives: group g draws meshlet `payload[g]`; thread t < vertex count reads vertex
/// t (position and normal from `t1`) and writes its clip position and turned normal
/// ([`P::transform`]) and passes its colour on; thread t < primitive count unpacks triangle t's three 8-bit
/// indices from `t2`.
fn mesh() -> Vec<u8> {
    let mut p = P::new();
    let i32t = p.i32t;
    let arr = p.mb.t(Type::Array {
        len: u64::from(AS_THREADS),
        element: i32t,
    });
    let payload_ty = p.mb.named("struct.Payload", vec![arr]);
    let payload_ptr = p.mb.t(Type::Pointer {
        pointee: payload_ty,
        address_space: 0,
    });
    let cb = p.handle(Res::Cbv);
    let meshlets = p.handle(Res::Srv(0));
    let verts = p.handle(Res::Srv(1));
    let tris = p.handle(Res::Srv(2));
    let zero = p.i(0);
    let tid =
        p.mb.dx("threadIdInGroup.i32", DxOp::ThreadIdInGroup, &[zero], i32t);
    let gid = p.mb.dx("groupId.i32", DxOp::GroupId, &[zero], i32t);
    let pl = p.mb.dx(
        "getMeshPayload.struct.Payload",
        DxOp::GetMeshPayload,
        &[],
        payload_ptr,
    );
    let ip = p.mb.t(Type::Pointer {
        pointee: i32t,
        address_space: 0,
    });
    let at = p.mb.push(
        InstKind::Gep {
            inbounds: true,
            source_ty: payload_ty,
            base: pl,
            indices: vec![zero, zero, gid],
            explicit_type: true,
        },
        ip,
    );
    let id = p.mb.load(at, i32t);
    let stride = p.i(i64::from(MESHLET_BYTES));
    let rec = p.ibin(BinOp::Mul, id, stride);
    let sixteen = p.i(16);
    let rec = p.ibin(BinOp::Add, rec, sixteen);
    let r = p.raw_load(meshlets, rec, 4, false);
    let (voff, vcount, poff, pcount) = (r[0], r[1], r[2], r[3]);
    let void = p.mb.void();
    p.mb.dx(
        "setMeshOutputCounts",
        DxOp::SetMeshOutputCounts,
        &[vcount, pcount],
        void,
    );
    let is_vertex = p.icmp(ULT, tid, vcount);
    p.mb.cond_br(is_vertex, BlockId(1), BlockId(2));
    p.mb.block(); // 1: a vertex
    let v = p.ibin(BinOp::Add, voff, tid);
    let vstride = p.i(i64::from(VERTEX_BYTES));
    let addr = p.ibin(BinOp::Mul, v, vstride);
    let pos = p.raw_load(verts, addr, 3, true);
    let twelve = p.i(12);
    let naddr = p.ibin(BinOp::Add, addr, twelve);
    let nrm = p.raw_load(verts, naddr, 3, true);
    let tf = p.transform(cb, [pos[0], pos[1], pos[2]], [nrm[0], nrm[1], nrm[2]]);
    let twenty_four = p.i(24);
    let caddr = p.ibin(BinOp::Add, addr, twenty_four);
    let colour = p.raw_load(verts, caddr, 3, true);
    let mut out = tf.to_vec();
    out.extend(colour);
    for (k, val) in out.into_iter().enumerate() {
        let (sig, col) = outputs_of(k);
        let sigv = p.i(sig);
        let colv = p.mb.ci(8, col as i64);
        p.mb.dx(
            "storeVertexOutput.f32",
            DxOp::StoreVertexOutput,
            &[sigv, zero, colv, val, tid],
            void,
        );
    }
    p.mb.br(BlockId(2));
    p.mb.block(); // 2
    let is_prim = p.icmp(ULT, tid, pcount);
    p.mb.cond_br(is_prim, BlockId(3), BlockId(4));
    p.mb.block(); // 3: a triangle
    let t = p.ibin(BinOp::Add, poff, tid);
    let four = p.i(4);
    let taddr = p.ibin(BinOp::Mul, t, four);
    let w = p.raw_load(tris, taddr, 1, false)[0];
    let mask = p.i(255);
    let mut idx = [zero; 3];
    for (k, x) in idx.iter_mut().enumerate() {
        let sh = p.i(8 * k as i64);
        let s = p.ibin(BinOp::LShr, w, sh);
        *x = p.ibin(BinOp::And, s, mask);
    }
    p.mb.dx(
        "emitIndices",
        DxOp::EmitIndices,
        &[tid, idx[0], idx[1], idx[2]],
        void,
    );
    p.mb.br(BlockId(4));
    p.mb.block(); // 4
    let threads_md = three(&mut p.mb, [MS_THREADS, 1, 1]);
    let vals = [
        MAX_VERTICES as i64,
        MAX_PRIMITIVES as i64,
        2,
        i64::from(PAYLOAD_BYTES),
    ]
    .map(|v| Some(md_int(&mut p.mb, v)));
    let mut ops = vec![Some(threads_md)];
    ops.extend(vals);
    let state = md_node(&mut p.mb, ops);
    p.finish(
        ProgramKind::Mesh,
        &[],
        &[&SV_POSITION, &NORMAL_OUT, &COLOUR_OUT],
        &[Res::Srv(0), Res::Srv(1), Res::Srv(2), Res::Cbv],
        vec![(9, state)],
        [
            0,
            0,
            PAYLOAD_BYTES,
            MAX_VERTICES as u32 | (MAX_PRIMITIVES as u32) << 16,
        ],
    )
}

/// The vertex twin: the mesh program's vertex work ([`P::transform`]) on the input
/// assembler's position and normal, the colour passed through.
fn vertex() -> Vec<u8> {
    let mut p = P::new();
    let (f32t, i32t) = (p.f32t, p.i32t);
    let cb = p.handle(Res::Cbv);
    let zero = p.i(0);
    let u = p.mb.undef(i32t);
    let load = |p: &mut P, sig: i64, col: i64| {
        let s = p.i(sig);
        let c = p.mb.ci(8, col);
        p.mb.dx("loadInput.f32", DxOp::LoadInput, &[s, zero, c, u], f32t)
    };
    let pos = [0, 1, 2].map(|c| load(&mut p, 0, c));
    let nrm = [0, 1, 2].map(|c| load(&mut p, 1, c));
    let colour = [0, 1, 2].map(|c| load(&mut p, 2, c));
    let mut out = p.transform(cb, pos, nrm).to_vec();
    out.extend(colour);
    let void = p.mb.void();
    for (k, val) in out.into_iter().enumerate() {
        let (sig, col) = outputs_of(k);
        let sigv = p.i(sig);
        let colv = p.mb.ci(8, col as i64);
        p.mb.dx(
            "storeOutput.f32",
            DxOp::StoreOutput,
            &[sigv, zero, colv, val],
            void,
        );
    }
    p.finish(
        ProgramKind::Vertex,
        &[&POSITION_IN, &NORMAL_IN, &COLOUR_IN],
        &[&SV_POSITION, &NORMAL_OUT, &COLOUR_OUT],
        &[Res::Cbv],
        Vec::new(),
        [1, 0, 0, 0],
    )
}

/// The pixel program: the interpolated normal normalised (`rsqrt` of its length
/// squared), diffuse light `max(n·l, 0)` weighted and added to the ambient term, times
/// the albedo tinted by the meshlet's colour; alpha 1.
fn pixel() -> Vec<u8> {
    let mut p = P::new();
    let (f32t, i32t) = (p.f32t, p.i32t);
    let cb = p.handle(Res::Cbv);
    let zero = p.i(0);
    let u = p.mb.undef(i32t);
    let one = p.i(1);
    let n = [0, 1, 2].map(|c| {
        let cv = p.mb.ci(8, c);
        p.mb.dx("loadInput.f32", DxOp::LoadInput, &[one, zero, cv, u], f32t)
    });
    let len2 = p.dot3(n, n, None);
    let inv = p.mb.dx("unary.f32", DxOp::Rsqrt, &[len2], f32t);
    let n = n.map(|c| p.fbin(BinOp::Mul, c, inv));
    let light = p.cb_row(cb, 7);
    let d = p.dot3(n, [light[0], light[1], light[2]], None);
    let fzero = p.f(0.0);
    let d = p.mb.dx("binary.f32", DxOp::FMax, &[d, fzero], f32t);
    let mat = p.cb_row(cb, 14);
    let lit = p.fbin(BinOp::Mul, d, mat[3]);
    let shade = p.fbin(BinOp::Add, lit, light[3]);
    let void = p.mb.void();
    let fone = p.f(1.0);
    let colour = [0, 1, 2].map(|c| {
        let (two, cv) = (p.i(2), p.mb.ci(8, c));
        p.mb.dx("loadInput.f32", DxOp::LoadInput, &[two, zero, cv, u], f32t)
    });
    let rgb = [0, 1, 2].map(|c| {
        let tint = p.fbin(BinOp::Mul, mat[c], colour[c]);
        p.fbin(BinOp::Mul, tint, shade)
    });
    for (c, v) in [rgb[0], rgb[1], rgb[2], fone].into_iter().enumerate() {
        let colv = p.mb.ci(8, c as i64);
        p.mb.dx(
            "storeOutput.f32",
            DxOp::StoreOutput,
            &[zero, zero, colv, v],
            void,
        );
    }
    p.finish(
        ProgramKind::Pixel,
        &[&SV_POSITION, &NORMAL_OUT, &COLOUR_OUT],
        &[&SV_TARGET],
        &[Res::Cbv],
        Vec::new(),
        [0, 0, 0, 0],
    )
}
