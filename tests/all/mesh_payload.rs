//! The mesh payload's layout for every kind of member, in hand-built DXIL modules
//! (`dxil::llvm::build`): an amplification program stores each member of a payload
//! struct through `getelementptr` into its group shared payload and calls
//! `DispatchMesh`; the mesh program copies the payload's bytes, word by word, to a raw
//! UAV, on both engines. The test states each member's byte offset and bytes by hand
//! from the layout rule, so a member placed at any other offset fails it. The modules
//! are committed under `tests/jobs/mesh_payload/` and checked to be what this file
//! builds (`DXLANE_BLESS=1` rewrites them).
//!
//! The rule: "Mesh Payload" (DirectX-Specs, Mesh Shader) passes the payload as the
//! struct the amplification program declared, and DXIL.rst's data layout
//! (`e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64` under
//! `-enable-16bit-types`) places it: C struct layout, each member at the next multiple
//! of its ABI alignment (i16/f16 2, i32/f32 4, i64/f64 8), the struct's size a multiple
//! of its largest member's alignment; dxc keeps a `bool` member as `i32` in memory and
//! lays a vector out as an array of its element (aligned as the element).

use dxlane::container::write::{dxil_part, write_container};
use dxlane::container::{Container, DxilProgramHeader, FourCc, ProgramKind, ProgramVersion};
use dxlane::dxil::dxop::DxOp;
use dxlane::dxil::llvm::build::{EntryPoint, Mb};
use dxlane::dxil::llvm::write::write_module;
use dxlane::dxil::llvm::{
    BinOp, CastOp, Constant, InstKind, MdId, Metadata, Type, TypeId, ValueId,
};
use dxlane::exec::jit::Engine;
use dxlane::lower::{LoadOptions, load};
use dxlane::pipeline::ms::MeshDraw;
use dxlane::pipeline::{Bindings, DrawArgs, DrawOptions, DrawState, Plan, RenderTargetView, draw};
use dxlane::resources::{BufferKind, BufferView, Descriptor, Format, Memory, Texture, TextureDesc};

use super::common;

/// dxc's data layout under `-enable-16bit-types` (DXIL.rst, "Target Triple and Data
/// Layout" for 16-bit types).
const DL16: &str = "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64";

/// The payload's size by the rule (see [`members`]): 74 bytes of members, rounded up to
/// the struct's alignment, 8 (its `double` and `int64_t`).
const PAYLOAD_BYTES: u32 = 80;

/// A member's value as the amplification program stores it.
#[derive(Clone, Copy)]
enum V {
    I16(u16),
    I32(u32),
    I64(u64),
    F16(u16),
    F32(f32),
    F64(f64),
}

impl V {
    fn bytes(self) -> Vec<u8> {
        match self {
            V::I16(x) | V::F16(x) => x.to_le_bytes().to_vec(),
            V::I32(x) => x.to_le_bytes().to_vec(),
            V::I64(x) => x.to_le_bytes().to_vec(),
            V::F32(x) => x.to_le_bytes().to_vec(),
            V::F64(x) => x.to_le_bytes().to_vec(),
        }
    }
}

/// Each stored leaf of the payload: its GEP path below the struct, the value, and its
/// byte offset derived by hand from the rule. The HLSL it stands for:
///
/// ```hlsl
/// struct Elem  { int16_t s; int i; };        // s@0, i@4: 8 bytes, align 4
/// struct Inner { half h; float f; };         // h@0, f@4: 8 bytes, align 4
/// struct Payload {
///     bool b;        // i32 @0
///     int16_t s;     // @4
///     int i;         // @8   (6..8 is padding: i32 aligns to 4)
///     float f;       // @12
///     double d;      // @16  (already 8-aligned)
///     half h;        // @24
///     float3 v;      // @28  (26..28 padding; a vector aligns as its element, 4)
///     int64_t l;     // @40  (8-aligned)
///     Elem a[2];     // @48 and @56
///     Inner n;       // @64
///     int16_t t;     // @72; 74 bytes, rounded to 80 (align 8)
/// };
/// ```
fn members() -> Vec<(Vec<i64>, V, usize)> {
    vec![
        (vec![0], V::I32(1), 0),
        (vec![1], V::I16(0xbeef), 4),
        (vec![2], V::I32(0xffff_fffb), 8),
        (vec![3], V::F32(1.5), 12),
        (vec![4], V::F64(2.25), 16),
        (vec![5], V::F16(0x3c00), 24),
        (vec![6, 0], V::F32(3.0), 28),
        (vec![6, 1], V::F32(4.0), 32),
        (vec![6, 2], V::F32(5.0), 36),
        (vec![7], V::I64(0x1122_3344_5566_7788), 40),
        (vec![8, 0, 0], V::I16(0x1111), 48),
        (vec![8, 0, 1], V::I32(7), 52),
        (vec![8, 1, 0], V::I16(0x2222), 56),
        (vec![8, 1, 1], V::I32(8), 60),
        (vec![9, 0], V::F16(0x4000), 64),
        (vec![9, 1], V::F32(6.5), 68),
        (vec![10], V::I16(0x7777), 72),
    ]
}

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

