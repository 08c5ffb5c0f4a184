//! Rasterizer states through whole draw jobs, each with the pixels worked out by hand:
//! wireframe fill (D3D12 `D3D12_FILL_MODE_WIREFRAME`: the triangle's edges drawn by the
//! line rules of D3D11.3 §3.4.3, culling by the triangle's facing), and conservative
//! rasterization tier 1 (DirectX-Specs "Conservative Rasterization": a pixel the
//! triangle overlaps at all is covered, every sample of it), and the states the pipeline
//! refuses.

use std::collections::BTreeMap;

use dxlane::job::{self, DrawResult, Job, RunOptions};
use dxlane::resources::Texture;

use super::common;

/// A vertex program passing `POSITION` through as `SV_Position`.
pub(crate) const VS_POS: &str = r#"shader vertex
regs 1
io_words in 4 out 4
input "POSITION" 0 sv none reg 0 rows 1 mask xyzw float interp undefined slot 0
output "SV_Position" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    input r0, 0
    output 0, r0
    input r0, 1
    output 1, r0
    input r0, 2
    output 2, r0
    input r0, 3
    output 3, r0
    return
"#;

/// A pixel program writing 1.0 to every channel: with additive blending into an
/// `R32_FLOAT` target, each pixel counts how often it was drawn.
pub(crate) const PS_ONE: &str = r#"shader pixel
regs 1
const r0 = 0x3f800000
io_words in 0 out 4
output "SV_Target" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    output 0, r0
    output 1, r0
    output 2, r0
    output 3, r0
    return
"#;

/// A pixel program writing `SV_IsFrontFace` into an integer target.
const PS_FACE: &str = r#"shader pixel
regs 1
io_words in 4 out 4
input "SV_IsFrontFace" 0 sv is_front_face reg 0 rows 1 mask x uint interp constant slot 0
output "SV_Target" 0 sv target reg 0 rows 1 mask xyzw uint interp undefined slot 0
block0:
    input r0, 0
    output 0, r0
    output 1, r0
    output 2, r0
    output 3, r0
    return
"#;

/// The target size of every test here.
pub(crate) const SIZE: u32 = 16;

/// Runs a job of `VS_POS`, `ps` and `rest` in a fresh folder.
pub(crate) fn run(name: &str, ps: &str, rest: &str) -> Result<DrawResult, String> {
    let dir = common::scratch().join("raster_states").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("vs.ir"), VS_POS).unwrap();
    std::fs::write(dir.join("ps.ir"), ps).unwrap();
    let text = format!("[program]\nvs = \"vs.ir\"\nps = \"ps.ir\"\n{rest}");
    let job = Job::from_text(&text, &dir.join("job.toml")).map_err(|e| e.to_string())?;
    job::run_draw_job(
        job,
        &RunOptions {
            threads: Some(2),
            ..crate::common::run_options()
        },
    )
    .map_err(|e| e.to_string())
}

/// Clip-space position of the pixel-space point `(x, y)` on the `SIZE` × `SIZE` target
/// (exact in f32 for the halves and tenths used here up to the viewport transform's
/// rounding, which the snap to 1/256 absorbs).
pub(crate) fn at(x: f32, y: f32) -> [f32; 4] {
    let s = SIZE as f32;
    [x / s * 2.0 - 1.0, 1.0 - y / s * 2.0, 0.5, 1.0]
}

/// `[draw]` drawing the triangles `v` (three points each, pixel space), with `extra`
/// keys and `tables` after the vertex buffer.
pub(crate) fn draw(v: &[[f32; 2]], extra: &str, tables: &str) -> String {
    let f: Vec<String> = v
        .iter()
        .flat_map(|p| at(p[0], p[1]))
        .map(|x| format!("{x:?}"))
        .collect();
    format!(
        "[draw]\nvertex_count = {}\n{extra}\n[[draw.vertex_buffer]]\nslot = 0\nstride = 16\ndata = {{ f32 = [{}] }}\n[[draw.input_element]]\nsemantic = \"POSITION\"\nformat = \"R32G32B32A32_FLOAT\"\n{tables}",
        v.len(),
        f.join(", ")
    )
}

/// An `R32_FLOAT` target cleared to 0 with additive blending, `samples` per pixel.
pub(crate) fn counting_target(samples: u32) -> String {
    format!(
        "[[draw.render_target]]\nformat = \"R32_FLOAT\"\nwidth = {SIZE}\nheight = {SIZE}\nsamples = {samples}\nclear = [0, 0, 0, 0]\n[[draw.blend]]\nenable = true\nsrc = \"ONE\"\ndest = \"ONE\"\nop = \"ADD\"\nsrc_alpha = \"ONE\"\ndest_alpha = \"ONE\"\nop_alpha = \"ADD\"\n"
    )
}

