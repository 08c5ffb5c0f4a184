//! Variable-rate shading through whole draw jobs, every expected value worked out by hand
//! from DirectX-Specs "Variable Rate Shading" (VRS; the section each test follows is
//! named in its doc): coarse centres, invocation counts per rate, the combiners, the
//! provoking vertex's rate, the screen-space image, MSAA, sample-frequency and depth
//! outputs forcing fine shading, coverage, discard, derivatives, determinism, and the
//! refusals.

use dxlane::job::{self, DrawResult, Job, RunOptions};
use dxlane::resources::Texture;

use super::common;

/// A vertex program passing `POSITION` through as `SV_Position` and `RATE` as
/// `SV_ShadingRate`.
const VS: &str = r#"shader vertex
regs 1
io_words in 8 out 8
input "POSITION" 0 sv none reg 0 rows 1 mask xyzw float interp undefined slot 0
input "RATE" 0 sv none reg 1 rows 1 mask x uint interp undefined slot 4
output "SV_Position" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0
output "SV_ShadingRate" 0 sv shading_rate reg 1 rows 1 mask x uint interp undefined slot 4
block0:
    input r0, 0
    output 0, r0
    input r0, 1
    output 1, r0
    input r0, 2
    output 2, r0
    input r0, 3
    output 3, r0
    input r0, 4
    output 4, r0
    return
"#;

/// A pixel program writing (`SV_Position.x`, `SV_Position.y`, `SV_ShadingRate`,
/// `ddx_coarse(SV_Position.x)`).
const PS_INFO: &str = r#"shader pixel
regs 5
io_words in 8 out 4
input "SV_Position" 0 sv position reg 0 rows 1 mask xy float interp noperspective slot 0
input "SV_ShadingRate" 0 sv shading_rate reg 1 rows 1 mask x uint interp constant slot 4
output "SV_Target" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    input r0, 0
    input r1, 1
    input r2, 4
    utof r3, r2
    deriv coarse_x, r4, r0
    output 0, r0
    output 1, r1
    output 2, r3
    output 3, r4
    return
"#;

/// A pixel program counting its invocations in `u0` and writing 1s.
const PS_COUNT: &str = r#"shader pixel
regs 4
const r0 = 0
const r1 = 1
const r2 = 0x3f800000
io_words in 0 out 4
resource range0 = uav space 0 lower 0 count 1 raw_buffer uint "count"
output "SV_Target" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    handle r3, range0, r0
    res_atomic add, _, r3, [r0 _ _], r1
    output 0, r2
    output 1, r2
    output 2, r2
    output 3, r2
    return
"#;

/// A pixel program writing its input coverage into an R32_UINT target.
const PS_COVERAGE: &str = r#"shader pixel
regs 1
io_words in 4 out 4
input "SV_Coverage" 0 sv coverage reg none rows 1 mask x uint interp constant slot 0
output "SV_Target" 0 sv target reg 0 rows 1 mask x uint interp undefined slot 0
block0:
    input r0, 0
    output 0, r0
    return
"#;

/// The counter of `u0`, with `PS_COUNT` as `[[resource]]`.
const COUNTER: &str =
    "[[resource]]\nreg = \"u0\"\nkind = \"raw_buffer\"\nsize = 4\noutput = \"count.bin\"\n";

/// Runs `[program]` with `VS` and `ps` and the rest of the job in a fresh folder, on
/// `threads` workers.
fn try_run(name: &str, ps: &str, rest: &str, threads: usize) -> Result<DrawResult, String> {
    let dir = common::scratch().join("vrs").join(name);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("vs.ir"), VS).unwrap();
    std::fs::write(dir.join("ps.ir"), ps).unwrap();
    let text = format!("[program]\nvs = \"vs.ir\"\nps = \"ps.ir\"\n{rest}");
    let job = Job::from_text(&text, &dir.join("job.toml")).map_err(|e| e.to_string())?;
    job::run_draw_job(
        job,
        &RunOptions {
            threads: Some(threads),
            ..crate::common::run_options()
        },
    )
    .map_err(|e| e.to_string())
}

