//! Scenes (llvmpipe's word): a run of a command list's draws over the same render
//! targets and depth view whose tiles run together.
//!
//! Each draw of a scene runs its front end when its command comes, in list order
//! (`draw`), and lists its primitives in tile lists the scene's draws share, each tile's
//! list in list order: draw by draw, then primitive by primitive. When the scene ends,
//! the workers take whole tiles, and each tile runs its draws' entries in that order on
//! one copy of the tile, switching from one draw's pixel program and merger to the
//! next's between runs of entries. Tiles own disjoint pixels and every pixel sees the
//! draws in list order, so the targets are the same bits as when each draw runs its
//! own tiles (D3D11.3 §3.5: the output merger sees a pixel's primitives in the order
//! they were submitted). What a list of many small draws gains: the tiles of all its
//! draws share the workers, each tile is loaded and stored once instead of once per
//! draw, and no draw waits for workers of its own (`benches/lists.rs`).
//!
//! A draw joins a scene ([`admits`]) when nothing can tell that its tiles ran late:
//! none of its programs writes memory (a UAV, or the descriptor heap, which may hold
//! one: a later draw's front end could see or change what an earlier draw's pixel
//! program wrote), it has no stream output and no view instancing, and none of its
//! stages reads the scene's targets. A scene ends at any other command (clears, copies,
//! dispatches, queries, predication, indirect and predicated draws: they see or change
//! the targets), at a draw over other targets, at a draw whose tiles cannot wait (more
//! than [`DRAW_PRIMITIVES`] primitives, or routed to several slices), at
//! [`SCENE_DRAWS`] draws or [`SCENE_BYTES`] held, and at the end of the list.
//!
//! Owns: which draws join and when a scene ends, its tile lists, and the order its
//! tiles run their draws in. Does not own: a draw's front end or report (`draw`), the
//! tile loop itself (`tile`), or the command list (`commands`).

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::Instant;

use super::bin::{Binned, Bins};
use super::dispatch::Bindings;
use super::draw::{DrawError, DrawReport, DrawTail};
use super::om::tile::TileBuf;
use super::ps::PixelStage;
use super::pso::PsoCache;
use super::state::{DepthStencilView, DrawState, RenderTargetView};
use super::tile::{TileCtx, TileStats, workers_worth};
use crate::exec::{ExecError, RunBudget, StageRunner};
use crate::ir::{ResourceClass, Shader};
use crate::resources::{Descriptor, Memory};

/// The most primitives a draw may have and still wait for its scene: a larger draw's
/// own tiles keep the workers busy, and its primitives' records would hold much memory
/// while they wait.
pub(crate) const DRAW_PRIMITIVES: usize = 4096;

/// The most draws in one scene (each holds its primitives, vertices and programs until
/// the scene's tiles run).
pub const SCENE_DRAWS: usize = 4096;

/// The most bytes a scene's draws and tile lists hold before it ends (and never more
/// than the run's memory limit).
pub const SCENE_BYTES: u64 = 64 << 20;

/// The render targets and depth view a scene's draws share.
#[derive(PartialEq)]
struct Targets {
    colors: Vec<Option<RenderTargetView>>,
    depth: Option<DepthStencilView>,
}

impl Targets {
    fn of(s: &DrawState<'_>) -> Targets {
        Targets {
            colors: s.render_targets.clone(),
            depth: s.depth_stencil_view.clone(),
        }
    }

    /// Whether any of the targets is stored in `m`.
    fn in_memory(&self, m: &Memory) -> bool {
        self.colors
            .iter()
            .flatten()
            .any(|v| v.texture.memory() == m)
            || self.depth.as_ref().is_some_and(|d| d.texture.memory() == m)
    }
}

/// A draw waiting in a scene: its tiles' inputs, and where its report goes.
struct Joined<'a> {
    tail: DrawTail<'a, 'a>,
    /// The command's index in the list, and the run's among the command's reports.
    at: (usize, usize),
    /// Seconds spent listing its primitives in the scene's tiles.
    binning: f64,
}

