//! Offload test suite pipelines (`dxlane offload`): any bytes must be refused naming the
//! line or field, or run — never a panic, an abort or a hang. The body is
//! `bodies::offload_pipeline`, which `tests/all/fuzz_bodies.rs` also runs on mutated
//! seeds in every `cargo test`.
#![no_main]

#[path = "../bodies.rs"]
mod bodies;

use std::path::PathBuf;
use std::sync::OnceLock;

fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("dxlane-fuzz-offload-{}", std::process::id()));
        bodies::prepare_dir(&d).expect("the fuzz folder");
        d
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    bodies::offload_pipeline(dir(), data);
});
