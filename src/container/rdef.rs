//! `RDEF`: the resource definitions fxc writes beside a Shader Model 4/5 program —
//! constant buffers with their variables and types, and the resource bindings.
//!
//! Owns: decoding the header, the `RD11` sub-header of Shader Model 5.x, constant
//! buffers, variables, types (recursively) and bindings, and naming their codes. Does not
//! own: checking them against the program's declarations.
//!
//! # Layout (little-endian; every offset counts from the start of the part)
//!
//! Header, 28 bytes: constant buffer count and offset, binding count and offset, target
//! version word (minor in bits 0..8, major in 8..16, program type in 16..32: `0xffff`
//! pixel, `0xfffe` vertex, `GS`, `HS`, `DS`, `CS` as two ASCII bytes), compile flags
//! (`D3DCOMPILE_*`), creator string offset. For major version 5 and up an `RD11`
//! sub-header follows: magic (`RD11` for 5.0; the same bytes nibble-reversed,
//! 0x25441313, for 5.1 and later), header size (60), and the record sizes of constant
//! buffers (24), bindings (32, or 40 with space and ID in 5.1), variables (40), types
//! (36) and members (12), then a zero word.
//!
//! | record | size | fields |
//! |---|---|---|
//! | constant buffer | 24 | name, variable count, variables offset, size, flags, type |
//! | variable | 24 / 40 | name, offset, size, flags, type offset, default offset; `RD11`: start texture, texture count, start sampler, sampler count |
//! | type | 16 / 36 | class (u16), base type (u16), rows, columns, elements, member count (u16 each), members offset; `RD11`: four words, name offset |
//! | member | 12 | name, type offset, byte offset |
//! | binding | 32 / 40 | name, input type, return type, dimension, sample count, bind point, bind count, flags; 5.1: space, ID |
//!
//! Sources: vkd3d `parse_rdef` (`libs/vkd3d-utils/reflection.c`), Wine
//! `d3dcompiler_parse_rdef`, Xenia `dxbc::Rdef*` (`src/xenia/gpu/dxbc.h`), and the
//! `D3D*_SHADER_*_DESC` structures of d3d11shader.h/d3d12shader.h. The order "flags, then
//! type" of a constant buffer's last two words is vkd3d's and Wine's; the corpus agrees
//! (its structured buffers store 3, `D3D_CT_RESOURCE_BIND_INFO`, in the last word).

use serde::Serialize;

use super::codes::{code_enum, flag_names};
use super::{ContainerError, FourCc, Part, Reader};

/// Types nest at most this deep (HLSL structs nest a few levels; the limit stops
/// self-referencing type records).
pub const MAX_TYPE_DEPTH: u32 = 32;

/// At most this many records (variables, types, members) are decoded from one part:
/// records may share bytes, so without a bound a small part could expand enormously.
pub const MAX_RDEF_RECORDS: u32 = 1 << 16;

/// At most this many bytes of default values are kept from one part.
pub const MAX_DEFAULT_BYTES: u32 = 1 << 20;

/// The `RD11` magic of Shader Model 5.0 (the bytes `RD11`).
pub const RD11_MAGIC: u32 = u32::from_le_bytes(*b"RD11");
/// The `RD11` magic of Shader Model 5.1 and later (vkd3d's `TAG_RD11_REVERSE`).
pub const RD11_MAGIC_REVERSED: u32 = 0x2544_1313;

/// Record sizes without the `RD11` sub-header (Shader Model 4.x).
const SM4_SIZES: RecordSizes = RecordSizes {
    cbuffer: 24,
    binding: 32,
    variable: 24,
    ty: 16,
    member: 12,
};

code_enum! {
    /// A constant buffer's type (`D3D_CBUFFER_TYPE`).
    pub enum CbufferType: u32 {
        Cbuffer = 0 => "cbuffer",
        Tbuffer = 1 => "tbuffer",
        InterfacePointers = 2 => "interface_pointers",
        ResourceBindInfo = 3 => "resource_bind_info",
    }
}

