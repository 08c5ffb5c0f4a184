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
    // A cheap, certain rejection first: each f32 edge function is within
    // 2^-23·(|p| + |q|) of the exact `p - q` (two rounded products and a rounded
    // difference), so a value beyond twice that has the exact sign, and opposite certain
    // signs mean a miss. Everything else is decided exactly below.
    let (p0, q0, p1, q1, p2, q2) = (cx * by, cy * bx, ax * cy, ay * cx, bx * ay, by * ax);
    const REL: f32 = 1.0 / 4_194_304.0;
    let (uf, vf, wf) = (p0 - q0, p1 - q1, p2 - q2);
    let (eu, ev, ew) = (
        (p0.abs() + q0.abs()) * REL,
        (p1.abs() + q1.abs()) * REL,
        (p2.abs() + q2.abs()) * REL,
    );
    if (uf > eu || vf > ev || wf > ew) && (uf < -eu || vf < -ev || wf < -ew) {
        return None;
    }
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
}
