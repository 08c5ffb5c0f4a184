//! Draws in a command list: `draw` (`DrawInstanced`), `draw_indexed`
//! (`DrawIndexedInstanced`), `dispatch_mesh` (`DispatchMesh`) and the draw state of an
//! `execute_indirect` of draws or mesh draws, made from a `[[command]]` whose buffers
//! and targets are named resources.
//!
//! A draw has every stage a single draw has, named by the same keys: `vs`, `hs` and `ds`
//! (both or neither, with a patch-list `topology`), `gs`, `ps`; a mesh draw `as`, `ms`
//! and `ps` and no input-assembler, tessellation, geometry or stream-output keys (the
//! mesh shader spec's "CreatePipelineState"). The checks a single draw makes on its
//! programs are shared (`job::draw_run`), and the pipeline's tessellation checks
//! (topology against the hull program, the domains, linkage:
//! `pipeline::draw::check_tessellation`) run when the list is made, before any command.
//!
//! Owns the keys a draw command adds to `[[command]]` (vertex and index buffers, render
//! targets and the depth-stencil view as named resources with their views) and the
//! checks D3D12 makes when they are bound together: formats a render target or a depth
//! buffer can have, one size and sample count for every target, and the hazard of one
//! resource bound as a target and as a shader resource of the same draw. The pipeline
//! state keys (`topology`, `rasterizer`, `blend`, `input_element`, `viewport`,
//! `scissor`, the depth-stencil state, …) are `[draw]`'s, read by `job::draw` as a
//! single-draw job reads them. Does not own running the draw (`pipeline::draw`).
//!
//! ```toml
//! [[command]]
//! type = "draw_indexed"           # or "draw" (vertex_count, start_vertex)
//! vs = "scene.vs_5_0.dxbc"
//! ps = "scene.ps_5_0.dxbc"        # optional (none: depth and stencil only); gs, hs, ds too
//! index_count = 36
//! instance_count = 1              # start_index, base_vertex, start_instance
//! vertex_buffers = [{ slot = 0, resource = "vertices", stride = 24 }]   # + offset, size
//! index_buffer = { resource = "indices", format = "R16_UINT" }         # + offset, size
//! input_element = [{ semantic = "POSITION", format = "R32G32B32_FLOAT" }]
//! render_targets = [{ resource = "color" }]   # + mip, slices = [first, count], format
//! depth_stencil = { resource = "depth", depth_func = "LESS" }   # + read_only, stencil keys
//!                                 # (front / back = { …, read_mask, write_mask } per face)
//! rasterizer = { cull = "BACK" }
//! bind = [{ reg = "t0", resource = "shadow" }, { reg = "b0", f32 = [ … ] }]
//! ```
//!
//! A draw loads its targets (the contents the commands before it left) and writes them
//! in place: draws in a row accumulate, and a clear is a command of its own. A view of
//! several slices (of a 2D array, or W slices of a 3D texture) takes each primitive in
//! the slice its `SV_RenderTargetArrayIndex` names (`pipeline::draw`). A binding is
//! visible to every program of the draw (a root signature with
//! `D3D12_SHADER_VISIBILITY_ALL`) unless it says `visibility`; each program is checked
//! against the bindings it sees (`job::reflect`).

use serde::{Deserialize, Serialize};

use super::{CommandEntry, Ctx};
use crate::ir::{ResourceClass, Stage};
use crate::job::JobError;
use crate::job::bind::{Register, Storage};
use crate::job::draw::{self as d, DepthStencilEntry, DrawSection, StencilFaceEntry};
use crate::pipeline::om;
use crate::pipeline::state::*;
use crate::pipeline::{Bindings, DrawWork, MeshWork};
use crate::resources::{ChannelType, Format, Memory, Texture, TextureDim};

/// The keys every draw command takes, besides its arguments.
macro_rules! state_keys {
    ($($k:literal),*) => {
        &[
            "vs", "ps", "gs", "hs", "ds", "entry", "bind", "topology", "vertex_buffers", "index_buffer",
            "input_element", "render_targets", "depth_stencil", "rasterizer", "blend",
            "viewport", "scissor", "viewports", "scissors", "sample_mask", "blend_factor",
            "stencil_ref", "front_and_back_stencil_ref", "depth_bounds", "alpha_to_coverage",
            "independent_blend", "strip_cut", "stream_output", "rasterized_stream",
            "stream_output_buffers", "view_instancing", "shading_rate",
            "shading_rate_combiners", "shading_rate_image", $($k),*
        ]
    };
}

/// The keys of a `draw`.
pub(super) const DRAW_KEYS: &[&str] = state_keys!(
    "vertex_count",
    "instance_count",
    "start_vertex",
    "start_instance",
    "draw_auto"
);

/// The keys of a `draw_indexed`.
pub(super) const DRAW_INDEXED_KEYS: &[&str] = state_keys!(
    "index_count",
    "instance_count",
    "start_index",
    "base_vertex",
    "start_instance"
);

/// The keys of a `dispatch_mesh`: the programs, the bindings, the grid and the state
/// after the rasterizer's input (a mesh pipeline has no input assembler, vertex,
/// tessellation or geometry stage and no stream output).
pub(super) const MESH_KEYS: &[&str] = &[
    "ms",
    "as",
    "ps",
    "entry",
    "bind",
    "groups",
    "render_targets",
    "depth_stencil",
    "rasterizer",
    "blend",
    "viewport",
    "scissor",
    "viewports",
    "scissors",
    "sample_mask",
    "blend_factor",
    "stencil_ref",
    "front_and_back_stencil_ref",
    "depth_bounds",
    "alpha_to_coverage",
    "independent_blend",
    "view_instancing",
    "shading_rate",
    "shading_rate_combiners",
    "shading_rate_image",
];

