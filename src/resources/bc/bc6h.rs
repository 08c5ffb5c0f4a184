//! BC6H: high-dynamic-range RGB halves, UF16 or SF16 (D3D11.3 §19.5.13).
//!
//! A block is a mode (2 or 5 bits), compressed endpoints, for two-region modes a 5-bit
//! partition, and indices: 3 bits per texel in two-region blocks (46 bits from bit 82),
//! 4 bits in one-region blocks (63 bits from bit 65), the fix-up texel of each region one
//! bit shorter (§19.5.13.4). Endpoints are sign-extended (§19.5.13.6), delta-decoded with
//! wrap-around in the base endpoint's precision (§19.5.13.7), unquantised, interpolated
//! with 6-bit weights in 17-bit signed arithmetic and scaled into half range
//! (§19.5.13.8–§19.5.13.10); the result is a half, returned as `f32`. Reserved modes
//! decode to (0, 0, 0, 1) (§19.5.13.3). Alpha is always 1.

use super::super::format::small_float_to_f32;
use super::{ANCHOR2, Bits, PARTITIONS2, weight};

// Endpoint fields, `channel × 4 + endpoint`: w = endpt[0].A, x = endpt[0].B,
// y = endpt[1].A, z = endpt[1].B (§19.5.13.5's field table).
const RW: u8 = 0;
const RX: u8 = 1;
const RY: u8 = 2;
const RZ: u8 = 3;
const GW: u8 = 4;
const GX: u8 = 5;
const GY: u8 = 6;
const GZ: u8 = 7;
const BW: u8 = 8;
const BX: u8 = 9;
const BY: u8 = 10;
const BZ: u8 = 11;

/// One run of stream bits: `(field, first value bit, count)`, read least significant
/// bit first. Runs stored in reverse order in the format are written as single bits.
type Run = (u8, u8, u8);

/// A mode: whether endpoints are delta-coded, whether it has two regions, the base
/// precision, the delta precisions per channel, and the endpoint bit layout in stream
/// order after the mode bits.
struct Mode {
    transformed: bool,
    two: bool,
    prec: u32,
    delta: [u32; 3],
    layout: &'static [Run],
}

