//! One test per tessellator rule, each naming its source. The expected points and
//! triangles of the small patches were worked out by hand by following the reference
//! tessellator's algorithm (`tessellator.cpp`, linked from D3D11.3 §11.7.1) step by step;
//! each test shows the working.

use super::*;
use proptest::prelude::*;

fn desc(
    domain: Domain,
    partitioning: Partitioning,
    output_primitive: OutputPrimitive,
) -> TessellatorDesc {
    TessellatorDesc {
        domain,
        partitioning,
        output_primitive,
    }
}

fn run(d: Domain, p: Partitioning, o: OutputPrimitive, f: TessFactors) -> Tessellation {
    tessellate(&desc(d, p, o), &f).unwrap()
}

/// A 16.16 value as the `f32` the tessellator must give for it.
fn fx(x: u32) -> f32 {
    x as f32 / 65536.0
}

fn pts(list: &[(u32, u32)]) -> Vec<[f32; 2]> {
    list.iter().map(|&(u, v)| [fx(u), fx(v)]).collect()
}

fn bits(points: &[[f32; 2]]) -> Vec<[u32; 2]> {
    points.iter().map(|p| p.map(f32::to_bits)).collect()
}

/// Twice the signed area of a triangle in (u, v): positive is clockwise in the domain
/// (V is clockwise from U, D3D11.3 §11.5).
fn cross(points: &[[f32; 2]], t: &[u32]) -> f64 {
    let p = |i: usize| points[t[i] as usize].map(f64::from);
    let (a, b, c) = (p(0), p(1), p(2));
    (b[0] - a[0]) * (c[1] - a[1]) - (b[1] - a[1]) * (c[0] - a[0])
}

// ----- fixed point ---------------------------------------------------------------------

/// D3D11.3 §3.2.4.1 (float → fixed, as the reference's `floatToIDotF<15,16,false>`):
/// written here from the specification's description at the bit level — keep the 24-bit
/// significand, shift it to 16 fraction bits rounding to nearest even, NaN and negatives
/// to 0, 2¹⁵ and above saturated — to check the f64 shortcut in `to_fixed`.
fn to_fixed_bitwise(x: f32) -> u32 {
    let b = x.to_bits();
    let exp = ((b >> 23) & 0xff) as i32 - 127;
    let mantissa = b & 0x7f_ffff;
    if exp == 128 && mantissa != 0 {
        return 0;
    }
    if b >> 31 != 0 {
        return 0;
    }
    if b >= (127 + 15) << 23 {
        return u32::MAX;
    }
    if exp < -17 {
        return 0;
    }
    let sig = u64::from(mantissa | 0x80_0000);
    let extra = 23 - 16 - exp; // bits to drop, ≥ 1 for everything below 2¹⁵
    if extra <= 0 {
        return (sig << -extra) as u32;
    }
    let keep = sig >> extra;
    let rest = sig & ((1 << extra) - 1);
    let half = 1u64 << (extra - 1);
    let up = rest > half || (rest == half && keep & 1 == 1);
    (keep + u64::from(up)) as u32
}

#[test]
fn fixed_point_conversion_rounds_to_nearest_even() {
    // §3.2.4.1 / §11.7.14: factors become 16.16 with round-to-nearest-even.
    assert_eq!(to_fixed(1.0), 0x1_0000);
    assert_eq!(to_fixed(2.5), 0x2_8000);
    // 3.7f32 = 3.70000005 → 242483.2 → 242483.
    assert_eq!(to_fixed(3.7), 0x3_B333);
    // 1 + 2⁻¹⁷ is exactly half-way: ties go to the even 0x10000.
    assert_eq!(to_fixed(1.0 + 1.0 / 131072.0), 0x1_0000);
    // 1 + 3·2⁻¹⁷ is 0x10001.8: rounds up, and the tie at 0x10001.5 would go to 0x10002 too.
    assert_eq!(to_fixed(1.0 + 3.0 / 131072.0), 0x1_0002);
    assert_eq!(to_fixed(2.0f32.powi(-17)), 0);
    assert_eq!(to_fixed(3.0 * 2.0f32.powi(-17)), 2);
    assert_eq!(to_fixed(f32::NAN), 0);
    assert_eq!(to_fixed(-1.0), 0);
    assert_eq!(to_fixed(-0.0), 0);
    assert_eq!(to_fixed(1e-30), 0);
    assert_eq!(to_fixed(32768.0), u32::MAX);
    assert_eq!(to_fixed(f32::INFINITY), u32::MAX);
    assert_eq!(to_fixed(64.0), 0x40_0000);
    // Every 4099th bit pattern, both signs, against the bit-level statement of the rule.
    let mut checked = 0;
    for b in (0..=u32::MAX).step_by(4099) {
        let x = f32::from_bits(b);
        assert_eq!(to_fixed(x), to_fixed_bitwise(x), "{x:e} ({b:#010x})");
        checked += 1;
    }
    assert!(checked > 1_000_000);
}

#[test]
fn fixed_point_to_float_is_exact() {
    // §11.7.14: the last step converts to f32; every 16.16 value up to 2 is exact.
    for x in 0..=0x2_0000u32 {
        assert_eq!(to_float(x), x as f32 / 65536.0);
        assert_eq!(f64::from(to_float(x)) * 65536.0, f64::from(x));
    }
}

