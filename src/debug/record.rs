//! The record of one wave: every instruction and terminator it ran, the execution and
//! helper masks, the registers and local-array words each wrote (every lane's value
//! after), and the memory its lanes and the other waves of its group wrote.
//!
//! A [`Recorder`] is the [`WaveObserver`] the traced wave reports to; once the run ends
//! it becomes a [`Record`], which answers "what did slot S hold after wave step T" by a
//! binary search over the writes of S. Nothing is re-executed to go back: values come
//! from what was recorded.
//!
//! The record's memory is bounded ([`Recorder::new`]'s `limit_bytes`): when a wave would
//! pass it, recording stops there (the run itself goes on to the end, unchanged) and the
//! record says where it stopped.

use std::collections::HashMap;

use crate::exec::{At, Invocation, MemWrite, WaveObserver, WaveRead, WriteTarget};
use crate::ir::{Inst, Role, Shader};

/// Something a step can write: a register, or a word of a lane's local array.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Slot {
    /// IR register.
    Reg(u32),
    /// Word `word` of local array `array`.
    Local(u32, u32),
    /// Input word `word` of a graphics stage (fixed for the whole run: never written).
    Input(u32),
}

/// One step of the wave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct StepRec {
    /// The instruction or terminator.
    pub at: At,
    /// Lanes that ran it.
    pub active: u128,
    /// Helper lanes among the wave's lanes at that time.
    pub helper: u128,
    /// First write (index into the record's writes).
    pub w0: u32,
    /// Number of slot writes.
    pub nw: u32,
    /// First memory write of the wave (index into [`Record::mem`]).
    pub m0: u32,
    /// Number of memory writes.
    pub nm: u32,
}

/// A memory write another wave of the group made, with the number of the observed
/// wave's steps done when it happened.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OtherWrite {
    /// Steps of the observed wave before the write.
    pub pos: u32,
    /// The write.
    pub write: MemWrite,
}

/// Collects a wave's steps (the [`WaveObserver`] of a debug run).
pub struct Recorder<'s> {
    shader: &'s Shader,
    limit_bytes: usize,
    rec: Record,
    scratch: Vec<Slot>,
}

/// What one wave did, step by step.
#[derive(Debug, Clone, Default)]
pub struct Record {
    /// Lanes per wave.
    pub width: usize,
    /// The lanes that exist.
    pub lanes: u128,
    /// The invocation of each lane.
    pub invocations: Vec<Invocation>,
    /// Registers before the first step: register `r` of lane `l` at `r * width + l`.
    pub init_regs: Vec<u32>,
    /// Words of each local array (zero before the first step, but those in
    /// `init_locals`).
    pub local_words: Vec<usize>,
    /// Local-array words that were not zero before the first step (a ray-tracing
    /// program's payload, parameter and attributes, which its caller passes in), every
    /// lane's value.
    pub init_locals: HashMap<Slot, Vec<u32>>,
    /// Input words before the first step, laid out as registers.
    pub inputs: Vec<u32>,
    /// The steps, in order.
    pub steps: Vec<StepRec>,
    /// Slot of each write.
    pub wslot: Vec<Slot>,
    /// Step of each write.
    pub wstep: Vec<u32>,
    /// Values of each write: `width` words (every lane, after the step) per write.
    pub wvals: Vec<u32>,
    /// Memory the wave's lanes wrote (local arrays excepted), in order.
    pub mem: Vec<MemWrite>,
    /// Memory other waves of the group wrote.
    pub others: Vec<OtherWrite>,
    /// Where recording stopped early (the memory limit), if it did.
    pub truncated: Option<String>,
    /// Whether the wave started at all.
    pub started: bool,
    /// Words the group's shared memory started with (a mesh group's payload; empty:
    /// zeros).
    pub shared_init: Vec<u32>,
    index: HashMap<Slot, Vec<u32>>,
}

/// Bytes a step costs the record, besides its writes.
const STEP_BYTES: usize = std::mem::size_of::<StepRec>();

