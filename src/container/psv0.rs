//! `PSV0`: the pipeline-state validation record dxc writes beside a DXIL program — the
//! facts the runtime checks a pipeline against without reading the bitcode.
//!
//! Owns: decoding every record size the seed lists and naming the codes. Does not own:
//! comparing the record with the program's metadata (a later check does that).
//!
//! # Layout (little-endian; seed `000_…txt`, "Pipeline-state record (PSV0)")
//!
//! 1. The runtime-info size and the runtime info: 24 bytes (validator 1.0: four
//!    stage-specific words and the wave lane range), 36 (1.1–1.5: the stage byte, view-ID
//!    flag, stage word, signature element counts and vector counts), 48 (1.6–1.7: the
//!    thread-group size) or 52 (1.8+: the entry name's string-table offset). Larger sizes
//!    (later validators) are read as the 52-byte form plus raw words.
//! 2. A resource count and, when it is not zero, the record size (16, or 24 with kind
//!    and flags) and the records.
//! 3. From the 36-byte form on: the string table (its size, a multiple of 4, then the
//!    bytes), the semantic-index table (count, then 32-bit indices), and when any
//!    signature has elements, the element size (16) and the input, output and
//!    patch-constant elements.
//! 4. The dependency tables: view-ID masks when the program uses view IDs, then per
//!    output stream an input-to-output table of `input vectors × 4` rows of
//!    `ceil(output vectors × 4 / 32)` words; a hull (or mesh) program adds input to
//!    patch-constant, a domain program patch-constant to output. The part ends exactly
//!    there (seed: "The remainder of the part has exactly this size in every container";
//!    DirectXShaderCompiler's validator `SimplePSV` walks the same sizes).

use serde::Serialize;

use super::codes::code_enum;
use super::signature::ComponentType;
use super::stage::{
    PrimitiveTopology, TessellatorDomain, TessellatorOutputPrimitive, input_primitive_name,
};
use super::{ContainerError, FourCc, Part, ProgramKind, Reader};

/// Runtime-info sizes the seed lists: validator 1.0, 1.1–1.5, 1.6–1.7, 1.8 and later.
pub const RUNTIME_INFO_SIZES: [u32; 4] = [24, 36, 48, 52];
/// The 16-byte resource record (validator 1.5 and earlier).
pub const RESOURCE_SIZE_V0: u32 = 16;
/// The 24-byte resource record, with kind and flags.
pub const RESOURCE_SIZE_V1: u32 = 24;
/// The signature element size.
pub const ELEMENT_SIZE: u32 = 16;
/// Runtime info larger than this is refused (a sanity bound; 52 is the largest known).
pub const MAX_RUNTIME_INFO_SIZE: u32 = 1024;

code_enum! {
    /// A PSV resource record's type (`PSVResourceType`).
    pub enum PsvResourceType: u32 {
        Invalid = 0 => "invalid",
        Sampler = 1 => "sampler",
        Cbv = 2 => "cbv",
        SrvTyped = 3 => "srv_typed",
        SrvRaw = 4 => "srv_raw",
        SrvStructured = 5 => "srv_structured",
        UavTyped = 6 => "uav_typed",
        UavRaw = 7 => "uav_raw",
        UavStructured = 8 => "uav_structured",
        UavStructuredWithCounter = 9 => "uav_structured_with_counter",
    }
}

code_enum! {
    /// A resource's shape (`DXIL::ResourceKind`, DirectXShaderCompiler `DxilConstants.h`);
    /// PSV0 stores 13 for constant buffers and 14 for samplers (seed `000_…txt`).
    pub enum ResourceKind: u32 {
        Invalid = 0 => "invalid",
        Texture1D = 1 => "Texture1D",
        Texture2D = 2 => "Texture2D",
        Texture2DMS = 3 => "Texture2DMS",
        Texture3D = 4 => "Texture3D",
        TextureCube = 5 => "TextureCube",
        Texture1DArray = 6 => "Texture1DArray",
        Texture2DArray = 7 => "Texture2DArray",
        Texture2DMSArray = 8 => "Texture2DMSArray",
        TextureCubeArray = 9 => "TextureCubeArray",
        TypedBuffer = 10 => "TypedBuffer",
        RawBuffer = 11 => "RawBuffer",
        StructuredBuffer = 12 => "StructuredBuffer",
        CBuffer = 13 => "CBuffer",
        Sampler = 14 => "Sampler",
        TBuffer = 15 => "TBuffer",
        RtAccelerationStructure = 16 => "RTAccelerationStructure",
        FeedbackTexture2D = 17 => "FeedbackTexture2D",
        FeedbackTexture2DArray = 18 => "FeedbackTexture2DArray",
    }
}

