//! BC1, BC2 and BC3 colour, and BC2's explicit alpha (D3D11.3 §19.5.6–§19.5.8).
//!
//! A colour block is two RGB 5:6:5 endpoints (little-endian `u16`s) and sixteen 2-bit
//! codes. The endpoints are promoted to 8 bits by replicating their high bits (§19.5.3);
//! codes 2 and 3 select `(2 c0 + c1) / 3` and `(c0 + 2 c1) / 3`, or, in a BC1 block whose
//! first endpoint is not above the second (unsigned compare), `(c0 + c1) / 2` and
//! transparent black. Each interpolated value is computed exactly as a rational of the
//! promoted 8-bit values and rounded once to `f32` (the reference's arithmetic; §19.5.2
//! allows `1/255 + 3 %` of the endpoint distance either way).

use super::super::format::unorm_to_float;

/// §19.5.3: UNORM promotion by MSB replication (`5 → 8` and `6 → 8` bits).
pub fn promote(v: u32, bits: u32) -> u32 {
    let v = v & ((1 << bits) - 1);
    (v << (8 - bits)) | (v >> (2 * bits - 8))
}

fn endpoints(c: u16) -> [u32; 3] {
    let c = u32::from(c);
    [promote(c >> 11, 5), promote(c >> 5, 6), promote(c, 5)]
}

/// RGB (and alpha) of texel `i` of a colour block; `four` forces the four-colour
/// interpretation (BC2 and BC3 colour, §19.5.7).
pub fn decode_color(b: &[u8; 8], i: usize, four: bool) -> [f32; 4] {
    let c0 = u16::from_le_bytes([b[0], b[1]]);
    let c1 = u16::from_le_bytes([b[2], b[3]]);
    let codes = u32::from_le_bytes([b[4], b[5], b[6], b[7]]);
    let code = (codes >> (2 * i)) & 3;
    let (p0, p1) = (endpoints(c0), endpoints(c1));
    let mut out = [0f32; 4];
    out[3] = 1.0;
    let four = four || c0 > c1;
    for k in 0..3 {
        out[k] = match (code, four) {
            (0, _) => unorm_to_float(p0[k], 8),
            (1, _) => unorm_to_float(p1[k], 8),
            (2, true) => (2 * p0[k] + p1[k]) as f32 / 765.0,
            (3, true) => (p0[k] + 2 * p1[k]) as f32 / 765.0,
            (2, false) => (p0[k] + p1[k]) as f32 / 510.0,
            _ => 0.0,
        };
    }
    if code == 3 && !four {
        out[3] = 0.0;
    }
    out
}

/// BC1 (§19.5.6): one colour block, 1-bit alpha through the three-colour mode.
pub fn decode_bc1(b: &[u8; 8], i: usize) -> [f32; 4] {
    decode_color(b, i, false)
}

/// BC2 alpha (§19.5.7): sixteen explicit 4-bit values, `alpha / 15`.
pub fn decode_bc2_alpha(b: &[u8; 8], i: usize) -> f32 {
    let a = u64::from_le_bytes(*b);
    unorm_to_float(((a >> (4 * i)) & 15) as u32, 4)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn block(c0: u16, c1: u16, codes: u32) -> [u8; 8] {
        let mut b = [0u8; 8];
        b[0..2].copy_from_slice(&c0.to_le_bytes());
        b[2..4].copy_from_slice(&c1.to_le_bytes());
        b[4..8].copy_from_slice(&codes.to_le_bytes());
        b
    }

    /// §19.5.3: promotion replicates the most significant bits.
    #[test]
    fn promotion() {
        assert_eq!(promote(31, 5), 255);
        assert_eq!(promote(0, 5), 0);
        assert_eq!(promote(16, 5), 132);
        assert_eq!(promote(63, 6), 255);
        assert_eq!(promote(32, 6), 130);
    }

    /// §19.5.6: four-colour block (c0 > c1): codes 0..3 give c0, c1, 2/3 c0 + 1/3 c1,
    /// 1/3 c0 + 2/3 c1; endpoints and 0/1 are exact.
    #[test]
    fn four_colour_block() {
        // c0 = white, c1 = black.
        let b = block(0xffff, 0x0000, 0b11_10_01_00);
        assert_eq!(decode_bc1(&b, 0), [1.0, 1.0, 1.0, 1.0]);
        assert_eq!(decode_bc1(&b, 1), [0.0, 0.0, 0.0, 1.0]);
        assert_eq!(decode_bc1(&b, 2), [2.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0, 1.0]);
        assert_eq!(decode_bc1(&b, 3)[0], 1.0 / 3.0);
    }

    /// §19.5.6: three-colour block (c0 <= c1): code 2 is the midpoint, code 3 transparent
    /// black; BC2/BC3 colour always uses four colours.
    #[test]
    fn three_colour_block_and_transparent_black() {
        let b = block(0x0000, 0xffff, 0b11_10_01_00);
        assert_eq!(decode_bc1(&b, 2), [0.5, 0.5, 0.5, 1.0]);
        assert_eq!(decode_bc1(&b, 3), [0.0, 0.0, 0.0, 0.0]);
        assert_eq!(
            decode_color(&b, 3, true),
            [2.0 / 3.0, 2.0 / 3.0, 2.0 / 3.0, 1.0]
        );
        // Equal endpoints are a three-colour block too.
        let b = block(0x1234, 0x1234, 0b11 << 30);
        assert_eq!(decode_bc1(&b, 15)[3], 0.0);
    }

    /// §19.5.6 bit layout: red is the top five bits of a 5:6:5 endpoint.
    #[test]
    fn channel_layout() {
        let b = block(0xf800, 0x07e0, 0b01 << 2);
        assert_eq!(decode_bc1(&b, 0), [1.0, 0.0, 0.0, 1.0]);
        assert_eq!(decode_bc1(&b, 1), [0.0, 1.0, 0.0, 1.0]);
    }

    /// §19.5.7: BC2 alpha is `a / 15`, four bits per texel, texel 0 lowest.
    #[test]
    fn explicit_alpha() {
        let a = 0xf000_0000_0000_0005u64.to_le_bytes();
        assert_eq!(decode_bc2_alpha(&a, 0), 5.0 / 15.0);
        assert_eq!(decode_bc2_alpha(&a, 15), 1.0);
        assert_eq!(decode_bc2_alpha(&a, 7), 0.0);
    }
}
