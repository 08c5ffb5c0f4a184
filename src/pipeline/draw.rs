//! A draw: the graphics pipeline from input assembly to the output merger.
//!
//! [`draw`] takes the whole state of one `DrawInstanced` / `DrawIndexedInstanced` call —
//! programs and their bindings, input layout and buffers, rasterizer, blend and
//! depth-stencil state, viewport, scissor, targets — as [`DrawState`], checks it
//! (targets, formats, stage linking) before anything runs, then:
//!
//! 1. per instance: reads the indices, shades each distinct vertex once (`vs`),
//!    assembles primitives (`ia`), clips them (`clip`) and sets them up (`setup`).
//!    Without stream output or tessellation, clipping and setup run on the worker
//!    threads, each on a contiguous range of the primitives, appended in draw order
//!    (`setup_primitives`);
//! 2. lists the primitives in the screen tiles they touch (`bin`), on the workers too;
//! 3. runs the tiles on worker threads (`tile`), each on a private copy of its part of
//!    the targets: coverage (`raster`), early depth-stencil when the pixel program
//!    allows it, pixel waves (`ps`), the output merger (`om::tile`), then the tile is
//!    stored back. A one-sample UNORM8 target that the merge only ever overwrites (see
//!    `om::tile::in_place_targets`) is written in place instead, with no copy to load or
//!    store.
//!
//! This module owns the orchestration: checking the state, choosing wave and batch
//! sizes, preparing the programs (and the traced wave's, `trace`), the index stream and
//! its distinct vertices, the draw's memory limit, and the report.
//!
//! Tiles own disjoint pixels and take their primitives in draw order, so the targets do
//! not depend on the number of worker threads. (UAV writes and atomics from pixel programs
//! happen in tile order, which does: as for compute, only an order-dependent program sees
//! that; a [`DrawOptions::memory`] sink, which hears every UAV write, makes the draw run on
//! one worker.) On an error, the lowest-numbered failing tile's error is returned.
//!
//! # Example
//!
//! ```
//! use dxlane::ir::parse_shader;
//! use dxlane::pipeline::{draw, Bindings, DrawArgs, DrawOptions, DrawState, RenderTargetView};
//! use dxlane::resources::{Format, Texture, TextureDesc};
//!
//! // A vertex program making a full-screen triangle from SV_VertexID, and a pixel
//! // program writing a constant colour.
//! let vs = parse_shader(r#"shader vertex
//! regs 8
//! const r0 = 0x1
//! const r1 = 0x2
//! const r2 = 0x40800000 ; 4.0
//! const r3 = 0x3f800000 ; 1.0
//! const r4 = 0x0
//! io_words in 4 out 4
//! input "SV_VertexID" 0 sv vertex_id reg 0 rows 1 mask x uint interp undefined slot 0
//! output "SV_Position" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0
//! block0:
//!     input r5, 0
//!     and r6, r5, r0
//!     utof r6, r6
//!     fmul r6, r6, r2
//!     fsub r6, r6, r3
//!     output 0, r6
//!     and r7, r5, r1
//!     utof r7, r7
//!     fmul r7, r7, r2
//!     fsub r7, r7, r3
//!     fsub r7, r4, r7
//!     output 1, r7
//!     output 2, r4
//!     output 3, r3
//!     return
//! "#).unwrap();
//! let ps = parse_shader(r#"shader pixel
//! regs 2
//! const r0 = 0x3f800000 ; 1.0
//! const r1 = 0x0
//! io_words in 0 out 4
//! output "SV_Target" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0
//! block0:
//!     output 0, r1
//!     output 1, r0
//!     output 2, r1
//!     output 3, r0
//!     return
//! "#).unwrap();
//! let rt = Texture::new(TextureDesc::tex2d(Format::R8G8B8A8_UNORM, 4, 4)).unwrap();
//! let none = Bindings::default();
//! let mut state = DrawState::new(&vs, Some(&ps), &none, &none);
//! state.render_targets = vec![Some(RenderTargetView { texture: rt.clone() })];
//! state.rasterizer.cull_mode = dxlane::pipeline::CullMode::None;
//! let args = DrawArgs { vertex_count: 3, ..DrawArgs::default() };
//! let report = draw(&state, &args, &DrawOptions::default()).unwrap();
//! assert_eq!(report.pixels_shaded, 16);
//! assert_eq!(&rt.to_bytes()[..4], &[0, 255, 0, 255]);
//! ```

use std::sync::Arc;
use std::time::Instant;

use super::bin::{Binned, Bins};
use super::clip::{self, ClipSetup, Clipped, Weights};
use super::gs;
use super::hs::{self, HullOutputs};
use super::ia::{self, Element, PrimKind};
use super::link::{self, LinkError, Linked};
use super::ms;
use super::om::tile::OutputMerger;
use super::om::{self, TargetClass};
use super::plan::{BatchKind, BatchLanes, Plan, ProgramWaveSize};
use super::ps::{self, MergeObserver, PixelObserver, PixelStage, PsOutputs};
use super::pso::{PsoCache, SharedState};
use super::raster::Pattern;
use super::setup::{self, Prim, SetupState};
use super::so::{self, SoLayout, SoWriter};
use super::state::*;
use super::tess::{self, TessBudget, TessFactors, TessellatorDesc};
use super::tile::{TileCtx, TileStats};
use super::trace::{self, Hook, TraceProgram};
use super::view_instancing::{ViewInstanceLocation, effective_index};
use super::vrs;
use super::vs::{self, VertexJob, VertexOutputs};
use super::work::LaneSelect;
use super::{ds, link::TessLinks};
use crate::exec::jit::Engine;
use crate::exec::{DescriptorTable, ExecError, MemWrite, RunBudget, StageProgram, WriteSink};
use crate::ir::{ComponentType, MeshTopology, Shader, SysValue};
use crate::resources::Format;

// The paths these types had when they were defined here.
pub use super::state::{DrawState, FixedState};
pub use super::trace::{TraceAt, TraceWave, Traced};

/// How to run a draw: the plan, and who watches.
#[derive(Clone, Default)]
pub struct DrawOptions<'a> {
    /// Wave size, worker threads, profile, limits (the instruction budget applies to every
    /// vertex and pixel lane) and the engine of the vertex and pixel programs (a traced
    /// wave always runs in the interpreter).
    pub plan: Plan,
    /// Sees every pixel wave.
    pub observer: Option<&'a dyn PixelObserver>,
    /// Sees every sample the output merger writes (write tracking).
    pub writes: Option<&'a dyn MergeObserver>,
    /// One wave to run traced (the debugger's hook); `None` for a normal draw.
    pub trace: Option<&'a TraceWave<'a>>,
    /// Hears every memory write of the vertex and pixel lanes but the traced wave's
    /// (whose observer hears them): what the debugger's memory watches need of the
    /// other waves. With a sink the draw runs on one worker thread, so the sink hears
    /// the writes in the order they happen, which is the same in every run: vertex
    /// waves first, then the tiles in row-major order, each tile's waves in the order
    /// they ran. `None` (a normal draw) costs one branch per store instruction.
    pub memory: Option<&'a dyn WriteSink>,
    /// Hears every memory write of the geometry, hull, domain, mesh and amplification
    /// lanes but a traced wave's, each with the lane that made it ([`LaneWriteSink`]).
    /// As with `memory`, the draw then runs on one worker thread, so the writes come in
    /// the order the stages run them: per view, per draw instance, the vertex waves,
    /// the hull stage, each patch's domain lanes, the geometry stage; or the
    /// amplification groups, then the mesh groups in launch order. `None` costs one
    /// branch per store instruction.
    pub lanes: Option<&'a dyn LaneWriteSink>,
    /// A view-instanced draw: the one view whose pass `observer`, `writes`, `trace` and
    /// `memory` see; the other views' passes run without them, as in a normal draw.
    /// `None`: every pass is seen (and a wave to trace needs a draw of one view). A view
    /// the draw does not run is refused.
    pub view: Option<u32>,
    /// What the draws of one command list keep from one draw to the next (`pso`): the
    /// vertex and pixel programs prepared, their waves, a small draw's tile lists.
    /// `None`: the draw prepares and allocates its own. The image is the same either
    /// way.
    pub pso: Option<&'a PsoCache>,
}

/// Hears the memory writes of a draw's lanes that are neither vertex nor pixel lanes
/// (`Invocation` names those two; a geometry, hull, domain, mesh or amplification lane
/// needs its stage, draw instance and place, which only the pipeline knows).
pub trait LaneWriteSink: Sync {
    /// One write, made by `lane` in the pass of view instance `view` (0 without view
    /// instancing).
    fn write(&self, view: u32, lane: LaneSelect, w: &MemWrite);

    /// The pass of view instance `view` starts (0 without view instancing): the
    /// vertex and pixel writes the draw's `memory` sink hears until the next call are
    /// that view's.
    fn pass(&self, view: u32) {
        let _ = view;
    }
}

/// Where one stage's lanes report their writes: the draw's [`LaneWriteSink`], with what
/// the stage cannot know itself (the view, the draw instance).
#[derive(Clone, Copy)]
pub(crate) struct StageWrites<'a> {
    /// The draw's sink.
    pub sink: &'a dyn LaneWriteSink,
    /// The view instance whose pass runs.
    pub view: u32,
    /// The draw instance.
    pub instance: u32,
}

/// A wave's (or a group's) [`WriteSink`]: names each write's lane through `lane(k, w)`,
/// `k` the writing lane's place in the stage's run (`start` + its lane in the wave).
pub(crate) struct WaveWrites<'a> {
    pub to: StageWrites<'a>,
    pub start: usize,
    pub lane: &'a (dyn Fn(usize, &MemWrite) -> LaneSelect + Sync),
}

impl WriteSink for WaveWrites<'_> {
    fn write(&self, w: &MemWrite) {
        let k = self.start.saturating_add(w.lane as usize);
        self.to.sink.write(self.to.view, (self.lane)(k, w), w);
    }
}

impl<'a> DrawOptions<'a> {
    /// A draw under `plan` with nothing observed.
    pub fn new(plan: Plan) -> DrawOptions<'a> {
        DrawOptions {
            plan,
            ..DrawOptions::default()
        }
    }
}

/// Seconds spent in each part of a draw (summed over worker threads). `shading` and the
/// merge's part of `output_merger` are estimates: one pixel wave in eight is timed
/// (`tile::TIMED_WAVES`) and stands for the others; `raster` is the tiles' time less those.
#[derive(Debug, Clone, Copy, PartialEq, Default, serde::Serialize)]
pub struct StageTimes {
    /// Index reads, vertex shading, clipping and primitive setup.
    pub setup: f64,
    /// Listing primitives in tiles.
    pub binning: f64,
    /// Coverage, early depth, filling pixel inputs.
    pub raster: f64,
    /// Running pixel waves.
    pub shading: f64,
    /// The output merger, and loading and storing tiles.
    pub output_merger: f64,
}

/// What a draw did.
#[derive(Debug, Clone, PartialEq, Default, serde::Serialize)]
pub struct DrawReport {
    /// Vertices shaded (distinct vertices × instances).
    pub vertices_shaded: u64,
    /// Primitives assembled.
    pub primitives: u64,
    /// Primitives set up for rasterization (after clipping, culling; a clipped polygon
    /// counts once per triangle).
    pub primitives_rasterized: u64,
    /// Pixel-program lanes that stood for covered pixels (or samples).
    pub pixels_shaded: u64,
    /// Helper lanes run.
    pub helper_lanes: u64,
    /// Pixel batches run: each holds up to [`DrawReport::pixel_batch_lanes`] lanes, several
    /// of the program's waves side by side when its results cannot depend on which lanes
    /// share a wave (`plan::BatchLanes`), else exactly one.
    pub pixel_waves: u64,
    /// Lanes one pixel batch holds (0 without a pixel program).
    #[serde(skip_serializing_if = "is_zero")]
    pub pixel_batch_lanes: u32,
    /// The pixel program's wave size (0 without a pixel program; `wave_size` is the
    /// vertex program's).
    #[serde(skip_serializing_if = "is_zero")]
    pub pixel_wave_size: u32,
    /// Lane-instructions of the vertex stage.
    pub vs_lane_instructions: u64,
    /// Lane-instructions of the pixel stage.
    pub ps_lane_instructions: u64,
    /// Lane-instructions of the geometry stage (0 without a geometry program).
    #[serde(skip_serializing_if = "is_zero")]
    pub gs_lane_instructions: u64,
    /// Mesh draws: amplification groups run.
    #[serde(skip_serializing_if = "is_zero")]
    pub amplification_groups: u64,
    /// Mesh draws: lane-instructions of the amplification stage.
    #[serde(skip_serializing_if = "is_zero")]
    pub as_lane_instructions: u64,
    /// Mesh draws: mesh groups run.
    #[serde(skip_serializing_if = "is_zero")]
    pub mesh_groups: u64,
    /// Mesh draws: lane-instructions of the mesh stage.
    #[serde(skip_serializing_if = "is_zero")]
    pub ms_lane_instructions: u64,
    /// Mesh draws: primitives culled by `SV_CullPrimitive` or dropped for a vertex index
    /// past the group's vertex count.
    #[serde(skip_serializing_if = "is_zero")]
    pub mesh_primitives_discarded: u64,
    /// Lane-instructions of the hull stage (0 without tessellation).
    #[serde(skip_serializing_if = "is_zero")]
    pub hs_lane_instructions: u64,
    /// Lane-instructions of the domain stage.
    #[serde(skip_serializing_if = "is_zero")]
    pub ds_lane_instructions: u64,
    /// Patches the tessellator culled (a factor ≤ 0 or NaN).
    #[serde(skip_serializing_if = "is_zero")]
    pub patches_culled: u64,
    /// Domain points the tessellator generated (domain-program invocations).
    #[serde(skip_serializing_if = "is_zero")]
    pub domain_points: u64,
    /// Stream output's statistics per stream (`D3D12_QUERY_DATA_SO_STATISTICS`; `None`
    /// without stream output).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_output: Option<[so::SoStatistics; 4]>,
    /// Lanes per wave.
    pub wave_size: u32,
    /// Worker threads.
    pub threads: usize,
    /// Samples per pixel.
    pub samples: u32,
    /// The pixel program ran once per sample.
    pub per_sample: bool,
    /// Depth and stencil were tested before the pixel program.
    pub early_depth_stencil: bool,
    /// The WARP profile's name.
    pub profile: String,
    /// Where the time went.
    pub times: StageTimes,
    /// The engine that ran the programs: `jit` or `interp`.
    pub engine: String,
    /// What the native engine compiled, one line per stage (`vs: ...`, `ps: ...`).
    pub jit: Vec<String>,
    /// Seconds spent compiling the programs to native code.
    pub compile_seconds: f64,
    /// Vertices the input assembler read (vertex or index count × instances; 0 in a
    /// mesh draw): `IAVertices`.
    #[serde(skip_serializing_if = "is_zero")]
    pub ia_vertices: u64,
    /// Geometry-program invocations (input primitives × `[instance(n)]`):
    /// `GSInvocations`.
    #[serde(skip_serializing_if = "is_zero")]
    pub gs_invocations: u64,
    /// Primitives the geometry program emitted, every stream: `GSPrimitives`.
    #[serde(skip_serializing_if = "is_zero")]
    pub gs_primitives: u64,
    /// Primitives of the rasterized stream that reached the clipper (none with
    /// rasterizer discard): `CInvocations`.
    #[serde(skip_serializing_if = "is_zero")]
    pub clip_invocations: u64,
    /// Samples that passed the depth and stencil tests and reached the output merger
    /// (what an occlusion query counts; `pipeline::query`).
    #[serde(skip_serializing_if = "is_zero")]
    pub samples_passed: u64,
}