/// The draws of a scene, waiting for their tiles to run ([`Scene::run`]).
#[derive(Default)]
pub(crate) struct Scene<'a> {
    targets: Option<Targets>,
    draws: Vec<Joined<'a>>,
    /// The scene's tile lists: each entry's `index` is the primitive's in its draw.
    bins: Option<Bins<Binned>>,
    /// Per tile, its list's runs of one draw's entries, in order: `(draw, end)`, the
    /// run ending before entry `end`.
    runs: Vec<Vec<(u32, u32)>>,
    /// The tiles holding entries, in the order first listed.
    touched: Vec<u32>,
    /// Bytes the draws and lists hold.
    bytes: u64,
}

/// What a finished scene reports for each of its draws, in list order.
pub(crate) struct SceneDraw {
    /// The command's index in the list, and the run's among the command's reports.
    pub at: (usize, usize),
    /// The draw's report, its tiles included.
    pub report: DrawReport,
    /// The draw's share of the time the scene's tiles took (by its tiles' thread time).
    pub seconds: f64,
}

/// A scene's failure: the command whose draw failed (its index in the list) and why.
pub(crate) type SceneError = (usize, DrawError);

/// Whether a draw of state `s` may join a scene at all (see the module's comment):
/// none of its programs writes memory, no stream output, no view instancing, and none
/// of its stages' resources shares memory with its targets.
pub(crate) fn admits(s: &DrawState<'_>) -> bool {
    if s.view_instancing.is_some() || s.stream_output.is_some() {
        return false;
    }
    if s.render_targets.iter().all(Option::is_none) && s.depth_stencil_view.is_none() {
        return false;
    }
    let stages = stages(s);
    if stages.iter().any(|(p, _)| writes_memory(p)) {
        return false;
    }
    let targets = Targets::of(s);
    !stages.iter().any(|(_, b)| reads_from(b, &targets))
        && !s
            .vertex_buffers
            .iter()
            .flatten()
            .any(|v| targets.in_memory(&v.data))
        && !s
            .index_buffer
            .as_ref()
            .is_some_and(|v| targets.in_memory(&v.data))
}

/// Every program of the draw with its resources.
fn stages<'a>(s: &DrawState<'a>) -> Vec<(&'a Shader, &'a Bindings)> {
    let mut v = vec![(s.vs, s.vs_bindings)];
    v.extend(s.ps.map(|p| (p, s.ps_bindings)));
    v.extend(s.gs);
    v.extend(s.hs);
    v.extend(s.ds);
    v.extend(s.mesh.as_ref().and_then(|m| m.amplification));
    v
}

/// Whether `p` may write memory: it declares a UAV, or reaches the descriptor heap
/// (which may hold one).
fn writes_memory(p: &Shader) -> bool {
    p.uses_resource_heap || p.resources.iter().any(|r| r.class == ResourceClass::Uav)
}

/// Whether a descriptor of `b` views memory holding one of `t`.
fn reads_from(b: &Bindings, t: &Targets) -> bool {
    b.ranges
        .iter()
        .flatten()
        .chain(&b.resource_heap)
        .any(|d| match d {
            Descriptor::Texture(v) => t.in_memory(v.texture.memory()),
            Descriptor::Buffer { view, .. } => t.in_memory(&view.memory),
            Descriptor::ConstantBuffer { memory, .. } => t.in_memory(memory),
            _ => false,
        })
}

impl<'a> Scene<'a> {
    /// Whether a draw of state `s` (which [`admits`] allows) would continue this scene:
    /// the scene is empty, or the draw has its targets. When not, the scene must run
    /// first.
    pub(crate) fn continues(&self, s: &DrawState<'_>) -> bool {
        match &self.targets {
            None => true,
            Some(t) => t.colors == s.render_targets && t.depth == s.depth_stencil_view,
        }
    }

    /// Whether the scene holds draws.
    pub(crate) fn is_empty(&self) -> bool {
        self.draws.is_empty()
    }