const M0: &[Run] = &[
    (GY, 4, 1),
    (BY, 4, 1),
    (BZ, 4, 1),
    (RW, 0, 10),
    (GW, 0, 10),
    (BW, 0, 10),
    (RX, 0, 5),
    (GZ, 4, 1),
    (GY, 0, 4),
    (GX, 0, 5),
    (BZ, 0, 1),
    (GZ, 0, 4),
    (BX, 0, 5),
    (BZ, 1, 1),
    (BY, 0, 4),
    (RY, 0, 5),
    (BZ, 2, 1),
    (RZ, 0, 5),
    (BZ, 3, 1),
];
const M1: &[Run] = &[
    (GY, 5, 1),
    (GZ, 4, 1),
    (GZ, 5, 1),
    (RW, 0, 7),
    (BZ, 0, 1),
    (BZ, 1, 1),
    (BY, 4, 1),
    (GW, 0, 7),
    (BY, 5, 1),
    (BZ, 2, 1),
    (GY, 4, 1),
    (BW, 0, 7),
    (BZ, 3, 1),
    (BZ, 5, 1),
    (BZ, 4, 1),
    (RX, 0, 6),
    (GY, 0, 4),
    (GX, 0, 6),
    (GZ, 0, 4),
    (BX, 0, 6),
    (BY, 0, 4),
    (RY, 0, 6),
    (RZ, 0, 6),
];
const M2: &[Run] = &[
    (RW, 0, 10),
    (GW, 0, 10),
    (BW, 0, 10),
    (RX, 0, 5),
    (RW, 10, 1),
    (GY, 0, 4),
    (GX, 0, 4),
    (GW, 10, 1),
    (BZ, 0, 1),
    (GZ, 0, 4),
    (BX, 0, 4),
    (BW, 10, 1),
    (BZ, 1, 1),
    (BY, 0, 4),
    (RY, 0, 5),
    (BZ, 2, 1),
    (RZ, 0, 5),
    (BZ, 3, 1),
];
const M3: &[Run] = &[
    (RW, 0, 10),
    (GW, 0, 10),
    (BW, 0, 10),
    (RX, 0, 4),
    (RW, 10, 1),
    (GZ, 4, 1),
    (GY, 0, 4),
    (GX, 0, 5),
    (GW, 10, 1),
    (GZ, 0, 4),
    (BX, 0, 4),
    (BW, 10, 1),
    (BZ, 1, 1),
    (BY, 0, 4),
    (RY, 0, 4),
    (BZ, 0, 1),
    (BZ, 2, 1),
    (RZ, 0, 4),
    (GY, 4, 1),
    (BZ, 3, 1),
];
const M4: &[Run] = &[
    (RW, 0, 10),
    (GW, 0, 10),
    (BW, 0, 10),
    (RX, 0, 4),
    (RW, 10, 1),
    (BY, 4, 1),
    (GY, 0, 4),
    (GX, 0, 4),
    (GW, 10, 1),
    (BZ, 0, 1),
    (GZ, 0, 4),
    (BX, 0, 5),
    (BW, 10, 1),
    (BY, 0, 4),
    (RY, 0, 4),
    (BZ, 1, 1),
    (BZ, 2, 1),
    (RZ, 0, 4),
    (BZ, 4, 1),
    (BZ, 3, 1),
];
const M5: &[Run] = &[
    (RW, 0, 9),
    (BY, 4, 1),
    (GW, 0, 9),
    (GY, 4, 1),
    (BW, 0, 9),
    (BZ, 4, 1),
    (RX, 0, 5),
    (GZ, 4, 1),
    (GY, 0, 4),
    (GX, 0, 5),
    (BZ, 0, 1),
    (GZ, 0, 4),
    (BX, 0, 5),
    (BZ, 1, 1),
    (BY, 0, 4),
    (RY, 0, 5),
    (BZ, 2, 1),
    (RZ, 0, 5),
    (BZ, 3, 1),
];
const M6: &[Run] = &[
    (RW, 0, 8),
    (GZ, 4, 1),
    (BY, 4, 1),
    (GW, 0, 8),
    (BZ, 2, 1),
    (GY, 4, 1),
    (BW, 0, 8),
    (BZ, 3, 1),
    (BZ, 4, 1),
    (RX, 0, 6),
    (GY, 0, 4),
    (GX, 0, 5),
    (BZ, 0, 1),
    (GZ, 0, 4),
    (BX, 0, 5),
    (BZ, 1, 1),
    (BY, 0, 4),
    (RY, 0, 6),
    (RZ, 0, 6),
];
const M7: &[Run] = &[
    (RW, 0, 8),
    (BZ, 0, 1),
    (BY, 4, 1),
    (GW, 0, 8),
    (GY, 5, 1),
    (GY, 4, 1),
    (BW, 0, 8),
    (GZ, 5, 1),
    (BZ, 4, 1),
    (RX, 0, 5),
    (GZ, 4, 1),
    (GY, 0, 4),
    (GX, 0, 6),
    (GZ, 0, 4),
    (BX, 0, 5),
    (BZ, 1, 1),
    (BY, 0, 4),
    (RY, 0, 5),
    (BZ, 2, 1),
    (RZ, 0, 5),
    (BZ, 3, 1),
];
const M8: &[Run] = &[
    (RW, 0, 8),
    (BZ, 1, 1),
    (BY, 4, 1),
    (GW, 0, 8),
    (BY, 5, 1),
    (GY, 4, 1),
    (BW, 0, 8),
    (BZ, 5, 1),
    (BZ, 4, 1),
    (RX, 0, 5),
    (GZ, 4, 1),
    (GY, 0, 4),
    (GX, 0, 5),
    (BZ, 0, 1),
    (GZ, 0, 4),
    (BX, 0, 6),
    (BY, 0, 4),
    (RY, 0, 5),
    (BZ, 2, 1),
    (RZ, 0, 5),
    (BZ, 3, 1),
];
const M9: &[Run] = &[
    (RW, 0, 6),
    (GZ, 4, 1),
    (BZ, 0, 1),
    (BZ, 1, 1),
    (BY, 4, 1),
    (GW, 0, 6),
    (GY, 5, 1),
    (BY, 5, 1),
    (BZ, 2, 1),
    (GY, 4, 1),
    (BW, 0, 6),
    (GZ, 5, 1),
    (BZ, 3, 1),
    (BZ, 5, 1),
    (BZ, 4, 1),
    (RX, 0, 6),
    (GY, 0, 4),
    (GX, 0, 6),
    (GZ, 0, 4),
    (BX, 0, 6),
    (BY, 0, 4),
    (RY, 0, 6),
    (RZ, 0, 6),
];
const M10: &[Run] = &[
    (RW, 0, 10),
    (GW, 0, 10),
    (BW, 0, 10),
    (RX, 0, 10),
    (GX, 0, 10),
    (BX, 0, 10),
];
const M11: &[Run] = &[
    (RW, 0, 10),
    (GW, 0, 10),
    (BW, 0, 10),
    (RX, 0, 9),
    (RW, 10, 1),
    (GX, 0, 9),
    (GW, 10, 1),
    (BX, 0, 9),
    (BW, 10, 1),
];
const M12: &[Run] = &[
    (RW, 0, 10),
    (GW, 0, 10),
    (BW, 0, 10),
    (RX, 0, 8),
    (RW, 11, 1),
    (RW, 10, 1),
    (GX, 0, 8),
    (GW, 11, 1),
    (GW, 10, 1),
    (BX, 0, 8),
    (BW, 11, 1),
    (BW, 10, 1),
];
const M13: &[Run] = &[
    (RW, 0, 10),
    (GW, 0, 10),
    (BW, 0, 10),
    (RX, 0, 4),
    (RW, 15, 1),
    (RW, 14, 1),
    (RW, 13, 1),
    (RW, 12, 1),
    (RW, 11, 1),
    (RW, 10, 1),
    (GX, 0, 4),
    (GW, 15, 1),
    (GW, 14, 1),
    (GW, 13, 1),
    (GW, 12, 1),
    (GW, 11, 1),
    (GW, 10, 1),
    (BX, 0, 4),
    (BW, 15, 1),
    (BW, 14, 1),
    (BW, 13, 1),
    (BW, 12, 1),
    (BW, 11, 1),
    (BW, 10, 1),
];

