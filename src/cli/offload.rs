//! `dxlane offload PIPELINE.yaml SHADER…`: the offload test suite's `offloader` with
//! dxlane as its Direct3D device (see `offload`), and `dxlane offload --api-query`, its
//! `api-query`.
//!
//! The arguments are `offloader`'s, read as LLVM's command-line library reads them (one
//! or two dashes, `-o FILE` or `-o=FILE`), because the suite's lit configuration passes
//! them that way (`-warp`): `-o FILE` (default `-`, standard output), `-r NAME` (write
//! that buffer as a PNG to `-o`), `-quiet`, `-api dx` (`vk` and `mtl` are refused: dxlane
//! runs Direct3D programs), `-warp` (accepted: dxlane gives WARP's answers). dxlane adds
//! `--threads N`, `--profile NAME`, and for `--api-query`, `--as-warp` (see
//! `offload::device::Identity::AsWarp`).
//!
//! Exit status, as `offloader`'s: 0 when the run finished and every `Results` rule holds,
//! 1 otherwise (a failed rule, printed as `Test failed: NAME` with both buffers, or an
//! error, printed as `dxlane offload: error: FILE:LINE: message`).

use std::path::{Path, PathBuf};

use crate::job::paths::OutputGate;
use std::process::ExitCode;

use crate::offload::device::{self, Identity};
use crate::offload::{OffloadOptions, ReadBack, run};

/// `dxlane offload`'s arguments, read by [`parse`] in `offloader`'s manner.
#[derive(Debug, Clone, clap::Args)]
pub struct OffloadArgs {
    /// PIPELINE.yaml SHADER… and options: -o FILE, -r NAME, -quiet, -api dx, -warp,
    /// --threads N, --profile NAME; or --api-query [--as-warp] [--profile NAME].
    #[arg(trailing_var_arg = true, allow_hyphen_values = true, num_args = 0..)]
    pub args: Vec<String>,
}

#[derive(Debug, Default, PartialEq)]
struct Parsed {
    pipeline: Option<PathBuf>,
    shaders: Vec<PathBuf>,
    output: Option<String>,
    image: Option<String>,
    quiet: bool,
    api: Option<String>,
    api_query: bool,
    as_warp: bool,
    threads: Option<usize>,
    profile: Option<String>,
}

fn parse(args: &[String]) -> Result<Parsed, String> {
    let mut p = Parsed::default();
    let mut i = 0;
    while i < args.len() {
        let a = &args[i];
        i += 1;
        if a == "-" || !a.starts_with('-') {
            if p.pipeline.is_none() {
                p.pipeline = Some(PathBuf::from(a));
            } else {
                p.shaders.push(PathBuf::from(a));
            }
            continue;
        }
        let body = a.trim_start_matches('-');
        let (name, inline) = match body.split_once('=') {
            Some((n, v)) => (n, Some(v.to_string())),
            None => (body, None),
        };
        let mut value = |what: &str| -> Result<String, String> {
            if let Some(v) = inline.clone() {
                return Ok(v);
            }
            let v = args
                .get(i)
                .cloned()
                .ok_or_else(|| format!("`-{name}` needs {what}"))?;
            i += 1;
            Ok(v)
        };
        match name {
            "o" => p.output = Some(value("a file")?),
            "r" => p.image = Some(value("a buffer name")?),
            "api" => p.api = Some(value("dx, vk or mtl")?),
            "quiet" => p.quiet = true,
            "warp" => {}
            "api-query" => p.api_query = true,
            "as-warp" => p.as_warp = true,
            "threads" => {
                let v = value("a number")?;
                p.threads = Some(
                    v.parse()
                        .map_err(|_| format!("`--threads {v}`: a number of workers"))?,
                );
            }
            "profile" => p.profile = Some(value("a profile name")?),
            other => return Err(format!("unknown option `-{other}`")),
        }
    }
    Ok(p)
}

/// Runs the command and returns the exit status.
pub fn run_cli(args: &OffloadArgs) -> ExitCode {
    match run_inner(args) {
        Ok(code) => code,
        Err(e) => {
            eprintln!("dxlane offload: error: {e}");
            ExitCode::from(1)
        }
    }
}

