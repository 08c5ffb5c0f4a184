//! Texture filtering: LOD, mip selection, address modes, point/linear/anisotropic
//! filtering, comparison (PCF), min/max reduction, gather, and cube maps.
//!
//! Rules follow the Direct3D 11.3 functional specification §7.18 ("Texture Sampling").
//! Every choice the specification leaves to the implementation is listed here with the
//! section it comes from. Where the specification leaves the choice open, what WARP does
//! is unknown: the announcement of the 2023 WARP release (Shader Model 6.7) says earlier
//! releases had "known issues" in the texture sampler that it fixes, without naming the
//! rules, and the NuGet release notes name none either. Each open choice here is the
//! reference behaviour the specification describes, checkable against a capture.
//!
//! - **Coordinate range reduction** (§7.18.6): before scaling, WRAP coordinates become
//!   `frac(u)`, MIRROR `signedFrac(u / 2) × 2`, CLAMP/BORDER/MIRROR_ONCE are clamped to
//!   [−10, 10] (`D3D11_COMMONSHADER_TEXCOORD_RANGE_REDUCTION_MIN/MAX`), so huge, infinite
//!   and NaN coordinates address texels like their reduced forms (NaN: texel 0).
//! - **Subtexel precision** (§7.18.7, §7.18.8, §7.18.16.1): the scaled coordinate
//!   (`u × size`, minus 0.5 for linear filtering) is snapped to fixed point with exactly
//!   [`SUBTEXEL_BITS`] = 8 fraction bits, rounding to nearest even (§3.2.4.1's
//!   reference conversion; the specification asks "at least 16.8", we keep 40 integer
//!   bits). Point sampling takes the snapped value's integer part, so a coordinate within
//!   1/512 texel below a texel edge already selects the next texel; linear filtering takes
//!   `floor` and `floor + 1` with the weight `fraction / 256`.
//! - **Weight arithmetic** (§7.18.8, §7.18.16.2): the specification writes the bilinear
//!   result as a sum of four products of weights; we interpolate per axis in `f32`
//!   (`a + (b − a) × w`, along u, then v, then w, then between mips), which meets
//!   §7.18.16.3's invariants exactly (a constant texture filters to its value, results stay
//!   within the texels' range, monotonic in each weight). Which of the two WARP uses is
//!   unknown; they differ by an ulp or two of the result. A NaN texel filters to a NaN
//!   with determinate bits: the first NaN of the two values interpolated, made quiet (the
//!   default quiet NaN for ∞ − ∞), so that every path through the filter gives the same
//!   bits.
//! - **LOD** (§7.18.11): gradients scaled by the view's mip-0 size; isotropic LOD is
//!   `log2(max(|dX|, |dY|))` without the optional orthogonal-Jacobian transformation
//!   (§7.18.11 allows approximations). Implicit-LOD sampling takes coarse derivatives of
//!   the pixel's 2×2 quad (§7.18.11 names `deriv_rtx_coarse`/`deriv_rty_coarse`), computed
//!   in `exec::sample`. Cube gradients are projected onto the major face (§7.18.11's
//!   quotient rule) and scaled by half the face size.
//! - **Anisotropic filtering** (§7.18.11, 2D textures and 2D arrays with an `ANISOTROPIC`
//!   filter and gradients): the major axis is the longer of the two gradients; the ratio
//!   `|major|² / |dX × dY|` is clamped to `MaxAnisotropy` (then LOD comes from the
//!   clamped minor length `|major| / ratio`, else from `|dX × dY| / |major|`); a minor
//!   length below one texel lowers the ratio to `max(1, ratio × minor)` and gives a
//!   negative LOD (the recommended, unclamped behaviour). `ceil(ratio)` probes, evenly
//!   spaced along the major axis over its whole length, are each filtered trilinearly
//!   (linear mip filtering, §7.18.10: "Anisotropic texture filtering uses LINEAR mipmap
//!   selection"; `MIN_MAG_ANISOTROPIC_MIP_POINT` takes the nearest mip) and averaged with
//!   equal weights; comparison filters average the probes' comparison results and min/max
//!   filters reduce over them. Probe placement and weights are not specified (WARP's are
//!   unknown). Explicit-LOD sampling is isotropic (§7.18.11: "the ratio of anisotropy with
//!   sample_l is 1"); cubes, 1D and 3D textures filter trilinearly (§7.18.13 asks no more).
//! - **LOD clamps** (§7.18.11): `clamped = max(MinLOD, min(MaxLOD, lod + MipLODBias +
//!   shader bias))` with NaN-dropping min/max (a NaN LOD becomes `MaxLOD`, and `MinLOD`
//!   wins when above `MaxLOD`); a shader's LOD clamp (`sample_cl`) then raises the LOD to
//!   at least its value. Magnification (LOD ≤ 0) is decided after the clamps (§7.18.11
//!   leaves before/after open).
//! - **Mip selection** (§7.18.10): the clamped LOD is snapped to fixed point with
//!   [`MIP_LOD_FRACTION_BITS`] = 8 fraction bits (round to nearest even); point mip
//!   filtering takes `floor(lod + 0.5)`, linear blends `floor(lod)` and the next mip by
//!   `fraction / 256`; both clamp to the view's mips.
//! - **Comparison** (§7.18.15, `sample_c`): the reference (the *source*) is compared with
//!   each texel's red channel (the *destination*) by the sampler's function; the 0/1
//!   results are filtered with the usual weights. The reference is not clamped.
//! - **Min/max reduction** (D3D11.2 tiled-resources filters): the component-wise minimum or
//!   maximum of the texels with a non-zero weight, over both mips for linear mip filtering.
//! - **Array index** (§7.18.7 for 2D arrays, `sample`'s operand rules): rounded to
//!   nearest even, then clamped to the view's elements (NaN: element 0).
//! - **Cube maps** (§7.18.7, §7.18.12): the face is the direction's major axis (ties: z,
//!   then y, then x); address modes do not apply. A bilinear tap past a face edge reads
//!   the neighbouring face's texel found by re-projecting the tap's centre direction; at a
//!   corner, where one of the four taps has no texel, its weight is divided evenly among
//!   the other three (the reference behaviour; §7.18.12 also allows splitting it between
//!   the two adjacent taps, and WARP's choice is unknown).
//! - **Border colour** (§7.18.9.1): only the components the format has come from the
//!   sampler's border colour, the others take the format's defaults (0, 0, 0, 1); each is
//!   clamped to the format's range ([0, 1] UNORM and sRGB — the colour is linear already
//!   —, [−1, 1] SNORM, [0, 65504] or ±65504 for unsigned and signed halves and BC6H,
//!   non-negative for R11G11B10). §7.18.9.1 also lets hardware snap it to its filtering
//!   precision: we keep the `f32` value (WARP unknown). Integer formats, which D3D never
//!   filters, take the border colour converted to their integer type (saturating).
//! - **Integer formats** cannot be filtered (D3D forbids it); they are point-sampled at
//!   the nearest mip and return raw integer texels.
//! - **Block-compressed formats** are decoded texel by texel before filtering (§19.5.1).

use super::format::{ChannelType, Format, Num};
use super::sampler::{AddressMode, ComparisonFunc, FilterType, Reduction, SamplerDesc};
use super::texture::{TextureDim, TextureView};

/// Bits of fraction texel addresses are snapped to (`D3D11_SUBTEXEL_FRACTIONAL_BIT_COUNT`).
pub const SUBTEXEL_BITS: u32 = 8;

/// Bits of fraction of the LOD used to pick and blend mips
/// (`D3D11_MIP_LOD_FRACTIONAL_BIT_COUNT`).
pub const MIP_LOD_FRACTION_BITS: u32 = 8;

/// The reduced range of clamped, bordered and mirrored-once coordinates (§7.18.6).
pub const TEXCOORD_RANGE: f32 = 10.0;

/// How a sample chooses its level of detail.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Lod {
    /// An explicit LOD (`SampleLevel`, `sample_l`; `SampleCmpLevelZero` passes 0).
    Level(f32),
    /// Gradients of the coordinates along screen x and y (`SampleGrad`, or quad
    /// derivatives for implicit-LOD sampling) and a shader bias (`SampleBias`).
    Gradients {
        /// d(u, v, w)/dx.
        ddx: [f32; 3],
        /// d(u, v, w)/dy.
        ddy: [f32; 3],
        /// Shader LOD bias (0 when none).
        bias: f32,
    },
}

/// The per-lane inputs of a sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SampleInput {
    /// Coordinates: u (v, w) by the view's shape, then the array index (cube arrays: the
    /// direction in u, v, w and the cube index in the fourth).
    pub coord: [f32; 4],
    /// Immediate texel offsets.
    pub offset: [i32; 3],
    /// LOD source.
    pub lod: Lod,
    /// Minimum LOD clamp (`clamp` argument; `f32::NEG_INFINITY` for none).
    pub min_lod_clamp: f32,
    /// Comparison reference value for comparison sampling.
    pub reference: Option<f32>,
}

/// Where a view's texels come from for one lookup: a 2D face of a cube or a slice.
struct Site<'a> {
    view: &'a TextureView,
    sampler: &'a SamplerDesc,
    /// Number of filtered axes (1, 2 or 3).
    axes: usize,
    /// View-relative array slice (cube: first face of the cube).
    slice: u32,
    /// Cube face when sampling a cube.
    face: Option<u32>,
    integer: bool,
}

