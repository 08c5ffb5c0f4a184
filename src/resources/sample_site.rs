//! A [`SamplerSite`]: one texture view and one sampler prepared once for many samples.
//!
//! [`super::sample::sample`] is the reference for every rule of D3D11.3 §7.18; it works
//! a lane at a time and re-derives the mip sizes, the format's layout and each texel's
//! address for every tap. A site does that once (per wave, in `exec::sample`) and then
//! samples with the same arithmetic in the same order, so that its results are the same
//! bits: the LOD (`raw_lod`, `clamp_lod`), the mip choice (`filter_lod`), the range
//! reduction, the 16.8 snapping and the footprint (`footprints`), the address modes and
//! the border colour, the per-axis `f32` interpolation (`filter_mip`).
//!
//! A site exists only for what it covers: 2D textures and 2D arrays (not cubes, 1D, 3D or
//! multisampled views), the standard reduction (or a comparison filter sampled without a
//! reference, which filters the same way), no anisotropy, and the float formats
//! R8G8B8A8_UNORM(_SRGB), B8G8R8A8_UNORM(_SRGB), R32G32B32A32_FLOAT, R16G16B16A16_FLOAT
//! and R32_FLOAT over a texture of the same texel layout. [`SamplerSite::new`] answers
//! `None` for anything else and the caller uses the reference. Comparison sampling
//! (a reference value) is never taken by a site.
//!
//! Two rounding steps avoid library calls without changing a bit: `to_fixed`'s
//! round-to-nearest-even of a value bounded by 2^40 adds and removes 1.5 × 2^52 (every
//! `f64` in [2^52, 2^53) is an integer, so the addition rounds once, to nearest even), and
//! `floor`/`trunc` of an `f32` go through an integer when the value has a fraction. The
//! `sample_site_equals_sample` property test holds the whole site to the reference.

use std::sync::OnceLock;
use std::sync::atomic::Ordering::Relaxed;

use super::format::{Format, small_float_to_f32};
use super::memory::Memory;
use super::sample::{Lod, SampleInput, TEXCOORD_RANGE, address, border_color, lerp4};
use super::sampler::{AddressMode, FilterType, Reduction, SamplerDesc};
use super::texture::{TextureDim, TextureView};
use crate::wide::wide_fn;

/// The most mips a site keeps sizes for (a 16384-texel texture has 15).
const MAX_MIPS: usize = 16;

type Texel = [f32; 4];

/// How a site's format decodes one texel from its 32-bit words.
#[derive(Clone, Copy)]
enum Decoder {
    /// Four 8-bit channels: component `i` is `table[i][byte src[i]]` (float bits).
    Bytes4 {
        table: &'static [[u32; 256]; 4],
        src: [usize; 4],
        /// Every component is UNORM (`table[i][c]` is `c as f32 / 255.0`), so a wave's
        /// taps may be decoded by that division instead of the table
        /// ([`Taps::unorm8`]).
        unorm: bool,
    },
    /// R32G32B32A32_FLOAT.
    F32x4,
    /// R16G16B16A16_FLOAT.
    F16x4,
    /// R32_FLOAT (G, B = 0, A = 1).
    F32,
}

/// Per-component tables of a four-byte format, built from [`Format::decode`] itself so
/// that they cannot differ from it.
fn bytes4_table(format: Format, src: [usize; 4]) -> [[u32; 256]; 4] {
    let mut t = [[0u32; 256]; 4];
    for (i, row) in t.iter_mut().enumerate() {
        for (c, v) in row.iter_mut().enumerate() {
            let mut b = [0u8; 4];
            b[src[i]] = c as u8;
            *v = format.decode(&b)[i];
        }
    }
    t
}

/// The decoder of a view format a site covers.
fn decoder(format: Format) -> Option<Decoder> {
    static RGBA8: OnceLock<[[u32; 256]; 4]> = OnceLock::new();
    static RGBA8_SRGB: OnceLock<[[u32; 256]; 4]> = OnceLock::new();
    static BGRA8: OnceLock<[[u32; 256]; 4]> = OnceLock::new();
    static BGRA8_SRGB: OnceLock<[[u32; 256]; 4]> = OnceLock::new();
    const RGBA: [usize; 4] = [0, 1, 2, 3];
    const BGRA: [usize; 4] = [2, 1, 0, 3];
    let bytes = |cell: &'static OnceLock<[[u32; 256]; 4]>, src: [usize; 4]| Decoder::Bytes4 {
        table: cell.get_or_init(|| bytes4_table(format, src)),
        src,
        unorm: !format.is_srgb(),
    };
    Some(match format {
        Format::R8G8B8A8_UNORM => bytes(&RGBA8, RGBA),
        Format::R8G8B8A8_UNORM_SRGB => bytes(&RGBA8_SRGB, RGBA),
        Format::B8G8R8A8_UNORM => bytes(&BGRA8, BGRA),
        Format::B8G8R8A8_UNORM_SRGB => bytes(&BGRA8_SRGB, BGRA),
        Format::R32G32B32A32_FLOAT => Decoder::F32x4,
        Format::R16G16B16A16_FLOAT => Decoder::F16x4,
        Format::R32_FLOAT => Decoder::F32,
        _ => return None,
    })
}

