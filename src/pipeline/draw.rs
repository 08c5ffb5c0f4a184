//! A draw: the graphics pipeline from input assembly to the output merger.
//!
//! [`draw`] takes the whole state of one `DrawInstanced` / `DrawIndexedInstanced` call —
//! programs and their bindings, input layout and buffers, rasterizer, blend and
//! depth-stencil state, viewport, scissor, targets — as [`DrawState`], checks it
//! (targets, formats, stage linking) before anything runs, then:
//!
//! 1. per instance: reads the indices, shades each distinct vertex once (`vs`),
//!    assembles primitives (`ia`), clips them (`clip`), sets them up and lists them in
//!    the screen tiles they touch (`setup`);
//! 2. rasterizes the tiles on worker threads (`raster`), each tile on a private copy of
//!    its part of the targets: early depth-stencil when the pixel program allows it, pixel
//!    waves (`ps`), the output merger (`om`), then the tile is stored back. A
//!    one-sample UNORM8 target that the merge only ever overwrites (see
//!    `in_place_targets`) is written in place instead, with no copy to load or store.
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

use std::sync::Mutex;
use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::Instant;

use super::clip::{self, ClipSetup, Clipped, Weights};
use super::dispatch::Bindings;
use super::ia::{self, Element, PrimKind};
use super::interp;
use super::link::{self, LinkError, Linked};
use super::om::{self, TargetClass, TileColor, TileDepth};
use super::ps::{
    self, MergeObserver, MergeTarget, PixelLane, PixelObserver, PixelQuad, PixelStage, PsOutputs,
    WaveContext,
};
use super::raster::{self, Pattern};
use super::setup::{self, Bins, Prim, SetupState, TILE_SIZE};
use super::state::*;
use super::vs::{self, VertexJob, VertexOutputs};
use crate::exec::jit::Engine;
use crate::exec::{
    DescriptorTable, ExecError, Limits, Profile, RunBudget, StageProgram, StageRunner,
    WaveObserver, WriteSink,
};
use crate::ir::{ComponentType, Shader};
use crate::resources::{Descriptor, Format, Memory, Texture};

/// Lanes side by side for programs that never look across lanes (vertex) or across quads
/// (pixel). Wider than `dispatch::MAX_BATCH_LANES`: a draw's batch carries fixed costs a
/// dispatch's does not (the handles and sampler sites made again, the clock reads of the
/// stage profile, the stage inputs' bookkeeping), and the full-screen and triangle
/// benchmarks ran about a fifth faster with 128 lanes than with 32 (64 lay between).
pub const BATCH_LANES: u32 = 128;

/// The state of one draw (see the module doc). Fields are public: start from
/// [`DrawState::new`] (D3D12's default states) and set what differs.
#[derive(Clone)]
pub struct DrawState<'a> {
    /// The vertex program.
    pub vs: &'a Shader,
    /// The pixel program (`None`: depth and stencil only).
    pub ps: Option<&'a Shader>,
    /// The vertex program's resources.
    pub vs_bindings: &'a Bindings,
    /// The pixel program's resources.
    pub ps_bindings: &'a Bindings,
    /// `D3D12_INPUT_LAYOUT_DESC`.
    pub input_layout: InputLayout,
    /// `IASetPrimitiveTopology`.
    pub topology: PrimitiveTopology,
    /// `IASetVertexBuffers`, by slot.
    pub vertex_buffers: Vec<Option<VertexBufferView>>,
    /// `IASetIndexBuffer` (indexed draws).
    pub index_buffer: Option<IndexBufferView>,
    /// `IBStripCutValue`.
    pub strip_cut: StripCutValue,
    /// `D3D12_RASTERIZER_DESC`.
    pub rasterizer: RasterizerDesc,
    /// `D3D12_BLEND_DESC`.
    pub blend: BlendDesc,
    /// `D3D12_DEPTH_STENCIL_DESC`.
    pub depth_stencil: DepthStencilDesc,
    /// `RSSetViewports` (one viewport; `None` = the whole target, depth 0 to 1).
    pub viewport: Option<Viewport>,
    /// `RSSetScissorRects` (one rectangle; `None` = the whole target).
    pub scissor: Option<Rect>,
    /// `SampleMask`.
    pub sample_mask: u32,
    /// `OMSetBlendFactor`.
    pub blend_factor: [f32; 4],
    /// `OMSetStencilRef`.
    pub stencil_ref: u8,
    /// `OMSetRenderTargets`: render targets 0–7.
    pub render_targets: Vec<Option<RenderTargetView>>,
    /// The depth-stencil view.
    pub depth_stencil_view: Option<DepthStencilView>,
}

impl<'a> DrawState<'a> {
    /// A draw of `vs` and `ps` with D3D12's default states, a triangle list, no buffers
    /// and no targets.
    pub fn new(
        vs: &'a Shader,
        ps: Option<&'a Shader>,
        vs_bindings: &'a Bindings,
        ps_bindings: &'a Bindings,
    ) -> DrawState<'a> {
        DrawState {
            vs,
            ps,
            vs_bindings,
            ps_bindings,
            input_layout: InputLayout::default(),
            topology: PrimitiveTopology::TriangleList,
            vertex_buffers: Vec::new(),
            index_buffer: None,
            strip_cut: StripCutValue::Disabled,
            rasterizer: RasterizerDesc::default(),
            blend: BlendDesc::default(),
            depth_stencil: DepthStencilDesc::default(),
            viewport: None,
            scissor: None,
            sample_mask: u32::MAX,
            blend_factor: [1.0; 4],
            stencil_ref: 0,
            render_targets: Vec::new(),
            depth_stencil_view: None,
        }
    }
}

/// The owned part of a [`DrawState`] (everything but the programs and their bindings),
/// for a caller that keeps a draw to run it again (the debugger).
#[derive(Clone)]
pub struct FixedState {
    input_layout: InputLayout,
    topology: PrimitiveTopology,
    vertex_buffers: Vec<Option<VertexBufferView>>,
    index_buffer: Option<IndexBufferView>,
    strip_cut: StripCutValue,
    rasterizer: RasterizerDesc,
    blend: BlendDesc,
    depth_stencil: DepthStencilDesc,
    viewport: Option<Viewport>,
    scissor: Option<Rect>,
    sample_mask: u32,
    blend_factor: [f32; 4],
    stencil_ref: u8,
    render_targets: Vec<Option<RenderTargetView>>,
    depth_stencil_view: Option<DepthStencilView>,
}

impl DrawState<'_> {
    /// Everything but the programs and bindings.
    pub fn fixed(&self) -> FixedState {
        FixedState {
            input_layout: self.input_layout.clone(),
            topology: self.topology,
            vertex_buffers: self.vertex_buffers.clone(),
            index_buffer: self.index_buffer.clone(),
            strip_cut: self.strip_cut,
            rasterizer: self.rasterizer,
            blend: self.blend,
            depth_stencil: self.depth_stencil,
            viewport: self.viewport,
            scissor: self.scissor,
            sample_mask: self.sample_mask,
            blend_factor: self.blend_factor,
            stencil_ref: self.stencil_ref,
            render_targets: self.render_targets.clone(),
            depth_stencil_view: self.depth_stencil_view.clone(),
        }
    }
}