    /// Whether `tail` (its draw's front end done) fits the scene beside what it holds
    /// under the run's memory limit `limit`; when not, the scene must run first.
    pub(crate) fn has_room(&self, tail: &DrawTail<'_, '_>, limit: u64) -> bool {
        let lists = (tail.prims.len() as u64).saturating_mul(4 * size_of::<Binned>() as u64);
        let bytes = self
            .bytes
            .saturating_add(tail.memory_used)
            .saturating_add(lists);
        self.draws.is_empty() || (self.draws.len() < SCENE_DRAWS && bytes <= SCENE_BYTES.min(limit))
    }

    /// Adds a draw whose front end is done (its command `at`), listing its primitives
    /// in the scene's tiles.
    pub(crate) fn join(&mut self, tail: DrawTail<'a, 'a>, at: (usize, usize)) {
        let t0 = Instant::now();
        if self.targets.is_none() {
            self.targets = Some(Targets::of(&tail.state));
        }
        let (width, height) = tail.size();
        let bins = match self.bins.take() {
            Some(b) if b.size() == (width, height) => b,
            _ => Bins::new(width, height),
        };
        if self.runs.len() != bins.bins.len() {
            self.runs = vec![Vec::new(); bins.bins.len()];
        }
        let mut bins = bins;
        let draw = self.draws.len() as u32;
        let mut entries = 0u64;
        for (i, p) in tail.prims.iter().enumerate() {
            let Ok(index) = u32::try_from(i) else { break };
            let ([tx0, tx1], [ty0, ty1]) = bins.tiles_of(p.bbox);
            for ty in ty0..=ty1 {
                for tx in tx0..=tx1 {
                    let t = ty * bins.tiles_x + tx;
                    let (Some(list), Some(runs)) =
                        (bins.bins.get_mut(t as usize), self.runs.get_mut(t as usize))
                    else {
                        continue;
                    };
                    if list.is_empty() {
                        self.touched.push(t);
                    }
                    list.push(Binned::of(index, p));
                    entries += 1;
                    let end = list.len() as u32;
                    match runs.last_mut() {
                        Some((d, e)) if *d == draw => *e = end,
                        _ => runs.push((draw, end)),
                    }
                }
            }
        }
        self.bins = Some(bins);
        self.bytes = self
            .bytes
            .saturating_add(tail.memory_used)
            .saturating_add(entries.saturating_mul(size_of::<Binned>() as u64));
        self.draws.push(Joined {
            tail,
            at,
            binning: t0.elapsed().as_secs_f64(),
        });
    }

