//! `RDAT`: the runtime data dxc writes for libraries (and, from validator 1.8, for
//! other programs): a directory of sub-parts — a string buffer, index arrays and record
//! tables of resources, functions, subobjects and work-graph nodes.
//!
//! Owns: the sub-part directory, the string buffer, the index arrays, the resource
//! table, the function table and the subobject table (`subobjects`). Other tables are
//! listed by type, record count and stride. Does not own: node tables (listed only).
//!
//! # Layout (little-endian; DirectXShaderCompiler `DxilRuntimeReflection.h`,
//! `RDAT_LibraryTypes.inl`)
//!
//! `RuntimeDataHeader`: version (0x10) and part count, then one byte offset per part
//! (from the start of the `RDAT` part). Each part: type, size, then `size` bytes. A
//! record table starts with its record count and record stride; a record may be longer
//! than the fields read here (later versions extend records), so records are stepped by
//! the stride. Index arrays are 32-bit words; an array reference is the index of a
//! count followed by that many values. `0xffffffff` is the null reference.
//!
//! | record | fields (32-bit words) |
//! |---|---|
//! | `RuntimeDataResourceInfo` (32 bytes) | class, kind, ID, space, lower bound, upper bound, name (string), flags |
//! | `RuntimeDataFunctionInfo` (44 bytes) | name, unmangled name (strings), resources (index array of resource records), function dependencies (index array of strings), shader kind, payload size, attribute size, feature info low and high, shader stage flags, minimum shader target |

use serde::Serialize;

use super::codes::{code_enum, flag_names};
use super::psv0::ResourceKind;
use super::sfi0::FEATURE_BITS;
use super::{ContainerError, FourCc, Part, ProgramKind, ProgramVersion, Reader};

/// The only RDAT version (`RDAT_Version_10`).
pub const RDAT_VERSION: u32 = 0x10;
/// The null reference of string offsets, index arrays and records.
pub const NULL_REF: u32 = u32::MAX;
/// Bytes of a resource record.
pub const RESOURCE_RECORD_SIZE: u32 = 32;
/// Bytes of a function record (the first version; later ones are longer).
pub const FUNCTION_RECORD_SIZE: u32 = 44;
/// At most this many references (index-array entries, strings) are resolved in one
/// part: records may share arrays, so without a bound a small part could expand
/// enormously.
pub const MAX_RDAT_REFS: u32 = 1 << 20;

code_enum! {
    /// An RDAT sub-part's type (`RuntimeDataPartType`; 13–21 are experimental and
    /// 0x10001–0x10003 the PDB-information group).
    pub enum RdatPartType: u32 {
        Invalid = 0 => "Invalid",
        StringBuffer = 1 => "StringBuffer",
        IndexArrays = 2 => "IndexArrays",
        ResourceTable = 3 => "ResourceTable",
        FunctionTable = 4 => "FunctionTable",
        RawBytes = 5 => "RawBytes",
        SubobjectTable = 6 => "SubobjectTable",
        NodeIdTable = 7 => "NodeIDTable",
        NodeShaderIoAttribTable = 8 => "NodeShaderIOAttribTable",
        NodeShaderFuncAttribTable = 9 => "NodeShaderFuncAttribTable",
        IoNodeTable = 10 => "IONodeTable",
        NodeShaderInfoTable = 11 => "NodeShaderInfoTable",
        MeshNodesPreviewInfoTable = 12 => "Reserved_MeshNodesPreviewInfoTable",
        SignatureElementTable = 13 => "SignatureElementTable",
        VsInfoTable = 14 => "VSInfoTable",
        PsInfoTable = 15 => "PSInfoTable",
        HsInfoTable = 16 => "HSInfoTable",
        DsInfoTable = 17 => "DSInfoTable",
        GsInfoTable = 18 => "GSInfoTable",
        CsInfoTable = 19 => "CSInfoTable",
        MsInfoTable = 20 => "MSInfoTable",
        AsInfoTable = 21 => "ASInfoTable",
        DxilPdbInfoTable = 0x10001 => "DxilPdbInfoTable",
        DxilPdbInfoSourceTable = 0x10002 => "DxilPdbInfoSourceTable",
        DxilPdbInfoLibraryTable = 0x10003 => "DxilPdbInfoLibraryTable",
    }
}

