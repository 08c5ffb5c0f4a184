//! Who wrote a job's resources: the write attribution that `capture` (naming the lane
//! behind a mismatch) and `debug` (opening the lane behind an output) share.
//!
//! Owns: the descriptors through which a program writes the resource at a job address
//! ([`bindings_of`], and per stage of a draw [`draw_bindings`]); the last pixel lane the
//! output merger wrote each watched sample for, and in which view's pass
//! ([`PixelWriters`], a `pipeline::MergeObserver`); for a draw, the last writer of each
//! watched word of a UAV among the lanes of every stage — vertex, hull, domain,
//! geometry, amplification, mesh and pixel ([`DrawWriters`]); and a non-pixel lane in
//! words with the `dxlane debug` flags that select it ([`lane_words`]); the chain of
//! lanes behind a pixel lane, stage by stage up to the vertex lanes ([`lane_chain`]).
//! Does not own:
//! the observation itself (`exec::observe`, `pipeline`'s observers and its
//! `LaneWriteSink`), or what a caller says about a writer (the compare report, the
//! debugger's line).
//!
//! "Last" is the order the run made the writes in. The output merger writes a sample in
//! draw order within the tile that owns it, so a sample's last writer does not depend on
//! worker threads. A draw with a write sink runs on one worker thread, its views one
//! after another and within a view the stages in the order the pipeline runs them, so
//! its UAV writes come in one order too, and so does a `DispatchRays` with a write sink
//! (its ray-generation waves then run one after another); a dispatch's groups run in
//! parallel unless the plan has one worker.

use std::collections::{HashMap, HashSet};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};

use super::ResourceAt;
use crate::exec::{Binding, Invocation, MemWrite, WaveRun, WordWriter, WriteSink, WriteTarget};
use crate::ir::{ResourceRange, Shader};
use crate::pipeline::draw::LaneWriteSink;
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
    map: Mutex<HashMap<SampleKey, (PixelLane, u32, u32, u32)>>,
    view: AtomicU32,
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
        let view = self.view.load(Ordering::Relaxed);
        let mut m = self.map.lock().unwrap_or_else(|e| e.into_inner());
        let e = m.entry(key).or_insert((*lane, 0, setup, view));
        e.0 = *lane;
        e.1 = e.1.saturating_add(1);
        e.2 = setup;
        e.3 = view;
    }

    fn pass(&self, view: u32) {
        self.view.store(view, Ordering::Relaxed);
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
            view: AtomicU32::new(0),
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
            .map(|(l, n, setup, _)| (PixelLane { prim: *setup, ..*l }, *n))
    }

    /// The view instance whose pass made the last write to `key` (0 without view
    /// instancing); `None` when the merger never wrote it.
    pub fn last_view(&self, key: SampleKey) -> Option<u32> {
        self.map
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .map(|e| e.3)
    }

    fn drawn(&self, key: SampleKey) -> Option<u32> {
        self.map
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&key)
            .map(|e| e.0.prim)
    }
}

/// The stage of a draw whose lane wrote a word ([`DrawWriters`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum DrawStage {
    /// The vertex program.
    Vertex,
    /// The hull program (either phase).
    Hull,
    /// The domain program.
    Domain,
    /// The geometry program.
    Geometry,
    /// The amplification program.
    Amplification,
    /// The mesh program.
    Mesh,
    /// The pixel program.
    Pixel,
}

impl DrawStage {
    /// Every stage, in the order of [`StageBindings`].
    pub const ALL: [DrawStage; 7] = [
        DrawStage::Vertex,
        DrawStage::Hull,
        DrawStage::Domain,
        DrawStage::Geometry,
        DrawStage::Amplification,
        DrawStage::Mesh,
        DrawStage::Pixel,
    ];

    /// The stage's name in reports: `"vertex"`, `"mesh"`, ….
    pub fn name(self) -> &'static str {
        match self {
            DrawStage::Vertex => "vertex",
            DrawStage::Hull => "hull",
            DrawStage::Domain => "domain",
            DrawStage::Geometry => "geometry",
            DrawStage::Amplification => "amplification",
            DrawStage::Mesh => "mesh",
            DrawStage::Pixel => "pixel",
        }
    }

    /// The stage whose lane `lane` is (`None` for a lane of no draw stage).
    pub fn of(lane: &LaneSelect) -> Option<DrawStage> {
        Some(match lane {
            LaneSelect::Vertex { .. } => DrawStage::Vertex,
            LaneSelect::Hull { .. } => DrawStage::Hull,
            LaneSelect::Domain { .. } => DrawStage::Domain,
            LaneSelect::Geometry { .. } => DrawStage::Geometry,
            LaneSelect::Amplification { .. } => DrawStage::Amplification,
            LaneSelect::Mesh { .. } => DrawStage::Mesh,
            LaneSelect::Pixel { .. } => DrawStage::Pixel,
            _ => return None,
        })
    }
}