fn run(name: &str, ps: &str, rest: &str) -> DrawResult {
    try_run(name, ps, rest, 2).unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// The invocations `PS_COUNT` counted in job `name`.
fn counted(name: &str) -> u32 {
    let b = std::fs::read(common::scratch().join("vrs").join(name).join("count.bin")).unwrap();
    u32::from_le_bytes(b[..4].try_into().unwrap())
}

/// `[draw]` with triangles `v` (clip-space position and per-vertex rate each) and
/// `extra` keys, then a `w` × `h` target of `format` with `samples`.
fn draw(
    v: &[([f32; 4], u32)],
    extra: &str,
    format: &str,
    (w, h, samples): (u32, u32, u32),
) -> String {
    let words: Vec<String> = v
        .iter()
        .flat_map(|(p, r)| {
            p.iter()
                .map(|x| x.to_bits())
                .chain([*r])
                .map(|x| x.to_string())
                .collect::<Vec<_>>()
        })
        .collect();
    format!(
        "[draw]\nvertex_count = {}\n{extra}\n[[draw.vertex_buffer]]\nslot = 0\nstride = 20\ndata = {{ u32 = [{}] }}\n\
         [[draw.input_element]]\nsemantic = \"POSITION\"\nformat = \"R32G32B32A32_FLOAT\"\n\
         [[draw.input_element]]\nsemantic = \"RATE\"\nformat = \"R32_UINT\"\n\
         [[draw.render_target]]\nformat = \"{format}\"\nwidth = {w}\nheight = {h}\nsamples = {samples}\n",
        v.len(),
        words.join(", ")
    )
}

/// A triangle covering the whole viewport, every vertex with rate `rate`.
fn full(rate: u32) -> [([f32; 4], u32); 3] {
    [
        ([-1.0, -1.0, 0.5, 1.0], rate),
        ([-1.0, 3.0, 0.5, 1.0], rate),
        ([3.0, -1.0, 0.5, 1.0], rate),
    ]
}

fn texel(t: &Texture, x: u32, y: u32, s: u32) -> [u32; 4] {
    let a = t.texel_addr(0, 0, [x, y, 0], s).unwrap();
    let n = t.desc().format.bytes_per_texel() as usize;
    let mut b = vec![0u8; n];
    assert!(t.memory().read_bytes(a, &mut b));
    let mut w = [0u32; 4];
    for (i, c) in b.chunks_exact(4).enumerate() {
        w[i] = u32::from_le_bytes(c.try_into().unwrap());
    }
    w
}

/// `PS_INFO`'s four floats at pixel `(x, y)`.
fn info(t: &Texture, x: u32, y: u32) -> [f32; 4] {
    texel(t, x, y, 0).map(f32::from_bits)
}

/// VRS "Attribute Interpolation" (Center: "SV_Position is always interpolated at center
/// of the coarse pixel region") and "Screen-space Derivatives": a full-screen draw at
/// 2X2 gives every pixel of each 2×2 block its block's centre (2i + 1, 2j + 1), reads
/// `SV_ShadingRate` = 5 (`D3D12_SHADING_RATE_2X2`), and `ddx` of x across coarse
/// pixels is 2; at 4X4 the centres are (4i + 2, 4j + 2) and `ddx` is 4.
#[test]
fn coarse_pixels_take_their_centre_and_derivatives_span_them() {
    for (name, size, value) in [("2X2", 2u32, 5.0f32), ("4X4", 4, 10.0)] {
        let r = run(
            &format!("centres_{name}"),
            PS_INFO,
            &draw(
                &full(0),
                &format!("shading_rate = \"{name}\""),
                "R32G32B32A32_FLOAT",
                (8, 8, 1),
            ),
        );
        let t = &r.targets[0].view.texture;
        for y in 0..8 {
            for x in 0..8 {
                let c = |v: u32| (v / size * size) as f32 + size as f32 / 2.0;
                assert_eq!(
                    info(t, x, y),
                    [c(x), c(y), value, size as f32],
                    "{name} ({x}, {y})"
                );
            }
        }
        assert_eq!(r.summary.draw.pixels_shaded, 64 / u64::from(size * size));
    }
}

/// VRS "New model": one invocation per coarse pixel. A 16×16 target drawn whole counts
/// W·H / (w·h) invocations in a UAV counter for each of the seven rates (16×16 is a
/// multiple of every coarse size, so no coarse pixel is cut).
#[test]
fn one_invocation_per_coarse_pixel_at_every_rate() {
    for (name, area) in [
        ("1X1", 1u32),
        ("1X2", 2),
        ("2X1", 2),
        ("2X2", 4),
        ("2X4", 8),
        ("4X2", 8),
        ("4X4", 16),
    ] {
        let job = format!("count_{name}");
        let r = run(
            &job,
            PS_COUNT,
            &format!(
                "{}{COUNTER}",
                draw(
                    &full(0),
                    &format!("shading_rate = \"{name}\""),
                    "R8G8B8A8_UNORM",
                    (16, 16, 1)
                )
            ),
        );
        assert_eq!(counted(&job), 256 / area, "{name}");
        assert_eq!(r.summary.draw.pixels_shaded, u64::from(256 / area));
        // Every pixel is written, whatever the rate (outputs broadcast to fine pixels).
        let t = &r.targets[0].view.texture;
        for y in 0..16 {
            for x in 0..16 {
                assert_eq!(texel(t, x, y, 0)[0], u32::MAX, "{name} ({x}, {y})");
            }
        }
    }
}

/// VRS "List of combiners", combiner 1 (the image): with the draw's rate 2X1 and an
/// image of 1X2 everywhere, PASSTHROUGH gives 2X1 (4), OVERRIDE 1X2 (1), MIN 1X1 (0:
/// per axis, the spec's own example), MAX 2X2 (5), SUM 2X2 (5); SUM of 2X1 and 2X2 is
/// 4X2 (9). Read back through `SV_ShadingRate`.
#[test]
fn every_combiner_works_per_axis() {
    for (combiner, base, image, want) in [
        ("PASSTHROUGH", "2X1", "1X2", 4.0f32),
        ("OVERRIDE", "2X1", "1X2", 1.0),
        ("MIN", "2X1", "1X2", 0.0),
        ("MAX", "2X1", "1X2", 5.0),
        ("SUM", "2X1", "1X2", 5.0),
        ("SUM", "2X1", "2X2", 9.0),
    ] {
        let name = format!("combiner_{combiner}_{image}");
        let r = run(
            &name,
            PS_INFO,
            &draw(
                &full(0),
                &format!(
                    "shading_rate = \"{base}\"\nshading_rate_combiners = [\"PASSTHROUGH\", \"{combiner}\"]\n\
                     shading_rate_image = {{ width = 1, height = 1, rates = [\"{image}\"] }}"
                ),
                "R32G32B32A32_FLOAT",
                (16, 16, 1),
            ),
        );
        let t = &r.targets[0].view.texture;
        for (x, y) in [(0, 0), (15, 15), (7, 9)] {
            assert_eq!(info(t, x, y)[2], want, "{name} ({x}, {y})");
        }
    }
}

/// VRS "Per-Primitive Attribute" and "Combining Shading Rate Factors" (combiner 0): the
/// rate is the provoking vertex's `SV_ShadingRate` (the first vertex of each triangle,
/// whatever the others say), combined with the draw's 1X1 by OVERRIDE; PASSTHROUGH
/// keeps the draw's rate, MAX takes the coarser per axis. The left half's triangle
/// leads with 2X2 (the others 4X4), the right half's with 1X1 (the others 4X4).
#[test]
fn the_provoking_vertex_gives_the_primitive_rate() {
    // Two triangles, each a half of the 16×16 target, as clip-space rectangles' halves
    // are not needed: each triangle covers its half's pixel centres whole.
    let tri = |x0: f32, x1: f32, lead: u32| {
        [
            ([x0, 1.0, 0.5, 1.0], lead),
            ([x1, 1.0, 0.5, 1.0], 10),
            ([x0, -3.0, 0.5, 1.0], 10),
            ([x1, 1.0, 0.5, 1.0], lead),
            ([x1, -3.0, 0.5, 1.0], 10),
            ([x0, -3.0, 0.5, 1.0], 10),
        ]
    };
    let mut v: Vec<([f32; 4], u32)> = tri(-1.0, 0.0, 5).to_vec();
    v.extend(tri(0.0, 1.0, 0));
    for (combiner, left, right) in [
        ("OVERRIDE", 5.0f32, 0.0f32),
        ("PASSTHROUGH", 4.0, 4.0),
        ("MAX", 5.0, 4.0),
    ] {
        let name = format!("provoking_{combiner}");
        let r = run(
            &name,
            PS_INFO,
            &draw(
                &v,
                &format!(
                    "shading_rate = \"{}\"\nshading_rate_combiners = [\"{combiner}\", \"PASSTHROUGH\"]",
                    if combiner == "OVERRIDE" { "1X1" } else { "2X1" }
                ),
                "R32G32B32A32_FLOAT",
                (16, 16, 1),
            ),
        );
        let t = &r.targets[0].view.texture;
        for y in 0..16 {
            assert_eq!(info(t, 3, y)[2], left, "{name} left ({y})");
            assert_eq!(info(t, 12, y)[2], right, "{name} right ({y})");
        }
    }
}

/// VRS "Screen Space Image": texel (x / 16, y / 16) holds the rate of pixel (x, y), and
/// a read past the image's extent gives 1X1. A 48×32 target with a 2×2 image [1X1, 2X2;
/// 4X4, 2X1] and OVERRIDE: each 16×16 tile shades at its texel's rate (its coarse
/// centres follow), and the third column of tiles, past the image, at 1X1.
#[test]
fn the_image_gives_each_tile_its_rate() {
    let r = run(
        "image",
        PS_INFO,
        &draw(
            &full(0),
            "shading_rate_combiners = [\"PASSTHROUGH\", \"OVERRIDE\"]\n\
             shading_rate_image = { width = 2, height = 2, rates = [\"1X1\", \"2X2\", \"4X4\", \"2X1\"] }",
            "R32G32B32A32_FLOAT",
            (48, 32, 1),
        ),
    );
    let t = &r.targets[0].view.texture;
    for y in 0..32u32 {
        for x in 0..48u32 {
            let (w, h, value) = match (x / 16, y / 16) {
                (0, 0) => (1, 1, 0.0),
                (1, 0) => (2, 2, 5.0),
                (0, 1) => (4, 4, 10.0),
                (1, 1) => (2, 1, 4.0),
                _ => (1, 1, 0.0),
            };
            let c = |v: u32, s: u32| (v / s * s) as f32 + s as f32 / 2.0;
            let got = info(t, x, y);
            assert_eq!(&got[..3], &[c(x, w), c(y, h), value], "({x}, {y})");
        }
    }
    // 256 + 64 + 16 + 128 + 2 × 256 (the tiles past the image).
    assert_eq!(r.summary.draw.pixels_shaded, 256 + 64 + 16 + 128 + 512);
}

/// VRS "New model" (the table of coarse sizes per sample count) and "Combining Shading
/// Rate Factors" (sanitizing): on a 4× target 4X4 becomes 2X2 (no coarse pixel over 16
/// samples), on 8× 2X2 becomes 2X1 (dxlane's tie rule), on 2× 4X4 becomes 2X4 and 4X2
/// becomes 2X2 (no 4X2 at 2×). Counted per coarse pixel on a 16×16 target.
#[test]
fn msaa_reduces_the_coarse_size() {
    for (samples, rate, area) in [
        (4u32, "4X4", 4u32),
        (8, "2X2", 2),
        (2, "4X4", 8),
        (2, "4X2", 4),
        (4, "2X2", 4),
    ] {
        let job = format!("msaa_{samples}_{rate}");
        run(
            &job,
            PS_COUNT,
            &format!(
                "{}{COUNTER}",
                draw(
                    &full(0),
                    &format!("shading_rate = \"{rate}\""),
                    "R8G8B8A8_UNORM",
                    (16, 16, samples)
                )
            ),
        );
        assert_eq!(counted(&job), 256 / area, "{samples}× {rate}");
    }
}

/// VRS "Ordering and Format of Bits in the Coverage Mask" and "SV_Coverage": a coarse
/// pixel's coverage holds its fine pixels row-major, each its samples. The triangle
/// (0, 0), (7.25, 0), (0, 7.25) covers the pixels with x + y ≤ 6; at 2X2 a block with
/// 2i + 2j = 6 covers only its top-left pixel (0b0001) and one with 2i + 2j ≤ 4 all four
/// (0b1111). Only covered fine pixels are written (the rest keep the clear value 7). On
/// a 4× target a whole 2X2 block covers 16 samples: 0xffff.
#[test]
fn coarse_coverage_packs_fine_pixels_and_only_covered_ones_are_written() {
    let e = 7.25 / 4.0 - 1.0;
    let tri = [
        ([-1.0, 1.0, 0.5, 1.0], 0),
        ([e, 1.0, 0.5, 1.0], 0),
        ([-1.0, -e, 0.5, 1.0], 0),
    ];
    let r = run(
        "coverage_1x",
        PS_COVERAGE,
        &format!(
            "{}clear = [7, 0, 0, 0]\n",
            draw(&tri, "shading_rate = \"2X2\"", "R32_UINT", (8, 8, 1))
        ),
    );
    let t = &r.targets[0].view.texture;
    for y in 0..8u32 {
        for x in 0..8u32 {
            let block = x / 2 * 2 + y / 2 * 2;
            let want = match (x + y <= 6, block) {
                (false, _) => 7,
                (true, 6) => 0b0001,
                (true, _) => 0b1111,
            };
            assert_eq!(texel(t, x, y, 0)[0], want, "({x}, {y})");
        }
    }
    let r = run(
        "coverage_4x",
        PS_COVERAGE,
        &draw(&full(0), "shading_rate = \"2X2\"", "R32_UINT", (8, 8, 4)),
    );
    let t = &r.targets[0].view.texture;
    for s in 0..4 {
        assert_eq!(texel(t, 5, 2, s)[0], 0xffff, "sample {s}");
    }
}

/// VRS "Sample-based execution" and "Export of Depth and Stencil": a program reading
/// `SV_SampleIndex` runs per sample of each fine pixel (4 × 256 on a 4× 16×16 target at
/// 2X2), and one writing `SV_Depth` shades fine (256).
#[test]
fn sample_frequency_and_depth_output_force_fine_shading() {
    let per_sample = PS_COUNT
        .replace("io_words in 0 out 4", "io_words in 4 out 4\ninput \"SV_SampleIndex\" 0 sv sample_index reg 0 rows 1 mask x uint interp constant slot 0");
    run(
        "forced_sample",
        &per_sample,
        &format!(
            "{}{COUNTER}",
            draw(
                &full(0),
                "shading_rate = \"2X2\"",
                "R8G8B8A8_UNORM",
                (16, 16, 4)
            )
        ),
    );
    assert_eq!(counted("forced_sample"), 1024);
    let depth = PS_COUNT
        .replace("io_words in 0 out 4", "io_words in 0 out 5\noutput \"SV_Depth\" 0 sv depth reg none rows 1 mask x float interp undefined slot 4")
        .replace("    return", "    output 4, r0\n    return");
    run(
        "forced_depth",
        &depth,
        &format!(
            "{}[draw.depth_stencil]\nformat = \"D32_FLOAT\"\ndepth_func = \"ALWAYS\"\n{COUNTER}",
            draw(
                &full(0),
                "shading_rate = \"2X2\"",
                "R8G8B8A8_UNORM",
                (16, 16, 1)
            )
        ),
    );
    assert_eq!(counted("forced_depth"), 256);
}

/// VRS "Discard": discarding drops the whole coarse pixel. At 4X4 a program discarding
/// where its `SV_Position.x` (the coarse centre) is below 4 leaves columns 0–3 at the
/// clear value and writes every other pixel.
#[test]
fn discard_drops_the_whole_coarse_pixel() {
    let ps = r#"shader pixel
regs 4
const r0 = 0x40800000
const r1 = 0x3f800000
io_words in 4 out 4
input "SV_Position" 0 sv position reg 0 rows 1 mask xy float interp noperspective slot 0
output "SV_Target" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    input r2, 0
    fcmp lt, r3, r2, r0
    discard r3
    output 0, r1
    output 1, r1
    output 2, r1
    output 3, r1
    return
"#;
    let r = run(
        "discard",
        ps,
        &draw(
            &full(0),
            "shading_rate = \"4X4\"",
            "R8G8B8A8_UNORM",
            (16, 8, 1),
        ),
    );
    let t = &r.targets[0].view.texture;
    for y in 0..8 {
        for x in 0..16 {
            let want = if x < 4 { 0 } else { u32::MAX };
            assert_eq!(texel(t, x, y, 0)[0], want, "({x}, {y})");
        }
    }
}

/// Coarse quads are formed and ordered the same for any worker count: a draw mixing
/// rates from an image and a UAV counter gives the same target and count on 1 and 4
/// workers.
#[test]
fn coarse_shading_does_not_depend_on_the_worker_count() {
    let rest = format!(
        "{}{COUNTER}",
        draw(
            &full(0),
            "shading_rate = \"2X1\"\nshading_rate_combiners = [\"PASSTHROUGH\", \"MAX\"]\n\
             shading_rate_image = { width = 9, height = 5, rates = [\"4X4\", \"1X1\", \"1X2\", \"2X4\", \"4X2\", \"2X2\", \"1X1\", \"4X4\", \"1X2\"] }",
            "R8G8B8A8_UNORM",
            (130, 70, 1),
        )
    );
    let mut seen = Vec::new();
    for threads in [1, 4] {
        let name = format!("workers_{threads}");
        let r = try_run(&name, PS_COUNT, &rest, threads).unwrap();
        seen.push((r.targets[0].view.texture.to_bytes(), counted(&name)));
    }
    assert_eq!(seen[0], seen[1]);
}

/// The keys' refusals, each naming the key and the value: a rate or combiner that is
/// not D3D12's, an image byte that is no `D3D12_SHADING_RATE` (naming the texel), an
/// image without a size.
#[test]
fn bad_shading_rate_keys_are_refused() {
    for (name, keys, want) in [
        (
            "bad_rate",
            "shading_rate = \"3X3\"",
            "`shading_rate` = \"3X3\"",
        ),
        (
            "bad_combiner",
            "shading_rate_combiners = [\"MIN\", \"AVERAGE\"]",
            "`shading_rate_combiners` #2 = \"AVERAGE\"",
        ),
        (
            "bad_texel",
            "shading_rate = \"2X2\"\nshading_rate_image = { width = 2, height = 1, data = { hex = \"05 03\" } }",
            "texel (1, 0) holds 3",
        ),
        (
            "bad_image_name",
            "shading_rate_image = { width = 1, height = 1, rates = [\"4X1\"] }",
            "`shading_rate_image.rates`: #1 = \"4X1\"",
        ),
        (
            "no_size",
            "shading_rate_image = { rates = [\"2X2\"] }",
            "`shading_rate_image.width`",
        ),
    ] {
        let e = try_run(
            name,
            PS_INFO,
            &draw(&full(0), keys, "R32G32B32A32_FLOAT", (32, 16, 1)),
            1,
        )
        .map(|_| ())
        .expect_err(name);
        assert!(e.contains(want), "{name}: {e}");
    }
}

/// VRS "Format, layout, resource properties": a rate image that is not R8_UINT, or not
/// a single-mip 2D texture, is refused by the pipeline, naming the shading-rate state.
#[test]
fn the_pipeline_refuses_an_image_of_another_format() {
    use dxlane::ir::parse_shader;
    use dxlane::pipeline::vrs::{ShadingRate, ShadingRateState};
    use dxlane::pipeline::{Bindings, DrawArgs, DrawOptions, DrawState, RenderTargetView, draw};
    use dxlane::resources::format::Format;
    use dxlane::resources::texture::TextureDesc;
    // A vertex program without inputs (no input layout to fill).
    let vs = parse_shader(
        "shader vertex\nregs 1\nconst r0 = 0\nio_words in 0 out 4\noutput \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0\nblock0:\n    output 0, r0\n    output 1, r0\n    output 2, r0\n    output 3, r0\n    return\n",
    )
    .unwrap();
    let ps = parse_shader(PS_INFO).unwrap();
    let none = Bindings::default();
    let rt = Texture::new(TextureDesc::tex2d(Format::R32G32B32A32_FLOAT, 16, 16)).unwrap();
    for (format, mips) in [(Format::R8G8B8A8_UINT, 1), (Format::R8_UINT, 2)] {
        let mut s = DrawState::new(&vs, Some(&ps), &none, &none);
        s.render_targets = vec![Some(RenderTargetView {
            texture: rt.clone(),
        })];
        let mut desc = TextureDesc::tex2d(format, 4, 4);
        desc.mips = mips;
        s.shading_rate = ShadingRateState {
            rate: ShadingRate::X2X2,
            image: Some(Texture::new(desc).unwrap()),
            ..ShadingRateState::default()
        };
        let args = DrawArgs {
            vertex_count: 3,
            ..DrawArgs::default()
        };
        let e = draw(&s, &args, &DrawOptions::default())
            .expect_err("refused")
            .to_string();
        assert!(e.contains("shading-rate"), "{e}");
        assert!(
            e.contains(if mips == 1 { "R8_UINT" } else { "one mip" }),
            "{e}"
        );
    }
}

/// A command list's draw takes `shading_rate_image = { resource }`, a named R8_UINT
/// texture that the commands before wrote (VRS "Screen Space Image": "Write the data
/// using a compute shader"): a dispatch stores 4X4 (10) into texel 1 of an image that
/// starts as [2X2, 1X1]; the draw after it, with OVERRIDE, shades the left 16×16 tile at
/// 2X2 and the right one at 4X4. The single-draw forms are refused in a list.
#[test]
fn a_list_draw_reads_the_image_a_dispatch_wrote() {
    use dxlane::job::{Finished, prepare};
    let dir = common::scratch().join("vrs").join("list");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("vs.ir"), VS).unwrap();
    std::fs::write(dir.join("ps.ir"), PS_INFO).unwrap();
    std::fs::write(
        dir.join("cs.ir"),
        "shader compute
group [1 1 1]
const r0 = 0
const r1 = 1
const r2 = 10
resource range0 = uav space 0 lower 0 count 1 texture2d uint \"rates\"
block0:
    handle r3, range0, r0
    typed_store r3, [r1 r0 _], _, [r2 r2 r2 r2], 15
    return
",
    )
    .unwrap();
    let verts: Vec<String> = full(0)
        .iter()
        .flat_map(|(p, r)| {
            p.iter()
                .map(|x| x.to_bits())
                .chain([*r])
                .collect::<Vec<_>>()
        })
        .map(|w| w.to_string())
        .collect();
    let list = |image: &str| {
        format!(
            "[[resource]]\nname = \"verts\"\nkind = \"raw_buffer\"\nsize = 60\ndata = {{ u32 = [{}] }}\n\
             [[resource]]\nname = \"rates\"\nkind = \"texture2d\"\nformat = \"R8_UINT\"\nwidth = 2\nheight = 1\ndata = {{ hex = \"05 00\" }}\n\
             [[resource]]\nname = \"color\"\nkind = \"texture2d\"\nformat = \"R32G32B32A32_FLOAT\"\nwidth = 32\nheight = 16\n\
             [[command]]\ntype = \"dispatch\"\ncs = \"cs.ir\"\ngroups = [1, 1, 1]\nbind = [{{ reg = \"u0\", resource = \"rates\" }}]\n\
             [[command]]\ntype = \"draw\"\nvs = \"vs.ir\"\nps = \"ps.ir\"\nvertex_count = 3\n\
             vertex_buffers = [{{ slot = 0, resource = \"verts\", stride = 20 }}]\n\
             input_element = [{{ semantic = \"POSITION\", format = \"R32G32B32A32_FLOAT\" }}, {{ semantic = \"RATE\", format = \"R32_UINT\" }}]\n\
             render_targets = [{{ resource = \"color\" }}]\n\
             shading_rate_combiners = [\"PASSTHROUGH\", \"OVERRIDE\"]\nshading_rate_image = {image}\n",
            verts.join(", ")
        )
    };
    let run = |text: String| {
        std::fs::write(dir.join("job.toml"), text).unwrap();
        let job = Job::load(&dir.join("job.toml")).map_err(|e| e.to_string())?;
        let opts = common::run_options();
        prepare(job, &opts)
            .and_then(|p| p.execute(&opts))
            .map_err(|e| e.to_string())
    };
    let r = match run(list("{ resource = \"rates\" }")) {
        Ok(Finished::List(r)) => r,
        Ok(_) => panic!("not a list"),
        Err(e) => panic!("{e}"),
    };
    let color = r
        .bound
        .resources
        .iter()
        .find(|e| e.name.contains("color"))
        .unwrap()
        .contents()
        .unwrap();
    let at = |x: usize, y: usize| -> [f32; 4] {
        let o = 16 * (32 * y + x);
        std::array::from_fn(|i| {
            f32::from_le_bytes(color[o + 4 * i..o + 4 * i + 4].try_into().unwrap())
        })
    };
    assert_eq!(at(3, 2), [3.0, 3.0, 5.0, 2.0]);
    assert_eq!(at(21, 6), [22.0, 6.0, 10.0, 4.0]);
    let e = run(list("{ width = 1, height = 1, rates = [\"2X2\"] }"))
        .map(|_| ())
        .expect_err("refused");
    assert!(e.contains("`shading_rate_image`: in a command list"), "{e}");
}

