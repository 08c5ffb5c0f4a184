//! Cranelift IR for one segment: its instructions on four lanes at a time.
//!
//! The function is `fn(regs, sel)`: `regs` points at the wave's registers (register `r`,
//! lane `l` at word `r × W + l`), `sel` at the execution mask's `0`/`!0` words. A loop
//! walks the lanes in steps of [`STEP`] vectors; in each vector every register the
//! segment reads is loaded once (constant registers are immediates), every result stays
//! in a machine register, and the registers written are stored at the end through `sel`.
//!
//! Each instruction is emitted one of two ways, chosen for being exactly the
//! interpreter's rule:
//!
//! - **inline**, where Cranelift's operation is the same IEEE or two's-complement
//!   operation the Rust rule compiles to on x86-64: integer add, subtract, multiply,
//!   compares, min/max, bit logic, shifts (count masked to 5 bits as `arith::shl`), float
//!   add, subtract, multiply, divide, square root and rounding (x86 gives the same NaN for
//!   the vector and the scalar form: the first NaN operand, quieted, or the default NaN
//!   `0xffc00000`), float compares (every `FCond` has its Cranelift condition), the
//!   saturating float→int conversions (Rust's `as`: NaN → 0, clamped) and int→float.
//!   Denormal flushing (`float::flush`) is the same bit test done with integer masks —
//!   or, in code that runs with MXCSR's DAZ bit ([`daz`]), left to the float
//!   instructions for operands and done by a multiplication by one for results whose
//!   bits are used.
//!   `fmin`/`fmax` are the interpreter's select chain (NaN avoided, `−0 < +0`), not
//!   Cranelift's `fmin`, which propagates NaN. A fused `fma` is the hardware's, with the
//!   NaN cases fixed up to what `float::fma_f32` gives (first NaN of `a`, `b`; then the
//!   default NaN for `∞ × 0`; then `c`'s NaN).
//! - **called**, lane by lane, through [`super::shim`]: transcendental functions,
//!   `frem`, integer division, the bit-field and bit-scan rules, fp16 conversions.

use cranelift_codegen::ir::condcodes::{FloatCC, IntCC};
use cranelift_codegen::ir::types::{F32X4, I32, I32X4};
use cranelift_codegen::ir::{
    AbiParam, BlockArg, InstBuilder, MemFlagsData, SigRef, Signature, Type, Value,
};
use cranelift_codegen::isa::CallConv;
use cranelift_frontend::FunctionBuilder;

use crate::ir::{FClass, FCond, FUnOp, ICond, Inst, Reg, Shader};

use super::Key;
use super::shim;

/// Vectors (of four lanes) handled per loop iteration: two independent chains keep the
/// floating-point units busy while one waits on a result.
pub const STEP: u32 = 2;

/// The values of one vector of lanes while a segment runs.
struct Chunk {
    /// Byte offset of this vector within a register (added to the loop's base).
    offset: i32,
    /// Registers read or written so far: register → value.
    env: Vec<(u32, Value)>,
    /// Registers written, in the order first written.
    dirty: Vec<u32>,
    /// Values known to have no denormal lanes (results of flushing operations), whose
    /// flush would change nothing.
    flushed: std::collections::HashSet<Value>,
    /// With DAZ: float results not flushed yet (hardware results, so never a signalling
    /// NaN); see [`Em::settle`].
    lazy: std::collections::HashSet<Value>,
    /// With DAZ: the flushed form of each lazy value made so far.
    settled: std::collections::HashMap<Value, Value>,
    /// This vector's mask words, once loaded.
    sel: Option<Value>,
    /// Registers loaded from the wave's memory: register → the bits loaded, which are
    /// still what memory holds until the step's stores (the old value a masked store
    /// keeps for inactive lanes, so it need not be loaded twice).
    loaded: Vec<(u32, Value)>,
}

impl Chunk {
    fn find(&self, r: u32) -> Option<Value> {
        self.env
            .iter()
            .rev()
            .find(|(x, _)| *x == r)
            .map(|&(_, v)| v)
    }
}

/// Emission state for one segment.
struct Em<'a, 'b> {
    b: &'a mut FunctionBuilder<'b>,
    consts: &'a [u32],
    key: Key,
    /// The code runs with denormal operands read as zero ([`daz`]).
    daz: bool,
    ptr: Type,
    call_conv: CallConv,
    /// Bytes per register (`W × 4`).
    stride: i32,
    /// The loop's base pointers into the registers and the mask.
    regs: Value,
    sel: Value,
    /// Signatures of `extern "C" fn(u32 × n) -> u32`, by `n − 1`.
    sigs: [Option<SigRef>; 4],
    /// [`flushed_at_blocks`] at the start of the instructions emitted.
    flushed: &'a [bool],
    /// [`Facts::local`].
    local: &'a [bool],
    /// [`Facts::dead`].
    dead: &'a [bool],
    /// [`Facts::lazy`].
    lazy: &'a [bool],
    /// [`Facts::full`].
    full: bool,
}

/// Which registers are free of denormals (so loading one needs no flush when the shader
/// flushes), per block: element `b` holds, for each register, whether it is at the entry
/// of block `b` on every path there.
///
/// A must-analysis over the control-flow graph: at the entry block every register holds
/// 0 (`Wave::reset`) or its constant; an `fadd`, `fsub`, `fmul` or `fdiv` — whose results
/// both engines flush — writes a free register, a `mov` passes on its source's property,
/// and every other write (or a 64-bit one) may leave a denormal. Each lane follows a path
/// of the graph, so the property holds for every lane that runs the block; lanes that do
/// not run it compute on whatever they hold, but their results are never stored.
///
/// `lazy` ([`lazy_at_exit`]) names, per block, the registers a region may store at the
/// block's exit without flushing: they are not free of denormals after it.
pub fn flushed_at_blocks(shader: &Shader, lazy: &[Vec<bool>]) -> Vec<Vec<bool>> {
    let n = shader.num_regs as usize;
    let start: Vec<bool> = (0..n)
        .map(|r| {
            shader
                .consts
                .get(r)
                .is_none_or(|&k| crate::exec::float::flush(k) == k)
        })
        .collect();
    let nb = shader.blocks.len();
    // `None`: not reached yet (the analysis's top).
    let mut entry: Vec<Option<Vec<bool>>> = vec![None; nb];
    if nb == 0 {
        return Vec::new();
    }
    entry[0] = Some(start.clone());
    let mut work: Vec<usize> = vec![0];
    while let Some(b) = work.pop() {
        let Some(mut state) = entry[b].clone() else {
            continue;
        };
        let block = &shader.blocks[b];
        for inst in &shader.insts[block.start as usize..block.end as usize] {
            flushed_after(&mut state, shader.consts.len(), inst);
        }
        if let Some(l) = lazy.get(b) {
            for (s, &l) in state.iter_mut().zip(l) {
                *s &= !l;
            }
        }
        for t in block.term.successors() {
            let t = t.0 as usize;
            let Some(slot) = entry.get_mut(t) else {
                continue;
            };
            let changed = match slot {
                None => {
                    *slot = Some(state.clone());
                    true
                }
                Some(old) => {
                    let mut changed = false;
                    for (o, &s) in old.iter_mut().zip(&state) {
                        if *o && !s {
                            *o = false;
                            changed = true;
                        }
                    }
                    changed
                }
            };
            if changed && !work.contains(&t) {
                work.push(t);
            }
        }
    }
    // Blocks no path reaches never run: any answer is sound.
    entry
        .into_iter()
        .map(|e| e.unwrap_or_else(|| start.clone()))
        .collect()
}

/// [`flushed_at_blocks`]'s state after `inst`.
pub fn flushed_after(ok: &mut [bool], nconsts: usize, inst: &Inst) {
    if let Inst::Mov { dst, src } = inst {
        let src_ok = ok.get(src.index()).copied().unwrap_or(false);
        if dst.index() >= nconsts {
            if let Some(d) = ok.get_mut(dst.index()) {
                *d = src_ok;
            }
        }
        return;
    }
    let flushing = matches!(
        inst,
        Inst::FAdd { .. } | Inst::FSub { .. } | Inst::FMul { .. } | Inst::FDiv { .. }
    );
    inst.visit_regs(&mut |role, r| {
        let mut put = |i: usize, v: bool| {
            if let Some(x) = ok.get_mut(i) {
                *x = v;
            }
        };
        match role {
            crate::ir::Role::Write => put(r.index(), flushing),
            crate::ir::Role::Write64 => {
                put(r.index(), false);
                put(r.index() + 1, false);
            }
            _ => {}
        }
    });
}

