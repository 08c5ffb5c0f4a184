//! The native engine: a shader's arithmetic, and the control flow between blocks made
//! only of arithmetic, compiled to machine code with Cranelift and run in place of the
//! interpreter's arms for them.
//!
//! Owns: choosing which instructions are compiled ([`select`]) and which blocks run
//! with their control flow ([`region`]), emitting them as 128-bit vector code
//! (`emit`, [`region`]), the scalar rules the generated code calls (`shim`), and the
//! one place generated code is entered (`call`). Does not own: memory, resources,
//! wave and quad operations, stage inputs and outputs, barriers, discard — those stay in
//! the interpreter (`exec::interp`, `exec::control`), so the two engines cannot disagree
//! on them; the control-flow rules the region code follows are `exec::control`'s, step
//! by step (see [`region`]).
//!
//! # Segments
//!
//! A **segment** is a maximal run of compilable instructions inside one block (cut at
//! [`MAX_SEGMENT`] instructions so that compile time stays linear). Each becomes one
//! function `fn(regs: *mut u32, sel: *const u32)` over a whole wave of `W` lanes: it
//! walks the wave four lanes at a time (one `I32X4`/`F32X4` vector per register),
//! two such chunks per iteration for instruction-level parallelism, keeps every value in
//! machine registers inside the chunk, and at the end stores each register the segment
//! wrote through the execution mask exactly as `Exec::store` does: `(new & sel) |
//! (old & !sel)`, so inactive lanes' registers are never changed. Inactive lanes compute
//! values too (as in the interpreter), but only lane-wise instructions are compiled, so
//! those values never reach an active lane.
//!
//! When the interpreter's block loop reaches the first instruction of a segment it calls
//! the segment's function and continues after it. Budgets are charged per block before
//! any instruction runs (`control::charge`), and segments hold no resource access (so
//! `exec::unbound` has nothing to check in them): both behave exactly as before.
//!
//! # Regions
//!
//! Blocks made only of compilable instructions, ending in a jump, branch, switch or
//! return, are *native*; one function per shader runs them with the interpreter's
//! charging, terminators and scheduling ([`region`]). The interpreter's block loop calls
//! it when the wave is at the start of a native block and takes over again at the start
//! of the block it returns at.
//!
//! # Rules
//!
//! Each rule of `exec::{float, convert, arith, bits}` is either emitted inline where
//! Cranelift has the exact operation (see `emit` for each, with why it matches), or
//! called through a `shim` that is the interpreter's own function. Instructions neither
//! way covers (64-bit arithmetic, the profile's fp16 rounding) end the segment and run in
//! the interpreter. The equivalence property test (`tests/all/jit.rs`) compares the two
//! engines bit for bit on random programs.
//!
//! # Platforms
//!
//! Only x86-64 hosts compile: NaN propagation (which operand's payload a NaN result
//! carries, the default NaN's bits) is the host's, and the inline code follows x86's.
//! Elsewhere every shader runs in the interpreter with a note.

mod call;
mod emit;
pub mod region;
pub mod select;
mod shim;

use std::fmt;
use std::str::FromStr;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};
use std::time::{Duration, Instant};

use crate::ir::{Inst, Shader};

use super::wave::{Wave, WaveState, lanes};

/// The most instructions in one segment; longer runs are cut into several.
pub const MAX_SEGMENT: usize = 256;

/// The most compilable instructions in one shader; a larger shader runs in the
/// interpreter with a note rather than spending long in the compiler.
pub const MAX_SHADER_INSTS: usize = 50_000;

/// Compile time one shader may take; segments past it stay interpreted.
pub const COMPILE_BUDGET: Duration = Duration::from_secs(5);

/// Which engine runs a shader's instructions.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub enum Engine {
    /// Native code for arithmetic, the interpreter for the rest (the default).
    #[default]
    Jit,
    /// The interpreter only (the reference; what the debugger runs).
    Interp,
}

impl Engine {
    /// The names `--engine` and `[options] engine` accept.
    pub const NAMES: &'static [&'static str] = &["jit", "interp"];
}

