//! Declarations, hull-shader phase markers and custom-data blocks: their typed form and
//! how each is read from its tokens.
//!
//! Owns: every `dcl_*` opcode's token layout (seed 002, "Declaration Statements" and the
//! sections after it), the enumerations they use (resource dimension, return type,
//! sampler mode, interpolation mode, system value names, primitives, topologies,
//! tessellator domain/partitioning/output primitive, global flags), Shader Model 5.1
//! ranged bindings with spaces, and the custom-data classes (immediate constant buffer,
//! comments, debug info, shader messages).
//!
//! Does not own: the instruction stream (see [`super::decode`]) or operand tokens (see
//! [`super::operand`]).

use super::decode::Cursor;
use super::error::{DxbcError, Location};
use super::opcode::Opcode;
use super::operand::{Index, Operand, RegisterType, read_operand};
use super::token::{OpcodeToken, resource_return_types};

macro_rules! code_enum {
    ($(#[$doc:meta])* $name:ident, $what:literal { $($(#[$vdoc:meta])* $variant:ident = $code:literal, $text:literal;)* }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
        pub enum $name {
            $($(#[$vdoc])* $variant,)*
        }

        impl $name {
            /// The value for a token field; `None` for values the format does not define.
            pub const fn from_code(code: u32) -> Option<$name> {
                match code {
                    $($code => Some($name::$variant),)*
                    _ => None,
                }
            }

            /// The numeric code.
            pub const fn code(self) -> u32 {
                match self {
                    $($name::$variant => $code,)*
                }
            }

            /// fxc's spelling in listings.
            pub const fn fxc_name(self) -> &'static str {
                match self {
                    $($name::$variant => $text,)*
                }
            }

            /// Decodes `code`, or returns [`DxbcError::BadField`] naming the field.
            pub(super) fn decode(code: u32, at: Location) -> Result<$name, DxbcError> {
                $name::from_code(code).ok_or(DxbcError::BadField { what: $what, value: code, at })
            }
        }
    };
}

code_enum! {
    /// A resource dimension (`D3D10_SB_RESOURCE_DIMENSION`).
    ResourceDimension, "resource dimension" {
        /// Unknown (0).
        Unknown = 0, "unknown";
        /// Typed buffer.
        Buffer = 1, "buffer";
        /// 1D texture.
        Texture1D = 2, "texture1d";
        /// 2D texture.
        Texture2D = 3, "texture2d";
        /// Multisampled 2D texture.
        Texture2DMS = 4, "texture2dms";
        /// 3D texture.
        Texture3D = 5, "texture3d";
        /// Cube texture.
        TextureCube = 6, "texturecube";
        /// 1D texture array.
        Texture1DArray = 7, "texture1darray";
        /// 2D texture array.
        Texture2DArray = 8, "texture2darray";
        /// Multisampled 2D texture array.
        Texture2DMSArray = 9, "texture2dmsarray";
        /// Cube texture array.
        TextureCubeArray = 10, "texturecubearray";
        /// Raw (byte-address) buffer.
        RawBuffer = 11, "raw_buffer";
        /// Structured buffer.
        StructuredBuffer = 12, "structured_buffer";
    }
}

code_enum! {
    /// The type a resource returns per component (`D3D10_SB_RESOURCE_RETURN_TYPE`).
    ReturnType, "resource return type" {
        /// UNORM.
        Unorm = 1, "unorm";
        /// SNORM.
        Snorm = 2, "snorm";
        /// Signed integer.
        Sint = 3, "sint";
        /// Unsigned integer.
        Uint = 4, "uint";
        /// Float.
        Float = 5, "float";
        /// Mixed (raw and structured buffers).
        Mixed = 6, "mixed";
        /// Double (two components per double).
        Double = 7, "double";
        /// The second half of a double.
        Continued = 8, "continued";
        /// Unused.
        Unused = 9, "unused";
    }
}

code_enum! {
    /// A sampler's mode (`D3D10_SB_SAMPLER_MODE`).
    SamplerMode, "sampler mode" {
        /// Ordinary sampling.
        Default = 0, "mode_default";
        /// Comparison sampling.
        Comparison = 1, "mode_comparison";
        /// Monochrome (1-bit) sampling.
        Mono = 2, "mode_mono";
    }
}

code_enum! {
    /// A pixel-shader input's interpolation mode (`D3D10_SB_INTERPOLATION_MODE`).
    Interpolation, "interpolation mode" {
        /// Undefined (0).
        Undefined = 0, "undefined";
        /// `nointerpolation`.
        Constant = 1, "constant";
        /// Perspective-correct.
        Linear = 2, "linear";
        /// Perspective-correct at the centroid.
        LinearCentroid = 3, "linear centroid";
        /// Screen-space linear.
        LinearNoPerspective = 4, "linear noperspective";
        /// Screen-space linear at the centroid.
        LinearNoPerspectiveCentroid = 5, "linear noperspective centroid";
        /// Perspective-correct at each sample.
        LinearSample = 6, "linear sample";
        /// Screen-space linear at each sample.
        LinearNoPerspectiveSample = 7, "linear noperspective sample";
    }
}

code_enum! {
    /// A system value name (`D3D10_SB_NAME`) of `dcl_*_siv`/`dcl_*_sgv`.
    SystemName, "system value name" {
        /// Undefined (0).
        Undefined = 0, "undefined";
        /// `SV_Position`.
        Position = 1, "position";
        /// `SV_ClipDistance`.
        ClipDistance = 2, "clip_distance";
        /// `SV_CullDistance`.
        CullDistance = 3, "cull_distance";
        /// `SV_RenderTargetArrayIndex`.
        RenderTargetArrayIndex = 4, "rendertarget_array_index";
        /// `SV_ViewportArrayIndex`.
        ViewportArrayIndex = 5, "viewport_array_index";
        /// `SV_VertexID`.
        VertexId = 6, "vertex_id";
        /// `SV_PrimitiveID`.
        PrimitiveId = 7, "primitive_id";
        /// `SV_InstanceID`.
        InstanceId = 8, "instance_id";
        /// `SV_IsFrontFace`.
        IsFrontFace = 9, "is_front_face";
        /// `SV_SampleIndex`.
        SampleIndex = 10, "sampleIndex";
        /// Quad edge U=0 tessellation factor.
        FinalQuadUEq0EdgeTessFactor = 11, "finalQuadUeq0EdgeTessFactor";
        /// Quad edge V=0 tessellation factor.
        FinalQuadVEq0EdgeTessFactor = 12, "finalQuadVeq0EdgeTessFactor";
        /// Quad edge U=1 tessellation factor.
        FinalQuadUEq1EdgeTessFactor = 13, "finalQuadUeq1EdgeTessFactor";
        /// Quad edge V=1 tessellation factor.
        FinalQuadVEq1EdgeTessFactor = 14, "finalQuadVeq1EdgeTessFactor";
        /// Quad inside U tessellation factor.
        FinalQuadUInsideTessFactor = 15, "finalQuadUInsideTessFactor";
        /// Quad inside V tessellation factor.
        FinalQuadVInsideTessFactor = 16, "finalQuadVInsideTessFactor";
        /// Triangle edge U=0 tessellation factor.
        FinalTriUEq0EdgeTessFactor = 17, "finalTriUeq0EdgeTessFactor";
        /// Triangle edge V=0 tessellation factor.
        FinalTriVEq0EdgeTessFactor = 18, "finalTriVeq0EdgeTessFactor";
        /// Triangle edge W=0 tessellation factor.
        FinalTriWEq0EdgeTessFactor = 19, "finalTriWeq0EdgeTessFactor";
        /// Triangle inside tessellation factor.
        FinalTriInsideTessFactor = 20, "finalTriInsideTessFactor";
        /// Isoline detail tessellation factor.
        FinalLineDetailTessFactor = 21, "finalLineDetailTessFactor";
        /// Isoline density tessellation factor.
        FinalLineDensityTessFactor = 22, "finalLineDensityTessFactor";
        /// `SV_Barycentrics` (D3D12).
        Barycentrics = 23, "barycentrics";
        /// `SV_ShadingRate` (D3D12).
        ShadingRate = 24, "shadingrate";
        /// `SV_CullPrimitive` (D3D12).
        CullPrimitive = 25, "cullprimitive";
    }
}

code_enum! {
    /// A geometry-shader output topology (`D3D10_SB_PRIMITIVE_TOPOLOGY`).
    PrimitiveTopology, "primitive topology" {
        /// Undefined (0).
        Undefined = 0, "undefined";
        /// Point list.
        PointList = 1, "pointlist";
        /// Line list.
        LineList = 2, "linelist";
        /// Line strip.
        LineStrip = 3, "linestrip";
        /// Triangle list.
        TriangleList = 4, "trianglelist";
        /// Triangle strip.
        TriangleStrip = 5, "trianglestrip";
        /// Line list with adjacency.
        LineListAdj = 10, "linelist_adj";
        /// Line strip with adjacency.
        LineStripAdj = 11, "linestrip_adj";
        /// Triangle list with adjacency.
        TriangleListAdj = 12, "trianglelist_adj";
        /// Triangle strip with adjacency.
        TriangleStripAdj = 13, "trianglestrip_adj";
    }
}

code_enum! {
    /// The tessellator domain (`D3D11_SB_TESSELLATOR_DOMAIN`).
    TessDomain, "tessellator domain" {
        /// Undefined (0).
        Undefined = 0, "domain_undefined";
        /// Isolines.
        Isoline = 1, "domain_isoline";
        /// Triangles.
        Tri = 2, "domain_tri";
        /// Quads.
        Quad = 3, "domain_quad";
    }
}

code_enum! {
    /// The tessellator partitioning (`D3D11_SB_TESSELLATOR_PARTITIONING`).
    TessPartitioning, "tessellator partitioning" {
        /// Undefined (0).
        Undefined = 0, "partitioning_undefined";
        /// Integer.
        Integer = 1, "partitioning_integer";
        /// Powers of two.
        Pow2 = 2, "partitioning_pow2";
        /// Fractional odd.
        FractionalOdd = 3, "partitioning_fractional_odd";
        /// Fractional even.
        FractionalEven = 4, "partitioning_fractional_even";
    }
}

code_enum! {
    /// The tessellator's output primitive (`D3D11_SB_TESSELLATOR_OUTPUT_PRIMITIVE`).
    TessOutputPrimitive, "tessellator output primitive" {
        /// Undefined (0).
        Undefined = 0, "output_undefined";
        /// Points.
        Point = 1, "output_point";
        /// Lines.
        Line = 2, "output_line";
        /// Clockwise triangles.
        TriangleCw = 3, "output_triangle_cw";
        /// Counter-clockwise triangles.
        TriangleCcw = 4, "output_triangle_ccw";
    }
}

/// A geometry-shader input primitive or patch (`D3D10_SB_PRIMITIVE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Primitive {
    /// Undefined (0).
    Undefined,
    /// Points (1).
    Point,
    /// Lines (2).
    Line,
    /// Triangles (3).
    Triangle,
    /// Lines with adjacency (6).
    LineAdj,
    /// Triangles with adjacency (7).
    TriangleAdj,
    /// A patch of 1–32 control points (8–39).
    Patch(u8),
}

impl Primitive {
    /// The primitive for its code; `None` for 4, 5 and codes past 39.
    pub fn from_code(code: u32) -> Option<Primitive> {
        Some(match code {
            0 => Primitive::Undefined,
            1 => Primitive::Point,
            2 => Primitive::Line,
            3 => Primitive::Triangle,
            6 => Primitive::LineAdj,
            7 => Primitive::TriangleAdj,
            8..=39 => Primitive::Patch(u8::try_from(code.wrapping_sub(7)).ok()?),
            _ => return None,
        })
    }

    /// The number of vertices (or control points) of one input primitive; 0 if undefined.
    pub const fn vertex_count(self) -> u32 {
        match self {
            Primitive::Undefined => 0,
            Primitive::Point => 1,
            Primitive::Line => 2,
            Primitive::Triangle => 3,
            Primitive::LineAdj => 4,
            Primitive::TriangleAdj => 6,
            Primitive::Patch(n) => n as u32,
        }
    }
}

/// The flags of `dcl_globalFlags` (bits `[23:11]` of its opcode token, shifted down so that
/// bit 0 is `D3D10_SB_GLOBAL_FLAG_REFACTORING_ALLOWED`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct GlobalFlags(pub u32);

impl GlobalFlags {
    /// Refactoring allowed (bit 11 of the token).
    pub const REFACTORING_ALLOWED: u32 = 1 << 0;
    /// Double-precision float operations enabled (bit 12).
    pub const ENABLE_DOUBLE_PRECISION_FLOAT_OPS: u32 = 1 << 1;
    /// Early depth/stencil forced (bit 13).
    pub const FORCE_EARLY_DEPTH_STENCIL: u32 = 1 << 2;
    /// Raw and structured buffers in non-compute 4.x shaders (bit 14).
    pub const ENABLE_RAW_AND_STRUCTURED_BUFFERS: u32 = 1 << 3;
    /// Skip optimization of the shader IL (bit 15).
    pub const SKIP_OPTIMIZATION: u32 = 1 << 4;
    /// Minimum-precision types enabled (bit 16).
    pub const ENABLE_MINIMUM_PRECISION: u32 = 1 << 5;
    /// D3D11.1 double-precision extensions (bit 17).
    pub const ENABLE_11_1_DOUBLE_EXTENSIONS: u32 = 1 << 6;
    /// D3D11.1 non-double instruction extensions (bit 18).
    pub const ENABLE_11_1_SHADER_EXTENSIONS: u32 = 1 << 7;
    /// D3D12: all resources bound (bit 19).
    pub const ALL_RESOURCES_BOUND: u32 = 1 << 8;

    /// Each defined flag with fxc's name, in bit order.
    pub const NAMES: [(u32, &'static str); 9] = [
        (Self::REFACTORING_ALLOWED, "refactoringAllowed"),
        (
            Self::ENABLE_DOUBLE_PRECISION_FLOAT_OPS,
            "enableDoublePrecisionFloatOps",
        ),
        (Self::FORCE_EARLY_DEPTH_STENCIL, "forceEarlyDepthStencil"),
        (
            Self::ENABLE_RAW_AND_STRUCTURED_BUFFERS,
            "enableRawAndStructuredBuffers",
        ),
        (Self::SKIP_OPTIMIZATION, "skipOptimization"),
        (Self::ENABLE_MINIMUM_PRECISION, "enableMinimumPrecision"),
        (
            Self::ENABLE_11_1_DOUBLE_EXTENSIONS,
            "enable11_1DoubleExtensions",
        ),
        (
            Self::ENABLE_11_1_SHADER_EXTENSIONS,
            "enable11_1ShaderExtensions",
        ),
        (Self::ALL_RESOURCES_BOUND, "allResourcesBound"),
    ];

    /// Whether flag `flag` (one of the constants) is set.
    pub const fn contains(self, flag: u32) -> bool {
        self.0 & flag != 0
    }
}

/// The access flags of a UAV declaration (seed 002: bits 16, 17 and 23 of its opcode token).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct UavFlags {
    /// `globallycoherent`: accesses are coherent across thread groups.
    pub globally_coherent: bool,
    /// Rasterizer-ordered view.
    pub rasterizer_ordered: bool,
    /// The structured UAV has an order-preserving counter (`IncrementCounter`).
    pub has_counter: bool,
}

/// Where a resource, sampler, constant buffer or UAV declaration binds: its variable id
/// (the register number up to Shader Model 5.0), the range of registers it covers within
/// its space (inclusive; `upper == u32::MAX` is unbounded), and the space (0 before 5.1).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct BindingRange {
    /// The id instructions name (`t3` → 3; Shader Model 5.1 `T1[2:5]` → 1).
    pub id: u32,
    /// The first register of the range.
    pub lower: u32,
    /// The last register of the range (inclusive); `u32::MAX` for an unbounded array.
    pub upper: u32,
    /// The register space.
    pub space: u32,
}

