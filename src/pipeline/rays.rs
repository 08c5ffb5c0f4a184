//! `DispatchRays`: the DXR ray-tracing pipeline over prepared ray-tracing programs, its
//! shader table as lists of programs, and the recursion of `TraceRay` and `CallShader`.
//!
//! Owns: one ray-generation lane per index of the launch in D3D's order (x fastest, then
//! y, then z), in waves of the ray-generation program's wave size; what each lane's
//! `TraceRay` runs — the traversal (`raytracing::Tracer`) with the hit group's any-hit
//! and intersection programs, then its closest-hit program or the miss program — chosen
//! by the shader-table rule (DXR spec "Addressing calculations within shader tables"):
//! hit group `RayContributionToHitGroupIndex + MultiplierForGeometryContributionToHitGroupIndex
//! × GeometryIndex() + InstanceContributionToHitGroupIndex`, miss `MissShaderIndex`,
//! callable `ShaderIndex`; the payload, parameter and attributes copied in and out;
//! every system value the invoked programs read; recursion limits; and the work charged.
//! Does not own: traversal and its rules (`raytracing`), running a wave (`exec`), the
//! job file (`job`).
//!
//! # How nested programs run
//!
//! Every program a `TraceRay` or `CallShader` invokes runs at once, inside the calling
//! lane's instruction, as a wave of its own with one live lane, and returns before the
//! caller's next lane is served. Lanes of a wave are served in lane order. The results
//! are therefore deterministic and independent of wave sizes, and a lane's nested
//! programs see exactly the payload its own program wrote.
//!
//! # Workers
//!
//! The ray-generation waves are handed out in launch order to the plan's worker threads
//! (`Plan::threads`; 0 = all cores), capped at the cores and at the waves, as a compute
//! dispatch hands out its groups (`pipeline::dispatch`). A wave and every program its
//! lanes invoke run on the thread that took it, so each ray's any-hit, intersection,
//! closest-hit, miss and callable programs run in the same order for any worker count,
//! and so do its traversals. The outputs are therefore the same for any worker count,
//! except where programs of different launch indices race on one address: atomics whose
//! returned value or final order a program depends on, or plain writes of two rays to
//! one place (as for a compute dispatch's groups, D3D12 orders neither). When waves
//! fail, the error of the lowest-numbered failing wave is returned (the waves below it
//! still finish). A traced launch (the debugger's), and one whose memory writes are
//! heard (`capture`, `debug`'s write attribution: the last writer is the serial
//! order's), run on the calling thread.
//!
//! # Choices where D3D leaves things undefined
//!
//! - **Recursion.** `TraceRay` from a program at depth `max_recursion_depth` (ray
//!   generation is depth 0) is an error naming the lane and the depth; D3D12 says the
//!   result is undefined (DXR spec "Ray recursion limit"). `CallShader` does not count
//!   towards it (the spec limits `TraceRay` only); callable programs may nest
//!   [`MAX_CALL_DEPTH`] deep, past which it is an error too.
//! - **Indices past a table.** A hit group, miss or callable index past its list is an
//!   error naming the lane and the index (DXR spec "Out of bounds shader table
//!   indexing": undefined behaviour).
//! - **A hit group without a closest-hit or any-hit program** runs nothing there
//!   (`D3D12_HIT_GROUP_DESC`: each program is optional).
//! - **Payload sizes**: a program invoked with a payload (or callable parameter) of
//!   another size than its own is an error naming the lane, the program and both sizes
//!   (DXR spec "Ray payload": the shaders take the structure `TraceRay` passed; another
//!   is undefined). The job file checks the shader configuration's maxima.

use std::cell::{Cell, RefCell};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::dispatch::Bindings;
use super::plan::Plan;
use super::trace::{Hook, NestedTrace, TraceAt, TraceWave, Traced};
use crate::exec::jit::Engine;
use crate::exec::{
    DescriptorTable, ExecError, HitObject, HitObjectKind, RayContext, RunBudget, StageProgram,
    StageRunner, WriteSink,
};
use crate::ir::{RayHitOp, RaySystemValue, Shader, TRACE_RAY_ARGS};
use crate::raytracing::{
    AnyHitDecision, Hit, HitReporter, PrimitiveKind, Ray, RayFlags, ReportHitOutcome, TopLevel,
    TraceRayDesc, Tracer,
};

/// The deepest `TraceRay` recursion a pipeline may declare
/// (`D3D12_RAYTRACING_MAX_DECLARABLE_TRACE_RECURSION_DEPTH`).
pub const MAX_RECURSION_DEPTH: u32 = 31;

/// How deep callable programs may nest (dxlane's bound; D3D sizes the stack instead).
pub const MAX_CALL_DEPTH: u32 = 16;

/// A hit group: indices into [`RayPipeline::programs`] (DXR spec "Hit groups").
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HitGroup {
    /// Its name (errors).
    pub name: String,
    /// The closest-hit program.
    pub closest_hit: Option<usize>,
    /// The any-hit program.
    pub any_hit: Option<usize>,
    /// The intersection program (procedural hit groups).
    pub intersection: Option<usize>,
}

/// One record of a shader table as a launch reads it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum TableRecord<T> {
    /// A record whose identifier names a program (or a hit group).
    Shader(T),
    /// A NULL (all-zero) identifier: no program runs for it (DXR spec "Shader
    /// identifier").
    Null,
    /// A record that cannot run (its identifier names nothing in the pipeline, or its
    /// local root arguments do not resolve): an error, naming the record, when an index
    /// reaches it. Only the records a launch reaches need to be valid (DXR spec "Shader
    /// tables").
    Invalid(String),
}

/// A shader table: its records in index order. With a stride of 0 every index reads
/// record 0 (DXR spec "Shader record stride"), so `zero_stride` tables hold one record.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ShaderTable<T> {
    /// The records.
    pub records: Vec<TableRecord<T>>,
    /// Whether every index reads record 0.
    pub zero_stride: bool,
}

impl<T> ShaderTable<T> {
    /// The record `index` selects ("Addressing calculations within shader tables"):
    /// `None` past the table.
    pub fn get(&self, index: u64) -> Option<&TableRecord<T>> {
        let i = if self.zero_stride { 0 } else { index };
        usize::try_from(i).ok().and_then(|i| self.records.get(i))
    }

    /// How many records the table holds (messages).
    pub fn len(&self) -> usize {
        self.records.len()
    }

    /// Whether the table has no record.
    pub fn is_empty(&self) -> bool {
        self.records.is_empty()
    }

    /// The same table with each record's program (or hit group) mapped by `f`.
    pub fn map<U>(&self, mut f: impl FnMut(&T) -> U) -> ShaderTable<U> {
        ShaderTable {
            records: self
                .records
                .iter()
                .map(|r| match r {
                    TableRecord::Shader(t) => TableRecord::Shader(f(t)),
                    TableRecord::Null => TableRecord::Null,
                    TableRecord::Invalid(m) => TableRecord::Invalid(m.clone()),
                })
                .collect(),
            zero_stride: self.zero_stride,
        }
    }
}

impl<T> From<Vec<T>> for ShaderTable<T> {
    /// A table listing one program (or hit group) per record.
    fn from(v: Vec<T>) -> Self {
        ShaderTable {
            records: v.into_iter().map(TableRecord::Shader).collect(),
            zero_stride: false,
        }
    }
}

/// The local root arguments of the miss and hit-group tables' records, as the bytes
/// that follow each record's shader identifier ("Shader table memory initialization"),
/// in record order (a zero-stride table has one record): what
/// `HitObject::LoadLocalRootTableConstant` reads. A record missing here has none.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct RecordArguments {
    /// The miss table's records.
    pub miss: Vec<Vec<u8>>,
    /// The hit-group table's records.
    pub hit_groups: Vec<Vec<u8>>,
}

