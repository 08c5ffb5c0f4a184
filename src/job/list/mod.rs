//! Command-list jobs: named resources declared once and an ordered `[[command]]` list in
//! D3D12's vocabulary, made into `pipeline::commands` commands with every field checked
//! before anything runs.
//!
//! Owns the `[[command]]` schema ([`CommandEntry`], [`BindEntry`]), resolving resource
//! names, and the checks D3D12 (or its debug layer) makes on each command's arguments:
//! views inside their resource, copy regions inside both resources and between formats
//! of one copy group, argument buffers large enough for `max_command_count` records.
//! Every error names the command (`[[command]] #N (type)`, 1-based) and the field. Does
//! not own running the list (`pipeline::commands`) or binding a resource's storage
//! (`bind`).
//!
//! A list job's `[[resource]]` entries carry a `name` and no `reg`: each is one D3D12
//! resource (a buffer or a texture — render targets and depth buffers are textures in a
//! render-target or depth format). A command binds it at a register for its programs
//! (`bind = [{ reg = "u0", resource = "counts" }]`) with the view the entry declares.
//! A binding may instead carry its own constant data (`{ reg = "b0", u32 = [..] }`): a
//! constant buffer for that command only, as root constants are. `[[expect]]` and
//! outputs name resources and see them after the whole list.

use std::collections::HashMap;
use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::bind::{self, BoundEntry, BoundJob, EntryKind, Register, Storage, Visibility};
use super::limits::MemoryBudget;
use super::prepare::{Prepared, check_expects};
use super::run::{
    ProgramInfo, RunOptions, check_outputs, load_file, output_gate, place_outputs, resolve_plan,
    resource_memory, summary_place,
};
use super::schema::FloatValue;
use super::{Job, JobError, reflect};
use crate::ir::{ResourceClass, Stage};
use crate::pipeline::commands::{
    Command, Indirect, IndirectWork, MAX_GROUPS_PER_DIMENSION, RegionResolve, TextureCopy,
    Transcode, TranscodePart, TranscodeTarget,
};
use crate::pipeline::om::resolve::{ResolveMode, ResolveRegion};
use crate::pipeline::{DispatchWork, Work};
use crate::resources::{Descriptor, FeedbackKind, FeedbackMap, Format, Memory, Texture};

/// The most commands a list may hold.
pub const MAX_COMMANDS: usize = 65_536;

/// One `[[command]]`. One struct serves every command type (serde cannot refuse unknown
/// keys of a flattened part); which keys each type takes is checked when the list is
/// made, naming the key.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct CommandEntry {
    /// `dispatch`, `dispatch_rays`, `draw`, `draw_indexed`, `dispatch_mesh`,
    /// `clear_render_target`, `clear_depth_stencil`, `clear_unordered_access`,
    /// `copy_resource`, `copy_buffer_region`, `copy_texture_region`,
    /// `resolve_subresource`, `execute_indirect`, `build_raytracing_acceleration_structure`,
    /// the query commands and `set_predication`.
    #[serde(rename = "type")]
    pub kind: String,
    /// The compute program (`dispatch`, `execute_indirect` of dispatches), relative to
    /// the job file.
    pub cs: Option<PathBuf>,
    /// The entry point (libraries, several entry points).
    pub entry: Option<String>,
    /// `Dispatch(x, y, z)`; `dispatch_mesh`: `DispatchMesh(x, y, z)`.
    pub groups: Option<[u32; 3]>,
    /// The programs' bindings: register → named resource, or constant data.
    #[serde(default)]
    pub bind: Vec<BindEntry>,
    /// The resource a clear writes.
    pub resource: Option<String>,
    /// The mip of a clear's view.
    pub mip: Option<u32>,
    /// The array slice of a clear's view.
    pub slice: Option<u32>,
    /// `clear_render_target`: RGBA.
    pub color: Option<[FloatValue; 4]>,
    /// `clear_depth_stencil`: the depth (`D3D12_CLEAR_FLAG_DEPTH`).
    pub depth: Option<FloatValue>,
    /// `clear_depth_stencil`: the stencil (`D3D12_CLEAR_FLAG_STENCIL`).
    pub stencil: Option<u8>,
    /// `clear_unordered_access`: `ClearUnorderedAccessViewUint`'s values.
    pub uint: Option<[u32; 4]>,
    /// `clear_unordered_access`: `ClearUnorderedAccessViewFloat`'s values.
    pub float: Option<[FloatValue; 4]>,
    /// Copies and resolves: the destination resource; a build: the acceleration
    /// structure it writes.
    pub dst: Option<String>,
    /// Copies and resolves: the source resource.
    pub src: Option<String>,
    /// `copy_buffer_region`: the first destination byte.
    pub dst_offset: Option<u64>,
    /// `copy_buffer_region`: the first source byte.
    pub src_offset: Option<u64>,
    /// `copy_buffer_region`: bytes.
    pub bytes: Option<u64>,
    /// `copy_texture_region`, a feedback `resolve_subresource`: destination mip.
    pub dst_mip: Option<u32>,
    /// `copy_texture_region`, `resolve_subresource`: destination array slice.
    pub dst_slice: Option<u32>,
    /// `copy_texture_region`: destination `[x, y, z]` (`DstX`, `DstY`, `DstZ`); a
    /// feedback `resolve_subresource`: `[DstX, DstY, 0]`.
    pub dst_at: Option<[u32; 3]>,
    /// `copy_texture_region`, a feedback `resolve_subresource`: source mip.
    pub src_mip: Option<u32>,
    /// `copy_texture_region`, `resolve_subresource`: source array slice.
    pub src_slice: Option<u32>,
    /// `copy_texture_region`: the source box, `[left, top, front, right, bottom, back]`
    /// (`D3D12_BOX`; default the whole subresource).
    pub src_box: Option<[u32; 6]>,
    /// A feedback `resolve_subresource`: the source rectangle `[left, top, right,
    /// bottom]` (`pSrcRect`, in decoded texels; default the whole subresource).
    pub src_rect: Option<[u32; 4]>,
    /// `execute_indirect`: what each record runs — `dispatch`, `draw`, `draw_indexed` or
    /// `dispatch_mesh`.
    pub signature: Option<String>,
    /// `execute_indirect`: the argument buffer.
    pub arguments: Option<String>,
    /// `execute_indirect`: `ArgumentBufferOffset`.
    pub argument_offset: Option<u64>,
    /// `execute_indirect`: the command signature's `ByteStride` (default: the record's
    /// size).
    pub stride: Option<u64>,
    /// `execute_indirect`: `MaxCommandCount`.
    pub max_command_count: Option<u32>,
    /// `execute_indirect`: the count buffer.
    pub count_buffer: Option<String>,
    /// `execute_indirect`: `CountBufferOffset`.
    pub count_offset: Option<u64>,
    /// Draws: the vertex program.
    pub vs: Option<PathBuf>,
    /// Draws: the pixel program (none: depth and stencil only).
    pub ps: Option<PathBuf>,
    /// Draws: the geometry program.
    pub gs: Option<PathBuf>,
    /// Draws: the hull program (with `ds` and a patch-list `topology`).
    pub hs: Option<PathBuf>,
    /// Draws: the domain program (with `hs`).
    pub ds: Option<PathBuf>,
    /// `dispatch_mesh`: the mesh program.
    pub ms: Option<PathBuf>,
    /// `dispatch_mesh`: the amplification program (optional).
    #[serde(rename = "as")]
    pub amplification: Option<PathBuf>,
    /// `draw`: vertices per instance.
    pub vertex_count: Option<u32>,
    /// `draw_indexed`: indices per instance.
    pub index_count: Option<u32>,
    /// Draws: instances (default 1); a top-level build: `NumDescs`.
    pub instance_count: Option<u32>,
    /// `draw`: `StartVertexLocation`.
    pub start_vertex: Option<u32>,
    /// `draw_indexed`: `StartIndexLocation`.
    pub start_index: Option<u32>,
    /// `draw_indexed`: `BaseVertexLocation`.
    pub base_vertex: Option<i32>,
    /// Draws: `StartInstanceLocation`.
    pub start_instance: Option<u32>,
    /// Draws: `D3D_PRIMITIVE_TOPOLOGY` name (default `triangle_list`).
    pub topology: Option<String>,
    /// Draws: `IASetVertexBuffers`, named buffers by slot.
    pub vertex_buffers: Option<Vec<draw::VertexBufferBinding>>,
    /// Draws: `IASetIndexBuffer`, a named buffer.
    pub index_buffer: Option<draw::IndexBufferBinding>,
    /// Draws: the input layout, as `[[draw.input_element]]`.
    pub input_element: Option<Vec<super::draw::InputElementEntry>>,
    /// Draws: `OMSetRenderTargets`, render-target views of named textures.
    pub render_targets: Option<Vec<draw::TargetView>>,
    /// Draws: the depth-stencil view of a named texture, and the depth-stencil state.
    pub depth_stencil: Option<draw::DepthView>,
    /// Draws: the rasterizer state, as `[draw.rasterizer]`.
    pub rasterizer: Option<super::draw::RasterizerEntry>,
    /// Draws: the blend state per target, as `[[draw.blend]]`.
    pub blend: Option<Vec<super::draw::BlendEntry>>,
    /// Draws: x, y, width, height, min depth, max depth.
    pub viewport: Option<[f32; 6]>,
    /// Draws: left, top, right, bottom.
    pub scissor: Option<[i32; 4]>,
    /// Draws: several viewports (`RSSetViewports`), each as `viewport`.
    pub viewports: Option<Vec<[f32; 6]>>,
    /// Draws: several scissor rectangles (`RSSetScissorRects`), each as `scissor`.
    pub scissors: Option<Vec<[i32; 4]>>,
    /// Draws: `SampleMask`.
    pub sample_mask: Option<u32>,
    /// Draws: `OMSetBlendFactor`.
    pub blend_factor: Option<[f32; 4]>,
    /// Draws: `OMSetStencilRef`.
    pub stencil_ref: Option<u8>,
    /// Draws: `OMSetFrontAndBackStencilRef`, `[front, back]`.
    pub front_and_back_stencil_ref: Option<[u8; 2]>,
    /// Draws: `OMSetDepthBounds(Min, Max)`.
    pub depth_bounds: Option<[f32; 2]>,
    /// Draws: `AlphaToCoverageEnable`.
    pub alpha_to_coverage: Option<bool>,
    /// Draws: `IndependentBlendEnable`.
    pub independent_blend: Option<bool>,
    /// Draws: `IBStripCutValue` enabled.
    pub strip_cut: Option<bool>,
    /// Draws: the view-instancing state, as `[draw] view_instancing`.
    pub view_instancing: Option<super::draw::ViewInstancingEntry>,
    /// Draws: `RSSetShadingRate`'s rate, as `[draw] shading_rate`.
    pub shading_rate: Option<String>,
    /// Draws: `RSSetShadingRate`'s combiners, as `[draw] shading_rate_combiners`.
    pub shading_rate_combiners: Option<[String; 2]>,
    /// Draws: `RSSetShadingRateImage`, `{ resource = "name" }`.
    pub shading_rate_image: Option<super::draw::ShadingRateImageEntry>,
    /// `dispatch_rays`: a DXIL library whose exports the command names (as `[program]
    /// library` in a `[rays]` job).
    pub library: Option<PathBuf>,
    /// `dispatch_rays`: several DXIL libraries.
    pub libraries: Option<Vec<PathBuf>>,
    /// `dispatch_rays`: the launch's width, height and depth (as `[rays] dispatch`).
    pub dispatch: Option<[u32; 3]>,
    /// `dispatch_rays`: the ray-generation export.
    pub raygen: Option<super::schema::TableEntry>,
    /// `dispatch_rays`: the miss table.
    pub miss: Option<Vec<super::schema::TableEntry>>,
    /// `dispatch_rays`: the hit-group table.
    pub hit_groups: Option<Vec<super::schema::HitGroupEntry>>,
    /// `dispatch_rays`: the callable table.
    pub callable: Option<Vec<super::schema::TableEntry>>,
    /// `dispatch_rays`: `MaxTraceRecursionDepth`.
    pub max_recursion_depth: Option<u32>,
    /// `dispatch_rays`: `MaxPayloadSizeInBytes`.
    pub max_payload_size: Option<u32>,
    /// `dispatch_rays`: `MaxAttributeSizeInBytes`.
    pub max_attribute_size: Option<u32>,
    /// `dispatch_rays` with tables in buffers: the pipeline's exports (as `[rays]
    /// exports`).
    pub exports: Option<Vec<super::schema::TableEntry>>,
    /// `dispatch_rays`: `RayGenerationShaderRecord`, `{ buffer, offset, size }` of a
    /// named buffer, read when the command runs.
    pub ray_generation_record: Option<super::schema::TableRange>,
    /// `dispatch_rays`: `MissShaderTable`, `{ buffer, offset, size, stride }`.
    pub miss_table: Option<super::schema::TableRange>,
    /// `dispatch_rays`: `HitGroupTable`.
    pub hit_group_table: Option<super::schema::TableRange>,
    /// `dispatch_rays`: `CallableShaderTable`.
    pub callable_table: Option<super::schema::TableRange>,
    /// `dispatch_rays`: the global root signature declared by the job (as `[rays]
    /// global_root_signature`).
    pub global_root_signature: Option<Vec<super::schema::LocalParameterEntry>>,
    /// `dispatch_rays`: the global root arguments (as `[rays] global`).
    pub global: Option<Vec<super::schema::LocalArgumentEntry>>,
    /// Draws: the stream-output declaration, as `[[draw.stream_output]]`.
    pub stream_output: Option<Vec<super::draw::SoEntry>>,
    /// Draws: `RasterizedStream`, as `[draw] rasterized_stream`.
    pub rasterized_stream: Option<super::draw::RasterizedStream>,
    /// Draws: `SOSetTargets`, stream-output views of named buffers by slot.
    pub stream_output_buffers: Option<Vec<draw::SoBufferBinding>>,
    /// Query commands: the `[[query_heap]]` by name.
    pub heap: Option<String>,
    /// `begin_query`, `end_query`: the query's index in its heap.
    pub index: Option<u32>,
    /// Query commands: the `D3D12_QUERY_TYPE` (`OCCLUSION`, `BINARY_OCCLUSION`,
    /// `PIPELINE_STATISTICS`, `SO_STATISTICS_STREAM0` … `3`, `TIMESTAMP`).
    pub query: Option<String>,
    /// `resolve_query_data`: `StartIndex` (default 0).
    pub first: Option<u32>,
    /// `resolve_query_data`: `NumQueries`.
    pub count: Option<u32>,
    /// `resolve_query_data`: the destination buffer; `set_predication`: the predicate's.
    pub buffer: Option<String>,
    /// `resolve_query_data`, `set_predication`: the byte offset in `buffer` (a multiple
    /// of 8).
    pub offset: Option<u64>,
    /// `set_predication`: `EQUAL_ZERO` or `NOT_EQUAL_ZERO` (`D3D12_PREDICATION_OP`).
    pub operation: Option<String>,
    /// `resolve_subresource`: `ResolveSubresourceRegion`'s `D3D12_RESOLVE_MODE` —
    /// `min`, `max`, `average`, `decompress`, `decode_sampler_feedback` or
    /// `encode_sampler_feedback`; without it, `ResolveSubresource` (the multisample
    /// average of whole subresources).
    pub mode: Option<String>,
    /// `resolve_subresource` of a depth-stencil resource with a multisample `mode`: the
    /// plane resolved, `depth` (the default, plane slice 0) or `stencil`.
    pub plane: Option<String>,
    /// `resolve_subresource`: the method's `Format`, the DXGI format both subresources
    /// are read and written as (needed when either resource is typeless; default the
    /// resources' own format when both are typed).
    pub format: Option<String>,
    /// `draw`: D3D11's `DrawAuto` — the vertex count is the 32-bit filled size at this
    /// named buffer and offset, divided by vertex buffer 0's stride.
    pub draw_auto: Option<draw::DrawAutoEntry>,
    /// `copy_texture_region` from a buffer: the source's
    /// `D3D12_PLACED_SUBRESOURCE_FOOTPRINT`.
    pub src_footprint: Option<footprint::FootprintEntry>,
    /// `copy_texture_region` into a buffer: the destination's footprint.
    pub dst_footprint: Option<footprint::FootprintEntry>,
    /// `build_raytracing_acceleration_structure`: `bottom` or `top`.
    pub level: Option<String>,
    /// `build_raytracing_acceleration_structure`, bottom level: the geometry
    /// descriptions, in `GeometryIndex()` order.
    pub geometry: Option<Vec<accel::BuildGeometryEntry>>,
    /// `build_raytracing_acceleration_structure`, top level: `InstanceDescs`, a named
    /// buffer and offset (`instance_count` is `NumDescs`).
    pub instances: Option<accel::BufferAt>,
    /// `build_raytracing_acceleration_structure`, top level: `DescsLayout`, `array`
    /// (default) or `array_of_pointers`.
    pub instance_layout: Option<String>,
}

