//! The dispatch loop: runs a wave's blocks, one `match` arm per IR instruction.
//!
//! Each arm calls a handler in a per-family file (`arith`, `float`, `convert`, `bits`,
//! `memory`, `resource`, `sample`, `wave_ops`, `control`); scalar rules are applied to
//! every lane by the lane loops of `wave` (`un`, `bin`, `tri`, …). The 32-bit float arms
//! choose the flushing or non-flushing form of their rule once per instruction.
//!
//! This file relies on `ir::validate` (run before any wave exists): register operands are
//! below `num_regs`, array and range ids exist, masks match their operand lists, blocks
//! are in structured order.

use crate::ir::{FUnOp, Inst, SysVec};

use super::budget::ExecError;
use super::memory::SharedRmw;
use super::observe::{self, Collect, WaveObserver, WriteSink};
use super::resource::{Rmw, rmw};
use super::wave::{
    Wave, WaveState, bin, bin64, cmp64, get64, lanes, narrow, quad, shift64, tri, tri64, un, un64,
    widen,
};
use super::{
    Ctx, arith, bits, control, convert, float, hit_object, memory, mesh, ray_query, rays, resource,
    sample, wave_ops,
};
use crate::exec::budget::At;
use crate::ir::{BlockId, InstId};

/// Why a wave stopped running.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// It reached a `barrier group_sync`; it resumes after the rest of its group gets there.
    Barrier,
    /// Every lane finished.
    Done,
}

/// What one instruction asks of the block loop.
enum Step {
    /// Go on with the next instruction.
    Next,
    /// Suspend at a group barrier.
    Barrier,
    /// No lane is active any more (all discarded): schedule other lanes.
    Empty,
    /// The instruction's own work passed the budget (a ray query's traversal).
    Fail(Box<ExecError>),
}

/// Runs the wave until it finishes or reaches a group barrier.
pub fn run<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    shared: &mut [u32],
) -> Result<Outcome, ExecError> {
    let shader = cx.shader;
    loop {
        if w.state == WaveState::Done {
            return Ok(Outcome::Done);
        }
        let mut b = w.cur as usize;
        let mut block = &shader.blocks[b];
        if w.pc == block.start {
            if let Some(j) = cx.jit
                && j.native_block(b)
            {
                // Native blocks run with their control flow in the region code, which
                // returns with the wave at the start of a block not yet charged: one
                // it does not run, or one whose charge would pass the budget (charged
                // below, so the error is this loop's).
                j.run_region(w, shader, cx.limit);
                if w.state == WaveState::Done {
                    return Ok(Outcome::Done);
                }
                b = w.cur as usize;
                block = &shader.blocks[b];
            }
            control::charge(w, cx, b)?;
        }
        let end = block.end as usize;
        let mut pc = w.pc as usize;
        let mut emptied = false;
        // Unbound range elements exist only in some dispatches; only those check each
        // access (`exec::unbound`).
        let checked = cx.table.has_unbound();
        while pc < end {
            if let Some(j) = cx.jit {
                // A compiled segment holds only register arithmetic: nothing for the
                // unbound check, no barrier, no discard.
                if let Some(next) = j.run_at(pc, &mut w.regs, &w.ex.sel) {
                    pc = next;
                    continue;
                }
            }
            let inst = &shader.insts[pc];
            if checked {
                super::unbound::check(w, cx, inst, pc)?;
            }
            let at = pc;
            pc += 1;
            match step(w, inst, cx, shared, at) {
                Step::Next => {}
                Step::Barrier => {
                    w.pc = pc as u32;
                    w.state = WaveState::AtBarrier;
                    return Ok(Outcome::Barrier);
                }
                Step::Empty => {
                    emptied = true;
                    break;
                }
                Step::Fail(e) => return Err(*e),
            }
        }
        if emptied {
            control::schedule(w, cx);
        } else {
            control::terminate(w, cx, b)?;
        }
    }
}

/// [`run`], reporting every instruction and terminator of the wave to `obs` (see
/// `observe`). The same handlers run in the same order as in [`run`]; only the
/// reporting is added. Memory writes of the wave go to `outer` too.
pub fn run_traced<const W: usize>(
    w: &mut Wave<W>,
    cx: &Ctx<'_>,
    shared: &mut [u32],
    outer: Option<&dyn WriteSink>,
    obs: &mut dyn WaveObserver,
) -> Result<Outcome, ExecError> {
    let collect = Collect {
        buf: std::sync::Mutex::new(Vec::new()),
        outer,
        keep_local: true,
    };
    let tcx = Ctx {
        shader: cx.shader,
        table: cx.table,
        profile: cx.profile,
        limit: cx.limit,
        ftz: cx.ftz,
        group_id: cx.group_id,
        shared_bytes: cx.shared_bytes,
        pixel: cx.pixel,
        rays: cx.rays,
        writes: Some(&collect),
        // The traced wave is the interpreter's alone: each instruction is observed.
        jit: None,
    };
    let shader = cx.shader;
    loop {
        if w.state == WaveState::Done {
            return Ok(Outcome::Done);
        }
        let b = w.cur as usize;
        let block = &shader.blocks[b];
        if w.pc == block.start {
            control::charge(w, &tcx, b)?;
        }
        let end = block.end as usize;
        let mut pc = w.pc as usize;
        let mut emptied = false;
        // The same unbound-element checks as `run`, so a debugged run faults where a
        // normal one does.
        let checked = tcx.table.has_unbound();
        while pc < end {
            let inst = &shader.insts[pc];
            if checked {
                super::unbound::check(w, &tcx, inst, pc)?;
            }
            let at = pc;
            pc += 1;
            let (active, helper) = (w.ex.mask, w.helper);
            let r = step(w, inst, &tcx, shared, at);
            let writes = collect.take();
            obs.step(
                At::Inst(InstId(at as u32)),
                active,
                helper,
                &observe::reader(w, &tcx),
                &writes,
            );
            match r {
                Step::Next => {}
                Step::Barrier => {
                    w.pc = pc as u32;
                    w.state = WaveState::AtBarrier;
                    return Ok(Outcome::Barrier);
                }
                Step::Empty => {
                    emptied = true;
                    break;
                }
                Step::Fail(e) => return Err(*e),
            }
        }
        if emptied {
            control::schedule(w, &tcx);
        } else {
            let (active, helper) = (w.ex.mask, w.helper);
            control::terminate(w, &tcx, b)?;
            obs.step(
                At::Terminator(BlockId(b as u32)),
                active,
                helper,
                &observe::reader(w, &tcx),
                &[],
            );
        }
    }
}

