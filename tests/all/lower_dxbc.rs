//! DXBC programs lowered to the IR: every compute program of `shaders/` and the corpora
//! lowers (and its shader validates) or is refused naming what it lacks — compute,
//! vertex, hull, domain, geometry and pixel programs alike. Known refusals are data
//! (`tests/expectations/lower_dxbc.txt`, `case,Fail  # why`): a program that starts
//! lowering shows up as an unexpected pass, one that stops as a regression. A few
//! programs' IR is kept as snapshots under `tests/snapshots/ir/` (`DXLANE_BLESS=1`
//! rewrites them).

use std::collections::BTreeMap;
use std::path::Path;

use dxlane::container::ProgramKind;
use dxlane::dxbc::Program;
use dxlane::ir::{Shader, WithLocs};
use dxlane::lower::{self, LoadOptions, LowerError};

use crate::common;

/// The expected refusals: `case,Fail  # why` lines.
fn expectations() -> BTreeMap<String, String> {
    let path = common::root().join("tests/expectations/lower_dxbc.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .filter_map(|l| {
            let (case, rest) = l.split_once(',')?;
            let (status, why) = rest.split_once('#').unwrap_or((rest, ""));
            (status.trim() == "Fail").then(|| (case.trim().to_owned(), why.trim().to_owned()))
        })
        .collect()
}

/// The lowering of one program file.
fn load(path: &Path) -> Result<Shader, LowerError> {
    let bytes = std::fs::read(path).unwrap();
    lower::load(&bytes, &LoadOptions::default()).map(|l| l.shader)
}

/// The lowering of one program file as the lowering wrote it (no clean-up passes): what
/// the IR snapshots show.
fn load_unoptimized(path: &Path) -> Result<Shader, LowerError> {
    let bytes = std::fs::read(path).unwrap();
    let opts = LoadOptions {
        no_opt: true,
        ..LoadOptions::default()
    };
    lower::load(&bytes, &opts).map(|l| l.shader)
}

fn kind_of(path: &Path) -> ProgramKind {
    let bytes = std::fs::read(path).unwrap();
    Program::from_bytes(&bytes)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .version
        .kind
}

/// The stages this lowering runs.
fn lowered_stage(kind: ProgramKind) -> bool {
    matches!(
        kind,
        ProgramKind::Compute
            | ProgramKind::Vertex
            | ProgramKind::Pixel
            | ProgramKind::Geometry
            | ProgramKind::Hull
            | ProgramKind::Domain
    )
}

