//! Texture filtering: LOD, mip selection, address modes, point/linear filtering,
//! comparison (PCF), min/max reduction, gather, and cube maps.
//!
//! Rules follow the D3D11.3 functional specification §7.18 (texture sampling). Where WARP's
//! exact arithmetic is not known, each choice is written next to the code that makes it:
//!
//! - **Subtexel precision.** D3D11.3 requires at least 8 bits of fraction for linear
//!   filtering weights; we quantise the fraction to exactly [`SUBTEXEL_BITS`] bits
//!   (rounding to nearest), as typical hardware does.
//! - **Weights.** Linear filtering interpolates per axis (`a + (b − a) × f`, along u,
//!   then v, then w), so equal texels filter to exactly that texel.
//! - **LOD.** From gradients scaled by the view's mip-0 size:
//!   `log2(max(|ddx|, |ddy|))` (isotropic, §7.18), plus the shader's bias and the
//!   sampler's `MipLODBias`, clamped to the shader's min-LOD clamp and the sampler's
//!   `MinLOD`/`MaxLOD`, then to the view's mips. Explicit LODs (`SampleLevel`) also take
//!   the sampler's bias and clamps. LOD ≤ 0 uses the magnification filter.
//! - **Mips.** Point mip filtering takes the nearest mip (`floor(lod + 0.5)`); linear
//!   blends `floor(lod)` and the next by the fraction.
//! - **Anisotropic filtering** is approximated by trilinear filtering at the isotropic
//!   LOD (the anisotropic filters' mip type is kept: linear for `ANISOTROPIC`).
//! - **Comparison** compares the reference (the *source*) against each texel's red
//!   channel (the *destination*) with the sampler's function, then filters the 0/1
//!   results with the usual weights. The reference is not clamped to the format's range.
//! - **Min/max reduction** takes the component-wise minimum/maximum of the texels that
//!   have a non-zero weight (across both mips for linear mip filtering).
//! - **Array index**: rounded to nearest even, clamped to the view's elements.
//! - **Cube maps**: the face is the direction's major axis (ties: z over y over x), face
//!   coordinates as in D3D/OpenGL's cube map table; address modes are ignored and
//!   filtering is seamless: a tap past a face's edge reads the neighbouring face's texel
//!   found by re-projecting that tap's centre direction (a corner tap therefore reads one
//!   of the two neighbouring faces' corner texels, not D3D's three-texel average).
//! - **Integer formats** cannot be filtered (D3D forbids it); they are point-sampled at
//!   the nearest mip and return raw integer texels.
//! - **Border colour** is used as given, in float, for every format.

use super::format::Format;
use super::sampler::{AddressMode, FilterType, Reduction, SamplerDesc};
use super::texture::{TextureDim, TextureView};

/// Bits of fraction kept in linear filtering weights.
pub const SUBTEXEL_BITS: u32 = 8;

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

fn lerp4(a: Texel, b: Texel, f: f32) -> Texel {
    [
        a[0] + (b[0] - a[0]) * f,
        a[1] + (b[1] - a[1]) * f,
        a[2] + (b[2] - a[2]) * f,
        a[3] + (b[3] - a[3]) * f,
    ]
}

/// D3D11.3 §7.18 texture address modes, applied to an integer texel coordinate.
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

