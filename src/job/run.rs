//! Running a compute job: load the program, bind, check, dispatch, write the outputs,
//! check the expectations, write the summary.
//!
//! Owns the library API `dxlane run` (and later `replay`) is built on: [`run_job`] does
//! it all; [`prepare`] and [`Prepared::execute`] split it so a caller can show warnings
//! before a long run. Does not own: printing (`cli::run`).
//!
//! Everything that can be checked before the run is: the job's keys and sizes, the
//! bindings against the program's declarations, the options, the dispatch size, the
//! output formats and the expectations' targets — a run never ends in an error a look at
//! the job could have found.
//!
//! The JSON summary (`[options] summary`, by default `out/<job stem>.summary.json` beside
//! the job file) holds the program (path, container `DXBC`/`DXIL`/`IR`, shader model,
//! stage, entry), the profile, wave size, worker threads, thread layout, thread group and
//! groups, waves and lane-instructions run, the dispatch's elapsed seconds and
//! lane-instructions per second, every output (path, bytes, MD5), every expectation's
//! result, and the warnings.

use std::path::{Path, PathBuf};
use std::time::Instant;

use md5::Digest;
use serde::Serialize;

use super::bind::{self, BoundEntry, BoundJob, DEFAULT_MAX_RESOURCE_BYTES, Register, Storage};
use super::expect::{self, Expected, Mismatch};
use super::limits::MemoryBudget;
use super::paths::{OutputGate, OutputPolicy};
use super::reflect::{self, Fit};
use super::schema::{ExpectEntry, Tolerance};
use super::{Job, JobError, LoadError, png};
use crate::container::{Container, ProgramHeader, ProgramKind};
use crate::exec::jit::{Engine, JitReport};
use crate::exec::{ExecError, Limits, Profile};
use crate::ir::{Shader, Stage};
use crate::lower::{self, LoadOptions};
use crate::pipeline::dispatch::{MAX_GROUPS_PER_DIMENSION, choose_wave_size};
use crate::pipeline::{DispatchOptions, ThreadLayout, dispatch};

/// The most mismatches of one `[[expect]]` kept in a summary (the count is always
/// exact).
pub const MAX_REPORTED_MISMATCHES: usize = 100;

/// Settings that override the job's `[options]` (the command line's flags).
#[derive(Default)]
pub struct RunOptions<'a> {
    /// Worker threads (0 = all cores).
    pub threads: Option<usize>,
    /// Lanes per wave.
    pub wave_size: Option<u32>,
    /// WARP profile name.
    pub profile: Option<String>,
    /// Where to write the summary (as given, not relative to the job).
    pub summary: Option<PathBuf>,
    /// Write the job's outputs under this folder instead of the job's (`--out-dir`).
    pub out_dir: Option<PathBuf>,
    /// Let outputs go outside the job's folder / `out_dir` (`--allow-outside`).
    pub allow_outside: bool,
    /// The run's time limit; overrides `[options] max_seconds`.
    pub max_seconds: Option<f64>,
    /// The engine; overrides `[options] engine`.
    pub engine: Option<Engine>,
    /// Called with (groups done, groups in all) from the worker threads.
    pub progress: Option<&'a (dyn Fn(u64, u64) + Sync)>,
}

/// What program a job ran.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ProgramInfo {
    /// The program file.
    pub path: String,
    /// `DXBC` (Shader Model 4–5), `DXIL` (Shader Model 6) or `IR` (the text form).
    pub container: String,
    /// The shader model as a profile name (`cs_5_0`); `null` for IR text.
    pub shader_model: Option<String>,
    /// The stage (`compute`).
    pub stage: String,
    /// The entry point.
    pub entry: String,
}

/// A program loaded for a job.
#[derive(Debug, Clone)]
pub struct LoadedProgram {
    /// The lowered (or parsed) shader.
    pub shader: Shader,
    /// What it is.
    pub info: ProgramInfo,
}

/// One output file written.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct OutputSummary {
    /// The entry it came from.
    pub entry: String,
    /// The file.
    pub path: String,
    /// Its size in bytes.
    pub bytes: u64,
    /// The MD5 of its bytes, in hex.
    pub md5: String,
}

/// The result of one `[[expect]]`.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ExpectResult {
    /// The entry: `[[expect]] #1 (u0)`.
    pub entry: String,
    /// What it checks: `u0`, `u0 counter`, `heap[2]`.
    pub target: String,
    /// Values compared.
    pub values: usize,
    /// Whether every value matched.
    pub passed: bool,
    /// Number of values that did not match.
    pub mismatch_count: usize,
    /// The first [`MAX_REPORTED_MISMATCHES`] mismatches.
    pub mismatches: Vec<Mismatch>,
}

