//! A draw's render targets and depth-stencil buffer: `[[draw.render_target]]` and
//! `[draw.depth_stencil]` (their keys: `draw`) made into textures, cleared or filled,
//! bound as the draw's views, and written out.
//!
//! Owns: the textures, their clear values and initial texels, counting them against the
//! job's memory limit, and writing a target's `output` and `resolve_output`. Does not
//! own: the `[draw]` schema and its names (`draw`, which also maps the depth-stencil
//! state keys onto `DepthStencilDesc`), or running the draw (`draw_run`).
//!
//! The depth-stencil buffer takes the render targets' size and sample count (or gives
//! `width`, `height`, `samples` itself when the draw has no render target).

use std::path::{Path, PathBuf};

use super::draw::{
    DepthStencilEntry, RenderTargetEntry, depth_stencil_desc, draw_err, format_named,
};
use super::limits::MemoryBudget;
use super::paths::OutputGate;
use super::run::{OutputSummary, stream_output, write_output};
use super::{JobError, data, png};
use crate::pipeline::om::{self, TargetClass};
use crate::pipeline::state::{DepthStencilDesc, DepthStencilView, RenderTargetView};
use crate::resources::{Format, Texture, TextureDesc, TextureDim};

/// A bound render target.
#[derive(Debug, Clone)]
pub struct BoundTarget {
    /// `[[draw.render_target]] #1 (R8G8B8A8_UNORM)`.
    pub name: String,
    /// The view.
    pub view: RenderTargetView,
    /// Output path (resolved against the job folder).
    pub output: Option<PathBuf>,
    /// Resolved-image output path.
    pub resolve_output: Option<PathBuf>,
}

/// The bound depth-stencil buffer.
#[derive(Debug, Clone)]
pub struct BoundDepth {
    /// The view.
    pub view: DepthStencilView,
    /// The state.
    pub desc: DepthStencilDesc,
    /// Output path.
    pub output: Option<PathBuf>,
}

fn is_png(p: &Path) -> bool {
    p.extension().is_some_and(|x| x.eq_ignore_ascii_case("png"))
}

fn texture(format: Format, w: u32, h: u32, samples: u32) -> TextureDesc {
    let mut d = TextureDesc::tex2d(format, w, h);
    if samples > 1 {
        d.dim = TextureDim::Tex2DMS;
        d.samples = samples;
    }
    d
}

/// The bytes of one texel holding `clear` (the format's own numbers).
fn clear_texel(format: Format, clear: [f64; 4]) -> Vec<u8> {
    let integer = om::target_class(format) == Some(TargetClass::Integer);
    let signed = format.channel_type() == crate::resources::ChannelType::SInt;
    let v = clear.map(|c| {
        if !integer {
            (c as f32).to_bits()
        } else if signed {
            (c as i64).clamp(i64::from(i32::MIN), i64::from(i32::MAX)) as i32 as u32
        } else {
            (c as i64).clamp(0, i64::from(u32::MAX)) as u32
        }
    });
    let mut t = vec![0u8; format.bytes_per_texel() as usize];
    format.encode(v, 0xf, &mut t);
    t
}

/// Texels written at once by [`fill`].
const FILL_TEXELS: usize = 4096;

/// Sets every texel of `t` to `texel`, a block of [`FILL_TEXELS`] at a time: the texture
/// is cleared in place, without a temporary of its size (a cleared 2 GiB target needs
/// 2 GiB, not 4).
fn fill(t: &Texture, texel: &[u8]) {
    let total = t.memory().len();
    let step = texel.len().max(1);
    let block = texel.repeat(FILL_TEXELS);
    let mut at = 0u64;
    while at < total {
        let n = ((total - at) as usize).min(block.len()) / step * step;
        if n == 0 {
            break;
        }
        t.memory().write_bytes(at, &block[..n]);
        at += n as u64;
    }
}

