//! Differential: the same sampling work done by dxlane's `resources::sample` and by Mesa's
//! lavapipe (a WGSL compute program through wgpu on the CPU adapter), family by family.
//!
//! Each family binds one texture and one sampler, runs a list of inputs (coordinates,
//! LODs, gradients, references) through one WGSL sampling call, and compares every
//! component with what dxlane computes for the same texture, sampler and input. Where D3D
//! and Vulkan agree on the exact answer (point sampling, loads, gathers, BC6H and BC7
//! decoding) the comparison is exact; elsewhere each family states the largest difference
//! it accepts and why, and prints the largest it observed. Inputs keep away from the
//! places where the two APIs are allowed to disagree and that the family does not
//! measure (point samples within 1/16 texel of a texel edge, linear footprints within
//! 1/16 texel of a texel centre for gathers).
//!
//! Observed maximum absolute differences on lavapipe (Mesa 22.3.6, llvmpipe on LLVM 15), which
//! the bounds below keep a margin over:
//!
//! | family | bound | observed |
//! |---|---|---|
//! | loads (RGBA8, R32F, RGBA16F), point sampling, every address mode with borders | exact | 0 |
//! | bilinear (RGBA8, mip 0, every address mode) | 2/255 | 3.6e-3 |
//! | trilinear, explicit fractional LOD (the mip fraction) | 3/255 | 6.0e-3 |
//! | gradients, isotropic (smooth texture; lavapipe approximates gradient lengths) | 0.05 | 1.9e-2 |
//! | anisotropic 16×, ratio 1 / ratio 1–8 (lavapipe's filter is not §7.18.11's) | 1 (range only) | 0.99 / 0.98 (means 0.20 / 0.19) |
//! | arrays (point / bilinear) | exact / 2/255 | 0 / 3.6e-3 |
//! | cube faces (point) / seams / corners (bilinear) | exact / 2/255 / 2/255 | 0 / 1.8e-3 / 1.6e-3 |
//! | comparison (D16, point / bilinear) | exact / 2/255 | 0 / 2.4e-3 |
//! | gather with offsets, gather-compare | exact | 0 |
//! | BC1–BC3 loads (UNORM; sRGB one code more) | §19.5.2: 1/255 + 3 % of the endpoint range | 5.2e-3 (sRGB 1.0e-2) |
//! | BC4, BC5 loads (UNORM / SNORM) | §19.5.2: 1/65535 + 3 % / 1/32767 + 6 % | 5.5e-3 / 1.1e-2 |
//! | BC6H (UF16, SF16), BC7 loads | exact (bit-exact decoders; BC7 sRGB 1e-5 for the curve) | 0 (sRGB 6e-8) |
//! | BC7 trilinear | 3/255 | 5.6e-3 |
//!
//! "Exact" allows one ulp where lavapipe's UNORM conversion multiplies by `1/(2^n − 1)`
//! instead of dividing (D3D11.3 §3.2.3.2 asks for the correctly rounded quotient).
//!
//! Min/max reduction filters have no wgpu counterpart and are checked against the
//! specification only (`resources::sample` unit tests).

use dxlane::resources::sample::{Lod, SampleInput, gather, sample};
use dxlane::resources::{
    AddressMode, ComparisonFunc, Filter, FilterType, Format, SamplerDesc, Texture, TextureDesc,
    TextureDim, TextureView,
};
use wgpu::util::DeviceExt;

use crate::gpu::{Gpu, cpu_device};

/// A deterministic pseudo-random stream (xorshift64*).
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }
    fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| (self.next() >> 32) as u8).collect()
    }
    /// A float in [lo, hi).
    fn range(&mut self, lo: f32, hi: f32) -> f32 {
        let u = (self.next() >> 40) as f32 / (1u64 << 24) as f32;
        lo + (hi - lo) * u
    }
}

/// One input: two vec4s the WGSL call reads as `a` and `b`.
type Input = [[f32; 4]; 2];

/// A texture as both sides see it.
struct Tex {
    desc: TextureDesc,
    bytes: Vec<u8>,
    wgpu_format: wgpu::TextureFormat,
    /// WGSL type of the binding (`texture_2d<f32>`, …).
    wgsl_type: &'static str,
    view_dim: wgpu::TextureViewDimension,
}

impl Tex {
    fn view(&self) -> TextureView {
        TextureView::whole(Texture::from_bytes(self.desc, &self.bytes).expect("texture"))
    }
}

fn wgpu_address(m: AddressMode) -> wgpu::AddressMode {
    match m {
        AddressMode::Wrap => wgpu::AddressMode::Repeat,
        AddressMode::Mirror => wgpu::AddressMode::MirrorRepeat,
        AddressMode::Clamp => wgpu::AddressMode::ClampToEdge,
        AddressMode::Border => wgpu::AddressMode::ClampToBorder,
        AddressMode::MirrorOnce => panic!("wgpu has no mirror-once address mode"),
    }
}

fn wgpu_filter(f: FilterType) -> wgpu::FilterMode {
    match f {
        FilterType::Point => wgpu::FilterMode::Nearest,
        FilterType::Linear => wgpu::FilterMode::Linear,
    }
}

