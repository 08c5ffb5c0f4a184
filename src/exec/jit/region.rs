//! Regions: the blocks of a shader whose instructions are all compilable, run natively
//! with the interpreter's control flow — block charging, terminators and the scheduling
//! rule of `exec::control` — so that whole loop iterations never leave native code.
//!
//! # The region rule
//!
//! A block is **native** when every instruction in it is [compilable](super::select)
//! and its terminator is a jump, a branch, a switch of at most [`MAX_CASES`] cases or a
//! return. A shader's native blocks make up its one region function; it can be entered
//! at the start of any native block (before the block is charged) and runs blocks until
//! the block the wave continues with is not native, the wave is done, or charging the
//! next block would take the wave's step count past the budget. It then returns with the
//! wave at the start of that block, not yet charged, exactly as the interpreter's block
//! loop would hold it there, and the interpreter charges and runs it — so a budget
//! exhausted inside a loop raises the interpreter's own error, at the same lane and
//! instruction.
//!
//! # What the code does per block (each step is `exec::control`'s)
//!
//! - **Charge** (`control::charge`): `steps += cost`, `executed += cost × active`; the
//!   cost owed to live lanes that are not active is summed in `pending` and added to
//!   their idle counts when the mask next changes (or by the caller on return), which
//!   gives the same counts as adding it block by block.
//! - **Body**: the block's instructions as one lane loop (`emit::lane_loop`), the same
//!   code a segment has.
//! - **Terminator** (`control::terminate`): a jump goes to its target; a branch with every
//!   active lane going one way goes there; otherwise each active lane's `next` is set and
//!   the wave is scheduled. A switch writes each active lane's target to `next` and goes
//!   there when they agree. A return marks the active lanes done. "Goes to `t`" is
//!   `control::goto`: the fast path (`t` below every waiting lane's block keeps the mask)
//!   or `next := t` for the active lanes and a schedule.
//! - **Schedule** (`control::schedule`): the lowest block any live lane waits at becomes
//!   current, with exactly the lanes waiting there active; none left: done.
//!
//! The wave's per-lane state lives where the interpreter keeps it (`Wave::next`, the
//! mask's words `Exec::sel`, `Wave::idle`) plus the live mask as words; the scalar state
//! is a [`State`] the caller fills before and reads back after the call.

use std::mem::offset_of;

use cranelift_codegen::ir::condcodes::IntCC;
use cranelift_codegen::ir::types::{I32, I32X4, I64, I64X2};
use cranelift_codegen::ir::{Block, BlockArg, InstBuilder, JumpTableData, Type, Value};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::{FunctionBuilder, Variable};

use crate::ir::{Shader, Terminator};

use super::emit::{self, flags};
use super::{Key, select};

/// The most cases a switch of a native block may have (each case is a compare per lane
/// vector).
pub const MAX_CASES: usize = 64;

/// The most generated operations (estimated by [`size`]) a region may have; a larger one
/// is not compiled (its blocks run in the interpreter, with their segments), so that
/// compiling stays short.
pub const MAX_REGION_SIZE: usize = 200_000;

/// An estimate of the Cranelift operations the region of the blocks `native` marks
/// takes at `width` lanes: each instruction once (the lane loop is a loop), each
/// terminator's lane work once per vector of four lanes (it is unrolled).
pub fn size(shader: &Shader, native: &[bool], width: u32) -> usize {
    let chunks = (width / 4).max(1) as usize;
    let mut n = 0;
    for (b, block) in shader.blocks.iter().enumerate() {
        if !native.get(b).copied().unwrap_or(false) {
            continue;
        }
        let per_chunk = match &block.term {
            Terminator::Jump(_) => 0,
            Terminator::Branch { .. } => 8,
            Terminator::Switch { cases, .. } => 8 + 2 * cases.len(),
            Terminator::Return | Terminator::Unreachable => 5,
        };
        // The body is emitted twice (every lane active, and not).
        n += 16 + 16 * block.len() + per_chunk * chunks;
    }
    n
}

