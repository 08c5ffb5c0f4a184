//! Diff images of textures and render targets: a heat map of the difference, and the
//! capture, dxlane's result and the heat map side by side.
//!
//! Owns: drawing them as 8-bit RGB PNGs. One pair per plane (subresource, and sample of
//! a multisampled one) that differs; a 3D plane's depth slices are stacked top to
//! bottom. Does not own: where they go (`super::replay`) or what differs
//! ([`super::element`]).
//!
//! # The heat map
//!
//! Each texel takes the colour of its worst component: black where every component is
//! equal, dark grey where bits differ within the tolerance, then by ulps apart on a
//! ramp from blue (1 ulp) through green and yellow to red (2^24 ulps and more), by the
//! same ramp of the integer distance for integer formats, and magenta for a sign of
//! zero, NaN or infinity.
//!
//! # The side-by-side view
//!
//! capture | dxlane | heat map, with a 4-pixel gap. Texels are shown by their first
//! three components as colours: floats and normalized values clamped to [0, 1],
//! integers scaled by their largest value; a one-component format as grey.
//! Alpha is not shown.

use std::path::Path;

use image::{Rgb, RgbImage};
use serde::Serialize;

use super::CaptureError;
use super::compare::Subject;
use super::element::{DiffKind, accepts, difference};
use super::layout::{Layout, Plane};
use crate::job::paths::OutputGate;

/// The most planes drawn per resource.
pub const MAX_PLANES: usize = 16;

/// The most texels a drawn plane may have (larger ones are skipped with a note).
pub const MAX_TEXELS: u64 = 1 << 24;

const GAP: u32 = 4;

/// The images written for one resource.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Default)]
pub struct Images {
    /// Heat maps, one per plane drawn.
    pub diff: Vec<String>,
    /// Side-by-side views, one per plane drawn.
    pub side_by_side: Vec<String>,
}

/// The ramp: 0 → blue, 1 → red, through cyan, green and yellow.
fn ramp(t: f64) -> Rgb<u8> {
    let t = t.clamp(0.0, 1.0) * 4.0;
    let (r, g, b) = match t {
        t if t < 1.0 => (0.0, t, 1.0),
        t if t < 2.0 => (0.0, 1.0, 2.0 - t),
        t if t < 3.0 => (t - 2.0, 1.0, 0.0),
        t => (1.0, 4.0 - t, 0.0),
    };
    let c = |v: f64| (v * 255.0).round() as u8;
    // Keep the lowest step visibly brighter than black.
    Rgb([c(r), c(g).max(if t < 1.0 { 40 } else { 0 }), c(b)])
}

/// Writes the images of every differing plane of `s` into `dir` as `stem.diff.png` and
/// `stem.side.png` (with `.sub<N>` and `.sample<N>` before `.diff` when the resource has
/// several planes). Returns them and notes about planes not drawn.
pub fn write_images(
    s: &Subject<'_>,
    captured: &[u8],
    actual: &[u8],
    gate: &OutputGate,
    dir: &Path,
    stem: &str,
) -> Result<(Images, Vec<String>), CaptureError> {
    let Layout::Texture { planes } = s.layout else {
        return Ok((Images::default(), Vec::new()));
    };
    let mut out = Images::default();
    let mut notes = Vec::new();
    let several = planes.len() > 1;
    let mut drawn = 0;
    for p in planes {
        if p.texels() > MAX_TEXELS {
            notes.push(format!(
                "{stem}: subresource {} is {}×{}×{} texels; diff images are drawn up to {MAX_TEXELS}",
                p.subresource, p.size[0], p.size[1], p.size[2]
            ));
            continue;
        }
        let Some((heat, side)) = draw(s, p, captured, actual) else {
            continue;
        };
        if drawn == MAX_PLANES {
            notes.push(format!(
                "{stem}: diff images drawn for the first {MAX_PLANES} differing planes only"
            ));
            break;
        }
        drawn += 1;
        let name = if several {
            let sample = if planes.iter().any(|q| q.sample > 0) {
                format!(".sample{}", p.sample)
            } else {
                String::new()
            };
            format!("{stem}.sub{}{sample}", p.subresource)
        } else {
            stem.to_string()
        };
        for (img, suffix, list) in [
            (heat, "diff", &mut out.diff),
            (side, "side", &mut out.side_by_side),
        ] {
            // Through the output gate (`job::paths`): inside the images' folder, never
            // through a link.
            let path = gate
                .place(&dir.join(format!("{name}.{suffix}.png")))
                .map_err(CaptureError::Output)?;
            let mut png = Vec::new();
            img.write_to(&mut std::io::Cursor::new(&mut png), image::ImageFormat::Png)
                .map_err(|e| CaptureError::Io {
                    path: path.clone(),
                    message: e.to_string(),
                })?;
            gate.write(&path, &png).map_err(CaptureError::Output)?;
            list.push(path.display().to_string());
        }
    }
    Ok((out, notes))
}

