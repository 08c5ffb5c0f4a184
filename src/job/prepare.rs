//! A job made ready: its work value (`pipeline::Work`), its plan, its resources and
//! targets, its outputs and its checked expectations — built once, whatever the kind of
//! work, and run once ([`Prepared::execute`]) or as often as a caller needs
//! ([`Prepared::run`]: the debugger, `compare`).
//!
//! Owns: choosing the kind of work from the job's sections ([`prepare`]), the
//! expectations (`[[expect]]`: found, parsed and checked against their targets before
//! the run, compared after it) and the finished run ([`Finished`]). The per-kind
//! preparation is in `run` (a dispatch) and `draw_run` (a draw).

use std::path::{Path, PathBuf};
use std::time::Instant;

use serde::Serialize;

use super::bind::{self, BoundEntry, BoundJob, Register, Storage};
use super::draw::DrawSection;
use super::draw_run::{DrawResult, DrawSummary, draw_error};
use super::expect::{self, Expected, Mismatch};
use super::limits::MemoryBudget;
use super::paths::OutputGate;
use super::rays::{RaysResult, RaysSummary};
use super::run::{
    ExpectResult, ExpectSummary, JitSummary, MAX_REPORTED_MISMATCHES, OutputSummary, ProgramInfo,
    RunOptions, RunResult, Summary, stream_output, write_entry_outputs, write_file,
};
use super::schema::{ExpectEntry, Tolerance};
use super::targets::{self, BoundDepth, BoundTarget};
use super::{Job, JobError};
use crate::pipeline::{DrawError, DrawWork, Hooks, Plan, ThreadLayout, Work, WorkReport};
use crate::resources::Memory;

/// A job read, checked and bound, ready to run (see the module doc).
#[derive(Debug)]
pub struct Prepared {
    /// The job.
    pub job: Job,
    /// What runs: the programs, their bindings, the dispatch or the draw.
    pub work: Work,
    /// How it runs: wave size, workers, profile, limits, engine.
    pub plan: Plan,
    /// The programs' files: a dispatch's compute program; a draw's vertex program, then
    /// its pixel program.
    pub programs: Vec<ProgramInfo>,
    /// The job's `[[resource]]` and `[[heap]]` entries.
    pub bound: BoundJob,
    /// A draw's render targets.
    pub targets: Vec<BoundTarget>,
    /// A draw's depth-stencil buffer.
    pub depth: Option<BoundDepth>,
    /// A single draw's stream-output buffers (`[[draw.stream_output_buffer]]`).
    pub so_buffers: Vec<super::draw_run::BoundSoBuffer>,
    /// A single draw's queries (`[[draw.query]]`).
    pub draw_queries: Vec<super::draw_run::DrawQuery>,
    /// The reflection check's warnings.
    pub warnings: Vec<String>,
    pub(crate) expects: Vec<Checked>,
    /// The gate the outputs are written through.
    pub(crate) gate: OutputGate,
    /// The job's memory: its resources (and a draw's buffers and targets) taken.
    pub(crate) memory: MemoryBudget,
    /// The summary's path and its gate (a `--summary` file's is its own folder).
    pub(crate) summary: (OutputGate, PathBuf),
}

