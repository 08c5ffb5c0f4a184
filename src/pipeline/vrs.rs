//! Variable-rate shading: the pixel program run once per coarse pixel of 1×2 to 4×4
//! pixels, after DirectX-Specs "Variable Rate Shading" (VRS; section names below are
//! that document's).
//!
//! Owns: the shading rates and combiners (`RSSetShadingRate`), the screen-space rate
//! image (`RSSetShadingRateImage`) and its lookup, which rate a primitive takes in each
//! VRS tile, the sanitizing of a rate to what the sample count allows, the coarse pixel's
//! footprint, its coverage layout and where its inputs are evaluated. Does not own:
//! rasterizing (`raster`), running waves (`tile`), interpolation weights (`interp`) or
//! the output merger (`om`): `tile` hands a coarse lane's outputs to the merger as the
//! fine pixels it covers.
//!
//! # What dxlane reports (`D3D12_FEATURE_DATA_D3D12_OPTIONS6` / `OPTIONS10`)
//!
//! Tier 2, `AdditionalShadingRatesSupported` (2X4, 4X2, 4X4),
//! `ShadingRateImageTileSize` = 16 ([`TILE_SIZE`]),
//! `PerPrimitiveShadingRateIndependentOfViewportUse`,
//! `VariableRateShadingSumCombinerSupported` and
//! `MeshShaderPerPrimitiveShadingRateSupported`. No public source states WARP's values;
//! these are the caps under which every rule of the specification applies, and 16 is
//! the larger of the two tile sizes the specification allows ("Tile size").
//!
//! # Rules
//!
//! - "Combining Shading Rate Factors": the draw's rate ⊕ the provoking vertex's
//!   `SV_ShadingRate` with combiner 0, ⊕ the image's rate with combiner 1, each axis
//!   apart (`min` of 1X2 and 2X1 is 1X1); `SUM` adds the axes' logarithms, capped at 4X.
//!   A source absent is 1X1 ("Default State and State Clearing").
//! - Inputs and results outside the supported table are sanitized to a supported rate:
//!   the supported rate of largest area whose axes are no coarser than the request,
//!   a tie going to the coarser x (dxlane's choice: the specification says only that
//!   the result is "sanitized to a shading rate that is supported"). Supported with
//!   1 sample: all seven; 2 samples: 1X1, 1X2, 2X1, 2X2, 2X4; 4 samples: up to 2X2;
//!   8 samples: 1X1, 1X2, 2X1; 16 samples: 1X1 (the table of "New model": no coarse
//!   pixel covers more than 16 samples, and no 4X2 with 2 samples).
//! - Fine shading is forced by sample-frequency execution ("Sample-based execution":
//!   the program runs per sample of each fine pixel) and by a depth or stencil-reference
//!   output ("Export of Depth and Stencil").
//! - The rate image ("Screen Space Image"): R8_UINT, a single-mip, single-slice,
//!   single-sample 2D texture whose texel `(x / 16, y / 16)` holds pixel `(x, y)`'s rate;
//!   a texel past the image's extent reads 1X1; a byte that is no `D3D12_SHADING_RATE`
//!   is refused, naming the texel.
//! - "VRS Tiles": one rate per primitive per 16×16 tile; coarse pixels are aligned to
//!   their size in render-target space and never straddle a tile.
//! - "Attribute Interpolation": centre at the coarse pixel's centre (`SV_Position`
//!   included); centroid at the first covered sample in the coverage order below, the
//!   centre when every sample of the coarse pixel is covered.
//! - "Ordering and Format of Bits in the Coverage Mask": fine pixel `(i, j)` of a coarse
//!   pixel `cw` wide holds bits `(j × cw + i) × S …` of `SV_Coverage`, `S` the sample
//!   count, each its samples in index order.
//! - "EvaluateAttributeSnapped": the offset's fields widen to 5 or 6 bits along a 2× or
//!   4× axis, still sixteenths of a fine pixel, about the coarse centre.
//! - "Screen-space Derivatives": a quad is 2×2 coarse pixels, so differences span
//!   coarse pixels. "Depth and Stencil": tests and writes stay per sample; "Discard"
//!   drops the whole coarse pixel; a UAV write happens once per coarse pixel.
//!
//! `EvaluateAttributeAtSample(i)` in a coarse pixel (the specification is silent):
//! dxlane takes `i` in the coverage order above (fine pixel `i / S`, its sample
//! `i % S`); an index past the coarse pixel's samples evaluates at the centre.

