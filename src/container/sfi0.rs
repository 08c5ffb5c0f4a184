//! `SFI0`: the shader feature flags, a 64-bit mask of the optional device features a
//! program needs.
//!
//! Owns: reading the mask and naming its bits. Does not own: checking the bits against
//! what the program does (the seed records how dxc sets them; a later check may compare).

use serde::Serialize;

use super::codes::flag_names;
use super::{ContainerError, Part, Reader};

/// The size of an `SFI0` part.
pub const SFI0_SIZE: usize = 8;

/// The named feature bits: (bit, identifier, what it requires).
///
/// Bits 0, 2–6, 8–20, 22–26 and 28–30 are named in seed `000_…txt`, "Feature mask and
/// metadata" (dxc 1.7.2308 run on one program per feature; bits 0–13 are fxc's too).
/// Bits 1 and 7 are "known from fxc alone" there; they, 21 (sampler feedback, which the
/// seed names but saw no compiler set), 31 and 32 take their identifiers from
/// DirectXShaderCompiler's `DxilFeatureInfo1`/`DxilFeatureInfo2`
/// (`include/dxc/DxilContainer/RDAT_LibraryTypes.inl`). Bit 27 is reserved there and
/// stays unnamed.
pub const FEATURE_BITS: &[(u32, &str, &str)] = &[
    (0, "Doubles", "double-precision floating point"),
    (
        1,
        "ComputeShadersPlusRawAndStructuredBuffersViaShader4X",
        "raw and structured buffers in Shader Model 4.x",
    ),
    (2, "UAVsAtEveryStage", "UAVs at every shader stage"),
    (3, "64UAVs", "more than 8 UAV slots"),
    (4, "MinimumPrecision", "minimum-precision data types"),
    (
        5,
        "11_1_DoubleExtensions",
        "Direct3D 11.1 double-precision extensions",
    ),
    (
        6,
        "11_1_ShaderExtensions",
        "Direct3D 11.1 shader extensions",
    ),
    (
        7,
        "Level9ComparisonFiltering",
        "comparison filtering for feature level 9",
    ),
    (8, "TiledResources", "tiled resources"),
    (9, "StencilRef", "pixel shader stencil reference output"),
    (10, "InnerCoverage", "inner coverage"),
    (
        11,
        "TypedUAVLoadAdditionalFormats",
        "typed UAV loads of additional formats",
    ),
    (12, "ROVs", "raster-ordered views"),
    (
        13,
        "ViewportAndRTArrayIndexFromAnyShaderFeedingRasterizer",
        "render-target or viewport array index from any shader feeding the rasterizer",
    ),
    (14, "WaveOps", "wave operations"),
    (15, "Int64Ops", "64-bit integers"),
    (16, "ViewID", "view instancing"),
    (17, "Barycentrics", "barycentrics"),
    (18, "NativeLowPrecision", "native low-precision types"),
    (19, "ShadingRate", "shading rate"),
    (
        20,
        "Raytracing_Tier_1_1",
        "ray queries (raytracing tier 1.1)",
    ),
    (21, "SamplerFeedback", "sampler feedback"),
    (
        22,
        "AtomicInt64OnTypedResource",
        "64-bit atomics on typed resources",
    ),
    (
        23,
        "AtomicInt64OnGroupShared",
        "64-bit atomics on group-shared memory",
    ),
    (
        24,
        "DerivativesInMeshAndAmpShaders",
        "derivatives in mesh and amplification shaders",
    ),
    (
        25,
        "ResourceDescriptorHeapIndexing",
        "resource descriptor heap indexing",
    ),
    (
        26,
        "SamplerDescriptorHeapIndexing",
        "sampler descriptor heap indexing",
    ),
    (
        28,
        "AtomicInt64OnHeapResource",
        "64-bit atomics on descriptor-heap resources",
    ),
    (29, "AdvancedTextureOps", "advanced texture operations"),
    (30, "WriteableMSAATextures", "writeable MSAA textures"),
    (
        31,
        "SampleCmpGradientOrBias",
        "comparison sampling with gradient or bias",
    ),
    (32, "ExtendedCommandInfo", "extended command information"),
];

/// The identifier of feature bit `bit`, `None` for an unnamed bit.
pub fn feature_name(bit: u32) -> Option<&'static str> {
    FEATURE_BITS
        .iter()
        .find(|(b, _, _)| *b == bit)
        .map(|(_, n, _)| *n)
}

/// What feature bit `bit` requires, in words, `None` for an unnamed bit.
pub fn feature_description(bit: u32) -> Option<&'static str> {
    FEATURE_BITS
        .iter()
        .find(|(b, _, _)| *b == bit)
        .map(|(_, _, d)| *d)
}

/// A decoded `SFI0` part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct FeatureFlags {
    /// The mask as stored.
    pub mask: u64,
    /// The set bits by name, lowest first; unnamed bits as `bit N`.
    pub names: Vec<String>,
}

impl FeatureFlags {
    /// The flags of a mask.
    pub fn from_mask(mask: u64) -> Self {
        let table: Vec<(u32, &'static str)> =
            FEATURE_BITS.iter().map(|&(b, n, _)| (b, n)).collect();
        FeatureFlags {
            mask,
            names: flag_names(mask, &table),
        }
    }

    /// Decodes an `SFI0` part: exactly eight bytes, a little-endian `u64`.
    pub fn parse(part: &Part<'_>) -> Result<Self, ContainerError> {
        if part.data.len() != SFI0_SIZE {
            return Err(ContainerError::BadField {
                part: part.tag,
                what: "part size",
                value: part.data.len() as u64,
                offset: 0,
            });
        }
        Ok(Self::from_mask(Reader::new(part.data, part.tag).u64_at(0)?))
    }
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::type_complexity
)]
mod tests {
    use super::*;
    use crate::container::FourCc;

    /// Seed `000_…txt`: bit 14 is wave operations, bit 3 more than 8 UAV slots, bit 25
    /// descriptor-heap indexing; bit 27 has no name and prints as `bit 27`.
    #[test]
    fn names_seed_bits() {
        let data = ((1u64 << 14) | (1 << 3) | (1 << 25) | (1 << 27)).to_le_bytes();
        let f = FeatureFlags::parse(&Part {
            tag: FourCc::SFI0,
            offset: 0,
            data: &data,
        })
        .unwrap();
        assert_eq!(
            f.names,
            [
                "64UAVs",
                "WaveOps",
                "ResourceDescriptorHeapIndexing",
                "bit 27"
            ]
        );
        assert_eq!(
            feature_description(20),
            Some("ray queries (raytracing tier 1.1)")
        );
        assert_eq!(feature_name(27), None);
    }

    #[test]
    fn refuses_other_sizes() {
        let data = [0u8; 4];
        assert!(
            FeatureFlags::parse(&Part {
                tag: FourCc::SFI0,
                offset: 0,
                data: &data
            })
            .is_err()
        );
    }
}
