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

/// Writes `text` to `path` whole, as one step for any reader: a job file several tests
/// write and run at once is written to a copy of its own and renamed into place, so no
/// test meets another's half-written file.
pub fn write_whole(path: &std::path::Path, text: &str) {
    static COPY: std::sync::atomic::AtomicU32 = std::sync::atomic::AtomicU32::new(0);
    let n = COPY.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let mut name = path.file_name().unwrap_or_default().to_os_string();
    name.push(format!(".{}.{n}", std::process::id()));
    let part = path.with_file_name(name);
    std::fs::write(&part, text).unwrap();
    std::fs::rename(&part, path).unwrap();
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
/// Under `DXLANE_REQUIRE_TOOLS=1` (CI, once it has found both tools) a missing tool
/// fails the test instead of skipping it, as the other peers' `DXLANE_REQUIRE_*` do.
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
    let why = format!("{} not found ({env} unset, not on PATH)", names[0]);
    if std::env::var_os("DXLANE_REQUIRE_TOOLS").is_some_and(|v| v == "1") {
        panic!("DXLANE_REQUIRE_TOOLS=1 but {why}: {skipped} cannot run");
    }
    eprintln!("{why}: {skipped} skipped");
    None
}

/// `vkd3d-compiler` (see [`tool`]) when it can do what the tests ask of it (see
/// [`check_vkd3d_compiler`]). One that cannot is skipped like a missing one, with a line
/// saying why, when it was found on `PATH`; when `VKD3D_COMPILER` names it, the test
/// fails with the same words instead.
pub fn vkd3d_compiler(skipped: &str) -> Option<std::ffi::OsString> {
    let compiler = tool("VKD3D_COMPILER", &["vkd3d-compiler"], skipped)?;
    static CHECKED: OnceLock<Result<(), String>> = OnceLock::new();
    match CHECKED.get_or_init(|| check_vkd3d_compiler(&compiler)) {
        Ok(()) => Some(compiler),
        Err(why) if std::env::var_os("VKD3D_COMPILER").is_some() => panic!("{why}"),
        Err(why) => {
            eprintln!("{why}: {skipped} skipped");
            None
        }
    }
}

/// The oldest vkd3d-compiler with what the tests use: `-p` (HLSL for a profile) and the
/// `d3d-asm` target. The tests and the committed programs are checked with 2.1.
pub const VKD3D_COMPILER_NEEDED: &str = "1.3 or newer (the tests are checked with 2.1)";

