//! A wave of `W` lanes: its structure-of-arrays registers, execution mask, per-lane
//! scheduling state, and the lane loops every handler is built from.
//!
//! `W` is a const generic (4, 8, 16, 32, 64 or 128, chosen when the wave is made), so each
//! lane loop is a fixed-length loop over `[u32; W]` arrays that the compiler unrolls and
//! vectorises. A handler computes its result for *all* `W` lanes (inactive lanes compute
//! harmless garbage: every rule is a total function) and then stores it through the
//! execution mask: a straight copy when every lane is active, a select with the mask's
//! per-lane `0`/`!0` words otherwise. Inactive lanes' registers are never written.

use crate::ir::Reg;
use crate::resources::sample_site::LaneScratch;

/// `next` value of a lane that has finished (returned, discarded, or never existed).
pub const DONE: u32 = u32::MAX;

/// The execution mask of a wave, in two forms: bits (`mask`) for scalar logic and one
/// `0`/`!0` word per lane (`sel`) for branch-free masked stores.
#[derive(Debug, Clone)]
pub struct Exec<const W: usize> {
    /// Bit `l` set when lane `l` is active.
    pub mask: u128,
    /// `!0` for active lanes, `0` for the others.
    pub sel: [u32; W],
    /// Whether all `W` lanes are active.
    pub full: bool,
}

impl<const W: usize> Exec<W> {
    /// The mask with every lane of a `W`-wide wave.
    pub const ALL: u128 = if W >= 128 {
        u128::MAX
    } else {
        (1u128 << W) - 1
    };

    /// A mask with no lane active.
    pub fn new() -> Self {
        Exec {
            mask: 0,
            sel: [0; W],
            full: false,
        }
    }

    /// Sets the active lanes.
    #[inline]
    pub fn set(&mut self, mask: u128) {
        self.mask = mask;
        self.full = mask == Self::ALL;
        mask_words(mask, &mut self.sel);
    }

    /// Whether lane `l` is active.
    #[inline(always)]
    pub fn active(&self, l: usize) -> bool {
        (self.mask >> l) & 1 == 1
    }

    /// The lowest active lane.
    #[inline(always)]
    pub fn first(&self) -> Option<usize> {
        (self.mask != 0).then(|| self.mask.trailing_zeros() as usize)
    }

    /// Stores `r` into register `d` for the active lanes.
    #[inline(always)]
    pub fn store(&self, regs: &mut [[u32; W]], d: Reg, r: &[u32; W]) {
        let dst = &mut regs[d.index()];
        if self.full {
            *dst = *r;
        } else {
            for l in 0..W {
                dst[l] = (r[l] & self.sel[l]) | (dst[l] & !self.sel[l]);
            }
        }
    }

    /// Stores 64-bit values into the pair `d`, `d + 1` for the active lanes.
    #[inline(always)]
    pub fn store64(&self, regs: &mut [[u32; W]], d: Reg, r: &[u64; W]) {
        let mut lo = [0u32; W];
        let mut hi = [0u32; W];
        for l in 0..W {
            lo[l] = r[l] as u32;
            hi[l] = (r[l] >> 32) as u32;
        }
        self.store(regs, d, &lo);
        self.store(regs, d.hi(), &hi);
    }
}

impl<const W: usize> Default for Exec<W> {
    fn default() -> Self {
        Self::new()
    }
}

/// Each byte's eight lanes as `0`/`!0` words (lane `k` of the byte is bit `k`).
static BYTE_LANES: [[u32; 8]; 256] = {
    let mut t = [[0u32; 8]; 256];
    let mut b = 0;
    while b < 256 {
        let mut k = 0;
        while k < 8 {
            if (b >> k) & 1 == 1 {
                t[b][k] = u32::MAX;
            }
            k += 1;
        }
        b += 1;
    }
    t
};

/// `out[l] = !0` when bit `l` of `mask` is set, `0` when it is clear: eight lanes at a
/// time from a table (a shift of a `u128` by a lane number costs several instructions,
/// and this runs at every change of a wave's mask).
#[inline]
pub fn mask_words<const W: usize>(mask: u128, out: &mut [u32; W]) {
    for (chunk, byte) in out.chunks_mut(8).zip(mask.to_le_bytes()) {
        let row = &BYTE_LANES[usize::from(byte)];
        chunk.copy_from_slice(&row[..chunk.len()]);
    }
}

