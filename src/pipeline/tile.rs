//! Running the tiles (llvmpipe's rast): worker threads take whole tiles; each tile
//! rasterizes its primitives in draw order, tests early depth-stencil, packs covered
//! quads into pixel waves, runs them and merges their outputs into its copy of the
//! targets.
//!
//! Owns: the worker pool over tiles and which tile's error a draw reports, the order in
//! which a tile's quads fill its waves (primitive order; within a primitive, the
//! rasterizer's; per-sample quads after their quad in increasing sample order), the
//! helper lanes of a wave, the stage profile's tile times and charging the run's budget.
//! Does not own: the tile grid and lists (`bin`), coverage (`raster`), what a lane's
//! inputs are (`ps`), the depth-stencil tests and merges (`om::tile`), or the traced
//! batch (`trace`).

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::Instant;

use super::bin::{Binned, Bins};
use super::om::tile::{OutputMerger, TileBuf};
use super::ps::{PixelObserver, PixelQuad, PixelStage, WaveContext};
use super::raster;
use super::setup::Shape;
use super::state::Rect;
use super::trace::{TraceAt, TraceProgram};
use super::vrs::{self, CoarseGrid, ShadingRate};
use crate::exec::{ExecError, RunBudget, StageProgram, StageRunner, WriteSink};

/// One in this many pixel waves is timed (the first of each run of them on a worker),
/// and the timed waves' shading and merge times, scaled by waves over timed waves, stand
/// for all: the stage profile is then an estimate, but the two to three clock reads a
/// wave would take cost about 3 % of a full-screen draw where each read takes tens of
/// nanoseconds (a virtual machine's clock).
pub(crate) const TIMED_WAVES: u64 = 8;

/// Pixels of primitive boxes (each held to its tile) worth a tile worker of their own.
/// Starting a thread and waiting for it costs tens of microseconds on an idle machine
/// and far more on a busy one (the new thread waits to be scheduled, and the draw waits
/// for it); shading a box pixel costs tens of nanoseconds. Below this a worker would
/// spend longer starting than it saves, which is what a list of many small draws paid
/// on every draw (`benches/lists.rs`). 16,384 is four full tiles: about half a
/// millisecond of shading on the native engine.
const PIXELS_PER_WORKER: u64 = 16_384;

thread_local! {
    /// The quads waiting for a wave in the tile this thread runs, kept from one tile to
    /// the next: a list of one-triangle draws visits a tile or two a draw, and a queue
    /// made for each visit was a block too large for glibc's per-thread cache, whose
    /// requests make it sweep its small free blocks (the allocator was about a third of
    /// what such a draw costs above a triangle of one large draw; `docs/pipeline.md`,
    /// "What a command costs").
    static QUEUE: std::cell::Cell<Vec<PixelQuad>> = const { std::cell::Cell::new(Vec::new()) };
}

/// Runs `f` with this thread's kept quad queue, empty, and keeps the queue after it,
/// emptied, whatever `f` left in it (a tile that fails leaves quads behind): it is put
/// back empty, so it is taken empty. A queue some tile grew far past its usual size (a
/// coarse grid's drain) is not kept at that size.
fn with_kept_queue<R>(f: impl FnOnce(&mut Vec<PixelQuad>) -> R) -> R {
    let mut queue = QUEUE.take();
    let r = f(&mut queue);
    if queue.capacity() > KEPT_QUEUE {
        queue = Vec::new();
    }
    queue.clear();
    QUEUE.set(queue);
    r
}

/// Quads a kept queue may hold room for: a full 64 × 64 tile's quads queued once per
/// sample at four samples.
const KEPT_QUEUE: usize = 1 << 12;

/// How many primitives ahead of the one being rasterized a tile asks for its lines.
const PREFETCH_AHEAD: usize = 4;

/// Asks for the lines the pixel stage reads of primitive `index` when it fills a wave's
/// inputs — the parts of its set-up record the interpolation reads (weight planes,
/// `1 / w`, depth plane, vertices, facing; the tile's list carries what rasterizing it
/// reads, `bin::Binned`) and its gathered vertex words (`ps::PrimAttrs`) — so that
/// they are in cache when its quads are shaded. A prefetch instruction, not a load: a
/// load that misses holds up every later instruction's retirement until memory
/// answers, which is where the tile loop spent most of its own time when this read a
/// word of each part instead (`docs/jit.md`, "Small triangles"). Changes no result.
#[inline(always)]
fn prefetch(stage: &PixelStage<'_>, index: u32) {
    if let Some(p) = stage.prims.get(index as usize) {
        touch(&p.sigma[0]);
        touch(&p.sigma[2]);
        touch(&p.inv_w);
        touch(&p.z);
        touch(&p.verts);
        touch(&p.front);
    }
    if let Some(line) = stage.attrs.and_then(|a| a.record(index).first()) {
        touch(line);
    }
}

