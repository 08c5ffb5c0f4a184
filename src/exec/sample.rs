//! Sampling instructions: `sample` (every mode), `gather`, `lod`, and sampler feedback
//! (`write_feedback`).
//!
//! Filtering itself is `resources::sample`; this file gathers each lane's inputs. Coordinates
//! are packed as the IR states: the view's texel coordinates (u; u, v; u, v, w; or the cube
//! direction), then the array index. Implicit-LOD modes take the gradients from the lane's
//! quad with **coarse** derivatives (d/dx from the quad's top row, d/dy from its left
//! column, so the four lanes of a quad share one LOD — the D3D11.3 "2×2 stamp" model; in
//! compute these are SM 6.6 compute quads). A null or wrong-kind texture samples zeros; a
//! null sampler behaves as the default sampler state.
//!
//! When every active lane samples one texture through one sampler, and a
//! [`SamplerSite`] covers the pair (2D float formats without comparison, see
//! `resources::sample_site`), the descriptors are resolved and the site prepared once
//! for the wave, and the gradient LOD is worked out once per quad (the four lanes share
//! their coarse gradients); the results are the same bits as the per-lane path.

use crate::ir::{DerivKind, Reg, SampleArgs, SampleMode};
use crate::resources::sample::{
    Lod, SampleInput, calculate_lod, gather as gather_texels, gather_raw as gather_texels_raw,
    sample as sample_texels,
};
use crate::resources::sample_site::{LaneScratch, MipChoice, SamplerSite, SiteLod};
use crate::resources::{Descriptor, SamplerDesc, TextureView};

use super::Ctx;
use super::float;
use super::resource::reg_or_zero;
use super::wave::{Wave, lanes};
use super::wave_ops::derivative;

fn f(x: u32) -> f32 {
    f32::from_bits(x)
}

/// Per-lane values of up to four registers (`_` reads 0).
fn regs4<const W: usize>(regs: &[[u32; W]], r: &[Reg]) -> [[u32; W]; 4] {
    let mut out = [[0u32; W]; 4];
    for (i, x) in r.iter().enumerate().take(4) {
        out[i] = reg_or_zero(regs, *x);
    }
    out
}

/// Coarse gradients of the first three coordinates.
fn quad_gradients<const W: usize>(c: &[[u32; W]; 4], ftz: bool) -> ([[u32; W]; 3], [[u32; W]; 3]) {
    let mut dx = [[0u32; W]; 3];
    let mut dy = [[0u32; W]; 3];
    for k in 0..3 {
        dx[k] = derivative(DerivKind::CoarseX, &c[k], ftz);
        dy[k] = derivative(DerivKind::CoarseY, &c[k], ftz);
    }
    (dx, dy)
}

fn sampler_of(d: &Descriptor) -> SamplerDesc {
    match d {
        Descriptor::Sampler(s) => *s,
        _ => SamplerDesc::default(),
    }
}

/// Stores four per-lane results to the registers that are not `_`, and the status.
fn finish<const W: usize>(w: &mut Wave<W>, dst: &[Reg; 4], status: Reg, out: &[[u32; W]; 4]) {
    for (i, d) in dst.iter().enumerate() {
        if !d.is_none() {
            w.ex.store(&mut w.regs, *d, &out[i]);
        }
    }
    if !status.is_none() {
        w.ex.store(&mut w.regs, status, &[1; W]);
    }
}

/// The coarse derivatives d/dx and d/dy of `v` in the quad whose first lane is `q`:
/// what [`derivative`] gives each of the quad's lanes.
#[inline(always)]
fn coarse<const W: usize>(v: &[u32; W], q: usize, ftz: bool) -> (u32, u32) {
    let at = |i: usize| v[i.min(W - 1)];
    let sub = |a: u32, b: u32| {
        if ftz {
            float::sub::<true>(a, b)
        } else {
            float::sub::<false>(a, b)
        }
    };
    (sub(at(q + 1), at(q)), sub(at(q + 2), at(q)))
}

/// A wave's lanes grouped by the mips their LOD chose: consecutive lanes with the same
/// choice are sampled together by [`SamplerSite::sample_lanes`], and lanes with the same
/// LOD, bias and clamp as the previous ones (a quad's four, with an implicit LOD) reuse
/// its choice instead of making it again.
#[derive(Default)]
struct Groups {
    /// The last LOD, bias and clamp (bits, with the LOD's kind) and what they chose.
    last: Option<([u32; 4], MipChoice)>,
    /// The open group: its choice and lanes.
    pending: Option<(MipChoice, u128)>,
}

