//! The line algorithms D3D's rasterizer state selects (D3D11.3 §15.14.1 "Line State":
//! `MultisampleEnable` true draws quadrilateral lines, `MultisampleEnable` false with
//! `AntialiasedLineEnable` true alpha-antialiased lines, both false aliased lines, for
//! any sample count), and a forced sample count with a one-sample render target
//! (§3.5.6.2), through whole draw jobs with the covered pixels and samples worked out by
//! hand.
//!
//! The standard 4× pattern (§19.2.4) puts samples 0–3 at (−2, −6), (6, −2), (−6, 2),
//! (2, 6) sixteenths of a pixel from the centre. A quadrilateral line (§3.4.5) is the
//! rectangle 1.4 pixels wide whose short sides are centred on its ends; its corners
//! snap to 1/256 pixel, so half its width is 179/256 (0.69922) along an axis and
//! 127/256 along each axis of a 45° line. Samples on its edges follow the top-left rule
//! (§3.4.2.1).
//!
//! `D3D12_RASTERIZER_DESC2`'s `LineRasterizationMode` names the same modes and adds
//! `QUADRILATERAL_NARROW`, the quadrilateral line 1.0 pixel wide (half width 128/256).
//!
//! The D3D12 peer cannot check these: vkd3d 1.2 ignores `MultisampleEnable` and draws
//! Vulkan's lines on lavapipe (`tests/all/d3d12_peer.rs` refuses line modes other than
//! aliased, and aliased lines there follow Vulkan's rules, not the diamond rule).

use std::collections::BTreeMap;

use dxlane::job::DrawResult;

use super::common;
use super::raster_states::{
    PS_COVERAGE_UAV, PS_ONE, SIZE, add, counting_target, counts, draw, run, word,
};

