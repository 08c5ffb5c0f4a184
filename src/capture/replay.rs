//! Running a job against a capture: the comparison end to end.
//!
//! Owns: [`compare_job`] — load the capture and the job, check that they belong
//! together, choose the profile, read every captured file through its layout, run the
//! job (without writing any of its outputs), compare, run again with write tracking to
//! name the lanes behind the mismatches, draw diff images, explain, and build the
//! [`Report`]. Does not own: any single step's rules (the sibling modules).
//!
//! # Rules
//!
//! - The capture's `job` must be the job file's name (`--any-job` lifts this), and its
//!   `program_md5`, when given, the MD5 of the program the job runs.
//! - The profile: `--profile`, else the capture's `[device] profile`, else the preset
//!   its `[device] warp` version names, else the job's `[options] profile`, else the
//!   newest WARP known. The report says which and why.
//! - Tolerance of an entry: `--tolerance NAME=T` for it, else `--tolerance T`, else the
//!   entry's `tolerance`, else `exact`; NaNs: `--nan`, else the entry's `nan`, else
//!   `exact`.
//! - Elements of a texture are its texels (the capture's `format` may name another
//!   format of the same size to read them as). A buffer's are 4-byte words (`R32_UINT`)
//!   unless its `format` says otherwise, or its typed view's format.
//! - A job's work (`job::prepare`: a dispatch or a draw) runs through
//!   `Prepared::run`, writing none of its outputs. For a draw, `render_target = N` entries
//!   compare `[[draw.render_target]]` #N+1 (every sample plane, or with `resolved` the
//!   resolve `pipeline::om::resolve` makes), `depth` the depth-stencil buffer, `reg`
//!   entries its `[[resource]]` entries. The write-tracking draw runs with a
//!   `pipeline::MergeObserver` ([`super::writers::PixelWriters`]) and names the pixel
//!   lane (primitive, pixel, sample) that last wrote each differing texel; the debug
//!   command names `--sample` only when the pixel program ran per sample.
//!   For a draw with geometry or tessellation stages the same draw also names, per
//!   pixel lane, the lane one stage up that made its primitive's leading vertex (and a
//!   domain lane's hull patch): `super::writers::origin_links`.
//! - A ray dispatch's write-tracking run names the ray (`DispatchRaysIndex()`) whose
//!   lanes last wrote each differing word, and the nested program when one of the
//!   programs its `TraceRay` or `CallShader` ran wrote it
//!   ([`super::writers::RayWriterMap`]); the debug command is `--ray x,y,z`.
//! - A command list (`super::list`): each mismatch is named by the last event that wrote
//!   or changed its word, and the lane in it; `--event N` compares after command N
//!   whatever the capture's `event` says.
//! - The `dxlane debug` command of each mismatch runs what the comparison ran: it adds
//!   `--profile` when the comparison's profile is not the job's own, and `--wave-size`
//!   when the command line set one.
//! - Nothing is written into the capture folder: diff images go to `--images DIR`, by
//!   default `out/compare/<capture folder name>/` beside the job, and a folder inside the
//!   capture folder is refused.

use std::path::{Path, PathBuf};

use md5::Digest;

use super::compare::{Bitset, ResourceDiff, Subject, compare};
use super::element::{Naming, NanRule, components, element_bytes, tolerance_words};
use super::layout::{Layout, Shape};
use super::manifest::{Capture, CaptureEntry};
use super::report::{ProfileChoice, Report, ResourceReport};
use super::writers::{
    ChainRuns, DrawLane, DrawWriters, PixelWriterReport, PixelWriters, RayWriterMap, Writers,
    bindings_of, draw_bindings, draw_writer_report, mesh_origin_links, origin_links, several_views,
};
use super::{CaptureError, diff_image, explain};
use crate::exec::Profile;
use crate::ir::Shader;
use crate::job::limits::MemoryBudget;
use crate::job::paths::{OutputGate, OutputPolicy};
use crate::job::writers::lane_sample;
use crate::job::{BufferRead, ResourceAt, ResourceData};
use crate::job::{Job, RunOptions, paths};
use crate::job::{Prepared, prepare};
use crate::pipeline::{Hooks, MergeTarget, Work, WorkReport, om};
use crate::resources::Format;
use crate::resources::format::Tolerance;

/// Mismatches listed per resource unless `--mismatches` says otherwise.
pub const DEFAULT_MISMATCHES: usize = 10;

/// The most mismatches listed per resource.
pub const MAX_MISMATCHES: usize = 10_000;