/// Asks for the cache line holding `v`'s first byte (x86-64's `prefetcht0`; nothing
/// elsewhere).
#[cfg(target_arch = "x86_64")]
#[allow(unsafe_code)]
#[inline(always)]
fn touch<T>(v: &T) {
    use std::arch::x86_64::{_MM_HINT_T0, _mm_prefetch};
    // SAFETY: `_mm_prefetch` needs SSE, which every x86-64 processor has (the target's
    // baseline features include it); a prefetch writes nothing and reads nothing into
    // the program, and `v` is a live reference in any case.
    unsafe { _mm_prefetch::<_MM_HINT_T0>((v as *const T).cast::<i8>()) }
}

/// Asks for the cache line holding `v` (nothing on this processor).
#[cfg(not(target_arch = "x86_64"))]
#[inline(always)]
fn touch<T>(_: &T) {}

/// What the tiles did, summed over a worker's tiles and then over the workers.
#[derive(Default)]
pub(crate) struct TileStats {
    pub pixels: u64,
    pub helpers: u64,
    /// Samples that passed the depth and stencil tests (`TileBuf::passed`).
    pub samples_passed: u64,
    pub waves: u64,
    /// Waves timed (one in [`TIMED_WAVES`]).
    pub timed_waves: u64,
    pub lane_instructions: u64,
    /// Lane-instructions not yet charged to the run's budget.
    uncharged: u64,
    pub total: f64,
    /// Shading of the timed waves.
    pub shading: f64,
    /// Loading and storing tiles (every tile timed).
    pub om: f64,
    /// The merge of the timed waves.
    pub wave_om: f64,
}

impl TileStats {
    /// Adds `o`'s counts and times to these.
    pub(crate) fn add(&mut self, o: &TileStats) {
        self.pixels += o.pixels;
        self.helpers += o.helpers;
        self.samples_passed += o.samples_passed;
        self.waves += o.waves;
        self.timed_waves += o.timed_waves;
        self.lane_instructions += o.lane_instructions;
        self.total += o.total;
        self.shading += o.shading;
        self.om += o.om;
        self.wave_om += o.wave_om;
    }
}

/// Everything a tile reads, made once per draw.
pub(crate) struct TileCtx<'a> {
    /// The pixel stage: primitives, link, pattern.
    pub stage: &'a PixelStage<'a>,
    /// The tiles' lists.
    pub bins: &'a Bins<Binned>,
    /// The output merger.
    pub om: OutputMerger<'a>,
    /// The pixel program (`None`: depth and stencil only).
    pub ps: Option<&'a StageProgram<'a>>,
    /// The pixels a draw may touch.
    pub scissor: Rect,
    /// Sees every pixel wave.
    pub observer: Option<&'a dyn PixelObserver>,
    /// Hears the memory writes of every wave but the traced one.
    pub memory: Option<&'a dyn WriteSink>,
    /// The traced pixel wave's program, when the draw traces one.
    pub trace: Option<&'a TraceProgram<'a>>,
    /// The run's budget, charged every [`TIMED_WAVES`] waves and after each tile.
    pub budget: &'a RunBudget,
    /// The draw's shading rates, when some pixel may shade coarsely (`vrs`): each
    /// primitive's covered pixels are then gathered and shaded in coarse quads.
    pub vrs: Option<&'a vrs::Rates>,
}