use super::interp::{self, Location};
use super::ps::{PixelLane, PixelQuad};
use super::raster::Pattern;
use crate::resources::{Format, Texture, TextureDim};

/// `ShadingRateImageTileSize`: the pixels (each way) one texel of the rate image covers,
/// and the region in which a primitive has one rate.
pub const TILE_SIZE: u32 = 16;

// A VRS tile never straddles a bin tile, and a coarse quad (2×2 coarse pixels of up to
// 4×4) never straddles a VRS tile.
const _: () = assert!(super::bin::TILE_SIZE % TILE_SIZE == 0 && TILE_SIZE % 8 == 0);

/// `D3D12_SHADING_RATE`: the coarse pixel's width and height, each 1, 2 or 4. The value
/// is `log2(width) << 2 | log2(height)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
#[repr(u8)]
pub enum ShadingRate {
    /// `D3D12_SHADING_RATE_1X1`: fine pixels.
    #[default]
    X1X1 = 0x0,
    /// `D3D12_SHADING_RATE_1X2`.
    X1X2 = 0x1,
    /// `D3D12_SHADING_RATE_2X1`.
    X2X1 = 0x4,
    /// `D3D12_SHADING_RATE_2X2`.
    X2X2 = 0x5,
    /// `D3D12_SHADING_RATE_2X4`.
    X2X4 = 0x6,
    /// `D3D12_SHADING_RATE_4X2`.
    X4X2 = 0x9,
    /// `D3D12_SHADING_RATE_4X4`.
    X4X4 = 0xA,
}

impl ShadingRate {
    /// Every rate, finest first.
    pub const ALL: [ShadingRate; 7] = [
        ShadingRate::X1X1,
        ShadingRate::X1X2,
        ShadingRate::X2X1,
        ShadingRate::X2X2,
        ShadingRate::X2X4,
        ShadingRate::X4X2,
        ShadingRate::X4X4,
    ];

    /// The rate whose `D3D12_SHADING_RATE` value is `v`.
    pub fn from_value(v: u32) -> Option<ShadingRate> {
        Self::ALL.into_iter().find(|r| u32::from(r.value()) == v)
    }

    /// The rate named `1X1` … `4X4` (any case).
    pub fn from_name(name: &str) -> Option<ShadingRate> {
        Self::ALL
            .into_iter()
            .find(|r| r.name().eq_ignore_ascii_case(name))
    }

    /// The name without `D3D12_SHADING_RATE_`.
    pub fn name(self) -> &'static str {
        match self {
            ShadingRate::X1X1 => "1X1",
            ShadingRate::X1X2 => "1X2",
            ShadingRate::X2X1 => "2X1",
            ShadingRate::X2X2 => "2X2",
            ShadingRate::X2X4 => "2X4",
            ShadingRate::X4X2 => "4X2",
            ShadingRate::X4X4 => "4X4",
        }
    }

    /// The `D3D12_SHADING_RATE` value (what `SV_ShadingRate` holds).
    #[inline]
    pub fn value(self) -> u8 {
        self as u8
    }

    /// `D3D12_AXIS_SHADING_RATE` of x and y: log2 of the width and height.
    #[inline]
    pub fn axes(self) -> [u8; 2] {
        let v = self.value();
        [v >> 2, v & 3]
    }

    /// Width and height in fine pixels.
    #[inline]
    pub fn size(self) -> [u32; 2] {
        self.axes().map(|a| 1 << a)
    }
}

