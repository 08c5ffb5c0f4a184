//! SM 6.7's `TextureGatherRaw` and SM 6.9's `WaveMatch` of a vector, in compute programs
//! built with the project's bitcode builder (`dxil::llvm::build`; no dxc here) and
//! committed under `tests/jobs/sm67/` next to the jobs that run them:
//! [`the_committed_containers_are_regenerated_unchanged`] keeps the files in step with
//! the builders below (`DXLANE_BLESS=1` rewrites them). Each job's `[[expect]]` values
//! are derived by hand in its comments; the tests run the jobs on both engines.

use dxlane::container::write::{dxil_part, write_container};
use dxlane::container::{FourCc, ProgramKind, ProgramVersion};
use dxlane::dxil::dxop::DxOp;
use dxlane::dxil::llvm::build::{EntryPoint, Mb};
use dxlane::dxil::llvm::write::write_module;
use dxlane::dxil::llvm::{BinOp, BlockId, CastOp, MdId, Metadata, Type, TypeId, ValueId};
use dxlane::lower::{LoadOptions, LowerError, load};

use crate::common;

/// dxc's data layout under `-enable-16bit-types`.
const DL16: &str = "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64";

/// The folder of the committed containers and their jobs.
const FOLDER: &str = "tests/jobs/sm67";

/// A resource of a test program, in register order within its class.
#[derive(Clone, Copy)]
enum Res {
    /// A texture SRV of DXIL shape `shape` (2 Texture2D, 5 TextureCube) and component
    /// type `component` (3 U16, 5 U32, 7 U64).
    Texture { shape: i64, component: i64 },
    /// A raw-buffer UAV (shape 11).
    RawUav,
    /// A sampler (type 0, default).
    Sampler,
}

/// An i32 (or other width) metadata value.
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

/// Finishes `mb` as the compute entry `main` of shader model 6.`minor` with
/// `[numthreads(threads, 1, 1)]` and `resources` (each class numbered from 0 in the order
/// given), in a container of its DXIL part.
fn container(mut mb: Mb, minor: u8, resources: &[Res], threads: i64) -> Vec<u8> {
    let version = [mi(&mut mb, 32, 1), mi(&mut mb, 32, i64::from(minor))];
    let version = node(&mut mb, version.to_vec());
    let cs = Some(mb.md(Metadata::String(b"cs".to_vec())));
    let sm = [cs, mi(&mut mb, 32, 6), mi(&mut mb, 32, i64::from(minor))];
    let sm = node(&mut mb, sm.to_vec());
    let (mut srvs, mut uavs, mut samplers) = (Vec::new(), Vec::new(), Vec::new());
    for r in resources {
        let name = Some(mb.md(Metadata::String(Vec::new())));
        let id = match r {
            Res::Texture { .. } => srvs.len(),
            Res::RawUav => uavs.len(),
            Res::Sampler => samplers.len(),
        } as i64;
        let mut ops = vec![
            mi(&mut mb, 32, id),
            None,
            name,
            mi(&mut mb, 32, 0),
            mi(&mut mb, 32, id),
            mi(&mut mb, 32, 1),
        ];
        match r {
            Res::Texture { shape, component } => {
                let tags = [mi(&mut mb, 32, 0), mi(&mut mb, 32, *component)];
                let tags = node(&mut mb, tags.to_vec());
                ops.extend([mi(&mut mb, 32, *shape), mi(&mut mb, 32, 0), tags]);
                srvs.push(node(&mut mb, ops));
            }
            Res::RawUav => {
                ops.extend([
                    mi(&mut mb, 32, 11),
                    mi(&mut mb, 1, 0),
                    mi(&mut mb, 1, 0),
                    mi(&mut mb, 1, 0),
                    None,
                ]);
                uavs.push(node(&mut mb, ops));
            }
            Res::Sampler => {
                ops.extend([mi(&mut mb, 32, 0), None]);
                samplers.push(node(&mut mb, ops));
            }
        }
    }
    let list = |mb: &mut Mb, v: Vec<Option<MdId>>| {
        if v.is_empty() { None } else { node(mb, v) }
    };
    let (srvs, uavs, samplers) = (
        list(&mut mb, srvs),
        list(&mut mb, uavs),
        list(&mut mb, samplers),
    );
    let resources = node(&mut mb, vec![srvs, uavs, None, samplers]);
    let t = [threads, 1, 1].map(|x| mi(&mut mb, 32, x));
    let t = node(&mut mb, t.to_vec());
    let props = [mi(&mut mb, 32, 4), t];
    let props = node(&mut mb, props.to_vec());
    mb.ret();
    let (mut m, fi) = mb.finish();
    EntryPoint {
        name: "main",
        version,
        shader_model: sm,
        signatures: None,
        resources,
        module_resources: resources,
        properties: props,
    }
    .declare(&mut m, fi);
    let bitcode = write_module(&m).expect("the writer takes the built module");
    let program = ProgramVersion {
        kind: ProgramKind::Compute,
        major: 6,
        minor,
    };
    let dxil = dxil_part(program, (1, minor), &bitcode).unwrap();
    write_container(&[(FourCc::DXIL, &dxil)]).unwrap()
}

