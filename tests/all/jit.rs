//! The native engine against the interpreter, bit for bit: random IR programs built from
//! every compilable instruction, on hostile values (NaN payloads, signalling NaNs,
//! denormals, ±0, ±∞, `INT_MIN`, shift counts of 32 and more), with divergent `if`s and
//! loops of lane-dependent length, at every wave size, with both denormal modes and both
//! `fmad` profiles. Each program stores every working register of every thread; the two
//! engines' buffers must be identical.

use dxlane::exec::Profile;
use dxlane::exec::jit::Engine;
use dxlane::pipeline::Plan;
use proptest::prelude::*;

use super::exec::{run, shader, structured, words};

/// Values that break naive arithmetic.
const HOSTILE: &[u32] = &[
    0x0000_0000,
    0x8000_0000,
    0x0000_0001,
    0x8000_0001,
    0x007f_ffff,
    0x807f_ffff,
    0x0040_0000,
    0x0080_0000,
    0x8080_0000,
    0x7f7f_ffff,
    0xff7f_ffff,
    0x7f80_0000,
    0xff80_0000,
    0x7fc0_0000,
    0xffc0_0000,
    0x7fc0_0001,
    0xffc1_2345,
    0x7f80_0001,
    0xff80_0123,
    0x7fbf_ffff,
    0x3f80_0000,
    0xbf80_0000,
    0x3f00_0000,
    0x3f7f_ffff,
    0x4b00_0000,
    0xcf00_0000,
    0x4f00_0000,
    0x4f80_0000,
    0x3fc0_0000,
    0xbfc0_0000,
    0x7fff_ffff,
    0xffff_ffff,
    0x0000_001f,
    0x0000_0020,
    0x0000_0021,
    0x0000_003f,
    0x0000_0008,
    0x0000_0010,
    0x0000_0002,
    0x0000_0003,
    0xffff_fffe,
    0x0000_7bff,
    0x0000_7c00,
    0x0000_fc00,
    0x0000_7e01,
    0x0000_03ff,
    0x0000_8001,
    0x0001_0000,
    0x0000_ff80,
];

/// A small deterministic generator (xorshift), so a failing case is replayed from its seed;
/// the flag asks for programs without calls of the interpreter's float rules
/// ([`calls_float_rule`]), whose native code runs with denormal operands read as zero.
struct Rng(u64, bool);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn value(&mut self) -> u32 {
        match self.below(4) {
            0 | 1 => HOSTILE[self.below(HOSTILE.len())],
            // An ordinary float in ±8, so that arithmetic also meets non-special values.
            2 => (((self.next() % 16_000) as f32 - 8_000.0) / 1000.0).to_bits(),
            _ => self.next() as u32,
        }
    }
}

const CONSTS: usize = 24;
/// Reserved registers after the constants: thread id, lane count, the two handles, the
/// scratch condition, then a loop counter and a loop bound per nesting depth.
const T: usize = CONSTS;
const LC: usize = CONSTS + 1;
const HIN: usize = CONSTS + 2;
const HOUT: usize = CONSTS + 3;
const CC: usize = CONSTS + 4;
const CTR: usize = CONSTS + 5;
const BND: usize = CONSTS + 5 + MAX_DEPTH;
/// Loops and `if`s nest this deep at most.
const MAX_DEPTH: usize = 3;
/// Working registers: loaded from the input, changed by the random instructions, stored.
const WORK: usize = CONSTS + 5 + 2 * MAX_DEPTH;
const NWORK: usize = 12;

const FUN: &[&str] = &[
    "sqrt", "rsq", "rcp", "exp2", "log2", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
    "cosh", "tanh", "round_ne", "floor", "ceil", "trunc", "frac", "sat",
];
const FCOND: &[&str] = &[
    "eq", "ne", "lt", "le", "gt", "ge", "one", "ueq", "ult", "ule", "ugt", "uge", "ord", "uno",
    "false", "true",
];
const ICOND: &[&str] = &[
    "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge",
];
const BIN: &[&str] = &[
    "fadd", "fsub", "fmul", "fdiv", "frem", "fmin", "fmax", "iadd", "isub", "imul", "imulhi",
    "umulhi", "udiv", "urem", "idiv", "irem", "imin", "imax", "umin", "umax", "and", "or", "xor",
    "shl", "ushr", "ishr",
];
const UN: &[&str] = &[
    "mov",
    "ftoi",
    "ftou",
    "itof",
    "utof",
    "f32tof16",
    "f16tof32",
    "ineg",
    "not",
    "bfrev",
    "countbits",
    "firstbit_hi",
    "firstbit_lo",
    "firstbit_shi",
];
const TRI: &[&str] = &[
    "select",
    "fmad",
    "fmad_precise",
    "ffma",
    "imad",
    "msad",
    "ubfe",
    "ibfe",
];

fn src(g: &mut Rng) -> String {
    // Mostly working registers, sometimes a constant (uniform operands take other paths).
    if g.below(4) == 0 {
        format!("r{}", g.below(CONSTS))
    } else {
        format!("r{}", WORK + g.below(NWORK))
    }
}

fn dst(g: &mut Rng) -> String {
    format!("r{}", WORK + g.below(NWORK))
}

/// Whether the instruction `text` is one the native engine runs by calling an interpreter
/// float rule (`exec::jit::emit::daz`: code holding one runs without DAZ).
fn calls_float_rule(text: &str) -> bool {
    let mut words = text.split([' ', ',']).filter(|w| !w.is_empty());
    match words.next() {
        Some("frem" | "f32tof16" | "f16tof32") => true,
        Some("funary") => !matches!(
            words.next(),
            Some("sqrt" | "rcp" | "round_ne" | "floor" | "ceil" | "trunc" | "frac" | "sat")
        ),
        _ => false,
    }
}

