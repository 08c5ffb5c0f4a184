//! The fixed-function tessellator (D3D11.3 §11.7 "Tessellation Pattern"): factors in,
//! domain points and primitives out, bit for bit what Microsoft's reference tessellator
//! (`CHWTessellator`, the `tessellator.cpp` the specification links from §11.7.1) and
//! Mesa's gallium copy of it produce.
//!
//! Owns: the hardware's handling of the final edge and inside factors a hull program's
//! patch-constant phase writes (`SV_TessFactor`, `SV_InsideTessFactor`) — culling,
//! clamping, rounding, conversion to 16.16 fixed point — the placement of every domain
//! point in fixed point and its conversion to `f32`, the order of the points, and the
//! connectivity (rings stitched with the ruler-function transition, regular rings, the
//! centre of the patch). Does not own: running hull or domain programs, nor the HLSL
//! helpers that derive inside factors from edge factors (below).
//!
//! # Interface
//!
//! [`tessellate`] takes a [`TessellatorDesc`] — the hull program's `[domain]`,
//! `[partitioning]` and `[outputtopology]` (`dcl_tessellator_domain`,
//! `dcl_tessellator_partitioning`, `dcl_tessellator_output_primitive`) — and the
//! [`TessFactors`], and returns a [`Tessellation`]: the points as `(u, v)` (for the tri
//! domain `w = 1 − u − v` is implied, as in the reference; [`tri_w`] computes it, exactly)
//! and one index list whose [`Topology`] follows from the output primitive.
//!
//! For the hull and domain stages: the patch-constant phase's outputs become
//! [`TessFactors`]; [`counts`] gives a patch's sizes without generating it (to size a
//! draw's output or refuse it early); [`tessellate_within`] charges a draw-wide
//! [`TessBudget`] before generating, so amplification ends in [`TessError::Budget`];
//! each domain point is one domain-program invocation (`SV_DomainLocation` = `(u, v)`,
//! or `(u, v, w)` for tri), and the index list, expanded in order, is the primitives
//! the stage emits.
//!
//! # What is not here: inside-factor reduction
//!
//! The reference's `CHWTessellator` — the part the specification says hardware
//! implements — takes the final inside factors. Deriving them from the edge factors
//! (`ProcessTriTessFactorsAvg/Min/Max`, `ProcessQuadTessFactors*`,
//! `Process2DQuadTessFactors*`, `ProcessIsolineTessFactors`, and the rounding of `pow2`
//! factors to powers of two) is HLSL code the compiler writes into the patch-constant
//! phase (§11.7.2: "these amount to shader code, so the hardware doesn't need to know
//! about them"; §11.7.7.1 for pow2). The hull stage therefore runs it as part of the
//! program and hands this module the results; nothing here needs to reproduce the
//! reference's `CHLSLTessellator`.
//!
//! # Output bound
//!
//! Factors are clamped to at most 64 before anything is generated, so one patch yields
//! at most [`MAX_POINTS`] points (65 × 65, a quad at factor 64) and [`MAX_INDICES`]
//! indices (64 × 64 quads of two triangles); [`counts`] gives a patch's exact sizes
//! without generating it, for budgets that must refuse work before allocating.
//!
//! # Rules (each with its test)
//!
//! - **Culling** (§11.7.12, §11.7.11.2): a patch with any edge factor ≤ 0 or NaN
//!   (isoline: either factor) produces nothing. A positive denormal is not ≤ 0: as in
//!   the reference, whose test is `!(factor > 0)`, it is kept and clamped to the lower
//!   bound (§3.1.3.2 lets hardware flush it first, or not).
//! - **Edge clamping** (§11.7.11.2): integer and pow2 to [1, 64], fractional_odd to
//!   [1, 63], fractional_even to [2, 64]; the isoline's line density always to [1, 64].
//!   The clamp is D3D's min/max (denormals flushed, NaN loses), so NaN, negative,
//!   denormal and −∞ inside factors become the lower bound.
//! - **Rounding** (§11.7.7, §11.7.11.2): integer and pow2 round every factor up to an
//!   integer after clamping (the hardware treats pow2 exactly as integer, §11.7.7.1);
//!   the line density is always rounded up.
//! - **Inside clamping** (§11.7.11.3): as the edges, except that with fractional_odd, when
//!   any edge factor (after clamping) or — for quads — any inside factor (before) exceeds
//!   1 + 2⁻¹⁷, the inside lower bound is 1 + 2⁻¹⁶, so the patch gets a "picture frame".
//! - **Fixed point** (§11.7.14, §3.2.4.1): every factor is converted to unsigned 16.16
//!   with round-to-nearest-even; all placement is in 16.16 and only the final (u, v) is
//!   converted to `f32` (exact: every coordinate is a multiple of 2⁻¹⁶).
//! - **Parity** (§11.7.2): fractional_odd and fractional_even fix the parity of every
//!   factor; integer and pow2 take each factor's own parity after rounding, with an inside
//!   factor of 1 counted as even (the reference's "pretend it is even" rule).
//! - **All ones** (reference `bJustDoMinimumTessFactor`): with integer, pow2 or
//!   fractional_odd partitioning and every factor exactly 1 in fixed point, a quad is two
//!   triangles over its four corners and a tri is one triangle.
//! - **Points on an edge** (§11.7.3, §11.7.4, §11.7.5): an odd factor f gives ⌈f⌉ (next
//!   odd) segments, an even one the next even count; between two counts the points move
//!   from the lower count's positions to the higher's by the fraction, symmetric about the
//!   edge's middle, and the new pair of points splits off at the position the ruler
//!   function names (`split_point`).
//! - **Point order** (reference `Tri/Quad/IsoLineGeneratePoints`): the outer ring first —
//!   quad: U=0 edge from (0,1) down, V=0, U=1, V=1; tri: from (0,1) along U=0, then V=0,
//!   then W=0 — each edge without its last point, then each inner ring the same way,
//!   inwards, then a quad's middle row of points (even inside parity) or a tri's centre
//!   (even inside parity). Isolines: line by line from V=0, U increasing.
//! - **Connectivity** (§11.7.6): the outermost ring is stitched to the first inner ring
//!   with the ruler-function transition (§11.7.6.1, §11.7.6.2: each vertex on the denser
//!   edge joins its "parent" on the sparser one), later rings with regular trapezoids
//!   whose diagonals mirror about each side's middle, a quad's leftover middle strip with
//!   diagonals pointing from its inner to its outer side (the odd-by-odd centre is a "Z"),
//!   and an odd tri's centre as one triangle. Triangles are made clockwise in (u, v)
//!   (V is clockwise from U, §11.5) and reversed for `triangle_ccw`.
//! - **Output primitives** (§11.7.15): point works with every domain, line only with
//!   isoline, triangle_cw/ccw only with tri and quad; other pairs are refused.
//!
//! Factors are untrusted: no input makes this module panic, and nothing is allocated
//! beyond the bound above.

#![deny(
    clippy::indexing_slicing,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

use std::fmt;

/// The largest factor the tessellator accepts (`D3D11_TESSELLATOR_MAX_TESSELLATION_FACTOR`).
pub const MAX_FACTOR: f32 = 64.0;

/// The most points one patch can produce: a quad at factor 64, 65 × 65.
pub const MAX_POINTS: usize = 65 * 65;

/// The most indices one patch can produce: a quad at factor 64, 64 × 64 quads of two
/// triangles.
pub const MAX_INDICES: usize = 64 * 64 * 2 * 3;

/// The patch's parameter space (`[domain]`, `dcl_tessellator_domain`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Domain {
    /// A triangle: barycentric (u, v, w), three edge factors and one inside factor.
    Tri,
    /// A quadrilateral: (u, v) in the unit square, four edge factors, two inside factors.
    Quad,
    /// Lines of constant v over the unit square: line density and line detail.
    Isoline,
}

