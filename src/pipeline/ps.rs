//! The pixel stage: covered quads packed into waves, each lane's inputs interpolated, the
//! pixel program run through `exec::StageRunner`, its outputs read back for the output
//! merger.
//!
//! # Lanes, quads and helpers
//!
//! Every covered 2×2 quad becomes four consecutive lanes — top-left, top-right,
//! bottom-left, bottom-right — which is what derivatives read. A pixel of the quad the
//! primitive does not cover (or whose samples all failed an early depth-stencil test) is
//! a **helper lane**: it runs, with its inputs extrapolated to its own pixel centre, so
//! that derivatives are defined, but writes no memory and no render target. A program
//! that reads `SV_SampleIndex` or has `sample` inputs runs **per sample**: each covered
//! sample index of a quad makes a quad of its own (lanes for that sample of the four
//! pixels; pixels not covering it are helpers).
//!
//! # Which lane ran which pixel (deterministic)
//!
//! Within one tile, quads are taken in primitive order, and within a primitive row by
//! row, left to right (`raster::for_each_quad`); per-sample quads follow their quad in
//! increasing sample order. Waves take the next `W / 4` quads, whatever primitive they
//! come from. So the wave and lane of a (primitive, pixel, sample) depend only on the
//! draw, never on the worker count: [`PixelLane`] lists them, and a [`PixelObserver`]
//! sees every wave with its lanes.

use super::interp::{self, Location};
use super::link::{Linked, PsSource};
use super::raster::Pattern;
use super::setup::{Plane, Prim};
use super::vrs::{self, ShadingRate};
use super::vs::VertexOutputs;
use crate::exec::{PixelContext, StageRunner, WaveRun};
use crate::ir::{EvalAt, Inst, Interp, Shader, SysValue};
use crate::wide::wide_fn;

/// What one lane of a pixel wave stands for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PixelLane {
    /// The primitive (index into the draw's set-up primitives).
    pub prim: u32,
    /// Pixel x.
    pub x: u32,
    /// Pixel y.
    pub y: u32,
    /// The sample it runs for (per-sample execution), else 0.
    pub sample: u32,
    /// The samples it stands for (0: a helper lane); for a coarse pixel, those of its
    /// fine pixels in the order `vrs` gives.
    pub coverage: u32,
    /// The coarse pixel's shading rate (1X1: a fine pixel); `(x, y)` is then its
    /// top-left fine pixel (`vrs`).
    pub rate: ShadingRate,
}

/// Four consecutive lanes of a pixel wave: the 2×2 quad of pixels at `(x, y)` (both
/// even) of one primitive, run for one sample. Lane `k` of the quad (0–3) is pixel
/// `(x + (k & 1), y + (k >> 1))` — top-left, top-right, bottom-left, bottom-right — so a
/// wave of `W` lanes holds `W / 4` quads, and lane `4q + k` of the wave is lane `k` of its
/// quad `q`. The tile's queue holds quads, not lanes: a quad is one record to push, and
/// the fill, the helper masks and the output merger work a quad (a known 2×2 shape) at a
/// time; [`PixelQuad::lane`] gives the [`PixelLane`] that observers see.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct PixelQuad {
    /// The primitive (index into the draw's set-up primitives).
    pub prim: u32,
    /// The quad's left column (even).
    pub x: u32,
    /// The quad's top row (even).
    pub y: u32,
    /// The sample its lanes run for (per-sample execution), else 0.
    pub sample: u32,
    /// Each lane's samples (0: a helper lane).
    pub coverage: [u32; 4],
    /// The shading rate: 1X1 for fine pixels; else the quad is 2×2 coarse pixels of
    /// this size and `(x, y)` its top-left fine pixel (`vrs`).
    pub rate: ShadingRate,
}

impl PixelQuad {
    /// Lane `k` (0–3) of the quad.
    #[inline]
    pub fn lane(&self, k: usize) -> PixelLane {
        let [ax, ay] = self.rate.axes();
        PixelLane {
            prim: self.prim,
            x: self.x + ((k as u32 & 1) << ax),
            y: self.y + (((k as u32 >> 1) & 1) << ay),
            sample: self.sample,
            coverage: self.coverage[k & 3],
            rate: self.rate,
        }
    }

    /// Every lane of `quads`, in wave order.
    pub fn lanes(quads: &[PixelQuad]) -> Vec<PixelLane> {
        quads
            .iter()
            .flat_map(|q| (0..4).map(|k| q.lane(k)))
            .collect()
    }

    /// Lane `l` of a wave made of `quads`.
    #[inline]
    pub fn wave_lane(quads: &[PixelQuad], l: usize) -> Option<PixelLane> {
        quads.get(l / 4).map(|q| q.lane(l % 4))
    }
}

/// Sees each pixel wave after it ran: the tile (row-major index), the wave's number in
/// the tile, its lanes, what the run did and the output words (word `i` of lane `l` at
/// `i × W + l`). Called from worker threads; every wave of a tile from the same thread,
/// in order.
pub trait PixelObserver: Sync {
    /// One wave.
    fn wave(&self, tile: u32, wave: u32, lanes: &[PixelLane], run: &WaveRun, outputs: &[u32]);
}

/// The output-merger target a write went to.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum MergeTarget {
    /// Render target `i` (`OMSetRenderTargets` slot).
    Color(u32),
    /// The depth-stencil buffer.
    DepthStencil,
}

/// Sees every sample the output merger writes, with the pixel lane behind it: what a
/// capture comparison needs to say which lane wrote a differing texel. The lane's `prim`
/// is here the draw's primitive (`SV_PrimitiveID`, counted per instance), not the index
/// of a set-up primitive: clipping at the viewport may cut one primitive into several.
/// Called from worker threads; all writes to one texel come from the tile that owns it,
/// in draw order, so the last write seen for a texel is the one the target keeps.
/// Observing changes nothing the draw computes.
pub trait MergeObserver: Sync {
    /// Sample `sample` of pixel `(x, y)` of `target` was written by `lane` (for an
    /// early depth-stencil write, the lane the pixel would run in).
    fn write(&self, target: MergeTarget, x: u32, y: u32, sample: u32, lane: &PixelLane);

    /// What the output merger calls: [`MergeObserver::write`], with the set-up
    /// primitive the lane ran for (`lane.prim` is the draw's primitive, which clipping
    /// may have cut into several set-up ones; `--prim` ranks and the pixel observers'
    /// lanes count set-up primitives). By default, `write`.
    fn write_setup(
        &self,
        target: MergeTarget,
        x: u32,
        y: u32,
        sample: u32,
        lane: &PixelLane,
        setup: u32,
    ) {
        let _ = setup;
        self.write(target, x, y, sample, lane);
    }

    /// Whether the draw should also say, per set-up primitive, which lane one stage up
    /// made its leading vertex ([`MergeObserver::origins`]): what `compare` names behind
    /// a pixel lane of a draw with geometry or tessellation stages. By default, no.
    fn wants_origins(&self) -> bool {
        false
    }

    /// Per set-up primitive (as [`MergeObserver::write_setup`] counts them), the
    /// vertex, geometry or domain lane that made its leading vertex — the vertex whose
    /// outputs a constant input takes and the first an interpolated input blends
    /// (`None` where no lane is known) — once the draw has set its primitives up. Called
    /// only when [`MergeObserver::wants_origins`] says so, and not for mesh draws.
    fn origins(&self, origins: Vec<Option<super::work::LaneSelect>>) {
        let _ = origins;
    }

