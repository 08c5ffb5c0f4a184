//! The rasterizer: which samples of which pixels a set-up primitive covers, found in
//! integer arithmetic on the 16.8 fixed-point edge functions of `setup`, 2×2 quads at a
//! time, one tile at a time.
//!
//! # Rules
//!
//! - **Sample positions** (D3D11.3 §19.2.4 "Specification of Sample Positions",
//!   `D3D11_STANDARD_MULTISAMPLE_PATTERN`): pixel centres at .5, each sample offset by the
//!   standard pattern for 1, 2, 4, 8 or 16 samples in 1/16 pixel
//!   (`resources::texture::standard_sample_position`). Triangles and points are sampled at
//!   every sample of the render target; the pixel stage runs where any is covered.
//! - **Programmable sample positions** (DirectX-Specs "D3D12 Programmable Sample
//!   Positions", `SetSamplePositions`): [`Pattern::programmed`] replaces the standard
//!   offsets, one set for every pixel or one per pixel of a 2×2 grid aligned to even
//!   coordinates; coverage, and every location the pattern gives (`interp`: sample and
//!   centroid locations, the per-sample depth the output merger tests), use them.
//! - **Triangles**: a sample is covered when every edge function is ≥ 0 there (the
//!   top-left rule is folded into the edges by `setup`).
//! - **Points**: the half-open 1×1 square around the point (two triangles under the
//!   top-left rule).
//! - **Aliased lines** (D3D11.3 §3.4.3 "Aliased Line Rasterization Rules", the diamond
//!   test): each pixel has a diamond `|x − cx| + |y − cy| ≤ ½` around its centre. For an
//!   x-major line (`|dx| ≥ |dy|`) the diamond includes its lower-left and lower-right
//!   edges and bottom corner and excludes the upper edges and the top, left and right
//!   corners; a y-major line's diamond also includes the right corner. A pixel is covered
//!   when the segment meets its diamond and its end point is not inside it (the line
//!   *exits* the diamond), which draws shared line-strip vertices once. An aliased line
//!   covers every sample of the pixels it covers.
//! - **Quadrilateral lines** (§3.4.5, §15.14.1; `MultisampleEnable`, or
//!   `D3D12_RASTERIZER_DESC2`'s `QUADRILATERAL_WIDE` and `QUADRILATERAL_NARROW`): the
//!   snapped rectangle 1.4 (narrow: 1.0) pixels wide `setup` makes, sampled like a triangle — inside all four
//!   edges, the top-left rule folded into each — at every sample of the pattern.
//! - **Alpha-antialiased lines** (§3.4.4): a pixel is covered, every sample, when the
//!   1-pixel-wide rectangle covers part of it ([`aa_line_coverage`], which also gives the
//!   factor on the pixel's `o0.a`).
//! - **Inner coverage** (`SV_InnerCoverage`): a pixel whose four corners are inside every
//!   edge of a triangle is wholly inside it (triangles are convex); a coarse pixel
//!   (`vrs`) is inner-covered when its whole rectangle of fine pixels is.
//! - **Conservative rasterization, tier 1** (DirectX-Specs "Conservative Rasterization";
//!   `D3D12_CONSERVATIVE_RASTERIZATION_TIER_1`, whose uncertainty region may reach half a
//!   pixel): dxlane takes no uncertainty at all — a pixel is covered exactly when the
//!   open (snapped) triangle meets the open pixel square, so a pixel the triangle touches
//!   only along a pixel edge or at a corner is not, and the Top-Left Rule (which the
//!   specification leaves to the implementation here) never comes into play. The test
//!   is exact in integers: the primitive's box separates along x and y, and an edge
//!   separates when its function, largest at a corner of the square, is ≤ 0 there.
//!   Every sample of a covered pixel is covered, whatever the pattern ("Multisampling
//!   interaction"). Inner coverage is the closed pixel square inside the closed
//!   triangle.

use super::setup::{Edge, Prim, SUBPIXEL, Shape};
use crate::resources::texture::standard_sample_position;

/// Sample offsets within a pixel, in fixed point from the pixel's top-left corner.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Pattern {
    /// `(x, y)` of each sample: `128 + 16·sx`, `128 + 16·sy` — of every pixel, or with
    /// [`Pattern::quad`] of the pixels with even x and y.
    pub offsets: Vec<[i64; 2]>,
    /// Programmed positions for a 2×2 grid of pixels (`SetSamplePositions` with
    /// `NumPixels = 4`): the offsets of pixels (odd, even), (even, odd) and (odd, odd),
    /// in that order; `offsets` holds (even, even)'s. Empty for one pattern everywhere.
    pub quad: Vec<Vec<[i64; 2]>>,
}

/// `D3D12_SAMPLE_POSITION`'s range in sixteenths of a pixel from the centre (DirectX-Specs
/// "D3D12 Programmable Sample Positions": the right and bottom edges are not reachable).
pub const SAMPLE_POSITION_RANGE: std::ops::RangeInclusive<i8> = -8..=7;

impl Pattern {
    /// The standard pattern of `count` samples (1, 2, 4, 8 or 16); `None` for others.
    pub fn standard(count: u32) -> Option<Pattern> {
        let mut offsets = Vec::with_capacity(count as usize);
        for i in 0..count {
            let [sx, sy] = standard_sample_position(count, i)?;
            offsets.push(Self::offset([sx.into(), sy.into()]));
        }
        Some(Pattern {
            offsets,
            quad: Vec::new(),
        })
    }

    fn offset([sx, sy]: [i32; 2]) -> [i64; 2] {
        [
            SUBPIXEL / 2 + i64::from(sx) * SUBPIXEL / 16,
            SUBPIXEL / 2 + i64::from(sy) * SUBPIXEL / 16,
        ]
    }

    /// `SetSamplePositions(count, pixels, positions)`: `positions` holds `count`
    /// positions per pixel for 1 pixel (every pixel) or 4 (a 2×2 grid aligned to even
    /// coordinates, left to right, top to bottom), each in sixteenths of a pixel from
    /// the centre within [`SAMPLE_POSITION_RANGE`]. The order of a pixel's positions is
    /// its sample order, which is also the centroid's priority. Errors say which rule
    /// `positions` breaks.
    pub fn programmed(count: u32, positions: &[[i8; 2]]) -> Result<Pattern, String> {
        if !matches!(count, 1 | 2 | 4 | 8 | 16) {
            return Err(format!(
                "{count} samples: programmable positions take 1, 2, 4, 8 or 16"
            ));
        }
        let n = count as usize;
        let pixels = positions.len() / n;
        if positions.len() % n != 0 || !matches!(pixels, 1 | 4) || positions.len() > 16 {
            return Err(format!(
                "{} sample positions for {count} samples per pixel: give {count} (every pixel) or {} (a 2×2 grid of pixels), at most 16",
                positions.len(),
                4 * n
            ));
        }
        if let Some((i, p)) = positions
            .iter()
            .enumerate()
            .find(|(_, p)| !p.iter().all(|v| SAMPLE_POSITION_RANGE.contains(v)))
        {
            return Err(format!(
                "sample position #{} ({}, {}) lies outside -8..7 sixteenths of a pixel",
                i + 1,
                p[0],
                p[1]
            ));
        }
        let mut sets = positions
            .chunks(n)
            .map(|c| c.iter().map(|p| Self::offset(p.map(i32::from))).collect());
        let offsets = sets.next().unwrap_or_default();
        Ok(Pattern {
            offsets,
            quad: sets.collect(),
        })
    }