impl Decoder {
    /// The texel at byte `addr` (4-byte aligned: every covered texel size is a multiple
    /// of 4 and subresources start at multiples of the texel size).
    #[inline(always)]
    fn texel(self, mem: &Memory, addr: u64) -> Texel {
        // `new` proved every address a site forms aligned and within the memory, where
        // `load_word` is `load_u32` without its checks.
        let word = |k: u64| mem.load_word(addr / 4 + k);
        let bits = match self {
            Decoder::Bytes4 { table, src, .. } => {
                // Byte `k` of the little-endian word, by a shift: indexing a byte array
                // with a run-time `k` goes through memory.
                let v = word(0);
                let byte = |k: usize| usize::from((v >> (8 * k)) as u8);
                [
                    table[0][byte(src[0])],
                    table[1][byte(src[1])],
                    table[2][byte(src[2])],
                    table[3][byte(src[3])],
                ]
            }
            Decoder::F32x4 => [word(0), word(1), word(2), word(3)],
            Decoder::F16x4 => {
                let (lo, hi) = (word(0), word(1));
                let h = |v: u32| small_float_to_f32(v & 0xffff, 10, true).to_bits();
                [h(lo), h(lo >> 16), h(hi), h(hi >> 16)]
            }
            Decoder::F32 => [word(0), 0, 0, 1.0f32.to_bits()],
        };
        bits.map(f32::from_bits)
    }

    /// The 2x2 footprint whose top-left texel is at byte `a` and bottom-left at `b`,
    /// interpolated as `filter_mip` does (u by `fu` when `fu > 0`, then v by `fv` when
    /// `fv > 0`). Every tap is in range, so no tap is the border colour.
    #[inline(always)]
    fn quad(self, mem: &Memory, a: u64, b: u64, bpt: u64, fu: f32, fv: f32) -> Texel {
        let (t00, t10) = (self.texel(mem, a), self.texel(mem, a + bpt));
        let (t01, t11) = (self.texel(mem, b), self.texel(mem, b + bpt));
        match self {
            // Table values are finite and `fu`, `fv` lie in [0, 1), so no lerp of them
            // is NaN and `lerp`'s NaN fix-up never applies.
            Decoder::Bytes4 { .. } => bilinear([t00, t10, t01, t11], fu, fv, lerp4_finite),
            _ => bilinear([t00, t10, t01, t11], fu, fv, lerp4),
        }
    }

    fn bytes_per_texel(self) -> u64 {
        match self {
            Decoder::Bytes4 { .. } | Decoder::F32 => 4,
            Decoder::F16x4 => 8,
            Decoder::F32x4 => 16,
        }
    }
}

/// How a site's caller gives the LOD of one sample.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum SiteLod {
    /// An explicit LOD (before the sampler's bias).
    Level(f32),
    /// A gradient LOD from [`SamplerSite::gradient_lod`] and the shader's bias.
    Gradient {
        /// [`SamplerSite::gradient_lod`] of the sample's gradients.
        lod: f32,
        /// Shader LOD bias (0 when none).
        bias: f32,
    },
}

/// The mips and filter one LOD selects ([`SamplerSite::choose`]): every sample with
/// the same LOD and minimum-LOD clamp shares it.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct MipChoice {
    /// Linear (else point) filtering within a mip.
    linear: bool,
    /// The (first) view mip read.
    mip: u32,
    /// The second mip of a mip-linear filter and its weight, when the weight is not 0.
    next: Option<(u32, f32)>,
}

/// A texture view and a sampler prepared for sampling (see the module doc).
pub struct SamplerSite<'a> {
    view: &'a TextureView,
    memory: &'a Memory,
    decoder: Decoder,
    bpt: u64,
    array: bool,
    elements: u32,
    address: [AddressMode; 2],
    border: Texel,
    sampler: SamplerDesc,
    min_linear: bool,
    mag_linear: bool,
    mip_linear: bool,
    /// The view's last mip.
    top: u32,
    /// Width and height of each view mip.
    sizes: [[u32; 2]; MAX_MIPS],
    /// Byte offset of each view mip of the view's first slice.
    bases: [u64; MAX_MIPS],
}

