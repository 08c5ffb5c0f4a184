//! The fixed-function ray/triangle test: watertight, with a tie rule for rays through
//! edges and vertices (DXR spec "Fixed function ray-triangle intersection
//! specification", "Watertightness", "Top-left rule").
//!
//! # The test
//!
//! Woop, Benthin and Wald, "Watertight Ray/Triangle Intersection" (JCGT 2013), which the
//! spec names: the ray's dominant axis becomes `z`, the other two are sheared so that
//! the ray runs along `z` through the origin of the `(x, y)` plane, and each vertex is
//! moved into that frame on its own. A vertex shared by two triangles therefore lands on
//! the same `f32` coordinates in both. The three edge functions are then evaluated in
//! `f64`, where the product of two `f32` values is exact and the difference of two such
//! products has the exact sign: an edge function is zero exactly when the ray passes
//! through the edge (in the sheared frame), and the function of an edge seen from its two
//! triangles has opposite signs. Whether the ray is inside, outside or on an edge is
//! thus decided exactly and alike for every triangle sharing the edge.
//!
//! # Ties
//!
//! When the ray passes exactly through an edge (one edge function zero) or a vertex
//! (two), the spec asks for a top-left-like rule so that exactly one of the triangles
//! sharing it reports the hit. dxlane's rule treats the ray as if it passed through the
//! point `(ε², ε)` of the sheared plane for an infinitesimal `ε`: an edge through the
//! ray is inclusive when that point lies on the triangle's interior side of it. With the
//! edge oriented so that the interior is on its left (direction `d`), that is
//! `d.x > 0 || (d.x == 0 && d.y < 0)`. Because it is one consistent perturbation of the
//! ray, the same decision holds at a vertex: of the triangles around a vertex, exactly
//! the one containing the perturbed point has both of its edges at the vertex inclusive,
//! as the spec's example rule requires ("if both edges are top or left").
//!
//! Like the spec's example rule, which edges are inclusive depends on the ray's
//! direction (the frame is chosen from it), and on an edge where the surface folds away
//! from the ray (both triangles on the same side of the edge as seen along the ray) both
//! or neither triangle is hit.

use super::math::{finite3, sub};

/// The per-ray constants of the test: the permutation of axes and the shear.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shear {
    kx: usize,
    ky: usize,
    kz: usize,
    sx: f32,
    sy: f32,
    sz: f32,
}

impl Shear {
    /// `None` when the direction has a non-finite component or is zero: such a ray meets
    /// nothing.
    #[inline(always)]
    pub fn new(dir: [f32; 3]) -> Option<Shear> {
        if !finite3(dir) {
            return None;
        }
        let a = dir.map(f32::abs);
        let kz = if a[0] >= a[1] && a[0] >= a[2] {
            0
        } else if a[1] >= a[2] {
            1
        } else {
            2
        };
        if a[kz] == 0.0 {
            return None;
        }
        let mut kx = (kz + 1) % 3;
        let mut ky = (kx + 1) % 3;
        // Swapping keeps the orientation of the (x, y) frame when looking down -z, so
        // that the sign of the determinant gives the same facing for every direction.
        if dir[kz] < 0.0 {
            std::mem::swap(&mut kx, &mut ky);
        }
        let sz = 1.0 / dir[kz];
        let sx = dir[kx] / dir[kz];
        let sy = dir[ky] / dir[kz];
        (sx.is_finite() && sy.is_finite() && sz.is_finite()).then_some(Shear {
            kx,
            ky,
            kz,
            sx,
            sy,
            sz,
        })
    }
}

/// A hit of the test.
#[derive(Clone, Copy, Debug, PartialEq)]
pub(crate) struct TriangleHit {
    pub t: f32,
    /// Weights of vertices 1 and 2 (DXR's `barycentrics`).
    pub barycentrics: [f32; 2],
    /// Whether the vertices appear clockwise from the ray's origin (DXR's front face,
    /// before any instance flag).
    pub clockwise: bool,
}

/// Whether an edge through the ray, from `p` to `q` in the sheared plane, is inclusive
/// (see the module doc). `interior_left`: whether the triangle's interior lies left of
/// `p → q`.
#[inline(never)]
fn inclusive(p: (f32, f32), q: (f32, f32), interior_left: bool) -> bool {
    // The difference of two f32 values has the exact sign (and is zero only when they
    // are equal), so these comparisons are exact.
    let (dx, dy) = if interior_left {
        (q.0 - p.0, q.1 - p.1)
    } else {
        (p.0 - q.0, p.1 - q.1)
    };
    dx > 0.0 || (dx == 0.0 && dy < 0.0)
}