/// A ray-tracing pipeline state and its shader table, in the order of the table's
/// records: programs by index into `programs`.
pub struct RayPipeline<'a> {
    /// Every program, prepared.
    pub programs: Vec<StageProgram<'a>>,
    /// The ray-generation program.
    pub raygen: usize,
    /// The miss table.
    pub miss: ShaderTable<usize>,
    /// The hit-group table.
    pub hit_groups: ShaderTable<HitGroup>,
    /// The callable table.
    pub callable: ShaderTable<usize>,
    /// `D3D12_RAYTRACING_PIPELINE_CONFIG::MaxTraceRecursionDepth`.
    pub max_recursion_depth: u32,
    /// `D3D12_RAYTRACING_PIPELINE_CONFIG1::Flags`: `SKIP_TRIANGLES` (0x100) and
    /// `SKIP_PROCEDURAL_PRIMITIVES` (0x200) act as the ray flags of the same values on
    /// every `TraceRay`, without showing in `RayFlags()` (DXR spec
    /// "D3D12_RAYTRACING_PIPELINE_FLAGS"); other bits change nothing.
    pub pipeline_flags: u32,
    /// The miss and hit-group records' local root arguments.
    pub arguments: RecordArguments,
}

/// The hit group a NULL hit-group record stands for: no programs.
static NULL_HIT_GROUP: HitGroup = HitGroup {
    name: String::new(),
    closest_hit: None,
    any_hit: None,
    intersection: None,
};

/// The program of a miss or callable table's record `index` (`None` for a NULL
/// record); past the table or an invalid record is an error that `what` (the lane and
/// index) begins.
fn table_program(
    table: &ShaderTable<usize>,
    name: &str,
    index: u64,
    what: impl Fn() -> String,
) -> Result<Option<usize>, ExecError> {
    match table.get(index) {
        Some(TableRecord::Shader(p)) => Ok(Some(*p)),
        Some(TableRecord::Null) => Ok(None),
        Some(TableRecord::Invalid(m)) => Err(ExecError::Dispatch(format!("{}: {m}", what()))),
        None => Err(ExecError::Dispatch(format!(
            "{} is past the {name} table of {}",
            what(),
            table.len()
        ))),
    }
}

/// What a `DispatchRays` did.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct RaysReport {
    /// Ray-generation lanes.
    pub lanes: u64,
    /// Lane-instructions, nested programs and traversal included.
    pub lane_instructions: u64,
    /// `TraceRay` calls.
    pub rays: u64,
    /// Nodes, instances and primitives the traversals visited.
    pub traversal: u64,
    /// Worker threads the ray-generation waves ran on.
    pub threads: usize,
    /// Worker threads asked for (0 asks for all cores, and is counted as them).
    pub threads_asked: usize,
}

/// The most rays one `DispatchRays` launches: `Width × Height × Depth` at most 2^30
/// (`ID3D12GraphicsCommandList4::DispatchRays`; more is undefined, so refused).
pub const MAX_DISPATCH_RAYS: u64 = 1 << 30;

/// A `DispatchRays` as a unit of work (`pipeline::Work::Rays`): every program with its
/// bindings, the shader table as lists of indices into them, the recursion limit and the
/// launch size. [`RaysWork::run`] prepares the programs under a plan and runs
/// [`dispatch_rays`].
#[derive(Debug, Clone)]
pub struct RaysWork {
    /// Every program of the pipeline, with what its resources are bound to.
    pub programs: Vec<(Shader, Bindings)>,
    /// The ray-generation program (index into `programs`).
    pub raygen: usize,
    /// The miss table.
    pub miss: ShaderTable<usize>,
    /// The hit-group table.
    pub hit_groups: ShaderTable<HitGroup>,
    /// The callable table.
    pub callable: ShaderTable<usize>,
    /// `D3D12_RAYTRACING_PIPELINE_CONFIG::MaxTraceRecursionDepth`.
    pub max_recursion_depth: u32,
    /// `D3D12_RAYTRACING_PIPELINE_CONFIG1::Flags` (see [`RayPipeline::pipeline_flags`]).
    pub pipeline_flags: u32,
    /// The miss and hit-group records' local root arguments.
    pub arguments: RecordArguments,
    /// `Width`, `Height`, `Depth`.
    pub dims: [u32; 3],
}

/// What a [`RaysWork`] run did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct RaysWorkReport {
    /// The counts.
    pub rays: RaysReport,
    /// The ray-generation program's wave size.
    pub wave_size: u32,
    /// The WARP profile's name.
    pub profile: String,
    /// The engine.
    pub engine: Engine,
}

impl RaysWork {
    /// Prepares every program under `plan` (its wave size, profile, limits and engine)
    /// and runs the launch, charging `budget` (`None`: a budget of the plan's limits).
    pub fn run(
        &self,
        plan: &Plan,
        budget: Option<&RunBudget>,
    ) -> Result<RaysWorkReport, ExecError> {
        self.run_traced(plan, budget, None, None)
    }

    /// [`RaysWork::run`], with the ray-generation wave `trace` names (`TraceAt::Ray`)
    /// running `trace`'s program — the ray-generation program lowered for debugging —
    /// through exec's traced loop; the hook also hears every program that wave's
    /// `TraceRay` and `CallShader` ran (`TraceWave::take_rays`). Every other wave runs
    /// as in [`RaysWork::run`], so the launch leaves the same memory. `writes` hears every
    /// memory write of the launch (nested programs' included) but the traced wave's own
    /// ray-generation lanes', which its hook hears.
    pub fn run_traced(
        &self,
        plan: &Plan,
        budget: Option<&RunBudget>,
        trace: Option<&TraceWave<'_>>,
        writes: Option<&dyn WriteSink>,
    ) -> Result<RaysWorkReport, ExecError> {
        let own;
        let budget = match budget {
            Some(b) => b,
            None => {
                own = RunBudget::new(&plan.limits);
                &own
            }
        };
        let mut programs = Vec::with_capacity(self.programs.len());
        let mut wave_size = 0;
        for (i, (shader, b)) in self.programs.iter().enumerate() {
            let w = plan.wave_size_of(shader)?.get();
            if i == self.raygen {
                wave_size = w;
            }
            let table = DescriptorTable::new(shader, &b.ranges, &b.resource_heap, &b.sampler_heap)?;
            programs.push(
                StageProgram::new(shader, table, plan.profile.clone(), plan.limits, w)?
                    .with_engine(plan.engine),
            );
        }
        let p = RayPipeline {
            programs,
            raygen: self.raygen,
            miss: self.miss.clone(),
            hit_groups: self.hit_groups.clone(),
            callable: self.callable.clone(),
            max_recursion_depth: self.max_recursion_depth,
            pipeline_flags: self.pipeline_flags,
            arguments: self.arguments.clone(),
        };
        let traced = match trace {
            Some(t) => {
                let TraceAt::Ray { wave, .. } = t.at else {
                    return Err(ExecError::Dispatch(
                        "a DispatchRays traces a ray-generation wave, not a draw's".into(),
                    ));
                };
                let (shader, b) = self
                    .programs
                    .get(self.raygen)
                    .ok_or_else(|| ExecError::Dispatch("no ray-generation program".into()))?;
                let debug = t.shader;
                if debug.stage != shader.stage || debug.ray != shader.ray {
                    return Err(ExecError::Dispatch(
                        "the traced program is not the pipeline's ray-generation program".into(),
                    ));
                }
                let table =
                    DescriptorTable::new(debug, &b.ranges, &b.resource_heap, &b.sampler_heap)?;
                let program =
                    StageProgram::new(debug, table, plan.profile.clone(), plan.limits, wave_size)?;
                let hook: &dyn Hook = t;
                // The programs one lane invokes, lowered for debugging, each under its
                // own bindings and wave size.
                let nested = match hook.nested() {
                    Some(nt) => {
                        let mut progs = Vec::with_capacity(self.programs.len());
                        for (i, (shader, b)) in self.programs.iter().enumerate() {
                            let p = match nt.shader(i) {
                                Some(d) if d.stage == shader.stage && d.ray == shader.ray => {
                                    let table = DescriptorTable::new(
                                        d,
                                        &b.ranges,
                                        &b.resource_heap,
                                        &b.sampler_heap,
                                    )?;
                                    let w = plan.wave_size_of(shader)?.get();
                                    Some(StageProgram::new(
                                        d,
                                        table,
                                        plan.profile.clone(),
                                        plan.limits,
                                        w,
                                    )?)
                                }
                                _ => None,
                            };
                            progs.push(p);
                        }
                        Some(NestedTracing {
                            nt,
                            programs: progs,
                        })
                    }
                    None => None,
                };
                Some(RayTrace {
                    hook,
                    program,
                    wave,
                    nested,
                })
            }
            None => None,
        };
        let rays =
            dispatch_rays_with(&p, self.dims, budget, traced.as_ref(), writes, plan.threads)?;
        Ok(RaysWorkReport {
            rays,
            wave_size,
            profile: plan.profile.name.clone(),
            engine: plan.engine,
        })
    }
}

