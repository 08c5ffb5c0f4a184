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

use std::time::Instant;

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

/// dxlane: median seconds per dispatch, lane-instructions per dispatch, and the output.
fn dxlane_runs(threads: usize) -> (f64, u64, Vec<u32>, u32) {
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
        ..DispatchOptions::default()
    };
    let mut times = Vec::new();
    let mut lanes = 0;
    let mut batch = 0;
    for _ in 0..RUNS {
        let t = Instant::now();
        let r =
            dispatch(&shader, &bindings, [SIZE / 8, SIZE / 8, 1], &opts, None).expect("dispatch");
        times.push(t.elapsed().as_secs_f64());
        lanes = r.lane_instructions;
        batch = r.batch_lanes;
    }
    (median(times), lanes, words(&memory.to_bytes()), batch)
}

/// lavapipe: median seconds per dispatch (submit to results read back) and the output,
/// or why it could not run.
fn lavapipe_runs() -> Result<(f64, Vec<u32>, String), String> {
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
    for run in 0..=RUNS {
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
        if run > 0 {
            times.push(t.elapsed().as_secs_f64());
        }
    }
    Ok((median(times), out, name))
}

fn main() {
    // `cargo bench` passes `--bench`; `cargo test --benches` does not: then run once, briefly.
    let (t1, lanes, out1, batch) = dxlane_runs(1);
    let (t2, _, out2, _) = dxlane_runs(2);
    assert_eq!(out1, out2, "dxlane's output depends on the worker count");
    println!("mandelbrot 1024x1024 (shaders/mandelbrot.cs_5_0.dxbc), medians of {RUNS} runs:");
    println!(
        "  dxlane, 1 thread:   {:8.1} ms  {:6.0} million lane-instructions/s  ({lanes} lane-instructions, {batch} lanes side by side)",
        t1 * 1e3,
        lanes as f64 / t1 / 1e6
    );
    println!(
        "  dxlane, 2 threads:  {:8.1} ms  {:6.0} million lane-instructions/s  (scaling 1 -> 2 threads: {:.2}x)",
        t2 * 1e3,
        lanes as f64 / t2 / 1e6,
        t1 / t2
    );
    match lavapipe_runs() {
        Ok((tl, outl, name)) => {
            let same = out2.iter().zip(&outl).filter(|(a, b)| a == b).count();
            println!("  lavapipe, {name}: {:8.1} ms", tl * 1e3);
            println!("  dxlane (2 threads) / lavapipe time: {:.1}x", t2 / tl);
            println!("  escape counts equal in {same} of {} points", out2.len());
        }
        Err(why) => println!("  lavapipe: not run: {why}"),
    }
}
