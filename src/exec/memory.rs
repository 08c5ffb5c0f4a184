//! Per-lane arrays, constant arrays and group shared memory.
//!
//! All three are byte-addressed and robust: a component whose bytes do not all lie inside
//! the array reads 0, and its write is dropped. Per-lane arrays are stored
//! structure-of-arrays (one `[u32; W]` per 4-byte word), so lane `l` reads word `i` at
//! `array[i][l]`. Group shared memory belongs to the thread group: its waves run on one
//! worker thread, one at a time, so it is plain words; its atomics run in wave order, then
//! lane order.

use crate::ir::{AtomicOp, Reg, Width};
use crate::resources::RmwOp;

use super::resource::{reg_or_zero, rmw, width_bytes};
use super::wave::{Exec, Wave, lanes};

/// Reads `n` (2, 4 or 8) bytes at byte `addr` of `len` bytes of words (`word(i)` is word
/// `i`); `None` when any byte lies past the end.
#[inline(always)]
pub fn read_bytes(addr: u64, n: u32, len: u64, word: impl Fn(usize) -> u32) -> Option<u64> {
    let end = addr.checked_add(u64::from(n))?;
    if end > len {
        return None;
    }
    if n == 4 && addr % 4 == 0 {
        return Some(u64::from(word((addr / 4) as usize)));
    }
    let first = (addr / 4) as usize;
    let last = ((end - 1) / 4) as usize;
    let mut v: u128 = 0;
    for (k, i) in (first..=last).enumerate() {
        v |= u128::from(word(i)) << (32 * k);
    }
    let v = (v >> ((addr % 4) * 8)) as u64;
    Some(if n >= 8 {
        v
    } else {
        v & ((1u64 << (n * 8)) - 1)
    })
}

/// Writes the low `n` bytes of `v` at byte `addr` of `len` bytes of words; false (and
/// nothing written) when any byte lies past the end.
#[inline(always)]
pub fn write_bytes(
    addr: u64,
    n: u32,
    v: u64,
    len: u64,
    mut set: impl FnMut(usize, u32, u32),
) -> bool {
    let Some(end) = addr.checked_add(u64::from(n)) else {
        return false;
    };
    if end > len {
        return false;
    }
    let first = (addr / 4) as usize;
    let last = ((end - 1) / 4) as usize;
    let shift = (addr % 4) * 8;
    let bits: u128 = if n >= 8 {
        u128::from(u64::MAX)
    } else {
        (1u128 << (n * 8)) - 1
    };
    let mask = bits << shift;
    let val = (u128::from(v) << shift) & mask;
    for (k, i) in (first..=last).enumerate() {
        set(i, (val >> (32 * k)) as u32, (mask >> (32 * k)) as u32);
    }
    true
}

/// Merges `v` into `*w` under `mask`.
#[inline(always)]
fn merge(w: &mut u32, v: u32, mask: u32) {
    *w = (*w & !mask) | (v & mask);
}

/// Stores one component's per-lane results.
fn store_out<const W: usize>(
    regs: &mut [[u32; W]],
    ex: &Exec<W>,
    dst: &[Reg; 4],
    wide: bool,
    out: &[[u64; W]; 4],
) {
    for (i, d) in dst.iter().enumerate() {
        if d.is_none() {
            continue;
        }
        if wide {
            ex.store64(regs, *d, &out[i]);
        } else {
            let mut r = [0u32; W];
            for l in 0..W {
                r[l] = out[i][l] as u32;
            }
            ex.store(regs, *d, &r);
        }
    }
}

#[inline(always)]
fn src_value<const W: usize>(regs: &[[u32; W]], r: Reg, wide: bool, l: usize) -> u64 {
    if r.is_none() {
        return 0;
    }
    let lo = u64::from(regs[r.index()][l]);
    if wide {
        lo | (u64::from(regs[r.hi().index()][l]) << 32)
    } else {
        lo
    }
}