    /// A mesh draw's [`MergeObserver::origins`]: per set-up primitive, the mesh group and
    /// the place in it the primitive came from (`None` where unknown). Called only when
    /// [`MergeObserver::wants_origins`] says so.
    fn mesh_origins(&self, origins: Vec<Option<super::ms::MeshPrimOrigin>>) {
        let _ = origins;
    }

    /// A view-instanced draw's pass of view instance `view` starts: the writes heard
    /// until the next call are that view's (0 for a draw without view instancing).
    fn pass(&self, view: u32) {
        let _ = view;
    }
}

/// Where the pixel program's outputs are in its output words.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct PsOutputs {
    /// `SV_Target0..7`: first word and component mask.
    pub targets: [Option<(u32, u8)>; 8],
    /// `SV_Depth` (or its conservative forms): word and which one.
    pub depth: Option<(u32, DepthOut)>,
    /// `SV_Coverage` output: word.
    pub coverage: Option<u32>,
    /// `SV_StencilRef`: word.
    pub stencil_ref: Option<u32>,
}

/// Which depth output a program writes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DepthOut {
    /// `SV_Depth`.
    Any,
    /// `SV_DepthGreaterEqual`: at least the rasterized depth (clamped to it).
    GreaterEqual,
    /// `SV_DepthLessEqual`: at most the rasterized depth.
    LessEqual,
}

impl PsOutputs {
    /// The outputs `ps` declares.
    pub fn of(ps: &Shader) -> PsOutputs {
        let mut o = PsOutputs::default();
        for e in &ps.outputs {
            match e.sv {
                SysValue::Target => {
                    for r in 0..e.rows {
                        let i = (e.semantic_index + r) as usize;
                        if let Some(t) = o.targets.get_mut(i) {
                            *t = Some((e.word(r, 0), e.mask));
                        }
                    }
                }
                SysValue::Depth => o.depth = Some((e.word(0, 0), DepthOut::Any)),
                SysValue::DepthGreaterEqual => {
                    o.depth = Some((e.word(0, 0), DepthOut::GreaterEqual))
                }
                SysValue::DepthLessEqual => o.depth = Some((e.word(0, 0), DepthOut::LessEqual)),
                SysValue::Coverage => o.coverage = Some(e.word(0, 0)),
                SysValue::StencilRef => o.stencil_ref = Some(e.word(0, 0)),
                _ => {}
            }
        }
        o
    }
}

/// Everything the pixel stage reads for one draw.
pub struct PixelStage<'a> {
    /// Linked inputs.
    pub link: &'a Linked,
    /// Set-up primitives.
    pub prims: &'a [Prim],
    /// Vertex outputs.
    pub vertices: &'a VertexOutputs,
    /// The render targets' sample pattern.
    pub pattern: &'a Pattern,
    /// Each viewport's depth range `(min, max)`, by [`Prim::viewport`]: what depth values
    /// are clamped to.
    pub depth_ranges: &'a [(f32, f32)],
    /// The vertex words the pixel program reads, gathered per primitive from `prims`
    /// and `vertices` ([`PrimAttrs::gather`]); `None`: the fill reads `vertices`.
    pub attrs: Option<&'a PrimAttrs>,
    /// Per input word, whether the pixel program reads it ([`words_read`]): the fill
    /// leaves the others as they are. `None`: it fills every word (what the debugger's
    /// traced wave shows).
    pub read: Option<&'a [bool]>,
}

/// Per input word of `program`, whether an instruction reads it: `input`, and every row
/// of `input_indexed` and `eval` (which reads the vertex outputs in a draw, but the
/// input words elsewhere). A word no instruction reads cannot change what the program
/// does, so the pixel fill need not compute it: a signature often declares
/// `SV_Position` whose z and w the program never reads, and w costs a division a lane.
pub fn words_read(program: &Shader) -> Vec<bool> {
    let mut read = vec![false; program.input_words as usize];
    let mut mark = |slot: u32, rows: u32| {
        for r in 0..rows.min(64) {
            if let Some(x) = slot
                .checked_add(4 * r)
                .and_then(|w| read.get_mut(w as usize))
            {
                *x = true;
            }
        }
    };
    for inst in &program.insts {
        match inst {
            Inst::Input { slot, .. } => mark(*slot, 1),
            Inst::InputIndexed { slot, rows, .. } | Inst::Eval { slot, rows, .. } => {
                mark(*slot, (*rows).max(1))
            }
            _ => {}
        }
    }
    read
}

/// One cache line of [`PrimAttrs`]'s records (a record starts on a line).
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, bytemuck::Zeroable)]
#[repr(C, align(64))]
pub struct AttrLine(pub [u32; 16]);

/// Fewest primitives worth a worker of their own when gathering.
const GATHER_CHUNK: usize = 8192;

/// How many vertex-fed inputs share one [`AttrLine`]: three words each, so that an
/// input's three words never straddle two lines.
const PER_LINE: usize = 5;

/// The vertex output words a draw's pixel program reads, gathered once per set-up
/// primitive into a record of its own: for each pixel input word fed by a vertex output
/// (`PsSource::Vertex`), the three original vertices' words side by side.
///
/// Why: the fill of a small triangle's lanes otherwise goes from each lane to its
/// primitive's vertex indices and from there to three vertex records, which lie
/// wherever the stage before wrote them, a trip to memory per primitive a tile meets.
/// A record of up to five inputs is one line, so each lane reads one line, the same for
/// every lane of the primitive, and a tile can ask for it a few primitives ahead
/// (`tile::prefetch`). The words are the vertex outputs' own bits, mixed by the same
/// `interp::mix` as before, so the inputs are bit for bit what
/// [`PixelStage::input`] gives. (Plane coefficients per input would cost fewer
/// operations per lane, but the interpolation weighs the three words in f64 with
/// per-lane weights, and a plane form rounds differently.)
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct PrimAttrs {
    /// Per pixel input word, the index of its first word in a record (`u32::MAX`: not fed
    /// by a vertex output).
    first: Vec<u32>,
    /// Lines per record.
    lines: usize,
    /// The records, primitive after primitive.
    records: Vec<AttrLine>,
}

impl PrimAttrs {
    /// The lines one primitive's record of `link`'s pixel inputs takes (0: no input is
    /// fed by a vertex output, and there is nothing to gather).
    pub fn lines_per_prim(link: &Linked) -> usize {
        let n = link
            .ps_inputs
            .iter()
            .filter(|s| matches!(s, PsSource::Vertex { .. }))
            .count();
        n.div_ceil(PER_LINE)
    }

