//! The same draws rendered through wgpu on a CPU Vulkan adapter (Mesa's lavapipe) and by
//! dxlane, compared pixel by pixel.
//!
//! - **Fill rule**: thousands of small triangles — fans and strips sharing edges, slivers,
//!   sub-pixel triangles — on the 1/16-pixel grid (exact in both rasterizers' 16.8 fixed
//!   point, so edges pass exactly through pixel centres and the tie rule decides),
//!   each adding 1 to the pixels it covers (R16G16B16A16_FLOAT, ONE + ONE blending). The count
//!   images must be identical, and inside the fans and strips every pixel must be
//!   covered exactly once (no pixel of a shared edge twice, none missed).
//! - **Scenes**: the triangle, full-screen and blend examples' programs written in WGSL;
//!   coverage (which pixels differ from the clear colour) identical, colours within 2
//!   of 255 per channel (interpolation and rounding order differ between the two; D3D's
//!   UNORM rule adds ½ and truncates, Vulkan rounds to nearest).
//!
//! Without an adapter each test prints one line saying it skipped; with
//! `DXLANE_REQUIRE_ADAPTER=1` (CI, which installs lavapipe) it fails instead.

use dxlane::ir::parse_shader;
use dxlane::pipeline::{
    Bindings, Blend, CullMode, DrawArgs, DrawOptions, DrawState, InputElementDesc, InputLayout,
    RenderTargetView, VertexBufferView, draw,
};
use dxlane::resources::{Format, Memory, Texture, TextureDesc};

/// The adapter, or `None` after printing why the test skips (a panic when an adapter is
/// required).
fn adapter(test: &str) -> Option<(wgpu::Device, wgpu::Queue)> {
    let mut desc = wgpu::InstanceDescriptor::new_without_display_handle();
    desc.backends = wgpu::Backends::VULKAN;
    let instance = wgpu::Instance::new(desc);
    let adapters = pollster::block_on(instance.enumerate_adapters(wgpu::Backends::VULKAN));
    let found = adapters
        .into_iter()
        .find(|a| a.get_info().device_type == wgpu::DeviceType::Cpu);
    let Some(a) = found else {
        let why = "no CPU Vulkan adapter (install mesa-vulkan-drivers and libvulkan1)";
        if std::env::var("DXLANE_REQUIRE_ADAPTER").is_ok_and(|v| v == "1") {
            panic!("{test}: DXLANE_REQUIRE_ADAPTER=1 but {why}");
        }
        eprintln!("{test}: skipped: {why}");
        return None;
    };
    pollster::block_on(a.request_device(&wgpu::DeviceDescriptor::default())).ok()
}

