//! Texel rates: filtered samples per second of point, bilinear, trilinear and 16×
//! anisotropic sampling of a 256×256 RGBA8 and a 256×256 BC7 texture (full mip chains),
//! by dxlane's `resources::sample` on one core (criterion), beside the same work in
//! lavapipe (a WGSL compute program through wgpu on the CPU adapter; timed per dispatch
//! including the read-back, median and range of seven runs). Run with `LP_NUM_THREADS=1`
//! so that llvmpipe also uses one core (the report prints the setting):
//!
//! ```sh
//! LP_NUM_THREADS=1 cargo bench --bench sampling
//! ```
//!
//! Without a CPU Vulkan adapter the lavapipe column says so and dxlane's still runs.

#![allow(missing_docs)] // criterion_group! generates an undocumented function.

use std::time::Instant;

use criterion::{Criterion, Throughput, criterion_group, criterion_main};
use dxlane::resources::sample::{Lod, SampleInput, sample};
use dxlane::resources::{
    AddressMode, Filter, Format, SamplerDesc, Texture, TextureDesc, TextureView,
};
use wgpu::util::DeviceExt;

const SIZE: u32 = 256;
const MIPS: u32 = 9;
const SAMPLES: usize = 16384;

fn rng(seed: &mut u64) -> u64 {
    *seed ^= *seed << 13;
    *seed ^= *seed >> 7;
    *seed ^= *seed << 17;
    *seed
}

fn texture(format: Format) -> (TextureDesc, Vec<u8>) {
    let desc = TextureDesc {
        mips: MIPS,
        ..TextureDesc::tex2d(format, SIZE, SIZE)
    };
    let mut seed = 0x1234_5678_9abc_def1;
    let mut bytes: Vec<u8> = (0..desc.total_bytes())
        .map(|_| rng(&mut seed) as u8)
        .collect();
    if format == Format::BC7_UNORM {
        // Keep every block in a valid mode (a zero first byte is the reserved mode 8).
        for b in bytes.chunks_exact_mut(16) {
            if b[0] == 0 {
                b[0] = 0x40;
            }
        }
    }
    (desc, bytes)
}

/// The cases: name, filter, LOD source, WGSL call.
fn cases() -> Vec<(&'static str, Filter, Lod, &'static str)> {
    let aniso = Filter::from_name("ANISOTROPIC").unwrap();
    // A footprint 16 texels long and 1 texel wide at mip 0 (ratio 16, minor LOD 0).
    let grads = Lod::Gradients {
        ddx: [16.0 / SIZE as f32, 0.0, 0.0],
        ddy: [0.0, 1.0 / SIZE as f32, 0.0],
        bias: 0.0,
    };
    vec![
        (
            "point",
            Filter::POINT,
            Lod::Level(0.0),
            "textureSampleLevel(t, s, uv, 0.0)",
        ),
        (
            "bilinear",
            Filter::LINEAR,
            Lod::Level(0.0),
            "textureSampleLevel(t, s, uv, 0.0)",
        ),
        (
            "trilinear",
            Filter::LINEAR,
            Lod::Level(1.5),
            "textureSampleLevel(t, s, uv, 1.5)",
        ),
        (
            "aniso16",
            aniso,
            grads,
            "textureSampleGrad(t, s, uv, vec2<f32>(0.0625, 0.0), vec2<f32>(0.0, 0.00390625))",
        ),
    ]
}

fn coords() -> Vec<[f32; 2]> {
    let mut seed = 42u64;
    (0..SAMPLES)
        .map(|_| {
            let u = (rng(&mut seed) >> 40) as f32 / (1u64 << 24) as f32;
            let v = (rng(&mut seed) >> 40) as f32 / (1u64 << 24) as f32;
            [u, v]
        })
        .collect()
}

fn dxlane_benches(c: &mut Criterion) {
    let uv = coords();
    let mut g = c.benchmark_group("sampling");
    g.sample_size(10);
    g.throughput(Throughput::Elements(SAMPLES as u64));
    for format in [Format::R8G8B8A8_UNORM, Format::BC7_UNORM] {
        let (desc, bytes) = texture(format);
        let view = TextureView::whole(Texture::from_bytes(desc, &bytes).unwrap());
        for (name, filter, lod, _) in cases() {
            let s = SamplerDesc {
                filter,
                max_anisotropy: 16,
                address: [AddressMode::Wrap; 3],
                ..SamplerDesc::default()
            };
            g.bench_function(format!("{}/{name}", format.name()), |b| {
                b.iter(|| {
                    let mut acc = 0u32;
                    for &[u, v] in &uv {
                        let i = SampleInput {
                            coord: [u, v, 0.0, 0.0],
                            offset: [0; 3],
                            lod,
                            min_lod_clamp: f32::NEG_INFINITY,
                            reference: None,
                        };
                        acc ^= sample(&view, &s, &i)[0];
                    }
                    acc
                })
            });
        }
    }
    g.finish();
}