/// Runs a store arm; with a write sink, reports where its lanes wrote (one branch per
/// store instruction, none per lane).
macro_rules! observed {
    ($w:expr, $cx:expr, $inst:expr, $shared:expr, $at:expr, $body:expr) => {{
        match $cx.writes {
            None => $body,
            Some(sink) => {
                let p = observe::pending($w, $cx, $inst);
                $body;
                if let Some(p) = p {
                    observe::report($w, $cx, &*$shared, $at, p, sink);
                }
            }
        }
    }};
}

macro_rules! fop {
    ($cx:expr, $regs:expr, $ex:expr, $f:ident, $d:expr, $a:expr, $b:expr) => {
        if $cx.ftz {
            bin($regs, $ex, *$d, *$a, *$b, float::$f::<true>)
        } else {
            bin($regs, $ex, *$d, *$a, *$b, float::$f::<false>)
        }
    };
}

macro_rules! fop3 {
    ($cx:expr, $regs:expr, $ex:expr, $f:ident, $d:expr, $a:expr, $b:expr, $c:expr) => {
        if $cx.ftz {
            tri($regs, $ex, *$d, *$a, *$b, *$c, float::$f::<true>)
        } else {
            tri($regs, $ex, *$d, *$a, *$b, *$c, float::$f::<false>)
        }
    };
}

