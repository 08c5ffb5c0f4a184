//! Hostile jobs (the hardening items of issues 12 and 30, found by mutating jobs, capture
//! folders and debugger scripts): each runs the job a bug report could carry and requires
//! a clear error, a bounded cost, or a note — never an abort, a hang, a read outside a
//! capture folder or a write outside the job's folder. `path_safety.rs` tries every
//! writer against every path trick; `fuzz_bodies.rs` mutates jobs and manifests.
//!
//! Programs are the IR text files of `tests/jobs/`; every job runs in its own folder
//! under cargo's test temporary directory.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::{Duration, Instant};

use dxlane::job::{JobError, RunOptions, run_job};

use crate::common;

/// A fresh folder for test `name` with `double.ir` (out[i] = 2 in[i] + 1, groups of 4).
fn workdir(name: &str) -> PathBuf {
    let dir = common::scratch().join("hostile").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(
        common::root().join("tests/jobs/double.ir"),
        dir.join("double.ir"),
    )
    .unwrap();
    dir
}

/// `double.ir` over `groups`, with `input` and `output` lines for t0 and u0 and
/// `options` under `[options]`.
fn job(dir: &Path, groups: &str, input: &str, output: &str, options: &str) -> PathBuf {
    let text = format!(
        r#"[program]
cs = "double.ir"

[dispatch]
groups = {groups}

[options]
{options}

[[resource]]
reg = "t0"
kind = "structured_buffer"
stride = 4
{input}

[[resource]]
reg = "u0"
kind = "structured_buffer"
stride = 4
size = 32
{output}
"#
    );
    let path = dir.join("job.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn error(path: &Path, opts: &RunOptions<'_>) -> String {
    match run_job(path, opts) {
        Ok(_) => panic!("{}: the hostile job ran", path.display()),
        Err(e) => e.to_string(),
    }
}

/// `threads = 65536` starts no more workers than the machine has cores (or the dispatch
/// has groups), and the summary says so; the run's results are the same.
#[test]
fn absurd_thread_counts_are_capped() {
    let dir = workdir("threads");
    let path = job(
        &dir,
        "[2, 1, 1]",
        "data = { u32 = [0, 1, 2, 3, 4, 5, 6, 7] }",
        "output = \"out/u0.bin\"",
        "threads = 65536",
    );
    let r = run_job(&path, &crate::common::run_options()).unwrap();
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    assert!(r.summary.threads <= cores.min(2), "{}", r.summary.threads);
    assert!(
        r.summary
            .warnings
            .iter()
            .any(|w| w.contains("65536 worker threads asked for")),
        "{:?}",
        r.summary.warnings
    );
    let out = std::fs::read(dir.join("out/u0.bin")).unwrap();
    assert_eq!(&out[..8], &[1, 0, 0, 0, 3, 0, 0, 0]);
}

/// A dispatch of 65535³ groups would run for hours: refused before it starts, naming
/// the total budget.
#[test]
fn endless_dispatches_are_refused_up_front() {
    let dir = workdir("endless");
    let path = job(&dir, "[65535, 65535, 65535]", "size = 32", "", "");
    let start = Instant::now();
    let e = error(&path, &crate::common::run_options());
    assert!(
        e.contains("more than the run's budget") && e.contains("max_total_lane_instructions"),
        "{e}"
    );
    assert!(start.elapsed() < Duration::from_secs(30));
}

/// The total budget stops a long run between groups, saying how far it got; so does a
/// time limit.
#[test]
fn total_budget_and_time_limit_stop_the_run() {
    let dir = workdir("budget");
    let path = job(
        &dir,
        "[4096, 1, 1]",
        "size = 32",
        "",
        "max_total_lane_instructions = 20000\nthreads = 1",
    );
    let e = error(&path, &crate::common::run_options());
    assert!(
        e.contains("budget of 20000 lane-instructions is exhausted after")
            && e.contains("of 4096 thread groups"),
        "{e}"
    );
    let path = job(&dir, "[65535, 64, 1]", "size = 32", "", "threads = 1");
    let opts = RunOptions {
        max_seconds: Some(0.05),
        ..crate::common::run_options()
    };
    let start = Instant::now();
    let e = error(&path, &opts);
    assert!(e.contains("time limit of 0.05 s is reached after"), "{e}");
    assert!(start.elapsed() < Duration::from_secs(60));
    let path = job(&dir, "[1, 1, 1]", "size = 32", "", "max_seconds = -1");
    assert!(error(&path, &crate::common::run_options()).contains("positive number of seconds"));
}

/// `file = "/dev/zero"` (an endless device) and a file longer than its buffer are
/// refused without reading more than the buffer holds.
#[test]
fn endless_and_huge_inputs_are_refused() {
    let dir = workdir("inputs");
    let path = job(&dir, "[1, 1, 1]", "data = { file = \"/dev/zero\" }", "", "");
    let start = Instant::now();
    let e = error(&path, &crate::common::run_options());
    assert!(
        e.contains("/dev/zero") && e.contains("not a regular file"),
        "{e}"
    );
    assert!(start.elapsed() < Duration::from_secs(10));
    std::fs::write(dir.join("big.bin"), vec![0u8; 1 << 16]).unwrap();
    let path = job(
        &dir,
        "[1, 1, 1]",
        "size = 64\ndata = { file = \"big.bin\" }",
        "",
        "",
    );
    let e = error(&path, &crate::common::run_options());
    assert!(e.contains("65536 bytes, more than 64"), "{e}");
    // A folder as a program.
    std::fs::create_dir_all(dir.join("adir")).unwrap();
    let text = std::fs::read_to_string(dir.join("job.toml"))
        .unwrap()
        .replace("double.ir", "adir");
    std::fs::write(dir.join("job.toml"), text).unwrap();
    let e = error(&dir.join("job.toml"), &crate::common::run_options());
    assert!(e.contains("a folder"), "{e}");
}

/// Every copy a job makes of its data counts against `max_memory`: a 600-byte file
/// into a 600-byte buffer needs 1200 bytes at its peak.
#[test]
fn copies_count_against_the_memory_budget() {
    let dir = workdir("copies");
    std::fs::write(dir.join("in.bin"), vec![1u8; 600]).unwrap();
    let path = job(
        &dir,
        "[1, 1, 1]",
        "size = 600\ndata = { file = \"in.bin\" }",
        "",
        "max_memory = 1100",
    );
    let e = error(&path, &crate::common::run_options());
    assert!(
        e.contains("[[resource]] #1 (t0)") && e.contains("copied in") && e.contains("1100"),
        "{e}"
    );
    // A fill needs no copy: the same buffer filled with a word fits.
    let path = job(
        &dir,
        "[1, 1, 1]",
        "size = 600\ndata = { fill_u32 = 7 }",
        "",
        "max_memory = 1100",
    );
    run_job(&path, &crate::common::run_options()).unwrap();
}

/// Outputs that would land outside the job's folder are refused (absolute, `..`), with
/// the flag that allows them named; `--allow-outside` allows them; `--out-dir` takes the
/// job's outputs elsewhere.
#[test]
fn outputs_stay_inside_the_job_folder() {
    let dir = workdir("outputs");
    let outside = dir.parent().unwrap().join("outputs-victim.bin");
    let _ = std::fs::remove_file(&outside);
    for bad in [
        format!("output = \"{}\"", outside.display()),
        "output = \"../outputs-victim.bin\"".to_string(),
        "output = \"a/../../outputs-victim.bin\"".to_string(),
    ] {
        let path = job(&dir, "[1, 1, 1]", "size = 32", &bad, "");
        let e = error(&path, &crate::common::run_options());
        assert!(
            e.contains("is outside the job's folder") && e.contains("--allow-outside"),
            "{bad}: {e}"
        );
        assert!(!outside.exists(), "{bad} wrote outside");
    }
    let path = job(
        &dir,
        "[1, 1, 1]",
        "size = 32",
        "output = \"../outputs-victim.bin\"",
        "summary = \"../victim.json\"",
    );
    let e = error(&path, &crate::common::run_options());
    assert!(e.contains("outside"), "{e}");
    let opts = RunOptions {
        allow_outside: true,
        ..crate::common::run_options()
    };
    run_job(&path, &opts).unwrap();
    assert!(outside.exists());
    std::fs::remove_file(&outside).unwrap();
    // --out-dir: the job's relative outputs go there.
    let elsewhere = dir.parent().unwrap().join("outputs-out-dir");
    let _ = std::fs::remove_dir_all(&elsewhere);
    let path = job(
        &dir,
        "[1, 1, 1]",
        "size = 32",
        "output = \"out/u0.bin\"",
        "",
    );
    let out = Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args(["run", "-q", "--out-dir"])
        .arg(&elsewhere)
        .arg(&path)
        .output()
        .unwrap();
    assert_eq!(
        out.status.code(),
        Some(0),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(elsewhere.join("out/u0.bin").exists());
    assert!(elsewhere.join("out/job.summary.json").exists());
    assert!(!dir.join("out/u0.bin").exists());
}

/// `--wave-size 3` blames the flag, not `[options]`.
#[test]
fn flag_errors_name_the_flag() {
    let dir = workdir("flags");
    let path = job(&dir, "[1, 1, 1]", "size = 32", "", "");
    let opts = RunOptions {
        wave_size: Some(3),
        ..crate::common::run_options()
    };
    let e = error(&path, &opts);
    assert!(e.starts_with("--wave-size: 3: "), "{e}");
    assert!(matches!(
        run_job(&path, &opts),
        Err(JobError::Section { .. })
    ));
}

/// One exit-status convention for every command (`dxlane --help`): an unreadable file
/// is an error, status 2, for `info`, `info --check` and `disasm` as for `run`; the file
/// is named once.
#[test]
fn every_command_exits_2_on_an_unreadable_file() {
    let dir = workdir("exit");
    std::fs::create_dir_all(dir.join("adir")).unwrap();
    for args in [
        &["info", "missing.dxil"][..],
        &["info", "--check", "missing.dxil"],
        &["disasm", "missing.dxil"],
        &["run", "missing.toml"],
        &["run", "adir"],
    ] {
        let out = Command::new(env!("CARGO_BIN_EXE_dxlane"))
            .args(args)
            .current_dir(&dir)
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{args:?}: {err}");
        let name = args[args.len() - 1];
        assert_eq!(err.matches(name).count(), 1, "{args:?}: {err}");
    }
    let help = Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .arg("--help")
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&help.stdout).contains("Exit status, every command"));
}

