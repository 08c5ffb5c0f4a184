//! Sampler feedback maps (Shader Model 6.5; DirectX-Specs "Sampler Feedback").
//!
//! Owns: a feedback map paired with a 2D or 2D-array texture, its mip region, its two
//! kinds (MinMip and MipRegionUsed), where a texel the paired texture's sampler reads
//! lands in the map, and the atomic update. Does not own: which texels a sample reads
//! (`sample::texels_read`, the same rules as `sample`), lanes and handles (`exec`), the
//! job file's keys (`job`).
//!
//! # Storage is the decoded form
//!
//! The specification leaves a feedback map's storage opaque and defines only its decoded
//! form (`ResolveSubresourceRegion` with `D3D12_RESOLVE_MODE_DECODE_SAMPLER_FEEDBACK` to
//! `DXGI_FORMAT_R8_UINT`). dxlane stores that decoded form directly, so reading a map
//! back is reading an `R8_UINT` texture ([`FeedbackMap::map`]):
//!
//! - **MinMip**: one mip; texel (x, y) of slice s is the most detailed paired mip
//!   requested in mip region (x, y) of slice s, `0xFF` when none was ("Encoding cleared
//!   feedback").
//! - **MipRegionUsed**: the paired texture's mip count; texel (x, y) of mip m is `0xFF`
//!   when region (x, y) of paired mip m was requested, else 0.
//!
//! The decoded map is `ceil(width / region width)` × `ceil(height / region height)`
//! ("Compatible transcode resources"); a MipRegionUsed map whose size cannot hold the
//! paired mip count is padded on the right to the width that can (the spec's "padding
//! the transcode resource in order to have the necessary number of mips", at the right
//! and bottom).
//!
//! # Where a texel lands
//!
//! Mip m of the map is a grid of `max(1, W₀ >> m)` × `max(1, H₀ >> m)` regions laid over
//! paired mip m (MinMip: the mip-0 grid over every mip), `W₀ × H₀` being the decoded
//! mip-0 size before padding — the spec's non-power-of-two example, where the grid is
//! projected over the texture. A texel read at paired mip m covers a rectangle of the
//! texture; every region of the grid that rectangle overlaps is marked. For a
//! power-of-two texture that is the region `x / region width` of the texel's own mip,
//! and for the spec's "small tail mips" (mips smaller than the mip-0 grid) it is every
//! region the texel covers: MinMip writes mip m itself there, not the lowest small tail
//! mip the spec also allows.
//!
//! # Updates
//!
//! MinMip takes the atomic minimum of the stored mip and the requested one; MipRegionUsed
//! ORs in `0xFF` ("Sampling and updating"). Reads the filter gives zero weight are not
//! recorded (the spec lets hardware record them or not), matching the texels `sample`
//! reads.

use super::ResourceError;
use super::format::Format;
use super::sample::{SampleInput, texels_read};
use super::sampler::SamplerDesc;
use super::texture::{Texture, TextureDesc, TextureDim, TextureView};

/// The smallest mip region dimension ("Mip region constraints": at least 4).
pub const MIN_REGION: u32 = 4;

/// The decoded value of a MinMip region nothing has requested, and of a requested
/// MipRegionUsed region.
pub const NOT_REQUESTED: u8 = 0xFF;

/// What a feedback map records (`DXGI_FORMAT_SAMPLER_FEEDBACK_MIN_MIP_OPAQUE`,
/// `DXGI_FORMAT_SAMPLER_FEEDBACK_MIP_REGION_USED_OPAQUE`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum FeedbackKind {
    /// Per region, the most detailed mip requested.
    MinMip,
    /// Per mip and region, whether it was requested.
    MipRegionUsed,
}

impl FeedbackKind {
    /// The job file's name (`min_mip`, `mip_region_used`).
    pub fn name(self) -> &'static str {
        match self {
            FeedbackKind::MinMip => "min_mip",
            FeedbackKind::MipRegionUsed => "mip_region_used",
        }
    }

    /// The kind named `name` in the job file.
    pub fn from_name(name: &str) -> Option<FeedbackKind> {
        match name {
            "min_mip" => Some(FeedbackKind::MinMip),
            "mip_region_used" => Some(FeedbackKind::MipRegionUsed),
            _ => None,
        }
    }

    /// The decoded value of a region nothing requested: `0xFF` for MinMip, 0 for
    /// MipRegionUsed (a cleared map, "Encoding cleared feedback").
    pub fn cleared(self) -> u8 {
        match self {
            FeedbackKind::MinMip => NOT_REQUESTED,
            FeedbackKind::MipRegionUsed => 0,
        }
    }
}