impl ExpectResult {
    /// One line per reported mismatch: `u0 +0x10 [4]: expected 1.0 (0x3f800000), got
    /// 1.0000001 (0x3f800001), 1 ulp`.
    pub fn mismatch_lines(&self) -> Vec<String> {
        self.mismatches
            .iter()
            .map(|m| mismatch_line(&self.target, m))
            .collect()
    }
}

/// One mismatch as a line (see [`ExpectResult::mismatch_lines`]).
pub fn mismatch_line(target: &str, m: &Mismatch) -> String {
    let mut s = format!(
        "{target} +0x{:x} [{}]: expected {}, got {}",
        m.offset, m.element, m.expected, m.got
    );
    if let Some(u) = m.ulp {
        s.push_str(&format!(", {u} ulp"));
    }
    s
}

/// All expectations' results.
#[derive(Debug, Clone, Serialize, PartialEq, Default)]
pub struct ExpectSummary {
    /// Entries whose values all matched.
    pub passed: usize,
    /// Entries with a mismatch.
    pub failed: usize,
    /// Each entry's result, in file order.
    pub results: Vec<ExpectResult>,
}

/// What a run did: the JSON summary's contents.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct Summary {
    /// The job file.
    pub job: String,
    /// The program.
    pub program: ProgramInfo,
    /// The WARP profile's name.
    pub profile: String,
    /// Lanes per wave.
    pub wave_size: u32,
    /// Threads run side by side (more than a wave when the program never looks across
    /// lanes; see `pipeline::dispatch`).
    pub batch_lanes: u32,
    /// Worker threads.
    pub threads: usize,
    /// How threads were placed in lanes: `quads` or `linear`.
    pub thread_layout: String,
    /// `[numthreads]`.
    pub thread_group: [u32; 3],
    /// Thread groups dispatched.
    pub groups: [u32; 3],
    /// Waves run.
    pub waves: u64,
    /// Lane-instructions executed.
    pub lane_instructions: u64,
    /// Seconds the dispatch took (wall clock).
    pub elapsed_seconds: f64,
    /// Lane-instructions per second of the dispatch.
    pub lane_instructions_per_second: f64,
    /// The engine that ran the program: `jit` or `interp`.
    pub engine: String,
    /// What the native engine compiled, when it ran.
    pub jit: Option<JitSummary>,
    /// Output files written.
    pub outputs: Vec<OutputSummary>,
    /// Expectation results.
    pub expectations: ExpectSummary,
    /// Warnings of the reflection check.
    pub warnings: Vec<String>,
}

/// The native engine's part of a summary.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct JitSummary {
    /// Instructions compiled to native code.
    pub native_instructions: usize,
    /// Instructions left to the interpreter.
    pub interpreted_instructions: usize,
    /// Native functions (segments) made.
    pub segments: usize,
    /// Blocks of the program.
    pub blocks: usize,
    /// Blocks run natively with their control flow (in the region function).
    pub native_blocks: usize,
    /// Blocks the region function ran during the dispatch.
    pub native_block_runs: u64,
    /// Lane-instructions the region function ran during the dispatch.
    pub native_lane_instructions: u64,
    /// Compile time, in seconds.
    pub compile_seconds: f64,
    /// The interpreted instructions by mnemonic: `[mnemonic, count]`, most frequent first.
    pub interpreted_ops: Vec<(String, usize)>,
    /// Why the shader, or part of it, stayed interpreted.
    pub fallback: Option<String>,
}

impl From<&JitReport> for JitSummary {
    fn from(r: &JitReport) -> Self {
        JitSummary {
            native_instructions: r.native,
            interpreted_instructions: r.interpreted,
            segments: r.segments,
            blocks: r.blocks,
            native_blocks: r.native_blocks,
            native_block_runs: r.native_block_runs,
            native_lane_instructions: r.native_lane_instructions,
            compile_seconds: r.compile_time.as_secs_f64(),
            interpreted_ops: r.interpreted_ops.clone(),
            fallback: r.fallback.clone(),
        }
    }
}

/// A finished run.
#[derive(Debug, Clone)]
pub struct RunResult {
    /// The summary (also written as JSON).
    pub summary: Summary,
    /// Where the summary was written.
    pub summary_path: PathBuf,
    /// The job's resources after the run.
    pub bound: BoundJob,
}

