//! Primitive setup: perspective divide, viewport transform, snapping to 16.8 fixed point,
//! facing and culling, depth bias, and the edge functions, bounding box and
//! interpolation planes the rasterizer and pixel stage use.
//!
//! Owns the fixed-point representation and its limits. Does not own: clipping (`clip`),
//! listing primitives in screen tiles (`bin`), coverage (`raster`), evaluating
//! attributes (`interp`).
//!
//! # Fixed point (D3D11.3 §3.2.4 "Fixed Point Integers", §3.4.1 "Coordinate Snapping", §15.16 "Rasterizer Precision")
//!
//! Screen positions are snapped to [`SUBPIXEL_BITS`] = 8 fractional bits (1/256 pixel),
//! rounding to nearest even. `clip` keeps every vertex within ±2^19 pixels, so a
//! coordinate is below 2^27 in magnitude, a difference of two below 2^28, an edge
//! function `a·x + b·y + c` is a sum of products below 2^56 plus a constant below 2^57:
//! under 2^59, well inside `i64` — no overflow for any input that survives clipping.
//! Sample points are pixel centres (`+ 128`, pixel centres at .5) plus the standard
//! pattern's offsets in 1/16 pixel (`× 16`): exact in the same units.
//!
//! # The top-left rule (D3D11.3 §3.4.2 "Triangle Rasterization Rules", §3.4.2.1 "Top-Left Rule")
//!
//! A sample exactly on an edge is inside only if the edge is a *top* edge (exactly
//! horizontal, with the triangle below it) or a *left* edge (not horizontal, with the
//! triangle to its right). With vertices ordered clockwise on screen (y down) — the
//! orientation setup normalizes every triangle to — edge `p → q` is top-left when
//! `q.y < p.y`, or `q.y == p.y` and `q.x > p.x`. The rule is folded into the edge
//! constant: a non-top-left edge's constant is lowered by one unit, so "inside" is
//! always `E ≥ 0`.
//!
//! # Facing
//!
//! The signed area of the snapped triangle decides facing: positive (clockwise on screen)
//! is front unless `FrontCounterClockwise`. Zero-area triangles are not drawn (D3D11.3
//! §15.11.1 "Degenerate Behavior" makes them back-facing, and by §3.4.2 no sample lies
//! inside one).
//!
//! # Wireframe fill (`D3D12_FILL_MODE_WIREFRAME`)
//!
//! A triangle in wireframe fill is drawn as lines connecting its vertices, by the line
//! rules of the state's [`LineMode`] (D3D11.3 §15.13), after clipping, facing and
//! culling; [`wireframe`] states which edges and with what depth.
//!
//! # Lines (D3D11.3 §3.4.3–3.4.5, §15.14.1)
//!
//! [`LineMode`] is chosen by `MultisampleEnable` and `AntialiasedLineEnable`, for any
//! sample count, or named by `D3D12_RASTERIZER_DESC2`'s `LineRasterizationMode` (which
//! adds the 1.0-pixel `QUADRILATERAL_NARROW` to the 1.4-pixel quadrilateral lines);
//! [`line`] makes the shape each mode covers.
//!
//! # Conservative rasterization
//!
//! With `ConservativeRaster` on, a triangle keeps its exact edge constants (the top-left
//! rule is not folded in) and its pixel box holds only the pixels whose open square
//! meets the open box of its vertices ([`Shape::Conservative`], `raster`). Degenerate
//! (zero-area after snapping) triangles are culled, as tier 1 allows ("no post-snap
//! degenerates"). Depth and attributes are evaluated as without it, at the pixel centre
//! or sample, which may lie outside the triangle: the extrapolated depth is clamped to
//! the viewport's range like any other (DirectX-Specs "Conservative Rasterization",
//! Depth/Stencil Test and Attribute Interpolation interactions).
//!
//! # Depth bias (D3D11.3 §15.10 "Depth Bias")
//!
//! `Bias = DepthBias · r + SlopeScaledDepthBias · MaxDepthSlope` for UNORM depth formats
//! (and no depth buffer), `r = 1 / (2^bits − 1)`; for float formats `r` is
//! `2^(exponent(max z of the primitive) − 23)`. A non-zero `DepthBiasClamp` clamps the
//! bias towards zero on its side; the bias is added to every vertex's z when either bias
//! term is non-zero, computed in f32, each sum rounded to f32, before the depth plane is
//! set up from the biased vertices (§15.10: "added to the z for each vertex before
//! interpolator setup"). `MaxDepthSlope` is the larger of `|∂z/∂x|` and `|∂z/∂y|` of the
//! unbiased plane (a constant bias leaves the slopes alone). Points and lines get no bias.

use super::clip::Weights;
use super::state::{LineRasterizationMode, RasterizerDesc, Rect, Viewport};

/// Fractional bits of snapped screen coordinates.
pub const SUBPIXEL_BITS: u32 = 8;

/// One pixel in fixed-point units.
pub const SUBPIXEL: i64 = 1 << SUBPIXEL_BITS;

/// One edge function: a sample `(x, y)` (fixed point) is inside when
/// `a·x + b·y + c ≥ 0`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Edge {
    /// x coefficient.
    pub a: i64,
    /// y coefficient.
    pub b: i64,
    /// Constant (the top-left rule folded in).
    pub c: i64,
}

impl Edge {
    /// The edge function at a fixed-point sample.
    #[inline]
    pub fn eval(&self, x: i64, y: i64) -> i64 {
        self.a * x + self.b * y + self.c
    }
}

