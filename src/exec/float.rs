//! WARP's floating-point rules, one function per rule, on raw bits.
//!
//! 32-bit functions take and return `f32` bits and a `FTZ` parameter: with `FTZ` (the
//! shader's `fp32_denorm` is `ftz` or `any`; DXBC always), denormal inputs and results
//! are flushed to zero of the same sign — D3D11.3 §3.1 "32-bit floating point
//! denorms: flushed on input and output of arithmetic operations; moves and bitwise
//! operations keep the bits" (the IR's `mov`, `select`, bit operations and conversions
//! to integers never call these). 64-bit functions never flush (§3.1, double-precision rules: doubles keep
//! denormals).
//!
//! NaN results follow x86's rule, which is what WARP's x86 code produces; D3D11.3 §3.1
//! leaves NaN bits open. An operation with a NaN operand gives its **first** NaN operand
//! made quiet ([`nan_first`]); an invalid operation on numbers (∞ − ∞, 0 × ∞) gives the
//! default NaN, `0xffc00000` on x86. The rule is applied explicitly rather than left to
//! the hardware, because the Rust compiler may swap the operands of a commutative float
//! operation (and did, in vectorised lane loops), which changes which payload survives
//! when both operands are NaN; both engines (`exec::jit`) then give the same bits in every
//! build. Rounding functions (`floor`, `ceil`, `trunc`, `round_ne`) return a NaN operand
//! unchanged, as the C library's do.
//!
//! Transcendental functions (`exp2`, `log2`, `sin`, …) are computed in `f64` with the
//! standard library and rounded once to `f32`: that is within 1 ulp of the true value and
//! does not depend on the host's `f32` libm. D3D11.3 §3.1 allows larger errors and
//! WARP's exact polynomials are unknown; a capture that differs in the last bits is
//! expected here (compare with an ulp tolerance).

/// Flushes a denormal `f32` to zero of the same sign (D3D11.3 §3.1).
#[inline(always)]
pub fn flush(x: u32) -> u32 {
    if x & 0x7f80_0000 == 0 {
        x & 0x8000_0000
    } else {
        x
    }
}

/// An input operand, flushed when `FTZ`.
#[inline(always)]
pub fn input<const FTZ: bool>(x: u32) -> f32 {
    f32::from_bits(if FTZ { flush(x) } else { x })
}

/// A result, flushed when `FTZ`.
#[inline(always)]
pub fn output<const FTZ: bool>(x: f32) -> u32 {
    if FTZ { flush(x.to_bits()) } else { x.to_bits() }
}

/// The default NaN x86 arithmetic produces for an invalid operation.
pub const DEFAULT_NAN: u32 = 0xffc0_0000;

/// A NaN made quiet (its payload kept), as x86 passes a NaN operand through.
#[inline(always)]
pub fn quiet(x: f32) -> f32 {
    f32::from_bits(x.to_bits() | 0x0040_0000)
}

/// `r`, the result of an operation on `x` and `y`, with x86's NaN rule made independent of
/// operand order: the first NaN operand, quiet, when `x` is NaN; otherwise `r` (which is
/// `y` made quiet when `y` is NaN, or the default NaN, whichever way the operands went).
#[inline(always)]
pub fn nan_first(x: f32, r: f32) -> f32 {
    if x.is_nan() { quiet(x) } else { r }
}

/// `a + b` (IEEE, round to nearest even).
#[inline(always)]
pub fn add<const FTZ: bool>(a: u32, b: u32) -> u32 {
    let (x, y) = (input::<FTZ>(a), input::<FTZ>(b));
    output::<FTZ>(nan_first(x, x + y))
}

/// `a − b`.
#[inline(always)]
pub fn sub<const FTZ: bool>(a: u32, b: u32) -> u32 {
    let (x, y) = (input::<FTZ>(a), input::<FTZ>(b));
    output::<FTZ>(nan_first(x, x - y))
}