impl RunResult {
    /// Whether every expectation held.
    pub fn passed(&self) -> bool {
        self.summary.expectations.failed == 0
    }

    /// The process exit status: 0 when every expectation holds, 1 when any fails.
    /// (Errors, status 2, never make a `RunResult`.)
    pub fn exit_code(&self) -> u8 {
        if self.passed() { 0 } else { 1 }
    }
}

/// A job ready to run: program loaded, resources bound and checked.
#[derive(Debug)]
pub struct Prepared {
    /// The job.
    pub job: Job,
    /// The program.
    pub program: LoadedProgram,
    /// The job's resources.
    pub bound: BoundJob,
    /// The bindings and the check's warnings.
    pub fit: Fit,
    /// Thread groups.
    pub groups: [u32; 3],
    /// Dispatch options.
    pub options: DispatchOptions,
    /// The expectations, checked against their targets.
    expects: Vec<CheckedExpect>,
    /// The gate the outputs are written through.
    gate: OutputGate,
    /// The job's memory: its resources taken, what is left for the outputs' temporaries.
    memory: MemoryBudget,
    /// The summary's path and its gate (a `--summary` file's is its own folder).
    summary: (OutputGate, PathBuf),
}

/// An `[[expect]]` whose target exists and whose values parse.
#[derive(Debug)]
struct CheckedExpect {
    entry: String,
    target: String,
    table: bind::Table,
    index: usize,
    counter: Option<u32>,
    values: Vec<Expected>,
    source: ExpectEntry,
}

/// Reads, checks and runs the job at `path` (see the module doc).
pub fn run_job(path: &Path, opts: &RunOptions<'_>) -> Result<RunResult, JobError> {
    let job = Job::load(path)?;
    prepare(job, opts)?.execute(opts)
}

/// Loads the job's program (`[program] cs`, relative to the job file): a DXBC
/// container (DXBC or DXIL program) through `lower::load`, or a `.ir` file in the IR's
/// text form. Refuses programs that are not compute programs.
pub fn load_program(job: &Job) -> Result<LoadedProgram, JobError> {
    let p = &job.file.program;
    let Some(cs) = &p.cs else {
        let message = if p.vs.is_some() || p.ps.is_some() {
            "a draw job (`vs`/`ps`) needs a `[draw]` section instead of `[dispatch]` (see `job::draw`)"
        } else {
            "missing `cs` (the compute program's file, relative to the job file)"
        };
        return Err(JobError::Section {
            section: "[program]",
            message: message.into(),
        });
    };
    let path = job.resolve(cs);
    let program_err = |message: String| JobError::Program {
        path: path.clone(),
        message,
    };
    if !is_ir_path(&path)
        && let Ok(bytes) = read_program(&path)
        && let Ok(c) = Container::parse(&bytes)
        && let Some(part) = c.program_part()
        && let Ok(h) = ProgramHeader::parse(part)
    {
        // The program's kind first, so a pixel program gets a clear word even where the
        // lowering would refuse it for another reason.
        let v = h.version();
        if !matches!(v.kind, ProgramKind::Compute | ProgramKind::Library) {
            return Err(program_err(format!(
                "is a {v} program; `dxlane run` runs compute programs (cs_*)"
            )));
        }
    }
    let (shader, container, shader_model) = load_file(&path, p.entry.as_ref())?;
    if shader.stage != Stage::Compute {
        return Err(program_err(format!(
            "is a {} program; `dxlane run` runs compute programs",
            shader.stage
        )));
    }
    let info = ProgramInfo {
        path: path.display().to_string(),
        container,
        shader_model,
        stage: shader.stage.to_string(),
        entry: shader.entry.clone(),
    };
    Ok(LoadedProgram { shader, info })
}

fn is_ir_path(path: &Path) -> bool {
    path.extension()
        .is_some_and(|e| e.eq_ignore_ascii_case("ir"))
}

