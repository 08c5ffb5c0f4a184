//! What runs: one value for a unit of GPU work — a compute dispatch or a draw — that every
//! floor above the pipeline takes (the job file builds it, the debugger and capture
//! comparison run it), with its [`Plan`] beside it; and where a lane of it lands.
//!
//! Owns: [`Work`] and running it ([`Work::run`]), and the lane lookup
//! ([`Work::locate`]): which wave, and which lane of it, a compute thread, a vertex or a
//! pixel sample runs in, by the same rules the pipeline batches by (`dispatch`'s thread
//! layout, the vertex stage's distinct vertices, the tiles' pixel batches, the widths of
//! `plan`). Does not own: the stages themselves, or the job file (`job`).
//!
//! A command list and a ray dispatch are further variants of [`Work`]; each brings its
//! own run (a ray dispatch's lanes are its ray-generation lanes, by launch index).

use std::collections::HashMap;
use std::sync::{Arc, Mutex};

use super::commands::{Command, ListReport, run_list};
use super::dispatch::{
    Bindings, DispatchHooks, DispatchReport, ObserveWave, dispatch_with, thread_layout,
};
use super::draw::{DrawError, DrawOptions, DrawReport, draw, draw_shared};
use super::plan::{BatchKind, BatchLanes, Plan, ProgramWaveSize};
use super::ps::{MergeObserver, PixelLane, PixelObserver};
use super::pso::PsoCache;
use super::rays::{RaysWork, RaysWorkReport};
use super::state::{DrawArgs, DrawState, FixedState, StripCutValue};
use super::trace::{TraceAt, TraceWave};
use crate::exec::{RunBudget, WriteSink};
use crate::ir::Shader;

/// One unit of work and everything it needs but the plan.
#[derive(Debug, Clone)]
// One value per job, moved, never stored in bulk: the dispatch stays inline.
#[allow(clippy::large_enum_variant)]
pub enum Work {
    /// A compute dispatch.
    Dispatch(DispatchWork),
    /// A draw through the graphics pipeline.
    Draw(Box<DrawWork>),
    /// A command list: dispatches, draws, clears and copies in order, over shared
    /// resources (`commands`).
    List(Vec<Command>),
    /// A `DispatchRays` over a ray-tracing pipeline (`rays`).
    Rays(Box<RaysWork>),
}

/// A dispatch: `Dispatch(x, y, z)` of one compute program.
#[derive(Debug, Clone)]
pub struct DispatchWork {
    /// The compute program.
    pub shader: Shader,
    /// What its resources are bound to.
    pub bindings: Bindings,
    /// Thread groups.
    pub groups: [u32; 3],
}

/// A draw: the programs, their bindings (a register can name different resources in the
/// two programs), the fixed state and the arguments.
#[derive(Debug, Clone)]
pub struct DrawWork {
    /// The vertex program. The programs are shared: a list's draws of one program file
    /// hold one copy of it, which stays in cache from draw to draw (each draw compares
    /// its programs with the prepared ones, `pso`).
    pub vs: Arc<Shader>,
    /// The pixel program (`None`: depth and stencil only).
    pub ps: Option<Arc<Shader>>,
    /// The vertex program's bindings.
    pub vs_bindings: Bindings,
    /// The pixel program's bindings.
    pub ps_bindings: Bindings,
    /// The geometry program and its bindings (`None`: vertices go straight to clipping).
    pub gs: Option<(Arc<Shader>, Bindings)>,
    /// The hull program and its bindings (`None`: no tessellation).
    pub hs: Option<(Arc<Shader>, Bindings)>,
    /// The domain program and its bindings (with a hull program).
    pub ds: Option<(Arc<Shader>, Bindings)>,
    /// Everything of the draw state but the programs.
    pub fixed: Arc<FixedState>,
    /// `DrawInstanced` / `DrawIndexedInstanced` arguments.
    pub args: DrawArgs,
    /// A mesh draw: `vs` is then the mesh program and `vs_bindings` its bindings (see
    /// [`DrawState::mesh`]).
    pub mesh: Option<MeshWork>,
    /// A view-instanced draw: the one view whose pass the runs' observers, traced wave
    /// and write sink watch (`DrawOptions::view`), and so the view a lane is looked
    /// for in. `None`: every pass (a draw of one view needs no more).
    pub view: Option<u32>,
}

/// The mesh part of a [`DrawWork`]: the amplification program and the grid.
#[derive(Debug, Clone)]
pub struct MeshWork {
    /// The amplification program and its bindings, when the pipeline has one.
    pub amplification: Option<(Arc<Shader>, Bindings)>,
    /// `DispatchMesh`'s thread groups.
    pub groups: [u32; 3],
}

impl DrawWork {
    /// The draw state.
    pub fn state(&self) -> DrawState<'_> {
        let mut s = self.fixed.state(
            &self.vs,
            self.ps.as_deref(),
            &self.vs_bindings,
            &self.ps_bindings,
        );
        s.gs = self.gs.as_ref().map(|(g, b)| (&**g, b));
        s.mesh = self.mesh.as_ref().map(|m| super::ms::MeshDraw {
            ms: (&self.vs, &self.vs_bindings),
            amplification: m.amplification.as_ref().map(|(a, b)| (&**a, b)),
            groups: m.groups,
        });
        s.hs = self.hs.as_ref().map(|(g, b)| (&**g, b));
        s.ds = self.ds.as_ref().map(|(g, b)| (&**g, b));
        s
    }

    /// Whether the draw is `DrawIndexedInstanced` (it has an index buffer).
    pub fn indexed(&self) -> bool {
        self.fixed.index_buffer().is_some()
    }

    /// Width, height and samples per pixel of the targets (the first render target, else
    /// the depth buffer); zeros without either.
    pub fn target_size(&self) -> (u32, u32, u32) {
        let f = &self.fixed;
        f.render_targets()
            .iter()
            .flatten()
            .map(|r| r.texture.desc())
            .next()
            .or_else(|| f.depth_stencil_view().map(|v| v.texture.desc()))
            .map_or((0, 0, 0), |d| (d.width, d.height, d.samples))
    }
}