#[test]
fn reciprocals_are_the_reference_table() {
    // The reference's s_fixedReciprocal: round(2¹⁶ / n), a few entries transcribed.
    let expected = [
        (1, 0x10000),
        (2, 0x8000),
        (3, 0x5555),
        (5, 0x3333),
        (6, 0x2aab),
        (7, 0x2492),
        (9, 0x1c72),
        (10, 0x199a),
        (11, 0x1746),
        (13, 0x13b1),
        (33, 0x7c2),
        (61, 0x432),
        (62, 0x421),
        (63, 0x410),
        (64, 0x400),
    ];
    for (n, r) in expected {
        assert_eq!(RECIPROCALS[n], r, "1/{n}");
    }
    for n in 1..=64u32 {
        let err = i64::from(RECIPROCALS[n as usize] * n) - 65536;
        assert!(err.unsigned_abs() <= u64::from(n / 2), "1/{n}");
    }
}

#[test]
fn ruler_function_is_the_reference_split_order() {
    // §11.7.5 "Which Vertices to Split": the reference's finalPointPositionTable,
    // transcribed: when (in points on the half edge) each position first holds a point.
    let reference = [
        0, 32, 16, 8, 17, 4, 18, 9, 19, 2, 20, 10, 21, 5, 22, 11, 23, 1, 24, 12, 25, 6, 26, 13, 27,
        3, 28, 14, 29, 7, 30, 15, 31,
    ];
    assert_eq!(RULER, reference);
    // Each count of points adds exactly one position.
    let mut seen = RULER.to_vec();
    seen.sort_unstable();
    assert_eq!(seen, (0..=32).collect::<Vec<u32>>());
}

// ----- 1-D placement ---------------------------------------------------------------------

fn positions(factor: f32, parity: Parity) -> Vec<u32> {
    let s = Spacing::new(to_fixed(factor), parity);
    (0..s.points).map(|p| s.place(p)).collect()
}

#[test]
fn integer_factors_space_points_evenly() {
    // §11.7.7: integer factors give uniform segments (1/3 = 0x5555 truncated; the mirror
    // half is 1 − that, §11.7.13).
    assert_eq!(positions(1.0, Parity::Odd), [0, 0x10000]);
    assert_eq!(positions(2.0, Parity::Even), [0, 0x8000, 0x10000]);
    assert_eq!(positions(3.0, Parity::Odd), [0, 0x5555, 0xaaab, 0x10000]);
    assert_eq!(
        positions(4.0, Parity::Even),
        [0, 0x4000, 0x8000, 0xc000, 0x10000]
    );
}

#[test]
fn fractional_odd_splits_points_from_the_middle_at_2_5() {
    // §11.7.3.1, §11.7.4: 2.5 is three quarters of the way from 1 to 3 segments.
    // Reference by hand: half = (0x28000 + 1)/2 + ½ = 1.75; floor 1, ceil 2, fraction ¾;
    // split point 0 (floor half is 1); segments 1 and 3 (1/3 = 0x5555). Point 1 sits at
    // 0 on the floor count and 0x5555 on the ceiling: 0x5555·0xc000 + ½ >> 16 = 0x4000.
    assert_eq!(positions(2.5, Parity::Odd), [0, 0x4000, 0xc000, 0x10000]);
}

#[test]
fn fractional_odd_splits_at_the_ruler_point_at_3_7() {
    // §11.7.5: between 3 and 5 segments the new pair of points splits off at position 2
    // (split point 1 = RemoveMSB(2 − 1)·2 + 1). Reference by hand: fixed 0x3b333, half
    // 0x2599a, fraction 0x599a, segments 3 (0x5555) and 5 (0x3333).
    //   point 1: floor index 1, ceil index 1:
    //            (0x5555·0xa666 + 0x3333·0x599a + 0x8000) >> 16 = 18787 = 0x4963
    //   point 2: floor index 1 (past the split), ceil index 2:
    //            (0x5555·0xa666 + 0x6666·0x599a + 0x8000) >> 16 = 23374 = 0x5b4e
    //   points 3, 4 mirror 2, 1: 0x10000 − 0x5b4e = 0xa4b2, 0x10000 − 0x4963 = 0xb69d.
    assert_eq!(
        positions(3.7, Parity::Odd),
        [0, 0x4963, 0x5b4e, 0xa4b2, 0xb69d, 0x10000]
    );
}

#[test]
fn fractional_even_starts_at_two_segments() {
    // §11.7.3.2: even counts, 2 at least; 2.5 has 4 segments with the new pair near the
    // middle, moving out as the factor grows.
    assert_eq!(positions(2.0, Parity::Even), [0, 0x8000, 0x10000]);
    let p = positions(2.5, Parity::Even);
    assert_eq!(p.len(), 5);
    assert_eq!(p[2], 0x8000);
    assert!(p[1] > 0x6000 && p[1] < 0x8000, "{:#x}", p[1]);
    let q = positions(3.5, Parity::Even);
    assert!(
        q[1] < p[1],
        "the pair moves out: {:#x} then {:#x}",
        p[1],
        q[1]
    );
}