/// A texel value for filtering: decoded floats or the border colour.
type Texel = [f32; 4];

/// `a + (b − a) × f`, with a determinate NaN (see the module doc's weight arithmetic):
/// Rust leaves open which NaN operand an operation returns, and so which bits a NaN
/// result has, so a NaN result is replaced by the first NaN of `a`, `b`, made quiet, or
/// the default quiet NaN when neither is one (∞ − ∞).
#[inline(always)]
pub(crate) fn lerp(a: f32, b: f32, f: f32) -> f32 {
    let r = a + (b - a) * f;
    if r.is_nan() { nan_of(a, b) } else { r }
}

#[cold]
fn nan_of(a: f32, b: f32) -> f32 {
    const QUIET: u32 = 0x0040_0000;
    if a.is_nan() {
        f32::from_bits(a.to_bits() | QUIET)
    } else if b.is_nan() {
        f32::from_bits(b.to_bits() | QUIET)
    } else {
        f32::from_bits(0x7fc0_0000)
    }
}

/// [`lerp`] per component.
#[inline(always)]
pub(crate) fn lerp4(a: Texel, b: Texel, f: f32) -> Texel {
    [
        lerp(a[0], b[0], f),
        lerp(a[1], b[1], f),
        lerp(a[2], b[2], f),
        lerp(a[3], b[3], f),
    ]
}

/// D3D11.3 §7.18.9 texture address modes, applied to an integer texel coordinate.
/// Returns `None` for a border texel.
pub fn address(mode: AddressMode, i: i64, size: i64) -> Option<i64> {
    let size = size.max(1);
    match mode {
        AddressMode::Wrap => Some(i.rem_euclid(size)),
        AddressMode::Mirror => {
            let m = i.rem_euclid(2 * size);
            Some(if m < size { m } else { 2 * size - 1 - m })
        }
        AddressMode::Clamp => Some(i.clamp(0, size - 1)),
        AddressMode::Border => (0..size).contains(&i).then_some(i),
        AddressMode::MirrorOnce => {
            let m = if i < 0 { -1 - i } else { i };
            Some(m.min(size - 1))
        }
    }
}

/// §7.18.6: the normalized coordinate reduced to a small range by the address mode.
pub fn reduce_range(u: f32, mode: AddressMode) -> f32 {
    match mode {
        AddressMode::Wrap => u - u.floor(),
        AddressMode::Mirror => {
            let h = u / 2.0;
            (h - h.trunc()) * 2.0
        }
        // NaN stays NaN (`clamp` passes it through).
        _ => u.clamp(-TEXCOORD_RANGE, TEXCOORD_RANGE),
    }
}

/// §3.2.4.1: `x` as a fixed-point number with `frac` fraction bits, rounded to nearest
/// even; NaN gives 0, values past ±2^40 saturate.
pub fn to_fixed(x: f32, frac: u32) -> i64 {
    if x.is_nan() {
        return 0;
    }
    const LIMIT: f64 = (1u64 << 40) as f64;
    let v = (f64::from(x) * f64::from(1u32 << frac)).clamp(-LIMIT, LIMIT);
    v.round_ties_even() as i64
}

/// The integer texel and weight fraction along one axis: `x` is the coordinate in texels
/// of the mip (`u × width`, after range reduction). Point: the integer part of `x` snapped
/// to 16.8 fixed point; linear: of `x − 0.5`, with the fraction as the weight of the
/// second texel (§7.18.7, §7.18.8). Offsets add whole texels.
pub fn footprint(x: f32, offset: i32, linear: bool) -> (i64, f32) {
    let a = if linear { x - 0.5 } else { x };
    let fx = to_fixed(a, SUBTEXEL_BITS);
    let i = fx >> SUBTEXEL_BITS;
    let f = if linear {
        (fx & ((1 << SUBTEXEL_BITS) - 1)) as f32 / (1u32 << SUBTEXEL_BITS) as f32
    } else {
        0.0
    };
    (i.saturating_add(i64::from(offset)), f)
}

/// Cube face selection (major axis; ties favour z, then y): returns the face (D3D order
/// +X, −X, +Y, −Y, +Z, −Z) and the face coordinates `(s, t)` in [0, 1].
pub fn cube_face(d: [f32; 3]) -> (u32, f32, f32) {
    let [x, y, z] = d;
    let (ax, ay, az) = (x.abs(), y.abs(), z.abs());
    let (face, sc, tc, ma) = if az >= ax && az >= ay {
        if z.is_sign_negative() {
            (5, -x, -y, az)
        } else {
            (4, x, -y, az)
        }
    } else if ay >= ax {
        if y.is_sign_negative() {
            (3, x, -z, ay)
        } else {
            (2, x, z, ay)
        }
    } else if x.is_sign_negative() {
        (1, z, -y, ax)
    } else {
        (0, -z, -y, ax)
    };
    let inv = if ma > 0.0 { 1.0 / ma } else { 0.0 };
    (face, (sc * inv + 1.0) * 0.5, (tc * inv + 1.0) * 0.5)
}

/// The direction of face coordinates `(sc, tc)` in [−1, 1] on `face` (inverse of
/// [`cube_face`]).
fn cube_dir(face: u32, sc: f32, tc: f32) -> [f32; 3] {
    match face {
        0 => [1.0, -tc, -sc],
        1 => [-1.0, -tc, sc],
        2 => [sc, 1.0, tc],
        3 => [sc, -1.0, -tc],
        4 => [sc, -tc, 1.0],
        _ => [-sc, -tc, -1.0],
    }
}

/// The range a format's components are clamped to before filtering, and whether the
/// format stores each of R, G, B, A.
fn format_range(format: Format) -> ([bool; 4], f32, f32) {
    let mut has = [false; 4];
    for c in format.channels() {
        has[usize::from(c.dest & 3)] = true;
    }
    if !format.channels().is_empty() {
        // Channel formats: the first channel's kind gives the range.
        let (lo, hi) = match format.channels().first().map(|c| (c.num, c.bits)) {
            Some((Num::UNorm | Num::Srgb, _)) => (0.0, 1.0),
            Some((Num::SNorm, _)) => (-1.0, 1.0),
            Some((Num::UFloat, _)) => (0.0, f32::MAX),
            Some((Num::Float, 16)) => (-65504.0, 65504.0),
            Some((Num::XrBias, _)) => (-384.0 / 510.0, 639.0 / 510.0),
            _ => (f32::MIN, f32::MAX),
        };
        return (has, lo, hi);
    }
    let n = format.component_count() as usize;
    for (i, h) in has.iter_mut().enumerate() {
        *h = i < n;
    }
    let (lo, hi) = match format.channel_type() {
        ChannelType::UNorm | ChannelType::Srgb => (0.0, 1.0),
        ChannelType::SNorm => (-1.0, 1.0),
        _ if format == Format::BC6H_UF16 => (0.0, 65504.0),
        _ if format == Format::BC6H_SF16 => (-65504.0, 65504.0),
        _ if format == Format::R9G9B9E5_SHAREDEXP => (0.0, 65408.0),
        _ => (f32::MIN, f32::MAX),
    };
    (has, lo, hi)
}

/// §7.18.9.1: the border colour as a format filters it: the components the format lacks
/// take its defaults, the others are clamped to its range (NaN becomes 0).
pub fn border_color(format: Format, border: [f32; 4]) -> [f32; 4] {
    let (has, lo, hi) = format_range(format);
    let mut out = [0.0, 0.0, 0.0, 1.0];
    for i in 0..4 {
        if has[i] {
            let b = if border[i].is_nan() { 0.0 } else { border[i] };
            out[i] = b.clamp(lo, hi);
        }
    }
    out
}

/// The border colour of an integer format, as its raw integer texel (saturating
/// conversion of each component; missing ones 0, 0, 0, 1).
fn integer_border(format: Format, border: [f32; 4]) -> [u32; 4] {
    let (has, _, _) = format_range(format);
    let signed = format.channel_type() == ChannelType::SInt;
    let mut out = [0, 0, 0, 1];
    for i in 0..4 {
        if has[i] {
            out[i] = if signed {
                border[i] as i32 as u32
            } else {
                border[i] as u32
            };
        }
    }
    out
}

impl Site<'_> {
    /// The texel at integer coordinates of view mip `mip`, with address modes (or cube
    /// seams) applied; the border colour for border texels.
    fn fetch(&self, mip: u32, c: [i64; 3]) -> Texel {
        match self.fetch_bits(mip, c) {
            Ok(bits) => {
                if self.integer {
                    bits.map(|b| b as f32)
                } else {
                    bits.map(f32::from_bits)
                }
            }
            Err(border) => border,
        }
    }

    /// The texel's decoded bits, or `Err(border colour)`.
    fn fetch_bits(&self, mip: u32, c: [i64; 3]) -> Result<[u32; 4], Texel> {
        let [w, h, d] = self.view.mip_size(mip);
        let size = [i64::from(w), i64::from(h), i64::from(d)];
        let (slice, xyz) = if let Some(face) = self.face {
            let (f, x, y) = cube_seam(face, c[0], c[1], size[0]);
            (self.slice + f, [x as u32, y as u32, 0])
        } else {
            let mut xyz = [0u32; 3];
            for k in 0..self.axes {
                match address(self.sampler.address[k], c[k], size[k]) {
                    Some(v) => xyz[k] = v as u32,
                    // Worked out only when a texel is a border texel.
                    None => {
                        return Err(border_color(self.view.format, self.sampler.border_color));
                    }
                }
            }
            (self.slice, xyz)
        };
        Ok(self.view.fetch(mip, slice, xyz).unwrap_or([0; 4]))
    }

    /// The texel value a filter combines: the texel, or its comparison result.
    fn tap(&self, mip: u32, c: [i64; 3], compare: Option<(f32, ComparisonFunc)>) -> Texel {
        let t = self.fetch(mip, c);
        match compare {
            Some((reference, func)) => {
                [if func.passes(reference, t[0]) {
                    1.0
                } else {
                    0.0
                }; 4]
            }
            None => t,
        }
    }
}