const fn two(prec: u32, delta: [u32; 3], layout: &'static [Run]) -> Mode {
    Mode {
        transformed: true,
        two: true,
        prec,
        delta,
        layout,
    }
}

const fn one(prec: u32, delta: u32, transformed: bool, layout: &'static [Run]) -> Mode {
    Mode {
        transformed,
        two: false,
        prec,
        delta: [delta; 3],
        layout,
    }
}

/// The fourteen modes in the order of §19.5.13.3's table, with their mode-bit values.
static MODES: [(u32, Mode); 14] = [
    (0b00, two(10, [5, 5, 5], M0)),
    (0b01, two(7, [6, 6, 6], M1)),
    (0b00010, two(11, [5, 4, 4], M2)),
    (0b00110, two(11, [4, 5, 4], M3)),
    (0b01010, two(11, [4, 4, 5], M4)),
    (0b01110, two(9, [5, 5, 5], M5)),
    (0b10010, two(8, [6, 5, 5], M6)),
    (0b10110, two(8, [5, 6, 5], M7)),
    (0b11010, two(8, [5, 5, 6], M8)),
    (
        0b11110,
        Mode {
            transformed: false,
            two: true,
            prec: 6,
            delta: [6, 6, 6],
            layout: M9,
        },
    ),
    (0b00011, one(10, 10, false, M10)),
    (0b00111, one(11, 9, true, M11)),
    (0b01011, one(12, 8, true, M12)),
    (0b01111, one(16, 4, true, M13)),
];

