//! Watching a run: which invocation wrote which bytes of which memory, and every step of
//! one wave.
//!
//! Owns two facilities, both off (and free) unless a caller asks for them:
//!
//! - **Memory-write observation** ([`WriteSink`]): every store, atomic and compare-exchange
//!   of every lane reports a [`MemWrite`] — the invocation, the instruction, the memory
//!   ([`WriteTarget`]: a resource by its [`Binding`], group shared memory, or the lane's
//!   own array) and the byte range — with the bytes there after the instruction. When no
//!   sink is set, a store instruction costs one branch more, never one per lane.
//!   [`WriterMap`] is a ready sink that keeps the last writer of every 4-byte word of
//!   chosen resources (what a capture comparer needs to name the lane behind a mismatch).
//! - **Wave observation** ([`WaveObserver`]): one wave of one group runs through a
//!   separate loop (`interp::run_traced`) that reports every instruction and terminator
//!   with the execution and helper masks and the wave's registers after it. The other
//!   waves, and every other group, run the normal loop.
//!
//! Both observe; neither changes what runs: the traced loop calls the same instruction
//! handlers in the same order as the normal one.
//!
//! Order: a wave's writes are reported in lane order per instruction (the order the
//! handlers apply them). Groups run in parallel on worker threads, so the order in which
//! a sink hears writes of different groups depends on scheduling; within one group it is
//! the order they happened.

use std::collections::HashMap;
use std::sync::Mutex;

use crate::ir::{Inst, InstId, Width};
use crate::resources::{BufferKind, Descriptor};

use super::Ctx;
use super::budget::{At, Invocation};
use super::resource::{reg_or_zero, texel_coord, width_bytes};
use super::wave::{Wave, lanes};

/// Which descriptor of a dispatch a resource access went through.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum Binding {
    /// Element `element` of the shader's declared resource range `range` (an index into
    /// `Shader::resources`; element `k` is register `lower + k`).
    Range {
        /// Index of the range in `Shader::resources`.
        range: u32,
        /// Element of the range.
        element: u32,
    },
    /// Entry `index` of the SM 6.6 resource descriptor heap.
    ResourceHeap(u32),
}

/// The memory a write went to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub enum WriteTarget {
    /// A UAV's memory (buffer bytes, or texture bytes in D3D12 subresource order).
    Resource(Binding),
    /// The group's shared memory.
    GroupShared,
    /// The writing lane's own array (`Shader::locals[index]`).
    Local(u32),
}

/// One lane's write of one component (or texel).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct MemWrite {
    /// The memory.
    pub target: WriteTarget,
    /// First byte written: an address in the resource's memory (its whole buffer or
    /// texture, not the view), in group shared memory, or in the local array.
    pub addr: u64,
    /// Bytes written (1 to 16).
    pub bytes: u32,
    /// The bytes there after the instruction (little-endian words; only `bytes` count).
    /// Another lane of the same instruction may have written the same bytes after this
    /// one, and for resources another group may have since.
    pub value: [u32; 4],
    /// An atomic or compare-exchange (it writes even when the value stays the same).
    pub atomic: bool,
    /// The lane within its wave.
    pub lane: u32,
    /// The invocation the lane runs.
    pub invocation: Invocation,
    /// The instruction.
    pub inst: InstId,
}

/// Hears every memory write of a run (see the module doc). Called from worker threads.
pub trait WriteSink: Sync {
    /// One write.
    fn write(&self, w: &MemWrite);
}

/// Who last wrote one 4-byte word.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct WordWriter {
    /// The invocation of the last write heard.
    pub invocation: Invocation,
    /// Its instruction.
    pub inst: InstId,
    /// How many writes touched the word. More than one from different invocations means
    /// the word's final value may depend on the order groups ran in.
    pub writes: u32,
    /// Whether writes came from more than one invocation.
    pub contested: bool,
    /// The last write's lane within its wave ([`MemWrite::lane`]).
    pub lane: u32,
    /// When the map heard the last write: the number of writes to watched words it had
    /// heard before it. Within one worker thread this is the order writes happened in, so
    /// the word with the highest number among several was written last.
    pub order: u64,
}