impl fmt::Display for Engine {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Engine::Jit => "jit",
            Engine::Interp => "interp",
        })
    }
}

impl FromStr for Engine {
    type Err = String;
    fn from_str(s: &str) -> Result<Engine, String> {
        match s {
            "jit" => Ok(Engine::Jit),
            "interp" => Ok(Engine::Interp),
            _ => Err(format!(
                "unknown engine \"{s}\" (known: {})",
                Engine::NAMES.join(", ")
            )),
        }
    }
}

/// What compiling one shader did: coverage, time, and why anything was left to the
/// interpreter.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct JitReport {
    /// Instructions compiled to native code.
    pub native: usize,
    /// Instructions the interpreter runs.
    pub interpreted: usize,
    /// Segment functions made (straight-line runs inside one block).
    pub segments: usize,
    /// Region functions made (0 or 1: see [`region`]).
    pub regions: usize,
    /// Blocks of the shader.
    pub blocks: usize,
    /// Blocks run natively with their control flow (the region's blocks).
    pub native_blocks: usize,
    /// So far in the run: blocks the region code ran (each charge of a block counts once).
    pub native_block_runs: u64,
    /// So far in the run: lane-instructions the region code ran (each block's
    /// instructions and terminator, times its active lanes, as `control::charge` counts).
    pub native_lane_instructions: u64,
    /// Compile time: what this program spent getting its code (next to nothing when
    /// `reused`).
    pub compile_time: Duration,
    /// The code was compiled earlier in this process, for an equal shader and the same
    /// [`Key`], and is shared (see [`JitShader::compile_cached`]).
    pub reused: bool,
    /// The instructions left to the interpreter, by mnemonic, most frequent first.
    pub interpreted_ops: Vec<(String, usize)>,
    /// Why the shader (or part of it) was not compiled, when it was not.
    pub fallback: Option<String>,
}

impl fmt::Display for JitReport {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "jit: {} of {} instructions native in {} segments, ",
            self.native,
            self.native + self.interpreted,
            self.segments,
        )?;
        if self.reused {
            write!(f, "compiled earlier in this process")?;
        } else {
            write!(
                f,
                "compiled in {:.1} ms",
                self.compile_time.as_secs_f64() * 1e3
            )?;
        }
        if self.regions > 0 {
            write!(
                f,
                "; {} of {} blocks native with their control flow ({} block runs)",
                self.native_blocks, self.blocks, self.native_block_runs
            )?;
        }
        if !self.interpreted_ops.is_empty() {
            let ops: Vec<String> = self
                .interpreted_ops
                .iter()
                .take(8)
                .map(|(m, n)| format!("{m} ×{n}"))
                .collect();
            write!(f, "; interpreted: {}", ops.join(", "))?;
            if self.interpreted_ops.len() > 8 {
                write!(f, ", …")?;
            }
        }
        if let Some(why) = &self.fallback {
            write!(f, "; {why}")?;
        }
        Ok(())
    }
}

/// The native code a program of `shader` runs under `engine` (none for the
/// interpreter), compiled for `key`: what `exec::Program` and `exec::StageProgram` hold
/// and share between their runners.
pub fn compile_for(engine: Engine, shader: &Shader, key: Key) -> Option<std::sync::Arc<JitShader>> {
    match engine {
        Engine::Interp => None,
        Engine::Jit => Some(std::sync::Arc::new(JitShader::compile_cached(shader, key))),
    }
}

/// Slots of a [`JitShader`]'s run counters.
const COUNTER_SLOTS: usize = 16;

/// This thread's slot among a [`JitShader`]'s run counters: threads numbered as they first
/// ask, so that up to [`COUNTER_SLOTS`] workers never share one.
fn counter_slot() -> usize {
    static NEXT: AtomicUsize = AtomicUsize::new(0);
    thread_local! {
        static SLOT: usize = NEXT.fetch_add(1, Ordering::Relaxed) % COUNTER_SLOTS;
    }
    SLOT.with(|s| *s)
}