code_enum! {
    /// A binding's input type (`D3D_SHADER_INPUT_TYPE`).
    pub enum InputType: u32 {
        Cbuffer = 0 => "cbuffer",
        Tbuffer = 1 => "tbuffer",
        Texture = 2 => "texture",
        Sampler = 3 => "sampler",
        UavRwTyped = 4 => "uav_rwtyped",
        Structured = 5 => "structured",
        UavRwStructured = 6 => "uav_rwstructured",
        ByteAddress = 7 => "byteaddress",
        UavRwByteAddress = 8 => "uav_rwbyteaddress",
        UavAppendStructured = 9 => "uav_append_structured",
        UavConsumeStructured = 10 => "uav_consume_structured",
        UavRwStructuredWithCounter = 11 => "uav_rwstructured_with_counter",
        RtAccelerationStructure = 12 => "rtaccelerationstructure",
        UavFeedbackTexture = 13 => "uav_feedbacktexture",
    }
}

impl InputType {
    /// The `Type` column of fxc's resource-binding table: `cbuffer`, `tbuffer`,
    /// `texture`, `sampler` or `UAV`.
    pub fn listing_name(self) -> String {
        use InputType::*;
        match self {
            Cbuffer => "cbuffer".into(),
            Tbuffer => "tbuffer".into(),
            Texture | Structured | ByteAddress | RtAccelerationStructure => "texture".into(),
            Sampler => "sampler".into(),
            UavRwTyped
            | UavRwStructured
            | UavRwByteAddress
            | UavAppendStructured
            | UavConsumeStructured
            | UavRwStructuredWithCounter
            | UavFeedbackTexture => "UAV".into(),
            Unknown(n) => format!("unknown({n})"),
        }
    }

    /// The register letter: `cb`, `t`, `s` or `u`.
    pub fn register_prefix(self) -> &'static str {
        use InputType::*;
        match self {
            Cbuffer => "cb",
            Sampler => "s",
            UavRwTyped
            | UavRwStructured
            | UavRwByteAddress
            | UavAppendStructured
            | UavConsumeStructured
            | UavRwStructuredWithCounter
            | UavFeedbackTexture => "u",
            _ => "t",
        }
    }
}

code_enum! {
    /// A resource's return type (`D3D_RESOURCE_RETURN_TYPE`).
    pub enum ReturnType: u32 {
        None = 0 => "none",
        Unorm = 1 => "unorm",
        Snorm = 2 => "snorm",
        Sint = 3 => "int",
        Uint = 4 => "uint",
        Float = 5 => "float",
        Mixed = 6 => "mixed",
        Double = 7 => "double",
        Continued = 8 => "continued",
    }
}

code_enum! {
    /// A resource's dimension (`D3D_SRV_DIMENSION`; UAVs use the same numbers).
    pub enum Dimension: u32 {
        Unspecified = 0 => "unknown",
        Buffer = 1 => "buffer",
        Texture1D = 2 => "texture1d",
        Texture1DArray = 3 => "texture1darray",
        Texture2D = 4 => "texture2d",
        Texture2DArray = 5 => "texture2darray",
        Texture2DMS = 6 => "texture2dms",
        Texture2DMSArray = 7 => "texture2dmsarray",
        Texture3D = 8 => "texture3d",
        TextureCube = 9 => "texturecube",
        TextureCubeArray = 10 => "texturecubearray",
        BufferEx = 11 => "bufferex",
    }
}

impl Dimension {
    /// The `Dim` column of fxc's resource-binding table (`NA`, `buf`, `2d`, `2darrayMS4`, …).
    pub fn listing_name(self, samples: u32) -> String {
        use Dimension::*;
        let ms = |base: &str| {
            if samples == 0 || samples == u32::MAX {
                base.to_string()
            } else {
                format!("{base}{samples}")
            }
        };
        match self {
            Unspecified => "NA".into(),
            Buffer | BufferEx => "buf".into(),
            Texture1D => "1d".into(),
            Texture1DArray => "1darray".into(),
            Texture2D => "2d".into(),
            Texture2DArray => "2darray".into(),
            Texture2DMS => ms("2dMS"),
            Texture2DMSArray => ms("2darrayMS"),
            Texture3D => "3d".into(),
            TextureCube => "cube".into(),
            TextureCubeArray => "cubearray".into(),
            Unknown(n) => format!("unknown({n})"),
        }
    }
}