/// One random compilable instruction (with `g.1`, none that calls a float rule).
fn inst(g: &mut Rng) -> String {
    loop {
        let i = any_inst(g);
        if !(g.1 && calls_float_rule(&i)) {
            return i;
        }
    }
}

fn any_inst(g: &mut Rng) -> String {
    match g.below(10) {
        0..=3 => {
            let op = BIN[g.below(BIN.len())];
            format!("{op} {}, {}, {}", dst(g), src(g), src(g))
        }
        4 | 5 => {
            let op = UN[g.below(UN.len())];
            format!("{op} {}, {}", dst(g), src(g))
        }
        6 => {
            let op = TRI[g.below(TRI.len())];
            format!("{op} {}, {}, {}, {}", dst(g), src(g), src(g), src(g))
        }
        7 => match g.below(6) {
            0 => format!("funary {}, {}, {}", FUN[g.below(FUN.len())], dst(g), src(g)),
            1 => format!(
                "fcmp {}, {}, {}, {}",
                FCOND[g.below(FCOND.len())],
                dst(g),
                src(g),
                src(g)
            ),
            2 => format!(
                "icmp {}, {}, {}, {}",
                ICOND[g.below(ICOND.len())],
                dst(g),
                src(g),
                src(g)
            ),
            3 => {
                let k = ["nan", "inf", "finite", "normal"][g.below(4)];
                format!("ftest {k}, {}, {}", dst(g), src(g))
            }
            4 => format!("sext {}, {}, {}", [8, 16][g.below(2)], dst(g), src(g)),
            _ => format!(
                "bfi {}, {}, {}, {}, {}",
                dst(g),
                src(g),
                src(g),
                src(g),
                src(g)
            ),
        },
        8 => {
            let op = ["uaddc", "usubb"][g.below(2)];
            format!("{op} {}, {}, {}, {}", dst(g), dst(g), src(g), src(g))
        }
        _ => format!("funary {}, {}, {}", FUN[g.below(FUN.len())], dst(g), src(g)),
    }
}

fn run_of(g: &mut Rng, n: usize) -> String {
    (0..n).map(|_| format!("    {}\n", inst(g))).collect()
}

/// Structured control flow written as IR text: blocks are numbered in the order they
/// start, so a target not started yet is a label (`@n@`) resolved at the end.
struct Flow {
    text: String,
    /// The block number of each label, once started.
    labels: Vec<Option<usize>>,
    blocks: usize,
}

impl Flow {
    fn label(&mut self) -> usize {
        self.labels.push(None);
        self.labels.len() - 1
    }
    fn start(&mut self, l: usize) {
        self.labels[l] = Some(self.blocks);
        self.text += &format!("block{}:\n", self.blocks);
        self.blocks += 1;
    }
    fn line(&mut self, s: &str) {
        self.text += "    ";
        self.text += s;
        self.text += "\n";
    }
    fn finish(self) -> String {
        let mut t = self.text;
        for (i, b) in self.labels.iter().enumerate().rev() {
            let b = b.expect("every label starts a block");
            t = t.replace(&format!("@{i}@"), &format!("block{b}"));
        }
        t
    }
}

/// A lane-dependent condition into the scratch register: a bit of a working register
/// (which the random instructions keep changing, so it varies between iterations) or of
/// the thread id.
fn cond(g: &mut Rng, f: &mut Flow) {
    let w = WORK + g.below(NWORK);
    match g.below(5) {
        0 => f.line(&format!("and r{CC}, r{T}, r{}", 1 + g.below(2))),
        1 => f.line(&format!("and r{CC}, r{w}, r1")),
        2 => f.line(&format!("ushr r{CC}, r{w}, r{}", 3 + g.below(2))),
        // A compare, and an and or or of compares: conditions whose words are all `0`
        // or `!0`, which the native branch test gathers without a compare of its own
        // (`emit::writes_mask`).
        3 => f.line(&format!(
            "icmp {}, r{CC}, r{w}, r{T}",
            ICOND[g.below(ICOND.len())]
        )),
        _ => {
            let v = WORK + g.below(NWORK);
            f.line(&format!("icmp ult, r{CC}, r{T}, r{}", 2 + g.below(3)));
            f.line(&format!(
                "fcmp {}, r{v}, r{w}, r{v}",
                FCOND[g.below(FCOND.len())]
            ));
            let op = ["and", "or"][g.below(2)];
            f.line(&format!("{op} r{CC}, r{CC}, r{v}"));
        }
    }
}