fn mode_of(bits: Bits) -> Option<(&'static Mode, u32)> {
    let (m, len) = if bits.get(0, 2) < 2 {
        (bits.get(0, 2), 2)
    } else {
        (bits.get(0, 5), 5)
    };
    MODES
        .iter()
        .find(|(v, _)| *v == m)
        .map(|(_, mode)| (mode, len))
}

fn sign_extend(v: i32, bits: u32) -> i32 {
    if bits == 0 || bits >= 32 {
        return v;
    }
    let s = 32 - bits;
    (v << s) >> s
}

/// §19.5.13.9: endpoint unquantisation to 16 bits (unsigned) or 15 bits and a sign.
fn unquantize(comp: i32, bits: u32, signed: bool) -> i32 {
    if !signed {
        if bits >= 15 {
            comp
        } else if comp == 0 {
            0
        } else if comp == (1 << bits) - 1 {
            0xffff
        } else {
            ((comp << 16) + 0x8000) >> bits
        }
    } else if bits >= 16 {
        comp
    } else {
        let (neg, mag) = if comp < 0 {
            (true, -comp)
        } else {
            (false, comp)
        };
        let unq = if mag == 0 {
            0
        } else if mag >= (1 << (bits - 1)) - 1 {
            0x7fff
        } else {
            ((mag << 15) + 0x4000) >> (bits - 1)
        };
        if neg { -unq } else { unq }
    }
}

/// §19.5.13.10: the final scaling into half range; the half's bits.
fn finish_unquantize(comp: i32, signed: bool) -> u32 {
    if !signed {
        ((comp * 31) >> 6) as u32 & 0xffff
    } else {
        let c = if comp < 0 {
            -(((-comp) * 31) >> 5)
        } else {
            (comp * 31) >> 5
        };
        if c < 0 {
            0x8000 | ((-c) as u32 & 0x7fff)
        } else {
            c as u32 & 0x7fff
        }
    }
}