/// Loads one program file: a DXBC container (DXBC or DXIL program) through `lower::load`,
/// or a `.ir` file in the IR's text form; returns the shader, its container kind (`DXBC`,
/// `DXIL`, `IR`) and its shader model.
pub(crate) fn load_file(
    path: &Path,
    entry: Option<&String>,
) -> Result<(Shader, String, Option<String>), JobError> {
    let path = path.to_path_buf();
    let program_err = |message: String| JobError::Program {
        path: path.clone(),
        message,
    };
    if is_ir_path(&path) {
        let bytes = read_program(&path)?;
        let text = String::from_utf8(bytes).map_err(|_| JobError::Io {
            path: path.clone(),
            message: "not UTF-8 text (an .ir program is the IR's text form)".into(),
        })?;
        let shader = crate::ir::parse_shader(&text).map_err(|e| JobError::Load {
            path: path.clone(),
            source: LoadError::IrParse {
                line: e.line,
                message: e.message,
            },
        })?;
        crate::ir::validate(&shader).map_err(|e| JobError::Load {
            path: path.clone(),
            source: LoadError::IrInvalid(e.to_string()),
        })?;
        if let Some(entry) = entry
            && *entry != shader.entry
        {
            return Err(program_err(format!(
                "has no entry point \"{entry}\" (its entry is \"{}\")",
                shader.entry
            )));
        }
        return Ok((shader, "IR".to_string(), None));
    }
    let bytes = read_program(&path)?;
    let loaded = lower::load(
        &bytes,
        &LoadOptions {
            entry: entry.cloned(),
            ..LoadOptions::default()
        },
    )
    .map_err(|e| JobError::Load {
        path: path.clone(),
        source: LoadError::Lower(e),
    })?;
    let container = if loaded.dxil { "DXIL" } else { "DXBC" };
    Ok((
        loaded.shader,
        container.to_string(),
        Some(loaded.version.to_string()),
    ))
}

/// Reads a program file: a regular file of at most `limits::MAX_PROGRAM_BYTES`.
fn read_program(path: &Path) -> Result<Vec<u8>, JobError> {
    super::paths::read_input(
        path,
        super::limits::MAX_PROGRAM_BYTES,
        "the largest program a job may load",
    )
    .map_err(|message| JobError::Program {
        path: path.to_path_buf(),
        message: message
            .strip_prefix(&format!("{}: ", path.display()))
            .map(str::to_string)
            .unwrap_or(message),
    })
}

fn options_err(message: String) -> JobError {
    JobError::Section {
        section: "[options]",
        message,
    }
}

/// The limits of a run of `job` with `opts`, for every kind of work (a dispatch, a draw,
/// the debugger's runs): `[options] max_lane_instructions`, `max_memory`,
/// `max_total_lane_instructions`, and `max_seconds` or `--max-seconds`.
pub(crate) fn run_limits(job: &Job, opts: &RunOptions<'_>) -> Result<Limits, JobError> {
    let o = &job.file.options;
    let mut limits = Limits::default();
    if let Some(n) = o.max_lane_instructions {
        if n == 0 {
            return Err(options_err(
                "`max_lane_instructions` is 0; give at least 1".into(),
            ));
        }
        limits.max_lane_instructions = n;
    }
    if let Some(m) = o.max_memory {
        limits.max_memory_bytes = m;
    }
    match o.max_total_lane_instructions {
        Some(0) => {
            return Err(options_err(
                "`max_total_lane_instructions` is 0; give at least 1".into(),
            ));
        }
        Some(n) => limits.max_total_lane_instructions = n,
        None => {}
    }
    let seconds = opts.max_seconds.or(o.max_seconds);
    if let Some(t) = seconds {
        let what = if opts.max_seconds.is_some() {
            format!("`--max-seconds {t}`")
        } else {
            format!("`[options] max_seconds` {t}")
        };
        let d = std::time::Duration::try_from_secs_f64(t)
            .ok()
            .filter(|d| !d.is_zero())
            .ok_or_else(|| JobError::Section {
                section: "[options]",
                message: format!("{what}: give a positive number of seconds"),
            })?;
        limits.max_wall_time = Some(d);
    }
    Ok(limits)
}

