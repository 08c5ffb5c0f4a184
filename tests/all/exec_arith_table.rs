//! Rows of DirectXShaderCompiler's `tools/clang/unittests/HLSLExec/ShaderOpArithTable.xml`
//! (execution tests validated on WARP), run on the interpreter.
//!
//! Each row's HLSL operation is written as the IR a lowering produces for it (one
//! instruction where the IR has one; `f16tof32 → op → f32tohalf` for 16-bit float rows; the
//! few-instruction sequences dxc emits for `firstbithigh`, `exp`, `log`, `dot`, `msad4`,
//! `dot4add`), applied to the row's inputs, and compared with the row's expected values
//! under the row's own tolerance (`Epsilon`, `ulp`, `Relative`). Table and row are named
//! in every failure. Rows the IR cannot express without lowering decisions of its own
//! (16-bit integer arithmetic) are left to the lowering tests.

use dxlane::exec::jit::Engine;
use dxlane::pipeline::Plan;
use dxlane::resources::format::{Rounding, f32_to_small_magnitude, small_float_to_f32};

use super::exec::{opts, run, shader, structured, words};

/// A row's tolerance, as the table states it.
#[derive(Clone, Copy, Debug)]
enum Tol {
    /// Bit-exact (integers; `Epsilon 0` float rows compare values, see `Eps`).
    Exact,
    /// `|got − expected| <= e` (float rows of type `Epsilon`).
    Eps(f64),
    /// Within `n` units in the last place (`ulp`).
    Ulp(u32),
    /// Relative error below `2^-n` (`Relative`).
    Rel(i32),
}

/// How a row's values are read and its result compared.
#[derive(Clone, Copy, Debug, PartialEq)]
enum Kind {
    /// 32-bit floats.
    F32,
    /// 16-bit floats (the low half of a word).
    F16,
    /// 32-bit integers.
    Int,
}

struct Row<'a> {
    table: &'a str,
    row: &'a str,
    /// The instructions: inputs in r22, r23, r24; result in r25; scratch r26…
    body: &'a str,
    /// `fp32` mode of the program (`ftz` for rows compiled without `-denorm`).
    fp32: &'a str,
    kind: Kind,
    tol: Tol,
    inputs: [&'a [&'a str]; 3],
    expected: &'a [&'a str],
    /// Alternative expected values (`Expected2` of `-denorm any` rows): either matches.
    alt: &'a [&'a str],
    /// How results are read, when not as the inputs are.
    out: Option<Kind>,
}

const HALF_DENORM: u32 = 0x0001;
const F32_DENORM: u32 = 0x0040_0000; // FLT_MIN / 2

fn parse_f32(s: &str) -> u32 {
    let t = s.trim();
    match t.to_ascii_lowercase().as_str() {
        "nan" => 0x7fc0_0000,
        "inf" => f32::INFINITY.to_bits(),
        "-inf" => f32::NEG_INFINITY.to_bits(),
        "denorm" => F32_DENORM,
        "-denorm" => F32_DENORM | 0x8000_0000,
        _ => {
            if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                u32::from_str_radix(h, 16).unwrap()
            } else {
                t.parse::<f32>().unwrap().to_bits()
            }
        }
    }
}

fn to_half(x: f32) -> u32 {
    if x.is_nan() {
        return 0x7e00;
    }
    ((x.to_bits() >> 16) & 0x8000) | f32_to_small_magnitude(x, 10, Rounding::NearestEven)
}

fn parse_f16(s: &str) -> u32 {
    let t = s.trim();
    match t.to_ascii_lowercase().as_str() {
        "nan" => 0x7e00,
        "inf" => 0x7c00,
        "-inf" => 0xfc00,
        "denorm" => HALF_DENORM,
        "-denorm" => HALF_DENORM | 0x8000,
        _ => {
            if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                u32::from_str_radix(h, 16).unwrap()
            } else {
                to_half(t.parse::<f32>().unwrap())
            }
        }
    }
}

fn parse_int(s: &str) -> u32 {
    let t = s.trim();
    if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
        u32::from_str_radix(h, 16).unwrap()
    } else {
        t.parse::<i64>().unwrap() as u32
    }
}

fn parse(kind: Kind, s: &str) -> u32 {
    match kind {
        Kind::F32 => parse_f32(s),
        Kind::F16 => parse_f16(s),
        Kind::Int => parse_int(s),
    }
}

fn value(kind: Kind, bits: u32) -> f64 {
    match kind {
        Kind::F16 => f64::from(small_float_to_f32(bits & 0xffff, 10, true)),
        _ => f64::from(f32::from_bits(bits)),
    }
}

fn ordered(kind: Kind, bits: u32) -> i64 {
    // Sign-magnitude to a monotonic integer; ±0 both map to 0.
    let (sign, mag) = match kind {
        Kind::F16 => (bits & 0x8000 != 0, i64::from(bits & 0x7fff)),
        _ => (bits & 0x8000_0000 != 0, i64::from(bits & 0x7fff_ffff)),
    };
    if sign { -mag } else { mag }
}

fn matches(kind: Kind, tol: Tol, got: u32, want: u32) -> bool {
    if kind == Kind::Int {
        return got == want;
    }
    let (g, w) = (value(kind, got), value(kind, want));
    if w.is_nan() {
        return g.is_nan();
    }
    if w.is_infinite() || g.is_nan() || g.is_infinite() {
        return g == w;
    }
    match tol {
        Tol::Exact => g == w,
        Tol::Eps(e) => (g - w).abs() <= e,
        Tol::Ulp(n) => (ordered(kind, got) - ordered(kind, want)).abs() <= i64::from(n),
        Tol::Rel(n) => (g - w).abs() <= w.abs() * 2f64.powi(-n),
    }
}

const HEADER: &str = "const r0 = 0
const r1 = 12
const r2 = 0x3f800000
const r3 = 0x7fffffff
const r4 = 31
const r5 = 0xffffffff
const r6 = 0x3c00
const r7 = 8
const r8 = 0x3fb8aa3b
const r9 = 0x3f317218
const r10 = 0x7fff
const r11 = 16
const r12 = 24
const r13 = 32
resource range0 = uav space 0 lower 0 count 1 structured_buffer(stride 16) uint \"io\"";