/// Reads nothing more: checks and binds `job` as a dispatch (`[dispatch]`) or a draw
/// (`[draw]`), building its work value once.
pub fn prepare(job: Job, opts: &RunOptions<'_>) -> Result<Prepared, JobError> {
    let p = &job.file.program;
    if job.file.rays.is_none() && (p.library.is_some() || p.libraries.is_some()) {
        return Err(JobError::Section {
            section: "[program]",
            message: "`library` and `libraries` are run by a `[rays]` section (DispatchRays), which this job has not".into(),
        });
    }
    if job.file.commands.is_empty() && !job.file.query_heaps.is_empty() {
        return Err(JobError::Section {
            section: "[[query_heap]]",
            message: "query heaps belong to a command list: queries are its commands".into(),
        });
    }
    if job.file.rays.is_some() {
        if !job.file.commands.is_empty() {
            return Err(JobError::Section {
                section: "[rays]",
                message:
                    "a command list runs its own commands; `[rays]` is a job of one DispatchRays"
                        .into(),
            });
        }
        return super::rays::prepare_rays(job, opts);
    }
    if !job.file.commands.is_empty() {
        return super::list::prepare_list(job, opts);
    }
    if let Some((i, e)) = job.file.resources.iter().enumerate().find(|(_, e)| {
        e.reg.is_none()
            && e.name
                .as_deref()
                .is_some_and(|n| !super::accel::reads_buffer(&job.file, n))
    }) {
        return Err(JobError::entry(
            bind::resource_entry_name(i, e),
            "missing `reg`: a resource without a register is bound by a [[command]] list's commands or read by an [[acceleration_structure]] geometry, and this job does neither with it",
        ));
    }
    let mut p = if job.file.draw.is_some() {
        super::draw_run::prepare_draw(job, opts)?
    } else {
        super::run::prepare_dispatch(job, opts)?
    };
    // A named buffer a geometry reads is used by its structure, not through a register:
    // the reflection check's "not used" would be wrong.
    let read: Vec<String> = p
        .job
        .file
        .resources
        .iter()
        .enumerate()
        .filter(|(_, e)| {
            e.reg.is_none()
                && e.name
                    .as_deref()
                    .is_some_and(|n| super::accel::reads_buffer(&p.job.file, n))
        })
        .map(|(i, e)| format!("{}: ", bind::resource_entry_name(i, e)))
        .collect();
    p.warnings
        .retain(|w| !read.iter().any(|r| w.starts_with(r.as_str())));
    Ok(p)
}

/// A finished run of either kind.
#[derive(Debug, Clone)]
// One value per run, moved once: boxing the dispatch's result saves nothing worth an allocation.
#[allow(clippy::large_enum_variant)]
pub enum Finished {
    /// A dispatch's result.
    Dispatch(RunResult),
    /// A draw's result.
    Draw(Box<DrawResult>),
    /// A command list's result.
    List(Box<ListResult>),
    /// A `[rays]` job's result.
    Rays(Box<RaysResult>),
}

/// What a command-list job did: the JSON summary's contents.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct ListSummary {
    /// The job file.
    pub job: String,
    /// The highest shader model dxlane runs, and what of it is refused (as `info`
    /// states them).
    pub dxlane_runs: crate::lower::dxil::Runs,
    /// The programs of the list's commands, in command order.
    pub programs: Vec<ProgramInfo>,
    /// The WARP profile.
    pub profile: String,
    /// The engine.
    pub engine: String,
    /// One line per command.
    pub commands: Vec<CommandSummary>,
    /// Lane-instructions of the whole list.
    pub lane_instructions: u64,
    /// Seconds the list took (wall clock).
    pub elapsed_seconds: f64,
    /// Output files written.
    pub outputs: Vec<OutputSummary>,
    /// Expectation results.
    pub expectations: ExpectSummary,
    /// Warnings of the reflection checks.
    pub warnings: Vec<String>,
}

/// What one command of a list did.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct CommandSummary {
    /// The command's number (`[[command]] #N`, the event number `debug --event` takes).
    pub event: usize,
    /// Its type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Dispatches and draws it ran (an `execute_indirect`: one per record run).
    pub runs: usize,
    /// Lane-instructions.
    pub lane_instructions: u64,
    /// Pixels its draws shaded.
    pub pixels_shaded: u64,
    /// Its draws' stream-output statistics per stream (`D3D12_QUERY_DATA_SO_STATISTICS`,
    /// summed over the draws). Absent without stream output.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream_output: Option<[crate::pipeline::so::SoStatistics; 4]>,
    /// A `resolve_query_data`'s values, one per query resolved.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub queries: Vec<crate::pipeline::query::ResolvedQuery>,
    /// The command was skipped by predication (`set_predication`).
    #[serde(skip_serializing_if = "std::ops::Not::not")]
    pub predicated_off: bool,
    /// Seconds (wall clock).
    pub seconds: f64,
}