impl RdatPartType {
    /// Whether the part is a record table (starts with record count and stride).
    pub fn is_table(self) -> bool {
        !matches!(
            self,
            RdatPartType::Invalid
                | RdatPartType::StringBuffer
                | RdatPartType::IndexArrays
                | RdatPartType::RawBytes
        ) && !matches!(self, RdatPartType::Unknown(_))
    }
}

code_enum! {
    /// A resource's class (`DXIL::ResourceClass`).
    pub enum ResourceClass: u32 {
        Srv = 0 => "SRV",
        Uav = 1 => "UAV",
        CBuffer = 2 => "CBuffer",
        Sampler = 3 => "Sampler",
        Invalid = 4 => "Invalid",
    }
}

/// A resource record's flags (`DxilResourceFlag`).
pub const RESOURCE_FLAG_BITS: &[(u32, &str)] = &[
    (0, "UAVGloballyCoherent"),
    (1, "UAVCounter"),
    (2, "UAVRasterizerOrderedView"),
    (3, "DynamicIndexing"),
    (4, "Atomics64Use"),
];

/// One entry of the sub-part directory.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RdatPart {
    /// Its type.
    pub part_type: RdatPartType,
    /// Byte offset of its header in the `RDAT` part.
    pub offset: u32,
    /// Its size in bytes (after the 8-byte header).
    pub size: u32,
    /// Record count, for a record table.
    pub record_count: Option<u32>,
    /// Record stride, for a record table.
    pub record_stride: Option<u32>,
}

/// A resource record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RdatResource {
    /// The class.
    pub class: ResourceClass,
    /// The kind.
    pub kind: ResourceKind,
    /// ID within the class.
    pub id: u32,
    /// Register space.
    pub space: u32,
    /// First register.
    pub lower_bound: u32,
    /// Last register (inclusive).
    pub upper_bound: u32,
    /// The resource's name.
    pub name: String,
    /// Flags.
    pub flags: u32,
    /// The set flags by name.
    pub flag_names: Vec<String>,
}

/// A function record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RdatFunction {
    /// The (mangled) name.
    pub name: String,
    /// The unmangled name.
    pub unmangled_name: String,
    /// Indices of the resources it uses in the resource table.
    pub resources: Vec<u32>,
    /// Names of the external functions it calls.
    pub function_dependencies: Vec<String>,
    /// Shader kind (`library` for a plain library function).
    pub shader_kind: ProgramKind,
    /// Payload size (hit and miss shaders) or parameter size (callable).
    pub payload_size: u32,
    /// Hit attribute size (hit shaders).
    pub attribute_size: u32,
    /// Feature flags, low and high words together (the `SFI0` bits).
    pub feature_flags: u64,
    /// The set feature flags by name.
    pub feature_names: Vec<String>,
    /// Stages the function may be used in (bit per `ProgramKind` code).
    pub shader_stage_flags: u32,
    /// Those stages by name.
    pub shader_stages: Vec<String>,
    /// The minimum shader target, a program version word.
    pub min_shader_target: u32,
    /// The same as a profile (`lib_6_3`).
    pub min_shader_target_profile: String,
    /// Words past the first record version (later validators' `RuntimeDataFunctionInfo2`),
    /// kept raw.
    pub extra_words: Vec<u32>,
}

/// A decoded `RDAT` part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Rdat {
    /// The version word (0x10).
    pub version: u32,
    /// The sub-part directory.
    pub parts: Vec<RdatPart>,
    /// The strings of the string buffer, in order.
    pub strings: Vec<String>,
    /// Words in the index arrays.
    pub index_array_words: u32,
    /// The resource table.
    pub resources: Vec<RdatResource>,
    /// The function table.
    pub functions: Vec<RdatFunction>,
}

/// The resolving state: string buffer, index arrays and the reference budget.
struct Tables<'a> {
    tag: FourCc,
    strings: &'a [u8],
    strings_at: u32,
    indices: Reader<'a>,
    refs: u32,
}

