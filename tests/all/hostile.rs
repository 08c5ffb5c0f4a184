//! Hostile jobs (issue 12's hardening items, found by mutating jobs): each runs the job a
//! bug report could carry and requires a clear error, a bounded cost, or a note — never
//! an abort, a hang or a write outside the job's folder.
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
    let r = run_job(&path, &RunOptions::default()).unwrap();
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
    let e = error(&path, &RunOptions::default());
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
    let e = error(&path, &RunOptions::default());
    assert!(
        e.contains("budget of 20000 lane-instructions is exhausted after")
            && e.contains("of 4096 thread groups"),
        "{e}"
    );
    let path = job(&dir, "[65535, 64, 1]", "size = 32", "", "threads = 1");
    let opts = RunOptions {
        max_seconds: Some(0.05),
        ..RunOptions::default()
    };
    let start = Instant::now();
    let e = error(&path, &opts);
    assert!(e.contains("time limit of 0.05 s is reached after"), "{e}");
    assert!(start.elapsed() < Duration::from_secs(60));
    let path = job(&dir, "[1, 1, 1]", "size = 32", "", "max_seconds = -1");
    assert!(error(&path, &RunOptions::default()).contains("positive number of seconds"));
}

/// `file = "/dev/zero"` (an endless device) and a file longer than its buffer are
/// refused without reading more than the buffer holds.
#[test]
fn endless_and_huge_inputs_are_refused() {
    let dir = workdir("inputs");
    let path = job(&dir, "[1, 1, 1]", "data = { file = \"/dev/zero\" }", "", "");
    let start = Instant::now();
    let e = error(&path, &RunOptions::default());
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
    let e = error(&path, &RunOptions::default());
    assert!(e.contains("65536 bytes, more than 64"), "{e}");
    // A folder as a program.
    std::fs::create_dir_all(dir.join("adir")).unwrap();
    let text = std::fs::read_to_string(dir.join("job.toml"))
        .unwrap()
        .replace("double.ir", "adir");
    std::fs::write(dir.join("job.toml"), text).unwrap();
    let e = error(&dir.join("job.toml"), &RunOptions::default());
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
    let e = error(&path, &RunOptions::default());
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
    run_job(&path, &RunOptions::default()).unwrap();
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
        let e = error(&path, &RunOptions::default());
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
    let e = error(&path, &RunOptions::default());
    assert!(e.contains("outside"), "{e}");
    let opts = RunOptions {
        allow_outside: true,
        ..RunOptions::default()
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
        ..RunOptions::default()
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