impl DrawReport {
    /// Adds another view's pass of the same draw (`draw_charged` with view instancing):
    /// every count and time is summed; the settings (wave size, threads, samples,
    /// profile, engine) are the same in every pass and kept.
    fn add_view(&mut self, o: &DrawReport) {
        self.vertices_shaded += o.vertices_shaded;
        self.primitives += o.primitives;
        self.primitives_rasterized += o.primitives_rasterized;
        self.pixels_shaded += o.pixels_shaded;
        self.helper_lanes += o.helper_lanes;
        self.pixel_waves += o.pixel_waves;
        self.pixel_batch_lanes = self.pixel_batch_lanes.max(o.pixel_batch_lanes);
        self.pixel_wave_size = self.pixel_wave_size.max(o.pixel_wave_size);
        self.vs_lane_instructions += o.vs_lane_instructions;
        self.ps_lane_instructions += o.ps_lane_instructions;
        self.gs_lane_instructions += o.gs_lane_instructions;
        self.amplification_groups += o.amplification_groups;
        self.as_lane_instructions += o.as_lane_instructions;
        self.mesh_groups += o.mesh_groups;
        self.ms_lane_instructions += o.ms_lane_instructions;
        self.mesh_primitives_discarded += o.mesh_primitives_discarded;
        self.hs_lane_instructions += o.hs_lane_instructions;
        self.ds_lane_instructions += o.ds_lane_instructions;
        self.patches_culled += o.patches_culled;
        self.domain_points += o.domain_points;
        self.times.setup += o.times.setup;
        self.times.binning += o.times.binning;
        self.times.raster += o.times.raster;
        self.times.shading += o.times.shading;
        self.times.output_merger += o.times.output_merger;
        self.compile_seconds += o.compile_seconds;
        self.ia_vertices += o.ia_vertices;
        self.gs_invocations += o.gs_invocations;
        self.gs_primitives += o.gs_primitives;
        self.clip_invocations += o.clip_invocations;
        self.samples_passed += o.samples_passed;
        // The JIT lines report what each stage's code has run so far: the last pass's
        // lines include the earlier passes'.
        if !o.jit.is_empty() {
            self.jit.clone_from(&o.jit);
        }
    }
}

/// The part of the draw state an error is about.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DrawField {
    /// The draw arguments.
    Args,
    /// The programs.
    Programs,
    /// Render target `i`.
    RenderTarget(usize),
    /// The depth-stencil view.
    DepthStencil,
    /// Input-layout element `i`.
    InputElement(usize),
    /// The viewport.
    Viewport,
    /// The scissor rectangle.
    Scissor,
    /// The rasterizer state.
    Rasterizer,
    /// The blend state of render target `i`.
    Blend(usize),
    /// The index buffer.
    IndexBuffer,
    /// The stream-output state.
    StreamOutput(so::SoField),
    /// The view-instancing state (`D3D12_VIEW_INSTANCING_DESC`, the view instance mask).
    ViewInstancing,
    /// The shading-rate state (`RSSetShadingRate`, `RSSetShadingRateImage`; `vrs`).
    ShadingRate,
}