/// The lane mask whose bit `l` is set when `words[l]` is nonzero: [`mask_words`] back,
/// 32 lanes to a `u32` first (shifting a `u128` by a lane number costs several
/// instructions a lane, and this runs each time the region code returns).
#[inline]
pub fn words_mask(words: &[u32]) -> u128 {
    let mut mask = 0u128;
    for (k, chunk) in words.chunks(32).take(4).enumerate() {
        let mut bits = 0u32;
        for (j, &x) in chunk.iter().enumerate() {
            bits |= u32::from(x != 0) << j;
        }
        mask |= u128::from(bits) << (32 * k);
    }
    mask
}

/// Iterates the set bits of a lane mask, lowest first.
#[inline(always)]
pub fn lanes(mask: u128) -> impl Iterator<Item = usize> {
    // Two 64-bit halves: arithmetic on a `u128` takes two or three instructions per step.
    let (mut lo, mut hi) = (mask as u64, (mask >> 64) as u64);
    std::iter::from_fn(move || {
        if lo != 0 {
            let l = lo.trailing_zeros() as usize;
            lo &= lo - 1;
            Some(l)
        } else if hi != 0 {
            let l = hi.trailing_zeros() as usize;
            hi &= hi - 1;
            Some(64 + l)
        } else {
            None
        }
    })
}

/// The 64-bit values of the pair `r`, `r + 1`.
#[inline(always)]
pub fn get64<const W: usize>(regs: &[[u32; W]], r: Reg) -> [u64; W] {
    let lo = regs[r.index()];
    let hi = regs[r.hi().index()];
    let mut out = [0u64; W];
    for l in 0..W {
        out[l] = u64::from(lo[l]) | (u64::from(hi[l]) << 32);
    }
    out
}

/// `d = f(a)` on 32-bit values.
#[inline(always)]
pub fn un<const W: usize>(
    regs: &mut [[u32; W]],
    ex: &Exec<W>,
    d: Reg,
    a: Reg,
    f: impl Fn(u32) -> u32,
) {
    let a = regs[a.index()];
    let mut r = [0u32; W];
    for l in 0..W {
        r[l] = f(a[l]);
    }
    ex.store(regs, d, &r);
}

/// `d = f(a, b)` on 32-bit values.
#[inline(always)]
pub fn bin<const W: usize>(
    regs: &mut [[u32; W]],
    ex: &Exec<W>,
    d: Reg,
    a: Reg,
    b: Reg,
    f: impl Fn(u32, u32) -> u32,
) {
    let a = regs[a.index()];
    let b = regs[b.index()];
    let mut r = [0u32; W];
    for l in 0..W {
        r[l] = f(a[l], b[l]);
    }
    ex.store(regs, d, &r);
}

/// `d = f(a, b, c)` on 32-bit values.
#[inline(always)]
pub fn tri<const W: usize>(
    regs: &mut [[u32; W]],
    ex: &Exec<W>,
    d: Reg,
    a: Reg,
    b: Reg,
    c: Reg,
    f: impl Fn(u32, u32, u32) -> u32,
) {
    let a = regs[a.index()];
    let b = regs[b.index()];
    let c = regs[c.index()];
    let mut r = [0u32; W];
    for l in 0..W {
        r[l] = f(a[l], b[l], c[l]);
    }
    ex.store(regs, d, &r);
}

/// `d = f(a, b, c, e)` on 32-bit values.
#[inline(always)]
#[allow(clippy::too_many_arguments)]
pub fn quad<const W: usize>(
    regs: &mut [[u32; W]],
    ex: &Exec<W>,
    d: Reg,
    a: Reg,
    b: Reg,
    c: Reg,
    e: Reg,
    f: impl Fn(u32, u32, u32, u32) -> u32,
) {
    let a = regs[a.index()];
    let b = regs[b.index()];
    let c = regs[c.index()];
    let e = regs[e.index()];
    let mut r = [0u32; W];
    for l in 0..W {
        r[l] = f(a[l], b[l], c[l], e[l]);
    }
    ex.store(regs, d, &r);
}