/// Finishes `mb` as entry `main` of an `as_6_5` or `ms_6_5` program with the given
/// state (tag 10 or 9) and, for the mesh program, raw UAV u0, in a container of its
/// DXIL part.
fn container(mut mb: Mb, kind: ProgramKind, state: Vec<i64>, uav: bool) -> Vec<u8> {
    let (profile, tag) = match kind {
        ProgramKind::Mesh => ("ms", 9),
        _ => ("as", 10),
    };
    let version = [mi(&mut mb, 32, 1), mi(&mut mb, 32, 5)];
    let version = node(&mut mb, version.to_vec());
    let p = Some(mb.md(Metadata::String(profile.as_bytes().to_vec())));
    let sm = [p, mi(&mut mb, 32, 6), mi(&mut mb, 32, 5)];
    let sm = node(&mut mb, sm.to_vec());
    let uavs = if uav {
        let name = Some(mb.md(Metadata::String(Vec::new())));
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
        let one = node(&mut mb, ops);
        node(&mut mb, vec![one])
    } else {
        None
    };
    let resources = node(&mut mb, vec![None, uavs, None, None]);
    // A mesh program's vertices carry SV_Position (kind 3, float, linear without
    // perspective, four columns at row 0), which the pipeline links by.
    let signatures = if kind == ProgramKind::Mesh {
        let zero = mi(&mut mb, 32, 0);
        let indices = node(&mut mb, vec![zero]);
        let name = Some(mb.md(Metadata::String(b"SV_Position".to_vec())));
        let ops = vec![
            mi(&mut mb, 32, 0),
            name,
            mi(&mut mb, 8, 9),
            mi(&mut mb, 8, 3),
            indices,
            mi(&mut mb, 8, 4),
            mi(&mut mb, 32, 1),
            mi(&mut mb, 8, 4),
            mi(&mut mb, 32, 0),
            mi(&mut mb, 8, 0),
            None,
        ];
        let e = node(&mut mb, ops);
        let outs = node(&mut mb, vec![e]);
        node(&mut mb, vec![None, outs, None])
    } else {
        None
    };
    let threads = [1, 1, 1].map(|x| mi(&mut mb, 32, x));
    let mut s = vec![node(&mut mb, threads.to_vec())];
    for v in state {
        s.push(mi(&mut mb, 32, v));
    }
    let s = node(&mut mb, s);
    let props = [mi(&mut mb, 32, tag), s];
    let props = node(&mut mb, props.to_vec());
    mb.ret();
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
        kind,
        major: 6,
        minor: 5,
    };
    let dxil = dxil_part(program, (1, 5), &bitcode).unwrap();
    write_container(&[(FourCc::DXIL, &dxil)]).unwrap()
}