impl<'s> Recorder<'s> {
    /// A recorder for a wave of `shader`, keeping at most `limit_bytes` of record.
    pub fn new(shader: &'s Shader, limit_bytes: usize) -> Recorder<'s> {
        Recorder {
            shader,
            limit_bytes,
            rec: Record::default(),
            scratch: Vec::new(),
        }
    }

    /// The finished record, indexed.
    pub fn finish(mut self) -> Record {
        let mut index: HashMap<Slot, Vec<u32>> = HashMap::new();
        for (k, s) in self.rec.wslot.iter().enumerate() {
            index.entry(*s).or_default().push(k as u32);
        }
        self.rec.index = index;
        self.rec
    }

    fn bytes(&self) -> usize {
        let r = &self.rec;
        r.steps.len() * STEP_BYTES
            + r.wslot.len() * (std::mem::size_of::<Slot>() + 4)
            + r.wvals.len() * 4
            + (r.mem.len() + r.others.len()) * std::mem::size_of::<OtherWrite>()
    }

    fn full(&mut self) -> bool {
        if self.rec.truncated.is_some() {
            return true;
        }
        if self.bytes() > self.limit_bytes {
            self.rec.truncated = Some(format!(
                "the record reached its limit of {} MiB at wave step {}; later steps are not recorded (raise it with --max-record-mib)",
                self.limit_bytes >> 20,
                self.rec.steps.len()
            ));
            return true;
        }
        false
    }
}

impl WaveObserver for Recorder<'_> {
    fn start(&mut self, wave: &dyn WaveRead) {
        let r = &mut self.rec;
        r.started = true;
        r.width = wave.width();
        r.lanes = wave.lanes();
        r.invocations = (0..r.width).map(|l| wave.invocation(l)).collect();
        r.init_regs = (0..wave.num_regs() as u32)
            .flat_map(|x| wave.reg(x).to_vec())
            .collect();
        r.local_words = (0..self.shader.locals.len() as u32)
            .map(|x| wave.local_words(x))
            .collect();
        for (x, &n) in r.local_words.iter().enumerate() {
            for word in 0..n as u32 {
                let v = wave.local(x as u32, word);
                if v.iter().any(|&w| w != 0) {
                    r.init_locals
                        .insert(Slot::Local(x as u32, word), v.to_vec());
                }
            }
        }
        r.inputs = (0..wave.input_words() as u32)
            .flat_map(|x| wave.input(x).to_vec())
            .collect();
    }

    fn step(
        &mut self,
        at: At,
        active: u128,
        helper: u128,
        wave: &dyn WaveRead,
        writes: &[MemWrite],
    ) {
        if self.full() {
            return;
        }
        let step = self.rec.steps.len() as u32;
        self.scratch.clear();
        if let At::Inst(i) = at
            && let Some(inst) = self.shader.insts.get(i.index())
        {
            written_regs(inst, &mut self.scratch);
        }
        for w in writes {
            if let WriteTarget::Local(x) = w.target {
                let first = (w.addr / 4) as u32;
                let last = ((w.addr + u64::from(w.bytes.max(1)) - 1) / 4) as u32;
                for word in first..=last {
                    self.scratch.push(Slot::Local(x, word));
                }
            }
        }
        self.scratch.sort_unstable();
        self.scratch.dedup();
        let r = &mut self.rec;
        let w0 = r.wslot.len() as u32;
        for s in &self.scratch {
            let vals = match *s {
                Slot::Reg(x) => wave.reg(x),
                Slot::Local(a, word) => wave.local(a, word),
                Slot::Input(_) => continue,
            };
            if vals.len() != r.width {
                continue;
            }
            r.wslot.push(*s);
            r.wstep.push(step);
            r.wvals.extend_from_slice(vals);
        }
        let m0 = r.mem.len() as u32;
        r.mem.extend(
            writes
                .iter()
                .filter(|w| !matches!(w.target, WriteTarget::Local(_)))
                .cloned(),
        );
        r.steps.push(StepRec {
            at,
            active,
            helper,
            w0,
            nw: r.wslot.len() as u32 - w0,
            m0,
            nm: r.mem.len() as u32 - m0,
        });
    }

