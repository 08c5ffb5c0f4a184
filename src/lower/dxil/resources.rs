//! Resource ranges (`dx.resources`) and what a handle refers to.
//!
//! Owns: turning DXIL resource records into IR [`ResourceRange`]s, finding the range a
//! `createHandle`/`createHandleFromBinding` names, and reading the resource properties
//! `annotateHandle` states (SM 6.6). Does not own: the handle instructions themselves
//! (see `ops`).

use crate::dxil::meta::{self, Resource};
use crate::ir::{ComponentType, ResourceClass, ResourceKind, ResourceRange};

/// What the lowering needs to know about the resource a handle names: its shape, and
/// how typed views read (for 16-bit conversions).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct HandleKind {
    /// The resource's shape.
    pub kind: ResourceKind,
    /// Element interpretation of typed views.
    pub component: ComponentType,
}

/// DXIL's `ResourceKind` enumeration (DxilConstants.h: 1 Texture1D, 2 Texture2D,
/// 3 Texture2DMS, 4 Texture3D, 5 TextureCube, 6 Texture1DArray, 7 Texture2DArray,
/// 8 Texture2DMSArray, 9 TextureCubeArray, 10 TypedBuffer, 11 RawBuffer,
/// 12 StructuredBuffer, 13 CBuffer, 14 Sampler, 15 TBuffer, 16 RTAccelerationStructure,
/// 17 FeedbackTexture2D, 18 FeedbackTexture2DArray) as an IR shape; `stride` is a
/// structured buffer's stride or a feedback texture's type. A `tbuffer` reads
/// as a raw buffer (DXIL.rst "Texture Buffers").
pub fn shape_kind(
    shape: u32,
    stride: u32,
    cb_size: u32,
    comparison: bool,
) -> Result<ResourceKind, String> {
    Ok(match shape {
        1 => ResourceKind::Texture1D,
        2 => ResourceKind::Texture2D,
        3 => ResourceKind::Texture2DMS,
        4 => ResourceKind::Texture3D,
        5 => ResourceKind::TextureCube,
        6 => ResourceKind::Texture1DArray,
        7 => ResourceKind::Texture2DArray,
        8 => ResourceKind::Texture2DMSArray,
        9 => ResourceKind::TextureCubeArray,
        10 => ResourceKind::TypedBuffer,
        11 | 15 => ResourceKind::RawBuffer,
        12 => ResourceKind::StructuredBuffer { stride },
        13 => ResourceKind::ConstantBuffer { size: cb_size },
        14 => ResourceKind::Sampler { comparison },
        16 => ResourceKind::AccelerationStructure,
        // The feedback type (`SamplerFeedbackType`: 0 MinMip, 1 MipRegionUsed) is the
        // second word of the properties or the metadata's tag 2 (DXIL.rst "Metadata
        // resource records"), passed as `stride`.
        17 | 18 => {
            let mip_region_used = match stride {
                0 => false,
                1 => true,
                t => {
                    return Err(format!(
                        "sampler feedback type {t} (0 MinMip, 1 MipRegionUsed)"
                    ));
                }
            };
            if shape == 17 {
                ResourceKind::FeedbackTexture2D { mip_region_used }
            } else {
                ResourceKind::FeedbackTexture2DArray { mip_region_used }
            }
        }
        other => return Err(format!("resource of unknown kind {other}")),
    })
}

/// DXIL's `ComponentType` (DxilConstants.h: 1 I1, 2 I16, 3 U16, 4 I32, 5 U32, 6 I64,
/// 7 U64, 8 F16, 9 F32, 10 F64, 11 SNormF16, 12 UNormF16, 13 SNormF32, 14 UNormF32,
/// 15 SNormF64, 16 UNormF64) as the IR's component interpretation.
pub fn component(ct: Option<u32>) -> ComponentType {
    match ct {
        Some(2 | 4 | 6) => ComponentType::SInt,
        Some(1 | 3 | 5 | 7) => ComponentType::UInt,
        Some(8 | 9) => ComponentType::Float,
        Some(10) => ComponentType::Double,
        Some(11 | 13 | 15) => ComponentType::SNorm,
        Some(12 | 14 | 16) => ComponentType::UNorm,
        _ => ComponentType::Mixed,
    }
}

/// The IR class of a metadata class.
pub fn ir_class(c: meta::ResourceClass) -> ResourceClass {
    match c {
        meta::ResourceClass::Srv => ResourceClass::Srv,
        meta::ResourceClass::Uav => ResourceClass::Uav,
        meta::ResourceClass::Cbv => ResourceClass::Cbv,
        meta::ResourceClass::Sampler => ResourceClass::Sampler,
    }
}

/// The class code `createHandle` and `ResBind` use (DXIL.rst "Resource handles": SRV=0,
/// UAV=1, CBV=2, Sampler=3).
pub fn class_code(c: ResourceClass) -> u8 {
    match c {
        ResourceClass::Srv => 0,
        ResourceClass::Uav => 1,
        ResourceClass::Cbv => 2,
        ResourceClass::Sampler => 3,
    }
}