pub(crate) fn word(t: &Texture, x: u32, y: u32, s: u32) -> u32 {
    let a = t.texel_addr(0, 0, [x, y, 0], s).unwrap();
    let mut b = [0u8; 4];
    assert!(t.memory().read_bytes(a, &mut b));
    u32::from_le_bytes(b)
}

/// Every pixel of sample `s` whose `R32_FLOAT` count is not 0, with the count.
pub(crate) fn counts(r: &DrawResult, s: u32) -> BTreeMap<(u32, u32), u32> {
    let t = &r.targets[0].view.texture;
    let mut m = BTreeMap::new();
    for y in 0..SIZE {
        for x in 0..SIZE {
            let v = f32::from_bits(word(t, x, y, s));
            if v != 0.0 {
                m.insert((x, y), v as u32);
            }
        }
    }
    m
}

/// Adds the pixels `p` once each to `m`.
pub(crate) fn add(m: &mut BTreeMap<(u32, u32), u32>, p: impl IntoIterator<Item = (u32, u32)>) {
    for q in p {
        *m.entry(q).or_insert(0) += 1;
    }
}

/// The wireframe triangle A (2.5, 2.5), B (12.5, 2.5), C (2.5, 12.5), clockwise on
/// screen. Each edge runs through pixel centres and lights, by the diamond-exit rule
/// (D3D11.3 §3.4.3), the pixels from its start up to but not including the pixel of its
/// end: A→B the row y = 2 for x = 2..=11; B→C (x-major, |dx| = |dy|) the diagonal
/// (12, 2), (11, 3) … (3, 11); C→A the column x = 2 for y = 12 down to 3. 30 pixels,
/// each once; nothing inside.
const TRI: [[f32; 2]; 3] = [[2.5, 2.5], [12.5, 2.5], [2.5, 12.5]];

fn tri_edges() -> BTreeMap<(u32, u32), u32> {
    let mut m = BTreeMap::new();
    add(&mut m, (2..=11).map(|x| (x, 2)));
    add(&mut m, (0..10).map(|k| (12 - k, 2 + k)));
    add(&mut m, (3..=12).map(|y| (2, y)));
    m
}

/// D3D12 `D3D12_FILL_MODE_WIREFRAME` ("draw lines connecting the vertices") with the
/// line rules of D3D11.3 §3.4.3: the hand-derived 30 edge pixels light once each.
#[test]
fn wireframe_triangle_lights_its_edges() {
    let r = run(
        "wireframe_edges",
        PS_ONE,
        &draw(
            &TRI,
            "",
            &format!(
                "[draw.rasterizer]\nfill = \"WIREFRAME\"\ncull = \"NONE\"\n{}",
                counting_target(1)
            ),
        ),
    )
    .unwrap();
    let want = tri_edges();
    assert_eq!(want.len(), 30);
    assert_eq!(counts(&r, 0), want);
    assert_eq!(r.summary.draw.pixels_shaded, 30);
    // The same triangle solid covers its inside too: the fill mode made the difference.
    let solid = run(
        "wireframe_edges_solid",
        PS_ONE,
        &draw(
            &TRI,
            "",
            &format!("[draw.rasterizer]\ncull = \"NONE\"\n{}", counting_target(1)),
        ),
    )
    .unwrap();
    assert!(counts(&solid, 0).len() > 50);
}

/// Each triangle draws its own edges: the diagonal two triangles share is drawn twice
/// (additive blending shows 2 there). The second triangle B (12.5, 2.5), D (12.5, 12.5),
/// C (2.5, 12.5) lights B→D the column x = 12 for y = 2..=11, D→C the row y = 12 for
/// x = 12 down to 3, and C→B the diagonal (2, 12), (3, 11) … (11, 3): so the shared
/// diagonal's inner pixels (11, 3) … (3, 11) count 2, and so do its ends (12, 2) and
/// (2, 12), each also the start of another edge.
#[test]
fn wireframe_draws_a_shared_edge_twice() {
    let quad = [
        TRI[0],
        TRI[1],
        TRI[2],
        [12.5, 2.5],
        [12.5, 12.5],
        [2.5, 12.5],
    ];
    let r = run(
        "wireframe_shared",
        PS_ONE,
        &draw(
            &quad,
            "",
            &format!(
                "[draw.rasterizer]\nfill = \"WIREFRAME\"\ncull = \"NONE\"\n{}",
                counting_target(1)
            ),
        ),
    )
    .unwrap();
    let mut want = tri_edges();
    add(&mut want, (2..=11).map(|y| (12, y)));
    add(&mut want, (3..=12).map(|x| (x, 12)));
    add(&mut want, (0..10).map(|k| (2 + k, 12 - k)));
    let got = counts(&r, 0);
    assert_eq!(got, want);
    assert_eq!(got.values().filter(|&&n| n == 2).count(), 11);
    for k in 0..=10 {
        assert_eq!(got[&(12 - k, 2 + k)], 2, "diagonal pixel {k}");
    }
}

