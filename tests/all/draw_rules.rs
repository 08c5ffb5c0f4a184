//! The draw rules of D3D11.3 that a one-unit, one-ulp or few-sample slip would break, each
//! through a whole draw job with values worked out by hand: UNORM depth rounding, the
//! sample mask in the early depth-stencil test and per-sample shading, depth bias per
//! vertex, `SV_Position.z` unclamped in the pixel program, x/y clipping at the
//! viewport with the clipped vertices snapped, and the first of several viewports when no
//! program names one.

use dxlane::job::{self, DrawResult, Job, RunOptions};
use dxlane::resources::Texture;

use super::common;

/// A vertex program passing `POSITION` through as `SV_Position`.
const VS_POS: &str = r#"shader vertex
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

/// A pixel program writing (1, 0, 0, 1).
const PS_RED: &str = r#"shader pixel
regs 2
const r0 = 0x3f800000
const r1 = 0x0
io_words in 0 out 4
output "SV_Target" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    output 0, r0
    output 1, r1
    output 2, r1
    output 3, r0
    return
"#;

/// Runs `[program]` with `VS_POS` and `ps` and the rest of the job, in a fresh folder.
fn run(name: &str, ps: &str, rest: &str) -> DrawResult {
    let dir = common::scratch().join("draw_rules").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("vs.ir"), VS_POS).unwrap();
    std::fs::write(dir.join("ps.ir"), ps).unwrap();
    let text = format!("[program]\nvs = \"vs.ir\"\nps = \"ps.ir\"\n{rest}");
    let job = Job::from_text(&text, &dir.join("job.toml")).unwrap();
    job::run_draw_job(
        job,
        &RunOptions {
            threads: Some(2),
            ..crate::common::run_options()
        },
    )
    .unwrap()
}

/// `[draw]` with the triangles `v` (clip-space positions, three per triangle) as a
/// `POSITION` vertex buffer.
fn draw(v: &[[f32; 4]], extra: &str) -> String {
    let f: Vec<String> = v.iter().flatten().map(|x| format!("{x:?}")).collect();
    format!(
        "[draw]\nvertex_count = {}\n{extra}\n[[draw.vertex_buffer]]\nslot = 0\nstride = 16\ndata = {{ f32 = [{}] }}\n[[draw.input_element]]\nsemantic = \"POSITION\"\nformat = \"R32G32B32A32_FLOAT\"\n",
        v.len(),
        f.join(", ")
    )
}

/// The `n` bytes of sample `s` of texel `(x, y)`.
fn texel(t: &Texture, x: u32, y: u32, s: u32, n: usize) -> Vec<u8> {
    let a = t.texel_addr(0, 0, [x, y, 0], s).unwrap();
    let mut b = vec![0u8; n];
    assert!(t.memory().read_bytes(a, &mut b));
    b
}

fn word(t: &Texture, x: u32, y: u32, s: u32) -> u32 {
    u32::from_le_bytes(texel(t, x, y, s, 4).try_into().unwrap())
}

/// A triangle covering the whole viewport at clip-space depth `z`.
fn full(z: f32) -> [[f32; 4]; 3] {
    [
        [-1.0, -1.0, z, 1.0],
        [-1.0, 3.0, z, 1.0],
        [3.0, -1.0, z, 1.0],
    ]
}