/// Whether native code for `insts` under `key` runs with the processor reading denormal
/// operands as zero, which makes flushing cheap (see `emit::daz`): a flushing shader, a
/// host with the DAZ bit, and no instruction that calls one of the interpreter's float
/// rules.
pub fn reads_denormals_as_zero(key: Key, insts: &[Inst]) -> bool {
    emit::daz(key, insts)
}

/// The compile-time parameters a shader's native code depends on.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Key {
    /// Lanes per wave.
    pub width: u32,
    /// Whether 32-bit float arithmetic flushes denormals.
    pub ftz: bool,
    /// Whether `fmad` is fused (the profile's choice).
    pub fuse_mad: bool,
}

/// One compiled segment.
#[derive(Debug, Clone, Copy)]
struct Segment {
    /// The instruction after the segment.
    end: u32,
    /// Its entry point.
    func: call::Entry,
}

/// A shader's region function and the blocks it runs.
struct Region {
    func: call::Entry,
    /// For each block: whether it is in the region.
    native: Vec<bool>,
}

/// A shader's native code for one [`Key`], as compiled: shared by every program of an
/// equal shader and key in the process ([`JitShader::compile_cached`]).
struct Native {
    key: Key,
    /// For each instruction index: 1 + the segment starting there, or 0.
    starts: Vec<u32>,
    segments: Vec<Segment>,
    region: Option<Region>,
    report: JitReport,
    _code: call::Code,
    _region_code: call::Code,
}

/// A program's native code for one [`Key`]: shared by every worker thread of a run.
pub struct JitShader {
    native: Arc<Native>,
    /// What getting the code cost this program, and whether it was reused.
    compile_time: Duration,
    reused: bool,
    /// Blocks and lane-instructions the region ran, for the report: one slot per worker
    /// thread (by [`counter_slot`]), each on a cache line of its own, since adding to one
    /// shared counter after every region call passed its line between the cores. Made
    /// at the first region run that counts a block: a command list's draws each make a
    /// program, most of which never run a loop, and allocating and zeroing the 2 KiB of
    /// slots for each cost a one-triangle draw more than its triangle's setup.
    counts: std::sync::OnceLock<Box<Counters>>,
}

/// A [`JitShader`]'s run counters, one cache-padded slot per worker.
type Counters = [crossbeam::utils::CachePadded<[AtomicU64; 2]>; COUNTER_SLOTS];

/// What a [`JitShader`]'s report line depends on, compared without making the report
/// (which copies the compiled code's notes): equal keys give equal reports. It holds
/// the compiled code, so that a key kept by a cache names that code for as long as the
/// key lives.
#[derive(Clone)]
pub struct ReportKey {
    native: Arc<Native>,
    runs: [u64; 2],
    compile_time: Duration,
    reused: bool,
}

impl PartialEq for ReportKey {
    fn eq(&self, o: &ReportKey) -> bool {
        Arc::ptr_eq(&self.native, &o.native)
            && self.runs == o.runs
            && self.compile_time == o.compile_time
            && self.reused == o.reused
    }
}

impl ReportKey {
    /// What getting the code cost the program it was made of.
    pub fn compile_time(&self) -> Duration {
        self.compile_time
    }
}

impl fmt::Debug for ReportKey {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("ReportKey")
            .field("runs", &self.runs)
            .field("compile_time", &self.compile_time)
            .field("reused", &self.reused)
            .finish_non_exhaustive()
    }
}

impl fmt::Debug for JitShader {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("JitShader")
            .field("key", &self.native.key)
            .field("report", &self.report())
            .finish_non_exhaustive()
    }
}

/// How many compiled shaders [`JitShader::compile_cached`] keeps.
pub const CACHED_SHADERS: usize = 64;

/// The compiled shaders kept for reuse, least recently used first.
type Cache = Vec<(Key, Arc<Shader>, Arc<Native>)>;

