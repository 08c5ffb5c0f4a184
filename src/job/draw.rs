//! `[draw]`: the job file's draw section, and its mapping onto the pipeline's own state
//! types (`pipeline::state`: input layout, rasterizer, blend and depth-stencil
//! descriptions, viewport, scissor).
//!
//! Owns: the serde types of `[draw]` and all its tables (`[[draw.render_target]]` and
//! `[draw.depth_stencil]` included), the D3D12 names in them, and checking every name
//! and number, each error naming the key (`[draw.rasterizer] cull`,
//! `[[draw.input_element]] #2 format`). Does not own: making the render targets and the
//! depth-stencil buffer (`targets`), or running the draw (`draw_run`).
//!
//! # The contract (DESIGN's "Job file", extended)
//!
//! ```toml
//! [draw]
//! topology = "triangle_list"      # D3D_PRIMITIVE_TOPOLOGY names, lower case
//! vertex_count = 3                # or index_count with [draw.index_buffer]
//! instance_count = 1
//! start_vertex = 0                # StartVertexLocation (start_index for indexed draws)
//! base_vertex = 0                 # BaseVertexLocation (indexed draws)
//! start_instance = 0
//! viewport = [0, 0, 32, 32, 0, 1] # x, y, width, height, min depth, max depth
//! scissor = [0, 0, 32, 32]        # left, top, right, bottom (default: the whole target)
//! # or several, chosen per primitive by SV_ViewportArrayIndex (up to 16; scissor i goes
//! # with viewport i, one per viewport when given):
//! # viewports = [[0, 0, 16, 32, 0, 1], [16, 0, 16, 32, 0, 1]]
//! # scissors = [[0, 0, 16, 32], [16, 0, 32, 16]]
//! sample_mask = 0xffffffff
//! blend_factor = [1, 1, 1, 1]
//! stencil_ref = 0                 # OMSetStencilRef: both faces
//! # front_and_back_stencil_ref = [1, 2]  # OMSetFrontAndBackStencilRef instead: front, back
//! depth_bounds = [0, 1]           # OMSetDepthBounds(min, max), for depth_bounds_test
//! alpha_to_coverage = false
//! independent_blend = false       # false: [[draw.blend]] #1 applies to every target
//! strip_cut = false               # 0xffff / 0xffffffff restart strips
//! dispatch_mesh = [1, 1, 1]       # a mesh draw instead: DispatchMesh's thread groups, with
//!                                 # [program] ms (and as); no input-assembler keys then
//!
//! [[draw.vertex_buffer]]          # slot, stride, offset (bytes skipped), data
//! [[draw.input_element]]          # semantic, index, format, slot, offset ("append"), instance_step
//! [draw.index_buffer]             # format (R16_UINT | R32_UINT), offset, data
//! [[draw.render_target]]          # below
//! [draw.depth_stencil]            # below
//! [draw.rasterizer]               # fill, cull, front_ccw, depth_bias, depth_bias_clamp,
//!                                 # slope_scaled_depth_bias, depth_clip, multisample,
//!                                 # antialiased_line, line_rasterization (DESC2 mode)
//! [[draw.blend]]                  # enable, logic_op_enable, src, dest, op, src_alpha,
//!                                 # dest_alpha, op_alpha, logic_op, write_mask (0–15 or "rgba")
//! [[draw.stream_output]]         # stream, semantic, index, start_component,
//!                                 # component_count, slot (D3D12_SO_DECLARATION_ENTRY)
//! rasterized_stream = 0           # (in [draw]) 0 … 3 or "none"
//! [[draw.stream_output_buffer]]   # slot, stride, size, offset, filled_size, fill_u32,
//!                                 # output: a buffer the job makes, per slot
//! # view instancing (in [draw]): ViewInstanceCount, one D3D12_VIEW_INSTANCE_LOCATION per
//! # view, and the view instance mask (absent: every view; present: masking on)
//! # view_instancing = { count = 2, locations = [{ viewport = 0, render_target_slice = 0 },
//! #                     { viewport = 1, render_target_slice = 1 }], mask = 0b11 }
//! # variable-rate shading (in [draw]): RSSetShadingRate and RSSetShadingRateImage
//! # shading_rate = "2X2"            # 1X1 1X2 2X1 2X2 2X4 4X2 4X4
//! # shading_rate_combiners = ["PASSTHROUGH", "OVERRIDE"]   # PASSTHROUGH OVERRIDE MIN MAX SUM
//! # shading_rate_image = { width = 2, height = 2, rates = ["1X1", "2X2", "4X4", "2X1"] }
//! #                                 # one R8_UINT texel per 16×16 pixels; or data = { hex = … }
//! [[draw.query]]                  # query (OCCLUSION, BINARY_OCCLUSION, PIPELINE_STATISTICS,
//!                                 # SO_STATISTICS_STREAMn), output: begun before the draw,
//!                                 # ended after it, resolved (`job::draw_run`)
//! ```
//!
//! Render targets and the depth-stencil buffer (made by `targets`):
//!
//! ```toml
//! [[draw.render_target]]
//! format = "R8G8B8A8_UNORM"       # a render-target format (UNORM, SNORM, sRGB, float, UINT, SINT)
//! width = 32
//! height = 32
//! samples = 1                     # 1, 2, 4, 8 or 16 (the standard sample patterns)
//! clear = [0, 0, 0, 1]            # the value every sample starts with (the format's own
//!                                 # numbers: floats for float-like formats, integers for UINT/SINT)
//! data = { file = "start.bin" }   # or initial texels instead of `clear` (all samples, tightly packed)
//! output = "out/rt0.png"          # .png for 8-bit UNORM/sRGB formats (a multisampled target
//!                                 # is resolved first), .bin for any (every sample)
//! resolve_output = "out/rt0.resolved.bin"  # multisampled targets: the resolved image
//!
//! [draw.depth_stencil]
//! format = "D32_FLOAT"            # D16_UNORM | D24_UNORM_S8_UINT | D32_FLOAT | D32_FLOAT_S8X24_UINT
//! clear_depth = 1.0
//! clear_stencil = 0
//! data = { file = "depth.bin" }   # or starting contents instead of the two clears
//! output = "out/depth.bin"        # the buffer's texels as the format stores them
//!                                 # and the D3D12_DEPTH_STENCIL_DESC keys:
//!                                 # depth_enable, depth_func, depth_write, stencil_enable,
//!                                 # stencil_read_mask, stencil_write_mask (both faces),
//!                                 # front = { fail, depth_fail, pass, func, read_mask,
//!                                 #           write_mask }, back = { … }
//!                                 # (a face's read_mask / write_mask: its own masks,
//!                                 # D3D12_DEPTH_STENCILOP_DESC1; default the shared ones),
//!                                 # depth_bounds_test (DepthBoundsTestEnable)
//! ```
//!
//! The depth-stencil buffer takes the render targets' size and sample count (or gives
//! `width`, `height`, `samples` itself when the draw has no render target).
//!
//! Names are D3D12's without their prefixes, in any case (`SRC_ALPHA`, `LESS_EQUAL`,
//! `INCR_SAT`, `BACK`). Every key is optional and defaults to D3D12's default state.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

