//! The draw state, in Direct3D 12's vocabulary: what `ID3D12GraphicsCommandList` and a
//! `D3D12_GRAPHICS_PIPELINE_STATE_DESC` say about a draw, as plain Rust values.
//!
//! Each type mirrors one D3D12 description (`D3D12_INPUT_ELEMENT_DESC`,
//! `D3D12_RASTERIZER_DESC`, `D3D12_BLEND_DESC`, `D3D12_DEPTH_STENCIL_DESC`,
//! `D3D12_VIEWPORT`, `D3D12_RECT`), with the same field meanings and the same defaults
//! (`Default` is the `CD3DX12_*_DESC(D3D12_DEFAULT)` state). The job file maps onto these;
//! a Rust caller fills them directly (see [`super::draw`](fn@super::draw)).

use super::dispatch::Bindings;
use crate::ir::Shader;
use crate::resources::{ComparisonFunc, Format, Memory, Texture};

/// `D3D12_APPEND_ALIGNED_ELEMENT`: the element starts where the previous element of the
/// same slot ends.
pub const APPEND_ALIGNED_ELEMENT: u32 = 0xffff_ffff;

/// The number of vertex buffer slots (`D3D12_IA_VERTEX_INPUT_RESOURCE_SLOT_COUNT`).
pub const VERTEX_INPUT_SLOTS: u32 = 32;

/// The number of simultaneous render targets (`D3D12_SIMULTANEOUS_RENDER_TARGET_COUNT`).
pub const RENDER_TARGETS: usize = 8;

/// The most viewports and scissor rectangles a draw binds
/// (`D3D12_VIEWPORT_AND_SCISSORRECT_OBJECT_COUNT_PER_PIPELINE`).
pub const VIEWPORTS: usize = 16;

/// `D3D12_INPUT_ELEMENT_DESC`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct InputElementDesc {
    /// Semantic name (`POSITION`), matched without regard to case as D3D does.
    pub semantic: String,
    /// Semantic index.
    pub semantic_index: u32,
    /// Format of the element in the buffer.
    pub format: Format,
    /// Vertex buffer slot.
    pub input_slot: u32,
    /// Byte offset within a vertex, or [`APPEND_ALIGNED_ELEMENT`].
    pub aligned_byte_offset: u32,
    /// 0: per-vertex data. `n > 0`: per-instance data, advancing every `n` instances.
    pub instance_data_step_rate: u32,
}

/// `D3D12_INPUT_LAYOUT_DESC`: the elements the input assembler fetches.
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct InputLayout {
    /// The elements, in declaration order.
    pub elements: Vec<InputElementDesc>,
}

/// `D3D_PRIMITIVE_TOPOLOGY` (the list and strip kinds a draw without tessellation takes).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PrimitiveTopology {
    /// `D3D_PRIMITIVE_TOPOLOGY_POINTLIST`.
    PointList,
    /// `D3D_PRIMITIVE_TOPOLOGY_LINELIST`.
    LineList,
    /// `D3D_PRIMITIVE_TOPOLOGY_LINESTRIP`.
    LineStrip,
    /// `D3D_PRIMITIVE_TOPOLOGY_TRIANGLELIST`.
    TriangleList,
    /// `D3D_PRIMITIVE_TOPOLOGY_TRIANGLESTRIP`.
    TriangleStrip,
    /// `D3D_PRIMITIVE_TOPOLOGY_LINELIST_ADJ`.
    LineListAdj,
    /// `D3D_PRIMITIVE_TOPOLOGY_LINESTRIP_ADJ`.
    LineStripAdj,
    /// `D3D_PRIMITIVE_TOPOLOGY_TRIANGLELIST_ADJ`.
    TriangleListAdj,
    /// `D3D_PRIMITIVE_TOPOLOGY_TRIANGLESTRIP_ADJ`.
    TriangleStripAdj,
    /// `D3D_PRIMITIVE_TOPOLOGY_n_CONTROL_POINT_PATCHLIST` (n = 1 … 32): patches of n
    /// control points for a hull program.
    PatchList(u8),
}

/// The job-file names of the patch-list topologies, `n_control_point_patchlist`, by n − 1.
const PATCH_NAMES: [&str; 32] = [
    "1_control_point_patchlist",
    "2_control_point_patchlist",
    "3_control_point_patchlist",
    "4_control_point_patchlist",
    "5_control_point_patchlist",
    "6_control_point_patchlist",
    "7_control_point_patchlist",
    "8_control_point_patchlist",
    "9_control_point_patchlist",
    "10_control_point_patchlist",
    "11_control_point_patchlist",
    "12_control_point_patchlist",
    "13_control_point_patchlist",
    "14_control_point_patchlist",
    "15_control_point_patchlist",
    "16_control_point_patchlist",
    "17_control_point_patchlist",
    "18_control_point_patchlist",
    "19_control_point_patchlist",
    "20_control_point_patchlist",
    "21_control_point_patchlist",
    "22_control_point_patchlist",
    "23_control_point_patchlist",
    "24_control_point_patchlist",
    "25_control_point_patchlist",
    "26_control_point_patchlist",
    "27_control_point_patchlist",
    "28_control_point_patchlist",
    "29_control_point_patchlist",
    "30_control_point_patchlist",
    "31_control_point_patchlist",
    "32_control_point_patchlist",
];

