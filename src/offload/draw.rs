//! A raster pipeline (`Shaders` with a `Vertex` and a `Pixel` program) made into the
//! job's `[draw]` section, issued as the suite's Direct3D 12 device issues it
//! (`lib/API/DX/Device.cpp` and `lib/API/Device.cpp` in `llvm/offload-test-suite`), so
//! the draw runs through dxlane's own draw pipeline (`job` → `pipeline::draw`).
//!
//! Owns: the mapping of `Bindings` (vertex buffer, vertex attributes, render target,
//! topology, viewports, scissors) and `DispatchParameters: VertexCount` onto the job's
//! draw keys, and the fixed state the suite's device sets. Does not own: running the
//! draw (`job`), binding the descriptor sets (`run`), reading the target back (`run`).
//!
//! The state, with its source (`Device.cpp` unless said otherwise):
//!
//! - **Input layout**: one element per `VertexAttributes` entry, its semantic the
//!   attribute's `Name` with index 0, its format from `Format` and `Channels` (as a
//!   typed view's), slot 0, byte offset `Offset`, per-vertex data. The vertex buffer is
//!   the buffer `Bindings: VertexBuffer` names, in slot 0, its stride the sum of the
//!   attributes' sizes (`Pipeline.h`, `getVertexStride`).
//! - **Vertex count**: `DispatchParameters: VertexCount`, else the vertex buffer's
//!   bytes over the stride (`Pipeline.h`, `getVertexCount`); one instance, from vertex 0.
//! - **Topology**: `Bindings: Topology`, `TriangleList` by default, or `PointList`.
//! - **Render target**: the buffer `Bindings: RenderTarget` names, a texture of its
//!   `OutputProps` width and height, one mip, one sample, its format from `Format` and
//!   `Channels`. The device neither uploads the buffer's data nor clears the target (its
//!   render pass loads it), and a new committed resource is zero-filled (D3D12's
//!   `CreateCommittedResource`, without `D3D12_HEAP_FLAG_CREATE_NOT_ZEROED`), so the
//!   target starts at zero. After the draw it is copied back into the buffer, rows
//!   packed tightly (`copyFromTexture`).
//! - **Depth**: always a `D32_FLOAT_S8X24_UINT` buffer of the target's size, cleared to
//!   depth 1.0 and stencil 0 (`createDefaultDepthStencilTarget`), with the depth test on:
//!   `LESS`, depth writes on, stencil off.
//! - **Rasterizer**: D3D12's default (solid fill, depth clip on) with culling off and
//!   counter-clockwise triangles facing front. **Blend**: D3D12's default (off, all
//!   channels written); sample mask all ones.
//! - **Viewport and scissor**: one viewport covering the target (x 0, y 0, its width
//!   and height, depth 0 to 1) and a scissor rectangle of the whole target, unless
//!   `Bindings` gives `Viewports` and `Scissors` (`Pipeline.cpp`: X and Y default 0, the
//!   depth range 0 to 1; one scissor per viewport; at most 16).
//!
//! - **Tessellation and geometry**: the `Hull`, `Domain` and `Geometry` programs go into
//!   the same pipeline state (`createTraditionalRasterPipeline`: `HS`, `DS`, `GS` when
//!   given). `Topology: PatchList` is the `PatchControlPoints`-point patch list
//!   (`D3D_PRIMITIVE_TOPOLOGY_1_CONTROL_POINT_PATCHLIST` + n − 1, n from 1 to 32), and
//!   `Pipeline.cpp`'s `validatePipelineKind` holds: hull and domain programs come
//!   together, a pipeline is tessellated exactly when its topology is `PatchList`, and
//!   `PatchControlPoints` goes with `PatchList` only.
//! - **Multisampled targets**: `Bindings: SampleCount` (newer schema) or the target's
//!   `OutputProps: SampleCount` (older schema), default 1 (0 counts as 1, the device's
//!   `max(1, …)`). The target and the depth buffer take that many samples, the pipeline
//!   state's sample count too, with `MultisampleEnable` on when it is above 1. After
//!   the draw the device resolves the target (`ResolveSubresource` into a one-sample
//!   texture of the same format) and copies the resolved texels back, so the buffer
//!   holds one averaged value per pixel, never the samples. D3D12 resolves only formats
//!   with `D3D12_FORMAT_SUPPORT1_MULTISAMPLE_RESOLVE`, which no integer format has: an
//!   integer target with more than one sample is refused, naming the field, and so is
//!   a count outside D3D's standard patterns (1, 2, 4, 8, 16).
//! - **Mesh pipelines** (`Mesh`, optionally `Amplification`, optionally `Pixel`;
//!   `createPipelineAsMsPs`): `DispatchMesh` of `DispatchParameters: DispatchGroupCount`
//!   (default 1, 1, 1; `VertexCount` is refused, `validateDispatchParameters`), the same
//!   target, depth buffer, depth state and sample count as above, triangle primitives,
//!   and the rasterizer and blend state left at D3D12's defaults — so, unlike the
//!   vertex pipeline's, culling is `BACK` with clockwise triangles facing front. A mesh
//!   pipeline has no input assembler: `VertexBuffer`, `VertexAttributes`,
//!   `PatchControlPoints` and a `Topology` other than `TriangleList` are refused.
//!   Mesh and amplification programs exist only as DXIL (SM 6.5).

