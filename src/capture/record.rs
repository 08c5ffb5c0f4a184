//! `dxlane run --record DIR`: a capture folder of a run's own outputs.
//!
//! Owns: recording what the job's resource table says a run writes or names as an
//! output (`job::table`'s `written`: every UAV, bound at a `u` register or a `uav` heap
//! slot, and every other entry with an `output`; for a draw job also
//! every render target (`rt<N>.bin`: every sample plane of a multisampled one, sample
//! after sample, as dxlane holds it — lossless, so a later compare can name the sample
//! that moved) and the depth-stencil buffer (`depth.bin`)) — writing each resource's bytes in
//! dxlane's packing (`layout = "tight"`, the `.bin` form `dxlane run` writes) as
//! `<target>.bin`, and a `capture.toml` naming the job, the program's MD5 and, as the
//! device, dxlane with the profile it ran. Comparing that folder with the same job
//! under other versions, profiles or worker counts uses the same `dxlane compare`.
//!
//! A command list's capture holds every named resource with contents, as
//! `resource<N>.bin` (its `[[resource]]` entry) with `resource = "name"`, after the
//! whole list; [`record_after`] also records the resources as command N left them, with
//! `event = N` (`docs/capture.md`, "Command lists").
//!
//! # Rules
//!
//! - `DIR` is the user's own choice on the command line (as `--summary` is); the files
//!   in it are named by dxlane, never by the job, and written through the output gate
//!   (`job::paths`): a file there that is a symbolic link is refused, not followed, and
//!   one that is a hard link to a file elsewhere is replaced, not written through. The
//!   resources are streamed from memory, with no copy of each.
//! - A file the job reads (its program, a `data` file) is never overwritten.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use super::CaptureError;
use super::replay::md5_of_file;
use crate::job::paths::OutputGate;
use crate::job::{Finished, Job, ResourceAt, RunOptions};
use crate::pipeline::Hooks;
use crate::resources::Memory;

/// What a recording wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Recorded {
    /// The manifest.
    pub manifest: PathBuf,
    /// The resource files, in manifest order.
    pub files: Vec<PathBuf>,
}

/// The files the job reads.
fn inputs(job: &Job) -> Vec<PathBuf> {
    let f = &job.file;
    let mut v: Vec<PathBuf> = [&f.program.cs, &f.program.vs, &f.program.ps]
        .into_iter()
        .flatten()
        .map(|p| job.resolve(p))
        .collect();
    for e in f.resources.iter().chain(&f.heap) {
        if let Some(p) = e.data.as_ref().and_then(|d| d.file.as_ref()) {
            v.push(job.resolve(p));
        }
    }
    v.into_iter()
        .filter_map(|p| p.canonicalize().ok())
        .collect()
}

fn toml_string(s: &str) -> String {
    let mut o = String::from("\"");
    for c in s.chars() {
        match c {
            '"' => o.push_str("\\\""),
            '\\' => o.push_str("\\\\"),
            c if c.is_control() => {
                let _ = write!(o, "\\u{:04x}", c as u32);
            }
            c => o.push(c),
        }
    }
    o.push('"');
    o
}

/// Writes a capture of `result` (a run of `job`: a dispatch, a draw, a ray dispatch or a
/// command list) into `dir` (see the module doc): a draw's render targets and
/// depth-stencil buffer, then the UAVs and `output` resources; a list's named resources.
pub fn record(job: &Job, result: &Finished, dir: &Path) -> Result<Recorded, CaptureError> {
    let run = match result {
        Finished::Dispatch(r) => {
            let s = &r.summary;
            Run {
                program: Some(PathBuf::from(&s.program.path)),
                profile: s.profile.clone(),
                wave_size: s.wave_size,
                threads: s.threads,
                what: "outputs",
            }
        }
        Finished::Draw(r) => {
            let s = &r.summary;
            // `program_md5` names the pixel program (the vertex program when there is
            // none).
            let program = s.ps.as_ref().unwrap_or(&s.vs);
            Run {
                program: Some(PathBuf::from(&program.path)),
                profile: s.draw.profile.clone(),
                wave_size: s.draw.wave_size,
                threads: s.draw.threads,
                what: "render targets, depth and outputs",
            }
        }
        Finished::Rays(r) => {
            let s = &r.summary;
            // `program_md5` names the ray-generation program's library.
            Run {
                program: s.programs.first().map(|p| PathBuf::from(&p.path)),
                profile: s.profile.clone(),
                wave_size: s.wave_size,
                threads: 1,
                what: "outputs",
            }
        }
        Finished::List(r) => {
            let s = &r.summary;
            // `program_md5` names the list's last program, as `compare` reads it.
            Run {
                program: s.programs.last().map(|p| PathBuf::from(&p.path)),
                profile: s.profile.clone(),
                wave_size: 0,
                threads: 0,
                what: "named resources after the whole list",
            }
        }
    };
    let items = result.written(&job.file).unwrap_or_default();
    write_capture(job, &run, None, items, dir)
}