use super::JobError;
use super::schema::DataSpec;
use crate::pipeline::om;
use crate::pipeline::state::*;
use crate::resources::{ComparisonFunc, Format};

/// `[draw]`.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct DrawSection {
    /// `D3D_PRIMITIVE_TOPOLOGY` name (default `triangle_list`).
    pub topology: Option<String>,
    /// Vertices per instance (non-indexed draws).
    pub vertex_count: Option<u32>,
    /// A mesh draw: `DispatchMesh(x, y, z)` thread groups of the amplification program
    /// (`[program] as`) when there is one, else of the mesh program (`[program] ms`).
    pub dispatch_mesh: Option<[u32; 3]>,
    /// Indices per instance (indexed draws).
    pub index_count: Option<u32>,
    /// Instances (default 1).
    pub instance_count: Option<u32>,
    /// `StartVertexLocation`.
    pub start_vertex: Option<u32>,
    /// `StartIndexLocation`.
    pub start_index: Option<u32>,
    /// `BaseVertexLocation`.
    pub base_vertex: Option<i32>,
    /// `StartInstanceLocation`.
    pub start_instance: Option<u32>,
    /// x, y, width, height, min depth, max depth.
    pub viewport: Option<[f32; 6]>,
    /// left, top, right, bottom.
    pub scissor: Option<[i32; 4]>,
    /// Several viewports (`RSSetViewports`, up to 16), each as `viewport`;
    /// `SV_ViewportArrayIndex` picks one per primitive. Not with `viewport`.
    pub viewports: Option<Vec<[f32; 6]>>,
    /// Several scissor rectangles (`RSSetScissorRects`), each as `scissor`; rectangle
    /// `i` goes with viewport `i`. Not with `scissor`.
    pub scissors: Option<Vec<[i32; 4]>>,
    /// `SampleMask`.
    pub sample_mask: Option<u32>,
    /// `OMSetBlendFactor`.
    pub blend_factor: Option<[f32; 4]>,
    /// `OMSetStencilRef`.
    pub stencil_ref: Option<u8>,
    /// `OMSetFrontAndBackStencilRef`: the front and back faces' references. Not with
    /// `stencil_ref`.
    pub front_and_back_stencil_ref: Option<[u8; 2]>,
    /// `OMSetDepthBounds(Min, Max)` (default `[0, 1]`; a NaN is 0, as the runtime makes
    /// it).
    pub depth_bounds: Option<[f32; 2]>,
    /// `AlphaToCoverageEnable`.
    pub alpha_to_coverage: Option<bool>,
    /// `IndependentBlendEnable`.
    pub independent_blend: Option<bool>,
    /// `IBStripCutValue` enabled.
    pub strip_cut: Option<bool>,
    /// `[[draw.render_target]]`.
    #[serde(default)]
    pub render_target: Vec<RenderTargetEntry>,
    /// `[[draw.vertex_buffer]]`.
    #[serde(default)]
    pub vertex_buffer: Vec<VertexBufferEntry>,
    /// `[[draw.input_element]]`.
    #[serde(default)]
    pub input_element: Vec<InputElementEntry>,
    /// `[draw.index_buffer]`.
    pub index_buffer: Option<IndexBufferEntry>,
    /// `[draw.depth_stencil]`.
    pub depth_stencil: Option<DepthStencilEntry>,
    /// `[draw.rasterizer]`.
    pub rasterizer: Option<RasterizerEntry>,
    /// `[[draw.blend]]`, one per render target.
    #[serde(default)]
    pub blend: Vec<BlendEntry>,
    /// `[[draw.stream_output]]`: the stream-output declaration, in order
    /// (`D3D12_SO_DECLARATION_ENTRY`s).
    #[serde(default)]
    pub stream_output: Vec<SoEntry>,
    /// `RasterizedStream`: 0 … 3, or `"none"` (`D3D12_SO_NO_RASTERIZED_STREAM`); default 0.
    pub rasterized_stream: Option<RasterizedStream>,
    /// `[[draw.stream_output_buffer]]`: the stream-output buffers (`SOSetTargets`), each
    /// made by the job for its slot, since a single-draw job has no named resources.
    #[serde(default)]
    pub stream_output_buffer: Vec<SoBufferEntry>,
    /// `view_instancing = { count, locations, mask }`: the pipeline state's
    /// `D3D12_VIEW_INSTANCING_DESC` and the command list's view instance mask.
    pub view_instancing: Option<ViewInstancingEntry>,
    /// `RSSetShadingRate`'s base rate: `1X1`, `1X2`, `2X1`, `2X2`, `2X4`, `4X2` or
    /// `4X4` (default 1X1; `pipeline::vrs`).
    pub shading_rate: Option<String>,
    /// `RSSetShadingRate`'s two combiners: `PASSTHROUGH`, `OVERRIDE`, `MIN`, `MAX`,
    /// `SUM` (default both `PASSTHROUGH`).
    pub shading_rate_combiners: Option<[String; 2]>,
    /// `RSSetShadingRateImage`: the screen-space rate image (R8_UINT, one texel per
    /// 16×16 pixels).
    pub shading_rate_image: Option<ShadingRateImageEntry>,
    /// `[[draw.query]]`: queries begun just before the draw and ended just after it,
    /// each resolved after the draw (`job::draw_run`).
    #[serde(default)]
    pub query: Vec<DrawQueryEntry>,
}

/// One `[[draw.query]]`: a query around a single draw, as a list's `begin_query`
/// before it, `end_query` after it and `resolve_query_data` of that one query.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct DrawQueryEntry {
    /// `D3D12_QUERY_TYPE`: `OCCLUSION`, `BINARY_OCCLUSION`, `PIPELINE_STATISTICS` or
    /// `SO_STATISTICS_STREAM0` … `3` (the list's `query` key).
    pub query: String,
    /// Where `ResolveQueryData`'s bytes for it are written (placed through the output
    /// gate).
    pub output: Option<PathBuf>,
}

