//! The output merger: depth and stencil tests, blending, logic operations, write masks
//! and the conversion of pixel-program outputs to render-target formats — on one tile's
//! copy of the targets, loaded before the tile is rasterized and stored after (a target
//! the merge only overwrites is written in place instead, `tile::in_place_targets`).
//!
//! This module holds the rules, texel by texel; [`tile`] applies them to a tile: its
//! copies of the targets, the early and late depth-stencil tests, and the merges of a
//! pixel wave's outputs.
//!
//! # Rules
//!
//! - **Depth** (D3D11.3 §17.8 "Depth/Stencil State", §17.10 "Depth Clamp", §17.11 "Depth Comparison"): the incoming depth (clamped to the
//!   viewport's depth range) is converted to the buffer's format — UNORM by
//!   `resources::format::float_to_unorm` (D16_UNORM, D24_UNORM_S8_UINT), f32 as it is
//!   (D32_FLOAT, D32_FLOAT_S8X24_UINT) — and compared with the stored value by the depth
//!   function (`incoming FUNC stored`). It is written when the test passes and depth
//!   writes are on.
//! - **Stencil**: `(ref & read_mask) FUNC (stored & read_mask)`, with the front or back
//!   face's operations (points and lines are front faces): the stencil-fail operation when
//!   it fails, the depth-fail operation when it passes and depth fails, the pass operation
//!   when both pass; the result is written through the write mask. The reference and the
//!   two masks are the face's own when the state gives them per face
//!   (`OMSetFrontAndBackStencilRef`, `D3D12_DEPTH_STENCIL_DESC2`; DirectX-Specs
//!   "VulkanOn12", "Independent Front/Back Stencil Refs and Masks"): the caller passes
//!   the face's reference, or the pixel program's `SV_StencilRef`, which replaces the
//!   reference of either face.
//! - **Depth bounds** (DirectX-Specs "D3D12 Depth Bounds Test", Detailed Design), when
//!   `DepthBoundsTestEnable` is on, first: the value *stored* in the buffer — not the
//!   sample's incoming depth, nor a depth the pixel program outputs — converted to float
//!   (a UNORM code as `c / (2^n − 1)`) must lie in `[min, max]` inclusive, or the sample
//!   is discarded and writes nothing, neither depth nor stencil (no stencil-fail
//!   operation: a failing invocation "cannot affect the render target, depth, or
//!   stencil buffer"). `min > max` fails every sample. Without a depth buffer the test
//!   passes (there is no tile depth to test, so it is never run).
//! - **Blending** (D3D11.3 §17.1 "Blend State", §17.5 "Blending Precision"): per target, `src · sf OP dst · df` for colour
//!   and alpha separately, in f32. For UNORM (and sRGB) targets the source colours and
//!   the blend factor are clamped to [0, 1], for SNORM to [−1, 1]; float targets take them
//!   as they are. sRGB targets blend in linear space (the destination is decoded, the
//!   result encoded). Integer targets are never blended; a logic operation replaces
//!   blending on them when enabled, on the integer values, masked to each channel's bits.
//! - **Conversion** of the final value to the format: `resources::format`'s D3D rounding
//!   (UNORM/SNORM: clamp, scale, add ½, truncate; sRGB curve; float16/11/10 conversion).
//!   Components outside the write mask, or that the program does not write, keep their
//!   stored value.
//! - **Resolve** ([`resolve`]): a multisampled target's samples averaged in f32 per pixel
//!   (in linear space for sRGB) and converted back, as `ResolveSubresource` does; integer
//!   formats take sample 0.
//! - **`ResolveSubresourceRegion`** ([`resolve`](mod@resolve)): MIN, MAX, AVERAGE and
//!   DECOMPRESS over a rectangle of one subresource, one plane of a depth-stencil
//!   resource at a time.

pub mod resolve;
pub(crate) mod tile;

use super::state::{Blend, BlendOp, DepthStencilDesc, DepthStencilOpDesc, RenderTargetBlendDesc};
use crate::resources::format::{
    Num, f32_to_half_format, float_to_unorm, linear_to_srgb, unorm_to_float,
};
use crate::resources::{ComparisonFunc, Format, Texture, TextureDesc};
use crate::wide::wide_fn;

/// One render target's pixels of one tile, in the target's format.
#[derive(Debug, Clone, PartialEq)]
pub struct TileColor {
    /// The format.
    pub format: Format,
    /// Bytes per texel.
    pub texel: usize,
    /// Texels, `((sample × h) + y) × w + x` (the texture's own sample-plane order).
    pub bytes: Vec<u8>,
}

/// The depth-stencil buffer's pixels of one tile.
#[derive(Debug, Clone, PartialEq)]
pub struct TileDepth {
    /// The format.
    pub format: Format,
    /// Depth per sample: UNORM codes, or f32 bits for float formats.
    pub depth: Vec<u32>,
    /// Stencil per sample (0 for formats without stencil).
    pub stencil: Vec<u8>,
}

/// How a depth format stores depth.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DepthKind {
    /// UNORM of this many bits.
    Unorm(u8),
    /// f32.
    Float,
}

/// The depth encoding of a depth format (`None` for other formats).
pub fn depth_kind(f: Format) -> Option<DepthKind> {
    Some(match f {
        Format::D16_UNORM => DepthKind::Unorm(16),
        Format::D24_UNORM_S8_UINT => DepthKind::Unorm(24),
        Format::D32_FLOAT | Format::D32_FLOAT_S8X24_UINT => DepthKind::Float,
        _ => return None,
    })
}

/// Whether a depth format has stencil bits.
pub fn has_stencil(f: Format) -> bool {
    matches!(f, Format::D24_UNORM_S8_UINT | Format::D32_FLOAT_S8X24_UINT)
}

impl TileDepth {
    /// Reads one texel's depth code and stencil from its bytes.
    pub fn decode(format: Format, b: &[u8]) -> (u32, u8) {
        let g = |i: usize| b.get(i).copied().unwrap_or(0);
        match format {
            Format::D16_UNORM => (u32::from(g(0)) | u32::from(g(1)) << 8, 0),
            Format::D24_UNORM_S8_UINT => (
                u32::from(g(0)) | u32::from(g(1)) << 8 | u32::from(g(2)) << 16,
                g(3),
            ),
            Format::D32_FLOAT_S8X24_UINT => (u32::from_le_bytes([g(0), g(1), g(2), g(3)]), g(4)),
            _ => (u32::from_le_bytes([g(0), g(1), g(2), g(3)]), 0),
        }
    }

