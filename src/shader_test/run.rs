//! Running a shader-test file: once per shader model, each draw or dispatch a job.
//!
//! # How a draw or dispatch becomes a job
//!
//! Each `draw` and `dispatch` writes a job file (TOML, made with the `toml` crate) and
//! its programs and data into a temporary folder, runs it through `job` like `dxlane run`
//! does, and reads back the outputs it wrote there. The job file is the `job` module's
//! public contract, so this keeps to what any user of dxlane can write, and a failing
//! case can be kept and rerun by hand (`--keep`). Render targets, UAVs and the
//! depth-stencil buffer carry their contents from one command to the next as vkd3d's
//! runner keeps them: each job starts from the previous one's outputs.
//!
//! vkd3d's runner facts followed here (vkd3d `tests/shader_runner.c`): the default render
//! target is 640 × 480 `R32G32B32A32_FLOAT`; `draw quad` draws one triangle through
//! (−2, −2), (−2, 4), (4, −2) with a pass-through vertex program unless the file gives
//! one; uniforms are 32-bit words in `cb0`, padded to whole vectors with the bytes 0x7f;
//! a probe's ulp distance is taken between the floats' bits in sign-magnitude order; a
//! probe after a draw that could not run is not checked.
//!
//! Multisampled render targets and textures (`2dms`) carry every sample from one job to
//! the next and are probed resolved, as vkd3d's readback resolves them; a
//! `counter_buffer` UAV's counter is its buffer's first word, as vkd3d's D3D12 runner
//! makes the buffer its own counter resource. Texture arrays (`2darray`) keep their
//! layers in D3D12's subresource order; a draw into an array render target is written
//! as a command list of one draw (a `[draw]` target is one 2D texture), its target
//! viewed over every layer, and `probe (x, y, layer)` reads one layer.
//!
//! Limits: the depth-stencil buffer starts each draw from the last `clear dsv` value
//! (a job's depth buffer has no initial data); textures other than buffers, 2D ones and
//! 2D arrays,
//! multisampled UAVs and depth buffers, and the `rov` and `wave ops` requirements are
//! not run — the run is reported as skipped, saying which.
//!
//! Geometry, hull and domain sections go into every later draw's job as its `gs`, `hs`
//! and `ds` programs, as vkd3d's runner keeps each stage's last program; a draw with a
//! hull program and no domain program (or the reverse) fails, as vkd3d's refuses it.
//! Hull and domain sections need SM 5.0: a run below it that reaches one is skipped.

use std::collections::{BTreeMap, BTreeSet};
use std::path::{Path, PathBuf};
use std::process::Command as Process;
use std::sync::atomic::{AtomicU64, Ordering};

use toml::{Table, Value};

use super::TAGS;
use super::parse::{
    Model, Qualifier, SectionKind, ShaderTest, Stage, parse_model, split_qualifiers,
};

/// The default render target (vkd3d's `RENDER_TARGET_WIDTH` × `_HEIGHT`).
const DEFAULT_RT: (u32, u32) = (640, 480);

/// Names this process's temporary folders.
static TEMPORARIES: AtomicU64 = AtomicU64::new(0);

/// Bytes read back from one job output, at most.
const MAX_OUTPUT_BYTES: u64 = 1 << 30;

/// Bytes of one resource, at most: a size or stride in the file cannot make the runner
/// allocate more than this for it.
const MAX_RESOURCE_BYTES: usize = 256 << 20;

/// How to run a file.
#[derive(Debug, Clone, Default)]
pub struct RunConfig {
    /// Worker threads of each job.
    pub threads: Option<usize>,
    /// The WARP profile.
    pub profile: Option<String>,
    /// Run only these models (default: [`super::parse::MODELS`]).
    pub models: Option<Vec<Model>>,
    /// `vkd3d-compiler` (SM 4–5), when found.
    pub vkd3d_compiler: Option<PathBuf>,
    /// `dxc` (SM 6), when found.
    pub dxc: Option<PathBuf>,
    /// Keep each run's temporary folder (its jobs and programs) and say where.
    pub keep: bool,
}

/// How one run ended.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Outcome {
    /// Every probe held (todo probes aside) and every shader compiled as expected.
    Pass,
    /// A probe failed, or a shader's compile did not go as the file says.
    Fail,
    /// Not run, or stopped: [`RunReport::skipped`] says why.
    Skip,
}

impl Outcome {
    /// `pass`, `fail`, `skip`.
    pub fn word(self) -> &'static str {
        match self {
            Outcome::Pass => "pass",
            Outcome::Fail => "fail",
            Outcome::Skip => "skip",
        }
    }
}

/// One shader model's run of a file.
#[derive(Debug, Clone)]
pub struct RunReport {
    /// The model.
    pub model: Model,
    /// Its outcome.
    pub outcome: Outcome,
    /// Probes checked and holding.
    pub probes_passed: usize,
    /// Probes or compiles that failed under a `todo`/`bug_if`/`fail` qualifier (not
    /// failures).
    pub todo: usize,
    /// Failures, each `line N: …`.
    pub failures: Vec<String>,
    /// Why the run was skipped or stopped.
    pub skipped: Option<String>,
    /// The kept temporary folder (`--keep`).
    pub kept: Option<PathBuf>,
}

/// The model's text: 50 → `5.0`.
pub fn model_text(m: Model) -> String {
    format!("{}.{}", m / 10, m % 10)
}

/// Runs `test` once per model (see the module doc).
pub fn run_file(test: &ShaderTest, cfg: &RunConfig) -> Vec<RunReport> {
    let models = cfg
        .models
        .clone()
        .unwrap_or_else(|| super::parse::MODELS.to_vec());
    models
        .into_iter()
        .map(|m| run_model(test, cfg, m))
        .collect()
}

// ---- commands ----

/// A `[test]` command, parsed.
#[derive(Debug, Clone, PartialEq)]
pub enum Command {
    /// `dispatch X Y Z`.
    Dispatch([u32; 3]),
    /// `draw quad`.
    DrawQuad,
    /// `draw TOPOLOGY COUNT [INSTANCES]`.
    Draw {
        /// The job's topology name.
        topology: &'static str,
        /// Vertices.
        vertices: u32,
        /// Instances.
        instances: u32,
    },
    /// `uniform OFFSET TYPE VALUES`: words from `offset` (in words).
    Uniform {
        /// The first word.
        offset: u32,
        /// The words.
        words: Vec<u32>,
    },
    /// `clear rtv N R G B A`.
    ClearRtv(u32, [f32; 4]),
    /// `clear dsv D`.
    ClearDsv(f32),
    /// `depth FUNC`.
    Depth(String),
    /// `sample mask M`.
    SampleMask(u32),
    /// `depth-bounds MIN MAX`: the depth-bounds test on, with these bounds
    /// (`OMSetDepthBounds`), for the next draws.
    DepthBounds([f32; 2]),
    /// `viewport N (X, Y, W, H)`: viewport `N` of the next draws (depths 0 to 1).
    Viewport(u32, [f32; 4]),
    /// `probe …`.
    Probe(Probe),
    /// A command of vkd3d's format that dxlane's runner does not carry out (a word of a
    /// later vkd3d release): the run that reaches it is skipped, naming it, rather than
    /// the file refused.
    NotRun(String),
}

/// Which resource a probe reads.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum ProbeTarget {
    /// `rtv N` (default 0).
    Rtv(u32),
    /// `uav N`.
    Uav(u32),
    /// `dsv`.
    Dsv,
}

/// A probe's expected value.
#[derive(Debug, Clone, PartialEq)]
pub enum Expect {
    /// `rgba (r, g, b, a) [ulps]`.
    Rgba([f32; 4], u32),
    /// `rgbaui (…)`.
    Rgbaui([u32; 4]),
    /// `rgbai (…)`.
    Rgbai([i32; 4]),
    /// `r (x) [ulps]`.
    R(f32, u32),
    /// `rui (x)`.
    Rui(u32),
    /// `ri (x)`.
    Ri(i32),
    /// `rd (x) [ulps]`.
    Rd(f64, u32),
    /// `rui64 (x)`.
    Rui64(u64),
    /// `ri64 (x)`.
    Ri64(i64),
}

/// `probe TARGET RECT EXPECT`.
#[derive(Debug, Clone, PartialEq)]
pub struct Probe {
    /// The resource.
    pub target: ProbeTarget,
    /// `[left, top, right, bottom)`; `None`: all.
    pub rect: Option<[u32; 4]>,
    /// The array layer read: `(x, y, layer)`, else 0.
    pub layer: u32,
    /// The value.
    pub expect: Expect,
}

fn number_list(text: &str) -> Result<(Vec<&str>, &str), String> {
    let t = text.trim_start();
    let inner = t
        .strip_prefix('(')
        .ok_or_else(|| format!("`{t}`: expected `(`"))?;
    let close = inner
        .find(')')
        .ok_or_else(|| format!("`{t}`: no closing `)`"))?;
    let items = inner[..close]
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .collect();
    Ok((items, &inner[close + 1..]))
}

/// A C `strtol(…, 0)`-style integer: decimal, `0x` hexadecimal or `0` octal, signed.
fn parse_int(s: &str) -> Option<i128> {
    let s = s.trim();
    let (neg, body) = match s.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, s.strip_prefix('+').unwrap_or(s)),
    };
    let v = if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        i128::from_str_radix(h, 16).ok()?
    } else if body.len() > 1 && body.starts_with('0') {
        i128::from_str_radix(&body[1..], 8).ok()?
    } else {
        body.parse::<i128>().ok()?
    };
    Some(if neg { -v } else { v })
}

fn parse_f32(s: &str) -> Option<f32> {
    let s = s.trim();
    let s = s.strip_suffix('f').unwrap_or(s);
    s.parse::<f32>().ok()
}

fn parse_u32v(s: &str) -> Option<u32> {
    let v = parse_int(s)?;
    // strtoul wraps negative numbers; the files write -1 for 0xffffffff.
    if (-(1i128 << 32)..(1i128 << 32)).contains(&v) {
        Some(v as u32)
    } else {
        None
    }
}

fn parse_i32v(s: &str) -> Option<i32> {
    i32::try_from(parse_int(s)?).ok()
}

/// The tolerance after a probe's values: vkd3d's runner reads it with `sscanf("%u")`, so
/// the leading digits are the ulps and anything else after them — or text that does not
/// start with a digit, such as the `;` closing a line of vkd3d's
/// tests/hlsl/function-return.shader_test — is read past (no digits: 0 ulps).
fn ulps_after(rest: &str) -> Result<u32, String> {
    let r = rest.trim();
    let digits = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
    if digits == 0 {
        return Ok(0);
    }
    r[..digits]
        .parse::<u32>()
        .map_err(|_| format!("`{r}`: the tolerance after a probe is a whole number of ulps"))
}