/// `a × b`.
#[inline(always)]
pub fn mul<const FTZ: bool>(a: u32, b: u32) -> u32 {
    let (x, y) = (input::<FTZ>(a), input::<FTZ>(b));
    output::<FTZ>(nan_first(x, x * y))
}

/// `a / b`, correctly rounded (D3D11.3 allows 2.5 ulp; WARP's x86 division is exact).
#[inline(always)]
pub fn div<const FTZ: bool>(a: u32, b: u32) -> u32 {
    let (x, y) = (input::<FTZ>(a), input::<FTZ>(b));
    output::<FTZ>(nan_first(x, x / y))
}

/// `a − b × trunc(a / b)` computed exactly (C `fmod`, LLVM `frem`).
#[inline(always)]
pub fn rem<const FTZ: bool>(a: u32, b: u32) -> u32 {
    output::<FTZ>(input::<FTZ>(a) % input::<FTZ>(b))
}

/// `min(a, b)`: when one operand is NaN the other is returned (D3D11.3 §3.1, 32-bit floating-point rules: "min/max:
/// if one operand is NaN, the other is the result"); `−0` is below `+0`.
#[inline(always)]
pub fn min<const FTZ: bool>(a: u32, b: u32) -> u32 {
    let (x, y) = (input::<FTZ>(a), input::<FTZ>(b));
    output::<FTZ>(min_f32(x, y))
}

/// `max(a, b)`: the non-NaN operand when one is NaN; `+0` is above `−0`.
#[inline(always)]
pub fn max<const FTZ: bool>(a: u32, b: u32) -> u32 {
    let (x, y) = (input::<FTZ>(a), input::<FTZ>(b));
    output::<FTZ>(max_f32(x, y))
}

/// The NaN-avoiding minimum on `f32` values (see [`min`]).
#[inline(always)]
pub fn min_f32(x: f32, y: f32) -> f32 {
    if x.is_nan() {
        y
    } else if y.is_nan() || x < y || (x == y && x.is_sign_negative()) {
        x
    } else {
        y
    }
}

/// The NaN-avoiding maximum on `f32` values (see [`max`]).
#[inline(always)]
pub fn max_f32(x: f32, y: f32) -> f32 {
    if x.is_nan() {
        y
    } else if y.is_nan() || x > y || (x == y && y.is_sign_negative()) {
        x
    } else {
        y
    }
}

/// `a × b + c` with two roundings (`mad` when not fused; `precise` mads). With `FTZ` the
/// product is flushed before the add, as a separate multiply's result would be.
#[inline(always)]
pub fn mad_unfused<const FTZ: bool>(a: u32, b: u32, c: u32) -> u32 {
    let p = mul::<FTZ>(a, b);
    add::<FTZ>(p, c)
}

/// `fma(a, b, c)` with one rounding.
#[inline(always)]
pub fn fma<const FTZ: bool>(a: u32, b: u32, c: u32) -> u32 {
    output::<FTZ>(fma_f32(input::<FTZ>(a), input::<FTZ>(b), input::<FTZ>(c)))
}

/// A correctly rounded single-precision fused multiply-add without a libm call: the
/// product of two floats is exact in `f64`; the sum is formed in `f64` rounded *to odd*
/// (an exact TwoSum tells whether the `f64` sum was inexact, and an inexact even result is
/// moved one ulp toward the exact value), and rounding that to `f32` is then correct
/// (Boldo and Melquiond, "Emulation of FMA and correctly-rounded sums: proved algorithms
/// using rounding to odd", IEEE TC 2008: 53 ≥ 2 × 24 + 2 bits).
#[inline(always)]
///
/// NaN results: the first NaN of `a`, `b` (quiet); else the default NaN when `a × b` is
/// invalid (0 × ∞); else `c` (quiet) when it is NaN; else the default NaN of ∞ − ∞.
pub fn fma_f32(a: f32, b: f32, c: f32) -> f32 {
    if a.is_nan() || b.is_nan() || c.is_nan() {
        return if a.is_nan() {
            quiet(a)
        } else if b.is_nan() {
            quiet(b)
        } else if (a * b).is_nan() {
            f32::from_bits(DEFAULT_NAN)
        } else {
            quiet(c)
        };
    }
    let p = f64::from(a) * f64::from(b);
    let cc = f64::from(c);
    let s = p + cc;
    if !s.is_finite() || s == 0.0 {
        return s as f32;
    }
    let bb = s - p;
    let err = (p - (s - bb)) + (cc - bb);
    let bits = s.to_bits();
    if err != 0.0 && bits & 1 == 0 {
        let up = (err > 0.0) == (s > 0.0);
        return f64::from_bits(if up { bits + 1 } else { bits - 1 }) as f32;
    }
    s as f32
}