/// Who watches a run. Each field applies to the kinds of work named; the default
/// watches nothing.
#[derive(Default)]
pub struct Hooks<'a> {
    /// Dispatch: every lane's memory writes. Draw: every write of the vertex and pixel
    /// lanes but a traced wave's (`DrawOptions::memory`). Rays: every write of the
    /// launch's lanes and the programs they ran, but a traced wave's own.
    pub writes: Option<&'a dyn WriteSink>,
    /// Draw: every write of the geometry, hull, domain, mesh and amplification lanes
    /// but a traced wave's, with the lane (`DrawOptions::lanes`).
    pub lanes: Option<&'a dyn super::draw::LaneWriteSink>,
    /// Dispatch: one wave of one group, traced.
    pub observe: Option<ObserveWave<'a>>,
    /// Draw: every pixel wave.
    pub pixels: Option<&'a dyn PixelObserver>,
    /// Draw: every sample the output merger writes.
    pub merges: Option<&'a dyn MergeObserver>,
    /// Draw: one wave run traced.
    pub trace: Option<&'a TraceWave<'a>>,
    /// Dispatch: called with (groups done, groups in all) from the worker threads.
    pub progress: Option<&'a (dyn Fn(u64, u64) + Sync)>,
    /// The budget to charge; `None`: the work's own, from `Plan::limits`. A command list
    /// charges one budget for all its commands.
    pub budget: Option<&'a RunBudget>,
    /// Draw: what the draws of one command list keep from one draw to the next
    /// (`DrawOptions::pso`); `run_list` makes one for each list it runs.
    pub pso: Option<&'a PsoCache>,
}

impl<'a> Hooks<'a> {
    /// The options a draw under `plan` runs with: these hooks' pixel, merge, memory
    /// and trace watchers.
    pub fn draw_options(&self, plan: &Plan) -> DrawOptions<'a> {
        DrawOptions {
            plan: plan.clone(),
            observer: self.pixels,
            writes: self.merges,
            trace: self.trace,
            memory: self.writes,
            lanes: self.lanes,
            view: None,
            pso: self.pso,
        }
    }
}

/// What a run did.
#[derive(Debug, Clone)]
// One report per run or per command: the dispatch's report stays inline.
#[allow(clippy::large_enum_variant)]
pub enum WorkReport {
    /// A dispatch's report.
    Dispatch(DispatchReport),
    /// A draw's report.
    Draw(Box<DrawReport>),
    /// A command list's: one per command.
    List(ListReport),
    /// A `DispatchRays`'s.
    Rays(RaysWorkReport),
}

/// Which lane to find.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneSelect {
    /// A compute thread by `SV_DispatchThreadID`.
    Thread([u32; 3]),
    /// A compute thread by `SV_GroupID` and `SV_GroupThreadID`.
    GroupThread {
        /// The group.
        group: [u32; 3],
        /// The thread in it.
        thread: [u32; 3],
    },
    /// The pixel-program lane that shaded sample `sample` of pixel (`x`, `y`) for the
    /// `prim`-th primitive covering it, in draw order (0: the first).
    Pixel {
        /// Pixel x.
        x: u32,
        /// Pixel y.
        y: u32,
        /// The sample (0 without MSAA).
        sample: u32,
        /// Which of the primitives covering the sample.
        prim: u32,
    },
    /// The vertex-program lane of `SV_VertexID` `vertex` of instance `instance`.
    Vertex {
        /// `SV_VertexID` (the index value of an indexed draw).
        vertex: u32,
        /// `SV_InstanceID`.
        instance: u32,
    },
    /// The geometry-program lane of input primitive `prim` (its number among the
    /// geometry stage's input primitives of draw instance `instance`, in the order the
    /// stage reads them: `SV_PrimitiveID` without tessellation) and `SV_GSInstanceID`
    /// `gs_instance`.
    Geometry {
        /// The input primitive.
        prim: u32,
        /// `SV_GSInstanceID`.
        gs_instance: u32,
        /// The draw instance.
        instance: u32,
    },
    /// The hull-program lane of patch `patch` (`SV_PrimitiveID`) of draw instance
    /// `instance`: the control-point phase's lane of `SV_OutputControlPointID`
    /// `Some(k)`, or the patch-constant phase's lane (`None`).
    Hull {
        /// The patch.
        patch: u32,
        /// `SV_OutputControlPointID`; `None` for the patch-constant phase.
        control_point: Option<u32>,
        /// With `control_point` `None`: a DXBC program's join phases, which run after
        /// the fork phases in a pass of their own, rather than the fork phases.
        join: bool,
        /// The draw instance.
        instance: u32,
    },
    /// The domain-program lane of domain point `point` (in the tessellator's order, as
    /// `dxlane tessellate` lists them) of patch `patch` of draw instance `instance`.
    Domain {
        /// The patch.
        patch: u32,
        /// The domain point.
        point: u32,
        /// The draw instance.
        instance: u32,
    },
    /// The mesh-program lane of thread `thread` (`SV_GroupThreadID`) of mesh group
    /// `group` (`SV_GroupID`) of a mesh draw; with an amplification program, of the
    /// grid amplification group `launch` launched (`None`: the amplification grid has
    /// one group, which launched it).
    Mesh {
        /// The amplification group that launched the mesh group.
        launch: Option<[u32; 3]>,
        /// The mesh group.
        group: [u32; 3],
        /// The thread in it.
        thread: [u32; 3],
    },
    /// The amplification-program lane of thread `thread` of amplification group `group`.
    Amplification {
        /// The amplification group.
        group: [u32; 3],
        /// The thread in it.
        thread: [u32; 3],
    },
    /// The ray-generation lane of launch index `DispatchRaysIndex()` of a
    /// `DispatchRays`.
    Ray([u32; 3]),
}

