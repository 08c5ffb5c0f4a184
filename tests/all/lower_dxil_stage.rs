//! Corpus DXIL vertex and pixel programs lowered and run one wave at a time through
//! `exec::StageRunner` (no pipeline): the test writes each lane's input words by
//! semantic, runs the wave, and checks the output words against values worked out by
//! hand from each program's HLSL (beside it in the corpus), stated in each test. Pixel
//! lanes 0–3 are one quad: top-left, top-right, bottom-left, bottom-right.
//!
//! The pixel programs of the arithmetic, integer, conversion and control-flow families —
//! `half_ops`, `bits`, `loops`, `switch`, `flow`, `arrays`, `ops` and the four `denorm.*`
//! builds — are also drawn (`drawn`): a full-screen triangle through the whole pipeline
//! (vertex program, linking, interpolation, pixel stage, output merger into 32-bit
//! targets), whose every pixel must hold the words the one-wave run gives, and so the
//! same hand-derived values.
//!
//! Every test needs the corpora; without them (`DXLANE_NO_CORPORA=1`) each says so and
//! checks nothing, and with them each asserts how many builds it ran.

// Lanes are numbered: loops over lane indices read several per-lane tables at once.
#![allow(clippy::needless_range_loop)]

use dxlane::exec::{Limits, PixelContext, Profile, StageProgram, StageRunner};
use dxlane::ir::io::NO_REGISTER;
use dxlane::ir::{Interp, IoElement, Shader, Stage, SysValue};
use dxlane::lower::{self, LoadOptions};
use dxlane::resources::{
    AddressMode, BufferKind, BufferView, ComparisonFunc, Counter, Descriptor, Filter, Format,
    Memory, Reduction, SamplerDesc, Texture, TextureDesc, TextureDim, TextureView,
};

use crate::common;

/// The lowered builds of corpus program `dir/stem` (`stem.dxil`, `stem.66.dxil`,
/// `stem.od.dxil`); empty without the corpora, a panic when the corpora lack it.
fn builds(dir: &str, stem: &str) -> Vec<(String, Shader)> {
    files(dir, &[stem, &format!("{stem}.66"), &format!("{stem}.od")])
}

/// The lowered programs `dir/<name>.dxil` for each name that exists (at least one must).
fn files(dir: &str, names: &[&str]) -> Vec<(String, Shader)> {
    let all = common::dxil_programs();
    if common::corpora().is_empty() {
        eprintln!(
            "DXLANE_NO_CORPORA is set: {dir}/{} is not checked",
            names[0]
        );
        return Vec::new();
    }
    let mut out = Vec::new();
    for n in names {
        let want = format!("{dir}/{n}.dxil");
        if let Some(f) = all.iter().find(|f| common::display_name(f) == want) {
            let bytes = std::fs::read(f).unwrap();
            let s = lower::load(&bytes, &LoadOptions::default())
                .unwrap_or_else(|e| panic!("{want}: {e}"))
                .shader;
            dxlane::ir::validate(&s).unwrap_or_else(|e| panic!("{want}: {e}"));
            out.push((want, s));
        }
    }
    assert!(!out.is_empty(), "{dir}/{} is not in the corpora", names[0]);
    out
}

fn f(x: f32) -> u32 {
    x.to_bits()
}

fn fs(v: &[f32]) -> Vec<u32> {
    v.iter().map(|x| x.to_bits()).collect()
}

fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn cbuffer(words: &[u32]) -> Descriptor {
    Descriptor::ConstantBuffer {
        memory: Memory::from_bytes(&bytes_of(words)).unwrap(),
        offset: 0,
        size: 4 * words.len() as u64,
    }
}

/// A 2D R32G32B32A32_FLOAT texture whose texel (x, y) is `texel(x, y)`.
fn texture(w: u32, h: u32, texel: impl Fn(u32, u32) -> [f32; 4]) -> Descriptor {
    let mut words = Vec::new();
    for y in 0..h {
        for x in 0..w {
            words.extend(fs(&texel(x, y)));
        }
    }
    let t = Texture::from_bytes(
        TextureDesc::tex2d(Format::R32G32B32A32_FLOAT, w, h),
        &bytes_of(&words),
    )
    .unwrap();
    Descriptor::Texture(TextureView::whole(t))
}

/// A point-filtering sampler with `address` on every axis.
fn point(address: AddressMode) -> Descriptor {
    Descriptor::Sampler(SamplerDesc {
        filter: Filter::POINT,
        address: [address; 3],
        ..SamplerDesc::default()
    })
}

/// Orders descriptors by the shader's ranges: `by[k] = (binding, descriptor)`.
fn bind(s: &Shader, by: Vec<(&str, Descriptor)>) -> Vec<Vec<Descriptor>> {
    let mut out: Vec<Option<Descriptor>> = vec![None; s.resources.len()];
    for (b, d) in by {
        let i = s
            .resources
            .iter()
            .position(|r| r.binding_name() == b)
            .unwrap_or_else(|| panic!("no range {b} in\n{s}"));
        out[i] = Some(d);
    }
    out.into_iter()
        .enumerate()
        .map(|(i, d)| vec![d.unwrap_or_else(|| panic!("range {i} not bound\n{s}"))])
        .collect()
}

/// The element of `list` carrying semantic `name` index `index`, and the row of it
/// that index is.
fn element<'a>(list: &'a [IoElement], name: &str, index: u32) -> Option<(&'a IoElement, u32)> {
    list.iter().find_map(|e| {
        (e.semantic.eq_ignore_ascii_case(name)
            && (e.semantic_index..e.semantic_index + e.rows).contains(&index))
        .then(|| (e, index - e.semantic_index))
    })
}

