//! The Cornell box example's scene and programs: a box of triangles (five walls and two
//! blocks), a procedural sphere and an alpha-tested leaf, and the DXIL library programs
//! that ray-trace it, built with `dxlane::dxil::llvm::build::Mb` (no compiler is
//! needed), one library per program.
//!
//! Shared by `examples/make_cornell.rs` (which writes the files) and the tests (which
//! check that the committed files are what this makes, and derive pixels by hand from
//! the constants here).

use dxlane::container::write::{dxil_part, write_container};
use dxlane::container::{FourCc, ProgramKind, ProgramVersion};
use dxlane::dxil::dxop::DxOp;
use dxlane::dxil::llvm::build::{EntryPoint, Mb};
use dxlane::dxil::llvm::write::write_module;
use dxlane::dxil::llvm::{
    BinOp, BlockId, Constant, InstKind, MdId, Metadata, Type, TypeId, ValueId,
};

/// The picture's width and height.
pub const SIZE: u32 = 256;
/// The camera: a pinhole at `EYE` looking along +z; the ray of pixel (x, y) has the
/// direction `((2(x + ½)/SIZE − 1)·FOV, −(2(y + ½)/SIZE − 1)·FOV, 1)` (not normalized).
pub const EYE: [f32; 3] = [0.0, 1.0, -3.4];
pub const FOV: f32 = 0.36;
/// The point light.
pub const LIGHT: [f32; 3] = [0.0, 1.85, -0.75];
/// The shade of a surface point: albedo × (AMBIENT + DIFFUSE × lit × max(N·L, 0)), with
/// N facing the ray, L the unit vector to the light and lit 1 when the shadow ray
/// misses, else 0.
pub const AMBIENT: f32 = 0.12;
pub const DIFFUSE: f32 = 0.88;
/// What a primary ray that meets nothing shows.
pub const BACKGROUND: [f32; 3] = [0.05, 0.05, 0.08];
/// The sphere: centre (its instance's translation), radius, colour.
pub const SPHERE_CENTRE: [f32; 3] = [0.5, 0.9, -0.25];
pub const SPHERE_RADIUS: f32 = 0.3;
pub const SPHERE_COLOUR: [f32; 3] = [0.9, 0.72, 0.2];
/// The leaf's cut-out: a hit with `frac(STRIPES × u) >= 0.5` (u the first barycentric)
/// is ignored by the any-hit program.
pub const STRIPES: f32 = 4.0;
/// Shadow and primary rays' TMin (shadow rays run to TMax 1 along the vector to the
/// light).
pub const T_MIN: f32 = 0.001;
pub const T_MAX: f32 = 10_000.0;
/// `RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH | RAY_FLAG_SKIP_CLOSEST_HIT_SHADER`.
pub const SHADOW_FLAGS: i64 = 0x4 | 0x8;

const WHITE: [f32; 3] = [0.75, 0.75, 0.72];
const RED: [f32; 3] = [0.75, 0.14, 0.12];
const GREEN: [f32; 3] = [0.16, 0.58, 0.16];
const BLOCK: [f32; 3] = [0.7, 0.7, 0.7];
const LEAF: [f32; 3] = [0.3, 0.7, 0.25];

/// One triangle of the scene: its vertices, colour and normal (unit, pointing into the
/// box for walls, out of the blocks).
#[derive(Debug, Clone, Copy)]
pub struct Triangle {
    pub v: [[f32; 3]; 3],
    pub colour: [f32; 3],
    pub normal: [f32; 3],
}

fn quad(out: &mut Vec<Triangle>, p: [[f32; 3]; 4], colour: [f32; 3], normal: [f32; 3]) {
    for v in [[p[0], p[1], p[2]], [p[0], p[2], p[3]]] {
        out.push(Triangle { v, colour, normal });
    }
}

/// The five sides of an axis-aligned block but its bottom.
fn block(out: &mut Vec<Triangle>, lo: [f32; 3], hi: [f32; 3]) {
    let [x0, y0, z0] = lo;
    let [x1, y1, z1] = hi;
    let c = BLOCK;
    quad(
        out,
        [[x0, y1, z0], [x1, y1, z0], [x1, y1, z1], [x0, y1, z1]],
        c,
        [0.0, 1.0, 0.0],
    );
    quad(
        out,
        [[x0, y0, z0], [x1, y0, z0], [x1, y1, z0], [x0, y1, z0]],
        c,
        [0.0, 0.0, -1.0],
    );
    quad(
        out,
        [[x0, y0, z1], [x1, y0, z1], [x1, y1, z1], [x0, y1, z1]],
        c,
        [0.0, 0.0, 1.0],
    );
    quad(
        out,
        [[x0, y0, z0], [x0, y0, z1], [x0, y1, z1], [x0, y1, z0]],
        c,
        [-1.0, 0.0, 0.0],
    );
    quad(
        out,
        [[x1, y0, z0], [x1, y0, z1], [x1, y1, z1], [x1, y1, z0]],
        c,
        [1.0, 0.0, 0.0],
    );
}

/// The box's triangles, in primitive order: floor, ceiling, back, left (red) and right
/// (green) walls, the tall block, the short block. The box spans x and z from −1 to 1
/// and y from 0 to 2; its front (z = −1) is open.
pub fn box_triangles() -> Vec<Triangle> {
    let mut t = Vec::new();
    quad(
        &mut t,
        [[-1., 0., -1.], [1., 0., -1.], [1., 0., 1.], [-1., 0., 1.]],
        WHITE,
        [0., 1., 0.],
    );
    quad(
        &mut t,
        [[-1., 2., -1.], [1., 2., -1.], [1., 2., 1.], [-1., 2., 1.]],
        WHITE,
        [0., -1., 0.],
    );
    quad(
        &mut t,
        [[-1., 0., 1.], [1., 0., 1.], [1., 2., 1.], [-1., 2., 1.]],
        WHITE,
        [0., 0., -1.],
    );
    quad(
        &mut t,
        [[-1., 0., -1.], [-1., 0., 1.], [-1., 2., 1.], [-1., 2., -1.]],
        RED,
        [1., 0., 0.],
    );
    quad(
        &mut t,
        [[1., 0., -1.], [1., 0., 1.], [1., 2., 1.], [1., 2., -1.]],
        GREEN,
        [-1., 0., 0.],
    );
    block(&mut t, [-0.75, 0.0, 0.05], [-0.15, 1.25, 0.65]);
    block(&mut t, [0.2, 0.0, -0.55], [0.8, 0.6, 0.05]);
    t
}

