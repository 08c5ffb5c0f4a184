//! Differential check of the DXBC decoder against vkd3d's disassembler: for every DXBC
//! program, `$VKD3D_COMPILER -x dxbc-tpf -b d3d-asm FILE` and dxlane's listing must give
//! the same instruction sequence — the same mnemonics and the same register and
//! immediate operands, after normalising the ways vkd3d's text differs from fxc's.
//!
//! Every normalisation is listed below with the reason for it; any difference it does
//! not explain fails the test, reported per program. Skips (with a message) when
//! `VKD3D_COMPILER` is not set.

use std::path::Path;
use std::process::Command;

use dxlane::dxbc::{Program, listing};

use crate::common;

/// Mnemonics vkd3d spells differently from fxc: (vkd3d, fxc). Compared after removing
/// the `_indexable`/`_aoffimmi` words and every `(…)`/`[…]` group from both sides.
const MNEMONIC_ALIASES: &[(&str, &str, &str)] = &[
    (
        "dsx",
        "deriv_rtx",
        "vkd3d prints the SM1-3 name of deriv_rtx",
    ),
    (
        "dsy",
        "deriv_rty",
        "vkd3d prints the SM1-3 name of deriv_rty",
    ),
    ("ld2dms", "ldms", "vkd3d's name for the multisampled load"),
    (
        "dcl_gs_instances",
        "dcl_gsinstances",
        "vkd3d separates the words of dcl_gsinstances",
    ),
    (
        "sample_info",
        "sampleinfo",
        "vkd3d separates the words of sampleinfo",
    ),
    (
        "sample_info_uint",
        "sampleinfo_uint",
        "the same with the uint return type",
    ),
    (
        "dcl_index_range",
        "dcl_indexrange",
        "vkd3d separates the words of dcl_indexrange",
    ),
];

/// Registers vkd3d names differently from fxc: (vkd3d, fxc), compared in lower case.
const REGISTER_ALIASES: &[(&str, &str, &str)] = &[
    ("primid", "vprim", "vkd3d's name for the input primitive id"),
    (
        "vdomainlocation",
        "vdomain",
        "vkd3d's name for the domain point",
    ),
    (
        "r",
        "vinnercoverage",
        "vkd3d 2.1 has no name for the inner-coverage register (type 42) and prints a bare `r`",
    ),
];

/// Register prefixes followed by a number or `[` (`r0`, `cb1[2]`, `v[3][0]`, `T0[1]`).
const PREFIXES: &[&str] = &[
    "vicp", "vocp", "vpc", "icb", "this", "cb", "fb", "ft", "fp", "fi", "fo", "r", "v", "o", "x",
    "s", "t", "u", "l", "m", "g",
];

/// Registers without a number.
const NAMED: &[&str] = &[
    "vprim",
    "odepth",
    "null",
    "rasterizer",
    "omask",
    "voutputcontrolpointid",
    "vforkinstanceid",
    "vjoininstanceid",
    "vdomain",
    "vthreadid",
    "vthreadgroupid",
    "vthreadidingroup",
    "vcoverage",
    "vthreadidingroupflattened",
    "vgsinstanceid",
    "odepthge",
    "odepthle",
    "vcyclecounter",
    "ostencilref",
    "vinnercoverage",
];

/// One immediate value as printed: fxc prints by operand type (`1.000000`, `-1`,
/// `0x7fffffff`), vkd3d by its own rules (`1.00000000e+00`, `1065353216`, hex in the
/// immediate constant buffer). Values agree when their bit patterns agree or, for two
/// floats, when they agree to the six decimals fxc prints.
#[derive(Debug, Clone, Copy)]
struct Value {
    bits: Option<u32>,
    float: Option<f64>,
    text_is_float: bool,
}