/// Resolves a texel coordinate of a cube face that may lie one texel past an edge to the
/// face and in-range texel holding it (seamless filtering, see the module doc).
fn cube_seam(face: u32, x: i64, y: i64, size: i64) -> (u32, i64, i64) {
    if (0..size).contains(&x) && (0..size).contains(&y) {
        return (face, x, y);
    }
    let n = size as f32;
    let sc = 2.0 * (x as f32 + 0.5) / n - 1.0;
    let tc = 2.0 * (y as f32 + 0.5) / n - 1.0;
    let (f, s, t) = cube_face(cube_dir(face, sc, tc));
    let clampi = |v: f32| ((v * n).floor() as i64).clamp(0, size - 1);
    (f, clampi(s), clampi(t))
}

/// How one mip is filtered.
#[derive(Clone, Copy)]
struct MipFilter {
    linear: bool,
    reduction: Reduction,
    compare: Option<(f32, ComparisonFunc)>,
}

/// The texel coordinates of a normalized coordinate along each axis: range reduction
/// (§7.18.6) unless the site is a cube face, then the footprint at mip size `size`.
fn footprints(
    site: &Site<'_>,
    tc: [f32; 3],
    size: [u32; 3],
    offset: [i32; 3],
    linear: bool,
) -> ([i64; 3], [f32; 3]) {
    let mut base = [0i64; 3];
    let mut frac = [0f32; 3];
    for k in 0..site.axes {
        let u = if site.face.is_some() {
            tc[k]
        } else {
            reduce_range(tc[k], site.sampler.address[k])
        };
        let (i, f) = footprint(u * size[k] as f32, offset[k], linear);
        base[k] = i;
        frac[k] = f;
    }
    (base, frac)
}

/// The first texel, the weight fractions and the number of texels (1 or 2) along each
/// axis that a filter reads at view mip `mip`: a second texel only where its weight is
/// not zero.
fn taps(
    site: &Site<'_>,
    mip: u32,
    tc: [f32; 3],
    offset: [i32; 3],
    linear: bool,
) -> ([i64; 3], [f32; 3], [usize; 3]) {
    let size = site.view.mip_size(mip);
    let (base, frac) = footprints(site, tc, size, offset, linear);
    let mut taps = [1usize; 3];
    for k in 0..site.axes {
        taps[k] = if frac[k] > 0.0 { 2 } else { 1 };
    }
    (base, frac, taps)
}

/// Filters the footprint at view mip `mip`: returns the filtered texel, or for min/max
/// reductions the reduced one.
fn filter_mip(site: &Site<'_>, mip: u32, tc: [f32; 3], offset: [i32; 3], f: MipFilter) -> Texel {
    let (base, frac, taps) = taps(site, mip, tc, offset, f.linear);
    let at = |dx: usize, dy: usize, dz: usize| {
        [
            base[0].saturating_add(dx as i64),
            base[1].saturating_add(dy as i64),
            base[2].saturating_add(dz as i64),
        ]
    };
    match f.reduction {
        Reduction::Minimum | Reduction::Maximum => {
            let mut acc: Option<Texel> = None;
            for dz in 0..taps[2] {
                for dy in 0..taps[1] {
                    for dx in 0..taps[0] {
                        let t = site.tap(mip, at(dx, dy, dz), f.compare);
                        acc = Some(match acc {
                            None => t,
                            Some(a) => reduce(a, t, f.reduction),
                        });
                    }
                }
            }
            acc.unwrap_or([0.0; 4])
        }
        _ => {
            if site.face.is_some() && taps[0] == 2 && taps[1] == 2 {
                if let Some(t) =
                    cube_corner(site, mip, base, frac, site.view.mip_size(mip)[0], f.compare)
                {
                    return t;
                }
            }
            // Lerp along u, then v, then w.
            let mut zs = [[0f32; 4]; 2];
            for (dz, zslot) in zs.iter_mut().enumerate().take(taps[2]) {
                let mut ys = [[0f32; 4]; 2];
                for (dy, yslot) in ys.iter_mut().enumerate().take(taps[1]) {
                    let a = site.tap(mip, at(0, dy, dz), f.compare);
                    *yslot = if taps[0] == 2 {
                        lerp4(a, site.tap(mip, at(1, dy, dz), f.compare), frac[0])
                    } else {
                        a
                    };
                }
                *zslot = if taps[1] == 2 {
                    lerp4(ys[0], ys[1], frac[1])
                } else {
                    ys[0]
                };
            }
            if taps[2] == 2 {
                lerp4(zs[0], zs[1], frac[2])
            } else {
                zs[0]
            }
        }
    }
}

/// §7.18.12: a bilinear cube footprint with one tap past both edges of the face (a
/// corner) combines the other three, the missing tap's weight split evenly among them.
/// `None` when no tap is a corner.
fn cube_corner(
    site: &Site<'_>,
    mip: u32,
    base: [i64; 3],
    frac: [f32; 3],
    size: u32,
    compare: Option<(f32, ComparisonFunc)>,
) -> Option<Texel> {
    let n = i64::from(size);
    let out = |v: i64| !(0..n).contains(&v);
    let corner = (0..4).find(|&k| {
        let (dx, dy) = (k & 1, k >> 1);
        out(base[0].saturating_add(dx)) && out(base[1].saturating_add(dy))
    })?;
    let w = |k: i64| {
        let wx = if k & 1 == 1 { frac[0] } else { 1.0 - frac[0] };
        let wy = if k >> 1 == 1 { frac[1] } else { 1.0 - frac[1] };
        wx * wy
    };
    let share = w(corner) / 3.0;
    let mut acc = [0f32; 4];
    for k in (0..4).filter(|&k| k != corner) {
        let t = site.tap(
            mip,
            [
                base[0].saturating_add(k & 1),
                base[1].saturating_add(k >> 1),
                0,
            ],
            compare,
        );
        let wk = w(k) + share;
        for c in 0..4 {
            acc[c] += t[c] * wk;
        }
    }
    Some(acc)
}

fn reduce(a: Texel, b: Texel, r: Reduction) -> Texel {
    let mut o = a;
    for i in 0..4 {
        o[i] = if r == Reduction::Minimum {
            a[i].min(b[i])
        } else {
            a[i].max(b[i])
        };
    }
    o
}

/// The coordinates to filter: face coordinates for cubes; the site (slice, face).
fn locate<'a>(
    view: &'a TextureView,
    sampler: &'a SamplerDesc,
    coord: [f32; 4],
) -> (Site<'a>, [f32; 3]) {
    let elements = view.elements().max(1);
    let index = |a: f32| -> u32 {
        let r = a.round_ties_even();
        if r.is_nan() || r <= 0.0 {
            0
        } else {
            (r as u32).min(elements - 1)
        }
    };
    let integer = view.format.is_integer();
    let mut site = Site {
        view,
        sampler,
        axes: view.dim.coord_count(),
        slice: 0,
        face: None,
        integer,
    };
    let tc = match view.dim {
        TextureDim::Cube | TextureDim::CubeArray => {
            let (face, s, t) = cube_face([coord[0], coord[1], coord[2]]);
            site.axes = 2;
            site.face = Some(face);
            site.slice = if view.dim == TextureDim::CubeArray {
                index(coord[3]) * 6
            } else {
                0
            };
            [s, t, 0.0]
        }
        TextureDim::Tex1DArray => {
            site.slice = index(coord[1]);
            [coord[0], 0.0, 0.0]
        }
        TextureDim::Tex2DArray | TextureDim::Tex2DMSArray => {
            site.slice = index(coord[2]);
            [coord[0], coord[1], 0.0]
        }
        _ => [coord[0], coord[1], coord[2]],
    };
    (site, tc)
}

/// Gradients in texels of the view's mip 0 (cubes: of the major face, §7.18.11).
fn texel_gradients(
    view: &TextureView,
    coord: [f32; 4],
    ddx: [f32; 3],
    ddy: [f32; 3],
) -> ([f32; 3], [f32; 3]) {
    let [w, h, d] = view.mip_size(0);
    let size = [w as f32, h as f32, d as f32];
    if view.dim.is_cube() {
        cube_gradients(coord, ddx, ddy, w as f32)
    } else {
        let n = view.dim.coord_count();
        let mut gx = [0f32; 3];
        let mut gy = [0f32; 3];
        for k in 0..n {
            gx[k] = ddx[k] * size[k];
            gy[k] = ddy[k] * size[k];
        }
        (gx, gy)
    }
}

