//! The side-by-side benchmark: workloads run by dxlane on one and on two worker threads
//! and written in WGSL for wgpu on a CPU Vulkan adapter (Mesa's lavapipe), in the same
//! process:
//!
//! 1. the Mandelbrot of `examples/mandelbrot.toml` (`shaders/mandelbrot.hlsl`, 1024×1024
//!    threads in 8×8 groups, up to 256 iterations);
//! 2. a 1920×1080 full-screen pixel program: one bilinear texture sample and 32
//!    multiply-adds per pixel (Mpixels/s);
//! 3. 100,000 small depth-tested triangles from a vertex buffer into a 1024×1024 target
//!    with a 32-bit depth buffer (Mtriangles/s);
//!
//! with dxlane's time profile (setup, binning, raster, shading, output merger) for the
//! draws, and, after the Mandelbrot, this machine's single-precision FMA rate on two
//! threads (a kernel of independent fused multiply-add chains, 256- and 512-bit where
//! the processor has them) and the share of the best of them, the peak, that the
//! Mandelbrot's arithmetic reaches under each engine (`mandelbrot_flops` says what is
//! counted).
//!
//! ```sh
//! cargo bench --bench vs_lavapipe
//! cargo bench --bench vs_lavapipe -- draws fill jit   # one draw scene, one engine
//! cargo bench --bench vs_lavapipe -- mandelbrot        # the Mandelbrot and the peak only
//! ```
//!
//! `draws` skips the Mandelbrot; `mandelbrot` skips the draws; `fill` or `triangles`
//! keeps one draw scene; `jit` or `interp` keeps one engine.
//!
//! Reports medians of several runs (the machines are shared and noisy), dxlane's
//! lane-instructions per second, the 1 → 2 thread scaling, dxlane's time as a ratio to
//! lavapipe's, and how many of the 1,048,576 escape counts the two agree on (lavapipe may
//! contract `a * b + c` into a fused multiply-add, which WGSL allows; the DXBC program has
//! separate multiplies and adds). Without a CPU Vulkan adapter the lavapipe half says so
//! and the dxlane half still runs.
//!
//! dxlane runs under both engines (`interp`, and `jit` with its compile time), each in
//! process (the dispatch alone, program loaded) and as a whole process (`dxlane run
//! examples/mandelbrot.toml`: start, load, compile, dispatch, write the output); lavapipe
//! likewise in process (submit to read-back, pipeline compiled) and as a whole process
//! (this benchmark started again with `--lavapipe-process`: instance, device, WGSL
//! compile, one dispatch, read-back).

/// The command line's allocator, so that the draws are measured as `dxlane run` runs them
/// (`resources::memory::LargePages`).
#[global_allocator]
static ALLOCATOR: dxlane::resources::memory::LargePages = dxlane::resources::memory::LargePages;

use std::process::Command;
use std::time::Instant;

use dxlane::exec::jit::Engine;
use dxlane::ir::parse_shader;
use dxlane::lower::{self, LoadOptions};
use dxlane::pipeline::Plan;
use dxlane::pipeline::{
    Bindings, CullMode, DepthStencilView, DrawArgs, DrawOptions, DrawReport, DrawState,
    InputElementDesc, InputLayout, RenderTargetView, VertexBufferView, dispatch, draw,
};
use dxlane::resources::{
    AddressMode, BufferKind, BufferView, Descriptor, Filter, Format, Memory, SamplerDesc, Texture,
    TextureDesc, TextureView,
};

const SIZE: u32 = 1024;
const RUNS: usize = 7;

const WGSL: &str = r#"
@group(0) @binding(0) var<storage, read_write> result: array<u32>;

@compute @workgroup_size(8, 8, 1)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {
    let cx = f32(id.x) / 1024.0 * 3.0 - 2.0;
    let cy = f32(id.y) / 1024.0 * 3.0 - 1.5;
    var x = 0.0;
    var y = 0.0;
    var i = 0u;
    loop {
        if (i >= 256u) { break; }
        let x2 = x * x;
        let y2 = y * y;
        if (x2 + y2 > 4.0) { break; }
        y = 2.0 * x * y + cy;
        x = x2 - y2 + cx;
        i = i + 1u;
    }
    result[id.y * 1024u + id.x] = i;
}
"#;

/// Floating-point operations of the Mandelbrot for escape counts `counts`, as
/// `shaders/mandelbrot.hlsl` and the WGSL above write it: 6 for the point's coordinates
/// (a division, a multiplication and a subtraction each), 8 for each iteration that
/// runs whole (x², y², their sum, `2·x·y + cy` as two multiplications and an addition,
/// `x² − y² + cx` as two additions) and 3 for the one that escapes (x², y², their sum).
/// A count of 256 ran 256 whole iterations and no escaping one.
fn mandelbrot_flops(counts: &[u32]) -> f64 {
    counts
        .iter()
        .map(|&i| 6.0 + 8.0 * f64::from(i) + if i < 256 { 3.0 } else { 0.0 })
        .sum()
}

