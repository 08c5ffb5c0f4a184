//! Control flow: terminators, divergence and reconvergence, the instruction budget,
//! discard and demote.
//!
//! # The scheduling rule (see `ir::cfg`)
//!
//! Each live lane waits at a block (`Wave::next`). After a terminator sets where each
//! active lane goes, the wave continues with the **lowest-numbered block any live lane
//! waits at**, running the lanes waiting there. With blocks in the IR's structured order
//! this reconverges lanes at each branch's immediate post-dominator: lanes leaving a loop
//! wait after it until every lane has left; both sides of an `if` wait at the join.
//!
//! Fast path: when every active lane goes to the same block and that block is below every
//! block an inactive lane waits at (`Wave::waiting_min`; always, when no lane waits), the
//! wave just moves on with the same mask.

use crate::ir::{BlockId, InstId, RaySystemValue, Stage, Terminator};

use super::Ctx;
use super::budget::{At, ExecError, Invocation, Xyz};
use super::wave::{DONE, Wave, WaveState, lanes};

/// Charges the instructions of block `b` (and its terminator) to each active lane's
/// budget; when a lane would pass the budget, reports the instruction it would have
/// passed it at (before running any of the block).
#[inline]
pub fn charge<const W: usize>(w: &mut Wave<W>, cx: &Ctx<'_>, b: usize) -> Result<(), ExecError> {
    let block = &cx.shader.blocks[b];
    let cost = u64::from(block.end - block.start) + 1;
    let idle = w.live & !w.ex.mask;
    if idle != 0 {
        for l in lanes(idle) {
            w.idle[l] += cost;
        }
    }
    w.steps += cost;
    w.executed += cost * u64::from(w.ex.mask.count_ones());
    if w.steps <= cx.limit {
        // No lane can have run more than the wave.
        return Ok(());
    }
    // The lane furthest over, with its count before this block.
    let mut worst: Option<usize> = None;
    for l in lanes(w.ex.mask) {
        if w.count(l) > cx.limit && worst.is_none_or(|k| w.count(l) > w.count(k)) {
            worst = Some(l);
        }
    }
    if worst.is_none() {
        return Ok(());
    }
    let worst = worst.unwrap_or(0);
    let left = cx.limit.saturating_sub(w.count(worst) - cost);
    let len = u64::from(block.end - block.start);
    let (at, text, loc) = if left < len {
        let i = block.start + left as u32;
        (
            At::Inst(InstId(i)),
            cx.shader.insts[i as usize].to_string(),
            cx.shader.locs.get(i as usize).copied().unwrap_or_default(),
        )
    } else {
        (
            At::Terminator(BlockId(b as u32)),
            block.term.to_string(),
            block.term_loc,
        )
    };
    Err(ExecError::Budget {
        lane: invocation(w, cx, worst),
        at,
        text,
        loc,
        limit: cx.limit,
    })
}

/// Charges work done inside instruction `pc` beyond the instruction itself (a ray
/// query's traversal): `costs[l]` lane-instructions to each lane. The wave's count grows
/// by the largest cost and every other live lane is idle for the difference, so each
/// lane's own count grows by exactly its cost; a lane past the budget is reported at
/// `pc`.
pub fn charge_lanes<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    costs: &[u64; W],
    pc: usize,
) -> Result<(), ExecError> {
    let max = costs.iter().copied().max().unwrap_or(0);
    if max == 0 {
        return Ok(());
    }
    for l in lanes(w.live) {
        w.idle[l] += max - costs[l];
    }
    w.steps = w.steps.saturating_add(max);
    w.executed = w
        .executed
        .saturating_add(costs.iter().fold(0u64, |a, &c| a.saturating_add(c)));
    if w.steps <= cx.limit {
        return Ok(());
    }
    let mut worst: Option<usize> = None;
    for l in lanes(w.ex.mask) {
        if w.count(l) > cx.limit && worst.is_none_or(|k| w.count(l) > w.count(k)) {
            worst = Some(l);
        }
    }
    let Some(worst) = worst else {
        return Ok(());
    };
    Err(ExecError::Budget {
        lane: invocation(w, cx, worst),
        at: At::Inst(InstId(pc as u32)),
        text: cx.shader.insts[pc].to_string(),
        loc: cx.shader.locs.get(pc).copied().unwrap_or_default(),
        limit: cx.limit,
    })
}

/// The invocation lane `l` runs. Compute lanes hold their `SV_GroupThreadID` in `gtid`;
/// the pipeline puts a vertex's index and instance, or a pixel's x, y and sample, there —
/// or, for a pixel, answers them through the run's `PixelContext` from the lane's tag;
/// a ray-tracing lane's launch index comes from the run's `RayContext`.
pub fn invocation<const W: usize>(w: &Wave<W>, cx: &Ctx<'_>, l: usize) -> Invocation {
    let from_pixel = match (cx.shader.stage, cx.pixel) {
        (Stage::Pixel, Some(p)) => p.ids(w.tags[l]),
        _ => None,
    };
    // A ray-tracing lane is its launch index, which only the pipeline running it knows.
    if let (true, Some(r)) = (cx.shader.stage.is_ray_tracing(), cx.rays) {
        let tag = w.tags[l];
        let index = [0, 1, 2].map(|i| r.get(tag, RaySystemValue::DispatchRaysIndex, i));
        return Invocation::Ray {
            index: Xyz(index),
            stage: cx.shader.stage,
            program: r.program(),
        };
    }
    let [a, b, c] = from_pixel.unwrap_or([w.gtid[0][l], w.gtid[1][l], w.gtid[2][l]]);
    match cx.shader.stage {
        Stage::Vertex => Invocation::Vertex {
            vertex: a,
            instance: b,
        },
        Stage::Pixel => Invocation::Pixel {
            x: a,
            y: b,
            sample: c,
        },
        _ => Invocation::Thread {
            group: Xyz(cx.group_id),
            thread: Xyz([a, b, c]),
        },
    }
}

