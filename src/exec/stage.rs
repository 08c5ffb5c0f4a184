//! Graphics-stage waves: a vertex or pixel shader run one wave at a time, its lanes'
//! input words written by the pipeline before and output words read after.
//!
//! The pipeline owns what the lanes are (which vertices, which pixels and quads, which
//! lanes are helpers); this module runs them with the same interpreter, rules, budgets and
//! descriptors as compute. A [`StageProgram`] is the prepared shader (shared by every
//! worker); each worker makes a [`StageRunner`], whose one wave is reused for every batch:
//!
//! 1. write each lane's input words ([`StageRunner::inputs_mut`]: word `i` of lane `l` at
//!    `i * wave_size + l`) and its invocation ids ([`StageRunner::set_ids`]: vertex index
//!    and instance, or pixel x, y and sample; used to name the lane in errors). A pixel
//!    lane's tag (its lane number unless [`StageRunner::set_tag`] says otherwise) is handed
//!    back through [`PixelContext`], which, when the run has one, also names the pixel
//!    ([`PixelContext::ids`]) instead of the ids;
//! 2. [`StageRunner::run`] with the lanes that exist and the helper lanes among them;
//! 3. read [`StageRunner::outputs`] (same layout; words no lane wrote are 0) and
//!    [`WaveRun::killed`] (lanes that executed `discard` or `demote`).
//!
//! Pixel quads are lanes `4k … 4k + 3` (top-left, top-right, bottom-left, bottom-right),
//! which is what derivatives and quad operations read. Helper lanes run but write no
//! memory and take no part in wave operations (`exec` enforces both); their outputs mean
//! nothing.

use std::sync::{Arc, Mutex};

use crate::ir::{EvalAt, LocalId, Shader, Stage, validate};

use super::Ctx;
use super::budget::{ExecError, Limits};
use super::interp::{Outcome, run, run_traced};
use super::jit::{self, Engine, JitReport, JitShader};
use super::observe::{WaveObserver, WriteSink, reader};
use super::profile::Profile;
use super::rays::RayContext;
use super::resource::DescriptorTable;
use super::wave::{EmitRecord, Exec, Wave, WaveState};

/// What a pixel wave asks of the pipeline: attribute evaluation away from where the
/// input's mode puts it, and the render target's sample pattern.
pub trait PixelContext: Sync {
    /// Input word `word` of the pixel that lane tag `tag` stands for, interpolated at `at`:
    /// `arg[0]` is the sample index for [`EvalAt::Sample`] and the vertex (0 to 2) for
    /// [`EvalAt::Vertex`]; `arg[0]`, `arg[1]` are the x and y offsets (low 4 bits, signed
    /// sixteenths of a pixel) for [`EvalAt::Snapped`].
    fn eval(&self, tag: u32, word: u32, at: EvalAt, arg: [u32; 2]) -> u32;

    /// Samples per pixel of the render targets (1 without MSAA).
    fn sample_count(&self) -> u32;

    /// Position of sample `index` relative to the pixel centre, in pixels (`[0, 0]` for an
    /// index out of range).
    fn sample_position(&self, index: u32) -> [f32; 2];

    /// The x, y and sample of the pixel that lane tag `tag` stands for, which name the
    /// lane in errors and to observers; `None` (the default) leaves that to the ids
    /// [`StageRunner::set_ids`] wrote. Answering here spares the pipeline writing every
    /// lane's ids into the wave before each run.
    fn ids(&self, tag: u32) -> Option<[u32; 3]> {
        let _ = tag;
        None
    }
}

/// A vertex or pixel shader ready to run: validated, with its descriptors, profile, limits
/// and wave size.
#[derive(Debug, Clone)]
pub struct StageProgram<'a> {
    shader: &'a Shader,
    table: DescriptorTable,
    profile: Arc<Profile>,
    limits: Limits,
    wave_size: u32,
    ftz: bool,
    engine: Engine,
    jit: Option<Arc<JitShader>>,
    /// The registers a wave must zero before each run ([`fresh_registers`]).
    clear: Arc<[u32]>,
    /// `SV_ViewID`'s input word and the view every lane of a run reads there
    /// ([`with_view_id`](Self::with_view_id)).
    view: Option<(usize, u32)>,
    /// Where its runners' waves go when they are done ([`StageRunner::release`]) and
    /// new runners take one from: a program made from a [`PreparedStage`] shares its
    /// pool; one made by [`StageProgram::new`] has none.
    waves: Option<Arc<WavePool>>,
}

/// What making a vertex or pixel program takes from its shader alone — validation,
/// the registers a wave must clear, the native code — kept so that a program of an
/// equal shader under the same profile, wave size and engine is made again without
/// any of it ([`StageProgram::from_prepared`]): what a driver keeps in a pipeline state
/// object, which a command list's draws bind again and again (`pipeline::pso`). The
/// programs made from it also share the waves their runners give back
/// ([`StageRunner::release`]).
#[derive(Debug, Clone)]
pub struct PreparedStage {
    /// The shader it was prepared from (compared with each shader it makes a program of).
    shader: Arc<Shader>,
    profile: Arc<Profile>,
    wave_size: u32,
    engine: Engine,
    ftz: bool,
    jit: Option<Arc<JitShader>>,
    clear: Arc<[u32]>,
    waves: Arc<WavePool>,
}

