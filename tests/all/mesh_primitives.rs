//! Per-primitive attributes from a DXIL mesh program to a DXIL pixel program, both
//! hand-built with the project's bitcode builder (`dxil::llvm::build`; no dxc here) and
//! committed under `tests/jobs/mesh_primitives/` next to the job that draws them:
//! [`the_committed_containers_are_regenerated_unchanged`] keeps the files in step with
//! the builders below (`DXLANE_BLESS=1` rewrites them). The job's expected pixels are
//! derived by hand in its comments and the test runs it on both engines.
//!
//! The rules (DirectX-Specs, Mesh Shader): "Per-primitive attributes" are written by
//! `StorePrimitiveOutput` into the mesh program's primitive signature, which DXIL keeps
//! as the entry's third signature list; a pixel program reads them as `nointerpolation`
//! inputs linked by semantic, as it links per-vertex attributes ("Interaction of
//! per-primitive attributes with the pixel shader"); `SV_PrimitiveID` is a primitive
//! output the pixel program reads as written ("SV_PrimitiveID in the Pixel Shader"); a
//! primitive whose `SV_CullPrimitive` is true is not rasterized ("SV_CullPrimitive").
//! A `nointerpolation` per-vertex attribute takes the leading (first) vertex's value
//! (D3D11.3 §8.14, "Leading Vertex").

use dxlane::container::write::{dxil_part, write_container};
use dxlane::container::{FourCc, ProgramKind, ProgramVersion};
use dxlane::dxil::dxop::DxOp;
use dxlane::dxil::llvm::build::{EntryPoint, Mb};
use dxlane::dxil::llvm::write::write_module;
use dxlane::dxil::llvm::{Constant, MdId, Metadata, Type, ValueId};
use dxlane::lower::{LoadOptions, load};

use crate::common;

/// dxc's data layout without 16-bit types (DXIL.rst, "Target Triple and Data Layout").
const DL: &str = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64";

/// The folder of the committed containers and their job.
const FOLDER: &str = "tests/jobs/mesh_primitives";

/// A signature element as DXIL's metadata states it: semantic name and kind (DXIL
/// `SemanticKind`), component type (`ComponentType`: 1 i1, 5 u32, 9 f32), interpolation
/// (`InterpolationMode`: 1 constant, 4 linear without perspective), columns, and start
/// row and column (-1 for a value kept out of the packed rows, `NotInSig`).
struct Sig {
    name: &'static str,
    kind: i64,
    ty: i64,
    interp: i64,
    cols: i64,
    row: i64,
    col: i64,
}

const fn sig(name: &'static str, kind: i64, ty: i64, interp: i64, cols: i64, row: i64) -> Sig {
    Sig {
        name,
        kind,
        ty,
        interp,
        cols,
        row,
        col: 0,
    }
}

/// The mesh program's vertex outputs and the pixel program's first inputs.
const SV_POSITION: Sig = sig("SV_Position", 3, 9, 4, 4, 0);
const VID: Sig = sig("VID", 0, 5, 1, 1, 1);
/// The mesh program's primitive outputs: ATTR (uint2), SV_PrimitiveID, and
/// SV_CullPrimitive (a bool kept out of the packed rows, as dxc keeps it).
const ATTR_OUT: Sig = sig("ATTR", 0, 5, 1, 2, 0);
const PRIM_ID_OUT: Sig = sig("SV_PrimitiveID", 10, 5, 1, 1, 1);
const CULL: Sig = Sig {
    name: "SV_CullPrimitive",
    kind: 30,
    ty: 1,
    interp: 1,
    cols: 1,
    row: -1,
    col: -1,
};
/// The pixel program's per-primitive inputs, at rows of its own signature.
const ATTR_IN: Sig = sig("ATTR", 0, 5, 1, 2, 2);
const PRIM_ID_IN: Sig = sig("SV_PrimitiveID", 10, 5, 1, 1, 3);
const SV_TARGET: Sig = sig("SV_Target", 16, 5, 0, 4, 0);

fn mi(mb: &mut Mb, bits: u32, v: i64) -> Option<MdId> {
    let c = mb.ci(bits, v);
    let t = mb.int(bits);
    Some(mb.md(Metadata::Value { ty: t, value: c }))
}

fn node(mb: &mut Mb, ops: Vec<Option<MdId>>) -> Option<MdId> {
    Some(mb.md(Metadata::Node {
        distinct: false,
        ops,
    }))
}

/// A signature list's node (None when empty); element ids count from 0.
fn sig_list(mb: &mut Mb, sigs: &[&Sig]) -> Option<MdId> {
    if sigs.is_empty() {
        return None;
    }
    let mut list = Vec::new();
    for (id, s) in sigs.iter().enumerate() {
        let zero = mi(mb, 32, 0);
        let indices = node(mb, vec![zero]);
        let name = Some(mb.md(Metadata::String(s.name.as_bytes().to_vec())));
        let ops = vec![
            mi(mb, 32, id as i64),
            name,
            mi(mb, 8, s.ty),
            mi(mb, 8, s.kind),
            indices,
            mi(mb, 8, s.interp),
            mi(mb, 32, 1),
            mi(mb, 8, s.cols),
            mi(mb, 32, s.row),
            mi(mb, 8, s.col),
            None,
        ];
        list.push(node(mb, ops));
    }
    node(mb, list)
}

