//! The output merger on one tile: the tile's copy of the targets loaded and stored, the
//! early and late depth-stencil tests, and the merges of a pixel wave's outputs — the
//! whole wave at once through direct writes, or lane by lane.
//!
//! Owns: when a target is written in place instead of through a copy
//! ([`in_place_targets`]), the tile copies ([`TileBuf`]), which samples a test or a merge
//! writes and in what order, and what a [`MergeObserver`] is told. Does not own: the
//! per-texel rules (depth and stencil functions, blending, format conversion: the parent
//! module), which tiles there are (`bin`), or running the waves (`tile`).
//!
//! The merges write, per target, the bytes the lane-by-lane merge ([`OutputMerger::merge`])
//! writes, in its order: the whole-wave direct merge
//! ([`OutputMerger::merge_direct`]) is a faster path to the same bytes, taken only when
//! nothing but direct colour writes happens.

use std::sync::atomic::{AtomicU32, Ordering};

use super::{DirectWrite, TileColor, TileDepth};
use crate::pipeline::bin::Binned;
use crate::pipeline::interp;
use crate::pipeline::ps::{
    self, MergeObserver, MergeTarget, PixelLane, PixelQuad, PixelStage, PsOutputs,
};
use crate::pipeline::state::{BlendDesc, DepthStencilDesc, DrawState};
use crate::resources::{Descriptor, Memory, Texture};

/// The output merger of one draw as its tiles use it: the state it merges under, the
/// writes chosen per target, and who is told of them. Made once per draw.
pub(crate) struct OutputMerger<'a> {
    /// The draw.
    pub s: &'a DrawState<'a>,
    /// The pixel stage: primitives, sample pattern, depth range.
    pub stage: &'a PixelStage<'a>,
    /// Samples per pixel of the targets.
    pub samples: u32,
    /// Depth and stencil are tested before the pixel program.
    pub early: bool,
    /// Where the pixel program's outputs lie in its output words.
    pub ps_out: PsOutputs,
    /// Sees every sample written.
    pub writes: Option<&'a dyn MergeObserver>,
    /// Target 0 blends with a second source colour (then only target 0 is written).
    dual: bool,
    /// Per target, the write that needs no blending, logic operation or mask.
    direct: [Option<DirectWrite>; 8],
    /// Per target, whether tiles write it in place ([`in_place_targets`]).
    in_place: [bool; 8],
    /// With a forced sample count and render targets bound (D3D11.3 §3.5.6.2): every
    /// sample of the targets, which a lane covering any sample of the forced pattern
    /// writes; `None` when the targets' samples are the rasterizer's.
    pub target_coverage: Option<u32>,
    /// The output word of render target 0's alpha when alpha-antialiased lines scale it
    /// by their coverage before the merge (§3.4.4); `None` when nothing is scaled.
    pub aa_alpha: Option<u32>,
}

/// One tile's copy of the targets.
pub(crate) struct TileBuf<'m> {
    /// The tile's pixels, `[left, top, right, bottom)`.
    pub rect: [i32; 4],
    /// Per target, the tile's copy; `None` for a target unbound or written in place.
    colors: Vec<Option<TileColor>>,
    /// Per target, the target's own words when the tile writes it in place.
    in_place: Vec<Option<InPlace<'m>>>,
    /// The depth-stencil buffer's copy.
    pub depth: Option<TileDepth>,
    /// Samples merged so far that passed the depth and stencil tests (an occlusion
    /// query's count): counted here, per tile, so the workers share no counter.
    pub passed: u64,
}

impl TileBuf<'_> {
    /// Whether loading or storing the tile copies anything: a target or the depth-stencil
    /// buffer held as a copy. A tile that writes every target in place and has no depth
    /// buffer loads and stores nothing.
    pub(crate) fn copies(&self) -> bool {
        self.depth.is_some() || self.colors.iter().any(Option::is_some)
    }
}

/// A render target a tile writes in place: the target's words from the tile's top-left
/// texel to its bottom-right one, a texel per word, rows `pitch` words apart.
struct InPlace<'m> {
    words: &'m [AtomicU32],
    pitch: usize,
}

impl InPlace<'_> {
    /// Stores texel word `texel` at `i` (row-major from the tile's corner, rows `pitch`
    /// apart); nothing past the span.
    #[inline(always)]
    fn put(&self, i: usize, texel: u32) {
        if let Some(w) = self.words.get(i) {
            w.store(texel, Ordering::Relaxed);
        }
    }
}