/// D3D11.3 §17.11 (depth rounds to nearest) and §3.2.3.6 (FLOAT → UNORM, within 0.6 of
/// the exact value): z = 0.7490234375 = 767/1024 is 767/1024 × (2^24 − 1) = 12566527.25
/// in D24 units, so both the clear and a triangle drawn at that depth store 12566527
/// (rounding the product in f32 and adding ½ there stored 12566528).
#[test]
fn d24_holds_the_nearest_code() {
    let z = 0.749_023_44f32;
    assert_eq!(z, 767.0 / 1024.0);
    for (name, clear, drawn) in [("d24_clear", z, 1.0f32), ("d24_drawn", 1.0, z)] {
        let r = run(
            name,
            PS_RED,
            &format!(
                "{}[[draw.render_target]]\nformat = \"R8G8B8A8_UNORM\"\nwidth = 4\nheight = 4\n[draw.depth_stencil]\nformat = \"D24_UNORM_S8_UINT\"\nclear_depth = {clear:?}\ndepth_func = \"LESS_EQUAL\"\n",
                draw(&full(drawn), "")
            ),
        );
        let d = &r.depth.as_ref().unwrap().view.texture;
        for y in 0..4 {
            for x in 0..4 {
                assert_eq!(
                    word(d, x, y, 0) & 0xff_ffff,
                    12_566_527,
                    "{name} ({x}, {y})"
                );
            }
        }
    }
}

/// D3D11.3 §16.9.4 and §3.5.4: the samples written are the coverage ANDed with the
/// sample mask, and the early depth-stencil test writes depth for those only. A 4×
/// target, `SampleMask = 5`, a triangle at z = 0.5 covering every sample, D32 cleared to
/// 1.0, `LESS_EQUAL` with writes: samples 0 and 2 of every pixel hold 0.5 and red;
/// samples 1 and 3 keep depth 1.0 and the clear colour. The pixel program allows the
/// early test (no discard, depth or coverage output), so this is the early path.
#[test]
fn early_depth_stencil_honours_the_sample_mask() {
    let r = run(
        "sample_mask_early",
        PS_RED,
        &format!(
            "{}[[draw.render_target]]\nformat = \"R8G8B8A8_UNORM\"\nwidth = 4\nheight = 4\nsamples = 4\nclear = [0, 0, 1, 1]\n[draw.depth_stencil]\nformat = \"D32_FLOAT\"\nclear_depth = 1.0\ndepth_func = \"LESS_EQUAL\"\n",
            draw(&full(0.5), "sample_mask = 5")
        ),
    );
    assert!(r.summary.draw.pixels_shaded > 0);
    let d = &r.depth.as_ref().unwrap().view.texture;
    let c = &r.targets[0].view.texture;
    for y in 0..4 {
        for x in 0..4 {
            for s in 0..4 {
                let (depth, colour) = if s % 2 == 0 {
                    (0.5f32, [255, 0, 0, 255])
                } else {
                    (1.0, [0, 0, 255, 255])
                };
                assert_eq!(f32::from_bits(word(d, x, y, s)), depth, "({x}, {y}) #{s}");
                assert_eq!(texel(c, x, y, s, 4), colour, "({x}, {y}) #{s}");
            }
        }
    }
}

/// A per-sample pixel program (it reads `SV_SampleIndex`) runs once for each sample the
/// merger may write (D3D11.3 §16.9.4: coverage ANDed with the sample mask): with
/// `SampleMask = 5` on a 4× target, 2 lanes per pixel, each writing its sample index
/// (as red = index / 255) into its own sample only.
#[test]
fn per_sample_shading_skips_masked_samples() {
    let ps = r#"shader pixel
regs 4
const r0 = 0x3f800000
const r1 = 0x437f0000
io_words in 4 out 4
input "SV_SampleIndex" 0 sv sample_index reg 0 rows 1 mask x uint interp constant slot 0
output "SV_Target" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    input r2, 0
    utof r2, r2
    fdiv r3, r2, r1
    output 0, r3
    output 1, r3
    output 2, r3
    output 3, r0
    return
"#;
    let r = run(
        "sample_mask_per_sample",
        ps,
        &format!(
            "{}[[draw.render_target]]\nformat = \"R8G8B8A8_UNORM\"\nwidth = 4\nheight = 4\nsamples = 4\nclear = [0, 0, 1, 0]\n",
            draw(&full(0.5), "sample_mask = 5")
        ),
    );
    assert_eq!(r.summary.draw.pixels_shaded, 16 * 2);
    let c = &r.targets[0].view.texture;
    for y in 0..4 {
        for x in 0..4 {
            for s in 0..4u8 {
                let want = if s % 2 == 0 {
                    [s, s, s, 255]
                } else {
                    [0, 0, 255, 0]
                };
                assert_eq!(texel(c, x, y, u32::from(s), 4), want, "({x}, {y}) #{s}");
            }
        }
    }
}