#[test]
fn edges_are_symmetric_and_clean() {
    // §11.7.13: the points of an edge are symmetric about its middle with clean
    // complements (1 − u on one side is exactly u on the other), for every factor.
    // Every sixteenth of a factor over the clamped ranges: [1, 64] even, [1, 63] odd.
    for (parity, top) in [(Parity::Even, 64.0), (Parity::Odd, 63.0)] {
        for step in 0..=(63 * 16) {
            let f = 1.0 + step as f32 / 16.0;
            if f > top {
                continue;
            }
            let s = Spacing::new(to_fixed(f), parity);
            let n = s.points;
            assert!(n <= 65, "{f} {parity}: {n} points");
            for i in 0..n {
                let (a, b) = (s.place(i), s.place(n - 1 - i));
                assert_eq!(a + b, 0x10000, "{f} {parity}: points {i} and {}", n - 1 - i);
                if i + 1 < n {
                    assert!(s.place(i + 1) >= a, "{f} {parity}: not monotonic at {i}");
                }
            }
        }
    }
}

// ----- factor processing -----------------------------------------------------------------

fn used(t: &Tessellation, role: FactorRole) -> FactorUse {
    *t.factors.iter().find(|u| u.role == role).unwrap()
}

#[test]
fn integer_and_pow2_clamp_half_to_one() {
    // §11.7.11.2: integer (and pow2, which hardware treats as integer) clamp to [1, 64]:
    // 0.5 → 1, and a quad of ones is its corners only.
    for p in [Partitioning::Integer, Partitioning::Pow2] {
        let t = run(
            Domain::Quad,
            p,
            OutputPrimitive::TriangleCw,
            TessFactors::quad([0.5; 4], [0.5; 2]),
        );
        assert_eq!(used(&t, FactorRole::EdgeU0).value, 1.0);
        assert_eq!(used(&t, FactorRole::InsideV).value, 1.0);
        assert_eq!(t.outcome, Outcome::Minimal);
        assert_eq!(t.points.len(), 4);
    }
}

#[test]
fn fractional_even_clamps_to_two() {
    // §11.7.11.2: fractional_even's range is [2, 64]: ones become twos, so a quad of ones
    // is exactly the integer quad of twos.
    let even = run(
        Domain::Quad,
        Partitioning::FractionalEven,
        OutputPrimitive::TriangleCw,
        TessFactors::quad([1.0; 4], [1.0; 2]),
    );
    let twos = run(
        Domain::Quad,
        Partitioning::Integer,
        OutputPrimitive::TriangleCw,
        TessFactors::quad([2.0; 4], [2.0; 2]),
    );
    assert_eq!(even.outcome, Outcome::Tessellated);
    assert_eq!(bits(&even.points), bits(&twos.points));
    assert_eq!(even.indices, twos.indices);
}

#[test]
fn factors_clamp_at_the_top_of_their_range() {
    // §11.7.11.2: 64 for integer, pow2 and fractional_even, 63 for fractional_odd; +∞
    // and huge values clamp (they are > 0, so they do not cull).
    for (p, top) in [
        (Partitioning::Integer, 64.0),
        (Partitioning::Pow2, 64.0),
        (Partitioning::FractionalEven, 64.0),
        (Partitioning::FractionalOdd, 63.0),
    ] {
        let t = run(
            Domain::Tri,
            p,
            OutputPrimitive::Point,
            TessFactors::tri([100.0, f32::INFINITY, 64.5], 1e30),
        );
        for role in [
            FactorRole::EdgeU0,
            FactorRole::EdgeV0,
            FactorRole::EdgeW0,
            FactorRole::Inside,
        ] {
            assert_eq!(used(&t, role).value, top, "{p} {role}");
        }
    }
}

#[test]
fn integer_rounds_up_after_clamping() {
    // §11.7.7: "HW then rounds each edge TF and inside TF up to next integer" — just
    // above 2 is 3, and the patch is the integer-3 patch.
    let above = f32::from_bits(2.0f32.to_bits() + 1);
    let t = run(
        Domain::Tri,
        Partitioning::Integer,
        OutputPrimitive::TriangleCw,
        TessFactors::tri([above; 3], above),
    );
    assert_eq!(used(&t, FactorRole::EdgeU0).value, 3.0);
    assert_eq!(used(&t, FactorRole::EdgeU0).parity, Parity::Odd);
    let three = run(
        Domain::Tri,
        Partitioning::Integer,
        OutputPrimitive::TriangleCw,
        TessFactors::tri([3.0; 3], 3.0),
    );
    assert_eq!(bits(&t.points), bits(&three.points));
    assert_eq!(t.indices, three.indices);
}