/// Independent chains of fused multiply-adds in the peak kernel: enough to cover the
/// operation's latency on both FMA units of the processors this runs on (4 cycles × 2).
const FMA_CHAINS: usize = 12;
/// Steps of the peak kernel per thread and run (each step one FMA per chain).
const FMA_STEPS: u64 = 8_000_000;

/// One thread of the peak kernel with 256-bit vectors: `FMA_CHAINS` chains of
/// `a = a × m + c` over 8 floats, `steps` times; returns a lane of the result so that
/// the work is not optimised away.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx2,fma")]
fn fma_chains_256(steps: u64) -> f32 {
    use std::arch::x86_64::*;
    let m = _mm256_set1_ps(0.999_999);
    let c = _mm256_set1_ps(1e-7);
    let mut acc = [_mm256_set1_ps(1.0); FMA_CHAINS];
    for _ in 0..steps {
        for a in &mut acc {
            *a = _mm256_fmadd_ps(*a, m, c);
        }
    }
    let mut sum = _mm256_setzero_ps();
    for a in acc {
        sum = _mm256_add_ps(sum, a);
    }
    _mm256_cvtss_f32(sum)
}

/// The same with 512-bit vectors (AVX-512F): on processors with a 512-bit FMA unit of
/// their own this doubles the peak; on those that split such an operation in two it
/// gives the 256-bit figure.
// AVX-512's intrinsics are stable from Rust 1.89, later than the library's declared
// minimum: only this benchmark uses them, and it is built with the toolchain CI installs.
#[cfg(target_arch = "x86_64")]
#[target_feature(enable = "avx512f")]
#[allow(clippy::incompatible_msrv)]
fn fma_chains_512(steps: u64) -> f32 {
    use std::arch::x86_64::*;
    let m = _mm512_set1_ps(0.999_999);
    let c = _mm512_set1_ps(1e-7);
    let mut acc = [_mm512_set1_ps(1.0); FMA_CHAINS];
    for _ in 0..steps {
        for a in &mut acc {
            *a = _mm512_fmadd_ps(*a, m, c);
        }
    }
    let mut sum = _mm512_setzero_ps();
    for a in acc {
        sum = _mm512_add_ps(sum, a);
    }
    _mm512_reduce_add_ps(sum)
}

/// This machine's single-precision FMA rate on `threads` threads in flop/s (an FMA
/// counts two) for each vector width the processor has: 256 bits (AVX2 with FMA) and
/// 512 bits (AVX-512F), each the median of 7 runs of all threads at once. The peak is
/// the larger. Empty off x86-64 or without FMA.
#[allow(unsafe_code)]
fn fma_rates(threads: usize) -> Vec<(u32, f64)> {
    let mut rates = Vec::new();
    #[cfg(target_arch = "x86_64")]
    for bits in [256u32, 512] {
        let run: fn(u64) -> f32 = match bits {
            256 if is_x86_feature_detected!("avx2") && is_x86_feature_detected!("fma") => {
                // SAFETY: the processor has AVX2 and FMA (checked just above), the only
                // requirement of calling a function compiled for them.
                |n| unsafe { fma_chains_256(n) }
            }
            512 if is_x86_feature_detected!("avx512f") => {
                // SAFETY: the processor has AVX-512F (checked just above).
                |n| unsafe { fma_chains_512(n) }
            }
            _ => continue,
        };
        let flops = 2.0 * (bits / 32) as f64 * FMA_CHAINS as f64 * FMA_STEPS as f64;
        let times: Vec<f64> = (0..RUNS)
            .map(|_| {
                let t = Instant::now();
                std::thread::scope(|sc| {
                    let hs: Vec<_> = (0..threads)
                        .map(|_| sc.spawn(move || std::hint::black_box(run(FMA_STEPS))))
                        .collect();
                    for h in hs {
                        let _ = h.join();
                    }
                });
                t.elapsed().as_secs_f64()
            })
            .collect();
        rates.push((bits, threads as f64 * flops / median(times)));
    }
    #[cfg(not(target_arch = "x86_64"))]
    let _ = threads;
    rates
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// What the in-process dxlane runs measured.
struct Measured {
    /// Median seconds per dispatch.
    seconds: f64,
    /// Lane-instructions per dispatch.
    lanes: u64,
    /// The escape counts.
    out: Vec<u32>,
    /// Threads run side by side.
    batch: u32,
    /// The native engine's compile time in the first run, in seconds (0 for the
    /// interpreter): the code is then kept, and the other runs reuse it.
    compile: f64,
    /// Median seconds per dispatch less its compile time: what lavapipe's in-process
    /// figure measures (its pipeline is built before its timing starts).
    running: f64,
}

/// dxlane in process: median seconds per dispatch, lane-instructions, output, compile
/// time (part of each dispatch's time).
fn dxlane_runs(threads: usize, engine: Engine) -> Measured {
    let path = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/shaders/mandelbrot.cs_5_0.dxbc"
    );
    let bytes = std::fs::read(path).expect("read the Mandelbrot program");
    let shader = lower::load(&bytes, &LoadOptions::default())
        .expect("load")
        .shader;
    let memory = Memory::zeroed(u64::from(SIZE * SIZE) * 4).expect("memory");
    let view = BufferView::whole(memory.clone(), BufferKind::Structured { stride: 4 });
    let bindings = Bindings {
        ranges: vec![vec![Descriptor::Buffer {
            view,
            counter: None,
        }]],
        resource_heap: Vec::new(),
        sampler_heap: Vec::new(),
    };
    let opts = Plan {
        threads,
        engine,
        ..dxlane::pipeline::Plan::default()
    };
    let mut times = Vec::new();
    let mut compile = Vec::new();
    let mut running = Vec::new();
    let mut lanes = 0;
    let mut batch = 0;
    // The first run compiles (as a program's first dispatch does), the others reuse it.
    dxlane::exec::jit::clear_cache();
    for _ in 0..RUNS {
        let t = Instant::now();
        let r =
            dispatch(&shader, &bindings, [SIZE / 8, SIZE / 8, 1], &opts, None).expect("dispatch");
        let all = t.elapsed().as_secs_f64();
        let c = r.jit.map_or(0.0, |j| j.compile_time.as_secs_f64());
        times.push(all);
        compile.push(c);
        running.push(all - c);
        lanes = r.lane_instructions;
        batch = r.batch_lanes;
    }
    Measured {
        seconds: median(times),
        lanes,
        out: words(&memory.to_bytes()),
        batch,
        compile: compile.first().copied().unwrap_or(0.0),
        running: median(running),
    }
}