/// How to compare (the command line's flags).
#[derive(Debug, Clone, Default)]
pub struct CompareOptions {
    /// Worker threads (0 = all cores).
    pub threads: Option<usize>,
    /// Lanes per wave.
    pub wave_size: Option<u32>,
    /// `--profile`.
    pub profile: Option<String>,
    /// `--tolerance T`: every entry's tolerance.
    pub tolerance: Option<Tolerance>,
    /// `--tolerance NAME=T`: one entry's (by its target: `u0`, `heap[2]`, `rt0`).
    pub tolerances: Vec<(String, Tolerance)>,
    /// `--nan`.
    pub nan: Option<NanRule>,
    /// Mismatches listed per resource (`None`: [`DEFAULT_MISMATCHES`]).
    pub mismatches: Option<usize>,
    /// Where diff images go (`None`: the default folder).
    pub images: Option<PathBuf>,
    /// Write no diff images.
    pub no_images: bool,
    /// Do not rerun under other profiles and rules.
    pub no_explain: bool,
    /// Compare even when the capture names another job.
    pub any_job: bool,
    /// `--event N`: compare a command list's resources as its first N commands left
    /// them (the capture's own `event` otherwise; the command line wins).
    pub event: Option<usize>,
    /// The engine when neither the job nor `--engine` names one (the command line's
    /// choice from the environment).
    pub default_engine: crate::exec::jit::Engine,
}

/// One captured resource, read and matched with the job.
struct Captured {
    entry: CaptureEntry,
    shape: Shape,
    layout: Layout,
    formats: Vec<Format>,
    components: Vec<super::element::Component>,
    element_bytes: u32,
    tolerance: Tolerance,
    nan: NanRule,
    bytes: Vec<u8>,
    kind_words: String,
}

/// What a capture entry is compared with: a target and whether it is resolved.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Want {
    target: ResourceAt,
    resolved: bool,
}

/// A resource of the prepared job, as a capture entry sees it.
struct Found {
    shape: Shape,
    kind: String,
    storage_bytes: u64,
}

impl Captured {
    fn subject(&self) -> Subject<'_> {
        Subject {
            layout: &self.layout,
            shape: &self.shape,
            components: &self.components,
            element_bytes: self.element_bytes,
            tolerance: self.tolerance,
            nan: self.nan,
        }
    }
}