/// Drops every compiled shader kept for reuse ([`JitShader::compile_cached`]): the next
/// program of each shader compiles afresh. Code in use stays alive with its programs.
/// For timing a compile, and for a long-lived host that wants the memory back.
pub fn clear_cache() {
    cache().lock().unwrap_or_else(|e| e.into_inner()).clear();
}

fn cache() -> &'static Mutex<Cache> {
    static CACHE: OnceLock<Mutex<Cache>> = OnceLock::new();
    CACHE.get_or_init(|| Mutex::new(Vec::new()))
}

impl JitShader {
    /// [`JitShader::compile`], reusing the code compiled earlier in the process for an
    /// equal shader (`==`: every instruction, register, declaration) and the same
    /// [`Key`] — the code depends on nothing else — as a driver compiles a shader once,
    /// when it is created, not at every draw. The last [`CACHED_SHADERS`] shaders
    /// compiled or reused are kept; the run counters are the program's own either way.
    /// Two threads asking for the same new shader at once may both compile it; the
    /// results are the same.
    pub fn compile_cached(shader: &Shader, key: Key) -> JitShader {
        let started = Instant::now();
        let lock = || cache().lock().unwrap_or_else(|e| e.into_inner());
        let hit = {
            let mut c = lock();
            let at = c.iter().position(|(k, s, _)| *k == key && **s == *shader);
            at.map(|i| {
                // Most recently used last.
                let e = c.remove(i);
                let native = e.2.clone();
                c.push(e);
                native
            })
        };
        if let Some(native) = hit {
            return JitShader::from_native(native, started.elapsed(), true);
        }
        let fresh = JitShader::compile(shader, key);
        let mut c = lock();
        if !c.iter().any(|(k, s, _)| *k == key && **s == *shader) {
            if c.len() >= CACHED_SHADERS {
                c.remove(0);
            }
            c.push((key, Arc::new(shader.clone()), fresh.native.clone()));
        }
        fresh
    }

    /// The same native code with run counters of its own, reported as reused: what
    /// [`JitShader::compile_cached`] gives a program of an equal shader and key made
    /// again, without looking the shader up (a command list's later draws of one
    /// program, `pipeline::pso`).
    pub fn again(&self) -> JitShader {
        JitShader::from_native(self.native.clone(), Duration::ZERO, true)
    }

    fn from_native(native: Arc<Native>, compile_time: Duration, reused: bool) -> JitShader {
        JitShader {
            native,
            compile_time,
            reused,
            counts: std::sync::OnceLock::new(),
        }
    }

