//! Input assembly: vertices fetched from vertex buffers through an input layout, indices
//! from an index buffer, and primitives assembled by topology.
//!
//! Owns: resolving `D3D12_APPEND_ALIGNED_ELEMENT` offsets and checking an input layout,
//! fetching one element of one vertex (or instance) through `resources::format`, reading
//! indices with strip cuts, and turning the draw's vertex stream into points, lines and
//! triangles numbered by `SV_PrimitiveID`. Does not own: running the vertex stage (`vs`).
//!
//! # Rules (D3D11.3 §8, "Input Assembler Stage")
//!
//! - A per-vertex element of vertex `i` of a non-indexed draw is read at
//!   `(StartVertexLocation + i) × stride + offset`; of an indexed draw at
//!   `(index + BaseVertexLocation) × stride + offset`. A per-instance element of instance
//!   `k` (step rate `n`) at `(StartInstanceLocation + k / n) × stride + offset` (§8.4.1).
//! - `SV_VertexID` is `i` (non-indexed) or the index value (indexed), `SV_InstanceID` is
//!   `k`: neither includes the start locations or the base vertex (§8.4.2, §8.16).
//! - An element that does not lie wholly inside its bound buffer (past its end, or before
//!   its start) reads 0 in the components its format has and the defaults in those it
//!   lacks — (0, 0, 0, 1) typed by the format (D3D11.3 §8.19.2 "Addressing Bounds",
//!   §19.1.3.3): an out-of-bounds `R32G32B32_FLOAT` element reads (0, 0, 0, 1.0). An element
//!   some of whose bytes lie inside is out of bounds as a whole: the specification does not
//!   say, and this is what Vulkan's `robustBufferAccess2`, which D3D12 layers rely on,
//!   does. A slot with no buffer bound reads 0 in all four components, defaults not
//!   applied (§8.20 "Input Assembler Data Conversion During Fetching"). In bounds, missing
//!   components take the same defaults (§19.1.3.3).
//! - A buffer view (`BufferLocation`, `SizeInBytes`) bounds its reads: an element or an
//!   index that does not lie wholly inside the view is out of bounds even when the
//!   buffer goes on past the view's end, as D3D11.3 §8.19.2 bounds fetches by the view.
//! - Index reads past the index buffer give 0 (robust buffer access). With a strip cut
//!   value enabled, 0xffff (16-bit) or 0xffffffff (32-bit) ends the current strip; in list
//!   topologies it drops the incomplete primitive (§8.10 "Primitive Topologies", §8.12 "Generating Multiple Strips", §8.13 "Partially
//!   Completed Primitives").
//! - Strips: triangle `k` of a strip is `(k, k+1, k+2)` for even `k` and `(k, k+2, k+1)` for
//!   odd `k`, so every triangle keeps the strip's winding and vertex `k` — the leading
//!   vertex D3D makes the provoking vertex — stays first (§8 "Primitive Topologies"). Adjacency topologies rasterize the primitive's own vertices (0, 2, 4 of
//!   six; 1, 2 of four); a geometry program reads all of them ([`Primitive::gs`]).
//! - **What a geometry program reads** (D3D11.3 §8 "Primitive Topologies", and the
//!   "leading vertex" rule of Microsoft's *Primitive Topologies* page: the leading
//!   vertices of a triangle strip with adjacency are 0, 2, 4, …). Lists and line strips
//!   with adjacency give their vertices in stream order (a line with adjacency is
//!   `a, b, c, d`, the line `b–c`). Triangle `k` of a strip with adjacency, whose own
//!   vertices are `2k, 2k+2, 2k+4`, reads them leading vertex first with each edge's
//!   neighbour after the edge's first vertex: even `k`
//!   `2k, p, 2k+2, n, 2k+4, 2k+3`, odd `k` `2k, 2k+3, 2k+4, n, 2k+2, p` — `p` the
//!   previous triangle's far vertex `2k−2` (`1` for the first triangle), `n` the next
//!   one's `2k+6` (`2k+5` for the last: a strip's triangle is emitted once the next
//!   triangle, a cut or the end of the stream says whether it is the last).