impl PrimitiveTopology {
    /// Every topology with its job-file name (the `D3D_PRIMITIVE_TOPOLOGY_` suffix in
    /// lower case).
    pub const NAMES: &'static [(&'static str, PrimitiveTopology)] = &[
        ("point_list", PrimitiveTopology::PointList),
        ("line_list", PrimitiveTopology::LineList),
        ("line_strip", PrimitiveTopology::LineStrip),
        ("triangle_list", PrimitiveTopology::TriangleList),
        ("triangle_strip", PrimitiveTopology::TriangleStrip),
        ("line_list_adj", PrimitiveTopology::LineListAdj),
        ("line_strip_adj", PrimitiveTopology::LineStripAdj),
        ("triangle_list_adj", PrimitiveTopology::TriangleListAdj),
        ("triangle_strip_adj", PrimitiveTopology::TriangleStripAdj),
    ];

    /// The topology named `name` (`triangle_list`; `trianglelist` and the
    /// `D3D_PRIMITIVE_TOPOLOGY_` prefix are accepted too, in any case).
    pub fn from_name(name: &str) -> Option<PrimitiveTopology> {
        let n = name.trim().to_ascii_lowercase();
        let n = n.strip_prefix("d3d_primitive_topology_").unwrap_or(&n);
        let squash = |s: &str| s.replace('_', "");
        if let Some(k) = PATCH_NAMES.iter().position(|p| squash(p) == squash(n)) {
            return u8::try_from(k + 1).ok().map(PrimitiveTopology::PatchList);
        }
        Self::NAMES
            .iter()
            .find(|(k, _)| squash(k) == squash(n))
            .map(|(_, t)| *t)
    }

    /// The job-file name.
    pub fn name(self) -> &'static str {
        if let PrimitiveTopology::PatchList(n) = self {
            return PATCH_NAMES
                .get(usize::from(n).wrapping_sub(1))
                .copied()
                .unwrap_or("?");
        }
        Self::NAMES
            .iter()
            .find(|(_, t)| *t == self)
            .map_or("?", |(k, _)| k)
    }
}

/// `D3D12_INDEX_BUFFER_VIEW` formats.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum IndexFormat {
    /// `DXGI_FORMAT_R16_UINT` (strip cut value 0xffff).
    U16,
    /// `DXGI_FORMAT_R32_UINT` (strip cut value 0xffffffff).
    U32,
}

/// `D3D12_INDEX_BUFFER_STRIP_CUT_VALUE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum StripCutValue {
    /// No strip cut: every index is a vertex.
    #[default]
    Disabled,
    /// 0xffff (16-bit indices) or 0xffffffff (32-bit indices) restarts a strip.
    Enabled,
}

/// `D3D12_VERTEX_BUFFER_VIEW`: the bytes of one slot and the stride between vertices.
#[derive(Debug, Clone, PartialEq)]
pub struct VertexBufferView {
    /// The buffer's bytes; the view starts `offset` bytes in. Reads past the view's end
    /// (or the buffer's) are out of bounds (`ia::fetch`).
    pub data: Memory,
    /// Bytes from one vertex (or instance) to the next.
    pub stride: u32,
    /// Where the view starts in `data` (`BufferLocation` less the buffer's address).
    pub offset: u64,
    /// `SizeInBytes` (`None`: to the end of `data`).
    pub size: Option<u64>,
}

/// `D3D12_INDEX_BUFFER_VIEW`.
#[derive(Debug, Clone, PartialEq)]
pub struct IndexBufferView {
    /// The indices' bytes; the view starts `offset` bytes in, and an index past the
    /// view's end (or the buffer's) reads 0.
    pub data: Memory,
    /// 16- or 32-bit indices.
    pub format: IndexFormat,
    /// Where the view starts in `data` (`BufferLocation` less the buffer's address).
    pub offset: u64,
    /// `SizeInBytes` (`None`: to the end of `data`).
    pub size: Option<u64>,
}

/// Reads `out.len()` bytes at `addr` of a buffer view of `data` starting at `offset`
/// and `size` bytes long (`None`: to the end of `data`): `false`, and nothing read, when
/// any byte lies past the view or the buffer.
pub(crate) fn read_view(
    data: &Memory,
    offset: u64,
    size: Option<u64>,
    addr: u64,
    out: &mut [u8],
) -> bool {
    let Some(end) = addr.checked_add(out.len() as u64) else {
        return false;
    };
    if size.is_some_and(|s| end > s) {
        return false;
    }
    offset
        .checked_add(addr)
        .is_some_and(|a| data.read_bytes(a, out))
}

/// `D3D12_FILL_MODE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum FillMode {
    /// `D3D12_FILL_MODE_SOLID`.
    #[default]
    Solid,
    /// `D3D12_FILL_MODE_WIREFRAME`: triangles drawn as their three edges (lines).
    Wireframe,
}

