//! BC7: RGBA 8-bit with eight modes, partitions and p-bits (D3D11.3 §19.5.14).
//!
//! The mode is the position of the lowest set bit of byte 0 (none: the reserved mode 8,
//! which decodes to (0, 0, 0, 0)). After the mode come, as the mode says, the partition,
//! the rotation and the index-selection bit, then the endpoints channel by channel (all
//! red values in endpoint order, then green, blue, alpha), then the p-bits (one per
//! endpoint, or one per subset in mode 1), then the primary indices and, for modes 4 and
//! 5, the secondary ones. Each subset's fix-up texel stores one bit less (§19.5.14.1).
//! Endpoints are widened to 8 bits by appending the p-bit and replicating the high bits;
//! interpolation is `((64 − w) e0 + w e1 + 32) >> 6` with the 2-, 3- or 4-bit weight
//! tables (§19.5.14.3). Modes 4 and 5 swap alpha with the channel their rotation names.

use super::{ANCHOR2, Bits, PARTITIONS2, weight};

/// A mode's field widths: subsets, partition bits, rotation bits, index-selection bits,
/// colour bits, alpha bits, p-bits per endpoint, shared p-bits per subset, primary and
/// secondary index bits.
#[derive(Clone, Copy)]
struct Mode {
    subsets: u32,
    partition: u32,
    rotation: u32,
    selector: u32,
    color: u32,
    alpha: u32,
    endpoint_p: u32,
    shared_p: u32,
    index: u32,
    index2: u32,
}

const fn m(v: [u32; 10]) -> Mode {
    Mode {
        subsets: v[0],
        partition: v[1],
        rotation: v[2],
        selector: v[3],
        color: v[4],
        alpha: v[5],
        endpoint_p: v[6],
        shared_p: v[7],
        index: v[8],
        index2: v[9],
    }
}

/// §19.5.14.4: the eight modes.
const MODES: [Mode; 8] = [
    m([3, 4, 0, 0, 4, 0, 1, 0, 3, 0]),
    m([2, 6, 0, 0, 6, 0, 0, 1, 3, 0]),
    m([3, 6, 0, 0, 5, 0, 0, 0, 2, 0]),
    m([2, 6, 0, 0, 7, 0, 1, 0, 2, 0]),
    m([1, 0, 2, 1, 5, 6, 0, 0, 2, 3]),
    m([1, 0, 2, 0, 7, 8, 0, 0, 2, 2]),
    m([1, 0, 0, 0, 7, 7, 1, 0, 4, 0]),
    m([2, 6, 0, 0, 5, 5, 1, 0, 2, 0]),
];