/// `shading_rate_image`: in a single-draw job, an R8_UINT texture the job makes,
/// `{ width, height, rates = ["2X2", …] }` (row-major rate names) or
/// `{ width, height, data = { hex = "05 00 …" } }` (the bytes); in a command list's
/// draw, `{ resource = "name" }`, a named resource.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ShadingRateImageEntry {
    /// A named resource (command lists).
    pub resource: Option<String>,
    /// Texels across (single-draw jobs).
    pub width: Option<u32>,
    /// Texels down (single-draw jobs).
    pub height: Option<u32>,
    /// Each texel's rate by name, row-major (single-draw jobs).
    pub rates: Option<Vec<String>>,
    /// The texels' bytes (single-draw jobs; unlisted bytes are 0, 1X1).
    pub data: Option<DataSpec>,
}

/// `shading_rate` and `shading_rate_combiners`, with the image the caller gives
/// (`image`), as the pipeline's state; each error names the key and the value.
pub fn shading_rate(
    d: &DrawSection,
    image: Option<crate::resources::Texture>,
) -> Result<crate::pipeline::vrs::ShadingRateState, JobError> {
    use crate::pipeline::vrs::{Combiner, ShadingRate, ShadingRateState};
    let rate = match &d.shading_rate {
        None => ShadingRate::X1X1,
        Some(n) => ShadingRate::from_name(n).ok_or_else(|| {
            draw_err(
                "[draw]",
                format!(
                    "`shading_rate` = \"{n}\": not a D3D12_SHADING_RATE (1X1, 1X2, 2X1, 2X2, 2X4, 4X2, 4X4)"
                ),
            )
        })?,
    };
    let mut combiners = [Combiner::Passthrough; 2];
    if let Some(names) = &d.shading_rate_combiners {
        for (i, (c, n)) in combiners.iter_mut().zip(names).enumerate() {
            *c = Combiner::from_name(n).ok_or_else(|| {
                draw_err(
                    "[draw]",
                    format!(
                        "`shading_rate_combiners` #{} = \"{n}\": not a D3D12_SHADING_RATE_COMBINER (PASSTHROUGH, OVERRIDE, MIN, MAX, SUM)",
                        i + 1
                    ),
                )
            })?;
        }
    }
    Ok(ShadingRateState {
        rate,
        combiners,
        image,
    })
}

/// The rate image a single-draw job's `shading_rate_image` makes (see
/// [`ShadingRateImageEntry`]), `None` without one; `job_dir` is where a `data` file
/// lies.
pub fn shading_rate_image(
    d: &DrawSection,
    job_dir: &std::path::Path,
) -> Result<Option<crate::resources::Texture>, JobError> {
    use crate::pipeline::vrs::ShadingRate;
    use crate::resources::{Texture, TextureDesc};
    let Some(e) = &d.shading_rate_image else {
        return Ok(None);
    };
    let key = |k: &str, m: String| draw_err("[draw]", format!("`shading_rate_image.{k}`: {m}"));
    if let Some(r) = &e.resource {
        return Err(key(
            "resource",
            format!(
                "\"{r}\": a single-draw job has no named resources; give `width`, `height` and `rates` or `data`"
            ),
        ));
    }
    let (Some(w), Some(h)) = (e.width, e.height) else {
        return Err(key(
            "width",
            "give the image's `width` and `height` in texels".into(),
        ));
    };
    // The tiles of the largest target (16384 pixels each way) need no more.
    let most = crate::resources::texture::MAX_TEXTURE_DIMENSION / crate::pipeline::vrs::TILE_SIZE;
    if w == 0 || h == 0 || w > most || h > most {
        return Err(key(
            "width",
            format!(
                "{w} × {h} texels: 1 to {most} each way (one texel per 16×16 pixels of a target of at most 16384)"
            ),
        ));
    }
    let desc = TextureDesc::tex2d(Format::R8_UINT, w, h);
    desc.validate()
        .map_err(|x| key("width", format!("{w} × {h}: {x}")))?;
    let n = (w as usize) * (h as usize);
    let bytes = match (&e.rates, &e.data) {
        (Some(names), None) => {
            if names.len() > n {
                return Err(key(
                    "rates",
                    format!("{} rates for {w} × {h} texels", names.len()),
                ));
            }
            let mut b = Vec::with_capacity(names.len());
            for (i, name) in names.iter().enumerate() {
                let r = ShadingRate::from_name(name).ok_or_else(|| {
                    key(
                        "rates",
                        format!("#{} = \"{name}\": not a D3D12_SHADING_RATE (1X1, 1X2, 2X1, 2X2, 2X4, 4X2, 4X4)", i + 1),
                    )
                })?;
                b.push(r.value());
            }
            b
        }
        (None, Some(data)) => {
            super::data::bytes(data, job_dir, n as u64).map_err(|m| key("data", m))?
        }
        _ => {
            return Err(key(
                "rates",
                "give exactly one of `rates` and `data`".into(),
            ));
        }
    };
    if bytes.len() > n {
        return Err(key(
            "data",
            format!("{} bytes for {w} × {h} texels", bytes.len()),
        ));
    }
    let mut all = bytes;
    all.resize(n, 0);
    Texture::from_bytes(desc, &all)
        .map(Some)
        .map_err(|x| key("data", x.to_string()))
}

/// `view_instancing = { count = 2, locations = [{ viewport = 0, render_target_slice = 0 },
/// { viewport = 0, render_target_slice = 1 }], mask = 3 }`: `count` views (1 to 4,
/// `ViewInstanceCount`), one location each (`D3D12_VIEW_INSTANCE_LOCATION`, both indices
/// default 0), and `mask` for `D3D12_VIEW_INSTANCING_FLAG_ENABLE_VIEW_INSTANCE_MASKING`
/// with `SetViewInstanceMask(mask)` (absent: no masking, every view drawn).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ViewInstancingEntry {
    /// `ViewInstanceCount`.
    pub count: u32,
    /// `pViewInstanceLocations`, one per view.
    pub locations: Vec<ViewLocationEntry>,
    /// The view instance mask (bit `v`: view `v` is drawn).
    pub mask: Option<u32>,
}

/// One `D3D12_VIEW_INSTANCE_LOCATION`.
#[derive(Debug, Clone, Copy, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct ViewLocationEntry {
    /// `ViewportArrayIndex` (default 0).
    pub viewport: Option<u32>,
    /// `RenderTargetArrayIndex` (default 0).
    pub render_target_slice: Option<u32>,
}

