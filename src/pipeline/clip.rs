//! Primitive clipping in homogeneous clip space: the view volume's w, x, y, near and far
//! planes, and `SV_ClipDistance`; culling by `SV_CullDistance`.
//!
//! Owns: which part of a primitive survives, as a polygon whose vertices are weights
//! over the primitive's original vertices (so attributes never need copying: a clipped
//! vertex's attributes are the same weights applied to the originals'). Does not own:
//! the perspective divide, viewport and snapping (`setup`).
//!
//! # Rules (D3D11.3 §15.4 "Clipping", §15.4.1 "Clip Distances", §15.4.2 "Cull Distances")
//!
//! - The view volume is `0 < w`, `−w ≤ x ≤ w`, `−w ≤ y ≤ w`, and `0 ≤ z ≤ w` when depth
//!   clip is enabled. x and y are clipped **at the viewport, with no guard band**: §15.4
//!   allows a wider range ("or arbitrarily wider range if implementation uses a guard
//!   band"), but WARP uses none. The source is the public documentation of
//!   iridia-exec's `draw` module, whose draw rules are held to WARP captures: a triangle
//!   cut past the viewport instead of at it draws pixels up to 1e-4 off WARP's; Wine's
//!   vkd3d on lavapipe clips the same way. The vertices clipping makes are then snapped
//!   to 16.8 fixed point like any other (§3.4.1, `setup::to_screen`), so the surviving
//!   part of an edge that crosses the viewport runs to its snapped crossing point, and a
//!   pixel centre within 1/256 px of that edge may change sides — which is what a guard
//!   band, drawing the original edge and letting the viewport scissor cut it, does not
//!   reproduce. No WARP release is known to differ, so this is no profile rule.
//! - Only where a viewport reaches past ±[`GUARD_PIXELS`] (D3D12 bounds viewports to
//!   ±32768, but `Viewport` does not) is the clip range narrowed to that box, so every
//!   surviving vertex's 16.8 fixed-point coordinate stays where the rasterizer is exact;
//!   no render target reaches it, so no pixel changes.
//! - `w > 0` is the plane `w ≥ W_MIN` ([`W_MIN`], the smallest normal f32), which keeps
//!   the perspective divide finite.
//! - Each `SV_ClipDistance` component is a plane: the part where the interpolated
//!   distance is < 0 is removed. A primitive with any vertex whose `SV_CullDistance`
//!   component is ≥ 0 for every vertex survives; one where some component is < 0 at every
//!   vertex is culled.
//! - Clip-space values are interpolated linearly along an edge (`t = d₀ / (d₀ − d₁)`),
//!   computed in f64 from the inside vertex towards the outside one, so two primitives
//!   sharing an edge get the same new vertex.
//! - A point is inside or outside as its position is: points are not split, so one whose
//!   centre lies outside the viewport is not drawn.
//! - A primitive with a NaN or infinite position component is discarded (D3D11.3 §3.1
//!   leaves such positions undefined; discarding cannot hang or overflow).

/// The reach of the clip range in pixels from the origin: clipped vertices stay within
/// ±2^19 pixels, so their 16.8 fixed-point coordinates fit in 28 bits and edge functions
/// (products of two such differences, summed) fit in 59 bits of an `i64` (see `setup`).
pub const GUARD_PIXELS: f64 = 524288.0;

/// The smallest w a clipped vertex keeps.
pub const W_MIN: f64 = f32::MIN_POSITIVE as f64;

/// The most clip planes: 4 viewport sides, near, far, w, 8 clip distances.
pub const MAX_PLANES: usize = 15;

/// The view volume's planes: w, 4 viewport sides, near, far.
const VIEW_PLANES: usize = 7;

/// One vertex of a clipped polygon: weights over the primitive's original vertices (they
/// sum to 1; a vertex of the original primitive has one weight 1).
pub type Weights = [f64; 3];

/// The planes a draw clips against.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ClipSetup {
    /// The kept range of `x / w`: `[−1, 1]`, the viewport (narrowed only past
    /// [`GUARD_PIXELS`]).
    pub x: [f64; 2],
    /// The kept range of `y / w`.
    pub y: [f64; 2],
    /// Clip `0 ≤ z ≤ w`.
    pub depth_clip: bool,
}

