//! The site against the reference, bit for bit. The rules are D3D11.3 §7.18's, as
//! `resources::sample` states and implements them; these tests only hold the site to
//! the same bits, and check that what the site does not cover is refused.

use super::super::format::Format;
use super::super::sample::{self, Lod, SampleInput};
use super::super::sampler::{AddressMode, Filter, FilterType, Reduction, SamplerDesc};
use super::super::texture::{Texture, TextureDesc, TextureDim, TextureView};
use super::*;

/// A small deterministic generator for the many inputs of one property case.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        // xorshift64*
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    fn unit(&mut self) -> f32 {
        (self.next() >> 40) as f32 / (1u64 << 24) as f32
    }

    /// A hostile or ordinary value for a coordinate along an axis of `size` texels.
    fn coord(&mut self, size: u32) -> f32 {
        let n = size as f32;
        let k = self.below(u64::from(size) + 2) as f32 - 1.0;
        match self.below(12) {
            0 => [
                f32::NAN,
                f32::INFINITY,
                f32::NEG_INFINITY,
                1e30,
                -1e30,
                3e9,
                -3e9,
                0.0,
                -0.0,
                f32::MIN_POSITIVE / 4.0,
                1.0,
                -1.0,
            ][self.below(12) as usize],
            // Texel centres and edges, and just beside them.
            1 => (k + 0.5) / n,
            2 => k / n,
            3 => k / n + 1.0 / (512.0 * n),
            4 => k / n - 1.0 / (512.0 * n),
            5 => (k + 0.5) / n + 1.0 / (1024.0 * n),
            6 => f32::from_bits(self.next() as u32),
            7 => (self.unit() - 0.5) * 2000.0,
            _ => (self.unit() - 0.5) * 6.0,
        }
    }

    /// A hostile or ordinary LOD, bias, gradient or clamp.
    fn value(&mut self, scale: f32) -> f32 {
        match self.below(8) {
            0 => [
                f32::NAN,
                f32::INFINITY,
                f32::NEG_INFINITY,
                0.0,
                -0.0,
                1e30,
                -1e30,
            ][self.below(7) as usize],
            1 => f32::from_bits(self.next() as u32),
            2 => (self.below(64) as f32 - 16.0) / 8.0,
            _ => (self.unit() - 0.5) * scale,
        }
    }
}

/// Texel bytes: random bits, or (for float formats) mostly ordinary values.
fn fill(t: &Texture, rng: &mut Rng, ordinary: bool) {
    let bytes = t.memory().len() as usize;
    let mut data = vec![0u8; bytes];
    let format = t.desc().format;
    let word_floats = matches!(format, Format::R32_FLOAT | Format::R32G32B32A32_FLOAT);
    for c in data.chunks_mut(4) {
        let w = if ordinary && word_floats {
            ((rng.unit() - 0.25) * 8.0).to_bits()
        } else if ordinary && format == Format::R16G16B16A16_FLOAT {
            // Halves of moderate exponents.
            let h = |r: &mut Rng| (r.below(0x7800) as u32) | ((r.below(2) as u32) << 15);
            h(rng) | (h(rng) << 16)
        } else {
            rng.next() as u32
        };
        let b = w.to_le_bytes();
        c.copy_from_slice(&b[..c.len()]);
    }
    t.memory().write_bytes(0, &data);
}

const ADDRESS: [AddressMode; 5] = [
    AddressMode::Wrap,
    AddressMode::Mirror,
    AddressMode::Clamp,
    AddressMode::Border,
    AddressMode::MirrorOnce,
];

const BORDERS: [[f32; 4]; 5] = [
    [0.0, 0.0, 0.0, 0.0],
    [1.0, 1.0, 1.0, 1.0],
    [0.25, -3.0, 2.0, f32::NAN],
    [7.0, 8.0, 9.0, 0.5],
    [1e9, -1e9, 70000.0, -0.0],
];

fn filter_type(linear: bool) -> FilterType {
    if linear {
        FilterType::Linear
    } else {
        FilterType::Point
    }
}