impl PreparedStage {
    /// Whether programs made from it run under `profile`, in waves of `wave_size`
    /// lanes, with `engine` (the shader is compared by
    /// [`StageProgram::from_prepared`]).
    pub fn runs_as(&self, profile: &Profile, wave_size: u32, engine: Engine) -> bool {
        self.wave_size == wave_size && self.engine == engine && *self.profile == *profile
    }

    /// The shader it was prepared from.
    pub fn shader(&self) -> &Shader {
        &self.shader
    }
}

/// Most waves a [`WavePool`] keeps: one per worker thread of a draw is all a later
/// draw takes.
const KEPT_WAVES: usize = 16;

/// Waves that runners of one [`PreparedStage`]'s programs gave back, for the next
/// runners to take instead of allocating and zeroing their own (a list of one-triangle
/// draws made two runners per draw, each allocating its registers and words).
#[derive(Default)]
struct WavePool {
    spare: Mutex<Vec<Inner>>,
}

impl std::fmt::Debug for WavePool {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("WavePool").finish_non_exhaustive()
    }
}

impl<'a> StageProgram<'a> {
    /// Prepares `shader` (a vertex or pixel shader) to run in waves of `wave_size` lanes
    /// in the interpreter; [`with_engine`](Self::with_engine) chooses the engine (the
    /// caller's plan says which: nothing here reads the environment).
    pub fn new(
        shader: &'a Shader,
        table: DescriptorTable,
        profile: Profile,
        limits: Limits,
        wave_size: u32,
    ) -> Result<StageProgram<'a>, ExecError> {
        validate(shader)?;
        if !matches!(
            shader.stage,
            Stage::Vertex | Stage::Pixel | Stage::Geometry | Stage::Hull | Stage::Domain
        ) && !shader.stage.is_ray_tracing()
        {
            return Err(ExecError::Dispatch(format!(
                "a {} shader does not run as a vertex, hull, domain, geometry, pixel or ray-tracing stage",
                shader.stage
            )));
        }
        if !(4..=128).contains(&wave_size) || !wave_size.is_power_of_two() {
            return Err(ExecError::WaveSize {
                size: wave_size,
                message: "not a power of two from 4 to 128".into(),
            });
        }
        let ftz = profile.flushes_fp32_denormals(shader.fp32_denorm);
        // Shared with the programs made from this one (`from_prepared`): a list's draws
        // each make one, and copying the profile's name cost each an allocation.
        let profile = Arc::new(profile);
        Ok(StageProgram {
            shader,
            table,
            profile,
            limits,
            wave_size,
            ftz,
            engine: Engine::Interp,
            jit: None,
            clear: fresh_registers(shader)
                .iter()
                .enumerate()
                .skip(shader.consts.len())
                .filter(|&(_, &fresh)| !fresh)
                .map(|(r, _)| r as u32)
                .collect(),
            view: None,
            waves: None,
        })
    }

    /// What this program took from its shader (validated, its registers analysed, its
    /// native code), for making programs of an equal shader again
    /// ([`StageProgram::from_prepared`]) under this program's profile, wave size and
    /// engine; from now on this program's runners give their waves to those programs'
    /// runners too ([`StageRunner::release`]). The view and the bindings are not part
    /// of it.
    pub fn prepare(&mut self) -> PreparedStage {
        let waves = self.waves.get_or_insert_with(Arc::default).clone();
        PreparedStage {
            shader: Arc::new(self.shader.clone()),
            profile: self.profile.clone(),
            wave_size: self.wave_size,
            engine: self.engine,
            ftz: self.ftz,
            jit: self.jit.clone(),
            clear: self.clear.clone(),
            waves,
        }
    }

    /// A program of `shader` with `table` and `limits`, made from what `prepared` took
    /// from an equal shader: nothing is validated, analysed or compiled again (the
    /// native code is shared, its run counters are the new program's own, and its
    /// report says it was compiled earlier). Runs as [`StageProgram::new`] followed by
    /// [`with_engine`](Self::with_engine) would have made it, under `prepared`'s
    /// profile, wave size and engine ([`PreparedStage::runs_as`]). When `shader` is not
    /// equal to `prepared`'s shader, the table is given back.
    pub fn from_prepared(
        shader: &'a Shader,
        prepared: &PreparedStage,
        table: DescriptorTable,
        limits: Limits,
    ) -> Result<StageProgram<'a>, DescriptorTable> {
        if *prepared.shader != *shader {
            return Err(table);
        }
        Ok(StageProgram::from_equal_prepared(
            shader, prepared, table, limits,
        ))
    }

    /// [`from_prepared`](Self::from_prepared) for a caller that has compared `shader`
    /// with `prepared`'s shader and found them equal (`pipeline::pso`, which compares
    /// before it makes the table).
    pub(crate) fn from_equal_prepared(
        shader: &'a Shader,
        prepared: &PreparedStage,
        table: DescriptorTable,
        limits: Limits,
    ) -> StageProgram<'a> {
        debug_assert!(
            *prepared.shader == *shader,
            "the caller compares the shaders"
        );
        StageProgram {
            shader,
            table,
            profile: prepared.profile.clone(),
            limits,
            wave_size: prepared.wave_size,
            ftz: prepared.ftz,
            engine: prepared.engine,
            jit: prepared.jit.as_deref().map(|j| Arc::new(j.again())),
            clear: prepared.clear.clone(),
            view: None,
            waves: Some(prepared.waves.clone()),
        }
    }

    /// Runs every lane as view instance `view` of a view-instanced draw: whatever the
    /// stage wrote into the program's `SV_ViewID` input word, each run reads `view`
    /// there (D3D12 View Instancing, "SV_ViewID": a value of the view, not of the
    /// vertex or pixel). Without it, or without view instancing, the word reads what
    /// the stage filled, 0 (the spec: a program reading `SV_ViewID` in a pipeline
    /// without view instancing sees 0).
    pub fn with_view_id(mut self, view: u32) -> StageProgram<'a> {
        self.view = self
            .shader
            .input_sv(crate::ir::SysValue::ViewId)
            .map(|e| (e.slot as usize, view));
        self
    }

    /// Chooses the engine (see `exec::Program::with_engine`). Quad operations, helper
    /// lanes and derivatives always run in the interpreter; only arithmetic between them
    /// is compiled.
    pub fn with_engine(mut self, engine: Engine) -> StageProgram<'a> {
        // `new` starts in the interpreter; only a different choice compiles (or drops)
        // again.
        if engine != self.engine {
            self.engine = engine;
            self.jit = jit::compile_for(engine, self.shader, self.jit_key());
        }
        self
    }

    fn jit_key(&self) -> jit::Key {
        jit::Key {
            width: self.wave_size,
            ftz: self.ftz,
            fuse_mad: self.profile.fuse_mad,
        }
    }

    /// What the native engine compiled, and what its region code has run so far, when
    /// the program uses it.
    pub fn jit_report(&self) -> Option<JitReport> {
        self.jit.as_deref().map(JitShader::report)
    }

    /// What [`jit_report`](Self::jit_report) depends on, made without making the report.
    pub fn jit_report_key(&self) -> Option<jit::ReportKey> {
        self.jit.as_deref().map(JitShader::report_key)
    }

    /// The shader.
    pub fn shader(&self) -> &'a Shader {
        self.shader
    }

    /// Lanes per wave.
    pub fn wave_size(&self) -> u32 {
        self.wave_size
    }

    /// The profile.
    pub fn profile(&self) -> &Profile {
        &self.profile
    }

    /// Bytes of execution state one runner holds (registers, per-lane arrays, input and
    /// output words).
    pub fn runner_memory_bytes(&self) -> u64 {
        let s = self.shader;
        let locals: u64 = s
            .locals
            .iter()
            .map(|x| u64::from(x.bytes).div_ceil(4))
            .sum();
        let words =
            u64::from(s.num_regs) + locals + u64::from(s.input_words) + u64::from(s.output_words);
        words * 4 * u64::from(self.wave_size)
    }
}

