//! Every writer against every path trick (issue 30, item 1; the rules are
//! `dxlane::job::paths`'s module doc): a dispatch's outputs (`output`, a texture's
//! `outputs = [{ file }]`, `[options] summary`, the default summary), a draw's (a render
//! target's `output` and `resolve_output`, the depth-stencil `output`, a `[[resource]]`'s
//! `output`, the summary, and `--out-dir`), `compare`'s diff images, `run --record` and
//! `debug --trace`, each tried with `..`, an absolute path, a symbolic link to a folder
//! outside, a symbolic link to a file outside and a hard link to a file outside. Nothing
//! outside the job's folder is ever written: the first four are refused, naming the
//! entry; a hard link is replaced, its other name keeping its bytes.

use std::path::{Path, PathBuf};
use std::process::Command;

use dxlane::job::{Job, RunOptions, run_draw_job, run_job};

use crate::common;

/// What a victim file holds; it must still hold it after every case.
const KEEP: &[u8] = b"keep: not dxlane's to write";

/// A test's folders: `job/` (the job, its programs) and `victim/` (outside it).
struct Place {
    job: PathBuf,
    victim: PathBuf,
}

impl Place {
    fn new(name: &str) -> Place {
        let dir = common::scratch().join("path_safety").join(name);
        let _ = std::fs::remove_dir_all(&dir);
        let job = dir.join("job");
        let victim = dir.join("victim");
        std::fs::create_dir_all(&job).unwrap();
        std::fs::create_dir_all(&victim).unwrap();
        std::fs::write(victim.join("keep.bin"), KEEP).unwrap();
        let root = common::root();
        for (from, to) in [
            ("tests/jobs/copy_texture.ir", "copy.ir"),
            ("shaders/draw_fullscreen.vs.ir", "vs.ir"),
            ("shaders/draw_fullscreen.ps.ir", "ps.ir"),
        ] {
            std::fs::copy(root.join(from), job.join(to)).unwrap();
        }
        Place { job, victim }
    }

    /// Nothing outside the job's folder changed.
    fn untouched(&self, case: &str) {
        let names: Vec<_> = std::fs::read_dir(&self.victim)
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names, ["keep.bin"], "{case}: a file appeared outside");
        assert_eq!(
            std::fs::read(self.victim.join("keep.bin")).unwrap(),
            KEEP,
            "{case}: written outside"
        );
    }

    /// Plants the tricks in the job's folder: `link` → the victim folder, `sym.bin` → the
    /// victim file, `hard.bin` a hard link to it.
    #[cfg(unix)]
    fn plant(&self, at: &Path) {
        std::fs::create_dir_all(at).unwrap();
        let _ = std::fs::remove_file(at.join("link"));
        let _ = std::fs::remove_file(at.join("sym.bin"));
        let _ = std::fs::remove_file(at.join("hard.bin"));
        std::os::unix::fs::symlink(&self.victim, at.join("link")).unwrap();
        std::os::unix::fs::symlink(self.victim.join("keep.bin"), at.join("sym.bin")).unwrap();
        std::fs::hard_link(self.victim.join("keep.bin"), at.join("hard.bin")).unwrap();
    }

    /// The paths to try, each with the words its refusal must say (`None`: accepted, as
    /// a hard link is: replaced).
    fn tricks(&self, ext: &str) -> Vec<(String, Option<&'static str>)> {
        vec![
            (format!("../victim/new.{ext}"), Some("outside")),
            (
                format!("{}/new.{ext}", self.victim.display()),
                Some("outside"),
            ),
            (format!("link/new.{ext}"), Some("symbolic link")),
            ("sym.bin".to_string(), Some("symbolic link")),
            ("hard.bin".to_string(), None),
        ]
    }
}

fn compute_job(outputs: &str, options: &str) -> String {
    format!(
        r#"[program]
cs = "copy.ir"

[dispatch]
groups = [1, 1, 1]

[options]
threads = 1
{options}

[[resource]]
reg = "t0"
kind = "texture2d"
format = "R32_FLOAT"
width = 4
height = 4
data = {{ fill_u32 = 7 }}

[[resource]]
reg = "u0"
kind = "texture2d"
format = "R32_FLOAT"
width = 4
height = 4
{outputs}
"#
    )
}

fn draw_job(target: &str, depth: &str, resource: &str, options: &str) -> String {
    format!(
        r#"[program]
vs = "vs.ir"
ps = "ps.ir"

[draw]
vertex_count = 3

[options]
threads = 1
{options}

[[draw.render_target]]
format = "R8G8B8A8_UNORM"
width = 8
height = 8
samples = 4
{target}

[draw.depth_stencil]
format = "D32_FLOAT"
{depth}

[[resource]]
reg = "u7"
kind = "raw_buffer"
size = 16
{resource}
"#
    )
}