#[test]
fn pow2_is_integer_to_the_hardware() {
    // §11.7.7.1, §11.7.10: rounding to powers of two is HLSL code in the hull program; the
    // tessellator treats pow2 exactly as integer (3 stays 3, not 4).
    for f in [
        TessFactors::quad([3.0, 5.0, 1.5, 7.2], [3.0, 6.5]),
        TessFactors::quad([64.0; 4], [3.0; 2]),
    ] {
        let a = run(
            Domain::Quad,
            Partitioning::Pow2,
            OutputPrimitive::TriangleCcw,
            f,
        );
        let b = run(
            Domain::Quad,
            Partitioning::Integer,
            OutputPrimitive::TriangleCcw,
            f,
        );
        assert_eq!(bits(&a.points), bits(&b.points));
        assert_eq!(a.indices, b.indices);
    }
}

#[test]
fn nan_negative_and_denormal_inside_factors_take_the_lower_bound() {
    // §11.7.11.3: "the above clamps map NaN to lowerBound based on D3D/IEEE754R min/max
    // rules"; denormals flush to zero in those rules.
    for bad in [
        f32::NAN,
        -3.0,
        -0.0,
        0.0,
        f32::NEG_INFINITY,
        f32::from_bits(1),
    ] {
        for (p, lo) in [
            (Partitioning::Integer, 1.0),
            (Partitioning::FractionalEven, 2.0),
            (Partitioning::FractionalOdd, 1.0),
        ] {
            let t = run(
                Domain::Quad,
                p,
                OutputPrimitive::Point,
                TessFactors::quad([1.0; 4], [bad; 2]),
            );
            assert_eq!(
                t.outcome,
                if p == Partitioning::FractionalEven {
                    Outcome::Tessellated
                } else {
                    Outcome::Minimal
                }
            );
            assert_eq!(used(&t, FactorRole::InsideU).value, lo, "{bad} {p}");
        }
    }
}

#[test]
fn edges_at_or_below_zero_or_nan_cull_the_patch() {
    // §11.7.12: any edge factor ≤ 0 or NaN culls; inside factors never do.
    for bad in [
        f32::NAN,
        -1.0,
        0.0,
        -0.0,
        f32::NEG_INFINITY,
        -f32::from_bits(1),
    ] {
        for edge in 0..4 {
            let mut e = [4.0; 4];
            e[edge] = bad;
            let q = run(
                Domain::Quad,
                Partitioning::Integer,
                OutputPrimitive::TriangleCw,
                TessFactors::quad(e, [4.0; 2]),
            );
            assert_eq!(q.outcome, Outcome::Culled, "quad edge {edge} = {bad}");
            assert!(q.points.is_empty() && q.indices.is_empty() && q.factors.is_empty());
            if edge < 3 {
                let t = run(
                    Domain::Tri,
                    Partitioning::FractionalOdd,
                    OutputPrimitive::Point,
                    TessFactors::tri([e[0], e[1], e[2]], 4.0),
                );
                assert_eq!(t.outcome, Outcome::Culled, "tri edge {edge} = {bad}");
                assert!(t.points.is_empty() && t.indices.is_empty());
            }
        }
        for f in [
            TessFactors::isoline(bad, 4.0),
            TessFactors::isoline(4.0, bad),
        ] {
            let t = run(
                Domain::Isoline,
                Partitioning::Integer,
                OutputPrimitive::Line,
                f,
            );
            assert_eq!(t.outcome, Outcome::Culled, "isoline {f:?}");
        }
    }
    // A positive denormal edge is > 0: not culled, clamped up. §11.7.12 culls only ≤ 0 and
    // NaN, the reference's test `!(factor > 0)` reads the denormal as positive, and
    // §3.1.3.2 leaves flushing a denormal handed to fixed-function hardware open
    // (lavapipe flushes, and culls: docs/tessellation.md).
    let t = run(
        Domain::Tri,
        Partitioning::Integer,
        OutputPrimitive::Point,
        TessFactors::tri([f32::from_bits(1), 1.0, 1.0], f32::NAN),
    );
    assert_eq!(t.outcome, Outcome::Minimal);
}

#[test]
fn fractional_odd_inside_factors_leave_one_for_a_picture_frame() {
    // §11.7.11.3: with fractional_odd, when any edge factor (clamped) or any of a quad's
    // inside factors (unclamped) exceeds 1 + 2⁻¹⁷, the inside lower bound is 1 + 2⁻¹⁶.
    let just_above = 1.0 + 1.0 / 65536.0;
    // Quad: edges 1, insides barely above 1 → the insides become 1 + 2⁻¹⁶, not minimal.
    let q = run(
        Domain::Quad,
        Partitioning::FractionalOdd,
        OutputPrimitive::Point,
        TessFactors::quad([1.0; 4], [1.00001, 0.5]),
    );
    assert_eq!(used(&q, FactorRole::InsideV).value, just_above);
    assert_eq!(used(&q, FactorRole::InsideV).fixed, 0x1_0001);
    // Two points per axis would leave no inner ring: the inside axes get 4.
    assert_eq!(used(&q, FactorRole::InsideV).points, 4);
    assert_eq!(q.outcome, Outcome::Tessellated);
    // Tri: only the edges count, so an inside factor just above 1 keeps its value (it
    // would have been raised to 1 + 2⁻¹⁶ on a quad; both are 0x10001 in fixed point)…
    let t = run(
        Domain::Tri,
        Partitioning::FractionalOdd,
        OutputPrimitive::Point,
        TessFactors::tri([1.0; 3], 1.00001),
    );
    assert_eq!(used(&t, FactorRole::Inside).value, 1.00001);
    assert_eq!(used(&t, FactorRole::Inside).fixed, 0x1_0001);
    let t = run(
        Domain::Tri,
        Partitioning::FractionalOdd,
        OutputPrimitive::Point,
        TessFactors::tri([1.0; 3], 0.25),
    );
    assert_eq!(used(&t, FactorRole::Inside).value, 1.0);
    assert_eq!(t.outcome, Outcome::Minimal);
    // …but an edge above 1 does.
    let t = run(
        Domain::Tri,
        Partitioning::FractionalOdd,
        OutputPrimitive::Point,
        TessFactors::tri([1.5, 1.0, 1.0], 0.25),
    );
    assert_eq!(used(&t, FactorRole::Inside).value, just_above);
    // 1 + 2⁻¹⁷ itself is not above: still minimal (it rounds to 1 in fixed point).
    let half = 1.0 + 1.0 / 131072.0;
    let q = run(
        Domain::Quad,
        Partitioning::FractionalOdd,
        OutputPrimitive::Point,
        TessFactors::quad([half; 4], [half; 2]),
    );
    assert_eq!(q.outcome, Outcome::Minimal);
}