    /// Gathers the records of `prims` (see the type's doc) on up to `threads` workers,
    /// each writing the records of its own range of primitives, or `None` when the system
    /// refuses the memory. The caller counts `prims.len() × lines_per_prim` lines
    /// against the draw's memory limit first.
    pub fn gather(
        link: &Linked,
        prims: &[Prim],
        vertices: &VertexOutputs,
        threads: usize,
    ) -> Option<PrimAttrs> {
        let lines = Self::lines_per_prim(link);
        let mut first = Vec::new();
        first.try_reserve_exact(link.ps_inputs.len()).ok()?;
        // Which vertex output word goes where in a record: (line, word in the line,
        // vertex output word).
        let mut fed: Vec<(usize, usize, u32)> = Vec::new();
        fed.try_reserve_exact(link.ps_inputs.len()).ok()?;
        for src in &link.ps_inputs {
            match *src {
                PsSource::Vertex { word, .. } => {
                    let k = fed.len();
                    let at = (k / PER_LINE) * 16 + (k % PER_LINE) * 3;
                    first.push(at as u32);
                    fed.push((at / 16, at % 16, word));
                }
                _ => first.push(u32::MAX),
            }
        }
        // Zeroed memory the workers touch first, each its own part: the words no input
        // takes stay 0.
        let mut records: Vec<AttrLine> =
            bytemuck::allocation::try_zeroed_vec(prims.len().checked_mul(lines)?).ok()?;
        if lines > 0 {
            let fill = |prims: &[Prim], out: &mut [AttrLine]| {
                for (prim, rec) in prims.iter().zip(out.chunks_exact_mut(lines)) {
                    for &(line, o, word) in &fed {
                        if let Some(dst) = rec.get_mut(line).and_then(|l| l.0.get_mut(o..o + 3)) {
                            for (d, &v) in dst.iter_mut().zip(&prim.verts) {
                                *d = vertices.word(v, word);
                            }
                        }
                    }
                }
            };
            let workers = threads.min(prims.len() / GATHER_CHUNK).max(1);
            let per = prims.len().div_ceil(workers).max(1);
            if workers == 1 {
                fill(prims, &mut records);
            } else {
                let fill = &fill;
                std::thread::scope(|sc| {
                    let mut parts = prims.chunks(per).zip(records.chunks_mut(per * lines));
                    let mine = parts.next();
                    let handles: Vec<_> =
                        parts.map(|(p, r)| sc.spawn(move || fill(p, r))).collect();
                    if let Some((p, r)) = mine {
                        fill(p, r);
                    }
                    for h in handles {
                        h.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
                    }
                });
            }
        }
        Some(PrimAttrs {
            first,
            lines,
            records,
        })
    }

    /// Where input word `word`'s three words start in a record, when a vertex output
    /// feeds it.
    #[inline]
    fn first(&self, word: usize) -> Option<usize> {
        match self.first.get(word) {
            Some(&f) if f != u32::MAX => Some(f as usize),
            _ => None,
        }
    }

    /// The three vertices' words of primitive `prim` at `first` (from
    /// [`PrimAttrs::first`]); zeros for a primitive past the records.
    #[inline(always)]
    fn words(&self, prim: u32, first: usize) -> [u32; 3] {
        let line = prim as usize * self.lines + first / 16;
        let o = first % 16;
        match self.records.get(line).and_then(|l| l.0.get(o..o + 3)) {
            Some(w) => [w[0], w[1], w[2]],
            None => [0; 3],
        }
    }

    /// The lines of primitive `prim`'s record (empty past the records): what a tile
    /// asks for ahead of shading it.
    #[inline]
    pub fn record(&self, prim: u32) -> &[AttrLine] {
        let s = prim as usize * self.lines;
        self.records.get(s..s + self.lines).unwrap_or(&[])
    }
}