/// Whether `compiler` compiles HLSL for a profile (`-p`) and prints Direct3D assembly
/// (`-b d3d-asm`), tried on a one-line program; an `Err` names the version found, the
/// version needed and how to point the tests at another compiler. vkd3d 1.2 (Debian's
/// `vkd3d-compiler` package) has neither.
pub fn check_vkd3d_compiler(compiler: &std::ffi::OsStr) -> Result<(), String> {
    use std::process::Command;
    let shown = Path::new(compiler).display();
    let version = Command::new(compiler)
        .arg("--version")
        .output()
        .ok()
        .and_then(|o| {
            let text = String::from_utf8_lossy(&o.stdout).into_owned()
                + &String::from_utf8_lossy(&o.stderr);
            let at = text.find("version ")?;
            let v: String = text[at + 8..]
                .chars()
                .take_while(|c| c.is_ascii_digit() || *c == '.')
                .collect();
            (!v.is_empty()).then_some(v)
        })
        .unwrap_or_else(|| "of unknown version".into());
    // One folder per call: the test of an old compiler runs this beside the real check in
    // the same process, and a shared folder would be removed under the other's feet.
    static CALLS: std::sync::atomic::AtomicUsize = std::sync::atomic::AtomicUsize::new(0);
    let call = CALLS.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
    let dir = scratch().join(format!(
        "vkd3d-compiler-check-{}-{call}",
        std::process::id()
    ));
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let (hlsl, dxbc) = (dir.join("probe.hlsl"), dir.join("probe.cs_5_0.dxbc"));
    std::fs::write(&hlsl, "[numthreads(1, 1, 1)] void main() {}\n").map_err(|e| e.to_string())?;
    let ok = |args: &[&std::ffi::OsStr]| {
        Command::new(compiler)
            .args(args)
            .output()
            .is_ok_and(|o| o.status.success())
    };
    let compiles = ok(&[
        "-x".as_ref(),
        "hlsl".as_ref(),
        "-p".as_ref(),
        "cs_5_0".as_ref(),
        "-b".as_ref(),
        "dxbc-tpf".as_ref(),
        "-o".as_ref(),
        dxbc.as_os_str(),
        hlsl.as_os_str(),
    ]);
    let lists = compiles
        && ok(&[
            "-x".as_ref(),
            "dxbc-tpf".as_ref(),
            "-b".as_ref(),
            "d3d-asm".as_ref(),
            dxbc.as_os_str(),
        ]);
    let _ = std::fs::remove_dir_all(&dir);
    if lists {
        return Ok(());
    }
    let missing = if compiles {
        "the `d3d-asm` target"
    } else {
        "`-p` (HLSL profiles)"
    };
    Err(format!(
        "{shown} is vkd3d-compiler {version}, too old for the tests: it lacks {missing}; they need vkd3d-compiler {VKD3D_COMPILER_NEEDED}. Set VKD3D_COMPILER to a newer vkd3d-compiler (Debian's `vkd3d-compiler` package is 1.2)"
    ))
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
            default_engine: engine,
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

/// A vkd3d-compiler as old as Debian's (1.2: no `-p`, no `d3d-asm`) is named as too old,
/// with its version, the version needed and `VKD3D_COMPILER`, instead of failing a test
/// with a bare `assertion failed: status.success()`.
#[test]
fn an_old_vkd3d_compiler_is_named() {
    let dir = scratch().join(format!("old-vkd3d-compiler-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let fake = dir.join("vkd3d-compiler");
    // What 1.2 answers: its version, and an error for `-p`.
    std::fs::write(
        &fake,
        "#!/bin/sh\nif [ \"$1\" = --version ]; then echo 'vkd3d shader compiler version 1.2'; exit 0; fi\necho \"invalid option -- 'p'\" >&2\nexit 1\n",
    )
    .unwrap();
    use std::os::unix::fs::PermissionsExt;
    std::fs::set_permissions(&fake, std::fs::Permissions::from_mode(0o755)).unwrap();
    // A program just written can be "busy" while another test thread forks (Linux's
    // ETXTBSY), which reads as an unknown version: ask again.
    let mut why = String::new();
    for _ in 0..20 {
        why = check_vkd3d_compiler(fake.as_os_str()).unwrap_err();
        if !why.contains("unknown version") {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
    let _ = std::fs::remove_dir_all(&dir);
    for part in [
        "vkd3d-compiler 1.2",
        "too old",
        "`-p`",
        VKD3D_COMPILER_NEEDED,
        "VKD3D_COMPILER",
    ] {
        assert!(why.contains(part), "{why:?} does not say {part:?}");
    }
    // The compiler the tests use passes the same check.
    if let Some(c) = std::env::var_os("VKD3D_COMPILER") {
        check_vkd3d_compiler(&c).unwrap();
    }
}

/// Runs the job at `path`, whatever its kind (dispatch, draw, command list, rays), under
/// each engine, its outputs under `CARGO_TARGET_TMPDIR/engines/<tag>/<engine>`; returns
/// its expectations' mismatch lines and (passed, failed) counts, which must be the same
/// under both engines.
pub fn expect_both(path: &Path, tag: &str) -> Result<(Vec<String>, (usize, usize)), String> {
    use dxlane::exec::jit::Engine;
    use dxlane::job::Finished;
    let mut seen = Vec::new();
    for engine in [Engine::Interp, Engine::Jit] {
        let dir = scratch().join("engines").join(tag).join(engine.to_string());
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let opts = dxlane::job::RunOptions {
            engine: Some(engine),
            out_dir: Some(dir),
            default_engine: engine,
            ..run_options()
        };
        let job = dxlane::job::Job::load(path).map_err(|e| e.to_string())?;
        let done = dxlane::job::prepare(job, &opts)
            .and_then(|p| p.execute(&opts))
            .map_err(|e| format!("{engine}: {e}"))?;
        let e = match &done {
            Finished::Dispatch(r) => &r.summary.expectations,
            Finished::Draw(r) => &r.summary.expectations,
            Finished::List(r) => &r.summary.expectations,
            Finished::Rays(r) => &r.summary.expectations,
        };
        let lines: Vec<String> = e
            .results
            .iter()
            .filter(|x| !x.passed)
            .flat_map(|x| x.mismatch_lines())
            .collect();
        seen.push((lines, (e.passed, e.failed)));
    }
    let jit = seen.pop().unwrap();
    let interp = seen.pop().unwrap();
    assert_eq!(interp, jit, "{tag}: the engines' expectations differ");
    Ok(jit)
}

/// The engine the suite runs under: `DXLANE_ENGINE` (`jit` or `interp`), else the native
/// engine. The library reads no environment; the tests, like the command line, choose
/// and pass the engine down (see `tests/all/engines.rs`).
pub fn engine() -> dxlane::exec::jit::Engine {
    std::env::var("DXLANE_ENGINE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_default()
}

/// Run options with nothing overridden but the suite's engine as the default.
pub fn run_options() -> dxlane::job::RunOptions<'static> {
    dxlane::job::RunOptions {
        default_engine: engine(),
        ..dxlane::job::RunOptions::default()
    }
}

/// The default plan under the suite's engine.
pub fn plan() -> dxlane::pipeline::Plan {
    dxlane::pipeline::Plan {
        engine: engine(),
        ..dxlane::pipeline::Plan::default()
    }
}

/// Draw options with the default plan under the suite's engine, nothing observed.
pub fn draw_options() -> dxlane::pipeline::DrawOptions<'static> {
    dxlane::pipeline::DrawOptions::new(plan())
}

/// Holds hand-built files to what their builders make: each `(name, bytes)` must equal
/// the committed `folder/name` (a folder from the crate's root), or, with
/// `DXLANE_BLESS=1`, is written there instead.
pub fn check_built_files(folder: &str, files: Vec<(&str, Vec<u8>)>) {
    let dir = root().join(folder);
    let bless = std::env::var_os("DXLANE_BLESS").is_some();
    for (name, bytes) in files {
        let path = dir.join(name);
        if bless {
            std::fs::create_dir_all(&dir).unwrap();
            std::fs::write(&path, &bytes).unwrap();
            continue;
        }
        let old = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{name}: {e}; DXLANE_BLESS=1 writes it"));
        assert!(
            old == bytes,
            "{folder}/{name} differs from what its builder makes (DXLANE_BLESS=1 rewrites it)"
        );
    }
}