/// `D3D12_SHADING_RATE_COMBINER`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Combiner {
    /// `PASSTHROUGH`: the first input.
    #[default]
    Passthrough,
    /// `OVERRIDE`: the second input.
    Override,
    /// `MIN`: the finer of the two, per axis.
    Min,
    /// `MAX`: the coarser of the two, per axis.
    Max,
    /// `SUM`: the axes' logarithms added, capped at 4X.
    Sum,
}

impl Combiner {
    /// Every combiner.
    pub const ALL: [Combiner; 5] = [
        Combiner::Passthrough,
        Combiner::Override,
        Combiner::Min,
        Combiner::Max,
        Combiner::Sum,
    ];

    /// The combiner named `PASSTHROUGH` … `SUM` (any case).
    pub fn from_name(name: &str) -> Option<Combiner> {
        Self::ALL
            .into_iter()
            .find(|c| c.name().eq_ignore_ascii_case(name))
    }

    /// The name without `D3D12_SHADING_RATE_COMBINER_`.
    pub fn name(self) -> &'static str {
        match self {
            Combiner::Passthrough => "PASSTHROUGH",
            Combiner::Override => "OVERRIDE",
            Combiner::Min => "MIN",
            Combiner::Max => "MAX",
            Combiner::Sum => "SUM",
        }
    }

    /// `C.xy` of inputs `a` and `b` ("List of combiners"), per axis, before sanitizing.
    pub fn apply(self, a: ShadingRate, b: ShadingRate) -> [u8; 2] {
        let (a, b) = (a.axes(), b.axes());
        let each = |f: fn(u8, u8) -> u8| [f(a[0], b[0]), f(a[1], b[1])];
        match self {
            Combiner::Passthrough => a,
            Combiner::Override => b,
            Combiner::Min => each(u8::min),
            Combiner::Max => each(u8::max),
            // maxRate is D3D12_AXIS_SHADING_RATE_4X with AdditionalShadingRatesSupported.
            Combiner::Sum => each(|x, y| (x + y).min(2)),
        }
    }
}

/// Whether `rate` may shade a target of `samples` samples (the table of "New model",
/// with `AdditionalShadingRatesSupported`).
pub fn supported(rate: ShadingRate, samples: u32) -> bool {
    let [w, h] = rate.size();
    let covered = w * h * samples.max(1);
    match rate {
        ShadingRate::X4X2 => samples <= 1,
        _ => covered <= 16 || rate == ShadingRate::X1X1,
    }
}

/// The supported rate for a request of axes `axes` (see the module doc: largest area
/// no coarser on either axis, a tie to the coarser x).
pub fn sanitize(axes: [u8; 2], samples: u32) -> ShadingRate {
    ShadingRate::ALL
        .into_iter()
        .filter(|r| {
            let a = r.axes();
            a[0] <= axes[0] && a[1] <= axes[1] && supported(*r, samples)
        })
        .max_by_key(|r| {
            let a = r.axes();
            (a[0] + a[1], a[0])
        })
        .unwrap_or_default()
}

/// The command list's shading-rate state: `RSSetShadingRate(rate, combiners)` and
/// `RSSetShadingRateImage(image)`. The default is D3D12's: 1X1, both combiners
/// `PASSTHROUGH`, no image.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct ShadingRateState {
    /// The draw's base rate.
    pub rate: ShadingRate,
    /// Combiner 0 (base ⊕ per-primitive) and combiner 1 (⊕ image).
    pub combiners: [Combiner; 2],
    /// The screen-space rate image (R8_UINT), if any.
    pub image: Option<Texture>,
}

