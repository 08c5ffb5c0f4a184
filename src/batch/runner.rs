//! Running cases: each as a child process of the `dxlane` executable, several at a time,
//! each cut by its timeout.
//!
//! The child runs the case's subcommand (`run JOB --quiet --out-dir TEMP`, `compare JOB
//! CAPTURE --no-images`, `shader-test FILE`) with one worker thread unless told
//! otherwise, since the batch itself runs several children at once. A `run` case writes
//! its outputs into a temporary folder of its own, removed afterwards: a batch writes
//! nothing beside the cases. Its exit status is the outcome: 0 pass, 1 fail, 2 error,
//! anything else a crash (a panic exits with 101). A child still running when its
//! timeout passes is killed (`SIGKILL`) and reported as `timeout`; a child ended by a
//! signal the batch did not send is an infrastructure failure.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};
use std::time::{Duration, Instant};

use super::baseline::Baseline;
use super::cache::Cache;
use super::case::{Case, CaseKind};
use super::report::{CaseResult, Status};

/// Bytes kept of each of a child's stdout and stderr (the rest is read and dropped).
const MAX_CAPTURED: usize = 64 << 10;

/// Characters of a child's output kept in a result's message.
const MAX_MESSAGE_CHARS: usize = 2000;

/// Names the temporary output folders of this process.
static TEMPORARIES: AtomicU64 = AtomicU64::new(0);

/// How a batch runs its cases.
#[derive(Debug, Clone)]
pub struct RunConfig {
    /// The `dxlane` executable the children run.
    pub exe: PathBuf,
    /// Children at a time (at least 1).
    pub jobs: usize,
    /// Each case's timeout, unless its own is given.
    pub timeout: Option<Duration>,
    /// Worker threads of each child (`--threads`).
    pub threads: usize,
    /// `--profile` for every child.
    pub profile: Option<String>,
    /// `--max-seconds` for `run` children (the run's own time budget).
    pub max_seconds: Option<f64>,
    /// `--engine` for `run` children.
    pub engine: Option<String>,
    /// Expected failures, flakes and skips.
    pub baseline: Baseline,
    /// Where results are kept, when asked.
    pub cache: Option<Cache>,
}

/// The child's arguments for `case`, with `out` standing for its output folder.
pub fn child_args(case: &Case, cfg: &RunConfig, out: &str) -> Vec<String> {
    let s = |p: &Path| p.to_string_lossy().into_owned();
    let mut a: Vec<String> = match &case.kind {
        CaseKind::Run { job } => {
            let mut a = vec![
                "run".into(),
                s(job),
                "--quiet".into(),
                "--out-dir".into(),
                out.into(),
            ];
            if let Some(m) = cfg.max_seconds {
                a.extend(["--max-seconds".into(), m.to_string()]);
            }
            if let Some(e) = &cfg.engine {
                a.extend(["--engine".into(), e.clone()]);
            }
            a
        }
        CaseKind::Compare { job, capture } => {
            vec!["compare".into(), s(job), s(capture), "--no-images".into()]
        }
        CaseKind::ShaderTest { file } => vec!["shader-test".into(), s(file)],
    };
    a.extend(["--threads".into(), cfg.threads.to_string()]);
    if let Some(p) = &cfg.profile {
        a.extend(["--profile".into(), p.clone()]);
    }
    a
}

/// Runs every case (already sharded and sorted), `cfg.jobs` at a time, calling `done`
/// as each finishes; returns the results in the order of `cases`.
pub fn run_all(
    cases: &[Case],
    cfg: &RunConfig,
    done: &(dyn Fn(&CaseResult) + Sync),
) -> Vec<CaseResult> {
    let next = AtomicUsize::new(0);
    let results: Mutex<Vec<Option<CaseResult>>> = Mutex::new(vec![None; cases.len()]);
    std::thread::scope(|scope| {
        for _ in 0..cfg.jobs.clamp(1, cases.len().max(1)) {
            scope.spawn(|| {
                loop {
                    let i = next.fetch_add(1, Ordering::Relaxed);
                    let Some(case) = cases.get(i) else { break };
                    let r = run_case(case, cfg);
                    done(&r);
                    if let Ok(mut all) = results.lock()
                        && let Some(slot) = all.get_mut(i)
                    {
                        *slot = Some(r);
                    }
                }
            });
        }
    });
    results
        .into_inner()
        .unwrap_or_default()
        .into_iter()
        .zip(cases)
        .map(|(r, c)| {
            r.unwrap_or_else(|| CaseResult {
                case: c.name.clone(),
                kind: c.kind.word().into(),
                status: Status::InfraFailure,
                exit_code: None,
                attempts: 0,
                message: "the batch lost this case's result (a worker thread panicked)".into(),
                seconds: 0.0,
            })
        })
        .collect()
}