impl WordWriter {
    /// Hears `w` (numbered `order`) on every 4-byte word it touches in `words`, keyed by
    /// `key(word address)`. `rival(last)` says whether the word's last writer `last` is
    /// another invocation than `w`'s, which makes the word contested (the one rule the
    /// last-writer maps differ in: a ray's programs are one writer).
    pub fn hear<K: std::hash::Hash + Eq>(
        words: &mut HashMap<K, WordWriter>,
        w: &MemWrite,
        order: u64,
        key: impl Fn(u64) -> K,
        rival: impl Fn(&Invocation) -> bool,
    ) {
        let end = w.addr.saturating_add(u64::from(w.bytes.max(1)));
        let mut a = w.addr & !3;
        while a < end {
            words
                .entry(key(a))
                .and_modify(|x| {
                    x.contested |= rival(&x.invocation);
                    x.invocation = w.invocation;
                    x.inst = w.inst;
                    x.writes = x.writes.saturating_add(1);
                    x.lane = w.lane;
                    x.order = order;
                })
                .or_insert(WordWriter {
                    invocation: w.invocation,
                    inst: w.inst,
                    writes: 1,
                    contested: false,
                    lane: w.lane,
                    order,
                });
            a += 4;
        }
    }
}

/// A [`WriteSink`] that keeps, for every 4-byte word of the chosen resources, the last
/// invocation that wrote it.
///
/// A capture comparer runs the job with one of these for the resources it compares and
/// asks [`WriterMap::writer`] for the word of each mismatch: the answer names the lane to
/// open the debugger on. Words written by one invocation only (the usual case) have an
/// exact answer whatever the number of worker threads; a `contested` word was written by
/// several, and which came last followed the order groups ran in.
#[derive(Debug, Default)]
pub struct WriterMap {
    watched: Vec<Binding>,
    words: Mutex<HashMap<(Binding, u64), WordWriter>>,
    heard: std::sync::atomic::AtomicU64,
}