impl ShadingRateState {
    /// Whether some pixel of some draw could shade coarsely under this state: with the
    /// base rate 1X1 and both combiners `PASSTHROUGH`, every rate is 1X1.
    pub fn can_be_coarse(&self) -> bool {
        self.rate != ShadingRate::X1X1 || self.combiners != [Combiner::Passthrough; 2]
    }
}

/// The rate image's rates over the tiles of a render target, read once per draw.
#[derive(Debug, Clone)]
struct ImageRates {
    cols: u32,
    rows: u32,
    rates: Vec<ShadingRate>,
}

/// The draw's shading-rate sources, checked and read: what a tile asks for each
/// primitive's rate in each VRS tile.
#[derive(Debug, Clone)]
pub struct Rates {
    base: ShadingRate,
    combiners: [Combiner; 2],
    /// The word of `SV_ShadingRate` in the records the rasterizer reads.
    prim_word: Option<u32>,
    image: Option<ImageRates>,
    samples: u32,
}

impl Rates {
    /// The draw's rates for a target of `width` × `height` pixels and `samples` samples,
    /// `prim_word` the word of `SV_ShadingRate` in the records the rasterizer reads;
    /// `None` when every pixel shades fine (the state cannot be coarse, or `fine` forces
    /// fine shading). An error says what is wrong with the image.
    pub fn new(
        state: &ShadingRateState,
        width: u32,
        height: u32,
        samples: u32,
        prim_word: Option<u32>,
        fine: bool,
    ) -> Result<Option<Rates>, String> {
        let image = match &state.image {
            Some(t) => Some(read_image(t, width, height)?),
            None => None,
        };
        if fine || !state.can_be_coarse() {
            return Ok(None);
        }
        Ok(Some(Rates {
            base: state.rate,
            combiners: state.combiners,
            prim_word,
            image,
            samples,
        }))
    }

    /// The per-primitive rate of a primitive whose provoking vertex's `SV_ShadingRate`
    /// is `word` (`None`: not written, 1X1). A value that is no `D3D12_SHADING_RATE`
    /// is 1X1: what the hardware does with one is undefined, and a program's value
    /// cannot be refused before the draw.
    pub fn prim_rate(&self, word: impl FnOnce(u32) -> u32) -> ShadingRate {
        self.prim_word
            .and_then(|w| ShadingRate::from_value(word(w)))
            .unwrap_or_default()
    }

    /// The rate of a primitive with per-primitive rate `prim` in VRS tile
    /// `(tx, ty)`: the combiners' result, sanitized.
    pub fn rate(&self, prim: ShadingRate, tx: u32, ty: u32) -> ShadingRate {
        let s = self.samples;
        let fit = |r: ShadingRate| sanitize(r.axes(), s);
        let image = self.image.as_ref().map_or(ShadingRate::X1X1, |i| {
            if tx < i.cols && ty < i.rows {
                let at = (ty as usize) * (i.cols as usize) + tx as usize;
                i.rates.get(at).copied().unwrap_or_default()
            } else {
                ShadingRate::X1X1
            }
        });
        let first = sanitize(
            self.combiners[0].apply(fit(self.base), fit(prim)),
            self.samples,
        );
        sanitize(self.combiners[1].apply(first, fit(image)), self.samples)
    }
}