/// One property case's texture, view and sampler.
#[derive(Debug, Clone)]
struct Case {
    format: usize,
    view_format: bool,
    array: bool,
    w: u32,
    h: u32,
    slices: u32,
    mips: u32,
    view_mip: (u32, u32),
    view_slice: (u32, u32),
    address: [usize; 2],
    border: usize,
    filter: [bool; 3],
    reduction: u8,
    bias: f32,
    lod_range: (f32, f32),
    seed: u64,
    ordinary: bool,
}

const FORMATS: [Format; 7] = [
    Format::R8G8B8A8_UNORM,
    Format::R8G8B8A8_UNORM_SRGB,
    Format::B8G8R8A8_UNORM,
    Format::B8G8R8A8_UNORM_SRGB,
    Format::R32G32B32A32_FLOAT,
    Format::R16G16B16A16_FLOAT,
    Format::R32_FLOAT,
];

/// The view format a texture of `f` may also be read as (same texel layout).
fn other_view_format(f: Format) -> Format {
    match f {
        Format::R8G8B8A8_UNORM => Format::R8G8B8A8_UNORM_SRGB,
        Format::R8G8B8A8_UNORM_SRGB => Format::R8G8B8A8_UNORM,
        Format::B8G8R8A8_UNORM => Format::B8G8R8A8_UNORM_SRGB,
        Format::B8G8R8A8_UNORM_SRGB => Format::B8G8R8A8_UNORM,
        f => f,
    }
}

fn build(c: &Case) -> (TextureView, SamplerDesc) {
    let format = FORMATS[c.format % FORMATS.len()];
    let max_mips = 32 - c.w.max(c.h).leading_zeros();
    let mips = c.mips.clamp(1, max_mips);
    let slices = if c.array { c.slices.max(1) } else { 1 };
    let desc = TextureDesc {
        dim: if c.array {
            TextureDim::Tex2DArray
        } else {
            TextureDim::Tex2D
        },
        format,
        width: c.w,
        height: c.h,
        depth_or_array_size: slices,
        mips,
        samples: 1,
    };
    let t = Texture::new(desc).unwrap();
    fill(&t, &mut Rng(c.seed | 1), c.ordinary);
    let first_mip = c.view_mip.0 % mips;
    let mip_levels = 1 + c.view_mip.1 % (mips - first_mip);
    let first_slice = c.view_slice.0 % slices;
    let array_size = 1 + c.view_slice.1 % (slices - first_slice);
    let view = TextureView {
        texture: t,
        // A 2D view of one slice of an array, or an array view of a range of slices.
        dim: desc.dim,
        format: if c.view_format {
            other_view_format(format)
        } else {
            format
        },
        most_detailed_mip: first_mip,
        mip_levels,
        first_slice,
        array_size: if c.array { array_size } else { 1 },
    };
    view.validate().unwrap();
    let reduction = match c.reduction % 4 {
        0 => Reduction::Standard,
        1 => Reduction::Comparison,
        2 => Reduction::Minimum,
        _ => Reduction::Maximum,
    };
    let sampler = SamplerDesc {
        filter: Filter {
            min: filter_type(c.filter[0]),
            mag: filter_type(c.filter[1]),
            mip: filter_type(c.filter[2]),
            anisotropic: false,
            reduction,
        },
        address: [
            ADDRESS[c.address[0] % 5],
            ADDRESS[c.address[1] % 5],
            AddressMode::Wrap,
        ],
        mip_lod_bias: c.bias,
        border_color: BORDERS[c.border % BORDERS.len()],
        min_lod: c.lod_range.0,
        max_lod: c.lod_range.1,
        ..SamplerDesc::default()
    };
    (view, sampler)
}