/// Parses a command (qualifiers already removed). Errors name the field.
pub fn parse_command(text: &str) -> Result<Command, String> {
    let t = text.trim();
    let words: Vec<&str> = t.split_whitespace().collect();
    let bad = |what: &str| format!("`{t}`: {what}");
    match words.as_slice() {
        ["dispatch", x, y, z] => {
            let n = |s: &str| {
                s.parse::<u32>()
                    .map_err(|_| bad("dispatch takes three group counts"))
            };
            Ok(Command::Dispatch([n(x)?, n(y)?, n(z)?]))
        }
        ["dispatch", ..] => Err(bad("dispatch takes three group counts")),
        ["draw", "quad"] => Ok(Command::DrawQuad),
        ["draw", rest @ ..] => {
            let joined = rest.join(" ");
            // vkd3d's runner draws patch lists of 1 to 4 control points
            // (D3D_PRIMITIVE_TOPOLOGY_n_CONTROL_POINT_PATCHLIST).
            let (topology, tail) = [
                ("triangle list", "triangle_list"),
                ("triangle strip", "triangle_strip"),
                ("point list", "point_list"),
                ("line list", "line_list"),
                ("line strip", "line_strip"),
                ("1 control point patch list", "1_control_point_patchlist"),
                ("2 control point patch list", "2_control_point_patchlist"),
                ("3 control point patch list", "3_control_point_patchlist"),
                ("4 control point patch list", "4_control_point_patchlist"),
            ]
            .iter()
            .find_map(|(name, job)| joined.strip_prefix(name).map(|r| (*job, r)))
            .ok_or_else(|| bad("draw takes `quad` or a topology (triangle list, triangle strip, point list, line list, line strip, N control point patch list with N from 1 to 4) and a vertex count"))?;
            let nums: Vec<&str> = tail.split_whitespace().collect();
            let n = |s: &str| {
                s.parse::<u32>()
                    .map_err(|_| bad("the vertex and instance counts are whole numbers"))
            };
            match nums.as_slice() {
                [v] => Ok(Command::Draw {
                    topology,
                    vertices: n(v)?,
                    instances: 1,
                }),
                [v, i] => Ok(Command::Draw {
                    topology,
                    vertices: n(v)?,
                    instances: n(i)?,
                }),
                _ => Err(bad(
                    "draw takes a vertex count and an optional instance count",
                )),
            }
        }
        ["clear", "rtv", slot, r, g, b, a] => {
            let slot = slot.parse().map_err(|_| bad("the rtv slot is a number"))?;
            let f = |s: &str| parse_f32(s).ok_or_else(|| bad("clear rtv takes four numbers"));
            Ok(Command::ClearRtv(slot, [f(r)?, f(g)?, f(b)?, f(a)?]))
        }
        ["clear", "rtv", ..] => Err(bad("clear rtv takes a slot and four numbers")),
        ["clear", "dsv", d] => Ok(Command::ClearDsv(
            parse_f32(d).ok_or_else(|| bad("clear dsv takes a depth"))?,
        )),
        ["depth", rest @ ..] => {
            let f = rest.join("_").to_ascii_uppercase();
            if matches!(
                f.as_str(),
                "NEVER"
                    | "LESS"
                    | "EQUAL"
                    | "LESS_EQUAL"
                    | "GREATER"
                    | "NOT_EQUAL"
                    | "GREATER_EQUAL"
                    | "ALWAYS"
            ) {
                Ok(Command::Depth(f))
            } else {
                Err(bad(
                    "depth takes a comparison: never, less, equal, less equal, greater, not equal, greater equal, always",
                ))
            }
        }
        ["sample", "mask", m] => Ok(Command::SampleMask(
            parse_u32v(m).ok_or_else(|| bad("sample mask takes a number"))?,
        )),
        ["depth-bounds", lo, hi] => {
            let f = |s: &str| {
                parse_f32(s).ok_or_else(|| bad("depth-bounds takes a minimum and a maximum"))
            };
            Ok(Command::DepthBounds([f(lo)?, f(hi)?]))
        }
        ["depth-bounds", ..] => Err(bad("depth-bounds takes a minimum and a maximum")),
        ["viewport", ..] => parse_viewport(t["viewport".len()..].trim()).map_err(|e| bad(&e)),
        ["uniform", offset, ty, values @ ..] => {
            let offset = offset
                .parse::<u32>()
                .map_err(|_| bad("the uniform offset is a number of 32-bit words"))?;
            Ok(Command::Uniform {
                offset,
                words: uniform_words(ty, values).map_err(|e| bad(&e))?,
            })
        }
        ["uniform", ..] => Err(bad("uniform takes an offset, a type and values")),
        ["probe", ..] => Ok(Command::Probe(
            parse_probe(t["probe".len()..].trim()).map_err(|e| bad(&e))?,
        )),
        // vkd3d's later words are hyphenated too (`clip-plane`, `point-size`, `fog-colour`).
        [word, ..]
            if word
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-') =>
        {
            Ok(Command::NotRun(t.to_string()))
        }
        _ => Err(bad(
            "not a command (dispatch, draw, clear, depth, sample mask, uniform, probe)",
        )),
    }
}

/// The most viewports a draw binds (`D3D12_VIEWPORT_AND_SCISSORRECT_OBJECT_COUNT_PER_PIPELINE`).
const VIEWPORTS: u32 = 16;

/// `N (X, Y, W, H)` after `viewport`, read as vkd3d's runner reads it (`read_uint`, then
/// `( %f , %f , %f , %f )`): an index below 16, then four numbers in parentheses.
fn parse_viewport(rest: &str) -> Result<Command, String> {
    let usage = "viewport takes an index and (x, y, width, height)";
    let digits = rest
        .find(|c: char| !c.is_ascii_digit())
        .unwrap_or(rest.len());
    let index: u32 = rest[..digits].parse().map_err(|_| usage.to_string())?;
    if index >= VIEWPORTS {
        return Err(format!(
            "viewport {index}: a draw binds viewports 0 to {}",
            VIEWPORTS - 1
        ));
    }
    let inner = rest[digits..]
        .trim()
        .strip_prefix('(')
        .and_then(|r| r.split_once(')'))
        .map(|(inside, _)| inside)
        .ok_or_else(|| usage.to_string())?;
    let v: Vec<f32> = inner
        .split(',')
        .map(|w| parse_f32(w.trim()).ok_or_else(|| usage.to_string()))
        .collect::<Result<_, _>>()?;
    match v.as_slice() {
        &[x, y, w, h] => Ok(Command::Viewport(index, [x, y, w, h])),
        _ => Err(usage.to_string()),
    }
}

fn uniform_words(ty: &str, values: &[&str]) -> Result<Vec<u32>, String> {
    let bad_type = || {
        format!(
            "uniform type `{ty}`: give float, int, uint, bool, double, int64_t or uint64_t with 1–4 components"
        )
    };
    let (base, count) = match ["uint64_t", "int64_t"].iter().find(|b| ty.starts_with(**b)) {
        Some(b) => (
            *b,
            if ty.len() == b.len() {
                1
            } else {
                ty[b.len()..].parse::<usize>().map_err(|_| bad_type())?
            },
        ),
        None => match ty.find(|c: char| c.is_ascii_digit()) {
            Some(at) => (
                &ty[..at],
                ty[at..].parse::<usize>().map_err(|_| bad_type())?,
            ),
            None => (ty, 1),
        },
    };
    if !(1..=4).contains(&count) || values.len() != count {
        return Err(format!(
            "uniform {ty} takes {count} value(s), got {}",
            values.len()
        ));
    }
    let mut words = Vec::new();
    for v in values {
        let bad = || format!("`{v}` is not a {base}");
        match base {
            "float" => words.push(parse_f32(v).ok_or_else(bad)?.to_bits()),
            "int" => words.push(parse_i32v(v).ok_or_else(bad)? as u32),
            "uint" | "bool" => words.push(parse_u32v(v).ok_or_else(bad)?),
            "double" => {
                let d: f64 = v.trim().parse().map_err(|_| bad())?;
                let b = d.to_bits();
                words.extend([b as u32, (b >> 32) as u32]);
            }
            "int64_t" | "uint64_t" => {
                let i = parse_int(v).ok_or_else(bad)?;
                let b = i as u64;
                words.extend([b as u32, (b >> 32) as u32]);
            }
            _ => return Err(bad_type()),
        }
    }
    Ok(words)
}

fn parse_probe(text: &str) -> Result<Probe, String> {
    let mut rest = text;
    let mut target = ProbeTarget::Rtv(0);
    for (word, make) in [
        ("uav", ProbeTarget::Uav as fn(u32) -> ProbeTarget),
        ("rtv", ProbeTarget::Rtv as fn(u32) -> ProbeTarget),
    ] {
        if let Some(r) = rest.strip_prefix(word).filter(|r| r.starts_with(' ')) {
            let r = r.trim_start();
            let end = r.find(|c: char| !c.is_ascii_digit()).unwrap_or(r.len());
            let slot = r[..end]
                .parse::<u32>()
                .map_err(|_| format!("probe {word}: give the slot number"))?;
            target = make(slot);
            rest = r[end..].trim_start();
        }
    }
    if let Some(r) = rest.strip_prefix("dsv") {
        target = ProbeTarget::Dsv;
        rest = r.trim_start();
    }
    let mut layer = 0;
    let rect = if let Some(r) = rest.strip_prefix("all") {
        rest = r;
        None
    } else {
        let (items, r) = number_list(rest)?;
        rest = r;
        let n: Vec<u32> = items
            .iter()
            .map(|s| {
                s.parse::<u32>()
                    .map_err(|_| format!("probe position `{s}` is not a whole number"))
            })
            .collect::<Result<_, _>>()?;
        Some(match n.as_slice() {
            [x] => [*x, 0, x.saturating_add(1), 1],
            [x, y] => [*x, *y, x.saturating_add(1), y.saturating_add(1)],
            // One texel of an array layer: vkd3d's runner reads `(x, y, layer)` and probes
            // that layer's subresource (tests/shader_runner.c, its `probe` command).
            [x, y, l] => {
                layer = *l;
                [*x, *y, x.saturating_add(1), y.saturating_add(1)]
            }
            [l, t, r, b] => [*l, *t, *r, *b],
            _ => {
                return Err(
                    "probe position: give (x), (x, y), (x, y, layer) or (left, top, right, bottom)"
                        .into(),
                );
            }
        })
    };
    let rest = rest.trim_start();
    let form_len = rest
        .find(|c: char| !c.is_ascii_alphanumeric())
        .unwrap_or(rest.len());
    let form = &rest[..form_len];
    let (items, tail) = number_list(&rest[form_len..])?;
    let want = |n: usize| -> Result<(), String> {
        if items.len() == n {
            Ok(())
        } else {
            Err(format!(
                "probe {form} takes {n} value(s), got {}",
                items.len()
            ))
        }
    };
    let f = |s: &str| parse_f32(s).ok_or_else(|| format!("`{s}` is not a number"));
    let u = |s: &str| parse_u32v(s).ok_or_else(|| format!("`{s}` is not a 32-bit unsigned number"));
    let i = |s: &str| parse_i32v(s).ok_or_else(|| format!("`{s}` is not a 32-bit signed number"));
    let no_tail = |kind: &str| -> Result<(), String> {
        if tail.trim().is_empty() {
            Ok(())
        } else {
            Err(format!(
                "probe {kind} takes no tolerance: `{}`",
                tail.trim()
            ))
        }
    };
    let expect = match form {
        "rgba" => {
            want(4)?;
            Expect::Rgba(
                [f(items[0])?, f(items[1])?, f(items[2])?, f(items[3])?],
                ulps_after(tail)?,
            )
        }
        "rgbaui" => {
            want(4)?;
            no_tail(form)?;
            Expect::Rgbaui([u(items[0])?, u(items[1])?, u(items[2])?, u(items[3])?])
        }
        "rgbai" => {
            want(4)?;
            no_tail(form)?;
            Expect::Rgbai([i(items[0])?, i(items[1])?, i(items[2])?, i(items[3])?])
        }
        "r" => {
            want(1)?;
            Expect::R(f(items[0])?, ulps_after(tail)?)
        }
        "rui" => {
            want(1)?;
            no_tail(form)?;
            Expect::Rui(u(items[0])?)
        }
        "ri" => {
            want(1)?;
            no_tail(form)?;
            Expect::Ri(i(items[0])?)
        }
        "rd" => {
            want(1)?;
            let d: f64 = items[0]
                .parse()
                .map_err(|_| format!("`{}` is not a number", items[0]))?;
            Expect::Rd(d, ulps_after(tail)?)
        }
        "rui64" => {
            want(1)?;
            no_tail(form)?;
            Expect::Rui64(
                parse_int(items[0])
                    .map(|v| v as u64)
                    .ok_or("not a 64-bit number")?,
            )
        }
        "ri64" => {
            want(1)?;
            no_tail(form)?;
            Expect::Ri64(
                parse_int(items[0])
                    .map(|v| v as i64)
                    .ok_or("not a 64-bit number")?,
            )
        }
        _ => {
            return Err(format!(
                "probe form `{form}`: give rgba, rgbaui, rgbai, r, rui, ri, rd, rui64 or ri64"
            ));
        }
    };
    Ok(Probe {
        target,
        rect,
        layer,
        expect,
    })
}

// ---- comparison ----

/// Whether two floats are within `ulps` of each other, measured between their bit
/// patterns mapped to sign-magnitude order (vkd3d's `compare_float`): -0 and +0 are 0
/// apart, NaNs compare by bits.
pub fn floats_close(a: f32, b: f32, ulps: u32) -> bool {
    let key = |f: f32| -> i64 {
        let i = f.to_bits() as i32;
        if i < 0 {
            i64::from(i32::MIN) - i64::from(i)
        } else {
            i64::from(i)
        }
    };
    (key(a) - key(b)).unsigned_abs() <= u64::from(ulps)
}

/// The same for doubles.
pub fn doubles_close(a: f64, b: f64, ulps: u32) -> bool {
    let key = |f: f64| -> i128 {
        let i = f.to_bits() as i64;
        if i < 0 {
            i128::from(i64::MIN) - i128::from(i)
        } else {
            i128::from(i)
        }
    };
    (key(a) - key(b)).unsigned_abs() <= u128::from(ulps)
}

// ---- resources ----

/// A resource format of the files: its DXGI name, texel size and how data is written.
#[derive(Debug, Clone, Copy, PartialEq)]
struct Format {
    dxgi: &'static str,
    size: u32,
    data: Data,
}