/// The hit of ray `org + t·dir` (constants `s`) with triangle `v` in `t_min < t < t_max`
/// (DXR spec "Ray extents": exclusive for triangles), or `None`. Degenerate triangles
/// (including those seen edge-on) give `None`.
#[inline(always)]
pub(crate) fn intersect(
    s: &Shear,
    org: [f32; 3],
    v: &[[f32; 3]; 3],
    t_min: f32,
    t_max: f32,
) -> Option<TriangleHit> {
    let a = sub(v[0], org);
    let b = sub(v[1], org);
    let c = sub(v[2], org);
    let ax = a[s.kx] - s.sx * a[s.kz];
    let ay = a[s.ky] - s.sy * a[s.kz];
    let bx = b[s.kx] - s.sx * b[s.kz];
    let by = b[s.ky] - s.sy * b[s.kz];
    let cx = c[s.kx] - s.sx * c[s.kz];
    let cy = c[s.ky] - s.sy * c[s.kz];
    // The edge functions in f32 first (B→C, C→A, A→B, as below). A non-zero f32 value has
    // the sign of the exact one: rounding to nearest is non-decreasing (also into
    // subnormals and to ±∞), so exact products P ≤ Q round to p ≤ q, i.e. p > q implies
    // P > Q and p < q implies P < Q; and the rounded difference of two floats is zero only
    // when they are equal (subnormals make small differences exact) and otherwise has
    // their difference's sign. So a positive and a negative value here mean a miss, and
    // three non-zero values of one sign mean the ray is strictly inside, exactly as the
    // `f64` evaluation below decides; only a zero or NaN value (∞ − ∞) leaves the sign
    // open, and then the `f64` signs decide, as they always did. `cargo test --lib
    // triangle` holds both decisions together.
    let uf = cx * by - cy * bx;
    let vf = ax * cy - ay * cx;
    let wf = bx * ay - by * ax;
    if (uf > 0.0 || vf > 0.0 || wf > 0.0) && (uf < 0.0 || vf < 0.0 || wf < 0.0) {
        return None;
    }
    let decided = uf != 0.0 && vf != 0.0 && wf != 0.0 && !(uf + vf + wf).is_nan();
    let (axd, ayd, bxd, byd, cxd, cyd) = (
        f64::from(ax),
        f64::from(ay),
        f64::from(bx),
        f64::from(by),
        f64::from(cx),
        f64::from(cy),
    );
    // Edge functions of B→C, C→A and A→B; positive when the ray passes right of the edge.
    let u = cxd * byd - cyd * bxd;
    let w0 = axd * cyd - ayd * cxd;
    let w1 = bxd * ayd - byd * axd;
    if !decided {
        let neg = u < 0.0 || w0 < 0.0 || w1 < 0.0;
        let pos = u > 0.0 || w0 > 0.0 || w1 > 0.0;
        // Mixed signs: outside. All zero (or NaN): degenerate in this frame.
        if neg == pos {
            return None;
        }
        if (u == 0.0 || w0 == 0.0 || w1 == 0.0)
            && !((u != 0.0 || inclusive((bx, by), (cx, cy), neg))
                && (w0 != 0.0 || inclusive((cx, cy), (ax, ay), neg))
                && (w1 != 0.0 || inclusive((ax, ay), (bx, by), neg)))
        {
            return None;
        }
    }
    let det = u + w0 + w1;
    let az = f64::from(s.sz * a[s.kz]);
    let bz = f64::from(s.sz * b[s.kz]);
    let cz = f64::from(s.sz * c[s.kz]);
    let tt = u * az + w0 * bz + w1 * cz;
    if !det.is_finite() || !tt.is_finite() {
        return None;
    }
    let t = (tt / det) as f32;
    if !(t > t_min && t < t_max) {
        return None;
    }
    Some(TriangleHit {
        t,
        barycentrics: [(w0 / det) as f32, (w1 / det) as f32],
        clockwise: det > 0.0,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn hit(org: [f32; 3], dir: [f32; 3], v: [[f32; 3]; 3]) -> Option<TriangleHit> {
        intersect(&Shear::new(dir).unwrap(), org, &v, 0.0, f32::INFINITY)
    }

    fn cross(a: [f32; 3], b: [f32; 3]) -> [f64; 3] {
        let a = a.map(f64::from);
        let b = b.map(f64::from);
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    }

    /// DXR spec "D3D12_RAYTRACING_INSTANCE_FLAGS" (front-counterclockwise): a triangle is
    /// front-facing when its vertices appear clockwise from the ray origin in a
    /// left-handed frame. Looking down +z with x right and y up, (0,0)→(0,1)→(1,0) is
    /// clockwise.
    #[test]
    fn clockwise_is_front_from_every_direction() {
        let v = [[0.0, 0.0, 1.0], [0.0, 1.0, 1.0], [1.0, 0.0, 1.0]];
        let h = hit([0.25, 0.25, 0.0], [0.0, 0.0, 1.0], v).unwrap();
        assert!(h.clockwise);
        assert_eq!(h.t, 1.0);
        assert_eq!(h.barycentrics, [0.25, 0.25]);
        // Seen from behind, the same triangle is counter-clockwise.
        assert!(
            !hit([0.25, 0.25, 2.0], [0.0, 0.0, -1.0], v)
                .unwrap()
                .clockwise
        );
        // Every dominant axis and sign agrees with the sign of n·d (clockwise ⇔ n·d < 0,
        // n = (v1 - v0) × (v2 - v0)).
        let mut seed = 99u64;
        let mut r = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            (seed >> 40) as f32 / (1u64 << 24) as f32 * 2.0 - 1.0
        };
        let mut checked = 0;
        for _ in 0..2000 {
            let v = [[r(), r(), r()], [r(), r(), r()], [r(), r(), r()]];
            let target = [0, 1, 2].map(|k| 0.4 * v[0][k] + 0.3 * v[1][k] + 0.3 * v[2][k]);
            let dir = [r(), r(), r()];
            let org = [0, 1, 2].map(|k| target[k] - 3.0 * dir[k]);
            let n = cross(sub(v[1], v[0]), sub(v[2], v[0]));
            let nd = n[0] * f64::from(dir[0]) + n[1] * f64::from(dir[1]) + n[2] * f64::from(dir[2]);
            if let Some(h) = hit(org, dir, v) {
                assert_eq!(h.clockwise, nd < 0.0, "{v:?} {dir:?}");
                checked += 1;
            }
        }
        assert!(checked > 1500);
    }

    /// DXR spec "Intersection attributes structure": `barycentrics.x` weighs vertex 1,
    /// `.y` vertex 2.
    #[test]
    fn barycentrics_weigh_vertices_one_and_two() {
        let v = [[0.0, 0.0, 2.0], [4.0, 0.0, 2.0], [0.0, 4.0, 2.0]];
        let h = hit([1.0, 2.0, 0.0], [0.0, 0.0, 1.0], v).unwrap();
        assert_eq!(h.barycentrics, [0.25, 0.5]);
        assert_eq!(h.t, 2.0);
    }

    /// DXR spec "Ray extents": triangle hits need `TMin < t < TMax`.
    #[test]
    fn extents_are_exclusive() {
        let v = [[0.0, 0.0, 2.0], [4.0, 0.0, 2.0], [0.0, 4.0, 2.0]];
        let s = Shear::new([0.0, 0.0, 1.0]).unwrap();
        let o = [1.0, 1.0, 0.0];
        assert!(intersect(&s, o, &v, 0.0, 2.0).is_none());
        assert!(intersect(&s, o, &v, 2.0, 3.0).is_none());
        assert!(intersect(&s, o, &v, 1.999, 2.001).is_some());
    }

    /// DXR spec "Degenerate primitives and instances": triangles that form a line or a
    /// point never intersect; a triangle seen exactly edge-on neither.
    #[test]
    fn degenerate_and_edge_on_never_hit() {
        let line = [[0.0, 0.0, 1.0], [1.0, 1.0, 1.0], [2.0, 2.0, 1.0]];
        assert!(hit([1.0, 1.0, 0.0], [0.0, 0.0, 1.0], line).is_none());
        let point = [[1.0, 1.0, 1.0]; 3];
        assert!(hit([1.0, 1.0, 0.0], [0.0, 0.0, 1.0], point).is_none());
        let v = [[0.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        assert!(hit([0.0, 0.25, -1.0], [0.0, 0.0, 1.0], v).is_none());
        assert!(Shear::new([0.0; 3]).is_none());
        assert!(Shear::new([f32::NAN, 0.0, 1.0]).is_none());
        assert!(Shear::new([f32::INFINITY, 0.0, 1.0]).is_none());
    }

    /// The test as it was before the `f32` edge decisions: every edge sign from the exact
    /// `f64` values (the reference the fast path is held to).
    fn intersect_f64(
        s: &Shear,
        org: [f32; 3],
        v: &[[f32; 3]; 3],
        t_min: f32,
        t_max: f32,
    ) -> Option<TriangleHit> {
        let a = sub(v[0], org);
        let b = sub(v[1], org);
        let c = sub(v[2], org);
        let ax = a[s.kx] - s.sx * a[s.kz];
        let ay = a[s.ky] - s.sy * a[s.kz];
        let bx = b[s.kx] - s.sx * b[s.kz];
        let by = b[s.ky] - s.sy * b[s.kz];
        let cx = c[s.kx] - s.sx * c[s.kz];
        let cy = c[s.ky] - s.sy * c[s.kz];
        let d = [ax, ay, bx, by, cx, cy].map(f64::from);
        let (axd, ayd, bxd, byd, cxd, cyd) = (d[0], d[1], d[2], d[3], d[4], d[5]);
        let u = cxd * byd - cyd * bxd;
        let w0 = axd * cyd - ayd * cxd;
        let w1 = bxd * ayd - byd * axd;
        let neg = u < 0.0 || w0 < 0.0 || w1 < 0.0;
        let pos = u > 0.0 || w0 > 0.0 || w1 > 0.0;
        if neg == pos {
            return None;
        }
        if (u == 0.0 || w0 == 0.0 || w1 == 0.0)
            && !((u != 0.0 || inclusive((bx, by), (cx, cy), neg))
                && (w0 != 0.0 || inclusive((cx, cy), (ax, ay), neg))
                && (w1 != 0.0 || inclusive((ax, ay), (bx, by), neg)))
        {
            return None;
        }
        let det = u + w0 + w1;
        let az = f64::from(s.sz * a[s.kz]);
        let bz = f64::from(s.sz * b[s.kz]);
        let cz = f64::from(s.sz * c[s.kz]);
        let tt = u * az + w0 * bz + w1 * cz;
        if !det.is_finite() || !tt.is_finite() {
            return None;
        }
        let t = (tt / det) as f32;
        if !(t > t_min && t < t_max) {
            return None;
        }
        Some(TriangleHit {
            t,
            barycentrics: [(w0 / det) as f32, (w1 / det) as f32],
            clockwise: det > 0.0,
        })
    }

    struct Rng(u64);

    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 << 13;
            self.0 ^= self.0 >> 7;
            self.0 ^= self.0 << 17;
            self.0
        }

        fn unit(&mut self) -> f32 {
            (self.next() >> 40) as f32 / (1u64 << 24) as f32
        }

        /// Any finite f32 but NaN-free: random sign, exponent (subnormals and the largest
        /// included) and mantissa.
        fn any(&mut self) -> f32 {
            let bits = self.next() as u32;
            let v = f32::from_bits(bits & 0xff7f_ffff);
            if v.is_finite() { v } else { 0.0 }
        }
    }

    /// The proof in [`intersect`]: a non-zero `f32` edge value `a·b − c·d` has the sign of
    /// the exact value (the `f64` one, exact for `f32` inputs), over random inputs of every
    /// magnitude (products that overflow and underflow into subnormals) and adversarial
    /// ones (exactly equal and nearly equal products).
    #[test]
    fn f32_edge_signs_are_exact() {
        let mut r = Rng(77);
        let mut decided = 0;
        for case in 0..400_000 {
            let (a, b, mut c, mut d) = match case % 4 {
                0 => (r.any(), r.any(), r.any(), r.any()),
                1 => {
                    // Magnitudes near each other, so the products nearly cancel.
                    let e = (r.next() % 250) as i32 - 125;
                    let s = 2f32.powi(e);
                    (r.unit() * s, r.unit(), r.unit() * s, r.unit())
                }
                2 => {
                    let (a, b) = (r.unit() * 1.0e-20, r.unit() * 1.0e-22);
                    (a, b, a * 0.5, b * 2.0)
                }
                _ => {
                    let (a, b) = (r.any(), r.any());
                    (a, b, a, b)
                }
            };
            if case % 8 == 7 {
                // One unit in the last place away from an exact tie.
                c = f32::from_bits(c.to_bits().wrapping_add(1));
                d = if d.is_finite() { d } else { 1.0 };
            }
            let f = a * b - c * d;
            let x = f64::from(a) * f64::from(b) - f64::from(c) * f64::from(d);
            if f > 0.0 {
                assert!(x > 0.0, "{a:e} {b:e} {c:e} {d:e}: {f:e} {x:e}");
                decided += 1;
            } else if f < 0.0 {
                assert!(x < 0.0, "{a:e} {b:e} {c:e} {d:e}: {f:e} {x:e}");
                decided += 1;
            }
        }
        assert!(decided > 200_000, "{decided}");
    }

    /// The test with its `f32` edge decisions gives exactly the answers of the `f64`
    /// evaluation alone (hit or miss, `t`, barycentrics, facing), for random triangles
    /// and rays and for rays exactly through shared edges and vertices of a grid (DXR
    /// spec "Watertightness", "Top-left rule"), tiny and huge triangles.
    #[test]
    fn f32_edge_decisions_are_the_f64_ones() {
        let mut r = Rng(1234);
        let (mut hits, mut ties) = (0, 0);
        let check = |org: [f32; 3], dir: [f32; 3], v: [[f32; 3]; 3], hits: &mut u32| {
            let Some(s) = Shear::new(dir) else { return };
            let fast = intersect(&s, org, &v, 0.0, f32::INFINITY);
            assert_eq!(
                fast,
                intersect_f64(&s, org, &v, 0.0, f32::INFINITY),
                "{org:?} {dir:?} {v:?}"
            );
            *hits += u32::from(fast.is_some());
        };
        for case in 0..100_000 {
            let scale = match case % 4 {
                0 => 1.0e-20,
                1 => 1.0e18,
                _ => 1.0,
            };
            let v = [0; 3].map(|_| [0; 3].map(|_| (r.unit() * 2.0 - 1.0) * scale));
            let target = [0, 1, 2].map(|k| 0.2 * v[0][k] + 0.3 * v[1][k] + 0.5 * v[2][k]);
            let dir = [r.unit() - 0.5, r.unit() - 0.5, r.unit() - 0.5];
            let org = [0, 1, 2].map(|k| target[k] - 2.0 * dir[k] * scale);
            check(org, dir, v, &mut hits);
            let org = [0; 3].map(|_| (r.unit() - 0.5) * scale);
            check(org, dir, v, &mut hits);
        }
        // Rays through the vertices and edge midpoints of a grid of shared-edge
        // triangles, from many directions: the edge functions are exactly zero there.
        for i in 0..6 {
            for j in 0..6 {
                let p = |a: i32, b: i32| [a as f32 * 0.5, b as f32 * 0.25, 1.0];
                let quad = [p(i, j), p(i + 1, j), p(i + 1, j + 1), p(i, j + 1)];
                let tris = [[quad[0], quad[1], quad[2]], [quad[0], quad[2], quad[3]]];
                for k in 0..40 {
                    let dir = [
                        (r.next() % 9) as f32 * 0.125 - 0.5,
                        (r.next() % 9) as f32 * 0.125 - 0.5,
                        if k % 2 == 0 { 1.0 } else { -1.0 },
                    ];
                    let aims = [
                        quad[0],
                        [
                            0.5 * (quad[0][0] + quad[2][0]),
                            0.5 * (quad[0][1] + quad[2][1]),
                            1.0,
                        ],
                        [0.5 * (quad[0][0] + quad[1][0]), quad[0][1], 1.0],
                    ];
                    for aim in aims {
                        let org = [0, 1, 2].map(|c| aim[c] - 3.0 * dir[c]);
                        for t in tris {
                            let before = hits;
                            check(org, dir, t, &mut hits);
                            ties += hits - before;
                        }
                    }
                }
            }
        }
        assert!(hits > 50_000, "{hits}");
        assert!(ties > 1_000, "{ties}");
    }
}