/// Where a lane runs: its group, its wave (of the program's wave size) and its lane in
/// the wave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LanePlace {
    /// `SV_GroupID` (zeros for a draw).
    pub group: [u32; 3],
    /// Wave index in the group (a draw: in the lane's vertex list or pixel batch's tile).
    pub wave: usize,
    /// Lane in the wave.
    pub lane: usize,
    /// Lanes per wave.
    pub wave_size: u32,
    /// Draws: the wave to trace (`TraceWave`).
    pub draw: Option<TraceAt>,
}

/// Why a lane could not be found: the selection is outside the work, or the work fails
/// before the lane runs. The text names what was asked and the extent there is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{0}")]
pub struct LocateError(pub String);

impl Work {
    /// Runs the work under `plan`, reporting to `hooks`.
    pub fn run(&self, plan: &Plan, hooks: Hooks<'_>) -> Result<WorkReport, DrawError> {
        match self {
            Work::Dispatch(d) => dispatch_with(
                &d.shader,
                &d.bindings,
                d.groups,
                plan,
                hooks.progress,
                DispatchHooks {
                    writes: hooks.writes,
                    observe: hooks.observe,
                    budget: hooks.budget,
                },
            )
            .map(WorkReport::Dispatch)
            .map_err(DrawError::Exec),
            Work::Draw(d) => {
                let opts = DrawOptions {
                    view: d.view,
                    ..hooks.draw_options(plan)
                };
                let shared = super::pso::SharedState {
                    fixed: &d.fixed,
                    vs: &d.vs,
                    ps: d.ps.as_ref(),
                };
                let r = match hooks.budget {
                    Some(b) => draw_shared(&d.state(), &d.args, &opts, b, Some(shared)),
                    None => draw(&d.state(), &d.args, &opts),
                };
                r.map(|r| WorkReport::Draw(Box::new(r)))
            }
            Work::List(commands) => run_list(commands, plan, hooks.budget).map(WorkReport::List),
            Work::Rays(r) => r
                .run_traced(plan, hooks.budget, hooks.trace, hooks.writes)
                .map(WorkReport::Rays)
                .map_err(DrawError::Exec),
        }
    }

    /// The program a lane selection runs: a dispatch's program; a draw's vertex program
    /// for a vertex, its pixel program for a pixel. `None` when the selection does not
    /// fit the kind of work, or the draw has no pixel program.
    pub fn program_for(&self, sel: LaneSelect) -> Option<&Shader> {
        match (self, sel) {
            (Work::Dispatch(d), LaneSelect::Thread(_) | LaneSelect::GroupThread { .. }) => {
                Some(&d.shader)
            }
            (Work::Draw(d), LaneSelect::Vertex { .. }) => Some(&*d.vs),
            (Work::Draw(d), LaneSelect::Pixel { .. }) => d.ps.as_deref(),
            (Work::Draw(d), LaneSelect::Geometry { .. }) => d.gs.as_ref().map(|g| &*g.0),
            (Work::Draw(d), LaneSelect::Hull { .. }) => d.hs.as_ref().map(|g| &*g.0),
            (Work::Draw(d), LaneSelect::Domain { .. }) => d.ds.as_ref().map(|g| &*g.0),
            (Work::Draw(d), LaneSelect::Mesh { .. }) => d.mesh.as_ref().map(|_| &*d.vs),
            (Work::Draw(d), LaneSelect::Amplification { .. }) => d
                .mesh
                .as_ref()
                .and_then(|m| m.amplification.as_ref())
                .map(|a| &*a.0),
            (Work::Rays(r), LaneSelect::Ray(_)) => r.programs.get(r.raygen).map(|p| &p.0),
            _ => None,
        }
    }

    /// The selection ([`LaneSelect::Pixel`]) that names pixel lane `lane` for sample
    /// `sample` of its pixel: which of the primitives covering that sample, in draw
    /// order, the lane's primitive is — the rank [`Work::locate`] takes. Draws once, as
    /// `locate` does (a caller that needs the starting contents restores them).
    pub fn pixel_select(
        &self,
        plan: &Plan,
        lane: &PixelLane,
        sample: u32,
    ) -> Result<LaneSelect, LocateError> {
        self.pixel_selects(plan, &[(*lane, sample)])?
            .pop()
            .unwrap_or_else(|| Err(LocateError("no lane".into())))
    }