#[derive(Debug, Clone, Copy, PartialEq)]
enum Data {
    Float,
    Sint,
    Uint,
}

/// vkd3d's format names (`r32g32b32a32 float`, also written with `-` or `_`).
fn format_of(words: &str) -> Option<Format> {
    let w = words.to_ascii_lowercase().replace(['-', '_'], " ");
    let w = w.split_whitespace().collect::<Vec<_>>().join(" ");
    let f = |dxgi, size, data| Some(Format { dxgi, size, data });
    match w.as_str() {
        "r32g32b32a32 float" => f("R32G32B32A32_FLOAT", 16, Data::Float),
        "r32g32b32a32 sint" | "r32g32b32a32 int" => f("R32G32B32A32_SINT", 16, Data::Sint),
        "r32g32b32a32 uint" => f("R32G32B32A32_UINT", 16, Data::Uint),
        "r32g32 float" => f("R32G32_FLOAT", 8, Data::Float),
        "r32g32 sint" | "r32g32 int" => f("R32G32_SINT", 8, Data::Sint),
        "r32g32 uint" => f("R32G32_UINT", 8, Data::Uint),
        "r32 float" | "r32 float shadow" => f("R32_FLOAT", 4, Data::Float),
        "r32 sint" | "r32 int" => f("R32_SINT", 4, Data::Sint),
        "r32 uint" => f("R32_UINT", 4, Data::Uint),
        "r32 typeless" => f("R32_TYPELESS", 4, Data::Uint),
        _ => None,
    }
}

#[derive(Debug, Clone, PartialEq)]
enum Shape {
    Buffer(u32),
    /// `size (raw_buffer, N)`: N 32-bit words read as a (RW)ByteAddressBuffer.
    RawBuffer(u32),
    Tex2d(u32, u32),
}

#[derive(Debug, Clone)]
struct Resource {
    format: Option<Format>,
    stride: Option<u32>,
    shape: Shape,
    levels: u32,
    /// Samples per texel: `size (2dms, S, W, H)`; 1 for every other shape.
    samples: u32,
    /// Array layers: `size (2darray, W, H, N)`; 1 for every other shape.
    layers: u32,
    /// `size (counter_buffer, N)`: a UAV whose counter is the buffer itself, at byte 0.
    counter: bool,
    /// Every subresource's bytes (a multisampled texture's every sample), as the job
    /// file's `data` and `output` hold them.
    data: Vec<u8>,
    /// A multisampled render target's resolved texels after the last draw: what a probe
    /// reads, as vkd3d's readback resolves a multisampled resource before mapping it.
    resolved: Vec<u8>,
}

impl Resource {
    fn texel(&self) -> u32 {
        self.stride.or(self.format.map(|f| f.size)).unwrap_or(4)
    }
    fn bytes(&self) -> usize {
        let t = self.texel() as usize;
        let base = match self.shape {
            Shape::Buffer(n) => n as usize * t,
            Shape::RawBuffer(n) => n as usize * 4,
            Shape::Tex2d(..) => self.layer_bytes() * self.layers.max(1) as usize,
        };
        base.max(self.data.len())
    }
    /// The bytes of one array layer of a texture (every level and sample of it): where
    /// layer `k` starts, the subresources being in D3D12's order (the levels of layer
    /// 0, then of layer 1).
    fn layer_bytes(&self) -> usize {
        let t = self.texel() as usize;
        match self.shape {
            Shape::Tex2d(w, h) => {
                let mut total = 0;
                let (mut w, mut h) = (w as usize, h as usize);
                for _ in 0..self.levels.max(1) {
                    total += w * h * t * self.samples.max(1) as usize;
                    w = (w / 2).max(1);
                    h = (h / 2).max(1);
                }
                total
            }
            Shape::Buffer(_) | Shape::RawBuffer(_) => self.bytes(),
        }
    }
    fn width(&self) -> u32 {
        match self.shape {
            Shape::Buffer(n) | Shape::RawBuffer(n) => n,
            Shape::Tex2d(w, _) => w,
        }
    }
    fn height(&self) -> u32 {
        match self.shape {
            Shape::Buffer(_) | Shape::RawBuffer(_) => 1,
            Shape::Tex2d(_, h) => h,
        }
    }
}

/// Parses a resource section's body; `Err((line, message))` for a malformed field,
/// `Ok(Err(reason))` for one dxlane does not run.
fn parse_resource(
    class: &str,
    body: &[(usize, String)],
) -> Result<Result<Resource, String>, (usize, String)> {
    // vkd3d's runner starts every `[srv]`, `[uav]` and `[rtv]` (buffers included) as
    // `r32g32b32a32 float`, 16 bytes a texel, until a `format` line says otherwise
    // (tests/shader_runner.c, where it opens those sections).
    let mut r = Resource {
        format: if matches!(class, "srv" | "uav" | "rtv" | "texture") {
            format_of("r32g32b32a32 float")
        } else {
            None
        },
        stride: None,
        shape: if class == "vb" {
            Shape::Buffer(0)
        } else {
            Shape::Tex2d(1, 1)
        },
        levels: 1,
        samples: 1,
        layers: 1,
        counter: false,
        data: Vec::new(),
        resolved: Vec::new(),
    };
    let mut unsupported = None;
    let mut shape_line = body.first().map_or(0, |(n, _)| *n);
    for (n, line) in body {
        let l = line.trim();
        if let Some(rest) = l.strip_prefix("format ") {
            r.format = Some(format_of(rest).ok_or_else(|| (*n, format!("format `{}`: unknown (r32g32b32a32, r32g32 or r32 with float, sint or uint)", rest.trim())))?);
        } else if let Some(rest) = l.strip_prefix("stride ") {
            r.stride = Some(
                rest.trim()
                    .parse()
                    .map_err(|_| (*n, format!("stride `{}` is not a number", rest.trim())))?,
            );
        } else if let Some(rest) = l.strip_prefix("levels ") {
            r.levels = rest
                .trim()
                .parse()
                .ok()
                .filter(|l| (1..=16).contains(l))
                .ok_or_else(|| (*n, format!("levels `{}`: give 1 to 16", rest.trim())))?;
        } else if let Some(rest) = l.strip_prefix("size ") {
            shape_line = *n;
            let (items, _) = number_list(rest).map_err(|e| (*n, format!("size: {e}")))?;
            let num = |s: &str| {
                s.parse::<u32>()
                    .ok()
                    .filter(|v| *v <= 16384)
                    .ok_or_else(|| (*n, format!("size: `{s}` is not a size up to 16384")))
            };
            match items.as_slice() {
                ["buffer", w] => r.shape = Shape::Buffer(num(w)?),
                ["raw_buffer", w] => r.shape = Shape::RawBuffer(num(w)?),
                ["2d", w, h] => r.shape = Shape::Tex2d(num(w)?, num(h)?),
                // A 2D texture array (tests/shader_runner.c reads `(2darray, width,
                // height, layers)`); up to D3D12's 2,048 array slices.
                ["2darray", w, h, layers] => {
                    r.shape = Shape::Tex2d(num(w)?, num(h)?);
                    r.layers = layers
                        .parse::<u32>()
                        .ok()
                        .filter(|l| (1..=2048).contains(l))
                        .ok_or_else(|| (*n, format!("size: `{layers}` layers: give 1 to 2048")))?;
                }
                // A multisampled 2D texture (tests/shader_runner.c reads
                // `(2dms, samples, width, height)`); D3D's standard counts only.
                ["2dms", s, w, h] => {
                    let samples = s
                        .parse::<u32>()
                        .ok()
                        .filter(|c| [1, 2, 4, 8, 16].contains(c))
                        .ok_or_else(|| {
                            (*n, format!("size: `{s}` samples: give 1, 2, 4, 8 or 16"))
                        })?;
                    if !matches!(class, "srv" | "texture" | "rtv") {
                        unsupported = Some(format!(
                            "line {n}: a multisampled [{class}] is not run by dxlane's shader-test runner (D3D has no multisampled UAV; a multisampled depth buffer is not run)"
                        ));
                    }
                    r.shape = Shape::Tex2d(num(w)?, num(h)?);
                    r.samples = samples;
                }
                // A UAV counter: vkd3d's runner makes a structured view of 4-byte elements
                // over the buffer and gives it the same buffer as its counter resource, at
                // offset 0, so the counter is the buffer's first word
                // (tests/shader_runner_d3d12.c, `CreateUnorderedAccessView`).
                ["counter_buffer", w] => {
                    if class != "uav" {
                        return Err((
                            *n,
                            format!("size: a counter_buffer is a UAV, not a [{class}]"),
                        ));
                    }
                    r.shape = Shape::Buffer(num(w)?);
                    r.stride = Some(4);
                    r.counter = true;
                    r.format = Some(Format {
                        dxgi: "R32_UINT",
                        size: 4,
                        data: Data::Uint,
                    });
                }
                // Older files give a 2D size without its kind: `size (W, H)`.
                [w, h] if w.parse::<u32>().is_ok() => r.shape = Shape::Tex2d(num(w)?, num(h)?),
                [kind, ..] => {
                    unsupported = Some(format!(
                        "line {n}: {kind} resources are not run by dxlane's shader-test runner"
                    ))
                }
                [] => return Err((*n, "size: give (buffer, N) or (2d, W, H)".into())),
            }
        } else {
            let data = r.format.map_or(Data::Float, |f| f.data);
            for word in l.split_whitespace() {
                let word = word.trim_end_matches(',');
                let bits = match data {
                    Data::Float => parse_f32(word).map(f32::to_bits),
                    Data::Sint => parse_i32v(word).map(|v| v as u32),
                    Data::Uint => parse_u32v(word),
                }
                .ok_or_else(|| {
                    (
                        *n,
                        format!(
                            "data `{word}` is not a {}",
                            match data {
                                Data::Float => "number",
                                Data::Sint => "32-bit signed number",
                                Data::Uint => "32-bit unsigned number",
                            }
                        ),
                    )
                })?;
                if r.data.len() >= 64 << 20 {
                    return Err((*n, "more than 64 MiB of data".into()));
                }
                r.data.extend_from_slice(&bits.to_le_bytes());
            }
        }
    }
    if let Some(u) = unsupported {
        return Ok(Err(u));
    }
    // vkd3d's runner refuses both (tests/shader_runner_d3d12.c: "Multisampled texture has
    // multiple levels", "Cannot upload data to a multisampled texture").
    if r.samples > 1 && r.levels > 1 {
        return Err((shape_line, "a multisampled texture has one level".into()));
    }
    if r.samples > 1 && !r.data.is_empty() {
        return Err((shape_line, "a multisampled texture takes no data".into()));
    }
    if r.layers > 1 && (r.samples > 1 || !matches!(class, "srv" | "texture" | "uav" | "rtv")) {
        return Ok(Err(format!(
            "line {shape_line}: a {} array is not run by dxlane's shader-test runner",
            if r.samples > 1 {
                "multisampled".to_string()
            } else {
                format!("[{class}]")
            }
        )));
    }
    if r.bytes() > MAX_RESOURCE_BYTES {
        return Err((
            shape_line,
            format!(
                "size: {} bytes, more than the {} MiB a resource may have",
                r.bytes(),
                MAX_RESOURCE_BYTES >> 20
            ),
        ));
    }
    if class == "vb" {
        r.shape = Shape::Buffer((r.data.len() / 4) as u32);
        r.stride = Some(4);
    }
    Ok(Ok(r))
}

#[derive(Debug, Clone, Default)]
struct Sampler {
    filter: String,
    address: [String; 3],
    comparison: Option<String>,
}

fn parse_sampler(body: &[(usize, String)]) -> Result<Sampler, (usize, String)> {
    let mut s = Sampler {
        filter: "MIN_MAG_MIP_POINT".into(),
        address: ["CLAMP".into(), "CLAMP".into(), "CLAMP".into()],
        comparison: None,
    };
    for (n, line) in body {
        let words: Vec<&str> = line.split_whitespace().collect();
        match words.as_slice() {
            ["address", a, b, c] => {
                let m = |x: &str| match x {
                    "border" | "clamp" | "mirror_once" | "mirror" | "wrap" => {
                        Ok(x.to_ascii_uppercase())
                    }
                    _ => Err((
                        *n,
                        format!(
                            "address mode `{x}`: give border, clamp, mirror, mirror_once or wrap"
                        ),
                    )),
                };
                s.address = [m(a)?, m(b)?, m(c)?];
            }
            ["filter", a, b, c] => {
                let ok = |x: &str| matches!(x, "point" | "linear");
                if !(ok(a) && ok(b) && ok(c)) {
                    return Err((
                        *n,
                        "filter: give three of point or linear (min, mag, mip)".into(),
                    ));
                }
                s.filter = filter_name(a, b, c);
            }
            ["comparison", rest @ ..] => {
                let f = rest.join("_").to_ascii_uppercase();
                if !matches!(
                    f.as_str(),
                    "NEVER"
                        | "LESS"
                        | "EQUAL"
                        | "LESS_EQUAL"
                        | "GREATER"
                        | "NOT_EQUAL"
                        | "GREATER_EQUAL"
                        | "ALWAYS"
                ) {
                    return Err((*n, format!("comparison `{}`: unknown", rest.join(" "))));
                }
                s.comparison = Some(f);
            }
            _ => {
                return Err((
                    *n,
                    format!("`{}`: give address, filter or comparison", line.trim()),
                ));
            }
        }
    }
    Ok(s)
}