/// Texel `i` of a BC6H block as `f32` RGB and alpha 1 (see the module doc).
pub fn decode(block: &[u8; 16], i: usize, signed: bool) -> [f32; 4] {
    let bits = Bits(u128::from_le_bytes(*block));
    let Some((mode, mode_len)) = mode_of(bits) else {
        return [0.0, 0.0, 0.0, 1.0];
    };
    // Endpoint fields: e[channel][w, x, y, z].
    let mut e = [[0i32; 4]; 3];
    let mut at = mode_len;
    for &(field, lo, n) in mode.layout {
        let v = bits.get(at, u32::from(n)) as i32;
        at += u32::from(n);
        let (c, k) = (usize::from(field / 4), usize::from(field % 4));
        e[c][k] |= v << lo;
    }
    let regions = if mode.two { 2 } else { 1 };
    let ends = 2 * regions;
    for (c, ch) in e.iter_mut().enumerate() {
        if signed {
            ch[0] = sign_extend(ch[0], mode.prec);
        }
        if mode.transformed || signed {
            for v in ch.iter_mut().take(ends).skip(1) {
                *v = sign_extend(*v, mode.delta[c]);
            }
        }
        if mode.transformed {
            let mask = (1i32 << mode.prec) - 1;
            let base = ch[0];
            for v in ch.iter_mut().take(ends).skip(1) {
                *v = (*v + base) & mask;
                if signed {
                    *v = sign_extend(*v, mode.prec);
                }
            }
        }
    }
    let (region, index, index_bits) = if mode.two {
        let partition = bits.get(77, 5) as usize;
        let table = PARTITIONS2.get(partition).copied().unwrap_or([0; 16]);
        let anchor = ANCHOR2.get(partition).copied().unwrap_or(15) as usize;
        let mut at = 82;
        for j in 0..i {
            at += if j == 0 || j == anchor { 2 } else { 3 };
        }
        let n = if i == 0 || i == anchor { 2 } else { 3 };
        (usize::from(table[i]), bits.get(at, n), 3)
    } else {
        let at = if i == 0 { 65 } else { 65 + 4 * i as u32 - 1 };
        let n = if i == 0 { 3 } else { 4 };
        (0, bits.get(at, n), 4)
    };
    let w = weight(index_bits, index) as i32;
    let mut out = [0f32, 0.0, 0.0, 1.0];
    for c in 0..3 {
        let a = unquantize(e[c][2 * region], mode.prec, signed);
        let b = unquantize(e[c][2 * region + 1], mode.prec, signed);
        let v = (a * (64 - w) + b * w + 32) >> 6;
        out[c] = small_float_to_f32(finish_unquantize(v, signed), 10, true);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// §19.5.13.3: every mode's layout fills exactly its endpoint bits (75 after a 2-bit
    /// mode, 72 after a 5-bit one, 60 for one-region modes).
    #[test]
    fn layouts_cover_the_endpoint_bits() {
        for (v, m) in &MODES {
            let total: u32 = m.layout.iter().map(|r| u32::from(r.2)).sum();
            let mode_len = if *v < 2 { 2 } else { 5 };
            let want = if m.two {
                82 - 5 - mode_len
            } else {
                65 - mode_len
            };
            assert_eq!(total, want, "mode {v:#07b}");
            // Each field gets at most its precision.
            let mut seen = [0u32; 12];
            for &(f, lo, n) in m.layout {
                for b in lo..lo + n {
                    let bit = 1u32 << b;
                    assert_eq!(
                        seen[usize::from(f)] & bit,
                        0,
                        "mode {v:#07b} field {f} bit {b}"
                    );
                    seen[usize::from(f)] |= bit;
                }
            }
            for c in 0..3 {
                assert_eq!(
                    seen[c * 4],
                    (1 << m.prec) - 1,
                    "mode {v:#07b} base channel {c}"
                );
            }
        }
    }

    /// §19.5.13.3: reserved modes decode to zeros with alpha 1.
    #[test]
    fn reserved_modes() {
        for m in [0b10011u8, 0b10111, 0b11011, 0b11111] {
            let mut b = [0xffu8; 16];
            b[0] = m | 0xe0;
            assert_eq!(decode(&b, 3, false), [0.0, 0.0, 0.0, 1.0]);
            assert_eq!(decode(&b, 3, true), [0.0, 0.0, 0.0, 1.0]);
        }
    }

    /// §19.5.13.9: unquantisation keeps 0, maps the top code to 0xffff (0x7fff signed)
    /// and scales the rest to the middle of their interval.
    #[test]
    fn unquantize_rules() {
        assert_eq!(unquantize(0, 10, false), 0);
        assert_eq!(unquantize(1023, 10, false), 0xffff);
        assert_eq!(unquantize(512, 10, false), ((512 << 16) + 0x8000) >> 10);
        assert_eq!(unquantize(0x1234, 16, false), 0x1234);
        assert_eq!(unquantize(-511, 10, true), -0x7fff);
        assert_eq!(unquantize(-1, 10, true), -(((1 << 15) + 0x4000) >> 9));
        assert_eq!(finish_unquantize(0xffff, false), 0x7bff);
        assert_eq!(finish_unquantize(-0x7fff, true), 0x8000 | 0x7bff);
    }

    /// A one-region 10.10 block (mode 0b00011, not delta-coded) with both endpoints at
    /// the top code decodes to the largest half, 65504, in every channel (§19.5.13.9–10).
    #[test]
    fn raw_endpoints_decode_to_halves() {
        let mut v: u128 = 0b00011;
        for k in 0..6 {
            v |= 0x3ffu128 << (5 + 10 * k);
        }
        let b = v.to_le_bytes();
        assert_eq!(decode(&b, 0, false), [65504.0, 65504.0, 65504.0, 1.0]);
        assert_eq!(decode(&b, 9, false), [65504.0, 65504.0, 65504.0, 1.0]);
        // Signed: 0x3ff sign-extends to −1 → a small negative half.
        let s = decode(&b, 0, true);
        assert!(s[0] < 0.0 && s[0] > -0.01, "{s:?}");
    }
}