/// The unclamped isotropic LOD of gradients `ddx`, `ddy` at coordinates `coord`
/// (§7.18.11): `log2` of the longer gradient, in texels of the view's mip 0.
pub fn gradient_lod(view: &TextureView, coord: [f32; 4], ddx: [f32; 3], ddy: [f32; 3]) -> f32 {
    let (gx, gy) = texel_gradients(view, coord, ddx, ddy);
    let len = |g: [f32; 3]| (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
    len(gx).max(len(gy)).log2()
}

/// The result of §7.18.11's anisotropic LOD calculation.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Anisotropy {
    /// The unclamped LOD (from the minor axis).
    pub lod: f32,
    /// The ratio of anisotropy, in [1, `MaxAnisotropy`].
    pub ratio: f32,
    /// The major axis in texels of mip 0 (direction times length).
    pub major: [f32; 2],
}

/// §7.18.11's anisotropic LOD, ratio and major axis of 2D texel gradients `dx`, `dy`
/// (texels of mip 0), with `max_aniso` the sampler's `MaxAnisotropy`. Degenerate
/// gradients (zero, infinite or NaN) fall back to the isotropic LOD with ratio 1.
pub fn anisotropy(dx: [f32; 2], dy: [f32; 2], max_aniso: u32) -> Anisotropy {
    let sq_x = dx[0] * dx[0] + dx[1] * dx[1];
    let sq_y = dy[0] * dy[0] + dy[1] * dy[1];
    let det = (dx[0] * dy[1] - dx[1] * dy[0]).abs();
    let major_x = sq_x > sq_y;
    let sq_major = if major_x { sq_x } else { sq_y };
    let len_major = sq_major.sqrt();
    let vec = if major_x { dx } else { dy };
    let iso = Anisotropy {
        lod: len_major.log2(),
        ratio: 1.0,
        major: [0.0; 2],
    };
    if len_major.is_nan() || len_major <= 0.0 || !len_major.is_finite() || !det.is_finite() {
        return iso;
    }
    let max = max_aniso.clamp(1, 16) as f32;
    let mut ratio = sq_major / det; // +inf for parallel gradients
    let len_minor = if ratio > max {
        ratio = max;
        len_major / ratio
    } else {
        det / len_major
    };
    if len_minor < 1.0 {
        ratio = (ratio * len_minor).max(1.0);
    }
    if !ratio.is_finite() {
        return iso;
    }
    Anisotropy {
        lod: len_minor.log2(),
        ratio,
        major: vec,
    }
}

/// Gradients of the face coordinates (in texels) of a cube lookup: the quotient rule on
/// `s = (sc / |ma| + 1) / 2` with the face of the centre direction.
fn cube_gradients(
    coord: [f32; 4],
    ddx: [f32; 3],
    ddy: [f32; 3],
    size: f32,
) -> ([f32; 3], [f32; 3]) {
    let d = [coord[0], coord[1], coord[2]];
    let (face, _, _) = cube_face(d);
    // (sc, tc, ma) as linear functions of the direction, per face.
    let pick = |v: [f32; 3]| -> [f32; 3] {
        let [x, y, z] = v;
        match face {
            0 => [-z, -y, x],
            1 => [z, -y, -x],
            2 => [x, z, y],
            3 => [x, -z, -y],
            4 => [x, -y, z],
            _ => [-x, -y, -z],
        }
    };
    let [sc, tc, ma] = pick(d);
    let g = |dv: [f32; 3]| -> [f32; 3] {
        let [dsc, dtc, dma] = pick(dv);
        if ma == 0.0 {
            return [0.0; 3];
        }
        let m2 = ma * ma;
        let ds = (dsc * ma - sc * dma) / (2.0 * m2);
        let dt = (dtc * ma - tc * dma) / (2.0 * m2);
        [ds * size, dt * size, 0.0]
    };
    (g(ddx), g(ddy))
}

/// Whether a sample with this sampler, view and LOD source filters anisotropically
/// (§7.18.11's `ComputeAnisotropicLOD`).
fn is_anisotropic(view: &TextureView, sampler: &SamplerDesc, lod: &Lod) -> bool {
    sampler.filter.anisotropic
        && matches!(view.dim, TextureDim::Tex2D | TextureDim::Tex2DArray)
        && matches!(lod, Lod::Gradients { .. })
}

/// The LOD before clamping (the computed or given LOD plus the shader and sampler
/// biases) and, for anisotropic filtering, the probes' ratio and major axis.
fn raw_lod(
    view: &TextureView,
    sampler: &SamplerDesc,
    coord: [f32; 4],
    lod: Lod,
) -> (f32, Option<Anisotropy>) {
    match lod {
        Lod::Level(l) => (l + sampler.mip_lod_bias, None),
        Lod::Gradients { ddx, ddy, bias } => {
            if is_anisotropic(view, sampler, &lod) {
                let (gx, gy) = texel_gradients(view, coord, ddx, ddy);
                let a = anisotropy([gx[0], gx[1]], [gy[0], gy[1]], sampler.max_anisotropy);
                (a.lod + bias + sampler.mip_lod_bias, Some(a))
            } else {
                (
                    gradient_lod(view, coord, ddx, ddy) + bias + sampler.mip_lod_bias,
                    None,
                )
            }
        }
    }
}

/// §7.18.11: `max(MinLOD, min(MaxLOD, lod))` (NaN-dropping, so `MinLOD` wins a
/// conflict), then the shader's minimum-LOD clamp.
pub fn clamp_lod(sampler: &SamplerDesc, lod: f32, min_clamp: f32) -> f32 {
    let l = sampler.min_lod.max(sampler.max_lod.min(lod));
    l.max(min_clamp)
}

/// `CalculateLevelOfDetail` / `lod`: `[clamped, unclamped]`. The unclamped LOD includes
/// the sampler's bias; the clamped one is also clamped by the sampler's LOD range and the
/// view's mips.
pub fn calculate_lod(
    view: &TextureView,
    sampler: &SamplerDesc,
    coord: [f32; 4],
    ddx: [f32; 3],
    ddy: [f32; 3],
) -> [f32; 2] {
    let (raw, _) = raw_lod(
        view,
        sampler,
        coord,
        Lod::Gradients {
            ddx,
            ddy,
            bias: 0.0,
        },
    );
    let top = (view.mip_levels.max(1) - 1) as f32;
    let c = clamp_lod(sampler, raw, f32::NEG_INFINITY).clamp(0.0, top);
    [c, raw]
}

/// Filters at a clamped, non-negative LOD: one mip, or two blended (§7.18.10).
fn filter_lod(
    site: &Site<'_>,
    lod: f32,
    tc: [f32; 3],
    offset: [i32; 3],
    mip_linear: bool,
    f: MipFilter,
) -> Texel {
    let (m0, second) = mips_of(site.view, lod, mip_linear);
    let a = filter_mip(site, m0, tc, offset, f);
    match second {
        Some(frac) => {
            let b = filter_mip(site, m0 + 1, tc, offset, f);
            match f.reduction {
                Reduction::Minimum | Reduction::Maximum => reduce(a, b, f.reduction),
                _ => lerp4(a, b, frac),
            }
        }
        None => a,
    }
}

/// §7.18.10: the view mip a clamped LOD reads and, when linear mip filtering blends in
/// the next mip with a weight that is not zero, that weight.
fn mips_of(view: &TextureView, lod: f32, mip_linear: bool) -> (u32, Option<f32>) {
    let top = view.mip_levels.max(1) - 1;
    let fx = to_fixed(lod.clamp(0.0, top as f32), MIP_LOD_FRACTION_BITS);
    let one = 1i64 << MIP_LOD_FRACTION_BITS;
    if mip_linear {
        let m0 = ((fx >> MIP_LOD_FRACTION_BITS) as u32).min(top);
        let frac = (fx & (one - 1)) as f32 / one as f32;
        (m0, (frac > 0.0 && m0 < top).then_some(frac))
    } else {
        (
            (((fx + one / 2) >> MIP_LOD_FRACTION_BITS) as u32).min(top),
            None,
        )
    }
}

/// What a sample decides before it reads a texel (§7.18.10, §7.18.11): where it reads,
/// the clamped LOD, the filter and, for anisotropic filtering, the probes.
struct Plan<'a> {
    site: Site<'a>,
    tc: [f32; 3],
    lod: f32,
    filter: MipFilter,
    mip_linear: bool,
    aniso: Option<Anisotropy>,
}

impl Plan<'_> {
    /// The texel coordinates of each probe: `ceil(ratio)` points evenly spaced along the
    /// major axis, or the coordinate itself.
    fn probes(&self) -> Vec<[f32; 3]> {
        let tc = self.tc;
        match self.aniso {
            Some(a) if a.ratio > 1.0 => {
                let n = (a.ratio.ceil() as u32).clamp(1, 16);
                let [w, h, _] = self.site.view.mip_size(0);
                let step = [a.major[0] / w as f32, a.major[1] / h as f32];
                (0..n)
                    .map(|k| {
                        let t = (k as f32 + 0.5) / n as f32 - 0.5;
                        [tc[0] + step[0] * t, tc[1] + step[1] * t, tc[2]]
                    })
                    .collect()
            }
            _ => vec![tc],
        }
    }
}