code_enum! {
    /// A signature element's semantic kind (`DXIL::SemanticKind`; the row order of
    /// DXIL.rst's semantic interpretation table).
    pub enum SemanticKind: u8 {
        Arbitrary = 0 => "Arbitrary",
        VertexId = 1 => "VertexID",
        InstanceId = 2 => "InstanceID",
        Position = 3 => "Position",
        RenderTargetArrayIndex = 4 => "RenderTargetArrayIndex",
        ViewPortArrayIndex = 5 => "ViewPortArrayIndex",
        ClipDistance = 6 => "ClipDistance",
        CullDistance = 7 => "CullDistance",
        OutputControlPointId = 8 => "OutputControlPointID",
        DomainLocation = 9 => "DomainLocation",
        PrimitiveId = 10 => "PrimitiveID",
        GsInstanceId = 11 => "GSInstanceID",
        SampleIndex = 12 => "SampleIndex",
        IsFrontFace = 13 => "IsFrontFace",
        Coverage = 14 => "Coverage",
        InnerCoverage = 15 => "InnerCoverage",
        Target = 16 => "Target",
        Depth = 17 => "Depth",
        DepthLessEqual = 18 => "DepthLessEqual",
        DepthGreaterEqual = 19 => "DepthGreaterEqual",
        StencilRef = 20 => "StencilRef",
        DispatchThreadId = 21 => "DispatchThreadID",
        GroupId = 22 => "GroupID",
        GroupIndex = 23 => "GroupIndex",
        GroupThreadId = 24 => "GroupThreadID",
        TessFactor = 25 => "TessFactor",
        InsideTessFactor = 26 => "InsideTessFactor",
        ViewId = 27 => "ViewID",
        Barycentrics = 28 => "Barycentrics",
        ShadingRate = 29 => "ShadingRate",
        CullPrimitive = 30 => "CullPrimitive",
        StartVertexLocation = 31 => "StartVertexLocation",
        StartInstanceLocation = 32 => "StartInstanceLocation",
    }
}

code_enum! {
    /// An element's interpolation mode (`DXIL::InterpolationMode`).
    pub enum InterpolationMode: u8 {
        Undefined = 0 => "undefined",
        Constant = 1 => "constant",
        Linear = 2 => "linear",
        LinearCentroid = 3 => "linear_centroid",
        LinearNoperspective = 4 => "linear_noperspective",
        LinearNoperspectiveCentroid = 5 => "linear_noperspective_centroid",
        LinearSample = 6 => "linear_sample",
        LinearNoperspectiveSample = 7 => "linear_noperspective_sample",
    }
}

/// The stage-specific part of the runtime info (its first 16 bytes), decoded for the
/// program's stage (LLVM `dxbc::PipelinePSVInfo`; seed `000_…txt`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "stage", rename_all = "snake_case")]
pub enum StageInfo {
    /// Vertex program.
    Vertex {
        /// The program writes `SV_Position`.
        output_position_present: bool,
    },
    /// Hull program.
    Hull {
        /// Input control points.
        input_control_points: u32,
        /// Output control points.
        output_control_points: u32,
        /// Tessellator domain.
        tessellator_domain: TessellatorDomain,
        /// Tessellator output primitive.
        output_primitive: TessellatorOutputPrimitive,
    },
    /// Domain program.
    Domain {
        /// Input control points.
        input_control_points: u32,
        /// The program writes `SV_Position`.
        output_position_present: bool,
        /// Tessellator domain.
        tessellator_domain: TessellatorDomain,
    },
    /// Geometry program.
    Geometry {
        /// Input primitive (`D3D10_SB_PRIMITIVE` name).
        input_primitive: String,
        /// Output topology.
        output_topology: PrimitiveTopology,
        /// Streams written (bit per stream).
        output_stream_mask: u32,
        /// The program writes `SV_Position`.
        output_position_present: bool,
    },
    /// Pixel program.
    Pixel {
        /// The program writes depth.
        depth_output: bool,
        /// The program runs per sample (seed: set exactly when it reads the sample index).
        sample_frequency: bool,
    },
    /// Amplification program.
    Amplification {
        /// Payload size in bytes.
        payload_size: u32,
    },
    /// Mesh program.
    Mesh {
        /// Group-shared bytes used.
        group_shared_bytes_used: u32,
        /// Group-shared bytes that depend on the view ID.
        group_shared_bytes_dependent_on_view_id: u32,
        /// Payload size in bytes.
        payload_size: u32,
        /// Maximum output vertices.
        max_output_vertices: u16,
        /// Maximum output primitives.
        max_output_primitives: u16,
    },
    /// A stage with no stage-specific fields (compute) or an unknown one: the words are
    /// in [`RuntimeInfo::stage_words`].
    Other,
}

