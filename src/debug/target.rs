//! What a session debugs: the program (as the normal run runs it, and unoptimised for the
//! observed group or wave), its listing, the resources it is bound to, the dispatch or
//! draw, and how to run it again from the same starting contents.
//!
//! A draw target ([`from_work`]) holds both programs; a session on a vertex lane
//! debugs the vertex program ([`Target::for_lane`]), one on a pixel lane the pixel
//! program. Its writable contents include the render targets and the depth buffer.

use crate::exec::{ExecError, WriteSink};
use crate::ir::{Shader, Stage};
use crate::lower::{self, LoadOptions};
pub use crate::pipeline::ms::{MeshPrimOrigin, MeshWriters};
pub use crate::pipeline::rays::{NestedHit, NestedKind, NestedRun};
pub use crate::pipeline::trace::InputOrigins;
use crate::pipeline::{
    Bindings, DispatchWork, DrawError, Hooks, NestedObserver, NestedTrace, ObserveWave, Plan,
    ProgramWaveSize, TraceAt, TraceWave, Traced, Work,
};
pub use crate::pipeline::{LanePlace, LaneSelect};
use crate::resources::{Counter, Descriptor, Memory};
use std::sync::Arc;
use std::sync::Mutex;

use super::DebugError;
use super::record::{Record, Recorder};
use super::source::SourceView;

/// A program to debug, with its source view.
#[derive(Debug, Clone)]
pub struct Program {
    /// The shader as a normal run runs it (clean-up passes applied).
    pub shader: Shader,
    /// The same program lowered without clean-up, which the observed group runs: each
    /// instruction maps to one source instruction and each source value to its registers.
    pub debug_shader: Shader,
    /// The listing and names.
    pub view: SourceView,
}

impl Program {
    /// Decodes and lowers a container (DXBC or DXIL) for debugging.
    pub fn from_container(bytes: &[u8], entry: Option<String>) -> Result<Program, DebugError> {
        let opts = LoadOptions {
            entry,
            no_opt: false,
            debugging: true,
        };
        let normal = lower::load(bytes, &opts).map_err(|e| DebugError::Load(e.to_string()))?;
        let raw = lower::load(
            bytes,
            &LoadOptions {
                no_opt: true,
                ..opts
            },
        )
        .map_err(|e| DebugError::Load(e.to_string()))?;
        let view = if raw.dxil {
            let (text, lines, module) = crate::dxil::listing::disassemble_with_lines(bytes)
                .map_err(|e| DebugError::Load(e.to_string()))?;
            // An ILDB part that does not decode leaves the listing: said as a note.
            let (ildb, note) = match crate::dxil::listing::debug_module(bytes) {
                Some(Ok(m)) => (Some(m), None),
                Some(Err(e)) => (None, Some(e.to_string())),
                None => (None, None),
            };
            let mut v = SourceView::dxil(&text, &lines, &module, &raw.shader, ildb.as_ref());
            v.use_source_info(bytes);
            if let Some(e) = note
                && v.hlsl.is_none()
            {
                v.hlsl_note = Some(format!(
                    "the ILDB debug module does not decode ({e}): stepping by the listing"
                ));
            }
            v
        } else {
            let p = crate::dxbc::Program::from_bytes(bytes)
                .map_err(|e| DebugError::Load(e.to_string()))?;
            let mut v = SourceView::dxbc(&p, &raw.shader);
            v.use_program_database(bytes, &p, &raw.shader);
            v
        };
        Ok(Program {
            shader: normal.shader,
            debug_shader: raw.shader,
            view,
        })
    }

    /// Lowers a decoded DXIL module for debugging (one a caller decoded or built
    /// itself): as [`Program::from_container`], with the module's own text as the
    /// listing (no container, so no comment block of parts above it). `debug_module`
    /// plays the container's `ILDB` part: the debug module whose debug info is used when
    /// `module` carries none.
    pub fn from_dxil_module(
        module: &crate::dxil::llvm::Module,
        debug_module: Option<&crate::dxil::llvm::Module>,
        entry: Option<String>,
    ) -> Result<Program, DebugError> {
        let opts = LoadOptions {
            entry,
            no_opt: true,
            debugging: true,
        };
        let raw = lower::dxil::lower_module(module, &opts)
            .map_err(|e| DebugError::Load(e.to_string()))?;
        let mut shader = raw.clone();
        crate::ir::opt::optimize(&mut shader);
        let mut w = crate::dxil::listing::asm::AsmWriter::new(module);
        w.dxc_comments = true;
        let (text, lines) = w.print_module_with_lines();
        let view = SourceView::dxil(&text, &lines, module, &raw, debug_module);
        Ok(Program {
            shader,
            debug_shader: raw,
            view,
        })
    }

    /// A program written in the IR's text form (already validated): it is its own
    /// source and runs as written.
    pub fn from_ir(shader: Shader) -> Program {
        let view = SourceView::ir(&shader);
        Program {
            debug_shader: shader.clone(),
            shader,
            view,
        }
    }
}

/// The writable contents of a dispatch's resources before it ran, to run it again from
/// the same start (UAV memories and counters; read-only resources never change).
#[derive(Debug, Clone, Default)]
struct Snapshot {
    memories: Vec<(Memory, Vec<u8>)>,
    counters: Vec<(Counter, u32)>,
}