impl BindingRange {
    /// The upper bound that marks an unbounded array (seed 002: 0xffffffff).
    pub const UNBOUNDED: u32 = u32::MAX;

    /// Whether the range is unbounded.
    pub const fn is_unbounded(&self) -> bool {
        self.upper == Self::UNBOUNDED
    }
}

/// The interface of a `dcl_interface`.
#[derive(Debug, Clone, PartialEq, Eq, Hash)]
pub struct InterfaceDecl {
    /// The interface id (`fp#`).
    pub id: u32,
    /// Indexed dynamically (`[11]`).
    pub dynamically_indexed: bool,
    /// The number of types that implement it (the expected function table length).
    pub type_count: u32,
    /// The number of interfaces in the array.
    pub array_length: u32,
    /// The function tables (`ft#`) that may back it.
    pub tables: Vec<u32>,
}

/// A declaration: one `dcl_*` statement.
#[derive(Debug, Clone, PartialEq)]
pub enum Declaration {
    /// `dcl_globalFlags`.
    GlobalFlags(GlobalFlags),
    /// `dcl_resource_*`: a typed texture or buffer SRV.
    Resource {
        /// The `t#` operand as written (3D in Shader Model 5.1).
        register: Operand,
        /// Its binding.
        range: BindingRange,
        /// Its dimension.
        dimension: ResourceDimension,
        /// The sample count of a multisampled texture (0 otherwise).
        sample_count: u32,
        /// The return type of each component.
        return_types: [ReturnType; 4],
    },
    /// `dcl_resource_raw`.
    ResourceRaw {
        /// The `t#` operand.
        register: Operand,
        /// Its binding.
        range: BindingRange,
    },
    /// `dcl_resource_structured`.
    ResourceStructured {
        /// The `t#` operand.
        register: Operand,
        /// Its binding.
        range: BindingRange,
        /// The structure stride in bytes.
        stride: u32,
    },
    /// `dcl_uav_typed_*`.
    UavTyped {
        /// The `u#` operand.
        register: Operand,
        /// Its binding.
        range: BindingRange,
        /// Its dimension.
        dimension: ResourceDimension,
        /// The return type of each component.
        return_types: [ReturnType; 4],
        /// Access flags.
        flags: UavFlags,
    },
    /// `dcl_uav_raw`.
    UavRaw {
        /// The `u#` operand.
        register: Operand,
        /// Its binding.
        range: BindingRange,
        /// Access flags.
        flags: UavFlags,
    },
    /// `dcl_uav_structured`.
    UavStructured {
        /// The `u#` operand.
        register: Operand,
        /// Its binding.
        range: BindingRange,
        /// The structure stride in bytes.
        stride: u32,
        /// Access flags (including the counter).
        flags: UavFlags,
    },
    /// `dcl_constantbuffer`.
    ConstantBuffer {
        /// The `cb#[size]` operand (Shader Model 5.1: `CB#[lower:upper]`).
        register: Operand,
        /// Its binding.
        range: BindingRange,
        /// The size in 16-byte vectors (0: unknown, any size).
        size: u32,
        /// Indexed dynamically (`dynamicIndexed`) rather than only by immediates.
        dynamic_indexed: bool,
    },
    /// `dcl_sampler`.
    Sampler {
        /// The `s#` operand.
        register: Operand,
        /// Its binding.
        range: BindingRange,
        /// The sampler mode.
        mode: SamplerMode,
    },
    /// `dcl_input`: an input register (or a system-generated input register such as
    /// `vThreadID`).
    Input {
        /// The register with its mask.
        register: Operand,
    },
    /// `dcl_input_sgv`.
    InputSgv {
        /// The register with its mask.
        register: Operand,
        /// The system-generated value.
        name: SystemName,
    },
    /// `dcl_input_siv`.
    InputSiv {
        /// The register with its mask.
        register: Operand,
        /// The system-interpreted value.
        name: SystemName,
    },
    /// `dcl_input_ps`.
    InputPs {
        /// The register with its mask.
        register: Operand,
        /// Its interpolation.
        interpolation: Interpolation,
    },
    /// `dcl_input_ps_sgv`.
    InputPsSgv {
        /// The register with its mask.
        register: Operand,
        /// The system-generated value.
        name: SystemName,
    },
    /// `dcl_input_ps_siv`.
    InputPsSiv {
        /// The register with its mask.
        register: Operand,
        /// Its interpolation.
        interpolation: Interpolation,
        /// The system-interpreted value.
        name: SystemName,
    },
    /// `dcl_output`.
    Output {
        /// The register with its mask.
        register: Operand,
    },
    /// `dcl_output_sgv`.
    OutputSgv {
        /// The register with its mask.
        register: Operand,
        /// The system-generated value.
        name: SystemName,
    },
    /// `dcl_output_siv`.
    OutputSiv {
        /// The register with its mask.
        register: Operand,
        /// The system-interpreted value.
        name: SystemName,
    },
    /// `dcl_temps`: `r0` … `r(count-1)`.
    Temps {
        /// The number of temporaries.
        count: u32,
    },
    /// `dcl_indexableTemp x#[size], components`.
    IndexableTemp {
        /// The `x#` register number.
        index: u32,
        /// The number of registers.
        size: u32,
        /// Components per register (1–4).
        components: u32,
    },
    /// `dcl_indexrange`: registers that may be indexed dynamically.
    IndexRange {
        /// The first register with its mask.
        register: Operand,
        /// The number of registers from it.
        count: u32,
    },
    /// `dcl_inputprimitive`.
    GsInputPrimitive(Primitive),
    /// `dcl_outputtopology`.
    GsOutputTopology(PrimitiveTopology),
    /// `dcl_maxout`.
    MaxOutputVertexCount(u32),
    /// `dcl_gsinstances`.
    GsInstanceCount(u32),
    /// `dcl_stream m#`.
    Stream {
        /// The `m#` operand.
        register: Operand,
    },
    /// `dcl_input_control_point_count`.
    InputControlPointCount(u32),
    /// `dcl_output_control_point_count`.
    OutputControlPointCount(u32),
    /// `dcl_tessellator_domain`.
    TessDomain(TessDomain),
    /// `dcl_tessellator_partitioning`.
    TessPartitioning(TessPartitioning),
    /// `dcl_tessellator_output_primitive`.
    TessOutputPrimitive(TessOutputPrimitive),
    /// `dcl_hs_max_tessfactor`.
    HsMaxTessFactor(f32),
    /// `dcl_hs_fork_phase_instance_count`.
    HsForkPhaseInstanceCount(u32),
    /// `dcl_hs_join_phase_instance_count`.
    HsJoinPhaseInstanceCount(u32),
    /// `dcl_thread_group x, y, z`.
    ThreadGroup {
        /// Threads along x.
        x: u32,
        /// Threads along y.
        y: u32,
        /// Threads along z.
        z: u32,
    },
    /// `dcl_tgsm_raw g#, bytes`.
    TgsmRaw {
        /// The `g#` operand.
        register: Operand,
        /// The size in bytes (a multiple of 4).
        byte_count: u32,
    },
    /// `dcl_tgsm_structured g#, stride, count`.
    TgsmStructured {
        /// The `g#` operand.
        register: Operand,
        /// The structure stride in bytes.
        stride: u32,
        /// The number of structures.
        count: u32,
    },
    /// `dcl_function_body fb#`.
    FunctionBody(u32),
    /// `dcl_function_table ft# = {fb…}`.
    FunctionTable {
        /// The table id.
        id: u32,
        /// The function bodies in it.
        bodies: Vec<u32>,
    },
    /// `dcl_interface fp#[array][types] = {ft…}`.
    Interface(InterfaceDecl),
}