/// The 36-byte form's additions.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuntimeInfo1 {
    /// The program kind (byte 28; equals the DXIL header's kind, seed `000_…txt`).
    pub shader_stage: ProgramKind,
    /// The program uses view IDs.
    pub uses_view_id: bool,
    /// The stage word (bytes 30–31): geometry — maximum vertex count; hull and domain —
    /// patch-constant vectors in the low byte; mesh — primitive output vectors (low byte)
    /// and output topology (high byte).
    pub stage_word: u16,
    /// Input signature elements.
    pub input_elements: u8,
    /// Output signature elements.
    pub output_elements: u8,
    /// Patch-constant (or mesh primitive) signature elements.
    pub patch_constant_elements: u8,
    /// Packed input vectors.
    pub input_vectors: u8,
    /// Packed output vectors, per stream.
    pub output_vectors: [u8; 4],
}

impl RuntimeInfo1 {
    /// Patch-constant (hull, domain) or primitive (mesh) vectors: the stage word's low
    /// byte for those stages, 0 for the others.
    pub fn patch_constant_vectors(&self) -> u8 {
        match self.shader_stage {
            ProgramKind::Hull | ProgramKind::Domain | ProgramKind::Mesh => {
                self.stage_word.to_le_bytes()[0]
            }
            _ => 0,
        }
    }

    /// What the stage word holds for this stage, in words (`None` for stages that do
    /// not use it).
    pub fn stage_word_meaning(&self) -> Option<String> {
        let [lo, hi] = self.stage_word.to_le_bytes();
        match self.shader_stage {
            ProgramKind::Geometry => Some(format!("maximum vertex count {}", self.stage_word)),
            ProgramKind::Hull | ProgramKind::Domain => Some(format!("patch-constant vectors {lo}")),
            ProgramKind::Mesh => {
                let topology = match hi {
                    0 => "undefined".to_string(),
                    1 => "line".to_string(),
                    2 => "triangle".to_string(),
                    n => format!("unknown({n})"),
                };
                Some(format!(
                    "primitive vectors {lo}, output topology {topology}"
                ))
            }
            _ => None,
        }
    }
}

/// The runtime info.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RuntimeInfo {
    /// Its size in bytes (24, 36, 48, 52 or larger).
    pub size: u32,
    /// The four stage-specific words as stored.
    pub stage_words: [u32; 4],
    /// The same words decoded for the stage.
    pub stage_info: StageInfo,
    /// Minimum expected wave lane count (0 when unused).
    pub min_wave_lanes: u32,
    /// Maximum expected wave lane count (0xffffffff when unused).
    pub max_wave_lanes: u32,
    /// The 36-byte form's fields.
    pub v1: Option<RuntimeInfo1>,
    /// The 48-byte form's thread-group size (compute, mesh, amplification; 0 elsewhere).
    pub num_threads: Option<[u32; 3]>,
    /// The 52-byte form's entry-point name offset in the string table.
    pub entry_name_offset: Option<u32>,
    /// The entry-point name it points at.
    pub entry_name: Option<String>,
    /// Words past the 52-byte form (later validators), kept raw.
    pub extra_words: Vec<u32>,
}