/// [`flushed_at_blocks`]'s state before instruction `at` of block `block`.
pub fn flushed_before(shader: &Shader, entry: &[Vec<bool>], block: usize, at: usize) -> Vec<bool> {
    let mut state = entry
        .get(block)
        .cloned()
        .unwrap_or_else(|| vec![false; shader.num_regs as usize]);
    if let Some(b) = shader.blocks.get(block) {
        for inst in shader.insts.get(b.start as usize..at).unwrap_or(&[]) {
            flushed_after(&mut state, shader.consts.len(), inst);
        }
    }
    state
}

/// What the emitter knows of the registers where the code it emits starts.
#[derive(Debug, Clone, Copy)]
pub struct Facts<'a> {
    /// Per register: free of denormals there ([`flushed_before`]).
    pub flushed: &'a [bool],
    /// Per register: no lane that is not active here can read it before writing it
    /// ([`unmasked`] of the block), so a store may skip the execution mask.
    pub local: &'a [bool],
    /// Per register: dead where the emitted code ends ([`dead_at_exit`]), so its value
    /// need not be stored at all (empty: every register is stored).
    pub dead: &'a [bool],
    /// Per register: may be stored unflushed where the emitted code ends
    /// ([`lazy_at_exit`]; empty: every float result stored is flushed).
    pub lazy: &'a [bool],
    /// Every lane of the wave is active where the code runs (a region checks the count
    /// of active lanes first): the mask's words are all ones, so they are not read, no
    /// step is skipped and no store needs the mask.
    pub full: bool,
}

/// Per block `b`, the registers a store in `b` may write to every lane, the execution
/// mask skipped: no lane that is not active in `b` can read the register's value before
/// writing it again.
///
/// A lane not active while the wave runs `b` has finished, or waits at another block
/// (`Wave::next`). By the scheduling rule (`exec::control`) the blocks lanes may wait at
/// while the wave runs `b` are always numbered above `b`, and [`waiting_blocks`] works out
/// which of them they can be, by following the rule over the control-flow graph. A
/// register live at the entry of none of those blocks is dead for every waiting lane.
/// Finished lanes read nothing — unless another lane reads their registers: a shader
/// with an instruction that reads other lanes (derivatives, implicit-LOD sampling, wave
/// and quad operations: `exec::crosses_lanes`) gets no unmasked store at all, so every
/// lane's registers hold exactly what the interpreter leaves there.
///
/// When the waiting blocks are not worked out (too many states), a register live at the
/// entry of no block at all still qualifies.
pub fn unmasked(shader: &Shader) -> Vec<Vec<bool>> {
    let n = shader.num_regs as usize;
    let nb = shader.blocks.len();
    if crate::exec::shader_crosses_lanes(shader) {
        return vec![vec![false; n]; nb];
    }
    let live_in = live_in(shader);
    let consts = shader.consts.len();
    let waiting = waiting_blocks(shader);
    (0..nb)
        .map(|b| {
            (0..n)
                .map(|r| {
                    r >= consts
                        && match &waiting {
                            Some(w) => (0..nb).all(|x| !w[b][x] || !live_in[x][r]),
                            None => live_in.iter().all(|l| !l[r]),
                        }
                })
                .collect()
        })
        .collect()
}

/// The most wave states [`waiting_blocks`] follows before giving up.
const MAX_WAVE_STATES: usize = 20_000;

/// Per block `b`, the blocks where some live lane may wait while the wave runs `b`;
/// `None` when following the states would take more than [`MAX_WAVE_STATES`].
///
/// A wave's state, as far as where lanes are goes, is the block it runs and the set of
/// blocks other lanes wait at; it starts at block 0 with none waiting. The terminators
/// move it as `exec::control` does: a jump, or a branch or switch all of whose active
/// lanes agree, goes to its target `t` keeping the mask when `t` is below every waiting
/// block, and otherwise adds `t` to the waiting blocks and schedules; a divergent branch
/// adds both targets and schedules; a return (or a `discard` that leaves no lane active)
/// schedules; scheduling runs the lowest waiting block. A divergent switch is taken as
/// any of its targets and waiting blocks running with every one above it waiting, which
/// covers every subset of targets the lanes may split into. Each lane's path through the
/// shader is a path of the graph, so every state a wave reaches is among these.
pub fn waiting_blocks(shader: &Shader) -> Option<Vec<Vec<bool>>> {
    use crate::ir::Terminator;
    use std::collections::{BTreeSet, HashSet};
    type State = (u32, BTreeSet<u32>);
    let nb = shader.blocks.len();
    let mut out = vec![vec![false; nb]; nb];
    let schedule = |set: BTreeSet<u32>| -> Option<State> {
        let first = *set.iter().next()?;
        let mut rest = set;
        rest.remove(&first);
        Some((first, rest))
    };
    let goto = |t: u32, s: &BTreeSet<u32>| -> Option<State> {
        match s.iter().next() {
            Some(&m) if m <= t => {
                let mut x = s.clone();
                x.insert(t);
                schedule(x)
            }
            _ => Some((t, s.clone())),
        }
    };
    let mut seen: HashSet<State> = HashSet::new();
    let mut stack: Vec<State> = vec![(0, BTreeSet::new())];
    while let Some(state) = stack.pop() {
        if seen.contains(&state) {
            continue;
        }
        if seen.len() >= MAX_WAVE_STATES {
            return None;
        }
        seen.insert(state.clone());
        let (b, s) = state;
        let Some(block) = shader.blocks.get(b as usize) else {
            continue;
        };
        for &w in &s {
            if let Some(x) = out[b as usize].get_mut(w as usize) {
                *x = true;
            }
        }
        let mut next: Vec<Option<State>> = Vec::new();
        let kills = shader
            .insts
            .get(block.start as usize..block.end as usize)
            .is_some_and(|i| {
                i.iter()
                    .any(|i| matches!(i, crate::ir::Inst::Discard { .. }))
            });
        if kills {
            next.push(schedule(s.clone()));
        }
        match &block.term {
            Terminator::Jump(t) => next.push(goto(t.0, &s)),
            Terminator::Branch { then_, else_, .. } => {
                next.push(goto(then_.0, &s));
                next.push(goto(else_.0, &s));
                let mut x = s.clone();
                x.insert(then_.0);
                x.insert(else_.0);
                next.push(schedule(x));
            }
            Terminator::Switch { cases, default, .. } => {
                let mut all = s.clone();
                for t in cases.iter().map(|c| c.1.0).chain([default.0]) {
                    next.push(goto(t, &s));
                    all.insert(t);
                }
                for &c in &all {
                    next.push(Some((c, all.range(c + 1..).copied().collect())));
                }
            }
            Terminator::Return => next.push(schedule(s.clone())),
            Terminator::Unreachable => {}
        }
        stack.extend(next.into_iter().flatten());
    }
    Some(out)
}

/// Per block, the registers whose value at the block's end no lane reads before writing
/// it again (not live into any successor) and that the terminator does not read (a
/// branch's condition does not count: the region hands it to the terminator apart, see
/// `lane_loop`): a region block's code need not store them. Skipping a store leaves
/// every lane's old value, which only a read could tell apart.
pub fn dead_at_exit(shader: &Shader) -> Vec<Vec<bool>> {
    unread_at_exit(shader, &live_in(shader))
        .into_iter()
        .zip(&shader.blocks)
        .map(|(mut dead, block)| {
            if let crate::ir::Terminator::Switch { sel, .. } = &block.term
                && let Some(d) = dead.get_mut(sel.index())
            {
                *d = false;
            }
            dead
        })
        .collect()
}

/// Per block, the registers that `live` (a [`live_in_where`] table) marks live at the
/// entry of none of the block's successors.
fn unread_at_exit(shader: &Shader, live: &[Vec<bool>]) -> Vec<Vec<bool>> {
    let n = shader.num_regs as usize;
    shader
        .blocks
        .iter()
        .map(|block| {
            let mut unread = vec![true; n];
            for t in block.term.successors() {
                if let Some(l) = live.get(t.0 as usize) {
                    for (u, &x) in unread.iter_mut().zip(l) {
                        *u &= !x;
                    }
                }
            }
            unread
        })
        .collect()
}