/// The leaf: a quad upright at z = −0.45 in front of the tall block, its first vertex at
/// the bottom left (so the first barycentric grows across each triangle).
pub fn leaf_triangles() -> Vec<Triangle> {
    let mut t = Vec::new();
    let z = -0.45;
    quad(
        &mut t,
        [
            [-0.95, 0.05, z],
            [-0.3, 0.05, z],
            [-0.3, 0.95, z],
            [-0.95, 0.95, z],
        ],
        LEAF,
        [0., 0., -1.],
    );
    t
}

/// The sphere's box in its object space (the instance moves it to [`SPHERE_CENTRE`]).
pub fn sphere_aabb() -> [f32; 6] {
    let r = SPHERE_RADIUS;
    [-r, -r, -r, r, r, r]
}

fn f32s(v: impl IntoIterator<Item = f32>) -> Vec<u8> {
    v.into_iter().flat_map(|x| x.to_le_bytes()).collect()
}

/// The vertex bytes of `tris` (three `R32G32B32_FLOAT` per triangle, no index buffer).
pub fn vertex_bytes(tris: &[Triangle]) -> Vec<u8> {
    f32s(tris.iter().flat_map(|t| t.v.iter().flatten().copied()))
}

/// Bytes of one primitive record in `cornell_primitives.bin`: colour, then normal.
pub const PRIMITIVE_BYTES: u32 = 24;

/// The primitive records the closest-hit program reads: the box's triangles, then the
/// leaf's (from [`leaf_base`]).
pub fn primitive_bytes() -> Vec<u8> {
    let all = box_triangles().into_iter().chain(leaf_triangles());
    f32s(all.flat_map(|t| t.colour.into_iter().chain(t.normal)))
}

/// The index of the leaf's first record: its hit group's local root constant.
pub fn leaf_base() -> u32 {
    box_triangles().len() as u32
}

/// Every generated file, by path under `examples/`.
pub fn files() -> Vec<(String, Vec<u8>)> {
    let mut out = vec![
        (
            "data/cornell_box.bin".to_owned(),
            vertex_bytes(&box_triangles()),
        ),
        (
            "data/cornell_leaf.bin".to_owned(),
            vertex_bytes(&leaf_triangles()),
        ),
        ("data/cornell_primitives.bin".to_owned(), primitive_bytes()),
    ];
    out.push(("data/cornell_raster.bin".to_owned(), raster_vertex_bytes()));
    for (name, bytes) in programs().into_iter().chain(raster_programs()) {
        out.push((format!("cornell/{name}"), bytes));
    }
    out
}

// ---- programs ----------------------------------------------------------------------------

/// dxc's data layout without 16-bit types.
const LAYOUT: &str =
    "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64";

/// The libraries, by file name: one export each.
pub fn programs() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("raygen.lib.dxil", raygen()),
        ("miss.lib.dxil", miss()),
        ("shadow_miss.lib.dxil", shadow_miss()),
        ("wall_hit.lib.dxil", wall_hit()),
        ("leaf_any.lib.dxil", leaf_any()),
        ("sphere_isect.lib.dxil", sphere_isect()),
        ("sphere_hit.lib.dxil", sphere_hit()),
    ]
}

/// A resource a program declares: the scene (`t0`), the primitive records (`t1`, a raw
/// buffer), the picture (`u0`, an `RWTexture2D<float4>`), the local root constant
/// (`b1`, one 32-bit value).
#[derive(Clone, Copy, PartialEq)]
pub enum Res {
    Scene,
    Primitives,
    Picture,
    Local,
}

/// ICmp / FCmp predicates (LLVM `CmpInst::Predicate`): `ogt`, `oge`, `olt`.
const OGT: u8 = 2;
const OGE: u8 = 3;
const OLT: u8 = 4;

/// A small helper over [`Mb`] for a program's arithmetic and metadata.
pub struct L {
    pub mb: Mb,
    pub f32t: TypeId,
    pub i32t: TypeId,
    /// `%struct.Payload = { float, float, float, float }`: the colour (or, for shadow
    /// rays, the light's visibility in the first field) and 1.
    pub payload: TypeId,
    res: Vec<Res>,
}

type V3 = [ValueId; 3];

impl L {
    pub fn new() -> L {
        let mut mb = Mb::new(LAYOUT);
        let f32t = mb.t(Type::Float);
        let i32t = mb.int(32);
        let payload = mb.named("struct.Payload", vec![f32t, f32t, f32t, f32t]);
        L {
            mb,
            f32t,
            i32t,
            payload,
            res: Vec::new(),
        }
    }

    pub fn ptr(&mut self, ty: TypeId) -> TypeId {
        self.mb.t(Type::Pointer {
            pointee: ty,
            address_space: 0,
        })
    }

    /// A `%struct.Payload*` parameter.
    pub fn payload_param(&mut self) -> ValueId {
        let p = self.ptr(self.payload);
        self.mb.param(p)
    }

    pub fn f(&mut self, v: f32) -> ValueId {
        let t = self.f32t;
        self.mb.c(t, Constant::Float(u64::from(v.to_bits())))
    }

    pub fn i(&mut self, v: i64) -> ValueId {
        self.mb.ci(32, v)
    }

    fn fb(&mut self, op: BinOp, a: ValueId, b: ValueId) -> ValueId {
        let t = self.f32t;
        self.mb.bin(op, a, b, t)
    }

    fn add(&mut self, a: ValueId, b: ValueId) -> ValueId {
        self.fb(BinOp::Add, a, b)
    }

    fn sub(&mut self, a: ValueId, b: ValueId) -> ValueId {
        self.fb(BinOp::Sub, a, b)
    }

