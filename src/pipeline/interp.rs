//! Attribute interpolation: where in a pixel an input is evaluated, and the weights of the
//! primitive's vertices there.
//!
//! # Rules (D3D11.3 §16.4 "Rasterizer / Pixel Shader Attribute Interpolation Modes", §3.5.5 "Centroid Sampling of Attributes")
//!
//! - `linear` (perspective-correct): the screen-space weights `σᵢ` of the original
//!   vertices divided by their clip w and renormalised, `Wᵢ = (σᵢ/wᵢ) / Σₖ (σₖ/wₖ)`.
//!   `noperspective`: `Wᵢ = σᵢ`. Computed in f64 and rounded once to f32, which is within
//!   the spec's interpolation precision.
//! - `nointerpolation` (and every integer input): the provoking vertex's value, the first
//!   vertex of the primitive (D3D's leading vertex).
//! - Locations: the pixel centre (`x + ½, y + ½`); `sample`: sample `i`'s standard position
//!   (the pixel stage runs per sample); `centroid`: the centre when every sample is
//!   covered, otherwise the covered sample of lowest index — the standard patterns list
//!   samples by increasing distance from the centre, so that is the covered sample closest
//!   to it (D3D11.3 §3.5.5 "Centroid Sampling of Attributes").
//! - `eval_snapped`: the centre moved by signed 4-bit sixteenths of a pixel;
//!   `eval_sample_index` with an index past the pattern: the centre.
//! - `SV_Position`: x, y the location; z the depth plane there (bias included, clamped to
//!   the viewport's depth range); w the interpolated clip w, `1 / Σᵢ σᵢ/wᵢ` (D3D gives w,
//!   not 1/w as Vulkan's `FragCoord.w` does).

use super::raster::Pattern;
use super::setup::Prim;

/// A location in a pixel, in pixels from the render target's origin.
pub type Location = [f64; 2];

/// The pixel centre.
pub fn centre(px: u32, py: u32) -> Location {
    [f64::from(px) + 0.5, f64::from(py) + 0.5]
}

/// Sample `i`'s location (the centre when `i` is past the pattern).
pub fn sample(pattern: &Pattern, px: u32, py: u32, i: u32) -> Location {
    let c = centre(px, py);
    match pattern.position_at(px, py, i) {
        Some([dx, dy]) => [c[0] + f64::from(dx), c[1] + f64::from(dy)],
        None => c,
    }
}

/// The centroid location of a pixel with covered samples `mask` (see the module doc).
pub fn centroid(pattern: &Pattern, px: u32, py: u32, mask: u32) -> Location {
    if mask == pattern.all() || mask == 0 {
        centre(px, py)
    } else {
        sample(pattern, px, py, mask.trailing_zeros())
    }
}

/// The centre moved by `(ox, oy)` sixteenths (low 4 bits, signed).
pub fn snapped(px: u32, py: u32, ox: u32, oy: u32) -> Location {
    let s = |v: u32| f64::from(((v << 28) as i32) >> 28) / 16.0;
    let c = centre(px, py);
    [c[0] + s(ox), c[1] + s(oy)]
}

/// The weights of the primitive's original vertices at `at`.
pub fn weights(prim: &Prim, at: Location, perspective: bool) -> [f64; 3] {
    let s = prim.sigma.map(|p| p.at(at[0], at[1]));
    if !perspective {
        return s;
    }
    let q = [
        s[0] * prim.inv_w[0],
        s[1] * prim.inv_w[1],
        s[2] * prim.inv_w[2],
    ];
    let sum = q[0] + q[1] + q[2];
    if sum == 0.0 || !sum.is_finite() {
        return s;
    }
    [q[0] / sum, q[1] / sum, q[2] / sum]
}

/// The interpolated clip w at `at`.
pub fn clip_w(prim: &Prim, at: Location) -> f32 {
    let s = prim.sigma.map(|p| p.at(at[0], at[1]));
    let q = s[0] * prim.inv_w[0] + s[1] * prim.inv_w[1] + s[2] * prim.inv_w[2];
    (1.0 / q) as f32
}

/// Interpolates float words `a` (one per original vertex, as bits) with `w`.
#[inline]
pub fn mix(w: &[f64; 3], a: [u32; 3]) -> u32 {
    let v = w[0] * f64::from(f32::from_bits(a[0]))
        + w[1] * f64::from(f32::from_bits(a[1]))
        + w[2] * f64::from(f32::from_bits(a[2]));
    (v as f32).to_bits()
}

