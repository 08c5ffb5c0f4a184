//! Textures: dimensions, arrays, mips, samples, their memory layout, and views.
//!
//! # Memory layout
//!
//! A [`Texture`]'s bytes hold every subresource tightly packed, in D3D12 subresource
//! order: mip 0 … n−1 of array slice 0, then of slice 1, and so on (subresource index
//! `mip + slice × mips`). A subresource is `depth` planes of `height` rows of
//! `width × texel size` bytes, without padding. A multisampled subresource holds its
//! samples as consecutive planes: all of sample 0's texels, then sample 1's.
//!
//! Cube textures are 2D arrays of faces in D3D order (+X, −X, +Y, −Y, +Z, −Z):
//! `depth_or_array_size` counts faces (6 per cube), as in `D3D12_RESOURCE_DESC`.
//!
//! # Block-compressed formats
//!
//! A BC subresource holds 4×4 blocks, rows of `ceil(width / 4)` blocks, `ceil(height / 4)`
//! block rows per plane (D3D11.3 §19.5.1's "physical" size). Every mip is addressed by its
//! "virtual" size (`width >> mip`, at least 1): a 2×2 mip uses texels a, b, e, f of its one
//! block, a 1×1 mip texel a. D3D11.3 asks the top mip to be a multiple of 4 texels;
//! D3D12's unaligned block textures (`UnalignedBlockTexturesSupported`) lift that, and so
//! does dxlane: any size is accepted, the last block row and column padded. Block
//! formats may be 2D (arrays), cubes or 3D (§19.5.1), never 1D or multisampled.

use std::sync::Arc;

use super::ResourceError;
use super::format::Format;
use super::memory::{MAX_MEMORY_BYTES, Memory, RmwOp};

/// The shape of a texture or texture view.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum TextureDim {
    /// 1D.
    Tex1D,
    /// 1D array.
    Tex1DArray,
    /// 2D.
    Tex2D,
    /// 2D array.
    Tex2DArray,
    /// Multisampled 2D.
    Tex2DMS,
    /// Multisampled 2D array.
    Tex2DMSArray,
    /// 3D.
    Tex3D,
    /// Cube (6 faces).
    Cube,
    /// Array of cubes.
    CubeArray,
}

impl TextureDim {
    /// Every dimension.
    pub const ALL: &'static [TextureDim] = &[
        TextureDim::Tex1D,
        TextureDim::Tex1DArray,
        TextureDim::Tex2D,
        TextureDim::Tex2DArray,
        TextureDim::Tex2DMS,
        TextureDim::Tex2DMSArray,
        TextureDim::Tex3D,
        TextureDim::Cube,
        TextureDim::CubeArray,
    ];

    /// The job file's name (`texture2d`, `texturecubearray`, …).
    pub fn name(self) -> &'static str {
        match self {
            TextureDim::Tex1D => "texture1d",
            TextureDim::Tex1DArray => "texture1darray",
            TextureDim::Tex2D => "texture2d",
            TextureDim::Tex2DArray => "texture2darray",
            TextureDim::Tex2DMS => "texture2dms",
            TextureDim::Tex2DMSArray => "texture2dmsarray",
            TextureDim::Tex3D => "texture3d",
            TextureDim::Cube => "texturecube",
            TextureDim::CubeArray => "texturecubearray",
        }
    }

    /// The dimension with the job file's name.
    pub fn from_name(name: &str) -> Option<TextureDim> {
        TextureDim::ALL.iter().copied().find(|d| d.name() == name)
    }

    /// Whether the shape has array slices (cubes count: their faces are slices).
    pub fn is_array(self) -> bool {
        matches!(
            self,
            TextureDim::Tex1DArray
                | TextureDim::Tex2DArray
                | TextureDim::Tex2DMSArray
                | TextureDim::CubeArray
        )
    }

    /// Whether the shape is multisampled.
    pub fn is_multisampled(self) -> bool {
        matches!(self, TextureDim::Tex2DMS | TextureDim::Tex2DMSArray)
    }

    /// Whether the shape is a cube or cube array.
    pub fn is_cube(self) -> bool {
        matches!(self, TextureDim::Cube | TextureDim::CubeArray)
    }

    /// Number of texel coordinates (1, 2 or 3), not counting the array index.
    pub fn coord_count(self) -> usize {
        match self {
            TextureDim::Tex1D | TextureDim::Tex1DArray => 1,
            TextureDim::Tex3D | TextureDim::Cube | TextureDim::CubeArray => 3,
            _ => 2,
        }
    }
}

/// A texture's description (`D3D12_RESOURCE_DESC` terms).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct TextureDesc {
    /// Shape.
    pub dim: TextureDim,
    /// Texel format.
    pub format: Format,
    /// Width of mip 0.
    pub width: u32,
    /// Height of mip 0 (1 for 1D).
    pub height: u32,
    /// Depth of mip 0 (3D) or number of array slices (faces for cubes).
    pub depth_or_array_size: u32,
    /// Number of mips.
    pub mips: u32,
    /// Samples per texel (1 unless multisampled).
    pub samples: u32,
}

/// The largest width, height or depth accepted (D3D12's 16384 texel limit).
pub const MAX_TEXTURE_DIMENSION: u32 = 16384;

