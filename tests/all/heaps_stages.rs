//! SM 6.6 dynamic resources (`ResourceDescriptorHeap[i]`, `SamplerDescriptorHeap[i]`:
//! DXIL `CreateHandleFromHeap` then `AnnotateHandle`) in the geometry, hull, domain,
//! amplification and mesh stages, in programs built with the project's bitcode builder
//! (`dxil::llvm::build`; no dxc here) and committed under `tests/jobs/heaps_stages/` next
//! to the jobs that draw them: [`the_committed_containers_are_regenerated_unchanged`]
//! keeps the files in step with the builders below (`DXLANE_BLESS=1` rewrites them).
//! (The pixel and vertex stages' heap tests are in `lower_dxil_sample_cmp.rs`.)
//!
//! The rule (DirectX-Specs, "HLSL SM 6.6 Dynamic Resources"): the heaps bound with
//! `SetDescriptorHeaps` are reachable from every shader stage by index, with no
//! declaration in the program; `CreateHandleFromHeap(index, samplerHeap,
//! nonUniform)` picks the resource heap or the sampler heap by its second operand
//! (DXIL.rst, opcode 218), and `AnnotateHandle` (216) states the view's kind.
//!
//! Every program runs the same body, [`heap_body`], with a stage-specific index `k` and
//! byte base, so one hand derivation covers all: heap slot 1 is a raw buffer of the
//! floats 10, 20, 30, …; slot 2 a 2 × 1 `R32_FLOAT` texture (0.25, 0.75); sampler heap
//! slot 0 a linear sampler and slot 1 a point sampler; slot 0 the raw UAV written. A
//! lane writes `(B[k], T.SampleLevel(SamplerDescriptorHeap[1], (0.5, 0.5), 0))` at byte
//! `base + 8k` of the UAV: `B[k] = 10 (k + 1)`; at u = 0.5 the texel-space coordinate
//! is 0.5 · 2 = 1, so point filtering reads texel ⌊1⌋ = 1, 0.75 (D3D11.3 §7.18.7),
//! where the linear sampler of slot 0 would weigh texels 0 and 1 by ½ each (1 − 0.5)
//! and give 0.5 — so 0.75 also shows the sampler heap's index was used.

use dxlane::container::write::{dxil_part, write_container};
use dxlane::container::{FourCc, ProgramKind, ProgramVersion};
use dxlane::dxil::dxop::DxOp;
use dxlane::dxil::llvm::build::{EntryPoint, Mb};
use dxlane::dxil::llvm::write::write_module;
use dxlane::dxil::llvm::{BinOp, CastOp, Constant, InstKind, MdId, Metadata, Type, ValueId};
use dxlane::lower::{LoadOptions, load};

use crate::common;

/// dxc's data layout (without 16-bit types).
const DL: &str = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64";

/// The folder of the committed containers and their jobs.
const FOLDER: &str = "tests/jobs/heaps_stages";

/// Each stage's byte base in the UAV (`ResourceDescriptorHeap[0]`).
const GS_BASE: i64 = 0;
const HS_BASE: i64 = 64;
const DS_BASE: i64 = 128;
const AS_BASE: i64 = 192;
const MS_BASE: i64 = 256;