fn random_input(rng: &mut Rng, view: &TextureView) -> SampleInput {
    let [w, h, _] = view.mip_size(0);
    let lod = if rng.below(3) == 0 {
        Lod::Level(rng.value(12.0))
    } else {
        // Gradients of a few texels either way, or hostile ones.
        let mut g = |n: u32| rng.value(8.0) / n as f32;
        let (ddx, ddy) = ([g(w), g(h), g(1)], [g(w), g(h), g(1)]);
        Lod::Gradients {
            ddx,
            ddy,
            bias: if rng.below(2) == 0 {
                0.0
            } else {
                rng.value(6.0)
            },
        }
    };
    let offset = if rng.below(6) == 0 {
        [i32::MAX, i32::MIN, 3][rng.below(3) as usize]
    } else {
        rng.below(16) as i32 - 8
    };
    SampleInput {
        coord: [
            rng.coord(w),
            rng.coord(h),
            rng.value(2.0 * view.array_size as f32),
            rng.value(4.0),
        ],
        offset: [offset, rng.below(16) as i32 - 8, 0],
        lod,
        min_lod_clamp: if rng.below(2) == 0 {
            f32::NEG_INFINITY
        } else {
            rng.value(8.0)
        },
        reference: None,
    }
}

fn lod_bound() -> impl proptest::strategy::Strategy<Value = f32> {
    proptest::prop_oneof![
        proptest::strategy::Just(f32::MIN),
        proptest::strategy::Just(f32::MAX),
        proptest::strategy::Just(f32::NAN),
        -2.0f32..12.0,
    ]
}

proptest::proptest! {
    /// D3D11.3 §7.18 as `resources::sample::sample` implements it: a site gives the same
    /// bits for every sample it takes (random views of 1 to 300 texels with several mips,
    /// arrays and sub-views, every address mode and several border colours, point and
    /// linear min/mag/mip filters, LOD bias and range, hostile coordinates, offsets,
    /// gradients, biases and clamps), and refuses min/max reductions.
    #[test]
    fn sample_site_equals_sample(
        format in 0usize..7, view_format: bool, array: bool,
        w in 1u32..300, h in 1u32..300, slices in 1u32..5, mips in 1u32..10,
        view_mip in (0u32..10, 0u32..10), view_slice in (0u32..5, 0u32..5),
        address in (0usize..5, 0usize..5), border in 0usize..5,
        filter in (proptest::bool::ANY, proptest::bool::ANY, proptest::bool::ANY),
        reduction in 0u8..4,
        bias in proptest::prop_oneof![
            proptest::strategy::Just(0.0f32),
            proptest::strategy::Just(f32::NAN),
            -3.0f32..3.0,
        ],
        lod_range in (lod_bound(), lod_bound()),
        seed: u64, ordinary: bool,
    ) {
        let c = Case {
            format, view_format, array, w, h, slices, mips, view_mip, view_slice,
            address: [address.0, address.1], border, filter: [filter.0, filter.1, filter.2],
            reduction, bias, lod_range, seed, ordinary,
        };
        let (view, sampler) = build(&c);
        let site = SamplerSite::new(&view, &sampler);
        if matches!(sampler.filter.reduction, Reduction::Minimum | Reduction::Maximum) {
            proptest::prop_assert!(site.is_none());
            return Ok(());
        }
        let site = site.expect("a covered view and sampler");
        let mut rng = Rng(seed ^ 0x9e37_79b9_7f4a_7c15);
        for _ in 0..200 {
            let input = random_input(&mut rng, &view);
            let want = sample::sample(&view, &sampler, &input);
            let got = site.sample_input(&input).unwrap();
            proptest::prop_assert_eq!(got, want, "{:?} {:?}", input, sampler);
            let cmp = SampleInput { reference: Some(0.5), ..input };
            proptest::prop_assert!(site.sample_input(&cmp).is_none());
        }
    }
}