/// D3D12_FILTER's name for min, mag, mip filters.
fn filter_name(min: &str, mag: &str, mip: &str) -> String {
    let p = |x: &str| x == "point";
    match (p(min), p(mag), p(mip)) {
        (true, true, true) => "MIN_MAG_MIP_POINT",
        (true, true, false) => "MIN_MAG_POINT_MIP_LINEAR",
        (true, false, true) => "MIN_POINT_MAG_LINEAR_MIP_POINT",
        (true, false, false) => "MIN_POINT_MAG_MIP_LINEAR",
        (false, true, true) => "MIN_LINEAR_MAG_MIP_POINT",
        (false, true, false) => "MIN_LINEAR_MAG_POINT_MIP_LINEAR",
        (false, false, true) => "MIN_MAG_LINEAR_MIP_POINT",
        (false, false, false) => "MIN_MAG_MIP_LINEAR",
    }
    .to_string()
}

#[derive(Debug, Clone)]
struct InputElement {
    slot: u32,
    format: Format,
    name: String,
    index: u32,
}

fn parse_layout(body: &[(usize, String)]) -> Result<Vec<InputElement>, (usize, String)> {
    let mut out = Vec::new();
    for (n, line) in body {
        let words: Vec<&str> = line.split_whitespace().collect();
        let bad = || {
            (
                *n,
                format!("`{}`: give SLOT FORMAT NAME [INDEX]", line.trim()),
            )
        };
        let slot = words
            .first()
            .and_then(|w| w.parse::<u32>().ok())
            .ok_or_else(bad)?;
        // The format takes one or two words (`r32g32 float`).
        let (format, used) = (2..=3)
            .rev()
            .filter(|k| words.len() > *k)
            .find_map(|k| format_of(&words[1..k].join(" ")).map(|f| (f, k)))
            .ok_or_else(bad)?;
        let name = words.get(used).ok_or_else(bad)?.to_string();
        let index = match words.get(used + 1) {
            Some(w) => w.parse().map_err(|_| bad())?,
            None => 0,
        };
        out.push(InputElement {
            slot,
            format,
            name,
            index,
        });
    }
    Ok(out)
}

// ---- one run ----

#[derive(Default)]
struct State {
    ps: Option<Vec<u8>>,
    vs: Option<Vec<u8>>,
    cs: Option<Vec<u8>>,
    hs: Option<Vec<u8>>,
    ds: Option<Vec<u8>>,
    gs: Option<Vec<u8>>,
    resources: BTreeMap<(String, u32), Resource>,
    samplers: BTreeMap<u32, Sampler>,
    layout: Vec<InputElement>,
    uniforms: Vec<u32>,
    depth_func: Option<String>,
    depth_clear: f32,
    sample_mask: Option<u32>,
    /// `depth-bounds`: the bounds, the test on once given.
    depth_bounds: Option<[f32; 2]>,
    /// `viewport N`: the viewports given, by index (vkd3d's runner binds indices 0 to
    /// the highest given; one not given is all zeros).
    viewports: BTreeMap<u32, [f32; 4]>,
    last_failed: bool,
    /// The last shader section must fail to compile under this model: vkd3d's runner
    /// runs no `[test]` line until the next shader section (there is no program).
    expect_fail: bool,
    jobs: u32,
}

struct Run<'a> {
    cfg: &'a RunConfig,
    model: Model,
    dir: PathBuf,
    report: RunReport,
    options: Vec<String>,
}

/// The compile options of an `options:` line, read as vkd3d's runner reads them
/// (tests/shader_runner.c, `parse_require_directive`): it walks its own table — `none`,
/// `row-major`, `column-major`, `backcompat`, `unbounded-descriptor-arrays` — once, in
/// that order, taking each name only where it is the next word of the line. So
/// `column-major row-major` sets column-major alone (the table has passed row-major by
/// the time that word is next), and a word it does not know ends the reading.
fn compile_options(line: &str) -> Vec<String> {
    const TABLE: [&str; 5] = [
        "none",
        "row-major",
        "column-major",
        "backcompat",
        "unbounded-descriptor-arrays",
    ];
    let mut rest = line.trim_start();
    let mut out = Vec::new();
    for name in TABLE {
        let Some(after) = rest.strip_prefix(name) else {
            continue;
        };
        if !(after.is_empty() || after.starts_with(|c: char| c.is_whitespace() || c == '(')) {
            continue;
        }
        rest = after.trim_start();
        if name != "none" {
            out.push(name.to_string());
        }
    }
    out
}