    /// Writes one texel's depth code and stencil into its bytes.
    pub fn encode(format: Format, depth: u32, stencil: u8, b: &mut [u8]) {
        let d = depth.to_le_bytes();
        match format {
            Format::D16_UNORM => b[..2].copy_from_slice(&d[..2]),
            Format::D24_UNORM_S8_UINT => {
                b[..3].copy_from_slice(&d[..3]);
                b[3] = stencil;
            }
            Format::D32_FLOAT_S8X24_UINT => {
                b[..4].copy_from_slice(&d);
                b[4] = stencil;
            }
            _ => b[..4].copy_from_slice(&d),
        }
    }
}

/// The depth code of depth `z` (already clamped) in a format of `kind`.
pub fn depth_code(kind: DepthKind, z: f32) -> u32 {
    match kind {
        DepthKind::Unorm(bits) => float_to_unorm(z, bits),
        // −0 and +0 compare equal as floats; store what the program gave.
        DepthKind::Float => z.to_bits(),
    }
}

/// `incoming FUNC stored` on depth codes of `kind`.
pub fn depth_passes(func: ComparisonFunc, kind: DepthKind, incoming: u32, stored: u32) -> bool {
    match kind {
        DepthKind::Float => func.passes(f32::from_bits(incoming), f32::from_bits(stored)),
        DepthKind::Unorm(_) => {
            let (a, b) = (incoming, stored);
            match func {
                ComparisonFunc::Never => false,
                ComparisonFunc::Less => a < b,
                ComparisonFunc::Equal => a == b,
                ComparisonFunc::LessEqual => a <= b,
                ComparisonFunc::Greater => a > b,
                ComparisonFunc::NotEqual => a != b,
                ComparisonFunc::GreaterEqual => a >= b,
                ComparisonFunc::Always => true,
            }
        }
    }
}

fn stencil_passes(func: ComparisonFunc, r: u8, s: u8) -> bool {
    match func {
        ComparisonFunc::Never => false,
        ComparisonFunc::Less => r < s,
        ComparisonFunc::Equal => r == s,
        ComparisonFunc::LessEqual => r <= s,
        ComparisonFunc::Greater => r > s,
        ComparisonFunc::NotEqual => r != s,
        ComparisonFunc::GreaterEqual => r >= s,
        ComparisonFunc::Always => true,
    }
}

/// Whether a stored depth code of `kind` lies in the depth-bounds range `[min, max]`
/// (inclusive; compared as floats, a UNORM code converted as `c / (2^n − 1)`).
pub fn depth_in_bounds(kind: DepthKind, stored: u32, [min, max]: [f32; 2]) -> bool {
    let v = match kind {
        DepthKind::Unorm(bits) => unorm_to_float(stored, bits),
        DepthKind::Float => f32::from_bits(stored),
    };
    min <= v && v <= max
}

/// Runs the depth-bounds, depth and stencil tests for sample index `i` of the tile's
/// buffer with incoming depth `z` and writes what they write, for a front (`front`) or
/// back face whose stencil reference is `stencil_ref`; `bounds` is the depth-bounds
/// range when that test is on. Returns whether the sample passes.
pub fn depth_stencil_test(
    desc: &DepthStencilDesc,
    tile: &mut TileDepth,
    i: usize,
    z: f32,
    front: bool,
    stencil_ref: u8,
    bounds: Option<[f32; 2]>,
) -> bool {
    let Some(kind) = depth_kind(tile.format) else {
        return true;
    };
    let (Some(stored), Some(&sten)) = (tile.depth.get(i).copied(), tile.stencil.get(i)) else {
        return true;
    };
    if bounds.is_some_and(|b| !depth_in_bounds(kind, stored, b)) {
        return false;
    }
    let code = depth_code(kind, z);
    let depth_ok = !desc.depth_enable || depth_passes(desc.depth_func, kind, code, stored);
    let stencil_on = desc.stencil_enable && has_stencil(tile.format);
    let mut pass = depth_ok;
    if stencil_on {
        let face: &DepthStencilOpDesc = if front {
            &desc.front_face
        } else {
            &desc.back_face
        };
        let masks = desc.stencil_masks(front);
        let m = masks.read;
        let sok = stencil_passes(face.stencil_func, stencil_ref & m, sten & m);
        let op = if !sok {
            face.stencil_fail_op
        } else if !depth_ok {
            face.stencil_depth_fail_op
        } else {
            face.stencil_pass_op
        };
        let new = op.apply(sten, stencil_ref);
        let wm = masks.write;
        tile.stencil[i] = (sten & !wm) | (new & wm);
        pass = sok && depth_ok;
    }
    if pass && desc.depth_enable && desc.depth_write {
        tile.depth[i] = code;
    }
    pass
}

/// How a render target's components are read and written by blending.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum TargetClass {
    /// UNORM or sRGB: sources clamped to [0, 1].
    Unorm,
    /// SNORM: sources clamped to [−1, 1].
    Snorm,
    /// Float formats: no clamp.
    Float,
    /// UINT or SINT: no blending; logic operations.
    Integer,
}

/// The class of a render-target format (`None` for formats no target can have).
pub fn target_class(f: Format) -> Option<TargetClass> {
    if !f.is_supported() || f.is_depth() || f.is_block_compressed() {
        return None;
    }
    if f == Format::R9G9B9E5_SHAREDEXP {
        return None;
    }
    // Called for every sample the output merger writes: no allocation.
    let first = f.channels().first()?.num;
    Some(match first {
        Num::UNorm | Num::Srgb | Num::XrBias => TargetClass::Unorm,
        Num::SNorm => TargetClass::Snorm,
        Num::Float | Num::UFloat => TargetClass::Float,
        Num::UInt | Num::SInt => TargetClass::Integer,
        Num::Typeless => return None,
    })
}

