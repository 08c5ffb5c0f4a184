//! The corpus amplification program `amplify.as.dxil` (dxil-reader, dxc `as_6_5`) as
//! the amplification stage of a draw, end to end on both engines: it launches a mesh
//! program built here with the project's bitcode builder (`dxil::llvm::build`; the
//! corpus mesh program declares no payload, so it cannot take this one) that reads the
//! payload, writes it to a UAV and draws a quad coloured by it. The container is
//! committed as `tests/jobs/corpus/amplify.ms.dxil` beside the job `amplify_dxil.toml`
//! (which `corpus_jobs` runs too); [`the_committed_container_is_regenerated_unchanged`]
//! keeps it in step with [`mesh`] (`DXLANE_BLESS=1` rewrites it).
//!
//! What the corpus program does, read from its listing (`dxlane disasm`, `amplify.hlsl`):
//! `[numthreads(8, 1, 1)]`; its group shared `struct.Payload.0 = { [4 x float], i32 }`
//! (20 bytes, the entry's payload size) gets `colour = (1, 0, 0, 1)` from every thread
//! and `index = SV_GroupIndex` from every thread — eight unordered stores to one word,
//! so D3D makes it one of 0 … 7 without saying which — then every thread calls
//! `DispatchMesh(3, 1, 1, payload)` (uniform, as the rule asks).
//!
//! The rules (DirectX-Specs, Mesh Shader): "DispatchMesh intrinsic" launches the
//! grid of mesh groups with the payload; "Mesh Payload" gives each of them the payload
//! as the amplification program left it; the mesh groups then rasterize as any mesh
//! program's output.

use dxlane::container::write::{dxil_part, write_container};
use dxlane::container::{FourCc, ProgramKind, ProgramVersion};
use dxlane::dxil::dxop::DxOp;
use dxlane::dxil::llvm::build::{EntryPoint, Mb};
use dxlane::dxil::llvm::write::write_module;
use dxlane::dxil::llvm::{BinOp, CastOp, Constant, InstKind, MdId, Metadata, Type, ValueId};
use dxlane::exec::jit::Engine;

use crate::common;

/// dxc's data layout without 16-bit types, as the corpus program's.
const DL: &str = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64";

/// The payload's size: `[4 x float]` at 0, `i32` at 16.
const PAYLOAD_BYTES: i64 = 20;

/// The bytes each mesh group writes to u0: the payload's five words and its group id.
const STRIDE: usize = 24;

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

/// A vertex output element: id, name, DXIL semantic kind (3 position, 0 arbitrary),
/// interpolation (4 linear without perspective, 2 linear), columns and row; all f32.
fn element(
    mb: &mut Mb,
    id: i64,
    name: &str,
    kind: i64,
    interp: i64,
    cols: i64,
    row: i64,
) -> Option<MdId> {
    let zero = mi(mb, 32, 0);
    let indices = node(mb, vec![zero]);
    let name = Some(mb.md(Metadata::String(name.as_bytes().to_vec())));
    let ops = vec![
        mi(mb, 32, id),
        name,
        mi(mb, 8, 9),
        mi(mb, 8, kind),
        indices,
        mi(mb, 8, interp),
        mi(mb, 32, 1),
        mi(mb, 8, cols),
        mi(mb, 32, row),
        mi(mb, 8, 0),
        None,
    ];
    node(mb, ops)
}

/// `getelementptr inbounds ty, base, 0, path…` to an element of type `leaf` in group
/// shared memory.
fn gep(
    mb: &mut Mb,
    ty: dxlane::dxil::llvm::TypeId,
    base: ValueId,
    path: &[i64],
    leaf: dxlane::dxil::llvm::TypeId,
) -> ValueId {
    let mut indices = vec![mb.ci(32, 0)];
    for &k in path {
        indices.push(mb.ci(32, k));
    }
    let pt = mb.t(Type::Pointer {
        pointee: leaf,
        address_space: 3,
    });
    mb.push(
        InstKind::Gep {
            inbounds: true,
            source_ty: ty,
            base,
            indices,
            explicit_type: true,
        },
        pt,
    )
}

