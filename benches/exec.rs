//! Interpreter throughput: an ALU-bound Mandelbrot (1024 × 1024 threads in 8 × 8 groups,
//! up to 256 iterations, iteration counts written to a structured buffer), in
//! lane-instructions per second on one and two worker threads.
//!
//! `cargo bench --bench exec` runs it under criterion (throughput in elements/s, where an
//! element is one lane-instruction) and then prints the medians of a few timed runs with
//! the 1 → 2 thread scaling.

use std::time::{Duration, Instant};

use criterion::{Criterion, Throughput};
use dxlane::ir::{Shader, parse_shader, validate};
use dxlane::pipeline::{Bindings, DispatchReport, Plan, dispatch};
use dxlane::resources::{BufferKind, BufferView, Descriptor, Memory};

const SIZE: u32 = 1024;

/// Mandelbrot over [−2, 1] × [−1.5, 1.5]: per pixel, iterate z ← z² + c while |z|² < 4
/// and fewer than 256 iterations; store the count.
const MANDELBROT: &str = "shader compute
group [8 8 1]
const r0 = 0
const r1 = 1
const r2 = 256
const r3 = 0x40800000    ; 4.0
const r4 = 0x3b400000    ; 3 / 1024
const r5 = 0xc0000000    ; -2.0
const r6 = 0x3b400000    ; 3 / 1024
const r7 = 0xbfc00000    ; -1.5
const r8 = 1024
const r9 = 0x40000000    ; 2.0
resource range0 = uav space 0 lower 0 count 1 structured_buffer(stride 4) uint \"iterations\"
block0:
    sysval thread_id, 0, r10
    sysval thread_id, 1, r11
    utof r12, r10
    utof r13, r11
    fmad r12, r12, r4, r5
    fmad r13, r13, r6, r7
    mov r14, r0
    mov r15, r0
    mov r16, r0
    jump block1
block1:
    fmul r17, r14, r14
    fmul r18, r15, r15
    fadd r19, r17, r18
    fcmp lt, r20, r19, r3
    icmp ult, r21, r16, r2
    and r20, r20, r21
    branch r20, block2, block3
block2:
    fmul r22, r14, r15
    fmad r15, r22, r9, r13
    fsub r14, r17, r18
    fadd r14, r14, r12
    iadd r16, r16, r1
    jump block1
block3:
    imul r23, r11, r8
    iadd r23, r23, r10
    handle r24, range0, r0
    struct_store b32, 1, r24, r23, r0, [r16 _ _ _]
    return
";

fn shader() -> Shader {
    let s = parse_shader(MANDELBROT).expect("parse");
    validate(&s).expect("valid");
    s
}

fn bindings() -> (Bindings, Memory) {
    let m = Memory::zeroed(u64::from(SIZE * SIZE) * 4).expect("memory");
    let d = Descriptor::Buffer {
        view: BufferView::whole(m.clone(), BufferKind::Structured { stride: 4 }),
        counter: None,
    };
    (
        Bindings {
            ranges: vec![vec![d]],
            ..Bindings::default()
        },
        m,
    )
}

fn run(s: &Shader, b: &Bindings, threads: usize) -> DispatchReport {
    let o = Plan {
        threads,
        ..Plan::default()
    };
    dispatch(s, b, [SIZE / 8, SIZE / 8, 1], &o, None).expect("dispatch")
}

/// Seconds of CPU time this process has used (user + system), from `/proc/self/stat`
/// (Linux; `None` elsewhere). Clock ticks are taken as 100 per second, Linux's `USER_HZ`.
fn cpu_seconds() -> Option<f64> {
    let stat = std::fs::read_to_string("/proc/self/stat").ok()?;
    let after = &stat[stat.rfind(')')? + 2..];
    let f: Vec<&str> = after.split_whitespace().collect();
    let ticks: f64 = f.get(11)?.parse::<f64>().ok()? + f.get(12)?.parse::<f64>().ok()?;
    Some(ticks / 100.0)
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn main() {
    let s = shader();
    let (b, m) = bindings();
    let report = run(&s, &b, 1);
    let lane_instructions = report.lane_instructions;
    // Sanity: the centre of the set never escapes, the far corner escapes at once.
    let words = m.to_bytes();
    let at = |x: u32, y: u32| {
        let i = ((y * SIZE + x) * 4) as usize;
        u32::from_le_bytes([words[i], words[i + 1], words[i + 2], words[i + 3]])
    };
    assert_eq!(at(SIZE / 2, SIZE / 2), 256);
    assert!(at(0, 0) <= 2);

    let mut c = Criterion::default()
        .configure_from_args()
        .sample_size(10)
        .warm_up_time(Duration::from_secs(1))
        .measurement_time(Duration::from_secs(20));
    {
        let mut g = c.benchmark_group("exec/mandelbrot_1024");
        g.throughput(Throughput::Elements(lane_instructions));
        for threads in [1usize, 2] {
            g.bench_function(format!("{threads}_threads"), |bench| {
                bench.iter(|| run(&s, &b, threads))
            });
        }
        g.finish();
    }
    c.final_summary();

    // A plain summary with the scaling, when benchmarking for real.
    if std::env::args().any(|a| a == "--bench") {
        // Wall-clock rates, and rates per second of CPU time the process got: on a shared
        // machine the second shows whether the workers themselves lose anything.
        let mut rates = Vec::new();
        for threads in [1usize, 2] {
            let mut wall = Vec::new();
            let mut cpu = Vec::new();
            for _ in 0..5 {
                let (t, c) = (Instant::now(), cpu_seconds());
                run(&s, &b, threads);
                wall.push(t.elapsed().as_secs_f64());
                if let (Some(c0), Some(c1)) = (c, cpu_seconds()) {
                    cpu.push(c1 - c0);
                }
            }
            let rate = lane_instructions as f64 / median(wall);
            let per_cpu = if cpu.is_empty() {
                String::new()
            } else {
                format!(
                    ", {:.0} million per CPU-second",
                    lane_instructions as f64 / median(cpu) / 1e6
                )
            };
            println!(
                "mandelbrot 1024x1024, {threads} thread(s): {:.0} million lane-instructions/s{per_cpu} ({} per run, wave size {}, {})",
                rate / 1e6,
                lane_instructions,
                report.wave_size,
                report.profile
            );
            rates.push(rate);
        }
        println!(
            "scaling 1 -> 2 threads (wall clock): {:.2}x",
            rates[1] / rates[0]
        );
    }
}
