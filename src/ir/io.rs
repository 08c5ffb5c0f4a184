//! Stage inputs and outputs: the signature elements a vertex or pixel shader reads and
//! writes, and where each lives in the lane's input and output words.
//!
//! # Words
//!
//! Each lane of a graphics-stage wave has `input_words` 32-bit input words and
//! `output_words` output words (both 0 in compute). An element occupies, for each of its
//! `rows` rows `r` and each component `c` in its `mask`, the word `slot + 4·r + c`. The
//! lowerings put an element of signature register `n` at `slot = 4·n`, and elements
//! without a register (DXBC `oDepth`, `oMask`, `vCoverage`; DXIL system values the
//! signature does not pack) after the last register. The pipeline fills the input words
//! before the shader runs (vertex attributes, interpolated pixel attributes, system
//! values) and reads the output words after every lane has returned.
//!
//! # What a word holds
//!
//! Raw 32-bit values: floats as f32 bits, integers as 32-bit integers, `SV_IsFrontFace`
//! `0xffffffff` (front) or 0, `SV_SampleIndex`, `SV_PrimitiveID`, `SV_VertexID`,
//! `SV_InstanceID`, `SV_ViewID`, `SV_Coverage` and `SV_InnerCoverage` as unsigned
//! integers. Elements of 16-bit types (min-precision and native 16-bit signatures) use
//! the same 32-bit words: a half as the f32 of its value, a 16-bit integer sign- or
//! zero-extended by the element's `component`; the lowering narrows on load and widens
//! on store, so the pipeline interpolates and converts every element as 32 bits.
//!
//! What the pipeline supplies in pixel inputs beyond interpolated attributes: a helper
//! lane's `SV_Coverage` is 0 (dxc reads `IsHelperLane` as `Coverage() == 0` before
//! SM 6.6); `SV_Barycentrics` holds the pixel's weights of the primitive's vertices 0, 1,
//! 2 (perspective-correct unless its mode says `noperspective`), the vertices
//! [`EvalAt::Vertex`] names; a pixel shader runs once per sample when an input has a
//! `sample` mode or the inputs list `SV_SampleIndex`.
//!
//! # Packing and index ranges
//!
//! Elements may share a register's words (signature packing: `TEXCOORD0.xy` and
//! `TEXCOORD1.zw` in one register), each with its own mask. The DXBC lowering keeps one
//! element per signature element (`rows` 1) even where a `dcl_indexrange` lets the program
//! index consecutive registers; its `input_indexed`/`output_indexed` then span the words
//! of several elements (`slot` = the range's first register, `rows` = its length).
//!
//! # Linking
//!
//! `register` is the signature register the element was declared at (DXBC `v#`/`o#`,
//! DXIL's packed start row), which is what Direct3D links stages by: a pixel input at
//! register `n` reads what the vertex stage wrote to its output register `n`, and the
//! semantic names and indices there must agree.

use std::fmt;

use super::ids::LocalId;
use super::operand::word_enum;
use super::shader::ComponentType;

word_enum!(
    /// The primitive a geometry program reads (DXBC `dcl_inputprimitive`, DXIL's
    /// geometry state `InputPrimitive`).
    GsInput {
        /// One vertex.
        Point = "point",
        /// Two vertices.
        Line = "line",
        /// Three vertices.
        Triangle = "triangle",
        /// A line with its two neighbours: four vertices, the line is vertices 1 and 2.
        LineAdj = "lineadj",
        /// A triangle with its three neighbours: six vertices, the triangle is 0, 2, 4.
        TriangleAdj = "triangleadj",
    }
);

impl GsInput {
    /// Vertices per input primitive.
    pub fn vertices(self) -> u32 {
        match self {
            GsInput::Point => 1,
            GsInput::Line => 2,
            GsInput::Triangle => 3,
            GsInput::LineAdj => 4,
            GsInput::TriangleAdj => 6,
        }
    }
}