/// `next` of a finished lane (`wave::DONE`).
const DONE: u32 = u32::MAX;

/// What a region call returns: the wave is at the start of block `State::cur`.
pub const STOPPED: u32 = 0;
/// What a region call returns: every lane has finished.
pub const FINISHED: u32 = 1;

/// The scalar state of a wave shared with region code, read at entry and written back
/// on return (`#[repr(C)]`: the code uses these offsets).
#[repr(C)]
#[derive(Debug, Default, Clone, Copy)]
pub struct State {
    /// `Wave::steps`.
    pub steps: u64,
    /// `Wave::executed`.
    pub executed: u64,
    /// The budget of instructions per lane.
    pub limit: u64,
    /// On return: cost still owed to the live lanes that are not active.
    pub pending: u64,
    /// On return: blocks run.
    pub blocks: u64,
    /// `Wave::cur`.
    pub cur: u32,
    /// `Wave::waiting_min`.
    pub waiting_min: u32,
    /// At entry: the number of active lanes.
    pub count: u32,
    /// At entry: 1 when some live lane is not active.
    pub idle_any: u32,
}

/// Whether block `b` of `shader` is native (see the module doc).
pub fn native(shader: &Shader, b: usize) -> bool {
    let Some(block) = shader.blocks.get(b) else {
        return false;
    };
    let body = shader
        .insts
        .get(block.start as usize..block.end as usize)
        .is_some_and(|i| i.iter().all(select::compilable));
    let term = match &block.term {
        Terminator::Jump(_) | Terminator::Branch { .. } | Terminator::Return => true,
        Terminator::Switch { cases, .. } => cases.len() <= MAX_CASES,
        Terminator::Unreachable => false,
    };
    body && term
}

/// The instructions of the blocks `native` marks, in block order.
pub fn instructions(shader: &Shader, native: &[bool]) -> Vec<crate::ir::Inst> {
    let mut out = Vec::new();
    for (b, block) in shader.blocks.iter().enumerate() {
        if native.get(b).copied().unwrap_or(false)
            && let Some(i) = shader.insts.get(block.start as usize..block.end as usize)
        {
            out.extend_from_slice(i);
        }
    }
    out
}

/// Emission state of a region function.
struct R<'a, 'b> {
    b: &'a mut FunctionBuilder<'b>,
    ptr: Type,
    /// Vectors of four lanes in a wave.
    chunks: u32,
    /// Bytes per register.
    stride: i64,
    regs: Value,
    sel: Value,
    /// `W` words where a branch block's lane loop leaves the condition's values.
    cond: Value,
    next: Value,
    live: Value,
    idle: Value,
    steps: Variable,
    executed: Variable,
    cur: Variable,
    wmin: Variable,
    count: Variable,
    idle_any: Variable,
    pending: Variable,
    blocks: Variable,
    /// The code of each native block, by block index.
    heads: Vec<Option<Block>>,
    /// Jumps here: choose the block by `cur`.
    dispatch: Block,
    /// `control::schedule`.
    schedule: Block,
    /// `next := t` for the active lanes, then schedule (block parameter `t`).
    goto_slow: Block,
    /// A divergent branch (parameters: the address of the condition's `W` words, then,
    /// else).
    diverge: Block,
    /// Returns (parameter: the code).
    out: Block,
    /// Returns [`STOPPED`].
    stop: Block,
}