/// How factors become segment counts (`[partitioning]`, `dcl_tessellator_partitioning`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Partitioning {
    /// Factors rounded up to integers, each with its own parity.
    Integer,
    /// To the hardware the same as integer: rounding to powers of two is the hull
    /// program's work (D3D11.3 §11.7.7.1).
    Pow2,
    /// Odd segment counts, points moving smoothly between them; factors in [1, 63].
    FractionalOdd,
    /// Even segment counts, points moving smoothly between them; factors in [2, 64].
    FractionalEven,
}

/// What the tessellator emits (`[outputtopology]`, `dcl_tessellator_output_primitive`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum OutputPrimitive {
    /// Each point once (any domain).
    Point,
    /// Line segments (isoline only).
    Line,
    /// Triangles clockwise in (u, v) (tri and quad).
    TriangleCw,
    /// Triangles counter-clockwise in (u, v) (tri and quad).
    TriangleCcw,
}

/// The tessellator's fixed state: what the hull program declares.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TessellatorDesc {
    /// The domain.
    pub domain: Domain,
    /// The partitioning.
    pub partitioning: Partitioning,
    /// The output primitive.
    pub output_primitive: OutputPrimitive,
}

/// One patch's factors, as the hull program's patch-constant phase writes them.
///
/// `edges` is `SV_TessFactor` and `inside` is `SV_InsideTessFactor`, in D3D's order:
/// tri — edges U=0, V=0, W=0 and one inside factor; quad — edges U=0, V=0, U=1, V=1 and
/// inside U, inside V; isoline — `edges[0]` the line density, `edges[1]` the line
/// detail. Entries a domain does not use are ignored.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct TessFactors {
    /// The edge factors (`SV_TessFactor`).
    pub edges: [f32; 4],
    /// The inside factors (`SV_InsideTessFactor`).
    pub inside: [f32; 2],
}

impl TessFactors {
    /// A tri patch's factors: edges U=0, V=0, W=0 and the inside factor.
    pub fn tri(edges: [f32; 3], inside: f32) -> TessFactors {
        let [a, b, c] = edges;
        TessFactors {
            edges: [a, b, c, 0.0],
            inside: [inside, 0.0],
        }
    }

    /// A quad patch's factors: edges U=0, V=0, U=1, V=1 and inside U, inside V.
    pub fn quad(edges: [f32; 4], inside: [f32; 2]) -> TessFactors {
        TessFactors { edges, inside }
    }

    /// An isoline patch's factors: how many lines, and how finely each is cut.
    pub fn isoline(density: f32, detail: f32) -> TessFactors {
        TessFactors {
            edges: [density, detail, 0.0, 0.0],
            inside: [0.0, 0.0],
        }
    }
}

/// How the index list reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Topology {
    /// One index per point.
    PointList,
    /// Two indices per line segment.
    LineList,
    /// Three indices per triangle.
    TriangleList,
}

impl Topology {
    /// Indices per primitive.
    pub fn vertices_per_primitive(self) -> usize {
        match self {
            Topology::PointList => 1,
            Topology::LineList => 2,
            Topology::TriangleList => 3,
        }
    }
}

/// Which way a patch went.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Outcome {
    /// An edge factor was ≤ 0 or NaN: nothing is generated (§11.7.12).
    Culled,
    /// Every factor was exactly 1: the patch's corners only.
    Minimal,
    /// Rings of points, stitched.
    Tessellated,
}

/// Whether a factor counts segments in odd or even numbers.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Parity {
    /// 2, 4, 6 … segments (and a point in the middle of the edge).
    Even,
    /// 1, 3, 5 … segments.
    Odd,
}

/// Which factor a [`FactorUse`] describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FactorRole {
    /// Tri or quad edge U=0 (`SV_TessFactor[0]`).
    EdgeU0,
    /// Tri or quad edge V=0 (`SV_TessFactor[1]`).
    EdgeV0,
    /// Tri edge W=0 (`SV_TessFactor[2]`).
    EdgeW0,
    /// Quad edge U=1 (`SV_TessFactor[2]`).
    EdgeU1,
    /// Quad edge V=1 (`SV_TessFactor[3]`).
    EdgeV1,
    /// The tri inside factor.
    Inside,
    /// The quad inside factor along U (`SV_InsideTessFactor[0]`).
    InsideU,
    /// The quad inside factor along V (`SV_InsideTessFactor[1]`).
    InsideV,
    /// The isoline line density (`SV_TessFactor[0]`).
    LineDensity,
    /// The isoline line detail (`SV_TessFactor[1]`).
    LineDetail,
}

impl fmt::Display for FactorRole {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            FactorRole::EdgeU0 => "edge U=0",
            FactorRole::EdgeV0 => "edge V=0",
            FactorRole::EdgeW0 => "edge W=0",
            FactorRole::EdgeU1 => "edge U=1",
            FactorRole::EdgeV1 => "edge V=1",
            FactorRole::Inside => "inside",
            FactorRole::InsideU => "inside U",
            FactorRole::InsideV => "inside V",
            FactorRole::LineDensity => "line density",
            FactorRole::LineDetail => "line detail",
        })
    }
}

/// What the tessellator made of one factor: shown by `dxlane tessellate` so a user can
/// see why a patch came out as it did.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct FactorUse {
    /// Which factor.
    pub role: FactorRole,
    /// The value the hull program wrote.
    pub input: f32,
    /// After clamping (and, for integer and pow2, rounding up).
    pub value: f32,
    /// `value` in unsigned 16.16 fixed point, what placement uses.
    pub fixed: u32,
    /// Odd or even segment counts.
    pub parity: Parity,
    /// Points along this factor's edge; for an inside factor, the points across the
    /// patch along its axis that the rings are laid out on (at least 4 for odd parity, 3
    /// for even, so that the outer ring always has an inner ring to stitch to); for the
    /// line density, lines + 1.
    pub points: u32,
}

/// One patch, tessellated.
#[derive(Debug, Clone, PartialEq)]
pub struct Tessellation {
    /// Culled, minimal or tessellated.
    pub outcome: Outcome,
    /// How [`indices`](Self::indices) reads.
    pub topology: Topology,
    /// What became of each factor the domain uses (empty when culled).
    pub factors: Vec<FactorUse>,
    /// The domain points in order, `(u, v)`; for the tri domain `w = 1 − u − v`.
    pub points: Vec<[f32; 2]>,
    /// Indices into `points`, [`Topology::vertices_per_primitive`] per primitive.
    pub indices: Vec<u32>,
}

impl Tessellation {
    /// The number of primitives.
    pub fn primitive_count(&self) -> usize {
        self.indices.len() / self.topology.vertices_per_primitive()
    }
}

/// A patch's sizes, from [`counts`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Counts {
    /// Points ([`Tessellation::points`]).
    pub points: usize,
    /// Indices ([`Tessellation::indices`]).
    pub indices: usize,
}

/// Why the tessellator refused a description.
#[derive(Debug, Clone, Copy, PartialEq, Eq, thiserror::Error)]
pub enum TessError {
    /// D3D11.3 §11.7.15: point goes with any domain, line only with isoline, triangles
    /// only with tri and quad.
    #[error(
        "output primitive {output} is not allowed with the {domain} domain (D3D11.3 §11.7.15: \
         point with any domain, line with isoline only, triangle_cw/triangle_ccw with tri and quad only)"
    )]
    OutputPrimitive {
        /// The domain.
        domain: Domain,
        /// The refused output primitive.
        output: OutputPrimitive,
    },
    /// Generating the patch would pass the [`TessBudget`]; nothing of it was generated.
    #[error(
        "tessellation budget exhausted: the patch needs {needed_points} points and \
         {needed_indices} indices, and {used_points} of {max_points} points and {used_indices} of \
         {max_indices} indices are used"
    )]
    Budget {
        /// The patch's points.
        needed_points: u64,
        /// The patch's indices.
        needed_indices: u64,
        /// Points charged before this patch.
        used_points: u64,
        /// Indices charged before this patch.
        used_indices: u64,
        /// The budget's points.
        max_points: u64,
        /// The budget's indices.
        max_indices: u64,
    },
}

