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
fn container(mb: Mb, resources: &[Res]) -> Vec<u8> {
    finish(mb, ProgramKind::Compute, resources)
}

/// A signature element of the pixel program: name, DXIL semantic kind, columns, row and
/// interpolation (all 32-bit floats).
type Sig = (&'static str, i64, i64, i64, i64);

/// The pixel program's inputs: `SV_Position` (linear without perspective) and
/// `TEXCOORD` (linear), at rows 0 and 1 as `sampling.vs.ir` writes them.
const PS_INPUTS: [Sig; 2] = [("SV_Position", 3, 4, 0, 4), ("TEXCOORD", 0, 2, 1, 2)];
/// Its output, `SV_Target` (float4).
const PS_OUTPUTS: [Sig; 1] = [("SV_Target", 16, 4, 0, 0)];

/// A signature list's node.
fn sig_list(mb: &mut Mb, sigs: &[Sig]) -> Option<MdId> {
    let mut list = Vec::new();
    for (id, &(name, kind, cols, row, interp)) in sigs.iter().enumerate() {
        let zero = mi(mb, 32, 0);
        let indices = node(mb, vec![zero]);
        let name = Some(mb.md(Metadata::String(name.as_bytes().to_vec())));
        let ops = vec![
            mi(mb, 32, id as i64),
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
        list.push(node(mb, ops));
    }
    node(mb, list)
}

/// Finishes `mb` as the entry `main` of a `cs_6_6` program (as [`container`]) or a
/// `ps_6_5` program (signatures [`PS_INPUTS`] and [`PS_OUTPUTS`]) with `resources`.
fn finish(mut mb: Mb, kind: ProgramKind, resources: &[Res]) -> Vec<u8> {
    let pixel = kind == ProgramKind::Pixel;
    let (profile, minor) = if pixel { ("ps", 5) } else { ("cs", 6) };
    let version = [mi(&mut mb, 32, 1), mi(&mut mb, 32, minor)];
    let version = node(&mut mb, version.to_vec());
    let p = Some(mb.md(Metadata::String(profile.as_bytes().to_vec())));
    let sm = [p, mi(&mut mb, 32, 6), mi(&mut mb, 32, minor)];
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
    let (signatures, props) = if pixel {
        let ins = sig_list(&mut mb, &PS_INPUTS);
        let outs = sig_list(&mut mb, &PS_OUTPUTS);
        (node(&mut mb, vec![ins, outs, None]), None)
    } else {
        let t = [2, 2, 1].map(|x| mi(&mut mb, 32, x));
        let t = node(&mut mb, t.to_vec());
        let props = [mi(&mut mb, 32, 4), t];
        (None, node(&mut mb, props.to_vec()))
    };
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
        minor: minor as u8,
    };
    let dxil = dxil_part(program, (1, minor as u8), &bitcode).unwrap();
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
/// ByteAddressBuffer In : register(u3);   // a RWByteAddressBuffer
/// [numthreads(2, 2, 1)]
/// void main(uint t : SV_GroupIndex) {
///     float4 a = asfloat(In.Load4(32 * t)), b = asfloat(In.Load4(32 * t + 16));
///     float2 uv = a.xy; float slice = a.z, lod = a.w, clamp = b.x, g = b.y, gu = b.z;
///     Levels.WriteSamplerFeedbackLevel(T, Point, uv, lod);
///     Grads.WriteSamplerFeedbackGrad(T, Linear, float2(gu, uv.y), float2(g, 0),
///                                    float2(0, g), clamp);
///     Slices.WriteSamplerFeedbackLevel(TA, Point, float3(uv, slice), lod);
/// }
/// ```
///
/// (`WriteSamplerFeedback` and `…Bias` are pixel-only: [`pixel_program`].)
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
    let input = mb.handle(1, 3, 3);
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
            Res::RawUav,
        ],
    )
}