/// The launch index (`DispatchRaysIndex()`) of the `linear`-th ray of a launch of
/// `dims`, in D3D's order (x fastest, then y, then z).
pub fn launch_index(linear: u64, dims: [u32; 3]) -> [u32; 3] {
    let (w, h) = (u64::from(dims[0].max(1)), u64::from(dims[1].max(1)));
    let c = |v: u64| u32::try_from(v).unwrap_or(u32::MAX);
    [c(linear % w), c((linear / w) % h), c(linear / (w * h))]
}

/// The debugger's traced ray-generation wave: its program (lowered for debugging) and
/// the hook that hears it.
struct RayTrace<'a> {
    hook: &'a (dyn Hook + 'a),
    program: StageProgram<'a>,
    wave: u64,
    nested: Option<NestedTracing<'a>>,
}

/// The programs one lane of the traced wave invokes, traced: the hook, and each program
/// lowered for debugging (`None`: runs untraced).
struct NestedTracing<'a> {
    nt: &'a dyn NestedTrace,
    programs: Vec<Option<StageProgram<'a>>>,
}

/// What kind of program a nested invocation ran.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NestedKind {
    /// The hit group's closest-hit program.
    ClosestHit,
    /// A miss program.
    Miss,
    /// The hit group's any-hit program, for a candidate.
    AnyHit,
    /// The hit group's intersection program, for a procedural candidate.
    Intersection,
    /// A callable program.
    Callable,
}

impl std::fmt::Display for NestedKind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            NestedKind::ClosestHit => "closest-hit",
            NestedKind::Miss => "miss",
            NestedKind::AnyHit => "any-hit",
            NestedKind::Intersection => "intersection",
            NestedKind::Callable => "callable",
        })
    }
}

/// A ray-tracing stage in words, as the debugger and reports name a program's kind
/// (`closest-hit`, `ray-generation`); other stages by their own name.
pub fn stage_words(stage: crate::ir::Stage) -> String {
    stage.words().into()
}

/// The hit a nested program ran for (its system values' source).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct NestedHit {
    /// `InstanceIndex()`.
    pub instance_index: u32,
    /// `InstanceID()`.
    pub instance_id: u32,
    /// `PrimitiveIndex()`.
    pub primitive_index: u32,
    /// `GeometryIndex()`.
    pub geometry_index: u32,
    /// `RayTCurrent()` when the program started.
    pub t: f32,
    /// `HitKind()`.
    pub hit_kind: u32,
}

/// One program that a traced ray-generation lane's `TraceRay` or `CallShader` ran, in
/// the order they started (a program's own nested calls follow it).
#[derive(Debug, Clone, PartialEq)]
pub struct NestedRun {
    /// The ray-generation lane, by its lane in the traced wave.
    pub lane: u32,
    /// Which of that lane's own `TraceRay` / `CallShader` executions (0: its first) it
    /// ran under.
    pub call: u32,
    /// 1: invoked by the ray-generation program; 2: by a program of depth 1; … (the
    /// `TraceRay` depth plus the `CallShader` nesting).
    pub depth: u32,
    /// Its kind.
    pub kind: NestedKind,
    /// Its program (index into [`RaysWork::programs`]).
    pub program: usize,
    /// The hit group (closest-hit, any-hit, intersection), the miss record or the
    /// callable record: the table index.
    pub record: usize,
    /// The hit (closest-hit, any-hit, intersection).
    pub hit: Option<NestedHit>,
    /// The payload (or callable parameter) words it started with, and left.
    pub payload_in: Vec<u32>,
    /// See `payload_in`.
    pub payload_out: Vec<u32>,
    /// The attribute words it read (closest-hit, any-hit).
    pub attributes: Vec<u32>,
    /// Its lane-instructions (its own nested programs included).
    pub lane_instructions: u64,
    /// The run (index into the wave's list) whose `TraceRay` or `CallShader` invoked
    /// it; `None`: the ray-generation lane's.
    pub parent: Option<usize>,
    /// A traced run (the observed lane's, `NestedTrace`): every system value its
    /// program may read (DXR spec "System value intrinsics"), each component, as the
    /// program started; empty otherwise.
    pub system: Vec<(RaySystemValue, Vec<u32>)>,
}

/// Where a traced wave's nested programs are written down.
struct RayLog<'a> {
    /// The wave's first lane's tag (tags are launch-linear indices).
    first_tag: u32,
    runs: RefCell<Vec<NestedRun>>,
    /// Per lane of the wave: its own calls so far.
    calls: RefCell<Vec<u32>>,
    /// Whose programs are traced, and how.
    trace: Option<&'a NestedTracing<'a>>,
}

/// Runs `DispatchRays(width, height, depth)` on the calling thread. A dimension of 0
/// launches no ray (D3D12); more than [`MAX_DISPATCH_RAYS`] rays in all is an error.
pub fn dispatch_rays(
    p: &RayPipeline<'_>,
    dims: [u32; 3],
    budget: &RunBudget,
) -> Result<RaysReport, ExecError> {
    dispatch_rays_with(p, dims, budget, None, None, 1)
}

/// [`dispatch_rays`] with its ray-generation waves over `threads` worker threads (0: all
/// cores; see the module doc's "Workers").
pub fn dispatch_rays_on(
    p: &RayPipeline<'_>,
    dims: [u32; 3],
    budget: &RunBudget,
    threads: usize,
) -> Result<RaysReport, ExecError> {
    dispatch_rays_with(p, dims, budget, None, None, threads)
}

/// The lane mask of a wave of `n` live lanes.
fn live_lanes(n: u64) -> u128 {
    if n >= 128 {
        u128::MAX
    } else {
        (1u128 << n) - 1
    }
}

/// The frame of a ray-generation wave (depth 0, no ray, no hit).
fn launch_frame<'r>(
    p: &'r RayPipeline<'r>,
    dims: [u32; 3],
    counters: &'r Counters,
    log: Option<&'r RayLog<'r>>,
    writes: Option<&'r dyn WriteSink>,
) -> Frame<'r, 'r> {
    Frame {
        p,
        dims,
        counters,
        depth: 0,
        calls: 0,
        index: None,
        ray: None,
        hit: None,
        kind: Kind::Plain,
        log,
        call: 0,
        writes,
        program: Cell::new(p.raygen),
        lane: 0,
        run: Cell::new(None),
        traced: Cell::new(false),
    }
}