/// A unary 32-bit float function (the IR's `FUnOp`), with the flush rule applied to the
/// input and the result. See each arm for its source and method.
#[inline]
pub fn unary<const FTZ: bool>(op: crate::ir::FUnOp, a: u32) -> u32 {
    use crate::ir::FUnOp as U;
    let x = input::<FTZ>(a);
    let d = f64::from(x);
    let r: f32 = match op {
        // IEEE square root, correctly rounded.
        U::Sqrt => x.sqrt(),
        // 1/sqrt(x) in f64, rounded once: rsq(±0) = ±inf, rsq(+inf) = 0, negative → NaN.
        U::Rsq => (1.0 / d.sqrt()) as f32,
        // 1/x correctly rounded (D3D11.3 allows 1 ulp).
        U::Rcp => 1.0 / x,
        U::Exp2 => d.exp2() as f32,
        // log2(±0) = −inf, log2(negative) = NaN (D3D11.3 §3.1: "log of (+/−) 0 produces −INF").
        U::Log2 => d.log2() as f32,
        U::Sin => d.sin() as f32,
        U::Cos => d.cos() as f32,
        U::Tan => d.tan() as f32,
        U::Asin => d.asin() as f32,
        U::Acos => d.acos() as f32,
        U::Atan => d.atan() as f32,
        U::Sinh => d.sinh() as f32,
        U::Cosh => d.cosh() as f32,
        U::Tanh => d.tanh() as f32,
        // A NaN passes unchanged (signalling ones too), as the C library's functions
        // return it; an inlined `roundss` would make it quiet.
        U::RoundNe | U::Floor | U::Ceil | U::Trunc if x.is_nan() => x,
        U::RoundNe => x.round_ties_even(),
        U::Floor => x.floor(),
        U::Ceil => x.ceil(),
        U::Trunc => x.trunc(),
        U::Frac => frac(x),
        U::Sat => sat(x),
    };
    output::<FTZ>(r)
}

/// `x − floor(x)`, kept below 1.0 (D3D11.3 `frc`: result in [0, 1); a tiny negative `x`
/// would otherwise round to exactly 1.0): `frc(±inf)` and `frc(NaN)` are NaN.
#[inline(always)]
pub fn frac(x: f32) -> f32 {
    let r = x - x.floor();
    if r >= 1.0 {
        f32::from_bits(0x3f7f_ffff)
    } else {
        r
    }
}

/// Saturate: NaN → 0, clamp to [0, 1], `−0` → `+0` (D3D11.3 §3.1 and the `_sat` modifier: "NaN is
/// turned into 0").
#[inline(always)]
pub fn sat(x: f32) -> f32 {
    if x > 1.0 {
        1.0
    } else if x > 0.0 {
        x
    } else {
        0.0
    }
}

/// A float comparison (the IR's `FCond`) on flushed inputs, as a 32-bit boolean.
#[inline(always)]
pub fn cmp<const FTZ: bool>(cond: crate::ir::FCond, a: u32, b: u32) -> u32 {
    let (x, y) = (input::<FTZ>(a), input::<FTZ>(b));
    bool_bits(cmp_f64(cond, f64::from(x), f64::from(y)))
}