/// One binding of a command: a register and a named resource, or constant data.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct BindEntry {
    /// `t0`, `u1`, `b0`, `s0`.
    pub reg: String,
    /// The register space (default 0).
    #[serde(default)]
    pub space: u32,
    /// The named resource bound there, with the view its entry declares.
    pub resource: Option<String>,
    /// Constant data for this command only (a `b` register): 32-bit words.
    pub u32: Option<Vec<u32>>,
    /// Constant data for this command only: floats.
    pub f32: Option<Vec<FloatValue>>,
    /// The programs that see the binding (`D3D12_SHADER_VISIBILITY`; default `all`).
    pub visibility: Option<String>,
}

pub(crate) mod accel;
mod draw;
mod footprint;
mod query;

pub use query::{MAX_QUERIES_PER_HEAP, QueryHeapEntry};

/// A texture subresource: its mip and array slice.
type Subresource = (u32, u32);

/// Everything a command's fields are checked against.
struct Ctx<'a> {
    job: &'a Job,
    bound: &'a BoundJob,
    names: HashMap<&'a str, usize>,
    memory: &'a mut MemoryBudget,
    programs: Vec<ProgramInfo>,
    /// Programs already read and lowered, by file and entry: a list names the same
    /// files in many commands, and lowering is deterministic, so each file is read and
    /// lowered once (1,000 draws of one program pair spent a fifth of their time
    /// lowering the same two files again).
    loaded: HashMap<(std::path::PathBuf, Option<String>), Loaded>,
    /// The fixed state of the last draw, which the next draw shares when its own is
    /// equal: a list's draws mostly repeat their state, and one shared copy stays in
    /// cache from draw to draw where 1,000 copies are each read cold.
    last_fixed: Option<std::sync::Arc<crate::pipeline::FixedState>>,
    warnings: Vec<String>,
    /// The query heaps, and what the commands so far left open and set.
    queries: query::QueryState,
    /// The acceleration structures the commands so far build, by name: whether the
    /// latest build is a top level.
    built_accel: HashMap<String, bool>,
    /// The resources by GPU virtual address, once a build needs them.
    addresses: Option<std::sync::Arc<crate::pipeline::accel_build::Addresses>>,
    /// The job and its resources shared with the commands made when they run.
    shared: Option<(std::sync::Arc<Job>, std::sync::Arc<BoundJob>)>,
}

/// A lowered program with its container kind and shader model, as `load_file` gives it.
type Loaded = (std::sync::Arc<crate::ir::Shader>, String, Option<String>);

/// Where a command's error is: `[[command]] #3 (copy_buffer_region)`.
fn command_name(i: usize, e: &CommandEntry) -> String {
    format!("[[command]] #{} ({})", i + 1, e.kind)
}

/// The keys of a command that are set, besides `type`.
fn present_keys(e: &CommandEntry) -> Vec<&'static str> {
    let mut k = Vec::new();
    macro_rules! has {
        ($($f:ident),*) => { $( if e.$f.is_some() { k.push(stringify!($f)); } )* };
    }
    has!(
        cs,
        entry,
        groups,
        resource,
        mip,
        slice,
        color,
        depth,
        stencil,
        uint,
        float,
        dst,
        src,
        dst_offset,
        src_offset,
        bytes,
        dst_mip,
        dst_slice,
        dst_at,
        src_mip,
        src_slice,
        src_box,
        src_rect,
        plane,
        format,
        signature,
        arguments,
        argument_offset,
        stride,
        max_command_count,
        count_buffer,
        count_offset,
        vs,
        ps,
        gs,
        hs,
        ds,
        ms,
        vertex_count,
        index_count,
        instance_count,
        start_vertex,
        start_index,
        base_vertex,
        start_instance,
        topology,
        vertex_buffers,
        index_buffer,
        input_element,
        render_targets,
        depth_stencil,
        rasterizer,
        blend,
        viewport,
        scissor,
        viewports,
        scissors,
        sample_mask,
        blend_factor,
        stencil_ref,
        front_and_back_stencil_ref,
        depth_bounds,
        alpha_to_coverage,
        independent_blend,
        strip_cut,
        view_instancing,
        shading_rate,
        shading_rate_combiners,
        shading_rate_image,
        library,
        libraries,
        dispatch,
        raygen,
        miss,
        hit_groups,
        callable,
        max_recursion_depth,
        max_payload_size,
        max_attribute_size,
        heap,
        index,
        query,
        first,
        count,
        buffer,
        offset,
        operation,
        draw_auto,
        src_footprint,
        dst_footprint,
        level,
        geometry,
        instances,
        instance_layout,
        exports,
        ray_generation_record,
        miss_table,
        hit_group_table,
        callable_table,
        global_root_signature,
        global
    );
    if e.amplification.is_some() {
        k.push("as");
    }
    if !e.bind.is_empty() {
        k.push("bind");
    }
    k
}

