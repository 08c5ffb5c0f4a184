//! Clean-up passes run on a lowered shader before execution: they remove the moves and
//! empty blocks a straightforward lowering leaves behind, without changing what any lane
//! computes.
//!
//! The passes (in order):
//!
//! 1. **Jump threading**: an edge into a block that holds no instructions and only jumps
//!    on is sent straight to the jump's target.
//! 2. **Copy propagation** within each block: after `mov d, s`, later reads of `d` read
//!    `s` until either is written again.
//! 3. **Coalescing**: `op s, …` followed in the same block by `mov d, s`, where `s` is
//!    dead after the move and neither register is touched in between, becomes `op d, …`.
//! 4. **Dead code removal**: an instruction with no effect besides its results is removed
//!    when no result can be read on any path (liveness over the control-flow graph).
//!
//! Every pass reasons per lane. That is sound for SIMT execution because each lane runs
//! exactly the scalar program along its own path; wave operations read other lanes at
//! the same instruction, which the passes never move. The one exception is the WARP
//! 1.0.13 profile's reads of *inactive* lanes' registers (stale values that depend on
//! what those lanes last wrote), which dead code removal may change; later WARP
//! releases read 0 there.
//!
//! The result is laid out and validated again; if anything fails, the shader is left as
//! it was (an optimisation must never turn a valid shader into an invalid one).

use std::collections::HashMap;

use super::cfg::{self, Cfg};
use super::ids::Reg;
use super::inst::Inst;
use super::operand::Role;
use super::shader::{Shader, Terminator};
use super::validate::validate;

/// What the passes changed.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct OptStats {
    /// Instructions before.
    pub insts_before: usize,
    /// Instructions after.
    pub insts_after: usize,
    /// Blocks before.
    pub blocks_before: usize,
    /// Blocks after.
    pub blocks_after: usize,
}

/// Runs every pass; returns what changed. Leaves the shader untouched if the result
/// would not validate.
pub fn optimize(shader: &mut Shader) -> OptStats {
    let mut stats = OptStats {
        insts_before: shader.insts.len(),
        blocks_before: shader.blocks.len(),
        ..Default::default()
    };
    // Coalescing renames registers: the source map of values no longer holds.
    shader.vars.clear();
    let mut s = shader.clone();
    thread_jumps(&mut s);
    if cfg::reorder(&mut s).is_ok() {
        for b in 0..s.blocks.len() {
            propagate_copies(&mut s, b);
        }
        let live_out = liveness(&s);
        for (b, out) in live_out.iter().enumerate() {
            coalesce(&mut s, b, out);
        }
        remove_dead_code(&mut s);
        if validate(&s).is_ok() {
            *shader = s;
        }
    }
    stats.insts_after = shader.insts.len();
    stats.blocks_after = shader.blocks.len();
    stats
}

/// Sends edges that enter an empty, jump-only block straight to its target.
fn thread_jumps(s: &mut Shader) {
    let n = s.blocks.len();
    // Where an empty jump-only block leads, following chains (bounded: cycles of empty
    // blocks are left alone).
    let forward = |b: usize| -> Option<u32> {
        let block = &s.blocks[b];
        match block.term {
            Terminator::Jump(t) if block.is_empty() && t.index() != b => Some(t.0),
            _ => None,
        }
    };
    let mut target: Vec<u32> = (0..n as u32).collect();
    for (b, t) in target.iter_mut().enumerate() {
        let mut cur = b;
        for _ in 0..n {
            match forward(cur) {
                Some(next) if next as usize != b => cur = next as usize,
                _ => break,
            }
        }
        *t = cur as u32;
    }
    for b in 0..n {
        s.blocks[b].term.successors_mut(|succ| {
            // Block 0 stays the entry; never retarget onto the block itself.
            let t = target[succ.index()];
            if t as usize != b {
                succ.0 = t;
            }
        });
    }
}