/// dxlane as a whole process: median seconds of `dxlane run examples/mandelbrot.toml`.
fn dxlane_process(threads: usize, engine: Engine) -> f64 {
    let root = env!("CARGO_MANIFEST_DIR");
    let out = std::env::temp_dir().join(format!("dxlane-vs-lavapipe-{}", std::process::id()));
    let mut times = Vec::new();
    for _ in 0..RUNS {
        let t = Instant::now();
        let status = Command::new(env!("CARGO_BIN_EXE_dxlane"))
            .args(["run", "examples/mandelbrot.toml", "--quiet", "--threads"])
            .arg(threads.to_string())
            .args(["--engine", &engine.to_string(), "--out-dir"])
            .arg(&out)
            .current_dir(root)
            .status()
            .expect("start dxlane");
        times.push(t.elapsed().as_secs_f64());
        assert!(status.success(), "dxlane run failed: {status}");
    }
    let _ = std::fs::remove_dir_all(&out);
    median(times)
}

/// lavapipe as a whole process: this benchmark started again to run one dispatch.
fn lavapipe_process() -> Option<f64> {
    let exe = std::env::current_exe().ok()?;
    let mut times = Vec::new();
    for _ in 0..RUNS {
        let t = Instant::now();
        let status = Command::new(&exe).arg("--lavapipe-process").status().ok()?;
        times.push(t.elapsed().as_secs_f64());
        if !status.success() {
            return None;
        }
    }
    Some(median(times))
}

/// lavapipe: median seconds per dispatch (submit to results read back) and the output,
/// or why it could not run.
/// With `once`, a single dispatch including the first (the whole-process measurement).
fn lavapipe_runs(once: bool) -> Result<(f64, Vec<u32>, String), String> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::VULKAN;
    let instance = wgpu::Instance::new(desc);
    let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN));
    let adapter = adapters
        .into_iter()
        .find(|a| a.get_info().device_type == wgpu::DeviceType::Cpu)
        .ok_or("no CPU Vulkan adapter (install mesa-vulkan-drivers and libvulkan1)")?;
    let info = adapter.get_info();
    let name = format!("{} ({})", info.name, info.driver_info);
    let (device, queue) =
        pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default()))
            .map_err(|e| format!("request device: {e}"))?;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: Some("mandelbrot"),
        source: wgpu::ShaderSource::Wgsl(WGSL.into()),
    });
    let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: Some("mandelbrot"),
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let size = u64::from(SIZE * SIZE) * 4;
    let storage = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("result"),
        size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: Some("readback"),
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let bind_group = device.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[wgpu::BindGroupEntry {
            binding: 0,
            resource: storage.as_entire_binding(),
        }],
    });
    let mut times = Vec::new();
    let mut out = Vec::new();
    // One extra first run: pipeline compilation happens lazily in some drivers.
    let runs = if once { 0 } else { RUNS };
    for run in 0..=runs {
        let t = Instant::now();
        let mut encoder = device.create_command_encoder(&Default::default());
        {
            let mut pass = encoder.begin_compute_pass(&Default::default());
            pass.set_pipeline(&pipeline);
            pass.set_bind_group(0, &bind_group, &[]);
            pass.dispatch_workgroups(SIZE / 8, SIZE / 8, 1);
        }
        encoder.copy_buffer_to_buffer(&storage, 0, &readback, 0, size);
        queue.submit([encoder.finish()]);
        readback.slice(..).map_async(wgpu::MapMode::Read, |_| {});
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| format!("poll: {e}"))?;
        out = words(
            &readback
                .slice(..)
                .get_mapped_range()
                .map_err(|e| format!("map: {e}"))?,
        );
        readback.unmap();
        if run > 0 || once {
            times.push(t.elapsed().as_secs_f64());
        }
    }
    Ok((median(times), out, name))
}