// ---- issue 30: draws obey the same gates and budgets; nothing blocks or aborts ----

/// A fresh folder for test `name` with the full-screen draw's programs (`vs.ir`, `ps.ir`)
/// beside `double.ir`.
fn draw_workdir(name: &str) -> PathBuf {
    let dir = workdir(name);
    for (from, to) in [
        ("shaders/draw_fullscreen.vs.ir", "vs.ir"),
        ("shaders/draw_fullscreen.ps.ir", "ps.ir"),
    ] {
        std::fs::copy(common::root().join(from), dir.join(to)).unwrap();
    }
    dir
}

/// A full-screen draw job: `draw` lines under `[draw]`, a `size`² target with `target`
/// lines, `options` under `[options]`.
fn draw_job(dir: &Path, draw: &str, size: u32, target: &str, options: &str) -> PathBuf {
    let text = format!(
        "[program]\nvs = \"vs.ir\"\nps = \"ps.ir\"\n\n[draw]\n{draw}\n\n[options]\n{options}\n\n\
         [[draw.render_target]]\nformat = \"R8G8B8A8_UNORM\"\nwidth = {size}\nheight = {size}\n{target}\n"
    );
    let path = dir.join("draw.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn draw_error(path: &Path, opts: &RunOptions<'_>) -> String {
    match dxlane::job::run_draw_job(dxlane::job::Job::load(path).unwrap(), opts) {
        Ok(_) => panic!("{}: the hostile draw ran", path.display()),
        Err(e) => e.to_string(),
    }
}

/// Runs `dxlane args` in `dir`, failing the test (instead of hanging it) when the
/// process has not ended after a minute: the guard for inputs that used to block.
fn dxlane_guarded(args: &[&str], dir: &Path) -> std::process::Output {
    let mut child = Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args(args)
        .current_dir(dir)
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let guard = Instant::now();
    while child.try_wait().unwrap().is_none() {
        if guard.elapsed() > Duration::from_secs(60) {
            let _ = child.kill();
            let _ = child.wait();
            panic!("dxlane {args:?} blocked");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
    child.wait_with_output().unwrap()
}

#[cfg(unix)]
fn mkfifo(path: &Path) {
    let _ = std::fs::remove_file(path);
    let ok = Command::new("mkfifo").arg(path).status().unwrap();
    assert!(ok.success(), "mkfifo {}", path.display());
}

/// Item 1: a draw's outputs, and a compute texture's `outputs = [{ file }]`, go through
/// the output gate as a dispatch's `output` always did (`job::paths`); every writer and
/// path trick is tried in `tests/all/path_safety.rs`.
#[test]
fn draw_and_subresource_outputs_stay_inside_the_job_folder() {
    let dir = draw_workdir("gate");
    let victim = dir.parent().unwrap().join("gate-victim.png");
    let path = draw_job(
        &dir,
        "vertex_count = 3",
        8,
        "output = \"../gate-victim.png\"",
        "",
    );
    let e = draw_error(&path, &crate::common::run_options());
    assert!(
        e.contains("[[draw.render_target]] #1") && e.contains("outside the job's folder"),
        "{e}"
    );
    assert!(!victim.exists());
    std::fs::copy(
        common::root().join("tests/jobs/copy_texture.ir"),
        dir.join("copy.ir"),
    )
    .unwrap();
    let text = "[program]\ncs = \"copy.ir\"\n[dispatch]\ngroups = [1, 1, 1]\n\
        [[resource]]\nreg = \"t0\"\nkind = \"texture2d\"\nformat = \"R8G8B8A8_UNORM\"\nwidth = 4\nheight = 4\n\
        [[resource]]\nreg = \"u0\"\nkind = \"texture2d\"\nformat = \"R8G8B8A8_UNORM\"\nwidth = 4\nheight = 4\n\
        outputs = [{ file = \"../gate-victim.png\" }]\n";
    std::fs::write(dir.join("tex.toml"), text).unwrap();
    let e = error(&dir.join("tex.toml"), &crate::common::run_options());
    assert!(e.contains("`outputs` #1") && e.contains("outside"), "{e}");
    assert!(!victim.exists());
}

/// Item 2: a capture file that is a symbolic link — to a file outside the capture
/// folder, or through a linked folder — is refused, and its bytes never reach the
/// report (`job::paths::inside`).
#[cfg(unix)]
#[test]
fn capture_files_that_are_links_are_refused() {
    let dir = workdir("capture_links");
    let path = job(&dir, "[1, 1, 1]", "size = 32", "", "");
    std::fs::rename(&path, dir.join("double.toml")).unwrap();
    let secret = dir.parent().unwrap().join("capture-secret.bin");
    std::fs::write(&secret, b"SECRET-0123456789-SECRET-0123456").unwrap();
    let cap = dir.join("cap");
    std::fs::create_dir_all(&cap).unwrap();
    std::os::unix::fs::symlink(&secret, cap.join("u0.bin")).unwrap();
    std::os::unix::fs::symlink(dir.parent().unwrap(), cap.join("up")).unwrap();
    for file in ["u0.bin", "up/capture-secret.bin"] {
        std::fs::write(
            cap.join("capture.toml"),
            format!("job = \"double.toml\"\n[[resource]]\nreg = \"u0\"\nfile = \"{file}\"\n"),
        )
        .unwrap();
        let o = dxlane_guarded(&["compare", "double.toml", "cap"], &dir);
        let (out, err) = (
            String::from_utf8_lossy(&o.stdout),
            String::from_utf8_lossy(&o.stderr),
        );
        assert_eq!(o.status.code(), Some(2), "{file}: {out}{err}");
        assert!(err.contains("symbolic link"), "{file}: {err}");
        assert!(!out.contains("SECRET") && !err.contains("SECRET"), "{file}");
    }
    // The manifest itself as a link.
    std::fs::write(dir.join("elsewhere.toml"), "job = \"double.toml\"\n").unwrap();
    std::fs::remove_file(cap.join("capture.toml")).unwrap();
    std::os::unix::fs::symlink(dir.join("elsewhere.toml"), cap.join("capture.toml")).unwrap();
    let o = dxlane_guarded(&["compare", "double.toml", "cap"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("symbolic link"));
}

/// Item 3: draws charge the run's budgets as dispatches do (`exec::RunBudget`): the
/// total of lane-instructions stops the pixel stage and the vertex stage, work past it
/// is refused before it starts, `--max-seconds` and `[options] max_seconds` stop a draw
/// that would run for minutes, and the debugger's runs charge the same.
#[test]
fn draws_charge_the_run_budgets() {
    let dir = draw_workdir("draw_budget");
    // The pixel stage: 50 full-screen triangles on 64² are ~200k pixel lanes.
    let path = draw_job(
        &dir,
        "vertex_count = 3\ninstance_count = 50",
        64,
        "",
        "max_total_lane_instructions = 100000\nthreads = 1",
    );
    let e = draw_error(&path, &crate::common::run_options());
    assert!(
        e.contains("budget of 100000 lane-instructions is exhausted after") && e.contains("tiles"),
        "{e}"
    );
    // The vertex stage: 3000 vertices of 10 instances, 14 instructions each.
    let path = draw_job(
        &dir,
        "vertex_count = 3000\ninstance_count = 10",
        8,
        "",
        "max_total_lane_instructions = 40000\nthreads = 1",
    );
    let e = draw_error(&path, &crate::common::run_options());
    assert!(
        e.contains("exhausted after 0 of 10 instances of the vertex stage"),
        "{e}"
    );
    // Least work past the total: refused before any runs.
    let path = draw_job(
        &dir,
        "vertex_count = 3000\ninstance_count = 10",
        8,
        "",
        "max_total_lane_instructions = 1000",
    );
    let e = draw_error(&path, &crate::common::run_options());
    assert!(
        e.contains("3000 vertices × 10 instances run at least 30000 lane-instructions"),
        "{e}"
    );
    // Time: 2000 full-screen triangles on 2048² would shade 8·10⁹ pixels.
    let path = draw_job(
        &dir,
        "vertex_count = 3\ninstance_count = 2000",
        2048,
        "",
        "threads = 1",
    );
    let opts = RunOptions {
        max_seconds: Some(0.2),
        ..crate::common::run_options()
    };
    let e = draw_error(&path, &opts);
    assert!(e.contains("time limit of 0.2 s is reached after"), "{e}");
    let path = draw_job(
        &dir,
        "vertex_count = 3\ninstance_count = 2000",
        2048,
        "",
        "threads = 1\nmax_seconds = 0.2",
    );
    let e = draw_error(&path, &crate::common::run_options());
    assert!(e.contains("time limit of 0.2 s is reached after"), "{e}");
    // The debugger's runs: finding the pixel's lane draws the job, and stops the same.
    let path = draw_job(
        &dir,
        "vertex_count = 3\ninstance_count = 50",
        64,
        "",
        "max_total_lane_instructions = 100000",
    );
    let _ = path;
    let o = dxlane_guarded(
        &["debug", "draw.toml", "--pixel", "1,1", "-c", "where"],
        &dir,
    );
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("budget of 100000 lane-instructions"), "{err}");
}

/// Item 3: sizes and work are checked before a draw starts. `vertex_count = 0` with
/// 4294967295 instances draws nothing at once (an instance without vertices is free, and
/// the loop over them is never entered); a 30-million-vertex draw is refused by its
/// primitives' size before any vertex is shaded.
#[test]
fn draw_sizes_are_checked_before_work_starts() {
    let dir = draw_workdir("draw_sizes");
    let path = draw_job(
        &dir,
        "vertex_count = 0\ninstance_count = 4294967295",
        8,
        "",
        "",
    );
    let r = dxlane::job::run_draw_job(
        dxlane::job::Job::load(&path).unwrap(),
        &crate::common::run_options(),
    )
    .unwrap();
    assert_eq!(r.summary.draw.vertices_shaded, 0);
    assert_eq!(r.summary.draw.vs_lane_instructions, 0);
    let path = draw_job(&dir, "vertex_count = 30000000", 8, "", "");
    let e = draw_error(&path, &crate::common::run_options());
    assert!(
        e.contains("the draw's primitives (as many as its vertices can assemble)")
            && e.contains("more than the limit"),
        "{e}"
    );
}

/// The address space `dxlane` needs to start and run a small draw, with `extra` bytes
/// more, in KiB for `ulimit -v`: the largest `ulimit -v` under which the small draw
/// still fails, found by halving, plus margin.
#[cfg(target_os = "linux")]
fn address_space_kib(dir: &Path, extra: u64) -> u64 {
    let small = draw_job(dir, "vertex_count = 3", 8, "", "");
    let runs = |kib: u64| {
        Command::new("sh")
            .arg("-c")
            .arg(format!(
                "ulimit -v {kib} && exec \"$0\" run -q --threads 1 \"$1\"",
            ))
            .arg(env!("CARGO_BIN_EXE_dxlane"))
            .arg(&small)
            .current_dir(dir)
            .output()
            .unwrap()
            .status
            .success()
    };
    let (mut lo, mut hi) = (1u64 << 10, 16u64 << 20);
    assert!(runs(hi), "dxlane does not run in {hi} KiB of address space");
    while hi - lo > 16 << 10 {
        let mid = (lo + hi) / 2;
        if runs(mid) { hi = mid } else { lo = mid }
    }
    hi + (64 << 10) + extra / 1024
}

/// Item 4: allocations are fallible and counted, never an abort. A cleared multisampled
/// target of 512 MiB needs 512 MiB (no full-size temporary of its clear texel) and runs
/// in an address space that has no room for a second copy; a 10⁹-vertex draw with
/// `max_memory` raised is refused by the system's allocator, named, with status 2.
#[cfg(target_os = "linux")]
#[test]
fn allocations_are_errors_never_aborts() {
    let dir = draw_workdir("aborts");
    let room = address_space_kib(&dir, 700 << 20);
    let under_limit = |job: &Path| {
        Command::new("sh")
            .arg("-c")
            .arg(format!(
                "ulimit -v {room} && exec \"$0\" run -q --threads 1 \"$1\""
            ))
            .arg(env!("CARGO_BIN_EXE_dxlane"))
            .arg(job)
            .current_dir(&dir)
            .output()
            .unwrap()
    };
    let path = draw_job(
        &dir,
        "vertex_count = 0",
        4096,
        "samples = 8\nclear = [0.25, 0.5, 0.75, 1]",
        "",
    );
    let o = under_limit(&path);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(0), "{err}");
    let path = draw_job(
        &dir,
        "vertex_count = 1000000000",
        8,
        "",
        "max_memory = 1000000000000",
    );
    let o = under_limit(&path);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("the system refused"), "{err}");
    assert!(!err.contains("memory allocation of"), "{err}");
}

/// Item 5: no input blocks or is read past its limit: a FIFO as `capture.toml`, as a
/// capture file, as a `--script`, as a container for `info`; `/dev/zero` as a script.
#[cfg(unix)]
#[test]
fn inputs_that_would_block_are_refused() {
    let dir = workdir("blocking");
    let path = job(&dir, "[1, 1, 1]", "size = 32", "", "");
    std::fs::rename(&path, dir.join("double.toml")).unwrap();
    let cap = dir.join("cap");
    std::fs::create_dir_all(&cap).unwrap();
    mkfifo(&cap.join("capture.toml"));
    let o = dxlane_guarded(&["compare", "double.toml", "cap"], &dir);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("not a regular file"), "{err}");
    std::fs::remove_file(cap.join("capture.toml")).unwrap();
    std::fs::write(
        cap.join("capture.toml"),
        "job = \"double.toml\"\n[[resource]]\nreg = \"u0\"\nfile = \"u0.bin\"\n",
    )
    .unwrap();
    mkfifo(&cap.join("u0.bin"));
    let o = dxlane_guarded(&["compare", "double.toml", "cap"], &dir);
    let err = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2), "{err}");
    assert!(err.contains("not a regular file"), "{err}");
    mkfifo(&dir.join("script.fifo"));
    for script in ["script.fifo", "/dev/zero"] {
        let o = dxlane_guarded(
            &[
                "debug",
                "double.toml",
                "--thread",
                "0,0,0",
                "--script",
                script,
            ],
            &dir,
        );
        let err = String::from_utf8_lossy(&o.stderr);
        assert_eq!(o.status.code(), Some(2), "{script}: {err}");
        assert!(err.contains("not a regular file"), "{script}: {err}");
    }
    let o = dxlane_guarded(&["info", "script.fifo"], &dir);
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("not a regular file"));
    // A script past its limit is refused by its size, unread.
    std::fs::write(
        dir.join("big.txt"),
        vec![b'#'; dxlane::debug::MAX_SCRIPT_BYTES as usize + 1],
    )
    .unwrap();
    let o = dxlane_guarded(
        &[
            "debug",
            "double.toml",
            "--thread",
            "0,0,0",
            "--script",
            "big.txt",
        ],
        &dir,
    );
    assert_eq!(o.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&o.stderr).contains("the largest debugger script"));
}