    /// [`Work::pixel_select`] for several lanes, by one draw.
    pub fn pixel_selects(
        &self,
        plan: &Plan,
        lanes: &[(PixelLane, u32)],
    ) -> Result<Vec<Result<LaneSelect, LocateError>>, LocateError> {
        let Work::Draw(d) = self else {
            return Err(LocateError("only a draw has pixel lanes".into()));
        };
        let keys: Vec<(u32, u32, u32)> = lanes.iter().map(|(l, s)| (l.x, l.y, *s)).collect();
        let found = covering_all(d, plan, &keys)?;
        Ok(lanes
            .iter()
            .map(|(lane, sample)| {
                let sample = *sample;
                found
                    .get(&(lane.x, lane.y, sample))
                    .and_then(|v| v.iter().position(|f| f.0 == lane.prim))
                    .map(|rank| LaneSelect::Pixel {
                        x: lane.x,
                        y: lane.y,
                        sample,
                        prim: rank as u32,
                    })
                    .ok_or_else(|| {
                        LocateError(format!(
                            "pixel ({}, {}) sample {sample}: primitive {} does not cover it",
                            lane.x, lane.y, lane.prim
                        ))
                    })
            })
            .collect())
    }

    /// Where the selected lane runs under `plan`, in waves of its program's wave size.
    ///
    /// - A compute thread: its group, and its slot in the group's thread layout
    ///   (`dispatch::thread_layout`) cut into waves.
    /// - A vertex: its slot among the draw's distinct vertices in increasing order (what
    ///   the vertex stage shades: `ia::distinct_vertices`) cut into waves; the same slot
    ///   in every instance.
    /// - A pixel sample: the pixel batch of the tile that shaded it for the `prim`-th
    ///   covering primitive, found by drawing once with a pixel observer (which batch a
    ///   pixel lands in follows from rasterization, early depth and the tiles' order,
    ///   which only the draw knows); the batch is then cut into waves by
    ///   [`BatchLanes`]. That draw writes the targets and resources as a draw does: a
    ///   caller that needs the starting contents restores them.
    pub fn locate(&self, plan: &Plan, sel: LaneSelect) -> Result<LanePlace, LocateError> {
        match self {
            Work::Dispatch(d) => locate_thread(d, plan, sel),
            Work::Draw(d) => match sel {
                LaneSelect::Vertex { vertex, instance } => locate_vertex(d, plan, vertex, instance),
                LaneSelect::Pixel { x, y, sample, prim } => {
                    locate_pixel(d, plan, x, y, sample, prim)
                }
                LaneSelect::Geometry { .. } | LaneSelect::Hull { .. } | LaneSelect::Domain { .. } => {
                    locate_stage(d, plan, sel)
                }
                LaneSelect::Mesh { .. } | LaneSelect::Amplification { .. } => {
                    locate_mesh(d, plan, sel)
                }
                _ => Err(LocateError(
                    "a draw has pixels and vertices (and geometry, hull and domain lanes), not threads"
                        .into(),
                )),
            },
            Work::List(_) => Err(LocateError(
                "a command list: choose one of its draws or dispatches to find a lane in".into(),
            )),
            Work::Rays(r) => match sel {
                LaneSelect::Ray(index) => locate_ray(r, plan, index),
                _ => Err(LocateError(
                    "a ray dispatch has ray-generation lanes, not threads, pixels or vertices: give --ray x,y[,z]".into(),
                )),
            },
        }
    }
}

/// A ray-generation lane: its launch index's place in D3D's order (x fastest) cut into
/// waves of the ray-generation program's wave size, as `rays::dispatch_rays` runs them.
fn locate_ray(r: &RaysWork, plan: &Plan, index: [u32; 3]) -> Result<LanePlace, LocateError> {
    let d = r.dims;
    if (0..3).any(|k| index[k] >= d[k]) {
        let last = |k: usize| d[k].saturating_sub(1);
        return Err(LocateError(format!(
            "--ray {},{},{}: outside the dispatch: DispatchRays({}, {}, {}) launches rays (0, 0, 0) to ({}, {}, {})",
            index[0],
            index[1],
            index[2],
            d[0],
            d[1],
            d[2],
            last(0),
            last(1),
            last(2)
        )));
    }
    let shader = r
        .programs
        .get(r.raygen)
        .map(|p| &p.0)
        .ok_or_else(|| LocateError("the pipeline has no ray-generation program".into()))?;
    let w = plan.wave_size_of(shader).map_err(lane_err)?.get();
    let linear = u64::from(index[0])
        + u64::from(d[0]) * (u64::from(index[1]) + u64::from(d[1]) * u64::from(index[2]));
    let wave = linear / u64::from(w);
    Ok(LanePlace {
        group: [0; 3],
        wave: usize::try_from(wave).unwrap_or(usize::MAX),
        lane: (linear % u64::from(w)) as usize,
        wave_size: w,
        draw: Some(TraceAt::Ray { wave, dims: d }),
    })
}

fn lane_err(e: impl ToString) -> LocateError {
    LocateError(e.to_string())
}