/// Why a draw could not run.
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum DrawError {
    /// The state is wrong.
    #[error("{message}")]
    State {
        /// What it is about.
        field: DrawField,
        /// What is wrong.
        message: String,
    },
    /// The stages do not link.
    #[error("the programs do not link: {0}")]
    Link(#[from] LinkError),
    /// A stage failed (budget, memory, binding).
    #[error("{0}")]
    Exec(#[from] ExecError),
}

fn state_err(field: DrawField, message: impl Into<String>) -> DrawError {
    DrawError::State {
        field,
        message: message.into(),
    }
}

/// Checked targets: size, samples, per-target class.
struct Targets {
    width: u32,
    height: u32,
    /// Samples per pixel of the targets.
    samples: u32,
    /// Samples per pixel the rasterizer computes coverage at: `samples`, or the forced
    /// sample count (target-independent rasterization).
    raster_samples: u32,
    /// Per target: its class, and whether every channel is 32 bits wide.
    classes: Vec<Option<(TargetClass, bool)>>,
    /// The most array slices of any view (1 when every view is of one slice).
    slices: u32,
}

fn check_targets(s: &DrawState<'_>) -> Result<Targets, DrawError> {
    if s.render_targets.len() > RENDER_TARGETS {
        return Err(state_err(
            DrawField::RenderTarget(RENDER_TARGETS),
            format!(
                "{} render targets; D3D binds at most {RENDER_TARGETS}",
                s.render_targets.len()
            ),
        ));
    }
    let mut size: Option<(u32, u32, u32, DrawField)> = None;
    let mut classes = Vec::new();
    let mut slices = 1u32;
    let mut check = |d: &crate::resources::TextureDesc,
                     field: DrawField|
     -> Result<(), DrawError> {
        use crate::resources::TextureDim;
        // A 2D array is a view of several slices (`Texture::target_view`); the draw
        // renders to mip 0 of each.
        if !matches!(
            d.dim,
            TextureDim::Tex2D
                | TextureDim::Tex2DMS
                | TextureDim::Tex2DArray
                | TextureDim::Tex2DMSArray
        ) {
            return Err(state_err(
                field,
                format!(
                    "a {} cannot be a target; give a 2D texture or array",
                    d.dim.name()
                ),
            ));
        }
        slices = slices.max(d.array_size());
        match size {
            None => size = Some((d.width, d.height, d.samples, field)),
            Some((w, h, n, _)) if (w, h, n) == (d.width, d.height, d.samples) => {}
            Some((w, h, n, f)) => {
                return Err(state_err(
                    field,
                    format!(
                        "{}×{} with {} samples, but {} is {w}×{h} with {n}: all targets of a draw have one size and sample count",
                        d.width,
                        d.height,
                        d.samples,
                        field_name(f)
                    ),
                ));
            }
        }
        Ok(())
    };
    for (i, rt) in s.render_targets.iter().enumerate() {
        let Some(rt) = rt else {
            classes.push(None);
            continue;
        };
        let d = rt.texture.desc();
        let class = om::target_class(d.format).ok_or_else(|| {
            state_err(
                DrawField::RenderTarget(i),
                format!("{} is not a render-target format", d.format),
            )
        })?;
        check(d, DrawField::RenderTarget(i))?;
        let wide = d.format.channels().iter().all(|c| c.bits == 32);
        classes.push(Some((class, wide)));
    }
    if let Some(ds) = &s.depth_stencil_view {
        let d = ds.texture.desc();
        if om::depth_kind(d.format).is_none() {
            return Err(state_err(
                DrawField::DepthStencil,
                format!(
                    "{} is not a depth format (D16_UNORM, D24_UNORM_S8_UINT, D32_FLOAT, D32_FLOAT_S8X24_UINT)",
                    d.format
                ),
            ));
        }
        check(d, DrawField::DepthStencil)?;
    }
    let forced = s.rasterizer.forced_sample_count;
    let mut raster_samples = None;
    if forced != 0 {
        // Target-independent rasterization (D3D11.3 §3.5.6, kept by D3D12 as
        // `ForcedSampleCount`): the coverage comes from the forced pattern.
        if !matches!(forced, 1 | 4 | 8 | 16) {
            return Err(state_err(
                DrawField::Rasterizer,
                format!("ForcedSampleCount {forced}: give 0 (off), 1, 4, 8 or 16"),
            ));
        }
        // §3.5.6.2: no depth-stencil view may be bound (else rendering is undefined),
        // and above a forced count of 1 every render target has one sample.
        if s.depth_stencil_view.is_some() {
            return Err(state_err(
                DrawField::DepthStencil,
                format!(
                    "is bound with ForcedSampleCount {forced}: D3D allows no depth-stencil view with a forced sample count"
                ),
            ));
        }
        if forced > 1
            && let Some((_, _, n, field)) = size
            && n != 1
        {
            return Err(state_err(
                field,
                format!(
                    "has {n} samples with ForcedSampleCount {forced}: D3D takes render targets of one sample only above a forced count of 1"
                ),
            ));
        }
        // DirectX-Specs "Variable Rate Shading", "Target Independent Rasterization":
        // TIR is not supported when coarse pixel shading is used.
        if s.shading_rate.can_be_coarse() {
            return Err(state_err(
                DrawField::ShadingRate,
                format!(
                    "can shade coarse pixels (rate {}, combiners {}, {}) with ForcedSampleCount {forced}: the VRS specification does not support target-independent rasterization with coarse shading",
                    s.shading_rate.rate.name(),
                    s.shading_rate.combiners[0].name(),
                    s.shading_rate.combiners[1].name()
                ),
            ));
        }
        raster_samples = Some(forced);
    }
    if forced != 0 && size.is_none() {
        // UAV-only rendering (§3.5.6.4): the viewports give the area drawn.
        let extent = |f: fn(&Viewport) -> f32| {
            s.viewports
                .iter()
                .map(|v| f(v).ceil())
                .fold(0f32, f32::max)
                .clamp(0.0, 16384.0) as u32
        };
        let (w, h) = (
            extent(|v| v.top_left_x + v.width),
            extent(|v| v.top_left_y + v.height),
        );
        if w == 0 || h == 0 {
            return Err(state_err(
                DrawField::Viewport,
                "a draw with ForcedSampleCount and no target takes its area from the viewports: give one of non-zero size",
            ));
        }
        size = Some((w, h, forced, DrawField::Rasterizer));
    }
    // A draw whose stream output rasterizes nothing (`D3D11_SO_NO_RASTERIZED_STREAM`)
    // writes no pixels: D3D12 draws it with no render target and no depth-stencil view
    // bound, so a one-pixel, one-sample area stands in (nothing reaches it).
    let discards = s
        .stream_output
        .as_ref()
        .is_some_and(|o| o.desc.rasterized_stream == super::so::NO_RASTERIZED_STREAM);
    if size.is_none() && discards {
        size = Some((1, 1, 1, DrawField::RenderTarget(0)));
    }
    let Some((width, height, samples, _)) = size else {
        return Err(state_err(
            DrawField::RenderTarget(0),
            "a draw needs a render target or a depth-stencil view (or stream output with no rasterized stream)",
        ));
    };
    Ok(Targets {
        width,
        height,
        samples,
        raster_samples: raster_samples.unwrap_or(samples),
        classes,
        slices,
    })
}

/// How an error names a field in messages (the job file adds its own names).
pub fn field_name(f: DrawField) -> String {
    match f {
        DrawField::Args => "the draw arguments".into(),
        DrawField::Programs => "the programs".into(),
        DrawField::RenderTarget(i) => format!("render target {i}"),
        DrawField::DepthStencil => "the depth-stencil view".into(),
        DrawField::InputElement(i) => format!("input element {i}"),
        DrawField::Viewport => "the viewport".into(),
        DrawField::Scissor => "the scissor rectangle".into(),
        DrawField::Rasterizer => "the rasterizer state".into(),
        DrawField::Blend(i) => format!("the blend state of render target {i}"),
        DrawField::IndexBuffer => "the index buffer".into(),
        DrawField::StreamOutput(f) => match f {
            so::SoField::Entry(i) => format!("stream-output declaration entry {i}"),
            so::SoField::Stride(i) => format!("the stride of stream-output buffer {i}"),
            so::SoField::Buffer(i) => format!("stream-output buffer {i}"),
            so::SoField::RasterizedStream => "the rasterized stream".into(),
        },
        DrawField::ViewInstancing => "the view-instancing state".into(),
        DrawField::ShadingRate => "the shading-rate state".into(),
    }
}

/// Refuses pixel outputs a target cannot take: float outputs need a float, UNORM, SNORM
/// or sRGB target; `uint` and `sint` outputs a target of the same integer kind (D3D11.3
/// §7.6 "Shader Output Type Interpretation": the target's format decides how the output
/// bits are read, and no section defines a mismatch; we refuse them).
/// Refuses a pixel output whose type a target cannot take. An integer output into a
/// float, UNORM or SNORM target, or a float output into an integer target, is taken
/// only when every channel of the target is 32 bits wide: D3D12 (WARP included) then
/// stores the output's 32 bits as they are, uninterpreted — vkd3d's
/// `rt-format-mismatch` test, which passes on WARP, draws float, uint and int outputs
/// into R32G32B32A32 float, uint and sint targets and reads back the bits written, and
/// the output merger's format encoding of a 32-bit channel is exactly that copy (with no
/// blending; a blend reads the bits as floats, as the target's class says). Into a
/// narrower channel the result is not the bits, and what the hardware does there is not
/// known here, so that is refused, naming the target.
fn check_outputs(ps: &Shader, t: &Targets) -> Result<(), DrawError> {
    for e in &ps.outputs {
        if e.sv != crate::ir::SysValue::Target {
            continue;
        }
        for r in 0..e.rows {
            let i = (e.semantic_index + r) as usize;
            let Some(Some((class, wide))) = t.classes.get(i) else {
                continue;
            };
            let same = match e.component {
                ComponentType::UInt | ComponentType::SInt => *class == TargetClass::Integer,
                _ => *class != TargetClass::Integer,
            };
            if !same && !wide {
                return Err(state_err(
                    DrawField::RenderTarget(i),
                    format!(
                        "the pixel program writes {} values to SV_Target{i}, which this target's format cannot hold (only a format of 32-bit channels takes another type's bits as they are)",
                        e.component
                    ),
                ));
            }
        }
    }
    Ok(())
}

/// The wave size and batch of `shader` running as `kind` under `plan`.
fn choose_wave(plan: &Plan, shader: &Shader, kind: BatchKind) -> Result<(u32, u32), DrawError> {
    let wave = ProgramWaveSize::choose(shader, plan.wave_size)?;
    Ok((wave.get(), BatchLanes::choose(shader, wave, kind).get()))
}

/// The pixels a draw may touch: the target ∩ the viewport (by pixel centre) ∩ the
/// scissor.
fn effective_scissor(t: &Targets, vp: &Viewport, sc: Option<Rect>) -> Rect {
    // Pixel `c` is inside the viewport when its centre c + ½ is in [x, x + width).
    let lo = |o: f32| (f64::from(o) - 0.5).ceil();
    let hi = |o: f32, s: f32| (f64::from(o) + f64::from(s) - 0.5).ceil();
    let clampi = |v: f64, m: u32| v.clamp(0.0, f64::from(m)) as i32;
    let mut r = Rect {
        left: clampi(lo(vp.top_left_x), t.width),
        top: clampi(lo(vp.top_left_y), t.height),
        right: clampi(hi(vp.top_left_x, vp.width), t.width),
        bottom: clampi(hi(vp.top_left_y, vp.height), t.height),
    };
    if let Some(s) = sc {
        r.left = r.left.max(s.left);
        r.top = r.top.max(s.top);
        r.right = r.right.min(s.right);
        r.bottom = r.bottom.min(s.bottom);
    }
    r
}

fn bytes_of<T>(n: u64) -> u64 {
    n.saturating_mul(std::mem::size_of::<T>() as u64)
}

/// Runs one draw (see the module doc), charging a budget of its own made from
/// `opts.plan.limits` (see [`draw_charged`]).
pub fn draw(
    s: &DrawState<'_>,
    args: &DrawArgs,
    opts: &DrawOptions<'_>,
) -> Result<DrawReport, DrawError> {
    draw_charged(s, args, opts, &RunBudget::new(&opts.plan.limits))
}

/// The most primitives `count` stream positions of `topology` assemble (strip cuts only
/// make fewer): what the up-front size check counts.
fn most_primitives(topology: PrimitiveTopology, count: u64) -> u64 {
    use PrimitiveTopology as T;
    match topology {
        T::PointList => count,
        T::LineList => count / 2,
        T::LineStrip => count.saturating_sub(1),
        T::TriangleList => count / 3,
        T::TriangleStrip => count.saturating_sub(2),
        T::LineListAdj => count / 4,
        T::LineStripAdj => count.saturating_sub(3),
        T::TriangleListAdj => count / 6,
        T::TriangleStripAdj => count.saturating_sub(4) / 2,
        T::PatchList(n) => count / u64::from(n.max(1)),
    }
}

/// The bytes a draw's own storage may take (`Limits::max_memory_bytes`), counted before
/// each piece is allocated, and allocated fallibly: a draw too large for the limit, or
/// one the system refuses, is an error naming the piece, not an abort.
struct DrawMemory {
    used: u64,
    limit: u64,
}

impl DrawMemory {
    /// Counts `bytes` for `what`, refusing what would pass the limit.
    fn take(&mut self, what: &str, bytes: u64) -> Result<(), DrawError> {
        let needed = self.used.saturating_add(bytes);
        if needed > self.limit {
            return Err(state_err(
                DrawField::Args,
                format!(
                    "{what}: {}",
                    ExecError::MemoryBudget {
                        needed,
                        limit: self.limit
                    }
                ),
            ));
        }
        self.used = needed;
        Ok(())
    }

    /// Gives back `bytes` counted before, whose storage is freed.
    fn give(&mut self, bytes: u64) {
        self.used = self.used.saturating_sub(bytes);
    }

    /// Reserves room for `n` more elements of `v` for `what` (already counted).
    fn reserve<T>(what: &str, v: &mut Vec<T>, n: usize) -> Result<(), DrawError> {
        v.try_reserve_exact(n).map_err(|_| {
            state_err(
                DrawField::Args,
                format!(
                    "{what}: the system refused {} bytes",
                    bytes_of::<T>(n as u64)
                ),
            )
        })
    }
}

/// Runs one draw (see the module doc), charging `budget` — the run's total of
/// lane-instructions and its time limit (`exec::RunBudget`) — with the vertex and pixel
/// stages' work as it goes; sizes are checked, and work is measured against the total,
/// before any of it starts.
///
/// With view instancing (`DrawState::view_instancing`) the whole draw runs once per view
/// the mask leaves on, in view order, each pass with its `SV_ViewID` and location
/// (`view_instancing`'s module doc says why); the report adds the passes' counts up.
pub fn draw_charged(
    s: &DrawState<'_>,
    args: &DrawArgs,
    opts: &DrawOptions<'_>,
    budget: &RunBudget,
) -> Result<DrawReport, DrawError> {
    draw_shared(s, args, opts, budget, None)
}

/// [`draw_charged`] of a list's draw whose state was made from the objects `shared`
/// names (`work::DrawWork`): with `opts.pso`, a draw of the same objects as the draw
/// before takes that draw's checked and linked state, and its programs without
/// comparing them. The image and the report are the same as [`draw_charged`]'s.
pub(crate) fn draw_shared(
    s: &DrawState<'_>,
    args: &DrawArgs,
    opts: &DrawOptions<'_>,
    budget: &RunBudget,
    shared: Option<SharedState<'_>>,
) -> Result<DrawReport, DrawError> {
    let Some(vi) = &s.view_instancing else {
        if let Some(v) = opts.view.filter(|v| *v != 0) {
            return Err(state_err(
                DrawField::ViewInstancing,
                format!(
                    "view instancing: view {v}: the draw has no view instancing, so its one view is view 0"
                ),
            ));
        }
        return draw_view(
            s,
            args,
            opts,
            budget,
            shared.as_ref(),
            0,
            ViewInstanceLocation::default(),
        );
    };
    vi.check()
        .map_err(|e| state_err(DrawField::ViewInstancing, e.to_string()))?;
    if vi.locations.len() > 1 && s.stream_output.is_some() {
        return Err(state_err(
            DrawField::ViewInstancing,
            format!(
                "view instancing: count: {} views with stream output; which view streams out is not specified, so dxlane draws stream output with one view only",
                vi.locations.len()
            ),
        ));
    }
    let views: Vec<(u32, ViewInstanceLocation)> = vi.views().collect();
    if let Some(v) = opts.view
        && !views.iter().any(|(w, _)| *w == v)
    {
        let run: Vec<String> = views.iter().map(|(w, _)| w.to_string()).collect();
        return Err(state_err(
            DrawField::ViewInstancing,
            format!(
                "view instancing: view {v}: the draw runs view(s) [{}] of its {} ({})",
                run.join(", "),
                vi.locations.len(),
                if (v as usize) < vi.locations.len() {
                    "the view instance mask turns it off"
                } else {
                    "past the view instance count"
                }
            ),
        ));
    }
    if opts.trace.is_some() && opts.view.is_none() && views.len() > 1 {
        return Err(state_err(
            DrawField::ViewInstancing,
            format!(
                "view instancing: a wave to trace in a draw of {} views: name the view whose pass holds it",
                views.len()
            ),
        ));
    }
    // The passes of views nobody watches run with no hooks at all.
    let unwatched = DrawOptions::new(opts.plan.clone());
    let mut report: Option<DrawReport> = None;
    for (view, location) in views {
        let o = if opts.view.is_none_or(|v| v == view) {
            opts
        } else {
            &unwatched
        };
        let r = draw_view(s, args, o, budget, shared.as_ref(), view, location)?;
        match report.as_mut() {
            Some(total) => total.add_view(&r),
            None => report = Some(r),
        }
    }
    // Every view masked off: no stage runs and the targets are untouched
    // ("SetViewInstanceMask": a mask of 0 renders nothing); only the targets are
    // checked.
    match report {
        Some(r) => Ok(r),
        None => {
            check_targets(s)?;
            Ok(DrawReport {
                profile: opts.plan.profile.name().to_string(),
                engine: opts.plan.engine.to_string(),
                ..DrawReport::default()
            })
        }
    }
}

/// One view's pass of a draw: [`draw_charged`] with `SV_ViewID` = `view` in every
/// program and `location` added to the viewport and slice indices the last stage before
/// the rasterizer writes (a draw without view instancing is view 0 at location (0, 0)).
fn draw_view(
    s: &DrawState<'_>,
    args: &DrawArgs,
    opts: &DrawOptions<'_>,
    budget: &RunBudget,
    shared: Option<&SharedState<'_>>,
    view: u32,
    location: ViewInstanceLocation,
) -> Result<DrawReport, DrawError> {
    let t0 = Instant::now();
    if let Some(w) = opts.writes {
        w.pass(view);
    }
    if let Some(l) = opts.lanes {
        l.pass(view);
    }
    // A list's draw of the same state objects as the draw before takes that draw's
    // checked and linked state: it depends on those objects alone. Only a draw of the
    // vertex and pixel stages keeps it (the key does not name the other stages).
    let keep_front = match (opts.pso, shared) {
        (Some(cache), Some(shared))
            if s.gs.is_none() && s.hs.is_none() && s.ds.is_none() && s.mesh.is_none() =>
        {
            Some((cache, shared))
        }
        _ => None,
    };
    let front: Arc<FrontEnd> = match keep_front.and_then(|(c, sh)| c.front::<FrontEnd>(sh)) {
        Some(kept) => kept,
        None => {
            let made = Arc::new(front_end(s)?);
            if let Some((c, sh)) = keep_front {
                c.keep_front(sh, Arc::clone(&made));
            }
            made
        }
    };
    let FrontEnd {
        ref targets,
        ref pattern,
        ref layout,
        ref tess_links,
        ref so_layout,
        rasterized,
        rast_stream,
        ref linked,
        ref viewports,
        scissor,
        viewport_word,
        slice_word,
    } = *front;

    // Programs.
    let plan = &opts.plan;
    let vs_table = || {
        DescriptorTable::new(
            s.vs,
            &s.vs_bindings.ranges,
            &s.vs_bindings.resource_heap,
            &s.vs_bindings.sampler_heap,
        )
    };
    // A mesh draw runs no vertex program (`ms`); its mesh program's wave is chosen as a
    // vertex program's would be.
    let (vs_wave, vs_program) = match s.mesh {
        Some(_) => {
            let wave = choose_wave(plan, s.vs, BatchKind::Vertex { vertices: u32::MAX })?.0;
            // Its bindings are still checked, as for every draw.
            vs_table()?;
            (wave, None)
        }
        None => {
            // One instance's distinct vertices are at most its vertex count.
            let kind = BatchKind::Vertex {
                vertices: args.vertex_count,
            };
            let (wave, p) = stage_program(opts, s.vs, shared.map(|sh| sh.vs), kind, vs_table)?;
            (wave, Some(p.with_view_id(view)))
        }
    };
    // The geometry program runs its lanes one wave at a time (`gs`).
    let gs_program = match s.gs {
        Some((gs, bindings)) => Some(bound_program(plan, gs, bindings)?.with_view_id(view)),
        None => None,
    };
    // The hull and domain programs likewise run one wave at a time (`hs`, `ds`).
    let tess_programs = match (s.hs, s.ds, &tess_links) {
        (Some((h, hb)), Some((d, db)), Some(_)) => Some((
            bound_program(plan, h, hb)?.with_view_id(view),
            bound_program(plan, d, db)?.with_view_id(view),
        )),
        _ => None,
    };
    let mut ps_wave = vs_wave;
    let mut ps_batch = 0;
    let ps_program = match s.ps {
        Some(ps) => {
            let table = || {
                DescriptorTable::new(
                    ps,
                    &s.ps_bindings.ranges,
                    &s.ps_bindings.resource_heap,
                    &s.ps_bindings.sampler_heap,
                )
            };
            let (wave, p) = stage_program(
                opts,
                ps,
                shared.and_then(|sh| sh.ps),
                BatchKind::Pixel,
                table,
            )?;
            ps_wave = wave;
            ps_batch = p.wave_size();
            Some(p.with_view_id(view))
        }
        None => None,
    };
    // A mesh or amplification wave is traced in its group (`ms`); the other stages'
    // through their traced program.
    let (trace, group_trace) = match (opts.trace, &s.mesh) {
        (Some(h), Some(m))
            if matches!(h.at, TraceAt::Mesh { .. } | TraceAt::Amplification { .. }) =>
        {
            (
                None,
                Some(ms::trace_group(m, plan, view, h, h.at, h.shader)?),
            )
        }
        (Some(h), _) => (
            Some(trace_program(
                s, h, h.at, h.shader, opts, vs_wave, ps_wave, view,
            )?),
            None,
        ),
        (None, _) => (None, None),
    };
    let early =
        s.ps.is_none_or(|ps| ps::early_depth_allowed(ps, s.blend.alpha_to_coverage_enable));
    let cores = super::plan::cores();
    // A write sink hears the writes in one order only on one worker (see `memory`).
    let threads = if opts.memory.is_some() || opts.lanes.is_some() {
        1
    } else if opts.plan.threads == 0 {
        cores
    } else {
        opts.plan.threads
    }
    .clamp(1, 1 << 10);

    let mut report = DrawReport {
        wave_size: vs_wave,
        threads,
        samples: targets.raster_samples,
        per_sample: linked.per_sample,
        early_depth_stencil: early,
        profile: opts.plan.profile.name().to_string(),
        engine: opts.plan.engine.to_string(),
        ..DrawReport::default()
    };

    // Memory: every (instance, vertex) keeps its outputs until the tiles are done, and
    // every primitive its setup. All of it is counted before it is allocated.
    let limit = opts.plan.limits.max_memory_bytes;
    let mut memory = DrawMemory { used: 0, limit };
    let count = u64::from(args.vertex_count);
    let instances = u64::from(args.instance_count);
    if s.mesh.is_none() {
        report.ia_vertices = count.saturating_mul(instances);
    }
    // The primitives first: their count follows from the arguments alone, so a draw
    // too large for the limit is refused before anything is allocated or read.
    let assembled = most_primitives(s.topology, count).saturating_mul(instances);
    // With a geometry program, each of its invocations makes at most one primitive per
    // vertex it may emit, and keeps those vertices' outputs.
    let gs_state =
        s.gs.and_then(|(g, _)| g.geometry.map(|st| (st, g.output_words)));
    // With tessellation the primitives are counted as the tessellator makes them: the
    // hull stage's outputs are counted here, the domain points against a budget below.
    let assembled = if tess_programs.is_some() {
        0
    } else {
        assembled
    };
    if let Some((hp, _)) = &tess_programs {
        let h = hs::state(hp.shader())?;
        let pc_words = hp
            .shader()
            .output_words
            .saturating_sub(h.output_point_words);
        let patches = most_primitives(s.topology, count).saturating_mul(instances);
        memory.take(
            "the hull stage's output control points and patch constants",
            hs::output_bytes(&h, pc_words, patches),
        )?;
    }
    let most_prims = match gs_state {
        Some((g, words)) => {
            memory.take(
                "the geometry stage's input primitives",
                bytes_of::<gs::GsPrimitive>(assembled),
            )?;
            memory.take(
                "the geometry stage's emitted vertices (input primitives × instances × maxvertexcount)",
                gs::most_output_bytes(&g, words, assembled),
            )?;
            assembled
                .saturating_mul(u64::from(g.instances))
                .saturating_mul(u64::from(g.max_vertices))
        }
        None => assembled,
    };
    memory.take(
        "the draw's primitives (as many as its vertices can assemble)",
        bytes_of::<Prim>(most_prims),
    )?;
    memory.take(
        "the draw's index stream and its distinct vertices",
        bytes_of::<u32>(count).saturating_mul(2),
    )?;

    // Index stream: stream position → SV_VertexID (the index value, or the position).
    let cut = match (&s.index_buffer, s.strip_cut) {
        (Some(ib), StripCutValue::Enabled) => Some(ia::cut_value(ib.format)),
        _ => None,
    };
    let mut ids: Vec<u32> = Vec::new();
    DrawMemory::reserve("the draw's index stream", &mut ids, count as usize)?;
    ia::extend_index_stream(s.index_buffer.as_ref(), args, &mut ids);
    let is_cut = |p: u32| cut.is_some_and(|c| ids.get(p as usize) == Some(&c));
    // Distinct ids, in increasing order (cut values are not vertices).
    let mut unique: Vec<u32> = Vec::new();
    DrawMemory::reserve("the draw's distinct vertices", &mut unique, ids.len())?;
    ia::distinct_vertices(&ids, cut, &mut unique);
    // A run of consecutive ids (every draw without an index buffer) finds a slot by a
    // subtraction; otherwise by a search (a point list through a geometry program looks
    // up each of its 100,000s of vertices six times).
    let consecutive = match (unique.first(), unique.last()) {
        (Some(&a), Some(&b)) if (b - a) as usize + 1 == unique.len() => Some(a),
        _ => None,
    };
    let slot_of = |id: u32| -> u32 {
        match consecutive {
            Some(a) => Some(id.wrapping_sub(a))
                .filter(|&k| (k as usize) < unique.len())
                .unwrap_or(0),
            None => unique.binary_search(&id).map_or(0, |k| k as u32),
        }
    };
    // Work: every distinct vertex of every instance runs at least one instruction.
    budget.check_least(
        || format!("{} vertices × {instances} instances", unique.len()),
        (unique.len() as u64).saturating_mul(instances),
    )?;
    let per_instance_words = (unique.len() as u64).saturating_mul(u64::from(s.vs.output_words));
    let output_words = per_instance_words.saturating_mul(instances);
    memory.take("the vertex outputs", bytes_of::<u32>(output_words))?;
    // An instance with no vertices assembles nothing: none is worth a pass.
    let shaded_instances = if unique.is_empty() {
        0
    } else {
        args.instance_count
    };
    let fetch_base = if s.index_buffer.is_some() {
        i64::from(args.base_vertex)
    } else {
        i64::from(args.start_vertex)
    };

    let mut outputs = VertexOutputs::default();
    DrawMemory::reserve(
        "the vertex outputs",
        &mut outputs.words,
        output_words as usize,
    )?;
    let mut prims: Vec<Prim> = Vec::new();
    let mut gs_out = VertexOutputs::default();
    let mut gs_in: Vec<gs::GsPrimitive> = Vec::new();
    let mut gs_prims: Vec<gs::GsOut> = Vec::new();
    let mut hull_out = HullOutputs::default();
    let mut ds_out = VertexOutputs::default();
    let mut patch_points: Vec<u32> = Vec::new();
    let mut patch_ids: Vec<u32> = Vec::new();
    let tess_desc = match &tess_programs {
        Some((hp, _)) => Some(tessellator_desc(&hs::state(hp.shader())?)),
        None => None,
    };
    let kind = match (&s.mesh, gs_state, tess_desc) {
        (Some(m), _, _) => {
            ms::prim_kind(m.ms.0.mesh.map_or(MeshTopology::Triangle, |x| x.topology))
        }
        (None, Some((g, _)), _) => gs::out_kind(g.output),
        (None, None, Some(t)) => match t.output_primitive {
            tess::OutputPrimitive::Point => PrimKind::Point,
            tess::OutputPrimitive::Line => PrimKind::Line,
            _ => PrimKind::Triangle,
        },
        (None, None, None) => ia::prim_kind(s.topology),
    };
    if s.rasterizer.conservative && kind != PrimKind::Triangle {
        // DirectX-Specs "Conservative Rasterization", IA Primitive Topology interaction:
        // undefined for points and lines, which D3D's debug layer rejects.
        return Err(state_err(
            DrawField::Rasterizer,
            format!(
                "conservative rasterization is defined for triangles only; this draw rasterizes {}",
                if kind == PrimKind::Point {
                    "points"
                } else {
                    "lines"
                }
            ),
        ));
    }
    let route = Route {
        views: viewports,
        viewport_word,
        slice_word,
        slices: targets.slices,
        location,
    };
    // Clipping may split a primitive: those past the count above are counted as they
    // come.
    let max_prims =
        most_prims.saturating_add((limit - memory.used) / std::mem::size_of::<Prim>() as u64);
    let mut prim_overflow = false;
    let mut refused = false;
    // A mesh draw: the amplification and mesh groups make the primitives (`ms`).
    let mut mesh_out = VertexOutputs::default();
    // A traced pixel wave's mesh draw keeps, per primitive the mesh groups output, where
    // it came from, so that the session can name the mesh lanes behind a pixel.
    let mut mesh_origins: Vec<ms::MeshPrimOrigin> = Vec::new();
    let mesh_sink = opts.writes.filter(|w| w.wants_origins());
    let want_mesh_origins =
        matches!(opts.trace.map(|h| h.at), Some(TraceAt::Pixel { .. })) || mesh_sink.is_some();
    if let Some(m) = &s.mesh {
        let mut mesh_prims = Vec::new();
        let st = ms::shade(
            m,
            plan,
            view,
            budget,
            &mut |what, bytes| memory.take(what, bytes),
            &mut mesh_out,
            &mut mesh_prims,
            group_trace.as_ref(),
            want_mesh_origins.then_some(&mut mesh_origins),
            opts.lanes.map(|sink| StageWrites {
                sink,
                view,
                instance: 0,
            }),
        )?;
        report.amplification_groups = st.amplification_groups;
        report.as_lane_instructions = st.amplification_lane_instructions;
        report.mesh_groups = st.mesh_groups;
        report.ms_lane_instructions = st.mesh_lane_instructions;
        report.mesh_primitives_discarded = st.culled + st.dropped;
        report.primitives = st.primitives;
        for (note, seconds) in st.jit {
            report.compile_seconds += seconds;
            report.jit.push(note);
        }
        memory.take(
            "the mesh stage's primitives",
            bytes_of::<Prim>(mesh_prims.len() as u64),
        )?;
        let done = setup_primitives(
            &route,
            linked,
            &mesh_out,
            kind,
            mesh_prims.len(),
            &|lo, hi, f| slice_items(&mesh_prims, lo, hi, &|p| Some((p.v, p.id)), f),
            threads,
            max_prims.saturating_add(mesh_prims.len() as u64),
            &mut prims,
        );
        report.clip_invocations += done.assembled;
        report.primitives_rasterized += done.rasterized;
        refused |= done.refused;
        prim_overflow |= done.overflow;
    }
    // Domain points and indices the draw's memory can hold, charged patch by patch
    // before each is generated (`tess::TessBudget`).
    let mut tess_budget = {
        let left = limit.saturating_sub(memory.used);
        let ds_words = s.ds.map_or(0, |d| u64::from(d.0.output_words));
        TessBudget::new(
            left / ds_words.saturating_mul(4).saturating_add(8),
            left / (std::mem::size_of::<Prim>() as u64),
        )
    };
    // Stream output writes as the primitives are made, in draw order (`so`).
    let mut so_writer = match (&so_layout, &s.stream_output) {
        (Some(l), Some(o)) => Some(SoWriter::begin(l, &o.buffers)),
        _ => None,
    };
    // A traced pixel wave's draw keeps, per vertex the rasterizer reads, the geometry or
    // domain lane that made it, so that the session can name where a pixel's inputs came
    // from (`TraceWave::take_origins`); a vertex program's vertices are named by their
    // index alone.
    let origin_sink = opts.writes.filter(|w| w.wants_origins());
    let want_origins = s.mesh.is_none()
        && (matches!(opts.trace.map(|h| h.at), Some(TraceAt::Pixel { .. }))
            || origin_sink.is_some());
    let mut gs_lanes: Vec<u32> = Vec::new();
    // Where the hull, domain and geometry lanes of draw instance `i` report their writes.
    let stage_writes = |instance: u32| {
        opts.lanes.map(|sink| StageWrites {
            sink,
            view,
            instance,
        })
    };
    // A traced geometry lane after tessellation: per domain output vertex of the
    // instance, the domain lane that made it (the lane's input vertices are named by it).
    let trace_gs = matches!(opts.trace.map(|h| h.at), Some(TraceAt::Geometry { .. }));
    let mut ds_lanes: Vec<super::work::LaneSelect> = Vec::new();
    let mut stage_origins: Vec<super::work::LaneSelect> = Vec::new();
    // Setup's buffers, for the primitives set up on this thread.
    let mut scratch = SetupScratch::default();
    // A draw of the vertex stage alone straight to the rasterizer assembles each
    // instance's primitives on the workers, each setting up its own range of them
    // (`setup_primitives`).
    let listed = s.mesh.is_none()
        && gs_program.is_none()
        && tess_programs.is_none()
        && so_writer.is_none()
        && rasterized.is_some();
    for instance in 0..shaded_instances {
        let Some(vs_program) = vs_program.as_ref() else {
            break;
        };
        budget.check().map_err(|spent| {
            budget.error(
                spent,
                u64::from(instance),
                instances,
                "instances of the vertex stage",
            )
        })?;
        let base = outputs.words.len() / (s.vs.output_words.max(1) as usize);
        let job = VertexJob {
            layout,
            sources: &linked.vs_inputs,
            buffers: &s.vertex_buffers,
            ids: &unique,
            fetch_base,
            instance,
            start_instance: args.start_instance,
        };
        let vs_trace = match (&trace, opts.trace.map(|h| h.at)) {
            (
                Some(t),
                Some(TraceAt::Vertex {
                    vertex,
                    instance: i,
                }),
            ) if i == instance => unique
                .binary_search(&vertex)
                .ok()
                .map(|slot| vs::Trace { program: t, slot }),
            _ => None,
        };
        report.vs_lane_instructions += vs::shade(
            vs_program,
            &job,
            threads,
            &mut outputs,
            vs_trace.as_ref(),
            opts.memory,
            &|n| {
                budget.charge(n).map_err(|spent| {
                    budget.error(
                        spent,
                        u64::from(instance),
                        instances,
                        "instances of the vertex stage",
                    )
                })
            },
        )?;
        report.vertices_shaded += unique.len() as u64;
        let vertex =
            |p: u32| -> u32 { base as u32 + slot_of(ids.get(p as usize).copied().unwrap_or(0)) };
        let mut failed = false;
        if let (Some((hsp, dsp)), Some(links), Some(desc)) =
            (&tess_programs, &tess_links, tess_desc)
        {
            // The hull stage, the tessellator and the domain stage between the vertex
            // stage and clipping (`hs`, `tess`, `ds`).
            let n = match s.topology {
                PrimitiveTopology::PatchList(n) => u32::from(n),
                _ => 0,
            };
            patch_points.clear();
            patch_ids.clear();
            ia::patches(n, args.vertex_count, &is_cut, &mut |pos, id| {
                report.primitives += 1;
                patch_points.extend(pos.iter().map(|&p| vertex(p)));
                patch_ids.push(id);
                true
            });
            let charge = |stage: &'static str| {
                move |n: u64| {
                    budget
                        .charge(n)
                        .map_err(|spent| budget.error(spent, u64::from(instance), instances, stage))
                }
            };
            let job = hs::HullJob {
                points: &patch_points,
                ids: &patch_ids,
                vertices: &outputs,
                sources: &links.hull_points,
            };
            let hs_trace = match (&trace, opts.trace.map(|h| h.at)) {
                (
                    Some(t),
                    Some(TraceAt::Hull {
                        instance: i,
                        patch,
                        point,
                        join,
                    }),
                ) if i == instance => Some((t, patch, point, join)),
                _ => None,
            };
            // The traced hull lane's control points came from these vertex lanes; a
            // join-phase lane's fork results (`vpc`), from the patch's fork-phase lane.
            if let (Some(hook), Some((_, patch, point, join))) = (opts.trace, hs_trace)
                && let Ok(h) = hs::state(hsp.shader())
            {
                let n_in = h.input_points as usize;
                if (patch as usize + 1) * n_in <= patch_points.len() {
                    let (points, outs) = hs::point_origins(&h, patch, instance, &|k| {
                        let v = patch_points[patch as usize * n_in + k];
                        trace::vertex_lane(&unique, base, v, instance)
                    });
                    hook.set_input_origins(trace::InputOrigins {
                        points,
                        output_points: if point.is_none() { outs } else { Vec::new() },
                        patch: (point.is_none() && join).then_some(super::work::LaneSelect::Hull {
                            patch,
                            control_point: None,
                            join: false,
                            instance,
                        }),
                    });
                }
            }
            report.hs_lane_instructions += hs::shade_traced(
                hsp,
                &job,
                &mut hull_out,
                &charge("instances of the hull stage"),
                hs_trace,
                stage_writes(instance),
            )?;
            let h = hs::state(hsp.shader())?;
            // With a geometry program after the domain program, the domain outputs of
            // this instance are its input vertices (kept until it has run); without
            // one they are what the rasterizer reads, and stay for the whole draw.
            if gs_program.is_some() {
                ds_out.words.clear();
                ds_lanes.clear();
            }
            gs_in.clear();
            for (p, &id) in patch_ids.iter().enumerate() {
                let (edges, inside) = hs::factors(&h, &hull_out, p as u32);
                let t = tess::tessellate_within(
                    &desc,
                    &TessFactors { edges, inside },
                    &mut tess_budget,
                )
                .map_err(|e| {
                    state_err(
                        DrawField::Args,
                        format!("the tessellator, patch {id} of instance {instance}: {e}"),
                    )
                })?;
                if t.outcome == tess::Outcome::Culled {
                    report.patches_culled += 1;
                    continue;
                }
                report.domain_points += t.points.len() as u64;
                let first =
                    (ds_out.words.len() / (dsp.shader().output_words.max(1) as usize)) as u32;
                let job = ds::DomainJob {
                    hull: &hull_out,
                    patch: p as u32,
                    id,
                    points_per_patch: h.output_points,
                    points: &t.points,
                    point_sources: &links.domain_points,
                    patch_sources: &links.domain_patch,
                };
                let ds_trace = match (&trace, opts.trace.map(|h| h.at)) {
                    (
                        Some(t),
                        Some(TraceAt::Domain {
                            instance: i,
                            patch,
                            point,
                        }),
                    ) if i == instance && patch as usize == p => Some((t, point as usize)),
                    _ => None,
                };
                // The traced domain lane's control points and patch constants came
                // from these hull (or, passed through, vertex) lanes.
                if let (Some(hook), Some(_)) = (opts.trace, ds_trace) {
                    let n_in = h.input_points as usize;
                    let (_, points) = hs::point_origins(&h, p as u32, instance, &|k| {
                        let v = patch_points.get(p * n_in + k).copied().unwrap_or(0);
                        trace::vertex_lane(&unique, base, v, instance)
                    });
                    hook.set_input_origins(trace::InputOrigins {
                        points,
                        output_points: Vec::new(),
                        patch: Some(super::work::LaneSelect::Hull {
                            patch: p as u32,
                            control_point: None,
                            join: h.join,
                            instance,
                        }),
                    });
                }
                report.ds_lane_instructions += ds::shade_traced(
                    dsp,
                    &job,
                    &mut ds_out,
                    &charge("instances of the domain stage"),
                    ds_trace,
                    stage_writes(instance),
                )?;
                if trace_gs && gs_program.is_some() {
                    ds_lanes.extend((0..t.points.len() as u32).map(|point| {
                        super::work::LaneSelect::Domain {
                            patch: p as u32,
                            point,
                            instance,
                        }
                    }));
                }
                if want_origins && gs_program.is_none() {
                    stage_origins.extend((0..t.points.len() as u32).map(|point| {
                        super::work::LaneSelect::Domain {
                            patch: p as u32,
                            point,
                            instance,
                        }
                    }));
                }
                let per = t.topology.vertices_per_primitive();
                for ix in t.indices.chunks_exact(per) {
                    let at = |k: usize| first + ix.get(k).copied().unwrap_or(0);
                    let v = match per {
                        1 => [at(0); 3],
                        2 => [at(0), at(1), at(1)],
                        _ => [at(0), at(1), at(2)],
                    };
                    if gs_program.is_some() {
                        // The tessellator's primitive, in its order and winding, is
                        // one input primitive of the geometry program; its
                        // SV_PrimitiveID is the patch's (D3D11.3 §8.17).
                        if gs_in.try_reserve(1).is_err() {
                            refused = true;
                            break;
                        }
                        gs_in.push(gs::GsPrimitive {
                            vertices: [v[0], v[1], v[2], 0, 0, 0],
                            id,
                        });
                        continue;
                    }
                    if let Some(w) = so_writer.as_mut() {
                        w.primitive(0, kind, &ds_out, v);
                    }
                    if rasterized.is_none() {
                        continue;
                    }
                    if prims.try_reserve(8).is_err() {
                        refused = true;
                        break;
                    }
                    let before = prims.len();
                    report.clip_invocations += 1;
                    setup_primitive(
                        &route,
                        linked,
                        &ds_out,
                        kind,
                        v,
                        id,
                        &mut scratch,
                        &mut prims,
                    );
                    report.primitives_rasterized += (prims.len() - before) as u64;
                    if prims.len() as u64 > max_prims {
                        failed = true;
                        break;
                    }
                }
                if failed || refused {
                    break;
                }
            }
            if failed || refused {
                prim_overflow = true;
                break;
            }
            if gs_program.is_none() {
                continue;
            }
        }
        if let Some(gsp) = &gs_program {
            // The geometry stage between assembly (or the domain stage) and clipping
            // (`gs`).
            let gs_vertices = if tess_programs.is_some() {
                // Its inputs came from the tessellator; count what they may emit now
                // that their number is known.
                if let Some((g, words)) = gs_state {
                    memory.take(
                        "the geometry stage's emitted vertices (input primitives × instances × maxvertexcount)",
                        gs::most_output_bytes(&g, words, gs_in.len() as u64),
                    )?;
                }
                &ds_out
            } else {
                gs_in.clear();
                ia::assemble(s.topology, args.vertex_count, &is_cut, &mut |p| {
                    report.primitives += 1;
                    gs_in.push(gs::GsPrimitive {
                        vertices: p.gs.map(vertex),
                        id: p.id,
                    });
                    true
                });
                &outputs
            };
            gs_prims.clear();
            let job = gs::GsJob {
                prims: &gs_in,
                vertices: gs_vertices,
                sources: &linked.gs_inputs,
                streams: (0..so::SO_STREAMS)
                    .filter(|&k| {
                        rasterized == Some(k) || so_layout.as_ref().is_some_and(|l| l.writes(k))
                    })
                    .fold(0u8, |m, k| m | (1 << k)),
            };
            let gs_trace = match (&trace, opts.trace.map(|h| h.at), gs_state) {
                (
                    Some(t),
                    Some(TraceAt::Geometry {
                        instance: i,
                        prim,
                        gs_instance,
                    }),
                    Some((g, _)),
                ) if i == instance && gs_instance < g.instances => Some((
                    t,
                    (prim as usize)
                        .saturating_mul(g.instances as usize)
                        .saturating_add(gs_instance as usize),
                )),
                _ => None,
            };
            // The traced geometry lane's input vertices came from these domain or
            // vertex lanes.
            if let (Some(hook), Some((_, k)), Some((g, _))) = (opts.trace, gs_trace, gs_state)
                && let Some(p) = gs_in.get(k / g.instances.max(1) as usize)
            {
                let points: Option<Vec<_>> = p
                    .vertices
                    .iter()
                    .take(g.input.vertices() as usize)
                    .map(|&v| {
                        if tess_programs.is_some() {
                            ds_lanes.get(v as usize).copied()
                        } else {
                            Some(trace::vertex_lane(&unique, base, v, instance))
                        }
                    })
                    .collect();
                if let Some(points) = points {
                    hook.set_input_origins(trace::InputOrigins {
                        points,
                        ..Default::default()
                    });
                }
            }
            gs_lanes.clear();
            let origins = want_origins.then_some(&mut gs_lanes);
            if let Some((g, _)) = gs_state {
                report.gs_invocations += gs_in.len() as u64 * u64::from(g.instances.max(1));
            }
            report.gs_lane_instructions += gs::shade(
                gsp,
                &job,
                threads,
                &mut gs_out,
                &mut gs_prims,
                gs_trace,
                origins,
                &|n| {
                    budget.charge(n).map_err(|spent| {
                        budget.error(
                            spent,
                            u64::from(instance),
                            instances,
                            "instances of the geometry stage",
                        )
                    })
                },
                stage_writes(instance),
            )?;
            if let Some((g, _)) = gs_state {
                let n = g.instances.max(1);
                stage_origins.extend(gs_lanes.iter().map(|&k| super::work::LaneSelect::Geometry {
                    prim: k / n,
                    gs_instance: k % n,
                    instance,
                }));
            }
            report.gs_primitives += gs_prims.len() as u64;
            if so_writer.is_none() {
                report.clip_invocations += gs_prims
                    .iter()
                    .filter(|p| rasterized == Some(p.stream))
                    .count() as u64;
                // Nothing else to do in order: set the primitives up on the workers.
                let done = setup_primitives(
                    &route,
                    linked,
                    &gs_out,
                    kind,
                    gs_prims.len(),
                    &|lo, hi, f| {
                        slice_items(
                            &gs_prims,
                            lo,
                            hi,
                            &|p| (rasterized == Some(p.stream)).then_some((p.v, p.id)),
                            f,
                        )
                    },
                    threads,
                    max_prims,
                    &mut prims,
                );
                report.primitives_rasterized += done.rasterized;
                refused |= done.refused;
                failed |= done.overflow;
            }
            for p in gs_prims.iter().take(if so_writer.is_some() {
                gs_prims.len()
            } else {
                0
            }) {
                if let Some(w) = so_writer.as_mut() {
                    w.primitive(p.stream, kind, &gs_out, p.v);
                }
                if rasterized != Some(p.stream) {
                    continue;
                }
                if prims.try_reserve(8).is_err() {
                    refused = true;
                    break;
                }
                let before = prims.len();
                report.clip_invocations += 1;
                setup_primitive(
                    &route,
                    linked,
                    &gs_out,
                    kind,
                    p.v,
                    p.id,
                    &mut scratch,
                    &mut prims,
                );
                report.primitives_rasterized += (prims.len() - before) as u64;
                if prims.len() as u64 > max_prims {
                    failed = true;
                    break;
                }
            }
            if failed || refused {
                prim_overflow = true;
                break;
            }
            continue;
        }
        if listed {
            // Nothing else happens in assembly order: each worker assembles the stream
            // and sets up its own range of its primitives (assembly is cheap next to
            // setup; strip cuts only make fewer than `most_primitives`).
            let most = most_primitives(s.topology, count) as usize;
            let each = |lo: usize, hi: usize, f: &mut dyn FnMut(Assembled) -> bool| {
                let mut k = 0usize;
                ia::assemble(s.topology, args.vertex_count, &is_cut, &mut |p| {
                    let i = k;
                    k += 1;
                    if i < lo {
                        return true;
                    }
                    i < hi && f((p.v.map(vertex), p.id))
                });
            };
            let done = setup_primitives(
                &route, linked, &outputs, kind, most, &each, threads, max_prims, &mut prims,
            );
            report.primitives += done.assembled;
            if rasterized.is_some() {
                report.clip_invocations += done.assembled;
            }
            report.primitives_rasterized += done.rasterized;
            refused |= done.refused;
            failed |= done.overflow;
            if failed || refused {
                prim_overflow = true;
                break;
            }
            continue;
        }
        ia::assemble(s.topology, args.vertex_count, &is_cut, &mut |p| {
            report.primitives += 1;
            let verts = p.v.map(vertex);
            if let Some(w) = so_writer.as_mut() {
                w.primitive(0, kind, &outputs, verts);
            }
            if rasterized.is_none() {
                return true;
            }
            // A clipped triangle sets up at most 7 (a 9-sided polygon).
            if prims.try_reserve(8).is_err() {
                refused = true;
                return false;
            }
            let before = prims.len();
            report.clip_invocations += 1;
            setup_primitive(
                &route,
                linked,
                &outputs,
                kind,
                verts,
                p.id,
                &mut scratch,
                &mut prims,
            );
            report.primitives_rasterized += (prims.len() - before) as u64;
            if prims.len() as u64 > max_prims {
                failed = true;
                return false;
            }
            true
        });
        if failed || refused {
            prim_overflow = true;
            break;
        }
    }
    report.stream_output = so_writer.map(SoWriter::finish);
    if refused {
        return Err(state_err(
            DrawField::Args,
            format!(
                "the draw's primitives: the system refused room for more than {}",
                prims.len()
            ),
        ));
    }
    if !prim_overflow {
        memory.take(
            "the primitives clipping added",
            bytes_of::<Prim>((prims.len() as u64).saturating_sub(most_prims)),
        )?;
    }
    if prim_overflow {
        return Err(state_err(
            DrawField::Args,
            format!("more primitives than the memory limit of {limit} bytes holds"),
        ));
    }
    let stage_vertices = if s.mesh.is_some() {
        &mesh_out
    } else if gs_program.is_some() {
        &gs_out
    } else if tess_programs.is_some() {
        &ds_out
    } else {
        &outputs
    };
    // The vertex words the pixel program reads, gathered per primitive for the fill.
    let lines = ps::PrimAttrs::lines_per_prim(linked) as u64;
    memory.take(
        "the pixel inputs gathered per primitive",
        bytes_of::<ps::AttrLine>((prims.len() as u64).saturating_mul(lines)),
    )?;
    let attrs =
        ps::PrimAttrs::gather(linked, &prims, stage_vertices, threads).ok_or_else(|| {
            state_err(
                DrawField::Args,
                "the pixel inputs gathered per primitive: the system refused the memory",
            )
        })?;
    let t1 = Instant::now();
    report.times.setup = (t1 - t0).as_secs_f64();
    // Primitives routed to other slices than the first run in passes, one per slice
    // (`slice_passes`); a draw without views of several slices has one pass.
    let views = view_slices(s);
    let passes = slice_passes(&prims, &views, &mut memory)?;
    let traced = trace
        .as_ref()
        .filter(|t| matches!(t.at, TraceAt::Pixel { .. }));
    if want_origins {
        let per_instance = unique.len().max(1);
        let staged = gs_program.is_some() || tess_programs.is_some();
        let of = |v: u32| -> Option<super::work::LaneSelect> {
            if staged {
                return stage_origins.get(v as usize).copied();
            }
            let v = v as usize;
            Some(super::work::LaneSelect::Vertex {
                vertex: *unique.get(v % per_instance)?,
                instance: (v / per_instance) as u32,
            })
        };
        let mut o = Vec::new();
        if o.try_reserve(prims.len()).is_ok() {
            o.extend(prims.iter().map(|p| of(p.verts[0])));
            if let Some(w) = origin_sink {
                w.origins(o.clone());
            }
            if let Some(h) = opts.trace.filter(|h| matches!(h.at, TraceAt::Pixel { .. })) {
                h.set_origins(o);
            }
        }
    }
    if let (Some(m), true) = (&s.mesh, want_mesh_origins) {
        // Each mesh primitive became `k` vertex records, its provoking vertex first.
        let k = m.ms.0.mesh.map_or(3, |x| x.topology.indices()).max(1);
        let mut o = Vec::new();
        if o.try_reserve(prims.len()).is_ok() {
            o.extend(
                prims
                    .iter()
                    .map(|p| mesh_origins.get((p.verts[0] / k) as usize).copied()),
            );
            if let Some(w) = mesh_sink {
                w.mesh_origins(o.clone());
            }
            if let Some(h) = opts.trace.filter(|h| matches!(h.at, TraceAt::Pixel { .. })) {
                h.set_mesh_origins(o);
            }
        }
    }
    if traced.is_some() && passes.len() > 1 {
        return Err(state_err(
            DrawField::Programs,
            "a pixel wave to trace in a draw that routes primitives to several render-target slices: the debugger does not trace such draws yet",
        ));
    }

    let ps_out = s.ps.map(PsOutputs::of).unwrap_or_default();
    let ps_read = s.ps.map(ps::words_read);
    let depth_ranges: Vec<(f32, f32)> = viewports
        .iter()
        .map(|v| (v.viewport.min_depth, v.viewport.max_depth))
        .collect();
    let stage = PixelStage {
        link: linked,
        prims: &prims,
        vertices: stage_vertices,
        pattern,
        depth_ranges: &depth_ranges,
        attrs: Some(&attrs),
        read: ps_read.as_deref(),
    };
    let rates = shading_rates(s, rast_stream, targets, linked, &ps_out)?;
    // D3D11.3 §3.5.6.2: with a forced sample count, a pixel covering any forced sample
    // writes every sample of the bound targets.
    let target_coverage = (s.rasterizer.forced_sample_count != 0
        && s.render_targets.iter().any(Option::is_some))
    .then(|| {
        if targets.samples >= 32 {
            u32::MAX
        } else {
            (1u32 << targets.samples) - 1
        }
    });
    // §3.4.4: an alpha-antialiased line's coverage scales `o0.a` (a float; an integer
    // target's alpha is left alone, the section defining no integer form).
    let aa_alpha = (setup::LineMode::of_desc(&s.rasterizer) == setup::LineMode::AlphaAntialiased)
        .then_some(())
        .and(ps_out.targets[0])
        .filter(|&(_, m)| m & 8 != 0)
        .filter(|_| {
            !matches!(
                targets.classes.first(),
                Some(Some((TargetClass::Integer, _)))
            )
        })
        .map(|(w, _)| w + 3);
    let mut st = TileStats::default();
    let mut binning = 0.0;
    for (slice, members) in &passes {
        let tb = Instant::now();
        let (bins, bin_bytes) = bin_primitives(
            &prims,
            members.as_deref(),
            targets,
            threads,
            &mut memory,
            opts.pso,
        )?;
        binning += tb.elapsed().as_secs_f64();
        let sliced;
        let state = if views.iter().any(|v| v.1) {
            sliced = slice_state(s, *slice);
            &sliced
        } else {
            s
        };
        let mut om = OutputMerger::new(state, &stage, targets.samples, early, ps_out, opts.writes);
        om.target_coverage = target_coverage;
        om.aa_alpha = aa_alpha;
        let ctx = TileCtx {
            stage: &stage,
            bins: &bins,
            om,
            ps: ps_program.as_ref(),
            scissor,
            observer: opts.observer,
            memory: opts.memory,
            trace: traced,
            budget,
            vrs: rates.as_ref(),
        };
        st.add(&ctx.run(threads)?);
        memory.give(bin_bytes);
        if let Some(cache) = opts.pso {
            cache.keep_bins(bins);
        }
    }
    report.times.binning = binning;
    report.pixels_shaded = st.pixels;
    report.samples_passed = st.samples_passed;
    report.helper_lanes = st.helpers;
    report.pixel_waves = st.waves;
    report.pixel_batch_lanes = ps_batch;
    report.pixel_wave_size = if ps_batch == 0 { 0 } else { ps_wave };
    report.ps_lane_instructions = st.lane_instructions;
    // The timed waves stand for all of them (`tile::TIMED_WAVES`).
    let scale = if st.timed_waves == 0 {
        0.0
    } else {
        st.waves as f64 / st.timed_waves as f64
    };
    let (shading, om) = (st.shading * scale, st.om + st.wave_om * scale);
    report.times.raster = (st.total - shading - om).max(0.0);
    report.times.shading = shading;
    report.times.output_merger = om;
    // After the draw, so that the reports count what the region code ran.
    for (stage, p) in [
        ("vs", vs_program.as_ref()),
        ("gs", gs_program.as_ref()),
        ("hs", tess_programs.as_ref().map(|p| &p.0)),
        ("ds", tess_programs.as_ref().map(|p| &p.1)),
        ("ps", ps_program.as_ref()),
    ] {
        let Some((p, key)) = p.and_then(|p| Some((p, p.jit_report_key()?))) else {
            continue;
        };
        report.compile_seconds += key.compile_time().as_secs_f64();
        let line = match opts.pso {
            Some(cache) => cache.jit_line(stage, key, p),
            None => p.jit_report().map(|r| format!("{stage}: {r}")),
        };
        report.jit.extend(line);
    }
    Ok(report)
}

fn is_zero<T: Default + PartialEq>(n: &T) -> bool {
    *n == T::default()
}

/// What a draw derives from its state alone, checked: its targets, sample pattern,
/// input layout, tessellation and stream-output links, the rasterized stream, the
/// linked signatures, its viewports and the union of their scissor rectangles. A
/// list's draws of one state share it (`pso::PsoCache::front`).
struct FrontEnd {
    targets: Targets,
    pattern: Pattern,
    layout: Vec<Element>,
    tess_links: Option<TessLinks>,
    so_layout: Option<SoLayout>,
    /// The stream the rasterizer takes (`None`: stream output names none).
    rasterized: Option<u32>,
    /// The stream whose elements the rasterizer and the pixel program read.
    rast_stream: u32,
    linked: Linked,
    viewports: Vec<ViewportSetup>,
    scissor: Rect,
    /// The output words of the last stage before the rasterizer that hold
    /// `SV_ViewportArrayIndex` and `SV_RenderTargetArrayIndex` (`routing_word`).
    viewport_word: Option<u32>,
    slice_word: Option<u32>,
}

/// Checks a draw's state and derives its [`FrontEnd`]; the errors name the state's
/// field.
fn front_end(s: &DrawState<'_>) -> Result<FrontEnd, DrawError> {
    let targets = check_targets(s)?;
    if let Some(ps) = s.ps {
        check_outputs(ps, &targets)?;
    }
    if s.rasterizer.line_rasterization_mode.is_some()
        && (s.rasterizer.multisample_enable || s.rasterizer.antialiased_line_enable)
    {
        // D3D12_RASTERIZER_DESC2 replaces the two booleans by LineRasterizationMode: a
        // description has one form or the other, so both at once has no meaning.
        return Err(state_err(
            DrawField::Rasterizer,
            "a line rasterization mode (D3D12_RASTERIZER_DESC2) replaces MultisampleEnable and AntialiasedLineEnable: give the mode alone",
        ));
    }
    if s.rasterizer.conservative && s.rasterizer.fill_mode == FillMode::Wireframe {
        // DirectX-Specs "Conservative Rasterization", Fill Modes interaction.
        return Err(state_err(
            DrawField::Rasterizer,
            "conservative rasterization takes solid fill only, not wireframe",
        ));
    }
    for i in 0..targets.classes.len() {
        let b = s.blend.target(i);
        if b.blend_enable && b.logic_op_enable {
            return Err(state_err(
                DrawField::Blend(i),
                "blending and a logic operation cannot both be on",
            ));
        }
    }
    let pattern = match &s.rasterizer.sample_positions {
        Some(p) => Pattern::programmed(targets.raster_samples, p.positions())
            .map_err(|m| state_err(DrawField::Rasterizer, m))?,
        None => Pattern::standard(targets.raster_samples).ok_or_else(|| {
            state_err(
                DrawField::RenderTarget(0),
                format!(
                    "{} samples: the standard patterns have 1, 2, 4, 8 or 16",
                    targets.raster_samples
                ),
            )
        })?,
    };
    let layout: Vec<Element> =
        ia::resolve_layout(&s.input_layout).map_err(|e| DrawError::State {
            field: DrawField::InputElement(e.element),
            message: e.message,
        })?;
    let tess_links = check_tessellation(s)?;
    if let Some((gs, _)) = s.gs {
        if s.mesh.is_some() {
            return Err(state_err(
                DrawField::Programs,
                "a mesh draw has no geometry stage (mesh shader spec, \"CreatePipelineState\": no VS, GS, HS or DS)",
            ));
        }
        match s.hs.and_then(|h| h.0.hull) {
            Some(h) if tess_links.is_some() => check_gs_after_tessellation(gs, &h)?,
            _ => check_gs_topology(gs, s.topology)?,
        }
    }
    let so_layout = check_stream_output(s)?;
    // Which stream reaches the rasterizer: stream 0 without stream output.
    let rasterized = so_layout.as_ref().map_or(Some(0), |l| l.rasterized);
    // The stream whose elements the rasterizer and the pixel program read (any one
    // without a rasterized stream: nothing reaches them).
    let rast_stream = rasterized.unwrap_or(0);
    if s.mesh.is_some() && tess_links.is_some() {
        return Err(state_err(
            DrawField::Programs,
            "a mesh draw has no tessellation stages (mesh shader spec, \"CreatePipelineState\": no VS, GS, HS or DS)",
        ));
    }
    let linked = match &s.mesh {
        Some(m) => ms::link(m.ms.0, s.ps)?,
        None => link::link_stages(
            &layout,
            s.vs,
            s.ds.map(|d| d.0),
            s.gs.map(|g| g.0),
            s.ps,
            rasterized,
        )?,
    };
    if linked.per_sample
        && s.rasterizer.forced_sample_count != 0
        && s.render_targets.iter().any(Option::is_some)
    {
        // D3D11.3 §3.5.6.2: sample-frequency shading with a forced sample count has
        // undefined results.
        return Err(state_err(
            DrawField::Rasterizer,
            format!(
                "ForcedSampleCount {} with a pixel program that runs per sample: D3D leaves it undefined",
                s.rasterizer.forced_sample_count
            ),
        ));
    }
    let viewports = check_viewports(s, &targets)?;
    // The pixels any primitive may touch: the union of every viewport's (each
    // primitive's box is already within its own viewport's rectangle).
    let scissor = viewports
        .iter()
        .map(|v| v.setup.scissor)
        .filter(|r| r.left < r.right && r.top < r.bottom)
        .reduce(|a, b| Rect {
            left: a.left.min(b.left),
            top: a.top.min(b.top),
            right: a.right.max(b.right),
            bottom: a.bottom.max(b.bottom),
        })
        .unwrap_or(Rect {
            left: 0,
            top: 0,
            right: 0,
            bottom: 0,
        });

    Ok(FrontEnd {
        targets,
        pattern,
        layout,
        tess_links,
        so_layout,
        rasterized,
        rast_stream,
        linked,
        viewports,
        scissor,
        viewport_word: routing_word(last_stage(s), rast_stream, SysValue::ViewportArrayIndex),
        slice_word: routing_word(last_stage(s), rast_stream, SysValue::RenderTargetArrayIndex),
    })
}

/// The vertex or pixel program (`kind`) of `shader` with the table `table` makes under
/// `opts`'s plan, and its wave size: from the list's pipeline state objects when the
/// draw has them (`pso`), else chosen and prepared here. The program runs in batches
/// of whole waves (`plan::BatchLanes`).
fn stage_program<'a>(
    opts: &DrawOptions<'_>,
    shader: &'a Shader,
    shared: Option<&Arc<Shader>>,
    kind: BatchKind,
    table: impl FnOnce() -> Result<DescriptorTable, ExecError>,
) -> Result<(u32, StageProgram<'a>), DrawError> {
    let plan = &opts.plan;
    match opts.pso {
        Some(cache) => Ok(cache.program(shader, shared, kind, table, plan)?),
        None => {
            let (wave, batch) = choose_wave(plan, shader, kind)?;
            let program =
                StageProgram::new(shader, table()?, plan.profile.clone(), plan.limits, batch)?
                    .with_engine(plan.engine);
            Ok((wave, program))
        }
    }
}