/// `dxlane run --record DIR --record-after N,M`: for each event `n` of `events`, a
/// capture of a command list's named resources as command `n` (1-based) left them, in
/// `DIR/event-<n>/`, its manifest saying `event = n` so that `compare` cuts the list
/// there too. Each is a run of the list's first `n` commands (a list is deterministic,
/// so the resources are those of the whole run at that point), writing none of the
/// job's outputs.
pub fn record_after(
    job: &Job,
    events: &[usize],
    opts: &RunOptions<'_>,
    dir: &Path,
) -> Result<Vec<Recorded>, CaptureError> {
    let count = job.file.commands.len();
    let mut out = Vec::with_capacity(events.len());
    for &n in events {
        if count == 0 {
            return Err(CaptureError::OtherJob(
                "--record-after: the job is not a command list (it has no [[command]] entries)"
                    .into(),
            ));
        }
        if n == 0 || n > count {
            return Err(CaptureError::OtherJob(format!(
                "--record-after {n}: the list has commands 1 to {count}"
            )));
        }
        let mut cut = job.clone();
        cut.file.commands.truncate(n);
        // The cut list's expectations and outputs are the whole list's: not checked,
        // not written.
        cut.file.expects.clear();
        let p = crate::job::prepare(cut.clone(), opts)?;
        p.run(None, Hooks::default())?;
        let run = Run {
            program: p.programs.last().map(|i| PathBuf::from(&i.path)),
            profile: p.plan.profile.name.clone(),
            wave_size: 0,
            threads: 0,
            what: "named resources after the list's first commands",
        };
        let items = p.written();
        out.push(write_capture(
            &cut,
            &run,
            Some(n),
            items,
            &dir.join(format!("event-{n}")),
        )?);
    }
    Ok(out)
}

/// What the manifest says about the run.
struct Run {
    /// The program `program_md5` names (none: a list of no programs).
    program: Option<PathBuf>,
    profile: String,
    wave_size: u32,
    threads: usize,
    what: &'static str,
}

fn write_capture(
    job: &Job,
    run: &Run,
    event: Option<usize>,
    items: Vec<(ResourceAt, Memory)>,
    dir: &Path,
) -> Result<Recorded, CaptureError> {
    // Every file goes through the output gate (`job::paths`): inside `dir`, no link
    // followed, an existing file replaced rather than written through.
    let gate = OutputGate::folder(dir, "--record");
    let reads = inputs(job);
    let job_name = job
        .path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let md5 = run.program.as_deref().map(md5_of_file).transpose()?;
    let mut manifest = String::new();
    let _ = writeln!(
        manifest,
        "# Recorded by `dxlane run --record`: the {} of {job_name}, tightly packed as dxlane writes them.",
        run.what
    );
    let _ = writeln!(manifest, "job = {}", toml_string(&job_name));
    if let Some(md5) = md5 {
        let _ = writeln!(manifest, "program_md5 = \"{md5}\"");
    }
    if let Some(n) = event {
        let _ = writeln!(manifest, "event = {n}");
    }
    let _ = writeln!(manifest, "\n[device]");
    let _ = writeln!(
        manifest,
        "adapter = {}",
        toml_string(&format!("dxlane {} (CPU)", env!("CARGO_PKG_VERSION")))
    );
    let _ = writeln!(manifest, "profile = {}", toml_string(&run.profile));
    // A list's commands each choose their wave sizes and workers: no one pair to note.
    if run.threads > 0 {
        let _ = writeln!(
            manifest,
            "notes = {}",
            toml_string(&format!(
                "wave size {}, {} worker thread{}",
                run.wave_size,
                run.threads,
                if run.threads == 1 { "" } else { "s" }
            ))
        );
    }
    let mut files = Vec::new();
    for (target, memory) in items {
        let name = format!("{}.bin", target.file_stem());
        let path = gate.place(&dir.join(&name)).map_err(CaptureError::Output)?;
        if let Ok(real) = path.canonicalize()
            && reads.contains(&real)
        {
            return Err(CaptureError::Output(format!(
                "{}: the job reads this file; --record will not overwrite it (record into another folder)",
                path.display()
            )));
        }
        gate.write_with(&path, &mut |w| memory.write_to(w))
            .map_err(CaptureError::Output)?;
        let _ = writeln!(manifest, "\n[[resource]]");
        match target {
            ResourceAt::Register(r) => {
                let _ = writeln!(manifest, "reg = \"{}{}\"", r.class.letter(), r.index);
                if r.space != 0 {
                    let _ = writeln!(manifest, "space = {}", r.space);
                }
            }
            ResourceAt::Heap(i) => {
                let _ = writeln!(manifest, "heap = {i}");
            }
            ResourceAt::RenderTarget(i) => {
                let _ = writeln!(manifest, "render_target = {i}");
            }
            ResourceAt::DepthStencil => {
                let _ = writeln!(manifest, "depth = true");
            }
            ResourceAt::Named(i) => {
                let name = job
                    .file
                    .resources
                    .get(i as usize)
                    .and_then(|r| r.name.as_deref())
                    .unwrap_or_default();
                let _ = writeln!(manifest, "resource = {}", toml_string(name));
            }
        }
        let _ = writeln!(manifest, "file = {}", toml_string(&name));
        files.push(path);
    }
    let path = gate
        .place(&dir.join(super::manifest::MANIFEST))
        .map_err(CaptureError::Output)?;
    gate.write(&path, manifest.as_bytes())
        .map_err(CaptureError::Output)?;
    Ok(Recorded {
        manifest: path,
        files,
    })
}