/// The integer texel and weight fraction along one axis: `x` is the coordinate in texels
/// of the mip (`u × width`). Point: `floor(x)`; linear: `floor(x − 0.5)` and the
/// fraction quantised to [`SUBTEXEL_BITS`] (a fraction rounding up to 1 moves to the next
/// texel with fraction 0).
pub fn footprint(x: f32, offset: i32, linear: bool) -> (i64, f32) {
    if !linear {
        return ((x.floor() as i64).saturating_add(i64::from(offset)), 0.0);
    }
    let a = x - 0.5;
    let mut fl = a.floor();
    let scale = (1u32 << SUBTEXEL_BITS) as f32;
    let mut f = ((a - fl) * scale).round() / scale;
    if f >= 1.0 {
        fl += 1.0;
        f = 0.0;
    } else if f.is_nan() {
        f = 0.0;
    }
    ((fl as i64).saturating_add(i64::from(offset)), f)
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
                    None => return Err(self.sampler.border_color),
                }
            }
            (self.slice, xyz)
        };
        match self.view.texel_addr_at(mip, slice, xyz) {
            Some(a) => Ok(self.view.decode_at(a)),
            None => Ok([0; 4]),
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

/// Filters the footprint at view mip `mip`: returns the filtered texel, or for min/max
/// reductions the reduced one.
fn filter_mip(
    site: &Site<'_>,
    mip: u32,
    tc: [f32; 3],
    offset: [i32; 3],
    linear: bool,
    reduction: Reduction,
    compare: Option<(f32, super::sampler::ComparisonFunc)>,
) -> Texel {
    let size = site.view.mip_size(mip);
    let mut base = [0i64; 3];
    let mut frac = [0f32; 3];
    let mut taps = [1usize; 3];
    for k in 0..site.axes {
        let (i, f) = footprint(tc[k] * size[k] as f32, offset[k], linear);
        base[k] = i;
        frac[k] = f;
        taps[k] = if f > 0.0 { 2 } else { 1 };
    }
    let get = |c: [i64; 3]| -> Texel {
        let t = site.fetch(mip, c);
        match compare {
            Some((reference, func)) => {
                let r = if func.passes(reference, t[0]) {
                    1.0
                } else {
                    0.0
                };
                [r; 4]
            }
            None => t,
        }
    };
    match reduction {
        Reduction::Minimum | Reduction::Maximum => {
            let mut acc: Option<Texel> = None;
            for dz in 0..taps[2] {
                for dy in 0..taps[1] {
                    for dx in 0..taps[0] {
                        let t = get([
                            base[0].saturating_add(dx as i64),
                            base[1].saturating_add(dy as i64),
                            base[2].saturating_add(dz as i64),
                        ]);
                        acc = Some(match acc {
                            None => t,
                            Some(a) => reduce(a, t, reduction),
                        });
                    }
                }
            }
            acc.unwrap_or([0.0; 4])
        }
        _ => {
            // Lerp along u, then v, then w.
            let mut zs = [[0f32; 4]; 2];
            for (dz, zslot) in zs.iter_mut().enumerate().take(taps[2]) {
                let mut ys = [[0f32; 4]; 2];
                for (dy, yslot) in ys.iter_mut().enumerate().take(taps[1]) {
                    let row = [
                        base[1].saturating_add(dy as i64),
                        base[2].saturating_add(dz as i64),
                    ];
                    let a = get([base[0], row[0], row[1]]);
                    *yslot = if taps[0] == 2 {
                        lerp4(a, get([base[0].saturating_add(1), row[0], row[1]]), frac[0])
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

/// The unclamped LOD of gradients `ddx`, `ddy` at coordinates `coord` (D3D11.3 §7.18,
/// isotropic): `log2` of the longer gradient, in texels of the view's mip 0.
pub fn gradient_lod(view: &TextureView, coord: [f32; 4], ddx: [f32; 3], ddy: [f32; 3]) -> f32 {
    let [w, h, d] = view.mip_size(0);
    let size = [w as f32, h as f32, d as f32];
    let (gx, gy) = if view.dim.is_cube() {
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
    };
    let len = |g: [f32; 3]| (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
    len(gx).max(len(gy)).log2()
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

/// The LOD before clamping: the computed or given LOD plus the shader and sampler biases.
fn raw_lod(view: &TextureView, sampler: &SamplerDesc, coord: [f32; 4], lod: Lod) -> f32 {
    match lod {
        Lod::Level(l) => l + sampler.mip_lod_bias,
        Lod::Gradients { ddx, ddy, bias } => {
            gradient_lod(view, coord, ddx, ddy) + bias + sampler.mip_lod_bias
        }
    }
}

/// Clamps a biased LOD by the shader's clamp and the sampler's `MinLOD`/`MaxLOD`.
fn sampler_clamp(sampler: &SamplerDesc, lod: f32, min_clamp: f32) -> f32 {
    let lo = sampler.min_lod.max(min_clamp);
    let l = if lod.is_nan() { lo } else { lod };
    l.max(lo).min(sampler.max_lod)
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
    let raw = raw_lod(
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
    let c = sampler_clamp(sampler, raw, f32::NEG_INFINITY).clamp(0.0, top);
    [c, raw]
}

/// Samples a texture view through a sampler (`Sample*`, `SampleCmp*`); returns four
/// 32-bit results (float bits; raw integers for integer formats).
pub fn sample(view: &TextureView, sampler: &SamplerDesc, input: &SampleInput) -> [u32; 4] {
    if !view.format.is_supported() || view.dim.is_multisampled() {
        return [0; 4];
    }
    let (site, tc) = locate(view, sampler, input.coord);
    let lod = sampler_clamp(
        sampler,
        raw_lod(view, sampler, input.coord, input.lod),
        input.min_lod_clamp,
    );
    let f = sampler.filter;
    let magnify = lod <= 0.0;
    let texel_linear = if magnify { f.mag } else { f.min } == FilterType::Linear;
    let top = view.mip_levels.max(1) - 1;
    let lod = lod.clamp(0.0, top as f32);
    let compare = input.reference.map(|r| (r, sampler.comparison));
    let reduction = if compare.is_some() {
        Reduction::Comparison
    } else {
        f.reduction
    };
    let offset = input.offset;
    if site.integer {
        let mip = ((lod + 0.5).floor() as u32).min(top);
        let size = view.mip_size(mip);
        let mut c = [0i64; 3];
        for k in 0..site.axes {
            c[k] = footprint(tc[k] * size[k] as f32, offset[k], false).0;
        }
        return match site.fetch_bits(mip, c) {
            Ok(bits) => bits,
            Err(border) => border.map(f32::to_bits),
        };
    }
    let out = if f.mip == FilterType::Linear {
        let m0 = lod.floor();
        let frac = lod - m0;
        let m0 = m0 as u32;
        let a = filter_mip(&site, m0, tc, offset, texel_linear, reduction, compare);
        if frac > 0.0 && m0 < top {
            let b = filter_mip(&site, m0 + 1, tc, offset, texel_linear, reduction, compare);
            match reduction {
                Reduction::Minimum | Reduction::Maximum => reduce(a, b, reduction),
                _ => lerp4(a, b, frac),
            }
        } else {
            a
        }
    } else {
        let mip = ((lod + 0.5).floor() as u32).min(top);
        filter_mip(&site, mip, tc, offset, texel_linear, reduction, compare)
    };
    out.map(f32::to_bits)
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
    if !view.format.is_supported() || view.dim.is_multisampled() || view.dim == TextureDim::Tex3D {
        return [0; 4];
    }
    let (site, tc) = locate(view, sampler, coord);
    let size = view.mip_size(0);
    let axes = site.axes.min(2);
    let mut base = [0i64; 3];
    for k in 0..axes {
        base[k] = footprint(
            tc[k] * size[k] as f32,
            offset.get(k).copied().unwrap_or(0),
            true,
        )
        .0;
    }
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

/// Whether a format can be filtered (not an integer format).
pub fn is_filterable(format: Format) -> bool {
    format.is_supported() && !format.is_integer()
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
}
