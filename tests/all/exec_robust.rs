//! Robustness: random programs built from every instruction, fed hostile values (NaN,
//! infinities, denormals, huge and negative integers as addresses, coordinates and
//! handles), must run to completion or stop with a budget error — never panic.
//!
//! The generator is a fixed xorshift sequence, so a failure names a reproducible program
//! (printed in the panic message).

use dxlane::exec::{ExecError, Limits};
use dxlane::pipeline::{Bindings, Plan, dispatch};
use dxlane::resources::{
    BufferKind, BufferView, Counter, Descriptor, Format, Memory, SamplerDesc, Texture, TextureDesc,
    TextureDim, TextureView,
};

use super::exec::shader;

pub(crate) struct Rng(pub u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }
    pub(crate) fn below(&mut self, n: usize) -> usize {
        (self.next() % n as u64) as usize
    }
    fn pick<'a>(&mut self, v: &[&'a str]) -> &'a str {
        v[self.below(v.len())]
    }
}

const VALUES: &[u32] = &[
    0,
    1,
    2,
    3,
    4,
    8,
    31,
    32,
    33,
    0xffff_ffff,
    0x8000_0000,
    0x7fff_ffff,
    0x7fc0_0000,
    0xffc0_0000,
    0x7f80_0000,
    0xff80_0000,
    0x0000_0001,
    0x8040_0000,
    0x3f80_0000,
    0x3f00_0000,
    0xbf80_0000,
    0x7149_f2ca,
    0xf149_f2ca,
    0x4b80_0000,
    0x0001_0000,
    0xdead_beef,
    0x0000_ffff,
    0x3c00,
];

const F_BIN: &[&str] = &["fadd", "fsub", "fmul", "fdiv", "frem", "fmin", "fmax"];
const F_TRI: &[&str] = &["fmad", "fmad_precise", "ffma"];
const F_UN: &[&str] = &[
    "sqrt", "rsq", "rcp", "exp2", "log2", "sin", "cos", "tan", "asin", "acos", "atan", "sinh",
    "cosh", "tanh", "round_ne", "floor", "ceil", "trunc", "frac", "sat",
];
const F_COND: &[&str] = &[
    "eq", "ne", "lt", "le", "gt", "ge", "one", "ueq", "ult", "ule", "ugt", "uge", "ord", "uno",
    "false", "true",
];
const I_COND: &[&str] = &[
    "eq", "ne", "slt", "sle", "sgt", "sge", "ult", "ule", "ugt", "uge",
];
const CLASS: &[&str] = &["nan", "inf", "finite", "normal"];
const U32_OPS: &[&str] = &[
    "ftoi",
    "ftou",
    "itof",
    "utof",
    "f32tof16",
    "f32tohalf",
    "f16tof32",
    "ineg",
    "not",
    "bfrev",
    "countbits",
    "firstbit_hi",
    "firstbit_lo",
    "firstbit_shi",
    "mov",
];
const I_BIN: &[&str] = &[
    "iadd", "isub", "imul", "imulhi", "umulhi", "udiv", "urem", "idiv", "irem", "imin", "imax",
    "umin", "umax", "and", "or", "xor", "shl", "ushr", "ishr",
];
const D_BIN: &[&str] = &[
    "dadd", "dsub", "dmul", "ddiv", "drem", "dmin", "dmax", "i64add", "i64sub", "i64mul", "u64div",
    "u64rem", "i64div", "i64rem", "i64min", "i64max", "u64min", "u64max",
];
const D_UN: &[&str] = &[
    "drcp", "dsqrt", "dtoi64", "dtou64", "i64tod", "u64tod", "bfrev64",
];
const D_NARROW: &[&str] = &[
    "dtof",
    "dtoi",
    "dtou",
    "i64tof",
    "u64tof",
    "countbits64",
    "firstbit_hi64",
    "firstbit_lo64",
    "firstbit_shi64",
];
const D_WIDEN: &[&str] = &[
    "ftod", "itod", "utod", "ftoi64", "ftou64", "sext64", "zext64",
];
const D_SHIFT: &[&str] = &["i64shl", "u64shr", "i64shr"];
const ATOMIC: &[&str] = &[
    "add", "and", "or", "xor", "imin", "imax", "umin", "umax", "xchg", "sub",
];
const WAVE_OP: &[&str] = &["sum", "product", "min", "max", "and", "or", "xor"];
const WAVE_TY: &[&str] = &[
    "f16", "f32", "f64", "i16", "u16", "i32", "u32", "i64", "u64",
];
const SAMPLE_MODE: &[&str] = &[
    "implicit",
    "bias",
    "level",
    "grad",
    "cmp",
    "cmp_lz",
    "cmp_level",
    "cmp_bias",
    "cmp_grad",
];
const DERIV: &[&str] = &["coarse_x", "coarse_y", "fine_x", "fine_y"];
const WIDTH: &[&str] = &["b16", "b32", "b64"];