/// Item 6: the debugger's counts stop at the end of the lane (`next 2147483648` returns
/// there, `step` with the largest count neither overflows nor spins), and a command
/// charges the run's time limit (`--max-seconds`).
#[test]
fn debugger_counts_stop_at_the_end_of_the_lane() {
    let dir = workdir("debug_counts");
    let path = job(&dir, "[1, 1, 1]", "size = 32", "", "");
    std::fs::rename(&path, dir.join("double.toml")).unwrap();
    let o = dxlane_guarded(
        &[
            "debug",
            "double.toml",
            "--thread",
            "0,0,0",
            "-c",
            "next 2147483648; back 18446744073709551615; step 18446744073709551615; goto 18446744073709551615; where",
        ],
        &dir,
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(
        o.status.code(),
        Some(0),
        "{out}{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let ends = out.matches("step 8 of 8").count();
    assert!(ends >= 3, "{out}");
    let o = dxlane_guarded(
        &[
            "debug",
            "double.toml",
            "--thread",
            "0,0,0",
            "--max-seconds",
            "0.000000001",
            "-c",
            "next 3",
        ],
        &dir,
    );
    let out = String::from_utf8_lossy(&o.stdout);
    assert_eq!(o.status.code(), Some(1), "{out}");
    assert!(
        out.contains("error: `next` stopped at step 0 of 8: the time limit of 0.000000001 s"),
        "{out}"
    );
}

/// Found by the interpreter fuzz target: a program may declare a descriptor array of a
/// billion elements (legal IR and SM 5.1 text). A job refuses it by name before marking
/// each element bound or unbound; `pipeline::dispatch` given a few descriptors runs it,
/// the missing elements null (reads 0, writes dropped), without storing a billion
/// descriptors.
#[test]
fn huge_declared_arrays_are_refused_or_left_null() {
    use dxlane::ir::parse_shader;
    use dxlane::pipeline::{Bindings, dispatch};
    use dxlane::resources::{BufferKind, BufferView, Descriptor, Memory};

    let dir = workdir("huge_array");
    let text = std::fs::read_to_string(dir.join("double.ir"))
        .unwrap()
        .replace(
            "uav space 0 lower 0 count 1 ",
            "uav space 0 lower 0 count 1000000000 ",
        );
    assert!(text.contains("count 1000000000"));
    std::fs::write(dir.join("double.ir"), &text).unwrap();
    let path = job(
        &dir,
        "[1, 1, 1]",
        "data = { u32 = [1, 2, 3, 4] }",
        "output = \"out/u0.bin\"",
        "",
    );
    let e = error(&path, &crate::common::run_options());
    assert!(
        e.contains("u0") && e.contains("1000000000 elements") && e.contains("at most 1048576"),
        "{e}"
    );

    let shader = parse_shader(&text).unwrap();
    let buffer = |words: &[u32]| Descriptor::Buffer {
        view: BufferView::whole(
            Memory::from_bytes(
                &words
                    .iter()
                    .flat_map(|w| w.to_le_bytes())
                    .collect::<Vec<_>>(),
            )
            .unwrap(),
            BufferKind::Structured { stride: 4 },
        ),
        counter: None,
    };
    let out = buffer(&[0; 4]);
    let Descriptor::Buffer { view, .. } = &out else {
        unreachable!()
    };
    let memory = view.memory.clone();
    let bindings = Bindings {
        ranges: vec![vec![buffer(&[1, 2, 3, 4])], vec![out.clone()]],
        ..Bindings::default()
    };
    dispatch(&shader, &bindings, [1, 1, 1], &crate::common::plan(), None).unwrap();
    let words: Vec<u32> = memory
        .to_bytes()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(words, [3, 5, 7, 9]);
}

/// Found by the interpreter fuzz target: a thread group of (2^32 − 1)³ threads overflowed
/// the product that checks it against D3D's 1,024; it is an error naming the size.
#[test]
fn an_absurd_thread_group_is_an_error() {
    use dxlane::ir::parse_shader;
    use dxlane::pipeline::{Bindings, dispatch};
    let shader = parse_shader(
        "shader compute\ngroup [4294967295 4294967295 4294967295]\nregs 1\nblock0:\n    return\n",
    )
    .unwrap();
    let e = dispatch(
        &shader,
        &Bindings::default(),
        [1, 1, 1],
        &crate::common::plan(),
        None,
    )
    .unwrap_err()
    .to_string();
    assert!(
        e.contains("4294967295×4294967295×4294967295") && e.contains("1 to 1024"),
        "{e}"
    );
}