/// What covers samples.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// Inside all three edges.
    Triangle([Edge; 3]),
    /// A point's 1×1 square: `x0 ≤ x < x1`, `y0 ≤ y < y1` (fixed point; the top-left rule
    /// on its two triangles gives exactly these half-open bounds).
    Square {
        /// Left (inclusive).
        x0: i64,
        /// Top (inclusive).
        y0: i64,
        /// Right (exclusive).
        x1: i64,
        /// Bottom (exclusive).
        y1: i64,
    },
    /// A triangle rasterized conservatively (tier 1, `raster`): inside all three edges,
    /// whose constants are exact (no top-left rule folded in); a pixel is covered, every
    /// sample of it, when the open triangle meets the open pixel square.
    Conservative([Edge; 3]),
    /// An aliased line from `a` to `b` (fixed point), by the diamond-exit rule (`raster`).
    Line {
        /// Start.
        a: [i64; 2],
        /// End.
        b: [i64; 2],
    },
    /// A quadrilateral line ([`LineMode::Quadrilateral`]): the convex quadrilateral of its
    /// four snapped corners, clockwise on screen; a sample is covered when it is inside
    /// all four edges under the top-left rule, as for a triangle (`raster`).
    Quad([[i64; 2]; 4]),
    /// An alpha-antialiased line from `a` to `b` (fixed point,
    /// [`LineMode::AlphaAntialiased`]): a pixel is covered, every sample of it, when the
    /// line's 1-pixel-wide rectangle covers part of its square, and the covered part
    /// scales the alpha written to render target 0 (`raster::aa_line_coverage`).
    AaLine {
        /// Start.
        a: [i64; 2],
        /// End.
        b: [i64; 2],
    },
}

/// Which line algorithm the rasterizer state selects (D3D11.3 §15.14.1 "Line State":
/// `MultisampleEnable` and `AntialiasedLineEnable` choose it, whatever the sample count).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum LineMode {
    /// Both false: aliased lines (§3.4.3, the diamond-exit rule).
    #[default]
    Aliased,
    /// `MultisampleEnable` false, `AntialiasedLineEnable` true: alpha-antialiased lines
    /// (§3.4.4).
    AlphaAntialiased,
    /// `MultisampleEnable` true (either `AntialiasedLineEnable`), or
    /// `D3D12_LINE_RASTERIZATION_MODE_QUADRILATERAL_WIDE`: quadrilateral lines (§3.4.5),
    /// [`QUADRILATERAL_LINE_WIDTH`] (1.4) pixels wide.
    Quadrilateral,
    /// `D3D12_LINE_RASTERIZATION_MODE_QUADRILATERAL_NARROW` (`D3D12_RASTERIZER_DESC2`
    /// only): the same quadrilateral rule (§3.4.5) with the width
    /// [`NARROW_QUADRILATERAL_LINE_WIDTH`] (1.0) — the rectangle other APIs' rectangular
    /// lines draw — so coverage, `SV_Coverage`, centroid and per-sample shading work as
    /// for wide quadrilateral lines, at any sample count.
    QuadrilateralNarrow,
}

impl LineMode {
    /// The mode `MultisampleEnable` and `AntialiasedLineEnable` choose (§15.14.1's table).
    pub fn of(multisample_enable: bool, antialiased_line_enable: bool) -> LineMode {
        match (multisample_enable, antialiased_line_enable) {
            (true, _) => LineMode::Quadrilateral,
            (false, true) => LineMode::AlphaAntialiased,
            (false, false) => LineMode::Aliased,
        }
    }

    /// The mode a rasterizer description selects: its `LineRasterizationMode`
    /// (`D3D12_RASTERIZER_DESC2`) when it names one, else the two booleans'
    /// ([`LineMode::of`]). `QUADRILATERAL_WIDE` is the booleans' quadrilateral mode, as
    /// D3D12 maps `MultisampleEnable` onto it.
    pub fn of_desc(r: &RasterizerDesc) -> LineMode {
        match r.line_rasterization_mode {
            None => LineMode::of(r.multisample_enable, r.antialiased_line_enable),
            Some(LineRasterizationMode::Aliased) => LineMode::Aliased,
            Some(LineRasterizationMode::AlphaAntialiased) => LineMode::AlphaAntialiased,
            Some(LineRasterizationMode::QuadrilateralWide) => LineMode::Quadrilateral,
            Some(LineRasterizationMode::QuadrilateralNarrow) => LineMode::QuadrilateralNarrow,
        }
    }
}

/// `D3D11_MULTISAMPLE_ANTIALIAS_LINE_WIDTH`: a quadrilateral line's width in pixels
/// (D3D11.3 §3.4.5; D3D12 keeps it as `D3D12_LINE_RASTERIZATION_MODE_QUADRILATERAL_WIDE`).
pub const QUADRILATERAL_LINE_WIDTH: f64 = 1.4;

/// A `D3D12_LINE_RASTERIZATION_MODE_QUADRILATERAL_NARROW` line's width in pixels (the
/// mode's definition: a quadrilateral line 1.0 pixel wide instead of the 1.4 of
/// `QUADRILATERAL_WIDE`).
pub const NARROW_QUADRILATERAL_LINE_WIDTH: f64 = 1.0;

impl Default for Shape {
    /// An empty square: it covers no sample (what an unfilled slot of a tile's list
    /// holds, `bin`).
    fn default() -> Shape {
        Shape::Square {
            x0: 0,
            y0: 0,
            x1: 0,
            y1: 0,
        }
    }
}

/// A plane over pixel coordinates: `c + dx·x + dy·y`.
#[derive(Debug, Clone, Copy, PartialEq, Default)]
pub struct Plane {
    /// Value at the origin.
    pub c: f64,
    /// Change per pixel in x.
    pub dx: f64,
    /// Change per pixel in y.
    pub dy: f64,
}

impl Plane {
    /// The plane at `(x, y)` pixels.
    #[inline(always)]
    pub fn at(&self, x: f64, y: f64) -> f64 {
        self.c + self.dx * x + self.dy * y
    }