/// The view-instancing state of `view_instancing` (see [`ViewInstancingEntry`]): `count`
/// must match the number of `locations`, and the pipeline's checks
/// (`pipeline::view_instancing`) hold, each error naming the key and the value.
pub fn view_instancing(
    d: &DrawSection,
) -> Result<Option<crate::pipeline::ViewInstancingDesc>, JobError> {
    use crate::pipeline::view_instancing::{MAX_VIEW_INSTANCE_COUNT, ViewInstancingDesc};
    let Some(e) = &d.view_instancing else {
        return Ok(None);
    };
    if e.count == 0 || e.count as usize > MAX_VIEW_INSTANCE_COUNT {
        return Err(draw_err(
            "[draw]",
            format!(
                "`view_instancing.count` = {}: 1 to {MAX_VIEW_INSTANCE_COUNT} views (D3D12_MAX_VIEW_INSTANCE_COUNT); leave `view_instancing` out for D3D12's count 0 (no view instancing)",
                e.count
            ),
        ));
    }
    if e.locations.len() != e.count as usize {
        return Err(draw_err(
            "[draw]",
            format!(
                "`view_instancing.locations` has {} entries for `count` = {}: one location per view",
                e.locations.len(),
                e.count
            ),
        ));
    }
    let desc = ViewInstancingDesc {
        locations: e
            .locations
            .iter()
            .map(|l| crate::pipeline::ViewInstanceLocation {
                viewport: l.viewport.unwrap_or(0),
                render_target_slice: l.render_target_slice.unwrap_or(0),
            })
            .collect(),
        mask: e.mask,
    };
    desc.check().map_err(|x| {
        draw_err(
            "[draw]",
            format!("`view_instancing.{}` = {}", x.field, x.message),
        )
    })?;
    Ok(Some(desc))
}

/// One stream-output buffer of a single-draw job: a buffer of `offset + size` bytes and
/// its view (`D3D12_STREAM_OUTPUT_BUFFER_VIEW`) with a filled-size counter of its own.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SoBufferEntry {
    /// The slot (`OutputSlot` of the entries it takes), 0 … 3.
    pub slot: u32,
    /// The slot's stride (`pBufferStrides`) in bytes.
    pub stride: u32,
    /// `SizeInBytes`: the view's bytes.
    pub size: u64,
    /// Bytes before the view (`BufferLocation` less the buffer's start; default 0).
    pub offset: Option<u64>,
    /// The filled size before the draw (`BufferFilledSizeLocation`'s value, bytes into
    /// the view where writing starts; default 0).
    pub filled_size: Option<u32>,
    /// The 32-bit word every byte of the buffer starts as (default 0), so what the draw
    /// leaves unwritten (gaps, the rest) shows.
    pub fill_u32: Option<u32>,
    /// Where the buffer (all `offset + size` bytes) is written after the draw.
    pub output: Option<PathBuf>,
}

/// One stream-output declaration entry (`D3D12_SO_DECLARATION_ENTRY`).
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct SoEntry {
    /// `Stream` (default 0).
    pub stream: Option<u32>,
    /// `SemanticName`; omitted: a gap of `component_count` components.
    pub semantic: Option<String>,
    /// `SemanticIndex` (default 0).
    pub index: Option<u32>,
    /// `StartComponent` (default 0).
    pub start_component: Option<u8>,
    /// `ComponentCount` (default 4 less `start_component`).
    pub component_count: Option<u8>,
    /// `OutputSlot` (default 0).
    pub slot: Option<u8>,
}

/// `RasterizedStream`: a stream number or `"none"`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(untagged)]
pub enum RasterizedStream {
    /// Stream 0 … 3.
    Stream(u32),
    /// `"none"`: nothing is rasterized.
    Name(String),
}

/// The stream-output description (`D3D12_STREAM_OUTPUT_DESC`) of `d`'s
/// `[[draw.stream_output]]` entries and `rasterized_stream`, with the buffers' `strides`
/// (by slot). The pipeline checks it against the programs (`pipeline::so::check`).
pub fn stream_output_desc(
    d: &DrawSection,
    strides: Vec<u32>,
) -> Result<crate::pipeline::so::StreamOutputDesc, JobError> {
    use crate::pipeline::so::{NO_RASTERIZED_STREAM, SoDeclarationEntry, StreamOutputDesc};
    let mut entries = Vec::with_capacity(d.stream_output.len().min(1024));
    for (i, e) in d.stream_output.iter().enumerate() {
        let start = e.start_component.unwrap_or(0);
        let count = match e.component_count {
            Some(n) => n,
            None => 4u8.checked_sub(start).ok_or_else(|| {
                draw_err(
                    &format!("[[draw.stream_output]] #{}", i + 1),
                    format!("`start_component` {start}: components are 0 (x) to 3 (w)"),
                )
            })?,
        };
        entries.push(SoDeclarationEntry {
            stream: e.stream.unwrap_or(0),
            semantic_name: e.semantic.clone(),
            semantic_index: e.index.unwrap_or(0),
            start_component: start,
            component_count: count,
            output_slot: e.slot.unwrap_or(0),
        });
    }
    let rasterized_stream = match &d.rasterized_stream {
        None => 0,
        Some(RasterizedStream::Stream(s)) => *s,
        Some(RasterizedStream::Name(n)) if n.eq_ignore_ascii_case("none") => NO_RASTERIZED_STREAM,
        Some(RasterizedStream::Name(n)) => {
            return Err(draw_err(
                "[draw]",
                format!("`rasterized_stream` \"{n}\": give 0 to 3 or \"none\""),
            ));
        }
    };
    Ok(StreamOutputDesc {
        entries,
        strides,
        rasterized_stream,
    })
}

/// `[[draw.vertex_buffer]]`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct VertexBufferEntry {
    /// Slot (0–31).
    pub slot: u32,
    /// Bytes between vertices.
    pub stride: u32,
    /// Bytes of the data skipped (the view's start).
    pub offset: Option<u64>,
    /// The bytes.
    pub data: DataSpec,
}

/// An element offset: bytes, or `"append"` (`D3D12_APPEND_ALIGNED_ELEMENT`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(untagged)]
pub enum OffsetSpec {
    /// Bytes.
    Bytes(u32),
    /// `"append"`.
    Word(String),
}

/// `[[draw.input_element]]`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct InputElementEntry {
    /// Semantic name.
    pub semantic: String,
    /// Semantic index (default 0).
    pub index: Option<u32>,
    /// DXGI format.
    pub format: String,
    /// Slot (default 0).
    pub slot: Option<u32>,
    /// Offset (default `"append"`).
    pub offset: Option<OffsetSpec>,
    /// 0 per vertex (default); n per instance.
    pub instance_step: Option<u32>,
}

/// `[draw.index_buffer]`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct IndexBufferEntry {
    /// `R16_UINT` or `R32_UINT`.
    pub format: String,
    /// Bytes skipped.
    pub offset: Option<u64>,
    /// The indices.
    pub data: DataSpec,
}

