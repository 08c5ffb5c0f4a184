//! Whole-process cost (`cargo bench --bench process`): `dxlane run` of a one-draw job —
//! a 1920 × 1080 full-screen pixel program, one bilinear sample of a 256 × 256 RGBA8
//! texture and 32 multiply-adds per pixel — started as a process, against the same job's
//! draw run in this process, in the same run. Asserts nothing.
//!
//! ```sh
//! cargo bench --bench process                          # 2 workers
//! DXLANE_BENCH_THREADS=1 cargo bench --bench process   # 1 worker
//! ```
//!
//! The job is written to a temporary folder (the programs in the IR's text form, the
//! texture as raw texels) twice: with its render target written as `.png`, and as
//! `.bin`. For each it prints medians of 7, with their ranges:
//!
//! - the draw in process (`Prepared::run`, no files written): the first run compiles
//!   the two shaders, the others reuse the code, as a driver compiles a shader once;
//! - the job in process (load, bind, draw, write the outputs and the summary) after the
//!   first;
//! - `dxlane run JOB --quiet --threads N` as a whole process, and the draw's time as
//!   that process's summary reports it (`elapsed_seconds`: the cold draw, compile
//!   included);
//!
//! and the whole process's time as a ratio to the in-process draw.

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use dxlane::job::{Job, RunOptions};
use dxlane::pipeline::Hooks;
use md5::{Digest, Md5};

const RUNS: usize = 7;
const WIDTH: u32 = 1920;
const HEIGHT: u32 = 1080;

/// The vertex program: one triangle from `SV_VertexID` that covers the target.
const VS: &str = "shader vertex\nregs 10\nconst r0 = 0x1\nconst r1 = 0x2\nconst r2 = 0x40800000\nconst r3 = 0x3f800000\nconst r4 = 0x0\nconst r5 = 0x40000000\nio_words in 4 out 4\ninput \"SV_VertexID\" 0 sv vertex_id reg 0 rows 1 mask x uint interp undefined slot 0\noutput \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0\nblock0:\n    input r6, 0\n    and r7, r6, r0\n    utof r7, r7\n    fmul r7, r7, r2\n    fsub r7, r7, r3\n    output 0, r7\n    and r8, r6, r1\n    utof r8, r8\n    fmul r8, r8, r5\n    fsub r8, r3, r8\n    output 1, r8\n    output 2, r4\n    output 3, r3\n    return\n";

/// The pixel program: a bilinear sample at `SV_Position.xy / 256` (wrapping), then 8
/// rounds of `c = c × 0.99 + 0.01` on each channel (the `vs_lavapipe` benchmark's).
fn pixel_program() -> String {
    let mut s = String::from(
        "shader pixel\nregs 24\nconst r0 = 0x0\nconst r1 = 0x3b800000\nconst r2 = 0x3f7d70a4\nconst r3 = 0x3c23d70a\nio_words in 4 out 4\ninput \"SV_Position\" 0 sv position reg 0 rows 1 mask xy float interp noperspective slot 0\noutput \"SV_Target\" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0\nresource range0 = srv space 0 lower 0 count 1 texture2d float \"t\"\nresource range1 = sampler space 0 lower 0 count 1 sampler mixed \"s\"\nblock0:\n    handle r4, range0, r0\n    handle r5, range1, r0\n    input r6, 0\n    input r7, 1\n    fmul r6, r6, r1\n    fmul r7, r7, r1\n    sample implicit, [r8 r9 r10 r11], r4, r5, [r6 r7 _ _], (0 0 0), [_ _], _, _, [_ _ _], [_ _ _], _, _\n",
    );
    for _ in 0..8 {
        for c in 8..12 {
            s.push_str(&format!("    fmad r{c}, r{c}, r2, r3\n"));
        }
    }
    for (k, c) in (8..12).enumerate() {
        s.push_str(&format!("    output {k}, r{c}\n"));
    }
    s.push_str("    return\n");
    s
}

/// A 256 × 256 RGBA8 checker with gradients, as raw texels.
fn checker() -> Vec<u8> {
    let mut t = Vec::with_capacity(256 * 256 * 4);
    for y in 0..256u32 {
        for x in 0..256u32 {
            let v = if ((x / 16) + (y / 16)) % 2 == 0 {
                220
            } else {
                40
            };
            t.extend_from_slice(&[v, x as u8, y as u8, 255]);
        }
    }
    t
}

/// Writes the job (programs, texture, job file) into `dir`, its target written as
/// `out/fill.EXT`; returns the job file's path.
fn write_job(dir: &Path, ext: &str) -> PathBuf {
    std::fs::create_dir_all(dir).expect("job folder");
    std::fs::write(dir.join("fill.vs.ir"), VS).expect("vs");
    std::fs::write(dir.join("fill.ps.ir"), pixel_program()).expect("ps");
    std::fs::write(dir.join("checker.bin"), checker()).expect("texture");
    let job = format!(
        r#"[program]
vs = "fill.vs.ir"
ps = "fill.ps.ir"

[draw]
vertex_count = 3

[draw.rasterizer]
cull = "NONE"

[[draw.render_target]]
format = "R8G8B8A8_UNORM"
width = {WIDTH}
height = {HEIGHT}
output = "out/fill.{ext}"

[[resource]]
reg = "t0"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = 256
height = 256
data = {{ file = "checker.bin" }}

[[resource]]
reg = "s0"
kind = "sampler"
filter = "MIN_MAG_LINEAR_MIP_POINT"
address = ["WRAP", "WRAP", "WRAP"]
"#
    );
    let path = dir.join(format!("fill_{ext}.toml"));
    std::fs::write(&path, job).expect("job file");
    path
}