/// A signature element: name, DXIL semantic kind (0 arbitrary, 3 position, 10
/// primitive ID, 25 `TessFactor`, 26 `InsideTessFactor`), component type (5 u32, 9
/// f32), interpolation (0 undefined, 2 linear), rows, columns, start row and column (-1
/// for a value kept out of the packed rows).
struct Sig(&'static str, i64, i64, i64, i64, i64, i64, i64);

const POSITION: Sig = Sig("POSITION", 0, 9, 2, 1, 4, 0, 0);
const SV_POSITION: Sig = Sig("SV_Position", 3, 9, 4, 1, 4, 0, 0);
const TEXCOORD: Sig = Sig("TEXCOORD", 0, 9, 2, 1, 2, 1, 0);
const PRIMITIVE_ID: Sig = Sig("SV_PrimitiveID", 10, 5, 0, 1, 1, -1, -1);
/// A tri domain's factors, packed as dxc packs them (the corpus `tessellation.hs`).
const TESS_FACTOR: Sig = Sig("SV_TessFactor", 25, 9, 0, 3, 1, 0, 3);
const INSIDE_FACTOR: Sig = Sig("SV_InsideTessFactor", 26, 9, 0, 1, 1, 3, 0);

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
        let rows: Vec<_> = (0..s.4).map(|i| mi(mb, 32, i)).collect();
        let indices = node(mb, rows);
        let name = Some(mb.md(Metadata::String(s.0.as_bytes().to_vec())));
        let ops = vec![
            mi(mb, 32, id as i64),
            name,
            mi(mb, 8, s.2),
            mi(mb, 8, s.1),
            indices,
            mi(mb, 8, s.3),
            mi(mb, 32, s.4),
            mi(mb, 8, s.5),
            mi(mb, 32, s.6),
            mi(mb, 8, s.7),
            None,
        ];
        list.push(node(mb, ops));
    }
    node(mb, list)
}

/// A stage property's value: an integer, a node of integers (a thread group), a
/// function (a hull state's patch-constant function, by index) or a float.
enum Prop {
    Int(i64),
    Threads([i64; 3]),
    Function(usize),
    Float(f32),
}

/// Finishes `mb` (whose `main` body is pushed) as an SM 6.6 entry point `main` of `kind`
/// with its three signature lists and its stage property (`tag`, `values`), in a
/// container of its DXIL part.
fn container(
    mut mb: Mb,
    kind: ProgramKind,
    lists: [&[&Sig]; 3],
    tag: i64,
    values: Vec<Prop>,
) -> Vec<u8> {
    mb.ret();
    let profile = match kind {
        ProgramKind::Geometry => "gs",
        ProgramKind::Hull => "hs",
        ProgramKind::Domain => "ds",
        ProgramKind::Mesh => "ms",
        _ => "as",
    };
    let version = [mi(&mut mb, 32, 1), mi(&mut mb, 32, 6)];
    let version = node(&mut mb, version.to_vec());
    let p = Some(mb.md(Metadata::String(profile.as_bytes().to_vec())));
    let sm = [p, mi(&mut mb, 32, 6), mi(&mut mb, 32, 6)];
    let sm = node(&mut mb, sm.to_vec());
    let lists = lists.map(|l| sig_list(&mut mb, l));
    let signatures = if lists.iter().all(Option::is_none) {
        None
    } else {
        node(&mut mb, lists.to_vec())
    };
    let f32t = mb.t(Type::Float);
    let mut state = Vec::new();
    for v in values {
        state.push(match v {
            Prop::Int(x) => mi(&mut mb, 32, x),
            Prop::Threads(t) => {
                let t = t.map(|x| mi(&mut mb, 32, x));
                node(&mut mb, t.to_vec())
            }
            Prop::Function(fi) => {
                let f = &mb.m.functions[fi];
                let (ty, value) = (f.ptr_ty, f.value);
                Some(mb.md(Metadata::Value { ty, value }))
            }
            Prop::Float(x) => {
                let c = mb.c(f32t, Constant::Float(u64::from(x.to_bits())));
                Some(mb.md(Metadata::Value { ty: f32t, value: c }))
            }
        });
    }
    let state = node(&mut mb, state);
    let props = [mi(&mut mb, 32, tag), state];
    let props = node(&mut mb, props.to_vec());
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
        minor: 6,
    };
    let dxil = dxil_part(program, (1, 6), &bitcode).unwrap();
    write_container(&[(FourCc::DXIL, &dxil)]).unwrap()
}