/// Emits the region function of `shader` for the blocks `native` marks into `b`, whose
/// signature is `(regs, sel, next, live, idle, state, cond: ptr) -> i32`.
#[allow(clippy::too_many_arguments)]
pub fn region(
    b: &mut FunctionBuilder<'_>,
    ptr: Type,
    call_conv: CallConv,
    shader: &Shader,
    native: &[bool],
    key: Key,
    daz: bool,
    flushed: &[Vec<bool>],
    local: &[Vec<bool>],
    dead: &[Vec<bool>],
    lazy: &[Vec<bool>],
) -> Result<(), String> {
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let p = b.block_params(entry).to_vec();
    let st = p[5];
    let cond_words = p[6];
    let var = |b: &mut FunctionBuilder<'_>, ty: Type, off: usize| {
        let v = b.declare_var(ty);
        let x = b.ins().load(ty, flags(), st, off as i32);
        b.def_var(v, x);
        v
    };
    let steps = var(b, I64, offset_of!(State, steps));
    let executed = var(b, I64, offset_of!(State, executed));
    let cur = var(b, I32, offset_of!(State, cur));
    let wmin = var(b, I32, offset_of!(State, waiting_min));
    let count = var(b, I32, offset_of!(State, count));
    let idle_any = var(b, I32, offset_of!(State, idle_any));
    let limit = b
        .ins()
        .load(I64, flags(), st, offset_of!(State, limit) as i32);
    let pending = b.declare_var(I64);
    let blocks = b.declare_var(I64);
    let zero64 = b.ins().iconst(I64, 0);
    b.def_var(pending, zero64);
    b.def_var(blocks, zero64);

    let heads = (0..shader.blocks.len())
        .map(|i| {
            native
                .get(i)
                .copied()
                .unwrap_or(false)
                .then(|| b.create_block())
        })
        .collect();
    let dispatch = b.create_block();
    let schedule = b.create_block();
    let goto_slow = b.create_block();
    b.append_block_param(goto_slow, I32);
    let diverge = b.create_block();
    b.append_block_param(diverge, ptr);
    b.append_block_param(diverge, I32);
    b.append_block_param(diverge, I32);
    let out = b.create_block();
    b.append_block_param(out, I32);
    let stop = b.create_block();
    b.ins().jump(dispatch, &[]);
    b.switch_to_block(stop);
    let c = b.ins().iconst(I32, i64::from(STOPPED));
    b.ins().jump(out, &[c.into()]);

    let mut r = R {
        b,
        ptr,
        chunks: key.width / 4,
        stride: i64::from(key.width) * 4,
        regs: p[0],
        sel: p[1],
        cond: cond_words,
        next: p[2],
        live: p[3],
        idle: p[4],
        steps,
        executed,
        cur,
        wmin,
        count,
        idle_any,
        pending,
        blocks,
        heads,
        dispatch,
        schedule,
        goto_slow,
        diverge,
        out,
        stop,
    };
    r.dispatch();
    for i in 0..shader.blocks.len() {
        if r.heads[i].is_some() {
            r.block(
                shader, i, key, daz, limit, call_conv, flushed, local, dead, lazy,
            )?;
        }
    }
    r.goto_slow();
    r.diverge();
    r.schedule();
    // Return: the scalar state back to the caller.
    let b = r.b;
    b.switch_to_block(out);
    let code = b.block_params(out)[0];
    for (v, off) in [
        (steps, offset_of!(State, steps)),
        (executed, offset_of!(State, executed)),
        (pending, offset_of!(State, pending)),
        (blocks, offset_of!(State, blocks)),
        (cur, offset_of!(State, cur)),
        (wmin, offset_of!(State, waiting_min)),
    ] {
        let x = b.use_var(v);
        b.ins().store(flags(), x, st, off as i32);
    }
    b.ins().return_(&[code]);
    b.seal_all_blocks();
    Ok(())
}

impl R<'_, '_> {
    fn splat(&mut self, bits: u32) -> Value {
        let s = self.b.ins().iconst(I32, i64::from(bits as i32));
        self.b.ins().splat(I32X4, s)
    }

    fn load(&mut self, base: Value, off: i64) -> Value {
        self.b.ins().load(I32X4, flags(), base, off as i32)
    }

    fn store(&mut self, v: Value, base: Value, off: i64) {
        self.b.ins().store(flags(), v, base, off as i32);
    }