/// One case: skip, cache, run (again, when flaky), then the baselines.
pub fn run_case(case: &Case, cfg: &RunConfig) -> CaseResult {
    let mut r = CaseResult {
        case: case.name.clone(),
        kind: case.kind.word().into(),
        status: Status::Skip,
        exit_code: None,
        attempts: 0,
        message: String::new(),
        seconds: 0.0,
    };
    if cfg.baseline.skipped(&case.name) {
        return r;
    }
    let key = cfg
        .cache
        .as_ref()
        .and_then(|c| c.key(case, &child_args(case, cfg, "$OUT")).map(|k| (c, k)));
    let cached = key.as_ref().and_then(|(c, k)| c.get(k, case));
    if let Some(hit) = cached {
        r = hit;
        r.seconds = 0.0;
    } else {
        let attempt = run_child(case, cfg);
        r.status = attempt.status;
        r.exit_code = attempt.exit_code;
        r.message = attempt.message;
        r.seconds = attempt.seconds;
        r.attempts = 1;
        if let Some((c, k)) = &key {
            // A cache that cannot be written costs the next run time, not this result.
            if let Err(e) = c.put(k, &r) {
                eprintln!("dxlane: warning: {e}");
            }
        }
    }
    if r.status.is_failure() && cfg.baseline.flaky(&case.name) {
        let again = run_child(case, cfg);
        r.attempts += 1;
        r.seconds += again.seconds;
        if again.status == Status::Pass {
            r.status = Status::Flake;
        } else {
            r.status = again.status;
            r.exit_code = again.exit_code;
            r.message = again.message;
        }
    }
    if r.status.is_failure() && cfg.baseline.expects_failure(&case.name, r.status) {
        r.status = Status::ExpectedFail;
    } else if matches!(r.status, Status::Pass | Status::Flake)
        && cfg.baseline.listed_as_failing(&case.name)
    {
        r.status = Status::UnexpectedPass;
    }
    r
}

/// One child's outcome.
struct Attempt {
    status: Status,
    exit_code: Option<i32>,
    message: String,
    seconds: f64,
}

fn run_child(case: &Case, cfg: &RunConfig) -> Attempt {
    let start = Instant::now();
    let out_dir = match &case.kind {
        CaseKind::Run { .. } => match temporary_folder() {
            Ok(d) => Some(d),
            Err(e) => {
                return Attempt {
                    status: Status::InfraFailure,
                    exit_code: None,
                    message: format!("no temporary folder for the run's outputs: {e}"),
                    seconds: 0.0,
                };
            }
        },
        _ => None,
    };
    let out_text = out_dir
        .as_ref()
        .map(|d| d.to_string_lossy().into_owned())
        .unwrap_or_default();
    let args = child_args(case, cfg, &out_text);
    let timeout = case.timeout.or(cfg.timeout);
    let mut a = spawn_and_wait(&cfg.exe, &args, timeout);
    if let Some(d) = &out_dir {
        let _ = std::fs::remove_dir_all(d);
        if !out_text.is_empty() {
            a.message = a.message.replace(&out_text, "$OUT");
        }
    }
    a.seconds = start.elapsed().as_secs_f64();
    a
}

/// A new empty folder under the system's temporary folder.
fn temporary_folder() -> std::io::Result<PathBuf> {
    let base = std::env::temp_dir();
    loop {
        let n = TEMPORARIES.fetch_add(1, Ordering::Relaxed);
        let d = base.join(format!("dxlane-batch-{}-{n}", std::process::id()));
        match std::fs::create_dir(&d) {
            Ok(()) => return Ok(d),
            Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => continue,
            Err(e) => return Err(e),
        }
    }
}