/// `dx.op.threadId.i32(93, 0)`.
fn thread_x(mb: &mut Mb) -> ValueId {
    let i32t = mb.int(32);
    let zero = mb.ci(32, 0);
    mb.dx("threadId.i32", DxOp::ThreadId, &[zero], i32t)
}

/// `%dx.types.ResRet.<tag>` = `{ ty, ty, ty, ty, i32 }`.
fn resret(mb: &mut Mb, ty: TypeId, tag: &str) -> TypeId {
    let i32t = mb.int(32);
    mb.named(
        &format!("dx.types.ResRet.{tag}"),
        vec![ty, ty, ty, ty, i32t],
    )
}

/// Element `k` of a `ResRet` or `fouri32` value.
fn member(mb: &mut Mb, agg: ValueId, k: u32, ty: TypeId) -> ValueId {
    mb.extract_value(agg, k, ty)
}

/// `rawBufferLoad.<tag>(h, addr, undef, 0xf, 4)`'s four values.
fn load4(mb: &mut Mb, h: ValueId, addr: ValueId, ty: TypeId, tag: &str) -> [ValueId; 4] {
    let i32t = mb.int(32);
    let rt = resret(mb, ty, tag);
    let u = mb.undef(i32t);
    let (mask, align) = (mb.ci(8, 0xf), mb.ci(32, 4));
    let r = mb.dx(
        &format!("rawBufferLoad.{tag}"),
        DxOp::RawBufferLoad,
        &[h, addr, u, mask, align],
        rt,
    );
    [0, 1, 2, 3].map(|k| member(mb, r, k, ty))
}

/// Stores `v` (an i32) at byte `base + 4·k` of raw UAV `h`.
fn store_at(mb: &mut Mb, h: ValueId, base: ValueId, k: i64, v: ValueId) {
    let i32t = mb.int(32);
    let off = mb.ci(32, 4 * k);
    let addr = mb.bin(BinOp::Add, base, off, i32t);
    mb.store_word(h, addr, v);
}

/// The `cs_6_7` program of `gather_raw.toml`:
///
/// ```hlsl
/// Texture2D<uint16_t> T16 : register(t0);   // an R16_UINT view
/// Texture2D<uint>     T32 : register(t1);   // an R32_UINT view
/// Texture2D<uint64_t> T64 : register(t2);   // an R32G32_UINT view
/// SamplerState S : register(s0);
/// RWByteAddressBuffer In : register(u0), Out : register(u1);
/// [numthreads(4, 1, 1)]
/// void main(uint t : SV_DispatchThreadID) {
///     float2 uv = asfloat(In.Load2(16 * t));
///     int2 o = In.Load2(16 * t + 8);
///     Out.Store4(64 * t, T16.GatherRaw(S, uv));            // immediate offset (0, 0)
///     Out.Store4(64 * t + 16, T32.GatherRaw(S, uv, o));    // programmable offsets
///     Out.Store<uint64_t4>(64 * t + 32, T64.GatherRaw(S, uv, o));
/// }
/// ```
fn gather_raw_program() -> Vec<u8> {
    let mut mb = Mb::new(DL16);
    mb.block();
    let (i16t, i32t, i64t, f32t) = (mb.int(16), mb.int(32), mb.int(64), mb.t(Type::Float));
    let t16 = mb.handle(0, 0, 0);
    let t32 = mb.handle(0, 1, 1);
    let t64 = mb.handle(0, 2, 2);
    let s = mb.handle(3, 0, 0);
    let input = mb.handle(1, 0, 0);
    let out = mb.handle(1, 1, 1);
    let t = thread_x(&mut mb);
    let sixteen = mb.ci(32, 16);
    let at = mb.bin(BinOp::Mul, t, sixteen, i32t);
    let [u, v, _, _] = load4(&mut mb, input, at, f32t, "f32");
    let [_, _, ox, oy] = load4(&mut mb, input, at, i32t, "i32");
    let sixty_four = mb.ci(32, 64);
    let base = mb.bin(BinOp::Mul, t, sixty_four, i32t);
    let fu = mb.undef(f32t);
    let zero = mb.ci(32, 0);
    let gather = |mb: &mut Mb, h: ValueId, ty: TypeId, tag: &str, o: [ValueId; 2]| {
        let rt = resret(mb, ty, tag);
        mb.dx(
            &format!("textureGatherRaw.{tag}"),
            DxOp::TextureGatherRaw,
            &[h, s, u, v, fu, fu, o[0], o[1]],
            rt,
        )
    };
    let r16 = gather(&mut mb, t16, i16t, "i16", [zero, zero]);
    let r32 = gather(&mut mb, t32, i32t, "i32", [ox, oy]);
    let r64 = gather(&mut mb, t64, i64t, "i64", [ox, oy]);
    for k in 0..4u32 {
        let x = member(&mut mb, r16, k, i16t);
        let x = mb.cast(CastOp::ZExt, x, i32t);
        store_at(&mut mb, out, base, i64::from(k), x);
        let y = member(&mut mb, r32, k, i32t);
        store_at(&mut mb, out, base, 4 + i64::from(k), y);
        let z = member(&mut mb, r64, k, i64t);
        let lo = mb.cast(CastOp::Trunc, z, i32t);
        let thirty_two = mb.ci(64, 32);
        let hi = mb.bin(BinOp::LShr, z, thirty_two, i64t);
        let hi = mb.cast(CastOp::Trunc, hi, i32t);
        store_at(&mut mb, out, base, 8 + 2 * i64::from(k), lo);
        store_at(&mut mb, out, base, 9 + 2 * i64::from(k), hi);
    }
    container(
        mb,
        7,
        &[
            Res::Texture {
                shape: 2,
                component: 3,
            },
            Res::Texture {
                shape: 2,
                component: 5,
            },
            Res::Texture {
                shape: 2,
                component: 7,
            },
            Res::Sampler,
            Res::RawUav,
            Res::RawUav,
        ],
        4,
    )
}