/// D3D11.3 §15.10: the bias is added to each vertex's z in float32 before the
/// interpolation set-up. D32, `DepthBias` 5, `SlopeScaledDepthBias` −2,
/// `DepthBiasClamp` −0.001, a 64 × 64 target, vertices at pixels (0, 0) z = 1/16,
/// (64, 0) z = 15/16, (0, 64) z = 1/2 (their z exact in f32): MaxDepthSlope = 7/512,
/// r = 2^(−1 − 23), bias 5·2^−24 − 2·7/512 clamped to −0.001f32 = −8589935/2^33; the
/// biased vertices round to 16508781/2^28, 15711863/2^24, 8371831/2^24, and the plane
/// through them is exactly 1232722755/2^34 at pixel (0, 0), 733801891/2^33 at (1, 0),
/// 1702484809/2^34 at (2, 0), which D32 stores as 9630647/2^27, 11465655/2^27 and
/// 13300663/2^27 (adding the bias to the plane instead stored one ulp less at each).
#[test]
fn depth_bias_is_added_to_each_vertex() {
    let tri = [
        [-1.0, 1.0, 0.0625, 1.0],
        [1.0, 1.0, 0.9375, 1.0],
        [-1.0, -1.0, 0.5, 1.0],
    ];
    let r = run(
        "depth_bias",
        PS_RED,
        &format!(
            "{}[draw.rasterizer]\ndepth_bias = 5\nslope_scaled_depth_bias = -2.0\ndepth_bias_clamp = -0.001\n[[draw.render_target]]\nformat = \"R8G8B8A8_UNORM\"\nwidth = 64\nheight = 64\n[draw.depth_stencil]\nformat = \"D32_FLOAT\"\nclear_depth = 1.0\n",
            draw(&tri, "")
        ),
    );
    let d = &r.depth.as_ref().unwrap().view.texture;
    let two27 = 134_217_728.0f64;
    for (x, num) in [(0, 9_630_647.0), (1, 11_465_655.0), (2, 13_300_663.0)] {
        assert_eq!(
            f32::from_bits(word(d, x, 0, 0)),
            (num / two27) as f32,
            "pixel ({x}, 0)"
        );
    }
    assert_eq!(f32::from_bits(word(d, 0, 0, 0)), 0.071_753_91);
}

/// D3D11.3 §15.6: the depth the output merger tests and stores is clamped to the
/// viewport's range; the pixel program's `SV_Position.z` is not. With depth clip off, a
/// flat triangle at NDC z = 1.5 and viewport depths 0.25–0.375 has depth 1.5 × 0.125 +
/// 0.25 = 0.4375 (exact): the program reads 0.4375 (written to an R32_FLOAT target) and
/// the D32 buffer stores 0.375.
#[test]
fn position_z_is_not_clamped_in_the_pixel_program() {
    let ps = r#"shader pixel
regs 2
io_words in 4 out 4
input "SV_Position" 0 sv position reg 0 rows 1 mask xyz float interp noperspective slot 0
output "SV_Target" 0 sv target reg 0 rows 1 mask x float interp undefined slot 0
block0:
    input r0, 2
    output 0, r0
    return
"#;
    let r = run(
        "position_z",
        ps,
        &format!(
            "{}[draw.rasterizer]\ndepth_clip = false\n[[draw.render_target]]\nformat = \"R32_FLOAT\"\nwidth = 4\nheight = 4\n[draw.depth_stencil]\nformat = \"D32_FLOAT\"\nclear_depth = 1.0\n",
            draw(&full(1.5), "viewport = [0, 0, 4, 4, 0.25, 0.375]")
        ),
    );
    let c = &r.targets[0].view.texture;
    let d = &r.depth.as_ref().unwrap().view.texture;
    for y in 0..4 {
        for x in 0..4 {
            assert_eq!(f32::from_bits(word(c, x, y, 0)), 0.4375, "({x}, {y})");
            assert_eq!(f32::from_bits(word(d, x, y, 0)), 0.375, "({x}, {y})");
        }
    }
}