/// Handles prepared in the prologue: raw, structured, texture, sampler, typed buffer,
/// constant buffer, multisampled texture, UAV texture, 3D texture.
const HANDLES: &[&str] = &[
    "r48", "r49", "r50", "r51", "r52", "r53", "r54", "r55", "r56",
];

/// One random instruction.
fn instruction(g: &mut Rng) -> String {
    // Destinations r16–r44 (a pair or four-register list stays below r48); reads r0–r46.
    let d = |g: &mut Rng| format!("r{}", 16 + g.below(29));
    let r = |g: &mut Rng| format!("r{}", g.below(47));
    let p = |g: &mut Rng| format!("r{}", g.below(46));
    let h = |g: &mut Rng| {
        if g.below(8) == 0 {
            format!("r{}", g.below(47))
        } else {
            g.pick(HANDLES).to_string()
        }
    };
    match g.below(40) {
        0 => format!("{} {}, {}, {}", g.pick(F_BIN), d(g), r(g), r(g)),
        1 => format!("{} {}, {}, {}, {}", g.pick(F_TRI), d(g), r(g), r(g), r(g)),
        2 => format!("funary {}, {}, {}", g.pick(F_UN), d(g), r(g)),
        3 => format!("fcmp {}, {}, {}, {}", g.pick(F_COND), d(g), r(g), r(g)),
        4 => format!("ftest {}, {}, {}", g.pick(CLASS), d(g), r(g)),
        5 => format!("deriv {}, {}, {}", g.pick(DERIV), d(g), r(g)),
        6 => format!("{} {}, {}", g.pick(U32_OPS), d(g), r(g)),
        7 => format!("{} {}, {}, {}", g.pick(I_BIN), d(g), r(g), r(g)),
        8 => format!("icmp {}, {}, {}, {}", g.pick(I_COND), d(g), r(g), r(g)),
        9 => match g.below(6) {
            0 => format!("bfi {}, {}, {}, {}, {}", d(g), r(g), r(g), r(g), r(g)),
            1 => format!("ubfe {}, {}, {}, {}", d(g), r(g), r(g), r(g)),
            2 => format!("ibfe {}, {}, {}, {}", d(g), r(g), r(g), r(g)),
            3 => format!("uaddc {}, {}, {}, {}", d(g), d(g), r(g), r(g)),
            4 => format!("usubb {}, {}, {}, {}", d(g), d(g), r(g), r(g)),
            _ => format!("msad {}, {}, {}, {}", d(g), r(g), p(g), r(g)),
        },
        10 => format!("{} {}, {}, {}", g.pick(D_BIN), d(g), p(g), p(g)),
        11 => format!("{} {}, {}", g.pick(D_UN), d(g), p(g)),
        12 => format!("{} {}, {}", g.pick(D_NARROW), d(g), p(g)),
        13 => format!("{} {}, {}", g.pick(D_WIDEN), d(g), r(g)),
        14 => format!("{} {}, {}, {}", g.pick(D_SHIFT), d(g), p(g), r(g)),
        15 => match g.below(6) {
            0 => format!("dfma {}, {}, {}, {}", d(g), p(g), p(g), p(g)),
            1 => format!("dcmp {}, {}, {}, {}", g.pick(F_COND), d(g), p(g), p(g)),
            2 => format!("dtest {}, {}, {}", g.pick(CLASS), d(g), p(g)),
            3 => format!("i64cmp {}, {}, {}, {}", g.pick(I_COND), d(g), p(g), p(g)),
            4 => format!("select64 {}, {}, {}, {}", d(g), r(g), p(g), p(g)),
            _ => format!("select {}, {}, {}, {}", d(g), r(g), r(g), r(g)),
        },
        16 => match g.below(6) {
            0 => format!("sysval thread_id, {}, {}", g.below(3), d(g)),
            1 => format!("group_index {}", d(g)),
            2 => format!("lane_index {}", d(g)),
            3 => format!("lane_count {}", d(g)),
            4 => format!("cycle_counter {}", d(g)),
            _ => format!("sext {}, {}, {}", [8, 16][g.below(2)], d(g), r(g)),
        },
        17 => {
            let w = g.pick(WIDTH);
            if g.below(2) == 0 {
                format!(
                    "local_load {w}, 1, [{} _ _ _], x0, {}, {}",
                    d(g),
                    r(g),
                    g.below(20)
                )
            } else {
                format!(
                    "local_store {w}, 1, x0, {}, {}, [{} _ _ _]",
                    r(g),
                    g.below(20),
                    p(g)
                )
            }
        }
        18 => format!(
            "const_load {}, 3, [{} {} _ _], icb0, {}, {}",
            g.pick(WIDTH),
            d(g),
            d(g),
            r(g),
            g.below(16)
        ),
        19 => {
            let w = g.pick(WIDTH);
            match g.below(6) {
                0 => format!(
                    "shared_load {w}, 1, [{} _ _ _], {}, {}",
                    d(g),
                    r(g),
                    g.below(40)
                ),
                1 => format!(
                    "shared_store {w}, 1, {}, {}, [{} _ _ _]",
                    r(g),
                    g.below(40),
                    p(g)
                ),
                2 => format!(
                    "shared_atomic {}, {}, {}, {}",
                    g.pick(ATOMIC),
                    d(g),
                    r(g),
                    r(g)
                ),
                3 => format!("shared_cmpxchg {}, {}, {}, {}", d(g), r(g), r(g), r(g)),
                4 => format!(
                    "shared_atomic64 {}, {}, {}, {}",
                    g.pick(ATOMIC),
                    d(g),
                    r(g),
                    p(g)
                ),
                _ => format!("shared_cmpxchg64 {}, {}, {}, {}", d(g), r(g), p(g), p(g)),
            }
        }
        20 => format!("handle {}, range{}, {}", d(g), g.below(9), r(g)),
        21 => format!(
            "heap_handle {}, {}, {}",
            ["false", "true"][g.below(2)],
            d(g),
            r(g)
        ),
        22 => {
            let w = g.pick(WIDTH);
            match g.below(4) {
                0 => format!(
                    "raw_load {w}, 3, [{} {} _ _], {}, {}",
                    d(g),
                    d(g),
                    h(g),
                    r(g)
                ),
                1 => format!("raw_store {w}, 1, {}, {}, [{} _ _ _]", h(g), r(g), p(g)),
                2 => format!(
                    "struct_load {w}, 1, [{} _ _ _], {}, {}, {}",
                    d(g),
                    h(g),
                    r(g),
                    r(g)
                ),
                _ => format!(
                    "struct_store {w}, 2, {}, {}, {}, [_ {} _ _]",
                    h(g),
                    r(g),
                    r(g),
                    p(g)
                ),
            }
        }
        23 => format!(
            "typed_load [{} _ {} _], {}, [{} {} {}], {}, {}, ({} {} {}), {}",
            d(g),
            d(g),
            h(g),
            r(g),
            r(g),
            r(g),
            r(g),
            r(g),
            g.below(16) as i32 - 8,
            g.below(16) as i32 - 8,
            g.below(3),
            d(g)
        ),
        24 => {
            let mask = 1 + g.below(15);
            let src: Vec<String> = (0..4)
                .map(|i| {
                    if mask & (1 << i) != 0 {
                        r(g)
                    } else {
                        "_".to_string()
                    }
                })
                .collect();
            format!(
                "typed_store {}, [{} {} {}], {}, [{}], {mask}",
                h(g),
                r(g),
                r(g),
                r(g),
                r(g),
                src.join(" ")
            )
        }
        25 => match g.below(4) {
            0 => format!(
                "res_atomic {}, {}, {}, [{} {} _], {}",
                g.pick(ATOMIC),
                d(g),
                h(g),
                r(g),
                r(g),
                r(g)
            ),
            1 => format!(
                "res_cmpxchg {}, {}, [{} {} _], {}, {}",
                d(g),
                h(g),
                r(g),
                r(g),
                r(g),
                r(g)
            ),
            2 => format!(
                "res_atomic64 {}, {}, {}, [{} {} _], {}",
                g.pick(ATOMIC),
                d(g),
                h(g),
                r(g),
                r(g),
                p(g)
            ),
            _ => format!(
                "res_cmpxchg64 {}, {}, [{} _ _], {}, {}",
                d(g),
                h(g),
                r(g),
                p(g),
                p(g)
            ),
        },
        26 => match g.below(6) {
            0 => format!("counter_inc {}, {}", d(g), h(g)),
            1 => format!("counter_dec {}, {}", d(g), h(g)),
            2 => format!(
                "cb_load {}, 15, [{} {} {} {}], {}, {}, {}",
                g.pick(WIDTH),
                d(g),
                d(g),
                d(g),
                d(g),
                h(g),
                r(g),
                g.below(64)
            ),
            3 => format!(
                "dimensions [{} {} {} {}], {}, {}",
                d(g),
                d(g),
                d(g),
                d(g),
                h(g),
                r(g)
            ),
            4 => format!("sample_count {}, {}", d(g), h(g)),
            _ => format!("sample_pos [{} {}], {}, {}", d(g), d(g), h(g), r(g)),
        },
        27 | 28 => format!(
            "sample {}, [{} {} {} {}], {}, {}, [{} {} {} {}], ({} {} {}), [_ _], {}, {}, [{} {} {}], [{} {} {}], {}, {}",
            g.pick(SAMPLE_MODE),
            d(g),
            d(g),
            d(g),
            d(g),
            h(g),
            h(g),
            r(g),
            r(g),
            r(g),
            r(g),
            g.below(16) as i32 - 8,
            g.below(16) as i32 - 8,
            g.below(16) as i32 - 8,
            r(g),
            r(g),
            r(g),
            r(g),
            r(g),
            r(g),
            r(g),
            r(g),
            r(g),
            d(g)
        ),
        29 => format!(
            "gather {}, {}, [{} {} {} {}], {}, {}, [{} {} {} {}], (0 0 0), [{} {}], _, {}, [_ _ _], [_ _ _], _, _",
            g.pick(SAMPLE_MODE),
            g.below(4),
            d(g),
            d(g),
            d(g),
            d(g),
            h(g),
            h(g),
            r(g),
            r(g),
            r(g),
            r(g),
            r(g),
            r(g),
            r(g)
        ),
        30 => format!(
            "lod [{} {}], {}, {}, [{} {} {}]",
            d(g),
            d(g),
            h(g),
            h(g),
            r(g),
            r(g),
            r(g)
        ),
        31 | 32 => {
            let ty = g.pick(WAVE_TY);
            let float = ty.starts_with('f');
            let op = loop {
                let o = g.pick(WAVE_OP);
                if !(float && ["and", "or", "xor"].contains(&o)) {
                    break o;
                }
            };
            let src = if ty.ends_with("64") { p(g) } else { r(g) };
            match g.below(3) {
                0 => format!("wave_reduce {op}, {ty}, {}, {src}", d(g)),
                1 => format!("wave_prefix {op}, {ty}, {}, {src}", d(g)),
                _ => format!(
                    "wave_multi_prefix {op}, {ty}, {}, {src}, [{} {} {} {}]",
                    d(g),
                    r(g),
                    r(g),
                    r(g),
                    r(g)
                ),
            }
        }
        33 => match g.below(9) {
            0 => format!("wave_any {}, {}", d(g), r(g)),
            1 => format!("wave_all {}, {}", d(g), r(g)),
            2 => format!("wave_all_equal true, {}, {}", d(g), p(g)),
            3 => format!(
                "wave_ballot [{} {} {} {}], {}",
                d(g),
                d(g),
                d(g),
                d(g),
                r(g)
            ),
            4 => format!("wave_countbits {}, {}", d(g), r(g)),
            5 => format!("wave_prefix_countbits {}, {}", d(g), r(g)),
            6 => format!("wave_is_first {}", d(g)),
            7 => format!(
                "wave_match true, [{} {} {} {}], {}",
                d(g),
                d(g),
                d(g),
                d(g),
                p(g)
            ),
            _ => format!(
                "wave_multi_prefix_countbits {}, {}, [{} {} {} {}]",
                d(g),
                r(g),
                r(g),
                r(g),
                r(g),
                r(g)
            ),
        },
        34 => match g.below(5) {
            0 => format!("wave_read_lane true, {}, {}, {}", d(g), p(g), r(g)),
            1 => format!("wave_read_first false, {}, {}", d(g), r(g)),
            2 => format!("quad_read_lane true, {}, {}, {}", d(g), p(g), r(g)),
            3 => format!(
                "quad_swap {}, false, {}, {}",
                ["x", "y", "diag"][g.below(3)],
                d(g),
                r(g)
            ),
            _ => format!(
                "quad_vote {}, {}, {}",
                ["true", "false"][g.below(2)],
                d(g),
                r(g)
            ),
        },
        35 => match g.below(4) {
            0 => "barrier true, true, false".to_string(),
            1 => format!("demote {}", r(g)),
            2 => format!("is_helper {}", d(g)),
            _ => format!("discard {}", r(g)),
        },
        _ => format!("{} {}, {}, {}", g.pick(F_BIN), d(g), r(g), r(g)),
    }
}

