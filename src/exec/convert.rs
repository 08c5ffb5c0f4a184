//! Conversion rules between floats of each width and integers, one function per rule.

use crate::resources::format::{
    Rounding, f32_to_half_format, f32_to_small_magnitude, small_float_to_f32,
};

use super::float::{flush, input};
use super::profile::F16Rule;

/// float → signed integer: toward zero, saturating to `i32` range, NaN → 0
/// (D3D11.3 §3.2 (integer conversion) / DXBC `ftoi`; DESIGN "float→int conversions saturate and send NaN
/// to 0"). Rust's `as` conversion is exactly this rule.
#[inline(always)]
pub fn ftoi(a: u32) -> u32 {
    f32::from_bits(a) as i32 as u32
}

/// float → unsigned integer: toward zero, saturating (negative → 0), NaN → 0 (DXBC `ftou`).
#[inline(always)]
pub fn ftou(a: u32) -> u32 {
    f32::from_bits(a) as u32
}

/// signed integer → float, round to nearest even (DXBC `itof`).
#[inline(always)]
pub fn itof(a: u32) -> u32 {
    (a as i32 as f32).to_bits()
}

/// unsigned integer → float, round to nearest even (DXBC `utof`).
#[inline(always)]
pub fn utof(a: u32) -> u32 {
    (a as f32).to_bits()
}

/// WARP's `legacyF32ToF16` / DXBC `f32tof16`: **round toward zero**; finite values past
/// the half range give the largest half of their sign, infinities stay infinities, NaN
/// gives `sign | 0x7fff`, denormal halves are produced. Observed on WARP through D3D12
/// and D3D11 (seed 000, "Converting a float to a half"): `1 + 0x1fff × 2^-23` → `0x3c00`,
/// its negative → `0xbc00`, 65520 and 1e10 → `0x7bff`, −65520 → `0xfbff`, NaN
/// `0x7fc00000` → `0x7fff`, 1e-5 → 167; D3D11.3 §22.13.2 and §3.2.2 ("round-to-zero must
/// be used during conversion to another float format").
#[inline(always)]
pub fn f32_to_f16_legacy(a: u32) -> u32 {
    f32_to_half_format(f32::from_bits(a))
}

/// WARP's native 16-bit float results (SM 6.2 `half` math, `f32tohalf`): the fp32 value
/// rounded by the profile's rule — to nearest even on every WARP known (overflow →
/// infinity) — and a NaN becomes the rule's NaN (`0x7fff`: DESIGN, WARP changelog).
#[inline(always)]
pub fn f32_to_f16_native(a: u32, rule: F16Rule) -> u32 {
    let x = f32::from_bits(a);
    if x.is_nan() {
        return u32::from(rule.nan);
    }
    ((a >> 16) & 0x8000) | f32_to_small_magnitude(x, 10, rule.rounding)
}

/// [`f32_to_f16_native`] with WARP's rule: round to nearest even, NaN → `nan`.
#[inline(always)]
pub fn f32_to_f16_rne(a: u32, nan: u16) -> u32 {
    f32_to_f16_native(
        a,
        F16Rule {
            rounding: Rounding::NearestEven,
            nan,
        },
    )
}

/// `f16tof32`: the half in the low 16 bits, exactly (DXBC `f16tof32`, dx.op
/// `LegacyF16ToF32`; every half is a normal or zero `f32`, so no flushing applies).
#[inline(always)]
pub fn f16_to_f32(a: u32) -> u32 {
    small_float_to_f32(a & 0xffff, 10, true).to_bits()
}

/// double → float, round to nearest even (DXBC `dtof`); with `FTZ` a denormal result is
/// flushed like any 32-bit float result.
#[inline(always)]
pub fn dtof<const FTZ: bool>(a: u64) -> u32 {
    let r = (f64::from_bits(a) as f32).to_bits();
    if FTZ { flush(r) } else { r }
}

/// float → double, exact (DXBC `ftod`); with `FTZ` a denormal input is flushed first.
#[inline(always)]
pub fn ftod<const FTZ: bool>(a: u32) -> u64 {
    f64::from(input::<FTZ>(a)).to_bits()
}

/// double → `i32`, toward zero, saturating, NaN → 0 (DXBC `dtoi`).
#[inline(always)]
pub fn dtoi(a: u64) -> u32 {
    f64::from_bits(a) as i32 as u32
}

/// double → `u32`, toward zero, saturating, NaN → 0 (DXBC `dtou`).
#[inline(always)]
pub fn dtou(a: u64) -> u32 {
    f64::from_bits(a) as u32
}

/// `i32` → double, exact (DXBC `itod`).
#[inline(always)]
pub fn itod(a: u32) -> u64 {
    f64::from(a as i32).to_bits()
}

/// `u32` → double, exact (DXBC `utod`).
#[inline(always)]
pub fn utod(a: u32) -> u64 {
    f64::from(a).to_bits()
}

/// float → `i64`, toward zero, saturating, NaN → 0.
#[inline(always)]
pub fn ftoi64(a: u32) -> u64 {
    f32::from_bits(a) as i64 as u64
}

/// float → `u64`, toward zero, saturating, NaN → 0.
#[inline(always)]
pub fn ftou64(a: u32) -> u64 {
    f32::from_bits(a) as u64
}

/// double → `i64`, toward zero, saturating, NaN → 0.
#[inline(always)]
pub fn dtoi64(a: u64) -> u64 {
    f64::from_bits(a) as i64 as u64
}

/// double → `u64`, toward zero, saturating, NaN → 0.
#[inline(always)]
pub fn dtou64(a: u64) -> u64 {
    f64::from_bits(a) as u64
}