fn main() {
    if std::env::args().any(|a| a == "draws") {
        draw_benches();
        return;
    }
    if std::env::args().any(|a| a == "--lavapipe-process") {
        let ok = lavapipe_runs(true).is_ok();
        std::process::exit(if ok { 0 } else { 1 });
    }
    println!("mandelbrot 1024x1024 (shaders/mandelbrot.cs_5_0.dxbc), medians of {RUNS} runs:");
    let mut table: Vec<(String, f64, f64, f64)> = Vec::new();
    let mut reference: Option<Vec<u32>> = None;
    // The native engine's two-worker time without compiling, for the share of the peak.
    let mut jit2: Option<f64> = None;
    for engine in [Engine::Interp, Engine::Jit] {
        let mut one = 0.0;
        for threads in [1, 2] {
            let m = dxlane_runs(threads, engine);
            match &reference {
                None => reference = Some(m.out.clone()),
                Some(r) => assert_eq!(
                    r, &m.out,
                    "dxlane's output depends on the engine or worker count"
                ),
            }
            let p = dxlane_process(threads, engine);
            if threads == 1 {
                one = m.seconds;
            }
            let compile = if engine == Engine::Jit {
                format!(
                    ", compile {:.1} ms in the first run (the others reuse it), {:.1} ms without compiling",
                    m.compile * 1e3,
                    m.running * 1e3
                )
            } else {
                String::new()
            };
            let scaling = if threads == 2 {
                format!(", 1 -> 2 threads {:.2}x", one / m.seconds)
            } else {
                String::new()
            };
            println!(
                "  dxlane {engine:6} {threads} thread{}: {:8.1} ms in process, {:8.1} ms whole process  ({:5.0} M lane-instructions/s, {} lanes side by side{compile}{scaling})",
                if threads == 1 { " " } else { "s" },
                m.seconds * 1e3,
                p * 1e3,
                m.lanes as f64 / m.seconds / 1e6,
                m.batch,
            );
            if engine == Engine::Jit && threads == 2 {
                jit2 = Some(m.running);
            }
            table.push((
                format!("dxlane {engine} {threads}t"),
                m.seconds,
                m.running,
                p,
            ));
        }
    }
    match lavapipe_runs(false) {
        Ok((tl, outl, name)) => {
            let pl = lavapipe_process();
            let out = reference.unwrap_or_default();
            let same = out.iter().zip(&outl).filter(|(a, b)| a == b).count();
            println!(
                "  lavapipe, {name}: {:8.1} ms in process, {} whole process",
                tl * 1e3,
                pl.map_or("-".into(), |p| format!("{:.1} ms", p * 1e3))
            );
            for (what, t, r, p) in &table {
                println!(
                    "  {what} / lavapipe time: {:5.1}x in process ({:.1}x without compiling, as lavapipe's figure), {} whole process",
                    t / tl,
                    r / tl,
                    pl.map_or("-".into(), |pl| format!("{:.1}x", p / pl))
                );
            }
            println!("  escape counts equal in {same} of {} points", out.len());
            peak_report(
                jit2.map(|t| (t, mandelbrot_flops(&out))),
                Some((tl, mandelbrot_flops(&outl))),
            );
        }
        Err(why) => {
            println!("  lavapipe: not run: {why}");
            let out = reference.unwrap_or_default();
            peak_report(jit2.map(|t| (t, mandelbrot_flops(&out))), None);
        }
    }
    if !std::env::args().any(|a| a == "mandelbrot") {
        draw_benches();
    }
}

/// Prints the machine's FMA peak on two threads and the share of it the Mandelbrot's
/// arithmetic reaches under dxlane's native engine (two workers, without compiling) and
/// under lavapipe, each as (seconds, flops).
fn peak_report(dxlane: Option<(f64, f64)>, lavapipe: Option<(f64, f64)>) {
    let rates = fma_rates(2);
    let Some(peak) = rates.iter().map(|r| r.1).reduce(f64::max) else {
        println!("  FMA peak: not measured (needs an x86-64 processor with FMA)");
        return;
    };
    for (bits, rate) in &rates {
        println!(
            "  FMA rate, 2 threads of {FMA_CHAINS} chains of {bits}-bit fused multiply-adds: {:.1} Gflop/s",
            rate / 1e9
        );
    }
    for (who, m) in [("dxlane jit 2t", dxlane), ("lavapipe", lavapipe)] {
        if let Some((t, flops)) = m {
            println!(
                "  {who}: {:.2} Gflop/s of the Mandelbrot's arithmetic, {:.1}% of the FMA peak",
                flops / t / 1e9,
                100.0 * flops / t / peak
            );
        }
    }
}

// ---- draws ------------------------------------------------------------------------------

const FS_W: u32 = 1920;
const FS_H: u32 = 1080;
const TRIANGLES: usize = 100_000;
const TRI_SIZE: u32 = 1024;