fn wgpu_compare(c: ComparisonFunc) -> wgpu::CompareFunction {
    match c {
        ComparisonFunc::Never => wgpu::CompareFunction::Never,
        ComparisonFunc::Less => wgpu::CompareFunction::Less,
        ComparisonFunc::Equal => wgpu::CompareFunction::Equal,
        ComparisonFunc::LessEqual => wgpu::CompareFunction::LessEqual,
        ComparisonFunc::Greater => wgpu::CompareFunction::Greater,
        ComparisonFunc::NotEqual => wgpu::CompareFunction::NotEqual,
        ComparisonFunc::GreaterEqual => wgpu::CompareFunction::GreaterEqual,
        ComparisonFunc::Always => wgpu::CompareFunction::Always,
    }
}

/// wgpu's fixed border colours, matched to dxlane's.
fn wgpu_border(c: [f32; 4]) -> wgpu::SamplerBorderColor {
    match c {
        [0.0, 0.0, 0.0, 0.0] => wgpu::SamplerBorderColor::TransparentBlack,
        [0.0, 0.0, 0.0, 1.0] => wgpu::SamplerBorderColor::OpaqueBlack,
        [1.0, 1.0, 1.0, 1.0] => wgpu::SamplerBorderColor::OpaqueWhite,
        _ => panic!("wgpu has no border colour {c:?}"),
    }
}