fn temporary_folder() -> std::io::Result<PathBuf> {
    let base = std::env::temp_dir();
    loop {
        let n = TEMPORARIES.fetch_add(1, Ordering::Relaxed);
        let d = base.join(format!("dxlane-shader-test-{}-{n}", std::process::id()));
        match std::fs::create_dir(&d) {
            Ok(()) => return Ok(d),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

fn run_model(test: &ShaderTest, cfg: &RunConfig, model: Model) -> RunReport {
    let mut report = RunReport {
        model,
        outcome: Outcome::Skip,
        probes_passed: 0,
        todo: 0,
        failures: Vec::new(),
        skipped: None,
        kept: None,
    };
    let compiler_missing = if model >= 60 {
        cfg.dxc
            .is_none()
            .then_some("dxc not found (DXC unset, not on PATH): SM 6 runs need it")
    } else {
        cfg.vkd3d_compiler
            .is_none()
            .then_some("vkd3d-compiler not found (VKD3D_COMPILER unset, not on PATH)")
    };
    if let Some(why) = compiler_missing {
        report.skipped = Some(why.into());
        return report;
    }
    let dir = match temporary_folder() {
        Ok(d) => d,
        Err(e) => {
            report.outcome = Outcome::Fail;
            report.failures.push(format!("no temporary folder: {e}"));
            return report;
        }
    };
    let mut run = Run {
        cfg,
        model,
        dir,
        report,
        options: Vec::new(),
    };
    let mut state = State {
        depth_clear: 1.0,
        ..State::default()
    };
    let mut active = true;
    let mut ran_anything = false;
    'sections: for s in &test.sections {
        if s.kind == SectionKind::Require {
            active = true;
            run.options.clear();
            let (mut min, mut max) = (0, 99);
            for (n, l) in &s.body {
                let l = l.trim();
                if let Some(m) = l.strip_prefix("shader model >=") {
                    min = parse_model(m.trim()).unwrap_or(99);
                    if parse_model(m.trim()).is_none() {
                        return run.fail_now(format!(
                            "line {n}: shader model `{}` is not 2.0–6.x",
                            m.trim()
                        ));
                    }
                } else if let Some(m) = l.strip_prefix("shader model <") {
                    match parse_model(m.trim()) {
                        Some(v) => max = v.saturating_sub(1),
                        None => {
                            return run.fail_now(format!(
                                "line {n}: shader model `{}` is not 2.0–6.x",
                                m.trim()
                            ));
                        }
                    }
                } else if let Some(o) = l.strip_prefix("options:") {
                    run.options = compile_options(o);
                } else if l == "float64" || l == "int64" && model >= 60 {
                    // dxlane runs doubles (SM 5+) and 64-bit integers (SM 6).
                    if l == "float64" && model < 50 {
                        active = false;
                    }
                } else if l == "int64" {
                    active = false;
                } else if l == "depth-bounds" || l == "rt-vp-array-index" {
                    // D3D12's DepthBoundsTestSupported and
                    // VPAndRTArrayIndexFromAnyShaderFeedingRasterizer…: dxlane has both
                    // (`docs/pipeline.md`), as WARP reports both.
                } else if l == "geometry-shader" || l == "tessellation-shader" {
                    // dxlane runs both stages; tessellation is a feature level 11
                    // (SM 5.0) stage, so a model below it has no such programs.
                    if l == "tessellation-shader" && model < 50 {
                        active = false;
                    }
                } else {
                    run.report.skipped = Some(format!(
                        "line {n}: the requirement `{l}` is not run by dxlane's shader-test runner"
                    ));
                    break 'sections;
                }
            }
            if model < min || model > max {
                active = false;
            }
            continue;
        }
        if !active {
            continue;
        }
        match &s.kind {
            SectionKind::Require => {}
            SectionKind::Unsupported(name) => {
                run.report.skipped = Some(format!(
                    "line {}: [{name}] is not run by dxlane's shader-test runner",
                    s.line
                ));
                break;
            }
            SectionKind::Shader {
                stage, hex: true, ..
            } => {
                // vkd3d's runner takes a `dxbc-tpf-hex` program only for SM 4.0–5.1: it
                // is DXBC, which an SM 6 run (DXIL) cannot use.
                if model >= 60 {
                    run.report.skipped = Some(format!(
                        "line {}: [{} shader dxbc-tpf-hex] holds a DXBC program, which shader model 6 runs do not take",
                        s.line,
                        stage.name()
                    ));
                    break;
                }
                ran_anything = true;
                // Nothing is compiled: `fail` and `todo` have nothing to hold of.
                state.expect_fail = false;
                let compiled = s.program.clone();
                match stage {
                    Stage::Pixel => state.ps = compiled,
                    Stage::Vertex => state.vs = compiled,
                    Stage::Compute => state.cs = compiled,
                    Stage::Hull => state.hs = compiled,
                    Stage::Domain => state.ds = compiled,
                    Stage::Geometry => state.gs = compiled,
                }
            }
            SectionKind::Shader {
                stage, qualifiers, ..
            } => {
                if matches!(stage, Stage::Hull | Stage::Domain) && model < 50 {
                    // vkd3d's runner compiles no hull or domain program below SM 5.0
                    // (there are no hs_4_x or ds_4_x profiles), so its draws cannot run.
                    run.report.skipped = Some(format!(
                        "line {}: [{} shader] needs shader model 5.0 or later",
                        s.line,
                        stage.name()
                    ));
                    break;
                }
                ran_anything = true;
                state.expect_fail = qualifiers
                    .iter()
                    .any(|q| q.word == "fail" && q.holds(model, TAGS));
                let source: String = s.body.iter().map(|(_, l)| format!("{l}\n")).collect();
                let compiled = run.compile(Some(*stage), &source, s.line, qualifiers);
                match stage {
                    Stage::Pixel => state.ps = compiled,
                    Stage::Vertex => state.vs = compiled,
                    Stage::Compute => state.cs = compiled,
                    Stage::Hull => state.hs = compiled,
                    Stage::Domain => state.ds = compiled,
                    Stage::Geometry => state.gs = compiled,
                }
            }
            SectionKind::Effect { qualifiers } => {
                // vkd3d's runner compiles an effect and runs nothing of it. SM 6 has no
                // effect profile (dxc builds no effects).
                if model >= 60 {
                    run.report.skipped = Some(format!(
                        "line {}: [effect] has no shader model 6 profile",
                        s.line
                    ));
                    break;
                }
                ran_anything = true;
                // As after a shader section: the tests after an effect that must not
                // compile are read past (vkd3d's `expect_hr` is the latest section's).
                state.expect_fail = qualifiers
                    .iter()
                    .any(|q| q.word == "fail" && q.holds(model, TAGS));
                let source: String = s.body.iter().map(|(_, l)| format!("{l}\n")).collect();
                run.compile(None, &source, s.line, qualifiers);
            }
            SectionKind::Resource { class, slot } => match parse_resource(class, &s.body) {
                Ok(Ok(r)) => {
                    state.resources.insert((class.clone(), *slot), r);
                }
                Ok(Err(why)) => {
                    run.report.skipped = Some(why);
                    break;
                }
                Err((n, m)) => return run.fail_now(format!("line {n}: {m}")),
            },
            SectionKind::Sampler { slot } => match parse_sampler(&s.body) {
                Ok(smp) => {
                    state.samplers.insert(*slot, smp);
                }
                Err((n, m)) => return run.fail_now(format!("line {n}: {m}")),
            },
            SectionKind::InputLayout => match parse_layout(&s.body) {
                Ok(l) => state.layout = l,
                Err((n, m)) => return run.fail_now(format!("line {n}: {m}")),
            },
            SectionKind::Test => {
                if state.expect_fail {
                    // vkd3d's runner: the tests after a shader that must not compile
                    // cannot run, so they are read past, neither passing nor failing.
                    continue;
                }
                for (n, line) in &s.body {
                    ran_anything = true;
                    if let Err(stop) = run.command(&mut state, *n, line) {
                        run.report.skipped = Some(stop);
                        break 'sections;
                    }
                }
            }
        }
    }
    let mut report = run.report;
    if !ran_anything && report.skipped.is_none() {
        report.skipped = Some(format!(
            "no section applies to shader model {}",
            model_text(model)
        ));
    }
    report.outcome = if !report.failures.is_empty() {
        Outcome::Fail
    } else if report.skipped.is_some() {
        Outcome::Skip
    } else {
        Outcome::Pass
    };
    if cfg.keep {
        report.kept = Some(run.dir);
    } else {
        let _ = std::fs::remove_dir_all(&run.dir);
    }
    report
}

impl Run<'_> {
    fn fail_now(mut self, message: String) -> RunReport {
        self.report.failures.push(message);
        self.report.outcome = Outcome::Fail;
        let _ = std::fs::remove_dir_all(&self.dir);
        self.report
    }

    /// Compiles a shader section; `None` when it did not compile.
    /// Compiles a shader section (`stage`), or an effect section (`None`), under the run's
    /// model, and counts the outcome against the section's `fail`/`todo`/`notimpl`.
    fn compile(
        &mut self,
        stage: Option<Stage>,
        source: &str,
        line: usize,
        quals: &[Qualifier],
    ) -> Option<Vec<u8>> {
        let m = self.model;
        let holds = |w: &str| quals.iter().any(|q| q.word == w && q.holds(m, TAGS));
        let expect_fail = holds("fail");
        // vkd3d: `todo` means nothing to dxc.
        let todo = m < 60 && (holds("todo") || holds("notimpl"));
        let profile = match stage {
            Some(stage) => format!("{}_{}_{}", stage.prefix(), m / 10, m % 10),
            // vkd3d's runner (`compile_shader`, `effect_models`) compiles an effect with
            // fx_4_0, fx_4_1 or fx_5_0 for SM 4.0, 4.1 and 5.0. It names no effect
            // profile for 5.1; dxlane uses fx_5_0 there, the one SM 5 effect profile.
            None => match m {
                40 => "fx_4_0".to_string(),
                41 => "fx_4_1".to_string(),
                _ => "fx_5_0".to_string(),
            },
        };
        let src = self.dir.join(format!("shader{line}.hlsl"));
        let out = self.dir.join(format!("shader{line}.{profile}.bin"));
        if let Err(e) = std::fs::write(&src, source) {
            self.report
                .failures
                .push(format!("line {line}: writing the shader: {e}"));
            return None;
        }
        let mut cmd;
        if m >= 60 {
            cmd = Process::new(self.cfg.dxc.as_deref().unwrap_or(Path::new("dxc")));
            // As vkd3d's runner calls dxc: macros expanded and resources given registers
            // the way fxc does.
            cmd.args(["-T", &profile, "-E", "main", "-flegacy-macro-expansion"])
                .arg("-flegacy-resource-reservation")
                .arg("-Fo")
                .arg(&out);
            for o in &self.options {
                match o.as_str() {
                    "row-major" => {
                        cmd.arg("-Zpr");
                    }
                    "column-major" => {
                        cmd.arg("-Zpc");
                    }
                    "backcompat" => {
                        cmd.arg("-Gec");
                    }
                    _ => {}
                }
            }
            cmd.arg(&src);
        } else {
            cmd = Process::new(
                self.cfg
                    .vkd3d_compiler
                    .as_deref()
                    .unwrap_or(Path::new("vkd3d-compiler")),
            );
            let target = if stage.is_some() { "dxbc-tpf" } else { "fx" };
            cmd.args([
                "-x", "hlsl", "-b", target, "-p", &profile, "-e", "main", "-o",
            ])
            .arg(&out);
            for o in &self.options {
                match o.as_str() {
                    "row-major" => {
                        cmd.arg("--matrix-storage-order=row");
                    }
                    "column-major" => {
                        cmd.arg("--matrix-storage-order=column");
                    }
                    // fxc's backwards-compatibility mode (D3DCOMPILE_ENABLE_BACKWARDS_
                    // COMPATIBILITY, /Gec): SM 1–3 semantic names and `half` globals (read
                    // as float) are accepted — vkd3d's tests/hlsl/half.shader_test compiles
                    // a `half` global only under `options: backcompat`.
                    "backcompat" => {
                        cmd.arg("--semantic-compat-map").arg("--allow-half-globals");
                    }
                    _ => {}
                }
            }
            cmd.arg(&src);
        }
        let result = cmd.output();
        let (ok, message) = match &result {
            Ok(o) => (o.status.success() && out.is_file(), {
                // The compiler's first error line (vkd3d-compiler writes `E5017: …`
                // without the word "error"), else its first line.
                let err = String::from_utf8_lossy(&o.stderr).into_owned();
                let lines: Vec<&str> = err.lines().filter(|l| !l.trim().is_empty()).collect();
                lines
                    .iter()
                    .find(|l| l.contains("error") || l.contains(": E"))
                    .or(lines.first())
                    .map_or_else(|| format!("exit status {}", o.status), |l| l.to_string())
            }),
            Err(e) => (false, format!("could not start the compiler: {e}")),
        };
        let bytes = if ok { std::fs::read(&out).ok() } else { None };
        let what = match stage {
            Some(stage) => format!("[{} shader] under {profile}", stage.name()),
            None => format!("[effect] under {profile}"),
        };
        match (bytes.is_some(), expect_fail) {
            (true, false) | (false, true) => {}
            (true, true) if todo => self.report.todo += 1,
            (true, true) => self.report.failures.push(format!(
                "line {line}: {what} compiled, but the file says it must fail"
            )),
            (false, false) if todo => self.report.todo += 1,
            (false, false) => self
                .report
                .failures
                .push(format!("line {line}: {what} did not compile: {message}")),
        }
        bytes
    }

    /// Runs one `[test]` line; `Err` stops the run as skipped (with the reason).
    fn command(&mut self, st: &mut State, n: usize, line: &str) -> Result<(), String> {
        let m = self.model;
        // Shapes were checked when the file was read.
        let Ok((quals, rest)) = split_qualifiers(line) else {
            return Ok(());
        };
        let Ok(cmd) = parse_command(rest) else {
            return Ok(());
        };
        if quals.iter().any(|q| q.word == "if" && !q.holds(m, TAGS)) {
            return Ok(());
        }
        let todo = quals
            .iter()
            .any(|q| matches!(q.word.as_str(), "todo" | "bug_if" | "fail") && q.holds(m, TAGS));
        match cmd {
            Command::Uniform { offset, words } => {
                let end = offset as usize + words.len();
                if end > 4096 * 4 {
                    self.report
                        .failures
                        .push(format!("line {n}: uniforms past 64 KiB"));
                    return Ok(());
                }
                let len = end.max(st.uniforms.len()).div_ceil(4) * 4;
                st.uniforms.resize(len, 0x7f7f_7f7f);
                st.uniforms[offset as usize..end].copy_from_slice(&words);
            }
            Command::ClearRtv(slot, v) => {
                let Some(r) = st.resources.get_mut(&("rtv".to_string(), slot)) else {
                    self.report
                        .failures
                        .push(format!("line {n}: clear rtv {slot}: no [rtv {slot}]"));
                    return Ok(());
                };
                let texel = clear_texel(r.format, v);
                let count = (r.width() * r.height()) as usize;
                let fill = |n: usize| {
                    texel
                        .iter()
                        .copied()
                        .cycle()
                        .take(texel.len() * n)
                        .collect()
                };
                r.data = fill(count * r.samples as usize * r.layers as usize);
                if r.samples > 1 {
                    // Every sample holds the colour, so the resolved texel is the colour.
                    r.resolved = fill(count);
                }
            }
            Command::ClearDsv(d) => {
                // The buffer keeps what draws write until the next clear (vkd3d clears
                // it once, with ClearDepthStencilView): the next draw starts from the
                // cleared buffer, later ones from what the draw before left.
                st.depth_clear = d;
                if let Some(r) = st.resources.get_mut(&("dsv".to_string(), 0)) {
                    r.data.clear();
                }
            }
            Command::Depth(f) => st.depth_func = Some(f),
            Command::SampleMask(mask) => st.sample_mask = Some(mask),
            Command::DepthBounds(b) => st.depth_bounds = Some(b),
            Command::Viewport(i, v) => {
                st.viewports.insert(i, v);
            }
            Command::NotRun(text) => {
                return Err(format!(
                    "line {n}: `{text}` is not run by dxlane's shader-test runner"
                ));
            }
            Command::Dispatch(groups) => {
                let r = self.dispatch(st, groups);
                self.after_job(st, n, todo, r);
            }
            Command::DrawQuad | Command::Draw { .. } => {
                let r = self.draw(st, &cmd)?;
                self.after_job(st, n, todo, r);
            }
            Command::Probe(p) => {
                if st.last_failed {
                    return Ok(());
                }
                match self.probe(st, &p) {
                    Ok(()) => self.report.probes_passed += 1,
                    Err(_) if todo => self.report.todo += 1,
                    Err(e) => self
                        .report
                        .failures
                        .push(format!("line {n}: {}: {e}", line.trim())),
                }
            }
        }
        Ok(())
    }

    fn after_job(&mut self, st: &mut State, n: usize, todo: bool, r: Result<(), String>) {
        st.last_failed = r.is_err();
        if let Err(e) = r {
            if todo {
                self.report.todo += 1;
            } else {
                self.report.failures.push(format!("line {n}: {e}"));
            }
        }
    }

    fn base_job(&self, st: &mut State) -> Table {
        st.jobs += 1;
        let mut job = Table::new();
        let mut options = Table::new();
        if let Some(t) = self.cfg.threads {
            options.insert("threads".into(), Value::Integer(t as i64));
        }
        if let Some(p) = &self.cfg.profile {
            options.insert("profile".into(), Value::String(p.clone()));
        }
        job.insert("options".into(), Value::Table(options));
        job
    }

    /// `[[resource]]` entries for cb0, the SRVs, UAVs and samplers; their files written.
    /// `ms`: the SRV registers the programs declare multisampled.
    fn resources(
        &self,
        st: &State,
        stage_uavs: bool,
        ms: &BTreeSet<u32>,
    ) -> Result<Vec<Value>, String> {
        let mut out = Vec::new();
        let file = |name: &str, bytes: &[u8]| -> Result<Value, String> {
            std::fs::write(self.dir.join(name), bytes)
                .map_err(|e| format!("writing {name}: {e}"))?;
            let mut d = Table::new();
            d.insert("file".into(), Value::String(name.into()));
            Ok(Value::Table(d))
        };
        if !st.uniforms.is_empty() {
            let bytes: Vec<u8> = st.uniforms.iter().flat_map(|w| w.to_le_bytes()).collect();
            let mut t = Table::new();
            t.insert("reg".into(), Value::String("b0".into()));
            t.insert("kind".into(), Value::String("cbuffer".into()));
            t.insert("size".into(), Value::Integer(bytes.len() as i64));
            t.insert("data".into(), file("cb0.bin", &bytes)?);
            out.push(Value::Table(t));
        }
        for ((class, slot), r) in &st.resources {
            let reg = match class.as_str() {
                "srv" => format!("t{slot}"),
                "uav" if stage_uavs => format!("u{slot}"),
                _ => continue,
            };
            let mut t = Table::new();
            t.insert("reg".into(), Value::String(reg.clone()));
            match (&r.shape, r.stride) {
                (Shape::RawBuffer(_), _) => {
                    t.insert("kind".into(), Value::String("raw_buffer".into()));
                }
                (Shape::Buffer(_), Some(stride)) => {
                    t.insert("kind".into(), Value::String("structured_buffer".into()));
                    t.insert("stride".into(), Value::Integer(i64::from(stride)));
                }
                (Shape::Buffer(_), None) => {
                    t.insert("kind".into(), Value::String("typed_buffer".into()));
                    t.insert(
                        "format".into(),
                        Value::String(r.format.map_or("R32_FLOAT", |f| f.dxgi).into()),
                    );
                }
                (Shape::Tex2d(w, h), _) => {
                    // A single-sampled `[srv n]` read through a `Texture2DMS` declaration
                    // is bound as a one-sample multisampled texture of the same texels:
                    // vkd3d's files do so (tests/hlsl/texture-load.shader_test) and
                    // Direct3D's devices read sample 0 of it.
                    let multisampled =
                        r.samples > 1 || (class == "srv" && ms.contains(slot) && r.levels <= 1);
                    let kind = if multisampled {
                        "texture2dms"
                    } else if r.layers > 1 {
                        "texture2darray"
                    } else {
                        "texture2d"
                    };
                    t.insert("kind".into(), Value::String(kind.into()));
                    t.insert(
                        "format".into(),
                        Value::String(r.format.map_or("R32G32B32A32_FLOAT", |f| f.dxgi).into()),
                    );
                    t.insert("width".into(), Value::Integer(i64::from(*w)));
                    t.insert("height".into(), Value::Integer(i64::from(*h)));
                    if multisampled {
                        t.insert("samples".into(), Value::Integer(i64::from(r.samples)));
                    } else {
                        t.insert("mips".into(), Value::Integer(i64::from(r.levels.max(1))));
                    }
                    if r.layers > 1 {
                        t.insert("array_size".into(), Value::Integer(i64::from(r.layers)));
                    }
                }
            }
            if matches!(r.shape, Shape::Buffer(_) | Shape::RawBuffer(_)) {
                t.insert("size".into(), Value::Integer(r.bytes() as i64));
            }
            let mut data = r.data.clone();
            data.resize(r.bytes(), 0);
            if data.iter().any(|b| *b != 0) {
                t.insert("data".into(), file(&format!("{reg}.in.bin"), &data)?);
            }
            if class == "uav" {
                t.insert("output".into(), Value::String(format!("{reg}.out.bin")));
            }
            if r.counter {
                let first = data
                    .get(..4)
                    .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]));
                t.insert("counter".into(), Value::Integer(i64::from(first)));
                t.insert(
                    "counter_output".into(),
                    Value::String(format!("{reg}.counter.bin")),
                );
            }
            out.push(Value::Table(t));
        }
        for (slot, s) in &st.samplers {
            let mut t = Table::new();
            t.insert("reg".into(), Value::String(format!("s{slot}")));
            t.insert("kind".into(), Value::String("sampler".into()));
            let filter = if s.comparison.is_some() {
                format!("COMPARISON_{}", s.filter)
            } else {
                s.filter.clone()
            };
            t.insert("filter".into(), Value::String(filter));
            t.insert(
                "address".into(),
                Value::Array(s.address.iter().map(|a| Value::String(a.clone())).collect()),
            );
            if let Some(c) = &s.comparison {
                t.insert("comparison".into(), Value::String(c.clone()));
            }
            out.push(Value::Table(t));
        }
        Ok(out)
    }

    fn write_program(&self, name: &str, bytes: &[u8]) -> Result<Value, String> {
        std::fs::write(self.dir.join(name), bytes).map_err(|e| format!("writing {name}: {e}"))?;
        Ok(Value::String(name.into()))
    }

    fn dispatch(&mut self, st: &mut State, groups: [u32; 3]) -> Result<(), String> {
        let cs = st
            .cs
            .clone()
            .ok_or("dispatch: no compute shader compiled")?;
        let mut job = self.base_job(st);
        let mut program = Table::new();
        program.insert("cs".into(), self.write_program("cs.dxbc", &cs)?);
        job.insert("program".into(), Value::Table(program));
        let mut d = Table::new();
        d.insert(
            "groups".into(),
            Value::Array(
                groups
                    .iter()
                    .map(|g| Value::Integer(i64::from(*g)))
                    .collect(),
            ),
        );
        job.insert("dispatch".into(), Value::Table(d));
        let ms = multisampled_srvs(&[&cs]);
        job.insert(
            "resource".into(),
            Value::Array(self.resources(st, true, &ms)?),
        );
        let path = self.write_job(st, &job)?;
        let opts = crate::job::RunOptions {
            threads: self.cfg.threads,
            profile: self.cfg.profile.clone(),
            ..Default::default()
        };
        crate::job::run_job(&path, &opts).map_err(|e| format!("dispatch: {e}"))?;
        self.read_uavs(st)
    }

    fn write_job(&self, st: &State, job: &Table) -> Result<PathBuf, String> {
        let text = toml::to_string(job).map_err(|e| format!("the job: {e}"))?;
        let path = self.dir.join(format!("job{}.toml", st.jobs));
        std::fs::write(&path, text).map_err(|e| format!("writing the job: {e}"))?;
        Ok(path)
    }

    fn read_back(&self, name: &str) -> Result<Vec<u8>, String> {
        crate::job::paths::read_input(&self.dir.join(name), MAX_OUTPUT_BYTES, "the readback limit")
    }

    fn read_uavs(&self, st: &mut State) -> Result<(), String> {
        for ((class, slot), r) in st.resources.iter_mut() {
            if class == "uav" {
                r.data = self.read_back(&format!("u{slot}.out.bin"))?;
                if r.counter {
                    // The counter is the buffer's first word (see `parse_resource`).
                    let c = self.read_back(&format!("u{slot}.counter.bin"))?;
                    if let (Some(dst), Some(src)) = (r.data.get_mut(..4), c.get(..4)) {
                        dst.copy_from_slice(src);
                    }
                }
            }
        }
        Ok(())
    }

    fn draw(&mut self, st: &mut State, cmd: &Command) -> Result<Result<(), String>, String> {
        let Some(ps) = st.ps.clone() else {
            return Ok(Err("draw: no pixel shader compiled".into()));
        };
        // vkd3d's runner refuses a draw with one of the two tessellation programs only.
        match (&st.hs, &st.ds) {
            (Some(_), None) => {
                return Ok(Err(
                    "draw: a hull shader but no domain shader (give both or neither)".into(),
                ));
            }
            (None, Some(_)) => {
                return Ok(Err(
                    "draw: a domain shader but no hull shader (give both or neither)".into(),
                ));
            }
            _ => {}
        }
        let quad = *cmd == Command::DrawQuad;
        let vs = match (&st.vs, quad) {
            (Some(v), _) => v.clone(),
            (None, true) => match self.default_vs() {
                Some(v) => v,
                None => {
                    return Ok(Err(
                        "draw quad: the pass-through vertex shader did not compile".into(),
                    ));
                }
            },
            (None, false) => return Ok(Err("draw: no vertex shader compiled".into())),
        };
        if quad {
            let tri: [f32; 6] = [-2.0, -2.0, -2.0, 4.0, 4.0, -2.0];
            st.layout = vec![InputElement {
                slot: 0,
                format: Format {
                    dxgi: "R32G32_FLOAT",
                    size: 8,
                    data: Data::Float,
                },
                name: "position".into(),
                index: 0,
            }];
            st.resources.insert(
                ("vb".into(), 0),
                Resource {
                    format: None,
                    stride: Some(4),
                    shape: Shape::Buffer(6),
                    levels: 1,
                    samples: 1,
                    layers: 1,
                    counter: false,
                    data: tri.iter().flat_map(|f| f.to_le_bytes()).collect(),
                    resolved: Vec::new(),
                },
            );
        }
        // vkd3d's runner adds its default target at slot 0 when the file gives neither an
        // `[rtv 0]` nor a `[dsv]` (an `[rtv 1]` alone still gets target 0).
        let has_rt0 = st.resources.contains_key(&("rtv".to_string(), 0));
        let has_ds = st.resources.contains_key(&("dsv".to_string(), 0));
        if !has_rt0 && !has_ds {
            st.resources.insert(
                ("rtv".into(), 0),
                Resource {
                    format: format_of("r32g32b32a32 float"),
                    stride: None,
                    shape: Shape::Tex2d(DEFAULT_RT.0, DEFAULT_RT.1),
                    levels: 1,
                    samples: 1,
                    layers: 1,
                    counter: false,
                    data: Vec::new(),
                    resolved: Vec::new(),
                },
            );
        }
        Ok(self.run_draw(st, cmd, &vs, &ps))
    }

    fn default_vs(&mut self) -> Option<Vec<u8>> {
        // A pass-through of the quad's positions.
        let src = "float4 main(float4 pos : position) : sv_position\n{\n    return pos;\n}\n";
        let failures = self.report.failures.len();
        let todo = self.report.todo;
        let v = self.compile(Some(Stage::Vertex), src, 0, &[]);
        self.report.failures.truncate(failures);
        self.report.todo = todo;
        v
    }

    fn run_draw(
        &mut self,
        st: &mut State,
        cmd: &Command,
        vs: &[u8],
        ps: &[u8],
    ) -> Result<(), String> {
        let mut job = self.base_job(st);
        let mut program = Table::new();
        program.insert("vs".into(), self.write_program("vs.dxbc", vs)?);
        program.insert("ps".into(), self.write_program("ps.dxbc", ps)?);
        // The geometry, hull and domain programs of the last such sections, as vkd3d's
        // runner keeps each stage's last program for every later draw.
        for (key, bytes) in [("hs", &st.hs), ("ds", &st.ds), ("gs", &st.gs)] {
            if let Some(b) = bytes {
                program.insert(key.into(), self.write_program(&format!("{key}.dxbc"), b)?);
            }
        }
        job.insert("program".into(), Value::Table(program));
        let mut draw = Table::new();
        let (topology, vertices, instances) = match cmd {
            Command::Draw {
                topology,
                vertices,
                instances,
            } => (*topology, *vertices, *instances),
            _ => ("triangle_list", 3, 1),
        };
        draw.insert("topology".into(), Value::String(topology.into()));
        draw.insert("vertex_count".into(), Value::Integer(i64::from(vertices)));
        draw.insert(
            "instance_count".into(),
            Value::Integer(i64::from(instances)),
        );
        if let Some(m) = st.sample_mask {
            draw.insert("sample_mask".into(), Value::Integer(i64::from(m)));
        }
        if let Some(b) = st.depth_bounds {
            draw.insert(
                "depth_bounds".into(),
                Value::Array(b.iter().map(|&v| Value::Float(f64::from(v))).collect()),
            );
        }
        if let Some((&last, _)) = st.viewports.last_key_value() {
            // Indices 0 to the highest given, each with depths 0 to 1, as vkd3d's runner
            // binds them; no scissor rectangles (each would cover the target).
            let list = (0..=last)
                .map(|i| {
                    let [x, y, w, h] = st.viewports.get(&i).copied().unwrap_or([0.0; 4]);
                    Value::Array(
                        [x, y, w, h, 0.0, 1.0]
                            .iter()
                            .map(|&v| Value::Float(f64::from(v)))
                            .collect(),
                    )
                })
                .collect();
            draw.insert("viewports".into(), Value::Array(list));
        }
        // vkd3d's runner draws with culling off: a file's back-facing triangles are drawn
        // (tests/hlsl/is-front-face.shader_test probes one).
        let mut rasterizer = Table::new();
        rasterizer.insert("cull".into(), Value::String("NONE".into()));
        draw.insert("rasterizer".into(), Value::Table(rasterizer));
        let mut targets = Vec::new();
        let rts: Vec<(u32, Resource)> = st
            .resources
            .iter()
            .filter(|((c, _), _)| c == "rtv")
            .map(|((_, s), r)| (*s, r.clone()))
            .collect();
        for (i, (slot, r)) in rts.iter().enumerate() {
            if *slot as usize != i {
                return Err(format!(
                    "render targets must be numbered from 0 without gaps; [rtv {slot}] follows {i} targets"
                ));
            }
            let mut t = Table::new();
            t.insert(
                "format".into(),
                Value::String(r.format.map_or("R32G32B32A32_FLOAT", |f| f.dxgi).into()),
            );
            t.insert("width".into(), Value::Integer(i64::from(r.width())));
            t.insert("height".into(), Value::Integer(i64::from(r.height())));
            if r.samples > 1 {
                t.insert("samples".into(), Value::Integer(i64::from(r.samples)));
                t.insert(
                    "resolve_output".into(),
                    Value::String(format!("rt{slot}.resolved.bin")),
                );
            }
            if r.data.iter().any(|b| *b != 0) {
                let mut data = r.data.clone();
                data.resize(r.bytes(), 0);
                let name = format!("rt{slot}.in.bin");
                std::fs::write(self.dir.join(&name), &data)
                    .map_err(|e| format!("writing {name}: {e}"))?;
                let mut d = Table::new();
                d.insert("file".into(), Value::String(name));
                t.insert("data".into(), Value::Table(d));
            }
            t.insert("output".into(), Value::String(format!("rt{slot}.out.bin")));
            targets.push(Value::Table(t));
        }
        draw.insert("render_target".into(), Value::Array(targets));
        if let Some(ds) = st.resources.get(&("dsv".to_string(), 0)) {
            let mut t = Table::new();
            t.insert("format".into(), Value::String("D32_FLOAT".into()));
            if rts.is_empty() {
                t.insert("width".into(), Value::Integer(i64::from(ds.width())));
                t.insert("height".into(), Value::Integer(i64::from(ds.height())));
            }
            if ds.data.is_empty() {
                t.insert(
                    "clear_depth".into(),
                    Value::Float(f64::from(st.depth_clear)),
                );
            } else {
                // What the last draw or clear left (or the file's data): a draw does not
                // clear the buffer.
                let (w, h) = rts
                    .first()
                    .map_or((ds.width(), ds.height()), |(_, r)| (r.width(), r.height()));
                let mut data = ds.data.clone();
                data.resize(4 * (w * h) as usize, 0);
                std::fs::write(self.dir.join("dsv.in.bin"), &data)
                    .map_err(|e| format!("writing dsv.in.bin: {e}"))?;
                let mut d = Table::new();
                d.insert("file".into(), Value::String("dsv.in.bin".into()));
                t.insert("data".into(), Value::Table(d));
            }
            if st.depth_bounds.is_some() {
                t.insert("depth_bounds_test".into(), Value::Boolean(true));
            }
            t.insert(
                "depth_func".into(),
                Value::String(st.depth_func.clone().unwrap_or_else(|| "LESS".into())),
            );
            t.insert("output".into(), Value::String("dsv.out.bin".into()));
            draw.insert("depth_stencil".into(), Value::Table(t));
        }
        // Vertex buffers and the layout: each slot's stride is the sum of its elements.
        let mut vbs = Vec::new();
        let mut elements = Vec::new();
        for ((class, slot), r) in &st.resources {
            if class != "vb" {
                continue;
            }
            let stride: u32 = st
                .layout
                .iter()
                .filter(|e| e.slot == *slot)
                .map(|e| e.format.size)
                .sum();
            let mut t = Table::new();
            t.insert("slot".into(), Value::Integer(i64::from(*slot)));
            t.insert("stride".into(), Value::Integer(i64::from(stride.max(4))));
            let name = format!("vb{slot}.bin");
            std::fs::write(self.dir.join(&name), &r.data)
                .map_err(|e| format!("writing {name}: {e}"))?;
            let mut d = Table::new();
            d.insert("file".into(), Value::String(name));
            t.insert("data".into(), Value::Table(d));
            vbs.push(Value::Table(t));
        }
        for e in &st.layout {
            let mut t = Table::new();
            t.insert(
                "semantic".into(),
                Value::String(e.name.to_ascii_uppercase()),
            );
            t.insert("index".into(), Value::Integer(i64::from(e.index)));
            t.insert("format".into(), Value::String(e.format.dxgi.into()));
            t.insert("slot".into(), Value::Integer(i64::from(e.slot)));
            t.insert("offset".into(), Value::String("append".into()));
            elements.push(Value::Table(t));
        }
        if !vbs.is_empty() {
            draw.insert("vertex_buffer".into(), Value::Array(vbs));
        }
        if !elements.is_empty() {
            draw.insert("input_element".into(), Value::Array(elements));
        }
        job.insert("draw".into(), Value::Table(draw));
        // Pixel-program UAVs share numbers with the render targets (u1 after rt0).
        let mut programs: Vec<&[u8]> = vec![vs, ps];
        programs.extend(
            [&st.hs, &st.ds, &st.gs]
                .into_iter()
                .flatten()
                .map(Vec::as_slice),
        );
        let ms = multisampled_srvs(&programs);
        job.insert(
            "resource".into(),
            Value::Array(self.resources(st, true, &ms)?),
        );
        // A `[draw]` target is one 2D texture; an array target's view over its layers
        // is a command list's (`job::list`), so a draw into one runs as a list of one
        // draw.
        let arrays = rts.iter().any(|(_, r)| r.layers > 1);
        let job = if arrays {
            list_job(job, &rts, st.depth_clear)?
        } else {
            job
        };
        let path = self.write_job(st, &job)?;
        let opts = crate::job::RunOptions {
            threads: self.cfg.threads,
            profile: self.cfg.profile.clone(),
            ..Default::default()
        };
        let loaded = crate::job::Job::load(&path).map_err(|e| format!("draw: {e}"))?;
        if arrays {
            crate::job::prepare(loaded, &opts)
                .and_then(|p| p.execute(&opts))
                .map_err(|e| format!("draw: {e}"))?;
        } else {
            crate::job::run_draw_job(loaded, &opts).map_err(|e| format!("draw: {e}"))?;
        }
        for (slot, rt) in &rts {
            let bytes = self.read_back(&format!("rt{slot}.out.bin"))?;
            let resolved = if rt.samples > 1 {
                self.read_back(&format!("rt{slot}.resolved.bin"))?
            } else {
                Vec::new()
            };
            if let Some(r) = st.resources.get_mut(&("rtv".to_string(), *slot)) {
                r.data = bytes;
                r.resolved = resolved;
            }
        }
        if st.resources.contains_key(&("dsv".to_string(), 0)) {
            let bytes = self.read_back("dsv.out.bin")?;
            if let Some(r) = st.resources.get_mut(&("dsv".to_string(), 0)) {
                r.data = bytes;
            }
        }
        self.read_uavs(st)
    }

    fn probe(&self, st: &State, p: &Probe) -> Result<(), String> {
        let key = match p.target {
            ProbeTarget::Rtv(s) => ("rtv".to_string(), s),
            ProbeTarget::Uav(s) => ("uav".to_string(), s),
            ProbeTarget::Dsv => ("dsv".to_string(), 0),
        };
        let r = st
            .resources
            .get(&key)
            .ok_or_else(|| format!("no [{} {}] to probe", key.0, key.1))?;
        let texel = if key.0 == "dsv" { 4 } else { r.texel() } as usize;
        // A multisampled target is probed resolved, as vkd3d's readback resolves it.
        let data = if r.samples > 1 { &r.resolved } else { &r.data };
        if p.layer >= r.layers {
            return Err(format!(
                "layer {} is past the resource's {} layer(s)",
                p.layer, r.layers
            ));
        }
        let data = data
            .get(p.layer as usize * r.layer_bytes()..)
            .unwrap_or(&[]);
        let (w, h) = (r.width(), r.height());
        let [l, t, rr, b] = p.rect.unwrap_or([0, 0, w, h]);
        if rr > w || b > h || l >= rr || t >= b {
            return Err(format!(
                "the rectangle ({l}, {t}, {rr}, {b}) is not inside the {w} × {h} resource"
            ));
        }
        for y in t..b {
            for x in l..rr {
                let at = (y as usize * w as usize + x as usize) * texel;
                let px = data.get(at..at + texel).unwrap_or(&[]);
                let word = |i: usize| -> u32 {
                    px.get(i * 4..i * 4 + 4)
                        .map_or(0, |b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                };
                let channels = (texel / 4).clamp(1, 4);
                let ok = match &p.expect {
                    Expect::Rgba(v, ulps) => (0..4).all(|i| {
                        i >= channels || floats_close(f32::from_bits(word(i)), v[i], *ulps)
                    }),
                    Expect::Rgbaui(v) => (0..4).all(|i| i >= channels || word(i) == v[i]),
                    Expect::Rgbai(v) => (0..4).all(|i| i >= channels || word(i) as i32 == v[i]),
                    Expect::R(v, ulps) => floats_close(f32::from_bits(word(0)), *v, *ulps),
                    Expect::Rui(v) => word(0) == *v,
                    Expect::Ri(v) => word(0) as i32 == *v,
                    Expect::Rd(v, ulps) => doubles_close(
                        f64::from_bits(u64::from(word(0)) | u64::from(word(1)) << 32),
                        *v,
                        *ulps,
                    ),
                    Expect::Rui64(v) => (u64::from(word(0)) | u64::from(word(1)) << 32) == *v,
                    Expect::Ri64(v) => (u64::from(word(0)) | u64::from(word(1)) << 32) as i64 == *v,
                };
                if !ok {
                    let got: Vec<String> = (0..channels)
                        .map(|i| match &p.expect {
                            Expect::Rgba(..) | Expect::R(..) => {
                                format!("{:?}", f32::from_bits(word(i)))
                            }
                            Expect::Rgbai(..) | Expect::Ri(..) => (word(i) as i32).to_string(),
                            _ => format!("{:#x}", word(i)),
                        })
                        .collect();
                    return Err(format!("({x}, {y}) is ({})", got.join(", ")));
                }
            }
        }
        Ok(())
    }
}

