//! Image files as texture data, and texture subresources as image and `.bin` files.
//!
//! # Reading (`data = { images = […] }`, or a `.png` `file`)
//!
//! Any image the `image` crate reads here (its enabled features: PNG, 8 and 16 bits, grey
//! or colour, with or without alpha) fills one subresource of the same size. The image's
//! R, G, B, A go to the texture's components of the same name (a grey image is R = G = B;
//! without alpha, A = 1), and each is converted to the texture's format:
//!
//! - formats whose channels are all 8-bit UNORM or sRGB take the image's 8-bit values as
//!   they are (no sRGB conversion: an sRGB texture stores the file's encoded bytes);
//! - formats whose channels are all 16-bit UNORM take the image's 16-bit values as they
//!   are (8-bit images are widened by `image`, `v × 257`);
//! - every other float, UNORM, SNORM or sRGB format takes the image's values as floats in
//!   [0, 1] (`v / 255` or `v / 65535`) converted by the format's encoding (D3D11.3 §3.2:
//!   UNORM/SNORM round half away from zero and saturate, sRGB formats encode the value as
//!   linear, floats round toward zero);
//! - integer (UINT/SINT), typeless, block-compressed and subsampled formats are refused:
//!   an image holds normalized colours, these formats take raw `file` data.
//!
//! # Writing (`output = "x.png"`, `outputs = [{ file, mip, slice }]`)
//!
//! A `.png` holds one subresource of a format whose channels are all 8-bit or all 16-bit
//! UNORM or sRGB (the stored values, no conversion); a format with only a red channel
//! gives a grey PNG, any other RGBA, missing colour channels 0 and missing alpha the
//! maximum. A `.bin` holds the subresource's rows tightly packed (whole blocks for BC
//! formats). A 3D subresource's slice is a depth plane; a multisampled one writes sample 0.

use std::io::Cursor;
use std::path::Path;

use image::{ExtendedColorType, ImageEncoder};

use crate::resources::format::{ChannelType, Num};
use crate::resources::{Format, Texture, TextureDesc, TextureDim};

/// The bit depth of a format PNG can hold directly (8 or 16), if any.
pub fn png_depth(format: Format) -> Option<u8> {
    let ch = format.channels();
    let bits = ch.first()?.bits;
    let ok = (bits == 8 || bits == 16)
        && ch
            .iter()
            .all(|c| c.bits == bits && c.shift % 8 == 0 && matches!(c.num, Num::UNorm | Num::Srgb));
    ok.then_some(bits)
}

/// Whether an image can fill a texture of `format`, and why not.
pub fn check_image_format(format: Format) -> Result<(), String> {
    if png_depth(format).is_some() {
        return Ok(());
    }
    let ok = format.is_supported()
        && matches!(
            format.channel_type(),
            ChannelType::Float | ChannelType::UNorm | ChannelType::SNorm | ChannelType::Srgb
        );
    if ok {
        Ok(())
    } else {
        Err(format!(
            "an image holds normalized colours and cannot fill a {format} texture (UINT, SINT, typeless, block-compressed and subsampled formats take raw `file` data)"
        ))
    }
}

/// Reads `file` and converts its pixels to `width × height` texels of `format` (see the
/// module doc).
pub fn read_texels(
    file: &Path,
    format: Format,
    width: u32,
    height: u32,
) -> Result<Vec<u8>, String> {
    check_image_format(format)?;
    // A PNG of the subresource holds at most 16 bytes a pixel (RGBA, 16 bits a channel)
    // before compression; twice that, and 1 MiB for small ones, is more than any real
    // file of it needs.
    let max = (u64::from(width) * u64::from(height))
        .saturating_mul(32)
        .max(1 << 20);
    let bytes = super::paths::read_input(file, max, "twice a 16-bit RGBA image of its size")?;
    let img = image::load_from_memory(&bytes).map_err(|e| {
        format!(
            "{}: not an image this build reads (PNG): {e}",
            file.display()
        )
    })?;
    if (img.width(), img.height()) != (width, height) {
        return Err(format!(
            "{} is {}×{} but the subresource is {width}×{height}",
            file.display(),
            img.width(),
            img.height()
        ));
    }
    let texel = format.bytes_per_texel() as usize;
    let n = width as usize * height as usize;
    let mut out = super::limits::zeroed_bytes(n.saturating_mul(texel))?;
    match png_depth(format) {
        Some(8) => {
            let px = img.to_rgba8();
            for (p, t) in px.as_raw().chunks_exact(4).zip(out.chunks_exact_mut(texel)) {
                for c in format.channels() {
                    if let (Some(d), Some(s)) = (
                        t.get_mut(usize::from(c.shift / 8)),
                        p.get(usize::from(c.dest)),
                    ) {
                        *d = *s;
                    }
                }
            }
        }
        Some(_) => {
            let px = img.to_rgba16();
            for (p, t) in px.as_raw().chunks_exact(4).zip(out.chunks_exact_mut(texel)) {
                for c in format.channels() {
                    let at = usize::from(c.shift / 8);
                    if let (Some(d), Some(s)) = (t.get_mut(at..at + 2), p.get(usize::from(c.dest)))
                    {
                        d.copy_from_slice(&s.to_le_bytes());
                    }
                }
            }
        }
        None => {
            let px = img.to_rgba32f();
            for (p, t) in px.as_raw().chunks_exact(4).zip(out.chunks_exact_mut(texel)) {
                let v = [p[0], p[1], p[2], p[3]].map(f32::to_bits);
                format.encode(v, 0xf, t);
            }
        }
    }
    Ok(out)
}