/// Reads the rates of `image` over a `width` × `height` target (the tiles past the
/// image are not read: they are 1X1), refusing what "Format, layout, resource
/// properties" rules out and bytes that are no `D3D12_SHADING_RATE`.
fn read_image(image: &Texture, width: u32, height: u32) -> Result<ImageRates, String> {
    let d = image.desc();
    if d.format != Format::R8_UINT {
        return Err(format!(
            "the shading-rate image is {:?}: it must be R8_UINT (VRS \"Format, layout, resource properties\")",
            d.format
        ));
    }
    if d.dim != TextureDim::Tex2D || d.mips != 1 || d.array_size() != 1 || d.samples > 1 {
        return Err(format!(
            "the shading-rate image is a {} of {} mips, {} slices and {} samples: it must be a 2D texture of one mip, one slice and one sample (VRS \"Format, layout, resource properties\")",
            d.dim.name(),
            d.mips,
            d.array_size(),
            d.samples
        ));
    }
    let cols = width.div_ceil(TILE_SIZE).min(d.width);
    let rows = height.div_ceil(TILE_SIZE).min(d.height);
    let mut rates = Vec::new();
    rates
        .try_reserve_exact((cols as usize) * (rows as usize))
        .map_err(|_| "no memory for the shading-rate image's rates".to_string())?;
    for y in 0..rows {
        for x in 0..cols {
            let mut b = [0u8];
            let read = image
                .texel_addr(0, 0, [x, y, 0], 0)
                .is_some_and(|a| image.memory().read_bytes(a, &mut b));
            if !read {
                return Err(format!(
                    "the shading-rate image's texel ({x}, {y}) cannot be read"
                ));
            }
            let r = ShadingRate::from_value(u32::from(b[0])).ok_or_else(|| {
                format!(
                    "the shading-rate image's texel ({x}, {y}) holds {}, which is no D3D12_SHADING_RATE (0, 1, 4, 5, 6, 9 or 10)",
                    b[0]
                )
            })?;
            rates.push(r);
        }
    }
    Ok(ImageRates { cols, rows, rates })
}

/// The centre of `lane`'s (coarse) pixel ("Attribute Interpolation", Center).
#[inline]
pub fn centre(lane: &PixelLane) -> Location {
    if lane.rate == ShadingRate::X1X1 {
        return interp::centre(lane.x, lane.y);
    }
    let [w, h] = lane.rate.size();
    [
        f64::from(lane.x) + f64::from(w) / 2.0,
        f64::from(lane.y) + f64::from(h) / 2.0,
    ]
}

/// Bit `b` of a coarse lane's coverage as (fine x, fine y, sample) (see the module doc).
fn coverage_bit(lane: &PixelLane, pattern: &Pattern, b: u32) -> (u32, u32, u32) {
    let s = pattern.count().max(1);
    let [w, _] = lane.rate.size();
    let f = b / s;
    (lane.x + f % w, lane.y + f / w, b % s)
}

/// The centroid of `lane` ("Attribute Interpolation", Centroid).
pub fn centroid(pattern: &Pattern, lane: &PixelLane) -> Location {
    if lane.rate == ShadingRate::X1X1 {
        return interp::centroid(pattern, lane.x, lane.y, lane.coverage);
    }
    if lane.coverage == 0 || lane.coverage == full_coverage(pattern, lane.rate) {
        return centre(lane);
    }
    let (x, y, s) = coverage_bit(lane, pattern, lane.coverage.trailing_zeros());
    interp::sample(pattern, x, y, s)
}

/// Every coverage bit of a coarse pixel of `rate`.
fn full_coverage(pattern: &Pattern, rate: ShadingRate) -> u32 {
    let [w, h] = rate.size();
    let n = w * h * pattern.count().max(1);
    if n >= 32 { u32::MAX } else { (1 << n) - 1 }
}

/// `EvaluateAttributeAtSample(i)` in `lane` (see the module doc).
pub fn sample(pattern: &Pattern, lane: &PixelLane, i: u32) -> Location {
    if lane.rate == ShadingRate::X1X1 {
        return interp::sample(pattern, lane.x, lane.y, i);
    }
    let [w, h] = lane.rate.size();
    if i >= w * h * pattern.count().max(1) {
        return centre(lane);
    }
    let (x, y, s) = coverage_bit(lane, pattern, i);
    interp::sample(pattern, x, y, s)
}