/// A random program: a prologue making handles, then blocks with an `if` and a loop of
/// random instructions.
pub(crate) fn program(g: &mut Rng, tg: [u32; 3]) -> String {
    let mut t = format!(
        "shader compute\ngroup [{} {} {}]\nfp32 {}\nheap resource\nheap sampler\n",
        tg[0],
        tg[1],
        tg[2],
        ["ftz", "preserve", "any"][g.below(3)]
    );
    for i in 0..16 {
        let v = if g.below(4) == 0 {
            g.next() as u32
        } else {
            VALUES[g.below(VALUES.len())]
        };
        t.push_str(&format!("const r{i} = {v:#x}\n"));
    }
    t.push_str("local x0 16\nconstarray icb0 [1 2 3 0x7fc00000]\ngroupshared 36\n");
    let kinds = [
        "uav space 0 lower 0 count 1 raw_buffer uint",
        "uav space 0 lower 1 count 1 structured_buffer(stride 12) uint counter",
        "srv space 0 lower 0 count 1 texture2d float",
        "sampler space 0 lower 0 count 1 sampler mixed",
        "uav space 0 lower 2 count 1 typed_buffer float",
        "cbv space 0 lower 0 count 1 cbuffer(size 32) mixed",
        "srv space 0 lower 1 count 1 texture2dms uint",
        "uav space 0 lower 3 count 1 texture2d uint",
        "srv space 0 lower 2 count 1 texturecube float",
    ];
    for (i, k) in kinds.iter().enumerate() {
        t.push_str(&format!("resource range{i} = {k}\n"));
    }
    t.push_str("block0:\n");
    for (i, hr) in HANDLES.iter().enumerate() {
        t.push_str(&format!("    handle {hr}, range{i}, r0\n"));
    }
    let mut body = |t: &mut String, n: usize| {
        for _ in 0..n {
            t.push_str(&format!("    {}\n", instruction(g)));
        }
    };
    body(&mut t, 12);
    t.push_str("    mov r47, r0\n    branch r16, block1, block2\nblock1:\n");
    body(&mut t, 12);
    t.push_str("    jump block2\nblock2:\n");
    body(&mut t, 12);
    t.push_str("    iadd r47, r47, r3\n    icmp ult, r46, r47, r15\n    branch r46, block2, block3\nblock3:\n");
    body(&mut t, 6);
    t.push_str("    return\n");
    t
}