/// Which pixels of a `w × h` R8G8B8A8 target are red.
fn red(r: &DrawResult, w: u32, h: u32) -> Vec<(u32, u32)> {
    let t = &r.targets[0].view.texture;
    let mut v = Vec::new();
    for y in 0..h {
        for x in 0..w {
            if texel(t, x, y, 0, 4)[0] == 255 {
                v.push((x, y));
            }
        }
    }
    v
}

/// D3D11.3 §15.4 and §3.4.1, as WARP does it: x and y are clipped at the viewport and the
/// vertices clipping makes are snapped to 1/256 pixel. A 64 × 64 target and a viewport
/// half of it wide; in screen pixels (right viewport edge at x = 32, y down) the
/// triangle A = (16, 2687/256), B = (48, 2690/256), C = (16, 30): edge AB crosses the
/// edge at t = ½, at y = 5377/512 = 10.5 + 0.5/256, which snaps (ties to even, in
/// 1/256 units 2688.5 → 2688) to exactly 10.5. The drawn part of AB runs from A to
/// (32, 10.5), below AB by up to 1.5/256 px: at pixel centre x = c + ½ it lies at
/// y = 10.5 + ((c + ½ − 16)/16 − 1)/256, under 10.5 for every c in 16..=31, so row 10
/// (centres at y = 10.5, inside below the edge) is covered from x = 16 to 31. Drawing the
/// unclipped AB and cutting at the viewport (a guard band) covers only x = 16 to 26 of
/// row 10: AB lies at 10.5 + (3(c + ½ − 16)/32 − 1)/256, above 10.5 from c = 27 on. Row 9
/// is never covered; row 11 is covered from 16 to 31. Each of the four viewport edges
/// gets this triangle, mirrored and transposed onto it (the snapped crossing mirrors
/// exactly: 64·256 − 2688 = 13696 is the even neighbour of 13695.5).
#[test]
fn triangles_are_clipped_at_each_viewport_edge_and_snapped() {
    // Screen-space geometry of the right-edge case, in 1/256 px.
    let tri = [(16 * 256, 2687), (48 * 256, 2690), (16 * 256, 30 * 256)];
    // (name, viewport, transform of a screen point in 1/256 px, transform of a pixel).
    type Map = fn(i64, i64) -> (i64, i64);
    type PMap = fn(u32, u32) -> (u32, u32);
    let cases: [(&str, [f32; 4], Map, PMap); 4] = [
        (
            "right",
            [0.0, 0.0, 32.0, 64.0],
            |x, y| (x, y),
            |x, y| (x, y),
        ),
        (
            "left",
            [32.0, 0.0, 32.0, 64.0],
            |x, y| (64 * 256 - x, y),
            |x, y| (63 - x, y),
        ),
        (
            "bottom",
            [0.0, 0.0, 64.0, 32.0],
            |x, y| (y, x),
            |x, y| (y, x),
        ),
        (
            "top",
            [0.0, 32.0, 64.0, 32.0],
            |x, y| (y, 64 * 256 - x),
            |x, y| (y, 63 - x),
        ),
    ];
    for (name, vp, map, pix) in cases {
        // Screen (1/256 px) to clip space with w = 1: x = 2(sx − vx)/vw − 1, y = 1 −
        // 2(sy − vy)/vh; every value here is exact in f32.
        let clip: Vec<[f32; 4]> = tri
            .iter()
            .map(|&(x, y)| {
                let (sx, sy) = map(x, y);
                let nx = 2.0 * (sx as f64 / 256.0 - f64::from(vp[0])) / f64::from(vp[2]) - 1.0;
                let ny = 1.0 - 2.0 * (sy as f64 / 256.0 - f64::from(vp[1])) / f64::from(vp[3]);
                assert_eq!(nx as f32 as f64, nx);
                assert_eq!(ny as f32 as f64, ny);
                [nx as f32, ny as f32, 0.5, 1.0]
            })
            .collect();
        let r = run(
            &format!("clip_{name}"),
            PS_RED,
            &format!(
                "{}[draw.rasterizer]\ncull = \"NONE\"\n[[draw.render_target]]\nformat = \"R8G8B8A8_UNORM\"\nwidth = 64\nheight = 64\n",
                draw(
                    &clip,
                    &format!(
                        "viewport = [{:?}, {:?}, {:?}, {:?}, 0, 1]",
                        vp[0], vp[1], vp[2], vp[3]
                    )
                )
            ),
        );
        let got = red(&r, 64, 64);
        let row = |y: u32| -> Vec<u32> {
            let mut xs: Vec<u32> = (0..64u32).filter(|&x| got.contains(&pix(x, y))).collect();
            xs.sort();
            xs
        };
        assert_eq!(row(9), Vec::<u32>::new(), "{name}: row 9");
        assert_eq!(row(10), (16..=31).collect::<Vec<_>>(), "{name}: row 10");
        assert_eq!(row(11), (16..=31).collect::<Vec<_>>(), "{name}: row 11");
        // Nothing outside the viewport.
        assert!(
            (0..64).all(|y| (32..64).all(|x| !got.contains(&pix(x, y)))),
            "{name}: a pixel past the viewport"
        );
    }
}