/// `getelementptr inbounds ty, base, 0, path…` to a leaf of type `leaf` in group
/// shared memory.
fn gep(mb: &mut Mb, ty: TypeId, base: ValueId, path: &[i64], leaf: TypeId) -> ValueId {
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

/// The payload's types as both programs declare them (see [`members`]).
struct Types {
    i16: TypeId,
    i32: TypeId,
    i64: TypeId,
    f16: TypeId,
    f32: TypeId,
    f64: TypeId,
    /// `[2 x %struct.Elem]`, the payload's member 8.
    elems: TypeId,
    /// `%struct.Inner`, its member 9.
    inner: TypeId,
    /// `%struct.Payload`.
    payload: TypeId,
}

impl Types {
    fn new(mb: &mut Mb) -> Types {
        let (i16t, i32t, i64t) = (mb.int(16), mb.int(32), mb.int(64));
        let (f16t, f32t, f64t) = (mb.t(Type::Half), mb.t(Type::Float), mb.t(Type::Double));
        let v3 = mb.vector(3, f32t);
        let elem = mb.named("struct.Elem", vec![i16t, i32t]);
        let elems = mb.t(Type::Array {
            len: 2,
            element: elem,
        });
        let inner = mb.named("struct.Inner", vec![f16t, f32t]);
        let payload = mb.named(
            "struct.Payload",
            vec![
                i32t, i16t, i32t, f32t, f64t, f16t, v3, i64t, elems, inner, i16t,
            ],
        );
        Types {
            i16: i16t,
            i32: i32t,
            i64: i64t,
            f16: f16t,
            f32: f32t,
            f64: f64t,
            elems,
            inner,
            payload,
        }
    }

    /// The type of the leaf at `path` below the struct, by [`members`]'s value kinds.
    fn of(&self, v: V) -> TypeId {
        match v {
            V::I16(_) => self.i16,
            V::I32(_) => self.i32,
            V::I64(_) => self.i64,
            V::F16(_) => self.f16,
            V::F32(_) => self.f32,
            V::F64(_) => self.f64,
        }
    }
}

/// The amplification program (`[numthreads(1, 1, 1)]`): stores every member of
/// [`members`] into its group shared `struct.Payload`, then `DispatchMesh(1, 1, 1,
/// payload)`.
fn amplification() -> Vec<u8> {
    let mut mb = Mb::new(DL16);
    mb.block();
    let t = Types::new(&mut mb);
    let (i16t, i32t, i64t) = (t.i16, t.i32, t.i64);
    let (f16t, f32t, f64t) = (t.f16, t.f32, t.f64);
    let payload_ty = t.payload;
    let undef = mb.undef(payload_ty);
    let payload = mb.global("payload", payload_ty, 3, Some(undef));
    for (path, v, _) in members() {
        let (ty, c) = match v {
            V::I16(x) => (i16t, mb.ci(16, i64::from(x))),
            V::I32(x) => (i32t, mb.ci(32, i64::from(x as i32))),
            V::I64(x) => (i64t, mb.ci(64, x as i64)),
            V::F16(x) => (f16t, mb.c(f16t, Constant::Float(u64::from(x)))),
            V::F32(x) => (f32t, mb.c(f32t, Constant::Float(u64::from(x.to_bits())))),
            V::F64(x) => (f64t, mb.c(f64t, Constant::Float(x.to_bits()))),
        };
        let at = gep(&mut mb, payload_ty, payload, &path, ty);
        mb.store(at, c);
    }
    let void = mb.void();
    let one = mb.ci(32, 1);
    mb.dx(
        "dispatchMesh.struct.Payload",
        DxOp::DispatchMesh,
        &[one, one, one, payload],
        void,
    );
    container(
        mb,
        ProgramKind::Amplification,
        vec![i64::from(PAYLOAD_BYTES)],
        false,
    )
}

/// The mesh program (`[numthreads(1, 1, 1)]`, triangles, no vertices or primitives):
/// `SetMeshOutputCounts(0, 0)`, then its payload, declared as `{ [20 x i32] }`, copied
/// word by word to u0 (`rawBufferStore` at byte 4k).
fn mesh() -> Vec<u8> {
    let mut mb = Mb::new(DL16);
    mb.block();
    let i32t = mb.int(32);
    let words = mb.t(Type::Array {
        len: u64::from(PAYLOAD_BYTES / 4),
        element: i32t,
    });
    let payload_ty = mb.named("struct.Words", vec![words]);
    let pt = mb.t(Type::Pointer {
        pointee: payload_ty,
        address_space: 3,
    });
    let void = mb.void();
    let zero = mb.ci(32, 0);
    mb.dx(
        "setMeshOutputCounts",
        DxOp::SetMeshOutputCounts,
        &[zero, zero],
        void,
    );
    let h = mb.handle(1, 0, 0);
    let p = mb.dx("getMeshPayload.struct.Words", DxOp::GetMeshPayload, &[], pt);
    for k in 0..i64::from(PAYLOAD_BYTES / 4) {
        let at = gep(&mut mb, payload_ty, p, &[0, k], i32t);
        let w = mb.load(at, i32t);
        let addr = mb.ci(32, 4 * k);
        mb.store_word(h, addr, w);
    }
    // max vertices, max primitives, topology (2: triangle), payload bytes.
    container(
        mb,
        ProgramKind::Mesh,
        vec![0, 0, 2, i64::from(PAYLOAD_BYTES)],
        true,
    )
}

/// The words the member-reading mesh program ([`mesh_by_member`]) writes for a leaf: a
/// 16-bit leaf zero-extended to one word, a 32-bit leaf as its word, a 64-bit leaf as
/// its low and high words.
fn leaf_words(v: V) -> Vec<u32> {
    match v {
        V::I16(x) | V::F16(x) => vec![u32::from(x)],
        V::I32(x) => vec![x],
        V::F32(x) => vec![x.to_bits()],
        V::I64(x) => vec![x as u32, (x >> 32) as u32],
        V::F64(x) => vec![x.to_bits() as u32, (x.to_bits() >> 32) as u32],
    }
}

/// The mesh program that reads the payload by member (`[numthreads(1, 1, 1)]`,
/// triangles, no vertices or primitives): it declares the amplification program's
/// `struct.Payload` and loads each leaf of [`members`] through `getelementptr` into the
/// struct, as dxc emits member accesses — one GEP from the payload pointer for a scalar
/// member or a vector's element (`p->v.y`: `0, 6, 1`); for the array of structs and the
/// nested struct a GEP to the member and a second GEP from there (`p->a[k].i`: `0, 8`
/// then `0, k, 1`), its array index `k` computed at run time (`GroupID.x + k`, with
/// `GroupID.x` 0). Each leaf goes to u0 as [`leaf_words`], one after the other.
fn mesh_by_member() -> Vec<u8> {
    let mut mb = Mb::new(DL16);
    mb.block();
    let t = Types::new(&mut mb);
    let payload_ty = t.payload;
    let pt = mb.t(Type::Pointer {
        pointee: payload_ty,
        address_space: 3,
    });
    let void = mb.void();
    let zero = mb.ci(32, 0);
    mb.dx(
        "setMeshOutputCounts",
        DxOp::SetMeshOutputCounts,
        &[zero, zero],
        void,
    );
    let h = mb.handle(1, 0, 0);
    let gid = mb.dx("groupId.i32", DxOp::GroupId, &[zero], t.i32);
    let p = mb.dx(
        "getMeshPayload.struct.Payload",
        DxOp::GetMeshPayload,
        &[],
        pt,
    );
    let mut word = 0i64;
    for (path, v, _) in members() {
        let leaf = t.of(v);
        let at = match path[..] {
            [m @ (8 | 9), ref rest @ ..] => {
                // The member first, then the leaf below it.
                let member_ty = if m == 8 { t.elems } else { t.inner };
                let member = gep(&mut mb, payload_ty, p, &[m], member_ty);
                let mut indices = vec![zero];
                for (i, &k) in rest.iter().enumerate() {
                    indices.push(if m == 8 && i == 0 {
                        let kc = mb.ci(32, k);
                        mb.bin(BinOp::Add, gid, kc, t.i32)
                    } else {
                        mb.ci(32, k)
                    });
                }
                let ptr_ty = mb.t(Type::Pointer {
                    pointee: leaf,
                    address_space: 3,
                });
                mb.push(
                    InstKind::Gep {
                        inbounds: true,
                        source_ty: member_ty,
                        base: member,
                        indices,
                        explicit_type: true,
                    },
                    ptr_ty,
                )
            }
            _ => gep(&mut mb, payload_ty, p, &path, leaf),
        };
        let x = mb.load(at, leaf);
        let words = match v {
            V::I16(_) => vec![mb.cast(CastOp::ZExt, x, t.i32)],
            V::F16(_) => {
                let bits = mb.cast(CastOp::BitCast, x, t.i16);
                vec![mb.cast(CastOp::ZExt, bits, t.i32)]
            }
            V::I32(_) => vec![x],
            V::F32(_) => vec![mb.cast(CastOp::BitCast, x, t.i32)],
            V::I64(_) | V::F64(_) => {
                let bits = if matches!(v, V::F64(_)) {
                    mb.cast(CastOp::BitCast, x, t.i64)
                } else {
                    x
                };
                let k32 = mb.ci(64, 32);
                let high = mb.bin(BinOp::LShr, bits, k32, t.i64);
                vec![
                    mb.cast(CastOp::Trunc, bits, t.i32),
                    mb.cast(CastOp::Trunc, high, t.i32),
                ]
            }
        };
        for w in words {
            let addr = mb.ci(32, 4 * word);
            mb.store_word(h, addr, w);
            word += 1;
        }
    }
    // max vertices, max primitives, topology (2: triangle), payload bytes.
    container(
        mb,
        ProgramKind::Mesh,
        vec![0, 0, 2, i64::from(PAYLOAD_BYTES)],
        true,
    )
}

/// The committed modules and what this file builds.
fn files() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("payload.as.dxil", amplification()),
        ("payload.ms.dxil", mesh()),
        ("payload.members.ms.dxil", mesh_by_member()),
    ]
}