/// `[draw.rasterizer]`.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct RasterizerEntry {
    /// `SOLID` or `WIREFRAME`.
    pub fill: Option<String>,
    /// `NONE`, `FRONT` or `BACK`.
    pub cull: Option<String>,
    /// `FrontCounterClockwise`.
    pub front_ccw: Option<bool>,
    /// `DepthBias`.
    pub depth_bias: Option<i32>,
    /// `DepthBiasClamp`.
    pub depth_bias_clamp: Option<f32>,
    /// `SlopeScaledDepthBias`.
    pub slope_scaled_depth_bias: Option<f32>,
    /// `DepthClipEnable`.
    pub depth_clip: Option<bool>,
    /// `MultisampleEnable`.
    pub multisample: Option<bool>,
    /// `AntialiasedLineEnable`.
    pub antialiased_line: Option<bool>,
    /// `D3D12_RASTERIZER_DESC2::LineRasterizationMode`: `aliased`, `alpha_antialiased`,
    /// `quadrilateral_wide` or `quadrilateral_narrow`, instead of `multisample` and
    /// `antialiased_line`.
    pub line_rasterization: Option<String>,
    /// `ForcedSampleCount`.
    pub forced_sample_count: Option<u32>,
    /// `ConservativeRaster` (`D3D12_CONSERVATIVE_RASTERIZATION_MODE_ON` when true).
    pub conservative: Option<bool>,
    /// `SetSamplePositions`: `[x, y]` per sample in sixteenths of a pixel from the
    /// centre (-8..7), the draw's sample count of them (every pixel) or 4 × that (a 2×2
    /// grid of pixels, left to right, top to bottom), at most 16.
    pub sample_positions: Option<Vec<[i64; 2]>>,
}

/// A write mask: 0–15, or letters `"rgba"`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(untagged)]
pub enum MaskSpec {
    /// Bits.
    Bits(u8),
    /// Letters.
    Letters(String),
}

/// `[[draw.blend]]`.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct BlendEntry {
    /// `BlendEnable`.
    pub enable: Option<bool>,
    /// `LogicOpEnable`.
    pub logic_op_enable: Option<bool>,
    /// `SrcBlend`.
    pub src: Option<String>,
    /// `DestBlend`.
    pub dest: Option<String>,
    /// `BlendOp`.
    pub op: Option<String>,
    /// `SrcBlendAlpha`.
    pub src_alpha: Option<String>,
    /// `DestBlendAlpha`.
    pub dest_alpha: Option<String>,
    /// `BlendOpAlpha`.
    pub op_alpha: Option<String>,
    /// `LogicOp`.
    pub logic_op: Option<String>,
    /// `RenderTargetWriteMask`.
    pub write_mask: Option<MaskSpec>,
}

/// `[[draw.render_target]]`.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct RenderTargetEntry {
    /// DXGI format.
    pub format: String,
    /// Width.
    pub width: u32,
    /// Height.
    pub height: u32,
    /// Samples (default 1).
    pub samples: Option<u32>,
    /// The starting value of every sample.
    pub clear: Option<[f64; 4]>,
    /// Initial texels.
    pub data: Option<DataSpec>,
    /// Where to write the target.
    pub output: Option<PathBuf>,
    /// Where to write the resolved image of a multisampled target.
    pub resolve_output: Option<PathBuf>,
}

/// One face's stencil operations.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct StencilFaceEntry {
    /// `StencilFailOp`.
    pub fail: Option<String>,
    /// `StencilDepthFailOp`.
    pub depth_fail: Option<String>,
    /// `StencilPassOp`.
    pub pass: Option<String>,
    /// `StencilFunc`.
    pub func: Option<String>,
    /// The face's `StencilReadMask` (`D3D12_DEPTH_STENCILOP_DESC1`; default the
    /// depth-stencil state's `stencil_read_mask`).
    pub read_mask: Option<u8>,
    /// The face's `StencilWriteMask` (default the state's `stencil_write_mask`).
    pub write_mask: Option<u8>,
}

/// `[draw.depth_stencil]`.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct DepthStencilEntry {
    /// Depth format.
    pub format: String,
    /// Width (only without render targets).
    pub width: Option<u32>,
    /// Height (only without render targets).
    pub height: Option<u32>,
    /// Samples (only without render targets).
    pub samples: Option<u32>,
    /// Starting depth (default 1.0).
    pub clear_depth: Option<f32>,
    /// Starting stencil (default 0).
    pub clear_stencil: Option<u8>,
    /// Starting contents instead of `clear_depth` and `clear_stencil`: the buffer's
    /// bytes in its format (every sample's texels, as a render target's `data`).
    pub data: Option<DataSpec>,
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
    /// `DepthBoundsTestEnable` (`D3D12_DEPTH_STENCIL_DESC1`; default false).
    pub depth_bounds_test: Option<bool>,
    /// Where to write the buffer.
    pub output: Option<PathBuf>,
}

/// A `[draw]` error for `key`.
pub(crate) fn draw_err(table: &str, message: impl Into<String>) -> JobError {
    JobError::Entry {
        entry: table.to_string(),
        message: message.into(),
    }
}