    fn constant(v: f64) -> Plane {
        Plane {
            c: v,
            dx: 0.0,
            dy: 0.0,
        }
    }
}

/// A primitive ready to rasterize.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Prim {
    /// What it covers.
    pub shape: Shape,
    /// Pixel bounds `[x0, y0, x1, y1)`, within the draw's scissor.
    pub bbox: [i32; 4],
    /// Screen-space (linear) weight of each original vertex: `σᵢ(x, y)`.
    pub sigma: [Plane; 3],
    /// `1 / w` of each original vertex (clip-space w).
    pub inv_w: [f64; 3],
    /// Depth (viewport-transformed z/w, bias added), linear in screen space.
    pub z: Plane,
    /// The original vertices' indices in the vertex outputs (provoking vertex first).
    pub verts: [u32; 3],
    /// `SV_PrimitiveID`.
    pub id: u32,
    /// Front-facing (points and lines always are).
    pub front: bool,
    /// The viewport (and scissor rectangle) it was set up in: its
    /// `SV_ViewportArrayIndex`, 0 when out of range (`draw`).
    pub viewport: u32,
    /// The render-target array slice it renders to: its `SV_RenderTargetArrayIndex`, 0
    /// when out of range of every view (`draw`).
    pub slice: u32,
}

/// A vertex after the perspective divide and viewport transform.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct ScreenVertex {
    /// Snapped x (fixed point).
    pub x: i64,
    /// Snapped y.
    pub y: i64,
    /// Depth.
    pub z: f32,
}

/// Largest magnitude a snapped coordinate may have (see the module doc).
pub const MAX_FIXED: i64 = 1 << 27;

/// The viewport transform and snap of clip-space `p` (D3D11.3 §15.6 "Viewport"): `x/w` and
/// `y/w` scaled and offset into the viewport (y down), `z/w` into its depth range, all in
/// f32, then x and y rounded to nearest even at 1/256 pixel. `None` when the result is not
/// finite or past the fixed-point range.
pub fn to_screen(p: [f32; 4], vp: &Viewport) -> Option<ScreenVertex> {
    let inv = 1.0 / p[3];
    let (nx, ny, nz) = (p[0] * inv, p[1] * inv, p[2] * inv);
    let hw = vp.width * 0.5;
    let hh = vp.height * 0.5;
    let sx = nx * hw + (vp.top_left_x + hw);
    let sy = -ny * hh + (vp.top_left_y + hh);
    let sz = nz * (vp.max_depth - vp.min_depth) + vp.min_depth;
    let snap = |v: f32| -> Option<i64> {
        let f = (f64::from(v) * SUBPIXEL as f64).round_ties_even();
        (f.is_finite() && f.abs() < MAX_FIXED as f64).then_some(f as i64)
    };
    Some(ScreenVertex {
        x: snap(sx)?,
        y: snap(sy)?,
        z: sz,
    })
}

/// What setup needs of the draw.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SetupState {
    /// Pixels that may be drawn: the scissor ∩ viewport ∩ render target.
    pub scissor: Rect,
    /// Counter-clockwise triangles are front faces.
    pub front_ccw: bool,
    /// Cull front faces.
    pub cull_front: bool,
    /// Cull back faces.
    pub cull_back: bool,
    /// `DepthBias`.
    pub depth_bias: i32,
    /// `DepthBiasClamp`.
    pub depth_bias_clamp: f32,
    /// `SlopeScaledDepthBias`.
    pub slope_scaled_depth_bias: f32,
    /// Mantissa bits of a float depth format (23), or `None` for UNORM with its `r`.
    pub depth_float: bool,
    /// `r` of a UNORM depth format: `1 / (2^bits − 1)`.
    pub depth_unorm_r: f32,
    /// `D3D12_FILL_MODE_WIREFRAME`: triangles become the lines of their edges
    /// ([`wireframe`]).
    pub wireframe: bool,
    /// `ConservativeRaster` on: triangles set up as [`Shape::Conservative`].
    pub conservative: bool,
    /// How lines are drawn (lines of the topology and a wireframe triangle's edges).
    pub line_mode: LineMode,
}

fn bbox_of(xs: &[i64], ys: &[i64], scissor: &Rect) -> Option<[i32; 4]> {
    let minx = xs.iter().copied().min()?;
    let maxx = xs.iter().copied().max()?;
    let miny = ys.iter().copied().min()?;
    let maxy = ys.iter().copied().max()?;
    // Pixel `p` has its samples within (p·256, p·256 + 256): a conservative box.
    let x0 = (minx.div_euclid(SUBPIXEL)).max(i64::from(scissor.left));
    let y0 = (miny.div_euclid(SUBPIXEL)).max(i64::from(scissor.top));
    let x1 = (maxx.div_euclid(SUBPIXEL) + 1).min(i64::from(scissor.right));
    let y1 = (maxy.div_euclid(SUBPIXEL) + 1).min(i64::from(scissor.bottom));
    (x0 < x1 && y0 < y1).then_some([x0 as i32, y0 as i32, x1 as i32, y1 as i32])
}

/// The pixels a conservatively rasterized triangle `v` may cover: those whose open
/// square meets the open box of the vertices (a pixel the box only touches along its
/// border is not covered), within the scissor.
fn conservative_bbox(v: &[ScreenVertex; 3], scissor: &Rect) -> Option<[i32; 4]> {
    let xs = [v[0].x, v[1].x, v[2].x];
    let ys = [v[0].y, v[1].y, v[2].y];
    let lo = |c: &[i64; 3]| c.iter().copied().min().unwrap_or(0).div_euclid(SUBPIXEL);
    let hi =
        |c: &[i64; 3]| (c.iter().copied().max().unwrap_or(0) + SUBPIXEL - 1).div_euclid(SUBPIXEL);
    let x0 = lo(&xs).max(i64::from(scissor.left));
    let y0 = lo(&ys).max(i64::from(scissor.top));
    let x1 = hi(&xs).min(i64::from(scissor.right));
    let y1 = hi(&ys).min(i64::from(scissor.bottom));
    (x0 < x1 && y0 < y1).then_some([x0 as i32, y0 as i32, x1 as i32, y1 as i32])
}