    fn mul(&mut self, a: ValueId, b: ValueId) -> ValueId {
        self.fb(BinOp::Mul, a, b)
    }

    fn div(&mut self, a: ValueId, b: ValueId) -> ValueId {
        // LLVM's `fdiv` is binary opcode 4 on floats, as `sdiv` on integers.
        self.fb(BinOp::SDiv, a, b)
    }

    /// `(a0·b0 + a1·b1) + a2·b2`, rounded in that order.
    fn dot(&mut self, a: V3, b: V3) -> ValueId {
        let p0 = self.mul(a[0], b[0]);
        let p1 = self.mul(a[1], b[1]);
        let s = self.add(p0, p1);
        let p2 = self.mul(a[2], b[2]);
        self.add(s, p2)
    }

    fn unary(&mut self, op: DxOp, v: ValueId) -> ValueId {
        let t = self.f32t;
        self.mb.dx("unary.f32", op, &[v], t)
    }

    fn fmax(&mut self, a: ValueId, b: ValueId) -> ValueId {
        let t = self.f32t;
        self.mb.dx("binary.f32", DxOp::FMax, &[a, b], t)
    }

    /// A three-component system value (`WorldRayOrigin` …), one call per component.
    fn sv3(&mut self, name: &str, op: DxOp) -> V3 {
        let t = self.f32t;
        [0, 1, 2].map(|c| {
            let cv = self.mb.ci(8, c);
            self.mb.dx(name, op, &[cv], t)
        })
    }

    pub fn handle(&mut self, r: Res) -> ValueId {
        if !self.res.contains(&r) {
            self.res.push(r);
        }
        match r {
            Res::Scene => self.mb.handle(0, 0, 0),
            Res::Primitives => self.mb.handle(0, 1, 1),
            Res::Picture => self.mb.handle(1, 0, 0),
            Res::Local => self.mb.handle(2, 0, 1),
        }
    }

    /// A pointer to field `k` of a payload (or any struct of floats) at `base`.
    pub fn field(&mut self, ty: TypeId, base: ValueId, k: i64) -> ValueId {
        let pf = self.ptr(self.f32t);
        let (zero, kv) = (self.i(0), self.i(k));
        self.mb.push(
            InstKind::Gep {
                inbounds: true,
                source_ty: ty,
                base,
                indices: vec![zero, kv],
                explicit_type: true,
            },
            pf,
        )
    }

    pub fn alloca(&mut self, ty: TypeId) -> ValueId {
        let p = self.ptr(ty);
        let one = self.i(1);
        self.mb.push(
            InstKind::Alloca {
                allocated: ty,
                size: one,
                align: 4,
                inalloca: false,
                // log2(4) + 1, with the explicit-type bit.
                raw_align: 64 | 3,
            },
            p,
        )
    }

    pub fn store_fields(&mut self, ty: TypeId, base: ValueId, values: &[ValueId]) {
        for (k, v) in values.iter().enumerate() {
            let p = self.field(ty, base, k as i64);
            self.mb.store(p, *v);
        }
    }

    pub fn load_field(&mut self, ty: TypeId, base: ValueId, k: i64) -> ValueId {
        let p = self.field(ty, base, k);
        let t = self.f32t;
        self.mb.load(p, t)
    }

    /// `TraceRay` through the scene with `payload` (a `%struct.Payload*`).
    #[allow(clippy::too_many_arguments)]
    pub fn trace(
        &mut self,
        flags: i64,
        contribution: i64,
        miss: i64,
        origin: V3,
        t_min: ValueId,
        dir: V3,
        t_max: ValueId,
        payload: ValueId,
    ) {
        let scene = self.handle(Res::Scene);
        let (fl, mask, hc, mult, mi) = (
            self.i(flags),
            self.i(0xff),
            self.i(contribution),
            self.i(2),
            self.i(miss),
        );
        let void = self.mb.void();
        self.mb.dx(
            "traceRay.struct.Payload",
            DxOp::TraceRay,
            &[
                scene, fl, mask, hc, mult, mi, origin[0], origin[1], origin[2], t_min, dir[0],
                dir[1], dir[2], t_max, payload,
            ],
            void,
        );
    }

    /// Lambert shading of the hit point `p` with normal `n` (turned to face the ray
    /// direction `d`) and albedo `albedo`, its light's visibility from a shadow ray
    /// (miss record 1, hit groups 1, 3, 5 by the contribution 1), written to `payload`.
    fn shade(&mut self, p: V3, n: V3, d: V3, albedo: V3, payload: ValueId) {
        let nd = self.dot(n, d);
        let zero = self.f(0.0);
        let facing_away = self.mb.cmp(OGT, nd, zero);
        let (minus, plus) = (self.f(-1.0), self.f(1.0));
        let sign = self.mb.select(facing_away, minus, plus);
        let n = n.map(|c| self.mul(c, sign));
        let light = LIGHT.map(|c| self.f(c));
        let l = [0, 1, 2].map(|k| self.sub(light[k], p[k]));
        let len2 = self.dot(l, l);
        let len = self.unary(DxOp::Sqrt, len2);
        let nl = self.dot(n, l);
        let cos = self.div(nl, len);
        let cos = self.fmax(cos, zero);
        let ty = self.payload;
        let shadow = self.alloca(ty);
        self.store_fields(ty, shadow, &[zero, zero, zero, zero]);
        let (t_min, one) = (self.f(T_MIN), self.f(1.0));
        self.trace(SHADOW_FLAGS, 1, 1, p, t_min, l, one, shadow);
        let lit = self.load_field(ty, shadow, 0);
        let (ambient, diffuse) = (self.f(AMBIENT), self.f(DIFFUSE));
        let lc = self.mul(lit, cos);
        let k = self.mul(diffuse, lc);
        let k = self.add(ambient, k);
        let rgb = albedo.map(|c| self.mul(c, k));
        self.store_fields(ty, payload, &[rgb[0], rgb[1], rgb[2], one]);
    }

