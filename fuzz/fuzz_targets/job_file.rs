//! Job files (compute dispatches and draws): any bytes as a job file must be refused with
//! an error or run within the job's budgets — never a panic, an abort, a hang, or a write
//! outside the folder. The body is `bodies::job_file`, which `tests/all/fuzz_bodies.rs`
//! also runs on mutated seeds in every `cargo test`.
#![no_main]

#[path = "../bodies.rs"]
mod bodies;

use std::path::PathBuf;
use std::sync::OnceLock;

fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("dxlane-fuzz-job-{}", std::process::id()));
        bodies::prepare_dir(&d).expect("the fuzz folder");
        d
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    bodies::job_file(dir(), data);
});