/// The keys a mesh draw refuses, each a stage or state the mesh shader spec's
/// "CreatePipelineState" leaves out of a mesh pipeline (input assembler disabled; no
/// VS, HS, DS or GS; so no stream output), and the arguments of an input-assembler
/// draw.
const NOT_MESH_KEYS: &[&str] = &[
    "vs",
    "gs",
    "hs",
    "ds",
    "topology",
    "vertex_buffers",
    "index_buffer",
    "input_element",
    "strip_cut",
    "stream_output",
    "rasterized_stream",
    "stream_output_buffers",
    "vertex_count",
    "index_count",
    "instance_count",
    "start_vertex",
    "start_index",
    "base_vertex",
    "start_instance",
];

/// Refuses the keys a mesh draw (`dispatch_mesh`, or `execute_indirect` of
/// `signature = "dispatch_mesh"`) cannot have, naming the first and why.
pub(super) fn check_mesh_keys(e: &CommandEntry) -> Result<(), String> {
    if let Some(k) = super::present_keys(e)
        .into_iter()
        .find(|k| NOT_MESH_KEYS.contains(k))
    {
        return Err(format!(
            "`{k}`: a mesh draw has no input assembler, vertex, tessellation or geometry stage, and no stream output (its mesh program makes the primitives; mesh shader spec, \"CreatePipelineState\")"
        ));
    }
    Ok(())
}

/// What a draw command draws: an input-assembler draw (`DrawInstanced`, or
/// `DrawIndexedInstanced` when `indexed`; `args`: the command gives its arguments, an
/// indirect draw's come from its argument buffer) or a mesh draw (`DispatchMesh` of
/// `groups`).
#[derive(Debug, Clone, Copy)]
pub(super) enum DrawKind {
    /// `draw` / `draw_indexed`.
    Draw {
        /// `DrawIndexedInstanced`.
        indexed: bool,
        /// The command gives `vertex_count` (or `index_count`) and the rest.
        args: bool,
    },
    /// `dispatch_mesh`.
    Mesh {
        /// `DispatchMesh`'s thread groups (an indirect record's replace them).
        groups: [u32; 3],
    },
}

/// The keys of an `execute_indirect`: a dispatch's or a draw's state (which of them
/// apply is checked by signature), and the argument buffer's.
pub(super) const INDIRECT_KEYS: &[&str] = state_keys!(
    "ms",
    "as",
    "signature",
    "cs",
    "arguments",
    "argument_offset",
    "stride",
    "max_command_count",
    "count_buffer",
    "count_offset"
);

/// The draw-state keys an indirect dispatch does not take.
pub(super) const DRAW_STATE_ONLY: &[&str] = &[
    "vs",
    "ps",
    "gs",
    "hs",
    "ds",
    "ms",
    "as",
    "topology",
    "vertex_buffers",
    "index_buffer",
    "input_element",
    "render_targets",
    "depth_stencil",
    "rasterizer",
    "blend",
    "viewport",
    "scissor",
    "viewports",
    "scissors",
    "sample_mask",
    "blend_factor",
    "stencil_ref",
    "front_and_back_stencil_ref",
    "depth_bounds",
    "alpha_to_coverage",
    "independent_blend",
    "strip_cut",
    "stream_output",
    "rasterized_stream",
    "stream_output_buffers",
    "view_instancing",
];

/// One vertex buffer view: a named buffer at a slot (`D3D12_VERTEX_BUFFER_VIEW`): from
/// byte `offset` of the buffer, `size` bytes (default: to the buffer's end).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct VertexBufferBinding {
    /// The input slot (0–31).
    pub slot: u32,
    /// The named buffer.
    pub resource: String,
    /// Bytes between vertices (`StrideInBytes`).
    pub stride: u32,
    /// Where the view starts in the buffer (`BufferLocation` less the buffer's
    /// address; default 0).
    pub offset: Option<u64>,
    /// `SizeInBytes` (default: the rest of the buffer).
    pub size: Option<u64>,
}

/// The index buffer view: a named buffer (`D3D12_INDEX_BUFFER_VIEW`): from byte
/// `offset`, `size` bytes (default: to the buffer's end).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct IndexBufferBinding {
    /// The named buffer.
    pub resource: String,
    /// `R16_UINT` or `R32_UINT`.
    pub format: String,
    /// Where the view starts in the buffer (default 0).
    pub offset: Option<u64>,
    /// `SizeInBytes` (default: the rest of the buffer).
    pub size: Option<u64>,
}

/// One stream-output buffer view (`D3D12_STREAM_OUTPUT_BUFFER_VIEW`) of a named buffer,
/// with the declaration's stride for its slot (`pBufferStrides`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SoBufferBinding {
    /// The named buffer the records go to.
    pub resource: String,
    /// Bytes from one record to the next.
    pub stride: u32,
    /// Where the view starts in the buffer (`BufferLocation` less the buffer's address;
    /// default 0).
    pub offset: Option<u64>,
    /// `SizeInBytes` (default: the rest of the buffer).
    pub size: Option<u64>,
    /// The named buffer holding the 32-bit `BufferFilledSize`
    /// (`BufferFilledSizeLocation`); none: writing starts at the view's start and no
    /// count is kept.
    pub filled_size_resource: Option<String>,
    /// The filled size's byte offset in its buffer (default 0).
    pub filled_size_offset: Option<u64>,
}

/// `draw_auto = { resource, offset }`: where a stream-output filled size is kept.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct DrawAutoEntry {
    /// The named buffer holding the 32-bit filled size.
    pub resource: String,
    /// Its byte offset (a multiple of 4; default 0).
    pub offset: Option<u64>,
}