    /// The smallest of the four lanes (unsigned).
    fn hmin(&mut self, v: Value) -> Value {
        let mut m = self.b.ins().extractlane(v, 0);
        for l in 1..4u8 {
            let x = self.b.ins().extractlane(v, l);
            m = self.b.ins().umin(m, x);
        }
        m
    }

    /// The largest of the four lanes (unsigned).
    fn hmax(&mut self, v: Value) -> Value {
        let mut m = self.b.ins().extractlane(v, 0);
        for l in 1..4u8 {
            let x = self.b.ins().extractlane(v, l);
            m = self.b.ins().umax(m, x);
        }
        m
    }

    /// The jump table on `cur`: a native block's code, else return.
    fn dispatch(&mut self) {
        self.b.switch_to_block(self.dispatch);
        let stop = self.stop;
        let c = self.b.use_var(self.cur);
        let def = self.b.func.dfg.block_call(stop, &[]);
        let table: Vec<_> = self
            .heads
            .clone()
            .into_iter()
            .map(|h| self.b.func.dfg.block_call(h.unwrap_or(stop), &[]))
            .collect();
        let jt = self.b.create_jump_table(JumpTableData::new(def, &table));
        self.b.ins().br_table(c, jt);
    }

    /// Block `i`: the budget test, the charge, the body, the terminator.
    #[allow(clippy::too_many_arguments)]
    fn block(
        &mut self,
        shader: &Shader,
        i: usize,
        key: Key,
        daz: bool,
        limit: Value,
        call_conv: CallConv,
        flushed: &[Vec<bool>],
        local: &[Vec<bool>],
        dead: &[Vec<bool>],
        lazy: &[Vec<bool>],
    ) -> Result<(), String> {
        let Some(head) = self.heads[i] else {
            return Ok(());
        };
        let block = &shader.blocks[i];
        let cost = i64::from(block.end - block.start) + 1;
        self.b.switch_to_block(head);
        // Charging would take the wave past the budget: the interpreter charges this
        // block itself and raises the error when a lane is over (`control::charge`).
        let s = self.b.use_var(self.steps);
        let s2 = self.b.ins().iadd_imm_u(s, cost);
        let over = self.b.ins().icmp(IntCC::UnsignedGreaterThan, s2, limit);
        let charge = self.b.create_block();
        let stop = self.stop;
        self.b.ins().brif(over, stop, &[], charge, &[]);
        self.b.switch_to_block(charge);
        self.b.def_var(self.steps, s2);
        let n = self.b.use_var(self.count);
        let n = self.b.ins().uextend(I64, n);
        let e = self.b.ins().imul_imm_u(n, cost);
        let x = self.b.use_var(self.executed);
        let x = self.b.ins().iadd(x, e);
        self.b.def_var(self.executed, x);
        let p = self.b.use_var(self.pending);
        let p = self.b.ins().iadd_imm_u(p, cost);
        self.b.def_var(self.pending, p);
        let k = self.b.use_var(self.blocks);
        let k = self.b.ins().iadd_imm_u(k, 1);
        self.b.def_var(self.blocks, k);
        let insts = &shader.insts[block.start as usize..block.end as usize];
        // A branch's condition goes to the terminator through `cond`'s words, written
        // by the lane loop without the mask (only active lanes' words are read), so the
        // register itself is stored only when a later block reads it
        // (`emit::dead_at_exit`).
        let cond = match &block.term {
            Terminator::Branch { cond, .. } => Some((*cond, self.cond)),
            _ => None,
        };
        let mut tested = None;
        // A branch block with no instructions still runs the lane loop, for its test.
        if !insts.is_empty() || cond.is_some() {
            // Two copies of the lane loop: one for a wave with every lane active (no mask
            // read, no step skipped, no store through the mask), chosen by the count of
            // active lanes, and one for the rest.
            let (full, part, join) = (
                self.b.create_block(),
                self.b.create_block(),
                self.b.create_block(),
            );
            let tests = cond.map(|_| {
                [
                    self.b.append_block_param(join, I32X4),
                    self.b.append_block_param(join, I32X4),
                ]
            });
            let n = self.b.use_var(self.count);
            let all = self
                .b
                .ins()
                .icmp_imm_u(IntCC::Equal, n, i64::from(key.width));
            self.b.ins().brif(all, full, &[], part, &[]);
            for (entry, whole) in [(full, true), (part, false)] {
                self.b.switch_to_block(entry);
                let t = emit::lane_loop(
                    self.b,
                    self.ptr,
                    call_conv,
                    shader,
                    insts,
                    key,
                    daz,
                    emit::Facts {
                        flushed: flushed.get(i).map_or(&[][..], |f| &f[..]),
                        local: local.get(i).map_or(&[][..], |l| &l[..]),
                        dead: dead.get(i).map_or(&[][..], |d| &d[..]),
                        lazy: lazy.get(i).map_or(&[][..], |z| &z[..]),
                        full: whole,
                    },
                    self.regs,
                    self.sel,
                    cond,
                )?;
                let args: Vec<BlockArg> = t
                    .into_iter()
                    .flat_map(|(a, b)| [a, b])
                    .map(BlockArg::from)
                    .collect();
                self.b.ins().jump(join, &args);
            }
            self.b.switch_to_block(join);
            tested = tests.map(|[a, b]| (a, b));
        }
        match &block.term {
            Terminator::Jump(t) => self.goto(t.0),
            Terminator::Branch { then_, else_, .. } => {
                // Some active lane goes to `then_` when an active lane's condition has a
                // bit set, to `else_` when one's is zero (x86 has no vector `ne`, so the
                // first test is on the bits themselves); the block's lane loop gathers
                // both (`emit::lane_loop`).
                let (at, ae) = tested.ok_or("a branch block's lane loop gives its test")?;
                let any_then = self.b.ins().vany_true(at);
                let any_else = self.b.ins().vany_true(ae);
                let (all_then, some_else, all_else, split) = (
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                    self.b.create_block(),
                );
                self.b.ins().brif(any_else, some_else, &[], all_then, &[]);
                self.b.switch_to_block(all_then);
                self.goto(then_.0);
                self.b.switch_to_block(some_else);
                self.b.ins().brif(any_then, split, &[], all_else, &[]);
                self.b.switch_to_block(all_else);
                self.goto(else_.0);
                self.b.switch_to_block(split);
                let addr = self.cond;
                let t = self.b.ins().iconst(I32, i64::from(then_.0));
                let f = self.b.ins().iconst(I32, i64::from(else_.0));
                self.b
                    .ins()
                    .jump(self.diverge, &[addr.into(), t.into(), f.into()]);
            }
            Terminator::Switch {
                sel,
                cases,
                default,
            } => {
                let base = i64::from(sel.0) * self.stride;
                let mut mn = self.splat(DONE);
                let mut mx = self.splat(0);
                let none = mn;
                let zero = mx;
                let d = self.splat(default.0);
                let cases: Vec<(Value, Value)> = cases
                    .iter()
                    .map(|&(v, t)| (self.splat(v), self.splat(t.0)))
                    .collect();
                for j in 0..self.chunks {
                    let o = i64::from(j) * 16;
                    let v = self.load(self.regs, base + o);
                    // Case values are distinct (`ir::validate`): at most one matches.
                    let mut t = d;
                    for &(cv, ct) in &cases {
                        let m = self.b.ins().icmp(IntCC::Equal, v, cv);
                        t = self.b.ins().bitselect(m, ct, t);
                    }
                    let s = self.load(self.sel, o);
                    let n = self.load(self.next, o);
                    let n = self.b.ins().bitselect(s, t, n);
                    self.store(n, self.next, o);
                    let a = self.b.ins().bitselect(s, t, none);
                    mn = self.b.ins().umin(mn, a);
                    let a = self.b.ins().bitselect(s, t, zero);
                    mx = self.b.ins().umax(mx, a);
                }
                let lo = self.hmin(mn);
                let hi = self.hmax(mx);
                let same = self.b.ins().icmp(IntCC::Equal, lo, hi);
                let uniform = self.b.create_block();
                self.b.ins().brif(same, uniform, &[], self.schedule, &[]);
                self.b.switch_to_block(uniform);
                // `control::goto` with a target known only at run time.
                let wm = self.b.use_var(self.wmin);
                let fast = self.b.ins().icmp(IntCC::UnsignedLessThan, lo, wm);
                let go = self.b.create_block();
                self.b
                    .ins()
                    .brif(fast, go, &[], self.goto_slow, &[lo.into()]);
                self.b.switch_to_block(go);
                self.b.def_var(self.cur, lo);
                self.b.ins().jump(self.dispatch, &[]);
            }
            Terminator::Return => {
                let done = self.splat(DONE);
                for j in 0..self.chunks {
                    let o = i64::from(j) * 16;
                    let s = self.load(self.sel, o);
                    let n = self.load(self.next, o);
                    let n = self.b.ins().bitselect(s, done, n);
                    self.store(n, self.next, o);
                    let l = self.load(self.live, o);
                    let l = self.b.ins().band_not(l, s);
                    self.store(l, self.live, o);
                }
                self.b.ins().jump(self.schedule, &[]);
            }
            Terminator::Unreachable => return Err("unreachable is not native".into()),
        }
        Ok(())
    }

