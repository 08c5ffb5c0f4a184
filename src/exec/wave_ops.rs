//! Wave and quad operations, and derivatives.
//!
//! Wave operations see exactly the active lanes that are not helper lanes (SM 6.0: helper
//! lanes take no part in wave operations) — or every active lane, helpers included, in a
//! pixel shader with SM 6.7's `[WaveOpsIncludeHelperLanes]` (HLSL SM 6.7 "Helper Lanes in
//! Wave Ops Mode": helper lanes are then active lanes for wave intrinsics); quad operations
//! and derivatives read every lane of the quad. Quads are lanes `4k … 4k + 3`: lane 0 top-left, 1 top-right, 2
//! bottom-left, 3 bottom-right (in compute, `pipeline::dispatch` lays threads out so that
//! this holds for SM 6.6 compute quads).
//!
//! Reductions and prefix operations combine values **in lane order**, left to right:
//! `((v0 op v1) op v2) …` — which fixes float sums and products bit for bit. Prefix
//! operations are exclusive: the first lane gets the identity (0 for sums, 1 for
//! products, the largest value for `min`, the smallest for `max`, all ones for `and`, 0
//! for `or`/`xor`). 16-bit float operations are computed in `f32` and each result rounded
//! to nearest even (profile), 16-bit integer ones wrap at 16 bits; 16-bit results are
//! zero-extended.

use crate::ir::{DerivKind, QuadDir, Reg, WaveOp, WaveTy};

use super::Ctx;
use super::convert::{f16_to_f32, f32_to_f16_native, f32_to_f16_rne};
use super::float;
use super::profile::F16Rule;
use super::wave::{Exec, Wave, lanes};

/// The lanes wave operations see.
#[inline(always)]
fn wave_lanes<const W: usize>(w: &Wave<W>) -> u128 {
    if w.helpers_in_wave_ops {
        w.ex.mask
    } else {
        w.ex.mask & !w.helper
    }
}

/// Lane `l`'s value of `r` (64-bit when `wide`).
#[inline(always)]
fn val<const W: usize>(regs: &[[u32; W]], r: Reg, wide: bool, l: usize) -> u64 {
    let lo = u64::from(regs[r.index()][l]);
    if wide {
        lo | (u64::from(regs[r.hi().index()][l]) << 32)
    } else {
        lo
    }
}

/// Stores per-lane results (pairs when `wide`).
fn put<const W: usize>(regs: &mut [[u32; W]], ex: &Exec<W>, d: Reg, wide: bool, out: &[u64; W]) {
    if wide {
        ex.store64(regs, d, out);
    } else {
        let mut r = [0u32; W];
        for l in 0..W {
            r[l] = out[l] as u32;
        }
        ex.store(regs, d, &r);
    }
}

/// `a op b` for values of type `ty` (see the module doc for 16-bit types).
pub fn combine(op: WaveOp, ty: WaveTy, a: u64, b: u64, ftz: bool, f16: F16Rule) -> u64 {
    match ty {
        WaveTy::F32 => {
            let (a, b) = (a as u32, b as u32);
            u64::from(match (op, ftz) {
                (WaveOp::Sum, true) => float::add::<true>(a, b),
                (WaveOp::Sum, false) => float::add::<false>(a, b),
                (WaveOp::Product, true) => float::mul::<true>(a, b),
                (WaveOp::Product, false) => float::mul::<false>(a, b),
                (WaveOp::Min, true) => float::min::<true>(a, b),
                (WaveOp::Min, false) => float::min::<false>(a, b),
                (WaveOp::Max, true) => float::max::<true>(a, b),
                (WaveOp::Max, false) => float::max::<false>(a, b),
                _ => a,
            })
        }
        WaveTy::F16 => {
            let x = f32::from_bits(f16_to_f32(a as u32));
            let y = f32::from_bits(f16_to_f32(b as u32));
            let r = match op {
                WaveOp::Sum => x + y,
                WaveOp::Product => x * y,
                WaveOp::Min => float::min_f32(x, y),
                WaveOp::Max => float::max_f32(x, y),
                _ => x,
            };
            u64::from(f32_to_f16_native(r.to_bits(), f16))
        }
        WaveTy::F64 => {
            let (x, y) = (f64::from_bits(a), f64::from_bits(b));
            match op {
                WaveOp::Sum => (x + y).to_bits(),
                WaveOp::Product => (x * y).to_bits(),
                WaveOp::Min => float::dmin(a, b),
                WaveOp::Max => float::dmax(a, b),
                _ => a,
            }
        }
        WaveTy::I16 | WaveTy::U16 | WaveTy::I32 | WaveTy::U32 | WaveTy::I64 | WaveTy::U64 => {
            let bits = match ty {
                WaveTy::I16 | WaveTy::U16 => 16,
                WaveTy::I32 | WaveTy::U32 => 32,
                _ => 64,
            };
            let signed = matches!(ty, WaveTy::I16 | WaveTy::I32 | WaveTy::I64);
            let m = if bits == 64 {
                u64::MAX
            } else {
                (1u64 << bits) - 1
            };
            let sx = |v: u64| -> i64 {
                let s = 64 - bits;
                (((v & m) << s) as i64) >> s
            };
            let r = match op {
                WaveOp::Sum => a.wrapping_add(b),
                WaveOp::Product => a.wrapping_mul(b),
                WaveOp::And => a & b,
                WaveOp::Or => a | b,
                WaveOp::Xor => a ^ b,
                WaveOp::Min if signed => {
                    if sx(a) <= sx(b) {
                        a
                    } else {
                        b
                    }
                }
                WaveOp::Max if signed => {
                    if sx(a) >= sx(b) {
                        a
                    } else {
                        b
                    }
                }
                WaveOp::Min => (a & m).min(b & m),
                WaveOp::Max => (a & m).max(b & m),
            };
            r & m
        }
    }
}