impl TileCtx<'_> {
    /// Runs every tile on up to `threads` workers (each with its own runner; no more
    /// than the tiles' pixels are worth, [`PIXELS_PER_WORKER`]), a tile at a time from
    /// a shared counter, the calling thread one of them; returns what they did, or the
    /// error of the lowest-numbered failing tile (workers stop taking tiles past one
    /// that failed).
    pub(crate) fn run(&self, threads: usize) -> Result<TileStats, ExecError> {
        // Only the tiles with primitives are handed out (an empty tile does nothing):
        // a small draw in a large target then costs its few tiles, not a pass of every
        // worker over the whole target's counter, and starts no more workers than it
        // has tiles. The list is in tile order, so "lowest position" is "lowest tile".
        let work: std::borrow::Cow<'_, [u32]> = match self.bins.occupied() {
            Some(tiles) => tiles.into(),
            None => (0..self.bins.bins.len())
                .filter(|&i| !self.bins.bins[i].is_empty())
                .filter_map(|i| u32::try_from(i).ok())
                .collect::<Vec<u32>>()
                .into(),
        };
        if work.is_empty() {
            return Ok(TileStats::default());
        }
        let ntiles = work.len() as u64;
        let next = AtomicU64::new(0);
        let stop = AtomicU64::new(u64::MAX);
        let errors: Mutex<Vec<(u64, ExecError)>> = Mutex::new(Vec::new());
        let totals: Mutex<TileStats> = Mutex::new(TileStats::default());
        let worker = || {
            let mut runner = self.ps.map(StageRunner::new);
            let mut stats = TileStats::default();
            loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= ntiles || i > stop.load(Ordering::Relaxed) {
                    break;
                }
                let Some(&tile) = work.get(i as usize) else {
                    break;
                };
                if let Err(e) = self.tile(tile, runner.as_mut(), &mut stats) {
                    stop.fetch_min(i, Ordering::Relaxed);
                    errors
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push((i, e));
                }
            }
            totals.lock().unwrap_or_else(|p| p.into_inner()).add(&stats);
            // Its wave goes to the next draw of the same program in a command list.
            if let Some(r) = runner {
                r.release();
            }
        };
        let tile_threads = threads
            .min(self.workers_worth(&work))
            .clamp(1, ntiles.clamp(1, 1 << 10) as usize);
        if tile_threads == 1 {
            worker();
        } else {
            // The calling thread is one of the workers: it takes tiles at once instead
            // of waiting for a started thread to be scheduled.
            let _ = crossbeam::thread::scope(|sc| {
                for _ in 1..tile_threads {
                    sc.spawn(|_| worker());
                }
                worker();
            });
        }
        let mut errors = errors.into_inner().unwrap_or_else(|p| p.into_inner());
        if let Some(pos) = (0..errors.len()).min_by_key(|&k| errors[k].0) {
            return Err(errors.swap_remove(pos).1);
        }
        Ok(totals.into_inner().unwrap_or_else(|p| p.into_inner()))
    }

    /// How many workers the tiles `work` are worth: one per [`PIXELS_PER_WORKER`] of
    /// their primitives' pixel boxes, each held to its tile (at least one). The boxes
    /// bound the pixels shaded and are known before any tile runs; counting them reads
    /// each list entry once, which is nothing next to rasterizing it.
    fn workers_worth(&self, work: &[u32]) -> usize {
        let mut pixels = 0u64;
        for &t in work {
            let r = self.bins.rect(t);
            let Some(bin) = self.bins.bins.get(t as usize) else {
                continue;
            };
            for p in bin {
                let w = p.bbox[2].min(r[2]) - p.bbox[0].max(r[0]);
                let h = p.bbox[3].min(r[3]) - p.bbox[1].max(r[1]);
                if w > 0 && h > 0 {
                    pixels += w as u64 * h as u64;
                }
            }
            if pixels >= PIXELS_PER_WORKER << 10 {
                break;
            }
        }
        (pixels / PIXELS_PER_WORKER).clamp(1, 1 << 10) as usize
    }

    fn tile(
        &self,
        index: u32,
        runner: Option<&mut StageRunner<'_>>,
        stats: &mut TileStats,
    ) -> Result<(), ExecError> {
        with_kept_queue(|queue| self.tile_with(index, runner, stats, queue))
    }

    /// [`TileCtx::tile`] with its quad queue, empty.
    fn tile_with(
        &self,
        index: u32,
        mut runner: Option<&mut StageRunner<'_>>,
        stats: &mut TileStats,
        queue: &mut Vec<PixelQuad>,
    ) -> Result<(), ExecError> {
        let Some(bin) = self.bins.bins.get(index as usize) else {
            return Ok(());
        };
        if bin.is_empty() {
            return Ok(());
        }
        let rect = self.bins.rect(index);
        // One reading starts both the tile's time and its load's (a list of small
        // draws makes a tile visit or two a draw, each paying its clock reads).
        let start = Instant::now();
        let mut tb = self.om.load(rect);
        // The load and store are timed only when they copy: a tile whose targets are all
        // written in place does neither, and a clock read costs more than that.
        let copies = tb.copies();
        if copies {
            stats.om += start.elapsed().as_secs_f64();
        }
        let clip_rect = [
            rect[0].max(self.scissor.left),
            rect[1].max(self.scissor.top),
            rect[2].min(self.scissor.right),
            rect[3].min(self.scissor.bottom),
        ];
        let wave = runner.as_ref().map_or(4, |r| r.wave_size());
        // The quads waiting for a wave: `wave / 4` of them make one.
        let wave_quads = (wave / 4).max(1);
        queue.reserve(wave_quads * 2);
        let mut seq = 0u32;
        let pattern = self.stage.pattern;
        let walk = raster::QuadWalk::new(pattern);
        let mut result = Ok(());
        // Read once, not through the chain of references for every quad.
        let (early, per_sample, shading) =
            (self.om.early, self.stage.link.per_sample, self.ps.is_some());
        // D3D11.3 §16.9.4 (§3.5.4): the samples the output merger may write are the
        // coverage ANDed with the sample mask; the early test and per-sample shading
        // look at those only.
        let sample_mask = self.om.s.sample_mask;
        // D3D11.3 §3.5.6.2: with a forced sample count and targets bound, a pixel is
        // shaded only if one of the targets' samples is in the sample mask.
        let masked_out = self
            .om
            .target_coverage
            .is_some_and(|all| all & sample_mask == 0);
        let mut grid = self.vrs.filter(|_| shading).map(|_| CoarseGrid::new(rect));
        // The first set-up primitive of the pieces the grid is gathering.
        let mut piece_of: Option<u32> = None;
        for (j, prim) in bin.iter().enumerate() {
            // A tile's primitives lie far apart in the draw's list (it is in draw order,
            // over the whole target): when they are shaded, ask for a later one's lines
            // now, so that they are in cache when its quads are shaded instead of each
            // costing a trip to memory.
            if shading && let Some(ahead) = bin.get(j + PREFETCH_AHEAD) {
                prefetch(self.stage, ahead.index);
            }
            let pi = prim.index;
            walk.quads(&prim.shape, prim.bbox, clip_rect, &mut |q| {
                if result.is_err() {
                    return;
                }
                let mut mask = q.mask;
                if early {
                    if let Some(td) = tb.depth.as_mut() {
                        self.om
                            .early_test(prim, q.x, q.y, &mut mask, td, rect, per_sample);
                    }
                    // The rasterizer gives quads with a covered sample: only the test can
                    // leave none. (Testing the four words for every quad reads back the
                    // rasterizer's one store of the mask in pieces, which stalls.)
                    if mask.iter().all(|&m| m == 0) {
                        return;
                    }
                }
                if masked_out {
                    return;
                }
                if !shading {
                    // No pixel program: the samples that passed (or every covered one
                    // without a depth buffer) are what the merger keeps.
                    tb.passed += mask
                        .iter()
                        .map(|m| u64::from((m & sample_mask).count_ones()))
                        .sum::<u64>();
                    return;
                }
                if let Some(g) = grid.as_mut() {
                    g.put(q.x, q.y, mask);
                    return;
                }
                let quad = |sample: u32, coverage: [u32; 4]| PixelQuad {
                    prim: pi,
                    x: q.x,
                    y: q.y,
                    sample,
                    coverage,
                    rate: ShadingRate::X1X1,
                };
                if per_sample {
                    let union = mask.iter().fold(0, |a, m| a | m) & sample_mask;
                    let mut bits = union;
                    while bits != 0 {
                        let smp = bits.trailing_zeros();
                        bits &= bits - 1;
                        queue.push(quad(smp, mask.map(|m| m & (1 << smp))));
                    }
                } else {
                    queue.push(quad(0, mask));
                }
                if queue.len() >= wave_quads
                    && let Some(r) = runner.as_deref_mut()
                    && let Err(e) =
                        self.run_queued(r, queue, wave_quads, &mut tb, index, &mut seq, stats)
                {
                    result = Err(e);
                }
            });
            result.clone()?;
            if let (Some(g), Some(rates)) = (grid.as_mut(), self.vrs) {
                // The primitive's coarse quads, in the grid's order, once it is
                // rasterized in this tile (a coarse quad gathers several of the
                // rasterizer's quads). The pieces clipping cut from one primitive come
                // one after another and are one primitive to the coarse grid: a coarse
                // pixel across the cut is shaded once.
                let first = *piece_of.get_or_insert(pi);
                let prims = self.stage.prims;
                let next = bin.get(j + 1).and_then(|n| prims.get(n.index as usize));
                if let (Some(a), Some(b)) = (prims.get(first as usize), next)
                    && vrs::same_primitive(a, b)
                {
                    continue;
                }
                piece_of = None;
                let vertices = self.stage.vertices;
                let prim_rate = prims.get(first as usize).map_or(ShadingRate::X1X1, |p| {
                    rates.prim_rate(|w| vertices.word(p.verts[0], w))
                });
                g.drain(
                    first,
                    pattern.count(),
                    |tx, ty| rates.rate(prim_rate, tx, ty),
                    queue,
                );
                if queue.len() >= wave_quads
                    && let Some(r) = runner.as_deref_mut()
                {
                    self.run_queued(r, queue, wave_quads, &mut tb, index, &mut seq, stats)?;
                }
            }
        }
        if !queue.is_empty()
            && let Some(r) = runner
        {
            self.run_wave(r, queue, &mut tb, index, seq, stats)?;
        }
        stats.samples_passed += tb.passed;
        let om_start = copies.then(Instant::now);
        self.om.store(&tb);
        let end = Instant::now();
        if let Some(t) = om_start {
            stats.om += (end - t).as_secs_f64();
        }
        stats.total += (end - start).as_secs_f64();
        self.charge(stats, Some(end), index + 1)
    }

    /// Charges the tile's uncharged lane-instructions to the run's budget and, with
    /// `now`, checks the clock; `done` tiles are finished for the message.
    fn charge(
        &self,
        stats: &mut TileStats,
        now: Option<Instant>,
        done: u32,
    ) -> Result<(), ExecError> {
        let n = std::mem::take(&mut stats.uncharged);
        self.budget.charge_at(n, now).map_err(|spent| {
            self.budget
                .error(spent, u64::from(done), self.bins.bins.len() as u64, "tiles")
        })
    }

    /// Runs the whole waves of `wave_quads` quads at the front of `queue` (without
    /// copying them out) and drops them from it; `seq` counts the tile's waves. Kept out
    /// of line: inlined, it made the per-quad receiver that calls it save and restore
    /// several more registers for every quad.
    #[inline(never)]
    #[allow(clippy::too_many_arguments)]
    fn run_queued(
        &self,
        runner: &mut StageRunner<'_>,
        queue: &mut Vec<PixelQuad>,
        wave_quads: usize,
        tb: &mut TileBuf<'_>,
        tile: u32,
        seq: &mut u32,
        stats: &mut TileStats,
    ) -> Result<(), ExecError> {
        let mut done = 0;
        while queue.len() - done >= wave_quads {
            let quads = &queue[done..done + wave_quads];
            self.run_wave(runner, quads, tb, tile, *seq, stats)?;
            *seq += 1;
            done += wave_quads;
        }
        queue.drain(..done);
        Ok(())
    }

    fn run_wave(
        &self,
        runner: &mut StageRunner<'_>,
        quads: &[PixelQuad],
        tb: &mut TileBuf<'_>,
        tile: u32,
        seq: u32,
        stats: &mut TileStats,
    ) -> Result<(), ExecError> {
        self.stage.fill(runner, quads);
        let n = quads.len() * 4;
        let all = if n >= 128 {
            u128::MAX
        } else {
            (1u128 << n) - 1
        };
        // The helpers, and the lanes covering sample 0 of a primitive the draw has (what
        // a one-sample target's merge writes), in one pass: each 64-lane half built in a
        // register a quad (four bits) at a time from its last quad down (a shift of a
        // `u128` by a lane number costs several instructions).
        let prims = self.stage.prims.len();
        let (mut helper, mut cover0) = (0u128, 0u128);
        for (k, half) in quads.chunks(16).take(2).enumerate() {
            let (mut h, mut c) = (0u64, 0u64);
            for q in half.iter().rev() {
                let cov = q.coverage;
                let nib = |f: fn(u32) -> bool| {
                    u64::from(f(cov[0]))
                        | u64::from(f(cov[1])) << 1
                        | u64::from(f(cov[2])) << 2
                        | u64::from(f(cov[3])) << 3
                };
                h = (h << 4) | nib(|m| m == 0);
                let c0 = if (q.prim as usize) < prims {
                    nib(|m| m & 1 != 0)
                } else {
                    0
                };
                c = (c << 4) | c0;
            }
            helper |= u128::from(h) << (64 * k);
            cover0 |= u128::from(c) << (64 * k);
        }
        let ctx = WaveContext {
            stage: self.stage,
            quads,
        };
        let timed = stats.waves % TIMED_WAVES == 0;
        let t = timed.then(Instant::now);
        let traced_out: Vec<u32>;
        let (run, w, out) = match self.trace.map(|t| (t, t.at)) {
            Some((
                tp,
                TraceAt::Pixel {
                    tile: ti,
                    batch,
                    lane,
                },
            )) if ti == tile && batch == seq => {
                let (run, out) = tp.run_pixels(
                    self.stage,
                    quads,
                    lane as usize,
                    runner.wave_size(),
                    self.memory,
                )?;
                traced_out = out;
                (run, runner.wave_size(), &traced_out[..])
            }
            _ => {
                let run = runner.run_writes(all, helper, Some(&ctx), self.memory)?;
                (run, runner.wave_size(), runner.outputs())
            }
        };
        // One clock read ends the shading and starts the merge (a read costs as much as
        // merging a few lanes).
        let t_merge = t.map(|t| {
            let now = Instant::now();
            stats.shading += (now - t).as_secs_f64();
            now
        });
        stats.waves += 1;
        stats.timed_waves += u64::from(timed);
        stats.lane_instructions += run.lane_instructions;
        stats.uncharged += run.lane_instructions;
        if timed {
            // With the clock read the stage profile already made: no extra read.
            self.charge(stats, t_merge, tile)?;
        }
        stats.helpers += u64::from(helper.count_ones());
        stats.pixels += (n as u64) - u64::from(helper.count_ones());
        if let Some(o) = self.observer {
            o.wave(tile, seq, &PixelQuad::lanes(quads), &run, out);
        }
        if quads.iter().any(|q| q.rate != ShadingRate::X1X1) {
            self.merge_coarse(quads, helper | run.killed, out, w, tb);
        } else {
            let scaled;
            let out = match self.aa_scaled(quads, out, w) {
                Some(v) => {
                    scaled = v;
                    &scaled[..]
                }
                None => out,
            };
            let forced;
            let (quads, cover0) = match self.om.target_coverage {
                Some(every) => {
                    forced = self.to_target_coverage(quads, every);
                    (&forced.0[..], forced.1)
                }
                None => (quads, cover0),
            };
            self.om.merge_wave(
                quads,
                all & !helper & !run.killed,
                run.killed,
                cover0,
                out,
                w,
                tb,
            );
        }
        if let Some(t) = t_merge {
            stats.wave_om += t.elapsed().as_secs_f64();
        }
        Ok(())
    }
}