    fn shared_init(&mut self, words: &[u32]) {
        self.rec.shared_init = words.to_vec();
    }

    fn others(&mut self, writes: &[MemWrite]) {
        if writes.is_empty() || self.full() {
            return;
        }
        let pos = self.rec.steps.len() as u32;
        self.rec.others.extend(writes.iter().map(|w| OtherWrite {
            pos,
            write: w.clone(),
        }));
    }
}

/// The registers an instruction writes (both halves of a pair).
pub fn written_regs(inst: &Inst, out: &mut Vec<Slot>) {
    // Registers whose width another field gives are pairs too (the table's `pairs` column).
    let wide = inst.pairs().writes;
    inst.visit_regs(&mut |role, r| match role {
        Role::Write if !wide => out.push(Slot::Reg(r.0)),
        Role::Write | Role::Write64 => {
            out.push(Slot::Reg(r.0));
            out.push(Slot::Reg(r.0.wrapping_add(1)));
        }
        _ => {}
    });
}

/// The registers an instruction reads (both halves of a pair).
pub fn read_regs(inst: &Inst, out: &mut Vec<u32>) {
    inst.visit_regs(&mut |role, r| match role {
        Role::Read => out.push(r.0),
        Role::Read64 => {
            out.push(r.0);
            out.push(r.0.wrapping_add(1));
        }
        _ => {}
    });
    for r in inst.pairs().reads.iter().filter(|r| !r.is_none()) {
        out.push(r.0.wrapping_add(1));
    }
}

impl Record {
    /// Bytes the record holds (what its limit counts).
    pub fn size_bytes(&self) -> usize {
        self.steps.len() * STEP_BYTES
            + self.wslot.len() * (std::mem::size_of::<Slot>() + 4)
            + self.wvals.len() * 4
            + (self.mem.len() + self.others.len()) * std::mem::size_of::<OtherWrite>()
    }

    /// Every lane's value of `slot` after the first `t` steps (before step `t`).
    pub fn values_at(&self, slot: Slot, t: usize) -> Vec<u32> {
        match self.last_write(slot, t) {
            Some(k) => {
                let k = k as usize * self.width;
                self.wvals[k..k + self.width].to_vec()
            }
            None => match slot {
                Slot::Reg(r) => {
                    let k = r as usize * self.width;
                    self.init_regs
                        .get(k..k + self.width)
                        .map_or_else(|| vec![0; self.width], <[u32]>::to_vec)
                }
                Slot::Local(..) => self
                    .init_locals
                    .get(&slot)
                    .cloned()
                    .unwrap_or_else(|| vec![0; self.width]),
                Slot::Input(w) => {
                    let k = w as usize * self.width;
                    self.inputs
                        .get(k..k + self.width)
                        .map_or_else(|| vec![0; self.width], <[u32]>::to_vec)
                }
            },
        }
    }

    /// Lane `l`'s value of `slot` before step `t`.
    pub fn value(&self, slot: Slot, t: usize, l: usize) -> u32 {
        match self.last_write(slot, t) {
            Some(k) => self.wvals[k as usize * self.width + l],
            None => match slot {
                Slot::Reg(r) => self
                    .init_regs
                    .get(r as usize * self.width + l)
                    .copied()
                    .unwrap_or(0),
                Slot::Local(..) => self
                    .init_locals
                    .get(&slot)
                    .and_then(|v| v.get(l).copied())
                    .unwrap_or(0),
                Slot::Input(w) => self
                    .inputs
                    .get(w as usize * self.width + l)
                    .copied()
                    .unwrap_or(0),
            },
        }
    }