fn locate_thread(d: &DispatchWork, plan: &Plan, sel: LaneSelect) -> Result<LanePlace, LocateError> {
    let tg = d.shader.thread_group;
    let g = d.groups;
    let (group, thread) = match sel {
        LaneSelect::Thread(t) => {
            if (0..3).any(|k| u64::from(t[k]) >= u64::from(g[k]) * u64::from(tg[k])) {
                let last = |k: usize| (u64::from(g[k]) * u64::from(tg[k])).saturating_sub(1);
                return Err(LocateError(format!(
                    "thread ({}, {}, {}) is outside the dispatch: {} × {} × {} groups of {} × {} × {} threads make threads (0, 0, 0) to ({}, {}, {})",
                    t[0],
                    t[1],
                    t[2],
                    g[0],
                    g[1],
                    g[2],
                    tg[0],
                    tg[1],
                    tg[2],
                    last(0),
                    last(1),
                    last(2)
                )));
            }
            (
                [t[0] / tg[0], t[1] / tg[1], t[2] / tg[2]],
                [t[0] % tg[0], t[1] % tg[1], t[2] % tg[2]],
            )
        }
        LaneSelect::GroupThread { group, thread } => {
            if (0..3).any(|k| group[k] >= g[k]) {
                return Err(LocateError(format!(
                    "group ({}, {}, {}) is outside the dispatch of {} × {} × {} groups",
                    group[0], group[1], group[2], g[0], g[1], g[2]
                )));
            }
            if (0..3).any(|k| thread[k] >= tg[k]) {
                return Err(LocateError(format!(
                    "group thread ({}, {}, {}) is outside the thread group of {} × {} × {}",
                    thread[0], thread[1], thread[2], tg[0], tg[1], tg[2]
                )));
            }
            (group, thread)
        }
        _ => {
            return Err(LocateError(
                "a compute job has threads, not pixels or vertices (nor geometry, hull and domain lanes)"
                    .into(),
            ));
        }
    };
    let w = plan.wave_size_of(&d.shader).map_err(lane_err)?.get();
    let (layout, _) = thread_layout(tg);
    let slot = layout
        .iter()
        .position(|x| *x == thread)
        .ok_or_else(|| LocateError("the thread has no lane slot".into()))?;
    Ok(LanePlace {
        group,
        wave: slot / w as usize,
        lane: slot % w as usize,
        wave_size: w,
        draw: None,
    })
}

fn locate_vertex(
    d: &DrawWork,
    plan: &Plan,
    vertex: u32,
    instance: u32,
) -> Result<LanePlace, LocateError> {
    let a = &d.args;
    if instance >= a.instance_count {
        return Err(LocateError(format!(
            "instance {instance}: the draw has {} instance(s) (0 to {})",
            a.instance_count,
            a.instance_count.saturating_sub(1)
        )));
    }
    let st = d.state();
    // The index stream is held twice over (ids and distinct ids), as the draw holds it.
    let (ids, cut) = index_stream(d, plan)?;
    let mut unique = Vec::new();
    super::ia::distinct_vertices(&ids, cut, &mut unique);
    let slot = unique.binary_search(&vertex).map_err(|_| {
        LocateError(match (&st.index_buffer, unique.first(), unique.last()) {
            (None, _, _) => format!(
                "vertex {vertex} is past the draw: it shades vertices 0 to {}",
                a.vertex_count.saturating_sub(1)
            ),
            (Some(_), Some(lo), Some(hi)) => format!(
                "vertex {vertex} is not drawn: the index buffer names {} distinct vertices, {lo} to {hi}",
                unique.len()
            ),
            _ => "the draw shades no vertex".to_string(),
        })
    })?;
    let wave = plan.wave_size_of(&d.vs).map_err(lane_err)?.get();
    Ok(LanePlace {
        group: [0; 3],
        wave: slot / wave as usize,
        lane: slot % wave as usize,
        wave_size: wave,
        draw: Some(TraceAt::Vertex { vertex, instance }),
    })
}

/// The draw's index stream (stream position → `SV_VertexID`) and its cut value, as the
/// draw reads them; refused past the memory limit as the draw would be.
fn index_stream(d: &DrawWork, plan: &Plan) -> Result<(Vec<u32>, Option<u32>), LocateError> {
    let a = &d.args;
    let st = d.state();
    let cut = match (&st.index_buffer, st.strip_cut) {
        (Some(ib), StripCutValue::Enabled) => Some(super::ia::cut_value(ib.format)),
        _ => None,
    };
    if u64::from(a.vertex_count).saturating_mul(8) > plan.limits.max_memory_bytes {
        return Err(LocateError(format!(
            "the draw's {} vertices need more than the memory limit of {} bytes to list",
            a.vertex_count, plan.limits.max_memory_bytes
        )));
    }
    let mut ids = Vec::new();
    super::ia::extend_index_stream(st.index_buffer.as_ref(), a, &mut ids);
    Ok((ids, cut))
}