/// The byte range of subresource `(mip, slice)` of `desc` in a texture's memory, and its
/// size in texels (`None` when out of range). For 3D textures `slice` is a depth plane.
pub fn subresource_range(desc: &TextureDesc, mip: u32, slice: u32) -> Option<(u64, u64, [u32; 3])> {
    if mip >= desc.mips {
        return None;
    }
    let size = desc.mip_size(mip);
    let (array_slice, plane) = if desc.dim == TextureDim::Tex3D {
        (0, slice)
    } else {
        (slice, 0)
    };
    if array_slice >= desc.array_size() || plane >= size[2] {
        return None;
    }
    let per_slice: u64 = (0..desc.mips).map(|m| desc.subresource_bytes(m)).sum();
    let before: u64 = (0..mip).map(|m| desc.subresource_bytes(m)).sum();
    let start = u64::from(array_slice) * per_slice + before;
    let plane_bytes =
        desc.subresource_bytes(mip) / u64::from(size[2].max(1)) / u64::from(desc.samples.max(1));
    Some((start + u64::from(plane) * plane_bytes, plane_bytes, size))
}

/// The bytes of one subresource (one plane of a 3D mip, sample 0 of a multisampled one).
pub fn subresource_bytes(texture: &Texture, mip: u32, slice: u32) -> Result<Vec<u8>, String> {
    let desc = texture.desc();
    let (start, len, _) = subresource_range(desc, mip, slice).ok_or_else(|| {
        format!(
            "mip {mip}, slice {slice} is not a subresource of a {} with {} mips and {} slices",
            desc.dim.name(),
            desc.mips,
            if desc.dim == TextureDim::Tex3D {
                desc.depth_or_array_size
            } else {
                desc.array_size()
            }
        )
    })?;
    // Only the subresource is copied, into a buffer reserved fallibly.
    let mut out = Vec::new();
    out.try_reserve_exact(usize::try_from(len).unwrap_or(usize::MAX))
        .map_err(|_| format!("cannot reserve {len} bytes for mip {mip}, slice {slice}"))?;
    out.resize(len as usize, 0);
    if !texture.memory().read_bytes(start, &mut out) {
        return Err("texture too small".into());
    }
    Ok(out)
}

/// The most bytes [`encode_png`] holds at once for mip `mip` of a texture of `desc`: the
/// subresource's bytes, the image's samples and the encoded file (no larger than the
/// samples, with room for PNG's own bytes).
pub fn png_work_bytes(desc: &TextureDesc, mip: u32) -> u64 {
    let [w, h, _] = desc.mip_size(mip);
    let samples = u64::from(w) * u64::from(h) * 8;
    desc.subresource_bytes(mip)
        .saturating_add(samples.saturating_mul(2))
        .saturating_add(1 << 16)
}

/// Whether texels of `format` are, byte for byte, a PNG's 8-bit samples: four 8-bit
/// channels, R, G, B, A in that order (an RGBA PNG), or one 8-bit red channel (grey).
fn in_png_order(format: Format) -> bool {
    let ch = format.channels();
    let n = ch.len() as u64;
    png_depth(format) == Some(8)
        && (n == 4 || n == 1)
        && u64::from(format.bytes_per_texel()) == n
        && ch
            .iter()
            .all(|c| u16::from(c.shift) == 8 * u16::from(c.dest))
}

