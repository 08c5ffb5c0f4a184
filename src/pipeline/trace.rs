//! Tracing one wave of a draw: the debugger's hook into the pipeline.
//!
//! Owns: which wave a draw traces ([`TraceAt`]), the hook that carries the debug program
//! and its observer into the stages ([`TraceWave`]), what the traced wave did
//! ([`Traced`]), how a traced pixel batch is split into waves of the program's own
//! size, and the runners of a stage whose lanes run in waves one of which may be traced
//! (`StageWaves`: the geometry, hull and domain stages), and the traced group of a
//! stage whose lanes run as compute groups (`StageGroups`: the mesh and amplification
//! stages); a `DispatchRays`'s traced ray-generation wave is run by `rays` through the
//! same hook. Does not own: finding the wave a lane runs in (the stages' batching, `ps` and
//! `vs`), the vertex stage's traced batch (`vs`), or the traced loop itself
//! (`exec::StageRunner::run_traced`).
//!
//! A traced batch runs the debug program — the same program lowered without clean-up,
//! so that each instruction maps to one source instruction — in waves of exactly the
//! program's wave size, never side by side: a pixel batch is wider than a wave only when
//! the program never looks across quads, so splitting it changes nothing its lanes
//! compute. Lane `l` of the batch is lane `l mod W` of its wave `l / W`, the wave holding
//! the chosen lane goes through the traced loop, and every other wave of the batch
//! reports its memory writes as a normal wave does.

use std::sync::Mutex;

use super::ms::MeshPrimOrigin;
use super::ps::{PixelLane, PixelQuad, PixelStage, WaveContext};
use super::rays::NestedRun;
use super::work::LaneSelect;
use crate::exec::{
    ExecError, GroupHooks, GroupRunner, GroupStats, PixelContext, Program, StageProgram,
    StageRunner, WaveObserver, WaveRun, WriteSink,
};
use crate::ir::Shader;

/// Which wave of a draw [`TraceWave`] traces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceAt {
    /// The pixel wave holding lane `lane` of batch `batch` of tile `tile` (as a
    /// [`PixelObserver`](super::PixelObserver) numbers them: `lane` indexes the batch's
    /// lanes).
    Pixel {
        /// Row-major tile index.
        tile: u32,
        /// The batch's number in the tile.
        batch: u32,
        /// The lane in the batch.
        lane: u32,
    },
    /// The vertex wave shading vertex `vertex` (`SV_VertexID`) of instance `instance`.
    Vertex {
        /// `SV_VertexID`.
        vertex: u32,
        /// `SV_InstanceID`.
        instance: u32,
    },
    /// The geometry wave running input primitive `prim` (its number among the geometry
    /// stage's input primitives of draw instance `instance`) for `SV_GSInstanceID`
    /// `gs_instance`.
    Geometry {
        /// The draw instance.
        instance: u32,
        /// The input primitive, in the order the stage reads them.
        prim: u32,
        /// `SV_GSInstanceID`.
        gs_instance: u32,
    },
    /// The hull wave running patch `patch` of draw instance `instance`: its
    /// control-point phase for output control point `Some(k)`, its patch-constant phase
    /// for `None` (DXBC: the fork phases' pass).
    Hull {
        /// The draw instance.
        instance: u32,
        /// The patch's number in the draw instance.
        patch: u32,
        /// `SV_OutputControlPointID`, or `None` for the patch-constant phase.
        point: Option<u32>,
        /// With `point` `None`: the join phases' pass (DXBC) instead of the fork
        /// phases'.
        join: bool,
    },
    /// The domain wave running domain point `point` (in the tessellator's order) of patch
    /// `patch` of draw instance `instance`.
    Domain {
        /// The draw instance.
        instance: u32,
        /// The patch's number in the draw instance.
        patch: u32,
        /// The domain point.
        point: u32,
    },
    /// Wave `wave` (of the program's wave size, over the group's thread layout) of mesh
    /// group `group`, of the grid launched by amplification group `launch` (`None`:
    /// the draw has no amplification program and `DispatchMesh` launched the grid).
    Mesh {
        /// The amplification group that launched the mesh group.
        launch: Option<[u32; 3]>,
        /// The mesh group (its `SV_GroupID`).
        group: [u32; 3],
        /// The wave in the group.
        wave: u32,
    },
    /// Wave `wave` of amplification group `group`.
    Amplification {
        /// The amplification group (its `SV_GroupID`).
        group: [u32; 3],
        /// The wave in the group.
        wave: u32,
    },
    /// Wave `wave` of a `DispatchRays`'s ray-generation lanes (launch indices in D3D's
    /// order, x fastest, cut into waves of the program's wave size), over a launch of
    /// `dims`.
    Ray {
        /// The wave.
        wave: u64,
        /// `Width`, `Height`, `Depth` of the launch.
        dims: [u32; 3],
    },
}