/// The `ps_6_5` program of `feedback_ps.toml`:
///
/// ```hlsl
/// Texture2D<float> T : register(t0);
/// SamplerState Point : register(s0);
/// FeedbackTexture2D<SAMPLER_FEEDBACK_MIN_MIP> Implicit : register(u0);
/// FeedbackTexture2D<SAMPLER_FEEDBACK_MIP_REGION_USED> Biased : register(u1);
/// float4 main(float4 pos : SV_Position, float2 uv : TEXCOORD) : SV_Target {
///     float2 st = uv * 0.5;
///     Implicit.WriteSamplerFeedback(T, Point, st);
///     Biased.WriteSamplerFeedbackBias(T, Point, st, 1.0);
///     return 0;
/// }
/// ```
fn pixel_program() -> Vec<u8> {
    let mut mb = Mb::new(DL);
    mb.block();
    let (i32t, f32t) = (mb.int(32), mb.t(Type::Float));
    let void = mb.void();
    let t = mb.handle(0, 0, 0);
    let point = mb.handle(3, 0, 0);
    let implicit = mb.handle(1, 0, 0);
    let biased = mb.handle(1, 1, 1);
    let (zero, one, iu) = (mb.ci(32, 0), mb.ci(32, 1), mb.undef(i32t));
    let (half, fone, fzero) = (
        float(&mut mb, 0.5),
        float(&mut mb, 1.0),
        float(&mut mb, 0.0),
    );
    let fu = mb.undef(f32t);
    let [u, v] = [0, 1].map(|col| {
        let c = mb.ci(8, col);
        let x = mb.dx("loadInput.f32", DxOp::LoadInput, &[one, zero, c, iu], f32t);
        mb.bin(BinOp::Mul, x, half, f32t)
    });
    mb.dx(
        "writeSamplerFeedback",
        DxOp::WriteSamplerFeedback,
        &[implicit, t, point, u, v, fu, fu, fu],
        void,
    );
    mb.dx(
        "writeSamplerFeedbackBias",
        DxOp::WriteSamplerFeedbackBias,
        &[biased, t, point, u, v, fu, fu, fone, fu],
        void,
    );
    for col in 0..4 {
        let c = mb.ci(8, col);
        mb.dx(
            "storeOutput.f32",
            DxOp::StoreOutput,
            &[zero, zero, c, fzero],
            void,
        );
    }
    finish(
        mb,
        ProgramKind::Pixel,
        &[
            Res::Texture { shape: 2 },
            Res::Sampler,
            Res::Feedback { shape: 17, kind: 0 },
            Res::Feedback { shape: 17, kind: 1 },
        ],
    )
}

/// The containers of `tests/jobs/feedback/`, by file name.
fn containers() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("feedback.dxil", feedback_program()),
        ("feedback.ps.dxil", pixel_program()),
    ]
}

#[test]
fn the_committed_container_is_regenerated_unchanged() {
    common::check_built_files(FOLDER, containers());
}

/// DirectX-Specs "Sampler Feedback": each operation records the regions of the paired
/// texture the equivalent sample reads — `Level` at its LOD (MinMip: the most detailed
/// mip per region), `Grad` with its gradients, trilinear blends, the clamp and a WRAP
/// footprint across the left edge (MipRegionUsed: every mip's regions), and a 2D
/// array's slice (per-slice maps). Every byte of the three decoded maps is derived in
/// the job.
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
    assert_eq!((e.passed, e.failed), (3, 0));
}

/// DirectX-Specs "Sampler Feedback", the pixel stage: `WriteSamplerFeedback` takes its
/// LOD from the pixel quad's derivatives and `…Bias` adds its bias to that LOD; a
/// full-screen triangle over a 16 × 16 target records the regions its samples read.
/// Every byte of both decoded maps is derived in `feedback_ps.toml`.
#[test]
fn pixel_programs_record_feedback_at_the_quads_lod() {
    let path = common::root().join(FOLDER).join("feedback_ps.toml");
    let (failures, counts) =
        common::expect_both(&path, "feedback_ps").unwrap_or_else(|e| panic!("{e}"));
    assert!(failures.is_empty(), "feedback_ps:\n{}", failures.join("\n"));
    assert_eq!(counts, (2, 0));
}