impl Groups {
    /// Adds `lanes`, which sample with this LOD and minimum-LOD clamp; samples the open
    /// group first when their choice differs from it.
    #[allow(clippy::too_many_arguments)]
    fn add<const W: usize>(
        &mut self,
        site: &SamplerSite<'_>,
        lod: SiteLod,
        min_lod_clamp: f32,
        lanes: u128,
        coords: [&[u32; W]; 3],
        offset: [i32; 3],
        out: &mut [[u32; W]; 4],
        scratch: &mut LaneScratch<W>,
    ) {
        let key = match lod {
            SiteLod::Level(l) => [0, l.to_bits(), 0, min_lod_clamp.to_bits()],
            SiteLod::Gradient { lod, bias } => {
                [1, lod.to_bits(), bias.to_bits(), min_lod_clamp.to_bits()]
            }
        };
        let choice = match self.last {
            Some((k, c)) if k == key => c,
            _ => {
                let c = site.choose(lod, min_lod_clamp);
                self.last = Some((key, c));
                c
            }
        };
        match &mut self.pending {
            Some((p, set)) if *p == choice => *set |= lanes,
            _ => {
                if let Some((p, set)) = self.pending.replace((choice, lanes)) {
                    site.sample_lanes(p, coords, set, offset, out, scratch);
                }
            }
        }
    }

    /// Samples the open group.
    fn flush<const W: usize>(
        &mut self,
        site: &SamplerSite<'_>,
        coords: [&[u32; W]; 3],
        offset: [i32; 3],
        out: &mut [[u32; W]; 4],
        scratch: &mut LaneScratch<W>,
    ) {
        if let Some((p, set)) = self.pending.take() {
            site.sample_lanes(p, coords, set, offset, out, scratch);
        }
    }
}