code_enum! {
    /// A type's class (`D3D_SHADER_VARIABLE_CLASS`).
    pub enum VariableClass: u16 {
        Scalar = 0 => "scalar",
        Vector = 1 => "vector",
        MatrixRows = 2 => "matrix_rows",
        MatrixColumns = 3 => "matrix_columns",
        Object = 4 => "object",
        Struct = 5 => "struct",
        InterfaceClass = 6 => "interface_class",
        InterfacePointer = 7 => "interface_pointer",
    }
}

code_enum! {
    /// A type's base type (`D3D_SHADER_VARIABLE_TYPE`), spelled as HLSL spells it.
    pub enum VariableType: u16 {
        Void = 0 => "void",
        Bool = 1 => "bool",
        Int = 2 => "int",
        Float = 3 => "float",
        String = 4 => "string",
        Texture = 5 => "texture",
        Texture1D = 6 => "Texture1D",
        Texture2D = 7 => "Texture2D",
        Texture3D = 8 => "Texture3D",
        TextureCube = 9 => "TextureCube",
        Sampler = 10 => "sampler",
        Sampler1D = 11 => "sampler1D",
        Sampler2D = 12 => "sampler2D",
        Sampler3D = 13 => "sampler3D",
        SamplerCube = 14 => "samplerCUBE",
        PixelShader = 15 => "PixelShader",
        VertexShader = 16 => "VertexShader",
        PixelFragment = 17 => "PixelFragment",
        VertexFragment = 18 => "VertexFragment",
        Uint = 19 => "uint",
        Uint8 = 20 => "uint8",
        GeometryShader = 21 => "GeometryShader",
        Rasterizer = 22 => "RasterizerState",
        DepthStencil = 23 => "DepthStencilState",
        Blend = 24 => "BlendState",
        Buffer = 25 => "Buffer",
        Cbuffer = 26 => "cbuffer",
        Tbuffer = 27 => "tbuffer",
        Texture1DArray = 28 => "Texture1DArray",
        Texture2DArray = 29 => "Texture2DArray",
        RenderTargetView = 30 => "RenderTargetView",
        DepthStencilView = 31 => "DepthStencilView",
        Texture2DMS = 32 => "Texture2DMS",
        Texture2DMSArray = 33 => "Texture2DMSArray",
        TextureCubeArray = 34 => "TextureCubeArray",
        HullShader = 35 => "HullShader",
        DomainShader = 36 => "DomainShader",
        InterfacePointer = 37 => "interface_pointer",
        ComputeShader = 38 => "ComputeShader",
        Double = 39 => "double",
        RwTexture1D = 40 => "RWTexture1D",
        RwTexture1DArray = 41 => "RWTexture1DArray",
        RwTexture2D = 42 => "RWTexture2D",
        RwTexture2DArray = 43 => "RWTexture2DArray",
        RwTexture3D = 44 => "RWTexture3D",
        RwBuffer = 45 => "RWBuffer",
        ByteAddressBuffer = 46 => "ByteAddressBuffer",
        RwByteAddressBuffer = 47 => "RWByteAddressBuffer",
        StructuredBuffer = 48 => "StructuredBuffer",
        RwStructuredBuffer = 49 => "RWStructuredBuffer",
        AppendStructuredBuffer = 50 => "AppendStructuredBuffer",
        ConsumeStructuredBuffer = 51 => "ConsumeStructuredBuffer",
        Min8Float = 52 => "min8float",
        Min10Float = 53 => "min10float",
        Min16Float = 54 => "min16float",
        Min12Int = 55 => "min12int",
        Min16Int = 56 => "min16int",
        Min16Uint = 57 => "min16uint",
        Int16 = 58 => "int16_t",
        Uint16 = 59 => "uint16_t",
        Float16 = 60 => "float16_t",
        Int64 = 61 => "int64_t",
        Uint64 = 62 => "uint64_t",
    }
}

