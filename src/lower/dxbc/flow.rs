//! Structured control flow: `if`/`else`/`endif`, `loop`/`endloop`, `break(c)`,
//! `continue(c)`, `switch`/`case`/`default`/`endswitch` with fall-through, `ret(c)`, and
//! subroutines (`call`, `callc`, `label`), which are inlined.

use super::{Lowerer, MAX_CALL_DEPTH, RetTarget};
use crate::dxbc::{Executable, Opcode, OperandType, RegisterType, Test};
use crate::ir::{BlockId, Reg, SourceLoc, Terminator};
use crate::lower::LowerError;

/// An open control-flow construct.
#[derive(Debug, Clone)]
pub(super) enum Frame {
    /// `if`: the block its `else` starts (until the `else` is seen) and the block after
    /// `endif`.
    If {
        else_block: Option<BlockId>,
        end: BlockId,
    },
    /// `loop`: its first block (where `continue` and `endloop` go) and the block after it.
    Loop { header: BlockId, exit: BlockId },
    /// `switch`: the block that ends in the switch terminator (made at `endswitch`, once
    /// every case is known), the selector, the cases seen, and the block after it.
    Switch {
        dispatch: BlockId,
        loc: SourceLoc,
        sel: Reg,
        cases: Vec<(u32, BlockId)>,
        default: Option<BlockId>,
        exit: BlockId,
        /// The last label's block and the IR instruction count when it started: a label
        /// right after another (`case 1: case 2:`) shares its block.
        label: Option<(BlockId, usize)>,
    },
}

impl Frame {
    /// The construct's opening instruction, for messages.
    pub(super) fn name(&self) -> &'static str {
        match self {
            Frame::If { .. } => "an if",
            Frame::Loop { .. } => "a loop",
            Frame::Switch { .. } => "a switch",
        }
    }
}