/// `CreateHandleFromHeap(slot, sampler, nonUniform = false)` annotated with the
/// `DxilResourceProperties` words `props` (byte 0 the resource kind, bit 12 a UAV).
fn heap_handle(mb: &mut Mb, slot: i64, sampler: bool, props: [i64; 2]) -> ValueId {
    let i32t = mb.int(32);
    let ht = mb.handle_ty();
    let props_ty = mb.named("dx.types.ResourceProperties", vec![i32t, i32t]);
    let (slot, sampler, no) = (mb.ci(32, slot), mb.ci(1, i64::from(sampler)), mb.ci(1, 0));
    let h = mb.dx(
        "createHandleFromHeap",
        DxOp::CreateHandleFromHeap,
        &[slot, sampler, no],
        ht,
    );
    let words = props.map(|x| mb.ci(32, x));
    let props = mb.c(props_ty, Constant::Aggregate(words.to_vec()));
    mb.dx("annotateHandle", DxOp::AnnotateHandle, &[h, props], ht)
}

fn float(mb: &mut Mb, x: f32) -> ValueId {
    let f32t = mb.t(Type::Float);
    mb.c(f32t, Constant::Float(u64::from(x.to_bits())))
}

/// The body every program runs with its index `k` (an i32) and its byte `base`:
///
/// ```hlsl
/// RWByteAddressBuffer U = ResourceDescriptorHeap[0];
/// ByteAddressBuffer B = ResourceDescriptorHeap[1];
/// Texture2D<float> T = ResourceDescriptorHeap[2];
/// SamplerState S = SamplerDescriptorHeap[1];
/// U.Store2(base + 8 * k, asuint(float2(asfloat(B.Load(4 * k)),
///                                      T.SampleLevel(S, float2(0.5, 0.5), 0))));
/// ```
fn heap_body(mb: &mut Mb, k: ValueId, base: i64) {
    let (i32t, f32t) = (mb.int(32), mb.t(Type::Float));
    // RWByteAddressBuffer: kind 11 with the UAV bit; ByteAddressBuffer: kind 11;
    // Texture2D<float>: kind 2, component type F32 (9) × 1; SamplerState: kind 14.
    let u = heap_handle(mb, 0, false, [11 | 1 << 12, 0]);
    let b = heap_handle(mb, 1, false, [11, 0]);
    let t = heap_handle(mb, 2, false, [2, 9 | 1 << 8]);
    let s = heap_handle(mb, 1, true, [14, 0]);
    let rt = mb.named("dx.types.ResRet.f32", vec![f32t, f32t, f32t, f32t, i32t]);
    let (iu, fu) = (mb.undef(i32t), mb.undef(f32t));
    let four = mb.ci(32, 4);
    let at = mb.bin(BinOp::Mul, k, four, i32t);
    let (mask, align) = (mb.ci(8, 1), mb.ci(32, 4));
    let r = mb.dx(
        "rawBufferLoad.f32",
        DxOp::RawBufferLoad,
        &[b, at, iu, mask, align],
        rt,
    );
    let w = mb.extract_value(r, 0, f32t);
    let (half, zero) = (float(mb, 0.5), float(mb, 0.0));
    let r = mb.dx(
        "sampleLevel.f32",
        DxOp::SampleLevel,
        &[t, s, half, half, fu, fu, iu, iu, iu, zero],
        rt,
    );
    let x = mb.extract_value(r, 0, f32t);
    let eight = mb.ci(32, 8);
    let off = mb.bin(BinOp::Mul, k, eight, i32t);
    let base = mb.ci(32, base);
    let at = mb.bin(BinOp::Add, off, base, i32t);
    let w = mb.cast(CastOp::BitCast, w, i32t);
    mb.store_word(u, at, w);
    let at = mb.bin(BinOp::Add, at, four, i32t);
    let x = mb.cast(CastOp::BitCast, x, i32t);
    mb.store_word(u, at, x);
}

