//! The control-flow graph: predecessors, dominators, loops, and the block order that
//! makes waves reconverge.
//!
//! # Why the block order matters
//!
//! `exec` runs a wave's lanes together and, when they diverge, always continues with the
//! *lowest-numbered* block that some lane is waiting at. Lanes that went different ways
//! therefore meet again at the first block both paths reach, provided blocks are
//! numbered in a *structured order*:
//!
//! 1. every forward edge goes to a higher number, every other edge is a back edge to a
//!    loop header that dominates its source (the graph is reducible), and
//! 2. the blocks of each loop are contiguous, header first, so lanes that leave a loop
//!    wait after it until every lane has left.
//!
//! Then lanes reconverge at each branch's immediate post-dominator, which is where
//! structured programs (DXBC's `if`/`loop`/`switch`, dxc's structurized DXIL) expect
//! wave operations to see the reunited lanes. [`structured_order`] computes such an
//! order for any reducible graph; [`check_order`] verifies one.

use std::collections::BTreeSet;

use super::ids::BlockId;
use super::shader::{Shader, Terminator};

/// Successor and predecessor lists of a shader's blocks.
#[derive(Debug, Clone)]
pub struct Cfg {
    /// Successors of each block, deduplicated, in terminator order.
    pub succs: Vec<Vec<u32>>,
    /// Predecessors of each block, deduplicated, in block order.
    pub preds: Vec<Vec<u32>>,
}

impl Cfg {
    /// Builds the graph. Successor ids out of range are dropped (the validator reports them).
    pub fn new(shader: &Shader) -> Cfg {
        Self::from_terminators(shader.blocks.iter().map(|b| &b.term))
    }

    /// Builds the graph from a list of terminators (block `i` ends with the `i`-th).
    pub fn from_terminators<'a>(terms: impl Iterator<Item = &'a Terminator>) -> Cfg {
        let mut succs: Vec<Vec<u32>> = terms
            .map(|t| {
                let mut v: Vec<u32> = Vec::new();
                for s in t.successors() {
                    if !v.contains(&s.0) {
                        v.push(s.0);
                    }
                }
                v
            })
            .collect();
        let n = succs.len() as u32;
        for s in &mut succs {
            s.retain(|&b| b < n);
        }
        let mut preds = vec![Vec::new(); succs.len()];
        for (b, ss) in succs.iter().enumerate() {
            for &s in ss {
                preds[s as usize].push(b as u32);
            }
        }
        Cfg { succs, preds }
    }

    /// Number of blocks.
    pub fn len(&self) -> usize {
        self.succs.len()
    }

    /// Whether there are no blocks.
    pub fn is_empty(&self) -> bool {
        self.succs.is_empty()
    }

    /// Blocks reachable from block 0, in reverse post-order (iterative DFS).
    pub fn reverse_post_order(&self) -> Vec<u32> {
        let n = self.len();
        let mut seen = vec![false; n];
        let mut post = Vec::with_capacity(n);
        if n == 0 {
            return post;
        }
        let mut stack: Vec<(u32, usize)> = vec![(0, 0)];
        seen[0] = true;
        while let Some(&mut (b, ref mut next)) = stack.last_mut() {
            if let Some(&s) = self.succs[b as usize].get(*next) {
                *next += 1;
                if !seen[s as usize] {
                    seen[s as usize] = true;
                    stack.push((s, 0));
                }
            } else {
                post.push(b);
                stack.pop();
            }
        }
        post.reverse();
        post
    }

    /// Immediate dominators (Cooper, Harvey and Kennedy's iterative algorithm).
    /// `idom[0] = Some(0)`; unreachable blocks get `None`.
    pub fn dominators(&self) -> Vec<Option<u32>> {
        let n = self.len();
        let rpo = self.reverse_post_order();
        let mut order = vec![usize::MAX; n];
        for (i, &b) in rpo.iter().enumerate() {
            order[b as usize] = i;
        }
        let mut idom: Vec<Option<u32>> = vec![None; n];
        if n == 0 {
            return idom;
        }
        idom[0] = Some(0);
        let intersect = |idom: &[Option<u32>], mut a: u32, mut b: u32| -> u32 {
            while a != b {
                while order[a as usize] > order[b as usize] {
                    a = idom[a as usize].unwrap_or(0);
                }
                while order[b as usize] > order[a as usize] {
                    b = idom[b as usize].unwrap_or(0);
                }
            }
            a
        };
        let mut changed = true;
        while changed {
            changed = false;
            for &b in rpo.iter().skip(1) {
                let mut new: Option<u32> = None;
                for &p in &self.preds[b as usize] {
                    if idom[p as usize].is_some() {
                        new = Some(match new {
                            None => p,
                            Some(x) => intersect(&idom, p, x),
                        });
                    }
                }
                if new.is_some() && idom[b as usize] != new {
                    idom[b as usize] = new;
                    changed = true;
                }
            }
        }
        idom
    }
}