impl<'a> OutputMerger<'a> {
    /// The merger of draw `s` whose pixel program writes `ps_out`, its targets having
    /// `samples` samples; `early` when depth and stencil are tested before the program.
    pub(crate) fn new(
        s: &'a DrawState<'a>,
        stage: &'a PixelStage<'a>,
        samples: u32,
        early: bool,
        ps_out: PsOutputs,
        writes: Option<&'a dyn MergeObserver>,
    ) -> OutputMerger<'a> {
        let m = OutputMerger {
            s,
            stage,
            samples,
            early,
            ps_out,
            writes,
            dual: dual_source(&s.blend),
            direct: direct_writes(s, &ps_out),
            in_place: [false; 8],
            target_coverage: None,
            aa_alpha: None,
        };
        OutputMerger {
            in_place: in_place_targets(&m),
            ..m
        }
    }

    /// The tile `rect` of target `t` (`texel` bytes per texel, every sample plane), as
    /// `TileColor::bytes` lays it out.
    fn read_tile(&self, t: &Texture, texel: usize, rect: [i32; 4]) -> Vec<u8> {
        let w = (rect[2] - rect[0]) as usize;
        let h = (rect[3] - rect[1]) as usize;
        let n = self.samples;
        let mut bytes = vec![0u8; w * h * n as usize * texel];
        for s in 0..n {
            for y in 0..h {
                let Some(a) = t.texel_addr(0, 0, [rect[0] as u32, rect[1] as u32 + y as u32, 0], s)
                else {
                    continue;
                };
                let row = (s as usize * h + y) * w * texel;
                t.memory().read_bytes(a, &mut bytes[row..row + w * texel]);
            }
        }
        bytes
    }

    /// The words of target `t` that tile `rect` covers, for writing in place; `None`
    /// when they are not whole words of the memory (then the tile takes a copy).
    fn in_place<'m>(&self, t: &'m Texture, rect: [i32; 4]) -> Option<InPlace<'m>> {
        let (x0, y0) = (rect[0] as u32, rect[1] as u32);
        let (w, h) = ((rect[2] - rect[0]) as u64, (rect[3] - rect[1]) as u64);
        if t.desc().format.bytes_per_texel() != 4 || w == 0 || h == 0 {
            return None;
        }
        let first = t.texel_addr(0, 0, [x0, y0, 0], 0)?;
        let pitch = match t.texel_addr(0, 0, [x0, y0 + 1, 0], 0) {
            Some(next) => next.checked_sub(first)? / 4,
            None => w,
        };
        if first % 4 != 0 || pitch < w {
            return None;
        }
        let count = (h - 1).checked_mul(pitch)?.checked_add(w)?;
        let words = t.memory().words(first / 4, count)?;
        Some(InPlace {
            words,
            pitch: pitch as usize,
        })
    }

    /// Turns every target the tile writes in place into a tile copy (read from the
    /// target, which holds every write so far), for a merge that reads the copy.
    fn take_copies(&self, tb: &mut TileBuf<'_>) {
        for (i, ip) in tb.in_place.iter_mut().enumerate() {
            if ip.take().is_none() {
                continue;
            }
            if let (Some(Some(rt)), Some(c)) = (self.s.render_targets.get(i), tb.colors.get_mut(i))
            {
                let format = rt.texture.desc().format;
                let texel = format.bytes_per_texel() as usize;
                *c = Some(TileColor {
                    format,
                    texel,
                    bytes: self.read_tile(&rt.texture, texel, tb.rect),
                });
            }
        }
    }

    /// The tile `rect` of every target: a copy of its pixels, or its own words for a
    /// target written in place.
    // The hint lets `tile` (another codegen unit) inline it, as `store` and `merge_wave`.
    #[inline]
    pub(crate) fn load(&self, rect: [i32; 4]) -> TileBuf<'_> {
        let mut in_place = Vec::with_capacity(self.s.render_targets.len());
        let colors = self
            .s
            .render_targets
            .iter()
            .enumerate()
            .map(|(i, rt)| {
                let Some(rt) = rt.as_ref() else {
                    in_place.push(None);
                    return None;
                };
                let ip = if self.in_place.get(i).copied().unwrap_or(false) {
                    self.in_place(&rt.texture, rect)
                } else {
                    None
                };
                let copy = ip.is_none();
                in_place.push(ip);
                copy.then(|| {
                    let format = rt.texture.desc().format;
                    let texel = format.bytes_per_texel() as usize;
                    TileColor {
                        format,
                        texel,
                        bytes: self.read_tile(&rt.texture, texel, rect),
                    }
                })
            })
            .collect();
        let depth = self.s.depth_stencil_view.as_ref().map(|d| {
            let format = d.texture.desc().format;
            let texel = format.bytes_per_texel() as usize;
            let raw = self.read_tile(&d.texture, texel, rect);
            let (depth, stencil) = raw
                .chunks_exact(texel)
                .map(|b| TileDepth::decode(format, b))
                .unzip();
            TileDepth {
                format,
                depth,
                stencil,
            }
        });
        TileBuf {
            rect,
            colors,
            in_place,
            depth,
            passed: 0,
        }
    }

    /// Writes the tile's copies back into the targets.
    #[inline]
    pub(crate) fn store(&self, tb: &TileBuf<'_>) {
        let w = (tb.rect[2] - tb.rect[0]) as usize;
        let h = (tb.rect[3] - tb.rect[1]) as usize;
        let n = self.samples;
        let write = |t: &Texture, texel: usize, bytes: &[u8]| {
            for s in 0..n {
                for y in 0..h {
                    let Some(a) = t.texel_addr(
                        0,
                        0,
                        [tb.rect[0] as u32, tb.rect[1] as u32 + y as u32, 0],
                        s,
                    ) else {
                        continue;
                    };
                    let row = (s as usize * h + y) * w * texel;
                    t.memory().write_bytes(a, &bytes[row..row + w * texel]);
                }
            }
        };
        for (rt, c) in self.s.render_targets.iter().zip(&tb.colors) {
            if let (Some(rt), Some(c)) = (rt, c) {
                write(&rt.texture, c.texel, &c.bytes);
            }
        }
        if let (Some(d), Some(td)) = (&self.s.depth_stencil_view, &tb.depth) {
            let texel = td.format.bytes_per_texel() as usize;
            let mut bytes = vec![0u8; td.depth.len() * texel];
            for (i, b) in bytes.chunks_exact_mut(texel).enumerate() {
                TileDepth::encode(td.format, td.depth[i], td.stencil[i], b);
            }
            write(&d.texture, texel, &bytes);
        }
    }

    /// The early depth-stencil test (before the pixel program) of the quad of `prim` (as
    /// the tile's list carries it) whose top-left pixel is `(x, y)`, on the tile's depth copy `td` of tile `rect`:
    /// each sample of `mask` (the quad's coverage, per pixel) that the sample mask lets
    /// through is tested, and cleared when it fails; a pixel left with no sample the
    /// merger may write is left with none at all (D3D11.3 §16.9.4, §3.5.4: the test
    /// looks only at the coverage ANDed with the sample mask). `per_sample` names the
    /// lane a [`MergeObserver`] is told of: the sample's own when the program runs per
    /// sample, else sample 0's.
    #[inline(always)]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn early_test(
        &self,
        prim: &Binned,
        x: u32,
        y: u32,
        mask: &mut [u32; 4],
        td: &mut TileDepth,
        rect: [i32; 4],
        per_sample: bool,
    ) {
        let ds = &self.s.depth_stencil;
        let stencil_ref = self.s.stencil_ref_for(prim.front);
        let bounds = self.s.depth_bounds_test();
        let sample_mask = self.s.sample_mask;
        let pattern = self.stage.pattern;
        for (k, m) in mask.iter_mut().enumerate() {
            let (px, py) = (x + (k as u32 & 1), y + (k as u32 >> 1));
            let mut bits = *m & sample_mask;
            while bits != 0 {
                let smp = bits.trailing_zeros();
                bits &= bits - 1;
                let z = self.stage.plane_depth_at(
                    &prim.z,
                    prim.viewport,
                    interp::sample(pattern, px, py, smp),
                );
                let i = tb_index(rect, px, py, smp);
                let before = self.writes.map(|_| depth_word(td, i));
                let pass = super::depth_stencil_test(ds, td, i, z, prim.front, stencil_ref, bounds);
                if let (Some(w), Some(before)) = (self.writes, before)
                    && depth_written(ds, pass, before, depth_word(td, i))
                {
                    let sample = if per_sample { smp } else { 0 };
                    let lane = PixelLane {
                        prim: prim.id,
                        x: px,
                        y: py,
                        sample,
                        coverage: *m,
                        rate: crate::pipeline::vrs::ShadingRate::X1X1,
                    };
                    w.write_setup(MergeTarget::DepthStencil, px, py, smp, &lane, prim.index);
                }
                if !pass {
                    *m &= !(1 << smp);
                }
            }
            // No sample the merger may write passed: nothing to shade.
            if *m & sample_mask == 0 {
                *m = 0;
            }
        }
    }

    /// Merges a pixel wave of `quads` whose output words are `out` (word `k` of lane `l`
    /// at `k × w + l`): `live` are the lanes that cover a sample and did not discard,
    /// `killed` those that discarded, `cover0` the lanes covering sample 0 of a primitive
    /// the draw has. The whole wave at once when [`OutputMerger::merge_direct`] can, else
    /// lane by lane on the tile's copies.
    #[inline]
    #[allow(clippy::too_many_arguments)]
    pub(crate) fn merge_wave(
        &self,
        quads: &[PixelQuad],
        live: u128,
        killed: u128,
        cover0: u128,
        out: &[u32],
        w: usize,
        tb: &mut TileBuf<'_>,
    ) {
        if self.merge_direct(quads, live, cover0, out, w, tb) {
            return;
        }
        // The lane-by-lane merge reads and writes the tile's copies.
        self.take_copies(tb);
        for (qi, q) in quads.iter().enumerate() {
            for k in 0..4 {
                let l = qi * 4 + k;
                let lane = q.lane(k);
                if lane.coverage == 0 || (killed >> l) & 1 == 1 {
                    continue;
                }
                self.merge(
                    &lane,
                    |word| out.get(word as usize * w + l).copied().unwrap_or(0),
                    tb,
                );
            }
        }
    }

    /// The output merger for the lanes `live` of a wave at once when it only writes
    /// colours through direct writes (no merge observer, no late depth-stencil, no
    /// coverage from the program, no dual source); `false`, having written nothing,
    /// when [`OutputMerger::merge`] must do the work lane by lane. Each target's UNORM8
    /// channels are converted for the whole wave first (word `k` of lane `l` lies at
    /// `k × w + l`), then scattered: the bytes and their order per target are those of
    /// the lane-by-lane merge, and targets are separate buffers.
    fn merge_direct(
        &self,
        quads: &[PixelQuad],
        live: u128,
        cover0: u128,
        out: &[u32],
        w: usize,
        tb: &mut TileBuf,
    ) -> bool {
        /// The widest wave the conversion buffer holds.
        const MAX_W: usize = 128;
        if self.writes.is_some()
            || !(self.early || tb.depth.is_none())
            || self.ps_out.coverage.is_some()
            || self.s.blend.alpha_to_coverage_enable
            || self.dual
            || w > MAX_W
            || quads.len() * 4 > w
        {
            return false;
        }
        for i in 0..tb.colors.len().max(tb.in_place.len()) {
            let copy = matches!(tb.colors.get(i), Some(Some(_)));
            let in_place = matches!(tb.in_place.get(i), Some(Some(_)));
            if !copy && !in_place {
                continue;
            }
            let direct = self.direct.get(i).copied().flatten();
            if let Some((word, _)) = self.ps_out.targets.get(i).copied().flatten()
                && (direct.is_none() || out.len() < (word as usize + 4) * w)
            {
                return false;
            }
            if in_place && !matches!(direct, Some(DirectWrite::Unorm8(_))) {
                return false;
            }
        }
        let n = self.samples;
        let mask = self.s.sample_mask;
        let prims = self.stage.prims.len();
        let mut texels = [0u32; MAX_W];
        let corner = [tb.rect[0], tb.rect[1]];
        // One sample per pixel: the texel goes to the pixel of each live lane whose
        // coverage (`cover0`) and the sample mask both hold sample 0 — `tb_index` with
        // sample 0, without the walk over coverage bits.
        let set = if mask & 1 != 0 { live & cover0 } else { 0 };
        tb.passed += if n == 1 {
            u64::from(set.count_ones())
        } else {
            let mut k = 0;
            for (qi, q) in quads.iter().enumerate() {
                if (q.prim as usize) < prims {
                    for j in 0..4 {
                        if (live >> (4 * qi + j)) & 1 == 1 {
                            k += u64::from((q.lane(j).coverage & mask).count_ones());
                        }
                    }
                }
            }
            k
        };
        for (i, ip) in tb.in_place.iter().enumerate() {
            let Some(ip) = ip else { continue };
            let (Some((word, _)), Some(DirectWrite::Unorm8(order))) = (
                self.ps_out.targets.get(i).copied().flatten(),
                self.direct.get(i).copied().flatten(),
            ) else {
                continue;
            };
            let src = &out[word as usize * w..(word as usize + 4) * w];
            DirectWrite::unorm8_texels(src, w, order, &mut texels[..w]);
            scatter_quads(quads, &texels, set, corner, ip.pitch, |i, a, b, which| {
                if which & 1 != 0 {
                    ip.put(i, a);
                }
                if which & 2 != 0 {
                    ip.put(i.wrapping_add(1), b);
                }
            });
        }
        for (i, c) in tb.colors.iter_mut().enumerate() {
            let Some(c) = c else { continue };
            let Some((word, _)) = self.ps_out.targets.get(i).copied().flatten() else {
                continue;
            };
            let Some(d) = self.direct.get(i).copied().flatten() else {
                continue;
            };
            let src = &out[word as usize * w..(word as usize + 4) * w];
            if let DirectWrite::Unorm8(order) = d {
                DirectWrite::unorm8_texels(src, w, order, &mut texels[..w]);
                if n == 1 && c.texel == 4 {
                    // A row of a quad with both its pixels written is one eight-byte
                    // store.
                    let tw = (tb.rect[2] - tb.rect[0]) as usize;
                    scatter_quads(
                        quads,
                        &texels,
                        set,
                        corner,
                        tw,
                        |i, a, b, which| match which {
                            3 => DirectWrite::put_texel4_pair(c, i, a, b),
                            1 => DirectWrite::put_texel4(c, i, a),
                            _ => DirectWrite::put_texel4(c, i.wrapping_add(1), b),
                        },
                    );
                    continue;
                }
            }
            for (qi, q) in quads.iter().enumerate() {
                if q.prim as usize >= prims {
                    continue;
                }
                for k in 0..4 {
                    let l = 4 * qi + k;
                    if (live >> l) & 1 == 0 {
                        continue;
                    }
                    let lane = q.lane(k);
                    let mut bits = lane.coverage & mask;
                    if let DirectWrite::Unorm8(_) = d {
                        let texel = texels[l];
                        while bits != 0 {
                            let smp = bits.trailing_zeros();
                            bits &= bits - 1;
                            let idx = tb_index(tb.rect, lane.x, lane.y, smp);
                            DirectWrite::put_texel4(c, idx, texel);
                        }
                        continue;
                    }
                    while bits != 0 {
                        let smp = bits.trailing_zeros();
                        bits &= bits - 1;
                        let idx = tb_index(tb.rect, lane.x, lane.y, smp);
                        d.write(c, idx, [src[l], src[w + l], src[2 * w + l], src[3 * w + l]]);
                    }
                }
            }
        }
        true
    }

    /// The output merger for one lane: coverage, late depth-stencil, colour writes.
    fn merge(&self, lane: &PixelLane, out: impl Fn(u32) -> u32, tb: &mut TileBuf<'_>) {
        let Some(prim) = self.stage.prims.get(lane.prim as usize) else {
            return;
        };
        let n = self.samples;
        // A merge observer is told the draw's primitive, not the set-up one (clipping may
        // cut a primitive into several).
        let drawn = PixelLane {
            prim: prim.id,
            ..*lane
        };
        let mut cov = lane.coverage & self.s.sample_mask;
        if let Some(w) = self.ps_out.coverage {
            cov &= out(w);
        }
        if self.s.blend.alpha_to_coverage_enable
            && let Some((w, m)) = self.ps_out.targets[0]
            && m & 8 != 0
        {
            cov &= super::alpha_to_coverage(f32::from_bits(out(w + 3)), n);
        }
        if cov == 0 {
            return;
        }
        let pattern = self.stage.pattern;
        if !self.early {
            let stencil_ref = self
                .ps_out
                .stencil_ref
                .map_or(self.s.stencil_ref_for(prim.front), |w| out(w) as u8);
            let bounds = self.s.depth_bounds_test();
            let shader_z = self.ps_out.depth.map(|(w, kind)| {
                let z = f32::from_bits(out(w));
                let raster_z = self.stage.depth_at(prim, interp::centre(lane.x, lane.y));
                let z = match kind {
                    ps::DepthOut::Any => z,
                    ps::DepthOut::GreaterEqual => crate::exec::float::max_f32(z, raster_z),
                    ps::DepthOut::LessEqual => crate::exec::float::min_f32(z, raster_z),
                };
                ps::clamp_depth(z, self.stage.depth_range(prim))
            });
            if let Some(td) = tb.depth.as_mut() {
                let mut bits = cov;
                while bits != 0 {
                    let smp = bits.trailing_zeros();
                    bits &= bits - 1;
                    let z = shader_z.unwrap_or_else(|| {
                        self.stage
                            .depth_at(prim, interp::sample(pattern, lane.x, lane.y, smp))
                    });
                    let i = tb_index(tb.rect, lane.x, lane.y, smp);
                    let before = self.writes.map(|_| depth_word(td, i));
                    let pass = super::depth_stencil_test(
                        &self.s.depth_stencil,
                        td,
                        i,
                        z,
                        prim.front,
                        stencil_ref,
                        bounds,
                    );
                    if let (Some(w), Some(before)) = (self.writes, before)
                        && depth_written(&self.s.depth_stencil, pass, before, depth_word(td, i))
                    {
                        w.write_setup(
                            MergeTarget::DepthStencil,
                            lane.x,
                            lane.y,
                            smp,
                            &drawn,
                            lane.prim,
                        );
                    }
                    if !pass {
                        cov &= !(1 << smp);
                    }
                }
            }
        }
        tb.passed += u64::from(cov.count_ones());
        let dual = self.dual;
        let src1 = match (dual, self.ps_out.targets[1]) {
            (true, Some((w, _))) => [out(w), out(w + 1), out(w + 2), out(w + 3)],
            _ => [0; 4],
        };
        for (i, c) in tb.colors.iter_mut().enumerate() {
            let Some(c) = c else { continue };
            if dual && i > 0 {
                break;
            }
            let Some((w, mask)) = self.ps_out.targets.get(i).copied().flatten() else {
                continue;
            };
            let src = [out(w), out(w + 1), out(w + 2), out(w + 3)];
            let desc = self.s.blend.target(i);
            let direct = self.direct.get(i).copied().flatten();
            let mut bits = cov;
            while bits != 0 {
                let smp = bits.trailing_zeros();
                bits &= bits - 1;
                let idx = tb_index(tb.rect, lane.x, lane.y, smp);
                match direct {
                    Some(d) => d.write(c, idx, src),
                    None => super::write_color(desc, &self.s.blend_factor, c, idx, src, src1, mask),
                }
                if let Some(w) = self.writes
                    && desc.render_target_write_mask & mask & 0xf != 0
                {
                    w.write_setup(
                        MergeTarget::Color(i as u32),
                        lane.x,
                        lane.y,
                        smp,
                        &drawn,
                        lane.prim,
                    );
                }
            }
        }
    }
}

