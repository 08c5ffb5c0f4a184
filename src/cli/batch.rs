//! `dxlane batch SOURCE...`: runs many cases (see `batch`) and writes their reports;
//! `dxlane batch merge SHARD.jsonl...` combines shards' reports into one.
//!
//! Exit status: 0 when every case passed (or was skipped, or failed as expected, or was
//! a flake that passed when run again); 1 when some case failed (`fail`, `error`,
//! `crash`, `timeout`, `unexpected-pass`); 2 when the run itself failed — the cases or
//! baselines could not be read, a report could not be written, the shard could not be
//! decided, a case's process was killed by a signal the batch did not send or could not
//! be started, or (merge) the shards do not make one run.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::time::Duration;

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::batch::report::{self, Tally};
use crate::batch::runner::{RunConfig, run_all};
use crate::batch::{Baseline, BatchError, CaseResult, FORMAT, Header, Shard, cache, case};
use crate::job::paths::OutputGate;

/// `dxlane batch`'s arguments.
#[derive(Debug, Clone, clap::Args)]
#[command(args_conflicts_with_subcommands = true)]
pub struct BatchArgs {
    /// `merge`: combine shard reports.
    #[command(subcommand)]
    pub merge: Option<BatchCommand>,
    /// Folders to search for cases, case-list files, or single job (`.toml`) and
    /// `.shader_test` files.
    pub sources: Vec<PathBuf>,
    /// Cases run at a time (default: the number of cores).
    #[arg(short = 'j', long = "jobs", value_name = "N")]
    pub jobs: Option<usize>,
    /// Kill a case still running after this many seconds and report it as `timeout`.
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<f64>,
    /// Run this shard only: INDEX/COUNT, from 0 (default: from the scheduler's
    /// environment — JOB_COMPLETION_INDEX with DXLANE_SHARD_COUNT, SLURM_ARRAY_TASK_ID,
    /// CI_NODE_INDEX — else every case).
    #[arg(long, value_name = "I/N")]
    pub shard: Option<String>,
    /// Write the results as JSON lines here.
    #[arg(long, value_name = "FILE")]
    pub jsonl: Option<PathBuf>,
    /// Write a JUnit XML report here.
    #[arg(long, value_name = "FILE")]
    pub junit: Option<PathBuf>,
    /// Keep results here and reuse those of unchanged cases.
    #[arg(long, value_name = "DIR")]
    pub cache: Option<PathBuf>,
    /// Cases expected to fail: `NAME[,Fail|Error|Crash|Timeout]` lines.
    #[arg(long, value_name = "FILE")]
    pub expected_failures: Option<PathBuf>,
    /// Flaky cases, run again once when they fail.
    #[arg(long, value_name = "FILE")]
    pub flakes: Option<PathBuf>,
    /// Cases not to run.
    #[arg(long, value_name = "FILE")]
    pub skips: Option<PathBuf>,
    /// Worker threads of each case (default 1: the batch runs several cases at once).
    #[arg(long, default_value_t = 1)]
    pub threads: usize,
    /// WARP profile for every case.
    #[arg(long)]
    pub profile: Option<String>,
    /// Time budget of each job's run (`run --max-seconds`): the run stops itself and
    /// reports an error, where `--timeout` kills it.
    #[arg(long, value_name = "SECONDS")]
    pub max_seconds: Option<f64>,
    /// The engine for job runs: `jit` or `interp`.
    #[arg(long)]
    pub engine: Option<String>,
    /// Print the shard's case names and kinds, run nothing.
    #[arg(long)]
    pub list: bool,
    /// No progress bar and no per-case lines: only the summary line and errors.
    #[arg(long, short)]
    pub quiet: bool,
}

/// `dxlane batch`'s subcommands.
#[derive(Debug, Clone, clap::Subcommand)]
pub enum BatchCommand {
    /// Combine shard reports (JSONL) into one, as one unsharded run writes it.
    Merge {
        /// The shards' JSONL reports.
        #[arg(required = true)]
        shards: Vec<PathBuf>,
        /// Write the merged JSON lines here.
        #[arg(long, value_name = "FILE")]
        jsonl: Option<PathBuf>,
        /// Write the merged JUnit XML report here.
        #[arg(long, value_name = "FILE")]
        junit: Option<PathBuf>,
    },
}

/// Runs `dxlane batch` and returns its exit status.
pub fn run(args: &BatchArgs) -> ExitCode {
    let code = match &args.merge {
        Some(BatchCommand::Merge {
            shards,
            jsonl,
            junit,
        }) => merge(shards, jsonl.as_deref(), junit.as_deref()),
        None => batch(args),
    };
    match code {
        Ok(c) => ExitCode::from(c),
        Err(e) => {
            eprintln!("dxlane: batch: {e}");
            ExitCode::from(2)
        }
    }
}