impl Snapshot {
    fn take(b: &Bindings) -> Snapshot {
        let mut s = Snapshot::default();
        for d in b.ranges.iter().flatten().chain(&b.resource_heap) {
            let (m, c) = match d {
                Descriptor::Buffer { view, counter } => (Some(&view.memory), counter.as_ref()),
                Descriptor::Texture(v) => (Some(v.texture.memory()), None),
                _ => (None, None),
            };
            if let Some(m) = m
                && !s.memories.iter().any(|(x, _)| x == m)
            {
                s.memories.push((m.clone(), m.to_bytes()));
            }
            if let Some(c) = c {
                s.counters.push((c.clone(), c.get()));
            }
        }
        s
    }

    fn add_memory(&mut self, m: &Memory) {
        if !self.memories.iter().any(|(x, _)| x == m) {
            self.memories.push((m.clone(), m.to_bytes()));
        }
    }

    fn restore(&self) {
        for (m, bytes) in &self.memories {
            m.write_bytes(0, bytes);
        }
        for (c, v) in &self.counters {
            c.set(*v);
        }
    }

    /// Every writable memory's bytes now, in a stable order.
    fn contents(&self) -> Vec<Vec<u8>> {
        self.memories.iter().map(|(m, _)| m.to_bytes()).collect()
    }
}

/// What one run of the target with an observed wave gave.
pub struct Run {
    /// The observed wave's record.
    pub record: Record,
    /// The engine error the run ended with, if any.
    pub fault: Option<ExecError>,
    /// The writable resources' contents after the run.
    pub outputs: Vec<Vec<u8>>,
    /// Draws: what the traced wave did (its lanes and output words).
    pub traced: Option<Traced>,
    /// Draws: the render targets' and depth buffer's values at the lane's pixel and
    /// sample after the draw, one line each.
    pub pixel: Vec<String>,
    /// A pixel lane: the vertex, geometry or domain lane that made its primitive's
    /// leading vertex (`TraceWave::take_origins`).
    pub origin: Option<LaneSelect>,
    /// A pixel lane of a mesh draw: the mesh group and place its primitive came from,
    /// and the threads that wrote it (`None` where they could not be found).
    pub mesh_origin: Option<(MeshPrimOrigin, Option<MeshWriters>)>,
    /// A geometry, hull or domain lane: the lanes that made its input vertices,
    /// control points and patch constants (`TraceWave::take_input_origins`).
    pub input_origins: Option<InputOrigins>,
    /// A ray-generation lane: every program its wave's `TraceRay` and `CallShader` ran,
    /// in the order they started.
    pub nested: Vec<NestedRun>,
    /// A ray-generation lane: the steps of every program the lane itself invoked (and
    /// those invoked in turn), one record each, in the order they started.
    pub nested_records: Vec<NestedRecord>,
}

/// The steps of one program that the observed ray-generation lane invoked: its
/// program's run as a wave of one lane.
#[derive(Debug, Clone)]
pub struct NestedRecord {
    /// Its run (index into [`Run::nested`]).
    pub run: usize,
    /// A run invoked by another nested run: the steps that run had recorded when this
    /// one started, so the invoking step (`None`: invoked by the ray-generation lane).
    pub parent_step: Option<u32>,
    /// Its steps.
    pub record: Record,
    /// Whether it ran to its end (an error stops the launch inside it).
    pub finished: bool,
}

/// The debugger's side of `pipeline::NestedTrace`: a recorder per nested run of the
/// observed lane, sharing the record limit.
struct NestedRecorders<'s> {
    lane: u32,
    programs: &'s [Program],
    limit_bytes: usize,
    /// Finished records.
    done: Mutex<Vec<NestedRecord>>,
    /// Per run: the steps it has recorded so far (where the runs it invokes start).
    steps: Mutex<Vec<u32>>,
    /// Bytes the finished records hold.
    used: Mutex<usize>,
}

/// A recorder of one nested run.
struct NestedRec<'a, 's> {
    run: usize,
    parent_step: Option<u32>,
    rec: Option<Recorder<'s>>,
    owner: &'a NestedRecorders<'s>,
}

impl crate::exec::WaveObserver for NestedRec<'_, '_> {
    fn start(&mut self, wave: &dyn crate::exec::WaveRead) {
        if let Some(r) = &mut self.rec {
            r.start(wave);
        }
    }
    fn step(
        &mut self,
        at: crate::exec::At,
        active: u128,
        helper: u128,
        wave: &dyn crate::exec::WaveRead,
        writes: &[crate::exec::MemWrite],
    ) {
        if let Some(r) = &mut self.rec {
            r.step(at, active, helper, wave, writes);
        }
        let mut p = self.owner.steps.lock().unwrap_or_else(|p| p.into_inner());
        if let Some(e) = p.get_mut(self.run) {
            *e = e.saturating_add(1);
        }
    }
    fn others(&mut self, writes: &[crate::exec::MemWrite]) {
        if let Some(r) = &mut self.rec {
            r.others(writes);
        }
    }
}

