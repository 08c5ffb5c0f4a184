//! Integer arithmetic rules (32- and 64-bit), one function per rule.

/// Unsigned division; by zero gives `0xffffffff` (D3D11.3 instruction reference, `udiv`: "divide by zero
/// returns 0xffffffff for both quotient and remainder"; DESIGN).
#[inline(always)]
pub fn udiv(a: u32, b: u32) -> u32 {
    a.checked_div(b).unwrap_or(u32::MAX)
}

/// Unsigned remainder; by zero gives `0xffffffff`.
#[inline(always)]
pub fn urem(a: u32, b: u32) -> u32 {
    a.checked_rem(b).unwrap_or(u32::MAX)
}

/// Signed division toward zero; by zero gives `0xffffffff`; `i32::MIN / −1` gives
/// `i32::MIN` (the choice written in `ir::Inst::IDiv`).
#[inline(always)]
pub fn idiv(a: u32, b: u32) -> u32 {
    if b == 0 {
        u32::MAX
    } else {
        (a as i32).wrapping_div(b as i32) as u32
    }
}

/// Signed remainder (sign of the dividend); by zero `0xffffffff`; `i32::MIN % −1` is 0.
#[inline(always)]
pub fn irem(a: u32, b: u32) -> u32 {
    if b == 0 {
        u32::MAX
    } else {
        (a as i32).wrapping_rem(b as i32) as u32
    }
}

/// High 32 bits of the signed 64-bit product (DXBC `imul` high result).
#[inline(always)]
pub fn imulhi(a: u32, b: u32) -> u32 {
    ((i64::from(a as i32) * i64::from(b as i32)) >> 32) as u32
}

/// High 32 bits of the unsigned 64-bit product (DXBC `umul` high result).
#[inline(always)]
pub fn umulhi(a: u32, b: u32) -> u32 {
    ((u64::from(a) * u64::from(b)) >> 32) as u32
}

/// `a << (b & 31)`: D3D masks shift counts to 5 bits (D3D11.3 instruction reference, `ishl`; DESIGN).
#[inline(always)]
pub fn shl(a: u32, b: u32) -> u32 {
    a << (b & 31)
}

/// Logical `a >> (b & 31)` (DXBC `ushr`).
#[inline(always)]
pub fn ushr(a: u32, b: u32) -> u32 {
    a >> (b & 31)
}

/// Arithmetic `a >> (b & 31)` (DXBC `ishr`).
#[inline(always)]
pub fn ishr(a: u32, b: u32) -> u32 {
    ((a as i32) >> (b & 31)) as u32
}

/// An integer comparison (the IR's `ICond`) as a 32-bit boolean.
#[inline(always)]
pub fn icmp(cond: crate::ir::ICond, a: u32, b: u32) -> u32 {
    super::float::bool_bits(icmp64(
        cond,
        u64::from(a),
        u64::from(b),
        a as i32 as i64,
        b as i32 as i64,
    ))
}

/// An integer comparison on 64-bit values (given both as unsigned and signed).
#[inline(always)]
pub fn icmp64(cond: crate::ir::ICond, ua: u64, ub: u64, sa: i64, sb: i64) -> bool {
    use crate::ir::ICond as C;
    match cond {
        C::Eq => ua == ub,
        C::Ne => ua != ub,
        C::SLt => sa < sb,
        C::SLe => sa <= sb,
        C::SGt => sa > sb,
        C::SGe => sa >= sb,
        C::ULt => ua < ub,
        C::ULe => ua <= ub,
        C::UGt => ua > ub,
        C::UGe => ua >= ub,
    }
}

/// `(sum, carry)` of an unsigned add (DXBC `uaddc`): carry 1 on overflow.
#[inline(always)]
pub fn uaddc(a: u32, b: u32) -> (u32, u32) {
    let (s, c) = a.overflowing_add(b);
    (s, u32::from(c))
}

/// `(difference, borrow)` of an unsigned subtract (DXBC `usubb`): borrow 1 when `b > a`.
#[inline(always)]
pub fn usubb(a: u32, b: u32) -> (u32, u32) {
    let (d, c) = a.overflowing_sub(b);
    (d, u32::from(c))
}