    /// The hit point: `WorldRayOrigin() + RayTCurrent() × WorldRayDirection()`, and the
    /// direction.
    fn hit_point(&mut self) -> (V3, V3) {
        let o = self.sv3("worldRayOrigin.f32", DxOp::WorldRayOrigin);
        let d = self.sv3("worldRayDirection.f32", DxOp::WorldRayDirection);
        let t = self.f32t;
        let tc = self.mb.dx("rayTCurrent.f32", DxOp::RayTCurrent, &[], t);
        let p = [0, 1, 2].map(|k| {
            let s = self.mul(d[k], tc);
            self.add(o[k], s)
        });
        (p, d)
    }

    /// Finishes the module as the library export `name` of DXIL shader kind `kind`
    /// (7 ray generation … 11 miss) with its payload and attribute sizes, and wraps it
    /// in a container with its DXIL part.
    fn finish(self, name: &str, kind: i64, sizes: Option<(i64, i64)>) -> Vec<u8> {
        self.finish_as(name, kind, sizes, 3)
    }

    /// [`L::finish`] as a `lib_6_<minor>` module of DXIL 1.<minor>.
    pub fn finish_as(
        mut self,
        name: &str,
        kind: i64,
        sizes: Option<(i64, i64)>,
        minor: i64,
    ) -> Vec<u8> {
        self.mb.ret();
        let res = std::mem::take(&mut self.res);
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
        let version = [mi(mb, 32, 1), mi(mb, 32, minor)];
        let version = node(mb, version.to_vec());
        let sm = [string(mb, "lib"), mi(mb, 32, 6), mi(mb, 32, minor)];
        let sm = node(mb, sm.to_vec());
        let (mut srvs, mut uavs, mut cbvs) = (Vec::new(), Vec::new(), Vec::new());
        for r in &res {
            match r {
                // Shape 16: RTAccelerationStructure; 11: a raw buffer.
                Res::Scene | Res::Primitives => {
                    let (id, shape) = if *r == Res::Scene { (0, 16) } else { (1, 11) };
                    let ops = vec![
                        mi(mb, 32, id),
                        None,
                        string(mb, ""),
                        mi(mb, 32, 0),
                        mi(mb, 32, id),
                        mi(mb, 32, 1),
                        mi(mb, 32, shape),
                        mi(mb, 32, 0),
                        None,
                    ];
                    srvs.push(node(mb, ops));
                }
                // A Texture2D (shape 2) of element type f32 (9).
                Res::Picture => {
                    let tags = [mi(mb, 32, 0), mi(mb, 32, 9)];
                    let ext = node(mb, tags.to_vec());
                    let ops = vec![
                        mi(mb, 32, 0),
                        None,
                        string(mb, ""),
                        mi(mb, 32, 0),
                        mi(mb, 32, 0),
                        mi(mb, 32, 1),
                        mi(mb, 32, 2),
                        mi(mb, 1, 0),
                        mi(mb, 1, 0),
                        mi(mb, 1, 0),
                        ext,
                    ];
                    uavs.push(node(mb, ops));
                }
                Res::Local => {
                    let ops = vec![
                        mi(mb, 32, 0),
                        None,
                        string(mb, ""),
                        mi(mb, 32, 0),
                        mi(mb, 32, 1),
                        mi(mb, 32, 1),
                        mi(mb, 32, 4),
                        None,
                    ];
                    cbvs.push(node(mb, ops));
                }
            }
        }
        let srvs = (!srvs.is_empty()).then(|| node(mb, srvs)).flatten();
        let uavs = (!uavs.is_empty()).then(|| node(mb, uavs)).flatten();
        let cbvs = (!cbvs.is_empty()).then(|| node(mb, cbvs)).flatten();
        let resources = node(mb, vec![srvs, uavs, cbvs, None]);
        // Tag 8: shader kind; 6: payload size; 7: attribute size.
        let mut props = vec![mi(mb, 32, 8), mi(mb, 32, kind)];
        if let Some((payload, attributes)) = sizes {
            props.extend([mi(mb, 32, 6), mi(mb, 32, payload)]);
            if attributes > 0 {
                props.extend([mi(mb, 32, 7), mi(mb, 32, attributes)]);
            }
        }
        let props = node(mb, props);
        let (mut m, fi) = self.mb.finish();
        // A library export's record holds no signatures and no resources; the module's
        // resources are `dx.resources`.
        EntryPoint {
            name,
            version,
            shader_model: sm,
            signatures: None,
            resources: None,
            module_resources: resources,
            properties: props,
        }
        .declare(&mut m, fi);
        let bitcode = write_module(&m).expect("the writer takes the built module");
        let minor = u8::try_from(minor).expect("a shader model's minor version");
        let program = ProgramVersion {
            kind: ProgramKind::Library,
            major: 6,
            minor,
        };
        let dxil = dxil_part(program, (1, minor), &bitcode).expect("a DXIL part");
        write_container(&[(FourCc::DXIL, &dxil)]).expect("a container")
    }
}

/// DXIL shader kinds of the library exports.
pub const RAYGEN: i64 = 7;
pub const INTERSECTION: i64 = 8;
pub const ANY_HIT: i64 = 9;
pub const CLOSEST_HIT: i64 = 10;
pub const MISS: i64 = 11;

