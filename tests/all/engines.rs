//! Both engines pass every integration test.
//!
//! A plain `cargo test` runs the suite under the default engine (the native one, wherever
//! a program runs through a job, `pipeline::dispatch`, a draw or `exec::StageProgram`).
//! This test runs the same test binary again with `DXLANE_ENGINE=interp`, so every test
//! that runs a program also runs under the interpreter, and fails with the child's
//! report when any test fails there. Tests comparing the two engines directly, bit for
//! bit, are in `jit.rs`, `exec_arith_table.rs`, `job.rs` and `corpus_jobs.rs`.

use std::process::Command;

use crate::common;

#[test]
fn every_test_under_the_interpreter() {
    // The child itself (or a run the user already pinned to one engine), and blessing
    // runs (one writer per snapshot), do not start another run.
    if std::env::var_os("DXLANE_ENGINE").is_some() || std::env::var_os("DXLANE_BLESS").is_some() {
        eprintln!("DXLANE_ENGINE or DXLANE_BLESS is set: the interpreter's run is not started");
        return;
    }
    // Fetch the corpora here first, so that the two runs never fetch them at once.
    let _ = common::corpora();
    let exe = std::env::current_exe().expect("the test binary's path");
    let out = Command::new(exe)
        .env("DXLANE_ENGINE", "interp")
        .args(["--skip", "engines::", "--quiet"])
        .output()
        .expect("start the test binary again");
    let text = String::from_utf8_lossy(&out.stdout);
    let err = String::from_utf8_lossy(&out.stderr);
    let tail = |s: &str| {
        let mut i = s.len().saturating_sub(12_000);
        while !s.is_char_boundary(i) {
            i += 1;
        }
        s[i..].to_string()
    };
    assert!(
        out.status.success(),
        "under DXLANE_ENGINE=interp the suite failed:\n{}\n{}",
        tail(&text),
        tail(&err)
    );
    assert!(
        text.contains("test result: ok"),
        "the interpreter's run reported no result:\n{}",
        tail(&text)
    );
}