use toml::{Table, Value};

use super::pipeline::{DataFormat, Pipeline};
use super::run::Held;

/// The most viewports a pipeline may give (`D3D12_VIEWPORT_AND_SCISSORRECT_OBJECT_COUNT_PER_PIPELINE`).
const MAX_VIEWPORTS: usize = 16;

/// Which kind of raster pipeline a draw sets up.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum RasterKind {
    /// Vertices through the input assembler; `tessellated` with hull and domain programs.
    Vertices {
        /// Whether the pipeline has hull and domain programs.
        tessellated: bool,
    },
    /// `DispatchMesh` of this many thread groups.
    Mesh([u32; 3]),
}

/// A raster pipeline's `[draw]` section and which buffer is its render target.
#[derive(Debug)]
pub(super) struct Draw {
    /// The job's `[draw]` table.
    pub table: Table,
    /// The render target's buffer (an index into the held buffers).
    pub target: usize,
    /// Samples per pixel of the render target (1: not multisampled).
    pub samples: u32,
}

/// The sample counts of D3D's standard sample patterns (`D3D12_STANDARD_MULTISAMPLE_PATTERN`).
const SAMPLE_COUNTS: [u32; 5] = [1, 2, 4, 8, 16];

/// The line of `key:` in `text` (0 if none), for errors about `Bindings` fields.
pub(super) fn line_of_key(text: &str, key: &str) -> usize {
    text.lines()
        .position(|l| {
            l.trim_start()
                .trim_start_matches("- ")
                .strip_prefix(key)
                .is_some_and(|r| r.starts_with(':'))
        })
        .map_or(0, |i| i + 1)
}

/// The DXGI format (without its prefix) of a vertex attribute or render target of
/// `channels` elements of `format`: 32-bit floats and integers in 1 to 4 channels,
/// 16-bit ones in 1, 2 or 4. The 64-bit, 8-bit and depth formats have none.
fn element_format(format: DataFormat, channels: u32, what: &str) -> Result<String, String> {
    use DataFormat::*;
    let (bits, suffix) = match format {
        Float32 => (32, "FLOAT"),
        Int32 => (32, "SINT"),
        UInt32 | Hex32 | Bool => (32, "UINT"),
        Float16 => (16, "FLOAT"),
        Int16 => (16, "SINT"),
        UInt16 | Hex16 => (16, "UINT"),
        Hex8 | Hex64 | UInt64 | Int64 | Float64 | Depth32 => {
            return Err(format!(
                "{what}: `Format: {}` has no Direct3D {what} format (give a 16- or 32-bit format)",
                format.name()
            ));
        }
    };
    if channels == 0 || channels > 4 || (channels == 3 && bits != 32) {
        return Err(format!(
            "{what}: {channels} {} channels make no Direct3D format",
            format.name()
        ));
    }
    let mut s = String::new();
    for c in ["R", "G", "B", "A"].iter().take(channels as usize) {
        s.push_str(c);
        s.push_str(&bits.to_string());
    }
    Ok(format!("{s}_{suffix}"))
}