/// What running one wave did.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct WaveRun {
    /// Lane-instructions executed (helper lanes included).
    pub lane_instructions: u64,
    /// Lanes that executed `discard`, or `demote` (DXIL's discard): their pixels'
    /// outputs are dropped.
    pub killed: u128,
}

/// Per register, whether a wave's run writes it for every live lane before any lane can
/// read it, so that the value it held from the previous batch can never be seen and need
/// not be zeroed (zeroing a 128-lane wave's registers took a tenth of a full-screen
/// draw). A register is fresh when, in the entry block, its first use is a write and
/// comes before any `discard` or `demote`: every live lane starts active at the entry
/// block, and every instruction stores its destination for every active lane
/// (`Exec::store`), so from that write on each lane's value is its own — for the lane
/// itself and for a neighbour's derivative or quad operation alike. A register that no
/// instruction or terminator reads is fresh too: nothing in the program can see what it
/// holds (an observed run zeroes every register all the same, for the observer).
/// Constants, and registers read (even by the writing instruction) or first written
/// later, are not fresh.
fn fresh_registers(s: &Shader) -> Vec<bool> {
    use crate::ir::{Inst, Role, Terminator};
    let n = s.num_regs as usize;
    let mut fresh = vec![false; n];
    let mut seen = vec![false; n];
    let mut read = vec![false; n];
    let mut mark = |r: usize| {
        if let Some(x) = read.get_mut(r) {
            *x = true;
        }
    };
    for inst in &s.insts {
        inst.visit_regs(&mut |role, r| {
            if matches!(role, Role::Read | Role::Read64) {
                mark(r.index());
                if role.is_wide() {
                    mark(r.index() + 1);
                }
            }
        });
    }
    for b in &s.blocks {
        match &b.term {
            Terminator::Branch { cond, .. } => mark(cond.index()),
            Terminator::Switch { sel, .. } => mark(sel.index()),
            _ => {}
        }
    }
    for (f, r) in fresh.iter_mut().zip(&read) {
        *f = !r;
    }
    let Some(entry) = s.blocks.first() else {
        return fresh;
    };
    let insts = s
        .insts
        .get(entry.start as usize..entry.end as usize)
        .unwrap_or(&[]);
    for inst in insts {
        if matches!(inst, Inst::Discard { .. } | Inst::Demote { .. }) {
            break;
        }
        let (mut reads, mut writes) = (Vec::new(), Vec::new());
        inst.visit_regs(&mut |role, r| {
            let rs = [r.index(), r.index() + 1];
            let rs = if role.is_wide() { &rs[..] } else { &rs[..1] };
            match role {
                Role::Read | Role::Read64 => reads.extend_from_slice(rs),
                Role::Write | Role::Write64 => writes.extend_from_slice(rs),
                Role::None => {}
            }
        });
        for r in reads {
            if let Some(x) = seen.get_mut(r) {
                *x = true;
            }
        }
        for r in writes {
            if r < n && !seen[r] {
                seen[r] = true;
                fresh[r] = true;
            }
        }
    }
    for f in fresh.iter_mut().take(s.consts.len()) {
        *f = false;
    }
    fresh
}