/// `d = f(a)` from a 32-bit to a 64-bit value.
#[inline(always)]
pub fn widen<const W: usize>(
    regs: &mut [[u32; W]],
    ex: &Exec<W>,
    d: Reg,
    a: Reg,
    f: impl Fn(u32) -> u64,
) {
    let a = regs[a.index()];
    let mut r = [0u64; W];
    for l in 0..W {
        r[l] = f(a[l]);
    }
    ex.store64(regs, d, &r);
}

/// `d = f(a)` from a 64-bit to a 32-bit value.
#[inline(always)]
pub fn narrow<const W: usize>(
    regs: &mut [[u32; W]],
    ex: &Exec<W>,
    d: Reg,
    a: Reg,
    f: impl Fn(u64) -> u32,
) {
    let a = get64(regs, a);
    let mut r = [0u32; W];
    for l in 0..W {
        r[l] = f(a[l]);
    }
    ex.store(regs, d, &r);
}

/// `d = f(a)` on 64-bit values.
#[inline(always)]
pub fn un64<const W: usize>(
    regs: &mut [[u32; W]],
    ex: &Exec<W>,
    d: Reg,
    a: Reg,
    f: impl Fn(u64) -> u64,
) {
    let a = get64(regs, a);
    let mut r = [0u64; W];
    for l in 0..W {
        r[l] = f(a[l]);
    }
    ex.store64(regs, d, &r);
}

/// `d = f(a, b)` on 64-bit values.
#[inline(always)]
pub fn bin64<const W: usize>(
    regs: &mut [[u32; W]],
    ex: &Exec<W>,
    d: Reg,
    a: Reg,
    b: Reg,
    f: impl Fn(u64, u64) -> u64,
) {
    let a = get64(regs, a);
    let b = get64(regs, b);
    let mut r = [0u64; W];
    for l in 0..W {
        r[l] = f(a[l], b[l]);
    }
    ex.store64(regs, d, &r);
}

/// `d = f(a, b, c)` on 64-bit values.
#[inline(always)]
pub fn tri64<const W: usize>(
    regs: &mut [[u32; W]],
    ex: &Exec<W>,
    d: Reg,
    a: Reg,
    b: Reg,
    c: Reg,
    f: impl Fn(u64, u64, u64) -> u64,
) {
    let a = get64(regs, a);
    let b = get64(regs, b);
    let c = get64(regs, c);
    let mut r = [0u64; W];
    for l in 0..W {
        r[l] = f(a[l], b[l], c[l]);
    }
    ex.store64(regs, d, &r);
}

/// `d = f(a, b)` with a 64-bit `a`, a 32-bit `b`, a 64-bit result (shifts).
#[inline(always)]
pub fn shift64<const W: usize>(
    regs: &mut [[u32; W]],
    ex: &Exec<W>,
    d: Reg,
    a: Reg,
    b: Reg,
    f: impl Fn(u64, u32) -> u64,
) {
    let a = get64(regs, a);
    let b = regs[b.index()];
    let mut r = [0u64; W];
    for l in 0..W {
        r[l] = f(a[l], b[l]);
    }
    ex.store64(regs, d, &r);
}

/// `d = f(a, b)` with 64-bit operands and a 32-bit result (comparisons).
#[inline(always)]
pub fn cmp64<const W: usize>(
    regs: &mut [[u32; W]],
    ex: &Exec<W>,
    d: Reg,
    a: Reg,
    b: Reg,
    f: impl Fn(u64, u64) -> u32,
) {
    let a = get64(regs, a);
    let b = get64(regs, b);
    let mut r = [0u32; W];
    for l in 0..W {
        r[l] = f(a[l], b[l]);
    }
    ex.store(regs, d, &r);
}

/// Whether a wave is running, waiting at a group barrier, or finished.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WaveState {
    /// Has lanes left to run.
    Running,
    /// Stopped at a `barrier group_sync`; resumes at `pc`.
    AtBarrier,
    /// Every lane has finished.
    Done,
}

