//! Who wrote a job's resources: the write attribution that `capture` (naming the lane
//! behind a mismatch) and `debug` (opening the lane behind an output) share.
//!
//! Owns: the descriptors through which a program writes the resource at a job address
//! ([`bindings_of`]); the last pixel lane the output merger wrote each watched sample for
//! ([`PixelWriters`], a `pipeline::MergeObserver`); and, for a draw, the last writer of
//! each watched word of a UAV among the vertex and pixel lanes ([`StageWriters`], one
//! `exec::WriterMap` per stage, with the pixel lane's primitive). Does not own: the
//! observation itself (`exec::observe`, `pipeline`'s observers), or what a caller says
//! about a writer (the compare report, the debugger's line).
//!
//! "Last" is the order the run made the writes in. The output merger writes a sample in
//! draw order within the tile that owns it, so a sample's last writer does not depend on
//! worker threads. A draw with a write sink runs on one worker thread (vertex waves, then
//! the tiles in order), so its UAV writes come in one order too; a dispatch's groups run
//! in parallel unless the plan has one worker.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;

use super::ResourceAt;
use crate::exec::{
    Binding, Invocation, MemWrite, WaveRun, WordWriter, WriteSink, WriteTarget, WriterMap,
};
use crate::ir::{ResourceRange, Shader};
use crate::pipeline::{LaneSelect, MergeObserver, MergeTarget, PixelLane, PixelObserver};

/// The descriptors of `shader` through which a run writes the resource at `target`: the
/// element of each declared range that covers its register, or its heap slot.
pub fn bindings_of(shader: &Shader, target: &ResourceAt) -> Vec<Binding> {
    match target {
        ResourceAt::Register(reg) => shader
            .resources
            .iter()
            .enumerate()
            .filter(|(_, r)| {
                r.class == reg.class
                    && r.space == reg.space
                    && reg.index >= r.lower
                    && (r.count == ResourceRange::UNBOUNDED
                        || u64::from(reg.index) < u64::from(r.lower) + u64::from(r.count))
            })
            .map(|(i, r)| Binding::Range {
                range: i as u32,
                element: reg.index - r.lower,
            })
            .collect(),
        ResourceAt::Heap(i) => vec![Binding::ResourceHeap(*i)],
        // Render targets and depth are written by the output merger, not through a
        // descriptor ([`PixelWriters`]).
        ResourceAt::RenderTarget(_) | ResourceAt::DepthStencil => Vec::new(),
        // A command list binds a named resource per command: no one descriptor.
        ResourceAt::Named(_) => Vec::new(),
    }
}

/// A sample of a target: target, x, y, sample.
pub type SampleKey = (MergeTarget, u32, u32, u32);

/// The pixel lane behind each watched sample the output merger wrote during one draw.
/// Only the samples asked about are kept, so the map stays as small as the question
/// whatever the target's size.
///
/// Made [`PixelWriters::with_origins`], it also keeps what the draw says of each set-up
/// primitive's leading vertex (`MergeObserver::origins`): the lane one stage up behind
/// a pixel lane.
#[derive(Default)]
pub struct PixelWriters {
    watch: HashSet<SampleKey>,
    map: Mutex<HashMap<SampleKey, (PixelLane, u32, u32)>>,
    want_origins: bool,
    origins: Mutex<Vec<Option<LaneSelect>>>,
    mesh_origins: Mutex<Vec<Option<crate::pipeline::ms::MeshPrimOrigin>>>,
}

impl MergeObserver for PixelWriters {
    fn write(&self, target: MergeTarget, x: u32, y: u32, sample: u32, lane: &PixelLane) {
        self.write_setup(target, x, y, sample, lane, lane.prim);
    }

    fn write_setup(
        &self,
        target: MergeTarget,
        x: u32,
        y: u32,
        sample: u32,
        lane: &PixelLane,
        setup: u32,
    ) {
        let key = (target, x, y, sample);
        if !self.watch.contains(&key) {
            return;
        }
        // A poisoned lock only means another worker panicked; the map is still whole.
        let mut m = self.map.lock().unwrap_or_else(|e| e.into_inner());
        let e = m.entry(key).or_insert((*lane, 0, setup));
        e.0 = *lane;
        e.1 = e.1.saturating_add(1);
        e.2 = setup;
    }

    fn wants_origins(&self) -> bool {
        self.want_origins
    }

    fn origins(&self, origins: Vec<Option<LaneSelect>>) {
        *self.origins.lock().unwrap_or_else(|e| e.into_inner()) = origins;
    }