impl Declaration {
    /// The declared register operand, for declarations that have one.
    pub fn register(&self) -> Option<&Operand> {
        use Declaration::*;
        match self {
            Resource { register, .. }
            | ResourceRaw { register, .. }
            | ResourceStructured { register, .. }
            | UavTyped { register, .. }
            | UavRaw { register, .. }
            | UavStructured { register, .. }
            | ConstantBuffer { register, .. }
            | Sampler { register, .. }
            | Input { register }
            | InputSgv { register, .. }
            | InputSiv { register, .. }
            | InputPs { register, .. }
            | InputPsSgv { register, .. }
            | InputPsSiv { register, .. }
            | Output { register }
            | OutputSgv { register, .. }
            | OutputSiv { register, .. }
            | IndexRange { register, .. }
            | Stream { register }
            | TgsmRaw { register, .. }
            | TgsmStructured { register, .. } => Some(register),
            _ => None,
        }
    }

    /// The binding of a resource, UAV, sampler or constant-buffer declaration.
    pub fn binding(&self) -> Option<&BindingRange> {
        use Declaration::*;
        match self {
            Resource { range, .. }
            | ResourceRaw { range, .. }
            | ResourceStructured { range, .. }
            | UavTyped { range, .. }
            | UavRaw { range, .. }
            | UavStructured { range, .. }
            | ConstantBuffer { range, .. }
            | Sampler { range, .. } => Some(range),
            _ => None,
        }
    }