/// Finishes `mb` as the entry `main` of an `ms_6_5` or `ps_6_5` program with its
/// signature lists (inputs, outputs, and a mesh program's primitive outputs) and, for
/// the mesh program, its state (tag 9), in a container of its DXIL part.
fn container(mut mb: Mb, kind: ProgramKind, lists: [&[&Sig]; 3], state: Vec<i64>) -> Vec<u8> {
    let profile = if kind == ProgramKind::Mesh {
        "ms"
    } else {
        "ps"
    };
    let version = [mi(&mut mb, 32, 1), mi(&mut mb, 32, 5)];
    let version = node(&mut mb, version.to_vec());
    let p = Some(mb.md(Metadata::String(profile.as_bytes().to_vec())));
    let sm = [p, mi(&mut mb, 32, 6), mi(&mut mb, 32, 5)];
    let sm = node(&mut mb, sm.to_vec());
    let lists = lists.map(|l| sig_list(&mut mb, l));
    let signatures = node(&mut mb, lists.to_vec());
    let props = if kind == ProgramKind::Mesh {
        let threads = [1, 1, 1].map(|x| mi(&mut mb, 32, x));
        let mut s = vec![node(&mut mb, threads.to_vec())];
        for v in state {
            s.push(mi(&mut mb, 32, v));
        }
        let s = node(&mut mb, s);
        let ops = [mi(&mut mb, 32, 9), s];
        node(&mut mb, ops.to_vec())
    } else {
        None
    };
    mb.ret();
    let (mut m, fi) = mb.finish();
    EntryPoint {
        name: "main",
        version,
        shader_model: sm,
        signatures,
        resources: None,
        module_resources: None,
        properties: props,
    }
    .declare(&mut m, fi);
    let bitcode = write_module(&m).expect("the writer takes the built module");
    let program = ProgramVersion {
        kind,
        major: 6,
        minor: 5,
    };
    let dxil = dxil_part(program, (1, 5), &bitcode).unwrap();
    write_container(&[(FourCc::DXIL, &dxil)]).unwrap()
}

/// Each primitive the mesh program writes: its indices, `SV_PrimitiveID`, ATTR and
/// `SV_CullPrimitive`.
const PRIMITIVES: [([i64; 3], i64, [i64; 2], bool); 3] = [
    ([0, 1, 2], 10, [0xa0, 7], false),
    ([0, 1, 3], 11, [0xa1, 8], true),
    ([1, 3, 2], 12, [0xa2, 9], false),
];

/// The `ms_6_5` program (`[numthreads(1, 1, 1)]`, `[outputtopology("triangle")]`, at
/// most 4 vertices and 3 primitives):
///
/// ```hlsl
/// struct V { float4 pos : SV_Position; nointerpolation uint vid : VID; };
/// struct P { uint2 attr : ATTR; uint id : SV_PrimitiveID; bool cull : SV_CullPrimitive; };
/// void main(out vertices V v[4], out indices uint3 t[3], out primitives P p[3]) {
///     SetMeshOutputCounts(4, 3);
///     for (uint i = 0; i < 4; i++)      // the corners of the clip square
///         v[i] = { float4((i & 1) ? 1 : -1, (i & 2) ? -1 : 1, 0, 1), 100 + i };
///     t[0] = uint3(0, 1, 2); p[0] = { uint2(0xa0, 7), 10, false };
///     t[1] = uint3(0, 1, 3); p[1] = { uint2(0xa1, 8), 11, true };
///     t[2] = uint3(1, 3, 2); p[2] = { uint2(0xa2, 9), 12, false };
/// }
/// ```
fn mesh() -> Vec<u8> {
    let mut mb = Mb::new(DL);
    mb.block();
    let f32t = mb.t(Type::Float);
    let void = mb.void();
    let (four, three) = (mb.ci(32, 4), mb.ci(32, 3));
    mb.dx(
        "setMeshOutputCounts",
        DxOp::SetMeshOutputCounts,
        &[four, three],
        void,
    );
    let f = |mb: &mut Mb, x: f32| mb.c(f32t, Constant::Float(u64::from(x.to_bits())));
    let zero = mb.ci(32, 0);
    for v in 0..4i64 {
        let x = if v & 1 != 0 { 1.0 } else { -1.0 };
        let y = if v & 2 != 0 { -1.0 } else { 1.0 };
        let vi = mb.ci(32, v);
        for (col, val) in [x, y, 0.0, 1.0].into_iter().enumerate() {
            let c = mb.ci(8, col as i64);
            let val = f(&mut mb, val);
            mb.dx(
                "storeVertexOutput.f32",
                DxOp::StoreVertexOutput,
                &[zero, zero, c, val, vi],
                void,
            );
        }
        let (one, c0, id) = (mb.ci(32, 1), mb.ci(8, 0), mb.ci(32, 100 + v));
        mb.dx(
            "storeVertexOutput.i32",
            DxOp::StoreVertexOutput,
            &[one, zero, c0, id, vi],
            void,
        );
    }
    for (p, (idx, id, attr, cull)) in PRIMITIVES.into_iter().enumerate() {
        let pi = mb.ci(32, p as i64);
        let idx = idx.map(|i| mb.ci(32, i));
        mb.dx(
            "emitIndices",
            DxOp::EmitIndices,
            &[pi, idx[0], idx[1], idx[2]],
            void,
        );
        let store = |mb: &mut Mb, elem: i64, col: i64, v: ValueId, name: &str| {
            let (e, c) = (mb.ci(32, elem), mb.ci(8, col));
            mb.dx(name, DxOp::StorePrimitiveOutput, &[e, zero, c, v, pi], void);
        };
        for (col, a) in attr.into_iter().enumerate() {
            let a = mb.ci(32, a);
            store(&mut mb, 0, col as i64, a, "storePrimitiveOutput.i32");
        }
        let id = mb.ci(32, id);
        store(&mut mb, 1, 0, id, "storePrimitiveOutput.i32");
        let cull = mb.ci(1, i64::from(cull));
        store(&mut mb, 2, 0, cull, "storePrimitiveOutput.i1");
    }
    // max vertices, max primitives, topology (2: triangle), payload bytes.
    container(
        mb,
        ProgramKind::Mesh,
        [
            &[],
            &[&SV_POSITION, &VID],
            &[&ATTR_OUT, &PRIM_ID_OUT, &CULL],
        ],
        vec![4, 3, 2, 0],
    )
}