/// Checks everything that can be checked before a run (see the module doc) and binds the
/// job's resources.
pub fn prepare(job: Job, opts: &RunOptions<'_>) -> Result<Prepared, JobError> {
    let o = &job.file.options;
    let groups = match &job.file.dispatch {
        Some(d) => d.groups,
        None => {
            return Err(JobError::Section {
                section: "[dispatch]",
                message: "missing: a compute job needs `[dispatch] groups = [x, y, z]`".into(),
            });
        }
    };
    if groups
        .iter()
        .any(|&g| g == 0 || g > MAX_GROUPS_PER_DIMENSION)
    {
        return Err(JobError::Section {
            section: "[dispatch]",
            message: format!(
                "`groups` {groups:?}: each count must be from 1 to {MAX_GROUPS_PER_DIMENSION}"
            ),
        });
    }
    let profile_name = opts.profile.as_deref().or(o.profile.as_deref());
    let profile = match profile_name {
        None => Profile::latest(),
        Some(n) => Profile::by_name(n).ok_or_else(|| {
            options_err(format!(
                "unknown profile \"{n}\" (known: {}, latest)",
                Profile::PRESETS.join(", ")
            ))
        })?,
    };
    let limits = run_limits(&job, opts)?;
    let resource_limit = o.max_memory.unwrap_or(DEFAULT_MAX_RESOURCE_BYTES);
    let program = load_program(&job)?;
    let wave_size = opts.wave_size.or(o.wave_size);
    // Say where the value came from: the command line's flag wins over the job.
    let wave_err = |m: String| match opts.wave_size {
        Some(w) => JobError::Section {
            section: "--wave-size",
            message: format!("{w}: {m}"),
        },
        None => options_err(m),
    };
    choose_wave_size(&program.shader, wave_size).map_err(|e| match e {
        ExecError::WaveSize { size, message } if opts.wave_size.is_some() => {
            let _ = size;
            wave_err(message)
        }
        ExecError::WaveSize { size, message } => wave_err(format!("`wave_size` {size}: {message}")),
        e => wave_err(format!("`wave_size`: {e}")),
    })?;
    let mut bound = bind::bind_job(&job.file, &job.dir, resource_limit)?;
    let gate = output_gate(&job, opts);
    place_outputs(&mut bound, &gate)?;
    let memory = resource_memory(&bound, resource_limit)?;
    check_outputs(&bound)?;
    let expects = check_expects(&job, &bound)?;
    let fit = reflect::check(&program.shader, &bound)?;
    let engine = match (opts.engine, &o.engine) {
        (Some(e), _) => e,
        (None, Some(name)) => name
            .parse()
            .map_err(|m: String| options_err(format!("`engine`: {m}")))?,
        (None, None) => Engine::from_env(),
    };
    let options = DispatchOptions {
        wave_size,
        threads: opts.threads.or(o.threads).unwrap_or(0),
        profile,
        limits,
        engine,
    };
    let summary = summary_place(&job, opts, &gate)?;
    Ok(Prepared {
        job,
        program,
        bound,
        fit,
        groups,
        options,
        expects,
        gate,
        memory,
        summary,
    })
}

/// The output gate of a job run with `opts` (`--out-dir`, `--allow-outside`).
pub(crate) fn output_gate(job: &Job, opts: &RunOptions<'_>) -> OutputGate {
    OutputPolicy {
        job_dir: job.dir.clone(),
        out_dir: opts.out_dir.clone(),
        allow_outside: opts.allow_outside,
    }
    .gate()
}

/// Where a job's summary goes, and through which gate: `--summary FILE` (the user's
/// own folder), else `[options] summary`, else `out/<job stem>.summary.json`, both placed
/// by the job's gate.
pub(crate) fn summary_place(
    job: &Job,
    opts: &RunOptions<'_>,
    gate: &OutputGate,
) -> Result<(OutputGate, PathBuf), JobError> {
    let section = |m: String| JobError::Section {
        section: "[options]",
        message: m,
    };
    if let Some(p) = &opts.summary {
        return OutputGate::user_file(p, "--summary").map_err(|m| JobError::Section {
            section: "--summary",
            message: m,
        });
    }
    let placed = match &job.file.options.summary {
        Some(p) => gate
            .place(&job.resolve(p))
            .map_err(|m| section(format!("`summary`: {m}")))?,
        None => {
            let stem = job
                .path
                .file_stem()
                .map_or_else(|| "job".into(), |s| s.to_string_lossy().into_owned());
            gate.place(&job.resolve(&Path::new("out").join(format!("{stem}.summary.json"))))
                .map_err(|m| section(format!("the summary: {m}")))?
        }
    };
    Ok((gate.clone(), placed))
}

/// The job's memory budget with its bound resources taken (`bind` counted them already;
/// what is left bounds the temporaries made after the run).
pub(crate) fn resource_memory(bound: &BoundJob, limit: u64) -> Result<MemoryBudget, JobError> {
    let mut memory = MemoryBudget::new(limit);
    let used: u64 = bound.all().map(|e| e.storage_bytes()).sum();
    memory.take("the job's resources", used)?;
    Ok(memory)
}