/// Copy propagation inside block `b`.
fn propagate_copies(s: &mut Shader, b: usize) {
    let (start, end) = (s.blocks[b].start as usize, s.blocks[b].end as usize);
    let mut copies: HashMap<u32, u32> = HashMap::new();
    let rewrite = |copies: &HashMap<u32, u32>, role: Role, r: &mut Reg| match role {
        Role::Read => {
            if let Some(&src) = copies.get(&r.0) {
                r.0 = src;
            }
        }
        Role::Read64 => {
            if let (Some(&lo), Some(&hi)) = (copies.get(&r.0), copies.get(&r.0.wrapping_add(1)))
                && hi == lo.wrapping_add(1)
            {
                r.0 = lo;
            }
        }
        _ => {}
    };
    for i in start..end {
        let inst = &mut s.insts[i];
        inst.visit_regs_mut(&mut |role, r| rewrite(&copies, role, r));
        let mut written: Vec<u32> = Vec::new();
        inst.visit_regs(&mut |role, r| match role {
            Role::Write => written.push(r.0),
            Role::Write64 => {
                written.push(r.0);
                written.push(r.0.wrapping_add(1));
            }
            _ => {}
        });
        if !written.is_empty() {
            copies.retain(|d, src| !written.contains(d) && !written.contains(src));
        }
        if let Inst::Mov { dst, src } = *inst
            && dst != src
        {
            copies.insert(dst.0, src.0);
        }
    }
    if let Some(r) = s.blocks[b].term.reg_mut() {
        rewrite(&copies, Role::Read, r);
    }
}

/// A set of registers.
#[derive(Clone, PartialEq, Eq)]
struct RegSet(Vec<u64>);

impl RegSet {
    fn new(n: u32) -> Self {
        RegSet(vec![0; (n as usize).div_ceil(64)])
    }
    fn insert(&mut self, r: u32) {
        if let Some(w) = self.0.get_mut(r as usize / 64) {
            *w |= 1 << (r % 64);
        }
    }
    fn remove(&mut self, r: u32) {
        if let Some(w) = self.0.get_mut(r as usize / 64) {
            *w &= !(1 << (r % 64));
        }
    }
    fn contains(&self, r: u32) -> bool {
        self.0
            .get(r as usize / 64)
            .is_some_and(|w| w & (1 << (r % 64)) != 0)
    }
    fn union_with(&mut self, o: &RegSet) {
        for (a, b) in self.0.iter_mut().zip(&o.0) {
            *a |= b;
        }
    }
}

/// Calls `uses` and `defs` with the registers an instruction reads and writes.
fn regs_of(inst: &Inst, mut f: impl FnMut(bool, u32)) {
    inst.visit_regs(&mut |role, r| match role {
        Role::Read => f(false, r.0),
        Role::Read64 => {
            f(false, r.0);
            f(false, r.0.wrapping_add(1));
        }
        Role::Write => f(true, r.0),
        Role::Write64 => {
            f(true, r.0);
            f(true, r.0.wrapping_add(1));
        }
        Role::None => {}
    });
}

/// Steps a live set backwards over one instruction: writes die, then reads live.
fn step_back(live: &mut RegSet, inst: &Inst) {
    regs_of(inst, |w, r| {
        if w {
            live.remove(r)
        }
    });
    regs_of(inst, |w, r| {
        if !w {
            live.insert(r)
        }
    });
}

/// Registers live at the end of each block.
fn liveness(s: &Shader) -> Vec<RegSet> {
    let graph = Cfg::new(s);
    let n = s.blocks.len();
    let mut live_in = vec![RegSet::new(s.num_regs); n];
    let mut live_out = vec![RegSet::new(s.num_regs); n];
    let mut changed = true;
    while changed {
        changed = false;
        for b in (0..n).rev() {
            let mut out = RegSet::new(s.num_regs);
            for &succ in &graph.succs[b] {
                out.union_with(&live_in[succ as usize]);
            }
            let mut live = out.clone();
            if let Some(r) = s.blocks[b].term.reg() {
                live.insert(r.0);
            }
            for i in (s.blocks[b].start..s.blocks[b].end).rev() {
                step_back(&mut live, &s.insts[i as usize]);
            }
            if live != live_in[b] {
                live_in[b] = live;
                changed = true;
            }
            live_out[b] = out;
        }
    }
    live_out
}