impl NestedObserver for NestedRec<'_, '_> {
    fn done(self: Box<Self>, ok: bool) {
        let this = *self;
        let Some(rec) = this.rec else { return };
        let record = rec.finish();
        let mut used = this.owner.used.lock().unwrap_or_else(|p| p.into_inner());
        *used = used.saturating_add(record.size_bytes());
        this.owner
            .done
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(NestedRecord {
                run: this.run,
                parent_step: this.parent_step,
                record,
                finished: ok,
            });
    }
}

impl NestedTrace for NestedRecorders<'_> {
    fn lane(&self) -> u32 {
        self.lane
    }
    fn shader(&self, program: usize) -> Option<&Shader> {
        self.programs.get(program).map(|p| &p.debug_shader)
    }
    fn begin(
        &self,
        run: usize,
        parent: Option<usize>,
        program: &Shader,
    ) -> Box<dyn NestedObserver + '_> {
        let mut p = self.steps.lock().unwrap_or_else(|p| p.into_inner());
        if p.len() <= run {
            p.resize(run + 1, 0);
        }
        let parent_step = parent.and_then(|k| p.get(k).copied());
        drop(p);
        let used = *self.used.lock().unwrap_or_else(|p| p.into_inner());
        // The lane's nested records share the session's record limit.
        let limit = self.limit_bytes.saturating_sub(used);
        // The recorder reads the program it records; the pipeline passes the one
        // `shader` gave, found again here for the lifetime the record needs.
        let shader = self
            .programs
            .iter()
            .map(|p| &p.debug_shader)
            .find(|s| std::ptr::eq(*s, program));
        Box::new(NestedRec {
            run,
            parent_step,
            rec: shader.map(|s| Recorder::new(s, limit)),
            owner: self,
        })
    }
}

fn draw_fault(e: DrawError) -> ExecError {
    match e {
        DrawError::Exec(x) => x,
        other => ExecError::Dispatch(other.to_string()),
    }
}

/// The work to debug, its plan, and the program a session on one of its lanes steps
/// through.
#[derive(Debug, Clone)]
pub struct Target {
    /// The program the session debugs: a dispatch's program; a draw's pixel program (its
    /// vertex program on a vertex lane, [`Target::for_lane`]).
    pub program: Program,
    /// What that program's resources are bound to.
    pub bindings: Bindings,
    /// What runs.
    pub work: Arc<Work>,
    /// How it runs.
    pub plan: Plan,
    start: Arc<Snapshot>,
    /// A draw's two programs, for [`Target::for_lane`].
    stages: Option<Arc<DrawPrograms>>,
    /// A `DispatchRays`'s programs, reloaded for debugging, in the work's order
    /// (`RaysWork::programs`): the ray-generation program and those its rays invoke.
    rays: Option<Arc<Vec<Program>>>,
}

/// A draw's programs, reloaded for debugging.
#[derive(Debug)]
struct DrawPrograms {
    vs: Program,
    ps: Option<Program>,
    gs: Option<Program>,
    hs: Option<Program>,
    ds: Option<Program>,
    /// A mesh draw's amplification program (its mesh program is `vs`).
    amplification: Option<Program>,
}

impl Target {
    /// A dispatch target; the bindings' current contents are the start of every run.
    pub fn new(
        program: Program,
        bindings: Bindings,
        groups: [u32; 3],
        plan: Plan,
    ) -> Result<Target, DebugError> {
        if program.shader.stage != Stage::Compute {
            return Err(DebugError::Lane(format!(
                "a {} program: the debugger runs compute dispatches (draws need the graphics pipeline)",
                program.shader.stage
            )));
        }
        let start = Snapshot::take(&bindings);
        let work = Work::Dispatch(DispatchWork {
            shader: program.shader.clone(),
            bindings: bindings.clone(),
            groups,
        });
        Ok(Target {
            program,
            bindings,
            work: Arc::new(work),
            plan,
            start: Arc::new(start),
            stages: None,
            rays: None,
        })
    }

    /// A `DispatchRays` target: its programs, reloaded for debugging, in the work's
    /// order (`RaysWork::programs`).
    pub fn ray_programs(&self) -> Option<&[Program]> {
        self.rays.as_deref().map(Vec::as_slice)
    }

    /// A `DispatchRays` target's program `i` (index into `RaysWork::programs`) as a
    /// target of its own — its program and bindings, the same work — for a session over
    /// the steps of one of its runs (read from a record, never run again).
    pub(crate) fn ray_program_target(&self, i: usize) -> Option<Target> {
        let program = self.rays.as_ref()?.get(i)?.clone();
        let Work::Rays(r) = &*self.work else {
            return None;
        };
        let bindings = r.programs.get(i)?.1.clone();
        Some(Target {
            program,
            bindings,
            work: self.work.clone(),
            plan: self.plan.clone(),
            start: self.start.clone(),
            stages: None,
            // Its own calls' programs are named through the same list.
            rays: self.rays.clone(),
        })
    }

    /// Whether the target is a draw.
    pub fn is_draw(&self) -> bool {
        matches!(*self.work, Work::Draw(_))
    }

