//! What a command list costs per command: the same 1,000 small triangles drawn into
//! one 1920×1080 target by 1,000 draws of one triangle and by one draw of all of them
//! (issue "Frames", Performance: a list of N draws must not cost N full-target copies;
//! target within 1.5× of the one draw), and the 1,000 draws each inside an occlusion
//! query (`begin_query` / `end_query`, then one `resolve_query_data`) against the same
//! draws without queries.
//!
//! ```sh
//! cargo bench --bench lists
//! cargo bench --bench lists -- native     # one engine
//! cargo bench --bench lists -- native many  # one case alone (one, many, queried), for a profiler
//! ```
//!
//! Every case is a command list (a `clear_render_target`, then the draws), prepared
//! once and run `RUNS` times after one warm-up run (which compiles under the native
//! engine), so only the list's run is timed: no file reading or writing. Reports each
//! case's median and range and the ratios of the medians, measured in the same process.
//! On one worker every draw runs on the calling thread, so that case also reports the
//! thread's CPU time (`CLOCK_THREAD_CPUTIME_ID`): on a machine other work shares, the
//! wall time measures the machine as much as the list, and the CPU time much less.
//! The triangles come from a fixed generator: each about 20 pixels across, spread over
//! the whole target, drawn by `shaders/draw_color.hlsl`.

/// The command line's allocator, so that the draws are measured as `dxlane run` runs them
/// (`resources::memory::LargePages`).
#[global_allocator]
static ALLOCATOR: dxlane::resources::memory::LargePages = dxlane::resources::memory::LargePages;

use std::path::{Path, PathBuf};
use std::time::Instant;

use dxlane::exec::jit::Engine;
use dxlane::job::{Job, RunOptions, prepare};
use dxlane::pipeline::{Hooks, WorkReport};

/// Runs measured per case (after one warm-up run).
const RUNS: usize = 7;
const WIDTH: u32 = 1920;
const HEIGHT: u32 = 1080;
const TRIANGLES: u32 = 1000;

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scratch() -> PathBuf {
    let d = root().join("target/tmp/lists_bench");
    std::fs::create_dir_all(&d).expect("scratch folder");
    d
}

/// The calling thread's CPU time in seconds (`CLOCK_THREAD_CPUTIME_ID`, which the
/// kernel brings up to date when asked; `/proc/thread-self/schedstat` only moves at a
/// scheduler tick, 4 ms here, too coarse for a 10 ms list); `None` where the clock
/// fails. The one `unsafe` call of the benchmarks: std has no thread CPU clock, and the
/// tick-driven files measured 8.00, 12.00 and 20.00 ms for lists of 9 and 18 ms.
#[allow(unsafe_code)]
fn thread_cpu_seconds() -> Option<f64> {
    let mut t = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `clock_gettime` writes one `timespec` through the pointer, which points
    // at a live, writable local of that type; the clock id is a constant it knows.
    let r = unsafe { libc::clock_gettime(libc::CLOCK_THREAD_CPUTIME_ID, &mut t) };
    (r == 0).then(|| t.tv_sec as f64 + t.tv_nsec as f64 / 1e9)
}

fn stats(mut t: Vec<f64>) -> (f64, f64, f64) {
    t.sort_by(f64::total_cmp);
    (t[t.len() / 2], t[0], t[t.len() - 1])
}

/// The triangles' vertices (x, y in clip space, then an RGBA colour), from a fixed
/// linear congruential generator so every run draws the same picture.
fn vertices() -> Vec<f32> {
    let mut seed = 0x2545_f491_u32;
    let mut next = move || {
        seed = seed.wrapping_mul(1_664_525).wrapping_add(1_013_904_223);
        (seed >> 8) as f32 / (1u32 << 24) as f32
    };
    // About 20 pixels across: 20 / 960 of clip space horizontally, 20 / 540 vertically.
    let (sx, sy) = (20.0 / (WIDTH as f32 / 2.0), 20.0 / (HEIGHT as f32 / 2.0));
    let mut v = Vec::with_capacity(TRIANGLES as usize * 18);
    for _ in 0..TRIANGLES {
        let (cx, cy) = (next() * 1.9 - 0.95, next() * 1.9 - 0.95);
        let colour = [next(), next(), next(), 1.0];
        for (dx, dy) in [(-0.5, -0.5), (0.0, 0.5), (0.5, -0.5)] {
            v.extend([cx + dx * sx, cy + dy * sy]);
            v.extend(colour);
        }
    }
    v
}