/// `amplify.ms.dxil`, the `ms_6_5` program (`[numthreads(1, 1, 1)]`,
/// `[outputtopology("triangle")]`, at most 4 vertices and 2 triangles, a 20-byte
/// payload):
///
/// ```hlsl
/// struct Payload { float4 colour; uint index; };   // as amplify.hlsl declares it
/// struct V { float4 pos : SV_Position; float3 colour : COLOR; };
/// RWByteAddressBuffer Out : register(u0);
/// void main(uint3 g : SV_GroupID, in payload Payload p,
///           out vertices V v[4], out indices uint3 t[2]) {
///     SetMeshOutputCounts(4, 2);
///     float x = g.x * 0.5 - 1;          // column g of a 4-pixel-wide target
///     for (uint i = 0; i < 4; i++)
///         v[i] = { float4(x + 0.5 * (i & 1), (i & 2) ? -1 : 1, 0, 1), p.colour.xyz };
///     t[0] = uint3(0, 1, 2); t[1] = uint3(2, 1, 3);
///     Out.Store4(24 * g.x, asuint(p.colour));
///     Out.Store2(24 * g.x + 16, uint2(p.index, g.x));
/// }
/// ```
fn mesh() -> Vec<u8> {
    let mut mb = Mb::new(DL);
    mb.block();
    let (i32t, f32t) = (mb.int(32), mb.t(Type::Float));
    let void = mb.void();
    let floats = mb.t(Type::Array {
        len: 4,
        element: f32t,
    });
    let payload_ty = mb.named("struct.Payload", vec![floats, i32t]);
    let pt = mb.t(Type::Pointer {
        pointee: payload_ty,
        address_space: 3,
    });
    let (zero, four, two) = (mb.ci(32, 0), mb.ci(32, 4), mb.ci(32, 2));
    mb.dx(
        "setMeshOutputCounts",
        DxOp::SetMeshOutputCounts,
        &[four, two],
        void,
    );
    let out = mb.handle(1, 0, 0);
    let p = mb.dx(
        "getMeshPayload.struct.Payload",
        DxOp::GetMeshPayload,
        &[],
        pt,
    );
    let colour: Vec<ValueId> = (0..4)
        .map(|c| {
            let at = gep(&mut mb, payload_ty, p, &[0, c], f32t);
            mb.load(at, f32t)
        })
        .collect();
    let at = gep(&mut mb, payload_ty, p, &[1], i32t);
    let index = mb.load(at, i32t);
    let g = mb.dx("groupId.i32", DxOp::GroupId, &[zero], i32t);
    let f = |mb: &mut Mb, x: f32| mb.c(f32t, Constant::Float(u64::from(x.to_bits())));
    let gf = mb.cast(CastOp::UiToFp, g, f32t);
    let half = f(&mut mb, 0.5);
    let minus_one = f(&mut mb, -1.0);
    let x = mb.bin(BinOp::Mul, gf, half, f32t);
    let x = mb.bin(BinOp::Add, x, minus_one, f32t);
    for v in 0..4i64 {
        let vi = mb.ci(32, v);
        let vx = if v & 1 != 0 {
            mb.bin(BinOp::Add, x, half, f32t)
        } else {
            x
        };
        let vy = f(&mut mb, if v & 2 != 0 { -1.0 } else { 1.0 });
        let (z, w) = (f(&mut mb, 0.0), f(&mut mb, 1.0));
        let rows = [(0, vec![vx, vy, z, w]), (1, colour[..3].to_vec())];
        for (sig, values) in rows {
            let sig = mb.ci(32, sig);
            for (col, value) in values.into_iter().enumerate() {
                let c = mb.ci(8, col as i64);
                mb.dx(
                    "storeVertexOutput.f32",
                    DxOp::StoreVertexOutput,
                    &[sig, zero, c, value, vi],
                    void,
                );
            }
        }
    }
    for (t, idx) in [[0, 1, 2], [2, 1, 3]].into_iter().enumerate() {
        let ti = mb.ci(32, t as i64);
        let idx = idx.map(|i| mb.ci(32, i));
        mb.dx(
            "emitIndices",
            DxOp::EmitIndices,
            &[ti, idx[0], idx[1], idx[2]],
            void,
        );
    }
    let stride = mb.ci(32, STRIDE as i64);
    let base = mb.bin(BinOp::Mul, g, stride, i32t);
    let mut words: Vec<ValueId> = colour
        .iter()
        .map(|&c| mb.cast(CastOp::BitCast, c, i32t))
        .collect();
    words.extend([index, g]);
    for (k, w) in words.into_iter().enumerate() {
        let off = mb.ci(32, 4 * k as i64);
        let at = mb.bin(BinOp::Add, base, off, i32t);
        mb.store_word(out, at, w);
    }
    mb.ret();
    container(mb)
}