impl Tables<'_> {
    fn spend(&mut self, n: u32) -> Result<(), ContainerError> {
        self.refs = self.refs.saturating_add(n);
        if self.refs > MAX_RDAT_REFS {
            return Err(ContainerError::LimitExceeded {
                part: self.tag,
                what: "references",
                limit: MAX_RDAT_REFS,
            });
        }
        Ok(())
    }

    /// The string at `offset` in the string buffer (empty for the null reference).
    fn string(&mut self, offset: u32) -> Result<String, ContainerError> {
        if offset == NULL_REF {
            return Ok(String::new());
        }
        self.spend(1)?;
        Reader::new(self.strings, self.tag)
            .cstr_at(offset as usize)
            .map(str::to_string)
            .map_err(|_| ContainerError::BadString {
                part: self.tag,
                offset: self.strings_at.saturating_add(offset),
            })
    }

    /// The index array at word `index` (empty for the null reference).
    fn array(&mut self, index: u32) -> Result<Vec<u32>, ContainerError> {
        if index == NULL_REF {
            return Ok(Vec::new());
        }
        let at = (index as usize).saturating_mul(4);
        let count = self.indices.u32_at(at)?;
        let words_left = (self.indices.len().saturating_sub(at) / 4).saturating_sub(1);
        if count as usize > words_left {
            return Err(ContainerError::BadField {
                part: self.tag,
                what: "index array length",
                value: count.into(),
                offset: index,
            });
        }
        self.spend(count)?;
        let mut out = Vec::with_capacity(count as usize);
        for i in 0..count as usize {
            out.push(
                self.indices
                    .u32_at(at.saturating_add(i.saturating_add(1).saturating_mul(4)))?,
            );
        }
        Ok(out)
    }
}

/// Names the stages of a stage-flags word (bit `k` is `ProgramKind::from_code(k)`).
fn stage_names(flags: u32) -> Vec<String> {
    (0..32u16)
        .filter(|&k| (flags >> k) & 1 == 1)
        .map(|k| ProgramKind::from_code(k).name().to_string())
        .collect()
}

impl Rdat {
    /// Decodes an `RDAT` part.
    ///
    /// Refuses: a version other than 0x10 (the pre-release layout is not read), a part
    /// count or offset that does not fit, a sub-part running past the part, a record
    /// table whose records do not fit or whose stride is shorter than the fields read,
    /// string and index-array references outside their parts, and more than
    /// [`MAX_RDAT_REFS`] resolved references.
    pub fn parse(part: &Part<'_>) -> Result<Self, ContainerError> {
        let tag = part.tag;
        let (version, parts, bodies) = directory(part)?;
        let find = |t: RdatPartType| find_body(&bodies, t);
        let (strings, strings_at) = find(RdatPartType::StringBuffer).unwrap_or((&[], 0));
        let (indices, _) = find(RdatPartType::IndexArrays).unwrap_or((&[], 0));
        let mut t = Tables {
            tag,
            strings,
            strings_at,
            indices: Reader::new(indices, tag),
            refs: 0,
        };

        let string_list: Vec<String> = strings
            .split(|&b| b == 0)
            .take(strings.iter().filter(|&&b| b == 0).count())
            .map(|s| String::from_utf8_lossy(s).into_owned())
            .collect();

        let mut resources = Vec::new();
        if let Some((body, at)) = find(RdatPartType::ResourceTable) {
            for rec in records(tag, body, at, RESOURCE_RECORD_SIZE)? {
                let w = |i: usize| word(rec, i);
                resources.push(RdatResource {
                    class: ResourceClass::from_code(w(0)),
                    kind: ResourceKind::from_code(w(1)),
                    id: w(2),
                    space: w(3),
                    lower_bound: w(4),
                    upper_bound: w(5),
                    name: t.string(w(6))?,
                    flags: w(7),
                    flag_names: flag_names(w(7).into(), RESOURCE_FLAG_BITS),
                });
            }
        }

        let feature_table: Vec<(u32, &'static str)> =
            FEATURE_BITS.iter().map(|&(b, n, _)| (b, n)).collect();
        let mut functions = Vec::new();
        if let Some((body, at)) = find(RdatPartType::FunctionTable) {
            for rec in records(tag, body, at, FUNCTION_RECORD_SIZE)? {
                let w = |i: usize| word(rec, i);
                let feature_flags = u64::from(w(7)) | (u64::from(w(8)) << 32);
                let resources = t.array(w(2))?;
                let mut function_dependencies = Vec::new();
                for s in t.array(w(3))? {
                    function_dependencies.push(t.string(s)?);
                }
                let kind_code = u16::try_from(w(4)).unwrap_or(u16::MAX);
                functions.push(RdatFunction {
                    name: t.string(w(0))?,
                    unmangled_name: t.string(w(1))?,
                    resources,
                    function_dependencies,
                    shader_kind: ProgramKind::from_code(kind_code),
                    payload_size: w(5),
                    attribute_size: w(6),
                    feature_flags,
                    feature_names: flag_names(feature_flags, &feature_table),
                    shader_stage_flags: w(9),
                    shader_stages: stage_names(w(9)),
                    min_shader_target: w(10),
                    min_shader_target_profile: ProgramVersion::from_word(w(10)).to_string(),
                    extra_words: (11..rec.len() / 4).map(|i| word(rec, i)).collect(),
                });
            }
        }
        Ok(Rdat {
            version,
            parts,
            strings: string_list,
            index_array_words: u32::try_from(indices.len() / 4).unwrap_or(u32::MAX),
            resources,
            functions,
        })
    }

    /// The name of resource `index` of the resource table.
    pub fn resource_name(&self, index: u32) -> Option<&str> {
        self.resources.get(index as usize).map(|r| r.name.as_str())
    }
}

/// A sub-part's type, body and the body's byte offset in the part.
type Body<'a> = (RdatPartType, &'a [u8], u32);