/// Ray generation: one primary ray per pixel from the pinhole ([`EYE`], [`FOV`]),
/// contribution 0 (hit groups 0, 2, 4), miss record 0; the payload's colour, saturated,
/// is written to `u0` at the launch index.
fn raygen() -> Vec<u8> {
    let mut l = L::new();
    l.mb.block();
    let i32t = l.i32t;
    let ix = [0, 1].map(|c| {
        let cv = l.mb.ci(8, c);
        l.mb.dx(
            "dispatchRaysIndex.i32",
            DxOp::DispatchRaysIndex,
            &[cv],
            i32t,
        )
    });
    let dims = [0, 1].map(|c| {
        let cv = l.mb.ci(8, c);
        l.mb.dx(
            "dispatchRaysDimensions.i32",
            DxOp::DispatchRaysDimensions,
            &[cv],
            i32t,
        )
    });
    let f32t = l.f32t;
    let (half, two, one, fov) = (l.f(0.5), l.f(2.0), l.f(1.0), l.f(FOV));
    let s = [0, 1].map(|k| {
        let x = l.mb.cast(dxlane::dxil::llvm::CastOp::UiToFp, ix[k], f32t);
        let w = l.mb.cast(dxlane::dxil::llvm::CastOp::UiToFp, dims[k], f32t);
        let x = l.add(x, half);
        let x = l.mul(x, two);
        let x = l.div(x, w);
        let x = l.sub(x, one);
        l.mul(x, fov)
    });
    let zero = l.f(0.0);
    let sy = l.sub(zero, s[1]);
    let dir = [s[0], sy, one];
    let eye = EYE.map(|c| l.f(c));
    let ty = l.payload;
    let p = l.alloca(ty);
    l.store_fields(ty, p, &[zero, zero, zero, zero]);
    let (t_min, t_max) = (l.f(T_MIN), l.f(T_MAX));
    l.trace(0, 0, 0, eye, t_min, dir, t_max, p);
    let rgb = [0, 1, 2].map(|k| {
        let v = l.load_field(ty, p, k);
        l.unary(DxOp::Saturate, v)
    });
    let picture = l.handle(Res::Picture);
    let u = l.mb.undef(i32t);
    let mask = l.mb.ci(8, 15);
    let void = l.mb.void();
    l.mb.dx(
        "textureStore.f32",
        DxOp::TextureStore,
        &[picture, ix[0], ix[1], u, rgb[0], rgb[1], rgb[2], one, mask],
        void,
    );
    l.finish("raygen", RAYGEN, None)
}

/// Miss record 0 (primary rays): the background colour.
fn miss() -> Vec<u8> {
    let mut l = L::new();
    let payload = l.payload_param();
    l.mb.block();
    let c = BACKGROUND.map(|c| l.f(c));
    let one = l.f(1.0);
    let ty = l.payload;
    l.store_fields(ty, payload, &[c[0], c[1], c[2], one]);
    l.finish("miss", MISS, Some((16, 0)))
}

/// Miss record 1 (shadow rays): nothing between the point and the light, visibility 1.
fn shadow_miss() -> Vec<u8> {
    let mut l = L::new();
    let payload = l.payload_param();
    l.mb.block();
    let one = l.f(1.0);
    let ty = l.payload;
    let p = l.field(ty, payload, 0);
    l.mb.store(p, one);
    l.finish("shadow_miss", MISS, Some((16, 0)))
}

/// `%struct.BuiltInTriangleIntersectionAttributes = { float, float }`.
fn triangle_attributes(l: &mut L) -> TypeId {
    let f = l.f32t;
    l.mb.named("struct.BuiltInTriangleIntersectionAttributes", vec![f, f])
}

/// `%struct.SphereAttributes = { float, float, float }`: the object-space normal.
fn sphere_attributes(l: &mut L) -> TypeId {
    let f = l.f32t;
    l.mb.named("struct.SphereAttributes", vec![f, f, f])
}

/// Closest-hit of the box's and the leaf's triangles (hit groups 0 and 2): the colour
/// and normal of primitive record `b1[0] + PrimitiveIndex()` of `t1` (the hit group's
/// local root constant: 0 for the box, [`leaf_base`] for the leaf), shaded.
fn wall_hit() -> Vec<u8> {
    let mut l = L::new();
    let payload = l.payload_param();
    let attrs = triangle_attributes(&mut l);
    let pa = l.ptr(attrs);
    l.mb.param(pa);
    l.mb.block();
    let i32t = l.i32t;
    let local = l.handle(Res::Local);
    let ret =
        l.mb.named("dx.types.CBufRet.i32", vec![i32t, i32t, i32t, i32t]);
    let zero = l.i(0);
    let row = l.mb.dx(
        "cbufferLoadLegacy.i32",
        DxOp::CBufferLoadLegacy,
        &[local, zero],
        ret,
    );
    let base = l.mb.extract_value(row, 0, i32t);
    let prim =
        l.mb.dx("primitiveIndex.i32", DxOp::PrimitiveIndex, &[], i32t);
    let index = l.mb.bin(BinOp::Add, base, prim, i32t);
    let stride = l.i(i64::from(PRIMITIVE_BYTES));
    let addr = l.mb.bin(BinOp::Mul, index, stride, i32t);
    let records = l.handle(Res::Primitives);
    let f32t = l.f32t;
    let rr =
        l.mb.named("dx.types.ResRet.f32", vec![f32t, f32t, f32t, f32t, i32t]);
    let load3 = |l: &mut L, at: ValueId| -> V3 {
        let u = l.mb.undef(i32t);
        let (mask, align) = (l.mb.ci(8, 7), l.i(4));
        let v = l.mb.dx(
            "rawBufferLoad.f32",
            DxOp::RawBufferLoad,
            &[records, at, u, mask, align],
            rr,
        );
        [0, 1, 2].map(|k| l.mb.extract_value(v, k, f32t))
    };
    let colour = load3(&mut l, addr);
    let twelve = l.i(12);
    let naddr = l.mb.bin(BinOp::Add, addr, twelve, i32t);
    let normal = load3(&mut l, naddr);
    let (p, d) = l.hit_point();
    l.shade(p, normal, d, colour, payload);
    l.finish("wall_hit", CLOSEST_HIT, Some((16, 8)))
}

/// Any-hit of the leaf (hit groups 2 and 3): `IgnoreHit()` where
/// `frac(STRIPES × u) >= 0.5`, so the leaf is striped for primary and shadow rays.
fn leaf_any() -> Vec<u8> {
    let mut l = L::new();
    l.payload_param();
    let attrs = triangle_attributes(&mut l);
    let pa = l.ptr(attrs);
    let a = l.mb.param(pa);
    let entry = l.mb.block();
    let u = l.load_field(attrs, a, 0);
    let stripes = l.f(STRIPES);
    let x = l.mul(u, stripes);
    let fr = l.unary(DxOp::Frc, x);
    let half = l.f(0.5);
    let cut = l.mb.cmp(OGE, fr, half);
    let (ignore, keep) = (BlockId(entry.0 + 1), BlockId(entry.0 + 2));
    l.mb.cond_br(cut, ignore, keep);
    l.mb.block();
    let void = l.mb.void();
    l.mb.dx("ignoreHit", DxOp::IgnoreHit, &[], void);
    l.mb.ret();
    l.mb.block();
    l.finish("leaf_any", ANY_HIT, Some((16, 8)))
}