/// Whether `a` dominates `b` given immediate dominators.
pub fn dominates(idom: &[Option<u32>], a: u32, mut b: u32) -> bool {
    loop {
        if a == b {
            return true;
        }
        match idom[b as usize] {
            Some(p) if p != b => b = p,
            _ => return false,
        }
    }
}

/// A natural loop: its header and every block in it (header included).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Loop {
    /// The header, the target of the back edges.
    pub header: u32,
    /// All blocks of the loop.
    pub blocks: BTreeSet<u32>,
}

/// Why a graph cannot be ordered for reconvergence.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum CfgError {
    /// An edge closes a cycle but its target does not dominate its source.
    #[error(
        "irreducible control flow: the edge from block {from} to block {to} enters a loop other than through its header"
    )]
    Irreducible {
        /// Source block (original numbering).
        from: u32,
        /// Target block.
        to: u32,
    },
    /// An edge goes backwards to a block that is not the header of a loop containing it.
    #[error(
        "block order: the edge from block {from} to block {to} goes backwards but is not a loop's back edge"
    )]
    BadBackEdge {
        /// Source block.
        from: u32,
        /// Target block.
        to: u32,
    },
    /// A loop's blocks are not contiguous.
    #[error(
        "block order: the loop headed by block {header} is not contiguous (block {outside} lies inside its span)"
    )]
    LoopNotContiguous {
        /// The loop header.
        header: u32,
        /// A block between the loop's first and last blocks that is not in the loop.
        outside: u32,
    },
}

/// Finds the natural loops of the reachable graph. Refuses irreducible graphs: a cycle
/// must be entered through a header that dominates every block of it.
pub fn loops(cfg: &Cfg) -> Result<Vec<Loop>, CfgError> {
    let idom = cfg.dominators();
    let rpo = cfg.reverse_post_order();
    let mut pos = vec![usize::MAX; cfg.len()];
    for (i, &b) in rpo.iter().enumerate() {
        pos[b as usize] = i;
    }
    let mut by_header: std::collections::BTreeMap<u32, BTreeSet<u32>> = Default::default();
    for &b in &rpo {
        for &s in &cfg.succs[b as usize] {
            // A retreating edge in RPO closes a cycle.
            if pos[s as usize] <= pos[b as usize] {
                if !dominates(&idom, s, b) {
                    return Err(CfgError::Irreducible { from: b, to: s });
                }
                let body = by_header.entry(s).or_default();
                body.insert(s);
                let mut work = vec![b];
                while let Some(x) = work.pop() {
                    if body.insert(x) {
                        for &p in &cfg.preds[x as usize] {
                            if idom[p as usize].is_some() {
                                work.push(p);
                            }
                        }
                    }
                }
            }
        }
    }
    Ok(by_header
        .into_iter()
        .map(|(header, blocks)| Loop { header, blocks })
        .collect())
}