/// The draw job `job` (`[program]`, `[draw]` and registered `[[resource]]` entries, as
/// `Run::run_draw` writes it) as a command list of one `draw` with the same programs,
/// state and data: each render target a named texture — an array one viewed over all
/// its layers (`slices = [0, N]`), as vkd3d's D3D12 runner views a `2darray` target, so
/// that `SV_RenderTargetArrayIndex` picks the layer — the depth buffer, the vertex
/// buffers and the registered resources named resources the draw binds. Files, outputs
/// and keys keep their names, so the run reads back what a `[draw]` job would write.
fn list_job(mut job: Table, rts: &[(u32, Resource)], depth_clear: f32) -> Result<Table, String> {
    let text = |s: &str| Value::String(s.into());
    let mut resources = Vec::new();
    let mut cmd = Table::new();
    cmd.insert("type".into(), text("draw"));
    if let Some(Value::Table(program)) = job.remove("program") {
        cmd.extend(program);
    }
    let Some(Value::Table(mut draw)) = job.remove("draw") else {
        return Err("draw: no draw to run".into());
    };
    let mut size = None;
    if let Some(Value::Array(targets)) = draw.remove("render_target") {
        let mut views = Vec::new();
        for (t, (slot, r)) in targets.into_iter().zip(rts) {
            let Value::Table(mut t) = t else { continue };
            if r.samples > 1 {
                return Err(format!(
                    "draw: [rtv {slot}] is multisampled beside an array target, which dxlane's shader-test runner does not run"
                ));
            }
            size.get_or_insert((r.width(), r.height()));
            let name = format!("rt{slot}");
            t.insert("name".into(), text(&name));
            if r.layers > 1 {
                t.insert("kind".into(), text("texture2darray"));
                t.insert("array_size".into(), Value::Integer(i64::from(r.layers)));
            } else {
                t.insert("kind".into(), text("texture2d"));
            }
            resources.push(Value::Table(t));
            let mut view = Table::new();
            view.insert("resource".into(), text(&name));
            view.insert(
                "slices".into(),
                Value::Array(vec![Value::Integer(0), Value::Integer(i64::from(r.layers))]),
            );
            views.push(Value::Table(view));
        }
        cmd.insert("render_targets".into(), Value::Array(views));
    }
    if let Some(Value::Table(mut d)) = draw.remove("depth_stencil") {
        let (w, h) = size.unwrap_or((1, 1));
        let mut res = Table::new();
        res.insert("name".into(), text("dsv"));
        res.insert("kind".into(), text("texture2d"));
        res.insert(
            "format".into(),
            d.remove("format").unwrap_or_else(|| text("D32_FLOAT")),
        );
        res.insert(
            "width".into(),
            d.remove("width").unwrap_or(Value::Integer(i64::from(w))),
        );
        res.insert(
            "height".into(),
            d.remove("height").unwrap_or(Value::Integer(i64::from(h))),
        );
        // A list's depth buffer starts from its data: the clear value in every texel.
        let clear = d.remove("clear_depth");
        let data = d.remove("data").unwrap_or_else(|| {
            let bits = clear
                .and_then(|v| v.as_float())
                .map_or(depth_clear, |v| v as f32)
                .to_bits();
            let mut f = Table::new();
            f.insert("fill_u32".into(), Value::Integer(i64::from(bits)));
            Value::Table(f)
        });
        res.insert("data".into(), data);
        if let Some(o) = d.remove("output") {
            res.insert("output".into(), o);
        }
        resources.push(Value::Table(res));
        d.insert("resource".into(), text("dsv"));
        cmd.insert("depth_stencil".into(), Value::Table(d));
    }
    if let Some(Value::Array(vbs)) = draw.remove("vertex_buffer") {
        let mut views = Vec::new();
        for v in vbs {
            let Value::Table(mut v) = v else { continue };
            let slot = v.get("slot").cloned().unwrap_or(Value::Integer(0));
            let name = format!("vb{}", slot.as_integer().unwrap_or(0));
            let mut res = Table::new();
            res.insert("name".into(), text(&name));
            res.insert("kind".into(), text("raw_buffer"));
            if let Some(data) = v.remove("data") {
                res.insert("data".into(), data);
            }
            resources.push(Value::Table(res));
            v.insert("resource".into(), text(&name));
            views.push(Value::Table(v));
        }
        cmd.insert("vertex_buffers".into(), Value::Array(views));
    }
    // The rest of `[draw]` (topology, counts, sample mask, depth bounds, viewports,
    // rasterizer, input elements) are a draw command's keys of the same names.
    cmd.extend(draw);
    let mut binds = Vec::new();
    if let Some(Value::Array(registered)) = job.remove("resource") {
        for r in registered {
            let Value::Table(mut r) = r else { continue };
            let Some(Value::String(reg)) = r.remove("reg") else {
                continue;
            };
            r.insert("name".into(), text(&reg));
            resources.push(Value::Table(r));
            let mut b = Table::new();
            b.insert("reg".into(), text(&reg));
            b.insert("resource".into(), text(&reg));
            binds.push(Value::Table(b));
        }
    }
    if !binds.is_empty() {
        cmd.insert("bind".into(), Value::Array(binds));
    }
    job.insert("resource".into(), Value::Array(resources));
    job.insert("command".into(), Value::Array(vec![Value::Table(cmd)]));
    Ok(job)
}