impl ClipSetup {
    /// The clip volume of a viewport of `width × height` pixels at `(x, y)`: the
    /// viewport itself, `−w ≤ x, y ≤ w`, within ±[`GUARD_PIXELS`] of the origin.
    pub fn new(x: f32, y: f32, width: f32, height: f32, depth_clip: bool) -> ClipSetup {
        // NDC v maps to pixel origin + half·(v + 1): the NDC range whose pixels lie
        // within ±GUARD_PIXELS, intersected with [−1, 1].
        let range = |origin: f32, size: f32| {
            let half = (f64::from(size) * 0.5).max(1e-3);
            let centre = f64::from(origin) + half;
            [
                ((-GUARD_PIXELS - centre) / half).max(-1.0),
                ((GUARD_PIXELS - centre) / half).min(1.0),
            ]
        };
        ClipSetup {
            x: range(x, width),
            y: range(y, height),
            depth_clip,
        }
    }
}

/// The result of clipping one primitive.
#[derive(Debug, Clone, PartialEq)]
pub enum Clipped {
    /// Wholly inside: draw it as it is.
    Inside,
    /// Wholly outside (or culled): draw nothing.
    Outside,
    /// Partly inside: the surviving polygon (triangles: a convex polygon of 3 or more
    /// vertices; lines: the two ends of the surviving segment).
    Polygon(Vec<Weights>),
}

/// The view volume's planes (at most [`VIEW_PLANES`]) at the original vertices:
/// `values[p][i]` is plane `p` at vertex `i` (≥ 0 inside), and how many there are.
/// Kept on the stack: every primitive of a draw is clipped, and most have no clip
/// distances.
fn view_planes(pos: &[[f32; 4]], clip: &ClipSetup) -> ([[f64; 3]; VIEW_PLANES], usize) {
    let f = |k: &dyn Fn([f64; 4]) -> f64| {
        let mut v = [0f64; 3];
        for (i, p) in pos.iter().enumerate().take(3) {
            v[i] = k(p.map(f64::from));
        }
        v
    };
    let mut planes = [[0f64; 3]; VIEW_PLANES];
    planes[0] = f(&|p| p[3] - W_MIN);
    planes[1] = f(&|p| clip.x[1] * p[3] - p[0]);
    planes[2] = f(&|p| p[0] - clip.x[0] * p[3]);
    planes[3] = f(&|p| clip.y[1] * p[3] - p[1]);
    planes[4] = f(&|p| p[1] - clip.y[0] * p[3]);
    if !clip.depth_clip {
        return (planes, 5);
    }
    planes[5] = f(&|p| p[2]);
    planes[6] = f(&|p| p[3] - p[2]);
    (planes, VIEW_PLANES)
}

/// Clip distance component `c` at the original vertices.
fn distance_plane(dists: &[Vec<f32>], c: usize) -> [f64; 3] {
    let mut v = [0f64; 3];
    for (i, d) in dists.iter().enumerate().take(3) {
        v[i] = f64::from(d.get(c).copied().unwrap_or(0.0));
    }
    v
}

/// Whether some cull distance is negative at every vertex.
pub fn culled_by_distance(culls: &[Vec<f32>]) -> bool {
    let Some(first) = culls.first() else {
        return false;
    };
    (0..first.len()).any(|c| culls.iter().all(|d| d.get(c).is_some_and(|&x| x < 0.0)))
}