/// The most array slices accepted (D3D12's 2048).
pub const MAX_ARRAY_SIZE: u32 = 2048;

impl TextureDesc {
    /// A 2D texture with one mip.
    pub fn tex2d(format: Format, width: u32, height: u32) -> TextureDesc {
        TextureDesc {
            dim: TextureDim::Tex2D,
            format,
            width,
            height,
            depth_or_array_size: 1,
            mips: 1,
            samples: 1,
        }
    }

    /// Number of array slices (1 for 3D textures).
    pub fn array_size(&self) -> u32 {
        if self.dim == TextureDim::Tex3D {
            1
        } else {
            self.depth_or_array_size
        }
    }

    /// Size of mip `m`: `[width, height, depth]`, each at least 1.
    pub fn mip_size(&self, m: u32) -> [u32; 3] {
        let d = if self.dim == TextureDim::Tex3D {
            self.depth_or_array_size
        } else {
            1
        };
        let s = |v: u32| v.checked_shr(m).unwrap_or(0).max(1);
        [s(self.width), s(self.height), s(d)]
    }

    /// Bytes of one subresource at mip `m` (all samples; whole blocks for
    /// block-compressed formats).
    pub fn subresource_bytes(&self, m: u32) -> u64 {
        let [w, h, d] = self.mip_size(m);
        let b = self.format.block_size();
        let (w, h) = (w.div_ceil(b), h.div_ceil(b));
        u64::from(w)
            * u64::from(h)
            * u64::from(d)
            * u64::from(self.samples.max(1))
            * u64::from(self.format.bytes_per_texel())
    }

    /// Total bytes of all subresources.
    pub fn total_bytes(&self) -> u64 {
        let per_slice: u64 = (0..self.mips).map(|m| self.subresource_bytes(m)).sum();
        per_slice.saturating_mul(u64::from(self.array_size()))
    }

    /// Checks the description: sizes within D3D12's limits, a supported format, a mip
    /// count the size allows, samples only for multisampled shapes, whole cubes.
    pub fn validate(&self) -> Result<(), ResourceError> {
        let bad = |m: String| Err(ResourceError::BadTexture(m));
        if !self.format.is_supported() && !self.format.is_block_compressed() {
            return Err(ResourceError::UnsupportedFormat(self.format));
        }
        if self.format.is_block_compressed()
            && (self.dim.is_multisampled()
                || matches!(self.dim, TextureDim::Tex1D | TextureDim::Tex1DArray))
        {
            return bad(format!(
                "{} cannot be block-compressed ({}): BC formats are for 2D, cube and 3D textures",
                self.dim.name(),
                self.format
            ));
        }
        let [w, h, d] = [self.width, self.height, self.depth_or_array_size];
        if w == 0 || h == 0 || d == 0 {
            return bad(format!("zero size {w}×{h}×{d}"));
        }
        if w > MAX_TEXTURE_DIMENSION || h > MAX_TEXTURE_DIMENSION {
            return bad(format!("size {w}×{h} past {MAX_TEXTURE_DIMENSION}"));
        }
        let is3d = self.dim == TextureDim::Tex3D;
        if (is3d && d > MAX_TEXTURE_DIMENSION) || (!is3d && d > MAX_ARRAY_SIZE) {
            return bad(format!("depth or array size {d} too large"));
        }
        if matches!(self.dim, TextureDim::Tex1D | TextureDim::Tex1DArray) && h != 1 {
            return bad(format!("a 1D texture has height {h}"));
        }
        if !self.dim.is_array() && !is3d && !self.dim.is_cube() && d != 1 {
            return bad(format!("{} with array size {d}", self.dim.name()));
        }
        if self.dim.is_cube() {
            if w != h {
                return bad(format!("cube faces {w}×{h} are not square"));
            }
            if d % 6 != 0 || (self.dim == TextureDim::Cube && d != 6) {
                return bad(format!("cube texture with {d} faces"));
            }
        }
        let longest = if is3d { w.max(h).max(d) } else { w.max(h) };
        let max_mips = 32 - longest.leading_zeros();
        if self.mips == 0 || self.mips > max_mips {
            return bad(format!("{} mips for size {w}×{h}×{d}", self.mips));
        }
        if self.dim.is_multisampled() {
            if ![1, 2, 4, 8, 16].contains(&self.samples) {
                return bad(format!("{} samples", self.samples));
            }
            if self.mips != 1 {
                return bad("a multisampled texture has more than one mip".into());
            }
        } else if self.samples != 1 {
            return bad(format!("{} samples on {}", self.samples, self.dim.name()));
        }
        let total = self.total_bytes();
        if total > MAX_MEMORY_BYTES {
            return Err(ResourceError::TooLarge {
                bytes: total,
                limit: MAX_MEMORY_BYTES,
            });
        }
        Ok(())
    }
}

/// A texture: its description and memory. Clones share the memory.
#[derive(Debug, Clone, PartialEq)]
pub struct Texture {
    desc: TextureDesc,
    memory: Memory,
    offsets: Arc<[u64]>,
}