/// Makes the render targets, counting each against `memory` (`[options] max_memory`).
pub fn render_targets(
    entries: &[RenderTargetEntry],
    dir: &Path,
    memory: &mut MemoryBudget,
) -> Result<Vec<BoundTarget>, JobError> {
    let mut out = Vec::new();
    for (i, e) in entries.iter().enumerate() {
        let name = format!("[[draw.render_target]] #{} ({})", i + 1, e.format);
        let format = format_named(&name, "format", &e.format)?;
        if om::target_class(format).is_none() {
            return Err(draw_err(
                &name,
                format!("`format`: {format} is not a render-target format"),
            ));
        }
        let samples = e.samples.unwrap_or(1);
        if ![1, 2, 4, 8, 16].contains(&samples) {
            return Err(draw_err(
                &name,
                format!("`samples` {samples}: give 1, 2, 4, 8 or 16"),
            ));
        }
        let desc = texture(format, e.width, e.height, samples);
        desc.validate()
            .map_err(|m| draw_err(&name, format!("{m}")))?;
        memory.take(&name, desc.total_bytes())?;
        let t = match (&e.data, e.clear) {
            (Some(_), Some(_)) => return Err(draw_err(&name, "give `clear` or `data`, not both")),
            (Some(d), None) => {
                let t = Texture::new(desc).map_err(|m| draw_err(&name, m.to_string()))?;
                if let Some(w) = d.fill_u32 {
                    t.memory().fill_words(w);
                } else {
                    // The listed bytes (read no further than the target holds) are
                    // counted while they are copied in; no full-size temporary.
                    let total = desc.total_bytes();
                    let bytes = data::bytes(d, dir, total).map_err(|m| draw_err(&name, m))?;
                    memory.transient(
                        &name,
                        bytes.len() as u64,
                        "the bytes its `data` lists, copied in",
                    )?;
                    if bytes.len() as u64 > total {
                        return Err(draw_err(
                            &name,
                            format!(
                                "`data` holds {} bytes but the target has {total}",
                                bytes.len()
                            ),
                        ));
                    }
                    t.memory().write_bytes(0, &bytes);
                }
                t
            }
            (None, c) => {
                let t = Texture::new(desc).map_err(|m| draw_err(&name, m.to_string()))?;
                let texel = clear_texel(format, c.unwrap_or([0.0; 4]));
                // A new texture is zeroed already: a clear to zero bytes (the default)
                // would write every byte again.
                if texel.iter().any(|&b| b != 0) {
                    fill(&t, &texel);
                }
                t
            }
        };
        for (key, p) in [("output", &e.output), ("resolve_output", &e.resolve_output)] {
            if let Some(p) = p
                && is_png(p)
                && !png::is_png_format(format)
            {
                return Err(draw_err(
                    &name,
                    format!(
                        "`{key}`: a .png needs 8-bit UNORM or sRGB channels, not {format} (write .bin instead)"
                    ),
                ));
            }
        }
        if e.resolve_output.is_some() && samples == 1 {
            return Err(draw_err(
                &name,
                "`resolve_output` is for multisampled targets (`samples` > 1)",
            ));
        }
        out.push(BoundTarget {
            name,
            view: RenderTargetView { texture: t },
            output: e.output.as_ref().map(|p| super::resolve(dir, p)),
            resolve_output: e.resolve_output.as_ref().map(|p| super::resolve(dir, p)),
        });
    }
    Ok(out)
}

/// Makes the depth-stencil buffer, sized like the render targets (`size`: width, height,
/// samples of the first target).
pub fn depth_stencil(
    e: &DepthStencilEntry,
    size: Option<(u32, u32, u32)>,
    dir: &Path,
    memory: &mut MemoryBudget,
) -> Result<BoundDepth, JobError> {
    let t = "[draw.depth_stencil]";
    let format = format_named(t, "format", &e.format)?;
    if om::depth_kind(format).is_none() {
        return Err(draw_err(
            t,
            format!(
                "`format`: {format} is not a depth format (D16_UNORM, D24_UNORM_S8_UINT, D32_FLOAT, D32_FLOAT_S8X24_UINT)"
            ),
        ));
    }
    let (w, h, n) = match (size, e.width, e.height) {
        (Some(s), None, None) if e.samples.is_none() => s,
        (Some(_), ..) => {
            return Err(draw_err(
                t,
                "`width`, `height` and `samples` come from the render targets; leave them out",
            ));
        }
        (None, Some(w), Some(h)) => (w, h, e.samples.unwrap_or(1)),
        (None, ..) => {
            return Err(draw_err(
                t,
                "without render targets, give `width` and `height`",
            ));
        }
    };
    let desc = texture(format, w, h, n);
    desc.validate().map_err(|m| draw_err(t, format!("{m}")))?;
    memory.take(t, desc.total_bytes())?;
    let tex = Texture::new(desc).map_err(|m| draw_err(t, m.to_string()))?;
    if let Some(d) = &e.data {
        // Initial contents, as a texture's `data`: the buffer a draw before this one
        // left, say, instead of a cleared one.
        if e.clear_depth.is_some() || e.clear_stencil.is_some() {
            return Err(draw_err(
                t,
                "give `clear_depth` and `clear_stencil`, or `data`, not both",
            ));
        }
        if let Some(w) = d.fill_u32 {
            tex.memory().fill_words(w);
        } else {
            let total = desc.total_bytes();
            let bytes = data::bytes(d, dir, total).map_err(|m| draw_err(t, m))?;
            memory.transient(
                t,
                bytes.len() as u64,
                "the bytes its `data` lists, copied in",
            )?;
            if bytes.len() as u64 > total {
                return Err(draw_err(
                    t,
                    format!(
                        "`data` holds {} bytes but the buffer has {total}",
                        bytes.len()
                    ),
                ));
            }
            tex.memory().write_bytes(0, &bytes);
        }
    } else {
        let z = e.clear_depth.unwrap_or(1.0);
        if !(0.0..=1.0).contains(&z) {
            return Err(draw_err(
                t,
                format!("`clear_depth` {z}: give a depth in [0, 1]"),
            ));
        }
        let kind = om::depth_kind(format).unwrap_or(om::DepthKind::Float);
        let mut texel = vec![0u8; format.bytes_per_texel() as usize];
        om::TileDepth::encode(
            format,
            om::depth_code(kind, z),
            e.clear_stencil.unwrap_or(0),
            &mut texel,
        );
        fill(&tex, &texel);
    }
    let desc = depth_stencil_desc(e, format)?;
    if let Some(p) = &e.output
        && is_png(p)
    {
        return Err(draw_err(t, "`output`: write depth as .bin"));
    }
    Ok(BoundDepth {
        view: DepthStencilView { texture: tex },
        desc,
        output: e.output.as_ref().map(|p| super::resolve(dir, p)),
    })
}

