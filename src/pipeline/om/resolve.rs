//! `ResolveSubresourceRegion`'s multisample modes (DirectX-Specs "D3D12 Programmable
//! Sample Positions", section "ResolveSubresourceRegion"; the D3D12 reference for
//! `D3D12_RESOLVE_MODE`): a rectangle of one subresource of the source, read sample by
//! sample, written at `(DstX, DstY)` of one subresource of the destination.
//!
//! # Rules
//!
//! - **MIN, MAX**: each component of the destination texel is the smallest (largest)
//!   of that component over the source texel's samples, compared as the format's
//!   component reads — float for float, UNORM, SNORM and sRGB channels (a NaN sample
//!   is passed over, D3D's `min`/`max`: NaN only when every sample is NaN), unsigned for
//!   UINT, signed for SINT. The destination takes the chosen sample's stored bits, so
//!   no value is rounded. Ties (−0 against +0 included) keep the lowest-numbered
//!   sample's bits: dxlane's choice, the spec not saying which of equal values is
//!   written. Any render-target or depth-stencil format, either plane.
//! - **AVERAGE**: each component the mean of the samples' values, decoded to floats (sRGB
//!   to linear), summed in f64 and encoded by the format's rounding, as
//!   `ResolveSubresource` (`super::resolve_into`). Not for integer formats nor the
//!   stencil plane; the depth plane may be averaged.
//! - **DECOMPRESS**: the source and destination have one sample count, and every sample
//!   of the rectangle is copied to the same sample of the destination. dxlane stores no
//!   compressed form, so this is the copy a decompression leaves; a decompress of a
//!   subresource into itself at its own place (the spec's in-place form) changes nothing.
//! - **Planes**: a depth-stencil resource's depth and stencil are separate subresources
//!   in D3D12 (plane slices); a resolve of one plane writes that plane's bits and leaves
//!   the other plane's bits of the destination as they were.
//!
//! The command's checks (formats, sample counts, subresources, the rectangle inside the
//! source and, at its destination offset, inside the destination) are made where the
//! command is made (`job::list`), before the list runs. There too the method's `Format`
//! is applied: both textures reach [`resolve_region`] already seen in it (a typeless
//! resource's bytes read as the typed format, an sRGB format decoding to linear before
//! the average), so every rule above reads the texels as `Format` says.

use crate::resources::format::Num;
use crate::resources::{Format, Texture};

/// `D3D12_RESOLVE_MODE`'s multisample modes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResolveMode {
    /// `D3D12_RESOLVE_MODE_DECOMPRESS`: sample for sample into a resource of the same
    /// sample count.
    Decompress,
    /// `D3D12_RESOLVE_MODE_MIN`.
    Min,
    /// `D3D12_RESOLVE_MODE_MAX`.
    Max,
    /// `D3D12_RESOLVE_MODE_AVERAGE`.
    Average,
}

impl ResolveMode {
    /// Each mode with its job-file name (`D3D12_RESOLVE_MODE_` dropped, lower case).
    pub const NAMES: [(&'static str, ResolveMode); 4] = [
        ("decompress", ResolveMode::Decompress),
        ("min", ResolveMode::Min),
        ("max", ResolveMode::Max),
        ("average", ResolveMode::Average),
    ];
}

/// What one `ResolveSubresourceRegion` moves.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ResolveRegion {
    /// The operation.
    pub mode: ResolveMode,
    /// Source `[mip, array slice]`.
    pub src: [u32; 2],
    /// Source rectangle `[left, top, right, bottom]` (`pSrcRect`), inside the source
    /// subresource.
    pub src_rect: [u32; 4],
    /// Destination `[mip, array slice]`.
    pub dst: [u32; 2],
    /// `[DstX, DstY]`: where the rectangle's top-left texel lands.
    pub dst_at: [u32; 2],
    /// The decoded components written (bit i = component i): every component of a
    /// colour format, a depth-stencil format's depth (`0b01`) or stencil (`0b10`) plane.
    pub components: u8,
}

/// The bits of channel `c` of the texel `raw`.
fn channel_bits(raw: u128, shift: u8, bits: u8) -> u128 {
    let mask = if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    };
    (raw >> shift) & mask
}