/// The PNG samples of `texels` (`count` texels of `format`, whose channels are all
/// `depth` bits): grey for a format with only a red channel, else RGBA with missing
/// colour channels 0 and missing alpha the maximum; 16-bit samples native-endian, as
/// `image` takes them.
fn png_samples(texels: &[u8], format: Format, depth: u8, count: usize) -> Result<Vec<u8>, String> {
    let texel = format.bytes_per_texel() as usize;
    let channels = format.channels();
    let grey = channels.len() == 1 && channels.first().is_some_and(|c| c.dest == 0);
    let step = usize::from(depth / 8);
    let comps = if grey { 1 } else { 4 };
    let mut out = Vec::new();
    let n = count * comps * step;
    out.try_reserve_exact(n)
        .map_err(|_| format!("cannot reserve {n} bytes for the PNG's samples"))?;
    let max = if step == 1 { [0xff, 0] } else { [0xff, 0xff] };
    for t in texels.chunks_exact(texel) {
        let mut px = [[0u8; 2]; 4];
        px[3] = max;
        for c in channels {
            let at = usize::from(c.shift / 8);
            if let (Some(d), Some(s)) = (px.get_mut(usize::from(c.dest)), t.get(at..at + step)) {
                d[..step].copy_from_slice(s);
            }
        }
        for p in px.iter().take(comps) {
            if step == 2 {
                out.extend_from_slice(&u16::from_le_bytes(*p).to_ne_bytes());
            } else {
                out.push(p[0]);
            }
        }
    }
    Ok(out)
}

