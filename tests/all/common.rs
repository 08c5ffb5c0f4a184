//! Shared helpers: the program files to test with, and snapshot comparison.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::sync::OnceLock;

/// The repository root.
pub fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The tests' scratch folder: `CARGO_TARGET_TMPDIR`, or its `engine-NAME` subfolder when
/// `DXLANE_ENGINE` names the engine, so that the interpreter's run of the whole suite
/// (`engines::every_test_under_the_interpreter`, started while this run goes on) never
/// writes where this run does.
pub fn scratch() -> PathBuf {
    let base = PathBuf::from(env!("CARGO_TARGET_TMPDIR"));
    match std::env::var("DXLANE_ENGINE") {
        Ok(name) if !name.is_empty() && name.chars().all(|c| c.is_ascii_alphanumeric()) => {
            base.join(format!("engine-{name}"))
        }
        _ => base,
    }
}

/// The fixture folders of the public corpora (fetched by `tools/fetch-corpora.sh` into
/// `target/corpora/`). Panics with the script's message when they cannot be fetched,
/// unless `DXLANE_NO_CORPORA=1`, which makes corpus tests see no files (and say so).
pub fn corpora() -> &'static [PathBuf] {
    static DIRS: OnceLock<Vec<PathBuf>> = OnceLock::new();
    DIRS.get_or_init(|| {
        if std::env::var_os("DXLANE_NO_CORPORA").is_some() {
            eprintln!("DXLANE_NO_CORPORA is set: corpus programs are not tested");
            return Vec::new();
        }
        let out = std::process::Command::new("bash")
            .arg(root().join("tools/fetch-corpora.sh"))
            .env("CARGO_TARGET_DIR", target_dir())
            .output()
            .expect("run tools/fetch-corpora.sh");
        assert!(
            out.status.success(),
            "tools/fetch-corpora.sh failed (set DXLANE_NO_CORPORA=1 to test without the corpora):\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout).lines().map(PathBuf::from).collect()
    })
}

/// An external tool the comparisons use: `$env` when set, else the first of `names`
/// found on `PATH`. `None` (and a line on stderr saying what is skipped) when neither;
/// `build.rs` prints the same as a cargo warning, so a plain `cargo test` shows it.
pub fn tool(env: &str, names: &[&str], skipped: &str) -> Option<std::ffi::OsString> {
    if let Some(v) = std::env::var_os(env) {
        return Some(v);
    }
    let path = std::env::var_os("PATH").unwrap_or_default();
    for dir in std::env::split_paths(&path) {
        for n in names {
            let p = dir.join(n);
            if p.is_file() {
                return Some(p.into_os_string());
            }
        }
    }
    eprintln!(
        "{} not found ({env} unset, not on PATH): {skipped} skipped",
        names[0]
    );
    None
}

/// `vkd3d-compiler` (see [`tool`]).
pub fn vkd3d_compiler(skipped: &str) -> Option<std::ffi::OsString> {
    tool("VKD3D_COMPILER", &["vkd3d-compiler"], skipped)
}

/// `llvm-dis` of LLVM 14 (see [`tool`]).
pub fn llvm_dis(skipped: &str) -> Option<std::ffi::OsString> {
    tool("LLVM_DIS", &["llvm-dis-14", "llvm-dis"], skipped)
}

/// Cargo's target directory for this build.
pub fn target_dir() -> PathBuf {
    std::env::var_os("CARGO_TARGET_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| root().join("target"))
}

fn files_with_ext(dir: &Path, ext: &str, out: &mut Vec<PathBuf>) {
    let Ok(rd) = std::fs::read_dir(dir) else {
        return;
    };
    let mut entries: Vec<_> = rd.flatten().map(|e| e.path()).collect();
    entries.sort();
    for p in entries {
        if p.is_dir() {
            files_with_ext(&p, ext, out);
        } else if p.extension().is_some_and(|e| e == ext) {
            out.push(p);
        }
    }
}

/// Every DXBC program: the project's `shaders/` and the corpora, sorted.
pub fn dxbc_programs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    files_with_ext(&root().join("shaders"), "dxbc", &mut out);
    for d in corpora() {
        files_with_ext(d, "dxbc", &mut out);
    }
    out
}