/// Runs `v` as a line list (or `topology`) with rasterizer `keys` into `target`.
fn lines(
    name: &str,
    ps: &str,
    topology: &str,
    v: &[[f32; 2]],
    keys: &str,
    target: &str,
) -> DrawResult {
    run(
        name,
        ps,
        &draw(
            v,
            &format!("topology = \"{topology}\""),
            &format!("[draw.rasterizer]\ncull = \"NONE\"\n{keys}\n{target}"),
        ),
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"))
}

/// Per pixel, the mask of the samples of a 4-sample counting target that were drawn
/// (each once: a count of 2 fails).
fn sample_masks(r: &DrawResult) -> BTreeMap<(u32, u32), u32> {
    let mut m = BTreeMap::new();
    for s in 0..4 {
        for ((x, y), n) in counts(r, s) {
            assert_eq!(n, 1, "({x}, {y}) sample {s} drawn {n} times");
            *m.entry((x, y)).or_insert(0) |= 1 << s;
        }
    }
    m
}

/// D3D11.3 §3.4.5 and §15.14.1 at one sample: a horizontal quadrilateral line along
/// y = 4 from x = 2.5 to 10.5 is the rectangle y ∈ [3.30078, 4.69922], x ∈ [2.5, 10.5];
/// the pixel centres inside are rows 3 and 4 of columns 2–9 (x = 2.5 lies on the left
/// edge, which owns it; 10.5 on the right edge, which does not): 16 pixels. An aliased
/// line there (§3.4.3) passes the bottom corners of row 3's diamonds and the excluded
/// top corners of row 4's: row 3 only, 8 pixels.
#[test]
fn quadrilateral_line_one_sample_covers_the_rectangle() {
    let v = [[2.5, 4.0], [10.5, 4.0]];
    let quad = lines(
        "quad_h1",
        PS_ONE,
        "line_list",
        &v,
        "multisample = true",
        &counting_target(1),
    );
    let mut want = BTreeMap::new();
    add(&mut want, (2..=9).flat_map(|x| [(x, 3), (x, 4)]));
    assert_eq!(counts(&quad, 0), want);
    // `AntialiasedLineEnable` does not matter once `MultisampleEnable` is true.
    let both = lines(
        "quad_h1_aa",
        PS_ONE,
        "line_list",
        &v,
        "multisample = true\nantialiased_line = true",
        &counting_target(1),
    );
    assert_eq!(counts(&both, 0), want);
    let aliased = lines(
        "aliased_h1",
        PS_ONE,
        "line_list",
        &v,
        "",
        &counting_target(1),
    );
    let mut row3 = BTreeMap::new();
    add(&mut row3, (2..=9).map(|x| (x, 3)));
    assert_eq!(counts(&aliased, 0), row3);
}

/// §3.4.5 at 4×, horizontal: the line along y = 4 from x = 2 to 6 covers y ∈ [3.30078,
/// 4.69922]. Row 3's samples lie at y = 3.125, 3.375, 3.625, 3.875 (samples 0–3): 1, 2
/// and 3 are inside (0b1110); row 4's at 4.125, 4.375, 4.625, 4.875: 0, 1 and 2
/// (0b0111). Every sample x of columns 2–5 lies in [2, 6]; none of columns 1 or 6 do.
/// The aliased line would cover row 3, every sample.
#[test]
fn quadrilateral_line_4x_horizontal_samples() {
    let v = [[2.0, 4.0], [6.0, 4.0]];
    let r = lines(
        "quad_h4",
        PS_ONE,
        "line_list",
        &v,
        "multisample = true",
        &counting_target(4),
    );
    let want: BTreeMap<_, _> = (2..=5)
        .flat_map(|x| [((x, 3), 0b1110), ((x, 4), 0b0111)])
        .collect();
    assert_eq!(sample_masks(&r), want);
}

/// §3.4.5 at 4×, vertical: the line along x = 4 from y = 2 to 6 covers x ∈ [3.30078,
/// 4.69922]. Column 3's samples lie at x = 3.375, 3.875, 3.125, 3.625: all but sample 2
/// (0b1011); column 4's at 4.375, 4.875, 4.125, 4.625: all but sample 1 (0b1101); rows
/// 2–5.
#[test]
fn quadrilateral_line_4x_vertical_samples() {
    let v = [[4.0, 2.0], [4.0, 6.0]];
    let r = lines(
        "quad_v4",
        PS_ONE,
        "line_list",
        &v,
        "multisample = true",
        &counting_target(4),
    );
    let want: BTreeMap<_, _> = (2..=5)
        .flat_map(|y| [((3, y), 0b1011), ((4, y), 0b1101)])
        .collect();
    assert_eq!(sample_masks(&r), want);
}

/// §3.4.5 at 4×, diagonal, with `SV_Coverage` (§3.5.4: the pixel program runs once per
/// pixel with the samples the primitive covers). The line from (1.5, 1.5) to (6.5, 6.5)
/// has corners offset by (∓127, ±127)/256, so a sample (x, y) is inside when
/// |x − y| < 0.99219 and 3 ≤ x + y ≤ 13. For pixel (i, j) the samples' x − y is
/// i − j + 0.25, 0.5, −0.5, −0.25 and x + y is i + j + 1 − 0.5, + 0.25, − 0.25, + 0.5.
/// So: the diagonal pixels (2, 2)–(5, 5) all four samples, (1, 1) samples 1 and 3,
/// (6, 6) samples 0 and 2; the pixels right of it (j + 1, j) for j = 1–5 samples 2 and
/// 3; those below it (i, i + 1) for i = 1–5 samples 0 and 1. An aliased line covers
/// (1, 1)–(5, 5) with every sample.
#[test]
fn quadrilateral_line_4x_diagonal_coverage() {
    let v = [[1.5, 1.5], [6.5, 6.5]];
    let mut want = BTreeMap::new();
    want.insert((1, 1), 0b1010);
    want.insert((6, 6), 0b0101);
    for k in 2..=5 {
        want.insert((k, k), 0b1111);
    }
    for j in 1..=5 {
        want.insert((j + 1, j), 0b1100);
        want.insert((j, j + 1), 0b0011);
    }
    let r = lines(
        "quad_d4",
        PS_ONE,
        "line_list",
        &v,
        "multisample = true",
        &counting_target(4),
    );
    assert_eq!(sample_masks(&r), want);
    assert_eq!(r.summary.draw.pixels_shaded, 16, "one invocation per pixel");
    // The same line writing its SV_Coverage into a UAV at 16·y + x.
    let uav = "[[resource]]\nreg = \"u0\"\nkind = \"typed_buffer\"\nformat = \"R32_UINT\"\nsize = 1024\noutput = \"u0.bin\"\n";
    let name = "quad_d4_coverage";
    run(
        name,
        PS_COVERAGE_UAV,
        &format!(
            "{uav}{}",
            draw(
                &v,
                "topology = \"line_list\"",
                &format!(
                    "[draw.rasterizer]\nmultisample = true\n{}",
                    counting_target(4)
                )
            )
        ),
    )
    .unwrap();
    let bytes = std::fs::read(
        common::scratch()
            .join("raster_states")
            .join(name)
            .join("u0.bin"),
    )
    .unwrap();
    let got: BTreeMap<(u32, u32), u32> = (0..SIZE * SIZE)
        .filter_map(|i| {
            let b = 4 * i as usize;
            let m = u32::from_le_bytes(bytes[b..b + 4].try_into().unwrap());
            (m != 0).then_some(((i % SIZE, i / SIZE), m))
        })
        .collect();
    assert_eq!(got, want);
}

/// `D3D12_LINE_RASTERIZATION_MODE_QUADRILATERAL_NARROW` (`D3D12_RASTERIZER_DESC2`,
/// D3D12 options 19): the quadrilateral line of §3.4.5 with width 1.0 instead of
/// `QUADRILATERAL_WIDE`'s 1.4, so its corners lie 128/256 from the segment along an axis.
/// At one sample, the horizontal line along y = 4.1 from x = 2.5 to 10.5 is y ∈ [3.6,
/// 4.6] narrow (row 4's centres, y = 4.5, only) and y ∈ [3.4, 4.8] wide (rows 3 and 4),
/// columns 2–9 both (x = 2.5 on the left edge, which owns it; 10.5 on the right, which
/// does not). Along y = 4 the narrow rectangle's edges pass through the centres of rows
/// 3 and 4: the top edge owns row 3's, the bottom edge not row 4's (the top-left rule,
/// §3.4.2.1), so row 3 alone. `quadrilateral_wide` draws what `multisample = true`
/// draws.
#[test]
fn narrow_quadrilateral_line_one_sample_is_one_pixel_wide() {
    let v = [[2.5, 4.1], [10.5, 4.1]];
    let narrow = lines(
        "narrow_h1",
        PS_ONE,
        "line_list",
        &v,
        "line_rasterization = \"quadrilateral_narrow\"",
        &counting_target(1),
    );
    let mut row4 = BTreeMap::new();
    add(&mut row4, (2..=9).map(|x| (x, 4)));
    assert_eq!(counts(&narrow, 0), row4);
    let mut rows34 = BTreeMap::new();
    add(&mut rows34, (2..=9).flat_map(|x| [(x, 3), (x, 4)]));
    for (name, keys) in [
        ("wide_h1", "line_rasterization = \"quadrilateral_wide\""),
        ("wide_h1_bool", "multisample = true"),
    ] {
        let wide = lines(name, PS_ONE, "line_list", &v, keys, &counting_target(1));
        assert_eq!(counts(&wide, 0), rows34, "{keys}");
    }
    let on_centres = lines(
        "narrow_h1_ties",
        PS_ONE,
        "line_list",
        &[[2.5, 4.0], [10.5, 4.0]],
        "line_rasterization = \"quadrilateral_narrow\"",
        &counting_target(1),
    );
    let mut row3 = BTreeMap::new();
    add(&mut row3, (2..=9).map(|x| (x, 3)));
    assert_eq!(counts(&on_centres, 0), row3);
}

/// `QUADRILATERAL_NARROW` at 4×, per sample like the wide mode (§3.4.5, §3.5.4.1: the
/// samples inside the rectangle are covered, whatever the sample count). Horizontal
/// along y = 4 from x = 2 to 6: y ∈ [3.5, 4.5]. Row 3's samples at y = 3.125, 3.375,
/// 3.625, 3.875: 2 and 3 inside (0b1100, against the wide line's 0b1110); row 4's at
/// 4.125, 4.375, 4.625, 4.875: 0 and 1 (0b0011, wide 0b0111). Diagonal from (1.5, 1.5)
/// to (6.5, 6.5): the corners lie (∓90.51, ±90.51)/256 off the ends, snapped to ∓91 and
/// ±91 (§3.4.1), so a sample is inside when |x − y| < 182/256 (0.71094) and
/// 3 ≤ x + y ≤ 13. A pixel's samples have x − y = i − j + 0.25, 0.5, −0.5, −0.25: on
/// the diagonal all four, right of it (i − j = 1) sample 2 alone (0.5; the wide line
/// also takes sample 3 at 0.75), below it sample 1 alone; the ends as for the wide line
/// ((1, 1) samples 1 and 3, (6, 6) samples 0 and 2). One invocation per covered pixel,
/// with those samples in `SV_Coverage`.
#[test]
fn narrow_quadrilateral_line_4x_samples() {
    let h = lines(
        "narrow_h4",
        PS_ONE,
        "line_list",
        &[[2.0, 4.0], [6.0, 4.0]],
        "line_rasterization = \"quadrilateral_narrow\"",
        &counting_target(4),
    );
    let want: BTreeMap<_, _> = (2..=5)
        .flat_map(|x| [((x, 3), 0b1100), ((x, 4), 0b0011)])
        .collect();
    assert_eq!(sample_masks(&h), want);

    let v = [[1.5, 1.5], [6.5, 6.5]];
    let mut want = BTreeMap::new();
    want.insert((1, 1), 0b1010);
    want.insert((6, 6), 0b0101);
    for k in 2..=5 {
        want.insert((k, k), 0b1111);
    }
    for j in 1..=5 {
        want.insert((j + 1, j), 0b0100);
        want.insert((j, j + 1), 0b0010);
    }
    let d = lines(
        "narrow_d4",
        PS_ONE,
        "line_list",
        &v,
        "line_rasterization = \"quadrilateral_narrow\"",
        &counting_target(4),
    );
    assert_eq!(sample_masks(&d), want);
    assert_eq!(d.summary.draw.pixels_shaded, 16, "one invocation per pixel");
    let uav = "[[resource]]\nreg = \"u0\"\nkind = \"typed_buffer\"\nformat = \"R32_UINT\"\nsize = 1024\noutput = \"u0.bin\"\n";
    let name = "narrow_d4_coverage";
    run(
        name,
        PS_COVERAGE_UAV,
        &format!(
            "{uav}{}",
            draw(
                &v,
                "topology = \"line_list\"",
                &format!(
                    "[draw.rasterizer]\nline_rasterization = \"quadrilateral_narrow\"\n{}",
                    counting_target(4)
                )
            )
        ),
    )
    .unwrap();
    let bytes = std::fs::read(
        common::scratch()
            .join("raster_states")
            .join(name)
            .join("u0.bin"),
    )
    .unwrap();
    let got: BTreeMap<(u32, u32), u32> = (0..SIZE * SIZE)
        .filter_map(|i| {
            let b = 4 * i as usize;
            let m = u32::from_le_bytes(bytes[b..b + 4].try_into().unwrap());
            (m != 0).then_some(((i % SIZE, i / SIZE), m))
        })
        .collect();
    assert_eq!(got, want);
}

/// The two other `D3D12_LINE_RASTERIZATION_MODE`s name what the booleans choose
/// (§15.14.1's table): `aliased` the diamond rule (row 3 of the line along y = 4),
/// `alpha_antialiased` the alpha-antialiased line (pixels of both rows it touches). And
/// the refusals, naming `[draw.rasterizer]` and the keys: a mode beside `multisample` or
/// `antialiased_line` (`D3D12_RASTERIZER_DESC2` has the mode instead of them), and a
/// name that is not a mode.
#[test]
fn line_rasterization_modes_and_refusals() {
    let v = [[2.5, 4.0], [10.5, 4.0]];
    let aliased = lines(
        "mode_aliased",
        PS_ONE,
        "line_list",
        &v,
        "line_rasterization = \"aliased\"",
        &counting_target(1),
    );
    let mut row3 = BTreeMap::new();
    add(&mut row3, (2..=9).map(|x| (x, 3)));
    assert_eq!(counts(&aliased, 0), row3);
    let by_mode = lines(
        "mode_aa",
        PS_ONE,
        "line_list",
        &v,
        "line_rasterization = \"alpha_antialiased\"",
        &counting_target(1),
    );
    let by_bool = lines(
        "mode_aa_bool",
        PS_ONE,
        "line_list",
        &v,
        "antialiased_line = true",
        &counting_target(1),
    );
    assert_eq!(counts(&by_mode, 0), counts(&by_bool, 0));
    assert!(
        counts(&by_mode, 0).len() > row3.len(),
        "the alpha-antialiased line reaches row 4"
    );
    for (name, keys, words) in [
        (
            "mode_and_bool",
            "line_rasterization = \"quadrilateral_narrow\"\nmultisample = true",
            &["[draw.rasterizer]", "`line_rasterization`", "`multisample`"][..],
        ),
        (
            "mode_and_aa",
            "line_rasterization = \"aliased\"\nantialiased_line = false",
            &["`antialiased_line`", "LineRasterizationMode"][..],
        ),
        (
            "mode_unknown",
            "line_rasterization = \"narrow\"",
            &["\"narrow\"", "quadrilateral_narrow"][..],
        ),
    ] {
        let e = run(
            name,
            PS_ONE,
            &draw(
                &v,
                "topology = \"line_list\"",
                &format!("[draw.rasterizer]\n{keys}\n{}", counting_target(1)),
            ),
        )
        .expect_err(name);
        for w in words {
            assert!(e.contains(w), "{name}: {e}");
        }
    }
}

/// Joins of a line strip (§3.4.4–3.4.5: "no accounting for connected line segments";
/// §8 line strips are lines between consecutive vertices): the strip (2.5, 4),
/// (8, 4), (8, 10.5) at one sample draws its two rectangles independently. The first
/// covers rows 3–4 of columns 2–7; the second, x ∈ [7.30078, 8.69922], covers columns
/// 7–8 of rows 4–9 (the centre y = 10.5 lies on its bottom edge, which does not own it).
/// Pixel (7, 4) lies in both and is drawn twice (additive blending counts 2); the outer
/// corner (8, 3) in neither. The same vertices as a list of the two segments draw the
/// same.
#[test]
fn quadrilateral_line_strip_joins_overlap() {
    let mut want = BTreeMap::new();
    add(&mut want, (2..=7).flat_map(|x| [(x, 3), (x, 4)]));
    add(&mut want, (4..=9).flat_map(|y| [(7, y), (8, y)]));
    assert_eq!(want[&(7, 4)], 2);
    assert!(!want.contains_key(&(8, 3)));
    let strip = lines(
        "quad_strip",
        PS_ONE,
        "line_strip",
        &[[2.5, 4.0], [8.0, 4.0], [8.0, 10.5]],
        "multisample = true",
        &counting_target(1),
    );
    assert_eq!(counts(&strip, 0), want);
    let list = lines(
        "quad_strip_as_list",
        PS_ONE,
        "line_list",
        &[[2.5, 4.0], [8.0, 4.0], [8.0, 4.0], [8.0, 10.5]],
        "multisample = true",
        &counting_target(1),
    );
    assert_eq!(counts(&list, 0), want);
}

/// The four channels of texel `(x, y)` of an `R32G32B32A32_FLOAT` target.
fn rgba(r: &DrawResult, x: u32, y: u32) -> [f32; 4] {
    let t = &r.targets[0].view.texture;
    let a = t.texel_addr(0, 0, [x, y, 0], 0).unwrap();
    let mut b = [0u8; 16];
    assert!(t.memory().read_bytes(a, &mut b));
    std::array::from_fn(|i| f32::from_le_bytes(b[4 * i..4 * i + 4].try_into().unwrap()))
}

/// §3.4.4 (alpha-antialiased lines: a rectangle 1 pixel wide, ends on the vertices, its
/// coverage of each pixel multiplied into `o0.a` before the output merger) with
/// dxlane's exact-area coverage: the line along y = 4.25 from x = 2.25 to 5.75 covers
/// y ∈ [3.75, 4.75]. The pixel program writes (1, 1, 1, 1) with no blending: columns
/// 3–4 of row 4 take alpha 0.75 and of row 3 (the pixels next to the line) 0.25; the
/// end columns 2 and 5 take three quarters of that (0.5625, 0.1875). Colour stays 1;
/// rows 2 and 5 are not drawn. The aliased line would draw row 4 with alpha 1.
#[test]
fn alpha_antialiased_line_scales_alpha_by_coverage() {
    let target = format!(
        "[[draw.render_target]]\nformat = \"R32G32B32A32_FLOAT\"\nwidth = {SIZE}\nheight = {SIZE}\nclear = [0, 0, 0, 0]\n"
    );
    let r = lines(
        "aa_line",
        PS_ONE,
        "line_list",
        &[[2.25, 4.25], [5.75, 4.25]],
        "antialiased_line = true",
        &target,
    );
    let mut got = BTreeMap::new();
    for y in 0..SIZE {
        for x in 0..SIZE {
            let c = rgba(&r, x, y);
            if c != [0.0; 4] {
                assert_eq!(&c[..3], &[1.0; 3], "({x}, {y})");
                got.insert((x, y), c[3]);
            }
        }
    }
    let want: BTreeMap<(u32, u32), f32> = [
        ((2, 3), 0.1875),
        ((3, 3), 0.25),
        ((4, 3), 0.25),
        ((5, 3), 0.1875),
        ((2, 4), 0.5625),
        ((3, 4), 0.75),
        ((4, 4), 0.75),
        ((5, 4), 0.5625),
    ]
    .into_iter()
    .collect();
    assert_eq!(got, want);
    // §15.14.1: on a 4-sample target every sample of a drawn pixel takes the same
    // coverage alpha.
    let r4 = lines(
        "aa_line_4x",
        PS_ONE,
        "line_list",
        &[[2.25, 4.25], [5.75, 4.25]],
        "antialiased_line = true",
        &target.replace("clear =", "samples = 4\nclear ="),
    );
    let t = &r4.targets[0].view.texture;
    for s in 0..4 {
        let a = t.texel_addr(0, 0, [2, 3, 0], s).unwrap() + 12;
        let mut b = [0u8; 4];
        assert!(t.memory().read_bytes(a, &mut b));
        assert_eq!(f32::from_le_bytes(b), 0.1875, "sample {s}");
    }
}

/// A pixel program writing its `SV_Coverage` into a UAV at `16·y + x` and 1.0 to its
/// target.
const PS_COVERAGE_UAV_AND_TARGET: &str = r#"shader pixel
regs 8
const r0 = 0
const r1 = 16
const r2 = 0x3f800000
io_words in 8 out 4
resource range0 = uav space 0 lower 0 count 1 typed_buffer uint "u"
input "SV_Position" 0 sv position reg 0 rows 1 mask xyzw float interp noperspective slot 0
input "SV_Coverage" 0 sv coverage reg 1 rows 1 mask x uint interp constant slot 4
output "SV_Target" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    input r3, 0
    input r4, 1
    ftou r3, r3
    ftou r4, r4
    imad r5, r4, r1, r3
    input r6, 4
    handle r7, range0, r0
    typed_store r7, [r5 _ _], _, [r6 r6 r6 r6], 15
    output 0, r2
    output 1, r2
    output 2, r2
    output 3, r2
    return
"#;

/// §3.5.6.2, a forced sample count of 4 with a one-sample render target: coverage comes
/// from the standard 4× pattern, the pixel program runs once per pixel covering any of
/// its samples and sees that coverage in `SV_Coverage`, and the target's one sample is
/// written wherever it runs. The triangle whose right edge runs down x = 4.5 (rows 0–3):
/// columns 1–3 read 0b1111 and column 4 0b0101 (samples 0 and 2 lie left of x = 4.5);
/// the target counts 1 in columns 1–4, including column 4, whose centre (on the right
/// edge) a one-sample draw leaves out, and 0 in column 5. With the sample mask clearing the target's one sample,
/// nothing runs. A forced count of 1 into a 4-sample target writes every sample of the
/// pixels whose centre is covered. A pixel program running per sample is refused
/// (undefined there).
#[test]
fn forced_sample_count_with_a_one_sample_target() {
    let v = [[0.0, 0.0], [4.5, 0.0], [4.5, 64.0]];
    let uav = "[[resource]]\nreg = \"u0\"\nkind = \"typed_buffer\"\nformat = \"R32_UINT\"\nsize = 1024\noutput = \"u0.bin\"\n";
    let job = |name: &str, ps: &str, keys: &str| {
        run(
            name,
            ps,
            &format!(
                "{uav}{}",
                draw(
                    &v,
                    keys,
                    &format!(
                        "[draw.rasterizer]\ncull = \"NONE\"\nforced_sample_count = 4\n{}",
                        counting_target(1)
                    )
                )
            ),
        )
    };
    let r = job("forced_rt1", PS_COVERAGE_UAV_AND_TARGET, "").unwrap();
    let bytes = std::fs::read(
        common::scratch()
            .join("raster_states")
            .join("forced_rt1")
            .join("u0.bin"),
    )
    .unwrap();
    let w = |x: u32, y: u32| {
        let i = 4 * (SIZE * y + x) as usize;
        u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap())
    };
    let target = counts(&r, 0);
    for y in 0..4 {
        for x in 1..4 {
            assert_eq!(w(x, y), 0b1111, "({x}, {y})");
            assert_eq!(target.get(&(x, y)), Some(&1), "({x}, {y})");
        }
        assert_eq!(w(4, y), 0b0101, "(4, {y})");
        assert_eq!(target.get(&(4, y)), Some(&1), "(4, {y})");
        assert_eq!(w(5, y), 0, "(5, {y})");
        assert_eq!(target.get(&(5, y)), None, "(5, {y})");
    }
    assert_eq!(word(&r.targets[0].view.texture, 4, 0, 0), 1f32.to_bits());
    // The sample mask without the target's sample: no invocation.
    let masked = job(
        "forced_rt1_masked",
        PS_COVERAGE_UAV_AND_TARGET,
        "sample_mask = 0xfffffffe",
    )
    .unwrap();
    assert!(counts(&masked, 0).is_empty());
    assert_eq!(masked.summary.draw.pixels_shaded, 0);
    // A forced count of 1 takes a target of any sample count (§3.5.6.2) and writes all
    // of its samples where the centre is covered: column 3 every sample, column 4 (its
    // centre on the right edge) none — where a 4× draw covers samples 0 and 2.
    let one = |name: &str, forced: &str| {
        run(
            name,
            PS_ONE,
            &draw(
                &v,
                "",
                &format!(
                    "[draw.rasterizer]\ncull = \"NONE\"\n{forced}\n{}",
                    counting_target(4)
                ),
            ),
        )
        .unwrap()
    };
    let forced1 = one("forced1_rt4", "forced_sample_count = 1");
    let normal = one("forced0_rt4", "");
    for s in 0..4 {
        let (f, n) = (counts(&forced1, s), counts(&normal, s));
        for y in 0..4 {
            assert_eq!(f.get(&(3, y)), Some(&1), "forced (3, {y}) sample {s}");
            assert_eq!(f.get(&(4, y)), None, "forced (4, {y}) sample {s}");
            let want = (s % 2 == 0).then_some(&1);
            assert_eq!(n.get(&(4, y)), want, "4× (4, {y}) sample {s}");
        }
    }
    let per_sample = PS_COVERAGE_UAV_AND_TARGET.replace(
        "io_words in 8 out 4",
        "io_words in 12 out 4\ninput \"SV_SampleIndex\" 0 sv sample_index reg 2 rows 1 mask x uint interp constant slot 8",
    );
    let e = job("forced_rt1_per_sample", &per_sample, "")
        .err()
        .unwrap_or_else(|| panic!("a per-sample program with a forced count ran"));
    assert!(
        e.contains("[draw.rasterizer]") && e.contains("runs per sample"),
        "{e}"
    );
}