/// Culling applies to a wireframe triangle by its facing (D3D11.3 §15 cull state, the
/// fill mode changes only what a drawn triangle covers), and `SV_IsFrontFace` is the
/// triangle's. The clockwise triangle is front-facing: culled with `cull = "FRONT"`,
/// drawn with `cull = "BACK"` reading true; its counter-clockwise twin is culled with
/// `BACK` and reads false with `NONE`.
#[test]
fn wireframe_culls_and_faces_by_the_triangle() {
    let ccw = [TRI[0], TRI[2], TRI[1]];
    let target = format!(
        "[[draw.render_target]]\nformat = \"R32_UINT\"\nwidth = {SIZE}\nheight = {SIZE}\nclear = [7, 7, 7, 7]\n"
    );
    let face = |name: &str, v: &[[f32; 2]], cull: &str| {
        let r = run(
            name,
            PS_FACE,
            &draw(
                v,
                "",
                &format!("[draw.rasterizer]\nfill = \"WIREFRAME\"\ncull = \"{cull}\"\n{target}"),
            ),
        )
        .unwrap();
        let t = &r.targets[0].view.texture;
        let mut m = BTreeMap::new();
        for y in 0..SIZE {
            for x in 0..SIZE {
                let w = word(t, x, y, 0);
                if w != 7 {
                    m.insert((x, y), w);
                }
            }
        }
        m
    };
    assert!(face("wf_cull_front", &TRI, "FRONT").is_empty());
    assert!(face("wf_cull_back_ccw", &ccw, "BACK").is_empty());
    let front = face("wf_front", &TRI, "BACK");
    assert_eq!(front.len(), 30);
    assert!(front.values().all(|&w| w != 0), "front faces read true");
    // A→C lights column 2 for y = 2..=11, C→B the diagonal (2, 12) … (11, 3), B→A row 2
    // for x = 12 down to 3: 30 pixels again.
    let back = face("wf_back", &ccw, "NONE");
    assert_eq!(back.len(), 30);
    assert!(back.values().all(|&w| w == 0), "back faces read false");
}

/// A wireframe edge's depth varies along it as a line's does (D3D11.3 §3.4.3 lines take
/// their attributes along the segment): A (2.5, 2.5) at z = 0, B (12.5, 2.5) at z = 1,
/// C (2.5, 12.5) at z = 0.5. Row 2 (A→B) holds (x − 2) / 10 at pixel x's centre; column
/// 2 (C→A) holds 0.5 − 0.5·(12 − y) / 10 at pixel y; the inside keeps the clear depth.
#[test]
fn wireframe_edges_take_depth_along_the_line() {
    let zs = [0.0f32, 1.0, 0.5];
    let f: Vec<String> = TRI
        .iter()
        .zip(zs)
        .flat_map(|(p, z)| {
            let mut c = at(p[0], p[1]);
            c[2] = z;
            c
        })
        .map(|x| format!("{x:?}"))
        .collect();
    let r = run(
        "wireframe_depth",
        PS_ONE,
        &format!(
            "[draw]\nvertex_count = 3\n[[draw.vertex_buffer]]\nslot = 0\nstride = 16\ndata = {{ f32 = [{}] }}\n[[draw.input_element]]\nsemantic = \"POSITION\"\nformat = \"R32G32B32A32_FLOAT\"\n[draw.rasterizer]\nfill = \"WIREFRAME\"\ncull = \"NONE\"\n{}[draw.depth_stencil]\nformat = \"D32_FLOAT\"\nclear_depth = 1.0\ndepth_func = \"LESS_EQUAL\"\n",
            f.join(", "),
            counting_target(1)
        ),
    )
    .unwrap();
    let d = &r.depth.as_ref().unwrap().view.texture;
    let depth = |x: u32, y: u32| f32::from_bits(word(d, x, y, 0));
    for x in 2..=11u32 {
        let want = (x - 2) as f32 / 10.0;
        assert!(
            (depth(x, 2) - want).abs() < 1e-6,
            "({x}, 2): {}",
            depth(x, 2)
        );
    }
    for y in 3..=12u32 {
        let want = 0.5 - 0.5 * (12 - y) as f32 / 10.0;
        assert!(
            (depth(2, y) - want).abs() < 1e-6,
            "(2, {y}): {}",
            depth(2, y)
        );
    }
    assert_eq!(depth(5, 5), 1.0, "the inside is not drawn");
}