/// The heat map and side-by-side view of one plane, or `None` when nothing in it
/// differs beyond the tolerance.
fn draw(
    s: &Subject<'_>,
    p: &Plane,
    captured: &[u8],
    actual: &[u8],
) -> Option<(RgbImage, RgbImage)> {
    let [w, h, d] = p.size;
    let rows = h.checked_mul(d)?;
    let mut heat = RgbImage::new(w, rows);
    let mut cap = RgbImage::new(w, rows);
    let mut dx = RgbImage::new(w, rows);
    let tb = p.texel_bytes as usize;
    let mut any = false;
    let mut addr = p.memory;
    for row in 0..rows {
        for x in 0..w {
            let at = usize::try_from(addr).ok()?;
            let c = captured.get(at..at + tb).unwrap_or(&[]);
            let a = actual.get(at..at + tb).unwrap_or(&[]);
            let mut worst: Option<Rgb<u8>> = None;
            let mut severity = -1.0f64;
            for comp in s.components {
                let (cv, av) = (comp.read(c), comp.read(a));
                let Some(diff) = difference(comp.kind, cv, av) else {
                    continue;
                };
                let (sev, colour) = if accepts(s.tolerance, s.nan, comp.kind, &diff) {
                    (0.0, Rgb([60, 60, 60]))
                } else {
                    any = true;
                    match diff.kind {
                        DiffKind::Ulp => {
                            let u = diff.ulp.unwrap_or(1).max(1) as f64;
                            let t = u.log2() / 24.0;
                            (1.0 + t, ramp(t))
                        }
                        DiffKind::Integer => {
                            let t = diff.abs.unwrap_or(1.0).max(1.0).log2() / 24.0;
                            (1.0 + t, ramp(t))
                        }
                        _ => (3.0, Rgb([255, 0, 255])),
                    }
                };
                if sev > severity {
                    severity = sev;
                    worst = Some(colour);
                }
            }
            heat.put_pixel(x, row, worst.unwrap_or(Rgb([0, 0, 0])));
            cap.put_pixel(x, row, shown(s, c));
            dx.put_pixel(x, row, shown(s, a));
            addr += tb as u64;
        }
    }
    if !any {
        return None;
    }
    let mut side = RgbImage::from_pixel(w * 3 + GAP * 2, rows, Rgb([128, 128, 128]));
    for (i, img) in [&cap, &dx, &heat].into_iter().enumerate() {
        let x0 = i as u32 * (w + GAP);
        for (x, y, px) in img.enumerate_pixels() {
            side.put_pixel(x0 + x, y, *px);
        }
    }
    Some((heat, side))
}

/// A texel as a colour (see the module doc).
fn shown(s: &Subject<'_>, texel: &[u8]) -> Rgb<u8> {
    let mut rgb = [0u8; 3];
    let comps: Vec<_> = s.components.iter().filter(|c| c.channel < 3).collect();
    for (i, c) in comps.iter().enumerate().take(3) {
        let v = c.read(texel);
        let x = if c.kind.is_integer() {
            let max = if c.bits >= 32 {
                u32::MAX as f64
            } else {
                ((1u64 << c.bits) - 1) as f64
            };
            c.value(v).abs() / max
        } else {
            c.value(v)
        };
        let x = if x.is_nan() { 0.0 } else { x.clamp(0.0, 1.0) };
        rgb[i] = (x * 255.0).round() as u8;
    }
    if comps.len() == 1 {
        rgb = [rgb[0]; 3];
    }
    Rgb(rgb)
}

#[cfg(test)]
mod tests {
    use super::super::element::{Naming, NanRule, components};
    use super::super::layout::{LayoutSpec, Shape};
    use super::*;
    use crate::resources::format::Tolerance;
    use crate::resources::{Format, TextureDesc};

    #[test]
    fn a_differing_row_is_drawn_and_equal_planes_are_not() {
        let d = TextureDesc::tex2d(Format::R8G8B8A8_UNORM, 4, 3);
        let shape = Shape::Texture(d);
        let layout = Layout::plan(&shape, &LayoutSpec::default()).unwrap();
        let comps = components(&[Format::R8G8B8A8_UNORM], Naming::Color).unwrap();
        let s = Subject {
            layout: &layout,
            shape: &shape,
            components: &comps,
            element_bytes: 4,
            tolerance: Tolerance::Exact,
            nan: NanRule::Exact,
        };
        let a = vec![100u8; 48];
        let Layout::Texture { planes } = &layout else {
            panic!()
        };
        assert!(draw(&s, &planes[0], &a, &a).is_none());
        let mut c = a.clone();
        for x in 0..4 {
            c[16 + x * 4] = 101; // row 1, red off by one code
        }
        let (heat, side) = draw(&s, &planes[0], &c, &a).unwrap();
        assert_eq!(heat.get_pixel(0, 0), &Rgb([0, 0, 0]));
        assert_eq!(heat.get_pixel(2, 1), &ramp(0.0));
        assert_eq!(side.width(), 4 * 3 + 2 * GAP);
        assert_eq!(side.get_pixel(0, 1), &Rgb([101, 100, 100]));
    }

    #[test]
    fn the_ramp_runs_blue_to_red() {
        assert_eq!(ramp(0.0).0[2], 255);
        assert_eq!(ramp(1.0), Rgb([255, 0, 0]));
    }
}