/// The keys each command type takes.
fn keys_of(kind: &str) -> Option<&'static [&'static str]> {
    Some(match kind {
        "dispatch" => &["cs", "entry", "groups", "bind"],
        "dispatch_rays" => &[
            "library",
            "libraries",
            "dispatch",
            "raygen",
            "miss",
            "hit_groups",
            "callable",
            "max_recursion_depth",
            "max_payload_size",
            "max_attribute_size",
            "exports",
            "ray_generation_record",
            "miss_table",
            "hit_group_table",
            "callable_table",
            "global_root_signature",
            "global",
            "bind",
        ],
        "clear_render_target" => &["resource", "mip", "slice", "color"],
        "clear_depth_stencil" => &["resource", "mip", "slice", "depth", "stencil"],
        "clear_unordered_access" => &["resource", "mip", "slice", "uint", "float"],
        "copy_resource" => &["dst", "src"],
        "copy_buffer_region" => &["dst", "src", "dst_offset", "src_offset", "bytes"],
        "copy_texture_region" => &[
            "dst",
            "src",
            "dst_mip",
            "dst_slice",
            "dst_at",
            "src_mip",
            "src_slice",
            "src_box",
            "src_footprint",
            "dst_footprint",
        ],
        "resolve_subresource" => &[
            "dst",
            "dst_slice",
            "src",
            "src_slice",
            "mode",
            "plane",
            "format",
            "dst_mip",
            "src_mip",
            "dst_at",
            "src_rect",
        ],
        "draw" => draw::DRAW_KEYS,
        "draw_indexed" => draw::DRAW_INDEXED_KEYS,
        "dispatch_mesh" => draw::MESH_KEYS,
        "execute_indirect" => draw::INDIRECT_KEYS,
        "begin_query" | "end_query" => &["heap", "index", "query"],
        "resolve_query_data" => &["heap", "query", "first", "count", "buffer", "offset"],
        "set_predication" => &["buffer", "offset", "operation"],
        "build_raytracing_acceleration_structure" => accel::BUILD_KEYS,
        _ => return None,
    })
}

const KINDS: &[&str] = &[
    "dispatch",
    "dispatch_rays",
    "clear_render_target",
    "clear_depth_stencil",
    "clear_unordered_access",
    "copy_resource",
    "copy_buffer_region",
    "copy_texture_region",
    "resolve_subresource",
    "execute_indirect",
    "draw",
    "draw_indexed",
    "dispatch_mesh",
    "begin_query",
    "end_query",
    "resolve_query_data",
    "set_predication",
    "build_raytracing_acceleration_structure",
];

/// The error for field `key` naming `name`, which no `[[resource]]` is named; `known`
/// are the names the job has.
pub(crate) fn no_resource_named(key: &str, name: &str, mut known: Vec<&str>) -> String {
    known.sort_unstable();
    format!(
        "`{key}`: no resource is named \"{name}\" (the job names: {})",
        if known.is_empty() {
            "none".to_string()
        } else {
            known.join(", ")
        }
    )
}