/// The [`Plan`] of a sample of a filterable view.
fn plan<'a>(view: &'a TextureView, sampler: &'a SamplerDesc, input: &SampleInput) -> Plan<'a> {
    let (site, tc) = locate(view, sampler, input.coord);
    let (raw, aniso) = raw_lod(view, sampler, input.coord, input.lod);
    let lod = clamp_lod(sampler, raw, input.min_lod_clamp);
    let flt = sampler.filter;
    let magnify = lod.is_nan() || lod <= 0.0;
    let compare = input.reference.map(|r| (r, sampler.comparison));
    let reduction = if compare.is_some() {
        Reduction::Comparison
    } else {
        flt.reduction
    };
    let texel_linear =
        flt.anisotropic || if magnify { flt.mag } else { flt.min } == FilterType::Linear;
    Plan {
        site,
        tc,
        lod,
        filter: MipFilter {
            linear: texel_linear,
            reduction,
            compare,
        },
        mip_linear: flt.mip == FilterType::Linear,
        aniso,
    }
}

/// Integer formats: the view mip nearest the clamped LOD (point filtering, §7.18.10).
fn integer_mip(view: &TextureView, sampler: &SamplerDesc, input: &SampleInput) -> u32 {
    let (raw, _) = raw_lod(view, sampler, input.coord, input.lod);
    let lod = clamp_lod(sampler, raw, input.min_lod_clamp);
    let top = view.mip_levels.max(1) - 1;
    let fx = to_fixed(lod.clamp(0.0, top as f32), MIP_LOD_FRACTION_BITS);
    (((fx + 128) >> MIP_LOD_FRACTION_BITS) as u32).min(top)
}

/// Samples a texture view through a sampler (`Sample*`, `SampleCmp*`); returns four
/// 32-bit results (float bits; raw integers for integer formats).
pub fn sample(view: &TextureView, sampler: &SamplerDesc, input: &SampleInput) -> [u32; 4] {
    if !view.format.is_texture_readable() || view.dim.is_multisampled() {
        return [0; 4];
    }
    let offset = input.offset;
    if view.format.is_integer() {
        let (site, tc) = locate(view, sampler, input.coord);
        let mip = integer_mip(view, sampler, input);
        let size = view.mip_size(mip);
        let (c, _) = footprints(&site, tc, size, offset, false);
        return match site.fetch_bits(mip, c) {
            Ok(bits) => bits,
            Err(_) => integer_border(view.format, sampler.border_color),
        };
    }
    let p = plan(view, sampler, input);
    let reduction = p.filter.reduction;
    let probes = p.probes();
    let mut acc: Option<Texel> = None;
    for tc in &probes {
        let v = filter_lod(&p.site, p.lod, *tc, offset, p.mip_linear, p.filter);
        acc = Some(match (acc, reduction) {
            (None, _) => v,
            (Some(a), Reduction::Minimum | Reduction::Maximum) => reduce(a, v, reduction),
            (Some(a), _) => [a[0] + v[0], a[1] + v[1], a[2] + v[2], a[3] + v[3]],
        });
    }
    let acc = acc.unwrap_or([0.0; 4]);
    let out = match reduction {
        Reduction::Minimum | Reduction::Maximum => acc,
        _ if probes.len() > 1 => acc.map(|x| x / probes.len() as f32),
        _ => acc,
    };
    out.map(f32::to_bits)
}

/// The texels a [`sample`] with `input` reads from a 2D or 2D-array view, each visited
/// once per probe as `(view mip, view slice, [x, y])` after the address modes (a border
/// texel reads no texel and is not visited): the same LOD, mips, filter and address
/// modes as the sample, and only texels whose weight is not zero (a second mip only when
/// its blend weight is not zero). Sampler feedback (`resources::feedback`) records these.
/// Other shapes, multisampled views and formats that cannot be read visit nothing.
pub fn texels_read(
    view: &TextureView,
    sampler: &SamplerDesc,
    input: &SampleInput,
    mut visit: impl FnMut(u32, u32, [u32; 2]),
) {
    if !view.format.is_texture_readable()
        || !matches!(view.dim, TextureDim::Tex2D | TextureDim::Tex2DArray)
    {
        return;
    }
    let offset = input.offset;
    let mut texel = |site: &Site<'_>, mip: u32, c: [i64; 3]| {
        let [w, h, _] = view.mip_size(mip);
        let x = address(sampler.address[0], c[0], i64::from(w));
        let y = address(sampler.address[1], c[1], i64::from(h));
        if let (Some(x), Some(y)) = (x, y) {
            visit(mip, site.slice, [x as u32, y as u32]);
        }
    };
    if view.format.is_integer() {
        let (site, tc) = locate(view, sampler, input.coord);
        let mip = integer_mip(view, sampler, input);
        let (c, _) = footprints(&site, tc, view.mip_size(mip), offset, false);
        texel(&site, mip, c);
        return;
    }
    let p = plan(view, sampler, input);
    let (m0, second) = mips_of(view, p.lod, p.mip_linear);
    let mips = if second.is_some() { 2 } else { 1 };
    for tc in p.probes() {
        for mip in m0..m0 + mips {
            let (base, _, n) = taps(&p.site, mip, tc, offset, p.filter.linear);
            for dy in 0..n[1] {
                for dx in 0..n[0] {
                    let c = [
                        base[0].saturating_add(dx as i64),
                        base[1].saturating_add(dy as i64),
                        0,
                    ];
                    texel(&p.site, mip, c);
                }
            }
        }
    }
}

/// Gathers component `channel` of the four texels a bilinear sample at view mip 0 would
/// use, in D3D's order: (u0, v1), (u1, v1), (u1, v0), (u0, v0) — D3D11.3 `gather4`.
/// With a reference, returns the comparison results (0.0 or 1.0) of the red channel.
pub fn gather(
    view: &TextureView,
    sampler: &SamplerDesc,
    coord: [f32; 4],
    offset: [i32; 2],
    channel: u8,
    reference: Option<f32>,
) -> [u32; 4] {
    if !view.format.is_texture_readable()
        || view.dim.is_multisampled()
        || view.dim == TextureDim::Tex3D
    {
        return [0; 4];
    }
    let (site, tc) = locate(view, sampler, coord);
    let size = view.mip_size(0);
    let (base, _) = footprints(&site, tc, size, [offset[0], offset[1], 0], true);
    let axes = site.axes.min(2);
    let ch = usize::from(channel & 3);
    let pick = |dx: i64, dy: i64| -> u32 {
        let c = [
            base[0].saturating_add(dx),
            if axes > 1 {
                base[1].saturating_add(dy)
            } else {
                0
            },
            0,
        ];
        let (bits, float) = match site.fetch_bits(0, c) {
            Ok(bits) => (bits, !site.integer),
            Err(_) if site.integer => (integer_border(view.format, sampler.border_color), false),
            Err(border) => (border.map(f32::to_bits), true),
        };
        match reference {
            Some(r) => {
                let t = if float {
                    f32::from_bits(bits[0])
                } else {
                    bits[0] as f32
                };
                if sampler.comparison.passes(r, t) {
                    1.0f32.to_bits()
                } else {
                    0
                }
            }
            None => bits[ch],
        }
    };
    [pick(0, 1), pick(1, 1), pick(1, 0), pick(0, 0)]
}

/// Raw gather (HLSL SM 6.7 "Raw Gather Methods", `GatherRaw`): word `word` of the
/// `bits`-bit elements of the four texels [`gather`] picks (same order, address modes and
/// offsets), the texel's bits unconverted. Only 2D and 2D-array views of `R16_UINT`
/// (16 bits), `R32_UINT` (32) and `R32G32_UINT` (64: word 0 is R, the low half; word 1
/// is G) can be gathered raw ("No other formats may be used"; the spec reaches other
/// formats through views of these over the same memory); any other view reads 0.
pub fn gather_raw(
    view: &TextureView,
    sampler: &SamplerDesc,
    coord: [f32; 4],
    offset: [i32; 2],
    bits: u8,
    word: u8,
) -> [u32; 4] {
    let format = match bits {
        16 => Format::R16_UINT,
        32 => Format::R32_UINT,
        64 => Format::R32G32_UINT,
        _ => return [0; 4],
    };
    let words = if bits == 64 { 2 } else { 1 };
    if view.format != format
        || !matches!(view.dim, TextureDim::Tex2D | TextureDim::Tex2DArray)
        || word >= words
    {
        return [0; 4];
    }
    // An R*_UINT texel's components are its raw bits (16-bit ones zero-extended).
    gather(view, sampler, coord, offset, word, None)
}

/// Whether a format can be filtered (not an integer format).
pub fn is_filterable(format: Format) -> bool {
    format.is_texture_readable() && !format.is_integer()
}

#[cfg(test)]
mod tests {
    use super::super::format::Format;
    use super::super::sampler::{ComparisonFunc, Filter};
    use super::super::texture::{Texture, TextureDesc};
    use super::*;