/// Per stage (in [`DrawStage::ALL`]'s order), the bindings through which its program
/// writes one resource (empty for a stage the draw does not have).
pub type StageBindings = [Vec<Binding>; 7];

/// Each stage's bindings of the resource at `target` in draw `d` (`bindings_of` of each
/// of its programs; a mesh draw's mesh program is its `vs`).
pub fn draw_bindings(d: &crate::pipeline::DrawWork, target: &ResourceAt) -> StageBindings {
    draw_bindings_by(d, |s| bindings_of(s, target))
}

/// Each stage's bindings in draw `d` as `of` gives them for its program (empty for a
/// stage the draw does not have).
pub fn draw_bindings_by(
    d: &crate::pipeline::DrawWork,
    of: impl Fn(&Shader) -> Vec<Binding>,
) -> StageBindings {
    DrawStage::ALL.map(|s| stage_program(d, s).map(&of).unwrap_or_default())
}

/// The program of draw `d` that `stage` runs (a mesh draw's mesh program is its `vs`).
pub fn stage_program(d: &crate::pipeline::DrawWork, stage: DrawStage) -> Option<&Shader> {
    let mesh = d.mesh.is_some();
    match stage {
        DrawStage::Vertex => (!mesh).then_some(&*d.vs),
        DrawStage::Hull => d.hs.as_ref().map(|h| &*h.0),
        DrawStage::Domain => d.ds.as_ref().map(|h| &*h.0),
        DrawStage::Geometry => d.gs.as_ref().map(|h| &*h.0),
        DrawStage::Amplification => d
            .mesh
            .as_ref()
            .and_then(|m| m.amplification.as_ref().map(|a| &*a.0)),
        DrawStage::Mesh => mesh.then_some(&*d.vs),
        DrawStage::Pixel => d.ps.as_deref(),
    }
}

/// A vertex, hull, domain, geometry, amplification or mesh lane in words, and the
/// `dxlane debug` flags that select it, with `--view v` for a lane of view `v`'s pass
/// (`None` for another kind of lane). The one wording of a lane that `compare`'s
/// reports and the debugger's lane chain share.
pub fn lane_words(sel: &LaneSelect, view: Option<u32>) -> Option<(String, String)> {
    let p = |v: [u32; 3]| format!("({}, {}, {})", v[0], v[1], v[2]);
    let c = |v: [u32; 3]| format!("{},{},{}", v[0], v[1], v[2]);
    let (what, flags) = match *sel {
        LaneSelect::Vertex { vertex, instance } => (
            format!("vertex {vertex}, draw instance {instance}"),
            format!("--vertex {vertex} --instance {instance}"),
        ),
        LaneSelect::Hull {
            patch,
            control_point: Some(k),
            instance,
            ..
        } => (
            format!("hull patch {patch}, control point {k}, draw instance {instance}"),
            format!("--hs-patch {patch} --control-point {k} --instance {instance}"),
        ),
        LaneSelect::Hull {
            patch,
            control_point: None,
            instance,
            join: false,
        } => (
            format!("hull patch {patch}, patch constants, draw instance {instance}"),
            format!("--hs-patch {patch} --patch-constant --instance {instance}"),
        ),
        LaneSelect::Hull {
            patch,
            control_point: None,
            instance,
            join: true,
        } => (
            format!("hull patch {patch}, join phase, draw instance {instance}"),
            format!("--hs-patch {patch} --join-phase --instance {instance}"),
        ),
        LaneSelect::Domain {
            patch,
            point,
            instance,
        } => (
            format!("domain patch {patch}, domain point {point}, draw instance {instance}"),
            format!("--ds-patch {patch} --ds-point {point} --instance {instance}"),
        ),
        LaneSelect::Geometry {
            prim,
            gs_instance,
            instance,
        } => (
            format!(
                "geometry input primitive {prim}, SV_GSInstanceID {gs_instance}, draw instance {instance}"
            ),
            format!("--gs-primitive {prim} --gs-instance {gs_instance} --instance {instance}"),
        ),
        LaneSelect::Amplification { group, thread } => (
            format!("amplification group {}, thread {}", p(group), p(thread)),
            format!("--as-group {} --as-thread {}", c(group), c(thread)),
        ),
        LaneSelect::Mesh {
            launch,
            group,
            thread,
        } => {
            let by = launch
                .map(|l| format!(", launched by amplification group {}", p(l)))
                .unwrap_or_default();
            let flag = launch
                .map(|l| format!("--as-group {} ", c(l)))
                .unwrap_or_default();
            (
                format!("mesh group {}, thread {}{by}", p(group), p(thread)),
                format!("{flag}--ms-group {} --ms-thread {}", c(group), c(thread)),
            )
        }
        _ => return None,
    };
    let view = view.map(|v| format!(" --view {v}")).unwrap_or_default();
    Some((what, format!("{flags}{view}")))
}