/// `EvaluateAttributeSnapped(offset)` in `lane`: the coarse centre moved by the offset's
/// low 4, 5 or 6 bits (signed sixteenths), as wide as the axis is coarse.
pub fn snapped(lane: &PixelLane, ox: u32, oy: u32) -> Location {
    if lane.rate == ShadingRate::X1X1 {
        return interp::snapped(lane.x, lane.y, ox, oy);
    }
    let [ax, ay] = lane.rate.axes();
    let field = |v: u32, axis: u8| {
        let bits = 4 + u32::from(axis);
        f64::from(((v << (32 - bits)) as i32) >> (32 - bits)) / 16.0
    };
    let c = centre(lane);
    [c[0] + field(ox, ax), c[1] + field(oy, ay)]
}

/// The fine pixels of one coarse lane with their samples: `(x, y, coverage)` of each
/// fine pixel the lane covers, row by row.
pub fn fine_pixels(lane: &PixelLane, samples: u32) -> impl Iterator<Item = (u32, u32, u32)> {
    let s = samples.max(1);
    let [w, h] = lane.rate.size();
    let all = if s >= 32 { u32::MAX } else { (1 << s) - 1 };
    let (x0, y0, cov) = (lane.x, lane.y, lane.coverage);
    (0..w * h).filter_map(move |f| {
        let m = cov.checked_shr(f * s).unwrap_or(0) & all;
        (m != 0).then_some((x0 + f % w, y0 + f / w, m))
    })
}

/// Whether set-up primitives `a` and `b` are pieces of one primitive that clipping cut
/// (same primitive id, vertices, face, viewport and slice): the coarse grid takes
/// them as one, since a primitive has one rate per tile and a coarse pixel is shaded
/// once per primitive.
pub(crate) fn same_primitive(a: &super::setup::Prim, b: &super::setup::Prim) -> bool {
    a.id == b.id
        && a.verts == b.verts
        && a.front == b.front
        && a.viewport == b.viewport
        && a.slice == b.slice
}

/// A tile's fine coverage of one primitive, gathered so that it can be shaded in
/// coarse quads: the rasterizer's quads go in, coarse quads in a fixed order come out.
pub(crate) struct CoarseGrid {
    /// The tile's left, top, right and bottom pixels.
    rect: [i32; 4],
    /// Columns of `masks`.
    width: u32,
    /// Each pixel's covered samples, row-major over the tile.
    masks: Vec<u32>,
    /// The pixels written since the last drain: left, top, right, bottom (exclusive),
    /// tile-relative.
    touched: Option<[u32; 4]>,
}

impl CoarseGrid {
    /// An empty grid over the tile `rect`.
    pub(crate) fn new(rect: [i32; 4]) -> CoarseGrid {
        let width = (rect[2] - rect[0]).max(0) as u32;
        let height = (rect[3] - rect[1]).max(0) as u32;
        CoarseGrid {
            rect,
            width,
            masks: vec![0; (width * height) as usize],
            touched: None,
        }
    }

    /// Records the quad at `(x, y)` (even, render-target pixels) with each pixel's
    /// samples `mask` (lane order of [`PixelQuad`]).
    pub(crate) fn put(&mut self, x: u32, y: u32, mask: [u32; 4]) {
        let (lx, ly) = (
            x as i64 - self.rect[0] as i64,
            y as i64 - self.rect[1] as i64,
        );
        for (k, m) in mask.into_iter().enumerate() {
            let (px, py) = (lx + (k as i64 & 1), ly + (k as i64 >> 1));
            if m == 0 || px < 0 || py < 0 || px >= i64::from(self.width) {
                continue;
            }
            let (px, py) = (px as u32, py as u32);
            let Some(slot) = self.masks.get_mut((py * self.width + px) as usize) else {
                continue;
            };
            // Clipping's pieces of one primitive may share a pixel's samples.
            *slot |= m;
            let t = self.touched.get_or_insert([px, py, px + 1, py + 1]);
            *t = [
                t[0].min(px),
                t[1].min(py),
                t[2].max(px + 1),
                t[3].max(py + 1),
            ];
        }
    }