/// A geometry, hull or domain lane ([`LaneSelect::Geometry`], [`LaneSelect::Hull`],
/// [`LaneSelect::Domain`]): the stage runs its lanes of one draw instance in order, in
/// waves of its program's wave size (`gs`, `hs`, `ds`), so the lane's slot is its number
/// in that order: primitive × `[instance(n)]` + `SV_GSInstanceID` (geometry), patch ×
/// output control points + `SV_OutputControlPointID` (control-point phase), the patch
/// (patch-constant phase), the domain point (domain: one patch a run). The counts the
/// arguments fix are checked here; the geometry stage's input primitives after
/// tessellation and a patch's domain points are known only when the draw runs (a lane
/// past them never runs, which the session says).
fn locate_stage(d: &DrawWork, plan: &Plan, sel: LaneSelect) -> Result<LanePlace, LocateError> {
    let a = &d.args;
    let (instance, stage, flag) = match sel {
        LaneSelect::Geometry { instance, .. } => (instance, &d.gs, "--gs-primitive"),
        LaneSelect::Hull { instance, .. } => (instance, &d.hs, "--hs-patch"),
        LaneSelect::Domain { instance, .. } => (instance, &d.ds, "--ds-patch"),
        _ => return Err(LocateError("not a geometry, hull or domain lane".into())),
    };
    let Some((shader, _)) = stage else {
        let what = match sel {
            LaneSelect::Geometry { .. } => "geometry",
            LaneSelect::Hull { .. } => "hull",
            _ => "domain",
        };
        return Err(LocateError(format!(
            "{flag}: the draw has no {what} program"
        )));
    };
    if instance >= a.instance_count {
        return Err(LocateError(format!(
            "--instance {instance}: the draw has {} instance(s) (0 to {})",
            a.instance_count,
            a.instance_count.saturating_sub(1)
        )));
    }
    let (ids, cut) = index_stream(d, plan)?;
    let topology = d.state().topology;
    let is_cut = |p: u32| cut.is_some_and(|c| ids.get(p as usize) == Some(&c));
    let patches = || {
        let n = match topology {
            super::state::PrimitiveTopology::PatchList(n) => u32::from(n),
            _ => 0,
        };
        let mut count = 0u32;
        super::ia::patches(n, a.vertex_count, &is_cut, &mut |_, _| {
            count += 1;
            true
        });
        count
    };
    let check_patch = |patch: u32| {
        let n = patches();
        if patch >= n {
            return Err(LocateError(format!(
                "{flag} {patch}: the draw makes {n} patch(es) an instance{}",
                if n == 0 {
                    String::new()
                } else {
                    format!(" (0 to {})", n - 1)
                }
            )));
        }
        Ok(())
    };
    let slot: u64 = match sel {
        LaneSelect::Geometry {
            prim, gs_instance, ..
        } => {
            let Some(g) = shader.geometry else {
                return Err(LocateError(
                    "the geometry program has no geometry state".into(),
                ));
            };
            if gs_instance >= g.instances {
                return Err(LocateError(format!(
                    "--gs-instance {gs_instance}: the geometry program runs {} instance(s) a primitive (0 to {})",
                    g.instances,
                    g.instances.saturating_sub(1)
                )));
            }
            if d.hs.is_none() {
                let mut count = 0u32;
                super::ia::assemble(topology, a.vertex_count, &is_cut, &mut |_| {
                    count += 1;
                    true
                });
                if prim >= count {
                    return Err(LocateError(format!(
                        "--gs-primitive {prim}: the draw assembles {count} primitive(s) an instance{}",
                        if count == 0 {
                            String::new()
                        } else {
                            format!(" (0 to {})", count - 1)
                        }
                    )));
                }
            }
            u64::from(prim) * u64::from(g.instances) + u64::from(gs_instance)
        }
        LaneSelect::Hull {
            patch,
            control_point,
            join,
            ..
        } => {
            let Some(h) = shader.hull else {
                return Err(LocateError("the hull program has no hull state".into()));
            };
            check_patch(patch)?;
            if join && !h.join {
                return Err(LocateError(
                    "--join-phase: the hull program has no join phase (its patch constants come from its fork phases or patch-constant function: --patch-constant)".into(),
                ));
            }
            match control_point {
                None => u64::from(patch),
                Some(_) if h.pass_through => {
                    return Err(LocateError(
                        "--control-point: the hull program has no control-point phase (its output control points are its input control points): debug the vertex that feeds it, or the patch-constant phase (--patch-constant)".into(),
                    ));
                }
                Some(k) if k >= h.output_points => {
                    return Err(LocateError(format!(
                        "--control-point {k}: the hull program outputs {} control point(s) a patch (0 to {})",
                        h.output_points,
                        h.output_points.saturating_sub(1)
                    )));
                }
                Some(k) => u64::from(patch) * u64::from(h.output_points) + u64::from(k),
            }
        }
        LaneSelect::Domain { patch, point, .. } => {
            check_patch(patch)?;
            u64::from(point)
        }
        _ => 0,
    };
    let w = plan.wave_size_of(shader).map_err(lane_err)?.get();
    let at = match sel {
        LaneSelect::Geometry {
            prim, gs_instance, ..
        } => TraceAt::Geometry {
            instance,
            prim,
            gs_instance,
        },
        LaneSelect::Hull {
            patch,
            control_point,
            join,
            ..
        } => TraceAt::Hull {
            instance,
            patch,
            point: control_point,
            join: join && control_point.is_none(),
        },
        LaneSelect::Domain { patch, point, .. } => TraceAt::Domain {
            instance,
            patch,
            point,
        },
        _ => return Err(LocateError("not a geometry, hull or domain lane".into())),
    };
    Ok(LanePlace {
        group: [0; 3],
        wave: (slot / u64::from(w)) as usize,
        lane: (slot % u64::from(w)) as usize,
        wave_size: w,
        draw: Some(at),
    })
}

fn xyz_text(v: [u32; 3]) -> String {
    format!("{},{},{}", v[0], v[1], v[2])
}

/// The grid `groups` as the last group in it, for messages: `(x, y, z)`.
fn grid_text(groups: [u32; 3]) -> String {
    let last = groups.map(|g| g.saturating_sub(1));
    format!(
        "{} × {} × {} groups: (0, 0, 0) to ({}, {}, {})",
        groups[0], groups[1], groups[2], last[0], last[1], last[2]
    )
}