/// `heap.gs.dxil`, a `gs_6_6` program (point in, `[maxvertexcount(1)]`, point list
/// out, one instance): runs [`heap_body`] with `k = SV_PrimitiveID` at [`GS_BASE`] and
/// emits its point unchanged.
fn geometry() -> Vec<u8> {
    let mut mb = Mb::new(DL);
    mb.block();
    let (i32t, f32t) = (mb.int(32), mb.t(Type::Float));
    let void = mb.void();
    let k = mb.dx("primitiveID.i32", DxOp::PrimitiveID, &[], i32t);
    heap_body(&mut mb, k, GS_BASE);
    let zero = mb.ci(32, 0);
    for c in 0..4 {
        let col = mb.ci(8, c);
        let v = mb.dx(
            "loadInput.f32",
            DxOp::LoadInput,
            &[zero, zero, col, zero],
            f32t,
        );
        mb.dx(
            "storeOutput.f32",
            DxOp::StoreOutput,
            &[zero, zero, col, v],
            void,
        );
    }
    let s0 = mb.ci(8, 0);
    mb.dx("emitStream", DxOp::EmitStream, &[s0], void);
    // Input primitive point (1), max vertex count 1, stream mask 1, point list (1),
    // one instance (dxc's five operands).
    container(
        mb,
        ProgramKind::Geometry,
        [
            &[&SV_POSITION, &TEXCOORD, &PRIMITIVE_ID],
            &[&SV_POSITION],
            &[],
        ],
        1,
        [1, 1, 1, 1, 1].into_iter().map(Prop::Int).collect(),
    )
}

/// `heap.hs.dxil`, an `hs_6_6` program (tri domain, integer partitioning,
/// triangle_cw, 3 control points in and out, max factor 64). The control-point phase
/// passes `POSITION` through and runs [`heap_body`] with `k = SV_OutputControlPointID`
/// at [`HS_BASE`]; the patch-constant function writes every factor 1 and runs
/// [`heap_body`] with `k = 3` at [`HS_BASE`].
fn hull() -> Vec<u8> {
    let mut mb = Mb::new(DL);
    let (i32t, f32t) = (mb.int(32), mb.t(Type::Float));
    let void = mb.void();
    // The patch-constant function, defined first as dxc does.
    mb.block();
    let one = float(&mut mb, 1.0);
    for (sig, row) in [(0, 0), (0, 1), (0, 2), (1, 0)] {
        let (sig, row, col) = (mb.ci(32, sig), mb.ci(32, row), mb.ci(8, 0));
        mb.dx(
            "storePatchConstant.f32",
            DxOp::StorePatchConstant,
            &[sig, row, col, one],
            void,
        );
    }
    let three = mb.ci(32, 3);
    heap_body(&mut mb, three, HS_BASE);
    mb.ret();
    let patch = mb.define("patch");
    mb.block();
    let id = mb.dx(
        "outputControlPointID.i32",
        DxOp::OutputControlPointID,
        &[],
        i32t,
    );
    let zero = mb.ci(32, 0);
    for c in 0..4 {
        let col = mb.ci(8, c);
        let v = mb.dx(
            "loadInput.f32",
            DxOp::LoadInput,
            &[zero, zero, col, id],
            f32t,
        );
        mb.dx(
            "storeOutput.f32",
            DxOp::StoreOutput,
            &[zero, zero, col, v],
            void,
        );
    }
    heap_body(&mut mb, id, HS_BASE);
    // Patch-constant function, input and output control points 3, domain tri (2),
    // partitioning integer (1), output primitive triangle_cw (3), max factor 64.
    let mut values = vec![Prop::Function(patch)];
    values.extend([3, 3, 2, 1, 3].map(Prop::Int));
    values.push(Prop::Float(64.0));
    container(
        mb,
        ProgramKind::Hull,
        [&[&POSITION], &[&POSITION], &[&TESS_FACTOR, &INSIDE_FACTOR]],
        3,
        values,
    )
}