fn clamp_src(class: TargetClass, v: f32) -> f32 {
    match class {
        TargetClass::Unorm => {
            if v.is_nan() {
                0.0
            } else {
                v.clamp(0.0, 1.0)
            }
        }
        TargetClass::Snorm => {
            if v.is_nan() {
                0.0
            } else {
                v.clamp(-1.0, 1.0)
            }
        }
        _ => v,
    }
}

/// The blend factor `b` for component `c` (3 = alpha) from the clamped source `s`, second
/// source `s1`, destination `d` and blend-factor constant `k`.
pub fn factor(b: Blend, c: usize, s: &[f32; 4], s1: &[f32; 4], d: &[f32; 4], k: &[f32; 4]) -> f32 {
    match b {
        Blend::Zero => 0.0,
        Blend::One => 1.0,
        Blend::SrcColor => s[c],
        Blend::InvSrcColor => 1.0 - s[c],
        Blend::SrcAlpha => s[3],
        Blend::InvSrcAlpha => 1.0 - s[3],
        Blend::DestAlpha => d[3],
        Blend::InvDestAlpha => 1.0 - d[3],
        Blend::DestColor => d[c],
        Blend::InvDestColor => 1.0 - d[c],
        Blend::SrcAlphaSat => {
            if c == 3 {
                1.0
            } else {
                s[3].min(1.0 - d[3])
            }
        }
        Blend::BlendFactor => k[c],
        Blend::InvBlendFactor => 1.0 - k[c],
        Blend::Src1Color => s1[c],
        Blend::InvSrc1Color => 1.0 - s1[c],
        Blend::Src1Alpha => s1[3],
        Blend::InvSrc1Alpha => 1.0 - s1[3],
        Blend::AlphaFactor => k[3],
        Blend::InvAlphaFactor => 1.0 - k[3],
    }
}

fn apply_op(op: BlendOp, s: f32, sf: f32, d: f32, df: f32) -> f32 {
    match op {
        BlendOp::Add => s * sf + d * df,
        BlendOp::Subtract => s * sf - d * df,
        BlendOp::RevSubtract => d * df - s * sf,
        BlendOp::Min => crate::exec::float::min_f32(s, d),
        BlendOp::Max => crate::exec::float::max_f32(s, d),
    }
}

/// Per-channel bit masks of an integer format's components.
fn channel_max(f: Format) -> [u32; 4] {
    let mut m = [0u32; 4];
    for c in f.channels() {
        m[usize::from(c.dest & 3)] = if c.bits >= 32 {
            u32::MAX
        } else {
            (1u32 << c.bits) - 1
        };
    }
    m
}

/// Writes pixel-program colour `src` (bits, for components in `written`) and second
/// colour `src1` into texel `i` of `rt` under `desc`, with blend-factor constant `k`.
pub fn write_color(
    desc: &RenderTargetBlendDesc,
    k: &[f32; 4],
    rt: &mut TileColor,
    i: usize,
    src: [u32; 4],
    src1: [u32; 4],
    written: u8,
) {
    let mask = desc.render_target_write_mask & written & 0xf;
    if mask == 0 {
        return;
    }
    let Some(texel) = rt.bytes.get_mut(i * rt.texel..(i + 1) * rt.texel) else {
        return;
    };
    let Some(class) = target_class(rt.format) else {
        return;
    };
    if class == TargetClass::Integer {
        let value = if desc.logic_op_enable {
            let d = rt.format.decode(texel);
            let max = channel_max(rt.format);
            let mut v = [0u32; 4];
            for c in 0..4 {
                v[c] = desc.logic_op.apply(src[c], d[c]) & max[c];
            }
            v
        } else {
            src
        };
        rt.format.encode(value, mask, texel);
        return;
    }
    if !desc.blend_enable {
        rt.format.encode(src, mask, texel);
        return;
    }
    let s = src.map(|b| clamp_src(class, f32::from_bits(b)));
    let s1 = src1.map(|b| clamp_src(class, f32::from_bits(b)));
    let kk = k.map(|v| clamp_src(class, v));
    let d = rt.format.decode(texel).map(f32::from_bits);
    let mut out = [0u32; 4];
    for c in 0..4 {
        let (sb, db, op) = if c == 3 {
            (
                desc.src_blend_alpha,
                desc.dest_blend_alpha,
                desc.blend_op_alpha,
            )
        } else {
            (desc.src_blend, desc.dest_blend, desc.blend_op)
        };
        let sf = factor(sb, c, &s, &s1, &d, &kk);
        let df = factor(db, c, &s, &s1, &d, &kk);
        out[c] = apply_op(op, s[c], sf, d[c], df).to_bits();
    }
    rt.format.encode(out, mask, texel);
}

/// A colour write without blending, logic operation or write mask into one of the common
/// target formats: the bytes [`write_color`] writes there (`Format::encode` of all four
/// components, D3D11.3 §3.2.3), made without looking up the format's layout or class per
/// texel. `direct_writes_equal_write_color` holds every variant to [`write_color`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum DirectWrite {
    /// Four 8-bit UNORM channels; component `c` goes to byte `order[c]`.
    Unorm8([usize; 4]),
    /// 8-bit sRGB colour channels and a UNORM alpha; component `c` to byte `order[c]`.
    Srgb8([usize; 4]),
    /// `R32G32B32A32_FLOAT`: the bits as they are.
    Float32,
    /// `R16G16B16A16_FLOAT`: `resources::format::f32_to_half_format` per component.
    Float16,
}

impl DirectWrite {
    /// The direct write for a target of `format` under `desc` when the program writes the
    /// components `written`; `None` when [`write_color`] must do the work (blending, a
    /// logic operation, a partial mask, another format).
    pub fn of(desc: &RenderTargetBlendDesc, format: Format, written: u8) -> Option<DirectWrite> {
        if desc.blend_enable
            || desc.logic_op_enable
            || desc.render_target_write_mask & written & 0xf != 0xf
        {
            return None;
        }
        Some(match format {
            Format::R8G8B8A8_UNORM => DirectWrite::Unorm8([0, 1, 2, 3]),
            Format::B8G8R8A8_UNORM => DirectWrite::Unorm8([2, 1, 0, 3]),
            Format::R8G8B8A8_UNORM_SRGB => DirectWrite::Srgb8([0, 1, 2, 3]),
            Format::B8G8R8A8_UNORM_SRGB => DirectWrite::Srgb8([2, 1, 0, 3]),
            Format::R32G32B32A32_FLOAT => DirectWrite::Float32,
            Format::R16G16B16A16_FLOAT => DirectWrite::Float16,
            _ => return None,
        })
    }