/// Places every output of the job through `gate` (see `job::paths`), refusing those
/// that would land outside the job's folder or `--out-dir`: `output`, `counter_output`
/// and a texture's `outputs = [{ file }]`.
pub(crate) fn place_outputs(bound: &mut BoundJob, gate: &OutputGate) -> Result<(), JobError> {
    for list in [
        &mut bound.resources,
        &mut bound.heap,
        &mut bound.sampler_heap,
    ] {
        for e in list.iter_mut() {
            for (key, slot) in [
                ("output", &mut e.output),
                ("counter_output", &mut e.counter_output),
            ] {
                if let Some(p) = slot.as_ref() {
                    let placed = gate
                        .place(p)
                        .map_err(|m| JobError::entry(&e.name, format!("`{key}`: {m}")))?;
                    *slot = Some(placed);
                }
            }
            for (i, o) in e.subresource_outputs.iter_mut().enumerate() {
                o.path = gate
                    .place(&o.path)
                    .map_err(|m| JobError::entry(&e.name, format!("`outputs` #{}: {m}", i + 1)))?;
            }
        }
    }
    Ok(())
}

/// Refuses outputs that cannot be written (a `.png` of a buffer or of a format PNG
/// cannot hold).
pub(crate) fn check_outputs(bound: &BoundJob) -> Result<(), JobError> {
    for e in bound.all() {
        let Some(out) = &e.output else { continue };
        if !is_png(out) {
            continue;
        }
        match &e.storage {
            Storage::Texture(t) if png::is_png_format(t.desc().format) => {}
            Storage::Texture(t) => {
                return Err(JobError::entry(
                    &e.name,
                    format!(
                        "`output`: a .png needs a texture of 8-bit or 16-bit UNORM or sRGB channels, not {} (write .bin instead)",
                        t.desc().format
                    ),
                ));
            }
            _ => {
                return Err(JobError::entry(
                    &e.name,
                    "`output`: only textures can be written as .png (write .bin instead)",
                ));
            }
        }
    }
    Ok(())
}

fn is_png(p: &Path) -> bool {
    p.extension().is_some_and(|x| x.eq_ignore_ascii_case("png"))
}

/// Finds every expectation's target and parses its values.
fn check_expects(job: &Job, bound: &BoundJob) -> Result<Vec<CheckedExpect>, JobError> {
    let mut out = Vec::new();
    for (i, x) in job.file.expects.iter().enumerate() {
        let label = match (&x.reg, x.heap) {
            (Some(r), _) if x.space != 0 => format!("{r}, space{}", x.space),
            (Some(r), _) => r.clone(),
            (None, Some(h)) => format!("heap[{h}]"),
            (None, None) => String::new(),
        };
        let entry = if label.is_empty() {
            format!("[[expect]] #{}", i + 1)
        } else {
            format!("[[expect]] #{} ({label})", i + 1)
        };
        let err = |m: String| JobError::entry(&entry, m);
        let target: &BoundEntry = match (&x.reg, x.heap) {
            (Some(r), None) => {
                let reg = Register::parse(r, x.space)
                    .ok_or_else(|| err(format!("`reg` \"{r}\" is not a register (\"u0\")")))?;
                bound
                    .at_register(reg)
                    .ok_or_else(|| err(format!("`reg`: the job binds nothing at {reg}")))?
            }
            (None, Some(h)) => bound.heap.get(h as usize).ok_or_else(|| {
                err(format!(
                    "`heap` {h}: the job has {} [[heap]] entries",
                    bound.heap.len()
                ))
            })?,
            _ => {
                return Err(err(
                    "give exactly one of `reg` (with `space`) or `heap`".into()
                ));
            }
        };
        let values = expect::expected_values(x).map_err(&err)?;
        if x.tolerance != Tolerance::Exact && x.f32.is_none() {
            return Err(err("`tolerance` applies to `f32` values only".into()));
        }
        let target_name = match (&target.reg, x.heap) {
            (Some(r), _) => r.to_string(),
            (None, Some(h)) => format!("heap[{h}]"),
            _ => target.name.clone(),
        };
        if x.counter.is_some() {
            if target.counter.is_none() {
                return Err(err(format!(
                    "`counter`: {} has no counter (give it `counter = 0`)",
                    target.name
                )));
            }
            if x.offset != 0 {
                return Err(err(
                    "`offset` does not apply to a `counter` expectation".into()
                ));
            }
        } else if target.storage == Storage::None {
            return Err(err(format!(
                "{} has no contents to compare (a sampler or a null descriptor)",
                target.name
            )));
        }
        out.push(CheckedExpect {
            entry,
            target: if x.counter.is_some() {
                format!("{target_name} counter")
            } else {
                target_name
            },
            table: target.at.table,
            index: target.at.index,
            counter: x.counter,
            values,
            source: x.clone(),
        });
    }
    Ok(out)
}