/// The committed modules are what [`files`] builds (`DXLANE_BLESS=1` rewrites them).
#[test]
fn the_committed_modules_are_what_this_file_builds() {
    common::check_built_files("tests/jobs/mesh_payload", files());
}

/// Draws the amplification and mesh programs in `dir` over one group on `engine`; u0's
/// bytes.
fn run_on(
    engine: Engine,
    dir: &std::path::Path,
    as_file: &str,
    ms_file: &str,
) -> Result<Vec<u8>, String> {
    let read = |f: &str| -> Result<_, String> {
        let bytes = std::fs::read(dir.join(f)).map_err(|e| e.to_string())?;
        Ok(load(&bytes, &LoadOptions::default())
            .map_err(|e| e.to_string())?
            .shader)
    };
    let amp = read(as_file)?;
    let ms = read(ms_file)?;
    let out = Memory::from_bytes(&[0xcd; PAYLOAD_BYTES as usize]).unwrap();
    let uav = Descriptor::Buffer {
        view: BufferView::whole(out.clone(), BufferKind::Raw),
        counter: None,
    };
    let ms_bindings = Bindings {
        ranges: vec![vec![uav]],
        ..Bindings::default()
    };
    let none = Bindings::default();
    let rt = Texture::new(TextureDesc::tex2d(Format::R8G8B8A8_UNORM, 2, 2)).unwrap();
    let mut state = DrawState::new(&ms, None, &ms_bindings, &none);
    state.mesh = Some(MeshDraw {
        ms: (&ms, &ms_bindings),
        amplification: Some((&amp, &none)),
        groups: [1, 1, 1],
    });
    state.render_targets = vec![Some(RenderTargetView { texture: rt })];
    let plan = Plan {
        engine,
        ..Plan::default()
    };
    draw(&state, &DrawArgs::default(), &DrawOptions::new(plan)).map_err(|e| e.to_string())?;
    Ok(out.to_bytes())
}