impl<'a> SamplerSite<'a> {
    /// A site for `view` and `sampler`, or `None` when the pair is not one a site covers
    /// (the caller then samples with [`super::sample::sample`]).
    pub fn new(view: &'a TextureView, sampler: &SamplerDesc) -> Option<SamplerSite<'a>> {
        let desc = view.texture.desc();
        let flt = sampler.filter;
        let array = match view.dim {
            TextureDim::Tex2D => false,
            TextureDim::Tex2DArray => true,
            _ => return None,
        };
        if flt.anisotropic || !matches!(flt.reduction, Reduction::Standard | Reduction::Comparison)
        {
            return None;
        }
        let decoder = decoder(view.format)?;
        let bpt = decoder.bytes_per_texel();
        // Every texel the view can address must lie where the reference reads it: the
        // texture's own layout (not block-compressed, same texel size), the view's mips
        // and slices inside the texture, the texture's memory covering all of it.
        let mips_end = view.most_detailed_mip.checked_add(view.mip_levels)?;
        let slices_end = view.first_slice.checked_add(view.array_size)?;
        if desc.format.is_block_compressed()
            || u64::from(desc.format.bytes_per_texel()) != bpt
            || desc.samples == 0
            || view.mip_levels == 0
            || view.mip_levels as usize > MAX_MIPS
            || mips_end > desc.mips
            || view.array_size == 0
            || slices_end > desc.array_size()
            || view.texture.memory().len() < desc.total_bytes()
        {
            return None;
        }
        let mut sizes = [[1u32; 2]; MAX_MIPS];
        let mut bases = [0u64; MAX_MIPS];
        for m in 0..view.mip_levels {
            let [w, h, _] = view.mip_size(m);
            sizes[m as usize] = [w, h];
            bases[m as usize] = view
                .texture
                .subresource_offset(view.most_detailed_mip + m, view.first_slice)?;
        }
        Some(SamplerSite {
            view,
            memory: view.texture.memory(),
            decoder,
            bpt,
            array,
            elements: view.elements().max(1),
            address: [sampler.address[0], sampler.address[1]],
            // Only border texels read it.
            border: if sampler.address[..2].contains(&AddressMode::Border) {
                border_color(view.format, sampler.border_color)
            } else {
                [0.0; 4]
            },
            sampler: *sampler,
            min_linear: flt.min == FilterType::Linear,
            mag_linear: flt.mag == FilterType::Linear,
            mip_linear: flt.mip == FilterType::Linear,
            top: view.mip_levels - 1,
            sizes,
            bases,
        })
    }

    /// The unclamped isotropic LOD of gradients `ddx`, `ddy` (`gradient_lod`: `log2` of
    /// the longer gradient in texels of the view's mip 0).
    #[inline]
    pub fn gradient_lod(&self, ddx: [f32; 3], ddy: [f32; 3]) -> f32 {
        let [w, h] = self.sizes[0];
        let size = [w as f32, h as f32];
        let g = |d: [f32; 3]| [d[0] * size[0], d[1] * size[1], 0f32];
        let len = |g: [f32; 3]| (g[0] * g[0] + g[1] * g[1] + g[2] * g[2]).sqrt();
        len(g(ddx)).max(len(g(ddy))).log2()
    }

    /// [`super::sample::sample`] of `input` through the site; `None` for a comparison
    /// sample (the site does not take those).
    pub fn sample_input(&self, input: &SampleInput) -> Option<[u32; 4]> {
        if input.reference.is_some() {
            return None;
        }
        let lod = match input.lod {
            Lod::Level(l) => SiteLod::Level(l),
            Lod::Gradients { ddx, ddy, bias } => SiteLod::Gradient {
                lod: self.gradient_lod(ddx, ddy),
                bias,
            },
        };
        Some(self.sample(input.coord, input.offset, lod, input.min_lod_clamp))
    }

    /// One sample without a comparison: the same bits as [`super::sample::sample`] with
    /// these coordinates, offsets, LOD and minimum-LOD clamp (`f32::NEG_INFINITY` for
    /// none).
    #[inline]
    pub fn sample(
        &self,
        coord: [f32; 4],
        offset: [i32; 3],
        lod: SiteLod,
        min_lod_clamp: f32,
    ) -> [u32; 4] {
        self.sample_chosen(self.choose(lod, min_lod_clamp), coord, offset)
    }

    /// The mips and filter a sample with this LOD and minimum-LOD clamp reads
    /// (`clamp_lod`, the magnification test, `filter_lod`): what [`SamplerSite::sample`]
    /// works out before it touches a coordinate.
    #[inline]
    pub fn choose(&self, lod: SiteLod, min_lod_clamp: f32) -> MipChoice {
        let s = &self.sampler;
        let raw = match lod {
            SiteLod::Level(l) => l + s.mip_lod_bias,
            SiteLod::Gradient { lod, bias } => lod + bias + s.mip_lod_bias,
        };
        // `clamp_lod`.
        let lod = s.min_lod.max(s.max_lod.min(raw)).max(min_lod_clamp);
        let magnify = lod.is_nan() || lod <= 0.0;
        let linear = if magnify {
            self.mag_linear
        } else {
            self.min_linear
        };
        // `filter_lod`.
        let top = self.top;
        let fx = to_fixed(lod.clamp(0.0, top as f32), 8);
        let one = 1i64 << 8;
        if self.mip_linear {
            let m0 = ((fx >> 8) as u32).min(top);
            let frac = (fx & (one - 1)) as f32 / one as f32;
            MipChoice {
                linear,
                mip: m0,
                next: (frac > 0.0 && m0 < top).then_some((m0 + 1, frac)),
            }
        } else {
            MipChoice {
                linear,
                mip: (((fx + one / 2) >> 8) as u32).min(top),
                next: None,
            }
        }
    }

    /// The choice every LOD makes, when the LOD cannot matter: a view of one mip whose
    /// sampler filters minified and magnified texels alike. [`SamplerSite::choose`] then
    /// gives this for any LOD, bias and clamp, NaN included (`filter_lod` clamps to the
    /// one mip, whose weight is 0), so a wave's samples need no gradients or LOD at all
    /// (llvmpipe skips the LOD in the same case).
    pub fn fixed_choice(&self) -> Option<MipChoice> {
        (self.top == 0 && self.min_linear == self.mag_linear).then_some(MipChoice {
            linear: self.mag_linear,
            mip: 0,
            next: None,
        })
    }

    /// [`SamplerSite::sample`] with the mips already chosen.
    #[inline]
    pub fn sample_chosen(&self, choice: MipChoice, coord: [f32; 4], offset: [i32; 3]) -> [u32; 4] {
        let slice = if self.array {
            array_index(coord[2], self.elements)
        } else {
            0
        };
        let tc = [coord[0], coord[1]];
        let off = [offset[0], offset[1]];
        let a = self.filter_mip(choice.mip, slice, tc, off, choice.linear);
        let out = match choice.next {
            Some((m1, frac)) => lerp4(a, self.filter_mip(m1, slice, tc, off, choice.linear), frac),
            None => a,
        };
        out.map(f32::to_bits)
    }

    /// [`SamplerSite::sample_chosen`] for each lane `l` in `select`, with coordinates
    /// `coord[k][l]` (bits), into `out[component][l]`; other lanes of `out` are left as
    /// they are.
    ///
    /// A linear filter in one mip of a 2D view — the common case — goes in two passes:
    /// the footprints of all lanes first, in a loop with no memory access and no branch
    /// (the compiler does several lanes at once), then the taps of each lane, which no
    /// longer wait on one another. `fast_footprint` says when its `f32` arithmetic gives
    /// `footprint`'s bits; the other lanes, and every other choice, sample one lane at a
    /// time.
    ///
    /// `scratch` holds the passes' per-lane arrays between calls (see [`LaneScratch`]).
    pub fn sample_lanes<const N: usize>(
        &self,
        choice: MipChoice,
        coord: [&[u32; N]; 3],
        select: u128,
        offset: [i32; 3],
        out: &mut [[u32; N]; 4],
        scratch: &mut LaneScratch<N>,
    ) {
        sample_lanes_wide(self, choice, coord, select, offset, out, scratch);
    }

    /// [`SamplerSite::sample_lanes`]'s work, compiled into each copy of
    /// `sample_lanes_wide`.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    fn sample_lanes_in<const N: usize, const FMA: bool>(
        &self,
        choice: MipChoice,
        coord: [&[u32; N]; 3],
        select: u128,
        offset: [i32; 3],
        out: &mut [[u32; N]; 4],
        scratch: &mut LaneScratch<N>,
    ) {
        // Lanes past `N` do not exist.
        let select = if N >= 128 {
            select
        } else {
            select & ((1u128 << N) - 1)
        };
        let one = |l: usize| {
            let c = [coord[0][l], coord[1][l], coord[2][l], 0].map(f32::from_bits);
            self.sample_chosen(choice, c, offset)
        };
        let mut put = |l: usize, r: [u32; 4]| {
            for (o, v) in out.iter_mut().zip(r) {
                o[l] = v;
            }
        };
        if self.array
            || !choice.linear
            || choice.next.is_some()
            || offset[..2]
                .iter()
                .any(|o| o.unsigned_abs() > FAST_OFFSET as u32)
        {
            for l in set_bits(select) {
                put(l, one(l));
            }
            return;
        }
        let mip = choice.mip as usize;
        let size = self.sizes[mip];
        let LaneScratch {
            footprints: fp,
            fast_v,
            taps: tap_words,
        } = scratch;
        footprints(self.address, size, offset, coord, fp, fast_v);
        let taps = Taps {
            memory: self.memory,
            base: self.bases[mip],
            width: u64::from(size[0]),
            height: size[1],
            select,
        };
        // The decoder is matched once, so that each lane's taps are straight-line code.
        match self.decoder {
            Decoder::Bytes4 {
                unorm: true,
                src: [0, 1, 2, 3],
                ..
            } => taps.unorm8::<N, false, FMA>(fp, tap_words, out, one),
            Decoder::Bytes4 {
                unorm: true,
                src: [2, 1, 0, 3],
                ..
            } => taps.unorm8::<N, true, FMA>(fp, tap_words, out, one),
            Decoder::Bytes4 {
                table,
                src: [0, 1, 2, 3],
                ..
            } => taps.each(
                fp,
                4,
                |m, a| bytes4::<false>(table, m, a),
                lerp4_finite,
                &mut put,
                one,
            ),
            Decoder::Bytes4 {
                table,
                src: [2, 1, 0, 3],
                ..
            } => taps.each(
                fp,
                4,
                |m, a| bytes4::<true>(table, m, a),
                lerp4_finite,
                &mut put,
                one,
            ),
            d => taps.each(
                fp,
                d.bytes_per_texel(),
                |m, a| d.texel(m, a),
                lerp4,
                &mut put,
                one,
            ),
        }
    }

