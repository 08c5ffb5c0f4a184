//! `dxlane compare JOB.toml CAPTURE_DIR`: runs a job and compares it with a capture (see
//! `capture::replay`), printing the report as text or `--json`.
//!
//! Exit status: 0 when every captured resource is equal within its tolerance, 1 when any
//! differs, 2 on an error (printed as `dxlane: message`).

use std::path::PathBuf;
use std::process::ExitCode;

use crate::capture::element::{NanRule, parse_tolerance};
use crate::capture::{CompareOptions, compare_job};
use crate::job::schema::Tolerance;

/// `dxlane compare`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct CompareArgs {
    /// The job file (TOML).
    pub job: PathBuf,
    /// The capture folder (holding `capture.toml`).
    pub capture: PathBuf,
    /// Print the report as JSON (schema `dxlane-compare/1`, see docs/capture.md).
    #[arg(long)]
    pub json: bool,
    /// WARP profile to compare under (default: the capture's, else the job's, else the
    /// newest).
    #[arg(long)]
    pub profile: Option<String>,
    /// Tolerance for every resource (`exact`, `ulp N`, `abs X`), or for one:
    /// `u0=ulp 2`, `rt0=abs 0.01`. Repeatable; overrides capture.toml.
    #[arg(long, value_name = "[NAME=]T")]
    pub tolerance: Vec<String>,
    /// How NaNs of other bits compare: `exact` (payloads told apart) or `any`.
    #[arg(long)]
    pub nan: Option<String>,
    /// Mismatches listed per resource (default 10).
    #[arg(long, value_name = "N")]
    pub mismatches: Option<usize>,
    /// Where diff images go (default: out/compare/<capture folder name>/ beside the job).
    #[arg(long, value_name = "DIR")]
    pub images: Option<PathBuf>,
    /// Write no diff images.
    #[arg(long)]
    pub no_images: bool,
    /// Do not rerun under other profiles and rules.
    #[arg(long)]
    pub no_explain: bool,
    /// Compare even when the capture names another job file.
    #[arg(long)]
    pub any_job: bool,
    /// A command list: compare the resources as the first N commands left them (events
    /// numbered from 1; default: the capture's `event`, else the whole list).
    #[arg(long, value_name = "N")]
    pub event: Option<usize>,
    /// Worker threads (0 = all cores).
    #[arg(long)]
    pub threads: Option<usize>,
    /// Lanes per wave.
    #[arg(long)]
    pub wave_size: Option<u32>,
}

fn options(a: &CompareArgs) -> Result<CompareOptions, String> {
    let mut o = CompareOptions {
        threads: a.threads,
        wave_size: a.wave_size,
        profile: a.profile.clone(),
        mismatches: a.mismatches,
        images: a.images.clone(),
        no_images: a.no_images,
        no_explain: a.no_explain,
        any_job: a.any_job,
        event: a.event,
        default_engine: super::default_engine(),
        ..CompareOptions::default()
    };
    let bad = |s: &str| {
        format!(
            "--tolerance \"{s}\": give exact, ulp N or abs X, optionally after NAME= (u0=ulp 2)"
        )
    };
    for t in &a.tolerance {
        match t.split_once('=') {
            Some((name, rest))
                if parse_tolerance(rest).is_some()
                    && !name.contains(' ')
                    && name != "ulp"
                    && name != "abs" =>
            {
                let tol: Tolerance = parse_tolerance(rest).ok_or_else(|| bad(t))?;
                o.tolerances.push((name.trim().to_string(), tol));
            }
            _ => o.tolerance = Some(parse_tolerance(t).ok_or_else(|| bad(t))?),
        }
    }
    o.nan = match a.nan.as_deref() {
        None => None,
        Some("exact") => Some(NanRule::Exact),
        Some("any") => Some(NanRule::Any),
        Some(x) => return Err(format!("--nan \"{x}\": give exact or any")),
    };
    Ok(o)
}

/// Runs the comparison and returns the exit status.
pub fn run(a: &CompareArgs) -> ExitCode {
    let opts = match options(a) {
        Ok(o) => o,
        Err(e) => {
            eprintln!("dxlane: {e}");
            return ExitCode::from(2);
        }
    };
    match compare_job(&a.job, &a.capture, &opts) {
        Ok(r) => {
            if a.json {
                print!("{}", r.json());
            } else {
                print!("{}", r.text());
            }
            ExitCode::from(r.exit_code())
        }
        Err(e) => {
            eprintln!("dxlane: {e}");
            ExitCode::from(2)
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use clap::Parser;

    fn parse(args: &[&str]) -> CompareArgs {
        #[derive(Parser)]
        struct P {
            #[command(flatten)]
            a: CompareArgs,
        }
        let mut v = vec!["x", "job.toml", "cap"];
        v.extend_from_slice(args);
        P::parse_from(v).a
    }

    #[test]
    fn tolerances_for_all_and_for_one() {
        let o = options(&parse(&[
            "--tolerance",
            "ulp 2",
            "--tolerance",
            "rt0=abs 0.5",
        ]))
        .unwrap();
        assert_eq!(o.tolerance, Some(Tolerance::Ulp(2)));
        assert_eq!(o.tolerances, vec![("rt0".to_string(), Tolerance::Abs(0.5))]);
        let o = options(&parse(&["--tolerance", "ulp=3"])).unwrap();
        assert_eq!(o.tolerance, Some(Tolerance::Ulp(3)));
        assert!(options(&parse(&["--tolerance", "close"])).is_err());
        assert!(options(&parse(&["--nan", "some"])).is_err());
    }
}