/// The targets of a draw whose tiles write them in place, with no tile copy loaded
/// before and stored after: a copy pays for itself only when the merge reads the
/// target (blending, a mask, a depth test after the program, several samples). A target
/// is written in place when
///
/// - it has one sample, and its write is the direct UNORM8 one ([`DirectWrite`]:
///   no blending, logic operation or partial mask; a texel per word);
/// - the whole-wave direct merge applies to the draw (no merge observer, no late
///   depth-stencil, no `SV_Coverage` output, no alpha-to-coverage, no dual source);
/// - its memory is no other target's, not the depth-stencil buffer's and bound to no
///   register of the pixel program (which would then see the tile's writes as they
///   happen instead of the target as it was before the tile).
///
/// A wave the direct merge declines all the same (`merge_direct`) first makes the tile's
/// copy from the target, which holds every earlier write, so no write is lost.
fn in_place_targets(m: &OutputMerger<'_>) -> [bool; 8] {
    let mut out = [false; 8];
    let s = m.s;
    if m.writes.is_some()
        || !(m.early || s.depth_stencil_view.is_none())
        || m.ps_out.coverage.is_some()
        || s.blend.alpha_to_coverage_enable
        || m.dual
        || m.samples != 1
    {
        return out;
    }
    let rts: Vec<Option<&Memory>> = s
        .render_targets
        .iter()
        .map(|rt| rt.as_ref().map(|rt| rt.texture.memory()))
        .collect();
    let bound = |mem: &Memory| {
        let b = s.ps_bindings;
        b.ranges
            .iter()
            .flatten()
            .chain(&b.resource_heap)
            .any(|d| descriptor_memory(d) == Some(mem))
            || s.depth_stencil_view
                .as_ref()
                .is_some_and(|d| d.texture.memory() == mem)
    };
    for (i, mem) in rts.iter().enumerate().take(8) {
        let Some(mem) = mem else { continue };
        let shared = rts
            .iter()
            .enumerate()
            .any(|(j, o)| j != i && o.is_some_and(|o| o == *mem));
        out[i] = matches!(m.direct[i], Some(DirectWrite::Unorm8(_))) && !shared && !bound(mem);
    }
    out
}