    /// `filter_mip` with the standard reduction on a 2D site: the footprint at view mip
    /// `mip`, interpolated along u, then v.
    #[inline]
    fn filter_mip(&self, mip: u32, slice: u32, tc: [f32; 2], off: [i32; 2], linear: bool) -> Texel {
        let [w, h] = self.sizes[mip as usize];
        let (bu, fu) = footprint(reduce(tc[0], self.address[0]) * w as f32, off[0], linear);
        let (bv, fv) = footprint(reduce(tc[1], self.address[1]) * h as f32, off[1], linear);
        let base = if slice == 0 {
            self.bases[mip as usize]
        } else {
            self.view
                .texture
                .subresource_offset(
                    self.view.most_detailed_mip + mip,
                    self.view.first_slice + slice,
                )
                .unwrap_or(0)
        };
        // A linear footprint whose four texels all lie inside the mip (one unsigned
        // compare per axis: a negative start wraps past every size) needs no address
        // mode: the taps are read directly.
        if linear
            && (bu as u64) < u64::from(w.saturating_sub(1))
            && (bv as u64) < u64::from(h.saturating_sub(1))
        {
            let a = base + ((bv as u64) * u64::from(w) + bu as u64) * self.bpt;
            let b = a + u64::from(w) * self.bpt;
            return self.decoder.quad(self.memory, a, b, self.bpt, fu, fv);
        }
        let y0 = self.row(base, [w, h], bu, fu, bv);
        if fv > 0.0 {
            lerp4(y0, self.row(base, [w, h], bu, fu, bv.saturating_add(1)), fv)
        } else {
            y0
        }
    }
}