impl Value {
    fn parse(t: &str) -> Option<Value> {
        let t = t.trim().trim_end_matches('l');
        let lower = t.to_ascii_lowercase();
        if matches!(lower.as_str(), "inf" | "+inf" | "-inf" | "nan" | "-nan") {
            let f: f64 = lower.trim_start_matches('+').parse().ok()?;
            return Some(Value {
                bits: Some((f as f32).to_bits()),
                float: Some(f),
                text_is_float: true,
            });
        }
        let (neg, body) = match t.strip_prefix('-') {
            Some(rest) => (true, rest),
            None => (false, t),
        };
        if let Some(hex) = body.strip_prefix("0x") {
            let v = u32::from_str_radix(hex, 16).ok()?;
            let v = if neg { v.wrapping_neg() } else { v };
            return Some(Value {
                bits: Some(v),
                float: None,
                text_is_float: false,
            });
        }
        if t.contains(['.', 'e', 'E']) {
            let f: f64 = t.parse().ok()?;
            return Some(Value {
                bits: Some((f as f32).to_bits()),
                float: Some(f),
                text_is_float: true,
            });
        }
        let i: i64 = t.parse().ok()?;
        Some(Value {
            bits: Some(i as u32),
            float: Some(i as f64),
            text_is_float: false,
        })
    }

    fn agrees(&self, other: &Value) -> bool {
        if self.bits.is_some() && self.bits == other.bits {
            return true;
        }
        match (self.float, other.float) {
            (Some(a), Some(b)) if self.text_is_float && other.text_is_float => {
                (a.is_nan() && b.is_nan()) || a == b || (a - b).abs() <= 6e-7 + 1e-7 * b.abs()
            }
            _ => false,
        }
    }
}

#[derive(Debug, Clone)]
enum Operand {
    Register(String),
    Values(Vec<Value>),
}

impl Operand {
    fn agrees(&self, other: &Operand) -> bool {
        match (self, other) {
            (Operand::Register(a), Operand::Register(b)) => a == b,
            (Operand::Values(a), Operand::Values(b)) => {
                a.len() == b.len() && a.iter().zip(b).all(|(x, y)| x.agrees(y))
            }
            _ => false,
        }
    }

    fn text(&self) -> String {
        match self {
            Operand::Register(r) => r.clone(),
            Operand::Values(v) => format!(
                "l({})",
                v.iter()
                    .map(|v| v
                        .float
                        .map_or_else(|| format!("{:#x}", v.bits.unwrap_or(0)), |f| f.to_string()))
                    .collect::<Vec<_>>()
                    .join(",")
            ),
        }
    }
}

#[derive(Debug, Clone)]
struct Line {
    mnemonic: String,
    operands: Vec<Operand>,
    text: String,
}

/// Splits at top-level commas (outside `()`, `[]`, `{}`).
fn split_top(s: &str) -> Vec<&str> {
    let (mut depth, mut start, mut out) = (0i32, 0usize, Vec::new());
    for (i, ch) in s.char_indices() {
        match ch {
            '(' | '[' | '{' => depth += 1,
            ')' | ']' | '}' => depth -= 1,
            ',' if depth == 0 => {
                out.push(&s[start..i]);
                start = i + 1;
            }
            _ => {}
        }
    }
    out.push(&s[start..]);
    out.into_iter()
        .map(str::trim)
        .filter(|p| !p.is_empty())
        .collect()
}

/// Removes every `(…)` and `[…]` group.
fn strip_groups(s: &str) -> String {
    let mut depth = 0i32;
    s.chars()
        .filter(|&c| match c {
            '(' | '[' => {
                depth += 1;
                false
            }
            ')' | ']' => {
                depth -= 1;
                false
            }
            _ => depth == 0,
        })
        .collect()
}

/// The mnemonic: fxc writes `resinfo_indexable(texture2d)(float,…)_uint`, vkd3d
/// `resinfo_uint_indexable(texture2d)`; fxc `sample_aoffimmi(1,-1,0)`, vkd3d
/// `sample(1,-1,0)`; both may write `[precise(x)]`. The words `_indexable` and
/// `_aoffimmi` and every group are dropped, then the aliases applied.
fn normalize_mnemonic(m: &str) -> String {
    let m = strip_groups(m)
        .replace("_indexable", "")
        .replace("_aoffimmi", "")
        .replace(' ', "")
        .to_ascii_lowercase();
    MNEMONIC_ALIASES
        .iter()
        .find(|(v, _, _)| *v == m)
        .map_or(m.clone(), |(_, f, _)| f.to_string())
}