/// A float comparison on `f64` values (exact for `f32` inputs).
#[inline(always)]
pub fn cmp_f64(cond: crate::ir::FCond, x: f64, y: f64) -> bool {
    use crate::ir::FCond as C;
    let uno = x.is_nan() || y.is_nan();
    match cond {
        C::Eq => x == y,
        C::Ne => x != y,
        C::Lt => x < y,
        C::Le => x <= y,
        C::Gt => x > y,
        C::Ge => x >= y,
        C::OrdNe => !uno && x != y,
        C::UnordEq => uno || x == y,
        C::UnordLt => uno || x < y,
        C::UnordLe => uno || x <= y,
        C::UnordGt => uno || x > y,
        C::UnordGe => uno || x >= y,
        C::Ord => !uno,
        C::Uno => uno,
        C::False => false,
        C::True => true,
    }
}

/// A float classification (dx.op `IsNaN`, `IsInf`, `IsFinite`, `IsNormal`) on the bits
/// as they are (no flushing: a denormal is finite and not normal).
#[inline(always)]
pub fn class_f64(class: crate::ir::FClass, x: f64) -> bool {
    use crate::ir::FClass as K;
    match class {
        K::Nan => x.is_nan(),
        K::Inf => x.is_infinite(),
        K::Finite => x.is_finite(),
        K::Normal => x.is_normal(),
    }
}

/// `true` as `0xffffffff`, `false` as 0.
#[inline(always)]
pub fn bool_bits(b: bool) -> u32 {
    if b { u32::MAX } else { 0 }
}

/// `min` of doubles with the NaN rule of [`min`].
#[inline(always)]
pub fn dmin(a: u64, b: u64) -> u64 {
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    let r = if x.is_nan() {
        y
    } else if y.is_nan() || x < y || (x == y && x.is_sign_negative()) {
        x
    } else {
        y
    };
    r.to_bits()
}

/// `max` of doubles with the NaN rule of [`max`].
#[inline(always)]
pub fn dmax(a: u64, b: u64) -> u64 {
    let (x, y) = (f64::from_bits(a), f64::from_bits(b));
    let r = if x.is_nan() {
        y
    } else if y.is_nan() || x > y || (x == y && y.is_sign_negative()) {
        x
    } else {
        y
    };
    r.to_bits()
}

/// `fma(a, b, c)` on doubles with one rounding (DXBC `dfma`, a fused operation).
#[inline(always)]
pub fn dfma(a: u64, b: u64, c: u64) -> u64 {
    f64::from_bits(a)
        .mul_add(f64::from_bits(b), f64::from_bits(c))
        .to_bits()
}