word_enum!(
    /// What a geometry program's emitted vertices make (DXBC `dcl_outputtopology`, DXIL's
    /// `StreamPrimitiveTopology`).
    GsOutput {
        /// Each vertex is a point.
        PointList = "pointlist",
        /// Each vertex after the first of a strip makes a line with the one before.
        LineStrip = "linestrip",
        /// Each vertex after the second of a strip makes a triangle with the two before.
        TriangleStrip = "trianglestrip",
    }
);

/// A geometry program's fixed state: what it reads, what it emits and how many times it
/// runs per primitive.
///
/// The input words of a geometry lane hold the input primitive's vertices one after
/// another, `vertex_words` words each (vertex `v`'s element at register `n` at word
/// `v·vertex_words + 4·n`), then the registerless inputs (`SV_PrimitiveID`,
/// `SV_GSInstanceID`) at the slots their elements give. The input elements describe one
/// vertex (their `slot` is within vertex 0) plus the registerless ones.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GeometryState {
    /// The input primitive.
    pub input: GsInput,
    /// The output topology (every stream shares it).
    pub output: GsOutput,
    /// `[maxvertexcount(n)]`: the most vertices one invocation emits, over all streams;
    /// emits past it are dropped (D3D11.3 §13 "Geometry Shader Stage";
    /// `dcl_maxOutputVertexCount`'s reference page).
    pub max_vertices: u32,
    /// `[instance(n)]`: invocations per input primitive (1 … 32).
    pub instances: u32,
    /// Input words per input vertex.
    pub vertex_words: u32,
}

word_enum!(
    /// What a mesh program's index outputs make (DXIL mesh state `OutputTopology`:
    /// 1 line, 2 triangle; HLSL `[outputtopology("line" | "triangle")]`, the only two
    /// the mesh shader spec allows, "outputtopology").
    MeshTopology {
        /// Each primitive is a line of two vertex indices.
        Line = "line",
        /// Each primitive is a triangle of three vertex indices.
        Triangle = "triangle",
    }
);

impl MeshTopology {
    /// Vertex indices per primitive.
    pub fn indices(self) -> u32 {
        match self {
            MeshTopology::Line => 2,
            MeshTopology::Triangle => 3,
        }
    }
}

/// A mesh or amplification program's fixed state (DXIL's mesh state, tag 9, and
/// amplification state, tag 10).
///
/// A mesh program writes its outputs into group-wide arrays rather than per-lane words:
/// `max_vertices` vertices of the shader's `output_words` words each (laid out as any
/// stage's outputs, `ir::io`'s words), `max_primitives` primitives of `primitive_words`
/// words (the `primitive_outputs` elements) and `max_primitives` index tuples. Those
/// arrays live in the thread group's memory after its group shared memory
/// ([`MeshRegion`]), so they belong to the group as the spec's "shared output arrays"
/// do, and every wave of the group writes the same ones.
///
/// The payload an amplification group passes to the mesh groups it launches is
/// `payload_bytes` bytes of the amplification group's shared memory, and the first
/// `payload_bytes` bytes of each mesh group's shared memory (filled before the group
/// runs), both laid out by the module's data layout.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeshState {
    /// The output topology (mesh programs; amplification programs: `Triangle`, unused).
    pub topology: MeshTopology,
    /// The size of the `vertices` array: the most vertices a group outputs (at most 256).
    pub max_vertices: u32,
    /// The size of the `indices` and `primitives` arrays (at most 256).
    pub max_primitives: u32,
    /// Bytes of the payload (at most 16 KiB).
    pub payload_bytes: u32,
    /// Words per primitive of the per-primitive outputs.
    pub primitive_words: u32,
}