/// Computes a structured order of the reachable blocks (see the module doc): a
/// topological order of the graph without back edges in which every loop's blocks are
/// contiguous. Among blocks that may come next it keeps the current order, so a
/// lowering that emits blocks in source order keeps that order. Unreachable blocks are
/// left out. Returns the old block numbers in their new order.
pub fn structured_order(cfg: &Cfg) -> Result<Vec<u32>, CfgError> {
    let n = cfg.len();
    if n == 0 {
        return Ok(Vec::new());
    }
    let loops = loops(cfg)?;
    let idom = cfg.dominators();
    // Innermost loop of each block: the smallest containing loop.
    let mut innermost: Vec<Option<usize>> = vec![None; n];
    for (li, l) in loops.iter().enumerate() {
        for &b in &l.blocks {
            let better = match innermost[b as usize] {
                None => true,
                Some(o) => loops[o].blocks.len() > l.blocks.len(),
            };
            if better {
                innermost[b as usize] = Some(li);
            }
        }
    }
    let is_back = |from: u32, to: u32| {
        loops
            .iter()
            .any(|l| l.header == to && l.blocks.contains(&from))
    };
    // Forward in-degrees among reachable blocks.
    let mut indeg = vec![0usize; n];
    for b in 0..n as u32 {
        if idom[b as usize].is_none() {
            continue;
        }
        for &s in &cfg.succs[b as usize] {
            if !is_back(b, s) {
                indeg[s as usize] += 1;
            }
        }
    }
    let mut ready: BTreeSet<u32> = BTreeSet::new();
    ready.insert(0);
    let mut open: Vec<usize> = Vec::new(); // stack of loops being laid out
    let mut left: Vec<usize> = loops.iter().map(|l| l.blocks.len()).collect();
    let mut order = Vec::with_capacity(n);
    while !ready.is_empty() {
        // Close loops whose blocks are all placed.
        while let Some(&l) = open.last() {
            if left[l] == 0 {
                open.pop();
            } else {
                break;
            }
        }
        let pick = match open.last() {
            Some(&l) => ready.iter().copied().find(|b| loops[l].blocks.contains(b)),
            None => ready.iter().copied().next(),
        };
        // With a reducible graph a ready block of the innermost open loop always exists
        // while that loop has blocks left; fall back to any ready block otherwise.
        let b = pick.unwrap_or_else(|| *ready.iter().next().unwrap_or(&0));
        ready.remove(&b);
        order.push(b);
        for (li, l) in loops.iter().enumerate() {
            if l.blocks.contains(&b) {
                left[li] -= 1;
            }
        }
        if let Some(li) = innermost[b as usize]
            && loops[li].header == b
        {
            // Open every loop headed here, outermost first (nested loops can share a header
            // only in degenerate graphs; keep the innermost on top).
            let mut headed: Vec<usize> =
                (0..loops.len()).filter(|&i| loops[i].header == b).collect();
            headed.sort_by_key(|&i| std::cmp::Reverse(loops[i].blocks.len()));
            open.extend(headed);
        }
        for &s in &cfg.succs[b as usize] {
            if is_back(b, s) {
                continue;
            }
            indeg[s as usize] -= 1;
            if indeg[s as usize] == 0 {
                ready.insert(s);
            }
        }
    }
    Ok(order)
}

/// Checks that the blocks, in their current numbering, are in a structured order.
pub fn check_order(cfg: &Cfg) -> Result<(), CfgError> {
    let loops = loops(cfg)?;
    for b in 0..cfg.len() as u32 {
        for &s in &cfg.succs[b as usize] {
            if s <= b && !loops.iter().any(|l| l.header == s && l.blocks.contains(&b)) {
                return Err(CfgError::BadBackEdge { from: b, to: s });
            }
        }
    }
    for l in &loops {
        let lo = *l.blocks.first().unwrap_or(&l.header);
        let hi = *l.blocks.last().unwrap_or(&l.header);
        if lo != l.header {
            return Err(CfgError::BadBackEdge {
                from: lo,
                to: l.header,
            });
        }
        if let Some(outside) = (lo..=hi).find(|b| !l.blocks.contains(b)) {
            return Err(CfgError::LoopNotContiguous {
                header: l.header,
                outside,
            });
        }
    }
    Ok(())
}