/// §19.5.14.6: the partition table for three subsets (texel `i = x + 4 y`).
pub(crate) const PARTITIONS3: [[u8; 16]; 64] = [
    [0, 0, 1, 1, 0, 0, 1, 1, 0, 2, 2, 1, 2, 2, 2, 2],
    [0, 0, 0, 1, 0, 0, 1, 1, 2, 2, 1, 1, 2, 2, 2, 1],
    [0, 0, 0, 0, 2, 0, 0, 1, 2, 2, 1, 1, 2, 2, 1, 1],
    [0, 2, 2, 2, 0, 0, 2, 2, 0, 0, 1, 1, 0, 1, 1, 1],
    [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 2, 2, 1, 1, 2, 2],
    [0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 2, 2, 0, 0, 2, 2],
    [0, 0, 2, 2, 0, 0, 2, 2, 1, 1, 1, 1, 1, 1, 1, 1],
    [0, 0, 1, 1, 0, 0, 1, 1, 2, 2, 1, 1, 2, 2, 1, 1],
    [0, 0, 0, 0, 0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2],
    [0, 0, 0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2],
    [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2],
    [0, 0, 1, 2, 0, 0, 1, 2, 0, 0, 1, 2, 0, 0, 1, 2],
    [0, 1, 1, 2, 0, 1, 1, 2, 0, 1, 1, 2, 0, 1, 1, 2],
    [0, 1, 2, 2, 0, 1, 2, 2, 0, 1, 2, 2, 0, 1, 2, 2],
    [0, 0, 1, 1, 0, 1, 1, 2, 1, 1, 2, 2, 1, 2, 2, 2],
    [0, 0, 1, 1, 2, 0, 0, 1, 2, 2, 0, 0, 2, 2, 2, 0],
    [0, 0, 0, 1, 0, 0, 1, 1, 0, 1, 1, 2, 1, 1, 2, 2],
    [0, 1, 1, 1, 0, 0, 1, 1, 2, 0, 0, 1, 2, 2, 0, 0],
    [0, 0, 0, 0, 1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2],
    [0, 0, 2, 2, 0, 0, 2, 2, 0, 0, 2, 2, 1, 1, 1, 1],
    [0, 1, 1, 1, 0, 1, 1, 1, 0, 2, 2, 2, 0, 2, 2, 2],
    [0, 0, 0, 1, 0, 0, 0, 1, 2, 2, 2, 1, 2, 2, 2, 1],
    [0, 0, 0, 0, 0, 0, 1, 1, 0, 1, 2, 2, 0, 1, 2, 2],
    [0, 0, 0, 0, 1, 1, 0, 0, 2, 2, 1, 0, 2, 2, 1, 0],
    [0, 1, 2, 2, 0, 1, 2, 2, 0, 0, 1, 1, 0, 0, 0, 0],
    [0, 0, 1, 2, 0, 0, 1, 2, 1, 1, 2, 2, 2, 2, 2, 2],
    [0, 1, 1, 0, 1, 2, 2, 1, 1, 2, 2, 1, 0, 1, 1, 0],
    [0, 0, 0, 0, 0, 1, 1, 0, 1, 2, 2, 1, 1, 2, 2, 1],
    [0, 0, 2, 2, 1, 1, 0, 2, 1, 1, 0, 2, 0, 0, 2, 2],
    [0, 1, 1, 0, 0, 1, 1, 0, 2, 0, 0, 2, 2, 2, 2, 2],
    [0, 0, 1, 1, 0, 1, 2, 2, 0, 1, 2, 2, 0, 0, 1, 1],
    [0, 0, 0, 0, 2, 0, 0, 0, 2, 2, 1, 1, 2, 2, 2, 1],
    [0, 0, 0, 0, 0, 0, 0, 2, 1, 1, 2, 2, 1, 2, 2, 2],
    [0, 2, 2, 2, 0, 0, 2, 2, 0, 0, 1, 2, 0, 0, 1, 1],
    [0, 0, 1, 1, 0, 0, 1, 2, 0, 0, 2, 2, 0, 2, 2, 2],
    [0, 1, 2, 0, 0, 1, 2, 0, 0, 1, 2, 0, 0, 1, 2, 0],
    [0, 0, 0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 0, 0, 0, 0],
    [0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0, 1, 2, 0],
    [0, 1, 2, 0, 2, 0, 1, 2, 1, 2, 0, 1, 0, 1, 2, 0],
    [0, 0, 1, 1, 2, 2, 0, 0, 1, 1, 2, 2, 0, 0, 1, 1],
    [0, 0, 1, 1, 1, 1, 2, 2, 2, 2, 0, 0, 0, 0, 1, 1],
    [0, 1, 0, 1, 0, 1, 0, 1, 2, 2, 2, 2, 2, 2, 2, 2],
    [0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 2, 1, 2, 1, 2, 1],
    [0, 0, 2, 2, 1, 1, 2, 2, 0, 0, 2, 2, 1, 1, 2, 2],
    [0, 0, 2, 2, 0, 0, 1, 1, 0, 0, 2, 2, 0, 0, 1, 1],
    [0, 2, 2, 0, 1, 2, 2, 1, 0, 2, 2, 0, 1, 2, 2, 1],
    [0, 1, 0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 0, 1, 0, 1],
    [0, 0, 0, 0, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1, 2, 1],
    [0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 0, 1, 2, 2, 2, 2],
    [0, 2, 2, 2, 0, 1, 1, 1, 0, 2, 2, 2, 0, 1, 1, 1],
    [0, 0, 0, 2, 1, 1, 1, 2, 0, 0, 0, 2, 1, 1, 1, 2],
    [0, 0, 0, 0, 2, 1, 1, 2, 2, 1, 1, 2, 2, 1, 1, 2],
    [0, 2, 2, 2, 0, 1, 1, 1, 0, 1, 1, 1, 0, 2, 2, 2],
    [0, 0, 0, 2, 1, 1, 1, 2, 1, 1, 1, 2, 0, 0, 0, 2],
    [0, 1, 1, 0, 0, 1, 1, 0, 0, 1, 1, 0, 2, 2, 2, 2],
    [0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 1, 2, 2, 1, 1, 2],
    [0, 1, 1, 0, 0, 1, 1, 0, 2, 2, 2, 2, 2, 2, 2, 2],
    [0, 0, 2, 2, 0, 0, 1, 1, 0, 0, 1, 1, 0, 0, 2, 2],
    [0, 0, 2, 2, 1, 1, 2, 2, 1, 1, 2, 2, 0, 0, 2, 2],
    [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 2, 1, 1, 2],
    [0, 0, 0, 2, 0, 0, 0, 1, 0, 0, 0, 2, 0, 0, 0, 1],
    [0, 2, 2, 2, 1, 2, 2, 2, 0, 2, 2, 2, 1, 2, 2, 2],
    [0, 1, 0, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2],
    [0, 1, 1, 1, 2, 0, 1, 1, 2, 2, 0, 1, 2, 2, 2, 0],
];