impl SamplerSite<'_> {
    /// One row of the footprint: the texel at `(x, y)`, interpolated with the next one
    /// by `fu` when `fu > 0` (`filter_mip`'s u axis).
    #[inline(always)]
    fn row(&self, base: u64, size: [u32; 2], x: i64, fu: f32, y: i64) -> Texel {
        let a = self.tap(base, size, x, y);
        if fu > 0.0 {
            lerp4(a, self.tap(base, size, x.saturating_add(1), y), fu)
        } else {
            a
        }
    }

    /// The texel at `(x, y)` of the mip of size `size` at byte `base`, with the address
    /// modes applied; the border colour for a border texel (`Site::fetch`).
    #[inline(always)]
    fn tap(&self, base: u64, [w, h]: [u32; 2], x: i64, y: i64) -> Texel {
        let Some(x) = wrap(self.address[0], x, i64::from(w)) else {
            return self.border;
        };
        let Some(y) = wrap(self.address[1], y, i64::from(h)) else {
            return self.border;
        };
        let index = (y as u64) * u64::from(w) + x as u64;
        self.decoder.texel(self.memory, base + index * self.bpt)
    }
}

/// Taps `[t00, t10, t01, t11]` interpolated as `filter_mip` does, by `lerp`: u by `fu`
/// when `fu > 0`, then v by `fv` when `fv > 0`.
#[inline(always)]
fn bilinear(t: [Texel; 4], fu: f32, fv: f32, lerp: impl Fn(Texel, Texel, f32) -> Texel) -> Texel {
    let [t00, t10, t01, t11] = t;
    let y0 = if fu > 0.0 { lerp(t00, t10, fu) } else { t00 };
    if fv > 0.0 {
        let y1 = if fu > 0.0 { lerp(t01, t11, fu) } else { t01 };
        lerp(y0, y1, fv)
    } else {
        y0
    }
}

/// `lerp4` of finite `a`, `b` and `f` in [0, 1): `a + (b - a) * f` per component, which is
/// then never NaN, so `lerp`'s fix-up is left out.
#[inline(always)]
fn lerp4_finite(a: Texel, b: Texel, f: f32) -> Texel {
    [0, 1, 2, 3].map(|i| a[i] + (b[i] - a[i]) * f)
}

/// The reference's array index: rounded to nearest even, clamped to the elements (NaN
/// and negative: 0).
#[inline]
fn array_index(a: f32, elements: u32) -> u32 {
    let r = a.round_ties_even();
    if r.is_nan() || r <= 0.0 {
        0
    } else {
        (r as u32).min(elements - 1)
    }
}

/// [`address`] with the in-range case first (every mode keeps an in-range texel).
#[inline(always)]
fn wrap(mode: AddressMode, i: i64, size: i64) -> Option<i64> {
    if (0..size).contains(&i) {
        Some(i)
    } else {
        address(mode, i, size)
    }
}

/// `f32::floor` without a library call: exact through `i32` below 2^23 in magnitude,
/// where a value may have a fraction; larger values, infinities and NaN are their own
/// floor. The sign of a zero result is kept (`floor(−0) = −0`). Written as selects, not
/// branches, so that a loop over lanes does several at once.
#[inline(always)]
pub(crate) fn floor(u: f32) -> f32 {
    let small = u.abs() < 8_388_608.0;
    let t = (if small { u } else { 0.0 }) as i32 as f32;
    let t = if t > u { t - 1.0 } else { t };
    let t = if t == 0.0 { 0f32.copysign(u) } else { t };
    if small { t } else { u }
}

/// `f32::trunc` without a library call (as [`floor`]; `trunc(−0.5) = −0`).
#[inline(always)]
pub(crate) fn trunc(u: f32) -> f32 {
    let small = u.abs() < 8_388_608.0;
    let t = (if small { u } else { 0.0 }) as i32 as f32;
    let t = if t == 0.0 { 0f32.copysign(u) } else { t };
    if small { t } else { u }
}

/// `reduce_range` (§7.18.6) with [`floor`] and [`trunc`].
#[inline(always)]
fn reduce(u: f32, mode: AddressMode) -> f32 {
    match mode {
        AddressMode::Wrap => u - floor(u),
        AddressMode::Mirror => {
            let h = u / 2.0;
            (h - trunc(h)) * 2.0
        }
        _ => u.clamp(-TEXCOORD_RANGE, TEXCOORD_RANGE),
    }
}

/// `to_fixed` (§3.2.4.1) without a library call: the scaled value is at most 2^40 in
/// magnitude, so `v + 1.5 × 2^52` lies in [2^52, 2^53), where every `f64` is an integer:
/// the addition rounds `v` to nearest even, and the difference of the two bit patterns
/// is that integer.
#[inline(always)]
pub(crate) fn to_fixed(x: f32, frac: u32) -> i64 {
    if x.is_nan() {
        return 0;
    }
    const LIMIT: f64 = (1u64 << 40) as f64;
    const MAGIC: f64 = 6_755_399_441_055_744.0; // 1.5 × 2^52
    let v = (f64::from(x) * f64::from(1u32 << frac)).clamp(-LIMIT, LIMIT);
    (v + MAGIC).to_bits() as i64 - MAGIC.to_bits() as i64
}

/// `footprint` (§7.18.7, §7.18.8) with [`to_fixed`].
#[inline(always)]
fn footprint(x: f32, offset: i32, linear: bool) -> (i64, f32) {
    let a = if linear { x - 0.5 } else { x };
    let fx = to_fixed(a, 8);
    let i = fx >> 8;
    let f = if linear {
        (fx & 255) as f32 / 256.0
    } else {
        0.0
    };
    (i.saturating_add(i64::from(offset)), f)
}