/// A feedback map paired with a texture: its kind, mip region and decoded storage.
/// Clones share the storage.
#[derive(Debug, Clone, PartialEq)]
pub struct FeedbackMap {
    /// What it records.
    pub kind: FeedbackKind,
    /// The mip region, in texels of the paired texture: `[width, height]`.
    pub region: [u32; 2],
    /// The paired texture's description.
    pub paired: TextureDesc,
    /// The decoded map (`R8_UINT`; see the module doc).
    pub map: Texture,
    /// The region grid of mip 0 before padding.
    grid: [u32; 2],
}

/// Checks a mip region against the paired texture ("Mip region constraints": each
/// dimension a power of two, at least [`MIN_REGION`], at most half the paired mip 0's)
/// and the paired texture itself (2D or 2D array, single-sampled: "Paired resource must
/// be single-sampled"; HLSL's `FeedbackTexture2D`/`FeedbackTexture2DArray`).
pub fn check_pairing(region: [u32; 2], paired: &TextureDesc) -> Result<(), String> {
    if !matches!(paired.dim, TextureDim::Tex2D | TextureDim::Tex2DArray) {
        return Err(format!(
            "the paired texture is a {}; feedback maps pair with texture2d and texture2darray",
            paired.dim.name()
        ));
    }
    for (axis, r, size) in [
        ("width", region[0], paired.width),
        ("height", region[1], paired.height),
    ] {
        if r < MIN_REGION || !r.is_power_of_two() {
            return Err(format!(
                "mip region {axis} {r} is not a power of two of at least {MIN_REGION}"
            ));
        }
        if r > size / 2 {
            return Err(format!(
                "mip region {axis} {r} is more than half the paired texture's {axis} {size}"
            ));
        }
    }
    Ok(())
}

impl FeedbackMap {
    /// The decoded map's description for a map of `kind` with `region` paired with
    /// `paired` (see the module doc): `R8_UINT`, the paired shape and array size.
    pub fn decoded_desc(kind: FeedbackKind, region: [u32; 2], paired: &TextureDesc) -> TextureDesc {
        let grid = [
            paired.width.div_ceil(region[0].max(1)),
            paired.height.div_ceil(region[1].max(1)),
        ];
        let mips = match kind {
            FeedbackKind::MinMip => 1,
            FeedbackKind::MipRegionUsed => paired.mips.max(1),
        };
        // The longest side must allow `mips` mips (1 << (mips - 1) texels).
        let need = 1u32.checked_shl(mips - 1).unwrap_or(u32::MAX);
        let width = if grid[0].max(grid[1]) < need {
            need
        } else {
            grid[0]
        };
        TextureDesc {
            dim: paired.dim,
            format: Format::R8_UINT,
            width,
            height: grid[1],
            depth_or_array_size: paired.depth_or_array_size,
            mips,
            samples: 1,
        }
    }

    /// A cleared map of `kind` with `region` paired with `paired`.
    pub fn new(
        kind: FeedbackKind,
        region: [u32; 2],
        paired: &TextureDesc,
    ) -> Result<FeedbackMap, ResourceError> {
        check_pairing(region, paired).map_err(ResourceError::BadTexture)?;
        let desc = Self::decoded_desc(kind, region, paired);
        let map = Texture::new(desc)?;
        let grid = [
            paired.width.div_ceil(region[0]),
            paired.height.div_ceil(region[1]),
        ];
        let m = FeedbackMap {
            kind,
            region,
            paired: *paired,
            map,
            grid,
        };
        m.clear();
        Ok(m)
    }

    /// Clears the map: no mip requested anywhere (`ClearUnorderedAccessViewUint` on a
    /// feedback map, whose values are ignored).
    pub fn clear(&self) {
        let b = u32::from(self.kind.cleared());
        self.map.memory().fill_words(b * 0x0101_0101);
    }