    /// The dimension of the resource a `t#`, `u#` or `g#` declaration declares
    /// (raw and structured declarations give [`ResourceDimension::RawBuffer`] and
    /// [`ResourceDimension::StructuredBuffer`]).
    pub fn resource_dimension(&self) -> Option<ResourceDimension> {
        use Declaration::*;
        match self {
            Resource { dimension, .. } | UavTyped { dimension, .. } => Some(*dimension),
            ResourceRaw { .. } | UavRaw { .. } | TgsmRaw { .. } => {
                Some(ResourceDimension::RawBuffer)
            }
            ResourceStructured { .. } | UavStructured { .. } | TgsmStructured { .. } => {
                Some(ResourceDimension::StructuredBuffer)
            }
            _ => None,
        }
    }
}

/// The start of a hull-shader phase (`hs_decls`, `hs_control_point_phase`,
/// `hs_fork_phase`, `hs_join_phase`): the instructions up to the next marker belong to it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum HullPhase {
    /// The declarations shared by all phases.
    Declarations,
    /// The control-point phase (one invocation per output control point).
    ControlPoint,
    /// A fork phase (patch-constant code whose instances run in parallel).
    Fork,
    /// A join phase (patch-constant code that runs after the fork phases).
    Join,
}

/// A shader message (`D3D11_SB_CUSTOMDATA_SHADER_MESSAGE`): a message or error the
/// program reports, with operands to format into it.
#[derive(Debug, Clone, PartialEq)]
pub struct ShaderMessage {
    /// `D3D11_SB_SHADER_MESSAGE_ID` (0x00200102 message, 0x00200103 error).
    pub id: u32,
    /// `D3D11_SB_SHADER_MESSAGE_FORMAT`: 0 plain text, 1 printf-style.
    pub format: u32,
    /// The message text (invalid UTF-8 replaced).
    pub text: String,
    /// The operands substituted into it.
    pub operands: Vec<Operand>,
}