fn float(v: f32) -> Value {
    Value::Float(f64::from(v))
}

fn int(v: impl Into<i64>) -> Value {
    Value::Integer(v.into())
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// The `[draw]` section of the raster pipeline `p`, whose buffers are `held`; errors
/// carry the line they point at in `text`.
pub(super) fn draw_table(
    p: &Pipeline,
    held: &[Held],
    text: &str,
    kind: RasterKind,
) -> Result<Draw, (usize, String)> {
    let bindings_line = line_of_key(text, "Bindings");
    let b = p.bindings.as_ref().ok_or((
        0,
        "a raster pipeline needs `Bindings` with its `RenderTarget`".to_string(),
    ))?;
    let find = |name: &str, key: &str| -> Result<usize, (usize, String)> {
        held.iter()
            .position(|h| h.buffer.name == name)
            .ok_or_else(|| {
                (
                    line_of_key(text, key),
                    format!("`Bindings: {key}`: no buffer named `{name}` in `Buffers`"),
                )
            })
    };
    let mut draw = Table::new();

    // The render target.
    let rt_name = b.render_target.as_deref().ok_or((
        bindings_line,
        "`Bindings`: a raster pipeline needs a `RenderTarget`".to_string(),
    ))?;
    let target = find(rt_name, "RenderTarget")?;
    let rt = &held[target];
    let rt_line = super::pipeline::line_of_name(text, rt_name);
    let rt_err = |m: String| (rt_line, format!("render target `{rt_name}`: {m}"));
    let o = rt.buffer.output_props.ok_or_else(|| {
        rt_err("a render target needs `OutputProps` (Width, Height, Depth)".into())
    })?;
    if o.width == 0 || o.height == 0 || o.depth != 1 {
        return Err(rt_err(format!(
            "`OutputProps`: {}×{}×{}; a render target is at least 1×1 and 1 deep",
            o.width, o.height, o.depth
        )));
    }
    if o.mip_levels != 1 || o.array_slices != 1 || rt.buffer.array_size != 1 {
        return Err(rt_err(
            "a render target has one mip, one slice and `ArraySize` 1".into(),
        ));
    }
    let format =
        element_format(rt.buffer.format, rt.buffer.channels, "render target").map_err(&rt_err)?;
    let texel = u64::from(rt.buffer.format.size()) * u64::from(rt.buffer.channels);
    let want = u64::from(o.width) * u64::from(o.height) * texel;
    let have = rt.blocks.first().map_or(0, |b| b.len() as u64);
    if have != want {
        return Err(rt_err(format!(
            "{have} bytes for a {}×{} target of {texel}-byte texels, which holds {want}",
            o.width, o.height
        )));
    }
    let integer = !matches!(rt.buffer.format, DataFormat::Float32 | DataFormat::Float16);
    let zero = if integer { int(0) } else { float(0.0) };
    // The sample count: `Bindings: SampleCount`, else the older `OutputProps: SampleCount`.
    let samples = match (b.sample_count, o.sample_count) {
        (Some(x), Some(y)) if x.max(1) != y.max(1) => {
            return Err((
                line_of_key(text, "SampleCount"),
                format!(
                    "`Bindings: SampleCount` {x} and the render target's `OutputProps: SampleCount` {y} differ; give one"
                ),
            ));
        }
        (Some(x), _) | (None, Some(x)) => x.max(1),
        (None, None) => 1,
    };
    if !SAMPLE_COUNTS.contains(&samples) {
        return Err((
            line_of_key(text, "SampleCount"),
            format!(
                "`SampleCount: {samples}`: give 1, 2, 4, 8 or 16 (D3D's standard sample patterns)"
            ),
        ));
    }
    if samples > 1 && integer {
        return Err((
            line_of_key(text, "SampleCount"),
            format!(
                "`SampleCount: {samples}` with the {} render target `{rt_name}`: the device resolves a multisampled target before reading it back, and D3D12 resolves no integer format (they lack D3D12_FORMAT_SUPPORT1_MULTISAMPLE_RESOLVE); give a Float32 or Float16 target",
                rt.buffer.format.name()
            ),
        ));
    }
    let mut target_table = Table::new();
    target_table.insert("format".into(), Value::String(format));
    target_table.insert("width".into(), int(o.width));
    target_table.insert("height".into(), int(o.height));
    target_table.insert("samples".into(), int(samples));
    target_table.insert("clear".into(), Value::Array(vec![zero; 4]));
    draw.insert(
        "render_target".into(),
        Value::Array(vec![Value::Table(target_table)]),
    );

    // The depth buffer the device always makes, and its state.
    let mut depth = Table::new();
    depth.insert(
        "format".into(),
        Value::String("D32_FLOAT_S8X24_UINT".into()),
    );
    depth.insert("clear_depth".into(), float(1.0));
    depth.insert("clear_stencil".into(), int(0));
    depth.insert("depth_enable".into(), Value::Boolean(true));
    depth.insert("depth_func".into(), Value::String("LESS".into()));
    depth.insert("depth_write".into(), Value::Boolean(true));
    depth.insert("stencil_enable".into(), Value::Boolean(false));
    draw.insert("depth_stencil".into(), Value::Table(depth));
    let mut raster = Table::new();
    match kind {
        // `createTraditionalRasterPipeline`: D3D12's default with culling off and
        // counter-clockwise front faces.
        RasterKind::Vertices { .. } => {
            raster.insert("cull".into(), Value::String("NONE".into()));
            raster.insert("front_ccw".into(), Value::Boolean(true));
        }
        // `createPipelineAsMsPs`: D3D12's default rasterizer, unchanged.
        RasterKind::Mesh(_) => {
            raster.insert("cull".into(), Value::String("BACK".into()));
            raster.insert("front_ccw".into(), Value::Boolean(false));
        }
    }
    if samples > 1 {
        raster.insert("multisample".into(), Value::Boolean(true));
    }
    draw.insert("rasterizer".into(), Value::Table(raster));

    let tessellated = match kind {
        RasterKind::Vertices { tessellated } => tessellated,
        RasterKind::Mesh(groups) => {
            // A mesh pipeline has no input assembler; its programs make the primitives.
            let ia = [
                ("VertexBuffer", b.vertex_buffer.is_some()),
                ("VertexAttributes", !b.vertex_attributes.is_empty()),
                ("PatchControlPoints", b.patch_control_points.is_some()),
                (
                    "Topology",
                    b.topology.as_deref().is_some_and(|t| t != "TriangleList"),
                ),
            ];
            if let Some((key, _)) = ia.iter().find(|(_, set)| *set) {
                return Err((
                    line_of_key(text, key),
                    format!(
                        "`Bindings: {key}` in a mesh pipeline: it has no input assembler (its mesh program makes the triangles)"
                    ),
                ));
            }
            draw.insert(
                "dispatch_mesh".into(),
                Value::Array(groups.iter().map(|&g| int(g)).collect()),
            );
            return finish(draw, b, o, text, target, samples);
        }
    };

    // Topology (`validatePipelineKind`).
    let topology_line = line_of_key(text, "Topology");
    let topology = match b.topology.as_deref() {
        None | Some("TriangleList") => "triangle_list".to_string(),
        Some("PointList") => "point_list".to_string(),
        Some("PatchList") => {
            let n = b.patch_control_points.ok_or((
                topology_line,
                "`Bindings: Topology: PatchList` needs `PatchControlPoints` (1 to 32)".to_string(),
            ))?;
            if !(1..=32).contains(&n) {
                return Err((
                    line_of_key(text, "PatchControlPoints"),
                    format!("`Bindings: PatchControlPoints: {n}`; give 1 to 32"),
                ));
            }
            format!("{n}_control_point_patchlist")
        }
        Some(other) => {
            return Err((
                topology_line,
                format!("`Bindings: Topology: {other}`; give TriangleList, PointList or PatchList"),
            ));
        }
    };
    let patch_list = b.topology.as_deref() == Some("PatchList");
    if !patch_list && b.patch_control_points.is_some() {
        return Err((
            line_of_key(text, "PatchControlPoints"),
            "`Bindings: PatchControlPoints` goes with `Topology: PatchList`".into(),
        ));
    }
    if tessellated != patch_list {
        return Err((
            topology_line,
            if tessellated {
                "hull and domain programs draw patches: give `Bindings: Topology: PatchList` and its `PatchControlPoints`".to_string()
            } else {
                "`Bindings: Topology: PatchList` needs `Hull` and `Domain` programs in `Shaders` (a patch reaches the rasterizer only through the tessellator)".to_string()
            },
        ));
    }
    draw.insert("topology".into(), Value::String(topology));

    // The vertex buffer and its layout.
    let mut stride = 0u32;
    let mut elements = Vec::new();
    for (i, a) in b.vertex_attributes.iter().enumerate() {
        let what = format!("`Bindings: VertexAttributes[{i}]`");
        let line = line_of_key(text, "VertexAttributes");
        let f = element_format(a.format, a.channels, "vertex attribute")
            .map_err(|m| (line, format!("{what}: {m}")))?;
        let mut e = Table::new();
        e.insert("semantic".into(), Value::String(a.name.clone()));
        e.insert("index".into(), int(0));
        e.insert("format".into(), Value::String(f));
        e.insert("slot".into(), int(0));
        e.insert("offset".into(), int(a.offset));
        elements.push(Value::Table(e));
        stride = stride.saturating_add(a.format.size().saturating_mul(a.channels));
    }
    let mut vertices = None;
    if let Some(name) = &b.vertex_buffer {
        let vb = &held[find(name, "VertexBuffer")?];
        if vb.buffer.array_size != 1 {
            return Err((
                line_of_key(text, "VertexBuffer"),
                format!(
                    "`Bindings: VertexBuffer`: `{name}` is an array; a vertex buffer is one buffer"
                ),
            ));
        }
        if stride == 0 {
            return Err((
                line_of_key(text, "VertexBuffer"),
                "`Bindings: VertexBuffer` without `VertexAttributes` to lay its vertices out"
                    .into(),
            ));
        }
        let bytes = vb.blocks.first().map(Vec::as_slice).unwrap_or_default();
        let mut vt = Table::new();
        vt.insert("slot".into(), int(0));
        vt.insert("stride".into(), int(stride));
        let mut data = Table::new();
        data.insert("hex".into(), Value::String(hex(bytes)));
        vt.insert("data".into(), Value::Table(data));
        draw.insert("vertex_buffer".into(), Value::Array(vec![Value::Table(vt)]));
        vertices = Some(bytes.len() as u64 / u64::from(stride));
    } else if !elements.is_empty() {
        return Err((
            line_of_key(text, "VertexAttributes"),
            "`Bindings: VertexAttributes` without a `VertexBuffer` to read them from".into(),
        ));
    }
    if !elements.is_empty() {
        draw.insert("input_element".into(), Value::Array(elements));
    }
    let count = match p.dispatch_parameters.as_ref().and_then(|d| d.vertex_count) {
        Some(n) => u64::from(n),
        None => vertices.ok_or((
            0,
            "a raster pipeline without a vertex buffer needs `DispatchParameters: VertexCount`"
                .to_string(),
        ))?,
    };
    let count = u32::try_from(count).map_err(|_| (0, format!("{count} vertices")))?;
    draw.insert("vertex_count".into(), int(count));
    finish(draw, b, o, text, target, samples)
}

/// Adds the viewports and scissors to `draw` and makes the [`Draw`].
fn finish(
    mut draw: Table,
    b: &super::pipeline::IoBindings,
    o: super::pipeline::OutputProps,
    text: &str,
    target: usize,
    samples: u32,
) -> Result<Draw, (usize, String)> {
    // Viewports and scissors.
    match (&b.viewports, &b.scissors) {
        (None, None) => {
            draw.insert(
                "viewport".into(),
                Value::Array(vec![
                    float(0.0),
                    float(0.0),
                    float(o.width as f32),
                    float(o.height as f32),
                    float(0.0),
                    float(1.0),
                ]),
            );
            draw.insert(
                "scissor".into(),
                Value::Array(vec![int(0), int(0), int(o.width), int(o.height)]),
            );
        }
        (vps, scs) => {
            let vps = vps.as_deref().unwrap_or_default();
            let scs = scs.as_deref().unwrap_or_default();
            let line = line_of_key(text, "Viewports");
            if vps.len() != scs.len() {
                return Err((
                    line,
                    format!(
                        "`Bindings: Scissors` has {} entries for {} viewports; give one per viewport",
                        scs.len(),
                        vps.len()
                    ),
                ));
            }
            if vps.is_empty() || vps.len() > MAX_VIEWPORTS {
                return Err((
                    line,
                    format!(
                        "`Bindings: Viewports`: {}; give 1 to {MAX_VIEWPORTS}",
                        vps.len()
                    ),
                ));
            }
            let mut vlist = Vec::new();
            for (i, v) in vps.iter().enumerate() {
                let all = [v.x, v.y, v.width, v.height, v.min_depth, v.max_depth];
                if all.iter().any(|f| !f.is_finite()) {
                    return Err((
                        line,
                        format!("`Bindings: Viewports[{i}]`: values must be finite"),
                    ));
                }
                if v.width <= 0.0 || v.height <= 0.0 {
                    return Err((
                        line,
                        format!("`Bindings: Viewports[{i}]`: width and height must be positive"),
                    ));
                }
                if v.min_depth < 0.0 || v.max_depth > 1.0 || v.min_depth > v.max_depth {
                    return Err((
                        line,
                        format!(
                            "`Bindings: Viewports[{i}]`: the depth range must satisfy 0 <= MinDepth <= MaxDepth <= 1"
                        ),
                    ));
                }
                vlist.push(Value::Array(all.iter().map(|&f| float(f)).collect()));
            }
            let mut slist = Vec::new();
            let sline = line_of_key(text, "Scissors");
            for (i, s) in scs.iter().enumerate() {
                if s.x < 0 || s.y < 0 || s.width == 0 || s.height == 0 {
                    return Err((
                        sline,
                        format!(
                            "`Bindings: Scissors[{i}]`: X and Y must not be negative, width and height positive"
                        ),
                    ));
                }
                let right = i64::from(s.x) + i64::from(s.width);
                let bottom = i64::from(s.y) + i64::from(s.height);
                if right > i64::from(i32::MAX) || bottom > i64::from(i32::MAX) {
                    return Err((sline, format!("`Bindings: Scissors[{i}]`: too large")));
                }
                slist.push(Value::Array(vec![
                    int(s.x),
                    int(s.y),
                    int(right),
                    int(bottom),
                ]));
            }
            draw.insert("viewports".into(), Value::Array(vlist));
            draw.insert("scissors".into(), Value::Array(slist));
        }
    }
    Ok(Draw {
        table: draw,
        target,
        samples,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A raster pipeline with a 2×2 Float32 × 4 target and the `Bindings` tail `extra`.
    fn table(extra: &str, kind: RasterKind) -> Result<Draw, (usize, String)> {
        let text = format!(
            "Shaders: []\nBuffers:\n  - Name: Out\n    Format: Float32\n    Channels: 4\n    FillSize: 64\n    OutputProps:\n      Height: 2\n      Width: 2\n      Depth: 1\nDescriptorSets: []\nDispatchParameters:\n  VertexCount: 3\nBindings:\n  RenderTarget: Out\n{extra}"
        );
        let p = super::super::pipeline::parse(&text).unwrap();
        let held: Vec<Held> = p
            .buffers
            .iter()
            .map(|b| Held {
                buffer: b.clone(),
                blocks: b.bytes().unwrap(),
                counters: Vec::new(),
            })
            .collect();
        draw_table(&p, &held, &text, kind)
    }

    /// `Device.cpp`: the target, the depth buffer and the pipeline state take the sample
    /// count (`Bindings: SampleCount`), with `MultisampleEnable` on above one sample.
    #[test]
    fn sample_count_reaches_target_and_rasterizer() {
        let d = table(
            "  SampleCount: 4\n",
            RasterKind::Vertices { tessellated: false },
        )
        .unwrap();
        assert_eq!(d.samples, 4);
        let rt = &d.table["render_target"].as_array().unwrap()[0];
        assert_eq!(rt["samples"].as_integer(), Some(4));
        assert_eq!(d.table["rasterizer"]["multisample"].as_bool(), Some(true));
        let one = table("", RasterKind::Vertices { tessellated: false }).unwrap();
        assert_eq!(one.samples, 1);
        assert!(one.table["rasterizer"].get("multisample").is_none());
        let (line, m) = table(
            "  SampleCount: 5\n",
            RasterKind::Vertices { tessellated: false },
        )
        .unwrap_err();
        assert_eq!(line, 16, "{m}");
    }

    /// `createPipelineAsMsPs` leaves the rasterizer at D3D12's default (back faces
    /// culled, clockwise front), and a mesh draw is `DispatchMesh` with no input
    /// assembler; `createTraditionalRasterPipeline` turns culling off, counter-clockwise
    /// front, and a patch list is the n-control-point topology.
    #[test]
    fn mesh_and_patch_state() {
        let d = table("", RasterKind::Mesh([2, 1, 1])).unwrap();
        assert_eq!(d.table["rasterizer"]["cull"].as_str(), Some("BACK"));
        assert_eq!(d.table["rasterizer"]["front_ccw"].as_bool(), Some(false));
        assert!(d.table.get("topology").is_none() && d.table.get("vertex_count").is_none());
        assert_eq!(
            d.table["dispatch_mesh"].as_array().unwrap().len(),
            3,
            "{:?}",
            d.table
        );
        let t = table(
            "  Topology: PatchList\n  PatchControlPoints: 4\n",
            RasterKind::Vertices { tessellated: true },
        )
        .unwrap();
        assert_eq!(
            t.table["topology"].as_str(),
            Some("4_control_point_patchlist")
        );
        assert_eq!(t.table["rasterizer"]["cull"].as_str(), Some("NONE"));
    }

    /// `Device.cpp` makes render targets and input layouts from the format and the
    /// channel count; 64-bit and 8-bit formats, and 3-channel 16-bit ones, have none.
    #[test]
    fn formats_follow_format_and_channels() {
        assert_eq!(
            element_format(DataFormat::Float32, 4, "x").unwrap(),
            "R32G32B32A32_FLOAT"
        );
        assert_eq!(
            element_format(DataFormat::Float32, 3, "x").unwrap(),
            "R32G32B32_FLOAT"
        );
        assert_eq!(
            element_format(DataFormat::Int16, 2, "x").unwrap(),
            "R16G16_SINT"
        );
        assert!(element_format(DataFormat::Float64, 1, "x").is_err());
        assert!(element_format(DataFormat::UInt16, 3, "x").is_err());
        assert!(element_format(DataFormat::Float32, 5, "x").is_err());
    }
}