/// `what was made by LANE (FLAGS)`: the sentence naming the lane that made an input of
/// the lane below it (`what`: "input vertex 0", "the patch constants", …), as the
/// debugger's `inputs` and `why` say it; `None` when [`lane_words`] has no words for
/// `lane`.
pub fn made_by(what: &str, lane: &LaneSelect, view: Option<u32>) -> Option<String> {
    let (who, flags) = lane_words(lane, view)?;
    // "the patch constants were made", "input vertex 0 was made".
    let verb = if what.ends_with('s') { "were" } else { "was" };
    Some(format!("{what} {verb} made by {who} ({flags})"))
}

/// One lane of the chain behind a pixel lane ([`lane_chain`]).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ChainLink {
    /// The lane.
    pub lane: LaneSelect,
    /// What it made for the lane it fed: "the primitive's leading vertex" (for the
    /// pixel lane), "input vertex 0", "control point 0", "the patch constants", "the fork
    /// phases' outputs".
    pub made: &'static str,
    /// The link whose lane it fed (an index into the chain); `None`: the pixel lane.
    pub fed: Option<usize>,
}

/// What a domain lane's patch-constant lane made for it.
pub const PATCH_CONSTANTS: &str = "the patch constants";
/// What a DXBC join-phase lane's fork-phase lane made for it: the fork phases' outputs,
/// which the join phases read as `vpc#` (D3D11.3 §10: the join phases run after every
/// fork phase of the patch and read their outputs).
pub const FORK_OUTPUTS: &str = "the fork phases' outputs";

/// The most links [`lane_chain`] follows: pixel → geometry → domain (with its hull
/// patch-constant or join-phase lane, and that lane's fork-phase lane) → hull control
/// point → vertex is six; the bound only keeps a
/// malformed answer from looping.
const CHAIN_LINKS: usize = 8;

/// The lanes behind a pixel lane whose primitive's leading vertex `first` made, up
/// through the stages to a vertex lane: per hop the lane that made input vertex 0 of a
/// geometry lane, control point 0 of a domain or hull control-point lane (and, for a
/// domain lane, the hull lane that made its patch constants; for a DXBC join-phase
/// lane, the fork-phase lane of its patch, which made the fork results it reads) — as `origins_of` says the
/// draw fed each lane (`pipeline::trace::input_origins`, the record the debugger's
/// `inputs` reads for the lane it opens). The first link is `first` itself; a vertex
/// lane ends a line, and so does a lane `origins_of` knows nothing of.
pub fn lane_chain(
    first: LaneSelect,
    origins_of: &mut dyn FnMut(LaneSelect) -> Option<crate::pipeline::trace::InputOrigins>,
) -> Vec<ChainLink> {
    let mut chain = vec![ChainLink {
        lane: first,
        made: "the primitive's leading vertex",
        fed: None,
    }];
    let mut i = 0;
    while i < chain.len() && chain.len() < CHAIN_LINKS {
        let lane = chain[i].lane;
        // What the hop names: the first input vertex or control point, and the lane
        // that wrote what the lane reads as patch constants.
        let (point, patch) = match lane {
            LaneSelect::Geometry { .. } => (Some("input vertex 0"), None),
            LaneSelect::Domain { .. } => (Some("control point 0"), Some(PATCH_CONSTANTS)),
            LaneSelect::Hull {
                control_point: Some(_),
                ..
            } => (Some("control point 0"), None),
            LaneSelect::Hull {
                control_point: None,
                join: true,
                ..
            } => (None, Some(FORK_OUTPUTS)),
            _ => {
                i += 1;
                continue;
            }
        };
        if let Some(o) = origins_of(lane) {
            if let (Some(made), Some(&p)) = (point, o.points.first()) {
                chain.push(ChainLink {
                    lane: p,
                    made,
                    fed: Some(i),
                });
            }
            if let (Some(made), Some(p)) = (patch, o.patch) {
                chain.push(ChainLink {
                    lane: p,
                    made,
                    fed: Some(i),
                });
            }
        }
        i += 1;
    }
    chain.truncate(CHAIN_LINKS);
    chain
}