/// Runs the terminator of block `b` for the active lanes and schedules what runs next.
#[inline]
pub fn terminate<const W: usize>(w: &mut Wave<W>, cx: &Ctx<'_>, b: usize) -> Result<(), ExecError> {
    let block = &cx.shader.blocks[b];
    match &block.term {
        Terminator::Jump(t) => goto(w, cx, t.0),
        Terminator::Branch { cond, then_, else_ } => {
            let c = w.regs[cond.index()];
            // Whether any active lane goes each way, as a lane loop the compiler turns into
            // vector compares: the uniform cases need no per-lane bookkeeping.
            let (mut any_then, mut any_else) = (0u32, 0u32);
            for l in 0..W {
                let t = if c[l] != 0 { u32::MAX } else { 0 };
                any_then |= t & w.ex.sel[l];
                any_else |= !t & w.ex.sel[l];
            }
            if any_else == 0 {
                goto(w, cx, then_.0);
            } else if any_then == 0 {
                goto(w, cx, else_.0);
            } else {
                for l in lanes(w.ex.mask) {
                    w.next[l] = if c[l] != 0 { then_.0 } else { else_.0 };
                }
                schedule(w, cx);
            }
        }
        Terminator::Switch {
            sel,
            cases,
            default,
        } => {
            let s = w.regs[sel.index()];
            let target = |v: u32| cases.iter().find(|c| c.0 == v).map_or(default.0, |c| c.1.0);
            let mut uniform: Option<u32> = None;
            let mut same = true;
            for l in lanes(w.ex.mask) {
                let t = target(s[l]);
                w.next[l] = t;
                match uniform {
                    None => uniform = Some(t),
                    Some(u) => same &= u == t,
                }
            }
            match uniform {
                Some(t) if same => goto(w, cx, t),
                _ => schedule(w, cx),
            }
        }
        Terminator::Return => {
            // A select over all lanes, which the compiler vectorises.
            for l in 0..W {
                w.next[l] = if w.ex.sel[l] != 0 { DONE } else { w.next[l] };
            }
            w.live &= !w.ex.mask;
            schedule(w, cx);
        }
        Terminator::Unreachable => {
            let l = w.ex.first().unwrap_or(0);
            return Err(ExecError::Unreachable {
                lane: invocation(w, cx, l),
                block: BlockId(b as u32),
                loc: block.term_loc,
            });
        }
    }
    Ok(())
}

/// Moves every active lane to block `t`.
#[inline(always)]
fn goto<const W: usize>(w: &mut Wave<W>, cx: &Ctx<'_>, t: u32) {
    if t < w.waiting_min {
        w.cur = t;
        w.pc = cx.shader.blocks[t as usize].start;
    } else {
        for l in lanes(w.ex.mask) {
            w.next[l] = t;
        }
        schedule(w, cx);
    }
}

/// Picks the lowest block a live lane waits at and makes its lanes active; marks the
/// wave done when no lane is live.
pub fn schedule<const W: usize>(w: &mut Wave<W>, cx: &Ctx<'_>) {
    let mut best = DONE;
    for l in lanes(w.live) {
        best = best.min(w.next[l]);
    }
    if best == DONE {
        w.state = WaveState::Done;
        w.ex.set(0);
        return;
    }
    let mut mask = 0u128;
    let mut waiting = DONE;
    for l in lanes(w.live) {
        if w.next[l] == best {
            mask |= 1 << l;
        } else {
            waiting = waiting.min(w.next[l]);
        }
    }
    w.ex.set(mask);
    w.cur = best;
    w.pc = cx.shader.blocks[best as usize].start;
    w.waiting_min = waiting;
}

/// `discard`: the active lanes where `cond != 0` finish. Returns whether active lanes
/// remain.
pub fn discard<const W: usize>(w: &mut Wave<W>, cond: crate::ir::Reg) -> bool {
    let c = w.regs[cond.index()];
    let mut gone = 0u128;
    for l in lanes(w.ex.mask) {
        if c[l] != 0 {
            gone |= 1 << l;
            w.next[l] = DONE;
        }
    }
    if gone != 0 {
        w.live &= !gone;
        w.helper &= !gone;
        w.killed |= gone;
        let m = w.ex.mask & !gone;
        w.ex.set(m);
    }
    w.ex.mask != 0
}

/// `demote`: the active lanes where `cond != 0` become helper lanes; their pixels are
/// discarded, so the stage reports them as killed.
pub fn demote<const W: usize>(w: &mut Wave<W>, cond: crate::ir::Reg) {
    let c = w.regs[cond.index()];
    for l in lanes(w.ex.mask) {
        if c[l] != 0 {
            w.helper |= 1 << l;
            w.killed |= 1 << l;
        }
    }
}