/// The identity of `op` on `ty` (the first lane's prefix result).
pub fn identity(op: WaveOp, ty: WaveTy) -> u64 {
    let float = |f: f64| -> u64 {
        match ty {
            WaveTy::F16 => u64::from(f32_to_f16_rne((f as f32).to_bits(), 0x7fff)),
            WaveTy::F32 => u64::from((f as f32).to_bits()),
            _ => f.to_bits(),
        }
    };
    let (bits, signed) = match ty {
        WaveTy::I16 => (16, true),
        WaveTy::U16 => (16, false),
        WaveTy::I32 => (32, true),
        WaveTy::U32 => (32, false),
        WaveTy::I64 => (64, true),
        WaveTy::U64 => (64, false),
        _ => {
            return match op {
                WaveOp::Product => float(1.0),
                WaveOp::Min => float(f64::INFINITY),
                WaveOp::Max => float(f64::NEG_INFINITY),
                _ => float(0.0),
            };
        }
    };
    let m = if bits == 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    };
    match op {
        WaveOp::Product => 1,
        WaveOp::And => m,
        WaveOp::Min if signed => m >> 1,
        WaveOp::Min => m,
        WaveOp::Max if signed => (m >> 1) + 1,
        _ => 0,
    }
}

/// `wave_reduce`: `op` over the wave's lanes in lane order, to every active lane.
pub fn reduce<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    op: WaveOp,
    ty: WaveTy,
    dst: Reg,
    src: Reg,
) {
    let wide = ty.is_wide();
    let mut acc: Option<u64> = None;
    for l in lanes(wave_lanes(w)) {
        let v = val(&w.regs, src, wide, l);
        acc = Some(match acc {
            None => first_value(ty, v),
            Some(a) => combine(op, ty, a, v, cx.ftz, cx.profile.f16),
        });
    }
    let r = acc.unwrap_or_else(|| identity(op, ty));
    put(&mut w.regs, &w.ex, dst, wide, &[r; W]);
}

/// The first value of a fold: the lane's own value as the type keeps it (16-bit values
/// masked), not combined with the identity (which could turn `−0` into `+0`).
#[inline(always)]
fn first_value(ty: WaveTy, v: u64) -> u64 {
    match ty {
        WaveTy::F16 | WaveTy::I16 | WaveTy::U16 => v & 0xffff,
        WaveTy::F32 | WaveTy::I32 | WaveTy::U32 => v & 0xffff_ffff,
        _ => v,
    }
}

/// `wave_prefix`: `op` over the wave's lanes below each lane (exclusive), in lane order.
pub fn prefix<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    op: WaveOp,
    ty: WaveTy,
    dst: Reg,
    src: Reg,
) {
    let wide = ty.is_wide();
    let mut out = [0u64; W];
    let mut acc: Option<u64> = None;
    for l in lanes(wave_lanes(w)) {
        out[l] = acc.unwrap_or_else(|| identity(op, ty));
        let v = val(&w.regs, src, wide, l);
        acc = Some(match acc {
            None => first_value(ty, v),
            Some(a) => combine(op, ty, a, v, cx.ftz, cx.profile.f16),
        });
    }
    // Helper lanes (active but outside the wave's lanes) get the identity.
    for l in lanes(w.ex.mask & !wave_lanes(w)) {
        out[l] = identity(op, ty);
    }
    put(&mut w.regs, &w.ex, dst, wide, &out);
}

