//! Samplers, in `D3D12_SAMPLER_DESC` terms: filter (with comparison and min/max
//! reduction), address modes, LOD bias and clamps, anisotropy, comparison function,
//! border colour. Filtering itself lives in [`super::sample`].

use std::fmt;

/// Point or linear filtering along one of the min, mag and mip axes
/// (`D3D12_FILTER_TYPE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FilterType {
    /// Nearest texel / nearest mip.
    Point,
    /// Linear interpolation.
    Linear,
}

/// How filtered texels are combined (`D3D12_FILTER_REDUCTION_TYPE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Reduction {
    /// Weighted average.
    Standard,
    /// Weighted average of comparison results (`COMPARISON_` filters).
    Comparison,
    /// Minimum of the texels in the footprint (`MINIMUM_`).
    Minimum,
    /// Maximum of the texels in the footprint (`MAXIMUM_`).
    Maximum,
}

/// A `D3D12_FILTER`, decomposed.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Filter {
    /// Minification filter.
    pub min: FilterType,
    /// Magnification filter.
    pub mag: FilterType,
    /// Filter between mips.
    pub mip: FilterType,
    /// Anisotropic filtering.
    pub anisotropic: bool,
    /// Reduction.
    pub reduction: Reduction,
}

impl Filter {
    /// `MIN_MAG_MIP_POINT`.
    pub const POINT: Filter = Filter {
        min: FilterType::Point,
        mag: FilterType::Point,
        mip: FilterType::Point,
        anisotropic: false,
        reduction: Reduction::Standard,
    };

    /// `MIN_MAG_MIP_LINEAR`.
    pub const LINEAR: Filter = Filter {
        min: FilterType::Linear,
        mag: FilterType::Linear,
        mip: FilterType::Linear,
        anisotropic: false,
        reduction: Reduction::Standard,
    };

    /// Decodes a `D3D12_FILTER` value: mip type at bit 0, mag at bit 2, min at bit 4,
    /// anisotropic at bit 6, reduction at bits 7–8.
    pub fn from_d3d12(v: u32) -> Option<Filter> {
        if v & !0x1d5 != 0 {
            return None;
        }
        let ty = |b: u32| {
            if (v >> b) & 1 == 1 {
                FilterType::Linear
            } else {
                FilterType::Point
            }
        };
        let reduction = match (v >> 7) & 3 {
            0 => Reduction::Standard,
            1 => Reduction::Comparison,
            2 => Reduction::Minimum,
            _ => Reduction::Maximum,
        };
        let anisotropic = v & 0x40 != 0;
        Some(Filter {
            min: ty(4),
            mag: ty(2),
            mip: ty(0),
            anisotropic,
            reduction,
        })
    }

    /// The `D3D12_FILTER` value.
    pub fn to_d3d12(self) -> u32 {
        let b = |t: FilterType| u32::from(t == FilterType::Linear);
        let r = match self.reduction {
            Reduction::Standard => 0,
            Reduction::Comparison => 1,
            Reduction::Minimum => 2,
            Reduction::Maximum => 3,
        };
        b(self.mip)
            | (b(self.mag) << 2)
            | (b(self.min) << 4)
            | (u32::from(self.anisotropic) << 6)
            | (r << 7)
    }

    /// Parses a `D3D12_FILTER` name without the `D3D12_FILTER_` prefix
    /// (`MIN_MAG_MIP_LINEAR`, `COMPARISON_ANISOTROPIC`, `MAXIMUM_MIN_MAG_MIP_POINT`).
    pub fn from_name(name: &str) -> Option<Filter> {
        let n = name.trim().to_ascii_uppercase();
        let n = n.strip_prefix("D3D12_FILTER_").unwrap_or(&n);
        let (reduction, base) = if let Some(b) = n.strip_prefix("COMPARISON_") {
            (1, b)
        } else if let Some(b) = n.strip_prefix("MINIMUM_") {
            (2, b)
        } else if let Some(b) = n.strip_prefix("MAXIMUM_") {
            (3, b)
        } else {
            (0, n)
        };
        let v = match base {
            "MIN_MAG_MIP_POINT" => 0x00,
            "MIN_MAG_POINT_MIP_LINEAR" => 0x01,
            "MIN_POINT_MAG_LINEAR_MIP_POINT" => 0x04,
            "MIN_POINT_MAG_MIP_LINEAR" => 0x05,
            "MIN_LINEAR_MAG_MIP_POINT" => 0x10,
            "MIN_LINEAR_MAG_POINT_MIP_LINEAR" => 0x11,
            "MIN_MAG_LINEAR_MIP_POINT" => 0x14,
            "MIN_MAG_MIP_LINEAR" => 0x15,
            "MIN_MAG_ANISOTROPIC_MIP_POINT" => 0x54,
            "ANISOTROPIC" => 0x55,
            _ => return None,
        };
        Filter::from_d3d12(v | (reduction << 7))
    }