/// Per block, the registers whose value at the block's exit a region may store without
/// flushing it (with DAZ, a float result is flushed only where its bits are used,
/// [`Em::settle`]): on every path from the exit, the value is read only as an operand
/// of `fadd`, `fsub`, `fmul`, `fdiv`, `fmad` or `fcmp` before the register is written
/// again. Both engines read such an operand through `float::input` (the interpreter) or
/// the processor's DAZ (native code), so a denormal there reads as the zero the flush
/// would have left. Any other read (a copy, an integer or bit operation, a store, an
/// output, a terminator) sees the bits, and keeps the flush. The block's own terminator
/// counts as a later read. A shader that reads across lanes gets none: another lane may
/// read the bits.
pub fn lazy_at_exit(shader: &Shader) -> Vec<Vec<bool>> {
    let n = shader.num_regs as usize;
    let nb = shader.blocks.len();
    if crate::exec::shader_crosses_lanes(shader) {
        return vec![vec![false; n]; nb];
    }
    let reads_bits = live_in_where(shader, |inst| {
        !matches!(
            inst,
            Inst::FAdd { .. }
                | Inst::FSub { .. }
                | Inst::FMul { .. }
                | Inst::FDiv { .. }
                | Inst::FMad { .. }
                | Inst::FCmp { .. }
        )
    });
    unread_at_exit(shader, &reads_bits)
        .into_iter()
        .zip(&shader.blocks)
        .map(|(mut lazy, block)| {
            match &block.term {
                crate::ir::Terminator::Branch { cond: r, .. }
                | crate::ir::Terminator::Switch { sel: r, .. } => {
                    if let Some(z) = lazy.get_mut(r.index()) {
                        *z = false;
                    }
                }
                _ => {}
            }
            lazy
        })
        .collect()
}

/// Backward liveness: per block, the registers read before written on some path from
/// its entry (terminators read their condition or selector).
fn live_in(shader: &Shader) -> Vec<Vec<bool>> {
    live_in_where(shader, |_| true)
}

/// [`live_in`] counting only the reads of instructions `counts` accepts (terminators'
/// reads always count); every write ends a register's life.
fn live_in_where(shader: &Shader, counts: impl Fn(&Inst) -> bool) -> Vec<Vec<bool>> {
    let n = shader.num_regs as usize;
    let nb = shader.blocks.len();
    let mut uses = vec![vec![false; n]; nb];
    let mut defs = vec![vec![false; n]; nb];
    for (b, block) in shader.blocks.iter().enumerate() {
        let (u, d) = (&mut uses[b], &mut defs[b]);
        let read = |u: &mut Vec<bool>, d: &Vec<bool>, i: usize| {
            if i < n && !d[i] {
                u[i] = true;
            }
        };
        for inst in &shader.insts[block.start as usize..block.end as usize] {
            let mut reads = Vec::new();
            let mut writes = Vec::new();
            inst.visit_regs(&mut |role, r| match role {
                crate::ir::Role::Read => reads.push(r.index()),
                crate::ir::Role::Read64 => reads.extend([r.index(), r.index() + 1]),
                crate::ir::Role::Write => writes.push(r.index()),
                crate::ir::Role::Write64 => writes.extend([r.index(), r.index() + 1]),
                crate::ir::Role::None => {}
            });
            if counts(inst) {
                for i in reads {
                    read(u, d, i);
                }
            }
            for i in writes {
                if i < n {
                    d[i] = true;
                }
            }
        }
        match &block.term {
            crate::ir::Terminator::Branch { cond, .. } => read(u, d, cond.index()),
            crate::ir::Terminator::Switch { sel, .. } => read(u, d, sel.index()),
            _ => {}
        }
    }
    let mut live_in = uses.clone();
    loop {
        let mut changed = false;
        for b in (0..nb).rev() {
            for t in shader.blocks[b].term.successors() {
                let t = t.0 as usize;
                if t >= nb {
                    continue;
                }
                for r in 0..n {
                    if live_in[t][r] && !defs[b][r] && !live_in[b][r] {
                        live_in[b][r] = true;
                        changed = true;
                    }
                }
            }
        }
        if !changed {
            break;
        }
    }
    live_in
}

/// Emits the body of the segment `insts` of `shader` into `b`, whose signature is
/// `(ptr, ptr)`; `facts` hold where its first instruction starts.
#[allow(clippy::too_many_arguments)]
pub fn segment(
    b: &mut FunctionBuilder<'_>,
    ptr: Type,
    call_conv: CallConv,
    shader: &Shader,
    insts: &[Inst],
    key: Key,
    daz: bool,
    facts: Facts<'_>,
) -> Result<(), String> {
    let entry = b.create_block();
    b.append_block_params_for_function_params(entry);
    b.switch_to_block(entry);
    let params = b.block_params(entry).to_vec();
    lane_loop(
        b, ptr, call_conv, shader, insts, key, daz, facts, params[0], params[1], None,
    )?;
    b.ins().return_(&[]);
    b.seal_all_blocks();
    Ok(())
}

/// Emits, from the current block, the lane loop running `insts` over the whole wave
/// (`regs0`: the registers, `sel0`: the mask's words), and leaves `b` in a new block
/// reached when the loop is done. With `cond` (the register a branch after the
/// instructions tests, and `W` words to leave its values in), it also returns, in that
/// block, two vectors whose lanes are nonzero when some active lane has the condition's
/// bits nonzero, and when some active lane has them zero.
///
/// The wave is walked [`STEP`] vectors at a time; a whole wave of at most [`UNROLL`]
/// steps is walked in straight-line code (no loop counter or back edge, and the steps'
/// independent work can overlap), a wider one, or a partial one of several steps, in a
/// loop. (Unrolling the partial copies too made the Mandelbrot's code half again as
/// long to compile, 6.6 against 4.6–5.1 ms, for no measurable gain in its run.) A step whose lanes are all
/// inactive is skipped: its registers keep what they hold (a masked store would keep it,
/// and a block-local register's value there is dead), and it adds nothing to a branch's
/// test. A wave of one step always has an active lane when it runs.
#[allow(clippy::too_many_arguments)]
pub fn lane_loop(
    b: &mut FunctionBuilder<'_>,
    ptr: Type,
    call_conv: CallConv,
    shader: &Shader,
    insts: &[Inst],
    key: Key,
    daz: bool,
    facts: Facts<'_>,
    regs0: Value,
    sel0: Value,
    cond: Option<(Reg, Value)>,
) -> Result<Option<(Value, Value)>, String> {
    if let Some(i) = insts.iter().find(|i| !super::select::compilable(i)) {
        return Err(format!("`{i}` is not compilable"));
    }
    let vectors = (key.width / 4).max(1);
    let step = STEP.min(vectors);
    let steps = vectors / step;
    let zero_acc = |b: &mut FunctionBuilder<'_>| {
        let z = b.ins().iconst(I32, 0);
        b.ins().splat(I32X4, z)
    };
    // Whether the condition is a mask (every word `0` or `!0`). A whole wave testing one
    // gathers the lanes with a zero condition as the and of the conditions (all ones
    // when there are none), complemented at the end: one operation per vector rather
    // than a complement and an or; a partial wave's test is the mask and-not it.
    let mask = cond.is_some_and(|(r, _)| writes_mask(insts, r, 0));
    let and_test = facts.full && mask;
    let mut acc = cond.map(|_| {
        let z = zero_acc(b);
        if and_test {
            [z, b.ins().bnot(z)]
        } else {
            [z, z]
        }
    });
    let finish = |b: &mut FunctionBuilder<'_>, (t, e): (Value, Value)| {
        if and_test {
            (t, b.ins().bnot(e))
        } else {
            (t, e)
        }
    };
    if steps == 1 || (facts.full && steps <= UNROLL) {
        for g in 0..steps {
            let em = Em::new(b, shader, key, daz, ptr, call_conv, &facts, regs0, sel0);
            acc = lane_step(
                em,
                insts,
                cond,
                acc,
                (g * step * 16) as i32,
                step,
                steps > 1,
                (and_test, mask),
            );
        }
        return Ok(acc.map(|[t, e]| finish(b, (t, e))));
    }
    let body = b.create_block();
    let k = b.append_block_param(body, ptr);
    let exit = b.create_block();
    let zero = b.ins().iconst(ptr, 0);
    let mut start: Vec<BlockArg> = vec![zero.into()];
    // With a branch condition: the test's two accumulators, carried round the loop.
    let carried = acc.map(|a| {
        start.extend(a.map(BlockArg::from));
        [0, 1].map(|_| {
            b.append_block_param(exit, I32X4);
            b.append_block_param(body, I32X4)
        })
    });
    b.ins().jump(body, &start);
    b.switch_to_block(body);
    let regs = b.ins().iadd(regs0, k);
    let sel = b.ins().iadd(sel0, k);
    let cond_here = cond.map(|(r, words)| (r, b.ins().iadd(words, k)));
    let em = Em::new(b, shader, key, daz, ptr, call_conv, &facts, regs, sel);
    let tests = lane_step(
        em,
        insts,
        cond_here,
        carried,
        0,
        step,
        true,
        (and_test, mask),
    );
    let next = b.ins().iadd_imm_u(k, i64::from(step * 16));
    let more = b
        .ins()
        .icmp_imm_u(IntCC::UnsignedLessThan, next, i64::from(key.width * 4));
    let mut again: Vec<BlockArg> = vec![next.into()];
    let mut done: Vec<BlockArg> = Vec::new();
    if let Some(t) = tests {
        again.extend(t.map(BlockArg::from));
        done.extend(t.map(BlockArg::from));
    }
    b.ins().brif(more, body, &again, exit, &done);
    b.switch_to_block(exit);
    Ok(cond.map(|_| {
        let p = b.block_params(exit);
        let p = (p[0], p[1]);
        finish(b, p)
    }))
}