    /// A dispatch's thread groups (zeros for a draw).
    pub fn groups(&self) -> [u32; 3] {
        match &*self.work {
            Work::Dispatch(d) => d.groups,
            Work::Draw(_) | Work::List(_) | Work::Rays(_) => [0; 3],
        }
    }

    /// The target as a session on `sel` debugs it: for a vertex lane of a draw, the
    /// vertex program and its bindings; otherwise the target itself. An error when the
    /// kind of lane does not fit the kind of job.
    pub fn for_lane(&self, sel: LaneSelect) -> Result<Target, DebugError> {
        let compute = matches!(sel, LaneSelect::Thread(_) | LaneSelect::GroupThread { .. });
        let ray = matches!(sel, LaneSelect::Ray(_));
        match (&*self.work, ray) {
            (Work::Rays(_), true) => return Ok(self.clone()),
            (Work::Rays(_), false) => {
                return Err(DebugError::Lane(
                    "a ray-tracing job (DispatchRays) has ray-generation lanes, not threads, pixels or vertices: give --ray x,y[,z]".into(),
                ));
            }
            (_, true) => {
                return Err(DebugError::Lane(format!(
                    "--ray: the job is a {}, not a DispatchRays: --ray selects a ray-generation lane of a [rays] job or a dispatch_rays event",
                    if self.is_draw() {
                        "draw"
                    } else {
                        "compute dispatch"
                    }
                )));
            }
            _ => {}
        }
        let (Some(st), Work::Draw(d)) = (&self.stages, &*self.work) else {
            if !compute {
                return Err(DebugError::Lane(
                    "a compute job has threads, not pixels or vertices (nor geometry, hull or domain lanes): give --thread x,y,z or --group x,y,z --group-thread x,y,z".into(),
                ));
            }
            return Ok(self.clone());
        };
        if compute {
            return Err(DebugError::Lane(
                "a draw job has pixels and vertices, not threads: give --pixel x,y [--sample n], --vertex n [--instance i], or a geometry, hull or domain lane (--gs-primitive, --hs-patch, --ds-patch)".into(),
            ));
        }
        if d.view.is_none()
            && let Some(run) = views_run(d)
            && run.len() > 1
        {
            return Err(DebugError::Lane(format!(
                "the draw runs {} views (view instancing: views {}), one pass each: name the view whose pass holds the lane with --view N",
                run.len(),
                list_text(&run)
            )));
        }
        let mut t = self.clone();
        let stage = |p: &Option<Program>,
                     b: Option<&(std::sync::Arc<crate::ir::Shader>, Bindings)>,
                     flag: &str,
                     what: &str| {
            match (p, b) {
                (Some(p), Some((_, b))) => Ok((p.clone(), b.clone())),
                _ => Err(DebugError::Lane(format!(
                    "{flag}: the draw has no {what} program"
                ))),
            }
        };
        let mesh = d.mesh.as_ref();
        (t.program, t.bindings) = match sel {
            LaneSelect::Vertex { .. } if mesh.is_some() => {
                return Err(DebugError::Lane(
                    "--vertex: a mesh draw has no vertex stage: give a mesh lane (--ms-group x,y,z --ms-thread x,y,z) or an amplification lane (--as-group x,y,z --as-thread x,y,z)".into(),
                ));
            }
            LaneSelect::Mesh { .. } if mesh.is_none() => {
                return Err(DebugError::Lane(
                    "--ms-group: the draw has no mesh program (it draws with a vertex program: debug a vertex with --vertex n)".into(),
                ));
            }
            LaneSelect::Mesh { .. } => (st.vs.clone(), d.vs_bindings.clone()),
            LaneSelect::Amplification { .. } => match (
                &st.amplification,
                mesh.and_then(|m| m.amplification.as_ref()),
            ) {
                (Some(p), Some((_, b))) => (p.clone(), b.clone()),
                _ => {
                    return Err(DebugError::Lane(
                        "--as-group: the draw has no amplification program".into(),
                    ));
                }
            },
            LaneSelect::Vertex { .. } => (st.vs.clone(), d.vs_bindings.clone()),
            LaneSelect::Pixel { .. } => {
                let Some(ps) = &st.ps else {
                    return Err(DebugError::Lane(
                        "the draw has no pixel program: debug a vertex with --vertex n".into(),
                    ));
                };
                (ps.clone(), d.ps_bindings.clone())
            }
            LaneSelect::Geometry { .. } => {
                stage(&st.gs, d.gs.as_ref(), "--gs-primitive", "geometry")?
            }
            LaneSelect::Hull { .. } => stage(&st.hs, d.hs.as_ref(), "--hs-patch", "hull")?,
            LaneSelect::Domain { .. } => stage(&st.ds, d.ds.as_ref(), "--ds-patch", "domain")?,
            LaneSelect::Thread(_) | LaneSelect::GroupThread { .. } | LaneSelect::Ray(_) => {
                (t.program.clone(), t.bindings.clone())
            }
        };
        // A DXIL hull program's patch-constant lane runs its patch-constant function
        // (lowered after the entry function), whose values the view names from then on:
        // `%N` there is that function's N-th value, not the entry function's.
        if let LaneSelect::Hull {
            control_point: None,
            ..
        } = sel
        {
            let functions = t.program.view.dxil_functions();
            if functions.len() > 1
                && let Some(&pc) = functions.last()
            {
                t.program.view.focus_dxil_function(pc);
            }
        }
        Ok(t)
    }

