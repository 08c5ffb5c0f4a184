//! `dxlane run JOB.toml`: runs a compute job (see `job::run`), prints a summary and
//! every expectation mismatch on stdout, warnings and errors on stderr, and a progress
//! bar on stderr for runs longer than a second when stderr is a terminal.
//!
//! Exit status: 0 when every `[[expect]]` holds (or there are none), 1 when any fails,
//! 2 on an error — in the job, the program, or the run — printed as
//! `dxlane: JOB: message`.

use std::io::IsTerminal;
use std::path::{Path, PathBuf};
use std::process::ExitCode;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};

use crate::exec::jit::Engine;
use crate::job::run::{self, ExpectSummary};
use crate::job::{
    DrawResult, Finished, Job, JobError, ListResult, RaysResult, RunOptions, RunResult,
};

fn parse_engine(s: &str) -> Result<Engine, String> {
    s.parse()
}

/// Mismatch lines printed per `[[expect]]` (all of them go to the JSON summary, up to
/// its own cap).
const PRINTED_MISMATCHES: usize = 20;

/// The bar appears once a run has taken this long.
const PROGRESS_DELAY: Duration = Duration::from_secs(1);

/// `dxlane run`'s arguments.
#[derive(Debug, Clone, clap::Args)]
pub struct RunArgs {
    /// The job file (TOML).
    pub job: PathBuf,
    /// Worker threads (0 = all cores); overrides `[options] threads`.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Lanes per wave (4 to 128, a power of two); overrides `[options] wave_size`.
    #[arg(long)]
    pub wave_size: Option<u32>,
    /// WARP profile (`warp-1.0.13`, `warp-1.0.14`, `latest`); overrides `[options] profile`.
    #[arg(long)]
    pub profile: Option<String>,
    /// Where to write the JSON summary; overrides `[options] summary`.
    #[arg(long)]
    pub summary: Option<PathBuf>,
    /// Write the job's outputs (and default summary) under this folder instead of the
    /// job file's; they must stay inside it.
    #[arg(long)]
    pub out_dir: Option<PathBuf>,
    /// Let the job's outputs go anywhere, including outside the job's folder (or
    /// --out-dir): only for job files you trust.
    #[arg(long)]
    pub allow_outside: bool,
    /// Stop the run after this many seconds; overrides `[options] max_seconds`.
    #[arg(long)]
    pub max_seconds: Option<f64>,
    /// The engine: `jit` (native code for arithmetic, the default) or `interp` (the
    /// interpreter only); overrides `[options] engine`.
    #[arg(long, value_parser = parse_engine)]
    pub engine: Option<Engine>,
    /// No progress bar and no summary on stdout: only mismatches, warnings and errors.
    #[arg(long, short)]
    pub quiet: bool,
    /// Also write a capture folder of the run's outputs here (`capture.toml` and one
    /// `.bin` per UAV), for `dxlane compare`.
    #[arg(long, value_name = "DIR")]
    pub record: Option<PathBuf>,
    /// Command lists: also record the named resources as command N left them (event
    /// numbers as `[[command]] #N` counts them), each into `DIR/event-N/`.
    #[arg(long, value_name = "N,M", value_delimiter = ',', requires = "record")]
    pub record_after: Vec<usize>,
    /// Print where the command's time went, on stderr: reading the job file, preparing
    /// it (programs loaded, resources bound, targets made), the run (compiling included)
    /// and writing the outputs and the summary.
    #[arg(long)]
    pub timings: bool,
}

/// Where a run's time went (`--timings`), in seconds.
struct Timings {
    job: f64,
    prepare: f64,
    /// From the start of the run to the summary written.
    execute: f64,
    /// The run itself, as the summary reports it.
    run: f64,
    /// Compiling, part of `run`.
    compile: Option<f64>,
}

impl Timings {
    /// The line `--timings` prints.
    fn line(&self) -> String {
        let ms = |s: f64| format!("{:.1} ms", s * 1e3);
        let compile = self
            .compile
            .map_or_else(String::new, |c| format!(" (compiling {})", ms(c)));
        format!(
            "timings       job file {}, prepare {}, run {}{compile}, outputs and summary {}, in all {}",
            ms(self.job),
            ms(self.prepare),
            ms(self.run),
            ms((self.execute - self.run).max(0.0)),
            ms(self.job + self.prepare + self.execute)
        )
    }
}