/// `raw` with channel (`shift`, `bits`) replaced by `v`.
fn with_channel(raw: u128, shift: u8, bits: u8, v: u128) -> u128 {
    let mask = if bits >= 128 {
        u128::MAX
    } else {
        (1u128 << bits) - 1
    };
    (raw & !(mask << shift)) | ((v & mask) << shift)
}

fn to_bits(bytes: &[u8]) -> u128 {
    let mut raw = [0u8; 16];
    let n = bytes.len().min(16);
    raw[..n].copy_from_slice(&bytes[..n]);
    u128::from_le_bytes(raw)
}

/// Whether decoded component value `a` comes before `b` for a channel read as `num`
/// (the order MIN keeps the first of and MAX the last of). A NaN never wins against a
/// number.
fn less(num: Num, a: u32, b: u32) -> bool {
    match num {
        Num::UInt | Num::Typeless => a < b,
        Num::SInt => (a as i32) < (b as i32),
        _ => f32::from_bits(a) < f32::from_bits(b),
    }
}

fn is_nan(num: Num, v: u32) -> bool {
    !matches!(num, Num::UInt | Num::Typeless | Num::SInt) && f32::from_bits(v).is_nan()
}

/// Runs `r` from `src` into `dst` (both of `src`'s format; `r` checked by the caller:
/// a texel outside either subresource is skipped).
pub fn resolve_region(src: &Texture, dst: &Texture, r: &ResolveRegion) {
    let d = *src.desc();
    let format = d.format;
    let texel = format.bytes_per_texel() as usize;
    let samples = d.samples.max(1);
    let [left, top, right, bottom] = r.src_rect;
    let mut sample_bytes = vec![0u8; texel];
    let mut raw = Vec::with_capacity(samples as usize);
    let mut decoded = Vec::with_capacity(samples as usize);
    let mut out = vec![0u8; texel];
    for y in top..bottom {
        for x in left..right {
            let at = [r.dst_at[0] + (x - left), r.dst_at[1] + (y - top), 0];
            raw.clear();
            decoded.clear();
            for s in 0..samples {
                let Some(a) = src.texel_addr(r.src[0], r.src[1], [x, y, 0], s) else {
                    continue;
                };
                src.memory().read_bytes(a, &mut sample_bytes);
                raw.push(to_bits(&sample_bytes));
                decoded.push(format.decode(&sample_bytes));
            }
            if raw.is_empty() {
                continue;
            }
            if r.mode == ResolveMode::Decompress {
                for (s, &from) in raw.iter().enumerate() {
                    let Some(a) = dst.texel_addr(r.dst[0], r.dst[1], at, s as u32) else {
                        continue;
                    };
                    dst.memory().read_bytes(a, &mut out);
                    let mut bits = to_bits(&out);
                    for c in format.channels() {
                        if r.components & (1 << (c.dest & 3)) != 0 {
                            bits = with_channel(
                                bits,
                                c.shift,
                                c.bits,
                                channel_bits(from, c.shift, c.bits),
                            );
                        }
                    }
                    out.copy_from_slice(&bits.to_le_bytes()[..texel]);
                    dst.memory().write_bytes(a, &out);
                }
                continue;
            }
            let Some(a) = dst.texel_addr(r.dst[0], r.dst[1], at, 0) else {
                continue;
            };
            dst.memory().read_bytes(a, &mut out);
            match r.mode {
                ResolveMode::Average => {
                    let mut sum = [0f64; 4];
                    for v in &decoded {
                        for c in 0..4 {
                            sum[c] += f64::from(f32::from_bits(v[c]));
                        }
                    }
                    let n = decoded.len() as f64;
                    let value = sum.map(|v| ((v / n) as f32).to_bits());
                    format.encode(value, r.components, &mut out);
                }
                ResolveMode::Min | ResolveMode::Max => {
                    let mut bits = to_bits(&out);
                    for c in format.channels() {
                        let k = usize::from(c.dest & 3);
                        if r.components & (1 << k) == 0 {
                            continue;
                        }
                        let mut best = 0usize;
                        let mut b = decoded[0][k];
                        for (s, sample) in decoded.iter().enumerate().skip(1) {
                            let v = sample[k];
                            let better = if is_nan(c.num, b) {
                                !is_nan(c.num, v)
                            } else if r.mode == ResolveMode::Min {
                                less(c.num, v, b)
                            } else {
                                less(c.num, b, v)
                            };
                            if better {
                                best = s;
                                b = v;
                            }
                        }
                        bits = with_channel(
                            bits,
                            c.shift,
                            c.bits,
                            channel_bits(raw[best], c.shift, c.bits),
                        );
                    }
                    out.copy_from_slice(&bits.to_le_bytes()[..texel]);
                }
                ResolveMode::Decompress => {}
            }
            dst.memory().write_bytes(a, &out);
        }
    }
}