/// A list job: a clear, then `draws` draws of `TRIANGLES / draws` triangles each, each
/// inside an occlusion query of its own when `queries`.
fn write_job(dir: &Path, name: &str, draws: u32, queries: bool) -> PathBuf {
    let shaders = root().join("shaders");
    let vs = shaders.join("draw_color.vs_5_0.dxbc");
    let ps = shaders.join("draw_color.ps_5_0.dxbc");
    let data: Vec<String> = vertices().iter().map(|f| format!("{f}")).collect();
    let mut job = format!(
        "[[resource]]\nname = \"verts\"\nkind = \"raw_buffer\"\nsize = {}\ndata = {{ f32 = [{}] }}\n\n\
         [[resource]]\nname = \"color\"\nkind = \"texture2d\"\nformat = \"R8G8B8A8_UNORM\"\nwidth = {WIDTH}\nheight = {HEIGHT}\n\n\
         [[resource]]\nname = \"results\"\nkind = \"raw_buffer\"\nsize = {}\n\n",
        data.len() * 4,
        data.join(", "),
        u64::from(draws) * 8,
    );
    if queries {
        job +=
            &format!("[[query_heap]]\nname = \"occ\"\ntype = \"OCCLUSION\"\ncount = {draws}\n\n");
    }
    job += "[[command]]\ntype = \"clear_render_target\"\nresource = \"color\"\ncolor = [0.1, 0.1, 0.15, 1]\n";
    let per = TRIANGLES / draws * 3;
    for i in 0..draws {
        let q = |t: &str| {
            format!(
                "\n[[command]]\ntype = \"{t}\"\nheap = \"occ\"\nindex = {i}\nquery = \"OCCLUSION\"\n"
            )
        };
        if queries {
            job += &q("begin_query");
        }
        job += &format!(
            "\n[[command]]\ntype = \"draw\"\nvertex_count = {per}\nstart_vertex = {}\nvs = {vs:?}\nps = {ps:?}\n\
             vertex_buffers = [{{ slot = 0, resource = \"verts\", stride = 24 }}]\n\
             input_element = [{{ semantic = \"POSITION\", format = \"R32G32_FLOAT\" }}, {{ semantic = \"COLOR\", format = \"R32G32B32A32_FLOAT\" }}]\n\
             render_targets = [{{ resource = \"color\" }}]\nrasterizer = {{ cull = \"NONE\" }}\n",
            i * per
        );
        if queries {
            job += &q("end_query");
        }
    }
    if queries {
        job += &format!(
            "\n[[command]]\ntype = \"resolve_query_data\"\nheap = \"occ\"\nquery = \"OCCLUSION\"\nfirst = 0\ncount = {draws}\nbuffer = \"results\"\noffset = 0\n"
        );
    }
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, job).expect("job file");
    path
}

struct Case {
    /// Median CPU seconds of the calling thread per run (one worker only).
    cpu: Option<f64>,
    median: f64,
    min: f64,
    max: f64,
    pixels: u64,
    image: Vec<u8>,
}