fn spawn_and_wait(exe: &Path, args: &[String], timeout: Option<Duration>) -> Attempt {
    let infra = |message: String| Attempt {
        status: Status::InfraFailure,
        exit_code: None,
        message,
        seconds: 0.0,
    };
    let mut child = match Command::new(exe)
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
    {
        Ok(c) => c,
        Err(e) => return infra(format!("{}: could not start: {e}", exe.display())),
    };
    let stdout = child
        .stdout
        .take()
        .map(|s| std::thread::spawn(move || drain(s)));
    let stderr = child
        .stderr
        .take()
        .map(|s| std::thread::spawn(move || drain(s)));
    let start = Instant::now();
    let mut pause = Duration::from_millis(1);
    let mut timed_out = false;
    let status = loop {
        match child.try_wait() {
            Ok(Some(s)) => break Ok(s),
            Ok(None) => {}
            Err(e) => break Err(e),
        }
        if let Some(t) = timeout
            && start.elapsed() >= t
        {
            timed_out = true;
            let _ = child.kill();
            break child.wait();
        }
        std::thread::sleep(pause);
        pause = (pause * 2).min(Duration::from_millis(20));
    };
    let text = |h: Option<std::thread::JoinHandle<Vec<u8>>>| {
        h.and_then(|h| h.join().ok())
            .map(|b| String::from_utf8_lossy(&b).into_owned())
            .unwrap_or_default()
    };
    let (out, err) = (text(stdout), text(stderr));
    let status = match status {
        Ok(s) => s,
        Err(e) => return infra(format!("waiting for the case's process: {e}")),
    };
    let message = |head: &str| {
        let mut m = head.to_string();
        for part in [out.trim(), err.trim()] {
            if !part.is_empty() {
                if !m.is_empty() {
                    m.push('\n');
                }
                m.push_str(part);
            }
        }
        cap(&m)
    };
    if timed_out {
        let secs = timeout.map_or(0.0, |t| t.as_secs_f64());
        return Attempt {
            status: Status::Timeout,
            exit_code: None,
            message: message(&format!("killed after its timeout of {secs} s")),
            seconds: 0.0,
        };
    }
    match status.code() {
        Some(0) => Attempt {
            status: Status::Pass,
            exit_code: Some(0),
            message: String::new(),
            seconds: 0.0,
        },
        Some(code) => Attempt {
            status: match code {
                1 => Status::Fail,
                2 => Status::Error,
                _ => Status::Crash,
            },
            exit_code: Some(code),
            message: message(""),
            seconds: 0.0,
        },
        None => Attempt {
            status: Status::InfraFailure,
            exit_code: None,
            message: message(&format!(
                "the case's process was killed by {} (not sent by the batch)",
                signal_of(&status)
            )),
            seconds: 0.0,
        },
    }
}

#[cfg(unix)]
fn signal_of(status: &std::process::ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    status
        .signal()
        .map_or_else(|| "a signal".into(), |s| format!("signal {s}"))
}

#[cfg(not(unix))]
fn signal_of(_: &std::process::ExitStatus) -> String {
    "the system".into()
}

/// Reads a pipe to its end, keeping the first [`MAX_CAPTURED`] bytes.
fn drain(mut r: impl Read) -> Vec<u8> {
    let mut kept = Vec::new();
    let mut buf = [0u8; 8192];
    loop {
        match r.read(&mut buf) {
            Ok(0) | Err(_) => break,
            Ok(n) => {
                let room = MAX_CAPTURED.saturating_sub(kept.len());
                kept.extend_from_slice(buf.get(..n.min(room)).unwrap_or_default());
            }
        }
    }
    kept
}

/// The first [`MAX_MESSAGE_CHARS`] characters, marked when cut.
fn cap(text: &str) -> String {
    match text.char_indices().nth(MAX_MESSAGE_CHARS) {
        Some((at, _)) => format!("{} […]", &text[..at]),
        None => text.to_string(),
    }
}