/// `heap.ds.dxil`, a `ds_6_6` program (tri domain, 3 control points): `SV_Position` is
/// control point 0's `POSITION`, and [`heap_body`] runs with `k = (uint)(u + 2v)` of
/// its domain location (u, v, w) at [`DS_BASE`].
fn domain() -> Vec<u8> {
    let mut mb = Mb::new(DL);
    mb.block();
    let (i32t, f32t) = (mb.int(32), mb.t(Type::Float));
    let void = mb.void();
    let loc: Vec<_> = (0..2)
        .map(|c| {
            let c = mb.ci(8, c);
            mb.dx("domainLocation.f32", DxOp::DomainLocation, &[c], f32t)
        })
        .collect();
    let v2 = mb.bin(BinOp::Add, loc[1], loc[1], f32t);
    let kf = mb.bin(BinOp::Add, loc[0], v2, f32t);
    let k = mb.cast(CastOp::FpToUi, kf, i32t);
    heap_body(&mut mb, k, DS_BASE);
    let zero = mb.ci(32, 0);
    for c in 0..4 {
        let col = mb.ci(8, c);
        let v = mb.dx(
            "loadInput.f32",
            DxOp::LoadInput,
            &[zero, zero, col, zero],
            f32t,
        );
        mb.dx(
            "storeOutput.f32",
            DxOp::StoreOutput,
            &[zero, zero, col, v],
            void,
        );
    }
    container(
        mb,
        ProgramKind::Domain,
        [
            &[&POSITION],
            &[&SV_POSITION],
            &[&TESS_FACTOR, &INSIDE_FACTOR],
        ],
        2,
        vec![Prop::Int(2), Prop::Int(3)],
    )
}

/// The payload both mesh-stage programs declare: `struct Payload { uint group; }`.
fn payload_ty(mb: &mut Mb) -> dxlane::dxil::llvm::TypeId {
    let i32t = mb.int(32);
    mb.named("struct.Payload", vec![i32t])
}

/// A pointer to the payload's only member.
fn member(mb: &mut Mb, payload: ValueId) -> ValueId {
    let ty = payload_ty(mb);
    let i32t = mb.int(32);
    let zero = mb.ci(32, 0);
    let pt = mb.t(Type::Pointer {
        pointee: i32t,
        address_space: 3,
    });
    mb.push(
        InstKind::Gep {
            inbounds: true,
            source_ty: ty,
            base: payload,
            indices: vec![zero, zero],
            explicit_type: true,
        },
        pt,
    )
}

/// `heap.as.dxil`, an `as_6_6` program (`[numthreads(1, 1, 1)]`): runs [`heap_body`]
/// with `k = SV_GroupID.x` at [`AS_BASE`], then `DispatchMesh(2, 1, 1, p)` with
/// `p.group = SV_GroupID.x`.
fn amplification() -> Vec<u8> {
    let mut mb = Mb::new(DL);
    mb.block();
    let i32t = mb.int(32);
    let void = mb.void();
    let zero = mb.ci(32, 0);
    let k = mb.dx("groupId.i32", DxOp::GroupId, &[zero], i32t);
    heap_body(&mut mb, k, AS_BASE);
    let ty = payload_ty(&mut mb);
    let undef = mb.undef(ty);
    let payload = mb.global("payload", ty, 3, Some(undef));
    let at = member(&mut mb, payload);
    mb.store(at, k);
    let (one, two) = (mb.ci(32, 1), mb.ci(32, 2));
    mb.dx(
        "dispatchMesh.struct.Payload",
        DxOp::DispatchMesh,
        &[two, one, one, payload],
        void,
    );
    // The thread group, then the payload's bytes.
    container(
        mb,
        ProgramKind::Amplification,
        [&[], &[], &[]],
        10,
        vec![Prop::Threads([1, 1, 1]), Prop::Int(4)],
    )
}

/// `heap.ms.dxil`, an `ms_6_6` program (`[numthreads(1, 1, 1)]`, triangles, no
/// vertices or primitives): `SetMeshOutputCounts(0, 0)`, then [`heap_body`] with `k =
/// 2 · payload.group + SV_GroupID.x` at [`MS_BASE`].
fn mesh() -> Vec<u8> {
    let mut mb = Mb::new(DL);
    mb.block();
    let i32t = mb.int(32);
    let void = mb.void();
    let zero = mb.ci(32, 0);
    mb.dx(
        "setMeshOutputCounts",
        DxOp::SetMeshOutputCounts,
        &[zero, zero],
        void,
    );
    let ty = payload_ty(&mut mb);
    let pt = mb.t(Type::Pointer {
        pointee: ty,
        address_space: 3,
    });
    let p = mb.dx(
        "getMeshPayload.struct.Payload",
        DxOp::GetMeshPayload,
        &[],
        pt,
    );
    let at = member(&mut mb, p);
    let group = mb.load(at, i32t);
    let g = mb.dx("groupId.i32", DxOp::GroupId, &[zero], i32t);
    let twice = mb.bin(BinOp::Add, group, group, i32t);
    let k = mb.bin(BinOp::Add, twice, g, i32t);
    heap_body(&mut mb, k, MS_BASE);
    // The thread group, max vertices 0, max primitives 0, topology triangle (2), the
    // payload's bytes.
    let mut values = vec![Prop::Threads([1, 1, 1])];
    values.extend([0, 0, 2, 4].map(Prop::Int));
    container(
        mb,
        ProgramKind::Mesh,
        [&[], &[&SV_POSITION], &[]],
        9,
        values,
    )
}