    /// Compiles the segments of `shader` (already validated by `ir::validate`). Never
    /// fails: what cannot be compiled is left to the interpreter and said in the report.
    pub fn compile(shader: &Shader, key: Key) -> JitShader {
        let started = Instant::now();
        let n = shader.insts.len();
        let mut starts = vec![0u32; n];
        let mut segments = Vec::new();
        let mut report = JitReport::default();
        let runs = select::segments(shader);
        let total: usize = runs.iter().map(|r| r.len()).sum();
        let mut code = call::Code::empty();
        let why = if !cfg!(target_arch = "x86_64") {
            Some("the native engine compiles for x86-64 only; interpreted".to_string())
        } else if total > MAX_SHADER_INSTS {
            Some(format!(
                "{total} compilable instructions is more than the native engine's limit of {MAX_SHADER_INSTS}; interpreted"
            ))
        } else if (shader.num_regs as u64) * u64::from(key.width) * 4 > i32::MAX as u64 / 2 {
            Some("registers too large for the native engine; interpreted".to_string())
        } else {
            None
        };
        let mut compiled = vec![false; n];
        let lazy = emit::lazy_at_exit(shader);
        let flushed = emit::flushed_at_blocks(shader, &lazy);
        let unmasked = emit::unmasked(shader);
        let compiling = why.is_none();
        if compiling {
            match call::Compiler::new() {
                Err(e) => report.fallback = Some(format!("no native code: {e}; interpreted")),
                Ok(mut c) => {
                    let mut pending = Vec::new();
                    for r in &runs {
                        if started.elapsed() > COMPILE_BUDGET {
                            report.fallback = Some(format!(
                                "compile budget of {} s spent; later segments interpreted",
                                COMPILE_BUDGET.as_secs()
                            ));
                            break;
                        }
                        let insts = &shader.insts[r.clone()];
                        let block = shader
                            .blocks
                            .iter()
                            .position(|b| (b.start as usize..b.end as usize).contains(&r.start))
                            .unwrap_or(0);
                        let before = emit::flushed_before(shader, &flushed, block, r.start);
                        let facts = emit::Facts {
                            flushed: &before,
                            local: unmasked.get(block).map_or(&[][..], |u| &u[..]),
                            // Interpreted instructions of the block may follow.
                            dead: &[],
                            lazy: &[],
                            full: false,
                        };
                        match c.add(shader, insts, key, facts) {
                            Ok(id) => pending.push((r.clone(), id)),
                            Err(e) => {
                                report.fallback =
                                    Some(format!("a segment did not compile ({e}); interpreted"))
                            }
                        }
                    }
                    match c.finish() {
                        Ok((c, entries)) => {
                            code = c;
                            for (r, id) in pending {
                                let Some(&func) = entries.get(id) else {
                                    continue;
                                };
                                starts[r.start] = segments.len() as u32 + 1;
                                segments.push(Segment {
                                    end: r.end as u32,
                                    func,
                                });
                                for x in &mut compiled[r] {
                                    *x = true;
                                }
                            }
                        }
                        Err(e) => {
                            report.fallback = Some(format!("no native code: {e}; interpreted"))
                        }
                    }
                }
            }
        } else {
            report.fallback = why;
        }
        let mut region = None;
        let mut region_code = call::Code::empty();
        report.blocks = shader.blocks.len();
        if compiling && started.elapsed() <= COMPILE_BUDGET {
            let native: Vec<bool> = (0..shader.blocks.len())
                .map(|b| region::native(shader, b))
                .collect();
            let count = native.iter().filter(|&&n| n).count();
            let size = region::size(shader, &native, key.width);
            if count > 0 && size > region::MAX_REGION_SIZE {
                report.fallback = Some(format!(
                    "the control flow is too large for the native engine (about {size} operations, limit {}); blocks interpreted",
                    region::MAX_REGION_SIZE
                ));
            } else if count > 0 {
                // A module of its own, so that a region Cranelift refuses leaves the
                // segments working.
                let made = call::Compiler::new().and_then(|mut c| {
                    let id = c.add_region(
                        shader,
                        &native,
                        key,
                        &flushed,
                        &unmasked,
                        &emit::dead_at_exit(shader),
                        &lazy,
                    )?;
                    let (code, entries) = c.finish()?;
                    let func = *entries.get(id).ok_or("no region entry")?;
                    Ok((code, func))
                });
                match made {
                    Ok((code, func)) => {
                        region_code = code;
                        region = Some(Region { func, native });
                        report.regions = 1;
                        report.native_blocks = count;
                    }
                    Err(e) => {
                        report.fallback = Some(format!(
                            "the control flow did not compile ({e}); blocks interpreted"
                        ))
                    }
                }
            }
        }
        let mut ops: std::collections::BTreeMap<&'static str, usize> = Default::default();
        for (inst, &c) in shader.insts.iter().zip(&compiled) {
            if c {
                report.native += 1;
            } else {
                report.interpreted += 1;
                *ops.entry(inst.mnemonic()).or_default() += 1;
            }
        }
        let mut ops: Vec<(String, usize)> = ops.into_iter().map(|(m, n)| (m.into(), n)).collect();
        ops.sort_by(|a, b| b.1.cmp(&a.1).then_with(|| a.0.cmp(&b.0)));
        report.interpreted_ops = ops;
        report.segments = segments.len();
        report.compile_time = started.elapsed();
        let native = Native {
            key,
            starts,
            segments,
            region,
            report,
            _code: code,
            _region_code: region_code,
        };
        let time = native.report.compile_time;
        JitShader::from_native(Arc::new(native), time, false)
    }

