//! The native engine against the interpreter, bit for bit: random IR programs built from
//! every compilable instruction, on hostile values (NaN payloads, signalling NaNs,
//! denormals, ±0, ±∞, `INT_MIN`, shift counts of 32 and more), with divergent `if`s and
//! loops of lane-dependent length, at every wave size, with both denormal modes and both
//! `fmad` profiles. Each program stores every working register of every thread; the two
//! engines' buffers must be identical.

use dxlane::exec::Profile;
use dxlane::exec::jit::Engine;
use dxlane::pipeline::DispatchOptions;
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

/// A small deterministic generator (xorshift), so a failing case is replayed from its seed.
struct Rng(u64);

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
/// branch condition, loop bound, loop counter, loop condition.
const T: usize = CONSTS;
const LC: usize = CONSTS + 1;
const HIN: usize = CONSTS + 2;
const HOUT: usize = CONSTS + 3;
const BR: usize = CONSTS + 4;
const LN: usize = CONSTS + 5;
const LI: usize = CONSTS + 6;
const LCOND: usize = CONSTS + 7;
/// Working registers: loaded from the input, changed by the random instructions, stored.
const WORK: usize = CONSTS + 8;
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

/// One random compilable instruction.
fn inst(g: &mut Rng) -> String {
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

/// A random program and its input words (`NWORK` per thread).
fn program(seed: u64, threads: usize) -> (String, Vec<u32>, bool) {
    let mut g = Rng(seed | 1);
    let ftz = g.below(2) == 0;
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
    text += "block0:\n";
    text += &format!("    sysval thread_id, 0, r{T}\n    lane_count r{LC}\n");
    text += &format!("    handle r{HIN}, range0, r0\n    handle r{HOUT}, range1, r0\n");
    for q in 0..NWORK / 4 {
        text += &format!(
            "    struct_load b32, 15, [{} {} {} {}], r{HIN}, r{T}, r{}\n",
            w(4 * q),
            w(4 * q + 1),
            w(4 * q + 2),
            w(4 * q + 3),
            [0, 3, 4][q] // r0 = 0, r3 = 16, r4 = 32 bytes
        );
    }
    let n = 1 + g.below(12);
    text += &run_of(&mut g, n);
    // An if/else on a lane-dependent bit.
    text += &format!(
        "    and r{BR}, {}, r1\n    branch r{BR}, block1, block2\n",
        w(g.below(NWORK))
    );
    let n = 1 + g.below(10);
    text += &format!("block1:\n{}    jump block3\n", run_of(&mut g, n));
    let n = 1 + g.below(10);
    text += &format!("block2:\n{}    jump block3\n", run_of(&mut g, n));
    // A loop of 1 to 8 iterations, different per lane.
    let n = g.below(6);
    text += &format!(
        "block3:\n{}    and r{LN}, {}, r2\n    mov r{LI}, r0\n    jump block4\n",
        run_of(&mut g, n),
        w(g.below(NWORK))
    );
    let n = 1 + g.below(10);
    text += &format!(
        "block4:\n{}    iadd r{LI}, r{LI}, r1\n    icmp ult, r{LCOND}, r{LI}, r{LN}\n    branch r{LCOND}, block4, block5\n",
        run_of(&mut g, n)
    );
    let n = g.below(8);
    text += &format!("block5:\n{}", run_of(&mut g, n));
    for q in 0..NWORK / 4 {
        text += &format!(
            "    struct_store b32, 15, r{HOUT}, r{T}, r{}, [{} {} {} {}]\n",
            [0, 3, 4][q],
            w(4 * q),
            w(4 * q + 1),
            w(4 * q + 2),
            w(4 * q + 3),
        );
    }
    text += "    return\n";
    let input = (0..threads * NWORK).map(|_| g.value()).collect();
    (text, input, g.below(2) == 0)
}

/// Runs `text` under `engine`; returns the output words and how many instructions ran
/// natively.
fn outputs(
    text: &str,
    input: &[u32],
    wave: u32,
    old_profile: bool,
    engine: Engine,
) -> (Vec<u32>, usize) {
    let s = shader(text);
    let (_, din) = structured(input, (NWORK * 4) as u32);
    let (m, dout) = structured(&vec![0; input.len()], (NWORK * 4) as u32);
    let o = DispatchOptions {
        wave_size: Some(wave),
        threads: 1,
        profile: if old_profile {
            Profile::by_name("warp-1.0.13").unwrap()
        } else {
            Profile::latest()
        },
        engine,
        ..DispatchOptions::default()
    };
    let r = run(&s, vec![din, dout], [2, 1, 1], &o).unwrap_or_else(|e| panic!("{e}\n{text}"));
    (words(&m), r.jit.map_or(0, |j| j.native))
}

fn check(seed: u64, wave: u32) {
    // Two waves per group, the second one partly empty when possible.
    let threads = (2 * wave as usize - 1).max(4);
    let (text, input, old) = program(seed, threads);
    let (want, _) = outputs(&text, &input, wave, old, Engine::Interp);
    let (got, native) = outputs(&text, &input, wave, old, Engine::Jit);
    assert!(native > 0, "nothing compiled:\n{text}");
    if got != want {
        let i = got.iter().zip(&want).position(|(a, b)| a != b).unwrap_or(0);
        let (thread, reg) = (i / NWORK, WORK + i % NWORK);
        panic!(
            "seed {seed:#x}, wave {wave}: thread {thread} r{reg}: jit {:#010x}, interpreter {:#010x}\ninputs of the thread: {:08x?}\n{text}",
            got[i],
            want[i],
            &input[thread * NWORK..thread * NWORK + NWORK]
        );
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
    let mut failures = Vec::new();
    for body in &bodies {
        for fp in ["ftz", "preserve"] {
            for old in [false, true] {
                let text = format!(
                    "shader compute\ngroup [64 1 1]\nfp32 {fp}\nconst r0 = 0\nconst r1 = 33\nconst r2 = 0xffffffe1\n\
                     resource range0 = uav space 0 lower 0 count 1 structured_buffer(stride 16) uint \"inp\"\n\
                     resource range1 = uav space 0 lower 1 count 1 structured_buffer(stride 16) uint \"out\"\n\
                     block0:\n    sysval thread_id, 0, r3\n    lane_count r4\n    handle r5, range0, r0\n    handle r6, range1, r0\n\
                     \x20   struct_load b32, 15, [r10 r11 r12 r13], r5, r3, r0\n    {body}\n\
                     \x20   struct_store b32, 15, r6, r3, r0, [r14 r13 r12 r11]\n    return\n"
                );
                let s = shader(&text);
                let groups = n.div_ceil(64) as u32;
                let mut padded = input.clone();
                padded.resize(groups as usize * 64 * 4, 0);
                let mut res = Vec::new();
                for engine in [Engine::Interp, Engine::Jit] {
                    let (_, din) = structured(&padded, 16);
                    let (m, dout) = structured(&vec![0; padded.len()], 16);
                    let o = DispatchOptions {
                        wave_size: Some(8),
                        threads: 1,
                        profile: if old {
                            Profile::by_name("warp-1.0.13").unwrap()
                        } else {
                            Profile::latest()
                        },
                        engine,
                        ..DispatchOptions::default()
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
    assert!(
        failures.is_empty(),
        "{} mismatches:\n{}",
        failures.len(),
        failures.join("\n")
    );
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
    let e = dxlane::job::run_job(&path, &dxlane::job::RunOptions::default()).unwrap_err();
    let text = e.to_string();
    assert!(
        text.contains("unknown engine \"fast\" (known: jit, interp)"),
        "{text}"
    );
    for name in ["interp", "jit"] {
        std::fs::write(&path, job(name)).unwrap();
        let r = dxlane::job::run_job(&path, &dxlane::job::RunOptions::default()).unwrap();
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