/// The sample a pixel lane is selected by (`--pixel x,y --sample s`, the rank's sample):
/// its own when it covers it (a per-sample lane), else the lowest it covers.
pub fn lane_sample(p: &PixelLane) -> u32 {
    if p.coverage >> (p.sample & 31) & 1 == 1 {
        p.sample
    } else {
        p.coverage.trailing_zeros().min(31)
    }
}

/// The lane behind a draw's word: a pixel lane (its primitive known once its wave has
/// been heard), or a lane of another stage as the debugger selects it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DrawLane {
    /// A pixel lane: its pixel and sample, and its place once the pixel observer has
    /// heard its wave (`None` until then, or if it never was).
    Pixel {
        /// Pixel x.
        x: u32,
        /// Pixel y.
        y: u32,
        /// The sample.
        sample: u32,
        /// Primitive, pixel, sample and coverage.
        lane: Option<PixelLane>,
    },
    /// A vertex, hull, domain, geometry, amplification or mesh lane.
    Lane(LaneSelect),
}

/// The last writer of a watched word of a draw's UAV.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DrawWriter {
    /// The stage whose lane wrote it.
    pub stage: DrawStage,
    /// The lane.
    pub lane: DrawLane,
    /// The view instance whose pass ran the lane (0 without view instancing).
    pub view: u32,
    /// The instruction (of the stage's program).
    pub inst: crate::ir::InstId,
    /// How many writes touched the word.
    pub writes: u32,
    /// Whether other lanes wrote it too.
    pub contested: bool,
    /// When it was heard among the watched words' writes: the highest is the newest.
    pub order: u64,
    wave_lane: u32,
}

/// The last writers of watched words of a draw's UAVs, among every stage's lanes. Give
/// it to the draw as its write sink (`Hooks::writes`: vertex and pixel lanes), its lane
/// write sink (`Hooks::lanes`: the other stages) and its pixel observer
/// (`Hooks::pixels`). With a sink the draw runs on one worker thread, in the order the
/// stages run (per view; per draw instance the vertex waves, the hull, domain and
/// geometry stages; or the amplification then mesh groups; then the tiles in order),
/// so the last writer of a word is one answer in every run; every pixel wave's writes
/// come just before the observer hears the wave, which names the pixel lane's
/// primitive.
pub struct DrawWriters {
    /// Per entry: each stage's bindings of it, and the word addresses watched.
    entries: Vec<(StageBindings, HashSet<u64>)>,
    last: Mutex<HashMap<(usize, u64), DrawWriter>>,
    /// Words whose last writer is a pixel lane whose wave the observer has not heard.
    pending: Mutex<Vec<(usize, u64)>>,
    heard: AtomicU64,
    view: AtomicU32,
}

impl DrawWriters {
    /// Watches, per entry, the words holding the bytes at `words` of the resource each
    /// stage writes through its bindings.
    pub fn new(entries: Vec<(StageBindings, Vec<u64>)>) -> DrawWriters {
        DrawWriters {
            entries: entries
                .into_iter()
                .map(|(b, w)| (b, w.into_iter().map(|a| a & !3).collect()))
                .collect(),
            last: Mutex::default(),
            pending: Mutex::default(),
            heard: AtomicU64::new(0),
            view: AtomicU32::new(0),
        }
    }

    /// The last writer of the word holding byte `addr` of entry `entry`.
    pub fn writer(&self, entry: usize, addr: u64) -> Option<DrawWriter> {
        self.last
            .lock()
            .unwrap_or_else(|e| e.into_inner())
            .get(&(entry, addr & !3))
            .copied()
    }

