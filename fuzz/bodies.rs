//! The bodies of the job-file and capture-manifest fuzz targets as plain functions.
//!
//! The cargo-fuzz targets `job_file` and `capture_manifest` call them with the fuzzer's
//! bytes; `tests/all/fuzz_bodies.rs` calls them with mutated seeds for a bounded number of
//! cases in every `cargo test`, so CI runs them without a nightly toolchain. Each body
//! must return — an error is fine, a panic, an abort or a hang is the bug — and writes
//! only inside the folder it is given.

// Each fuzz target uses one body; the test uses both.
#![allow(dead_code)]

use std::path::Path;

use dxlane::capture::{CompareOptions, compare_job};
use dxlane::job::{Job, RunOptions};

/// A compute job over `double.ir` (out[i] = 2 in[i] + 1), a seed for [`job_file`].
pub const COMPUTE_SEED: &str = r#"[program]
cs = "double.ir"

[dispatch]
groups = [2, 1, 1]

[options]
max_seconds = 1.0

[[resource]]
reg = "t0"
kind = "structured_buffer"
stride = 4
data = { file = "in.bin" }

[[resource]]
reg = "u0"
kind = "structured_buffer"
stride = 4
size = 32
output = "out/u0.bin"

[[expect]]
reg = "u0"
u32 = [1, 3, 5, 7]
"#;

/// A draw job (a full-screen triangle), a seed for [`job_file`].
pub const DRAW_SEED: &str = r#"[program]
vs = "vs.ir"
ps = "ps.ir"

[draw]
vertex_count = 3
instance_count = 1

[[draw.render_target]]
format = "R8G8B8A8_UNORM"
width = 16
height = 16
samples = 1
clear = [0, 0, 0, 1]
output = "out/rt.png"

[draw.depth_stencil]
format = "D32_FLOAT"
output = "out/depth.bin"

[[expect]]
render_target = 0
offset = 0
hex = "08 08 7b ff"
"#;

/// A capture manifest of `seed.toml`'s `u0`, a seed for [`capture_manifest`].
pub const MANIFEST_SEED: &str = r#"job = "seed.toml"

[device]
adapter = "fuzz"
warp = "1.0.13"

[[resource]]
reg = "u0"
file = "u0.bin"
format = "R32_UINT"
layout = "tight"
tolerance = { ulp = 1 }
nan = "any"
"#;

/// The most memory a fuzzed job may ask for (its `max_memory` is lowered to this).
pub const MAX_MEMORY: u64 = 16 << 20;

/// Writes the files the seeds name into `dir`: the programs, an input, a job and a
/// capture folder of it.
pub fn prepare_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join("cap"))?;
    std::fs::write(
        dir.join("double.ir"),
        include_str!("../tests/jobs/double.ir"),
    )?;
    std::fs::write(
        dir.join("vs.ir"),
        include_str!("../shaders/draw_fullscreen.vs.ir"),
    )?;
    std::fs::write(
        dir.join("ps.ir"),
        include_str!("../shaders/draw_fullscreen.ps.ir"),
    )?;
    let words: Vec<u8> = (0u32..8).flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(dir.join("in.bin"), &words)?;
    std::fs::write(dir.join("seed.toml"), COMPUTE_SEED)?;
    let out: Vec<u8> = (0u32..8).flat_map(|w| (2 * w + 1).to_le_bytes()).collect();
    std::fs::write(dir.join("cap/u0.bin"), out)?;
    Ok(())
}

/// A job file made of the fuzzer's bytes, read, checked, bound and run — a dispatch or
/// a draw — with small limits (memory, time, one worker) and its outputs under
/// `dir/out-dir`. Never panics.
pub fn job_file(dir: &Path, data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(mut job) = Job::from_text(&text, &dir.join("job.toml")) else {
        return;
    };
    let o = &mut job.file.options;
    o.max_memory = Some(o.max_memory.unwrap_or(MAX_MEMORY).min(MAX_MEMORY));
    o.max_lane_instructions = Some(o.max_lane_instructions.unwrap_or(1 << 20).min(1 << 20));
    o.max_total_lane_instructions = Some(
        o.max_total_lane_instructions
            .unwrap_or(1 << 24)
            .min(1 << 24),
    );
    let opts = RunOptions {
        threads: Some(1),
        max_seconds: Some(0.5),
        out_dir: Some(dir.join("out-dir")),
        ..RunOptions::default()
    };
    if job.file.draw.is_some() {
        let _ = dxlane::job::run_draw_job(job, &opts);
    } else if let Ok(p) = dxlane::job::run::prepare(job, &opts) {
        let _ = p.execute(&opts);
    }
}

/// A capture manifest made of the fuzzer's bytes: parsed on its own, then written into a
/// capture folder and compared with the seed job (no images, no explanation reruns).
/// Never panics.
pub fn capture_manifest(dir: &Path, data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let cap = dir.join("cap");
    if dxlane::capture::Capture::parse(&text, &cap).is_err() {
        return;
    }
    if std::fs::write(cap.join("capture.toml"), data).is_err() {
        return;
    }
    let opts = CompareOptions {
        threads: Some(1),
        no_images: true,
        no_explain: true,
        any_job: true,
        ..CompareOptions::default()
    };
    let _ = compare_job(&dir.join("seed.toml"), &cap, &opts);
}