/// Runs the untraced ray-generation wave of launch-linear lanes `first .. first + n`.
fn run_wave(
    p: &RayPipeline<'_>,
    dims: [u32; 3],
    counters: &Counters,
    runner: &mut StageRunner<'_>,
    first: u64,
    n: u64,
    writes: Option<&dyn WriteSink>,
) -> Result<crate::exec::WaveRun, ExecError> {
    let frame = launch_frame(p, dims, counters, None, writes);
    for l in 0..n {
        runner.set_tag(l as usize, u32::try_from(first + l).unwrap_or(u32::MAX));
    }
    runner.run_rays_writes(live_lanes(n), &frame, writes)
}

fn dispatch_rays_with(
    p: &RayPipeline<'_>,
    dims: [u32; 3],
    budget: &RunBudget,
    trace: Option<&RayTrace<'_>>,
    writes: Option<&dyn WriteSink>,
    threads: usize,
) -> Result<RaysReport, ExecError> {
    if p.max_recursion_depth > MAX_RECURSION_DEPTH {
        return Err(ExecError::Dispatch(format!(
            "max_recursion_depth {} is past D3D12's {MAX_RECURSION_DEPTH}",
            p.max_recursion_depth
        )));
    }
    let raygen = p
        .programs
        .get(p.raygen)
        .ok_or_else(|| ExecError::Dispatch("no ray-generation program".into()))?;
    let total = u64::from(dims[0]) * u64::from(dims[1]) * u64::from(dims[2]);
    if total > MAX_DISPATCH_RAYS {
        return Err(ExecError::Dispatch(format!(
            "DispatchRays({}, {}, {}) launches {total} rays; D3D12 allows at most 2^30",
            dims[0], dims[1], dims[2]
        )));
    }
    let w = raygen.wave_size() as u64;
    let waves = total.div_ceil(w.max(1));
    // The debugger's hook hears one thread, and a write sink's "last writer" is the
    // serial order's: a traced launch, or one whose writes are heard, runs on the
    // calling thread (as a draw with a write sink runs on one worker).
    let cores = super::plan::cores();
    let requested = if threads == 0 { cores } else { threads };
    let workers = if trace.is_some() || writes.is_some() {
        1
    } else {
        requested
            .min(cores)
            .min(usize::try_from(waves).unwrap_or(usize::MAX))
            .max(1)
    };
    let mut report = if workers > 1 {
        dispatch_rays_parallel(p, raygen, dims, budget, writes, total, workers)?
    } else {
        dispatch_rays_serial(p, raygen, dims, budget, trace, writes, total)?
    };
    report.lanes = total;
    report.threads_asked = requested;
    Ok(report)
}

/// The ray-generation waves one after another on the calling thread (and the traced
/// wave, if any, through the debugger's hook).
fn dispatch_rays_serial(
    p: &RayPipeline<'_>,
    raygen: &StageProgram<'_>,
    dims: [u32; 3],
    budget: &RunBudget,
    trace: Option<&RayTrace<'_>>,
    writes: Option<&dyn WriteSink>,
    total: u64,
) -> Result<RaysReport, ExecError> {
    let mut report = RaysReport {
        threads: 1,
        ..RaysReport::default()
    };
    let counters = Counters::default();
    let mut runner = StageRunner::new(raygen);
    let mut debug = trace.map(|t| StageRunner::new(&t.program));
    let w = runner.wave_size() as u64;
    if let Some(d) = &debug
        && d.wave_size() as u64 != w
    {
        return Err(ExecError::Dispatch(
            "the traced program runs another wave size than the ray-generation program".into(),
        ));
    }
    let mut next = 0u64;
    while next < total {
        let n = (total - next).min(w);
        let traced = match (trace, debug.as_mut()) {
            (Some(t), Some(d)) if next / w == t.wave => Some((t, d)),
            _ => None,
        };
        let run = match traced {
            Some((t, d)) => {
                let log = RayLog {
                    first_tag: u32::try_from(next).unwrap_or(u32::MAX),
                    runs: RefCell::new(Vec::new()),
                    calls: RefCell::new(vec![0; n as usize]),
                    trace: t.nested.as_ref(),
                };
                let frame = launch_frame(p, dims, &counters, Some(&log), writes);
                for l in 0..n {
                    d.set_tag(l as usize, u32::try_from(next + l).unwrap_or(u32::MAX));
                }
                let lanes = live_lanes(n);
                let mut out = None;
                t.hook.observe(&mut |o| {
                    out = Some(d.run_rays_traced(lanes, &frame, None, o));
                });
                let run = match out {
                    Some(r) => r,
                    None => d.run_rays_writes(lanes, &frame, writes),
                };
                t.hook.set(Traced {
                    wave_size: w as u32,
                    ..Traced::default()
                });
                t.hook.set_rays(log.runs.into_inner());
                run?
            }
            None => run_wave(p, dims, &counters, &mut runner, next, n, writes)?,
        };
        report.lane_instructions = report
            .lane_instructions
            .saturating_add(run.lane_instructions);
        budget
            .charge(run.lane_instructions)
            .map_err(|s| budget.error(s, next, total, "ray-generation lanes"))?;
        next += n;
    }
    report.rays = counters.rays.get();
    report.traversal = counters.traversal.get();
    Ok(report)
}

/// The ray-generation waves handed out in launch order to `workers` threads, as a
/// compute dispatch hands out groups (`pipeline::dispatch`, "Workers"). Each wave and
/// everything its lanes invoke runs on one thread, so each ray's programs run in the
/// order they would on one; when waves fail, the lowest-numbered wave's error is
/// returned (waves below it still finish).
fn dispatch_rays_parallel(
    p: &RayPipeline<'_>,
    raygen: &StageProgram<'_>,
    dims: [u32; 3],
    budget: &RunBudget,
    writes: Option<&dyn WriteSink>,
    total: u64,
    workers: usize,
) -> Result<RaysReport, ExecError> {
    let w = raygen.wave_size() as u64;
    let waves = total.div_ceil(w);
    let next = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let stop = AtomicU64::new(u64::MAX);
    let errors: Mutex<Vec<(u64, ExecError)>> = Mutex::new(Vec::new());
    // A few waves per claim, so the workers do not pass the counter's cache line back
    // and forth once per wave.
    let claim = (waves / (workers as u64 * 64)).clamp(1, 8);
    let worker = || -> RaysReport {
        let mut runner = StageRunner::new(raygen);
        let counters = Counters::default();
        let mut mine = RaysReport::default();
        let mut claimed = 0..0;
        loop {
            let i = match claimed.next() {
                Some(i) => i,
                None => {
                    let first = next.fetch_add(claim, Ordering::Relaxed);
                    claimed = first + 1..(first + claim).min(waves);
                    first
                }
            };
            if i >= waves || i > stop.load(Ordering::Relaxed) {
                break;
            }
            let first = i * w;
            let n = (total - first).min(w);
            let fail = |e: ExecError| {
                stop.fetch_min(i, Ordering::Relaxed);
                errors
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push((i, e));
            };
            match run_wave(p, dims, &counters, &mut runner, first, n, writes) {
                Ok(run) => {
                    mine.lane_instructions =
                        mine.lane_instructions.saturating_add(run.lane_instructions);
                    if let Err(s) = budget.charge(run.lane_instructions) {
                        let finished = done.load(Ordering::Relaxed);
                        fail(budget.error(s, finished, total, "ray-generation lanes"));
                    }
                }
                Err(e) => fail(e),
            }
            done.fetch_add(n, Ordering::Relaxed);
        }
        mine.rays = counters.rays.get();
        mine.traversal = counters.traversal.get();
        mine
    };
    let mut started = workers;
    let all: Vec<RaysReport> = crossbeam::thread::scope(|s| {
        // A refused spawn (the system's thread limit) is not fatal: the workers that
        // did start, and this thread, share the waves.
        let mut handles = Vec::with_capacity(workers - 1);
        for _ in 1..workers {
            match s.builder().spawn(|_| worker()) {
                Ok(h) => handles.push(h),
                Err(_) => break,
            }
        }
        started = handles.len() + 1;
        let mut all = vec![worker()];
        all.extend(handles.into_iter().map(|h| h.join().unwrap_or_default()));
        all
    })
    .unwrap_or_default();
    let mut errors = errors.into_inner().unwrap_or_else(|p| p.into_inner());
    if let Some(pos) = (0..errors.len()).min_by_key(|&k| errors[k].0) {
        return Err(errors.swap_remove(pos).1);
    }
    let mut report = RaysReport {
        threads: started,
        ..RaysReport::default()
    };
    for r in all {
        report.lane_instructions = report.lane_instructions.saturating_add(r.lane_instructions);
        report.rays = report.rays.saturating_add(r.rays);
        report.traversal = report.traversal.saturating_add(r.traversal);
    }
    Ok(report)
}