impl Lowerer<'_> {
    /// Lowers a control-flow instruction (`index` is its position in the program).
    pub(super) fn flow(&mut self, index: usize, e: &Executable) -> Result<(), LowerError> {
        use Opcode as O;
        match e.opcode {
            O::If => {
                let cond = self.condition(e)?;
                let then_b = self.b.new_block();
                let end = self.b.new_block();
                let else_b = if self.has_else.contains(&index) {
                    self.b.new_block()
                } else {
                    end
                };
                self.branch(e, cond, then_b, else_b);
                self.b.switch_to(then_b);
                self.frames.push(Frame::If {
                    else_block: (else_b != end).then_some(else_b),
                    end,
                });
            }
            O::Else => match self.frames.last_mut() {
                Some(Frame::If { else_block, end }) if else_block.is_some() => {
                    let (eb, end) = (else_block.take(), *end);
                    self.jump_if_open(end);
                    if let Some(eb) = eb {
                        self.b.switch_to(eb);
                    }
                }
                _ => return Err(self.invalid("else without its if".into())),
            },
            O::EndIf => match self.frames.pop() {
                Some(Frame::If { end, .. }) => {
                    self.jump_if_open(end);
                    self.b.switch_to(end);
                }
                _ => return Err(self.invalid("endif without its if".into())),
            },
            O::Loop => {
                let header = self.b.new_block();
                let exit = self.b.new_block();
                self.jump_if_open(header);
                self.b.switch_to(header);
                self.frames.push(Frame::Loop { header, exit });
            }
            O::EndLoop => match self.frames.pop() {
                Some(Frame::Loop { header, exit }) => {
                    self.jump_if_open(header);
                    self.b.switch_to(exit);
                }
                _ => return Err(self.invalid("endloop without its loop".into())),
            },
            O::Break => {
                let exit = self.break_target()?;
                self.jump_if_open(exit);
            }
            O::Breakc => {
                let exit = self.break_target()?;
                let cond = self.condition(e)?;
                let next = self.b.new_block();
                self.branch(e, cond, exit, next);
                self.b.switch_to(next);
            }
            O::Continue => {
                let header = self.continue_target()?;
                self.jump_if_open(header);
            }
            O::Continuec => {
                let header = self.continue_target()?;
                let cond = self.condition(e)?;
                let next = self.b.new_block();
                self.branch(e, cond, header, next);
                self.b.switch_to(next);
            }
            O::Switch => {
                let op = e
                    .operands(self.p)
                    .first()
                    .ok_or_else(|| self.invalid("switch without its selector".into()))?;
                let sel = self.scalar(op, OperandType::Int)?;
                self.flush()?;
                let dispatch = match self.b.current() {
                    Some(b) if self.open() => b,
                    _ => {
                        let b = self.b.new_block();
                        self.b.switch_to(b);
                        b
                    }
                };
                let exit = self.b.new_block();
                // Code between `switch` and its first label is unreachable.
                let filler = self.b.new_block();
                self.b.switch_to(filler);
                self.frames.push(Frame::Switch {
                    dispatch,
                    loc: self.loc,
                    sel,
                    cases: Vec::new(),
                    default: None,
                    exit,
                    label: None,
                });
            }
            O::Case | O::Default => self.switch_label(e)?,
            O::EndSwitch => match self.frames.pop() {
                Some(Frame::Switch {
                    dispatch,
                    loc,
                    sel,
                    cases,
                    default,
                    exit,
                    ..
                }) => {
                    self.jump_if_open(exit);
                    self.b.switch_to(dispatch);
                    self.b.set_loc(loc);
                    self.b.terminate(Terminator::Switch {
                        sel,
                        cases,
                        default: default.unwrap_or(exit),
                    });
                    self.b.set_loc(self.loc);
                    self.b.switch_to(exit);
                }
                _ => return Err(self.invalid("endswitch without its switch".into())),
            },
            O::Ret => self.ret(),
            O::Retc => {
                let cond = self.condition(e)?;
                let target = match self.ret_target {
                    RetTarget::Block(b) => b,
                    RetTarget::Program => {
                        let here = self.b.current();
                        let b = self.b.new_block();
                        self.b.switch_to(b);
                        self.b.terminate(Terminator::Return);
                        if let Some(here) = here {
                            self.b.switch_to(here);
                        }
                        b
                    }
                };
                let next = self.b.new_block();
                self.branch(e, cond, target, next);
                self.b.switch_to(next);
            }
            O::Call | O::Callc => self.call(index, e)?,
            // Reached only by running into a subroutine body, which ends the code before it.
            O::Label => {}
            other => return Err(self.unsupported(format!("opcode {}", other.mnemonic()))),
        }
        Ok(())
    }

    /// The condition register of `if`, `breakc`, `continuec`, `retc`, `callc` (its first
    /// operand, one selected component), with the queued reads emitted.
    fn condition(&mut self, e: &Executable) -> Result<Reg, LowerError> {
        let op = e.operands(self.p).first().ok_or_else(|| {
            self.invalid("a conditional instruction without its condition".into())
        })?;
        let r = self.scalar(op, OperandType::Uint)?;
        self.flush()?;
        Ok(r)
    }

    /// Ends the current block with a branch to `taken` where the instruction's test holds
    /// (`_nz`: any bit set; `_z`: all bits clear), else to `not_taken`.
    fn branch(&mut self, e: &Executable, cond: Reg, taken: BlockId, not_taken: BlockId) {
        let (then_, else_) = match e.test {
            Some(Test::Zero) => (not_taken, taken),
            _ => (taken, not_taken),
        };
        self.b.terminate(Terminator::Branch { cond, then_, else_ });
    }

    /// Jumps to `target` unless the current block already ended (after `break`, `ret`).
    pub(super) fn jump_if_open(&mut self, target: BlockId) {
        if self.open() {
            self.b.terminate(Terminator::Jump(target));
        }
    }

    /// `ret`: the end of the program, or of the inlined subroutine.
    fn ret(&mut self) {
        match self.ret_target {
            RetTarget::Program => {
                if self.open() {
                    self.b.terminate(Terminator::Return);
                }
            }
            RetTarget::Block(b) => self.jump_if_open(b),
        }
    }

    /// Where `break` goes: after the innermost loop or switch.
    fn break_target(&self) -> Result<BlockId, LowerError> {
        match self
            .frames
            .iter()
            .rev()
            .find(|f| !matches!(f, Frame::If { .. }))
        {
            Some(Frame::Loop { exit, .. } | Frame::Switch { exit, .. }) => Ok(*exit),
            _ => Err(self.invalid("break outside a loop or switch".into())),
        }
    }

    /// Where `continue` goes: the start of the innermost loop.
    fn continue_target(&self) -> Result<BlockId, LowerError> {
        self.frames
            .iter()
            .rev()
            .find_map(|f| match f {
                Frame::Loop { header, .. } => Some(*header),
                _ => None,
            })
            .ok_or_else(|| self.invalid("continue outside a loop".into()))
    }

    /// `case v` or `default`: starts the label's block, falling through from the code
    /// before it (D3D allows a case to run on into the next), or shares the block of a
    /// label right before it.
    fn switch_label(&mut self, e: &Executable) -> Result<(), LowerError> {
        let value = if e.opcode == Opcode::Case {
            let op = e
                .operands(self.p)
                .first()
                .ok_or_else(|| self.invalid("case without its value".into()))?;
            if op.register != RegisterType::Immediate32 {
                return Err(self.invalid("a case value that is not an immediate".into()));
            }
            Some(op.values[0])
        } else {
            None
        };
        let emitted = self.ir_emitted;
        let current = self.b.current();
        let open = self.open();
        let Some(Frame::Switch { label, .. }) = self.frames.last() else {
            return Err(self.invalid(format!("{} outside a switch", e.opcode.mnemonic())));
        };
        let shared = match label {
            Some((blk, at)) if *at == emitted && current == Some(*blk) && open => Some(*blk),
            _ => None,
        };
        let blk = match shared {
            Some(b) => b,
            None => {
                let b = self.b.new_block();
                self.jump_if_open(b);
                self.b.switch_to(b);
                b
            }
        };
        let err = match self.frames.last_mut() {
            Some(Frame::Switch {
                cases,
                default,
                label,
                ..
            }) => {
                *label = Some((blk, emitted));
                match value {
                    Some(v) if cases.iter().any(|c| c.0 == v) => {
                        Some(format!("case {} appears twice", v as i32))
                    }
                    Some(v) => {
                        cases.push((v, blk));
                        None
                    }
                    None if default.is_some() => Some("default appears twice".to_string()),
                    None => {
                        *default = Some(blk);
                        None
                    }
                }
            }
            _ => None,
        };
        match err {
            Some(m) => Err(self.invalid(m)),
            None => Ok(()),
        }
    }

    /// `call l#` / `callc_(n)z cond, l#`: inlines the subroutine's body, with `ret`
    /// continuing after the call. D3D forbids recursion (a subroutine may not call
    /// itself, directly or not), so a call to a label already being inlined is refused.
    fn call(&mut self, index: usize, e: &Executable) -> Result<(), LowerError> {
        let id = self.label_id(e)?;
        let (start, end) = *self
            .labels
            .get(&id)
            .ok_or_else(|| self.invalid(format!("call to l{id}, which is not defined")))?;
        if self.call_stack.contains(&id) {
            return Err(self.unsupported(format!(
                "recursive call of subroutine l{id} (D3D forbids recursion)"
            )));
        }
        if self.call_stack.len() >= MAX_CALL_DEPTH {
            return Err(self.unsupported(format!(
                "subroutine calls nested deeper than {MAX_CALL_DEPTH}"
            )));
        }
        let cont = self.b.new_block();
        if e.opcode == Opcode::Callc {
            let cond = self.condition(e)?;
            let body = self.b.new_block();
            self.branch(e, cond, body, cont);
            self.b.switch_to(body);
        } else {
            self.flush()?;
        }
        let frames = std::mem::take(&mut self.frames);
        let ret = std::mem::replace(&mut self.ret_target, RetTarget::Block(cont));
        self.call_stack.push(id);
        let result = self.lower_range(start, end);
        self.call_stack.pop();
        let callee_frames = std::mem::replace(&mut self.frames, frames);
        self.ret_target = ret;
        result?;
        if let Some(f) = callee_frames.last() {
            return Err(self.invalid(format!("{} in subroutine l{id} is never closed", f.name())));
        }
        self.set_loc_of(index);
        self.jump_if_open(cont);
        self.b.switch_to(cont);
        Ok(())
    }
}
