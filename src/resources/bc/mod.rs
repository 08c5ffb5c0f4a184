//! Block-compressed formats (BC1–BC7): decoding one texel of a 4×4 block, as the
//! D3D11.3 functional specification §19.5 ("Block Compression Formats") defines it.
//!
//! Owns: the per-family decoders ([`bc1`]: BC1–BC3 colour and BC2 alpha, [`bc4`]: BC4,
//! BC5 and BC3 alpha, [`bc6h`], [`bc7`]). Each decodes texel `i` (0..16, row-major within
//! the block: `i = x + 4 y`) of one block into four `f32` values, before any sRGB
//! conversion (the caller linearises sRGB formats, §19.5.6 "BC1G").
//!
//! Does not own: where blocks sit in a texture (see `texture`), filtering (decoded texels
//! are filtered like any other, §19.5.1: "Decompression always occurs before filtering").
//!
//! # Precision
//!
//! §19.5.2 lets BC1–BC5 decoders differ from the reference within
//! `absolute_error + 0.03 × |endpoint_0 − endpoint_1|`; values the reference decodes to
//! 0, 1 or −1 are exact. These decoders compute the reference's expressions literally in
//! `f32` (each interpolated palette entry one correctly rounded quotient for BC1–BC3, the
//! spec's sequence of `f32` operations for BC4/BC5). BC6H and BC7 are bit-exact
//! (§19.5.2: "decompression hardware is required to be bit accurate"). Reserved modes
//! decode to (0, 0, 0, 1) for BC6H (§19.5.13.3) and (0, 0, 0, 0) for BC7 (§19.5.14.4,
//! "Mode 8").

pub mod bc1;
pub mod bc4;
pub mod bc6h;
pub mod bc7;

/// A block-compressed family and its numeric interpretation.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlockKind {
    /// BC1: RGB 5:6:5 endpoints, 1-bit alpha (UNORM).
    Bc1,
    /// BC2: BC1 colour (always four colours) and explicit 4-bit alpha.
    Bc2,
    /// BC3: BC1 colour and BC4-style interpolated alpha.
    Bc3,
    /// BC4: one channel, UNORM or SNORM.
    Bc4 {
        /// SNORM endpoints.
        signed: bool,
    },
    /// BC5: two independent BC4 channels.
    Bc5 {
        /// SNORM endpoints.
        signed: bool,
    },
    /// BC6H: HDR RGB halves, unsigned (UF16) or signed (SF16).
    Bc6h {
        /// SF16.
        signed: bool,
    },
    /// BC7: RGBA 8-bit with partitions and modes.
    Bc7,
}

impl BlockKind {
    /// Bytes of one 4×4 block.
    pub fn block_bytes(self) -> usize {
        match self {
            BlockKind::Bc1 | BlockKind::Bc4 { .. } => 8,
            _ => 16,
        }
    }

    /// Decodes texel `i` (`x + 4 y`, taken modulo 16) of `block` (shorter blocks read
    /// their missing bytes as 0) into RGBA floats; missing channels are (0, 0, 0, 1).
    pub fn decode_texel(self, block: &[u8], i: usize) -> [f32; 4] {
        let mut b = [0u8; 16];
        let n = block.len().min(self.block_bytes());
        b[..n].copy_from_slice(&block[..n]);
        let i = i & 15;
        match self {
            BlockKind::Bc1 => bc1::decode_bc1(first8(&b), i),
            BlockKind::Bc2 => {
                let rgb = bc1::decode_color(second8(&b), i, true);
                [rgb[0], rgb[1], rgb[2], bc1::decode_bc2_alpha(first8(&b), i)]
            }
            BlockKind::Bc3 => {
                let rgb = bc1::decode_color(second8(&b), i, true);
                [
                    rgb[0],
                    rgb[1],
                    rgb[2],
                    bc4::decode_channel(first8(&b), i, false),
                ]
            }
            BlockKind::Bc4 { signed } => {
                [bc4::decode_channel(first8(&b), i, signed), 0.0, 0.0, 1.0]
            }
            BlockKind::Bc5 { signed } => [
                bc4::decode_channel(first8(&b), i, signed),
                bc4::decode_channel(second8(&b), i, signed),
                0.0,
                1.0,
            ],
            BlockKind::Bc6h { signed } => bc6h::decode(&b, i, signed),
            BlockKind::Bc7 => {
                let t = bc7::decode(&b, i);
                t.map(|c| f32::from(c) / 255.0)
            }
        }
    }
}