/// Edges that clipping makes are not drawn (dxlane's documented choice: the lines are
/// those of the triangle's own edges inside the viewport, which a guard band of any width
/// gives). A (2.5, 2.5), B (30.5, 2.5), C (2.5, 30.5) on the 16 × 16 target clips to the
/// square [2.5, 16] × [2.5, 16]: the parts of A→B (row 2, x = 2..=15) and C→A (column 2,
/// y = 15 down to 3) light; the clip edges along x = 16 and y = 16 would light column 15
/// and row 15, and do not. B→C lies wholly outside.
#[test]
fn wireframe_skips_edges_made_by_clipping() {
    let r = run(
        "wireframe_clipped",
        PS_ONE,
        &draw(
            &[[2.5, 2.5], [30.5, 2.5], [2.5, 30.5]],
            "",
            &format!(
                "[draw.rasterizer]\nfill = \"WIREFRAME\"\ncull = \"NONE\"\n{}",
                counting_target(1)
            ),
        ),
    )
    .unwrap();
    let mut want = BTreeMap::new();
    add(&mut want, (2..=15).map(|x| (x, 2)));
    add(&mut want, (3..=15).map(|y| (2, y)));
    assert_eq!(counts(&r, 0), want);
}

/// A sliver (1.1, 1.1), (9.1, 1.3), (1.1, 1.3): 0.2 pixel tall between the row's top
/// and its pixel centres (y = 1.5), it covers no sample, so standard rasterization draws
/// nothing. Conservative rasterization (tier 1) covers every pixel whose square it
/// overlaps: row 1, x = 1..=9 (at x = 9 the tip reaches 9.1). On a 4× target every sample
/// of those pixels is covered (DirectX-Specs, Multisampling interaction).
#[test]
fn conservative_covers_a_sliver_standard_misses() {
    let sliver = [[1.1, 1.1], [9.1, 1.3], [1.1, 1.3]];
    let standard = run(
        "sliver_standard",
        PS_ONE,
        &draw(
            &sliver,
            "",
            &format!("[draw.rasterizer]\ncull = \"NONE\"\n{}", counting_target(1)),
        ),
    )
    .unwrap();
    assert!(counts(&standard, 0).is_empty());
    let mut want = BTreeMap::new();
    add(&mut want, (1..=9).map(|x| (x, 1)));
    for samples in [1, 4] {
        let r = run(
            &format!("sliver_conservative_{samples}"),
            PS_ONE,
            &draw(
                &sliver,
                "",
                &format!(
                    "[draw.rasterizer]\ncull = \"NONE\"\nconservative = true\n{}",
                    counting_target(samples)
                ),
            ),
        )
        .unwrap();
        for s in 0..samples {
            assert_eq!(counts(&r, s), want, "{samples} samples, sample {s}");
        }
    }
}

/// Conservative coverage is the exact overlap of the pixel square (dxlane's choice within
/// tier 1's half-pixel uncertainty region): a pixel the triangle only touches along a
/// pixel edge or corner is not covered. The square [2, 6] × [2, 6] as two triangles
/// sharing the diagonal: each covers the 10 pixels on its side of the diagonal and the
/// diagonal's 4, so the diagonal counts 2, the rest of the 16 pixels 1, and no pixel
/// outside the square (which both triangles touch along its sides) is drawn.
#[test]
fn conservative_coverage_is_exact_overlap() {
    let r = run(
        "conservative_square",
        PS_ONE,
        &draw(
            &[
                [2.0, 2.0],
                [6.0, 2.0],
                [6.0, 6.0],
                [2.0, 2.0],
                [6.0, 6.0],
                [2.0, 6.0],
            ],
            "",
            &format!(
                "[draw.rasterizer]\ncull = \"NONE\"\nconservative = true\n{}",
                counting_target(1)
            ),
        ),
    )
    .unwrap();
    let mut want = BTreeMap::new();
    add(&mut want, (2..6).flat_map(|y| (2..6).map(move |x| (x, y))));
    add(&mut want, (2..6).map(|k| (k, k)));
    assert_eq!(counts(&r, 0), want);
}