use std::fmt;

use super::state::{
    APPEND_ALIGNED_ELEMENT, DrawArgs, IndexBufferView, IndexFormat, InputLayout, PrimitiveTopology,
    VERTEX_INPUT_SLOTS, VertexBufferView, read_view,
};
use crate::resources::Format;

/// The most bytes one vertex may span (`D3D12_IA_VERTEX_INPUT_STRUCTURE_ELEMENTS_COMPONENTS`
/// × 4 is 128 × 4 = 512; strides up to 2048 are allowed: `D3D12_REQ_..._STRIDE` = 2048).
pub const MAX_STRIDE: u32 = 2048;

/// One element of a resolved input layout.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Element {
    /// Semantic name as the layout spells it.
    pub semantic: String,
    /// Semantic index.
    pub semantic_index: u32,
    /// Format in the buffer.
    pub format: Format,
    /// Slot.
    pub slot: u32,
    /// Byte offset in the vertex (append-aligned offsets resolved).
    pub offset: u32,
    /// 0 per vertex; `n` per instance.
    pub step_rate: u32,
}

/// Why an input layout cannot be used.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LayoutError {
    /// The element (0-based).
    pub element: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for LayoutError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "input element {}: {}", self.element, self.message)
    }
}

/// Whether the input assembler reads vertex data of `format` (channel formats that are
/// neither depth nor block-compressed nor typeless).
pub fn is_vertex_format(format: Format) -> bool {
    use crate::resources::format::Num;
    format.is_supported()
        && !format.is_depth()
        && matches!(
            format.layout(),
            crate::resources::format::Layout::Channels(_)
        )
        && format.channels().iter().all(|c| c.num != Num::Typeless)
}

/// Resolves offsets and checks every element: a slot below 32, a vertex format, an
/// offset that fits in a 2048-byte vertex, no semantic given twice.
pub fn resolve_layout(layout: &InputLayout) -> Result<Vec<Element>, LayoutError> {
    let mut next = [0u32; VERTEX_INPUT_SLOTS as usize];
    let mut out: Vec<Element> = Vec::with_capacity(layout.elements.len());
    for (i, e) in layout.elements.iter().enumerate() {
        let err = |message: String| LayoutError {
            element: i,
            message,
        };
        if e.input_slot >= VERTEX_INPUT_SLOTS {
            return Err(err(format!(
                "slot {} (D3D has slots 0 to {})",
                e.input_slot,
                VERTEX_INPUT_SLOTS - 1
            )));
        }
        if !is_vertex_format(e.format) {
            return Err(err(format!("{} is not a vertex format", e.format)));
        }
        let slot = e.input_slot as usize;
        let offset = if e.aligned_byte_offset == APPEND_ALIGNED_ELEMENT {
            // Append-aligned elements start at the next multiple of the smaller of the
            // element size and 4 (D3D12's `D3D12_APPEND_ALIGNED_ELEMENT`; the alignment
            // is D3D11.3 §4.4.6 "Element Alignment").
            let size = e.format.bytes_per_texel();
            let align = size.clamp(1, 4);
            next[slot].div_ceil(align) * align
        } else {
            e.aligned_byte_offset
        };
        let end = u64::from(offset) + u64::from(e.format.bytes_per_texel());
        if end > u64::from(MAX_STRIDE) {
            return Err(err(format!(
                "offset {offset} + {} bytes of {} goes past the {MAX_STRIDE}-byte vertex",
                e.format.bytes_per_texel(),
                e.format
            )));
        }
        next[slot] = end as u32;
        if let Some(p) = out.iter().position(|o| {
            o.semantic.eq_ignore_ascii_case(&e.semantic) && o.semantic_index == e.semantic_index
        }) {
            return Err(err(format!(
                "{}{} is already element {p}",
                e.semantic, e.semantic_index
            )));
        }
        out.push(Element {
            semantic: e.semantic.clone(),
            semantic_index: e.semantic_index,
            format: e.format,
            slot: e.input_slot,
            offset,
            step_rate: e.instance_data_step_rate,
        });
    }
    Ok(out)
}