/// Random structured code at nesting `depth`: runs of arithmetic, `if`s with and without
/// `else`, switches, loops of lane-dependent trip counts with breaks and continues
/// (`lp`: the innermost loop's continue and exit labels), and now and then an
/// interpreted instruction, so that native regions are left and entered mid-loop.
fn code(g: &mut Rng, f: &mut Flow, depth: usize, lp: Option<(usize, usize)>) {
    let items = 1 + g.below(3);
    for _ in 0..items {
        let kinds = if depth < MAX_DEPTH { 9 } else { 3 };
        match g.below(kinds) {
            0 | 1 => {
                let n = 1 + g.below(5);
                f.text += &run_of(g, n);
            }
            2 => {
                if let Some((cont, exit)) = lp {
                    // `break` or `continue` for some lanes.
                    cond(g, f);
                    let rest = f.label();
                    let to = if g.below(2) == 0 { exit } else { cont };
                    f.line(&format!("branch r{CC}, @{to}@, @{rest}@"));
                    f.start(rest);
                } else if g.below(3) == 0 {
                    // Not compilable: the block stays interpreted.
                    f.line(&format!("sysval thread_id, 0, r{T}"));
                } else {
                    f.text += &run_of(g, 2);
                }
            }
            3 | 4 => {
                cond(g, f);
                let (then_, else_, join) = (f.label(), f.label(), f.label());
                let has_else = g.below(3) != 0;
                let other = if has_else { else_ } else { join };
                f.line(&format!("branch r{CC}, @{then_}@, @{other}@"));
                f.start(then_);
                code(g, f, depth + 1, lp);
                f.line(&format!("jump @{join}@"));
                if has_else {
                    f.start(else_);
                    code(g, f, depth + 1, lp);
                    f.line(&format!("jump @{join}@"));
                } else {
                    f.labels[else_] = Some(usize::MAX);
                }
                f.start(join);
            }
            5 => {
                let w = WORK + g.below(NWORK);
                f.line(&format!("and r{CC}, r{w}, r2"));
                let arms: Vec<usize> = (0..1 + g.below(3)).map(|_| f.label()).collect();
                let join = f.label();
                // Every arm has a case (unreachable blocks are not structured).
                let cases: Vec<String> = (0..arms.len() + g.below(2))
                    .map(|v| format!("{}: @{}@", v * 2, arms[v % arms.len()]))
                    .collect();
                f.line(&format!(
                    "switch r{CC}, [{}], @{}@",
                    cases.join(", "),
                    arms[g.below(arms.len())]
                ));
                for &a in &arms {
                    f.start(a);
                    code(g, f, depth + 1, lp);
                    f.line(&format!("jump @{join}@"));
                }
                f.start(join);
            }
            _ => {
                // A loop running 0 to 7 times, per lane.
                let (ctr, bnd) = (CTR + depth, BND + depth);
                let w = WORK + g.below(NWORK);
                f.line(&format!("mov r{ctr}, r0"));
                f.line(&format!("and r{bnd}, r{w}, r2"));
                let (head, body, latch, exit) = (f.label(), f.label(), f.label(), f.label());
                f.line(&format!("jump @{head}@"));
                f.start(head);
                f.line(&format!("iadd r{ctr}, r{ctr}, r1"));
                f.line(&format!("icmp ugt, r{CC}, r{ctr}, r{bnd}"));
                f.line(&format!("branch r{CC}, @{exit}@, @{body}@"));
                f.start(body);
                code(g, f, depth + 1, Some((latch, exit)));
                f.line(&format!("jump @{latch}@"));
                f.start(latch);
                let n = g.below(3);
                f.text += &run_of(g, n);
                f.line(&format!("jump @{head}@"));
                f.start(exit);
            }
        }
    }
}

/// A random program and its input words (`NWORK` per thread).
fn program(seed: u64, threads: usize) -> (String, Vec<u32>, bool) {
    let mut g = Rng(seed | 1, false);
    let ftz = g.below(2) == 0;
    // One program in three has no float rule calls, so that a flushing one's native code
    // reads denormal operands as zero (and leaves float results unflushed until their
    // bits are used).
    g.1 = g.below(3) == 0;
    let mut text = format!(
        "shader compute\ngroup [{threads} 1 1]\nfp32 {}\n",
        if ftz { "ftz" } else { "preserve" }
    );
    // Constants: the offsets and masks the skeleton needs, then hostile values.
    let fixed = [0u32, 1, 7, 16, 32];
    for i in 0..CONSTS {
        let v = fixed.get(i).copied().unwrap_or_else(|| g.value());
        text += &format!("const r{i} = {v:#x}\n");
    }
    let stride = NWORK * 4;
    text += &format!(
        "resource range0 = uav space 0 lower 0 count 1 structured_buffer(stride {stride}) uint \"inp\"\n"
    );
    text += &format!(
        "resource range1 = uav space 0 lower 1 count 1 structured_buffer(stride {stride}) uint \"out\"\n"
    );
    let w = |i: usize| format!("r{}", WORK + i);
    let mut f = Flow {
        text: String::new(),
        labels: Vec::new(),
        blocks: 0,
    };
    let first = f.label();
    f.start(first);
    f.line(&format!("sysval thread_id, 0, r{T}"));
    // `lane_count` reads the wave's shape: with it the dispatch runs waves of exactly
    // the wave size and the native engine stores every register through the mask; without
    // it (half the programs) lanes run side by side in batches of 32 or more and stores
    // skip the mask where no waiting lane reads the register (`emit::unmasked`).
    if g.below(2) == 0 {
        f.line(&format!("lane_count r{LC}"));
    }
    f.line(&format!("handle r{HIN}, range0, r0"));
    f.line(&format!("handle r{HOUT}, range1, r0"));
    for q in 0..NWORK / 4 {
        f.line(&format!(
            "struct_load b32, 15, [{} {} {} {}], r{HIN}, r{T}, r{}",
            w(4 * q),
            w(4 * q + 1),
            w(4 * q + 2),
            w(4 * q + 3),
            [0, 3, 4][q] // r0 = 0, r3 = 16, r4 = 32 bytes
        ));
    }
    let n = 1 + g.below(12);
    f.text += &run_of(&mut g, n);
    code(&mut g, &mut f, 0, None);
    // Every lane's own instruction count (`control::charge`'s steps less idle), so that
    // the engines must agree on the charging too.
    if g.below(2) == 0 {
        f.line(&format!("cycle_counter {}", w(NWORK - 2)));
    }
    for q in 0..NWORK / 4 {
        f.line(&format!(
            "struct_store b32, 15, r{HOUT}, r{T}, r{}, [{} {} {} {}]",
            [0, 3, 4][q],
            w(4 * q),
            w(4 * q + 1),
            w(4 * q + 2),
            w(4 * q + 3),
        ));
    }
    f.line("return");
    text += &f.finish();
    let input = (0..threads * NWORK).map(|_| g.value()).collect();
    (text, input, g.below(2) == 0)
}

/// What one engine made of a program: the output words, the lane-instructions run and
/// how many instructions ran natively — or the error.
type Outcome = Result<(Vec<u32>, u64, usize, String), dxlane::exec::ExecError>;