    /// The last write of `slot` at a step before `t` (an index into the writes).
    pub fn last_write(&self, slot: Slot, t: usize) -> Option<u32> {
        let ws = self.index.get(&slot)?;
        let n = ws.partition_point(|&k| (self.wstep[k as usize] as usize) < t);
        n.checked_sub(1).map(|i| ws[i])
    }

    /// The last step before `t` in which lane `l` was active and wrote `slot`.
    pub fn last_lane_write(&self, slot: Slot, t: usize, l: usize) -> Option<usize> {
        let ws = self.index.get(&slot)?;
        let mut n = ws.partition_point(|&k| (self.wstep[k as usize] as usize) < t);
        while n > 0 {
            n -= 1;
            let s = self.wstep[ws[n] as usize] as usize;
            if (self.steps[s].active >> l) & 1 == 1 {
                return Some(s);
            }
        }
        None
    }

    /// The slots step `s` wrote.
    pub fn step_writes(&self, s: usize) -> &[Slot] {
        let st = &self.steps[s];
        &self.wslot[st.w0 as usize..(st.w0 + st.nw) as usize]
    }

    /// The memory the wave wrote at step `s`.
    pub fn step_mem(&self, s: usize) -> &[MemWrite] {
        let st = &self.steps[s];
        &self.mem[st.m0 as usize..(st.m0 + st.nm) as usize]
    }

    /// Group shared word `word` (4 bytes) as every wave of the group had left it before
    /// the observed wave's step `t`, with the writes it is made of.
    pub fn shared_word(&self, word: u64, t: usize) -> u32 {
        let mut v = usize::try_from(word)
            .ok()
            .and_then(|w| self.shared_init.get(w))
            .copied()
            .unwrap_or(0);
        let mut apply = |w: &MemWrite| {
            if w.target != WriteTarget::GroupShared {
                return;
            }
            let (start, end) = (w.addr, w.addr + u64::from(w.bytes));
            let (ws, we) = (word * 4, word * 4 + 4);
            if end <= ws || start >= we {
                return;
            }
            for b in start.max(ws)..end.min(we) {
                let src = (b - start) as usize;
                let byte = (w.value[src / 4] >> ((src % 4) * 8)) & 0xff;
                let sh = (b - ws) * 8;
                v = (v & !(0xff << sh)) | (byte << sh);
            }
        };
        // Interleave the wave's own writes and the others' by position.
        let mut oi = 0;
        for s in 0..t.min(self.steps.len()) {
            while oi < self.others.len() && self.others[oi].pos as usize <= s {
                apply(&self.others[oi].write);
                oi += 1;
            }
            for w in self.step_mem(s) {
                apply(w);
            }
        }
        while oi < self.others.len() && self.others[oi].pos as usize <= t {
            apply(&self.others[oi].write);
            oi += 1;
        }
        v
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values come back from the last write before a step, or the initial registers.
    #[test]
    fn values_come_from_the_last_write() {
        let mut r = Record {
            width: 2,
            init_regs: vec![1, 2, 3, 4],
            wslot: vec![Slot::Reg(1), Slot::Reg(1)],
            wstep: vec![0, 2],
            wvals: vec![10, 11, 20, 21],
            steps: vec![
                StepRec {
                    at: At::Inst(crate::ir::InstId(0)),
                    active: 0b11,
                    helper: 0,
                    w0: 0,
                    nw: 1,
                    m0: 0,
                    nm: 0,
                };
                3
            ],
            ..Record::default()
        };
        r.index.insert(Slot::Reg(1), vec![0, 1]);
        assert_eq!(r.values_at(Slot::Reg(1), 0), vec![3, 4]);
        assert_eq!(r.values_at(Slot::Reg(1), 1), vec![10, 11]);
        assert_eq!(r.values_at(Slot::Reg(1), 2), vec![10, 11]);
        assert_eq!(r.value(Slot::Reg(1), 3, 1), 21);
        assert_eq!(r.value(Slot::Reg(0), 3, 1), 2);
        assert_eq!(r.last_lane_write(Slot::Reg(1), 3, 0), Some(2));
    }
}
