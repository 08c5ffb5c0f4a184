//! DXBC vertex and pixel programs end to end through `exec::StageRunner`, without the
//! pipeline: the test writes each lane's input words (what the pipeline would
//! interpolate or fetch), runs one wave, and reads the output words.
//!
//! Programs of `shaders/` whose source states a `// quad:` or `// vertices:` line run with
//! the setup their header describes, and every `// expect:` line must hold exactly:
//!
//! ```text
//! // quad: 2 4 [helper 3 5]   (one 2×2 quad, top-left pixel (2, 4); lanes 0–3 = TL, TR, BL,
//! //                           BR; SV_Position = pixel centre (x + 0.5, y + 0.5), z 0.5, w 1;
//! //                           the pixels after `helper` run as helper lanes)
//! // vertices: 3             (vertex i has SV_VertexID i, SV_InstanceID 0)
//! // resource: …             (as for compute programs: tests/all/lower_dxbc.rs)
//! // expect: o1 at 3 4 = 1.0 2 0x7f   (output register o1 of pixel (3, 4), from x)
//! // expect: o0 at all = …            (every pixel that is neither a helper nor discarded)
//! // expect: o0 at vertex 2 = …
//! // expect: discarded at 3 5         (the pixels that discard: exactly these)
//! // expect: o4.z at all = …          (from component z; oDepth, oMask, oStencilRef too)
//! // input: BLENDINDICES 0 = 1        (an input element's words, the same in every lane;
//! //                                   inputs not named are 0, system values as above)
//! ```
//!
//! Corpus programs, whose sources state no setup, have theirs here ([`CORPUS`]), with the
//! outputs derived from their HLSL.
//!
//! The pixel-program families (`shaders/ps_*.hlsl`: float ALU, integer ALU, bits,
//! conversions, control flow, derivatives) state their expected values this way, derived
//! by hand in their headers; the full-screen triangle (`shaders/fullscreen.hlsl`) too.

use std::path::Path;

use dxlane::container::ProgramKind;
use dxlane::dxbc::Program;
use dxlane::exec::{DescriptorTable, Limits, PixelContext, Profile, StageProgram, StageRunner};
use dxlane::ir::{EvalAt, Interp, IoElement, Shader, SysValue};
use dxlane::lower::{self, LoadOptions};

use crate::common;
use crate::lower_dxbc::run;

/// A pixel context for one sample per pixel: `eval` reads the input word as the lane has
/// it; the pattern is the single centre sample.
struct OneSample;

impl PixelContext for OneSample {
    fn eval(&self, _tag: u32, _word: u32, _at: EvalAt, _arg: [u32; 2]) -> u32 {
        0
    }
    fn sample_count(&self) -> u32 {
        1
    }
    fn sample_position(&self, _index: u32) -> [f32; 2] {
        [0.0; 2]
    }
}

/// Where an expectation looks.
#[derive(Debug, Clone, Copy, PartialEq)]
enum At {
    Pixel(u32, u32),
    All,
    Vertex(u32),
}

/// One `// expect:` line.
#[derive(Debug)]
struct Expect {
    reg: String,
    component: u32,
    at: At,
    words: Vec<u32>,
    line: String,
}

/// What a stage program's header asks for.
#[derive(Debug, Default)]
struct Setup {
    quad: Option<(u32, u32)>,
    helpers: Vec<(u32, u32)>,
    vertices: Option<u32>,
    resources: Vec<run::Res>,
    inputs: Vec<(String, u32, Vec<u32>)>,
    expects: Vec<Expect>,
    discarded: Vec<(u32, u32)>,
}

fn pair(t: &[&str]) -> (u32, u32) {
    (t[0].parse().unwrap(), t[1].parse().unwrap())
}