/// `rawBufferVectorLoad.<tag>(h, addr, undef, 4)`'s vector.
fn vload(mb: &mut Mb, h: ValueId, addr: ValueId, vt: TypeId, tag: &str) -> ValueId {
    let i32t = mb.int(32);
    let rt = mb.named(&format!("dx.types.ResRet.{tag}"), vec![vt, i32t]);
    let u = mb.undef(i32t);
    let align = mb.ci(32, 4);
    let r = mb.dx(
        &format!("rawBufferVectorLoad.{tag}"),
        DxOp::RawBufferVectorLoad,
        &[h, addr, u, align],
        rt,
    );
    mb.extract_value(r, 0, vt)
}

/// The `cs_6_9` program of `wave_match.toml`:
///
/// ```hlsl
/// RWByteAddressBuffer In : register(u0), Out : register(u1);
/// [numthreads(8, 1, 1)]
/// void main(uint t : SV_DispatchThreadID) {
///     if (t != 7) {
///         Out.Store4(32 * t, WaveMatch(In.Load<float3>(12 * t)));
///         Out.Store4(32 * t + 16, WaveMatch(In.Load<vector<int, 5> >(96 + 20 * t)));
///     }
/// }
/// ```
fn wave_match_program() -> Vec<u8> {
    let mut mb = Mb::new(DL16);
    mb.block(); // 0
    let (i32t, f32t) = (mb.int(32), mb.t(Type::Float));
    let input = mb.handle(1, 0, 0);
    let out = mb.handle(1, 1, 1);
    let t = thread_x(&mut mb);
    let seven = mb.ci(32, 7);
    let runs = mb.icmp(33, t, seven); // ne
    mb.cond_br(runs, BlockId(1), BlockId(2));
    mb.block(); // 1
    let fv = mb.vector(3, f32t);
    let iv = mb.vector(5, i32t);
    let four = mb.named("dx.types.fouri32", vec![i32t, i32t, i32t, i32t]);
    let twelve = mb.ci(32, 12);
    let at = mb.bin(BinOp::Mul, t, twelve, i32t);
    let f = vload(&mut mb, input, at, fv, "v3f32");
    let twenty = mb.ci(32, 20);
    let at = mb.bin(BinOp::Mul, t, twenty, i32t);
    let ninety_six = mb.ci(32, 96);
    let at = mb.bin(BinOp::Add, at, ninety_six, i32t);
    let i = vload(&mut mb, input, at, iv, "v5i32");
    let mf = mb.dx("waveMatch.v3f32", DxOp::WaveMatch, &[f], four);
    let mi_ = mb.dx("waveMatch.v5i32", DxOp::WaveMatch, &[i], four);
    let thirty_two = mb.ci(32, 32);
    let base = mb.bin(BinOp::Mul, t, thirty_two, i32t);
    for (j, m) in [mf, mi_].into_iter().enumerate() {
        for k in 0..4u32 {
            let w = member(&mut mb, m, k, i32t);
            store_at(&mut mb, out, base, 4 * j as i64 + i64::from(k), w);
        }
    }
    mb.br(BlockId(2));
    mb.block(); // 2
    container(mb, 9, &[Res::RawUav, Res::RawUav], 8)
}