/// One record of a geometry lane's emission (`emit` or `cut`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct EmitRecord {
    /// The lane.
    pub lane: u8,
    /// The stream (0 … 3).
    pub stream: u8,
    /// A strip cut rather than a vertex.
    pub cut: bool,
}

/// What a geometry wave's lanes emitted: vertices (with a copy of their output words)
/// and strip cuts, bounded per lane by the program's `max_vertices`; a cut is recorded
/// only after a vertex of its stream, so the records never outnumber twice the vertices.
#[derive(Debug, Clone)]
pub struct Emits<const W: usize> {
    /// Vertices and cuts, in the order they happened.
    pub records: Vec<EmitRecord>,
    /// The output words of each emitted vertex, one vertex after another, in the order of
    /// the vertex records.
    pub words: Vec<u32>,
    /// Vertices each lane emitted.
    pub counts: [u32; W],
    /// Per lane, the streams with a vertex since their last cut.
    pub open: [u8; W],
    /// The most vertices a lane may emit; the rest are dropped.
    pub cap: u32,
}

impl<const W: usize> Default for Emits<W> {
    fn default() -> Self {
        Emits {
            records: Vec::new(),
            words: Vec::new(),
            counts: [0; W],
            open: [0; W],
            cap: 0,
        }
    }
}

impl<const W: usize> Emits<W> {
    /// Forgets every record (the cap stays).
    pub fn clear(&mut self) {
        self.records.clear();
        self.words.clear();
        self.counts = [0; W];
        self.open = [0; W];
    }

    /// Lane `l` emits a vertex on `stream` whose output words are `outputs[k·W + l]`;
    /// past the cap it is dropped (D3D drops a geometry invocation's excess vertices).
    pub fn vertex(&mut self, l: usize, stream: u32, outputs: &[u32]) {
        let Some(n) = self.counts.get_mut(l) else {
            return;
        };
        if *n >= self.cap {
            return;
        }
        *n += 1;
        self.open[l] |= 1 << (stream & 3);
        self.records.push(EmitRecord {
            lane: l as u8,
            stream: (stream & 3) as u8,
            cut: false,
        });
        self.words.extend(outputs.iter().skip(l).step_by(W));
    }

    /// Lane `l` ends its strip on `stream` (nothing when no vertex is open there).
    pub fn cut(&mut self, l: usize, stream: u32) {
        let bit = 1u8 << (stream & 3);
        let Some(open) = self.open.get_mut(l) else {
            return;
        };
        if *open & bit == 0 {
            return;
        }
        *open &= !bit;
        self.records.push(EmitRecord {
            lane: l as u8,
            stream: (stream & 3) as u8,
            cut: true,
        });
    }
}