/// A custom-data block (`D3D10_SB_OPCODE_CUSTOMDATA`), kept with its contents.
#[derive(Debug, Clone, PartialEq)]
pub enum CustomData {
    /// `D3D10_SB_CUSTOMDATA_COMMENT`: words of text.
    Comment(Vec<u32>),
    /// `D3D10_SB_CUSTOMDATA_DEBUGINFO`.
    DebugInfo(Vec<u32>),
    /// `D3D10_SB_CUSTOMDATA_OPAQUE`.
    Opaque(Vec<u32>),
    /// `D3D10_SB_CUSTOMDATA_DCL_IMMEDIATE_CONSTANT_BUFFER`: `icb[]`, one vector per element.
    ImmediateConstantBuffer(Vec<[u32; 4]>),
    /// `D3D11_SB_CUSTOMDATA_SHADER_MESSAGE`.
    ShaderMessage(ShaderMessage),
    /// `D3D11_SB_CUSTOMDATA_SHADER_CLIP_PLANE_CONSTANT_MAPPINGS_FOR_DX9`.
    ClipPlaneConstantMappings(Vec<u32>),
    /// A class this decoder does not know, kept raw.
    Other {
        /// The class.
        class: u32,
        /// The words after the length token.
        words: Vec<u32>,
    },
}