impl WriterMap {
    /// A map of the writes to `watched` (every resource when empty).
    pub fn new(watched: Vec<Binding>) -> WriterMap {
        WriterMap {
            watched,
            words: Mutex::new(HashMap::new()),
            heard: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// The last writer of the 4-byte word holding byte `addr` of the resource's memory.
    pub fn writer(&self, binding: Binding, addr: u64) -> Option<WordWriter> {
        let words = self.words.lock().unwrap_or_else(|p| p.into_inner());
        words.get(&(binding, addr & !3)).copied()
    }

    /// Every word written, sorted by binding and address.
    pub fn all(&self) -> Vec<((Binding, u64), WordWriter)> {
        let words = self.words.lock().unwrap_or_else(|p| p.into_inner());
        let mut v: Vec<_> = words.iter().map(|(k, w)| (*k, *w)).collect();
        v.sort_by_key(|(k, _)| *k);
        v
    }
}

impl WriteSink for WriterMap {
    fn write(&self, w: &MemWrite) {
        let WriteTarget::Resource(b) = w.target else {
            return;
        };
        if !self.watched.is_empty() && !self.watched.contains(&b) {
            return;
        }
        let mut words = self.words.lock().unwrap_or_else(|p| p.into_inner());
        // Counted under the lock, so the numbers follow the order the words changed in.
        let order = self
            .heard
            .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        WordWriter::hear(
            &mut words,
            w,
            order,
            |a| (b, a),
            |last| *last != w.invocation,
        );
    }
}

/// What an observer may read of a wave (non-generic over the wave width).
pub trait WaveRead {
    /// Lanes per wave.
    fn width(&self) -> usize;
    /// Register `r` of every lane.
    fn reg(&self, r: u32) -> &[u32];
    /// Number of registers.
    fn num_regs(&self) -> usize;
    /// Word `word` of local array `array` of every lane (empty past the array).
    fn local(&self, array: u32, word: u32) -> &[u32];
    /// Words of local array `array`.
    fn local_words(&self, array: u32) -> usize;
    /// The lanes that exist.
    fn lanes(&self) -> u128;
    /// The lanes that have not finished.
    fn live(&self) -> u128;
    /// The active lanes.
    fn active(&self) -> u128;
    /// The helper lanes.
    fn helper(&self) -> u128;
    /// The invocation lane `l` runs.
    fn invocation(&self, l: usize) -> Invocation;
    /// Input word `word` of every lane (graphics stages; empty past them).
    fn input(&self, word: u32) -> &[u32];
    /// Input words per lane.
    fn input_words(&self) -> usize;
}

/// Hears every step of one wave (see the module doc).
pub trait WaveObserver {
    /// The wave is about to run its first instruction.
    fn start(&mut self, wave: &dyn WaveRead);
    /// The wave ran `at` with lanes `active` (helpers among them `helper`); `wave` is the
    /// state after it and `writes` the memory its lanes wrote.
    fn step(
        &mut self,
        at: At,
        active: u128,
        helper: u128,
        wave: &dyn WaveRead,
        writes: &[MemWrite],
    );
    /// Other waves of the group wrote memory (heard between the observed wave's steps, in
    /// the order they happened).
    fn others(&mut self, writes: &[MemWrite]);
    /// The group's shared memory starts with `words` rather than zeros (a mesh group's
    /// payload, from the amplification group that launched it); heard before `start`.
    fn shared_init(&mut self, words: &[u32]) {
        let _ = words;
    }
}

struct Reader<'a, const W: usize> {
    w: &'a Wave<W>,
    cx: &'a Ctx<'a>,
}

impl<const W: usize> WaveRead for Reader<'_, W> {
    fn width(&self) -> usize {
        W
    }
    fn reg(&self, r: u32) -> &[u32] {
        self.w.regs.get(r as usize).map_or(&[], |x| &x[..])
    }
    fn num_regs(&self) -> usize {
        self.w.regs.len()
    }
    fn local(&self, array: u32, word: u32) -> &[u32] {
        self.w
            .locals
            .get(array as usize)
            .and_then(|a| a.get(word as usize))
            .map_or(&[], |x| &x[..])
    }
    fn local_words(&self, array: u32) -> usize {
        self.w.locals.get(array as usize).map_or(0, Vec::len)
    }
    fn lanes(&self) -> u128 {
        self.w.lanes
    }
    fn live(&self) -> u128 {
        self.w.live
    }
    fn active(&self) -> u128 {
        self.w.ex.mask
    }
    fn helper(&self) -> u128 {
        self.w.helper
    }
    fn invocation(&self, l: usize) -> Invocation {
        super::control::invocation(self.w, self.cx, l.min(W - 1))
    }
    fn input(&self, word: u32) -> &[u32] {
        let base = word as usize * W;
        self.w.inputs.get(base..base + W).unwrap_or(&[])
    }
    fn input_words(&self) -> usize {
        self.w.inputs.len() / W
    }
}

/// A read-only view of a wave for an observer.
pub(crate) fn reader<'a, const W: usize>(w: &'a Wave<W>, cx: &'a Ctx<'a>) -> impl WaveRead + 'a {
    Reader { w, cx }
}

/// A write about to happen: lane, memory, address, bytes.
pub(crate) struct Pending {
    writes: Vec<(u32, WriteTarget, u64, u32, bool)>,
}