/// Runs a job and returns the exit status (errors are printed here, status 2).
pub fn run(args: &RunArgs) -> ExitCode {
    match run_inner(args) {
        Ok(code) => ExitCode::from(code),
        Err(e) => {
            // An error about the job file itself already starts with its name.
            let job = args.job.display().to_string();
            let text = e.to_string();
            if text.starts_with(&format!("{job}: ")) {
                eprintln!("dxlane: {text}");
            } else {
                eprintln!("dxlane: {job}: {text}");
            }
            ExitCode::from(2)
        }
    }
}

fn run_inner(args: &RunArgs) -> Result<u8, JobError> {
    let loading = Instant::now();
    let job = Job::load(&args.job)?;
    let job_seconds = loading.elapsed().as_secs_f64();
    // The bar counts a dispatch's thread groups; a draw shows none.
    let show_bar = !args.quiet
        && std::io::stderr().is_terminal()
        && job.file.draw.is_none()
        && job.file.commands.is_empty();
    let bar = ProgressBar::with_draw_target(None, ProgressDrawTarget::hidden());
    if let Ok(style) = ProgressStyle::with_template(
        "{bar:40} {percent:>3}% of the thread groups ({pos}/{len}), {elapsed} (eta {eta})",
    ) {
        bar.set_style(style);
    }
    let start = Instant::now();
    let shown = AtomicBool::new(false);
    let progress = |done: u64, total: u64| {
        if !show_bar || start.elapsed() < PROGRESS_DELAY {
            return;
        }
        if !shown.swap(true, Ordering::Relaxed) {
            bar.set_length(total);
            bar.set_draw_target(ProgressDrawTarget::stderr());
        }
        bar.set_position(done);
    };
    let opts = RunOptions {
        threads: args.threads,
        wave_size: args.wave_size,
        profile: args.profile.clone(),
        summary: args.summary.clone(),
        out_dir: args.out_dir.clone(),
        allow_outside: args.allow_outside,
        max_seconds: args.max_seconds,
        engine: args.engine,
        default_engine: super::default_engine(),
        progress: Some(&progress),
    };
    let recorded_job = args.record.as_ref().map(|_| job.clone());
    let preparing = Instant::now();
    let prepared = crate::job::prepare(job, &opts)?;
    let prepare_seconds = preparing.elapsed().as_secs_f64();
    let draw = prepared.is_draw();
    let before = prepared.warnings().len();
    // A dispatch's warnings are printed before it runs (it may run long); a draw's with
    // its summary.
    if !draw {
        for w in prepared.warnings() {
            eprintln!("dxlane: warning: {}: {w}", args.job.display());
        }
    }
    let executing = Instant::now();
    let result = prepared.execute(&opts);
    let execute_seconds = executing.elapsed().as_secs_f64();
    bar.finish_and_clear();
    let finished = result?;
    if args.timings {
        let (run, compile) = match &finished {
            Finished::Dispatch(r) => (
                r.summary.elapsed_seconds,
                r.summary.jit.as_ref().map(|j| j.compile_seconds),
            ),
            Finished::Draw(r) => (
                r.summary.elapsed_seconds,
                Some(r.summary.draw.compile_seconds),
            ),
            Finished::List(r) => (r.summary.elapsed_seconds, None),
            Finished::Rays(r) => (r.summary.elapsed_seconds, None),
        };
        let t = Timings {
            job: job_seconds,
            prepare: prepare_seconds,
            execute: execute_seconds,
            run,
            compile,
        };
        eprintln!("{}", t.line());
    }
    match &finished {
        Finished::Dispatch(result) => {
            // The run's own notes (fewer workers than asked).
            for w in result.summary.warnings.iter().skip(before) {
                eprintln!("dxlane: note: {}: {w}", args.job.display());
            }
            print_result(result, args.quiet);
        }
        Finished::Draw(r) => print_draw(r, args),
        Finished::List(r) => print_list(r, args),
        Finished::Rays(r) => print_rays(r, args),
    }
    if let (Some(dir), Some(job)) = (&args.record, &recorded_job) {
        if !recorded(args, crate::capture::record::record(job, &finished, dir)) {
            return Ok(2);
        }
        if !args.record_after.is_empty() {
            match crate::capture::record::record_after(job, &args.record_after, &opts, dir) {
                Ok(all) => {
                    for rec in all {
                        recorded(args, Ok(rec));
                    }
                }
                Err(e) => {
                    recorded(args, Err(e));
                    return Ok(2);
                }
            }
        }
    }
    match &finished {
        Finished::Draw(r) => print_expectations(&r.summary.expectations, args.quiet),
        Finished::List(r) => print_expectations(&r.summary.expectations, args.quiet),
        Finished::Rays(r) => print_expectations(&r.summary.expectations, args.quiet),
        Finished::Dispatch(_) => {}
    }
    Ok(finished.exit_code())
}