/// `sample` through a [`SamplerSite`] when every active lane uses the same texture and
/// sampler handles, the pair is one a site covers and the mode does not compare; false,
/// with nothing written, otherwise.
fn sample_site<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    mode: SampleMode,
    a: &SampleArgs,
) -> bool {
    let Some(first) = w.ex.first() else {
        return false;
    };
    if !matches!(
        mode,
        SampleMode::Implicit | SampleMode::Bias | SampleMode::Level | SampleMode::Grad
    ) {
        return false;
    }
    let zero = [0u32; W];
    let scratch = w.sample_scratch.get_or_insert_with(LaneScratch::boxed);
    let regs = &w.regs;
    // Registers are read in place: the wave's arrays are not copied.
    let reg = |r: Reg| if r.is_none() { &zero } else { &regs[r.index()] };
    let (tex, smp) = (reg(a.texture), reg(a.sampler));
    let (t0, s0) = (tex[first], smp[first]);
    // Over all lanes, inactive ones masked off: a loop the compiler does several lanes
    // at a time.
    let mut differ = 0u32;
    for l in 0..W {
        differ |= ((tex[l] ^ t0) | (smp[l] ^ s0)) & w.ex.sel[l];
    }
    if differ != 0 {
        return false;
    }
    let Descriptor::Texture(view) = cx.table.get(t0) else {
        return false;
    };
    let sampler = sampler_of(cx.table.get(s0));
    let Some(site) = SamplerSite::new(view, &sampler) else {
        return false;
    };
    let c = a.coord.map(reg);
    let lod = reg(a.lod);
    let clamp = reg(a.clamp);
    let (gdx, gdy) = (a.ddx.map(reg), a.ddy.map(reg));
    let offset = a.offset.map(i32::from);
    let mut out = [[0u32; W]; 4];
    // The gradient LOD of the last quad seen (lanes come in ascending order).
    let mut quad = (usize::MAX, 0f32);
    let mut groups = Groups::default();
    let coords = [c[0], c[1], c[2]];
    if let Some(choice) = site.fixed_choice() {
        // One mip and one filter whatever the LOD: no gradients, no LOD.
        site.sample_lanes(choice, coords, w.ex.mask, offset, &mut out, scratch);
        finish(w, &a.dst, a.status, &out);
        return true;
    }
    if mode == SampleMode::Implicit && a.clamp.is_none() {
        // The quad's four lanes share one LOD and so one choice of mips: the loop goes
        // a quad at a time, with the same choices in the same lane order as the loop
        // below.
        let quad_bits: u128 = if W >= 4 { 0xf } else { (1 << W) - 1 };
        for q in (0..W).step_by(4) {
            let bits = (w.ex.mask >> q) & quad_bits;
            if bits == 0 {
                continue;
            }
            let (ux, uy) = coarse(c[0], q, cx.ftz);
            let (vx, vy) = coarse(c[1], q, cx.ftz);
            let lod = site.gradient_lod([f(ux), f(vx), 0.0], [f(uy), f(vy), 0.0]);
            let lod = SiteLod::Gradient { lod, bias: 0.0 };
            groups.add(
                &site,
                lod,
                f32::NEG_INFINITY,
                bits << q,
                coords,
                offset,
                &mut out,
                scratch,
            );
        }
        groups.flush(&site, coords, offset, &mut out, scratch);
        finish(w, &a.dst, a.status, &out);
        return true;
    }
    for l in lanes(w.ex.mask) {
        let lod = match mode {
            SampleMode::Implicit | SampleMode::Bias => {
                let q = l & !3;
                if quad.0 != q {
                    let (ux, uy) = coarse(c[0], q, cx.ftz);
                    let (vx, vy) = coarse(c[1], q, cx.ftz);
                    quad = (
                        q,
                        site.gradient_lod([f(ux), f(vx), 0.0], [f(uy), f(vy), 0.0]),
                    );
                }
                let bias = if mode == SampleMode::Bias {
                    f(lod[l])
                } else {
                    0.0
                };
                SiteLod::Gradient { lod: quad.1, bias }
            }
            SampleMode::Level => SiteLod::Level(f(lod[l])),
            _ => SiteLod::Gradient {
                lod: site.gradient_lod(
                    [f(gdx[0][l]), f(gdx[1][l]), f(gdx[2][l])],
                    [f(gdy[0][l]), f(gdy[1][l]), f(gdy[2][l])],
                ),
                bias: 0.0,
            },
        };
        let min_lod_clamp = if a.clamp.is_none() {
            f32::NEG_INFINITY
        } else {
            f(clamp[l])
        };
        groups.add(
            &site,
            lod,
            min_lod_clamp,
            1 << l,
            coords,
            offset,
            &mut out,
            scratch,
        );
    }
    groups.flush(&site, coords, offset, &mut out, scratch);
    finish(w, &a.dst, a.status, &out);
    true
}

/// `sample` in any mode.
pub fn sample<const W: usize>(w: &mut Wave<W>, cx: &Ctx<'_>, mode: SampleMode, a: &SampleArgs) {
    if sample_site(w, cx, mode, a) {
        return;
    }
    let tex = reg_or_zero(&w.regs, a.texture);
    let smp = reg_or_zero(&w.regs, a.sampler);
    let c = regs4(&w.regs, &a.coord);
    let lod = reg_or_zero(&w.regs, a.lod);
    let reference = reg_or_zero(&w.regs, a.reference);
    let clamp = reg_or_zero(&w.regs, a.clamp);
    let gdx = regs4(&w.regs, &a.ddx);
    let gdy = regs4(&w.regs, &a.ddy);
    let (qdx, qdy) = if mode.implicit_lod() {
        quad_gradients(&c, cx.ftz)
    } else {
        ([[0; W]; 3], [[0; W]; 3])
    };
    let offset = a.offset.map(i32::from);
    let mut out = [[0u32; W]; 4];
    for l in lanes(w.ex.mask) {
        let Descriptor::Texture(view) = cx.table.get(tex[l]) else {
            continue;
        };
        let sampler = sampler_of(cx.table.get(smp[l]));
        let implicit = |bias: f32| Lod::Gradients {
            ddx: [f(qdx[0][l]), f(qdx[1][l]), f(qdx[2][l])],
            ddy: [f(qdy[0][l]), f(qdy[1][l]), f(qdy[2][l])],
            bias,
        };
        let explicit = || Lod::Gradients {
            ddx: [f(gdx[0][l]), f(gdx[1][l]), f(gdx[2][l])],
            ddy: [f(gdy[0][l]), f(gdy[1][l]), f(gdy[2][l])],
            bias: 0.0,
        };
        let lod = match mode {
            SampleMode::Implicit | SampleMode::Cmp => implicit(0.0),
            SampleMode::Bias | SampleMode::CmpBias => implicit(f(lod[l])),
            SampleMode::Level | SampleMode::CmpLevel => Lod::Level(f(lod[l])),
            SampleMode::CmpLevelZero => Lod::Level(0.0),
            SampleMode::Grad | SampleMode::CmpGrad => explicit(),
        };
        let input = SampleInput {
            coord: [f(c[0][l]), f(c[1][l]), f(c[2][l]), f(c[3][l])],
            offset,
            lod,
            min_lod_clamp: if a.clamp.is_none() {
                f32::NEG_INFINITY
            } else {
                f(clamp[l])
            },
            reference: mode.compares().then(|| f(reference[l])),
        };
        let r = sample_texels(view, &sampler, &input);
        for i in 0..4 {
            out[i][l] = r[i];
        }
    }
    finish(w, &a.dst, a.status, &out);
}