    /// The target watching one view of a view-instanced draw (`--view N`): its lanes
    /// are looked for, traced and heard in that view's pass only, reading `SV_ViewID` =
    /// `view`; the other views' passes still run, so the outputs are the draw's
    /// (`pipeline::DrawWork::view`). An error naming the view when the target is not a
    /// draw or the draw does not run that view (past the count, or masked off).
    pub fn with_view(&self, view: u32) -> Result<Target, DebugError> {
        let Work::Draw(d) = &*self.work else {
            return Err(DebugError::Lane(format!(
                "--view {view}: only a draw has views (view instancing)"
            )));
        };
        let state = d.state();
        let run = views_run(d).unwrap_or_else(|| vec![0]);
        if !run.contains(&view) {
            let why = match &state.view_instancing {
                None => "the draw has no view instancing, so its one view is view 0".to_string(),
                Some(vi) if (view as usize) < vi.locations.len() => format!(
                    "the view instance mask turns it off (the draw runs view(s) {})",
                    list_text(&run)
                ),
                Some(vi) => format!(
                    "the draw declares {} view(s) (0 to {})",
                    vi.locations.len(),
                    vi.locations.len().saturating_sub(1)
                ),
            };
            return Err(DebugError::Lane(format!("--view {view}: {why}")));
        }
        drop(state);
        let mut w = (**d).clone();
        w.view = Some(view);
        let mut t = self.clone();
        t.work = Arc::new(Work::Draw(Box::new(w)));
        Ok(t)
    }

    /// The view a view-instanced draw's session watches (`with_view`); `None`
    /// otherwise.
    pub fn view(&self) -> Option<u32> {
        match &*self.work {
            Work::Draw(d) => d.view,
            _ => None,
        }
    }

    /// Width, height and samples of the draw's targets (0s for a dispatch).
    pub fn target_size(&self) -> (u32, u32, u32) {
        match &*self.work {
            Work::Draw(d) => d.target_size(),
            Work::Dispatch(_) | Work::List(_) | Work::Rays(_) => (0, 0, 0),
        }
    }

    /// The targets' values at pixel (x, y), sample `s`, one line each.
    fn pixel_values(&self, x: u32, y: u32, s: u32) -> Vec<String> {
        let Work::Draw(d) = &*self.work else {
            return Vec::new();
        };
        let f = &d.fixed;
        let mut out = Vec::new();
        let mut one = |name: String, t: &crate::resources::Texture| {
            let fmt = t.desc().format;
            let n = fmt.bytes_per_texel() as usize;
            let Some(a) = t.texel_addr(0, 0, [x, y, 0], s) else {
                return;
            };
            let mut b = vec![0u8; n];
            t.memory().read_bytes(a, &mut b);
            let hex: Vec<String> = b.iter().map(|v| format!("{v:02x}")).collect();
            let v = fmt.decode_f32(&b);
            let vals: Vec<String> = v.iter().map(|&c| super::format::float_text(c)).collect();
            out.push(format!(
                "{name} ({fmt}) after the draw: {} (bytes {})",
                vals.join(", "),
                hex.join(" ")
            ));
        };
        for (i, rt) in f.render_targets().iter().enumerate() {
            if let Some(rt) = rt {
                one(format!("render target {i}"), &rt.texture);
            }
        }
        if let Some(ds) = f.depth_stencil_view() {
            one("depth-stencil".into(), &ds.texture);
        }
        out
    }

    /// Lanes per wave of a run of the debugged program.
    pub fn wave_size(&self) -> Result<u32, DebugError> {
        self.plan
            .wave_size_of(&self.program.shader)
            .map(ProgramWaveSize::get)
            .map_err(|e| DebugError::Lane(e.to_string()))
    }

    /// Where the selected lane runs (the pipeline's lookup, `Work::locate`); an error
    /// naming the work's extent when it does not exist. Finding a pixel lane draws once;
    /// the starting contents are restored after it.
    pub fn place(&self, sel: LaneSelect) -> Result<LanePlace, DebugError> {
        // Finding a pixel lane draws once; finding a mesh lane may run its amplification
        // group.
        let pixel = matches!(sel, LaneSelect::Pixel { .. } | LaneSelect::Mesh { .. });
        if pixel {
            self.start.restore();
        }
        let r = self.work.locate(&self.plan, sel);
        if pixel {
            self.start.restore();
        }
        r.map_err(|e| DebugError::Lane(e.0))
    }