    fn tex(
        dim: TextureDim,
        w: u32,
        h: u32,
        d: u32,
        mips: u32,
        f: impl Fn(u32, u32, u32) -> f32,
    ) -> TextureView {
        let desc = TextureDesc {
            dim,
            format: Format::R32_FLOAT,
            width: w,
            height: h,
            depth_or_array_size: d,
            mips,
            samples: 1,
        };
        let t = Texture::new(desc).unwrap();
        let slices = desc.array_size();
        for s in 0..slices {
            for m in 0..mips {
                let [mw, mh, md] = desc.mip_size(m);
                for z in 0..md {
                    for y in 0..mh {
                        for x in 0..mw {
                            let a = t.texel_addr(m, s, [x, y, z], 0).unwrap();
                            let v = f(x + 100 * m + 1000 * s, y, z);
                            t.memory().store_u32(a, v.to_bits());
                        }
                    }
                }
            }
        }
        TextureView::whole(t)
    }

    fn input(coord: [f32; 4], lod: f32) -> SampleInput {
        SampleInput {
            coord,
            offset: [0; 3],
            lod: Lod::Level(lod),
            min_lod_clamp: f32::NEG_INFINITY,
            reference: None,
        }
    }

    fn r(v: [u32; 4]) -> f32 {
        f32::from_bits(v[0])
    }

    /// Interpolating a NaN gives the first NaN operand made quiet, and the default quiet
    /// NaN for ∞ − ∞ (the module doc's weight arithmetic; D3D11.3 §7.18.16.2 leaves NaN
    /// texels open, this makes the bits independent of how the arithmetic is compiled).
    #[test]
    fn lerp_nan_is_determinate() {
        let n1 = f32::from_bits(0xff81_2345); // signalling, negative
        let n2 = f32::from_bits(0x7fc0_0042);
        assert_eq!(lerp(n1, n2, 0.5).to_bits(), 0xffc1_2345);
        assert_eq!(lerp(2.0, n2, 0.5).to_bits(), 0x7fc0_0042);
        assert_eq!(lerp(n2, n1, 0.25).to_bits(), 0x7fc0_0042);
        assert_eq!(
            lerp(f32::NEG_INFINITY, f32::INFINITY, 0.5).to_bits(),
            0x7fc0_0000
        );
        assert_eq!(
            lerp(f32::INFINITY, f32::INFINITY, 0.5).to_bits(),
            0x7fc0_0000
        );
        assert_eq!(lerp(1.0, 3.0, 0.25), 1.5);
    }

    /// D3D11.3 §7.18: address modes on integer texel coordinates.
    #[test]
    fn address_modes() {
        let n = 4;
        let wrap: Vec<_> = (-5..6)
            .map(|i| address(AddressMode::Wrap, i, n).unwrap())
            .collect();
        assert_eq!(wrap, [3, 0, 1, 2, 3, 0, 1, 2, 3, 0, 1]);
        let mirror: Vec<_> = (-5..6)
            .map(|i| address(AddressMode::Mirror, i, n).unwrap())
            .collect();
        assert_eq!(mirror, [3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 2]);
        let once: Vec<_> = (-6..6)
            .map(|i| address(AddressMode::MirrorOnce, i, n).unwrap())
            .collect();
        assert_eq!(once, [3, 3, 3, 2, 1, 0, 0, 1, 2, 3, 3, 3]);
        assert_eq!(address(AddressMode::Clamp, -9, n), Some(0));
        assert_eq!(address(AddressMode::Border, 4, n), None);
        assert_eq!(address(AddressMode::Border, 3, n), Some(3));
    }

    #[test]
    fn point_and_linear_filtering() {
        let v = tex(TextureDim::Tex2D, 4, 4, 1, 1, |x, y, _| (x + 10 * y) as f32);
        let mut s = SamplerDesc {
            filter: Filter::POINT,
            ..SamplerDesc::default()
        };
        assert_eq!(r(sample(&v, &s, &input([0.3, 0.6, 0.0, 0.0], 0.0))), 21.0);
        s.filter = Filter::LINEAR;
        // Texel centres: u = (x + 0.5) / 4. Halfway between x = 1 and 2, y = 2.
        assert_eq!(r(sample(&v, &s, &input([0.5, 0.625, 0.0, 0.0], 0.0))), 21.5);
        // Exactly at a centre reads that texel alone.
        assert_eq!(
            r(sample(&v, &s, &input([0.375, 0.375, 0.0, 0.0], 0.0))),
            11.0
        );
        // Clamp at the edge.
        assert_eq!(r(sample(&v, &s, &input([0.0, 0.0, 0.0, 0.0], 0.0))), 0.0);
        // Border colour.
        s.address = [AddressMode::Border; 3];
        s.border_color = [7.0, 0.0, 0.0, 0.0];
        assert_eq!(r(sample(&v, &s, &input([0.0, 0.125, 0.0, 0.0], 0.0))), 3.5);
        // Offsets move in texels.
        s.filter = Filter::POINT;
        let mut i = input([0.125, 0.125, 0.0, 0.0], 0.0);
        i.offset = [1, 2, 0];
        assert_eq!(r(sample(&v, &s, &i)), 21.0);
    }

    #[test]
    fn subtexel_quantisation() {
        assert_eq!(footprint(1.5, 0, true), (1, 0.0));
        assert_eq!(footprint(1.5 + 1.0 / 1024.0, 0, true), (1, 0.0));
        assert_eq!(footprint(1.5 + 3.0 / 1024.0, 0, true), (1, 1.0 / 256.0));
        assert_eq!(footprint(2.4999, 0, true), (2, 0.0));
        assert_eq!(footprint(f32::NAN, 0, true).1, 0.0);
    }

    #[test]
    fn mip_selection_and_lod() {
        // Mip m holds 100 × m.
        let v = tex(TextureDim::Tex2D, 8, 8, 1, 4, |x, _, _| {
            (x / 100 * 100) as f32
        });
        let mut s = SamplerDesc::default();
        s.filter.min = FilterType::Point;
        s.filter.mag = FilterType::Point;
        assert_eq!(r(sample(&v, &s, &input([0.5, 0.5, 0.0, 0.0], 1.5))), 150.0);
        s.filter.mip = FilterType::Point;
        assert_eq!(r(sample(&v, &s, &input([0.5, 0.5, 0.0, 0.0], 1.5))), 200.0);
        assert_eq!(r(sample(&v, &s, &input([0.5, 0.5, 0.0, 0.0], 9.0))), 300.0);
        s.max_lod = 1.0;
        assert_eq!(r(sample(&v, &s, &input([0.5, 0.5, 0.0, 0.0], 9.0))), 100.0);
        s.max_lod = f32::MAX;
        s.mip_lod_bias = 1.0;
        assert_eq!(r(sample(&v, &s, &input([0.5, 0.5, 0.0, 0.0], 0.0))), 100.0);
        // Gradients: one texel of mip 0 per pixel → LOD 0; four → LOD 2.
        let g = |d: f32| Lod::Gradients {
            ddx: [d / 8.0, 0.0, 0.0],
            ddy: [0.0, d / 8.0, 0.0],
            bias: 0.0,
        };
        assert_eq!(
            gradient_lod(&v, [0.5; 4], [1.0 / 8.0, 0.0, 0.0], [0.0; 3]),
            0.0
        );
        s.mip_lod_bias = 0.0;
        let mut i = input([0.5, 0.5, 0.0, 0.0], 0.0);
        i.lod = g(4.0);
        assert_eq!(r(sample(&v, &s, &i)), 200.0);
        i.min_lod_clamp = 3.0;
        assert_eq!(r(sample(&v, &s, &i)), 300.0);
        let [c, u] = calculate_lod(&v, &s, [0.5; 4], [0.5, 0.0, 0.0], [0.0; 3]);
        assert_eq!((c, u), (2.0, 2.0));
        let [c, u] = calculate_lod(&v, &s, [0.5; 4], [16.0, 0.0, 0.0], [0.0; 3]);
        assert_eq!((c, u), (3.0, 7.0));
    }

    #[test]
    fn comparison_and_min_max() {
        let v = tex(TextureDim::Tex2D, 2, 1, 1, 1, |x, _, _| {
            [0.25, 0.75][x as usize]
        });
        let s = SamplerDesc {
            filter: Filter::from_name("COMPARISON_MIN_MAG_MIP_LINEAR").unwrap(),
            comparison: ComparisonFunc::LessEqual,
            ..SamplerDesc::default()
        };
        let mut i = input([0.5, 0.5, 0.0, 0.0], 0.0);
        i.reference = Some(0.5);
        // Halfway between a failing (0.25) and a passing (0.75) texel.
        assert_eq!(r(sample(&v, &s, &i)), 0.5);
        i.reference = Some(0.1);
        assert_eq!(r(sample(&v, &s, &i)), 1.0);
        let mut s = SamplerDesc::default();
        s.filter.reduction = Reduction::Minimum;
        assert_eq!(r(sample(&v, &s, &input([0.5, 0.5, 0.0, 0.0], 0.0))), 0.25);
        s.filter.reduction = Reduction::Maximum;
        assert_eq!(r(sample(&v, &s, &input([0.5, 0.5, 0.0, 0.0], 0.0))), 0.75);
    }