proptest::proptest! {
    /// `SamplerSite::sample_lanes` — the two-pass path for a linear filter in one mip and
    /// the lane-at-a-time path for everything else — gives each selected lane the
    /// reference's bits (D3D11.3 §7.18 as `resources::sample::sample` implements it) and
    /// leaves the other lanes alone: random views, samplers and LODs as in
    /// `sample_site_equals_sample`, 32 lanes of hostile coordinates per call (in range,
    /// across edges, far outside, infinite, NaN), random lane selections and offsets.
    #[test]
    fn sample_lanes_equals_sample(
        format in 0usize..7, view_format: bool, array: bool,
        w in 1u32..300, h in 1u32..300, slices in 1u32..5, mips in 1u32..10,
        view_mip in (0u32..10, 0u32..10), view_slice in (0u32..5, 0u32..5),
        address in (0usize..5, 0usize..5), border in 0usize..5,
        filter in (proptest::bool::ANY, proptest::bool::ANY, proptest::bool::ANY),
        lod_range in (lod_bound(), lod_bound()),
        seed: u64, ordinary: bool,
    ) {
        let c = Case {
            format, view_format, array, w, h, slices, mips, view_mip, view_slice,
            address: [address.0, address.1], border, filter: [filter.0, filter.1, filter.2],
            reduction: 0, bias: 0.0, lod_range, seed, ordinary,
        };
        let (view, sampler) = build(&c);
        let site = SamplerSite::new(&view, &sampler).expect("a covered view and sampler");
        let mut rng = Rng(seed ^ 0x51ed_270b_2736_2f87);
        // One scratch per width for all calls, as a wave keeps one, starting dirty: no
        // call may read what an earlier one left.
        let (mut scratch32, mut scratch128) = (LaneScratch::<32>::boxed(), LaneScratch::<128>::boxed());
        dirty(&mut scratch32, &mut rng);
        dirty(&mut scratch128, &mut rng);
        for _ in 0..20 {
            let level = if rng.below(4) == 0 { 0.0 } else { rng.value(6.0) };
            let offset = [rng.below(16) as i32 - 8, rng.below(16) as i32 - 8, 0];
            let offset = if rng.below(8) == 0 { [i32::MAX, i32::MIN, 0] } else { offset };
            // Where the LOD cannot matter, every LOD chooses the fixed choice.
            if let Some(fixed) = site.fixed_choice() {
                for lod in [level, f32::NAN, f32::INFINITY, f32::NEG_INFINITY, -3.5, 1e30] {
                    for clamp in [f32::NEG_INFINITY, 0.0, 2.5, f32::NAN] {
                        proptest::prop_assert_eq!(site.choose(SiteLod::Level(lod), clamp), fixed);
                        let g = SiteLod::Gradient { lod, bias: level };
                        proptest::prop_assert_eq!(site.choose(g, clamp), fixed);
                    }
                }
            }
            // 32 lanes (compute batches), and 128 (pixel batches: both halves of the
            // selection).
            let select = u128::from(rng.next() as u32);
            check_lanes(&site, &view, &sampler, &mut rng, level, offset, select, &mut scratch32)?;
            let select = u128::from(rng.next()) | (u128::from(rng.next()) << 64);
            check_lanes(&site, &view, &sampler, &mut rng, level, offset, select, &mut scratch128)?;
        }
    }
}

/// Fills every array of `s` with random words.
fn dirty<const N: usize>(s: &mut LaneScratch<N>, rng: &mut Rng) {
    let mut junk = || rng.next() as u32;
    let fp = &mut s.footprints;
    for l in 0..N {
        fp.base[0][l] = junk() as i32;
        fp.base[1][l] = junk() as i32;
        fp.frac[0][l] = f32::from_bits(junk());
        fp.frac[1][l] = f32::from_bits(junk());
        fp.fast[l] = junk();
        s.fast_v[l] = junk();
        s.taps.take[l] = junk();
        s.taps.first[l] = junk();
        for k in 0..4 {
            s.taps.words[k][l] = junk();
        }
    }
}

