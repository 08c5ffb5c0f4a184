//! PNG images as texture data and texture outputs.
//!
//! Rule: only textures whose channels are all 8-bit UNORM or sRGB take PNG data or write
//! PNG outputs, and only mip 0 of slice 0 (sample 0 of a multisampled texture, plane 0
//! of a 3D one) — the first `width × height` texels of the texture's memory. Bytes are
//! copied as they are, with no conversion: each channel of the format takes the PNG's
//! R, G, B or A byte by the component it decodes to (so `B8G8R8A8_UNORM` texels get the
//! PNG's blue byte first). On output, a format with only a red channel gives a grey PNG;
//! any other gives RGBA, missing colour channels 0 and missing alpha 255.

use std::io::Cursor;
use std::path::Path;

use image::{ExtendedColorType, ImageEncoder, ImageFormat};

use crate::resources::format::Num;
use crate::resources::{Format, Texture, TextureDesc};

/// Whether texels of `format` can be read from or written to PNG.
pub fn is_png_format(format: Format) -> bool {
    let ch = format.channels();
    !ch.is_empty()
        && ch
            .iter()
            .all(|c| c.bits == 8 && c.shift % 8 == 0 && matches!(c.num, Num::UNorm | Num::Srgb))
}

/// Reads `file` and lays its pixels out as the texels of mip 0 of slice 0 of a texture
/// described by `desc`.
pub fn read_texels(file: &Path, desc: &TextureDesc) -> Result<Vec<u8>, String> {
    if !is_png_format(desc.format) {
        return Err(format!(
            "a .png file can fill only textures of 8-bit UNORM or sRGB channels, not {}",
            desc.format
        ));
    }
    let bytes = std::fs::read(file).map_err(|e| format!("{}: {e}", file.display()))?;
    let img = image::load_from_memory_with_format(&bytes, ImageFormat::Png)
        .map_err(|e| format!("{}: {e}", file.display()))?
        .to_rgba8();
    if (img.width(), img.height()) != (desc.width, desc.height) {
        return Err(format!(
            "{} is {}×{} but the texture is {}×{}",
            file.display(),
            img.width(),
            img.height(),
            desc.width,
            desc.height
        ));
    }
    let texel = desc.format.bytes_per_texel() as usize;
    let mut out = vec![0u8; img.as_raw().len() / 4 * texel];
    for (px, t) in img
        .as_raw()
        .chunks_exact(4)
        .zip(out.chunks_exact_mut(texel))
    {
        for c in desc.format.channels() {
            if let (Some(dst), Some(src)) = (
                t.get_mut(usize::from(c.shift / 8)),
                px.get(usize::from(c.dest)),
            ) {
                *dst = *src;
            }
        }
    }
    Ok(out)
}

/// Encodes mip 0 of slice 0 of `texture` as a PNG.
pub fn encode(texture: &Texture) -> Result<Vec<u8>, String> {
    let desc = texture.desc();
    if !is_png_format(desc.format) {
        return Err(format!(
            "a .png output needs a texture of 8-bit UNORM or sRGB channels, not {} (write .bin instead)",
            desc.format
        ));
    }
    let texel = desc.format.bytes_per_texel() as usize;
    let n = desc.width as usize * desc.height as usize;
    let bytes = texture.to_bytes();
    let texels = bytes.get(..n * texel).ok_or("texture too small")?;
    let channels = desc.format.channels();
    let grey = channels.len() == 1 && channels.first().is_some_and(|c| c.dest == 0);
    let mut out = Vec::with_capacity(n * if grey { 1 } else { 4 });
    for t in texels.chunks_exact(texel) {
        let mut rgba = [0u8, 0, 0, 255];
        for c in channels {
            if let (Some(dst), Some(src)) = (
                rgba.get_mut(usize::from(c.dest)),
                t.get(usize::from(c.shift / 8)),
            ) {
                *dst = *src;
            }
        }
        if grey {
            out.push(rgba[0]);
        } else {
            out.extend_from_slice(&rgba);
        }
    }
    let mut png = Vec::new();
    let color = if grey {
        ExtendedColorType::L8
    } else {
        ExtendedColorType::Rgba8
    };
    image::codecs::png::PngEncoder::new(Cursor::new(&mut png))
        .write_image(&out, desc.width, desc.height, color)
        .map_err(|e| e.to_string())?;
    Ok(png)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_formats() {
        assert!(is_png_format(Format::R8G8B8A8_UNORM));
        assert!(is_png_format(Format::B8G8R8A8_UNORM_SRGB));
        assert!(is_png_format(Format::R8_UNORM));
        assert!(!is_png_format(Format::R8G8B8A8_UINT));
        assert!(!is_png_format(Format::R16_UNORM));
        assert!(!is_png_format(Format::R32_FLOAT));
    }

    /// BGRA texels take the PNG's blue byte first, and give it back the same way.
    #[test]
    fn bgra_round_trip() {
        let desc = TextureDesc::tex2d(Format::B8G8R8A8_UNORM, 2, 1);
        let t = Texture::from_bytes(desc, &[1, 2, 3, 4, 5, 6, 7, 8]).unwrap();
        let png = encode(&t).unwrap();
        let dir = std::env::temp_dir().join(format!("dxlane-png-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let f = dir.join("x.png");
        std::fs::write(&f, &png).unwrap();
        let rgba = image::open(&f).unwrap().to_rgba8();
        assert_eq!(rgba.as_raw(), &vec![3, 2, 1, 4, 7, 6, 5, 8]);
        assert_eq!(
            read_texels(&f, &desc).unwrap(),
            vec![1, 2, 3, 4, 5, 6, 7, 8]
        );
        std::fs::remove_dir_all(&dir).ok();
    }
}