/// Reads element `e` of the vertex at buffer index `index` (already including the start
/// location or base vertex) as four 32-bit values (see the module doc).
pub fn fetch(e: &Element, buffers: &[Option<VertexBufferView>], index: i64) -> [u32; 4] {
    let Some(Some(vb)) = buffers.get(e.slot as usize) else {
        // §8.20: an unbound slot reads zeros, without the format's defaults.
        return [0; 4];
    };
    let size = e.format.bytes_per_texel() as usize;
    let mut bytes = [0u8; 16];
    let Some(b) = bytes.get_mut(..size) else {
        return [0; 4];
    };
    let addr = u64::try_from(index).ok().and_then(|i| {
        i.checked_mul(u64::from(vb.stride))
            .and_then(|a| a.checked_add(u64::from(e.offset)))
    });
    let in_bounds = addr.is_some_and(|a| read_view(&vb.data, vb.offset, vb.size, a, b));
    if !in_bounds {
        // §8.19.2: out of bounds, the present components read 0 and the missing ones
        // their defaults — exactly what decoding zero bytes gives.
        b.fill(0);
    }
    e.format.decode(b)
}

/// The index buffer view's `i`-th index (0 past the view's end or the buffer's: see the
/// module doc).
pub fn read_index(ib: &IndexBufferView, i: u64) -> u32 {
    let mut b = [0u8; 4];
    let n = match ib.format {
        IndexFormat::U16 => 2,
        IndexFormat::U32 => 4,
    };
    let bytes = &mut b[..n];
    let read = i
        .checked_mul(n as u64)
        .is_some_and(|a| read_view(&ib.data, ib.offset, ib.size, a, bytes));
    if !read {
        return 0;
    }
    u32::from_le_bytes(b)
}

/// The draw's index stream, appended to `out`: stream position `p` → `SV_VertexID` (the
/// index at `start_vertex + p` of an indexed draw, else `p`), `vertex_count` of them. The
/// caller reserves `out` against its memory limit.
pub fn extend_index_stream(ib: Option<&IndexBufferView>, args: &DrawArgs, out: &mut Vec<u32>) {
    let count = u64::from(args.vertex_count);
    match ib {
        Some(ib) => {
            out.extend((0..count).map(|p| read_index(ib, u64::from(args.start_vertex) + p)))
        }
        None => out.extend(0..args.vertex_count),
    }
}

/// The vertices the vertex stage shades, into `out` (cleared first; the caller reserves
/// it): the distinct ids of the index stream `ids` in increasing order, strip cuts
/// (`cut`) left out. A vertex's lane slot in the stage is its position here, in every
/// instance.
pub fn distinct_vertices(ids: &[u32], cut: Option<u32>, out: &mut Vec<u32>) {
    out.clear();
    out.extend(ids.iter().copied().filter(|&i| Some(i) != cut));
    out.sort_unstable();
    out.dedup();
}

/// The strip cut value of an index format.
pub fn cut_value(format: IndexFormat) -> u32 {
    match format {
        IndexFormat::U16 => 0xffff,
        IndexFormat::U32 => 0xffff_ffff,
    }
}

/// What kind of primitive a topology makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum PrimKind {
    /// One vertex.
    Point,
    /// Two vertices.
    Line,
    /// Three vertices.
    Triangle,
}

impl PrimKind {
    /// Vertices per primitive.
    pub fn vertices(self) -> usize {
        match self {
            PrimKind::Point => 1,
            PrimKind::Line => 2,
            PrimKind::Triangle => 3,
        }
    }
}