#[test]
fn integer_inside_factor_of_one_counts_as_even() {
    // Reference `QuadProcessTessFactors`/`TriProcessTessFactors`: an integer inside factor
    // of 1 takes even parity (a middle point, degenerate transitions); edges keep their own.
    let t = run(
        Domain::Quad,
        Partitioning::Integer,
        OutputPrimitive::Point,
        TessFactors::quad([3.0, 1.0, 2.0, 1.0], [1.0, 1.0]),
    );
    assert_eq!(used(&t, FactorRole::InsideU).parity, Parity::Even);
    assert_eq!(used(&t, FactorRole::InsideU).points, 3);
    assert_eq!(used(&t, FactorRole::EdgeV0).parity, Parity::Odd);
    // The single middle point closes the point list.
    assert_eq!(t.points.last(), Some(&[0.5, 0.5]));
}

// ----- whole patches, worked by hand ---------------------------------------------------

#[test]
fn quad_integer_2_by_hand() {
    // Every factor 2 (even): each edge has points 0, ½, 1. The outer ring starts at (0, 1)
    // and goes down U=0, along V=0, up U=1, back along V=1, each edge without its last
    // point; the inside (3 points per axis, even) collapses to the middle point (½, ½).
    // Each side is stitched with the transition: outer row 3 points, inner row 1 point,
    // half counts 1 and 1 → advance outer, (no ruler positions), advance outer.
    let t = run(
        Domain::Quad,
        Partitioning::Integer,
        OutputPrimitive::TriangleCw,
        TessFactors::quad([2.0; 4], [2.0; 2]),
    );
    let h = 0x8000;
    let one = 0x10000;
    assert_eq!(
        bits(&t.points),
        bits(&pts(&[
            (0, one),
            (0, h),
            (0, 0),
            (h, 0),
            (one, 0),
            (one, h),
            (one, one),
            (h, one),
            (h, h),
        ]))
    );
    assert_eq!(
        t.indices,
        [
            0, 1, 8, 1, 2, 8, 2, 3, 8, 3, 4, 8, 4, 5, 8, 5, 6, 8, 6, 7, 8, 7, 0, 8
        ]
    );
    assert_eq!(t.topology, Topology::TriangleList);
}

#[test]
fn tri_integer_3_by_hand() {
    // Every factor 3 (odd): edge points 0, 0x5555, 0xaaab, 1. Outer ring from (0, 1):
    // U=0 with V falling, V=0 with U rising, W=0 (v = 1 − u) with U falling.
    // Inside 3 → 4 points per axis → one inner ring of 3 points: its perpendicular
    // parameter is place(1)·⅔ = (0x5555·0xaaaa + 0x8000) >> 16 = 0x38e3, and each
    // parallel parameter loses (0x38e3 + 1)/2 = 0x1c72:
    //   U=0 side: (0x38e3, 0xaaab − 0x1c72 = 0x8e39)
    //   V=0 side: (0x5555 − 0x1c72 = 0x38e3, 0x38e3)
    //   W=0 side: (0x8e39, 1 − 0x8e39 − 0x38e3 = 0x38e4)
    // Stitching (half counts 1 and 1, both odd): advance outer, the middle quad, advance
    // outer, per side; then the centre triangle.
    let t = run(
        Domain::Tri,
        Partitioning::Integer,
        OutputPrimitive::TriangleCw,
        TessFactors::tri([3.0; 3], 3.0),
    );
    let one = 0x10000;
    assert_eq!(
        bits(&t.points),
        bits(&pts(&[
            (0, one),
            (0, 0xaaab),
            (0, 0x5555),
            (0, 0),
            (0x5555, 0),
            (0xaaab, 0),
            (one, 0),
            (0xaaab, 0x5555),
            (0x5555, 0xaaab),
            (0x38e3, 0x8e39),
            (0x38e3, 0x38e3),
            (0x8e39, 0x38e4),
        ]))
    );
    #[rustfmt::skip]
    let expected = [
        0, 1, 9,   9, 1, 10,   10, 1, 2,   2, 3, 10,
        3, 4, 10,  10, 4, 11,  11, 4, 5,   5, 6, 11,
        6, 7, 11,  11, 7, 9,   9, 7, 8,    8, 0, 9,
        9, 10, 11,
    ];
    assert_eq!(t.indices, expected);
    // The implied third coordinate is exact.
    assert_eq!(tri_w(t.points[11]), fx(0x10000 - 0x8e39 - 0x38e4));
}