/// The `ps_6_5` program:
///
/// ```hlsl
/// uint4 main(float4 pos : SV_Position, nointerpolation uint vid : VID,
///            nointerpolation uint2 attr : ATTR, uint id : SV_PrimitiveID) : SV_Target {
///     return uint4(id, attr, vid);
/// }
/// ```
fn pixel() -> Vec<u8> {
    let mut mb = Mb::new(DL);
    mb.block();
    let i32t = mb.int(32);
    let void = mb.void();
    let u = mb.undef(i32t);
    let zero = mb.ci(32, 0);
    let load = |mb: &mut Mb, elem: i64, col: i64| {
        let (e, c) = (mb.ci(32, elem), mb.ci(8, col));
        mb.dx("loadInput.i32", DxOp::LoadInput, &[e, zero, c, u], i32t)
    };
    let vid = load(&mut mb, 1, 0);
    let ax = load(&mut mb, 2, 0);
    let ay = load(&mut mb, 2, 1);
    let id = load(&mut mb, 3, 0);
    for (col, v) in [id, ax, ay, vid].into_iter().enumerate() {
        let c = mb.ci(8, col as i64);
        mb.dx(
            "storeOutput.i32",
            DxOp::StoreOutput,
            &[zero, zero, c, v],
            void,
        );
    }
    container(
        mb,
        ProgramKind::Pixel,
        [
            &[&SV_POSITION, &VID, &ATTR_IN, &PRIM_ID_IN],
            &[&SV_TARGET],
            &[],
        ],
        Vec::new(),
    )
}

/// The containers of `tests/jobs/mesh_primitives/`, by file name.
fn containers() -> Vec<(&'static str, Vec<u8>)> {
    vec![("prim.ms.dxil", mesh()), ("prim.ps.dxil", pixel())]
}

#[test]
fn the_committed_containers_are_regenerated_unchanged() {
    common::check_built_files(FOLDER, containers());
}

/// Both programs lower and validate; the mesh program's primitive outputs are its
/// primitive signature's three elements.
#[test]
fn the_programs_lower_with_their_primitive_signature() {
    for (name, bytes) in containers() {
        let p = load(&bytes, &LoadOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        dxlane::ir::validate(&p.shader).unwrap_or_else(|e| panic!("{name}: {e}"));
        if name == "prim.ms.dxil" {
            let names: Vec<&str> = p
                .shader
                .primitive_outputs
                .iter()
                .map(|e| e.semantic.as_str())
                .collect();
            assert_eq!(names, ["ATTR", "SV_PrimitiveID", "SV_CullPrimitive"]);
        }
    }
}

/// DirectX-Specs Mesh Shader: the pixel program reads each pixel's primitive's
/// `SV_PrimitiveID` and ATTR as the mesh program wrote them, and the leading vertex's
/// `nointerpolation` VID; the primitive marked `SV_CullPrimitive` draws nothing. Every
/// pixel is derived in `prim.toml`.
#[test]
fn per_primitive_attributes_reach_the_pixel_program() {
    let path = common::root().join(FOLDER).join("prim.toml");
    let (failures, counts) =
        common::expect_both(&path, "mesh_primitives").unwrap_or_else(|e| panic!("{e}"));
    assert!(
        failures.is_empty(),
        "mesh_primitives:\n{}",
        failures.join("\n")
    );
    assert_eq!(counts, (1, 0));
}