/// A register operand in a canonical form, or `None` for a keyword (interpolation modes,
/// system value names, sampler modes, `space=0`: fxc and vkd3d spell them differently
/// and they are not operands).
///
/// - lower case: fxc writes Shader Model 5.1 bindings upper case (`T0[1]`, `CB0[0][2]`),
///   vkd3d lower case;
/// - a swizzle of four equal letters is written as one (`.xxxx` → `.x`): vkd3d shortens
///   replicated swizzles, fxc prints the operand's four selectors;
/// - the register aliases above.
fn normalize_register(word: &str) -> Option<String> {
    let (neg, w) = match word.strip_prefix('-') {
        Some(rest) => (true, rest),
        None => (false, word),
    };
    let (abs, w) = match w.strip_prefix('|').and_then(|r| r.strip_suffix('|')) {
        Some(inner) => (true, inner),
        None => (false, w),
    };
    let mut w = w.to_ascii_lowercase();
    for (from, to, _) in REGISTER_ALIASES {
        if w == *from || w.starts_with(&format!("{from}.")) || w.starts_with(&format!("{from}[")) {
            w = format!("{to}{}", &w[from.len()..]);
        }
    }
    // Relative indices name registers too: normalise inside brackets.
    let w = w.replace("primid", "vprim");
    let name_end = w.find(['.', '[']).unwrap_or(w.len());
    let name = &w[..name_end];
    let is_register = NAMED.contains(&name)
        || PREFIXES.iter().any(|p| {
            name.strip_prefix(p).is_some_and(|rest| {
                rest.is_empty() && w[name_end..].starts_with('[')
                    || (!rest.is_empty() && rest.chars().all(|c| c.is_ascii_digit()))
            })
        });
    if !is_register {
        return None;
    }
    let w = collapse_swizzle(&w);
    Some(match (neg, abs) {
        (false, false) => w,
        (true, false) => format!("-{w}"),
        (false, true) => format!("|{w}|"),
        (true, true) => format!("-|{w}|"),
    })
}

fn collapse_swizzle(w: &str) -> String {
    if let Some(dot) = w.rfind('.') {
        let sw = &w[dot + 1..];
        if sw.len() == 4
            && sw.chars().all(|c| "xyzw".contains(c))
            && sw.chars().all(|c| sw.starts_with(c))
        {
            return format!("{}{}", &w[..=dot], &sw[..1]);
        }
    }
    w.to_string()
}

/// The operands of one comma-separated piece: `l(…)`/`d(…)` immediates; otherwise each
/// word that is a register or a number (keywords dropped); `{min16f}`-style marks kept
/// as written (both tools write them the same way).
fn parse_piece(piece: &str, out: &mut Vec<Operand>) {
    let mut marks = String::new();
    let mut body = String::new();
    let mut in_mark = false;
    for ch in piece.chars() {
        match ch {
            '{' => in_mark = true,
            '}' => in_mark = false,
            c if in_mark => marks.push(c),
            c => body.push(c),
        }
    }
    let body = body.trim();
    let lit = body.trim_start_matches(['-', '|']);
    if let Some(inner) = lit.strip_prefix("l(").or_else(|| lit.strip_prefix("d(")) {
        let inner = inner.trim_end_matches('|').trim_end_matches(')');
        out.push(Operand::Values(
            inner.split(',').filter_map(Value::parse).collect(),
        ));
        return;
    }
    for word in body.split_whitespace() {
        if let Some(v) = Value::parse(word) {
            out.push(Operand::Values(vec![v]));
        } else if let Some(r) = normalize_register(word) {
            out.push(Operand::Register(if marks.is_empty() {
                r
            } else {
                format!("{r} {{{marks}}}")
            }));
        }
    }
}