/// Median, least and greatest.
fn stats(mut t: Vec<f64>) -> (f64, f64, f64) {
    t.sort_by(f64::total_cmp);
    (t[t.len() / 2], t[0], t[t.len() - 1])
}

fn show(what: &str, t: Vec<f64>) -> f64 {
    let (m, lo, hi) = stats(t);
    println!(
        "  {what:<44} {:7.1} ms  ({:.1}–{:.1})",
        m * 1e3,
        lo * 1e3,
        hi * 1e3
    );
    m
}

fn options(threads: usize) -> RunOptions<'static> {
    RunOptions {
        threads: Some(threads),
        ..RunOptions::default()
    }
}

/// The job's draw in process, `RUNS` times on one prepared job (no files written).
fn draws_in_process(job: &Path, threads: usize) -> (Vec<f64>, f64) {
    let prepared =
        dxlane::job::prepare(Job::load(job).expect("job"), &options(threads)).expect("prepare");
    // The first run compiles, as a process's only draw does; the others reuse the code.
    dxlane::exec::jit::clear_cache();
    let mut times = Vec::new();
    let mut first = 0.0;
    for k in 0..RUNS {
        let t = Instant::now();
        prepared.run(None, Hooks::default()).expect("draw");
        let s = t.elapsed().as_secs_f64();
        if k == 0 {
            first = s;
        }
        times.push(s);
    }
    (times, first)
}

/// The whole job in process (load, prepare, draw, outputs, summary), `RUNS` times after
/// one that is not counted.
fn jobs_in_process(job: &Path, threads: usize) -> Vec<f64> {
    let mut times = Vec::new();
    for k in 0..=RUNS {
        let t = Instant::now();
        let prepared =
            dxlane::job::prepare(Job::load(job).expect("job"), &options(threads)).expect("prepare");
        prepared.execute(&options(threads)).expect("run");
        if k > 0 {
            times.push(t.elapsed().as_secs_f64());
        }
    }
    times
}

/// `dxlane run JOB` as a process, `RUNS` times: wall times, and the draw's time as each
/// run's summary gives it.
fn processes(job: &Path, threads: usize) -> (Vec<f64>, Vec<f64>) {
    let summary = job.with_extension("summary.json");
    let (mut wall, mut drawn) = (Vec::new(), Vec::new());
    for _ in 0..RUNS {
        let t = Instant::now();
        let status = Command::new(env!("CARGO_BIN_EXE_dxlane"))
            .arg("run")
            .arg(job)
            .args(["--quiet", "--threads", &threads.to_string(), "--summary"])
            .arg(&summary)
            .status()
            .expect("start dxlane");
        wall.push(t.elapsed().as_secs_f64());
        assert!(status.success(), "dxlane run failed: {status}");
        let text = std::fs::read_to_string(&summary).expect("summary");
        let json: serde_json::Value = serde_json::from_str(&text).expect("summary JSON");
        drawn.push(json["elapsed_seconds"].as_f64().expect("elapsed_seconds"));
    }
    (wall, drawn)
}

fn main() {
    let threads = std::env::var("DXLANE_BENCH_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(2);
    let dir = std::env::temp_dir().join(format!("dxlane-process-{}", std::process::id()));
    println!(
        "one draw, {WIDTH} × {HEIGHT} full-screen pixel program (bilinear sample + 32 multiply-adds), {threads} worker{}; medians of {RUNS} (range)",
        if threads == 1 { "" } else { "s" }
    );
    for ext in ["png", "bin"] {
        let job = write_job(&dir, ext);
        println!("target written as .{ext}:");
        let (draws, first) = draws_in_process(&job, threads);
        println!(
            "  {:<44} {:7.1} ms",
            "first draw in process (compiles)",
            first * 1e3
        );
        let draw = show("draw in process", draws);
        show("job in process (outputs and summary written)", {
            jobs_in_process(&job, threads)
        });
        let (wall, drawn) = processes(&job, threads);
        show("draw in the process (its summary's time)", drawn);
        let whole = show("whole process (dxlane run)", wall);
        println!(
            "  whole process / draw in process: {:.2}x",
            whole / draw.max(1e-9)
        );
        // The file's digest, to check that a change to the process keeps its bytes.
        let bytes = std::fs::read(dir.join(format!("out/fill.{ext}"))).expect("output");
        let md5: String = Md5::digest(&bytes)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect();
        println!("  output: {} bytes, MD5 {md5}", bytes.len());
    }
    let _ = std::fs::remove_dir_all(&dir);
}