    /// The coarse quads of primitive `prim` (set-up index) gathered since the last
    /// drain, each VRS tile taking `rate(tx, ty)`, pushed to `out`: VRS tiles row by
    /// row, and in each its coarse quads row by row, left to right, a quad being 2×2
    /// coarse pixels aligned to twice the coarse size. Clears the grid.
    pub(crate) fn drain(
        &mut self,
        prim: u32,
        samples: u32,
        rate: impl Fn(u32, u32) -> ShadingRate,
        out: &mut Vec<PixelQuad>,
    ) {
        let Some([l, t, r, b]) = self.touched.take() else {
            return;
        };
        let s = samples.max(1);
        let (ox, oy) = (self.rect[0] as u32, self.rect[1] as u32);
        // Render-target coordinates of the touched box.
        let (x0, y0, x1, y1) = (ox + l, oy + t, ox + r, oy + b);
        for ty in y0 / TILE_SIZE..y1.div_ceil(TILE_SIZE) {
            for tx in x0 / TILE_SIZE..x1.div_ceil(TILE_SIZE) {
                let rate = rate(tx, ty);
                let [w, h] = rate.size();
                let (qw, qh) = (2 * w, 2 * h);
                let ys = (ty * TILE_SIZE).max(y0 / qh * qh);
                let ye = ((ty + 1) * TILE_SIZE).min(y1);
                let xs = (tx * TILE_SIZE).max(x0 / qw * qw);
                let xe = ((tx + 1) * TILE_SIZE).min(x1);
                for qy in (ys..ye).step_by(qh as usize) {
                    for qx in (xs..xe).step_by(qw as usize) {
                        let mut coverage = [0u32; 4];
                        for (k, c) in coverage.iter_mut().enumerate() {
                            let cx = qx + (k as u32 & 1) * w;
                            let cy = qy + (k as u32 >> 1) * h;
                            for f in 0..w * h {
                                let m = self.take(cx + f % w, cy + f / w);
                                *c |= m.checked_shl(f * s).unwrap_or(0);
                            }
                        }
                        if coverage != [0; 4] {
                            out.push(PixelQuad {
                                prim,
                                x: qx,
                                y: qy,
                                sample: 0,
                                coverage,
                                rate,
                            });
                        }
                    }
                }
            }
        }
    }