    /// `control::goto` to the block `t`, from the current block.
    fn goto(&mut self, t: u32) {
        let wm = self.b.use_var(self.wmin);
        let fast = self
            .b
            .ins()
            .icmp_imm_u(IntCC::UnsignedGreaterThan, wm, i64::from(t));
        let tv = self.b.ins().iconst(I32, i64::from(t));
        let go = self.b.create_block();
        self.b
            .ins()
            .brif(fast, go, &[], self.goto_slow, &[tv.into()]);
        self.b.switch_to_block(go);
        self.b.def_var(self.cur, tv);
        match self.heads.get(t as usize).copied().flatten() {
            Some(h) => {
                self.b.ins().jump(h, &[]);
            }
            None => {
                self.b.ins().jump(self.stop, &[]);
            }
        }
    }

    /// `next := t` for the active lanes; schedule.
    fn goto_slow(&mut self) {
        self.b.switch_to_block(self.goto_slow);
        let t = self.b.block_params(self.goto_slow)[0];
        let ts = self.b.ins().splat(I32X4, t);
        for j in 0..self.chunks {
            let o = i64::from(j) * 16;
            let s = self.load(self.sel, o);
            let n = self.load(self.next, o);
            let n = self.b.ins().bitselect(s, ts, n);
            self.store(n, self.next, o);
        }
        self.b.ins().jump(self.schedule, &[]);
    }