/// A finished command-list job.
#[derive(Debug, Clone)]
pub struct ListResult {
    /// The summary (also written as JSON).
    pub summary: ListSummary,
    /// Where the summary was written.
    pub summary_path: PathBuf,
    /// The job's named resources after the list.
    pub bound: BoundJob,
}

impl Finished {
    /// 0 when every expectation holds, 1 when any fails.
    pub fn exit_code(&self) -> u8 {
        match self {
            Finished::Dispatch(r) => r.exit_code(),
            Finished::Draw(r) => r.exit_code(),
            Finished::List(r) => u8::from(r.summary.expectations.failed != 0),
            Finished::Rays(r) => u8::from(r.summary.expectations.failed != 0),
        }
    }
}

/// The writable contents of a prepared job (every bound buffer's and texture's bytes,
/// each storage once, and the UAV counters), taken to run its work again from the same
/// start: the provenance debugger and `compare`'s event attribution rerun lists.
#[derive(Debug)]
pub struct StorageSnapshot(
    Vec<(crate::resources::Memory, Vec<u8>)>,
    Vec<(crate::resources::Counter, u32)>,
);

impl StorageSnapshot {
    /// Puts every storage and counter back as it was when the snapshot was taken.
    pub fn restore(&self) {
        for (m, b) in &self.0 {
            m.write_bytes(0, b);
        }
        for (c, v) in &self.1 {
            c.set(*v);
        }
    }
}

impl Prepared {
    /// The job's writable contents now ([`StorageSnapshot`]).
    pub fn snapshot(&self) -> StorageSnapshot {
        let mut m: Vec<(crate::resources::Memory, Vec<u8>)> = Vec::new();
        let mut c = Vec::new();
        for e in self.bound.all() {
            if let Some(x) = e.memory()
                && !m.iter().any(|(y, _)| y == x)
            {
                m.push((x.clone(), x.to_bytes()));
            }
            if let Some(k) = &e.counter {
                c.push((k.clone(), k.get()));
            }
        }
        StorageSnapshot(m, c)
    }

    /// The reflection check's warnings.
    pub fn warnings(&self) -> &[String] {
        &self.warnings
    }

    /// Where the summary will be written.
    pub fn summary_path(&self) -> &Path {
        &self.summary.1
    }

    /// Whether the work is a draw.
    pub fn is_draw(&self) -> bool {
        matches!(self.work, Work::Draw(_))
    }

    /// The draw, when the work is one.
    pub fn draw_work(&self) -> Option<&DrawWork> {
        match &self.work {
            Work::Draw(d) => Some(d),
            Work::Dispatch(_) | Work::List(_) | Work::Rays(_) => None,
        }
    }

    /// Bytes of the job's resources and a draw's targets and depth buffer.
    pub fn storage_bytes(&self) -> u64 {
        let bound: u64 = self.bound.all().map(|e| e.storage_bytes()).sum();
        let targets: u64 = self
            .targets
            .iter()
            .map(|t| t.view.texture.memory().len())
            .chain(self.depth.iter().map(|d| d.view.texture.memory().len()))
            .sum();
        bound.saturating_add(targets)
    }

    /// Runs the work once under `plan` (the prepared plan when `None`), reporting to
    /// `hooks`, writing no files.
    pub fn run(&self, plan: Option<&Plan>, hooks: Hooks<'_>) -> Result<WorkReport, JobError> {
        self.work
            .run(plan.unwrap_or(&self.plan), hooks)
            .map_err(draw_error)
    }