/// Reads a source's header; `None` when it has neither `// quad:` nor `// vertices:`.
fn setup(source: &str) -> Option<Setup> {
    let mut s = Setup::default();
    for line in source.lines() {
        let Some(rest) = line.strip_prefix("// ") else {
            continue;
        };
        if let Some(q) = rest.strip_prefix("quad:") {
            let t: Vec<&str> = q.split_whitespace().collect();
            s.quad = Some(pair(&t));
            if t.get(2) == Some(&"helper") {
                s.helpers = t[3..].chunks(2).map(pair).collect();
            }
        } else if let Some(v) = rest.strip_prefix("vertices:") {
            s.vertices = Some(v.trim().parse().unwrap());
        } else if let Some(r) = rest.strip_prefix("resource:") {
            s.resources.push(run::resource(r));
        } else if let Some(i) = rest.strip_prefix("input:") {
            let (lhs, rhs) = i.split_once('=').unwrap();
            let t: Vec<&str> = lhs.split_whitespace().collect();
            s.inputs
                .push((t[0].to_string(), t[1].parse().unwrap(), run::words(rhs)));
        } else if let Some(e) = rest.strip_prefix("expect:") {
            let (lhs, rhs) = e.split_once('=').unwrap_or((e, ""));
            let t: Vec<&str> = lhs.split_whitespace().collect();
            if t[0] == "discarded" {
                s.discarded.push(pair(&t[2..]));
                continue;
            }
            assert_eq!(t[1], "at", "{line}");
            let at = match t[2] {
                "all" => At::All,
                "vertex" => At::Vertex(t[3].parse().unwrap()),
                _ => {
                    let (x, y) = pair(&t[2..]);
                    At::Pixel(x, y)
                }
            };
            let (reg, component) = match t[0].split_once('.') {
                Some((r, c)) => (r, "xyzw".find(c).unwrap() as u32),
                None => (t[0], 0),
            };
            s.expects.push(Expect {
                reg: reg.to_string(),
                component,
                at,
                words: run::words(rhs),
                line: line.to_string(),
            });
        }
    }
    (s.quad.is_some() || s.vertices.is_some()).then_some(s)
}

/// Input words of lane `l`, written into a runner's layout.
fn put(r: &mut StageRunner<'_>, w: u32, l: usize, v: u32) {
    let ws = r.wave_size();
    r.inputs_mut()[w as usize * ws + l] = v;
}

/// The output word `w` of lane `l`.
fn got(r: &StageRunner<'_>, w: u32, l: usize) -> u32 {
    r.outputs()[w as usize * r.wave_size() + l]
}

/// The first word of output register `reg` (`o3` → the element at register 3; `oDepth`,
/// `oMask`, `oStencilRef` → the element of that system value).
fn output_word(s: &Shader, reg: &str) -> u32 {
    let svs: &[SysValue] = match reg {
        "oDepth" => &[
            SysValue::Depth,
            SysValue::DepthGreaterEqual,
            SysValue::DepthLessEqual,
        ],
        "oMask" => &[SysValue::Coverage],
        "oStencilRef" => &[SysValue::StencilRef],
        _ => &[],
    };
    if !svs.is_empty() {
        return s
            .outputs
            .iter()
            .find(|e| svs.contains(&e.sv))
            .unwrap_or_else(|| panic!("no {reg} output"))
            .slot;
    }
    let n: u32 = reg
        .strip_prefix('o')
        .and_then(|n| n.parse().ok())
        .unwrap_or_else(|| panic!("output {reg}"));
    s.outputs
        .iter()
        .find(|e| e.register == n)
        .unwrap_or_else(|| panic!("no output at register {n}"))
        .slot
}