/// A program the draw runs one wave at a time (the geometry, hull and domain stages),
/// with its resources.
fn bound_program<'a>(
    plan: &Plan,
    shader: &'a Shader,
    bindings: &super::Bindings,
) -> Result<StageProgram<'a>, DrawError> {
    let (wave, _) = choose_wave(plan, shader, BatchKind::Vertex { vertices: u32::MAX })?;
    let table = DescriptorTable::new(
        shader,
        &bindings.ranges,
        &bindings.resource_heap,
        &bindings.sampler_heap,
    )?;
    Ok(
        StageProgram::new(shader, table, plan.profile.clone(), plan.limits, wave)?
            .with_engine(plan.engine),
    )
}

/// The tessellator's state from the hull program's declarations.
fn tessellator_desc(h: &crate::ir::HullState) -> TessellatorDesc {
    use crate::ir::{TessDomain as D, TessOutput as O, TessPartitioning as P};
    TessellatorDesc {
        domain: match h.domain {
            D::Tri => tess::Domain::Tri,
            D::Quad => tess::Domain::Quad,
            D::Isoline => tess::Domain::Isoline,
        },
        partitioning: match h.partitioning {
            P::Integer => tess::Partitioning::Integer,
            P::Pow2 => tess::Partitioning::Pow2,
            P::FractionalOdd => tess::Partitioning::FractionalOdd,
            P::FractionalEven => tess::Partitioning::FractionalEven,
        },
        output_primitive: match h.output {
            O::Point => tess::OutputPrimitive::Point,
            O::Line => tess::OutputPrimitive::Line,
            O::TriangleCw => tess::OutputPrimitive::TriangleCw,
            O::TriangleCcw => tess::OutputPrimitive::TriangleCcw,
        },
    }
}