/// [`run_on`] on both engines (the interpreter and the native engine), which must agree.
fn run(dir: &std::path::Path, as_file: &str, ms_file: &str) -> Result<Vec<u8>, String> {
    let interp = run_on(Engine::Interp, dir, as_file, ms_file)?;
    let jit = run_on(Engine::Jit, dir, as_file, ms_file)?;
    assert!(interp == jit, "the engines disagree");
    Ok(jit)
}

/// DirectX-Specs Mesh Shader, "Mesh Payload", with DXIL.rst's 16-bit data layout: each
/// member of the amplification program's payload reaches the mesh program at the byte
/// offset the C struct rule gives it (see [`members`] for the offsets by hand).
#[test]
fn every_kind_of_payload_member_lands_at_its_c_layout_offset() {
    let dir = common::root().join("tests/jobs/mesh_payload");
    let out = run(&dir, "payload.as.dxil", "payload.ms.dxil").unwrap();
    assert_eq!(out.len(), PAYLOAD_BYTES as usize);
    for (path, v, offset) in members() {
        let want = v.bytes();
        assert_eq!(
            &out[offset..offset + want.len()],
            &want[..],
            "member {path:?} at byte {offset}"
        );
    }
}

/// DirectX-Specs Mesh Shader, "Mesh Payload": the mesh program reads the payload as the
/// struct it declares, so each member read through `getelementptr` into the struct
/// (a scalar, a vector's element, a member of a struct in an array at a run-time index,
/// a member of a nested struct) sees what the amplification program stored there. The
/// words are [`leaf_words`] of [`members`], in order.
#[test]
fn payload_members_read_through_struct_geps_see_what_was_stored() {
    let dir = common::root().join("tests/jobs/mesh_payload");
    let out = run(&dir, "payload.as.dxil", "payload.members.ms.dxil").unwrap();
    let want: Vec<u32> = members()
        .into_iter()
        .flat_map(|(_, v, _)| leaf_words(v))
        .collect();
    let got: Vec<u32> = out
        .chunks_exact(4)
        .take(want.len())
        .map(|w| u32::from_le_bytes([w[0], w[1], w[2], w[3]]))
        .collect();
    assert_eq!(got, want, "the member words (see leaf_words)");
}