    fn mesh_origins(&self, origins: Vec<Option<crate::pipeline::ms::MeshPrimOrigin>>) {
        *self.mesh_origins.lock().unwrap_or_else(|e| e.into_inner()) = origins;
    }
}

impl PixelWriters {
    /// A map watching the samples `watch`.
    pub fn new(watch: impl IntoIterator<Item = SampleKey>) -> PixelWriters {
        PixelWriters {
            watch: watch.into_iter().collect(),
            map: Mutex::default(),
            want_origins: false,
            origins: Mutex::default(),
            mesh_origins: Mutex::default(),
        }
    }

    /// [`PixelWriters::new`], also keeping the lane that made each set-up primitive's
    /// leading vertex ([`PixelWriters::origin`]).
    pub fn with_origins(watch: impl IntoIterator<Item = SampleKey>) -> PixelWriters {
        PixelWriters {
            want_origins: true,
            ..PixelWriters::new(watch)
        }
    }

    /// The vertex, geometry or domain lane that made the leading vertex of set-up
    /// primitive `setup` (as [`PixelWriters::last_setup`] names a lane's primitive), when
    /// the map was made [`PixelWriters::with_origins`] and the draw knew it.
    pub fn origin(&self, setup: u32) -> Option<LaneSelect> {
        self.origins
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(setup as usize)
            .copied()
            .flatten()
    }

    /// A mesh draw's set-up primitive `setup`: the mesh group and place it came from,
    /// when the map was made [`PixelWriters::with_origins`].
    pub fn mesh_origin(&self, setup: u32) -> Option<crate::pipeline::ms::MeshPrimOrigin> {
        self.mesh_origins
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(setup as usize)
            .copied()
            .flatten()
    }

    /// The lane whose output-merger write to `key` came last (its `prim` the draw's
    /// primitive), and how many writes the sample had; `None` when the merger never
    /// wrote it.
    pub fn last(&self, key: SampleKey) -> Option<(PixelLane, u32)> {
        self.last_setup(key).map(|(l, n)| {
            (
                PixelLane {
                    prim: self.drawn(key).unwrap_or(l.prim),
                    ..l
                },
                n,
            )
        })
    }

    /// [`PixelWriters::last`] with the lane's `prim` the set-up primitive it ran for (as
    /// the pixel observers' lanes and `Work::pixel_select` count them).
    pub fn last_setup(&self, key: SampleKey) -> Option<(PixelLane, u32)> {
        self.map
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .map(|(l, n, setup)| (PixelLane { prim: *setup, ..*l }, *n))
    }

    fn drawn(&self, key: SampleKey) -> Option<u32> {
        self.map
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .map(|(l, _, _)| l.prim)
    }
}

/// The last writer of a word of a draw's UAV: the vertex or pixel lane, with the pixel
/// lane's primitive (which `Invocation::Pixel` does not carry).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrawWriter {
    /// The write, as the stage's map kept it.
    pub word: WordWriter,
    /// A pixel lane's place: primitive, pixel, sample and coverage.
    pub pixel: Option<PixelLane>,
}

/// The last writers of watched words of a draw's UAVs, by stage. Give it to the draw as
/// both its write sink (`Hooks::writes`) and its pixel observer (`Hooks::pixels`): with
/// a write sink the draw runs on one worker thread and every pixel wave's writes come
/// just before the observer hears the wave, so a word's newest pixel write is matched
/// with the lane of that wave that made it.
pub struct StageWriters {
    vs: WriterMap,
    ps: WriterMap,
    words: Vec<(Binding, u64)>,
    pixels: Mutex<HashMap<(Binding, u64), (u64, PixelLane)>>,
}

impl StageWriters {
    /// Watches the words at byte addresses `words` (multiples of 4) of the resource the
    /// vertex program writes through `vs` and the pixel program through `ps`.
    pub fn new(vs: Vec<Binding>, ps: Vec<Binding>, words: &[u64]) -> StageWriters {
        // An empty list would mean "every resource": watch a binding no shader has.
        let none = |v: Vec<Binding>| {
            if v.is_empty() {
                vec![Binding::ResourceHeap(u32::MAX)]
            } else {
                v
            }
        };
        let keys = ps
            .iter()
            .flat_map(|b| words.iter().map(move |w| (*b, *w & !3)))
            .collect();
        StageWriters {
            vs: WriterMap::new(none(vs)),
            ps: WriterMap::new(none(ps)),
            words: keys,
            pixels: Mutex::default(),
        }
    }