/// Whether the last of `insts` to write `r` leaves `0` or `!0` in every lane: a
/// compare, or an and or or of such values (looked through `depth` < 4 levels).
fn writes_mask(insts: &[Inst], r: Reg, depth: u32) -> bool {
    for (k, inst) in insts.iter().enumerate().rev() {
        let mut writes = false;
        inst.visit_regs(&mut |role, x| {
            writes |= x == r && matches!(role, crate::ir::Role::Write | crate::ir::Role::Write64);
        });
        if writes {
            let before = &insts[..k];
            return match *inst {
                Inst::FCmp { .. } | Inst::ICmp { .. } => true,
                Inst::And { a, b, .. } | Inst::Or { a, b, .. } if depth < 4 => {
                    writes_mask(before, a, depth + 1) && writes_mask(before, b, depth + 1)
                }
                _ => false,
            };
        }
    }
    false
}

/// Whole waves of at most this many steps of [`STEP`] vectors are walked without a loop.
pub const UNROLL: u32 = 4;

/// One step of a lane loop: `step` vectors from byte `base` of each register and of the
/// mask (skipped when all their lanes are inactive and `skippable`), the branch test's
/// accumulators `acc` carried through; `(and_test, mask)` as [`lane_loop`] decided them.
/// Leaves the builder in the block after the step.
#[allow(clippy::too_many_arguments)]
fn lane_step(
    mut em: Em<'_, '_>,
    insts: &[Inst],
    cond: Option<(Reg, Value)>,
    acc: Option<[Value; 2]>,
    base: i32,
    step: u32,
    skippable: bool,
    (and_test, mask): (bool, bool),
) -> Option<[Value; 2]> {
    let mut chunks: Vec<Chunk> = (0..step)
        .map(|u| Chunk {
            offset: base + (u * 16) as i32,
            env: Vec::new(),
            dirty: Vec::new(),
            flushed: Default::default(),
            lazy: Default::default(),
            settled: Default::default(),
            sel: None,
            loaded: Vec::new(),
        })
        .collect();
    let after = em.b.create_block();
    let after_acc = acc.map(|_| [0, 1].map(|_| em.b.append_block_param(after, I32X4)));
    if skippable && !em.full {
        let mut any = None;
        for c in &mut chunks {
            let s = em.sel_of(c);
            any = Some(match any {
                None => s,
                Some(a) => em.b.ins().bor(a, s),
            });
        }
        if let Some(any) = any {
            let any = em.b.ins().vany_true(any);
            let work = em.b.create_block();
            let skip: Vec<BlockArg> = acc.into_iter().flatten().map(BlockArg::from).collect();
            em.b.ins().brif(any, work, &[], after, &skip);
            em.b.switch_to_block(work);
        }
    }
    // Each vector's instructions, test and stores run one vector after the other: the
    // vectors are independent, so the processor overlaps them anyway, and keeping one
    // vector's values live at a time halves the register pressure (interleaving them
    // made the register allocator spill in the larger loop bodies).
    let mut tests = acc;
    for c in &mut chunks {
        for inst in insts {
            em.inst(c, inst);
        }
        // A branch's test, from the condition's values in machine registers: lanes that
        // are active with the condition's bits nonzero, and active with them zero.
        if let (Some((cond, words)), Some([at, ae])) = (cond, tests) {
            let v = em.get(c, cond);
            em.b.ins().store(flags(), v, words, c.offset);
            tests = Some(if and_test {
                [em.b.ins().bor(at, v), em.b.ins().band(ae, v)]
            } else {
                em.gather_test(c, v, mask, at, ae)
            });
        }
        em.store_back(c);
    }
    let out: Vec<BlockArg> = tests.into_iter().flatten().map(BlockArg::from).collect();
    em.b.ins().jump(after, &out);
    em.b.switch_to_block(after);
    after_acc
}

/// Whether the code of `insts` under `key` runs with denormal operands read as zero
/// (MXCSR's DAZ bit, set by `call::enter` around the call): for a flushing shader on a
/// host that has the bit, unless an instruction calls one of the interpreter's float
/// rules (which must run in the default environment).
///
/// With DAZ every SSE or AVX float instruction flushes its operands itself, exactly as
/// `float::input` does (a denormal reads as a zero of its sign), so float operands need
/// no flush; and a float result needs one only where its bits are used — stored to its
/// register, copied into an integer operation, compared as bits — where multiplying it by
/// one flushes it in one instruction. Results are never flushed by the hardware (FTZ stays
/// clear, see `call`), so they are rounded exactly as the interpreter rounds them.
pub fn daz(key: Key, insts: &[Inst]) -> bool {
    key.ftz && super::call::daz_supported() && !insts.iter().any(calls_float_rule)
}

/// Whether `inst` is emitted as a call of one of the interpreter's float rules
/// ([`Native::FloatRule`](super::select::Native::FloatRule)).
fn calls_float_rule(inst: &Inst) -> bool {
    super::select::native(inst) == super::select::Native::FloatRule
}

/// The memory flags of every access to the wave's arrays.
pub fn flags() -> MemFlagsData {
    // The registers are `[u32; W]` arrays: 4-byte aligned only, so no `aligned` flag
    // (which would allow aligned-only vector moves). Every address is inside the
    // register array (`call::enter` checks its length), so no access traps.
    MemFlagsData::new().with_notrap()
}

impl<'a, 'b> Em<'a, 'b> {
    #[allow(clippy::too_many_arguments)]
    fn new(
        b: &'a mut FunctionBuilder<'b>,
        shader: &'a Shader,
        key: Key,
        daz: bool,
        ptr: Type,
        call_conv: CallConv,
        facts: &Facts<'a>,
        regs: Value,
        sel: Value,
    ) -> Self {
        Em {
            b,
            consts: &shader.consts,
            key,
            daz,
            ptr,
            call_conv,
            stride: (key.width * 4) as i32,
            regs,
            sel,
            sigs: [None; 4],
            flushed: facts.flushed,
            local: facts.local,
            dead: facts.dead,
            lazy: facts.lazy,
            full: facts.full,
        }
    }
}

impl Em<'_, '_> {
    fn splat(&mut self, bits: u32) -> Value {
        let s = self.b.ins().iconst(I32, i64::from(bits as i32));
        self.b.ins().splat(I32X4, s)
    }

    /// The execution mask's words for the vector `c`.
    fn sel_of(&mut self, c: &mut Chunk) -> Value {
        if let Some(s) = c.sel {
            return s;
        }
        let s = if self.full {
            self.splat(u32::MAX)
        } else {
            self.b.ins().load(I32X4, flags(), self.sel, c.offset)
        };
        c.sel = Some(s);
        s
    }

    /// Register `r`'s bits: a lazy float result is flushed first.
    fn get(&mut self, c: &mut Chunk, r: Reg) -> Value {
        let v = self.get_raw(c, r);
        self.settle(c, v)
    }

    /// With DAZ, `v` flushed when it is a lazy float result: multiplied by one, which
    /// reads a denormal as a zero of its sign and is exact for every other value but a
    /// signalling NaN (made quiet), which a hardware result never is. Otherwise `v`.
    fn settle(&mut self, c: &mut Chunk, v: Value) -> Value {
        if !c.lazy.contains(&v) {
            return v;
        }
        if let Some(&f) = c.settled.get(&v) {
            return f;
        }
        let one = self.splat(1.0f32.to_bits());
        let (x, one) = (self.f(v), self.f(one));
        let r = self.b.ins().fmul(x, one);
        let r = self.i(r);
        c.flushed.insert(r);
        c.settled.insert(v, r);
        r
    }

    /// Register `r` as last computed: with DAZ, possibly a lazy float result.
    fn get_raw(&mut self, c: &mut Chunk, r: Reg) -> Value {
        let i = r.0;
        if let Some(v) = c.find(i) {
            return v;
        }
        let v = if let Some(&k) = self.consts.get(i as usize) {
            // Constant registers hold the same value in every lane and are never written
            // (`ir::validate`).
            let v = self.splat(k);
            if crate::exec::float::flush(k) == k {
                c.flushed.insert(v);
            }
            v
        } else {
            let off = i as i32 * self.stride + c.offset;
            let v = self.b.ins().load(I32X4, flags(), self.regs, off);
            c.loaded.push((i, v));
            if self.flushed.get(i as usize).copied().unwrap_or(false) {
                c.flushed.insert(v);
            }
            v
        };
        c.env.push((i, v));
        v
    }