/// The memory a ray-tracing program shares with the program that invoked it (DXR spec
/// "Shader parameters"): the ray payload of an any-hit, closest-hit or miss program (the
/// parameter of a callable program), and the hit attributes of an any-hit or closest-hit
/// program. Each is one of the shader's per-lane arrays, laid out by the module's data
/// layout; the pipeline writes it before the lane runs and reads the payload back after
/// it returns (`inout`). Ray generation and intersection programs have neither.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct RayState {
    /// The payload or callable parameter's array and its size in bytes.
    pub payload: Option<(LocalId, u32)>,
    /// The attributes' array and its size in bytes.
    pub attributes: Option<(LocalId, u32)>,
}

/// The most bytes of a ray payload, a callable parameter or hit attributes the lowering
/// takes. D3D12 bounds attributes by `D3D12_RAYTRACING_MAX_ATTRIBUTE_SIZE_IN_BYTES` (32);
/// payloads have no API bound, so this is dxlane's.
pub const MAX_RAY_PAYLOAD_BYTES: u32 = 16 * 1024;

/// `D3D12_RAYTRACING_MAX_ATTRIBUTE_SIZE_IN_BYTES`: the largest hit attributes.
pub const MAX_RAY_ATTRIBUTE_BYTES: u32 = 32;

/// The most vertices a mesh program may declare (mesh shader spec, "Amplification shader
/// and Mesh shader": max output verts 256).
pub const MAX_MESH_VERTICES: u32 = 256;
/// The most primitives a mesh program may declare (same table: max output prims 256).
pub const MAX_MESH_PRIMITIVES: u32 = 256;
/// The most bytes of an amplification program's payload (same section: "must not exceed
/// 16k bytes per instance").
pub const MAX_MESH_PAYLOAD_BYTES: u32 = 16 * 1024;

/// Where a mesh or amplification group's bookkeeping and output arrays sit in its
/// memory, in words after its group shared memory (see [`MeshState`]).
///
/// The status words: 0 whether `SetMeshOutputCounts` ran, 1 and 2 its vertex and
/// primitive counts, 3 the first broken rule ([`MeshFault`] code, 0 for none), 4 the
/// value that broke it, 5 the flat thread index that broke it, 6 how many threads called
/// `DispatchMesh`, 7 to 9 its group counts, 10 the payload's byte offset. Then one word per
/// thread (whether it called `SetMeshOutputCounts`), the index tuples (three words per
/// primitive), the vertices and the primitives.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeshRegion {
    /// The first word (the group shared memory's word count).
    pub base: usize,
    /// The first per-thread word.
    pub called: usize,
    /// The first index word.
    pub indices: usize,
    /// The first vertex word.
    pub vertices: usize,
    /// The first primitive word.
    pub primitives: usize,
    /// One past the last word.
    pub end: usize,
}

/// Status words of a [`MeshRegion`].
pub const MESH_STATUS_WORDS: usize = 11;

/// A broken mesh or amplification rule a group recorded (the status word 3 of its
/// [`MeshRegion`]); the pipeline turns it into an error naming the group.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MeshFault {
    /// `SetMeshOutputCounts` with more vertices than the program declares.
    VerticesOverMax = 1,
    /// `SetMeshOutputCounts` with more primitives than the program declares.
    PrimitivesOverMax = 2,
    /// A thread called `SetMeshOutputCounts` a second time.
    CountsTwice = 3,
    /// An output write by a thread that had not called `SetMeshOutputCounts`.
    WriteBeforeCounts = 4,
    /// A vertex output write at a vertex index not below the vertex count.
    VertexIndex = 5,
    /// A primitive output or index write at a primitive index not below the count.
    PrimitiveIndex = 6,
}

impl MeshFault {
    /// The fault of a status code.
    pub fn from_code(code: u32) -> Option<MeshFault> {
        Some(match code {
            1 => MeshFault::VerticesOverMax,
            2 => MeshFault::PrimitivesOverMax,
            3 => MeshFault::CountsTwice,
            4 => MeshFault::WriteBeforeCounts,
            5 => MeshFault::VertexIndex,
            6 => MeshFault::PrimitiveIndex,
            _ => return None,
        })
    }
}