    /// The `D3D12_FILTER` name without its prefix.
    pub fn name(self) -> String {
        let base = match self.to_d3d12() & 0x7f {
            0x00 => "MIN_MAG_MIP_POINT",
            0x01 => "MIN_MAG_POINT_MIP_LINEAR",
            0x04 => "MIN_POINT_MAG_LINEAR_MIP_POINT",
            0x05 => "MIN_POINT_MAG_MIP_LINEAR",
            0x10 => "MIN_LINEAR_MAG_MIP_POINT",
            0x11 => "MIN_LINEAR_MAG_POINT_MIP_LINEAR",
            0x14 => "MIN_MAG_LINEAR_MIP_POINT",
            0x15 => "MIN_MAG_MIP_LINEAR",
            0x54 => "MIN_MAG_ANISOTROPIC_MIP_POINT",
            _ => "ANISOTROPIC",
        };
        let prefix = match self.reduction {
            Reduction::Standard => "",
            Reduction::Comparison => "COMPARISON_",
            Reduction::Minimum => "MINIMUM_",
            Reduction::Maximum => "MAXIMUM_",
        };
        format!("{prefix}{base}")
    }
}

impl fmt::Display for Filter {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.name())
    }
}

/// How coordinates outside [0, 1] are resolved (`D3D12_TEXTURE_ADDRESS_MODE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum AddressMode {
    /// Repeat.
    Wrap,
    /// Repeat, mirrored every other time.
    Mirror,
    /// Clamp to the edge texel.
    Clamp,
    /// Texels outside read the border colour.
    Border,
    /// Mirror once around 0, then clamp.
    MirrorOnce,
}

impl AddressMode {
    /// Parses `WRAP`, `MIRROR`, `CLAMP`, `BORDER`, `MIRROR_ONCE` (any case, with or
    /// without the `D3D12_TEXTURE_ADDRESS_MODE_` prefix).
    pub fn from_name(name: &str) -> Option<AddressMode> {
        let n = name.trim().to_ascii_uppercase();
        let n = n.strip_prefix("D3D12_TEXTURE_ADDRESS_MODE_").unwrap_or(&n);
        Some(match n {
            "WRAP" => AddressMode::Wrap,
            "MIRROR" => AddressMode::Mirror,
            "CLAMP" => AddressMode::Clamp,
            "BORDER" => AddressMode::Border,
            "MIRROR_ONCE" => AddressMode::MirrorOnce,
            _ => return None,
        })
    }

    /// The D3D12 name without its prefix.
    pub fn name(self) -> &'static str {
        match self {
            AddressMode::Wrap => "WRAP",
            AddressMode::Mirror => "MIRROR",
            AddressMode::Clamp => "CLAMP",
            AddressMode::Border => "BORDER",
            AddressMode::MirrorOnce => "MIRROR_ONCE",
        }
    }
}

/// A comparison (`D3D12_COMPARISON_FUNC`): passes when `source OP destination`, where
/// the source is the shader's reference value and the destination the texel.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ComparisonFunc {
    /// Never passes.
    Never,
    /// `source < dest`.
    Less,
    /// `source == dest`.
    Equal,
    /// `source <= dest`.
    LessEqual,
    /// `source > dest`.
    Greater,
    /// `source != dest`.
    NotEqual,
    /// `source >= dest`.
    GreaterEqual,
    /// Always passes.
    Always,
}

impl ComparisonFunc {
    /// Parses `NEVER`, `LESS`, `EQUAL`, `LESS_EQUAL`, `GREATER`, `NOT_EQUAL`,
    /// `GREATER_EQUAL`, `ALWAYS` (any case, with or without `D3D12_COMPARISON_FUNC_`).
    pub fn from_name(name: &str) -> Option<ComparisonFunc> {
        let n = name.trim().to_ascii_uppercase();
        let n = n.strip_prefix("D3D12_COMPARISON_FUNC_").unwrap_or(&n);
        Some(match n {
            "NEVER" => ComparisonFunc::Never,
            "LESS" => ComparisonFunc::Less,
            "EQUAL" => ComparisonFunc::Equal,
            "LESS_EQUAL" => ComparisonFunc::LessEqual,
            "GREATER" => ComparisonFunc::Greater,
            "NOT_EQUAL" => ComparisonFunc::NotEqual,
            "GREATER_EQUAL" => ComparisonFunc::GreaterEqual,
            "ALWAYS" => ComparisonFunc::Always,
            _ => return None,
        })
    }