/// The depth bias of a primitive whose depth plane is `z` with vertex depths `zs`.
pub fn depth_bias(s: &SetupState, z: &Plane, zs: &[f32]) -> f32 {
    if s.depth_bias == 0 && s.slope_scaled_depth_bias == 0.0 {
        return 0.0;
    }
    let slope = (z.dx.abs().max(z.dy.abs())) as f32;
    let r = if s.depth_float {
        let maxz = zs.iter().fold(0f32, |m, v| m.max(v.abs()));
        let e = ((maxz.to_bits() >> 23) & 0xff) as i32 - 127;
        2f32.powi(e - 23)
    } else {
        s.depth_unorm_r
    };
    let mut bias = s.depth_bias as f32 * r + s.slope_scaled_depth_bias * slope;
    if s.depth_bias_clamp > 0.0 {
        bias = bias.min(s.depth_bias_clamp);
    } else if s.depth_bias_clamp < 0.0 {
        bias = bias.max(s.depth_bias_clamp);
    }
    bias
}

/// Sets up one triangle of screen vertices `v` whose weights over the original vertices
/// are `mu` (screen-space weights, see `clip`). `None` when it is degenerate, culled, or
/// outside the scissor.
#[allow(clippy::too_many_arguments)]
pub fn triangle(
    s: &SetupState,
    v: [ScreenVertex; 3],
    mu: [Weights; 3],
    inv_w: [f64; 3],
    verts: [u32; 3],
    id: u32,
) -> Option<Prim> {
    let area = (v[1].x - v[0].x) * (v[2].y - v[0].y) - (v[2].x - v[0].x) * (v[1].y - v[0].y);
    if area == 0 {
        return None;
    }
    // Positive area: clockwise on screen (y down).
    let front = (area > 0) != s.front_ccw;
    if (front && s.cull_front) || (!front && s.cull_back) {
        return None;
    }
    let (v, mu) = if area > 0 {
        (v, mu)
    } else {
        ([v[0], v[2], v[1]], [mu[0], mu[2], mu[1]])
    };
    let area = area.abs();
    let bbox = if s.conservative {
        conservative_bbox(&v, &s.scissor)?
    } else {
        bbox_of(
            &[v[0].x, v[1].x, v[2].x],
            &[v[0].y, v[1].y, v[2].y],
            &s.scissor,
        )?
    };
    // Edge k runs from vertex k to vertex k + 1; it is opposite vertex k + 2.
    let mut edges = [Edge { a: 0, b: 0, c: 0 }; 3];
    let mut bary = [Plane::default(); 3];
    for k in 0..3 {
        let p = v[k];
        let q = v[(k + 1) % 3];
        let (dx, dy) = (q.x - p.x, q.y - p.y);
        let c = dy * p.x - dx * p.y;
        let top_left = dy < 0 || (dy == 0 && dx > 0);
        edges[k] = Edge {
            a: -dy,
            b: dx,
            c: if top_left || s.conservative { c } else { c - 1 },
        };
        // The barycentric weight of the opposite vertex, over pixel coordinates.
        let inv = 1.0 / area as f64;
        bary[(k + 2) % 3] = Plane {
            c: c as f64 * inv,
            dx: -dy as f64 * SUBPIXEL as f64 * inv,
            dy: dx as f64 * SUBPIXEL as f64 * inv,
        };
    }
    let mut sigma = [Plane::default(); 3];
    for (i, sg) in sigma.iter_mut().enumerate() {
        for (j, b) in bary.iter().enumerate() {
            sg.c += b.c * mu[j][i];
            sg.dx += b.dx * mu[j][i];
            sg.dy += b.dy * mu[j][i];
        }
    }
    let plane = |zs: [f32; 3]| {
        let mut z = Plane::default();
        for (j, b) in bary.iter().enumerate() {
            let zj = f64::from(zs[j]);
            z.c += b.c * zj;
            z.dx += b.dx * zj;
            z.dy += b.dy * zj;
        }
        z
    };
    let zs = [v[0].z, v[1].z, v[2].z];
    let mut z = plane(zs);
    if s.depth_bias != 0 || s.slope_scaled_depth_bias != 0.0 {
        // D3D11.3 §15.10: the bias is added to each vertex's z, in f32, before the
        // interpolation set-up; the plane through the biased depths follows.
        let bias = depth_bias(s, &z, &zs);
        z = plane(zs.map(|zj| zj + bias));
    }
    Some(Prim {
        shape: if s.conservative {
            Shape::Conservative(edges)
        } else {
            Shape::Triangle(edges)
        },
        bbox,
        sigma,
        inv_w,
        z,
        verts,
        id,
        front,
        viewport: 0,
        slice: 0,
    })
}

/// The depth plane through three screen vertices with depths `zs`; `None` when they
/// enclose no area.
fn depth_plane(v: [ScreenVertex; 3], zs: [f32; 3]) -> Option<Plane> {
    let area = (v[1].x - v[0].x) * (v[2].y - v[0].y) - (v[2].x - v[0].x) * (v[1].y - v[0].y);
    if area == 0 {
        return None;
    }
    let inv = 1.0 / area as f64;
    let mut z = Plane::default();
    for k in 0..3 {
        let (p, q) = (v[k], v[(k + 1) % 3]);
        let (dx, dy) = (q.x - p.x, q.y - p.y);
        // The weight of vertex k + 2, opposite this edge (signed area: either winding).
        let zj = f64::from(zs[(k + 2) % 3]);
        z.c += (dy * p.x - dx * p.y) as f64 * inv * zj;
        z.dx += -dy as f64 * SUBPIXEL as f64 * inv * zj;
        z.dy += dx as f64 * SUBPIXEL as f64 * inv * zj;
    }
    Some(z)
}

