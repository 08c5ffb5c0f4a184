//! A capture's resource layout: which part of a resource a capture file holds, and where
//! each of its bytes lies in the file, as a Direct3D 12 readback lays it out.
//!
//! Owns: the shape of its memory in
//! dxlane ([`Shape`]), the placed footprints of its subresources in the file
//! ([`Layout::plan`]), and moving bytes between a capture file and dxlane's packing
//! ([`Layout::unpack`], [`Layout::pack`]). Does not own: reading the files (`super`) or
//! comparing values ([`super::element`]).
//!
//! # Rules
//!
//! - dxlane holds a texture's subresources tightly packed in D3D12 subresource order
//!   (index = mip + slice × mips): rows of width × texel bytes; a multisampled texture
//!   holds one plane per sample, sample-major. That packing (`layout = "tight"`, the
//!   default) is what `dxlane run` writes, so its `.bin` outputs are captures of
//!   themselves.
//! - `layout = "d3d12"` is what `ID3D12Device::GetCopyableFootprints` gives and an
//!   ordinary `CopyTextureRegion` into a readback buffer produces: each row padded to a
//!   multiple of 256 bytes (`D3D12_TEXTURE_DATA_PITCH_ALIGNMENT`), a depth slice every
//!   `row_pitch × height` bytes, each subresource placed at a multiple of 512 bytes
//!   (`D3D12_TEXTURE_DATA_PLACEMENT_ALIGNMENT`). D3D12 cannot copy a multisampled
//!   resource to a buffer; a harness copies each sample plane out itself, and dxlane
//!   reads sample planes as it reads subresources: one after the other, each at a
//!   512-byte boundary.
//! - `row_pitch`, `depth_pitch`, `sample_pitch` (bytes from one row, depth slice or
//!   sample plane to the next) and `file_offset` (where the data begins) describe any
//!   other single footprint; they apply to a texture with one subresource or to an entry
//!   that names its `subresource`.
//! - A file may be exactly as long as the layout's last byte (what
//!   `GetCopyableFootprints` calls `TotalBytes`: the last row unpadded) or as long as its
//!   padded footprint (the last row padded to `row_pitch` too); any other length is
//!   refused, naming both.
//! - Buffers are bytes: an entry holds `bytes` bytes of the resource from byte `offset`
//!   (default: all of it), starting at `file_offset` in the file.

use crate::job::BufferRead;
use crate::resources::TextureDesc;

/// `D3D12_TEXTURE_DATA_PITCH_ALIGNMENT`: readback rows are padded to this many bytes.
pub const ROW_PITCH_ALIGNMENT: u64 = 256;

/// `D3D12_TEXTURE_DATA_PLACEMENT_ALIGNMENT`: each subresource of a readback starts at a
/// multiple of this many bytes.
pub const PLACEMENT_ALIGNMENT: u64 = 512;

/// The shape of a resource's memory in dxlane.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Shape {
    /// A buffer of `bytes` bytes, viewed from byte `view_offset`.
    Buffer {
        /// Bytes of memory.
        bytes: u64,
        /// How its view reads it.
        shape: BufferRead,
        /// First byte of the view (element indices count from here).
        view_offset: u64,
    },
    /// A texture (also render targets and depth-stencil buffers).
    Texture(TextureDesc),
}

/// How a capture file packs a texture's subresources.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum Packing {
    /// dxlane's own: tight rows, subresources back to back.
    #[default]
    Tight,
    /// `GetCopyableFootprints`: rows padded to 256 bytes, subresources at 512 bytes.
    D3d12,
}

/// What a capture entry says about its layout (every key optional).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct LayoutSpec {
    /// `layout`.
    pub packing: Packing,
    /// `file_offset`: where the data begins in the file.
    pub file_offset: u64,
    /// `row_pitch`.
    pub row_pitch: Option<u64>,
    /// `depth_pitch`.
    pub depth_pitch: Option<u64>,
    /// `sample_pitch`.
    pub sample_pitch: Option<u64>,
    /// `subresource`: the one subresource the file holds (textures).
    pub subresource: Option<u32>,
    /// `offset`: the first byte of the resource the file holds (buffers).
    pub offset: Option<u64>,
    /// `bytes`: how many bytes of the resource the file holds (buffers).
    pub bytes: Option<u64>,
}