/// The full-screen pixel program: a bilinear sample of a 256×256 texture at
/// `SV_Position.xy / 256` (wrapping), then 8 rounds of `c = c × 0.99 + 0.01` on each of
/// the four channels (32 multiply-adds).
fn fullscreen_ps() -> String {
    let mut s = String::from(
        "shader pixel\nregs 24\nconst r0 = 0x0\nconst r1 = 0x3b800000    ; 1/256\nconst r2 = 0x3f7d70a4    ; 0.99\nconst r3 = 0x3c23d70a    ; 0.01\nio_words in 4 out 4\ninput \"SV_Position\" 0 sv position reg 0 rows 1 mask xy float interp noperspective slot 0\noutput \"SV_Target\" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0\nresource range0 = srv space 0 lower 0 count 1 texture2d float \"t\"    ; t0\nresource range1 = sampler space 0 lower 0 count 1 sampler mixed \"s\"    ; s0\nblock0:\n    handle r4, range0, r0\n    handle r5, range1, r0\n    input r6, 0\n    input r7, 1\n    fmul r6, r6, r1\n    fmul r7, r7, r1\n    sample implicit, [r8 r9 r10 r11], r4, r5, [r6 r7 _ _], (0 0 0), [_ _], _, _, [_ _ _], [_ _ _], _, _\n",
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

const FULLSCREEN_VS: &str = "shader vertex\nregs 10\nconst r0 = 0x1\nconst r1 = 0x2\nconst r2 = 0x40800000\nconst r3 = 0x3f800000\nconst r4 = 0x0\nconst r5 = 0x40000000\nio_words in 4 out 4\ninput \"SV_VertexID\" 0 sv vertex_id reg 0 rows 1 mask x uint interp undefined slot 0\noutput \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0\nblock0:\n    input r6, 0\n    and r7, r6, r0\n    utof r7, r7\n    fmul r7, r7, r2\n    fsub r7, r7, r3\n    output 0, r7\n    and r8, r6, r1\n    utof r8, r8\n    fmul r8, r8, r5\n    fsub r8, r3, r8\n    output 1, r8\n    output 2, r4\n    output 3, r3\n    return\n";

const TRI_VS: &str = "shader vertex\nregs 3\nconst r0 = 0x3f800000\nio_words in 4 out 4\ninput \"POSITION\" 0 sv none reg 0 rows 1 mask xyz float interp undefined slot 0\noutput \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0\nblock0:\n    input r1, 0\n    output 0, r1\n    input r1, 1\n    output 1, r1\n    input r1, 2\n    output 2, r1\n    output 3, r0\n    return\n";

const TRI_PS: &str = "shader pixel\nregs 3\nconst r0 = 0x3f800000\nconst r1 = 0x3f000000\nio_words in 4 out 4\ninput \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp noperspective slot 0\noutput \"SV_Target\" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0\nblock0:\n    input r2, 2\n    output 0, r2\n    output 1, r1\n    output 2, r0\n    output 3, r0\n    return\n";

fn checker() -> Vec<u8> {
    let mut t = Vec::with_capacity(256 * 256 * 4);
    for y in 0..256u32 {
        for x in 0..256u32 {
            let v = if ((x / 16) + (y / 16)) % 2 == 0 {
                220
            } else {
                40
            };
            t.extend_from_slice(&[v, (x & 255) as u8, (y & 255) as u8, 255]);
        }
    }
    t
}

/// 100,000 small triangles (about 12 pixels each) at random places and depths, as
/// float3 NDC positions.
fn triangles() -> Vec<f32> {
    let mut state = 0x2545_f491_4f6c_dd1du64;
    let mut next = || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        (state >> 11) as f32 / (1u64 << 53) as f32
    };
    let px = 2.0 / TRI_SIZE as f32;
    let mut v = Vec::with_capacity(TRIANGLES * 9);
    for _ in 0..TRIANGLES {
        let (cx, cy, z) = (next() * 2.0 - 1.0, next() * 2.0 - 1.0, next());
        v.extend_from_slice(&[
            cx,
            cy,
            z,
            cx + 5.0 * px,
            cy - 1.0 * px,
            z,
            cx + 1.0 * px,
            cy - 5.0 * px,
            z,
        ]);
    }
    v
}

struct DrawRun {
    median: f64,
    min: f64,
    max: f64,
    /// Median seconds per draw less its compile time (lavapipe's pipeline is built before
    /// its timing starts).
    running: f64,
    /// The first draw's compile time (the others reuse its code).
    compile: f64,
    report: DrawReport,
    image: Vec<u8>,
}

fn stats(mut t: Vec<f64>) -> (f64, f64, f64) {
    t.sort_by(f64::total_cmp);
    (t[t.len() / 2], t[0], t[t.len() - 1])
}

fn dxlane_fullscreen(threads: usize, engine: Engine) -> DrawRun {
    let vs = parse_shader(FULLSCREEN_VS).expect("vs");
    let ps = parse_shader(&fullscreen_ps()).expect("ps");
    let tex = Texture::from_bytes(
        TextureDesc::tex2d(Format::R8G8B8A8_UNORM, 256, 256),
        &checker(),
    )
    .expect("texture");
    let sampler = SamplerDesc {
        filter: Filter::from_name("MIN_MAG_LINEAR_MIP_POINT").expect("filter"),
        address: [AddressMode::Wrap; 3],
        ..SamplerDesc::default()
    };
    let vsb = Bindings::default();
    let psb = Bindings {
        ranges: vec![
            vec![Descriptor::Texture(TextureView::whole(tex))],
            vec![Descriptor::Sampler(sampler)],
        ],
        ..Bindings::default()
    };
    let rt = Texture::new(TextureDesc::tex2d(Format::R8G8B8A8_UNORM, FS_W, FS_H)).expect("rt");
    let mut st = DrawState::new(&vs, Some(&ps), &vsb, &psb);
    st.rasterizer.cull_mode = CullMode::None;
    st.render_targets = vec![Some(RenderTargetView {
        texture: rt.clone(),
    })];
    let args = DrawArgs {
        vertex_count: 3,
        ..DrawArgs::default()
    };
    let opts = DrawOptions {
        plan: dxlane::pipeline::Plan {
            threads,
            engine,
            ..dxlane::pipeline::Plan::default()
        },
        ..DrawOptions::default()
    };
    let mut times = Vec::new();
    let mut running = Vec::new();
    let mut compile = Vec::new();
    let mut report = None;
    // The first draw compiles, the others reuse its code.
    dxlane::exec::jit::clear_cache();
    for _ in 0..RUNS {
        let t = Instant::now();
        let r = draw(&st, &args, &opts).expect("draw");
        let all = t.elapsed().as_secs_f64();
        times.push(all);
        running.push(all - r.compile_seconds);
        compile.push(r.compile_seconds);
        report = Some(r);
    }
    let (median, min, max) = stats(times);
    DrawRun {
        median,
        min,
        max,
        running: stats(running).0,
        compile: compile.first().copied().unwrap_or(0.0),
        report: report.expect("ran"),
        image: rt.to_bytes(),
    }
}

fn dxlane_triangles(threads: usize, engine: Engine, verts: &[f32]) -> DrawRun {
    let vs = parse_shader(TRI_VS).expect("vs");
    let ps = parse_shader(TRI_PS).expect("ps");
    let none = Bindings::default();
    let bytes: Vec<u8> = verts.iter().flat_map(|f| f.to_le_bytes()).collect();
    let mut times = Vec::new();
    let mut running = Vec::new();
    let mut compile = Vec::new();
    let mut report = None;
    let mut image = Vec::new();
    // The first draw compiles, the others reuse its code.
    dxlane::exec::jit::clear_cache();
    for _ in 0..RUNS {
        let rt = Texture::new(TextureDesc::tex2d(
            Format::R8G8B8A8_UNORM,
            TRI_SIZE,
            TRI_SIZE,
        ))
        .expect("rt");
        let depth =
            Texture::new(TextureDesc::tex2d(Format::D32_FLOAT, TRI_SIZE, TRI_SIZE)).expect("depth");
        depth.memory().write_bytes(
            0,
            &1.0f32.to_le_bytes().repeat((TRI_SIZE * TRI_SIZE) as usize),
        );
        let mut st = DrawState::new(&vs, Some(&ps), &none, &none);
        st.input_layout = InputLayout {
            elements: vec![InputElementDesc {
                semantic: "POSITION".into(),
                semantic_index: 0,
                format: Format::R32G32B32_FLOAT,
                input_slot: 0,
                aligned_byte_offset: 0,
                instance_data_step_rate: 0,
            }],
        };
        st.vertex_buffers = vec![Some(VertexBufferView {
            data: Memory::from_bytes(&bytes).expect("vb"),
            stride: 12,
            offset: 0,
            size: None,
        })];
        st.rasterizer.cull_mode = CullMode::None;
        st.render_targets = vec![Some(RenderTargetView {
            texture: rt.clone(),
        })];
        st.depth_stencil_view = Some(DepthStencilView { texture: depth });
        let args = DrawArgs {
            vertex_count: (verts.len() / 3) as u32,
            ..DrawArgs::default()
        };
        let opts = DrawOptions {
            plan: dxlane::pipeline::Plan {
                threads,
                engine,
                ..dxlane::pipeline::Plan::default()
            },
            ..DrawOptions::default()
        };
        let t = Instant::now();
        let r = draw(&st, &args, &opts).expect("draw");
        let all = t.elapsed().as_secs_f64();
        times.push(all);
        running.push(all - r.compile_seconds);
        compile.push(r.compile_seconds);
        report = Some(r);
        image = rt.to_bytes();
    }
    let (median, min, max) = stats(times);
    DrawRun {
        median,
        min,
        max,
        running: stats(running).0,
        compile: compile.first().copied().unwrap_or(0.0),
        report: report.expect("ran"),
        image,
    }
}

const FULLSCREEN_WGSL: &str = r#"
@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@vertex fn vs(@builtin(vertex_index) i: u32) -> @builtin(position) vec4<f32> {
    let x = f32(i & 1u) * 4.0 - 1.0;
    let y = 1.0 - f32(i & 2u) * 2.0;
    return vec4<f32>(x, y, 0.0, 1.0);
}
@fragment fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> {
    var c = textureSample(t, s, p.xy * (1.0 / 256.0));
    for (var k = 0; k < 8; k++) { c = c * 0.99 + 0.01; }
    return c;
}
"#;

const TRI_WGSL: &str = r#"
@vertex fn vs(@location(0) p: vec3<f32>) -> @builtin(position) vec4<f32> { return vec4<f32>(p, 1.0); }
@fragment fn fs(@builtin(position) p: vec4<f32>) -> @location(0) vec4<f32> { return vec4<f32>(p.z, 0.5, 1.0, 1.0); }
"#;

/// lavapipe: median, fastest and slowest seconds per draw (submit to finish), or why it
/// could not run.
fn lavapipe_draw(fullscreen: bool, verts: &[f32]) -> Result<(f64, f64, f64), String> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::VULKAN;
    let instance = wgpu::Instance::new(desc);
    let adapter = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN))
        .into_iter()
        .find(|a| a.get_info().device_type == wgpu::DeviceType::Cpu)
        .ok_or("no CPU Vulkan adapter")?;
    let (device, queue) =
        pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor::default()))
            .map_err(|e| e.to_string())?;
    let (w, h) = if fullscreen {
        (FS_W, FS_H)
    } else {
        (TRI_SIZE, TRI_SIZE)
    };
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(
            if fullscreen {
                FULLSCREEN_WGSL
            } else {
                TRI_WGSL
            }
            .into(),
        ),
    });
    let attrs = [wgpu::VertexAttribute {
        format: wgpu::VertexFormat::Float32x3,
        offset: 0,
        shader_location: 0,
    }];
    let layouts = [Some(wgpu::VertexBufferLayout {
        array_stride: 12,
        step_mode: wgpu::VertexStepMode::Vertex,
        attributes: &attrs,
    })];
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: None,
        layout: None,
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs"),
            compilation_options: Default::default(),
            buffers: if fullscreen { &[] } else { &layouts },
        },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: (!fullscreen).then(|| wgpu::DepthStencilState {
            format: wgpu::TextureFormat::Depth32Float,
            depth_write_enabled: Some(true),
            depth_compare: Some(wgpu::CompareFunction::Less),
            stencil: Default::default(),
            bias: Default::default(),
        }),
        multisample: Default::default(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs"),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::TextureFormat::Rgba8Unorm.into())],
        }),
        multiview_mask: None,
        cache: None,
    });
    let target = |format: wgpu::TextureFormat| {
        device.create_texture(&wgpu::TextureDescriptor {
            label: None,
            size: wgpu::Extent3d {
                width: w,
                height: h,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format,
            usage: wgpu::TextureUsages::RENDER_ATTACHMENT
                | wgpu::TextureUsages::COPY_SRC
                | wgpu::TextureUsages::TEXTURE_BINDING
                | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        })
    };
    let rt = target(wgpu::TextureFormat::Rgba8Unorm);
    let rt_view = rt.create_view(&Default::default());
    let depth = target(wgpu::TextureFormat::Depth32Float);
    let depth_view = depth.create_view(&Default::default());
    let bind = fullscreen.then(|| {
        let tex = device.create_texture(&wgpu::TextureDescriptor {
            label: None,
            size: wgpu::Extent3d {
                width: 256,
                height: 256,
                depth_or_array_layers: 1,
            },
            mip_level_count: 1,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: wgpu::TextureFormat::Rgba8Unorm,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        });
        queue.write_texture(
            wgpu::TexelCopyTextureInfo {
                texture: &tex,
                mip_level: 0,
                origin: wgpu::Origin3d::ZERO,
                aspect: wgpu::TextureAspect::All,
            },
            &checker(),
            wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(1024),
                rows_per_image: Some(256),
            },
            wgpu::Extent3d {
                width: 256,
                height: 256,
                depth_or_array_layers: 1,
            },
        );
        let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
            address_mode_u: wgpu::AddressMode::Repeat,
            address_mode_v: wgpu::AddressMode::Repeat,
            mag_filter: wgpu::FilterMode::Linear,
            min_filter: wgpu::FilterMode::Linear,
            ..Default::default()
        });
        let view = tex.create_view(&Default::default());
        device.create_bind_group(&wgpu::BindGroupDescriptor {
            label: None,
            layout: &pipeline.get_bind_group_layout(0),
            entries: &[
                wgpu::BindGroupEntry {
                    binding: 0,
                    resource: wgpu::BindingResource::TextureView(&view),
                },
                wgpu::BindGroupEntry {
                    binding: 1,
                    resource: wgpu::BindingResource::Sampler(&sampler),
                },
            ],
        })
    });
    let vb = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: (verts.len() * 4).max(16) as u64,
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let bytes: Vec<u8> = verts.iter().flat_map(|f| f.to_le_bytes()).collect();
    queue.write_buffer(&vb, 0, &bytes);
    let mut times = Vec::new();
    for run in 0..=RUNS {
        let t = Instant::now();
        let mut enc = device.create_command_encoder(&Default::default());
        {
            let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
                label: None,
                color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                    view: &rt_view,
                    depth_slice: None,
                    resolve_target: None,
                    ops: wgpu::Operations {
                        load: wgpu::LoadOp::Clear(wgpu::Color::BLACK),
                        store: wgpu::StoreOp::Store,
                    },
                })],
                depth_stencil_attachment: (!fullscreen).then_some(
                    wgpu::RenderPassDepthStencilAttachment {
                        view: &depth_view,
                        depth_ops: Some(wgpu::Operations {
                            load: wgpu::LoadOp::Clear(1.0),
                            store: wgpu::StoreOp::Store,
                        }),
                        stencil_ops: None,
                    },
                ),
                timestamp_writes: None,
                occlusion_query_set: None,
                multiview_mask: None,
            });
            pass.set_pipeline(&pipeline);
            if let Some(b) = &bind {
                pass.set_bind_group(0, b, &[]);
                pass.draw(0..3, 0..1);
            } else {
                pass.set_vertex_buffer(0, vb.slice(..));
                pass.draw(0..(verts.len() / 3) as u32, 0..1);
            }
        }
        queue.submit([enc.finish()]);
        device
            .poll(wgpu::PollType::wait_indefinitely())
            .map_err(|e| format!("poll: {e}"))?;
        if run > 0 {
            times.push(t.elapsed().as_secs_f64());
        }
    }
    Ok(stats(times))
}