impl TraceAt {
    /// The draw instance of a geometry, hull or domain wave (`None` for the others).
    pub fn stage_instance(self) -> Option<u32> {
        match self {
            TraceAt::Geometry { instance, .. }
            | TraceAt::Hull { instance, .. }
            | TraceAt::Domain { instance, .. } => Some(instance),
            TraceAt::Pixel { .. }
            | TraceAt::Vertex { .. }
            | TraceAt::Mesh { .. }
            | TraceAt::Amplification { .. }
            | TraceAt::Ray { .. } => None,
        }
    }
}

/// Where the traced lane of a geometry, hull or domain wave got its inputs: the lanes
/// one stage up, as the draw actually fed them (D3D11.3 §13.2: a geometry lane reads
/// the primitive the stage before made; §10.5 and §11: hull lanes read the patch's
/// control points as the vertex stage shaded them, domain lanes the hull's output
/// control points and patch constants).
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct InputOrigins {
    /// Per input vertex (a geometry lane) or input control point (a hull or domain
    /// lane), in the order the program indexes them, the lane that made it.
    pub points: Vec<LaneSelect>,
    /// A hull patch-constant lane: per output control point (`vocp`), the lane that
    /// made it (the vertex lane when the hull program passes its control points
    /// through).
    pub output_points: Vec<LaneSelect>,
    /// A domain lane: the hull lane whose patch-constant phase wrote its patch's
    /// constants. A DXBC join-phase lane: its patch's fork-phase lane (every fork phase
    /// and instance runs in it), which wrote the fork results the join reads (`vpc`).
    pub patch: Option<LaneSelect>,
}

/// The vertex lane that shaded vertex output `v` of draw instance `instance`, whose
/// outputs start at vertex output `base` and hold the instance's distinct vertices
/// `unique` (their `SV_VertexID`s, increasing) in order.
pub(crate) fn vertex_lane(unique: &[u32], base: usize, v: u32, instance: u32) -> LaneSelect {
    let vertex = (v as usize)
        .checked_sub(base)
        .and_then(|k| unique.get(k))
        .copied()
        .unwrap_or(v);
    LaneSelect::Vertex { vertex, instance }
}

/// What the traced wave did, for the debugger to show: its lanes, their output words
/// (word `i` of lane `l` at `i × W + l`) and the lanes that discarded.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Traced {
    /// Lanes per wave.
    pub wave_size: u32,
    /// Pixel waves: what each lane stands for (empty for a vertex wave).
    pub pixels: Vec<PixelLane>,
    /// Vertex waves: each lane's `SV_VertexID` (empty for a pixel wave).
    pub vertices: Vec<u32>,
    /// Output words.
    pub outputs: Vec<u32>,
    /// Lanes that executed `discard` or `demote`.
    pub killed: u128,
    /// A mesh wave: its group's memory when the group finished — the group shared
    /// memory, then the mesh region (`ir::MeshRegion`: the counts, the index tuples, the
    /// vertex and primitive outputs); empty for other waves.
    pub group_memory: Vec<u32>,
}