/// One plane of texels in a capture: one sample of one subresource.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Plane {
    /// D3D12 subresource index (mip + slice × mips).
    pub subresource: u32,
    /// Mip level.
    pub mip: u32,
    /// Array slice (cube face for cubes).
    pub slice: u32,
    /// Sample (0 unless multisampled).
    pub sample: u32,
    /// Width, height and depth of the mip.
    pub size: [u32; 3],
    /// Bytes per texel.
    pub texel_bytes: u32,
    /// Byte address of texel (0, 0, 0) of this plane in dxlane's memory.
    pub memory: u64,
    /// Byte of the file where texel (0, 0, 0) is.
    pub file: u64,
    /// Bytes from one row to the next in the file.
    pub row_pitch: u64,
    /// Bytes from one depth slice to the next in the file.
    pub depth_pitch: u64,
}

impl Plane {
    /// Bytes of one tight row.
    pub fn row_bytes(&self) -> u64 {
        u64::from(self.size[0]) * u64::from(self.texel_bytes)
    }

    /// Texels in the plane.
    pub fn texels(&self) -> u64 {
        u64::from(self.size[0]) * u64::from(self.size[1]) * u64::from(self.size[2])
    }

    /// The file byte of row `y` of depth slice `z`.
    fn file_row(&self, y: u32, z: u32) -> u64 {
        self.file + u64::from(z) * self.depth_pitch + u64::from(y) * self.row_pitch
    }

    /// The memory byte of row `y` of depth slice `z`.
    fn memory_row(&self, y: u32, z: u32) -> u64 {
        self.memory + (u64::from(z) * u64::from(self.size[1]) + u64::from(y)) * self.row_bytes()
    }

    /// The file's last byte of this plane plus one: tight (last row unpadded) and padded
    /// (last row padded to the row pitch).
    fn file_ends(&self) -> (u64, u64) {
        let [_, h, d] = self.size;
        let last_slice = self.file + u64::from(d - 1) * self.depth_pitch;
        let tight = last_slice + u64::from(h - 1) * self.row_pitch + self.row_bytes();
        (tight, last_slice + u64::from(h) * self.row_pitch)
    }
}

/// Where each captured byte lies in the file and in dxlane's memory.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Layout {
    /// `bytes` bytes of a buffer from byte `offset`, at `file` in the file.
    Buffer {
        /// First byte of the resource captured.
        offset: u64,
        /// Bytes captured.
        bytes: u64,
        /// Where they begin in the file.
        file: u64,
    },
    /// Planes of a texture.
    Texture {
        /// The planes, in file order.
        planes: Vec<Plane>,
    },
}

/// The sizes a capture file may have (see the module doc).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FileSize {
    /// Up to the layout's last byte.
    pub tight: u64,
    /// Up to the end of its padded footprint.
    pub padded: u64,
}

fn align(v: u64, a: u64) -> Option<u64> {
    v.checked_add(a - 1).map(|x| x / a * a)
}

fn overflow() -> String {
    "the layout's sizes overflow 64 bits".into()
}