/// The containers of [`FOLDER`], by file name.
fn containers() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("heap.gs.dxil", geometry()),
        ("heap.hs.dxil", hull()),
        ("heap.ds.dxil", domain()),
        ("heap.as.dxil", amplification()),
        ("heap.ms.dxil", mesh()),
    ]
}

#[test]
fn the_committed_containers_are_regenerated_unchanged() {
    common::check_built_files(FOLDER, containers());
}

/// Every program lowers, validates, and indexes both heaps (the lowering records
/// `uses_resource_heap` and `uses_sampler_heap`, which the job's reflection check
/// needs to bind `[[heap]]` and `[[sampler_heap]]`); none declares a resource.
#[test]
fn every_stage_program_lowers_as_a_heap_user() {
    for (name, bytes) in containers() {
        let p = load(&bytes, &LoadOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        dxlane::ir::validate(&p.shader).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(p.shader.uses_resource_heap, "{name}");
        assert!(p.shader.uses_sampler_heap, "{name}");
        assert!(p.shader.resources.is_empty(), "{name}");
    }
}

/// Runs job `name` of [`FOLDER`] on both engines; all `count` expectations pass.
fn run(name: &str, count: usize) {
    let path = common::root().join(FOLDER).join(format!("{name}.toml"));
    let (failures, counts) = common::expect_both(&path, &format!("heaps_stages/{name}"))
        .unwrap_or_else(|e| panic!("{e}"));
    assert!(failures.is_empty(), "{name}:\n{}", failures.join("\n"));
    assert_eq!(counts, (count, 0));
}

/// "HLSL SM 6.6 Dynamic Resources" in a geometry program: both heaps read per
/// primitive, the UAV from the resource heap written. Derived in `gs.toml`.
#[test]
fn a_geometry_program_reads_and_writes_the_descriptor_heaps() {
    run("gs", 1);
}

/// "HLSL SM 6.6 Dynamic Resources" in a hull program (its control-point phase and its
/// patch-constant function) and a domain program. Derived in `tess.toml`.
#[test]
fn hull_and_domain_programs_read_and_write_the_descriptor_heaps() {
    run("tess", 2);
}

/// "HLSL SM 6.6 Dynamic Resources" in an amplification program and the mesh programs
/// it launches. Derived in `mesh.toml`.
#[test]
fn amplification_and_mesh_programs_read_and_write_the_descriptor_heaps() {
    run("mesh", 2);
}

/// A draw job's `[[expect]] heap = N` names a `[[heap]]` slot; a slot past the heap is
/// refused naming the entry and the heap's size, not read out of bounds.
#[test]
fn a_draw_expectation_of_a_missing_heap_slot_is_refused_by_name() {
    let path = common::root().join(FOLDER).join("gs.toml");
    let text = std::fs::read_to_string(&path)
        .unwrap()
        .replace("heap = 0\noffset = 0", "heap = 7\noffset = 0");
    let Err(e) = dxlane::job::Job::from_text(&text, &path)
        .and_then(|j| dxlane::job::run_draw_job(j, &common::run_options()))
    else {
        panic!("a missing heap slot ran");
    };
    let e = e.to_string();
    assert!(
        e.contains("[[expect]] #1") && e.contains("`heap` 7: the job has 3 [[heap]] entries"),
        "{e}"
    );
}