/// Runs one row: inputs at words 0–2 of each element, the result at word 3.
fn check(r: &Row<'_>) -> usize {
    let n = r.expected.len();
    let mut io = vec![0u32; n * 4];
    for (k, list) in r.inputs.iter().enumerate() {
        for (i, v) in list.iter().enumerate() {
            io[i * 4 + k] = parse(r.kind, v);
        }
    }
    let text = format!(
        "shader compute\ngroup [{n} 1 1]\nfp32 {}\n{HEADER}\nblock0:\n    sysval thread_id, 0, r20\n    handle r21, range0, r0\n    struct_load b32, 7, [r22 r23 r24 _], r21, r20, r0\n{}\n    struct_store b32, 1, r21, r20, r1, [r25 _ _ _]\n    return\n",
        r.fp32, r.body
    );
    let s = shader(&text);
    // Both engines; their words must be identical before either is checked.
    let mut outs = Vec::new();
    for engine in [Engine::Interp, Engine::Jit] {
        let (m, d) = structured(&io, 16);
        let o = Plan {
            engine,
            ..opts(8, 1)
        };
        run(&s, vec![d], [1, 1, 1], &o).unwrap_or_else(|e| panic!("{}/{}: {e}", r.table, r.row));
        outs.push(words(&m));
    }
    assert_eq!(
        outs[0], outs[1],
        "{}/{}: the engines differ",
        r.table, r.row
    );
    let out = outs.pop().unwrap_or_default();
    let ok_kind = r.out.unwrap_or(r.kind);
    for i in 0..n {
        let got = out[i * 4 + 3];
        let want = parse(ok_kind, r.expected[i]);
        let alt = r.alt.get(i).map(|a| parse(ok_kind, a));
        let ok = matches(ok_kind, r.tol, got, want)
            || alt.is_some_and(|a| matches(ok_kind, r.tol, got, a));
        assert!(
            ok,
            "ShaderOpArithTable.xml {} row {} value {i}: inputs {:?} gave {got:#010x} ({}), expected {} ({want:#010x}) with {:?}",
            r.table,
            r.row,
            r.inputs.iter().filter_map(|l| l.get(i)).collect::<Vec<_>>(),
            value(ok_kind, got),
            r.expected[i],
            r.tol
        );
    }
    n
}