/// Renders `verts` (float2 NDC positions and float4 colours, 24 bytes each) as a
/// triangle list through wgpu with `fs` and returns the target's bytes.
#[allow(clippy::too_many_arguments)]
fn wgpu_draw(
    dev: &(wgpu::Device, wgpu::Queue),
    wgsl: &str,
    verts: &[f32],
    vertex_count: u32,
    format: wgpu::TextureFormat,
    texel: u32,
    size: u32,
    blend: Option<wgpu::BlendState>,
    clear: wgpu::Color,
) -> Vec<u8> {
    let (device, queue) = dev;
    let module = device.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(wgsl.into()),
    });
    let vb = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: (verts.len() * 4).max(4) as u64,
        usage: wgpu::BufferUsages::VERTEX | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let bytes: Vec<u8> = verts.iter().flat_map(|f| f.to_le_bytes()).collect();
    queue.write_buffer(&vb, 0, &bytes);
    let attrs = [
        wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x2,
            offset: 0,
            shader_location: 0,
        },
        wgpu::VertexAttribute {
            format: wgpu::VertexFormat::Float32x4,
            offset: 8,
            shader_location: 1,
        },
    ];
    let pipeline = device.create_render_pipeline(&wgpu::RenderPipelineDescriptor {
        label: None,
        layout: None,
        vertex: wgpu::VertexState {
            module: &module,
            entry_point: Some("vs"),
            compilation_options: Default::default(),
            buffers: &[Some(wgpu::VertexBufferLayout {
                array_stride: 24,
                step_mode: wgpu::VertexStepMode::Vertex,
                attributes: &attrs,
            })],
        },
        primitive: wgpu::PrimitiveState::default(),
        depth_stencil: None,
        multisample: wgpu::MultisampleState::default(),
        fragment: Some(wgpu::FragmentState {
            module: &module,
            entry_point: Some("fs"),
            compilation_options: Default::default(),
            targets: &[Some(wgpu::ColorTargetState {
                format,
                blend,
                write_mask: wgpu::ColorWrites::ALL,
            })],
        }),
        multiview_mask: None,
        cache: None,
    });
    let tex = device.create_texture(&wgpu::TextureDescriptor {
        label: None,
        size: wgpu::Extent3d {
            width: size,
            height: size,
            depth_or_array_layers: 1,
        },
        mip_level_count: 1,
        sample_count: 1,
        dimension: wgpu::TextureDimension::D2,
        format,
        usage: wgpu::TextureUsages::RENDER_ATTACHMENT | wgpu::TextureUsages::COPY_SRC,
        view_formats: &[],
    });
    let view = tex.create_view(&Default::default());
    let row = (size * texel).div_ceil(256) * 256;
    let readback = device.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size: u64::from(row * size),
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let mut enc = device.create_command_encoder(&Default::default());
    {
        let mut pass = enc.begin_render_pass(&wgpu::RenderPassDescriptor {
            label: None,
            color_attachments: &[Some(wgpu::RenderPassColorAttachment {
                view: &view,
                depth_slice: None,
                resolve_target: None,
                ops: wgpu::Operations {
                    load: wgpu::LoadOp::Clear(clear),
                    store: wgpu::StoreOp::Store,
                },
            })],
            depth_stencil_attachment: None,
            timestamp_writes: None,
            occlusion_query_set: None,
            multiview_mask: None,
        });
        pass.set_pipeline(&pipeline);
        pass.set_vertex_buffer(0, vb.slice(..));
        pass.draw(0..vertex_count, 0..1);
    }
    enc.copy_texture_to_buffer(
        wgpu::TexelCopyTextureInfo {
            texture: &tex,
            mip_level: 0,
            origin: wgpu::Origin3d::ZERO,
            aspect: wgpu::TextureAspect::All,
        },
        wgpu::TexelCopyBufferInfo {
            buffer: &readback,
            layout: wgpu::TexelCopyBufferLayout {
                offset: 0,
                bytes_per_row: Some(row),
                rows_per_image: Some(size),
            },
        },
        wgpu::Extent3d {
            width: size,
            height: size,
            depth_or_array_layers: 1,
        },
    );
    queue.submit([enc.finish()]);
    readback.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    device.poll(wgpu::PollType::wait_indefinitely()).unwrap();
    let mapped = readback.slice(..).get_mapped_range().unwrap();
    let mut out = Vec::with_capacity((size * size * texel) as usize);
    for y in 0..size {
        let s = (y * row) as usize;
        out.extend_from_slice(&mapped[s..s + (size * texel) as usize]);
    }
    out
}

const VS_IR: &str = include_str!("../../shaders/draw_color.vs.ir");
const PS_IR: &str = include_str!("../../shaders/draw_color.ps.ir");

const WGSL_COLOR: &str = r#"
struct Out { @builtin(position) pos: vec4<f32>, @location(0) color: vec4<f32> };
@vertex fn vs(@location(0) p: vec2<f32>, @location(1) c: vec4<f32>) -> Out {
    return Out(vec4<f32>(p, 0.0, 1.0), c);
}
@fragment fn fs(i: Out) -> @location(0) vec4<f32> { return i.color; }
"#;

/// dxlane's draw of the same triangle list (draw_color.hlsl's IR twin).
fn dxlane_draw(
    verts: &[f32],
    vertex_count: u32,
    format: Format,
    size: u32,
    additive: bool,
    clear: [f32; 4],
) -> Vec<u8> {
    let vs = parse_shader(VS_IR).unwrap();
    let ps = parse_shader(PS_IR).unwrap();
    let none = Bindings::default();
    let rt = Texture::new(TextureDesc::tex2d(format, size, size)).unwrap();
    let mut texel = vec![0u8; format.bytes_per_texel() as usize];
    format.encode(clear.map(f32::to_bits), 0xf, &mut texel);
    let fill: Vec<u8> = texel
        .iter()
        .copied()
        .cycle()
        .take(texel.len() * (size * size) as usize)
        .collect();
    rt.memory().write_bytes(0, &fill);
    let bytes: Vec<u8> = verts.iter().flat_map(|f| f.to_le_bytes()).collect();
    let mut s = DrawState::new(&vs, Some(&ps), &none, &none);
    s.input_layout = InputLayout {
        elements: vec![
            InputElementDesc {
                semantic: "POSITION".into(),
                semantic_index: 0,
                format: Format::R32G32_FLOAT,
                input_slot: 0,
                aligned_byte_offset: 0,
                instance_data_step_rate: 0,
            },
            InputElementDesc {
                semantic: "COLOR".into(),
                semantic_index: 0,
                format: Format::R32G32B32A32_FLOAT,
                input_slot: 0,
                aligned_byte_offset: 8,
                instance_data_step_rate: 0,
            },
        ],
    };
    s.vertex_buffers = vec![Some(VertexBufferView {
        data: Memory::from_bytes(&bytes).unwrap(),
        stride: 24,
        offset: 0,
        size: None,
    })];
    s.rasterizer.cull_mode = CullMode::None;
    if additive {
        let b = &mut s.blend.render_target[0];
        b.blend_enable = true;
        b.src_blend = Blend::One;
        b.dest_blend = Blend::One;
        b.src_blend_alpha = Blend::One;
        b.dest_blend_alpha = Blend::One;
    }
    s.render_targets = vec![Some(RenderTargetView {
        texture: rt.clone(),
    })];
    let args = DrawArgs {
        vertex_count,
        ..DrawArgs::default()
    };
    draw(
        &s,
        &args,
        &DrawOptions {
            plan: dxlane::pipeline::Plan {
                threads: 2,
                ..crate::common::plan()
            },
            ..crate::common::draw_options()
        },
    )
    .unwrap();
    rt.to_bytes()
}