/// `local_load`: components of the lane's own array at `addr + offset + i × size`.
#[allow(clippy::too_many_arguments)]
pub fn local_load<const W: usize>(
    w: &mut Wave<W>,
    width: Width,
    mask: u8,
    dst: &[Reg; 4],
    array: usize,
    addr: Reg,
    offset: u32,
) {
    let n = width_bytes(width);
    let a = reg_or_zero(&w.regs, addr);
    let mut out = [[0u64; W]; 4];
    if let Some(arr) = w.locals.get(array) {
        let len = arr.len() as u64 * 4;
        for l in lanes(w.ex.mask) {
            let base = u64::from(a[l]) + u64::from(offset);
            for i in 0..4u32 {
                if mask & (1 << i) != 0 {
                    out[i as usize][l] =
                        read_bytes(base + u64::from(i * n), n, len, |k| arr[k][l]).unwrap_or(0);
                }
            }
        }
    }
    store_out(&mut w.regs, &w.ex, dst, width == Width::B64, &out);
}

/// `local_store`: components into the lane's own array.
#[allow(clippy::too_many_arguments)]
pub fn local_store<const W: usize>(
    w: &mut Wave<W>,
    width: Width,
    mask: u8,
    array: usize,
    addr: Reg,
    offset: u32,
    src: &[Reg; 4],
) {
    let n = width_bytes(width);
    let a = reg_or_zero(&w.regs, addr);
    let wide = width == Width::B64;
    let regs = &w.regs;
    let Some(arr) = w.locals.get_mut(array) else {
        return;
    };
    let len = arr.len() as u64 * 4;
    for l in lanes(w.ex.mask) {
        let base = u64::from(a[l]) + u64::from(offset);
        for i in 0..4u32 {
            if mask & (1 << i) != 0 {
                let v = src_value(regs, src[i as usize], wide, l);
                write_bytes(base + u64::from(i * n), n, v, len, |k, x, m| {
                    if let Some(word) = arr.get_mut(k) {
                        merge(&mut word[l], x, m);
                    }
                });
            }
        }
    }
}

/// `const_load`: components of a constant array (shared by all lanes).
#[allow(clippy::too_many_arguments)]
pub fn const_load<const W: usize>(
    w: &mut Wave<W>,
    words: &[u32],
    width: Width,
    mask: u8,
    dst: &[Reg; 4],
    addr: Reg,
    offset: u32,
) {
    let n = width_bytes(width);
    let a = reg_or_zero(&w.regs, addr);
    let len = words.len() as u64 * 4;
    let mut out = [[0u64; W]; 4];
    for l in lanes(w.ex.mask) {
        let base = u64::from(a[l]) + u64::from(offset);
        for i in 0..4u32 {
            if mask & (1 << i) != 0 {
                out[i as usize][l] =
                    read_bytes(base + u64::from(i * n), n, len, |k| words[k]).unwrap_or(0);
            }
        }
    }
    store_out(&mut w.regs, &w.ex, dst, width == Width::B64, &out);
}

/// `shared_load`: components of group shared memory (`len` bytes).
#[allow(clippy::too_many_arguments)]
pub fn shared_load<const W: usize>(
    w: &mut Wave<W>,
    shared: &[u32],
    len: u64,
    width: Width,
    mask: u8,
    dst: &[Reg; 4],
    addr: Reg,
    offset: u32,
) {
    let n = width_bytes(width);
    let a = reg_or_zero(&w.regs, addr);
    let mut out = [[0u64; W]; 4];
    for l in lanes(w.ex.mask) {
        let base = u64::from(a[l]) + u64::from(offset);
        for i in 0..4u32 {
            if mask & (1 << i) != 0 {
                out[i as usize][l] =
                    read_bytes(base + u64::from(i * n), n, len, |k| shared[k]).unwrap_or(0);
            }
        }
    }
    store_out(&mut w.regs, &w.ex, dst, width == Width::B64, &out);
}