/// DirectX-Specs "Sampler Feedback", "HLSL constructs for writing to feedback maps":
/// `WriteSamplerFeedback` and `WriteSamplerFeedbackBias` are allowed in the pixel stage
/// only (the Level and Grad forms in every stage; dxc's op table agrees, even though
/// SM 6.6 gives compute programs derivatives). In a compute program, whose quads have
/// derivatives, each is refused at load, naming the operation and the stage.
#[test]
fn implicit_lod_feedback_outside_pixel_programs_is_refused() {
    for (op, name) in [
        (DxOp::WriteSamplerFeedback, "writeSamplerFeedback"),
        (DxOp::WriteSamplerFeedbackBias, "writeSamplerFeedbackBias"),
    ] {
        let mut mb = Mb::new(DL);
        mb.block();
        let void = mb.void();
        let t = mb.handle(0, 0, 0);
        let s = mb.handle(3, 0, 0);
        let f = mb.handle(1, 0, 0);
        let (half, f32t) = (float(&mut mb, 0.5), mb.t(Type::Float));
        let fu = mb.undef(f32t);
        let mut args = vec![f, t, s, half, half, fu, fu];
        if op == DxOp::WriteSamplerFeedbackBias {
            args.push(half);
        }
        args.push(fu);
        mb.dx(name, op, &args, void);
        let bytes = container(
            mb,
            &[
                Res::Texture { shape: 2 },
                Res::Sampler,
                Res::Feedback { shape: 17, kind: 0 },
            ],
        );
        match load(&bytes, &LoadOptions::default()) {
            Err(e @ LowerError::Invalid { .. }) => {
                let text = e.to_string();
                let op_name = format!("{op:?}");
                for part in [&op_name[..], "in a compute program", "pixel programs only"] {
                    assert!(text.contains(part), "{text:?} does not say {part:?}");
                }
            }
            Err(e) => panic!("{name}: not refused as invalid: {e}"),
            Ok(_) => panic!("{name} lowered in a compute program"),
        }
    }
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
            "kind = \"feedback_texture2darray\" # u2",
            "kind = \"raw_buffer\" # u2\nsize = 16 #",
            &["u2", "feedback_texture2darray(min_mip)", "raw_buffer"],
        ),
    ];
    for (tag, from, to, parts) in cases {
        let e = error_with(tag, |t| {
            assert!(t.contains(from), "{tag}: the job has no {from:?}");
            let t = t.replacen(from, to, 1);
            if tag == "not_a_map" {
                // A raw buffer takes none of the map's keys.
                let mut out = String::new();
                let mut in_u2 = false;
                for line in t.lines() {
                    if line.starts_with("[[") {
                        in_u2 = false;
                    }
                    if line.contains("# u2") {
                        in_u2 = true;
                    }
                    let map_key = ["paired", "feedback", "mip_region", "output"]
                        .iter()
                        .any(|k| line.starts_with(k));
                    if !(in_u2 && map_key) {
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

/// DirectX-Specs "Sampler Feedback" in a command list: `copy_resource` copies a map to a
/// map, `resolve_subresource` decodes a map into an `R8_UINT` texture (locked to its
/// top-left corner) and encodes one into a map, and `clear_unordered_access` clears a
/// map to "no mip requested" whatever values it names. Every byte is derived in
/// `feedback_list.toml`.
#[test]
fn list_commands_copy_transcode_and_clear_feedback_maps() {
    let path = common::root().join(FOLDER).join("feedback_list.toml");
    let (failures, counts) =
        common::expect_both(&path, "feedback_list").unwrap_or_else(|e| panic!("{e}"));
    assert!(
        failures.is_empty(),
        "feedback_list:\n{}",
        failures.join("\n")
    );
    assert_eq!(counts, (5, 0));
}

/// DirectX-Specs "Sampler Feedback": "CopySubresourceRegion is not permitted for
/// feedback maps", CopyResource copies a map only to a map of one description, a
/// transcode's other side is a single-sampled `R8_UINT` 2D texture with the map's mip
/// count and array size and at least its size, the whole resource at once, and a map
/// is cleared by `ClearUnorderedAccessViewUint` over the whole map. Each breach of
/// `feedback_list.toml` is refused, naming the command's key and the resource.
#[test]
fn bad_feedback_list_commands_are_refused() {
    let text =
        std::fs::read_to_string(common::root().join(FOLDER).join("feedback_list.toml")).unwrap();
    let cases: [(&str, &str, &str, &[&str]); 9] = [
        (
            "copy_to_texture",
            "dst = \"levels_copy\"\nsrc = \"levels\"",
            "dst = \"decoded\"\nsrc = \"levels\"",
            &["copies a sampler feedback map only to another map"],
        ),
        (
            "copy_other_kind",
            "dst = \"levels_copy\"\nsrc = \"levels\"",
            "dst = \"encoded\"\nsrc = \"levels\"",
            &[
                "feedback maps of one description",
                "min_mip",
                "mip_region_used",
            ],
        ),
        (
            "region_copy",
            "type = \"copy_resource\"\ndst = \"levels_copy\"",
            "type = \"copy_texture_region\"\ndst = \"levels_copy\"",
            &[
                "`dst`",
                "\"levels_copy\"",
                "CopyTextureRegion does not copy",
            ],
        ),
        (
            "float_clear",
            "uint = [1, 2, 3, 4]",
            "float = [1, 2, 3, 4]",
            &["`float`", "\"levels\"", "ClearUnorderedAccessViewUint"],
        ),
        (
            "slice_clear",
            "uint = [1, 2, 3, 4]",
            "uint = [1, 2, 3, 4]\nslice = 0",
            &["`mip` and `slice`", "\"levels\""],
        ),
        (
            "mips",
            "name = \"grads_decoded\"\nkind = \"texture2d\"\nformat = \"R8_UINT\"\nwidth = 8\nheight = 8\nmips = 4",
            "name = \"grads_decoded\"\nkind = \"texture2d\"\nformat = \"R8_UINT\"\nwidth = 8\nheight = 8\nmips = 3",
            &["`dst`", "\"grads_decoded\"", "has 3 mip(s)", "has 4"],
        ),
        (
            "small",
            "width = 5\nheight = 4",
            "width = 3\nheight = 4",
            &["`dst`", "\"decoded\"", "smaller than the map's 4×4"],
        ),
        (
            "no_mode",
            "mode = \"decode_sampler_feedback\"\ndst = \"grads_decoded\"",
            "dst = \"grads_decoded\"",
            &["`src`", "\"grads\"", "give `mode`"],
        ),
        (
            "bad_mode",
            "mode = \"decode_sampler_feedback\"\ndst = \"grads_decoded\"",
            "mode = \"decode\"\ndst = \"grads_decoded\"",
            &["`mode` \"decode\"", "decode_sampler_feedback"],
        ),
    ];
    for (tag, from, to, parts) in cases {
        assert!(text.contains(from), "{tag}: the job has no {from:?}");
        let dir = common::scratch().join("feedback_list_errors").join(tag);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::copy(
            common::root().join(FOLDER).join("feedback.dxil"),
            dir.join("feedback.dxil"),
        )
        .unwrap();
        let path = dir.join("job.toml");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
        let opts = common::run_options();
        let job = dxlane::job::Job::load(&path).unwrap_or_else(|e| panic!("{tag}: {e}"));
        let e = match dxlane::job::prepare(job, &opts).and_then(|p| p.execute(&opts)) {
            Ok(_) => panic!("{tag}: the job ran"),
            Err(e) => e.to_string(),
        };
        for part in parts {
            assert!(e.contains(part), "{tag}: {e:?} does not say {part:?}");
        }
    }
}

/// A `cs_6_6` program that reaches every resource through the descriptor heaps:
///
/// ```hlsl
/// [numthreads(2, 2, 1)]
/// void main() {
///     Texture2D<float> t = ResourceDescriptorHeap[0];
///     FeedbackTexture2D<SAMPLER_FEEDBACK_MIN_MIP> m = ResourceDescriptorHeap[1];
///     SamplerState s = SamplerDescriptorHeap[0];
///     m.WriteSamplerFeedbackLevel(t, s, float2(0.375, 0.125), 1);
/// }
/// ```
fn heap_program() -> Vec<u8> {
    let mut mb = Mb::new(DL);
    mb.block();
    let (i32t, f32t, i1) = (mb.int(32), mb.t(Type::Float), mb.int(1));
    let void = mb.void();
    let ht = mb.handle_ty();
    let props_ty = mb.named("dx.types.ResourceProperties", vec![i32t, i32t]);
    let no = mb.ci(1, 0);
    let yes = mb.ci(1, 1);
    let _ = i1;
    // (heap slot, sampler heap, properties: DxilResourceProperties' two words).
    let handle = |mb: &mut Mb, slot: i64, sampler: bool, w: [i64; 2]| {
        let slot = mb.ci(32, slot);
        let h = mb.dx(
            "createHandleFromHeap",
            DxOp::CreateHandleFromHeap,
            &[slot, if sampler { yes } else { no }, no],
            ht,
        );
        let w = w.map(|x| mb.ci(32, x));
        let props = mb.c(props_ty, Constant::Aggregate(w.to_vec()));
        mb.dx("annotateHandle", DxOp::AnnotateHandle, &[h, props], ht)
    };
    // Texture2D<float>: kind 2, component type F32 (9) × 1; a MinMip FeedbackTexture2D:
    // kind 17 with the UAV bit (12), type 0; a sampler: kind 14.
    let t = handle(&mut mb, 0, false, [2, 9 | 1 << 8]);
    let map = handle(&mut mb, 1, false, [17 | 1 << 12, 0]);
    let s = handle(&mut mb, 0, true, [14, 0]);
    let (u, v, lod) = (
        float(&mut mb, 0.375),
        float(&mut mb, 0.125),
        float(&mut mb, 1.0),
    );
    let fu = mb.undef(f32t);
    mb.dx(
        "writeSamplerFeedbackLevel",
        DxOp::WriteSamplerFeedbackLevel,
        &[map, t, s, u, v, fu, fu, lod],
        void,
    );
    container(mb, &[])
}

/// A feedback map in a `[[heap]]` slot (SM 6.6 dynamic resources), paired with a
/// `[[resource]]` texture by name: `WriteSamplerFeedbackLevel` at LOD 1 reads mip 1's
/// texel (floor(0.375 · 16), floor(0.125 · 16)) = (6, 2), which covers mip-0 texels
/// (12..13, 4..5), region (1, 0) of the 8 × 8 regions: that region of the decoded MinMip
/// map holds 1, the rest ff. The pairing is checked: a heap map paired with nothing the
/// job names is refused.
#[test]
fn a_heap_slot_holds_a_feedback_map() {
    let dir = common::scratch().join("feedback_heap");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("heap.dxil"), heap_program()).unwrap();
    let job = r#"
[program]
cs = "heap.dxil"

[dispatch]
groups = [1, 1, 1]

[[resource]]
name = "T"
reg = "t0"
kind = "texture2d"
format = "R32_FLOAT"
width = 32
height = 32
mips = 4

[[heap]]
descriptor = "srv"
kind = "texture2d"
format = "R32_FLOAT"
width = 32
height = 32
mips = 4

[[heap]]
descriptor = "uav"
kind = "feedback_texture2d"
paired = "T"
feedback = "min_mip"
mip_region = [8, 8]

[[sampler_heap]]
filter = "MIN_MAG_MIP_POINT"

[[expect]]
heap = 1
hex = "ff01ffff ffffffff ffffffff ffffffff"
"#;
    let path = dir.join("job.toml");
    std::fs::write(&path, job).unwrap();
    let (failures, counts) =
        common::expect_both(&path, "feedback_heap").unwrap_or_else(|e| panic!("{e}"));
    assert!(
        failures.is_empty(),
        "feedback_heap:\n{}",
        failures.join("\n")
    );
    assert_eq!(counts, (1, 0));
    std::fs::write(&path, job.replace("paired = \"T\"", "paired = \"U\"")).unwrap();
    let e = common::expect_both(&path, "feedback_heap_unpaired").unwrap_err();
    assert!(
        e.contains("`paired` \"U\"") && e.contains("no texture [[resource]]"),
        "{e}"
    );
}

/// DirectX-Specs "Sampler Feedback", "Transcoding" and the API section:
/// `ResolveSubresourceRegion` moves one subresource of a MipRegionUsed map array (a mip
/// of a slice) with a source rectangle and a destination offset in decoded texels, in
/// both directions, and a MinMip map to and from a buffer (row after row, padding at the
/// end). Every byte is derived in `feedback_region.toml`.
#[test]
fn part_of_a_map_transcodes_by_subresource_rectangle_and_buffer() {
    let path = common::root().join(FOLDER).join("feedback_region.toml");
    let (failures, counts) =
        common::expect_both(&path, "feedback_region").unwrap_or_else(|e| panic!("{e}"));
    assert!(
        failures.is_empty(),
        "feedback_region:\n{}",
        failures.join("\n")
    );
    assert_eq!(counts, (5, 0));
}

/// The same spec's limits on a partial transcode: a MinMip map transcodes whole (no
/// subresource index, "source rect semantics … are not permitted for MinMip feedback
/// maps"); a rectangle is non-empty and inside its subresource and fits the destination
/// at `dst_at` (which has no z); a subresource exists; only a non-arrayed MinMip map
/// transcodes to or from a buffer, whole, and the buffer holds the decoded map; a
/// multisample resolve takes no region keys. Each breach of `feedback_region.toml` is
/// refused naming the command, the key and the resource.
#[test]
fn bad_partial_transcodes_are_refused() {
    let text =
        std::fs::read_to_string(common::root().join(FOLDER).join("feedback_region.toml")).unwrap();
    let rect = "src_rect = [1, 0, 3, 3]";
    let cases: [(&str, &str, &str, &[&str]); 11] = [
        (
            "min_mip_rect",
            "dst = \"mm_out\"\nsrc = \"levels\"",
            "dst = \"part\"\nsrc = \"levels\"\nsrc_rect = [0, 0, 1, 1]",
            &[
                "#6 (resolve_subresource)",
                "`src_rect`",
                "\"levels\" is a min_mip map, which transcodes whole",
            ],
        ),
        (
            "rect_outside",
            rect,
            "src_rect = [1, 0, 5, 3]",
            &[
                "#2",
                "`src_rect` [1, 0, 5, 3]",
                "inside mip 0 of \"used\" (4×4 decoded texels)",
            ],
        ),
        (
            "rect_empty",
            rect,
            "src_rect = [1, 1, 1, 3]",
            &["`src_rect` [1, 1, 1, 3]", "non-empty"],
        ),
        (
            "dst_outside",
            "dst_at = [2, 0, 0]",
            "dst_at = [3, 0, 0]",
            &[
                "`dst_at` [3, 0, 0]",
                "the 2×3 rectangle does not fit mip 0 of \"part\"",
            ],
        ),
        (
            "dst_z",
            "dst_at = [2, 0, 0]",
            "dst_at = [2, 0, 1]",
            &["`dst_at` [2, 0, 1]", "DstX and DstY only"],
        ),
        (
            "src_mip",
            "src = \"used\"\nsrc_mip = 1",
            "src = \"used\"\nsrc_mip = 3",
            &["#3", "`src_mip` 3", "3 mip(s)"],
        ),
        (
            "region_used_buffer",
            "dst = \"mm_out\"\nsrc = \"levels\"",
            "dst = \"mm_out\"\nsrc = \"used\"",
            &[
                "`dst`",
                "\"mm_out\" is a buffer",
                "only a min_mip map",
                "mip_region_used",
            ],
        ),
        (
            "arrayed_buffer",
            "dst = \"mm_out\"\nsrc = \"levels\"",
            "dst = \"mm_out\"\nsrc = \"mm_array\"",
            &["`dst`", "only a map of one array slice", "has 2"],
        ),
        (
            "buffer_slice",
            "dst = \"mm_out\"\nsrc = \"levels\"",
            "dst = \"mm_out\"\nsrc = \"levels\"\nsrc_slice = 0",
            &["`src_slice`", "transcodes to or from a buffer whole"],
        ),
        (
            "small_buffer",
            "name = \"mm_out\"\nkind = \"raw_buffer\"\nsize = 20",
            "name = \"mm_out\"\nkind = \"raw_buffer\"\nsize = 12",
            &[
                "`dst`",
                "\"mm_out\" holds 12 byte(s)",
                "4×4 regions need 16",
            ],
        ),
        (
            "multisample_region",
            "mode = \"decode_sampler_feedback\"\ndst = \"part\"\ndst_mip = 1",
            "dst = \"part\"\ndst_mip = 1",
            &[
                "#3",
                "`dst_mip`",
                "ResolveSubresource (no `mode`) takes `dst_slice` and `src_slice` only",
                "a region, a mip or a plane is ResolveSubresourceRegion's",
            ],
        ),
    ];
    for (tag, from, to, parts) in cases {
        assert!(text.contains(from), "{tag}: the job has no {from:?}");
        let dir = common::scratch().join("feedback_region_errors").join(tag);
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("job.toml");
        std::fs::write(&path, text.replacen(from, to, 1)).unwrap();
        let opts = common::run_options();
        let job = dxlane::job::Job::load(&path).unwrap_or_else(|e| panic!("{tag}: {e}"));
        let e = match dxlane::job::prepare(job, &opts).and_then(|p| p.execute(&opts)) {
            Ok(_) => panic!("{tag}: the job ran"),
            Err(e) => e.to_string(),
        };
        for part in parts {
            assert!(e.contains(part), "{tag}: {e:?} does not say {part:?}");
        }
    }
}