/// Runs `text` under `engine` with a budget of `limit` instructions per lane.
fn outputs(
    text: &str,
    input: &[u32],
    wave: u32,
    old_profile: bool,
    engine: Engine,
    limit: u64,
) -> Outcome {
    let s = shader(text);
    let (_, din) = structured(input, (NWORK * 4) as u32);
    let (m, dout) = structured(&vec![0; input.len()], (NWORK * 4) as u32);
    let mut o = Plan {
        wave_size: Some(wave),
        threads: 1,
        profile: if old_profile {
            Profile::by_name("warp-1.0.13").unwrap()
        } else {
            Profile::latest()
        },
        engine,
        ..crate::common::plan()
    };
    o.limits.max_lane_instructions = limit;
    let r = run(&s, vec![din, dout], [2, 1, 1], &o)?;
    Ok((
        words(&m),
        r.lane_instructions,
        r.jit.as_ref().map_or(0, |j| j.native),
        r.jit.map(|j| j.to_string()).unwrap_or_default(),
    ))
}

fn check(seed: u64, wave: u32) {
    // Two waves per group, the second one partly empty when possible.
    let threads = (2 * wave as usize - 1).max(4);
    let (text, input, old) = program(seed, threads);
    // One program in four runs out of budget somewhere (often inside a native loop).
    let limit = if seed % 4 == 0 {
        20 + (seed >> 8) % 600
    } else {
        1_000_000
    };
    let want = outputs(&text, &input, wave, old, Engine::Interp, limit);
    let got = outputs(&text, &input, wave, old, Engine::Jit, limit);
    match (&got, &want) {
        (Ok((got, gn, native, report)), Ok((want, wn, _, _))) => {
            assert!(*native > 0, "nothing compiled ({report}):\n{text}");
            if got != want {
                let i = got.iter().zip(want).position(|(a, b)| a != b).unwrap_or(0);
                let (thread, reg) = (i / NWORK, WORK + i % NWORK);
                panic!(
                    "seed {seed:#x}, wave {wave}: thread {thread} r{reg}: jit {:#010x}, interpreter {:#010x}\ninputs of the thread: {:08x?}\n{text}",
                    got[i],
                    want[i],
                    &input[thread * NWORK..thread * NWORK + NWORK]
                );
            }
            assert_eq!(
                gn, wn,
                "seed {seed:#x}, wave {wave}: lane-instructions differ\n{text}"
            );
        }
        (Err(a), Err(b)) => assert_eq!(a, b, "seed {seed:#x}, wave {wave}\n{text}"),
        _ => panic!(
            "seed {seed:#x}, wave {wave}, limit {limit}: jit {:?}, interpreter {:?}\n{text}",
            got.as_ref().map(|g| g.1),
            want.as_ref().map(|w| w.1)
        ),
    }
}

proptest! {
    #![proptest_config(ProptestConfig {
        cases: std::env::var("PROPTEST_CASES").ok().and_then(|v| v.parse().ok()).unwrap_or(96),
        ..ProptestConfig::default()
    })]

    #[test]
    fn jit_matches_the_interpreter(seed in any::<u64>(), wave in prop::sample::select(vec![4u32, 8, 16, 32, 64, 128])) {
        check(seed, wave);
    }
}

/// Runs a one-register-per-thread program under both engines with a budget of `limit`
/// instructions per lane at every wave size; returns the interpreter's outcome after
/// checking that the native engine's is the same (words, lane-instructions, or error).
fn both(text: &str, limit: u64) -> Vec<Result<(Vec<u32>, u64), dxlane::exec::ExecError>> {
    let s = shader(text);
    let mut all = Vec::new();
    for wave in [4u32, 8, 16, 32, 64, 128] {
        let mut res = Vec::new();
        for engine in [Engine::Interp, Engine::Jit] {
            let (m, d) = structured(&[0; 256], 4);
            let mut o = Plan {
                wave_size: Some(wave),
                threads: 1,
                engine,
                ..crate::common::plan()
            };
            o.limits.max_lane_instructions = limit;
            res.push(run(&s, vec![d], [1, 1, 1], &o).map(|r| (words(&m), r.lane_instructions)));
        }
        assert_eq!(res[0], res[1], "wave {wave}, limit {limit}\n{text}");
        all.push(res.swap_remove(0));
    }
    all
}

/// `control::charge` (the budget is charged per block before it runs): a loop that odd
/// threads never leave, compiled into the native region, ends with the interpreter's
/// own `ExecError::Budget` — same lane, same instruction — at every wave size.
#[test]
fn endless_native_loop_ends_with_the_interpreters_error() {
    let text = "shader compute\ngroup [200 1 1]\nfp32 ftz\nconst r0 = 0\nconst r1 = 1\nconst r2 = 0x3f800000\n\
         resource range0 = uav space 0 lower 0 count 1 structured_buffer(stride 4) uint \"out\"\n\
         block0:\n    sysval thread_id, 0, r3\n    handle r4, range0, r0\n    mov r5, r0\n    jump block1\n\
         block1:\n    and r6, r3, r1\n    iadd r5, r5, r1\n    branch r6, block2, block3\n\
         block2:\n    fadd r7, r7, r2\n    fmul r7, r7, r2\n    jump block1\n\
         block3:\n    struct_store b32, 1, r4, r3, r0, [r5 _ _ _]\n    return\n";
    for limit in [1, 2, 3, 7, 100, 1001, 5000] {
        for r in both(text, limit) {
            match r {
                Err(dxlane::exec::ExecError::Budget { .. }) => {}
                other => panic!("limit {limit}: {other:?}"),
            }
        }
    }
}