/// The rows, one per line: `table | row | fp32 | inputs kind > results kind | tolerance |
/// body | input 1 | input 2 | input 3 | expected | alternative expected`. Values are
/// separated by spaces; `@` stands for `NaN -Inf -denorm -0 0 denorm Inf`. In bodies, `;`
/// separates instructions; inputs are r22–r24, the result r25, scratch r26 and up;
/// constants: r0 = 0, r1 = 12, r2 = 1.0, r3 = 0x7fffffff, r4 = 31, r5 = 0xffffffff,
/// r6 = half 1.0, r7 = 8, r8 = log2 e, r9 = ln 2, r10 = 0x7fff, r11 = 16, r12 = 24.
const ROWS: &str = "
UnaryFloatOpTable | Htan | ftz | f32 | eps 0.0008 | funary tanh, r25, r22 | @ 1 -1 | | | NaN -1 -0.0 -0.0 0.0 0.0 1 0.761594 -0.761594 |
UnaryFloatOpTable | Atan | ftz | f32 | eps 0.0008 | funary atan, r25, r22 | @ 1 -1 | | | NaN -1.570796 0.0 0.0 0.0 0.0 1.570796 0.785398163 -0.785398163 |
UnaryFloatOpTable | Tan | ftz | f32 | eps 0.0008 | funary tan, r25, r22 | @ -314.16 314.16 | | | NaN NaN -0 -0 0 0 NaN -0.000735 0.000735 |
UnaryFloatOpTable | Round_ni | ftz | f32 | exact | funary floor, r25, r22 | @ 10.0 10.4 10.5 10.6 -10.0 -10.4 -10.5 -10.6 | | | NaN -Inf -0 -0 0 0 Inf 10.0 10.0 10.0 10.0 -10.0 -11.0 -11.0 -11.0 |
UnaryFloatOpTable | Round_ne | ftz | f32 | exact | funary round_ne, r25, r22 | @ 10.0 10.4 10.5 10.6 11.5 -10.0 -10.4 -10.5 -10.6 | | | NaN -Inf -0 -0 0 0 Inf 10.0 10.0 10.0 11.0 12.0 -10.0 -10.0 -10.0 -11.0 |
UnaryFloatOpTable | Round_z | ftz | f32 | exact | funary trunc, r25, r22 | @ 10.0 10.4 10.5 10.6 -10.0 -10.4 -10.5 -10.6 | | | NaN -Inf -0 -0 0 0 Inf 10.0 10.0 10.0 10.0 -10.0 -10.0 -10.0 -10.0 |
UnaryFloatOpTable | Round_pi | ftz | f32 | exact | funary ceil, r25, r22 | @ 10.0 10.4 10.5 10.6 -10.0 -10.4 -10.5 -10.6 | | | NaN -Inf -0 -0 0 0 Inf 10.0 11.0 11.0 11.0 -10.0 -10.0 -10.0 -10.0 |
UnaryFloatOpTable | IsInf | ftz | f32 | exact | ftest inf, r26, r22; select r25, r26, r2, r0 | @ 1.0 -1.0 | | | 0 1 0 0 0 0 1 0 0 |
UnaryFloatOpTable | IsFinite | ftz | f32 | exact | ftest finite, r26, r22; select r25, r26, r2, r0 | @ 1.0 -1.0 | | | 0 0 1 1 1 1 0 1 1 |
UnaryFloatOpTable | IsNaN | ftz | f32 | exact | ftest nan, r26, r22; select r25, r26, r2, r0 | @ 1.0 -1.0 | | | 1 0 0 0 0 0 0 0 0 |
UnaryFloatOpTable | Exp | ftz | f32 | rel 21 | fmul r26, r22, r8; funary exp2, r25, r26 | @ -1 10 | | | NaN 0 1 1 1 1 Inf 0.367879441 22026.46579 |
UnaryFloatOpTable | Frc | ftz | f32 | eps 0.0008 | funary frac, r25, r22 | @ -1 2.718280 1000.599976 -7.389 | | | NaN NaN 0 0 0 0 NaN 0 0.718280 0.599976 0.611 |
UnaryFloatOpTable | Asin | ftz | f32 | eps 0.0008 | funary asin, r25, r22 | @ 1 -1 1.5 -1.5 | | | NaN NaN 0.0 0.0 0.0 0.0 NaN 1.570796 -1.570796 NaN NaN |
UnaryFloatOpTable | Log | ftz | f32 | rel 21 | funary log2, r26, r22; fmul r25, r26, r9 | @ -1 2.718281828 7.389056 100 | | | NaN NaN -Inf -Inf -Inf -Inf Inf NaN 1.0 1.99999998 4.6051701 |
UnaryFloatOpTable | Sqrt | ftz | f32 | ulp 1 | funary sqrt, r25, r22 | @ -1 2 16.0 256.0 | | | NaN NaN -0 -0 0 0 Inf NaN 1.41421356237 4.0 16.0 |
UnaryFloatOpTable | Hcos | ftz | f32 | eps 0.0008 | funary cosh, r25, r22 | @ 1 -1 | | | NaN Inf 1.0 1.0 1.0 1.0 Inf 1.543081 1.543081 |
UnaryFloatOpTable | Acos | ftz | f32 | eps 0.0008 | funary acos, r25, r22 | @ 1 -1 1.5 -1.5 | | | NaN NaN 1.570796 1.570796 1.570796 1.570796 NaN 0 3.1415926 NaN NaN |
UnaryFloatOpTable | Hsin | ftz | f32 | eps 0.0008 | funary sinh, r25, r22 | @ 1 -1 | | | NaN -Inf 0.0 0.0 0.0 0.0 Inf 1.175201 -1.175201 |
UnaryFloatOpTable | Sin | ftz | f32 | eps 0.0008 | funary sin, r25, r22 | @ -314.16 314.16 | | | NaN NaN -0 -0 0 0 NaN -0.0007346401 0.0007346401 |
UnaryFloatOpTable | Rsqrt | ftz | f32 | ulp 1 | funary rsq, r25, r22 | @ -1 16.0 256.0 65536.0 | | | NaN NaN -Inf -Inf Inf Inf 0 NaN 0.25 0.0625 0.00390625 |
UnaryFloatOpTable | Cos | ftz | f32 | eps 0.0008 | funary cos, r25, r22 | @ -314.16 314.16 | | | NaN NaN 1.0 1.0 1.0 1.0 NaN 0.99999973015 0.99999973015 |
UnaryFloatOpTable | FAbs | ftz | f32 | exact | and r25, r22, r3 | @ 1.0 -1.0 | | | NaN Inf denorm 0 0 denorm Inf 1 1 |
BinaryFloatOpTable | FMul | ftz | f32 | ulp 1 | fmul r25, r22, r23 | -1.0 5.5 1.0000001 | 4 1.25 2.0 | | -4.0 6.875 2.0000002 |
BinaryFloatOpTable | FAdd | ftz | f32 | ulp 1 | fadd r25, r22, r23 | -1.0 1.0 32.5 1.0000001000 | 4 5.5 334.7 0.5000001000 | | 3.0 6.5 367.2 1.5000002000 |
BinaryFloatOpTable | FDiv | ftz | f32 | ulp 1 | fdiv r25, r22, r23 | -1.0 5.5 1.0000001 | 4 1.25 2.0 | | -0.25 4.4 0.50000006 |
BinaryFloatOpTable | FMin | ftz | f32 | exact | fmin r25, r22, r23 | -inf -inf -inf -inf inf inf inf inf NaN NaN NaN NaN 1.0 1.0 -1.0 -1.0 1.0 | -inf inf 1.0 NaN -inf inf 1.0 NaN -inf inf 1.0 NaN -inf inf 1.0 NaN -1.0 | | -inf -inf -inf -inf -inf inf 1.0 inf -inf inf 1.0 NaN -inf 1.0 -1.0 -1.0 -1.0 |
BinaryFloatOpTable | FMin (max) | ftz | f32 | exact | fmax r25, r22, r23 | -inf -inf -inf -inf inf inf inf inf NaN NaN NaN NaN 1.0 1.0 -1.0 -1.0 1.0 | -inf inf 1.0 NaN -inf inf 1.0 NaN -inf inf 1.0 NaN -inf inf 1.0 NaN -1.0 | | -inf inf 1.0 -inf inf inf inf inf -inf inf 1.0 NaN 1.0 inf 1.0 -1.0 1.0 |
BinaryFloatOpTable | FSub | ftz | f32 | ulp 1 | fsub r25, r22, r23 | -1.0 5.5 32.5 1.0000001000 | 4 1.25 334.7 0.5000001000 | | -5 4.25 -302.2 0.5000 |
TertiaryFloatOpTable | FMad | ftz | f32 | ulp 1 | fmad r25, r22, r23, r24 | @ 1.0 -1.0 0 1 1.5 | @ 1.0 -1.0 0 1 10 | @ 1.0 -1.0 1 0 -5.5 | NaN NaN 0 0 0 0 Inf 2 0 1 1 9.5 |
UnaryHalfOpTable | Round_neHalf | ftz | f16 | exact | HALF round_ne | @ 10.0 10.4 10.5 10.6 11.5 -10.0 -10.4 -10.5 -10.6 | | | NaN -Inf -0 -0 0 0 Inf 10.0 10.0 10.0 11.0 12.0 -10.0 -10.0 -10.0 -11.0 |
UnaryHalfOpTable | IsInfHalf | ftz | f16 | exact | f16tof32 r26, r22; ftest inf, r27, r26; select r25, r27, r6, r0 | @ 1.0 -1.0 | | | 0 1 0 0 0 0 1 0 0 |
UnaryHalfOpTable | TanHalf | ftz | f16 | eps 0.016 | HALF tan | @ 0.6279297 1.255859 1.884766 2.511719 3.140625 3.769531 4.398438 5.652344 6.281250 | | | NaN NaN -0 -0 0 0 NaN 0.72594857 3.06955433 -3.07967043 -0.72892153 -0.00096773 0.72596157 3.07986474 -0.7304042 -0.00193546 |
UnaryHalfOpTable | Round_piHalf | ftz | f16 | exact | HALF ceil | @ 10.0 10.4 10.5 10.6 -10.0 -10.4 -10.5 -10.6 | | | NaN -Inf -0 -0 0 1 Inf 10.0 11.0 11.0 11.0 -10.0 -10.0 -10.0 -10.0 |
UnaryHalfOpTable | AtanHalf | ftz | f16 | eps 0.0008 | HALF atan | @ 1 -1 | | | NaN -1.570796 0.0 0.0 0.0 0.0 1.570796 0.785398163 -0.785398163 |
UnaryHalfOpTable | IsFiniteHalf | ftz | f16 | exact | f16tof32 r26, r22; ftest finite, r27, r26; select r25, r27, r6, r0 | @ 1.0 -1.0 | | | 0 0 1 1 1 1 0 1 1 |
UnaryHalfOpTable | AcosHalf | ftz | f16 | eps 0.0010 | HALF acos | @ 1 -1 1.5 -1.5 | | | NaN NaN 1.570796 1.570796 1.570796 1.570796 NaN 0 3.1415926 NaN NaN |
UnaryHalfOpTable | IsNaNHalf | ftz | f16 | exact | f16tof32 r26, r22; ftest nan, r27, r26; select r25, r27, r6, r0 | @ 1.0 -1.0 | | | 1 0 0 0 0 0 0 0 0 |
UnaryHalfOpTable | Round_niHalf | ftz | f16 | exact | HALF floor | @ 10.0 10.4 10.5 10.6 -10.0 -10.4 -10.5 -10.6 | | | NaN -Inf -1 -0 0 0 Inf 10.0 10.0 10.0 10.0 -10.0 -11.0 -11.0 -11.0 |
UnaryHalfOpTable | SinHalf | ftz | f16 | eps 0.003 | HALF sin | @ 0.6279297 1.255859 1.884766 2.511719 3.140625 3.769531 4.398438 5.023438 5.652344 6.281250 | | | NaN NaN -0 -0 0 0 NaN 0.58747065 0.95081574 0.95111507 0.58904284 0.00096773 -0.58747751 -0.95112079 -0.95201313 -0.58982444 -0.00193545 |
UnaryHalfOpTable | HsinHalf | ftz | f16 | eps 0.0008 | HALF sinh | @ 1 -1 | | | NaN -Inf 0.0 0.0 0.0 0.0 Inf 1.175201 -1.175201 |
UnaryHalfOpTable | HcosHalf | ftz | f16 | ulp 2 | HALF cosh | @ 1 -1 | | | NaN Inf 1.0 1.0 1.0 1.0 Inf 1.543081 1.543081 |
UnaryHalfOpTable | Round_zHalf | ftz | f16 | exact | HALF trunc | @ 10.0 10.4 10.5 10.6 -10.0 -10.4 -10.5 -10.6 | | | NaN -Inf -0 -0 0 0 Inf 10.0 10.0 10.0 10.0 -10.0 -10.0 -10.0 -10.0 |
UnaryHalfOpTable | FrcHalf | ftz | f16 | eps 0.0008 | HALF frac | NaN -Inf 0x03FF -0 0 Inf -1 2.719 1000.5 0xC764 | | | NaN NaN 0x03FF 0 0 NaN 0 0.719 0.5 0x38E1 |
UnaryHalfOpTable | FAbsHalf | ftz | f16 | exact | and r25, r22, r10 | @ 1.0 -1.0 | | | NaN Inf denorm 0 0 denorm Inf 1 1 |
UnaryHalfOpTable | AsinHalf | ftz | f16 | eps 0.0008 | HALF asin | @ 1 -1 1.5 -1.5 | | | NaN NaN 0.0 0.0 0.0 0.0 NaN 1.570796 -1.570796 NaN NaN |
UnaryHalfOpTable | CosHalf | ftz | f16 | eps 0.003 | HALF cos | @ 0.6279297 1.255859 1.884766 2.511719 3.140625 3.769531 4.398438 5.023438 5.652344 6.281250 | | | NaN NaN 1.0 1.0 1.0 1.0 NaN 0.80924553 0.30975693 -0.30883664 -0.80810183 -0.99999952 -0.80924052 -0.30881903 0.30605716 0.80753154 0.99999809 |
UnaryHalfOpTable | HtanHalf | ftz | f16 | eps 0.0008 | HALF tanh | @ 1 -1 | | | NaN -1 -0.0 -0.0 0.0 0.0 1 0.761594 -0.761594 |
UnaryHalfOpTable | RsqrtHalf | ftz | f16 | ulp 1 | HALF rsq | NaN -Inf -denorm -0 0 0x03FF Inf -1 16.0 256.0 0x7bff | | | NaN NaN NaN -Inf Inf 0x5801 0 NaN 0.25 0.0625 0x1C00 |
UnaryHalfOpTable | SqrtHalf | ftz | f16 | ulp 1 | HALF sqrt | NaN -Inf -denorm -0 0 0x03FF Inf -1 2 16.0 256.0 | | | NaN NaN NaN -0 0 0x1FFF Inf NaN 1.41421 4.0 16.0 |
BinaryHalfOpTable | FDivHalf | ftz | f16 | ulp 1 | HALF2 fdiv | -1.0 5.5 1.0000001 | 4 1.25 2.0 | | -0.25 4.4 0.50000006 |
BinaryHalfOpTable | FMinHalf | ftz | f16 | exact | HALF2 fmin | -inf -inf -inf -inf inf inf inf inf NaN NaN NaN NaN 1.0 1.0 -1.0 -1.0 1.0 | -inf inf 1.0 NaN -inf inf 1.0 NaN -inf inf 1.0 NaN -inf inf 1.0 NaN -1.0 | | -inf -inf -inf -inf -inf inf 1.0 inf -inf inf 1.0 NaN -inf 1.0 -1.0 -1.0 -1.0 |
BinaryHalfOpTable | FMinHalf (max) | ftz | f16 | exact | HALF2 fmax | -inf -inf -inf -inf inf inf inf inf NaN NaN NaN NaN 1.0 1.0 -1.0 -1.0 1.0 | -inf inf 1.0 NaN -inf inf 1.0 NaN -inf inf 1.0 NaN -inf inf 1.0 NaN -1.0 | | -inf inf 1.0 -inf inf inf inf inf -inf inf 1.0 NaN 1.0 inf 1.0 -1.0 1.0 |
BinaryHalfOpTable | FMulHalf | ftz | f16 | ulp 1 | HALF2 fmul | -1.0 5.5 1.0000001 | 4 1.25 2.0 | | -4.0 6.875 2.0000002 |
BinaryHalfOpTable | FAddHalf | ftz | f16 | ulp 1 | HALF2 fadd | -1.0 1.0 32.5 1.0000001000 | 4 5.5 334.7 0.5000001000 | | 3.0 6.5 367.2 1.5000002000 |
BinaryHalfOpTable | FSubHalf | ftz | f16 | ulp 1 | HALF2 fsub | -1.0 5.5 32.5 1.0000001000 | 4 1.25 334.7 0.5000001000 | | -5 4.25 -302.2 0.5000 |
TertiaryHalfOpTable | FMadHalf | ftz | f16 | ulp 1 | f16tof32 r26, r22; f16tof32 r27, r23; f16tof32 r28, r24; fmad r29, r26, r27, r28; f32tohalf r25, r29 | NaN -Inf 0x03FF -0 0 Inf 1.0 -1.0 0 1 1.5 | NaN -Inf 1 -0 0 Inf 1.0 -1.0 0 1 10 | NaN -Inf 0x03FF -0 0 Inf 1.0 -1.0 1 0 -5.5 | NaN NaN 0x07FE 0 0 Inf 2 0 1 1 9.5 |
UnaryIntOpTable | FirstbitLo | ftz | int | exact | firstbit_lo r25, r22 | -2147483648 -65536 -8 -1 0 1 8 65536 2147483647 | | | 31 16 3 0 -1 0 3 16 0 |
UnaryIntOpTable | FirstbitSHi | ftz | int | exact | firstbit_shi r26, r22; isub r27, r4, r26; icmp eq, r28, r26, r5; select r25, r28, r5, r27 | -2147483648 -65536 -8 -1 0 1 8 65536 2147483647 | | | 30 15 2 -1 -1 0 3 16 30 |
UnaryIntOpTable | Countbits | ftz | int | exact | countbits r25, r22 | -2147483648 -65536 -8 -1 0 1 8 65536 2147483647 | | | 1 16 29 32 0 1 1 1 31 |
UnaryIntOpTable | Bfrev | ftz | int | exact | bfrev r25, r22 | -2147483648 -65536 -8 -1 0 1 8 65536 2147483647 | | | 1 65535 536870911 -1 0 -2147483648 268435456 32768 -2 |
UnaryUintOpTable | FirstbitHi | ftz | int | exact | firstbit_hi r26, r22; isub r27, r4, r26; icmp eq, r28, r26, r5; select r25, r28, r5, r27 | 0 1 8 65536 2147483647 4294967295 | | | -1 0 3 16 30 31 |
BinaryIntOpTable | IMul | ftz | int | exact | imul r25, r22, r23 | -2147483648 -10 -1 0 1 10 10000 2147483647 2147483647 | -10 -10 10 0 256 4 10001 0 2147483647 | | 0 100 -10 0 256 40 100010000 0 1 |
BinaryIntOpTable | Shl | ftz | int | exact | shl r25, r22, r23 | 1 1 0x1010 0xa -1 0x12341234 -1 | 0 259 4 2 0 15 3 | | 0x1 0x8 0x10100 0x28 -1 0x091a0000 -8 |
BinaryIntOpTable | Or | ftz | int | exact | or r25, r22, r23 | 0x1 0x01 0x7fff0000 0x11111111 0x137f 0x0 0x12345678 0xa341 -1 | 0x1 0xf0 0x0000ffff 0x22222222 0xec80 0x0 0x00000000 0x3471 -1 | | 0x1 0xf1 0x7fffffff 0x33333333 0xffff 0x0 0x12345678 0xb771 -1 |
BinaryIntOpTable | LShr | ftz | int | exact | ishr r25, r22, r23 | 1 1 0xffff 0x7fffffff 0x70001234 0x12340ab3 0x7fffffff | 0 1 4 30 15 16 1 | | 1 0 0xfff 1 0xe000 0x1234 0x3fffffff |
BinaryIntOpTable | ISub | ftz | int | exact | isub r25, r22, r23 | -2147483648 -10 0 0 10 2147483647 486 | 0 10 -10 10 10 0 54238 | | -2147483648 -20 10 -10 0 2147483647 -53752 |
BinaryIntOpTable | IDiv | ftz | int | exact | idiv r25, r22, r23 | 1 1 10 10000 2147483647 2147483647 -1 | 1 256 4 10001 2 2147483647 1 | | 1 0 2 0 1073741823 1 -1 |
BinaryIntOpTable | IDiv (remainder) | ftz | int | exact | irem r25, r22, r23 | 1 1 10 10000 2147483647 2147483647 -1 | 1 256 4 10001 2 2147483647 1 | | 0 1 2 10000 1 0 0 |
BinaryIntOpTable | IAdd | ftz | int | exact | iadd r25, r22, r23 | -2147483648 -10 0 0 10 2147483647 486 | 0 10 -10 10 10 0 54238 | | -2147483648 0 -10 10 20 2147483647 54724 |
BinaryIntOpTable | And | ftz | int | exact | and r25, r22, r23 | 0x1 0x01 0x7fff0000 0x33333333 0x137f 0x12345678 0xa341 -1 | 0x1 0xf0 0x0000ffff 0x22222222 0xec80 -1 0x3471 -1 | | 0x1 0x00 0x0 0x22222222 0x0 0x12345678 0x2041 -1 |
BinaryIntOpTable | IMin | ftz | int | exact | imin r25, r22, r23 | -2147483648 -10 0 0 10 2147483647 | 0 10 -10 10 10 0 | | -2147483648 -10 -10 0 10 0 |
BinaryIntOpTable | IMax | ftz | int | exact | imax r25, r22, r23 | -2147483648 -10 0 0 10 2147483647 | 0 10 -10 10 10 0 | | 0 10 0 10 10 2147483647 |
BinaryIntOpTable | Xor | ftz | int | exact | xor r25, r22, r23 | 0x1 0x01 0x7fff0000 0x11111111 0x137f 0x0 0x12345678 0xa341 -1 | 0x1 0xf0 0x0000ffff 0x22222222 0xec80 0x0 0x00000000 0x3471 -1 | | 0x0 0xf1 0x7fffffff 0x33333333 0xffff 0x0 0x12345678 0x9730 0x00000000 |
TertiaryIntOpTable | IMad | ftz | int | exact | imad r25, r22, r23, r24 | -2147483647 -256 -1 0 1 2 16 2147483647 1 -1 1 10 | 1 -256 -1 0 1 3 16 0 1 -1 10 100 | 0 0 0 0 1 3 1 255 2147483646 -2147483647 -10 -2000 | -2147483647 65536 1 0 2 9 257 255 2147483647 -2147483646 0 -1000 |
BinaryUintOpTable | USub | ftz | int | exact | isub r25, r22, r23 | 2147483648 4294967295 0 0 30 2147483647 54724 | 0 10 0 10 10 0 54238 | | 2147483648 4294967285 0 4294967286 20 2147483647 486 |
BinaryUintOpTable | UMul | ftz | int | exact | imul r25, r22, r23 | 0 1 10 10000 2147483647 | 0 256 4 10001 0 | | 0 256 40 100010000 0 |
BinaryUintOpTable | UAddc | ftz | int | exact | uaddc r25, r26, r22, r22 | 1 1 10000 0x80000000 0x7fffffff 0xffffffff | 0 256 10001 1 0x7fffffff 0x7fffffff | | 2 2 20000 0 0xfffffffe 0xfffffffe |
BinaryUintOpTable | UAddc (high word) | ftz | int | exact | uaddc r26, r27, r22, r22; iadd r28, r23, r23; iadd r25, r28, r27 | 1 1 10000 0x80000000 0x7fffffff 0xffffffff | 0 256 10001 1 0x7fffffff 0x7fffffff | | 0 512 20002 3 0xfffffffe 0xffffffff |
BinaryUintOpTable | UMin | ftz | int | exact | umin r25, r22, r23 | 0 0 10 10000 2147483647 4294967295 | 0 256 4 10001 0 4294967295 | | 0 0 4 10000 0 4294967295 |
BinaryUintOpTable | UMax | ftz | int | exact | umax r25, r22, r23 | 0 0 10 10000 2147483647 4294967295 | 0 256 4 10001 0 4294967295 | | 0 256 10 10001 2147483647 4294967295 |
BinaryUintOpTable | UAdd | ftz | int | exact | iadd r25, r22, r23 | 2147483648 4294967285 0 0 10 2147483647 486 | 0 10 0 10 10 0 54238 | | 2147483648 4294967295 0 10 20 2147483647 54724 |
BinaryUintOpTable | UDiv | ftz | int | exact | udiv r25, r22, r23 | 1 1 10 10000 2147483647 2147483647 0xffffffff | 0 256 4 10001 0 2147483647 1 | | 0xffffffff 0 2 0 0xffffffff 1 0xffffffff |
BinaryUintOpTable | UDiv (remainder) | ftz | int | exact | urem r25, r22, r23 | 1 1 10 10000 2147483647 2147483647 0xffffffff | 0 256 4 10001 0 2147483647 1 | | 0xffffffff 1 2 10000 0xffffffff 0 0 |
TertiaryUintOpTable | UMad | ftz | int | exact | imad r25, r22, r23, r24 | 0 1 2 16 2147483647 0 10 | 0 1 2 16 1 0 10 | 0 0 1 15 0 10 10 | 0 1 5 271 2147483647 10 110 |
DotOpTable | Dot (dot2) | ftz | f32 | eps 0.008 | fmul r26, r22, r23; fmad r25, r22, r23, r26 | @ 1 | @ 1 | | nan inf 0 0 0 0 inf 2 |
DotOpTable | Dot (dot3) | ftz | f32 | eps 0.008 | fmul r26, r22, r23; fmad r26, r22, r23, r26; fmad r25, r22, r23, r26 | @ 1 | @ 1 | | nan inf 0 0 0 0 inf 3 |
DotOpTable | Dot (dot4) | ftz | f32 | eps 0.008 | fmul r26, r22, r23; fmad r26, r22, r23, r26; fmad r26, r22, r23, r26; fmad r25, r22, r23, r26 | @ 1 | @ 1 | | nan inf 0 0 0 0 inf 4 |
DotOpTable | Dot (dot2, -10 0 0 10) | ftz | f32 | eps 0.008 | fmul r26, r22, r23; fmad r25, r0, r0, r26 | -10 | 10 | | -100 |
DotOpTable | Dot (dot4, -10 0 0 10) | ftz | f32 | eps 0.008 | fmul r26, r22, r23; fmad r26, r0, r0, r26; fmad r26, r0, r0, r26; fmad r25, r24, r24, r26 | -10 | 10 | 10 | 0 |
DotOpTable | Dot (dot4, Inf Inf Inf -Inf) | ftz | f32 | eps 0.008 | fmul r26, r22, r23; fmad r26, r22, r23, r26; fmad r26, r22, r23, r26; fmad r25, r24, r23, r26 | Inf | Inf | -Inf | nan |
DenormBinaryFloatOpTable | FDivDenormFTZ | ftz | f32 | ulp 1 | fdiv r25, r22, r23 | 0x007F0000 0x807F0000 0x20000000 0x00800000 | 1 4 0x607F0000 0x40000000 | | 0 0 0 0 |
DenormBinaryFloatOpTable | FDivDenormAny | any | f32 | ulp 1 | fdiv r25, r22, r23 | 0x007F0000 0x807F0000 0x20000000 0x00800000 | 1 4 0x607F0000 0x40000000 | | 0x007F0000 0x801FC000 0x00101010 0x00400000 | 0 0 0 0
DenormBinaryFloatOpTable | FDivDenormPreserve | preserve | f32 | ulp 1 | fdiv r25, r22, r23 | 0x007F0000 0x807F0000 0x20000000 0x00800000 | 1 4 0x607F0000 0x40000000 | | 0x007F0000 0x801FC000 0x00101010 0x00400000 |
DenormBinaryFloatOpTable | FAddDenormFTZ | ftz | f32 | ulp 1 | fadd r25, r22, r23 | 0x007E0000 0x00200000 0x007E0000 0x007E0000 | 0x007E0000 0x00200000 0x807E0000 0x800E0000 | | 0 0 0 0 |
DenormBinaryFloatOpTable | FAddDenormAny | any | f32 | ulp 1 | fadd r25, r22, r23 | 0x007E0000 0x00200000 0x007E0000 0x007E0000 | 0x007E0000 0x00200000 0x807E0000 0x800E0000 | | 0x00FC0000 0x00400000 0 0x00700000 | 0 0 0 0
DenormBinaryFloatOpTable | FAddDenormPreserve | preserve | f32 | ulp 1 | fadd r25, r22, r23 | 0x007E0000 0x00200000 0x007E0000 0x007E0000 | 0x007E0000 0x00200000 0x807E0000 0x800E0000 | | 0x00FC0000 0x00400000 0 0x00700000 |
DenormBinaryFloatOpTable | FMulDenormFTZ | ftz | f32 | ulp 1 | fmul r25, r22, r23 | 0x00000300 0x007F0000 0x007F0000 0x001E0000 0x00000300 | 128 1 0x007F0000 20 0x78000000 | | 0 0 0 0 0 |
DenormBinaryFloatOpTable | FMulDenormAny | any | f32 | ulp 1 | fmul r25, r22, r23 | 0x00000300 0x007F0000 0x007F0000 0x001E0000 0x00000300 | 128 1 0x007F0000 20 0x78000000 | | 0x00018000 0x007F0000 0 0x01960000 0x32400000 | 0 0 0 0 0
DenormBinaryFloatOpTable | FMulDenormPreserve | preserve | f32 | ulp 1 | fmul r25, r22, r23 | 0x00000300 0x007F0000 0x007F0000 0x001E0000 0x00000300 | 128 1 0x007F0000 20 0x78000000 | | 0x00018000 0x007F0000 0 0x01960000 0x32400000 |
DenormBinaryFloatOpTable | FSubDenormFTZ | ftz | f32 | ulp 1 | fsub r25, r22, r23 | 0x007E0000 0x007F0000 0x00FF0000 0x007A0000 | 0x007E0000 0x807F0000 0x00800000 0 | | 0x0 0 0 0 |
DenormBinaryFloatOpTable | FSubDenormAny | any | f32 | ulp 1 | fsub r25, r22, r23 | 0x007E0000 0x007F0000 0x00FF0000 0x007A0000 | 0x007E0000 0x807F0000 0x00800000 0 | | 0x0 0x00FE0000 0x007F0000 0x007A0000 | 0x0 0 0 0
DenormBinaryFloatOpTable | FSubDenormPreserve | preserve | f32 | ulp 1 | fsub r25, r22, r23 | 0x007E0000 0x007F0000 0x00FF0000 0x007A0000 | 0x007E0000 0x807F0000 0x00800000 0 | | 0x0 0x00FE0000 0x007F0000 0x007A0000 |
DenormTertiaryFloatOpTable | FMadDenormPreserve | preserve | f32 | ulp 1 | fmad r25, r22, r23, r24 | 0x80780000 0x80780000 0x00780000 | 1 2 2 | 0x80780000 0x00800000 0x00800000 | 0x80F00000 0x80700000 0x01380000 |
DenormTertiaryFloatOpTable | FMadDenormAny | any | f32 | ulp 1 | fmad r25, r22, r23, r24 | 0x80780000 0x80780000 0x00780000 | 1 2 2 | 0x80780000 0x00800000 0x00800000 | 0x80F00000 0x80700000 0x01380000 | 0 0x00800000 0x00800000
DenormTertiaryFloatOpTable | FMadDenormFTZ | ftz | f32 | ulp 1 | fmad r25, r22, r23, r24 | 0x80780000 0x80780000 0x00780000 | 1 2 2 | 0x80780000 0x00800000 0x00800000 | 0 0x00800000 0x00800000 |
Dot4AddI8PackedOpTable | Dot4AddI8Packed | ftz | int | exact | DOT4 ibfe | 0x00000102 0x00000102 0x00000102 0x00000102 0XFFFFFFFF 0x80808080 0x80808080 0x807F807F 0x7F7F7F7F 0x80808080 | 0x00000304 0x00000304 0x00000304 0x00000304 0xFFFFFFFF 0x01010101 0x7F7F7F7F 0x807F807F 0x7F7F7F7F 0x80808080 | 0 10 -5 -30 0 0 0 0 0 0 | 11 21 6 -19 4 -512 -65024 65026 64516 65536 |
Dot4AddU8PackedOpTable | Dot4AddU8Packed | ftz | int | exact | DOT4 ubfe | 0x00000102 0x00000102 0x01234567 0xFFFFFFFF 0xFFFFFFFF | 0x00000304 0x00000304 0x23456789 0xFFFFFFFF 0xFFFFFFFF | 0 10 10000 0 3000000000 | 11 21 33668 260100 3000260100 |
";