/// The second pass of [`SamplerSite::sample_lanes`]: each selected lane's 2x2
/// footprint read and interpolated, or the lane sampled alone when its footprint is not
/// one [`footprints`] took.
struct Taps<'m> {
    memory: &'m Memory,
    /// Byte offset of the mip.
    base: u64,
    /// The mip's width in texels.
    width: u64,
    /// The mip's height in texels.
    height: u32,
    select: u128,
}

impl Taps<'_> {
    #[inline(always)]
    fn each<const N: usize>(
        &self,
        fp: &Footprints<N>,
        bpt: u64,
        texel: impl Fn(&Memory, u64) -> Texel,
        lerp: impl Fn(Texel, Texel, f32) -> Texel,
        put: &mut impl FnMut(usize, [u32; 4]),
        one: impl Fn(usize) -> [u32; 4],
    ) {
        let m = self.memory;
        for l in set_bits(self.select) {
            if fp.fast[l] == 0 {
                put(l, one(l));
                continue;
            }
            // `footprints` proved 0 ≤ base < size − 1 on both axes.
            let row = self.width * bpt;
            let a = self.base + (fp.base[1][l] as u64) * row + (fp.base[0][l] as u64) * bpt;
            let b = a + row;
            let t = [
                texel(m, a),
                texel(m, a + bpt),
                texel(m, b),
                texel(m, b + bpt),
            ];
            let (fu, fv) = (fp.frac[0][l], fp.frac[1][l]);
            put(l, bilinear(t, fu, fv, &lerp).map(f32::to_bits));
        }
    }
}

impl Taps<'_> {
    /// [`Taps::each`] for the UNORM four-byte formats, a pass over all `N` lanes at a
    /// time so that the compiler does several lanes at once: each lane's four texel words
    /// are read (lanes that are not selected, or whose footprint [`footprints`] did not
    /// take, read the mip's first texel and are not stored), then each component is
    /// decoded as `Format::decode` does (`c as f32 / 255.0`, see [`unorm8_decode`]) and
    /// interpolated, the
    /// selected lanes stored through a mask; the other selected lanes are sampled one at
    /// a time by `one`.
    ///
    /// The interpolation is `bilinear` with `lerp4_finite` without its `fu > 0` and
    /// `fv > 0` tests: UNORM values are finite and never `-0`, and `fu`, `fv` lie in
    /// [0, 1), so `a + (b - a) × 0` is `a` bit for bit and the tests change nothing.
    #[inline(always)]
    fn unorm8<const N: usize, const BGRA: bool, const FMA: bool>(
        &self,
        fp: &Footprints<N>,
        scratch: &mut TapWords<N>,
        out: &mut [[u32; N]; 4],
        one: impl Fn(usize) -> [u32; 4],
    ) {
        let m = self.memory;
        // In words: a covered format's texel is one word.
        let (base, row) = (self.base / 4, self.width);
        // Every lane of the three is written below before it is read.
        let TapWords { take, words, first } = scratch;
        // The selection by halves: a shift of a `u128` costs several instructions.
        let halves = [self.select as u64, (self.select >> 64) as u64];
        let mut missed = 0u32;
        // Each lane's first texel, as words past the mip's first, in a pass without
        // memory access (several lanes at a time): `footprints` proved 0 ≤ base <
        // size − 1 on both axes of a taken lane, so the offset is below the mip's
        // texel count (at most `MAX_TEXTURE_DIMENSION`² = 2^28) and fits a `u32`;
        // lanes not taken read the first.
        let row32 = row as u32;
        for l in 0..N {
            let half = halves[(l / 64) % 2];
            let selected = 0u32.wrapping_sub(((half >> (l % 64)) & 1) as u32);
            let t = fp.fast[l] & selected;
            take[l] = t;
            missed |= selected & !t;
            let at = (fp.base[1][l] as u32)
                .wrapping_mul(row32)
                .wrapping_add(fp.base[0][l] as u32);
            first[l] = at & t;
        }
        // The mip's words as one slice (each lane's four words lie in it, `footprints`
        // having proved the footprint inside the mip): its pointer and length stay in
        // registers through the loop. A memory shorter than the mip (not a view this
        // site is built for) reads word by word, out-of-range words as 0.
        let height = u64::from(self.height);
        match m.words(base, row.saturating_mul(height)) {
            Some(mip) => {
                let r = row as usize;
                let word = |i: usize| mip.get(i).map_or(0, |w| w.load(Relaxed));
                for l in 0..N {
                    let a = first[l] as usize;
                    words[0][l] = word(a);
                    words[1][l] = word(a + 1);
                    words[2][l] = word(a + r);
                    words[3][l] = word(a + r + 1);
                }
            }
            None => {
                for l in 0..N {
                    let a = base + u64::from(first[l]);
                    words[0][l] = m.load_word(a);
                    words[1][l] = m.load_word(a + 1);
                    words[2][l] = m.load_word(a + row);
                    words[3][l] = m.load_word(a + row + 1);
                }
            }
        }
        for (k, o) in out.iter_mut().enumerate() {
            let byte = if BGRA { [2, 1, 0, 3][k] } else { k };
            let shift = 8 * byte as u32;
            for l in 0..N {
                let d = |w: u32| unorm8_decode::<FMA>((w >> shift) & 0xff);
                let (t00, t10) = (d(words[0][l]), d(words[1][l]));
                let (t01, t11) = (d(words[2][l]), d(words[3][l]));
                let (fu, fv) = (fp.frac[0][l], fp.frac[1][l]);
                let y0 = t00 + (t10 - t00) * fu;
                let y1 = t01 + (t11 - t01) * fu;
                let v = (y0 + (y1 - y0) * fv).to_bits();
                o[l] = (v & take[l]) | (o[l] & !take[l]);
            }
        }
        // The selected lanes the footprints did not take (few: those whose footprint
        // crosses the mip's edge), each sampled alone; most waves have none, which one
        // OR over the lanes tells without building their mask.
        if missed == 0 {
            return;
        }
        let mut taken = [0u64; 2];
        for (l, t) in take.iter().enumerate() {
            taken[(l / 64) % 2] |= u64::from(*t & 1) << (l % 64);
        }
        let taken = u128::from(taken[0]) | (u128::from(taken[1]) << 64);
        for l in set_bits(self.select & !taken) {
            let r = one(l);
            for (o, v) in out.iter_mut().zip(r) {
                o[l] = v;
            }
        }
    }
}