/// A small deterministic generator (xorshift), so the test draws the same triangles
/// everywhere.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// A coordinate in pixels on the 1/16 grid within `[lo, hi)`.
    fn grid(&mut self, lo: f32, hi: f32) -> f32 {
        let steps = ((hi - lo) * 16.0) as u64;
        lo + (self.next() % steps.max(1)) as f32 / 16.0
    }
}

const SIZE: u32 = 256;

/// Pixels to NDC for a SIZE × SIZE target (exact for the 1/16 grid).
fn ndc(x: f32, y: f32) -> [f32; 2] {
    [x / (SIZE as f32 / 2.0) - 1.0, 1.0 - y / (SIZE as f32 / 2.0)]
}

fn push(v: &mut Vec<f32>, p: [f32; 2]) {
    let q = ndc(p[0], p[1]);
    v.extend_from_slice(&[q[0], q[1], 1.0, 0.0, 0.0, 1.0]);
}

/// The scene of the fill-rule test: closed meshes (fans, jittered strips) whose insides
/// are listed, and loose slivers and sub-pixel triangles. Returns the vertices and the
/// pixels strictly inside the closed meshes' outlines.
fn fill_rule_scene() -> (Vec<f32>, Vec<(u32, u32)>) {
    let mut rng = Rng(0x9e37_79b9_7f4a_7c15);
    let mut v = Vec::new();
    let mut inside = Vec::new();
    // Fans: a centre and a regular ring snapped to the grid, in a 64 × 64 cell each of
    // the top half. Interior pixels: those whose centre is well inside the inscribed
    // circle of the ring.
    for cell in 0..8 {
        let (cx0, cy0) = ((cell % 4) as f32 * 64.0, (cell / 4) as f32 * 64.0);
        let c = [cx0 + rng.grid(28.0, 36.0), cy0 + rng.grid(28.0, 36.0)];
        let r = 12.0 + (rng.next() % 16) as f32;
        let n = 6 + (rng.next() % 20) as usize;
        let ring: Vec<[f32; 2]> = (0..n)
            .map(|k| {
                let a = k as f32 / n as f32 * std::f32::consts::TAU;
                let s = |x: f32| (x * 16.0).round() / 16.0;
                [s(c[0] + r * a.cos()), s(c[1] + r * a.sin())]
            })
            .collect();
        for k in 0..n {
            push(&mut v, c);
            push(&mut v, ring[k]);
            push(&mut v, ring[(k + 1) % n]);
        }
        let inner = r * (std::f32::consts::PI / n as f32).cos() - 1.5;
        for y in (cy0 as u32)..(cy0 as u32 + 64) {
            for x in (cx0 as u32)..(cx0 as u32 + 64) {
                let (dx, dy) = (x as f32 + 0.5 - c[0], y as f32 + 0.5 - c[1]);
                if (dx * dx + dy * dy).sqrt() < inner {
                    inside.push((x, y));
                }
            }
        }
    }
    // A jittered grid of quads (two triangles each, alternating diagonals) over
    // 16..112 × 144..240: every interior pixel covered once.
    let (gx0, gy0, cells, cell) = (16.0f32, 144.0f32, 24usize, 4.0f32);
    let mut pts = vec![[0f32; 2]; (cells + 1) * (cells + 1)];
    for j in 0..=cells {
        for i in 0..=cells {
            let jitter = |rng: &mut Rng, k: usize| {
                if k == 0 || k == cells {
                    0.0
                } else {
                    rng.grid(-1.5, 1.5)
                }
            };
            let (jx, jy) = (jitter(&mut rng, i), jitter(&mut rng, j));
            pts[j * (cells + 1) + i] = [gx0 + i as f32 * cell + jx, gy0 + j as f32 * cell + jy];
        }
    }
    for j in 0..cells {
        for i in 0..cells {
            let a = pts[j * (cells + 1) + i];
            let b = pts[j * (cells + 1) + i + 1];
            let c = pts[(j + 1) * (cells + 1) + i];
            let d = pts[(j + 1) * (cells + 1) + i + 1];
            if (i + j) % 2 == 0 {
                for p in [a, b, d, a, d, c] {
                    push(&mut v, p);
                }
            } else {
                for p in [a, b, c, b, d, c] {
                    push(&mut v, p);
                }
            }
        }
    }
    let span = cells as f32 * cell;
    for y in (gy0 as u32 + 1)..(gy0 + span) as u32 - 1 {
        for x in (gx0 as u32 + 1)..(gx0 + span) as u32 - 1 {
            inside.push((x, y));
        }
    }
    // Slivers and sub-pixel triangles over 128..256 × 128..256.
    for _ in 0..1500 {
        let p = [rng.grid(128.0, 250.0), rng.grid(128.0, 250.0)];
        let q = [p[0] + rng.grid(-4.0, 4.0), p[1] + rng.grid(-4.0, 4.0)];
        let r = if rng.next() % 2 == 0 {
            // A sliver: nearly on the line p–q.
            [
                q[0] + rng.grid(-0.25, 0.25),
                q[1] + rng.grid(-0.25, 0.25) + 3.0,
            ]
        } else {
            [p[0] + rng.grid(-1.0, 1.0), p[1] + rng.grid(-1.0, 1.0)]
        };
        for x in [p, q, r] {
            push(&mut v, x);
        }
    }
    (v, inside)
}