/// `D3D12_CULL_MODE`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum CullMode {
    /// Draw both faces.
    None,
    /// Do not draw front faces.
    Front,
    /// Do not draw back faces (the default).
    #[default]
    Back,
}

/// `D3D12_RASTERIZER_DESC`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct RasterizerDesc {
    /// Solid or wireframe.
    pub fill_mode: FillMode,
    /// Which faces are culled.
    pub cull_mode: CullMode,
    /// Whether counter-clockwise triangles (on screen) are front faces.
    pub front_counter_clockwise: bool,
    /// Constant depth bias, in units of the depth format's resolution (see `setup`).
    pub depth_bias: i32,
    /// The largest bias magnitude (0 = no clamp).
    pub depth_bias_clamp: f32,
    /// Bias per unit of the primitive's largest depth slope.
    pub slope_scaled_depth_bias: f32,
    /// Clip against the near and far planes (0 ≤ z ≤ w).
    pub depth_clip_enable: bool,
    /// D3D10.1+: affects only line rasterization (quadrilateral lines when true, for any
    /// sample count: `setup::LineMode`); points and triangles always use the render
    /// target's samples.
    pub multisample_enable: bool,
    /// With `multisample_enable` false: alpha-antialiased lines (`setup::LineMode`).
    pub antialiased_line_enable: bool,
    /// `D3D12_RASTERIZER_DESC2`'s `LineRasterizationMode`, which replaces
    /// `MultisampleEnable` and `AntialiasedLineEnable` in that description: `None` for a
    /// `D3D12_RASTERIZER_DESC` (the two booleans choose), `Some` to name the mode,
    /// including `QUADRILATERAL_NARROW`, which the booleans cannot express. With `Some`
    /// both booleans must be false (a draw with either is refused, naming the
    /// rasterizer): a description has one or the other.
    pub line_rasterization_mode: Option<LineRasterizationMode>,
    /// `ForcedSampleCount` (target-independent rasterization, `draw`): 0 (off), or 1, 4,
    /// 8 or 16 with no depth-stencil view bound: coverage at that count of the standard
    /// (or programmed) pattern, the pixel program once per pixel covering any of it; with
    /// one-sample render targets (any sample count at 1) each shaded pixel writes every
    /// target sample, and with no target at all the viewports give the area (UAV-only
    /// rendering).
    pub forced_sample_count: u32,
    /// `ConservativeRaster`: `D3D12_CONSERVATIVE_RASTERIZATION_MODE_ON` when true. Tier 1
    /// (`setup`, `raster`): a pixel is covered when the triangle overlaps its square at
    /// all, with every sample; triangles only, solid fill only.
    pub conservative: bool,
    /// `SetSamplePositions` (a command-list call in D3D12, kept with the rasterizer
    /// state here): `None` for the standard pattern.
    pub sample_positions: Option<SamplePositions>,
}

/// `D3D12_LINE_RASTERIZATION_MODE` (`D3D12_RASTERIZER_DESC2::LineRasterizationMode`):
/// the line algorithm named directly instead of through `MultisampleEnable` and
/// `AntialiasedLineEnable` (`setup::LineMode` holds the rule of each).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum LineRasterizationMode {
    /// `ALIASED`: the diamond-exit rule (both booleans false).
    Aliased,
    /// `ALPHA_ANTIALIASED`: (`AntialiasedLineEnable` alone).
    AlphaAntialiased,
    /// `QUADRILATERAL_WIDE`: quadrilateral lines 1.4 pixels wide (`MultisampleEnable`).
    QuadrilateralWide,
    /// `QUADRILATERAL_NARROW`: quadrilateral lines 1.0 pixel wide (D3D12 options 19,
    /// `NarrowQuadrilateralLinesSupported`; no boolean form).
    QuadrilateralNarrow,
}

impl LineRasterizationMode {
    /// Each mode with its job-file name (`D3D12_LINE_RASTERIZATION_MODE_` dropped, lower
    /// case).
    pub const NAMES: [(&'static str, LineRasterizationMode); 4] = [
        ("aliased", LineRasterizationMode::Aliased),
        ("alpha_antialiased", LineRasterizationMode::AlphaAntialiased),
        (
            "quadrilateral_wide",
            LineRasterizationMode::QuadrilateralWide,
        ),
        (
            "quadrilateral_narrow",
            LineRasterizationMode::QuadrilateralNarrow,
        ),
    ];
}

/// The positions `SetSamplePositions` programs: `len` of `xy`, in sixteenths of a pixel
/// from the pixel centre (-8..7), all samples of a pixel before the next pixel's —
/// `NumSamplesPerPixel` of them for every pixel, or 4 × that for a 2×2 grid of pixels
/// (`raster::Pattern::programmed` checks them against the draw's sample count).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SamplePositions {
    /// How many of `xy` are given (at most 16).
    pub len: u8,
    /// The positions, `(X, Y)` each.
    pub xy: [[i8; 2]; 16],
}

impl SamplePositions {
    /// The positions given.
    pub fn positions(&self) -> &[[i8; 2]] {
        &self.xy[..usize::from(self.len).min(16)]
    }
}

