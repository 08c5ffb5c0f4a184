//! PNG texture data and outputs of mip 0, slice 0 (`data = { file = "x.png" }`,
//! `output = "x.png"`): the subresource forms of [`super::image_io`] applied to the first
//! subresource.

use std::path::Path;

use crate::resources::{Format, Texture, TextureDesc};

use super::image_io;

/// Whether texels of `format` can be written to PNG (8- or 16-bit UNORM or sRGB channels).
pub fn is_png_format(format: Format) -> bool {
    image_io::png_depth(format).is_some()
}

/// Reads `file` (any image the `image` crate reads) as the texels of mip 0 of slice 0 of
/// a texture described by `desc`.
pub fn read_texels(file: &Path, desc: &TextureDesc) -> Result<Vec<u8>, String> {
    image_io::read_texels(file, desc.format, desc.width, desc.height)
}

/// Encodes mip 0 of slice 0 of `texture` as a PNG.
pub fn encode(texture: &Texture) -> Result<Vec<u8>, String> {
    image_io::encode_png(texture, 0, 0)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn png_formats() {
        assert!(is_png_format(Format::R8G8B8A8_UNORM));
        assert!(is_png_format(Format::B8G8R8A8_UNORM_SRGB));
        assert!(is_png_format(Format::R8_UNORM));
        assert!(is_png_format(Format::R16_UNORM));
        assert!(!is_png_format(Format::R8G8B8A8_UINT));
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