impl CustomData {
    /// The custom-data class code.
    pub fn class(&self) -> u32 {
        match self {
            CustomData::Comment(_) => 0,
            CustomData::DebugInfo(_) => 1,
            CustomData::Opaque(_) => 2,
            CustomData::ImmediateConstantBuffer(_) => 3,
            CustomData::ShaderMessage(_) => 4,
            CustomData::ClipPlaneConstantMappings(_) => 5,
            CustomData::Other { class, .. } => *class,
        }
    }
}

/// Reads the body of a custom-data block: `words` are the tokens after the length token
/// (seed 002, "Custom-Data Block Format"; the immediate constant buffer's length "must be
/// 2 + a multiple of 4"; the shader message layout is in the header's "Shader Message
/// Declaration").
pub(super) fn read_custom_data(
    class: u32,
    words: &[u32],
    c: &Cursor<'_>,
) -> Result<CustomData, DxbcError> {
    let at = c.start();
    Ok(match class {
        0 => CustomData::Comment(words.to_vec()),
        1 => CustomData::DebugInfo(words.to_vec()),
        2 => CustomData::Opaque(words.to_vec()),
        3 => {
            let rows = words.chunks_exact(4);
            if !rows.remainder().is_empty() {
                return Err(DxbcError::BadCustomData {
                    class,
                    reason: "immediate constant buffer is not a whole number of 4-word vectors",
                    at,
                });
            }
            CustomData::ImmediateConstantBuffer(
                rows.map(|r| <[u32; 4]>::try_from(r).unwrap_or_default())
                    .collect(),
            )
        }
        4 => CustomData::ShaderMessage(read_shader_message(words, c)?),
        5 => CustomData::ClipPlaneConstantMappings(words.to_vec()),
        _ => CustomData::Other {
            class,
            words: words.to_vec(),
        },
    })
}

/// Reads a shader message: id, format, character count, operand count, operand length
/// in words, the operands, then the text padded to whole words.
fn read_shader_message(words: &[u32], c: &Cursor<'_>) -> Result<ShaderMessage, DxbcError> {
    let at = c.start();
    let bad = |reason| DxbcError::BadCustomData {
        class: 4,
        reason,
        at,
    };
    let [id, format, chars, count, op_words, rest @ ..] = words else {
        return Err(bad("shader message shorter than its 5-word header"));
    };
    let op_words = usize::try_from(*op_words).map_err(|_| bad("operand length too large"))?;
    let (op_tokens, text_words) = rest
        .split_at_checked(op_words)
        .ok_or_else(|| bad("operands run past the block"))?;
    let chars = usize::try_from(*chars).map_err(|_| bad("text length too large"))?;
    if chars > text_words.len().saturating_mul(4) {
        return Err(bad("text runs past the block"));
    }
    // Each operand takes at least one token, so the count is bounded before allocating.
    if usize::try_from(*count).map_or(true, |n| n > op_tokens.len()) {
        return Err(bad("more operands than operand tokens"));
    }
    // The operands start after the opcode, length and five header tokens.
    let mut sub = c.sub(op_tokens, 7);
    let mut operands = Vec::new();
    for _ in 0..*count {
        operands.push(read_operand(&mut sub)?);
    }
    if sub.remaining() != 0 {
        return Err(bad("operands do not fill their stated length"));
    }
    let bytes: Vec<u8> = text_words
        .iter()
        .flat_map(|w| w.to_le_bytes())
        .take(chars)
        .collect();
    Ok(ShaderMessage {
        id: *id,
        format: *format,
        text: String::from_utf8_lossy(&bytes).into_owned(),
        operands,
    })
}