impl Default for RasterizerDesc {
    /// `CD3DX12_RASTERIZER_DESC(D3D12_DEFAULT)`.
    fn default() -> RasterizerDesc {
        RasterizerDesc {
            fill_mode: FillMode::Solid,
            cull_mode: CullMode::Back,
            front_counter_clockwise: false,
            depth_bias: 0,
            depth_bias_clamp: 0.0,
            slope_scaled_depth_bias: 0.0,
            depth_clip_enable: true,
            multisample_enable: false,
            antialiased_line_enable: false,
            line_rasterization_mode: None,
            forced_sample_count: 0,
            conservative: false,
            sample_positions: None,
        }
    }
}

/// `D3D12_BLEND`: a blend factor.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum Blend {
    Zero,
    One,
    SrcColor,
    InvSrcColor,
    SrcAlpha,
    InvSrcAlpha,
    DestAlpha,
    InvDestAlpha,
    DestColor,
    InvDestColor,
    /// `(f, f, f, 1)` with `f = min(As, 1 − Ad)`.
    SrcAlphaSat,
    /// The blend factor constant (`OMSetBlendFactor`).
    BlendFactor,
    InvBlendFactor,
    /// Dual-source blending: the second colour output (`SV_Target1`).
    Src1Color,
    InvSrc1Color,
    Src1Alpha,
    InvSrc1Alpha,
    /// `D3D12_BLEND_ALPHA_FACTOR`: the blend factor's alpha in every channel.
    AlphaFactor,
    InvAlphaFactor,
}

impl Blend {
    /// Every factor with its `D3D12_BLEND_` name.
    pub const NAMES: &'static [(&'static str, Blend)] = &[
        ("ZERO", Blend::Zero),
        ("ONE", Blend::One),
        ("SRC_COLOR", Blend::SrcColor),
        ("INV_SRC_COLOR", Blend::InvSrcColor),
        ("SRC_ALPHA", Blend::SrcAlpha),
        ("INV_SRC_ALPHA", Blend::InvSrcAlpha),
        ("DEST_ALPHA", Blend::DestAlpha),
        ("INV_DEST_ALPHA", Blend::InvDestAlpha),
        ("DEST_COLOR", Blend::DestColor),
        ("INV_DEST_COLOR", Blend::InvDestColor),
        ("SRC_ALPHA_SAT", Blend::SrcAlphaSat),
        ("BLEND_FACTOR", Blend::BlendFactor),
        ("INV_BLEND_FACTOR", Blend::InvBlendFactor),
        ("SRC1_COLOR", Blend::Src1Color),
        ("INV_SRC1_COLOR", Blend::InvSrc1Color),
        ("SRC1_ALPHA", Blend::Src1Alpha),
        ("INV_SRC1_ALPHA", Blend::InvSrc1Alpha),
        ("ALPHA_FACTOR", Blend::AlphaFactor),
        ("INV_ALPHA_FACTOR", Blend::InvAlphaFactor),
    ];

    /// Whether the factor reads the second colour output (dual-source blending).
    pub fn dual_source(self) -> bool {
        matches!(
            self,
            Blend::Src1Color | Blend::InvSrc1Color | Blend::Src1Alpha | Blend::InvSrc1Alpha
        )
    }
}

/// `D3D12_BLEND_OP`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum BlendOp {
    /// `src × sf + dst × df`.
    Add,
    /// `src × sf − dst × df`.
    Subtract,
    /// `dst × df − src × sf`.
    RevSubtract,
    /// `min(src, dst)` (factors unused).
    Min,
    /// `max(src, dst)` (factors unused).
    Max,
}

impl BlendOp {
    /// Every operation with its `D3D12_BLEND_OP_` name.
    pub const NAMES: &'static [(&'static str, BlendOp)] = &[
        ("ADD", BlendOp::Add),
        ("SUBTRACT", BlendOp::Subtract),
        ("REV_SUBTRACT", BlendOp::RevSubtract),
        ("MIN", BlendOp::Min),
        ("MAX", BlendOp::Max),
    ];
}

/// `D3D12_LOGIC_OP` (on UINT render targets): `s` the shader's value, `d` the target's.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
#[allow(missing_docs)]
pub enum LogicOp {
    Clear,
    Set,
    Copy,
    CopyInverted,
    Noop,
    Invert,
    And,
    Nand,
    Or,
    Nor,
    Xor,
    Equiv,
    AndReverse,
    AndInverted,
    OrReverse,
    OrInverted,
}