/// How much tessellator output a caller allows — a draw's patches together — charged
/// patch by patch with each patch's exact [`counts`] before anything of it is generated,
/// so that amplification (factor 64 turns one patch into 4225 points and 24,576 indices)
/// ends in [`TessError::Budget`] rather than in exhausted memory. The hull and domain
/// stages make one per draw from their limits and pass it to [`tessellate_within`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TessBudget {
    max_points: u64,
    max_indices: u64,
    used_points: u64,
    used_indices: u64,
}

impl TessBudget {
    /// A budget of `max_points` domain points and `max_indices` indices in all.
    pub fn new(max_points: u64, max_indices: u64) -> TessBudget {
        TessBudget {
            max_points,
            max_indices,
            used_points: 0,
            used_indices: 0,
        }
    }

    /// No limit beyond each patch's own bound ([`MAX_POINTS`], [`MAX_INDICES`]).
    pub fn unlimited() -> TessBudget {
        TessBudget::new(u64::MAX, u64::MAX)
    }

    /// Charges one patch's sizes, or refuses them (charging nothing) when they would pass
    /// either limit.
    ///
    /// # Errors
    ///
    /// [`TessError::Budget`], naming what was needed, used and allowed.
    pub fn charge(&mut self, c: Counts) -> Result<(), TessError> {
        let points = u64::try_from(c.points).unwrap_or(u64::MAX);
        let indices = u64::try_from(c.indices).unwrap_or(u64::MAX);
        let new_points = self.used_points.saturating_add(points);
        let new_indices = self.used_indices.saturating_add(indices);
        if new_points > self.max_points || new_indices > self.max_indices {
            return Err(TessError::Budget {
                needed_points: points,
                needed_indices: indices,
                used_points: self.used_points,
                used_indices: self.used_indices,
                max_points: self.max_points,
                max_indices: self.max_indices,
            });
        }
        self.used_points = new_points;
        self.used_indices = new_indices;
        Ok(())
    }

    /// What has been charged so far.
    pub fn used(&self) -> Counts {
        Counts {
            points: usize::try_from(self.used_points).unwrap_or(usize::MAX),
            indices: usize::try_from(self.used_indices).unwrap_or(usize::MAX),
        }
    }
}

impl fmt::Display for Domain {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Domain::Tri => "tri",
            Domain::Quad => "quad",
            Domain::Isoline => "isoline",
        })
    }
}

impl fmt::Display for Partitioning {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Partitioning::Integer => "integer",
            Partitioning::Pow2 => "pow2",
            Partitioning::FractionalOdd => "fractional_odd",
            Partitioning::FractionalEven => "fractional_even",
        })
    }
}

impl fmt::Display for OutputPrimitive {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            OutputPrimitive::Point => "point",
            OutputPrimitive::Line => "line",
            OutputPrimitive::TriangleCw => "triangle_cw",
            OutputPrimitive::TriangleCcw => "triangle_ccw",
        })
    }
}

impl fmt::Display for Topology {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Topology::PointList => "point_list",
            Topology::LineList => "line_list",
            Topology::TriangleList => "triangle_list",
        })
    }
}

impl fmt::Display for Outcome {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Outcome::Culled => "culled",
            Outcome::Minimal => "minimal",
            Outcome::Tessellated => "tessellated",
        })
    }
}

impl fmt::Display for Parity {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Parity::Even => "even",
            Parity::Odd => "odd",
        })
    }
}

/// A tri domain point's third barycentric coordinate, `1 − u − v`. Exact in `f32`
/// whichever way it is computed, since u and v are multiples of 2⁻¹⁶ in [0, 1].
pub fn tri_w(point: [f32; 2]) -> f32 {
    1.0 - point[0] - point[1]
}

/// Tessellates one patch.
///
/// # Errors
///
/// [`TessError::OutputPrimitive`] for a domain and output primitive D3D does not pair.
///
/// # Example
///
/// ```
/// use dxlane::pipeline::tess::*;
/// let desc = TessellatorDesc {
///     domain: Domain::Quad,
///     partitioning: Partitioning::Integer,
///     output_primitive: OutputPrimitive::TriangleCw,
/// };
/// let t = tessellate(&desc, &TessFactors::quad([2.0; 4], [2.0; 2])).unwrap();
/// assert_eq!(t.points.len(), 9);
/// assert_eq!(t.primitive_count(), 8);
/// ```
pub fn tessellate(
    desc: &TessellatorDesc,
    factors: &TessFactors,
) -> Result<Tessellation, TessError> {
    tessellate_within(desc, factors, &mut TessBudget::unlimited())
}

/// Tessellates one patch after charging its exact sizes to `budget`: the form a
/// pipeline uses, so that a draw's amplification is refused before it is allocated.
///
/// # Errors
///
/// As [`tessellate`], and [`TessError::Budget`] (nothing generated, nothing charged)
/// when the patch would pass the budget.
pub fn tessellate_within(
    desc: &TessellatorDesc,
    factors: &TessFactors,
    budget: &mut TessBudget,
) -> Result<Tessellation, TessError> {
    let topology = topology(desc)?;
    let plan = plan(desc.domain, desc.partitioning, factors);
    let counts = plan.counts(desc.output_primitive);
    budget.charge(counts)?;
    let mut out = Emitter {
        points: Vec::with_capacity(counts.points.min(MAX_POINTS)),
        indices: Vec::with_capacity(counts.indices.min(MAX_INDICES)),
        winding: desc.output_primitive,
    };
    let outcome = match &plan.shape {
        Shape::Culled => Outcome::Culled,
        Shape::MinimalTri | Shape::MinimalQuad => Outcome::Minimal,
        _ => Outcome::Tessellated,
    };
    match &plan.shape {
        Shape::Culled => {}
        Shape::MinimalTri => {
            // Reference: V=1, W=1, U=1 corners — the starts of edges U=0, V=0, W=0.
            out.point(0, FXP_ONE);
            out.point(0, 0);
            out.point(FXP_ONE, 0);
            if topology == Topology::TriangleList {
                out.cw(0, 1, 2);
            }
        }
        Shape::MinimalQuad => {
            out.point(0, 0);
            out.point(FXP_ONE, 0);
            out.point(FXP_ONE, FXP_ONE);
            out.point(0, FXP_ONE);
            if topology == Topology::TriangleList {
                out.cw(0, 1, 3);
                out.cw(1, 2, 3);
            }
        }
        Shape::Tri(tri) => {
            let rings = tri.points(&mut out);
            if topology == Topology::TriangleList {
                tri.connect(&rings, &mut out);
            }
        }
        Shape::Quad(quad) => {
            let rings = quad.points(&mut out);
            if topology == Topology::TriangleList {
                quad.connect(&rings, &mut out);
            }
        }
        Shape::Isoline(iso) => {
            iso.points(&mut out);
            if topology == Topology::LineList {
                iso.connect(&mut out);
            }
        }
    }
    if topology == Topology::PointList && !matches!(plan.shape, Shape::Culled) {
        // Every point once, in order (reference `DumpAllPoints`).
        out.indices = (0..out.points.len()).map(index).collect();
    }
    debug_assert_eq!(out.points.len(), counts.points);
    debug_assert_eq!(out.indices.len(), counts.indices);
    Ok(Tessellation {
        outcome,
        topology,
        factors: plan.uses,
        points: out.points,
        indices: out.indices,
    })
}

/// A patch's point and index counts, without generating it: the reference's own
/// bookkeeping (`m_NumPoints`, `m_NumIndices`). Always equal to the lengths
/// [`tessellate`] returns, and at most [`MAX_POINTS`] and [`MAX_INDICES`].
///
/// # Errors
///
/// As [`tessellate`].
pub fn counts(desc: &TessellatorDesc, factors: &TessFactors) -> Result<Counts, TessError> {
    topology(desc)?;
    Ok(plan(desc.domain, desc.partitioning, factors).counts(desc.output_primitive))
}

fn topology(desc: &TessellatorDesc) -> Result<Topology, TessError> {
    match (desc.domain, desc.output_primitive) {
        (_, OutputPrimitive::Point) => Ok(Topology::PointList),
        (Domain::Isoline, OutputPrimitive::Line) => Ok(Topology::LineList),
        (
            Domain::Tri | Domain::Quad,
            OutputPrimitive::TriangleCw | OutputPrimitive::TriangleCcw,
        ) => Ok(Topology::TriangleList),
        (domain, output) => Err(TessError::OutputPrimitive { domain, output }),
    }
}