/// One call of `sample_lanes` on `N` lanes of random coordinates with `scratch` as it
/// is, every selected lane against the reference, the others untouched.
#[allow(clippy::too_many_arguments)]
fn check_lanes<const N: usize>(
    site: &SamplerSite<'_>,
    view: &TextureView,
    sampler: &SamplerDesc,
    rng: &mut Rng,
    level: f32,
    offset: [i32; 3],
    select: u128,
    scratch: &mut LaneScratch<N>,
) -> Result<(), proptest::test_runner::TestCaseError> {
    let inputs: Vec<SampleInput> = (0..N).map(|_| random_input(rng, view)).collect();
    let coord: [[u32; N]; 3] =
        std::array::from_fn(|k| std::array::from_fn(|l| inputs[l].coord[k].to_bits()));
    let mut out = [[0xdead_beef_u32; N]; 4];
    let choice = site.choose(SiteLod::Level(level), f32::NEG_INFINITY);
    site.sample_lanes(
        choice,
        [&coord[0], &coord[1], &coord[2]],
        select,
        offset,
        &mut out,
        scratch,
    );
    for l in 0..N {
        let got = [out[0][l], out[1][l], out[2][l], out[3][l]];
        if (select >> l) & 1 == 0 {
            proptest::prop_assert_eq!(got, [0xdead_beef; 4], "lane {} of {} touched", l, N);
            continue;
        }
        let input = SampleInput {
            coord: [coord[0][l], coord[1][l], coord[2][l], 0].map(f32::from_bits),
            offset,
            lod: Lod::Level(level),
            min_lod_clamp: f32::NEG_INFINITY,
            reference: None,
        };
        let want = sample::sample(view, sampler, &input);
        proptest::prop_assert_eq!(got, want, "lane {} of {} {:?} {:?}", l, N, input, sampler);
    }
    Ok(())
}

/// What a site does not cover is refused, so the reference samples it: cubes, 1D, 3D
/// and multisampled views, integer, block-compressed and other formats, anisotropic and
/// min/max filters.
#[test]
fn uncovered_views_and_samplers_are_refused() {
    let view = |dim: TextureDim, format: Format, w: u32, h: u32, d: u32, samples: u32| {
        let desc = TextureDesc {
            dim,
            format,
            width: w,
            height: h,
            depth_or_array_size: d,
            mips: 1,
            samples,
        };
        TextureView::whole(Texture::new(desc).unwrap())
    };
    let s = SamplerDesc::default();
    let f = Format::R8G8B8A8_UNORM;
    for v in [
        view(TextureDim::Tex1D, f, 8, 1, 1, 1),
        view(TextureDim::Tex1DArray, f, 8, 1, 2, 1),
        view(TextureDim::Tex3D, f, 4, 4, 4, 1),
        view(TextureDim::Cube, f, 4, 4, 6, 1),
        view(TextureDim::CubeArray, f, 4, 4, 12, 1),
        view(TextureDim::Tex2DMS, f, 4, 4, 1, 4),
        view(TextureDim::Tex2D, Format::R32_UINT, 4, 4, 1, 1),
        view(TextureDim::Tex2D, Format::R8G8B8A8_SINT, 4, 4, 1, 1),
        view(TextureDim::Tex2D, Format::R8_UNORM, 4, 4, 1, 1),
        view(TextureDim::Tex2D, Format::R16G16_FLOAT, 4, 4, 1, 1),
        view(TextureDim::Tex2D, Format::BC1_UNORM, 8, 8, 1, 1),
    ] {
        assert!(
            SamplerSite::new(&v, &s).is_none(),
            "{:?} {}",
            v.dim,
            v.format
        );
    }
    let v = view(TextureDim::Tex2D, f, 4, 4, 1, 1);
    assert!(SamplerSite::new(&v, &s).is_some());
    for name in [
        "ANISOTROPIC",
        "MIN_MAG_ANISOTROPIC_MIP_POINT",
        "COMPARISON_ANISOTROPIC",
        "MINIMUM_MIN_MAG_MIP_LINEAR",
        "MAXIMUM_MIN_MAG_MIP_POINT",
    ] {
        let a = SamplerDesc {
            filter: Filter::from_name(name).unwrap(),
            max_anisotropy: 16,
            ..s
        };
        assert!(SamplerSite::new(&v, &a).is_none(), "{name}");
    }
    // A comparison filter sampled without a reference filters as the standard one.
    let c = SamplerDesc {
        filter: Filter::from_name("COMPARISON_MIN_MAG_MIP_LINEAR").unwrap(),
        ..s
    };
    assert!(SamplerSite::new(&v, &c).is_some());
}