impl Layout {
    /// The layout `spec` describes for a resource of `shape`. Errors name the key.
    pub fn plan(shape: &Shape, spec: &LayoutSpec) -> Result<Layout, String> {
        match shape {
            Shape::Buffer { bytes: size, .. } => {
                for (key, v) in [
                    ("row_pitch", spec.row_pitch),
                    ("depth_pitch", spec.depth_pitch),
                    ("sample_pitch", spec.sample_pitch),
                ] {
                    if v.is_some() {
                        return Err(format!("`{key}` applies to textures; this is a buffer"));
                    }
                }
                if spec.subresource.is_some() {
                    return Err("`subresource` applies to textures; this is a buffer".into());
                }
                if spec.packing != Packing::Tight {
                    return Err("`layout` applies to textures; a buffer is its bytes".into());
                }
                let offset = spec.offset.unwrap_or(0);
                if offset > *size {
                    return Err(format!(
                        "`offset` {offset} is past the buffer's {size} bytes"
                    ));
                }
                let bytes = spec.bytes.unwrap_or(size - offset);
                if bytes == 0 {
                    return Err("`bytes` is 0: the entry captures nothing".into());
                }
                if bytes > size - offset {
                    return Err(format!(
                        "`offset` {offset} + `bytes` {bytes} is past the buffer's {size} bytes"
                    ));
                }
                Ok(Layout::Buffer {
                    offset,
                    bytes,
                    file: spec.file_offset,
                })
            }
            Shape::Texture(desc) => Self::plan_texture(desc, spec),
        }
    }

    fn plan_texture(desc: &TextureDesc, spec: &LayoutSpec) -> Result<Layout, String> {
        if spec.offset.is_some() || spec.bytes.is_some() {
            return Err(
                "`offset` and `bytes` apply to buffers; name a texture's part with `subresource`"
                    .into(),
            );
        }
        let mips = desc.mips.max(1);
        let count = u64::from(mips) * u64::from(desc.array_size());
        let subs: Vec<u32> = match spec.subresource {
            Some(s) if u64::from(s) >= count => {
                return Err(format!(
                    "`subresource` {s}: the texture has {count} (mips × slices)"
                ));
            }
            Some(s) => vec![s],
            None => (0..count as u32).collect(),
        };
        let explicit =
            spec.row_pitch.is_some() || spec.depth_pitch.is_some() || spec.sample_pitch.is_some();
        if explicit && subs.len() != 1 {
            return Err(format!(
                "`row_pitch`, `depth_pitch` and `sample_pitch` describe one subresource; the texture has {} (name one with `subresource`, or use `layout = \"d3d12\"`)",
                subs.len()
            ));
        }
        let texel = u64::from(desc.format.bytes_per_texel());
        let samples = desc.samples.max(1);
        let mut planes = Vec::new();
        let mut at = spec.file_offset;
        for &sub in &subs {
            let (mip, slice) = (sub % mips, sub / mips);
            let size = desc.mip_size(mip);
            let [w, h, d] = size.map(u64::from);
            let row_bytes = w * texel;
            let row_pitch = match (spec.row_pitch, spec.packing) {
                (Some(p), _) => p,
                (None, Packing::Tight) => row_bytes,
                (None, Packing::D3d12) => {
                    align(row_bytes, ROW_PITCH_ALIGNMENT).ok_or_else(overflow)?
                }
            };
            if row_pitch < row_bytes {
                return Err(format!(
                    "`row_pitch` {row_pitch} is shorter than a row ({w} texels × {texel} bytes = {row_bytes})"
                ));
            }
            let slice_bytes = row_pitch.checked_mul(h).ok_or_else(overflow)?;
            let depth_pitch = spec.depth_pitch.unwrap_or(slice_bytes);
            if d > 1 && depth_pitch < slice_bytes {
                return Err(format!(
                    "`depth_pitch` {depth_pitch} is shorter than a depth slice ({h} rows × {row_pitch} bytes = {slice_bytes})"
                ));
            }
            let plane_bytes = depth_pitch.checked_mul(d).ok_or_else(overflow)?;
            let sample_pitch = spec.sample_pitch.unwrap_or(plane_bytes);
            if samples > 1 && sample_pitch < plane_bytes {
                return Err(format!(
                    "`sample_pitch` {sample_pitch} is shorter than a sample plane ({d} × {depth_pitch} bytes = {plane_bytes})"
                ));
            }
            let base = memory_base(desc, sub);
            let per_sample = w * h * d * texel;
            for s in 0..samples {
                let file = if spec.packing == Packing::D3d12 && !explicit {
                    align(at, PLACEMENT_ALIGNMENT).ok_or_else(overflow)?
                } else if explicit {
                    spec.file_offset
                        .checked_add(
                            sample_pitch
                                .checked_mul(u64::from(s))
                                .ok_or_else(overflow)?,
                        )
                        .ok_or_else(overflow)?
                } else {
                    at
                };
                planes.push(Plane {
                    subresource: sub,
                    mip,
                    slice,
                    sample: s,
                    size,
                    texel_bytes: texel as u32,
                    memory: base + u64::from(s) * per_sample,
                    file,
                    row_pitch,
                    depth_pitch,
                });
                at = file.checked_add(plane_bytes).ok_or_else(overflow)?;
            }
        }
        Ok(Layout::Texture { planes })
    }

