//! SM 6.5's sampler feedback (`WriteSamplerFeedback`, `…Bias`, `…Level`, `…Grad`) in a
//! compute program built with the project's bitcode builder (`dxil::llvm::build`; no dxc
//! here) and committed under `tests/jobs/feedback/` next to the job that runs it:
//! [`the_committed_container_is_regenerated_unchanged`] keeps the file in step with the
//! builder below (`DXLANE_BLESS=1` rewrites it). The job's `[[expect]]` maps are derived by
//! hand in its comments (DirectX-Specs "Sampler Feedback"; the rules dxlane follows are in
//! `resources::feedback`); the test runs the job on both engines. Bad input — a feedback
//! operation on a texture handle, a map where the program declares a texture, a mip region
//! the spec does not allow, a paired texture of the wrong shape, sizes that disagree — is
//! refused with a message naming what and where.

use dxlane::container::write::{dxil_part, write_container};
use dxlane::container::{FourCc, ProgramKind, ProgramVersion};
use dxlane::dxil::dxop::DxOp;
use dxlane::dxil::llvm::build::{EntryPoint, Mb};
use dxlane::dxil::llvm::write::write_module;
use dxlane::dxil::llvm::{BinOp, Constant, MdId, Metadata, Type, TypeId, ValueId};
use dxlane::lower::{LoadOptions, LowerError, load};

use crate::common;

const DL: &str = "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64";

/// The folder of the committed container and its job.
const FOLDER: &str = "tests/jobs/feedback";

