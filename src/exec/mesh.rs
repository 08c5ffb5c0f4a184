//! Mesh and amplification operations: a group's output counts, vertex, primitive and
//! index outputs, and its `DispatchMesh` call, kept in the group's memory after its
//! group shared memory (the layout is [`MeshRegion`]'s).
//!
//! These handlers never fail: a broken rule of the mesh shader spec (counts above the
//! declared maxima, a second `SetMeshOutputCounts`, an output written before it or past
//! the counts) is recorded once per group as its fault, with the value and the thread,
//! and the write is dropped; the pipeline (`pipeline::ms`) turns the fault into an error
//! naming the program and the group. What the spec leaves undefined is refused rather
//! than guessed at.

use crate::ir::{MeshFault, MeshRegion, MeshState, Reg};

use super::Ctx;
use super::wave::{Wave, lanes};

/// The group's mesh state and region, when the shader has one.
fn region(cx: &Ctx<'_>) -> Option<(MeshState, MeshRegion)> {
    let s = cx.shader;
    let m = s.mesh?;
    let threads = s
        .thread_group
        .iter()
        .map(|&n| n as usize)
        .product::<usize>();
    let shared_words = (cx.shared_bytes as usize).div_ceil(4);
    Some((m, m.region(shared_words, threads, s.output_words)))
}

fn get(shared: &[u32], i: usize) -> u32 {
    shared.get(i).copied().unwrap_or(0)
}

fn set(shared: &mut [u32], i: usize, v: u32) {
    if let Some(x) = shared.get_mut(i) {
        *x = v;
    }
}

/// Records the group's first fault.
fn fault(shared: &mut [u32], r: &MeshRegion, f: MeshFault, value: u32, thread: u32) {
    if get(shared, r.base + 3) == 0 {
        set(shared, r.base + 3, f as u32);
        set(shared, r.base + 4, value);
        set(shared, r.base + 5, thread);
    }
}

fn reg<const W: usize>(w: &Wave<W>, r: Reg, l: usize) -> u32 {
    if r.is_none() {
        0
    } else {
        w.regs.get(r.index()).map_or(0, |v| v[l])
    }
}

/// `mesh_counts` (see [`crate::ir::Inst::MeshCounts`]).
pub fn counts<const W: usize>(w: &Wave<W>, cx: &Ctx<'_>, shared: &mut [u32], v: Reg, p: Reg) {
    let Some((m, r)) = region(cx) else { return };
    let mask = w.ex.mask & !w.helper;
    for l in lanes(mask) {
        let t = w.gindex[l];
        if get(shared, r.called + t as usize) != 0 {
            fault(shared, &r, MeshFault::CountsTwice, 2, t);
        }
        set(shared, r.called + t as usize, 1);
    }
    let Some(first) = lanes(mask).next() else {
        return;
    };
    if get(shared, r.base) != 0 {
        return;
    }
    let (nv, np) = (reg(w, v, first), reg(w, p, first));
    let t = w.gindex[first];
    if nv > m.max_vertices {
        fault(shared, &r, MeshFault::VerticesOverMax, nv, t);
    }
    if np > m.max_primitives {
        fault(shared, &r, MeshFault::PrimitivesOverMax, np, t);
    }
    set(shared, r.base, 1);
    set(shared, r.base + 1, nv.min(m.max_vertices));
    set(shared, r.base + 2, np.min(m.max_primitives));
}

/// Whether lane `l` may write element `index` of an output array counted by status word
/// `count` (recording the fault when not).
fn may_write<const W: usize>(
    w: &Wave<W>,
    shared: &mut [u32],
    r: &MeshRegion,
    l: usize,
    index: u32,
    count: usize,
    f: MeshFault,
) -> bool {
    let t = w.gindex[l];
    if get(shared, r.called + t as usize) == 0 {
        fault(shared, r, MeshFault::WriteBeforeCounts, index, t);
        return false;
    }
    if index >= get(shared, r.base + count) {
        fault(shared, r, f, index, t);
        return false;
    }
    true
}

/// `mesh_indices` (see [`crate::ir::Inst::MeshIndices`]).
pub fn indices<const W: usize>(
    w: &Wave<W>,
    cx: &Ctx<'_>,
    shared: &mut [u32],
    prim: Reg,
    v: &[Reg; 3],
) {
    let Some((_, r)) = region(cx) else { return };
    for l in lanes(w.ex.mask & !w.helper) {
        let p = reg(w, prim, l);
        if !may_write(w, shared, &r, l, p, 2, MeshFault::PrimitiveIndex) {
            continue;
        }
        for (k, x) in v.iter().enumerate() {
            set(shared, r.indices + 3 * p as usize + k, reg(w, *x, l));
        }
    }
}

/// `mesh_vertex_out` and `mesh_primitive_out`: word `slot + 4·row` of element `index`
/// of the vertex (`vertex`) or primitive array.
#[allow(clippy::too_many_arguments)]
pub fn output<const W: usize>(
    w: &Wave<W>,
    cx: &Ctx<'_>,
    shared: &mut [u32],
    vertex: bool,
    slot: u32,
    (row, rows): (Reg, u32),
    index: Reg,
    src: Reg,
) {
    let Some((m, r)) = region(cx) else { return };
    let (count, f, first, words) = if vertex {
        (
            1,
            MeshFault::VertexIndex,
            r.vertices,
            cx.shader.output_words,
        )
    } else {
        (
            2,
            MeshFault::PrimitiveIndex,
            r.primitives,
            m.primitive_words,
        )
    };
    for l in lanes(w.ex.mask & !w.helper) {
        let i = reg(w, index, l);
        if !may_write(w, shared, &r, l, i, count, f) {
            continue;
        }
        let rw = reg(w, row, l);
        if rw >= rows {
            continue;
        }
        let word = u64::from(slot) + 4 * u64::from(rw);
        if word >= u64::from(words) {
            continue;
        }
        set(
            shared,
            first + i as usize * words as usize + word as usize,
            reg(w, src, l),
        );
    }
}

/// `dispatch_mesh` (see [`crate::ir::Inst::DispatchMesh`]).
pub fn dispatch<const W: usize>(
    w: &Wave<W>,
    cx: &Ctx<'_>,
    shared: &mut [u32],
    groups: &[Reg; 3],
    payload: u32,
) {
    let Some((_, r)) = region(cx) else { return };
    let mask = w.ex.mask & !w.helper;
    let Some(first) = lanes(mask).next() else {
        return;
    };
    let calls = get(shared, r.base + 6);
    if calls == 0 {
        for (k, g) in groups.iter().enumerate() {
            set(shared, r.base + 7 + k, reg(w, *g, first));
        }
        set(shared, r.base + 10, payload);
    }
    set(shared, r.base + 6, calls.saturating_add(mask.count_ones()));
}