/// The tessellation stages' checks (D3D11.3 §10 "Hull Shader Stage", §8 "Primitive
/// Topologies"; D3D12 refuses such a pipeline or draw): a hull program comes with a
/// domain program and the other way round; with them the topology is a patch list of as
/// many control points as the hull program reads, and without them no patch list is
/// drawn; the domains agree and the stages link (`link::link_tessellation`). Every error
/// names the programs and the field.
pub(crate) fn check_tessellation(s: &DrawState<'_>) -> Result<Option<TessLinks>, DrawError> {
    let (hs, ds) = match (s.hs, s.ds) {
        (None, None) => {
            if let PrimitiveTopology::PatchList(_) = s.topology {
                return Err(state_err(
                    DrawField::Programs,
                    format!(
                        "the topology {} makes patches, which only a hull program reads: the draw has none",
                        s.topology.name()
                    ),
                ));
            }
            return Ok(None);
        }
        (Some(_), None) => {
            return Err(state_err(
                DrawField::Programs,
                "a hull program without a domain program",
            ));
        }
        (None, Some(_)) => {
            return Err(state_err(
                DrawField::Programs,
                "a domain program without a hull program",
            ));
        }
        (Some((h, _)), Some((d, _))) => (h, d),
    };
    let Some(state) = hs.hull else {
        return Err(state_err(
            DrawField::Programs,
            format!("the hull program is a {} program", hs.stage),
        ));
    };
    match s.topology {
        PrimitiveTopology::PatchList(n) if u32::from(n) == state.input_points => {}
        t => {
            return Err(state_err(
                DrawField::Programs,
                format!(
                    "the hull program reads patches of {} control points (dcl_input_control_point_count), so the topology must be {}_control_point_patchlist, not {}",
                    state.input_points,
                    state.input_points,
                    t.name()
                ),
            ));
        }
    }
    Ok(Some(link::link_tessellation(s.vs, hs, ds)?))
}