/// Intersection of the sphere (hit groups 4 and 5): the object-space ray against the
/// sphere of radius [`SPHERE_RADIUS`] at the origin; `ReportHit(t, 0, normal)` for the
/// nearer root and, if that one is refused (outside the ray's interval), the farther.
fn sphere_isect() -> Vec<u8> {
    let mut l = L::new();
    let attrs = sphere_attributes(&mut l);
    l.mb.block(); // 0
    let o = l.sv3("objectRayOrigin.f32", DxOp::ObjectRayOrigin);
    let d = l.sv3("objectRayDirection.f32", DxOp::ObjectRayDirection);
    let a = l.dot(d, d);
    let b = l.dot(o, d);
    let oo = l.dot(o, o);
    let r2 = l.f(SPHERE_RADIUS * SPHERE_RADIUS);
    let c = l.sub(oo, r2);
    let bb = l.mul(b, b);
    let ac = l.mul(a, c);
    let disc = l.sub(bb, ac);
    let zero = l.f(0.0);
    let miss = l.mb.cmp(OLT, disc, zero);
    let store = l.alloca(attrs);
    l.mb.cond_br(miss, BlockId(3), BlockId(1));
    let i1t = l.mb.int(1);
    let inv_r = l.f(1.0 / SPHERE_RADIUS);
    let report = |l: &mut L, sign: f32| -> ValueId {
        let s = l.unary(DxOp::Sqrt, disc);
        let sv = l.f(sign);
        let s = l.mul(s, sv);
        let nb = l.sub(zero, b);
        let num = l.add(nb, s);
        let t = l.div(num, a);
        let n = [0, 1, 2].map(|k| {
            let dt = l.mul(d[k], t);
            let q = l.add(o[k], dt);
            l.mul(q, inv_r)
        });
        l.store_fields(attrs, store, &n);
        let kind = l.i(0);
        l.mb.dx(
            "reportHit.struct.SphereAttributes",
            DxOp::ReportHit,
            &[t, kind, store],
            i1t,
        )
    };
    l.mb.block(); // 1: the nearer root
    let accepted = report(&mut l, -1.0);
    l.mb.cond_br(accepted, BlockId(3), BlockId(2));
    l.mb.block(); // 2: the farther root
    report(&mut l, 1.0);
    l.mb.br(BlockId(3));
    l.mb.block(); // 3
    l.finish("sphere_isect", INTERSECTION, None)
}

/// Closest-hit of the sphere (hit group 4): the normal its intersection program
/// reported (object and world space agree: the instance only translates), shaded in
/// [`SPHERE_COLOUR`].
fn sphere_hit() -> Vec<u8> {
    let mut l = L::new();
    let payload = l.payload_param();
    let attrs = sphere_attributes(&mut l);
    let pa = l.ptr(attrs);
    let a = l.mb.param(pa);
    l.mb.block();
    let n = [0, 1, 2].map(|k| l.load_field(attrs, a, k));
    let (p, d) = l.hit_point();
    let albedo = SPHERE_COLOUR.map(|c| l.f(c));
    l.shade(p, n, d, albedo, payload);
    l.finish("sphere_hit", CLOSEST_HIT, Some((16, 12)))
}

// ---- the rasterized twin: shadows by inline ray queries --------------------------------

/// Bytes of a vertex of `cornell_raster.bin`: position, colour, normal.
pub const RASTER_VERTEX_BYTES: u32 = 36;
/// The rasterized twin's depth range along the camera's axis.
pub const NEAR: f32 = 0.1;
pub const FAR: f32 = 10.0;

/// The box's triangles as a vertex buffer (three vertices each, the triangle's colour
/// and normal on each).
pub fn raster_vertex_bytes() -> Vec<u8> {
    f32s(box_triangles().iter().flat_map(|t| {
        t.v.iter()
            .flat_map(move |v| v.iter().chain(&t.colour).chain(&t.normal).copied())
            .collect::<Vec<f32>>()
    }))
}

/// The rasterized twin's programs, by file name.
pub fn raster_programs() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("box.vs.dxil", box_vertex()),
        ("shadow.ps.dxil", shadow_pixel()),
    ]
}