/// The debugger's hook: one wave of a draw runs `shader` — the same program lowered for
/// debugging (unoptimised, so that each instruction maps to one source instruction) —
/// through exec's traced loop, reporting to `observer`. The batch holding it runs in
/// waves of exactly the program's wave size (never side by side; a batch is split only
/// when the program never looks across quads, so its lanes compute what they would
/// together), so the observer sees the wave WARP would. Every other wave runs as in a
/// normal draw, and the targets come out the same.
pub struct TraceWave<'a> {
    /// The wave.
    pub at: TraceAt,
    /// The program it runs (the vertex or pixel program, lowered for debugging).
    pub shader: &'a Shader,
    /// Who hears its steps.
    pub observer: Mutex<&'a mut (dyn WaveObserver + Send)>,
    /// Filled when the wave has run.
    pub result: Mutex<Option<Traced>>,
    /// A pixel wave's draw: per set-up primitive (`PixelLane::prim`), the lane that made
    /// its leading vertex (`set_origins`).
    pub origins: Mutex<Option<Vec<Option<LaneSelect>>>>,
    /// A pixel wave's mesh draw: per set-up primitive, the mesh group and place it came
    /// from (`set_mesh_origins`).
    pub mesh_origins: Mutex<Option<Vec<Option<MeshPrimOrigin>>>>,
    /// A geometry, hull or domain wave: the lanes that made the traced lane's input
    /// vertices, control points and patch constants (`set_input_origins`).
    pub input_origins: Mutex<Option<InputOrigins>>,
    /// A ray-generation wave: every program its lanes' `TraceRay` and `CallShader`
    /// ran, in the order they started (`set_rays`).
    pub rays: Mutex<Option<Vec<NestedRun>>>,
    /// A ray-generation wave: who traces the programs one of its lanes invokes
    /// ([`TraceWave::with_nested`]).
    pub nested: Option<&'a dyn NestedTrace>,
}

/// The debugger's hook into the programs that one lane of a traced ray-generation wave
/// invokes (closest-hit, any-hit, intersection, miss, callable, and theirs in turn): each
/// runs its program lowered for debugging through exec's traced loop, as a wave of one
/// live lane, reporting to an observer of its own. Only that lane's programs are traced;
/// the other lanes' run as in a normal launch.
pub trait NestedTrace: Sync {
    /// The lane (in the traced wave) whose programs are traced.
    fn lane(&self) -> u32;
    /// Program `program` (index into `RaysWork::programs`) lowered for debugging, or
    /// `None` to run it untraced.
    fn shader(&self, program: usize) -> Option<&Shader>;
    /// An observer for nested run `run` (its index among the wave's [`NestedRun`]s),
    /// which is about to start, invoked by run `parent` (`None`: by the ray-generation
    /// lane), running `program` (what [`NestedTrace::shader`] gave).
    fn begin(
        &self,
        run: usize,
        parent: Option<usize>,
        program: &Shader,
    ) -> Box<dyn NestedObserver + '_>;
}

/// A [`WaveObserver`] of one nested run, told when the run ends.
pub trait NestedObserver: WaveObserver {
    /// The run has ended (`ok`: without an error).
    fn done(self: Box<Self>, ok: bool);
}

impl<'a> TraceWave<'a> {
    /// A hook tracing `at` with `shader`, reporting to `observer`.
    pub fn new(
        at: TraceAt,
        shader: &'a Shader,
        observer: &'a mut (dyn WaveObserver + Send),
    ) -> TraceWave<'a> {
        TraceWave {
            at,
            shader,
            observer: Mutex::new(observer),
            result: Mutex::new(None),
            origins: Mutex::new(None),
            mesh_origins: Mutex::new(None),
            input_origins: Mutex::new(None),
            rays: Mutex::new(None),
            nested: None,
        }
    }

    /// The hook, also tracing the programs one ray-generation lane invokes through
    /// `nested` (a `DispatchRays` only; other work ignores it).
    pub fn with_nested(mut self, nested: &'a dyn NestedTrace) -> TraceWave<'a> {
        self.nested = Some(nested);
        self
    }

    /// What the traced wave did (`None` when the draw never ran it).
    pub fn take(&self) -> Option<Traced> {
        self.result.lock().unwrap_or_else(|p| p.into_inner()).take()
    }

    /// A pixel wave's draw: per set-up primitive, the vertex, geometry or domain lane
    /// that made its leading vertex — what a pixel's inputs were interpolated from, one
    /// stage up (`None`: not a pixel trace, or a mesh draw).
    pub fn take_origins(&self) -> Option<Vec<Option<LaneSelect>>> {
        self.origins
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
    }
}