fn measure(job: &Path, engine: Engine, threads: usize) -> Result<Case, String> {
    let opts = RunOptions {
        threads: Some(threads),
        engine: Some(engine),
        ..RunOptions::default()
    };
    dxlane::exec::jit::clear_cache();
    let loaded = Job::load(job).map_err(|e| e.to_string())?;
    let prepared = prepare(loaded, &opts).map_err(|e| e.to_string())?;
    let mut times = Vec::with_capacity(RUNS);
    let mut cpus = Vec::with_capacity(RUNS);
    let mut pixels = 0;
    for i in 0..=RUNS {
        let cpu = thread_cpu_seconds();
        let t = Instant::now();
        let r = prepared
            .run(None, Hooks::default())
            .map_err(|e| e.to_string())?;
        let s = t.elapsed().as_secs_f64();
        if let (Some(a), Some(b), true) = (cpu, thread_cpu_seconds(), i > 0) {
            cpus.push(b - a);
        }
        if let WorkReport::List(l) = &r {
            pixels = l.commands.iter().map(|c| c.pixels_shaded()).sum();
        }
        if i > 0 {
            times.push(s);
        }
    }
    let image = prepared
        .bound
        .resources
        .iter()
        .find(|e| e.name.contains("\"color\""))
        .and_then(|e| e.contents())
        .ok_or("no colour target")?;
    let (median, min, max) = stats(times);
    let cpu = (threads == 1 && cpus.len() == RUNS).then(|| stats(cpus).0);
    Ok(Case {
        cpu,
        median,
        min,
        max,
        pixels,
        image,
    })
}

fn main() {
    let filters: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let dir = scratch();
    let one = write_job(&dir, "one_draw", 1, false);
    let many = write_job(&dir, "many_draws", TRIANGLES, false);
    let queried = write_job(&dir, "many_draws_queried", TRIANGLES, true);
    println!(
        "{TRIANGLES} triangles of about 20 pixels into one {WIDTH}×{HEIGHT} R8G8B8A8_UNORM target; median of {RUNS} runs (after one warm-up), range in brackets"
    );
    for (engine, name) in [(Engine::Interp, "interp"), (Engine::Jit, "native")] {
        let engines = ["interp", "native"];
        if filters.iter().any(|f| engines.contains(&f.as_str()))
            && !filters.iter().any(|f| f == name)
        {
            continue;
        }
        for threads in [1, 2] {
            let run = |job: &Path| measure(job, engine, threads);
            // Named cases alone (for a profiler): no ratios.
            let only: Vec<(&str, &PathBuf)> =
                [("one", &one), ("many", &many), ("queried", &queried)]
                    .into_iter()
                    .filter(|(n, _)| filters.iter().any(|f| f == n))
                    .collect();
            if !only.is_empty() {
                for (case, job) in only {
                    match run(job) {
                        Ok(x) => println!(
                            "{name:>6} {threads}w  {case:<8} {:8.2} ms  [{:.2} – {:.2}]",
                            x.median * 1e3,
                            x.min * 1e3,
                            x.max * 1e3
                        ),
                        Err(e) => println!("{name}, {threads} worker(s): {e}"),
                    }
                }
                continue;
            }
            let (a, b, c) = match (run(&one), run(&many), run(&queried)) {
                (Ok(a), Ok(b), Ok(c)) => (a, b, c),
                (a, b, c) => {
                    for e in [a.err(), b.err(), c.err()].into_iter().flatten() {
                        println!("{name}, {threads} worker(s): {e}");
                    }
                    continue;
                }
            };
            let line = |label: &str, x: &Case| {
                let cpu = x
                    .cpu
                    .map(|c| format!("  {:.2} ms CPU", c * 1e3))
                    .unwrap_or_default();
                println!(
                    "{name:>6} {threads}w  {label:<34} {:8.2} ms  [{:.2} – {:.2}]  {} pixels{cpu}",
                    x.median * 1e3,
                    x.min * 1e3,
                    x.max * 1e3,
                    x.pixels
                )
            };
            line("1 draw of 1,000 triangles", &a);
            line("1,000 draws of 1 triangle", &b);
            line("1,000 draws, an occlusion query each", &c);
            println!(
                "{name:>6} {threads}w  1,000 draws / 1 draw: {:.2}×   queries / none: {:.2}×   images identical: {}",
                b.median / a.median,
                c.median / b.median,
                a.image == b.image && b.image == c.image
            );
            if let (Some(ca), Some(cb), Some(cc)) = (a.cpu, b.cpu, c.cpu) {
                println!(
                    "{name:>6} {threads}w  by CPU time: 1,000 draws / 1 draw: {:.2}×   queries / none: {:.2}×",
                    cb / ca,
                    cc / cb
                );
            }
        }
    }
}