/// `wave_multi_prefix`: like [`prefix`] over the lanes below each lane that are in its
/// own partition mask (`mask` registers, 128 bits).
#[allow(clippy::too_many_arguments)]
pub fn multi_prefix<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    op: WaveOp,
    ty: WaveTy,
    dst: Reg,
    src: Reg,
    mask: &[Reg; 4],
) {
    let wide = ty.is_wide();
    let active = wave_lanes(w);
    let mut out = [0u64; W];
    for l in lanes(w.ex.mask) {
        let part = lane_mask(&w.regs, mask, l) & active & ((1u128 << l) - 1);
        let mut acc: Option<u64> = None;
        for k in lanes(part) {
            let v = val(&w.regs, src, wide, k);
            acc = Some(match acc {
                None => first_value(ty, v),
                Some(a) => combine(op, ty, a, v, cx.ftz, cx.profile.f16),
            });
        }
        out[l] = acc.unwrap_or_else(|| identity(op, ty));
    }
    put(&mut w.regs, &w.ex, dst, wide, &out);
}

/// A lane's 128-bit mask from four registers (`_` reads 0).
fn lane_mask<const W: usize>(regs: &[[u32; W]], m: &[Reg; 4], l: usize) -> u128 {
    let mut v = 0u128;
    for (i, r) in m.iter().enumerate() {
        if !r.is_none() {
            v |= u128::from(regs[r.index()][l]) << (32 * i);
        }
    }
    v
}

/// Lanes of the wave where `src != 0`.
fn true_lanes<const W: usize>(w: &Wave<W>, src: Reg) -> u128 {
    let s = w.regs[src.index()];
    let mut t = 0u128;
    for l in lanes(wave_lanes(w)) {
        if s[l] != 0 {
            t |= 1 << l;
        }
    }
    t
}

/// `wave_any` (`all = false`) / `wave_all`.
pub fn any_all<const W: usize>(w: &mut Wave<W>, dst: Reg, src: Reg, all: bool) {
    let t = true_lanes(w, src);
    let r = if all { t == wave_lanes(w) } else { t != 0 };
    w.ex.store(&mut w.regs, dst, &[float::bool_bits(r); W]);
}

/// `wave_all_equal`.
pub fn all_equal<const W: usize>(w: &mut Wave<W>, wide: bool, dst: Reg, src: Reg) {
    let mut first: Option<u64> = None;
    let mut eq = true;
    for l in lanes(wave_lanes(w)) {
        let v = val(&w.regs, src, wide, l);
        match first {
            None => first = Some(v),
            Some(f) => eq &= f == v,
        }
    }
    w.ex.store(&mut w.regs, dst, &[float::bool_bits(eq); W]);
}

/// Stores a 128-bit mask, the same in every active lane, to four registers.
fn put_mask<const W: usize>(regs: &mut [[u32; W]], ex: &Exec<W>, dst: &[Reg; 4], m: u128) {
    for (i, d) in dst.iter().enumerate() {
        if !d.is_none() {
            ex.store(regs, *d, &[(m >> (32 * i)) as u32; W]);
        }
    }
}

/// `wave_ballot`: bit `l` set for each wave lane where `src != 0`.
pub fn ballot<const W: usize>(w: &mut Wave<W>, dst: &[Reg; 4], src: Reg) {
    let t = true_lanes(w, src);
    put_mask(&mut w.regs, &w.ex, dst, t);
}

/// `wave_countbits` (`prefix = false`) / `wave_prefix_countbits`.
pub fn count_bits<const W: usize>(w: &mut Wave<W>, dst: Reg, src: Reg, prefix: bool) {
    let t = true_lanes(w, src);
    let mut r = [0u32; W];
    for l in 0..W {
        r[l] = if prefix {
            (t & ((1u128 << l) - 1)).count_ones()
        } else {
            t.count_ones()
        };
    }
    w.ex.store(&mut w.regs, dst, &r);
}