/// Runs `call` (a WGSL expression of `t`, `s`, `a`, `b` giving a `vec4<f32>`) on every
/// input through lavapipe.
fn lavapipe(
    gpu: &Gpu,
    tex: &Tex,
    sampler: &SamplerDesc,
    comparison: bool,
    call: &str,
    inputs: &[Input],
) -> Vec<[f32; 4]> {
    let d = &gpu.device;
    let layers = tex.desc.depth_or_array_size;
    let texture = d.create_texture_with_data(
        &gpu.queue,
        &wgpu::TextureDescriptor {
            label: None,
            size: wgpu::Extent3d {
                width: tex.desc.width,
                height: tex.desc.height,
                depth_or_array_layers: layers,
            },
            mip_level_count: tex.desc.mips,
            sample_count: 1,
            dimension: wgpu::TextureDimension::D2,
            format: tex.wgpu_format,
            usage: wgpu::TextureUsages::TEXTURE_BINDING | wgpu::TextureUsages::COPY_DST,
            view_formats: &[],
        },
        wgpu::util::TextureDataOrder::LayerMajor,
        &tex.bytes,
    );
    let view = texture.create_view(&wgpu::TextureViewDescriptor {
        dimension: Some(tex.view_dim),
        ..Default::default()
    });
    let f = sampler.filter;
    let s = d.create_sampler(&wgpu::SamplerDescriptor {
        label: None,
        address_mode_u: wgpu_address(sampler.address[0]),
        address_mode_v: wgpu_address(sampler.address[1]),
        address_mode_w: wgpu_address(sampler.address[2]),
        mag_filter: wgpu_filter(f.mag),
        min_filter: wgpu_filter(f.min),
        mipmap_filter: match f.mip {
            FilterType::Point => wgpu::MipmapFilterMode::Nearest,
            FilterType::Linear => wgpu::MipmapFilterMode::Linear,
        },
        lod_min_clamp: sampler.min_lod.max(0.0),
        lod_max_clamp: sampler.max_lod.min(32.0),
        compare: comparison.then(|| wgpu_compare(sampler.comparison)),
        anisotropy_clamp: if f.anisotropic {
            sampler.max_anisotropy as u16
        } else {
            1
        },
        border_color: sampler
            .address
            .contains(&AddressMode::Border)
            .then(|| wgpu_border(sampler.border_color)),
    });
    let sampler_type = if comparison {
        "sampler_comparison"
    } else {
        "sampler"
    };
    let wgsl = format!(
        "@group(0) @binding(0) var t: {ty};
@group(0) @binding(1) var s: {sampler_type};
struct In {{ a: vec4<f32>, b: vec4<f32> }}
@group(0) @binding(2) var<storage, read> inp: array<In>;
@group(0) @binding(3) var<storage, read_write> outp: array<vec4<f32>>;
@compute @workgroup_size(64)
fn main(@builtin(global_invocation_id) id: vec3<u32>) {{
    _ = t;
    _ = s;
    let i = id.x;
    if (i >= arrayLength(&inp)) {{ return; }}
    let a = inp[i].a;
    let b = inp[i].b;
    outp[i] = {call};
}}",
        ty = tex.wgsl_type
    );
    let module = d.create_shader_module(wgpu::ShaderModuleDescriptor {
        label: None,
        source: wgpu::ShaderSource::Wgsl(wgsl.into()),
    });
    let pipeline = d.create_compute_pipeline(&wgpu::ComputePipelineDescriptor {
        label: None,
        layout: None,
        module: &module,
        entry_point: Some("main"),
        compilation_options: Default::default(),
        cache: None,
    });
    let flat: Vec<f32> = inputs
        .iter()
        .flat_map(|i| i.iter().flatten().copied())
        .collect();
    let input = d.create_buffer_init(&wgpu::util::BufferInitDescriptor {
        label: None,
        contents: &flat
            .iter()
            .flat_map(|x| x.to_le_bytes())
            .collect::<Vec<u8>>(),
        usage: wgpu::BufferUsages::STORAGE,
    });
    let size = (inputs.len() * 16) as u64;
    let output = d.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size,
        usage: wgpu::BufferUsages::STORAGE | wgpu::BufferUsages::COPY_SRC,
        mapped_at_creation: false,
    });
    let readback = d.create_buffer(&wgpu::BufferDescriptor {
        label: None,
        size,
        usage: wgpu::BufferUsages::MAP_READ | wgpu::BufferUsages::COPY_DST,
        mapped_at_creation: false,
    });
    let bind = d.create_bind_group(&wgpu::BindGroupDescriptor {
        label: None,
        layout: &pipeline.get_bind_group_layout(0),
        entries: &[
            wgpu::BindGroupEntry {
                binding: 0,
                resource: wgpu::BindingResource::TextureView(&view),
            },
            wgpu::BindGroupEntry {
                binding: 1,
                resource: wgpu::BindingResource::Sampler(&s),
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
    let mut encoder = d.create_command_encoder(&Default::default());
    {
        let mut pass = encoder.begin_compute_pass(&Default::default());
        pass.set_pipeline(&pipeline);
        pass.set_bind_group(0, &bind, &[]);
        pass.dispatch_workgroups((inputs.len() as u32).div_ceil(64), 1, 1);
    }
    encoder.copy_buffer_to_buffer(&output, 0, &readback, 0, size);
    gpu.queue.submit([encoder.finish()]);
    readback.slice(..).map_async(wgpu::MapMode::Read, |_| {});
    d.poll(wgpu::PollType::wait_indefinitely()).expect("poll");
    let bytes = readback.slice(..).get_mapped_range().expect("map").to_vec();
    bytes
        .chunks_exact(16)
        .map(|c| {
            let f = |k: usize| f32::from_le_bytes([c[k], c[k + 1], c[k + 2], c[k + 3]]);
            [f(0), f(4), f(8), f(12)]
        })
        .collect()
}

/// Compares the two sides: returns the largest absolute difference, asserting that it
/// is at most `bound` (NaN on either side must match) and that `min_count` values were
/// compared.
fn compare(
    family: &str,
    ours: &[[f32; 4]],
    theirs: &[[f32; 4]],
    bound: f32,
    inputs: &[Input],
) -> f32 {
    assert_eq!(ours.len(), theirs.len());
    assert!(
        ours.len() >= 64,
        "{family}: only {} inputs compared",
        ours.len()
    );
    let mut worst = 0f32;
    let mut sum = 0f64;
    for (k, (o, t)) in ours.iter().zip(theirs).enumerate() {
        for c in 0..4 {
            let d = if o[c].is_nan() || t[c].is_nan() {
                if o[c].is_nan() && t[c].is_nan() {
                    0.0
                } else {
                    f32::INFINITY
                }
            } else if ulps(o[c], t[c]) <= 1 {
                // lavapipe converts UNORM/SNORM texels by multiplying by 1/(2^n − 1), which
                // can be one ulp off the correctly rounded quotient D3D11.3 §3.2.3.2 asks
                // for; an exact family accepts that and nothing more.
                0.0
            } else {
                (o[c] - t[c]).abs()
            };
            assert!(
                d <= bound,
                "{family}: input {k} {:?} component {c}: dxlane {o:?}, lavapipe {t:?} (difference {d}, bound {bound})",
                inputs[k]
            );
            worst = worst.max(d);
            sum += f64::from(d);
        }
    }
    eprintln!(
        "{family}: {} values, largest difference {worst:e} (bound {bound:e}), mean {:e}",
        ours.len() * 4,
        sum / (ours.len() * 4) as f64
    );
    worst
}

/// The distance in units in the last place between two finite floats of one sign.
fn ulps(a: f32, b: f32) -> u32 {
    if a == b {
        return 0;
    }
    if a.is_sign_negative() != b.is_sign_negative() {
        return u32::MAX;
    }
    a.to_bits().abs_diff(b.to_bits())
}

fn rgba8(w: u32, h: u32, layers: u32, mips: u32, dim: TextureDim, rng: &mut Rng) -> Tex {
    let desc = TextureDesc {
        dim,
        format: Format::R8G8B8A8_UNORM,
        width: w,
        height: h,
        depth_or_array_size: layers,
        mips,
        samples: 1,
    };
    let bytes = rng.bytes(desc.total_bytes() as usize);
    let (wgsl_type, view_dim) = match dim {
        TextureDim::Tex2DArray => ("texture_2d_array<f32>", wgpu::TextureViewDimension::D2Array),
        TextureDim::Cube => ("texture_cube<f32>", wgpu::TextureViewDimension::Cube),
        _ => ("texture_2d<f32>", wgpu::TextureViewDimension::D2),
    };
    Tex {
        desc,
        bytes,
        wgpu_format: wgpu::TextureFormat::Rgba8Unorm,
        wgsl_type,
        view_dim,
    }
}

fn sampler(filter: Filter, address: AddressMode) -> SamplerDesc {
    SamplerDesc {
        filter,
        address: [address; 3],
        min_lod: 0.0,
        max_lod: 32.0,
        border_color: [1.0, 1.0, 1.0, 1.0],
        ..SamplerDesc::default()
    }
}

fn level(coord: [f32; 4], lod: f32) -> SampleInput {
    SampleInput {
        coord,
        offset: [0; 3],
        lod: Lod::Level(lod),
        min_lod_clamp: f32::NEG_INFINITY,
        reference: None,
    }
}

/// A coordinate in [lo, hi) whose scaled position `u × size` (minus `shift`) keeps at
/// least 1/16 texel from a texel edge.
fn safe_coord(rng: &mut Rng, lo: f32, hi: f32, size: u32, shift: f32) -> f32 {
    loop {
        let u = rng.range(lo, hi);
        let x = u * size as f32 - shift;
        let f = x - x.floor();
        if (0.0625..0.9375).contains(&f) {
            return u;
        }
    }
}

fn dxlane_side(
    view: &TextureView,
    s: &SamplerDesc,
    inputs: &[Input],
    f: impl Fn(&Input) -> SampleInput,
) -> Vec<[f32; 4]> {
    inputs
        .iter()
        .map(|i| sample(view, s, &f(i)).map(f32::from_bits))
        .collect()
}

/// Loads, point sampling through every address mode (with borders) and bilinear
/// filtering at mip 0, on an RGBA8 texture with mips.
#[test]
fn point_linear_and_address_modes() {
    let Some(gpu) = cpu_device("sampling_lavapipe::point_linear_and_address_modes") else {
        return;
    };
    let mut rng = Rng(1);
    let tex = rgba8(16, 8, 1, 4, TextureDim::Tex2D, &mut rng);
    let view = tex.view();
    // Loads of every texel of every mip.
    let mut inputs = Vec::new();
    for m in 0..4u32 {
        let [w, h, _] = tex.desc.mip_size(m);
        for y in 0..h {
            for x in 0..w {
                inputs.push([[x as f32, y as f32, 0.0, 0.0], [m as f32, 0.0, 0.0, 0.0]]);
            }
        }
    }
    let s = sampler(Filter::POINT, AddressMode::Clamp);
    let theirs = lavapipe(
        gpu,
        &tex,
        &s,
        false,
        "textureLoad(t, vec2<i32>(a.xy), i32(b.x))",
        &inputs,
    );
    let ours: Vec<[f32; 4]> = inputs
        .iter()
        .map(|i| {
            view.load([i[0][0] as u32, i[0][1] as u32, 0], i[1][0] as u32, 0)
                .unwrap()
                .map(f32::from_bits)
        })
        .collect();
    compare("loads rgba8", &ours, &theirs, 0.0, &inputs);
    for mode in [
        AddressMode::Wrap,
        AddressMode::Mirror,
        AddressMode::Clamp,
        AddressMode::Border,
    ] {
        for border in [[1.0, 1.0, 1.0, 1.0], [0.0, 0.0, 0.0, 0.0]] {
            let mut s = sampler(Filter::POINT, mode);
            s.border_color = border;
            let inputs: Vec<Input> = (0..256)
                .map(|_| {
                    let lod = (rng.next() % 4) as f32;
                    let m = lod as u32;
                    let [w, h, _] = tex.desc.mip_size(m);
                    [
                        [
                            safe_coord(&mut rng, -2.5, 2.5, w, 0.0),
                            safe_coord(&mut rng, -2.5, 2.5, h, 0.0),
                            0.0,
                            0.0,
                        ],
                        [lod, 0.0, 0.0, 0.0],
                    ]
                })
                .collect();
            let theirs = lavapipe(
                gpu,
                &tex,
                &s,
                false,
                "textureSampleLevel(t, s, a.xy, b.x)",
                &inputs,
            );
            let ours = dxlane_side(&view, &s, &inputs, |i| {
                level([i[0][0], i[0][1], 0.0, 0.0], i[1][0])
            });
            compare(
                &format!("point {}", mode.name()),
                &ours,
                &theirs,
                0.0,
                &inputs,
            );
        }
        let s = sampler(Filter::LINEAR, mode);
        let inputs: Vec<Input> = (0..256)
            .map(|_| {
                [
                    [rng.range(-2.5, 2.5), rng.range(-2.5, 2.5), 0.0, 0.0],
                    [0.0; 4],
                ]
            })
            .collect();
        let theirs = lavapipe(
            gpu,
            &tex,
            &s,
            false,
            "textureSampleLevel(t, s, a.xy, b.x)",
            &inputs,
        );
        let ours = dxlane_side(&view, &s, &inputs, |i| {
            level([i[0][0], i[0][1], 0.0, 0.0], 0.0)
        });
        compare(
            &format!("bilinear {}", mode.name()),
            &ours,
            &theirs,
            2.0 / 255.0,
            &inputs,
        );
    }
}

/// Trilinear filtering at explicit fractional LODs (the mip fraction), and 16×
/// anisotropic filtering from gradients.
#[test]
fn trilinear_and_anisotropic() {
    let Some(gpu) = cpu_device("sampling_lavapipe::trilinear_and_anisotropic") else {
        return;
    };
    let mut rng = Rng(2);
    let tex = rgba8(32, 32, 1, 6, TextureDim::Tex2D, &mut rng);
    let view = tex.view();
    let s = sampler(Filter::LINEAR, AddressMode::Wrap);
    let inputs: Vec<Input> = (0..512)
        .map(|_| {
            [
                [rng.range(0.0, 1.0), rng.range(0.0, 1.0), 0.0, 0.0],
                [rng.range(0.0, 5.0), 0.0, 0.0, 0.0],
            ]
        })
        .collect();
    let theirs = lavapipe(
        gpu,
        &tex,
        &s,
        false,
        "textureSampleLevel(t, s, a.xy, b.x)",
        &inputs,
    );
    let ours = dxlane_side(&view, &s, &inputs, |i| {
        level([i[0][0], i[0][1], 0.0, 0.0], i[1][0])
    });
    compare(
        "trilinear, fractional LOD",
        &ours,
        &theirs,
        3.0 / 255.0,
        &inputs,
    );

    // Anisotropic filtering on a smooth texture (each mip samples the same periodic
    // function at its texel centres), where a difference measures the footprint rather
    // than the noise between neighbouring texels.
    let desc = TextureDesc {
        mips: 6,
        ..TextureDesc::tex2d(Format::R8G8B8A8_UNORM, 32, 32)
    };
    let mut bytes = Vec::new();
    for m in 0..6 {
        let [w, h, _] = desc.mip_size(m);
        for y in 0..h {
            for x in 0..w {
                let (u, v) = ((x as f32 + 0.5) / w as f32, (y as f32 + 0.5) / h as f32);
                let tau = std::f32::consts::TAU;
                let ch = [
                    0.5 + 0.5 * (tau * u).sin(),
                    0.5 + 0.5 * (tau * v).cos(),
                    0.5 + 0.5 * (tau * (u + v)).sin(),
                    1.0,
                ];
                bytes.extend(ch.map(|c| (c * 255.0).round() as u8));
            }
        }
    }
    let tex = Tex {
        desc,
        bytes,
        wgpu_format: wgpu::TextureFormat::Rgba8Unorm,
        wgsl_type: "texture_2d<f32>",
        view_dim: wgpu::TextureViewDimension::D2,
    };
    let view = tex.view();
    // Gradients, isotropic: lavapipe approximates the gradients' lengths (llvmpipe's
    // "rho" approximation, which Vulkan allows), which moves the LOD by up to half a
    // level; on this smooth texture that is a few hundredths.
    let mut rng_g = Rng(20);
    let grads = |rng: &mut Rng, ratio_hi: f32| -> Vec<Input> {
        (0..512)
            .map(|_| {
                let len = rng.range(1.0, 2.0) / 32.0;
                let angle = rng.range(0.0, std::f32::consts::TAU);
                let ratio = rng.range(1.0, ratio_hi);
                let (c, sn) = (angle.cos(), angle.sin());
                [
                    [rng.range(0.0, 1.0), rng.range(0.0, 1.0), 0.0, 0.0],
                    [c * len * ratio, sn * len * ratio, -sn * len, c * len],
                ]
            })
            .collect()
    };
    let grad_input = |i: &Input| SampleInput {
        lod: Lod::Gradients {
            ddx: [i[1][0], i[1][1], 0.0],
            ddy: [i[1][2], i[1][3], 0.0],
            bias: 0.0,
        },
        ..level([i[0][0], i[0][1], 0.0, 0.0], 0.0)
    };
    let iso = sampler(Filter::LINEAR, AddressMode::Wrap);
    let inputs = grads(&mut rng_g, 8.0);
    let theirs = lavapipe(
        gpu,
        &tex,
        &iso,
        false,
        "textureSampleGrad(t, s, a.xy, b.xy, b.zw)",
        &inputs,
    );
    let ours = dxlane_side(&view, &iso, &inputs, grad_input);
    compare("gradients, isotropic", &ours, &theirs, 0.05, &inputs);
    // Anisotropic filtering: lavapipe's anisotropic filter is not §7.18.11's — even for
    // round footprints it lands on much coarser mips (its results sit near the texture's
    // mean, about 0.5 here) — so the two agree only in staying within the texture's range
    // (bound 1); the output shows how far apart they are. What §7.18.11 fixes is checked
    // on dxlane's side: a round footprint (ratio 1) filters exactly as trilinear.
    let mut s = sampler(Filter::from_name("ANISOTROPIC").unwrap(), AddressMode::Wrap);
    s.max_anisotropy = 16;
    let inputs = grads(&mut rng_g, 1.0);
    let theirs = lavapipe(
        gpu,
        &tex,
        &s,
        false,
        "textureSampleGrad(t, s, a.xy, b.xy, b.zw)",
        &inputs,
    );
    let ours = dxlane_side(&view, &s, &inputs, grad_input);
    assert_eq!(ours, dxlane_side(&view, &iso, &inputs, grad_input));
    compare("anisotropic 16x, ratio 1", &ours, &theirs, 1.0, &inputs);
    let inputs = grads(&mut rng_g, 8.0);
    let theirs = lavapipe(
        gpu,
        &tex,
        &s,
        false,
        "textureSampleGrad(t, s, a.xy, b.xy, b.zw)",
        &inputs,
    );
    let ours = dxlane_side(&view, &s, &inputs, grad_input);
    compare("anisotropic 16x, ratio 1..8", &ours, &theirs, 1.0, &inputs);
}

/// Texture arrays (point and bilinear) and cube maps: faces by point sampling, seams and
/// corners by bilinear filtering.
#[test]
fn arrays_and_cubes() {
    let Some(gpu) = cpu_device("sampling_lavapipe::arrays_and_cubes") else {
        return;
    };
    let mut rng = Rng(3);
    let tex = rgba8(8, 8, 5, 1, TextureDim::Tex2DArray, &mut rng);
    let view = tex.view();
    for (filter, bound, name) in [
        (Filter::POINT, 0.0, "array point"),
        (Filter::LINEAR, 2.0 / 255.0, "array bilinear"),
    ] {
        let s = sampler(filter, AddressMode::Clamp);
        let inputs: Vec<Input> = (0..256)
            .map(|_| {
                [
                    [
                        safe_coord(&mut rng, 0.0, 1.0, 8, 0.0),
                        safe_coord(&mut rng, 0.0, 1.0, 8, 0.0),
                        (rng.next() % 5) as f32,
                        0.0,
                    ],
                    [0.0; 4],
                ]
            })
            .collect();
        let theirs = lavapipe(
            gpu,
            &tex,
            &s,
            false,
            "textureSampleLevel(t, s, a.xy, i32(a.z), 0.0)",
            &inputs,
        );
        let ours = dxlane_side(&view, &s, &inputs, |i| {
            level([i[0][0], i[0][1], i[0][2], 0.0], 0.0)
        });
        compare(name, &ours, &theirs, bound, &inputs);
    }
    let tex = rgba8(8, 8, 6, 1, TextureDim::Cube, &mut rng);
    let view = tex.view();
    // Point: directions whose face coordinates keep 1/16 texel from texel edges.
    let s = sampler(Filter::POINT, AddressMode::Clamp);
    let mut inputs = Vec::new();
    while inputs.len() < 256 {
        let d = [
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
            rng.range(-1.0, 1.0),
        ];
        let (_, u, v) = dxlane::resources::sample::cube_face(d);
        let ok = |x: f32| {
            let f = x * 8.0 - (x * 8.0).floor();
            (0.0625..0.9375).contains(&f)
        };
        let m = d[0].abs().max(d[1].abs()).max(d[2].abs());
        let second = {
            let mut a = [d[0].abs(), d[1].abs(), d[2].abs()];
            a.sort_by(f32::total_cmp);
            a[1]
        };
        if ok(u) && ok(v) && m - second > 0.01 {
            inputs.push([[d[0], d[1], d[2], 0.0], [0.0; 4]]);
        }
    }
    let theirs = lavapipe(
        gpu,
        &tex,
        &s,
        false,
        "textureSampleLevel(t, s, a.xyz, 0.0)",
        &inputs,
    );
    let ours = dxlane_side(&view, &s, &inputs, |i| {
        level([i[0][0], i[0][1], i[0][2], 0.0], 0.0)
    });
    compare("cube point", &ours, &theirs, 0.0, &inputs);
    // Bilinear near edges (one face coordinate within half a texel of an edge).
    let s = sampler(Filter::LINEAR, AddressMode::Clamp);
    let mut inputs = Vec::new();
    while inputs.len() < 256 {
        let face = (rng.next() % 6) as u32;
        let e = rng.range(0.0, 0.5 / 8.0);
        let along = rng.range(0.1, 0.9);
        let (sc, tc) = if rng.next() % 2 == 0 {
            (1.0 - 2.0 * e, 2.0 * along - 1.0)
        } else {
            (2.0 * along - 1.0, -1.0 + 2.0 * e)
        };
        let d = match face {
            0 => [1.0, -tc, -sc],
            1 => [-1.0, -tc, sc],
            2 => [sc, 1.0, tc],
            3 => [sc, -1.0, -tc],
            4 => [sc, -tc, 1.0],
            _ => [-sc, -tc, -1.0],
        };
        inputs.push([[d[0], d[1], d[2], 0.0], [0.0; 4]]);
    }
    let theirs = lavapipe(
        gpu,
        &tex,
        &s,
        false,
        "textureSampleLevel(t, s, a.xyz, 0.0)",
        &inputs,
    );
    let ours = dxlane_side(&view, &s, &inputs, |i| {
        level([i[0][0], i[0][1], i[0][2], 0.0], 0.0)
    });
    compare("cube seams bilinear", &ours, &theirs, 2.0 / 255.0, &inputs);
    // Corners: all three face coordinates within half a texel of the cube's corners.
    let mut inputs = Vec::new();
    while inputs.len() < 128 {
        let sign = |k: u64| if k & 1 == 1 { 1.0 } else { -1.0 };
        let r = rng.next();
        let d = [
            sign(r) * (1.0 - rng.range(0.0, 0.12)),
            sign(r >> 1) * (1.0 - rng.range(0.0, 0.12)),
            sign(r >> 2) * (1.0 - rng.range(0.0, 0.12)),
        ];
        inputs.push([[d[0], d[1], d[2], 0.0], [0.0; 4]]);
    }
    let theirs = lavapipe(
        gpu,
        &tex,
        &s,
        false,
        "textureSampleLevel(t, s, a.xyz, 0.0)",
        &inputs,
    );
    let ours = dxlane_side(&view, &s, &inputs, |i| {
        level([i[0][0], i[0][1], i[0][2], 0.0], 0.0)
    });
    compare(
        "cube corners bilinear",
        &ours,
        &theirs,
        2.0 / 255.0,
        &inputs,
    );
}

/// Comparison sampling and gathers (with offsets, and gather-compare) of a D16 texture.
#[test]
fn comparison_and_gather() {
    let Some(gpu) = cpu_device("sampling_lavapipe::comparison_and_gather") else {
        return;
    };
    let mut rng = Rng(4);
    let desc = TextureDesc::tex2d(Format::D16_UNORM, 16, 16);
    let depth = Tex {
        desc,
        bytes: rng.bytes(desc.total_bytes() as usize),
        wgpu_format: wgpu::TextureFormat::Depth16Unorm,
        wgsl_type: "texture_depth_2d",
        view_dim: wgpu::TextureViewDimension::D2,
    };
    let view = depth.view();
    for (filter, bound, name) in [
        ("COMPARISON_MIN_MAG_MIP_POINT", 0.0, "comparison point"),
        (
            "COMPARISON_MIN_MAG_MIP_LINEAR",
            2.0 / 255.0,
            "comparison bilinear",
        ),
    ] {
        let mut s = sampler(Filter::from_name(filter).unwrap(), AddressMode::Clamp);
        s.comparison = ComparisonFunc::LessEqual;
        let inputs: Vec<Input> = (0..256)
            .map(|_| {
                [
                    [
                        safe_coord(&mut rng, 0.0, 1.0, 16, 0.0),
                        safe_coord(&mut rng, 0.0, 1.0, 16, 0.0),
                        rng.range(0.0, 1.0),
                        0.0,
                    ],
                    [0.0; 4],
                ]
            })
            .collect();
        let theirs = lavapipe(
            gpu,
            &depth,
            &s,
            true,
            "vec4<f32>(textureSampleCompareLevel(t, s, a.xy, a.z))",
            &inputs,
        );
        let ours: Vec<[f32; 4]> = inputs
            .iter()
            .map(|i| {
                let mut inp = level([i[0][0], i[0][1], 0.0, 0.0], 0.0);
                inp.reference = Some(i[0][2]);
                let r = f32::from_bits(sample(&view, &s, &inp)[0]);
                [r; 4]
            })
            .collect();
        compare(name, &ours, &theirs, bound, &inputs);
    }
    // Gathers: coordinates whose linear footprint keeps 1/16 texel from a texel centre.
    let s = sampler(Filter::POINT, AddressMode::Wrap);
    let inputs: Vec<Input> = (0..256)
        .map(|_| {
            [
                [
                    safe_coord(&mut rng, -1.0, 2.0, 16, 0.5),
                    safe_coord(&mut rng, -1.0, 2.0, 16, 0.5),
                    rng.range(0.0, 1.0),
                    0.0,
                ],
                [0.0; 4],
            ]
        })
        .collect();
    let theirs = lavapipe(
        gpu,
        &depth,
        &s,
        false,
        "textureGather(t, s, a.xy, vec2<i32>(3, -2))",
        &inputs,
    );
    let ours: Vec<[f32; 4]> = inputs
        .iter()
        .map(|i| {
            gather(&view, &s, [i[0][0], i[0][1], 0.0, 0.0], [3, -2], 0, None).map(f32::from_bits)
        })
        .collect();
    compare("gather with offsets", &ours, &theirs, 0.0, &inputs);
    let mut s = sampler(
        Filter::from_name("COMPARISON_MIN_MAG_MIP_POINT").unwrap(),
        AddressMode::Wrap,
    );
    s.comparison = ComparisonFunc::Greater;
    let theirs = lavapipe(
        gpu,
        &depth,
        &s,
        true,
        "textureGatherCompare(t, s, a.xy, a.z)",
        &inputs,
    );
    let ours: Vec<[f32; 4]> = inputs
        .iter()
        .map(|i| {
            gather(
                &view,
                &s,
                [i[0][0], i[0][1], 0.0, 0.0],
                [0, 0],
                0,
                Some(i[0][2]),
            )
            .map(f32::from_bits)
        })
        .collect();
    compare("gather-compare", &ours, &theirs, 0.0, &inputs);
}

/// BC1–BC7: every texel of every mip of an 8×8 texture with random blocks (mips 2×2 and
/// 1×1 use part of a block), by loads; BC7 also by bilinear sampling.
#[test]
fn block_compressed() {
    let Some(gpu) = cpu_device("sampling_lavapipe::block_compressed") else {
        return;
    };
    let mut rng = Rng(5);
    use wgpu::TextureFormat as W;
    let cases: [(Format, W, f32); 14] = [
        (Format::BC1_UNORM, W::Bc1RgbaUnorm, 1.0 / 255.0 + 0.03),
        (
            Format::BC1_UNORM_SRGB,
            W::Bc1RgbaUnormSrgb,
            1.0 / 255.0 + 0.03,
        ),
        (Format::BC2_UNORM, W::Bc2RgbaUnorm, 1.0 / 255.0 + 0.03),
        (
            Format::BC2_UNORM_SRGB,
            W::Bc2RgbaUnormSrgb,
            1.0 / 255.0 + 0.03,
        ),
        (Format::BC3_UNORM, W::Bc3RgbaUnorm, 1.0 / 255.0 + 0.03),
        (
            Format::BC3_UNORM_SRGB,
            W::Bc3RgbaUnormSrgb,
            1.0 / 255.0 + 0.03,
        ),
        (Format::BC4_UNORM, W::Bc4RUnorm, 1.0 / 65535.0 + 0.03),
        (Format::BC4_SNORM, W::Bc4RSnorm, 1.0 / 32767.0 + 0.06),
        (Format::BC5_UNORM, W::Bc5RgUnorm, 1.0 / 65535.0 + 0.03),
        (Format::BC5_SNORM, W::Bc5RgSnorm, 1.0 / 32767.0 + 0.06),
        (Format::BC6H_UF16, W::Bc6hRgbUfloat, 0.0),
        (Format::BC6H_SF16, W::Bc6hRgbFloat, 0.0),
        (Format::BC7_UNORM, W::Bc7RgbaUnorm, 0.0),
        // lavapipe's sRGB curve differs from the correctly rounded one in the last bits
        // (§3.2.3.7 allows half an sRGB code); the decoded codes are still exact.
        (Format::BC7_UNORM_SRGB, W::Bc7RgbaUnormSrgb, 1e-5),
    ];
    for (format, wf, bound) in cases {
        let desc = TextureDesc {
            mips: 4,
            ..TextureDesc::tex2d(format, 8, 8)
        };
        let tex = Tex {
            desc,
            bytes: rng.bytes(desc.total_bytes() as usize),
            wgpu_format: wf,
            wgsl_type: "texture_2d<f32>",
            view_dim: wgpu::TextureViewDimension::D2,
        };
        let view = tex.view();
        let mut inputs = Vec::new();
        for rep in 0..4 {
            for m in 0..4u32 {
                let [w, h, _] = desc.mip_size(m);
                for y in 0..h {
                    for x in 0..w {
                        if rep == 0 || m == 0 {
                            inputs
                                .push([[x as f32, y as f32, 0.0, 0.0], [m as f32, 0.0, 0.0, 0.0]]);
                        }
                    }
                }
            }
        }
        let s = sampler(Filter::POINT, AddressMode::Clamp);
        let theirs = lavapipe(
            gpu,
            &tex,
            &s,
            false,
            "textureLoad(t, vec2<i32>(a.xy), i32(b.x))",
            &inputs,
        );
        let ours: Vec<[f32; 4]> = inputs
            .iter()
            .map(|i| {
                view.load([i[0][0] as u32, i[0][1] as u32, 0], i[1][0] as u32, 0)
                    .unwrap()
                    .map(f32::from_bits)
            })
            .collect();
        let bound = if format.is_srgb() && bound > 0.01 {
            bound + 1.0 / 255.0
        } else {
            bound
        };
        compare(&format!("{format} loads"), &ours, &theirs, bound, &inputs);
        if format == Format::BC7_UNORM {
            let s = sampler(Filter::LINEAR, AddressMode::Wrap);
            let inputs: Vec<Input> = (0..256)
                .map(|_| {
                    [
                        [rng.range(0.0, 1.0), rng.range(0.0, 1.0), 0.0, 0.0],
                        [rng.range(0.0, 3.0), 0.0, 0.0, 0.0],
                    ]
                })
                .collect();
            let theirs = lavapipe(
                gpu,
                &tex,
                &s,
                false,
                "textureSampleLevel(t, s, a.xy, b.x)",
                &inputs,
            );
            let ours = dxlane_side(&view, &s, &inputs, |i| {
                level([i[0][0], i[0][1], 0.0, 0.0], i[1][0])
            });
            compare("BC7 trilinear", &ours, &theirs, 3.0 / 255.0, &inputs);
        }
    }
}