    /// Samples per pixel.
    pub fn count(&self) -> u32 {
        self.offsets.len() as u32
    }

    /// Every sample's bit.
    pub fn all(&self) -> u32 {
        if self.offsets.len() >= 32 {
            u32::MAX
        } else {
            (1u32 << self.offsets.len()) - 1
        }
    }

    /// The offsets of pixel `(px, py)`'s samples.
    pub fn at(&self, px: i64, py: i64) -> &[[i64; 2]] {
        match (px & 1) + 2 * (py & 1) {
            0 => &self.offsets,
            k => self.quad.get(k as usize - 1).unwrap_or(&self.offsets),
        }
    }

    /// Sample `i`'s position relative to the pixel centre, in pixels (of the pixels with
    /// even x and y, when the pattern differs over a 2×2 grid).
    pub fn position(&self, i: u32) -> Option<[f32; 2]> {
        self.position_at(0, 0, i)
    }

    /// Sample `i`'s position in pixel `(px, py)` relative to its centre, in pixels.
    pub fn position_at(&self, px: u32, py: u32, i: u32) -> Option<[f32; 2]> {
        let o = self.at(i64::from(px), i64::from(py)).get(i as usize)?;
        let f = |v: i64| (v - SUBPIXEL / 2) as f32 / SUBPIXEL as f32;
        Some([f(o[0]), f(o[1])])
    }
}

/// A quad's coverage: pixels `(x, y)`, `(x+1, y)`, `(x, y+1)`, `(x+1, y+1)` (x, y even),
/// each with its covered samples.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct QuadCoverage {
    /// Left column (even).
    pub x: u32,
    /// Top row (even).
    pub y: u32,
    /// Covered samples of the top-left, top-right, bottom-left, bottom-right pixels.
    pub mask: [u32; 4],
}

/// The samples of pixel `(px, py)` the primitive covers.
pub fn pixel_coverage(prim: &Prim, pattern: &Pattern, px: i32, py: i32) -> u32 {
    shape_coverage(&prim.shape, pattern, px, py)
}

/// The samples of pixel `(px, py)` that `shape` covers.
pub fn shape_coverage(shape: &Shape, pattern: &Pattern, px: i32, py: i32) -> u32 {
    let bx = i64::from(px) * SUBPIXEL;
    let by = i64::from(py) * SUBPIXEL;
    match shape {
        Shape::Triangle(e) => {
            let mut m = 0;
            for (i, o) in pattern.at(px.into(), py.into()).iter().enumerate() {
                let (x, y) = (bx + o[0], by + o[1]);
                if e[0].eval(x, y) >= 0 && e[1].eval(x, y) >= 0 && e[2].eval(x, y) >= 0 {
                    m |= 1 << i;
                }
            }
            m
        }
        Shape::Conservative(e) => {
            if conservative_covers(e, px, py) {
                pattern.all()
            } else {
                0
            }
        }
        Shape::Square { x0, y0, x1, y1 } => {
            let mut m = 0;
            for (i, o) in pattern.at(px.into(), py.into()).iter().enumerate() {
                let (x, y) = (bx + o[0], by + o[1]);
                if *x0 <= x && x < *x1 && *y0 <= y && y < *y1 {
                    m |= 1 << i;
                }
            }
            m
        }
        Shape::Line { a, b } => {
            let c = [bx + SUBPIXEL / 2, by + SUBPIXEL / 2];
            if line_covers(*a, *b, c) {
                pattern.all()
            } else {
                0
            }
        }
        Shape::Quad(q) => {
            let e = quad_edges(q);
            let mut m = 0;
            for (i, o) in pattern.at(px.into(), py.into()).iter().enumerate() {
                let (x, y) = (bx + o[0], by + o[1]);
                if e.iter().flatten().all(|e| e.eval(x, y) >= 0) {
                    m |= 1 << i;
                }
            }
            m
        }
        Shape::AaLine { a, b } => {
            if aa_line_coverage(*a, *b, px, py) > 0.0 {
                pattern.all()
            } else {
                0
            }
        }
    }
}

/// The edges of a quadrilateral line's corners `q` (clockwise), each with the top-left
/// rule folded in as `setup` folds it into a triangle's; `None` for an edge of no
/// length (corners that snapped together), which decides nothing.
fn quad_edges(q: &[[i64; 2]; 4]) -> [Option<Edge>; 4] {
    std::array::from_fn(|k| {
        let (p, n) = (q[k], q[(k + 1) % 4]);
        let (dx, dy) = (n[0] - p[0], n[1] - p[1]);
        if dx == 0 && dy == 0 {
            return None;
        }
        let c = dy * p[0] - dx * p[1];
        let top_left = dy < 0 || (dy == 0 && dx > 0);
        Some(Edge {
            a: -dy,
            b: dx,
            c: if top_left { c } else { c - 1 },
        })
    })
}

/// How much of pixel `(px, py)`'s square an alpha-antialiased line from `a` to `b`
/// (fixed point) covers: the area of its intersection with the rectangle 1 pixel wide
/// whose short sides are centred on the ends (D3D11.3 §3.4.4), in `[0, 1]`, rounded to
/// a multiple of 1/256.
///
/// §3.4.4 leaves the estimate to the implementation (its reference filters with a
/// kernel 3 pixels wide, and hardware "need not exactly match"), and no public source
/// states what WARP computes: dxlane takes the exact area (a box filter), which keeps
/// the section's stated property that a line's total contribution equals its area,
/// computed in f64 by clipping the rectangle to the square, and rounds it to 8 bits — the
/// subpixel grid's precision — so that a pixel the rectangle only touches along an
/// edge (area 0, or a rounding error's worth) is not covered.
pub fn aa_line_coverage(a: [i64; 2], b: [i64; 2], px: i32, py: i32) -> f32 {
    let f = |v: i64| v as f64 / SUBPIXEL as f64;
    let (ax, ay, bx, by) = (f(a[0]), f(a[1]), f(b[0]), f(b[1]));
    let (dx, dy) = (bx - ax, by - ay);
    let len = dx.hypot(dy);
    if len == 0.0 {
        return 0.0;
    }
    let (nx, ny) = (-dy / len * 0.5, dx / len * 0.5);
    let mut poly = vec![
        [ax + nx, ay + ny],
        [bx + nx, by + ny],
        [bx - nx, by - ny],
        [ax - nx, ay - ny],
    ];
    let (x0, y0) = (f64::from(px), f64::from(py));
    // Sutherland–Hodgman against the square's four sides, each as `k·p ≥ lim`.
    let sides: [(usize, f64, f64); 4] = [
        (0, 1.0, x0),
        (0, -1.0, -(x0 + 1.0)),
        (1, 1.0, y0),
        (1, -1.0, -(y0 + 1.0)),
    ];
    for (axis, sign, lim) in sides {
        let inside = |p: &[f64; 2]| sign * p[axis] >= lim;
        let mut out = Vec::with_capacity(poly.len() + 1);
        for k in 0..poly.len() {
            let (p, q) = (poly[k], poly[(k + 1) % poly.len()]);
            let (pin, qin) = (inside(&p), inside(&q));
            if pin {
                out.push(p);
            }
            if pin != qin {
                let t = (lim - sign * p[axis]) / (sign * (q[axis] - p[axis]));
                out.push([p[0] + t * (q[0] - p[0]), p[1] + t * (q[1] - p[1])]);
            }
        }
        poly = out;
        if poly.len() < 3 {
            return 0.0;
        }
    }
    let twice: f64 = (0..poly.len())
        .map(|k| {
            let (p, q) = (poly[k], poly[(k + 1) % poly.len()]);
            p[0] * q[1] - q[0] * p[1]
        })
        .sum();
    let area = (twice.abs() * 0.5).min(1.0);
    ((area * 256.0).round_ties_even() / 256.0) as f32
}