impl Texture {
    /// A zeroed texture.
    pub fn new(desc: TextureDesc) -> Result<Texture, ResourceError> {
        desc.validate()?;
        let memory = Memory::zeroed(desc.total_bytes())?;
        Ok(Self::with_memory(desc, memory))
    }

    /// A texture holding `bytes`: every subresource tightly packed in subresource order
    /// (see the module doc). Shorter data leaves the rest zero; longer data is an error.
    pub fn from_bytes(desc: TextureDesc, bytes: &[u8]) -> Result<Texture, ResourceError> {
        desc.validate()?;
        let total = desc.total_bytes();
        if bytes.len() as u64 > total {
            return Err(ResourceError::DataTooLong {
                given: bytes.len() as u64,
                size: total,
            });
        }
        let memory = Memory::zeroed(total)?;
        memory.write_bytes(0, bytes);
        Ok(Self::with_memory(desc, memory))
    }

    fn with_memory(desc: TextureDesc, memory: Memory) -> Texture {
        let mut offsets = Vec::with_capacity((desc.mips * desc.array_size()) as usize);
        let mut at = 0u64;
        for _ in 0..desc.array_size() {
            for m in 0..desc.mips {
                offsets.push(at);
                at += desc.subresource_bytes(m);
            }
        }
        Texture {
            desc,
            memory,
            offsets: offsets.into(),
        }
    }

    /// The description.
    pub fn desc(&self) -> &TextureDesc {
        &self.desc
    }

    /// The same texels read and written as `format` (a view's format: D3D12's
    /// `D3D12_RENDER_TARGET_VIEW_DESC::Format` of a typeless resource, or an sRGB view of
    /// a UNORM one), sharing this texture's memory. `None` when `format`'s texels are
    /// another size or block shape.
    pub fn with_format(&self, format: Format) -> Option<Texture> {
        if format.bytes_per_texel() != self.desc.format.bytes_per_texel()
            || format.block_family() != self.desc.format.block_family()
        {
            return None;
        }
        Some(Texture {
            desc: TextureDesc {
                format,
                ..self.desc
            },
            memory: self.memory.clone(),
            offsets: self.offsets.clone(),
        })
    }

    /// The memory (all subresources).
    pub fn memory(&self) -> &Memory {
        &self.memory
    }

    /// Subresource (`mip`, `slice`) of a 2D texture (single or multisampled, an array or
    /// not) as a texture of its own: one mip of one slice, the mip's size, sharing this
    /// texture's memory — what a render-target or depth-stencil view of one
    /// subresource (`MipSlice`, `FirstArraySlice`) lets a draw write. Its texel
    /// addresses are addresses in the whole memory, so writes land in the subresource.
    /// `None` for another shape or a subresource outside the texture.
    pub fn subresource(&self, mip: u32, slice: u32) -> Option<Texture> {
        let dim = match self.desc.dim {
            TextureDim::Tex2D | TextureDim::Tex2DArray => TextureDim::Tex2D,
            TextureDim::Tex2DMS | TextureDim::Tex2DMSArray => TextureDim::Tex2DMS,
            _ => return None,
        };
        let at = self.subresource_offset(mip, slice)?;
        let [width, height, _] = self.desc.mip_size(mip);
        Some(Texture {
            desc: TextureDesc {
                dim,
                width,
                height,
                depth_or_array_size: 1,
                mips: 1,
                ..self.desc
            },
            memory: self.memory.clone(),
            offsets: Arc::from([at].as_slice()),
        })
    }

    /// Slices `first .. first + count` of mip `mip` as one texture of their own, sharing
    /// this texture's memory: what a render-target or depth-stencil view of several
    /// slices lets a draw write. Of a 2D texture or array (multisampled or not) the
    /// slices are array slices, as they are of a cube or cube array (its faces); of a
    /// 3D texture they are the mip's W slices
    /// (`FirstWSlice`, `WSize`), each a plane of the mip. One slice gives a 2D (or 2D
    /// multisampled) texture, as [`Texture::subresource`]; more give a 2D array whose
    /// slice `k` is slice `first + k`. `None` for another shape, an empty range or one
    /// outside the texture.
    pub fn target_view(&self, mip: u32, first: u32, count: u32) -> Option<Texture> {
        let end = first.checked_add(count)?;
        if count == 0 || mip >= self.desc.mips {
            return None;
        }
        let [width, height, depth] = self.desc.mip_size(mip);
        let (offsets, ms) = match self.desc.dim {
            // A cube's faces are slices of a 2D array resource (D3D12: `TextureCube` is a
            // view dimension, not a resource's).
            TextureDim::Tex2D
            | TextureDim::Tex2DArray
            | TextureDim::Tex2DMS
            | TextureDim::Tex2DMSArray
            | TextureDim::Cube
            | TextureDim::CubeArray => {
                if end > self.desc.array_size() {
                    return None;
                }
                let offsets = (first..end)
                    .map(|k| self.subresource_offset(mip, k))
                    .collect::<Option<Vec<u64>>>()?;
                (offsets, self.desc.dim.is_multisampled())
            }
            TextureDim::Tex3D if !self.desc.format.is_block_compressed() => {
                if end > depth {
                    return None;
                }
                let base = self.subresource_offset(mip, 0)?;
                let plane = u64::from(width)
                    * u64::from(height)
                    * u64::from(self.desc.format.bytes_per_texel());
                let offsets = (first..end)
                    .map(|w| base + u64::from(w) * plane)
                    .collect::<Vec<u64>>();
                (offsets, false)
            }
            _ => return None,
        };
        let dim = match (count > 1, ms) {
            (false, false) => TextureDim::Tex2D,
            (false, true) => TextureDim::Tex2DMS,
            (true, false) => TextureDim::Tex2DArray,
            (true, true) => TextureDim::Tex2DMSArray,
        };
        Some(Texture {
            desc: TextureDesc {
                dim,
                width,
                height,
                depth_or_array_size: count,
                mips: 1,
                ..self.desc
            },
            memory: self.memory.clone(),
            offsets: Arc::from(offsets.as_slice()),
        })
    }