/// D3D11.3 §15.4 with the top-left rule of §3.4.1 on the edges clipping makes: a viewport
/// at (4.5, 2.5), 32 × 32, and a triangle reaching past it on every side. Clipping cuts
/// it to the viewport square, whose left edge (x = 4.5) and top edge (y = 2.5) run
/// through pixel centres: those centres are on a left and a top edge, so covered;
/// the centres on the right (x = 36.5) and bottom (y = 34.5) edges are not. The covered
/// pixels are exactly columns 4 to 35 of rows 2 to 33.
#[test]
fn pixels_on_a_clipped_edge_follow_the_top_left_rule() {
    let r = run(
        "clip_on_edge",
        PS_RED,
        &format!(
            "{}[[draw.render_target]]\nformat = \"R8G8B8A8_UNORM\"\nwidth = 40\nheight = 40\n",
            draw(
                &[
                    [-3.0, 3.0, 0.5, 1.0],
                    [5.0, 3.0, 0.5, 1.0],
                    [-3.0, -5.0, 0.5, 1.0],
                ],
                "viewport = [4.5, 2.5, 32.0, 32.0, 0, 1]"
            )
        ),
    );
    let got = red(&r, 40, 40);
    let want: Vec<(u32, u32)> = (2..=33)
        .flat_map(|y| (4..=35).map(move |x| (x, y)))
        .collect();
    assert_eq!(got, want);
}