fn profile(r: &DrawReport) -> String {
    let t = &r.times;
    format!(
        "setup {:.1} ms, binning {:.1} ms, raster {:.1} ms, shading {:.1} ms, output merger {:.1} ms (thread-seconds)",
        t.setup * 1e3,
        t.binning * 1e3,
        t.raster * 1e3,
        t.shading * 1e3,
        t.output_merger * 1e3
    )
}

/// Prints one draw's timings under both engines and worker counts beside lavapipe's,
/// as `unit` (`Mpixels/s`, `Mtriangles/s`) of `work` items per draw; fails unless every
/// run drew the same image.
fn report_draw(
    runs: &[(Engine, usize, DrawRun)],
    work: f64,
    unit: &str,
    lavapipe: Result<(f64, f64, f64), String>,
) {
    for (_, _, r) in &runs[1..] {
        assert_eq!(
            runs[0].2.image, r.image,
            "the image depends on the engine or worker count"
        );
    }
    for (e, n, r) in runs {
        println!(
            "  dxlane {e:6} {n} thread{}: {:7.1} ms ({:.1}–{:.1})  {:6.2} {unit} ({} pixels shaded)",
            if *n == 1 { " " } else { "s" },
            r.median * 1e3,
            r.min * 1e3,
            r.max * 1e3,
            work / r.median / 1e6,
            r.report.pixels_shaded
        );
        if *n == 1 {
            println!("    profile: {}", profile(&r.report));
        }
        if r.compile > 0.0 {
            println!(
                "    compile {:.1} ms in the first draw (the others reuse its code)",
                r.compile * 1e3
            );
        }
    }
    match lavapipe {
        Ok((m, lo, hi)) => {
            println!(
                "  lavapipe:               {:7.1} ms ({:.1}–{:.1})  {:6.2} {unit}",
                m * 1e3,
                lo * 1e3,
                hi * 1e3,
                work / m / 1e6,
            );
            for (e, n, r) in runs {
                println!(
                    "  dxlane {e} {n}t / lavapipe time: {:.1}x ({:.1}x without compiling, as lavapipe's figure)",
                    r.median / m,
                    r.running / m
                );
            }
        }
        Err(e) => println!("  lavapipe: not run: {e}"),
    }
}