#[derive(Default)]
struct Counters {
    rays: Cell<u64>,
    traversal: Cell<u64>,
}

/// The ray a nested program runs for.
#[derive(Clone, Copy)]
struct RayInfo {
    ray: Ray,
    flags: u32,
}

/// What a traversal found (see `Frame::traverse`).
struct Traversed {
    info: RayInfo,
    /// The traced wave's call number the traversal's programs ran under.
    call: u32,
    /// The committed hit, its attributes and its hit-group record.
    committed: Option<(Hit, Vec<u32>, u64)>,
    /// Whether the ray's flags let the closest-hit program run.
    run_closest_hit: bool,
    /// The miss record (`MissShaderIndex`'s low 16 bits).
    miss: u32,
    /// Lane-instructions of the any-hit and intersection programs, and the traversal.
    work: u64,
}

/// What `Frame::shade` runs: a hit's closest-hit program (with its attributes and
/// hit-group record) or a miss record's program.
enum Shade<'h> {
    Hit(&'h Hit, &'h [u32], u64),
    Miss(u32),
}

/// What is special about a frame's program.
enum Kind<'r> {
    /// Ray generation, closest-hit, miss, callable.
    Plain,
    /// An any-hit program: its decision.
    AnyHit(Cell<Option<RayHitOp>>),
    /// An intersection program: where its hits go.
    Intersection(RefCell<&'r mut dyn Reports>),
}

/// `ReportHit`'s target (a `HitReporter` with the attributes as words).
trait Reports {
    fn report(&mut self, t: f32, kind: u32, attributes: Vec<u32>) -> ReportHitOutcome;
    fn t_current(&self) -> f32;
}

impl Reports for HitReporter<'_, Vec<u32>> {
    fn report(&mut self, t: f32, kind: u32, attributes: Vec<u32>) -> ReportHitOutcome {
        self.report_hit(t, kind, attributes)
    }
    fn t_current(&self) -> f32 {
        HitReporter::t_current(self)
    }
}

/// One running program's view: the launch, its lane's ray and hit.
struct Frame<'p, 'r> {
    p: &'p RayPipeline<'p>,
    dims: [u32; 3],
    counters: &'r Counters,
    /// `TraceRay` depth of this program (ray generation 0).
    depth: u32,
    /// Callable nesting.
    calls: u32,
    /// The launch index of a nested program's single lane; ray generation lanes' is
    /// their tag.
    index: Option<[u32; 3]>,
    ray: Option<RayInfo>,
    hit: Option<Hit>,
    kind: Kind<'r>,
    /// The traced wave's log of nested programs (`None` elsewhere).
    log: Option<&'r RayLog<'r>>,
    /// Nested frames of a traced wave: the ray-generation lane's call they run under.
    call: u32,
    /// Who hears the memory writes (`RaysWork::run_traced`).
    writes: Option<&'r dyn WriteSink>,
    /// The program running in this frame (index into [`RayPipeline::programs`]), set
    /// before it runs: what its lanes' writes are reported as (`RayContext::program`).
    program: Cell<usize>,
    /// A nested frame of a traced wave: the ray-generation lane (in the wave) it runs
    /// for (a nested lane's own tag is 0).
    lane: u32,
    /// A nested frame of a traced wave: its run (index into the log), set before it runs.
    run: Cell<Option<usize>>,
    /// A nested frame: whether its program runs traced (`NestedTrace`).
    traced: Cell<bool>,
}

impl Frame<'_, '_> {
    /// A traced wave's lane `tag`: its next call's number (the ray-generation program's
    /// own `TraceRay` / `CallShader`), or the call a nested frame runs under.
    fn call_of(&self, tag: u32) -> u32 {
        let Some(log) = self.log else { return 0 };
        if self.index.is_some() {
            return self.call;
        }
        let l = tag.wrapping_sub(log.first_tag) as usize;
        let mut calls = log.calls.borrow_mut();
        match calls.get_mut(l) {
            Some(c) => {
                *c += 1;
                *c - 1
            }
            None => 0,
        }
    }

    /// The traced wave's lane that lane `tag` of this frame runs for.
    fn wave_lane(&self, tag: u32) -> u32 {
        match (self.index, self.log) {
            (None, Some(log)) => tag.wrapping_sub(log.first_tag),
            _ => self.lane,
        }
    }

    /// Whether the programs lane `tag` of this frame invokes run traced: the observed
    /// ray-generation lane's, and those its traced programs invoke.
    fn traces(&self, tag: u32) -> bool {
        match (self.index, self.log.and_then(|l| l.trace)) {
            (None, Some(t)) => self.wave_lane(tag) == t.nt.lane(),
            (Some(_), Some(_)) => self.traced.get(),
            _ => false,
        }
    }

    fn index_of(&self, tag: u32) -> [u32; 3] {
        self.index.unwrap_or_else(|| {
            let [w, h, _] = self.dims;
            let (w, h) = (w.max(1), h.max(1));
            [tag % w, (tag / w) % h, tag / (w * h)]
        })
    }

    fn lane(&self, tag: u32) -> String {
        let [x, y, z] = self.index_of(tag);
        format!("ray ({x}, {y}, {z})")
    }

    /// `TraceRay` (or `HitObject::TraceRay`, or `HitObject::Invoke`) from this frame would
    /// pass the pipeline's recursion limit: the error naming the lane and depth.
    fn check_depth(&self, tag: u32, what: &str) -> Result<u32, ExecError> {
        let depth = self.depth + 1;
        if depth > self.p.max_recursion_depth {
            return Err(ExecError::Dispatch(format!(
                "{}: {what} at recursion depth {depth} passes the pipeline's max_recursion_depth {} (D3D12 leaves this undefined; dxlane stops)",
                self.lane(tag),
                self.p.max_recursion_depth
            )));
        }
        Ok(depth)
    }

    /// Hit group record `i` for the hit `h` (DXR spec "Hit group table indexing"): its
    /// index as the debugger names it and the group; past the table or an invalid record
    /// is an error naming the lane, the instance and the geometry.
    fn hit_group(&self, tag: u32, i: u64, h: &Hit) -> Result<(usize, &HitGroup), ExecError> {
        // The record index the debugger names (an index past `usize` is past the table).
        let gi = usize::try_from(i).unwrap_or(usize::MAX);
        match self.p.hit_groups.get(i) {
            Some(TableRecord::Shader(g)) => Ok((gi, g)),
            // "Shader identifier": a NULL hit group runs none of its programs.
            Some(TableRecord::Null) => Ok((gi, &NULL_HIT_GROUP)),
            Some(TableRecord::Invalid(m)) => Err(ExecError::Dispatch(format!(
                "{}: hit group index {i} (instance {}, geometry {}): {m}",
                self.lane(tag),
                h.instance_index,
                h.geometry_index
            ))),
            None => Err(ExecError::Dispatch(format!(
                "{}: hit group index {i} is past the hit-group table of {} (instance {}, geometry {})",
                self.lane(tag),
                self.p.hit_groups.len(),
                h.instance_index,
                h.geometry_index
            ))),
        }
    }