impl MeshState {
    /// The region of a group of `threads` threads whose group shared memory is
    /// `shared_words` words and whose vertices are `vertex_words` words each.
    pub fn region(&self, shared_words: usize, threads: usize, vertex_words: u32) -> MeshRegion {
        let called = shared_words + MESH_STATUS_WORDS;
        let indices = called + threads;
        let vertices = indices + 3 * self.max_primitives as usize;
        let primitives = vertices + self.max_vertices as usize * vertex_words as usize;
        let end = primitives + self.max_primitives as usize * self.primitive_words as usize;
        MeshRegion {
            base: shared_words,
            called,
            indices,
            vertices,
            primitives,
            end,
        }
    }
}

word_enum!(
    /// A tessellated patch's parameter space (DXBC `dcl_tessellator_domain`, HLSL
    /// `[domain]`).
    TessDomain {
        /// A triangle, barycentric (u, v, w).
        Tri = "tri",
        /// The unit square (u, v).
        Quad = "quad",
        /// Lines of constant v over the unit square.
        Isoline = "isoline",
    }
);

word_enum!(
    /// How the tessellator turns factors into segments (`dcl_tessellator_partitioning`).
    TessPartitioning {
        /// Factors rounded up to integers.
        Integer = "integer",
        /// Powers of two (to the tessellator, integer: D3D11.3 §11.7.7.1).
        Pow2 = "pow2",
        /// Odd segment counts with smooth transitions.
        FractionalOdd = "fractional_odd",
        /// Even segment counts with smooth transitions.
        FractionalEven = "fractional_even",
    }
);

word_enum!(
    /// What the tessellator emits (`dcl_tessellator_output_primitive`).
    TessOutput {
        /// Points.
        Point = "point",
        /// Lines (isoline domain).
        Line = "line",
        /// Clockwise triangles.
        TriangleCw = "triangle_cw",
        /// Counter-clockwise triangles.
        TriangleCcw = "triangle_ccw",
    }
);

/// Which part of a hull program a lane runs: the value of its phase word
/// ([`HullState::phase_word`]).
pub mod hull_phase {
    /// The control-point phase: one lane per output control point.
    pub const CONTROL_POINT: u32 = 0;
    /// Every fork phase, instance after instance: one lane per patch.
    pub const FORK: u32 = 1;
    /// Every join phase, instance after instance: one lane per patch, after the forks.
    pub const JOIN: u32 = 2;
}

/// A hull program's fixed state and where its phases' values live.
///
/// One IR shader holds the whole program; a lane runs one part of it, chosen by its
/// phase word ([`hull_phase`]). Input words: the input control points, `point_words`
/// each (control point `k`'s register `n` at word `k·point_words + 4·n`), the
/// registerless inputs (`SV_PrimitiveID`, `SV_OutputControlPointID`) at their elements'
/// slots, then the output control points the patch-constant phases read (`vocp`:
/// control point `k` at `ocp_word + k·output_point_words`), then the patch constants the
/// join phases read (`vpc`, at `vpc_word`, laid out as the outputs from
/// `output_point_words`), then the phase word. Output words: one output control point
/// (`o#` of the control-point phase, words `0 … output_point_words − 1`), then the patch
/// constants (`o#` of the fork and join phases, register `n` at
/// `output_point_words + 4·n`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct HullState {
    /// The domain.
    pub domain: TessDomain,
    /// The partitioning.
    pub partitioning: TessPartitioning,
    /// The tessellator's output primitive.
    pub output: TessOutput,
    /// `dcl_input_control_point_count` (1 … 32).
    pub input_points: u32,
    /// `dcl_output_control_point_count` (0 … 32).
    pub output_points: u32,
    /// `dcl_hs_max_tessfactor` (64 when absent): a hint the compiler's own factor code
    /// already applies; the tessellator clamps to 64 whatever it says.
    pub max_factor: f32,
    /// Input words per input control point.
    pub point_words: u32,
    /// Output words of one output control point; the patch constants follow them.
    pub output_point_words: u32,
    /// The input word of output control point 0 (`vocp`).
    pub ocp_word: u32,
    /// The input word of patch constant register 0 (`vpc`, join phases).
    pub vpc_word: u32,
    /// The input word holding the lane's phase.
    pub phase_word: u32,
    /// Whether the program has join phases (the patch-constant work runs in two passes).
    pub join: bool,
    /// No control-point phase: output control point `k` is input control point `k`.
    pub pass_through: bool,
    /// Output words of the final factors: `SV_TessFactor` 0 … 3 (tri: edges U=0, V=0,
    /// W=0; quad: U=0, V=0, U=1, V=1; isoline: line density, line detail) then
    /// `SV_InsideTessFactor` 0 and 1; [`NO_REGISTER`] where the program writes none.
    pub factor_words: [u32; 6],
}