/// Coalescing inside block `b` (see the module doc), given the registers live after it.
fn coalesce(s: &mut Shader, b: usize, live_out: &RegSet) {
    let (start, end) = (s.blocks[b].start as usize, s.blocks[b].end as usize);
    // live[i - start] = registers live after instruction i.
    let mut live_after = Vec::with_capacity(end - start);
    let mut live = live_out.clone();
    if let Some(r) = s.blocks[b].term.reg() {
        live.insert(r.0);
    }
    for i in (start..end).rev() {
        live_after.push(live.clone());
        step_back(&mut live, &s.insts[i]);
    }
    live_after.reverse();
    let mut removed = vec![false; end - start];
    for i in (start..end).rev() {
        let Inst::Mov {
            dst: d,
            src: src_reg,
        } = s.insts[i]
        else {
            continue;
        };
        if d == src_reg || s.is_const(src_reg) || live_after[i - start].contains(src_reg.0) {
            continue;
        }
        // The instruction that last wrote `src` in this block, with nothing in between
        // reading `src` or touching `d`. That instruction itself may read `src` (the old
        // value) and, when `src` is its only result, `d` too: single-result handlers read
        // every operand before they write.
        let mut found = None;
        for j in (start..i).rev() {
            if removed[j - start] {
                continue;
            }
            let mut reads_src = false;
            let mut reads_d = false;
            let mut writes_src = 0;
            let mut writes_d = false;
            let mut wide_src = false;
            let mut results = 0;
            s.insts[j].visit_regs(&mut |role, r| {
                let covers = |x: Reg| r == x || (role.is_wide() && r.0.wrapping_add(1) == x.0);
                match role {
                    Role::Read | Role::Read64 => {
                        reads_src |= covers(src_reg);
                        reads_d |= covers(d);
                    }
                    Role::Write | Role::Write64 => {
                        results += 1;
                        if covers(src_reg) {
                            writes_src += 1;
                            wide_src |= role == Role::Write64;
                        }
                        writes_d |= covers(d);
                    }
                    Role::None => {}
                }
            });
            if writes_src > 0 {
                if writes_src == 1 && !wide_src && !writes_d && (!reads_d || results == 1) {
                    found = Some(j);
                }
                break;
            }
            if reads_src || reads_d || writes_d {
                break;
            }
        }
        let Some(j) = found else { continue };
        s.insts[j].visit_regs_mut(&mut |role, r| {
            if role == Role::Write && *r == src_reg {
                *r = d;
            }
        });
        removed[i - start] = true;
    }
    // Removed moves become self-moves, which dead code removal (or the next line) drops.
    for (k, gone) in removed.iter().enumerate() {
        if *gone {
            s.insts[start + k] = Inst::Mov {
                dst: Reg(0),
                src: Reg(0),
            };
        }
    }
    remove_where(
        s,
        |inst| matches!(inst, Inst::Mov { dst, src } if dst == src),
    );
}

/// Removes instructions without effects whose results are never read.
fn remove_dead_code(s: &mut Shader) {
    loop {
        let live_out = liveness(s);
        let mut dead = vec![false; s.insts.len()];
        let mut any = false;
        for (b, block) in s.blocks.iter().enumerate() {
            let mut live = live_out[b].clone();
            if let Some(r) = block.term.reg() {
                live.insert(r.0);
            }
            for i in (block.start..block.end).rev() {
                let inst = &s.insts[i as usize];
                let mut needed = inst.effects();
                let mut writes = false;
                regs_of(inst, |w, r| {
                    if w {
                        writes = true;
                        needed |= live.contains(r);
                    }
                });
                if !needed && writes {
                    dead[i as usize] = true;
                    any = true;
                    continue;
                }
                step_back(&mut live, inst);
            }
        }
        if !any {
            return;
        }
        let mut k = 0;
        remove_where(s, |_| {
            k += 1;
            dead[k - 1]
        });
    }
}