    /// The region grid of map mip `m`.
    fn grid_at(&self, m: u32) -> [u32; 2] {
        let s = |v: u32| v.checked_shr(m).unwrap_or(0).max(1);
        [s(self.grid[0]), s(self.grid[1])]
    }

    /// Records that texel `texel` of paired mip `mip` (of size `size`) of array slice
    /// `slice` was read. Out-of-range mips, slices or texels record nothing.
    pub fn record(&self, mip: u32, slice: u32, texel: [u32; 2], size: [u32; 2]) {
        if mip >= self.paired.mips || mip > u32::from(u8::MAX - 1) {
            return;
        }
        let map_mip = match self.kind {
            FeedbackKind::MinMip => 0,
            FeedbackKind::MipRegionUsed => mip,
        };
        let grid = match self.kind {
            FeedbackKind::MinMip => self.grid,
            FeedbackKind::MipRegionUsed => self.grid_at(mip),
        };
        // The regions the texel's rectangle [t, t + 1) / size overlaps: from
        // floor(t × n / size) to ceil((t + 1) × n / size) − 1.
        let span = |t: u32, size: u32, n: u32| -> Option<(u32, u32)> {
            let (t, size, n) = (u64::from(t), u64::from(size.max(1)), u64::from(n));
            if t >= size {
                return None;
            }
            let lo = t * n / size;
            let hi = ((t + 1) * n).div_ceil(size) - 1;
            Some((lo as u32, hi.min(n - 1) as u32))
        };
        let (Some((x0, x1)), Some((y0, y1))) = (
            span(texel[0], size[0], grid[0]),
            span(texel[1], size[1], grid[1]),
        ) else {
            return;
        };
        let value = mip as u8;
        for y in y0..=y1 {
            for x in x0..=x1 {
                let Some(addr) = self.map.texel_addr(map_mip, slice, [x, y, 0], 0) else {
                    continue;
                };
                match self.kind {
                    FeedbackKind::MinMip => self.map.memory().update_u8(addr, |b| b.min(value)),
                    FeedbackKind::MipRegionUsed => {
                        self.map.memory().update_u8(addr, |_| NOT_REQUESTED)
                    }
                };
            }
        }
    }