fn by_name<T: Copy>(
    table: &str,
    key: &str,
    name: &str,
    names: &[(&'static str, T)],
) -> Result<T, JobError> {
    let n = name.trim().to_ascii_uppercase();
    for (k, v) in names {
        if k.eq_ignore_ascii_case(&n) || n.ends_with(&format!("_{k}")) && n.starts_with("D3D12_") {
            return Ok(*v);
        }
    }
    let hint = super::closest(&n, names.iter().map(|(k, _)| *k))
        .map(|c| format!(" (did you mean {c}?)"))
        .unwrap_or_default();
    Err(draw_err(
        table,
        format!(
            "`{key}`: unknown name \"{name}\"{hint}; one of {}",
            names.iter().map(|(k, _)| *k).collect::<Vec<_>>().join(", ")
        ),
    ))
}

/// A DXGI format name.
pub(crate) fn format_named(table: &str, key: &str, name: &str) -> Result<Format, JobError> {
    Format::from_name(name).ok_or_else(|| {
        let hint = super::closest(name, Format::ALL.iter().map(|f| f.name()))
            .map(|c| format!(" (did you mean {c}?)"))
            .unwrap_or_default();
        draw_err(table, format!("`{key}`: unknown format \"{name}\"{hint}"))
    })
}

/// A comparison function name.
fn comparison_named(table: &str, key: &str, name: &str) -> Result<ComparisonFunc, JobError> {
    ComparisonFunc::from_name(name).ok_or_else(|| {
        draw_err(
            table,
            format!("`{key}`: unknown comparison \"{name}\"; one of NEVER, LESS, EQUAL, LESS_EQUAL, GREATER, NOT_EQUAL, GREATER_EQUAL, ALWAYS"),
        )
    })
}

/// A stencil operation name.
fn stencil_op_named(table: &str, key: &str, name: &str) -> Result<StencilOp, JobError> {
    by_name(table, key, name, StencilOp::NAMES)
}

/// The `D3D12_DEPTH_STENCIL_DESC` keys of `[draw.depth_stencil]`, for a buffer of
/// `format`: D3D12's defaults for what is not given, and stencil only where the format
/// has stencil bits.
pub fn depth_stencil_desc(
    e: &DepthStencilEntry,
    format: Format,
) -> Result<DepthStencilDesc, JobError> {
    let t = "[draw.depth_stencil]";
    let shared = StencilMasks {
        read: e.stencil_read_mask.unwrap_or(0xff),
        write: e.stencil_write_mask.unwrap_or(0xff),
    };
    // A face's own mask replaces the shared one for that face only (D3D12_DEPTH_STENCIL_DESC2
    // keeps the masks in each face's D3D12_DEPTH_STENCILOP_DESC1).
    let masks = |f: &Option<StencilFaceEntry>| StencilMasks {
        read: f.as_ref().and_then(|f| f.read_mask).unwrap_or(shared.read),
        write: f
            .as_ref()
            .and_then(|f| f.write_mask)
            .unwrap_or(shared.write),
    };
    let (front, back) = (masks(&e.front), masks(&e.back));
    let mut desc = DepthStencilDesc {
        depth_enable: e.depth_enable.unwrap_or(true),
        depth_write: e.depth_write.unwrap_or(true),
        stencil_enable: e.stencil_enable.unwrap_or(false),
        stencil_read_mask: front.read,
        stencil_write_mask: front.write,
        front_face: face(t, &e.front)?,
        back_face: face(t, &e.back)?,
        back_face_masks: (back != front).then_some(back),
        depth_bounds_test_enable: e.depth_bounds_test.unwrap_or(false),
        ..DepthStencilDesc::default()
    };
    if let Some(f) = &e.depth_func {
        desc.depth_func = comparison_named(t, "depth_func", f)?;
    }
    if desc.stencil_enable && !om::has_stencil(format) {
        return Err(draw_err(
            t,
            format!("`stencil_enable`: {format} has no stencil bits"),
        ));
    }
    Ok(desc)
}

/// One face's stencil operations (`front`, `back`).
fn face(t: &str, e: &Option<StencilFaceEntry>) -> Result<DepthStencilOpDesc, JobError> {
    let mut f = DepthStencilOpDesc::default();
    let Some(e) = e else { return Ok(f) };
    if let Some(n) = &e.fail {
        f.stencil_fail_op = stencil_op_named(t, "fail", n)?;
    }
    if let Some(n) = &e.depth_fail {
        f.stencil_depth_fail_op = stencil_op_named(t, "depth_fail", n)?;
    }
    if let Some(n) = &e.pass {
        f.stencil_pass_op = stencil_op_named(t, "pass", n)?;
    }
    if let Some(n) = &e.func {
        f.stencil_func = comparison_named(t, "func", n)?;
    }
    Ok(f)
}

/// The stencil references: `stencil_ref` for both faces (`OMSetStencilRef`), or
/// `front_and_back_stencil_ref` (`OMSetFrontAndBackStencilRef`): the front face's and,
/// when it differs, the back face's. Both keys together are refused.
pub fn stencil_refs(d: &DrawSection) -> Result<(u8, Option<u8>), JobError> {
    match (d.stencil_ref, d.front_and_back_stencil_ref) {
        (Some(_), Some(_)) => Err(draw_err(
            "[draw]",
            "`stencil_ref` and `front_and_back_stencil_ref` both given: `stencil_ref` sets both faces' reference (OMSetStencilRef), `front_and_back_stencil_ref = [front, back]` each face's (OMSetFrontAndBackStencilRef); give one",
        )),
        (r, None) => Ok((r.unwrap_or(0), None)),
        (None, Some([front, back])) => Ok((front, (back != front).then_some(back))),
    }
}

/// The topology.
pub fn topology(d: &DrawSection) -> Result<PrimitiveTopology, JobError> {
    match &d.topology {
        None => Ok(PrimitiveTopology::TriangleList),
        Some(t) => PrimitiveTopology::from_name(t).ok_or_else(|| {
            draw_err(
                "[draw]",
                format!(
                    "`topology`: unknown topology \"{t}\"; one of {}",
                    PrimitiveTopology::NAMES
                        .iter()
                        .map(|(k, _)| *k)
                        .collect::<Vec<_>>()
                        .join(", ")
                        + ", n_control_point_patchlist (n = 1 … 32)"
                ),
            )
        }),
    }
}

/// The input layout.
pub fn input_layout(d: &DrawSection) -> Result<InputLayout, JobError> {
    let mut elements = Vec::new();
    for (i, e) in d.input_element.iter().enumerate() {
        let table = format!("[[draw.input_element]] #{} ({})", i + 1, e.semantic);
        let format = format_named(&table, "format", &e.format)?;
        let offset = match &e.offset {
            None => APPEND_ALIGNED_ELEMENT,
            Some(OffsetSpec::Bytes(b)) => *b,
            Some(OffsetSpec::Word(w)) if w.eq_ignore_ascii_case("append") => APPEND_ALIGNED_ELEMENT,
            Some(OffsetSpec::Word(w)) => {
                return Err(draw_err(
                    &table,
                    format!("`offset`: \"{w}\" is neither a byte count nor \"append\""),
                ));
            }
        };
        elements.push(InputElementDesc {
            semantic: e.semantic.clone(),
            semantic_index: e.index.unwrap_or(0),
            format,
            input_slot: e.slot.unwrap_or(0),
            aligned_byte_offset: offset,
            instance_data_step_rate: e.instance_step.unwrap_or(0),
        });
    }
    Ok(InputLayout { elements })
}

/// The rasterizer state.
pub fn rasterizer(d: &DrawSection) -> Result<RasterizerDesc, JobError> {
    let mut r = RasterizerDesc::default();
    let Some(e) = &d.rasterizer else { return Ok(r) };
    let t = "[draw.rasterizer]";
    if let Some(f) = &e.fill {
        r.fill_mode = by_name(
            t,
            "fill",
            f,
            &[
                ("SOLID", FillMode::Solid),
                ("WIREFRAME", FillMode::Wireframe),
            ],
        )?;
    }
    if let Some(c) = &e.cull {
        r.cull_mode = by_name(
            t,
            "cull",
            c,
            &[
                ("NONE", CullMode::None),
                ("FRONT", CullMode::Front),
                ("BACK", CullMode::Back),
            ],
        )?;
    }
    r.front_counter_clockwise = e.front_ccw.unwrap_or(r.front_counter_clockwise);
    r.depth_bias = e.depth_bias.unwrap_or(0);
    r.depth_bias_clamp = e.depth_bias_clamp.unwrap_or(0.0);
    r.slope_scaled_depth_bias = e.slope_scaled_depth_bias.unwrap_or(0.0);
    if !r.depth_bias_clamp.is_finite() || !r.slope_scaled_depth_bias.is_finite() {
        return Err(draw_err(
            t,
            "`depth_bias_clamp` and `slope_scaled_depth_bias` must be finite",
        ));
    }
    r.depth_clip_enable = e.depth_clip.unwrap_or(true);
    r.multisample_enable = e.multisample.unwrap_or(false);
    r.antialiased_line_enable = e.antialiased_line.unwrap_or(false);
    if let Some(m) = &e.line_rasterization {
        // D3D12_RASTERIZER_DESC2 has LineRasterizationMode instead of the two booleans.
        if let Some(k) = [
            ("multisample", e.multisample.is_some()),
            ("antialiased_line", e.antialiased_line.is_some()),
        ]
        .into_iter()
        .find_map(|(k, given)| given.then_some(k))
        {
            return Err(draw_err(
                t,
                format!(
                    "`line_rasterization` and `{k}`: D3D12_RASTERIZER_DESC2's LineRasterizationMode replaces MultisampleEnable and AntialiasedLineEnable; give one form"
                ),
            ));
        }
        let mode = LineRasterizationMode::NAMES
            .iter()
            .find(|(n, _)| n.eq_ignore_ascii_case(m))
            .map(|&(_, v)| v)
            .ok_or_else(|| {
                draw_err(
                    t,
                    format!(
                        "`line_rasterization` \"{m}\": the modes are \"aliased\", \"alpha_antialiased\", \"quadrilateral_wide\" and \"quadrilateral_narrow\""
                    ),
                )
            })?;
        r.line_rasterization_mode = Some(mode);
    }
    r.forced_sample_count = e.forced_sample_count.unwrap_or(0);
    r.conservative = e.conservative.unwrap_or(false);
    if let Some(p) = &e.sample_positions {
        r.sample_positions = Some(sample_positions(t, p)?);
    }
    Ok(r)
}

/// `sample_positions`: at most 16, each coordinate in -8..7 (the sample count is checked
/// with the targets, by the pipeline).
fn sample_positions(t: &str, p: &[[i64; 2]]) -> Result<SamplePositions, JobError> {
    if p.is_empty() || p.len() > 16 {
        return Err(draw_err(
            t,
            format!(
                "`sample_positions` holds {} positions: give 1 to 16",
                p.len()
            ),
        ));
    }
    let mut out = SamplePositions {
        len: p.len() as u8,
        xy: [[0; 2]; 16],
    };
    for (i, (q, o)) in p.iter().zip(out.xy.iter_mut()).enumerate() {
        for (v, w) in q.iter().zip(o.iter_mut()) {
            *w = i8::try_from(*v)
                .ok()
                .filter(|v| (-8..=7).contains(v))
                .ok_or_else(|| {
                    draw_err(
                        t,
                        format!(
                            "`sample_positions` #{} [{}, {}]: each coordinate is -8..7 sixteenths of a pixel from the centre",
                            i + 1,
                            q[0],
                            q[1]
                        ),
                    )
                })?;
        }
    }
    Ok(out)
}

fn mask_of(table: &str, m: &MaskSpec) -> Result<u8, JobError> {
    match m {
        MaskSpec::Bits(b) if *b <= 15 => Ok(*b),
        MaskSpec::Bits(b) => Err(draw_err(table, format!("`write_mask` {b}: give 0 to 15"))),
        MaskSpec::Letters(s) => {
            let mut v = 0u8;
            for ch in s.chars() {
                v |= match ch.to_ascii_lowercase() {
                    'r' => 1,
                    'g' => 2,
                    'b' => 4,
                    'a' => 8,
                    _ => {
                        return Err(draw_err(
                            table,
                            format!("`write_mask` \"{s}\": use the letters r, g, b, a"),
                        ));
                    }
                };
            }
            Ok(v)
        }
    }
}

/// The blend state.
pub fn blend(d: &DrawSection) -> Result<BlendDesc, JobError> {
    let mut b = BlendDesc {
        alpha_to_coverage_enable: d.alpha_to_coverage.unwrap_or(false),
        independent_blend_enable: d.independent_blend.unwrap_or(false),
        ..BlendDesc::default()
    };
    if d.blend.len() > RENDER_TARGETS {
        return Err(draw_err(
            "[[draw.blend]]",
            format!("{} entries; at most {RENDER_TARGETS}", d.blend.len()),
        ));
    }
    for (i, e) in d.blend.iter().enumerate() {
        let t = format!("[[draw.blend]] #{}", i + 1);
        let r = &mut b.render_target[i];
        r.blend_enable = e.enable.unwrap_or(false);
        r.logic_op_enable = e.logic_op_enable.unwrap_or(false);
        let f = |k: &str, v: &Option<String>, dflt: Blend| -> Result<Blend, JobError> {
            v.as_deref()
                .map_or(Ok(dflt), |n| by_name(&t, k, n, Blend::NAMES))
        };
        let o = |k: &str, v: &Option<String>| -> Result<BlendOp, JobError> {
            v.as_deref()
                .map_or(Ok(BlendOp::Add), |n| by_name(&t, k, n, BlendOp::NAMES))
        };
        r.src_blend = f("src", &e.src, Blend::One)?;
        r.dest_blend = f("dest", &e.dest, Blend::Zero)?;
        r.blend_op = o("op", &e.op)?;
        r.src_blend_alpha = f("src_alpha", &e.src_alpha, Blend::One)?;
        r.dest_blend_alpha = f("dest_alpha", &e.dest_alpha, Blend::Zero)?;
        r.blend_op_alpha = o("op_alpha", &e.op_alpha)?;
        if let Some(l) = &e.logic_op {
            r.logic_op = by_name(&t, "logic_op", l, LogicOp::NAMES)?;
        }
        if let Some(m) = &e.write_mask {
            r.render_target_write_mask = mask_of(&t, m)?;
        }
        // Alpha factors cannot read colour (D3D12 validation).
        for (k, v) in [
            ("src_alpha", r.src_blend_alpha),
            ("dest_alpha", r.dest_blend_alpha),
        ] {
            if matches!(
                v,
                Blend::SrcColor
                    | Blend::InvSrcColor
                    | Blend::DestColor
                    | Blend::InvDestColor
                    | Blend::Src1Color
                    | Blend::InvSrc1Color
            ) {
                return Err(draw_err(
                    &t,
                    format!("`{k}`: a colour factor cannot blend alpha (use the _ALPHA factor)"),
                ));
            }
        }
    }
    Ok(b)
}

/// The viewport, if given; refused when not finite, with a width or height ≤ 0, or depths
/// outside [0, 1].
pub fn viewport(d: &DrawSection) -> Result<Option<Viewport>, JobError> {
    d.viewport
        .map(|v| one_viewport("`viewport`", v))
        .transpose()
}

/// `D3D12_VIEWPORT_BOUNDS_MIN` and `_MAX`: where a viewport may lie.
const VIEWPORT_BOUNDS: (f32, f32) = (-32768.0, 32767.0);

/// One viewport `[x, y, width, height, min depth, max depth]` of key `key`: finite, width
/// and height > 0, within D3D12's viewport bounds (`TopLeftX ≥ -32768`,
/// `TopLeftX + Width ≤ 32767`, the same in y), depths in [0, 1] (`D3D12_VIEWPORT`;
/// min depth above max depth is allowed, as D3D12 allows it).
fn one_viewport(key: &str, v: [f32; 6]) -> Result<Viewport, JobError> {
    let [x, y, w, h, near, far] = v;
    if v.iter().any(|c| !c.is_finite()) || w <= 0.0 || h <= 0.0 {
        return Err(draw_err(
            "[draw]",
            format!(
                "{key} {v:?}: x, y, width, height, min depth, max depth must be finite, with width and height > 0"
            ),
        ));
    }
    let (lo, hi) = VIEWPORT_BOUNDS;
    if x < lo || y < lo || x + w > hi || y + h > hi {
        return Err(draw_err(
            "[draw]",
            format!(
                "{key} {v:?}: a viewport lies within D3D12's bounds, x and y ≥ {lo}, x + width and y + height ≤ {hi} (D3D12_VIEWPORT_BOUNDS_MIN, _MAX)"
            ),
        ));
    }
    if !(0.0..=1.0).contains(&near) || !(0.0..=1.0).contains(&far) {
        return Err(draw_err(
            "[draw]",
            format!("{key}: min depth {near} and max depth {far} must lie in [0, 1]"),
        ));
    }
    Ok(Viewport {
        top_left_x: x,
        top_left_y: y,
        width: w,
        height: h,
        min_depth: near,
        max_depth: far,
    })
}

/// The viewports: `viewports` (1 to 16), or `viewport` as the only one, or none (the
/// pipeline's one over the whole target). Both keys together are refused.
pub fn viewports(d: &DrawSection) -> Result<Vec<Viewport>, JobError> {
    let Some(list) = &d.viewports else {
        return Ok(viewport(d)?.into_iter().collect());
    };
    if d.viewport.is_some() {
        return Err(draw_err(
            "[draw]",
            "`viewport` and `viewports` both given: `viewports` lists them all (its first is viewport 0)",
        ));
    }
    if list.is_empty() || list.len() > VIEWPORTS {
        return Err(draw_err(
            "[draw]",
            format!(
                "`viewports` has {} entries: D3D12 binds 1 to {VIEWPORTS} (D3D12_VIEWPORT_AND_SCISSORRECT_OBJECT_COUNT_PER_PIPELINE)",
                list.len()
            ),
        ));
    }
    list.iter()
        .enumerate()
        .map(|(i, &v)| one_viewport(&format!("`viewports` #{}", i + 1), v))
        .collect()
}

/// The scissor rectangle, if given.
pub fn scissor(d: &DrawSection) -> Result<Option<Rect>, JobError> {
    d.scissor.map(|r| one_scissor("`scissor`", r)).transpose()
}

/// One rectangle `[left, top, right, bottom]` of key `key`: right and bottom not below
/// left and top (`D3D12_RECT`; an empty rectangle is allowed and draws nothing).
fn one_scissor(key: &str, [l, t, r, b]: [i32; 4]) -> Result<Rect, JobError> {
    if r < l || b < t {
        return Err(draw_err(
            "[draw]",
            format!("{key} [{l}, {t}, {r}, {b}]: right and bottom must not be below left and top"),
        ));
    }
    Ok(Rect {
        left: l,
        top: t,
        right: r,
        bottom: b,
    })
}

/// The scissor rectangles: `scissors` (1 to 16, at least one per viewport), or
/// `scissor` as the only one, or none (no scissor). Both keys together are refused.
pub fn scissors(d: &DrawSection) -> Result<Vec<Rect>, JobError> {
    let Some(list) = &d.scissors else {
        return Ok(scissor(d)?.into_iter().collect());
    };
    if d.scissor.is_some() {
        return Err(draw_err(
            "[draw]",
            "`scissor` and `scissors` both given: `scissors` lists them all (its first goes with viewport 0)",
        ));
    }
    let viewports = d.viewports.as_ref().map_or(1, Vec::len);
    if list.len() > VIEWPORTS || list.len() < viewports {
        return Err(draw_err(
            "[draw]",
            format!(
                "`scissors` has {} entries for {viewports} viewport(s): rectangle i goes with viewport i, so give one per viewport, at most {VIEWPORTS}",
                list.len()
            ),
        ));
    }
    list.iter()
        .enumerate()
        .map(|(i, &r)| one_scissor(&format!("`scissors` #{}", i + 1), r))
        .collect()
}

/// The draw arguments, and whether the draw is indexed.
pub fn args(d: &DrawSection) -> Result<DrawArgs, JobError> {
    let count = match (d.vertex_count, d.index_count, &d.index_buffer) {
        (Some(_), _, Some(_)) => {
            return Err(draw_err(
                "[draw]",
                "`vertex_count` with an index buffer: give `index_count`",
            ));
        }
        (_, Some(_), None) => {
            return Err(draw_err(
                "[draw]",
                "`index_count` needs a [draw.index_buffer]",
            ));
        }
        (Some(v), None, None) => v,
        (None, Some(i), Some(_)) => i,
        (None, None, _) => {
            return Err(draw_err(
                "[draw]",
                "missing `vertex_count` (or `index_count` with an index buffer)",
            ));
        }
    };
    if d.index_buffer.is_none() && d.start_index.is_some() {
        return Err(draw_err(
            "[draw]",
            "`start_index` applies to indexed draws; use `start_vertex`",
        ));
    }
    if d.index_buffer.is_some() && d.start_vertex.is_some() {
        return Err(draw_err(
            "[draw]",
            "`start_vertex` applies to draws without an index buffer; use `start_index`",
        ));
    }
    Ok(DrawArgs {
        vertex_count: count,
        instance_count: d.instance_count.unwrap_or(1),
        start_vertex: d.start_vertex.or(d.start_index).unwrap_or(0),
        base_vertex: d.base_vertex.unwrap_or(0),
        start_instance: d.start_instance.unwrap_or(0),
    })
}
