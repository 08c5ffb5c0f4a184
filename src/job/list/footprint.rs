//! Placed-footprint copies: `copy_texture_region` between a texture's subresource and a
//! buffer laid out by a `D3D12_PLACED_SUBRESOURCE_FOOTPRINT`, with the rules D3D12
//! checks refused before the list runs, naming the command and the key.
//!
//! ```toml
//! [[command]]
//! type = "copy_texture_region"
//! dst = "staging"                 # a buffer
//! dst_footprint = { offset = 512, format = "R8G8B8A8_UNORM", width = 4, height = 4, row_pitch = 256 }
//! dst_at = [0, 0, 0]              # DstX, DstY, DstZ inside the footprint
//! src = "color"                   # a texture; src_mip, src_slice, src_box as usual
//! ```
//!
//! Either side may be the buffer (`src_footprint` with `src_box` inside the footprint,
//! or `dst_footprint`), never both: a buffer-to-buffer copy is `copy_buffer_region`.

use serde::{Deserialize, Serialize};

use super::{CommandEntry, Ctx, copy_compatible};
use crate::pipeline::commands::{Command, Footprint, FootprintCopy};
use crate::resources::Format;

/// `D3D12_TEXTURE_DATA_PLACEMENT_ALIGNMENT`: a footprint's offset is a multiple of it.
pub const PLACEMENT_ALIGNMENT: u64 = 512;
/// `D3D12_TEXTURE_DATA_PITCH_ALIGNMENT`: a footprint's row pitch is a multiple of it.
pub const PITCH_ALIGNMENT: u32 = 256;

/// A `D3D12_PLACED_SUBRESOURCE_FOOTPRINT` in a job file.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct FootprintEntry {
    /// `Offset`: bytes from the buffer's start (a multiple of 512; default 0).
    pub offset: Option<u64>,
    /// `Footprint.Format`.
    pub format: String,
    /// `Footprint.Width`, in texels.
    pub width: u32,
    /// `Footprint.Height` (default 1).
    pub height: Option<u32>,
    /// `Footprint.Depth` (default 1).
    pub depth: Option<u32>,
    /// `Footprint.RowPitch`: bytes from one row (of blocks) to the next (a multiple of
    /// 256).
    pub row_pitch: u32,
}

impl Ctx<'_> {
    /// A `copy_texture_region` with `src_footprint` or `dst_footprint`.
    pub(super) fn footprint_copy(&self, e: &CommandEntry) -> Result<Command, String> {
        let d = e.dst.as_ref().ok_or("missing `dst`")?;
        let s = e.src.as_ref().ok_or("missing `src`")?;
        let (to_texture, fe, key, buf, tex) = match (&e.src_footprint, &e.dst_footprint) {
            (Some(f), None) => (true, f, "src_footprint", ("src", s), ("dst", d)),
            (None, Some(f)) => (false, f, "dst_footprint", ("dst", d), ("src", s)),
            _ => {
                return Err(
                    "`src_footprint` and `dst_footprint`: one side is a texture (a buffer-to-buffer copy is `copy_buffer_region`)".into(),
                );
            }
        };
        let (_, buffer) = self.buffer(buf.0, buf.1)?;
        let texture = self.texture(tex.0, tex.1)?;
        let td = *texture.desc();
        if td.samples > 1 {
            return Err(format!(
                "`{}`: \"{}\" is multisampled; D3D12 copies no multisampled subresource to or from a buffer",
                tex.0, tex.1
            ));
        }
        let format = Format::from_name(&fe.format)
            .ok_or_else(|| format!("`{key}`: `format` \"{}\" is not a DXGI format", fe.format))?;
        copy_compatible(format, td.format).map_err(|m| format!("`{key}`: {m}"))?;
        let offset = fe.offset.unwrap_or(0);
        if offset % PLACEMENT_ALIGNMENT != 0 {
            return Err(format!(
                "`{key}`: `offset` {offset} is not a multiple of {PLACEMENT_ALIGNMENT} (D3D12_TEXTURE_DATA_PLACEMENT_ALIGNMENT)"
            ));
        }
        if fe.row_pitch == 0 || fe.row_pitch % PITCH_ALIGNMENT != 0 {
            return Err(format!(
                "`{key}`: `row_pitch` {} is not a non-zero multiple of {PITCH_ALIGNMENT} (D3D12_TEXTURE_DATA_PITCH_ALIGNMENT)",
                fe.row_pitch
            ));
        }
        let (w, h, depth) = (fe.width, fe.height.unwrap_or(1), fe.depth.unwrap_or(1));
        let block = format.block_size().max(1);
        if w == 0 || h == 0 || depth == 0 || (block > 1 && (w % block != 0 || h % block != 0)) {
            return Err(format!(
                "`{key}`: {w}×{h}×{depth}: sizes are non-zero (and whole {block}-texel blocks)"
            ));
        }
        let row_bytes = u64::from(w.div_ceil(block)) * u64::from(format.bytes_per_texel());
        if row_bytes > u64::from(fe.row_pitch) {
            return Err(format!(
                "`{key}`: `row_pitch` {} is less than a row of {w} texels ({row_bytes} bytes)",
                fe.row_pitch
            ));
        }
        let rows = u64::from(h.div_ceil(block));
        let end = offset + (u64::from(depth) * rows - 1) * u64::from(fe.row_pitch) + row_bytes;
        if end > buffer.len() {
            return Err(format!(
                "`{key}`: the footprint ends at byte {end}, past the {} bytes of \"{}\"",
                buffer.len(),
                buf.1
            ));
        }
        let footprint = Footprint {
            offset,
            width: w,
            height: h,
            depth,
            row_pitch: fe.row_pitch,
        };
        let (mip_key, slice_key) = if to_texture {
            (e.dst_mip, e.dst_slice)
        } else {
            (e.src_mip, e.src_slice)
        };
        let (mip, slice) = Self::subresource(&texture, mip_key, slice_key).map_err(|m| {
            m.replace("`mip`", &format!("`{}_mip`", tex.0))
                .replace("`slice`", &format!("`{}_slice`", tex.0))
        })?;
        let ts = td.mip_size(mip);
        let fs = [w, h, depth];
        let (ss, ds) = if to_texture { (fs, ts) } else { (ts, fs) };
        let b = e.src_box.unwrap_or([0, 0, 0, ss[0], ss[1], ss[2]]);
        let at = e.dst_at.unwrap_or([0; 3]);
        for k in 0..3 {
            if b[k] >= b[k + 3] || b[k + 3] > ss[k] {
                return Err(format!(
                    "`src_box` {b:?}: the box must be non-empty and inside the source ({}×{}×{})",
                    ss[0], ss[1], ss[2]
                ));
            }
            if u64::from(at[k]) + u64::from(b[k + 3] - b[k]) > u64::from(ds[k]) {
                return Err(format!(
                    "`dst_at` {at:?}: the {}×{}×{} box does not fit the destination ({}×{}×{})",
                    b[3] - b[0],
                    b[4] - b[1],
                    b[5] - b[2],
                    ds[0],
                    ds[1],
                    ds[2]
                ));
            }
            if k < 2 && block > 1 && (b[k] % block != 0 || at[k] % block != 0) {
                return Err(format!(
                    "`src_box` / `dst_at`: a block-compressed copy starts on a {block}-texel block"
                ));
            }
        }
        Ok(Command::CopyFootprint(Box::new(FootprintCopy {
            texture,
            mip,
            slice,
            buffer,
            footprint,
            to_texture,
            src_box: b,
            dst_at: at,
        })))
    }
}