fn halves(b: &[u8]) -> Vec<u16> {
    b.chunks_exact(2)
        .map(|c| u16::from_le_bytes([c[0], c[1]]))
        .collect()
}

/// D3D11.3 §15 "Triangle Rasterization Rules" against lavapipe: identical coverage for
/// thousands of triangles whose edges fall exactly on pixel centres, and shared edges
/// drawn exactly once.
#[test]
fn fill_rule_matches_lavapipe() {
    let (verts, inside) = fill_rule_scene();
    let n = (verts.len() / 6) as u32;
    assert!(n > 2000, "{n} triangles");
    let ours = halves(&dxlane_draw(
        &verts,
        n,
        Format::R16G16B16A16_FLOAT,
        SIZE,
        true,
        [0.0; 4],
    ));
    // Our own rule first: inside the closed meshes, every pixel exactly once.
    let one = half::f16::from_f32(1.0).to_bits();
    let texel = |x: u32, y: u32| ours[((y * SIZE + x) * 4) as usize];
    let wrong: Vec<_> = inside
        .iter()
        .filter(|&&(x, y)| texel(x, y) != one)
        .take(5)
        .collect();
    assert!(
        wrong.is_empty(),
        "pixels inside a closed mesh not covered exactly once: {wrong:?}"
    );
    let Some(dev) = adapter("fill_rule_matches_lavapipe") else {
        return;
    };
    let blend = wgpu::BlendState {
        color: wgpu::BlendComponent {
            src_factor: wgpu::BlendFactor::One,
            dst_factor: wgpu::BlendFactor::One,
            operation: wgpu::BlendOperation::Add,
        },
        alpha: wgpu::BlendComponent {
            src_factor: wgpu::BlendFactor::One,
            dst_factor: wgpu::BlendFactor::One,
            operation: wgpu::BlendOperation::Add,
        },
    };
    let theirs = halves(&wgpu_draw(
        &dev,
        WGSL_COLOR,
        &verts,
        n,
        wgpu::TextureFormat::Rgba16Float,
        8,
        SIZE,
        Some(blend),
        wgpu::Color::TRANSPARENT,
    ));
    let mut differ = Vec::new();
    for y in 0..SIZE {
        for x in 0..SIZE {
            let i = ((y * SIZE + x) * 4) as usize;
            if ours[i] != theirs[i] {
                differ.push((
                    x,
                    y,
                    half::f16::from_bits(ours[i]).to_f32(),
                    half::f16::from_bits(theirs[i]).to_f32(),
                ));
            }
        }
    }
    let covered = ours.iter().step_by(4).filter(|&&h| h != 0).count();
    eprintln!(
        "fill rule: {n} triangles, {covered} pixels covered, {} differ from lavapipe",
        differ.len()
    );
    assert!(
        differ.is_empty(),
        "{} pixels differ (x, y, dxlane count, lavapipe count): {:?}",
        differ.len(),
        &differ[..differ.len().min(20)]
    );
}