/// Where each active non-helper lane's store, atomic or local store `inst` will write
/// (addresses computed as the handlers compute them, before the instruction changes any
/// register). `None` for other instructions.
pub(crate) fn pending<const W: usize>(w: &Wave<W>, cx: &Ctx<'_>, inst: &Inst) -> Option<Pending> {
    let mut out = Vec::new();
    let writers = w.ex.mask & !w.helper;
    let buffer = |h: u32| match cx.table.get(h) {
        Descriptor::Buffer { view, .. } => Some(view),
        _ => None,
    };
    let bind = |h: u32| cx.table.locate(h);
    match inst {
        Inst::RawStore {
            width,
            mask,
            handle,
            addr,
            ..
        } => {
            let n = width_bytes(*width);
            let hs = reg_or_zero(&w.regs, *handle);
            let a = reg_or_zero(&w.regs, *addr);
            for l in lanes(writers) {
                let (Some(view), Some(b)) = (buffer(hs[l]), bind(hs[l])) else {
                    continue;
                };
                for i in 0..4u32 {
                    if mask & (1 << i) != 0
                        && let Some(m) = view.addr(u64::from(a[l]) + u64::from(i * n), u64::from(n))
                    {
                        out.push((l as u32, WriteTarget::Resource(b), m, n, false));
                    }
                }
            }
        }
        Inst::StructStore {
            width,
            mask,
            handle,
            index,
            offset,
            ..
        } => {
            let n = width_bytes(*width);
            let hs = reg_or_zero(&w.regs, *handle);
            let idx = reg_or_zero(&w.regs, *index);
            let off = reg_or_zero(&w.regs, *offset);
            for l in lanes(writers) {
                let (Some(view), Some(b)) = (buffer(hs[l]), bind(hs[l])) else {
                    continue;
                };
                for i in 0..4u32 {
                    let o = u64::from(off[l]) + u64::from(i * n);
                    if mask & (1 << i) != 0
                        && let Some(vo) = view.struct_offset(u64::from(idx[l]), o, u64::from(n))
                        && let Some(m) = view.addr(vo, u64::from(n))
                    {
                        out.push((l as u32, WriteTarget::Resource(b), m, n, false));
                    }
                }
            }
        }
        Inst::TypedStore {
            handle,
            coord,
            sample,
            ..
        } => {
            let hs = reg_or_zero(&w.regs, *handle);
            let c = coord.map(|r| reg_or_zero(&w.regs, r));
            let s = reg_or_zero(&w.regs, *sample);
            for l in lanes(writers) {
                let Some(b) = bind(hs[l]) else { continue };
                match cx.table.get(hs[l]) {
                    Descriptor::Buffer { view, .. } => {
                        if let BufferKind::Typed { format } = view.kind
                            && format.is_supported()
                            && u64::from(c[0][l]) < view.num_elements
                        {
                            let size = u64::from(format.bytes_per_texel());
                            if let Some(m) = view.addr(u64::from(c[0][l]) * size, size) {
                                out.push((
                                    l as u32,
                                    WriteTarget::Resource(b),
                                    m,
                                    size as u32,
                                    false,
                                ));
                            }
                        }
                    }
                    Descriptor::Texture(view) => {
                        let tc = texel_coord(&c, [0; 3], view.dim, l);
                        if let Some(m) = view.texel_addr(tc, 0, s[l]) {
                            let size = view.format.bytes_per_texel();
                            out.push((l as u32, WriteTarget::Resource(b), m, size, false));
                        }
                    }
                    _ => {}
                }
            }
        }
        Inst::ResAtomic { handle, coord, .. } | Inst::ResCmpXchg { handle, coord, .. } => {
            res_atomic(w, cx, *handle, coord, 4, writers, &mut out)
        }
        Inst::ResAtomic64 { handle, coord, .. } | Inst::ResCmpXchg64 { handle, coord, .. } => {
            res_atomic(w, cx, *handle, coord, 8, writers, &mut out)
        }
        Inst::SharedStore {
            width,
            mask,
            addr,
            offset,
            ..
        } => {
            let n = width_bytes(*width);
            let a = reg_or_zero(&w.regs, *addr);
            for l in lanes(writers) {
                for i in 0..4u32 {
                    let at = u64::from(a[l]) + u64::from(*offset) + u64::from(i * n);
                    if mask & (1 << i) != 0 && at + u64::from(n) <= cx.shared_bytes {
                        out.push((l as u32, WriteTarget::GroupShared, at, n, false));
                    }
                }
            }
        }
        Inst::SharedAtomic { addr, .. } | Inst::SharedCmpXchg { addr, .. } => {
            shared_atomic(w, cx, *addr, 4, writers, &mut out)
        }
        Inst::SharedAtomic64 { addr, .. } | Inst::SharedCmpXchg64 { addr, .. } => {
            shared_atomic(w, cx, *addr, 8, writers, &mut out)
        }
        Inst::LocalStore {
            width,
            mask,
            array,
            addr,
            offset,
            ..
        } => {
            let n = width_bytes(*width);
            let a = reg_or_zero(&w.regs, *addr);
            let len = w
                .locals
                .get(array.index())
                .map_or(0, |x| x.len() as u64 * 4);
            // Local stores are not masked by helper lanes: a helper's own array is its own.
            for l in lanes(w.ex.mask) {
                for i in 0..4u32 {
                    let at = u64::from(a[l]) + u64::from(*offset) + u64::from(i * n);
                    if mask & (1 << i) != 0 && at + u64::from(n) <= len {
                        out.push((l as u32, WriteTarget::Local(array.0), at, n, false));
                    }
                }
            }
        }
        // `TraceRay` and `CallShader` write the payload (parameter) back into the lane's
        // array when the programs they ran return: whole words, as `exec::rays` copies
        // them.
        Inst::RayTrace {
            payload: array,
            addr,
            offset,
            bytes,
            ..
        }
        | Inst::RayCall {
            param: array,
            addr,
            offset,
            bytes,
            ..
        }
        | Inst::HitObjectTrace {
            payload: array,
            addr,
            offset,
            bytes,
            ..
        }
        | Inst::HitObjectInvoke {
            payload: array,
            addr,
            offset,
            bytes,
            ..
        }
        | Inst::HitObjectAttributes {
            attrs: array,
            addr,
            offset,
            bytes,
            ..
        } => {
            let a = reg_or_zero(&w.regs, *addr);
            let len = w
                .locals
                .get(array.index())
                .map_or(0, |x| x.len() as u64 * 4);
            for l in lanes(w.ex.mask) {
                let at = u64::from(a[l].wrapping_add(*offset));
                if at % 4 != 0 {
                    continue;
                }
                for i in 0..u64::from(bytes.div_ceil(4)) {
                    if at + 4 * i + 4 <= len {
                        out.push((l as u32, WriteTarget::Local(array.0), at + 4 * i, 4, false));
                    }
                }
            }
        }
        _ => return None,
    }
    Some(Pending { writes: out })
}

