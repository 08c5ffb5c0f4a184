//! Parallel copies: the moves a set of phis makes on one control-flow edge.
//!
//! Owns: ordering a set of simultaneous register copies `dst_i ← src_i` into a sequence
//! of single moves with the same effect. Does not own: which copies an edge needs (the
//! parent module collects them from the phis).

use crate::ir::Reg;

/// Orders the simultaneous copies `(dst, src)` into moves `(dst, src)` executed one after
/// another, with the effect of all of them reading their sources first (the semantics of
/// the phis of one block, LLVM LangRef "phi": the incoming values are read on the edge).
///
/// Destinations are distinct (each phi has its own registers). A copy whose source is the
/// destination of another copy waits until that source has been read; a cycle (the swap
/// `a ← b, b ← a`) is broken by saving one register in a fresh temporary from `temp`,
/// after which the copies reading it read the temporary instead. Self-copies vanish.
pub fn sequence(copies: &[(Reg, Reg)], mut temp: impl FnMut() -> Reg) -> Vec<(Reg, Reg)> {
    let mut pending: Vec<(Reg, Reg)> = copies.iter().copied().filter(|(d, s)| d != s).collect();
    let mut out = Vec::with_capacity(pending.len());
    while !pending.is_empty() {
        // A copy whose destination no other pending copy still reads can go now.
        let ready = pending
            .iter()
            .position(|&(d, _)| !pending.iter().any(|&(_, s)| s == d));
        match ready {
            Some(i) => {
                let c = pending.swap_remove(i);
                out.push(c);
            }
            None => {
                // Every destination is still read: the rest are cycles. Save the first
                // destination and redirect its readers to the copy.
                let Some(&(d, _)) = pending.first() else {
                    break;
                };
                let t = temp();
                out.push((t, d));
                for c in pending.iter_mut() {
                    if c.1 == d {
                        c.1 = t;
                    }
                }
            }
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Runs moves on a register file.
    fn run(moves: &[(Reg, Reg)], regs: &mut [u32]) {
        for &(d, s) in moves {
            regs[d.index()] = regs[s.index()];
        }
    }

    /// Checks that the sequence has the parallel effect.
    fn check(copies: &[(Reg, Reg)]) -> usize {
        let mut next = 100u32;
        let moves = sequence(copies, || {
            next += 1;
            Reg(next)
        });
        let mut regs: Vec<u32> = (0..200).map(|i| 1000 + i).collect();
        let before = regs.clone();
        run(&moves, &mut regs);
        for &(d, s) in copies {
            assert_eq!(regs[d.index()], before[s.index()], "{copies:?} → {moves:?}");
        }
        moves.len()
    }

    /// LLVM LangRef "phi": `%a = phi [%b, %loop]`, `%b = phi [%a, %loop]` swaps.
    #[test]
    fn swap_uses_one_temporary() {
        assert_eq!(check(&[(Reg(1), Reg(2)), (Reg(2), Reg(1))]), 3);
    }

    #[test]
    fn rotation_and_chains() {
        check(&[(Reg(1), Reg(2)), (Reg(2), Reg(3)), (Reg(3), Reg(1))]);
        // A chain: b ← a, c ← b must copy c first.
        assert_eq!(check(&[(Reg(2), Reg(1)), (Reg(3), Reg(2))]), 2);
        // One source fanned out, and a cycle beside a tail.
        check(&[
            (Reg(1), Reg(2)),
            (Reg(2), Reg(1)),
            (Reg(3), Reg(1)),
            (Reg(4), Reg(4)),
            (Reg(5), Reg(9)),
        ]);
        assert_eq!(check(&[(Reg(4), Reg(4))]), 0);
    }
}