/// Clips a primitive of `pos.len()` (1, 2 or 3) vertices. `dists[i]` are vertex `i`'s
/// clip distances. Points are inside or outside (their position alone decides, D3D11.3
/// §15.4: points are not split).
pub fn clip(pos: &[[f32; 4]], clip: &ClipSetup, dists: &[Vec<f32>]) -> Clipped {
    if pos.iter().flatten().any(|c| !c.is_finite()) {
        return Clipped::Outside;
    }
    let n = pos.len().min(3);
    // The view volume's planes first, then each clip distance component, in that order.
    let (view, nview) = view_planes(pos, clip);
    let ndist = dists.first().map_or(0, Vec::len);
    let plane = |k: usize| {
        if k < nview {
            view[k]
        } else {
            distance_plane(dists, k - nview)
        }
    };
    let mut all_in = true;
    for k in 0..nview + ndist {
        let p = plane(k);
        let ins = p.iter().take(n).filter(|&&v| v >= 0.0).count();
        if ins == 0 {
            return Clipped::Outside;
        }
        if ins < n {
            all_in = false;
        }
    }
    if all_in {
        return Clipped::Inside;
    }
    let mut poly: Vec<Weights> = (0..n)
        .map(|i| {
            let mut w = [0.0; 3];
            w[i] = 1.0;
            w
        })
        .collect();
    let value = |p: &[f64; 3], w: &Weights| p[0] * w[0] + p[1] * w[1] + p[2] * w[2];
    for pk in 0..nview + ndist {
        let p = &plane(pk);
        if poly.is_empty() {
            break;
        }
        if n == 2 {
            // A segment: keep the part inside, both ends moved independently.
            let (a, b) = (poly[0], poly[1]);
            let (va, vb) = (value(p, &a), value(p, &b));
            match (va >= 0.0, vb >= 0.0) {
                (true, true) => {}
                (false, false) => poly.clear(),
                (true, false) => poly[1] = lerp(&a, &b, va / (va - vb)),
                (false, true) => poly[0] = lerp(&b, &a, vb / (vb - va)),
            }
            continue;
        }
        let mut out = Vec::with_capacity(poly.len() + 1);
        for k in 0..poly.len() {
            let a = poly[k];
            let b = poly[(k + 1) % poly.len()];
            let (va, vb) = (value(p, &a), value(p, &b));
            if va >= 0.0 {
                out.push(a);
            }
            if (va >= 0.0) != (vb >= 0.0) {
                // From the inside vertex towards the outside one (see the module doc).
                let x = if va >= 0.0 {
                    lerp(&a, &b, va / (va - vb))
                } else {
                    lerp(&b, &a, vb / (vb - va))
                };
                out.push(x);
            }
        }
        poly = out;
    }
    if poly.len() < n {
        Clipped::Outside
    } else {
        Clipped::Polygon(poly)
    }
}

fn lerp(a: &Weights, b: &Weights, t: f64) -> Weights {
    [
        a[0] + (b[0] - a[0]) * t,
        a[1] + (b[1] - a[1]) * t,
        a[2] + (b[2] - a[2]) * t,
    ]
}