impl TraceWave<'_> {
    /// A pixel wave's mesh draw: per set-up primitive, the mesh group it came from and
    /// its place there (`None`: not a pixel trace of a mesh draw).
    pub fn take_mesh_origins(&self) -> Option<Vec<Option<MeshPrimOrigin>>> {
        self.mesh_origins
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
    }

    /// A geometry, hull or domain wave: the lanes that made its traced lane's inputs
    /// (`None`: another kind of wave, or the draw never reached the lane).
    pub fn take_input_origins(&self) -> Option<InputOrigins> {
        self.input_origins
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take()
    }

    /// A ray-generation wave: the programs its lanes' `TraceRay` and `CallShader` ran
    /// (`None`: not a ray trace, or the wave never ran).
    pub fn take_rays(&self) -> Option<Vec<NestedRun>> {
        self.rays.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// A wave observer that keeps nothing: [`input_origins`] traces a lane only for what the
/// draw says of its inputs.
struct Unheard;

impl WaveObserver for Unheard {
    fn start(&mut self, _: &dyn crate::exec::WaveRead) {}
    fn step(
        &mut self,
        _: crate::exec::At,
        _: u128,
        _: u128,
        _: &dyn crate::exec::WaveRead,
        _: &[crate::exec::MemWrite],
    ) {
    }
    fn others(&mut self, _: &[crate::exec::MemWrite]) {}
}

/// The lanes that fed geometry, hull or domain lane `sel` of the draw `work` (its input
/// vertices, control points and patch constants: [`InputOrigins`]), found by running
/// the draw once with that lane traced by its own program — the same record the
/// debugger's traced run keeps. `None` for another kind of lane or work, a stage the
/// draw lacks, a run that fails, or a lane the draw never reached. The run writes the
/// work's resources as any run does: the caller restores them when it must.
pub fn input_origins(
    work: &super::work::Work,
    plan: &super::Plan,
    sel: LaneSelect,
) -> Option<InputOrigins> {
    let super::work::Work::Draw(d) = work else {
        return None;
    };
    let (at, shader) = match sel {
        LaneSelect::Geometry {
            prim,
            gs_instance,
            instance,
        } => (
            TraceAt::Geometry {
                instance,
                prim,
                gs_instance,
            },
            &d.gs.as_ref()?.0,
        ),
        LaneSelect::Hull {
            patch,
            control_point,
            join,
            instance,
        } => (
            TraceAt::Hull {
                instance,
                patch,
                point: control_point,
                join,
            },
            &d.hs.as_ref()?.0,
        ),
        LaneSelect::Domain {
            patch,
            point,
            instance,
        } => (
            TraceAt::Domain {
                instance,
                patch,
                point,
            },
            &d.ds.as_ref()?.0,
        ),
        _ => return None,
    };
    let mut quiet = Unheard;
    let hook = TraceWave::new(at, shader, &mut quiet);
    work.run(
        plan,
        super::work::Hooks {
            trace: Some(&hook),
            ..super::work::Hooks::default()
        },
    )
    .ok()?;
    hook.take_input_origins()
}

/// What the stages need of a [`TraceWave`], as a trait object (whose lifetime, unlike
/// the hook's, may shorten to the draw's).
pub(crate) trait Hook: Sync {
    fn observe(&self, f: &mut dyn FnMut(&mut dyn WaveObserver));
    fn set(&self, t: Traced);
    fn set_origins(&self, o: Vec<Option<LaneSelect>>);
    fn set_mesh_origins(&self, o: Vec<Option<MeshPrimOrigin>>);
    fn set_input_origins(&self, o: InputOrigins);
    fn set_rays(&self, r: Vec<NestedRun>);
    fn nested(&self) -> Option<&dyn NestedTrace>;
}

impl Hook for TraceWave<'_> {
    fn observe(&self, f: &mut dyn FnMut(&mut dyn WaveObserver)) {
        let mut obs = self.observer.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut **obs);
    }
    fn set(&self, t: Traced) {
        *self.result.lock().unwrap_or_else(|p| p.into_inner()) = Some(t);
    }
    fn set_origins(&self, o: Vec<Option<LaneSelect>>) {
        *self.origins.lock().unwrap_or_else(|p| p.into_inner()) = Some(o);
    }
    fn set_mesh_origins(&self, o: Vec<Option<MeshPrimOrigin>>) {
        *self.mesh_origins.lock().unwrap_or_else(|p| p.into_inner()) = Some(o);
    }
    fn set_input_origins(&self, o: InputOrigins) {
        *self.input_origins.lock().unwrap_or_else(|p| p.into_inner()) = Some(o);
    }
    fn set_rays(&self, r: Vec<NestedRun>) {
        *self.rays.lock().unwrap_or_else(|p| p.into_inner()) = Some(r);
    }
    fn nested(&self) -> Option<&dyn NestedTrace> {
        self.nested
    }
}

/// The traced wave's program, prepared once per draw.
pub(crate) struct TraceProgram<'a> {
    pub hook: &'a (dyn Hook + 'a),
    pub at: TraceAt,
    pub program: StageProgram<'a>,
}