#[test]
fn isoline_by_hand() {
    // §11.6, §11.7.8: density 2 → lines at V = 0 and ½ (never at 1); detail 3 (integer,
    // odd) → U at 0, 0x5555, 0xaaab, 1; line by line, segments as a line list.
    let t = run(
        Domain::Isoline,
        Partitioning::Integer,
        OutputPrimitive::Line,
        TessFactors::isoline(2.0, 3.0),
    );
    let us = [0, 0x5555, 0xaaab, 0x10000];
    let expected: Vec<(u32, u32)> = [0, 0x8000]
        .iter()
        .flat_map(|&v| us.map(|u| (u, v)))
        .collect();
    assert_eq!(bits(&t.points), bits(&pts(&expected)));
    assert_eq!(t.indices, [0, 1, 1, 2, 2, 3, 4, 5, 5, 6, 6, 7]);
    assert_eq!(t.topology, Topology::LineList);
    // The density is an integer factor whatever the partitioning (§11.7.10): 1.2 → 2.
    let t = run(
        Domain::Isoline,
        Partitioning::FractionalOdd,
        OutputPrimitive::Point,
        TessFactors::isoline(1.2, 2.5),
    );
    assert_eq!(used(&t, FactorRole::LineDensity).value, 2.0);
    let row: Vec<u32> = t.points[..4]
        .iter()
        .map(|p| (p[0] * 65536.0) as u32)
        .collect();
    assert_eq!(row, [0, 0x4000, 0xc000, 0x10000]);
    assert_eq!(t.points[4][1], 0.5);
    assert_eq!(t.indices, (0..8).collect::<Vec<u32>>());
}

#[test]
fn all_ones_is_the_corners() {
    // Reference bJustDoMinimumTessFactor: quad corners (0,0) (1,0) (1,1) (0,1) as
    // triangles (0,1,3) and (1,2,3); tri corners (0,1) (0,0) (1,0) as one triangle.
    let q = run(
        Domain::Quad,
        Partitioning::FractionalOdd,
        OutputPrimitive::TriangleCw,
        TessFactors::quad([1.0; 4], [1.0; 2]),
    );
    assert_eq!(q.points, [[0.0, 0.0], [1.0, 0.0], [1.0, 1.0], [0.0, 1.0]]);
    assert_eq!(q.indices, [0, 1, 3, 1, 2, 3]);
    let t = run(
        Domain::Tri,
        Partitioning::Integer,
        OutputPrimitive::TriangleCcw,
        TessFactors::tri([1.0; 3], 1.0),
    );
    assert_eq!(t.points, [[0.0, 1.0], [0.0, 0.0], [1.0, 0.0]]);
    assert_eq!(t.indices, [0, 2, 1]);
    let p = run(
        Domain::Tri,
        Partitioning::Pow2,
        OutputPrimitive::Point,
        TessFactors::tri([1.0; 3], 1.0),
    );
    assert_eq!(p.indices, [0, 1, 2]);
}

#[test]
fn ccw_reverses_every_cw_triangle() {
    // Reference DefineClockwiseTriangle: (a, b, c) becomes (a, c, b).
    let f = TessFactors::quad([3.3, 7.0, 1.0, 12.9], [4.4, 9.1]);
    for p in [
        Partitioning::Integer,
        Partitioning::FractionalOdd,
        Partitioning::FractionalEven,
    ] {
        let cw = run(Domain::Quad, p, OutputPrimitive::TriangleCw, f);
        let ccw = run(Domain::Quad, p, OutputPrimitive::TriangleCcw, f);
        assert_eq!(bits(&cw.points), bits(&ccw.points));
        for (a, b) in cw.indices.chunks(3).zip(ccw.indices.chunks(3)) {
            assert_eq!([a[0], a[2], a[1]], b);
        }
    }
}

#[test]
fn point_output_lists_every_point_once() {
    // §11.7.14: point output has only unique points within a patch, each once.
    let t = run(
        Domain::Quad,
        Partitioning::FractionalEven,
        OutputPrimitive::Point,
        TessFactors::quad([5.5, 2.0, 9.25, 3.0], [6.0, 2.5]),
    );
    assert_eq!(t.indices, (0..t.points.len() as u32).collect::<Vec<_>>());
    let mut unique = bits(&t.points);
    unique.sort_unstable();
    unique.dedup();
    assert_eq!(unique.len(), t.points.len());
}

