//! vkd3d-format shader-test files (`dxlane shader-test`): any bytes must be refused naming
//! the line, or read and run — never a panic, an abort or a hang. The body is
//! `bodies::shader_test_file`, which `tests/all/fuzz_bodies.rs` also runs on mutated
//! seeds in every `cargo test`.
#![no_main]

#[path = "../bodies.rs"]
mod bodies;

use std::path::PathBuf;
use std::sync::OnceLock;

fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("dxlane-fuzz-shader-test-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("the fuzz folder");
        d
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    bodies::shader_test_file(dir(), data);
});
