//! The `RDAT` subobject table: the state-object subobjects a DXIL library declares
//! (HLSL `StateObjectConfig`, `GlobalRootSignature`, `LocalRootSignature`,
//! `SubobjectToExportsAssociation`, `RaytracingShaderConfig`, `RaytracingPipelineConfig`
//! and `RaytracingPipelineConfig1`, `TriangleHitGroup` / `ProceduralPrimitiveHitGroup`),
//! decoded into typed records.
//!
//! Owns: the records' fields and the bytes of root signatures. Does not own: what the
//! subobjects mean for a pipeline (associations and defaults are resolved by
//! `job::state_object`), nor the listing's text (`dxil::listing::subobjects`).
//!
//! Layout (DirectXShaderCompiler `RDAT_SubobjectTypes.inl`, `RuntimeDataSubobjectInfo`):
//! a record is its kind (`D3D12_STATE_SUBOBJECT_TYPE`'s value) and name (a string), then
//! by kind: flags (0, state-object config); the root signature's bytes as an offset and
//! size in the raw-bytes sub-part (1 global, 2 local); the associated subobject's name
//! and an index array of export names (8); payload and attribute sizes (9); the
//! recursion depth (10) and flags (12, pipeline config 1); the hit-group type and the
//! any-hit, closest-hit and intersection names (11). The union makes every record at
//! least six words.

use serde::Serialize;

use super::{NULL_REF, RdatPartType, Tables, directory, find_body, records, word};
use crate::container::{ContainerError, Part, Reader};

/// Bytes of a subobject record: kind, name and the largest member (a hit group's four
/// words).
pub const SUBOBJECT_RECORD_SIZE: u32 = 24;

/// What a subobject declares (`D3D12_STATE_SUBOBJECT_TYPE`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub enum SubobjectDesc {
    /// `D3D12_STATE_OBJECT_CONFIG` (kind 0).
    StateObjectConfig {
        /// `D3D12_STATE_OBJECT_FLAGS`.
        flags: u32,
    },
    /// `D3D12_GLOBAL_ROOT_SIGNATURE` (kind 1): the serialized root signature.
    GlobalRootSignature {
        /// Its bytes (`RTS0` layout).
        bytes: Vec<u8>,
    },
    /// `D3D12_LOCAL_ROOT_SIGNATURE` (kind 2): the serialized root signature.
    LocalRootSignature {
        /// Its bytes (`RTS0` layout).
        bytes: Vec<u8>,
    },
    /// `D3D12_DXIL_SUBOBJECT_TO_EXPORTS_ASSOCIATION` (kind 8).
    Association {
        /// The associated subobject's name.
        subobject: String,
        /// The exports; empty declares a default association.
        exports: Vec<String>,
    },
    /// `D3D12_RAYTRACING_SHADER_CONFIG` (kind 9).
    ShaderConfig {
        /// `MaxPayloadSizeInBytes`.
        max_payload_size: u32,
        /// `MaxAttributeSizeInBytes`.
        max_attribute_size: u32,
    },
    /// `D3D12_RAYTRACING_PIPELINE_CONFIG` (kind 10) or `…_CONFIG1` (kind 12, with flags).
    PipelineConfig {
        /// `MaxTraceRecursionDepth`.
        max_recursion_depth: u32,
        /// `D3D12_RAYTRACING_PIPELINE_FLAGS` (`None` for kind 10).
        flags: Option<u32>,
    },
    /// `D3D12_HIT_GROUP_DESC` (kind 11); an empty name is no program.
    HitGroup {
        /// `D3D12_HIT_GROUP_TYPE`: 0 triangles, 1 procedural primitive.
        kind: u32,
        /// `AnyHitShaderImport`.
        any_hit: String,
        /// `ClosestHitShaderImport`.
        closest_hit: String,
        /// `IntersectionShaderImport`.
        intersection: String,
    },
    /// A kind this reader does not know, kept by its code.
    Unknown(u32),
}

/// One subobject record.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct RdatSubobject {
    /// Its name (the HLSL variable's).
    pub name: String,
    /// What it declares.
    pub desc: SubobjectDesc,
}