/// lavapipe's samples per second for each case, or why it could not run.
fn lavapipe_rates() -> Result<(String, Vec<(String, f64)>), String> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::VULKAN;
    let instance = wgpu::Instance::new(desc);
    let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN));
    let adapter = adapters
        .into_iter()
        .find(|a| a.get_info().device_type == wgpu::DeviceType::Cpu)
        .ok_or("no CPU Vulkan adapter (install mesa-vulkan-drivers and libvulkan1)")?;
    let info = adapter.get_info();
    let (device, queue) = pollster::block_on(adapter.request_device(&wgpu::DeviceDescriptor {
        required_features: wgpu::Features::TEXTURE_COMPRESSION_BC,
        ..Default::default()
    }))
    .map_err(|e| format!("request device: {e}"))?;
    let uv: Vec<f32> = coords().into_iter().flatten().collect();
    let input = device.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: &uv.iter().flat_map(|x| x.to_le_bytes()).collect::<Vec<u8>>(),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let size = (SAMPLES * 16) as u64;
    let output = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut out = Vec::new();
    for (format, wf) in [
        (Format::R8G8B8A8_UNORM, wgpu::TextureFormat::Rgba8Unorm),
        (Format::BC7_UNORM, wgpu::TextureFormat::Bc7RgbaUnorm),
    ] {
        let (desc, bytes) = texture(format);
        let tex = device.create_texture_with_data(
            &queue,
            &wgpu::TextureDescriptor {
                label: None,
                size: wgpu::Extent3d {
                    width: desc.width,
                    height: desc.height,
                    depth_or_array_layers: 1,
                },
                mip_level_count: MIPS,
                sample_count: 1,
                dimension: wgpu::TextureDimension::D2,
                format: wf,
                usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
                view_formats: &[],
            },
            wgpu::util::TextureDataOrder::LayerMajor,
            &bytes,
        );
        let view = tex.create_view(&Default::default());
        for (name, filter, _, call) in cases() {
            let lin = |t| {
                if t == dxlane::resources::FilterType::Linear {
                    wgpu::FilterMode::Linear
                } else {
                    wgpu::FilterMode::Nearest
                }
            };
            let sampler = device.create_sampler(&wgpu::SamplerDescriptor {
                address_mode_u: wgpu::AddressMode::Repeat,
                address_mode_v: wgpu::AddressMode::Repeat,
                mag_filter: if filter.anisotropic {
                    wgpu::FilterMode::Linear
                } else {
                    lin(filter.mag)
                },
                min_filter: if filter.anisotropic {
                    wgpu::FilterMode::Linear
                } else {
                    lin(filter.min)
                },
                mipmap_filter: if filter.mip == dxlane::resources::FilterType::Linear {
                    wgpu::MipmapFilterMode::Linear
                } else {
                    wgpu::MipmapFilterMode::Nearest
                },
                anisotropy_clamp: if filter.anisotropic { 16 } else { 1 },
                ..Default::default()
            });
            let wgsl = format!(
                "@group(0) @binding(0) var t: texture_2d<f32>;
@group(0) @binding(1) var s: sampler;
@group(0) @binding(2) var<storage, read> inp: array<vec2<f32>>;
@group(0) @binding(3) var<storage, read_write> outp: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {{
    let uv = inp[id.x];
    outp[id.x] = {call};
}}"
            );
            let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
                label: None,
                source: wgpu::ShaderSource::Wgsl(wgsl.into()),
            });
            let pipeline = device.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
                label: None,
                layout: None,
                module: &module,
                entry_point: Some("main"),
                compilation_options: Default::default(),
                cache: None,
            });
            let bind = device.create_bind_group(&wgpu::BindGroupDescriptor {
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
                    wgpu::BindGroupEntry {
                        binding: 2,
                        resource: input.as_entire_binding(),
                    },
                    wgpu::BindGroupEntry {
                        binding: 3,
                        resource: output.as_entire_binding(),
                    },
                ],
            });
            let mut times = Vec::new();
            for run in 0..8 {
                let t = Instant::now();
                let mut encoder = device.create_command_encoder(&Default::default());
                {
                    let mut pass = encoder.begin_compute_pass(&Default::default());
                    pass.set_pipeline(&pipeline);
                    pass.set_bind_group(0, &bind, &[]);
                    pass.dispatch_workgroups((SAMPLES / 64) as u32, 1, 1);
                }
                encoder.copy_buffer_to_buffer(&output, 0, &readback, 0, size);
                queue.submit([encoder.finish()]);
                readback.slice(..).map_async(wgpu::MapMode::Read, |_| {});
                device
                    .poll(wgpu::PollType::wait_indefinitely())
                    .map_err(|e| format!("poll: {e}"))?;
                readback.unmap();
                if run > 0 {
                    times.push(t.elapsed().as_secs_f64());
                }
            }
            times.sort_by(f64::total_cmp);
            let (lo, med, hi) = (times[0], times[times.len() / 2], times[times.len() - 1]);
            out.push((
                format!(
                    "{}/{name}: {:.1} M samples/s (range {:.1}–{:.1})",
                    format.name(),
                    SAMPLES as f64 / med / 1e6,
                    SAMPLES as f64 / hi / 1e6,
                    SAMPLES as f64 / lo / 1e6
                ),
                SAMPLES as f64 / med,
            ));
        }
    }
    Ok((format!("{} ({})", info.name, info.driver_info), out))
}

fn lavapipe_report(_: &mut Criterion) {
    match lavapipe_rates() {
        Ok((name, rates)) => {
            println!(
                "lavapipe, {name}, LP_NUM_THREADS={}:",
                std::env::var("LP_NUM_THREADS").unwrap_or_default()
            );
            for (line, _) in rates {
                println!("  {line}");
            }
        }
        Err(why) => println!("lavapipe: skipped ({why})"),
    }
}

criterion_group!(benches, dxlane_benches, lavapipe_report);
criterion_main!(benches);