    /// Runs the scene's tiles on up to the draws' worker count (the calling thread one
    /// of them), charging `budget`, and empties the scene; returns each draw's report, or
    /// the failure of the earliest draw that failed (no later draw's entries run in a
    /// tile after a failing one; a later draw's may have run in other tiles, as a
    /// failing draw's own tiles may have run past its failing one).
    pub(crate) fn run(
        &mut self,
        budget: &RunBudget,
        pso: Option<&PsoCache>,
    ) -> Result<Vec<SceneDraw>, SceneError> {
        let draws = std::mem::take(&mut self.draws);
        let mut touched = std::mem::take(&mut self.touched);
        self.targets = None;
        self.bytes = 0;
        let Some(mut bins) = self.bins.take() else {
            return Ok(Vec::new());
        };
        if draws.is_empty() {
            self.bins = Some(bins);
            return Ok(Vec::new());
        }
        touched.sort_unstable();
        let threads = draws.first().map_or(1, |d| d.tail.threads);
        let t0 = Instant::now();
        let stats = {
            let stages: Vec<PixelStage<'_>> = draws.iter().map(|d| d.tail.stage()).collect();
            let ctxs: Vec<TileCtx<'_>> = draws
                .iter()
                .zip(&stages)
                .map(|(d, stage)| TileCtx {
                    stage,
                    bins: &bins,
                    om: d.tail.merger(&d.tail.state, stage, None),
                    ps: d.tail.ps.as_ref(),
                    scissor: d.tail.scissor,
                    observer: None,
                    memory: None,
                    trace: None,
                    budget,
                    vrs: d.tail.rates.as_ref(),
                })
                .collect();
            // Draws whose mergers share their tile copies with the draw before them
            // (`OutputMerger::shares_tiles`) share its layout's number.
            let mut layout = vec![0usize; ctxs.len()];
            for d in 1..ctxs.len() {
                layout[d] = if ctxs[d - 1].om.shares_tiles(&ctxs[d].om) {
                    layout[d - 1]
                } else {
                    d
                };
            }
            let work = Work {
                ctxs: &ctxs,
                bins: &bins,
                runs: &self.runs,
                layout: &layout,
            };
            work.run(&touched, threads)
        };
        let elapsed = t0.elapsed().as_secs_f64();
        // Empty the lists the scene used, keeping their storage for the next scene.
        for &t in &touched {
            if let Some(b) = bins.bins.get_mut(t as usize) {
                b.clear();
            }
            if let Some(r) = self.runs.get_mut(t as usize) {
                r.clear();
            }
        }
        self.bins = Some(bins);
        let stats = match stats {
            Ok(s) => s,
            Err((d, e)) => {
                let at = draws.get(d).map_or(0, |j| j.at.0);
                return Err((at, DrawError::Exec(e)));
            }
        };
        let thread_time: f64 = stats.iter().map(|s| s.total).sum();
        let n = draws.len() as f64;
        Ok(draws
            .into_iter()
            .zip(stats)
            .map(|(j, st)| {
                let share = if thread_time > 0.0 {
                    st.total / thread_time
                } else {
                    1.0 / n
                };
                SceneDraw {
                    at: j.at,
                    seconds: elapsed * share,
                    report: j.tail.finish(st, j.binning, pso),
                }
            })
            .collect())
    }
}

/// A scene's tiles, ready to run.
struct Work<'w, 'c> {
    ctxs: &'w [TileCtx<'c>],
    bins: &'w Bins<Binned>,
    runs: &'w [Vec<(u32, u32)>],
    layout: &'w [usize],
}

impl Work<'_, '_> {
    /// Runs the tiles `touched` (in tile order) on up to `threads` workers, a tile at a
    /// time from a shared counter; returns each draw's stats, or the earliest failing
    /// draw's error (its lowest-numbered failing tile's).
    fn run(&self, touched: &[u32], threads: usize) -> Result<Vec<TileStats>, (usize, ExecError)> {
        let n = self.ctxs.len();
        let next = AtomicU64::new(0);
        // Past a failing draw, no tile runs a later draw's entries.
        let failed = AtomicUsize::new(usize::MAX);
        let errors: Mutex<Vec<(usize, u32, ExecError)>> = Mutex::new(Vec::new());
        let totals: Mutex<Vec<TileStats>> =
            Mutex::new((0..n).map(|_| TileStats::default()).collect());
        let worker = || {
            let mut stats: Vec<TileStats> = (0..n).map(|_| TileStats::default()).collect();
            let mut runner: Option<(usize, StageRunner<'_>)> = None;
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                let Some(&tile) = touched.get(i as usize) else {
                    break;
                };
                if let Err((d, e)) = self.tile(tile, &failed, &mut runner, &mut stats) {
                    failed.fetch_min(d, Ordering::Relaxed);
                    errors
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push((d, tile, e));
                }
            }
            if let Some((_, r)) = runner {
                r.release();
            }
            let mut t = totals.lock().unwrap_or_else(|p| p.into_inner());
            for (a, b) in t.iter_mut().zip(&stats) {
                a.add(b);
            }
        };
        let workers = threads
            .min(workers_worth(self.bins, touched))
            .clamp(1, touched.len().clamp(1, 1 << 10));
        if workers == 1 {
            worker();
        } else {
            let _ = crossbeam::thread::scope(|sc| {
                for _ in 1..workers {
                    sc.spawn(|_| worker());
                }
                worker();
            });
        }
        let mut errors = errors.into_inner().unwrap_or_else(|p| p.into_inner());
        if let Some(k) = (0..errors.len()).min_by_key(|&k| (errors[k].0, errors[k].1)) {
            let (d, _, e) = errors.swap_remove(k);
            return Err((d, e));
        }
        Ok(totals.into_inner().unwrap_or_else(|p| p.into_inner()))
    }