impl TileCtx<'_> {
    /// The outputs `out` of a wave of `quads` (word `k` of lane `l` at `k × w + l`) with
    /// render target 0's alpha scaled by each lane's alpha-antialiased line coverage
    /// (D3D11.3 §3.4.4: the coverage is multiplied into `o0.a` before the output
    /// merger); `None` when no lane is of such a line or the draw scales nothing.
    fn aa_scaled(&self, quads: &[PixelQuad], out: &[u32], w: usize) -> Option<Vec<u32>> {
        let word = self.om.aa_alpha? as usize;
        let prims = self.stage.prims;
        let line = |q: &PixelQuad| match prims.get(q.prim as usize).map(|p| p.shape) {
            Some(Shape::AaLine { a, b }) => Some((a, b)),
            _ => None,
        };
        if !quads.iter().any(|q| line(q).is_some()) {
            return None;
        }
        let mut v = out.to_vec();
        for (qi, q) in quads.iter().enumerate() {
            let Some((a, b)) = line(q) else { continue };
            for k in 0..4 {
                let (x, y) = (q.x + (k as u32 & 1), q.y + (k as u32 >> 1));
                if let Some(alpha) = v.get_mut(word * w + qi * 4 + k) {
                    let c = raster::aa_line_coverage(a, b, x as i32, y as i32);
                    *alpha = (f32::from_bits(*alpha) * c).to_bits();
                }
            }
        }
        Some(v)
    }

    /// `quads` with each pixel's coverage of the forced pattern replaced by `every`
    /// sample of the targets where it covers any (none where it covers none), and the
    /// lanes that then cover sample 0 of a primitive the draw has (D3D11.3 §3.5.6.2:
    /// the pixel program runs once for a pixel covering any forced sample, and its
    /// outputs go to the targets' samples).
    fn to_target_coverage(&self, quads: &[PixelQuad], every: u32) -> (Vec<PixelQuad>, u128) {
        let prims = self.stage.prims.len();
        let mut cover0 = 0u128;
        let mapped = quads
            .iter()
            .enumerate()
            .map(|(qi, q)| {
                for (k, &c) in q.coverage.iter().enumerate() {
                    if c != 0 && (q.prim as usize) < prims && qi < 32 {
                        cover0 |= 1u128 << (4 * qi + k);
                    }
                }
                PixelQuad {
                    coverage: q.coverage.map(|c| if c != 0 { every } else { 0 }),
                    ..*q
                }
            })
            .collect();
        (mapped, cover0)
    }

    /// The output merger for a wave with coarse pixels: each coarse lane's outputs go
    /// to every fine pixel it covers, as fine quads handed to the merger in the wave's
    /// order (VRS "Depth and Stencil": tests and writes stay per sample). `dropped`
    /// are the helper and discarded lanes, whose pixels take nothing ("Discard" drops
    /// the whole coarse pixel). A coverage output is read in the coarse layout and
    /// split per fine pixel.
    fn merge_coarse(
        &self,
        quads: &[PixelQuad],
        dropped: u128,
        out: &[u32],
        w: usize,
        tb: &mut TileBuf<'_>,
    ) {
        /// Fine lanes merged at a time (the merger's masks hold 128 lanes).
        const FINE: usize = 128;
        let samples = self.stage.pattern.count().max(1);
        let one = if samples >= 32 {
            u32::MAX
        } else {
            (1 << samples) - 1
        };
        let words = out.len() / w.max(1);
        let coverage_word = self.om.ps_out.coverage.map(|c| c as usize);
        let aa_word = self.om.aa_alpha.map(|c| c as usize);
        let prims = self.stage.prims.len();
        let mut fine: Vec<PixelQuad> = Vec::with_capacity(FINE / 4);
        // Per fine lane, the coarse lane whose outputs it takes and its place (fine
        // pixel index) in that coarse pixel.
        let mut from: Vec<(usize, u32)> = Vec::with_capacity(FINE);
        let mut fine_out = vec![0u32; words * FINE];
        let flush = |fine: &mut Vec<PixelQuad>,
                     from: &mut Vec<(usize, u32)>,
                     fine_out: &mut [u32],
                     tb: &mut TileBuf<'_>| {
            if fine.is_empty() {
                return;
            }
            let (mut live, mut cover0) = (0u128, 0u128);
            for (fl, &(l, f)) in from.iter().enumerate() {
                let q = &fine[fl / 4];
                let cov = q.coverage[fl % 4];
                live |= u128::from(cov != 0) << fl;
                cover0 |= u128::from(cov & 1 != 0 && (q.prim as usize) < prims) << fl;
                for word in 0..words {
                    let v = out.get(word * w + l).copied().unwrap_or(0);
                    fine_out[word * FINE + fl] = if Some(word) == coverage_word {
                        v.checked_shr(f * samples).unwrap_or(0) & one
                    } else if Some(word) == aa_word
                        && let Some(Shape::AaLine { a, b }) =
                            self.stage.prims.get(q.prim as usize).map(|p| p.shape)
                    {
                        let (x, y) = (q.x + ((fl as u32 % 4) & 1), q.y + ((fl as u32 % 4) >> 1));
                        let c = raster::aa_line_coverage(a, b, x as i32, y as i32);
                        (f32::from_bits(v) * c).to_bits()
                    } else {
                        v
                    };
                }
            }
            self.om
                .merge_wave(fine, live, 0, cover0, fine_out, FINE, tb);
            fine.clear();
            from.clear();
        };
        for (qi, q) in quads.iter().enumerate() {
            let [cw, ch] = q.rate.size();
            // The coarse quad's fine quads, row by row.
            let n = (cw * ch) as usize;
            if fine.len() + n > FINE / 4 {
                flush(&mut fine, &mut from, &mut fine_out, tb);
            }
            for fy in (0..2 * ch).step_by(2) {
                for fx in (0..2 * cw).step_by(2) {
                    let mut coverage = [0u32; 4];
                    for (k, c) in coverage.iter_mut().enumerate() {
                        let (x, y) = (fx + (k as u32 & 1), fy + (k as u32 >> 1));
                        // The coarse lane holding fine pixel (x, y) of the quad.
                        let ck = (x / cw + 2 * (y / ch)) as usize;
                        let l = qi * 4 + ck;
                        let f = (y % ch) * cw + x % cw;
                        from.push((l, f));
                        if (dropped >> l) & 1 == 0 {
                            *c = q.coverage[ck].checked_shr(f * samples).unwrap_or(0) & one;
                            if let Some(every) = self.om.target_coverage
                                && *c != 0
                            {
                                // §3.5.6.2: any covered forced sample writes every
                                // sample of the targets.
                                *c = every;
                            }
                        }
                    }
                    fine.push(PixelQuad {
                        prim: q.prim,
                        x: q.x + fx,
                        y: q.y + fy,
                        sample: 0,
                        coverage,
                        // Fine pixels: the merger places lanes by the quad's rate.
                        rate: ShadingRate::X1X1,
                    });
                }
            }
        }
        flush(&mut fine, &mut from, &mut fine_out, tb);
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use crate::exec::WaveRun;
    use crate::ir::parse_shader;
    use crate::pipeline::fixtures::{FULLSCREEN_VS, POSITION_PS};
    use crate::pipeline::{
        Bindings, CullMode, DrawArgs, DrawOptions, DrawState, PixelLane, PixelObserver,
        RenderTargetView, draw,
    };
    use crate::resources::{Format, Texture, TextureDesc};

    use super::{KEPT_QUEUE, PixelQuad, ShadingRate, with_kept_queue};

    /// Every wave the draw ran: (tile, wave) → lanes.
    #[derive(Default)]
    struct Waves(std::sync::Mutex<BTreeMap<(u32, u32), Vec<PixelLane>>>);

    impl PixelObserver for Waves {
        fn wave(&self, tile: u32, wave: u32, lanes: &[PixelLane], _: &WaveRun, _: &[u32]) {
            let old = self.0.lock().unwrap().insert((tile, wave), lanes.to_vec());
            assert!(old.is_none(), "tile {tile} wave {wave} ran twice");
        }
    }

    fn waves(threads: usize) -> BTreeMap<(u32, u32), Vec<PixelLane>> {
        let vs = parse_shader(FULLSCREEN_VS).unwrap();
        let ps = parse_shader(POSITION_PS).unwrap();
        let none = Bindings::default();
        let rt = Texture::new(TextureDesc::tex2d(Format::R32G32B32A32_FLOAT, 150, 70)).unwrap();
        let mut s = DrawState::new(&vs, Some(&ps), &none, &none);
        s.render_targets = vec![Some(RenderTargetView { texture: rt })];
        s.rasterizer.cull_mode = CullMode::None;
        let args = DrawArgs {
            vertex_count: 3,
            ..DrawArgs::default()
        };
        let w = Waves::default();
        let opts = DrawOptions {
            plan: crate::pipeline::Plan {
                wave_size: Some(8),
                threads,
                ..crate::pipeline::Plan::default()
            },
            observer: Some(&w),
            ..DrawOptions::default()
        };
        draw(&s, &args, &opts).unwrap();
        w.0.into_inner().unwrap()
    }

    /// The quad queue a thread keeps from tile to tile starts every tile empty, even
    /// after a tile that failed with quads still queued, and keeps its room unless a
    /// tile grew it past [`KEPT_QUEUE`].
    #[test]
    fn the_kept_quad_queue_starts_each_tile_empty() {
        let quad = PixelQuad {
            prim: 7,
            x: 2,
            y: 4,
            sample: 0,
            coverage: [1; 4],
            rate: ShadingRate::X1X1,
        };
        let failed: Result<(), &str> = with_kept_queue(|q| {
            assert!(q.is_empty());
            q.extend([quad; 5]);
            Err("a tile that failed")
        });
        assert!(failed.is_err());
        with_kept_queue(|q| {
            assert!(q.is_empty(), "quads of the failed tile were kept");
            assert!(q.capacity() >= 5, "the room was not kept");
            q.reserve(KEPT_QUEUE + 1);
        });
        with_kept_queue(|q| {
            assert!(q.is_empty());
            assert!(q.capacity() <= KEPT_QUEUE, "an overgrown queue was kept");
        });
    }

    /// Each tile's waves are numbered from 0 and take its quads in primitive order, and
    /// within a primitive row by row, left to right; every quad lies in its tile, every
    /// pixel is shaded once, and the waves are the same on one worker and on three.
    #[test]
    fn tiles_fill_waves_with_quads_in_primitive_then_row_order() {
        let seen = waves(1);
        assert_eq!(seen, waves(3));
        let bins = crate::pipeline::bin::Bins::<u32>::new(150, 70);
        let mut shaded = vec![0u32; 150 * 70];
        for tile in 0..bins.bins.len() as u32 {
            let mine: Vec<_> = seen.range((tile, 0)..(tile + 1, 0)).collect();
            assert!(!mine.is_empty(), "tile {tile} ran no wave");
            let [x0, y0, x1, y1] = bins.rect(tile);
            let mut quads = Vec::new();
            for (k, ((_, wave), lanes)) in mine.iter().enumerate() {
                assert_eq!(*wave as usize, k, "tile {tile}: waves numbered in order");
                assert_eq!(lanes.len() % 4, 0);
                for q in lanes.chunks(4) {
                    quads.push((q[0].prim, q[0].y, q[0].x));
                    for (i, l) in q.iter().enumerate() {
                        // Lane 4q + k is corner k of its quad.
                        assert_eq!(
                            (l.x, l.y),
                            (q[0].x + (i as u32 & 1), q[0].y + (i as u32 >> 1))
                        );
                        let inside = (l.x as i32) < x1 && (l.y as i32) < y1;
                        if l.coverage != 0 {
                            assert!(inside && l.x as i32 >= x0 && l.y as i32 >= y0);
                            shaded[(l.y * 150 + l.x) as usize] += 1;
                        }
                    }
                }
            }
            assert!(
                quads.windows(2).all(|p| p[0] < p[1]),
                "tile {tile}: quads in (primitive, row, column) order"
            );
        }
        assert!(shaded.iter().all(|&n| n == 1), "every pixel shaded once");
    }
}