    /// Gather order (D3D11.3 gather4): (u0,v1), (u1,v1), (u1,v0), (u0,v0).
    #[test]
    fn gather_order() {
        let v = tex(TextureDim::Tex2D, 4, 4, 1, 1, |x, y, _| (x + 10 * y) as f32);
        let s = SamplerDesc::default();
        let g = gather(&v, &s, [0.5, 0.5, 0.0, 0.0], [0, 0], 0, None).map(f32::from_bits);
        assert_eq!(g, [21.0, 22.0, 12.0, 11.0]);
        let g = gather(&v, &s, [0.5, 0.5, 0.0, 0.0], [-1, 1], 0, None).map(f32::from_bits);
        assert_eq!(g, [30.0, 31.0, 21.0, 20.0]);
        let g = gather(&v, &s, [0.5, 0.5, 0.0, 0.0], [0, 0], 3, None).map(f32::from_bits);
        assert_eq!(g, [1.0; 4]); // missing alpha
        let c = SamplerDesc {
            comparison: ComparisonFunc::LessEqual,
            ..s
        };
        let g = gather(&v, &c, [0.5, 0.5, 0.0, 0.0], [0, 0], 0, Some(15.0)).map(f32::from_bits);
        assert_eq!(g, [1.0, 1.0, 0.0, 0.0]);
    }

    /// HLSL SM 6.7 "Raw Gather Methods": only `R16_UINT`, `R32_UINT` and `R32G32_UINT`
    /// views of 2D and 2D-array textures gather raw, each at its own width; any other view
    /// (the float texture itself, a 32-bit view asked for 64 bits, a 2D-array view of a
    /// slice the coordinate picks) follows those rules: a mismatch reads 0.
    #[test]
    fn gather_raw_views() {
        // Texel (x, y) of slice s holds 1000 s + x + 10 y (`tex` adds the slice to x).
        let v = tex(TextureDim::Tex2DArray, 4, 4, 2, 1, |x, y, _| {
            (x + 10 * y) as f32
        });
        let s = SamplerDesc::default();
        let bits = |x: f32| x.to_bits();
        // The float view itself: not a raw-gather format.
        assert_eq!(
            gather_raw(&v, &s, [0.5, 0.5, 1.0, 0.0], [0, 0], 32, 0),
            [0; 4]
        );
        let raw = TextureView {
            format: Format::R32_UINT,
            ..v.clone()
        };
        // Slice 1 (coordinate 1.0), texels (1,2), (2,2), (2,1), (1,1): the floats' bits.
        assert_eq!(
            gather_raw(&raw, &s, [0.5, 0.5, 1.0, 0.0], [0, 0], 32, 0),
            [bits(1021.0), bits(1022.0), bits(1012.0), bits(1011.0)]
        );
        // A 32-bit view asked for 16 or 64 bits, or for the high word, reads 0.
        for (b, word) in [(16, 0), (64, 0), (32, 1)] {
            assert_eq!(
                gather_raw(&raw, &s, [0.5, 0.5, 1.0, 0.0], [0, 0], b, word),
                [0; 4],
                "{b} bits, word {word}"
            );
        }
        // A cube view never gathers raw.
        let cube = TextureView {
            dim: TextureDim::Cube,
            ..raw
        };
        assert_eq!(
            gather_raw(&cube, &s, [1.0, 0.0, 0.0, 0.0], [0, 0], 32, 0),
            [0; 4]
        );
    }

    #[test]
    fn arrays_and_3d() {
        let v = tex(TextureDim::Tex2DArray, 2, 2, 3, 1, |x, _, _| {
            (x / 1000) as f32
        });
        let s = SamplerDesc {
            filter: Filter::POINT,
            ..SamplerDesc::default()
        };
        assert_eq!(r(sample(&v, &s, &input([0.1, 0.1, 1.5, 0.0], 0.0))), 2.0);
        assert_eq!(r(sample(&v, &s, &input([0.1, 0.1, 0.5, 0.0], 0.0))), 0.0);
        assert_eq!(r(sample(&v, &s, &input([0.1, 0.1, 9.0, 0.0], 0.0))), 2.0);
        assert_eq!(r(sample(&v, &s, &input([0.1, 0.1, -3.0, 0.0], 0.0))), 0.0);
        let v = tex(TextureDim::Tex3D, 2, 2, 2, 1, |x, y, z| {
            (x + 2 * y + 4 * z) as f32
        });
        let s = SamplerDesc::default();
        assert_eq!(r(sample(&v, &s, &input([0.5, 0.5, 0.5, 0.0], 0.0))), 3.5);
    }

    #[test]
    fn cube_faces_and_seams() {
        assert_eq!(cube_face([1.0, 0.0, 0.0]), (0, 0.5, 0.5));
        assert_eq!(cube_face([-1.0, 0.0, 0.0]).0, 1);
        assert_eq!(cube_face([0.0, 1.0, 0.0]).0, 2);
        assert_eq!(cube_face([0.0, -1.0, 0.0]).0, 3);
        assert_eq!(cube_face([0.0, 0.0, 1.0]).0, 4);
        assert_eq!(cube_face([0.0, 0.0, -1.0]).0, 5);
        assert_eq!(cube_face([1.0, 1.0, 1.0]).0, 4);
        // +X face: s grows toward −z, t toward −y.
        let (_, s, t) = cube_face([1.0, -0.5, -0.5]);
        assert_eq!((s, t), (0.75, 0.75));
        // One texel past the +X face's right edge (s > 1) is the −Z face's left column.
        assert_eq!(cube_seam(0, 4, 1, 4), (5, 0, 1));
        let v = tex(TextureDim::Cube, 2, 2, 6, 1, |x, _, _| (x / 1000) as f32);
        let s = SamplerDesc {
            filter: Filter::POINT,
            ..SamplerDesc::default()
        };
        for f in 0..6u32 {
            let d = cube_dir(f, 0.25, 0.25);
            let got = r(sample(&v, &s, &input([d[0], d[1], d[2], 0.0], 0.0)));
            assert_eq!(got, f as f32);
        }
    }

    /// §7.18.6: WRAP keeps the fraction, MIRROR a signed fraction of u/2 (times 2),
    /// the other modes clamp to [−10, 10]; NaN stays NaN (and addresses texel 0).
    #[test]
    fn range_reduction() {
        assert_eq!(reduce_range(3.25, AddressMode::Wrap), 0.25);
        assert_eq!(reduce_range(-0.25, AddressMode::Wrap), 0.75);
        assert_eq!(reduce_range(5.5, AddressMode::Mirror), 1.5);
        assert_eq!(reduce_range(-5.5, AddressMode::Mirror), -1.5);
        assert_eq!(reduce_range(1e9, AddressMode::Clamp), 10.0);
        assert_eq!(reduce_range(-1e9, AddressMode::Border), -10.0);
        assert_eq!(reduce_range(f32::INFINITY, AddressMode::MirrorOnce), 10.0);
        assert!(reduce_range(f32::NAN, AddressMode::Wrap).is_nan());
        assert!(reduce_range(f32::INFINITY, AddressMode::Wrap).is_nan());
        assert_eq!(footprint(f32::NAN, 0, false), (0, 0.0));
    }

    /// §3.2.4.1 / §7.18.7: coordinates snap to 8 fraction bits, rounding to nearest even,
    /// before the texel is chosen: 1/1024 below a texel edge is already the next texel.
    #[test]
    fn point_sampling_snaps_to_fixed_point() {
        assert_eq!(to_fixed(0.5 / 256.0, 8), 0); // tie to even
        assert_eq!(to_fixed(1.5 / 256.0, 8), 2);
        assert_eq!(to_fixed(-1.5 / 256.0, 8), -2);
        assert_eq!(footprint(2.0 - 1.0 / 1024.0, 0, false), (2, 0.0));
        assert_eq!(footprint(2.0 - 1.0 / 256.0, 0, false), (1, 0.0));
        assert_eq!(footprint(-0.25, 0, false), (-1, 0.0));
        assert_eq!(footprint(1.0, 3, false), (4, 0.0));
    }

    /// §7.18.11: `max(MinLOD, min(MaxLOD, lod))`: MinLOD wins a conflict, a NaN LOD
    /// becomes MaxLOD, the shader clamp raises the LOD.
    #[test]
    fn lod_clamp_order() {
        let s = SamplerDesc {
            min_lod: 3.0,
            max_lod: 1.0,
            ..SamplerDesc::default()
        };
        assert_eq!(clamp_lod(&s, 0.0, f32::NEG_INFINITY), 3.0);
        let s = SamplerDesc {
            min_lod: 0.5,
            max_lod: 2.0,
            ..SamplerDesc::default()
        };
        assert_eq!(clamp_lod(&s, f32::NAN, f32::NEG_INFINITY), 2.0);
        assert_eq!(clamp_lod(&s, 9.0, f32::NEG_INFINITY), 2.0);
        assert_eq!(clamp_lod(&s, 1.0, 1.5), 1.5);
    }

    /// §7.18.10: the LOD snaps to 8.8 fixed point; point mip filtering rounds half up,
    /// linear weights the next mip by the fraction (in 1/256 steps).
    #[test]
    fn mip_fraction_is_eight_bits() {
        let v = tex(TextureDim::Tex2D, 8, 8, 1, 2, |x, _, _| {
            (x / 100 * 100) as f32
        });
        let s = SamplerDesc {
            filter: Filter::LINEAR,
            ..SamplerDesc::default()
        };
        // 0.3 snaps to 77/256.
        let got = r(sample(&v, &s, &input([0.5, 0.5, 0.0, 0.0], 0.3)));
        assert_eq!(got, 100.0 * (77.0 / 256.0));
        // Below half a step from 1.0: mip 1 alone.
        let got = r(sample(
            &v,
            &s,
            &input([0.5, 0.5, 0.0, 0.0], 1.0 - 1.0 / 1024.0),
        ));
        assert_eq!(got, 100.0);
        let p = SamplerDesc {
            filter: Filter::POINT,
            ..SamplerDesc::default()
        };
        assert_eq!(r(sample(&v, &p, &input([0.5, 0.5, 0.0, 0.0], 0.5))), 100.0);
        assert_eq!(r(sample(&v, &p, &input([0.5, 0.5, 0.0, 0.0], 0.498))), 0.0);
    }