/// DirectX-Specs "D3D12 Programmable Sample Positions": the programmed positions decide
/// which samples an edge covers. A triangle whose right edge runs down x = 4.5 through
/// pixel column 4 on a 4× target: the standard pattern's samples left of the centre are
/// 0 ((-2, -6)/16) and 2 ((-6, 2)/16); programmed (-8, 0), (-1, 0), (1, 0), (7, -8) put
/// samples 0 and 1 left of it. Pixels 0–3 of those rows are wholly covered either way.
#[test]
fn programmed_sample_positions_move_coverage() {
    let v = [[0.0, 0.0], [4.5, 0.0], [4.5, 16.0]];
    let covered = |name: &str, keys: &str| {
        let r = run(
            name,
            PS_ONE,
            &draw(
                &v,
                "",
                &format!(
                    "[draw.rasterizer]\ncull = \"NONE\"\n{keys}\n{}",
                    counting_target(4)
                ),
            ),
        )
        .unwrap();
        (0..4)
            .filter(|&s| counts(&r, s).contains_key(&(4, 12)))
            .collect::<Vec<u32>>()
    };
    assert_eq!(covered("positions_standard", ""), vec![0, 2]);
    assert_eq!(
        covered(
            "positions_programmed",
            "sample_positions = [[-8, 0], [-1, 0], [1, 0], [7, -8]]"
        ),
        vec![0, 1]
    );
}

/// A pixel program writing its `SV_Coverage` into a UAV at index `16·y + x`.
pub(crate) const PS_COVERAGE_UAV: &str = r#"shader pixel
regs 8
const r0 = 0
const r1 = 16
io_words in 8 out 0
resource range0 = uav space 0 lower 0 count 1 typed_buffer uint "u"
input "SV_Position" 0 sv position reg 0 rows 1 mask xyzw float interp noperspective slot 0
input "SV_Coverage" 0 sv coverage reg 1 rows 1 mask x uint interp constant slot 4
block0:
    input r2, 0
    input r3, 1
    ftou r2, r2
    ftou r3, r3
    imad r4, r3, r1, r2
    input r5, 4
    handle r6, range0, r0
    typed_store r6, [r4 _ _], _, [r5 r5 r5 r5], 15
    return
"#;

/// Target-independent rasterization (D3D11.3 §3.5.6.4; D3D12's `ForcedSampleCount`) in
/// its UAV-only form: no render target and no depth buffer, coverage from the forced
/// standard pattern, the pixel program once per pixel with that coverage in
/// `SV_Coverage`. A triangle whose right edge runs down x = 4.5 at a forced count of 4:
/// pixels 1–3 of rows 0–3 read 0b1111; pixel 4 reads 0b0101 (the standard 4× samples 0
/// and 2 lie left of its centre); pixel 5 is not shaded. The same draw with a
/// multisampled render target or a depth buffer bound is refused, naming it (§3.5.6.2:
/// above a forced count of 1 targets have one sample; no depth-stencil view at all).
#[test]
fn forced_sample_count_draws_uav_only_with_the_forced_coverage() {
    let v = [[0.0, 0.0], [4.5, 0.0], [4.5, 64.0]];
    let uav = "[[resource]]\nreg = \"u0\"\nkind = \"typed_buffer\"\nformat = \"R32_UINT\"\nsize = 1024\noutput = \"u0.bin\"\n";
    let vp = format!("viewport = [0.0, 0.0, {SIZE}.0, {SIZE}.0, 0.0, 1.0]");
    let keys = "[draw.rasterizer]\ncull = \"NONE\"\nforced_sample_count = 4\n";
    run(
        "forced_uav_only",
        PS_COVERAGE_UAV,
        &format!("{uav}{}", draw(&v, &vp, keys)),
    )
    .unwrap();
    let bytes = std::fs::read(
        common::scratch()
            .join("raster_states")
            .join("forced_uav_only")
            .join("u0.bin"),
    )
    .unwrap();
    let w = |x: usize, y: usize| {
        let i = 4 * (16 * y + x);
        u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap())
    };
    for y in 0..4 {
        for x in 1..4 {
            assert_eq!(w(x, y), 0b1111, "({x}, {y})");
        }
        assert_eq!(w(4, y), 0b0101, "(4, {y})");
        assert_eq!(w(5, y), 0, "(5, {y})");
    }
    for (name, bound, what) in [
        ("forced_with_target", counting_target(4), "render_target"),
        (
            "forced_with_depth",
            "[draw.depth_stencil]\nformat = \"D32_FLOAT\"\nwidth = 16\nheight = 16\n".to_string(),
            "depth_stencil",
        ),
    ] {
        let e = run(
            name,
            PS_COVERAGE_UAV,
            &format!("{uav}{}", draw(&v, &vp, &format!("{keys}{bound}"))),
        )
        .err()
        .unwrap_or_else(|| panic!("{name} ran"));
        assert!(
            e.contains(what) && e.contains("ForcedSampleCount 4"),
            "{name}: {e}"
        );
    }
}