/// The `D3DCOMPILE_*` flags by bit (d3dcompiler.h). Bits 14 and 15 together are
/// `OPTIMIZATION_LEVEL2`; each alone is level 0 or 3.
pub const COMPILE_FLAG_BITS: &[(u32, &str)] = &[
    (0, "DEBUG"),
    (1, "SKIP_VALIDATION"),
    (2, "SKIP_OPTIMIZATION"),
    (3, "PACK_MATRIX_ROW_MAJOR"),
    (4, "PACK_MATRIX_COLUMN_MAJOR"),
    (5, "PARTIAL_PRECISION"),
    (6, "FORCE_VS_SOFTWARE_NO_OPT"),
    (7, "FORCE_PS_SOFTWARE_NO_OPT"),
    (8, "NO_PRESHADER"),
    (9, "AVOID_FLOW_CONTROL"),
    (10, "PREFER_FLOW_CONTROL"),
    (11, "ENABLE_STRICTNESS"),
    (12, "ENABLE_BACKWARDS_COMPATIBILITY"),
    (13, "IEEE_STRICTNESS"),
    (14, "OPTIMIZATION_LEVEL0"),
    (15, "OPTIMIZATION_LEVEL3"),
    (18, "WARNINGS_ARE_ERRORS"),
    (19, "RESOURCES_MAY_ALIAS"),
    (20, "ENABLE_UNBOUNDED_DESCRIPTOR_TABLES"),
    (21, "ALL_RESOURCES_BOUND"),
    (22, "DEBUG_NAME_FOR_SOURCE"),
    (23, "DEBUG_NAME_FOR_BINARY"),
];

/// A variable's flags (`D3D_SHADER_VARIABLE_FLAGS`).
pub const VARIABLE_FLAG_BITS: &[(u32, &str)] = &[
    (0, "userpacked"),
    (1, "used"),
    (2, "interface_pointer"),
    (3, "interface_parameter"),
];

/// A binding's flags (`D3D_SHADER_INPUT_FLAGS`); bits 2–3 together are the texture
/// component count minus one and are reported separately.
pub const INPUT_FLAG_BITS: &[(u32, &str)] =
    &[(0, "userpacked"), (1, "comparison_sampler"), (4, "unused")];

/// The record sizes an `RDEF` part uses.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct RecordSizes {
    /// Constant buffer records.
    pub cbuffer: u32,
    /// Binding records.
    pub binding: u32,
    /// Variable records.
    pub variable: u32,
    /// Type records.
    #[serde(rename = "type")]
    pub ty: u32,
    /// Struct member records.
    pub member: u32,
}

/// The `RD11` sub-header of Shader Model 5.x.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
pub struct Rd11Header {
    /// The magic word (`RD11`, or its 5.1 form).
    pub magic: u32,
    /// The header size (60).
    pub header_size: u32,
    /// The record sizes.
    pub sizes: RecordSizes,
    /// The last word (0 in every known part).
    pub reserved: u32,
}

/// A type, with its members resolved.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RdefType {
    /// Where the type record starts.
    pub offset: u32,
    /// The class.
    pub class: VariableClass,
    /// The base type.
    pub base: VariableType,
    /// Rows (matrices; 1 for other numeric types).
    pub rows: u16,
    /// Columns (vectors and matrices; 1 for scalars).
    pub columns: u16,
    /// Array elements (0 when not an array).
    pub elements: u16,
    /// The type's name (`RD11` only; `None` without one).
    pub name: Option<String>,
    /// The four `RD11` words between the members offset and the name (interface
    /// related; zero in practice). Empty without `RD11`.
    pub rd11_words: Vec<u32>,
    /// Struct members.
    pub members: Vec<RdefMember>,
}

/// A struct member.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RdefMember {
    /// The member's name.
    pub name: String,
    /// Its byte offset within the struct.
    pub offset: u32,
    /// Its type.
    #[serde(rename = "type")]
    pub ty: RdefType,
}

/// A variable of a constant buffer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RdefVariable {
    /// The variable's name.
    pub name: String,
    /// Byte offset within the buffer.
    pub offset: u32,
    /// Size in bytes.
    pub size: u32,
    /// Flags (`D3D_SHADER_VARIABLE_FLAGS`).
    pub flags: u32,
    /// The set flags by name.
    pub flag_names: Vec<String>,
    /// The type.
    #[serde(rename = "type")]
    pub ty: RdefType,
    /// The default value's bytes (`size` bytes), when stored.
    #[serde(serialize_with = "ser_hex_opt")]
    pub default_value: Option<Vec<u8>>,
    /// `RD11`: first texture slot (0xffffffff when none), texture count, first sampler
    /// slot, sampler count.
    pub texture_sampler: Option<[u32; 4]>,
}