/// Checks the stream-output state against the stage feeding it — the geometry program,
/// else the domain program, else the vertex program (`so::check`) — and its views
/// (`so::check_views`); a mesh draw has no stream output (the mesh shader spec's
/// pipeline has none), and no buffer the draw reads (a vertex or index buffer, a bound
/// buffer of any stage) may be a stream-output buffer (D3D12: a resource cannot be in
/// the `STREAM_OUT` state and a read state at once). Errors name the field.
fn check_stream_output(s: &DrawState<'_>) -> Result<Option<SoLayout>, DrawError> {
    let Some(o) = &s.stream_output else {
        return Ok(None);
    };
    let so_err = |e: so::SoError| state_err(DrawField::StreamOutput(e.field), e.message);
    if s.mesh.is_some() {
        return Err(state_err(
            DrawField::Programs,
            "a mesh draw has no stream output (mesh shader spec: the mesh pipeline ends at the rasterizer)",
        ));
    }
    let last = match (s.gs, s.ds) {
        (Some((g, _)), _) => g,
        (None, Some((d, _))) => d,
        (None, None) => s.vs,
    };
    let layout = so::check(&o.desc, last).map_err(so_err)?;
    so::check_views(&o.buffers).map_err(so_err)?;
    let mut read: Vec<(&crate::resources::Memory, String)> = Vec::new();
    for (i, v) in s.vertex_buffers.iter().enumerate() {
        if let Some(v) = v {
            read.push((&v.data, format!("vertex buffer {i}")));
        }
    }
    if let Some(ib) = &s.index_buffer {
        read.push((&ib.data, "the index buffer".into()));
    }
    let stages = [
        Some(("vertex", s.vs_bindings)),
        s.ps.map(|_| ("pixel", s.ps_bindings)),
        s.gs.map(|g| ("geometry", g.1)),
        s.hs.map(|h| ("hull", h.1)),
        s.ds.map(|d| ("domain", d.1)),
    ];
    for (stage, b) in stages.into_iter().flatten() {
        for d in b.ranges.iter().flatten().chain(&b.resource_heap) {
            let m = match d {
                crate::resources::Descriptor::Buffer { view, .. } => &view.memory,
                crate::resources::Descriptor::ConstantBuffer { memory, .. } => memory,
                _ => continue,
            };
            read.push((m, format!("a buffer the {stage} program reads")));
        }
    }
    for (i, b) in o.buffers.iter().enumerate() {
        let Some(b) = b else { continue };
        if let Some((_, what)) = read.iter().find(|(m, _)| **m == b.data) {
            return Err(state_err(
                DrawField::StreamOutput(so::SoField::Buffer(i)),
                format!(
                    "stream-output buffer {i} is also {what} in this draw: a buffer cannot be written by stream output and read by the same draw"
                ),
            ));
        }
    }
    Ok(Some(layout))
}

/// After the domain program, the geometry program reads the tessellator's primitives:
/// its input primitive must be what the hull program's output primitive makes — `point`
/// for points, `line` for lines, `triangle` for either triangle winding (D3D11.3 §11.7
/// "Tessellation Pattern" output primitives, §13 "Geometry Shader Stage"; D3D12 refuses
/// a pipeline state where they differ). A mismatch is an error naming both.
fn check_gs_after_tessellation(gs: &Shader, h: &crate::ir::HullState) -> Result<(), DrawError> {
    use crate::ir::{GsInput as G, TessOutput as O};
    let Some(g) = gs.geometry else {
        return Err(state_err(
            DrawField::Programs,
            format!("the geometry program is a {} program", gs.stage),
        ));
    };
    let wanted = match h.output {
        O::Point => G::Point,
        O::Line => G::Line,
        O::TriangleCw | O::TriangleCcw => G::Triangle,
    };
    if g.input != wanted {
        return Err(state_err(
            DrawField::Programs,
            format!(
                "the hull program's output primitive {} makes {wanted} primitives, but the geometry program after the domain program reads {} (dcl_inputprimitive): they must match",
                h.output, g.input
            ),
        ));
    }
    Ok(())
}

/// The geometry program's input primitive must be what the topology assembles: D3D
/// validates that the input assembler's topology matches the geometry shader's input
/// primitive (D3D11.3 §13 "Geometry Shader Stage"; D3D12 refuses the draw). A mismatch is
/// an error naming both.
fn check_gs_topology(gs: &Shader, t: PrimitiveTopology) -> Result<(), DrawError> {
    use crate::ir::GsInput as G;
    use PrimitiveTopology as T;
    let Some(g) = gs.geometry else {
        return Err(state_err(
            DrawField::Programs,
            format!("the geometry program is a {} program", gs.stage),
        ));
    };
    let wanted = match t {
        T::PointList => G::Point,
        T::LineList | T::LineStrip => G::Line,
        T::TriangleList | T::TriangleStrip => G::Triangle,
        T::LineListAdj | T::LineStripAdj => G::LineAdj,
        T::TriangleListAdj | T::TriangleStripAdj => G::TriangleAdj,
        T::PatchList(_) => {
            return Err(state_err(
                DrawField::Programs,
                format!(
                    "the topology {} makes patches, which only a hull program reads",
                    t.name()
                ),
            ));
        }
    };
    if g.input != wanted {
        return Err(state_err(
            DrawField::Programs,
            format!(
                "the topology {} assembles {wanted} primitives, but the geometry program reads {} (dcl_inputprimitive): they must match",
                t.name(),
                g.input
            ),
        ));
    }
    Ok(())
}

/// Lists the primitives `members` (indices into `prims`, in draw order; `None`: all of
/// them) in the tiles they touch (`bin`), each entry a copy of the primitive's raster
/// part (`bin::Binned`), on up to `threads` workers, counting the lists against `memory`
/// and reserving each exactly (fallibly) before any is filled; returns the bins and the
/// bytes counted, which the caller gives back when the bins are dropped.
fn bin_primitives(
    prims: &[Prim],
    members: Option<&[u32]>,
    targets: &Targets,
    threads: usize,
    memory: &mut DrawMemory,
    pso: Option<&PsoCache>,
) -> Result<(Bins<Binned>, u64), DrawError> {
    let bins = match pso {
        Some(cache) => cache.bins(targets.width, targets.height),
        None => Bins::new(targets.width, targets.height),
    };
    bin_lists(bins, prims, members, threads, memory, FEW_TO_BIN)
}

/// Primitives few enough to list one by one (`Bins::add`, after counting them per
/// tile): the two-pass form's bookkeeping runs over every tile of the target (a
/// 1920×1080 target has 510) for each range, which in a list of one-triangle draws
/// cost more than listing the triangle. Both forms make the same lists (`bin`'s tests
/// compare them).
const FEW_TO_BIN: usize = 64;

/// [`bin_primitives`] into `bins` (empty; new, or kept from an earlier draw with
/// their storage), listing one by one when there are at most `few` primitives.
fn bin_lists(
    mut bins: Bins<Binned>,
    prims: &[Prim],
    members: Option<&[u32]>,
    threads: usize,
    memory: &mut DrawMemory,
    few: usize,
) -> Result<(Bins<Binned>, u64), DrawError> {
    // Item `k`: the primitive's index in `prims`.
    let index = |k: usize| -> Option<u32> {
        match members {
            None => u32::try_from(k).ok(),
            Some(m) => m.get(k).copied(),
        }
    };
    let n = members.map_or(prims.len(), <[u32]>::len);
    let boxes = |k: usize| index(k).and_then(|i| prims.get(i as usize)).map(|p| p.bbox);
    let entries = |k: usize| {
        let i = index(k)?;
        prims.get(i as usize).map(|p| (p.bbox, Binned::of(i, p)))
    };
    if n <= few {
        // Only the tiles the boxes touch are visited, here and (through the record made
        // at the end) by the tile loop and the list that keeps the bins.
        let touched = bins.sparse_counts((0..n).filter_map(boxes));
        let bytes = bytes_of::<Binned>(touched.iter().map(|&(_, c)| c).sum());
        memory.take("the tiles' primitive lists", bytes)?;
        let mut held = bins.held();
        for &(t, c) in &touched {
            if let Some(b) = bins.bins.get_mut(t as usize) {
                let before = b.capacity();
                DrawMemory::reserve("the tiles' primitive lists", b, c as usize)?;
                held += b.capacity() - before;
            }
        }
        for (bbox, entry) in (0..n).filter_map(entries) {
            bins.add(entry, bbox);
        }
        bins.record_occupied(touched.into_iter().map(|(t, _)| t).collect(), held);
        return Ok((bins, bytes));
    }
    let counted = bins.count_ranges(n, &boxes, threads);
    let counts = counted.totals();
    let entries_n: u64 = counts.iter().sum();
    let bytes = bytes_of::<Binned>(entries_n);
    memory.take("the tiles' primitive lists", bytes)?;
    for (b, &n) in bins.bins.iter_mut().zip(&counts) {
        DrawMemory::reserve("the tiles' primitive lists", b, n as usize)?;
    }
    bins.fill(&counted, &entries);
    Ok((bins, bytes))
}

/// One viewport of the draw, with its scissor rectangle, ready for clipping and setup.
struct ViewportSetup {
    viewport: Viewport,
    clip: ClipSetup,
    setup: SetupState,
}