/// Checks a buffer view of `offset` and `size` bytes (`None`: the rest) over a buffer of
/// `len` bytes: the view lies within the buffer (D3D12 creates no view past its
/// resource's end). Reads past the view's end are out of bounds however far the buffer
/// goes on (`ia::fetch`).
fn buffer_view(
    at: &str,
    offset: Option<u64>,
    size: Option<u64>,
    len: u64,
) -> Result<(u64, Option<u64>), String> {
    let offset = offset.unwrap_or(0);
    let end = offset.checked_add(size.unwrap_or(0));
    if offset > len || end.is_none_or(|e| e > len) {
        return Err(format!(
            "{at}: `offset` {offset}{} is outside the buffer's {len} bytes",
            size.map(|n| format!(" and `size` {n}")).unwrap_or_default()
        ));
    }
    Ok((offset, size))
}

/// A render-target view of a named texture.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct TargetView {
    /// The named texture.
    pub resource: String,
    /// The view's mip (`MipSlice`; default 0).
    pub mip: Option<u32>,
    /// The view's array slices, `[first, count]` (`FirstArraySlice`, `ArraySize`;
    /// default `[0, 1]`).
    pub slices: Option<[u32; 2]>,
    /// The view's format (`Format`; default the texture's): a typed format of a
    /// typeless texture's group, or another format of a typed texture's group (an sRGB
    /// view of a UNORM texture).
    pub format: Option<String>,
}

/// The depth-stencil view of a named texture and the `D3D12_DEPTH_STENCIL_DESC` keys of
/// `[draw.depth_stencil]`.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct DepthView {
    /// The named texture (a depth format).
    pub resource: String,
    /// The view's mip (default 0).
    pub mip: Option<u32>,
    /// The view's array slices, `[first, count]` (default `[0, 1]`).
    pub slices: Option<[u32; 2]>,
    /// The view's format (default the texture's): a depth format of a typeless
    /// texture's group (`D32_FLOAT` of `R32_TYPELESS`, the texture a later pass samples
    /// as `R32_FLOAT`).
    pub format: Option<String>,
    /// A read-only view (`D3D12_DSV_FLAG_READ_ONLY_DEPTH` and `…_STENCIL`): the draw
    /// writes neither, and the texture may be sampled by the same draw.
    pub read_only: Option<bool>,
    /// `DepthEnable` (default true).
    pub depth_enable: Option<bool>,
    /// `DepthFunc` (default `LESS`).
    pub depth_func: Option<String>,
    /// `DepthWriteMask` ALL (true, default) or ZERO.
    pub depth_write: Option<bool>,
    /// `StencilEnable`.
    pub stencil_enable: Option<bool>,
    /// `StencilReadMask`.
    pub stencil_read_mask: Option<u8>,
    /// `StencilWriteMask`.
    pub stencil_write_mask: Option<u8>,
    /// `FrontFace`.
    pub front: Option<StencilFaceEntry>,
    /// `BackFace`.
    pub back: Option<StencilFaceEntry>,
    /// `DepthBoundsTestEnable`.
    pub depth_bounds_test: Option<bool>,
}

/// A `[draw]` error re-addressed to the command: `[draw.rasterizer]` becomes the
/// command's `rasterizer` key, `[[draw.blend]] #2` its `blend` #2.
fn readdress(name: &str, e: JobError) -> JobError {
    match e {
        JobError::Entry { entry, message } => {
            let key = entry
                .strip_prefix("[[draw.")
                .and_then(|r| r.split_once("]]"))
                .map(|(k, rest)| format!("{k}`{rest}"))
                .or_else(|| {
                    entry
                        .strip_prefix("[draw.")
                        .map(|r| format!("{}`", r.trim_end_matches(']')))
                })
                .map(|k| format!(" `{k}"))
                .unwrap_or_default();
            JobError::entry(format!("{name}{key}"), message)
        }
        other => other,
    }
}

/// The `[draw]` section holding the command's pipeline-state keys, for `job::draw` to
/// read.
fn state_section(e: &CommandEntry) -> DrawSection {
    DrawSection {
        topology: e.topology.clone(),
        viewport: e.viewport,
        scissor: e.scissor,
        viewports: e.viewports.clone(),
        scissors: e.scissors.clone(),
        sample_mask: e.sample_mask,
        blend_factor: e.blend_factor,
        stencil_ref: e.stencil_ref,
        front_and_back_stencil_ref: e.front_and_back_stencil_ref,
        depth_bounds: e.depth_bounds,
        alpha_to_coverage: e.alpha_to_coverage,
        independent_blend: e.independent_blend,
        strip_cut: e.strip_cut,
        input_element: e.input_element.clone().unwrap_or_default(),
        rasterizer: e.rasterizer.clone(),
        blend: e.blend.clone().unwrap_or_default(),
        stream_output: e.stream_output.clone().unwrap_or_default(),
        rasterized_stream: e.rasterized_stream.clone(),
        view_instancing: e.view_instancing.clone(),
        shading_rate: e.shading_rate.clone(),
        shading_rate_combiners: e.shading_rate_combiners.clone(),
        ..DrawSection::default()
    }
}

/// Subresources of a view: mips `[first, count]` × slices `[first, count]`.
type Span = ([u32; 2], [u32; 2]);

/// A view's resource name and subresources.
type NamedSpan = (String, Span);

/// A checked depth-stencil view: the texture, the state, the resource's name, whether
/// the view is read-only and the subresources it covers.
struct BoundDepthView {
    texture: Texture,
    desc: DepthStencilDesc,
    resource: String,
    read_only: bool,
    span: Span,
}

fn overlaps(a: Span, b: Span) -> bool {
    let cross = |x: [u32; 2], y: [u32; 2]| {
        u64::from(x[0]) < u64::from(y[0]) + u64::from(y[1])
            && u64::from(y[0]) < u64::from(x[0]) + u64::from(x[1])
    };
    cross(a.0, b.0) && cross(a.1, b.1)
}