/// Writes a render target's `output` (`resolve` false) or `resolve_output` (`resolve`
/// true) through `gate`: a `.bin` streams every sample's texels (or the resolved image's)
/// with no copy of the whole; a `.png` holds the image, resolved first when
/// multisampled. The resolved image and the PNG's temporaries are counted against
/// `memory` before they are made.
pub fn write_target(
    gate: &OutputGate,
    memory: &MemoryBudget,
    name: &str,
    t: &Texture,
    path: &Path,
    resolve: bool,
) -> Result<OutputSummary, JobError> {
    let key = if resolve { "resolve_output" } else { "output" };
    let err = |m: String| draw_err(name, format!("`{key}`: {m}"));
    let png = is_png(path);
    let d = t.desc();
    let resolved = if resolve || (png && d.samples > 1) {
        let one = texture(d.format, d.width, d.height, 1);
        memory.transient(name, one.total_bytes(), "its resolved image")?;
        Some(om::resolve(t).map_err(|e| err(e.to_string()))?)
    } else {
        None
    };
    let src = resolved.as_ref().unwrap_or(t);
    if png {
        let held = resolved.as_ref().map_or(0, |r| r.memory().len());
        memory.transient(
            name,
            held.saturating_add(super::image_io::png_work_bytes(src.desc(), 0)),
            "its PNG image while it is made",
        )?;
        let bytes = png::encode(src).map_err(err)?;
        write_output(gate, name, path, &bytes)
    } else {
        stream_output(gate, name, path, src.memory())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A target starts as its `clear` value, zero when it gives none (the clear to zero
    /// bytes is the new texture's own zeroes, not written again); a clear whose bytes are
    /// not all zero, such as a float's −0, is written.
    #[test]
    fn targets_start_as_their_clear_value() {
        let entry = |format: &str, clear: Option<[f64; 4]>| RenderTargetEntry {
            format: format.into(),
            width: 3,
            height: 2,
            clear,
            ..RenderTargetEntry::default()
        };
        let entries = [
            entry("R8G8B8A8_UNORM", None),
            entry("R8G8B8A8_UNORM", Some([0.0; 4])),
            entry("R32_FLOAT", Some([-0.0, 0.0, 0.0, 0.0])),
            entry("R8G8B8A8_UNORM", Some([0.0, 0.0, 0.0, 1.0])),
        ];
        let mut memory = MemoryBudget::new(1 << 20);
        let made = render_targets(&entries, Path::new("."), &mut memory).unwrap();
        let bytes: Vec<Vec<u8>> = made.iter().map(|t| t.view.texture.to_bytes()).collect();
        assert_eq!(bytes[0], vec![0; 24]);
        assert_eq!(bytes[1], vec![0; 24]);
        assert_eq!(bytes[2], [0, 0, 0, 0x80].repeat(6));
        assert_eq!(bytes[3], [0, 0, 0, 0xff].repeat(6));
    }

    /// A clear sets every texel, blocks and a last partial block alike, in place: the
    /// texture's memory is the only copy (issue 30: a full-size temporary of the clear
    /// texel made a cleared target need twice its size).
    #[test]
    fn clears_fill_every_texel_in_place() {
        for (format, w, h, samples) in [
            (Format::R32G32B32A32_FLOAT, 67, 65, 1),
            (Format::R8G8B8A8_UNORM, 4096, 3, 4),
            (Format::R16_UNORM, 5, 5, 1),
        ] {
            let t = Texture::new(texture(format, w, h, samples)).unwrap();
            let texel = clear_texel(format, [0.25, 0.5, 0.75, 1.0]);
            fill(&t, &texel);
            let bytes = t.to_bytes();
            assert_eq!(bytes.len() % texel.len(), 0);
            assert!(
                bytes.chunks_exact(texel.len()).all(|c| c == texel),
                "{format}"
            );
        }
    }
}