/// One wave: registers, masks, scheduling state, per-lane system values.
pub struct Wave<const W: usize> {
    /// Registers: one `[u32; W]` per register (constants broadcast once).
    pub regs: Vec<[u32; W]>,
    /// Per-lane arrays: one `[u32; W]` per 4-byte word of each array.
    pub locals: Vec<Vec<[u32; W]>>,
    /// The execution mask.
    pub ex: Exec<W>,
    /// Lanes that exist (a wave at the end of a group may be partly empty).
    pub lanes: u128,
    /// Lanes that have not finished.
    pub live: u128,
    /// Helper lanes (demoted): they run but never write memory and take no part in wave
    /// operations (quad operations and derivatives still read them) unless
    /// [`Wave::helpers_in_wave_ops`].
    pub helper: u128,
    /// Whether wave operations count helper lanes as active (the shader's
    /// `wave_ops_include_helpers`, set for each run).
    pub helpers_in_wave_ops: bool,
    /// The block each live lane waits at (for active lanes: stale until the current
    /// block's terminator sets it); [`DONE`] for finished lanes.
    pub next: [u32; W],
    /// The block the active lanes run.
    pub cur: u32,
    /// The next instruction to run (an index into the shader's instructions).
    pub pc: u32,
    /// The lowest block an inactive live lane waits at ([`DONE`] when none).
    pub waiting_min: u32,
    /// Instructions the wave has run (each block's instructions and terminator), whatever
    /// lanes were active: an upper bound of every lane's count.
    pub steps: u64,
    /// Instructions the wave ran while each lane was live but not active. A lane's own
    /// count (budget, `cycle_counter`) is `steps - idle[l]`; keeping the difference makes
    /// the common all-active case one addition per block.
    pub idle: [u64; W],
    /// Lane-instructions executed by the wave.
    pub executed: u64,
    /// `SV_GroupThreadID` of each lane.
    pub gtid: [[u32; W]; 3],
    /// `SV_GroupIndex` of each lane.
    pub gindex: [u32; W],
    /// Graphics stages: input words, word `i` of lane `l` at `i * W + l` (see `ir::io`).
    pub inputs: Vec<u32>,
    /// Graphics stages: output words, laid out as `inputs`.
    pub outputs: Vec<u32>,
    /// Lanes ended by `discard` since the last reset.
    pub killed: u128,
    /// Geometry stages: what the lanes emitted since the last reset, in the order they
    /// emitted it (each lane's own records in its program order).
    pub emits: Emits<W>,
    /// A value per lane the pipeline chooses (which pixel a lane shades), handed back to it
    /// when the shader asks for something only the pipeline knows (`eval`).
    pub tags: [u32; W],
    /// Running, at a barrier, or done.
    pub state: WaveState,
    /// The sampling passes' per-lane arrays, made at the wave's first sample and kept
    /// (`SamplerSite::sample_lanes`).
    pub sample_scratch: Option<Box<LaneScratch<W>>>,
    /// Inline ray queries: slot `s` of lane `l` at `s * W + l`, made by the slot's
    /// `rq_alloc` (`exec::ray_query`); empty until a program allocates one.
    pub ray_queries: Vec<Option<Box<super::ray_query::LaneQuery>>>,
    /// Hit objects (SM 6.9 `HitObject`): slot `s` of lane `l` at `s * W + l`, made by
    /// the slot's creation instruction (`exec::hit_object`); empty until one runs.
    pub hit_objects: Vec<Option<Box<super::hit_object::HitObject>>>,
}

impl<const W: usize> Wave<W> {
    /// A wave with `num_regs` registers (the first `consts.len()` set to the constants)
    /// and the given per-lane arrays (in bytes).
    pub fn new(num_regs: usize, consts: &[u32], locals: &[u32]) -> Self {
        let mut regs = vec![[0u32; W]; num_regs];
        for (r, &c) in regs.iter_mut().zip(consts) {
            *r = [c; W];
        }
        Wave {
            regs,
            locals: locals
                .iter()
                .map(|&b| vec![[0u32; W]; b.div_ceil(4) as usize])
                .collect(),
            ex: Exec::new(),
            lanes: 0,
            live: 0,
            helper: 0,
            helpers_in_wave_ops: false,
            next: [DONE; W],
            cur: 0,
            pc: 0,
            waiting_min: DONE,
            steps: 0,
            idle: [0; W],
            executed: 0,
            gtid: [[0; W]; 3],
            gindex: [0; W],
            inputs: Vec::new(),
            outputs: Vec::new(),
            killed: 0,
            emits: Emits::default(),
            tags: std::array::from_fn(|l| l as u32),
            state: WaveState::Done,
            sample_scratch: None,
            ray_queries: Vec::new(),
            hit_objects: Vec::new(),
        }
    }

    /// Gives the wave `input_words` input and `output_words` output words per lane.
    pub fn with_io(mut self, input_words: u32, output_words: u32) -> Self {
        self.inputs = vec![0; input_words as usize * W];
        self.outputs = vec![0; output_words as usize * W];
        self
    }

    /// Instructions lane `l` has run.
    #[inline]
    pub fn count(&self, l: usize) -> u64 {
        self.steps - self.idle[l]
    }

    /// Resets the wave for a new group: non-constant registers and arrays zeroed, the
    /// lanes in `lanes` live and active at block 0, counters cleared.
    pub fn reset(&mut self, nconsts: usize, lanes: u128, entry_pc: u32) {
        for r in self.regs.iter_mut().skip(nconsts) {
            *r = [0; W];
        }
        self.restart(lanes, entry_pc);
    }