fn merge(shards: &[PathBuf], jsonl: Option<&Path>, junit: Option<&Path>) -> Result<u8, BatchError> {
    let (header, results) = report::merge(shards)?;
    write_reports(&header, &results, jsonl, junit)?;
    eprintln!("{}", Tally::of(&results).line());
    Ok(report::exit_code(&results))
}

fn batch(args: &BatchArgs) -> Result<u8, BatchError> {
    if args.sources.is_empty() {
        return Err(BatchError::Other(
            "give folders, case lists or case files to run (or `merge`)".into(),
        ));
    }
    let shard = match &args.shard {
        Some(s) => Shard::parse(s).map_err(BatchError::Shard)?,
        None => match Shard::from_env(&|k| std::env::var(k).ok()).map_err(BatchError::Shard)? {
            Some((s, from)) => {
                if !args.quiet {
                    eprintln!("dxlane: batch: shard {s}, from {from}");
                }
                s
            }
            None => Shard::ALL,
        },
    };
    let timeout = match args.timeout {
        None => None,
        Some(t) if t.is_finite() && t > 0.0 && t < 1e9 => Some(Duration::from_secs_f64(t)),
        Some(t) => {
            return Err(BatchError::Other(format!(
                "--timeout {t}: give a positive number of seconds"
            )));
        }
    };
    let all = case::collect(&args.sources)?;
    let all_count = all.len();
    let cases: Vec<_> = all.into_iter().filter(|c| shard.owns(&c.name)).collect();
    if args.list {
        for c in &cases {
            println!("{} {}", c.kind.word(), c.name);
        }
        return Ok(0);
    }
    let baseline = Baseline::load(
        args.expected_failures.as_deref(),
        args.flakes.as_deref(),
        args.skips.as_deref(),
    )?;
    let exe = std::env::current_exe()
        .map_err(|e| BatchError::Other(format!("cannot find dxlane's own executable: {e}")))?;
    let cache = match &args.cache {
        Some(dir) => {
            std::fs::create_dir_all(dir).map_err(|e| BatchError::Io {
                path: dir.clone(),
                message: format!("cannot create the cache folder: {e}"),
            })?;
            Some(cache::Cache::new(
                dir,
                cache::build_id(&exe).map_err(BatchError::Other)?,
            ))
        }
        None => None,
    };
    let jobs = args.jobs.unwrap_or_else(|| {
        std::thread::available_parallelism().map_or(1, std::num::NonZeroUsize::get)
    });
    let cfg = RunConfig {
        exe,
        jobs: jobs.max(1),
        timeout,
        threads: args.threads,
        profile: args.profile.clone(),
        max_seconds: args.max_seconds,
        engine: args.engine.clone(),
        baseline,
        cache,
    };
    let bar = ProgressBar::with_draw_target(Some(cases.len() as u64), ProgressDrawTarget::hidden());
    if !args.quiet && std::io::stderr().is_terminal() {
        if let Ok(style) =
            ProgressStyle::with_template("{bar:40} {pos}/{len} cases, {elapsed} (eta {eta}) {msg}")
        {
            bar.set_style(style);
        }
        bar.set_draw_target(ProgressDrawTarget::stderr());
    }
    let done = |r: &CaseResult| {
        if r.status.fails_batch() || r.status == crate::batch::Status::InfraFailure {
            bar.set_message(format!("last failure: {}", r.case));
        }
        bar.inc(1);
    };
    let results = run_all(&cases, &cfg, &done);
    bar.finish_and_clear();
    if !args.quiet {
        for r in &results {
            if r.status.fails_batch() || r.status == crate::batch::Status::InfraFailure {
                let first = r.message.lines().next().unwrap_or("");
                println!("{} {}: {first}", r.status.word(), r.case);
            }
        }
    }
    let header = Header {
        format: FORMAT.into(),
        version: env!("CARGO_PKG_VERSION").into(),
        shard: shard.to_string(),
        all_cases: all_count,
        cases: results.len(),
    };
    write_reports(
        &header,
        &results,
        args.jsonl.as_deref(),
        args.junit.as_deref(),
    )?;
    eprintln!("{} (shard {shard})", Tally::of(&results).line());
    Ok(report::exit_code(&results))
}

fn write_reports(
    header: &Header,
    results: &[CaseResult],
    jsonl: Option<&Path>,
    junit: Option<&Path>,
) -> Result<(), BatchError> {
    let write = |path: &Path, flag: &str, text: String| -> Result<(), BatchError> {
        // The gate's errors name the file.
        let fail = BatchError::Other;
        let (gate, placed) = OutputGate::user_file(path, flag).map_err(fail)?;
        gate.write(&placed, text.as_bytes()).map_err(fail)
    };
    if let Some(p) = jsonl {
        write(p, "--jsonl", report::jsonl(header, results))?;
    }
    if let Some(p) = junit {
        write(p, "--junit", report::junit(results))?;
    }
    Ok(())
}