/// Splits a listing into normalised lines. The immediate constant buffer, printed over
/// several lines by both tools, becomes one line whose operand is all its values.
fn parse(text: &str) -> Vec<Line> {
    let mut lines = Vec::new();
    let mut raw = text
        .lines()
        .map(str::trim)
        .filter(|l| !l.is_empty() && !l.starts_with("//"));
    while let Some(line) = raw.next() {
        if line.starts_with("dcl_immediateConstantBuffer") {
            let mut block = line.to_string();
            let depth = |s: &str| s.matches('{').count() as i64 - s.matches('}').count() as i64;
            while depth(&block) > 0 {
                match raw.next() {
                    Some(next) => block.push_str(next),
                    None => break,
                }
            }
            let values = block.replace(['{', '}'], ",");
            let values = values.trim_start_matches("dcl_immediateConstantBuffer");
            lines.push(Line {
                mnemonic: "dcl_immediateconstantbuffer".into(),
                operands: vec![Operand::Values(
                    values.split(',').filter_map(Value::parse).collect(),
                )],
                text: "dcl_immediateConstantBuffer { … }".into(),
            });
            continue;
        }
        // The mnemonic runs to the first space outside groups, then takes any `[…]` or
        // `(…)` groups that follow (`ld_structured_indexable [precise(x)](structured_buffer,
        // stride=4)(mixed,…)`).
        let mut depth = 0i32;
        let mut end = line.len();
        let bytes: Vec<char> = line.chars().collect();
        let mut i = 0;
        while i < bytes.len() {
            match bytes[i] {
                '(' | '[' => depth += 1,
                ')' | ']' => depth -= 1,
                ' ' if depth == 0 => {
                    let rest: String = bytes[i..].iter().collect();
                    let trimmed = rest.trim_start();
                    if trimmed.starts_with("[precise") {
                        i += rest.len() - trimmed.len();
                        continue;
                    }
                    end = line.char_indices().nth(i).map_or(line.len(), |(b, _)| b);
                    break;
                }
                _ => {}
            }
            i += 1;
        }
        let (mnemonic, rest) = line.split_at(end);
        let mut operands = Vec::new();
        for piece in split_top(rest) {
            parse_piece(piece, &mut operands);
        }
        lines.push(Line {
            mnemonic: normalize_mnemonic(mnemonic),
            operands,
            text: line.to_string(),
        });
    }
    lines
}

/// The differences between the two sequences, as messages.
fn compare(ours: &[Line], theirs: &[Line]) -> Vec<String> {
    let mut diffs = Vec::new();
    for (n, (a, b)) in ours.iter().zip(theirs).enumerate() {
        let same = a.mnemonic == b.mnemonic
            && a.operands.len() == b.operands.len()
            && a.operands.iter().zip(&b.operands).all(|(x, y)| x.agrees(y));
        if !same {
            diffs.push(format!(
                "line {}: dxlane `{}` [{} | {}] vs vkd3d `{}` [{} | {}]",
                n + 1,
                a.text,
                a.mnemonic,
                a.operands
                    .iter()
                    .map(Operand::text)
                    .collect::<Vec<_>>()
                    .join(", "),
                b.text,
                b.mnemonic,
                b.operands
                    .iter()
                    .map(Operand::text)
                    .collect::<Vec<_>>()
                    .join(", ")
            ));
            if diffs.len() >= 5 {
                break;
            }
        }
    }
    if ours.len() != theirs.len() {
        diffs.push(format!(
            "dxlane has {} lines, vkd3d {}",
            ours.len(),
            theirs.len()
        ));
    }
    diffs
}