/// A domain program's fixed state.
///
/// Input words: the patch's control points (the hull's output control points),
/// `point_words` each as a hull's input control points, then the registerless inputs
/// (`SV_PrimitiveID`) at their elements' slots, then the patch constants from
/// `patch_word` (register `n` at `patch_word + 4·n`), then `SV_DomainLocation` (u, v, w)
/// at `location_word`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DomainState {
    /// The domain (must be the hull program's).
    pub domain: TessDomain,
    /// `dcl_input_control_point_count`: control points the program reads.
    pub input_points: u32,
    /// Input words per control point.
    pub point_words: u32,
    /// The input word of patch constant register 0.
    pub patch_word: u32,
    /// The input word of `SV_DomainLocation`'s u (v and w follow).
    pub location_word: u32,
}

word_enum!(
    /// The system value an element carries (D3D_NAME), or [`SysValue::None`] for an
    /// arbitrary semantic (`TEXCOORD0`, `COLOR`).
    SysValue {
        /// An arbitrary semantic.
        None = "none",
        /// `SV_Position`.
        Position = "position",
        /// `SV_ClipDistance`.
        ClipDistance = "clip_distance",
        /// `SV_CullDistance`.
        CullDistance = "cull_distance",
        /// `SV_RenderTargetArrayIndex`.
        RenderTargetArrayIndex = "render_target_array_index",
        /// `SV_ViewportArrayIndex`.
        ViewportArrayIndex = "viewport_array_index",
        /// `SV_VertexID`.
        VertexId = "vertex_id",
        /// `SV_PrimitiveID`.
        PrimitiveId = "primitive_id",
        /// `SV_InstanceID`.
        InstanceId = "instance_id",
        /// `SV_IsFrontFace` (`0xffffffff` for a front face, else 0).
        IsFrontFace = "is_front_face",
        /// `SV_SampleIndex`.
        SampleIndex = "sample_index",
        /// `SV_Coverage` (input: the pixel's covered samples; output: a mask ANDed with
        /// them).
        Coverage = "coverage",
        /// `SV_InnerCoverage` (`0xffffffff` when the pixel is wholly inside).
        InnerCoverage = "inner_coverage",
        /// `SV_Target`.
        Target = "target",
        /// `SV_Depth`.
        Depth = "depth",
        /// `SV_DepthGreaterEqual` (conservative depth: at least the rasterized depth).
        DepthGreaterEqual = "depth_greater_equal",
        /// `SV_DepthLessEqual` (conservative depth: at most the rasterized depth).
        DepthLessEqual = "depth_less_equal",
        /// `SV_StencilRef`.
        StencilRef = "stencil_ref",
        /// `SV_ViewID`.
        ViewId = "view_id",
        /// `SV_Barycentrics` (SM 6.1).
        Barycentrics = "barycentrics",
        /// `SV_ShadingRate`.
        ShadingRate = "shading_rate",
        /// `SV_CullPrimitive` (mesh shaders).
        CullPrimitive = "cull_primitive",
        /// `SV_StartVertexLocation` (SM 6.8 vertex input): the draw's
        /// `BaseVertexLocation` (indexed draws) or `StartVertexLocation`.
        StartVertexLocation = "start_vertex_location",
        /// `SV_StartInstanceLocation` (SM 6.8 vertex input): the draw's
        /// `StartInstanceLocation`.
        StartInstanceLocation = "start_instance_location",
        /// `SV_GSInstanceID` (geometry input): which of the `[instance(n)]` invocations
        /// of its primitive the lane is.
        GsInstanceId = "gs_instance_id",
        /// `SV_OutputControlPointID` (hull control-point phase): which output control
        /// point the lane computes.
        OutputControlPointId = "output_control_point_id",
        /// `SV_DomainLocation` (domain input): the point's (u, v) or (u, v, w).
        DomainLocation = "domain_location",
        /// `SV_TessFactor` (hull patch-constant output, domain input): an edge factor.
        TessFactor = "tess_factor",
        /// `SV_InsideTessFactor`: an inside factor.
        InsideTessFactor = "inside_tess_factor",
    }
);