#[test]
fn every_compute_vertex_and_pixel_program_lowers_or_is_refused_by_name() {
    let expected = expectations();
    let mut counts: BTreeMap<&'static str, (usize, usize)> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut table = String::new();
    for f in common::dxbc_programs() {
        let name = common::display_name(&f);
        let kind = kind_of(&f);
        if !lowered_stage(kind) {
            continue;
        }
        let count = counts.entry(kind.name()).or_default();
        match load(&f) {
            Ok(s) => {
                dxlane::ir::validate(&s).unwrap_or_else(|e| panic!("{name}: {e}"));
                // The source map: every instruction names the DXBC instruction it came
                // from (declarations for the entry block's handles and inputs).
                if let Some(i) = s
                    .locs
                    .iter()
                    .position(|l| !matches!(l, dxlane::ir::SourceLoc::Dxbc { .. }))
                {
                    failures.push(format!("{name}: `{}` has no DXBC location", s.insts[i]));
                }
                count.0 += 1;
                table.push_str(&format!(
                    "  {name:<55} lowered: {} blocks, {} instructions, {} registers, {} input and {} output words\n",
                    s.blocks.len(),
                    s.insts.len(),
                    s.num_regs,
                    s.input_words,
                    s.output_words
                ));
                if let Some(why) = expected.get(&name) {
                    failures.push(format!(
                        "{name}: lowers now, but tests/expectations/lower_dxbc.txt expects a refusal ({why})"
                    ));
                }
            }
            Err(LowerError::Unsupported { what, location }) => {
                count.1 += 1;
                table.push_str(&format!("  {name:<55} refused: {what} at {location}\n"));
                if !expected.contains_key(&name) {
                    failures.push(format!("{name}: refused: unsupported {what} at {location}"));
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    let summary: Vec<String> = counts
        .iter()
        .map(|(k, (l, r))| format!("{k}: {l} lowered, {r} refused"))
        .collect();
    eprintln!("DXBC programs: {}\n{table}", summary.join("; "));
    let lowered = |k: &str| counts.get(k).map_or(0, |c| c.0);
    assert!(lowered("compute") >= 10, "{summary:?}");
    assert!(lowered("pixel") >= 8, "{summary:?}");
    assert!(lowered("vertex") >= 4, "{summary:?}");
    assert!(lowered("geometry") >= 4, "{summary:?}");
    assert!(lowered("hull") >= 7, "{summary:?}");
    assert!(lowered("domain") >= 6, "{summary:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// The IR of a handful of programs, with source locations.
#[test]
fn ir_snapshots() {
    let mut failures = Vec::new();
    for name in [
        "shaders/compute_basic.cs_5_0.dxbc",
        "shaders/indexable.cs_5_0.dxbc",
        "shaders/resources_sm51.cs_5_1.dxbc",
        "shaders/compute_sm4.cs_4_0.dxbc",
        "shaders/mandelbrot.cs_5_0.dxbc",
        "shaders/control_flow_cs.cs_5_0.dxbc",
        "shaders/atomics.cs_5_0.dxbc",
        "dxbc-reader/controls.cs.dxbc",
        "dxbc-reader/image_atomic_results.dxbc",
        "dxcontainer/features/doubleext.cs_5_0.dxbc",
        "dxcontainer/features/msad.cs_5_0.dxbc",
        "shaders/vertex.vs_5_0.dxbc",
        "shaders/pixel_eval.ps_5_0.dxbc",
        "shaders/control_flow.ps_5_0.dxbc",
        "dxbc-reader/sampling.dxbc",
        "dxbc-reader/pixel_flags.samples.dxbc",
        "dxcontainer/features/innercov.ps_5_0.dxbc",
        "dxcontainer/features/stencil.ps_5_0.dxbc",
        "dxcontainer/features/vprt.vs_5_0.dxbc",
        "dxcontainer/features/tiled.ps_5_0.dxbc",
    ] {
        let Some(path) = common::dxbc_programs()
            .into_iter()
            .find(|p| common::display_name(p) == name)
        else {
            if name.starts_with("shaders/") {
                failures.push(format!("{name}: missing"));
            }
            continue;
        };
        match load_unoptimized(&path) {
            Ok(s) => {
                let text = WithLocs(&s).to_string();
                if let Err(e) = common::check_snapshot(&format!("ir/{name}.ir"), &text) {
                    failures.push(e);
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

// ---- end to end: the test shaders through `pipeline::dispatch` -----------------------

pub mod run {
    //! Each compute program of `shaders/` whose source states a `// dispatch:` line runs
    //! through `pipeline::dispatch` with the resources its `// resource:` lines describe,
    //! and every `// expect:` line must hold exactly. The header format:
    //!
    //! ```text
    //! // dispatch: X Y Z
    //! // resource: u0 raw size=64 = 1 2 3           (a UAV byte-address buffer, first words set)
    //! // resource: t0 structured stride=16 size=32 = …
    //! // resource: t1 typed format=R32_FLOAT elements=4 = …
    //! // resource: b0 cbuffer = …
    //! // resource: t2 texture2d format=R32_UINT width=4 height=4 [mips=2] [array=3] [depth=2] = …
    //! // resource: s0 sampler filter=point|linear address=clamp|wrap|mirror|border
    //! // expect: u0[4] = 5 -1 2.5 0x7fc00000 inf   (32-bit words from word 4; a comment in parentheses)
    //! ```
    //!
    //! Values: decimal integers (negative ones as two's complement), `0x` hex words, floats
    //! (a `.` or an exponent; `inf`, `-inf`), all as 32-bit words.

    use std::collections::BTreeMap;
    use std::path::Path;

    use dxlane::ir::{ResourceClass, Shader};
    use dxlane::pipeline::{Bindings, dispatch};
    use dxlane::resources::{
        AddressMode, BufferKind, BufferView, Descriptor, Filter, Format, Memory, SamplerDesc,
        Texture, TextureDesc, TextureDim, TextureView, ViewClass,
    };

    /// One `// resource:` line.
    #[derive(Debug)]
    pub struct Res {
        /// The register (`t0`, `u1`, `b0`, `s0`).
        pub reg: String,
        kind: String,
        keys: BTreeMap<String, String>,
        data: Vec<u32>,
    }

    /// One `// expect:` line.
    #[derive(Debug)]
    struct Expect {
        reg: String,
        first: usize,
        words: Vec<u32>,
        line: String,
    }

    /// What a shader's header asks for.
    #[derive(Debug)]
    pub struct Setup {
        groups: [u32; 3],
        resources: Vec<Res>,
        expects: Vec<Expect>,
    }

    /// A word of a header line.
    pub fn word(t: &str) -> u32 {
        match t {
            "inf" => return f32::INFINITY.to_bits(),
            "-inf" => return f32::NEG_INFINITY.to_bits(),
            _ => {}
        }
        if let Some(h) = t.strip_prefix("0x") {
            return u32::from_str_radix(h, 16).unwrap_or_else(|e| panic!("{t}: {e}"));
        }
        if t.contains('.') || t.contains('e') {
            return t
                .parse::<f32>()
                .unwrap_or_else(|e| panic!("{t}: {e}"))
                .to_bits();
        }
        t.parse::<i64>().unwrap_or_else(|e| panic!("{t}: {e}")) as u32
    }

    /// The words of a header line's value list, up to a comment in parentheses; `N*v`
    /// repeats `v` N times.
    pub fn words(text: &str) -> Vec<u32> {
        let mut out = Vec::new();
        for t in text.split_whitespace().take_while(|t| !t.starts_with('(')) {
            match t.split_once('*') {
                Some((n, v)) => {
                    let n: usize = n.parse().unwrap_or_else(|e| panic!("{t}: {e}"));
                    out.extend(std::iter::repeat_n(word(v), n));
                }
                None => out.push(word(t)),
            }
        }
        out
    }

    /// Reads the text after `// resource:`.
    pub fn resource(r: &str) -> Res {
        let (head, data) = r.split_once(" = ").unwrap_or((r, ""));
        let mut it = head.split_whitespace();
        let reg = it.next().unwrap().to_string();
        let kind = it.next().unwrap().to_string();
        let keys = it
            .map(|kv| {
                let (k, v) = kv.split_once('=').unwrap();
                (k.to_string(), v.to_string())
            })
            .collect();
        Res {
            reg,
            kind,
            keys,
            data: words(data),
        }
    }

    /// Reads a shader source's header; `None` when it has no `// dispatch:` line.
    pub fn setup(source: &str) -> Option<Setup> {
        let mut groups = None;
        let mut resources = Vec::new();
        let mut expects = Vec::new();
        for line in source.lines() {
            let Some(rest) = line.strip_prefix("// ") else {
                continue;
            };
            if let Some(g) = rest.strip_prefix("dispatch:") {
                let v: Vec<u32> = g.split_whitespace().map(|t| t.parse().unwrap()).collect();
                groups = Some([v[0], v[1], v[2]]);
            } else if let Some(r) = rest.strip_prefix("resource:") {
                resources.push(resource(r));
            } else if let Some(e) = rest.strip_prefix("expect:") {
                let (lhs, rhs) = e.split_once('=').unwrap();
                let lhs = lhs.trim();
                let (reg, idx) = lhs.trim_end_matches(']').split_once('[').unwrap();
                expects.push(Expect {
                    reg: reg.to_string(),
                    first: idx.parse().unwrap(),
                    words: words(rhs),
                    line: line.to_string(),
                });
            }
        }
        Some(Setup {
            groups: groups?,
            resources,
            expects,
        })
    }

    fn key(r: &Res, k: &str) -> Option<u32> {
        r.keys.get(k).map(|v| v.parse().unwrap())
    }

    fn bytes_of(words: &[u32], size: usize) -> Vec<u8> {
        let mut b: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        assert!(b.len() <= size, "{} bytes of data for {size}", b.len());
        b.resize(size, 0);
        b
    }

    /// The descriptor a resource line describes.
    pub fn descriptor(r: &Res) -> Descriptor {
        let buffer = |kind: BufferKind, size: usize| Descriptor::Buffer {
            view: BufferView::whole(Memory::from_bytes(&bytes_of(&r.data, size)).unwrap(), kind),
            counter: None,
        };
        let data_size = r.data.len() * 4;
        match r.kind.as_str() {
            "raw" => buffer(
                BufferKind::Raw,
                key(r, "size").map_or(data_size, |s| s as usize),
            ),
            "structured" => buffer(
                BufferKind::Structured {
                    stride: key(r, "stride").unwrap(),
                },
                key(r, "size").map_or(data_size, |s| s as usize),
            ),
            "typed" => {
                let format = Format::from_name(&r.keys["format"]).unwrap();
                let n = key(r, "elements").unwrap() as usize;
                buffer(
                    BufferKind::Typed { format },
                    n * format.bytes_per_texel() as usize,
                )
            }
            "cbuffer" => {
                let size = data_size.div_ceil(16) * 16;
                Descriptor::ConstantBuffer {
                    memory: Memory::from_bytes(&bytes_of(&r.data, size)).unwrap(),
                    offset: 0,
                    size: size as u64,
                }
            }
            "sampler" => {
                let filter = match r.keys.get("filter").map(String::as_str) {
                    Some("point") => Filter::POINT,
                    _ => Filter::LINEAR,
                };
                let mode = match r.keys.get("address").map(String::as_str) {
                    Some("wrap") => AddressMode::Wrap,
                    Some("mirror") => AddressMode::Mirror,
                    Some("border") => AddressMode::Border,
                    _ => AddressMode::Clamp,
                };
                Descriptor::Sampler(SamplerDesc {
                    filter,
                    address: [mode; 3],
                    ..SamplerDesc::default()
                })
            }
            kind => {
                let dim = TextureDim::from_name(kind).unwrap_or_else(|| panic!("kind {kind}"));
                let desc = TextureDesc {
                    dim,
                    format: Format::from_name(&r.keys["format"]).unwrap(),
                    width: key(r, "width").unwrap_or(1),
                    height: key(r, "height").unwrap_or(1),
                    depth_or_array_size: key(r, "depth").or(key(r, "array")).unwrap_or(1),
                    mips: key(r, "mips").unwrap_or(1),
                    samples: key(r, "samples").unwrap_or(1),
                };
                let bytes = bytes_of(&r.data, desc.total_bytes() as usize);
                Descriptor::Texture(TextureView::whole(
                    Texture::from_bytes(desc, &bytes).unwrap(),
                ))
            }
        }
    }

    /// The register letter of a class in header lines (`b` for constant buffers).
    pub fn class_letter(c: ResourceClass) -> &'static str {
        match c {
            ResourceClass::Srv => "t",
            ResourceClass::Uav => "u",
            ResourceClass::Cbv => "b",
            ResourceClass::Sampler => "s",
        }
    }

    /// The words a descriptor holds now.
    fn contents(d: &Descriptor) -> Vec<u32> {
        let bytes = match d {
            Descriptor::Buffer { view, .. } => view.memory.to_bytes(),
            Descriptor::Texture(view) => view.texture.to_bytes(),
            Descriptor::ConstantBuffer { memory, .. } => memory.to_bytes(),
            _ => Vec::new(),
        };
        bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    /// The descriptors of `shader`'s ranges: each from its `// resource:` line, or null;
    /// also by register name.
    pub fn bind(
        shader: &Shader,
        resources: &[Res],
    ) -> (Vec<Vec<Descriptor>>, BTreeMap<String, Descriptor>) {
        let mut ranges = Vec::new();
        let mut by_reg: BTreeMap<String, Descriptor> = BTreeMap::new();
        for range in &shader.resources {
            let reg = format!("{}{}", class_letter(range.class), range.lower);
            let d = match resources.iter().find(|r| r.reg == reg) {
                Some(r) => descriptor(r),
                None => Descriptor::Null(match range.class {
                    ResourceClass::Srv | ResourceClass::Uav => {
                        if range.kind.is_texture() {
                            ViewClass::Texture
                        } else {
                            ViewClass::Buffer
                        }
                    }
                    ResourceClass::Cbv => ViewClass::ConstantBuffer,
                    ResourceClass::Sampler => ViewClass::Sampler,
                }),
            };
            by_reg.insert(reg, d.clone());
            ranges.push(vec![d]);
        }
        (ranges, by_reg)
    }

    /// Runs a lowered shader with its setup; returns the mismatches.
    pub fn check(name: &str, shader: &Shader, setup: &Setup) -> Vec<String> {
        let (ranges, by_reg) = bind(shader, &setup.resources);
        let bindings = Bindings {
            ranges,
            ..Bindings::default()
        };
        if let Err(e) = dispatch(
            shader,
            &bindings,
            setup.groups,
            &crate::common::plan(),
            None,
        ) {
            return vec![format!("{name}: dispatch failed: {e}")];
        }
        let mut out = Vec::new();
        for e in &setup.expects {
            let Some(d) = by_reg.get(&e.reg) else {
                out.push(format!("{name}: {} is not bound", e.reg));
                continue;
            };
            let have = contents(d);
            for (k, want) in e.words.iter().enumerate() {
                let i = e.first + k;
                let got = have.get(i).copied();
                if got != Some(*want) {
                    out.push(format!(
                        "{name}: {}[{i}] = {} (float {}), expected {want:#x} (float {}) — {}",
                        e.reg,
                        got.map_or("missing".into(), |g| format!("{g:#x}")),
                        got.map_or(f32::NAN, f32::from_bits),
                        f32::from_bits(*want),
                        e.line.trim()
                    ));
                }
            }
        }
        out
    }

    /// The HLSL source beside a compiled program (`x.cs_5_0.dxbc` → `x.hlsl`).
    pub fn source_of(path: &Path) -> Option<String> {
        let name = path.file_name()?.to_str()?;
        let stem = name.split('.').next()?;
        std::fs::read_to_string(path.with_file_name(format!("{stem}.hlsl"))).ok()
    }
}

/// Every test shader with a `// dispatch:` line gives the outputs its `// expect:` lines
/// state.
#[test]
fn shaders_give_their_expected_outputs() {
    let mut failures = Vec::new();
    let mut ran = Vec::new();
    for f in common::dxbc_programs() {
        let name = common::display_name(&f);
        if !name.starts_with("shaders/") || kind_of(&f) != ProgramKind::Compute {
            continue;
        }
        let Some(setup) = run::source_of(&f).and_then(|s| run::setup(&s)) else {
            continue;
        };
        let shader = match load(&f) {
            Ok(s) => s,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        failures.extend(run::check(&name, &shader, &setup));
        ran.push(name);
    }
    eprintln!("ran {} shaders: {}", ran.len(), ran.join(", "));
    assert!(ran.len() >= 10, "only {} shaders ran", ran.len());
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Programs whose sources (the project's older shaders, the corpora) state no setup:
/// their setups and the outputs derived from their HLSL, in the header format.
const SETUPS: &[(&str, &str)] = &[
    (
        // 64 threads; count = 4, scale = 0.5. Thread x < 4: results = 2x; total =
        // 4x + 6 (four consecutive ids from group shared memory), stored raw plus the
        // group id; floats = total * scale.
        "shaders/compute_basic.cs_5_0.dxbc",
        "// dispatch: 1 1 1
// resource: b0 cbuffer = 4 0.5
// resource: u0 structured stride=4 size=32
// resource: u1 raw size=32
// resource: u2 typed format=R32_FLOAT elements=8
// expect: u0[0] = 0 2 4 6 0
// expect: u1[0] = 6 10 14 18 0
// expect: u2[0] = 3.0 5.0 7.0 9.0 0",
    ),
    (
        // Thread t adds its float4 to its neighbour's ((t + 1) & 31) through group
        // shared memory: input[k] = (k, 2k, 0, 1) for k < 3, 0 after.
        "shaders/compute_sm4.cs_4_0.dxbc",
        "// dispatch: 1 1 1
// resource: t0 structured stride=16 size=512 = 0.0 0.0 0.0 1.0 1.0 2.0 0.0 1.0 2.0 4.0 0.0 1.0
// resource: u0 raw size=512
// expect: u0[0] = 1.0 2.0 0.0 2.0 3.0 6.0 0.0 2.0 2.0 4.0 0.0 1.0
// expect: u0[124] = 0.0 0.0 0.0 1.0",
    ),
    (
        // Shader Model 5.1 ranges in spaces: which = 100 (b5, space 3), texel x of row 0
        // of t2 (space 1) = 10x, so u3 (space 4) element x = 100 + x + 10x.
        "shaders/resources_sm51.cs_5_1.dxbc",
        "// dispatch: 1 1 1
// resource: b5 cbuffer = 100
// resource: t2 texture2d format=R32_FLOAT width=8 height=1 = 0.0 10.0 20.0 30.0 40.0 50.0 60.0 70.0
// resource: u3 structured stride=4 size=32
// expect: u3[0] = 100 111 122 133 144 155 166 177",
    ),
    (
        "dxbc-reader/compute_basic.dxbc",
        COMPUTE_BASIC,
    ),
    (
        "dxbc-reader/compute_basic.od.dxbc",
        COMPUTE_BASIC,
    ),
    (
        // o[k] = k; p = 3i + (i + 1); g[i] = p + 8 + 8 (width 8 as uint and float);
        // o[i] = g[63 - i] + 4 + 4 = 277 - 4i; o[64] is read, never written.
        "dxbc-reader/controls.cs.dxbc",
        "// dispatch: 1 1 1
// resource: t0 texture2d format=R32_FLOAT width=8 height=4
// resource: u0 structured stride=4 size=260 = 0.0 1.0 2.0 3.0 4.0 5.0 6.0 7.0 8.0 9.0 10.0 11.0 12.0 13.0 14.0 15.0 16.0 17.0 18.0 19.0 20.0 21.0 22.0 23.0 24.0 25.0 26.0 27.0 28.0 29.0 30.0 31.0 32.0 33.0 34.0 35.0 36.0 37.0 38.0 39.0 40.0 41.0 42.0 43.0 44.0 45.0 46.0 47.0 48.0 49.0 50.0 51.0 52.0 53.0 54.0 55.0 56.0 57.0 58.0 59.0 60.0 61.0 62.0 63.0 64.0
// expect: u0[0] = 277.0 273.0 269.0
// expect: u0[62] = 29.0 25.0 64.0",
    ),
    (
        // counts[(a, b)] (a, b < 4) gets x + 1 from x = a, a + 4: 4a + 12; counts[(a, b + 4)]
        // the max of 10x + y: 10a + 40 + b + 4; counts[(a + 4, b)] the min with 1000 of
        // 10x + y: 10a + b; signed_counts[(a, b)] the max of 0 and x - 4: a.
        "dxbc-reader/image_atomics.dxbc",
        IMAGE_ATOMICS,
    ),
    (
        "dxbc-reader/image_atomics.od.dxbc",
        IMAGE_ATOMICS,
    ),
    (
        // Only the order-independent results: the sum of x + 1 and the max of 3x.
        "dxbc-reader/image_atomic_results.dxbc",
        IMAGE_ATOMIC_RESULTS,
    ),
    (
        "dxbc-reader/image_atomic_results.od.dxbc",
        IMAGE_ATOMIC_RESULTS,
    ),
    (
        // o[0] = 1.0 / 4.0 as doubles.
        "dxcontainer/features/dbl2.cs_5_0.dxbc",
        "// dispatch: 1 1 1
// resource: u0 structured stride=8 size=16 = 0 0x3ff00000 0 0x40100000
// expect: u0[0] = 0 0x3fd00000 0 0x40100000",
    ),
    (
        // o[0] = 1.5 * 2.0.
        "dxcontainer/features/double.cs_5_0.dxbc",
        "// dispatch: 1 1 1
// resource: u0 structured stride=8 size=8 = 0 0x3ff80000
// expect: u0[0] = 0 0x40080000",
    ),
    (
        // o[0] = rcp(2.0) + fma(2.0, 2.0, 2.0) = 6.5.
        "dxcontainer/features/doubleext.cs_5_0.dxbc",
        "// dispatch: 1 1 1
// resource: u0 structured stride=8 size=8 = 0 0x40000000
// expect: u0[0] = 0 0x401a0000",
    ),
    (
        // msad4(0x04030201, (0x04030201, 0x08070605), o[0]): the byte windows of the
        // source at offsets 0..3 differ from the reference by 0, 1, 2, 3 per byte.
        "dxcontainer/features/msad.cs_5_0.dxbc",
        "// dispatch: 1 1 1
// resource: u0 structured stride=16 size=16 = 0x04030201 0x08070605 10 20
// expect: u0[0] = 0x04030201 0x08070609 18 32",
    ),
    (
        "dxcontainer/features/typeduav.cs_5_0.dxbc",
        "// dispatch: 1 1 1
// resource: u0 texture2d format=R32G32B32A32_FLOAT width=1 height=1 = 1.0 2.0 3.0 4.0
// expect: u0[0] = 2.0 3.0 4.0 5.0",
    ),
    (
        "dxcontainer/features/uav64.cs_5_0.dxbc",
        "// dispatch: 1 1 1
// resource: u0 typed format=R32_FLOAT elements=1
// resource: u4 typed format=R32_FLOAT elements=1
// resource: u8 typed format=R32_FLOAT elements=1
// expect: u0[0] = 1.0
// expect: u4[0] = 1.0
// expect: u8[0] = 1.0",
    ),
];

/// Four 8×4×2 groups; scale = 0xff. words[0] counts 256 invocations; words[1 + i + 64g] is
/// tile[63 - i] + 2016 (the sum of the group indices), tile[i] = 100x + 10y + z of thread
/// i; raw word i + 64g is tile[i] ^ 0xff; typed element i + 64g is (local id, i).
const COMPUTE_BASIC: &str = "// dispatch: 2 2 1
// resource: b0 cbuffer = 0xff
// resource: u0 raw size=1024
// resource: u1 structured stride=4 size=1028
// resource: u2 typed format=R32G32B32A32_FLOAT elements=256
// expect: u1[0] = 256 2747 2647 2547 2447
// expect: u1[193] = 3587 3487 3387
// expect: u0[0] = 255 155 55 467
// expect: u0[64] = 991 891 791 1203
// expect: u0[255] = 1756
// expect: u2[4] = 1.0 0.0 0.0 1.0
// expect: u2[252] = 7.0 3.0 1.0 63.0";

const IMAGE_ATOMICS: &str = "// dispatch: 1 1 1
// resource: u0 texture2d format=R32_UINT width=8 height=8 = 0 0 0 0 1000 1000 1000 1000 0 0 0 0 1000 1000 1000 1000 0 0 0 0 1000 1000 1000 1000 0 0 0 0 1000 1000 1000 1000
// resource: u1 texture2d format=R32_SINT width=4 height=4 = -100 -100 -100 -100 -100 -100 -100 -100 -100 -100 -100 -100 -100 -100 -100 -100
// expect: u0[0] = 12 16 20 24 0 10 20 30 12 16 20 24 1 11 21 31
// expect: u0[24] = 12 16 20 24 3 13 23 33 44 54 64 74 0 0 0 0
// expect: u0[56] = 47 57 67 77 0 0 0 0
// expect: u1[0] = 0 1 2 3 0 1 2 3";

const IMAGE_ATOMIC_RESULTS: &str = "// dispatch: 1 1 1
// resource: u0 texture2d format=R32_UINT width=4 height=1
// resource: u1 texture2d format=R32_UINT width=4 height=3
// expect: u0[0] = 10
// expect: u0[2] = 9";

/// The programs of [`SETUPS`] give the outputs derived from their HLSL.
#[test]
fn programs_give_outputs_derived_from_their_hlsl() {
    let programs = common::dxbc_programs();
    let mut failures = Vec::new();
    let mut ran = 0;
    for (name, text) in SETUPS {
        let Some(path) = programs.iter().find(|p| common::display_name(p) == *name) else {
            if name.starts_with("shaders/") {
                failures.push(format!("{name}: missing"));
            }
            continue;
        };
        let setup = run::setup(text).expect("a setup");
        match load(path) {
            Ok(shader) => failures.extend(run::check(name, &shader, &setup)),
            Err(e) => failures.push(format!("{name}: {e}")),
        }
        ran += 1;
    }
    eprintln!("ran {ran} programs");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Robustness: every 32-bit token of every compute, vertex and pixel program's `SHEX`
/// part set to 0, to all ones and to a shifted copy of itself; each mutated program is
/// refused (decode or lowering error) or lowers to a shader that validates — never a
/// panic. (Lowered without the container's signatures, so that the declarations alone
/// must size the stage's words.)
#[test]
fn mutated_programs_are_refused_or_lowered_never_panic() {
    use dxlane::container::{Container, FourCc, Part};
    let opts = LoadOptions::default();
    let (mut lowered, mut refused) = (0usize, 0usize);
    for f in common::dxbc_programs() {
        if !lowered_stage(kind_of(&f)) {
            continue;
        }
        let bytes = std::fs::read(&f).unwrap();
        let container = Container::parse(&bytes).unwrap();
        let part = container.program_part().unwrap();
        let data = part.data.to_vec();
        for word in 2..data.len() / 4 {
            let at = word * 4;
            let original = u32::from_le_bytes(data[at..at + 4].try_into().unwrap());
            for v in [0, u32::MAX, original.rotate_left(7), original ^ 0x0000_0800] {
                let mut m = data.clone();
                m[at..at + 4].copy_from_slice(&v.to_le_bytes());
                let part = Part {
                    tag: FourCc::SHEX,
                    offset: 0,
                    data: &m,
                };
                let Ok(program) = Program::from_part(&part) else {
                    refused += 1;
                    continue;
                };
                match lower::dxbc::lower_program(&program, None, &opts) {
                    Ok(s) => {
                        dxlane::ir::validate(&s).unwrap_or_else(|e| {
                            panic!("{}: token {word} = {v:#x}: {e}", common::display_name(&f))
                        });
                        lowered += 1;
                    }
                    Err(_) => refused += 1,
                }
            }
        }
    }
    eprintln!("mutated programs: {lowered} lowered, {refused} refused");
    assert!(lowered > 0 && refused > 0);
}

/// Robustness of the signature join: every byte of every vertex and pixel program's
/// signature parts (`ISGN`, `OSGN`, …) set to 0x00 and to 0xff in turn; the container is
/// refused or lowers to a shader that validates (a register past D3D's count, an element
/// of no components, a name past the part), never a panic.
#[test]
fn mutated_signatures_are_refused_or_lowered_never_panic() {
    use dxlane::container::{Container, signature::is_signature_tag};
    let (mut lowered, mut refused) = (0usize, 0usize);
    for f in common::dxbc_programs() {
        if !matches!(kind_of(&f), ProgramKind::Vertex | ProgramKind::Pixel) {
            continue;
        }
        let name = common::display_name(&f);
        let bytes = std::fs::read(&f).unwrap();
        let container = Container::parse(&bytes).unwrap();
        let ranges: Vec<_> = container
            .parts
            .iter()
            .filter(|p| is_signature_tag(p.tag))
            .map(|p| {
                let start = p.data_offset() as usize;
                start..start + p.data.len()
            })
            .collect();
        for range in ranges {
            for at in range {
                for v in [0x00u8, 0xff] {
                    let mut m = bytes.clone();
                    m[at] = v;
                    match lower::load(&m, &LoadOptions::default()) {
                        Ok(l) => {
                            dxlane::ir::validate(&l.shader)
                                .unwrap_or_else(|e| panic!("{name}: byte {at} = {v:#x}: {e}"));
                            lowered += 1;
                        }
                        Err(_) => refused += 1,
                    }
                }
            }
        }
    }
    eprintln!("mutated signatures: {lowered} lowered, {refused} refused");
    assert!(lowered > 0 && refused > 0);
}