    /// The lengths a file holding this layout may have.
    pub fn file_size(&self) -> FileSize {
        match self {
            Layout::Buffer { bytes, file, .. } => FileSize {
                tight: file + bytes,
                padded: file + bytes,
            },
            Layout::Texture { planes } => {
                let mut s = FileSize {
                    tight: 0,
                    padded: 0,
                };
                for p in planes {
                    let (t, q) = p.file_ends();
                    s.tight = s.tight.max(t);
                    s.padded = s.padded.max(q);
                }
                s
            }
        }
    }

    /// Checks a file's length against the layout; the error says what the layout needs.
    pub fn check_file_len(&self, len: u64) -> Result<(), String> {
        let s = self.file_size();
        if len == s.tight || len == s.padded {
            return Ok(());
        }
        let needs = if s.tight == s.padded {
            format!("{} bytes", s.tight)
        } else {
            format!(
                "{} bytes (to the last row) or {} (with the last row padded)",
                s.tight, s.padded
            )
        };
        let what = if len < s.tight {
            self.first_missing(len)
        } else {
            format!(
                "{} bytes past the layout's end",
                len - s.padded.max(s.tight)
            )
        };
        Err(format!("is {len} bytes; the layout needs {needs}: {what}"))
    }

    /// Words naming what the first missing byte of a file `len` bytes long would hold.
    fn first_missing(&self, len: u64) -> String {
        match self {
            Layout::Buffer { offset, file, .. } => format!(
                "byte {len} of the file would hold byte {} of the resource",
                offset + len.saturating_sub(*file)
            ),
            Layout::Texture { planes } => {
                for p in planes {
                    for z in 0..p.size[2] {
                        for y in 0..p.size[1] {
                            let start = p.file_row(y, z);
                            if start + p.row_bytes() > len {
                                let mut at = format!(
                                    "subresource {} (mip {}, slice {})",
                                    p.subresource, p.mip, p.slice
                                );
                                if p.sample > 0 || planes.iter().any(|q| q.sample > 0) {
                                    at.push_str(&format!(", sample {}", p.sample));
                                }
                                let depth = if p.size[2] > 1 {
                                    format!(" of depth slice {z}")
                                } else {
                                    String::new()
                                };
                                return format!(
                                    "the file ends at byte {len}, inside row {y}{depth} of {at}, which takes bytes {start}..{}",
                                    start + p.row_bytes()
                                );
                            }
                        }
                    }
                }
                format!("the file ends at byte {len}")
            }
        }
    }

    /// The captured bytes of `file` in dxlane's packing: a buffer of `memory_bytes`
    /// bytes where the captured bytes sit at their addresses (the rest zero). The file's
    /// length must have passed [`Layout::check_file_len`].
    pub fn unpack(&self, file: &[u8], memory_bytes: u64) -> Result<Vec<u8>, String> {
        let n =
            usize::try_from(memory_bytes).map_err(|_| "the resource is too large".to_string())?;
        let mut out = zeroed(n)?;
        self.copy_in(&mut out, file)?;
        Ok(out)
    }

    /// The file this layout describes, made from a resource's bytes in dxlane's packing
    /// (padding bytes zero, padded to the full footprint when `padded`).
    pub fn pack(&self, memory: &[u8], padded: bool) -> Result<Vec<u8>, String> {
        let s = self.file_size();
        let len = if padded { s.padded } else { s.tight };
        let n = usize::try_from(len).map_err(|_| "the capture is too large".to_string())?;
        let mut out = zeroed(n)?;
        self.copy_out(memory, &mut out)?;
        Ok(out)
    }