fn res_atomic<const W: usize>(
    w: &Wave<W>,
    cx: &Ctx<'_>,
    handle: crate::ir::Reg,
    coord: &[crate::ir::Reg; 3],
    n: u64,
    writers: u128,
    out: &mut Vec<(u32, WriteTarget, u64, u32, bool)>,
) {
    let hs = reg_or_zero(&w.regs, handle);
    let c = coord.map(|r| reg_or_zero(&w.regs, r));
    for l in lanes(writers) {
        let Some(b) = cx.table.locate(hs[l]) else {
            continue;
        };
        let m = match cx.table.get(hs[l]) {
            Descriptor::Buffer { view, .. } => {
                let cl = [c[0][l], c[1][l], c[2][l]];
                super::resource::atomic_offset(view, cl, n).and_then(|o| view.addr(o & !(n - 1), n))
            }
            Descriptor::Texture(view) if u64::from(view.format.bytes_per_texel()) == n => {
                view.texel_addr(texel_coord(&c, [0; 3], view.dim, l), 0, 0)
            }
            _ => None,
        };
        if let Some(m) = m {
            out.push((l as u32, WriteTarget::Resource(b), m, n as u32, true));
        }
    }
}

fn shared_atomic<const W: usize>(
    w: &Wave<W>,
    cx: &Ctx<'_>,
    addr: crate::ir::Reg,
    n: u64,
    writers: u128,
    out: &mut Vec<(u32, WriteTarget, u64, u32, bool)>,
) {
    let a = reg_or_zero(&w.regs, addr);
    for l in lanes(writers) {
        let at = u64::from(a[l]) & !(n - 1);
        if at + n <= cx.shared_bytes {
            out.push((l as u32, WriteTarget::GroupShared, at, n as u32, true));
        }
    }
}