/// The clip-space position of weights `w` over `pos`, rounded to f32.
pub fn position(pos: &[[f32; 4]], w: &Weights) -> [f32; 4] {
    let mut out = [0f32; 4];
    for (c, o) in out.iter_mut().enumerate() {
        let mut s = 0f64;
        for (i, p) in pos.iter().enumerate().take(3) {
            s += w[i] * f64::from(p[c]);
        }
        *o = s as f32;
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> ClipSetup {
        ClipSetup {
            x: [-1.0, 1.0],
            y: [-1.0, 1.0],
            depth_clip: true,
        }
    }

    /// D3D11.3 §15.4: inside the view volume nothing changes; wholly outside one plane
    /// draws nothing.
    #[test]
    fn trivial_accept_and_reject() {
        let t = [
            [0.0, 0.0, 0.5, 1.0],
            [1.0, 0.0, 0.5, 1.0],
            [0.0, 1.0, 0.5, 1.0],
        ];
        assert_eq!(clip(&t, &setup(), &[]), Clipped::Inside);
        let far = t.map(|p| [p[0], p[1], 2.0, 1.0]);
        assert_eq!(clip(&far, &setup(), &[]), Clipped::Outside);
        let nan = [[f32::NAN, 0.0, 0.5, 1.0], t[1], t[2]];
        assert_eq!(clip(&nan, &setup(), &[]), Clipped::Outside);
        // Past the viewport in x: cut there (no guard band).
        let wide = t.map(|p| [p[0] * 1.5, p[1], p[2], p[3]]);
        let Clipped::Polygon(p) = clip(&wide, &setup(), &[]) else {
            panic!()
        };
        assert_eq!(p.len(), 4);
    }

    /// D3D11.3 §15.4 as WARP clips: at the viewport, `−w ≤ x ≤ w`, no guard band. The
    /// triangle (0, 0), (2, 0), (0, 1) (w = 1) loses what lies past x = 1: AB is cut at
    /// t = ½, at (1, 0); BC, from C towards B, at t = ½, at (1, ½).
    #[test]
    fn x_is_clipped_at_the_viewport() {
        let t = [
            [0.0, 0.0, 0.5, 1.0],
            [2.0, 0.0, 0.5, 1.0],
            [0.0, 1.0, 0.5, 1.0],
        ];
        let cs = ClipSetup::new(0.0, 0.0, 64.0, 64.0, true);
        assert_eq!((cs.x, cs.y), ([-1.0, 1.0], [-1.0, 1.0]));
        let Clipped::Polygon(p) = clip(&t, &cs, &[]) else {
            panic!()
        };
        let at: Vec<[f32; 4]> = p.iter().map(|w| position(&t, w)).collect();
        assert_eq!(
            at,
            vec![
                [0.0, 0.0, 0.5, 1.0],
                [1.0, 0.0, 0.5, 1.0],
                [1.0, 0.5, 0.5, 1.0],
                [0.0, 1.0, 0.5, 1.0]
            ]
        );
        // The mirror image on the left edge, and the same in y.
        let m = t.map(|p| [-p[0], p[1], p[2], p[3]]);
        let Clipped::Polygon(p) = clip(&m, &cs, &[]) else {
            panic!()
        };
        assert!(p.iter().any(|w| position(&m, w)[..2] == [-1.0, 0.5]));
        let ty = t.map(|p| [p[1], p[0], p[2], p[3]]);
        let Clipped::Polygon(p) = clip(&ty, &cs, &[]) else {
            panic!()
        };
        assert!(p.iter().any(|w| position(&ty, w)[..2] == [0.5, 1.0]));
    }

    /// A viewport reaching past ±2^19 pixels is clipped at that box instead (the
    /// fixed-point range `setup` relies on): x = 0, width 2^21 has its centre at 2^20
    /// and half-width 2^20, so NDC x is kept in [−1, (2^19 − 2^20)/2^20] = [−1, −½].
    #[test]
    fn huge_viewports_are_clipped_at_the_fixed_point_range() {
        let cs = ClipSetup::new(0.0, 0.0, 2_097_152.0, 64.0, true);
        assert_eq!(cs.x, [-1.0, -0.5]);
        assert_eq!(cs.y, [-1.0, 1.0]);
    }

    /// The near plane cuts a triangle into a quadrilateral whose new vertices lie on it.
    #[test]
    fn near_plane_makes_a_quad() {
        let t = [
            [0.0, 0.0, -1.0, 1.0],
            [1.0, 0.0, 1.0, 1.0],
            [0.0, 1.0, 1.0, 1.0],
        ];
        let Clipped::Polygon(p) = clip(&t, &setup(), &[]) else {
            panic!()
        };
        assert_eq!(p.len(), 4);
        for w in &p {
            let z = position(&t, w)[2];
            assert!(z >= 0.0, "{z}");
            assert!((w.iter().sum::<f64>() - 1.0).abs() < 1e-12);
        }
    }

    /// D3D11.3 §15.4.1, §15.4.2: clip distances cut where they are negative; cull distances drop the
    /// primitive only when one component is negative at every vertex.
    #[test]
    fn clip_and_cull_distances() {
        let t = [
            [0.0, 0.0, 0.5, 1.0],
            [1.0, 0.0, 0.5, 1.0],
            [0.0, 1.0, 0.5, 1.0],
        ];
        let d = vec![vec![1.0], vec![-1.0], vec![1.0]];
        let Clipped::Polygon(p) = clip(&t, &setup(), &d) else {
            panic!()
        };
        assert_eq!(p.len(), 4);
        assert!(culled_by_distance(&[
            vec![-1.0, 1.0],
            vec![-2.0, -1.0],
            vec![-0.5, 1.0]
        ]));
        assert!(!culled_by_distance(&[
            vec![-1.0, 1.0],
            vec![2.0, -1.0],
            vec![-0.5, 1.0]
        ]));
    }

    /// A line crossing the near plane keeps its inside part.
    #[test]
    fn lines_clip_to_a_segment() {
        let l = [[0.0, 0.0, -1.0, 1.0], [0.0, 0.0, 1.0, 1.0]];
        let Clipped::Polygon(p) = clip(&l, &setup(), &[]) else {
            panic!()
        };
        assert_eq!(p.len(), 2);
        assert_eq!(position(&l, &p[0])[2], 0.0);
        assert_eq!(p[1], [0.0, 1.0, 0.0]);
    }
}