    /// Runs, writes the outputs and the summary, checks the expectations.
    pub fn execute(self, opts: &RunOptions<'_>) -> Result<Finished, JobError> {
        let start = Instant::now();
        let report = self.run(
            None,
            Hooks {
                progress: opts.progress,
                ..Hooks::default()
            },
        )?;
        let elapsed = start.elapsed().as_secs_f64();
        let mut outputs = Vec::new();
        for t in &self.targets {
            for (path, resolved) in [(&t.output, false), (&t.resolve_output, true)] {
                if let Some(p) = path {
                    outputs.push(targets::write_target(
                        &self.gate,
                        &self.memory,
                        &t.name,
                        &t.view.texture,
                        p,
                        resolved,
                    )?);
                }
            }
        }
        if let Some(dd) = &self.depth
            && let Some(p) = &dd.output
        {
            outputs.push(stream_output(
                &self.gate,
                "[draw.depth_stencil]",
                p,
                dd.view.texture.memory(),
            )?);
        }
        for b in &self.so_buffers {
            if let Some(p) = &b.output {
                outputs.push(stream_output(&self.gate, &b.name, p, &b.memory)?);
            }
        }
        let mut query_values = Vec::with_capacity(self.draw_queries.len());
        if let WorkReport::Draw(r) = &report
            && !self.draw_queries.is_empty()
        {
            let data = super::draw_run::DrawQuery::data(r);
            for q in &self.draw_queries {
                if let Some(p) = &q.output {
                    let bytes = crate::resources::Memory::from_bytes(&data.resolved(q.kind))
                        .map_err(|m| JobError::entry(&q.name, m.to_string()))?;
                    outputs.push(stream_output(&self.gate, &q.name, p, &bytes)?);
                }
                query_values.push(super::draw_run::DrawQueryValue {
                    kind: q.kind.name(),
                    value: data.summary(q.kind),
                });
            }
        }
        outputs.extend(write_entry_outputs(&self.gate, &self.bound, &self.memory)?);
        let expectations = run_expects(
            &self.expects,
            &self.bound,
            &self.targets,
            self.depth.as_ref(),
            &self.so_buffers,
        );
        let job = self.job.path.display().to_string();
        let (json, finished) = match (report, &self.work) {
            (WorkReport::Dispatch(report), Work::Dispatch(d)) => {
                let summary = Summary {
                    job,
                    dxlane_runs: crate::lower::dxil::runs(),
                    program: self.programs.first().cloned().ok_or_else(no_program)?,
                    profile: report.profile.clone(),
                    wave_size: report.wave_size,
                    batch_lanes: report.batch_lanes,
                    threads: report.threads,
                    thread_layout: match report.layout {
                        ThreadLayout::Quads => "quads".into(),
                        ThreadLayout::Linear => "linear".into(),
                    },
                    thread_group: d.shader.thread_group,
                    groups: d.groups,
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
                    warnings: self.warnings.iter().chain(&report.notes).cloned().collect(),
                };
                let json = serde_json::to_string_pretty(&summary);
                (
                    json,
                    Finished::Dispatch(RunResult {
                        summary,
                        summary_path: self.summary.1.clone(),
                        bound: self.bound,
                    }),
                )
            }
            (WorkReport::Draw(report), work) => {
                // The files are in the work's order: vertex (or mesh), then pixel,
                // geometry, hull and domain, and amplification when the draw has them.
                let (has_ps, has_gs, has_tess, has_as) = match work {
                    Work::Draw(d) => (
                        d.ps.is_some(),
                        d.gs.is_some(),
                        d.hs.is_some(),
                        d.mesh.as_ref().is_some_and(|m| m.amplification.is_some()),
                    ),
                    _ => (false, false, false, false),
                };
                let mut programs = self.programs.into_iter();
                let summary = DrawSummary {
                    job,
                    dxlane_runs: crate::lower::dxil::runs(),
                    vs: programs.next().ok_or_else(no_program)?,
                    ps: if has_ps { programs.next() } else { None },
                    gs: if has_gs { programs.next() } else { None },
                    hs: if has_tess { programs.next() } else { None },
                    ds: if has_tess { programs.next() } else { None },
                    amplification: if has_as { programs.next() } else { None },
                    draw: *report,
                    elapsed_seconds: elapsed,
                    outputs,
                    expectations,
                    warnings: self.warnings,
                    queries: query_values,
                };
                let json = serde_json::to_string_pretty(&summary);
                (
                    json,
                    Finished::Draw(Box::new(DrawResult {
                        summary,
                        summary_path: self.summary.1.clone(),
                        targets: self.targets,
                        depth: self.depth,
                        bound: self.bound,
                    })),
                )
            }
            (WorkReport::List(report), _) => {
                let commands: Vec<CommandSummary> = report
                    .commands
                    .iter()
                    .enumerate()
                    .map(|(i, c)| CommandSummary {
                        event: i + 1,
                        kind: c.command.to_string(),
                        runs: c.runs.len(),
                        lane_instructions: c.lane_instructions(),
                        pixels_shaded: c.pixels_shaded(),
                        stream_output: c.stream_output(),
                        queries: c.queries.clone(),
                        predicated_off: c.skipped,
                        seconds: c.seconds,
                    })
                    .collect();
                let summary = ListSummary {
                    job,
                    dxlane_runs: crate::lower::dxil::runs(),
                    programs: self.programs,
                    profile: self.plan.profile.name.clone(),
                    engine: self.plan.engine.to_string(),
                    lane_instructions: commands.iter().map(|c| c.lane_instructions).sum(),
                    commands,
                    elapsed_seconds: elapsed,
                    outputs,
                    expectations,
                    warnings: self.warnings,
                };
                let json = serde_json::to_string_pretty(&summary);
                (
                    json,
                    Finished::List(Box::new(ListResult {
                        summary,
                        summary_path: self.summary.1.clone(),
                        bound: self.bound,
                    })),
                )
            }
            (WorkReport::Rays(report), work) => {
                let dims = match work {
                    Work::Rays(w) => w.dims,
                    _ => [0; 3],
                };
                let shader_identifiers =
                    super::rays::identifiers(&self.programs, self.job.file.rays.as_ref());
                let summary = RaysSummary {
                    shader_identifiers,
                    job,
                    dxlane_runs: crate::lower::dxil::runs(),
                    programs: self.programs,
                    profile: report.profile.clone(),
                    engine: report.engine.to_string(),
                    wave_size: report.wave_size,
                    threads: report.rays.threads,
                    dispatch: dims,
                    lanes: report.rays.lanes,
                    rays: report.rays.rays,
                    traversal: report.rays.traversal,
                    lane_instructions: report.rays.lane_instructions,
                    elapsed_seconds: elapsed,
                    outputs,
                    expectations,
                    warnings: self.warnings,
                };
                let json = serde_json::to_string_pretty(&summary);
                (
                    json,
                    Finished::Rays(Box::new(RaysResult {
                        summary,
                        summary_path: self.summary.1.clone(),
                        bound: self.bound,
                    })),
                )
            }
            (WorkReport::Dispatch(_), _) => {
                return Err(draw_error(DrawError::Exec(
                    crate::exec::ExecError::Dispatch("a draw reported as a dispatch".into()),
                )));
            }
        };
        let json = json.map_err(|e| JobError::Io {
            path: self.summary.1.clone(),
            message: e.to_string(),
        })?;
        write_file(
            &self.summary.0,
            &self.summary.1,
            format!("{json}\n").as_bytes(),
        )?;
        Ok(finished)
    }
}