impl Prepared {
    /// The reflection check's warnings.
    pub fn warnings(&self) -> &[String] {
        &self.fit.warnings
    }

    /// Where the summary will be written.
    pub fn summary_path(&self) -> &Path {
        &self.summary.1
    }

    /// Dispatches, writes outputs and the summary, checks expectations.
    pub fn execute(self, opts: &RunOptions<'_>) -> Result<RunResult, JobError> {
        let start = Instant::now();
        let report = dispatch(
            &self.program.shader,
            &self.fit.bindings,
            self.groups,
            &self.options,
            opts.progress,
        )?;
        let elapsed = start.elapsed().as_secs_f64();
        let outputs = write_entry_outputs(&self.gate, &self.bound, &self.memory)?;
        let expectations = self.check_expectations();
        let summary = Summary {
            job: self.job.path.display().to_string(),
            program: self.program.info.clone(),
            profile: report.profile.clone(),
            wave_size: report.wave_size,
            batch_lanes: report.batch_lanes,
            threads: report.threads,
            thread_layout: match report.layout {
                ThreadLayout::Quads => "quads".into(),
                ThreadLayout::Linear => "linear".into(),
            },
            thread_group: self.program.shader.thread_group,
            groups: self.groups,
            waves: report.waves,
            lane_instructions: report.lane_instructions,
            elapsed_seconds: elapsed,
            lane_instructions_per_second: if elapsed > 0.0 {
                report.lane_instructions as f64 / elapsed
            } else {
                0.0
            },
            engine: report.engine.to_string(),
            jit: report.jit.as_ref().map(JitSummary::from),
            outputs,
            expectations,
            warnings: self
                .fit
                .warnings
                .iter()
                .chain(&report.notes)
                .cloned()
                .collect(),
        };
        let json = serde_json::to_string_pretty(&summary).map_err(|e| JobError::Io {
            path: self.summary.1.clone(),
            message: e.to_string(),
        })?;
        write_file(
            &self.summary.0,
            &self.summary.1,
            format!("{json}\n").as_bytes(),
        )?;
        Ok(RunResult {
            summary,
            summary_path: self.summary.1,
            bound: self.bound,
        })
    }

    fn check_expectations(&self) -> ExpectSummary {
        let mut s = ExpectSummary::default();
        for x in &self.expects {
            let target = match x.table {
                bind::Table::Resource => self.bound.resources.get(x.index),
                bind::Table::Heap => self.bound.heap.get(x.index),
                bind::Table::SamplerHeap => self.bound.sampler_heap.get(x.index),
            };
            let (values, mismatches) = match (x.counter, target) {
                (Some(want), Some(t)) => {
                    let got = t.counter.as_ref().map_or(0, |c| c.get());
                    let m = (got != want).then(|| Mismatch {
                        element: 0,
                        offset: 0,
                        expected: want.to_string(),
                        got: got.to_string(),
                        ulp: None,
                    });
                    (1, m.into_iter().collect())
                }
                (None, Some(t)) => (
                    x.values.len(),
                    expect::compare_memory(&x.source, &x.values, t.memory()),
                ),
                (_, None) => (0, Vec::new()),
            };
            let passed = mismatches.is_empty();
            if passed {
                s.passed += 1;
            } else {
                s.failed += 1;
            }
            let mismatch_count = mismatches.len();
            s.results.push(ExpectResult {
                entry: x.entry.clone(),
                target: x.target.clone(),
                values,
                passed,
                mismatch_count,
                mismatches: mismatches
                    .into_iter()
                    .take(MAX_REPORTED_MISMATCHES)
                    .collect(),
            });
        }
        s
    }
}