/// The version, the sub-part directory and each sub-part's body, checked as
/// [`Rdat::parse`] documents.
fn directory<'a>(part: &Part<'a>) -> Result<(u32, Vec<RdatPart>, Vec<Body<'a>>), ContainerError> {
    let tag = part.tag;
    let r = Reader::new(part.data, tag);
    let bad = |what, value: u64, offset: u32| ContainerError::BadField {
        part: tag,
        what,
        value,
        offset,
    };
    let version = r.u32_at(0)?;
    if version != RDAT_VERSION {
        return Err(bad("RDAT version", version.into(), 0));
    }
    let count = r.u32_at(4)?;
    if u64::from(count).saturating_mul(4).saturating_add(8) > r.len() as u64 {
        return Err(bad("RDAT part count", count.into(), 4));
    }
    let mut parts = Vec::with_capacity(count as usize);
    let mut bodies: Vec<Body<'a>> = Vec::with_capacity(count as usize);
    for i in 0..count as usize {
        let field = 8usize.saturating_add(i.saturating_mul(4));
        let offset = r.u32_at(field)?;
        let part_type = RdatPartType::from_code(r.u32_at(offset as usize)?);
        let size = r.u32_at((offset as usize).saturating_add(4))?;
        let body_at = offset.saturating_add(8);
        let body = r.slice_at(body_at as usize, size as usize)?;
        let (record_count, record_stride) = if part_type.is_table() {
            let t = Reader::new(body, tag);
            let (n, stride) = (t.u32_at(0)?, t.u32_at(4)?);
            if u64::from(n).saturating_mul(stride.into()).saturating_add(8) > u64::from(size) {
                return Err(bad("RDAT record count", n.into(), body_at));
            }
            (Some(n), Some(stride))
        } else {
            (None, None)
        };
        parts.push(RdatPart {
            part_type,
            offset,
            size,
            record_count,
            record_stride,
        });
        bodies.push((part_type, body, body_at));
    }
    Ok((version, parts, bodies))
}

/// The first sub-part of type `t`: its body and the body's offset.
fn find_body<'a>(bodies: &[Body<'a>], t: RdatPartType) -> Option<(&'a [u8], u32)> {
    bodies
        .iter()
        .find(|(pt, _, _)| *pt == t)
        .map(|&(_, b, at)| (b, at))
}

/// The records of a table body (count and stride checked by the caller against the
/// body); refuses a stride shorter than `min` or not a multiple of 4.
fn records(tag: FourCc, body: &[u8], at: u32, min: u32) -> Result<Vec<&[u8]>, ContainerError> {
    let t = Reader::new(body, tag);
    let (n, stride) = (t.u32_at(0)?, t.u32_at(4)?);
    if stride < min || stride % 4 != 0 {
        return Err(ContainerError::BadField {
            part: tag,
            what: "RDAT record stride",
            value: stride.into(),
            offset: at,
        });
    }
    let mut out = Vec::with_capacity(n as usize);
    for i in 0..n as usize {
        out.push(t.slice_at(
            8usize.saturating_add(i.saturating_mul(stride as usize)),
            stride as usize,
        )?);
    }
    Ok(out)
}

fn word(bytes: &[u8], i: usize) -> u32 {
    let mut w = [0u8; 4];
    if let Some(s) = bytes.get(i.saturating_mul(4)..i.saturating_mul(4).saturating_add(4)) {
        w.copy_from_slice(s);
    }
    u32::from_le_bytes(w)
}

mod subobjects;
pub use subobjects::{RdatSubobject, SUBOBJECT_RECORD_SIZE, SubobjectDesc, subobjects};

#[cfg(test)]
mod tests;
