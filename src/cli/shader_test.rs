//! `dxlane shader-test FILE.shader_test…`: runs vkd3d-format shader tests (see
//! `shader_test`), once per shader model, and prints one line per run: pass, fail (with
//! each failing probe or compile and its line) or skip (and why).
//!
//! Exit status: 0 when no run failed (skipped runs included), 1 when one did, 2 when a
//! file is malformed or unreadable (printed as `dxlane: FILE:LINE: message`).

use std::path::{Path, PathBuf};
use std::process::ExitCode;

use crate::shader_test::parse::parse_model;
use crate::shader_test::run::model_text;
use crate::shader_test::{Outcome, RunConfig, parse_file, run_file};

/// `dxlane shader-test`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct ShaderTestArgs {
    /// The `.shader_test` files.
    #[arg(required = true)]
    pub files: Vec<PathBuf>,
    /// Run only this shader model (`4.0`, `4.1`, `5.0`, `5.1`, `6.0`); repeatable.
    #[arg(long = "shader-model", value_name = "MODEL")]
    pub shader_model: Vec<String>,
    /// Worker threads of each draw and dispatch (0 = all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// WARP profile.
    #[arg(long)]
    pub profile: Option<String>,
    /// Keep each run's folder of jobs and programs, and print where.
    #[arg(long)]
    pub keep: bool,
}

/// `$env`, else `name` on `PATH`.
fn tool(env: &str, name: &str) -> Option<PathBuf> {
    if let Some(v) = std::env::var_os(env) {
        return Some(PathBuf::from(v));
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

/// Runs the files and returns the exit status.
pub fn run(args: &ShaderTestArgs) -> ExitCode {
    let mut models = Vec::new();
    for m in &args.shader_model {
        match parse_model(m).filter(|m| crate::shader_test::parse::MODELS.contains(m)) {
            Some(v) => models.push(v),
            None => {
                eprintln!("dxlane: --shader-model {m}: give 4.0, 4.1, 5.0, 5.1 or 6.0");
                return ExitCode::from(2);
            }
        }
    }
    let cfg = RunConfig {
        threads: args.threads,
        profile: args.profile.clone(),
        models: (!models.is_empty()).then_some(models),
        vkd3d_compiler: tool("VKD3D_COMPILER", "vkd3d-compiler"),
        dxc: tool("DXC", "dxc"),
        keep: args.keep,
    };
    let mut status = 0u8;
    let (mut pass, mut fail, mut skip) = (0, 0, 0);
    for file in &args.files {
        match run_one(file, &cfg) {
            Ok(counts) => {
                pass += counts.0;
                fail += counts.1;
                skip += counts.2;
                if counts.1 > 0 {
                    status = status.max(1);
                }
            }
            Err(e) => {
                eprintln!("dxlane: {e}");
                status = 2;
            }
        }
    }
    println!(
        "{} runs: {pass} pass, {fail} fail, {skip} skip",
        pass + fail + skip
    );
    ExitCode::from(status)
}

fn run_one(file: &Path, cfg: &RunConfig) -> Result<(usize, usize, usize), String> {
    let test = parse_file(file).map_err(|e| e.to_string())?;
    let mut counts = (0, 0, 0);
    for r in run_file(&test, cfg) {
        let m = model_text(r.model);
        let todo = if r.todo > 0 {
            format!(", {} todo", r.todo)
        } else {
            String::new()
        };
        match r.outcome {
            Outcome::Pass => {
                counts.0 += 1;
                println!(
                    "{}: sm {m}: pass ({}{todo})",
                    file.display(),
                    probes(r.probes_passed)
                );
            }
            Outcome::Fail => {
                counts.1 += 1;
                println!(
                    "{}: sm {m}: fail ({} passed{todo})",
                    file.display(),
                    probes(r.probes_passed)
                );
                for f in &r.failures {
                    println!("  {f}");
                }
            }
            Outcome::Skip => {
                counts.2 += 1;
                println!(
                    "{}: sm {m}: skip: {}",
                    file.display(),
                    r.skipped.as_deref().unwrap_or("")
                );
            }
        }
        if let Some(k) = &r.kept {
            println!("  kept {}", k.display());
        }
    }
    Ok(counts)
}

/// "1 probe", "3 probes".
fn probes(n: usize) -> String {
    if n == 1 {
        "1 probe".into()
    } else {
        format!("{n} probes")
    }
}