/// Writes the outputs of a job's `[[resource]]` and `[[heap]]` entries through `gate`:
/// `output` (a buffer's or a texture's whole memory streamed as `.bin`, or mip 0 of a
/// texture as `.png`), a texture's `outputs = [{ file }]` and `counter_output`. What a
/// `.png` needs while it is made is counted against `memory` first.
pub(crate) fn write_entry_outputs(
    gate: &OutputGate,
    bound: &BoundJob,
    memory: &MemoryBudget,
) -> Result<Vec<OutputSummary>, JobError> {
    let mut outputs = Vec::new();
    for e in bound.all() {
        if let Some(path) = &e.output {
            let written = match (&e.storage, is_png(path)) {
                (Storage::Texture(t), true) => {
                    memory.transient(
                        &e.name,
                        super::image_io::png_work_bytes(t.desc(), 0),
                        "its PNG image while it is made",
                    )?;
                    let bytes = png::encode(t)
                        .map_err(|m| JobError::entry(&e.name, format!("`output`: {m}")))?;
                    write_output(gate, &e.name, path, &bytes)?
                }
                (Storage::Buffer(m), _) => stream_output(gate, &e.name, path, m)?,
                (Storage::Texture(t), _) => stream_output(gate, &e.name, path, t.memory())?,
                (Storage::None, _) => write_output(gate, &e.name, path, &[])?,
            };
            outputs.push(written);
        }
        if let Storage::Texture(t) = &e.storage {
            for o in &e.subresource_outputs {
                let work = if is_png(&o.path) {
                    super::image_io::png_work_bytes(t.desc(), o.mip)
                } else {
                    t.desc().subresource_bytes(o.mip)
                };
                memory.transient(&e.name, work, "a subresource output while it is made")?;
                let bytes = if is_png(&o.path) {
                    super::image_io::encode_png(t, o.mip, o.slice)
                } else {
                    super::image_io::subresource_bytes(t, o.mip, o.slice)
                }
                .map_err(|m| JobError::entry(&e.name, format!("`outputs`: {m}")))?;
                outputs.push(write_output(gate, &e.name, &o.path, &bytes)?);
            }
        }
        if let (Some(path), Some(c)) = (&e.counter_output, &e.counter) {
            outputs.push(write_output(gate, &e.name, path, &c.get().to_le_bytes())?);
        }
    }
    Ok(outputs)
}

/// Writes `bytes` to `path` through `gate` (see `job::paths`) and describes the file.
pub(crate) fn write_output(
    gate: &OutputGate,
    entry: &str,
    path: &Path,
    bytes: &[u8],
) -> Result<OutputSummary, JobError> {
    write_file(gate, path, bytes)?;
    let digest = md5::Md5::digest(bytes);
    Ok(OutputSummary {
        entry: entry.to_string(),
        path: path.display().to_string(),
        bytes: bytes.len() as u64,
        md5: digest.iter().map(|b| format!("{b:02x}")).collect(),
    })
}

/// Writes a memory's bytes to `path` through `gate` piece by piece (no copy of the
/// whole) and describes the file.
pub(crate) fn stream_output(
    gate: &OutputGate,
    entry: &str,
    path: &Path,
    memory: &crate::resources::Memory,
) -> Result<OutputSummary, JobError> {
    /// Passes bytes on to the file and to the digest.
    struct Tee<'a> {
        file: &'a mut dyn std::io::Write,
        md5: &'a mut md5::Md5,
    }
    impl std::io::Write for Tee<'_> {
        fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
            let n = self.file.write(b)?;
            self.md5.update(&b[..n]);
            Ok(n)
        }
        fn flush(&mut self) -> std::io::Result<()> {
            self.file.flush()
        }
    }
    let mut digest = md5::Md5::new();
    gate.write_with(path, &mut |w| {
        digest = md5::Md5::new();
        memory.write_to(&mut Tee {
            file: w,
            md5: &mut digest,
        })
    })
    .map_err(|message| JobError::Io {
        path: path.to_path_buf(),
        message: strip_path(path, message),
    })?;
    Ok(OutputSummary {
        entry: entry.to_string(),
        path: path.display().to_string(),
        bytes: memory.len(),
        md5: digest
            .finalize()
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect(),
    })
}

/// Writes `bytes` to `path` through `gate` (see `job::paths`).
pub(crate) fn write_file(gate: &OutputGate, path: &Path, bytes: &[u8]) -> Result<(), JobError> {
    gate.write(path, bytes).map_err(|message| JobError::Io {
        path: path.to_path_buf(),
        message: strip_path(path, message),
    })
}

/// A gate's message without the leading `path: ` (`JobError::Io` adds it).
fn strip_path(path: &Path, message: String) -> String {
    message
        .strip_prefix(&format!("{}: ", path.display()))
        .map(str::to_string)
        .unwrap_or(message)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn mismatch_lines_read_as_documented() {
        let m = Mismatch {
            element: 4,
            offset: 0x10,
            expected: "1.0 (0x3f800000)".into(),
            got: "1.0000001 (0x3f800001)".into(),
            ulp: Some(1),
        };
        assert_eq!(
            mismatch_line("u0", &m),
            "u0 +0x10 [4]: expected 1.0 (0x3f800000), got 1.0000001 (0x3f800001), 1 ulp"
        );
    }
}
