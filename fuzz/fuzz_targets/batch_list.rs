//! `dxlane batch` case lists and baseline lists: any bytes must be refused naming the list
//! and line, or read — never a panic. The body is `bodies::batch_lists`, which
//! `tests/all/fuzz_bodies.rs` also runs on mutated seeds in every `cargo test`.
#![no_main]

#[path = "../bodies.rs"]
mod bodies;

use std::path::PathBuf;
use std::sync::OnceLock;

fn dir() -> &'static PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(|| {
        let d = std::env::temp_dir().join(format!("dxlane-fuzz-batch-list-{}", std::process::id()));
        std::fs::create_dir_all(&d).expect("the fuzz folder");
        d
    })
}

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    bodies::batch_lists(dir(), data);
});