/// The wave's step count passes the budget while no lane's does: the two halves of the
/// wave take turns in loops of their own (each lane idle while the other half runs), so
/// the native region stops before each block and the interpreter charges it (see
/// `exec::jit::region`); both engines finish with the same words and counts.
#[test]
fn wave_steps_past_the_budget_with_no_lane_over_it() {
    let text = "shader compute\ngroup [256 1 1]\nfp32 ftz\nconst r0 = 0\nconst r1 = 1\nconst r2 = 60\n\
         resource range0 = uav space 0 lower 0 count 1 structured_buffer(stride 4) uint \"out\"\n\
         block0:\n    sysval thread_id, 0, r3\n    handle r4, range0, r0\n    mov r5, r0\n    and r6, r3, r1\n    branch r6, block1, block3\n\
         block1:\n    iadd r5, r5, r1\n    icmp ult, r7, r5, r2\n    branch r7, block1, block2\n\
         block2:\n    jump block5\n\
         block3:\n    iadd r5, r5, r1\n    icmp ult, r7, r5, r2\n    branch r7, block3, block4\n\
         block4:\n    jump block5\n\
         block5:\n    cycle_counter r8\n    iadd r5, r5, r8\n    struct_store b32, 1, r4, r3, r0, [r5 _ _ _]\n    return\n";
    // Each lane runs about 3 × 60 + 12 instructions, the wave about twice as many. Every
    // lane stores 60 plus its own count (`cycle_counter`), which the interpreter gives
    // as 190 and the native engine must too (`both`).
    for r in both(text, 300) {
        let (w, _) = r.unwrap_or_else(|e| panic!("{e}"));
        assert!(w[..256].iter().all(|&x| x == 60 + 190), "{w:?}");
    }
    for r in both(text, 150) {
        assert!(r.is_err());
    }
}

/// Registers only float arithmetic writes are loaded without a flush in native code
/// (`exec::jit::emit::flushed_regs`): halving values through the denormal range in a
/// native loop, with copies between blocks, gives the interpreter's bits in both modes.
#[test]
fn float_registers_through_the_denormal_range() {
    for fp in ["ftz", "preserve"] {
        let text = format!(
            "shader compute\ngroup [256 1 1]\nfp32 {fp}\nconst r0 = 0\nconst r1 = 1\nconst r2 = 0x3f000000\nconst r3 = 0x00400000\n\
             const r4 = 0x02000000\nconst r5 = 0x3f800000\n\
             resource range0 = uav space 0 lower 0 count 1 structured_buffer(stride 4) uint \"out\"\n\
             block0:\n    sysval thread_id, 0, r6\n    handle r7, range0, r0\n    mov r8, r0\n    utof r9, r6\n    fmul r10, r9, r4\n    mov r11, r5\n    jump block1\n\
             block1:\n    fmul r10, r10, r2\n    fadd r11, r11, r10\n    mov r12, r10\n    fsub r13, r12, r3\n    iadd r8, r8, r1\n    icmp ult, r14, r8, r6\n    branch r14, block1, block2\n\
             block2:\n    fadd r15, r13, r12\n    fmul r15, r15, r11\n    struct_store b32, 1, r7, r6, r0, [r15 _ _ _]\n    return\n"
        );
        both(&text, 1_000_000);
    }
}

/// A float result whose later readers are all float operands is stored by the region
/// without its flush (`exec::jit::emit::lazy_at_exit`): here `FLT_MIN × 0.25`, a
/// denormal, left in r7 by a native block. The next block is not native (`sysval`) and
/// its segment calls a float rule (`exp2`), so it runs without DAZ and must flush r7 as
/// it loads it (`flushed_at_blocks` marks r7 not free of denormals there): multiplied
/// by 2^24 it would otherwise give 2^-104, where the interpreter, which flushed the
/// product, gives 0. A copy of r7 (`mov`, a read of its bits) keeps the flush.
#[test]
fn unflushed_results_stay_invisible() {
    for read in ["fmul r10, r7, r3", "mov r10, r7"] {
        let text = format!(
            "shader compute\ngroup [64 1 1]\nfp32 ftz\nconst r0 = 0\nconst r1 = 0x00800000\nconst r2 = 0x3e800000\n\
             const r3 = 0x4b800000\nconst r4 = 0x3f800000\n\
             resource range0 = uav space 0 lower 0 count 1 structured_buffer(stride 4) uint \"out\"\n\
             block0:\n    sysval thread_id, 0, r5\n    handle r6, range0, r0\n    jump block1\n\
             block1:\n    fmul r7, r1, r2\n    jump block2\n\
             block2:\n    sysval thread_id, 0, r8\n    funary exp2, r9, r4\n    {read}\n    \
             struct_store b32, 1, r6, r5, r0, [r10 _ _ _]\n    return\n"
        );
        for r in both(&text, 1_000_000) {
            let (w, _) = r.unwrap_or_else(|e| panic!("{e}"));
            assert!(w[..64].iter().all(|&x| x == 0), "{read}: {w:?}");
        }
    }
}

/// A region too large to compile quickly (`exec::jit::region::MAX_REGION_SIZE`, which
/// counts each terminator once per four lanes) is left to the interpreter with a note;
/// the same blocks at a narrower width compile.
#[test]
fn large_regions_fall_back_with_a_note() {
    use dxlane::exec::jit::{JitShader, Key};
    let mut text = String::from(
        "shader compute\ngroup [8 1 1]\nfp32 ftz\nconst r0 = 0\nconst r1 = 1\nblock0:\n    mov r2, r0\n    jump block1\n",
    );
    let n = 800;
    for k in 1..n {
        text += &format!(
            "block{k}:\n    iadd r2, r2, r1\n    branch r2, block{0}, block{0}\n",
            k + 1
        );
    }
    text += &format!("block{n}:\n    return\n");
    let s = shader(&text);
    let key = |width| Key {
        width,
        ftz: true,
        fuse_mad: false,
    };
    let wide = JitShader::compile(&s, key(128)).report();
    assert_eq!(wide.regions, 0, "{wide}");
    assert!(
        wide.fallback
            .as_deref()
            .is_some_and(|f| f.contains("too large")),
        "{wide}"
    );
    let narrow = JitShader::compile(&s, key(8)).report();
    assert_eq!(
        (narrow.regions, narrow.native_blocks),
        (1, n + 1),
        "{narrow}"
    );
}