/// Whether the open square of pixel `(px, py)` meets the open triangle inside the exact
/// edges `e` (conservative rasterization; the pixel box of the primitive does the
/// separation along x and y). An edge function takes its greatest value over the square
/// at a corner: the centre's value plus half a pixel times `|a| + |b|`.
pub fn conservative_covers(e: &[Edge; 3], px: i32, py: i32) -> bool {
    let cx = i64::from(px) * SUBPIXEL + SUBPIXEL / 2;
    let cy = i64::from(py) * SUBPIXEL + SUBPIXEL / 2;
    e.iter()
        .all(|e| e.eval(cx, cy) + (e.a.abs() + e.b.abs()) * (SUBPIXEL / 2) > 0)
}

/// Whether pixel `(px, py)` lies wholly inside a triangle (`SV_InnerCoverage`).
pub fn inner_coverage(prim: &Prim, px: i32, py: i32) -> bool {
    inner_coverage_of(prim, px, py, [1, 1])
}

/// Whether the `size[0]` × `size[1]` pixels from `(px, py)` lie wholly inside a
/// triangle: a coarse pixel's `SV_InnerCoverage` (`pipeline::vrs`).
pub fn inner_coverage_of(prim: &Prim, px: i32, py: i32, size: [u32; 2]) -> bool {
    let (Shape::Triangle(e) | Shape::Conservative(e)) = &prim.shape else {
        return false;
    };
    let bx = i64::from(px) * SUBPIXEL;
    let by = i64::from(py) * SUBPIXEL;
    let (w, h) = (i64::from(size[0]) * SUBPIXEL, i64::from(size[1]) * SUBPIXEL);
    let inside = |e: &Edge| {
        [(0, 0), (w, 0), (0, h), (w, h)]
            .iter()
            .all(|(dx, dy)| e.eval(bx + dx, by + dy) >= 0)
    };
    e.iter().all(inside)
}

/// Calls `f` for every quad of `prim` inside `rect` (`[x0, y0, x1, y1)`, even x0 and
/// y0) with at least one covered sample, row by row, left to right.
///
/// Triangles step their edge functions from quad to quad (exact: integer arithmetic)
/// and test each quad's box of sample points against every edge first: a box inside all
/// edges is wholly covered, a box outside one edge wholly uncovered, and only the quads
/// in between test their samples one by one — the same masks as [`pixel_coverage`].
/// Walking many primitives with one pattern, make a [`QuadWalk`] once instead.
pub fn for_each_quad<F: FnMut(QuadCoverage) + ?Sized>(
    prim: &Prim,
    pattern: &Pattern,
    rect: [i32; 4],
    f: &mut F,
) {
    QuadWalk::new(pattern).quads(&prim.shape, prim.bbox, rect, f);
}

/// Most sample points a quad has: 4 pixels of 16 samples.
const QUAD_POINTS: usize = 64;

/// A sample pattern laid out for walking 2×2 quads, made once for many primitives (a
/// tile's): every sample point of a quad relative to its top-left corner, and their box.
/// A primitive's walk then starts from its edges alone, and a quad that the edges cut
/// finds its masks from its corner's edge values by adding constants of the primitive —
/// the work of a small triangle, most of whose quads an edge cuts.
#[derive(Debug, Clone)]
pub struct QuadWalk<'p> {
    pattern: &'p Pattern,
    /// Sample `s` of the quad's pixel `k` (`k = dx + 2·dy`, the order of
    /// [`QuadCoverage::mask`]) at `k · count + s`: its position from the quad's top-left
    /// corner, fixed point ([`Pattern::at`] of the pixel's parity).
    points: [[i64; 2]; QUAD_POINTS],
    /// How many of `points` there are: 4 × the sample count; 0 when the pattern is not
    /// one the stepped walk takes (no samples, or more than 16), which walks pixel by
    /// pixel instead.
    n: usize,
    /// The points' box: least and greatest x, least and greatest y.
    bounds: [[i64; 2]; 2],
}