/// Compares the job at `job_path` with the capture in `capture_dir` (see the module doc).
pub fn compare_job(
    job_path: &Path,
    capture_dir: &Path,
    opts: &CompareOptions,
) -> Result<Report, CaptureError> {
    let mut capture = Capture::load(capture_dir)?;
    let mut job = Job::load(job_path)?;
    let event_note = after_event(&mut capture, &mut job, opts.event)?;
    let job_name = job_path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    if !opts.any_job && capture.job != job_name {
        return Err(CaptureError::OtherJob(format!(
            "{}: the capture belongs to job `{}`, not `{job_name}` (pass --any-job to compare anyway)",
            capture.dir.join(super::manifest::MANIFEST).display(),
            capture.job
        )));
    }
    let choice = choose_profile(&capture, &job, opts)?;
    let runner = Runner {
        job,
        threads: opts.threads,
        wave_size: opts.wave_size,
        profile_name: choice.name.clone(),
        default_engine: opts.default_engine,
    };
    let prepared = runner.prepare(None)?;
    let mut notes: Vec<String> = prepared
        .warnings()
        .iter()
        .map(|w| format!("the job: {w}"))
        .collect();
    notes.extend(event_note);
    if let Some(want) = &capture.program_md5 {
        let path = prepared.program_path();
        let got = md5_of_file(&path)?;
        if &got != want {
            return Err(CaptureError::OtherJob(format!(
                "{}: the capture was recorded with a program whose MD5 is {want}; {} has {got}",
                capture.dir.join(super::manifest::MANIFEST).display(),
                path.display()
            )));
        }
    }
    let memory_limit = runner
        .job
        .file
        .options
        .max_memory
        .unwrap_or(crate::job::bind::DEFAULT_MAX_RESOURCE_BYTES);
    // Everything the comparison holds counts against the job's `max_memory`: the job's
    // resources, each captured file while it is unpacked, the unpacked bytes, and the
    // results of a run and of a rerun.
    let mut held = MemoryBudget::new(memory_limit);
    held.take("the job's resources and targets", prepared.storage_bytes())?;
    let mut captured = Vec::new();
    for e in &capture.entries {
        captured.push(read_entry(&capture.dir, e, &prepared, opts, &mut held)?);
    }
    let results: u64 = captured.iter().map(|c| c.bytes.len() as u64).sum();
    held.transient(
        "the comparison",
        results.saturating_mul(2),
        "the job's results of a run and of a rerun, beside the captured bytes",
    )?;
    let wants: Vec<Want> = captured
        .iter()
        .map(|c| Want {
            target: c.entry.target,
            resolved: c.entry.resolved,
        })
        .collect();
    let shader = prepared.explain_shader();
    let base_profile = prepared.profile();
    let is_draw = prepared.is_draw();
    let is_list = matches!(prepared.0.work, Work::List(_));
    let is_rays = matches!(prepared.0.work, Work::Rays(_));
    let (actual, _) = runner.run(prepared, &wants, Tracking::None)?;

    let keep = opts
        .mismatches
        .unwrap_or(DEFAULT_MISMATCHES)
        .min(MAX_MISMATCHES);
    let mut diffs: Vec<ResourceDiff> = captured
        .iter()
        .zip(&actual)
        .map(|(c, a)| compare(&c.subject(), &c.bytes, a, keep))
        .collect();
    let any_differ = diffs.iter().any(|d| d.differing_components > 0);

    let mut untracked = vec![false; captured.len()];
    if any_differ && is_list {
        // A list's writes are made by many commands: the list runs again command by
        // command, naming the event and the lane behind each listed mismatch.
        let job_words = job_path.display().to_string();
        let same_run = same_run_flags(&runner, &choice, opts);
        let fresh = runner.prepare(None)?;
        let targets: Vec<ResourceAt> = wants.iter().map(|w| w.target).collect();
        notes.extend(super::list::attribute(
            &fresh.0, &targets, &mut diffs, &job_words, &same_run,
        )?);
    } else if any_differ {
        // Who wrote what: a second run with the write sink on (the first ran at full
        // speed; most comparisons match and never need this one).
        let job_words = job_path.display().to_string();
        let same_run = same_run_flags(&runner, &choice, opts);
        let with_flags = |mut w: super::writers::WriterReport| {
            w.debug.push_str(&same_run);
            for link in &mut w.origin {
                link.debug.push_str(&same_run);
            }
            w
        };
        if is_draw {
            // Watch only the samples of the texels the report lists (every sample of a
            // resolved one: D3D12 has at most 32).
            let mut watch = Vec::new();
            for (w, d) in wants.iter().zip(&diffs) {
                let target = match w.target {
                    ResourceAt::RenderTarget(t) => MergeTarget::Color(t),
                    ResourceAt::DepthStencil => MergeTarget::DepthStencil,
                    _ => continue,
                };
                for m in &d.mismatches {
                    if let super::compare::Location::Texel { x, y, sample, .. } = m.location {
                        if w.resolved {
                            watch.extend((0..32).map(|s| (target, x, y, s)));
                        } else {
                            watch.push((target, x, y, sample));
                        }
                    }
                }
            }
            // Also the lane one stage up behind each pixel lane, for draws with
            // geometry or tessellation stages (`origin_links`).
            let pixels = PixelWriters::with_origins(watch);
            // And the listed words of its UAVs, among every stage's lanes.
            let fresh = runner.prepare(None)?;
            let (uavs, views) = match &fresh.0.work {
                Work::Draw(d) => (
                    DrawWriters::new(
                        wants
                            .iter()
                            .zip(&diffs)
                            .map(|(w, df)| {
                                (
                                    draw_bindings(d, &w.target),
                                    df.mismatches.iter().map(|m| m.address).collect(),
                                )
                            })
                            .collect(),
                    ),
                    several_views(d),
                ),
                _ => (DrawWriters::new(Vec::new()), false),
            };
            let (tracked, per_sample) =
                runner.run(fresh, &wants, Tracking::Draw(&pixels, &uavs))?;
            let mut ranks = Vec::new();
            // The draw's programs, which name a UAV writer's stage and source.
            let shape = runner.prepare(None)?;
            // The lane chains behind pixel lanes run the draw again per lane, from the
            // job's start.
            let shape_start = shape.0.snapshot();
            let mut chains = ChainRuns::default();
            if tracked != actual {
                notes.push(
                    "the write-tracking draw gave other results than the first draw (the pixel program's UAV writes depend on the order tiles ran in); lanes are named from the tracking draw".into(),
                );
            }
            for (i, d) in diffs.iter_mut().enumerate() {
                let target = match wants[i].target {
                    ResourceAt::RenderTarget(t) => MergeTarget::Color(t),
                    ResourceAt::DepthStencil => MergeTarget::DepthStencil,
                    _ => {
                        // A UAV: the lane of whichever stage wrote the word last.
                        let Work::Draw(dw) = &shape.0.work else {
                            untracked[i] = d.differing_components > 0;
                            continue;
                        };
                        for (j, m) in d.mismatches.iter_mut().enumerate() {
                            let Some(w) = uavs.writer(i, m.address) else {
                                continue;
                            };
                            let mut r = draw_writer_report(&w, dw, per_sample, &job_words);
                            if let DrawLane::Pixel {
                                lane: Some(lane), ..
                            } = w.lane
                                && lane.prim > 0
                            {
                                ranks.push((i, j, lane, lane_sample(&lane)));
                            }
                            if views {
                                r = r.in_view(w.view);
                            }
                            m.writer = Some(r);
                        }
                        continue;
                    }
                };
                for (j, m) in d.mismatches.iter_mut().enumerate() {
                    if let super::compare::Location::Texel { x, y, sample, .. } = m.location {
                        let sample = (!wants[i].resolved).then_some(sample);
                        m.writer = pixels.writer(target, x, y, sample, per_sample, &job_words);
                        // The lane of a later primitive is named as `--prim k` names it
                        // (its rank among the primitives covering the sample): the
                        // lookup `dxlane debug --texel` makes too.
                        let at = match sample {
                            Some(s) => pixels.last_setup((target, x, y, s)).map(|l| (l.0, s)),
                            None => (0..32).find_map(|s| {
                                pixels.last_setup((target, x, y, s)).map(|l| (l.0, s))
                            }),
                        };
                        if let (Some((lane, _)), Some(w)) = (at, &mut m.writer) {
                            if let Some(sel) = pixels.origin(lane.prim) {
                                let chain =
                                    chains.chain(sel, &shape.0.work, &shape.0.plan, &shape_start);
                                w.origin = origin_links(&chain, &job_words);
                            } else if let Some(o) = pixels.mesh_origin(lane.prim) {
                                // The mesh lanes: found by running the mesh group again,
                                // from the job's starting contents.
                                let fresh = runner.prepare(None)?;
                                w.origin =
                                    mesh_origin_links(&fresh.0.work, &fresh.0.plan, &o, &job_words);
                            }
                        }
                        if views && let (Some(w), Some((_, s))) = (&mut m.writer, at) {
                            let view = pixels.last_view((target, x, y, s)).unwrap_or(0);
                            *w = w.clone().in_view(view);
                        }
                        // A lane of the first set-up primitive is the first covering
                        // the sample: rank 0, which `--pixel` gives without `--prim`.
                        if let Some((lane, s)) = at
                            && lane.prim > 0
                        {
                            ranks.push((i, j, lane, s));
                        }
                    }
                }
            }
            if !ranks.is_empty() {
                let lanes: Vec<_> = ranks.iter().map(|r| (r.2, r.3)).collect();
                let fresh = runner.prepare(None)?;
                let selects = fresh
                    .0
                    .work
                    .pixel_selects(&fresh.0.plan, &lanes)
                    .unwrap_or_default();
                for ((i, j, _, _), sel) in ranks.iter().zip(selects) {
                    if let Ok(crate::pipeline::LaneSelect::Pixel { prim, .. }) = sel
                        && prim > 0
                        && let Some(m) = diffs.get_mut(*i).and_then(|d| d.mismatches.get_mut(*j))
                        && let Some(w) = &mut m.writer
                    {
                        w.debug.push_str(&format!(" --prim {prim}"));
                    }
                }
            }
            for d in diffs.iter_mut() {
                for m in &mut d.mismatches {
                    m.writer = m.writer.take().map(with_flags);
                }
            }
            if untracked.iter().any(|&u| u) {
                notes.push(
                    "the lanes behind a draw's writes to [[resource]] entries are not tracked; render targets and depth are".into(),
                );
            }
        } else if is_rays {
            // A ray's lanes and the programs they ran: each program's own bindings.
            let targets: Vec<ResourceAt> = wants.iter().map(|w| w.target).collect();
            let fresh = runner.prepare(None)?;
            let writers = match &fresh.0.work {
                Work::Rays(r) => RayWriterMap::new(r, &targets),
                _ => RayWriterMap::default(),
            };
            let (tracked, _) = runner.run(fresh, &wants, Tracking::Rays(&writers))?;
            if tracked != actual {
                notes.push(
                    "the write-tracking run gave other results than the first run; lanes are named from the tracking run".into(),
                );
            }
            for (i, d) in diffs.iter_mut().enumerate() {
                for m in &mut d.mismatches {
                    m.writer = writers.writer(i, m.address, &job_words).map(with_flags);
                }
            }
        } else {
            let writers = Writers::new(
                &shader,
                wants
                    .iter()
                    .map(|w| bindings_of(&shader, &w.target))
                    .collect(),
            );
            let (tracked, _) =
                runner.run(runner.prepare(None)?, &wants, Tracking::Resources(&writers))?;
            if tracked != actual {
                notes.push(
                    "the write-tracking run gave other results than the first run (the program's atomics depend on the order groups run in); lanes are named from the tracking run".into(),
                );
            }
            for (i, d) in diffs.iter_mut().enumerate() {
                for m in &mut d.mismatches {
                    m.writer = writers.writer(i, m.address, &job_words).map(with_flags);
                }
            }
        }
    }

    let mut reports = Vec::new();
    let images_dir = if opts.no_images || !any_differ {
        None
    } else {
        Some(images_dir(&runner.job, &capture, opts)?)
    };
    for (((c, d), a), untracked) in captured.iter().zip(diffs).zip(&actual).zip(untracked) {
        let images = match (&images_dir, &c.shape) {
            (Some(dir), Shape::Texture(_)) if d.differing_components > 0 => {
                let stem = if c.entry.resolved {
                    format!("{}.resolved", c.entry.target.file_stem())
                } else {
                    c.entry.target.file_stem()
                };
                let (imgs, mut n) =
                    diff_image::write_images(&c.subject(), &c.bytes, a, &dir.0, &dir.1, &stem)?;
                notes.append(&mut n);
                Some(imgs)
            }
            _ => None,
        };
        let mut r = ResourceReport::new(
            &c.entry,
            &c.kind_words,
            &c.formats,
            tolerance_words(c.tolerance),
            c.nan,
            d,
            images,
        );
        r.writers_tracked = !untracked;
        reports.push(r);
    }

    let explanation = if any_differ && !opts.no_explain {
        let base_sets: Vec<Bitset> = reports.iter().map(|r| r.differing.clone()).collect();
        let mut rerun = |p: &Profile| -> Result<Vec<Bitset>, CaptureError> {
            let (out, _) = runner.run(runner.prepare(Some(p.clone()))?, &wants, Tracking::None)?;
            Ok(captured
                .iter()
                .zip(&out)
                .map(|(c, a)| compare(&c.subject(), &c.bytes, a, 0).differing)
                .collect())
        };
        Some(explain::explain(
            &base_profile,
            &shader,
            &base_sets,
            &mut rerun,
        )?)
    } else {
        None
    };

    Ok(Report::new(
        job_path.display().to_string(),
        capture_dir.display().to_string(),
        capture.device.clone(),
        choice,
        reports,
        explanation,
        notes,
    ))
}