    /// §7.18.9.1: the border colour keeps only the components the format has (the others
    /// are its defaults) and is clamped to the format's range.
    #[test]
    fn border_colour_per_format() {
        let b = [2.0, -3.0, 0.5, 0.25];
        assert_eq!(
            border_color(Format::R8G8B8A8_UNORM, b),
            [1.0, 0.0, 0.5, 0.25]
        );
        assert_eq!(border_color(Format::R8_SNORM, b), [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(border_color(Format::R8G8_SNORM, b), [1.0, -1.0, 0.0, 1.0]);
        assert_eq!(border_color(Format::A8_UNORM, b), [0.0, 0.0, 0.0, 0.25]);
        assert_eq!(
            border_color(Format::R32_FLOAT, [1e9, 0.0, 0.0, 0.0]),
            [1e9, 0.0, 0.0, 1.0]
        );
        assert_eq!(
            border_color(Format::R16_FLOAT, [1e9, 0.0, 0.0, 0.0])[0],
            65504.0
        );
        assert_eq!(border_color(Format::R11G11B10_FLOAT, b)[1], 0.0);
        assert_eq!(border_color(Format::BC4_SNORM, b), [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(
            border_color(Format::BC7_UNORM_SRGB, b),
            [1.0, 0.0, 0.5, 0.25]
        );
        assert_eq!(border_color(Format::BC6H_UF16, b), [2.0, 0.0, 0.5, 1.0]);
        assert_eq!(
            border_color(Format::R8G8B8A8_UNORM, [f32::NAN; 4]),
            [0.0; 4]
        );
        assert_eq!(
            integer_border(Format::R8_UINT, [7.9, 1.0, 1.0, 1.0]),
            [7, 0, 0, 1]
        );
        assert_eq!(
            integer_border(Format::R32_SINT, [-2.0, 1.0, 1.0, 1.0]),
            [(-2i32) as u32, 0, 0, 1]
        );
        // Through a sample: an R8_UNORM-like R32_FLOAT texture with a border of 7.
        let v = tex(TextureDim::Tex2D, 2, 2, 1, 1, |_, _, _| 0.0);
        let s = SamplerDesc {
            filter: Filter::POINT,
            address: [AddressMode::Border; 3],
            border_color: [7.0, 8.0, 9.0, 0.5],
            ..SamplerDesc::default()
        };
        let got = sample(&v, &s, &input([-1.0, 0.5, 0.0, 0.0], 0.0)).map(f32::from_bits);
        assert_eq!(got, [7.0, 0.0, 0.0, 1.0]);
    }

    /// §7.18.12: at a cube corner the missing fourth tap's weight is split evenly among
    /// the three texels that exist.
    #[test]
    fn cube_corner_averages_three_texels() {
        // Each face holds its index in every texel (face f of slice f).
        let v = tex(TextureDim::Cube, 2, 2, 6, 1, |x, _, _| (x / 1000) as f32);
        let s = SamplerDesc::default();
        // Exactly towards the +X/+Y/+Z corner: the footprint on the major face takes
        // the corner texel and its two neighbours across the edges, a quarter weight each
        // plus a third of the missing quarter.
        let d = 1.0f32;
        let got = r(sample(&v, &s, &input([d, d * 0.999, d * 0.998, 0.0], 0.0)));
        // Major face +X (0); neighbours +Y (2) and +Z (4).
        let want = (0.0 + 2.0 + 4.0) / 3.0;
        assert!((got - want).abs() < 0.05, "{got} vs {want}");
    }

    /// §7.18.11: the anisotropic ratio is |major|² / |dX × dY| clamped to MaxAnisotropy;
    /// the LOD comes from the minor length, `|major| / ratio` once clamped; round
    /// footprints are isotropic; degenerate gradients fall back to the isotropic LOD.
    #[test]
    fn anisotropic_footprint() {
        let a = anisotropy([8.0, 0.0], [0.0, 2.0], 16);
        assert_eq!((a.ratio, a.lod, a.major), (4.0, 1.0, [8.0, 0.0]));
        let a = anisotropy([64.0, 0.0], [0.0, 1.0], 16);
        assert_eq!((a.ratio, a.lod), (16.0, 2.0));
        let a = anisotropy([4.0, 0.0], [0.0, 4.0], 16);
        assert_eq!((a.ratio, a.lod), (1.0, 2.0));
        // Minor below one texel: ratio lowered to ratio × minor, LOD negative.
        let a = anisotropy([2.0, 0.0], [0.0, 0.5], 16);
        assert_eq!((a.ratio, a.lod), (2.0, -1.0));
        assert_eq!(anisotropy([0.0; 2], [0.0; 2], 16).ratio, 1.0);
        assert_eq!(anisotropy([f32::NAN, 0.0], [0.0, 1.0], 16).ratio, 1.0);
        // Parallel gradients: ratio clamps to MaxAnisotropy.
        assert_eq!(anisotropy([8.0, 0.0], [4.0, 0.0], 4).ratio, 4.0);
        // Sampling: a texture constant along v, varying along u; a footprint long in v
        // averages probes along v only, so it equals the trilinear value at the minor LOD.
        let v = tex(TextureDim::Tex2D, 16, 16, 1, 5, |x, _, _| (x % 100) as f32);
        let s = SamplerDesc {
            filter: Filter::from_name("ANISOTROPIC").unwrap(),
            max_anisotropy: 16,
            address: [AddressMode::Wrap; 3],
            ..SamplerDesc::default()
        };
        let mut i = input([0.40625, 0.5, 0.0, 0.0], 0.0);
        i.lod = Lod::Gradients {
            ddx: [1.0 / 16.0, 0.0, 0.0],
            ddy: [0.0, 8.0 / 16.0, 0.0],
            bias: 0.0,
        };
        let aniso = r(sample(&v, &s, &i));
        let iso = r(sample(
            &v,
            &SamplerDesc::default(),
            &input([0.40625, 0.5, 0.0, 0.0], 0.0),
        ));
        assert_eq!(aniso, iso);
        assert_eq!(aniso, 6.0);
    }

    /// Untrusted inputs: NaN and infinite coordinates, LODs, gradients, references and
    /// huge offsets, on every shape and filter, never panic and give finite results for a
    /// finite texture.
    #[test]
    fn hostile_inputs_are_safe() {
        let bad = [f32::NAN, f32::INFINITY, f32::NEG_INFINITY, 1e30, -1e30, 0.5];
        let views = [
            tex(TextureDim::Tex1D, 4, 1, 1, 3, |x, _, _| x as f32),
            tex(TextureDim::Tex2DArray, 4, 4, 2, 3, |x, y, _| (x + y) as f32),
            tex(TextureDim::Tex3D, 4, 4, 4, 3, |x, y, z| (x + y + z) as f32),
            tex(TextureDim::Cube, 4, 4, 6, 3, |x, y, _| (x + y) as f32),
        ];
        let filters = [
            "MIN_MAG_MIP_POINT",
            "MIN_MAG_MIP_LINEAR",
            "ANISOTROPIC",
            "COMPARISON_ANISOTROPIC",
            "MAXIMUM_MIN_MAG_MIP_LINEAR",
        ];
        for v in &views {
            for f in filters {
                for mode in [
                    AddressMode::Wrap,
                    AddressMode::Mirror,
                    AddressMode::Border,
                    AddressMode::MirrorOnce,
                ] {
                    let s = SamplerDesc {
                        filter: Filter::from_name(f).unwrap(),
                        address: [mode; 3],
                        max_anisotropy: 16,
                        ..SamplerDesc::default()
                    };
                    for &a in &bad {
                        for &b in &bad {
                            let lods = [
                                Lod::Level(b),
                                Lod::Gradients {
                                    ddx: [a, b, a],
                                    ddy: [b, a, b],
                                    bias: b,
                                },
                            ];
                            for lod in lods {
                                let i = SampleInput {
                                    coord: [a, b, a, b],
                                    offset: [i32::MAX, i32::MIN, 7],
                                    lod,
                                    min_lod_clamp: b,
                                    reference: Some(a),
                                };
                                let out = sample(v, &s, &i).map(f32::from_bits);
                                assert!(
                                    out.iter().all(|x| x.is_finite()),
                                    "{f} {mode:?} {a} {b}: {out:?}"
                                );
                                let g =
                                    gather(v, &s, [a, b, a, b], [i32::MIN, i32::MAX], 3, Some(b));
                                assert!(g.iter().all(|x| f32::from_bits(*x).is_finite()));
                                let _ = calculate_lod(v, &s, [a, b, a, b], [a; 3], [b; 3]);
                            }
                        }
                    }
                }
            }
        }
    }
}