    fn set(&mut self, c: &mut Chunk, r: Reg, v: Value) {
        let i = r.0;
        if !c.dirty.contains(&i) {
            c.dirty.push(i);
        }
        c.env.push((i, v));
    }

    /// Adds vector `c`'s condition values `v` to a branch's test: `at` gains the active
    /// lanes whose bits are nonzero, `ae` those whose bits are zero. A whole wave needs
    /// no mask; when `v` is a mask (every word `0` or `!0`, [`writes_mask`]) it is zero
    /// where its complement is nonzero, one and-not rather than a compare and an and.
    fn gather_test(
        &mut self,
        c: &mut Chunk,
        v: Value,
        mask: bool,
        at: Value,
        ae: Value,
    ) -> [Value; 2] {
        if self.full {
            let z = if mask {
                self.b.ins().bnot(v)
            } else {
                let zero = self.splat(0);
                self.b.ins().icmp(IntCC::Equal, v, zero)
            };
            return [self.b.ins().bor(at, v), self.b.ins().bor(ae, z)];
        }
        let s = self.sel_of(c);
        let t = self.b.ins().band(v, s);
        let e = if mask {
            self.b.ins().band_not(s, v)
        } else {
            let zero = self.splat(0);
            let z = self.b.ins().icmp(IntCC::Equal, v, zero);
            self.b.ins().band(z, s)
        };
        [self.b.ins().bor(at, t), self.b.ins().bor(ae, e)]
    }

    fn store_back(&mut self, c: &mut Chunk) {
        if c.dirty.is_empty() {
            return;
        }
        let sel = self.sel_of(c);
        for r in c.dirty.clone() {
            let Some(v) = c.find(r) else { continue };
            if self.dead.get(r as usize).copied().unwrap_or(false) {
                continue;
            }
            let v = if self.lazy.get(r as usize).copied().unwrap_or(false) {
                v
            } else {
                self.settle(c, v)
            };
            let off = r as i32 * self.stride + c.offset;
            if self.full || self.local.get(r as usize).copied().unwrap_or(false) {
                self.b.ins().store(flags(), v, self.regs, off);
                continue;
            }
            let old = match c.loaded.iter().find(|(x, _)| *x == r) {
                Some(&(_, v)) => v,
                None => self.b.ins().load(I32X4, flags(), self.regs, off),
            };
            // `Exec::store`: `(new & sel) | (old & !sel)`. The mask's words are `0` or
            // `!0`, so their sign is the mask: one blend instruction (three logic ones
            // on a host without SSE4.1).
            let m = if super::call::blendv_supported() {
                self.b.ins().blendv(sel, v, old)
            } else {
                self.b.ins().bitselect(sel, v, old)
            };
            self.b.ins().store(flags(), m, self.regs, off);
        }
    }

    fn f(&mut self, v: Value) -> Value {
        self.b.ins().bitcast(F32X4, MemFlagsData::new(), v)
    }

    fn i(&mut self, v: Value) -> Value {
        self.b.ins().bitcast(I32X4, MemFlagsData::new(), v)
    }

    /// `float::flush` on every lane when the shader flushes; `x` unchanged otherwise (and
    /// when `x` is known flushed already).
    fn flush(&mut self, c: &mut Chunk, x: Value) -> Value {
        if !self.key.ftz || c.flushed.contains(&x) {
            return x;
        }
        let em = self.splat(0x7f80_0000);
        let e = self.b.ins().band(x, em);
        let zero = self.splat(0);
        let z = self.b.ins().icmp(IntCC::Equal, e, zero);
        // Zero exponent: keep only the sign, clearing `z >> 1` (= 0x7fffffff there) —
        // one shift and an and-not, cheaper than a blend.
        let keep = self.b.ins().ushr_imm_u(z, 1);
        let r = self.b.ins().band_not(x, keep);
        c.flushed.insert(r);
        r
    }

    /// A float operand of a float instruction, as bits and as `F32X4`: flushed, or with
    /// DAZ as it is (the instruction reads a denormal as zero itself; its bits then
    /// differ from the flushed ones only for denormals, so they may be used only where
    /// the instruction's result rules denormals out, or for NaN payloads).
    fn fin(&mut self, c: &mut Chunk, r: Reg) -> (Value, Value) {
        if self.daz {
            let v = self.get_raw(c, r);
            return (v, self.f(v));
        }
        self.fin_exact(c, r)
    }

    /// A float operand flushed, as bits and as `F32X4`, for code that passes its bits on.
    fn fin_exact(&mut self, c: &mut Chunk, r: Reg) -> (Value, Value) {
        let v = self.get(c, r);
        let v = self.flush(c, v);
        (v, self.f(v))
    }

    /// A float result (never a signalling NaN), as bits: flushed, or with DAZ left lazy,
    /// flushed only when its bits are needed ([`Em::settle`]).
    fn result(&mut self, c: &mut Chunk, r: Value) -> Value {
        if self.daz {
            c.lazy.insert(r);
            return r;
        }
        self.flush(c, r)
    }

    /// A float result: back to bits, then [`Em::result`].
    fn fout(&mut self, c: &mut Chunk, v: Value) -> Value {
        let v = self.i(v);
        self.result(c, v)
    }

    fn fbin(
        &mut self,
        c: &mut Chunk,
        a: Reg,
        b: Reg,
        op: impl Fn(&mut Self, Value, Value) -> Value,
    ) -> Value {
        let (_, x) = self.fin(c, a);
        let (_, y) = self.fin(c, b);
        // No `nan_first` fix-up: x86's `addps`/`subps`/`mulps`/`divps` give the first
        // NaN operand quieted, then the second, then the default NaN — `float::nan_first`
        // exactly — as long as the operands stay in order. Cranelift's x64 lowering swaps
        // them only to fold a load that is the first operand into a memory operand, and
        // `x` here is always a `bitcast` (of a load or of a flush), never a load itself.
        // The engines' NaN-payload property tests (`tests/all/jit.rs`) check this.
        let r = op(self, x, y);
        let r = self.i(r);
        self.result(c, r)
    }

    fn sig(&mut self, n: usize) -> SigRef {
        if let Some(s) = self.sigs[n - 1] {
            return s;
        }
        let mut sig = Signature::new(self.call_conv);
        for _ in 0..n {
            sig.params.push(AbiParam::new(I32));
        }
        sig.returns.push(AbiParam::new(I32));
        let s = self.b.import_signature(sig);
        self.sigs[n - 1] = Some(s);
        s
    }

    /// Calls the scalar rule at `addr` lane by lane: `imm` (when given) as the first
    /// argument, then each lane of `args`.
    fn call(&mut self, addr: usize, imm: Option<u32>, args: &[Value]) -> Value {
        let n = args.len() + usize::from(imm.is_some());
        let sig = self.sig(n);
        let mut out = self.splat(0);
        for l in 0..4u8 {
            let mut a = Vec::with_capacity(n);
            if let Some(k) = imm {
                a.push(self.b.ins().iconst(I32, i64::from(k as i32)));
            }
            for &v in args {
                a.push(self.b.ins().extractlane(v, l));
            }
            let callee = self.b.ins().iconst(self.ptr, addr as i64);
            let call = self.b.ins().call_indirect(sig, callee, &a);
            let r = self.b.inst_results(call)[0];
            out = self.b.ins().insertlane(out, r, l);
        }
        out
    }

    /// Applies a scalar `I32` operation lane by lane.
    fn lanewise(&mut self, args: &[Value], op: impl Fn(&mut Self, &[Value]) -> Value) -> Value {
        let mut out = self.splat(0);
        for l in 0..4u8 {
            let a: Vec<Value> = args
                .iter()
                .map(|&v| self.b.ins().extractlane(v, l))
                .collect();
            let r = op(self, &a);
            out = self.b.ins().insertlane(out, r, l);
        }
        out
    }

    fn is_nan(&mut self, x: Value) -> Value {
        self.b.ins().fcmp(FloatCC::Unordered, x, x)
    }