impl LogicOp {
    /// Every operation with its `D3D12_LOGIC_OP_` name.
    pub const NAMES: &'static [(&'static str, LogicOp)] = &[
        ("CLEAR", LogicOp::Clear),
        ("SET", LogicOp::Set),
        ("COPY", LogicOp::Copy),
        ("COPY_INVERTED", LogicOp::CopyInverted),
        ("NOOP", LogicOp::Noop),
        ("INVERT", LogicOp::Invert),
        ("AND", LogicOp::And),
        ("NAND", LogicOp::Nand),
        ("OR", LogicOp::Or),
        ("NOR", LogicOp::Nor),
        ("XOR", LogicOp::Xor),
        ("EQUIV", LogicOp::Equiv),
        ("AND_REVERSE", LogicOp::AndReverse),
        ("AND_INVERTED", LogicOp::AndInverted),
        ("OR_REVERSE", LogicOp::OrReverse),
        ("OR_INVERTED", LogicOp::OrInverted),
    ];

    /// The operation on 32-bit values (D3D11.3 §17.7 "Logic Ops"; the operations listed in §17.1 "Blend State", as OpenGL's table).
    pub fn apply(self, s: u32, d: u32) -> u32 {
        match self {
            LogicOp::Clear => 0,
            LogicOp::Set => u32::MAX,
            LogicOp::Copy => s,
            LogicOp::CopyInverted => !s,
            LogicOp::Noop => d,
            LogicOp::Invert => !d,
            LogicOp::And => s & d,
            LogicOp::Nand => !(s & d),
            LogicOp::Or => s | d,
            LogicOp::Nor => !(s | d),
            LogicOp::Xor => s ^ d,
            LogicOp::Equiv => !(s ^ d),
            LogicOp::AndReverse => s & !d,
            LogicOp::AndInverted => !s & d,
            LogicOp::OrReverse => s | !d,
            LogicOp::OrInverted => !s | d,
        }
    }
}

/// `D3D12_RENDER_TARGET_BLEND_DESC`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct RenderTargetBlendDesc {
    /// Blend the shader's colour with the target's.
    pub blend_enable: bool,
    /// Combine with a logic operation instead (UINT targets).
    pub logic_op_enable: bool,
    /// Colour source factor.
    pub src_blend: Blend,
    /// Colour destination factor.
    pub dest_blend: Blend,
    /// Colour operation.
    pub blend_op: BlendOp,
    /// Alpha source factor.
    pub src_blend_alpha: Blend,
    /// Alpha destination factor.
    pub dest_blend_alpha: Blend,
    /// Alpha operation.
    pub blend_op_alpha: BlendOp,
    /// The logic operation.
    pub logic_op: LogicOp,
    /// Components written (bit 0 = red … bit 3 = alpha; `D3D12_COLOR_WRITE_ENABLE_ALL` = 0xf).
    pub render_target_write_mask: u8,
}

impl Default for RenderTargetBlendDesc {
    /// Blending off, `ONE`/`ZERO`/`ADD`, logic op `NOOP`, all components written.
    fn default() -> RenderTargetBlendDesc {
        RenderTargetBlendDesc {
            blend_enable: false,
            logic_op_enable: false,
            src_blend: Blend::One,
            dest_blend: Blend::Zero,
            blend_op: BlendOp::Add,
            src_blend_alpha: Blend::One,
            dest_blend_alpha: Blend::Zero,
            blend_op_alpha: BlendOp::Add,
            logic_op: LogicOp::Noop,
            render_target_write_mask: 0xf,
        }
    }
}

/// `D3D12_BLEND_DESC`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct BlendDesc {
    /// Alpha-to-coverage: the first target's alpha becomes a sample mask.
    pub alpha_to_coverage_enable: bool,
    /// Each target has its own entry; otherwise `render_target[0]` applies to all.
    pub independent_blend_enable: bool,
    /// Per render target.
    pub render_target: [RenderTargetBlendDesc; RENDER_TARGETS],
}

impl BlendDesc {
    /// The blend description that applies to render target `i`.
    pub fn target(&self, i: usize) -> &RenderTargetBlendDesc {
        let i = if self.independent_blend_enable { i } else { 0 };
        &self.render_target[i.min(RENDER_TARGETS - 1)]
    }
}

/// `D3D12_STENCIL_OP`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum StencilOp {
    /// Keep the stored value.
    Keep,
    /// Set it to 0.
    Zero,
    /// Set it to the reference value.
    Replace,
    /// Increment, clamping at the largest value.
    IncrSat,
    /// Decrement, clamping at 0.
    DecrSat,
    /// Invert its bits.
    Invert,
    /// Increment, wrapping.
    Incr,
    /// Decrement, wrapping.
    Decr,
}

impl StencilOp {
    /// Every operation with its `D3D12_STENCIL_OP_` name.
    pub const NAMES: &'static [(&'static str, StencilOp)] = &[
        ("KEEP", StencilOp::Keep),
        ("ZERO", StencilOp::Zero),
        ("REPLACE", StencilOp::Replace),
        ("INCR_SAT", StencilOp::IncrSat),
        ("DECR_SAT", StencilOp::DecrSat),
        ("INVERT", StencilOp::Invert),
        ("INCR", StencilOp::Incr),
        ("DECR", StencilOp::Decr),
    ];

    /// The new 8-bit stencil value from the stored `s` and the reference `r`.
    pub fn apply(self, s: u8, r: u8) -> u8 {
        match self {
            StencilOp::Keep => s,
            StencilOp::Zero => 0,
            StencilOp::Replace => r,
            StencilOp::IncrSat => s.saturating_add(1),
            StencilOp::DecrSat => s.saturating_sub(1),
            StencilOp::Invert => !s,
            StencilOp::Incr => s.wrapping_add(1),
            StencilOp::Decr => s.wrapping_sub(1),
        }
    }
}