impl Ctx<'_> {
    fn shared(&mut self) -> &(std::sync::Arc<Job>, std::sync::Arc<BoundJob>) {
        self.shared.get_or_insert_with(|| {
            (
                std::sync::Arc::new(self.job.clone()),
                std::sync::Arc::new(self.bound.clone()),
            )
        })
    }

    /// The job, shared with commands made when they run.
    fn shared_job(&mut self) -> std::sync::Arc<Job> {
        self.shared().0.clone()
    }

    /// The list's resources, shared with commands made when they run.
    fn shared_bound(&mut self) -> std::sync::Arc<BoundJob> {
        self.shared().1.clone()
    }

    /// The named resource `name`, for field `key`.
    fn named(&self, key: &str, name: &str) -> Result<&BoundEntry, String> {
        let i = self
            .names
            .get(name)
            .ok_or_else(|| no_resource_named(key, name, self.names.keys().copied().collect()))?;
        self.bound
            .resources
            .get(*i)
            .ok_or_else(|| format!("`{key}`: \"{name}\" is not bound"))
    }

    fn buffer(&self, key: &str, name: &str) -> Result<(&BoundEntry, Memory), String> {
        let e = self.named(key, name)?;
        match &e.storage {
            Storage::Buffer(m) => Ok((e, m.clone())),
            _ => Err(format!("`{key}`: \"{name}\" is not a buffer")),
        }
    }

    fn texture(&self, key: &str, name: &str) -> Result<Texture, String> {
        match &self.named(key, name)?.storage {
            Storage::Texture(t) => Ok(t.clone()),
            _ => Err(format!("`{key}`: \"{name}\" is not a texture")),
        }
    }

    /// The sampler feedback map named `name`, if it is one.
    fn feedback(&self, key: &str, name: &str) -> Result<Option<FeedbackMap>, String> {
        Ok(match &self.named(key, name)?.descriptor {
            Descriptor::Feedback(m) => Some(m.clone()),
            _ => None,
        })
    }

    /// Loads a compute program for a command.
    fn compute_program(&mut self, e: &CommandEntry) -> Result<crate::ir::Shader, String> {
        let Some(p) = &e.cs else {
            return Err(
                "missing `cs` (the compute program's file, relative to the job file)".into(),
            );
        };
        self.program(e, "cs", p, Stage::Compute)
            .map(std::sync::Arc::unwrap_or_clone)
    }

    /// Loads the program at `p` (relative to the job file) for key `key`, which needs a
    /// `stage` program, and lists its file in the summary.
    fn program(
        &mut self,
        e: &CommandEntry,
        key: &str,
        p: &std::path::Path,
        stage: Stage,
    ) -> Result<std::sync::Arc<crate::ir::Shader>, String> {
        let path = self.job.resolve(p);
        let cache_key = (path.clone(), e.entry.clone());
        let (shader, container, shader_model) = match self.loaded.get(&cache_key) {
            Some(loaded) => loaded.clone(),
            None => {
                let (shader, container, model) =
                    load_file(&path, e.entry.as_ref()).map_err(|x| x.to_string())?;
                let loaded = (std::sync::Arc::new(shader), container, model);
                self.loaded.insert(cache_key, loaded.clone());
                loaded
            }
        };
        if shader.stage != stage {
            return Err(format!(
                "`{key}`: {} is a {} program, not a {stage} program",
                path.display(),
                shader.stage
            ));
        }
        self.programs.push(ProgramInfo {
            path: path.display().to_string(),
            container,
            shader_model,
            stage: shader.stage.to_string(),
            entry: shader.entry.clone(),
        });
        Ok(shader)
    }

    /// The command's bindings as a job of their own, checked against `shader`.
    fn bindings(
        &mut self,
        name: &str,
        e: &CommandEntry,
        shader: &crate::ir::Shader,
    ) -> Result<crate::pipeline::Bindings, JobError> {
        let own = self.bound_of(name, e)?;
        let fit = reflect::check(shader, &own)
            .map_err(|x| JobError::entry(name, format!("the bindings: {x}")))?;
        self.warnings
            .extend(fit.warnings.into_iter().map(|w| located(name, w)));
        Ok(fit.bindings)
    }

    /// The command's bindings (`bind`) as a job of their own: each named resource with
    /// the view its entry declares, each piece of constant data a buffer of its own.
    fn bound_of(&mut self, name: &str, e: &CommandEntry) -> Result<BoundJob, JobError> {
        let mut own = BoundJob {
            resources: Vec::new(),
            heap: self.bound.heap.clone(),
            sampler_heap: self.bound.sampler_heap.clone(),
        };
        for (k, b) in e.bind.iter().enumerate() {
            let err = |m: String| JobError::entry(name, format!("`bind` #{}: {m}", k + 1));
            let reg = Register::parse(&b.reg, b.space).ok_or_else(|| {
                err(format!(
                    "`reg` \"{}\" is not a register (t, u, b or s and a number: \"u0\")",
                    b.reg
                ))
            })?;
            let visibility = match &b.visibility {
                None => Visibility::All,
                Some(v) => Visibility::parse(v).map_err(|m| err(format!("`visibility`: {m}")))?,
            };
            if let Some(prev) = own
                .resources
                .iter()
                .position(|p| p.reg == Some(reg) && p.visibility.overlaps(visibility))
            {
                return Err(err(format!(
                    "{reg} is already bound by `bind` #{}{}",
                    prev + 1,
                    Visibility::clash(own.resources[prev].visibility, visibility)
                )));
            }
            let entry = match (&b.resource, &b.u32, &b.f32) {
                (Some(r), None, None) => {
                    let named = self.named("resource", r).map_err(&err)?;
                    if !named.kind.fits_class(reg.class) {
                        return Err(err(format!(
                            "\"{r}\" is a {}, which {reg} cannot hold",
                            named.kind.name()
                        )));
                    }
                    if let Descriptor::AccelerationStructureBuffer(_) = named.descriptor {
                        match self.built_accel.get(r.as_str()) {
                            Some(true) => {}
                            Some(false) => {
                                return Err(err(format!(
                                    "\"{r}\" was last built as a bottom level; a program traces a top-level structure"
                                )));
                            }
                            None => {
                                return Err(err(format!(
                                    "\"{r}\" is built by no earlier build_raytracing_acceleration_structure command"
                                )));
                            }
                        }
                    }
                    if reg.class == ResourceClass::Uav
                        && let EntryKind::TypedBuffer { format } | EntryKind::Texture { format, .. } =
                            named.kind
                    {
                        bind::check_uav_format(format).map_err(&err)?;
                    }
                    BoundEntry {
                        reg: Some(reg),
                        visibility,
                        name: format!("{name} `bind` #{} ({reg} = \"{r}\")", k + 1),
                        ..named.clone()
                    }
                }
                (None, Some(_), None) | (None, None, Some(_)) => {
                    if reg.class != ResourceClass::Cbv {
                        return Err(err(format!(
                            "constant data binds at a `b` register, not {reg}"
                        )));
                    }
                    let bytes: Vec<u8> = match (&b.u32, &b.f32) {
                        (Some(w), _) => w.iter().flat_map(|v| v.to_le_bytes()).collect(),
                        (_, Some(f)) => f.iter().flat_map(|v| v.bits().to_le_bytes()).collect(),
                        _ => Vec::new(),
                    };
                    // Constant buffers are read in 16-byte rows: pad the last one.
                    let size = (bytes.len() as u64).div_ceil(16).max(1) * 16;
                    self.memory.take(name, size)?;
                    let m = Memory::zeroed(size).map_err(|x| err(x.to_string()))?;
                    m.write_bytes(0, &bytes);
                    BoundEntry {
                        at: bind::EntryRef {
                            table: bind::Table::Resource,
                            index: usize::MAX,
                        },
                        visibility,
                        name: format!("{name} `bind` #{} ({reg})", k + 1),
                        reg: Some(reg),
                        kind: EntryKind::ConstantBuffer,
                        null: false,
                        descriptor: Descriptor::ConstantBuffer {
                            memory: m.clone(),
                            offset: 0,
                            size,
                        },
                        storage: Storage::Buffer(m),
                        counter: None,
                        output: None,
                        counter_output: None,
                        subresource_outputs: Vec::new(),
                    }
                }
                _ => {
                    return Err(err(
                        "give exactly one of `resource` (a named resource), `u32` or `f32` (constant data)".into(),
                    ));
                }
            };
            own.resources.push(entry);
        }
        Ok(own)
    }

    /// A copy's or a resolve's source and destination subresources (`src_mip`,
    /// `src_slice`; `dst_mip`, `dst_slice`), each checked as [`Self::subresource`]
    /// checks one, its errors naming the command's keys.
    fn src_dst_subresources(
        e: &CommandEntry,
        src: &Texture,
        dst: &Texture,
    ) -> Result<[Subresource; 2], String> {
        let named = |side: &'static str| {
            move |m: String| {
                m.replace("`mip`", &format!("`{side}_mip`"))
                    .replace("`slice`", &format!("`{side}_slice`"))
            }
        };
        let s = Self::subresource(src, e.src_mip, e.src_slice).map_err(named("src"))?;
        let d = Self::subresource(dst, e.dst_mip, e.dst_slice).map_err(named("dst"))?;
        Ok([s, d])
    }

    /// The subresource (`mip`, `slice`) of `t`, checked.
    fn subresource(
        t: &Texture,
        mip: Option<u32>,
        slice: Option<u32>,
    ) -> Result<(u32, u32), String> {
        let d = t.desc();
        let (mip, slice) = (mip.unwrap_or(0), slice.unwrap_or(0));
        if mip >= d.mips {
            return Err(format!(
                "`mip` {mip}: the resource has {} mip(s) (0 to {})",
                d.mips,
                d.mips.saturating_sub(1)
            ));
        }
        if slice >= d.array_size() {
            return Err(format!(
                "`slice` {slice}: the resource has {} array slice(s) (0 to {})",
                d.array_size(),
                d.array_size().saturating_sub(1)
            ));
        }
        Ok((mip, slice))
    }

    /// Makes command `i`.
    fn command(&mut self, i: usize, e: &CommandEntry) -> Result<Command, JobError> {
        let name = command_name(i, e);
        let err = |m: String| JobError::entry(&name, m);
        let Some(keys) = keys_of(&e.kind) else {
            return Err(err(format!(
                "unknown `type` \"{}\" (known: {})",
                e.kind,
                KINDS.join(", ")
            )));
        };
        if e.kind == "dispatch_mesh" {
            draw::check_mesh_keys(e).map_err(&err)?;
        }
        if let Some(k) = present_keys(e).into_iter().find(|k| !keys.contains(k)) {
            return Err(err(format!("`{k}` does not apply to a {} command", e.kind)));
        }
        let need = |key: &str, v: Option<&String>| -> Result<String, JobError> {
            v.cloned()
                .ok_or_else(|| JobError::entry(&name, format!("missing `{key}`")))
        };
        Ok(match e.kind.as_str() {
            "dispatch" => {
                let groups = e
                    .groups
                    .ok_or_else(|| err("missing `groups` (thread groups in x, y, z)".into()))?;
                if let Some(k) = groups
                    .iter()
                    .position(|g| *g == 0 || *g > MAX_GROUPS_PER_DIMENSION)
                {
                    return Err(err(format!(
                        "`groups` {groups:?}: the {} count must be from 1 to {MAX_GROUPS_PER_DIMENSION}",
                        ["x", "y", "z"][k]
                    )));
                }
                let shader = self.compute_program(e).map_err(&err)?;
                let bindings = self.bindings(&name, e, &shader)?;
                Command::Work(Work::Dispatch(DispatchWork {
                    shader,
                    bindings,
                    groups,
                }))
            }
            "dispatch_rays" => {
                let rs = super::schema::RaysSection {
                    dispatch: e.dispatch,
                    raygen: e.raygen.clone(),
                    miss: e.miss.clone().unwrap_or_default(),
                    hit_groups: e.hit_groups.clone().unwrap_or_default(),
                    callable: e.callable.clone().unwrap_or_default(),
                    max_recursion_depth: e.max_recursion_depth,
                    max_payload_size: e.max_payload_size,
                    max_attribute_size: e.max_attribute_size,
                    exports: e.exports.clone(),
                    ray_generation_record: e.ray_generation_record.clone(),
                    miss_table: e.miss_table.clone(),
                    hit_group_table: e.hit_group_table.clone(),
                    callable_table: e.callable_table.clone(),
                    global_root_signature: e.global_root_signature.clone(),
                    global: e.global.clone(),
                };
                let p = super::rays::read_pipeline(
                    self.job,
                    e.library.as_ref(),
                    e.libraries.as_ref(),
                    &rs,
                )
                .map_err(|w| w.into_job(|_, m| JobError::entry(&name, m)))?;
                let own = self.bound_of(&name, e)?;
                if p.names.is_some() {
                    // Tables in buffers: read when the command runs.
                    self.programs
                        .extend(p.programs.iter().map(|(_, info)| info.clone()));
                    let late = super::rays::TablesInBuffers {
                        pipeline: p,
                        rays: rs,
                        job: self.shared_job(),
                        bound: self.shared_bound(),
                        own,
                        names: self
                            .names
                            .iter()
                            .map(|(k, v)| ((*k).to_string(), *v))
                            .collect(),
                    };
                    late.check_ranges().map_err(&err)?;
                    return Ok(Command::Late(std::sync::Arc::new(late)));
                }
                let (max_recursion_depth, pipeline_flags, dims) =
                    (p.max_recursion_depth, p.pipeline_flags, p.dims);
                let named = |n: &str| self.names.get(n).and_then(|&i| self.bound.resources.get(i));
                let index = |n: &str| self.names.get(n).copied();
                let mut f =
                    super::rays::fit_pipeline(p, &own, &named, &index).map_err(|w| match w {
                        super::rays::Where::At(_, m) => JobError::entry(&name, m),
                        super::rays::Where::Job(x) => {
                            JobError::entry(&name, format!("the bindings: {x}"))
                        }
                    })?;
                let work = f.work(max_recursion_depth, pipeline_flags, dims);
                // One file per fitted program: the debugger finds a command's
                // programs by `Command::program_count`.
                self.programs.extend(f.fitted_infos);
                self.warnings
                    .extend(f.warnings.into_iter().map(|w| located(&name, w)));
                Command::Work(Work::Rays(Box::new(work)))
            }
            "clear_render_target" => {
                let r = need("resource", e.resource.as_ref())?;
                let texture = self.texture("resource", &r).map_err(&err)?;
                let f = texture.desc().format;
                if crate::pipeline::om::target_class(f).is_none() {
                    return Err(err(format!(
                        "`resource`: \"{r}\" has format {f}, which no render target can have"
                    )));
                }
                let (mip, slice) = Self::subresource(&texture, e.mip, e.slice).map_err(&err)?;
                let color = e
                    .color
                    .ok_or_else(|| err("missing `color` (RGBA)".into()))?
                    .map(|c| f32::from_bits(c.bits()));
                Command::ClearRenderTarget {
                    texture,
                    mip,
                    slice,
                    color,
                }
            }
            "clear_depth_stencil" => {
                let r = need("resource", e.resource.as_ref())?;
                let texture = self.texture("resource", &r).map_err(&err)?;
                let f = texture.desc().format;
                if crate::pipeline::om::depth_kind(f).is_none() {
                    return Err(err(format!(
                        "`resource`: \"{r}\" has format {f}, not a depth format"
                    )));
                }
                if e.depth.is_none() && e.stencil.is_none() {
                    return Err(err(
                        "give `depth`, `stencil` or both (D3D12_CLEAR_FLAG_DEPTH / _STENCIL)"
                            .into(),
                    ));
                }
                let (mip, slice) = Self::subresource(&texture, e.mip, e.slice).map_err(&err)?;
                Command::ClearDepthStencil {
                    texture,
                    mip,
                    slice,
                    depth: e.depth.map(|d| f32::from_bits(d.bits())),
                    stencil: e.stencil,
                }
            }
            "clear_unordered_access" => self.clear_uav(e).map_err(&err)?,
            "begin_query" => self.begin_or_end(i, e, true).map_err(&err)?,
            "end_query" => self.begin_or_end(i, e, false).map_err(&err)?,
            "resolve_query_data" => self.resolve_query_data(e).map_err(&err)?,
            "set_predication" => self.set_predication(e).map_err(&err)?,
            "copy_resource" => {
                let (d, s) = (need("dst", e.dst.as_ref())?, need("src", e.src.as_ref())?);
                let (de, se) = (
                    self.named("dst", &d).map_err(&err)?,
                    self.named("src", &s).map_err(&err)?,
                );
                if d == s {
                    return Err(err(
                        "`dst` and `src` are one resource (CopyResource needs two)".into(),
                    ));
                }
                self.feedback_copy(&d, &s).map_err(&err)?;
                let (Some(dm), Some(sm)) = (de.memory(), se.memory()) else {
                    return Err(err("`dst` and `src` need storage".into()));
                };
                match (&de.storage, &se.storage) {
                    (Storage::Texture(dt), Storage::Texture(st)) => {
                        let (a, b) = (dt.desc(), st.desc());
                        if (
                            a.dim,
                            a.width,
                            a.height,
                            a.depth_or_array_size,
                            a.mips,
                            a.samples,
                        ) != (
                            b.dim,
                            b.width,
                            b.height,
                            b.depth_or_array_size,
                            b.mips,
                            b.samples,
                        ) {
                            return Err(err(format!(
                                "CopyResource needs resources of one shape: \"{d}\" is {}×{}×{} with {} mip(s), \"{s}\" {}×{}×{} with {} mip(s)",
                                a.width,
                                a.height,
                                a.depth_or_array_size,
                                a.mips,
                                b.width,
                                b.height,
                                b.depth_or_array_size,
                                b.mips
                            )));
                        }
                        copy_compatible(a.format, b.format).map_err(&err)?;
                    }
                    (Storage::Buffer(_), Storage::Buffer(_)) => {
                        if dm.len() != sm.len() {
                            return Err(err(format!(
                                "CopyResource needs buffers of one size: \"{d}\" has {} bytes, \"{s}\" {}",
                                dm.len(),
                                sm.len()
                            )));
                        }
                    }
                    _ => {
                        return Err(err(
                            "CopyResource copies a buffer to a buffer or a texture to a texture"
                                .into(),
                        ));
                    }
                }
                Command::CopyResource {
                    dst: dm.clone(),
                    src: sm.clone(),
                }
            }
            "copy_buffer_region" => {
                let (d, s) = (need("dst", e.dst.as_ref())?, need("src", e.src.as_ref())?);
                let (_, dst) = self.buffer("dst", &d).map_err(&err)?;
                let (_, src) = self.buffer("src", &s).map_err(&err)?;
                let bytes = e.bytes.ok_or_else(|| err("missing `bytes`".into()))?;
                let (so, dof) = (e.src_offset.unwrap_or(0), e.dst_offset.unwrap_or(0));
                for (key, at, m, n) in [("src_offset", so, &src, &s), ("dst_offset", dof, &dst, &d)]
                {
                    if at.checked_add(bytes).is_none_or(|end| end > m.len()) {
                        return Err(err(format!(
                            "`{key}` {at} + `bytes` {bytes} is past the end of \"{n}\" ({} bytes)",
                            m.len()
                        )));
                    }
                }
                // D3D12 leaves overlapping regions of one buffer undefined: refuse them.
                if d == s && so < dof + bytes && dof < so + bytes {
                    return Err(err(format!(
                        "the source bytes {so}..{} and destination bytes {dof}..{} of \"{d}\" overlap",
                        so + bytes,
                        dof + bytes
                    )));
                }
                Command::CopyBufferRegion {
                    dst,
                    dst_offset: dof,
                    src,
                    src_offset: so,
                    bytes,
                }
            }
            "copy_texture_region" => self.copy_texture_region(e).map_err(&err)?,
            "execute_indirect" => self.execute_indirect(&name, e)?,
            "draw" | "draw_indexed" => {
                let work = self.draw(
                    &name,
                    e,
                    draw::DrawKind::Draw {
                        indexed: e.kind == "draw_indexed",
                        args: true,
                    },
                )?;
                match &e.draw_auto {
                    Some(a) => self.draw_auto(work, a).map_err(&err)?,
                    None => Command::Work(Work::Draw(Box::new(work))),
                }
            }
            "dispatch_mesh" => {
                let groups = e.groups.ok_or_else(|| {
                    err("missing `groups` (DispatchMesh's thread groups in x, y, z)".into())
                })?;
                let who = if e.amplification.is_some() {
                    "`groups` (amplification groups)"
                } else {
                    "`groups` (mesh groups)"
                };
                crate::pipeline::amplification::check_grid(groups, who)
                    .map_err(|x| err(x.to_string()))?;
                let work = self.draw(&name, e, draw::DrawKind::Mesh { groups })?;
                Command::Work(Work::Draw(Box::new(work)))
            }
            "resolve_subresource" => self.resolve(e).map_err(&err)?,
            "build_raytracing_acceleration_structure" => {
                self.build_accel(&name, e).map_err(&err)?
            }
            other => return Err(err(format!("unknown `type` \"{other}\""))),
        })
    }

    fn clear_uav(&self, e: &CommandEntry) -> Result<Command, String> {
        let r = e.resource.as_ref().ok_or("missing `resource`")?;
        let value = match (e.uint, e.float) {
            (Some(u), None) => (u, false),
            (None, Some(f)) => (f.map(|v| v.bits()), true),
            _ => return Err("give exactly one of `uint` or `float` (four values)".into()),
        };
        let entry = self.named("resource", r)?;
        match (&entry.descriptor, &entry.storage) {
            // DirectX-Specs "Sampler Feedback": a map is cleared with
            // ClearUnorderedAccessViewUint, its values ignored, the whole map at once
            // (its view has no mip or slice, and sub-rectangles are ignored).
            (Descriptor::Feedback(map), _) => {
                if value.1 {
                    return Err(format!(
                        "`float`: \"{r}\" is a sampler feedback map, which ClearUnorderedAccessViewUint clears (give `uint`; its values are ignored)"
                    ));
                }
                if e.mip.is_some() || e.slice.is_some() {
                    return Err(format!(
                        "`mip` and `slice`: \"{r}\" is a sampler feedback map, whose view covers the whole map"
                    ));
                }
                Ok(Command::ClearFeedback(map.clone()))
            }
            (_, Storage::Texture(t)) => {
                let (mip, slice) = Self::subresource(t, e.mip, e.slice)?;
                let f = t.desc().format;
                bind::check_uav_format(f).map_err(|m| format!("`resource` \"{r}\": {m}"))?;
                Ok(Command::ClearTexture {
                    texture: t.clone(),
                    mip,
                    slice,
                    value: uav_values(f, value.0, value.1),
                })
            }
            (Descriptor::Buffer { view, .. }, Storage::Buffer(m)) => {
                if e.mip.is_some() || e.slice.is_some() {
                    return Err(format!("`mip` and `slice`: \"{r}\" is a buffer"));
                }
                match entry.kind {
                    EntryKind::TypedBuffer { format } => {
                        let n = u64::from(format.bytes_per_texel());
                        Ok(Command::ClearTypedBuffer {
                            memory: m.clone(),
                            format,
                            first: view.byte_offset() / n,
                            count: view.byte_len() / n,
                            value: uav_values(format, value.0, value.1),
                        })
                    }
                    _ => Ok(Command::ClearBufferWords {
                        memory: m.clone(),
                        first: view.byte_offset() / 4,
                        count: view.byte_len() / 4,
                        value: value.0[0],
                    }),
                }
            }
            _ => Err(format!(
                "`resource`: \"{r}\" is a {}, not a buffer or texture an unordered-access view can clear",
                entry.kind.name()
            )),
        }
    }

    fn copy_texture_region(&self, e: &CommandEntry) -> Result<Command, String> {
        if e.src_footprint.is_some() || e.dst_footprint.is_some() {
            return self.footprint_copy(e);
        }
        let d = e.dst.as_ref().ok_or("missing `dst`")?;
        let s = e.src.as_ref().ok_or("missing `src`")?;
        for (key, n) in [("dst", d), ("src", s)] {
            if self.feedback(key, n)?.is_some() {
                return Err(format!(
                    "`{key}`: \"{n}\" is a sampler feedback map, which CopyTextureRegion does not copy (DirectX-Specs \"Sampler Feedback\": copy_resource copies a map, resolve_subresource transcodes one)"
                ));
            }
        }
        let dst = self.texture("dst", d)?;
        let src = self.texture("src", s)?;
        copy_compatible(dst.desc().format, src.desc().format)?;
        if dst.desc().samples != src.desc().samples {
            return Err(format!(
                "\"{d}\" has {} sample(s) and \"{s}\" {}: a copy keeps samples",
                dst.desc().samples,
                src.desc().samples
            ));
        }
        let [(src_mip, src_slice), (dst_mip, dst_slice)] =
            Self::src_dst_subresources(e, &src, &dst)?;
        let ss = src.desc().mip_size(src_mip);
        let ds = dst.desc().mip_size(dst_mip);
        let b = e.src_box.unwrap_or([0, 0, 0, ss[0], ss[1], ss[2]]);
        let at = e.dst_at.unwrap_or([0; 3]);
        let block = src.desc().format.block_size().max(1);
        for k in 0..3 {
            if b[k] >= b[k + 3] || b[k + 3] > ss[k] {
                return Err(format!(
                    "`src_box` {b:?}: the box must be non-empty and inside mip {src_mip} of \"{s}\" ({}×{}×{})",
                    ss[0], ss[1], ss[2]
                ));
            }
            let n = b[k + 3] - b[k];
            if u64::from(at[k]) + u64::from(n) > u64::from(ds[k]) {
                return Err(format!(
                    "`dst_at` {at:?}: the {}×{}×{} box does not fit mip {dst_mip} of \"{d}\" ({}×{}×{})",
                    b[3] - b[0],
                    b[4] - b[1],
                    b[5] - b[2],
                    ds[0],
                    ds[1],
                    ds[2]
                ));
            }
            if k < 2 && block > 1 && (b[k] % block != 0 || at[k] % block != 0) {
                return Err(format!(
                    "`src_box` / `dst_at`: a block-compressed copy starts on a {block}-texel block"
                ));
            }
        }
        if dst.memory() == src.memory()
            && (src_mip, src_slice) == (dst_mip, dst_slice)
            && (0..3).all(|k| at[k] < b[k + 3] && b[k] < at[k] + (b[k + 3] - b[k]))
        {
            return Err(format!(
                "the source box and the destination region of \"{d}\" overlap"
            ));
        }
        Ok(Command::CopyTextureRegion(Box::new(TextureCopy {
            dst,
            dst_mip,
            dst_slice,
            dst_at: at,
            src,
            src_mip,
            src_slice,
            src_box: b,
        })))
    }

    /// `CopyResource` with a sampler feedback map on either side (DirectX-Specs "Sampler
    /// Feedback", "Copying"): both must be maps, and one resource description — the
    /// kind (its opaque format), the mip region and the paired texture's shape.
    fn feedback_copy(&self, d: &str, s: &str) -> Result<(), String> {
        match (self.feedback("dst", d)?, self.feedback("src", s)?) {
            (None, None) => Ok(()),
            (Some(a), Some(b)) => {
                if (a.kind, a.region, a.paired) != (b.kind, b.region, b.paired) {
                    return Err(format!(
                        "CopyResource needs feedback maps of one description: \"{d}\" is {} with mip region {}×{} paired with a {}×{}×{} texture of {} mip(s), \"{s}\" {} with {}×{} paired with {}×{}×{} of {}",
                        a.kind.name(),
                        a.region[0],
                        a.region[1],
                        a.paired.width,
                        a.paired.height,
                        a.paired.depth_or_array_size,
                        a.paired.mips,
                        b.kind.name(),
                        b.region[0],
                        b.region[1],
                        b.paired.width,
                        b.paired.height,
                        b.paired.depth_or_array_size,
                        b.paired.mips
                    ));
                }
                Ok(())
            }
            (Some(_), None) | (None, Some(_)) => Err(format!(
                "CopyResource copies a sampler feedback map only to another map (\"{d}\" and \"{s}\"); resolve_subresource with `mode` transcodes a map to or from an R8_UINT texture"
            )),
        }
    }

    /// `ResolveSubresourceRegion` with a sampler feedback mode (DirectX-Specs "Sampler
    /// Feedback", "Transcoding", "Compatible transcode resources" and the API section):
    /// decoding reads a map into an `R8_UINT` texture, encoding writes one into a map.
    /// The texture is single-sampled, 2D (or a 2D array) of the map's array size, has the
    /// map's mip count (1 for MinMip, the paired texture's for MipRegionUsed) and at least
    /// its width and height. A non-arrayed MinMip map also transcodes to or from a buffer.
    ///
    /// Without subresource or region keys the whole resource is transcoded (`UINT_MAX`
    /// subresource indices). `src_mip`, `src_slice`, `dst_mip`, `dst_slice` (each 0 when
    /// not given), `src_rect` and `dst_at` transcode one rectangle of one subresource
    /// instead: "one subresource at a time … or the whole", "but not both". Rectangles
    /// are in decoded texels, one per mip region ("the co-ordinate space of the decoded
    /// resource"), so any rectangle inside the subresource is a whole number of regions.
    /// Only MipRegionUsed maps take them: a MinMip map's subresource index is `UINT_MAX`
    /// ("SrcSubresource should be UINT_MAX", "DstSubresource should be UINT_MAX") and
    /// "source rect semantics … are not permitted for MinMip feedback maps".
    fn transcode(&self, e: &CommandEntry, mode: &str, d: &str, s: &str) -> Result<Command, String> {
        let encode = match mode {
            "decode_sampler_feedback" => false,
            "encode_sampler_feedback" => true,
            other => {
                return Err(format!(
                    "`mode` \"{other}\": the modes are \"min\", \"max\", \"average\", \"decompress\", \"decode_sampler_feedback\" and \"encode_sampler_feedback\" (without `mode`, ResolveSubresource's average)"
                ));
            }
        };
        if e.plane.is_some() {
            return Err(
                "`plane`: a sampler feedback transcode has no planes (`plane` is for a depth-stencil resolve)"
                    .into(),
            );
        }
        let ((mk, mn), (tk, tn)) = if encode {
            (("dst", d), ("src", s))
        } else {
            (("src", s), ("dst", d))
        };
        let map = self.feedback(mk, mn)?.ok_or_else(|| {
            format!("`{mk}`: \"{mn}\" is not a sampler feedback map (`mode` \"{mode}\")")
        })?;
        if self.feedback(tk, tn)?.is_some() {
            return Err(format!(
                "`{tk}`: \"{tn}\" is a sampler feedback map; a transcode's other side is an R8_UINT texture or, for a MinMip map, a buffer"
            ));
        }
        let m = *map.map.desc();
        let part_keys: Vec<&str> = [
            ("src_mip", e.src_mip.is_some()),
            ("src_slice", e.src_slice.is_some()),
            ("dst_mip", e.dst_mip.is_some()),
            ("dst_slice", e.dst_slice.is_some()),
            ("src_rect", e.src_rect.is_some()),
            ("dst_at", e.dst_at.is_some()),
        ]
        .into_iter()
        .filter_map(|(k, present)| present.then_some(k))
        .collect();
        if let Storage::Buffer(memory) = &self.named(tk, tn)?.storage {
            return Self::buffer_transcode(&map, memory, encode, (tk, tn), &part_keys);
        }
        if map.kind == FeedbackKind::MinMip && !part_keys.is_empty() {
            return Err(format!(
                "`{}`: \"{mn}\" is a min_mip map, which transcodes whole (DirectX-Specs \"Sampler Feedback\": its subresource index is UINT_MAX, and source rectangles are for mip_region_used maps only)",
                part_keys.join("`, `")
            ));
        }
        let texture = self.texture(tk, tn)?;
        let t = *texture.desc();
        let bad =
            |what: String| format!("`{tk}`: \"{tn}\" {what} (a feedback transcode's texture)");
        if t.format != Format::R8_UINT {
            return Err(bad(format!("has format {}, not R8_UINT", t.format)));
        }
        if !matches!(
            t.dim,
            crate::resources::TextureDim::Tex2D | crate::resources::TextureDim::Tex2DArray
        ) || t.samples != 1
        {
            return Err(bad(format!(
                "is a {} with {} sample(s), not a single-sampled 2D texture",
                t.dim.name(),
                t.samples
            )));
        }
        if t.depth_or_array_size != m.depth_or_array_size {
            return Err(bad(format!(
                "has {} array slice(s), the map {}",
                t.depth_or_array_size, m.depth_or_array_size
            )));
        }
        if t.mips != m.mips {
            return Err(bad(format!(
                "has {} mip(s); a {} map's transcode has {}",
                t.mips,
                map.kind.name(),
                m.mips
            )));
        }
        if t.width < m.width || t.height < m.height {
            return Err(bad(format!(
                "is {}×{}, smaller than the map's {}×{} regions",
                t.width, t.height, m.width, m.height
            )));
        }
        let part = if part_keys.is_empty() {
            None
        } else {
            let (src, dst) = if encode {
                (&texture, &map.map)
            } else {
                (&map.map, &texture)
            };
            Some(Self::transcode_part(e, (src, s), (dst, d))?)
        };
        Ok(Command::TranscodeFeedback(Box::new(Transcode {
            map,
            other: TranscodeTarget::Texture(texture),
            encode,
            part,
        })))
    }

    /// The rectangle of one subresource a feedback transcode moves from `src` to `dst`
    /// (the decoded map's texture on its side), checked: the subresources exist, the
    /// source rectangle is non-empty and inside its subresource, and it fits the
    /// destination subresource at `dst_at`.
    fn transcode_part(
        e: &CommandEntry,
        (src, s): (&Texture, &str),
        (dst, d): (&Texture, &str),
    ) -> Result<TranscodePart, String> {
        let [(src_mip, src_slice), (dst_mip, dst_slice)] = Self::src_dst_subresources(e, src, dst)?;
        let [sw, sh, _] = src.desc().mip_size(src_mip);
        let [dw, dh, _] = dst.desc().mip_size(dst_mip);
        let (r, [x, y]) = region_rect(
            e,
            (s, src_mip, [sw, sh]),
            (d, dst_mip, [dw, dh]),
            " decoded texels",
        )?;
        Ok(TranscodePart {
            src: [src_mip, src_slice],
            dst: [dst_mip, dst_slice],
            src_rect: r,
            dst_at: [x, y],
        })
    }

    /// A MinMip map transcoded to or from a buffer ("Additional semantics for encoding
    /// and decoding MinMip feedback maps"): the map is not arrayed, the whole map moves
    /// (no subresource or region keys), and the buffer holds at least its
    /// `ceil(width / region width) × ceil(height / region height)` bytes. The spec's
    /// size sentence reads "FeedbackWidth * FeedbackHeight", which taken literally (the
    /// paired texture's texels) is a region's area times too large for one byte per
    /// region; dxlane reads it as the decoded map's size, the bytes it moves.
    fn buffer_transcode(
        map: &FeedbackMap,
        memory: &Memory,
        encode: bool,
        (tk, tn): (&str, &str),
        part_keys: &[&str],
    ) -> Result<Command, String> {
        let m = *map.map.desc();
        if map.kind != FeedbackKind::MinMip {
            return Err(format!(
                "`{tk}`: \"{tn}\" is a buffer; only a min_mip map transcodes to or from a buffer (this map is {})",
                map.kind.name()
            ));
        }
        if m.depth_or_array_size != 1 {
            return Err(format!(
                "`{tk}`: \"{tn}\" is a buffer; only a map of one array slice transcodes to or from a buffer (this one has {})",
                m.depth_or_array_size
            ));
        }
        if let Some(k) = part_keys.first() {
            return Err(format!(
                "`{k}`: a min_mip map transcodes to or from a buffer whole (`{tk}` \"{tn}\" is a buffer)"
            ));
        }
        let need = u64::from(m.width) * u64::from(m.height);
        if memory.len() < need {
            return Err(format!(
                "`{tk}`: the buffer \"{tn}\" holds {} byte(s); the map's {}×{} regions need {need}",
                memory.len(),
                m.width,
                m.height
            ));
        }
        Ok(Command::TranscodeFeedback(Box::new(Transcode {
            map: map.clone(),
            other: TranscodeTarget::Buffer(memory.clone()),
            encode,
            part: None,
        })))
    }

    /// `ResolveSubresource` (D3D12's requirements: a multisampled source, a
    /// single-sampled destination of the same size, both read and written in one
    /// format — `format`, checked by [`resolve_format`] — with
    /// `D3D12_FORMAT_SUPPORT1_MULTISAMPLE_RESOLVE`: not integer, not depth).
    fn resolve(&self, e: &CommandEntry) -> Result<Command, String> {
        let d = e.dst.as_ref().ok_or("missing `dst`")?;
        let s = e.src.as_ref().ok_or("missing `src`")?;
        if let Some(mode) = &e.mode {
            if let Some(&(_, m)) = ResolveMode::NAMES
                .iter()
                .find(|(n, _)| n.eq_ignore_ascii_case(mode))
            {
                return self.resolve_region(e, m, d, s);
            }
            // DirectX-Specs "Sampler Feedback": a transcode's `Format` is R8_UINT, the
            // format of the texture on its other side.
            if let Some(f) = e.format.as_deref().filter(|f| *f != "R8_UINT") {
                return Err(format!(
                    "`format` \"{f}\": a sampler feedback transcode is made with DXGI_FORMAT_R8_UINT (give \"R8_UINT\" or leave `format` out)"
                ));
            }
            return self.transcode(e, mode, d, s);
        }
        if let Some(k) = [
            ("dst_mip", e.dst_mip.is_some()),
            ("src_mip", e.src_mip.is_some()),
            ("dst_at", e.dst_at.is_some()),
            ("src_rect", e.src_rect.is_some()),
            ("plane", e.plane.is_some()),
        ]
        .into_iter()
        .find_map(|(k, present)| present.then_some(k))
        {
            return Err(format!(
                "`{k}`: ResolveSubresource (no `mode`) takes `dst_slice` and `src_slice` only; a region, a mip or a plane is ResolveSubresourceRegion's, with `mode` (\"average\", \"min\", \"max\" or \"decompress\")"
            ));
        }
        for (key, n) in [("dst", d), ("src", s)] {
            if self.feedback(key, n)?.is_some() {
                return Err(format!(
                    "`{key}`: \"{n}\" is a sampler feedback map; give `mode` = \"decode_sampler_feedback\" or \"encode_sampler_feedback\""
                ));
            }
        }
        let (dst, src) = self.resolve_pair(e, d, s)?;
        let (a, b) = (*dst.desc(), *src.desc());
        if b.samples < 2 {
            return Err(format!("`src`: \"{s}\" is not multisampled"));
        }
        if a.samples != 1 {
            return Err(format!(
                "`dst`: \"{d}\" has {} samples; a resolve writes a single-sampled texture",
                a.samples
            ));
        }
        if (a.width, a.height) != (b.width, b.height) {
            return Err(format!(
                "\"{d}\" ({} × {}) and \"{s}\" ({} × {}) differ: a resolve needs one size",
                a.width, a.height, b.width, b.height
            ));
        }
        if b.format.is_depth()
            || crate::pipeline::om::target_class(b.format)
                .is_none_or(|c| c == crate::pipeline::om::TargetClass::Integer)
        {
            let key = if e.format.is_some() { "format" } else { "src" };
            return Err(format!(
                "`{key}`: {} cannot be resolved (integer and depth formats have no average)",
                b.format
            ));
        }
        let (_, dst_slice) = Self::subresource(&dst, None, e.dst_slice)
            .map_err(|m| m.replace("`slice`", "`dst_slice`"))?;
        let (_, src_slice) = Self::subresource(&src, None, e.src_slice)
            .map_err(|m| m.replace("`slice`", "`src_slice`"))?;
        Ok(Command::ResolveSubresource {
            dst,
            dst_slice,
            src,
            src_slice,
        })
    }

    /// A resolve's two textures seen in the format the resolve reads and writes them
    /// as: `format` (the method's `Format`) checked against their formats by
    /// [`resolve_format`].
    fn resolve_pair(
        &self,
        e: &CommandEntry,
        d: &str,
        s: &str,
    ) -> Result<(Texture, Texture), String> {
        let dst = self.texture("dst", d)?;
        let src = self.texture("src", s)?;
        let f = resolve_format(
            (s, src.desc().format),
            (d, dst.desc().format),
            e.format.as_deref(),
        )?;
        let cast = |key: &str, n: &str, t: &Texture| {
            t.with_format(f)
                .ok_or_else(|| format!("`{key}`: \"{n}\"'s texels are not {f}'s"))
        };
        Ok((cast("dst", d, &dst)?, cast("src", s, &src)?))
    }

    /// `ResolveSubresourceRegion` with a multisample mode (DirectX-Specs "D3D12
    /// Programmable Sample Positions", "ResolveSubresourceRegion"; the D3D12 reference
    /// for the method and `D3D12_RESOLVE_MODE`). Checked here, each refusal naming its
    /// key: two 2D textures, read and written in the format [`resolve_format`] takes
    /// from them and `format`; MIN, MAX
    /// and AVERAGE from a multisampled source into a single-sampled destination,
    /// DECOMPRESS between two of one sample count, into its own source only in place
    /// ("as long as rect/region match"); the format one the mode takes
    /// (`om::resolve::check_format`); `plane` only for a depth-stencil format, `stencil`
    /// only where it has one; the subresources exist (`src_mip`, `src_slice`,
    /// `dst_mip`, `dst_slice`, 0 when missing); `src_rect` (default the whole source
    /// subresource) non-empty and inside it, and at `dst_at` inside the destination
    /// subresource.
    fn resolve_region(
        &self,
        e: &CommandEntry,
        mode: ResolveMode,
        d: &str,
        s: &str,
    ) -> Result<Command, String> {
        for (key, n) in [("dst", d), ("src", s)] {
            if self.feedback(key, n)?.is_some() {
                return Err(format!(
                    "`{key}`: \"{n}\" is a sampler feedback map, which a multisample `mode` does not resolve (its modes are \"decode_sampler_feedback\" and \"encode_sampler_feedback\")"
                ));
            }
        }
        let (dst, src) = self.resolve_pair(e, d, s)?;
        let (a, b) = (*dst.desc(), *src.desc());
        for (key, n, t) in [("dst", d, &a), ("src", s, &b)] {
            if t.dim.coord_count() != 2 && !t.dim.is_cube() {
                return Err(format!(
                    "`{key}`: \"{n}\" is a {}; a resolve is between 2D textures",
                    t.dim.name()
                ));
            }
        }
        let mode_name = ResolveMode::NAMES
            .iter()
            .find(|(_, m)| *m == mode)
            .map_or("", |(n, _)| n);
        if mode == ResolveMode::Decompress {
            if a.samples != b.samples {
                return Err(format!(
                    "`dst`: \"{d}\" has {} sample(s) and \"{s}\" {}: DECOMPRESS writes a resource of the source's sample count",
                    a.samples, b.samples
                ));
            }
        } else {
            if b.samples < 2 {
                return Err(format!(
                    "`src`: \"{s}\" is not multisampled (`mode` \"{mode_name}\" resolves samples)"
                ));
            }
            if a.samples != 1 {
                return Err(format!(
                    "`dst`: \"{d}\" has {} samples; `mode` \"{mode_name}\" writes a single-sampled texture",
                    a.samples
                ));
            }
        }
        let components = match (e.plane.as_deref(), b.format.is_depth()) {
            (None, false) => 0xf,
            (Some(p), false) => {
                return Err(format!(
                    "`plane` \"{p}\": {} has one plane (`plane` is for depth-stencil formats)",
                    b.format
                ));
            }
            (None | Some("depth"), true) => 0b01,
            (Some("stencil"), true) => {
                if b.format.channels().len() < 2 {
                    return Err(format!(
                        "`plane` \"stencil\": {} has no stencil plane",
                        b.format
                    ));
                }
                0b10
            }
            (Some(p), true) => {
                return Err(format!(
                    "`plane` \"{p}\": the planes are \"depth\" and \"stencil\""
                ));
            }
        };
        crate::pipeline::om::resolve::check_format(b.format, mode, components).map_err(|m| {
            if e.format.is_some() {
                format!("`format`: {m}")
            } else {
                format!("`src`: \"{s}\": {m}")
            }
        })?;
        let [(src_mip, src_slice), (dst_mip, dst_slice)] =
            Self::src_dst_subresources(e, &src, &dst)?;
        let [sw, sh, _] = b.mip_size(src_mip);
        let [dw, dh, _] = a.mip_size(dst_mip);
        let (r, [x, y]) = region_rect(e, (s, src_mip, [sw, sh]), (d, dst_mip, [dw, dh]), "")?;
        if dst.memory() == src.memory()
            && ((src_mip, src_slice) != (dst_mip, dst_slice) || [x, y] != [r[0], r[1]])
        {
            return Err(format!(
                "`dst_at`: \"{d}\" is also the source; a decompress into its own source is done in place (the same subresource, `dst_at` = the rectangle's top-left)"
            ));
        }
        Ok(Command::ResolveRegion(Box::new(RegionResolve {
            dst,
            src,
            region: ResolveRegion {
                mode,
                src: [src_mip, src_slice],
                src_rect: r,
                dst: [dst_mip, dst_slice],
                dst_at: [x, y],
                components,
            },
        })))
    }

    fn execute_indirect(&mut self, name: &str, e: &CommandEntry) -> Result<Command, JobError> {
        let err = |m: String| JobError::entry(name, m);
        let sig = e.signature.as_deref().unwrap_or("dispatch");
        let present = present_keys(e);
        let work = match sig {
            "dispatch" => {
                if let Some(k) = present.iter().find(|k| draw::DRAW_STATE_ONLY.contains(k)) {
                    return Err(err(format!(
                        "`{k}` is a draw's: `signature = \"dispatch\"` runs a compute program"
                    )));
                }
                let shader = self.compute_program(e).map_err(&err)?;
                let bindings = self.bindings(name, e, &shader)?;
                IndirectWork::Dispatch(DispatchWork {
                    shader,
                    bindings,
                    groups: [0; 3],
                })
            }
            "draw" | "draw_indexed" => {
                if e.cs.is_some() {
                    return Err(err(format!(
                        "`cs`: `signature = \"{sig}\"` runs `vs` and `ps`"
                    )));
                }
                if let Some(k) = present.iter().find(|k| matches!(**k, "ms" | "as")) {
                    return Err(err(format!(
                        "`{k}`: `signature = \"{sig}\"` runs a vertex pipeline; mesh and amplification programs run with `signature = \"dispatch_mesh\"`"
                    )));
                }
                let indexed = sig == "draw_indexed";
                let work = Box::new(self.draw(
                    name,
                    e,
                    draw::DrawKind::Draw {
                        indexed,
                        args: false,
                    },
                )?);
                if indexed {
                    IndirectWork::DrawIndexed(work)
                } else {
                    IndirectWork::Draw(work)
                }
            }
            "dispatch_mesh" => {
                if e.cs.is_some() {
                    return Err(err(
                        "`cs`: `signature = \"dispatch_mesh\"` runs `ms` (and `as`) and `ps`"
                            .into(),
                    ));
                }
                draw::check_mesh_keys(e).map_err(&err)?;
                // Each record's groups replace these when it runs.
                let work = self.draw(name, e, draw::DrawKind::Mesh { groups: [0; 3] })?;
                IndirectWork::DispatchMesh(Box::new(work))
            }
            other => {
                return Err(err(format!(
                    "`signature` \"{other}\": one of \"dispatch\" (D3D12_DISPATCH_ARGUMENTS), \"draw\" (D3D12_DRAW_ARGUMENTS), \"draw_indexed\" (D3D12_DRAW_INDEXED_ARGUMENTS) or \"dispatch_mesh\" (D3D12_DISPATCH_MESH_ARGUMENTS)"
                )));
            }
        };
        let size = work.argument_bytes();
        let a = e
            .arguments
            .as_ref()
            .ok_or_else(|| err("missing `arguments` (the argument buffer)".into()))?;
        let (_, arguments) = self.buffer("arguments", a).map_err(&err)?;
        let max = e
            .max_command_count
            .ok_or_else(|| err("missing `max_command_count`".into()))?;
        let stride = e.stride.unwrap_or(size);
        if stride < size || stride % 4 != 0 {
            return Err(err(format!(
                "`stride` {stride}: a record of these arguments takes {size} bytes; the stride is at least that and a multiple of 4"
            )));
        }
        let offset = e.argument_offset.unwrap_or(0);
        if offset % 4 != 0 {
            return Err(err(format!(
                "`argument_offset` {offset}: not a multiple of 4"
            )));
        }
        // The debug layer's rule: the buffer holds `MaxCommandCount` records.
        let need = if max == 0 {
            offset
        } else {
            offset
                .saturating_add(u64::from(max - 1).saturating_mul(stride))
                .saturating_add(size)
        };
        if need > arguments.len() {
            return Err(err(format!(
                "`arguments`: \"{a}\" has {} bytes; {max} record(s) of {size} bytes at a stride of {stride} from byte {offset} need {need}",
                arguments.len()
            )));
        }
        let count = match &e.count_buffer {
            Some(c) => {
                let (_, m) = self.buffer("count_buffer", c).map_err(&err)?;
                let at = e.count_offset.unwrap_or(0);
                if at % 4 != 0 || at.saturating_add(4) > m.len() {
                    return Err(err(format!(
                        "`count_offset` {at}: the count is a 32-bit word inside \"{c}\" ({} bytes), at a multiple of 4",
                        m.len()
                    )));
                }
                Some((m, at))
            }
            None => {
                if e.count_offset.is_some() {
                    return Err(err("`count_offset` needs `count_buffer`".into()));
                }
                None
            }
        };
        Ok(Command::ExecuteIndirect(Box::new(Indirect {
            work,
            arguments,
            offset,
            stride,
            max_count: max,
            count,
        })))
    }
}