/// A resource binding record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PsvResource {
    /// Resource type.
    pub resource_type: PsvResourceType,
    /// Register space.
    pub space: u32,
    /// First register.
    pub lower_bound: u32,
    /// Last register (inclusive; 0xffffffff for unbounded).
    pub upper_bound: u32,
    /// Kind (24-byte records).
    pub kind: Option<ResourceKind>,
    /// Flags (24-byte records; bit 0: used by a 64-bit atomic).
    pub flags: Option<u32>,
}

/// A signature element (16 bytes).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct PsvElement {
    /// Semantic name from the string table (empty for system values, seed `000_…txt`).
    pub name: String,
    /// The name's string-table offset.
    pub name_offset: u32,
    /// Index of the first semantic index in the semantic-index table.
    pub semantic_indices_offset: u32,
    /// The semantic indices, one per row.
    pub semantic_indices: Vec<u32>,
    /// Rows.
    pub rows: u8,
    /// First row (0xff when not allocated).
    pub start_row: u8,
    /// Columns (bits 0–3 of byte 10).
    pub columns: u8,
    /// First column (bits 4–5).
    pub start_column: u8,
    /// Allocated (bit 6).
    pub allocated: bool,
    /// Semantic kind.
    pub semantic_kind: SemanticKind,
    /// Component type (the signature numbering: 1 uint, 2 int, 3 float, …).
    pub component_type: ComponentType,
    /// Interpolation mode.
    pub interpolation_mode: InterpolationMode,
    /// Dynamic-index mask (bits 0–3 of byte 14).
    pub dynamic_index_mask: u8,
    /// Output stream (bits 4–5 of byte 14).
    pub stream: u8,
    /// The reserved byte 15 (0).
    pub reserved: u8,
}

/// One dependency table, read as raw words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct DependencyTable {
    /// What it maps (`view_id_to_output[stream 0]`, `input_to_output[stream 0]`,
    /// `input_to_patch_constant`, `patch_constant_to_output`, …).
    pub name: String,
    /// Rows (one per input component; 1 for a view-ID mask).
    pub rows: u32,
    /// 32-bit words per row.
    pub words_per_row: u32,
    /// The words.
    pub words: Vec<u32>,
}

/// A decoded `PSV0` part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Psv0 {
    /// The runtime info.
    pub runtime_info: RuntimeInfo,
    /// The resource record size (absent without resources).
    pub resource_record_size: Option<u32>,
    /// The resource records.
    pub resources: Vec<PsvResource>,
    /// The string-table size (36-byte form on).
    pub string_table_size: Option<u32>,
    /// The semantic-index table.
    pub semantic_index_table: Vec<u32>,
    /// The element size (present when any signature has elements).
    pub element_size: Option<u32>,
    /// Input elements.
    pub inputs: Vec<PsvElement>,
    /// Output elements.
    pub outputs: Vec<PsvElement>,
    /// Patch-constant (or mesh primitive) elements.
    pub patch_constants: Vec<PsvElement>,
    /// The dependency tables, in stored order.
    pub dependency_tables: Vec<DependencyTable>,
}

/// Words of a mask with one bit per component of `vectors` vectors (DXC
/// `PSVComputeMaskDwordsFromVectors`: `(vectors + 7) / 8`).
pub fn mask_words(vectors: u32) -> u32 {
    vectors.saturating_add(7) / 8
}

/// A sequential reader over the part.
struct Cursor<'a> {
    r: Reader<'a>,
    at: usize,
}

impl<'a> Cursor<'a> {
    fn tag(&self) -> FourCc {
        self.r.part()
    }

    fn u32(&mut self) -> Result<u32, ContainerError> {
        let v = self.r.u32_at(self.at)?;
        self.at = self.at.saturating_add(4);
        Ok(v)
    }

    fn bytes(&mut self, n: usize) -> Result<&'a [u8], ContainerError> {
        let s = self.r.slice_at(self.at, n)?;
        self.at = self.at.saturating_add(n);
        Ok(s)
    }

    /// `count` words, checked against the bytes left before allocating.
    fn words(&mut self, count: u64) -> Result<Vec<u32>, ContainerError> {
        let left = self.r.len().saturating_sub(self.at) as u64;
        if count.saturating_mul(4) > left {
            return Err(ContainerError::Truncated {
                part: self.tag(),
                offset: u32::try_from(self.at).unwrap_or(u32::MAX),
                need: (self.at as u64).saturating_add(count.saturating_mul(4)),
                have: self.r.len() as u64,
            });
        }
        let mut out = Vec::with_capacity(usize::try_from(count).unwrap_or(0));
        for _ in 0..count {
            out.push(self.u32()?);
        }
        Ok(out)
    }
}