    /// `float::min` (`max` when `max`): the other operand when one is NaN; `−0 < +0`.
    fn fminmax(&mut self, c: &mut Chunk, a: Reg, b: Reg, max: bool) -> Value {
        // The result is one operand's bits.
        let (xi, x) = self.fin_exact(c, a);
        let (yi, y) = self.fin_exact(c, b);
        let xn = self.is_nan(x);
        let yn = self.is_nan(y);
        let cc = if max {
            FloatCC::GreaterThan
        } else {
            FloatCC::LessThan
        };
        let better = self.b.ins().fcmp(cc, x, y);
        let eq = self.b.ins().fcmp(FloatCC::Equal, x, y);
        let zero = self.splat(0);
        // min: x when equal and x is −0; max: x when equal and y is −0.
        let neg = self
            .b
            .ins()
            .icmp(IntCC::SignedLessThan, if max { yi } else { xi }, zero);
        let tie = self.b.ins().band(eq, neg);
        let pick = self.b.ins().bor(better, tie);
        let pick = self.b.ins().bor(yn, pick);
        let pick = self.b.ins().band_not(pick, xn);
        // Both operands are already flushed, so the result needs no flush.
        let r = self.b.ins().bitselect(pick, xi, yi);
        c.flushed.insert(r);
        r
    }

    /// `float::fma` on flushed operands, NaN results as `float::fma_f32` gives them.
    fn ffma(&mut self, c: &mut Chunk, a: Reg, b: Reg, d: Reg) -> Value {
        let (xi, x) = self.fin(c, a);
        let (yi, y) = self.fin(c, b);
        let (zi, z) = self.fin(c, d);
        let r = self.b.ins().fma(x, y, z);
        let mut r = self.i(r);
        // What a constant operand rules out: a NaN, or, when normal (so neither zero nor
        // flushed to zero), an invalid `∞ × 0`.
        let k = |r: Reg| self.consts.get(r.0 as usize).map(|&k| f32::from_bits(k));
        let may_nan = |r: Reg| k(r).is_none_or(f32::is_nan);
        let finite_nonzero = |r: Reg| k(r).is_some_and(f32::is_normal);
        let (an, bn, cn) = (may_nan(a), may_nan(b), may_nan(d));
        let invalid = !finite_nonzero(a) && !finite_nonzero(b);
        // With one operand able to be NaN and no invalid product, x86's result already is
        // the rule's: that NaN, quieted (the only NaN operand), else the fused result.
        if u8::from(an) + u8::from(bn) + u8::from(cn) <= 1 && !invalid {
            return self.result(c, r);
        }
        let quiet = self.splat(0x0040_0000);
        let dflt = self.splat(0xffc0_0000);
        // Applied from the lowest priority up: c's NaN, then an invalid product, then b's
        // NaN, then a's; a fix-up an operand cannot need is left out.
        if cn {
            let zn = self.is_nan(z);
            let zq = self.b.ins().bor(zi, quiet);
            r = self.b.ins().bitselect(zn, zq, r);
        }
        if invalid {
            let p = self.b.ins().fmul(x, y);
            let pn = self.is_nan(p);
            r = self.b.ins().bitselect(pn, dflt, r);
        }
        if bn {
            let yn = self.is_nan(y);
            let yq = self.b.ins().bor(yi, quiet);
            r = self.b.ins().bitselect(yn, yq, r);
        }
        if an {
            let xn = self.is_nan(x);
            let xq = self.b.ins().bor(xi, quiet);
            r = self.b.ins().bitselect(xn, xq, r);
        }
        self.result(c, r)
    }

    fn funary(&mut self, c: &mut Chunk, op: FUnOp, src: Reg) -> Value {
        let (xi, x) = self.fin(c, src);
        let r = match op {
            FUnOp::Sqrt => self.b.ins().sqrt(x),
            FUnOp::Rcp => {
                let one = self.splat(1.0f32.to_bits());
                let one = self.f(one);
                self.b.ins().fdiv(one, x)
            }
            FUnOp::RoundNe | FUnOp::Floor | FUnOp::Ceil | FUnOp::Trunc => {
                let r = match op {
                    FUnOp::RoundNe => self.b.ins().nearest(x),
                    FUnOp::Floor => self.b.ins().floor(x),
                    FUnOp::Ceil => self.b.ins().ceil(x),
                    _ => self.b.ins().trunc(x),
                };
                // A NaN passes unchanged (the rounding instruction would make it quiet).
                let n = self.is_nan(x);
                let ri = self.i(r);
                let v = self.b.ins().bitselect(n, xi, ri);
                if self.daz {
                    // An integer, ±0, ±∞ or a NaN — never a denormal, so flushed as it
                    // is (and a signalling NaN passed on must not be settled).
                    c.flushed.insert(v);
                    return v;
                }
                self.f(v)
            }
            FUnOp::Frac => {
                // `float::frac`: `x − floor(x)`, kept below 1.
                let fl = self.b.ins().floor(x);
                let r = self.b.ins().fsub(x, fl);
                let one = self.splat(1.0f32.to_bits());
                let one = self.f(one);
                let ge = self.b.ins().fcmp(FloatCC::GreaterThanOrEqual, r, one);
                let below = self.splat(0x3f7f_ffff);
                let ri = self.i(r);
                let v = self.b.ins().bitselect(ge, below, ri);
                self.f(v)
            }
            FUnOp::Sat => {
                // `float::sat`: `x > 1 → 1`, `x > 0 → x`, else (NaN too) `+0`.
                let one = self.splat(1.0f32.to_bits());
                let zero = self.splat(0);
                let onef = self.f(one);
                let zerof = self.f(zero);
                let gt1 = self.b.ins().fcmp(FloatCC::GreaterThan, x, onef);
                let gt0 = self.b.ins().fcmp(FloatCC::GreaterThan, x, zerof);
                let v = self.b.ins().bitselect(gt0, xi, zero);
                let v = self.b.ins().bitselect(gt1, one, v);
                self.f(v)
            }
            _ => {
                // The interpreter's own rule, which flushes its input and result itself.
                let raw = self.get(c, src);
                let f = if self.key.ftz {
                    shim::funary_ftz as *const () as usize
                } else {
                    shim::funary_keep as *const () as usize
                };
                return self.call(f, Some(shim::fun_index(op)), &[raw]);
            }
        };
        self.fout(c, r)
    }

    fn shift(
        &mut self,
        c: &mut Chunk,
        a: Reg,
        b: Reg,
        op: fn(&mut Self, Value, Value) -> Value,
    ) -> Value {
        let x = self.get(c, a);
        if let Some(&k) = self.consts.get(b.0 as usize) {
            // A uniform count shifts the whole vector.
            let n = self.b.ins().iconst(I32, i64::from(k & 31));
            return op(self, x, n);
        }
        let y = self.get(c, b);
        self.lanewise(&[x, y], |em, v| {
            let n = em.b.ins().band_imm_u(v[1], 31);
            op(em, v[0], n)
        })
    }