impl TraceProgram<'_> {
    /// Runs one wave of the debug program on `runner`'s lanes, traced when `traced`
    /// (else reporting its memory writes to `writes`).
    pub(crate) fn run(
        &self,
        runner: &mut StageRunner<'_>,
        lanes: u128,
        helper: u128,
        pixel: Option<&dyn PixelContext>,
        traced: bool,
        writes: Option<&dyn WriteSink>,
    ) -> Result<WaveRun, ExecError> {
        if traced {
            let mut out = None;
            self.hook.observe(&mut |o| {
                out = Some(runner.run_traced(lanes, helper, pixel, o));
            });
            out.unwrap_or_else(|| runner.run(lanes, helper, pixel))
        } else {
            runner.run_writes(lanes, helper, pixel, writes)
        }
    }

    /// Runs the pixel batch `quads` (of a runner `batch` lanes wide) with the debug
    /// program in waves of the program's wave size, the one holding `lane` traced (see
    /// the module doc), the others reporting their memory writes to `writes`; returns
    /// what the batch did and its output words laid out as the batch's runner lays them
    /// out.
    pub(crate) fn run_pixels(
        &self,
        stage: &PixelStage<'_>,
        quads: &[PixelQuad],
        lane: usize,
        batch: usize,
        writes: Option<&dyn WriteSink>,
    ) -> Result<(WaveRun, Vec<u32>), ExecError> {
        let mut runner = StageRunner::new(&self.program);
        let w = runner.wave_size();
        let words = self.program.shader().output_words as usize;
        let mut out = vec![0u32; words * batch];
        let mut total = WaveRun::default();
        for (k, sub) in quads.chunks((w / 4).max(1)).enumerate() {
            // The traced wave shows every input word, read or not.
            let every = PixelStage {
                read: None,
                ..*stage
            };
            every.fill(&mut runner, sub);
            let n = sub.len() * 4;
            let all = if n >= 128 {
                u128::MAX
            } else {
                (1u128 << n) - 1
            };
            let lanes = PixelQuad::lanes(sub);
            let mut helper = 0u128;
            for (l, p) in lanes.iter().enumerate() {
                if p.coverage == 0 {
                    helper |= 1 << l;
                }
            }
            let ctx = WaveContext { stage, quads: sub };
            let traced = lane / w == k;
            let run = self.run(&mut runner, all, helper, Some(&ctx), traced, writes)?;
            let o = runner.outputs();
            for word in 0..words {
                for l in 0..n {
                    if let (Some(d), Some(v)) =
                        (out.get_mut(word * batch + k * w + l), o.get(word * w + l))
                    {
                        *d = *v;
                    }
                }
            }
            total.lane_instructions += run.lane_instructions;
            total.killed |= run.killed << (k * w);
            if traced {
                self.hook.set(Traced {
                    wave_size: w as u32,
                    pixels: lanes,
                    vertices: Vec::new(),
                    outputs: o.to_vec(),
                    killed: run.killed,
                    group_memory: Vec::new(),
                });
            }
        }
        Ok((total, out))
    }
}

/// The runners of a stage whose lanes run in waves of one program, in order, one wave
/// of which may be traced: the program's own runner for every wave, and the debug
/// program's (lowered without clean-up, of the same wave size) for the wave holding the
/// traced lane. The geometry, hull and domain stages run their waves through it, so the
/// traced wave is chosen, run and reported one way.
pub(crate) struct StageWaves<'r> {
    normal: StageRunner<'r>,
    debug: Option<(&'r TraceProgram<'r>, usize, StageRunner<'r>)>,
}

/// One wave of [`StageWaves`]: the runner to fill, and the debug program when the wave
/// holds the traced lane.
pub(crate) struct StageWave<'w, 'r> {
    /// The runner whose inputs and ids the stage fills, and whose outputs it reads.
    pub runner: &'w mut StageRunner<'r>,
    trace: Option<&'r TraceProgram<'r>>,
}