/// [`weights`] of one primitive at each location of `at`, vertex `k`'s weight at lane
/// `l` into `out[k][l]`, the same bits as [`weights`] lane by lane: the same operations
/// in the same order, the renormalisation's fallback a select instead of a branch. A
/// loop the compiler runs several lanes at a time (`ps::weights_wide`).
#[inline(always)]
pub fn weights_lanes(prim: &Prim, at: &[Location], perspective: bool, out: [&mut [f64]; 3]) {
    let [o0, o1, o2] = out;
    let n = at.len().min(o0.len()).min(o1.len()).min(o2.len());
    let (at, o0, o1, o2) = (&at[..n], &mut o0[..n], &mut o1[..n], &mut o2[..n]);
    let [p0, p1, p2] = prim.sigma;
    if !perspective {
        for l in 0..n {
            let [x, y] = at[l];
            o0[l] = p0.at(x, y);
            o1[l] = p1.at(x, y);
            o2[l] = p2.at(x, y);
        }
        return;
    }
    let iw = prim.inv_w;
    for l in 0..n {
        let [x, y] = at[l];
        let s = [p0.at(x, y), p1.at(x, y), p2.at(x, y)];
        let q = [s[0] * iw[0], s[1] * iw[1], s[2] * iw[2]];
        let sum = q[0] + q[1] + q[2];
        let plain = sum == 0.0 || !sum.is_finite();
        o0[l] = if plain { s[0] } else { q[0] / sum };
        o1[l] = if plain { s[1] } else { q[1] / sum };
        o2[l] = if plain { s[2] } else { q[2] / sum };
    }
}

/// [`mix`] of the same three words `a` with each lane's weights (`w[k][l]`, as
/// [`weights_lanes`] leaves them) into `out[l]`, the same bits as [`mix`] lane by lane.
#[inline(always)]
pub fn mix_lanes(w: [&[f64]; 3], a: [u32; 3], out: &mut [u32]) {
    let [w0, w1, w2] = w;
    let n = out.len().min(w0.len()).min(w1.len()).min(w2.len());
    let (w0, w1, w2, out) = (&w0[..n], &w1[..n], &w2[..n], &mut out[..n]);
    let a = a.map(|b| f64::from(f32::from_bits(b)));
    for l in 0..n {
        let v = w0[l] * a[0] + w1[l] * a[1] + w2[l] * a[2];
        out[l] = (v as f32).to_bits();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::setup::{Plane, Shape};

    fn prim(inv_w: [f64; 3]) -> Prim {
        // σ over x only: vertex 0 at x = 0, vertex 1 at x = 1, vertex 2 weight 0.
        Prim {
            shape: Shape::Square {
                x0: 0,
                y0: 0,
                x1: 0,
                y1: 0,
            },
            bbox: [0, 0, 1, 1],
            sigma: [
                Plane {
                    c: 1.0,
                    dx: -1.0,
                    dy: 0.0,
                },
                Plane {
                    c: 0.0,
                    dx: 1.0,
                    dy: 0.0,
                },
                Plane::default(),
            ],
            inv_w,
            z: Plane::default(),
            verts: [0, 1, 2],
            id: 0,
            front: true,
            viewport: 0,
            slice: 0,
        }
    }

    /// Perspective-correct: halfway on screen between w = 1 and w = 3 is a quarter of the
    /// way in clip space; noperspective is halfway.
    #[test]
    fn perspective_correction() {
        let p = prim([1.0, 1.0 / 3.0, 1.0]);
        let w = weights(&p, [0.5, 0.0], true);
        assert!((w[1] - 0.25).abs() < 1e-12, "{w:?}");
        assert_eq!(weights(&p, [0.5, 0.0], false)[1], 0.5);
        assert_eq!(clip_w(&p, [0.5, 0.0]), 1.5);
        assert_eq!(
            mix(&[0.25, 0.75, 0.0], [0, 4.0f32.to_bits(), 0]),
            3.0f32.to_bits()
        );
    }

    /// D3D11.3 centroid rule: full coverage → centre; otherwise the first covered sample.
    #[test]
    fn centroid_and_snapped_locations() {
        let p4 = Pattern::standard(4).unwrap();
        assert_eq!(centroid(&p4, 2, 3, 0b1111), [2.5, 3.5]);
        assert_eq!(
            centroid(&p4, 0, 0, 0b1100),
            [0.5 - 6.0 / 16.0, 0.5 + 2.0 / 16.0]
        );
        assert_eq!(snapped(0, 0, 0xf, 7), [0.5 - 1.0 / 16.0, 0.5 + 7.0 / 16.0]);
        assert_eq!(sample(&p4, 0, 0, 9), [0.5, 0.5]);
    }
}