/// An index into the point list. Points never exceed [`MAX_POINTS`], so this never
/// truncates.
fn index(i: usize) -> u32 {
    u32::try_from(i).unwrap_or(u32::MAX)
}

// ---------------------------------------------------------------------------------------
// Fixed point (D3D11.3 §11.7.14: 16 fraction bits for everything after the factors).
// ---------------------------------------------------------------------------------------

/// Unsigned 16.16 fixed point, with C's unsigned wrap-around (the reference's `FXP`).
type Fxp = u32;

const FRACTION_BITS: u32 = 16;
const FXP_ONE: Fxp = 1 << FRACTION_BITS;
const FXP_HALF: Fxp = 0x8000;
/// ⅓ and ⅔ truncated to 16 bits: the tri centre and the scale of a tri's inner rings.
const FXP_ONE_THIRD: Fxp = 0x5555;
const FXP_TWO_THIRDS: Fxp = 0xaaaa;

/// D3D's float → unsigned 15.16 fixed-point conversion (§3.2.4.1, the reference's
/// `floatToIDotF<15, 16, false>`): round to nearest even at 2⁻¹⁶; NaN and negative
/// numbers (−0 included) become 0; 2¹⁵ and above saturate to all ones.
fn to_fixed(x: f32) -> Fxp {
    if x.is_nan() || x.is_sign_negative() {
        return 0;
    }
    if x >= 32768.0 {
        return u32::MAX;
    }
    // x · 2¹⁶ is exact in f64 and below 2³¹, so rounding it to an integer is the whole
    // conversion; ties go to even as the reference's bit-level rounding does.
    let scaled = f64::from(x) * 65536.0;
    let rounded = scaled.round_ties_even();
    // In [0, 2³¹]: the conversion cannot saturate.
    rounded as u32
}

/// Fixed point back to `f32` as the reference does: integer part plus fraction / 2¹⁶,
/// both exact for every value a domain coordinate can take.
fn to_float(x: Fxp) -> f32 {
    (x >> FRACTION_BITS) as f32 + (x & 0xffff) as f32 / 65536.0
}

fn fxp_floor(x: Fxp) -> Fxp {
    x & 0x7fff_0000
}

fn fxp_ceil(x: Fxp) -> Fxp {
    if x & 0xffff != 0 {
        fxp_floor(x).wrapping_add(FXP_ONE)
    } else {
        x
    }
}

/// `RECIPROCALS[n]` is 1/n in 16.16, rounded to nearest (the reference's
/// `s_fixedReciprocal`; n = 0 is never used).
#[allow(clippy::indexing_slicing)] // evaluated at compile time: a bad index fails the build
const RECIPROCALS: [Fxp; 65] = {
    let mut table = [0; 65];
    table[0] = u32::MAX;
    let mut n = 1;
    while n < 65 {
        // 2¹⁶/n never ends in exactly one half (n would have to be a power of two, and
        // then it divides 2¹⁶), so rounding half up is rounding to nearest.
        table[n] = (2 * 65536 + n as u32) / (2 * n as u32);
        n += 1;
    }
    table
};

fn reciprocal(segments: u32) -> Fxp {
    RECIPROCALS.get(segments as usize).copied().unwrap_or(0)
}

/// `RULER[p]` is the number of points a half edge must have (corner included) before
/// the point at position p (0 = the corner, 32 = the middle) of the finest half edge
/// (32 segments) exists: the ruler function of §11.7.5, "split each vertex at an epoch
/// from outside to inside". Position 17 comes first, then 9 and 25, then 5, 13, 21, 29,
/// and so on down to the odd positions; the middle (32) comes 32nd and position 1 last.
/// The reference spells this out as `finalPointPositionTable`.
#[allow(clippy::indexing_slicing)] // evaluated at compile time: a bad index fails the build
const RULER: [u32; 33] = {
    let mut table = [0; 33];
    table[1] = 32;
    let mut p = 2;
    while p <= 32 {
        // Position p is the first point of its epoch e when p − 1 = (odd) · 2^(5−e−1).
        let x = (p - 1) as u32;
        table[p] = (32 + x) >> (x.trailing_zeros() + 1);
        p += 1;
    }
    table
};

/// A factor's processed form: everything needed to place the points along one edge or
/// inside axis (the reference's `TESS_FACTOR_CONTEXT`, its parity, and
/// `NumPointsForTessFactor`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Spacing {
    parity: Parity,
    /// 1 / segments at the factor rounded down and up to its parity, 16.16.
    inv_floor_segments: Fxp,
    inv_ceil_segments: Fxp,
    /// How far the factor is from the lower count to the higher, 16.16 in [0, 1).
    fraction: Fxp,
    /// Points on half the edge, corner included, middle point excluded.
    half_points: u32,
    /// The position on the half edge after which points take their lower-count place
    /// from one position back: where the new pair splits off.
    split_point: u32,
    /// Points along the whole edge, both corners included.
    points: u32,
}

impl Spacing {
    fn new(factor: Fxp, parity: Parity) -> Spacing {
        let odd = parity == Parity::Odd;
        // Half the factor, rounded; an odd count is placed as the even count one above
        // it, and a factor of 1 with even parity as if it were 2.
        let mut half = factor.wrapping_add(1) / 2;
        if odd || half == FXP_HALF {
            half = half.wrapping_add(FXP_HALF);
        }
        let floor = fxp_floor(half);
        let ceil = fxp_ceil(half);
        let half_points = ceil >> FRACTION_BITS;
        let split_point = if ceil == floor {
            // No fraction: no point is in transit.
            half_points + 1
        } else if odd {
            if floor == FXP_ONE {
                0
            } else {
                (remove_msb((floor >> FRACTION_BITS).wrapping_sub(1)) << 1) + 1
            }
        } else {
            (remove_msb(floor >> FRACTION_BITS) << 1) + 1
        };
        let mut floor_segments = floor.wrapping_mul(2) >> FRACTION_BITS;
        let mut ceil_segments = ceil.wrapping_mul(2) >> FRACTION_BITS;
        if odd {
            floor_segments = floor_segments.wrapping_sub(1);
            ceil_segments = ceil_segments.wrapping_sub(1);
        }
        let half_factor = factor.wrapping_add(1) / 2;
        let points = if odd {
            fxp_ceil(FXP_HALF.wrapping_add(half_factor)).wrapping_mul(2) >> FRACTION_BITS
        } else {
            (fxp_ceil(half_factor).wrapping_mul(2) >> FRACTION_BITS) + 1
        };
        Spacing {
            parity,
            inv_floor_segments: reciprocal(floor_segments),
            inv_ceil_segments: reciprocal(ceil_segments),
            fraction: half.wrapping_sub(floor),
            half_points,
            split_point,
            points,
        }
    }

    /// The 16.16 position of point `point` (0 at one corner) along the edge (the
    /// reference's `PlacePointIn1D`): the second half mirrors the first, so that
    /// `place(n − 1 − i) = 1 − place(i)` exactly (§11.7.13).
    fn place(&self, point: u32) -> Fxp {
        let (p, mirrored) = if point >= self.half_points {
            let mut p = (self.half_points << 1).wrapping_sub(point);
            if self.parity == Parity::Odd {
                p = p.wrapping_sub(1);
            }
            (p, true)
        } else {
            (point, false)
        };
        if p == self.half_points {
            // The middle of an even edge: exactly ½ (16-bit arithmetic cannot reach it).
            return FXP_HALF;
        }
        let on_ceil = p;
        let on_floor = if p > self.split_point { p - 1 } else { p };
        let at_floor = on_floor.wrapping_mul(self.inv_floor_segments);
        let at_ceil = on_ceil.wrapping_mul(self.inv_ceil_segments);
        // Both at most ½, so the blend stays below 2³¹ before its rounding shift.
        let blend = at_floor
            .wrapping_mul(FXP_ONE.wrapping_sub(self.fraction))
            .wrapping_add(at_ceil.wrapping_mul(self.fraction));
        let location = blend.wrapping_add(FXP_HALF) >> FRACTION_BITS;
        if mirrored {
            FXP_ONE.wrapping_sub(location)
        } else {
            location
        }
    }
}