    /// [`Wave::reset`] with only the registers `clear` zeroed: the caller has proved that
    /// no lane can see the others' old values (`exec::stage`'s `fresh_registers`).
    pub fn reset_clearing(&mut self, clear: &[u32], lanes: u128, entry_pc: u32) {
        for &r in clear {
            if let Some(r) = self.regs.get_mut(r as usize) {
                *r = [0; W];
            }
        }
        self.restart(lanes, entry_pc);
    }

    /// Everything [`Wave::reset`] does but the registers.
    fn restart(&mut self, lanes: u128, entry_pc: u32) {
        for a in &mut self.locals {
            a.fill([0; W]);
        }
        // A new invocation has allocated no query yet.
        self.ray_queries.clear();
        self.hit_objects.clear();
        self.lanes = lanes;
        self.live = lanes;
        self.helper = 0;
        self.killed = 0;
        self.emits.clear();
        self.ex.set(lanes);
        // Lanes that exist start at block 0 (`next` 0), the others are done (`!0`).
        for (n, s) in self.next.iter_mut().zip(&self.ex.sel) {
            *n = !s;
        }
        self.cur = 0;
        self.pc = entry_pc;
        self.waiting_min = DONE;
        self.steps = 0;
        self.idle = [0; W];
        self.executed = 0;
        self.state = if lanes == 0 {
            WaveState::Done
        } else {
            WaveState::Running
        };
    }
}

#[cfg(test)]
mod tests {
    /// `mask_words` gives each lane's bit as a word for every width and masks with
    /// every byte value in every position; `words_mask` takes them back, any nonzero word
    /// counting as set.
    #[test]
    fn mask_words_equal_bits() {
        fn check<const W: usize>(mask: u128) {
            let mut out = [7u32; W];
            super::mask_words(mask, &mut out);
            for (l, v) in out.iter().enumerate() {
                let want = if (mask >> l) & 1 == 1 { u32::MAX } else { 0 };
                assert_eq!(*v, want, "lane {l} of {W}, mask {mask:#x}");
            }
            let width = if W == 128 { !0 } else { (1u128 << W) - 1 };
            assert_eq!(super::words_mask(&out), mask & width, "{W} lanes");
            for (l, v) in out.iter_mut().enumerate() {
                *v &= 1 << (l % 32);
            }
            assert_eq!(
                super::words_mask(&out),
                mask & width,
                "{W} lanes, one bit set"
            );
            let set: Vec<usize> = (0..W).filter(|&l| (mask >> l) & 1 == 1).collect();
            assert_eq!(super::lanes(mask & width).collect::<Vec<_>>(), set);
        }
        let mut x = 0x9e37_79b9_7f4a_7c15_u128 | (0x2545_f491_4f6c_dd1d_u128 << 64);
        for i in 0..2000u32 {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            let m = if i < 256 {
                u128::from(i) << ((i % 16) * 8)
            } else {
                x
            };
            check::<1>(m);
            check::<4>(m);
            check::<8>(m);
            check::<16>(m);
            check::<32>(m);
            check::<64>(m);
            check::<128>(m);
        }
    }

    use super::*;

    #[test]
    fn masked_store_writes_active_lanes_only() {
        let mut regs = vec![[7u32; 8]; 2];
        let mut ex = Exec::<8>::new();
        ex.set(0b1010_0101);
        ex.store(&mut regs, Reg(1), &[1; 8]);
        assert_eq!(regs[1], [1, 7, 1, 7, 7, 1, 7, 1]);
        ex.set(Exec::<8>::ALL);
        assert!(ex.full);
        ex.store(&mut regs, Reg(0), &[2; 8]);
        assert_eq!(regs[0], [2; 8]);
        assert_eq!(lanes(0b1010_0101).collect::<Vec<_>>(), vec![0, 2, 5, 7]);
        assert_eq!(Exec::<128>::ALL, u128::MAX);
    }

    #[test]
    fn pairs() {
        let mut regs = vec![[0u32; 4]; 2];
        let mut ex = Exec::<4>::new();
        ex.set(0b0011);
        ex.store64(&mut regs, Reg(0), &[0x1_0000_0002; 4]);
        assert_eq!(get64(&regs, Reg(0)), [0x1_0000_0002, 0x1_0000_0002, 0, 0]);
    }
}