    /// A copy of all bytes, in subresource order.
    pub fn to_bytes(&self) -> Vec<u8> {
        self.memory.to_bytes()
    }

    /// The byte address of texel `(x, y, z)`, sample `s`, of mip `mip` of slice `slice`,
    /// or `None` when any index is out of range. For block-compressed formats, the
    /// address of the block holding the texel.
    #[inline]
    pub fn texel_addr(&self, mip: u32, slice: u32, [x, y, z]: [u32; 3], s: u32) -> Option<u64> {
        if mip >= self.desc.mips || slice >= self.desc.array_size() || s >= self.desc.samples {
            return None;
        }
        let [w, h, d] = self.desc.mip_size(mip);
        if x >= w || y >= h || z >= d {
            return None;
        }
        let base = *self.offsets.get((mip + slice * self.desc.mips) as usize)?;
        if self.desc.format.is_block_compressed() {
            let (bw, bh) = (u64::from(w.div_ceil(4)), u64::from(h.div_ceil(4)));
            let index = (u64::from(z) * bh + u64::from(y / 4)) * bw + u64::from(x / 4);
            return Some(base + index * u64::from(self.desc.format.bytes_per_texel()));
        }
        let index = ((u64::from(s) * u64::from(d) + u64::from(z)) * u64::from(h) + u64::from(y))
            * u64::from(w)
            + u64::from(x);
        Some(base + index * u64::from(self.desc.format.bytes_per_texel()))
    }

    /// The byte offset in [`Texture::memory`] of the subresource at texture mip `mip` of
    /// array slice `slice`; `None` when either is out of range.
    #[inline]
    pub fn subresource_offset(&self, mip: u32, slice: u32) -> Option<u64> {
        if mip >= self.desc.mips || slice >= self.desc.array_size() {
            return None;
        }
        let index = u64::from(mip) + u64::from(slice) * u64::from(self.desc.mips);
        self.offsets.get(usize::try_from(index).ok()?).copied()
    }

    /// Reads the raw bytes of one texel into `out` (its length is the texel size).
    #[inline]
    fn read_texel(&self, addr: u64, out: &mut [u8]) -> bool {
        self.memory.read_bytes(addr, out)
    }
}

/// A view of a texture: a shape, a format of the same texel size, and mip and slice
/// ranges (`D3D12_SHADER_RESOURCE_VIEW_DESC` / `D3D12_UNORDERED_ACCESS_VIEW_DESC`).
/// For cube views, `first_slice` and `array_size` count faces.
#[derive(Debug, Clone, PartialEq)]
pub struct TextureView {
    /// The texture.
    pub texture: Texture,
    /// The view's shape.
    pub dim: TextureDim,
    /// The view's format (same texel size as the texture's).
    pub format: Format,
    /// First mip the view sees (its mip 0).
    pub most_detailed_mip: u32,
    /// Number of mips the view sees.
    pub mip_levels: u32,
    /// First array slice (face, for cubes).
    pub first_slice: u32,
    /// Number of array slices (faces, for cubes).
    pub array_size: u32,
}

impl TextureView {
    /// A view of the whole texture with its own shape and format.
    pub fn whole(texture: Texture) -> TextureView {
        let d = *texture.desc();
        TextureView {
            texture,
            dim: d.dim,
            format: d.format,
            most_detailed_mip: 0,
            mip_levels: d.mips,
            first_slice: 0,
            array_size: d.array_size(),
        }
    }

    /// Checks that the view fits its texture.
    pub fn validate(&self) -> Result<(), ResourceError> {
        let d = self.texture.desc();
        let bad = |m: String| Err(ResourceError::BadView(m));
        if self.format.bytes_per_texel() != d.format.bytes_per_texel()
            || !self.format.is_texture_readable()
            || self.format.block_family() != d.format.block_family()
        {
            return bad(format!(
                "view format {} does not fit texture format {}",
                self.format, d.format
            ));
        }
        let mips_end = self.most_detailed_mip.checked_add(self.mip_levels);
        if self.mip_levels == 0 || mips_end.is_none_or(|e| e > d.mips) {
            return bad(format!(
                "mips {}+{} of a texture with {}",
                self.most_detailed_mip, self.mip_levels, d.mips
            ));
        }
        let slices_end = self.first_slice.checked_add(self.array_size);
        if self.array_size == 0 || slices_end.is_none_or(|e| e > d.array_size()) {
            return bad(format!(
                "slices {}+{} of a texture with {}",
                self.first_slice,
                self.array_size,
                d.array_size()
            ));
        }
        if self.dim.is_cube() && self.array_size % 6 != 0 {
            return bad(format!("cube view of {} faces", self.array_size));
        }
        if self.dim.is_multisampled() != d.dim.is_multisampled() {
            return bad("multisampled view of a single-sampled texture or the reverse".into());
        }
        Ok(())
    }

