//! Bit manipulation rules, one function per rule.

/// Bitfield insert (D3D11.3 instruction reference, `bfi`): with `w = width & 31`, `o = offset & 31`,
/// `mask = ((1 << w) − 1) << o`, the result is `((insert << o) & mask) | (base & !mask)`.
#[inline(always)]
pub fn bfi(width: u32, offset: u32, insert: u32, base: u32) -> u32 {
    let w = width & 31;
    let o = offset & 31;
    let mask = ((1u32 << w) - 1) << o;
    ((insert << o) & mask) | (base & !mask)
}

/// Unsigned bitfield extract (D3D11.3 `ubfe`): `w = width & 31`, `o = offset & 31`;
/// `w == 0` → 0; `w + o < 32` → `(src << (32 − w − o)) >> (32 − w)`; otherwise `src >> o`.
#[inline(always)]
pub fn ubfe(width: u32, offset: u32, src: u32) -> u32 {
    let w = width & 31;
    let o = offset & 31;
    if w == 0 {
        0
    } else if w + o < 32 {
        (src << (32 - w - o)) >> (32 - w)
    } else {
        src >> o
    }
}

/// Signed bitfield extract (D3D11.3 `ibfe`): as [`ubfe`] with arithmetic shifts.
#[inline(always)]
pub fn ibfe(width: u32, offset: u32, src: u32) -> u32 {
    let w = width & 31;
    let o = offset & 31;
    if w == 0 {
        0
    } else if w + o < 32 {
        (((src << (32 - w - o)) as i32) >> (32 - w)) as u32
    } else {
        ((src as i32) >> o) as u32
    }
}

/// Index of the highest set bit counted from the MSB (0 = bit 31), `0xffffffff` for 0
/// (DXBC `firstbit_hi`; DESIGN "firstbit* of 0 gives 0xffffffff").
#[inline(always)]
pub fn firstbit_hi(a: u32) -> u32 {
    if a == 0 { u32::MAX } else { a.leading_zeros() }
}

/// Index of the lowest set bit, `0xffffffff` for 0 (DXBC `firstbit_lo`).
#[inline(always)]
pub fn firstbit_lo(a: u32) -> u32 {
    if a == 0 { u32::MAX } else { a.trailing_zeros() }
}

/// Index from the MSB of the highest bit differing from the sign bit; `0xffffffff` for 0
/// and −1 (DXBC `firstbit_shi`).
#[inline(always)]
pub fn firstbit_shi(a: u32) -> u32 {
    let x = if (a as i32) < 0 { !a } else { a };
    firstbit_hi(x)
}

/// 64-bit [`firstbit_hi`] (counted from bit 63).
#[inline(always)]
pub fn firstbit_hi64(a: u64) -> u32 {
    if a == 0 { u32::MAX } else { a.leading_zeros() }
}

/// 64-bit [`firstbit_lo`].
#[inline(always)]
pub fn firstbit_lo64(a: u64) -> u32 {
    if a == 0 { u32::MAX } else { a.trailing_zeros() }
}

/// 64-bit [`firstbit_shi`].
#[inline(always)]
pub fn firstbit_shi64(a: u64) -> u32 {
    let x = if (a as i64) < 0 { !a } else { a };
    firstbit_hi64(x)
}

/// Masked sum of absolute differences (DXIL.rst "Msad", DXBC `msad`): for each byte of
/// `reference` that is not 0, add `|ref byte − src byte|` to `accum`. The accumulation
/// wraps modulo 2³² as WARP's does (issue 12's conformance runs; DXIL.rst only
/// *recommends* a saturate, and the HLSL `msad4` page leaves results past 65535
/// undefined, so the device's behaviour is the rule).
#[inline(always)]
pub fn msad(reference: u32, src: u32, accum: u32) -> u32 {
    let mut acc = accum;
    for i in 0..4 {
        let r = (reference >> (i * 8)) & 0xff;
        if r == 0 {
            continue;
        }
        let s = (src >> (i * 8)) & 0xff;
        acc = acc.wrapping_add(r.abs_diff(s));
    }
    acc
}

#[cfg(test)]
mod tests {
    use super::*;

    /// D3D11.3 `bfi` pseudo-code.
    #[test]
    fn bitfield_insert() {
        assert_eq!(bfi(8, 4, 0xab, 0xffff_ffff), 0xffff_fabf);
        assert_eq!(bfi(0, 4, 0xab, 0x1234), 0x1234);
        assert_eq!(bfi(32 + 4, 28, 0xf, 0), 0xf000_0000); // width and offset masked
        assert_eq!(bfi(31, 1, u32::MAX, 0), 0xffff_fffe);
    }

    /// D3D11.3 `ubfe`/`ibfe` pseudo-code, including width + offset past 32.
    #[test]
    fn bitfield_extract() {
        assert_eq!(ubfe(4, 4, 0xabcd), 0xc);
        assert_eq!(ibfe(4, 4, 0xabcd), 0xffff_fffc);
        assert_eq!(ubfe(0, 4, 0xabcd), 0);
        assert_eq!(ibfe(0, 4, 0xabcd), 0);
        assert_eq!(ubfe(8, 28, 0xf000_0000), 0xf);
        assert_eq!(ibfe(8, 28, 0xf000_0000), u32::MAX);
        assert_eq!(ubfe(33, 0, 0x5), 1); // width 33 & 31 = 1
    }

    /// DESIGN: `firstbit*` of 0 gives 0xffffffff; hi counts from the MSB.
    #[test]
    fn first_bits() {
        assert_eq!(firstbit_hi(0), u32::MAX);
        assert_eq!(firstbit_lo(0), u32::MAX);
        assert_eq!(firstbit_shi(0), u32::MAX);
        assert_eq!(firstbit_shi(u32::MAX), u32::MAX);
        assert_eq!(firstbit_hi(1), 31);
        assert_eq!(firstbit_hi(0x8000_0000), 0);
        assert_eq!(firstbit_lo(0x8000_0000), 31);
        assert_eq!(firstbit_shi(0xffff_fff0), 28);
        assert_eq!(firstbit_shi(0x10), 27);
        assert_eq!(firstbit_hi64(1), 63);
        assert_eq!(firstbit_lo64(1 << 40), 40);
        assert_eq!(firstbit_shi64(u64::MAX), u32::MAX);
    }

    /// DXIL.rst Msad: zero reference bytes are skipped. The four sums of the worked
    /// example on the HLSL `msad4` reference page (reference 0xA100B2C3, source
    /// 0xD7B0C372 0x4F57C2A3, accum 1 2 3 4 → 153 6 92 113), one window each.
    #[test]
    fn masked_sad() {
        assert_eq!(msad(0x0102_0300, 0x0301_0000, 10), 10 + 2 + 1 + 3);
        let windows = [0xD7B0_C372u32, 0xA3D7_B0C3, 0xC2A3_D7B0, 0x57C2_A3D7];
        let got: Vec<u32> = (0..4)
            .map(|i| msad(0xA100_B2C3, windows[i], i as u32 + 1))
            .collect();
        assert_eq!(got, [153, 6, 92, 113]);
    }

    /// The accumulate wraps modulo 2³², it does not saturate (issue 12: WARP's results
    /// on the conformance set): 0xffffffff + 0xff wraps to 0xfe.
    #[test]
    fn masked_sad_wraps() {
        assert_eq!(msad(0xff, 0, u32::MAX), 0xfe);
        assert_eq!(msad(0xffff_ffff, 0, 0xffff_ff00), 0x2fc);
    }
}