/// Sets up a triangle in wireframe fill (`D3D12_FILL_MODE_WIREFRAME`): the polygon
/// clipping left of it — screen vertices `v`, clip weights `lam` and screen weights `mu`
/// over the original vertices, in the triangle's order — as lines of the state's
/// [`LineMode`] (§15.13), appended to `out`.
///
/// - Facing and culling are the triangle's, from the signed area of the snapped polygon;
///   a polygon of no area draws nothing, as it would solid (§15.11.1 makes it
///   back-facing, §3.4.2 covers no sample of it). Every line carries the facing
///   (`SV_IsFrontFace`, the stencil face).
/// - An edge is drawn when both its ends lie on one edge of the original triangle
///   (their clip weight of the opposite vertex is 0): the parts of the triangle's own
///   edges inside the clip volume. Edges that clipping made (along the viewport, the
///   near or far plane, a clip distance) are not: a guard band of any width gives the
///   same lines, scissored.
/// - Each edge is its own line: an edge two triangles share is drawn by both, and a
///   vertex lights the pixel its edge exits by the diamond rule.
/// - Depth varies along each line as on any line (`line`); the depth bias is the
///   triangle's (computed from its unbiased plane, §15.10) and is added to every end.
#[allow(clippy::too_many_arguments)]
pub fn wireframe(
    s: &SetupState,
    lam: &[Weights],
    v: &[ScreenVertex],
    mu: &[Weights],
    inv_w: [f64; 3],
    verts: [u32; 3],
    id: u32,
    out: &mut Vec<Prim>,
) {
    let n = v.len().min(lam.len()).min(mu.len());
    if n < 3 {
        return;
    }
    let cross = |a: ScreenVertex, b: ScreenVertex, c: ScreenVertex| {
        (b.x - a.x) * (c.y - a.y) - (c.x - a.x) * (b.y - a.y)
    };
    // A clipped polygon has at most 9 vertices and each term is below 2^57.
    let area: i64 = (1..n - 1).map(|k| cross(v[0], v[k], v[k + 1])).sum();
    if area == 0 {
        return;
    }
    let front = (area > 0) != s.front_ccw;
    if (front && s.cull_front) || (!front && s.cull_back) {
        return;
    }
    let mut bias = 0.0f32;
    if s.depth_bias != 0 || s.slope_scaled_depth_bias != 0.0 {
        let fan = (1..n - 1).find_map(|k| {
            let t = [v[0], v[k], v[k + 1]];
            let zs = t.map(|p| p.z);
            depth_plane(t, zs).map(|z| (z, zs))
        });
        if let Some((z, zs)) = fan {
            bias = depth_bias(s, &z, &zs);
        }
    }
    for i in 0..n {
        let j = (i + 1) % n;
        if !(0..3).any(|k| lam[i][k] == 0.0 && lam[j][k] == 0.0) {
            continue;
        }
        let ends = [v[i], v[j]].map(|mut p| {
            p.z += bias;
            p
        });
        if let Some(mut p) = line(s, ends, [mu[i], mu[j]], inv_w, verts, id) {
            p.front = front;
            out.push(p);
        }
    }
}

/// Sets up a point: the 1×1 square centred on it (D3D11.3 §3.4.6 "Point Rasterization
/// Rules"), every attribute the vertex's own.
pub fn point(s: &SetupState, v: ScreenVertex, inv_w: f64, vert: u32, id: u32) -> Option<Prim> {
    let h = SUBPIXEL / 2;
    let (x0, y0, x1, y1) = (v.x - h, v.y - h, v.x + h, v.y + h);
    let bbox = bbox_of(&[x0, x1 - 1], &[y0, y1 - 1], &s.scissor)?;
    Some(Prim {
        shape: Shape::Square { x0, y0, x1, y1 },
        bbox,
        sigma: [Plane::constant(1.0), Plane::default(), Plane::default()],
        inv_w: [inv_w, inv_w, inv_w],
        z: Plane::constant(f64::from(v.z)),
        verts: [vert; 3],
        id,
        front: true,
        viewport: 0,
        slice: 0,
    })
}