/// Reads a declaration's body (the tokens after its opcode token). `sm51` selects the
/// Shader Model 5.1 layouts of resource, sampler, UAV and constant-buffer declarations
/// (3D operand `id[lower:upper]`, then the extra DWORDs, then the space).
pub(super) fn read_declaration(
    op: Opcode,
    tok: OpcodeToken,
    c: &mut Cursor<'_>,
    sm51: bool,
) -> Result<Declaration, DxbcError> {
    use Declaration as D;
    let at = c.start();
    Ok(match op {
        Opcode::DclGlobalFlags => D::GlobalFlags(GlobalFlags(tok.global_flags())),
        Opcode::DclResource => {
            let register = expect(read_operand(c)?, RegisterType::Resource, "dcl_resource", c)?;
            let dimension = ResourceDimension::decode(u32::from(tok.resource_dimension()), at)?;
            let sample_count = if matches!(
                dimension,
                ResourceDimension::Texture2DMS | ResourceDimension::Texture2DMSArray
            ) {
                u32::from(tok.sample_count())
            } else {
                0
            };
            let return_types = return_types(c.next("return type token")?, c)?;
            let range = binding(&register, sm51, c)?;
            D::Resource {
                register,
                range,
                dimension,
                sample_count,
                return_types,
            }
        }
        Opcode::DclResourceRaw => {
            let register = expect(
                read_operand(c)?,
                RegisterType::Resource,
                "dcl_resource_raw",
                c,
            )?;
            let range = binding(&register, sm51, c)?;
            D::ResourceRaw { register, range }
        }
        Opcode::DclResourceStructured => {
            let register = expect(
                read_operand(c)?,
                RegisterType::Resource,
                "dcl_resource_structured",
                c,
            )?;
            let stride = c.next("structure stride")?;
            let range = binding(&register, sm51, c)?;
            D::ResourceStructured {
                register,
                range,
                stride,
            }
        }
        Opcode::DclUavTyped => {
            let register = expect(
                read_operand(c)?,
                RegisterType::UnorderedAccessView,
                "dcl_uav_typed",
                c,
            )?;
            let dimension = ResourceDimension::decode(u32::from(tok.resource_dimension()), at)?;
            let return_types = return_types(c.next("return type token")?, c)?;
            let range = binding(&register, sm51, c)?;
            D::UavTyped {
                register,
                range,
                dimension,
                return_types,
                flags: uav_flags(tok, false),
            }
        }
        Opcode::DclUavRaw => {
            let register = expect(
                read_operand(c)?,
                RegisterType::UnorderedAccessView,
                "dcl_uav_raw",
                c,
            )?;
            let range = binding(&register, sm51, c)?;
            D::UavRaw {
                register,
                range,
                flags: uav_flags(tok, false),
            }
        }
        Opcode::DclUavStructured => {
            let register = expect(
                read_operand(c)?,
                RegisterType::UnorderedAccessView,
                "dcl_uav_structured",
                c,
            )?;
            let stride = c.next("structure stride")?;
            let range = binding(&register, sm51, c)?;
            D::UavStructured {
                register,
                range,
                stride,
                flags: uav_flags(tok, true),
            }
        }
        Opcode::DclConstantBuffer => {
            let register = expect(
                read_operand(c)?,
                RegisterType::ConstantBuffer,
                "dcl_constantbuffer",
                c,
            )?;
            let (range, size) = if sm51 {
                let ids =
                    decl_indices::<3>(&register, "3 (Shader Model 5.1: id, lower, upper)", c)?;
                let size = c.next("constant buffer size")?;
                let space = c.next("register space")?;
                (
                    BindingRange {
                        id: ids[0],
                        lower: ids[1],
                        upper: ids[2],
                        space,
                    },
                    size,
                )
            } else {
                let [id, size] = decl_indices::<2>(&register, "2 (slot, size)", c)?;
                (
                    BindingRange {
                        id,
                        lower: id,
                        upper: id,
                        space: 0,
                    },
                    size,
                )
            };
            D::ConstantBuffer {
                register,
                range,
                size,
                dynamic_indexed: tok.cb_dynamic_indexed(),
            }
        }
        Opcode::DclSampler => {
            let register = expect(read_operand(c)?, RegisterType::Sampler, "dcl_sampler", c)?;
            let mode = SamplerMode::decode(u32::from(tok.sampler_mode()), at)?;
            let range = binding(&register, sm51, c)?;
            D::Sampler {
                register,
                range,
                mode,
            }
        }
        Opcode::DclInput => D::Input {
            register: read_operand(c)?,
        },
        Opcode::DclInputSgv => D::InputSgv {
            register: read_operand(c)?,
            name: name(c)?,
        },
        Opcode::DclInputSiv => D::InputSiv {
            register: read_operand(c)?,
            name: name(c)?,
        },
        Opcode::DclInputPs => D::InputPs {
            interpolation: Interpolation::decode(u32::from(tok.interpolation_mode()), at)?,
            register: read_operand(c)?,
        },
        Opcode::DclInputPsSgv => D::InputPsSgv {
            register: read_operand(c)?,
            name: name(c)?,
        },
        Opcode::DclInputPsSiv => D::InputPsSiv {
            interpolation: Interpolation::decode(u32::from(tok.interpolation_mode()), at)?,
            register: read_operand(c)?,
            name: name(c)?,
        },
        Opcode::DclOutput => D::Output {
            register: read_operand(c)?,
        },
        Opcode::DclOutputSgv => D::OutputSgv {
            register: read_operand(c)?,
            name: name(c)?,
        },
        Opcode::DclOutputSiv => D::OutputSiv {
            register: read_operand(c)?,
            name: name(c)?,
        },
        Opcode::DclTemps => D::Temps {
            count: c.next("temp count")?,
        },
        Opcode::DclIndexableTemp => {
            let index = c.next("indexable temp register")?;
            let size = c.next("indexable temp size")?;
            let components_at = c.location();
            let components = c.next("indexable temp component count")?;
            if !(1..=4).contains(&components) {
                return Err(DxbcError::BadField {
                    what: "indexable temp component count",
                    value: components,
                    at: components_at,
                });
            }
            D::IndexableTemp {
                index,
                size,
                components,
            }
        }
        Opcode::DclIndexRange => D::IndexRange {
            register: read_operand(c)?,
            count: c.next("index range count")?,
        },
        Opcode::DclGsInputPrimitive => {
            let code = u32::from(tok.primitive_field());
            D::GsInputPrimitive(Primitive::from_code(code).ok_or(DxbcError::BadField {
                what: "input primitive",
                value: code,
                at,
            })?)
        }
        Opcode::DclGsOutputPrimitiveTopology => D::GsOutputTopology(PrimitiveTopology::decode(
            u32::from(tok.primitive_field()),
            at,
        )?),
        Opcode::DclMaxOutputVertexCount => {
            D::MaxOutputVertexCount(c.next("maximum output vertex count")?)
        }
        Opcode::DclGsInstanceCount => D::GsInstanceCount(c.next("instance count")?),
        Opcode::DclStream => D::Stream {
            register: expect(read_operand(c)?, RegisterType::Stream, "dcl_stream", c)?,
        },
        Opcode::DclInputControlPointCount => {
            D::InputControlPointCount(u32::from(tok.primitive_field()))
        }
        Opcode::DclOutputControlPointCount => {
            D::OutputControlPointCount(u32::from(tok.primitive_field()))
        }
        Opcode::DclTessDomain => {
            D::TessDomain(TessDomain::decode(u32::from(tok.tess_domain()), at)?)
        }
        Opcode::DclTessPartitioning => {
            D::TessPartitioning(TessPartitioning::decode(u32::from(tok.tess_field()), at)?)
        }
        Opcode::DclTessOutputPrimitive => D::TessOutputPrimitive(TessOutputPrimitive::decode(
            u32::from(tok.tess_field()),
            at,
        )?),
        Opcode::DclHsMaxTessFactor => {
            D::HsMaxTessFactor(f32::from_bits(c.next("maximum tessellation factor")?))
        }
        Opcode::DclHsForkPhaseInstanceCount => {
            D::HsForkPhaseInstanceCount(c.next("fork phase instance count")?)
        }
        Opcode::DclHsJoinPhaseInstanceCount => {
            D::HsJoinPhaseInstanceCount(c.next("join phase instance count")?)
        }
        Opcode::DclThreadGroup => D::ThreadGroup {
            x: c.next("thread group size x")?,
            y: c.next("thread group size y")?,
            z: c.next("thread group size z")?,
        },
        Opcode::DclTgsmRaw => D::TgsmRaw {
            register: expect(
                read_operand(c)?,
                RegisterType::ThreadGroupSharedMemory,
                "dcl_tgsm_raw",
                c,
            )?,
            byte_count: c.next("byte count")?,
        },
        Opcode::DclTgsmStructured => D::TgsmStructured {
            register: expect(
                read_operand(c)?,
                RegisterType::ThreadGroupSharedMemory,
                "dcl_tgsm_structured",
                c,
            )?,
            stride: c.next("structure stride")?,
            count: c.next("structure count")?,
        },
        Opcode::DclFunctionBody => D::FunctionBody(c.next("function body id")?),
        Opcode::DclFunctionTable => {
            let id = c.next("function table id")?;
            let len = c.next("function table length")?;
            D::FunctionTable {
                id,
                bodies: c.take_words(len, "function body ids")?.to_vec(),
            }
        }
        Opcode::DclInterface => {
            let id = c.next("interface id")?;
            let type_count = c.next("interface type count")?;
            let lengths = c.next("interface table and array lengths")?;
            let tables = c
                .take_words(lengths & 0xffff, "function table ids")?
                .to_vec();
            D::Interface(InterfaceDecl {
                id,
                dynamically_indexed: tok.interface_indexed(),
                type_count,
                array_length: lengths >> 16,
                tables,
            })
        }
        _ => {
            return Err(DxbcError::BadField {
                what: "declaration opcode",
                value: u32::from(op.code()),
                at,
            });
        }
    })
}