impl PixelStage<'_> {
    /// The depth range of `prim`'s viewport (D3D11.3 §15.6: depth is clamped to the
    /// range of the viewport the primitive was set up in); `(0, 1)` for a viewport
    /// outside the list, which setup never makes.
    pub fn depth_range(&self, prim: &Prim) -> (f32, f32) {
        self.viewport_depth_range(prim.viewport)
    }

    /// The depth range of viewport `viewport` (see [`PixelStage::depth_range`]).
    pub fn viewport_depth_range(&self, viewport: u32) -> (f32, f32) {
        self.depth_ranges
            .get(viewport as usize)
            .copied()
            .unwrap_or((0.0, 1.0))
    }

    /// The depth plane at `at`, clamped to the viewport's range: what the depth test
    /// compares and stores.
    pub fn depth_at(&self, prim: &Prim, at: Location) -> f32 {
        self.plane_depth_at(&prim.z, prim.viewport, at)
    }

    /// [`PixelStage::depth_at`] of a primitive with depth plane `z` set up in viewport
    /// `viewport` (what a tile's list carries of it, `bin::Binned`).
    pub fn plane_depth_at(&self, z: &Plane, viewport: u32, at: Location) -> f32 {
        clamp_depth(
            z.at(at[0], at[1]) as f32,
            self.viewport_depth_range(viewport),
        )
    }

    fn location(&self, lane: &PixelLane, interp: Interp) -> Location {
        if interp.per_sample() {
            interp::sample(self.pattern, lane.x, lane.y, lane.sample)
        } else if interp.centroid() {
            vrs::centroid(self.pattern, lane)
        } else {
            vrs::centre(lane)
        }
    }

    /// Input word `word` of `lane` evaluated at `at` (or where its mode puts it).
    pub fn input(&self, lane: &PixelLane, word: usize, at: Option<Location>) -> u32 {
        let Some(prim) = self.prims.get(lane.prim as usize) else {
            return 0;
        };
        match self
            .link
            .ps_inputs
            .get(word)
            .copied()
            .unwrap_or(PsSource::Zero)
        {
            PsSource::Vertex { word, interp } => {
                let a = prim.verts.map(|v| self.vertices.word(v, word));
                if interp == Interp::Constant {
                    return a[0];
                }
                let loc = at.unwrap_or_else(|| self.location(lane, interp));
                let w = interp::weights(prim, loc, interp.perspective());
                interp::mix(&w, a)
            }
            PsSource::Position { component, interp } => {
                let loc = at.unwrap_or_else(|| self.location(lane, interp));
                match component {
                    0 => (loc[0] as f32).to_bits(),
                    1 => (loc[1] as f32).to_bits(),
                    2 => position_z(prim, loc).to_bits(),
                    _ => interp::clip_w(prim, loc).to_bits(),
                }
            }
            PsSource::IsFrontFace => {
                if prim.front {
                    u32::MAX
                } else {
                    0
                }
            }
            PsSource::SampleIndex => lane.sample,
            PsSource::Coverage => lane.coverage,
            PsSource::InnerCoverage => {
                // A coarse lane stands for its whole rectangle of fine pixels: it is
                // inner-covered when all of them are (`vrs`, dxlane's choice).
                let size = lane.rate.size();
                if super::raster::inner_coverage_of(prim, lane.x as i32, lane.y as i32, size) {
                    u32::MAX
                } else {
                    0
                }
            }
            PsSource::PrimitiveId => prim.id,
            PsSource::ShadingRate => u32::from(lane.rate.value()),
            PsSource::Barycentric {
                component,
                perspective,
            } => {
                let interp = if perspective {
                    Interp::Linear
                } else {
                    Interp::LinearNoPerspective
                };
                let loc = at.unwrap_or_else(|| self.location(lane, interp));
                let w = interp::weights(prim, loc, perspective);
                (w.get(usize::from(component)).copied().unwrap_or(0.0) as f32).to_bits()
            }
            PsSource::Zero => 0,
        }
    }

    /// Input word `word` as vertex `k` (0–2) of the lane's primitive gave it
    /// (`GetAttributeAtVertex`): 0 for another `k` or a word no vertex output feeds.
    pub fn at_vertex(&self, lane: &PixelLane, word: usize, k: u32) -> u32 {
        let Some(prim) = self.prims.get(lane.prim as usize) else {
            return 0;
        };
        match (self.link.ps_inputs.get(word), prim.verts.get(k as usize)) {
            (Some(PsSource::Vertex { word, .. }), Some(&v)) => self.vertices.word(v, *word),
            _ => 0,
        }
    }

    /// Whether the fill computes input word `word` (see [`PixelStage::read`]).
    #[inline]
    fn reads(&self, word: usize) -> bool {
        self.read
            .is_none_or(|r| r.get(word).copied().unwrap_or(true))
    }

    /// Writes the input words of every lane of `quads` (lane `4q + k` is lane `k` of
    /// quad `q`) into `runner`. Each word's value is what [`PixelStage::input`] gives.
    /// The lanes' pixels are not written as ids: the wave's [`WaveContext`] names them
    /// (`PixelContext::ids`) from their tags, the lane numbers. SV_Position's x and y at
    /// the pixel centre, and words nothing feeds, are filled a quad at a time (two
    /// columns, two rows); the other words a word at a time over a chunk of lanes, with
    /// the locations and vertex weights an input mode needs computed once per lane of the
    /// chunk, not once per word: a loop over lanes with one source kind keeps the
    /// per-word dispatch out of the per-lane work.
    /// Lanes past the runner's wave and lanes of a primitive the draw does not have are
    /// left as they are.
    pub fn fill(&self, runner: &mut StageRunner<'_>, quads: &[PixelQuad]) {
        let w = runner.wave_size();
        let quads = &quads[..quads.len().min(w / 4)];
        if quads.iter().any(|q| q.rate != ShadingRate::X1X1) {
            self.fill_lanes(runner.inputs_mut(), w, quads);
            return;
        }
        let n = quads.len() * 4;
        let sources = &self.link.ps_inputs[..];
        let nprims = self.prims.len();
        // Whether every quad's primitive exists (always so for the tile's queue): then
        // the centre's x and y, and words nothing feeds, are filled over the whole wave
        // at once, straight from the quads, without the chunks' primitives and locations.
        let known = quads.iter().all(|q| (q.prim as usize) < nprims);
        let inputs = runner.inputs_mut();
        let mut rest = false;
        for (word, src) in sources.iter().enumerate() {
            if !self.reads(word) {
                continue;
            }
            let Some(row) = inputs.get_mut(word * w..word * w + n) else {
                continue;
            };
            match (known, centre_xy(*src)) {
                (true, Some(0)) => fill_centre(row, quads, |q| (q.x, [0, 1, 0, 1])),
                (true, Some(_)) => fill_centre(row, quads, |q| (q.y, [0, 0, 1, 1])),
                (true, None) if *src == PsSource::Zero => row.fill(0),
                _ => rest = true,
            }
        }
        if rest {
            self.fill_chunks(inputs, w, quads, known);
        }
    }

    /// [`PixelStage::fill`] of a wave with coarse pixels (`vrs`): every word of every
    /// lane through [`PixelStage::input`], whose locations are the coarse pixel's. It
    /// reads the vertex outputs, not [`PrimAttrs`]: a coarse pixel stands for several
    /// fine ones, so these waves are few, and the general path is the reference the
    /// gathered fill is tested against.
    fn fill_lanes(&self, inputs: &mut [u32], w: usize, quads: &[PixelQuad]) {
        let nprims = self.prims.len();
        for word in 0..self.link.ps_inputs.len() {
            for (l, lane) in
                (0..quads.len() * 4).filter_map(|l| Some((l, PixelQuad::wave_lane(quads, l)?)))
            {
                if (lane.prim as usize) < nprims
                    && let Some(x) = inputs.get_mut(word * w + l)
                {
                    *x = self.input(&lane, word, None);
                }
            }
        }
    }

    /// [`PixelStage::fill`]'s words other than those it fills over the whole wave
    /// (`known`: every lane's primitive exists), a chunk of lanes at a time.
    fn fill_chunks(&self, inputs: &mut [u32], w: usize, quads: &[PixelQuad], known: bool) {
        let sources = &self.link.ps_inputs[..];
        let mut buf = [PixelLane {
            prim: 0,
            x: 0,
            y: 0,
            sample: 0,
            coverage: 0,
            rate: ShadingRate::X1X1,
        }; FILL_CHUNK];
        // Scratch for the chunk's locations and weights, each kind and slot made once per
        // wave and only when a source needs it (zeroing all of them took a sixth of the
        // fill of a one-primitive wave): which of them a chunk has computed is kept
        // apart, so their entries need no `Option`s (whose arrays would be cleared for
        // every chunk).
        let mut locs: [Option<[Location; FILL_CHUNK]>; 3] = [None; 3];
        // Weights lane by lane per vertex (`[k][l]`), the form the wide loops take.
        let mut weights: [Option<[[f64; FILL_CHUNK]; 3]>; 6] = [None; 6];
        for (c, chunk) in quads.chunks(FILL_CHUNK / 4).enumerate() {
            let first = c * FILL_CHUNK;
            // The chunk's lanes as records, for the per-lane rules below.
            for (l, lane) in buf.iter_mut().enumerate().take(chunk.len() * 4) {
                *lane = chunk[l / 4].lane(l % 4);
            }
            let chunk = &buf[..chunk.len() * 4];
            let mut prims: [Option<&Prim>; FILL_CHUNK] = [None; FILL_CHUNK];
            for (p, lane) in prims.iter_mut().zip(chunk) {
                *p = self.prims.get(lane.prim as usize);
            }
            // Lanes of one primitive (the usual case) take loops without a test per lane.
            let one = match chunk.first() {
                Some(l0) if chunk.iter().all(|l| l.prim == l0.prim) => prims[0],
                _ => None,
            };
            let rows = Rows {
                prims: &prims[..chunk.len()],
                one,
            };
            // The chunk's runs of lanes of one primitive, `[lo, hi)` (a quad's lanes
            // share theirs): the weights and the mix run over a run's lanes at once.
            let mut runs: [(usize, usize, Option<&Prim>); FILL_CHUNK] = [(0, 0, None); FILL_CHUNK];
            let mut nruns = 0usize;
            for (l, lane) in chunk.iter().enumerate() {
                match nruns.checked_sub(1).and_then(|r| runs.get_mut(r)) {
                    Some(run) if chunk[run.0].prim == lane.prim => run.1 = l + 1,
                    _ => {
                        if let Some(run) = runs.get_mut(nruns) {
                            *run = (l, l + 1, prims[l]);
                            nruns += 1;
                        }
                    }
                }
            }
            let mut have_loc = [false; 3];
            let mut have_weights = [false; 6];
            for (word, src) in sources.iter().enumerate() {
                if !self.reads(word) {
                    continue;
                }
                let Some(row) = inputs.get_mut(word * w + first..word * w + first + chunk.len())
                else {
                    continue;
                };
                // The chunk's locations of the kind this word needs (see
                // `location_kind`), computed once per chunk.
                let needs = match *src {
                    PsSource::Vertex {
                        interp: Interp::Constant,
                        ..
                    } => None,
                    PsSource::Vertex { interp, .. } | PsSource::Position { interp, .. } => {
                        Some(interp)
                    }
                    _ => None,
                };
                let kind = needs.map_or(2, location_kind);
                // SV_Position's x and y at the pixel centre come straight from the lane
                // (`interp::centre`, rounded to f32 as below), without the locations;
                // `fill` did them already when every primitive exists.
                if let Some(c) = centre_xy(*src) {
                    if !known {
                        if c == 0 {
                            rows.fill(row, |l, _| centre_bits(chunk[l].x));
                        } else {
                            rows.fill(row, |l, _| centre_bits(chunk[l].y));
                        }
                    }
                    continue;
                }
                if needs.is_some() && !have_loc[kind] {
                    // One loop per kind: the mode is matched once per chunk, not per lane.
                    let Some(slot) = locs.get_mut(kind) else {
                        continue;
                    };
                    let out = slot
                        .get_or_insert([[0.0; 2]; FILL_CHUNK])
                        .iter_mut()
                        .zip(chunk);
                    match kind {
                        0 => out.for_each(|(a, lane)| {
                            *a = interp::sample(self.pattern, lane.x, lane.y, lane.sample)
                        }),
                        1 => out.for_each(|(a, lane)| {
                            *a = interp::centroid(self.pattern, lane.x, lane.y, lane.coverage)
                        }),
                        _ => out.for_each(|(a, lane)| *a = interp::centre(lane.x, lane.y)),
                    }
                    have_loc[kind] = true;
                }
                let at = locs
                    .get(kind)
                    .and_then(Option::as_ref)
                    .unwrap_or(&NO_LOCATIONS);
                // The primitives' gathered words (`PrimAttrs`), when the draw has them.
                let gathered = self.attrs.and_then(|a| Some((a, a.first(word)?)));
                match *src {
                    PsSource::Vertex {
                        word: vw,
                        interp: Interp::Constant,
                    } => match gathered {
                        Some((a, f)) => rows.fill(row, |l, _| a.words(chunk[l].prim, f)[0]),
                        None => rows.fill(row, |_, prim| self.vertices.word(prim.verts[0], vw)),
                    },
                    PsSource::Vertex { word: vw, interp } => {
                        let slot = 2 * kind + usize::from(!interp.perspective());
                        let Some(wts) = weights.get_mut(slot) else {
                            continue;
                        };
                        let wts = wts.get_or_insert([[0.0; FILL_CHUNK]; 3]);
                        if !have_weights[slot] {
                            let persp = interp.perspective();
                            for &(lo, hi, p) in &runs[..nruns] {
                                if let Some(prim) = p {
                                    let [w0, w1, w2] = &mut *wts;
                                    let out = [&mut w0[lo..hi], &mut w1[lo..hi], &mut w2[lo..hi]];
                                    weights_exact(prim, &at[lo..hi], persp, out);
                                }
                            }
                            have_weights[slot] = true;
                        }
                        for &(lo, hi, p) in &runs[..nruns] {
                            let (Some(prim), Some(row)) = (p, row.get_mut(lo..hi)) else {
                                continue;
                            };
                            let words = match gathered {
                                Some((a, f)) => a.words(chunk[lo].prim, f),
                                None => prim.verts.map(|v| self.vertices.word(v, vw)),
                            };
                            let w3 = [&wts[0][lo..hi], &wts[1][lo..hi], &wts[2][lo..hi]];
                            mix_exact(w3, words, row);
                        }
                    }
                    PsSource::Position { component, .. } => match component {
                        0 => rows.fill(row, |l, _| (at[l][0] as f32).to_bits()),
                        1 => rows.fill(row, |l, _| (at[l][1] as f32).to_bits()),
                        2 => rows.fill(row, |l, prim| position_z(prim, at[l]).to_bits()),
                        _ => rows.fill(row, |l, prim| interp::clip_w(prim, at[l]).to_bits()),
                    },
                    PsSource::Zero if !known => rows.fill(row, |_, _| 0),
                    PsSource::Zero => {}
                    _ => rows.fill(row, |l, _| self.input(&chunk[l], word, None)),
                }
            }
        }
    }
}