    /// Writes colour `src` (f32 bits) into texel `i` of `rt`, as [`write_color`] would
    /// with the state this write was made for; nothing when `i` is past the tile.
    #[inline]
    pub fn write(self, rt: &mut TileColor, i: usize, src: [u32; 4]) {
        let t = rt.texel;
        let Some(texel) = rt.bytes.get_mut(i * t..(i + 1) * t) else {
            return;
        };
        match self {
            DirectWrite::Unorm8(order) => {
                if let [_, _, _, _, ..] = texel {
                    let v = src.map(|b| unorm8(f32::from_bits(b)));
                    for c in 0..4 {
                        texel[order[c]] = v[c];
                    }
                }
            }
            DirectWrite::Srgb8(order) => srgb8(texel, order, src),
            DirectWrite::Float32 => float32(texel, src),
            DirectWrite::Float16 => float16(texel, src),
        }
    }
}

impl DirectWrite {
    /// The texel words of a wave of `w` lanes whose four components lie channel-major in
    /// `src` (component `c` of lane `l` at `c × w + l`, f32 bits): each component
    /// converted as [`DirectWrite::Unorm8`] converts it and placed at byte `order[c]` (an
    /// order past byte 3 drops the component), into `out[l]`. One loop over the wave
    /// with the byte positions the same for every lane, which the compiler does four
    /// lanes at a time; the word is built in a register (four byte stores read back as
    /// one word would stall the load). Nothing is written when `src` is short.
    #[inline]
    pub fn unorm8_texels(src: &[u32], w: usize, order: [usize; 4], out: &mut [u32]) {
        unorm8_texels_wide(src, w, order, out);
    }

    /// Stores a texel word of [`DirectWrite::unorm8_texels`] as texel `i` of a four-byte
    /// target `rt`, in one store; nothing when `i` is past the tile.
    #[inline]
    pub fn put_texel4(rt: &mut TileColor, i: usize, texel: u32) {
        if rt.texel == 4
            && let Some(at) = i.checked_mul(4)
            && let Some(bytes) = rt.bytes.get_mut(at..at.saturating_add(4))
        {
            bytes.copy_from_slice(&texel.to_le_bytes());
        }
    }

    /// [`DirectWrite::put_texel4`] of `a` at texel `i` and `b` at texel `i + 1`, in one
    /// eight-byte store when both lie in the tile (else each as `put_texel4` would).
    #[inline]
    pub fn put_texel4_pair(rt: &mut TileColor, i: usize, a: u32, b: u32) {
        if rt.texel == 4
            && let Some(at) = i.checked_mul(4)
            && let Some(bytes) = rt.bytes.get_mut(at..at.saturating_add(8))
        {
            bytes.copy_from_slice(&(u64::from(a) | u64::from(b) << 32).to_le_bytes());
            return;
        }
        Self::put_texel4(rt, i, a);
        Self::put_texel4(rt, i.wrapping_add(1), b);
    }
}

wide_fn! {
    /// [`DirectWrite::unorm8_texels`], compiled for AVX2 too (`crate::wide`).
    fn unorm8_texels_wide(src: &[u32], w: usize, order: [usize; 4], out: &mut [u32]) {
        unorm8_texels_in(src, w, order, out)
    }
}

/// [`DirectWrite::unorm8_texels`]'s loop, compiled into each copy of `unorm8_texels_wide`.
#[inline(always)]
fn unorm8_texels_in(src: &[u32], w: usize, order: [usize; 4], out: &mut [u32]) {
    let (Some(c0), Some(c1), Some(c2), Some(c3)) = (
        src.get(..w),
        src.get(w..2 * w),
        src.get(2 * w..3 * w),
        src.get(3 * w..4 * w),
    ) else {
        return;
    };
    // A dropped component is masked to nothing rather than shifted out.
    let shift = order.map(|o| 8 * (o as u32 % 4));
    let keep = order.map(|o| if o < 4 { 0xffu32 } else { 0 });
    for (l, t) in out.iter_mut().enumerate().take(w) {
        let b =
            |c: &[u32], k: usize| (u32::from(unorm8(f32::from_bits(c[l]))) & keep[k]) << shift[k];
        *t = b(c0, 0) | b(c1, 1) | b(c2, 2) | b(c3, 3);
    }
}

/// `float_to_unorm(x, 8)` (D3D11.3 §3.2.3.6 "FLOAT → UNORM") in a form the compiler
/// does several at a time: `max` takes NaN to 0 as the rule does, and after the clamp the
/// exact `x × 255 + ½` (in `f64`, exact as in `float_to_unorm`) lies in [0.5, 255.5],
/// where truncation needs no saturation. `unorm8_equals_float_to_unorm` holds it to the
/// rule's home.
///
/// The truncation is done without a float-to-integer conversion, which the compiler
/// does one lane at a time (it must saturate): adding 2^52 to a value in [0, 2^51)
/// rounds it to an integer (to nearest even) held in the low mantissa bits, and one
/// comparison turns that rounding into the floor.
#[inline(always)]
#[allow(clippy::manual_clamp)] // `clamp` keeps NaN, which must become 0 here
fn unorm8(x: f32) -> u8 {
    const TWO_52: f64 = 4_503_599_627_370_496.0;
    let v = f64::from(x.max(0.0).min(1.0)) * 255.0 + 0.5;
    let r = (v + TWO_52) - TWO_52;
    let floor = if r > v { r - 1.0 } else { r };
    ((floor + TWO_52).to_bits() - TWO_52.to_bits()) as u8
}

// The formats other than UNORM8 write through functions that are not inlined: merged
// into one loop, the optimiser computes every arm's conversion (the sRGB curve's `pow`,
// the half-float rounding) for every texel and selects one.

/// [`DirectWrite::Float32`]'s texel.
#[inline(never)]
fn float32(texel: &mut [u8], src: [u32; 4]) {
    for (c, b) in texel.chunks_exact_mut(4).take(4).enumerate() {
        b.copy_from_slice(&src[c].to_le_bytes());
    }
}