/// A UAV clear's four values for `format`: `ClearUnorderedAccessViewUint` writes the
/// integers (into a float or normalized format: their bits), `…Float` the floats (into
/// an integer format: converted to integers, D3D12's rule for float clears of integer
/// views).
fn uav_values(format: Format, v: [u32; 4], float: bool) -> [u32; 4] {
    let integer = matches!(
        format.channel_type(),
        crate::resources::ChannelType::UInt | crate::resources::ChannelType::SInt
    );
    if float && integer {
        let signed = format.channel_type() == crate::resources::ChannelType::SInt;
        v.map(|b| {
            let f = f32::from_bits(b);
            if signed { f as i32 as u32 } else { f as u32 }
        })
    } else {
        v
    }
}

/// The typeless group of `f` by DXGI's naming (`R8G8B8A8_UNORM_SRGB` → `R8G8B8A8`), with
/// the depth formats in the group of the colour formats they share bits with
/// (`D32_FLOAT` → `R32`, as `R32_TYPELESS` holds both).
fn type_group(f: Format) -> &'static str {
    let n = f.name();
    match n {
        "D32_FLOAT" => "R32",
        "D16_UNORM" => "R16",
        "D24_UNORM_S8_UINT" | "R24_UNORM_X8_TYPELESS" | "X24_TYPELESS_G8_UINT" => "R24G8",
        "D32_FLOAT_S8X24_UINT" | "R32_FLOAT_X8X24_TYPELESS" | "X32_TYPELESS_G8X24_UINT" => {
            "R32G8X24"
        }
        _ => n.split('_').next().unwrap_or(n),
    }
}