#[test]
fn output_primitives_pair_with_domains_as_d3d_allows() {
    // §11.7.15: line only with isoline; triangles only with tri and quad.
    let f = TessFactors::quad([2.0; 4], [2.0; 2]);
    for (d, o) in [
        (Domain::Tri, OutputPrimitive::Line),
        (Domain::Quad, OutputPrimitive::Line),
        (Domain::Isoline, OutputPrimitive::TriangleCw),
        (Domain::Isoline, OutputPrimitive::TriangleCcw),
    ] {
        let e = tessellate(&desc(d, Partitioning::Integer, o), &f).unwrap_err();
        assert_eq!(
            e,
            TessError::OutputPrimitive {
                domain: d,
                output: o
            }
        );
        assert!(e.to_string().contains("§11.7.15"), "{e}");
        assert!(counts(&desc(d, Partitioning::Integer, o), &f).is_err());
    }
}

#[test]
fn edge_points_depend_on_that_edge_only() {
    // §11.7.13: a shared edge must give identical points whatever else the patches hold.
    let on_u0 = |t: &Tessellation| {
        let mut v: Vec<u32> = t
            .points
            .iter()
            .filter(|p| p[0] == 0.0)
            .map(|p| p[1].to_bits())
            .collect();
        v.sort_unstable();
        v
    };
    for p in [
        Partitioning::FractionalOdd,
        Partitioning::FractionalEven,
        Partitioning::Integer,
    ] {
        let a = run(
            Domain::Quad,
            p,
            OutputPrimitive::Point,
            TessFactors::quad([5.3, 2.0, 17.0, 3.0], [8.0, 2.0]),
        );
        let b = run(
            Domain::Quad,
            p,
            OutputPrimitive::Point,
            TessFactors::quad([5.3, 40.0, 1.0, 9.9], [2.0, 30.0]),
        );
        let c = run(
            Domain::Tri,
            p,
            OutputPrimitive::Point,
            TessFactors::tri([5.3, 7.7, 1.0], 12.0),
        );
        assert_eq!(on_u0(&a), on_u0(&b), "{p}");
        assert_eq!(on_u0(&a), on_u0(&c), "{p}");
    }
}

#[test]
fn factor_64_reaches_the_documented_bound_exactly() {
    // The bound in the module doc: a quad at 64 is 65 × 65 points, 64 × 64 × 2 triangles.
    let d = desc(
        Domain::Quad,
        Partitioning::Integer,
        OutputPrimitive::TriangleCw,
    );
    let t = tessellate(&d, &TessFactors::quad([64.0; 4], [64.0; 2])).unwrap();
    assert_eq!(t.points.len(), MAX_POINTS);
    assert_eq!(t.indices.len(), MAX_INDICES);
    let c = counts(&d, &TessFactors::quad([1e9; 4], [f32::INFINITY; 2])).unwrap();
    assert_eq!((c.points, c.indices), (MAX_POINTS, MAX_INDICES));
}

#[test]
fn a_million_patches_at_factor_64_hit_the_budget() {
    // Issue 33's bad input: a factor of 64 on a million patches must end in the budget,
    // not in exhausted memory. Each patch is charged its exact sizes before it is
    // generated; the one that would pass is refused whole and nothing of it is charged.
    let d = desc(
        Domain::Quad,
        Partitioning::FractionalEven,
        OutputPrimitive::TriangleCcw,
    );
    let f = TessFactors::quad([64.0; 4], [64.0; 2]);
    let max_points = 10_000_000;
    let mut budget = TessBudget::new(max_points, u64::MAX);
    let mut generated = 0u64;
    let err = (0..1_000_000)
        .find_map(|_| match tessellate_within(&d, &f, &mut budget) {
            Ok(t) => {
                generated += t.points.len() as u64;
                None
            }
            Err(e) => Some(e),
        })
        .expect("the budget ends the draw");
    let per_patch = MAX_POINTS as u64;
    let fit = max_points / per_patch;
    assert_eq!(generated, fit * per_patch);
    assert_eq!(
        err,
        TessError::Budget {
            needed_points: per_patch,
            needed_indices: MAX_INDICES as u64,
            used_points: fit * per_patch,
            used_indices: fit * MAX_INDICES as u64,
            max_points,
            max_indices: u64::MAX,
        }
    );
    assert!(err.to_string().contains("budget exhausted"), "{err}");
    assert_eq!(budget.used().points as u64, fit * per_patch);
    // Indices are limited the same way, and a culled patch costs nothing.
    let mut budget = TessBudget::new(u64::MAX, 24_576);
    assert!(tessellate_within(&d, &f, &mut budget).is_ok());
    assert!(matches!(
        tessellate_within(&d, &f, &mut budget),
        Err(TessError::Budget { .. })
    ));
    let culled = TessFactors::quad([0.0; 4], [64.0; 2]);
    assert!(tessellate_within(&d, &culled, &mut budget).is_ok());
}

// ----- properties ----------------------------------------------------------------------