/// Finishes `mb` as the `ms_6_5` entry `main` of [`mesh`]: raw UAV u0, the vertex
/// signature `SV_Position` (row 0) and `COLOR` (float3, row 1), and the mesh state.
fn container(mut mb: Mb) -> Vec<u8> {
    let version = [mi(&mut mb, 32, 1), mi(&mut mb, 32, 5)];
    let version = node(&mut mb, version.to_vec());
    let p = Some(mb.md(Metadata::String(b"ms".to_vec())));
    let sm = [p, mi(&mut mb, 32, 6), mi(&mut mb, 32, 5)];
    let sm = node(&mut mb, sm.to_vec());
    let name = Some(mb.md(Metadata::String(Vec::new())));
    // UAV 0 at u0, space 0, one element, raw buffer (kind 11), no counter.
    let ops = vec![
        mi(&mut mb, 32, 0),
        None,
        name,
        mi(&mut mb, 32, 0),
        mi(&mut mb, 32, 0),
        mi(&mut mb, 32, 1),
        mi(&mut mb, 32, 11),
        mi(&mut mb, 1, 0),
        mi(&mut mb, 1, 0),
        mi(&mut mb, 1, 0),
        None,
    ];
    let uav = node(&mut mb, ops);
    let uavs = node(&mut mb, vec![uav]);
    let resources = node(&mut mb, vec![None, uavs, None, None]);
    let position = element(&mut mb, 0, "SV_Position", 3, 4, 4, 0);
    let colour = element(&mut mb, 1, "COLOR", 0, 2, 3, 1);
    let outs = node(&mut mb, vec![position, colour]);
    let signatures = node(&mut mb, vec![None, outs, None]);
    let threads = [1, 1, 1].map(|x| mi(&mut mb, 32, x));
    let mut state = vec![node(&mut mb, threads.to_vec())];
    // Max vertices, max primitives, topology (2: triangle), payload bytes.
    for v in [4, 2, 2, PAYLOAD_BYTES] {
        state.push(mi(&mut mb, 32, v));
    }
    let state = node(&mut mb, state);
    let props = [mi(&mut mb, 32, 9), state];
    let props = node(&mut mb, props.to_vec());
    let (mut m, fi) = mb.finish();
    EntryPoint {
        name: "main",
        version,
        shader_model: sm,
        signatures,
        resources,
        module_resources: resources,
        properties: props,
    }
    .declare(&mut m, fi);
    let bitcode = write_module(&m).expect("the writer takes the built module");
    let program = ProgramVersion {
        kind: ProgramKind::Mesh,
        major: 6,
        minor: 5,
    };
    let dxil = dxil_part(program, (1, 5), &bitcode).unwrap();
    write_container(&[(FourCc::DXIL, &dxil)]).unwrap()
}