impl<'r> StageWaves<'r> {
    /// The runners for `count` lanes of `program`, lane `k` traced through `trace`'s
    /// hook when `trace` = `Some((t, k))` and `k < count` (a lane past the stage's is
    /// never run: the session says so).
    pub(crate) fn new(
        program: &'r StageProgram<'r>,
        count: usize,
        trace: Option<(&'r TraceProgram<'r>, usize)>,
    ) -> Result<StageWaves<'r>, ExecError> {
        let normal = StageRunner::new(program);
        let debug = match trace {
            Some((t, k)) if k < count => {
                let dr = StageRunner::new(&t.program);
                if dr.wave_size() != normal.wave_size() {
                    return Err(ExecError::Dispatch(
                        "the traced program runs another wave size than the drawn one".into(),
                    ));
                }
                Some((t, k, dr))
            }
            _ => None,
        };
        Ok(StageWaves { normal, debug })
    }

    /// Lanes per wave.
    pub(crate) fn wave_size(&self) -> usize {
        self.normal.wave_size()
    }

    /// The wave of lanes `start .. start + n`: the debug program's runner when it holds
    /// the traced lane, else the program's.
    pub(crate) fn wave(&mut self, start: usize, n: usize) -> StageWave<'_, 'r> {
        match self.debug.as_mut() {
            Some((t, k, dr)) if (start..start + n).contains(k) => StageWave {
                runner: dr,
                trace: Some(*t),
            },
            _ => StageWave {
                runner: &mut self.normal,
                trace: None,
            },
        }
    }
}

impl StageWave<'_, '_> {
    /// Runs the wave's first `n` lanes (filled by the caller): through the traced loop
    /// when it holds the traced lane — the hook then hears what the wave did, its output
    /// words as the wave left them — else as a normal wave, reporting its lanes' memory
    /// writes to `writes` (the traced wave's go to its hook).
    pub(crate) fn run(
        &mut self,
        n: usize,
        writes: Option<&dyn crate::exec::WriteSink>,
    ) -> Result<WaveRun, ExecError> {
        let mask = if n >= 128 {
            u128::MAX
        } else {
            (1u128 << n) - 1
        };
        match self.trace {
            Some(t) => {
                let run = t.run(self.runner, mask, 0, None, true, None)?;
                t.hook.set(Traced {
                    wave_size: self.runner.wave_size() as u32,
                    pixels: Vec::new(),
                    vertices: Vec::new(),
                    outputs: self.runner.outputs().to_vec(),
                    killed: run.killed,
                    group_memory: Vec::new(),
                });
                Ok(run)
            }
            None => self.runner.run_writes(mask, 0, None, writes),
        }
    }
}

/// The traced group of a stage whose lanes run as compute groups (the mesh and
/// amplification stages): the debug program (lowered without clean-up, the same thread
/// group, wave size and memory layout as the drawn one) and the wave of the group to
/// trace. The stage runs every other group as it always does, and this one through
/// [`StageGroup::run`], reading its outputs from the runner it returns, so the draw comes
/// out the same.
pub(crate) struct StageGroup<'r> {
    hook: &'r (dyn Hook + 'r),
    /// The traced wave (`TraceAt::Mesh` or `TraceAt::Amplification`).
    pub at: TraceAt,
    program: Program<'r>,
    wave: usize,
}

