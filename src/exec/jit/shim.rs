//! The interpreter's scalar rules as `extern "C"` functions, for the generated code to
//! call one lane at a time where no exact inline form is emitted. Each shim is the rule's
//! own function (`exec::{float, convert, arith, bits}`), so a rule still lives in one
//! place. Every rule is total (no panics on any bits), which matters here: a panic cannot
//! unwind out of an `extern "C"` function.

use crate::exec::{arith, bits, convert, float};
use crate::ir::FUnOp;

/// The 32-bit float unary operations in the order their index is passed to
/// [`funary_ftz`] and [`funary_keep`].
pub const FUN_OPS: [FUnOp; 20] = [
    FUnOp::Sqrt,
    FUnOp::Rsq,
    FUnOp::Rcp,
    FUnOp::Exp2,
    FUnOp::Log2,
    FUnOp::Sin,
    FUnOp::Cos,
    FUnOp::Tan,
    FUnOp::Asin,
    FUnOp::Acos,
    FUnOp::Atan,
    FUnOp::Sinh,
    FUnOp::Cosh,
    FUnOp::Tanh,
    FUnOp::RoundNe,
    FUnOp::Floor,
    FUnOp::Ceil,
    FUnOp::Trunc,
    FUnOp::Frac,
    FUnOp::Sat,
];

/// The index of `op` in [`FUN_OPS`].
pub fn fun_index(op: FUnOp) -> u32 {
    FUN_OPS.iter().position(|&o| o == op).unwrap_or(0) as u32
}

/// `float::unary::<true>` (flushing).
pub extern "C" fn funary_ftz(op: u32, x: u32) -> u32 {
    let op = FUN_OPS.get(op as usize).copied().unwrap_or(FUnOp::Sqrt);
    float::unary::<true>(op, x)
}

/// `float::unary::<false>` (denormals kept).
pub extern "C" fn funary_keep(op: u32, x: u32) -> u32 {
    let op = FUN_OPS.get(op as usize).copied().unwrap_or(FUnOp::Sqrt);
    float::unary::<false>(op, x)
}

/// `float::rem::<true>`.
pub extern "C" fn frem_ftz(a: u32, b: u32) -> u32 {
    float::rem::<true>(a, b)
}

/// `float::rem::<false>`.
pub extern "C" fn frem_keep(a: u32, b: u32) -> u32 {
    float::rem::<false>(a, b)
}

/// `convert::f32_to_f16_legacy`.
pub extern "C" fn f32_to_f16_legacy(a: u32) -> u32 {
    convert::f32_to_f16_legacy(a)
}

/// `convert::f16_to_f32`.
pub extern "C" fn f16_to_f32(a: u32) -> u32 {
    convert::f16_to_f32(a)
}

/// `bits::bfi`.
pub extern "C" fn bfi(width: u32, offset: u32, insert: u32, base: u32) -> u32 {
    bits::bfi(width, offset, insert, base)
}

/// `bits::ubfe`.
pub extern "C" fn ubfe(width: u32, offset: u32, src: u32) -> u32 {
    bits::ubfe(width, offset, src)
}

/// `bits::ibfe`.
pub extern "C" fn ibfe(width: u32, offset: u32, src: u32) -> u32 {
    bits::ibfe(width, offset, src)
}

/// `bits::msad`.
pub extern "C" fn msad(reference: u32, src: u32, accum: u32) -> u32 {
    bits::msad(reference, src, accum)
}

/// `bits::firstbit_hi`.
pub extern "C" fn firstbit_hi(a: u32) -> u32 {
    bits::firstbit_hi(a)
}

/// `bits::firstbit_lo`.
pub extern "C" fn firstbit_lo(a: u32) -> u32 {
    bits::firstbit_lo(a)
}

/// `bits::firstbit_shi`.
pub extern "C" fn firstbit_shi(a: u32) -> u32 {
    bits::firstbit_shi(a)
}

/// `u32::reverse_bits` (`bfrev`).
pub extern "C" fn bfrev(a: u32) -> u32 {
    a.reverse_bits()
}

/// `arith::udiv`.
pub extern "C" fn udiv(a: u32, b: u32) -> u32 {
    arith::udiv(a, b)
}

/// `arith::urem`.
pub extern "C" fn urem(a: u32, b: u32) -> u32 {
    arith::urem(a, b)
}

/// `arith::idiv`.
pub extern "C" fn idiv(a: u32, b: u32) -> u32 {
    arith::idiv(a, b)
}

/// `arith::irem`.
pub extern "C" fn irem(a: u32, b: u32) -> u32 {
    arith::irem(a, b)
}

/// `arith::imulhi`.
pub extern "C" fn imulhi(a: u32, b: u32) -> u32 {
    arith::imulhi(a, b)
}

/// `arith::umulhi`.
pub extern "C" fn umulhi(a: u32, b: u32) -> u32 {
    arith::umulhi(a, b)
}