/// `D3D12_DEPTH_STENCILOP_DESC`: what the stencil test does for one face.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DepthStencilOpDesc {
    /// When the stencil test fails.
    pub stencil_fail_op: StencilOp,
    /// When the stencil test passes and the depth test fails.
    pub stencil_depth_fail_op: StencilOp,
    /// When both pass.
    pub stencil_pass_op: StencilOp,
    /// `(ref & read_mask) FUNC (stored & read_mask)`.
    pub stencil_func: ComparisonFunc,
}

impl Default for DepthStencilOpDesc {
    /// `KEEP`, `KEEP`, `KEEP`, `ALWAYS`.
    fn default() -> DepthStencilOpDesc {
        DepthStencilOpDesc {
            stencil_fail_op: StencilOp::Keep,
            stencil_depth_fail_op: StencilOp::Keep,
            stencil_pass_op: StencilOp::Keep,
            stencil_func: ComparisonFunc::Always,
        }
    }
}

/// One face's stencil masks (`D3D12_DEPTH_STENCILOP_DESC1`'s `StencilReadMask` and
/// `StencilWriteMask`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct StencilMasks {
    /// Bits the stencil test reads.
    pub read: u8,
    /// Bits stencil operations write.
    pub write: u8,
}

/// `D3D12_DEPTH_STENCIL_DESC`, and `D3D12_DEPTH_STENCIL_DESC2`'s masks per face.
///
/// `stencil_read_mask` and `stencil_write_mask` serve both faces, as in
/// `D3D12_DEPTH_STENCIL_DESC`, unless `back_face_masks` is given: then they are the front
/// face's and `back_face_masks` the back face's (the independent front/back stencil masks
/// of DirectX-Specs, "VulkanOn12", section "Independent Front/Back Stencil Refs and
/// Masks", which renames the single masks to the front face's and adds the back face's).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DepthStencilDesc {
    /// Depth test.
    pub depth_enable: bool,
    /// `D3D12_DEPTH_WRITE_MASK_ALL` (true) or `_ZERO`.
    pub depth_write: bool,
    /// `incoming FUNC stored`.
    pub depth_func: ComparisonFunc,
    /// Stencil test.
    pub stencil_enable: bool,
    /// Bits the stencil test reads.
    pub stencil_read_mask: u8,
    /// Bits stencil operations write.
    pub stencil_write_mask: u8,
    /// Front faces (and points and lines).
    pub front_face: DepthStencilOpDesc,
    /// Back faces.
    pub back_face: DepthStencilOpDesc,
    /// The back face's own masks (`None`: the two above serve both faces).
    pub back_face_masks: Option<StencilMasks>,
    /// `DepthBoundsTestEnable` (`D3D12_DEPTH_STENCIL_DESC1`): a sample whose *stored*
    /// depth lies outside [`DrawState::depth_bounds`] is discarded (`om`).
    pub depth_bounds_test_enable: bool,
}

impl DepthStencilDesc {
    /// The stencil masks of the front (`true`) or back face: points and lines take the
    /// front face's, as they take its operations.
    pub fn stencil_masks(&self, front: bool) -> StencilMasks {
        match (front, self.back_face_masks) {
            (false, Some(m)) => m,
            _ => StencilMasks {
                read: self.stencil_read_mask,
                write: self.stencil_write_mask,
            },
        }
    }
}

impl Default for DepthStencilDesc {
    /// `CD3DX12_DEPTH_STENCIL_DESC(D3D12_DEFAULT)`: depth on, written, `LESS`; stencil off.
    fn default() -> DepthStencilDesc {
        DepthStencilDesc {
            depth_enable: true,
            depth_write: true,
            depth_func: ComparisonFunc::Less,
            stencil_enable: false,
            stencil_read_mask: 0xff,
            stencil_write_mask: 0xff,
            front_face: DepthStencilOpDesc::default(),
            back_face: DepthStencilOpDesc::default(),
            back_face_masks: None,
            depth_bounds_test_enable: false,
        }
    }
}

/// `D3D12_VIEWPORT`.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Viewport {
    /// Left edge, in pixels.
    pub top_left_x: f32,
    /// Top edge.
    pub top_left_y: f32,
    /// Width.
    pub width: f32,
    /// Height.
    pub height: f32,
    /// Depth that NDC z = 0 maps to.
    pub min_depth: f32,
    /// Depth that NDC z = 1 maps to.
    pub max_depth: f32,
}

impl Viewport {
    /// A viewport covering `width × height` pixels from the origin, depth 0 to 1.
    pub fn full(width: u32, height: u32) -> Viewport {
        Viewport {
            top_left_x: 0.0,
            top_left_y: 0.0,
            width: width as f32,
            height: height as f32,
            min_depth: 0.0,
            max_depth: 1.0,
        }
    }
}