/// Per-lane array words a ray-tracing lane starts with: lane, array, words.
type LanePresets = [(usize, LocalId, Vec<u32>)];

struct StageWave<const W: usize> {
    wave: Wave<W>,
}

impl<const W: usize> StageWave<W> {
    fn new(p: &StageProgram<'_>) -> Self {
        let s = p.shader;
        let locals: Vec<u32> = s.locals.iter().map(|x| x.bytes).collect();
        StageWave {
            wave: Wave::<W>::new(s.num_regs as usize, &s.consts, &locals)
                .with_io(s.input_words, s.output_words),
        }
    }

    /// Makes a kept wave what [`StageWave::new`] would make for `p`, when it has `p`'s
    /// shape (width, registers, arrays and words; `false` otherwise): the constants
    /// set, the input words zeroed, the lanes' ids and tags as a new wave's. What `run`
    /// resets itself (arrays, outputs, counters, and the registers of
    /// `StageProgram::clear`) is left to it, and so are the other registers: each is
    /// written for every lane before anything reads it (`fresh_registers`), so what it
    /// held cannot be seen — as between two runs of one wave. (Zeroing them all took a
    /// seventh of a small draw's instructions in a list of many draws.)
    fn renew(&mut self, p: &StageProgram<'_>) -> bool {
        let s = p.shader;
        let w = &mut self.wave;
        let fits = p.wave_size as usize == W
            && w.regs.len() == s.num_regs as usize
            && w.inputs.len() == s.input_words as usize * W
            && w.outputs.len() == s.output_words as usize * W
            && w.locals.len() == s.locals.len()
            && w.locals
                .iter()
                .zip(&s.locals)
                .all(|(a, x)| a.len() == x.bytes.div_ceil(4) as usize);
        if !fits {
            return false;
        }
        for (r, &c) in w.regs.iter_mut().zip(&s.consts) {
            *r = [c; W];
        }
        w.inputs.fill(0);
        w.gtid = [[0; W]; 3];
        w.gindex = [0; W];
        w.tags = std::array::from_fn(|l| l as u32);
        true
    }

    // One private entry behind the runner's public `run*` methods, each passing what it
    // has; grouping the optional contexts would only move the list.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &mut self,
        p: &StageProgram<'_>,
        lanes: u128,
        helper: u128,
        pixel: Option<&dyn PixelContext>,
        rays: Option<(&dyn RayContext, &LanePresets)>,
        writes: Option<&dyn WriteSink>,
        mut obs: Option<&mut dyn WaveObserver>,
    ) -> Result<WaveRun, ExecError> {
        let s = p.shader;
        let cx = Ctx {
            shader: s,
            table: &p.table,
            profile: &p.profile,
            limit: p.limits.max_lane_instructions,
            ftz: p.ftz,
            group_id: [0; 3],
            shared_bytes: 0,
            pixel,
            rays: rays.map(|r| r.0),
            writes,
            jit: p.jit.as_deref(),
        };
        let w = &mut self.wave;
        let lanes = lanes & Exec::<W>::ALL;
        let entry = s.blocks.first().map_or(0, |b| b.start);
        if obs.is_some() {
            // An observer is shown the registers before the first instruction.
            w.reset(s.consts.len(), lanes, entry);
        } else {
            w.reset_clearing(&p.clear, lanes, entry);
        }
        w.helper = helper & lanes;
        w.helpers_in_wave_ops = s.wave_ops_include_helpers;
        w.outputs.fill(0);
        if let Some((slot, view)) = p.view
            && let Some(words) = w.inputs.get_mut(slot * W..(slot + 1) * W)
        {
            words.fill(view);
        }
        // A ray-tracing lane's payload, parameter or attributes, after the reset.
        for (l, x, data) in rays.map_or(&[][..], |r| r.1) {
            if let Some(arr) = w.locals.get_mut(x.index()) {
                for (slot, v) in arr.iter_mut().zip(data) {
                    if let Some(s) = slot.get_mut(*l) {
                        *s = *v;
                    }
                }
            }
        }
        w.emits.cap = s.geometry.map_or(0, |g| g.max_vertices);
        if let Some(o) = obs.as_deref_mut() {
            o.start(&reader(w, &cx));
        }
        // A graphics stage has no group to wait for: a group barrier is a memory fence.
        while w.state != WaveState::Done {
            let out = match obs.as_deref_mut() {
                Some(o) => run_traced(w, &cx, &mut [], None, o)?,
                None => run(w, &cx, &mut [])?,
            };
            if out == Outcome::Barrier {
                w.state = WaveState::Running;
            }
        }
        Ok(WaveRun {
            lane_instructions: w.executed,
            killed: w.killed,
        })
    }
}