impl FixedState {
    /// The draw state of `f` with these programs and bindings.
    pub fn state<'a>(
        &self,
        vs: &'a Shader,
        ps: Option<&'a Shader>,
        vs_bindings: &'a Bindings,
        ps_bindings: &'a Bindings,
    ) -> DrawState<'a> {
        let f = self.clone();
        DrawState {
            vs,
            ps,
            vs_bindings,
            ps_bindings,
            input_layout: f.input_layout,
            topology: f.topology,
            vertex_buffers: f.vertex_buffers,
            index_buffer: f.index_buffer,
            strip_cut: f.strip_cut,
            rasterizer: f.rasterizer,
            blend: f.blend,
            depth_stencil: f.depth_stencil,
            viewport: f.viewport,
            scissor: f.scissor,
            sample_mask: f.sample_mask,
            blend_factor: f.blend_factor,
            stencil_ref: f.stencil_ref,
            render_targets: f.render_targets,
            depth_stencil_view: f.depth_stencil_view,
        }
    }

    /// The bound render targets.
    pub fn render_targets(&self) -> &[Option<RenderTargetView>] {
        &self.render_targets
    }

    /// The bound depth-stencil view.
    pub fn depth_stencil_view(&self) -> Option<&DepthStencilView> {
        self.depth_stencil_view.as_ref()
    }
}

/// How to run a draw.
#[derive(Clone)]
pub struct DrawOptions<'a> {
    /// Lanes per wave (4 … 128, a power of two); `None` = WARP's 8.
    pub wave_size: Option<u32>,
    /// Worker threads; 0 = all cores.
    pub threads: usize,
    /// WARP version rules.
    pub profile: Profile,
    /// Instruction and memory limits (the instruction budget applies to every vertex and
    /// pixel lane).
    pub limits: Limits,
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
    /// The engine of the vertex and pixel programs (a traced wave always runs in the
    /// interpreter).
    pub engine: Engine,
}

impl Default for DrawOptions<'_> {
    /// WARP's wave size, all cores, the latest profile, default limits, nothing
    /// observed, and the engine `DXLANE_ENGINE` names (the native one when unset).
    fn default() -> Self {
        DrawOptions {
            wave_size: None,
            threads: 0,
            profile: Profile::default(),
            limits: Limits::default(),
            observer: None,
            writes: None,
            trace: None,
            memory: None,
            engine: Engine::from_env(),
        }
    }
}

/// Which wave of a draw [`TraceWave`] traces.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TraceAt {
    /// The pixel wave holding lane `lane` of batch `batch` of tile `tile` (as a
    /// [`PixelObserver`] numbers them: `lane` indexes the batch's lanes).
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
        }
    }

    /// What the traced wave did (`None` when the draw never ran it).
    pub fn take(&self) -> Option<Traced> {
        self.result.lock().unwrap_or_else(|p| p.into_inner()).take()
    }
}

/// What the stages need of a [`TraceWave`], as a trait object (whose lifetime, unlike
/// the hook's, may shorten to the draw's).
pub(crate) trait Hook: Sync {
    fn observe(&self, f: &mut dyn FnMut(&mut dyn WaveObserver));
    fn set(&self, t: Traced);
}

impl Hook for TraceWave<'_> {
    fn observe(&self, f: &mut dyn FnMut(&mut dyn WaveObserver)) {
        let mut obs = self.observer.lock().unwrap_or_else(|p| p.into_inner());
        f(&mut **obs);
    }
    fn set(&self, t: Traced) {
        *self.result.lock().unwrap_or_else(|p| p.into_inner()) = Some(t);
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
        pixel: Option<&dyn crate::exec::PixelContext>,
        traced: bool,
        writes: Option<&dyn WriteSink>,
    ) -> Result<crate::exec::WaveRun, ExecError> {
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
}