/// `wave_multi_prefix_countbits`: lanes below each lane, in its partition, with `src != 0`.
pub fn multi_prefix_count<const W: usize>(w: &mut Wave<W>, dst: Reg, src: Reg, mask: &[Reg; 4]) {
    let t = true_lanes(w, src);
    let mut r = [0u32; W];
    for l in lanes(w.ex.mask) {
        r[l] = (t & lane_mask(&w.regs, mask, l) & ((1u128 << l) - 1)).count_ones();
    }
    w.ex.store(&mut w.regs, dst, &r);
}

/// The value of `src` in lane `k` as a cross-lane read sees it: 0 for an inactive or
/// missing lane under the 1.0.14 profile, else whatever the lane's register holds.
#[inline(always)]
fn read_other<const W: usize>(
    w: &Wave<W>,
    cx: &Ctx<'_>,
    src: Reg,
    wide: bool,
    k: usize,
    seen: u128,
) -> u64 {
    if cx.profile.wave_read_inactive_zero && (k >= W || (seen >> k) & 1 == 0) {
        0
    } else {
        val(&w.regs, src, wide, k % W)
    }
}

/// `wave_read_lane`: `src` of the lane the first active lane's `lane` names.
pub fn read_lane<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    wide: bool,
    dst: Reg,
    src: Reg,
    lane: Reg,
) {
    let seen = wave_lanes(w);
    let idx = lanes(seen)
        .next()
        .map_or(0, |f| w.regs[lane.index()][f] as usize);
    let v = read_other(w, cx, src, wide, idx, seen);
    put(&mut w.regs, &w.ex, dst, wide, &[v; W]);
}

/// `wave_read_first`: `src` of the first wave lane.
pub fn read_first<const W: usize>(w: &mut Wave<W>, wide: bool, dst: Reg, src: Reg) {
    let v = lanes(wave_lanes(w))
        .next()
        .map_or(0, |f| val(&w.regs, src, wide, f));
    put(&mut w.regs, &w.ex, dst, wide, &[v; W]);
}

/// `wave_is_first`.
pub fn is_first<const W: usize>(w: &mut Wave<W>, dst: Reg) {
    let f = lanes(wave_lanes(w)).next();
    let mut r = [0u32; W];
    if let Some(f) = f {
        r[f] = u32::MAX;
    }
    w.ex.store(&mut w.regs, dst, &r);
}

/// `wave_match`: per lane, the mask of wave lanes holding the same value.
pub fn matching<const W: usize>(w: &mut Wave<W>, wide: bool, dst: &[Reg; 4], src: Reg) {
    let seen = wave_lanes(w);
    let mut masks = [0u128; W];
    for l in lanes(w.ex.mask) {
        let v = val(&w.regs, src, wide, l);
        masks[l] = lanes(seen)
            .filter(|&k| val(&w.regs, src, wide, k) == v)
            .fold(0u128, |m, k| m | (1 << k));
    }
    for (i, d) in dst.iter().enumerate() {
        if d.is_none() {
            continue;
        }
        let mut r = [0u32; W];
        for l in 0..W {
            r[l] = (masks[l] >> (32 * i)) as u32;
        }
        w.ex.store(&mut w.regs, *d, &r);
    }
}

/// `quad_read_lane`: `src` of lane `lane & 3` of each lane's quad.
pub fn quad_read_lane<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    wide: bool,
    dst: Reg,
    src: Reg,
    lane: Reg,
) {
    let sel = w.regs[lane.index()];
    let mut out = [0u64; W];
    for l in lanes(w.ex.mask) {
        let k = (l & !3) | (sel[l] as usize & 3);
        out[l] = read_other(w, cx, src, wide, k, w.ex.mask);
    }
    put(&mut w.regs, &w.ex, dst, wide, &out);
}

/// `quad_swap`: `src` of the quad neighbour across x (lane ^ 1), y (^ 2) or the diagonal.
pub fn quad_swap<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    dir: QuadDir,
    wide: bool,
    dst: Reg,
    src: Reg,
) {
    let x = match dir {
        QuadDir::X => 1,
        QuadDir::Y => 2,
        QuadDir::Diagonal => 3,
    };
    let mut out = [0u64; W];
    for l in lanes(w.ex.mask) {
        out[l] = read_other(w, cx, src, wide, l ^ x, w.ex.mask);
    }
    put(&mut w.regs, &w.ex, dst, wide, &out);
}