/// Expands `HALF op` (f16 → f32 → op → f16), `HALF2 op` and `DOT4 extract` bodies.
fn body(b: &str) -> String {
    let b = b.trim();
    if let Some(op) = b.strip_prefix("HALF2 ") {
        format!("f16tof32 r26, r22; f16tof32 r27, r23; {op} r28, r26, r27; f32tohalf r25, r28")
    } else if let Some(op) = b.strip_prefix("HALF ") {
        format!("f16tof32 r26, r22; funary {op}, r27, r26; f32tohalf r25, r27")
    } else if let Some(x) = b.strip_prefix("DOT4 ") {
        let mut s = String::new();
        for (k, shift) in ["r0", "r7", "r11", "r12"].iter().enumerate() {
            let acc = if k == 3 { "r25" } else { "r24" };
            s.push_str(&format!(
                "{x} r26, r7, {shift}, r22; {x} r27, r7, {shift}, r23; imad {acc}, r26, r27, r24; "
            ));
        }
        s
    } else {
        b.to_string()
    }
}

fn kind(s: &str) -> Kind {
    match s.trim() {
        "f32" => Kind::F32,
        "f16" => Kind::F16,
        _ => Kind::Int,
    }
}

fn tolerance(s: &str) -> Tol {
    let mut w = s.split_whitespace();
    match (w.next(), w.next()) {
        (Some("eps"), Some(x)) => Tol::Eps(x.parse().unwrap()),
        (Some("ulp"), Some(x)) => Tol::Ulp(x.parse().unwrap()),
        (Some("rel"), Some(x)) => Tol::Rel(x.parse().unwrap()),
        _ => Tol::Exact,
    }
}