#[test]
fn the_committed_container_is_regenerated_unchanged() {
    common::check_built_files("tests/jobs/corpus", vec![("amplify.ms.dxil", mesh())]);
}

/// The corpus program's listing states what the derivation in this file's header read
/// from it: eight threads, a 20-byte payload, `DispatchMesh(3, 1, 1, …)`.
#[test]
fn the_corpus_amplification_program_is_as_read() {
    let Some(corpus) = common::corpora()
        .iter()
        .find(|d| d.ends_with("dxil-reader"))
    else {
        eprintln!("SKIPPED mesh_amplify_corpus: no corpora");
        return;
    };
    let bytes = std::fs::read(corpus.join("amplify.as.dxil")).unwrap();
    let p = dxlane::lower::load(&bytes, &dxlane::lower::LoadOptions::default()).unwrap();
    let s = &p.shader;
    assert_eq!(s.thread_group, [8, 1, 1]);
    assert_eq!(s.mesh.expect("the amplification state").payload_bytes, 20);
}

/// DirectX-Specs Mesh Shader, "DispatchMesh intrinsic" and "Mesh Payload": one
/// amplification group of the corpus program launches three mesh groups (g = 0, 1, 2),
/// each given the 20-byte payload the group left: colour (1, 0, 0, 1) and one index of
/// 0 … 7 (the eight racing stores; the same in every mesh group, since they share one
/// payload). Each mesh group writes the payload and g to u0 at 24g and draws column g of
/// the 4 × 1 target in the payload's colour (pixel centre x = (2g + 1) / 4 − 1 lies in
/// the quad [g / 2 − 1, g / 2 − 0.5]); column 3 keeps the clear 0. Both engines; the
/// same targets and bytes from each.
#[test]
fn the_corpus_amplification_program_launches_three_coloured_mesh_groups() {
    let Some(corpus) = common::corpora()
        .iter()
        .find(|d| d.ends_with("dxil-reader"))
    else {
        eprintln!("SKIPPED mesh_amplify_corpus: no corpora");
        return;
    };
    let root = corpus.parent().unwrap();
    let path = crate::corpus_jobs::staged("amplify_dxil.toml", root);
    let mut seen = Vec::new();
    for engine in [Engine::Interp, Engine::Jit] {
        let job = dxlane::job::Job::load(&path).unwrap();
        let opts = dxlane::job::RunOptions {
            engine: Some(engine),
            ..common::run_options()
        };
        let r = dxlane::job::run_draw_job(job, &opts).unwrap_or_else(|e| panic!("{engine}: {e}"));
        assert_eq!(r.summary.draw.amplification_groups, 1, "{engine}");
        assert_eq!(r.summary.draw.mesh_groups, 3, "{engine}");
        // Two triangles a group.
        assert_eq!(r.summary.draw.primitives, 6, "{engine}");
        let e = &r.summary.expectations;
        assert_eq!((e.passed, e.failed), (7, 0), "{engine}");
        let u0 = r.bound.resources[0].memory().unwrap().to_bytes();
        let word = |i: usize| u32::from_le_bytes(u0[4 * i..4 * i + 4].try_into().unwrap());
        let index = word(4);
        assert!(index < 8, "{engine}: payload index {index}");
        for g in 0..3 {
            let at = g * STRIDE / 4;
            let colour: Vec<f32> = (0..4).map(|k| f32::from_bits(word(at + k))).collect();
            assert_eq!(colour, [1.0, 0.0, 0.0, 1.0], "{engine}: group {g}");
            assert_eq!(word(at + 4), index, "{engine}: group {g}'s payload index");
            assert_eq!(word(at + 5), g as u32, "{engine}: group {g}");
        }
        let target = r.targets[0].view.texture.to_bytes();
        seen.push((u0, target));
    }
    assert!(seen[0] == seen[1], "the engines disagree");
}