/// Seconds spent in each part of a draw (summed over worker threads). `shading` and the
/// merge's part of `output_merger` are estimates: one pixel wave in eight is timed
/// (`TIMED_WAVES`) and stands for the others; `raster` is the tiles' time less those.
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
    /// Pixel waves run.
    pub pixel_waves: u64,
    /// Lane-instructions of the vertex stage.
    pub vs_lane_instructions: u64,
    /// Lane-instructions of the pixel stage.
    pub ps_lane_instructions: u64,
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
    samples: u32,
    /// Per target: its class, and whether every channel is 32 bits wide.
    classes: Vec<Option<(TargetClass, bool)>>,
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
    let mut check = |d: &crate::resources::TextureDesc,
                     field: DrawField|
     -> Result<(), DrawError> {
        use crate::resources::TextureDim;
        if !matches!(d.dim, TextureDim::Tex2D | TextureDim::Tex2DMS) {
            return Err(state_err(
                field,
                format!("a {} cannot be a target; give a 2D texture", d.dim.name()),
            ));
        }
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
    let Some((width, height, samples, _)) = size else {
        return Err(state_err(
            DrawField::RenderTarget(0),
            "a draw needs a render target or a depth-stencil view",
        ));
    };
    Ok(Targets {
        width,
        height,
        samples,
        classes,
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
    }
}

/// Refuses pixel outputs a target cannot take: float outputs need a float, UNORM, SNORM
/// or sRGB target; `uint` and `sint` outputs a target of the same integer kind (D3D11.3
/// §17.? leaves mismatches undefined; we refuse them).
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

/// Whether an instruction of `s` reads lanes outside its quad, or the wave's shape (the
/// instruction table's `lanes` column says `wave`): only then must a pixel wave hold
/// just the lanes of one wave, instead of a batch of whole quads.
pub(crate) fn crosses_quads(s: &Shader) -> bool {
    s.insts.iter().any(|i| i.lanes() == crate::ir::Lanes::Wave)
}

fn choose_wave(
    opt: Option<u32>,
    shader: &Shader,
    independent: bool,
) -> Result<(u32, u32), DrawError> {
    let wave = super::dispatch::choose_wave_size(shader, opt)?;
    let batch = if independent {
        BATCH_LANES.max(wave)
    } else {
        wave
    };
    Ok((wave, batch))
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
/// `opts.limits` (see [`draw_charged`]).
pub fn draw(
    s: &DrawState<'_>,
    args: &DrawArgs,
    opts: &DrawOptions<'_>,
) -> Result<DrawReport, DrawError> {
    draw_charged(s, args, opts, &RunBudget::new(&opts.limits))
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
pub fn draw_charged(
    s: &DrawState<'_>,
    args: &DrawArgs,
    opts: &DrawOptions<'_>,
    budget: &RunBudget,
) -> Result<DrawReport, DrawError> {
    let t0 = Instant::now();
    let targets = check_targets(s)?;
    if let Some(ps) = s.ps {
        check_outputs(ps, &targets)?;
    }
    if s.rasterizer.fill_mode == FillMode::Wireframe {
        return Err(state_err(
            DrawField::Rasterizer,
            "wireframe fill is not supported yet",
        ));
    }
    if s.rasterizer.forced_sample_count != 0 {
        return Err(state_err(
            DrawField::Rasterizer,
            "ForcedSampleCount (UAV-only rendering) is not supported",
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
    let pattern = Pattern::standard(targets.samples).ok_or_else(|| {
        state_err(
            DrawField::RenderTarget(0),
            format!(
                "{} samples: the standard patterns have 1, 2, 4, 8 or 16",
                targets.samples
            ),
        )
    })?;
    let layout: Vec<Element> =
        ia::resolve_layout(&s.input_layout).map_err(|e| DrawError::State {
            field: DrawField::InputElement(e.element),
            message: e.message,
        })?;
    let linked = link::link(&layout, s.vs, s.ps)?;
    let viewport = s
        .viewport
        .unwrap_or(Viewport::full(targets.width, targets.height));
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
            "every viewport value must be finite, and width and height ≥ 0",
        ));
    }
    if !(0.0..=1.0).contains(&viewport.min_depth) || !(0.0..=1.0).contains(&viewport.max_depth) {
        return Err(state_err(
            DrawField::Viewport,
            "min and max depth must lie in [0, 1]",
        ));
    }
    let scissor = effective_scissor(&targets, &viewport, s.scissor);

    // Programs.
    let (vs_wave, vs_batch) = choose_wave(
        opts.wave_size,
        s.vs,
        !crate::exec::shader_crosses_lanes(s.vs),
    )?;
    let vs_table = DescriptorTable::new(
        s.vs,
        &s.vs_bindings.ranges,
        &s.vs_bindings.resource_heap,
        &s.vs_bindings.sampler_heap,
    )?;
    let vs_program =
        StageProgram::new(s.vs, vs_table, opts.profile.clone(), opts.limits, vs_batch)?
            .with_engine(opts.engine);
    let mut ps_wave = vs_wave;
    let ps_program = match s.ps {
        Some(ps) => {
            let (wave, batch) = choose_wave(opts.wave_size, ps, !crosses_quads(ps))?;
            ps_wave = wave;
            let table = DescriptorTable::new(
                ps,
                &s.ps_bindings.ranges,
                &s.ps_bindings.resource_heap,
                &s.ps_bindings.sampler_heap,
            )?;
            Some(
                StageProgram::new(ps, table, opts.profile.clone(), opts.limits, batch)?
                    .with_engine(opts.engine),
            )
        }
        None => None,
    };
    let trace = match opts.trace {
        Some(h) => Some(trace_program(s, h, h.at, h.shader, opts, vs_wave, ps_wave)?),
        None => None,
    };
    let early =
        s.ps.is_none_or(|ps| ps::early_depth_allowed(ps, s.blend.alpha_to_coverage_enable));
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    // A write sink hears the writes in one order only on one worker (see `memory`).
    let threads = if opts.memory.is_some() {
        1
    } else if opts.threads == 0 {
        cores
    } else {
        opts.threads
    }
    .clamp(1, 1 << 10);

    let mut report = DrawReport {
        wave_size: vs_wave,
        threads,
        samples: targets.samples,
        per_sample: linked.per_sample,
        early_depth_stencil: early,
        profile: opts.profile.name().to_string(),
        engine: opts.engine.to_string(),
        ..DrawReport::default()
    };

    // Memory: every (instance, vertex) keeps its outputs until the tiles are done, and
    // every primitive its setup. All of it is counted before it is allocated.
    let limit = opts.limits.max_memory_bytes;
    let mut memory = DrawMemory { used: 0, limit };
    let count = u64::from(args.vertex_count);
    let instances = u64::from(args.instance_count);
    // The primitives first: their count follows from the arguments alone, so a draw
    // too large for the limit is refused before anything is allocated or read.
    let most_prims = most_primitives(s.topology, count).saturating_mul(instances);
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
    match &s.index_buffer {
        Some(ib) => {
            ids.extend((0..count).map(|p| ia::read_index(ib, u64::from(args.start_vertex) + p)))
        }
        None => ids.extend(0..args.vertex_count),
    }
    let is_cut = |p: u32| cut.is_some_and(|c| ids.get(p as usize) == Some(&c));
    // Distinct ids, in increasing order (cut values are not vertices).
    let mut unique: Vec<u32> = Vec::new();
    DrawMemory::reserve("the draw's distinct vertices", &mut unique, ids.len())?;
    unique.extend(ids.iter().copied().filter(|&i| Some(i) != cut));
    unique.sort_unstable();
    unique.dedup();
    let slot_of = |id: u32| -> u32 { unique.binary_search(&id).map_or(0, |k| k as u32) };
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
    let kind = ia::prim_kind(s.topology);
    let clip_setup = ClipSetup::new(
        viewport.top_left_x,
        viewport.top_left_y,
        viewport.width,
        viewport.height,
        s.rasterizer.depth_clip_enable,
    );
    let ds_format = s
        .depth_stencil_view
        .as_ref()
        .map(|d| d.texture.desc().format);
    let setup_state = SetupState {
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
    };
    // Clipping may split a primitive: those past the count above are counted as they
    // come.
    let max_prims =
        most_prims.saturating_add((limit - memory.used) / std::mem::size_of::<Prim>() as u64);
    let mut prim_overflow = false;
    let mut refused = false;
    for instance in 0..shaded_instances {
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
            layout: &layout,
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
            &vs_program,
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
        ia::assemble(s.topology, args.vertex_count, &is_cut, &mut |p| {
            report.primitives += 1;
            let verts = p.v.map(vertex);
            // A clipped triangle sets up at most 7 (a 9-sided polygon).
            if prims.try_reserve(8).is_err() {
                refused = true;
                return false;
            }
            let before = prims.len();
            setup_primitive(
                &setup_state,
                &clip_setup,
                &viewport,
                &linked,
                &outputs,
                kind,
                verts,
                p.id,
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
    let t1 = Instant::now();
    let bins = bin_primitives(&prims, &targets, &mut memory)?;
    let t2 = Instant::now();
    report.times.setup = (t1 - t0).as_secs_f64();
    report.times.binning = (t2 - t1).as_secs_f64();

    let ps_out = s.ps.map(PsOutputs::of).unwrap_or_default();
    let stage = PixelStage {
        link: &linked,
        prims: &prims,
        vertices: &outputs,
        pattern: &pattern,
        depth_range: (viewport.min_depth, viewport.max_depth),
    };
    let ctx = TileCtx {
        s,
        stage: &stage,
        bins: &bins,
        targets: &targets,
        early,
        ps: ps_program.as_ref(),
        ps_out,
        scissor,
        observer: opts.observer,
        writes: opts.writes,
        memory: opts.memory,
        trace: trace
            .as_ref()
            .filter(|t| matches!(t.at, TraceAt::Pixel { .. })),
        dual: dual_source(&s.blend),
        direct: direct_writes(s, &ps_out),
        in_place: [false; 8],
        budget,
        tiles: bins.bins.len() as u64,
    };
    let ctx = TileCtx {
        in_place: in_place_targets(&ctx),
        ..ctx
    };
    let ntiles = bins.bins.len() as u64;
    let next = AtomicU64::new(0);
    let stop = AtomicU64::new(u64::MAX);
    let errors: Mutex<Vec<(u64, ExecError)>> = Mutex::new(Vec::new());
    let totals: Mutex<TileStats> = Mutex::new(TileStats::default());
    let worker = || {
        let mut runner = ctx.ps.map(StageRunner::new);
        let mut stats = TileStats::default();
        loop {
            let i = next.fetch_add(1, Ordering::Relaxed);
            if i >= ntiles || i > stop.load(Ordering::Relaxed) {
                break;
            }
            if let Err(e) = ctx.tile(i as u32, runner.as_mut(), &mut stats) {
                stop.fetch_min(i, Ordering::Relaxed);
                errors
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push((i, e));
            }
        }
        totals.lock().unwrap_or_else(|p| p.into_inner()).add(&stats);
    };
    let tile_threads = threads.clamp(1, ntiles.clamp(1, 1 << 10) as usize);
    if tile_threads == 1 {
        worker();
    } else {
        let _ = crossbeam::thread::scope(|sc| {
            for _ in 0..tile_threads {
                sc.spawn(|_| worker());
            }
        });
    }
    let mut errors = errors.into_inner().unwrap_or_else(|p| p.into_inner());
    if let Some(pos) = (0..errors.len()).min_by_key(|&k| errors[k].0) {
        return Err(DrawError::Exec(errors.swap_remove(pos).1));
    }
    let st = totals.into_inner().unwrap_or_else(|p| p.into_inner());
    report.pixels_shaded = st.pixels;
    report.helper_lanes = st.helpers;
    report.pixel_waves = st.waves;
    report.ps_lane_instructions = st.lane_instructions;
    // The timed waves stand for all of them (`TIMED_WAVES`).
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
    for (stage, r) in [
        ("vs", vs_program.jit_report()),
        ("ps", ps_program.as_ref().and_then(|p| p.jit_report())),
    ] {
        if let Some(r) = r {
            report.compile_seconds += r.compile_time.as_secs_f64();
            report.jit.push(format!("{stage}: {r}"));
        }
    }
    Ok(report)
}

/// Lists every primitive in the tiles it touches, counting the lists against `memory`
/// and reserving each exactly (fallibly) before any is filled.
fn bin_primitives(
    prims: &[Prim],
    targets: &Targets,
    memory: &mut DrawMemory,
) -> Result<Bins, DrawError> {
    let mut bins = Bins::new(targets.width, targets.height);
    let t = TILE_SIZE as i32;
    let tiles = |b: [i32; 4]| {
        let tx0 = (b[0].max(0) / t) as u32;
        let ty0 = (b[1].max(0) / t) as u32;
        let tx1 = (((b[2] - 1).max(0) / t) as u32).min(bins.tiles_x.saturating_sub(1));
        let ty1 = (((b[3] - 1).max(0) / t) as u32).min(bins.tiles_y.saturating_sub(1));
        (tx0, ty0, tx1, ty1)
    };
    let mut counts = vec![0u64; bins.bins.len()];
    for p in prims {
        let (tx0, ty0, tx1, ty1) = tiles(p.bbox);
        for ty in ty0..=ty1 {
            for tx in tx0..=tx1 {
                if let Some(c) = counts.get_mut((ty * bins.tiles_x + tx) as usize) {
                    *c += 1;
                }
            }
        }
    }
    let entries: u64 = counts.iter().sum();
    memory.take("the tiles' primitive lists", bytes_of::<u32>(entries))?;
    for (b, &n) in bins.bins.iter_mut().zip(&counts) {
        DrawMemory::reserve("the tiles' primitive lists", b, n as usize)?;
    }
    for (i, p) in prims.iter().enumerate() {
        bins.add(i as u32, p.bbox);
    }
    Ok(bins)
}

/// Prepares the hook's program: the traced stage's bindings, wave size, profile and limits.
fn trace_program<'a>(
    s: &DrawState<'a>,
    h: &'a (dyn Hook + 'a),
    at: TraceAt,
    shader: &'a Shader,
    opts: &DrawOptions<'_>,
    vs_wave: u32,
    ps_wave: u32,
) -> Result<TraceProgram<'a>, DrawError> {
    let (drawn, bindings, wave) = match at {
        TraceAt::Pixel { .. } => (s.ps, s.ps_bindings, ps_wave),
        TraceAt::Vertex { .. } => (Some(s.vs), s.vs_bindings, vs_wave),
    };
    let Some(drawn) = drawn else {
        return Err(state_err(
            DrawField::Programs,
            "a pixel wave to trace, but the draw has no pixel program",
        ));
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
        program: StageProgram::new(t, table, opts.profile.clone(), opts.limits, wave)?
            .with_engine(Engine::Interp),
    })
}

/// Clips and sets up one assembled primitive, appending what survives to `prims`.
#[allow(clippy::too_many_arguments)]
fn setup_primitive(
    st: &SetupState,
    cs: &ClipSetup,
    vp: &Viewport,
    link: &Linked,
    vo: &VertexOutputs,
    kind: PrimKind,
    verts: [u32; 3],
    id: u32,
    prims: &mut Vec<Prim>,
) {
    let n = kind.vertices();
    let pos: Vec<[f32; 4]> = verts[..n]
        .iter()
        .map(|&v| link.position.map(|w| f32::from_bits(vo.word(v, w))))
        .collect();
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
    let clipped = clip::clip(&pos, cs, &clip_d);
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
    let ident: Vec<Weights> = (0..n)
        .map(|i| {
            let mut w = [0.0; 3];
            w[i] = 1.0;
            w
        })
        .collect();
    let poly = match clipped {
        Clipped::Outside => return,
        Clipped::Inside => ident,
        Clipped::Polygon(p) => p,
    };
    // Screen vertices and their screen-space weights over the originals.
    let mut sv = Vec::with_capacity(poly.len());
    let mut mu = Vec::with_capacity(poly.len());
    for lam in &poly {
        let p = clip::position(&pos, lam);
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

/// One in this many pixel waves is timed (the first of each run of them on a worker),
/// and the timed waves' shading and merge times, scaled by waves over timed waves, stand
/// for all: the stage profile is then an estimate, but the two to three clock reads a
/// wave would take cost about 3 % of a full-screen draw where each read takes tens of
/// nanoseconds (a virtual machine's clock).
const TIMED_WAVES: u64 = 8;

#[derive(Default)]
struct TileStats {
    pixels: u64,
    helpers: u64,
    waves: u64,
    /// Waves timed (one in [`TIMED_WAVES`]).
    timed_waves: u64,
    lane_instructions: u64,
    /// Lane-instructions not yet charged to the run's budget.
    uncharged: u64,
    total: f64,
    /// Shading of the timed waves.
    shading: f64,
    /// Loading and storing tiles (every tile timed).
    om: f64,
    /// The merge of the timed waves.
    wave_om: f64,
}

impl TileStats {
    fn add(&mut self, o: &TileStats) {
        self.pixels += o.pixels;
        self.helpers += o.helpers;
        self.waves += o.waves;
        self.timed_waves += o.timed_waves;
        self.lane_instructions += o.lane_instructions;
        self.total += o.total;
        self.shading += o.shading;
        self.om += o.om;
        self.wave_om += o.wave_om;
    }
}

struct TileCtx<'a> {
    s: &'a DrawState<'a>,
    stage: &'a PixelStage<'a>,
    bins: &'a Bins,
    targets: &'a Targets,
    early: bool,
    ps: Option<&'a StageProgram<'a>>,
    ps_out: PsOutputs,
    scissor: Rect,
    observer: Option<&'a dyn PixelObserver>,
    writes: Option<&'a dyn MergeObserver>,
    memory: Option<&'a dyn WriteSink>,
    trace: Option<&'a TraceProgram<'a>>,
    /// Target 0 blends with a second source colour (then only target 0 is written).
    dual: bool,
    /// Per target, the write that needs no blending, logic operation or mask.
    direct: [Option<om::DirectWrite>; 8],
    /// Per target, whether tiles write it in place ([`in_place_targets`]).
    in_place: [bool; 8],
    /// The run's budget, charged every [`TIMED_WAVES`] waves and after each tile.
    budget: &'a RunBudget,
    /// Tiles in the draw (for the budget's message).
    tiles: u64,
}

/// One tile's copy of the targets.
struct TileBuf<'m> {
    rect: [i32; 4],
    /// Per target, the tile's copy; `None` for a target unbound or written in place.
    colors: Vec<Option<TileColor>>,
    /// Per target, the target's own words when the tile writes it in place.
    in_place: Vec<Option<InPlace<'m>>>,
    depth: Option<TileDepth>,
}

/// A render target a tile writes in place: the target's words from the tile's top-left
/// texel to its bottom-right one, a texel per word, rows `pitch` words apart.
struct InPlace<'m> {
    words: &'m [AtomicU32],
    pitch: usize,
}

impl InPlace<'_> {
    /// Stores texel word `texel` at `i` (row-major from the tile's corner, rows `pitch`
    /// apart); nothing past the span.
    #[inline(always)]
    fn put(&self, i: usize, texel: u32) {
        if let Some(w) = self.words.get(i) {
            w.store(texel, Ordering::Relaxed);
        }
    }
}

/// The targets of a draw whose tiles write them in place, with no tile copy loaded
/// before and stored after: a copy pays for itself only when the merge reads the
/// target (blending, a mask, a depth test after the program, several samples). A target
/// is written in place when
///
/// - it has one sample, and its write is the direct UNORM8 one (`om::DirectWrite`:
///   no blending, logic operation or partial mask; a texel per word);
/// - the whole-wave direct merge applies to the draw (no merge observer, no late
///   depth-stencil, no `SV_Coverage` output, no alpha-to-coverage, no dual source);
/// - its memory is no other target's, not the depth-stencil buffer's and bound to no
///   register of the pixel program (which would then see the tile's writes as they
///   happen instead of the target as it was before the tile).
///
/// A wave the direct merge declines all the same (`merge_direct`) first makes the tile's
/// copy from the target, which holds every earlier write, so no write is lost.
fn in_place_targets(ctx: &TileCtx<'_>) -> [bool; 8] {
    let mut out = [false; 8];
    let s = ctx.s;
    if ctx.writes.is_some()
        || !(ctx.early || s.depth_stencil_view.is_none())
        || ctx.ps_out.coverage.is_some()
        || s.blend.alpha_to_coverage_enable
        || ctx.dual
        || ctx.targets.samples != 1
    {
        return out;
    }
    let rts: Vec<Option<&Memory>> = s
        .render_targets
        .iter()
        .map(|rt| rt.as_ref().map(|rt| rt.texture.memory()))
        .collect();
    let bound = |m: &Memory| {
        let b = s.ps_bindings;
        b.ranges
            .iter()
            .flatten()
            .chain(&b.resource_heap)
            .any(|d| descriptor_memory(d) == Some(m))
            || s.depth_stencil_view
                .as_ref()
                .is_some_and(|d| d.texture.memory() == m)
    };
    for (i, m) in rts.iter().enumerate().take(8) {
        let Some(m) = m else { continue };
        let shared = rts
            .iter()
            .enumerate()
            .any(|(j, o)| j != i && o.is_some_and(|o| o == *m));
        out[i] = matches!(ctx.direct[i], Some(om::DirectWrite::Unorm8(_))) && !shared && !bound(m);
    }
    out
}

/// The memory a descriptor's view reads or writes.
fn descriptor_memory(d: &Descriptor) -> Option<&Memory> {
    match d {
        Descriptor::Buffer { view, .. } => Some(&view.memory),
        Descriptor::Texture(v) => Some(v.texture.memory()),
        Descriptor::ConstantBuffer { memory, .. } => Some(memory),
        _ => None,
    }
}

impl TileCtx<'_> {
    /// The tile `rect` of target `t` (`texel` bytes per texel, every sample plane), as
    /// `TileColor::bytes` lays it out.
    fn read_tile(&self, t: &Texture, texel: usize, rect: [i32; 4]) -> Vec<u8> {
        let w = (rect[2] - rect[0]) as usize;
        let h = (rect[3] - rect[1]) as usize;
        let n = self.targets.samples;
        let mut bytes = vec![0u8; w * h * n as usize * texel];
        for s in 0..n {
            for y in 0..h {
                let Some(a) = t.texel_addr(0, 0, [rect[0] as u32, rect[1] as u32 + y as u32, 0], s)
                else {
                    continue;
                };
                let row = (s as usize * h + y) * w * texel;
                t.memory().read_bytes(a, &mut bytes[row..row + w * texel]);
            }
        }
        bytes
    }

    /// The words of target `t` that tile `rect` covers, for writing in place; `None`
    /// when they are not whole words of the memory (then the tile takes a copy).
    fn in_place<'m>(&self, t: &'m Texture, rect: [i32; 4]) -> Option<InPlace<'m>> {
        let (x0, y0) = (rect[0] as u32, rect[1] as u32);
        let (w, h) = ((rect[2] - rect[0]) as u64, (rect[3] - rect[1]) as u64);
        if t.desc().format.bytes_per_texel() != 4 || w == 0 || h == 0 {
            return None;
        }
        let first = t.texel_addr(0, 0, [x0, y0, 0], 0)?;
        let pitch = match t.texel_addr(0, 0, [x0, y0 + 1, 0], 0) {
            Some(next) => next.checked_sub(first)? / 4,
            None => w,
        };
        if first % 4 != 0 || pitch < w {
            return None;
        }
        let count = (h - 1).checked_mul(pitch)?.checked_add(w)?;
        let words = t.memory().words(first / 4, count)?;
        Some(InPlace {
            words,
            pitch: pitch as usize,
        })
    }

    /// Turns every target the tile writes in place into a tile copy (read from the
    /// target, which holds every write so far), for a merge that reads the copy.
    fn take_copies(&self, tb: &mut TileBuf<'_>) {
        for (i, ip) in tb.in_place.iter_mut().enumerate() {
            if ip.take().is_none() {
                continue;
            }
            if let (Some(Some(rt)), Some(c)) = (self.s.render_targets.get(i), tb.colors.get_mut(i))
            {
                let format = rt.texture.desc().format;
                let texel = format.bytes_per_texel() as usize;
                *c = Some(TileColor {
                    format,
                    texel,
                    bytes: self.read_tile(&rt.texture, texel, tb.rect),
                });
            }
        }
    }

    fn load(&self, rect: [i32; 4]) -> TileBuf<'_> {
        let mut in_place = Vec::with_capacity(self.s.render_targets.len());
        let colors = self
            .s
            .render_targets
            .iter()
            .enumerate()
            .map(|(i, rt)| {
                let Some(rt) = rt.as_ref() else {
                    in_place.push(None);
                    return None;
                };
                let ip = if self.in_place.get(i).copied().unwrap_or(false) {
                    self.in_place(&rt.texture, rect)
                } else {
                    None
                };
                let copy = ip.is_none();
                in_place.push(ip);
                copy.then(|| {
                    let format = rt.texture.desc().format;
                    let texel = format.bytes_per_texel() as usize;
                    TileColor {
                        format,
                        texel,
                        bytes: self.read_tile(&rt.texture, texel, rect),
                    }
                })
            })
            .collect();
        let depth = self.s.depth_stencil_view.as_ref().map(|d| {
            let format = d.texture.desc().format;
            let texel = format.bytes_per_texel() as usize;
            let raw = self.read_tile(&d.texture, texel, rect);
            let (depth, stencil) = raw
                .chunks_exact(texel)
                .map(|b| TileDepth::decode(format, b))
                .unzip();
            TileDepth {
                format,
                depth,
                stencil,
            }
        });
        TileBuf {
            rect,
            colors,
            in_place,
            depth,
        }
    }

    fn store(&self, tb: &TileBuf<'_>) {
        let w = (tb.rect[2] - tb.rect[0]) as usize;
        let h = (tb.rect[3] - tb.rect[1]) as usize;
        let n = self.targets.samples;
        let write = |t: &crate::resources::Texture, texel: usize, bytes: &[u8]| {
            for s in 0..n {
                for y in 0..h {
                    let Some(a) = t.texel_addr(
                        0,
                        0,
                        [tb.rect[0] as u32, tb.rect[1] as u32 + y as u32, 0],
                        s,
                    ) else {
                        continue;
                    };
                    let row = (s as usize * h + y) * w * texel;
                    t.memory().write_bytes(a, &bytes[row..row + w * texel]);
                }
            }
        };
        for (rt, c) in self.s.render_targets.iter().zip(&tb.colors) {
            if let (Some(rt), Some(c)) = (rt, c) {
                write(&rt.texture, c.texel, &c.bytes);
            }
        }
        if let (Some(d), Some(td)) = (&self.s.depth_stencil_view, &tb.depth) {
            let texel = td.format.bytes_per_texel() as usize;
            let mut bytes = vec![0u8; td.depth.len() * texel];
            for (i, b) in bytes.chunks_exact_mut(texel).enumerate() {
                TileDepth::encode(td.format, td.depth[i], td.stencil[i], b);
            }
            write(&d.texture, texel, &bytes);
        }
    }

    fn tile(
        &self,
        index: u32,
        mut runner: Option<&mut StageRunner<'_>>,
        stats: &mut TileStats,
    ) -> Result<(), ExecError> {
        let Some(bin) = self.bins.bins.get(index as usize) else {
            return Ok(());
        };
        if bin.is_empty() {
            return Ok(());
        }
        let start = Instant::now();
        let t = TILE_SIZE as i32;
        let tx = (index % self.bins.tiles_x) as i32;
        let ty = (index / self.bins.tiles_x) as i32;
        let rect = [
            tx * t,
            ty * t,
            ((tx + 1) * t).min(self.targets.width as i32),
            ((ty + 1) * t).min(self.targets.height as i32),
        ];
        let om_start = Instant::now();
        let mut tb = self.load(rect);
        stats.om += om_start.elapsed().as_secs_f64();
        let clip_rect = [
            rect[0].max(self.scissor.left),
            rect[1].max(self.scissor.top),
            rect[2].min(self.scissor.right),
            rect[3].min(self.scissor.bottom),
        ];
        let wave = runner.as_ref().map_or(4, |r| r.wave_size());
        // The quads waiting for a wave: `wave / 4` of them make one.
        let wave_quads = (wave / 4).max(1);
        let mut queue: Vec<PixelQuad> = Vec::with_capacity(wave_quads * 2);
        let mut seq = 0u32;
        let ds = &self.s.depth_stencil;
        let stencil_ref = self.s.stencil_ref;
        let pattern = self.stage.pattern;
        let mut result = Ok(());
        // Read once, not through the chain of references for every quad.
        let (early, per_sample, shading) =
            (self.early, self.stage.link.per_sample, self.ps.is_some());
        // D3D11.3 §16.9.4 (§3.5.4): the samples the output merger may write are the
        // coverage ANDed with the sample mask; the early test and per-sample shading
        // look at those only.
        let sample_mask = self.s.sample_mask;
        for &pi in bin {
            let Some(prim) = self.stage.prims.get(pi as usize) else {
                continue;
            };
            raster::for_each_quad(prim, pattern, clip_rect, &mut |q| {
                if result.is_err() {
                    return;
                }
                let mut mask = q.mask;
                if early {
                    if let Some(td) = tb.depth.as_mut() {
                        for (k, m) in mask.iter_mut().enumerate() {
                            let (px, py) = (q.x + (k as u32 & 1), q.y + (k as u32 >> 1));
                            let mut bits = *m & sample_mask;
                            while bits != 0 {
                                let smp = bits.trailing_zeros();
                                bits &= bits - 1;
                                let z = self
                                    .stage
                                    .depth_at(prim, interp::sample(pattern, px, py, smp));
                                let i = tb_index(rect, self.targets.samples, px, py, smp);
                                let before = self.writes.map(|_| depth_word(td, i));
                                let pass =
                                    om::depth_stencil_test(ds, td, i, z, prim.front, stencil_ref);
                                if let (Some(w), Some(before)) = (self.writes, before)
                                    && depth_written(ds, pass, before, depth_word(td, i))
                                {
                                    let sample = if per_sample { smp } else { 0 };
                                    let lane = PixelLane {
                                        prim: prim.id,
                                        x: px,
                                        y: py,
                                        sample,
                                        coverage: *m,
                                    };
                                    w.write(MergeTarget::DepthStencil, px, py, smp, &lane);
                                }
                                if !pass {
                                    *m &= !(1 << smp);
                                }
                            }
                            // No sample the merger may write passed: nothing to shade.
                            if *m & sample_mask == 0 {
                                *m = 0;
                            }
                        }
                    }
                    // The rasterizer gives quads with a covered sample: only the test can
                    // leave none. (Testing the four words for every quad reads back the
                    // rasterizer's one store of the mask in pieces, which stalls.)
                    if mask.iter().all(|&m| m == 0) {
                        return;
                    }
                }
                if !shading {
                    return;
                }
                let quad = |sample: u32, coverage: [u32; 4]| PixelQuad {
                    prim: pi,
                    x: q.x,
                    y: q.y,
                    sample,
                    coverage,
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
                        self.run_queued(r, &mut queue, wave_quads, &mut tb, index, &mut seq, stats)
                {
                    result = Err(e);
                }
            });
            result.clone()?;
        }
        if !queue.is_empty()
            && let Some(r) = runner
        {
            self.run_wave(r, &queue, &mut tb, index, seq, stats)?;
        }
        let om_start = Instant::now();
        self.store(&tb);
        let end = Instant::now();
        stats.om += (end - om_start).as_secs_f64();
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
                .error(spent, u64::from(done), self.tiles, "tiles")
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
                let (run, out) = self.run_traced(tp, quads, lane as usize, runner.wave_size())?;
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
        if self.merge_direct(quads, all & !helper & !run.killed, cover0, out, w, tb) {
            if let Some(t) = t_merge {
                stats.wave_om += t.elapsed().as_secs_f64();
            }
            return Ok(());
        }
        // The lane-by-lane merge reads and writes the tile's copies.
        self.take_copies(tb);
        for (qi, q) in quads.iter().enumerate() {
            for k in 0..4 {
                let l = qi * 4 + k;
                let lane = q.lane(k);
                if lane.coverage == 0 || (run.killed >> l) & 1 == 1 {
                    continue;
                }
                self.merge(
                    &lane,
                    |word| out.get(word as usize * w + l).copied().unwrap_or(0),
                    tb,
                );
            }
        }
        if let Some(t) = t_merge {
            stats.wave_om += t.elapsed().as_secs_f64();
        }
        Ok(())
    }

    /// Runs the batch `quads` (of a runner `batch` lanes wide) with the debug program in
    /// waves of the program's wave size, the one holding `lane` traced; returns what the
    /// batch did and its output words laid out as the batch's runner lays them out.
    fn run_traced(
        &self,
        tp: &TraceProgram<'_>,
        quads: &[PixelQuad],
        lane: usize,
        batch: usize,
    ) -> Result<(crate::exec::WaveRun, Vec<u32>), ExecError> {
        let mut runner = StageRunner::new(&tp.program);
        let w = runner.wave_size();
        let words = tp.program.shader().output_words as usize;
        let mut out = vec![0u32; words * batch];
        let mut total = crate::exec::WaveRun::default();
        for (k, sub) in quads.chunks((w / 4).max(1)).enumerate() {
            self.stage.fill(&mut runner, sub);
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
            let ctx = WaveContext {
                stage: self.stage,
                quads: sub,
            };
            let traced = lane / w == k;
            let run = tp.run(&mut runner, all, helper, Some(&ctx), traced, self.memory)?;
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
                tp.hook.set(Traced {
                    wave_size: w as u32,
                    pixels: lanes,
                    vertices: Vec::new(),
                    outputs: o.to_vec(),
                    killed: run.killed,
                });
            }
        }
        Ok((total, out))
    }

    /// The output merger for the lanes `live` of a wave at once when it only writes
    /// colours through direct writes (no merge observer, no late depth-stencil, no
    /// coverage from the program, no dual source); `false`, having written nothing,
    /// when [`TileCtx::merge`] must do the work lane by lane. Each target's UNORM8
    /// channels are converted for the whole wave first (word `k` of lane `l` lies at
    /// `k × w + l`), then scattered: the bytes and their order per target are those of
    /// the lane-by-lane merge, and targets are separate buffers.
    fn merge_direct(
        &self,
        quads: &[PixelQuad],
        live: u128,
        cover0: u128,
        out: &[u32],
        w: usize,
        tb: &mut TileBuf,
    ) -> bool {
        /// The widest wave the conversion buffer holds.
        const MAX_W: usize = 128;
        if self.writes.is_some()
            || !(self.early || tb.depth.is_none())
            || self.ps_out.coverage.is_some()
            || self.s.blend.alpha_to_coverage_enable
            || self.dual
            || w > MAX_W
            || quads.len() * 4 > w
        {
            return false;
        }
        for i in 0..tb.colors.len().max(tb.in_place.len()) {
            let copy = matches!(tb.colors.get(i), Some(Some(_)));
            let in_place = matches!(tb.in_place.get(i), Some(Some(_)));
            if !copy && !in_place {
                continue;
            }
            let direct = self.direct.get(i).copied().flatten();
            if let Some((word, _)) = self.ps_out.targets.get(i).copied().flatten()
                && (direct.is_none() || out.len() < (word as usize + 4) * w)
            {
                return false;
            }
            if in_place && !matches!(direct, Some(om::DirectWrite::Unorm8(_))) {
                return false;
            }
        }
        let n = self.targets.samples;
        let mask = self.s.sample_mask;
        let prims = self.stage.prims.len();
        let mut texels = [0u32; MAX_W];
        let corner = [tb.rect[0], tb.rect[1]];
        // One sample per pixel: the texel goes to the pixel of each live lane whose
        // coverage (`cover0`) and the sample mask both hold sample 0 — `tb_index` with
        // sample 0, without the walk over coverage bits.
        let set = if mask & 1 != 0 { live & cover0 } else { 0 };
        for (i, ip) in tb.in_place.iter().enumerate() {
            let Some(ip) = ip else { continue };
            let (Some((word, _)), Some(om::DirectWrite::Unorm8(order))) = (
                self.ps_out.targets.get(i).copied().flatten(),
                self.direct.get(i).copied().flatten(),
            ) else {
                continue;
            };
            let src = &out[word as usize * w..(word as usize + 4) * w];
            om::DirectWrite::unorm8_texels(src, w, order, &mut texels[..w]);
            scatter_quads(quads, &texels, set, corner, ip.pitch, |i, a, b, which| {
                if which & 1 != 0 {
                    ip.put(i, a);
                }
                if which & 2 != 0 {
                    ip.put(i.wrapping_add(1), b);
                }
            });
        }
        for (i, c) in tb.colors.iter_mut().enumerate() {
            let Some(c) = c else { continue };
            let Some((word, _)) = self.ps_out.targets.get(i).copied().flatten() else {
                continue;
            };
            let Some(d) = self.direct.get(i).copied().flatten() else {
                continue;
            };
            let src = &out[word as usize * w..(word as usize + 4) * w];
            if let om::DirectWrite::Unorm8(order) = d {
                om::DirectWrite::unorm8_texels(src, w, order, &mut texels[..w]);
                if n == 1 && c.texel == 4 {
                    // A row of a quad with both its pixels written is one eight-byte
                    // store.
                    let tw = (tb.rect[2] - tb.rect[0]) as usize;
                    scatter_quads(
                        quads,
                        &texels,
                        set,
                        corner,
                        tw,
                        |i, a, b, which| match which {
                            3 => om::DirectWrite::put_texel4_pair(c, i, a, b),
                            1 => om::DirectWrite::put_texel4(c, i, a),
                            _ => om::DirectWrite::put_texel4(c, i.wrapping_add(1), b),
                        },
                    );
                    continue;
                }
            }
            for (qi, q) in quads.iter().enumerate() {
                if q.prim as usize >= prims {
                    continue;
                }
                for k in 0..4 {
                    let l = 4 * qi + k;
                    if (live >> l) & 1 == 0 {
                        continue;
                    }
                    let lane = q.lane(k);
                    let mut bits = lane.coverage & mask;
                    if let om::DirectWrite::Unorm8(_) = d {
                        let texel = texels[l];
                        while bits != 0 {
                            let smp = bits.trailing_zeros();
                            bits &= bits - 1;
                            let idx = tb_index(tb.rect, n, lane.x, lane.y, smp);
                            om::DirectWrite::put_texel4(c, idx, texel);
                        }
                        continue;
                    }
                    while bits != 0 {
                        let smp = bits.trailing_zeros();
                        bits &= bits - 1;
                        let idx = tb_index(tb.rect, n, lane.x, lane.y, smp);
                        d.write(c, idx, [src[l], src[w + l], src[2 * w + l], src[3 * w + l]]);
                    }
                }
            }
        }
        true
    }

    /// The output merger for one lane: coverage, late depth-stencil, colour writes.
    fn merge(&self, lane: &PixelLane, out: impl Fn(u32) -> u32, tb: &mut TileBuf<'_>) {
        let Some(prim) = self.stage.prims.get(lane.prim as usize) else {
            return;
        };
        let n = self.targets.samples;
        // A merge observer is told the draw's primitive, not the set-up one (clipping may
        // cut a primitive into several).
        let drawn = PixelLane {
            prim: prim.id,
            ..*lane
        };
        let mut cov = lane.coverage & self.s.sample_mask;
        if let Some(w) = self.ps_out.coverage {
            cov &= out(w);
        }
        if self.s.blend.alpha_to_coverage_enable
            && let Some((w, m)) = self.ps_out.targets[0]
            && m & 8 != 0
        {
            cov &= om::alpha_to_coverage(f32::from_bits(out(w + 3)), n);
        }
        if cov == 0 {
            return;
        }
        let pattern = self.stage.pattern;
        if !self.early {
            let stencil_ref = self
                .ps_out
                .stencil_ref
                .map_or(self.s.stencil_ref, |w| out(w) as u8);
            let shader_z = self.ps_out.depth.map(|(w, kind)| {
                let z = f32::from_bits(out(w));
                let raster_z = self.stage.depth_at(prim, interp::centre(lane.x, lane.y));
                let z = match kind {
                    ps::DepthOut::Any => z,
                    ps::DepthOut::GreaterEqual => crate::exec::float::max_f32(z, raster_z),
                    ps::DepthOut::LessEqual => crate::exec::float::min_f32(z, raster_z),
                };
                ps::clamp_depth(z, self.stage.depth_range)
            });
            if let Some(td) = tb.depth.as_mut() {
                let mut bits = cov;
                while bits != 0 {
                    let smp = bits.trailing_zeros();
                    bits &= bits - 1;
                    let z = shader_z.unwrap_or_else(|| {
                        self.stage
                            .depth_at(prim, interp::sample(pattern, lane.x, lane.y, smp))
                    });
                    let i = tb_index(tb.rect, n, lane.x, lane.y, smp);
                    let before = self.writes.map(|_| depth_word(td, i));
                    let pass = om::depth_stencil_test(
                        &self.s.depth_stencil,
                        td,
                        i,
                        z,
                        prim.front,
                        stencil_ref,
                    );
                    if let (Some(w), Some(before)) = (self.writes, before)
                        && depth_written(&self.s.depth_stencil, pass, before, depth_word(td, i))
                    {
                        w.write(MergeTarget::DepthStencil, lane.x, lane.y, smp, &drawn);
                    }
                    if !pass {
                        cov &= !(1 << smp);
                    }
                }
            }
        }
        let dual = self.dual;
        let src1 = match (dual, self.ps_out.targets[1]) {
            (true, Some((w, _))) => [out(w), out(w + 1), out(w + 2), out(w + 3)],
            _ => [0; 4],
        };
        for (i, c) in tb.colors.iter_mut().enumerate() {
            let Some(c) = c else { continue };
            if dual && i > 0 {
                break;
            }
            let Some((w, mask)) = self.ps_out.targets.get(i).copied().flatten() else {
                continue;
            };
            let src = [out(w), out(w + 1), out(w + 2), out(w + 3)];
            let desc = self.s.blend.target(i);
            let direct = self.direct.get(i).copied().flatten();
            let mut bits = cov;
            while bits != 0 {
                let smp = bits.trailing_zeros();
                bits &= bits - 1;
                let idx = tb_index(tb.rect, n, lane.x, lane.y, smp);
                match direct {
                    Some(d) => d.write(c, idx, src),
                    None => om::write_color(desc, &self.s.blend_factor, c, idx, src, src1, mask),
                }
                if let Some(w) = self.writes
                    && desc.render_target_write_mask & mask & 0xf != 0
                {
                    w.write(MergeTarget::Color(i as u32), lane.x, lane.y, smp, &drawn);
                }
            }
        }
    }
}