/// A signature element: semantic name and kind (DXIL `SemanticKind`: 0 arbitrary, 3
/// position, 16 target), interpolation (DXIL `InterpolationMode`: 0 undefined, 1
/// constant, 2 linear, 4 linear without perspective), columns, start row; all f32.
struct Sig(&'static str, i64, i64, i64, i64);

const VS_IN: [Sig; 3] = [
    Sig("POSITION", 0, 0, 3, 0),
    Sig("COLOR", 0, 0, 3, 1),
    Sig("NORMAL", 0, 0, 3, 2),
];
const VARYINGS: [Sig; 4] = [
    Sig("SV_Position", 3, 4, 4, 0),
    Sig("TEXCOORD", 0, 2, 3, 1),
    Sig("COLOR", 0, 1, 3, 2),
    Sig("NORMAL", 0, 1, 3, 3),
];
const PS_OUT: [Sig; 1] = [Sig("SV_Target", 16, 0, 4, 0)];

impl L {
    fn load_input(&mut self, sig: i64, col: i64) -> ValueId {
        let (f32t, i32t) = (self.f32t, self.i32t);
        let (s, zero, c) = (self.i(sig), self.i(0), self.mb.ci(8, col));
        let u = self.mb.undef(i32t);
        self.mb
            .dx("loadInput.f32", DxOp::LoadInput, &[s, zero, c, u], f32t)
    }

    fn store_output(&mut self, sig: i64, col: i64, v: ValueId) {
        let (s, zero, c) = (self.i(sig), self.i(0), self.mb.ci(8, col));
        let void = self.mb.void();
        self.mb
            .dx("storeOutput.f32", DxOp::StoreOutput, &[s, zero, c, v], void);
    }

    /// Finishes the module as the entry point `main` of a `kind` program (`vs_6_0`, or
    /// `ps_6_5` for the ray query) with its signatures and resources, in a container
    /// with its DXIL part.
    fn finish_stage(mut self, kind: ProgramKind, inputs: &[Sig], outputs: &[Sig]) -> Vec<u8> {
        self.mb.ret();
        let (profile, minor) = match kind {
            ProgramKind::Vertex => ("vs", 0),
            _ => ("ps", 5),
        };
        let res = std::mem::take(&mut self.res);
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
        let version = [mi(mb, 32, 1), mi(mb, 32, minor)];
        let version = node(mb, version.to_vec());
        let sm = [string(mb, profile), mi(mb, 32, 6), mi(mb, 32, minor)];
        let sm = node(mb, sm.to_vec());
        let sig_list = |mb: &mut Mb, sigs: &[Sig]| {
            let mut list = Vec::new();
            for (id, s) in sigs.iter().enumerate() {
                let zero = mi(mb, 32, 0);
                let indices = node(mb, vec![zero]);
                let ops = vec![
                    mi(mb, 32, id as i64),
                    string(mb, s.0),
                    mi(mb, 8, 9),
                    mi(mb, 8, s.1),
                    indices,
                    mi(mb, 8, s.2),
                    mi(mb, 32, 1),
                    mi(mb, 8, s.3),
                    mi(mb, 32, s.4),
                    mi(mb, 8, 0),
                    None,
                ];
                list.push(node(mb, ops));
            }
            node(mb, list)
        };
        let ins = sig_list(mb, inputs);
        let outs = sig_list(mb, outputs);
        let sigs = node(mb, vec![ins, outs, None]);
        let mut srvs = Vec::new();
        if res.contains(&Res::Scene) {
            let ops = vec![
                mi(mb, 32, 0),
                None,
                string(mb, ""),
                mi(mb, 32, 0),
                mi(mb, 32, 0),
                mi(mb, 32, 1),
                mi(mb, 32, 16),
                mi(mb, 32, 0),
                None,
            ];
            srvs.push(node(mb, ops));
        }
        let srvs = (!srvs.is_empty()).then(|| node(mb, srvs)).flatten();
        let resources = node(mb, vec![srvs, None, None, None]);
        let (mut m, fi) = self.mb.finish();
        EntryPoint {
            name: "main",
            version,
            shader_model: sm,
            signatures: sigs,
            resources,
            module_resources: resources,
            properties: None,
        }
        .declare(&mut m, fi);
        let bitcode = write_module(&m).expect("the writer takes the built module");
        let program = ProgramVersion {
            kind,
            major: 6,
            minor: minor as u8,
        };
        let dxil = dxil_part(program, (1, minor as u8), &bitcode).expect("a DXIL part");
        let psv = psv0(kind, &res);
        write_container(&[(FourCc(*b"PSV0"), &psv), (FourCc::DXIL, &dxil)]).expect("a container")
    }
}

/// A `PSV0` part as validator 1.0 lays it out (DXC `DxilPipelineStateValidation.h`):
/// the 24-byte runtime info (a vertex program's first word says it writes a position;
/// the wave lane range 0 to 0xffffffff of a program without `[WaveSize]`), the resource
/// count and, when there are any, their 16-byte records (type, space, lower and upper
/// bound): the acceleration structure is a raw SRV (type 4).
fn psv0(kind: ProgramKind, res: &[Res]) -> Vec<u8> {
    let position = u32::from(kind == ProgramKind::Vertex);
    let mut words = vec![24, position, 0, 0, 0, 0, u32::MAX];
    let srvs = res.iter().filter(|r| **r == Res::Scene).count() as u32;
    words.push(srvs);
    if srvs > 0 {
        words.extend([16, 4, 0, 0, 0]);
    }
    words.into_iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// The vertex program: the position seen from the pinhole as the ray generation program
/// casts its rays (clip x and y are the camera-space x and y over [`FOV`], w the
/// distance along the camera's axis, depth from [`NEAR`] to [`FAR`]), the world
/// position, colour and normal passed on.
fn box_vertex() -> Vec<u8> {
    let mut l = L::new();
    l.mb.block();
    let p = [0, 1, 2].map(|c| l.load_input(0, c));
    let colour = [0, 1, 2].map(|c| l.load_input(1, c));
    let normal = [0, 1, 2].map(|c| l.load_input(2, c));
    let eye = EYE.map(|c| l.f(c));
    let rel = [0, 1, 2].map(|k| l.sub(p[k], eye[k]));
    let inv_fov = l.f(1.0 / FOV);
    let cx = l.mul(rel[0], inv_fov);
    let cy = l.mul(rel[1], inv_fov);
    let (near, scale) = (l.f(NEAR), l.f(FAR / (FAR - NEAR)));
    let z = l.sub(rel[2], near);
    let cz = l.mul(z, scale);
    for (c, v) in [cx, cy, cz, rel[2]].into_iter().enumerate() {
        l.store_output(0, c as i64, v);
    }
    for (sig, vals) in [(1, p), (2, colour), (3, normal)] {
        for (c, v) in vals.into_iter().enumerate() {
            l.store_output(sig, c as i64, v);
        }
    }
    l.finish_stage(ProgramKind::Vertex, &VS_IN, &VARYINGS)
}

/// The pixel program: the same shading as the closest-hit programs, its shadow found by
/// an inline ray query (`RayQuery<RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH>`) from the
/// interpolated world position to the light over the same acceleration structure: the
/// leaf's non-opaque triangle candidates are committed where the any-hit program would
/// accept them (`frac(4u) < 0.5`), the sphere's procedural candidates where the
/// object-space ray meets the sphere within the shadow ray's interval (the nearer root),
/// and the light is seen when nothing is committed.
fn shadow_pixel() -> Vec<u8> {
    let mut l = L::new();
    let (f32t, i32t) = (l.f32t, l.i32t);
    let i1t = l.mb.int(1);
    let void = l.mb.void();
    l.mb.block(); // 0
    let p = [0, 1, 2].map(|c| l.load_input(1, c));
    let albedo = [0, 1, 2].map(|c| l.load_input(2, c));
    let n = [0, 1, 2].map(|c| l.load_input(3, c));
    let eye = EYE.map(|c| l.f(c));
    let d = [0, 1, 2].map(|k| l.sub(p[k], eye[k]));
    let nd = l.dot(n, d);
    let zero = l.f(0.0);
    let facing_away = l.mb.cmp(OGT, nd, zero);
    let (minus, one) = (l.f(-1.0), l.f(1.0));
    let sign = l.mb.select(facing_away, minus, one);
    let n = n.map(|c| l.mul(c, sign));
    let light = LIGHT.map(|c| l.f(c));
    let lv = [0, 1, 2].map(|k| l.sub(light[k], p[k]));
    let len2 = l.dot(lv, lv);
    let len = l.unary(DxOp::Sqrt, len2);
    let nl = l.dot(n, lv);
    let cos = l.div(nl, len);
    let cos = l.fmax(cos, zero);
    let accept_first = l.i(0x4);
    let rq = l.mb.dx(
        "allocateRayQuery",
        DxOp::AllocateRayQuery,
        &[accept_first],
        i32t,
    );
    let scene = l.handle(Res::Scene);
    let (flags, mask, t_min) = (l.i(0), l.i(0xff), l.f(T_MIN));
    l.mb.dx(
        "rayQuery_TraceRayInline",
        DxOp::RayQuery_TraceRayInline,
        &[
            rq, scene, flags, mask, p[0], p[1], p[2], t_min, lv[0], lv[1], lv[2], one,
        ],
        void,
    );
    l.mb.br(BlockId(1));
    l.mb.block(); // 1: Proceed()
    let more =
        l.mb.dx("rayQuery_Proceed.i1", DxOp::RayQuery_Proceed, &[rq], i1t);
    l.mb.cond_br(more, BlockId(2), BlockId(7));
    l.mb.block(); // 2: the candidate's type
    let kind = l.mb.dx(
        "rayQuery_StateScalar.i32",
        DxOp::RayQuery_CandidateType,
        &[rq],
        i32t,
    );
    let tri = l.i(0);
    // ICmp `eq`.
    let is_tri = l.mb.icmp(32, kind, tri);
    l.mb.cond_br(is_tri, BlockId(3), BlockId(4));
    l.mb.block(); // 3: a non-opaque triangle (the leaf): the any-hit program's rule
    let c0 = l.mb.ci(8, 0);
    let u = l.mb.dx(
        "rayQuery_StateVector.f32",
        DxOp::RayQuery_CandidateTriangleBarycentrics,
        &[rq, c0],
        f32t,
    );
    let stripes = l.f(STRIPES);
    let x = l.mul(u, stripes);
    let fr = l.unary(DxOp::Frc, x);
    let half = l.f(0.5);
    let solid = l.mb.cmp(OLT, fr, half);
    l.mb.cond_br(solid, BlockId(5), BlockId(1));
    l.mb.block(); // 4: a procedural primitive (the sphere): the nearer root
    let o = [0, 1, 2].map(|c| {
        let cv = l.mb.ci(8, c);
        l.mb.dx(
            "rayQuery_StateVector.f32",
            DxOp::RayQuery_CandidateObjectRayOrigin,
            &[rq, cv],
            f32t,
        )
    });
    let dir = [0, 1, 2].map(|c| {
        let cv = l.mb.ci(8, c);
        l.mb.dx(
            "rayQuery_StateVector.f32",
            DxOp::RayQuery_CandidateObjectRayDirection,
            &[rq, cv],
            f32t,
        )
    });
    let a = l.dot(dir, dir);
    let b = l.dot(o, dir);
    let oo = l.dot(o, o);
    let r2 = l.f(SPHERE_RADIUS * SPHERE_RADIUS);
    let c = l.sub(oo, r2);
    let bb = l.mul(b, b);
    let ac = l.mul(a, c);
    let disc = l.sub(bb, ac);
    let s = l.unary(DxOp::Sqrt, disc);
    let nb = l.sub(zero, b);
    let num = l.sub(nb, s);
    let t = l.div(num, a);
    // A negative discriminant makes `t` NaN, which both compares refuse.
    let above = l.mb.cmp(OGE, t, t_min);
    let below = l.mb.cmp(5, t, one); // `ole`
    let inside = l.mb.bin(BinOp::And, above, below, i1t);
    l.mb.cond_br(inside, BlockId(6), BlockId(1));
    l.mb.block(); // 5
    l.mb.dx(
        "rayQuery_CommitNonOpaqueTriangleHit",
        DxOp::RayQuery_CommitNonOpaqueTriangleHit,
        &[rq],
        void,
    );
    l.mb.br(BlockId(1));
    l.mb.block(); // 6
    l.mb.dx(
        "rayQuery_CommitProceduralPrimitiveHit",
        DxOp::RayQuery_CommitProceduralPrimitiveHit,
        &[rq, t],
        void,
    );
    l.mb.br(BlockId(1));
    l.mb.block(); // 7: COMMITTED_NOTHING (0) lets the light through
    let status = l.mb.dx(
        "rayQuery_StateScalar.i32",
        DxOp::RayQuery_CommittedStatus,
        &[rq],
        i32t,
    );
    let nothing = l.i(0);
    let clear = l.mb.icmp(32, status, nothing);
    let lit = l.mb.select(clear, one, zero);
    let (ambient, diffuse) = (l.f(AMBIENT), l.f(DIFFUSE));
    let lc = l.mul(lit, cos);
    let k = l.mul(diffuse, lc);
    let k = l.add(ambient, k);
    let rgb = albedo.map(|c| l.mul(c, k));
    for (c, v) in [rgb[0], rgb[1], rgb[2], one].into_iter().enumerate() {
        l.store_output(0, c as i64, v);
    }
    l.finish_stage(ProgramKind::Pixel, &VARYINGS, &PS_OUT)
}