/// The memory a descriptor's view reads or writes.
fn descriptor_memory(d: &Descriptor) -> Option<&Memory> {
    match d {
        Descriptor::Buffer { view, .. } => Some(&view.memory),
        Descriptor::Texture(v) => Some(v.texture.memory()),
        Descriptor::ConstantBuffer { memory, .. } => Some(memory),
        _ => None,
    }
}

/// The one-sample direct merge's scatter, a quad at a time: the texel (`texels`, lane
/// order) of each lane in `set` to its pixel, through `put(i, texel)` with `i` counted
/// row-major from the tile's top-left pixel `corner`, rows `pitch` apart: `put(i, left,
/// right, which)` writes a row of a quad, its left pixel (at `i`) when `which & 1`, its
/// right one when `which & 2`.
#[inline(always)]
fn scatter_quads(
    quads: &[PixelQuad],
    texels: &[u32],
    set: u128,
    corner: [i32; 2],
    pitch: usize,
    mut put: impl FnMut(usize, u32, u32, u64),
) {
    let [x0, y0] = corner;
    for (half, bits) in [set as u64, (set >> 64) as u64].into_iter().enumerate() {
        let mut bits = bits;
        while bits != 0 {
            let j = bits.trailing_zeros() / 4;
            let nib = (bits >> (4 * j)) & 0xf;
            bits &= !(0xf << (4 * j));
            let qi = half * 16 + j as usize;
            let (Some(q), Some(t)) = (quads.get(qi), texels.get(4 * qi..4 * qi + 4)) else {
                continue;
            };
            let top = ((q.y as i32).wrapping_sub(y0) as usize)
                .wrapping_mul(pitch)
                .wrapping_add((q.x as i32).wrapping_sub(x0) as usize);
            for row in 0..2 {
                let idx = top.wrapping_add(row * pitch);
                let (a, b) = (t[2 * row], t[2 * row + 1]);
                let which = (nib >> (2 * row)) & 3;
                if which != 0 {
                    put(idx, a, b, which);
                }
            }
        }
    }
}