    fn hear(&self, stage: DrawStage, lane: DrawLane, view: u32, w: &MemWrite) {
        let WriteTarget::Resource(b) = w.target else {
            return;
        };
        let s = DrawStage::ALL.iter().position(|x| *x == stage).unwrap_or(0);
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        let end = w.addr.saturating_add(u64::from(w.bytes.max(1)));
        for (e, (bindings, watch)) in self.entries.iter().enumerate() {
            if !bindings[s].contains(&b) {
                continue;
            }
            let mut a = w.addr & !3;
            while a < end {
                if watch.contains(&a) {
                    // Counted under the lock: the numbers follow the order of the writes.
                    let order = self.heard.fetch_add(1, Ordering::Relaxed);
                    let same = |x: &DrawWriter| {
                        x.stage == stage
                            && x.view == view
                            && match (x.lane, lane) {
                                (
                                    DrawLane::Pixel { x, y, sample, .. },
                                    DrawLane::Pixel {
                                        x: x2,
                                        y: y2,
                                        sample: s2,
                                        ..
                                    },
                                ) => (x, y, sample) == (x2, y2, s2),
                                (a, b) => a == b,
                            }
                    };
                    let new = DrawWriter {
                        stage,
                        lane,
                        view,
                        inst: w.inst,
                        writes: 1,
                        contested: false,
                        order,
                        wave_lane: w.lane,
                    };
                    last.entry((e, a))
                        .and_modify(|x| {
                            let contested = x.contested || !same(x);
                            *x = DrawWriter {
                                writes: x.writes.saturating_add(1),
                                contested,
                                ..new
                            };
                        })
                        .or_insert(new);
                    if stage == DrawStage::Pixel {
                        self.pending
                            .lock()
                            .unwrap_or_else(|e| e.into_inner())
                            .push((e, a));
                    }
                }
                a += 4;
            }
        }
    }
}

impl WriteSink for DrawWriters {
    fn write(&self, w: &MemWrite) {
        let view = self.view.load(Ordering::Relaxed);
        match w.invocation {
            Invocation::Vertex { vertex, instance } => self.hear(
                DrawStage::Vertex,
                DrawLane::Lane(LaneSelect::Vertex { vertex, instance }),
                view,
                w,
            ),
            Invocation::Pixel { x, y, sample } => self.hear(
                DrawStage::Pixel,
                DrawLane::Pixel {
                    x,
                    y,
                    sample,
                    lane: None,
                },
                view,
                w,
            ),
            Invocation::Thread { .. } | Invocation::Ray { .. } => {}
        }
    }
}

impl LaneWriteSink for DrawWriters {
    fn write(&self, view: u32, lane: LaneSelect, w: &MemWrite) {
        if let Some(stage) = DrawStage::of(&lane) {
            self.hear(stage, DrawLane::Lane(lane), view, w);
        }
    }

    fn pass(&self, view: u32) {
        self.view.store(view, Ordering::Relaxed);
    }
}

