//! Fuzzes the native engine against the interpreter: the input bytes choose a program
//! (straight-line arithmetic, an `if`/`else` on a lane-dependent bit, a loop of
//! lane-dependent length, every compilable instruction), the wave size, the denormal mode
//! and the per-lane input values; both engines run it and must write identical words.
#![no_main]

use dxlane::exec::jit::Engine;
use dxlane::ir::{parse_shader, validate};
use dxlane::pipeline::{Bindings, Plan, dispatch};
use dxlane::resources::{BufferKind, BufferView, Descriptor, Memory};

const OPS2: &[&str] = &[
    "fadd", "fsub", "fmul", "fdiv", "frem", "fmin", "fmax", "iadd", "isub", "imul", "imulhi",
    "umulhi", "udiv", "urem", "idiv", "irem", "imin", "imax", "umin", "umax", "and", "or", "xor",
    "shl", "ushr", "ishr",
];
const OPS1: &[&str] = &[
    "mov", "ftoi", "ftou", "itof", "utof", "f32tof16", "f16tof32", "ineg", "not", "bfrev",
    "countbits", "firstbit_hi", "firstbit_lo", "firstbit_shi", "sext 8,", "sext 16,",
    "funary sqrt,", "funary rsq,", "funary rcp,", "funary exp2,", "funary log2,", "funary sin,",
    "funary round_ne,", "funary floor,", "funary ceil,", "funary trunc,", "funary frac,",
    "funary sat,", "ftest nan,", "ftest inf,", "ftest finite,", "ftest normal,",
];
const OPS3: &[&str] = &["select", "fmad", "fmad_precise", "ffma", "imad", "msad", "ubfe", "ibfe"];
const CMPS: &[&str] = &[
    "fcmp eq,", "fcmp ne,", "fcmp lt,", "fcmp uge,", "fcmp ord,", "fcmp uno,", "icmp eq,",
    "icmp slt,", "icmp ult,", "icmp sge,",
];

/// Working registers r8..r15; constants r0..r7.
fn reg(b: u8) -> String {
    format!("r{}", 8 + (b & 7))
}

fn src(b: u8) -> String {
    format!("r{}", b & 15)
}

fn block(bytes: &mut std::slice::Iter<'_, u8>, n: usize) -> String {
    let mut out = String::new();
    for _ in 0..n {
        let (Some(&k), Some(&d), Some(&a), Some(&b), Some(&c)) =
            (bytes.next(), bytes.next(), bytes.next(), bytes.next(), bytes.next())
        else {
            break;
        };
        let line = match k % 4 {
            0 => format!("{} {}, {}, {}", OPS2[k as usize / 4 % OPS2.len()], reg(d), src(a), src(b)),
            1 => format!("{} {}, {}", OPS1[k as usize / 4 % OPS1.len()], reg(d), src(a)),
            2 => format!(
                "{} {}, {}, {}, {}",
                OPS3[k as usize / 4 % OPS3.len()],
                reg(d),
                src(a),
                src(b),
                src(c)
            ),
            _ => format!("{} {}, {}, {}", CMPS[k as usize / 4 % CMPS.len()], reg(d), src(a), src(b)),
        };
        out += &format!("    {line}\n");
    }
    out
}

fn words(m: &Memory) -> Vec<u32> {
    m.to_bytes()
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if data.len() < 40 {
        return;
    }
    let wave = [4u32, 8, 16, 32, 64, 128][data[0] as usize % 6];
    let fp = if data[1] & 1 == 0 { "ftz" } else { "preserve" };
    let threads = 2 * wave;
    let mut consts = String::new();
    for i in 0..8 {
        let v = u32::from_le_bytes([data[2 + 4 * i], data[3 + 4 * i], data[4 + 4 * i], data[5 + 4 * i]]);
        // r0 = 0 and r1 = 1 keep the skeleton's indices and masks.
        let v = match i {
            0 => 0,
            1 => 1,
            _ => v,
        };
        consts += &format!("const r{i} = {v:#x}\n");
    }
    let mut it = data[34..].iter();
    let a = block(&mut it, 6);
    let b = block(&mut it, 4);
    let c = block(&mut it, 4);
    let d = block(&mut it, 4);
    let text = format!(
        "shader compute\ngroup [{threads} 1 1]\nfp32 {fp}\n{consts}\
         resource range0 = uav space 0 lower 0 count 1 structured_buffer(stride 32) uint \"io\"\n\
         block0:\n    sysval thread_id, 0, r16\n    lane_count r17\n    handle r18, range0, r0\n\
         \x20   struct_load b32, 15, [r8 r9 r10 r11], r18, r16, r0\n{a}\
         \x20   and r19, r8, r1\n    branch r19, block1, block2\n\
         block1:\n{b}    jump block3\nblock2:\n{c}    jump block3\n\
         block3:\n    and r20, r9, r7\n    mov r21, r0\n    jump block4\n\
         block4:\n{d}    iadd r21, r21, r1\n    icmp ult, r22, r21, r20\n    branch r22, block4, block5\n\
         block5:\n    struct_store b32, 15, r18, r16, r0, [r8 r9 r10 r11]\n    return\n"
    );
    let Ok(shader) = parse_shader(&text) else { return };
    if validate(&shader).is_err() {
        return;
    }
    let input: Vec<u8> = data.iter().cycle().take(threads as usize * 32).copied().collect();
    let mut outs = Vec::new();
    for engine in [Engine::Interp, Engine::Jit] {
        let m = Memory::from_bytes(&input).unwrap();
        let bindings = Bindings {
            ranges: vec![vec![Descriptor::Buffer {
                view: BufferView::whole(m.clone(), BufferKind::Structured { stride: 32 }),
                counter: None,
            }]],
            ..Bindings::default()
        };
        let o = Plan {
            wave_size: Some(wave),
            threads: 1,
            engine,
            ..Plan::default()
        };
        let r = dispatch(&shader, &bindings, [1, 1, 1], &o, None);
        outs.push((r.map(|_| ()).map_err(|e| e.to_string()), words(&m)));
    }
    assert_eq!(outs[0], outs[1], "the engines differ on\n{text}");
});
