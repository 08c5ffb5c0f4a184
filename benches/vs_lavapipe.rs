//! The side-by-side benchmark: the Mandelbrot of `examples/mandelbrot.toml`
//! (`shaders/mandelbrot.hlsl`, 1024×1024 threads in 8×8 groups, up to 256 iterations)
//! run by dxlane on one and on two worker threads, and the same workload written in WGSL
//! run through wgpu on a CPU Vulkan adapter (Mesa's lavapipe) in the same process.
//!
//! ```sh
//! cargo bench --features lavapipe --bench vs_lavapipe
//! ```
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

use std::process::Command;
use std::time::Instant;

use dxlane::exec::jit::Engine;
use dxlane::lower::{self, LoadOptions};
use dxlane::pipeline::{Bindings, DispatchOptions, dispatch};
use dxlane::resources::{BufferKind, BufferView, Descriptor, Memory};

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
    /// Median compile time of the native engine, in seconds (0 for the interpreter).
    compile: f64,
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
    let opts = DispatchOptions {
        threads,
        engine,
        ..DispatchOptions::default()
    };
    let mut times = Vec::new();
    let mut compile = Vec::new();
    let mut lanes = 0;
    let mut batch = 0;
    for _ in 0..RUNS {
        let t = Instant::now();
        let r =
            dispatch(&shader, &bindings, [SIZE / 8, SIZE / 8, 1], &opts, None).expect("dispatch");
        times.push(t.elapsed().as_secs_f64());
        compile.push(r.jit.map_or(0.0, |j| j.compile_time.as_secs_f64()));
        lanes = r.lane_instructions;
        batch = r.batch_lanes;
    }
    Measured {
        seconds: median(times),
        lanes,
        out: words(&memory.to_bytes()),
        batch,
        compile: median(compile),
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
    if std::env::args().any(|a| a == "--lavapipe-process") {
        let ok = lavapipe_runs(true).is_ok();
        std::process::exit(if ok { 0 } else { 1 });
    }
    println!("mandelbrot 1024x1024 (shaders/mandelbrot.cs_5_0.dxbc), medians of {RUNS} runs:");
    let mut table: Vec<(String, f64, f64)> = Vec::new();
    let mut reference: Option<Vec<u32>> = None;
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
                format!(", compile {:.1} ms", m.compile * 1e3)
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
            table.push((format!("dxlane {engine} {threads}t"), m.seconds, p));
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
            for (what, t, p) in &table {
                println!(
                    "  {what} / lavapipe time: {:5.1}x in process, {} whole process",
                    t / tl,
                    pl.map_or("-".into(), |pl| format!("{:.1}x", p / pl))
                );
            }
            println!("  escape counts equal in {same} of {} points", out.len());
        }
        Err(why) => println!("  lavapipe: not run: {why}"),
    }
}