/// Runs a program with its header's setup; returns the mismatches.
fn check(name: &str, shader: &Shader, setup: &Setup) -> Vec<String> {
    let (ranges, _) = run::bind(shader, &setup.resources);
    let table = DescriptorTable::new(shader, &ranges, &[], &[]).unwrap();
    let program = StageProgram::new(shader, table, Profile::default(), Limits::default(), 8)
        .unwrap_or_else(|e| panic!("{name}: {e}"))
        .with_engine(crate::common::engine());
    let mut r = StageRunner::new(&program);
    // Lane → (pixel or vertex, helper).
    let lanes: Vec<((u32, u32), bool)> = match (setup.quad, setup.vertices) {
        (Some((x, y)), _) => [(0, 0), (1, 0), (0, 1), (1, 1)]
            .map(|(dx, dy)| {
                let p = (x + dx, y + dy);
                (p, setup.helpers.contains(&p))
            })
            .to_vec(),
        (None, Some(n)) => (0..n).map(|i| ((i, 0), false)).collect(),
        _ => unreachable!(),
    };
    assert!(lanes.len() <= r.wave_size(), "{name}: too many vertices");
    for (l, ((a, b), _)) in lanes.iter().enumerate() {
        for e in &shader.inputs {
            let first = e.slot + e.mask.trailing_zeros();
            let named = setup
                .inputs
                .iter()
                .find(|(n, i, _)| n.eq_ignore_ascii_case(&e.semantic) && *i == e.semantic_index);
            let words: Vec<u32> = match (setup.quad.is_some(), e.sv) {
                _ if named.is_some() => named.map(|n| n.2.clone()).unwrap_or_default(),
                (true, SysValue::Position) => {
                    vec![
                        (*a as f32 + 0.5).to_bits(),
                        (*b as f32 + 0.5).to_bits(),
                        0.5f32.to_bits(),
                        1.0f32.to_bits(),
                    ]
                }
                (true, SysValue::IsFrontFace) => vec![u32::MAX],
                (true, SysValue::Coverage) => vec![1],
                (false, SysValue::VertexId) => vec![*a],
                _ => vec![0; 4],
            };
            for (c, v) in (0..4u32).zip(words) {
                if e.mask >> (c + e.mask.trailing_zeros()) & 1 == 1 {
                    put(&mut r, first + c, l, v);
                }
            }
        }
        r.set_ids(l, [*a, *b, 0]);
        r.set_tag(l, l as u32);
    }
    let exist = (1u128 << lanes.len()) - 1;
    let helper = lanes
        .iter()
        .enumerate()
        .filter(|(_, (_, h))| *h)
        .fold(0u128, |m, (l, _)| m | 1 << l);
    let ctx: Option<&dyn PixelContext> = setup.quad.map(|_| &OneSample as &dyn PixelContext);
    let run = match r.run(exist, helper, ctx) {
        Ok(run) => run,
        Err(e) => return vec![format!("{name}: {e}")],
    };
    let mut out = Vec::new();
    let killed: Vec<(u32, u32)> = lanes
        .iter()
        .enumerate()
        .filter(|(l, _)| run.killed >> l & 1 == 1)
        .map(|(_, (p, _))| *p)
        .collect();
    if setup.quad.is_some() && killed != setup.discarded {
        out.push(format!(
            "{name}: discarded {killed:?}, expected {:?}",
            setup.discarded
        ));
    }
    for e in &setup.expects {
        let slot = output_word(shader, &e.reg) + e.component;
        let which: Vec<usize> = lanes
            .iter()
            .enumerate()
            .filter(|(l, (p, h))| match e.at {
                At::All => !h && run.killed >> l & 1 == 0,
                At::Pixel(x, y) => *p == (x, y),
                At::Vertex(i) => *p == (i, 0),
            })
            .map(|(l, _)| l)
            .collect();
        if which.is_empty() {
            out.push(format!("{name}: no lane for {}", e.line.trim()));
        }
        for l in which {
            for (k, want) in e.words.iter().enumerate() {
                let have = got(&r, slot + k as u32, l);
                if have != *want {
                    out.push(format!(
                        "{name}: {} word {k} of lane {l} = {have:#x} (float {}), expected {want:#x} (float {}) — {}",
                        e.reg,
                        f32::from_bits(have),
                        f32::from_bits(*want),
                        e.line.trim()
                    ));
                }
            }
        }
    }
    out
}