/// `shared_store`: components into group shared memory, in lane order.
#[allow(clippy::too_many_arguments)]
pub fn shared_store<const W: usize>(
    w: &mut Wave<W>,
    shared: &mut [u32],
    len: u64,
    width: Width,
    mask: u8,
    addr: Reg,
    offset: u32,
    src: &[Reg; 4],
) {
    let n = width_bytes(width);
    let a = reg_or_zero(&w.regs, addr);
    let wide = width == Width::B64;
    for l in lanes(w.ex.mask & !w.helper) {
        let base = u64::from(a[l]) + u64::from(offset);
        for i in 0..4u32 {
            if mask & (1 << i) != 0 {
                let v = src_value(&w.regs, src[i as usize], wide, l);
                write_bytes(base + u64::from(i * n), n, v, len, |k, x, m| {
                    if let Some(word) = shared.get_mut(k) {
                        merge(word, x, m);
                    }
                });
            }
        }
    }
}

/// What a shared atomic does.
#[derive(Clone, Copy)]
pub enum SharedRmw {
    /// A read-modify-write.
    Op(AtomicOp),
    /// Compare-exchange.
    CmpXchg,
}

/// `shared_atomic` / `shared_cmpxchg` (and their 64-bit forms): in lane order, `dst` gets
/// the old value (0 out of bounds). Addresses are rounded down to the access size.
#[allow(clippy::too_many_arguments)]
pub fn shared_atomic<const W: usize>(
    w: &mut Wave<W>,
    shared: &mut [u32],
    len: u64,
    kind: SharedRmw,
    wide: bool,
    dst: Reg,
    addr: Reg,
    cmp: Reg,
    src: Reg,
) {
    let a = reg_or_zero(&w.regs, addr);
    let n: u32 = if wide { 8 } else { 4 };
    let mut out = [0u64; W];
    for l in lanes(w.ex.mask & !w.helper) {
        let at = u64::from(a[l]) & !(u64::from(n) - 1);
        let Some(old) = read_bytes(at, n, len, |k| shared[k]) else {
            continue;
        };
        let s = src_value(&w.regs, src, wide, l);
        let new = match kind {
            SharedRmw::Op(op) => {
                let op: RmwOp = rmw(op);
                if wide {
                    op.apply64(old, s)
                } else {
                    u64::from(op.apply32(old as u32, s as u32))
                }
            }
            SharedRmw::CmpXchg => {
                if old == src_value(&w.regs, cmp, wide, l) {
                    s
                } else {
                    old
                }
            }
        };
        write_bytes(at, n, new, len, |k, x, m| {
            if let Some(word) = shared.get_mut(k) {
                merge(word, x, m);
            }
        });
        out[l] = old;
    }
    if !dst.is_none() {
        if wide {
            w.ex.store64(&mut w.regs, dst, &out);
        } else {
            let mut r = [0u32; W];
            for l in 0..W {
                r[l] = out[l] as u32;
            }
            w.ex.store(&mut w.regs, dst, &r);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn byte_reads_and_writes_across_words() {
        let mut words = [0x4433_2211u32, 0x8877_6655, 0];
        let len = 12;
        assert_eq!(read_bytes(0, 4, len, |k| words[k]), Some(0x4433_2211));
        assert_eq!(read_bytes(2, 4, len, |k| words[k]), Some(0x6655_4433));
        assert_eq!(read_bytes(6, 2, len, |k| words[k]), Some(0x8877));
        assert_eq!(
            read_bytes(1, 8, len, |k| words[k]),
            Some(0x0088_7766_5544_3322)
        );
        assert_eq!(read_bytes(10, 4, len, |k| words[k]), None);
        assert_eq!(read_bytes(u64::MAX, 4, len, |k| words[k]), None);
        assert!(write_bytes(3, 2, 0xbbaa, len, |k, x, m| merge(
            &mut words[k],
            x,
            m
        )));
        assert_eq!(words[0], 0xaa33_2211);
        assert_eq!(words[1], 0x8877_66bb);
        assert!(!write_bytes(11, 2, 0, len, |k, x, m| merge(
            &mut words[k],
            x,
            m
        )));
    }
}