/// The triangle and blend examples' scenes through WGSL twins: identical coverage,
/// colours within 2/255.
#[test]
fn colour_scenes_match_lavapipe() {
    let Some(dev) = adapter("colour_scenes_match_lavapipe") else {
        return;
    };
    let root = env!("CARGO_MANIFEST_DIR");
    for (name, blend) in [("triangle", false), ("blend", true)] {
        let bytes = std::fs::read(format!("{root}/examples/data/{name}.bin")).unwrap();
        let verts: Vec<f32> = bytes
            .chunks_exact(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let n = (verts.len() / 6) as u32;
        let clear = [0.0, 0.0, 0.0, 0.0];
        let ours = dxlane_blend_draw(&verts, n, blend, clear);
        let bs = blend.then_some(wgpu::BlendState::ALPHA_BLENDING);
        let theirs = wgpu_draw(
            &dev,
            WGSL_COLOR,
            &verts,
            n,
            wgpu::TextureFormat::Rgba8Unorm,
            4,
            128,
            bs,
            wgpu::Color::TRANSPARENT,
        );
        let mut coverage = 0;
        let mut worst = 0;
        for (a, b) in ours.chunks_exact(4).zip(theirs.chunks_exact(4)) {
            if (a == [0; 4]) != (b == [0; 4]) {
                coverage += 1;
            }
            for c in 0..4 {
                worst = worst.max((i32::from(a[c]) - i32::from(b[c])).abs());
            }
        }
        eprintln!(
            "{name}: {coverage} pixels of different coverage, largest channel difference {worst}"
        );
        assert_eq!(coverage, 0, "{name}: coverage");
        assert!(worst <= 2, "{name}: colours differ by {worst}");
    }
}

fn dxlane_blend_draw(verts: &[f32], n: u32, alpha_blend: bool, clear: [f32; 4]) -> Vec<u8> {
    if !alpha_blend {
        return dxlane_draw(verts, n, Format::R8G8B8A8_UNORM, 128, false, clear);
    }
    // As dxlane_draw, with SRC_ALPHA / INV_SRC_ALPHA colour and ONE / INV_SRC_ALPHA alpha
    // (wgpu's ALPHA_BLENDING).
    let vs = parse_shader(VS_IR).unwrap();
    let ps = parse_shader(PS_IR).unwrap();
    let none = Bindings::default();
    let rt = Texture::new(TextureDesc::tex2d(Format::R8G8B8A8_UNORM, 128, 128)).unwrap();
    let bytes: Vec<u8> = verts.iter().flat_map(|f| f.to_le_bytes()).collect();
    let mut s = DrawState::new(&vs, Some(&ps), &none, &none);
    s.input_layout = InputLayout {
        elements: vec![
            InputElementDesc {
                semantic: "POSITION".into(),
                semantic_index: 0,
                format: Format::R32G32_FLOAT,
                input_slot: 0,
                aligned_byte_offset: 0,
                instance_data_step_rate: 0,
            },
            InputElementDesc {
                semantic: "COLOR".into(),
                semantic_index: 0,
                format: Format::R32G32B32A32_FLOAT,
                input_slot: 0,
                aligned_byte_offset: 8,
                instance_data_step_rate: 0,
            },
        ],
    };
    s.vertex_buffers = vec![Some(VertexBufferView {
        data: Memory::from_bytes(&bytes).unwrap(),
        stride: 24,
        offset: 0,
        size: None,
    })];
    s.rasterizer.cull_mode = CullMode::None;
    let b = &mut s.blend.render_target[0];
    b.blend_enable = true;
    b.src_blend = Blend::SrcAlpha;
    b.dest_blend = Blend::InvSrcAlpha;
    b.src_blend_alpha = Blend::One;
    b.dest_blend_alpha = Blend::InvSrcAlpha;
    s.render_targets = vec![Some(RenderTargetView {
        texture: rt.clone(),
    })];
    let args = DrawArgs {
        vertex_count: n,
        ..DrawArgs::default()
    };
    draw(&s, &args, &crate::common::draw_options()).unwrap();
    rt.to_bytes()
}