fn no_program() -> JobError {
    JobError::Section {
        section: "[program]",
        message: "no program was loaded".into(),
    }
}

/// Where an expectation looks.
#[derive(Debug)]
pub(crate) enum ExpectTarget {
    /// A bound entry's memory.
    Entry { table: bind::Table, index: usize },
    /// A bound entry's counter, expected to hold the value.
    Counter {
        table: bind::Table,
        index: usize,
        want: u32,
    },
    /// A draw's render target.
    Color(usize),
    /// A draw's depth-stencil buffer.
    Depth,
    /// A single draw's stream-output buffer (`[[draw.stream_output_buffer]]` entry).
    SoBuffer(usize),
    /// A single draw's stream-output filled size, expected to hold the value.
    SoFilled { index: usize, want: u32 },
}

/// An `[[expect]]` whose target exists and whose values parse.
#[derive(Debug)]
pub(crate) struct Checked {
    entry: String,
    target_name: String,
    target: ExpectTarget,
    values: Vec<Expected>,
    source: ExpectEntry,
}

/// Finds every expectation's target and parses its values. A dispatch's expectations
/// name a register (`reg`, `space`) or a heap slot (`heap`), or a counter; a draw's name
/// a register, a heap slot, a render target (`render_target = N`) or the depth buffer
/// (`depth_stencil = true`).
pub(crate) fn check_expects(
    job: &Job,
    bound: &BoundJob,
    draw: Option<&DrawSection>,
) -> Result<Vec<Checked>, JobError> {
    let mut out = Vec::new();
    for (i, x) in job.file.expects.iter().enumerate() {
        if x.stream_output_buffer.is_some() && (draw.is_none() || x.resource.is_some()) {
            return Err(JobError::entry(
                format!("[[expect]] #{}", i + 1),
                "`stream_output_buffer` names a single draw's [[draw.stream_output_buffer]] (a list's buffers are `resource`s)",
            ));
        }
        out.push(match (&x.resource, draw) {
            (Some(name), _) => check_named_expect(i, x, name, job, bound)?,
            (None, None) => check_dispatch_expect(i, x, bound)?,
            (None, Some(d)) => check_draw_expect(i, x, bound, d)?,
        });
    }
    Ok(out)
}