/// Checks that a declared operand has register type `ty`.
fn expect(
    op: Operand,
    ty: RegisterType,
    context: &'static str,
    c: &Cursor<'_>,
) -> Result<Operand, DxbcError> {
    if op.register == ty {
        Ok(op)
    } else {
        Err(DxbcError::WrongRegister {
            context,
            expected: ty.name(),
            found: op.register.name(),
            at: c.start(),
        })
    }
}

/// Reads a system value name token (`[15:00]`, seed 002 "Name Token").
fn name(c: &mut Cursor<'_>) -> Result<SystemName, DxbcError> {
    let at = c.location();
    SystemName::decode(c.next("system value name")? & 0xffff, at)
}

/// Decodes a `ResourceReturnTypeToken`.
fn return_types(token: u32, c: &Cursor<'_>) -> Result<[ReturnType; 4], DxbcError> {
    let at = c.start();
    let [x, y, z, w] = resource_return_types(token).map(u32::from);
    Ok([
        ReturnType::decode(x, at)?,
        ReturnType::decode(y, at)?,
        ReturnType::decode(z, at)?,
        ReturnType::decode(w, at)?,
    ])
}

/// The UAV flags of a UAV declaration token; the counter bit exists only on structured UAVs.
fn uav_flags(tok: OpcodeToken, structured: bool) -> UavFlags {
    UavFlags {
        globally_coherent: tok.globally_coherent(),
        rasterizer_ordered: tok.rasterizer_ordered(),
        has_counter: structured && tok.has_counter(),
    }
}

/// The immediate indices of a declared operand, which must have exactly `N`.
fn decl_indices<const N: usize>(
    op: &Operand,
    expected: &'static str,
    c: &Cursor<'_>,
) -> Result<[u32; N], DxbcError> {
    let at = c.start();
    if op.indices().len() != N {
        return Err(DxbcError::BadIndexDimension {
            register: op.register.name(),
            found: op.index_count,
            expected,
            at,
        });
    }
    let mut out = [0u32; N];
    for (slot, index) in out.iter_mut().zip(op.indices()) {
        *slot = match index {
            Index::Immediate(v) => *v,
            Index::Relative { .. } => {
                return Err(DxbcError::BadField {
                    what: "relative index in a declaration",
                    value: 0,
                    at,
                });
            }
        };
    }
    Ok(out)
}

/// The binding of a `t#`/`s#`/`u#` declaration: 1D `t3` up to Shader Model 5.0, 3D
/// `T3[lower:upper]` followed by the space DWORD (after any other DWORDs of the
/// declaration) in 5.1.
fn binding(register: &Operand, sm51: bool, c: &mut Cursor<'_>) -> Result<BindingRange, DxbcError> {
    if sm51 {
        let [id, lower, upper] =
            decl_indices::<3>(register, "3 (Shader Model 5.1: id, lower, upper)", c)?;
        Ok(BindingRange {
            id,
            lower,
            upper,
            space: c.next("register space")?,
        })
    } else {
        let [id] = decl_indices::<1>(register, "1", c)?;
        Ok(BindingRange {
            id,
            lower: id,
            upper: id,
            space: 0,
        })
    }
}