/// Runs one instruction for the active lanes.
#[inline(always)]
fn step<const W: usize>(
    w: &mut Wave<W>,
    inst: &Inst,
    cx: &Ctx<'_>,
    shared: &mut [u32],
    at: usize,
) -> Step {
    let regs = &mut w.regs[..];
    let ex = &w.ex;
    match inst {
        // ---- moves ----
        Inst::Mov { dst, src } => un(regs, ex, *dst, *src, |a| a),
        Inst::Select { dst, cond, a, b } => {
            tri(
                regs,
                ex,
                *dst,
                *cond,
                *a,
                *b,
                |c, a, b| if c != 0 { a } else { b },
            )
        }
        Inst::Select64 { dst, cond, a, b } => {
            let c = regs[cond.index()];
            let (x, y) = (get64(regs, *a), get64(regs, *b));
            let mut r = [0u64; W];
            for l in 0..W {
                r[l] = if c[l] != 0 { x[l] } else { y[l] };
            }
            ex.store64(regs, *dst, &r);
        }

        // ---- 32-bit float ----
        Inst::FAdd { dst, a, b } => fop!(cx, regs, ex, add, dst, a, b),
        Inst::FSub { dst, a, b } => fop!(cx, regs, ex, sub, dst, a, b),
        Inst::FMul { dst, a, b } => fop!(cx, regs, ex, mul, dst, a, b),
        Inst::FDiv { dst, a, b } => fop!(cx, regs, ex, div, dst, a, b),
        Inst::FRem { dst, a, b } => fop!(cx, regs, ex, rem, dst, a, b),
        Inst::FMin { dst, a, b } => fop!(cx, regs, ex, min, dst, a, b),
        Inst::FMax { dst, a, b } => fop!(cx, regs, ex, max, dst, a, b),
        Inst::FMad { dst, a, b, c } => {
            if cx.profile.fuse_mad {
                fop3!(cx, regs, ex, fma, dst, a, b, c)
            } else {
                fop3!(cx, regs, ex, mad_unfused, dst, a, b, c)
            }
        }
        Inst::FMadPrecise { dst, a, b, c } => fop3!(cx, regs, ex, mad_unfused, dst, a, b, c),
        Inst::FFma { dst, a, b, c } => fop3!(cx, regs, ex, fma, dst, a, b, c),
        Inst::FUnary { op, dst, src } => funary(regs, ex, cx.ftz, *op, *dst, *src),
        Inst::FCmp { cond, dst, a, b } => {
            if cx.ftz {
                fcmp::<W, true>(regs, ex, *cond, *dst, *a, *b)
            } else {
                fcmp::<W, false>(regs, ex, *cond, *dst, *a, *b)
            }
        }
        Inst::FTest { class, dst, src } => {
            let k = *class;
            un(regs, ex, *dst, *src, |x| {
                float::bool_bits(float::class_f64(k, f64::from(f32::from_bits(x))))
            })
        }
        Inst::Deriv { kind, dst, src } => wave_ops::deriv(w, cx, *kind, *dst, *src),

        // ---- 64-bit float ----
        Inst::DAdd { dst, a, b } => bin64(regs, ex, *dst, *a, *b, |x, y| {
            (f64::from_bits(x) + f64::from_bits(y)).to_bits()
        }),
        Inst::DSub { dst, a, b } => bin64(regs, ex, *dst, *a, *b, |x, y| {
            (f64::from_bits(x) - f64::from_bits(y)).to_bits()
        }),
        Inst::DMul { dst, a, b } => bin64(regs, ex, *dst, *a, *b, |x, y| {
            (f64::from_bits(x) * f64::from_bits(y)).to_bits()
        }),
        Inst::DDiv { dst, a, b } => bin64(regs, ex, *dst, *a, *b, |x, y| {
            (f64::from_bits(x) / f64::from_bits(y)).to_bits()
        }),
        Inst::DRem { dst, a, b } => bin64(regs, ex, *dst, *a, *b, |x, y| {
            (f64::from_bits(x) % f64::from_bits(y)).to_bits()
        }),
        Inst::DMin { dst, a, b } => bin64(regs, ex, *dst, *a, *b, float::dmin),
        Inst::DMax { dst, a, b } => bin64(regs, ex, *dst, *a, *b, float::dmax),
        Inst::DFma { dst, a, b, c } => tri64(regs, ex, *dst, *a, *b, *c, float::dfma),
        Inst::DRcp { dst, src } => un64(regs, ex, *dst, *src, float::drcp),
        Inst::DSqrt { dst, src } => {
            un64(regs, ex, *dst, *src, |x| f64::from_bits(x).sqrt().to_bits())
        }
        Inst::DCmp { cond, dst, a, b } => {
            let c = *cond;
            cmp64(regs, ex, *dst, *a, *b, |x, y| {
                float::bool_bits(float::cmp_f64(c, f64::from_bits(x), f64::from_bits(y)))
            })
        }
        Inst::DTest { class, dst, src } => {
            let k = *class;
            narrow(regs, ex, *dst, *src, |x| {
                float::bool_bits(float::class_f64(k, f64::from_bits(x)))
            })
        }

        // ---- conversions ----
        Inst::FToI { dst, src } => un(regs, ex, *dst, *src, convert::ftoi),
        Inst::FToU { dst, src } => un(regs, ex, *dst, *src, convert::ftou),
        Inst::IToF { dst, src } => un(regs, ex, *dst, *src, convert::itof),
        Inst::UToF { dst, src } => un(regs, ex, *dst, *src, convert::utof),
        Inst::F32ToF16Legacy { dst, src } => un(regs, ex, *dst, *src, convert::f32_to_f16_legacy),
        Inst::F32ToF16 { dst, src } => {
            let rule = cx.profile.f16;
            un(regs, ex, *dst, *src, |x| {
                convert::f32_to_f16_native(x, rule)
            })
        }
        Inst::F16ToF32 { dst, src } => un(regs, ex, *dst, *src, convert::f16_to_f32),
        Inst::DToF { dst, src } => {
            if cx.ftz {
                narrow(regs, ex, *dst, *src, convert::dtof::<true>)
            } else {
                narrow(regs, ex, *dst, *src, convert::dtof::<false>)
            }
        }
        Inst::FToD { dst, src } => {
            if cx.ftz {
                widen(regs, ex, *dst, *src, convert::ftod::<true>)
            } else {
                widen(regs, ex, *dst, *src, convert::ftod::<false>)
            }
        }
        Inst::DToI { dst, src } => narrow(regs, ex, *dst, *src, convert::dtoi),
        Inst::DToU { dst, src } => narrow(regs, ex, *dst, *src, convert::dtou),
        Inst::IToD { dst, src } => widen(regs, ex, *dst, *src, convert::itod),
        Inst::UToD { dst, src } => widen(regs, ex, *dst, *src, convert::utod),
        Inst::FToI64 { dst, src } => widen(regs, ex, *dst, *src, convert::ftoi64),
        Inst::FToU64 { dst, src } => widen(regs, ex, *dst, *src, convert::ftou64),
        Inst::DToI64 { dst, src } => un64(regs, ex, *dst, *src, convert::dtoi64),
        Inst::DToU64 { dst, src } => un64(regs, ex, *dst, *src, convert::dtou64),
        Inst::I64ToF { dst, src } => narrow(regs, ex, *dst, *src, convert::i64tof),
        Inst::U64ToF { dst, src } => narrow(regs, ex, *dst, *src, convert::u64tof),
        Inst::I64ToD { dst, src } => un64(regs, ex, *dst, *src, convert::i64tod),
        Inst::U64ToD { dst, src } => un64(regs, ex, *dst, *src, convert::u64tod),
        Inst::SExt64 { dst, src } => widen(regs, ex, *dst, *src, |x| x as i32 as i64 as u64),
        Inst::ZExt64 { dst, src } => widen(regs, ex, *dst, *src, u64::from),
        Inst::SExtBits { bits, dst, src } => {
            let n = *bits;
            un(regs, ex, *dst, *src, |x| convert::sext_bits(n, x))
        }

        // ---- 32-bit integers ----
        Inst::IAdd { dst, a, b } => bin(regs, ex, *dst, *a, *b, u32::wrapping_add),
        Inst::ISub { dst, a, b } => bin(regs, ex, *dst, *a, *b, u32::wrapping_sub),
        Inst::IMul { dst, a, b } => bin(regs, ex, *dst, *a, *b, u32::wrapping_mul),
        Inst::IMulHi { dst, a, b } => bin(regs, ex, *dst, *a, *b, arith::imulhi),
        Inst::UMulHi { dst, a, b } => bin(regs, ex, *dst, *a, *b, arith::umulhi),
        Inst::IMad { dst, a, b, c } => tri(regs, ex, *dst, *a, *b, *c, |x, y, z| {
            x.wrapping_mul(y).wrapping_add(z)
        }),
        Inst::UDiv { dst, a, b } => bin(regs, ex, *dst, *a, *b, arith::udiv),
        Inst::URem { dst, a, b } => bin(regs, ex, *dst, *a, *b, arith::urem),
        Inst::IDiv { dst, a, b } => bin(regs, ex, *dst, *a, *b, arith::idiv),
        Inst::IRem { dst, a, b } => bin(regs, ex, *dst, *a, *b, arith::irem),
        Inst::INeg { dst, src } => un(regs, ex, *dst, *src, u32::wrapping_neg),
        Inst::IMin { dst, a, b } => bin(regs, ex, *dst, *a, *b, |x, y| {
            (x as i32).min(y as i32) as u32
        }),
        Inst::IMax { dst, a, b } => bin(regs, ex, *dst, *a, *b, |x, y| {
            (x as i32).max(y as i32) as u32
        }),
        Inst::UMin { dst, a, b } => bin(regs, ex, *dst, *a, *b, u32::min),
        Inst::UMax { dst, a, b } => bin(regs, ex, *dst, *a, *b, u32::max),
        Inst::And { dst, a, b } => bin(regs, ex, *dst, *a, *b, |x, y| x & y),
        Inst::Or { dst, a, b } => bin(regs, ex, *dst, *a, *b, |x, y| x | y),
        Inst::Xor { dst, a, b } => bin(regs, ex, *dst, *a, *b, |x, y| x ^ y),
        Inst::Not { dst, src } => un(regs, ex, *dst, *src, |x| !x),
        Inst::Shl { dst, a, b } => bin(regs, ex, *dst, *a, *b, arith::shl),
        Inst::UShr { dst, a, b } => bin(regs, ex, *dst, *a, *b, arith::ushr),
        Inst::IShr { dst, a, b } => bin(regs, ex, *dst, *a, *b, arith::ishr),
        Inst::ICmp { cond, dst, a, b } => icmp(regs, ex, *cond, *dst, *a, *b),
        Inst::Bfi {
            dst,
            width,
            offset,
            insert,
            base,
        } => quad(regs, ex, *dst, *width, *offset, *insert, *base, bits::bfi),
        Inst::UBfe {
            dst,
            width,
            offset,
            src,
        } => tri(regs, ex, *dst, *width, *offset, *src, bits::ubfe),
        Inst::IBfe {
            dst,
            width,
            offset,
            src,
        } => tri(regs, ex, *dst, *width, *offset, *src, bits::ibfe),
        Inst::Bfrev { dst, src } => un(regs, ex, *dst, *src, u32::reverse_bits),
        Inst::CountBits { dst, src } => un(regs, ex, *dst, *src, u32::count_ones),
        Inst::FirstBitHi { dst, src } => un(regs, ex, *dst, *src, bits::firstbit_hi),
        Inst::FirstBitLo { dst, src } => un(regs, ex, *dst, *src, bits::firstbit_lo),
        Inst::FirstBitShi { dst, src } => un(regs, ex, *dst, *src, bits::firstbit_shi),
        Inst::UAddc { sum, carry, a, b } => {
            let (x, y) = (regs[a.index()], regs[b.index()]);
            let (mut s, mut c) = ([0u32; W], [0u32; W]);
            for l in 0..W {
                (s[l], c[l]) = arith::uaddc(x[l], y[l]);
            }
            ex.store(regs, *sum, &s);
            ex.store(regs, *carry, &c);
        }
        Inst::USubb { diff, borrow, a, b } => {
            let (x, y) = (regs[a.index()], regs[b.index()]);
            let (mut d, mut c) = ([0u32; W], [0u32; W]);
            for l in 0..W {
                (d[l], c[l]) = arith::usubb(x[l], y[l]);
            }
            ex.store(regs, *diff, &d);
            ex.store(regs, *borrow, &c);
        }
        Inst::Msad {
            dst,
            reference,
            src,
            accum,
        } => tri(regs, ex, *dst, *reference, *src, *accum, bits::msad),

        // ---- 64-bit integers ----
        Inst::I64Add { dst, a, b } => bin64(regs, ex, *dst, *a, *b, u64::wrapping_add),
        Inst::I64Sub { dst, a, b } => bin64(regs, ex, *dst, *a, *b, u64::wrapping_sub),
        Inst::I64Mul { dst, a, b } => bin64(regs, ex, *dst, *a, *b, u64::wrapping_mul),
        Inst::U64Div { dst, a, b } => bin64(regs, ex, *dst, *a, *b, arith::u64div),
        Inst::U64Rem { dst, a, b } => bin64(regs, ex, *dst, *a, *b, arith::u64rem),
        Inst::I64Div { dst, a, b } => bin64(regs, ex, *dst, *a, *b, arith::i64div),
        Inst::I64Rem { dst, a, b } => bin64(regs, ex, *dst, *a, *b, arith::i64rem),
        Inst::I64Shl { dst, a, b } => shift64(regs, ex, *dst, *a, *b, arith::i64shl),
        Inst::U64Shr { dst, a, b } => shift64(regs, ex, *dst, *a, *b, arith::u64shr),
        Inst::I64Shr { dst, a, b } => shift64(regs, ex, *dst, *a, *b, arith::i64shr),
        Inst::I64Cmp { cond, dst, a, b } => {
            let c = *cond;
            cmp64(regs, ex, *dst, *a, *b, |x, y| {
                float::bool_bits(arith::icmp64(c, x, y, x as i64, y as i64))
            })
        }
        Inst::I64Min { dst, a, b } => bin64(regs, ex, *dst, *a, *b, |x, y| {
            (x as i64).min(y as i64) as u64
        }),
        Inst::I64Max { dst, a, b } => bin64(regs, ex, *dst, *a, *b, |x, y| {
            (x as i64).max(y as i64) as u64
        }),
        Inst::U64Min { dst, a, b } => bin64(regs, ex, *dst, *a, *b, u64::min),
        Inst::U64Max { dst, a, b } => bin64(regs, ex, *dst, *a, *b, u64::max),
        Inst::CountBits64 { dst, src } => narrow(regs, ex, *dst, *src, u64::count_ones),
        Inst::FirstBitHi64 { dst, src } => narrow(regs, ex, *dst, *src, bits::firstbit_hi64),
        Inst::FirstBitLo64 { dst, src } => narrow(regs, ex, *dst, *src, bits::firstbit_lo64),
        Inst::FirstBitShi64 { dst, src } => narrow(regs, ex, *dst, *src, bits::firstbit_shi64),
        Inst::Bfrev64 { dst, src } => un64(regs, ex, *dst, *src, u64::reverse_bits),

        // ---- system values and lanes ----
        Inst::SysValue { sv, axis, dst } => {
            let k = usize::from(*axis).min(2);
            let r = match sv {
                SysVec::GroupId => [cx.group_id[k]; W],
                SysVec::GroupThreadId => w.gtid[k],
                SysVec::ThreadId => {
                    let base = cx.group_id[k].wrapping_mul(cx.shader.thread_group[k]);
                    w.gtid[k].map(|t| base.wrapping_add(t))
                }
            };
            ex.store(regs, *dst, &r);
        }
        Inst::GroupIndex { dst } => ex.store(regs, *dst, &w.gindex),
        Inst::LaneIndex { dst } => {
            let mut r = [0u32; W];
            for (l, x) in r.iter_mut().enumerate() {
                *x = l as u32;
            }
            ex.store(regs, *dst, &r);
        }
        Inst::LaneCount { dst } => ex.store(regs, *dst, &[W as u32; W]),

        // ---- memory ----
        Inst::LocalLoad {
            width,
            mask,
            dst,
            array,
            addr,
            offset,
        } => memory::local_load(w, *width, *mask, dst, array.index(), *addr, *offset),
        Inst::LocalStore {
            width,
            mask,
            array,
            addr,
            offset,
            src,
        } => observed!(
            w,
            cx,
            inst,
            shared,
            at,
            memory::local_store(w, *width, *mask, array.index(), *addr, *offset, src)
        ),
        Inst::ConstLoad {
            width,
            mask,
            dst,
            array,
            addr,
            offset,
        } => {
            let words = cx
                .shader
                .const_arrays
                .get(array.index())
                .map_or(&[][..], |c| &c.words[..]);
            memory::const_load(w, words, *width, *mask, dst, *addr, *offset)
        }
        Inst::SharedLoad {
            width,
            mask,
            dst,
            addr,
            offset,
        } => memory::shared_load(
            w,
            shared,
            cx.shared_bytes,
            *width,
            *mask,
            dst,
            *addr,
            *offset,
        ),
        Inst::SharedStore {
            width,
            mask,
            addr,
            offset,
            src,
        } => observed!(
            w,
            cx,
            inst,
            shared,
            at,
            memory::shared_store(
                w,
                shared,
                cx.shared_bytes,
                *width,
                *mask,
                *addr,
                *offset,
                src,
            )
        ),
        Inst::SharedAtomic { op, dst, addr, src } => observed!(
            w,
            cx,
            inst,
            shared,
            at,
            memory::shared_atomic(
                w,
                shared,
                cx.shared_bytes,
                SharedRmw::Op(*op),
                false,
                *dst,
                *addr,
                crate::ir::Reg::NONE,
                *src,
            )
        ),
        Inst::SharedCmpXchg {
            dst,
            addr,
            cmp,
            src,
        } => observed!(
            w,
            cx,
            inst,
            shared,
            at,
            memory::shared_atomic(
                w,
                shared,
                cx.shared_bytes,
                SharedRmw::CmpXchg,
                false,
                *dst,
                *addr,
                *cmp,
                *src,
            )
        ),
        Inst::SharedAtomic64 { op, dst, addr, src } => observed!(
            w,
            cx,
            inst,
            shared,
            at,
            memory::shared_atomic(
                w,
                shared,
                cx.shared_bytes,
                SharedRmw::Op(*op),
                true,
                *dst,
                *addr,
                crate::ir::Reg::NONE,
                *src,
            )
        ),
        Inst::SharedCmpXchg64 {
            dst,
            addr,
            cmp,
            src,
        } => observed!(
            w,
            cx,
            inst,
            shared,
            at,
            memory::shared_atomic(
                w,
                shared,
                cx.shared_bytes,
                SharedRmw::CmpXchg,
                true,
                *dst,
                *addr,
                *cmp,
                *src,
            )
        ),

        // ---- resources ----
        Inst::Handle { dst, range, index } => resource::handle(w, cx, *dst, range.index(), *index),
        Inst::HeapHandle {
            sampler,
            dst,
            index,
        } => resource::heap_handle(w, cx, *dst, *sampler, *index),
        // ---- DXR ray-tracing programs ----
        Inst::RayGet { value, index, dst } => {
            if let Err(e) = rays::get(w, cx, *value, *index, *dst) {
                return Step::Fail(Box::new(e));
            }
        }
        Inst::RayTrace {
            accel,
            args,
            payload,
            addr,
            offset,
            bytes,
        } => {
            let a = rays::TraceArgs {
                accel: *accel,
                args,
                payload: (*payload, *addr, *offset, *bytes),
            };
            // Observed: the payload written back is a write of the lane's array.
            observed!(w, cx, inst, shared, at, {
                if let Err(e) = rays::trace(w, cx, &a, at) {
                    return Step::Fail(Box::new(e));
                }
            })
        }
        Inst::RayCall {
            index,
            param,
            addr,
            offset,
            bytes,
        } => {
            observed!(w, cx, inst, shared, at, {
                if let Err(e) = rays::call(w, cx, *index, (*param, *addr, *offset, *bytes), at) {
                    return Step::Fail(Box::new(e));
                }
            })
        }
        Inst::RayReportHit {
            dst,
            t,
            kind,
            attrs,
            addr,
            offset,
            bytes,
        } => {
            let a = rays::ReportArgs {
                dst: *dst,
                t: *t,
                kind: *kind,
                attrs: (*attrs, *addr, *offset, *bytes),
            };
            if let Err(e) = rays::report_hit(w, cx, &a, at) {
                return Step::Fail(Box::new(e));
            }
        }
        Inst::RayHitEnd { op } => match rays::hit_end(w, cx, *op) {
            Ok(true) => {}
            Ok(false) => return Step::Empty,
            Err(e) => return Step::Fail(Box::new(e)),
        },
        // ---- shader execution reordering (SM 6.9 hit objects) ----
        Inst::HitObjectTrace {
            slot,
            dst,
            accel,
            args,
            payload,
            addr,
            offset,
            bytes,
        } => {
            let a = hit_object::TraceArgs {
                slot: (*slot, *dst),
                accel: *accel,
                args,
                payload: (*payload, *addr, *offset, *bytes),
            };
            observed!(w, cx, inst, shared, at, {
                if let Err(e) = hit_object::trace(w, cx, &a, at) {
                    return Step::Fail(Box::new(e));
                }
            })
        }
        Inst::HitObjectMiss { slot, dst, args } => hit_object::miss(w, *slot, *dst, args),
        Inst::HitObjectNop { slot, dst } => hit_object::nop(w, *slot, *dst),
        Inst::HitObjectFromQuery { slot, dst, query } => {
            hit_object::from_query(w, *slot, *dst, *query, None)
        }
        Inst::HitObjectFromQueryAttrs {
            slot,
            dst,
            query,
            kind,
            attrs,
            addr,
            offset,
            bytes,
        } => hit_object::from_query(
            w,
            *slot,
            *dst,
            *query,
            Some((*kind, (*attrs, *addr, *offset, *bytes))),
        ),
        Inst::HitObjectSetIndex {
            slot,
            dst,
            hit,
            index,
        } => hit_object::set_index(w, *slot, *dst, *hit, *index),
        Inst::HitObjectInvoke {
            hit,
            payload,
            addr,
            offset,
            bytes,
        } => {
            observed!(w, cx, inst, shared, at, {
                if let Err(e) =
                    hit_object::invoke(w, cx, *hit, (*payload, *addr, *offset, *bytes), at)
                {
                    return Step::Fail(Box::new(e));
                }
            })
        }
        Inst::HitObjectGet {
            value,
            index,
            dst,
            hit,
        } => hit_object::get(w, *value, *index, *dst, *hit),
        Inst::HitObjectLoadLocal { dst, hit, offset } => {
            if let Err(e) = hit_object::load_local(w, cx, *dst, *hit, *offset) {
                return Step::Fail(Box::new(e));
            }
        }
        Inst::HitObjectAttributes {
            hit,
            attrs,
            addr,
            offset,
            bytes,
        } => observed!(w, cx, inst, shared, at, {
            hit_object::attributes(w, *hit, (*attrs, *addr, *offset, *bytes))
        }),
        // ---- inline ray queries ----
        Inst::RayQueryAlloc { slot, flags, dst } => ray_query::alloc(w, *slot, *flags, *dst),
        Inst::RayQueryTrace {
            query,
            accel,
            flags,
            mask,
            ray,
        } => ray_query::trace(
            w,
            cx,
            &ray_query::TraceArgs {
                query: *query,
                accel: *accel,
                flags: *flags,
                mask: *mask,
                ray: **ray,
            },
        ),
        Inst::RayQueryProceed { dst, query } => {
            if let Err(e) = ray_query::proceed(w, cx, *dst, *query, at) {
                return Step::Fail(Box::new(e));
            }
        }
        Inst::RayQueryControl { op, query, t } => ray_query::control(w, *op, *query, *t),
        Inst::RayQueryGet {
            value,
            index,
            dst,
            query,
        } => ray_query::get(w, *value, *index, *dst, *query),
        Inst::RawLoad {
            width,
            mask,
            dst,
            handle,
            addr,
        } => resource::raw_load(w, cx, *width, *mask, dst, *handle, *addr),
        Inst::RawStore {
            width,
            mask,
            handle,
            addr,
            src,
        } => observed!(
            w,
            cx,
            inst,
            shared,
            at,
            resource::raw_store(w, cx, *width, *mask, *handle, *addr, src)
        ),
        Inst::StructLoad {
            width,
            mask,
            dst,
            handle,
            index,
            offset,
        } => resource::struct_load(w, cx, *width, *mask, dst, *handle, *index, *offset),
        Inst::StructStore {
            width,
            mask,
            handle,
            index,
            offset,
            src,
        } => observed!(
            w,
            cx,
            inst,
            shared,
            at,
            resource::struct_store(w, cx, *width, *mask, *handle, *index, *offset, src)
        ),
        Inst::TypedLoad {
            dst,
            handle,
            coord,
            mip,
            sample,
            offset,
            status,
        } => resource::typed_load(w, cx, dst, *handle, coord, *mip, *sample, *offset, *status),
        Inst::TypedStore {
            handle,
            coord,
            sample,
            src,
            mask,
        } => observed!(
            w,
            cx,
            inst,
            shared,
            at,
            resource::typed_store(w, cx, *handle, coord, *sample, src, *mask)
        ),
        Inst::ResAtomic {
            op,
            dst,
            handle,
            coord,
            src,
        } => observed!(
            w,
            cx,
            inst,
            shared,
            at,
            resource::res_atomic(
                w,
                cx,
                Rmw::Op(rmw(*op)),
                false,
                *dst,
                *handle,
                coord,
                crate::ir::Reg::NONE,
                *src,
            )
        ),
        Inst::ResCmpXchg {
            dst,
            handle,
            coord,
            cmp,
            src,
        } => observed!(
            w,
            cx,
            inst,
            shared,
            at,
            resource::res_atomic(w, cx, Rmw::CmpXchg, false, *dst, *handle, coord, *cmp, *src)
        ),
        Inst::ResAtomic64 {
            op,
            dst,
            handle,
            coord,
            src,
        } => observed!(
            w,
            cx,
            inst,
            shared,
            at,
            resource::res_atomic(
                w,
                cx,
                Rmw::Op(rmw(*op)),
                true,
                *dst,
                *handle,
                coord,
                crate::ir::Reg::NONE,
                *src,
            )
        ),
        Inst::ResCmpXchg64 {
            dst,
            handle,
            coord,
            cmp,
            src,
        } => observed!(
            w,
            cx,
            inst,
            shared,
            at,
            resource::res_atomic(w, cx, Rmw::CmpXchg, true, *dst, *handle, coord, *cmp, *src)
        ),
        Inst::CounterInc { dst, handle } => resource::counter(w, cx, *dst, *handle, true),
        Inst::CounterDec { dst, handle } => resource::counter(w, cx, *dst, *handle, false),
        Inst::CbLoad {
            width,
            mask,
            dst,
            handle,
            addr,
            offset,
        } => resource::cb_load(w, cx, *width, *mask, dst, *handle, *addr, *offset),
        Inst::Dimensions { dst, handle, mip } => resource::dimensions(w, cx, dst, *handle, *mip),
        Inst::SampleCount { dst, handle } => resource::sample_count(w, cx, *dst, *handle),
        Inst::SamplePos { dst, handle, index } => resource::sample_pos(w, cx, dst, *handle, *index),

        // ---- sampling ----
        Inst::Sample { mode, args } => sample::sample(w, cx, *mode, args),
        Inst::Gather {
            mode,
            channel,
            args,
        } => sample::gather(w, cx, *mode, *channel, args),
        Inst::GatherRaw { bits, word, args } => sample::gather_raw(w, cx, *bits, *word, args),
        Inst::WriteFeedback {
            mode,
            feedback,
            args,
        } => sample::write_feedback(w, cx, *mode, *feedback, args),
        Inst::Lod {
            dst,
            texture,
            sampler,
            coord,
        } => sample::lod(w, cx, dst, *texture, *sampler, coord),

        // ---- waves and quads ----
        Inst::WaveReduce { op, ty, dst, src } => wave_ops::reduce(w, cx, *op, *ty, *dst, *src),
        Inst::WavePrefix { op, ty, dst, src } => wave_ops::prefix(w, cx, *op, *ty, *dst, *src),
        Inst::WaveAnyTrue { dst, src } => wave_ops::any_all(w, *dst, *src, false),
        Inst::WaveAllTrue { dst, src } => wave_ops::any_all(w, *dst, *src, true),
        Inst::WaveAllEqual { wide, dst, src } => wave_ops::all_equal(w, *wide, *dst, *src),
        Inst::WaveBallot { dst, src } => wave_ops::ballot(w, dst, *src),
        Inst::WaveCountBits { dst, src } => wave_ops::count_bits(w, *dst, *src, false),
        Inst::WavePrefixCountBits { dst, src } => wave_ops::count_bits(w, *dst, *src, true),
        Inst::WaveReadLane {
            wide,
            dst,
            src,
            lane,
        } => wave_ops::read_lane(w, cx, *wide, *dst, *src, *lane),
        Inst::WaveReadFirst { wide, dst, src } => wave_ops::read_first(w, *wide, *dst, *src),
        Inst::WaveIsFirstLane { dst } => wave_ops::is_first(w, *dst),
        Inst::WaveMatch { wide, dst, src } => wave_ops::matching(w, *wide, dst, *src),
        Inst::WaveMultiPrefix {
            op,
            ty,
            dst,
            src,
            mask,
        } => wave_ops::multi_prefix(w, cx, *op, *ty, *dst, *src, mask),
        Inst::WaveMultiPrefixCountBits { dst, src, mask } => {
            wave_ops::multi_prefix_count(w, *dst, *src, mask)
        }
        Inst::QuadReadLane {
            wide,
            dst,
            src,
            lane,
        } => wave_ops::quad_read_lane(w, cx, *wide, *dst, *src, *lane),
        Inst::QuadSwap {
            dir,
            wide,
            dst,
            src,
        } => wave_ops::quad_swap(w, cx, *dir, *wide, *dst, *src),
        Inst::QuadVote { all, dst, src } => wave_ops::quad_vote(w, *all, *dst, *src),

        // ---- stage inputs and outputs ----
        Inst::Input { dst, slot } => {
            let base = *slot as usize * W;
            let mut r = [0u32; W];
            r.copy_from_slice(&w.inputs[base..base + W]);
            ex.store(regs, *dst, &r);
        }
        Inst::InputIndexed {
            dst,
            slot,
            index,
            rows,
        } => {
            let idx = regs[index.index()];
            let mut r = [0u32; W];
            for l in lanes(ex.mask) {
                if idx[l] < *rows {
                    r[l] = w.inputs[(*slot + 4 * idx[l]) as usize * W + l];
                }
            }
            ex.store(regs, *dst, &r);
        }
        Inst::Output { slot, src } => {
            // A select over all lanes (`store`'s form), which the compiler vectorises;
            // inactive lanes keep what they had.
            let v = &regs[src.index()];
            let out = &mut w.outputs[*slot as usize * W..][..W];
            for l in 0..W {
                out[l] = (v[l] & ex.sel[l]) | (out[l] & !ex.sel[l]);
            }
        }
        Inst::Emit { stream } => {
            // The output words are left as they are: the emit reference page makes them
            // undefined after an emit, and keeping them is what costs nothing.
            for l in lanes(ex.mask) {
                w.emits.vertex(l, *stream, &w.outputs);
            }
        }
        Inst::Cut { stream } => {
            for l in lanes(ex.mask) {
                w.emits.cut(l, *stream);
            }
        }
        Inst::OutputIndexed {
            slot,
            index,
            rows,
            src,
        } => {
            let (idx, v) = (regs[index.index()], regs[src.index()]);
            for l in lanes(ex.mask) {
                if idx[l] < *rows {
                    w.outputs[(*slot + 4 * idx[l]) as usize * W + l] = v[l];
                }
            }
        }
        Inst::Eval {
            at,
            dst,
            slot,
            index,
            rows,
            arg,
        } => {
            let row = |l: usize| {
                if index.is_none() {
                    0
                } else {
                    regs[index.index()][l]
                }
            };
            let argv = |k: usize, l: usize| {
                if arg[k].is_none() {
                    0
                } else {
                    regs[arg[k].index()][l]
                }
            };
            let mut r = [0u32; W];
            for l in lanes(ex.mask) {
                let row = row(l);
                if row >= *rows {
                    continue;
                }
                let word = *slot + 4 * row;
                r[l] = match cx.pixel {
                    Some(p) => p.eval(w.tags[l], word, *at, [argv(0, l), argv(1, l)]),
                    None => w.inputs[word as usize * W + l],
                };
            }
            ex.store(regs, *dst, &r);
        }
        Inst::RasterSampleCount { dst } => {
            let n = cx.pixel.map_or(1, |p| p.sample_count());
            un(regs, ex, *dst, *dst, |_| n);
        }
        Inst::RasterSamplePos { dst, index } => {
            let idx = regs[index.index()];
            let (mut x, mut y) = ([0u32; W], [0u32; W]);
            for l in lanes(ex.mask) {
                let [px, py] = cx.pixel.map_or([0.0; 2], |p| p.sample_position(idx[l]));
                x[l] = px.to_bits();
                y[l] = py.to_bits();
            }
            for (d, v) in dst.iter().zip([&x, &y]) {
                if !d.is_none() {
                    ex.store(regs, *d, v);
                }
            }
        }

        // ---- mesh and amplification ----
        Inst::MeshCounts {
            vertices,
            primitives,
        } => mesh::counts(w, cx, shared, *vertices, *primitives),
        Inst::MeshIndices { prim, v } => mesh::indices(w, cx, shared, *prim, v),
        Inst::MeshVertexOut {
            slot,
            row,
            rows,
            vertex,
            src,
        } => mesh::output(w, cx, shared, true, *slot, (*row, *rows), *vertex, *src),
        Inst::MeshPrimOut {
            slot,
            row,
            rows,
            prim,
            src,
        } => mesh::output(w, cx, shared, false, *slot, (*row, *rows), *prim, *src),
        Inst::DispatchMesh { groups, payload } => {
            mesh::dispatch(w, cx, shared, groups, *payload);
            return Step::Barrier;
        }

        // ---- synchronisation and lane control ----
        Inst::Barrier { group_sync, .. } => {
            // Memory is always coherent here (relaxed atomics, one thread per group), so only
            // the execution barrier matters.
            if *group_sync {
                return Step::Barrier;
            }
        }
        Inst::Discard { cond } => {
            if !control::discard(w, *cond) {
                return Step::Empty;
            }
        }
        Inst::Demote { cond } => control::demote(w, *cond),
        Inst::IsHelper { dst } => {
            let mut r = [0u32; W];
            for (l, x) in r.iter_mut().enumerate() {
                *x = float::bool_bits((w.helper >> l) & 1 == 1);
            }
            ex.store(regs, *dst, &r);
        }
        Inst::CycleCounter { dst } => {
            let mut c = [0u64; W];
            for (l, x) in c.iter_mut().enumerate() {
                *x = w.steps - w.idle[l];
            }
            w.ex.store64(&mut w.regs, *dst, &c);
        }
    }
    Step::Next
}