/// A command list's lines: one per command (its event number, type, lane-instructions,
/// pixels and time), then the outputs.
fn print_list(r: &ListResult, args: &RunArgs) {
    // The warnings were printed before the run, as a dispatch's are: the list's summary
    // holds the same ones.
    let s = &r.summary;
    if args.quiet {
        return;
    }
    println!("profile       {}", s.profile);
    println!(
        "runs          dxlane runs {}",
        crate::lower::dxil::runs_statement()
    );
    println!("engine        {}", s.engine);
    for c in &s.commands {
        let runs = if c.runs > 1 {
            format!(", {} runs", c.runs)
        } else {
            String::new()
        };
        let pixels = if c.pixels_shaded > 0 {
            format!(", {} pixels shaded", thousands(c.pixels_shaded))
        } else {
            String::new()
        };
        println!(
            "event {:<7} {} ({} lane-instructions{runs}{pixels}, {:.3} s)",
            c.event,
            c.kind,
            thousands(c.lane_instructions),
            c.seconds
        );
    }
    println!(
        "executed      {} lane-instructions in {:.3} s",
        thousands(s.lane_instructions),
        s.elapsed_seconds
    );
    for o in &s.outputs {
        println!("output        {} ({} bytes)", o.path, thousands(o.bytes));
    }
    println!("summary       {}", display(&r.summary_path));
}

/// A ray-tracing job's lines: its programs, the launch, what it traced, the outputs.
fn print_rays(r: &RaysResult, args: &RunArgs) {
    // The warnings were printed before the run, as a dispatch's are.
    let s = &r.summary;
    if args.quiet {
        return;
    }
    for p in &s.programs {
        println!(
            "{:<13} {} ({}, export {})",
            p.stage, p.path, p.container, p.entry
        );
    }
    println!("profile       {}", s.profile);
    println!(
        "runs          dxlane runs {}",
        crate::lower::dxil::runs_statement()
    );
    println!("engine        {}", s.engine);
    println!(
        "rays          DispatchRays({}, {}, {}): {} lanes of {} on {} worker{}, {} TraceRay calls, {} nodes, instances and primitives visited",
        s.dispatch[0],
        s.dispatch[1],
        s.dispatch[2],
        thousands(s.lanes),
        s.wave_size,
        s.threads,
        if s.threads == 1 { "" } else { "s" },
        thousands(s.rays),
        thousands(s.traversal)
    );
    println!(
        "executed      {} lane-instructions in {:.3} s",
        thousands(s.lane_instructions),
        s.elapsed_seconds
    );
    for o in &s.outputs {
        println!("output        {} ({} bytes)", o.path, thousands(o.bytes));
    }
    println!("summary       {}", display(&r.summary_path));
}