fn word(bytes: &[u8], i: usize) -> u32 {
    let mut w = [0u8; 4];
    if let Some(s) = bytes.get(i.saturating_mul(4)..i.saturating_mul(4).saturating_add(4)) {
        w.copy_from_slice(s);
    }
    u32::from_le_bytes(w)
}

fn byte(bytes: &[u8], i: usize) -> u8 {
    bytes.get(i).copied().unwrap_or(0)
}

/// Decodes the stage-specific words for `stage`.
fn stage_info(stage: Option<ProgramKind>, info: &[u8]) -> StageInfo {
    let w = |i| word(info, i);
    match stage {
        Some(ProgramKind::Vertex) => StageInfo::Vertex {
            output_position_present: byte(info, 0) != 0,
        },
        Some(ProgramKind::Hull) => StageInfo::Hull {
            input_control_points: w(0),
            output_control_points: w(1),
            tessellator_domain: TessellatorDomain::from_code(w(2)),
            output_primitive: TessellatorOutputPrimitive::from_code(w(3)),
        },
        Some(ProgramKind::Domain) => StageInfo::Domain {
            input_control_points: w(0),
            output_position_present: byte(info, 4) != 0,
            tessellator_domain: TessellatorDomain::from_code(w(2)),
        },
        Some(ProgramKind::Geometry) => StageInfo::Geometry {
            input_primitive: input_primitive_name(w(0)),
            output_topology: PrimitiveTopology::from_code(w(1)),
            output_stream_mask: w(2),
            output_position_present: byte(info, 12) != 0,
        },
        Some(ProgramKind::Pixel) => StageInfo::Pixel {
            depth_output: byte(info, 0) != 0,
            sample_frequency: byte(info, 1) != 0,
        },
        Some(ProgramKind::Amplification) => StageInfo::Amplification { payload_size: w(0) },
        Some(ProgramKind::Mesh) => StageInfo::Mesh {
            group_shared_bytes_used: w(0),
            group_shared_bytes_dependent_on_view_id: w(1),
            payload_size: w(2),
            max_output_vertices: u16::from_le_bytes([byte(info, 12), byte(info, 13)]),
            max_output_primitives: u16::from_le_bytes([byte(info, 14), byte(info, 15)]),
        },
        _ => StageInfo::Other,
    }
}