impl<'p> QuadWalk<'p> {
    /// The quad layout of `pattern`.
    pub fn new(pattern: &'p Pattern) -> QuadWalk<'p> {
        let count = pattern.offsets.len();
        let mut w = QuadWalk {
            pattern,
            points: [[0; 2]; QUAD_POINTS],
            n: 0,
            bounds: [[i64::MAX, i64::MIN]; 2],
        };
        if count == 0 || 4 * count > QUAD_POINTS {
            return w;
        }
        for k in 0..4 {
            let (dx, dy) = ((k & 1) as i64, (k >> 1) as i64);
            let at = pattern.at(dx, dy);
            // `Pattern::programmed` gives every pixel of the grid as many samples as
            // the first; a pattern built otherwise walks pixel by pixel.
            if at.len() != count {
                return QuadWalk { n: 0, ..w };
            }
            for (s, o) in at.iter().enumerate() {
                let p = [dx * SUBPIXEL + o[0], dy * SUBPIXEL + o[1]];
                w.points[k * count + s] = p;
                for (b, v) in w.bounds.iter_mut().zip(p) {
                    *b = [b[0].min(v), b[1].max(v)];
                }
            }
        }
        w.n = 4 * count;
        w
    }

    /// [`for_each_quad`] of a primitive given by what it covers, `shape`, and its pixel
    /// box `bbox` (a tile's list carries these, `bin::Binned`).
    // The hint lets the tile loop (`tile`, another codegen unit) inline it.
    #[inline]
    pub fn quads<F: FnMut(QuadCoverage) + ?Sized>(
        &self,
        shape: &Shape,
        bbox: [i32; 4],
        rect: [i32; 4],
        f: &mut F,
    ) {
        let [bx0, by0, bx1, by1] = bbox;
        let r = [
            bx0.max(rect[0]),
            by0.max(rect[1]),
            bx1.min(rect[2]),
            by1.min(rect[3]),
        ];
        if r[0] >= r[2] || r[1] >= r[3] {
            return;
        }
        if let Shape::Triangle(e) = shape {
            // One walk per sample count: the masks' loops are then of a known length.
            match self.n {
                4 => return self.triangle::<4, F>(e, r, f),
                8 => return self.triangle::<8, F>(e, r, f),
                16 => return self.triangle::<16, F>(e, r, f),
                32 => return self.triangle::<32, F>(e, r, f),
                64 => return self.triangle::<64, F>(e, r, f),
                _ => {}
            }
        }
        quads_by_pixel(shape, self.pattern, r, f);
    }

    /// The quads of a triangle with edges `e` over the pixels `r` (see [`for_each_quad`]);
    /// `N` is `self.n`.
    #[inline]
    fn triangle<const N: usize, F: FnMut(QuadCoverage) + ?Sized>(
        &self,
        e: &[Edge; 3],
        r: [i32; 4],
        f: &mut F,
    ) {
        let samples = N / 4;
        let [x0, y0, x1, y1] = r;
        let (qx0, qy0) = (x0 & !1, y0 & !1);
        let [bx, by] = self.bounds;
        // Per edge: the offsets from the corner's value to its least and greatest value
        // over the points' box (a linear function takes both at corners of the box).
        let least = e.map(|e| {
            e.a * if e.a >= 0 { bx[0] } else { bx[1] } + e.b * if e.b >= 0 { by[0] } else { by[1] }
        });
        let most = e.map(|e| {
            e.a * if e.a >= 0 { bx[1] } else { bx[0] } + e.b * if e.b >= 0 { by[1] } else { by[0] }
        });
        // Per edge and point: the offset from the corner's value to the point's, made
        // with the first quad an edge cuts (a quad inside or outside needs none).
        let mut delta = [[0i64; N]; 3];
        let mut have_delta = false;
        let step = e.map(|e| 2 * SUBPIXEL * e.a);
        let all = self.pattern.all();
        let mut qy = qy0;
        while qy < y1 {
            let mut v = e.map(|e| e.eval(i64::from(qx0) * SUBPIXEL, i64::from(qy) * SUBPIXEL));
            let rows_in = qy >= y0 && qy + 1 < y1;
            let mut qx = qx0;
            while qx < x1 {
                let outside = (0..3).any(|k| v[k] + most[k] < 0);
                if !outside {
                    let inside = (0..3).all(|k| v[k] + least[k] >= 0);
                    if inside && rows_in && qx >= x0 && qx + 1 < x1 {
                        // A call of its own for whole quads: the mask is then one constant
                        // that the compiler stores at once, which a receiver reading it as
                        // a whole can take straight from the store (four separate stores
                        // read back as one stall the receiver).
                        f(QuadCoverage {
                            x: qx as u32,
                            y: qy as u32,
                            mask: [all; 4],
                        });
                    } else {
                        if !inside && !have_delta {
                            for (d, e) in delta.iter_mut().zip(e) {
                                for (d, p) in d.iter_mut().zip(&self.points) {
                                    *d = e.a * p[0] + e.b * p[1];
                                }
                            }
                            have_delta = true;
                        }
                        let mut mask = [0u32; 4];
                        for (k, m) in mask.iter_mut().enumerate() {
                            let px = qx + (k as i32 & 1);
                            let py = qy + (k as i32 >> 1);
                            if px < x0 || px >= x1 || py < y0 || py >= y1 {
                                continue;
                            }
                            *m = if inside {
                                all
                            } else {
                                let mut bits = 0;
                                for s in 0..samples {
                                    let j = k * samples + s;
                                    // Negative when any of the three is: a sample is
                                    // covered when every edge function is ≥ 0.
                                    let signs = (v[0] + delta[0][j])
                                        | (v[1] + delta[1][j])
                                        | (v[2] + delta[2][j]);
                                    bits |= u32::from(signs >= 0) << s;
                                }
                                bits
                            };
                        }
                        if mask.iter().any(|&m| m != 0) {
                            f(QuadCoverage {
                                x: qx as u32,
                                y: qy as u32,
                                mask,
                            });
                        }
                    }
                }
                for k in 0..3 {
                    v[k] += step[k];
                }
                qx += 2;
            }
            qy += 2;
        }
    }
}

/// The quads of `shape` over the pixels `r` (`[x0, y0, x1, y1)`, not empty), each
/// pixel's samples tested one by one ([`shape_coverage`]): the walk of every shape but
/// the stepped triangle's, and the reference that one is tested against.
fn quads_by_pixel<F: FnMut(QuadCoverage) + ?Sized>(
    shape: &Shape,
    pattern: &Pattern,
    r: [i32; 4],
    f: &mut F,
) {
    let [x0, y0, x1, y1] = r;
    let mut qy = y0 & !1;
    while qy < y1 {
        let mut qx = x0 & !1;
        while qx < x1 {
            let mut mask = [0u32; 4];
            for (k, m) in mask.iter_mut().enumerate() {
                let px = qx + (k as i32 & 1);
                let py = qy + (k as i32 >> 1);
                if px >= x0 && px < x1 && py >= y0 && py < y1 {
                    *m = shape_coverage(shape, pattern, px, py);
                }
            }
            if mask.iter().any(|&m| m != 0) {
                f(QuadCoverage {
                    x: qx as u32,
                    y: qy as u32,
                    mask,
                });
            }
            qx += 2;
        }
        qy += 2;
    }
}

/// One bound on the segment parameter `t`: `num / den` (den > 0), strict or not.
#[derive(Clone, Copy)]
struct Bound {
    num: i128,
    den: i128,
    strict: bool,
}

fn less(a: Bound, b: Bound) -> bool {
    a.num * b.den < b.num * a.den
}

fn equal(a: Bound, b: Bound) -> bool {
    a.num * b.den == b.num * a.den
}

/// The diamond-exit rule for the segment `a → b` and the pixel centred at `c` (all fixed
/// point; see the module doc).
pub fn line_covers(a: [i64; 2], b: [i64; 2], c: [i64; 2]) -> bool {
    let x_major = (b[0] - a[0]).abs() >= (b[1] - a[1]).abs();
    let h = SUBPIXEL / 2;
    // The diamond's four half-planes as g(u, v) = k0 + ku·u + kv·v with u = x − cx,
    // v = y − cy; `strict` ones exclude their edge.
    let planes: [(i64, i64, bool); 4] = [
        (-1, -1, false), // lower-right edge: u + v ≤ ½
        (1, -1, false),  // lower-left edge: −u + v ≤ ½
        (1, 1, true),    // upper-left edge: −u − v < ½
        (-1, 1, true),   // upper-right edge: u − v < ½
    ];
    let g =
        |p: [i64; 2], (ku, kv, _): (i64, i64, bool)| h + ku * (p[0] - c[0]) + kv * (p[1] - c[1]);
    let right_corner = |p: [i64; 2]| p[0] - c[0] == h && p[1] == c[1];
    let inside = |p: [i64; 2]| {
        if !x_major && right_corner(p) {
            return true;
        }
        planes.iter().all(|&pl| {
            let v = g(p, pl);
            if pl.2 { v > 0 } else { v >= 0 }
        })
    };
    if inside(b) {
        return false;
    }
    // Does the segment meet the diamond? Intersect the t-ranges of the four planes.
    let mut lo = Bound {
        num: 0,
        den: 1,
        strict: false,
    };
    let mut hi = Bound {
        num: 1,
        den: 1,
        strict: false,
    };
    let mut feasible = true;
    for &pl in &planes {
        let g0 = i128::from(g(a, pl));
        let dg = i128::from(g(b, pl)) - g0;
        let strict = pl.2;
        if dg == 0 {
            if g0 < 0 || (strict && g0 == 0) {
                feasible = false;
                break;
            }
            continue;
        }
        // g0 + t·dg ≥ 0 (> 0): t ≥ −g0/dg when dg > 0, t ≤ g0/(−dg) when dg < 0.
        if dg > 0 {
            let nb = Bound {
                num: -g0,
                den: dg,
                strict,
            };
            if less(lo, nb) || (equal(lo, nb) && strict) {
                lo = nb;
            }
        } else {
            let nb = Bound {
                num: g0,
                den: -dg,
                strict,
            };
            if less(nb, hi) || (equal(nb, hi) && strict) {
                hi = nb;
            }
        }
    }
    let meets = feasible && (less(lo, hi) || (equal(lo, hi) && !lo.strict && !hi.strict));
    if meets {
        return true;
    }
    // The y-major diamond's right corner is a single extra point.
    !x_major && {
        let p = [c[0] + h, c[1]];
        let (dx, dy) = (b[0] - a[0], b[1] - a[1]);
        let cross = (p[0] - a[0]) * dy - (p[1] - a[1]) * dx;
        let dot = (p[0] - a[0]) * dx + (p[1] - a[1]) * dy;
        cross == 0 && dot >= 0 && dot <= dx * dx + dy * dy
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::setup::{Plane, Prim};

    /// A triangle of vertices `v` in pixels, set up in a 16 × 16 target.
    fn tri(v: [[f64; 2]; 3]) -> Prim {
        tri_fixed(v.map(|p| p.map(|c| (c * 256.0) as i64)), 16).unwrap()
    }

    fn covered(p: &Prim, pat: &Pattern) -> Vec<(i32, i32)> {
        let mut v = Vec::new();
        for y in 0..16 {
            for x in 0..16 {
                if pixel_coverage(p, pat, x, y) != 0 {
                    v.push((x, y));
                }
            }
        }
        v
    }

    /// The D3D docs' example: triangles (0,0),(5,0),(5,5) and (0,5),(0,0),(5,5) cover 15
    /// and 10 pixels, never the same one.
    #[test]
    fn shared_diagonal_is_drawn_once() {
        let p1 = Pattern::standard(1).unwrap();
        let a = covered(&tri([[0.0, 0.0], [5.0, 0.0], [5.0, 5.0]]), &p1);
        let b = covered(&tri([[0.0, 5.0], [0.0, 0.0], [5.0, 5.0]]), &p1);
        assert_eq!((a.len(), b.len()), (15, 10));
        assert!(a.iter().all(|p| !b.contains(p)));
    }

    /// The docs' rectangle (0.5, 0.5)–(2.5, 4.5) as two triangles covers the pixels whose
    /// centres fall inside under the top-left rule: columns 0–1, rows 0–3.
    #[test]
    fn half_pixel_rectangle() {
        let p1 = Pattern::standard(1).unwrap();
        let mut all = covered(&tri([[0.5, 0.5], [2.5, 0.5], [2.5, 4.5]]), &p1);
        all.extend(covered(&tri([[0.5, 0.5], [2.5, 4.5], [0.5, 4.5]]), &p1));
        all.sort();
        let want: Vec<(i32, i32)> = (0..4).flat_map(|y| (0..2).map(move |x| (x, y))).collect();
        let mut want = want;
        want.sort();
        assert_eq!(all, want);
    }

    /// Sample positions come from the standard pattern: 4× samples at (−2,−6)/16 … .
    #[test]
    fn msaa_samples() {
        let p4 = Pattern::standard(4).unwrap();
        assert_eq!(p4.offsets[0], [128 - 32, 128 - 96]);
        assert_eq!(p4.position(1), Some([6.0 / 16.0, -2.0 / 16.0]));
        // A vertical edge at x = 0.5 exactly: samples with x offset ≥ 0 (0.5 + 6/16,
        // 0.5 + 2/16) are to its right.
        let t = tri([[0.5, -4.0], [12.0, 8.0], [0.5, 12.0]]);
        let m = pixel_coverage(&t, &p4, 0, 4);
        assert_eq!(m, 0b1010, "samples 1 and 3 lie right of the edge");
        assert!(Pattern::standard(3).is_none());
        let _ = Plane::default();
    }

    /// DirectX-Specs "D3D12 Programmable Sample Positions": positions in sixteenths from
    /// the centre, -8..7; one set for every pixel or four for a 2×2 grid; the count must
    /// be the sample count. A vertical edge at pixel-local x = ½ (the centre) covers the
    /// samples left of it: standard 4× samples 0 and 2, programmed
    /// (-8, 0), (-1, 0), (1, 0), (7, -8) samples 0 and 1 — and with a 2×2 grid, pixel
    /// (0, y) takes the first set and pixel (1, y) the second.
    #[test]
    fn programmed_positions_decide_coverage() {
        let t = tri([[-4.0, -4.0], [4.5, -4.0], [4.5, 12.0]]);
        // The edge from (4.5, -4) to (4.5, 12) is the right edge: covered samples lie
        // left of x = 4.5 in pixel 4.
        let std4 = Pattern::standard(4).unwrap();
        assert_eq!(pixel_coverage(&t, &std4, 4, 1), 0b0101);
        let p = Pattern::programmed(4, &[[-8, 0], [-1, 0], [1, 0], [7, -8]]).unwrap();
        assert_eq!(pixel_coverage(&t, &p, 4, 1), 0b0011);
        assert_eq!(p.position(3), Some([7.0 / 16.0, -0.5]));
        // 1 sample, a 2×2 grid: even columns sample at -4/16, odd at +4/16.
        let g = Pattern::programmed(1, &[[-4, 0], [4, 0], [-4, 0], [4, 0]]).unwrap();
        let t2 = tri([[-4.0, -4.0], [5.5, -4.0], [5.5, 12.0]]);
        // Edge at x = 5.5: odd pixel 5 samples at 5.75, outside (the even set's 5.25
        // would be inside); even pixel 4 at 4.25, inside.
        assert_eq!(pixel_coverage(&t2, &g, 5, 1), 0);
        assert_eq!(pixel_coverage(&t2, &g, 5, 2), 0);
        assert_eq!(pixel_coverage(&t2, &g, 4, 2), 1);
        let t3 = tri([[-4.0, -4.0], [4.5, -4.0], [4.5, 12.0]]);
        // Edge at x = 4.5: even pixel 4 samples at 4.25, inside (the odd set's 4.75
        // would be outside).
        assert_eq!(pixel_coverage(&t3, &g, 4, 1), 1);
        assert_eq!(g.position_at(5, 0, 0), Some([0.25, 0.0]));
        assert_eq!(g.position_at(4, 2, 0), Some([-0.25, 0.0]));
        // The stepped quads agree with the per-sample tests under a 2×2 grid.
        let mut got = Vec::new();
        for_each_quad(&t3, &g, [0, 0, 16, 16], &mut |q| got.push(q));
        assert_eq!(got, quads_by_pixel(&t3, &g, [0, 0, 16, 16]));
        // Refusals.
        assert!(Pattern::programmed(4, &[[0, 0]; 3]).is_err());
        assert!(Pattern::programmed(8, &[[0, 0]; 32]).is_err());
        assert!(
            Pattern::programmed(1, &[[8, 0]])
                .unwrap_err()
                .contains("#1 (8, 0)")
        );
        assert!(Pattern::programmed(3, &[[0, 0]; 3]).is_err());
    }

    /// DirectX-Specs "Conservative Rasterization" (tier 1, dxlane's exact overlap): the
    /// open triangle meets the open pixel square. The triangle (0, 0), (4, 0), (0, 4)
    /// covers pixel (1, 2) (its square reaches below the diagonal x + y = 4) but not
    /// (2, 2), whose square touches the diagonal only at its corner (2, 2).
    #[test]
    fn conservative_overlap_is_exact() {
        let e = |p: [i64; 2], q: [i64; 2]| {
            let (dx, dy) = (q[0] - p[0], q[1] - p[1]);
            Edge {
                a: -dy,
                b: dx,
                c: dy * p[0] - dx * p[1],
            }
        };
        let v = [[0, 0], [4 * SUBPIXEL, 0], [0, 4 * SUBPIXEL]];
        let edges = [e(v[0], v[1]), e(v[1], v[2]), e(v[2], v[0])];
        assert!(conservative_covers(&edges, 1, 2));
        assert!(conservative_covers(&edges, 0, 3));
        assert!(!conservative_covers(&edges, 2, 2));
        assert!(!conservative_covers(&edges, 3, 1));
        // (1, 1) lies wholly inside; (1, 2) is covered but not wholly.
        let p = Prim {
            shape: Shape::Conservative(edges),
            ..tri([[0.0, 0.0], [4.0, 0.0], [0.0, 4.0]])
        };
        assert!(inner_coverage(&p, 1, 1));
        assert!(!inner_coverage(&p, 1, 2));
        assert_eq!(
            pixel_coverage(&p, &Pattern::standard(8).unwrap(), 1, 2),
            0xff
        );
    }

    /// The quads of `prim` found pixel by pixel, as `for_each_quad` did before it
    /// stepped edges: the reference the stepping must equal.
    fn quads_by_pixel(prim: &Prim, pattern: &Pattern, rect: [i32; 4]) -> Vec<QuadCoverage> {
        let [bx0, by0, bx1, by1] = prim.bbox;
        let (x0, y0) = (bx0.max(rect[0]), by0.max(rect[1]));
        let (x1, y1) = (bx1.min(rect[2]), by1.min(rect[3]));
        let mut v = Vec::new();
        let mut qy = y0 & !1;
        while qy < y1 {
            let mut qx = x0 & !1;
            while qx < x1 {
                let mut mask = [0u32; 4];
                for (k, m) in mask.iter_mut().enumerate() {
                    let (px, py) = (qx + (k as i32 & 1), qy + (k as i32 >> 1));
                    if px >= x0 && px < x1 && py >= y0 && py < y1 {
                        *m = pixel_coverage(prim, pattern, px, py);
                    }
                }
                if mask.iter().any(|&m| m != 0) {
                    v.push(QuadCoverage {
                        x: qx as u32,
                        y: qy as u32,
                        mask,
                    });
                }
                qx += 2;
            }
            qy += 2;
        }
        v
    }

    /// D3D11.3 §15 (triangle rasterization, the top-left rule): stepping the edge
    /// functions quad by quad and taking whole quads inside every edge finds exactly the
    /// quads and sample masks of testing every sample, for triangles of every size and
    /// orientation, vertices on and off sample points, every standard pattern, and tile
    /// rectangles that cut quads.
    #[test]
    fn stepped_quads_equal_sample_tests() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = |m: i64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % m as u64) as i64
        };
        let st = crate::pipeline::setup::SetupState::plain(80, 80);
        let id = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let mut tested = 0;
        for n in 0..600 {
            // Sizes from a pixel to past the scissor; some snapped to whole and half
            // pixels (sample points and pixel centres), some anywhere.
            let span = [4 * SUBPIXEL, 24 * SUBPIXEL, 100 * SUBPIXEL][n % 3];
            let grid = [1, SUBPIXEL / 2, SUBPIXEL / 16][n % 4 % 3];
            let mut c = || (next(span) - span / 8) / grid * grid;
            let v = [[c(), c()], [c(), c()], [c(), c()]];
            let sv = v.map(|p| crate::pipeline::setup::ScreenVertex {
                x: p[0],
                y: p[1],
                z: 0.0,
            });
            let Some(p) = crate::pipeline::setup::triangle(&st, sv, id, [1.0; 3], [0; 3], 0) else {
                continue;
            };
            for count in [1, 2, 4, 8, 16] {
                let pat = Pattern::standard(count).unwrap();
                for rect in [[0, 0, 80, 80], [16, 8, 48, 40], [2, 6, 7, 9]] {
                    let mut got = Vec::new();
                    for_each_quad(&p, &pat, rect, &mut |q| got.push(q));
                    assert_eq!(
                        got,
                        quads_by_pixel(&p, &pat, rect),
                        "{v:?} {count} {rect:?}"
                    );
                    tested += 1;
                }
            }
        }
        assert!(tested > 5000, "{tested}");
    }

    /// D3D11.3 §3.4.5: a quadrilateral line's rectangle is 1.4 pixels wide with its short
    /// sides on the ends, corners snapped to 1/256 pixel (179.2 → 179 units across a
    /// horizontal line, 126.7 → 127 along each axis of a diagonal), clockwise; sampled
    /// under the top-left rule: along y = 4 from x = 2.5 to 10.5 the centres of rows 3–4,
    /// columns 2–9 (the left side owns x = 2.5, the right side not 10.5).
    #[test]
    fn quad_corners_are_snapped_and_clockwise() {
        use crate::pipeline::setup::quad_corners;
        let f = |x: f64, y: f64| [(x * 256.0) as i64, (y * 256.0) as i64];
        let q = quad_corners(f(2.5, 4.0), f(10.5, 4.0), 1.4);
        // From the start's corner on the normal (−dy, dx) side, then clockwise (y down):
        // up the left side, along the top, down the right side.
        assert_eq!(
            q,
            [
                [640, 1024 + 179],
                [640, 1024 - 179],
                [2688, 1024 - 179],
                [2688, 1024 + 179]
            ]
        );
        // The other direction gives the same rectangle, still clockwise.
        let r = quad_corners(f(10.5, 4.0), f(2.5, 4.0), 1.4);
        let mut sorted = r;
        sorted.sort();
        let mut want = q;
        want.sort();
        assert_eq!(sorted, want);
        let d = quad_corners(f(1.5, 1.5), f(6.5, 6.5), 1.4);
        assert_eq!(d[0], [384 - 127, 384 + 127]);
        let p1 = Pattern::standard(1).unwrap();
        let shape = Shape::Quad(q);
        let got: Vec<(i32, i32)> = (0..16)
            .flat_map(|y| (0..16).map(move |x| (x, y)))
            .filter(|&(x, y)| shape_coverage(&shape, &p1, x, y) != 0)
            .collect();
        let want: Vec<(i32, i32)> = (3..=4).flat_map(|y| (2..=9).map(move |x| (x, y))).collect();
        assert_eq!(got, want);
    }

    /// `D3D12_LINE_RASTERIZATION_MODE_QUADRILATERAL_NARROW`: the §3.4.5 rectangle 1.0
    /// pixel wide, corners 128 units (half a pixel) across a horizontal line and
    /// 90.51 → ∓91 / ±91 along each axis of a diagonal (the snap rounds the start's
    /// 384 − 90.51 = 293.49 down and 384 + 90.51 = 474.51 up). Along y = 4 from
    /// x = 2.5 to 10.5 the edges pass through the centres of rows 3 and 4: the top edge
    /// owns row 3's, the bottom edge does not own row 4's (top-left rule, §3.4.2.1).
    #[test]
    fn narrow_quad_corners_are_half_a_pixel_off() {
        use crate::pipeline::setup::{NARROW_QUADRILATERAL_LINE_WIDTH, quad_corners};
        let f = |x: f64, y: f64| [(x * 256.0) as i64, (y * 256.0) as i64];
        let q = quad_corners(f(2.5, 4.0), f(10.5, 4.0), NARROW_QUADRILATERAL_LINE_WIDTH);
        assert_eq!(
            q,
            [
                [640, 1024 + 128],
                [640, 1024 - 128],
                [2688, 1024 - 128],
                [2688, 1024 + 128]
            ]
        );
        let d = quad_corners(f(1.5, 1.5), f(6.5, 6.5), NARROW_QUADRILATERAL_LINE_WIDTH);
        assert_eq!(d[0], [384 - 91, 384 + 91]);
        let p1 = Pattern::standard(1).unwrap();
        let shape = Shape::Quad(q);
        let got: Vec<(i32, i32)> = (0..16)
            .flat_map(|y| (0..16).map(move |x| (x, y)))
            .filter(|&(x, y)| shape_coverage(&shape, &p1, x, y) != 0)
            .collect();
        let want: Vec<(i32, i32)> = (2..=9).map(|x| (x, 3)).collect();
        assert_eq!(got, want);
    }

    /// D3D11.3 §3.4.4 with dxlane's exact area: the 1-pixel-wide rectangle along
    /// y = 4.25 from x = 2.25 to 5.75 covers 0.75 of pixel (3, 4), 0.25 of (3, 3),
    /// 0.75 × 0.75 of (2, 4), nothing of (3, 5) (it ends at y = 4.75) or of (1, 4); a
    /// diagonal's pixel sums: the coverage over all pixels is the rectangle's area.
    #[test]
    fn aa_line_coverage_is_the_area() {
        let f = |x: f64, y: f64| [(x * 256.0) as i64, (y * 256.0) as i64];
        let (a, b) = (f(2.25, 4.25), f(5.75, 4.25));
        assert_eq!(aa_line_coverage(a, b, 3, 4), 0.75);
        assert_eq!(aa_line_coverage(a, b, 3, 3), 0.25);
        assert_eq!(aa_line_coverage(a, b, 2, 4), 0.5625);
        assert_eq!(aa_line_coverage(a, b, 3, 5), 0.0);
        assert_eq!(aa_line_coverage(a, b, 1, 4), 0.0);
        // A line along a pixel edge touches the row below only along y = 5: not covered.
        let p1 = Pattern::standard(4).unwrap();
        let edge = Shape::AaLine {
            a: f(2.0, 4.5),
            b: f(6.0, 4.5),
        };
        assert_eq!(shape_coverage(&edge, &p1, 3, 5), 0);
        assert_eq!(shape_coverage(&edge, &p1, 3, 4), 0b1111);
        let (c, d) = (f(1.3, 2.1), f(9.7, 7.9));
        let total: f32 = (0..16)
            .flat_map(|y| (0..16).map(move |x| (x, y)))
            .map(|(x, y)| aa_line_coverage(c, d, x, y))
            .sum();
        let len = (8.4f32).hypot(5.8);
        assert!((total - len).abs() < 0.05, "{total} vs {len}");
    }

    /// D3D11.3 aliased lines: a horizontal line through pixel centres covers the pixels
    /// it exits — from its start up to, not including, the pixel its end lies in.
    #[test]
    fn diamond_exit_rule() {
        let f = |x: f64, y: f64| [(x * 256.0) as i64, (y * 256.0) as i64];
        let c = |px: i64, py: i64| [px * 256 + 128, py * 256 + 128];
        let (a, b) = (f(0.5, 0.5), f(4.5, 0.5));
        let got: Vec<i64> = (0..6).filter(|&x| line_covers(a, b, c(x, 0))).collect();
        assert_eq!(got, vec![0, 1, 2, 3]);
        // A strip's two segments share (4.5, 0.5): drawn once.
        let b2 = f(8.5, 0.5);
        let got2: Vec<i64> = (0..9).filter(|&x| line_covers(b, b2, c(x, 0))).collect();
        assert_eq!(got2, vec![4, 5, 6, 7]);
        // A line ending inside a diamond it started in covers nothing.
        assert!(!line_covers(f(0.4, 0.5), f(0.6, 0.5), c(0, 0)));
        // A line passing a diamond's excluded top corner misses it; through the included
        // bottom corner hits it.
        assert!(!line_covers(f(0.0, 0.0), f(3.0, 0.0), c(1, 0)));
        assert!(line_covers(f(0.0, 1.0), f(3.0, 1.0), c(1, 0)));
    }

    /// A triangle of fixed-point vertices `v` set up in a `size × size` target.
    fn tri_fixed(v: [[i64; 2]; 3], size: i32) -> Option<Prim> {
        let s = crate::pipeline::setup::SetupState::plain(size, size);
        let sv = |p: [i64; 2]| crate::pipeline::setup::ScreenVertex {
            x: p[0],
            y: p[1],
            z: 0.0,
        };
        let id = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        crate::pipeline::setup::triangle(&s, v.map(sv), id, [1.0; 3], [0; 3], 0)
    }

    /// The quads of `prim` over `rect` by the stepped walk ([`QuadWalk`]), checked
    /// against the general walk that tests every pixel (`super::quads_by_pixel`, forced
    /// here for a triangle) and against the reference of testing every sample.
    fn walked(prim: &Prim, pat: &Pattern, rect: [i32; 4]) -> Vec<QuadCoverage> {
        let mut stepped = Vec::new();
        QuadWalk::new(pat).quads(&prim.shape, prim.bbox, rect, &mut |q| stepped.push(q));
        let [bx0, by0, bx1, by1] = prim.bbox;
        let r = [
            bx0.max(rect[0]),
            by0.max(rect[1]),
            bx1.min(rect[2]),
            by1.min(rect[3]),
        ];
        let mut general = Vec::new();
        if r[0] < r[2] && r[1] < r[3] {
            super::quads_by_pixel(&prim.shape, pat, r, &mut |q| general.push(q));
        }
        assert_eq!(stepped, general, "{:?} {rect:?} {pat:?}", prim.shape);
        assert_eq!(stepped, quads_by_pixel(prim, pat, rect));
        stepped
    }

    /// Each pixel (x, y) with a covered sample in `quads`, with its mask.
    fn masks_of(quads: &[QuadCoverage]) -> std::collections::BTreeMap<(u32, u32), u32> {
        quads
            .iter()
            .flat_map(|q| {
                (0..4)
                    .filter(|&k| q.mask[k] != 0)
                    .map(move |k| ((q.x + (k as u32 & 1), q.y + (k as u32 >> 1)), q.mask[k]))
            })
            .collect()
    }

    /// D3D11.3 §3.4.2.1 (the top-left rule) at a tile corner, by the stepped walk: the
    /// 4 × 4-pixel square (62.5, 62.5)–(66.5, 66.5), split along its diagonal into two
    /// clockwise triangles, has pixel centres on all four sides and on the diagonal. The
    /// top and left sides own theirs, the bottom and right sides not, and the diagonal
    /// gives each of its centres to the triangle it is a left edge of: at 1 sample the
    /// square's 16 pixels 62–65 × 62–65, 10 to the upper triangle and 6 to the lower; at
    /// 4× every sample of the half-open square exactly once. Walked tile by tile across the
    /// corner at (64, 64), the tiles' quads together are the whole walk's, and each walk
    /// equals the pixel-by-pixel one.
    #[test]
    fn small_square_at_a_tile_corner_is_covered_once() {
        let f = |x: f64, y: f64| [(x * 256.0) as i64, (y * 256.0) as i64];
        let upper = tri_fixed([f(62.5, 62.5), f(66.5, 62.5), f(62.5, 66.5)], 128).unwrap();
        let lower = tri_fixed([f(66.5, 62.5), f(66.5, 66.5), f(62.5, 66.5)], 128).unwrap();
        let tiles = [
            [0, 0, 64, 64],
            [64, 0, 128, 64],
            [0, 64, 64, 128],
            [64, 64, 128, 128],
        ];
        for count in [1, 4] {
            let pat = Pattern::standard(count).unwrap();
            let (mut a, mut b) = (
                std::collections::BTreeMap::new(),
                std::collections::BTreeMap::new(),
            );
            for rect in tiles {
                a.extend(masks_of(&walked(&upper, &pat, rect)));
                b.extend(masks_of(&walked(&lower, &pat, rect)));
            }
            assert_eq!(a, masks_of(&walked(&upper, &pat, [0, 0, 128, 128])));
            assert_eq!(b, masks_of(&walked(&lower, &pat, [0, 0, 128, 128])));
            if count == 1 {
                assert_eq!((a.len(), b.len()), (10, 6));
            }
            // The samples of the half-open square (§3.4.6 states a point's square the
            // same way: the top-left rule on its two triangles).
            let h = 62 * SUBPIXEL + SUBPIXEL / 2;
            let square = Shape::Square {
                x0: h,
                y0: h,
                x1: h + 4 * SUBPIXEL,
                y1: h + 4 * SUBPIXEL,
            };
            for p in (61..68).flat_map(|x| (61..68).map(move |y| (x, y))) {
                let (ma, mb) = (
                    a.get(&p).copied().unwrap_or(0),
                    b.get(&p).copied().unwrap_or(0),
                );
                let want = shape_coverage(&square, &pat, p.0 as i32, p.1 as i32);
                assert_eq!((ma & mb, ma | mb), (0, want), "{p:?}, {count} samples");
            }
            if count == 1 {
                assert_eq!(a.keys().chain(b.keys()).count(), 16);
            }
        }
    }

    /// D3D11.3 §3.4.2 and §3.4.2.1 for triangles of a pixel or less, by the stepped
    /// walk. (64.25, 64.25)–(64.75, 64.25)–(64.5, 64.75) holds pixel (64, 64)'s centre
    /// and covers that pixel alone; (64, 64)–(64.4, 64)–(64, 64.4) holds no centre and
    /// covers nothing. Pixel (64, 64) cut along its diagonal through the centre: the
    /// upper-left half has the centre on its lower-right edge (not top-left) and covers
    /// nothing at 1 sample, and at 4× (§19.2.4: samples at (6, 2), (14, 6), (2, 10),
    /// (10, 14) sixteenths from the corner) samples 0 and 2, whose coordinates sum to
    /// under a pixel; the lower-right half has it on its left edge: the pixel at 1
    /// sample, samples 1 and 3 at 4×. A right triangle whose top and left edges meet
    /// at a centre covers it; its mirror, whose bottom and right edges meet there, not.
    #[test]
    fn sub_pixel_triangles_cover_what_they_hold() {
        let f = |x: f64, y: f64| [(x * 256.0) as i64, (y * 256.0) as i64];
        let all = [0, 0, 128, 128];
        let (p1, p4) = (Pattern::standard(1).unwrap(), Pattern::standard(4).unwrap());
        let quad = |mask: u32| {
            vec![QuadCoverage {
                x: 64,
                y: 64,
                mask: [mask, 0, 0, 0],
            }]
        };
        let holds = tri_fixed([f(64.25, 64.25), f(64.75, 64.25), f(64.5, 64.75)], 128).unwrap();
        assert_eq!(walked(&holds, &p1, all), quad(1));
        let misses = tri_fixed([f(64.0, 64.0), f(64.4, 64.0), f(64.0, 64.4)], 128).unwrap();
        assert!(walked(&misses, &p1, all).is_empty());
        let upper = tri_fixed([f(64.0, 64.0), f(65.0, 64.0), f(64.0, 65.0)], 128).unwrap();
        assert!(walked(&upper, &p1, all).is_empty());
        assert_eq!(walked(&upper, &p4, all), quad(0b0101));
        let lower = tri_fixed([f(65.0, 64.0), f(65.0, 65.0), f(64.0, 65.0)], 128).unwrap();
        assert_eq!(walked(&lower, &p1, all), quad(1));
        assert_eq!(walked(&lower, &p4, all), quad(0b1010));
        let top_left = tri_fixed([f(64.5, 64.5), f(65.5, 64.5), f(64.5, 65.5)], 128).unwrap();
        assert_eq!(walked(&top_left, &p1, all), quad(1));
        let bottom_right = tri_fixed([f(64.5, 64.5), f(64.5, 63.5), f(63.5, 64.5)], 128).unwrap();
        assert!(walked(&bottom_right, &p1, all).is_empty());
    }

    /// The stepped walk against the pixel-by-pixel one for many small triangles (up to
    /// 3 pixels across) around a tile corner, their vertices on the 1/8-pixel grid that
    /// holds every pixel centre and every 1×, 2× and 4× standard sample position (so
    /// edges run through samples and the top-left rule decides them), under every
    /// standard pattern and a programmed 2×2 grid of 4× patterns, over the four tiles
    /// at the corner and rectangles cut at odd pixels (a scissor's edges).
    #[test]
    fn stepped_walk_equals_pixel_walk_for_small_triangles() {
        let mut state = 0x2545_f491_4f6c_dd1du64;
        let mut next = |m: i64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            (state % m as u64) as i64
        };
        let mut patterns: Vec<Pattern> = [1, 2, 4, 8, 16]
            .iter()
            .map(|&c| Pattern::standard(c).unwrap())
            .collect();
        let grid: Vec<[i8; 2]> = (0..16)
            .map(|i| [(i * 5 % 16 - 8) as i8, (i * 3 % 16 - 8) as i8])
            .collect();
        patterns.push(Pattern::programmed(4, &grid).unwrap());
        let rects = [
            [0, 0, 64, 64],
            [64, 0, 128, 64],
            [0, 64, 64, 128],
            [64, 64, 128, 128],
            [0, 0, 128, 128],
            [63, 61, 66, 67],
        ];
        let (mut walks, mut covered) = (0, 0);
        for _ in 0..400 {
            let size = 1 + next(3);
            let corner = 64 * SUBPIXEL - size * SUBPIXEL / 2;
            let mut c = || corner + next(size * 8 + 1) * (SUBPIXEL / 8);
            let v = [[c(), c()], [c(), c()], [c(), c()]];
            for order in [[0, 1, 2], [0, 2, 1]] {
                let Some(p) = tri_fixed(order.map(|i| v[i]), 128) else {
                    continue;
                };
                for pat in &patterns {
                    for rect in rects {
                        covered += walked(&p, pat, rect).len();
                        walks += 1;
                    }
                }
            }
        }
        assert!(
            walks > 10_000 && covered > 5_000,
            "{walks} walks, {covered} quads"
        );
    }
}