/// `fcmp`, with the condition chosen once per instruction so that the lane loop is one
/// vector compare (the rule per condition is [`float::cmp`]'s).
#[inline(always)]
fn fcmp<const W: usize, const FTZ: bool>(
    regs: &mut [[u32; W]],
    ex: &super::wave::Exec<W>,
    cond: crate::ir::FCond,
    d: crate::ir::Reg,
    a: crate::ir::Reg,
    b: crate::ir::Reg,
) {
    use crate::ir::FCond as C;
    macro_rules! go {
        ($f:expr) => {
            bin(regs, ex, d, a, b, |x, y| {
                float::bool_bits($f(float::input::<FTZ>(x), float::input::<FTZ>(y)))
            })
        };
    }
    match cond {
        C::Eq => go!(|x: f32, y: f32| x == y),
        C::Lt => go!(|x: f32, y: f32| x < y),
        C::Ge => go!(|x: f32, y: f32| x >= y),
        C::Ne => go!(|x: f32, y: f32| x != y),
        C::Le => go!(|x: f32, y: f32| x <= y),
        C::Gt => go!(|x: f32, y: f32| x > y),
        // The rarer conditions keep the general rule.
        c => bin(regs, ex, d, a, b, |x, y| float::cmp::<FTZ>(c, x, y)),
    }
}