/// Which of SV_Position's x (0) and y (1) `src` is when it is read at the pixel centre
/// (a mode that is neither per sample nor centroid, see [`location_kind`]).
fn centre_xy(src: PsSource) -> Option<u8> {
    match src {
        PsSource::Position {
            component: c @ (0 | 1),
            interp,
        } if location_kind(interp) == 2 => Some(c),
        _ => None,
    }
}

/// The bits of pixel coordinate `v`'s centre, `v + 0.5`, as `interp::centre` gives it
/// rounded to `f32`.
#[inline(always)]
fn centre_bits(v: u32) -> u32 {
    ((f64::from(v) + 0.5) as f32).to_bits()
}

/// The centre bits of each quad's lanes along one axis: `coord` gives the quad's first
/// coordinate and each lane's offset from it (lane `4q + k` gets
/// `centre_bits(first + offset[k])`); two conversions per quad.
#[inline(always)]
fn fill_centre(
    row: &mut [u32],
    quads: &[PixelQuad],
    coord: impl Fn(&PixelQuad) -> (u32, [u32; 4]),
) {
    for (x, q) in row.chunks_exact_mut(4).zip(quads) {
        let (first, offset) = coord(q);
        let c = [centre_bits(first), centre_bits(first.wrapping_add(1))];
        for (x, o) in x.iter_mut().zip(offset) {
            *x = c[o as usize];
        }
    }
}

/// The primitives of a chunk of lanes, for [`Rows::fill`].
struct Rows<'a, 'p> {
    /// Each lane's primitive (`None`: a primitive the draw does not have).
    prims: &'a [Option<&'p Prim>],
    /// The primitive of every lane, when they share one.
    one: Option<&'p Prim>,
}

impl Rows<'_, '_> {
    /// `row[l] = f(l, prim)` for each lane `l` whose primitive exists.
    #[inline(always)]
    fn fill(&self, row: &mut [u32], f: impl Fn(usize, &Prim) -> u32) {
        if let Some(prim) = self.one {
            for (l, x) in row.iter_mut().enumerate().take(self.prims.len()) {
                *x = f(l, prim);
            }
            return;
        }
        for (l, (x, p)) in row.iter_mut().zip(self.prims).enumerate() {
            if let Some(prim) = p {
                *x = f(l, prim);
            }
        }
    }
}

wide_fn! {
    /// [`interp::weights_lanes`], compiled for AVX2 too (`crate::wide`).
    fn weights_wide(prim: &Prim, at: &[Location], perspective: bool, out: [&mut [f64]; 3]) {
        interp::weights_lanes(prim, at, perspective, out)
    }
}

wide_fn! {
    /// [`interp::mix_lanes`], compiled for AVX2 too (`crate::wide`).
    fn mix_wide(w: [&[f64]; 3], a: [u32; 3], out: &mut [u32]) {
        interp::mix_lanes(w, a, out)
    }
}

/// [`interp::weights`] of one primitive at each location of `at` (vertex `k`'s weight at
/// lane `l` into `out[k][l]`), bit for bit: the wide loop, then the scalar rule again
/// for a lane with a NaN weight. A NaN's sign and payload follow the order of an
/// operation's operands, which the wide loop may swap; every other result is one value
/// whatever the order.
fn weights_exact(prim: &Prim, at: &[Location], perspective: bool, out: [&mut [f64]; 3]) {
    let [o0, o1, o2] = out;
    weights_wide(prim, at, perspective, [&mut *o0, &mut *o1, &mut *o2]);
    for (l, &a) in at.iter().enumerate() {
        if let (Some(x0), Some(x1), Some(x2)) = (o0.get_mut(l), o1.get_mut(l), o2.get_mut(l))
            && (x0.is_nan() || x1.is_nan() || x2.is_nan())
        {
            [*x0, *x1, *x2] = interp::weights(prim, a, perspective);
        }
    }
}