/// `v` without its highest set bit (the reference's `RemoveMSB`, for the small values it
/// sees).
fn remove_msb(v: u32) -> u32 {
    if v == 0 {
        0
    } else {
        v & !(1 << (31 - v.leading_zeros()))
    }
}

// ---------------------------------------------------------------------------------------
// Factor processing (D3D11.3 §11.7.11, §11.7.12).
// ---------------------------------------------------------------------------------------

/// `1 + 2⁻¹⁷`: above this a factor stays above 1 once in fixed point.
const ONE_PLUS_HALF_EPSILON: f32 = 1.0 + 1.0 / 131072.0;
/// `1 + 2⁻¹⁶`: the smallest fixed-point factor above 1.
const ONE_PLUS_EPSILON: f32 = 1.0 + 1.0 / 65536.0;

fn is_integer(p: Partitioning) -> bool {
    matches!(p, Partitioning::Integer | Partitioning::Pow2)
}

/// The hardware clamp range for edge factors (§11.7.11.2).
fn edge_range(p: Partitioning) -> (f32, f32) {
    match p {
        Partitioning::Integer | Partitioning::Pow2 => (1.0, 64.0),
        Partitioning::FractionalOdd => (1.0, 63.0),
        Partitioning::FractionalEven => (2.0, 64.0),
    }
}

/// `min(hi, max(lo, x))` with D3D's IEEE 754-2008 min/max (the reference's `fmin`/`fmax`):
/// a NaN operand loses and denormals compare as zero, so NaN, −∞, negatives, zeros and
/// denormals all give `lo` (lo ≥ 1).
fn clamp(x: f32, lo: f32, hi: f32) -> f32 {
    if x > lo {
        if x < hi { x } else { hi }
    } else {
        lo
    }
}

/// Whether an edge factor culls its patch (D3D11.3 §11.7.12): ≤ 0 or NaN. A positive
/// denormal does not (see the module doc's rules).
pub fn culls(edge_factor: f32) -> bool {
    edge_factor.is_nan() || edge_factor <= 0.0
}

fn rounded(p: Partitioning, x: f32) -> f32 {
    if is_integer(p) { x.ceil() } else { x }
}

/// A rounded integer factor's parity (the reference's `isEven` on the truncated value).
fn integer_parity(x: f32) -> Parity {
    if (x as i32) & 1 == 0 {
        Parity::Even
    } else {
        Parity::Odd
    }
}

fn edge_parity(p: Partitioning, x: f32) -> Parity {
    match p {
        Partitioning::Integer | Partitioning::Pow2 => integer_parity(x),
        Partitioning::FractionalOdd => Parity::Odd,
        Partitioning::FractionalEven => Parity::Even,
    }
}

/// An inside factor's parity: as an edge's, except that an integer inside factor of 1
/// counts as even, so a patch with inside factor 1 gets a point at its middle.
fn inside_parity(p: Partitioning, x: f32) -> Parity {
    if is_integer(p) && x == 1.0 {
        Parity::Even
    } else {
        edge_parity(p, x)
    }
}

/// The fewest points an inside axis may have: two rings' worth, so that the outer ring
/// always has an inner one to stitch to (degenerate when the inside factor is 1).
fn inside_points(s: &Spacing) -> u32 {
    let min = if s.parity == Parity::Odd { 4 } else { 3 };
    s.points.max(min)
}

/// The processed factors and what to do with them.
struct Plan {
    uses: Vec<FactorUse>,
    shape: Shape,
}

enum Shape {
    Culled,
    MinimalTri,
    MinimalQuad,
    Tri(TriPatch),
    Quad(QuadPatch),
    Isoline(IsolinePatch),
}

struct TriPatch {
    outer: [Spacing; 3],
    inner: Spacing,
    /// Points across the inside (≥ 3 or 4, see [`inside_points`]).
    n: u32,
}

struct QuadPatch {
    outer: [Spacing; 4],
    /// Along U, along V.
    inner: [Spacing; 2],
    n: [u32; 2],
}

struct IsolinePatch {
    density: Spacing,
    detail: Spacing,
    lines: u32,
}

fn factor_use(role: FactorRole, input: f32, value: f32, parity: Parity) -> (FactorUse, Spacing) {
    let fixed = to_fixed(value);
    let spacing = Spacing::new(fixed, parity);
    let u = FactorUse {
        role,
        input,
        value,
        fixed,
        parity,
        points: spacing.points,
    };
    (u, spacing)
}

fn plan(domain: Domain, part: Partitioning, f: &TessFactors) -> Plan {
    match domain {
        Domain::Tri => plan_tri(part, f),
        Domain::Quad => plan_quad(part, f),
        Domain::Isoline => plan_isoline(part, f),
    }
}

const CULLED: Plan = Plan {
    uses: Vec::new(),
    shape: Shape::Culled,
};

fn plan_tri(part: Partitioning, f: &TessFactors) -> Plan {
    let [e0, e1, e2, _] = f.edges;
    let raw = [e0, e1, e2];
    if raw.iter().any(|&x| culls(x)) {
        return CULLED;
    }
    let (lo, hi) = edge_range(part);
    let edges = raw.map(|x| rounded(part, clamp(x, lo, hi)));
    // §11.7.11.3: a tri checks only its edges for the picture frame (it has one inside
    // factor, so there is no other inside factor to keep in step with).
    let inside_lo = if part == Partitioning::FractionalOdd
        && edges.iter().any(|&x| x > ONE_PLUS_HALF_EPSILON)
    {
        ONE_PLUS_EPSILON
    } else {
        lo
    };
    let inside = rounded(part, clamp(f.inside[0], inside_lo, hi));
    let roles = [FactorRole::EdgeU0, FactorRole::EdgeV0, FactorRole::EdgeW0];
    let mut uses = Vec::with_capacity(4);
    let mut outer = [Spacing::new(FXP_ONE, Parity::Odd); 3];
    for ((slot, role), (&input, &value)) in outer.iter_mut().zip(roles).zip(raw.iter().zip(&edges))
    {
        let (u, s) = factor_use(role, input, value, edge_parity(part, value));
        uses.push(u);
        *slot = s;
    }
    let (mut u, inner) = factor_use(
        FactorRole::Inside,
        f.inside[0],
        inside,
        inside_parity(part, inside),
    );
    u.points = inside_points(&inner);
    uses.push(u);
    if minimal(part, &uses) {
        return Plan {
            uses,
            shape: Shape::MinimalTri,
        };
    }
    let n = inside_points(&inner);
    Plan {
        uses,
        shape: Shape::Tri(TriPatch { outer, inner, n }),
    }
}

fn plan_quad(part: Partitioning, f: &TessFactors) -> Plan {
    if f.edges.iter().any(|&x| culls(x)) {
        return CULLED;
    }
    let (lo, hi) = edge_range(part);
    let edges = f.edges.map(|x| rounded(part, clamp(x, lo, hi)));
    // §11.7.11.3: the clamped edges and the unclamped inside factors decide whether the
    // quad gets a picture frame.
    let inside_lo = if part == Partitioning::FractionalOdd
        && edges
            .iter()
            .chain(&f.inside)
            .any(|&x| x > ONE_PLUS_HALF_EPSILON)
    {
        ONE_PLUS_EPSILON
    } else {
        lo
    };
    let inside = f.inside.map(|x| rounded(part, clamp(x, inside_lo, hi)));
    let roles = [
        FactorRole::EdgeU0,
        FactorRole::EdgeV0,
        FactorRole::EdgeU1,
        FactorRole::EdgeV1,
    ];
    let mut uses = Vec::with_capacity(6);
    let mut outer = [Spacing::new(FXP_ONE, Parity::Odd); 4];
    for ((slot, role), (&input, &value)) in
        outer.iter_mut().zip(roles).zip(f.edges.iter().zip(&edges))
    {
        let (u, s) = factor_use(role, input, value, edge_parity(part, value));
        uses.push(u);
        *slot = s;
    }
    let mut inner = [Spacing::new(FXP_ONE, Parity::Odd); 2];
    for ((slot, role), (&input, &value)) in inner
        .iter_mut()
        .zip([FactorRole::InsideU, FactorRole::InsideV])
        .zip(f.inside.iter().zip(&inside))
    {
        let (mut u, s) = factor_use(role, input, value, inside_parity(part, value));
        u.points = inside_points(&s);
        uses.push(u);
        *slot = s;
    }
    if minimal(part, &uses) {
        return Plan {
            uses,
            shape: Shape::MinimalQuad,
        };
    }
    let n = inner.map(|s| inside_points(&s));
    Plan {
        uses,
        shape: Shape::Quad(QuadPatch { outer, inner, n }),
    }
}