    /// Runs the whole work from the start, observing the wave at `place` (keeping at
    /// most `limit_bytes` of record) and reporting every write to `writes`. Draws: the
    /// traced wave is `place.draw`, and `writes` hears the writes of every other vertex
    /// and pixel wave (`DrawOptions::memory`: on one worker thread, in the order they
    /// happen).
    pub fn run(
        &self,
        place: &LanePlace,
        limit_bytes: usize,
        writes: Option<&dyn WriteSink>,
    ) -> Run {
        self.start.restore();
        let mut rec = Recorder::new(&self.program.debug_shader, limit_bytes);
        if let Some(at) = place.draw {
            // A ray-generation lane: the programs it invokes are recorded too.
            let recorders = match (at, &self.rays) {
                (TraceAt::Ray { .. }, Some(programs)) => Some(NestedRecorders {
                    lane: u32::try_from(place.lane).unwrap_or(u32::MAX),
                    programs: programs.as_slice(),
                    limit_bytes,
                    done: Mutex::new(Vec::new()),
                    steps: Mutex::new(Vec::new()),
                    used: Mutex::new(0),
                }),
                _ => None,
            };
            let (r, traced, origins, mesh_origins, input_origins, nested) = {
                let mut hook = TraceWave::new(at, &self.program.debug_shader, &mut rec);
                if let Some(n) = &recorders {
                    hook = hook.with_nested(n);
                }
                let r = self.work.run(
                    &self.plan,
                    Hooks {
                        trace: Some(&hook),
                        writes,
                        ..Hooks::default()
                    },
                );
                (
                    r,
                    hook.take(),
                    hook.take_origins(),
                    hook.take_mesh_origins(),
                    hook.take_input_origins(),
                    hook.take_rays().unwrap_or_default(),
                )
            };
            let mesh_origin = match (&traced, mesh_origins) {
                (Some(t), Some(o)) => t
                    .pixels
                    .get(place.lane)
                    .and_then(|l| o.get(l.prim as usize).copied().flatten()),
                _ => None,
            };
            let origin = match (&traced, origins) {
                (Some(t), Some(o)) => t
                    .pixels
                    .get(place.lane)
                    .and_then(|l| o.get(l.prim as usize).copied().flatten()),
                _ => None,
            };
            let pixel = match (&traced, at) {
                (Some(t), TraceAt::Pixel { .. }) => t
                    .pixels
                    .get(place.lane)
                    .map(|l| {
                        // Every sample the lane stands for (its one sample when the
                        // program runs per sample).
                        let n = self.target_size().2;
                        (0..n.min(32))
                            .filter(|s| l.coverage >> s & 1 == 1)
                            .flat_map(|s| {
                                self.pixel_values(l.x, l.y, s).into_iter().map(move |t| {
                                    if n > 1 { format!("sample {s}: {t}") } else { t }
                                })
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
                _ => Vec::new(),
            };
            let outputs = self.start.contents();
            // Found by running the primitive's mesh group again: after the draw's
            // contents are read.
            let mesh_origin = mesh_origin.map(|o| (o, self.mesh_writers(&o)));
            let mut nested_records = recorders
                .map(|n| n.done.into_inner().unwrap_or_else(|p| p.into_inner()))
                .unwrap_or_default();
            nested_records.sort_by_key(|r| r.run);
            return Run {
                record: rec.finish(),
                fault: r.err().map(draw_fault),
                outputs,
                traced,
                pixel,
                origin,
                mesh_origin,
                input_origins,
                nested,
                nested_records,
            };
        }
        let result = self.work.run(
            &self.plan,
            Hooks {
                writes,
                observe: Some(ObserveWave {
                    group: place.group,
                    wave: place.wave,
                    shader: &self.program.debug_shader,
                    observer: &mut rec,
                }),
                ..Hooks::default()
            },
        );
        Run {
            record: rec.finish(),
            fault: result.err().map(draw_fault),
            outputs: self.start.contents(),
            traced: None,
            pixel: Vec::new(),
            origin: None,
            mesh_origin: None,
            input_origins: None,
            nested: Vec::new(),
            nested_records: Vec::new(),
        }
    }

    /// The threads of a mesh draw's group that wrote primitive `o` (`ms::writers`, with
    /// the mesh program lowered for debugging); `None` when the target is not a mesh
    /// draw or the group fails when run again.
    fn mesh_writers(&self, o: &MeshPrimOrigin) -> Option<MeshWriters> {
        let (Work::Draw(d), Some(st)) = (&*self.work, &self.stages) else {
            return None;
        };
        let state = d.state();
        let m = state.mesh?;
        crate::pipeline::ms::writers(&m, &self.plan, o, &st.vs.debug_shader).ok()
    }

    /// Runs the work from the start under `plan` with `hooks` (a lookup that watches the
    /// run: `debug::provenance`). The resources keep what the run left until the next
    /// run restores the start.
    pub fn run_with(&self, plan: &Plan, hooks: Hooks<'_>) -> Result<(), DrawError> {
        self.start.restore();
        self.work.run(plan, hooks).map(|_| ())
    }

    /// The lane selection naming pixel lane `lane` for sample `sample`
    /// (`Work::pixel_select`: its primitive's rank among those covering the sample). The
    /// draw it makes starts from, and leaves, the starting contents.
    pub fn pixel_select(
        &self,
        lane: &crate::pipeline::PixelLane,
        sample: u32,
    ) -> Result<LaneSelect, DebugError> {
        self.start.restore();
        let r = self.work.pixel_select(&self.plan, lane, sample);
        self.start.restore();
        r.map_err(|e| DebugError::Lane(e.0))
    }

    /// Runs the work from the start as a normal run does (nothing observed) and returns
    /// the writable resources' contents.
    pub fn run_normal(&self) -> Result<Vec<Vec<u8>>, ExecError> {
        self.start.restore();
        self.work
            .run(&self.plan, Hooks::default())
            .map_err(draw_fault)?;
        Ok(self.start.contents())
    }
}

/// Reads a program file again, for debugging, through the read gate (`job::paths`).
fn read_program(path: &str) -> Result<Vec<u8>, DebugError> {
    crate::job::paths::read_input(
        std::path::Path::new(path),
        crate::job::limits::MAX_PROGRAM_BYTES,
        "the largest program a job may load",
    )
    .map_err(DebugError::Load)
}

/// Where a program a target debugs came from, to load it again unoptimised.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ProgramFile {
    /// The file.
    pub path: String,
    /// Whether it is the IR's text form (which runs as written: it is its own source).
    pub is_ir: bool,
    /// The entry point to load.
    pub entry: Option<String>,
}

/// The target of a unit of work and its plan, with its programs reloaded for debugging
/// from `programs`, the files in the work's order (a dispatch's program; a draw's vertex
/// or mesh program, then its pixel, geometry, hull, domain and amplification programs
/// when it has them). Its writable contents are the UAVs, and a draw's
/// render targets and depth buffer.
pub fn from_work(work: Work, plan: Plan, programs: &[ProgramFile]) -> Result<Target, DebugError> {
    let load = |s: &Shader, f: Option<&ProgramFile>| -> Result<Program, DebugError> {
        match f {
            Some(f) if !f.is_ir => {
                let bytes = read_program(&f.path)?;
                Program::from_container(&bytes, f.entry.clone())
            }
            _ => Ok(Program::from_ir(s.clone())),
        }
    };
    match work {
        Work::List(_) => Err(DebugError::Lane(
            "a command list: choose the event to debug (`from_job_event`)".into(),
        )),
        Work::Rays(r) => {
            // The files come in the work's order, one per program.
            let loaded = r
                .programs
                .iter()
                .enumerate()
                .map(|(i, (s, _))| load(s, programs.get(i)))
                .collect::<Result<Vec<Program>, DebugError>>()?;
            let (Some(program), Some((_, bindings))) =
                (loaded.get(r.raygen).cloned(), r.programs.get(r.raygen))
            else {
                return Err(DebugError::Lane(
                    "the ray-tracing pipeline has no ray-generation program".into(),
                ));
            };
            let bindings = bindings.clone();
            // Every program of the pipeline may write what it binds.
            let mut start = Snapshot::default();
            for (_, b) in &r.programs {
                let more = Snapshot::take(b);
                for (m, bytes) in more.memories {
                    if !start.memories.iter().any(|(x, _)| *x == m) {
                        start.memories.push((m, bytes));
                    }
                }
                start.counters.extend(more.counters);
            }
            Ok(Target {
                program,
                bindings,
                work: Arc::new(Work::Rays(r)),
                plan,
                start: Arc::new(start),
                stages: None,
                rays: Some(Arc::new(loaded)),
            })
        }
        Work::Dispatch(d) => {
            let program = load(&d.shader, programs.first())?;
            Target::new(program, d.bindings, d.groups, plan)
        }
        Work::Draw(d) => {
            // The files come in the work's order: vertex, pixel, geometry, hull, domain
            // (each when the draw has it).
            let mut next = 0usize;
            let mut take = |s: &Shader| {
                let f = programs.get(next);
                next += 1;
                load(s, f)
            };
            let vs = take(&d.vs)?;
            let ps = d.ps.as_deref().map(&mut take).transpose()?;
            let gs = d.gs.as_ref().map(|x| take(&x.0)).transpose()?;
            let hs = d.hs.as_ref().map(|x| take(&x.0)).transpose()?;
            let ds = d.ds.as_ref().map(|x| take(&x.0)).transpose()?;
            let amp = d.mesh.as_ref().and_then(|m| m.amplification.as_ref());
            let amplification = amp.map(|x| take(&x.0)).transpose()?;
            let mut start = Snapshot::take(&d.vs_bindings);
            let mut others: Vec<&Bindings> = vec![&d.ps_bindings];
            others.extend([&d.gs, &d.hs, &d.ds].into_iter().flatten().map(|x| &x.1));
            others.extend(amp.map(|x| &x.1));
            for b in others {
                let more = Snapshot::take(b);
                for (m, b) in more.memories {
                    if !start.memories.iter().any(|(x, _)| *x == m) {
                        start.memories.push((m, b));
                    }
                }
                start.counters.extend(more.counters);
            }
            // Stream output writes its buffers and filled sizes: each run starts from
            // their contents before the draw.
            if let Some(so) = d.fixed.stream_output() {
                for v in so.buffers.iter().flatten() {
                    start.add_memory(&v.data);
                    if let Some((m, _)) = &v.filled_size {
                        start.add_memory(m);
                    }
                }
            }
            for rt in d.fixed.render_targets().iter().flatten() {
                start.add_memory(rt.texture.memory());
            }
            if let Some(ds) = d.fixed.depth_stencil_view() {
                start.add_memory(ds.texture.memory());
            }
            let (program, bindings) = match &ps {
                Some(ps) => (ps.clone(), d.ps_bindings.clone()),
                None => (vs.clone(), d.vs_bindings.clone()),
            };
            Ok(Target {
                program,
                bindings,
                work: Arc::new(Work::Draw(d)),
                plan,
                start: Arc::new(start),
                stages: Some(Arc::new(DrawPrograms {
                    vs,
                    ps,
                    gs,
                    hs,
                    ds,
                    amplification,
                })),
                rays: None,
            })
        }
    }
}

/// The target of event `event` (`[[command]] #event`, 1-based, as RenderDoc numbers
/// events) of a prepared command-list job: the commands before it are run first, so
/// the event's lanes see every write they made, and the debugger's runs start from that
/// state; a `dispatch_rays` whose shader tables are in buffers is then made from them.
/// A job of one dispatch or draw takes no event (`None`).
pub fn from_job_event(
    p: &crate::job::Prepared,
    event: Option<usize>,
) -> Result<Target, DebugError> {
    let Work::List(commands) = &p.work else {
        return match event {
            None => from_job(p),
            Some(_) => Err(DebugError::Lane(
                "--event selects a command of a [[command]] list; this job runs one dispatch or draw".into(),
            )),
        };
    };
    let Some(n) = event else {
        return Err(DebugError::Lane(format!(
            "the job is a list of {} commands: choose the dispatch or draw to debug with --event N (1 to {})",
            commands.len(),
            commands.len()
        )));
    };
    let Some(cmd) = n.checked_sub(1).and_then(|i| commands.get(i)) else {
        return Err(DebugError::Lane(format!(
            "--event {n}: the list has events 1 to {}",
            commands.len()
        )));
    };
    // A `draw_auto` draw's vertex count is the filled size the commands before it left,
    // so it is known only after they run (below).
    let draw_auto = match cmd.inner() {
        crate::pipeline::Command::DrawAuto(x) => Some(x),
        _ => None,
    };
    let no_program = || {
        DebugError::Lane(format!(
            "--event {n} is a {} command, which runs no program: choose a dispatch, a draw or a dispatch_rays",
            cmd.name()
        ))
    };
    // A `dispatch_rays` whose shader tables are in buffers is made from the tables as
    // the commands before it leave them (below).
    let late = cmd.late();
    if cmd.work().is_none() && draw_auto.is_none() && late.is_none() {
        return Err(no_program());
    }
    // The programs are listed in command order, one per command that runs one.
    let before: usize = commands[..n - 1]
        .iter()
        .map(crate::pipeline::Command::program_count)
        .sum();
    let files: Vec<ProgramFile> = p
        .programs
        .iter()
        .skip(before)
        .map(|i| ProgramFile {
            path: i.path.clone(),
            is_ir: i.container == "IR",
            entry: Some(i.entry.clone()),
        })
        .collect();
    crate::pipeline::run_list(&commands[..n - 1], &p.plan, None)
        .map_err(|e| DebugError::Lane(format!("the commands before event {n} fail: {e}")))?;
    // D3D12 skips a predicated draw or dispatch whole (`SetPredication`): there is no
    // lane to open, and running it anyway would show work the list never did.
    if cmd.predicated_off() {
        return Err(DebugError::Lane(format!(
            "--event {n}: the predicate set before it skips this {} (set_predication), so it runs no lane",
            cmd.name()
        )));
    }
    let work = match (draw_auto, late, cmd.work()) {
        (Some(x), _, _) => Work::Draw(Box::new(x.resolved())),
        (None, Some(l), _) => {
            let made = l.make().map_err(|e| {
                DebugError::Lane(format!(
                    "--event {n} ({}): its shader tables, as the commands before it left them: {e}",
                    cmd.name()
                ))
            })?;
            // Each program the launch runs is reloaded from its listed file (a program
            // used by several records runs once per record).
            let files: Vec<ProgramFile> = made
                .sources
                .iter()
                .map(|&i| files.get(i).cloned())
                .collect::<Option<_>>()
                .unwrap_or_default();
            return from_work(made.work, p.plan.clone(), &files);
        }
        (None, None, Some(w)) => w.clone(),
        (None, None, None) => return Err(no_program()),
    };
    from_work(work, p.plan.clone(), &files)
}

/// The target of a prepared job (`job::prepare`, a dispatch or a draw): its work and
/// plan, and its programs reloaded from the files it names.
pub fn from_job(p: &crate::job::Prepared) -> Result<Target, DebugError> {
    let files: Vec<ProgramFile> = p
        .programs
        .iter()
        .map(|i| ProgramFile {
            path: i.path.clone(),
            is_ir: i.container == "IR",
            entry: Some(i.entry.clone()),
        })
        .collect();
    from_work(p.work.clone(), p.plan.clone(), &files)
}

/// `0, 2, 3`: a list of views for messages.
fn list_text(v: &[u32]) -> String {
    if v.is_empty() {
        return "none".into();
    }
    v.iter().map(u32::to_string).collect::<Vec<_>>().join(", ")
}

/// The views a view-instanced draw runs, in order (`None`: no view instancing).
fn views_run(d: &crate::pipeline::DrawWork) -> Option<Vec<u32>> {
    d.state()
        .view_instancing
        .as_ref()
        .map(|vi| vi.views().map(|(v, _)| v).collect())
}