/// A mesh or amplification lane ([`LaneSelect::Mesh`], [`LaneSelect::Amplification`]):
/// its group runs as a compute group does (`ms`, `amplification`), so the lane's slot is
/// its thread's slot in the group's thread layout (`dispatch::thread_layout`), cut into
/// waves of the program's wave size. The group must be in the grid: the draw's
/// `DispatchMesh` grid for an amplification group (or a mesh group without an
/// amplification program); the grid its amplification group launched for a mesh group,
/// found by running that amplification group once (its resource writes are made as
/// the draw makes them: a caller that needs the starting contents restores them).
fn locate_mesh(d: &DrawWork, plan: &Plan, sel: LaneSelect) -> Result<LanePlace, LocateError> {
    let (gflag, tflag) = match sel {
        LaneSelect::Mesh { .. } => ("--ms-group", "--ms-thread"),
        _ => ("--as-group", "--as-thread"),
    };
    let Some(m) = &d.mesh else {
        return Err(LocateError(format!(
            "{gflag}: the draw has no {} program (it draws with a vertex program: debug a vertex with --vertex n)",
            if gflag == "--ms-group" {
                "mesh"
            } else {
                "amplification"
            }
        )));
    };
    let state = d.state();
    let Some(md) = state.mesh else {
        return Err(LocateError(format!(
            "{gflag}: the draw has no mesh program"
        )));
    };
    let outside = |flag: &str, v: [u32; 3], grid: [u32; 3], what: &str| {
        if (0..3).any(|k| v[k] >= grid[k]) {
            Err(LocateError(format!(
                "{flag} {}: outside {what} of {}",
                xyz_text(v),
                grid_text(grid)
            )))
        } else {
            Ok(())
        }
    };
    // The wave is filled in once the thread's slot is known.
    let (shader, group, thread, mut at): (&Shader, [u32; 3], [u32; 3], TraceAt) = match sel {
        LaneSelect::Amplification { group, thread } => {
            let Some((a, _)) = &m.amplification else {
                return Err(LocateError(
                        "--as-group: the draw has no amplification program (`DispatchMesh` launches its mesh groups itself: give --ms-group)".into(),
                    ));
            };
            outside(gflag, group, m.groups, "the draw's DispatchMesh grid")?;
            (a, group, thread, TraceAt::Amplification { group, wave: 0 })
        }
        LaneSelect::Mesh {
            launch,
            group,
            thread,
        } => {
            let launch = match (&m.amplification, launch) {
                (None, Some(l)) => {
                    return Err(LocateError(format!(
                        "--as-group {}: the draw has no amplification program (`DispatchMesh` launches its mesh groups itself)",
                        xyz_text(l)
                    )));
                }
                (None, None) => {
                    outside(gflag, group, m.groups, "the draw's DispatchMesh grid")?;
                    None
                }
                (Some(_), l) => {
                    let l = match l {
                        Some(l) => l,
                        None if m.groups == [1, 1, 1] => [0; 3],
                        None => {
                            return Err(LocateError(format!(
                                "{gflag} {}: the draw's amplification program runs {}; name the one that launched the mesh group with --as-group x,y,z",
                                xyz_text(group),
                                grid_text(m.groups)
                            )));
                        }
                    };
                    outside("--as-group", l, m.groups, "the draw's DispatchMesh grid")?;
                    let launched = super::ms::launched_by(&md, plan, l).map_err(|e| {
                            LocateError(format!(
                                "--as-group {}: the amplification group fails before launching its mesh groups: {e}",
                                xyz_text(l)
                            ))
                        })?;
                    if (0..3).any(|k| group[k] >= launched[k]) {
                        return Err(LocateError(format!(
                            "{gflag} {}: amplification group ({}, {}, {}) did not launch it: it launched {}",
                            xyz_text(group),
                            l[0],
                            l[1],
                            l[2],
                            grid_text(launched)
                        )));
                    }
                    Some(l)
                }
            };
            (
                &d.vs,
                group,
                thread,
                TraceAt::Mesh {
                    launch,
                    group,
                    wave: 0,
                },
            )
        }
        _ => return Err(LocateError("not a mesh or amplification lane".into())),
    };
    let tg = shader.thread_group;
    if (0..3).any(|k| thread[k] >= tg[k]) {
        return Err(LocateError(format!(
            "{tflag} {}: outside the {} program's [numthreads({}, {}, {})]",
            xyz_text(thread),
            if tflag == "--ms-thread" {
                "mesh"
            } else {
                "amplification"
            },
            tg[0],
            tg[1],
            tg[2]
        )));
    }
    let w = plan.wave_size_of(shader).map_err(lane_err)?.get();
    let (layout, _) = thread_layout(tg);
    let slot = layout
        .iter()
        .position(|x| *x == thread)
        .ok_or_else(|| LocateError("the thread has no lane slot".into()))?;
    let wave = slot / w as usize;
    if let TraceAt::Mesh { wave: k, .. } | TraceAt::Amplification { wave: k, .. } = &mut at {
        *k = wave as u32;
    }
    Ok(LanePlace {
        group,
        wave,
        lane: slot % w as usize,
        wave_size: w,
        draw: Some(at),
    })
}

/// The pixel lanes standing for each pixel sample: (x, y, sample) → (primitive, tile,
/// batch, lane) of each.
type Covering = HashMap<(u32, u32, u32), Vec<(u32, u32, u32, u32)>>;

