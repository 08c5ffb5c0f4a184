//! The lane debugger's cost (`cargo bench --bench debug`): the time to reach a breakpoint
//! deep in a large dispatch against a normal run of the same dispatch, the tracing rate of
//! the observed wave, and the time to a breakpoint on a pixel lane of a draw against a
//! normal draw. Prints medians and ranges of several runs; asserts nothing.
//!
//! The dispatch is examples/mandelbrot.toml (1024 × 1024 threads, 16384 groups); the lane
//! is thread (340, 512, 0), which never escapes and so runs all 256 iterations (6422 DXBC
//! instructions), and the breakpoint is its 256th pass over the loop's escape test. The
//! draw is examples/fullscreen.toml (one triangle over 128 × 128 pixels); the lane is
//! pixel (100, 90), and the breakpoint the program's last instruction before `ret`.

use std::time::Instant;

use dxlane::debug::record::Recorder;
use dxlane::debug::{self, DebugOptions, Debugger, LaneSelect};
use dxlane::exec::{DescriptorTable, GroupHooks, GroupRunner, Program};
use dxlane::job::draw_run::prepare_draw;
use dxlane::job::{Job, RunOptions};
use dxlane::pipeline::dispatch::thread_layout;

const RUNS: usize = 5;

fn stats(mut v: Vec<f64>) -> (f64, f64, f64) {
    v.sort_by(|a, b| a.partial_cmp(b).unwrap());
    (v[v.len() / 2], v[0], v[v.len() - 1])
}

fn show(what: &str, v: Vec<f64>, unit: &str) -> f64 {
    let (m, lo, hi) = stats(v);
    println!("{what:<58} median {m:>10.3} {unit} (range {lo:.3}–{hi:.3})");
    m
}

fn main() {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let job = Job::load(&root.join("examples/mandelbrot.toml")).unwrap();
    let threads = std::env::var("DXLANE_BENCH_THREADS")
        .ok()
        .and_then(|t| t.parse().ok())
        .unwrap_or(0);
    let p = dxlane::job::prepare(
        job,
        &RunOptions {
            threads: Some(threads),
            ..RunOptions::default()
        },
    )
    .unwrap();
    let target = debug::from_job(&p).unwrap();
    println!(
        "mandelbrot 1024 × 1024, {} worker threads (0 = all cores)",
        target.plan.threads
    );

    let mut normal = Vec::new();
    for _ in 0..RUNS {
        let t = Instant::now();
        target.run_normal().unwrap();
        normal.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let n = show("normal run", normal, "ms");

    let (mut open, mut reach, mut total) = (Vec::new(), Vec::new(), Vec::new());
    let mut steps = 0;
    for _ in 0..RUNS {
        let t = Instant::now();
        let mut d = Debugger::open(
            target.clone(),
            LaneSelect::Thread([340, 512, 0]),
            DebugOptions::default(),
        )
        .unwrap();
        let opened = t.elapsed().as_secs_f64() * 1e3;
        let t2 = Instant::now();
        d.execute("break 29 if r1.x == 255").unwrap();
        let r = d.execute("continue").unwrap();
        assert!(r.starts_with("breakpoint 1"), "{r}");
        let reached = t2.elapsed().as_secs_f64() * 1e3;
        steps = d.position();
        open.push(opened);
        reach.push(reached);
        total.push(opened + reached);
    }
    show(
        "open a session (the whole dispatch, one wave recorded)",
        open,
        "ms",
    );
    show(
        &format!("then `continue` to the breakpoint at step {steps}"),
        reach,
        "ms",
    );
    let b = show("time to the deep breakpoint, in all", total, "ms");
    println!("{:<58} {:>10.2}×", "… against the normal run", b / n);

    // Tracing rate: the lane's group alone, traced and not, in the debug lowering.
    let shader = &target.program.debug_shader;
    let b = &target.bindings;
    let table = DescriptorTable::new(shader, &b.ranges, &b.resource_heap, &b.sampler_heap).unwrap();
    let (layout, _) = thread_layout(shader.thread_group);
    let program = Program::new(
        shader,
        table,
        target.plan.profile.clone(),
        target.plan.limits,
        8,
        layout,
    )
    .unwrap();
    let group = [42, 64, 0];
    let (mut plain, mut traced, mut rate) = (Vec::new(), Vec::new(), Vec::new());
    let mut wave_steps = 0;
    for _ in 0..RUNS {
        let mut r = GroupRunner::new(&program);
        let t = Instant::now();
        r.run(group).unwrap();
        plain.push(t.elapsed().as_secs_f64() * 1e3);
        let mut rec = Recorder::new(shader, 256 << 20);
        let t = Instant::now();
        r.run_with(
            group,
            GroupHooks {
                writes: None,
                observe: Some((1, &mut rec)),
                shared_init: &[],
            },
        )
        .unwrap();
        let s = t.elapsed().as_secs_f64();
        traced.push(s * 1e3);
        wave_steps = rec.finish().steps.len();
        rate.push(wave_steps as f64 / s / 1e6);
    }
    show("the lane's group, untraced (8 waves)", plain, "ms");
    show("the same group, one wave traced", traced, "ms");
    show(
        &format!("tracing rate ({wave_steps} wave steps recorded)"),
        rate,
        "M steps/s",
    );

    draw_case(root, threads);
}

/// A pixel lane of a draw: opening the session (the draw twice: once to find the lane,
/// once traced) and continuing to a breakpoint, against a normal draw.
fn draw_case(root: &std::path::Path, threads: usize) {
    let job = Job::load(&root.join("examples/fullscreen.toml")).unwrap();
    let p = prepare_draw(
        job,
        &RunOptions {
            threads: Some(threads),
            ..RunOptions::default()
        },
    )
    .unwrap();
    let target = debug::from_job(&p).unwrap();
    println!("fullscreen 128 × 128 draw, {threads} worker threads (0 = all cores)");
    let mut normal = Vec::new();
    for _ in 0..RUNS {
        let t = Instant::now();
        target.run_normal().unwrap();
        normal.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let n = show("normal draw", normal, "ms");
    let mut total = Vec::new();
    let mut steps = 0;
    for _ in 0..RUNS {
        let t = Instant::now();
        let mut d = Debugger::open(
            target.clone(),
            LaneSelect::Pixel {
                x: 100,
                y: 90,
                sample: 0,
                prim: 0,
            },
            DebugOptions::default(),
        )
        .unwrap();
        d.execute("break 15").unwrap();
        let r = d.execute("continue").unwrap();
        assert!(r.starts_with("breakpoint 1"), "{r}");
        steps = d.position();
        total.push(t.elapsed().as_secs_f64() * 1e3);
    }
    let b = show(
        &format!("open a pixel lane and continue to step {steps}"),
        total,
        "ms",
    );
    println!("{:<58} {:>10.2}×", "… against the normal draw", b / n);
}