impl SubobjectDesc {
    /// The HLSL type's name, for messages.
    pub fn type_name(&self) -> &'static str {
        match self {
            SubobjectDesc::StateObjectConfig { .. } => "StateObjectConfig",
            SubobjectDesc::GlobalRootSignature { .. } => "GlobalRootSignature",
            SubobjectDesc::LocalRootSignature { .. } => "LocalRootSignature",
            SubobjectDesc::Association { .. } => "SubobjectToExportsAssociation",
            SubobjectDesc::ShaderConfig { .. } => "RaytracingShaderConfig",
            SubobjectDesc::PipelineConfig { flags: None, .. } => "RaytracingPipelineConfig",
            SubobjectDesc::PipelineConfig { flags: Some(_), .. } => "RaytracingPipelineConfig1",
            SubobjectDesc::HitGroup { .. } => "HitGroup",
            SubobjectDesc::Unknown(_) => "<unknown subobject>",
        }
    }
}

/// The subobjects of an `RDAT` part, in the table's order (empty when it has no
/// subobject table).
///
/// Refuses what [`super::Rdat::parse`] refuses, a subobject record shorter than
/// [`SUBOBJECT_RECORD_SIZE`], and a root signature's bytes outside the raw-bytes
/// sub-part.
pub fn subobjects(part: &Part<'_>) -> Result<Vec<RdatSubobject>, ContainerError> {
    let tag = part.tag;
    let (_, _, bodies) = directory(part)?;
    let Some((table, table_at)) = find_body(&bodies, RdatPartType::SubobjectTable) else {
        return Ok(Vec::new());
    };
    let (strings, strings_at) = find_body(&bodies, RdatPartType::StringBuffer).unwrap_or((&[], 0));
    let (indices, _) = find_body(&bodies, RdatPartType::IndexArrays).unwrap_or((&[], 0));
    let (raw, raw_at) = find_body(&bodies, RdatPartType::RawBytes).unwrap_or((&[], 0));
    let mut t = Tables {
        tag,
        strings,
        strings_at,
        indices: Reader::new(indices, tag),
        refs: 0,
    };
    let raw = Reader::new(raw, tag);
    let mut out = Vec::new();
    for (i, rec) in records(tag, table, table_at, SUBOBJECT_RECORD_SIZE)?
        .into_iter()
        .enumerate()
    {
        let w = |k: usize| word(rec, k);
        let bytes = |t: &mut Tables<'_>| -> Result<Vec<u8>, ContainerError> {
            t.spend(1)?;
            raw.slice_at(w(2) as usize, w(3) as usize)
                .map(<[u8]>::to_vec)
                .map_err(|_| ContainerError::BadField {
                    part: tag,
                    what: "root signature bytes",
                    value: u64::from(w(2)),
                    offset: raw_at,
                })
        };
        let desc = match w(0) {
            0 => SubobjectDesc::StateObjectConfig { flags: w(2) },
            1 => SubobjectDesc::GlobalRootSignature {
                bytes: bytes(&mut t)?,
            },
            2 => SubobjectDesc::LocalRootSignature {
                bytes: bytes(&mut t)?,
            },
            8 => {
                let subobject = t.string(w(2))?;
                let mut exports = Vec::new();
                for s in t.array(w(3))? {
                    exports.push(t.string(s)?);
                }
                SubobjectDesc::Association { subobject, exports }
            }
            9 => SubobjectDesc::ShaderConfig {
                max_payload_size: w(2),
                max_attribute_size: w(3),
            },
            10 => SubobjectDesc::PipelineConfig {
                max_recursion_depth: w(2),
                flags: None,
            },
            11 => SubobjectDesc::HitGroup {
                kind: w(2),
                any_hit: t.string(w(3))?,
                closest_hit: t.string(w(4))?,
                intersection: t.string(w(5))?,
            },
            12 => SubobjectDesc::PipelineConfig {
                max_recursion_depth: w(2),
                flags: Some(w(3)),
            },
            k => SubobjectDesc::Unknown(k),
        };
        let name = if w(1) == NULL_REF {
            format!("<subobject {i}>")
        } else {
            t.string(w(1))?
        };
        out.push(RdatSubobject { name, desc });
    }
    Ok(out)
}