/// `write_feedback`: per active lane that is not a helper lane (helper lanes have no
/// side effects, D3D11.3 §16.8.1; DirectX-Specs "Sampler Feedback" makes feedback a UAV
/// write), records in its feedback map the texels the `sample` in `mode` would read
/// (`resources::feedback`). The LOD comes as `sample`'s does: the quad's coarse
/// gradients (helper lanes included) for `implicit` and `bias`, the operand for `level`,
/// the given gradients for `grad`; `args.clamp` is the shader's minimum-LOD clamp.
pub fn write_feedback<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    mode: SampleMode,
    feedback: Reg,
    a: &SampleArgs,
) {
    let fb = reg_or_zero(&w.regs, feedback);
    let tex = reg_or_zero(&w.regs, a.texture);
    let smp = reg_or_zero(&w.regs, a.sampler);
    let c = regs4(&w.regs, &a.coord);
    let lod = reg_or_zero(&w.regs, a.lod);
    let clamp = reg_or_zero(&w.regs, a.clamp);
    let gdx = regs4(&w.regs, &a.ddx);
    let gdy = regs4(&w.regs, &a.ddy);
    let (qdx, qdy) = if mode.implicit_lod() {
        quad_gradients(&c, cx.ftz)
    } else {
        ([[0; W]; 3], [[0; W]; 3])
    };
    for l in lanes(w.ex.mask & !w.helper) {
        let Descriptor::Feedback(map) = cx.table.get(fb[l]) else {
            continue;
        };
        let Descriptor::Texture(view) = cx.table.get(tex[l]) else {
            continue;
        };
        let sampler = sampler_of(cx.table.get(smp[l]));
        let gradients = |dx: &[[u32; W]], dy: &[[u32; W]], bias: f32| Lod::Gradients {
            ddx: [f(dx[0][l]), f(dx[1][l]), f(dx[2][l])],
            ddy: [f(dy[0][l]), f(dy[1][l]), f(dy[2][l])],
            bias,
        };
        let lod = match mode {
            SampleMode::Bias => gradients(&qdx, &qdy, f(lod[l])),
            SampleMode::Level => Lod::Level(f(lod[l])),
            SampleMode::Grad => gradients(&gdx, &gdy, 0.0),
            _ => gradients(&qdx, &qdy, 0.0),
        };
        let input = SampleInput {
            coord: [f(c[0][l]), f(c[1][l]), f(c[2][l]), f(c[3][l])],
            offset: [0; 3],
            lod,
            min_lod_clamp: if a.clamp.is_none() {
                f32::NEG_INFINITY
            } else {
                f(clamp[l])
            },
            reference: None,
        };
        map.write(view, &sampler, &input);
    }
}

/// `gather` of component `channel` (or the comparison results, in comparison modes).
pub fn gather<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    mode: SampleMode,
    channel: u8,
    a: &SampleArgs,
) {
    let reference = reg_or_zero(&w.regs, a.reference);
    gather_lanes(w, cx, a, |view, sampler, coord, offset, l| {
        gather_texels(
            view,
            sampler,
            coord,
            offset,
            channel,
            mode.compares().then(|| f(reference[l])),
        )
    });
}

/// `gather_raw`: word `word` of the `bits`-bit elements of the four texels a gather
/// picks ([`gather_texels_raw`] states which views can be read).
pub fn gather_raw<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    bits: u8,
    word: u8,
    a: &SampleArgs,
) {
    gather_lanes(w, cx, a, |view, sampler, coord, offset, _| {
        gather_texels_raw(view, sampler, coord, offset, bits, word)
    });
}