/// Whether a copy may go between `a` and `b`: D3D12's `CopyResource` and
/// `CopyTextureRegion` need "identical formats or at least from the same type group"
/// (the formats one typeless format can be cast to).
fn copy_compatible(a: Format, b: Format) -> Result<(), String> {
    if a == b || (type_group(a) == type_group(b) && a.bytes_per_texel() == b.bytes_per_texel()) {
        Ok(())
    } else {
        Err(format!(
            "formats {a} and {b} are not copy-compatible (a copy needs one format, or two of one typeless group)"
        ))
    }
}

/// The format a resolve reads and writes both subresources as, from the resources'
/// formats and the command's `format` (the method's `Format`). The D3D12 reference for
/// `ID3D12GraphicsCommandList::ResolveSubresource` (Remarks; `ResolveSubresourceRegion`
/// takes the same parameter) allows three cases: two typed resources of one format,
/// `Format` that format; one typed and one typeless resource of the typed one's group,
/// `Format` the typed one's format; two typeless resources of one typeless format,
/// `Format` any typed format of its group. A typeless resource therefore needs
/// `format`; without it two typed resources resolve as their own (one) format.
fn resolve_format(
    (s, src): (&str, Format),
    (d, dst): (&str, Format),
    format: Option<&str>,
) -> Result<Format, String> {
    use crate::resources::ChannelType;
    let typeless = |f: Format| f.channel_type() == ChannelType::Typeless;
    let same_group = |a: Format, b: Format| {
        type_group(a) == type_group(b) && a.bytes_per_texel() == b.bytes_per_texel()
    };
    let Some(name) = format else {
        if let Some((n, f)) = [(s, src), (d, dst)].into_iter().find(|(_, f)| typeless(*f)) {
            return Err(format!(
                "missing `format`: \"{n}\" is {f}, and a typeless resource is resolved as the typed format `format` names (one of its group)"
            ));
        }
        if src != dst {
            return Err(format!(
                "\"{d}\" is {dst} and \"{s}\" {src}: a resolve reads and writes one format"
            ));
        }
        return Ok(src);
    };
    let f =
        Format::from_name(name).ok_or_else(|| format!("`format`: unknown format \"{name}\""))?;
    if typeless(f) {
        return Err(format!(
            "`format`: {f} is typeless; a resolve reads and writes a typed format"
        ));
    }
    match (typeless(src), typeless(dst)) {
        (false, false) => {
            if src != dst {
                return Err(format!(
                    "`format`: \"{d}\" is {dst} and \"{s}\" {src}; two typed resources are resolved only when they have one format"
                ));
            }
            if f != src {
                return Err(format!(
                    "`format`: {f} is not {src}; two typed resources are resolved as their own format"
                ));
            }
        }
        (true, true) => {
            if src != dst {
                return Err(format!(
                    "`format`: \"{d}\" is {dst} and \"{s}\" {src}; two typeless resources are resolved only when they have one typeless format"
                ));
            }
            if !same_group(f, src) {
                return Err(format!(
                    "`format`: {f} is not of {src}'s group (a typeless resource is resolved as a typed format of its group)"
                ));
            }
        }
        (src_typeless, _) => {
            let ((tn, t), (un, u)) = if src_typeless {
                ((d, dst), (s, src))
            } else {
                ((s, src), (d, dst))
            };
            if !same_group(t, u) {
                let key = if src_typeless { "dst" } else { "src" };
                return Err(format!(
                    "`{key}`: \"{tn}\" is {t}, which is not of the group of \"{un}\" ({u})"
                ));
            }
            if f != t {
                return Err(format!(
                    "`format`: {f} is not {t}; with one typed resource (\"{tn}\") the resolve is made in its format"
                ));
            }
        }
    }
    Ok(f)
}