/// One resource record made an IR range, with what handles need.
#[derive(Debug, Clone)]
pub struct Range {
    /// The record's class.
    pub class: ResourceClass,
    /// The record id (`createHandle`'s range id).
    pub id: u32,
    /// The record's global symbol (`createHandleForLib` loads it).
    pub symbol: Option<crate::dxil::llvm::ValueId>,
    /// The handle kind of its elements.
    pub handle: HandleKind,
}

/// Makes the IR range of a resource record.
pub fn range_of(r: &Resource) -> Result<(ResourceRange, Range), String> {
    let class = ir_class(r.class);
    let kind = match class {
        ResourceClass::Cbv => ResourceKind::ConstantBuffer {
            size: r.size.unwrap_or(0),
        },
        ResourceClass::Sampler => ResourceKind::Sampler {
            comparison: r.sampler_kind == Some(1),
        },
        _ => {
            let shape = r.shape.unwrap_or(0);
            // Tag 2 of a feedback texture's record: its SamplerFeedbackType.
            let second = if matches!(shape, 17 | 18) {
                let t = r.other_tags.iter().find(|(tag, _)| *tag == 2).map(|t| t.1);
                u32::try_from(t.unwrap_or(0)).unwrap_or(u32::MAX)
            } else {
                r.struct_stride.unwrap_or(0)
            };
            shape_kind(shape, second, 0, false)?
        }
    };
    let comp = match kind {
        ResourceKind::RawBuffer
        | ResourceKind::StructuredBuffer { .. }
        | ResourceKind::ConstantBuffer { .. }
        | ResourceKind::Sampler { .. }
        | ResourceKind::AccelerationStructure => ComponentType::Mixed,
        _ => component(r.element_type),
    };
    let ir = ResourceRange {
        class,
        space: r.space,
        lower: r.lower_bound,
        count: r.range_size,
        kind,
        component: comp,
        name: r.name.clone(),
        counter: r.has_counter,
        globally_coherent: r.globally_coherent,
        rasterizer_ordered: r.rasterizer_ordered,
    };
    Ok((
        ir,
        Range {
            class,
            id: r.id,
            symbol: r.symbol,
            handle: HandleKind {
                kind,
                component: comp,
            },
        },
    ))
}

/// Reads `%dx.types.ResourceProperties { i32, i32 }` of `annotateHandle`
/// (DxilResourceProperties.h): word 0 holds the `ResourceKind` in bits 0–7, `IsUAV` in
/// bit 12, `IsROV` 13, `IsGloballyCoherent` 14 and `SamplerCmpOrHasCounter` 15; word 1
/// the structure stride, the constant buffer size, or for typed views the
/// `ComponentType` in bits 0–7 and the component count in bits 8–15.
pub fn from_properties(w0: u32, w1: u32) -> Result<HandleKind, String> {
    let shape = w0 & 0xff;
    let cmp_or_counter = w0 & (1 << 15) != 0;
    let kind = shape_kind(shape, w1, w1, cmp_or_counter)?;
    let comp = match kind {
        ResourceKind::RawBuffer
        | ResourceKind::StructuredBuffer { .. }
        | ResourceKind::ConstantBuffer { .. }
        | ResourceKind::Sampler { .. }
        | ResourceKind::AccelerationStructure => ComponentType::Mixed,
        _ => component(Some(w1 & 0xff)),
    };
    Ok(HandleKind {
        kind,
        component: comp,
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// compute_basic.66: `annotateHandle(…, { i32 4108, i32 4 })` is a
    /// RWStructuredBuffer<uint> (kind 12, IsUAV bit 12) of stride 4, and `{ i32 13, i32 4 }`
    /// a 4-byte constant buffer.
    #[test]
    fn reads_annotated_properties() {
        assert_eq!(
            from_properties(4108, 4).unwrap().kind,
            ResourceKind::StructuredBuffer { stride: 4 }
        );
        assert_eq!(
            from_properties(13, 4).unwrap().kind,
            ResourceKind::ConstantBuffer { size: 4 }
        );
        // RWBuffer<float4>: typed buffer (10), UAV, element type F32 (9) × 4.
        let t = from_properties(10 | 1 << 12, 9 | 4 << 8).unwrap();
        assert_eq!(
            (t.kind, t.component),
            (ResourceKind::TypedBuffer, ComponentType::Float)
        );
        assert_eq!(
            from_properties(14 | 1 << 15, 0).unwrap().kind,
            ResourceKind::Sampler { comparison: true }
        );
        // A feedback texture's second word is its SamplerFeedbackType
        // (DxilResourceProperties.h: 0 MinMip, 1 MipRegionUsed); others are refused.
        assert_eq!(
            from_properties(17 | 1 << 12, 0).unwrap().kind,
            ResourceKind::FeedbackTexture2D {
                mip_region_used: false
            }
        );
        assert_eq!(
            from_properties(18 | 1 << 12, 1).unwrap().kind,
            ResourceKind::FeedbackTexture2DArray {
                mip_region_used: true
            }
        );
        let e = from_properties(17 | 1 << 12, 2).unwrap_err();
        assert!(e.contains("sampler feedback type 2"), "{e}");
    }
}