/// What the gathers share: per active lane with a texture descriptor, its view, sampler,
/// coordinates and texel offset (immediate, or the dynamic one when the program gives
/// it) go to `texels`, whose four words are the lane's results.
fn gather_lanes<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    a: &SampleArgs,
    texels: impl Fn(&TextureView, &SamplerDesc, [f32; 4], [i32; 2], usize) -> [u32; 4],
) {
    let tex = reg_or_zero(&w.regs, a.texture);
    let smp = reg_or_zero(&w.regs, a.sampler);
    let c = regs4(&w.regs, &a.coord);
    let dyn_off = [
        reg_or_zero(&w.regs, a.dyn_offset[0]),
        reg_or_zero(&w.regs, a.dyn_offset[1]),
    ];
    let dynamic = !a.dyn_offset[0].is_none() || !a.dyn_offset[1].is_none();
    let mut out = [[0u32; W]; 4];
    for l in lanes(w.ex.mask) {
        let Descriptor::Texture(view) = cx.table.get(tex[l]) else {
            continue;
        };
        let sampler = sampler_of(cx.table.get(smp[l]));
        let offset = if dynamic {
            [dyn_off[0][l] as i32, dyn_off[1][l] as i32]
        } else {
            [i32::from(a.offset[0]), i32::from(a.offset[1])]
        };
        let r = texels(
            view,
            &sampler,
            [f(c[0][l]), f(c[1][l]), f(c[2][l]), f(c[3][l])],
            offset,
            l,
        );
        for i in 0..4 {
            out[i][l] = r[i];
        }
    }
    finish(w, &a.dst, a.status, &out);
}

/// `lod`: `[clamped, unclamped]` LOD of a sample at `coord`, from quad derivatives.
pub fn lod<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    dst: &[Reg; 2],
    texture: Reg,
    sampler: Reg,
    coord: &[Reg; 3],
) {
    let tex = reg_or_zero(&w.regs, texture);
    let smp = reg_or_zero(&w.regs, sampler);
    let c = regs4(&w.regs, coord);
    let (dx, dy) = quad_gradients(&c, cx.ftz);
    let mut out = [[0u32; W]; 2];
    for l in lanes(w.ex.mask) {
        let Descriptor::Texture(view) = cx.table.get(tex[l]) else {
            continue;
        };
        let s = sampler_of(cx.table.get(smp[l]));
        let r = calculate_lod(
            view,
            &s,
            [f(c[0][l]), f(c[1][l]), f(c[2][l]), 0.0],
            [f(dx[0][l]), f(dx[1][l]), f(dx[2][l])],
            [f(dy[0][l]), f(dy[1][l]), f(dy[2][l])],
        );
        out[0][l] = r[0].to_bits();
        out[1][l] = r[1].to_bits();
    }
    for (i, d) in dst.iter().enumerate() {
        if !d.is_none() {
            w.ex.store(&mut w.regs, *d, &out[i]);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The per-quad coarse derivatives equal `derivative`'s for every lane of the quad
    /// (D3D11.3 §7.18.11: implicit-LOD sampling takes `deriv_rtx_coarse` and
    /// `deriv_rty_coarse`), with and without denormal flushing, on hostile values.
    #[test]
    fn coarse_equals_derivative() {
        fn check<const W: usize>(seed: u32) {
            let special = [
                0u32,
                0x8000_0000,
                0x7f80_0000,
                0xff80_0000,
                0x7fc0_0001,
                0x0000_0001,
                0x3f80_0000,
            ];
            let mut x = seed;
            let mut v = [0u32; W];
            for (i, e) in v.iter_mut().enumerate() {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                *e = if i % 3 == 0 {
                    special[x as usize % 7]
                } else {
                    x
                };
            }
            for ftz in [false, true] {
                let dx = derivative(DerivKind::CoarseX, &v, ftz);
                let dy = derivative(DerivKind::CoarseY, &v, ftz);
                for l in 0..W {
                    assert_eq!(coarse(&v, l & !3, ftz), (dx[l], dy[l]), "lane {l} of {W}");
                }
            }
        }
        for seed in 1..200 {
            check::<1>(seed);
            check::<2>(seed);
            check::<4>(seed);
            check::<8>(seed);
            check::<32>(seed);
        }
    }
}