/// `1 / a` on doubles, correctly rounded (DXBC `drcp`; D3D11.3 requires 1 ulp).
#[inline(always)]
pub fn drcp(a: u64) -> u64 {
    (1.0 / f64::from_bits(a)).to_bits()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::{FCond, FUnOp};

    const DENORM: u32 = 0x0000_0001;
    const NEG_DENORM: u32 = 0x8000_0001;

    fn f(x: f32) -> u32 {
        x.to_bits()
    }

    /// D3D11.3 §3.1: denormal inputs and outputs of 32-bit float arithmetic are
    /// flushed to signed zero; with `preserve` they are kept.
    #[test]
    fn denormals_flush_with_ftz_only() {
        assert_eq!(add::<true>(DENORM, 0), 0);
        assert_eq!(add::<true>(NEG_DENORM, 0x8000_0000), 0x8000_0000);
        assert_eq!(add::<false>(DENORM, 0), DENORM);
        // A normal product that underflows to a denormal is flushed on output.
        let tiny = f32::MIN_POSITIVE.to_bits();
        assert_eq!(mul::<true>(tiny, f(0.5)), 0);
        assert_eq!(mul::<false>(tiny, f(0.5)), 0x0040_0000);
        assert_eq!(flush(0x807f_ffff), 0x8000_0000);
        assert_eq!(flush(0x0080_0000), 0x0080_0000);
    }

    /// D3D11.3 min/max: a NaN operand gives the other operand; NaN, NaN gives NaN.
    #[test]
    fn min_max_return_the_non_nan_operand() {
        let nan = 0x7fc0_0000;
        assert_eq!(min::<true>(nan, f(1.0)), f(1.0));
        assert_eq!(min::<true>(f(1.0), nan), f(1.0));
        assert_eq!(max::<true>(nan, f(-3.0)), f(-3.0));
        assert!(f32::from_bits(max::<true>(nan, nan)).is_nan());
        assert_eq!(min::<true>(f(-0.0), f(0.0)), f(-0.0));
        assert_eq!(min::<true>(f(0.0), f(-0.0)), f(-0.0));
        assert_eq!(max::<true>(f(-0.0), f(0.0)), f(0.0));
        assert_eq!(max::<true>(f(0.0), f(-0.0)), f(0.0));
        assert_eq!(min::<true>(DENORM, NEG_DENORM), f(-0.0));
        assert_eq!(dmin(f64::NAN.to_bits(), 2f64.to_bits()), 2f64.to_bits());
        assert_eq!(dmax(1f64.to_bits(), f64::NAN.to_bits()), 1f64.to_bits());
    }

    /// The round-to-odd emulation agrees with a true fused multiply-add (libm `fmaf`).
    #[test]
    fn fma_emulation_is_correctly_rounded() {
        let mut s = 0x1234_5678_9abc_def0u64;
        let mut next = || {
            s ^= s << 13;
            s ^= s >> 7;
            s ^= s << 17;
            s
        };
        let mut checked = 0;
        for _ in 0..200_000 {
            let r = next();
            let a = f32::from_bits(r as u32);
            let b = f32::from_bits((r >> 32) as u32);
            // c near -a*b exercises cancellation; others are random.
            let c = if r & 3 == 0 {
                -(a * b) * (1.0 + f32::EPSILON * ((r >> 8) & 7) as f32)
            } else {
                f32::from_bits(next() as u32)
            };
            let want = a.mul_add(b, c);
            let got = fma_f32(a, b, c);
            if want.is_nan() {
                assert!(got.is_nan());
            } else {
                assert_eq!(got.to_bits(), want.to_bits(), "{a:e} * {b:e} + {c:e}");
                checked += 1;
            }
        }
        assert!(checked > 100_000);
        // Where fusing matters: (1 + 2^-12)^2 − 1 keeps the 2^-24 term only when fused.
        let x = f(1.0 + 2f32.powi(-12));
        assert_eq!(
            f32::from_bits(fma::<true>(x, x, f(-1.0))),
            2f32.powi(-11) + 2f32.powi(-24)
        );
        assert_eq!(
            f32::from_bits(mad_unfused::<true>(x, x, f(-1.0))),
            2f32.powi(-11)
        );
    }

    /// ShaderOpArithTable.xml rows `Round_ne`/`Round_ni`/`Round_pi`/`Round_z`, `Frc`:
    /// rounding keeps −0 and flushes denormals to signed zero.
    #[test]
    fn rounding_and_frac() {
        assert_eq!(unary::<true>(FUnOp::RoundNe, f(10.5)), f(10.0));
        assert_eq!(unary::<true>(FUnOp::RoundNe, f(11.5)), f(12.0));
        assert_eq!(unary::<true>(FUnOp::RoundNe, f(-10.5)), f(-10.0));
        assert_eq!(unary::<true>(FUnOp::Floor, NEG_DENORM), f(-0.0));
        assert_eq!(unary::<true>(FUnOp::Floor, f(-10.4)), f(-11.0));
        assert_eq!(unary::<true>(FUnOp::Ceil, f(10.4)), f(11.0));
        assert_eq!(unary::<true>(FUnOp::Trunc, f(-10.6)), f(-10.0));
        assert_eq!(unary::<true>(FUnOp::Frac, f(-1.0)), f(0.0));
        assert!(f32::from_bits(unary::<true>(FUnOp::Frac, f(f32::INFINITY))).is_nan());
        assert_eq!(unary::<true>(FUnOp::Frac, f(-1e-10)), 0x3f7f_ffff);
        assert_eq!(unary::<true>(FUnOp::Frac, NEG_DENORM), f(0.0));
    }

    /// D3D11.3 `_sat`: NaN → 0, clamp to [0, 1].
    #[test]
    fn saturate() {
        assert_eq!(unary::<true>(FUnOp::Sat, 0x7fc0_0000), 0);
        assert_eq!(unary::<true>(FUnOp::Sat, f(-0.0)), 0);
        assert_eq!(unary::<true>(FUnOp::Sat, f(2.0)), f(1.0));
        assert_eq!(unary::<true>(FUnOp::Sat, f(0.25)), f(0.25));
        assert_eq!(unary::<true>(FUnOp::Sat, f(f32::NEG_INFINITY)), 0);
    }

    /// Special values of sqrt, rsq, rcp, exp2, log2 (D3D11.3 §3.1).
    #[test]
    fn special_values() {
        let u = |op, x: f32| f32::from_bits(unary::<true>(op, f(x)));
        assert_eq!(u(FUnOp::Rsq, 0.0), f32::INFINITY);
        assert_eq!(u(FUnOp::Rsq, -0.0), f32::NEG_INFINITY);
        assert_eq!(u(FUnOp::Rsq, f32::INFINITY), 0.0);
        assert!(u(FUnOp::Rsq, -1.0).is_nan());
        assert_eq!(u(FUnOp::Rsq, 4.0), 0.5);
        assert_eq!(u(FUnOp::Rcp, -0.0), f32::NEG_INFINITY);
        assert_eq!(u(FUnOp::Log2, 0.0), f32::NEG_INFINITY);
        assert_eq!(
            f32::from_bits(unary::<true>(FUnOp::Log2, NEG_DENORM)),
            f32::NEG_INFINITY
        );
        assert!(u(FUnOp::Log2, -1.0).is_nan());
        assert_eq!(u(FUnOp::Exp2, f32::NEG_INFINITY), 0.0);
        assert_eq!(u(FUnOp::Exp2, 10.0), 1024.0);
        assert_eq!(u(FUnOp::Exp2, -130.0), 0.0); // denormal result flushed
        assert!(u(FUnOp::Sin, f32::INFINITY).is_nan());
        assert_eq!(u(FUnOp::Sqrt, -0.0).to_bits(), f(-0.0));
    }

    #[test]
    fn comparisons() {
        let nan = 0x7fc0_0000;
        assert_eq!(cmp::<true>(FCond::Eq, DENORM, 0), u32::MAX);
        assert_eq!(cmp::<false>(FCond::Eq, DENORM, 0), 0);
        assert_eq!(cmp::<true>(FCond::Ne, nan, nan), u32::MAX);
        assert_eq!(cmp::<true>(FCond::Lt, nan, f(1.0)), 0);
        assert_eq!(cmp::<true>(FCond::UnordLt, nan, f(1.0)), u32::MAX);
        assert_eq!(cmp::<true>(FCond::OrdNe, nan, f(1.0)), 0);
        assert_eq!(cmp::<true>(FCond::Ge, f(-0.0), f(0.0)), u32::MAX);
    }

    #[test]
    fn doubles_keep_denormals() {
        let d = f64::from_bits(1);
        assert_eq!(drcp(2f64.to_bits()), 0.5f64.to_bits());
        assert_eq!(dfma(d.to_bits(), 1f64.to_bits(), 0), 1);
        assert_eq!(drcp(0x8000_0000_0000_0000), f64::NEG_INFINITY.to_bits());
    }
}