/// Every factor exactly 1 in fixed point, with a partitioning that allows 1 (all but
/// fractional_even): the patch is just its corners.
fn minimal(part: Partitioning, uses: &[FactorUse]) -> bool {
    part != Partitioning::FractionalEven && uses.iter().all(|u| u.fixed == FXP_ONE)
}

fn plan_isoline(part: Partitioning, f: &TessFactors) -> Plan {
    let [density_in, detail_in, ..] = f.edges;
    if culls(density_in) || culls(detail_in) {
        return CULLED;
    }
    let (lo, hi) = edge_range(part);
    let detail = rounded(part, clamp(detail_in, lo, hi));
    let (detail_use, detail_spacing) = factor_use(
        FactorRole::LineDetail,
        detail_in,
        detail,
        edge_parity(part, detail),
    );
    // §11.7.10: the line density is an integer factor whatever the partitioning.
    let density = clamp(density_in, 1.0, 64.0).ceil();
    let (density_use, density_spacing) = factor_use(
        FactorRole::LineDensity,
        density_in,
        density,
        integer_parity(density),
    );
    // No line at V = 1 (§11.6).
    let lines = density_spacing.points.saturating_sub(1);
    Plan {
        uses: vec![density_use, detail_use],
        shape: Shape::Isoline(IsolinePatch {
            density: density_spacing,
            detail: detail_spacing,
            lines,
        }),
    }
}

// ---------------------------------------------------------------------------------------
// Counting (the reference's bookkeeping, used for capacities and budgets).
// ---------------------------------------------------------------------------------------

impl Plan {
    fn counts(&self, output: OutputPrimitive) -> Counts {
        let triangles = matches!(
            output,
            OutputPrimitive::TriangleCw | OutputPrimitive::TriangleCcw
        );
        let (points, primitives) = match &self.shape {
            Shape::Culled => (0, 0),
            Shape::MinimalTri => (3, 1),
            Shape::MinimalQuad => (4, 2),
            Shape::Tri(t) => (t.point_count(), t.triangle_count()),
            Shape::Quad(q) => (q.point_count(), q.triangle_count()),
            Shape::Isoline(i) => {
                let per_line = i.detail.points as usize;
                let lines = i.lines as usize;
                (per_line * lines, lines * per_line.saturating_sub(1))
            }
        };
        let indices = match output {
            OutputPrimitive::Point => points,
            OutputPrimitive::Line => primitives * 2,
            _ if triangles => primitives * 3,
            _ => 0,
        };
        Counts { points, indices }
    }
}

impl TriPatch {
    fn point_count(&self) -> usize {
        let outer: usize = self.outer.iter().map(|s| s.points as usize).sum::<usize>() - 3;
        let rings = (self.n as usize >> 1).saturating_sub(1);
        let inner = if self.inner.parity == Parity::Odd {
            3 * (rings * (rings + 1) - rings)
        } else {
            3 * rings * (rings + 1) + 1
        };
        outer + inner
    }

    fn triangle_count(&self) -> usize {
        let n = self.n as usize;
        let mut outer = self.outer.map(|s| s.points as usize);
        let mut triangles = 0;
        for ring in 1..n.div_ceil(2) {
            let inner = n - 2 * ring;
            for o in &mut outer {
                triangles += inner + *o - 2;
                *o = inner;
            }
        }
        if self.inner.parity == Parity::Odd {
            triangles += 1;
        }
        triangles
    }
}

impl QuadPatch {
    fn point_count(&self) -> usize {
        let outer: usize = self.outer.iter().map(|s| s.points as usize).sum::<usize>() - 4;
        let [nu, nv] = self.n.map(|n| n as usize);
        outer + (nu - 2) * (nv - 2)
    }

    fn triangle_count(&self) -> usize {
        let [nu, nv] = self.n.map(|n| n as usize);
        let mut outer = self.outer.map(|s| s.points as usize);
        let mut triangles = 0;
        for ring in 1..nu.div_ceil(2).min(nv.div_ceil(2)) {
            let inner = [nv - 2 * ring, nu - 2 * ring, nv - 2 * ring, nu - 2 * ring];
            for (o, i) in outer.iter_mut().zip(inner) {
                triangles += i + *o - 2;
                *o = i;
            }
        }
        if let Some(strip) = self.middle_strip() {
            triangles += 2 * (strip.points - 1);
        }
        triangles
    }
}

// ---------------------------------------------------------------------------------------
// Points and triangles.
// ---------------------------------------------------------------------------------------

/// Collects points and indices, turning clockwise triangles around for `triangle_ccw`.
struct Emitter {
    points: Vec<[f32; 2]>,
    indices: Vec<u32>,
    winding: OutputPrimitive,
}

impl Emitter {
    /// Adds a point and returns its index.
    fn point(&mut self, u: Fxp, v: Fxp) -> u32 {
        let i = index(self.points.len());
        self.points.push([to_float(u), to_float(v)]);
        i
    }

    /// Adds a triangle given clockwise (reference `DefineClockwiseTriangle`): kept for
    /// `triangle_cw`, its last two corners swapped for `triangle_ccw`.
    fn cw(&mut self, a: u32, b: u32, c: u32) {
        if self.winding == OutputPrimitive::TriangleCcw {
            self.indices.extend([a, c, b]);
        } else {
            self.indices.extend([a, b, c]);
        }
    }
}

/// One ring of points, walked clockwise as a cycle, and how many points each of its
/// sides has (both corners included). Consecutive sides share their corner; the last
/// side ends at the first point. A ring that has collapsed to a line of points (an even
/// inside factor on the narrower axis) is walked out along the line and back, and one
/// collapsed to a single point is that point on every side.
struct Ring {
    cycle: Vec<u32>,
    sides: Vec<u32>,
}

impl Ring {
    /// A ring whose points were generated in cycle order from `first`.
    fn stored(first: u32, sides: &[u32]) -> Ring {
        let total: u32 = sides.iter().map(|s| s - 1).sum();
        Ring {
            cycle: (first..first + total).collect(),
            sides: sides.to_vec(),
        }
    }

    /// A ring collapsed onto a line of `len` points generated in order from `first`.
    fn line(first: u32, len: u32, sides: &[u32]) -> Ring {
        let mut cycle: Vec<u32> = (first..first + len).collect();
        if len > 2 {
            cycle.extend((first + 1..first + len - 1).rev());
        }
        Ring {
            cycle,
            sides: sides.to_vec(),
        }
    }

    /// Side `side`'s points in clockwise order.
    fn side(&self, side: usize) -> Vec<u32> {
        let start: u32 = self.sides.iter().take(side).map(|s| s - 1).sum();
        let len = self.sides.get(side).copied().unwrap_or(0);
        let n = self.cycle.len();
        (0..len)
            .map(|k| {
                let at = (start + k) as usize % n.max(1);
                self.cycle.get(at).copied().unwrap_or(0)
            })
            .collect()
    }
}

/// A row of point indices read by position; positions past the end read the last point
/// (never reached: stitching advances each row exactly to its end).
struct Row<'a>(&'a [u32]);