/// What one lane is given: (semantic, index, words of the element's components in
/// order).
type Lane = Vec<(&'static str, u32, Vec<u32>)>;

/// A wave that ran.
struct Ran {
    outputs: Vec<IoElement>,
    words: Vec<u32>,
    wave: usize,
    killed: u128,
}

impl Ran {
    /// The words of output `name` index `index` in lane `l`, component by component.
    fn out(&self, l: usize, name: &str, index: u32) -> Vec<u32> {
        let (e, row) = element(&self.outputs, name, index)
            .unwrap_or_else(|| panic!("no output {name}{index}"));
        let first = e.mask.trailing_zeros();
        (0..e.mask.count_ones())
            .map(|k| self.words[(e.slot + 4 * row + first + k) as usize * self.wave + l])
            .collect()
    }

    /// [`Ran::out`] as floats.
    fn outf(&self, l: usize, name: &str, index: u32) -> Vec<f32> {
        self.out(l, name, index)
            .into_iter()
            .map(f32::from_bits)
            .collect()
    }
}

/// Runs one wave of `s` with a lane per entry of `lanes` (lanes in `helper` are helper
/// lanes; pixel lane `l` has tag `l` and ids `(l & 1, l >> 1, 0)`, a quad at the origin).
fn run(
    s: &Shader,
    ranges: Vec<Vec<Descriptor>>,
    lanes: &[Lane],
    helper: u128,
    pixel: Option<&dyn PixelContext>,
) -> Ran {
    let wave = lanes.len().next_power_of_two().max(4);
    let table = dxlane::exec::DescriptorTable::new(s, &ranges, &[], &[])
        .unwrap_or_else(|e| panic!("{e}\n{s}"));
    let p = StageProgram::new(s, table, Profile::default(), Limits::default(), wave as u32)
        .unwrap_or_else(|e| panic!("{e}\n{s}"))
        .with_engine(crate::common::engine());
    let mut r = StageRunner::new(&p);
    r.inputs_mut().fill(0);
    for (l, lane) in lanes.iter().enumerate() {
        for (name, index, vals) in lane {
            let (e, row) = element(&s.inputs, name, *index)
                .unwrap_or_else(|| panic!("the program reads no input {name}{index}\n{s}"));
            let first = e.mask.trailing_zeros();
            assert!(vals.len() as u32 <= e.mask.count_ones(), "{name}{index}");
            for (k, v) in vals.iter().enumerate() {
                let word = (e.slot + 4 * row + first + k as u32) as usize;
                r.inputs_mut()[word * wave + l] = *v;
            }
        }
        r.set_tag(l, l as u32);
        r.set_ids(l, [l as u32 & 1, l as u32 >> 1, 0]);
    }
    let exist = (1u128 << lanes.len()) - 1;
    let w = r
        .run(exist, helper, pixel)
        .unwrap_or_else(|e| panic!("{e}\n{s}"));
    Ran {
        outputs: s.outputs.clone(),
        words: r.outputs().to_vec(),
        wave,
        killed: w.killed,
    }
}

// ---- vertex programs ---------------------------------------------------------------------

/// vertex.hlsl: `mul(float4(position, 1), world_view_projection)` — the matrix is
/// column-major in the constant buffer (HLSL's default packing), so register j holds
/// column j and output j is `dot(float4(position, 1), cb[j])`; uv scaled by
/// `SV_VertexID & 3`, the tint by `SV_InstanceID + 1`, the clip distance position.y.
#[test]
fn vertex_transforms_and_system_values() {
    let cb: Vec<u32> = fs(&[
        1.0, 0.0, 0.0, 0.5, // column 0
        0.0, 2.0, 0.0, 0.0, // column 1
        0.0, 0.0, 1.0, 1.0, // column 2
        1.0, 1.0, 1.0, 1.0, // column 3
        0.5, 1.0, 2.0, 4.0, // tint
    ]);
    let pos = [
        [1.0f32, 2.0, 3.0],
        [-1.0, 0.5, 0.0],
        [4.0, 8.0, -2.0],
        [0.0; 3],
    ];
    let uv = [[0.5f32, 0.25], [1.0, 2.0], [3.0, -1.0], [8.0, 16.0]];
    let ids = [0u32, 1, 6, 7];
    let lanes: Vec<Lane> = (0..4)
        .map(|l| {
            vec![
                ("POSITION", 0, fs(&pos[l])),
                ("TEXCOORD", 0, fs(&uv[l])),
                ("SV_VertexID", 0, vec![ids[l]]),
                ("SV_InstanceID", 0, vec![l as u32]),
            ]
        })
        .collect();
    let all = builds("dxil-reader", "vertex");
    for (name, s) in &all {
        assert_eq!(s.stage, Stage::Vertex);
        let vid = s.input_sv(SysValue::VertexId).expect("SV_VertexID element");
        assert_ne!(
            vid.register, NO_REGISTER,
            "{name}: the IA packs SV_VertexID"
        );
        let r = run(s, bind(s, vec![("b0", cbuffer(&cb))]), &lanes, 0, None);
        for l in 0..4 {
            let [x, y, z] = pos[l];
            let want = [x + 0.5, 2.0 * y, z + 1.0, x + y + z + 1.0];
            assert_eq!(r.outf(l, "SV_Position", 0), want, "{name} lane {l}");
            let k = (ids[l] & 3) as f32;
            assert_eq!(
                r.outf(l, "TEXCOORD", 0),
                [uv[l][0] * k, uv[l][1] * k],
                "{name} lane {l}"
            );
            let t = (l + 1) as f32;
            assert_eq!(
                r.outf(l, "COLOR", 0),
                [0.5 * t, t, 2.0 * t, 4.0 * t],
                "{name} lane {l}"
            );
            assert_eq!(r.outf(l, "SV_ClipDistance", 0), [y], "{name} lane {l}");
        }
    }
    assert!(common::corpora().is_empty() || all.len() == 3);
}

/// precise.hlsl with a = (2, 3, 0.5, 1), b = (1, −1, 2, 0.25), c = (1, 2, 4, −1): for
/// p = (1, 2, 3, 4), x = p·a + b = (3, 5, 3.5, 4.25), y = x·c + p.wzyx = (7, 13, 16,
/// −3.25), z = 7·13 + 16 = 107, so SV_Position = (3, 5, 107, −3.25); for p = (−1, 0.5,
/// 0, 2): x = (−1, 0.5, 2, 2.25), y = (1, 1, 8.5, −3.25), z = 9.5. Every value is exact,
/// fused or not.
#[test]
fn precise_vertex() {
    let cb = fs(&[
        2.0, 3.0, 0.5, 1.0, 1.0, -1.0, 2.0, 0.25, 1.0, 2.0, 4.0, -1.0,
    ]);
    let lanes: Vec<Lane> = vec![
        vec![("POSITION", 0, fs(&[1.0, 2.0, 3.0, 4.0]))],
        vec![("POSITION", 0, fs(&[-1.0, 0.5, 0.0, 2.0]))],
    ];
    let all = files("dxil-reader", &["precise.vs"]);
    for (name, s) in &all {
        let r = run(s, bind(s, vec![("b0", cbuffer(&cb))]), &lanes, 0, None);
        assert_eq!(
            r.outf(0, "SV_Position", 0),
            [3.0, 5.0, 107.0, -3.25],
            "{name}"
        );
        assert_eq!(
            r.outf(1, "SV_Position", 0),
            [-1.0, 0.5, 9.5, -3.25],
            "{name}"
        );
    }
}

/// bound_palette_vs.hlsl: output k of joint j is `dot(Palette[3j + k], float4(p, 1))`.
/// With Palette[n] = (n, 1, 0, n/2) and p = (1, 2, 3) that is 1.5·(3j + k) + 2. Joint 2
/// reads rows 6–8, past the six the program declares but inside the bound buffer: D3D12
/// bounds constant-buffer reads by the view, not the declaration (the fixture's point).
#[test]
fn palette_reads_past_the_declared_rows() {
    let cb: Vec<u32> = (0..9)
        .flat_map(|n| fs(&[n as f32, 1.0, 0.0, n as f32 / 2.0]))
        .collect();
    let lanes: Vec<Lane> = (0..3)
        .map(|j| {
            vec![
                ("POSITION", 0, fs(&[1.0, 2.0, 3.0])),
                ("BLENDINDICES", 0, vec![j]),
            ]
        })
        .collect();
    for (name, s) in &files("dxil-reader", &["bound_palette_vs"]) {
        let r = run(s, bind(s, vec![("b0", cbuffer(&cb))]), &lanes, 0, None);
        for j in 0..3 {
            let want: Vec<f32> = (0..3)
                .map(|k| 1.5 * (3 * j + k) as f32 + 2.0)
                .chain([1.0])
                .collect();
            assert_eq!(
                r.outf(j as usize, "SV_Position", 0),
                want,
                "{name} joint {j}"
            );
        }
    }
}

/// tessellation.hlsl's vertex program: CTRL_POSITION = position · scale (scale at byte 64
/// of View, after the matrix), CTRL_COLOR = color; it writes no SV_Position.
#[test]
fn tessellation_vertex() {
    let mut cb = vec![0u32; 16];
    cb.extend(fs(&[2.0, 0.0, 0.0, 0.0]));
    let lanes: Vec<Lane> = vec![vec![
        ("POSITION", 0, fs(&[1.0, -2.0, 0.5])),
        ("COLOR", 0, fs(&[0.1, 0.2, 0.3, 0.4])),
    ]];
    let all = files("dxil-reader", &["tessellation.vs", "tessellation.vs.od"]);
    for (name, s) in &all {
        assert!(s.output_sv(SysValue::Position).is_none(), "{name}");
        let r = run(s, bind(s, vec![("b0", cbuffer(&cb))]), &lanes, 0, None);
        assert_eq!(r.outf(0, "CTRL_POSITION", 0), [2.0, -4.0, 1.0], "{name}");
        assert_eq!(r.outf(0, "CTRL_COLOR", 0), [0.1, 0.2, 0.3, 0.4], "{name}");
    }
    assert!(common::corpora().is_empty() || all.len() == 2);
}

/// draw.hlsl's vs_main: pos·scale + offset, the rest passed through.
#[test]
fn draw_vertex() {
    let cb = fs(&[2.0, 0.5, 1.0, 1.0, -1.0, 0.25, 0.0, 0.0]);
    let lanes: Vec<Lane> = vec![vec![
        ("POSITION", 0, fs(&[1.0, 2.0, 3.0, 1.0])),
        ("COLOR", 0, fs(&[0.25, 0.5, 0.75, 1.0])),
        ("TEXCOORD", 0, fs(&[0.125, 0.875])),
        ("TEXCOORD", 1, fs(&[7.0, 8.0, 9.0, 10.0])),
    ]];
    for (name, s) in &files("dxil-reader", &["draw_vs"]) {
        let r = run(s, bind(s, vec![("b0", cbuffer(&cb))]), &lanes, 0, None);
        assert_eq!(r.outf(0, "SV_Position", 0), [1.0, 1.25, 3.0, 1.0], "{name}");
        assert_eq!(r.outf(0, "COLOR", 0), [0.25, 0.5, 0.75, 1.0], "{name}");
        assert_eq!(r.outf(0, "TEXCOORD", 0), [0.125, 0.875], "{name}");
        assert_eq!(r.outf(0, "TEXCOORD", 1), [7.0, 8.0, 9.0, 10.0], "{name}");
        // Outputs carry no interpolation: the pixel program's inputs say how.
        assert!(
            s.outputs.iter().all(|e| e.interp == Interp::Undefined),
            "{name}"
        );
    }
}

/// uavvs.hlsl: `b[SV_VertexID] = 1` into a typed UAV from a vertex program (SM 6.0 UAVs
/// at every stage), SV_Position 0.
#[test]
fn vertex_writes_a_uav() {
    for (name, s) in &files("dxcontainer/features", &["uavvs"]) {
        let m = Memory::from_bytes(&[0; 32]).unwrap();
        let d = Descriptor::Buffer {
            view: BufferView::whole(
                m.clone(),
                BufferKind::Typed {
                    format: Format::R32_FLOAT,
                },
            ),
            counter: None,
        };
        let lanes: Vec<Lane> = [0u32, 2, 3]
            .iter()
            .map(|v| vec![("SV_VertexID", 0, vec![*v])])
            .collect();
        let r = run(s, bind(s, vec![("u0", d)]), &lanes, 0, None);
        let got: Vec<f32> = m
            .to_bytes()
            .chunks(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        assert_eq!(got, [1.0, 0.0, 1.0, 1.0, 0.0, 0.0, 0.0, 0.0], "{name}");
        assert_eq!(r.outf(1, "SV_Position", 0), [0.0; 4], "{name}");
    }
}

/// vprt.hlsl: SV_ViewportArrayIndex = SV_VertexID, SV_Position 0.
#[test]
fn viewport_index_output() {
    for (name, s) in &files("dxcontainer/features", &["vprt"]) {
        let lanes: Vec<Lane> = (0..4u32)
            .map(|v| vec![("SV_VertexID", 0, vec![v * 5])])
            .collect();
        let r = run(s, Vec::new(), &lanes, 0, None);
        for l in 0..4 {
            assert_eq!(
                r.out(l, "SV_ViewportArrayIndex", 0),
                [l as u32 * 5],
                "{name}"
            );
        }
    }
}

// ---- pixel programs ----------------------------------------------------------------------

/// pixel_ops.hlsl: SV_Target0 is texel (5 − 2, 6 + 3) = (3, 9) of `img` (texel (x, y)
/// holds (x, y, 100, 1)); SV_Target1 is the standard position of sample SV_SampleIndex
/// of a 4-sample texture (D3D11's `D3D11_STANDARD_MULTISAMPLE_PATTERN`: (−2, −6), (6, −2), (−6, 2), (2, 6) sixteenths),
/// f16tof32 of the low half of `packed` (0x3c00: 1.0; the high half is ignored) and
/// f32tof16 of h = 1 + 0.75·2^-10, which rounds toward zero to 0x3c00 = 15360 (seed
/// rule; nearest would give 0x3c01).
#[test]
fn pixel_ops() {
    let cb = [f(1.0 + 0.75 / 1024.0), 0xabcd_3c00];
    let pos = [
        [-0.125f32, -0.375],
        [0.375, -0.125],
        [-0.375, 0.125],
        [0.125, 0.375],
    ];
    let lanes: Vec<Lane> = (0..4u32)
        .map(|l| {
            vec![
                ("SV_Position", 0, fs(&[0.5, 0.5, 0.0, 1.0])),
                ("SV_SampleIndex", 0, vec![l]),
            ]
        })
        .collect();
    let all = builds("dxil-reader", "pixel_ops");
    for (name, s) in &all {
        let si = s.input_sv(SysValue::SampleIndex).expect("SV_SampleIndex");
        assert_eq!(
            si.register, NO_REGISTER,
            "{name}: SV_SampleIndex is not packed"
        );
        let ms = {
            let desc = TextureDesc {
                dim: TextureDim::Tex2DMS,
                samples: 4,
                ..TextureDesc::tex2d(Format::R32G32B32A32_FLOAT, 1, 1)
            };
            let t = Texture::from_bytes(desc, &[0; 64]).unwrap();
            Descriptor::Texture(TextureView::whole(t))
        };
        let img = texture(16, 16, |x, y| [x as f32, y as f32, 100.0, 1.0]);
        let ranges = bind(s, vec![("b0", cbuffer(&cb)), ("t0", img), ("t1", ms)]);
        let r = run(s, ranges, &lanes, 0, None);
        for (l, p) in pos.iter().enumerate() {
            assert_eq!(r.outf(l, "SV_Target", 0), [3.0, 9.0, 100.0, 1.0], "{name}");
            assert_eq!(
                r.outf(l, "SV_Target", 1),
                [p[0], p[1], 1.0, 15360.0],
                "{name} sample {l}"
            );
        }
    }
    assert!(common::corpora().is_empty() || all.len() == 3);
}

/// denorm.hlsl, `a * b + a`, in each fp32 denormal mode. x: 2^-126 · 0.5 is the
/// denormal 2^-127, flushed to 0 (result 2^-126, 0x00800000) or kept (1.5 · 2^-126,
/// 0x00c00000); y: the denormal a = 2^-130 is flushed on input (0) or kept (2^-129,
/// 0x00100000); z: −2^-130 flushes to −0, and −0 · 1 + −0 = −0 (0x80000000), or gives
/// −2^-129; w: 3 · 2 + 3 = 9. `any` and no option flush as `ftz` does: WARP flushes
/// unless the program states "preserve" (DESIGN "32-bit float arithmetic flushes
/// denormal inputs and outputs to signed zero").
#[test]
fn denormal_modes() {
    let a = [0x0080_0000u32, 0x0008_0000, 0x8008_0000, f(3.0)];
    let b = [f(0.5), f(1.0), f(1.0), f(2.0)];
    let lanes: Vec<Lane> = vec![vec![("A", 0, a.to_vec()), ("B", 0, b.to_vec())]];
    let flushed = [0x0080_0000u32, 0, 0x8000_0000, f(9.0)];
    let kept = [0x00c0_0000u32, 0x0010_0000, 0x8010_0000, f(9.0)];
    let mut n = 0;
    for (mode, want) in [
        ("any", flushed),
        ("default", flushed),
        ("ftz", flushed),
        ("preserve", kept),
    ] {
        for (name, s) in &files("dxil-reader", &[&format!("denorm.{mode}.ps")]) {
            let r = run(s, Vec::new(), &lanes, 0, None);
            assert_eq!(r.out(0, "SV_Target", 0), want, "{name}");
            // Drawn: the denormal inputs reach the program unchanged through
            // interpolation, and the program's mode decides alone.
            assert_eq!(
                drawn(s, Vec::new(), &lanes[0]),
                [want.to_vec()],
                "{name} drawn"
            );
            n += 1;
        }
    }
    assert!(common::corpora().is_empty() || n == 4);
}

/// dynidx.hlsl: `a[k % 3]` with the row chosen at run time (`input_indexed`); a[r] =
/// (10r, 10r + 1, 10r + 2, 10r + 3).
#[test]
fn dynamically_indexed_input() {
    let ks = [0u32, 1, 2, 5];
    let lanes: Vec<Lane> = ks
        .iter()
        .map(|&k| {
            let mut l: Lane = (0..3)
                .map(|r| {
                    let b = 10.0 * r as f32;
                    ("A", r, fs(&[b, b + 1.0, b + 2.0, b + 3.0]))
                })
                .collect();
            l.push(("K", 0, vec![k]));
            l
        })
        .collect();
    for (name, s) in &files("dxil-reader", &["dynidx.ps"]) {
        let a = s.inputs.iter().find(|e| e.semantic == "A").unwrap();
        assert_eq!((a.rows, a.interp), (3, Interp::Linear), "{name}");
        let k = s.inputs.iter().find(|e| e.semantic == "K").unwrap();
        assert_eq!(k.interp, Interp::Constant, "{name}");
        let r = run(s, Vec::new(), &lanes, 0, None);
        for (l, k) in ks.iter().enumerate() {
            let b = 10.0 * (k % 3) as f32;
            assert_eq!(
                r.outf(l, "SV_Target", 0),
                [b, b + 1.0, b + 2.0, b + 3.0],
                "{name} k = {k}"
            );
        }
    }
}

/// usage.hlsl: (uv.xy, b.x, d.w); usage2.hlsl: (a.y, b, c.y, 1) — elements packed
/// into shared rows read from their columns.
#[test]
fn packed_inputs() {
    for (name, s) in &files("dxil-reader", &["usage.ps"]) {
        let lanes: Vec<Lane> = vec![vec![
            ("TEXCOORD", 0, fs(&[1.0, 2.0, 3.0, 4.0])),
            ("TEXCOORD", 1, fs(&[5.0, 6.0])),
            ("COLOR", 0, fs(&[7.0, 8.0, 9.0, 10.0])),
        ]];
        let r = run(s, Vec::new(), &lanes, 0, None);
        assert_eq!(r.outf(0, "SV_Target", 0), [1.0, 2.0, 5.0, 10.0], "{name}");
    }
    for (name, s) in &files("dxil-reader", &["usage2.ps"]) {
        let lanes: Vec<Lane> = vec![vec![
            ("A", 0, fs(&[1.0, 2.0, 3.0])),
            ("B", 0, fs(&[4.0])),
            ("C", 0, fs(&[5.0, 6.0])),
        ]];
        let r = run(s, Vec::new(), &lanes, 0, None);
        assert_eq!(r.outf(0, "SV_Target", 0), [2.0, 4.0, 6.0, 1.0], "{name}");
    }
}

/// draw.hlsl's ps_colour: SV_Target0 = COLOR0, SV_Target1 = (TEXCOORD0, TEXCOORD1.xy),
/// with the inputs' three interpolation modes as declared.
#[test]
fn draw_colour() {
    for (name, s) in &files("dxil-reader", &["draw_colour"]) {
        let modes: Vec<(&str, u32, Interp)> = s
            .inputs
            .iter()
            .map(|e| (e.semantic.as_str(), e.semantic_index, e.interp))
            .collect();
        assert!(modes.contains(&("COLOR", 0, Interp::Linear)), "{modes:?}");
        assert!(
            modes.contains(&("TEXCOORD", 0, Interp::LinearNoPerspective)),
            "{modes:?}"
        );
        assert!(
            modes.contains(&("TEXCOORD", 1, Interp::Constant)),
            "{modes:?}"
        );
        let lanes: Vec<Lane> = vec![vec![
            ("COLOR", 0, fs(&[0.1, 0.2, 0.3, 0.4])),
            ("TEXCOORD", 0, fs(&[0.5, 0.6])),
            ("TEXCOORD", 1, fs(&[7.0, 8.0, 9.0, 10.0])),
        ]];
        let r = run(s, Vec::new(), &lanes, 0, None);
        assert_eq!(r.outf(0, "SV_Target", 0), [0.1, 0.2, 0.3, 0.4], "{name}");
        assert_eq!(r.outf(0, "SV_Target", 1), [0.5, 0.6, 7.0, 8.0], "{name}");
    }
}

/// draw.hlsl's ps_position: SV_Target0 = SV_Position, SV_Target1 = (front ? 1 : 0,
/// id.x, 0, 1) with SV_IsFrontFace 0xffffffff (front) or 0, as DXBC gives it.
#[test]
fn draw_position_and_front_face() {
    for (name, s) in &files("dxil-reader", &["draw_position"]) {
        let lanes: Vec<Lane> = (0..4)
            .map(|l| {
                let front = if l % 2 == 0 { u32::MAX } else { 0 };
                vec![
                    ("SV_Position", 0, fs(&[l as f32 + 0.5, 0.5, 0.25, 1.0])),
                    ("SV_IsFrontFace", 0, vec![front]),
                    ("TEXCOORD", 1, fs(&[l as f32 * 3.0])),
                ]
            })
            .collect();
        let r = run(s, Vec::new(), &lanes, 0, None);
        for l in 0..4 {
            assert_eq!(
                r.outf(l, "SV_Target", 0),
                [l as f32 + 0.5, 0.5, 0.25, 1.0],
                "{name}"
            );
            let front = if l % 2 == 0 { 1.0 } else { 0.0 };
            assert_eq!(
                r.outf(l, "SV_Target", 1),
                [front, l as f32 * 3.0, 0.0, 1.0],
                "{name} lane {l}"
            );
        }
    }
}

/// draw.hlsl's ps_discard: the lanes whose COLOR0.x > 0.5 (lanes 1 and 3) are discarded
/// and reported killed; the others return COLOR0.
#[test]
fn draw_discard() {
    let xs = [0.25f32, 0.75, 0.5, 1.0];
    let lanes: Vec<Lane> = xs
        .iter()
        .map(|x| vec![("COLOR", 0, fs(&[*x, 0.0, 0.0, 1.0]))])
        .collect();
    for (name, s) in &files("dxil-reader", &["draw_discard"]) {
        let r = run(s, Vec::new(), &lanes, 0, None);
        assert_eq!(r.killed, 0b1010, "{name}");
        for l in [0, 2] {
            assert_eq!(r.outf(l, "SV_Target", 0), [xs[l], 0.0, 0.0, 1.0], "{name}");
        }
    }
}

/// draw.hlsl's ps_derivatives over one quad (lanes TL, TR, BL, BR). COLOR0.x = (0, 1,
/// 10, 15): ddx_fine is TR − TL = 1 on the top row and BR − BL = 5 on the bottom,
/// ddy_fine BL − TL = 10 on the left and BR − TR = 14 on the right; ddx_coarse of uv.x =
/// (0, 2, 4, 9) is the top row's 2 everywhere, ddy_coarse of uv.y = (0, 1, 3, 8) the left
/// column's 3 (DXIL.rst: `DerivCoarseX` is "the rate of change per stamp", `DerivFineX` "per pixel"). COLOR0.y = (1,
/// 3, 4, 10): fine x 2 / 6, fine y 3 / 7; SV_Position.z = (0.5, 0.75, 0.5, 0.75): fine x
/// 0.25; SV_Position.w = (1, 1, 2, 2): fine y 1.
#[test]
fn draw_derivatives() {
    let cx = [0.0f32, 1.0, 10.0, 15.0];
    let cy = [1.0f32, 3.0, 4.0, 10.0];
    let ux = [0.0f32, 2.0, 4.0, 9.0];
    let uy = [0.0f32, 1.0, 3.0, 8.0];
    let pz = [0.5f32, 0.75, 0.5, 0.75];
    let pw = [1.0f32, 1.0, 2.0, 2.0];
    let lanes: Vec<Lane> = (0..4)
        .map(|l| {
            vec![
                ("SV_Position", 0, fs(&[0.5, 0.5, pz[l], pw[l]])),
                ("COLOR", 0, fs(&[cx[l], cy[l], 0.0, 0.0])),
                ("TEXCOORD", 0, fs(&[ux[l], uy[l]])),
            ]
        })
        .collect();
    let fine_x = |v: &[f32; 4], l: usize| if l < 2 { v[1] - v[0] } else { v[3] - v[2] };
    let fine_y = |v: &[f32; 4], l: usize| if l % 2 == 0 { v[2] - v[0] } else { v[3] - v[1] };
    for (name, s) in &files("dxil-reader", &["draw_derivatives"]) {
        let r = run(s, Vec::new(), &lanes, 0, None);
        for l in 0..4 {
            assert_eq!(
                r.outf(l, "SV_Target", 0),
                [fine_x(&cx, l), fine_y(&cx, l), 2.0, 3.0],
                "{name} lane {l}"
            );
            assert_eq!(
                r.outf(l, "SV_Target", 1),
                [fine_x(&cy, l), fine_y(&cy, l), 0.25, 1.0],
                "{name} lane {l}"
            );
        }
    }
}

/// draw.hlsl's ps_texture: `ramp.SampleLevel(point_clamp, uv, 0)` on a 4 × 4 texture
/// whose texel (x, y) is (x, y, 0, 1): uv · 4 truncated picks the texel, clamped to the
/// edge outside [0, 1).
#[test]
fn draw_texture() {
    let uv = [[0.1f32, 0.1], [0.6, 0.3], [1.5, -1.0], [0.99, 0.76]];
    let want = [[0.0f32, 0.0], [2.0, 1.0], [3.0, 0.0], [3.0, 3.0]];
    let lanes: Vec<Lane> = uv.iter().map(|t| vec![("TEXCOORD", 0, fs(t))]).collect();
    for (name, s) in &files("dxil-reader", &["draw_texture"]) {
        let ranges = bind(
            s,
            vec![
                ("t0", texture(4, 4, |x, y| [x as f32, y as f32, 0.0, 1.0])),
                ("s0", point(AddressMode::Clamp)),
            ],
        );
        let r = run(s, ranges, &lanes, 0, None);
        for l in 0..4 {
            assert_eq!(
                r.outf(l, "SV_Target", 0),
                [want[l][0], want[l][1], 0.0, 1.0],
                "{name} lane {l}"
            );
        }
    }
}

/// blend.hlsl with an implicit-LOD `Sample` of a texture that is (0, 0.5, 1, 1)
/// everywhere (bound with a point sampler, so any LOD gives it exactly), scale = (1, 1,
/// 2, 0), bias = (0, 0, 0.5, 0), flags.x = 7: w = saturate(2·weight − 0.5) is 0, 0.5, 1
/// and 0 for weights 0, 0.5, 1, 0.25, so SV_Target0 = lerp(t, (1, 0.5, 0.25, 1), w) =
/// t, (0.5, 0.5, 0.625, 1), (1, 0.5, 0.25, 1), t; d = dot(t.xyz, (1, 2, 3)) = 4, negated
/// on the front face (lane 0); SV_Target1 = (d, sqrt|d| = 2, max(uv.x, uv.y), id·3 + 7).
#[test]
fn blend_sample_and_front_face() {
    let cb = vec![f(1.0), f(1.0), f(2.0), 0, 0, 0, f(0.5), 0, 7, 0, 0, 0];
    let uv = [[0.25f32, 0.5], [0.75, 0.5], [0.25, 1.0], [0.75, 1.0]];
    let weight = [0.0f32, 0.5, 1.0, 0.25];
    let lanes: Vec<Lane> = (0..4)
        .map(|l| {
            vec![
                ("TEXCOORD", 0, fs(&uv[l])),
                ("TEXCOORD", 1, fs(&[weight[l]])),
                ("TEXCOORD", 2, vec![l as u32 + 1]),
                ("SV_IsFrontFace", 0, vec![if l == 0 { u32::MAX } else { 0 }]),
            ]
        })
        .collect();
    let t = [0.0f32, 0.5, 1.0, 1.0];
    let colour = [t, [0.5, 0.5, 0.625, 1.0], [1.0, 0.5, 0.25, 1.0], t];
    for (name, s) in &files("dxil-reader", &["blend"]) {
        let ranges = bind(
            s,
            vec![
                ("b3", cbuffer(&cb)),
                ("t2", texture(4, 4, |_, _| t)),
                ("s1", point(AddressMode::Wrap)),
            ],
        );
        let r = run(s, ranges, &lanes, 0, None);
        for l in 0..4 {
            assert_eq!(r.outf(l, "SV_Target", 0), colour[l], "{name} lane {l}");
            let d = if l == 0 { -4.0 } else { 4.0 };
            assert_eq!(
                r.outf(l, "SV_Target", 1),
                [d, 2.0, uv[l][0].max(uv[l][1]), (3 * (l + 1) + 7) as f32],
                "{name} lane {l}"
            );
        }
    }
}

/// tiled.hlsl: a `Sample` with a residency status; every texel is resident, so
/// `CheckAccessFullyMapped` is true and the sample is returned.
#[test]
fn sample_with_status() {
    for (name, s) in &files("dxcontainer/features", &["tiled"]) {
        let c = [0.25f32, 0.5, 0.75, 1.0];
        let ranges = bind(
            s,
            vec![
                ("t0", texture(2, 2, |_, _| c)),
                ("s0", point(AddressMode::Clamp)),
            ],
        );
        let lanes: Vec<Lane> = (0..4)
            .map(|l| vec![("UV", 0, fs(&[0.25 * l as f32, 0.5]))])
            .collect();
        let r = run(s, ranges, &lanes, 0, None);
        for l in 0..4 {
            assert_eq!(r.outf(l, "SV_Target", 0), c, "{name}");
        }
    }
}

/// rov.hlsl: `t[uint2(SV_Position.xy)] = 1` into a rasterizer-ordered texture from each
/// pixel of the quad; lane 3 is a helper lane, which runs but writes no memory (HLSL SM 6.6
/// "IsHelperLane": helper lanes are not visible), so texel (1, 1) keeps its 0.
#[test]
fn pixel_uav_writes_skip_helper_lanes() {
    for (name, s) in &files("dxcontainer/features", &["rov"]) {
        let t = Texture::from_bytes(
            TextureDesc::tex2d(Format::R32G32B32A32_FLOAT, 2, 2),
            &[0; 64],
        )
        .unwrap();
        let ranges = bind(
            s,
            vec![("u0", Descriptor::Texture(TextureView::whole(t.clone())))],
        );
        let lanes: Vec<Lane> = (0..4)
            .map(|l| {
                vec![(
                    "SV_Position",
                    0,
                    fs(&[(l & 1) as f32 + 0.5, (l >> 1) as f32 + 0.5, 0.0, 1.0]),
                )]
            })
            .collect();
        run(s, ranges, &lanes, 0b1000, None);
        let texels: Vec<f32> = t
            .to_bytes()
            .chunks(16)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        assert_eq!(texels, [1.0, 1.0, 1.0, 0.0], "{name}");
    }
}

/// bary.hlsl: `float4(SV_Barycentrics, 1)`; the element is not packed (DXIL.rst:
/// `NotPacked` in pixel inputs) and its words are what the pipeline supplies.
#[test]
fn barycentrics_input() {
    for (name, s) in &files("dxcontainer/features", &["bary"]) {
        let b = s.input_sv(SysValue::Barycentrics).expect("SV_Barycentrics");
        assert_eq!((b.register, b.mask), (NO_REGISTER, 0b111), "{name}");
        let lanes: Vec<Lane> = vec![vec![("SV_Barycentrics", 0, fs(&[0.25, 0.5, 0.25]))]];
        let r = run(s, Vec::new(), &lanes, 0, None);
        assert_eq!(r.outf(0, "SV_Target", 0), [0.25, 0.5, 0.25, 1.0], "{name}");
    }
}

/// viewid.hlsl, innercov.hlsl, shadingrate.hlsl: each returns its system value as
/// float4; `SV_ViewID` and `SV_InnerCoverage` are not in the signature (DXIL.rst
/// `NotInSig`) and get an element of their own when the program reads them.
#[test]
fn system_value_inputs() {
    for (file, sem) in [
        ("viewid", "SV_ViewID"),
        ("innercov", "SV_InnerCoverage"),
        ("shadingrate", "SV_ShadingRate"),
    ] {
        for (name, s) in &files("dxcontainer/features", &[file]) {
            let lanes: Vec<Lane> = vec![vec![(sem, 0, vec![0])], vec![(sem, 0, vec![3])]];
            let r = run(s, Vec::new(), &lanes, 0, None);
            assert_eq!(r.outf(0, "SV_Target", 0), [0.0; 4], "{name}");
            assert_eq!(r.outf(1, "SV_Target", 0), [3.0; 4], "{name}");
            if sem != "SV_ShadingRate" {
                let (e, _) = element(&s.inputs, sem, 0).unwrap();
                assert_eq!(e.register, NO_REGISTER, "{name}");
            }
        }
    }
}

/// stencil.hlsl: SV_StencilRef = 3, an output the signature does not pack.
#[test]
fn stencil_ref_output() {
    for (name, s) in &files("dxcontainer/features", &["stencil"]) {
        let e = s.output_sv(SysValue::StencilRef).expect("SV_StencilRef");
        assert_eq!(e.register, NO_REGISTER, "{name}");
        let r = run(s, Vec::new(), &[vec![]], 0, None);
        assert_eq!(r.out(0, "SV_StencilRef", 0), [3], "{name}");
    }
}

/// minprec.hlsl (`min16float4`) and lowp.hlsl (`float16_t4`): `a * a` in 16-bit floats.
/// Input words are f32, narrowed to half to nearest even: 1 + 3·2^-12 becomes 1 + 2^-10,
/// whose square 1 + 2^-9 + 2^-20 rounds to the half 1 + 2^-9; 1 + 2^-11, half-way
/// between 1 and 1 + 2^-10, rounds to the even 1; 1.5 and −2 square exactly. Outputs
/// widen exactly.
#[test]
fn sixteen_bit_signatures() {
    let a = [1.0 + 3.0 / 4096.0, 1.0 + 1.0 / 2048.0, 1.5f32, -2.0];
    let want = [1.0 + 1.0 / 512.0, 1.0, 2.25f32, 4.0];
    for (name, s) in &files("dxcontainer/features", &["minprec", "lowp"]) {
        let r = run(s, Vec::new(), &[vec![("A", 0, fs(&a))]], 0, None);
        assert_eq!(r.outf(0, "SV_Target", 0), want, "{name}");
    }
}

// ---- pixel programs' arithmetic and control flow (SV_Target from constants) ---------------

/// Runs a pixel program with constant buffer b0 = `cb` and TEXCOORD0 = `t` in one lane;
/// returns its render-target outputs SV_Target0, SV_Target1, ….
/// The SV_Target words of pixel program `s` with constant buffer `cb` and TEXCOORD0 `t`
/// (when it reads one), run one wave at a time — and drawn: the same program in a whole
/// draw (`drawn`) must give every pixel the same words, so each family these tests hold
/// to hand-derived values runs through the pipeline too.
fn targets(s: &Shader, cb: &[u32], t: [f32; 2]) -> Vec<Vec<u32>> {
    let reads_t = element(&s.inputs, "TEXCOORD", 0).is_some();
    let lane: Lane = if reads_t {
        vec![("TEXCOORD", 0, fs(&t))]
    } else {
        vec![]
    };
    let r = run(
        s,
        bind(s, vec![("b0", cbuffer(cb))]),
        std::slice::from_ref(&lane),
        0,
        None,
    );
    let out: Vec<Vec<u32>> = (0..8)
        .filter(|i| element(&s.outputs, "SV_Target", *i).is_some())
        .map(|i| r.out(0, "SV_Target", i))
        .collect();
    let d = drawn(s, bind(s, vec![("b0", cbuffer(cb))]), &lane);
    assert_eq!(d, out, "drawn, against one wave run alone\n{s}");
    out
}

/// Pixel program `s` in a whole draw (`pipeline::draw`): a full-screen triangle into
/// 4×4 R32G32B32A32 targets of its outputs' types, fed by a vertex program (IR) that
/// writes `inputs` — the same at every vertex, which interpolation gives back exactly —
/// and zeros for the other inputs; `ranges` bound to the pixel program. Returns each
/// SV_Target's words as [`Ran::out`] gives them, after checking that every pixel of the
/// target holds the same.
fn drawn(s: &Shader, ranges: Vec<Vec<Descriptor>>, inputs: &Lane) -> Vec<Vec<u32>> {
    use dxlane::ir::ComponentType;
    use dxlane::pipeline::{Bindings, CullMode, DrawArgs, DrawState, RenderTargetView, draw};
    let elements: Vec<&IoElement> = s
        .inputs
        .iter()
        .filter(|e| e.register != NO_REGISTER && !e.sv.made_by_rasterizer())
        .collect();
    let pos = elements
        .iter()
        .map(|e| e.register + e.rows)
        .max()
        .unwrap_or(0);
    // r0..r5: the full-screen triangle's constants; then one constant per input word.
    let mut consts: Vec<u32> = vec![1, 2, f(4.0), f(1.0), 0, f(2.0)];
    let mut writes = Vec::new();
    let mut decls = String::new();
    for e in &elements {
        decls += &crate::draw::output_matching(e);
        let first = e.mask.trailing_zeros();
        for row in 0..e.rows {
            let given = inputs.iter().find(|(n, i, _)| {
                n.eq_ignore_ascii_case(&e.semantic) && *i == e.semantic_index + row
            });
            for c in 0..4 {
                if e.mask & (1 << c) == 0 {
                    continue;
                }
                let v = given
                    .and_then(|(_, _, vals)| vals.get((c - first) as usize).copied())
                    .unwrap_or(0);
                consts.push(v);
                writes.push((4 * (e.register + row) + c, consts.len() - 1));
            }
        }
    }
    let t = consts.len();
    let mut vs = format!("shader vertex\nregs {}\n", t + 3);
    for (i, k) in consts.iter().enumerate() {
        vs += &format!("const r{i} = {k:#x}\n");
    }
    vs += &format!(
        "io_words in 4 out {}\ninput \"SV_VertexID\" 0 sv vertex_id reg 0 rows 1 mask x uint interp undefined slot 0\noutput \"SV_Position\" 0 sv position reg {pos} rows 1 mask xyzw float interp undefined slot {}\n{decls}block0:\n",
        4 * (pos + 1),
        4 * pos
    );
    let (id, x, y) = (t, t + 1, t + 2);
    vs += &format!(
        "    input r{id}, 0\n    and r{x}, r{id}, r0\n    utof r{x}, r{x}\n    fmul r{x}, r{x}, r2\n    fsub r{x}, r{x}, r3\n    and r{y}, r{id}, r1\n    utof r{y}, r{y}\n    fmul r{y}, r{y}, r5\n    fsub r{y}, r3, r{y}\n"
    );
    let p = 4 * pos;
    vs += &format!(
        "    output {p}, r{x}\n    output {}, r{y}\n    output {}, r4\n    output {}, r3\n",
        p + 1,
        p + 2,
        p + 3
    );
    for (word, k) in &writes {
        vs += &format!("    output {word}, r{k}\n");
    }
    vs += "    return\n";
    let vs = dxlane::ir::parse_shader(&vs).unwrap_or_else(|e| panic!("{e:?}\n{vs}"));
    let vsb = Bindings::default();
    let psb = Bindings {
        ranges,
        ..Bindings::default()
    };
    let mut st = DrawState::new(&vs, Some(s), &vsb, &psb);
    st.rasterizer.cull_mode = CullMode::None;
    let targets: Vec<Option<(u32, &IoElement)>> = (0..8)
        .map(|i| element(&s.outputs, "SV_Target", i).map(|(e, _)| (i, e)))
        .collect();
    st.render_targets = targets
        .iter()
        .map(|t| {
            t.map(|(_, e)| {
                let format = match e.component {
                    ComponentType::UInt => Format::R32G32B32A32_UINT,
                    ComponentType::SInt => Format::R32G32B32A32_SINT,
                    _ => Format::R32G32B32A32_FLOAT,
                };
                RenderTargetView {
                    texture: Texture::new(TextureDesc::tex2d(format, 4, 4)).unwrap(),
                }
            })
        })
        .collect();
    let args = DrawArgs {
        vertex_count: 3,
        ..DrawArgs::default()
    };
    draw(&st, &args, &crate::common::draw_options()).unwrap_or_else(|e| panic!("{e}\n{s}"));
    let mut out = Vec::new();
    for (t, rt) in targets.iter().zip(&st.render_targets) {
        let (Some((_, e)), Some(rt)) = (t, rt) else {
            continue;
        };
        let bytes = rt.texture.to_bytes();
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
            .collect();
        for px in words.chunks_exact(4) {
            assert_eq!(px, &words[..4], "every pixel alike\n{s}");
        }
        let first = e.mask.trailing_zeros() as usize;
        out.push(words[first..first + e.mask.count_ones() as usize].to_vec());
    }
    out
}

/// half_ops.hlsl's stated result: x + y of the halves 1.0009765625 and 1.0 rounds to
/// even (2.0); the product is 1.0009765625; 1 − 2 in uint16_t wraps to 65535; the half
/// of 1/3 is 0.333251953125 (WARP: 16-bit math in fp32 rounded to nearest even).
#[test]
fn half_ops() {
    let cb = [f(1.0 + 1.0 / 1024.0), f(1.0)];
    let all = files("dxil-reader", &["half_ops", "half_ops.od"]);
    for (name, s) in &all {
        let out = targets(s, &cb, [0.0; 2]);
        assert_eq!(
            out[0],
            fs(&[2.0, 1.0 + 1.0 / 1024.0, 65535.0, 1365.0 / 4096.0]),
            "{name}"
        );
    }
    assert!(common::corpora().is_empty() || all.len() == 2);
}

/// bits.hlsl with f = (7.5, 2, 1.5, 0), u = (0xf0f0, 7, 0x801000, 3), i = (−17, 5,
/// −64, 3).
#[test]
fn bits() {
    let fv = [7.5f32, 2.0, 1.5, 0.0];
    let u = [0xf0f0u32, 7, 0x0080_1000, 3];
    let i = [-17i32, 5, -64, 3];
    let mut cb: Vec<u32> = fs(&fv);
    cb.extend(u);
    cb.extend(i.map(|x| x as u32));
    let a = vec![
        u[0].count_ones(),
        u[1].trailing_zeros(),
        31 - u[2].leading_zeros(),
        u[3].reverse_bits(),
    ];
    let b = vec![
        u[0] / u[1],
        u[0] % u[1],
        (i[0] / i[1]) as u32,
        (i[0] % i[1]) as u32,
    ];
    let c = fs(&[fv[0] / fv[1], fv[1], fv[0], 1.0]);
    let dz = 7u32
        .wrapping_add((i[2] >> (i[3] & 31)) as u32)
        .wrapping_add(u[2] << (u[3] & 31))
        .wrapping_add(u[0].wrapping_mul(u[1]).wrapping_add(u[2]));
    let d = vec![u[0].wrapping_mul(u[1]), u[2].wrapping_mul(u[3]), dz, 2];
    let all = builds("dxil-reader", "bits");
    for (name, s) in &all {
        let out = targets(s, &cb, [0.0; 2]);
        assert_eq!(
            out,
            vec![a.clone(), b.clone(), c.clone(), d.clone()],
            "{name}"
        );
    }
    assert!(common::corpora().is_empty() || all.len() == 3);
}

/// loops.hlsl with a = (2, 10, 0, 100), n = (6, 2, 3, 20), t = (0.5, 1): every value is
/// exact in float, so the loops' results are the HLSL's, worked here in Rust.
#[test]
fn loops() {
    let a = [2.0f32, 10.0, 0.0, 100.0];
    let n = [6i32, 2, 3, 20];
    let t = [0.5f32, 1.0];
    let (mut sum, mut count) = (0.0f32, 0u32);
    for i in 0..n[0] {
        if i == n[1] {
            continue;
        }
        if sum > a[3] {
            break;
        }
        sum += a[0] * i as f32 + t[0];
        count += 1;
    }
    let mut inner = 0u32;
    'outer: for j in 0..n[2] {
        for m in 0..4 {
            inner += (j * 4 + m) as u32;
            if inner > n[3] as u32 {
                break;
            }
        }
        if inner > 1000 {
            break 'outer;
        }
    }
    let (mut v, mut guard) = (t[1], 0u32);
    while v < a[1] && guard < 16 {
        v = v * 1.5 + 0.25;
        guard += 1;
    }
    let mut cb: Vec<u32> = fs(&a);
    cb.extend(n.map(|x| x as u32));
    let all = builds("dxil-reader", "loops");
    for (name, s) in &all {
        let out = targets(s, &cb, t);
        assert_eq!(out[0], fs(&[sum, v, 0.0, 1.0]), "{name}");
        assert_eq!(out[1], [count, inner, guard, 0], "{name}");
    }
    assert!(common::corpora().is_empty() || all.len() == 3);
}

/// switch.hlsl: each case of the first switch, and the loop's switch with `continue`.
#[test]
fn switches() {
    let a = [3.0f32, 4.0, 5.0, 0.0];
    let t = [0.5f32, 2.0];
    let all = builds("dxil-reader", "switch");
    for (sel, x) in [
        (0, a[0]),
        (1, a[1] + t[0]),
        (2, a[1] + t[0]),
        (5, a[2] * t[1]),
        (9, -1.0),
    ] {
        let iters = 7;
        let acc: u32 = (0..iters)
            .map(|i| match i & 3 {
                0 => 6,
                1 => 10,
                2 => 105,
                _ => 1005,
            })
            .sum();
        let mut cb: Vec<u32> = fs(&a);
        cb.extend([sel as u32, iters as u32, 0, 0]);
        for (name, s) in &all {
            let out = targets(s, &cb, t);
            assert_eq!(out[0], fs(&[x, 0.0, 0.0, 1.0]), "{name} n.x = {sel}");
            assert_eq!(out[1], [acc, 0, 0, 0], "{name} n.x = {sel}");
        }
    }
    assert!(common::corpora().is_empty() || all.len() == 3);
}

/// flow.hlsl: short-circuit tests both ways, the early return, the nested if.
#[test]
fn flow() {
    let a = [1.0f32, 2.0, 3.0, 4.0];
    let cases: Vec<([i32; 4], [f32; 2])> = vec![
        ([5, 9, 0, 1], [1.5, 1.0]),
        ([1, 9, 0, 1], [0.5, 0.25]),
        ([1, 1, 7, 0], [1.5, 3.0]),
        ([4, 2, 0, 0], [2.0, 1.0]),
    ];
    let all = builds("dxil-reader", "flow");
    for (n, t) in cases {
        let mut x = [0.0f32, 0.0, 0.0, 1.0];
        let mut k = [0u32; 4];
        x[0] = if t[0] > a[0] && t[1] < a[1] {
            a[2] * t[0]
        } else {
            a[3] - t[1]
        };
        k[0] = if n[0] > 3 || n[1] < 2 { 5 } else { 9 };
        if n[2] == 7 {
            x[1] = 1.0;
        } else {
            k[1] = if n[3] > 0 {
                if t[1] > 0.5 { 11 } else { 13 }
            } else {
                17
            };
            x[2] = if n[0] > n[1] { a[0] } else { a[1] };
        }
        let mut cb: Vec<u32> = fs(&a);
        cb.extend(n.map(|v| v as u32));
        for (name, s) in &all {
            let out = targets(s, &cb, t);
            assert_eq!(out[0], fs(&x), "{name} n = {n:?}");
            assert_eq!(out[1], k, "{name} n = {n:?}");
        }
    }
    assert!(common::corpora().is_empty() || all.len() == 3);
}

/// arrays.hlsl: a local array indexed by a computed value, the `static const` table
/// (a constant array), a dynamically indexed constant-buffer array.
#[test]
fn arrays() {
    let a = [1.0f32, 2.0, 3.0, 4.0];
    let n = [1i32, 6, 2, 4];
    let table: Vec<[f32; 4]> = (0..6)
        .map(|r| [10.0 * r as f32, 10.0 * r as f32 + 1.0, 0.0, 0.0])
        .collect();
    let weights = [0.1f32, 0.2, 0.4, 0.2, 0.1];
    let mut sum = 0.0f32;
    for (i, w) in weights.iter().enumerate().take(4) {
        sum += w * a[((i as i32 + n[0]) & 3) as usize];
    }
    let want = fs(&[
        sum,
        weights[(n[1] & 3) as usize],
        table[n[2] as usize][0],
        table[((n[3] + 1) % 6) as usize][1],
    ]);
    let mut cb: Vec<u32> = fs(&a);
    cb.extend(n.map(|v| v as u32));
    for row in &table {
        cb.extend(fs(row));
    }
    let all = builds("dxil-reader", "arrays");
    for (name, s) in &all {
        let out = targets(s, &cb, [0.0; 2]);
        assert_eq!(out[0], want, "{name}");
        assert_eq!(out[1], [0; 4], "{name}");
    }
    assert!(common::corpora().is_empty() || all.len() == 3);
}

/// The pixel programs' stage header: pixel stage, no thread group, and no
/// `[earlydepthstencil]` in any corpus program (its flag is tested in the lowering's
/// unit tests).
#[test]
fn pixel_headers() {
    let all = files("dxil-reader", &["draw_colour", "pixel_ops", "blend"]);
    for (name, s) in &all {
        assert_eq!(s.stage, Stage::Pixel, "{name}");
        assert_eq!(s.thread_group, [0, 0, 0], "{name}");
        assert!(!s.early_depth_stencil, "{name}");
    }
}

/// hints.hlsl with texel i of `t` = (i, 1, 0, 0.5): r = Σ_{i<k} t[i], doubled where
/// SV_Position.x > 1, plus 3 where .y > 1, plus 0 + 1 from the unrolled loop.
#[test]
fn hinted_loops_and_branches() {
    let cases: [(u32, [f32; 2], [f32; 4]); 4] = [
        (3, [0.5, 0.5], [4.0, 4.0, 1.0, 2.5]),
        (2, [1.5, 0.5], [3.0, 5.0, 1.0, 3.0]),
        (0, [0.5, 1.5], [4.0; 4]),
        (4, [1.5, 1.5], [16.0, 12.0, 4.0, 8.0]),
    ];
    let lanes: Vec<Lane> = cases
        .iter()
        .map(|(k, p, _)| {
            vec![
                ("SV_Position", 0, fs(&[p[0], p[1], 0.0, 1.0])),
                ("K", 0, vec![*k]),
            ]
        })
        .collect();
    for (name, s) in &files("dxil-reader", &["hints.ps"]) {
        let t = texture(8, 1, |x, _| [x as f32, 1.0, 0.0, 0.5]);
        let r = run(s, bind(s, vec![("t0", t)]), &lanes, 0, None);
        for (l, (_, _, want)) in cases.iter().enumerate() {
            assert_eq!(r.outf(l, "SV_Target", 0), want, "{name} lane {l}");
        }
    }
}

/// ops.hlsl with a = (1.75, 3, 8, 4), n = (−7, 5, 0, 0): frac(2) = 0, exp2(3) = 8,
/// log2(8) = 3, rsqrt(4) = 0.5; round(1.75) = 2, floor(−1.75) = −2, ceil(1.75) = 2,
/// trunc(−1.75) = −1; −7 / 2 = −3, −7 % 3 = −1 (truncating), 5 << 3 = 40, −7 >> 1 = −4
/// (arithmetic); where TEXCOORD0.x > .y, x.w = max(−7, 5) + min(5, 3) = 8.
#[test]
fn integer_and_rounding_ops() {
    let mut cb = fs(&[1.75, 3.0, 8.0, 4.0]);
    cb.extend([(-7i32) as u32, 5, 0, 0]);
    let lanes: Vec<Lane> = vec![
        vec![("TEXCOORD", 0, fs(&[1.0, 0.0]))],
        vec![("TEXCOORD", 0, fs(&[0.0, 1.0]))],
    ];
    for (name, s) in &files("dxil-reader", &["ops"]) {
        let r = run(s, bind(s, vec![("b0", cbuffer(&cb))]), &lanes, 0, None);
        // Drawn with lane 0's inputs: the same words.
        let d = drawn(s, bind(s, vec![("b0", cbuffer(&cb))]), &lanes[0]);
        let want: Vec<Vec<u32>> = (0..3).map(|i| r.out(0, "SV_Target", i)).collect();
        assert_eq!(d, want, "{name} drawn");
        for (l, w) in [8.0f32, 0.5].into_iter().enumerate() {
            assert_eq!(r.outf(l, "SV_Target", 0), [0.0, 8.0, 3.0, w], "{name}");
            assert_eq!(r.outf(l, "SV_Target", 1), [2.0, -2.0, 2.0, -1.0], "{name}");
            assert_eq!(
                r.out(l, "SV_Target", 2),
                [(-3i32) as u32, (-1i32) as u32, 40, (-4i32) as u32],
                "{name}"
            );
        }
    }
}

/// resources.hlsl with n = (1, 2, 3, 0): SV_Target0 = sb[1] + typed[2] + image[3, 0] =
/// (1, 10, 100, 0) + (1, 0, 0, 1) + (0, 0, 0, 3); SV_Target1 = raw words 4…7; each
/// pixel then stores SV_Target0 into image[SV_Position.xy] — except the helper lane 3,
/// whose texel (1, 1) keeps (0, 0, 0, 5).
#[test]
fn pixel_buffers_and_a_uav_texture() {
    let mk = |words: Vec<u32>, kind: BufferKind| Descriptor::Buffer {
        view: BufferView::whole(Memory::from_bytes(&bytes_of(&words)).unwrap(), kind),
        counter: None,
    };
    let sb: Vec<u32> = (0..4)
        .flat_map(|k| fs(&[k as f32, 10.0 * k as f32, 100.0 * k as f32, 0.0]))
        .collect();
    let typed: Vec<u32> = (0..4)
        .flat_map(|k| fs(&[0.5 * k as f32, 0.0, 0.0, 1.0]))
        .collect();
    let raw: Vec<u32> = (0..16).collect();
    let lanes: Vec<Lane> = (0..4)
        .map(|l| {
            vec![(
                "SV_Position",
                0,
                fs(&[(l & 1) as f32 + 0.5, (l >> 1) as f32 + 0.5, 0.0, 1.0]),
            )]
        })
        .collect();
    let all = builds("dxil-reader", "resources");
    for (name, s) in &all {
        let image = Texture::from_bytes(
            TextureDesc::tex2d(Format::R32G32B32A32_FLOAT, 4, 4),
            &bytes_of(
                &(0..16)
                    .flat_map(|i| fs(&[0.0, 0.0, 0.0, i as f32]))
                    .collect::<Vec<_>>(),
            ),
        )
        .unwrap();
        let ranges = bind(
            s,
            vec![
                ("t0", mk(sb.clone(), BufferKind::Structured { stride: 16 })),
                ("t1", mk(raw.clone(), BufferKind::Raw)),
                (
                    "t2",
                    mk(
                        typed.clone(),
                        BufferKind::Typed {
                            format: Format::R32G32B32A32_FLOAT,
                        },
                    ),
                ),
                ("u0", Descriptor::Texture(TextureView::whole(image.clone()))),
                ("b0", cbuffer(&[1, 2, 3, 0])),
            ],
        );
        let r = run(s, ranges, &lanes, 0b1000, None);
        let x = [2.0f32, 10.0, 100.0, 4.0];
        for l in 0..3 {
            assert_eq!(r.outf(l, "SV_Target", 0), x, "{name} lane {l}");
            assert_eq!(r.out(l, "SV_Target", 1), [4, 5, 6, 7], "{name} lane {l}");
        }
        let texel = |x: usize, y: usize| -> Vec<f32> {
            let b = image.to_bytes();
            let at = (y * 4 + x) * 16;
            (0..4)
                .map(|c| f32::from_le_bytes(b[at + 4 * c..at + 4 * c + 4].try_into().unwrap()))
                .collect()
        };
        for (px, py) in [(0, 0), (1, 0), (0, 1)] {
            assert_eq!(texel(px, py), x, "{name} texel ({px}, {py})");
        }
        assert_eq!(
            texel(1, 1),
            [0.0, 0.0, 0.0, 5.0],
            "{name}: a helper lane writes nothing"
        );
        assert_eq!(texel(3, 0), [0.0, 0.0, 0.0, 3.0], "{name}");
    }
    assert!(common::corpora().is_empty() || all.len() == 3);
}

/// extras.hlsl from a quad whose lane 3 is a helper lane: each of the three visible
/// pixels adds 1 to `coherent[0]` and to the 64-bit word of `atomic64`, takes a slot of
/// `counted` by its counter and writes k.x there, and stores into the rasterizer-ordered
/// texture at its pixel; the helper lane changes no memory (HLSL SM 6.6 "IsHelperLane").
/// With every texture 0, sb[1] = (1, 2) and a comparison sampler that always passes, the
/// stored (and returned) value is (2 + old, 3 + old, 2 + old, 3 + old), old being the
/// 64-bit add's previous value — 0, 1 and 2 in some order (the order of atomics between
/// pixels is the program's own race, so only the set is checked).
#[test]
fn pixel_atomics_and_counters_skip_helper_lanes() {
    for (name, s) in &files("dxil-reader", &["extras.ps"]) {
        let buf = |words: usize, kind: BufferKind, counter: Option<Counter>| {
            let m = Memory::from_bytes(&vec![0; 4 * words]).unwrap();
            let d = Descriptor::Buffer {
                view: BufferView::whole(m.clone(), kind),
                counter,
            };
            (m, d)
        };
        let read = |m: &Memory| -> Vec<u32> {
            m.to_bytes()
                .chunks(4)
                .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                .collect()
        };
        let ms = {
            let desc = TextureDesc {
                dim: TextureDim::Tex2DMS,
                samples: 4,
                ..TextureDesc::tex2d(Format::R32G32B32A32_FLOAT, 2, 2)
            };
            Descriptor::Texture(TextureView::whole(
                Texture::from_bytes(desc, &[0; 256]).unwrap(),
            ))
        };
        let sb = Descriptor::Buffer {
            view: BufferView::whole(
                Memory::from_bytes(&bytes_of(&[0, 0, 1, 2])).unwrap(),
                BufferKind::Structured { stride: 8 },
            ),
            counter: None,
        };
        let (coherent, coherent_d) = buf(
            1,
            BufferKind::Typed {
                format: Format::R32_UINT,
            },
            None,
        );
        let rov = Texture::from_bytes(
            TextureDesc::tex2d(Format::R32G32B32A32_FLOAT, 2, 2),
            &[0; 64],
        )
        .unwrap();
        let (atomic64, atomic64_d) = buf(2, BufferKind::Raw, None);
        let counter = Counter::new(0);
        let (counted, counted_d) = buf(
            4,
            BufferKind::Structured { stride: 4 },
            Some(counter.clone()),
        );
        let always = Descriptor::Sampler(SamplerDesc {
            filter: Filter {
                reduction: Reduction::Comparison,
                ..Filter::POINT
            },
            comparison: ComparisonFunc::Always,
            ..SamplerDesc::default()
        });
        let ranges = bind(
            s,
            vec![
                ("t0", ms),
                ("t1", texture(2, 2, |_, _| [0.0; 4])),
                ("t2", sb),
                ("u0", coherent_d),
                ("u1", Descriptor::Texture(TextureView::whole(rov.clone()))),
                ("u2", atomic64_d),
                ("u3", counted_d),
                ("b0", cbuffer(&fs(&[6.5, 0.0, 0.0, 0.0]))),
                ("s0", point(AddressMode::Clamp)),
                ("s1", always),
            ],
        );
        let lanes: Vec<Lane> = (0..4)
            .map(|l| {
                vec![(
                    "SV_Position",
                    0,
                    fs(&[(l & 1) as f32 + 0.5, (l >> 1) as f32 + 0.5, 0.0, 1.0]),
                )]
            })
            .collect();
        let r = run(s, ranges, &lanes, 0b1000, None);
        assert_eq!(read(&coherent), [3], "{name}");
        assert_eq!(read(&atomic64), [3, 0], "{name}");
        assert_eq!(counter.get(), 3, "{name}");
        assert_eq!(read(&counted), fs(&[6.5, 6.5, 6.5, 0.0]), "{name}");
        let mut olds: Vec<u32> = (0..3)
            .map(|l| {
                let v = r.outf(l, "SV_Target", 0);
                let old = v[0] - 2.0;
                assert_eq!(v, [2.0 + old, 3.0 + old, 2.0 + old, 3.0 + old], "{name}");
                old as u32
            })
            .collect();
        olds.sort();
        assert_eq!(olds, [0, 1, 2], "{name}");
        let texels = rov.to_bytes();
        assert!(
            texels[48..].iter().all(|b| *b == 0),
            "{name}: the helper's texel"
        );
    }
}

/// A texture of one colour: every sample, gather, LOD and filter gives it exactly.
fn flat(dim: TextureDim, format: Format, texel: &[f32]) -> Descriptor {
    let desc = TextureDesc {
        dim,
        ..TextureDesc::tex2d(format, 4, 4)
    };
    let words: Vec<u32> = (0..16).flat_map(|_| fs(texel)).collect();
    Descriptor::Texture(TextureView::whole(
        Texture::from_bytes(desc, &bytes_of(&words)).unwrap(),
    ))
}

/// sampling.hlsl over a quad, every texture of one colour (one mip) so that each
/// operation's result is known whatever the quad's derivatives: A = (1, 2, 3, 4) from
/// the implicit-LOD `Sample` and, red channel, `Gather`; B = 10·A from `SampleLevel`,
/// C = 100·A from `SampleBias` of the array, E = 1000·A from `SampleGrad` of arr[1]
/// (with `ddx`/`ddy` of uv), F = 0.5 from `Load`, typed[i] = (i, 0, 0, 0), raw words
/// 4i … 4i + 3; the comparison sampler always passes, so `SampleCmp`,
/// `SampleCmpLevelZero` and `GatherCmp` add 1 each; `CalculateLevelOfDetail` of a
/// one-mip texture is 0. For i = 1 that is (1120.5, 2231.5, 3343.5, 4455.5).
#[test]
fn implicit_lod_sampling_in_a_quad() {
    let a = [1.0f32, 2.0, 3.0, 4.0];
    let scaled = |k: f32| a.map(|x| x * k);
    let always = Descriptor::Sampler(SamplerDesc {
        filter: Filter {
            reduction: Reduction::Comparison,
            ..Filter::POINT
        },
        comparison: ComparisonFunc::Always,
        ..SamplerDesc::default()
    });
    let rgba = Format::R32G32B32A32_FLOAT;
    let is = [1u32, 2, 0, 3];
    let lanes: Vec<Lane> = (0..4)
        .map(|l| {
            vec![
                (
                    "SV_Position",
                    0,
                    fs(&[(l & 1) as f32 + 0.5, (l >> 1) as f32 + 0.5, 0.0, 1.0]),
                ),
                (
                    "TEXCOORD",
                    0,
                    fs(&[0.25 * (l & 1) as f32, 0.25 * (l >> 1) as f32]),
                ),
                ("INDEX", 0, vec![is[l]]),
            ]
        })
        .collect();
    let all = files("dxil-reader", &["sampling", "sampling.66"]);
    for (name, s) in &all {
        let typed: Vec<u32> = (0..4)
            .flat_map(|i| fs(&[i as f32, 0.0, 0.0, 0.0]))
            .collect();
        let mut ranges = bind(
            s,
            vec![
                ("s1", point(AddressMode::Clamp)),
                ("s2, space1", point(AddressMode::Wrap)),
                ("s4", always.clone()),
                ("t3", flat(TextureDim::Tex2D, rgba, &a)),
                ("t4, space2", flat(TextureDim::Tex2D, rgba, &scaled(10.0))),
                ("t5", flat(TextureDim::Tex2DArray, rgba, &scaled(100.0))),
                ("t6", flat(TextureDim::Tex2D, Format::R32_FLOAT, &[0.25])),
                ("t8..t10", flat(TextureDim::Tex2D, rgba, &[0.0; 4])),
                ("t20", flat(TextureDim::Tex2D, rgba, &[0.5; 4])),
                (
                    "t21",
                    Descriptor::Buffer {
                        view: BufferView::whole(
                            Memory::from_bytes(&bytes_of(&typed)).unwrap(),
                            BufferKind::Typed { format: rgba },
                        ),
                        counter: None,
                    },
                ),
                (
                    "t22",
                    Descriptor::Buffer {
                        view: BufferView::whole(
                            Memory::from_bytes(&bytes_of(&(0..16).collect::<Vec<u32>>())).unwrap(),
                            BufferKind::Raw,
                        ),
                        counter: None,
                    },
                ),
            ],
        );
        // arr[1] of t8..t10 is E; arr[0] and arr[2] stay black.
        let arr = s
            .resources
            .iter()
            .position(|r| r.binding_name() == "t8..t10")
            .unwrap();
        ranges[arr] = vec![
            flat(TextureDim::Tex2D, rgba, &[0.0; 4]),
            flat(TextureDim::Tex2D, rgba, &scaled(1000.0)),
            flat(TextureDim::Tex2D, rgba, &[0.0; 4]),
        ];
        let r = run(s, ranges, &lanes, 0, None);
        for (l, i) in is.iter().enumerate() {
            let i = *i as f32;
            let want: Vec<f32> = (0..4)
                .map(|c| {
                    let k = c as f32;
                    1111.0 * a[c] + 3.0 + 1.0 + 0.5 + if c == 0 { i } else { 0.0 } + 4.0 * i + k
                })
                .collect();
            assert_eq!(r.outf(l, "SV_Target", 0), want, "{name} lane {l}");
        }
    }
    assert!(common::corpora().is_empty() || all.len() == 2);
}