    /// Size of the view's mip `m` (relative to its most detailed mip).
    pub fn mip_size(&self, m: u32) -> [u32; 3] {
        self.texture
            .desc()
            .mip_size(self.most_detailed_mip.saturating_add(m))
    }

    /// Number of array elements the view has: slices, or cubes for cube arrays.
    pub fn elements(&self) -> u32 {
        match self.dim {
            TextureDim::CubeArray => self.array_size / 6,
            d if d.is_array() => self.array_size,
            _ => 1,
        }
    }

    /// `GetDimensions` for mip `m`: `[width, height, depth or array size, mips or
    /// samples]` as DXIL.rst's table lays them out (components it leaves undefined are 0).
    pub fn dimensions(&self, m: u32) -> [u32; 4] {
        let [w, h, d] = if m < self.mip_levels {
            self.mip_size(m)
        } else {
            [0, 0, 0]
        };
        let mips = self.mip_levels;
        let samples = self.texture.desc().samples;
        match self.dim {
            TextureDim::Tex1D => [w, 0, 0, mips],
            TextureDim::Tex1DArray => [w, self.array_size, 0, mips],
            TextureDim::Tex2D | TextureDim::Cube => [w, h, 0, mips],
            TextureDim::Tex2DArray => [w, h, self.array_size, mips],
            TextureDim::CubeArray => [w, h, self.elements(), mips],
            TextureDim::Tex3D => [w, h, d, mips],
            TextureDim::Tex2DMS => [w, h, 0, samples],
            TextureDim::Tex2DMSArray => [w, h, self.array_size, samples],
        }
    }

    /// Splits integer load coordinates by the view's shape into texel coordinates and a
    /// view-relative array slice.
    fn split(&self, c: [u32; 3]) -> ([u32; 3], u32) {
        match self.dim {
            TextureDim::Tex1D => ([c[0], 0, 0], 0),
            TextureDim::Tex1DArray => ([c[0], 0, 0], c[1]),
            TextureDim::Tex2D | TextureDim::Tex2DMS => ([c[0], c[1], 0], 0),
            TextureDim::Tex2DArray | TextureDim::Tex2DMSArray => ([c[0], c[1], 0], c[2]),
            TextureDim::Tex3D => (c, 0),
            // Cubes cannot be loaded by coordinates; a face index in coord[2] is
            // accepted the way a 2D array would take it.
            TextureDim::Cube | TextureDim::CubeArray => ([c[0], c[1], 0], c[2]),
        }
    }

    /// The memory address of the texel at integer coordinates `coord` (interpreted by
    /// the view's shape: `[x, slice]` for 1D arrays, `[x, y, slice]` for 2D arrays), view
    /// mip `mip` and sample `sample`; `None` out of bounds.
    pub fn texel_addr(&self, coord: [u32; 3], mip: u32, sample: u32) -> Option<u64> {
        let (xyz, slice) = self.split(coord);
        if mip >= self.mip_levels || slice >= self.array_size {
            return None;
        }
        self.texture.texel_addr(
            self.most_detailed_mip + mip,
            self.first_slice + slice,
            xyz,
            sample,
        )
    }

    /// The address of a texel by absolute view mip, view slice and texel coordinates.
    #[inline]
    pub fn texel_addr_at(&self, mip: u32, slice: u32, xyz: [u32; 3]) -> Option<u64> {
        if mip >= self.mip_levels || slice >= self.array_size {
            return None;
        }
        self.texture.texel_addr(
            self.most_detailed_mip + mip,
            self.first_slice + slice,
            xyz,
            0,
        )
    }

    /// The texel at texel coordinates `xyz` of view mip `mip`, view slice `slice`,
    /// decoded by the view's format (block formats: its block decoded at the texel);
    /// `None` outside the view.
    #[inline]
    pub fn fetch(&self, mip: u32, slice: u32, xyz: [u32; 3]) -> Option<[u32; 4]> {
        let a = self.texel_addr_at(mip, slice, xyz)?;
        Some(self.decode_texel_at(a, xyz))
    }

    /// Decodes the texel at `addr` (the address [`TextureView::texel_addr`] gives for
    /// texel coordinates `xyz`).
    #[inline]
    fn decode_texel_at(&self, addr: u64, xyz: [u32; 3]) -> [u32; 4] {
        if self.format.is_block_compressed() {
            let mut b = [0u8; 16];
            let n = (self.format.bytes_per_texel() as usize).min(16);
            if !self.texture.read_texel(addr, &mut b[..n]) {
                return [0; 4];
            }
            let i = (xyz[0] % 4 + 4 * (xyz[1] % 4)) as usize;
            return self.format.decode_block_texel(&b[..n], i);
        }
        self.decode_at(addr)
    }