/// Fits a capture of a command list to its job: entries naming a resource (`resource =
/// "name"`) are given its `[[resource]]` entry, and a capture taken after command N
/// (`event = N`) compares with the list cut after that command, as the commands before
/// it left the resources. `--event N` (`event`) is that N whatever the capture says
/// (the command line wins, as with `--profile`; the report notes a capture taken after
/// another event). Returns that note.
fn after_event(
    capture: &mut Capture,
    job: &mut Job,
    event: Option<usize>,
) -> Result<Option<String>, CaptureError> {
    let manifest = capture.dir.join(super::manifest::MANIFEST);
    let list = !job.file.commands.is_empty();
    for e in &mut capture.entries {
        let Some(name) = &e.resource else { continue };
        if !list {
            return Err(CaptureError::Entry {
                entry: e.name.clone(),
                message: format!(
                    "`resource` \"{name}\": the job is not a command list; name a `reg`, `heap`, `render_target` or `depth`"
                ),
            });
        }
        let i = job
            .file
            .resources
            .iter()
            .position(|r| r.name.as_deref() == Some(name.as_str()))
            .ok_or_else(|| CaptureError::Entry {
                entry: e.name.clone(),
                message: format!("`resource`: the job has no [[resource]] named \"{name}\""),
            })?;
        e.target = ResourceAt::Named(u32::try_from(i).unwrap_or(u32::MAX));
    }
    let count = job.file.commands.len();
    let has = || {
        if list {
            format!("has commands 1 to {count}")
        } else {
            "is not a command list".to_string()
        }
    };
    let mut note = None;
    if let Some(n) = event {
        if !list || n == 0 || n > count {
            return Err(CaptureError::OtherJob(format!(
                "--event {n}: the job {}",
                has()
            )));
        }
        note = match capture.event {
            Some(c) if c != n => Some(format!(
                "compared after event {n} (--event); the capture says it was taken after event {c}"
            )),
            None => Some(format!(
                "compared after event {n} (--event); the capture does not say it was taken after an event (its resources are compared as command {n} left them)"
            )),
            Some(_) => None,
        };
        capture.event = Some(n);
    } else if let Some(n) = capture.event
        && (!list || n == 0 || n > count)
    {
        return Err(CaptureError::OtherJob(format!(
            "{}: `event` {n}: the capture was taken after command {n}, but the job {}",
            manifest.display(),
            has()
        )));
    }
    if let Some(n) = capture.event {
        job.file.commands.truncate(n);
    }
    Ok(note)
}