fn values(s: &str) -> Vec<&str> {
    s.split_whitespace()
        .flat_map(|v| {
            if v == "@" {
                vec!["NaN", "-Inf", "-denorm", "-0", "0", "denorm", "Inf"]
            } else {
                vec![v]
            }
        })
        .collect()
}

/// Every row of [`ROWS`], run and compared.
#[test]
fn arith_table_rows() {
    let mut rows = 0;
    let mut checked = 0;
    for line in ROWS.lines().filter(|l| !l.trim().is_empty()) {
        let f: Vec<&str> = line.split('|').map(str::trim).collect();
        let [table, row, fp32, k, tol, b, i1, i2, i3, e, alt] = f[..] else {
            panic!("bad row line: {line}");
        };
        let (i1, i2, i3, e, alt) = (values(i1), values(i2), values(i3), values(e), values(alt));
        let b = body(b).replace("; ", "\n    ");
        let b = format!("    {}", b.trim_end_matches(['\n', ' ', ';']));
        checked += check(&Row {
            table,
            row,
            body: &b,
            fp32,
            kind: kind(k),
            tol: tolerance(tol),
            inputs: [&i1, &i2, &i3],
            expected: &e,
            alt: &alt,
            out: None,
        });
        rows += 1;
    }
    assert_eq!(rows, 107);
    assert!(checked > 700, "{checked}");
}