/// An amplification program whose payload is `{ [bytes / 4 x i32] }` and stores
/// 0x5eed to its last word, and a mesh program of the same payload that copies that
/// word to u0.
fn sized(bytes: u32) -> (Vec<u8>, Vec<u8>) {
    let last = i64::from(bytes / 4) - 1;
    let build = |mesh: bool| {
        let mut mb = Mb::new(DL16);
        mb.block();
        let i32t = mb.int(32);
        let words = mb.t(Type::Array {
            len: u64::from(bytes / 4),
            element: i32t,
        });
        let ty = mb.named("struct.Payload", vec![words]);
        let void = mb.void();
        let one = mb.ci(32, 1);
        if mesh {
            let zero = mb.ci(32, 0);
            mb.dx(
                "setMeshOutputCounts",
                DxOp::SetMeshOutputCounts,
                &[zero, zero],
                void,
            );
            let pt = mb.t(Type::Pointer {
                pointee: ty,
                address_space: 3,
            });
            let h = mb.handle(1, 0, 0);
            let p = mb.dx(
                "getMeshPayload.struct.Payload",
                DxOp::GetMeshPayload,
                &[],
                pt,
            );
            let at = gep(&mut mb, ty, p, &[0, last], i32t);
            let w = mb.load(at, i32t);
            mb.store_word(h, zero, w);
            let state = vec![0, 0, 2, i64::from(bytes)];
            container(mb, ProgramKind::Mesh, state, true)
        } else {
            let undef = mb.undef(ty);
            let payload = mb.global("payload", ty, 3, Some(undef));
            let at = gep(&mut mb, ty, payload, &[0, last], i32t);
            let seed = mb.ci(32, 0x5eed);
            mb.store(at, seed);
            mb.dx(
                "dispatchMesh.struct.Payload",
                DxOp::DispatchMesh,
                &[one, one, one, payload],
                void,
            );
            let state = vec![i64::from(bytes)];
            container(mb, ProgramKind::Amplification, state, false)
        }
    };
    (build(false), build(true))
}

/// DirectX-Specs Mesh Shader, "Amplification shader and Mesh shader": the payload is at
/// most 16 KiB. A payload of exactly 16384 bytes carries its last word to the mesh
/// program; one of 16388 is refused when either program loads, naming the entry point
/// and the size.
#[test]
fn a_payload_of_16_kib_runs_and_one_word_more_is_refused() {
    let (amp, ms) = sized(16384);
    let dir = common::scratch().join("mesh_payload");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("max.as.dxil"), &amp).unwrap();
    std::fs::write(dir.join("max.ms.dxil"), &ms).unwrap();
    let out = run(&dir, "max.as.dxil", "max.ms.dxil").unwrap();
    assert_eq!(out[..4], 0x5eed_u32.to_le_bytes());
    let (amp, ms) = sized(16388);
    for (name, program) in [("amplification", amp), ("mesh", ms)] {
        let e = load(&program, &LoadOptions::default())
            .unwrap_err()
            .to_string();
        assert!(
            e.contains("entry point main: a payload of 16388 bytes (at most 16384"),
            "{name}: {e}"
        );
    }
}

/// `llvm-dis` (when found) reads the committed modules' bitcode, and the listing shows
/// the payload struct as built (so the modules are LLVM 3.7 bitcode a peer tool reads).
#[test]
fn llvm_dis_reads_the_committed_modules() {
    let Some(dis) = common::llvm_dis("the llvm-dis check of the payload modules") else {
        return;
    };
    let dir = common::scratch().join("mesh_payload").join("llvm-dis");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in files() {
        let c = Container::parse(&bytes).unwrap();
        let (_, bitcode) = DxilProgramHeader::parse(c.part(FourCc::DXIL).unwrap()).unwrap();
        let path = dir.join(format!("{name}.bc"));
        std::fs::write(&path, bitcode).unwrap();
        let out = std::process::Command::new(&dis)
            .arg("-o")
            .arg("-")
            .arg(&path)
            .output()
            .expect("run LLVM_DIS");
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8_lossy(&out.stdout);
        assert!(text.contains("define void @main()"), "{name}");
        if name == "payload.as.dxil" {
            assert!(
                text.contains("%struct.Payload = type { i32, i16, i32, float, double, half, <3 x float>, i64, [2 x %struct.Elem], %struct.Inner, i16 }"),
                "{text}"
            );
        }
    }
}