/// [`interp::mix`] of words `a` with each lane's weights (`w[k][l]`) into `out[l]`, bit
/// for bit: the wide loop, then the scalar rule again for a NaN (see [`weights_exact`]).
fn mix_exact(w: [&[f64]; 3], a: [u32; 3], out: &mut [u32]) {
    mix_wide(w, a, out);
    for (l, x) in out.iter_mut().enumerate() {
        if f32::from_bits(*x).is_nan()
            && let (Some(&w0), Some(&w1), Some(&w2)) = (w[0].get(l), w[1].get(l), w[2].get(l))
        {
            *x = interp::mix(&[w0, w1, w2], a);
        }
    }
}

/// How many lanes [`PixelStage::fill`] fills a word at a time.
const FILL_CHUNK: usize = 32;

/// The locations of a chunk whose inputs need none (read by no source then).
const NO_LOCATIONS: [Location; FILL_CHUNK] = [[0.0; 2]; FILL_CHUNK];

/// Which location an interpolation mode evaluates at: 0 the lane's sample, 1 the
/// centroid, 2 the pixel centre (as [`PixelStage::location`] decides).
fn location_kind(interp: Interp) -> usize {
    if interp.per_sample() {
        0
    } else if interp.centroid() {
        1
    } else {
        2
    }
}

/// `SV_Position.z` as the pixel program reads it: the interpolated depth (bias included)
/// at `at`, **not** clamped to the viewport's depth range. D3D11.3 §15.6 clamps the depth
/// the output merger tests and writes, and states that the pixel program's input z is
/// not clamped; WARP's own behaviour here is not documented anywhere public, so the
/// specification decides. (With depth clip on and no bias the value already lies in the
/// range; with `DepthClipEnable = false` or a depth bias it may not.)
pub fn position_z(prim: &Prim, at: Location) -> f32 {
    prim.z.at(at[0], at[1]) as f32
}

/// Clamps a depth value to the viewport's range; NaN gives the range's minimum.
pub fn clamp_depth(z: f32, (lo, hi): (f32, f32)) -> f32 {
    let (lo, hi) = if lo <= hi { (lo, hi) } else { (hi, lo) };
    if z.is_nan() { lo } else { z.clamp(lo, hi) }
}

/// The [`PixelContext`] of one wave: `eval` and the sample pattern, answered from the
/// wave's lanes (tag = lane index).
pub struct WaveContext<'a> {
    /// The draw's pixel stage.
    pub stage: &'a PixelStage<'a>,
    /// The wave's quads (lane `4q + k` is lane `k` of quad `q`).
    pub quads: &'a [PixelQuad],
}

impl PixelContext for WaveContext<'_> {
    fn eval(&self, tag: u32, word: u32, at: EvalAt, arg: [u32; 2]) -> u32 {
        let Some(lane) = PixelQuad::wave_lane(self.quads, tag as usize) else {
            return 0;
        };
        let lane = &lane;
        let p = self.stage.pattern;
        let loc = match at {
            EvalAt::Centroid => vrs::centroid(p, lane),
            EvalAt::Sample => vrs::sample(p, lane, arg[0]),
            EvalAt::Snapped => vrs::snapped(lane, arg[0], arg[1]),
            EvalAt::Vertex => return self.stage.at_vertex(lane, word as usize, arg[0]),
        };
        self.stage.input(lane, word as usize, Some(loc))
    }

    fn sample_count(&self) -> u32 {
        self.stage.pattern.count()
    }

    fn sample_position(&self, index: u32) -> [f32; 2] {
        self.stage.pattern.position(index).unwrap_or([0.0; 2])
    }

    fn ids(&self, tag: u32) -> Option<[u32; 3]> {
        let lane = PixelQuad::wave_lane(self.quads, tag as usize)?;
        Some([lane.x, lane.y, lane.sample])
    }
}