/// [`DirectWrite::Float16`]'s texel.
#[inline(never)]
fn float16(texel: &mut [u8], src: [u32; 4]) {
    for (c, b) in texel.chunks_exact_mut(2).take(4).enumerate() {
        let h = f32_to_half_format(f32::from_bits(src[c])) as u16;
        b.copy_from_slice(&h.to_le_bytes());
    }
}

/// [`DirectWrite::Srgb8`]'s texel.
#[inline(never)]
fn srgb8(texel: &mut [u8], order: [usize; 4], src: [u32; 4]) {
    if let [_, _, _, _, ..] = texel {
        for c in 0..3 {
            let v = linear_to_srgb(f32::from_bits(src[c]));
            texel[order[c]] = float_to_unorm(v, 8) as u8;
        }
        texel[order[3]] = float_to_unorm(f32::from_bits(src[3]), 8) as u8;
    }
}

/// The alpha-to-coverage mask of `alpha` for `samples` samples: the lowest
/// `round(alpha × samples)` samples, halves up (with one sample, alpha ≥ ½ covers it).
/// dxlane's own choice: D3D11.3 §17.18 leaves the samples a fractional alpha covers to
/// the implementation (dithering allowed), and no public source states WARP's pattern,
/// so a WARP capture may differ in which samples, not in how many on average.
pub fn alpha_to_coverage(alpha: f32, samples: u32) -> u32 {
    let a = if alpha.is_nan() {
        0.0
    } else {
        alpha.clamp(0.0, 1.0)
    };
    let n = (a * samples as f32 + 0.5).floor() as u32;
    if n >= 32 { u32::MAX } else { (1u32 << n) - 1 }
}

/// The resolved (single-sample) copy of mip 0, slice 0 of a multisampled texture (see
/// the module doc).
pub fn resolve(t: &Texture) -> Result<Texture, crate::resources::ResourceError> {
    let d = *t.desc();
    let desc = TextureDesc::tex2d(d.format, d.width, d.height);
    let out = Texture::new(desc)?;
    resolve_into(t, 0, &out, 0);
    Ok(out)
}