/// Encodes subresource `(mip, slice)` of `texture` as a PNG (see the module doc).
pub fn encode_png(texture: &Texture, mip: u32, slice: u32) -> Result<Vec<u8>, String> {
    let format = texture.desc().format;
    let Some(depth) = png_depth(format) else {
        return Err(format!(
            "a .png needs a format of 8-bit or 16-bit UNORM or sRGB channels, not {format} (write .bin instead)"
        ));
    };
    let bytes = subresource_bytes(texture, mip, slice)?;
    let [w, h, _] = texture.desc().mip_size(mip);
    let channels = format.channels();
    let grey = channels.len() == 1 && channels.first().is_some_and(|c| c.dest == 0);
    let step = usize::from(depth / 8);
    let out = if in_png_order(format) {
        // The texels are the PNG's samples already: no second copy.
        bytes
    } else {
        png_samples(&bytes, format, depth, w as usize * h as usize)?
    };
    let color = match (grey, step) {
        (true, 1) => ExtendedColorType::L8,
        (true, _) => ExtendedColorType::L16,
        (false, 1) => ExtendedColorType::Rgba8,
        (false, _) => ExtendedColorType::Rgba16,
    };
    let mut png = Vec::new();
    image::codecs::png::PngEncoder::new(Cursor::new(&mut png))
        .write_image(&out, w, h, color)
        .map_err(|e| e.to_string())?;
    Ok(png)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tmp(name: &str) -> std::path::PathBuf {
        let dir = std::env::temp_dir().join(format!("dxlane-image-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        dir.join(name)
    }

    #[test]
    fn png_depths() {
        assert_eq!(png_depth(Format::R8G8B8A8_UNORM), Some(8));
        assert_eq!(png_depth(Format::B8G8R8A8_UNORM_SRGB), Some(8));
        assert_eq!(png_depth(Format::R16G16B16A16_UNORM), Some(16));
        assert_eq!(png_depth(Format::R16_UNORM), Some(16));
        assert_eq!(png_depth(Format::R16_FLOAT), None);
        assert_eq!(png_depth(Format::B5G6R5_UNORM), None);
        assert_eq!(png_depth(Format::R8G8B8A8_UINT), None);
        assert!(check_image_format(Format::R32G32B32A32_FLOAT).is_ok());
        assert!(check_image_format(Format::R8G8_SNORM).is_ok());
        assert!(check_image_format(Format::R32_UINT).is_err());
        assert!(check_image_format(Format::BC7_UNORM).is_err());
    }

    /// 16-bit PNGs round-trip bit for bit through R16G16B16A16_UNORM, a float format
    /// takes `v / 65535`, and UNORM8 narrowing rounds by D3D's rule.
    #[test]
    fn sixteen_bit_round_trip_and_conversions() {
        let desc = TextureDesc::tex2d(Format::R16G16B16A16_UNORM, 2, 1);
        let texels: Vec<u8> = [0x0102u16, 0xfffe, 0x8000, 0xffff, 1, 2, 3, 4]
            .iter()
            .flat_map(|v| v.to_le_bytes())
            .collect();
        let t = Texture::from_bytes(desc, &texels).unwrap();
        let png = encode_png(&t, 0, 0).unwrap();
        let f = tmp("rgba16.png");
        std::fs::write(&f, &png).unwrap();
        assert_eq!(
            read_texels(&f, Format::R16G16B16A16_UNORM, 2, 1).unwrap(),
            texels
        );
        let fl = read_texels(&f, Format::R32_FLOAT, 2, 1).unwrap();
        assert_eq!(
            f32::from_le_bytes([fl[0], fl[1], fl[2], fl[3]]),
            0x0102 as f32 / 65535.0
        );
        let half = read_texels(&f, Format::R16G16B16A16_FLOAT, 2, 1).unwrap();
        assert_eq!(u16::from_le_bytes([half[6], half[7]]), 0x3c00); // alpha 1.0
        assert!(read_texels(&f, Format::R8G8B8A8_UNORM, 3, 1).is_err());
        let not = tmp("not.png");
        std::fs::write(&not, b"not an image").unwrap();
        assert!(
            read_texels(&not, Format::R8G8B8A8_UNORM, 2, 1)
                .unwrap_err()
                .contains("not an image")
        );
    }

    /// The formats whose texels are a PNG's 8-bit samples as they are (R, G, B, A bytes
    /// in that order, or grey) go to the encoder without a pass over their channels: for
    /// them the pass gives back the texels unchanged, and for the other 8-bit formats it
    /// does not.
    #[test]
    fn texels_in_png_order_are_the_samples() {
        let texels: Vec<u8> = (0..64u8).map(|b| b.wrapping_mul(37)).collect();
        let direct = [
            Format::R8G8B8A8_UNORM,
            Format::R8G8B8A8_UNORM_SRGB,
            Format::R8_UNORM,
        ];
        for f in direct {
            assert!(in_png_order(f), "{f}");
            let count = texels.len() / f.bytes_per_texel() as usize;
            assert_eq!(png_samples(&texels, f, 8, count).unwrap(), texels, "{f}");
        }
        for f in [
            Format::B8G8R8A8_UNORM,
            Format::B8G8R8X8_UNORM,
            Format::R8G8_UNORM,
            Format::A8_UNORM,
        ] {
            assert!(!in_png_order(f), "{f}");
            let depth = png_depth(f).unwrap();
            let count = texels.len() / f.bytes_per_texel() as usize;
            assert_ne!(
                png_samples(&texels, f, depth, count).unwrap(),
                texels,
                "{f}"
            );
        }
        // The file is what the pass would have given the encoder.
        let desc = TextureDesc::tex2d(Format::R8G8B8A8_UNORM, 4, 4);
        let t = Texture::from_bytes(desc, &texels).unwrap();
        let img = image::load_from_memory(&encode_png(&t, 0, 0).unwrap())
            .unwrap()
            .to_rgba8();
        assert_eq!(img.as_raw(), &texels);
    }

    /// Subresources: mip 1 of slice 1 of an array, a plane of a 3D mip.
    #[test]
    fn subresource_ranges() {
        let desc = TextureDesc {
            dim: TextureDim::Tex2DArray,
            depth_or_array_size: 2,
            mips: 2,
            ..TextureDesc::tex2d(Format::R8_UNORM, 4, 2)
        };
        assert_eq!(
            subresource_range(&desc, 1, 1),
            Some((8 + 2 + 8, 2, [2, 1, 1]))
        );
        assert_eq!(subresource_range(&desc, 2, 0), None);
        assert_eq!(subresource_range(&desc, 0, 2), None);
        let d3 = TextureDesc {
            dim: TextureDim::Tex3D,
            depth_or_array_size: 4,
            ..TextureDesc::tex2d(Format::R8_UNORM, 2, 2)
        };
        assert_eq!(subresource_range(&d3, 0, 3), Some((12, 4, [2, 2, 4])));
        let t = Texture::from_bytes(desc, &(0..20).collect::<Vec<u8>>()).unwrap();
        assert_eq!(subresource_bytes(&t, 1, 1).unwrap(), vec![18, 19]);
        let png = encode_png(&t, 1, 1).unwrap();
        let img = image::load_from_memory(&png).unwrap().to_luma8();
        assert_eq!(img.as_raw(), &vec![18, 19]);
    }
}