/// The containers of `tests/jobs/sm67/`, by file name.
fn containers() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("gather_raw.dxil", gather_raw_program()),
        ("wave_match.dxil", wave_match_program()),
    ]
}

#[test]
fn the_committed_containers_are_regenerated_unchanged() {
    common::check_built_files(FOLDER, containers());
}

/// Runs `tests/jobs/sm67/<name>.toml` on both engines and asserts that its `expects`
/// expectations all hold.
fn run_job(name: &str, expects: usize) {
    let path = common::root().join(FOLDER).join(format!("{name}.toml"));
    let r = common::run_job_both(&path, &format!("sm67-{name}"), common::run_options())
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let e = &r.summary.expectations;
    let failures: Vec<String> = e
        .results
        .iter()
        .filter(|x| !x.passed)
        .flat_map(|x| x.mismatch_lines())
        .collect();
    assert!(failures.is_empty(), "{name}:\n{}", failures.join("\n"));
    assert_eq!((e.passed, e.failed), (expects, 0), "{name}");
}

/// HLSL SM 6.7 "Raw Gather Methods": `GatherRaw` returns the raw bits of the four texels a
/// gather picks through `R16_UINT`, `R32_UINT` and `R32G32_UINT` views — here views of an
/// `R16_FLOAT`, an `R32_FLOAT` and an `R16G16B16A16_UINT` texture ("Resource Integer
/// Aliasing"), so the float bits arrive unconverted and a 64-bit element carries all four
/// 16-bit channels; offsets (immediate and programmable) and the border address mode act
/// as for `Gather` (D3D11.3 §7.18.7 gather4). The expected words are derived in the job.
#[test]
fn gather_raw_reads_the_texels_bits() {
    run_job("gather_raw", 4);
}

/// HLSL `WaveMatch` on a vector (a vector overload in SM 6.9: proposal 0030 Appendix 1):
/// the mask of active lanes whose whole vector equals this lane's — the AND of the
/// element-wise matches, as dxc lowers it for earlier shader models. Lanes equal in some
/// elements only are not in each other's masks; floats compare by their bits (a NaN
/// matches the same NaN, −0 does not match +0); the inactive lane 7 is in no mask.
#[test]
fn wave_match_compares_whole_vectors() {
    run_job("wave_match", 2);
}

/// The features leave `info`'s list of refused features, and the committed programs
/// lower and validate.
#[test]
fn the_features_are_no_longer_refused() {
    let refused = dxlane::lower::dxil::REFUSED_FEATURES.join(", ");
    for gone in ["TextureGatherRaw", "WaveMatch", "helper lanes"] {
        assert!(!refused.contains(gone), "{refused}");
    }
    for (name, bytes) in containers() {
        let p = load(&bytes, &LoadOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        dxlane::ir::validate(&p.shader).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// Raw gathers are for 2D and 2D-array textures only (HLSL SM 6.7 "Raw Gather Methods":
/// "`<TexObject>` does not include cube textures"; Issues 4): the same gather of a
/// `TextureCube` handle is refused at load time, naming the operation and where it is.
#[test]
fn gather_raw_of_a_cube_is_refused() {
    let mut mb = Mb::new(DL16);
    mb.block();
    let (i32t, f32t) = (mb.int(32), mb.t(Type::Float));
    let cube = mb.handle(0, 0, 0);
    let s = mb.handle(3, 0, 0);
    let out = mb.handle(1, 0, 0);
    let (half, zero, fu) = (
        mb.c(f32t, dxlane::dxil::llvm::Constant::Float(0x3f00_0000)),
        mb.ci(32, 0),
        mb.undef(f32t),
    );
    let rt = resret(&mut mb, i32t, "i32");
    let r = mb.dx(
        "textureGatherRaw.i32",
        DxOp::TextureGatherRaw,
        &[cube, s, half, half, half, fu, zero, zero],
        rt,
    );
    let x = member(&mut mb, r, 0, i32t);
    mb.store_word(out, zero, x);
    let bytes = container(
        mb,
        7,
        &[
            Res::Texture {
                shape: 5,
                component: 5,
            },
            Res::Sampler,
            Res::RawUav,
        ],
        1,
    );
    match load(&bytes, &LoadOptions::default()) {
        Err(e @ LowerError::Invalid { .. }) => {
            let text = e.to_string();
            for part in ["TextureGatherRaw", "TextureCube", "@main"] {
                assert!(text.contains(part), "{text:?} does not say {part:?}");
            }
        }
        Err(e) => panic!("not refused as invalid: {e}"),
        Ok(_) => panic!("a raw gather of a cube lowered"),
    }
}