fn load(path: &Path) -> Shader {
    let bytes = std::fs::read(path).unwrap();
    lower::load(&bytes, &LoadOptions::default())
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .shader
}

fn kind_of(path: &Path) -> ProgramKind {
    Program::from_bytes(&std::fs::read(path).unwrap())
        .unwrap()
        .version
        .kind
}

/// Every vertex and pixel program of `shaders/` with a `// quad:` or `// vertices:` line
/// gives the outputs its `// expect:` lines state: the pixel-program families and the
/// full-screen triangle, from each profile they are built for.
#[test]
fn stage_programs_give_their_expected_outputs() {
    let mut failures = Vec::new();
    let mut ran = Vec::new();
    for f in common::dxbc_programs() {
        let name = common::display_name(&f);
        if !name.starts_with("shaders/")
            || !matches!(kind_of(&f), ProgramKind::Vertex | ProgramKind::Pixel)
        {
            continue;
        }
        let Some(setup) = run::source_of(&f).and_then(|s| setup(&s)) else {
            continue;
        };
        let shader = load(&f);
        failures.extend(check(&name, &shader, &setup));
        ran.push(name);
    }
    eprintln!("ran {} stage programs: {}", ran.len(), ran.join(", "));
    for family in [
        "ps_float_alu.ps_5_0",
        "ps_float_alu.ps_4_0",
        "ps_int_alu.ps_5_0",
        "ps_int_alu.ps_4_0",
        "ps_bits.ps_5_0",
        "ps_conversions.ps_5_0",
        "ps_control_flow.ps_5_0",
        "ps_control_flow.ps_4_0",
        "ps_derivatives.ps_5_0",
        "fullscreen.vs_5_0",
        "fullscreen.vs_4_0",
    ] {
        let name = format!("shaders/{family}.dxbc");
        assert!(ran.contains(&name), "{name} did not run");
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Setups of corpus programs (their sources state none), in the header format, with the
/// outputs derived from their HLSL.
const CORPUS: &[(&str, &str)] = &[
    (
        // fxc's min/max take (f.y, f.x): with f.x NaN both give f.y; saturate(NaN) = 0;
        // udiv 17 / 37 = 0 r 17, 9 / 0 = 0xffffffff r 0xffffffff; ftoi/ftou of NaN are
        // 0, of -3e9 INT_MIN and 0; shift counts use 5 bits (37 → 5): 17 << 5 = 544,
        // 17 >> 5 = 0, -64 >> (35 → 3) = -8; 17 & 37 = 1; log2(0) = -inf; (1e-20)² is
        // a denormal, flushed to +0. (f.x / f.w and sqrt(-3e9) are NaNs, whose bits D3D
        // leaves open: not checked.)
        "dxbc-reader/modes.dxbc",
        "// quad: 0 0
// resource: b0 cbuffer = 0x7fc00000 1e-20 -3e9 0.0 17 37 9 0 -64 35 0 0
// expect: o0 at all = 1e-20 1e-20 0.0 1e-20
// expect: o1 at all = 0 17 0xffffffff 0xffffffff
// expect: o2 at all = 0 0 0x80000000 0
// expect: o3 at all = 544 0 0xfffffff8 1
// expect: o4.z at all = -inf 0.0",
    ),
    (
        // [earlydepthstencil]; returns SV_Position.
        "dxbc-reader/pixel_flags.early.dxbc",
        "// quad: 2 4
// expect: o0 at 2 4 = 2.5 4.5 0.5 1.0
// expect: o0 at 3 5 = 3.5 5.5 0.5 1.0",
    ),
    (
        // (GetRenderTargetSampleCount(), width, height, samples) of a 4×2 texture with 4
        // samples, drawn into a single-sample target.
        "dxbc-reader/pixel_flags.samples.dxbc",
        "// quad: 0 0
// resource: t0 texture2dms format=R32G32B32A32_FLOAT width=4 height=2 samples=4
// expect: o0 at all = 1.0 4.0 2.0 4.0",
    ),
    (
        // (float)(d * d + p.x) with d = 1.5: 2.25 + 2.5, 2.25 + 3.5.
        "dxbc-reader/pixel_flags.doubles.dxbc",
        "// quad: 2 4
// resource: b0 cbuffer = 0 0x3ff80000
// expect: o0 at 2 4 = 4.75 4.75 4.75 4.75
// expect: o0 at 3 4 = 5.75 5.75 5.75 5.75",
    ),
    (
        // entries[1].narrow + float(entries[1].wide) = 2.25 + 0.5 (16-byte elements: a
        // double, then a float).
        "dxbc-reader/structured_tail.dxbc",
        "// quad: 0 0
// resource: b0 cbuffer = 1
// resource: t0 structured stride=16 size=32 = 0 0 0 0 0 0x3fe00000 2.25 0
// expect: o0 at all = 2.75 2.75 2.75 2.75",
    ),
    (
        // A Load(i * 4) of a raw buffer with i = 2: the third word, as a float.
        "dxcontainer/features/rawps4.ps_4_0.dxbc",
        "// quad: 0 0
// input: A 0 = 2
// resource: t0 raw size=16 = 10 20 30 40
// expect: o0 at all = 30.0 30.0 30.0 30.0",
    ),
    (
        "dxcontainer/features/stencil.ps_5_0.dxbc",
        "// quad: 0 0
// expect: oStencilRef at all = 3",
    ),
    (
        // SV_Position = 0 and SV_ViewportArrayIndex = SV_VertexID.
        "dxcontainer/features/vprt.vs_5_0.dxbc",
        "// vertices: 4
// expect: o0 at vertex 2 = 0 0 0 0
// expect: o1 at vertex 3 = 3",
    ),
    (
        // Palette rows k = (k, k + 0.5, 1, 2); joint 1 reads rows 3, 4, 5: dot with (1, 2,
        // 3, 1) = k + 2k + 1 + 3 + 2 = 3k + 6.
        "dxbc-reader/bound_palette_vs.dxbc",
        "// vertices: 2
// input: POSITION 0 = 1.0 2.0 3.0
// input: BLENDINDICES 0 = 1
// resource: b0 cbuffer = 0.0 0.5 1.0 2.0 1.0 1.5 1.0 2.0 2.0 2.5 1.0 2.0 3.0 3.5 1.0 2.0 4.0 4.5 1.0 2.0 5.0 5.5 1.0 2.0
// expect: o0 at vertex 0 = 15.0 18.0 21.0 1.0
// expect: o0 at vertex 1 = 15.0 18.0 21.0 1.0",
    ),
];

/// The corpus programs of [`CORPUS`] give the outputs derived from their HLSL.
#[test]
fn corpus_stage_programs_give_outputs_derived_from_their_hlsl() {
    let programs = common::dxbc_programs();
    if !programs
        .iter()
        .any(|p| common::display_name(p).starts_with("dxbc-reader/"))
    {
        eprintln!("no corpora: corpus stage programs are not run");
        return;
    }
    let mut failures = Vec::new();
    for (name, text) in CORPUS {
        let path = programs
            .iter()
            .find(|p| common::display_name(p) == *name)
            .unwrap_or_else(|| panic!("{name}: missing from the corpora"));
        let s = setup(text).expect("a setup");
        failures.extend(check(name, &load(path), &s));
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// `[earlydepthstencil]` programs of the corpora say so; others do not.
#[test]
fn corpus_early_depth_stencil() {
    for p in common::dxbc_programs() {
        let name = common::display_name(&p);
        if kind_of(&p) != ProgramKind::Pixel {
            continue;
        }
        let early = name.contains("pixel_flags.early") || name.contains("earlyz");
        assert_eq!(load(&p).early_depth_stencil, early, "{name}");
    }
}

fn shader(name: &str) -> Shader {
    load(&common::root().join("shaders").join(name))
}

fn el<'a>(elems: &'a [IoElement], semantic: &str, index: u32) -> &'a IoElement {
    elems
        .iter()
        .find(|e| e.semantic == semantic && e.semantic_index == index)
        .unwrap_or_else(|| panic!("no {semantic}{index}"))
}

/// The word of component `c` of an element (counting from its first component).
fn word(e: &IoElement, c: u32) -> u32 {
    e.slot + e.mask.trailing_zeros() + c
}

/// A passthrough vertex program, from vs_5_0 and vs_4_0: eight vertices' positions,
/// texture coordinates and colours come out as they went in, with their SV_VertexID and
/// SV_InstanceID.
#[test]
fn passthrough_vertex_program() {
    for name in ["vs_passthrough.vs_5_0.dxbc", "vs_passthrough.vs_4_0.dxbc"] {
        let s = shader(name);
        let table = DescriptorTable::new(&s, &[], &[], &[]).unwrap();
        let p = StageProgram::new(&s, table, Profile::default(), Limits::default(), 8)
            .unwrap()
            .with_engine(crate::common::engine());
        let mut r = StageRunner::new(&p);
        let (pos, uv, color) = (
            el(&s.inputs, "POSITION", 0),
            el(&s.inputs, "TEXCOORD", 0),
            el(&s.inputs, "COLOR", 0),
        );
        let (vid, iid) = (
            el(&s.inputs, "SV_VertexID", 0),
            el(&s.inputs, "SV_InstanceID", 0),
        );
        assert_eq!((vid.sv, iid.sv), (SysValue::VertexId, SysValue::InstanceId));
        let value = |i: usize, k: u32| (i as f32 * 4.0 + k as f32 * 0.25).to_bits();
        for i in 0..8 {
            for c in 0..4 {
                put(&mut r, word(pos, c), i, value(i, c));
                put(&mut r, word(color, c), i, value(i, c + 8));
            }
            for c in 0..2 {
                put(&mut r, word(uv, c), i, value(i, c + 4));
            }
            put(&mut r, word(vid, 0), i, 100 + i as u32);
            put(&mut r, word(iid, 0), i, 7);
            r.set_ids(i, [100 + i as u32, 7, 0]);
        }
        r.run(0xff, 0, None).unwrap();
        let (opos, ouv, ocolor, ids) = (
            el(&s.outputs, "SV_Position", 0),
            el(&s.outputs, "TEXCOORD", 0),
            el(&s.outputs, "COLOR", 0),
            el(&s.outputs, "TEXCOORD", 1),
        );
        assert_eq!(opos.sv, SysValue::Position);
        for i in 0..8 {
            for c in 0..4 {
                assert_eq!(got(&r, word(opos, c), i), value(i, c), "{name}");
                assert_eq!(got(&r, word(ocolor, c), i), value(i, c + 8), "{name}");
            }
            for c in 0..2 {
                assert_eq!(got(&r, word(ouv, c), i), value(i, c + 4), "{name}");
            }
            assert_eq!(got(&r, word(ids, 0), i), 100 + i as u32, "{name}");
            assert_eq!(got(&r, word(ids, 1), i), 7, "{name}");
        }
    }
}

/// `shaders/pixel_eval.hlsl`: each input carries its declared interpolation mode (linear,
/// centroid, noperspective, noperspective centroid, nointerpolation; the rasterizer's
/// SV_IsFrontFace and SV_SampleIndex none), and one quad's outputs follow from its
/// inputs: derivatives of quad-constant inputs are 0; a back face negates the colour;
/// SV_Depth = saturate(z / 2); SV_Coverage = id & 5.
#[test]
fn pixel_program_with_system_values_and_depth_and_coverage_outputs() {
    let s = shader("pixel_eval.ps_5_0.dxbc");
    for (semantic, index, interp) in [
        ("SV_Position", 0, Interp::Linear),
        ("COLOR", 0, Interp::Linear),
        ("TEXCOORD", 0, Interp::LinearCentroid),
        ("NORMAL", 0, Interp::LinearNoPerspective),
        ("TEXCOORD", 1, Interp::Linear),
        ("TEXCOORD", 2, Interp::LinearNoPerspectiveCentroid),
        ("TEXCOORD", 3, Interp::Constant),
        ("SV_IsFrontFace", 0, Interp::Undefined),
        ("SV_SampleIndex", 0, Interp::Undefined),
    ] {
        assert_eq!(
            el(&s.inputs, semantic, index).interp,
            interp,
            "{semantic}{index}"
        );
    }
    let depth = el(&s.outputs, "SV_Depth", 0);
    let mask = el(&s.outputs, "SV_Coverage", 0);
    assert_eq!((depth.sv, mask.sv), (SysValue::Depth, SysValue::Coverage));
    let table = DescriptorTable::new(&s, &[], &[], &[]).unwrap();
    let p = StageProgram::new(&s, table, Profile::default(), Limits::default(), 4)
        .unwrap()
        .with_engine(crate::common::engine());
    let mut r = StageRunner::new(&p);
    let f = |v: f32| v.to_bits();
    for l in 0..4usize {
        let (x, y) = (2 + (l & 1) as u32, 4 + (l >> 1) as u32);
        let set = |r: &mut StageRunner<'_>, e: &IoElement, v: &[u32]| {
            for (c, v) in v.iter().enumerate() {
                put(r, word(e, c as u32), l, *v);
            }
        };
        set(
            &mut r,
            el(&s.inputs, "SV_Position", 0),
            &[
                f(x as f32 + 0.5),
                f(y as f32 + 0.5),
                f(0.25 * (l + 1) as f32),
                f(1.0),
            ],
        );
        set(
            &mut r,
            el(&s.inputs, "COLOR", 0),
            &[f(1.0), f(2.0), f(3.0), f(4.0)],
        );
        set(&mut r, el(&s.inputs, "TEXCOORD", 0), &[f(0.5), f(0.25)]);
        set(
            &mut r,
            el(&s.inputs, "NORMAL", 0),
            &[f(1.0), f(-1.0), f(2.0)],
        );
        set(&mut r, el(&s.inputs, "TEXCOORD", 1), &[f(0.5); 4]);
        set(&mut r, el(&s.inputs, "TEXCOORD", 2), &[f(0.125), f(0.25)]);
        set(&mut r, el(&s.inputs, "TEXCOORD", 3), &[7 + l as u32]);
        // The top row is a front face, the bottom one a back face.
        set(
            &mut r,
            el(&s.inputs, "SV_IsFrontFace", 0),
            &[if l < 2 { u32::MAX } else { 0 }],
        );
        set(&mut r, el(&s.inputs, "SV_SampleIndex", 0), &[l as u32]);
        r.set_ids(l, [x, y, l as u32]);
    }
    r.run(0b1111, 0, Some(&OneSample)).unwrap();
    let target0 = el(&s.outputs, "SV_Target", 0);
    let target1 = el(&s.outputs, "SV_Target", 1);
    for l in 0..4usize {
        let sign = if l < 2 { 1.0 } else { -1.0 };
        let color: Vec<f32> = (0..4)
            .map(|c| f32::from_bits(got(&r, word(target0, c), l)))
            .collect();
        assert_eq!(color, [1.625, 2.75, 3.5, 4.5].map(|v| v * sign), "lane {l}");
        let extra: Vec<f32> = (0..4)
            .map(|c| f32::from_bits(got(&r, word(target1, c), l)))
            .collect();
        assert_eq!(extra, [7.0 + l as f32, l as f32, 0.0, 1.0], "lane {l}");
        assert_eq!(
            f32::from_bits(got(&r, word(depth, 0), l)),
            0.125 * (l + 1) as f32
        );
        assert_eq!(got(&r, word(mask, 0), l), (7 + l as u32) & 5);
    }
}