impl Row<'_> {
    fn at(&self, i: usize) -> u32 {
        debug_assert!(i < self.0.len(), "stitch read past its row");
        self.0.get(i).or(self.0.last()).copied().unwrap_or(0)
    }
}

/// Two rows being stitched: `inner` (nearer the patch centre) and `outer`, each walked
/// from its first point.
struct Stitch<'a, 'e> {
    inner: Row<'a>,
    outer: Row<'a>,
    i: usize,
    o: usize,
    out: &'e mut Emitter,
}

impl Stitch<'_, '_> {
    /// A triangle with two outer points: the outer row moves on.
    fn advance_outer(&mut self) {
        let (a, b, c) = (
            self.outer.at(self.o),
            self.outer.at(self.o + 1),
            self.inner.at(self.i),
        );
        self.out.cw(a, b, c);
        self.o += 1;
    }

    /// A triangle with two inner points: the inner row moves on.
    fn advance_inner(&mut self) {
        let (a, b, c) = (
            self.inner.at(self.i),
            self.outer.at(self.o),
            self.inner.at(self.i + 1),
        );
        self.out.cw(a, b, c);
        self.i += 1;
    }

    /// The quad between positions i..i+1 of both rows, its diagonal joining the inner
    /// row's first point to the outer row's second.
    fn quad_inner_to_outer(&mut self) {
        let (i0, i1) = (self.inner.at(self.i), self.inner.at(self.i + 1));
        let (o0, o1) = (self.outer.at(self.o), self.outer.at(self.o + 1));
        self.out.cw(i0, o0, o1);
        self.out.cw(i0, o1, i1);
        self.i += 1;
        self.o += 1;
    }

    /// The same quad cut the other way: diagonal from the outer row's first point to the
    /// inner row's second.
    fn quad_outer_to_inner(&mut self) {
        let (i0, i1) = (self.inner.at(self.i), self.inner.at(self.i + 1));
        let (o0, o1) = (self.outer.at(self.o), self.outer.at(self.o + 1));
        self.out.cw(o0, i1, i0);
        self.out.cw(o0, o1, i1);
        self.i += 1;
        self.o += 1;
    }

    /// The quad with the inner row's first point joined to the outer row's second, its
    /// triangles listed outer-first (used beside the "Z" of an odd middle strip).
    fn quad_outer_first(&mut self) {
        let (i0, i1) = (self.inner.at(self.i), self.inner.at(self.i + 1));
        let (o0, o1) = (self.outer.at(self.o), self.outer.at(self.o + 1));
        self.out.cw(o0, o1, i0);
        self.out.cw(i0, o1, i1);
        self.i += 1;
        self.o += 1;
    }
}

/// How the quads of a regular strip are cut.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Diagonals {
    /// Every diagonal from the inner row's point to the next outer point.
    InnerToOuter,
    /// As `InnerToOuter` but the middle quad cut the other way (an odd strip's "Z").
    InnerToOuterExceptMiddle,
    /// Diagonals mirrored about the middle: outer-to-inner in the first half, then
    /// inner-to-outer (§11.7.6: each quad's diagonal points at its nearer corner).
    Mirrored,
}

/// Stitches two rows of equal spacing (reference `StitchRegular`). `inner_points` is the
/// inner row's length; a trapezoid's outer row has two more points, one triangle at each
/// end.
fn stitch_regular(
    out: &mut Emitter,
    inner: &[u32],
    outer: &[u32],
    trapezoid: bool,
    diagonals: Diagonals,
) {
    let n = inner.len();
    let mut s = Stitch {
        inner: Row(inner),
        outer: Row(outer),
        i: 0,
        o: 0,
        out,
    };
    if trapezoid {
        s.advance_outer();
    }
    match diagonals {
        Diagonals::InnerToOuter => {
            for _ in 1..n {
                s.quad_inner_to_outer();
            }
        }
        Diagonals::InnerToOuterExceptMiddle => {
            let half = n / 2;
            for _ in 1..half {
                s.quad_outer_first();
            }
            s.quad_outer_to_inner();
            // The quads after the middle one (n − 1 in all).
            for _ in (half.max(1) + 1)..n {
                s.quad_outer_first();
            }
        }
        Diagonals::Mirrored => {
            let half = n / 2;
            for _ in 0..half {
                s.quad_outer_to_inner();
            }
            for _ in half..n.saturating_sub(1) {
                s.quad_inner_to_outer();
            }
        }
    }
    if trapezoid {
        s.advance_outer();
    }
}

/// Stitches the outermost ring's side to the first inner ring's side when their factors
/// differ (reference `StitchTransition`, §11.7.6.1–2). Walking the finest half edge's
/// positions from the corner in, a row advances at each position where it has a point
/// (`RULER[p] <` its points on the half edge, corner included, middle excluded); the two
/// halves meet in the middle with a quad, or a triangle when only one row has a middle
/// point, and the second half walks back out mirrored.
fn stitch_transition(
    out: &mut Emitter,
    inner: &[u32],
    inner_spacing: &Spacing,
    outer: &[u32],
    outer_spacing: &Spacing,
) {
    let half = |s: &Spacing| {
        if s.parity == Parity::Odd {
            s.half_points.saturating_sub(1)
        } else {
            s.half_points
        }
    };
    let (inner_half, outer_half) = (half(inner_spacing), half(outer_spacing));
    let (inner_odd, outer_odd) = (
        inner_spacing.parity == Parity::Odd,
        outer_spacing.parity == Parity::Odd,
    );
    let mut s = Stitch {
        inner: Row(inner),
        outer: Row(outer),
        i: 0,
        o: 0,
        out,
    };
    // Position 0 is the corner: only the outer row can move off it.
    if outer_half > 0 {
        s.advance_outer();
    }
    for &born in RULER.iter().skip(1) {
        if born < inner_half {
            s.advance_inner();
        }
        if born < outer_half {
            s.advance_outer();
        }
    }
    match (inner_odd, outer_odd) {
        (true, true) => {
            // Both rows have a middle segment: a quad.
            let (i0, i1) = (s.inner.at(s.i), s.inner.at(s.i + 1));
            let (o0, o1) = (s.outer.at(s.o), s.outer.at(s.o + 1));
            s.out.cw(i0, o0, i1);
            s.out.cw(i1, o0, o1);
            s.i += 1;
            s.o += 1;
        }
        // Only the outer row has a middle segment: a triangle pointing in.
        (false, true) => s.advance_outer_inward(),
        // Only the inner row has one: a triangle pointing out.
        (true, false) => s.advance_inner(),
        // Both have a middle point: they already meet.
        (false, false) => {}
    }
    for &born in RULER.iter().skip(1).rev() {
        if born < outer_half {
            s.advance_outer();
        }
        if born < inner_half {
            s.advance_inner();
        }
    }
    if outer_half > 0 {
        s.advance_outer();
    }
}

impl Stitch<'_, '_> {
    /// The outer row's middle segment against the inner row's middle point, listed from
    /// the inner point.
    fn advance_outer_inward(&mut self) {
        let (a, b, c) = (
            self.inner.at(self.i),
            self.outer.at(self.o),
            self.outer.at(self.o + 1),
        );
        self.out.cw(a, b, c);
        self.o += 1;
    }
}