/// 64-bit unsigned division; by zero all ones (as [`udiv`]).
#[inline(always)]
pub fn u64div(a: u64, b: u64) -> u64 {
    a.checked_div(b).unwrap_or(u64::MAX)
}

/// 64-bit unsigned remainder; by zero all ones.
#[inline(always)]
pub fn u64rem(a: u64, b: u64) -> u64 {
    a.checked_rem(b).unwrap_or(u64::MAX)
}

/// 64-bit signed division; by zero all ones; `MIN / −1` = `MIN`.
#[inline(always)]
pub fn i64div(a: u64, b: u64) -> u64 {
    if b == 0 {
        u64::MAX
    } else {
        (a as i64).wrapping_div(b as i64) as u64
    }
}

/// 64-bit signed remainder; by zero all ones; `MIN % −1` = 0.
#[inline(always)]
pub fn i64rem(a: u64, b: u64) -> u64 {
    if b == 0 {
        u64::MAX
    } else {
        (a as i64).wrapping_rem(b as i64) as u64
    }
}

/// `a << (b & 63)`: 64-bit shift counts use 6 bits.
#[inline(always)]
pub fn i64shl(a: u64, b: u32) -> u64 {
    a << (b & 63)
}

/// Logical 64-bit `a >> (b & 63)`.
#[inline(always)]
pub fn u64shr(a: u64, b: u32) -> u64 {
    a >> (b & 63)
}

/// Arithmetic 64-bit `a >> (b & 63)`.
#[inline(always)]
pub fn i64shr(a: u64, b: u32) -> u64 {
    ((a as i64) >> (b & 63)) as u64
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::ICond;

    /// DESIGN / D3D11.3 `udiv`: division by zero gives 0xffffffff for both results.
    #[test]
    fn division_by_zero() {
        assert_eq!(udiv(7, 0), u32::MAX);
        assert_eq!(urem(7, 0), u32::MAX);
        assert_eq!(idiv(7, 0), u32::MAX);
        assert_eq!(irem(7, 0), u32::MAX);
        assert_eq!(u64div(7, 0), u64::MAX);
        assert_eq!(i64rem(7, 0), u64::MAX);
    }

    /// `ir::Inst::IDiv`/`IRem` docs: `MIN / −1 = MIN`, `MIN % −1 = 0`, toward zero.
    #[test]
    fn signed_division_edges() {
        let min = i32::MIN as u32;
        let m1 = (-1i32) as u32;
        assert_eq!(idiv(min, m1), min);
        assert_eq!(irem(min, m1), 0);
        assert_eq!(idiv((-7i32) as u32, 2), (-3i32) as u32);
        assert_eq!(irem((-7i32) as u32, 2), (-1i32) as u32);
        assert_eq!(i64div(i64::MIN as u64, u64::MAX), i64::MIN as u64);
        assert_eq!(i64rem(i64::MIN as u64, u64::MAX), 0);
    }

    /// DESIGN: shift counts use the low 5 bits (6 for 64-bit shifts).
    #[test]
    fn shift_counts_are_masked() {
        assert_eq!(shl(1, 33), 2);
        assert_eq!(ushr(0x8000_0000, 63), 1);
        assert_eq!(ishr(0x8000_0000, 31), u32::MAX);
        assert_eq!(i64shl(1, 65), 2);
        assert_eq!(u64shr(1 << 63, 127), 1);
        assert_eq!(i64shr(1 << 63, 63), u64::MAX);
    }

    #[test]
    fn products_and_carries() {
        assert_eq!(imulhi((-2i32) as u32, 3), u32::MAX);
        assert_eq!(umulhi(u32::MAX, u32::MAX), 0xffff_fffe);
        assert_eq!(uaddc(u32::MAX, 2), (1, 1));
        assert_eq!(usubb(1, 2), (u32::MAX, 1));
        assert_eq!(usubb(2, 1), (1, 0));
        assert_eq!(icmp(ICond::SLt, u32::MAX, 0), u32::MAX);
        assert_eq!(icmp(ICond::ULt, u32::MAX, 0), 0);
    }
}