/// Interesting `f32` values for the rounding helpers: signed zeros, halves, the edges of
/// the exact-integer range, infinities, NaN, denormals.
fn edge_floats() -> Vec<f32> {
    let mut v = vec![
        0.0,
        -0.0,
        0.5,
        -0.5,
        1.5,
        -1.5,
        2.5,
        -2.5,
        0.999_999_94,
        -0.999_999_94,
        8_388_607.5,
        -8_388_607.5,
        8_388_608.0,
        -8_388_608.0,
        16_777_216.0,
        2_147_483_648.0,
        -2_147_483_648.0,
        1e30,
        -1e30,
        f32::MAX,
        f32::MIN,
        f32::INFINITY,
        f32::NEG_INFINITY,
        f32::NAN,
        -f32::NAN,
        f32::MIN_POSITIVE,
        f32::from_bits(1),
        f32::from_bits(0x8000_0001),
    ];
    let mut rng = Rng(0x1234_5678);
    for _ in 0..200_000 {
        v.push(f32::from_bits(rng.next() as u32));
        v.push((rng.unit() - 0.5) * 4096.0);
        v.push((rng.below(1 << 20) as f32 - 524_288.0) / 256.0);
    }
    v
}

/// `floor` and `trunc` without a library call equal `f32::floor` and `f32::trunc` bit for
/// bit (NaN: a NaN).
#[test]
fn floor_and_trunc_equal_std() {
    for x in edge_floats() {
        let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
        assert!(same(floor(x), x.floor()), "floor {x:e}");
        assert!(same(trunc(x), x.trunc()), "trunc {x:e}");
    }
}

/// The two-pass path's range reduction and footprint (`fast_wrap`, `fast_mirror`,
/// `fast_footprint`) give the bits of `reduce` (§7.18.6) and `footprint` (§7.18.7,
/// §7.18.8, with §3.2.4.1's snapping) wherever they say they apply, on edge values,
/// every 1/512 step through ±4 and random bit patterns; and they do apply to ordinary
/// coordinates.
#[test]
fn fast_reduction_and_footprint_equal_reference() {
    let mut xs = edge_floats();
    xs.extend((-2048..=2048).map(|k| k as f32 / 512.0));
    xs.extend([
        4_194_303.5,
        -4_194_303.5,
        4_194_304.0,
        16_383.5,
        16_384.5,
        -16_383.5,
    ]);
    let mut rng = Rng(7);
    xs.extend((0..20_000).map(|_| f32::from_bits(rng.next() as u32)));
    let same = |a: f32, b: f32| a.to_bits() == b.to_bits() || (a.is_nan() && b.is_nan());
    for &x in &xs {
        let (r, ok) = fast_wrap(x);
        if ok {
            assert!(same(r, reduce(x, AddressMode::Wrap)), "wrap {x:e}");
        }
        let (r, ok) = fast_mirror(x);
        if ok {
            assert!(same(r, reduce(x, AddressMode::Mirror)), "mirror {x:e}");
        }
        let (i, f, ok) = fast_footprint(x);
        if ok {
            let (ri, rf) = footprint(x, 0, true);
            assert_eq!(
                (i64::from(i), f.to_bits()),
                (ri, rf.to_bits()),
                "footprint {x:e}"
            );
        }
    }
    assert!(fast_wrap(-3.25).1 && fast_mirror(-3.25).1 && fast_footprint(255.99).2);
}

/// §3.2.4.1's round-to-nearest-even snapping, done by adding 1.5 × 2^52, equals
/// `resources::sample::to_fixed` (which rounds with `f64::round_ties_even`).
#[test]
fn to_fixed_equals_reference() {
    for x in edge_floats() {
        for frac in [0, 8] {
            assert_eq!(to_fixed(x, frac), sample::to_fixed(x, frac), "{x:e} {frac}");
        }
    }
    // Ties go to even at the 1/256 grid: 0.5/256 → 0, 1.5/256 → 2, −2.5/256 → −2.
    assert_eq!(to_fixed(0.5 / 256.0, 8), 0);
    assert_eq!(to_fixed(1.5 / 256.0, 8), 2);
    assert_eq!(to_fixed(-2.5 / 256.0, 8), -2);
    assert_eq!(to_fixed(f32::INFINITY, 8), 1 << 40);
    assert_eq!(to_fixed(f32::NEG_INFINITY, 8), -(1 << 40));
}

