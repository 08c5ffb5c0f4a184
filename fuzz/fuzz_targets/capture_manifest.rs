//! Capture manifests (`capture.toml`): any bytes must be refused naming the entry or the
//! byte, or compared — never a panic, an abort, a hang, or a read outside the capture
//! folder. The body is `bodies::capture_manifest`, which `tests/all/fuzz_bodies.rs` also
//! runs on mutated seeds in every `cargo test`.
#![no_main]

#[path = "../bodies.rs"]
mod bodies;

use std::path::PathBuf;
use std::sync::OnceLock;

fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("dxlane-fuzz-cap-{}", std::process::id()));
        bodies::prepare_dir(&d).expect("the fuzz folder");
        d
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    bodies::capture_manifest(dir(), data);
});