    /// Runs tile `tile`'s runs of entries, draw by draw in list order, on one copy of
    /// the tile while the draws' mergers share its layout; `runner` is the worker's
    /// pixel-program runner and the draw it is for. Stops at a failing run (the tile is
    /// not stored) and before any draw after one that failed anywhere.
    fn tile<'r>(
        &'r self,
        tile: u32,
        failed: &AtomicUsize,
        runner: &mut Option<(usize, StageRunner<'r>)>,
        stats: &mut [TileStats],
    ) -> Result<(), (usize, ExecError)> {
        let (Some(list), Some(runs)) = (
            self.bins.bins.get(tile as usize),
            self.runs.get(tile as usize),
        ) else {
            return Ok(());
        };
        let rect = self.bins.rect(tile);
        // The tile's copy, and the draw whose merger loaded it.
        let mut copy: Option<(usize, TileBuf<'r>)> = None;
        let mut from = 0usize;
        for &(d, end) in runs {
            let (d, end) = (d as usize, end as usize);
            if d > failed.load(Ordering::Relaxed) {
                break;
            }
            let (Some(ctx), Some(entries), Some(st)) =
                (self.ctxs.get(d), list.get(from..end), stats.get_mut(d))
            else {
                break;
            };
            from = end;
            let start = Instant::now();
            let keep = copy
                .as_ref()
                .is_some_and(|(o, _)| self.layout.get(*o) == self.layout.get(d));
            if !keep {
                if let Some((o, tb)) = copy.take()
                    && let Some(c) = self.ctxs.get(o)
                {
                    c.om.store(&tb);
                }
                copy = Some((d, ctx.om.load(rect)));
            }
            let Some((_, tb)) = copy.as_mut() else {
                break;
            };
            if let Some(ps) = ctx.ps {
                if runner.as_ref().is_some_and(|(o, _)| *o != d)
                    && let Some((_, r)) = runner.take()
                {
                    r.release();
                }
                if runner.is_none() {
                    *runner = Some((d, StageRunner::new(ps)));
                }
            }
            let r = match ctx.ps {
                Some(_) => runner.as_mut().map(|(_, r)| r),
                None => None,
            };
            ctx.entries(tile, entries, tb, r, st).map_err(|e| (d, e))?;
            let now = Instant::now();
            st.total += (now - start).as_secs_f64();
            ctx.charge(st, Some(now), tile + 1).map_err(|e| (d, e))?;
        }
        if let Some((o, tb)) = copy
            && let Some(c) = self.ctxs.get(o)
        {
            let t = Instant::now();
            c.om.store(&tb);
            if let Some(st) = stats.get_mut(o) {
                let dt = t.elapsed().as_secs_f64();
                st.om += dt;
                st.total += dt;
            }
        }
        Ok(())
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;

    use super::*;
    use crate::exec::jit::Engine;
    use crate::ir::parse_shader;
    use crate::pipeline::commands::{Command, run_list};
    use crate::pipeline::draw::{DrawOptions, Drawn, draw_in_scene};
    use crate::pipeline::plan::Plan;
    use crate::pipeline::state::{Blend, CullMode, DrawArgs};
    use crate::pipeline::work::{DrawWork, Hooks, Work, WorkReport};
    use crate::resources::{Format, Texture, TextureDesc};

    /// Draw `k`'s triangle (vertices `4k` to `4k + 2`): a right triangle 0.5 wide and
    /// 0.5 high in clip space whose corner moves by 0.0625 a draw, so that neighbouring
    /// draws overlap and the last one drawn over a pixel is the one seen.
    const STEPPED_VS: &str = "shader vertex
regs 11
const r0 = 0x1
const r1 = 0x2
const r2 = 0x3e800000 ; 0.25
const r3 = 0x3f800000 ; 1.0
const r4 = 0x0
const r5 = 0x3f000000 ; 0.5
const r6 = 0x3d800000 ; 0.0625
io_words in 4 out 4
input \"SV_VertexID\" 0 sv vertex_id reg 0 rows 1 mask x uint interp undefined slot 0
output \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    input r7, 0
    ushr r8, r7, r1
    utof r8, r8
    fmul r8, r8, r6
    and r9, r7, r0
    utof r9, r9
    fmul r9, r9, r5
    fadd r9, r9, r8
    fsub r9, r9, r3
    output 0, r9
    and r10, r7, r1
    utof r10, r10
    fmul r10, r10, r2
    fsub r10, r10, r8
    fadd r10, r10, r2
    output 1, r10
    output 2, r4
    output 3, r3
    return
";

    /// A pixel program writing the colour `(r, g, 0, 0.5)`.
    fn colour_ps(r: f32, g: f32) -> Shader {
        parse_shader(&format!(
            "shader pixel
regs 4
const r0 = {:#x}
const r1 = {:#x}
const r2 = 0x0
const r3 = 0x3f000000 ; 0.5
io_words in 0 out 4
output \"SV_Target\" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    output 0, r0
    output 1, r1
    output 2, r2
    output 3, r3
    return
",
            r.to_bits(),
            g.to_bits()
        ))
        .unwrap()
    }

    /// A list over `rt`: 14 overlapping one-triangle draws, each with its own pixel
    /// program, draw 6 blending (so its merger lays tiles out otherwise), a clear of
    /// the target after draw 9 (which ends the scene) and four more draws after it.
    fn list(rt: &Texture) -> Vec<Command> {
        let vs = Arc::new(parse_shader(STEPPED_VS).unwrap());
        let none = Bindings::default();
        let mut commands = Vec::new();
        for k in 0..14u32 {
            let ps = colour_ps(k as f32 / 14.0, 1.0 - k as f32 / 20.0);
            let mut s = DrawState::new(&vs, Some(&ps), &none, &none);
            s.render_targets = vec![Some(RenderTargetView {
                texture: rt.clone(),
            })];
            s.rasterizer.cull_mode = CullMode::None;
            if k == 6 {
                let b = &mut s.blend.render_target[0];
                b.blend_enable = true;
                b.src_blend = Blend::SrcAlpha;
                b.dest_blend = Blend::InvSrcAlpha;
            }
            let fixed = Arc::new(s.fixed());
            commands.push(Command::Work(Work::Draw(Box::new(DrawWork {
                vs: vs.clone(),
                ps: Some(Arc::new(ps)),
                vs_bindings: Bindings::default(),
                ps_bindings: Bindings::default(),
                gs: None,
                hs: None,
                ds: None,
                fixed,
                args: DrawArgs {
                    vertex_count: 3,
                    start_vertex: 4 * k,
                    ..DrawArgs::default()
                },
                mesh: None,
                view: None,
            }))));
            if k == 9 {
                commands.push(Command::ClearRenderTarget {
                    texture: rt.clone(),
                    mip: 0,
                    slice: 0,
                    color: [0.25, 0.0, 0.5, 1.0],
                });
            }
        }
        commands
    }

    /// Each draw's pixels shaded, in list order.
    fn pixels(runs: &[&WorkReport]) -> Vec<u64> {
        runs.iter()
            .filter_map(|r| match r {
                WorkReport::Draw(d) => Some(d.pixels_shaded),
                _ => None,
            })
            .collect()
    }

    /// D3D11.3 §3.5 (the output merger sees a pixel's primitives in submission order):
    /// a list whose draws run their tiles together in a scene writes the same bytes,
    /// and reports the same pixels per draw, as the same commands run one at a time,
    /// each draw with its own tiles — on one worker and on two, over a target written
    /// in place and over one copied per tile, with a blending draw (another tile
    /// layout) and a clear (the end of a scene) among them.
    #[test]
    fn a_scenes_draws_write_what_they_write_one_at_a_time() {
        for format in [Format::R8G8B8A8_UNORM, Format::R32G32B32A32_FLOAT] {
            for threads in [1, 2] {
                let plan = Plan {
                    threads,
                    engine: Engine::Interp,
                    ..Plan::default()
                };
                let rt = Texture::new(TextureDesc::tex2d(format, 150, 140)).unwrap();
                let commands = list(&rt);
                let listed = run_list(&commands, &plan, None).unwrap();
                let scene_bytes = rt.to_bytes();

                let rt = Texture::new(TextureDesc::tex2d(format, 150, 140)).unwrap();
                let commands = list(&rt);
                let budget = RunBudget::new(&plan.limits);
                let mut alone = Vec::new();
                for c in &commands {
                    alone.extend(c.run(&plan, &budget, Hooks::default()).unwrap());
                }
                assert_eq!(scene_bytes, rt.to_bytes(), "{format:?} on {threads}");
                let runs: Vec<&WorkReport> = listed.commands.iter().flat_map(|c| &c.runs).collect();
                let one: Vec<&WorkReport> = alone.iter().collect();
                assert_eq!(pixels(&runs), pixels(&one));
                assert!(pixels(&one).iter().all(|&p| p > 0));
            }
        }
    }

    /// The draws above do join a scene: their tiles wait (else the test above compares
    /// the one-at-a-time path with itself).
    #[test]
    fn small_draws_over_one_target_wait_for_their_scene() {
        let rt = Texture::new(TextureDesc::tex2d(Format::R8G8B8A8_UNORM, 150, 140)).unwrap();
        let commands = list(&rt);
        let Command::Work(Work::Draw(d)) = &commands[0] else {
            panic!("a draw");
        };
        let state = d.state();
        assert!(admits(&state));
        let pso = PsoCache::new();
        let opts = DrawOptions {
            pso: Some(&pso),
            ..DrawOptions::default()
        };
        let budget = RunBudget::new(&opts.plan.limits);
        let drawn = draw_in_scene(&state, &d.args, &opts, &budget).unwrap();
        assert!(matches!(drawn, Drawn::Deferred(_)));
        // Without a list's program cache (nothing for a scene to share), it runs alone.
        let opts = DrawOptions::default();
        let drawn = draw_in_scene(&state, &d.args, &opts, &budget).unwrap();
        assert!(matches!(drawn, Drawn::Alone(_)));
    }

    /// What could tell that a draw's tiles ran late keeps it out of a scene: a program
    /// that writes memory, a resource of the draw stored in its target, view
    /// instancing.
    #[test]
    fn draws_that_could_see_late_tiles_run_alone() {
        let rt = Texture::new(TextureDesc::tex2d(Format::R8G8B8A8_UNORM, 16, 16)).unwrap();
        let vs = parse_shader(STEPPED_VS).unwrap();
        let ps = colour_ps(1.0, 0.0);
        let none = Bindings::default();
        let mut s = DrawState::new(&vs, Some(&ps), &none, &none);
        s.render_targets = vec![Some(RenderTargetView {
            texture: rt.clone(),
        })];
        assert!(admits(&s));

        let mut uav = ps.clone();
        uav.resources.push(crate::ir::ResourceRange {
            class: ResourceClass::Uav,
            space: 0,
            lower: 0,
            count: 1,
            kind: crate::ir::ResourceKind::RawBuffer,
            component: crate::ir::ComponentType::UInt,
            name: String::new(),
            counter: false,
            globally_coherent: false,
            rasterizer_ordered: false,
        });
        let mut w = s.clone();
        w.ps = Some(&uav);
        assert!(!admits(&w), "a program that writes memory");

        let reads = Bindings {
            ranges: vec![vec![Descriptor::Texture(
                crate::resources::TextureView::whole(rt.clone()),
            )]],
            ..Bindings::default()
        };
        let mut r = s.clone();
        r.ps_bindings = &reads;
        assert!(!admits(&r), "a resource stored in the target");

        let mut none_bound = s.clone();
        none_bound.render_targets = vec![None];
        assert!(!admits(&none_bound), "no target");
    }
}