    /// Decodes the texel at `addr` by the view's format (not block-compressed formats:
    /// see [`TextureView::fetch`]).
    #[inline]
    pub fn decode_at(&self, addr: u64) -> [u32; 4] {
        let n = self.format.bytes_per_texel() as usize;
        let mut buf = [0u8; 16];
        let b = &mut buf[..n.min(16)];
        if self.texture.read_texel(addr, b) {
            self.format.decode(b)
        } else {
            [0; 4]
        }
    }

    /// Typed load (`Load`, `ld`, `ld_uav_typed`): the texel decoded by the view's format,
    /// `None` out of bounds (the caller returns 0 in every component).
    pub fn load(&self, coord: [u32; 3], mip: u32, sample: u32) -> Option<[u32; 4]> {
        let a = self.texel_addr(coord, mip, sample)?;
        Some(self.decode_texel_at(a, self.split(coord).0))
    }

    /// Typed store (`store_uav_typed`, `TextureStoreSample`) of the components in `mask`
    /// at the view's mip 0, sample `sample` (0 unless multisampled); dropped out of bounds.
    pub fn store(&self, coord: [u32; 3], sample: u32, value: [u32; 4], mask: u8) -> bool {
        if !self.format.is_supported() {
            return false;
        }
        let Some(a) = self.texel_addr(coord, 0, sample) else {
            return false;
        };
        let n = self.format.bytes_per_texel() as usize;
        let mut buf = [0u8; 16];
        let b = &mut buf[..n.min(16)];
        let mem = self.texture.memory();
        if !mem.read_bytes(a, b) {
            return false;
        }
        self.format.encode(value, mask, b);
        mem.write_bytes(a, b)
    }

    /// A 32-bit atomic on the texel at `coord` (R32 formats); returns the old value.
    pub fn atomic(&self, coord: [u32; 3], op: RmwOp, v: u32) -> Option<u32> {
        if self.format.bytes_per_texel() != 4 || !self.format.is_supported() {
            return None;
        }
        let a = self.texel_addr(coord, 0, 0)?;
        self.texture.memory().atomic_u32(a, op, v)
    }

    /// A 32-bit compare-exchange on the texel at `coord`.
    pub fn compare_exchange(&self, coord: [u32; 3], cmp: u32, new: u32) -> Option<u32> {
        if self.format.bytes_per_texel() != 4 || !self.format.is_supported() {
            return None;
        }
        let a = self.texel_addr(coord, 0, 0)?;
        self.texture.memory().compare_exchange_u32(a, cmp, new)
    }

    /// A 64-bit atomic on the texel at `coord` (R32G32_UINT / R64 formats).
    pub fn atomic64(&self, coord: [u32; 3], op: RmwOp, v: u64) -> Option<u64> {
        if self.format.bytes_per_texel() != 8 || !self.format.is_supported() {
            return None;
        }
        let a = self.texel_addr(coord, 0, 0)?;
        self.texture.memory().atomic_u64(a, op, v)
    }

    /// A 64-bit compare-exchange on the texel at `coord`.
    pub fn compare_exchange64(&self, coord: [u32; 3], cmp: u64, new: u64) -> Option<u64> {
        if self.format.bytes_per_texel() != 8 || !self.format.is_supported() {
            return None;
        }
        let a = self.texel_addr(coord, 0, 0)?;
        self.texture.memory().compare_exchange_u64(a, cmp, new)
    }
}