fn run_inner(args: &OffloadArgs) -> Result<ExitCode, String> {
    let p = parse(&args.args)?;
    let profile = crate::exec::Profile::by_name(p.profile.as_deref().unwrap_or("latest"))
        .ok_or_else(|| {
            format!(
                "--profile {}: give one of {}",
                p.profile.as_deref().unwrap_or(""),
                crate::exec::Profile::PRESETS.join(", ")
            )
        })?;
    if p.api_query {
        let identity = if p.as_warp {
            Identity::AsWarp
        } else {
            Identity::Dxlane
        };
        print!("{}", device::describe(&profile, identity));
        return Ok(ExitCode::SUCCESS);
    }
    let pipeline = p.pipeline.clone().ok_or("no pipeline description given")?;
    let first = p
        .shaders
        .first()
        .ok_or("no compiled shader given after the pipeline description")?;
    match p.api.as_deref() {
        Some("dx") => {}
        Some(other @ ("vk" | "mtl")) => {
            return Err(format!(
                "`-api {other}`: dxlane runs Direct3D programs only (`-api dx`)"
            ));
        }
        Some(other) => return Err(format!("`-api {other}`; give dx")),
        None => {
            let head = read_head(first)?;
            if head.starts_with(b"DXBC") {
                println!("Using DirectX API");
            } else {
                return Err(format!(
                    "{}: not a DXBC container (DXBC or DXIL); dxlane runs Direct3D programs only",
                    first.display()
                ));
            }
        }
    }
    let text =
        std::fs::read_to_string(&pipeline).map_err(|e| format!("{}: {e}", pipeline.display()))?;
    let opts = OffloadOptions {
        threads: p.threads,
        profile: Some(profile.name.clone()),
        engine: super::default_engine(),
        max_seconds: None,
    };
    let outcome = run(&pipeline, &text, &p.shaders, &opts).map_err(|e| e.to_string())?;
    if !outcome.failures.is_empty() {
        for f in &outcome.failures {
            eprint!("{f}");
        }
        return Ok(ExitCode::from(1));
    }
    if p.quiet {
        return Ok(ExitCode::SUCCESS);
    }
    let out = p.output.as_deref().unwrap_or("-");
    if let Some(name) = &p.image {
        let b = outcome
            .buffers
            .iter()
            .find(|b| &b.name == name)
            .ok_or_else(|| format!("no descriptor with name {name}"))?;
        if out == "-" {
            return Err("`-r` writes a PNG: give `-o FILE`".into());
        }
        write_png(b, out)?;
        return Ok(ExitCode::SUCCESS);
    }
    if out == "-" {
        print!("{}", outcome.yaml);
    } else {
        let (gate, placed) = OutputGate::user_file(Path::new(out), "-o")?;
        gate.write(&placed, outcome.yaml.as_bytes())?;
    }
    Ok(ExitCode::SUCCESS)
}

fn read_head(path: &std::path::Path) -> Result<Vec<u8>, String> {
    use std::io::Read as _;
    let mut f = std::fs::File::open(path).map_err(|e| format!("{}: {e}", path.display()))?;
    let mut head = [0u8; 4];
    let n = f
        .read(&mut head)
        .map_err(|e| format!("{}: {e}", path.display()))?;
    Ok(head[..n].to_vec())
}

/// A buffer with `OutputProps` as an 8-bit PNG: float channels clamped to [0, 1] and
/// scaled by 255 (rounded), integer channels clamped to [0, 255]; 1, 2, 3 or 4 channels
/// make a grey, grey-alpha, RGB or RGBA image.
fn write_png(b: &ReadBack, out: &str) -> Result<(), String> {
    use crate::offload::pipeline::DataFormat as F;
    let (w, h) = b
        .size
        .ok_or_else(|| format!("{}: no `OutputProps` to make an image of", b.name))?;
    let n = b.format.size() as usize;
    let ch = b.channels as usize;
    let texels = (w as usize).saturating_mul(h as usize);
    if !(1..=4).contains(&ch) || texels.saturating_mul(ch).saturating_mul(n) > b.bytes.len() {
        return Err(format!(
            "{}: {} bytes do not hold {w}×{h} texels of {ch} {} channels",
            b.name,
            b.bytes.len(),
            b.format.name()
        ));
    }
    let mut px = Vec::with_capacity(texels * ch);
    for c in b.bytes.chunks_exact(n).take(texels * ch) {
        let u = c
            .iter()
            .rev()
            .fold(0u64, |acc, &x| (acc << 8) | u64::from(x));
        let unit = |f: f64| (f.clamp(0.0, 1.0) * 255.0).round() as u8;
        px.push(match b.format {
            F::Float32 | F::Depth32 => unit(f64::from(f32::from_bits(u as u32))),
            F::Float64 => unit(f64::from_bits(u)),
            F::Float16 => unit(f64::from(half::f16::from_bits(u as u16).to_f32())),
            F::Int16 => (u as u16 as i16).clamp(0, 255) as u8,
            F::Int32 => (u as u32 as i32).clamp(0, 255) as u8,
            F::Int64 => (u as i64).clamp(0, 255) as u8,
            _ => u.min(255) as u8,
        });
    }
    let color = match ch {
        1 => image::ExtendedColorType::L8,
        2 => image::ExtendedColorType::La8,
        3 => image::ExtendedColorType::Rgb8,
        _ => image::ExtendedColorType::Rgba8,
    };
    let mut png = std::io::Cursor::new(Vec::new());
    image::write_buffer_with_format(&mut png, &px, w, h, color, image::ImageFormat::Png)
        .map_err(|e| format!("{out}: {e}"))?;
    // The user named the file: it is replaced, never written through (`job::paths`).
    let (gate, placed) = OutputGate::user_file(Path::new(out), "-o")?;
    gate.write(&placed, png.get_ref())
}

#[cfg(test)]
mod tests {
    use super::*;

    fn args(s: &str) -> Vec<String> {
        s.split_whitespace().map(str::to_string).collect()
    }

    /// LLVM's command line: one or two dashes, `=` or a separate value (lit passes
    /// `-warp`; tests pass `-r Out -o x.png`).
    #[test]
    fn reads_arguments_as_offloader_does() {
        let p = parse(&args("p.yaml a.dxil -warp -r Out -o=img.png --quiet")).unwrap();
        assert_eq!(p.pipeline, Some(PathBuf::from("p.yaml")));
        assert_eq!(p.shaders, [PathBuf::from("a.dxil")]);
        assert_eq!(p.image.as_deref(), Some("Out"));
        assert_eq!(p.output.as_deref(), Some("img.png"));
        assert!(p.quiet);
        assert!(parse(&args("p.yaml -o")).unwrap_err().contains("-o"));
        assert!(parse(&args("p.yaml -frob")).unwrap_err().contains("frob"));
    }
}