wide_fn! {
    /// [`SamplerSite::sample_lanes`], its lane loops compiled for AVX2 too
    /// (`crate::wide`).
    fn sample_lanes_wide[const N: usize](
        site: &SamplerSite<'_>,
        choice: MipChoice,
        coord: [&[u32; N]; 3],
        select: u128,
        offset: [i32; 3],
        out: &mut [[u32; N]; 4],
        scratch: &mut LaneScratch<N>,
    ) {
        site.sample_lanes_in::<N, FMA>(choice, coord, select, offset, out, scratch)
    }
}

/// `c as f32 / 255.0` for a byte `c` (UNORM8 → FLOAT, D3D11.3 §3.2.3.4), the value
/// `Format::decode` gives. With `FMA` (the copy of a loop compiled with it, see
/// `crate::wide`) without the division, whose vector form takes several times as
/// long as a multiply-add: `q = c × RN(1/255)` is within an ulp of the quotient, the
/// residual `c − 255q` is exact in one fused multiply-add, and `q + residual × RN(1/255)`
/// rounds to the correctly rounded quotient for every byte (Markstein's correction;
/// `unorm8_decode_is_the_quotient` checks all 256). Without FMA `mul_add` is a library
/// call, so the division stays.
#[inline(always)]
pub(crate) fn unorm8_decode<const FMA: bool>(c: u32) -> f32 {
    const INV: f32 = 1.0 / 255.0;
    let x = c as f32;
    if FMA {
        let q = x * INV;
        let residual = (-q).mul_add(255.0, x);
        residual.mul_add(INV, q)
    } else {
        x / 255.0
    }
}

/// [`Decoder::texel`] of an RGBA (`BGRA` false) or BGRA 8-bit format, with the byte
/// order fixed at compile time.
#[inline(always)]
fn bytes4<const BGRA: bool>(table: &[[u32; 256]; 4], mem: &Memory, addr: u64) -> Texel {
    let v = mem.load_word(addr / 4);
    let byte = |k: u32| usize::from((v >> (8 * k)) as u8);
    let (r, b) = if BGRA { (2, 0) } else { (0, 2) };
    [
        table[0][byte(r)],
        table[1][byte(1)],
        table[2][byte(b)],
        table[3][byte(3)],
    ]
    .map(f32::from_bits)
}

/// The indices of the set bits of `mask`, lowest first: `exec::lanes`'s walk, which
/// this module, below `exec`, cannot call.
fn set_bits(mut mask: u128) -> impl Iterator<Item = usize> {
    std::iter::from_fn(move || {
        (mask != 0).then(|| {
            let l = mask.trailing_zeros() as usize;
            mask &= mask - 1;
            l
        })
    })
}

/// The largest offset the two-pass path takes: with it, no base plus offset overflows
/// an `i32` (bases are below 2^14 + 1 in magnitude there). D3D offsets are 4-bit.
const FAST_OFFSET: i32 = 1 << 16;

/// `reduce` then `footprint` (linear, offset `off`) of every lane's two coordinates on a
/// mip of `size`, in `f32`: `base`, `frac`, and `fast[l]` all ones when the 2x2
/// footprint lies inside the mip and [`fast_footprint`] applies (offsets at most
/// [`FAST_OFFSET`]). The address modes are matched outside the loops, whose bodies are
/// selects only, so the compiler does several lanes at once.
#[inline(always)]
fn footprints<const N: usize>(
    address: [AddressMode; 2],
    size: [u32; 2],
    offset: [i32; 3],
    coord: [&[u32; N]; 3],
    out: &mut Footprints<N>,
    fast_v: &mut [u32; N],
) {
    #[inline(always)]
    fn axis<const N: usize>(
        reduce: impl Fn(f32) -> (f32, bool),
        size: u32,
        off: i32,
        c: &[u32; N],
        base: &mut [i32; N],
        frac: &mut [f32; N],
        fast: &mut [u32; N],
    ) {
        let (scale, last) = (size as f32, size.saturating_sub(1));
        for l in 0..N {
            let (r, reduced) = reduce(f32::from_bits(c[l]));
            let (i, f, ok) = fast_footprint(r * scale);
            let ok = ok & reduced;
            // |i| ≤ 2^14 + 1 where `ok`, |off| ≤ FAST_OFFSET: the sum does not wrap.
            let b = i.wrapping_add(off);
            base[l] = b;
            frac[l] = f;
            // A plain store of every lane (an `&=` here became a masked store, which
            // some processors run slowly); `footprints` combines the two axes.
            fast[l] = if ok & ((b as u32) < last) {
                u32::MAX
            } else {
                0
            };
        }
    }
    #[inline(always)]
    fn by_mode<const N: usize>(
        mode: AddressMode,
        size: u32,
        off: i32,
        c: &[u32; N],
        base: &mut [i32; N],
        frac: &mut [f32; N],
        fast: &mut [u32; N],
    ) {
        match mode {
            AddressMode::Wrap => axis(fast_wrap, size, off, c, base, frac, fast),
            AddressMode::Mirror => axis(fast_mirror, size, off, c, base, frac, fast),
            // Every other mode reduces by clamping to the coordinate range.
            _ => axis(
                |u| (reduce(u, AddressMode::Clamp), true),
                size,
                off,
                c,
                base,
                frac,
                fast,
            ),
        }
    }
    by_mode(
        address[0],
        size[0],
        offset[0],
        coord[0],
        &mut out.base[0],
        &mut out.frac[0],
        &mut out.fast,
    );
    by_mode(
        address[1],
        size[1],
        offset[1],
        coord[1],
        &mut out.base[1],
        &mut out.frac[1],
        fast_v,
    );
    for (f, v) in out.fast.iter_mut().zip(fast_v.iter()) {
        *f &= v;
    }
}