/// Dot2AddHalfOpTable: `dot2add(half2 a, half2 b, float acc) = acc + a.x·b.x + a.y·b.y`,
/// in f32 (inputs are two halves packed in a word).
#[test]
fn dot2add_half_table() {
    let rows = [
        ("1 2", "3 4", "0", "11"),
        ("1 -2", "-3 4", "0", "-11"),
        ("1 2", "3 4", "10", "21"),
        ("-1 2", "3 -4", "10", "-1"),
        ("1 2", "3 4", "-5", "6"),
        ("-1 2", "-3 4", "-5", "6"),
        ("1 2", "3 4", "-30", "-19"),
        ("-1 -2", "-3 -4", "-30", "-19"),
        ("65504 1", "1 65504", "0", "131008"),
        ("-65504 1", "1 -65504", "0", "-131008"),
        ("1 65504", "65504 1", "10000000", "10131008"),
        ("1 -65504", "-65504 1", "-10000000", "-10131008"),
        ("inf inf", "inf inf", "inf", "inf"),
        ("denorm denorm", "denorm denorm", "denorm", "0"),
        ("-denorm -denorm", "-denorm -denorm", "-denorm", "0"),
        ("nan nan", "nan nan", "nan", "nan"),
    ];
    let pack = |s: &str| -> String {
        let v: Vec<u32> = s.split_whitespace().map(parse_f16).collect();
        format!("0x{:08x}", v[0] | (v[1] << 16))
    };
    let a: Vec<String> = rows.iter().map(|r| pack(r.0)).collect();
    let b: Vec<String> = rows.iter().map(|r| pack(r.1)).collect();
    let c: Vec<String> = rows
        .iter()
        .map(|r| format!("0x{:08x}", parse_f32(r.2)))
        .collect();
    let e: Vec<&str> = rows.iter().map(|r| r.3).collect();
    let (a, b, c): (Vec<&str>, Vec<&str>, Vec<&str>) = (
        a.iter().map(String::as_str).collect(),
        b.iter().map(String::as_str).collect(),
        c.iter().map(String::as_str).collect(),
    );
    check(&Row {
        table: "Dot2AddHalfOpTable",
        row: "Dot2AddHalf",
        body: "    f16tof32 r26, r22\n    f16tof32 r27, r23\n    ushr r28, r22, r11\n    ushr r29, r23, r11\n    f16tof32 r28, r28\n    f16tof32 r29, r29\n    fmad r30, r26, r27, r24\n    fmad r25, r28, r29, r30",
        fp32: "ftz",
        kind: Kind::Int,
        tol: Tol::Eps(0.008),
        inputs: [&a, &b, &c],
        expected: &e,
        alt: &[],
        out: Some(Kind::F32),
    });
}