/// Reads, checks and binds a command-list job (see the module doc).
pub(crate) fn prepare_list(job: Job, opts: &RunOptions<'_>) -> Result<Prepared, JobError> {
    let section = |section: &'static str, m: &str| JobError::Section {
        section,
        message: m.into(),
    };
    if job.file.dispatch.is_some() {
        return Err(section(
            "[dispatch]",
            "a job has `[dispatch]`, `[draw]` or a [[command]] list; make the dispatch a `type = \"dispatch\"` command",
        ));
    }
    if job.file.draw.is_some() {
        return Err(section(
            "[draw]",
            "a job has `[dispatch]`, `[draw]` or a [[command]] list, not both",
        ));
    }
    let p = &job.file.program;
    if p.cs.is_some() || p.vs.is_some() || p.ps.is_some() || p.entry.is_some() {
        return Err(section(
            "[program]",
            "a command list names each command's programs in the command (`cs = …`)",
        ));
    }
    if job.file.commands.len() > MAX_COMMANDS {
        return Err(section(
            "[[command]]",
            &format!(
                "{} commands: a list holds at most {MAX_COMMANDS}",
                job.file.commands.len()
            ),
        ));
    }
    let mut plan = resolve_plan(&job, opts)?;
    let resource_limit = job
        .file
        .options
        .max_memory
        .unwrap_or(bind::DEFAULT_MAX_RESOURCE_BYTES);
    let mut bound = bind::bind_job(&job.file, &job.dir, resource_limit)?;
    let mut names = HashMap::new();
    for (i, (e, b)) in job.file.resources.iter().zip(&bound.resources).enumerate() {
        let Some(n) = &e.name else {
            return Err(JobError::entry(
                &b.name,
                "in a command list every [[resource]] has a `name`, by which commands bind it",
            ));
        };
        if e.reg.is_some() {
            return Err(JobError::entry(
                &b.name,
                "`reg`: a command list's resources are bound by its commands (`bind = [{ reg = \"u0\", resource = \"…\" }]`)",
            ));
        }
        if let Some(prev) = names.insert(n.as_str(), i) {
            return Err(JobError::entry(
                &b.name,
                format!(
                    "`name` \"{n}\" is also the name of [[resource]] #{}",
                    prev + 1
                ),
            ));
        }
    }
    let gate = output_gate(&job, opts);
    place_outputs(&mut bound, &gate)?;
    let mut memory = resource_memory(&bound, resource_limit)?;
    check_outputs(&bound)?;
    let expects = check_expects(&job, &bound, None)?;
    let mut ctx = Ctx {
        job: &job,
        bound: &bound,
        names,
        memory: &mut memory,
        programs: Vec::new(),
        loaded: HashMap::new(),
        last_fixed: None,
        warnings: Vec::new(),
        queries: query::heaps(&job.file.query_heaps)?,
        built_accel: HashMap::new(),
        addresses: None,
        shared: None,
    };
    let mut commands = Vec::with_capacity(job.file.commands.len());
    for (i, e) in job.file.commands.iter().enumerate() {
        let c = ctx.command(i, e)?;
        commands.push(ctx.gate(c));
    }
    ctx.check_queries_ended()?;
    let Ctx {
        programs, warnings, ..
    } = ctx;
    plan.limits.max_memory_bytes = plan.limits.max_memory_bytes.min(memory.left());
    let summary = summary_place(&job, opts, &gate)?;
    Ok(Prepared {
        work: Work::List(commands),
        plan,
        programs,
        bound,
        targets: Vec::new(),
        depth: None,
        so_buffers: Vec::new(),
        draw_queries: Vec::new(),
        warnings,
        expects,
        gate,
        memory,
        summary,
        job,
    })
}