impl Ctx<'_> {
    /// The texture view (`mip`, `slices`) of named texture `r` for key `key`, checked:
    /// a 2D texture (single or multisampled, an array or not) and slices inside it — a
    /// cube texture is one too, its faces slices 0 to 5 of each cube (D3D12 makes a cube
    /// a 2D texture array resource; `TextureCube` is only a view dimension, and a
    /// render-target view takes its faces as `D3D12_RTV_DIMENSION_TEXTURE2DARRAY`) — or
    /// W slices of a 3D texture's mip (`Texture::target_view`).
    fn target_texture(
        &self,
        label: &str,
        r: &str,
        mip: Option<u32>,
        slices: Option<[u32; 2]>,
    ) -> Result<(Texture, Span), String> {
        let t = self
            .texture("resource", r)
            .map_err(|m| format!("{label}: {m}"))?;
        let desc = *t.desc();
        let is3d = desc.dim == TextureDim::Tex3D;
        if !is3d
            && !matches!(
                desc.dim,
                TextureDim::Tex2D
                    | TextureDim::Tex2DArray
                    | TextureDim::Tex2DMS
                    | TextureDim::Tex2DMSArray
                    | TextureDim::Cube
                    | TextureDim::CubeArray
            )
        {
            return Err(format!(
                "{label}: \"{r}\" is a {}; a draw renders to 2D textures, 2D arrays, cube faces and 3D textures' slices",
                desc.dim.name()
            ));
        }
        let mip = mip.unwrap_or(0);
        if mip >= desc.mips {
            return Err(format!(
                "{label} \"{r}\": `mip` {mip} is outside the texture's {} mip(s) (0 to {})",
                desc.mips,
                desc.mips.saturating_sub(1)
            ));
        }
        // A 3D texture's view takes W slices of its mip (`FirstWSlice`, `WSize`).
        let (n, what) = if is3d {
            (desc.mip_size(mip)[2], "W slice(s) at this mip")
        } else {
            (desc.array_size(), "array slice(s)")
        };
        let [first, count] = slices.unwrap_or([0, 1]);
        if count == 0 || u64::from(first) + u64::from(count) > u64::from(n) {
            return Err(format!(
                "{label} \"{r}\": `slices` [{first}, {count}] (first, count) is outside the texture's {n} {what}"
            ));
        }
        // A primitive renders to slice SV_RenderTargetArrayIndex of the view, and to the
        // view's first slice when no program writes the index or its value is out of
        // the view's range (`pipeline::draw`'s routing).
        let sub = t.target_view(mip, first, count).ok_or_else(|| {
            format!("{label} \"{r}\": mip {mip}, slices [{first}, {count}] are not a view of it")
        })?;
        // The span: 3D slices are all of the one subresource of the mip.
        let span = if is3d {
            ([mip, 1], [0, 1])
        } else {
            ([mip, 1], [first, count])
        };
        Ok((sub, span))
    }

    /// Makes the draw of command `name`: its programs (as a single draw's: vertex, hull,
    /// domain, geometry and pixel, or amplification, mesh and pixel), each checked
    /// against the bindings it sees, and its state.
    pub(super) fn draw(
        &mut self,
        name: &str,
        e: &CommandEntry,
        kind: DrawKind,
    ) -> Result<DrawWork, JobError> {
        let err = |m: String| JobError::entry(name, m);
        let (front, mesh_groups) = match kind {
            DrawKind::Draw { .. } => {
                let p = e.vs.as_ref().ok_or_else(|| {
                    err("missing `vs` (the vertex program's file, relative to the job file)".into())
                })?;
                (self.program(e, "vs", p, Stage::Vertex).map_err(&err)?, None)
            }
            DrawKind::Mesh { groups } => {
                let p = e.ms.as_ref().ok_or_else(|| {
                    err("missing `ms` (the mesh program's file, relative to the job file)".into())
                })?;
                (
                    self.program(e, "ms", p, Stage::Mesh).map_err(&err)?,
                    Some(groups),
                )
            }
        };
        let mut optional = |key: &str, p: &Option<std::path::PathBuf>, stage: Stage| match p {
            Some(p) => self.program(e, key, p, stage).map(Some).map_err(&err),
            None => Ok(None),
        };
        let amplification = optional("as", &e.amplification, Stage::Amplification)?;
        let ps = optional("ps", &e.ps, Stage::Pixel)?;
        let gs = optional("gs", &e.gs, Stage::Geometry)?;
        let hs = optional("hs", &e.hs, Stage::Hull)?;
        let ds = optional("ds", &e.ds, Stage::Domain)?;
        crate::job::draw_run::check_tessellation_programs(hs.is_some(), ds.is_some())
            .map_err(|m| err(m.into()))?;

        // Bindings, each checked against every program that sees it (its visibility); a
        // binding is "not used" only when no program declares it.
        let own = self.bound_of(name, e)?;
        let check = |s: &crate::ir::Shader| {
            crate::job::reflect::check(s, &own)
                .map_err(|x| JobError::entry(name, format!("the bindings: {x}")))
        };
        let vs_fit = check(&front)?;
        let ps_fit = ps.as_deref().map(check).transpose()?;
        let gs_fit = gs.as_deref().map(check).transpose()?;
        let hs_fit = hs.as_deref().map(check).transpose()?;
        let ds_fit = ds.as_deref().map(check).transpose()?;
        let as_fit = amplification.as_deref().map(check).transpose()?;
        let warnings = crate::job::draw_run::stage_warnings(
            vs_fit.warnings.clone(),
            ps_fit.as_ref().map(|f| f.warnings.clone()),
            [&gs_fit, &hs_fit, &ds_fit, &as_fit]
                .into_iter()
                .flatten()
                .map(|f| &f.warnings),
        );
        self.warnings
            .extend(warnings.into_iter().map(|w| super::located(name, w)));
        let vs = front;

        let section = state_section(e);
        let re = |x: JobError| readdress(name, x);
        let (indexed, draw_args) = match kind {
            DrawKind::Draw {
                indexed,
                args: true,
            } => (indexed, self.args(e, indexed).map_err(&err)?),
            DrawKind::Draw { indexed, .. } => (indexed, DrawArgs::default()),
            DrawKind::Mesh { .. } => (false, crate::job::draw_run::mesh_args()),
        };
        let vertex_buffers = self.vertex_buffers(e).map_err(&err)?;
        let index_buffer = self.index_buffer(e, indexed).map_err(&err)?;
        let (render_targets, rt_spans) = self.render_targets(e).map_err(&err)?;
        let depth = self.depth_view(e).map_err(&err)?;
        self.check_sizes(e, &render_targets, depth.as_ref().map(|x| &x.texture))
            .map_err(&err)?;
        self.hazards(e, &rt_spans, depth.as_ref()).map_err(&err)?;

        let empty = Bindings::default();
        let ps_bindings = ps_fit.as_ref().map_or(&empty, |f| &f.bindings);
        let mut state = DrawState::new(&vs, ps.as_deref(), &vs_fit.bindings, ps_bindings);
        state.input_layout = d::input_layout(&section).map_err(re)?;
        state.topology = d::topology(&section).map_err(re)?;
        state.vertex_buffers = vertex_buffers;
        state.index_buffer = index_buffer;
        state.strip_cut = if section.strip_cut.unwrap_or(false) {
            StripCutValue::Enabled
        } else {
            StripCutValue::Disabled
        };
        state.rasterizer = d::rasterizer(&section).map_err(re)?;
        state.blend = d::blend(&section).map_err(re)?;
        state.viewports = d::viewports(&section).map_err(re)?;
        state.scissors = d::scissors(&section).map_err(re)?;
        state.sample_mask = section.sample_mask.unwrap_or(u32::MAX);
        state.blend_factor = section.blend_factor.unwrap_or([1.0; 4]);
        (state.stencil_ref, state.back_stencil_ref) = d::stencil_refs(&section).map_err(re)?;
        state.depth_bounds = section.depth_bounds.unwrap_or([0.0, 1.0]);
        state.view_instancing = d::view_instancing(&section).map_err(re)?;
        let rate_image = self.shading_rate_image(e).map_err(&err)?;
        state.shading_rate = d::shading_rate(&section, rate_image).map_err(re)?;
        state.render_targets = render_targets
            .into_iter()
            .map(|texture| Some(RenderTargetView { texture }))
            .collect();
        match depth {
            Some(dv) => {
                state.depth_stencil_view = Some(DepthStencilView {
                    texture: dv.texture,
                });
                state.depth_stencil = dv.desc;
            }
            None => state.depth_stencil.depth_enable = false,
        }
        state.stream_output = self.stream_output(e, &section).map_err(&err)?;
        // The pipeline's tessellation checks (topology against the hull program, the
        // domains, linkage) run here too, so that such a draw is refused before the list
        // runs rather than after the commands before it.
        state.hs = hs.as_deref().zip(hs_fit.as_ref().map(|f| &f.bindings));
        state.ds = ds.as_deref().zip(ds_fit.as_ref().map(|f| &f.bindings));
        crate::pipeline::draw::check_tessellation(&state)
            .map_err(|x| err(format!("`topology` / `hs` / `ds`: {x}")))?;
        let fixed = state.fixed();
        drop(state);
        let fixed = match self.last_fixed.take() {
            Some(last) if *last == fixed => last,
            _ => std::sync::Arc::new(fixed),
        };
        self.last_fixed = Some(fixed.clone());
        let bindings =
            |f: Option<crate::job::reflect::Fit>| f.map(|f| f.bindings).unwrap_or_default();
        Ok(DrawWork {
            vs,
            ps,
            vs_bindings: vs_fit.bindings,
            ps_bindings: bindings(ps_fit),
            gs: gs.map(|g| (g, bindings(gs_fit))),
            hs: hs.map(|h| (h, bindings(hs_fit))),
            ds: ds.map(|d| (d, bindings(ds_fit))),
            fixed,
            args: draw_args,
            mesh: mesh_groups.map(|groups| MeshWork {
                amplification: amplification.map(|a| (a, bindings(as_fit))),
                groups,
            }),
            view: None,
        })
    }

    /// The rate image `shading_rate_image = { resource }` names (`None` without the
    /// key): a named texture; its format and shape are checked when the draw runs
    /// (`pipeline::vrs`). The single-draw forms (`width`, `height`, `rates`, `data`)
    /// are refused: a list's image is a named resource, written by the commands before.
    fn shading_rate_image(&self, e: &CommandEntry) -> Result<Option<Texture>, String> {
        let Some(i) = &e.shading_rate_image else {
            return Ok(None);
        };
        if i.width.is_some() || i.height.is_some() || i.rates.is_some() || i.data.is_some() {
            return Err(
                "`shading_rate_image`: in a command list the image is a named resource: `{ resource = \"name\" }`".into(),
            );
        }
        let Some(name) = &i.resource else {
            return Err("`shading_rate_image`: name the image: `{ resource = \"name\" }`".into());
        };
        self.texture("shading_rate_image.resource", name).map(Some)
    }

    /// The stream-output state: the declaration and rasterized stream (as `[draw]`'s) and
    /// the views of `stream_output_buffers`, slot `i` the list's entry `i` (`None`: no
    /// stream output).
    fn stream_output(
        &self,
        e: &CommandEntry,
        section: &DrawSection,
    ) -> Result<Option<crate::pipeline::so::StreamOutput>, String> {
        use crate::pipeline::so::{SO_BUFFER_SLOTS, SoBufferView, StreamOutput};
        let views = e.stream_output_buffers.as_deref().unwrap_or_default();
        if e.stream_output.is_none() && e.rasterized_stream.is_none() && views.is_empty() {
            return Ok(None);
        }
        if views.len() > SO_BUFFER_SLOTS {
            return Err(format!(
                "`stream_output_buffers`: {} buffers; D3D12 binds at most {SO_BUFFER_SLOTS}",
                views.len()
            ));
        }
        let mut buffers = Vec::with_capacity(views.len());
        let mut strides = Vec::with_capacity(views.len());
        for (i, v) in views.iter().enumerate() {
            let at = format!("`stream_output_buffers` #{}", i + 1);
            let (_, data) = self
                .buffer("resource", &v.resource)
                .map_err(|m| format!("{at}: {m}"))?;
            let (offset, size) = buffer_view(&at, v.offset, v.size, data.len())?;
            let size = size.unwrap_or(data.len() - offset);
            let filled_size = match &v.filled_size_resource {
                Some(r) => {
                    let (_, m) = self
                        .buffer("filled_size_resource", r)
                        .map_err(|m| format!("{at}: {m}"))?;
                    Some((m, v.filled_size_offset.unwrap_or(0)))
                }
                None if v.filled_size_offset.is_some() => {
                    return Err(format!(
                        "{at}: `filled_size_offset` without `filled_size_resource`"
                    ));
                }
                None => None,
            };
            strides.push(v.stride);
            buffers.push(Some(SoBufferView {
                data,
                offset,
                size,
                filled_size,
            }));
        }
        let desc = d::stream_output_desc(section, strides).map_err(|x| match x {
            JobError::Entry { entry, message } => format!("{entry}: {message}"),
            other => other.to_string(),
        })?;
        Ok(Some(StreamOutput { desc, buffers }))
    }

    /// A `draw_auto` draw of `work`: vertex buffer 0 has a stride to divide by, and the
    /// filled size is a 32-bit word inside its buffer.
    pub(super) fn draw_auto(
        &self,
        work: DrawWork,
        a: &DrawAutoEntry,
    ) -> Result<crate::pipeline::Command, String> {
        let stride = work
            .state()
            .vertex_buffers
            .first()
            .and_then(|v| v.as_ref())
            .map_or(0, |v| v.stride);
        if stride == 0 {
            return Err(
                "`draw_auto`: vertex buffer slot 0 has no view with a stride (DrawAuto divides the filled size by slot 0's stride)".into(),
            );
        }
        let (_, filled) = self.buffer("draw_auto", &a.resource)?;
        let offset = a.offset.unwrap_or(0);
        if offset % 4 != 0 || offset.saturating_add(4) > filled.len() {
            return Err(format!(
                "`draw_auto`: `offset` {offset}: the filled size is a 32-bit word inside \"{}\" ({} bytes), at a multiple of 4",
                a.resource,
                filled.len()
            ));
        }
        Ok(crate::pipeline::Command::DrawAuto(Box::new(
            crate::pipeline::commands::DrawAuto {
                work,
                filled,
                offset,
                stride,
            },
        )))
    }

    /// `DrawInstanced` / `DrawIndexedInstanced`'s arguments.
    fn args(&self, e: &CommandEntry, indexed: bool) -> Result<DrawArgs, String> {
        if e.draw_auto.is_some() {
            // DrawAuto has no arguments: one instance from vertex 0, the count read when
            // it runs.
            if let Some(k) = super::present_keys(e).into_iter().find(|k| {
                matches!(
                    *k,
                    "vertex_count" | "instance_count" | "start_vertex" | "start_instance"
                )
            }) {
                return Err(format!(
                    "`{k}`: a `draw_auto` draw takes its vertex count from the filled size and has no other arguments (DrawAuto)"
                ));
            }
            return Ok(DrawArgs {
                instance_count: 1,
                ..DrawArgs::default()
            });
        }
        let count = if indexed {
            e.index_count
                .ok_or("missing `index_count` (indices per instance)")?
        } else {
            e.vertex_count
                .ok_or("missing `vertex_count` (vertices per instance)")?
        };
        Ok(DrawArgs {
            vertex_count: count,
            instance_count: e.instance_count.unwrap_or(1),
            start_vertex: if indexed {
                e.start_index
            } else {
                e.start_vertex
            }
            .unwrap_or(0),
            base_vertex: e.base_vertex.unwrap_or(0),
            start_instance: e.start_instance.unwrap_or(0),
        })
    }

    fn vertex_buffers(&self, e: &CommandEntry) -> Result<Vec<Option<VertexBufferView>>, String> {
        let mut out: Vec<Option<VertexBufferView>> = Vec::new();
        for (i, v) in e.vertex_buffers.iter().flatten().enumerate() {
            let at = format!("`vertex_buffers` #{} (slot {})", i + 1, v.slot);
            if v.slot >= VERTEX_INPUT_SLOTS {
                return Err(format!(
                    "{at}: D3D has slots 0 to {}",
                    VERTEX_INPUT_SLOTS - 1
                ));
            }
            if v.stride > crate::pipeline::ia::MAX_STRIDE {
                return Err(format!(
                    "{at}: `stride` {} is past D3D's {}",
                    v.stride,
                    crate::pipeline::ia::MAX_STRIDE
                ));
            }
            let (_, data) = self
                .buffer("resource", &v.resource)
                .map_err(|m| format!("{at}: {m}"))?;
            let (offset, size) = buffer_view(&at, v.offset, v.size, data.len())?;
            let slot = v.slot as usize;
            if out.len() <= slot {
                out.resize(slot + 1, None);
            }
            if out[slot].is_some() {
                return Err(format!("{at}: slot {} is already bound", v.slot));
            }
            out[slot] = Some(VertexBufferView {
                data,
                stride: v.stride,
                offset,
                size,
            });
        }
        Ok(out)
    }

    fn index_buffer(
        &self,
        e: &CommandEntry,
        indexed: bool,
    ) -> Result<Option<IndexBufferView>, String> {
        let Some(ib) = &e.index_buffer else {
            return if indexed {
                Err("missing `index_buffer` (a draw_indexed reads its indices from one)".into())
            } else {
                Ok(None)
            };
        };
        if !indexed {
            return Err("`index_buffer`: a draw reads no indices (use draw_indexed)".into());
        }
        let format = match ib
            .format
            .to_ascii_uppercase()
            .trim_start_matches("DXGI_FORMAT_")
        {
            "R16_UINT" => IndexFormat::U16,
            "R32_UINT" => IndexFormat::U32,
            other => {
                return Err(format!(
                    "`index_buffer` `format` \"{other}\": give R16_UINT or R32_UINT"
                ));
            }
        };
        let (_, data): (_, Memory) = self
            .buffer("index_buffer", &ib.resource)
            .map_err(|m| format!("`index_buffer`: {m}"))?;
        let (offset, size) = buffer_view("`index_buffer`", ib.offset, ib.size, data.len())?;
        Ok(Some(IndexBufferView {
            data,
            format,
            offset,
            size,
        }))
    }

    /// The render targets: textures in render-target formats.
    fn render_targets(&self, e: &CommandEntry) -> Result<(Vec<Texture>, Vec<NamedSpan>), String> {
        let views = e.render_targets.as_deref().unwrap_or(&[]);
        if views.len() > RENDER_TARGETS {
            return Err(format!(
                "`render_targets`: {} views; D3D binds at most {RENDER_TARGETS}",
                views.len()
            ));
        }
        let mut out = Vec::new();
        let mut spans = Vec::new();
        for (i, v) in views.iter().enumerate() {
            let label = format!("`render_targets` #{}", i + 1);
            let (t, span) = self.target_texture(&label, &v.resource, v.mip, v.slices)?;
            let t = match &v.format {
                Some(name) => view_format(&t, name)
                    .map_err(|m| format!("{label} \"{}\": `format`: {m}", v.resource))?,
                None => t,
            };
            let f = t.desc().format;
            if om::target_class(f).is_none() {
                let hint = if om::depth_kind(f).is_some() {
                    " (a depth format: bind it as `depth_stencil`)"
                } else {
                    ""
                };
                return Err(format!(
                    "`render_targets` #{} \"{}\": {f} is not a render-target format{hint}",
                    i + 1,
                    v.resource
                ));
            }
            out.push(t);
            spans.push((v.resource.clone(), span));
        }
        Ok((out, spans))
    }

    /// The depth-stencil view and its state.
    fn depth_view(&self, e: &CommandEntry) -> Result<Option<BoundDepthView>, String> {
        let Some(v) = &e.depth_stencil else {
            return Ok(None);
        };
        let (t, span) = self.target_texture("`depth_stencil`", &v.resource, v.mip, v.slices)?;
        let t = match &v.format {
            Some(name) => view_format(&t, name)
                .map_err(|m| format!("`depth_stencil` \"{}\": `format`: {m}", v.resource))?,
            None => t,
        };
        let f = t.desc().format;
        if om::depth_kind(f).is_none() {
            return Err(format!(
                "`depth_stencil` \"{}\": {f} is not a depth format (D16_UNORM, D24_UNORM_S8_UINT, D32_FLOAT, D32_FLOAT_S8X24_UINT)",
                v.resource
            ));
        }
        let entry = DepthStencilEntry {
            format: f.name().to_string(),
            depth_enable: v.depth_enable,
            depth_func: v.depth_func.clone(),
            depth_write: v.depth_write,
            stencil_enable: v.stencil_enable,
            stencil_read_mask: v.stencil_read_mask,
            stencil_write_mask: v.stencil_write_mask,
            front: v.front.clone(),
            back: v.back.clone(),
            depth_bounds_test: v.depth_bounds_test,
            ..DepthStencilEntry::default()
        };
        let mut desc = d::depth_stencil_desc(&entry, f).map_err(|x| match x {
            JobError::Entry { message, .. } => format!("`depth_stencil`: {message}"),
            other => other.to_string(),
        })?;
        let read_only = v.read_only.unwrap_or(false);
        if read_only {
            if v.depth_write == Some(true) {
                return Err(
                    "`depth_stencil`: `depth_write = true` with `read_only`: a read-only view writes no depth"
                        .into(),
                );
            }
            // D3D12_DSV_FLAG_READ_ONLY_DEPTH / _STENCIL: the view's writes are dropped.
            desc.depth_write = false;
            desc.stencil_write_mask = 0;
            if let Some(m) = desc.back_face_masks.as_mut() {
                m.write = 0;
            }
        }
        Ok(Some(BoundDepthView {
            texture: t,
            desc,
            resource: v.resource.clone(),
            read_only,
            span,
        }))
    }

    /// Every target of a draw has one size and one sample count (D3D12's
    /// `OMSetRenderTargets` rule; the size is of the view's mip).
    fn check_sizes(
        &self,
        e: &CommandEntry,
        rts: &[Texture],
        depth: Option<&Texture>,
    ) -> Result<(), String> {
        let views = e.render_targets.as_deref().unwrap_or(&[]);
        let mut first: Option<(u32, u32, u32, String)> = None;
        let named = rts
            .iter()
            .zip(views)
            .enumerate()
            .map(|(i, (t, v))| (t, format!("`render_targets` #{} \"{}\"", i + 1, v.resource)))
            .chain(
                depth
                    .zip(e.depth_stencil.as_ref())
                    .map(|(t, v)| (t, format!("`depth_stencil` \"{}\"", v.resource))),
            );
        for (t, label) in named {
            let d = t.desc();
            let here = (d.width, d.height, d.samples);
            match &first {
                None => first = Some((here.0, here.1, here.2, label)),
                Some((w, h, n, l)) if (*w, *h, *n) != here => {
                    return Err(format!(
                        "{label} is {}×{} with {} sample(s), but {l} is {w}×{h} with {n}: every target of a draw has one size and sample count",
                        here.0, here.1, here.2
                    ));
                }
                Some(_) => {}
            }
        }
        // A draw that rasterizes nothing (`rasterized_stream = "none"`) writes no pixels
        // and binds no target in D3D12 (`pipeline::draw` stands in a one-pixel area).
        let discards = matches!(
            &e.rasterized_stream,
            Some(crate::job::draw::RasterizedStream::Name(n)) if n.eq_ignore_ascii_case("none")
        );
        if first.is_none() && !discards {
            return Err(
                "a draw needs `render_targets` or a `depth_stencil` view (or `rasterized_stream = \"none\"`)"
                    .into(),
            );
        }
        Ok(())
    }

    /// D3D12's hazard rule: a subresource a draw writes as a render target or through a
    /// writable depth view cannot also be read or written through a shader view of the
    /// same draw (its state would be both RENDER_TARGET / DEPTH_WRITE and
    /// PIXEL_SHADER_RESOURCE / UNORDERED_ACCESS). A read-only depth view is in
    /// DEPTH_READ, which may be combined with the shader-resource states: the texture
    /// can be sampled while it is tested against.
    fn hazards(
        &self,
        e: &CommandEntry,
        rts: &[NamedSpan],
        depth: Option<&BoundDepthView>,
    ) -> Result<(), String> {
        for (k, b) in e.bind.iter().enumerate() {
            let Some(r) = &b.resource else { continue };
            let Some(reg) = Register::parse(&b.reg, b.space) else {
                continue;
            };
            if !matches!(reg.class, ResourceClass::Srv | ResourceClass::Uav) {
                continue;
            }
            let Some(&index) = self.names.get(r.as_str()) else {
                continue;
            };
            let Some(entry) = self.job.file.resources.get(index) else {
                continue;
            };
            if !matches!(
                self.bound.resources.get(index).map(|x| &x.storage),
                Some(Storage::Texture(_))
            ) {
                continue;
            }
            // The shader view's subresources (the entry's view; default all).
            let all = u32::MAX / 2;
            let span = (
                entry.view_mips.unwrap_or([0, all]),
                entry.view_slices.unwrap_or([0, all]),
            );
            let bind = format!("`bind` #{} ({reg} = \"{r}\")", k + 1);
            for (j, (name, rt)) in rts.iter().enumerate() {
                if name == r && overlaps(span, *rt) {
                    return Err(format!(
                        "{bind} and `render_targets` #{} both bind \"{r}\": a subresource cannot be a render target and a shader's {} in one draw (D3D12 resource states)",
                        j + 1,
                        if reg.class == ResourceClass::Srv {
                            "shader resource"
                        } else {
                            "unordered-access view"
                        }
                    ));
                }
            }
            if let Some(dv) = depth
                && dv.resource == *r
                && overlaps(span, dv.span)
                && (!dv.read_only || reg.class == ResourceClass::Uav)
            {
                return Err(format!(
                    "{bind} and `depth_stencil` both bind \"{r}\": a depth buffer the draw writes cannot be read by its programs (give the depth view `read_only = true`)"
                ));
            }
        }
        Ok(())
    }
}