fn first8(b: &[u8; 16]) -> &[u8; 8] {
    let (a, _) = b.split_first_chunk::<8>().unwrap_or((&[0; 8], &[]));
    a
}

fn second8(b: &[u8; 16]) -> &[u8; 8] {
    let (_, a) = b.split_last_chunk::<8>().unwrap_or((&[], &[0; 8]));
    a
}

/// A 128-bit block read as a little-endian bit stream (bit 0 is the lowest bit of byte 0).
#[derive(Debug, Clone, Copy)]
pub(crate) struct Bits(pub u128);

impl Bits {
    /// `n` (≤ 32) bits starting at bit `at`; bits past 127 read as 0.
    #[inline]
    pub fn get(self, at: u32, n: u32) -> u32 {
        if at >= 128 || n == 0 {
            return 0;
        }
        let v = (self.0 >> at) as u32;
        if n >= 32 { v } else { v & ((1u32 << n) - 1) }
    }
}

/// BC7's and BC6H's interpolation weights (§19.5.13.8, §19.5.14.3).
pub(crate) const WEIGHTS2: [u32; 4] = [0, 21, 43, 64];
pub(crate) const WEIGHTS3: [u32; 8] = [0, 9, 18, 27, 37, 46, 55, 64];
pub(crate) const WEIGHTS4: [u32; 16] =
    [0, 4, 9, 13, 17, 21, 26, 30, 34, 38, 43, 47, 51, 55, 60, 64];

/// The weight of index `index` for `bits`-bit indices.
#[inline]
pub(crate) fn weight(bits: u32, index: u32) -> u32 {
    let i = index as usize;
    match bits {
        2 => WEIGHTS2.get(i).copied().unwrap_or(0),
        3 => WEIGHTS3.get(i).copied().unwrap_or(0),
        _ => WEIGHTS4.get(i).copied().unwrap_or(0),
    }
}