impl Psv0 {
    /// Decodes a `PSV0` part. `program` is the container's program kind, used to decode
    /// the stage words of a 24-byte runtime info (the larger forms state the stage).
    ///
    /// Refuses: a runtime-info size other than 24, 36, 48, 52 or a larger multiple of 4;
    /// a resource record size other than 16 or 24; a string table whose size is not a
    /// multiple of 4 or that does not end in NUL; an element size other than 16; name or
    /// semantic-index offsets outside their tables; any table running past the part; and
    /// bytes left over after the dependency tables.
    pub fn parse(part: &Part<'_>, program: Option<ProgramKind>) -> Result<Self, ContainerError> {
        let tag = part.tag;
        let mut c = Cursor {
            r: Reader::new(part.data, tag),
            at: 0,
        };
        let bad = |what, value: u64, offset: usize| ContainerError::BadField {
            part: tag,
            what,
            value,
            offset: u32::try_from(offset).unwrap_or(u32::MAX),
        };

        // 1. Runtime info.
        let size = c.u32()?;
        let size_ok = RUNTIME_INFO_SIZES.contains(&size)
            || (size > 52 && size % 4 == 0 && size <= MAX_RUNTIME_INFO_SIZE);
        if !size_ok {
            return Err(bad("runtime info size", size.into(), 0));
        }
        let info = c.bytes(size as usize)?;
        let v1 = (size >= 36).then(|| RuntimeInfo1 {
            shader_stage: ProgramKind::from_code(byte(info, 24).into()),
            uses_view_id: byte(info, 25) != 0,
            stage_word: u16::from_le_bytes([byte(info, 26), byte(info, 27)]),
            input_elements: byte(info, 28),
            output_elements: byte(info, 29),
            patch_constant_elements: byte(info, 30),
            input_vectors: byte(info, 31),
            output_vectors: [
                byte(info, 32),
                byte(info, 33),
                byte(info, 34),
                byte(info, 35),
            ],
        });
        let stage = v1.as_ref().map(|v| v.shader_stage).or(program);
        let extra_words = (13..(size as usize) / 4).map(|i| word(info, i)).collect();
        let mut runtime_info = RuntimeInfo {
            size,
            stage_words: [word(info, 0), word(info, 1), word(info, 2), word(info, 3)],
            stage_info: stage_info(stage, info),
            min_wave_lanes: word(info, 4),
            max_wave_lanes: word(info, 5),
            v1: v1.clone(),
            num_threads: (size >= 48).then(|| [word(info, 9), word(info, 10), word(info, 11)]),
            entry_name_offset: (size >= 52).then(|| word(info, 12)),
            entry_name: None,
            extra_words,
        };

        // 2. Resources.
        let resource_count = c.u32()?;
        let mut resource_record_size = None;
        let mut resources = Vec::new();
        if resource_count > 0 {
            let at = c.at;
            let rsize = c.u32()?;
            if rsize != RESOURCE_SIZE_V0 && rsize != RESOURCE_SIZE_V1 {
                return Err(bad("resource record size", rsize.into(), at));
            }
            resource_record_size = Some(rsize);
            let words = c.words(u64::from(resource_count).saturating_mul(u64::from(rsize / 4)))?;
            resources = words
                .chunks_exact(rsize as usize / 4)
                .map(|r| {
                    let w = |i: usize| r.get(i).copied().unwrap_or(0);
                    PsvResource {
                        resource_type: PsvResourceType::from_code(w(0)),
                        space: w(1),
                        lower_bound: w(2),
                        upper_bound: w(3),
                        kind: (rsize == RESOURCE_SIZE_V1).then(|| ResourceKind::from_code(w(4))),
                        flags: (rsize == RESOURCE_SIZE_V1).then(|| w(5)),
                    }
                })
                .collect();
        }

        let mut psv = Psv0 {
            runtime_info: runtime_info.clone(),
            resource_record_size,
            resources,
            string_table_size: None,
            semantic_index_table: Vec::new(),
            element_size: None,
            inputs: Vec::new(),
            outputs: Vec::new(),
            patch_constants: Vec::new(),
            dependency_tables: Vec::new(),
        };
        let Some(v1) = v1 else {
            if c.at != part.data.len() {
                return Err(bad(
                    "bytes after the resources",
                    (part.data.len().saturating_sub(c.at)) as u64,
                    c.at,
                ));
            }
            return Ok(psv);
        };

        // 3. String table, semantic indices, elements.
        let at = c.at;
        let string_size = c.u32()?;
        if string_size % 4 != 0 {
            return Err(bad("string table size", string_size.into(), at));
        }
        let strings_at = c.at;
        let strings = c.bytes(string_size as usize)?;
        if strings.last().is_some_and(|&b| b != 0) {
            return Err(ContainerError::BadString {
                part: tag,
                offset: u32::try_from(strings_at).unwrap_or(u32::MAX),
            });
        }
        let string = |offset: u32| -> Result<String, ContainerError> {
            let s = Reader::new(strings, tag)
                .cstr_at(offset as usize)
                .map_err(|_| ContainerError::BadString {
                    part: tag,
                    offset: u32::try_from(strings_at.saturating_add(offset as usize))
                        .unwrap_or(u32::MAX),
                })?;
            Ok(s.to_string())
        };
        psv.string_table_size = Some(string_size);
        if let Some(offset) = runtime_info.entry_name_offset {
            runtime_info.entry_name = Some(string(offset)?);
            psv.runtime_info = runtime_info;
        }
        let index_count = c.u32()?;
        psv.semantic_index_table = c.words(index_count.into())?;
        let element_total = u32::from(v1.input_elements)
            .saturating_add(v1.output_elements.into())
            .saturating_add(v1.patch_constant_elements.into());
        if element_total > 0 {
            let at = c.at;
            let esize = c.u32()?;
            if esize != ELEMENT_SIZE {
                return Err(bad("signature element size", esize.into(), at));
            }
            psv.element_size = Some(esize);
            let table = &psv.semantic_index_table;
            let mut read = |n: u8| -> Result<Vec<PsvElement>, ContainerError> {
                let mut out = Vec::with_capacity(n.into());
                for _ in 0..n {
                    let e = c.bytes(ELEMENT_SIZE as usize)?;
                    let name_offset = word(e, 0);
                    let semantic_indices_offset = word(e, 1);
                    let rows = byte(e, 8);
                    let first = semantic_indices_offset as usize;
                    let semantic_indices = first
                        .checked_add(rows.into())
                        .and_then(|end| table.get(first..end))
                        .ok_or(ContainerError::BadField {
                            part: tag,
                            what: "semantic index offset",
                            value: semantic_indices_offset.into(),
                            offset: 0,
                        })?
                        .to_vec();
                    let cols = byte(e, 10);
                    let mask_stream = byte(e, 14);
                    out.push(PsvElement {
                        name: string(name_offset)?,
                        name_offset,
                        semantic_indices_offset,
                        semantic_indices,
                        rows,
                        start_row: byte(e, 9),
                        columns: cols & 0xf,
                        start_column: (cols >> 4) & 3,
                        allocated: (cols >> 6) & 1 == 1,
                        semantic_kind: SemanticKind::from_code(byte(e, 11)),
                        component_type: ComponentType::from_code(byte(e, 12).into()),
                        interpolation_mode: InterpolationMode::from_code(byte(e, 13)),
                        dynamic_index_mask: mask_stream & 0xf,
                        stream: (mask_stream >> 4) & 3,
                        reserved: byte(e, 15),
                    });
                }
                Ok(out)
            };
            let inputs = read(v1.input_elements)?;
            let outputs = read(v1.output_elements)?;
            let patch_constants = read(v1.patch_constant_elements)?;
            psv.inputs = inputs;
            psv.outputs = outputs;
            psv.patch_constants = patch_constants;
        }

        // 4. Dependency tables (DXC validator `SimplePSV`).
        let input = u32::from(v1.input_vectors);
        let pc = u32::from(v1.patch_constant_vectors());
        let hull_or_mesh = matches!(v1.shader_stage, ProgramKind::Hull | ProgramKind::Mesh);
        let mut tables: Vec<(String, u32, u32)> = Vec::new();
        if v1.uses_view_id {
            for (stream, &out) in v1.output_vectors.iter().enumerate() {
                if out != 0 {
                    tables.push((
                        format!("view_id_to_output[stream {stream}]"),
                        1,
                        mask_words(out.into()),
                    ));
                }
            }
            if hull_or_mesh && pc != 0 {
                tables.push(("view_id_to_patch_constant".into(), 1, mask_words(pc)));
            }
        }
        for (stream, &out) in v1.output_vectors.iter().enumerate() {
            if out != 0 {
                tables.push((
                    format!("input_to_output[stream {stream}]"),
                    input.saturating_mul(4),
                    mask_words(out.into()),
                ));
            }
        }
        if hull_or_mesh && pc != 0 && input != 0 {
            tables.push((
                "input_to_patch_constant".into(),
                input.saturating_mul(4),
                mask_words(pc),
            ));
        }
        let out0 = u32::from(v1.output_vectors.first().copied().unwrap_or(0));
        if v1.shader_stage == ProgramKind::Domain && out0 != 0 && pc != 0 {
            tables.push((
                "patch_constant_to_output".into(),
                pc.saturating_mul(4),
                mask_words(out0),
            ));
        }
        // Tables of no words (no input vectors) take no bytes and are not listed.
        tables.retain(|&(_, rows, words)| rows > 0 && words > 0);
        for (name, rows, words_per_row) in tables {
            let words = c.words(u64::from(rows).saturating_mul(words_per_row.into()))?;
            psv.dependency_tables.push(DependencyTable {
                name,
                rows,
                words_per_row,
                words,
            });
        }
        if c.at != part.data.len() {
            return Err(bad(
                "bytes after the dependency tables",
                (part.data.len().saturating_sub(c.at)) as u64,
                c.at,
            ));
        }
        Ok(psv)
    }
}

#[cfg(test)]
mod tests;