impl RdefVariable {
    /// Whether the program uses the variable (flag bit 1).
    pub fn is_used(&self) -> bool {
        self.flags & 2 != 0
    }
}

/// A constant buffer (or tbuffer, interface table, or a structured buffer's element
/// description).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ConstantBuffer {
    /// The buffer's name.
    pub name: String,
    /// What the record describes.
    pub kind: CbufferType,
    /// Size in bytes (for a structured buffer: the element stride).
    pub size: u32,
    /// Flags (bit 0: user packed).
    pub flags: u32,
    /// The variables.
    pub variables: Vec<RdefVariable>,
}

/// A resource binding.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Binding {
    /// The resource's name.
    pub name: String,
    /// What is bound.
    pub input_type: InputType,
    /// The return type (textures and typed buffers).
    pub return_type: ReturnType,
    /// The dimension.
    pub dimension: Dimension,
    /// Samples (multisampled textures; 0xffffffff or 0 otherwise; for structured
    /// buffers fxc stores the stride here).
    pub sample_count: u32,
    /// The first register.
    pub bind_point: u32,
    /// Registers bound (0 for an unbounded array).
    pub bind_count: u32,
    /// Flags (`D3D_SHADER_INPUT_FLAGS`).
    pub flags: u32,
    /// The set flags by name (the component count is in [`Binding::components`]).
    pub flag_names: Vec<String>,
    /// Register space (5.1 records; `None` in the 32-byte form, where it is 0).
    pub space: Option<u32>,
    /// Range ID (5.1 records; `None` in the 32-byte form, where it equals the bind point).
    pub id: Option<u32>,
}

impl Binding {
    /// Components of a texture's or typed buffer's element (flag bits 2–3, plus one).
    pub fn components(&self) -> u32 {
        ((self.flags >> 2) & 3).saturating_add(1)
    }
}

/// A decoded `RDEF` part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rdef {
    /// The target version word.
    pub target: u32,
    /// The program type of the target (`ps`, `vs`, `gs`, `hs`, `ds`, `cs`, or the
    /// value in hex).
    pub target_kind: String,
    /// Target major version.
    pub major: u8,
    /// Target minor version.
    pub minor: u8,
    /// Compile flags (`D3DCOMPILE_*`).
    pub compile_flags: u32,
    /// The set compile flags by name.
    pub compile_flag_names: Vec<String>,
    /// The compiler that wrote the part.
    pub creator: String,
    /// The `RD11` sub-header (Shader Model 5.x).
    pub rd11: Option<Rd11Header>,
    /// Constant buffers, in stored order.
    pub constant_buffers: Vec<ConstantBuffer>,
    /// Bindings, in stored order.
    pub bindings: Vec<Binding>,
}

fn ser_hex_opt<S: serde::Serializer>(v: &Option<Vec<u8>>, s: S) -> Result<S::Ok, S::Error> {
    match v {
        Some(bytes) => {
            s.serialize_some(&bytes.iter().map(|b| format!("{b:02x}")).collect::<String>())
        }
        None => s.serialize_none(),
    }
}

/// The program type in a target word's high half.
fn target_kind_name(kind: u16) -> String {
    match kind {
        0xffff => "ps".into(),
        0xfffe => "vs".into(),
        0x4753 => "gs".into(),
        0x4853 => "hs".into(),
        0x4453 => "ds".into(),
        0x4353 => "cs".into(),
        other => format!("0x{other:04x}"),
    }
}

/// The decoding state: the part, its record sizes and the record budget.
struct Decoder<'a> {
    r: Reader<'a>,
    sizes: RecordSizes,
    rd11: bool,
    records: u32,
    default_bytes: usize,
}