    /// A divergent branch: each active lane's `next` by its condition; schedule.
    fn diverge(&mut self) {
        self.b.switch_to_block(self.diverge);
        let p = self.b.block_params(self.diverge).to_vec();
        let addr = p[0];
        let t = self.b.ins().splat(I32X4, p[1]);
        let f = self.b.ins().splat(I32X4, p[2]);
        let zero = self.splat(0);
        for j in 0..self.chunks {
            let o = i64::from(j) * 16;
            let c = self.load(addr, o);
            let s = self.load(self.sel, o);
            let n = self.load(self.next, o);
            let z = self.b.ins().icmp(IntCC::Equal, c, zero);
            let v = self.b.ins().bitselect(z, f, t);
            let n = self.b.ins().bitselect(s, v, n);
            self.store(n, self.next, o);
        }
        self.b.ins().jump(self.schedule, &[]);
    }

    /// `control::schedule`, after adding the pending cost to the idle lanes (the mask
    /// is about to change).
    fn schedule(&mut self) {
        self.b.switch_to_block(self.schedule);
        let flush = self.b.create_block();
        let pick = self.b.create_block();
        let ia = self.b.use_var(self.idle_any);
        self.b.ins().brif(ia, flush, &[], pick, &[]);

        self.b.switch_to_block(flush);
        let p = self.b.use_var(self.pending);
        let ps = self.b.ins().splat(I64X2, p);
        for j in 0..self.chunks {
            let o = i64::from(j) * 16;
            let l = self.load(self.live, o);
            let s = self.load(self.sel, o);
            let id = self.b.ins().band_not(l, s);
            // Lanes 0–1 and 2–3 of the chunk, their `0`/`!0` words widened to 64 bits.
            let lo = self.b.ins().swiden_low(id);
            let hi = self.b.ins().swiden_high(id);
            for (half, wide) in [(0, lo), (16, hi)] {
                let off = (i64::from(j) * 32 + half) as i32;
                let a = self.b.ins().load(I64X2, flags(), self.idle, off);
                let add = self.b.ins().band(wide, ps);
                let a = self.b.ins().iadd(a, add);
                self.b.ins().store(flags(), a, self.idle, off);
            }
        }
        self.b.ins().jump(pick, &[]);

        self.b.switch_to_block(pick);
        let zero64 = self.b.ins().iconst(I64, 0);
        self.b.def_var(self.pending, zero64);
        let none = self.splat(DONE);
        let mut best = none;
        for j in 0..self.chunks {
            let o = i64::from(j) * 16;
            let l = self.load(self.live, o);
            let n = self.load(self.next, o);
            let v = self.b.ins().bitselect(l, n, none);
            best = self.b.ins().umin(best, v);
        }
        let bs = self.hmin(best);
        let done = self.b.ins().icmp_imm_u(IntCC::Equal, bs, i64::from(DONE));
        let finish = self.b.create_block();
        let set = self.b.create_block();
        self.b.ins().brif(done, finish, &[], set, &[]);

        self.b.switch_to_block(finish);
        // `control::schedule` with no live lane: the mask empties, `cur` and
        // `waiting_min` stay.
        let zero = self.splat(0);
        for j in 0..self.chunks {
            self.store(zero, self.sel, i64::from(j) * 16);
        }
        let c = self.b.ins().iconst(I32, i64::from(FINISHED));
        self.b.ins().jump(self.out, &[c.into()]);

        self.b.switch_to_block(set);
        let bv = self.b.ins().splat(I32X4, bs);
        let zero = self.splat(0);
        let none = self.splat(DONE);
        let mut wait = none;
        let mut rest_any = zero;
        let mut n_active = self.b.ins().iconst(I32, 0);
        for j in 0..self.chunks {
            let o = i64::from(j) * 16;
            let l = self.load(self.live, o);
            let n = self.load(self.next, o);
            let here = self.b.ins().icmp(IntCC::Equal, n, bv);
            let m = self.b.ins().band(l, here);
            self.store(m, self.sel, o);
            let rest = self.b.ins().band_not(l, m);
            rest_any = self.b.ins().bor(rest_any, rest);
            let v = self.b.ins().bitselect(rest, n, none);
            wait = self.b.ins().umin(wait, v);
            let bits = self.b.ins().vhigh_bits(I32, m);
            let k = self.b.ins().popcnt(bits);
            n_active = self.b.ins().iadd(n_active, k);
        }
        let wm = self.hmin(wait);
        let ia = self.b.ins().vany_true(rest_any);
        let ia = self.b.ins().uextend(I32, ia);
        self.b.def_var(self.cur, bs);
        self.b.def_var(self.wmin, wm);
        self.b.def_var(self.count, n_active);
        self.b.def_var(self.idle_any, ia);
        self.b.ins().jump(self.dispatch, &[]);
    }
}
