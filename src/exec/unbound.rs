//! Accesses of unbound descriptors: a declared range may leave elements unbound (D3D12
//! resource binding tier 3 allows descriptors that are never accessed to stay
//! unwritten), and a lane that accesses one stops the run with an error naming the
//! lane, the instruction and the element.
//!
//! Owns: the check of the handles an instruction accesses (the instruction table's
//! `handles` column, [`Inst::handles`]) in the active lanes. Runs only for dispatches whose table holds an
//! unbound element (`DescriptorTable::has_unbound`), so other runs pay nothing. Making
//! a handle (`handle`, `heap_handle`) is not an access; every instruction that reads,
//! writes, queries or samples through one is.

use crate::ir::{Inst, InstId};

use super::Ctx;
use super::budget::{At, ExecError};
use super::control::invocation;
use super::wave::{Wave, lanes};

/// Stops the run when an active lane is about to access an unbound element through
/// instruction `at`.
pub fn check<const W: usize>(
    w: &Wave<W>,
    cx: &Ctx<'_>,
    inst: &Inst,
    at: usize,
) -> Result<(), ExecError> {
    for r in inst.handles() {
        if r.is_none() {
            continue;
        }
        let values = &w.regs[r.index()];
        for l in lanes(w.ex.mask) {
            if let Some(element) = cx.table.unbound_name(values[l]) {
                return Err(ExecError::UnboundDescriptor {
                    lane: invocation(w, cx, l),
                    at: At::Inst(InstId(at as u32)),
                    text: inst.to_string(),
                    loc: cx.shader.locs.get(at).copied().unwrap_or_default(),
                    element: element.to_string(),
                });
            }
        }
    }
    Ok(())
}