/// Any f32, weighted towards the values that matter: the edges of the ranges, integers
/// and their neighbours, NaN, infinities, negatives and denormals.
fn factor() -> impl Strategy<Value = f32> {
    prop_oneof![
        any::<u32>().prop_map(f32::from_bits),
        (0.0f32..70.0),
        (0u32..=66).prop_map(|i| i as f32),
        ((1u32..=64), (-2i32..=2))
            .prop_map(|(i, d)| f32::from_bits((i as f32).to_bits().wrapping_add_signed(d))),
        Just(f32::NAN),
        Just(f32::INFINITY),
        Just(f32::NEG_INFINITY),
        Just(-1.0f32),
        Just(0.0f32),
        Just(f32::from_bits(1)),
        Just(1.0 + 1.0 / 131072.0),
    ]
}

fn any_desc() -> impl Strategy<Value = TessellatorDesc> {
    let domain = prop_oneof![Just(Domain::Tri), Just(Domain::Quad), Just(Domain::Isoline)];
    let part = prop_oneof![
        Just(Partitioning::Integer),
        Just(Partitioning::Pow2),
        Just(Partitioning::FractionalOdd),
        Just(Partitioning::FractionalEven),
    ];
    let out = prop_oneof![
        Just(OutputPrimitive::Point),
        Just(OutputPrimitive::Line),
        Just(OutputPrimitive::TriangleCw),
        Just(OutputPrimitive::TriangleCcw),
    ];
    (domain, part, out).prop_map(|(d, p, o)| desc(d, p, o))
}

fn any_factors() -> impl Strategy<Value = TessFactors> {
    (
        [factor(), factor(), factor(), factor()],
        [factor(), factor()],
    )
        .prop_map(|(edges, inside)| TessFactors { edges, inside })
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(512))]

    #[test]
    fn any_factors_give_a_bounded_consistent_patch(d in any_desc(), f in any_factors()) {
        let Ok(t) = tessellate(&d, &f) else {
            // Only the pairs §11.7.15 forbids are refused.
            prop_assert!(matches!(
                (d.domain, d.output_primitive),
                (Domain::Isoline, OutputPrimitive::TriangleCw | OutputPrimitive::TriangleCcw)
                    | (Domain::Tri | Domain::Quad, OutputPrimitive::Line)
            ));
            return Ok(());
        };
        prop_assert!(t.points.len() <= MAX_POINTS);
        prop_assert!(t.indices.len() <= MAX_INDICES);
        let c = counts(&d, &f).unwrap();
        prop_assert_eq!((c.points, c.indices), (t.points.len(), t.indices.len()));
        prop_assert_eq!(t.indices.len() % t.topology.vertices_per_primitive(), 0);
        for &i in &t.indices {
            prop_assert!((i as usize) < t.points.len());
        }
        for p in &t.points {
            for x in p {
                prop_assert!((0.0..=1.0).contains(x), "{:?}", p);
                prop_assert_eq!((f64::from(*x) * 65536.0).fract(), 0.0);
            }
            if d.domain == Domain::Tri {
                prop_assert!(tri_w(*p) >= 0.0, "{:?}", p);
            }
        }
        if t.topology == Topology::TriangleList {
            let sign = if d.output_primitive == OutputPrimitive::TriangleCw { 1.0 } else { -1.0 };
            for tri in t.indices.chunks(3) {
                // Fixed point may make slivers degenerate (§11.7.14), never inverted.
                prop_assert!(sign * cross(&t.points, tri) >= 0.0, "{:?}", tri);
            }
        }
    }

    #[test]
    fn integer_point_counts_follow_the_reference_formulas(
        e in proptest::array::uniform4(1u32..=64),
        i in proptest::array::uniform2(1u32..=64),
    ) {
        // Integer factors n give n + 1 points per edge; inside, n + 1 points per axis
        // (3 for n = 1, counted even). Quad: the edges' points less the shared corners plus
        // the (points − 2)² interior; tri: the edges' plus concentric rings of 3k points;
        // isoline: density lines of detail + 1 points. All ones: only the corners.
        let f = |x: u32| x as f32;
        let q = run(Domain::Quad, Partitioning::Integer, OutputPrimitive::Point,
            TessFactors::quad(e.map(f), i.map(f)));
        let axis = |n: u32| if n == 1 { 3 } else { n + 1 };
        let expected = if e == [1; 4] && i == [1; 2] {
            4
        } else {
            e.iter().sum::<u32>() + (axis(i[0]) - 2) * (axis(i[1]) - 2)
        };
        prop_assert_eq!(q.points.len() as u32, expected);

        let t = run(Domain::Tri, Partitioning::Integer, OutputPrimitive::Point,
            TessFactors::tri([f(e[0]), f(e[1]), f(e[2])], f(i[0])));
        let n = axis(i[0]);
        let rings = n / 2 - 1;
        let interior = if n % 2 == 0 { 3 * rings * rings } else { 3 * rings * (rings + 1) + 1 };
        let expected = if e[..3] == [1; 3] && i[0] == 1 { 3 } else { e[0] + e[1] + e[2] + interior };
        prop_assert_eq!(t.points.len() as u32, expected);

        let l = run(Domain::Isoline, Partitioning::Integer, OutputPrimitive::Line,
            TessFactors::isoline(f(e[0]), f(e[1])));
        prop_assert_eq!(l.points.len() as u32, e[0] * (e[1] + 1));
        prop_assert_eq!(l.indices.len() as u32, e[0] * e[1] * 2);
    }
}