/// `icmp`, with the condition chosen once per instruction.
#[inline(always)]
fn icmp<const W: usize>(
    regs: &mut [[u32; W]],
    ex: &super::wave::Exec<W>,
    cond: crate::ir::ICond,
    d: crate::ir::Reg,
    a: crate::ir::Reg,
    b: crate::ir::Reg,
) {
    use crate::ir::ICond as C;
    macro_rules! go {
        ($f:expr) => {
            bin(regs, ex, d, a, b, |x, y| float::bool_bits($f(x, y)))
        };
    }
    match cond {
        C::Eq => go!(|x: u32, y: u32| x == y),
        C::Ne => go!(|x: u32, y: u32| x != y),
        C::SLt => go!(|x: u32, y: u32| (x as i32) < (y as i32)),
        C::SLe => go!(|x: u32, y: u32| (x as i32) <= (y as i32)),
        C::SGt => go!(|x: u32, y: u32| (x as i32) > (y as i32)),
        C::SGe => go!(|x: u32, y: u32| (x as i32) >= (y as i32)),
        C::ULt => go!(|x: u32, y: u32| x < y),
        C::ULe => go!(|x: u32, y: u32| x <= y),
        C::UGt => go!(|x: u32, y: u32| x > y),
        C::UGe => go!(|x: u32, y: u32| x >= y),
    }
}