/// `texture` seen through a render-target view of format `name`. D3D12's rule for a
/// view's format ("Typed and typeless formats", `CreateRenderTargetView`): a typeless
/// resource is viewed in a typed format of its family, and a typed one in a format of
/// the same family (format casting, as an sRGB view of a UNORM target); the texels keep
/// their bytes, only their reading and writing change.
fn view_format(texture: &Texture, name: &str) -> Result<Texture, String> {
    let f = Format::from_name(name).ok_or_else(|| format!("unknown format \"{name}\""))?;
    let own = texture.desc().format;
    if super::type_group(f) != super::type_group(own) {
        return Err(format!(
            "{f} is not of {own}'s format family (a view casts only within one typeless group)"
        ));
    }
    if f.channel_type() == ChannelType::Typeless {
        return Err(format!("{f} is typeless; a view names a typed format"));
    }
    texture
        .with_format(f)
        .ok_or_else(|| format!("{f}'s texels do not match {own}'s"))
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `[draw]`'s table names become the command's keys.
    #[test]
    fn state_errors_name_the_command_and_key() {
        let e = readdress(
            "[[command]] #2 (draw)",
            JobError::entry("[draw.rasterizer]", "`cull`: unknown name"),
        );
        assert_eq!(
            e.to_string(),
            JobError::entry("[[command]] #2 (draw) `rasterizer`", "`cull`: unknown name")
                .to_string()
        );
        let e = readdress(
            "[[command]] #1 (draw)",
            JobError::entry("[[draw.blend]] #2", "`src`: unknown"),
        );
        assert!(e.to_string().contains("(draw) `blend` #2"), "{e}");
        let e = readdress(
            "[[command]] #1 (draw)",
            JobError::entry("[draw]", "`viewport`"),
        );
        assert!(e.to_string().starts_with("[[command]] #1 (draw)"), "{e}");
    }

    /// Two views overlap when both their mip and their slice ranges do.
    #[test]
    fn view_overlap_is_by_mip_and_slice() {
        assert!(overlaps(([0, 1], [0, 1]), ([0, 5], [0, 9])));
        assert!(!overlaps(([1, 1], [0, 1]), ([0, 1], [0, 1])));
        assert!(!overlaps(([0, 1], [2, 2]), ([0, 1], [4, 1])));
        assert!(overlaps(([0, 1], [2, 3]), ([0, 1], [4, 1])));
    }
}