    /// The samples of render-target pixel `(x, y)`, cleared.
    fn take(&mut self, x: u32, y: u32) -> u32 {
        let (lx, ly) = (
            x.wrapping_sub(self.rect[0] as u32),
            y.wrapping_sub(self.rect[1] as u32),
        );
        if lx >= self.width {
            return 0;
        }
        self.masks
            .get_mut((ly as usize) * (self.width as usize) + lx as usize)
            .map_or(0, std::mem::take)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// "Shading Rates": the values decompose into log2 axes, x in bits 2–3.
    #[test]
    fn rates_decompose_into_axes() {
        assert_eq!(ShadingRate::X2X4.size(), [2, 4]);
        assert_eq!(ShadingRate::X4X2.axes(), [2, 1]);
        assert_eq!(ShadingRate::from_value(9), Some(ShadingRate::X4X2));
        assert_eq!(ShadingRate::from_value(2), None);
        assert_eq!(ShadingRate::from_value(3), None);
        assert_eq!(ShadingRate::from_name("2x2"), Some(ShadingRate::X2X2));
        assert_eq!(ShadingRate::from_name("4X1"), None);
    }

    /// "List of combiners": per axis; MIN of 1X2 and 2X1 is 1X1 (the spec's example);
    /// SUM caps at 4X.
    #[test]
    fn combiners_work_per_axis() {
        use ShadingRate::*;
        assert_eq!(Combiner::Min.apply(X1X2, X2X1), [0, 0]);
        assert_eq!(Combiner::Max.apply(X1X2, X2X1), [1, 1]);
        assert_eq!(Combiner::Passthrough.apply(X2X4, X1X1), [1, 2]);
        assert_eq!(Combiner::Override.apply(X2X4, X4X2), [2, 1]);
        assert_eq!(Combiner::Sum.apply(X2X2, X2X1), [2, 1]);
        assert_eq!(Combiner::Sum.apply(X4X4, X2X2), [2, 2]);
    }

    /// "New model"'s table: no coarse pixel over 16 samples, no 4X2 at 2 samples;
    /// sanitizing keeps the largest supported rate within the request.
    #[test]
    fn sanitizing_follows_the_sample_count_table() {
        use ShadingRate::*;
        let ok = |s: u32| -> Vec<ShadingRate> {
            ShadingRate::ALL
                .into_iter()
                .filter(|r| supported(*r, s))
                .collect()
        };
        assert_eq!(ok(1), ShadingRate::ALL.to_vec());
        assert_eq!(ok(2), [X1X1, X1X2, X2X1, X2X2, X2X4]);
        assert_eq!(ok(4), [X1X1, X1X2, X2X1, X2X2]);
        assert_eq!(ok(8), [X1X1, X1X2, X2X1]);
        assert_eq!(ok(16), [X1X1]);
        assert_eq!(sanitize([2, 2], 1), X4X4);
        assert_eq!(sanitize([2, 2], 2), X2X4);
        assert_eq!(sanitize([2, 1], 2), X2X2);
        assert_eq!(sanitize([2, 2], 4), X2X2);
        assert_eq!(sanitize([1, 1], 8), X2X1);
        assert_eq!(sanitize([2, 0], 1), X2X1);
        assert_eq!(sanitize([0, 2], 1), X1X2);
        assert_eq!(sanitize([2, 2], 16), X1X1);
    }

    fn lane(rate: ShadingRate, coverage: u32) -> PixelLane {
        PixelLane {
            prim: 0,
            x: 8,
            y: 4,
            sample: 0,
            coverage,
            rate,
        }
    }

    /// "Attribute Interpolation": the centre is the coarse pixel's; the centroid the
    /// first covered sample in coverage order (fine pixel row-major, then sample), the
    /// centre when all are covered; snapped offsets widen with the axis.
    #[test]
    fn coarse_locations() {
        let p1 = Pattern::standard(1).unwrap();
        let p4 = Pattern::standard(4).unwrap();
        assert_eq!(centre(&lane(ShadingRate::X2X4, 1)), [9.0, 6.0]);
        assert_eq!(centre(&lane(ShadingRate::X1X1, 1)), [8.5, 4.5]);
        // 2X2, one sample: bit 3 is the bottom-right fine pixel (9, 5).
        assert_eq!(centroid(&p1, &lane(ShadingRate::X2X2, 0b1000)), [9.5, 5.5]);
        assert_eq!(centroid(&p1, &lane(ShadingRate::X2X2, 0b1111)), [9.0, 5.0]);
        // 2X1 at 4 samples: bit 5 is fine pixel 1 (9, 4), sample 1.
        let at = centroid(&p4, &lane(ShadingRate::X2X1, 1 << 5));
        assert_eq!(at, interp::sample(&p4, 9, 4, 1));
        assert_eq!(
            sample(&p4, &lane(ShadingRate::X2X1, 1), 6),
            interp::sample(&p4, 9, 4, 2)
        );
        assert_eq!(sample(&p4, &lane(ShadingRate::X2X1, 1), 8), [9.0, 4.5]);
        // 5-bit x field at 2X: 0b10000 is -16/16; 4-bit y field at 1X: 0xf is -1/16.
        assert_eq!(
            snapped(&lane(ShadingRate::X2X1, 1), 0b10000, 0xf),
            [9.0 - 1.0, 4.5 - 1.0 / 16.0]
        );
    }
}