impl Decoder<'_> {
    fn tag(&self) -> FourCc {
        self.r.part()
    }

    /// Counts one decoded record against [`MAX_RDEF_RECORDS`].
    fn spend(&mut self) -> Result<(), ContainerError> {
        self.records = self.records.saturating_add(1);
        if self.records > MAX_RDEF_RECORDS {
            return Err(ContainerError::LimitExceeded {
                part: self.tag(),
                what: "records",
                limit: MAX_RDEF_RECORDS,
            });
        }
        Ok(())
    }

    /// Checks that `count` records of `size` bytes at `offset` lie in the part.
    fn check_array(
        &self,
        what: &'static str,
        count: u32,
        offset: u32,
        size: u32,
    ) -> Result<(), ContainerError> {
        let end =
            u64::from(offset).saturating_add(u64::from(count).saturating_mul(u64::from(size)));
        if count > 0 && end > self.r.len() as u64 {
            return Err(ContainerError::BadField {
                part: self.tag(),
                what,
                value: count.into(),
                offset,
            });
        }
        Ok(())
    }

    fn string(&self, offset: u32) -> Result<String, ContainerError> {
        Ok(self.r.cstr_at(offset as usize)?.to_string())
    }

    fn ty(&mut self, offset: u32, depth: u32) -> Result<RdefType, ContainerError> {
        if depth >= MAX_TYPE_DEPTH {
            return Err(ContainerError::TooDeep {
                part: self.tag(),
                offset,
                limit: MAX_TYPE_DEPTH,
            });
        }
        self.spend()?;
        let at = offset as usize;
        self.r.slice_at(at, self.sizes.ty as usize)?;
        let class = VariableClass::from_code(self.r.u16_at(at)?);
        let base = VariableType::from_code(self.r.u16_at(at.saturating_add(2))?);
        let rows = self.r.u16_at(at.saturating_add(4))?;
        let columns = self.r.u16_at(at.saturating_add(6))?;
        let elements = self.r.u16_at(at.saturating_add(8))?;
        let member_count = self.r.u16_at(at.saturating_add(10))?;
        let members_offset = self.r.u32_at(at.saturating_add(12))?;
        let (rd11_words, name) = if self.rd11 {
            let mut words = Vec::with_capacity(4);
            for i in 0..4usize {
                words.push(
                    self.r
                        .u32_at(at.saturating_add(16).saturating_add(i.saturating_mul(4)))?,
                );
            }
            let name_offset = self.r.u32_at(at.saturating_add(32))?;
            let name = if name_offset == 0 {
                None
            } else {
                Some(self.string(name_offset)?)
            };
            (words, name)
        } else {
            (Vec::new(), None)
        };
        self.check_array(
            "member count",
            member_count.into(),
            members_offset,
            self.sizes.member,
        )?;
        let mut members = Vec::with_capacity(member_count.into());
        for i in 0..u32::from(member_count) {
            self.spend()?;
            let m = members_offset.saturating_add(i.saturating_mul(self.sizes.member)) as usize;
            let name = self.string(self.r.u32_at(m)?)?;
            let type_offset = self.r.u32_at(m.saturating_add(4))?;
            let member_offset = self.r.u32_at(m.saturating_add(8))?;
            let ty = self.ty(type_offset, depth.saturating_add(1))?;
            members.push(RdefMember {
                name,
                offset: member_offset,
                ty,
            });
        }
        Ok(RdefType {
            offset,
            class,
            base,
            rows,
            columns,
            elements,
            name,
            rd11_words,
            members,
        })
    }

    fn variable(&mut self, at: usize) -> Result<RdefVariable, ContainerError> {
        self.spend()?;
        self.r.slice_at(at, self.sizes.variable as usize)?;
        let name = self.string(self.r.u32_at(at)?)?;
        let offset = self.r.u32_at(at.saturating_add(4))?;
        let size = self.r.u32_at(at.saturating_add(8))?;
        let flags = self.r.u32_at(at.saturating_add(12))?;
        let type_offset = self.r.u32_at(at.saturating_add(16))?;
        let default_offset = self.r.u32_at(at.saturating_add(20))?;
        let default_value = if default_offset == 0 {
            None
        } else {
            let bytes = self.r.slice_at(default_offset as usize, size as usize)?;
            self.default_bytes = self.default_bytes.saturating_add(bytes.len());
            if self.default_bytes > MAX_DEFAULT_BYTES as usize {
                return Err(ContainerError::LimitExceeded {
                    part: self.tag(),
                    what: "bytes of default values",
                    limit: MAX_DEFAULT_BYTES,
                });
            }
            Some(bytes.to_vec())
        };
        let texture_sampler = if self.rd11 {
            let w = |i: usize| {
                self.r
                    .u32_at(at.saturating_add(24).saturating_add(i.saturating_mul(4)))
            };
            Some([w(0)?, w(1)?, w(2)?, w(3)?])
        } else {
            None
        };
        let ty = self.ty(type_offset, 0)?;
        Ok(RdefVariable {
            name,
            offset,
            size,
            flags,
            flag_names: flag_names(flags.into(), VARIABLE_FLAG_BITS),
            ty,
            default_value,
            texture_sampler,
        })
    }

    fn cbuffer(&mut self, at: usize) -> Result<ConstantBuffer, ContainerError> {
        let name = self.string(self.r.u32_at(at)?)?;
        let var_count = self.r.u32_at(at.saturating_add(4))?;
        let var_offset = self.r.u32_at(at.saturating_add(8))?;
        let size = self.r.u32_at(at.saturating_add(12))?;
        let flags = self.r.u32_at(at.saturating_add(16))?;
        let kind = CbufferType::from_code(self.r.u32_at(at.saturating_add(20))?);
        self.check_array("variable count", var_count, var_offset, self.sizes.variable)?;
        // Bounded by the bytes that hold the records (checked above) and by the budget.
        let mut variables = Vec::with_capacity((var_count as usize).min(MAX_RDEF_RECORDS as usize));
        for i in 0..var_count {
            let v = var_offset.saturating_add(i.saturating_mul(self.sizes.variable)) as usize;
            variables.push(self.variable(v)?);
        }
        Ok(ConstantBuffer {
            name,
            kind,
            size,
            flags,
            variables,
        })
    }

    fn binding(&mut self, at: usize) -> Result<Binding, ContainerError> {
        let w = |i: usize| self.r.u32_at(at.saturating_add(i.saturating_mul(4)));
        let flags = w(7)?;
        let (space, id) = if self.sizes.binding >= 40 {
            (Some(w(8)?), Some(w(9)?))
        } else {
            (None, None)
        };
        Ok(Binding {
            name: self.string(w(0)?)?,
            input_type: InputType::from_code(w(1)?),
            return_type: ReturnType::from_code(w(2)?),
            dimension: Dimension::from_code(w(3)?),
            sample_count: w(4)?,
            bind_point: w(5)?,
            bind_count: w(6)?,
            flags,
            flag_names: flag_names((flags & !0xc).into(), INPUT_FLAG_BITS),
            space,
            id,
        })
    }
}