fn vkd3d_listing(compiler: &std::ffi::OsStr, path: &Path) -> Result<String, String> {
    let out = Command::new(compiler)
        .args([
            "-x",
            "dxbc-tpf",
            "-b",
            "d3d-asm",
            "--formatting=-indent,-header",
        ])
        .arg(path)
        .output()
        .map_err(|e| format!("cannot run {}: {e}", compiler.to_string_lossy()))?;
    if !out.status.success() {
        return Err(format!(
            "vkd3d failed: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(String::from_utf8_lossy(&out.stdout).into_owned())
}

#[test]
fn listings_agree_with_vkd3d() {
    let Some(compiler) = common::vkd3d_compiler("the DXBC listing comparison with vkd3d") else {
        return;
    };
    let mut failures = Vec::new();
    let (mut programs, mut agreeing, mut lines) = (0usize, 0usize, 0usize);
    for path in common::dxbc_programs() {
        let name = common::display_name(&path);
        programs += 1;
        let program = Program::from_bytes(&std::fs::read(&path).unwrap()).unwrap();
        let theirs = match vkd3d_listing(&compiler, &path) {
            Ok(t) => parse(&t),
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        let ours = parse(&listing(&program));
        let diffs = compare(&ours, &theirs);
        if diffs.is_empty() {
            agreeing += 1;
            lines += ours.len();
        } else {
            failures.push(format!("{name}:\n  {}", diffs.join("\n  ")));
        }
    }
    eprintln!("vkd3d: {agreeing} of {programs} programs agree ({lines} lines compared)");
    assert!(
        failures.is_empty(),
        "{} programs differ from vkd3d:\n{}",
        failures.len(),
        failures.join("\n")
    );
}

/// The hand-assembled programs committed beside the examples (not under `shaders/` or
/// the corpora): vkd3d's disassembler reads them as dxlane lists them. The instanced
/// cube's geometry program (`dcl_gsinstances`, `vGSInstanceID`) and the fork/join hull
/// program (a join phase reading `vpc#`) have what no compiled program of the project
/// has.
#[test]
fn hand_assembled_example_programs_agree_with_vkd3d() {
    let Some(compiler) =
        common::vkd3d_compiler("the hand-assembled programs' comparison with vkd3d")
    else {
        return;
    };
    for name in [
        "examples/frames/cube_map_instanced.gs_5_0.dxbc",
        "tests/jobs/debug_chain/fork_join.hs_5_0.dxbc",
    ] {
        let path = common::root().join(name);
        let program = Program::from_bytes(&std::fs::read(&path).unwrap()).unwrap();
        let theirs =
            parse(&vkd3d_listing(&compiler, &path).unwrap_or_else(|e| panic!("{name}: {e}")));
        let ours = parse(&listing(&program));
        assert!(ours.len() > 20, "{name}: {} lines", ours.len());
        let diffs = compare(&ours, &theirs);
        assert!(diffs.is_empty(), "{name}:\n  {}", diffs.join("\n  "));
    }
}

#[test]
fn normalisation_rules() {
    assert_eq!(
        normalize_mnemonic("resinfo_indexable(texture2d)(float,float,float,float)_uint"),
        "resinfo_uint"
    );
    assert_eq!(
        normalize_mnemonic("resinfo_uint_indexable(texture2d)"),
        "resinfo_uint"
    );
    assert_eq!(
        normalize_mnemonic("sample_aoffimmi(1,-1,0)"),
        normalize_mnemonic("sample(1,-1,0)")
    );
    assert_eq!(
        normalize_register("T0[2].xxxx"),
        normalize_register("t0[2].x")
    );
    assert_eq!(
        normalize_register("-|cb0[r0.x + 1].y|"),
        Some("-|cb0[r0.x + 1].y|".into())
    );
    assert_eq!(normalize_register("position"), None);
    assert_eq!(normalize_register("finalTriUeq0EdgeTessFactor"), None);
    assert_eq!(normalize_register("primID"), Some("vprim".into()));
    let a = Value::parse("1.000000").unwrap();
    assert!(a.agrees(&Value::parse("1065353216").unwrap()));
    assert!(a.agrees(&Value::parse("1.00000000e+00").unwrap()));
    assert!(
        Value::parse("0.333333")
            .unwrap()
            .agrees(&Value::parse("3.33333343e-01").unwrap())
    );
    assert!(!a.agrees(&Value::parse("2").unwrap()));
    // A listing compared with another program's fails.
    let a = parse("mov r0.xy, v1.xyxx\nadd r0.x, r0.y, l(1.000000)");
    let b = parse("mov r0.xy, v1.xyzx\nadd r0.x, r0.y, l(2.00000000e+00)");
    assert_eq!(compare(&a, &b).len(), 2);
    let lines = parse(
        "ld_structured_indexable [precise(x)](structured_buffer, stride=4)(mixed,mixed,mixed,mixed) r0.x, v0.x, l(0), u0.x",
    );
    assert_eq!(lines[0].mnemonic, "ld_structured");
    assert_eq!(lines[0].operands.len(), 4);
}