/// BC6H's and BC7's partition table for two subsets (the first 32 rows serve BC6H,
/// §19.5.13.4): subset of each texel, `i = x + 4 y`, two bits per texel.
pub(crate) const PARTITIONS2: [[u8; 16]; 64] = [
    [0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1],
    [0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1],
    [0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1],
    [0, 0, 0, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 1, 1, 1],
    [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 1, 1],
    [0, 0, 1, 1, 0, 1, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1],
    [0, 0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1],
    [0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 1],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1],
    [0, 0, 1, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    [0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 1, 1, 1],
    [0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1],
    [0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1],
    [0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1, 1],
    [0, 1, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0],
    [0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0],
    [0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0],
    [0, 0, 0, 0, 0, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0],
    [0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 1],
    [0, 0, 1, 1, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 0],
    [0, 0, 0, 0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 0, 0],
    [0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0],
    [0, 0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0, 1, 1, 0, 0],
    [0, 0, 0, 1, 0, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0, 0],
    [0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0],
    [0, 1, 1, 1, 0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 1, 0],
    [0, 0, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 0],
    [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1],
    [0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1],
    [0, 1, 0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 0],
    [0, 0, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0],
    [0, 0, 1, 1, 1, 1, 0, 0, 0, 0, 1, 1, 1, 1, 0, 0],
    [0, 1, 0, 1, 0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0],
    [0, 1, 1, 0, 1, 0, 0, 1, 0, 1, 1, 0, 1, 0, 0, 1],
    [0, 1, 0, 1, 1, 0, 1, 0, 1, 0, 1, 0, 0, 1, 0, 1],
    [0, 1, 1, 1, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 1, 0],
    [0, 0, 0, 1, 0, 0, 1, 1, 1, 1, 0, 0, 1, 0, 0, 0],
    [0, 0, 1, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 1, 0, 0],
    [0, 0, 1, 1, 1, 0, 1, 1, 1, 1, 0, 1, 1, 1, 0, 0],
    [0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 0, 1, 0, 1, 1, 0],
    [0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 1, 1],
    [0, 1, 1, 0, 0, 1, 1, 0, 1, 0, 0, 1, 1, 0, 0, 1],
    [0, 0, 0, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 0, 0, 0],
    [0, 1, 0, 0, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0, 0],
    [0, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1, 0, 0, 0, 0, 0],
    [0, 0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1, 0],
    [0, 0, 0, 0, 0, 1, 0, 0, 1, 1, 1, 0, 0, 1, 0, 0],
    [0, 1, 1, 0, 1, 1, 0, 0, 1, 0, 0, 1, 0, 0, 1, 1],
    [0, 0, 1, 1, 0, 1, 1, 0, 1, 1, 0, 0, 1, 0, 0, 1],
    [0, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0],
    [0, 0, 1, 1, 1, 0, 0, 1, 1, 1, 0, 0, 0, 1, 1, 0],
    [0, 1, 1, 0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 0, 0, 1],
    [0, 1, 1, 0, 0, 0, 1, 1, 0, 0, 1, 1, 1, 0, 0, 1],
    [0, 1, 1, 1, 1, 1, 1, 0, 1, 0, 0, 0, 0, 0, 0, 1],
    [0, 0, 0, 1, 1, 0, 0, 0, 1, 1, 1, 0, 0, 1, 1, 1],
    [0, 0, 0, 0, 1, 1, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1],
    [0, 0, 1, 1, 0, 0, 1, 1, 1, 1, 1, 1, 0, 0, 0, 0],
    [0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 1, 0, 1, 1, 1, 0],
    [0, 1, 0, 0, 0, 1, 0, 0, 0, 1, 1, 1, 0, 1, 1, 1],
];

/// The fix-up (anchor) texel of subset 1 for each two-subset partition.
pub(crate) const ANCHOR2: [u8; 64] = [
    15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, 15, //
    15, 2, 8, 2, 2, 8, 8, 15, 2, 8, 2, 2, 8, 8, 2, 2, //
    15, 15, 6, 8, 2, 8, 15, 15, 2, 8, 2, 2, 2, 15, 15, 6, //
    6, 2, 6, 8, 15, 15, 2, 2, 15, 15, 15, 15, 15, 2, 2, 15,
];

#[cfg(test)]
mod tests {
    use super::*;

    /// §19.5.13.4 / §19.5.14.5: texel 0 is always in subset 0, and each anchor lies in
    /// the subset it anchors (a check on the tables' transcription).
    #[test]
    fn partition_tables_are_consistent() {
        for (p, row) in PARTITIONS2.iter().enumerate() {
            assert_eq!(row[0], 0, "partition {p}");
            assert_eq!(row[usize::from(ANCHOR2[p])], 1, "partition {p}");
            assert!(row.contains(&1));
        }
        for (p, row) in bc7::PARTITIONS3.iter().enumerate() {
            assert_eq!(row[0], 0, "partition {p}");
            assert_eq!(row[usize::from(bc7::ANCHOR3[p][0])], 1, "partition {p}");
            assert_eq!(row[usize::from(bc7::ANCHOR3[p][1])], 2, "partition {p}");
        }
    }

    #[test]
    fn bit_reader() {
        let b = Bits(0xfedc_ba98_7654_3210_u128 | (0xabu128 << 120));
        assert_eq!(b.get(0, 4), 0);
        assert_eq!(b.get(4, 8), 0x21);
        assert_eq!(b.get(120, 8), 0xab);
        assert_eq!(b.get(124, 8), 0xa);
        assert_eq!(b.get(200, 8), 0);
    }
}