    /// The traversal of `TraceRay` from lane `tag` with the dx.op's operands `args`: the
    /// any-hit and intersection programs run (reading and writing `payload`), and the
    /// committed hit (with its attributes and hit-group record) or the miss record is
    /// returned, without running a closest-hit or miss program.
    fn traverse(
        &self,
        tag: u32,
        accel: Option<std::sync::Arc<TopLevel>>,
        args: &[u32; TRACE_RAY_ARGS],
        payload: &mut [u32],
        what: &str,
    ) -> Result<Traversed, ExecError> {
        let depth = self.check_depth(tag, what)?;
        let fl = |k: usize| f32::from_bits(args[k]);
        let info = RayInfo {
            ray: Ray {
                origin: [fl(5), fl(6), fl(7)],
                t_min: fl(8),
                direction: [fl(9), fl(10), fl(11)],
                t_max: fl(12),
            },
            flags: args[0],
        };
        let desc = TraceRayDesc {
            flags: RayFlags(args[0]),
            pipeline_flags: RayFlags(self.p.pipeline_flags & 0x300),
            instance_inclusion_mask: args[1],
            ray: info.ray,
        };
        // DXR spec "TraceRay": only the bottom 4 bits of RayContributionToHitGroupIndex
        // and MultiplierForGeometryContributionToHitGroupIndex, and the bottom 16 bits
        // of MissShaderIndex, are used.
        let (contribution, multiplier, miss) = (args[2] & 0xf, args[3] & 0xf, args[4] & 0xffff);
        let call = self.call_of(tag);
        let group_of = |h: &Hit| -> Result<(usize, &HitGroup), ExecError> {
            // DXR spec "Hit group table indexing".
            let i = u64::from(contribution)
                + u64::from(multiplier) * u64::from(h.geometry_index)
                + u64::from(h.instance_contribution_to_hit_group_index);
            self.hit_group(tag, i, h)
        };
        let shared = RefCell::new(payload.to_vec());
        let error: RefCell<Option<ExecError>> = RefCell::new(None);
        let work = Cell::new(0u64);
        let mut any_hit = |h: &Hit, attrs: Option<&Vec<u32>>| -> AnyHitDecision {
            if error.borrow().is_some() {
                return AnyHitDecision::AcceptAndEndSearch;
            }
            let (gi, g) = match group_of(h) {
                Ok(g) => g,
                Err(e) => {
                    *error.borrow_mut() = Some(e);
                    return AnyHitDecision::AcceptAndEndSearch;
                }
            };
            let Some(prog) = g.any_hit else {
                return AnyHitDecision::Accept;
            };
            let a = attrs.cloned().unwrap_or_else(|| triangle_attributes(h));
            let child = self.child(
                tag,
                depth,
                self.calls,
                Some(info),
                Some(*h),
                Kind::AnyHit(Cell::new(None)),
                call,
            );
            let mut p = shared.borrow().clone();
            let r = self.run(
                tag,
                prog,
                &child,
                &mut p,
                Some(&a),
                (NestedKind::AnyHit, gi),
            );
            let decision = match &child.kind {
                Kind::AnyHit(d) => d.get(),
                _ => None,
            };
            match r {
                Ok(n) => {
                    work.set(work.get().saturating_add(n));
                    // DXR spec "Any hit shaders": payload changes stay, also when the
                    // hit is ignored.
                    *shared.borrow_mut() = p;
                    match decision {
                        Some(RayHitOp::Ignore) => AnyHitDecision::Ignore,
                        Some(RayHitOp::AcceptAndEnd) => AnyHitDecision::AcceptAndEndSearch,
                        None => AnyHitDecision::Accept,
                    }
                }
                Err(e) => {
                    *error.borrow_mut() = Some(e);
                    AnyHitDecision::AcceptAndEndSearch
                }
            }
        };
        let mut intersection = |c: &Hit, rep: &mut HitReporter<'_, Vec<u32>>| {
            if error.borrow().is_some() {
                return;
            }
            let (gi, g) = match group_of(c) {
                Ok(g) => g,
                Err(e) => {
                    *error.borrow_mut() = Some(e);
                    return;
                }
            };
            let Some(prog) = g.intersection else {
                return;
            };
            let sink: &mut dyn Reports = rep;
            let child = self.child(
                tag,
                depth,
                self.calls,
                Some(info),
                Some(*c),
                Kind::Intersection(RefCell::new(sink)),
                call,
            );
            let mut none = Vec::new();
            match self.run(
                tag,
                prog,
                &child,
                &mut none,
                None,
                (NestedKind::Intersection, gi),
            ) {
                Ok(n) => work.set(work.get().saturating_add(n)),
                Err(e) => *error.borrow_mut() = Some(e),
            }
        };
        let mut tracer = Tracer::new();
        let result = tracer.trace_ray(accel.as_deref(), &desc, &mut any_hit, &mut intersection);
        if let Some(e) = error.into_inner() {
            return Err(e);
        }
        let s = result.stats;
        let traversal = s
            .nodes
            .saturating_add(s.primitives)
            .saturating_add(s.instances);
        self.counters.rays.set(self.counters.rays.get() + 1);
        self.counters
            .traversal
            .set(self.counters.traversal.get().saturating_add(traversal));
        payload.copy_from_slice(&shared.into_inner());
        let committed = match result.committed {
            Some(h) => {
                // The record is checked when a program of it runs (`shade`): a ray that
                // skips the closest-hit program needs no valid record.
                let gi = u64::from(contribution)
                    + u64::from(multiplier) * u64::from(h.geometry_index)
                    + u64::from(h.instance_contribution_to_hit_group_index);
                let a = match h.kind {
                    PrimitiveKind::Triangle => triangle_attributes(&h),
                    PrimitiveKind::Procedural => result.attributes.clone().unwrap_or_default(),
                };
                Some((h, a, gi))
            }
            None => None,
        };
        Ok(Traversed {
            info,
            call,
            committed,
            run_closest_hit: result.run_closest_hit,
            miss,
            work: work.get().saturating_add(traversal),
        })
    }

    /// Runs the closest-hit program of a hit's group, or the miss program of a miss
    /// record, for lane `tag`'s ray `info` at the next recursion depth, with `payload`.
    fn shade(
        &self,
        tag: u32,
        call: u32,
        info: RayInfo,
        what: Shade<'_>,
        payload: &mut [u32],
    ) -> Result<u64, ExecError> {
        let depth = self.depth + 1;
        match what {
            Shade::Hit(h, a, gi) => {
                let (gi, g) = self.hit_group(tag, gi, h)?;
                let Some(prog) = g.closest_hit else {
                    return Ok(0);
                };
                let child = self.child(
                    tag,
                    depth,
                    self.calls,
                    Some(info),
                    Some(*h),
                    Kind::Plain,
                    call,
                );
                self.run(
                    tag,
                    prog,
                    &child,
                    payload,
                    Some(a),
                    (NestedKind::ClosestHit, gi),
                )
            }
            Shade::Miss(miss) => {
                let prog = table_program(&self.p.miss, "miss", u64::from(miss), || {
                    format!("{}: miss shader index {miss}", self.lane(tag))
                })?;
                let Some(prog) = prog else { return Ok(0) };
                let child = self.child(tag, depth, self.calls, Some(info), None, Kind::Plain, call);
                self.run(
                    tag,
                    prog,
                    &child,
                    payload,
                    None,
                    (NestedKind::Miss, miss as usize),
                )
            }
        }
    }

    /// Runs program `i` for one lane with `payload` (and `attributes`) in its memory,
    /// writing the payload back; returns the lane-instructions.
    #[allow(clippy::too_many_arguments)]
    fn run(
        &self,
        tag: u32,
        i: usize,
        child: &Frame<'_, '_>,
        payload: &mut [u32],
        attributes: Option<&[u32]>,
        what: (NestedKind, usize),
    ) -> Result<u64, ExecError> {
        // A traced wave's nested programs are written down before they run (so in the
        // order they start), and completed after.
        let traced = self.traces(tag);
        // What the program may read, as it starts (the debugger's `print`).
        let system = if traced {
            let stage = self.p.programs.get(i).map(|p| p.shader().stage);
            RaySystemValue::ALL
                .iter()
                .filter(|v| stage.is_some_and(|s| v.available_in(s)))
                .map(|&v| (v, (0..v.components()).map(|c| child.get(0, v, c)).collect()))
                .collect()
        } else {
            Vec::new()
        };
        let logged = child.log.map(|log| {
            let mut runs = log.runs.borrow_mut();
            runs.push(NestedRun {
                lane: self.wave_lane(tag),
                call: child.call,
                depth: child.depth + child.calls,
                kind: what.0,
                program: i,
                record: what.1,
                hit: child.hit.map(|h| NestedHit {
                    instance_index: h.instance_index,
                    instance_id: h.instance_id,
                    primitive_index: h.primitive_index,
                    geometry_index: h.geometry_index,
                    t: h.t,
                    hit_kind: h.hit_kind,
                }),
                payload_in: payload.to_vec(),
                payload_out: Vec::new(),
                attributes: attributes.map(<[u32]>::to_vec).unwrap_or_default(),
                lane_instructions: 0,
                parent: self.run.get(),
                system,
            });
            (log, runs.len() - 1)
        });
        child.run.set(logged.map(|(_, k)| k));
        child.traced.set(traced);
        let r = self.run_program(tag, i, child, payload, attributes);
        if let (Some((log, k)), Ok(n)) = (logged, &r)
            && let Some(e) = log.runs.borrow_mut().get_mut(k)
        {
            e.payload_out = payload.to_vec();
            e.lane_instructions = *n;
        }
        r
    }

    fn run_program(
        &self,
        tag: u32,
        i: usize,
        child: &Frame<'_, '_>,
        payload: &mut [u32],
        attributes: Option<&[u32]>,
    ) -> Result<u64, ExecError> {
        // The observed lane's programs run lowered for debugging, through the traced
        // loop (they compute what the normal lowering does).
        let debug = match (
            child.traced.get(),
            child.run.get(),
            child.log.and_then(|l| l.trace),
        ) {
            (true, Some(k), Some(t)) => t
                .programs
                .get(i)
                .and_then(Option::as_ref)
                .map(|p| (t.nt, p, k)),
            _ => None,
        };
        let prog = match debug {
            Some((_, p, _)) => p,
            None => self.p.programs.get(i).ok_or_else(|| {
                ExecError::Dispatch(format!("{}: no program {i}", self.lane(tag)))
            })?,
        };
        let mut r = StageRunner::new(prog);
        r.set_tag(0, 0);
        let state = prog.shader().ray;
        let pay = state.and_then(|s| s.payload);
        // "Ray payload": every program a TraceRay invokes takes the structure the call
        // passed (and a callable program its CallShader's parameter). Another size is
        // another structure, which D3D leaves undefined: an error naming both.
        if let Some((_, bytes)) = pay
            && bytes.div_ceil(4) as usize != payload.len()
        {
            let s = prog.shader();
            let (what, call) = if s.stage == crate::ir::Stage::Callable {
                ("parameter", "CallShader")
            } else {
                ("payload", "TraceRay")
            };
            return Err(ExecError::Dispatch(format!(
                "{}: the {} program \"{}\" takes a {what} of {bytes} bytes, but its {call} passed {} (a {what} must be the caller's structure; D3D12 leaves another undefined)",
                self.lane(tag),
                s.stage.words(),
                s.entry,
                payload.len() * 4
            )));
        }
        if let Some((x, _)) = pay {
            r.set_local_words(0, x, payload);
        }
        if let (Some((x, _)), Some(a)) = (state.and_then(|s| s.attributes), attributes) {
            r.set_local_words(0, x, a);
        }
        child.program.set(i);
        let run = match debug {
            Some((nt, _, k)) => {
                let mut obs = nt.begin(k, self.run.get(), prog.shader());
                let run = r.run_rays_traced(1, child, child.writes, &mut *obs);
                obs.done(run.is_ok());
                run?
            }
            None => r.run_rays_writes(1, child, child.writes)?,
        };
        if let Some((x, bytes)) = pay {
            let words = (bytes.div_ceil(4) as usize).min(payload.len());
            let out = r.local_words(0, x, words);
            payload[..words].copy_from_slice(&out);
        }
        Ok(run.lane_instructions)
    }

    #[allow(clippy::too_many_arguments)]
    fn child<'c>(
        &'c self,
        tag: u32,
        depth: u32,
        calls: u32,
        ray: Option<RayInfo>,
        hit: Option<Hit>,
        kind: Kind<'c>,
        call: u32,
    ) -> Frame<'c, 'c> {
        Frame {
            p: self.p,
            dims: self.dims,
            counters: self.counters,
            depth,
            calls,
            index: Some(self.index_of(tag)),
            ray,
            hit,
            kind,
            log: self.log,
            call,
            writes: self.writes,
            program: Cell::new(0),
            lane: self.wave_lane(tag),
            run: Cell::new(None),
            traced: Cell::new(false),
        }
    }
}