/// The one-sample direct merge's scatter, a quad at a time: the texel (`texels`, lane
/// order) of each lane in `set` to its pixel, through `put(i, texel)` with `i` counted
/// row-major from the tile's top-left pixel `corner`, rows `pitch` apart: `put(i, left,
/// right, which)` writes a row of a quad, its left pixel (at `i`) when `which & 1`, its
/// right one when `which & 2`.
#[inline(always)]
fn scatter_quads(
    quads: &[PixelQuad],
    texels: &[u32],
    set: u128,
    corner: [i32; 2],
    pitch: usize,
    mut put: impl FnMut(usize, u32, u32, u64),
) {
    let [x0, y0] = corner;
    for (half, bits) in [set as u64, (set >> 64) as u64].into_iter().enumerate() {
        let mut bits = bits;
        while bits != 0 {
            let j = bits.trailing_zeros() / 4;
            let nib = (bits >> (4 * j)) & 0xf;
            bits &= !(0xf << (4 * j));
            let qi = half * 16 + j as usize;
            let (Some(q), Some(t)) = (quads.get(qi), texels.get(4 * qi..4 * qi + 4)) else {
                continue;
            };
            let top = ((q.y as i32).wrapping_sub(y0) as usize)
                .wrapping_mul(pitch)
                .wrapping_add((q.x as i32).wrapping_sub(x0) as usize);
            for row in 0..2 {
                let idx = top.wrapping_add(row * pitch);
                let (a, b) = (t[2 * row], t[2 * row + 1]);
                let which = (nib >> (2 * row)) & 3;
                if which != 0 {
                    put(idx, a, b, which);
                }
            }
        }
    }
}