pub(crate) fn bindings() -> Bindings {
    let buf = |kind| Descriptor::Buffer {
        view: BufferView::whole(Memory::zeroed(64).unwrap(), kind),
        counter: Some(Counter::new(3)),
    };
    let tex = |dim, format, w, h, d, mips, samples| {
        Descriptor::Texture(TextureView::whole(
            Texture::new(TextureDesc {
                dim,
                format,
                width: w,
                height: h,
                depth_or_array_size: d,
                mips,
                samples,
            })
            .unwrap(),
        ))
    };
    let cb = Descriptor::ConstantBuffer {
        memory: Memory::from_bytes(&[7; 40]).unwrap(),
        offset: 4,
        size: 32,
    };
    Bindings {
        ranges: vec![
            vec![buf(BufferKind::Raw)],
            vec![buf(BufferKind::Structured { stride: 12 })],
            vec![tex(
                TextureDim::Tex2D,
                Format::R8G8B8A8_UNORM,
                4,
                4,
                1,
                3,
                1,
            )],
            vec![Descriptor::Sampler(SamplerDesc::default())],
            vec![buf(BufferKind::Typed {
                format: Format::R11G11B10_FLOAT,
            })],
            vec![cb],
            vec![tex(TextureDim::Tex2DMS, Format::R32_UINT, 2, 2, 1, 1, 4)],
            vec![tex(TextureDim::Tex2D, Format::R32_UINT, 3, 3, 1, 1, 1)],
            vec![tex(
                TextureDim::Cube,
                Format::R16G16B16A16_FLOAT,
                2,
                2,
                6,
                2,
                1,
            )],
        ],
        resource_heap: vec![
            buf(BufferKind::Raw),
            tex(TextureDim::Tex3D, Format::R10G10B10A2_UNORM, 2, 2, 2, 2, 1),
            tex(
                TextureDim::Tex1DArray,
                Format::R9G9B9E5_SHAREDEXP,
                4,
                1,
                3,
                1,
                1,
            ),
        ],
        sampler_heap: vec![Descriptor::Sampler(SamplerDesc {
            filter: dxlane::resources::Filter::from_name("COMPARISON_ANISOTROPIC").unwrap(),
            address: [dxlane::resources::AddressMode::Border; 3],
            ..SamplerDesc::default()
        })],
    }
}

/// Random programs never panic: they finish, or stop at the instruction budget.
#[test]
fn random_programs_never_panic() {
    let mut g = Rng(0x9e37_79b9_7f4a_7c15);
    let b = bindings();
    for case in 0..500 {
        let tg = [
            1 + g.below(6) as u32 * 2,
            1 + g.below(3) as u32,
            1 + g.below(2) as u32,
        ];
        let text = program(&mut g, tg);
        let s = shader(&text);
        let o = Plan {
            wave_size: Some([4, 8, 16, 32, 64, 128][g.below(6)]),
            threads: 1 + g.below(2),
            limits: Limits {
                max_lane_instructions: 5_000,
                ..Limits::default()
            },
            ..crate::common::plan()
        };
        let r = std::panic::catch_unwind(|| dispatch(&s, &b, [2, 1, 1], &o, None));
        match r {
            Ok(Ok(_)) | Ok(Err(ExecError::Budget { .. })) => {}
            Ok(Err(e)) => panic!("case {case}: {e}\n{text}"),
            Err(_) => panic!("case {case} panicked:\n{text}"),
        }
    }
}