/// A triangle hit's attributes: its barycentrics (`BuiltInTriangleIntersectionAttributes`).
fn triangle_attributes(h: &Hit) -> Vec<u32> {
    vec![h.barycentrics[0].to_bits(), h.barycentrics[1].to_bits()]
}

impl RayContext for Frame<'_, '_> {
    fn program(&self) -> u32 {
        u32::try_from(self.program.get()).unwrap_or(u32::MAX)
    }

    fn get(&self, tag: u32, value: RaySystemValue, index: u8) -> u32 {
        use RaySystemValue as V;
        let i = usize::from(index);
        let f = |x: f32| x.to_bits();
        let ray = self.ray;
        let hit = self.hit.as_ref();
        match value {
            V::DispatchRaysIndex => self.index_of(tag).get(i).copied().unwrap_or(0),
            V::DispatchRaysDimensions => self.dims.get(i).copied().unwrap_or(0),
            V::WorldRayOrigin => ray.and_then(|r| r.ray.origin.get(i).copied()).map_or(0, f),
            V::WorldRayDirection => ray
                .and_then(|r| r.ray.direction.get(i).copied())
                .map_or(0, f),
            V::RayTMin => ray.map_or(0, |r| f(r.ray.t_min)),
            V::RayFlags => ray.map_or(0, |r| r.flags),
            V::RayTCurrent => match (&self.kind, hit) {
                (Kind::Intersection(rep), _) => f(rep.borrow().t_current()),
                (_, Some(h)) => f(h.t),
                // Miss: TMax (DXR spec "RayTCurrent").
                (_, None) => ray.map_or(0, |r| f(r.ray.t_max)),
            },
            V::ObjectRayOrigin => hit
                .and_then(|h| h.object_ray_origin.get(i).copied())
                .map_or(0, f),
            V::ObjectRayDirection => hit
                .and_then(|h| h.object_ray_direction.get(i).copied())
                .map_or(0, f),
            V::ObjectToWorld => hit
                .and_then(|h| h.object_to_world.0.get(i).copied())
                .map_or(0, f),
            V::WorldToObject => hit
                .and_then(|h| h.world_to_object.0.get(i).copied())
                .map_or(0, f),
            V::InstanceIndex => hit.map_or(0, |h| h.instance_index),
            V::InstanceId => hit.map_or(0, |h| h.instance_id),
            V::PrimitiveIndex => hit.map_or(0, |h| h.primitive_index),
            V::GeometryIndex => hit.map_or(0, |h| h.geometry_index),
            V::HitKind => hit.map_or(0, |h| h.hit_kind),
        }
    }