/// The refusals, each naming `[draw.rasterizer]`: conservative rasterization with
/// wireframe fill (DirectX-Specs "Conservative Rasterization", Fill Modes interaction:
/// solid only) and with a line topology (IA Primitive Topology interaction: undefined
/// for points and lines), sample positions that do not fit the sample count or lie
/// outside -8..7 (`SetSamplePositions`' rules), and a forced sample count D3D does not
/// define (0, 1, 4, 8 and 16 are the counts).
#[test]
fn refused_rasterizer_states_name_the_table() {
    let cases = [
        (
            "refuse_cons_wireframe",
            "fill = \"WIREFRAME\"\nconservative = true",
            "",
            "wireframe",
        ),
        (
            "refuse_cons_lines",
            "conservative = true",
            "topology = \"line_list\"",
            "triangles only",
        ),
        (
            "refuse_positions_count",
            "sample_positions = [[0, 0], [1, 1], [2, 2]]",
            "",
            "3 sample positions for 1 samples",
        ),
        (
            "refuse_positions_range",
            "sample_positions = [[0, 0], [1, 8]]",
            "",
            "#2 [1, 8]",
        ),
        (
            "refuse_forced_count",
            "forced_sample_count = 2",
            "",
            "ForcedSampleCount 2: give 0 (off), 1, 4, 8 or 16",
        ),
    ];
    for (name, keys, extra, what) in cases {
        let e = run(
            name,
            PS_ONE,
            &draw(
                &[TRI[0], TRI[1], TRI[2], TRI[0], TRI[1], TRI[2]],
                extra,
                &format!(
                    "[draw.rasterizer]\ncull = \"NONE\"\n{keys}\n{}",
                    counting_target(1)
                ),
            ),
        )
        .err()
        .unwrap_or_else(|| panic!("{name} ran"));
        assert!(e.contains("[draw.rasterizer]"), "{name}: {e}");
        assert!(e.contains(what), "{name}: {e}");
    }
}

/// A single draw's depth buffer starts from its `data` (D3D12: a resource holds what
/// was uploaded to it until something writes it; the draw does not clear it): rows 0–7
/// of a 16 × 16 `D32_FLOAT` buffer hold 0.25, rows 8–15 hold 0.75, so a triangle over
/// the whole target at z = 0.5 passes `LESS` on rows 8–15 only (128 pixels). `data`
/// with `clear_depth` is refused: the two give the starting contents twice.
#[test]
fn depth_buffer_starts_from_its_data() {
    let v = [[0.0, 0.0], [32.0, 0.0], [0.0, 32.0]];
    let depths: Vec<String> = (0..SIZE * SIZE)
        .map(|i| if i < SIZE * 8 { "0.25" } else { "0.75" }.to_string())
        .collect();
    let ds = format!(
        "[draw.depth_stencil]\nformat = \"D32_FLOAT\"\ndepth_func = \"LESS\"\ndata = {{ f32 = [{}] }}\n",
        depths.join(", ")
    );
    let r = run(
        "depth_data",
        PS_ONE,
        &draw(&v, "", &format!("{}{ds}", counting_target(1))),
    )
    .unwrap();
    let mut want = BTreeMap::new();
    add(
        &mut want,
        (8..SIZE).flat_map(|y| (0..SIZE).map(move |x| (x, y))),
    );
    assert_eq!(counts(&r, 0), want);
    let e = run(
        "depth_data_and_clear",
        PS_ONE,
        &draw(
            &v,
            "",
            &format!("{}{ds}clear_depth = 1.0\n", counting_target(1)),
        ),
    )
    .unwrap_err();
    assert!(
        e.contains("[draw.depth_stencil]") && e.contains("`data`") && e.contains("`clear_depth`"),
        "{e}"
    );
}