/// The per-lane arrays of [`SamplerSite::sample_lanes`]'s two passes for `N` lanes,
/// which its caller keeps from call to call (a wave keeps one): each call writes every
/// lane's entries before it reads them, so they are never cleared (clearing these 4.5
/// KiB per 128-lane call took about 3 % of a full-screen draw).
pub struct LaneScratch<const N: usize> {
    footprints: Footprints<N>,
    /// [`footprints`]' v-axis test, before it is combined with the u axis'.
    fast_v: [u32; N],
    taps: TapWords<N>,
}

impl<const N: usize> LaneScratch<N> {
    /// Scratch for `N` lanes, on the heap (it is a few KiB).
    pub fn boxed() -> Box<LaneScratch<N>> {
        Box::new(LaneScratch {
            footprints: Footprints {
                base: [[0; N]; 2],
                frac: [[0.0; N]; 2],
                fast: [0; N],
            },
            fast_v: [0; N],
            taps: TapWords {
                take: [0; N],
                words: [[0; N]; 4],
                first: [0; N],
            },
        })
    }
}

/// [`Taps::unorm8`]'s per-lane arrays: whether the lane is taken (all ones) or not, its
/// four texel words, and its first texel's word offset.
struct TapWords<const N: usize> {
    take: [u32; N],
    words: [[u32; N]; 4],
    first: [u32; N],
}

/// What [`footprints`] gives each lane: per axis the footprint's first texel and the
/// fraction, and whether the lane's footprint is read directly.
struct Footprints<const N: usize> {
    base: [[i32; N]; 2],
    frac: [[f32; N]; 2],
    fast: [u32; N],
}

/// 1.5 × 2^23: an `f32` below 2^22 in magnitude plus this lies in [2^23, 2^24), where
/// every `f32` is an integer, so the addition rounds it to nearest even; the result's
/// bits less this constant's are that integer.
const MAGIC: f32 = 12_582_912.0;

/// The nearest integer to `v` (ties to even), as an `f32`, for `|v| < 2^22`.
#[inline(always)]
fn round_small(v: f32) -> f32 {
    (v + MAGIC) - MAGIC
}

/// `reduce(u, Wrap)` = `u − floor(u)` with the floor from [`round_small`] (selects only,
/// no conversion); `false` when `|u| ≥ 2^22`, where the caller takes the reference.
#[inline(always)]
fn fast_wrap(u: f32) -> (f32, bool) {
    let ok = u.abs() < 4_194_304.0;
    let v = if ok { u } else { 0.0 };
    let r = round_small(v);
    let f = if r > v { r - 1.0 } else { r };
    // `floor`'s zero keeps the sign of its argument.
    let f = if f == 0.0 { 0f32.copysign(v) } else { f };
    (v - f, ok)
}

/// `reduce(u, Mirror)` = `(h − trunc(h)) × 2` for `h = u / 2`, as [`fast_wrap`].
#[inline(always)]
fn fast_mirror(u: f32) -> (f32, bool) {
    let h = u / 2.0;
    let ok = h.abs() < 4_194_304.0;
    let v = if ok { h } else { 0.0 };
    let r = round_small(v);
    let t = if v >= 0.0 {
        if r > v { r - 1.0 } else { r }
    } else if r < v {
        r + 1.0
    } else {
        r
    };
    let t = if t == 0.0 { 0f32.copysign(v) } else { t };
    ((v - t) * 2.0, ok)
}

/// `footprint(x, 0, true)` in `f32` and `i32`: `(base, frac, applies)`. When
/// `|x − 0.5| < 2^14`, `(x − 0.5) × 256` is exact and below 2^22 in magnitude, so adding
/// and removing 1.5 × 2^23 rounds it to nearest even as `to_fixed` does, and the
/// integer fits an `i32`. Otherwise (large values, infinities, NaN) `applies` is false
/// and the base and fraction mean nothing.
#[inline(always)]
fn fast_footprint(x: f32) -> (i32, f32, bool) {
    let a = x - 0.5;
    let ok = a.abs() < 16_384.0;
    let s = if ok { a * 256.0 } else { 0.0 };
    let fx = (s + MAGIC).to_bits() as i32 - MAGIC.to_bits() as i32;
    (fx >> 8, (fx & 255) as f32 * (1.0 / 256.0), ok)
}

#[cfg(test)]
mod tests;