    fn trace(
        &self,
        tag: u32,
        accel: Option<std::sync::Arc<TopLevel>>,
        args: &[u32; TRACE_RAY_ARGS],
        payload: &mut [u32],
    ) -> Result<u64, ExecError> {
        let t = self.traverse(tag, accel, args, payload, "TraceRay")?;
        let mut total = t.work;
        match &t.committed {
            Some((h, attrs, gi)) => {
                if t.run_closest_hit {
                    total = total.saturating_add(self.shade(
                        tag,
                        t.call,
                        t.info,
                        Shade::Hit(h, attrs, *gi),
                        payload,
                    )?);
                }
            }
            None => {
                total = total.saturating_add(self.shade(
                    tag,
                    t.call,
                    t.info,
                    Shade::Miss(t.miss),
                    payload,
                )?);
            }
        }
        Ok(total)
    }

    fn trace_hit_object(
        &self,
        tag: u32,
        accel: Option<std::sync::Arc<TopLevel>>,
        args: &[u32; TRACE_RAY_ARGS],
        payload: &mut [u32],
    ) -> Result<(HitObject, u64), ExecError> {
        let t = self.traverse(tag, accel, args, payload, "HitObject::TraceRay")?;
        let o = match t.committed {
            Some((h, attrs, gi)) => {
                let index = u32::try_from(gi).unwrap_or(u32::MAX);
                HitObject::hit(t.info.ray, t.info.flags, h, attrs, Some(index))
            }
            None => HitObject::miss(t.info.ray, t.info.flags, t.miss),
        };
        Ok((o, t.work))
    }

    fn invoke(&self, tag: u32, hit: &HitObject, payload: &mut [u32]) -> Result<u64, ExecError> {
        // Every Invoke is one of the lane's calls (the debugger counts the instruction).
        let call = self.call_of(tag);
        // HLSL proposal 0027 "HitObject::Invoke": a NOP hit object, or one from a ray
        // query without a shader table index, runs nothing (and is no reorder work).
        let (Some(index), kind) = (hit.index, hit.kind) else {
            return Ok(0);
        };
        let shade = match (kind, hit.hit.as_ref()) {
            (HitObjectKind::Hit, Some(h)) => {
                // dxlane's choice (the specifications are silent): a hit traced with
                // SKIP_CLOSEST_HIT_SHADER invokes no closest-hit program, so
                // HitObject::TraceRay then Invoke is TraceRay.
                if hit.flags & RayFlags::SKIP_CLOSEST_HIT_SHADER.0 != 0 {
                    return Ok(0);
                }
                Shade::Hit(h, &hit.attributes, u64::from(index))
            }
            (HitObjectKind::Miss, _) => Shade::Miss(index),
            _ => return Ok(0),
        };
        // "HitObject::Invoke counts towards the trace recursion depth."
        self.check_depth(tag, "HitObject::Invoke")?;
        let info = RayInfo {
            ray: hit.ray,
            flags: hit.flags,
        };
        self.shade(tag, call, info, shade, payload)
    }

    fn local_root_constant(
        &self,
        tag: u32,
        hit: &HitObject,
        offset: u32,
    ) -> Result<u32, ExecError> {
        // HLSL proposal 0027 "HitObject::LoadLocalRootTableConstant": a NOP hit object,
        // or one from a ray query without a shader table index, reads 0.
        let Some(index) = hit.index else {
            return Ok(0);
        };
        let (name, table, args) = match hit.kind {
            HitObjectKind::Nop => return Ok(0),
            HitObjectKind::Hit => (
                "hit-group",
                (self.p.hit_groups.len(), self.p.hit_groups.zero_stride),
                &self.p.arguments.hit_groups,
            ),
            HitObjectKind::Miss => (
                "miss",
                (self.p.miss.len(), self.p.miss.zero_stride),
                &self.p.arguments.miss,
            ),
        };
        let what = || {
            format!(
                "{}: HitObject::LoadLocalRootTableConstant({offset}) of {name} record {index}",
                self.lane(tag)
            )
        };
        // "RootConstantOffsetInBytes must be a multiple of 4."
        if offset % 4 != 0 {
            return Err(ExecError::Dispatch(format!(
                "{}: the offset is not a multiple of 4 (HLSL proposal 0027 requires one)",
                what()
            )));
        }
        // A zero-stride table reads record 0 for every index ("Shader record stride").
        let (len, zero_stride) = table;
        let i = if zero_stride { 0 } else { index as usize };
        if i >= len {
            return Err(ExecError::Dispatch(format!(
                "{}: the record is past the {name} table of {len} (D3D12 leaves this undefined; dxlane stops)",
                what()
            )));
        }
        let bytes = args.get(i).map_or(&[][..], Vec::as_slice);
        let at = offset as usize;
        match bytes.get(at..at + 4) {
            Some(b) => Ok(u32::from_le_bytes([b[0], b[1], b[2], b[3]])),
            None => Err(ExecError::Dispatch(format!(
                "{}: bytes {at}..{} pass the record's {} bytes of local root arguments (D3D12 would read whatever the table holds there; dxlane stops)",
                what(),
                at + 4,
                bytes.len()
            ))),
        }
    }

    fn call(&self, tag: u32, index: u32, parameter: &mut [u32]) -> Result<u64, ExecError> {
        let calls = self.calls + 1;
        if calls > MAX_CALL_DEPTH {
            return Err(ExecError::Dispatch(format!(
                "{}: CallShader nested {calls} deep (dxlane runs at most {MAX_CALL_DEPTH})",
                self.lane(tag)
            )));
        }
        let prog = table_program(&self.p.callable, "callable", u64::from(index), || {
            format!("{}: callable shader index {index}", self.lane(tag))
        })?;
        // "Shader identifier": a NULL record runs no program; the parameter is unchanged.
        let Some(prog) = prog else { return Ok(0) };
        // A callable program sees no ray (DXR spec "Callable shaders": only the launch's
        // system values).
        let call = self.call_of(tag);
        let child = self.child(tag, self.depth, calls, None, None, Kind::Plain, call);
        self.run(
            tag,
            prog,
            &child,
            parameter,
            None,
            (NestedKind::Callable, index as usize),
        )
    }

    fn report_hit(
        &self,
        tag: u32,
        t: f32,
        kind: u32,
        attributes: &[u32],
    ) -> Result<(bool, u64), ExecError> {
        let Kind::Intersection(rep) = &self.kind else {
            return Err(ExecError::Dispatch(format!(
                "{}: ReportHit outside an intersection program",
                self.lane(tag)
            )));
        };
        let out = rep.borrow_mut().report(t, kind, attributes.to_vec());
        Ok((out != ReportHitOutcome::Rejected, 0))
    }

    fn hit_end(&self, _tag: u32, op: RayHitOp) {
        if let Kind::AnyHit(d) = &self.kind {
            d.set(Some(op));
        }
    }
}