/// A command's warning, led by the command's name unless it already is (a warning about
/// one of its `bind` entries names the entry, and the entry's label names the command).
fn located(name: &str, warning: String) -> String {
    if warning.starts_with(name) {
        warning
    } else {
        format!("{name}: {warning}")
    }
}

/// A `ResolveSubresourceRegion`'s source rectangle (`src_rect`, default the whole source
/// mip) and destination corner (`dst_at`, `[x, y, 0]`), checked to lie inside the source
/// mip `(name, mip, [width, height])` and the destination mip; `unit` follows the sizes
/// in messages.
fn region_rect(
    e: &CommandEntry,
    (s, src_mip, [sw, sh]): (&str, u32, [u32; 2]),
    (d, dst_mip, [dw, dh]): (&str, u32, [u32; 2]),
    unit: &str,
) -> Result<([u32; 4], [u32; 2]), String> {
    let r = e.src_rect.unwrap_or([0, 0, sw, sh]);
    if r[0] >= r[2] || r[1] >= r[3] || r[2] > sw || r[3] > sh {
        return Err(format!(
            "`src_rect` {r:?}: the rectangle [left, top, right, bottom] must be non-empty and inside mip {src_mip} of \"{s}\" ({sw}×{sh}{unit})"
        ));
    }
    let [x, y, z] = e.dst_at.unwrap_or([0; 3]);
    if z != 0 {
        return Err(format!(
            "`dst_at` [{x}, {y}, {z}]: ResolveSubresourceRegion has DstX and DstY only (give z = 0)"
        ));
    }
    let (w, h) = (r[2] - r[0], r[3] - r[1]);
    if u64::from(x) + u64::from(w) > u64::from(dw) || u64::from(y) + u64::from(h) > u64::from(dh) {
        return Err(format!(
            "`dst_at` [{x}, {y}, 0]: the {w}×{h} rectangle does not fit mip {dst_mip} of \"{d}\" ({dw}×{dh}{unit})"
        ));
    }
    Ok((r, [x, y]))
}