/// Whether `format` can be resolved by `mode` (the spec's lists: MIN, MAX and
/// DECOMPRESS any render-target or depth-stencil format; AVERAGE a non-integer one,
/// depth included, stencil not — `components` says which plane of a depth-stencil
/// format). `Err` says why not.
pub fn check_format(format: Format, mode: ResolveMode, components: u8) -> Result<(), String> {
    let depth = format.is_depth();
    let class = super::target_class(format);
    if !depth && class.is_none() {
        return Err(format!(
            "{format} is neither a render-target nor a depth-stencil format"
        ));
    }
    if mode == ResolveMode::Average {
        if class == Some(super::TargetClass::Integer) {
            return Err(format!(
                "{format} is an integer format, which AVERAGE does not resolve (MIN and MAX do)"
            ));
        }
        if depth && components & 0b10 != 0 {
            return Err(format!(
                "the stencil plane of {format} is integer, which AVERAGE does not resolve (MIN and MAX do)"
            ));
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::TextureDesc;

    /// A 2 × 1 texture of `samples` samples whose sample `s` of texel `x` holds
    /// `texels[x][s]`.
    fn ms(format: Format, samples: u32, texels: &[&[&[u8]]]) -> Texture {
        let mut d = TextureDesc::tex2d(format, texels.len() as u32, 1);
        d.samples = samples;
        if samples > 1 {
            d.dim = crate::resources::TextureDim::Tex2DMS;
        }
        let t = Texture::new(d).unwrap();
        for (x, t_samples) in texels.iter().enumerate() {
            for (s, bytes) in t_samples.iter().enumerate() {
                let a = t.texel_addr(0, 0, [x as u32, 0, 0], s as u32).unwrap();
                t.memory().write_bytes(a, bytes);
            }
        }
        t
    }

    fn read(t: &Texture, x: u32, s: u32) -> Vec<u8> {
        let mut b = vec![0u8; t.desc().format.bytes_per_texel() as usize];
        let a = t.texel_addr(0, 0, [x, 0, 0], s).unwrap();
        t.memory().read_bytes(a, &mut b);
        b
    }

    fn region(mode: ResolveMode, components: u8) -> ResolveRegion {
        ResolveRegion {
            mode,
            src: [0, 0],
            src_rect: [0, 0, 2, 1],
            dst: [0, 0],
            dst_at: [0, 0],
            components,
        }
    }

    /// MIN and MAX compare as the format reads: R8G8_SINT's −128 (0x80) is the
    /// smallest of 0x80, 0x7f, 0x01, 0xff (−128, 127, 1, −1) and 127 the largest,
    /// where an unsigned comparison would pick 0x01 and 0xff; the G channel is compared
    /// on its own.
    #[test]
    fn min_max_compare_signed_components_separately() {
        let src = ms(
            Format::R8G8_SINT,
            4,
            &[
                &[&[0x80, 3], &[0x7f, 1], &[0x01, 2], &[0xff, 4]],
                &[&[5, 5], &[5, 5], &[5, 5], &[5, 5]],
            ],
        );
        let dst = ms(Format::R8G8_SINT, 1, &[&[&[0, 0]], &[&[0, 0]]]);
        resolve_region(&src, &dst, &region(ResolveMode::Min, 0xf));
        assert_eq!(read(&dst, 0, 0), [0x80, 1]);
        assert_eq!(read(&dst, 1, 0), [5, 5]);
        resolve_region(&src, &dst, &region(ResolveMode::Max, 0xf));
        assert_eq!(read(&dst, 0, 0), [0x7f, 4]);
    }

    /// D3D's `min`/`max` pass a NaN over: of R32_FLOAT samples NaN, 2, NaN, −1 the
    /// minimum is −1 and the maximum 2; all NaN stays NaN.
    #[test]
    fn min_max_pass_nan_over() {
        let nan = f32::NAN.to_le_bytes();
        let two = 2f32.to_le_bytes();
        let m1 = (-1f32).to_le_bytes();
        let src = ms(
            Format::R32_FLOAT,
            4,
            &[&[&nan, &two, &nan, &m1], &[&nan, &nan, &nan, &nan]],
        );
        let dst = ms(Format::R32_FLOAT, 1, &[&[&[0; 4]], &[&[0; 4]]]);
        resolve_region(&src, &dst, &region(ResolveMode::Min, 0xf));
        assert_eq!(read(&dst, 0, 0), m1);
        assert!(f32::from_le_bytes(read(&dst, 1, 0).try_into().unwrap()).is_nan());
        resolve_region(&src, &dst, &region(ResolveMode::Max, 0xf));
        assert_eq!(read(&dst, 0, 0), two);
    }

    /// A plane is resolved alone: MAX of D24_UNORM_S8_UINT's stencil plane over samples
    /// with stencil 3, 9, 1, 7 writes 9 into the destination's stencil bits and keeps its
    /// depth bits (0x123456); AVERAGE of the depth plane over depth codes 0, 2, 4, 6 of
    /// 2^24 − 1 writes code 3 (the mean, exact) and keeps the stencil 9.
    #[test]
    fn depth_and_stencil_planes_resolve_alone() {
        let s = |code: u32, st: u8| {
            let b = code.to_le_bytes();
            [b[0], b[1], b[2], st]
        };
        let src = ms(
            Format::D24_UNORM_S8_UINT,
            4,
            &[
                &[&s(0, 3), &s(2, 9), &s(4, 1), &s(6, 7)],
                &[&[0; 4], &[0; 4], &[0; 4], &[0; 4]],
            ],
        );
        let dst = ms(
            Format::D24_UNORM_S8_UINT,
            1,
            &[&[&[0x56, 0x34, 0x12, 0]], &[&[0; 4]]],
        );
        let mut r = region(ResolveMode::Max, 0b10);
        r.src_rect = [0, 0, 1, 1];
        resolve_region(&src, &dst, &r);
        assert_eq!(read(&dst, 0, 0), [0x56, 0x34, 0x12, 9]);
        r.mode = ResolveMode::Average;
        r.components = 0b01;
        resolve_region(&src, &dst, &r);
        assert_eq!(read(&dst, 0, 0), [3, 0, 0, 9]);
    }

    /// DECOMPRESS copies sample for sample, at the destination offset.
    #[test]
    fn decompress_copies_each_sample() {
        let src = ms(Format::R8_UINT, 2, &[&[&[1], &[2]], &[&[3], &[4]]]);
        let dst = ms(Format::R8_UINT, 2, &[&[&[0], &[0]], &[&[0], &[0]]]);
        let mut r = region(ResolveMode::Decompress, 0xf);
        r.src_rect = [1, 0, 2, 1];
        r.dst_at = [0, 0];
        resolve_region(&src, &dst, &r);
        assert_eq!([read(&dst, 0, 0), read(&dst, 0, 1)], [[3], [4]]);
        assert_eq!([read(&dst, 1, 0), read(&dst, 1, 1)], [[0], [0]]);
    }

    /// The spec's format lists.
    #[test]
    fn formats_each_mode_takes() {
        assert!(check_format(Format::R8_UINT, ResolveMode::Min, 0xf).is_ok());
        assert!(check_format(Format::R8_UINT, ResolveMode::Average, 0xf).is_err());
        assert!(check_format(Format::D32_FLOAT, ResolveMode::Average, 0b01).is_ok());
        assert!(check_format(Format::D24_UNORM_S8_UINT, ResolveMode::Average, 0b10).is_err());
        assert!(check_format(Format::D24_UNORM_S8_UINT, ResolveMode::Max, 0b10).is_ok());
        assert!(check_format(Format::BC1_UNORM, ResolveMode::Max, 0xf).is_err());
    }
}