/// Checks the viewports and scissor rectangles (`RSSetViewports`, `RSSetScissorRects`)
/// and makes each viewport's clipping and setup state. At most [`VIEWPORTS`] of each
/// (D3D12's `D3D12_VIEWPORT_AND_SCISSORRECT_OBJECT_COUNT_PER_PIPELINE`); every value
/// finite, widths and heights ≥ 0, depths in [0, 1] (the `D3D12_VIEWPORT` ranges;
/// `MinDepth > MaxDepth` is allowed, as D3D12 allows it). Rectangle `i` goes with
/// viewport `i` (D3D11.3 §15.7 "Scissor Test": the scissor rectangle is chosen by the
/// same index as the viewport), so scissor rectangles, when given, cover every viewport:
/// fewer is an error naming both counts (D3D12 would scissor the others with undefined
/// rectangles). No viewports: one over the whole target.
fn check_viewports(s: &DrawState<'_>, t: &Targets) -> Result<Vec<ViewportSetup>, DrawError> {
    if s.viewports.len() > VIEWPORTS {
        return Err(state_err(
            DrawField::Viewport,
            format!(
                "{} viewports; D3D12 binds at most {VIEWPORTS} (D3D12_VIEWPORT_AND_SCISSORRECT_OBJECT_COUNT_PER_PIPELINE)",
                s.viewports.len()
            ),
        ));
    }
    if s.scissors.len() > VIEWPORTS {
        return Err(state_err(
            DrawField::Scissor,
            format!(
                "{} scissor rectangles; D3D12 binds at most {VIEWPORTS} (D3D12_VIEWPORT_AND_SCISSORRECT_OBJECT_COUNT_PER_PIPELINE)",
                s.scissors.len()
            ),
        ));
    }
    let list = if s.viewports.is_empty() {
        vec![Viewport::full(t.width, t.height)]
    } else {
        s.viewports.clone()
    };
    if !s.scissors.is_empty() && s.scissors.len() < list.len() {
        return Err(state_err(
            DrawField::Scissor,
            format!(
                "{} scissor rectangle(s) for {} viewports: rectangle i goes with viewport i, so give one per viewport",
                s.scissors.len(),
                list.len()
            ),
        ));
    }
    let many = list.len() > 1;
    let ds_format = s
        .depth_stencil_view
        .as_ref()
        .map(|d| d.texture.desc().format);
    let mut out = Vec::with_capacity(list.len());
    for (i, viewport) in list.into_iter().enumerate() {
        let which = if many {
            format!("viewport {i}: ")
        } else {
            String::new()
        };
        let vp_ok = [
            viewport.top_left_x,
            viewport.top_left_y,
            viewport.width,
            viewport.height,
            viewport.min_depth,
            viewport.max_depth,
        ]
        .iter()
        .all(|v| v.is_finite());
        if !vp_ok || viewport.width < 0.0 || viewport.height < 0.0 {
            return Err(state_err(
                DrawField::Viewport,
                format!("{which}every viewport value must be finite, and width and height ≥ 0"),
            ));
        }
        if !(0.0..=1.0).contains(&viewport.min_depth) || !(0.0..=1.0).contains(&viewport.max_depth)
        {
            return Err(state_err(
                DrawField::Viewport,
                format!("{which}min and max depth must lie in [0, 1]"),
            ));
        }
        let scissor = effective_scissor(t, &viewport, s.scissors.get(i).copied());
        out.push(ViewportSetup {
            viewport,
            clip: ClipSetup::new(
                viewport.top_left_x,
                viewport.top_left_y,
                viewport.width,
                viewport.height,
                s.rasterizer.depth_clip_enable,
            ),
            setup: SetupState {
                scissor,
                front_ccw: s.rasterizer.front_counter_clockwise,
                cull_front: s.rasterizer.cull_mode == CullMode::Front,
                cull_back: s.rasterizer.cull_mode == CullMode::Back,
                depth_bias: s.rasterizer.depth_bias,
                depth_bias_clamp: s.rasterizer.depth_bias_clamp,
                slope_scaled_depth_bias: s.rasterizer.slope_scaled_depth_bias,
                depth_float: matches!(
                    ds_format.and_then(om::depth_kind),
                    Some(om::DepthKind::Float)
                ),
                depth_unorm_r: match ds_format.and_then(om::depth_kind) {
                    Some(om::DepthKind::Unorm(b)) => 1.0 / ((1u64 << b) - 1) as f32,
                    _ => 1.0 / 16_777_215.0,
                },
                wireframe: s.rasterizer.fill_mode == FillMode::Wireframe,
                conservative: s.rasterizer.conservative,
                line_mode: setup::LineMode::of_desc(&s.rasterizer),
            },
        });
    }
    Ok(out)
}

/// The program whose outputs the rasterizer reads: the mesh, geometry or domain
/// program when the draw has one, else the vertex program.
fn last_stage<'a>(s: &DrawState<'a>) -> &'a Shader {
    match (&s.mesh, s.gs, s.ds) {
        (Some(m), _, _) => m.ms.0,
        (None, Some((g, _)), _) => g,
        (None, None, Some((d, _))) => d,
        (None, None, None) => s.vs,
    }
}

/// The draw's shading rates (`vrs`), `None` when every pixel shades fine: the state
/// cannot be coarse, or the pixel program runs per sample or writes depth or a stencil
/// reference (VRS "Sample-based execution", "Export of Depth and Stencil"). The
/// per-primitive rate is the provoking vertex's `SV_ShadingRate` from a vertex, geometry
/// or mesh program (a geometry program's of the rasterized `stream`); a domain program
/// may not write it (VRS "Per-Primitive Attribute").
fn shading_rates(
    s: &DrawState<'_>,
    stream: u32,
    targets: &Targets,
    linked: &Linked,
    ps_out: &PsOutputs,
) -> Result<Option<vrs::Rates>, DrawError> {
    let fine = linked.per_sample || ps_out.depth.is_some() || ps_out.stencil_ref.is_some();
    let domain_last = s.ds.is_some() && s.gs.is_none() && s.mesh.is_none();
    let prim_word = if domain_last {
        None
    } else {
        routing_word(last_stage(s), stream, SysValue::ShadingRate)
    };
    vrs::Rates::new(
        &s.shading_rate,
        targets.width,
        targets.height,
        targets.raster_samples,
        prim_word,
        fine,
    )
    .map_err(|e| state_err(DrawField::ShadingRate, e))
}

/// The output word holding system value `sv` (`SV_ViewportArrayIndex`,
/// `SV_RenderTargetArrayIndex`) in the records the rasterizer reads of `last`: a vertex
/// output (of the rasterized `stream`, `gs::stream_elements`), or for a mesh program a
/// per-primitive output (after the vertex words of each record, `ms::record_words`).
/// `None` when the program does not write it.
fn routing_word(last: &Shader, stream: u32, sv: SysValue) -> Option<u32> {
    let word = |o: &crate::ir::IoElement| o.word(0, o.mask.trailing_zeros().min(3));
    if last.mesh.is_some() {
        return last
            .primitive_outputs
            .iter()
            .find(|o| o.sv == sv)
            .map(|o| last.output_words + word(o));
    }
    gs::stream_elements(last, stream)
        .into_iter()
        .find(|o| o.sv == sv)
        .map(word)
}

/// Where each primitive goes (D3D11.3 §15.6 "Viewport" and §15.7 "Scissor Test" for
/// `SV_ViewportArrayIndex`, §17 "Output Merger" render-target arrays for
/// `SV_RenderTargetArrayIndex`; the D3D12 reference of `D3D12_VIEW_INSTANCE_LOCATION`):
/// both are read from the primitive's leading vertex (its provoking vertex, the one
/// `nointerpolation` attributes take), from whichever stage feeds the rasterizer —
/// geometry, domain, mesh (per primitive) or vertex program (D3D12's
/// `VPAndRTArrayIndexFromAnyShaderFeedingRasterizerSupportedWithoutGSEmulation`, which
/// WARP reports). A value out of range — a viewport index at or past the number of
/// viewports, a slice index at or past every view's slice count — selects 0, "the
/// effective index becomes 0"; a program that writes neither sends everything to viewport 0
/// and slice 0.
struct Route<'a> {
    views: &'a [ViewportSetup],
    viewport_word: Option<u32>,
    slice_word: Option<u32>,
    /// The most slices of any bound view.
    slices: u32,
    /// The view instance's location, added to both indices before the range check
    /// (`view_instancing::effective_index`); (0, 0) without view instancing.
    location: ViewInstanceLocation,
}

impl Route<'_> {
    /// The viewport and slice of a primitive whose leading vertex is `lead`.
    fn of(&self, vo: &VertexOutputs, lead: u32) -> (usize, u32) {
        let vp = self.viewport_word.map_or(0, |w| vo.word(lead, w));
        let vp = effective_index(
            self.location.viewport,
            vp,
            u32::try_from(self.views.len()).unwrap_or(u32::MAX),
        ) as usize;
        let slice = self.slice_word.map_or(0, |w| vo.word(lead, w));
        let slice = effective_index(self.location.render_target_slice, slice, self.slices);
        (vp, slice)
    }
}

/// Per bound view (render targets, then the depth-stencil view): its slice count and
/// whether it is an array (`Texture::target_view`), which the output merger takes a
/// slice of.
fn view_slices(s: &DrawState<'_>) -> Vec<(u32, bool)> {
    s.render_targets
        .iter()
        .flatten()
        .map(|v| &v.texture)
        .chain(s.depth_stencil_view.iter().map(|d| &d.texture))
        .map(|t| (t.desc().array_size(), t.desc().dim.is_array()))
        .collect()
}

/// The slice of a view of `n` slices that slice index `k` writes: `k`, or the view's
/// first slice when `k` is past its end (the out-of-range rule of [`Route`], per view).
fn view_slice(k: u32, n: u32) -> u32 {
    if k < n { k } else { 0 }
}

/// The draw's state with each view narrowed to the slice index `k` writes
/// (`view_slice`): what one pass's output merger writes.
fn slice_state<'a>(s: &DrawState<'a>, k: u32) -> DrawState<'a> {
    let pick = |t: &crate::resources::Texture| {
        t.subresource(0, view_slice(k, t.desc().array_size()))
            .unwrap_or_else(|| t.clone())
    };
    let mut out = s.clone();
    for rt in out.render_targets.iter_mut().flatten() {
        rt.texture = pick(&rt.texture);
    }
    if let Some(d) = out.depth_stencil_view.as_mut() {
        d.texture = pick(&d.texture);
    }
    out
}

/// One pass of the tiles: a slice index and its primitives in draw order (`None`: every
/// primitive).
type SlicePass = (u32, Option<Vec<u32>>);

/// The passes the tiles run ([`SlicePass`]). Passes write disjoint slices or run in the order D3D's needs: a
/// primitive joins the latest pass of its slice unless a pass after that one writes
/// some view's slice it writes too (a view with fewer slices sends both indices to its
/// first slice), in which case it starts a new pass — so every slice of every view sees
/// its primitives in draw order. With no primitive past slice 0, one pass.
fn slice_passes(
    prims: &[Prim],
    views: &[(u32, bool)],
    memory: &mut DrawMemory,
) -> Result<Vec<SlicePass>, DrawError> {
    if prims.iter().all(|p| p.slice == 0) {
        return Ok(vec![(0, None)]);
    }
    memory.take(
        "the render-target slices' primitive lists",
        bytes_of::<u32>(prims.len() as u64),
    )?;
    let clash = |a: u32, b: u32| {
        a != b
            && views
                .iter()
                .any(|&(n, _)| view_slice(a, n) == view_slice(b, n))
    };
    let mut passes: Vec<(u32, Vec<u32>)> = Vec::new();
    for (i, p) in prims.iter().enumerate() {
        let mut at = None;
        for (j, (k, _)) in passes.iter().enumerate().rev() {
            if *k == p.slice {
                at = Some(j);
                break;
            }
            if clash(*k, p.slice) {
                break;
            }
        }
        match at.and_then(|j| passes.get_mut(j)) {
            Some((_, m)) => m.push(i as u32),
            None => passes.push((p.slice, vec![i as u32])),
        }
    }
    Ok(passes.into_iter().map(|(k, m)| (k, Some(m))).collect())
}

/// Prepares the hook's program: the traced stage's bindings, wave size, profile and
/// limits, and the view its pass draws.
#[allow(clippy::too_many_arguments)]
fn trace_program<'a>(
    s: &DrawState<'a>,
    h: &'a (dyn Hook + 'a),
    at: TraceAt,
    shader: &'a Shader,
    opts: &DrawOptions<'_>,
    vs_wave: u32,
    ps_wave: u32,
    view: u32,
) -> Result<TraceProgram<'a>, DrawError> {
    // The geometry, hull and domain stages run in waves of `bound_program`'s size.
    let staged = |p: Option<(&'a Shader, &'a super::Bindings)>, what: &str| match p {
        Some((sh, b)) => Ok((
            sh,
            b,
            choose_wave(&opts.plan, sh, BatchKind::Vertex { vertices: u32::MAX })?.0,
        )),
        None => Err(state_err(
            DrawField::Programs,
            format!("a {what} wave to trace, but the draw has no {what} program"),
        )),
    };
    let (drawn, bindings, wave) = match at {
        TraceAt::Pixel { .. } => match s.ps {
            Some(ps) => (ps, s.ps_bindings, ps_wave),
            None => {
                return Err(state_err(
                    DrawField::Programs,
                    "a pixel wave to trace, but the draw has no pixel program",
                ));
            }
        },
        TraceAt::Vertex { .. } => (s.vs, s.vs_bindings, vs_wave),
        TraceAt::Geometry { .. } => staged(s.gs, "geometry")?,
        TraceAt::Hull { .. } => staged(s.hs, "hull")?,
        TraceAt::Domain { .. } => staged(s.ds, "domain")?,
        TraceAt::Mesh { .. } | TraceAt::Amplification { .. } => {
            return Err(state_err(
                DrawField::Programs,
                "a mesh or amplification wave to trace, but the draw is not a mesh draw",
            ));
        }
        TraceAt::Ray { .. } => {
            return Err(state_err(
                DrawField::Programs,
                "a ray-generation wave to trace, but the work is a draw, not a DispatchRays",
            ));
        }
    };
    let t = shader;
    if t.stage != drawn.stage
        || t.input_words != drawn.input_words
        || t.output_words != drawn.output_words
        || t.resources != drawn.resources
    {
        return Err(state_err(
            DrawField::Programs,
            "the traced program has another stage, signature or resources than the drawn one",
        ));
    }
    let table = DescriptorTable::new(
        t,
        &bindings.ranges,
        &bindings.resource_heap,
        &bindings.sampler_heap,
    )?;
    Ok(TraceProgram {
        hook: h,
        at,
        program: StageProgram::new(t, table, opts.plan.profile.clone(), opts.plan.limits, wave)?
            .with_engine(Engine::Interp)
            .with_view_id(view),
    })
}

/// Buffers that setup reuses from primitive to primitive (one set per worker): the
/// screen vertices of a clipped polygon and their weights over the original vertices.
#[derive(Default)]
struct SetupScratch {
    sv: Vec<setup::ScreenVertex>,
    mu: Vec<Weights>,
}

/// The polygon of an unclipped primitive: each original vertex with weight 1.
const IDENTITY: [Weights; 3] = [[1.0, 0.0, 0.0], [0.0, 1.0, 0.0], [0.0, 0.0, 1.0]];

/// One assembled primitive waiting for setup: its vertices in the stage outputs, and its
/// `SV_PrimitiveID`.
type Assembled = ([u32; 3], u32);

/// Fewest primitives worth a worker of their own in [`setup_primitives`]: below this,
/// starting a thread costs more than the setup it takes over.
const SETUP_CHUNK: usize = 1024;

/// What [`setup_primitives`] did.
#[derive(Debug, Default, Clone, Copy)]
struct SetupDone {
    /// Primitives assembled (set up or not).
    assembled: u64,
    /// Primitives appended.
    rasterized: u64,
    /// More than the allowed number of primitives.
    overflow: bool,
    /// The system refused room for more.
    refused: bool,
}

/// Calls `f` with what `pick` takes of each of items `lo..hi` (held to the slice), in
/// order, until it returns false.
fn slice_items<T>(
    items: &[T],
    lo: usize,
    hi: usize,
    pick: &dyn Fn(&T) -> Option<Assembled>,
    f: &mut dyn FnMut(Assembled) -> bool,
) {
    let part = items
        .get(lo.min(items.len())..hi.min(items.len()))
        .unwrap_or(&[]);
    for a in part.iter().filter_map(pick) {
        if !f(a) {
            break;
        }
    }
}

/// Calls its third argument with each assembled primitive numbered `lo..hi` of a
/// stream, in order, until it returns false.
type Items<'a> = dyn Fn(usize, usize, &mut dyn FnMut(Assembled) -> bool) + Sync + 'a;