/// `[draw] viewports` and `scissors` (RSSetViewports, RSSetScissorRects; D3D11 reference
/// of `RSSetViewports`: without `SV_ViewportArrayIndex` the first viewport is used, with
/// the scissor rectangle of the same index, D3D11.3 §15.7): a vertex program that writes
/// no index draws in viewport 0 only — its rectangle, its depth range and scissor 0 —
/// and a single-draw job reads both keys as a list's draw does.
#[test]
fn without_a_viewport_index_the_first_viewport_and_scissor_apply() {
    let r = run(
        "viewports",
        PS_RED,
        &format!(
            "{}[[draw.render_target]]\nformat = \"R8G8B8A8_UNORM\"\nwidth = 8\nheight = 4\n[draw.depth_stencil]\nformat = \"D32_FLOAT\"\nclear_depth = 1.0\n",
            draw(
                &full(0.5),
                "viewports = [[0, 0, 4, 4, 0.25, 0.375], [4, 0, 4, 4, 0, 1]]\nscissors = [[0, 0, 3, 4], [0, 0, 8, 4]]"
            )
        ),
    );
    let drawn: Vec<(u32, u32)> = (0..4).flat_map(|y| (0..3).map(move |x| (x, y))).collect();
    assert_eq!(red(&r, 8, 4), drawn, "viewport 0 cut by scissor 0");
    let d = &r.depth.as_ref().unwrap().view.texture;
    // z = 0.5 in viewport 0's range [0.25, 0.375]: 0.3125.
    assert_eq!(f32::from_bits(word(d, 1, 1, 0)), 0.3125);
    assert_eq!(
        f32::from_bits(word(d, 5, 1, 0)),
        1.0,
        "viewport 1 is not used"
    );
}

/// A single-draw job takes the per-face stencil keys and the depth-bounds test as a list
/// draw does (`[draw] front_and_back_stencil_ref`, `depth_bounds`; `[draw.depth_stencil]`
/// face `read_mask` / `write_mask`, `depth_bounds_test`): a front triangle (clockwise,
/// left) writes 0x12 through 0x0f, a back one (right) 0x34 through 0xf0, over 0xa5
/// (DirectX-Specs "VulkanOn12", "Independent Front/Back Stencil Refs and Masks"); with
/// the depth-bounds test the stored depth 1.0 must lie in `depth_bounds` for anything to
/// be written (DirectX-Specs "D3D12 Depth Bounds Test").
#[test]
fn single_draws_take_per_face_stencil_and_depth_bounds() {
    let tris = [
        [-1.0, -1.0, 0.5, 1.0],
        [-1.0, 1.0, 0.5, 1.0],
        [-0.1, 0.0, 0.5, 1.0],
        [1.0, -1.0, 0.5, 1.0],
        [1.0, 1.0, 0.5, 1.0],
        [0.1, 0.0, 0.5, 1.0],
    ];
    let stencils = |name: &str, draw_keys: &str, bounds: &str| {
        let r = run(
            name,
            PS_RED,
            &format!(
                "{}[draw.rasterizer]\ncull = \"NONE\"\n[[draw.render_target]]\nformat = \"R8G8B8A8_UNORM\"\nwidth = 8\nheight = 4\n[draw.depth_stencil]\nformat = \"D24_UNORM_S8_UINT\"\nclear_depth = 1.0\nclear_stencil = 0xa5\nstencil_enable = true\nfront = {{ pass = \"REPLACE\", write_mask = 0x0f }}\nback = {{ pass = \"REPLACE\", write_mask = 0xf0 }}\n{bounds}",
                draw(
                    &tris,
                    &format!("front_and_back_stencil_ref = [0x12, 0x34]\n{draw_keys}")
                )
            ),
        );
        let d = &r.depth.as_ref().unwrap().view.texture;
        [(0, 2), (7, 2), (4, 0)].map(|(x, y)| (word(d, x, y, 0) >> 24) as u8)
    };
    assert_eq!(stencils("faces", "", ""), [0xa2, 0x35, 0xa5]);
    let on = "depth_bounds_test = true\n";
    assert_eq!(
        stencils("faces_bounds_out", "depth_bounds = [0, 0.5]", on),
        [0xa5; 3],
        "stored depth 1.0 outside [0, 0.5]: nothing written"
    );
    assert_eq!(
        stencils("faces_bounds_in", "depth_bounds = [0.5, 1]", on),
        [0xa2, 0x35, 0xa5],
        "stored depth 1.0 in [0.5, 1]"
    );
}