impl SysValue {
    /// Whether the rasterizer makes this pixel input itself, so that no earlier stage
    /// needs to write it (D3D11.3 §16 "system-generated values"; `SV_ViewID` comes from
    /// the pipeline's view instancing, DXIL.rst's `NotInSig`).
    pub fn made_by_rasterizer(self) -> bool {
        matches!(
            self,
            SysValue::Position
                | SysValue::IsFrontFace
                | SysValue::SampleIndex
                | SysValue::Coverage
                | SysValue::InnerCoverage
                | SysValue::PrimitiveId
                | SysValue::Barycentrics
                | SysValue::ShadingRate
                | SysValue::ViewId
        )
    }
}

word_enum!(
    /// How a pixel input is interpolated (D3D10_SB_INTERPOLATION_MODE; DXIL
    /// `InterpolationMode`).
    Interp {
        /// Not interpolated (vertex inputs, outputs, system values).
        Undefined = "undefined",
        /// `nointerpolation`: the provoking vertex's value.
        Constant = "constant",
        /// Perspective-correct at the pixel centre.
        Linear = "linear",
        /// Perspective-correct at the centroid of the covered samples.
        LinearCentroid = "linear_centroid",
        /// `noperspective`: screen-space linear at the pixel centre.
        LinearNoPerspective = "noperspective",
        /// `noperspective centroid`.
        LinearNoPerspectiveCentroid = "noperspective_centroid",
        /// Perspective-correct at the sample (the pixel stage runs per sample).
        LinearSample = "linear_sample",
        /// `noperspective sample`.
        LinearNoPerspectiveSample = "noperspective_sample",
    }
);

impl Interp {
    /// Whether the mode interpolates with perspective correction.
    pub fn perspective(self) -> bool {
        matches!(
            self,
            Interp::Linear | Interp::LinearCentroid | Interp::LinearSample
        )
    }

    /// Whether the mode evaluates at each sample (which runs the pixel stage per sample).
    pub fn per_sample(self) -> bool {
        matches!(
            self,
            Interp::LinearSample | Interp::LinearNoPerspectiveSample
        )
    }

    /// Whether the mode evaluates at the centroid of the covered samples.
    pub fn centroid(self) -> bool {
        matches!(
            self,
            Interp::LinearCentroid | Interp::LinearNoPerspectiveCentroid
        )
    }
}