/// The standard sample positions of D3D11.3 (`D3D11_STANDARD_MULTISAMPLE_PATTERN`), in
/// 1/16 of a pixel from the pixel centre, for 1, 2, 4, 8 and 16 samples.
pub fn standard_sample_position(count: u32, index: u32) -> Option<[i8; 2]> {
    const P1: &[[i8; 2]] = &[[0, 0]];
    const P2: &[[i8; 2]] = &[[4, 4], [-4, -4]];
    const P4: &[[i8; 2]] = &[[-2, -6], [6, -2], [-6, 2], [2, 6]];
    const P8: &[[i8; 2]] = &[
        [1, -3],
        [-1, 3],
        [5, 1],
        [-3, -5],
        [-5, 5],
        [-7, -1],
        [3, 7],
        [7, -7],
    ];
    const P16: &[[i8; 2]] = &[
        [1, 1],
        [-1, -3],
        [-3, 2],
        [4, -1],
        [-5, -2],
        [2, 5],
        [5, 3],
        [3, -5],
        [-2, 6],
        [0, -7],
        [-4, -6],
        [-6, 4],
        [-8, 0],
        [7, -4],
        [6, 7],
        [-7, -8],
    ];
    let table = match count {
        1 => P1,
        2 => P2,
        4 => P4,
        8 => P8,
        16 => P16,
        _ => return None,
    };
    table.get(index as usize).copied()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn desc(dim: TextureDim, w: u32, h: u32, d: u32, mips: u32) -> TextureDesc {
        TextureDesc {
            dim,
            format: Format::R32_UINT,
            width: w,
            height: h,
            depth_or_array_size: d,
            mips,
            samples: 1,
        }
    }

    /// D3D12 subresource order: mips of slice 0, then slice 1; rows tightly packed.
    #[test]
    fn subresource_layout() {
        let d = desc(TextureDim::Tex2DArray, 4, 2, 2, 2);
        assert_eq!(d.total_bytes(), (8 + 2) * 4 * 2);
        let t = Texture::new(d).unwrap();
        assert_eq!(t.texel_addr(0, 0, [1, 1, 0], 0), Some(5 * 4));
        assert_eq!(t.texel_addr(1, 0, [1, 0, 0], 0), Some(8 * 4 + 4));
        assert_eq!(t.texel_addr(0, 1, [0, 0, 0], 0), Some(10 * 4));
        assert_eq!(t.texel_addr(1, 0, [2, 0, 0], 0), None);
        assert_eq!(t.texel_addr(2, 0, [0, 0, 0], 0), None);
        assert_eq!(t.texel_addr(0, 2, [0, 0, 0], 0), None);
    }

    /// A target view of several slices: slice `k` of the view is slice `first + k` of a
    /// 2D array's mip, or W slice `first + k` of a 3D texture's mip (D3D12's
    /// `D3D12_TEX2D_ARRAY_RTV` and `D3D12_TEX3D_RTV`); ranges outside are refused.
    #[test]
    fn target_views_address_their_slices() {
        let t = Texture::new(desc(TextureDim::Tex2DArray, 4, 2, 3, 2)).unwrap();
        let v = t.target_view(1, 1, 2).unwrap();
        assert_eq!(v.desc().dim, TextureDim::Tex2DArray);
        assert_eq!(
            (v.desc().width, v.desc().height, v.desc().array_size()),
            (2, 1, 2)
        );
        for k in 0..2 {
            assert_eq!(
                v.subresource(0, k).unwrap().texel_addr(0, 0, [1, 0, 0], 0),
                t.texel_addr(1, 1 + k, [1, 0, 0], 0)
            );
        }
        assert_eq!(
            t.target_view(0, 2, 1).unwrap().desc().dim,
            TextureDim::Tex2D
        );
        assert!(t.target_view(0, 2, 2).is_none());
        assert!(t.target_view(2, 0, 1).is_none());
        assert!(t.target_view(0, 0, 0).is_none());
        // A 3D texture 4 × 2 × 4, mip 1 is 2 × 1 × 2: its W slice 1 is the second plane.
        let t3 = Texture::new(desc(TextureDim::Tex3D, 4, 2, 4, 2)).unwrap();
        let v = t3.target_view(1, 0, 2).unwrap();
        assert_eq!(v.desc().array_size(), 2);
        assert_eq!(
            v.subresource(0, 1).unwrap().texel_addr(0, 0, [1, 0, 0], 0),
            t3.texel_addr(1, 0, [1, 0, 1], 0)
        );
        assert!(t3.target_view(1, 1, 2).is_none(), "mip 1 has 2 W slices");
    }

    /// A subresource as a texture of its own addresses the parent's texels: mip 1 of
    /// slice 1 of a 4 × 2 array with 2 mips is 2 × 1 texels from byte (8 + 2 + 8) × 4.
    #[test]
    fn subresource_aliases_its_parent() {
        let t = Texture::new(desc(TextureDim::Tex2DArray, 4, 2, 2, 2)).unwrap();
        let s = t.subresource(1, 1).unwrap();
        assert_eq!((s.desc().width, s.desc().height, s.desc().mips), (2, 1, 1));
        assert_eq!(s.desc().dim, TextureDim::Tex2D);
        assert_eq!(
            s.texel_addr(0, 0, [1, 0, 0], 0),
            t.texel_addr(1, 1, [1, 0, 0], 0)
        );
        assert_eq!(s.texel_addr(0, 0, [2, 0, 0], 0), None);
        s.memory()
            .write_bytes(s.texel_addr(0, 0, [1, 0, 0], 0).unwrap(), &[7, 0, 0, 0]);
        assert_eq!(t.to_bytes()[19 * 4], 7);
        assert!(t.subresource(2, 0).is_none() && t.subresource(0, 2).is_none());
        let v = Texture::new(desc(TextureDim::Tex3D, 4, 4, 4, 1)).unwrap();
        assert!(v.subresource(0, 0).is_none());
    }

    #[test]
    fn validation() {
        assert!(Texture::new(desc(TextureDim::Tex2D, 4, 4, 1, 3)).is_ok());
        assert!(Texture::new(desc(TextureDim::Tex2D, 4, 4, 1, 4)).is_err());
        assert!(Texture::new(desc(TextureDim::Tex2D, 0, 4, 1, 1)).is_err());
        assert!(Texture::new(desc(TextureDim::Cube, 4, 4, 6, 1)).is_ok());
        assert!(Texture::new(desc(TextureDim::Cube, 4, 2, 6, 1)).is_err());
        assert!(Texture::new(desc(TextureDim::CubeArray, 4, 4, 7, 1)).is_err());
        assert!(Texture::new(desc(TextureDim::Tex1D, 4, 2, 1, 1)).is_err());
        let mut bc = desc(TextureDim::Tex1D, 4, 1, 1, 1);
        bc.format = Format::BC1_UNORM;
        assert!(Texture::new(bc).is_err());
        let mut r1 = desc(TextureDim::Tex2D, 4, 4, 1, 1);
        r1.format = Format::R1_UNORM;
        assert!(matches!(
            Texture::new(r1),
            Err(ResourceError::UnsupportedFormat(Format::R1_UNORM))
        ));
        let mut ms = desc(TextureDim::Tex2DMS, 4, 4, 1, 1);
        ms.samples = 3;
        assert!(Texture::new(ms).is_err());
        assert!(Texture::from_bytes(desc(TextureDim::Tex2D, 1, 1, 1, 1), &[0; 5]).is_err());
    }

    #[test]
    fn views_load_store_and_dimensions() {
        let t = Texture::new(desc(TextureDim::Tex2DArray, 4, 4, 3, 2)).unwrap();
        let v = TextureView {
            texture: t.clone(),
            dim: TextureDim::Tex2DArray,
            format: Format::R32_UINT,
            most_detailed_mip: 1,
            mip_levels: 1,
            first_slice: 1,
            array_size: 2,
        };
        v.validate().unwrap();
        assert!(v.store([1, 1, 1], 0, [42, 0, 0, 0], 1));
        assert_eq!(v.load([1, 1, 1], 0, 0), Some([42, 0, 0, 1]));
        assert_eq!(
            t.memory()
                .load_u32(t.texel_addr(1, 2, [1, 1, 0], 0).unwrap()),
            Some(42)
        );
        assert_eq!(v.load([2, 0, 0], 0, 0), None);
        assert_eq!(v.load([0, 0, 2], 0, 0), None);
        assert!(!v.store([0, 0, 2], 0, [1, 0, 0, 0], 1));
        assert_eq!(v.dimensions(0), [2, 2, 2, 1]);
        assert_eq!(v.dimensions(1), [0, 0, 2, 1]);
        let bad = TextureView {
            mip_levels: 2,
            ..v.clone()
        };
        assert!(bad.validate().is_err());
    }

    #[test]
    fn multisampled_planes() {
        let mut d = desc(TextureDim::Tex2DMS, 2, 2, 1, 1);
        d.samples = 4;
        let t = Texture::new(d).unwrap();
        assert_eq!(t.texel_addr(0, 0, [1, 0, 0], 2), Some((2 * 4 + 1) * 4));
        let v = TextureView::whole(t);
        assert_eq!(v.dimensions(0), [2, 2, 0, 4]);
        assert_eq!(v.load([0, 0, 0], 0, 4), None);
    }

    /// D3D11.3 §19.5.1: BC subresources are whole blocks; a mip below 4 texels still
    /// takes one block and reads its top-left texels.
    #[test]
    fn block_layout_and_virtual_sizes() {
        let mut d = desc(TextureDim::Tex2D, 10, 6, 1, 3);
        d.format = Format::BC1_UNORM;
        // mip 0: 3×2 blocks, mip 1 (5×3): 2×1, mip 2 (2×1): 1×1; 8 bytes each.
        assert_eq!(d.subresource_bytes(0), 6 * 8);
        assert_eq!(d.subresource_bytes(1), 2 * 8);
        assert_eq!(d.subresource_bytes(2), 8);
        let mut bytes = vec![0u8; d.total_bytes() as usize];
        // Block (2, 1) of mip 0: all white (c0 = 0xffff, codes 0).
        let at = (3 + 2) * 8;
        bytes[at..at + 2].copy_from_slice(&[0xff, 0xff]);
        // Mip 2's block: c0 = red, codes: texel 1 (x = 1, y = 0) code 1 = c1 = black.
        let at = 8 * 8;
        bytes[at..at + 8].copy_from_slice(&[0x00, 0xf8, 0, 0, 0b0100, 0, 0, 0]);
        let t = Texture::from_bytes(d, &bytes).unwrap();
        let v = TextureView::whole(t);
        v.validate().unwrap();
        let one = 1.0f32.to_bits();
        assert_eq!(v.load([9, 5, 0], 0, 0), Some([one; 4]));
        assert_eq!(v.load([8, 4, 0], 0, 0), Some([one; 4]));
        assert_eq!(v.load([10, 5, 0], 0, 0), None); // past the virtual width
        assert_eq!(v.load([0, 0, 0], 2, 0), Some([one, 0, 0, one]));
        assert_eq!(v.load([1, 0, 0], 2, 0), Some([0, 0, 0, one]));
        assert_eq!(v.load([0, 1, 0], 2, 0), None);
        assert_eq!(v.fetch(2, 0, [1, 0, 0]), Some([0, 0, 0, one]));
        // A view may retype within the family, never across it.
        let mut tv = v.clone();
        tv.format = Format::BC1_UNORM_SRGB;
        tv.validate().unwrap();
        tv.format = Format::R32G32_UINT;
        assert!(tv.validate().is_err());
        tv.format = Format::BC4_UNORM;
        assert!(tv.validate().is_err());
        assert!(!v.store([0, 0, 0], 0, [0; 4], 0xf));
    }

    #[test]
    fn sample_positions() {
        assert_eq!(standard_sample_position(4, 1), Some([6, -2]));
        assert_eq!(standard_sample_position(4, 4), None);
        assert_eq!(standard_sample_position(3, 0), None);
        assert_eq!(standard_sample_position(16, 15), Some([-7, -8]));
    }
}