    /// The D3D12 name without its prefix.
    pub fn name(self) -> &'static str {
        match self {
            ComparisonFunc::Never => "NEVER",
            ComparisonFunc::Less => "LESS",
            ComparisonFunc::Equal => "EQUAL",
            ComparisonFunc::LessEqual => "LESS_EQUAL",
            ComparisonFunc::Greater => "GREATER",
            ComparisonFunc::NotEqual => "NOT_EQUAL",
            ComparisonFunc::GreaterEqual => "GREATER_EQUAL",
            ComparisonFunc::Always => "ALWAYS",
        }
    }

    /// Whether `source OP dest` passes (IEEE comparisons: NaN fails all but `NotEqual`
    /// and `Always`).
    pub fn passes(self, source: f32, dest: f32) -> bool {
        match self {
            ComparisonFunc::Never => false,
            ComparisonFunc::Less => source < dest,
            ComparisonFunc::Equal => source == dest,
            ComparisonFunc::LessEqual => source <= dest,
            ComparisonFunc::Greater => source > dest,
            ComparisonFunc::NotEqual => source != dest,
            ComparisonFunc::GreaterEqual => source >= dest,
            ComparisonFunc::Always => true,
        }
    }
}

/// A sampler (`D3D12_SAMPLER_DESC`).
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct SamplerDesc {
    /// Filter.
    pub filter: Filter,
    /// Address mode for u, v, w.
    pub address: [AddressMode; 3],
    /// Added to the computed LOD.
    pub mip_lod_bias: f32,
    /// Largest anisotropy ratio (1–16).
    pub max_anisotropy: u32,
    /// Comparison of comparison filters.
    pub comparison: ComparisonFunc,
    /// Colour of texels outside the texture with [`AddressMode::Border`].
    pub border_color: [f32; 4],
    /// Smallest LOD (most detailed mip) the sampler uses.
    pub min_lod: f32,
    /// Largest LOD.
    pub max_lod: f32,
}

impl Default for SamplerDesc {
    /// Direct3D's default sampler state: `MIN_MAG_MIP_LINEAR`, `CLAMP` everywhere, no
    /// bias, anisotropy 1, `NEVER`, border (1, 1, 1, 1), LOD range unlimited.
    fn default() -> SamplerDesc {
        SamplerDesc {
            filter: Filter::LINEAR,
            address: [AddressMode::Clamp; 3],
            mip_lod_bias: 0.0,
            max_anisotropy: 1,
            comparison: ComparisonFunc::Never,
            border_color: [1.0; 4],
            min_lod: f32::MIN,
            max_lod: f32::MAX,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `D3D12_FILTER` encoding (d3d12.h: `D3D12_ENCODE_BASIC_FILTER` and friends).
    #[test]
    fn filter_names_and_values() {
        assert_eq!(
            Filter::from_name("MIN_MAG_MIP_LINEAR"),
            Some(Filter::LINEAR)
        );
        assert_eq!(Filter::LINEAR.to_d3d12(), 0x15);
        let c = Filter::from_name("COMPARISON_MIN_MAG_LINEAR_MIP_POINT").unwrap();
        assert_eq!(c.to_d3d12(), 0x94);
        assert_eq!(c.reduction, Reduction::Comparison);
        assert_eq!(c.mip, FilterType::Point);
        let a = Filter::from_name("d3d12_filter_maximum_anisotropic").unwrap();
        assert_eq!(a.to_d3d12(), 0x1d5);
        assert!(a.anisotropic);
        assert_eq!(
            Filter::from_d3d12(0x1d5).unwrap().name(),
            "MAXIMUM_ANISOTROPIC"
        );
        for v in 0..0x200u32 {
            if let Some(f) = Filter::from_d3d12(v) {
                assert_eq!(f.to_d3d12(), v);
                if v & 0x7f == 0x55 || v & 0x40 == 0 || v & 0x7f == 0x54 {
                    assert_eq!(Filter::from_name(&f.name()), Some(f), "{v:#x}");
                }
            }
        }
        assert_eq!(Filter::from_name("BILINEAR"), None);
    }

    #[test]
    fn address_and_comparison_names() {
        assert_eq!(
            AddressMode::from_name("mirror_once"),
            Some(AddressMode::MirrorOnce)
        );
        assert_eq!(
            ComparisonFunc::from_name("LESS_EQUAL"),
            Some(ComparisonFunc::LessEqual)
        );
        assert!(ComparisonFunc::Less.passes(0.25, 0.5));
        assert!(!ComparisonFunc::Less.passes(0.5, 0.5));
        assert!(ComparisonFunc::NotEqual.passes(f32::NAN, 0.0));
    }
}