impl Rdef {
    /// Decodes an `RDEF` part.
    ///
    /// Refuses: a header or record outside the part, an `RD11` sub-header with another
    /// magic or with record sizes other than the known ones (60/24/32 or 40/40/36/12,
    /// as vkd3d does), strings that are not NUL-terminated UTF-8, types nested deeper
    /// than [`MAX_TYPE_DEPTH`], and more than [`MAX_RDEF_RECORDS`] decoded records.
    pub fn parse(part: &Part<'_>) -> Result<Self, ContainerError> {
        let tag = part.tag;
        let r = Reader::new(part.data, tag);
        let cb_count = r.u32_at(0)?;
        let cb_offset = r.u32_at(4)?;
        let bind_count = r.u32_at(8)?;
        let bind_offset = r.u32_at(12)?;
        let target = r.u32_at(16)?;
        let compile_flags = r.u32_at(20)?;
        let creator = r.cstr_at(r.u32_at(24)? as usize)?.to_string();
        let [minor, major, kind_lo, kind_hi] = target.to_le_bytes();
        let (rd11, sizes) = if major >= 5 {
            let h = parse_rd11(&r)?;
            (Some(h), h.sizes)
        } else {
            (None, SM4_SIZES)
        };
        let mut d = Decoder {
            r,
            sizes,
            rd11: rd11.is_some(),
            records: 0,
            default_bytes: 0,
        };
        d.check_array("constant buffer count", cb_count, cb_offset, sizes.cbuffer)?;
        d.check_array("binding count", bind_count, bind_offset, sizes.binding)?;
        // Both counts are now bounded by the part's bytes.
        let mut constant_buffers = Vec::with_capacity(cb_count as usize);
        for i in 0..cb_count {
            constant_buffers.push(
                d.cbuffer(cb_offset.saturating_add(i.saturating_mul(sizes.cbuffer)) as usize)?,
            );
        }
        let mut bindings = Vec::with_capacity(bind_count as usize);
        for i in 0..bind_count {
            bindings.push(
                d.binding(bind_offset.saturating_add(i.saturating_mul(sizes.binding)) as usize)?,
            );
        }
        Ok(Rdef {
            target,
            target_kind: target_kind_name(u16::from_le_bytes([kind_lo, kind_hi])),
            major,
            minor,
            compile_flags,
            compile_flag_names: flag_names(compile_flags.into(), COMPILE_FLAG_BITS),
            creator,
            rd11,
            constant_buffers,
            bindings,
        })
    }