    /// The parameters the code was compiled for.
    pub fn key(&self) -> Key {
        self.native.key
    }

    /// Blocks and lane-instructions the region code has run so far.
    fn runs(&self) -> [u64; 2] {
        let Some(counts) = self.counts.get() else {
            return [0; 2];
        };
        [0, 1].map(|k| counts.iter().map(|c| c[k].load(Ordering::Relaxed)).sum())
    }

    /// The key of [`report`](Self::report)'s value as it stands now.
    pub fn report_key(&self) -> ReportKey {
        ReportKey {
            native: self.native.clone(),
            runs: self.runs(),
            compile_time: self.compile_time,
            reused: self.reused,
        }
    }

    /// Coverage and compile time, and what the region code has run so far.
    pub fn report(&self) -> JitReport {
        let [native_block_runs, native_lane_instructions] = self.runs();
        JitReport {
            native_block_runs,
            native_lane_instructions,
            compile_time: self.compile_time,
            reused: self.reused,
            ..self.native.report.clone()
        }
    }

    /// Whether block `b` is in the region (runs natively with its control flow).
    #[inline(always)]
    pub(crate) fn native_block(&self, b: usize) -> bool {
        self.native
            .region
            .as_ref()
            .is_some_and(|r| r.native.get(b).copied().unwrap_or(false))
    }

    /// Runs the region from the start of the wave's current block (not yet charged), as
    /// the interpreter's block loop would (see [`region`]): afterwards the wave is done or
    /// at the start of its current block, not yet charged, with every field as the
    /// interpreter leaves it there.
    pub(crate) fn run_region<const W: usize>(&self, w: &mut Wave<W>, shader: &Shader, limit: u64) {
        let Some(r) = &self.native.region else {
            return;
        };
        let mut live = [0u32; W];
        crate::exec::wave::mask_words(w.live, &mut live);
        let mask = w.ex.mask;
        let mut st = region::State {
            steps: w.steps,
            executed: w.executed,
            limit,
            pending: 0,
            blocks: 0,
            cur: w.cur,
            waiting_min: w.waiting_min,
            count: mask.count_ones(),
            idle_any: u32::from(w.live & !mask != 0),
        };
        let before = w.executed;
        let Some(code) = call::enter_region(
            r.func,
            &mut w.regs,
            &mut w.ex.sel,
            &mut w.next,
            &mut live,
            &mut w.idle,
            &mut st,
            &mut [0u32; W],
        ) else {
            return;
        };
        let (lv, m) = (
            crate::exec::wave::words_mask(&live),
            crate::exec::wave::words_mask(&w.ex.sel),
        );
        w.live = lv;
        if st.pending != 0 {
            for l in lanes(lv & !m) {
                w.idle[l] += st.pending;
            }
        }
        w.steps = st.steps;
        w.executed = st.executed;
        w.cur = st.cur;
        w.waiting_min = st.waiting_min;
        if let Some(b) = shader.blocks.get(st.cur as usize) {
            w.pc = b.start;
        }
        if code == region::FINISHED {
            w.state = WaveState::Done;
            w.ex.set(0);
        } else {
            w.ex.set(m);
        }
        if st.blocks != 0 {
            let counts = self
                .counts
                .get_or_init(|| Box::new(std::array::from_fn(|_| Default::default())));
            let c = &counts[counter_slot()];
            c[0].fetch_add(st.blocks, Ordering::Relaxed);
            c[1].fetch_add(st.executed - before, Ordering::Relaxed);
        }
    }

    /// Runs the segment starting at instruction `pc`, if there is one, on the active lanes
    /// of a `W`-wide wave; returns the instruction after it.
    #[inline(always)]
    pub(crate) fn run_at<const W: usize>(
        &self,
        pc: usize,
        regs: &mut [[u32; W]],
        sel: &[u32; W],
    ) -> Option<usize> {
        let s = *self.native.starts.get(pc)?;
        let seg = self.native.segments.get(s.checked_sub(1)? as usize)?;
        call::enter(seg.func, regs, sel).then_some(seg.end as usize)
    }
}