/// Finds the pixel lanes standing for pixel samples ([`Covering`]).
struct Locate {
    per_sample: bool,
    found: Mutex<Covering>,
}

impl PixelObserver for Locate {
    fn wave(&self, tile: u32, wave: u32, lanes: &[PixelLane], _: &crate::exec::WaveRun, _: &[u32]) {
        let mut found = self.found.lock().unwrap_or_else(|e| e.into_inner());
        for (l, p) in lanes.iter().enumerate() {
            if p.coverage == 0 {
                continue;
            }
            let samples = if self.per_sample {
                1u32 << (p.sample & 31)
            } else {
                p.coverage
            };
            for s in 0..32u32 {
                if samples >> s & 1 == 1
                    && let Some(v) = found.get_mut(&(p.x, p.y, s))
                {
                    v.push((p.prim, tile, wave, l as u32));
                }
            }
        }
    }
}

fn locate_pixel(
    d: &DrawWork,
    plan: &Plan,
    x: u32,
    y: u32,
    sample: u32,
    prim: u32,
) -> Result<LanePlace, LocateError> {
    let Some(ps) = &d.ps else {
        return Err(LocateError(
            "the draw has no pixel program: debug a vertex lane (--vertex n)".into(),
        ));
    };
    let (w, h, n) = d.target_size();
    if x >= w || y >= h {
        return Err(LocateError(format!(
            "pixel ({x}, {y}) is outside the {w} × {h} render target: pixels (0, 0) to ({}, {})",
            w.saturating_sub(1),
            h.saturating_sub(1)
        )));
    }
    if sample >= n {
        return Err(LocateError(format!(
            "sample {sample}: the render target has {n} sample(s) a pixel (0 to {})",
            n.saturating_sub(1)
        )));
    }
    let wave = plan.wave_size_of(ps).map_err(lane_err)?;
    let batch = BatchLanes::choose(ps, wave, BatchKind::Pixel);
    let found = covering(d, plan, x, y, sample)?;
    let s_text = if n > 1 {
        format!(", sample {sample},")
    } else {
        String::new()
    };
    let Some(&(_, tile, b, l)) = found.get(prim as usize) else {
        return Err(LocateError(if found.is_empty() {
            format!(
                "pixel ({x}, {y}){s_text} is covered by no primitive of the draw: no pixel-program lane shaded it"
            )
        } else {
            format!(
                "pixel ({x}, {y}){s_text} is covered by {} primitive(s); --prim takes 0 to {}",
                found.len(),
                found.len() - 1
            )
        }));
    };
    Ok(pixel_place(wave, batch, tile, b, l))
}

/// The pixel lanes standing for sample `sample` of pixel (x, y), found by drawing once
/// with a pixel observer: (primitive, tile, batch, lane), in draw order.
fn covering(
    d: &DrawWork,
    plan: &Plan,
    x: u32,
    y: u32,
    sample: u32,
) -> Result<Vec<(u32, u32, u32, u32)>, LocateError> {
    let mut all = covering_all(d, plan, &[(x, y, sample)])?;
    Ok(all.remove(&(x, y, sample)).unwrap_or_default())
}

/// [`covering`] for several pixel samples at once, by one draw.
fn covering_all(
    d: &DrawWork,
    plan: &Plan,
    samples: &[(u32, u32, u32)],
) -> Result<Covering, LocateError> {
    let st = d.state();
    let layout = super::ia::resolve_layout(&st.input_layout).map_err(|e| LocateError(e.message))?;
    // A mesh draw links its mesh program's outputs by semantic (`ms::link`).
    let linked = match &d.mesh {
        Some(_) => super::ms::link(&d.vs, d.ps.as_deref()),
        None => super::link::link_stages(
            &layout,
            &d.vs,
            d.ds.as_ref().map(|x| &*x.0),
            d.gs.as_ref().map(|x| &*x.0),
            d.ps.as_deref(),
            match &st.stream_output {
                Some(o) => Some(o.desc.rasterized_stream).filter(|&k| k < super::so::SO_STREAMS),
                None => Some(0),
            },
        ),
    };
    let per_sample = linked.map(|l| l.per_sample).map_err(lane_err)?;
    let loc = Locate {
        per_sample,
        found: Mutex::new(samples.iter().map(|k| (*k, Vec::new())).collect()),
    };
    let opts = DrawOptions {
        plan: plan.clone(),
        observer: Some(&loc),
        view: d.view,
        ..DrawOptions::default()
    };
    if let Err(e) = draw(&st, &d.args, &opts) {
        return Err(LocateError(format!(
            "the draw fails before the lane can be found: {e}"
        )));
    }
    let mut found = loc.found.into_inner().unwrap_or_else(|e| e.into_inner());
    for v in found.values_mut() {
        v.sort_unstable();
    }
    Ok(found)
}

/// Lane `lane` of batch `batch` of tile `tile`, in waves of `wave`: a batch of
/// [`BatchLanes`] holds `batch / wave` waves, back to back.
fn pixel_place(
    wave: ProgramWaveSize,
    batch: BatchLanes,
    tile: u32,
    b: u32,
    lane: u32,
) -> LanePlace {
    let w = wave.get();
    LanePlace {
        group: [0; 3],
        wave: b as usize * batch.waves(wave) as usize + (lane / w) as usize,
        lane: (lane % w) as usize,
        wave_size: w,
        draw: Some(TraceAt::Pixel {
            tile,
            batch: b,
            lane,
        }),
    }
}