/// VRS "SV_Coverage" (output): a coverage the program writes is read in the coarse
/// layout. At 2X2 on a one-sample target, writing 0b0110 keeps fine pixels 1 and 2 of
/// each coarse pixel (top-right and bottom-left); the other two keep the clear value.
#[test]
fn a_coverage_output_selects_fine_pixels() {
    let ps = r#"shader pixel
regs 5
const r0 = 0
const r1 = 1
const r2 = 0x3f800000
const r3 = 6
io_words in 0 out 5
resource range0 = uav space 0 lower 0 count 1 raw_buffer uint "count"
output "SV_Target" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0
output "SV_Coverage" 0 sv coverage reg none rows 1 mask x uint interp undefined slot 4
block0:
    handle r4, range0, r0
    res_atomic add, _, r4, [r0 _ _], r1
    output 0, r2
    output 1, r2
    output 2, r2
    output 3, r2
    output 4, r3
    return
"#;
    let r = run(
        "coverage_output",
        ps,
        &format!(
            "{}{COUNTER}",
            draw(
                &full(0),
                "shading_rate = \"2X2\"",
                "R8G8B8A8_UNORM",
                (8, 8, 1)
            )
        ),
    );
    assert_eq!(counted("coverage_output"), 16);
    let t = &r.targets[0].view.texture;
    for y in 0..8 {
        for x in 0..8 {
            let want = if (x % 2) != (y % 2) { u32::MAX } else { 0 };
            assert_eq!(texel(t, x, y, 0)[0], want, "({x}, {y})");
        }
    }
}