/// `quad_vote`: whether `src != 0` in any (or every) active lane of the quad.
pub fn quad_vote<const W: usize>(w: &mut Wave<W>, all: bool, dst: Reg, src: Reg) {
    let s = w.regs[src.index()];
    let mut r = [0u32; W];
    for l in lanes(w.ex.mask) {
        let q = l & !3;
        let mut any = false;
        let mut every = true;
        for k in q..(q + 4).min(W) {
            if w.ex.active(k) {
                any |= s[k] != 0;
                every &= s[k] != 0;
            }
        }
        r[l] = float::bool_bits(if all { every } else { any });
    }
    w.ex.store(&mut w.regs, dst, &r);
}

/// The derivative of per-lane values `v` across each lane's quad (D3D11.3's derivative instructions and the
/// `deriv_rt*` docs: x = right − left, y = bottom − top; coarse: from the top row / left
/// column, fine: from the lane's own row / column). Subtraction follows the float rules.
pub fn derivative<const W: usize>(kind: DerivKind, v: &[u32; W], ftz: bool) -> [u32; W] {
    let mut r = [0u32; W];
    let sub = |a: u32, b: u32| {
        if ftz {
            float::sub::<true>(a, b)
        } else {
            float::sub::<false>(a, b)
        }
    };
    for l in 0..W {
        let q = l & !3;
        let (hi, lo) = match kind {
            DerivKind::CoarseX => (q + 1, q),
            DerivKind::CoarseY => (q + 2, q),
            DerivKind::FineX => {
                let row = q + (l & 2);
                (row + 1, row)
            }
            DerivKind::FineY => {
                let col = q + (l & 1);
                (col + 2, col)
            }
        };
        r[l] = sub(v[hi.min(W - 1)], v[lo.min(W - 1)]);
    }
    r
}

/// `deriv`.
pub fn deriv<const W: usize>(w: &mut Wave<W>, cx: &Ctx<'_>, kind: DerivKind, dst: Reg, src: Reg) {
    let r = derivative(kind, &w.regs[src.index()], cx.ftz);
    w.ex.store(&mut w.regs, dst, &r);
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Prefix identities (HLSL WavePrefixSum/Product: the first lane gets 0 / 1).
    #[test]
    fn identities() {
        assert_eq!(identity(WaveOp::Sum, WaveTy::F32), 0);
        assert_eq!(identity(WaveOp::Product, WaveTy::F32), 0x3f80_0000);
        assert_eq!(identity(WaveOp::Product, WaveTy::F16), 0x3c00);
        assert_eq!(identity(WaveOp::Min, WaveTy::I32), 0x7fff_ffff);
        assert_eq!(identity(WaveOp::Max, WaveTy::I16), 0x8000);
        assert_eq!(identity(WaveOp::And, WaveTy::U16), 0xffff);
        assert_eq!(identity(WaveOp::Min, WaveTy::U64), u64::MAX);
    }

    const RNE: F16Rule = F16Rule {
        rounding: crate::resources::format::Rounding::NearestEven,
        nan: 0x7fff,
    };

    #[test]
    fn combine_by_type() {
        assert_eq!(
            combine(WaveOp::Min, WaveTy::I16, 0xfffb, 3, true, RNE),
            0xfffb
        );
        assert_eq!(combine(WaveOp::Min, WaveTy::U16, 0xfffb, 3, true, RNE), 3);
        assert_eq!(combine(WaveOp::Sum, WaveTy::U16, 0xffff, 2, true, RNE), 1);
        // fp16: computed in f32, rounded to nearest even.
        assert_eq!(
            combine(WaveOp::Sum, WaveTy::F16, 0x3c00, 0x1000, true, RNE),
            0x3c00
        );
        assert_eq!(
            combine(WaveOp::Sum, WaveTy::F16, 0x7bff, 0x7bff, true, RNE),
            0x7c00
        );
        assert_eq!(
            combine(
                WaveOp::Max,
                WaveTy::F32,
                0x7fc0_0000,
                0x3f80_0000,
                true,
                RNE
            ),
            0x3f80_0000
        );
    }

    /// Quad layout: 0 1 / 2 3; coarse from the top-left lane, fine per row/column.
    #[test]
    fn derivatives() {
        let v: [u32; 4] = [1.0f32, 2.0, 5.0, 7.0].map(f32::to_bits);
        let d = |k| derivative(k, &v, true).map(f32::from_bits);
        assert_eq!(d(DerivKind::CoarseX), [1.0; 4]);
        assert_eq!(d(DerivKind::CoarseY), [4.0; 4]);
        assert_eq!(d(DerivKind::FineX), [1.0, 1.0, 2.0, 2.0]);
        assert_eq!(d(DerivKind::FineY), [4.0, 5.0, 4.0, 5.0]);
    }
}