/// A dispatch's writers: `output`, `outputs = [{ file }]`, `[options] summary`, and the
/// default summary through a symbolic link named `out`.
#[cfg(unix)]
#[test]
fn compute_writers_stay_inside_the_job_folder() {
    let p = Place::new("compute");
    p.plant(&p.job);
    let path = p.job.join("job.toml");
    for (trick, refusal) in p.tricks("bin") {
        for (key, outputs, options) in [
            ("output", format!("output = \"{trick}\""), String::new()),
            (
                "outputs",
                format!("outputs = [{{ file = \"{trick}\" }}]"),
                String::new(),
            ),
            ("summary", String::new(), format!("summary = \"{trick}\"")),
        ] {
            let case = format!("compute {key} = {trick}");
            if refusal.is_none() {
                p.plant(&p.job);
            }
            std::fs::write(&path, compute_job(&outputs, &options)).unwrap();
            let r = run_job(&path, &crate::common::run_options());
            match refusal {
                Some(words) => {
                    let e = r.err().unwrap_or_else(|| panic!("{case}: ran")).to_string();
                    assert!(
                        e.contains(words) && e.contains(&format!("`{key}`")),
                        "{case}: {e}"
                    );
                }
                None => {
                    r.unwrap_or_else(|e| panic!("{case}: {e}"));
                    assert_ne!(std::fs::read(p.job.join("hard.bin")).unwrap(), KEEP);
                }
            }
            p.untouched(&case);
        }
    }
    // The default summary, `out/job.summary.json`, through `out` → outside.
    let _ = std::fs::remove_dir_all(p.job.join("out"));
    std::os::unix::fs::symlink(&p.victim, p.job.join("out")).unwrap();
    std::fs::write(&path, compute_job("", "")).unwrap();
    let e = run_job(&path, &crate::common::run_options())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("the summary") && e.contains("symbolic link"),
        "{e}"
    );
    p.untouched("the default summary through `out`");
}

/// A draw's writers: a render target's `output` and `resolve_output`, the depth-stencil
/// `output`, a `[[resource]]`'s `output`, `[options] summary`; `--out-dir` takes them all.
#[cfg(unix)]
#[test]
fn draw_writers_stay_inside_the_job_folder() {
    let p = Place::new("draw");
    p.plant(&p.job);
    let path = p.job.join("job.toml");
    for (trick, refusal) in p.tricks("bin") {
        let line = |k: &str| format!("{k} = \"{trick}\"");
        for (key, text) in [
            ("output", draw_job(&line("output"), "", "", "")),
            (
                "resolve_output",
                draw_job(&line("resolve_output"), "", "", ""),
            ),
            ("output", draw_job("", &line("output"), "", "")),
            ("output", draw_job("", "", &line("output"), "")),
            ("summary", draw_job("", "", "", &line("summary"))),
        ] {
            let case = format!("draw {key} = {trick}");
            if refusal.is_none() {
                p.plant(&p.job);
            }
            std::fs::write(&path, &text).unwrap();
            let r = run_draw_job(Job::load(&path).unwrap(), &crate::common::run_options());
            match refusal {
                Some(words) => {
                    let e = r
                        .err()
                        .unwrap_or_else(|| panic!("{case}: drew"))
                        .to_string();
                    assert!(
                        e.contains(words) && e.contains(&format!("`{key}`")),
                        "{case}: {e}"
                    );
                }
                None => {
                    r.unwrap_or_else(|e| panic!("{case}: {e}"));
                    assert_ne!(std::fs::read(p.job.join("hard.bin")).unwrap(), KEEP);
                }
            }
            p.untouched(&case);
        }
    }
    // `--out-dir` applies to draws: the outputs and the summary go there, none beside
    // the job.
    let elsewhere = p.job.parent().unwrap().join("out-dir");
    let _ = std::fs::remove_dir_all(p.job.join("out"));
    std::fs::write(
        &path,
        draw_job(
            "output = \"out/rt.bin\"\nresolve_output = \"out/rt.png\"",
            "output = \"out/depth.bin\"",
            "output = \"out/u7.bin\"",
            "",
        ),
    )
    .unwrap();
    let opts = RunOptions {
        out_dir: Some(elsewhere.clone()),
        ..crate::common::run_options()
    };
    let r = run_draw_job(Job::load(&path).unwrap(), &opts).unwrap();
    for f in [
        "rt.bin",
        "rt.png",
        "depth.bin",
        "u7.bin",
        "job.summary.json",
    ] {
        assert!(elsewhere.join("out").join(f).exists(), "{f}");
        assert!(!p.job.join("out").join(f).exists(), "{f}");
    }
    assert!(r.summary_path.starts_with(&elsewhere));
}