/// `i64` → float, round to nearest even.
#[inline(always)]
pub fn i64tof(a: u64) -> u32 {
    (a as i64 as f32).to_bits()
}

/// `u64` → float, round to nearest even.
#[inline(always)]
pub fn u64tof(a: u64) -> u32 {
    (a as f32).to_bits()
}

/// `i64` → double, round to nearest even.
#[inline(always)]
pub fn i64tod(a: u64) -> u64 {
    (a as i64 as f64).to_bits()
}

/// `u64` → double, round to nearest even.
#[inline(always)]
pub fn u64tod(a: u64) -> u64 {
    (a as f64).to_bits()
}

/// Sign-extends the low `bits` (8 or 16) bits.
#[inline(always)]
pub fn sext_bits(bits: u8, a: u32) -> u32 {
    match bits {
        8 => a as u8 as i8 as i32 as u32,
        16 => a as u16 as i16 as i32 as u32,
        _ => a,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn f(x: f32) -> u32 {
        x.to_bits()
    }

    /// Seed 000 ("Converting a float to a half (legacyF32ToF16)"), values observed on WARP.
    #[test]
    fn legacy_f32_to_f16_matches_warp() {
        assert_eq!(f32_to_f16_legacy(0x3f80_1fff), 0x3c00); // 1 + 0x1fff·2^-23
        assert_eq!(f32_to_f16_legacy(0xbf80_1fff), 0xbc00);
        assert_eq!(f32_to_f16_legacy(f(65520.0)), 0x7bff);
        assert_eq!(f32_to_f16_legacy(f(1e10)), 0x7bff);
        assert_eq!(f32_to_f16_legacy(f(-65520.0)), 0xfbff);
        assert_eq!(f32_to_f16_legacy(f(f32::INFINITY)), 0x7c00);
        assert_eq!(f32_to_f16_legacy(f(f32::NEG_INFINITY)), 0xfc00);
        assert_eq!(f32_to_f16_legacy(0x7fc0_0000), 0x7fff);
        assert_eq!(f32_to_f16_legacy(0xffc0_0000), 0xffff);
        assert_eq!(f32_to_f16_legacy(f(1e-5)), 167);
        assert_eq!(f32_to_f16_legacy(f(1.0)), 0x3c00);
    }

    /// DESIGN (WARP changelog): native fp16 results round to nearest even, NaN → 0x7fff.
    #[test]
    fn native_f16_rounds_to_nearest_even() {
        assert_eq!(f32_to_f16_rne(0x3f80_1fff, 0x7fff), 0x3c01);
        assert_eq!(f32_to_f16_rne(f(65520.0), 0x7fff), 0x7c00);
        assert_eq!(f32_to_f16_rne(f(1e-5), 0x7fff), 168);
        assert_eq!(f32_to_f16_rne(0xffc0_0000, 0x7fff), 0x7fff);
        assert_eq!(f32_to_f16_rne(f(-0.0), 0x7fff), 0x8000);
        assert_eq!(f32_to_f16_rne(f(65504.0), 0x7fff), 0x7bff);
        // The rounding is the profile's: a toward-zero rule gives the legacy result.
        let rtz = F16Rule {
            rounding: Rounding::TowardZero,
            nan: 0x7e00,
        };
        assert_eq!(f32_to_f16_native(0x3f80_1fff, rtz), 0x3c00);
        assert_eq!(f32_to_f16_native(0x7fc0_0000, rtz), 0x7e00);
    }

    /// `f16tof32` is exact and reads only the low 16 bits.
    #[test]
    fn f16_to_f32_exact() {
        assert_eq!(f16_to_f32(0xdead_3c00), f(1.0));
        assert_eq!(f16_to_f32(1), f(2f32.powi(-24)));
        assert_eq!(f16_to_f32(0xfc00), f(f32::NEG_INFINITY));
        assert!(f32::from_bits(f16_to_f32(0x7fff)).is_nan());
    }

    /// DESIGN: float → int saturates, NaN → 0 (D3D11.3 §3.2 (integer conversion)).
    #[test]
    fn float_to_int_saturates() {
        assert_eq!(ftoi(f(f32::NAN)), 0);
        assert_eq!(ftoi(f(3e9)), i32::MAX as u32);
        assert_eq!(ftoi(f(-3e9)), i32::MIN as u32);
        assert_eq!(ftoi(f(-1.9)), (-1i32) as u32);
        assert_eq!(ftou(f(-1.0)), 0);
        assert_eq!(ftou(f(5e9)), u32::MAX);
        assert_eq!(ftou(f(f32::NAN)), 0);
        assert_eq!(dtoi(f64::NAN.to_bits()), 0);
        assert_eq!(dtou(1e20f64.to_bits()), u32::MAX);
        assert_eq!(ftoi64(f(-1e30)), i64::MIN as u64);
        assert_eq!(dtou64((-5.0f64).to_bits()), 0);
        assert_eq!(itof((-7i32) as u32), f(-7.0));
        assert_eq!(utof(u32::MAX), f(4294967296.0));
    }

    #[test]
    fn double_conversions() {
        let tiny = f32::from_bits(1);
        assert_eq!(dtof::<true>(f64::from(tiny).to_bits()), 0);
        assert_eq!(dtof::<false>(f64::from(tiny).to_bits()), 1);
        assert_eq!(ftod::<true>(1), 0);
        assert_eq!(ftod::<false>(f(1.5)), 1.5f64.to_bits());
        assert_eq!(itod((-3i32) as u32), (-3.0f64).to_bits());
        assert_eq!(sext_bits(8, 0x80), 0xffff_ff80);
        assert_eq!(sext_bits(16, 0x1_7fff), 0x7fff);
    }
}