/// Whether the command line asks for `word`, or names none of `group` (so all run).
fn wanted(word: &str, group: &[&str]) -> bool {
    let args: Vec<String> = std::env::args().collect();
    args.iter().any(|a| a == word) || !args.iter().any(|a| group.contains(&a.as_str()))
}

fn draw_benches() {
    let engines: Vec<Engine> = [Engine::Interp, Engine::Jit]
        .into_iter()
        .filter(|e| wanted(&e.to_string(), &["interp", "jit"]))
        .collect();
    if wanted("fill", &["fill", "triangles"]) {
        fill_bench(&engines);
    }
    if wanted("triangles", &["fill", "triangles"]) {
        triangles_bench(&engines);
    }
}

fn fill_bench(engines: &[Engine]) {
    let runs: Vec<(Engine, usize, DrawRun)> = engines
        .iter()
        .flat_map(|&e| [1, 2].map(|n| (e, n, dxlane_fullscreen(n, e))))
        .collect();
    println!(
        "full-screen pixel program {FS_W}x{FS_H}, bilinear sample + 32 multiply-adds, medians of {RUNS} runs (range):"
    );
    report_draw(
        &runs,
        f64::from(FS_W * FS_H),
        "Mpixels/s",
        lavapipe_draw(true, &[]),
    );
}

fn triangles_bench(engines: &[Engine]) {
    let verts = triangles();
    let runs: Vec<(Engine, usize, DrawRun)> = engines
        .iter()
        .flat_map(|&e| [1, 2].map(|n| (e, n, dxlane_triangles(n, e, &verts))))
        .collect();
    println!(
        "{TRIANGLES} small depth-tested triangles into {TRI_SIZE}x{TRI_SIZE}, D32_FLOAT, medians of {RUNS} runs (range):"
    );
    report_draw(
        &runs,
        TRIANGLES as f64,
        "Mtriangles/s",
        lavapipe_draw(false, &verts),
    );
}