/// Whether target 0 blends with a second source colour (a factor reads `SV_Target1`).
fn dual_source(b: &BlendDesc) -> bool {
    let t = b.target(0);
    t.blend_enable
        && [
            t.src_blend,
            t.dest_blend,
            t.src_blend_alpha,
            t.dest_blend_alpha,
        ]
        .iter()
        .any(|f| f.dual_source())
}

/// Per render target, the output merger's direct write ([`DirectWrite`]) when the
/// target's state and the program's written components allow one.
fn direct_writes(s: &DrawState<'_>, out: &PsOutputs) -> [Option<DirectWrite>; 8] {
    let mut d = [None; 8];
    for (i, rt) in s.render_targets.iter().enumerate().take(8) {
        if let (Some(rt), Some((_, mask))) = (rt, out.targets[i]) {
            d[i] = DirectWrite::of(s.blend.target(i), rt.texture.desc().format, mask);
        }
    }
    d
}

/// The stored depth bits and stencil of sample `i` of a tile (for write tracking).
fn depth_word(td: &TileDepth, i: usize) -> (u32, u8) {
    (
        td.depth.get(i).copied().unwrap_or(0),
        td.stencil.get(i).copied().unwrap_or(0),
    )
}

/// Whether a depth-stencil test wrote the sample: a passing test with depth writes on
/// stores its depth (even an equal one), and a stencil operation that changed the
/// stencil value wrote it.
fn depth_written(ds: &DepthStencilDesc, pass: bool, before: (u32, u8), after: (u32, u8)) -> bool {
    (pass && ds.depth_enable && ds.depth_write) || before != after
}