/// VRS "Conservative Rasterization": "fine pixels within coarse pixels are
/// conservatively rasterized by being given full coverage", and "Coverage": the
/// coverage input holds full masks for fine pixels that are covered, 0 for the others.
/// The triangle (0, 0), (7.25, 0), (0, 7.25) touches the pixels with x + y ≤ 7 (tier 1:
/// a pixel the triangle meets is covered); at 2X2 a block whose top-left pixel has
/// x + y = b ≤ 4 has all four fine pixels (0b1111), b = 6 all but the bottom-right one
/// (x + y = 8): 0b0111. Only covered fine pixels are written (the rest keep 7).
#[test]
fn conservative_coarse_pixels_cover_each_touched_fine_pixel() {
    let e = 7.25 / 4.0 - 1.0;
    let tri = [
        ([-1.0, 1.0, 0.5, 1.0], 0),
        ([e, 1.0, 0.5, 1.0], 0),
        ([-1.0, -e, 0.5, 1.0], 0),
    ];
    let r = run(
        "conservative_coverage",
        PS_COVERAGE,
        &format!(
            "{}clear = [7, 0, 0, 0]\n[draw.rasterizer]\ncull = \"NONE\"\nconservative = true\n",
            draw(&tri, "shading_rate = \"2X2\"", "R32_UINT", (8, 8, 1))
        ),
    );
    let t = &r.targets[0].view.texture;
    for y in 0..8u32 {
        for x in 0..8u32 {
            let block = x / 2 * 2 + y / 2 * 2;
            let want = match (x + y <= 7, block) {
                (false, _) => 7,
                (true, 6) => 0b0111,
                (true, _) => 0b1111,
            };
            assert_eq!(texel(t, x, y, 0)[0], want, "({x}, {y})");
        }
    }
}

