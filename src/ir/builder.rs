//! Building a shader: what the lowerings use.
//!
//! The builder hands out registers and blocks in any order and fixes the layout at the
//! end: [`Builder::finish`] numbers the constant registers first (deduplicated), lays
//! the blocks out in a structured order (see [`crate::ir::cfg`]), drops unreachable
//! blocks, and validates the result.

use std::collections::HashMap;

use super::cfg::{self, CfgError};
use super::ids::{BlockId, Reg};
use super::inst::Inst;
use super::shader::{Block, Shader, SourceLoc, SourceVar, Stage, Terminator, VarKey};
use super::validate::{ValidateError, validate};

/// Provisional registers at or above this number are constants (renumbered by `finish`).
const CONST_BASE: u32 = 1 << 31;

/// Why [`Builder::finish`] failed: a lowering bug or a program the IR cannot run.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum BuildError {
    /// A reachable block was never terminated.
    #[error("block {0} is reachable but has no terminator")]
    Unterminated(BlockId),
    /// The control flow is irreducible or otherwise cannot be ordered.
    #[error(transparent)]
    Cfg(#[from] CfgError),
    /// The result breaks an IR invariant.
    #[error(transparent)]
    Invalid(#[from] ValidateError),
    /// Too many registers.
    #[error("the shader needs more than {0} registers")]
    TooManyRegisters(u32),
}

struct PendingBlock {
    insts: Vec<Inst>,
    locs: Vec<SourceLoc>,
    term: Option<(Terminator, SourceLoc)>,
}

/// Builds a [`Shader`].
pub struct Builder {
    shader: Shader,
    blocks: Vec<PendingBlock>,
    current: Option<BlockId>,
    loc: SourceLoc,
    temps: u32,
    consts: Vec<u32>,
    const_map: HashMap<u32, Reg>,
    const64_map: HashMap<u64, Reg>,
    vars: Vec<SourceVar>,
}

/// The most registers a shader may use (temps and constants); bounds the register file
/// a wave allocates.
pub const MAX_REGS: u32 = 1 << 20;

impl Builder {
    /// A builder for a shader of this stage, positioned in the entry block (block 0).
    pub fn new(stage: Stage) -> Builder {
        let mut shader = Shader::new(stage);
        shader.blocks.clear();
        Builder {
            shader,
            blocks: vec![PendingBlock {
                insts: Vec::new(),
                locs: Vec::new(),
                term: None,
            }],
            current: Some(BlockId(0)),
            loc: SourceLoc::None,
            temps: 0,
            consts: Vec::new(),
            const_map: HashMap::new(),
            const64_map: HashMap::new(),
            vars: Vec::new(),
        }
    }

    /// The shader's header fields (stage, thread group, resources, locals, …), to fill in.
    /// Its blocks, instructions and registers are owned by the builder.
    pub fn shader_mut(&mut self) -> &mut Shader {
        &mut self.shader
    }

    /// The shader being built (header fields).
    pub fn shader(&self) -> &Shader {
        &self.shader
    }

    /// A fresh 32-bit register.
    pub fn temp(&mut self) -> Reg {
        self.temps(1)
    }

    /// A fresh register pair for a 64-bit value.
    pub fn temp64(&mut self) -> Reg {
        self.temps(2)
    }

    /// `n` fresh consecutive registers; returns the first.
    pub fn temps(&mut self, n: u32) -> Reg {
        let r = Reg(self.temps);
        self.temps = self.temps.saturating_add(n);
        r
    }

    /// A constant register holding `v` in every lane.
    pub fn konst(&mut self, v: u32) -> Reg {
        if let Some(&r) = self.const_map.get(&v) {
            return r;
        }
        let r = Reg(CONST_BASE + self.consts.len() as u32);
        self.consts.push(v);
        self.const_map.insert(v, r);
        r
    }

    /// A constant register holding the bits of `v`.
    pub fn konst_f32(&mut self, v: f32) -> Reg {
        self.konst(v.to_bits())
    }

    /// A constant register pair holding `v` (low half first).
    pub fn konst64(&mut self, v: u64) -> Reg {
        if let Some(&r) = self.const64_map.get(&v) {
            return r;
        }
        let r = Reg(CONST_BASE + self.consts.len() as u32);
        self.consts.push(v as u32);
        self.consts.push((v >> 32) as u32);
        self.const64_map.insert(v, r);
        r
    }

    /// Records that `regs` hold the source program's value `key` (the debugger's source
    /// map; see [`SourceVar`]). Registers are renumbered with the rest by `finish`.
    pub fn name_regs(&mut self, key: VarKey, regs: Vec<Reg>) {
        self.vars.push(SourceVar { key, regs });
    }

    /// A new, empty block (not yet current).
    pub fn new_block(&mut self) -> BlockId {
        let b = BlockId(self.blocks.len() as u32);
        self.blocks.push(PendingBlock {
            insts: Vec::new(),
            locs: Vec::new(),
            term: None,
        });
        b
    }

    /// Makes `b` the block instructions go to.
    pub fn switch_to(&mut self, b: BlockId) {
        self.current = Some(b);
    }

    /// The block instructions go to, if any (none right after a terminator).
    pub fn current(&self) -> Option<BlockId> {
        self.current
    }

    /// Whether block `b` already has its terminator.
    pub fn is_terminated(&self, b: BlockId) -> bool {
        self.blocks.get(b.index()).is_some_and(|p| p.term.is_some())
    }

    /// Sets the source location of the instructions emitted from now on.
    pub fn set_loc(&mut self, loc: SourceLoc) {
        self.loc = loc;
    }

    /// The current source location.
    pub fn loc(&self) -> SourceLoc {
        self.loc
    }

    fn current_or_new(&mut self) -> BlockId {
        match self.current {
            Some(b) if !self.is_terminated(b) => b,
            _ => {
                // Code after a terminator is unreachable; it gets a block of its own,
                // which `finish` drops.
                let b = self.new_block();
                self.current = Some(b);
                b
            }
        }
    }

    /// How many instructions emitted so far (in every block) satisfy `f`: lowerings
    /// number their per-site slots this way (`rq_alloc`, the hit objects).
    pub fn count_emitted(&self, f: impl Fn(&Inst) -> bool) -> usize {
        self.blocks
            .iter()
            .flat_map(|p| p.insts.iter())
            .chain(self.shader.insts.iter())
            .filter(|i| f(i))
            .count()
    }

    /// Appends an instruction to the current block.
    pub fn emit(&mut self, inst: Inst) {
        let b = self.current_or_new();
        let loc = self.loc;
        let p = &mut self.blocks[b.index()];
        p.insts.push(inst);
        p.locs.push(loc);
    }

    /// Ends the current block with `term`; instructions emitted before the next
    /// [`Builder::switch_to`] go to a fresh unreachable block.
    pub fn terminate(&mut self, term: Terminator) {
        let b = self.current_or_new();
        self.blocks[b.index()].term = Some((term, self.loc));
        self.current = None;
    }

    /// Lays out, renumbers and validates the shader.
    pub fn finish(mut self) -> Result<Shader, BuildError> {
        let nconst = self.consts.len() as u32;
        let total = nconst
            .checked_add(self.temps)
            .filter(|&t| t <= MAX_REGS)
            .ok_or(BuildError::TooManyRegisters(MAX_REGS))?;
        // Which blocks are reachable: unterminated reachable blocks are a lowering bug.
        let terms: Vec<Terminator> = self
            .blocks
            .iter()
            .map(|p| {
                p.term
                    .as_ref()
                    .map(|t| t.0.clone())
                    .unwrap_or(Terminator::Unreachable)
            })
            .collect();
        let graph = cfg::Cfg::from_terminators(terms.iter());
        for b in graph.reverse_post_order() {
            if self.blocks[b as usize].term.is_none() {
                return Err(BuildError::Unterminated(BlockId(b)));
            }
        }
        let map = |r: &mut Reg| {
            if r.0 >= CONST_BASE {
                r.0 -= CONST_BASE;
            } else {
                r.0 += nconst;
            }
        };
        let mut shader = self.shader;
        shader.insts.clear();
        shader.locs.clear();
        shader.blocks.clear();
        for p in self.blocks.iter_mut() {
            let start = shader.insts.len() as u32;
            for mut inst in p.insts.drain(..) {
                inst.visit_regs_mut(&mut |_, r| map(r));
                shader.insts.push(inst);
            }
            shader.locs.append(&mut p.locs);
            let (mut term, term_loc) = p
                .term
                .take()
                .unwrap_or((Terminator::Unreachable, SourceLoc::None));
            if let Some(r) = term.reg_mut() {
                map(r);
            }
            shader.blocks.push(Block {
                start,
                end: shader.insts.len() as u32,
                term,
                term_loc,
            });
        }
        for mut v in self.vars.drain(..) {
            for r in &mut v.regs {
                if !r.is_none() {
                    map(r);
                }
            }
            shader.vars.push(v);
        }
        shader.consts = self.consts;
        shader.num_regs = total;
        cfg::reorder(&mut shader)?;
        validate(&shader)?;
        Ok(shader)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::Inst;

    #[test]
    fn constants_come_first_and_are_shared() {
        let mut b = Builder::new(Stage::Compute);
        let t = b.temp();
        let one = b.konst(1);
        assert_eq!(b.konst(1), one);
        b.emit(Inst::IAdd {
            dst: t,
            a: one,
            b: one,
        });
        b.terminate(Terminator::Return);
        let s = b.finish().unwrap();
        assert_eq!(s.consts, vec![1]);
        assert_eq!(
            s.insts[0],
            Inst::IAdd {
                dst: Reg(1),
                a: Reg(0),
                b: Reg(0)
            }
        );
    }

    #[test]
    fn loops_are_laid_out_with_exits_last() {
        let mut b = Builder::new(Stage::Compute);
        let c = b.temp();
        let header = b.new_block();
        let exit = b.new_block();
        let body = b.new_block();
        b.terminate(Terminator::Jump(header));
        b.switch_to(header);
        b.terminate(Terminator::Branch {
            cond: c,
            then_: exit,
            else_: body,
        });
        b.switch_to(exit);
        b.terminate(Terminator::Return);
        b.switch_to(body);
        b.emit(Inst::Not { dst: c, src: c });
        b.terminate(Terminator::Jump(header));
        let s = b.finish().unwrap();
        // entry, header, body, exit
        assert_eq!(
            s.blocks[1].term,
            Terminator::Branch {
                cond: Reg(0),
                then_: BlockId(3),
                else_: BlockId(2)
            }
        );
        assert_eq!(s.blocks[3].term, Terminator::Return);
    }

    #[test]
    fn unterminated_reachable_block_is_an_error() {
        let mut b = Builder::new(Stage::Compute);
        let next = b.new_block();
        b.terminate(Terminator::Jump(next));
        assert_eq!(
            b.finish().unwrap_err(),
            BuildError::Unterminated(BlockId(1))
        );
    }
}