word_enum!(
    /// Where an `eval` instruction evaluates a pixel input (DXBC `eval_centroid`,
    /// `eval_sample_index`, `eval_snapped`; dx.op `EvalCentroid`, `EvalSampleIndex`,
    /// `EvalSnapped`).
    EvalAt {
        /// The centroid of the pixel's covered samples.
        Centroid = "centroid",
        /// Sample `arg[0]` of the pixel (an out-of-range index evaluates at the pixel
        /// centre, as D3D11.3 §16.5 leaves it undefined).
        Sample = "sample",
        /// The pixel centre moved by `(arg[0], arg[1])` sixteenths of a pixel; each
        /// offset is the signed 4-bit value of the low 4 bits (-8 … 7).
        Snapped = "snapped",
        /// Not interpolated: the value vertex `arg[0]` (0, 1 or 2) of the primitive gave
        /// the input, vertex k being the one whose weight is component k of
        /// `SV_Barycentrics` (dx.op `AttributeAtVertex`, HLSL `GetAttributeAtVertex`,
        /// SM 6.1); another index reads 0.
        Vertex = "vertex",
    }
);

/// The register an element has no signature register for (`oDepth`, `vCoverage`).
pub const NO_REGISTER: u32 = u32::MAX;

/// One signature element of a stage's inputs or outputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IoElement {
    /// The semantic name as the program spells it (`TEXCOORD`, `SV_Position`).
    pub semantic: String,
    /// The semantic index (the first one for elements of several rows).
    pub semantic_index: u32,
    /// The system value, or [`SysValue::None`].
    pub sv: SysValue,
    /// The signature register (see the module doc), or [`NO_REGISTER`].
    pub register: u32,
    /// Rows (1, or the array size of an element like `float2 t[3] : TEXCOORD`).
    pub rows: u32,
    /// Components of each row (bit 0 = x … bit 3 = w).
    pub mask: u8,
    /// How the values are read (float, sint or uint).
    pub component: ComponentType,
    /// Interpolation (pixel inputs).
    pub interp: Interp,
    /// The word of row 0, component x.
    pub slot: u32,
}

impl IoElement {
    /// The word of row `row`, component `c`.
    pub fn word(&self, row: u32, c: u32) -> u32 {
        self.slot + 4 * row + c
    }

    /// The semantic as the signature prints it: `TEXCOORD1`, `SV_Position`.
    pub fn semantic_name(&self) -> String {
        if self.semantic_index == 0 && self.sv != SysValue::None {
            self.semantic.clone()
        } else {
            format!("{}{}", self.semantic, self.semantic_index)
        }
    }
}

/// Prints the mask as `xyzw` letters (`-` for none).
pub fn mask_letters(mask: u8) -> String {
    let s: String = "xyzw"
        .chars()
        .enumerate()
        .filter(|(i, _)| (mask >> i) & 1 == 1)
        .map(|(_, c)| c)
        .collect();
    if s.is_empty() { "-".into() } else { s }
}

/// Reads `xyzw` letters back into a mask (`-` for none).
pub fn parse_mask(s: &str) -> Option<u8> {
    if s == "-" {
        return Some(0);
    }
    let mut m = 0u8;
    let mut last = None;
    for ch in s.chars() {
        let i = "xyzw".find(ch)?;
        if last.is_some_and(|l| l >= i) {
            return None;
        }
        last = Some(i);
        m |= 1 << i;
    }
    (m != 0).then_some(m)
}

impl fmt::Display for IoElement {
    /// `"TEXCOORD" 1 sv none reg 1 rows 1 mask xy float interp linear slot 4`
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{:?} {} sv {} reg ",
            self.semantic, self.semantic_index, self.sv
        )?;
        if self.register == NO_REGISTER {
            f.write_str("none")?;
        } else {
            write!(f, "{}", self.register)?;
        }
        write!(
            f,
            " rows {} mask {} {} interp {} slot {}",
            self.rows,
            mask_letters(self.mask),
            self.component,
            self.interp,
            self.slot
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn masks_round_trip() {
        for m in 0..16u8 {
            assert_eq!(parse_mask(&mask_letters(m)), Some(m));
        }
        assert_eq!(parse_mask("yx"), None);
        assert_eq!(parse_mask("q"), None);
    }
}