    /// The last writer of the word holding byte `addr`, written through `binding` of the
    /// vertex program (`vertex`) or of the pixel program. Vertex waves all run before
    /// pixel waves, so a pixel write of a word is later than any vertex write of it.
    pub fn writer(&self, vertex: bool, binding: Binding, addr: u64) -> Option<DrawWriter> {
        if vertex {
            return self
                .vs
                .writer(binding, addr)
                .map(|word| DrawWriter { word, pixel: None });
        }
        let word = self.ps.writer(binding, addr)?;
        let pixel = self
            .pixels
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&(binding, addr & !3))
            .filter(|(order, _)| *order == word.order)
            .map(|(_, p)| *p);
        Some(DrawWriter { word, pixel })
    }
}

impl WriteSink for StageWriters {
    fn write(&self, w: &MemWrite) {
        match w.invocation {
            Invocation::Vertex { .. } => self.vs.write(w),
            Invocation::Pixel { .. } => self.ps.write(w),
            Invocation::Thread { .. } | Invocation::Ray { .. } => {}
        }
    }
}

/// The last writers of the words of watched resources during a `DispatchRays`: the
/// ray-generation lane or nested program (`Invocation::Ray`, which names the program)
/// that wrote each word last. A binding indexes its own program's resource ranges, so
/// each watched entry lists, per program of the pipeline, the bindings through which
/// that program writes the entry's resource ([`bindings_of`] of each program). The
/// launch runs its waves one after the other in launch order, and a lane's nested
/// programs inside its instruction, so "last" is one answer.
#[derive(Default)]
pub struct RayWriters {
    /// Per entry, per program: its bindings.
    entries: Vec<Vec<Vec<Binding>>>,
    words: Mutex<HashMap<(usize, u64), WordWriter>>,
    heard: std::sync::atomic::AtomicU64,
}

impl RayWriters {
    /// Watches each entry of `entries` (per program of the pipeline, the bindings of
    /// the entry's resource in that program).
    pub fn new(entries: Vec<Vec<Vec<Binding>>>) -> RayWriters {
        RayWriters {
            entries,
            words: Mutex::default(),
            heard: std::sync::atomic::AtomicU64::new(0),
        }
    }

    /// The last writer of the word holding byte `addr` of entry `entry`'s memory; its
    /// `invocation` is an `Invocation::Ray` naming the launch index and the program,
    /// and `contested` says that lanes of other launch indices wrote it too.
    pub fn writer(&self, entry: usize, addr: u64) -> Option<WordWriter> {
        self.words
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&(entry, addr & !3))
            .copied()
    }
}

impl WriteSink for RayWriters {
    fn write(&self, w: &MemWrite) {
        let (WriteTarget::Resource(b), Invocation::Ray { index, program, .. }) =
            (w.target, w.invocation)
        else {
            return;
        };
        let mut words = self.words.lock().unwrap_or_else(|e| e.into_inner());
        for (e, per_program) in self.entries.iter().enumerate() {
            if !per_program
                .get(program as usize)
                .is_some_and(|bs| bs.contains(&b))
            {
                continue;
            }
            let order = self
                .heard
                .fetch_add(1, std::sync::atomic::Ordering::Relaxed);
            // Another launch index contests the word, not another program of the same ray.
            let rival = |last: &Invocation| match *last {
                Invocation::Ray { index: i, .. } => i != index,
                _ => true,
            };
            WordWriter::hear(&mut words, w, order, |a| (e, a), rival);
        }
    }
}

impl PixelObserver for StageWriters {
    fn wave(&self, _: u32, _: u32, lanes: &[PixelLane], _: &WaveRun, _: &[u32]) {
        let mut seen = self.pixels.lock().unwrap_or_else(|e| e.into_inner());
        for &(b, a) in &self.words {
            let Some(w) = self.ps.writer(b, a) else {
                continue;
            };
            if seen.get(&(b, a)).is_some_and(|(o, _)| *o >= w.order) {
                continue;
            }
            // The newest write of the word came from this wave (the draw runs on one
            // worker thread when it has a sink): its lane is the writer.
            if let Some(p) = lanes.get(w.lane as usize)
                && let Invocation::Pixel { x, y, .. } = w.invocation
                && p.x == x
                && p.y == y
            {
                seen.insert((b, a), (w.order, *p));
            }
        }
    }
}