/// Whether the depth-stencil test may run before the pixel program (D3D11.3 §16.12
/// "Pixel Shader Execution Control: Force Early/Late Depth/Stencil Test", §16.12.2): always with `[earlydepthstencil]`; otherwise only when the
/// program cannot change what the test would see — no depth, coverage or stencil-reference
/// output, no `discard`/`demote`, no UAV (whose writes must not happen for pixels that
/// fail) — and alpha-to-coverage is off.
pub fn early_depth_allowed(ps: &Shader, alpha_to_coverage: bool) -> bool {
    if ps.early_depth_stencil {
        return true;
    }
    let o = PsOutputs::of(ps);
    if o.depth.is_some() || o.coverage.is_some() || o.stencil_ref.is_some() || alpha_to_coverage {
        return false;
    }
    let kills = ps.insts.iter().any(|i| {
        matches!(
            i,
            crate::ir::Inst::Discard { .. } | crate::ir::Inst::Demote { .. }
        )
    });
    let uav = ps
        .resources
        .iter()
        .any(|r| r.class == crate::ir::ResourceClass::Uav)
        || ps.uses_resource_heap;
    !kills && !uav
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{DescriptorTable, Limits, Profile, StageProgram};
    use crate::ir::parse_shader;
    use crate::pipeline::setup::{self, ScreenVertex, SetupState};
    use crate::pipeline::state::Rect;

    /// `fill` writes for every lane and word what `input` gives (the interpolation rules
    /// of `interp`, D3D11.3 §3.5), for every source kind and interpolation mode, lanes
    /// of two primitives with full, partial and no (helper) coverage, and leaves lanes
    /// of an unknown primitive alone.
    #[test]
    fn fill_equals_input_per_word() {
        let mut sources = Vec::new();
        for interp in [
            Interp::Constant,
            Interp::Linear,
            Interp::LinearCentroid,
            Interp::LinearSample,
            Interp::LinearNoPerspective,
            Interp::LinearNoPerspectiveCentroid,
            Interp::LinearNoPerspectiveSample,
        ] {
            for word in 0..3 {
                sources.push(PsSource::Vertex { word, interp });
            }
            for component in 0..4 {
                sources.push(PsSource::Position { component, interp });
            }
        }
        sources.extend([
            PsSource::IsFrontFace,
            PsSource::SampleIndex,
            PsSource::Coverage,
            PsSource::InnerCoverage,
            PsSource::PrimitiveId,
            PsSource::Zero,
        ]);
        for component in 0..3 {
            for perspective in [false, true] {
                sources.push(PsSource::Barycentric {
                    component,
                    perspective,
                });
            }
        }
        let words = sources.len();
        let link = Linked {
            vs_inputs: Vec::new(),
            gs_inputs: Vec::new(),
            ps_inputs: sources,
            position: [0, 1, 2, 3],
            clip_distances: Vec::new(),
            cull_distances: Vec::new(),
            per_sample: true,
        };
        let ps = parse_shader(&format!(
            "shader pixel\nregs 1\nio_words in {words} out 0\nblock0:\n    return\n"
        ))
        .unwrap();
        let table = DescriptorTable::new(&ps, &[], &[], &[]).unwrap();
        let program =
            StageProgram::new(&ps, table, Profile::default(), Limits::default(), 16).unwrap();
        let mut runner = StageRunner::new(&program);
        let vertices = VertexOutputs {
            words: (0..12u32)
                .map(|i| (i as f32 * 0.37 - 1.3).to_bits())
                .collect(),
            stride: 4,
        };
        let st = SetupState {
            scissor: Rect {
                left: 0,
                top: 0,
                right: 64,
                bottom: 64,
            },
            front_ccw: false,
            cull_front: false,
            cull_back: false,
            depth_bias: 0,
            depth_bias_clamp: 0.0,
            slope_scaled_depth_bias: 0.0,
            depth_float: true,
            depth_unorm_r: 0.0,
            wireframe: false,
            conservative: false,
            line_mode: crate::pipeline::setup::LineMode::Aliased,
        };
        let sv = |x: i64, y: i64, z: f32| ScreenVertex { x, y, z };
        let mu = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
        let prims = [
            setup::triangle(
                &st,
                [sv(100, 50, 0.1), sv(9000, 700, 0.5), sv(1500, 8000, 0.9)],
                mu,
                [1.0, 0.5, 0.25],
                [0, 1, 2],
                7,
            )
            .unwrap(),
            setup::triangle(
                &st,
                [sv(3000, 3000, 0.3), sv(200, 4000, 0.2), sv(5000, 300, 0.7)],
                mu,
                [0.3, 2.0, 1.0],
                [2, 0, 1],
                9,
            )
            .unwrap(),
        ];
        let pattern = Pattern::standard(4).unwrap();
        let stage = PixelStage {
            link: &link,
            prims: &prims,
            vertices: &vertices,
            pattern: &pattern,
            depth_ranges: &[(0.2, 0.8)],
            attrs: None,
            read: None,
        };
        let quad = |prim, x, y, sample, coverage| PixelQuad {
            prim,
            x,
            y,
            sample,
            coverage,
            rate: ShadingRate::X1X1,
        };
        // Sixteen lanes: a quad with a helper, one fully covered, one of a primitive the
        // draw does not have, one mostly helpers; the fifth is past the wave.
        let quads = [
            quad(0, 4, 4, 1, [0b1111, 0b0110, 0, 0b1000]),
            quad(1, 12, 10, 3, [0b1111, 0b0001, 0b1111, 0b1100]),
            quad(5, 12, 12, 0, [0b1111; 4]),
            quad(0, 20, 2, 2, [0b0011, 0, 0, 0]),
            quad(0, 30, 30, 0, [0b1111; 4]),
        ];
        // With a quad of an unknown primitive (every word through the chunks) and
        // without one (SV_Position's centre and unfed words over the whole wave).
        let known = [quads[0], quads[1], quads[3], quads[1]];
        for set in [&quads[..], &known[..]] {
            runner.inputs_mut().fill(0xdead_beef);
            stage.fill(&mut runner, set);
            let got = runner.inputs_mut().to_vec();
            for l in 0..16 {
                let lane = PixelQuad::wave_lane(set, l).unwrap();
                assert_eq!(
                    (lane.x, lane.y),
                    (
                        set[l / 4].x + (l as u32 & 1),
                        set[l / 4].y + (l as u32 & 3) / 2
                    )
                );
                for word in 0..words {
                    let want = if lane.prim < 2 {
                        stage.input(&lane, word, None)
                    } else {
                        0xdead_beef
                    };
                    assert_eq!(got[word * 16 + l], want, "lane {l} word {word}");
                }
            }
        }
    }

    /// The fill's lane loops (`weights_exact`, `mix_exact`: the AVX2 copy where the
    /// processor has it, and the scalar rule for NaNs) are the scalar rules of D3D11.3 §16.4 as `interp::weights` and
    /// `interp::mix` compute them, bit for bit, lane by lane: random planes, 1/w (zero, negative, huge), locations
    /// and words (NaN and infinity among them), both perspective modes.
    #[test]
    fn lane_loops_equal_the_scalar_rules() {
        let mut seed = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = || {
            seed ^= seed << 13;
            seed ^= seed >> 7;
            seed ^= seed << 17;
            seed
        };
        // A value of every kind the weights meet, from random bits `r`.
        let f = |r: u64| -> f64 {
            match r % 16 {
                0 => 0.0,
                1 => f64::INFINITY,
                2 => f64::NAN,
                3 => 1e300,
                _ => (((r >> 8) % 20_000) as f64 - 10_000.0) / (1 + (r >> 40) % 7) as f64 / 97.0,
            }
        };
        for case in 0..400u64 {
            let mut p = Prim {
                shape: setup::Shape::Square {
                    x0: 0,
                    y0: 0,
                    x1: 0,
                    y1: 0,
                },
                bbox: [0, 0, 1, 1],
                sigma: [Plane::default(); 3],
                inv_w: [f(next()), f(next()), f(next())],
                z: Plane::default(),
                verts: [0, 1, 2],
                id: 0,
                front: true,
                viewport: 0,
                slice: 0,
            };
            for s in p.sigma.iter_mut() {
                *s = Plane {
                    c: f(next()),
                    dx: f(next()),
                    dy: f(next()),
                };
            }
            let n = 1 + (case % 32) as usize;
            let at: Vec<Location> = (0..n)
                .map(|l| {
                    [
                        (l % 8) as f64 + 0.5,
                        (l / 8) as f64 + 0.5 + f(next()) * 1e-3,
                    ]
                })
                .collect();
            for persp in [false, true] {
                let mut w = [[0.0f64; 32]; 3];
                {
                    let [a, b, c] = &mut w;
                    weights_exact(&p, &at, persp, [&mut a[..n], &mut b[..n], &mut c[..n]]);
                }
                let words = [
                    (f(next()) as f32).to_bits(),
                    (next() as u32),
                    (f(next()) as f32).to_bits(),
                ];
                let mut mixed = vec![0u32; n];
                mix_exact([&w[0][..n], &w[1][..n], &w[2][..n]], words, &mut mixed);
                for l in 0..n {
                    let want = interp::weights(&p, at[l], persp);
                    let got = [w[0][l], w[1][l], w[2][l]];
                    assert_eq!(
                        got.map(f64::to_bits),
                        want.map(f64::to_bits),
                        "case {case} lane {l}"
                    );
                    assert_eq!(mixed[l], interp::mix(&want, words), "case {case} lane {l}");
                }
            }
        }
    }

    /// `words_read`: a word is read by `input`, and every row of `input_indexed`.
    #[test]
    fn the_words_a_program_reads() {
        let ps = parse_shader(
            "shader pixel\nregs 3\nconst r0 = 0x0\nio_words in 12 out 1\nblock0:\n    input r1, 5\n    input_indexed r2, 2, r0, 2\n    output 0, r1\n    return\n",
        )
        .unwrap();
        let mut want = vec![false; 12];
        for w in [5, 2, 6] {
            want[w] = true;
        }
        assert_eq!(words_read(&ps), want);
    }

    /// The fill from the gathered words (`PrimAttrs`) equals the fill from the vertex
    /// outputs and [`PixelStage::input`], lane for lane, on random triangles, vertex
    /// words of any bits and waves of quads of several primitives (D3D11.3 §16.4's
    /// interpolation modes as `interp` states them: perspective-correct and
    /// `noperspective`, `nointerpolation`, centroid and sample locations, and
    /// SV_Position), including vertex indices and words past the vertex outputs (which
    /// read 0) and lanes of a primitive the draw does not have (left alone).
    #[test]
    fn gathered_fill_equals_the_vertex_fill_on_random_triangles() {
        let mut spread_checked = false;
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        let modes = [
            Interp::Constant,
            Interp::Linear,
            Interp::LinearCentroid,
            Interp::LinearSample,
            Interp::LinearNoPerspective,
            Interp::LinearNoPerspectiveCentroid,
            Interp::LinearNoPerspectiveSample,
        ];
        let st = SetupState {
            scissor: Rect {
                left: 0,
                top: 0,
                right: 64,
                bottom: 64,
            },
            front_ccw: false,
            cull_front: false,
            cull_back: false,
            depth_bias: 0,
            depth_bias_clamp: 0.0,
            slope_scaled_depth_bias: 0.0,
            depth_float: true,
            depth_unorm_r: 0.0,
            wireframe: false,
            conservative: false,
            line_mode: crate::pipeline::setup::LineMode::Aliased,
        };
        let pattern = Pattern::standard(4).unwrap();
        let wave = 64;
        let mut gathered_words = 0;
        for case in 0..300 {
            // Up to 13 inputs (three lines of a record), most of them vertex words.
            let n = 1 + (next() % 13) as usize;
            let stride = 1 + (next() % 9) as u32;
            let sources: Vec<PsSource> = (0..n)
                .map(|_| {
                    let interp = modes[(next() % 7) as usize];
                    match next() % 8 {
                        0 => PsSource::Position {
                            component: (next() % 4) as u8,
                            interp,
                        },
                        1 => PsSource::PrimitiveId,
                        2 => PsSource::Zero,
                        _ => PsSource::Vertex {
                            // Now and then a word past the vertex's.
                            word: (next() % u64::from(stride + 1)) as u32,
                            interp,
                        },
                    }
                })
                .collect();
            let link = Linked {
                vs_inputs: Vec::new(),
                gs_inputs: Vec::new(),
                ps_inputs: sources,
                position: [0, 1, 2, 3],
                clip_distances: Vec::new(),
                cull_distances: Vec::new(),
                per_sample: case % 2 == 0,
            };
            let nverts = 3 + (next() % 12) as u32;
            let vertices = VertexOutputs {
                // Any bits: NaNs, denormals and infinities mix as every other word.
                words: (0..nverts * stride)
                    .map(|_| match next() % 4 {
                        0 => next() as u32,
                        _ => ((next() % 2000) as f32 / 37.0 - 20.0).to_bits(),
                    })
                    .collect(),
                stride: stride as usize,
            };
            let mut prims = Vec::new();
            while prims.len() < 1 + (case % 5) {
                let sv = |v: u64| ScreenVertex {
                    x: (v % (64 * 256)) as i64,
                    y: ((v >> 20) % (64 * 256)) as i64,
                    z: ((v >> 40) % 1000) as f32 / 1000.0,
                };
                let inv_w = [0; 3].map(|_| 0.05 + (next() % 4000) as f64 / 1000.0);
                // Now and then a vertex past the outputs.
                let verts = [0; 3].map(|_| (next() % u64::from(nverts + 1)) as u32);
                let mu = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];
                let v = [sv(next()), sv(next()), sv(next())];
                if let Some(p) = setup::triangle(&st, v, mu, inv_w, verts, prims.len() as u32) {
                    prims.push(p);
                }
            }
            let attrs = PrimAttrs::gather(&link, &prims, &vertices, 1).unwrap();
            // Several workers gather what one does (each its own range of primitives).
            if !prims.is_empty() && !spread_checked {
                let many: Vec<Prim> = prims
                    .iter()
                    .cycle()
                    .take(2 * GATHER_CHUNK + 5)
                    .cloned()
                    .collect();
                let one = PrimAttrs::gather(&link, &many, &vertices, 1);
                assert!(one.is_some() && one == PrimAttrs::gather(&link, &many, &vertices, 3));
                spread_checked = true;
            }
            assert_eq!(
                attrs.records.len(),
                prims.len() * PrimAttrs::lines_per_prim(&link)
            );
            let ps = parse_shader(&format!(
                "shader pixel\nregs 1\nio_words in {n} out 0\nblock0:\n    return\n"
            ))
            .unwrap();
            let table = DescriptorTable::new(&ps, &[], &[], &[]).unwrap();
            let program =
                StageProgram::new(&ps, table, Profile::default(), Limits::default(), wave).unwrap();
            let mut runner = StageRunner::new(&program);
            let general = PixelStage {
                link: &link,
                prims: &prims,
                vertices: &vertices,
                pattern: &pattern,
                depth_ranges: &[(0.0, 1.0)],
                attrs: None,
                read: None,
            };
            let stage = PixelStage {
                attrs: Some(&attrs),
                ..general
            };
            // A wave of quads of the primitives in any order, now and then one of a
            // primitive the draw does not have, and now and then a short wave.
            let nq = if case % 3 == 0 {
                1 + (next() % 16) as usize
            } else {
                16
            };
            let quads: Vec<PixelQuad> = (0..nq)
                .map(|_| {
                    let prim = if next() % 16 == 0 {
                        prims.len() as u32
                    } else {
                        (next() % prims.len() as u64) as u32
                    };
                    PixelQuad {
                        prim,
                        x: (next() % 32) as u32 * 2,
                        y: (next() % 32) as u32 * 2,
                        sample: (next() % 4) as u32,
                        coverage: [0; 4].map(|_| (next() % 16) as u32),
                        rate: ShadingRate::X1X1,
                    }
                })
                .collect();
            runner.inputs_mut().fill(0xdead_beef);
            general.fill(&mut runner, &quads);
            let want = runner.inputs_mut().to_vec();
            // The fill of a program that reads some words computes those alone, and
            // leaves the others as they were.
            let read: Vec<bool> = (0..n).map(|_| next() % 3 != 0).collect();
            runner.inputs_mut().fill(0x0bad_f00d);
            PixelStage {
                read: Some(&read),
                ..stage
            }
            .fill(&mut runner, &quads);
            let some = runner.inputs_mut().to_vec();
            for (word, &r) in read.iter().enumerate() {
                for l in 0..nq * 4 {
                    let (g, w) = (
                        some[word * wave as usize + l],
                        want[word * wave as usize + l],
                    );
                    // A lane the full fill left alone is left alone here too.
                    let w = if w == 0xdead_beef { 0x0bad_f00d } else { w };
                    if !r {
                        assert_eq!(g, 0x0bad_f00d, "case {case} lane {l} word {word}");
                    } else {
                        assert_eq!(g, w, "case {case} lane {l} word {word}");
                    }
                }
            }
            runner.inputs_mut().fill(0xdead_beef);
            stage.fill(&mut runner, &quads);
            let got = runner.inputs_mut().to_vec();
            for l in 0..nq * 4 {
                let lane = PixelQuad::wave_lane(&quads, l).unwrap();
                for word in 0..n {
                    let g = got[word * wave as usize + l];
                    assert_eq!(
                        g,
                        want[word * wave as usize + l],
                        "case {case} lane {l} word {word}"
                    );
                    if (lane.prim as usize) < prims.len() {
                        assert_eq!(g, stage.input(&lane, word, None), "case {case}");
                        gathered_words += usize::from(attrs.first(word).is_some());
                    }
                }
            }
        }
        assert!(gathered_words > 10_000, "{gathered_words}");
    }
}