impl<'r> StageGroup<'r> {
    /// Traces wave `wave` of the group `at` names, running `program` (the debug program,
    /// ready to run), reporting to `hook`.
    pub(crate) fn new(
        hook: &'r (dyn Hook + 'r),
        at: TraceAt,
        program: Program<'r>,
        wave: usize,
    ) -> StageGroup<'r> {
        StageGroup {
            hook,
            at,
            program,
            wave,
        }
    }

    /// Runs group `group` with the debug program, its wave traced, its shared memory
    /// starting with `shared_init` (a mesh group's payload, which the observer hears
    /// first); returns the runner, whose group memory holds what the group left, and what
    /// it ran.
    pub(crate) fn run(
        &self,
        group: [u32; 3],
        shared_init: &[u32],
    ) -> Result<(GroupRunner<'_>, GroupStats), ExecError> {
        let mut runner = GroupRunner::new(&self.program);
        let mut out = None;
        self.hook.observe(&mut |o| {
            o.shared_init(shared_init);
            out = Some(runner.run_with(
                group,
                GroupHooks {
                    writes: None,
                    observe: Some((self.wave, o)),
                    shared_init,
                },
            ));
        });
        let stats = match out {
            Some(r) => {
                let stats = r?;
                // A mesh group's outputs are arrays in its memory, not output registers.
                if matches!(self.at, TraceAt::Mesh { .. }) {
                    self.hook.set(Traced {
                        wave_size: self.program.wave_size(),
                        group_memory: runner.group_memory().to_vec(),
                        ..Traced::default()
                    });
                }
                stats
            }
            None => runner.run_with(
                group,
                GroupHooks {
                    shared_init,
                    ..GroupHooks::default()
                },
            )?,
        };
        Ok((runner, stats))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{At, MemWrite, WaveRead};
    use crate::ir::parse_shader;
    use crate::pipeline::fixtures::{FULLSCREEN_VS as VS, POSITION_PS as PS};
    use crate::pipeline::{
        Bindings, CullMode, DrawArgs, DrawOptions, DrawState, PixelObserver, RenderTargetView, draw,
    };
    use crate::resources::{Format, Texture, TextureDesc};

    /// Every wave the draw ran, with its tile, batch and lanes.
    #[derive(Default)]
    struct Waves(Mutex<Vec<(u32, u32, Vec<PixelLane>)>>);

    impl PixelObserver for Waves {
        fn wave(&self, tile: u32, wave: u32, lanes: &[PixelLane], _: &WaveRun, _: &[u32]) {
            self.0.lock().unwrap().push((tile, wave, lanes.to_vec()));
        }
    }

    /// Counts the traced wave's steps.
    #[derive(Default)]
    struct Steps(usize);

    impl WaveObserver for Steps {
        fn start(&mut self, _: &dyn WaveRead) {}
        fn step(&mut self, _: At, _: u128, _: u128, _: &dyn WaveRead, _: &[MemWrite]) {
            self.0 += 1;
        }
        fn others(&mut self, _: &[MemWrite]) {}
    }

    /// A pixel batch of 128 lanes traced at lane 37 runs in waves of the program's size
    /// (4): the traced wave is the batch's lanes 36 to 39, with their outputs, and the
    /// target comes out as a normal draw leaves it.
    #[test]
    fn a_traced_pixel_batch_runs_in_waves_of_the_program_size() {
        let vs = parse_shader(VS).unwrap();
        let ps = parse_shader(PS).unwrap();
        let none = Bindings::default();
        let target =
            || Texture::new(TextureDesc::tex2d(Format::R32G32B32A32_FLOAT, 16, 16)).unwrap();
        let rt = target();
        let mut s = DrawState::new(&vs, Some(&ps), &none, &none);
        s.render_targets = vec![Some(RenderTargetView {
            texture: rt.clone(),
        })];
        s.rasterizer.cull_mode = CullMode::None;
        let args = DrawArgs {
            vertex_count: 3,
            ..DrawArgs::default()
        };
        let waves = Waves::default();
        let opts = DrawOptions {
            plan: crate::pipeline::Plan {
                wave_size: Some(4),
                threads: 1,
                ..crate::pipeline::Plan::default()
            },
            observer: Some(&waves),
            ..DrawOptions::default()
        };
        draw(&s, &args, &opts).unwrap();
        let normal = rt.to_bytes();
        let seen = waves.0.into_inner().unwrap();
        let (tile, batch, lanes) = seen[0].clone();
        assert_eq!(
            (tile, batch, lanes.len()),
            (0, 0, 128),
            "one batch of 128 lanes"
        );

        let rt2 = target();
        s.render_targets = vec![Some(RenderTargetView {
            texture: rt2.clone(),
        })];
        let mut steps = Steps::default();
        let traced = {
            let hook = TraceWave::new(
                TraceAt::Pixel {
                    tile,
                    batch,
                    lane: 37,
                },
                &ps,
                &mut steps,
            );
            let opts = DrawOptions {
                plan: crate::pipeline::Plan {
                    wave_size: Some(4),
                    threads: 1,
                    ..crate::pipeline::Plan::default()
                },
                trace: Some(&hook),
                ..DrawOptions::default()
            };
            draw(&s, &args, &opts).unwrap();
            hook.take().unwrap()
        };
        assert!(steps.0 > 0);
        assert_eq!(traced.wave_size, 4);
        assert_eq!(traced.pixels, lanes[36..40]);
        assert!(traced.vertices.is_empty());
        for (l, p) in traced.pixels.iter().enumerate() {
            let x = f32::from_bits(traced.outputs[l]);
            let y = f32::from_bits(traced.outputs[4 + l]);
            assert_eq!((x, y), (p.x as f32 + 0.5, p.y as f32 + 0.5));
        }
        assert_eq!(rt2.to_bytes(), normal);
    }
}