fn print_draw(r: &DrawResult, args: &RunArgs) {
    let s = &r.summary;
    for w in &s.warnings {
        eprintln!("dxlane: warning: {}: {w}", args.job.display());
    }
    if args.quiet {
        return;
    }
    println!(
        "vs            {} ({}, entry {})",
        s.vs.path, s.vs.container, s.vs.entry
    );
    if let Some(p) = &s.ps {
        println!(
            "ps            {} ({}, entry {})",
            p.path, p.container, p.entry
        );
    }
    let d = &s.draw;
    println!("profile       {}", d.profile);
    println!(
        "runs          dxlane runs {}",
        crate::lower::dxil::runs_statement()
    );
    println!(
        "draw          {} vertices shaded, {} primitives ({} rasterized), {} samples per pixel{}{}",
        thousands(d.vertices_shaded),
        thousands(d.primitives),
        thousands(d.primitives_rasterized),
        d.samples,
        if d.per_sample {
            ", pixel program per sample"
        } else {
            ""
        },
        if d.early_depth_stencil {
            ", early depth"
        } else {
            ""
        }
    );
    // A batch is one wave unless the pixel program runs several side by side.
    let wave = if d.pixel_wave_size == 0 {
        d.wave_size
    } else {
        d.pixel_wave_size
    };
    let batches = if d.pixel_batch_lanes > wave {
        format!(
            "{} batches of up to {} lanes (waves of {wave})",
            thousands(d.pixel_waves),
            d.pixel_batch_lanes,
        )
    } else {
        format!("{} waves of {wave} lanes", thousands(d.pixel_waves))
    };
    println!(
        "pixels        {} shaded, {} helper lanes, {batches}",
        thousands(d.pixels_shaded),
        thousands(d.helper_lanes),
    );
    let plural = if d.threads == 1 { "" } else { "s" };
    println!("threads       {} worker{plural}", d.threads);
    if d.jit.is_empty() {
        println!("engine        {}", d.engine);
    }
    for line in &d.jit {
        println!("engine        {line}");
    }
    println!(
        "executed      {} vertex and {} pixel lane-instructions in {:.3} s",
        thousands(d.vs_lane_instructions),
        thousands(d.ps_lane_instructions),
        s.elapsed_seconds
    );
    for o in &s.outputs {
        println!("output        {} ({} bytes)", o.path, thousands(o.bytes));
    }
    println!("summary       {}", display(&r.summary_path));
}

/// A draw's failed expectations and its count line (printed after `--record`'s line).
fn print_expectations(e: &ExpectSummary, quiet: bool) {
    for x in e.results.iter().filter(|x| !x.passed) {
        println!(
            "FAIL {}: {} of {} values differ",
            x.entry, x.mismatch_count, x.values
        );
        for line in x.mismatch_lines().iter().take(PRINTED_MISMATCHES) {
            println!("  {line}");
        }
    }
    if !e.results.is_empty() && (!quiet || e.failed > 0) {
        println!("expectations  {} passed, {} failed", e.passed, e.failed);
    }
}

/// Groups digits in threes: `1234567` → `1,234,567`.
fn thousands(n: u64) -> String {
    let s = n.to_string();
    let mut out = String::new();
    for (i, c) in s.chars().enumerate() {
        if i > 0 && (s.len() - i) % 3 == 0 {
            out.push(',');
        }
        out.push(c);
    }
    out
}

/// A rate with an SI prefix: `123.4 M/s`.
fn rate(per_second: f64) -> String {
    let (v, unit) = if per_second >= 1e9 {
        (per_second / 1e9, "G")
    } else if per_second >= 1e6 {
        (per_second / 1e6, "M")
    } else if per_second >= 1e3 {
        (per_second / 1e3, "k")
    } else {
        (per_second, "")
    };
    if unit.is_empty() {
        format!("{v:.1} lane-instructions/s")
    } else {
        format!("{v:.1} {unit} lane-instructions/s")
    }
}