/// Sets up a line from `a` to `b` (weights `mu` over the original two vertices) in the
/// state's [`LineMode`]. Attributes and depth vary along the line with the projection
/// of the sample onto it and stay constant across it (D3D11.3 §15.14.1; for
/// quadrilateral lines §3.4.5 duplicates each end's attributes at the two corners it
/// makes, which is the same).
///
/// - Aliased: [`Shape::Line`], by the diamond-exit rule (`raster`).
/// - Quadrilateral (§3.4.5): the rectangle [`QUADRILATERAL_LINE_WIDTH`] wide (narrow:
///   [`NARROW_QUADRILATERAL_LINE_WIDTH`]) whose two
///   short sides are centred on the ends (no extension past them), its corners computed
///   in f64 from the snapped ends and snapped to 1/256 pixel like any vertex (§3.4.1:
///   expansion comes before snapping), then [`Shape::Quad`].
/// - Alpha-antialiased (§3.4.4): [`Shape::AaLine`], a rectangle 1 pixel wide about the
///   segment, ends centred on the vertices; its box holds every pixel that rectangle
///   can reach.
pub fn line(
    s: &SetupState,
    v: [ScreenVertex; 2],
    mu: [Weights; 2],
    inv_w: [f64; 3],
    verts: [u32; 3],
    id: u32,
) -> Option<Prim> {
    let (a, b) = (v[0], v[1]);
    if a.x == b.x && a.y == b.y {
        return None;
    }
    let (shape, bbox) = match s.line_mode {
        LineMode::Aliased => (
            Shape::Line {
                a: [a.x, a.y],
                b: [b.x, b.y],
            },
            aliased_line_bbox(a, b, &s.scissor)?,
        ),
        LineMode::Quadrilateral | LineMode::QuadrilateralNarrow => {
            let width = if s.line_mode == LineMode::Quadrilateral {
                QUADRILATERAL_LINE_WIDTH
            } else {
                NARROW_QUADRILATERAL_LINE_WIDTH
            };
            let q = quad_corners([a.x, a.y], [b.x, b.y], width);
            let bbox = bbox_of(&q.map(|c| c[0]), &q.map(|c| c[1]), &s.scissor)?;
            (Shape::Quad(q), bbox)
        }
        LineMode::AlphaAntialiased => {
            let h = SUBPIXEL / 2;
            let bbox = bbox_of(
                &[a.x - h, a.x + h, b.x - h, b.x + h],
                &[a.y - h, a.y + h, b.y - h, b.y + h],
                &s.scissor,
            )?;
            (
                Shape::AaLine {
                    a: [a.x, a.y],
                    b: [b.x, b.y],
                },
                bbox,
            )
        }
    };
    // t(x, y) = ((p − a) · (b − a)) / |b − a|², p in pixels.
    let (ax, ay) = (a.x as f64 / SUBPIXEL as f64, a.y as f64 / SUBPIXEL as f64);
    let (dx, dy) = (
        (b.x - a.x) as f64 / SUBPIXEL as f64,
        (b.y - a.y) as f64 / SUBPIXEL as f64,
    );
    let len2 = dx * dx + dy * dy;
    let t = Plane {
        c: -(ax * dx + ay * dy) / len2,
        dx: dx / len2,
        dy: dy / len2,
    };
    let one_minus = Plane {
        c: 1.0 - t.c,
        dx: -t.dx,
        dy: -t.dy,
    };
    let mut sigma = [Plane::default(); 3];
    for (i, sg) in sigma.iter_mut().enumerate() {
        for (w, m) in [(one_minus, mu[0][i]), (t, mu[1][i])] {
            sg.c += w.c * m;
            sg.dx += w.dx * m;
            sg.dy += w.dy * m;
        }
    }
    let (za, zb) = (f64::from(a.z), f64::from(b.z));
    let z = Plane {
        c: za + t.c * (zb - za),
        dx: t.dx * (zb - za),
        dy: t.dy * (zb - za),
    };
    Some(Prim {
        shape,
        bbox,
        sigma,
        inv_w,
        z,
        verts,
        id,
        front: true,
        viewport: 0,
        slice: 0,
    })
}

/// The pixels an aliased line from `a` to `b` may cover: a pixel either way of its box.
fn aliased_line_bbox(a: ScreenVertex, b: ScreenVertex, scissor: &Rect) -> Option<[i32; 4]> {
    bbox_of(
        &[
            a.x - SUBPIXEL,
            b.x + SUBPIXEL,
            a.x + SUBPIXEL,
            b.x - SUBPIXEL,
        ],
        &[
            a.y - SUBPIXEL,
            b.y + SUBPIXEL,
            a.y + SUBPIXEL,
            b.y - SUBPIXEL,
        ],
        scissor,
    )
}

/// The corners of the rectangle `width` pixels wide whose short sides are centred on
/// `a` and `b` (fixed point, `a ≠ b`), each rounded to nearest even at 1/256 pixel, in
/// clockwise order on screen (y down). The offsets are computed in f64 from the exact
/// fixed-point ends.
pub fn quad_corners(a: [i64; 2], b: [i64; 2], width: f64) -> [[i64; 2]; 4] {
    let (dx, dy) = ((b[0] - a[0]) as f64, (b[1] - a[1]) as f64);
    let len = dx.hypot(dy);
    let h = width * 0.5 * SUBPIXEL as f64;
    // The unit normal (−dy, dx) / len, scaled to half the width.
    let (ox, oy) = (-dy / len * h, dx / len * h);
    let at = |p: [i64; 2], sign: f64| {
        [
            (p[0] as f64 + sign * ox).round_ties_even() as i64,
            (p[1] as f64 + sign * oy).round_ties_even() as i64,
        ]
    };
    let q = [at(a, 1.0), at(b, 1.0), at(b, -1.0), at(a, -1.0)];
    // Twice the signed area (shoelace); positive is clockwise with y down.
    let area: i64 = (0..4)
        .map(|k| {
            let (p, n) = (q[k], q[(k + 1) % 4]);
            p[0] * n[1] - n[0] * p[1]
        })
        .sum();
    if area >= 0 {
        q
    } else {
        [q[0], q[3], q[2], q[1]]
    }
}