/// The primitive kind of a topology.
pub fn prim_kind(t: PrimitiveTopology) -> PrimKind {
    use PrimitiveTopology as T;
    match t {
        T::PointList | T::PatchList(_) => PrimKind::Point,
        T::LineList | T::LineStrip | T::LineListAdj | T::LineStripAdj => PrimKind::Line,
        _ => PrimKind::Triangle,
    }
}

/// An assembled primitive: positions in the draw's vertex stream (`0 .. vertex_count`,
/// cut indices excluded), provoking vertex first, and its `SV_PrimitiveID`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Primitive {
    /// Stream positions of its vertices (only the first [`PrimKind::vertices`] are used).
    pub v: [u32; 3],
    /// `SV_PrimitiveID`: the primitive's number within its instance, counting every
    /// primitive the topology makes (culled or not).
    pub id: u32,
    /// Stream positions of the vertices a geometry program reads, adjacency included, in
    /// its order (see the module doc); the first [`gs_vertices`] of the topology are used.
    pub gs: [u32; 6],
}

/// Vertices per primitive a geometry program reads for `t`.
pub fn gs_vertices(t: PrimitiveTopology) -> usize {
    use PrimitiveTopology as T;
    match t {
        T::PointList => 1,
        T::LineList | T::LineStrip => 2,
        T::TriangleList | T::TriangleStrip => 3,
        T::LineListAdj | T::LineStripAdj => 4,
        T::TriangleListAdj | T::TriangleStripAdj => 6,
        T::PatchList(_) => 0,
    }
}

/// Assembles the patches of `count` stream positions of an `n`-control-point patch list,
/// as [`assemble`] assembles the other lists: every `n` positions make a patch, a strip
/// cut value drops the partial patch before it, a trailing partial patch is dropped, and
/// patch `k` of the draw instance has `SV_PrimitiveID` k. Calls `out` with each patch's
/// positions (in `points`, cleared first) and id; stops early when `out` returns false.
pub fn patches(
    n: u32,
    count: u32,
    is_cut: &dyn Fn(u32) -> bool,
    out: &mut dyn FnMut(&[u32], u32) -> bool,
) {
    let n = n as usize;
    if n == 0 {
        return;
    }
    let mut run: Vec<u32> = Vec::with_capacity(n);
    let mut id = 0u32;
    for p in 0..count {
        if is_cut(p) {
            run.clear();
            continue;
        }
        run.push(p);
        if run.len() == n {
            if !out(&run, id) {
                return;
            }
            id = id.wrapping_add(1);
            run.clear();
        }
    }
}