    /// Records the texels a `sample` of `view` through `sampler` with `input` reads
    /// (`WriteSamplerFeedback*`): `input`'s offsets are ignored, as feedback is written
    /// "assuming samples at zero offsets". The view's mips and slices are placed in the
    /// paired texture's.
    pub fn write(&self, view: &TextureView, sampler: &SamplerDesc, input: &SampleInput) {
        let input = SampleInput {
            offset: [0; 3],
            ..*input
        };
        texels_read(view, sampler, &input, |mip, slice, texel| {
            let [w, h, _] = view.mip_size(mip);
            self.record(
                view.most_detailed_mip.saturating_add(mip),
                view.first_slice.saturating_add(slice),
                texel,
                [w, h],
            );
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::sample::Lod;
    use crate::resources::sampler::{AddressMode, Filter};

    /// A 32×32 `R32_FLOAT` texture with `mips` mips and `slices` slices (2D array when
    /// more than one) and its whole view.
    fn paired(mips: u32, slices: u32) -> TextureView {
        let desc = TextureDesc {
            dim: if slices > 1 {
                TextureDim::Tex2DArray
            } else {
                TextureDim::Tex2D
            },
            format: Format::R32_FLOAT,
            width: 32,
            height: 32,
            depth_or_array_size: slices,
            mips,
            samples: 1,
        };
        TextureView::whole(Texture::new(desc).unwrap())
    }

    fn sampler(filter: &str, address: AddressMode) -> SamplerDesc {
        SamplerDesc {
            filter: Filter::from_name(filter).unwrap(),
            address: [address; 3],
            ..SamplerDesc::default()
        }
    }

    fn level(u: f32, v: f32, slice: f32, lod: f32) -> SampleInput {
        SampleInput {
            coord: [u, v, slice, 0.0],
            offset: [0; 3],
            lod: Lod::Level(lod),
            min_lod_clamp: f32::NEG_INFINITY,
            reference: None,
        }
    }

    /// The decoded bytes of map mip `mip` of slice `slice`, row by row.
    fn rows(m: &FeedbackMap, mip: u32, slice: u32) -> Vec<Vec<u8>> {
        let [w, h, _] = m.map.desc().mip_size(mip);
        (0..h)
            .map(|y| {
                (0..w)
                    .map(|x| {
                        let a = m.map.texel_addr(mip, slice, [x, y, 0], 0).unwrap();
                        m.map.memory().load_u8(a).unwrap()
                    })
                    .collect()
            })
            .collect()
    }

    const F: u8 = NOT_REQUESTED;

    /// "Mip region constraints": powers of two, at least 4, at most half the paired
    /// texture; the paired texture is 2D or a 2D array.
    #[test]
    fn region_limits() {
        let t = *paired(1, 1).texture.desc();
        assert!(check_pairing([4, 16], &t).is_ok());
        let e = check_pairing([2, 4], &t).unwrap_err();
        assert!(
            e.contains("width 2 is not a power of two of at least 4"),
            "{e}"
        );
        let e = check_pairing([8, 12], &t).unwrap_err();
        assert!(e.contains("height 12"), "{e}");
        let e = check_pairing([32, 8], &t).unwrap_err();
        assert!(e.contains("more than half"), "{e}");
        let cube = TextureDesc {
            dim: TextureDim::Cube,
            depth_or_array_size: 6,
            ..t
        };
        assert!(
            check_pairing([8, 8], &cube)
                .unwrap_err()
                .contains("texturecube")
        );
    }

    /// "Compatible transcode resources": ceil(size / region) per side, one mip for
    /// MinMip, the paired mips for MipRegionUsed (padded on the right when the grid is
    /// too small to hold them); cleared maps read 0xFF (MinMip) and 0 (MipRegionUsed).
    #[test]
    fn decoded_shape_and_clear() {
        let t = *paired(6, 1).texture.desc();
        let d = FeedbackMap::decoded_desc(FeedbackKind::MinMip, [8, 4], &t);
        assert_eq!((d.width, d.height, d.mips), (4, 8, 1));
        let d = FeedbackMap::decoded_desc(FeedbackKind::MipRegionUsed, [8, 8], &t);
        // A 4×4 grid holds 3 mips; 6 need a side of 32.
        assert_eq!((d.width, d.height, d.mips), (32, 4, 6));
        let m = FeedbackMap::new(FeedbackKind::MinMip, [8, 8], &t).unwrap();
        assert_eq!(rows(&m, 0, 0), vec![vec![F; 4]; 4]);
        let m = FeedbackMap::new(FeedbackKind::MipRegionUsed, [8, 8], &t).unwrap();
        assert_eq!(rows(&m, 2, 0), vec![vec![0u8; 8]; 1]);
    }

    /// MinMip at explicit LODs, point filtering: the texel's region holds its mip, and
    /// the atomic minimum keeps the most detailed mip requested. A 2×2 mip (4) is a
    /// "small tail mip" of the 4×4 grid: its texel covers four regions, all written.
    #[test]
    fn min_mip_levels_and_minimum() {
        let v = paired(6, 1);
        let m = FeedbackMap::new(FeedbackKind::MinMip, [8, 8], v.texture.desc()).unwrap();
        let s = sampler("MIN_MAG_MIP_POINT", AddressMode::Wrap);
        // Mip 2 is 8×8: (0.6, 0.3) is texel (4, 2), region (2, 1) of the 4×4 grid.
        m.write(&v, &s, &level(0.6, 0.3, 0.0, 2.0));
        // Mip 0: texel (3, 3), region (0, 0).
        m.write(&v, &s, &level(0.1, 0.1, 0.0, 0.0));
        // Mip 4 is 2×2: (0.1, 0.1) is texel (0, 0), regions (0..1, 0..1).
        m.write(&v, &s, &level(0.1, 0.1, 0.0, 4.0));
        // Mip 3 at region (2, 1) does not replace the 2 recorded there.
        m.write(&v, &s, &level(0.6, 0.3, 0.0, 3.0));
        assert_eq!(
            rows(&m, 0, 0),
            vec![
                vec![0, 4, F, F],
                vec![4, 4, 2, F],
                vec![F, F, F, F],
                vec![F, F, F, F]
            ]
        );
    }

    /// MipRegionUsed, trilinear: LOD 1.5 blends mips 1 and 2 with weight ½, so both are
    /// marked; LOD 1 has a zero weight on mip 2, which is not marked (§7.18.10 and the
    /// spec's zero-weight allowance). A bilinear footprint that straddles a region edge
    /// marks both regions.
    #[test]
    fn region_used_trilinear_and_straddle() {
        let v = paired(4, 1);
        let m = FeedbackMap::new(FeedbackKind::MipRegionUsed, [4, 4], v.texture.desc()).unwrap();
        let s = sampler("MIN_MAG_MIP_LINEAR", AddressMode::Clamp);
        // Mip 1 is 16×16, mip 2 8×8. u = v = 11/32: mip 1 at 5.5 − 0.5 = 5, texel 5
        // alone (region 1 of 4); mip 2 at 2.75 − 0.5, texels 2 and 3 (region 0 of 2).
        m.write(&v, &s, &level(11.0 / 32.0, 11.0 / 32.0, 0.0, 1.5));
        // Mip 1 at u = 1/2: 8 − 0.5 = 7.5, texels 7 (region 1) and 8 (region 2).
        m.write(&v, &s, &level(0.5, 11.0 / 32.0, 0.0, 1.0));
        assert_eq!(
            rows(&m, 1, 0),
            vec![
                vec![0, 0, 0, 0],
                vec![0, F, F, 0],
                vec![0, 0, 0, 0],
                vec![0, 0, 0, 0]
            ]
        );
        assert_eq!(rows(&m, 2, 0), vec![vec![F, 0], vec![0, 0]]);
        assert_eq!(rows(&m, 0, 0), vec![vec![0u8; 8]; 8]);
        assert_eq!(rows(&m, 3, 0), vec![vec![0u8; 1]; 1]);
    }

    /// §7.18.9 address modes: a linear footprint left of u = 0 reads texel 31 and 0 under
    /// WRAP (regions 3 and 0 of a 4-wide grid), texel 0 twice under CLAMP (region 0),
    /// and only texel 0 under BORDER (the border texel reads no texel).
    #[test]
    fn out_of_range_coordinate_by_address_mode() {
        let v = paired(1, 1);
        let at = |mode| {
            let m = FeedbackMap::new(FeedbackKind::MinMip, [8, 8], v.texture.desc()).unwrap();
            m.write(
                &v,
                &sampler("MIN_MAG_MIP_LINEAR", mode),
                &level(-0.01, 0.5 - 1.0 / 64.0, 0.0, 0.0),
            );
            rows(&m, 0, 0)
        };
        // v: 16 − 0.5 − 0.5 = 15, one row of texels (15, region 1).
        let mut wrap = vec![vec![F; 4]; 4];
        wrap[1][0] = 0;
        wrap[1][3] = 0;
        assert_eq!(at(AddressMode::Wrap), wrap);
        let mut clamp = vec![vec![F; 4]; 4];
        clamp[1][0] = 0;
        assert_eq!(at(AddressMode::Clamp), clamp);
        assert_eq!(at(AddressMode::Border), clamp);
    }

    /// The shader's LOD clamp raises the LOD as it does for `Sample` (§7.18.11), and a
    /// 2D array's slice index picks the map slice (per-slice maps, "Feedback maps for
    /// texture arrays").
    #[test]
    fn clamp_and_array_slice() {
        let v = paired(6, 3);
        let m = FeedbackMap::new(FeedbackKind::MinMip, [8, 8], v.texture.desc()).unwrap();
        let s = sampler("MIN_MAG_MIP_POINT", AddressMode::Wrap);
        let mut input = level(0.9, 0.9, 1.2, 0.0);
        input.min_lod_clamp = 1.0;
        m.write(&v, &s, &input);
        let mut expect = vec![vec![F; 4]; 4];
        expect[3][3] = 1;
        assert_eq!(rows(&m, 0, 1), expect);
        assert_eq!(rows(&m, 0, 0), vec![vec![F; 4]; 4]);
        assert_eq!(rows(&m, 0, 2), vec![vec![F; 4]; 4]);
    }
}
