//! Sampling instructions: `sample` (every mode), `gather`, `lod`.
//!
//! Filtering itself is `resources::sample`; this file gathers each lane's inputs. Coordinates
//! are packed as the IR states: the view's texel coordinates (u; u, v; u, v, w; or the cube
//! direction), then the array index. Implicit-LOD modes take the gradients from the lane's
//! quad with **coarse** derivatives (d/dx from the quad's top row, d/dy from its left
//! column, so the four lanes of a quad share one LOD — the D3D11.3 "2×2 stamp" model; in
//! compute these are SM 6.6 compute quads). A null or wrong-kind texture samples zeros; a
//! null sampler behaves as the default sampler state.

use crate::ir::{DerivKind, Reg, SampleArgs, SampleMode};
use crate::resources::sample::{
    Lod, SampleInput, calculate_lod, gather as gather_texels, sample as sample_texels,
};
use crate::resources::{Descriptor, SamplerDesc};

use super::Ctx;
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

/// `sample` in any mode.
pub fn sample<const W: usize>(w: &mut Wave<W>, cx: &Ctx<'_>, mode: SampleMode, a: &SampleArgs) {
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

/// `gather` of component `channel` (or the comparison results, in comparison modes).
pub fn gather<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    mode: SampleMode,
    channel: u8,
    a: &SampleArgs,
) {
    let tex = reg_or_zero(&w.regs, a.texture);
    let smp = reg_or_zero(&w.regs, a.sampler);
    let c = regs4(&w.regs, &a.coord);
    let reference = reg_or_zero(&w.regs, a.reference);
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
        let r = gather_texels(
            view,
            &sampler,
            [f(c[0][l]), f(c[1][l]), f(c[2][l]), f(c[3][l])],
            offset,
            channel,
            mode.compares().then(|| f(reference[l])),
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