/// Assembles the primitives of `count` stream positions. `is_cut(p)` says whether
/// position `p` holds the strip cut value (always false without an index buffer or with
/// strip cuts disabled). Calls `out` for each primitive, in order; stops early when `out`
/// returns false.
pub fn assemble(
    topology: PrimitiveTopology,
    count: u32,
    is_cut: &dyn Fn(u32) -> bool,
    out: &mut dyn FnMut(Primitive) -> bool,
) {
    use PrimitiveTopology as T;
    let mut id = 0u32;
    let mut emit = |v: [u32; 3], gs: [u32; 6]| {
        let p = Primitive { v, id, gs };
        id = id.wrapping_add(1);
        out(p)
    };
    // A triangle strip with adjacency emits triangle `k` only once it knows whether it
    // is the strip's last: when the next one is complete, or at a cut or the end.
    let strip_adj = |run: &[u32], k: usize, last: bool| -> ([u32; 3], [u32; 6]) {
        let at = |i: usize| run.get(i).copied().unwrap_or(0);
        let (a, b, c) = (at(2 * k), at(2 * k + 2), at(2 * k + 4));
        let prev = if k == 0 { at(1) } else { at(2 * k - 2) };
        let next = if last { at(2 * k + 5) } else { at(2 * k + 6) };
        if k % 2 == 0 {
            ([a, b, c], [a, prev, b, next, c, at(2 * k + 3)])
        } else {
            ([a, c, b], [a, at(2 * k + 3), c, next, b, prev])
        }
    };
    // Restartable runs of positions: `run` holds the positions since the last cut.
    let mut run: Vec<u32> = Vec::new();
    let mut pending: Option<usize> = None;
    for p in 0..count {
        if is_cut(p) {
            if let Some(k) = pending.take() {
                let (v, gs) = strip_adj(&run, k, true);
                if !emit(v, gs) {
                    return;
                }
            }
            run.clear();
            continue;
        }
        run.push(p);
        let n = run.len();
        let keep_going = match topology {
            T::PointList => {
                let r = emit([p, p, p], [p; 6]);
                run.clear();
                r
            }
            T::LineList if n == 2 => {
                let r = emit([run[0], run[1], run[1]], [run[0], run[1], 0, 0, 0, 0]);
                run.clear();
                r
            }
            T::LineListAdj if n == 4 => {
                let r = emit(
                    [run[1], run[2], run[2]],
                    [run[0], run[1], run[2], run[3], 0, 0],
                );
                run.clear();
                r
            }
            T::TriangleList if n == 3 => {
                let r = emit([run[0], run[1], run[2]], [run[0], run[1], run[2], 0, 0, 0]);
                run.clear();
                r
            }
            T::TriangleListAdj if n == 6 => {
                let r = emit(
                    [run[0], run[2], run[4]],
                    [run[0], run[1], run[2], run[3], run[4], run[5]],
                );
                run.clear();
                r
            }
            T::LineStrip if n >= 2 => {
                let r = emit(
                    [run[n - 2], run[n - 1], run[n - 1]],
                    [run[n - 2], run[n - 1], 0, 0, 0, 0],
                );
                // Keep only the last vertex: the strip continues from it.
                let last = run[n - 1];
                run.clear();
                run.push(last);
                r
            }
            T::LineStripAdj if n >= 4 => {
                // Vertices a, b, c, d: the line b–c; then slide by one.
                let r = emit(
                    [run[n - 3], run[n - 2], run[n - 2]],
                    [run[n - 4], run[n - 3], run[n - 2], run[n - 1], 0, 0],
                );
                run.remove(0);
                r
            }
            T::TriangleStrip if n >= 3 => {
                // `run` holds every position since the last cut, so its length gives the
                // triangle's number in the strip and with it the parity.
                let k = n - 3;
                let (a, b, c) = (run[n - 3], run[n - 2], run[n - 1]);
                if k % 2 == 0 {
                    emit([a, b, c], [a, b, c, 0, 0, 0])
                } else {
                    emit([a, c, b], [a, c, b, 0, 0, 0])
                }
            }
            T::TriangleStripAdj if n >= 6 && n % 2 == 0 => {
                // Vertices 0, 2, 4, … are the strip; triangle k uses strip vertices k,
                // k+1, k+2 (positions 2k, 2k+2, 2k+4), odd ones reordered like strips.
                // Triangle k − 1 is now known not to be the last.
                let mut r = true;
                if let Some(k) = pending.take() {
                    let (v, gs) = strip_adj(&run, k, false);
                    r = emit(v, gs);
                }
                pending = Some((n - 6) / 2);
                r
            }
            _ => true,
        };
        if !keep_going {
            return;
        }
    }
    if let Some(k) = pending {
        let (v, gs) = strip_adj(&run, k, true);
        emit(v, gs);
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::pipeline::state::InputElementDesc;
    use crate::resources::Memory;

    fn prims(t: PrimitiveTopology, n: u32, cuts: &[u32]) -> Vec<[u32; 3]> {
        let mut v = Vec::new();
        assemble(t, n, &|p| cuts.contains(&p), &mut |p| {
            v.push(p.v);
            true
        });
        v
    }

    /// D3D11.3 §8 "Primitive Topologies": lists take disjoint groups, strips share
    /// vertices and keep the winding of their first triangle.
    #[test]
    fn topologies_assemble_as_d3d_orders_them() {
        use PrimitiveTopology as T;
        assert_eq!(prims(T::TriangleList, 7, &[]), vec![[0, 1, 2], [3, 4, 5]]);
        assert_eq!(
            prims(T::TriangleStrip, 5, &[]),
            vec![[0, 1, 2], [1, 3, 2], [2, 3, 4]]
        );
        assert_eq!(prims(T::LineStrip, 3, &[]), vec![[0, 1, 1], [1, 2, 2]]);
        assert_eq!(prims(T::LineList, 5, &[]), vec![[0, 1, 1], [2, 3, 3]]);
        assert_eq!(prims(T::PointList, 2, &[]), vec![[0, 0, 0], [1, 1, 1]]);
        assert_eq!(
            prims(T::TriangleListAdj, 6, &[]),
            vec![[0, 2, 4]],
            "adjacent vertices 1, 3, 5 are ignored"
        );
        assert_eq!(
            prims(T::TriangleStripAdj, 8, &[]),
            vec![[0, 2, 4], [2, 6, 4]]
        );
        assert_eq!(prims(T::LineStripAdj, 5, &[]), vec![[1, 2, 2], [2, 3, 3]]);
    }

    fn gs_prims(t: PrimitiveTopology, n: u32) -> Vec<Vec<u32>> {
        let mut v = Vec::new();
        assemble(t, n, &|_| false, &mut |p| {
            v.push(p.gs[..gs_vertices(t)].to_vec());
            true
        });
        v
    }

    /// What a geometry program reads (module doc: D3D11.3 §8 and the leading-vertex
    /// rule): lists and line strips with adjacency in stream order; triangle strips with
    /// adjacency leading vertex first, each edge followed by its neighbour, the first
    /// triangle's previous neighbour 1 and the last's next 2k+5.
    #[test]
    fn adjacency_reaches_the_geometry_program_in_d3d_order() {
        use PrimitiveTopology as T;
        assert_eq!(
            gs_prims(T::TriangleListAdj, 6),
            vec![vec![0, 1, 2, 3, 4, 5]]
        );
        assert_eq!(
            gs_prims(T::LineListAdj, 8),
            vec![vec![0, 1, 2, 3], vec![4, 5, 6, 7]]
        );
        assert_eq!(
            gs_prims(T::LineStripAdj, 5),
            vec![vec![0, 1, 2, 3], vec![1, 2, 3, 4]]
        );
        assert_eq!(
            gs_prims(T::TriangleStripAdj, 6),
            vec![vec![0, 1, 2, 5, 4, 3]]
        );
        assert_eq!(
            gs_prims(T::TriangleStripAdj, 10),
            vec![
                vec![0, 1, 2, 6, 4, 3],
                vec![2, 5, 6, 8, 4, 0],
                vec![4, 2, 6, 9, 8, 7]
            ]
        );
        assert_eq!(
            gs_prims(T::TriangleStrip, 4),
            vec![vec![0, 1, 2], vec![1, 3, 2]]
        );
    }

    /// A strip cut restarts the strip (and its winding parity); in a list it drops the
    /// incomplete primitive.
    #[test]
    fn strip_cuts_restart() {
        use PrimitiveTopology as T;
        assert_eq!(
            prims(T::TriangleStrip, 8, &[3]),
            vec![[0, 1, 2], [4, 5, 6], [5, 7, 6]]
        );
        assert_eq!(prims(T::TriangleList, 7, &[1]), vec![[2, 3, 4]]);
    }

    /// D3D11.3 §8: append-aligned offsets follow the previous element of the slot.
    #[test]
    fn append_aligned_offsets() {
        let el = |s: &str, f: Format, slot: u32, off: u32| InputElementDesc {
            semantic: s.into(),
            semantic_index: 0,
            format: f,
            input_slot: slot,
            aligned_byte_offset: off,
            instance_data_step_rate: 0,
        };
        let l = InputLayout {
            elements: vec![
                el(
                    "POSITION",
                    Format::R32G32B32_FLOAT,
                    0,
                    APPEND_ALIGNED_ELEMENT,
                ),
                el("COLOR", Format::R8G8B8A8_UNORM, 0, APPEND_ALIGNED_ELEMENT),
                el("TEXCOORD", Format::R16G16_FLOAT, 1, APPEND_ALIGNED_ELEMENT),
                el("NORMAL", Format::R32G32B32_FLOAT, 0, APPEND_ALIGNED_ELEMENT),
            ],
        };
        let r = resolve_layout(&l).unwrap();
        assert_eq!(
            r.iter().map(|e| e.offset).collect::<Vec<_>>(),
            vec![0, 12, 0, 16]
        );
        let mut bad = l.clone();
        bad.elements[1].format = Format::D32_FLOAT;
        assert!(
            resolve_layout(&bad)
                .unwrap_err()
                .to_string()
                .contains("not a vertex format")
        );
        bad = l.clone();
        bad.elements[3].semantic = "position".into();
        assert!(
            resolve_layout(&bad)
                .unwrap_err()
                .to_string()
                .contains("already")
        );
    }

    /// D3D11.3 §8.19.2, §8.20, §19.1.3.3: elements out of bounds read 0 in their format's
    /// components and the defaults in the others; an unbound slot reads zeros only.
    #[test]
    fn fetch_is_robust() {
        let data = Memory::from_bytes(&[0, 0, 0x80, 0x3f, 0, 0, 0, 0x40]).unwrap();
        let vb = vec![Some(VertexBufferView {
            data,
            stride: 4,
            offset: 0,
            size: None,
        })];
        let e = Element {
            semantic: "X".into(),
            semantic_index: 0,
            format: Format::R32_FLOAT,
            slot: 0,
            offset: 0,
            step_rate: 0,
        };
        assert_eq!(
            fetch(&e, &vb, 1),
            [2.0f32.to_bits(), 0, 0, 1.0f32.to_bits()]
        );
        let out_of_bounds = [0, 0, 0, 1.0f32.to_bits()];
        assert_eq!(fetch(&e, &vb, 2), out_of_bounds);
        assert_eq!(fetch(&e, &vb, -1), out_of_bounds);
        assert_eq!(fetch(&e, &[], 0), [0; 4]);
        assert_eq!(fetch(&e, &[None], 0), [0; 4]);
        // An element straddling the end is out of bounds as a whole.
        let wide = Element {
            format: Format::R32G32_FLOAT,
            offset: 4,
            ..e.clone()
        };
        assert_eq!(fetch(&wide, &vb, 0), out_of_bounds);
        // Integer formats take 1 as the integer 1 (§19.1.3.3).
        let int = Element {
            format: Format::R16G16_UINT,
            ..e.clone()
        };
        assert_eq!(fetch(&int, &vb, 5), [0, 0, 0, 1]);
        let ib = IndexBufferView {
            data: Memory::from_bytes(&[5, 0, 0xff, 0xff]).unwrap(),
            format: IndexFormat::U16,
            offset: 0,
            size: None,
        };
        assert_eq!(read_index(&ib, 0), 5);
        assert_eq!(read_index(&ib, 1), cut_value(IndexFormat::U16));
        assert_eq!(read_index(&ib, 2), 0);
    }

    /// D3D11.3 §8.19.2: a view with a byte offset and a size bounds the fetch by the
    /// view, not the buffer: the last element inside the view reads, one past it does
    /// not even though the buffer holds it; indices likewise (read 0).
    #[test]
    fn views_bound_fetches_by_their_offset_and_size() {
        let words: Vec<u8> = (1..=6u32).flat_map(|v| (v as f32).to_le_bytes()).collect();
        let data = Memory::from_bytes(&words).unwrap();
        let view = |offset, size| {
            vec![Some(VertexBufferView {
                data: data.clone(),
                stride: 4,
                offset,
                size,
            })]
        };
        let e = Element {
            semantic: "X".into(),
            semantic_index: 0,
            format: Format::R32_FLOAT,
            slot: 0,
            offset: 0,
            step_rate: 0,
        };
        let x = |v: f32| [v.to_bits(), 0, 0, 1.0f32.to_bits()];
        let out = [0, 0, 0, 1.0f32.to_bits()];
        // 8 bytes in, 12 bytes long: values 3, 4, 5.
        let vb = view(8, Some(12));
        assert_eq!(fetch(&e, &vb, 0), x(3.0));
        assert_eq!(fetch(&e, &vb, 2), x(5.0), "the last element of the view");
        assert_eq!(
            fetch(&e, &vb, 3),
            out,
            "one past the view, inside the buffer"
        );
        // Without a size the view runs to the buffer's end.
        let vb = view(8, None);
        assert_eq!(fetch(&e, &vb, 3), x(6.0));
        assert_eq!(fetch(&e, &vb, 4), out);
        // A view starting past the buffer reads nothing.
        assert_eq!(fetch(&e, &view(24, Some(4)), 0), out);
        let ib = IndexBufferView {
            data: Memory::from_bytes(&[9, 0, 7, 0, 5, 0, 3, 0]).unwrap(),
            format: IndexFormat::U16,
            offset: 2,
            size: Some(4),
        };
        assert_eq!(read_index(&ib, 0), 7);
        assert_eq!(read_index(&ib, 1), 5, "the last index of the view");
        assert_eq!(read_index(&ib, 2), 0, "one past the view reads 0");
        let ib32 = IndexBufferView {
            format: IndexFormat::U32,
            offset: 4,
            size: None,
            ..ib.clone()
        };
        assert_eq!(read_index(&ib32, 0), 3 << 16 | 5);
        assert_eq!(read_index(&ib32, 1), 0);
    }

    /// D3D11.3 §8 (patch-list topologies): every n positions make a patch, numbered in
    /// order; a cut drops the partial patch before it and a trailing partial patch is
    /// dropped; the job-file names are `n_control_point_patchlist`, n = 1 … 32.
    #[test]
    fn patch_lists_assemble_every_n_positions() {
        let collect = |n: u32, count: u32, cuts: &[u32]| {
            let mut out = Vec::new();
            patches(n, count, &|p| cuts.contains(&p), &mut |pos, id| {
                out.push((pos.to_vec(), id));
                true
            });
            out
        };
        assert_eq!(
            collect(3, 8, &[]),
            vec![(vec![0, 1, 2], 0), (vec![3, 4, 5], 1)]
        );
        assert_eq!(collect(2, 7, &[1]), vec![(vec![2, 3], 0), (vec![4, 5], 1)]);
        assert!(collect(0, 8, &[]).is_empty());
        assert_eq!(
            PrimitiveTopology::from_name("4_control_point_patchlist"),
            Some(PrimitiveTopology::PatchList(4))
        );
        assert_eq!(
            PrimitiveTopology::from_name("D3D_PRIMITIVE_TOPOLOGY_32_CONTROL_POINT_PATCHLIST"),
            Some(PrimitiveTopology::PatchList(32))
        );
        assert_eq!(
            PrimitiveTopology::from_name("33_control_point_patchlist"),
            None
        );
        assert_eq!(
            PrimitiveTopology::PatchList(7).name(),
            "7_control_point_patchlist"
        );
    }
}