/// Renumbers a shader's blocks into a structured order, dropping unreachable blocks
/// (their instructions stay in `insts` but belong to no block… they are removed too,
/// so that every instruction belongs to exactly one block).
pub fn reorder(shader: &mut Shader) -> Result<(), CfgError> {
    let cfg = Cfg::new(shader);
    let order = structured_order(&cfg)?;
    if order.iter().enumerate().all(|(i, &b)| i as u32 == b) && order.len() == shader.blocks.len() {
        return Ok(());
    }
    let mut new_id = vec![u32::MAX; shader.blocks.len()];
    for (i, &b) in order.iter().enumerate() {
        new_id[b as usize] = i as u32;
    }
    let mut insts = Vec::with_capacity(shader.insts.len());
    let mut locs = Vec::with_capacity(shader.locs.len());
    let mut blocks = Vec::with_capacity(order.len());
    for &b in &order {
        let old = &shader.blocks[b as usize];
        let start = insts.len() as u32;
        insts.extend_from_slice(&shader.insts[old.start as usize..old.end as usize]);
        locs.extend_from_slice(&shader.locs[old.start as usize..old.end as usize]);
        let mut term = old.term.clone();
        term.successors_mut(|s| *s = BlockId(new_id[s.index()]));
        blocks.push(super::shader::Block {
            start,
            end: insts.len() as u32,
            term,
            term_loc: old.term_loc,
        });
    }
    shader.insts = insts;
    shader.locs = locs;
    shader.blocks = blocks;
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn cfg(edges: &[&[u32]]) -> Cfg {
        let terms: Vec<Terminator> = edges
            .iter()
            .map(|s| match s {
                [] => Terminator::Return,
                [a] => Terminator::Jump(BlockId(*a)),
                [a, b] => Terminator::Branch {
                    cond: super::super::Reg(0),
                    then_: BlockId(*a),
                    else_: BlockId(*b),
                },
                _ => unreachable!(),
            })
            .collect();
        Cfg::from_terminators(terms.iter())
    }

    #[test]
    fn dominators_of_a_diamond() {
        // 0 → 1, 2 → 3
        let g = cfg(&[&[1, 2], &[3], &[3], &[]]);
        assert_eq!(g.dominators(), vec![Some(0), Some(0), Some(0), Some(0)]);
        assert!(check_order(&g).is_ok());
    }

    #[test]
    fn loop_exit_placed_after_the_loop_body() {
        // 0 → 1 (header); 1 → 2 (exit) or 3 (body); 3 → 1. The exit 2 must come after 3.
        let g = cfg(&[&[1], &[2, 3], &[], &[1]]);
        assert!(matches!(
            check_order(&g),
            Err(CfgError::LoopNotContiguous {
                header: 1,
                outside: 2
            })
        ));
        assert_eq!(structured_order(&g).unwrap(), vec![0, 1, 3, 2]);
    }

    #[test]
    fn nested_loops_are_contiguous() {
        // 0 → 1 (outer header) → 2 (inner header) → 3 (inner latch) → 2 | 4; 4 → 1 | 5
        let g = cfg(&[&[1], &[2], &[3], &[2, 4], &[1, 5], &[]]);
        assert!(check_order(&g).is_ok());
        let ls = loops(&g).unwrap();
        assert_eq!(ls.len(), 2);
        assert_eq!(structured_order(&g).unwrap(), vec![0, 1, 2, 3, 4, 5]);
    }

    #[test]
    fn irreducible_graph_is_refused() {
        // 0 → 1 | 2; 1 → 2; 2 → 1: the cycle {1, 2} has two entries.
        let g = cfg(&[&[1, 2], &[2], &[1]]);
        assert!(matches!(
            structured_order(&g),
            Err(CfgError::Irreducible { .. })
        ));
    }

    #[test]
    fn unreachable_blocks_are_dropped() {
        let g = cfg(&[&[2], &[2], &[]]);
        assert_eq!(structured_order(&g).unwrap(), vec![0, 2]);
    }
}