    /// The constant buffer a `cbuffer`/`tbuffer`/structured binding describes (same name).
    pub fn buffer_for(&self, binding: &Binding) -> Option<&ConstantBuffer> {
        self.constant_buffers
            .iter()
            .find(|c| c.name == binding.name)
    }
}

/// Reads and checks the `RD11` sub-header at byte 28.
fn parse_rd11(r: &Reader<'_>) -> Result<Rd11Header, ContainerError> {
    let tag = r.part();
    let w = |i: usize| r.u32_at(28usize.saturating_add(i.saturating_mul(4)));
    let magic = w(0)?;
    if magic != RD11_MAGIC && magic != RD11_MAGIC_REVERSED {
        return Err(ContainerError::BadField {
            part: tag,
            what: "RD11 magic",
            value: magic.into(),
            offset: 28,
        });
    }
    let header = Rd11Header {
        magic,
        header_size: w(1)?,
        sizes: RecordSizes {
            cbuffer: w(2)?,
            binding: w(3)?,
            variable: w(4)?,
            ty: w(5)?,
            member: w(6)?,
        },
        reserved: w(7)?,
    };
    let checks: [(&'static str, u32, &[u32], u32); 6] = [
        ("RD11 header size", header.header_size, &[60], 32),
        ("RD11 constant buffer size", header.sizes.cbuffer, &[24], 36),
        ("RD11 binding size", header.sizes.binding, &[32, 40], 40),
        ("RD11 variable size", header.sizes.variable, &[40], 44),
        ("RD11 type size", header.sizes.ty, &[36], 48),
        ("RD11 member size", header.sizes.member, &[12], 52),
    ];
    for (what, value, allowed, offset) in checks {
        if !allowed.contains(&value) {
            return Err(ContainerError::BadField {
                part: tag,
                what,
                value: value.into(),
                offset,
            });
        }
    }
    Ok(header)
}

/// The HLSL spelling of a type, as fxc prints it in a buffer definition: the `RD11`
/// name when there is one, otherwise built from class, base type and shape (`float4`,
/// `row_major float4x4`, `struct`); arrays are left to the caller.
pub fn type_spelling(ty: &RdefType) -> String {
    let base = ty
        .base
        .name()
        .map(str::to_string)
        .unwrap_or_else(|| format!("type{}", ty.base.code()));
    let built = match ty.class {
        VariableClass::Scalar => base,
        VariableClass::Vector => format!("{base}{}", ty.columns),
        VariableClass::MatrixRows => format!("row_major {base}{}x{}", ty.rows, ty.columns),
        VariableClass::MatrixColumns => format!("{base}{}x{}", ty.rows, ty.columns),
        VariableClass::Struct => "struct".to_string(),
        _ => base,
    };
    match (&ty.name, ty.class) {
        (Some(n), VariableClass::MatrixRows) if !n.starts_with("row_major") => {
            format!("row_major {n}")
        }
        (Some(n), VariableClass::Struct) => format!("struct {n}"),
        (Some(n), _) => n.clone(),
        (None, _) => built,
    }
}

#[cfg(test)]
mod tests;