/// Reports the writes `p` announced, with the bytes now there, to `sink`.
pub(crate) fn report<const W: usize>(
    w: &Wave<W>,
    cx: &Ctx<'_>,
    shared: &[u32],
    at: usize,
    p: Pending,
    sink: &dyn WriteSink,
) {
    for (l, target, addr, bytes, atomic) in p.writes {
        let mut value = [0u32; 4];
        match target {
            WriteTarget::Resource(b) => {
                if let Some(mem) = cx.table.memory_of(b) {
                    let mut buf = [0u8; 16];
                    let n = (bytes as usize).min(16);
                    if mem.read_bytes(addr, &mut buf[..n]) {
                        for (k, c) in buf.chunks(4).enumerate() {
                            value[k] = u32::from_le_bytes([c[0], c[1], c[2], c[3]]);
                        }
                    }
                }
            }
            WriteTarget::GroupShared => {
                for (k, v) in value.iter_mut().enumerate() {
                    let word = (addr / 4) as usize + k;
                    let (lo, hi) = (
                        shared.get(word).copied().unwrap_or(0),
                        shared.get(word + 1).copied().unwrap_or(0),
                    );
                    let sh = (addr % 4) * 8;
                    *v = if sh == 0 {
                        lo
                    } else {
                        (lo >> sh) | (hi << (32 - sh))
                    };
                }
            }
            WriteTarget::Local(x) => {
                if let Some(arr) = w.locals.get(x as usize) {
                    for (k, v) in value.iter_mut().enumerate() {
                        let word = (addr / 4) as usize + k;
                        let get = |i: usize| arr.get(i).map_or(0, |a| a[l as usize]);
                        let sh = (addr % 4) * 8;
                        *v = if sh == 0 {
                            get(word)
                        } else {
                            (get(word) >> sh) | (get(word + 1) << (32 - sh))
                        };
                    }
                }
            }
        }
        sink.write(&MemWrite {
            target,
            addr,
            bytes,
            value,
            atomic,
            lane: l,
            invocation: super::control::invocation(w, cx, l as usize),
            inst: InstId(at as u32),
        });
    }
}

/// Collects writes in order (the observed wave's per step, the other waves' of its
/// group), passing each on to an outer sink.
pub(crate) struct Collect<'a> {
    pub buf: Mutex<Vec<MemWrite>>,
    pub outer: Option<&'a dyn WriteSink>,
    /// Keep local-array writes (only the observed wave's matter).
    pub keep_local: bool,
}

impl WriteSink for Collect<'_> {
    fn write(&self, w: &MemWrite) {
        if let Some(o) = self.outer
            && !matches!(w.target, WriteTarget::Local(_))
        {
            o.write(w);
        }
        if self.keep_local || !matches!(w.target, WriteTarget::Local(_)) {
            self.buf
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push(w.clone());
        }
    }
}

impl Collect<'_> {
    /// Takes what was collected.
    pub fn take(&self) -> Vec<MemWrite> {
        std::mem::take(&mut *self.buf.lock().unwrap_or_else(|p| p.into_inner()))
    }
}

/// Keeps [`Width`] in scope for the doc links of the handlers this mirrors.
const _: Option<Width> = None;

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::budget::Xyz;

    fn write(addr: u64, bytes: u32, x: u32) -> MemWrite {
        MemWrite {
            target: WriteTarget::Resource(Binding::Range {
                range: 0,
                element: 0,
            }),
            addr,
            bytes,
            value: [0; 4],
            atomic: false,
            lane: 0,
            invocation: Invocation::Thread {
                group: Xyz([0, 0, 0]),
                thread: Xyz([x, 0, 0]),
            },
            inst: InstId(3),
        }
    }

    /// The map keeps the last writer per word; a word two invocations wrote is contested.
    #[test]
    fn writer_map_keeps_the_last_writer_of_each_word() {
        let m = WriterMap::new(Vec::new());
        m.write(&write(0, 8, 1));
        m.write(&write(4, 4, 2));
        let b = Binding::Range {
            range: 0,
            element: 0,
        };
        let w0 = m.writer(b, 1).unwrap();
        assert!(!w0.contested && w0.writes == 1);
        let w1 = m.writer(b, 4).unwrap();
        assert!(w1.contested && w1.writes == 2);
        assert!(matches!(
            w1.invocation,
            Invocation::Thread {
                thread: Xyz([2, 0, 0]),
                ..
            }
        ));
        assert!(m.writer(b, 8).is_none());
        assert_eq!(m.all().len(), 2);
    }
}