impl PixelObserver for DrawWriters {
    fn wave(&self, _: u32, _: u32, lanes: &[PixelLane], _: &WaveRun, _: &[u32]) {
        let pending = std::mem::take(&mut *self.pending.lock().unwrap_or_else(|e| e.into_inner()));
        if pending.is_empty() {
            return;
        }
        let mut last = self.last.lock().unwrap_or_else(|e| e.into_inner());
        for key in pending {
            // The newest write of the word came from this wave (one worker thread): its
            // lane is the writer.
            if let Some(d) = last.get_mut(&key)
                && let DrawLane::Pixel {
                    x,
                    y,
                    lane: lane @ None,
                    ..
                } = &mut d.lane
                && let Some(p) = lanes.get(d.wave_lane as usize)
                && p.x == *x
                && p.y == *y
            {
                *lane = Some(*p);
            }
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

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::trace::InputOrigins;

    const GS: LaneSelect = LaneSelect::Geometry {
        prim: 1,
        gs_instance: 0,
        instance: 1,
    };
    const DS: LaneSelect = LaneSelect::Domain {
        patch: 1,
        point: 0,
        instance: 1,
    };
    const CP: LaneSelect = LaneSelect::Hull {
        patch: 1,
        control_point: Some(0),
        join: false,
        instance: 1,
    };
    const PC: LaneSelect = LaneSelect::Hull {
        patch: 1,
        control_point: None,
        join: false,
        instance: 1,
    };
    const VS: LaneSelect = LaneSelect::Vertex {
        vertex: 3,
        instance: 1,
    };

    /// A pixel of a vs → hs → ds → gs draw: the geometry lane, the domain lane of its
    /// input vertex 0, that lane's control point 0 and patch constants, the control
    /// point's input control point 0 — each link naming the link it fed; a vertex lane
    /// and a patch-constant lane are not followed further.
    #[test]
    fn the_chain_follows_the_first_input_up_to_a_vertex_lane() {
        let other = LaneSelect::Domain {
            patch: 1,
            point: 1,
            instance: 1,
        };
        let mut asked = Vec::new();
        let chain = lane_chain(GS, &mut |l| {
            asked.push(l);
            match l {
                GS => Some(InputOrigins {
                    points: vec![DS, other],
                    ..InputOrigins::default()
                }),
                DS => Some(InputOrigins {
                    points: vec![CP],
                    output_points: Vec::new(),
                    patch: Some(PC),
                }),
                CP => Some(InputOrigins {
                    points: vec![VS],
                    ..InputOrigins::default()
                }),
                _ => None,
            }
        });
        let got: Vec<_> = chain.iter().map(|c| (c.lane, c.made, c.fed)).collect();
        assert_eq!(
            got,
            [
                (GS, "the primitive's leading vertex", None),
                (DS, "input vertex 0", Some(0)),
                (CP, "control point 0", Some(1)),
                (PC, "the patch constants", Some(1)),
                (VS, "control point 0", Some(2)),
            ]
        );
        assert_eq!(asked, [GS, DS, CP]);
    }

    /// A domain lane of a program with join phases: its patch constants come from the
    /// join-phase lane, whose fork results (`vpc`) come from the patch's fork-phase lane
    /// (D3D11.3 §10: join phases read the fork phases' outputs); the fork-phase lane is
    /// not followed further.
    #[test]
    fn the_chain_goes_from_a_join_phase_to_its_fork_phase() {
        const JOIN: LaneSelect = LaneSelect::Hull {
            patch: 1,
            control_point: None,
            join: true,
            instance: 1,
        };
        let mut asked = Vec::new();
        let chain = lane_chain(DS, &mut |l| {
            asked.push(l);
            match l {
                DS => Some(InputOrigins {
                    points: vec![VS],
                    output_points: Vec::new(),
                    patch: Some(JOIN),
                }),
                JOIN => Some(InputOrigins {
                    points: vec![VS],
                    output_points: vec![VS],
                    patch: Some(PC),
                }),
                _ => None,
            }
        });
        let got: Vec<_> = chain.iter().map(|c| (c.lane, c.made, c.fed)).collect();
        assert_eq!(
            got,
            [
                (DS, "the primitive's leading vertex", None),
                (VS, "control point 0", Some(0)),
                (JOIN, PATCH_CONSTANTS, Some(0)),
                (PC, FORK_OUTPUTS, Some(2)),
            ]
        );
        assert_eq!(asked, [DS, JOIN]);
        assert_eq!(
            made_by(FORK_OUTPUTS, &PC, None).unwrap(),
            "the fork phases' outputs were made by hull patch 1, patch constants, draw instance 1 (--hs-patch 1 --patch-constant --instance 1)"
        );
    }

    /// An answer that leads back to the lane itself stops at the bound.
    #[test]
    fn a_chain_that_loops_is_bounded() {
        let chain = lane_chain(GS, &mut |_| {
            Some(InputOrigins {
                points: vec![GS],
                ..InputOrigins::default()
            })
        });
        assert_eq!(chain.len(), CHAIN_LINKS);
        // A lane nothing is known of ends the chain at itself.
        assert_eq!(lane_chain(DS, &mut |_| None).len(), 1);
    }

    /// One wording for compare and the debugger, with the view's flag.
    #[test]
    fn made_by_names_the_lane_and_its_flags() {
        assert_eq!(
            made_by("the patch constants", &PC, Some(2)).unwrap(),
            "the patch constants were made by hull patch 1, patch constants, draw instance 1 (--hs-patch 1 --patch-constant --instance 1 --view 2)"
        );
        assert_eq!(
            made_by("control point 0", &VS, None).unwrap(),
            "control point 0 was made by vertex 3, draw instance 1 (--vertex 3 --instance 1)"
        );
        assert_eq!(made_by("x", &LaneSelect::Ray([0, 0, 0]), None), None);
    }
}