/// An expectation naming a resource (`resource = "name"`): its contents, or its counter.
fn check_named_expect(
    i: usize,
    x: &ExpectEntry,
    name: &str,
    job: &Job,
    bound: &BoundJob,
) -> Result<Checked, JobError> {
    let entry = format!("[[expect]] #{} (\"{name}\")", i + 1);
    let err = |m: String| JobError::entry(&entry, m);
    if x.reg.is_some() || x.heap.is_some() || x.render_target.is_some() || x.depth_stencil.is_some()
    {
        return Err(err(
            "give one of `resource`, `reg`, `heap`, `render_target` or `depth_stencil`".into(),
        ));
    }
    let index = job
        .file
        .resources
        .iter()
        .position(|e| e.name.as_deref() == Some(name))
        .ok_or_else(|| err(format!("`resource`: no [[resource]] is named \"{name}\"")))?;
    let target = bound
        .resources
        .get(index)
        .ok_or_else(|| err(format!("`resource`: \"{name}\" is not bound")))?;
    let values = expect::expected_values(x).map_err(&err)?;
    if x.tolerance != Tolerance::Exact && x.f32.is_none() {
        return Err(err("`tolerance` applies to `f32` values only".into()));
    }
    let table = bind::Table::Resource;
    let (target_name, target) = match x.counter {
        Some(want) => {
            if target.counter.is_none() {
                return Err(err(format!(
                    "`counter`: \"{name}\" has no counter (give it `counter = 0`)"
                )));
            }
            (
                format!("\"{name}\" counter"),
                ExpectTarget::Counter { table, index, want },
            )
        }
        None => {
            if target.storage == Storage::None {
                return Err(err(format!(
                    "\"{name}\" has no contents to compare (a sampler or a null descriptor)"
                )));
            }
            (format!("\"{name}\""), ExpectTarget::Entry { table, index })
        }
    };
    Ok(Checked {
        entry,
        target_name,
        target,
        values,
        source: x.clone(),
    })
}