/// Resolves array slice `src_slice` of the multisampled `src` into slice `dst_slice` of
/// the single-sampled `dst` (mip 0 of both, one size and format): each texel is the
/// average of its samples, decoded to floats (sRGB to linear), summed in f64 and encoded
/// again by the format's rule (UNORM, SNORM, sRGB rounding) — `ResolveSubresource`'s
/// average, which D3D leaves to the implementation ("the algorithm … depends on the
/// implementation", D3D10 DDI `ResourceResolveSubresource`). Integer and depth formats
/// have no average: they keep sample 0 (a resolve command refuses them, as D3D12 does
/// for formats without `D3D12_FORMAT_SUPPORT1_MULTISAMPLE_RESOLVE`).
pub fn resolve_into(src: &Texture, src_slice: u32, dst: &Texture, dst_slice: u32) {
    let d = *src.desc();
    let texel = d.format.bytes_per_texel() as usize;
    let integer = target_class(d.format) == Some(TargetClass::Integer) || d.format.is_depth();
    let mut buf = vec![0u8; texel];
    let mut o = vec![0u8; texel];
    for y in 0..d.height {
        for x in 0..d.width {
            let mut sum = [0f64; 4];
            let mut first = [0u32; 4];
            for s in 0..d.samples {
                let Some(a) = src.texel_addr(0, src_slice, [x, y, 0], s) else {
                    continue;
                };
                src.memory().read_bytes(a, &mut buf);
                let v = d.format.decode(&buf);
                if s == 0 {
                    first = v;
                }
                for c in 0..4 {
                    sum[c] += f64::from(f32::from_bits(v[c]));
                }
            }
            let value = if integer {
                first
            } else {
                sum.map(|v| ((v / f64::from(d.samples)) as f32).to_bits())
            };
            o.fill(0);
            d.format.encode(value, 0xf, &mut o);
            if let Some(a) = dst.texel_addr(0, dst_slice, [x, y, 0], 0) {
                dst.memory().write_bytes(a, &o);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::state::{LogicOp, StencilOp};

    fn tile(format: Format) -> TileColor {
        TileColor {
            format,
            texel: format.bytes_per_texel() as usize,
            bytes: vec![0; format.bytes_per_texel() as usize],
        }
    }

    fn f(v: [f32; 4]) -> [u32; 4] {
        v.map(f32::to_bits)
    }

    /// D3D11.3 blending: SRC_ALPHA / INV_SRC_ALPHA over a UNORM target, with the source
    /// clamped to [0, 1] and the result rounded by the UNORM rule.
    #[test]
    fn alpha_blend_on_unorm() {
        let mut rt = tile(Format::R8G8B8A8_UNORM);
        rt.bytes = vec![255, 0, 0, 255];
        let d = RenderTargetBlendDesc {
            blend_enable: true,
            src_blend: Blend::SrcAlpha,
            dest_blend: Blend::InvSrcAlpha,
            ..RenderTargetBlendDesc::default()
        };
        write_color(
            &d,
            &[0.0; 4],
            &mut rt,
            0,
            f([0.0, 2.0, 0.0, 0.25]),
            [0; 4],
            0xf,
        );
        // r: 0·0.25 + 1·0.75 = 0.75 → 191.75 → 191; g: 1·0.25 → 63.75 → 64 (clamped 2 → 1).
        assert_eq!(rt.bytes[..3], [191, 64, 0]);
        // alpha: 0.25·1 + 1·0 (ONE/ZERO) = 0.25 → 64.
        assert_eq!(rt.bytes[3], 64);
    }

    /// Write masks and unwritten components keep the stored value; float targets are not
    /// clamped; dual-source factors read the second colour.
    #[test]
    fn masks_float_and_dual_source() {
        let mut rt = tile(Format::R32G32B32A32_FLOAT);
        let d = RenderTargetBlendDesc {
            render_target_write_mask: 0b0101,
            ..RenderTargetBlendDesc::default()
        };
        write_color(
            &d,
            &[0.0; 4],
            &mut rt,
            0,
            f([5.0, 6.0, 7.0, 8.0]),
            [0; 4],
            0b0011,
        );
        let v = rt.format.decode(&rt.bytes);
        assert_eq!(v.map(f32::from_bits), [5.0, 0.0, 0.0, 0.0]);
        let d = RenderTargetBlendDesc {
            blend_enable: true,
            src_blend: Blend::Src1Color,
            dest_blend: Blend::BlendFactor,
            ..RenderTargetBlendDesc::default()
        };
        write_color(&d, &[2.0; 4], &mut rt, 0, f([3.0; 4]), f([0.5; 4]), 0xf);
        let v = rt.format.decode(&rt.bytes).map(f32::from_bits);
        assert_eq!(v, [11.5, 1.5, 1.5, 3.0], "alpha: ONE × 3 + ZERO × 0");
    }

    /// Logic operations act on integer targets' values, masked to the channel's bits.
    #[test]
    fn logic_ops_on_uint() {
        let mut rt = tile(Format::R8G8B8A8_UINT);
        rt.bytes = vec![0x0f, 1, 2, 3];
        let d = RenderTargetBlendDesc {
            logic_op_enable: true,
            logic_op: LogicOp::Xor,
            ..RenderTargetBlendDesc::default()
        };
        write_color(
            &d,
            &[0.0; 4],
            &mut rt,
            0,
            [0xff, 1, 0, 0xffff_ffff],
            [0; 4],
            0xf,
        );
        assert_eq!(rt.bytes, vec![0xf0, 0, 2, 0xfc]);
        assert_eq!(LogicOp::Nor.apply(0b1100, 0b1010), !0b1110);
    }

    /// D3D11.3 depth/stencil: UNORM depth compares converted codes; stencil ops by face.
    #[test]
    fn depth_and_stencil() {
        let mut t = TileDepth {
            format: Format::D24_UNORM_S8_UINT,
            depth: vec![float_to_unorm(0.5, 24)],
            stencil: vec![7],
        };
        let mut ds = DepthStencilDesc {
            stencil_enable: true,
            ..DepthStencilDesc::default()
        };
        ds.front_face.stencil_pass_op = StencilOp::IncrSat;
        ds.back_face.stencil_depth_fail_op = StencilOp::Replace;
        assert!(depth_stencil_test(&ds, &mut t, 0, 0.25, true, 3, None));
        assert_eq!((t.depth[0], t.stencil[0]), (float_to_unorm(0.25, 24), 8));
        assert!(!depth_stencil_test(&ds, &mut t, 0, 0.75, false, 3, None));
        assert_eq!(t.stencil[0], 3);
        // Equal codes: 0.25 and a value within half a code of it compare equal.
        ds.depth_func = ComparisonFunc::Equal;
        ds.stencil_enable = false;
        assert!(depth_stencil_test(
            &ds,
            &mut t,
            0,
            0.25 + 1e-9,
            true,
            0,
            None
        ));
        let (d, s) = TileDepth::decode(Format::D24_UNORM_S8_UINT, &[1, 2, 3, 4]);
        assert_eq!((d, s), (0x030201, 4));
    }

    /// Independent front and back stencil masks (`D3D12_DEPTH_STENCIL_DESC2`; DirectX-Specs
    /// "VulkanOn12", "Independent Front/Back Stencil Refs and Masks"): each face tests
    /// through its own read mask and writes through its own write mask; the caller hands
    /// each face its own reference (`OMSetFrontAndBackStencilRef`).
    #[test]
    fn stencil_masks_and_references_per_face() {
        use crate::pipeline::state::{DrawState, StencilMasks};
        let mut ds = DepthStencilDesc {
            depth_enable: false,
            stencil_enable: true,
            stencil_read_mask: 0x0f,
            stencil_write_mask: 0x0f,
            back_face_masks: Some(StencilMasks {
                read: 0xf0,
                write: 0x3c,
            }),
            ..DepthStencilDesc::default()
        };
        for f in [&mut ds.front_face, &mut ds.back_face] {
            f.stencil_func = ComparisonFunc::Equal;
            f.stencil_pass_op = StencilOp::Replace;
            f.stencil_fail_op = StencilOp::Invert;
        }
        let tile = |s: u8| TileDepth {
            format: Format::D24_UNORM_S8_UINT,
            depth: vec![0],
            stencil: vec![s],
        };
        // Front: (0x35 & 0x0f) == (0xa5 & 0x0f) passes; REPLACE writes 0x35 through 0x0f.
        let mut t = tile(0xa5);
        assert!(depth_stencil_test(&ds, &mut t, 0, 0.5, true, 0x35, None));
        assert_eq!(t.stencil[0], 0xa5);
        // Front, failing (0xb != 0x0): INVERT, written through 0x0f only.
        let mut t = tile(0xa0);
        assert!(!depth_stencil_test(&ds, &mut t, 0, 0.5, true, 0x3b, None));
        assert_eq!(t.stencil[0], 0xaf);
        // Back: the same values compare through 0xf0: 0x30 != 0xa0, so INVERT, written
        // through 0x3c only.
        let mut t = tile(0xa0);
        assert!(!depth_stencil_test(&ds, &mut t, 0, 0.5, false, 0x3b, None));
        assert_eq!(t.stencil[0], (0xa0 & !0x3c) | (!0xa0u8 & 0x3c));
        // Back with a reference whose high nibble matches passes, REPLACE through 0x3c.
        let mut t = tile(0xa0);
        assert!(depth_stencil_test(&ds, &mut t, 0, 0.5, false, 0xaf, None));
        assert_eq!(t.stencil[0], (0xa0 & !0x3c) | (0xaf & 0x3c));
        // Without back-face masks the single pair serves both faces (D3D12_DEPTH_STENCIL_DESC).
        ds.back_face_masks = None;
        let mut t = tile(0xa5);
        assert!(depth_stencil_test(&ds, &mut t, 0, 0.5, false, 0x35, None));
        assert_eq!(ds.stencil_masks(false), ds.stencil_masks(true));
        // The references: OMSetStencilRef gives both faces one; OMSetFrontAndBackStencilRef
        // gives each its own.
        let shader = crate::ir::Shader::new(crate::ir::Stage::Vertex);
        let b = crate::pipeline::Bindings::default();
        let mut s = DrawState::new(&shader, None, &b, &b);
        s.stencil_ref = 7;
        assert_eq!((s.stencil_ref_for(true), s.stencil_ref_for(false)), (7, 7));
        s.back_stencil_ref = Some(9);
        assert_eq!((s.stencil_ref_for(true), s.stencil_ref_for(false)), (7, 9));
    }

    /// The depth-bounds test (DirectX-Specs "D3D12 Depth Bounds Test", Detailed Design and
    /// conformance case 1: bounds [0.3, 0.6] over stored 0, 0.3, 0.5, 0.6, 1 keep the
    /// middle three): inclusive, on the stored value whatever the incoming depth; a
    /// failing sample writes neither depth nor stencil; min > max fails everything.
    #[test]
    fn depth_bounds_test_reads_the_stored_depth() {
        let stored = [0.0f32, 0.3, 0.5, 0.6, 1.0];
        for (format, kind) in [
            (Format::D32_FLOAT, DepthKind::Float),
            (Format::D24_UNORM_S8_UINT, DepthKind::Unorm(24)),
            (Format::D16_UNORM, DepthKind::Unorm(16)),
        ] {
            let code = |v: f32| depth_code(kind, v);
            // Bounds at the codes' own values, as a capture's min and max would be.
            let at = |v: f32| match kind {
                DepthKind::Float => v,
                DepthKind::Unorm(bits) => unorm_to_float(code(v), bits),
            };
            let bounds = [at(0.3), at(0.6)];
            let kept: Vec<bool> = stored
                .iter()
                .map(|&v| depth_in_bounds(kind, code(v), bounds))
                .collect();
            assert_eq!(kept, [false, true, true, true, false], "{format}");
            assert!(!depth_in_bounds(kind, code(0.5), [at(0.6), at(0.3)]));
            assert!(depth_in_bounds(kind, code(1.0), [-f32::MAX, f32::MAX]));
            assert!(!depth_in_bounds(kind, code(0.5), [f32::MAX, -f32::MAX]));
        }
        // Through the whole test: stored 0.8 outside [0.25, 0.5] fails first, whatever
        // the incoming depth (0.4, inside), and nothing is written, not even the
        // stencil-fail operation.
        let mut ds = DepthStencilDesc {
            depth_func: ComparisonFunc::Always,
            stencil_enable: true,
            depth_bounds_test_enable: true,
            ..DepthStencilDesc::default()
        };
        ds.front_face.stencil_fail_op = StencilOp::Invert;
        ds.front_face.stencil_pass_op = StencilOp::IncrSat;
        let mut t = TileDepth {
            format: Format::D24_UNORM_S8_UINT,
            depth: vec![float_to_unorm(0.8, 24)],
            stencil: vec![5],
        };
        let before = t.clone();
        assert!(!depth_stencil_test(
            &ds,
            &mut t,
            0,
            0.4,
            true,
            0,
            Some([0.25, 0.5])
        ));
        assert_eq!(t, before);
        // The incoming depth (0.9) lies outside the bounds, the stored one (0.8) inside.
        assert!(depth_stencil_test(
            &ds,
            &mut t,
            0,
            0.9,
            true,
            0,
            Some([0.75, 0.85])
        ));
        assert_eq!((t.depth[0], t.stencil[0]), (float_to_unorm(0.9, 24), 6));
        // NaN bounds are 0 (the runtime's conversion); off, the range is not used.
        let shader = crate::ir::Shader::new(crate::ir::Stage::Vertex);
        let b = crate::pipeline::Bindings::default();
        let mut s = crate::pipeline::state::DrawState::new(&shader, None, &b, &b);
        s.depth_bounds = [f32::NAN, 0.5];
        assert_eq!(s.depth_bounds_test(), None);
        s.depth_stencil.depth_bounds_test_enable = true;
        assert_eq!(s.depth_bounds_test(), Some([0.0, 0.5]));
    }

    /// Float bit patterns for the conversion rules (D3D11.3 §3.2.3): zeros, denormals,
    /// ±∞, NaNs of both signs, values around 0, 1 and every 8-bit UNORM rounding
    /// boundary, the half-float range edges, and a dense stride over all 2^32 patterns.
    fn patterns() -> Vec<u32> {
        let mut v: Vec<u32> = vec![
            0,
            0x8000_0000,
            1,
            0x8000_0001,
            0x007f_ffff,
            0x807f_ffff,
            0x0080_0000,
            0x7f80_0000,
            0xff80_0000,
            0x7fc0_0000,
            0xffc0_0000,
            0x7f80_0001,
            0xff80_0001,
            0x7fff_ffff,
            0x7f7f_ffff,
            0xff7f_ffff,
            1.0f32.to_bits(),
            (-1.0f32).to_bits(),
            0.5f32.to_bits(),
            2.0f32.to_bits(),
            65504.0f32.to_bits(),
            65520.0f32.to_bits(),
            (-65520.0f32).to_bits(),
            6.1e-5f32.to_bits(),
            5.96e-8f32.to_bits(),
            0.0031308f32.to_bits(),
        ];
        for k in 0..=255u32 {
            let b = ((k as f32 + 0.5) / 255.0).to_bits();
            v.extend((b - 16)..=(b + 16));
        }
        v.extend((0x3f7f_ff00..=0x3f80_0100).step_by(3));
        v.extend((0..=0x3f80_0000u32).step_by(4093));
        v.extend((0..=u32::MAX).step_by(65_537));
        v
    }

    proptest::proptest! {
        /// D3D11.3 §17.11 and §3.2.3.6: random depths (any bits, any float in [0, 1],
        /// floats within two ulps of a D24 or D16 code's threshold) stored in D16 and D24
        /// take the exactly rounded code of the integer oracle.
        #[test]
        fn unorm_depth_codes_round_exactly(
            k in 0u32..(1 << 24),
            any in proptest::num::u32::ANY,
            unit in 0u32..=0x3f80_0000,
            nudge in -2i32..=2,
            pick in 0u8..3,
        ) {
            for bits in [16u8, 24] {
                let max = (1u32 << bits) - 1;
                let t = ((f64::from(k % max) + 0.5) / f64::from(max)) as f32;
                let b = match pick { 0 => t.to_bits(), 1 => any, _ => unit };
                let z = f32::from_bits(b.wrapping_add_signed(nudge));
                proptest::prop_assert_eq!(
                    depth_code(DepthKind::Unorm(bits), z),
                    crate::resources::format::tests::unorm_oracle(z, bits),
                    "D{} z = {:e}", bits, z
                );
            }
        }
    }

    /// The UNORM8 conversion of the direct writes is `float_to_unorm(x, 8)` (D3D11.3
    /// §3.2.3.6): every pattern from 2^-9 to 1.0 (where the codes change), and the
    /// dense sample of all others.
    #[test]
    fn unorm8_equals_float_to_unorm() {
        let check = |b: u32| {
            let x = f32::from_bits(b);
            assert_eq!(u32::from(unorm8(x)), float_to_unorm(x, 8), "{b:08x}");
        };
        (0x3b00_0000..=0x3f80_0000).for_each(check);
        patterns().into_iter().for_each(check);
    }

    /// Each direct write gives the bytes `write_color` gives (through `Format::encode`,
    /// D3D11.3 §3.2.3) for every pattern in every component, and needs the state it was
    /// made for.
    #[test]
    fn direct_writes_equal_write_color() {
        let desc = RenderTargetBlendDesc::default();
        let p = patterns();
        for format in [
            Format::R8G8B8A8_UNORM,
            Format::B8G8R8A8_UNORM,
            Format::R8G8B8A8_UNORM_SRGB,
            Format::B8G8R8A8_UNORM_SRGB,
            Format::R32G32B32A32_FLOAT,
            Format::R16G16B16A16_FLOAT,
        ] {
            let d = DirectWrite::of(&desc, format, 0xf).expect("a direct format");
            let (mut a, mut b) = (tile(format), tile(format));
            for (n, &x) in p.iter().enumerate() {
                // Each component sees every pattern, beside different neighbours.
                let src = [x, p[(n + 1) % p.len()], p[(n * 7 + 3) % p.len()], x ^ 1];
                for bytes in [&mut a.bytes, &mut b.bytes] {
                    bytes.fill(0x5a);
                }
                d.write(&mut a, 0, src);
                write_color(&desc, &[0.0; 4], &mut b, 0, src, [0; 4], 0xf);
                assert_eq!(a.bytes, b.bytes, "{format} {src:08x?}");
            }
            // Past the tile: neither writes.
            d.write(&mut a, 1, [0; 4]);
            assert_eq!(a.bytes.len(), format.bytes_per_texel() as usize);
        }
        let blend = RenderTargetBlendDesc {
            blend_enable: true,
            ..desc
        };
        let masked = RenderTargetBlendDesc {
            render_target_write_mask: 0b0111,
            ..desc
        };
        assert_eq!(DirectWrite::of(&blend, Format::R8G8B8A8_UNORM, 0xf), None);
        assert_eq!(DirectWrite::of(&masked, Format::R8G8B8A8_UNORM, 0xf), None);
        assert_eq!(DirectWrite::of(&desc, Format::R8G8B8A8_UNORM, 0b0111), None);
        assert_eq!(DirectWrite::of(&desc, Format::R10G10B10A2_UNORM, 0xf), None);
        assert_eq!(DirectWrite::of(&desc, Format::R8G8B8A8_UINT, 0xf), None);
    }

    /// A wave's UNORM8 texels made at once (`unorm8_texels`, word `k` of lane `l` at
    /// `k × w + l`) and stored per lane (`put_texel4`) give the bytes `DirectWrite::write`
    /// gives lane by lane, for both byte orders and every pattern in every component.
    #[test]
    fn wave_unorm8_equals_direct_write() {
        let desc = RenderTargetBlendDesc::default();
        let p = patterns();
        let w = 8;
        for format in [Format::R8G8B8A8_UNORM, Format::B8G8R8A8_UNORM] {
            let d = DirectWrite::of(&desc, format, 0xf).expect("a direct format");
            let DirectWrite::Unorm8(order) = d else {
                panic!("{format}: not UNORM8");
            };
            for start in (0..p.len()).step_by(w) {
                // Channel-major: component `c` of lane `l` at `c × w + l`.
                let words: Vec<u32> = (0..4 * w).map(|k| p[(start + k * 5) % p.len()]).collect();
                let mut texels = vec![0u32; w];
                DirectWrite::unorm8_texels(&words, w, order, &mut texels);
                for l in 0..w {
                    let (mut a, mut b) = (tile(format), tile(format));
                    a.bytes.fill(0x5a);
                    b.bytes.fill(0x5a);
                    DirectWrite::put_texel4(&mut a, 0, texels[l]);
                    let src = [words[l], words[w + l], words[2 * w + l], words[3 * w + l]];
                    d.write(&mut b, 0, src);
                    assert_eq!(a.bytes, b.bytes, "{format} {src:08x?}");
                }
            }
            // Past the tile: nothing is written.
            let mut a = tile(format);
            DirectWrite::put_texel4(&mut a, 1, 0x0101_0101);
            assert_eq!(a.bytes.len(), format.bytes_per_texel() as usize);
        }
        // A dropped component (an order past byte 3) leaves its byte zero.
        let words = [0x3f80_0000u32; 4];
        let mut t = [0u32; 1];
        DirectWrite::unorm8_texels(&words, 1, [0, 1, 4, 3], &mut t);
        assert_eq!(t[0], 0xff00_ffff);
    }

    /// dxlane's alpha-to-coverage pattern (D3D11.3 §17.18 leaves it to the
    /// implementation): the lowest round(α·n) samples, halves up. α = 0.5 at 4× is 2
    /// samples (0 and 1); α = 0.3 at 8× is 2.4 → 2; α = 0.3125 at 8× is 2.5 → 3;
    /// α = 0.49 at 1× rounds to none; NaN covers nothing.
    #[test]
    fn alpha_to_coverage_masks() {
        assert_eq!(alpha_to_coverage(0.3, 8), 0b11);
        assert_eq!(alpha_to_coverage(0.3125, 8), 0b111);
        assert_eq!(alpha_to_coverage(0.5, 4), 0b0011);
        assert_eq!(alpha_to_coverage(1.0, 4), 0b1111);
        assert_eq!(alpha_to_coverage(0.49, 1), 0);
        assert_eq!(alpha_to_coverage(f32::NAN, 8), 0);
    }
}