/// A shader compiled once is reused by later programs of an equal shader and the same
/// key (as a driver compiles at shader creation), with run counters of their own and the
/// same answers; a different key or a different shader compiles afresh.
#[test]
fn compiled_code_is_reused_for_an_equal_shader() {
    use dxlane::exec::jit::{JitShader, Key};
    // A constant of its own, so that no other test's shader is this one.
    let text = "shader compute\ngroup [8 1 1]\nconst r0 = 0\nconst r1 = 0x1357\nconst r2 = 3\nresource range0 = uav space 0 lower 0 count 1 structured_buffer(stride 4) uint \"out\"\nblock0:\n    sysval thread_id, 0, r3\n    imul r4, r3, r1\n    iadd r4, r4, r2\n    handle r5, range0, r0\n    struct_store b32, 1, r5, r3, r0, [r4 _ _ _]\n    return\n";
    let s = shader(text);
    let key = |width| Key {
        width,
        ftz: true,
        fuse_mad: false,
    };
    let first = JitShader::compile_cached(&s, key(16)).report();
    let again = JitShader::compile_cached(&shader(text), key(16)).report();
    assert!(!first.reused, "{first}");
    assert!(again.reused, "{again}");
    assert!(
        again
            .to_string()
            .contains("compiled earlier in this process"),
        "{again}"
    );
    assert_eq!(
        (again.native, again.segments, &again.fallback),
        (first.native, first.segments, &first.fallback)
    );
    assert!(!JitShader::compile_cached(&s, key(32)).report().reused);
    let other = shader(&text.replace("0x1357", "0x1359"));
    assert!(!JitShader::compile_cached(&other, key(16)).report().reused);
    // Two runs through the engine's own path: the second reuses the code, gives the same
    // words, and counts only its own run.
    let runs: Vec<_> = (0..2)
        .map(|_| {
            let (m, out) = structured(&[0u32; 8], 4);
            let o = Plan {
                wave_size: Some(8),
                threads: 1,
                engine: Engine::Jit,
                ..crate::common::plan()
            };
            let r = run(&s, vec![out], [1, 1, 1], &o).unwrap_or_else(|e| panic!("{e}"));
            (r.jit.expect("a report"), words(&m))
        })
        .collect();
    let ((a, wa), (b, wb)) = (&runs[0], &runs[1]);
    assert!(b.reused, "{b}");
    assert_eq!(wa, wb);
    assert_eq!(wa[5], 5u32.wrapping_mul(0x1357) + 3);
    assert_eq!(
        (a.native_block_runs, a.native_lane_instructions),
        (b.native_block_runs, b.native_lane_instructions)
    );
}

/// The generated programs exercise the region code: most run blocks natively with their
/// control flow (loops, `if`s, switches), not only straight-line segments.
#[test]
fn generated_programs_run_native_regions() {
    let mut with_runs = 0;
    for seed in 1..=40u64 {
        let (text, input, old) = program(seed * 7919, 15);
        let s = shader(&text);
        let (_, din) = structured(&input, (NWORK * 4) as u32);
        let (_, dout) = structured(&vec![0; input.len()], (NWORK * 4) as u32);
        let o = Plan {
            wave_size: Some(8),
            threads: 1,
            profile: if old {
                Profile::by_name("warp-1.0.13").unwrap()
            } else {
                Profile::latest()
            },
            engine: Engine::Jit,
            ..crate::common::plan()
        };
        let r = run(&s, vec![din, dout], [2, 1, 1], &o).unwrap_or_else(|e| panic!("{e}"));
        let j = r.jit.expect("a report");
        assert!(j.native_lane_instructions <= r.lane_instructions, "{j}");
        if j.native_block_runs > 0 {
            with_runs += 1;
        }
    }
    assert!(
        with_runs >= 30,
        "{with_runs} of 40 programs ran native blocks"
    );
}

/// The generator's list of instructions that call a float rule is the engine's
/// (`exec::jit::reads_denormals_as_zero`), and about a third of the flushing programs
/// have none, so the property test runs native code that reads denormal operands as
/// zero and flushes results only where their bits are used.
#[test]
fn generated_programs_read_denormals_as_zero() {
    use dxlane::exec::jit::{Key, reads_denormals_as_zero, select::compilable};
    let key = Key {
        width: 8,
        ftz: true,
        fuse_mad: false,
    };
    if !reads_denormals_as_zero(key, &[]) {
        return; // a host without the DAZ bit
    }
    let mut plain = 0;
    for seed in 1..=60u64 {
        let (text, _, _) = program(seed * 104_729, 8);
        let s = shader(&text);
        let insts: Vec<_> = s.insts.iter().filter(|i| compilable(i)).cloned().collect();
        for i in &insts {
            assert_eq!(
                reads_denormals_as_zero(key, std::slice::from_ref(i)),
                !calls_float_rule(&i.to_string()),
                "`{i}`"
            );
        }
        if text.contains("fp32 ftz") && reads_denormals_as_zero(key, &insts) {
            plain += 1;
        }
    }
    assert!(
        plain >= 6,
        "{plain} of 60 programs flush with no float rule calls"
    );
}

/// Every compilable mnemonic is produced by the generator above, so the property test
/// covers each one.
#[test]
fn generator_covers_every_compilable_instruction() {
    let mut seen = std::collections::BTreeSet::new();
    for seed in 1..400u64 {
        let (text, _, _) = program(seed, 8);
        let s = shader(&text);
        for i in &s.insts {
            if dxlane::exec::jit::select::compilable(i) {
                seen.insert(i.mnemonic());
            }
        }
    }
    let all: Vec<&str> = dxlane::ir::Inst::MNEMONICS
        .iter()
        .copied()
        .filter(|m| seen.contains(m) || KNOWN_COMPILABLE.contains(m))
        .collect();
    for m in KNOWN_COMPILABLE {
        assert!(seen.contains(m), "the generator never makes `{m}`");
    }
    assert_eq!(all.len(), KNOWN_COMPILABLE.len());
}