/// The fix-up texels of subsets 1 and 2 for each three-subset partition.
pub(crate) const ANCHOR3: [[u8; 2]; 64] = [
    [3, 15],
    [3, 8],
    [15, 8],
    [15, 3],
    [8, 15],
    [3, 15],
    [15, 3],
    [15, 8],
    [8, 15],
    [8, 15],
    [6, 15],
    [6, 15],
    [6, 15],
    [5, 15],
    [3, 15],
    [3, 8],
    [3, 15],
    [3, 8],
    [8, 15],
    [15, 3],
    [3, 15],
    [3, 8],
    [6, 15],
    [10, 8],
    [5, 3],
    [8, 15],
    [8, 6],
    [6, 10],
    [8, 15],
    [5, 15],
    [15, 10],
    [15, 8],
    [8, 15],
    [15, 3],
    [3, 15],
    [5, 10],
    [6, 10],
    [10, 8],
    [8, 9],
    [15, 10],
    [15, 6],
    [3, 15],
    [15, 8],
    [5, 15],
    [15, 3],
    [15, 6],
    [15, 6],
    [15, 8],
    [3, 15],
    [15, 3],
    [5, 15],
    [5, 15],
    [5, 15],
    [8, 15],
    [5, 15],
    [10, 15],
    [5, 15],
    [10, 15],
    [8, 15],
    [13, 15],
    [15, 3],
    [12, 15],
    [3, 15],
    [3, 8],
];

/// The subset of texel `i` and whether it is its subset's fix-up texel.
fn subset_of(mode: &Mode, partition: usize, i: usize) -> (usize, bool) {
    match mode.subsets {
        2 => {
            let s = usize::from(PARTITIONS2[partition & 63][i]);
            let anchor = if s == 0 {
                0
            } else {
                usize::from(ANCHOR2[partition & 63])
            };
            (s, i == anchor)
        }
        3 => {
            let s = usize::from(PARTITIONS3[partition & 63][i]);
            let anchor = match s {
                0 => 0,
                k => usize::from(ANCHOR3[partition & 63][k - 1]),
            };
            (s, i == anchor)
        }
        _ => (0, i == 0),
    }
}