/// Msad4Table: `msad4(ref, source.xy, accum)` is four `msad`s on the 64-bit window
/// `source.xy` shifted by 0, 8, 16 and 24 bits (the IR's `msad` reads the low 32 bits of
/// its 64-bit window, DXIL.rst "Msad").
#[test]
fn msad4_table() {
    // (reference, source.xy, accum, expected)
    type Msad4Row = (u32, [u32; 2], [u32; 4], [u32; 4]);
    let rows: [Msad4Row; 4] = [
        (
            0xA100B2C3,
            [0xD7B0C372, 0x4F57C2A3],
            [1, 2, 3, 4],
            [153, 6, 92, 113],
        ),
        (
            0x00000000,
            [0xFFFFFFFF, 0x00000000],
            [1, 2, 3, 4],
            [1, 2, 3, 4],
        ),
        (
            0xFFFF01C1,
            [0x38A03AEF, 0x38194DA3],
            [0, 0, 0, 0],
            [397, 585, 358, 707],
        ),
        (
            0xFFFFFFFF,
            [0xFFFFFFFF, 0x00000000],
            [10, 10, 10, 10],
            [10, 265, 520, 775],
        ),
    ];
    let text = "shader compute
group [4 1 1]
const r0 = 0
const r1 = 8
const r2 = 16
const r3 = 24
const r4 = 44
resource range0 = uav space 0 lower 0 count 1 structured_buffer(stride 60) uint \"io\"
block0:
    sysval thread_id, 0, r5
    handle r6, range0, r0
    struct_load b32, 7, [r7 r8 r9 _], r6, r5, r0
    struct_load b32, 15, [r10 r11 r12 r13], r6, r5, r3
    u64shr r14, r8, r0
    msad r20, r7, r14, r10
    u64shr r14, r8, r1
    msad r21, r7, r14, r11
    u64shr r14, r8, r2
    msad r22, r7, r14, r12
    u64shr r14, r8, r3
    msad r23, r7, r14, r13
    struct_store b32, 15, r6, r5, r4, [r20 r21 r22 r23]
    return
";
    // Each element: ref, source.x, source.y at words 0–2, accum at 6–9, results at 11–14.
    let s = shader(text);
    let mut io = vec![0u32; 4 * 15];
    for (i, (r, src, acc, _)) in rows.iter().enumerate() {
        let e = &mut io[i * 15..][..15];
        e[0] = *r;
        e[1] = src[0];
        e[2] = src[1];
        e[6..10].copy_from_slice(acc);
    }
    let (m, d) = structured(&io, 60);
    run(&s, vec![d], [1, 1, 1], &opts(4, 1)).unwrap();
    let out = words(&m);
    for (i, (_, _, _, want)) in rows.iter().enumerate() {
        assert_eq!(
            &out[i * 15 + 11..][..4],
            want,
            "ShaderOpArithTable.xml Msad4Table row Bfi value {i}"
        );
    }
}