/// `SV_InnerCoverage` of a coarse pixel: the VRS specification is silent, and the
/// semantic means "the pixel is guaranteed to be fully covered"; the pixel a coarse lane
/// shades is its whole rectangle, so dxlane reports it inner-covered when the rectangle
/// lies wholly inside the triangle. With the triangle above at 2X2, block (2i, 2j) is
/// inside when its far corner (2i + 2, 2j + 2) is, 2i + 2j + 4 ≤ 7.25: blocks with
/// b = 2i + 2j ≤ 2 read 0xffffffff; b = 4 reads 0, though its top-left fine pixel alone
/// (far corner sum b + 2 = 6) is inside.
#[test]
fn a_coarse_pixel_is_inner_covered_only_when_wholly_inside() {
    let ps = PS_COVERAGE.replace(
        "\"SV_Coverage\" 0 sv coverage",
        "\"SV_InnerCoverage\" 0 sv inner_coverage",
    );
    let e = 7.25 / 4.0 - 1.0;
    let tri = [
        ([-1.0, 1.0, 0.5, 1.0], 0),
        ([e, 1.0, 0.5, 1.0], 0),
        ([-1.0, -e, 0.5, 1.0], 0),
    ];
    let r = run(
        "inner_coverage_coarse",
        &ps,
        &format!(
            "{}clear = [7, 0, 0, 0]\n[draw.rasterizer]\ncull = \"NONE\"\nconservative = true\n",
            draw(&tri, "shading_rate = \"2X2\"", "R32_UINT", (8, 8, 1))
        ),
    );
    let t = &r.targets[0].view.texture;
    for (x, y, want) in [
        (0, 0, u32::MAX),
        (1, 1, u32::MAX),
        (2, 0, u32::MAX),
        (0, 2, u32::MAX),
        (4, 0, 0),
        (2, 2, 0),
        (0, 4, 0),
        (6, 0, 0),
    ] {
        assert_eq!(texel(t, x, y, 0)[0], want, "({x}, {y})");
    }
}

/// VRS "Target Independent Rasterization": "TIR is not supported when coarse pixel
/// shading is used" — a draw whose shading-rate state can shade coarsely, with a
/// forced sample count, is refused naming `shading_rate` and the rule.
#[test]
fn forced_sample_count_with_coarse_shading_is_refused() {
    let e = try_run(
        "tir_coarse",
        PS_INFO,
        &format!(
            "{}[draw.rasterizer]\nforced_sample_count = 4\n",
            draw(
                &full(0),
                "shading_rate = \"2X2\"",
                "R32G32B32A32_FLOAT",
                (16, 16, 1)
            )
        ),
        1,
    )
    .map(|_| ())
    .expect_err("TIR with 2X2 ran");
    assert!(
        e.contains("shading_rate") && e.contains("ForcedSampleCount 4"),
        "{e}"
    );
}