fn check_dispatch_expect(i: usize, x: &ExpectEntry, bound: &BoundJob) -> Result<Checked, JobError> {
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
            let i = bound
                .register_index(reg)
                .map_err(|m| err(format!("`reg`: {m}")))?;
            &bound.resources[i]
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
    let (table, index) = (target.at.table, target.at.index);
    let (target_name, target) = match x.counter {
        Some(want) => {
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
            (
                format!("{target_name} counter"),
                ExpectTarget::Counter { table, index, want },
            )
        }
        None => {
            if target.storage == Storage::None {
                return Err(err(format!(
                    "{} has no contents to compare (a sampler or a null descriptor)",
                    target.name
                )));
            }
            (target_name, ExpectTarget::Entry { table, index })
        }
    };
    Ok(Checked {
        entry,
        target_name,
        target,
        values,
        source: x.clone(),
    })
}

fn check_draw_expect(
    i: usize,
    x: &ExpectEntry,
    bound: &BoundJob,
    dsec: &DrawSection,
) -> Result<Checked, JobError> {
    let entry = format!("[[expect]] #{}", i + 1);
    let err = |m: String| JobError::entry(&entry, m);
    if let Some(b) = x.stream_output_buffer {
        return check_so_expect(entry, x, b, dsec);
    }
    let (target, target_name) = match (&x.reg, x.render_target, x.depth_stencil, x.heap) {
        (Some(r), None, None, None) => {
            let reg = Register::parse(r, x.space)
                .ok_or_else(|| err(format!("`reg` \"{r}\" is not a register")))?;
            let index = bound
                .register_index(reg)
                .map_err(|m| err(format!("`reg`: {m}")))?;
            (
                ExpectTarget::Entry {
                    table: bind::Table::Resource,
                    index,
                },
                reg.to_string(),
            )
        }
        (None, Some(t), None, None) => {
            if t as usize >= dsec.render_target.len() {
                return Err(err(format!(
                    "`render_target` {t}: the draw has {} render targets",
                    dsec.render_target.len()
                )));
            }
            (
                ExpectTarget::Color(t as usize),
                format!("render target {t}"),
            )
        }
        (None, None, Some(true), None) => {
            if dsec.depth_stencil.is_none() {
                return Err(err(
                    "`depth_stencil`: the draw has no [draw.depth_stencil]".into()
                ));
            }
            (ExpectTarget::Depth, "depth-stencil".into())
        }
        // A `[[heap]]` slot: what any stage wrote through `ResourceDescriptorHeap`.
        (None, None, None, Some(h)) => {
            let e = bound.heap.get(h as usize).ok_or_else(|| {
                err(format!(
                    "`heap` {h}: the job has {} [[heap]] entries",
                    bound.heap.len()
                ))
            })?;
            if e.storage == Storage::None {
                return Err(err(format!(
                    "{} has no contents to compare (a sampler or a null descriptor)",
                    e.name
                )));
            }
            (
                ExpectTarget::Entry {
                    table: bind::Table::Heap,
                    index: h as usize,
                },
                e.name.clone(),
            )
        }
        _ => {
            return Err(err(
                "give exactly one of `reg`, `heap`, `render_target` or `depth_stencil = true`"
                    .into(),
            ));
        }
    };
    if x.counter.is_some() {
        return Err(err("`counter` expectations are for compute jobs".into()));
    }
    let values = expect::expected_values(x).map_err(&err)?;
    Ok(Checked {
        entry,
        target_name,
        target,
        values,
        source: x.clone(),
    })
}