    fn rows(&self) -> Vec<(u64, u64, u64)> {
        // (file byte, memory byte, length) of every contiguous run.
        match self {
            Layout::Buffer {
                offset,
                bytes,
                file,
            } => vec![(*file, *offset, *bytes)],
            Layout::Texture { planes } => {
                let mut v = Vec::new();
                for p in planes {
                    for z in 0..p.size[2] {
                        for y in 0..p.size[1] {
                            v.push((p.file_row(y, z), p.memory_row(y, z), p.row_bytes()));
                        }
                    }
                }
                v
            }
        }
    }

    fn copy_in(&self, memory: &mut [u8], file: &[u8]) -> Result<(), String> {
        for (f, m, n) in self.rows() {
            let src =
                range(file, f, n).ok_or_else(|| format!("the file has no bytes {f}..{}", f + n))?;
            let dst = range_mut(memory, m, n)
                .ok_or_else(|| format!("memory bytes {m}..{} are past the resource", m + n))?;
            dst.copy_from_slice(src);
        }
        Ok(())
    }

    fn copy_out(&self, memory: &[u8], file: &mut [u8]) -> Result<(), String> {
        for (f, m, n) in self.rows() {
            let src = range(memory, m, n)
                .ok_or_else(|| format!("memory bytes {m}..{} are past the resource", m + n))?;
            let dst = range_mut(file, f, n)
                .ok_or_else(|| format!("the file has no bytes {f}..{}", f + n))?;
            dst.copy_from_slice(src);
        }
        Ok(())
    }

    /// Bytes of the resource the layout covers.
    pub fn captured_bytes(&self) -> u64 {
        match self {
            Layout::Buffer { bytes, .. } => *bytes,
            Layout::Texture { planes } => planes
                .iter()
                .map(|p| p.texels() * u64::from(p.texel_bytes))
                .sum(),
        }
    }
}

fn range(b: &[u8], at: u64, n: u64) -> Option<&[u8]> {
    let s = usize::try_from(at).ok()?;
    let e = s.checked_add(usize::try_from(n).ok()?)?;
    b.get(s..e)
}

fn range_mut(b: &mut [u8], at: u64, n: u64) -> Option<&mut [u8]> {
    let s = usize::try_from(at).ok()?;
    let e = s.checked_add(usize::try_from(n).ok()?)?;
    b.get_mut(s..e)
}

/// Byte address of subresource `sub` in dxlane's packing (subresources in order, each
/// all its samples).
fn memory_base(desc: &TextureDesc, sub: u32) -> u64 {
    let mips = desc.mips.max(1);
    (0..sub).map(|k| desc.subresource_bytes(k % mips)).sum()
}