/// The `dxlane debug` flags that make the debugger run what the comparison ran: the
/// profile when it is not the one the job runs by itself, and the wave size when the
/// command line chose it.
fn same_run_flags(runner: &Runner, choice: &ProfileChoice, opts: &CompareOptions) -> String {
    let own = runner
        .job
        .file
        .options
        .profile
        .as_deref()
        .and_then(Profile::by_name)
        .unwrap_or_else(Profile::latest);
    let mut s = String::new();
    if own.name() != choice.name {
        s.push_str(&format!(" --profile {}", choice.name));
    }
    if let Some(w) = opts.wave_size {
        s.push_str(&format!(" --wave-size {w}"));
    }
    s
}

fn choose_profile(
    capture: &Capture,
    job: &Job,
    opts: &CompareOptions,
) -> Result<ProfileChoice, CaptureError> {
    let (name, source) = if let Some(p) = &opts.profile {
        (p.clone(), "--profile".to_string())
    } else if let Some(p) = &capture.device.profile {
        (p.clone(), "the capture's [device] profile".to_string())
    } else if let Some(p) = capture.device.warp_preset() {
        let w = capture.device.warp.clone().unwrap_or_default();
        (p, format!("the capture's WARP version, {w}"))
    } else if let Some(p) = &job.file.options.profile {
        (p.clone(), "the job's [options] profile".to_string())
    } else {
        (
            Profile::latest().name().to_string(),
            "the newest WARP known".to_string(),
        )
    };
    let Some(p) = Profile::by_name(&name) else {
        return Err(CaptureError::Profile(format!(
            "unknown profile \"{name}\" (from {source}; known: {}, latest)",
            Profile::PRESETS.join(", ")
        )));
    };
    Ok(ProfileChoice {
        name: p.name().to_string(),
        from: source,
    })
}