fn dxlane(args: &[&str], dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run dxlane")
}

/// `compare`'s diff images, `run --record`'s files and `debug --trace`'s file: a symbolic
/// link where they go (or on the way) is refused, a hard link replaced.
#[cfg(unix)]
#[test]
fn compare_record_and_trace_never_write_through_links() {
    let p = Place::new("tools");
    let path = p.job.join("job.toml");
    // One sample: one diff image per target.
    std::fs::write(
        &path,
        draw_job("", "", "", "").replace("samples = 4", "samples = 1"),
    )
    .unwrap();
    let job = Job::load(&path).unwrap();
    let result = run_draw_job(job.clone(), &crate::common::run_options()).unwrap();
    let finished = dxlane::job::Finished::Draw(Box::new(result.clone()));
    // --record: its files through the gate.
    let cap = p.job.join("cap");
    p.plant(&cap);
    std::os::unix::fs::symlink(p.victim.join("keep.bin"), cap.join("rt0.bin")).unwrap();
    let e = dxlane::capture::record::record(&job, &finished, &cap)
        .unwrap_err()
        .to_string();
    assert!(e.contains("symbolic link"), "{e}");
    p.untouched("--record onto a link");
    std::fs::remove_file(cap.join("rt0.bin")).unwrap();
    std::fs::hard_link(p.victim.join("keep.bin"), cap.join("capture.toml")).unwrap();
    dxlane::capture::record::record(&job, &finished, &cap).unwrap();
    p.untouched("--record onto a hard link");
    assert!(
        std::fs::read_to_string(cap.join("capture.toml"))
            .unwrap()
            .contains("render_target = 0")
    );
    // compare: a capture that differs draws diff images into out/compare/cap/.
    let mut rt = std::fs::read(cap.join("rt0.bin")).unwrap();
    rt[0] ^= 0x40;
    std::fs::write(cap.join("rt0.bin"), rt).unwrap();
    let opts = dxlane::capture::CompareOptions {
        no_explain: true,
        ..Default::default()
    };
    let images = p.job.join("out/compare/cap");
    std::fs::create_dir_all(&images).unwrap();
    std::fs::hard_link(p.victim.join("keep.bin"), images.join("rt0.diff.png")).unwrap();
    let r = dxlane::capture::compare_job(&path, &cap, &opts).unwrap();
    assert_eq!(r.exit_code(), 1);
    p.untouched("compare onto a hard link");
    assert!(
        std::fs::read(images.join("rt0.diff.png"))
            .unwrap()
            .starts_with(b"\x89PNG")
    );
    std::fs::remove_file(images.join("rt0.diff.png")).unwrap();
    std::os::unix::fs::symlink(p.victim.join("keep.bin"), images.join("rt0.diff.png")).unwrap();
    let e = dxlane::capture::compare_job(&path, &cap, &opts)
        .unwrap_err()
        .to_string();
    assert!(e.contains("symbolic link"), "{e}");
    p.untouched("compare onto a link");
    std::fs::remove_dir_all(p.job.join("out")).unwrap();
    std::os::unix::fs::symlink(&p.victim, p.job.join("out")).unwrap();
    let e = dxlane::capture::compare_job(&path, &cap, &opts)
        .unwrap_err()
        .to_string();
    assert!(e.contains("symbolic link"), "{e}");
    p.untouched("compare through a linked `out`");
    // (The job's default summary would go through it too: the debugger opens the job
    // as `run` does, so the link goes first.)
    std::fs::remove_file(p.job.join("out")).unwrap();
    // debug --trace: a link refused, a hard link replaced.
    std::os::unix::fs::symlink(p.victim.join("keep.bin"), p.job.join("t.jsonl")).unwrap();
    std::fs::hard_link(p.victim.join("keep.bin"), p.job.join("h.jsonl")).unwrap();
    let trace = |file: &str| {
        dxlane(
            &["debug", "job.toml", "--vertex", "0", "--trace", file],
            &p.job,
        )
    };
    let o = trace("t.jsonl");
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("symbolic link"));
    p.untouched("--trace onto a link");
    let o = trace("h.jsonl");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    p.untouched("--trace onto a hard link");
    assert!(
        std::fs::read_to_string(p.job.join("h.jsonl"))
            .unwrap()
            .starts_with("{")
    );
    // The user's own path may go anywhere the user says (`..` included).
    let o = trace("../mine.jsonl");
    assert_eq!(
        o.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(p.job.parent().unwrap().join("mine.jsonl").exists());
}
