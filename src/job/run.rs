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

use md5::Digest;
use serde::Serialize;

use super::bind::{self, BoundJob, DEFAULT_MAX_RESOURCE_BYTES, Storage};
use super::expect::Mismatch;
use super::limits::MemoryBudget;
use super::paths::{OutputGate, OutputPolicy};
use super::prepare::{Finished, Prepared, check_expects};
use super::reflect;
use super::{Job, JobError, LoadError, png};
use crate::container::{Container, ProgramHeader, ProgramKind};
use crate::exec::jit::{Engine, JitReport};
use crate::exec::{ExecError, Limits, Profile};
use crate::ir::{Shader, Stage};
use crate::lower::{self, LoadOptions};
use crate::pipeline::dispatch::MAX_GROUPS_PER_DIMENSION;
use crate::pipeline::{DispatchWork, Plan, Work};

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
    /// The engine when neither `engine` nor `[options] engine` names one. The library
    /// reads no environment: the command line fills this from `DXLANE_ENGINE`.
    pub default_engine: Engine,
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
    /// The highest shader model dxlane runs, and what of it is refused (as `info`
    /// states them).
    pub dxlane_runs: crate::lower::dxil::Runs,
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

/// Reads, checks and runs the job at `path` (see the module doc).
/// A compute job; a draw job is an error naming the missing `[dispatch]`, as before it
/// is run (`prepare` and [`Prepared::execute`] run either kind).
pub fn run_job(path: &Path, opts: &RunOptions<'_>) -> Result<RunResult, JobError> {
    let job = Job::load(path)?;
    match prepare_dispatch(job, opts)?.execute(opts)? {
        Finished::Dispatch(r) => Ok(r),
        Finished::Draw(_) | Finished::List(_) | Finished::Rays(_) => Err(JobError::Section {
            section: "[dispatch]",
            message: "missing: a compute job needs `[dispatch] groups = [x, y, z]`".into(),
        }),
    }
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
pub(crate) fn read_program(path: &Path) -> Result<Vec<u8>, JobError> {
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

/// The plan of a run of `job` with `opts`: the profile (`--profile`, `[options] profile`,
/// else the newest), the limits ([`run_limits`]), the engine (`--engine`, `[options]
/// engine`, else `opts.default_engine`), worker threads and the wave size asked for.
/// Resolved once, for every kind of work.
pub(crate) fn resolve_plan(job: &Job, opts: &RunOptions<'_>) -> Result<Plan, JobError> {
    let o = &job.file.options;
    let profile = match opts.profile.as_deref().or(o.profile.as_deref()) {
        None => Profile::latest(),
        Some(n) => Profile::by_name(n).ok_or_else(|| {
            options_err(format!(
                "unknown profile \"{n}\" (known: {}, latest)",
                Profile::PRESETS.join(", ")
            ))
        })?,
    };
    let limits = run_limits(job, opts)?;
    let engine = match (opts.engine, &o.engine) {
        (Some(e), _) => e,
        (None, Some(name)) => name
            .parse()
            .map_err(|m: String| options_err(format!("`engine`: {m}")))?,
        (None, None) => opts.default_engine,
    };
    Ok(Plan {
        wave_size: opts.wave_size.or(o.wave_size),
        threads: opts.threads.or(o.threads).unwrap_or(0),
        profile,
        limits,
        engine,
    })
}

/// Checks everything that can be checked before a dispatch (see the module doc), binds
/// the job's resources and builds its work.
pub(crate) fn prepare_dispatch(job: Job, opts: &RunOptions<'_>) -> Result<Prepared, JobError> {
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
    let plan = resolve_plan(&job, opts)?;
    let resource_limit = o.max_memory.unwrap_or(DEFAULT_MAX_RESOURCE_BYTES);
    let program = load_program(&job)?;
    // Say where the value came from: the command line's flag wins over the job.
    let wave_err = |m: String| match opts.wave_size {
        Some(w) => JobError::Section {
            section: "--wave-size",
            message: format!("{w}: {m}"),
        },
        None => options_err(m),
    };
    plan.wave_size_of(&program.shader).map_err(|e| match e {
        ExecError::WaveSize { message, .. } if opts.wave_size.is_some() => wave_err(message),
        ExecError::WaveSize { size, message } => wave_err(format!("`wave_size` {size}: {message}")),
        e => wave_err(format!("`wave_size`: {e}")),
    })?;
    let mut bound = bind::bind_job(&job.file, &job.dir, resource_limit)?;
    let gate = output_gate(&job, opts);
    place_outputs(&mut bound, &gate)?;
    let memory = resource_memory(&bound, resource_limit)?;
    check_outputs(&bound)?;
    let expects = check_expects(&job, &bound, None)?;
    let fit = reflect::check(&program.shader, &bound)?;
    let summary = summary_place(&job, opts, &gate)?;
    let LoadedProgram { shader, info } = program;
    Ok(Prepared {
        work: Work::Dispatch(DispatchWork {
            shader,
            bindings: fit.bindings,
            groups,
        }),
        plan,
        programs: vec![info],
        bound,
        targets: Vec::new(),
        depth: None,
        so_buffers: Vec::new(),
        draw_queries: Vec::new(),
        warnings: fit.warnings,
        expects,
        gate,
        memory,
        summary,
        job,
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

/// Outputs of at least this many bytes have their digest made on a thread of its own
/// while the file is written (below it, starting the thread costs more than it saves).
const DIGEST_THREAD_BYTES: u64 = 1 << 20;

/// Writes a memory's bytes to `path` through `gate` piece by piece (no copy of the
/// whole) and describes the file. The MD5 digest reads the same bytes from the memory:
/// for a large output on a thread of its own, beside the writing (an 8 MB target's
/// digest took as long as writing it, and the two are independent).
pub(crate) fn stream_output(
    gate: &OutputGate,
    entry: &str,
    path: &Path,
    memory: &crate::resources::Memory,
) -> Result<OutputSummary, JobError> {
    let digest_of = || {
        let mut d = md5::Md5::new();
        // Writing into the digest (its `io::Write`) cannot fail.
        let _ = memory.write_to(&mut d);
        d.finalize()
    };
    let write = || {
        gate.write_with(path, &mut |w| memory.write_to(w))
            .map_err(|message| JobError::Io {
                path: path.to_path_buf(),
                message: strip_path(path, message),
            })
    };
    let digest = if memory.len() >= DIGEST_THREAD_BYTES {
        std::thread::scope(|s| {
            let d = s.spawn(digest_of);
            write()?;
            // The digest thread only reads memory and cannot panic but by a bug.
            Ok::<_, JobError>(d.join().unwrap_or_else(|_| digest_of()))
        })?
    } else {
        write()?;
        digest_of()
    };
    Ok(OutputSummary {
        entry: entry.to_string(),
        path: path.display().to_string(),
        bytes: memory.len(),
        md5: digest.iter().map(|b| format!("{b:02x}")).collect(),
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