/// Every DXIL program: the project's `shaders/` and the corpora, sorted.
pub fn dxil_programs() -> Vec<PathBuf> {
    let mut out = Vec::new();
    files_with_ext(&root().join("shaders"), "dxil", &mut out);
    for d in corpora() {
        files_with_ext(d, "dxil", &mut out);
    }
    out
}

/// A short, stable name for a program file: `shaders/x.cs_5_0.dxbc` or
/// `dxil-reader/flow.dxil`.
pub fn display_name(path: &Path) -> String {
    let s = path.to_string_lossy();
    for key in ["/shaders/", "/corpora/"] {
        if let Some(i) = s.find(key) {
            return s[i + 1..].trim_start_matches("corpora/").to_string();
        }
    }
    s.into_owned()
}

/// Compares `actual` with `tests/snapshots/<name>`; `DXLANE_BLESS=1` writes it instead.
/// Returns a description of the difference (first differing line) on mismatch.
pub fn check_snapshot(name: &str, actual: &str) -> Result<(), String> {
    let path = root().join("tests/snapshots").join(name);
    if std::env::var_os("DXLANE_BLESS").is_some() {
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(&path, actual).unwrap();
        return Ok(());
    }
    let expected = std::fs::read_to_string(&path)
        .map_err(|e| format!("{name}: no snapshot ({e}); run with DXLANE_BLESS=1 to write it"))?;
    if expected == actual {
        return Ok(());
    }
    let line = expected
        .lines()
        .zip(actual.lines())
        .position(|(a, b)| a != b)
        .unwrap_or_else(|| expected.lines().count().min(actual.lines().count()));
    Err(format!(
        "{name}: snapshot differs at line {}:\n  expected: {:?}\n  actual:   {:?}\n(DXLANE_BLESS=1 rewrites it)",
        line + 1,
        expected.lines().nth(line).unwrap_or("<end>"),
        actual.lines().nth(line).unwrap_or("<end>")
    ))
}

/// Asserts a snapshot (see [`check_snapshot`]).
pub fn assert_snapshot(name: &str, actual: &str) {
    if let Err(e) = check_snapshot(name, actual) {
        panic!("{e}");
    }
}

/// Runs the job at `path` under each engine, its outputs written under separate folders
/// (`CARGO_TARGET_TMPDIR/engines/<tag>/<engine>`), and fails unless every output file is
/// byte-identical between the two (on one worker unless `opts` gives the count). Returns
/// the native engine's result.
pub fn run_job_both(
    path: &Path,
    tag: &str,
    opts: dxlane::job::RunOptions<'_>,
) -> Result<dxlane::job::RunResult, dxlane::job::JobError> {
    use dxlane::exec::jit::Engine;
    let base = scratch().join("engines").join(tag);
    let mut results = Vec::new();
    for engine in [Engine::Interp, Engine::Jit] {
        let dir = base.join(engine.to_string());
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let o = dxlane::job::RunOptions {
            engine: Some(engine),
            out_dir: Some(dir.clone()),
            summary: opts
                .summary
                .as_ref()
                .map(|s| dir.join(s.file_name().unwrap())),
            // One worker unless the caller says otherwise: an append buffer's order (the
            // histogram example's list) depends on how groups are spread over workers,
            // and D3D leaves it open; on one worker each run is deterministic.
            threads: opts.threads.or(Some(1)),
            wave_size: opts.wave_size,
            profile: opts.profile.clone(),
            allow_outside: opts.allow_outside,
            max_seconds: opts.max_seconds,
            progress: None,
        };
        results.push(dxlane::job::run_job(path, &o)?);
    }
    let jit = results.pop().unwrap();
    let interp = results.pop().unwrap();
    assert_eq!(
        interp.summary.outputs.len(),
        jit.summary.outputs.len(),
        "{tag}: the engines wrote different outputs"
    );
    for (a, b) in interp.summary.outputs.iter().zip(&jit.summary.outputs) {
        let (x, y) = (
            std::fs::read(&a.path).unwrap(),
            std::fs::read(&b.path).unwrap(),
        );
        assert!(
            x == y,
            "{tag}: {} and {} differ between the engines",
            a.path,
            b.path
        );
    }
    assert_eq!(
        interp.summary.expectations.passed, jit.summary.expectations.passed,
        "{tag}: expectations differ between the engines"
    );
    Ok(jit)
}