/// `n` zero bytes, allocated fallibly: a refusal is an error, not an abort.
fn zeroed(n: usize) -> Result<Vec<u8>, String> {
    let mut v = Vec::new();
    v.try_reserve_exact(n)
        .map_err(|_| format!("cannot reserve {n} bytes"))?;
    v.resize(n, 0);
    Ok(v)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::resources::{Format, Texture, TextureDim};

    fn tex(format: Format, w: u32, h: u32, mips: u32, slices: u32) -> TextureDesc {
        TextureDesc {
            dim: if slices > 1 {
                TextureDim::Tex2DArray
            } else {
                TextureDim::Tex2D
            },
            format,
            width: w,
            height: h,
            depth_or_array_size: slices,
            mips,
            samples: 1,
        }
    }

    /// dxlane's packing is the texture's own memory order (`Texture::texel_addr`).
    #[test]
    fn tight_planes_sit_where_the_texture_keeps_them() {
        let d = tex(Format::R8G8B8A8_UNORM, 5, 3, 2, 2);
        let t = Texture::new(d).unwrap();
        let Layout::Texture { planes } =
            Layout::plan(&Shape::Texture(d), &LayoutSpec::default()).unwrap()
        else {
            panic!()
        };
        assert_eq!(planes.len(), 4);
        for p in &planes {
            assert_eq!(Some(p.memory), t.texel_addr(p.mip, p.slice, [0, 0, 0], 0));
            assert_eq!(p.file, p.memory);
        }
        let l = Layout::Texture { planes };
        assert_eq!(l.file_size().tight, d.total_bytes());
    }

    /// D3D12 GetCopyableFootprints: rows to 256 bytes, subresources at 512 bytes; its
    /// TotalBytes stops at the last row's data.
    #[test]
    fn d3d12_footprints_pad_rows_to_256_and_place_at_512() {
        let d = tex(Format::R32_FLOAT, 10, 4, 2, 1);
        let spec = LayoutSpec {
            packing: Packing::D3d12,
            ..LayoutSpec::default()
        };
        let l = Layout::plan(&Shape::Texture(d), &spec).unwrap();
        let Layout::Texture { planes } = &l else {
            panic!()
        };
        assert_eq!((planes[0].file, planes[0].row_pitch), (0, 256));
        // Mip 0 takes 4 × 256 = 1024 bytes; mip 1 (5 × 2) starts at 1024, already aligned.
        assert_eq!((planes[1].file, planes[1].row_pitch), (1024, 256));
        assert_eq!(l.file_size().tight, 1024 + 256 + 20);
        assert_eq!(l.file_size().padded, 1024 + 512);
        // A 3-row mip 0 of 256 bytes each ends at 768: mip 1 goes to 1024.
        let d = tex(Format::R32_FLOAT, 10, 3, 2, 1);
        let Layout::Texture { planes } = Layout::plan(&Shape::Texture(d), &spec).unwrap() else {
            panic!()
        };
        assert_eq!(planes[1].file, 1024);
    }

    /// Padded rows read back to the same texels, and the padding is ignored.
    #[test]
    fn padded_rows_round_trip() {
        let d = tex(Format::R16G16_UINT, 7, 3, 1, 1);
        let mem: Vec<u8> = (0..d.total_bytes()).map(|i| (i * 7 + 1) as u8).collect();
        let spec = LayoutSpec {
            packing: Packing::D3d12,
            ..LayoutSpec::default()
        };
        let l = Layout::plan(&Shape::Texture(d), &spec).unwrap();
        for padded in [false, true] {
            let mut file = l.pack(&mem, padded).unwrap();
            l.check_file_len(file.len() as u64).unwrap();
            file[28] = 0xee; // padding after row 0
            assert_eq!(l.unpack(&file, d.total_bytes()).unwrap(), mem);
        }
    }

    #[test]
    fn files_of_the_wrong_length_are_refused_naming_the_row() {
        let d = tex(Format::R32_FLOAT, 4, 4, 1, 1);
        let spec = LayoutSpec {
            row_pitch: Some(256),
            ..LayoutSpec::default()
        };
        let l = Layout::plan(&Shape::Texture(d), &spec).unwrap();
        let e = l.check_file_len(700).unwrap_err();
        assert!(e.contains("row 3") && e.contains("bytes 768..784"), "{e}");
        let e = l.check_file_len(2000).unwrap_err();
        assert!(e.contains("past the layout's end"), "{e}");
        assert!(l.check_file_len(3 * 256 + 16).is_ok());
        assert!(l.check_file_len(4 * 256).is_ok());
    }

    #[test]
    fn bad_pitches_and_keys_are_refused() {
        let d = tex(Format::R32_FLOAT, 100, 4, 2, 1);
        let s = Shape::Texture(d);
        let e = |spec: LayoutSpec| Layout::plan(&s, &spec).unwrap_err();
        assert!(
            e(LayoutSpec {
                row_pitch: Some(256),
                ..Default::default()
            })
            .contains("name one with `subresource`")
        );
        assert!(
            e(LayoutSpec {
                row_pitch: Some(100),
                subresource: Some(0),
                ..Default::default()
            })
            .contains("shorter than a row")
        );
        assert!(
            e(LayoutSpec {
                subresource: Some(2),
                ..Default::default()
            })
            .contains("has 2")
        );
        assert!(
            e(LayoutSpec {
                bytes: Some(4),
                ..Default::default()
            })
            .contains("buffers")
        );
        let b = Shape::Buffer {
            bytes: 64,
            shape: BufferRead::Raw,
            view_offset: 0,
        };
        assert!(
            Layout::plan(
                &b,
                &LayoutSpec {
                    offset: Some(60),
                    bytes: Some(8),
                    ..Default::default()
                }
            )
            .unwrap_err()
            .contains("past the buffer")
        );
        assert!(
            Layout::plan(
                &b,
                &LayoutSpec {
                    row_pitch: Some(256),
                    ..Default::default()
                }
            )
            .is_err()
        );
        assert!(
            Layout::plan(
                &b,
                &LayoutSpec {
                    row_pitch: Some(u64::MAX),
                    subresource: Some(0),
                    ..Default::default()
                }
            )
            .is_err()
        );
    }

    /// Huge pitches overflow into an error, never a panic.
    #[test]
    fn huge_pitches_are_an_error() {
        let d = TextureDesc {
            dim: TextureDim::Tex3D,
            depth_or_array_size: 8,
            ..tex(Format::R32_FLOAT, 4, 4, 1, 1)
        };
        let spec = LayoutSpec {
            row_pitch: Some(u64::MAX / 2),
            ..LayoutSpec::default()
        };
        assert!(
            Layout::plan(&Shape::Texture(d), &spec)
                .unwrap_err()
                .contains("overflow")
        );
    }

    proptest::proptest! {
        /// Any layout keys on any texture shape: planned or refused, never a panic; a
        /// planned layout packs and unpacks back to the captured bytes.
        #[test]
        fn any_keys_plan_or_refuse(
            w in 1u32..40, h in 1u32..9, mips in 1u32..4, slices in 1u32..3,
            d3d12: bool, sub in proptest::option::of(0u32..8),
            row in proptest::option::of(0u64..2000), depth in proptest::option::of(0u64..5000),
            file_offset in 0u64..600, extra in 0u64..3,
        ) {
            let mips = mips.min(32 - w.max(h).leading_zeros());
            let d = tex(Format::R16G16_UINT, w, h, mips, slices);
            let spec = LayoutSpec {
                packing: if d3d12 { Packing::D3d12 } else { Packing::Tight },
                file_offset,
                row_pitch: row,
                depth_pitch: depth,
                subresource: sub,
                ..LayoutSpec::default()
            };
            if let Ok(l) = Layout::plan(&Shape::Texture(d), &spec) {
                let size = l.file_size();
                assert!(size.tight <= size.padded);
                let _ = l.check_file_len(size.tight.saturating_sub(extra));
                let mem: Vec<u8> = (0..d.total_bytes()).map(|i| i as u8).collect();
                let file = l.pack(&mem, false).unwrap();
                let back = l.unpack(&file, d.total_bytes()).unwrap();
                if let Layout::Texture { planes } = &l {
                    for p in planes {
                        let at = p.memory as usize;
                        let n = p.row_bytes() as usize;
                        assert_eq!(&back[at..at + n], &mem[at..at + n]);
                    }
                }
            }
        }
    }

    /// MSAA sample planes follow one another; dxlane keeps them sample-major.
    #[test]
    fn sample_planes() {
        let d = TextureDesc {
            dim: TextureDim::Tex2DMS,
            samples: 4,
            ..tex(Format::R8G8B8A8_UNORM, 3, 2, 1, 1)
        };
        let t = Texture::new(d).unwrap();
        let spec = LayoutSpec {
            packing: Packing::D3d12,
            ..LayoutSpec::default()
        };
        let Layout::Texture { planes } = Layout::plan(&Shape::Texture(d), &spec).unwrap() else {
            panic!()
        };
        assert_eq!(planes.len(), 4);
        for p in &planes {
            assert_eq!(Some(p.memory), t.texel_addr(0, 0, [0, 0, 0], p.sample));
            assert_eq!(p.file, u64::from(p.sample) * 512);
        }
    }
}