/// The mnemonics `exec::jit::select::compilable` admits.
const KNOWN_COMPILABLE: &[&str] = &[
    "mov",
    "select",
    "fadd",
    "fsub",
    "fmul",
    "fdiv",
    "frem",
    "fmin",
    "fmax",
    "fmad",
    "fmad_precise",
    "ffma",
    "funary",
    "fcmp",
    "ftest",
    "ftoi",
    "ftou",
    "itof",
    "utof",
    "f32tof16",
    "f16tof32",
    "sext",
    "iadd",
    "isub",
    "imul",
    "imulhi",
    "umulhi",
    "imad",
    "udiv",
    "urem",
    "idiv",
    "irem",
    "ineg",
    "imin",
    "imax",
    "umin",
    "umax",
    "and",
    "or",
    "xor",
    "not",
    "shl",
    "ushr",
    "ishr",
    "icmp",
    "bfi",
    "ubfe",
    "ibfe",
    "bfrev",
    "countbits",
    "firstbit_hi",
    "firstbit_lo",
    "firstbit_shi",
    "uaddc",
    "usubb",
    "msad",
];

/// Every compilable instruction on every pair of hostile values (the third operand
/// cycling through them), one thread per pair, in both denormal modes and both `fmad`
/// profiles: the engines agree bit for bit.
#[test]
fn every_instruction_on_every_hostile_pair() {
    let n = HOSTILE.len() * HOSTILE.len();
    let mut input = Vec::with_capacity(n * 4);
    for (i, &a) in HOSTILE.iter().enumerate() {
        for (j, &b) in HOSTILE.iter().enumerate() {
            input.extend([
                a,
                b,
                HOSTILE[(i + 3 * j) % HOSTILE.len()],
                HOSTILE[(7 * i + j) % HOSTILE.len()],
            ]);
        }
    }
    let mut bodies: Vec<String> = Vec::new();
    for op in BIN {
        bodies.push(format!("{op} r14, r10, r11"));
    }
    for op in UN {
        bodies.push(format!("{op} r14, r10"));
    }
    for op in TRI {
        bodies.push(format!("{op} r14, r10, r11, r12"));
    }
    for f in FUN {
        bodies.push(format!("funary {f}, r14, r10"));
    }
    for c in FCOND {
        bodies.push(format!("fcmp {c}, r14, r10, r11"));
    }
    for c in ICOND {
        bodies.push(format!("icmp {c}, r14, r10, r11"));
    }
    for k in ["nan", "inf", "finite", "normal"] {
        bodies.push(format!("ftest {k}, r14, r10"));
    }
    bodies.push("sext 8, r14, r10".into());
    bodies.push("sext 16, r14, r10".into());
    bodies.push("bfi r14, r10, r11, r12, r13".into());
    bodies.push("uaddc r14, r13, r10, r11".into());
    bodies.push("usubb r14, r13, r10, r11".into());
    // Uniform shift counts take the whole-vector path.
    for op in ["shl", "ushr", "ishr"] {
        for k in [1, 2] {
            bodies.push(format!("{op} r14, r10, r{k}"));
        }
    }
    let failures = engines_disagree(&bodies, [0, 33, 0xffff_ffe1], &input);
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The fused and unfused multiply-adds with constant operands, where the native engine
/// leaves out the NaN fix-ups a constant rules out (`exec::jit::emit`, `ffma`): every
/// placement of one or two constants from a set of NaNs, infinities, zeros, denormals
/// and normal values, on every pair of hostile values, agrees with the interpreter.
#[test]
fn multiply_adds_with_constant_operands() {
    let mut input = Vec::new();
    for (i, &a) in HOSTILE.iter().enumerate() {
        for &b in HOSTILE {
            input.extend([a, b, HOSTILE[(5 * i + 1) % HOSTILE.len()], 0]);
        }
    }
    let picks = [
        0x3f7d_70a4u32, // 0.99
        0x0000_0000,
        0x8000_0000,
        0x0000_0001,
        0x7f80_0000,
        0xff80_0000,
        0x7fc0_0001,
        0xffc1_2345,
        0x7f80_0001,
        0x3c23_d70a, // 0.01
    ];
    let mut failures = Vec::new();
    for op in ["ffma", "fmad", "fmad_precise"] {
        let bodies: Vec<String> = [
            "r1, r10, r11",
            "r10, r1, r11",
            "r10, r11, r1",
            "r1, r2, r10",
            "r1, r10, r2",
            "r10, r1, r2",
        ]
        .iter()
        .map(|args| format!("{op} r14, {args}"))
        .collect();
        for (x, &k1) in picks.iter().enumerate() {
            let k2 = picks[(x + 3) % picks.len()];
            failures.extend(engines_disagree(&bodies, [0, k1, k2], &input));
        }
    }
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// Runs each of `bodies` (reading `r10`..`r13`, writing `r14`) on every thread's inputs,
/// with constant registers `r0`..`r2` holding `consts`, in both denormal modes and both
/// `fmad` profiles, under both engines; returns the mismatches.
fn engines_disagree(bodies: &[String], consts: [u32; 3], input: &[u32]) -> Vec<String> {
    let n = input.len() / 4;
    let [c0, c1, c2] = consts;
    let mut failures = Vec::new();
    for body in bodies {
        for fp in ["ftz", "preserve"] {
            for old in [false, true] {
                let text = format!(
                    "shader compute\ngroup [64 1 1]\nfp32 {fp}\nconst r0 = {c0:#x}\nconst r1 = {c1:#x}\nconst r2 = {c2:#x}\n\
                     resource range0 = uav space 0 lower 0 count 1 structured_buffer(stride 16) uint \"inp\"\n\
                     resource range1 = uav space 0 lower 1 count 1 structured_buffer(stride 16) uint \"out\"\n\
                     block0:\n    sysval thread_id, 0, r3\n    lane_count r4\n    handle r5, range0, r0\n    handle r6, range1, r0\n\
                     \x20   struct_load b32, 15, [r10 r11 r12 r13], r5, r3, r0\n    {body}\n\
                     \x20   struct_store b32, 15, r6, r3, r0, [r14 r13 r12 r11]\n    return\n"
                );
                let s = shader(&text);
                let groups = n.div_ceil(64) as u32;
                let mut padded = input.to_vec();
                padded.resize(groups as usize * 64 * 4, 0);
                let mut res = Vec::new();
                for engine in [Engine::Interp, Engine::Jit] {
                    let (_, din) = structured(&padded, 16);
                    let (m, dout) = structured(&vec![0; padded.len()], 16);
                    let o = Plan {
                        wave_size: Some(8),
                        threads: 1,
                        profile: if old {
                            Profile::by_name("warp-1.0.13").unwrap()
                        } else {
                            Profile::latest()
                        },
                        engine,
                        ..crate::common::plan()
                    };
                    run(&s, vec![din, dout], [groups, 1, 1], &o).unwrap_or_else(|e| panic!("{e}"));
                    res.push(words(&m));
                }
                if let Some(i) = res[0].iter().zip(&res[1]).position(|(a, b)| a != b) {
                    let t = i / 4;
                    failures.push(format!(
                        "{body} ({fp}, old {old}): inputs {:08x?}: interpreter {:#010x}, jit {:#010x}",
                        &padded[t * 4..t * 4 + 4],
                        res[0][i],
                        res[1][i]
                    ));
                }
            }
        }
    }
    failures
}

/// `[options] engine` names an engine or is refused by name; the summary says which
/// engine ran and what it compiled.
#[test]
fn job_engine_option() {
    let dir = crate::common::scratch().join("jit/engine_option");
    std::fs::create_dir_all(&dir).unwrap();
    let program = super::common::root().join("shaders/mandelbrot.cs_5_0.dxbc");
    let job = |engine: &str| {
        format!(
            "[program]\ncs = {:?}\n\n[dispatch]\ngroups = [2, 2, 1]\n\n[options]\nengine = \"{engine}\"\n\n\
             [[resource]]\nreg = \"u0\"\nkind = \"structured_buffer\"\nstride = 4\nsize = 4194304\noutput = \"out/m.bin\"\n",
            program.display().to_string()
        )
    };
    let path = dir.join("job.toml");
    std::fs::write(&path, job("fast")).unwrap();
    let e = dxlane::job::run_job(&path, &crate::common::run_options()).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("unknown engine \"fast\" (known: jit, interp)"),
        "{text}"
    );
    for name in ["interp", "jit"] {
        std::fs::write(&path, job(name)).unwrap();
        let r = dxlane::job::run_job(&path, &crate::common::run_options()).unwrap();
        assert_eq!(r.summary.engine, name);
        match (name, &r.summary.jit) {
            ("interp", None) => {}
            ("jit", Some(j)) => {
                assert!(j.native_instructions > 20 && j.segments >= 4, "{j:?}");
                assert!(
                    j.interpreted_ops.iter().any(|(m, _)| m == "struct_store"),
                    "{j:?}"
                );
            }
            other => panic!("{other:?}"),
        }
    }
}

/// A draw job's `[options] engine` is refused by name when unknown; under either engine
/// the draw writes the same target, and the summary says which engine ran and what it
/// compiled for each stage.
#[test]
fn draw_job_engine_option() {
    let dir = crate::common::scratch().join("jit/draw_engine_option");
    std::fs::create_dir_all(&dir).unwrap();
    let root = super::common::root();
    let job = |engine: &str| {
        format!(
            "[program]\nvs = {:?}\nps = {:?}\n\n[draw]\nvertex_count = 3\n\n\
             [[draw.render_target]]\nformat = \"R8G8B8A8_UNORM\"\nwidth = 64\nheight = 64\n\n\
             [options]\nengine = \"{engine}\"\n",
            root.join("shaders/draw_fullscreen.vs_5_0.dxbc")
                .display()
                .to_string(),
            root.join("shaders/draw_fullscreen.ps_5_0.dxbc")
                .display()
                .to_string(),
        )
    };
    let path = dir.join("job.toml");
    let run = |text: String| {
        std::fs::write(&path, text).unwrap();
        let job = dxlane::job::Job::load(&path).unwrap();
        dxlane::job::run_draw_job(job, &crate::common::run_options())
    };
    let text = match run(job("fast")) {
        Ok(_) => panic!("an unknown engine was accepted"),
        Err(e) => e.to_string(),
    };
    assert!(
        text.contains("[options]") && text.contains("unknown engine \"fast\" (known: jit, interp)"),
        "{text}"
    );
    let mut targets = Vec::new();
    for name in ["interp", "jit"] {
        let r = run(job(name)).unwrap();
        let d = &r.summary.draw;
        assert_eq!(d.engine, name);
        match name {
            "interp" => assert!(d.jit.is_empty() && d.compile_seconds == 0.0, "{d:?}"),
            _ => {
                assert_eq!(d.jit.len(), 2, "{:?}", d.jit);
                assert!(d.jit[0].starts_with("vs: jit: ") && d.jit[1].starts_with("ps: jit: "));
            }
        }
        targets.push(r.targets[0].view.texture.to_bytes());
    }
    assert!(
        targets[0] == targets[1],
        "the engines drew different targets"
    );
}