enum Inner {
    W4(Box<StageWave<4>>),
    W8(Box<StageWave<8>>),
    W16(Box<StageWave<16>>),
    W32(Box<StageWave<32>>),
    W64(Box<StageWave<64>>),
    W128(Box<StageWave<128>>),
}

macro_rules! each {
    ($inner:expr, $w:ident => $e:expr) => {
        match $inner {
            Inner::W4($w) => $e,
            Inner::W8($w) => $e,
            Inner::W16($w) => $e,
            Inner::W32($w) => $e,
            Inner::W64($w) => $e,
            Inner::W128($w) => $e,
        }
    };
}

impl WavePool {
    fn lock(&self) -> std::sync::MutexGuard<'_, Vec<Inner>> {
        self.spare.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// A kept wave of `p`'s shape, made as a new runner's would be; `None` when none is
    /// kept (one of another shape is dropped).
    fn take(&self, p: &StageProgram<'_>) -> Option<Inner> {
        let mut inner = self.lock().pop()?;
        let fits = each!(&mut inner, w => w.renew(p));
        fits.then_some(inner)
    }

    fn keep(&self, inner: Inner) {
        let mut spare = self.lock();
        if spare.len() < KEPT_WAVES {
            spare.push(inner);
        }
    }
}

/// Runs waves of one [`StageProgram`]; each worker thread has its own.
pub struct StageRunner<'p> {
    program: &'p StageProgram<'p>,
    inner: Inner,
    /// Per-lane array words a ray-tracing run starts with (`set_local_words`).
    presets: Vec<(usize, LocalId, Vec<u32>)>,
}

impl<'p> StageRunner<'p> {
    /// A runner for `program`, its wave allocated once — or, for a program made from a
    /// [`PreparedStage`], taken from the waves earlier runners gave back
    /// ([`StageRunner::release`]) and made as new.
    pub fn new(program: &'p StageProgram<'p>) -> StageRunner<'p> {
        let kept = program.waves.as_deref().and_then(|w| w.take(program));
        let inner = kept.unwrap_or_else(|| match program.wave_size {
            4 => Inner::W4(Box::new(StageWave::new(program))),
            8 => Inner::W8(Box::new(StageWave::new(program))),
            16 => Inner::W16(Box::new(StageWave::new(program))),
            32 => Inner::W32(Box::new(StageWave::new(program))),
            64 => Inner::W64(Box::new(StageWave::new(program))),
            _ => Inner::W128(Box::new(StageWave::new(program))),
        });
        StageRunner {
            program,
            inner,
            presets: Vec::new(),
        }
    }

    /// Ends the runner, giving its wave to the next runner of a program made from the
    /// same [`PreparedStage`] (a later draw of a command list); a runner of a program
    /// made by [`StageProgram::new`] is only dropped.
    pub fn release(self) {
        if let Some(pool) = self.program.waves.as_deref() {
            pool.keep(self.inner);
        }
    }

    /// Lanes per wave.
    pub fn wave_size(&self) -> usize {
        self.program.wave_size as usize
    }

    /// The input words: word `i` of lane `l` at `i * wave_size + l`. They keep their values
    /// between runs.
    pub fn inputs_mut(&mut self) -> &mut [u32] {
        each!(&mut self.inner, w => &mut w.wave.inputs)
    }

    /// The output words of the last run, laid out as the inputs.
    pub fn outputs(&self) -> &[u32] {
        each!(&self.inner, w => &w.wave.outputs)
    }

    /// What a geometry wave's lanes emitted in the last run: the records in order, and
    /// the output words of the vertex records, `output_words` per vertex.
    pub fn emitted(&self) -> (&[EmitRecord], &[u32]) {
        each!(&self.inner, w => (&w.wave.emits.records, &w.wave.emits.words))
    }

    /// Sets lane `l`'s invocation ids (vertex: index, instance, 0; pixel: x, y, sample),
    /// which name the lane in errors (in a pixel run whose `PixelContext` answers `ids`,
    /// its answer does).
    pub fn set_ids(&mut self, l: usize, ids: [u32; 3]) {
        each!(&mut self.inner, w => {
            if let Some(slot) = w.wave.gtid[0].get_mut(l) {
                *slot = ids[0];
                w.wave.gtid[1][l] = ids[1];
                w.wave.gtid[2][l] = ids[2];
            }
        })
    }

    /// Sets lane `l`'s tag (handed to [`PixelContext::eval`] and [`PixelContext::ids`]);
    /// a new runner's tags are the lane numbers.
    pub fn set_tag(&mut self, l: usize, tag: u32) {
        each!(&mut self.inner, w => {
            if let Some(t) = w.wave.tags.get_mut(l) {
                *t = tag;
            }
        })
    }

    /// Runs the wave to the end: lanes in `lanes` exist, those also in `helper` are
    /// helper lanes. `pixel` answers `eval` and the sample-pattern instructions (pixel
    /// shaders; without it `eval` reads the input word as it is and the pattern is 1×).
    pub fn run(
        &mut self,
        lanes: u128,
        helper: u128,
        pixel: Option<&dyn PixelContext>,
    ) -> Result<WaveRun, ExecError> {
        self.run_writes(lanes, helper, pixel, None)
    }

    /// [`StageRunner::run`], reporting every memory write of the wave's lanes to
    /// `writes` (see `observe`; `None` costs one branch per store instruction).
    pub fn run_writes(
        &mut self,
        lanes: u128,
        helper: u128,
        pixel: Option<&dyn PixelContext>,
        writes: Option<&dyn WriteSink>,
    ) -> Result<WaveRun, ExecError> {
        let p = self.program;
        each!(&mut self.inner, w => w.run(p, lanes, helper, pixel, None, writes, None))
    }

    /// [`StageRunner::run`] through exec's traced loop, reporting every step of the wave
    /// to `obs` (see `observe`): the same handlers in the same order, so the wave computes
    /// what [`StageRunner::run`] would.
    pub fn run_traced(
        &mut self,
        lanes: u128,
        helper: u128,
        pixel: Option<&dyn PixelContext>,
        obs: &mut dyn WaveObserver,
    ) -> Result<WaveRun, ExecError> {
        let p = self.program;
        each!(&mut self.inner, w => w.run(p, lanes, helper, pixel, None, None, Some(&mut *obs)))
    }
}