/// Whether target 0 blends with a second source colour (a factor reads `SV_Target1`).
fn dual_source(b: &BlendDesc) -> bool {
    let t = b.target(0);
    t.blend_enable
        && [
            t.src_blend,
            t.dest_blend,
            t.src_blend_alpha,
            t.dest_blend_alpha,
        ]
        .iter()
        .any(|f| f.dual_source())
}

/// Per render target, the output merger's direct write (`om::DirectWrite`) when the
/// target's state and the program's written components allow one.
fn direct_writes(s: &DrawState<'_>, out: &PsOutputs) -> [Option<om::DirectWrite>; 8] {
    let mut d = [None; 8];
    for (i, rt) in s.render_targets.iter().enumerate().take(8) {
        if let (Some(rt), Some((_, mask))) = (rt, out.targets[i]) {
            d[i] = om::DirectWrite::of(s.blend.target(i), rt.texture.desc().format, mask);
        }
    }
    d
}

/// The stored depth bits and stencil of sample `i` of a tile (for write tracking).
fn depth_word(td: &TileDepth, i: usize) -> (u32, u8) {
    (
        td.depth.get(i).copied().unwrap_or(0),
        td.stencil.get(i).copied().unwrap_or(0),
    )
}

/// Whether a depth-stencil test wrote the sample: a passing test with depth writes on
/// stores its depth (even an equal one), and a stencil operation that changed the
/// stencil value wrote it.
fn depth_written(ds: &DepthStencilDesc, pass: bool, before: (u32, u8), after: (u32, u8)) -> bool {
    (pass && ds.depth_enable && ds.depth_write) || before != after
}

fn tb_index(rect: [i32; 4], _samples: u32, x: u32, y: u32, s: u32) -> usize {
    let w = (rect[2] - rect[0]) as usize;
    let h = (rect[3] - rect[1]) as usize;
    (s as usize * h + (y as i32 - rect[1]) as usize) * w + (x as i32 - rect[0]) as usize
}

/// The format check a job front end makes before binding a texture as a target.
pub fn is_target_format(f: Format) -> bool {
    om::target_class(f).is_some()
}