/// The UNORM four-byte decoders' flag is right: for those formats every table entry is
/// `c as f32 / 255.0`, the division `Taps::unorm8` decodes by (D3D11.3 §3.2.3.3: UNORM
/// `c` is `c / (2^n − 1)`), and sRGB formats do not carry it.
#[test]
fn unorm_decoders_divide_by_255() {
    for format in FORMATS {
        if let Some(Decoder::Bytes4 { table, unorm, .. }) = decoder(format) {
            assert_eq!(unorm, !format.is_srgb(), "{format}");
            if unorm {
                for row in table {
                    for (c, v) in row.iter().enumerate() {
                        assert_eq!(*v, (c as f32 / 255.0).to_bits(), "{format} {c}");
                    }
                }
            }
        }
    }
}

/// Each format-specialised decoder equals `Format::decode` on random texels.
#[test]
fn decoders_equal_format_decode() {
    let mut rng = Rng(99);
    for format in FORMATS {
        let d = decoder(format).unwrap();
        let n = d.bytes_per_texel() as usize;
        assert_eq!(n as u32, format.bytes_per_texel());
        for _ in 0..20_000 {
            let mut b = [0u8; 16];
            for x in &mut b[..n] {
                *x = rng.next() as u8;
            }
            let mem = Memory::from_bytes(&b[..n]).unwrap();
            let got = d.texel(&mem, 0).map(f32::to_bits);
            assert_eq!(got, format.decode(&b[..n]), "{format} {:?}", &b[..n]);
        }
    }
}

/// Linear footprints at every sub-texel step across the left, right, top and bottom
/// edges, and fully inside, of small textures (down to one texel) in every covered
/// format and every pair of address modes: the direct 2x2 read of an in-range footprint
/// and the addressed taps of one that straddles an edge both give the reference's bits.
#[test]
fn footprints_across_edges_equal_sample() {
    for format in 0..FORMATS.len() {
        for (w, h) in [(1, 1), (2, 3), (5, 4), (9, 2)] {
            for a in 0..25 {
                let c = Case {
                    format,
                    view_format: false,
                    array: false,
                    w,
                    h,
                    slices: 1,
                    mips: 1,
                    view_mip: (0, 0),
                    view_slice: (0, 0),
                    address: [a % 5, a / 5],
                    border: 2,
                    filter: [true, true, false],
                    reduction: 0,
                    bias: 0.0,
                    lod_range: (f32::MIN, f32::MAX),
                    seed: (format * 131 + a) as u64,
                    ordinary: a % 2 == 0,
                };
                let (view, sampler) = build(&c);
                let site = SamplerSite::new(&view, &sampler).expect("a covered view");
                // Sixteenths of a texel from two texels before to two past each axis.
                let steps = |n: u32| (-32..=(n as i32 + 2) * 16).map(move |k| k as f32 / 16.0);
                for x in steps(w) {
                    for y in steps(h) {
                        let input = SampleInput {
                            coord: [x / w as f32, y / h as f32, 0.0, 0.0],
                            offset: [0; 3],
                            lod: Lod::Level(0.0),
                            min_lod_clamp: f32::NEG_INFINITY,
                            reference: None,
                        };
                        let want = sample::sample(&view, &sampler, &input);
                        assert_eq!(site.sample_input(&input), Some(want), "{c:?} {x} {y}");
                    }
                }
            }
        }
    }
}

/// The UNORM8 decode without a division gives `c / 255` correctly rounded (D3D11.3
/// §3.2.3.4, `Format::decode`'s value) for every byte, in both forms; the fused form
/// checked here through `mul_add`, which is exact with or without FMA hardware.
#[test]
fn unorm8_decode_is_the_quotient() {
    for c in 0..=255u32 {
        let want = (c as f32 / 255.0).to_bits();
        assert_eq!(unorm8_decode::<true>(c).to_bits(), want, "byte {c}, fused");
        assert_eq!(
            unorm8_decode::<false>(c).to_bits(),
            want,
            "byte {c}, divided"
        );
        assert_eq!(
            Format::R8_UNORM.decode(&[c as u8])[0],
            want,
            "byte {c}, the format's decode"
        );
    }
}