    fn inst(&mut self, c: &mut Chunk, inst: &Inst) {
        use Inst as I;
        macro_rules! ibin {
            ($dst:expr, $a:expr, $b:expr, $op:ident) => {{
                let x = self.get(c, *$a);
                let y = self.get(c, *$b);
                let r = self.b.ins().$op(x, y);
                self.set(c, *$dst, r);
            }};
        }
        macro_rules! fbin {
            ($dst:expr, $a:expr, $b:expr, $op:ident) => {{
                let r = self.fbin(c, *$a, *$b, |em, x, y| em.b.ins().$op(x, y));
                self.set(c, *$dst, r);
            }};
        }
        macro_rules! shim {
            ($dst:expr, $f:expr, $($a:expr),+) => {{
                let args = [$(self.get(c, *$a)),+];
                let r = self.call($f as *const () as usize, None, &args);
                self.set(c, *$dst, r);
            }};
        }
        match inst {
            I::Mov { dst, src } => {
                // A lazy value stays lazy: it is flushed where its bits are used.
                let v = self.get_raw(c, *src);
                self.set(c, *dst, v);
            }
            I::Select { dst, cond, a, b } => {
                let k = self.get(c, *cond);
                let x = self.get(c, *a);
                let y = self.get(c, *b);
                let zero = self.splat(0);
                let m = self.b.ins().icmp(IntCC::NotEqual, k, zero);
                let r = self.b.ins().bitselect(m, x, y);
                self.set(c, *dst, r);
            }
            I::FAdd { dst, a, b } => fbin!(dst, a, b, fadd),
            I::FSub { dst, a, b } => fbin!(dst, a, b, fsub),
            I::FMul { dst, a, b } => fbin!(dst, a, b, fmul),
            I::FDiv { dst, a, b } => fbin!(dst, a, b, fdiv),
            I::FRem { dst, a, b } => {
                let f = if self.key.ftz {
                    shim::frem_ftz as *const () as usize
                } else {
                    shim::frem_keep as *const () as usize
                };
                shim!(dst, f, a, b)
            }
            I::FMin { dst, a, b } => {
                let r = self.fminmax(c, *a, *b, false);
                self.set(c, *dst, r);
            }
            I::FMax { dst, a, b } => {
                let r = self.fminmax(c, *a, *b, true);
                self.set(c, *dst, r);
            }
            I::FMad { dst, a, b, c: d } if self.key.fuse_mad => {
                let r = self.ffma(c, *a, *b, *d);
                self.set(c, *dst, r);
            }
            I::FFma { dst, a, b, c: d } => {
                let r = self.ffma(c, *a, *b, *d);
                self.set(c, *dst, r);
            }
            I::FMad { dst, a, b, c: d } | I::FMadPrecise { dst, a, b, c: d } => {
                // `float::mad_unfused`: the product flushed and rounded, then the sum.
                let p = self.fbin(c, *a, *b, |em, x, y| em.b.ins().fmul(x, y));
                let pf = self.f(p);
                let (_, z) = self.fin(c, *d);
                // In order, as in `fbin`: no NaN fix-up needed.
                let s = self.b.ins().fadd(pf, z);
                let s = self.i(s);
                let r = self.result(c, s);
                self.set(c, *dst, r);
            }
            I::FUnary { op, dst, src } => {
                let r = self.funary(c, *op, *src);
                self.set(c, *dst, r);
            }
            I::FCmp { cond, dst, a, b } => {
                let cc = match cond {
                    FCond::Eq => Some(FloatCC::Equal),
                    FCond::Ne => Some(FloatCC::NotEqual),
                    FCond::Lt => Some(FloatCC::LessThan),
                    FCond::Le => Some(FloatCC::LessThanOrEqual),
                    FCond::Gt => Some(FloatCC::GreaterThan),
                    FCond::Ge => Some(FloatCC::GreaterThanOrEqual),
                    FCond::OrdNe => Some(FloatCC::OrderedNotEqual),
                    FCond::UnordEq => Some(FloatCC::UnorderedOrEqual),
                    FCond::UnordLt => Some(FloatCC::UnorderedOrLessThan),
                    FCond::UnordLe => Some(FloatCC::UnorderedOrLessThanOrEqual),
                    FCond::UnordGt => Some(FloatCC::UnorderedOrGreaterThan),
                    FCond::UnordGe => Some(FloatCC::UnorderedOrGreaterThanOrEqual),
                    FCond::Ord => Some(FloatCC::Ordered),
                    FCond::Uno => Some(FloatCC::Unordered),
                    FCond::False | FCond::True => None,
                };
                let r = match cc {
                    // x86's vector compares have no `one` or `ueq` predicate (Cranelift
                    // refuses them): ordered and not equal, unordered or equal.
                    Some(FloatCC::OrderedNotEqual) => {
                        let (_, x) = self.fin(c, *a);
                        let (_, y) = self.fin(c, *b);
                        let o = self.b.ins().fcmp(FloatCC::Ordered, x, y);
                        let n = self.b.ins().fcmp(FloatCC::NotEqual, x, y);
                        self.b.ins().band(o, n)
                    }
                    Some(FloatCC::UnorderedOrEqual) => {
                        let (_, x) = self.fin(c, *a);
                        let (_, y) = self.fin(c, *b);
                        let u = self.b.ins().fcmp(FloatCC::Unordered, x, y);
                        let e = self.b.ins().fcmp(FloatCC::Equal, x, y);
                        self.b.ins().bor(u, e)
                    }
                    Some(cc) => {
                        let (_, x) = self.fin(c, *a);
                        let (_, y) = self.fin(c, *b);
                        self.b.ins().fcmp(cc, x, y)
                    }
                    None => self.splat(if *cond == FCond::True { u32::MAX } else { 0 }),
                };
                self.set(c, *dst, r);
            }
            I::FTest { class, dst, src } => {
                // `float::class_f64` of the bits widened to f64 (exact), unflushed.
                let x = self.get(c, *src);
                let absm = self.splat(0x7fff_ffff);
                let abs = self.b.ins().band(x, absm);
                let inf = self.splat(0x7f80_0000);
                let r = match class {
                    FClass::Nan => self.b.ins().icmp(IntCC::UnsignedGreaterThan, abs, inf),
                    FClass::Inf => self.b.ins().icmp(IntCC::Equal, abs, inf),
                    FClass::Finite => self.b.ins().icmp(IntCC::UnsignedLessThan, abs, inf),
                    FClass::Normal => {
                        // Every nonzero finite f32, denormals included, is a normal f64.
                        let fin = self.b.ins().icmp(IntCC::UnsignedLessThan, abs, inf);
                        let zero = self.splat(0);
                        let nz = self.b.ins().icmp(IntCC::NotEqual, abs, zero);
                        self.b.ins().band(fin, nz)
                    }
                };
                self.set(c, *dst, r);
            }
            I::FToI { dst, src } => {
                let x = self.get(c, *src);
                let x = self.f(x);
                let r = self.b.ins().fcvt_to_sint_sat(I32X4, x);
                self.set(c, *dst, r);
            }
            I::FToU { dst, src } => {
                let x = self.get(c, *src);
                let x = self.f(x);
                let r = self.b.ins().fcvt_to_uint_sat(I32X4, x);
                self.set(c, *dst, r);
            }
            I::IToF { dst, src } => {
                let x = self.get(c, *src);
                let r = self.b.ins().fcvt_from_sint(F32X4, x);
                let r = self.i(r);
                self.set(c, *dst, r);
            }
            I::UToF { dst, src } => {
                let x = self.get(c, *src);
                let r = self.b.ins().fcvt_from_uint(F32X4, x);
                let r = self.i(r);
                self.set(c, *dst, r);
            }
            I::F32ToF16Legacy { dst, src } => shim!(dst, shim::f32_to_f16_legacy, src),
            I::F16ToF32 { dst, src } => shim!(dst, shim::f16_to_f32, src),
            I::SExtBits { bits, dst, src } => {
                let x = self.get(c, *src);
                let r = match bits {
                    8 | 16 => {
                        let n = i64::from(32 - *bits);
                        let s = self.b.ins().ishl_imm_u(x, n);
                        self.b.ins().sshr_imm_u(s, n)
                    }
                    _ => x,
                };
                self.set(c, *dst, r);
            }
            I::IAdd { dst, a, b } => ibin!(dst, a, b, iadd),
            I::ISub { dst, a, b } => ibin!(dst, a, b, isub),
            I::IMul { dst, a, b } => ibin!(dst, a, b, imul),
            I::IMulHi { dst, a, b } => shim!(dst, shim::imulhi, a, b),
            I::UMulHi { dst, a, b } => shim!(dst, shim::umulhi, a, b),
            I::IMad { dst, a, b, c: d } => {
                let x = self.get(c, *a);
                let y = self.get(c, *b);
                let z = self.get(c, *d);
                let p = self.b.ins().imul(x, y);
                let r = self.b.ins().iadd(p, z);
                self.set(c, *dst, r);
            }
            I::UDiv { dst, a, b } => shim!(dst, shim::udiv, a, b),
            I::URem { dst, a, b } => shim!(dst, shim::urem, a, b),
            I::IDiv { dst, a, b } => shim!(dst, shim::idiv, a, b),
            I::IRem { dst, a, b } => shim!(dst, shim::irem, a, b),
            I::INeg { dst, src } => {
                let x = self.get(c, *src);
                let r = self.b.ins().ineg(x);
                self.set(c, *dst, r);
            }
            I::IMin { dst, a, b } => ibin!(dst, a, b, smin),
            I::IMax { dst, a, b } => ibin!(dst, a, b, smax),
            I::UMin { dst, a, b } => ibin!(dst, a, b, umin),
            I::UMax { dst, a, b } => ibin!(dst, a, b, umax),
            I::And { dst, a, b } => ibin!(dst, a, b, band),
            I::Or { dst, a, b } => ibin!(dst, a, b, bor),
            I::Xor { dst, a, b } => ibin!(dst, a, b, bxor),
            I::Not { dst, src } => {
                let x = self.get(c, *src);
                let r = self.b.ins().bnot(x);
                self.set(c, *dst, r);
            }
            I::Shl { dst, a, b } => {
                let r = self.shift(c, *a, *b, |em, x, n| em.b.ins().ishl(x, n));
                self.set(c, *dst, r);
            }
            I::UShr { dst, a, b } => {
                let r = self.shift(c, *a, *b, |em, x, n| em.b.ins().ushr(x, n));
                self.set(c, *dst, r);
            }
            I::IShr { dst, a, b } => {
                let r = self.shift(c, *a, *b, |em, x, n| em.b.ins().sshr(x, n));
                self.set(c, *dst, r);
            }
            I::ICmp { cond, dst, a, b } => {
                let cc = match cond {
                    ICond::Eq => IntCC::Equal,
                    ICond::Ne => IntCC::NotEqual,
                    ICond::SLt => IntCC::SignedLessThan,
                    ICond::SLe => IntCC::SignedLessThanOrEqual,
                    ICond::SGt => IntCC::SignedGreaterThan,
                    ICond::SGe => IntCC::SignedGreaterThanOrEqual,
                    ICond::ULt => IntCC::UnsignedLessThan,
                    ICond::ULe => IntCC::UnsignedLessThanOrEqual,
                    ICond::UGt => IntCC::UnsignedGreaterThan,
                    ICond::UGe => IntCC::UnsignedGreaterThanOrEqual,
                };
                let x = self.get(c, *a);
                let y = self.get(c, *b);
                let r = self.b.ins().icmp(cc, x, y);
                self.set(c, *dst, r);
            }
            I::Bfi {
                dst,
                width,
                offset,
                insert,
                base,
            } => shim!(dst, shim::bfi, width, offset, insert, base),
            I::UBfe {
                dst,
                width,
                offset,
                src,
            } => shim!(dst, shim::ubfe, width, offset, src),
            I::IBfe {
                dst,
                width,
                offset,
                src,
            } => shim!(dst, shim::ibfe, width, offset, src),
            I::Bfrev { dst, src } => shim!(dst, shim::bfrev, src),
            I::CountBits { dst, src } => {
                let x = self.get(c, *src);
                let r = self.lanewise(&[x], |em, v| em.b.ins().popcnt(v[0]));
                self.set(c, *dst, r);
            }
            I::FirstBitHi { dst, src } => shim!(dst, shim::firstbit_hi, src),
            I::FirstBitLo { dst, src } => shim!(dst, shim::firstbit_lo, src),
            I::FirstBitShi { dst, src } => shim!(dst, shim::firstbit_shi, src),
            I::UAddc { sum, carry, a, b } => {
                // `arith::uaddc`: the carry is 1 when the sum wrapped.
                let x = self.get(c, *a);
                let y = self.get(c, *b);
                let s = self.b.ins().iadd(x, y);
                let w = self.b.ins().icmp(IntCC::UnsignedLessThan, s, x);
                let one = self.splat(1);
                let k = self.b.ins().band(w, one);
                self.set(c, *sum, s);
                self.set(c, *carry, k);
            }
            I::USubb { diff, borrow, a, b } => {
                let x = self.get(c, *a);
                let y = self.get(c, *b);
                let d = self.b.ins().isub(x, y);
                let w = self.b.ins().icmp(IntCC::UnsignedLessThan, x, y);
                let one = self.splat(1);
                let k = self.b.ins().band(w, one);
                self.set(c, *diff, d);
                self.set(c, *borrow, k);
            }
            I::Msad {
                dst,
                reference,
                src,
                accum,
            } => shim!(dst, shim::msad, reference, src, accum),
            // `segment` refuses a run with anything `select::compilable` does not admit.
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{dead_at_exit, flushed_at_blocks, flushed_before, unmasked, waiting_blocks};

    /// `waiting_blocks` and `unmasked` (the scheduling rule of `exec::control`): in a
    /// loop of blocks 1 and 2 after a branch in block 0, lanes not running block 1 can
    /// wait only at blocks 2 and 3, and lanes not running block 2 only at block 3, so a
    /// store in block 2 needs no mask for any register, one in block 1 only for those
    /// live into blocks 2 or 3, and block 0 runs with no lane waiting. A shader that reads
    /// other lanes' registers (here a derivative) gets no unmasked store.
    #[test]
    fn unmasked_stores_follow_the_waiting_blocks() {
        let text = "shader compute\ngroup [1 1 1]\nconst r0 = 0x3f800000\nconst r1 = 1\n\
             block0:\n    fadd r2, r0, r0\n    icmp eq, r3, r1, r1\n    branch r3, block1, block2\n\
             block1:\n    fmul r4, r2, r2\n    mov r5, r4\n    iadd r7, r7, r1\n    jump block2\n\
             block2:\n    fadd r6, r5, r0\n    branch r6, block1, block3\n\
             block3:\n    return\n";
        let s = crate::ir::parse_shader(text).unwrap();
        let w = waiting_blocks(&s).expect("a few states");
        let at = |b: usize| (0..4).filter(|&x| w[b][x]).collect::<Vec<_>>();
        assert_eq!(
            [at(0), at(1), at(2), at(3)],
            [vec![], vec![2, 3], vec![3], vec![]]
        );
        let u = unmasked(&s);
        assert!(!u[0][0] && !u[1][1], "constants never");
        assert!(u[0][2] && u[0][3], "no lane waits while block 0 runs");
        assert!(
            u[1][4] && !u[1][5] && !u[1][7] && !u[1][2],
            "block1: r4 dead where lanes wait; r5, r2, r7 live into block 2"
        );
        assert!(
            u[2][6] && u[2][5],
            "block 3, the only waiting place, reads nothing"
        );
        // A derivative reads the other lanes' registers: every store keeps the mask.
        let crossing = text.replace(
            "    fadd r6, r5, r0\n",
            "    fadd r6, r5, r0\n    deriv fine_x, r8, r6\n",
        );
        let c = crate::ir::parse_shader(&crossing).unwrap();
        assert!(unmasked(&c).iter().flatten().all(|x| !x));
        // `dead_at_exit`: not live into a successor. A branch's condition reaches the
        // terminator through the region's scratch words, so it does not keep the
        // register alive; a switch's selector does (`switch_selector_is_live`).
        let d = dead_at_exit(&s);
        assert!(
            d[0][4] && d[0][6],
            "block0: r4 and r6 are written before any read"
        );
        assert!(d[0][3], "block0 branches on r3, which no later block reads");
        assert!(!d[0][2] && !d[0][5] && !d[0][7], "read by block1 or block2");
        assert!(
            d[1][4] && !d[1][5] && !d[1][7],
            "block1: r5 read next, r7 round the loop"
        );
        assert!(
            d[2][6] && d[2][4],
            "block2 branches on r6, read by no successor; r4 is rewritten first"
        );
    }

    /// `dead_at_exit`: a switch reads its selector from the register itself.
    #[test]
    fn switch_selector_is_live() {
        let s = crate::ir::parse_shader(
            "shader compute\ngroup [1 1 1]\nconst r0 = 1\n\
             block0:\n    iadd r1, r0, r0\n    switch r1, [1: block1], block2\n\
             block1:\n    jump block2\n\
             block2:\n    return\n",
        )
        .unwrap();
        assert!(!dead_at_exit(&s)[0][1], "block0 switches on r1");
    }

    /// `flushed_at_blocks`: a register is free of denormals at a block's entry when on
    /// every path there its last write was an `fadd`/`fsub`/`fmul`/`fdiv` (which
    /// `exec::float`'s flushing rules flush), a copy of one, or none at all (registers
    /// start at 0); constants count by their value. Loops feed their back edges in.
    #[test]
    fn registers_free_of_denormals() {
        let s = crate::ir::parse_shader(
            "shader compute\ngroup [1 1 1]\nfp32 ftz\nconst r0 = 0x3f800000\nconst r1 = 1\n\
             const r2 = 0x00000001\n\
             block0:\n    fadd r3, r0, r0\n    iadd r4, r1, r1\n    mov r5, r3\n\
             \x20   branch r1, block1, block2\n\
             block1:\n    fmul r4, r0, r0\n    utof r5, r1\n    jump block3\n\
             block2:\n    fmul r4, r0, r0\n    mov r6, r2\n    jump block3\n\
             block3:\n    fsub r7, r0, r0\n    branch r1, block1, block4\n\
             block4:\n    return\n",
        )
        .unwrap();
        let f = flushed_at_blocks(&s, &[]);
        let row = |b: usize| f[b][..8].to_vec();
        // r1 (the integer 1) and r2 are denormal bit patterns; r4 was an integer result
        // and r5 a copy of a flushed sum.
        assert_eq!(
            row(1),
            [true, false, false, true, false, false, false, true],
            "block1: r5 and r6 come back denormal-capable round the loop"
        );
        assert_eq!(row(2), [true, false, false, true, false, true, true, true]);
        assert_eq!(
            row(3),
            [true, false, false, true, true, false, false, true],
            "block3: r4 flushed on both paths, r5 and r6 not on one"
        );
        assert_eq!(row(4), row(3));
        // Mid-block: after block0's `iadd`, r4 is not free; after its `fadd`, r3 is.
        let mid = flushed_before(&s, &f, 0, 2);
        assert!(mid[3] && !mid[4]);
        assert!(f[0][8..].iter().all(|&x| x));
    }
}