/// Removes the instructions for which `gone` is true (called once per instruction, in
/// order), keeping blocks and source locations in step.
fn remove_where(s: &mut Shader, mut gone: impl FnMut(&Inst) -> bool) {
    let mut insts = Vec::with_capacity(s.insts.len());
    let mut locs = Vec::with_capacity(s.locs.len());
    for block in &mut s.blocks {
        let start = insts.len() as u32;
        for i in block.start..block.end {
            let inst = &s.insts[i as usize];
            if !gone(inst) {
                insts.push(inst.clone());
                locs.push(s.locs[i as usize]);
            }
        }
        block.start = start;
        block.end = insts.len() as u32;
    }
    s.insts = insts;
    s.locs = locs;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::parse_shader;

    fn opt(text: &str) -> (Shader, OptStats) {
        let mut s = parse_shader(text).unwrap();
        validate(&s).unwrap();
        let stats = optimize(&mut s);
        (s, stats)
    }

    fn body(s: &Shader) -> Vec<String> {
        s.insts.iter().map(|i| i.to_string()).collect()
    }

    #[test]
    fn moves_are_propagated_and_coalesced() {
        // The shape vkd3d emits: copies into scratch registers, compute, copy back.
        let (s, stats) = opt(
            "shader compute\nregs 8\nconst r0 = 1\nresource range0 = uav space 0 lower 0 count 1 raw_buffer uint\nblock0:\n    sysval thread_id, 0, r1\n    mov r2, r1\n    mov r3, r1\n    imul r2, r2, r3\n    mov r4, r2\n    iadd r4, r4, r0\n    mov r1, r4\n    handle r5, range0, r0\n    raw_store b32, 1, r5, r1, [r1 _ _ _]\n    return\n",
        );
        assert_eq!(
            body(&s),
            vec![
                "sysval thread_id, 0, r1",
                "imul r2, r1, r1",
                "iadd r4, r2, r0",
                "handle r5, range0, r0",
                "raw_store b32, 1, r5, r4, [r4 _ _ _]",
            ]
        );
        assert_eq!(stats.insts_before, 9);
    }

    #[test]
    fn values_live_across_blocks_are_kept() {
        let (s, _) = opt(
            "shader compute\nregs 6\nconst r0 = 1\nresource range0 = uav space 0 lower 0 count 1 raw_buffer uint\nblock0:\n    sysval thread_id, 0, r1\n    mov r2, r1\n    branch r1, block1, block2\nblock1:\n    iadd r2, r2, r0\n    jump block2\nblock2:\n    handle r5, range0, r0\n    raw_store b32, 1, r5, r1, [r2 _ _ _]\n    return\n",
        );
        // r2 is read in block2 on both paths: its copy must stay.
        assert!(body(&s).contains(&"mov r2, r1".to_string()), "{s}");
    }

    #[test]
    fn empty_blocks_are_threaded_and_effects_stay() {
        let (s, stats) = opt(
            "shader compute\nregs 4\nconst r0 = 0\nresource range0 = uav space 0 lower 0 count 1 raw_buffer uint\nblock0:\n    sysval thread_id, 0, r1\n    iadd r2, r1, r1\n    branch r1, block1, block2\nblock1:\n    jump block3\nblock2:\n    jump block3\nblock3:\n    handle r3, range0, r0\n    res_atomic add, r2, r3, [r1 _ _], r1\n    return\n",
        );
        assert_eq!(stats.blocks_after, 2, "{s}");
        // The atomic's old value is unused, but the atomic itself stays; the dead iadd goes.
        assert_eq!(
            body(&s),
            vec![
                "sysval thread_id, 0, r1",
                "handle r3, range0, r0",
                "res_atomic add, r2, r3, [r1 _ _], r1"
            ]
        );
    }

    #[test]
    fn a_copy_dies_when_its_source_is_rewritten() {
        let (s, _) = opt(
            "shader compute\nregs 6\nconst r0 = 1\nresource range0 = uav space 0 lower 0 count 1 raw_buffer uint\nblock0:\n    sysval thread_id, 0, r1\n    mov r2, r1\n    iadd r1, r1, r0\n    iadd r3, r2, r1\n    handle r5, range0, r0\n    raw_store b32, 1, r5, r0, [r3 _ _ _]\n    return\n",
        );
        // r2 must still hold the old r1 when r3 is computed.
        let b = body(&s);
        assert!(b.contains(&"mov r2, r1".to_string()), "{s}");
        assert!(b.contains(&"iadd r3, r2, r1".to_string()), "{s}");
    }
}