/// The index of sample `s` of pixel `(x, y)` in a tile copy of tile `rect`: sample
/// planes one after the other, each row-major from the tile's corner
/// (`TileColor::bytes`' order, in texels).
fn tb_index(rect: [i32; 4], x: u32, y: u32, s: u32) -> usize {
    let w = (rect[2] - rect[0]) as usize;
    let h = (rect[3] - rect[1]) as usize;
    (s as usize * h + (y as i32 - rect[1]) as usize) * w + (x as i32 - rect[0]) as usize
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_shader;
    use crate::pipeline::bin::Bins;
    use crate::pipeline::dispatch::Bindings;
    use crate::pipeline::link::Linked;
    use crate::pipeline::raster::Pattern;
    use crate::pipeline::state::{DepthStencilView, RenderTargetView};
    use crate::pipeline::vs::VertexOutputs;
    use crate::resources::{Format, TextureDesc, TextureDim, TextureView};

    fn program(text: &str) -> crate::ir::Shader {
        parse_shader(text).unwrap()
    }

    /// A vertex program with nothing in it, and a pixel program writing SV_Target0.
    fn programs() -> (crate::ir::Shader, crate::ir::Shader) {
        let vs = program(
            "shader vertex\nregs 1\nio_words in 0 out 4\n\
             output \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0\n\
             block0:\n    return\n",
        );
        let ps = program(
            "shader pixel\nregs 1\nio_words in 0 out 4\n\
             output \"SV_Target\" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0\n\
             block0:\n    return\n",
        );
        (vs, ps)
    }

    fn linked() -> Linked {
        Linked {
            vs_inputs: Vec::new(),
            gs_inputs: Vec::new(),
            ps_inputs: Vec::new(),
            position: [0, 1, 2, 3],
            clip_distances: Vec::new(),
            cull_distances: Vec::new(),
            per_sample: false,
        }
    }

    fn texture(format: Format, w: u32, h: u32, samples: u32, seed: u32) -> Texture {
        let mut d = TextureDesc::tex2d(format, w, h);
        if samples > 1 {
            d.dim = TextureDim::Tex2DMS;
            d.samples = samples;
        }
        let t = Texture::new(d).unwrap();
        // Bytes that differ from texel to texel and from target to target.
        let mut x = seed.wrapping_mul(0x9e37_79b9) | 1;
        let bytes: Vec<u8> = (0..t.memory().len())
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 17;
                x ^= x << 5;
                x as u8
            })
            .collect();
        t.memory().write_bytes(0, &bytes);
        t
    }

    /// Loading each tile's copies and storing them back leaves every target and the
    /// depth-stencil buffer as they were, every sample of every tile, edge tiles
    /// included; a texel changed in a copy lands at its pixel and sample, nowhere else.
    #[test]
    fn tiles_load_and_store_back_every_sample() {
        let (vs, ps) = programs();
        let none = Bindings::default();
        let (w, h, n) = (70, 67, 4);
        let rt0 = texture(Format::R8G8B8A8_UNORM, w, h, n, 1);
        let rt1 = texture(Format::R32G32B32A32_FLOAT, w, h, n, 2);
        let ds = texture(Format::D24_UNORM_S8_UINT, w, h, n, 3);
        let mut s = DrawState::new(&vs, Some(&ps), &none, &none);
        s.render_targets = vec![
            Some(RenderTargetView {
                texture: rt0.clone(),
            }),
            None,
            Some(RenderTargetView {
                texture: rt1.clone(),
            }),
        ];
        s.depth_stencil_view = Some(DepthStencilView {
            texture: ds.clone(),
        });
        let link = linked();
        let vertices = VertexOutputs::default();
        let pattern = Pattern::standard(n).unwrap();
        let stage = PixelStage {
            link: &link,
            prims: &[],
            vertices: &vertices,
            pattern: &pattern,
            depth_ranges: &[(0.0, 1.0)],
            attrs: None,
            read: None,
        };
        let m = OutputMerger::new(&s, &stage, n, true, PsOutputs::of(&ps), None);
        assert_eq!(m.in_place, [false; 8], "several samples: tile copies");
        let before = [rt0.to_bytes(), rt1.to_bytes(), ds.to_bytes()];
        let bins = Bins::<u32>::new(w, h);
        for i in 0..bins.bins.len() as u32 {
            let tb = m.load(bins.rect(i));
            assert!(tb.colors[1].is_none() && tb.in_place.iter().all(Option::is_none));
            m.store(&tb);
        }
        assert_eq!([rt0.to_bytes(), rt1.to_bytes(), ds.to_bytes()], before);

        // One texel of sample 2 of pixel (66, 65), in the bottom-right tile.
        let rect = bins.rect(bins.bins.len() as u32 - 1);
        assert_eq!(rect, [64, 64, 70, 67]);
        let mut tb = m.load(rect);
        let i = tb_index(rect, 66, 65, 2);
        let c = tb.colors[0].as_mut().unwrap();
        let at = rt0.texel_addr(0, 0, [66, 65, 0], 2).unwrap() as usize;
        assert_eq!(c.bytes[i * 4..i * 4 + 4], before[0][at..at + 4]);
        DirectWrite::put_texel4(c, i, 0x0403_0201);
        m.store(&tb);
        let mut want = before[0].clone();
        want[at..at + 4].copy_from_slice(&[1, 2, 3, 4]);
        assert_eq!(rt0.to_bytes(), want);
        assert_eq!(rt1.to_bytes(), before[1]);
        assert_eq!(ds.to_bytes(), before[2]);
    }

    /// Which targets a tile writes in place: a one-sample UNORM8 target the merge only
    /// overwrites, whose memory nothing else of the draw reads or writes.
    #[test]
    fn in_place_targets_are_the_overwritten_unshared_unorm8_ones() {
        let (vs, ps) = programs();
        let none = Bindings::default();
        let link = linked();
        let vertices = VertexOutputs::default();
        let pattern = Pattern::standard(1).unwrap();
        let stage = PixelStage {
            link: &link,
            prims: &[],
            vertices: &vertices,
            pattern: &pattern,
            depth_ranges: &[(0.0, 1.0)],
            attrs: None,
            read: None,
        };
        let ps_out = PsOutputs::of(&ps);
        let rt = |f: Format| texture(f, 8, 8, 1, 4);
        let view = |t: &Texture| Some(RenderTargetView { texture: t.clone() });
        let unorm = rt(Format::R8G8B8A8_UNORM);
        let eligible = |s: &DrawState<'_>, early: bool, writes: Option<&dyn MergeObserver>| {
            OutputMerger::new(s, &stage, 1, early, ps_out, writes).in_place[0]
        };

        let mut s = DrawState::new(&vs, Some(&ps), &none, &none);
        s.render_targets = vec![view(&unorm)];
        assert!(eligible(&s, true, None));
        assert!(
            eligible(&s, false, None),
            "late depth without a depth buffer"
        );
        let bgra = rt(Format::B8G8R8A8_UNORM);
        s.render_targets = vec![view(&bgra)];
        assert!(eligible(&s, true, None));

        // Blending, a partial write mask and other formats read the target or write
        // through `write_color`.
        s.render_targets = vec![view(&unorm)];
        s.blend.render_target[0].blend_enable = true;
        assert!(!eligible(&s, true, None), "blending");
        s.blend = BlendDesc::default();
        s.blend.render_target[0].render_target_write_mask = 0x7;
        assert!(!eligible(&s, true, None), "a partial mask");
        s.blend = BlendDesc::default();
        for f in [
            Format::R8G8B8A8_UNORM_SRGB,
            Format::R32G32B32A32_FLOAT,
            Format::R16G16B16A16_FLOAT,
        ] {
            s.render_targets = vec![view(&rt(f))];
            assert!(!eligible(&s, true, None), "{f}");
        }

        // Anything the whole-wave direct merge declines.
        s.render_targets = vec![view(&unorm)];
        s.blend.alpha_to_coverage_enable = true;
        assert!(!eligible(&s, true, None), "alpha to coverage");
        s.blend = BlendDesc::default();
        struct Heard;
        impl MergeObserver for Heard {
            fn write(&self, _: MergeTarget, _: u32, _: u32, _: u32, _: &PixelLane) {}
        }
        assert!(!eligible(&s, true, Some(&Heard)), "a merge observer");
        let depth = texture(Format::D32_FLOAT, 8, 8, 1, 5);
        s.depth_stencil_view = Some(DepthStencilView {
            texture: depth.clone(),
        });
        assert!(eligible(&s, true, None), "early depth");
        assert!(!eligible(&s, false, None), "late depth");
        s.depth_stencil_view = None;
        let covered = PsOutputs {
            coverage: Some(4),
            ..ps_out
        };
        assert!(
            !OutputMerger::new(&s, &stage, 1, true, covered, None).in_place[0],
            "SV_Coverage output"
        );
        let msaa = texture(Format::R8G8B8A8_UNORM, 8, 8, 4, 6);
        s.render_targets = vec![view(&msaa)];
        assert!(
            !OutputMerger::new(&s, &stage, 4, true, ps_out, None).in_place[0],
            "several samples"
        );

        // Memory shared with another target, or bound to the pixel program.
        s.render_targets = vec![view(&unorm), view(&unorm)];
        let m = OutputMerger::new(&s, &stage, 1, true, ps_out, None);
        assert_eq!(
            m.in_place[..2],
            [false, false],
            "one texture as two targets"
        );
        // The program's own registers and heap: its target is not in place, another
        // texture bound there changes nothing.
        let read = |d: Vec<Descriptor>, heap: bool| {
            let b = if heap {
                Bindings {
                    resource_heap: d,
                    ..Bindings::default()
                }
            } else {
                Bindings {
                    ranges: vec![d],
                    ..Bindings::default()
                }
            };
            let mut s = DrawState::new(&vs, Some(&ps), &none, &b);
            s.render_targets = vec![view(&unorm)];
            OutputMerger::new(&s, &stage, 1, true, ps_out, None).in_place[0]
        };
        let srv = |t: &Texture| Descriptor::Texture(TextureView::whole(t.clone()));
        for heap in [false, true] {
            assert!(
                !read(vec![srv(&bgra), srv(&unorm)], heap),
                "bound, heap {heap}"
            );
            assert!(read(vec![srv(&bgra)], heap), "another texture, heap {heap}");
        }
    }
}
