//! Robustness: every decoder is fed corrupted programs and must refuse or succeed,

#![allow(dead_code)]
//! never panic. One submodule per layer; the mutations are shared here.
//!
//! The mutations are deterministic (a fixed-seed generator), so a failure names the
//! program, the mutation number and what was changed, and reproduces exactly.

mod container;

/// A small deterministic generator (SplitMix64); tests must not depend on `rand`'s
/// version-to-version stream.
pub struct Rng(u64);

impl Rng {
    /// A generator seeded from `seed`.
    pub fn new(seed: u64) -> Self {
        Rng(seed)
    }

    /// The next 64 random bits.
    pub fn next_u64(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9e37_79b9_7f4a_7c15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
        z ^ (z >> 31)
    }

    /// A number in `0..n` (`n > 0`).
    pub fn below(&mut self, n: usize) -> usize {
        (self.next_u64() % n as u64) as usize
    }
}

/// One corruption of a byte string, described for failure messages.
#[derive(Debug, Clone)]
pub enum Mutation {
    /// Flip bit `bit` of byte `at`.
    BitFlip { at: usize, bit: u8 },
    /// Set byte `at` to `value`.
    SetByte { at: usize, value: u8 },
    /// Overwrite four bytes at `at` with an interesting 32-bit value.
    SetWord { at: usize, value: u32 },
    /// Cut the input to `len` bytes.
    Truncate { len: usize },
    /// Copy `len` bytes from `from` over the bytes at `to`.
    Splice { from: usize, to: usize, len: usize },
    /// Insert `len` copies of `value` at `at`.
    Insert { at: usize, len: usize, value: u8 },
}

const INTERESTING: [u32; 10] = [
    0,
    1,
    0x7f,
    0x80,
    0xff,
    0xffff,
    0x7fff_ffff,
    0x8000_0000,
    0xffff_fffe,
    0xffff_ffff,
];

impl Mutation {
    /// A random mutation of an input of `len` bytes, restricted to bytes `range` when
    /// given (so that a part's contents can be targeted inside a valid container).
    pub fn random(rng: &mut Rng, len: usize, range: std::ops::Range<usize>) -> Mutation {
        let span = range.end.saturating_sub(range.start).max(1);
        let at = (range.start + rng.below(span)).min(len.saturating_sub(1));
        match rng.below(10) {
            0..=3 => Mutation::BitFlip {
                at,
                bit: rng.below(8) as u8,
            },
            4 => Mutation::SetByte {
                at,
                value: rng.next_u64() as u8,
            },
            5 | 6 => Mutation::SetWord {
                at: at & !3,
                value: INTERESTING[rng.below(INTERESTING.len())],
            },
            7 => Mutation::Truncate {
                len: range.start + rng.below(span),
            },
            8 => Mutation::Splice {
                from: rng.below(len.max(1)),
                to: at,
                len: 1 + rng.below(64),
            },
            _ => Mutation::Insert {
                at,
                len: 1 + rng.below(16),
                value: rng.next_u64() as u8,
            },
        }
    }

    /// Applies the mutation to a copy of `input`.
    pub fn apply(&self, input: &[u8]) -> Vec<u8> {
        let mut out = input.to_vec();
        match *self {
            Mutation::BitFlip { at, bit } => {
                if let Some(b) = out.get_mut(at) {
                    *b ^= 1 << bit;
                }
            }
            Mutation::SetByte { at, value } => {
                if let Some(b) = out.get_mut(at) {
                    *b = value;
                }
            }
            Mutation::SetWord { at, value } => {
                if let Some(w) = out.get_mut(at..at + 4) {
                    w.copy_from_slice(&value.to_le_bytes());
                }
            }
            Mutation::Truncate { len } => out.truncate(len),
            Mutation::Splice { from, to, len } => {
                let len = len
                    .min(input.len().saturating_sub(from))
                    .min(out.len().saturating_sub(to));
                out[to..to + len].copy_from_slice(&input[from..from + len]);
            }
            Mutation::Insert { at, len, value } => {
                let at = at.min(out.len());
                out.splice(at..at, std::iter::repeat_n(value, len));
            }
        }
        out
    }
}

/// Runs `check` on `count` mutations of `input` (seeded by `seed`) restricted to
/// `range`, and on the input with every byte of `range` set to 0x00 and 0xff in turn.
/// `check` must not panic; a panic is reported with the mutation that caused it.
pub fn mutate_each(
    name: &str,
    input: &[u8],
    range: std::ops::Range<usize>,
    seed: u64,
    count: usize,
    check: &dyn Fn(&[u8]),
) {
    let mut rng = Rng::new(seed);
    let run = |what: &dyn std::fmt::Debug, bytes: &[u8]| {
        let result = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| check(bytes)));
        if result.is_err() {
            panic!("{name}: panicked on {what:?}");
        }
    };
    for i in 0..count {
        let m = Mutation::random(&mut rng, input.len(), range.clone());
        run(&(i, &m), &m.apply(input));
    }
    for at in range.clone() {
        for value in [0x00u8, 0xff] {
            let m = Mutation::SetByte { at, value };
            run(&m, &m.apply(input));
        }
    }
}
mod dxbc;
mod dxil;