/// Runs the job (fresh resources each time) and reads the captured resources back.
struct Runner {
    job: Job,
    threads: Option<usize>,
    wave_size: Option<u32>,
    profile_name: String,
    default_engine: crate::exec::jit::Engine,
}

/// A job ready to run: its work, plan and resources.
struct Prepped(Box<Prepared>);

/// Which writes a run tracks.
enum Tracking<'a> {
    None,
    /// Resource writes of a dispatch.
    Resources(&'a Writers),
    /// Output-merger writes of a draw, and its lanes' UAV writes (every stage's).
    Draw(&'a PixelWriters, &'a DrawWriters),
    /// Resource writes of a ray dispatch's lanes and nested programs.
    Rays(&'a RayWriterMap),
}

impl Prepped {
    fn is_draw(&self) -> bool {
        self.0.is_draw()
    }

    fn warnings(&self) -> Vec<String> {
        self.0.warnings().to_vec()
    }

    /// Bytes of the job's resources and a draw's targets and depth buffer.
    fn storage_bytes(&self) -> u64 {
        self.0.storage_bytes()
    }

    /// The program `program_md5` names, as `capture::record` writes it: a dispatch's
    /// program; a draw's pixel program, or its vertex program when it has none; a ray
    /// dispatch's first library (the one holding the ray-generation program); a list's
    /// last program.
    fn program_path(&self) -> PathBuf {
        // A draw lists its programs vertex, pixel, then geometry, hull, domain: the
        // last is not the pixel program when the draw has other stages.
        let p = match &self.0.work {
            Work::Draw(d) if d.ps.is_some() => self.0.programs.get(1),
            Work::Draw(_) | Work::Rays(_) => self.0.programs.first(),
            _ => self.0.programs.last(),
        };
        PathBuf::from(p.map_or("", |p| p.path.as_str()))
    }

    fn profile(&self) -> Profile {
        self.0.plan.profile.clone()
    }

    /// The program explain asks which rules it reaches. A draw's two programs count as
    /// one: the pixel program (its declarations decide the program-dependent values,
    /// such as the fp32 denormal mode) with the vertex program's instructions added, so
    /// a rule either program reaches is tried.
    fn explain_shader(&self) -> Shader {
        match &self.0.work {
            Work::Dispatch(d) => d.shader.clone(),
            Work::Draw(d) => {
                let (vs, ps) = (&*d.vs, d.ps.as_deref());
                let mut s = ps.unwrap_or(vs).clone();
                if ps.is_some() {
                    s.insts.extend(vs.insts.iter().cloned());
                }
                s
            }
            // A list: its first program, with every other program's instructions.
            Work::List(commands) => {
                // `work()` looks through a predicated or query-counted command.
                let mut shaders = commands.iter().filter_map(|c| match c.work() {
                    Some(Work::Dispatch(d)) => Some(&d.shader),
                    Some(Work::Draw(d)) => d.ps.as_deref().or(Some(&*d.vs)),
                    _ => None,
                });
                let mut s = shaders
                    .next()
                    .cloned()
                    .unwrap_or_else(|| Shader::new(crate::ir::Stage::Compute));
                for o in shaders {
                    s.insts.extend(o.insts.iter().cloned());
                }
                s
            }
            // A ray dispatch: its ray-generation program, with every other program's
            // instructions.
            Work::Rays(r) => {
                let mut s = r
                    .programs
                    .get(r.raygen)
                    .map(|(s, _)| s.clone())
                    .unwrap_or_else(|| Shader::new(crate::ir::Stage::RayGeneration));
                for (i, (o, _)) in r.programs.iter().enumerate() {
                    if i != r.raygen {
                        s.insts.extend(o.insts.iter().cloned());
                    }
                }
                s
            }
        }
    }
    /// The resource an entry names, and how it is compared.
    fn find(&self, t: &ResourceAt, resolved: bool) -> Result<Found, String> {
        let r = self.0.resource(*t)?;
        let tex = match r.data {
            ResourceData::Texture(tex) => tex,
            ResourceData::Buffer {
                memory,
                read,
                view_offset,
            } => {
                if resolved {
                    return Err("`resolved` goes with render targets".into());
                }
                return Ok(Found {
                    shape: Shape::Buffer {
                        bytes: memory.len(),
                        shape: read,
                        view_offset,
                    },
                    kind: r.kind,
                    storage_bytes: memory.len(),
                });
            }
        };
        let d = *tex.desc();
        if resolved {
            if !matches!(t, ResourceAt::RenderTarget(_)) {
                return Err("`resolved` goes with render targets".into());
            }
            if d.samples <= 1 {
                return Err(format!(
                    "`resolved`: {t} has one sample; there is nothing to resolve (drop `resolved`)"
                ));
            }
            let rd = crate::resources::TextureDesc::tex2d(d.format, d.width, d.height);
            return Ok(Found {
                shape: Shape::Texture(rd),
                kind: format!("{}, {} samples resolved, {}", r.kind, d.samples, d.format),
                storage_bytes: rd.total_bytes(),
            });
        }
        let kind = if t.is_draw_output() {
            let samples = if d.samples > 1 {
                format!(", {} samples", d.samples)
            } else {
                String::new()
            };
            format!("{}{samples}, {}", r.kind, d.format)
        } else {
            r.kind
        };
        Ok(Found {
            shape: Shape::Texture(d),
            kind,
            storage_bytes: tex.memory().len(),
        })
    }

    /// The bytes of a wanted resource after a run.
    fn contents(&self, w: &Want) -> Option<Vec<u8>> {
        let r = self.0.resource(w.target).ok()?;
        match r.data {
            ResourceData::Texture(tex) if w.resolved => om::resolve(tex).ok().map(|r| r.to_bytes()),
            _ => Some(r.contents()),
        }
    }
}

impl Runner {
    fn prepare(&self, profile: Option<Profile>) -> Result<Prepped, CaptureError> {
        let opts = RunOptions {
            threads: self.threads,
            wave_size: self.wave_size,
            profile: Some(self.profile_name.clone()),
            default_engine: self.default_engine,
            ..RunOptions::default()
        };
        let mut p = prepare(self.job.clone(), &opts)?;
        if let Some(profile) = profile {
            p.plan.profile = profile;
        }
        Ok(Prepped(Box::new(p)))
    }

    /// Runs `p` (writing none of the job's outputs) and returns the bytes of each
    /// wanted resource, and (draws) whether the pixel program ran per sample.
    fn run(
        &self,
        p: Prepped,
        wants: &[Want],
        tracking: Tracking<'_>,
    ) -> Result<(Vec<Vec<u8>>, bool), CaptureError> {
        let hooks = match tracking {
            Tracking::None => Hooks::default(),
            Tracking::Resources(w) => Hooks {
                writes: Some(w.sink()),
                ..Hooks::default()
            },
            Tracking::Draw(w, uavs) => Hooks {
                merges: Some(w),
                writes: Some(uavs),
                lanes: Some(uavs),
                pixels: Some(uavs),
                ..Hooks::default()
            },
            Tracking::Rays(w) => Hooks {
                writes: Some(w.sink()),
                ..Hooks::default()
            },
        };
        let per_sample = match p.0.run(None, hooks)? {
            WorkReport::Draw(r) => r.per_sample,
            WorkReport::Dispatch(_) | WorkReport::List(_) | WorkReport::Rays(_) => false,
        };
        let out = wants
            .iter()
            .map(|w| {
                p.contents(w).ok_or_else(|| {
                    CaptureError::Output(format!("{}: no contents after the run", w.target))
                })
            })
            .collect::<Result<_, _>>()?;
        Ok((out, per_sample))
    }
}

fn read_entry(
    dir: &Path,
    e: &CaptureEntry,
    prepared: &Prepped,
    opts: &CompareOptions,
    held: &mut MemoryBudget,
) -> Result<Captured, CaptureError> {
    let err = |m: String| CaptureError::Entry {
        entry: e.name.clone(),
        message: m,
    };
    let found = prepared.find(&e.target, e.resolved).map_err(&err)?;
    let shape = found.shape;
    let (formats, naming) = match (&shape, &e.formats) {
        (Shape::Texture(d), None) => (vec![d.format], Naming::Color),
        (Shape::Texture(d), Some(f)) => {
            if f.len() != 1 || f[0].bytes_per_texel() != d.format.bytes_per_texel() {
                return Err(err(format!(
                    "`format`: the texture's texels are {} ({} bytes); name one format of that size",
                    d.format,
                    d.format.bytes_per_texel()
                )));
            }
            (f.clone(), Naming::Color)
        }
        (Shape::Buffer { shape: s, .. }, f) => {
            let f = match (f, s) {
                (Some(f), _) => f.clone(),
                (None, BufferRead::Typed { format }) => vec![*format],
                (None, _) => vec![Format::R32_UINT],
            };
            (f, Naming::Vector)
        }
    };
    let comps = components(&formats, naming).map_err(|m| err(format!("`format`: {m}")))?;
    let eb = element_bytes(&formats);
    if eb == 0 {
        return Err(err("`format`: an element of no bytes".into()));
    }
    let layout = Layout::plan(&shape, &e.layout).map_err(&err)?;
    if let (Shape::Buffer { shape: s, .. }, Layout::Buffer { bytes, offset, .. }) =
        (&shape, &layout)
    {
        if let BufferRead::Structured { stride } = s
            && (eb > *stride || stride % eb != 0)
        {
            return Err(err(format!(
                "`format` takes {eb} bytes an element; the structured buffer's stride is {stride} (give formats that fill it, or a part of it that divides it)"
            )));
        }
        if bytes % u64::from(eb) != 0 || offset % u64::from(eb) != 0 {
            return Err(err(format!(
                "the captured bytes {offset}..{} are not whole elements of {eb} bytes",
                offset + bytes
            )));
        }
    }
    let bytes = read_file(dir, &e.file, &layout, held.left()).map_err(&err)?;
    held.transient(
        &e.name,
        (bytes.len() as u64).saturating_add(found.storage_bytes),
        "the captured file and its bytes unpacked",
    )?;
    let captured = layout
        .unpack(&bytes, found.storage_bytes)
        .map_err(|m| err(format!("{}: {m}", e.file.display())))?;
    drop(bytes);
    held.take(&e.name, found.storage_bytes)?;
    // A command list's resource is named by its `name` (`--tolerance sums=ulp 1`).
    let name = e.resource.clone().unwrap_or_else(|| e.target.to_string());
    let tolerance = opts
        .tolerances
        .iter()
        .find(|(n, _)| {
            n.eq_ignore_ascii_case(&name) || n.eq_ignore_ascii_case(&e.target.file_stem())
        })
        .map(|(_, t)| *t)
        .or(opts.tolerance)
        .or(e.tolerance)
        .unwrap_or(Tolerance::Exact);
    Ok(Captured {
        entry: e.clone(),
        shape,
        layout,
        formats,
        components: comps,
        element_bytes: eb,
        tolerance,
        nan: opts.nan.or(e.nan).unwrap_or_default(),
        bytes: captured,
        kind_words: found.kind,
    })
}

/// Reads capture file `file` of the folder `dir` through the read gate (`job::paths`):
/// inside the folder with no link on the way, a regular file whose length must fit
/// `layout` (checked before reading any of it) and is never more than `limit` bytes.
fn read_file(dir: &Path, file: &Path, layout: &Layout, limit: u64) -> Result<Vec<u8>, String> {
    let path = paths::inside(dir, file)?;
    let shown = path.display();
    let (f, len) = paths::open_input(&path, false)?;
    layout
        .check_file_len(len)
        .map_err(|m| format!("{shown} {m}"))?;
    if len > limit {
        return Err(format!(
            "{shown} is {len} bytes, more than the job's memory budget of {limit} bytes"
        ));
    }
    let bytes = paths::read_opened(&path, f, len, len, "its length when opened")?;
    if bytes.len() as u64 != len {
        return Err(format!(
            "{shown} changed while it was read ({} bytes, not {len})",
            bytes.len()
        ));
    }
    Ok(bytes)
}

/// The MD5 of a file, in hex.
pub fn md5_of_file(path: &Path) -> Result<String, CaptureError> {
    let bytes = paths::read_input(
        path,
        crate::job::limits::MAX_PROGRAM_BYTES,
        "the largest program a job may load",
    )
    .map_err(|message| CaptureError::Io {
        path: path.to_path_buf(),
        message: message
            .strip_prefix(&format!("{}: ", path.display()))
            .map(str::to_string)
            .unwrap_or(message),
    })?;
    Ok(md5::Md5::digest(&bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect())
}

/// Where diff images go, and the gate they are written through: `--images DIR` (the
/// user's folder), else `out/compare/<capture folder name>/` beside the job, through the
/// job's gate (inside the job's folder, no link out of it). Never inside the capture
/// folder.
fn images_dir(
    job: &Job,
    capture: &Capture,
    opts: &CompareOptions,
) -> Result<(OutputGate, PathBuf), CaptureError> {
    let (gate, dir) = match &opts.images {
        Some(d) => (OutputGate::folder(d, "--images"), d.clone()),
        None => {
            let name = capture
                .dir
                .canonicalize()
                .ok()
                .and_then(|p| p.file_name().map(|n| n.to_string_lossy().into_owned()))
                .unwrap_or_else(|| "capture".into());
            let gate = OutputPolicy {
                job_dir: job.dir.clone(),
                out_dir: None,
                allow_outside: false,
            }
            .gate();
            (
                gate,
                job.resolve(&Path::new("out").join("compare").join(name)),
            )
        }
    };
    if is_inside(&dir, &capture.dir) {
        return Err(CaptureError::Output(format!(
            "diff images would go to {}, inside the capture folder {}; compare never writes there (pass --images DIR or --no-images)",
            dir.display(),
            capture.dir.display()
        )));
    }
    Ok((gate, dir))
}

/// Whether `path` (which may not exist yet) is `base` or inside it, once symbolic links
/// of the part that exists are followed.
pub fn is_inside(path: &Path, base: &Path) -> bool {
    let Ok(base) = (if base.as_os_str().is_empty() {
        Path::new(".")
    } else {
        base
    })
    .canonicalize() else {
        return false;
    };
    let folded = crate::job::resolve(Path::new(""), path);
    let mut probe = if folded.is_absolute() {
        folded
    } else {
        Path::new(".").join(folded)
    };
    let mut rest = Vec::new();
    loop {
        if probe
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink())
            && probe.canonicalize().is_err()
        {
            // A link to nowhere: a write through it would land wherever it points.
            return false;
        }
        if let Ok(real) = probe.canonicalize() {
            let full = rest.iter().rev().fold(real, |p: PathBuf, c| p.join(c));
            return full.starts_with(&base);
        }
        match (probe.file_name().map(|n| n.to_os_string()), probe.pop()) {
            (Some(n), true) => rest.push(n),
            _ => return false,
        }
    }
}