/// `D3D12_RECT` (a scissor rectangle): pixels `left ≤ x < right`, `top ≤ y < bottom`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Rect {
    /// First column.
    pub left: i32,
    /// First row.
    pub top: i32,
    /// One past the last column.
    pub right: i32,
    /// One past the last row.
    pub bottom: i32,
}

/// One render target view: a 2D (or 2D multisampled) texture of one mip and one slice,
/// or a 2D array (multisampled or not) of one mip whose slices are the view's
/// (`Texture::target_view` makes one from an array's slices or a 3D texture's W slices):
/// `SV_RenderTargetArrayIndex` picks the slice of each primitive (`draw`).
#[derive(Debug, Clone, PartialEq)]
pub struct RenderTargetView {
    /// The texture written.
    pub texture: Texture,
}

/// A depth-stencil view: a texture in a depth format of one mip and one slice, or a 2D
/// array of one mip whose slices are the view's, as for [`RenderTargetView`].
#[derive(Debug, Clone, PartialEq)]
pub struct DepthStencilView {
    /// The texture (D16_UNORM, D24_UNORM_S8_UINT, D32_FLOAT or D32_FLOAT_S8X24_UINT).
    pub texture: Texture,
}

/// The arguments of `DrawInstanced` / `DrawIndexedInstanced`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct DrawArgs {
    /// Vertices (or indices, for an indexed draw) per instance.
    pub vertex_count: u32,
    /// Instances.
    pub instance_count: u32,
    /// First vertex (`StartVertexLocation`) or first index (`StartIndexLocation`).
    pub start_vertex: u32,
    /// Added to each index (`BaseVertexLocation`, indexed draws).
    pub base_vertex: i32,
    /// First instance (`StartInstanceLocation`).
    pub start_instance: u32,
}

impl Default for DrawArgs {
    /// One instance of zero vertices.
    fn default() -> DrawArgs {
        DrawArgs {
            vertex_count: 0,
            instance_count: 1,
            start_vertex: 0,
            base_vertex: 0,
            start_instance: 0,
        }
    }
}

/// The state of one draw: everything a `DrawInstanced` / `DrawIndexedInstanced` call
/// runs with — programs and their bindings, input layout and buffers, rasterizer, blend
/// and depth-stencil state, viewport, scissor, targets ([`draw`](fn@super::draw) runs
/// it). Fields are public: start from [`DrawState::new`] (D3D12's default states) and
/// set what differs.
#[derive(Clone)]
pub struct DrawState<'a> {
    /// The vertex program; in a mesh draw ([`DrawState::mesh`]) it is not run, and is
    /// the mesh program by convention.
    pub vs: &'a Shader,
    /// A mesh draw (`DispatchMesh` with a mesh pipeline): the mesh and amplification
    /// programs and the grid, which replace the input assembler and the vertex and
    /// geometry stages (`None`: a vertex-pipeline draw).
    pub mesh: Option<super::ms::MeshDraw<'a>>,
    /// The pixel program (`None`: depth and stencil only).
    pub ps: Option<&'a Shader>,
    /// The geometry program and its resources (`None`: the vertex program's outputs go
    /// to the rasterizer).
    pub gs: Option<(&'a Shader, &'a Bindings)>,
    /// The hull program and its resources (`None`: no tessellation).
    pub hs: Option<(&'a Shader, &'a Bindings)>,
    /// The domain program and its resources (with a hull program).
    pub ds: Option<(&'a Shader, &'a Bindings)>,
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
    /// `RSSetViewports`: up to [`VIEWPORTS`]; `SV_ViewportArrayIndex` picks one per
    /// primitive (empty = one viewport over the whole target, depth 0 to 1).
    pub viewports: Vec<Viewport>,
    /// `RSSetScissorRects`: rectangle `i` goes with viewport `i` (empty = no scissor,
    /// the whole target for every viewport).
    pub scissors: Vec<Rect>,
    /// `SampleMask`.
    pub sample_mask: u32,
    /// `OMSetBlendFactor`.
    pub blend_factor: [f32; 4],
    /// `OMSetStencilRef`: the reference of both faces; with `back_stencil_ref`, the
    /// front face's (`OMSetFrontAndBackStencilRef`'s `FrontStencilRef`).
    pub stencil_ref: u8,
    /// `OMSetFrontAndBackStencilRef`'s `BackStencilRef` (`None`: `stencil_ref` serves
    /// both faces, as after `OMSetStencilRef`).
    pub back_stencil_ref: Option<u8>,
    /// `OMSetDepthBounds(Min, Max)` (default 0 and 1): the range the depth-bounds test
    /// keeps, when `DepthStencilDesc::depth_bounds_test_enable` is on.
    pub depth_bounds: [f32; 2],
    /// `OMSetRenderTargets`: render targets 0–7.
    pub render_targets: Vec<Option<RenderTargetView>>,
    /// The depth-stencil view.
    pub depth_stencil_view: Option<DepthStencilView>,
    /// The pipeline state's `StreamOutput` and the views `SOSetTargets` binds (`None`: no
    /// stream output, stream 0 rasterized).
    pub stream_output: Option<super::so::StreamOutput>,
    /// The pipeline state's `D3D12_VIEW_INSTANCING_DESC` and the command list's
    /// `SetViewInstanceMask` (`None`: no view instancing, `SV_ViewID` reads 0; see
    /// [`super::view_instancing`]).
    pub view_instancing: Option<super::view_instancing::ViewInstancingDesc>,
    /// `RSSetShadingRate` and `RSSetShadingRateImage` (default 1X1, `PASSTHROUGH`
    /// twice, no image; [`super::vrs`]).
    pub shading_rate: super::vrs::ShadingRateState,
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
            mesh: None,
            ps,
            gs: None,
            hs: None,
            ds: None,
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
            viewports: Vec::new(),
            scissors: Vec::new(),
            sample_mask: u32::MAX,
            blend_factor: [1.0; 4],
            stencil_ref: 0,
            back_stencil_ref: None,
            depth_bounds: [0.0, 1.0],
            render_targets: Vec::new(),
            depth_stencil_view: None,
            stream_output: None,
            view_instancing: None,
            shading_rate: super::vrs::ShadingRateState::default(),
        }
    }

    /// The stencil reference of a front (`true`) or back face; points and lines are
    /// front faces here as for the stencil operations (`om`).
    pub fn stencil_ref_for(&self, front: bool) -> u8 {
        match (front, self.back_stencil_ref) {
            (false, Some(r)) => r,
            _ => self.stencil_ref,
        }
    }

    /// The depth-bounds test's range, when the test is on: `OMSetDepthBounds`'s values
    /// with a NaN made 0, as the D3D12 runtime converts it (DirectX-Specs "D3D12 Depth
    /// Bounds Test", Detailed Design). Neither value is clamped: the runtime does not,
    /// and an implementation only "may" clamp to [0, 1], which changes no outcome for the
    /// stored depths, all in [0, 1].
    pub fn depth_bounds_test(&self) -> Option<[f32; 2]> {
        self.depth_stencil
            .depth_bounds_test_enable
            .then(|| self.depth_bounds.map(|v| if v.is_nan() { 0.0 } else { v }))
    }
}