/// Widens a `bits`-bit endpoint component to 8 bits by replicating its high bits.
fn widen(v: u32, bits: u32) -> u32 {
    if bits == 0 {
        return 255;
    }
    let v = v << (8 - bits);
    (v | (v >> bits)) & 255
}

/// Texel `i` of a BC7 block as 8-bit RGBA.
pub fn decode(block: &[u8; 16], i: usize) -> [u8; 4] {
    let bits = Bits(u128::from_le_bytes(*block));
    let first = block[0];
    if first == 0 {
        return [0; 4];
    }
    let mode_index = first.trailing_zeros();
    let mode = MODES[mode_index as usize & 7];
    let mut at = mode_index + 1;
    let partition = bits.get(at, mode.partition) as usize;
    at += mode.partition;
    let rotation = bits.get(at, mode.rotation);
    at += mode.rotation;
    let selector = bits.get(at, mode.selector);
    at += mode.selector;
    let ends = (2 * mode.subsets) as usize;
    // ep[endpoint][channel], raw.
    let mut ep = [[0u32; 4]; 6];
    for c in 0..4 {
        let n = if c < 3 { mode.color } else { mode.alpha };
        for e in ep.iter_mut().take(ends) {
            e[c] = bits.get(at, n);
            at += n;
        }
    }
    let (mut cbits, mut abits) = (mode.color, mode.alpha);
    if mode.endpoint_p == 1 {
        for e in ep.iter_mut().take(ends) {
            let p = bits.get(at, 1);
            at += 1;
            for c in e.iter_mut() {
                *c = (*c << 1) | p;
            }
        }
        cbits += 1;
        if abits > 0 {
            abits += 1;
        }
    } else if mode.shared_p == 1 {
        for s in 0..mode.subsets as usize {
            let p = bits.get(at, 1);
            at += 1;
            for e in &mut ep[2 * s..2 * s + 2] {
                for c in e.iter_mut() {
                    *c = (*c << 1) | p;
                }
            }
        }
        cbits += 1;
        if abits > 0 {
            abits += 1;
        }
    }
    let (subset, _) = subset_of(&mode, partition, i);
    // Primary indices, then secondary ones; fix-up texels are one bit shorter.
    let mut primary = 0;
    for j in 0..=i {
        let n = mode.index - u32::from(subset_of(&mode, partition, j).1);
        if j == i {
            primary = bits.get(at, n);
        }
        at += n;
    }
    for j in i + 1..16 {
        at += mode.index - u32::from(subset_of(&mode, partition, j).1);
    }
    let secondary = if mode.index2 > 0 {
        let at2 = at
            + if i == 0 {
                0
            } else {
                mode.index2 * i as u32 - 1
            };
        bits.get(at2, mode.index2 - u32::from(i == 0))
    } else {
        0
    };
    let e0 = ep[2 * subset];
    let e1 = ep[2 * subset + 1];
    let (cidx, cb, aidx, ab) = match (mode.index2 > 0, selector) {
        (false, _) => (primary, mode.index, primary, mode.index),
        (true, 0) => (primary, mode.index, secondary, mode.index2),
        (true, _) => (secondary, mode.index2, primary, mode.index),
    };
    let mut out = [0u8; 4];
    for c in 0..4 {
        let (idx, ib, nb) = if c < 3 {
            (cidx, cb, cbits)
        } else {
            (aidx, ab, abits)
        };
        let (a, b) = (widen(e0[c], nb), widen(e1[c], nb));
        let w = weight(ib, idx);
        out[c] = (((64 - w) * a + w * b + 32) >> 6) as u8;
    }
    if mode.alpha == 0 {
        out[3] = 255;
    }
    match rotation {
        1 => out.swap(0, 3),
        2 => out.swap(1, 3),
        3 => out.swap(2, 3),
        _ => {}
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Packs `(value, bits)` fields into a block, least significant first.
    fn pack(fields: &[(u128, u32)]) -> [u8; 16] {
        let mut v = 0u128;
        let mut at = 0;
        for &(x, n) in fields {
            v |= (x & ((1u128 << n) - 1)) << at;
            at += n;
        }
        assert!(at <= 128);
        v.to_le_bytes()
    }

    /// §19.5.14.4 "Mode 8": a zero first byte is reserved and decodes to all zeros.
    #[test]
    fn reserved_mode() {
        let mut b = [0xffu8; 16];
        b[0] = 0;
        for i in 0..16 {
            assert_eq!(decode(&b, i), [0; 4]);
        }
    }

    /// Mode 6 (one subset, 7-bit RGBA endpoints with a p-bit each, 4-bit indices):
    /// index 0 gives endpoint 0, index 15 endpoint 1, and 7 the 30/64 blend (§19.5.14.3).
    #[test]
    fn mode6_interpolation() {
        let e0 = [10u128, 20, 30, 127];
        let e1 = [127u128, 100, 0, 0];
        let mut f = vec![(1u128 << 6, 7)];
        for c in 0..4 {
            f.push((e0[c], 7));
            f.push((e1[c], 7));
        }
        f.push((1, 1)); // p-bit of endpoint 0
        f.push((0, 1)); // p-bit of endpoint 1
        // Texel 0 (fix-up, 3 bits): index 0; texel 1: 15; texel 2: 7; others 0.
        f.push((0, 3));
        f.push((15, 4));
        f.push((7, 4));
        let b = pack(&f);
        let ep0: Vec<u32> = e0
            .iter()
            .map(|&v| widen(((v as u32) << 1) | 1, 8))
            .collect();
        let ep1: Vec<u32> = e1.iter().map(|&v| widen((v as u32) << 1, 8)).collect();
        assert_eq!(
            decode(&b, 0),
            [ep0[0] as u8, ep0[1] as u8, ep0[2] as u8, ep0[3] as u8]
        );
        assert_eq!(
            decode(&b, 1),
            [ep1[0] as u8, ep1[1] as u8, ep1[2] as u8, ep1[3] as u8]
        );
        let mid: Vec<u8> = (0..4)
            .map(|c| (((64 - 30) * ep0[c] + 30 * ep1[c] + 32) >> 6) as u8)
            .collect();
        assert_eq!(decode(&b, 2).to_vec(), mid);
        assert_eq!(decode(&b, 3), decode(&b, 0));
    }

    /// Mode 5 rotation 1 swaps red and alpha after interpolation; mode 4's selector bit
    /// swaps which index set colour and alpha use.
    #[test]
    fn rotation_and_selector() {
        // Mode 5: rotation 1, colour endpoints 7 bits, alpha 8 bits, all indices 0.
        let mut f = vec![(1u128 << 5, 6), (1, 2)];
        for _ in 0..3 {
            f.push((0x7f, 7));
            f.push((0, 7));
        }
        f.push((0x40, 8));
        f.push((0, 8));
        let b = pack(&f);
        // Before rotation: rgb = 255, a = 0x40; rotation 1 swaps r and a.
        assert_eq!(decode(&b, 5), [0x40, 255, 255, 255]);
        // Mode 4 with selector 1: colour takes the 3-bit set, alpha the 2-bit set.
        let mut f = vec![(1u128 << 4, 5), (0, 2), (1, 1)];
        for _ in 0..3 {
            f.push((0, 5));
            f.push((31, 5));
        }
        f.push((0, 6));
        f.push((63, 6));
        // 2-bit indices: texel 0 one bit, then 15 × 2 bits, all 3 (texel 0: 1).
        f.push((1, 1));
        for _ in 1..16 {
            f.push((3, 2));
        }
        // 3-bit indices: all 0.
        let b = pack(&f);
        let t = decode(&b, 4);
        assert_eq!(t, [0, 0, 0, 255]);
    }

    #[test]
    fn widening() {
        assert_eq!(widen(0x7f << 1 | 1, 8), 255);
        assert_eq!(widen(31, 5), 255);
        assert_eq!(widen(16, 5), 132);
        assert_eq!(widen(0, 6), 0);
    }
}