/// Clips and sets up the primitives `0..total` that `items` lists on up to `threads`
/// workers, appending what survives to `prims` in their order: the numbers are cut into
/// contiguous ranges, one per worker, each worker sets up its range into a list of its
/// own, and the lists are appended in range order. A primitive's setup reads nothing
/// but its own vertices, so `prims` is the same for any number of workers, in draw
/// order (the output merger takes primitives in API order, D3D11.3 §3.5 "Output
/// Merger ordering"). Stops, saying `overflow`, once `prims` would hold more than
/// `max_prims`.
#[allow(clippy::too_many_arguments)]
fn setup_primitives(
    route: &Route<'_>,
    link: &Linked,
    vo: &VertexOutputs,
    kind: PrimKind,
    total: usize,
    items: &Items<'_>,
    threads: usize,
    max_prims: u64,
    prims: &mut Vec<Prim>,
) -> SetupDone {
    use std::sync::atomic::{AtomicU64, Ordering};
    // Primitives made so far by every worker, for the limit.
    let made = AtomicU64::new(prims.len() as u64);
    let run = |lo: usize, hi: usize, out: &mut Vec<Prim>| -> SetupDone {
        let mut scratch = SetupScratch::default();
        let mut done = SetupDone::default();
        items(lo, hi, &mut |(verts, id)| {
            done.assembled += 1;
            // A clipped triangle sets up at most 7 (a 9-sided polygon). A worker's
            // first primitive asks only for what its draw can hold: the room for 7 is
            // a block too large for the allocator's per-thread cache, which a list of
            // one-triangle draws asked for on every draw. Clipping such a draw's
            // triangle then grows the list by a few hundred bytes.
            let room = if out.capacity() == 0 {
                total.clamp(1, 8)
            } else {
                8
            };
            if out.try_reserve(room).is_err() {
                done.refused = true;
                return false;
            }
            let before = out.len();
            setup_primitive(route, link, vo, kind, verts, id, &mut scratch, out);
            let added = (out.len() - before) as u64;
            done.rasterized += added;
            let now = if added > 0 {
                made.fetch_add(added, Ordering::Relaxed) + added
            } else {
                made.load(Ordering::Relaxed)
            };
            // Past the limit here or on another worker: the draw fails, stop.
            if now > max_prims {
                done.overflow = true;
                return false;
            }
            true
        });
        done
    };
    // The last range is open-ended: `total` is what the caller expects, not a bound
    // anything relies on.
    let workers = threads.min(total / SETUP_CHUNK).max(1);
    if workers == 1 {
        return run(0, usize::MAX, prims);
    }
    let per = total.div_ceil(workers);
    let ranges: Vec<(usize, usize)> = (1..workers)
        .map(|w| {
            (
                w * per,
                if w + 1 == workers {
                    usize::MAX
                } else {
                    (w + 1) * per
                },
            )
        })
        .collect();
    let mut outs: Vec<Vec<Prim>> = ranges.iter().map(|_| Vec::new()).collect();
    let run = &run;
    let results: Vec<SetupDone> = std::thread::scope(|sc| {
        let handles: Vec<_> = ranges
            .iter()
            .zip(outs.iter_mut())
            .map(|(&(lo, hi), out)| sc.spawn(move || run(lo, hi, out)))
            .collect();
        // The first range on this thread, straight into `prims`.
        let mut results = vec![run(0, per.min(total), prims)];
        for h in handles {
            results.push(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        }
        results
    });
    let mut done = SetupDone::default();
    for r in &results {
        done.assembled += r.assembled;
        done.rasterized += r.rasterized;
        done.overflow |= r.overflow;
        done.refused |= r.refused;
    }
    if done.overflow || done.refused {
        return done;
    }
    if append_on_workers(prims, &outs, threads).is_err() {
        done.refused = true;
    }
    done
}

/// A run of slots [`append_on_workers`] fills and the elements it copies there.
type Piece<'a, T> = (&'a mut [std::mem::MaybeUninit<T>], &'a [T]);

/// Writes a piece's elements into its slots.
fn copy_piece<T: Copy>((dst, src): Piece<'_, T>) {
    for (d, s) in dst.iter_mut().zip(src) {
        d.write(*s);
    }
}

/// Fewest elements worth copying on several workers.
const APPEND_CHUNK: usize = 1 << 15;

/// Appends `parts` to `list` in order, the copying cut into runs of about equal length
/// on up to `threads` workers. The copy's destination is memory the list has not used
/// yet, and meeting its pages is most of a large copy's time: on one thread, appending
/// the second worker's half of a 200,000-triangle draw's set-up primitives (25 MB) was a
/// tenth of the draw's time on two workers (`docs/jit.md`, "Small triangles").
fn append_on_workers<T: Copy + Send + Sync>(
    list: &mut Vec<T>,
    parts: &[Vec<T>],
    threads: usize,
) -> Result<(), std::collections::TryReserveError> {
    let total: usize = parts.iter().map(Vec::len).sum();
    list.try_reserve(total)?;
    let workers = threads.min(total / APPEND_CHUNK).max(1);
    if workers == 1 {
        for p in parts {
            list.extend_from_slice(p);
        }
        return Ok(());
    }
    // Every element of `parts` paired with its slot, cut into `workers` runs.
    let per = total.div_ceil(workers);
    let mut runs: Vec<Vec<Piece<'_, T>>> = (0..workers).map(|_| Vec::new()).collect();
    let mut spare = &mut list.spare_capacity_mut()[..total];
    let mut filled = 0usize;
    for p in parts {
        let mut src = &p[..];
        while !src.is_empty() {
            let run = filled / per;
            let n = src.len().min(per - filled % per);
            let (dst, rest) = std::mem::take(&mut spare).split_at_mut(n);
            let (head, tail) = src.split_at(n);
            if let Some(r) = runs.get_mut(run) {
                r.push((dst, head));
            }
            spare = rest;
            src = tail;
            filled += n;
        }
    }
    std::thread::scope(|sc| {
        let mut runs = runs.into_iter();
        let mine = runs.next();
        let handles: Vec<_> = runs
            .map(|r| {
                sc.spawn(move || {
                    for piece in r {
                        copy_piece(piece);
                    }
                })
            })
            .collect();
        for piece in mine.into_iter().flatten() {
            copy_piece(piece);
        }
        for h in handles {
            h.join().unwrap_or_else(|e| std::panic::resume_unwind(e));
        }
    });
    let len = list.len() + total;
    #[allow(unsafe_code)]
    // SAFETY: `total` elements are reserved past the list's length, and the pieces the
    // scope above wrote (`copy_piece`, each element a copy of an initialised `T`) are
    // consecutive and cover exactly those `total` slots: every part was cut into pieces
    // end to end, and the spare slots handed out in the same order. The scope has
    // joined every worker before this line.
    unsafe {
        list.set_len(len);
    }
    Ok(())
}

/// Clips and sets up one assembled primitive in the viewport its leading vertex selects
/// (`Route`), appending what survives to `prims` with its viewport and slice.
#[allow(clippy::too_many_arguments)]
fn setup_primitive(
    route: &Route<'_>,
    link: &Linked,
    vo: &VertexOutputs,
    kind: PrimKind,
    verts: [u32; 3],
    id: u32,
    scratch: &mut SetupScratch,
    prims: &mut Vec<Prim>,
) {
    let (which, slice) = route.of(vo, verts[0]);
    let Some(view) = route.views.get(which) else {
        return;
    };
    let (st, cs, vp) = (&view.setup, &view.clip, &view.viewport);
    let first = prims.len();
    setup_in_viewport(st, cs, vp, link, vo, kind, verts, id, scratch, prims);
    for p in prims.iter_mut().skip(first) {
        p.viewport = which as u32;
        p.slice = slice;
    }
}

/// Clips and sets up one assembled primitive in one viewport. Allocates nothing for a
/// primitive without clip or cull distances that clipping leaves whole (`scratch` holds
/// the screen vertices).
#[allow(clippy::too_many_arguments)]
fn setup_in_viewport(
    st: &SetupState,
    cs: &ClipSetup,
    vp: &Viewport,
    link: &Linked,
    vo: &VertexOutputs,
    kind: PrimKind,
    verts: [u32; 3],
    id: u32,
    scratch: &mut SetupScratch,
    prims: &mut Vec<Prim>,
) {
    let n = kind.vertices().min(3);
    let mut pos = [[0f32; 4]; 3];
    for (p, &v) in pos.iter_mut().zip(&verts[..n]) {
        *p = link.position.map(|w| f32::from_bits(vo.word(v, w)));
    }
    let pos = &pos[..n];
    let dist = |words: &[u32]| -> Vec<Vec<f32>> {
        verts[..n]
            .iter()
            .map(|&v| {
                words
                    .iter()
                    .map(|&w| f32::from_bits(vo.word(v, w)))
                    .collect()
            })
            .collect()
    };
    if !link.cull_distances.is_empty() && clip::culled_by_distance(&dist(&link.cull_distances)) {
        return;
    }
    let clip_d = if link.clip_distances.is_empty() {
        Vec::new()
    } else {
        dist(&link.clip_distances)
    };
    let clipped = clip::clip(pos, cs, &clip_d);
    let inv_w = {
        let mut w = [1.0f64; 3];
        for (i, p) in pos.iter().enumerate() {
            w[i] = 1.0 / f64::from(p[3]);
        }
        if n == 1 {
            w = [w[0]; 3];
        }
        w
    };
    let poly: &[Weights] = match &clipped {
        Clipped::Outside => return,
        Clipped::Inside => &IDENTITY[..n],
        Clipped::Polygon(p) => p,
    };
    // Screen vertices and their screen-space weights over the originals.
    let (sv, mu) = (&mut scratch.sv, &mut scratch.mu);
    sv.clear();
    mu.clear();
    for lam in poly {
        let p = clip::position(pos, lam);
        let Some(v) = setup::to_screen(p, vp) else {
            return;
        };
        sv.push(v);
        let mut m = [0f64; 3];
        let mut sum = 0.0;
        for i in 0..n {
            m[i] = lam[i] * f64::from(pos[i][3]);
            sum += m[i];
        }
        if sum != 0.0 {
            for x in &mut m {
                *x /= sum;
            }
        }
        mu.push(m);
    }
    match kind {
        PrimKind::Point => {
            if let Some(p) = setup::point(st, sv[0], inv_w[0], verts[0], id) {
                prims.push(p);
            }
        }
        PrimKind::Line => {
            if let Some(p) = setup::line(st, [sv[0], sv[1]], [mu[0], mu[1]], inv_w, verts, id) {
                prims.push(p);
            }
        }
        PrimKind::Triangle if st.wireframe => {
            setup::wireframe(st, poly, sv, mu, inv_w, verts, id, prims);
        }
        PrimKind::Triangle => {
            for k in 1..sv.len().saturating_sub(1) {
                if let Some(p) = setup::triangle(
                    st,
                    [sv[0], sv[k], sv[k + 1]],
                    [mu[0], mu[k], mu[k + 1]],
                    inv_w,
                    verts,
                    id,
                ) {
                    prims.push(p);
                }
            }
        }
    }
}

/// The format check a job front end makes before binding a texture as a target.
pub fn is_target_format(f: Format) -> bool {
    om::target_class(f).is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `append_on_workers` appends the parts in order on any number of workers: parts
    /// empty, shorter than a run and longer than several, after what the list holds.
    #[test]
    fn appending_on_workers_keeps_the_order() {
        let sizes = [0, 3, APPEND_CHUNK + 7, 0, 2 * APPEND_CHUNK + 1, 5];
        let mut at = 1000u64;
        let parts: Vec<Vec<u64>> = sizes
            .iter()
            .map(|&n| {
                at += n as u64;
                (at - n as u64..at).collect()
            })
            .collect();
        let want: Vec<u64> = (0..1000).chain(parts.iter().flatten().copied()).collect();
        for threads in [1, 2, 3, 7] {
            let mut list: Vec<u64> = (0..1000).collect();
            append_on_workers(&mut list, &parts, threads).unwrap();
            assert!(list == want, "{threads} workers");
        }
    }
    use crate::pipeline::setup::{Plane, Shape};

    fn prim(slice: u32) -> Prim {
        Prim {
            shape: Shape::Square {
                x0: 0,
                y0: 0,
                x1: 256,
                y1: 256,
            },
            bbox: [0, 0, 1, 1],
            sigma: [Plane::default(); 3],
            inv_w: [1.0; 3],
            z: Plane::default(),
            verts: [0; 3],
            id: 0,
            front: true,
            viewport: 0,
            slice,
        }
    }

    fn passes(slices: &[u32], views: &[(u32, bool)]) -> Vec<SlicePass> {
        let prims: Vec<Prim> = slices.iter().map(|&k| prim(k)).collect();
        let mut memory = DrawMemory {
            used: 0,
            limit: u64::MAX,
        };
        slice_passes(&prims, views, &mut memory).unwrap()
    }

    /// Every slice of every view takes its primitives in draw order (D3D11.3 §4.1.5:
    /// rendering in submission order): a primitive joins the latest pass of its slice
    /// unless a later pass writes a slice it writes too. Views of three slices: slices
    /// are disjoint, one pass each in draw order. With a second view of one slice,
    /// indices 0 and 1 both write that view's slice 0, so the order between them is
    /// kept with a new pass each time the index changes.
    #[test]
    fn slice_passes_keep_draw_order_per_slice() {
        assert_eq!(passes(&[0, 0, 0], &[(3, true)]), vec![(0, None)]);
        assert_eq!(
            passes(&[0, 1, 0, 2, 1], &[(3, true)]),
            vec![
                (0, Some(vec![0, 2])),
                (1, Some(vec![1, 4])),
                (2, Some(vec![3]))
            ]
        );
        assert_eq!(
            passes(&[0, 1, 0, 1], &[(3, true), (1, false)]),
            vec![
                (0, Some(vec![0])),
                (1, Some(vec![1])),
                (0, Some(vec![2])),
                (1, Some(vec![3]))
            ]
        );
        // Slices 1 and 2 of a three-slice view with a two-slice one: index 2 writes the
        // small view's slice 0, as index 0 does, but not index 1's slice 1.
        assert_eq!(
            passes(&[1, 2, 1, 0], &[(3, true), (2, true)]),
            vec![
                (1, Some(vec![0, 2])),
                (2, Some(vec![1])),
                (0, Some(vec![3]))
            ]
        );
    }

    /// The tiles' lists carry each primitive's raster part (`bin::Binned`), in draw
    /// order, and are counted against the draw's memory limit at that size before any is
    /// filled (`Limits::max_memory_bytes`; the lists are the draw's own storage): a limit
    /// one byte short of them refuses the draw with an error naming them.
    #[test]
    fn tile_lists_carry_raster_parts_and_count_against_the_limit() {
        // Three boxes over a 100 × 70 target of 2 × 2 tiles: the whole target, the
        // top-left tile, the bottom-right one; all of them, then the last two only.
        let boxes = [[0, 0, 100, 70], [3, 4, 10, 12], [70, 66, 90, 70]];
        let prims: Vec<Prim> = boxes
            .iter()
            .enumerate()
            .map(|(i, b)| Prim {
                bbox: *b,
                id: 10 + i as u32,
                front: i != 1,
                viewport: i as u32,
                z: Plane {
                    c: 0.25 * i as f64,
                    dx: 0.5,
                    dy: -0.5,
                },
                ..prim(0)
            })
            .collect();
        let targets = Targets {
            width: 100,
            height: 70,
            samples: 1,
            raster_samples: 1,
            classes: Vec::new(),
            slices: 1,
        };
        let entry = |i: u32| Binned::of(i, &prims[i as usize]);
        for (members, lists) in [
            (None, vec![vec![0, 1], vec![0], vec![0], vec![0, 2]]),
            (Some(&[1u32, 2][..]), vec![vec![1], vec![], vec![], vec![2]]),
        ] {
            let listed: u64 = lists.iter().map(|l| l.len() as u64).sum();
            let bytes = listed * std::mem::size_of::<Binned>() as u64;
            // Listed one by one (few primitives) and in the two passes.
            for (threads, few) in [(1, FEW_TO_BIN), (1, 0), (2, 0)] {
                let mut memory = DrawMemory {
                    used: 5,
                    limit: 5 + bytes,
                };
                let new = Bins::new(targets.width, targets.height);
                let (bins, counted) =
                    bin_lists(new, &prims, members, threads, &mut memory, few).unwrap();
                assert_eq!((counted, memory.used), (bytes, 5 + bytes));
                let want: Vec<Vec<Binned>> = lists
                    .iter()
                    .map(|l| l.iter().map(|&i| entry(i)).collect())
                    .collect();
                assert_eq!(bins.bins, want);
                // The one-by-one listing records exactly the tiles that hold entries,
                // which the tile loop then visits alone; the two passes record none.
                let holding: Vec<u32> = (0..want.len() as u32)
                    .filter(|&t| !want[t as usize].is_empty())
                    .collect();
                let recorded = bins.occupied().map(<[u32]>::to_vec);
                assert_eq!(recorded, (few > 0).then_some(holding), "few = {few}");
                let capacity: usize = bins.bins.iter().map(Vec::capacity).sum();
                assert_eq!(bins.held(), capacity);
                let mut short = DrawMemory {
                    used: 5,
                    limit: 4 + bytes,
                };
                let new = Bins::new(targets.width, targets.height);
                let e = bin_lists(new, &prims, members, threads, &mut short, few)
                    .unwrap_err()
                    .to_string();
                assert!(e.contains("the tiles' primitive lists"), "{e}");
            }
        }
        // What the tile loop reads of a primitive is the primitive's own.
        let b = entry(2);
        assert_eq!(
            (b.shape, b.bbox, b.z, b.index, b.id, b.viewport, b.front),
            (prims[2].shape, prims[2].bbox, prims[2].z, 2, 12, 2, true)
        );
    }

    /// D3D12's `D3D12_VIEW_INSTANCE_LOCATION` rule, per view: an index at or past a
    /// view's slice count writes its first slice.
    #[test]
    fn an_index_past_a_view_writes_its_first_slice() {
        assert_eq!(view_slice(2, 3), 2);
        assert_eq!(view_slice(3, 3), 0);
        assert_eq!(view_slice(u32::MAX, 1), 0);
    }
}