fn print_result(r: &RunResult, quiet: bool) {
    let s = &r.summary;
    if !quiet {
        let p = &s.program;
        let model = p
            .shader_model
            .as_ref()
            .map_or_else(String::new, |m| format!(" {m}"));
        println!(
            "program       {} ({}{model}, entry {})",
            p.path, p.container, p.entry
        );
        println!("profile       {}", s.profile);
        println!(
            "runs          dxlane runs {}",
            crate::lower::dxil::runs_statement()
        );
        let batch = if s.batch_lanes > s.wave_size {
            format!(
                " (run {} threads side by side: no cross-lane operations)",
                s.batch_lanes
            )
        } else {
            String::new()
        };
        println!(
            "waves         {} lanes, {} thread layout{batch}",
            s.wave_size, s.thread_layout
        );
        let plural = if s.threads == 1 { "" } else { "s" };
        println!("threads       {} worker{plural}", s.threads);
        let [gx, gy, gz] = s.groups;
        let [tx, ty, tz] = s.thread_group;
        println!(
            "groups        {gx} × {gy} × {gz} of {tx} × {ty} × {tz} threads ({} waves)",
            thousands(s.waves)
        );
        println!(
            "executed      {} lane-instructions in {:.3} s ({})",
            thousands(s.lane_instructions),
            s.elapsed_seconds,
            rate(s.lane_instructions_per_second)
        );
        match &s.jit {
            Some(j) => {
                let mut line = format!(
                    "engine        jit: {} of {} instructions native ({} segments), compiled in {:.1} ms",
                    j.native_instructions,
                    j.native_instructions + j.interpreted_instructions,
                    j.segments,
                    j.compile_seconds * 1e3
                );
                if !j.interpreted_ops.is_empty() {
                    let ops: Vec<String> = j
                        .interpreted_ops
                        .iter()
                        .take(6)
                        .map(|(m, n)| format!("{m} ×{n}"))
                        .collect();
                    line += &format!("; interpreted: {}", ops.join(", "));
                    if j.interpreted_ops.len() > 6 {
                        line += ", …";
                    }
                }
                println!("{line}");
                if j.native_blocks > 0 {
                    let share = if s.lane_instructions > 0 {
                        100.0 * j.native_lane_instructions as f64 / s.lane_instructions as f64
                    } else {
                        0.0
                    };
                    println!(
                        "              {} of {} blocks native with their control flow: {} block runs, {share:.1}% of lane-instructions",
                        j.native_blocks,
                        j.blocks,
                        thousands(j.native_block_runs),
                    );
                }
                if let Some(why) = &j.fallback {
                    println!("              {why}");
                }
            }
            None => println!("engine        {}", s.engine),
        }
        for o in &s.outputs {
            println!("output        {} ({} bytes)", o.path, thousands(o.bytes));
        }
        println!("summary       {}", display(&r.summary_path));
    }
    let e = &s.expectations;
    for x in e.results.iter().filter(|x| !x.passed) {
        println!(
            "FAIL {}: {} of {} values differ",
            x.entry, x.mismatch_count, x.values
        );
        for line in x.mismatch_lines().iter().take(PRINTED_MISMATCHES) {
            println!("  {line}");
        }
        if x.mismatch_count > PRINTED_MISMATCHES {
            println!(
                "  … and {} more (the summary lists up to {})",
                x.mismatch_count - PRINTED_MISMATCHES,
                run::MAX_REPORTED_MISMATCHES
            );
        }
    }
    if !quiet || e.failed > 0 {
        if e.results.is_empty() {
            if !quiet {
                println!("expectations  none");
            }
        } else {
            println!("expectations  {} passed, {} failed", e.passed, e.failed);
        }
    }
}

fn display(p: &Path) -> String {
    p.display().to_string()
}

/// Reports what `--record` wrote (or why it failed, naming the job); false on failure.
fn recorded(
    args: &RunArgs,
    r: Result<crate::capture::record::Recorded, crate::capture::CaptureError>,
) -> bool {
    match r {
        Ok(rec) => {
            if !args.quiet {
                println!(
                    "capture       {} ({} resources)",
                    rec.manifest.display(),
                    rec.files.len()
                );
            }
            true
        }
        Err(e) => {
            eprintln!("dxlane: {}: --record: {e}", args.job.display());
            false
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `--timings`' line: each part in milliseconds, the outputs' part what the run
    /// leaves of the time from its start to the summary written, and the sum of the
    /// measured parts.
    #[test]
    fn timings_read_as_documented() {
        let t = Timings {
            job: 0.0002,
            prepare: 0.003,
            execute: 0.0375,
            run: 0.025,
            compile: Some(0.0015),
        };
        assert_eq!(
            t.line(),
            "timings       job file 0.2 ms, prepare 3.0 ms, run 25.0 ms (compiling 1.5 ms), outputs and summary 12.5 ms, in all 40.7 ms"
        );
        let t = Timings { compile: None, ..t };
        assert!(t.line().contains("run 25.0 ms, outputs"), "{}", t.line());
    }

    #[test]
    fn numbers_read_well() {
        assert_eq!(thousands(0), "0");
        assert_eq!(thousands(1234567), "1,234,567");
        assert_eq!(thousands(100), "100");
        assert_eq!(rate(2.5e8), "250.0 M lane-instructions/s");
    }
}