/// `funary`, with the flush form and the function chosen once per instruction (not per
/// lane).
#[inline(always)]
fn funary<const W: usize>(
    regs: &mut [[u32; W]],
    ex: &super::wave::Exec<W>,
    ftz: bool,
    op: FUnOp,
    d: crate::ir::Reg,
    a: crate::ir::Reg,
) {
    if ftz {
        funary_ftz::<W, true>(regs, ex, op, d, a)
    } else {
        funary_ftz::<W, false>(regs, ex, op, d, a)
    }
}

#[inline(always)]
fn funary_ftz<const W: usize, const FTZ: bool>(
    regs: &mut [[u32; W]],
    ex: &super::wave::Exec<W>,
    op: FUnOp,
    d: crate::ir::Reg,
    a: crate::ir::Reg,
) {
    macro_rules! each {
        ($($v:ident),*) => {
            match op {
                $(FUnOp::$v => un(regs, ex, d, a, |x| float::unary::<FTZ>(FUnOp::$v, x)),)*
            }
        };
    }
    each!(
        Sqrt, Rsq, Rcp, Exp2, Log2, Sin, Cos, Tan, Asin, Acos, Atan, Sinh, Cosh, Tanh, RoundNe,
        Floor, Ceil, Trunc, Frac, Sat
    )
}