#[cfg(test)]
impl SetupState {
    /// The state the unit tests set triangles up in: a `right × bottom` scissor from the
    /// origin, solid fill, no culling, no depth bias, a float depth format, aliased
    /// lines.
    pub(crate) fn plain(right: i32, bottom: i32) -> SetupState {
        SetupState {
            scissor: Rect {
                left: 0,
                top: 0,
                right,
                bottom,
            },
            front_ccw: false,
            cull_front: false,
            cull_back: false,
            depth_bias: 0,
            depth_bias_clamp: 0.0,
            slope_scaled_depth_bias: 0.0,
            depth_float: true,
            depth_unorm_r: 0.0,
            wireframe: false,
            conservative: false,
            line_mode: LineMode::Aliased,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `D3D12_LINE_RASTERIZATION_MODE` against the booleans (D3D11.3 §15.14.1's table;
    /// the mode names each row, `QUADRILATERAL_WIDE` being `MultisampleEnable`'s, and
    /// adds `QUADRILATERAL_NARROW`): without a mode the booleans choose.
    #[test]
    fn line_mode_of_the_description() {
        let mut r = RasterizerDesc::default();
        assert_eq!(LineMode::of_desc(&r), LineMode::Aliased);
        r.multisample_enable = true;
        assert_eq!(LineMode::of_desc(&r), LineMode::Quadrilateral);
        r.multisample_enable = false;
        r.antialiased_line_enable = true;
        assert_eq!(LineMode::of_desc(&r), LineMode::AlphaAntialiased);
        r.antialiased_line_enable = false;
        for (m, want) in [
            (LineRasterizationMode::Aliased, LineMode::Aliased),
            (
                LineRasterizationMode::AlphaAntialiased,
                LineMode::AlphaAntialiased,
            ),
            (
                LineRasterizationMode::QuadrilateralWide,
                LineMode::Quadrilateral,
            ),
            (
                LineRasterizationMode::QuadrilateralNarrow,
                LineMode::QuadrilateralNarrow,
            ),
        ] {
            r.line_rasterization_mode = Some(m);
            assert_eq!(LineMode::of_desc(&r), want, "{m:?}");
        }
    }

    fn state() -> SetupState {
        SetupState::plain(64, 64)
    }

    fn sv(x: f64, y: f64) -> ScreenVertex {
        ScreenVertex {
            x: (x * 256.0) as i64,
            y: (y * 256.0) as i64,
            z: 0.5,
        }
    }

    const ID: [Weights; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

    /// D3D11.3 §3.2.4: snapping rounds to nearest even at 1/256 pixel; the viewport maps
    /// NDC (−1, 1) to the top-left corner.
    #[test]
    fn viewport_and_snap() {
        let vp = Viewport::full(64, 64);
        let v = to_screen([-1.0, 1.0, 0.25, 1.0], &vp).unwrap();
        assert_eq!((v.x, v.y, v.z), (0, 0, 0.25));
        let v = to_screen([0.0, 0.0, 0.0, 2.0], &vp).unwrap();
        assert_eq!((v.x, v.y), (32 * 256, 32 * 256));
        // 0.5/256 of a pixel past 1.0 ties to even (256), 1.5/256 to 258.
        let x = |px: f32| to_screen([px / 32.0 - 1.0, 0.0, 0.0, 1.0], &vp).unwrap().x;
        assert_eq!(x(1.0 + 0.5 / 256.0), 256);
        assert_eq!(x(1.0 + 1.5 / 256.0), 258);
        assert!(to_screen([f32::NAN, 0.0, 0.0, 1.0], &vp).is_none());
    }

    /// D3D11.3 "Triangle Rasterization Rules": the top and left edges own the samples on
    /// them. The docs' example pair shares a diagonal: the first triangle has it as a
    /// left edge, the second as a right edge.
    #[test]
    fn top_left_edges() {
        let s = state();
        let t1 = triangle(
            &s,
            [sv(0.0, 0.0), sv(5.0, 0.0), sv(5.0, 5.0)],
            ID,
            [1.0; 3],
            [0; 3],
            0,
        )
        .unwrap();
        let Shape::Triangle(e) = t1.shape else {
            panic!()
        };
        // The sample at (2.5, 2.5) lies on the diagonal.
        let p = (2 * 256 + 128, 2 * 256 + 128);
        assert!(e.iter().all(|e| e.eval(p.0, p.1) >= 0), "left edge owns it");
        let t2 = triangle(
            &s,
            [sv(0.0, 5.0), sv(0.0, 0.0), sv(5.0, 5.0)],
            ID,
            [1.0; 3],
            [0; 3],
            0,
        )
        .unwrap();
        let Shape::Triangle(e) = t2.shape else {
            panic!()
        };
        assert!(
            !e.iter().all(|e| e.eval(p.0, p.1) >= 0),
            "right edge does not"
        );
        // The top edge y = 0 of t1 holds no pixel centre; shift it to y = 0.5.
        let t3 = triangle(
            &s,
            [sv(0.0, 0.5), sv(5.0, 0.5), sv(5.0, 5.0)],
            ID,
            [1.0; 3],
            [0; 3],
            0,
        )
        .unwrap();
        let Shape::Triangle(e) = t3.shape else {
            panic!()
        };
        assert!(
            e.iter().all(|e| e.eval(4 * 256 + 128, 128) >= 0),
            "top edge owns it"
        );
        let t4 = triangle(
            &s,
            [sv(0.0, 0.0), sv(5.0, 0.5), sv(0.0, 0.5)],
            ID,
            [1.0; 3],
            [0; 3],
            0,
        )
        .unwrap();
        let Shape::Triangle(e) = t4.shape else {
            panic!()
        };
        assert!(
            !e.iter().all(|e| e.eval(128, 128) >= 0),
            "bottom edge does not"
        );
    }

    /// Facing from the snapped area; culling; degenerate triangles.
    #[test]
    fn facing_and_culling() {
        let mut s = state();
        let cw = [sv(0.0, 0.0), sv(4.0, 0.0), sv(0.0, 4.0)];
        let ccw = [cw[0], cw[2], cw[1]];
        assert!(triangle(&s, cw, ID, [1.0; 3], [0; 3], 0).unwrap().front);
        assert!(!triangle(&s, ccw, ID, [1.0; 3], [0; 3], 0).unwrap().front);
        s.cull_back = true;
        assert!(triangle(&s, ccw, ID, [1.0; 3], [0; 3], 0).is_none());
        s.front_ccw = true;
        assert!(triangle(&s, ccw, ID, [1.0; 3], [0; 3], 0).is_some());
        let flat = [sv(0.0, 0.0), sv(1.0, 1.0), sv(2.0, 2.0)];
        assert!(triangle(&s, flat, ID, [1.0; 3], [0; 3], 0).is_none());
    }

    /// Wireframe fill: the edges of the triangle's own sides, each a line with the
    /// triangle's facing; a polygon edge made by clipping (no original vertex's weight
    /// 0 at both ends) is left out; culling by the polygon's facing.
    #[test]
    fn wireframe_lines_are_the_triangle_sides() {
        let mut s = state();
        s.wireframe = true;
        // The quadrilateral clipping leaves of a triangle A, B, C cut by a line across
        // B: A, P (on A→B), Q (on B→C), C. P→Q was made by clipping.
        let lam: [Weights; 4] = [
            [1.0, 0.0, 0.0],
            [0.5, 0.5, 0.0],
            [0.0, 0.5, 0.5],
            [0.0, 0.0, 1.0],
        ];
        let v = [sv(0.0, 0.0), sv(8.0, 0.0), sv(8.0, 8.0), sv(0.0, 16.0)];
        let mut out = Vec::new();
        wireframe(&s, &lam, &v, &lam, [1.0; 3], [0, 1, 2], 7, &mut out);
        let ends: Vec<_> = out
            .iter()
            .map(|p| match p.shape {
                Shape::Line { a, b } => (a, b),
                _ => panic!("{:?}", p.shape),
            })
            .collect();
        let f = |x: i64, y: i64| [x * 256, y * 256];
        assert_eq!(
            ends,
            vec![(f(0, 0), f(8, 0)), (f(8, 8), f(0, 16)), (f(0, 16), f(0, 0))]
        );
        assert!(out.iter().all(|p| p.front && p.id == 7));
        s.cull_front = true;
        out.clear();
        wireframe(&s, &lam, &v, &lam, [1.0; 3], [0, 1, 2], 7, &mut out);
        assert!(out.is_empty(), "a culled face draws no edge");
    }

    /// D3D11.3 "Depth Bias": UNORM `r`, float exponent, slope, clamp.
    #[test]
    fn depth_bias_formula() {
        let mut s = state();
        s.depth_bias = 100;
        s.depth_float = false;
        s.depth_unorm_r = 1.0 / 16_777_215.0;
        let flat = Plane::constant(0.5);
        assert_eq!(
            depth_bias(&s, &flat, &[0.5]),
            100.0 * (1.0 / 16_777_215.0f32)
        );
        s.depth_float = true;
        assert_eq!(depth_bias(&s, &flat, &[0.5]), 100.0 * 2f32.powi(-24));
        s.depth_bias = 0;
        s.slope_scaled_depth_bias = 2.0;
        let sloped = Plane {
            c: 0.0,
            dx: 0.25,
            dy: -0.5,
        };
        assert_eq!(depth_bias(&s, &sloped, &[0.5]), 1.0);
        s.depth_bias_clamp = 0.125;
        assert_eq!(depth_bias(&s, &sloped, &[0.5]), 0.125);
    }

    /// D3D11.3 §15.10: the bias is added to each vertex's z in f32 before the plane is
    /// set up. D32 (float `r`), `DepthBias` 5, `SlopeScaledDepthBias` −2,
    /// `DepthBiasClamp` −0.001, vertices (0, 0) z = 1/16, (64, 0) z = 15/16, (0, 64)
    /// z = 1/2: MaxDepthSlope = (7/8)/64 = 7/512, r = 2^(−1 − 23), so the bias is
    /// 5·2^−24 − 7/256, clamped to −0.001f32 = −8589935/2^33. The biased vertices round to
    /// 16508781/2^28, 15711863/2^24 and 8371831/2^24; at pixel (0, 0)'s centre the plane
    /// through them is exactly 1232722755/2^34 = 0.0717539081…, which rounds to
    /// 9630647/2^27 = 0.07175391167402267 (the bias added to the unbiased plane in f64
    /// gave 0.07175390422344208, one ulp lower); pixel (1, 0): 733801891/2^33 →
    /// 11465655/2^27; pixel (2, 0): 1702484809/2^34 → 13300663/2^27.
    #[test]
    fn depth_bias_is_added_to_each_vertex_in_f32() {
        let mut s = state();
        s.depth_bias = 5;
        s.slope_scaled_depth_bias = -2.0;
        s.depth_bias_clamp = -0.001;
        let v = |x: i64, y: i64, z: f32| ScreenVertex {
            x: x * 256,
            y: y * 256,
            z,
        };
        let p = triangle(
            &s,
            [v(0, 0, 0.0625), v(64, 0, 0.9375), v(0, 64, 0.5)],
            ID,
            [1.0; 3],
            [0; 3],
            0,
        )
        .unwrap();
        let at = |x: f64| p.z.at(x + 0.5, 0.5) as f32;
        let two27 = 134_217_728.0f64;
        assert_eq!(at(0.0), (9_630_647.0 / two27) as f32);
        assert_eq!(at(0.0), 0.071_753_91);
        assert_eq!(at(1.0), (11_465_655.0 / two27) as f32);
        assert_eq!(at(2.0), (13_300_663.0 / two27) as f32);
        // The slope-scaled term saw the unbiased plane: without the clamp the bias is
        // 5·2^−24 − 7/256 at every vertex.
        s.depth_bias_clamp = 0.0;
        let p = triangle(
            &s,
            [v(0, 0, 0.0625), v(64, 0, 0.9375), v(0, 64, 0.5)],
            ID,
            [1.0; 3],
            [0; 3],
            0,
        )
        .unwrap();
        let bias = 5.0 * 2f32.powi(-24) - 7.0 / 256.0;
        assert_eq!(p.z.at(0.0, 0.0), f64::from(0.0625f32 + bias));
    }
}