impl TriPatch {
    /// Generates the points and returns the rings, outermost first.
    fn points(&self, out: &mut Emitter) -> Vec<Ring> {
        let mut rings = Vec::new();
        // The outer ring, clockwise from V=1: edge U=0 with V falling, edge V=0 with U
        // rising, edge W=0 with U falling; each edge without its last point.
        for (edge, s) in self.outer.iter().enumerate() {
            let end = s.points.saturating_sub(1);
            for p in 0..end {
                let q = if edge == 1 { p } else { end - p };
                let t = s.place(q);
                match edge {
                    0 => out.point(0, t),
                    1 => out.point(t, 0),
                    _ => out.point(t, FXP_ONE.wrapping_sub(t)),
                };
            }
        }
        rings.push(Ring::stored(0, &self.outer.map(|s| s.points)));
        // Inner rings, spiralling in. A ring's points sit at the inside factor's spacing
        // along each edge direction, pulled in by the ring's distance: the perpendicular
        // parameter is the 1-D position scaled by ⅔ (rounded), and the parallel one loses
        // half of that (rounded up).
        let n = self.n;
        for ring in 1..n >> 1 {
            let first = index(out.points.len());
            let end = n - 1 - ring;
            let perp = self.inner.place(ring).wrapping_mul(FXP_TWO_THIRDS);
            let perp = perp.wrapping_add(FXP_HALF) >> FRACTION_BITS;
            let shift = perp.wrapping_add(1) / 2;
            for edge in 0..3 {
                for p in ring..end {
                    let q = if edge == 1 { p } else { end - (p - ring) };
                    let t = self.inner.place(q).wrapping_sub(shift);
                    match edge {
                        0 => out.point(perp, t),
                        1 => out.point(t, perp),
                        _ => out.point(t, FXP_ONE.wrapping_sub(t).wrapping_sub(perp)),
                    };
                }
            }
            let side = n - 2 * ring;
            rings.push(Ring::stored(first, &[side; 3]));
        }
        if self.inner.parity == Parity::Even {
            // The centre, (⅓, ⅓, ⅓) truncated.
            let c = out.point(FXP_ONE_THIRD, FXP_ONE_THIRD);
            rings.push(Ring::line(c, 1, &[1; 3]));
        }
        rings
    }

    fn connect(&self, rings: &[Ring], out: &mut Emitter) {
        for (r, pair) in rings.windows(2).enumerate() {
            let [outer, inner] = pair else { continue };
            for edge in 0..3 {
                let (o, i) = (outer.side(edge), inner.side(edge));
                if r == 0 {
                    let outer_spacing = self.outer.get(edge).copied().unwrap_or(self.inner);
                    stitch_transition(out, &i, &self.inner, &o, &outer_spacing);
                } else {
                    stitch_regular(out, &i, &o, true, Diagonals::Mirrored);
                }
            }
        }
        if self.inner.parity == Parity::Odd {
            // An odd patch ends in a ring of three points: one triangle.
            if let Some(last) = rings.last() {
                let c = Row(&last.cycle);
                out.cw(c.at(0), c.at(1), c.at(2));
            }
        }
    }
}

/// A quad's last strip of quads, between the two long sides of a ring two points wide.
struct MiddleStrip {
    /// Points along each long side.
    points: usize,
    /// Whether the strip runs along U (its long sides are the ring's V=0 and V=1 sides).
    along_u: bool,
    diagonals: Diagonals,
}

impl QuadPatch {
    /// The strip left inside the last ring when the narrower axis (U on a tie) has odd
    /// parity; with even parity the last ring is a line or a point instead.
    fn middle_strip(&self) -> Option<MiddleStrip> {
        let [nu, nv] = self.n.map(|n| n as usize);
        let [pu, pv] = self.inner.map(|s| s.parity);
        if nu > nv && pv == Parity::Odd {
            Some(MiddleStrip {
                points: nu - nv + 2,
                along_u: true,
                diagonals: Diagonals::InnerToOuter,
            })
        } else if nv >= nu && pu == Parity::Odd {
            Some(MiddleStrip {
                points: nv - nu + 2,
                along_u: false,
                diagonals: if pv == Parity::Even {
                    Diagonals::InnerToOuter
                } else {
                    Diagonals::InnerToOuterExceptMiddle
                },
            })
        } else {
            None
        }
    }

    /// Generates the points and returns the rings, outermost first.
    fn points(&self, out: &mut Emitter) -> Vec<Ring> {
        let mut rings = Vec::new();
        // The outer ring, clockwise from (0, 1): U=0 with V falling, V=0 with U rising,
        // U=1 with V rising, V=1 with U falling; each edge without its last point.
        for (edge, s) in self.outer.iter().enumerate() {
            let end = s.points.saturating_sub(1);
            for p in 0..end {
                let q = if edge == 1 || edge == 2 { p } else { end - p };
                let t = s.place(q);
                match edge {
                    0 => out.point(0, t),
                    1 => out.point(t, 0),
                    2 => out.point(FXP_ONE, t),
                    _ => out.point(t, FXP_ONE),
                };
            }
        }
        rings.push(Ring::stored(0, &self.outer.map(|s| s.points)));
        // Inner rings the same way, each side at the inside factor's spacing along its
        // axis and at ring `ring`'s position across it.
        let [nu, nv] = self.n;
        let [su, sv] = &self.inner;
        for ring in 1..nu.min(nv) >> 1 {
            let first = index(out.points.len());
            let (end_u, end_v) = (nu - 1 - ring, nv - 1 - ring);
            let (u_lo, u_hi) = (su.place(ring), su.place(end_u));
            let (v_lo, v_hi) = (sv.place(ring), sv.place(end_v));
            for p in ring..end_v {
                out.point(u_lo, sv.place(end_v - (p - ring)));
            }
            for p in ring..end_u {
                out.point(su.place(p), v_lo);
            }
            for p in ring..end_v {
                out.point(u_hi, sv.place(p));
            }
            for p in ring..end_u {
                out.point(su.place(end_u - (p - ring)), v_hi);
            }
            rings.push(Ring::stored(
                first,
                &[nv - 2 * ring, nu - 2 * ring, nv - 2 * ring, nu - 2 * ring],
            ));
        }
        // With even parity on the narrower axis (U on a tie) the last ring collapses to a
        // line of points across the middle (or a single point when both are even and
        // equal).
        let ring = nu.min(nv) >> 1;
        let first = index(out.points.len());
        if nu > nv && sv.parity == Parity::Even {
            let len = nu - 2 * ring;
            for p in ring..nu - ring {
                out.point(su.place(p), FXP_HALF);
            }
            rings.push(Ring::line(first, len, &[1, len, 1, len]));
        } else if nv >= nu && su.parity == Parity::Even {
            let len = nv - 2 * ring;
            for p in (ring..nv - ring).rev() {
                out.point(FXP_HALF, sv.place(p));
            }
            rings.push(Ring::line(first, len, &[len, 1, len, 1]));
        }
        rings
    }

    fn connect(&self, rings: &[Ring], out: &mut Emitter) {
        for (r, pair) in rings.windows(2).enumerate() {
            let [outer, inner] = pair else { continue };
            for edge in 0..4 {
                let (o, i) = (outer.side(edge), inner.side(edge));
                if r == 0 {
                    // Sides U=0 and U=1 run along V; V=0 and V=1 along U.
                    let [along_u, along_v] = self.inner;
                    let inner_spacing = if edge % 2 == 0 { along_v } else { along_u };
                    let outer_spacing = self.outer.get(edge).copied().unwrap_or(inner_spacing);
                    stitch_transition(out, &i, &inner_spacing, &o, &outer_spacing);
                } else {
                    stitch_regular(out, &i, &o, true, Diagonals::Mirrored);
                }
            }
        }
        if let (Some(strip), Some(last)) = (self.middle_strip(), rings.last()) {
            // The strip's outer row is the last ring's V=0 side (along U) or U=0 side
            // (along V); its inner row the opposite side, read in the same direction.
            let (outer_side, inner_side) = if strip.along_u { (1, 3) } else { (0, 2) };
            let outer = last.side(outer_side);
            let mut inner = last.side(inner_side);
            inner.reverse();
            debug_assert_eq!(outer.len(), strip.points);
            stitch_regular(out, &inner, &outer, false, strip.diagonals);
        }
    }
}

impl IsolinePatch {
    fn points(&self, out: &mut Emitter) {
        for line in 0..self.lines {
            let v = self.density.place(line);
            for p in 0..self.detail.points {
                out.point(self.detail.place(p), v);
            }
        }
    }

    /// Each line's segments in order, as a line list.
    fn connect(&self, out: &mut Emitter) {
        let per_line = self.detail.points;
        for line in 0..self.lines {
            let first = line * per_line;
            for p in 1..per_line {
                out.indices.extend([first + p - 1, first + p]);
            }
        }
    }
}

#[cfg(test)]
mod tests;