/// A resource of a test program, in register order within its class.
#[derive(Clone, Copy)]
enum Res {
    /// A float texture SRV of DXIL shape `shape` (2 Texture2D, 7 Texture2DArray).
    Texture { shape: i64 },
    /// A feedback UAV of DXIL shape `shape` (17 FeedbackTexture2D, 18
    /// FeedbackTexture2DArray) and SamplerFeedbackType `kind` (0 MinMip, 1
    /// MipRegionUsed), the record's tag 2.
    Feedback { shape: i64, kind: i64 },
    /// A raw-buffer UAV (shape 11).
    RawUav,
    /// A sampler.
    Sampler,
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

/// Finishes `mb` as the `cs_6_6` entry `main` with `[numthreads(2, 2, 1)]` (one SM 6.6
/// compute quad) and `resources` (each class numbered from 0 in the order given).
fn container(mut mb: Mb, resources: &[Res]) -> Vec<u8> {
    let version = [mi(&mut mb, 32, 1), mi(&mut mb, 32, 6)];
    let version = node(&mut mb, version.to_vec());
    let cs = Some(mb.md(Metadata::String(b"cs".to_vec())));
    let sm = [cs, mi(&mut mb, 32, 6), mi(&mut mb, 32, 6)];
    let sm = node(&mut mb, sm.to_vec());
    let (mut srvs, mut uavs, mut samplers) = (Vec::new(), Vec::new(), Vec::new());
    for r in resources {
        let name = Some(mb.md(Metadata::String(Vec::new())));
        let id = match r {
            Res::Texture { .. } => srvs.len(),
            Res::Feedback { .. } | Res::RawUav => uavs.len(),
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
            Res::Texture { shape } => {
                let tags = [mi(&mut mb, 32, 0), mi(&mut mb, 32, 9)];
                let tags = node(&mut mb, tags.to_vec());
                ops.extend([mi(&mut mb, 32, *shape), mi(&mut mb, 32, 0), tags]);
                srvs.push(node(&mut mb, ops));
            }
            Res::Feedback { shape, kind } => {
                let tags = [mi(&mut mb, 32, 2), mi(&mut mb, 32, *kind)];
                let tags = node(&mut mb, tags.to_vec());
                ops.extend([
                    mi(&mut mb, 32, *shape),
                    mi(&mut mb, 1, 0),
                    mi(&mut mb, 1, 0),
                    mi(&mut mb, 1, 0),
                    tags,
                ]);
                uavs.push(node(&mut mb, ops));
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
    let t = [2, 2, 1].map(|x| mi(&mut mb, 32, x));
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
        minor: 6,
    };
    let dxil = dxil_part(program, (1, 6), &bitcode).unwrap();
    write_container(&[(FourCc::DXIL, &dxil)]).unwrap()
}

/// `%dx.types.ResRet.f32` = `{ float, float, float, float, i32 }`.
fn resret(mb: &mut Mb, f32t: TypeId) -> TypeId {
    let i32t = mb.int(32);
    mb.named("dx.types.ResRet.f32", vec![f32t, f32t, f32t, f32t, i32t])
}

/// The four floats at byte `addr` of raw buffer `h`.
fn load4(mb: &mut Mb, h: ValueId, addr: ValueId) -> [ValueId; 4] {
    let (i32t, f32t) = (mb.int(32), mb.t(Type::Float));
    let rt = resret(mb, f32t);
    let u = mb.undef(i32t);
    let (mask, align) = (mb.ci(8, 0xf), mb.ci(32, 4));
    let r = mb.dx(
        "rawBufferLoad.f32",
        DxOp::RawBufferLoad,
        &[h, addr, u, mask, align],
        rt,
    );
    [0, 1, 2, 3].map(|k| mb.extract_value(r, k, f32t))
}

fn float(mb: &mut Mb, x: f32) -> ValueId {
    let f32t = mb.t(Type::Float);
    mb.c(f32t, Constant::Float(u64::from(x.to_bits())))
}

/// The `cs_6_6` program of `feedback.toml`:
///
/// ```hlsl
/// Texture2D<float> T : register(t0);
/// Texture2DArray<float> TA : register(t1);
/// SamplerState Point : register(s0), Linear : register(s1);
/// FeedbackTexture2D<SAMPLER_FEEDBACK_MIN_MIP> Levels : register(u0);
/// FeedbackTexture2D<SAMPLER_FEEDBACK_MIP_REGION_USED> Grads : register(u1);
/// FeedbackTexture2DArray<SAMPLER_FEEDBACK_MIN_MIP> Slices : register(u2);
/// FeedbackTexture2D<SAMPLER_FEEDBACK_MIN_MIP> Implicit : register(u3);
/// FeedbackTexture2D<SAMPLER_FEEDBACK_MIN_MIP> Biased : register(u4);
/// ByteAddressBuffer In : register(u5);   // a RWByteAddressBuffer
/// [numthreads(2, 2, 1)]
/// void main(uint t : SV_GroupIndex) {
///     float4 a = asfloat(In.Load4(32 * t)), b = asfloat(In.Load4(32 * t + 16));
///     float2 uv = a.xy; float slice = a.z, lod = a.w, clamp = b.x, g = b.y, gu = b.z;
///     Levels.WriteSamplerFeedbackLevel(T, Point, uv, lod);
///     Grads.WriteSamplerFeedbackGrad(T, Linear, float2(gu, uv.y), float2(g, 0),
///                                    float2(0, g), clamp);
///     Slices.WriteSamplerFeedbackLevel(TA, Point, float3(uv, slice), lod);
///     Implicit.WriteSamplerFeedback(T, Point, uv, clamp);
///     Biased.WriteSamplerFeedbackBias(T, Point, uv, -1.0, clamp);
/// }
/// ```
fn feedback_program() -> Vec<u8> {
    let mut mb = Mb::new(DL);
    mb.block();
    let (i32t, f32t) = (mb.int(32), mb.t(Type::Float));
    let void = mb.void();
    let t = mb.handle(0, 0, 0);
    let ta = mb.handle(0, 1, 1);
    let point = mb.handle(3, 0, 0);
    let linear = mb.handle(3, 1, 1);
    let levels = mb.handle(1, 0, 0);
    let grads = mb.handle(1, 1, 1);
    let slices = mb.handle(1, 2, 2);
    let implicit = mb.handle(1, 3, 3);
    let biased = mb.handle(1, 4, 4);
    let input = mb.handle(1, 5, 5);
    let index = mb.dx(
        "flattenedThreadIdInGroup.i32",
        DxOp::FlattenedThreadIdInGroup,
        &[],
        i32t,
    );
    let (k32, k16) = (mb.ci(32, 32), mb.ci(32, 16));
    let at = mb.bin(BinOp::Mul, index, k32, i32t);
    let [u, v, slice, lod] = load4(&mut mb, input, at);
    let at = mb.bin(BinOp::Add, at, k16, i32t);
    let [clamp, g, gu, _] = load4(&mut mb, input, at);
    let fu = mb.undef(f32t);
    let zero = float(&mut mb, 0.0);
    let minus_one = float(&mut mb, -1.0);
    mb.dx(
        "writeSamplerFeedbackLevel",
        DxOp::WriteSamplerFeedbackLevel,
        &[levels, t, point, u, v, fu, fu, lod],
        void,
    );
    mb.dx(
        "writeSamplerFeedbackGrad",
        DxOp::WriteSamplerFeedbackGrad,
        &[
            grads, t, linear, gu, v, fu, fu, g, zero, fu, zero, g, fu, clamp,
        ],
        void,
    );
    mb.dx(
        "writeSamplerFeedbackLevel",
        DxOp::WriteSamplerFeedbackLevel,
        &[slices, ta, point, u, v, slice, fu, lod],
        void,
    );
    mb.dx(
        "writeSamplerFeedback",
        DxOp::WriteSamplerFeedback,
        &[implicit, t, point, u, v, fu, fu, clamp],
        void,
    );
    mb.dx(
        "writeSamplerFeedbackBias",
        DxOp::WriteSamplerFeedbackBias,
        &[biased, t, point, u, v, fu, fu, minus_one, clamp],
        void,
    );
    container(
        mb,
        &[
            Res::Texture { shape: 2 },
            Res::Texture { shape: 7 },
            Res::Sampler,
            Res::Sampler,
            Res::Feedback { shape: 17, kind: 0 },
            Res::Feedback { shape: 17, kind: 1 },
            Res::Feedback { shape: 18, kind: 0 },
            Res::Feedback { shape: 17, kind: 0 },
            Res::Feedback { shape: 17, kind: 0 },
            Res::RawUav,
        ],
    )
}

/// The containers of `tests/jobs/feedback/`, by file name.
fn containers() -> Vec<(&'static str, Vec<u8>)> {
    vec![("feedback.dxil", feedback_program())]
}

#[test]
fn the_committed_container_is_regenerated_unchanged() {
    let dir = common::root().join(FOLDER);
    let bless = std::env::var_os("DXLANE_BLESS").is_some();
    for (name, bytes) in containers() {
        let path = dir.join(name);
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &bytes).unwrap();
            continue;
        }
        let old = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{name}: {e}; DXLANE_BLESS=1 writes it"));
        assert!(
            old == bytes,
            "{FOLDER}/{name} differs from what its builder makes (DXLANE_BLESS=1 rewrites it)"
        );
    }
}

/// DirectX-Specs "Sampler Feedback": each operation records the regions of the paired
/// texture the equivalent sample reads — `Level` at its LOD (MinMip: the most detailed
/// mip per region), `Grad` with its gradients, trilinear blends, the clamp and a WRAP
/// footprint across the left edge (MipRegionUsed: every mip's regions), a 2D array's
/// slice (per-slice maps), and the implicit LOD of a compute quad's derivatives with
/// and without a bias. Every byte of the five decoded maps is derived in the job.
#[test]
fn feedback_maps_record_the_sampled_regions() {
    let path = common::root().join(FOLDER).join("feedback.toml");
    let r = common::run_job_both(&path, "feedback", common::run_options())
        .unwrap_or_else(|e| panic!("feedback: {e}"));
    let e = &r.summary.expectations;
    let failures: Vec<String> = e
        .results
        .iter()
        .filter(|x| !x.passed)
        .flat_map(|x| x.mismatch_lines())
        .collect();
    assert!(failures.is_empty(), "feedback:\n{}", failures.join("\n"));
    assert_eq!((e.passed, e.failed), (5, 0));
}

/// Sampler feedback leaves `info`'s list of refused features, and the committed
/// program lowers and validates.
#[test]
fn sampler_feedback_is_no_longer_refused() {
    let refused = dxlane::lower::dxil::REFUSED_FEATURES.join(", ");
    assert!(!refused.contains("feedback"), "{refused}");
    for (name, bytes) in containers() {
        let p = load(&bytes, &LoadOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        dxlane::ir::validate(&p.shader).unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}

/// "WriteSamplerFeedback": operand 1 is a feedback texture. The same operation on a
/// texture handle is refused at load, naming the operation, the kind and the function.
#[test]
fn feedback_on_a_texture_handle_is_refused() {
    let mut mb = Mb::new(DL);
    mb.block();
    let void = mb.void();
    let t = mb.handle(0, 0, 0);
    let s = mb.handle(3, 0, 0);
    let (half, f32t) = (float(&mut mb, 0.5), mb.t(Type::Float));
    let fu = mb.undef(f32t);
    mb.dx(
        "writeSamplerFeedbackLevel",
        DxOp::WriteSamplerFeedbackLevel,
        &[t, t, s, half, half, fu, fu, half],
        void,
    );
    let bytes = container(mb, &[Res::Texture { shape: 2 }, Res::Sampler]);
    match load(&bytes, &LoadOptions::default()) {
        Err(e @ LowerError::Invalid { .. }) => {
            let text = e.to_string();
            for part in ["WriteSamplerFeedbackLevel", "texture2d", "@main"] {
                assert!(text.contains(part), "{text:?} does not say {part:?}");
            }
        }
        Err(e) => panic!("not refused as invalid: {e}"),
        Ok(_) => panic!("feedback on a texture handle lowered"),
    }
}

/// The job of `feedback.toml` with `edit` applied to its text, run; its error.
fn error_with(tag: &str, edit: impl Fn(&str) -> String) -> String {
    let text = std::fs::read_to_string(common::root().join(FOLDER).join("feedback.toml")).unwrap();
    let dir = common::scratch().join("feedback_errors").join(tag);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        common::root().join(FOLDER).join("feedback.dxil"),
        dir.join("feedback.dxil"),
    )
    .unwrap();
    let path = dir.join("job.toml");
    std::fs::write(&path, edit(&text)).unwrap();
    match dxlane::job::run_job(&path, &common::run_options()) {
        Ok(_) => panic!("{tag}: the job ran"),
        Err(e) => e.to_string(),
    }
}

/// "Mip region constraints" and "Resource properties": a region below 4 or not a power
/// of two, a paired texture that is not 2D, sizes that disagree with the paired
/// texture's, a map's kind that disagrees with the program's, and a map bound where the
/// program declares something else are refused, naming the entry and the key.
#[test]
fn bad_feedback_entries_are_refused() {
    let cases: [(&str, &str, &str, &[&str]); 6] = [
        (
            "small_region",
            "mip_region = [8, 8] # u0",
            "mip_region = [2, 8] # u0",
            &[
                "(u0)",
                "`mip_region`",
                "width 2 is not a power of two of at least 4",
            ],
        ),
        (
            "odd_region",
            "mip_region = [8, 8] # u0",
            "mip_region = [8, 12] # u0",
            &["(u0)", "`mip_region`", "height 12"],
        ),
        (
            "paired_array",
            "paired = \"t0\" # u0",
            "paired = \"t1\" # u0",
            &[
                "(u0)",
                "`paired` \"t1\" is a texture2darray",
                "feedback_texture2d",
            ],
        ),
        (
            "width",
            "mip_region = [8, 8] # u0",
            "mip_region = [8, 8] # u0\nwidth = 16",
            &[
                "(u0)",
                "`width` 16 disagrees with the paired texture's width 32",
            ],
        ),
        (
            "kind",
            "feedback = \"min_mip\" # u0",
            "feedback = \"mip_region_used\" # u0",
            &["u0", "feedback_texture2d(min_mip)", "mip_region_used"],
        ),
        (
            "not_a_map",
            "kind = \"feedback_texture2d\" # u4",
            "kind = \"raw_buffer\" # u4\nsize = 16 #",
            &["u4", "feedback_texture2d(min_mip)", "raw_buffer"],
        ),
    ];
    for (tag, from, to, parts) in cases {
        let e = error_with(tag, |t| {
            assert!(t.contains(from), "{tag}: the job has no {from:?}");
            let t = t.replacen(from, to, 1);
            if tag == "not_a_map" {
                // A raw buffer takes none of the map's keys.
                let mut out = String::new();
                let mut in_u4 = false;
                for line in t.lines() {
                    if line.starts_with("[[") {
                        in_u4 = false;
                    }
                    if line.contains("# u4") {
                        in_u4 = true;
                    }
                    let map_key = ["paired", "feedback", "mip_region", "output"]
                        .iter()
                        .any(|k| line.starts_with(k));
                    if !(in_u4 && map_key) {
                        out.push_str(line);
                        out.push('\n');
                    }
                }
                out
            } else {
                t
            }
        });
        for part in parts {
            assert!(e.contains(part), "{tag}: {e:?} does not say {part:?}");
        }
    }
}