/// An expectation of a single draw's stream-output buffer (`stream_output_buffer = N`,
/// the entry `[[draw.stream_output_buffer]]` #N+1): its bytes from the buffer's start,
/// or with `counter` its filled size after the draw.
fn check_so_expect(
    entry: String,
    x: &ExpectEntry,
    b: u32,
    dsec: &DrawSection,
) -> Result<Checked, JobError> {
    let err = |m: String| JobError::entry(&entry, m);
    if x.reg.is_some() || x.heap.is_some() || x.render_target.is_some() || x.depth_stencil.is_some()
    {
        return Err(err(
            "give one of `stream_output_buffer`, `reg`, `render_target` or `depth_stencil`".into(),
        ));
    }
    let index = b as usize;
    if index >= dsec.stream_output_buffer.len() {
        return Err(err(format!(
            "`stream_output_buffer` {b}: the draw has {} [[draw.stream_output_buffer]] entries",
            dsec.stream_output_buffer.len()
        )));
    }
    let (target, target_name, values) = match x.counter {
        Some(want) => {
            if x.offset != 0
                || x.u32.is_some()
                || x.i32.is_some()
                || x.f32.is_some()
                || x.hex.is_some()
            {
                return Err(err(
                    "`counter` (the filled size) takes no `offset` or values".into(),
                ));
            }
            (
                ExpectTarget::SoFilled { index, want },
                format!("stream-output buffer {b} filled size"),
                Vec::new(),
            )
        }
        None => (
            ExpectTarget::SoBuffer(index),
            format!("stream-output buffer {b}"),
            expect::expected_values(x).map_err(&err)?,
        ),
    };
    Ok(Checked {
        entry,
        target_name,
        target,
        values,
        source: x.clone(),
    })
}

/// Compares every expectation with what the run left, reading in place (no copy of a
/// target to check a few of its bytes).
fn run_expects(
    xs: &[Checked],
    bound: &BoundJob,
    rts: &[BoundTarget],
    depth: Option<&BoundDepth>,
    so: &[super::draw_run::BoundSoBuffer],
) -> ExpectSummary {
    let entry = |table: bind::Table, index: usize| match table {
        bind::Table::Resource => bound.resources.get(index),
        bind::Table::Heap => bound.heap.get(index),
        bind::Table::SamplerHeap => bound.sampler_heap.get(index),
    };
    let memory_of =
        |m: Option<&Memory>, x: &Checked| expect::compare_memory(&x.source, &x.values, m);
    let mut s = ExpectSummary::default();
    for x in xs {
        let (values, mismatches): (usize, Vec<Mismatch>) = match x.target {
            ExpectTarget::Counter { table, index, want } => match entry(table, index) {
                Some(t) => {
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
                None => (0, Vec::new()),
            },
            ExpectTarget::Entry { table, index } => match entry(table, index) {
                Some(t) => (x.values.len(), memory_of(t.memory(), x)),
                None => (0, Vec::new()),
            },
            ExpectTarget::Color(i) => (
                x.values.len(),
                memory_of(rts.get(i).map(|t| t.view.texture.memory()), x),
            ),
            ExpectTarget::Depth => (
                x.values.len(),
                memory_of(depth.map(|d| d.view.texture.memory()), x),
            ),
            ExpectTarget::SoBuffer(i) => {
                (x.values.len(), memory_of(so.get(i).map(|b| &b.memory), x))
            }
            ExpectTarget::SoFilled { index, want } => {
                let got = so
                    .get(index)
                    .and_then(|b| b.filled_size.load_u32(0))
                    .unwrap_or(0);
                let m = (got != want).then(|| Mismatch {
                    element: 0,
                    offset: 0,
                    expected: want.to_string(),
                    got: got.to_string(),
                    ulp: None,
                });
                (1, m.into_iter().collect())
            }
        };
        let passed = mismatches.is_empty();
        if passed {
            s.passed += 1;
        } else {
            s.failed += 1;
        }
        s.results.push(ExpectResult {
            entry: x.entry.clone(),
            target: x.target_name.clone(),
            values,
            passed,
            mismatch_count: mismatches.len(),
            mismatches: mismatches
                .into_iter()
                .take(MAX_REPORTED_MISMATCHES)
                .collect(),
        });
    }
    s
}