/// The owned part of a [`DrawState`] (everything but the programs and their bindings),
/// for a caller that keeps a draw to run it again (the debugger).
#[derive(Debug, Clone, PartialEq)]
pub struct FixedState {
    input_layout: InputLayout,
    topology: PrimitiveTopology,
    vertex_buffers: Vec<Option<VertexBufferView>>,
    index_buffer: Option<IndexBufferView>,
    strip_cut: StripCutValue,
    rasterizer: RasterizerDesc,
    blend: BlendDesc,
    depth_stencil: DepthStencilDesc,
    viewports: Vec<Viewport>,
    scissors: Vec<Rect>,
    sample_mask: u32,
    blend_factor: [f32; 4],
    stencil_ref: u8,
    back_stencil_ref: Option<u8>,
    depth_bounds: [f32; 2],
    render_targets: Vec<Option<RenderTargetView>>,
    depth_stencil_view: Option<DepthStencilView>,
    stream_output: Option<super::so::StreamOutput>,
    view_instancing: Option<super::view_instancing::ViewInstancingDesc>,
    shading_rate: super::vrs::ShadingRateState,
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
            viewports: self.viewports.clone(),
            scissors: self.scissors.clone(),
            sample_mask: self.sample_mask,
            blend_factor: self.blend_factor,
            stencil_ref: self.stencil_ref,
            back_stencil_ref: self.back_stencil_ref,
            depth_bounds: self.depth_bounds,
            render_targets: self.render_targets.clone(),
            depth_stencil_view: self.depth_stencil_view.clone(),
            stream_output: self.stream_output.clone(),
            view_instancing: self.view_instancing.clone(),
            shading_rate: self.shading_rate.clone(),
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
            mesh: None,
            ps,
            gs: None,
            hs: None,
            ds: None,
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
            viewports: f.viewports,
            scissors: f.scissors,
            sample_mask: f.sample_mask,
            blend_factor: f.blend_factor,
            stencil_ref: f.stencil_ref,
            back_stencil_ref: f.back_stencil_ref,
            depth_bounds: f.depth_bounds,
            render_targets: f.render_targets,
            depth_stencil_view: f.depth_stencil_view,
            stream_output: f.stream_output,
            view_instancing: f.view_instancing,
            shading_rate: f.shading_rate,
        }
    }

    /// The stream-output state.
    pub fn stream_output(&self) -> Option<&super::so::StreamOutput> {
        self.stream_output.as_ref()
    }

    /// The bound render targets.
    pub fn render_targets(&self) -> &[Option<RenderTargetView>] {
        &self.render_targets
    }

    /// The bound depth-stencil view.
    pub fn depth_stencil_view(&self) -> Option<&DepthStencilView> {
        self.depth_stencil_view.as_ref()
    }

    /// The bound index buffer (an indexed draw's).
    pub fn index_buffer(&self) -> Option<&IndexBufferView> {
        self.index_buffer.as_ref()
    }
}
