//! BC4 and BC5 channels, and BC3's alpha (D3D11.3 §19.5.8–§19.5.12).
//!
//! A channel block is two 8-bit endpoints and sixteen 3-bit codes (48 bits, texel 0
//! lowest). Endpoints convert to float as UNORM8 or SNORM8 (§3.2.3; both −128 and −127
//! read −1.0). When `red_0 > red_1` (unsigned compare for UNORM, signed for SNORM) codes
//! 2–7 interpolate six values `((8 − k) r0 + (k − 1) r1) / 7`; otherwise codes 2–5
//! interpolate four `/ 5` and codes 6, 7 are the range's ends (0 or −1, and 1). The
//! arithmetic is the reference's, in `f32`, in its order: each weight times its endpoint,
//! the sum, then the division.

use super::super::format::{snorm_to_float, unorm_to_float};

/// Texel `i` of a BC4 channel block, UNORM or SNORM.
pub fn decode_channel(b: &[u8; 8], i: usize, signed: bool) -> f32 {
    let codes = u64::from_le_bytes(*b) >> 16;
    let code = ((codes >> (3 * i)) & 7) as u32;
    let (r0, r1, six) = if signed {
        let (s0, s1) = (b[0] as i8, b[1] as i8);
        (
            snorm_to_float(u32::from(b[0]), 8),
            snorm_to_float(u32::from(b[1]), 8),
            s0 > s1,
        )
    } else {
        (
            unorm_to_float(u32::from(b[0]), 8),
            unorm_to_float(u32::from(b[1]), 8),
            b[0] > b[1],
        )
    };
    match code {
        0 => r0,
        1 => r1,
        k if six => ((8 - k) as f32 * r0 + (k - 1) as f32 * r1) / 7.0,
        6 => {
            if signed {
                -1.0
            } else {
                0.0
            }
        }
        7 => 1.0,
        k => ((6 - k) as f32 * r0 + (k - 1) as f32 * r1) / 5.0,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(r0: u8, r1: u8, codes: [u8; 16]) -> [u8; 8] {
        let mut bits = 0u64;
        for (i, c) in codes.iter().enumerate() {
            bits |= u64::from(c & 7) << (3 * i);
        }
        let mut b = (bits << 16).to_le_bytes();
        b[0] = r0;
        b[1] = r1;
        b
    }

    /// §19.5.9: eight-value block (red_0 > red_1), endpoints exact.
    #[test]
    fn unorm_eight_values() {
        let mut codes = [0u8; 16];
        for (i, c) in codes.iter_mut().enumerate() {
            *c = (i % 8) as u8;
        }
        let b = block(255, 0, codes);
        assert_eq!(decode_channel(&b, 0, false), 1.0);
        assert_eq!(decode_channel(&b, 1, false), 0.0);
        assert_eq!(decode_channel(&b, 2, false), 6.0 / 7.0);
        assert_eq!(decode_channel(&b, 7, false), 1.0 / 7.0);
        assert_eq!(decode_channel(&b, 15, false), 1.0 / 7.0);
    }

    /// §19.5.9: six-value block (red_0 <= red_1): codes 6 and 7 are exactly 0 and 1.
    #[test]
    fn unorm_six_values() {
        let mut codes = [0u8; 16];
        for (i, c) in codes.iter_mut().enumerate() {
            *c = (i % 8) as u8;
        }
        let b = block(0, 255, codes);
        assert_eq!(decode_channel(&b, 2, false), 1.0 / 5.0);
        assert_eq!(decode_channel(&b, 5, false), 4.0 / 5.0);
        assert_eq!(decode_channel(&b, 6, false), 0.0);
        assert_eq!(decode_channel(&b, 7, false), 1.0);
    }

    /// §19.5.10: SNORM endpoints (−128 and −127 both −1.0), signed compare, codes 6 and 7
    /// exactly −1 and 1.
    #[test]
    fn snorm_block() {
        let mut codes = [0u8; 16];
        for (i, c) in codes.iter_mut().enumerate() {
            *c = (i % 8) as u8;
        }
        // 127 > −128 signed: an eight-value block.
        let b = block(0x7f, 0x80, codes);
        assert_eq!(decode_channel(&b, 0, true), 1.0);
        assert_eq!(decode_channel(&b, 1, true), -1.0);
        assert_eq!(decode_channel(&b, 2, true), (6.0 - 1.0) / 7.0);
        // −127 < 1 signed (but 0x81 > 0x01 unsigned): six values.
        let b = block(0x81, 0x01, codes);
        assert_eq!(decode_channel(&b, 0, true), -1.0);
        assert_eq!(decode_channel(&b, 6, true), -1.0);
        assert_eq!(decode_channel(&b, 7, true), 1.0);
        // The same bytes unsigned are an eight-value block.
        assert_ne!(decode_channel(&b, 7, false), 1.0);
    }
}