impl StageRunner<'_> {
    /// Runs a ray-tracing program's wave to the end (lanes in `lanes`), `rays` answering
    /// its system values and running what it traces and calls.
    pub fn run_rays(&mut self, lanes: u128, rays: &dyn RayContext) -> Result<WaveRun, ExecError> {
        self.run_rays_writes(lanes, rays, None)
    }

    /// [`StageRunner::run_rays`], reporting every memory write of the wave's lanes to
    /// `writes` (each lane named by its launch index, `Invocation::Ray`).
    pub fn run_rays_writes(
        &mut self,
        lanes: u128,
        rays: &dyn RayContext,
        writes: Option<&dyn WriteSink>,
    ) -> Result<WaveRun, ExecError> {
        let p = self.program;
        let presets = std::mem::take(&mut self.presets);
        let r = each!(&mut self.inner, w => w.run(p, lanes, 0, None, Some((rays, &presets)), writes, None));
        self.presets = presets;
        self.presets.clear();
        r
    }

    /// [`StageRunner::run_rays`] through exec's traced loop, reporting every step of the
    /// wave to `obs` (the debugger's ray-generation wave, or a program one of its lanes
    /// invoked) and every memory write also to `writes`; what the wave's `TraceRay` and
    /// `CallShader` run is the context's, untraced here.
    pub fn run_rays_traced(
        &mut self,
        lanes: u128,
        rays: &dyn RayContext,
        writes: Option<&dyn WriteSink>,
        obs: &mut dyn WaveObserver,
    ) -> Result<WaveRun, ExecError> {
        let p = self.program;
        let presets = std::mem::take(&mut self.presets);
        let r = each!(&mut self.inner, w => w.run(p, lanes, 0, None, Some((rays, &presets)), writes, Some(&mut *obs)));
        self.presets = presets;
        self.presets.clear();
        r
    }

    /// Lane `l`'s first `words` words of per-lane array `x` (a ray-tracing program's
    /// payload or attributes after a run; 0 past the array).
    pub fn local_words(&self, l: usize, x: LocalId, words: usize) -> Vec<u32> {
        each!(&self.inner, w => {
            let arr = w.wave.locals.get(x.index());
            (0..words)
                .map(|k| arr.and_then(|a| a.get(k)).and_then(|v| v.get(l)).copied().unwrap_or(0))
                .collect()
        })
    }

    /// Sets lane `l`'s first words of per-lane array `x` to `data` for the next
    /// [`run_rays`](Self::run_rays) (which zeroes every array first; words past the
    /// array are dropped).
    pub fn set_local_words(&mut self, l: usize, x: LocalId, data: &[u32]) {
        self.presets.push((l, x, data.to_vec()));
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_shader;

    const PS: &str = r#"shader pixel
entry "main"
fp32 ftz
regs 8
const r0 = 0x3f800000    ; 1.0
const r1 = 0x0
io_words in 8 out 4
input "SV_Position" 0 sv position reg 0 rows 1 mask xyzw float interp noperspective slot 0
input "TEXCOORD" 0 sv none reg 1 rows 1 mask xy float interp linear slot 4
output "SV_Target" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    input r2, 0
    input r3, 4
    fadd r4, r3, r0
    output 0, r4
    output 1, r2
    eval centroid, r5, 5, _, 1, [_ _]
    output 2, r5
    raster_sample_count r6
    output 3, r6
    fcmp lt, r7, r2, r0
    discard r7
    return
"#;

    struct Fixed;
    impl PixelContext for Fixed {
        fn eval(&self, tag: u32, word: u32, at: EvalAt, _arg: [u32; 2]) -> u32 {
            assert_eq!(at, EvalAt::Centroid);
            tag * 100 + word
        }
        fn sample_count(&self) -> u32 {
            4
        }
        fn sample_position(&self, _index: u32) -> [f32; 2] {
            [0.0; 2]
        }
    }

    fn shader() -> Shader {
        let s = parse_shader(PS).unwrap();
        validate(&s).unwrap();
        assert_eq!(
            parse_shader(&s.to_string()).unwrap(),
            s,
            "text form round trip"
        );
        s
    }

    /// Inputs go in per lane, outputs come out per lane; `discard` is reported; `eval`
    /// and the sample count come from the pipeline's [`PixelContext`].
    #[test]
    fn a_pixel_wave_reads_inputs_and_writes_outputs() {
        let s = shader();
        let table = DescriptorTable::new(&s, &[], &[], &[]).unwrap();
        let p = StageProgram::new(&s, table, Profile::default(), Limits::default(), 8).unwrap();
        let mut r = StageRunner::new(&p);
        let w = r.wave_size();
        for l in 0..w {
            let x = l as f32; // SV_Position.x: lanes 0 and 1… discard where x < 1
            r.inputs_mut()[l] = x.to_bits();
            r.inputs_mut()[4 * w + l] = (x * 2.0).to_bits();
            r.set_tag(l, l as u32);
            r.set_ids(l, [l as u32, 0, 0]);
        }
        let run = r.run(0b0111_1111, 0b0100_0000, Some(&Fixed)).unwrap();
        assert_eq!(run.killed, 0b1, "lane 0 has x = 0 < 1");
        let out = r.outputs();
        for l in 1..7 {
            assert_eq!(f32::from_bits(out[l]), l as f32 * 2.0 + 1.0);
            assert_eq!(f32::from_bits(out[w + l]), l as f32);
            assert_eq!(out[2 * w + l], l as u32 * 100 + 5);
            assert_eq!(out[3 * w + l], 4);
        }
        // Lane 7 does not exist: nothing is written for it.
        assert_eq!(out[7], 0);
    }

    /// A driver checks and compiles a pipeline state object's programs once, when it is
    /// created, and every draw that binds it runs them
    /// (`ID3D12Device::CreateGraphicsPipelineState`): a program made from a prepared one
    /// of an equal shader (another object) runs as one made anew, and a runner taking the
    /// wave an earlier runner gave back starts as a new runner does — input words zero,
    /// each lane's tag its lane number — whatever that runner left. A shader that is
    /// not equal gets its table back.
    #[test]
    fn a_prepared_program_and_a_kept_wave_run_as_new_ones() {
        let s = shader();
        let table = |s: &Shader| DescriptorTable::new(s, &[], &[], &[]).unwrap();
        let profile = Profile::default();
        let mut first =
            StageProgram::new(&s, table(&s), profile.clone(), Limits::default(), 8).unwrap();
        let prepared = first.prepare();
        assert!(prepared.runs_as(&profile, 8, Engine::Interp));
        assert!(!prepared.runs_as(&profile, 16, Engine::Interp));
        assert!(!prepared.runs_as(&profile, 8, Engine::Jit));
        // A runner that leaves input words, tags and ids behind, then gives its wave back.
        let mut used = StageRunner::new(&first);
        let w = used.wave_size();
        for l in 0..w {
            used.inputs_mut()[l] = 7.0f32.to_bits();
            used.inputs_mut()[4 * w + l] = 3.0f32.to_bits();
            used.inputs_mut()[5 * w + l] = 9;
            used.set_tag(l, 40 + l as u32);
            used.set_ids(l, [9, 9, 9]);
        }
        used.run(0xff, 0, Some(&Fixed)).unwrap();
        used.release();
        let copy = s.clone();
        let again =
            StageProgram::from_prepared(&copy, &prepared, table(&copy), Limits::default()).unwrap();
        let mut kept = StageRunner::new(&again);
        assert!(
            kept.inputs_mut().iter().all(|&x| x == 0),
            "input words zeroed"
        );
        let anew = StageProgram::new(&s, table(&s), profile, Limits::default(), 8).unwrap();
        let mut fresh = StageRunner::new(&anew);
        let mut outs = Vec::new();
        for r in [&mut kept, &mut fresh] {
            for l in 0..w {
                r.inputs_mut()[l] = (l as f32).to_bits();
                r.inputs_mut()[4 * w + l] = (l as f32 * 2.0).to_bits();
            }
            let run = r.run(0b0111_1111, 0b0100_0000, Some(&Fixed)).unwrap();
            outs.push((run, r.outputs().to_vec()));
        }
        assert_eq!(outs[0], outs[1]);
        let out = &outs[0].1;
        for l in 1..7 {
            assert_eq!(f32::from_bits(out[l]), l as f32 * 2.0 + 1.0);
            // The tag is the lane number, as in a new runner: not the 40 + l left behind.
            assert_eq!(out[2 * w + l], l as u32 * 100 + 5);
        }
        let other = parse_shader(&PS.replace("fadd r4, r3, r0", "fsub r4, r3, r0")).unwrap();
        assert!(
            StageProgram::from_prepared(&other, &prepared, table(&other), Limits::default())
                .is_err()
        );
    }

    /// Words past the stage's inputs or outputs are refused before anything runs.
    #[test]
    fn io_words_are_validated() {
        let bad = PS.replace("output 3, r6", "output 4, r6");
        let s = parse_shader(&bad).unwrap();
        let e = validate(&s).unwrap_err().to_string();
        assert!(e.contains("output word 4 of 4"), "{e}");
        let bad = PS.replace("slot 4\n", "slot 7\n");
        let e = validate(&parse_shader(&bad).unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("input element 1 (TEXCOORD0)"), "{e}");
        let bad = PS.replace("shader pixel", "shader vertex");
        let e = validate(&parse_shader(&bad).unwrap())
            .unwrap_err()
            .to_string();
        assert!(e.contains("eval outside a pixel shader"), "{e}");
    }

    /// `demote` (DXIL's discard) keeps the lanes running as helper lanes and reports their
    /// pixels killed, as `discard` does.
    #[test]
    fn demoted_lanes_are_killed_and_helpers() {
        let text = "shader pixel\nregs 4\nconst r0 = 0x0\nio_words in 4 out 4\ninput \"X\" 0 sv none reg 0 rows 1 mask x float interp linear slot 0\noutput \"SV_Target\" 0 sv target reg 0 rows 1 mask x uint interp undefined slot 0\nblock0:\n    input r1, 0\n    fcmp gt, r2, r1, r0\n    demote r2\n    is_helper r3\n    output 0, r3\n    return\n";
        let s = parse_shader(text).unwrap();
        let table = DescriptorTable::new(&s, &[], &[], &[]).unwrap();
        let p = StageProgram::new(&s, table, Profile::default(), Limits::default(), 4).unwrap();
        let mut r = StageRunner::new(&p);
        for l in 0..4 {
            r.inputs_mut()[l] = (l as f32).to_bits();
        }
        let run = r.run(0b1111, 0, None).unwrap();
        assert_eq!(run.killed, 0b1110);
        assert_eq!(r.outputs()[..4], [0, u32::MAX, u32::MAX, u32::MAX]);
    }

    /// Which registers a run may leave holding the last batch's values
    /// (`fresh_registers`): only those the entry block writes, for every lane, before
    /// anything reads them and before a `discard`.
    #[test]
    fn fresh_registers_are_written_before_any_read() {
        let text = "shader pixel\nregs 8\nconst r0 = 0x0\nio_words in 4 out 4\ninput \"X\" 0 sv none reg 0 rows 1 mask x float interp linear slot 0\noutput \"SV_Target\" 0 sv target reg 0 rows 1 mask xyzw uint interp undefined slot 0\nblock0:\n    input r1, 0\n    iadd r2, r2, r1\n    iadd r3, r1, r1\n    fcmp lt, r4, r1, r0\n    discard r4\n    fcmp gt, r5, r1, r0\n    branch r5, block1, block2\nblock1:\n    mov r6, r1\n    jump block2\nblock2:\n    output 0, r2\n    output 1, r3\n    output 2, r5\n    output 3, r6\n    return\n";
        let s = parse_shader(text).unwrap();
        assert_eq!(
            fresh_registers(&s),
            [false, true, false, true, true, false, false, true],
            "r0 a constant, r2 read by its writer, r5 after the discard, r6 in block 1, r7 never read"
        );
        // Batches one after another in one runner: each reads r2 and r6 as zero where
        // it has not written them, whatever the batch before left there.
        let table = DescriptorTable::new(&s, &[], &[], &[]).unwrap();
        let p = StageProgram::new(&s, table, Profile::default(), Limits::default(), 4).unwrap();
        let mut r = StageRunner::new(&p);
        for x in [5.0f32, 0.0, 2.0, 0.0] {
            for l in 0..4 {
                r.inputs_mut()[l] = x.to_bits();
            }
            r.run(0b1111, 0, None).unwrap();
            let out = r.outputs();
            let r6 = if x > 0.0 { x.to_bits() } else { 0 };
            for l in 0..4 {
                assert_eq!(out[l], x.to_bits(), "r2 = 0 + x for x = {x}");
                assert_eq!(out[12 + l], r6, "r6 for x = {x}");
            }
        }
    }

    /// A budget error in a pixel wave names the pixel.
    #[test]
    fn errors_name_the_pixel() {
        let text = "shader pixel\nregs 2\nio_words in 0 out 4\noutput \"SV_Target\" 0 sv target reg 0 rows 1 mask x float interp undefined slot 0\nblock0:\n    jump block1\nblock1:\n    jump block1\n";
        let s = parse_shader(text).unwrap();
        let table = DescriptorTable::new(&s, &[], &[], &[]).unwrap();
        let limits = Limits {
            max_lane_instructions: 50,
            ..Limits::default()
        };
        let p = StageProgram::new(&s, table, Profile::default(), limits, 4).unwrap();
        let mut r = StageRunner::new(&p);
        r.set_ids(2, [17, 9, 0]);
        let e = r.run(0b0100, 0, None).unwrap_err().to_string();
        assert!(
            e.starts_with("pixel (17, 9), sample 0: the budget of 50"),
            "{e}"
        );
    }
}