/// One texel of a render target of `format` cleared to `v`.
/// The `t` registers `programs` declare as `Texture2DMS` (a program that does not load is
/// left to the job, which reports it).
fn multisampled_srvs(programs: &[&[u8]]) -> BTreeSet<u32> {
    let mut out = BTreeSet::new();
    for bytes in programs {
        let Ok(loaded) = crate::lower::load(bytes, &crate::lower::LoadOptions::default()) else {
            continue;
        };
        for r in &loaded.shader.resources {
            if r.class == crate::ir::ResourceClass::Srv
                && r.space == 0
                && r.kind == crate::ir::ResourceKind::Texture2DMS
            {
                out.extend((0..r.count.min(128)).filter_map(|i| r.lower.checked_add(i)));
            }
        }
    }
    out
}

fn clear_texel(format: Option<Format>, v: [f32; 4]) -> Vec<u8> {
    let f = format.unwrap_or(Format {
        dxgi: "R32G32B32A32_FLOAT",
        size: 16,
        data: Data::Float,
    });
    let channels = (f.size / 4) as usize;
    v.iter()
        .take(channels)
        .flat_map(|c| match f.data {
            Data::Float => c.to_bits().to_le_bytes(),
            Data::Sint => (*c as i32).to_le_bytes(),
            Data::Uint => (*c as u32).to_le_bytes(),
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn body(lines: &[&str]) -> Vec<(usize, String)> {
        lines
            .iter()
            .enumerate()
            .map(|(i, l)| (i + 1, (*l).to_string()))
            .collect()
    }

    /// vkd3d tests/shader_runner.c reads `(2darray, width, height, layers)`, its
    /// subresources layer by layer, and `probe (x, y, layer)` reads one texel of a layer.
    #[test]
    fn array_sizes_and_layer_probes() {
        let r = parse_resource("rtv", &body(&["size (2darray, 4, 2, 3)", "levels 2"]))
            .unwrap()
            .unwrap();
        assert_eq!((r.shape.clone(), r.layers), (Shape::Tex2d(4, 2), 3));
        // Per layer: 4 × 2 + 2 × 1 texels of 16 bytes.
        assert_eq!(r.layer_bytes(), 160);
        assert_eq!(r.bytes(), 480);
        assert!(parse_resource("srv", &body(&["size (2darray, 4, 2, 0)"])).is_err());
        assert!(
            parse_resource(
                "rtv",
                &body(&["size (2dms, 4, 2, 2)", "size (2darray, 2, 2, 2)"])
            )
            .unwrap()
            .is_err()
        );
        let p = parse_probe("(2, 3, 1) rgba (1, 0, 0, 1)").unwrap();
        assert_eq!((p.rect, p.layer), (Some([2, 3, 3, 4]), 1));
        assert_eq!(parse_probe("(2, 3) rgba (1, 0, 0, 1)").unwrap().layer, 0);
    }

    /// vkd3d tests/shader_runner.c reads `(2dms, samples, width, height)`; its D3D12
    /// runner refuses levels and data on a multisampled texture; D3D has no
    /// multisampled UAV.
    #[test]
    fn multisampled_sizes() {
        let r = parse_resource("rtv", &body(&["size (2dms, 4, 8, 2)"]))
            .unwrap()
            .unwrap();
        assert_eq!((r.samples, r.width(), r.height()), (4, 8, 2));
        assert_eq!(r.bytes(), 8 * 2 * 4 * 16);
        let bad = |class: &str, lines: &[&str]| parse_resource(class, &body(lines));
        assert_eq!(
            bad("srv", &["size (2dms, 3, 2, 2)"]).unwrap_err().0,
            1,
            "3 samples is not a standard count"
        );
        assert!(bad("srv", &["size (2dms, 4, 2, 2)", "levels 2"]).is_err());
        assert!(bad("srv", &["size (2dms, 4, 1, 1)", "1.0 2.0 3.0 4.0"]).is_err());
        let skipped = bad("uav", &["size (2dms, 4, 2, 2)"]).unwrap().unwrap_err();
        assert!(skipped.contains("multisampled [uav]"), "{skipped}");
    }

    /// vkd3d tests/shader_runner_d3d12.c: a `counter_buffer` UAV is a structured view of
    /// 4-byte elements whose counter resource is the buffer itself at offset 0, so the
    /// counter starts as, and is probed as, the first word.
    #[test]
    fn counter_buffers_bind_and_read_back_their_first_word() {
        let r = parse_resource("uav", &body(&["size (counter_buffer, 2)", "5 9"]))
            .unwrap()
            .unwrap();
        assert!(r.counter);
        assert_eq!((r.stride, r.data.len()), (Some(4), 8));
        assert!(parse_resource("srv", &body(&["size (counter_buffer, 1)"])).is_err());

        let cfg = RunConfig::default();
        let dir = temporary_folder().unwrap();
        let run = Run {
            cfg: &cfg,
            model: 50,
            dir: dir.clone(),
            report: RunReport {
                model: 50,
                outcome: Outcome::Skip,
                probes_passed: 0,
                todo: 0,
                failures: Vec::new(),
                skipped: None,
                kept: None,
            },
            options: Vec::new(),
        };
        let mut st = State::default();
        st.resources.insert(("uav".into(), 1), r);
        let tables = run.resources(&st, true, &BTreeSet::new()).unwrap();
        let t = tables[0].as_table().unwrap();
        assert_eq!(t["reg"].as_str(), Some("u1"));
        assert_eq!(t["kind"].as_str(), Some("structured_buffer"));
        assert_eq!(t["stride"].as_integer(), Some(4));
        assert_eq!(t["counter"].as_integer(), Some(5));
        assert_eq!(t["counter_output"].as_str(), Some("u1.counter.bin"));
        // After a job: the buffer as written, then the counter over its first word.
        let words = |w: &[u32]| -> Vec<u8> { w.iter().flat_map(|v| v.to_le_bytes()).collect() };
        std::fs::write(dir.join("u1.out.bin"), words(&[5, 9])).unwrap();
        std::fs::write(dir.join("u1.counter.bin"), words(&[17])).unwrap();
        run.read_uavs(&mut st).unwrap();
        assert_eq!(st.resources[&("uav".to_string(), 1)].data, words(&[17, 9]));
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn probe_forms() {
        // vkd3d tests/shader_runner.c: rect forms and value forms.
        let p = parse_probe("all rgba (1.0, 2.0, 3.0, 4.0) 2").unwrap();
        assert_eq!(p.rect, None);
        assert_eq!(p.expect, Expect::Rgba([1.0, 2.0, 3.0, 4.0], 2));
        let p = parse_probe("uav 1 (3) rui (0x10)").unwrap();
        assert_eq!(p.target, ProbeTarget::Uav(1));
        assert_eq!(p.rect, Some([3, 0, 4, 1]));
        assert_eq!(p.expect, Expect::Rui(16));
        let p = parse_probe("(1, 2, 5, 6) rgbai (-1, 2, 3, 4)").unwrap();
        assert_eq!(p.rect, Some([1, 2, 5, 6]));
        let p = parse_probe("rtv 1 (0, 0) r (1e99)").unwrap();
        assert_eq!(p.expect, Expect::R(f32::INFINITY, 0));
        assert!(parse_probe("all rgba (1, 2, 3)").is_err());
        assert!(parse_probe("all rgbx (1)").is_err());
    }

    #[test]
    fn ulp_distance_is_sign_magnitude() {
        // vkd3d's compare_float: -0 and +0 are 0 ulps apart; the smallest denormals of
        // each sign 2 apart.
        assert!(floats_close(0.0, -0.0, 0));
        assert!(floats_close(
            f32::from_bits(1),
            f32::from_bits(0x8000_0001),
            2
        ));
        assert!(!floats_close(
            f32::from_bits(1),
            f32::from_bits(0x8000_0001),
            1
        ));
        assert!(floats_close(1.0, f32::from_bits(1.0f32.to_bits() + 3), 3));
        assert!(!floats_close(1.0, 2.0, 1000));
    }

    #[test]
    fn uniforms_and_commands() {
        assert_eq!(
            parse_command("uniform 4 float4 1 2 3 4").unwrap(),
            Command::Uniform {
                offset: 4,
                words: vec![
                    1.0f32.to_bits(),
                    2.0f32.to_bits(),
                    3.0f32.to_bits(),
                    4.0f32.to_bits()
                ]
            }
        );
        assert_eq!(
            parse_command("uniform 0 int -1").unwrap(),
            Command::Uniform {
                offset: 0,
                words: vec![u32::MAX]
            }
        );
        assert_eq!(
            parse_command("uniform 0 double2 1 2").unwrap(),
            Command::Uniform {
                offset: 0,
                words: vec![0, 0x3ff0_0000, 0, 0x4000_0000]
            }
        );
        assert!(parse_command("uniform 0 float4 1 2").is_err());
        assert_eq!(
            parse_command("dispatch 1 2 3").unwrap(),
            Command::Dispatch([1, 2, 3])
        );
        assert!(parse_command("dispatch 1 2").is_err());
        assert_eq!(
            parse_command("draw triangle strip 4").unwrap(),
            Command::Draw {
                topology: "triangle_strip",
                vertices: 4,
                instances: 1
            }
        );
        assert_eq!(
            parse_command("depth less equal").unwrap(),
            Command::Depth("LESS_EQUAL".into())
        );
        // A word the runner does not know is not run (the run is skipped), but a
        // malformed known command is an error.
        assert_eq!(
            parse_command("jump 3").unwrap(),
            Command::NotRun("jump 3".into())
        );
        // vkd3d's runner: `draw N control point patch list COUNT` for N of 1 to 4.
        assert_eq!(
            parse_command("draw 3 control point patch list 6 2").unwrap(),
            Command::Draw {
                topology: "3_control_point_patchlist",
                vertices: 6,
                instances: 2,
            }
        );
        assert!(parse_command("draw 5 control point patch list 5").is_err());
        assert!(parse_command("draw hexagon list 3").is_err());
        assert!(parse_command("(3, 4)").is_err());
    }

    /// vkd3d tests/shader_runner.c: `depth-bounds MIN MAX` (two floats), `viewport N
    /// (x, y, w, h)` (`read_uint`, then `( %f , %f , %f , %f )`, N below the runner's
    /// array of viewports: D3D12's 16); a later release's hyphenated word is not run,
    /// not refused.
    #[test]
    fn depth_bounds_viewport_and_hyphenated_words() {
        assert_eq!(
            parse_command("depth-bounds 0.25 0.75").unwrap(),
            Command::DepthBounds([0.25, 0.75])
        );
        assert!(parse_command("depth-bounds 0.25").is_err());
        assert_eq!(
            parse_command("viewport 1 (32, 0.5, 16, 8)").unwrap(),
            Command::Viewport(1, [32.0, 0.5, 16.0, 8.0])
        );
        assert_eq!(
            parse_command("viewport 0 ( 0 , 0 , 4 , 4 )").unwrap(),
            Command::Viewport(0, [0.0, 0.0, 4.0, 4.0])
        );
        let e = parse_command("viewport 16 (0, 0, 1, 1)").unwrap_err();
        assert!(e.contains("viewports 0 to 15"), "{e}");
        assert!(parse_command("viewport 0 (0, 0, 1)").is_err());
        assert!(parse_command("viewport (0, 0, 1, 1)").is_err());
        assert_eq!(
            parse_command("clip-plane 0 1 0 0 0").unwrap(),
            Command::NotRun("clip-plane 0 1 0 0 0".into())
        );
    }
}
