//! Corpus DXIL compute programs lowered and run through `pipeline::dispatch`, their
//! results checked against values worked out by hand from each program's HLSL (the
//! comments of `target/corpora/*/…hlsl` state most of them). Each program is run in
//! every build the corpus has (optimised, `-Od`, SM 6.6), and where the corpus has the
//! same source compiled by fxc, the DXBC builds must give the same values (DESIGN
//! "Differential: the same HLSL compiled to DXBC and to DXIL must give the same
//! outputs").

use dxlane::ir::Shader;
use dxlane::lower::{self, LoadOptions};
use dxlane::pipeline::dispatch::thread_layout;
use dxlane::pipeline::{Bindings, Plan, dispatch};
use dxlane::resources::{
    BufferKind, BufferView, Counter, Descriptor, Filter, Format, Memory, SamplerDesc, Texture,
    TextureDesc, TextureDim, TextureView,
};

use crate::common;

/// The lowered shaders of a corpus program in each of its builds (`name.dxil`,
/// `name.66.dxil`, `name.od.dxil`, or `name.cs.dxil`); empty without the corpora.
fn builds(dir: &str, name: &str) -> Vec<(String, Shader)> {
    let mut out = Vec::new();
    for f in common::dxil_programs() {
        let shown = common::display_name(&f);
        let Some(file) = shown.strip_prefix(&format!("{dir}/")) else {
            continue;
        };
        let stem = file.trim_end_matches(".dxil");
        let ok = stem == name
            || [".66", ".od", ".cs"]
                .iter()
                .any(|s| stem == format!("{name}{s}"));
        if ok {
            let bytes = std::fs::read(&f).unwrap();
            let s = lower::load(&bytes, &LoadOptions::default())
                .unwrap_or_else(|e| panic!("{shown}: {e}"))
                .shader;
            out.push((shown, s));
        }
    }
    if out.is_empty() && !common::dxil_programs().is_empty() {
        panic!("{dir}/{name} is not in the corpora");
    }
    out
}

/// [`builds`] and the DXBC builds of the same source in `dxbc_dir` (`name.dxbc`,
/// `name.od.dxbc`, `name.cs_5_0.dxbc`).
fn with_dxbc(dir: &str, dxbc_dir: &str, name: &str) -> Vec<(String, Shader)> {
    let mut out = builds(dir, name);
    for f in common::dxbc_programs() {
        let shown = common::display_name(&f);
        let Some(file) = shown.strip_prefix(&format!("{dxbc_dir}/")) else {
            continue;
        };
        if [".dxbc", ".od.dxbc", ".cs_5_0.dxbc"]
            .iter()
            .any(|s| file == format!("{name}{s}"))
        {
            let bytes = std::fs::read(&f).unwrap();
            let s = lower::load(&bytes, &LoadOptions::default())
                .unwrap_or_else(|e| panic!("{shown}: {e}"))
                .shader;
            out.push((shown, s));
        }
    }
    out
}

fn bytes_of(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}

fn words(m: &Memory) -> Vec<u32> {
    m.to_bytes()
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn buffer(words: &[u32], kind: BufferKind) -> (Memory, Descriptor) {
    let m = Memory::from_bytes(&bytes_of(words)).unwrap();
    let d = Descriptor::Buffer {
        view: BufferView::whole(m.clone(), kind),
        counter: None,
    };
    (m, d)
}

fn structured(words: &[u32], stride: u32) -> (Memory, Descriptor) {
    buffer(words, BufferKind::Structured { stride })
}

fn cbuffer(words: &[u32]) -> Descriptor {
    Descriptor::ConstantBuffer {
        memory: Memory::from_bytes(&bytes_of(words)).unwrap(),
        offset: 0,
        size: 4 * words.len() as u64,
    }
}

fn texture(format: Format, w: u32, h: u32, words: &[u32]) -> (Texture, Descriptor) {
    let t = Texture::from_bytes(TextureDesc::tex2d(format, w, h), &bytes_of(words)).unwrap();
    let d = Descriptor::Texture(TextureView::whole(t.clone()));
    (t, d)
}

fn tex_words(t: &Texture) -> Vec<u32> {
    t.to_bytes()
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Dispatches with one descriptor per range and the given wave size, on one worker.
fn run(s: &Shader, ranges: Vec<Descriptor>, groups: [u32; 3], wave: u32) {
    run_bound(
        s,
        Bindings {
            ranges: ranges.into_iter().map(|d| vec![d]).collect(),
            ..Bindings::default()
        },
        groups,
        wave,
    );
}

fn run_bound(s: &Shader, b: Bindings, groups: [u32; 3], wave: u32) {
    let o = Plan {
        wave_size: Some(wave),
        threads: 1,
        ..crate::common::plan()
    };
    dispatch(s, &b, groups, &o, None).unwrap_or_else(|e| panic!("{e}\n{s}"));
}

/// The position of each resource range, by its register (`u1`, `b0`, `t0, space1`).
fn range(s: &Shader, binding: &str) -> usize {
    s.resources
        .iter()
        .position(|r| r.binding_name() == binding)
        .unwrap_or_else(|| panic!("no range {binding} in\n{s}"))
}

/// Orders descriptors by the shader's ranges: `by[k] = (binding, descriptor)`.
fn bind(s: &Shader, by: Vec<(&str, Descriptor)>) -> Vec<Descriptor> {
    let mut out: Vec<Option<Descriptor>> = vec![None; s.resources.len()];
    for (b, d) in by {
        out[range(s, b)] = Some(d);
    }
    out.into_iter()
        .enumerate()
        .map(|(i, d)| d.unwrap_or_else(|| panic!("range {i} not bound")))
        .collect()
}

/// compute_basic.hlsl over 2 × 2 groups of 8 × 4 × 2: invocation count, mirrored tiles
/// plus the sum of the group indices, raw stores xor `scale`, typed stores of the
/// group-thread id.
#[test]
fn compute_basic() {
    for (name, s) in with_dxbc("dxil-reader", "dxbc-reader", "compute_basic") {
        let (raw, rawd) = buffer(&[0; 256], BufferKind::Raw);
        let (words_m, wd) = structured(&[0; 257], 4);
        let (typed, td) = buffer(
            &[0; 256 * 4],
            BufferKind::Typed {
                format: Format::R32G32B32A32_FLOAT,
            },
        );
        let scale = 0x5a5a;
        let d = bind(
            &s,
            vec![
                ("u0", rawd),
                ("u1", wd),
                ("u2", td),
                ("b0", cbuffer(&[scale, 0, 0, 0])),
            ],
        );
        run(&s, d, [2, 2, 1], 8);
        let w = words(&words_m);
        let r = words(&raw);
        let t = words(&typed);
        assert_eq!(w[0], 256, "{name}");
        for gy in 0..2u32 {
            for gx in 0..2u32 {
                let g = gx + 2 * gy;
                let tile = |i: u32| {
                    let (x, y, z) = (i % 8, (i / 8) % 4, i / 32);
                    (gx * 8 + x) * 100 + (gy * 4 + y) * 10 + z
                };
                for i in 0..64u32 {
                    let at = (i + 64 * g) as usize;
                    assert_eq!(w[1 + at], tile(63 - i) + 2016, "{name} words[{}]", 1 + at);
                    assert_eq!(r[at], tile(i) ^ scale, "{name} raw[{at}]");
                    let (x, y, z) = (i % 8, (i / 8) % 4, i / 32);
                    let want = [x as f32, y as f32, z as f32, i as f32].map(f32::to_bits);
                    assert_eq!(&t[4 * at..4 * at + 4], &want, "{name} typed[{at}]");
                }
            }
        }
    }
}

/// barrier.hlsl: `g[i] = i; barrier; o[i] = g[7 - i]`.
#[test]
fn barrier() {
    for (name, s) in builds("dxil-reader", "barrier") {
        let (m, d) = structured(&[0; 8], 4);
        run(&s, vec![d], [1, 1, 1], 4);
        assert_eq!(words(&m), (0..8).rev().collect::<Vec<u32>>(), "{name}");
    }
}

/// lane_2d.hlsl in waves of 8 over an 8 × 8 group laid out in SM 6.6 quads: each
/// thread's lane, 8 active lanes, and the first lane's group index.
#[test]
fn lane_2d() {
    let (slots, _) = thread_layout([8, 8, 1]);
    for (name, s) in builds("dxil-reader", "lane_2d") {
        let (m, d) = structured(&[0; 192], 4);
        run(&s, vec![d], [1, 1, 1], 8);
        let w = words(&m);
        for (slot, t) in slots.iter().enumerate() {
            let index = (t[0] + 8 * t[1]) as usize;
            let first = slots[slot / 8 * 8];
            assert_eq!(
                &w[3 * index..3 * index + 3],
                &[(slot % 8) as u32, 8, first[0] + 8 * first[1]],
                "{name} thread {t:?}"
            );
        }
    }
}

/// uav_counter.hlsl: appends, consumes and counter updates of 8 threads.
#[test]
fn uav_counter() {
    for (name, s) in builds("dxil-reader", "uav_counter") {
        let counted = |words: &[u32], start: u32| {
            let m = Memory::from_bytes(&bytes_of(words)).unwrap();
            let c = Counter::new(start);
            let d = Descriptor::Buffer {
                view: BufferView::whole(m.clone(), BufferKind::Structured { stride: 4 }),
                counter: Some(c.clone()),
            };
            (m, c, d)
        };
        let (app, app_c, app_d) = counted(&[0; 8], 0);
        let consumed: Vec<u32> = (100..108).collect();
        let (_, con_c, con_d) = counted(&consumed, 8);
        let (_, cnt_c, cnt_d) = counted(&[0; 8], 5);
        let (_, dr_c, dr_d) = counted(&[0; 8], 20);
        let (res, res_d) = structured(&[0; 24], 4);
        let d = bind(
            &s,
            vec![
                ("u0", app_d),
                ("u1", con_d),
                ("u2", cnt_d),
                ("u3", dr_d),
                ("u4", res_d),
            ],
        );
        run(&s, d, [1, 1, 1], 8);
        let sorted = |mut v: Vec<u32>| {
            v.sort();
            v
        };
        assert_eq!(
            sorted(words(&app)),
            (0..8).map(|i| i * 10).collect::<Vec<_>>(),
            "{name}"
        );
        assert_eq!(app_c.get(), 8, "{name}");
        let r = words(&res);
        assert_eq!(sorted(r[0..8].to_vec()), consumed, "{name}");
        assert_eq!(con_c.get(), 0, "{name}");
        assert_eq!(
            sorted(r[8..16].to_vec()),
            (5..13).collect::<Vec<_>>(),
            "{name}"
        );
        assert_eq!(cnt_c.get(), 13, "{name}");
        assert_eq!(
            sorted(r[16..24].to_vec()),
            (12..20).collect::<Vec<_>>(),
            "{name}"
        );
        assert_eq!(dr_c.get(), 12, "{name}");
    }
}

/// image_atomics.hlsl over one 8 × 8 group.
#[test]
fn image_atomics() {
    for (name, s) in with_dxbc("dxil-reader", "dxbc-reader", "image_atomics") {
        // The Min region (x ≥ 4, y < 4) starts at the largest value, the signed image at
        // the most negative.
        let init: Vec<u32> = (0..64u32)
            .map(|i| if i % 8 >= 4 && i / 8 < 4 { u32::MAX } else { 0 })
            .collect();
        let (counts, cd) = texture(Format::R32_UINT, 8, 8, &init);
        let (signed, sd) = texture(Format::R32_SINT, 4, 4, &[i32::MIN as u32; 16]);
        let d = bind(&s, vec![("u0", cd), ("u1", sd)]);
        run(&s, d, [1, 1, 1], 8);
        let c = tex_words(&counts);
        let g = tex_words(&signed);
        for ay in 0..4u32 {
            for ax in 0..4u32 {
                let at = |x: u32, y: u32| (x + 8 * y) as usize;
                assert_eq!(c[at(ax, ay)], 2 * (2 * ax + 6), "{name} add ({ax}, {ay})");
                assert_eq!(
                    c[at(ax, ay + 4)],
                    (ax + 4) * 10 + ay + 4,
                    "{name} max ({ax}, {ay})"
                );
                assert_eq!(c[at(ax + 4, ay)], ax * 10 + ay, "{name} min ({ax}, {ay})");
                assert_eq!(g[(ax + 4 * ay) as usize], ax, "{name} signed ({ax}, {ay})");
            }
        }
    }
}

/// image_atomic_results.hlsl: four lanes of one wave make their atomics in lane order,
/// so the old values are the running results.
#[test]
fn image_atomic_results() {
    for (name, s) in with_dxbc("dxil-reader", "dxbc-reader", "image_atomic_results") {
        let (counts, cd) = texture(Format::R32_UINT, 4, 1, &[0; 4]);
        let (olds, od) = texture(Format::R32_UINT, 4, 3, &[0; 12]);
        let d = bind(&s, vec![("u0", cd), ("u1", od)]);
        run(&s, d, [1, 1, 1], 4);
        assert_eq!(&tex_words(&counts)[0..3], &[10, 13, 9], "{name}");
        assert_eq!(
            tex_words(&olds),
            vec![0, 1, 3, 6, 0, 10, 11, 12, 0, 0, 3, 6],
            "{name}"
        );
    }
}

/// wide_ints.hlsl: 64-bit arithmetic, shifts, divisions, comparisons and bit counts.
#[test]
fn wide_ints() {
    let a: u64 = 0xfedc_ba98_7654_3210;
    let b: u64 = 0x0000_0001_0000_0003;
    let n = 36u32;
    let mut want = Vec::new();
    let mut put = |v: u64| {
        want.push(v as u32);
        want.push((v >> 32) as u32);
    };
    put(a.wrapping_add(b));
    put(a.wrapping_sub(b));
    put(a.wrapping_mul(b));
    put(a & b);
    put(a | b);
    put(a ^ b);
    put(a << n);
    put(a >> n);
    put(((a as i64) >> n) as u64);
    put(a / b);
    put(a % b);
    put(((a as i64) / (b as i64)) as u64);
    put(((a as i64) % (b as i64)) as u64);
    want.push(u32::from(a < b));
    want.push(u32::from((a as i64) < (b as i64)));
    want.push(u32::from(a == b));
    want.push(a.count_ones());
    want.push(a.trailing_zeros());
    want.push(63 - a.leading_zeros());
    for (name, s) in builds("dxil-reader", "wide_ints") {
        let (m, d) = structured(&[0; 32], 4);
        let cb = cbuffer(&[
            a as u32,
            (a >> 32) as u32,
            b as u32,
            (b >> 32) as u32,
            n,
            0,
            0,
            0,
        ]);
        let d = bind(&s, vec![("u0", d), ("b0", cb)]);
        run(&s, d, [1, 1, 1], 4);
        assert_eq!(words(&m), want, "{name}");
    }
}

/// waves.hlsl in waves of 32 (the values its comments give).
#[test]
fn waves() {
    for (name, s) in builds("dxil-reader", "waves") {
        let (m, d) = structured(&[0; 64 * 13], 4);
        run(&s, vec![d], [1, 1, 1], 32);
        let w = words(&m);
        for index in 0..64u32 {
            let (lane, wave) = (index % 32, index / 32);
            let want = [
                lane,
                if wave == 0 { 496 } else { 1520 },
                32 * wave,
                32 * wave + 31,
                u32::MAX,
                u32::from(wave == 0),
                u32::from(wave == 1),
                0x5555_5555,
                lane * lane.saturating_sub(1) / 2 + 32 * wave * lane,
                32 * wave,
                32 * wave + 5,
                index ^ 1,
                u32::from(lane == 0),
            ];
            let at = 13 * index as usize;
            assert_eq!(&w[at..at + 13], &want, "{name} thread {index}");
        }
    }
}

/// wave_size.hlsl: `[WaveSize(32)]` wins over the option.
#[test]
fn wave_size() {
    for (name, s) in builds("dxil-reader", "wave_size") {
        assert_eq!(
            s.wave_size.map(|w| (w.min, w.max)),
            Some((32, 32)),
            "{name}"
        );
        let (m, d) = structured(&[0; 32], 4);
        run(&s, vec![d], [1, 1, 1], 8);
        assert_eq!(words(&m), vec![32; 32], "{name}");
    }
}

/// buffer_arrays.hlsl with which = 1 (its comment's bindings).
#[test]
fn buffer_arrays() {
    for (name, s) in builds("dxil-reader", "buffer_arrays") {
        let n = [4u32, 6, 8];
        let bufs: Vec<(Memory, Descriptor)> = n
            .iter()
            .map(|k| structured(&vec![0; *k as usize], 4))
            .collect();
        let raws = [
            buffer(&[10, 20, 30, 40], BufferKind::Raw).1,
            buffer(&[11, 21, 31, 41], BufferKind::Raw).1,
        ];
        let mut ranges = vec![Vec::new(); s.resources.len()];
        ranges[range(&s, "u0..u2, space1")] = bufs.iter().map(|b| b.1.clone()).collect();
        ranges[range(&s, "t0..t1, space1")] = raws.to_vec();
        ranges[range(&s, "b0")] = vec![cbuffer(&[1, 0, 0, 0])];
        run_bound(
            &s,
            Bindings {
                ranges,
                ..Bindings::default()
            },
            [1, 1, 1],
            4,
        );
        assert_eq!(words(&bufs[1].0), vec![600, 601, 602, 603, 0, 0], "{name}");
        assert_eq!(
            words(&bufs[2].0),
            vec![10, 0, 0, 0, 11, 21, 31, 41],
            "{name}"
        );
    }
}

/// image_arrays.hlsl / image_array_store.hlsl: thread (x, y), g = x + 8y, writes
/// (x, y, g, 1) to texel (x, y) of image g & 3.
#[test]
fn image_arrays() {
    for prog in ["image_arrays", "image_array_store"] {
        for (name, s) in builds("dxil-reader", prog) {
            let imgs: Vec<(Texture, Descriptor)> = (0..4)
                .map(|_| texture(Format::R32G32B32A32_FLOAT, 8, 8, &[0; 256]))
                .collect();
            run_bound(
                &s,
                Bindings {
                    ranges: vec![imgs.iter().map(|i| i.1.clone()).collect()],
                    ..Bindings::default()
                },
                [1, 1, 1],
                8,
            );
            for (k, (t, _)) in imgs.iter().enumerate() {
                let w = tex_words(t);
                for g in 0..64u32 {
                    let (x, y) = (g % 8, g / 8);
                    let want = if g & 3 == k as u32 {
                        [x as f32, y as f32, g as f32, 1.0].map(f32::to_bits)
                    } else {
                        [0; 4]
                    };
                    let at = 4 * g as usize;
                    assert_eq!(&w[at..at + 4], &want, "{name} image {k} texel {g}");
                }
            }
        }
    }
}

/// heap.hlsl (SM 6.6 descriptor heaps): a point-sampled 8 × 8 texture times a
/// structured buffer, written to another.
#[test]
fn descriptor_heaps() {
    for (name, s) in builds("dxil-reader", "heap") {
        let texels: Vec<u32> = (0..64u32)
            .flat_map(|i| [i % 8, i / 8, i, 1].map(|v| (v as f32).to_bits()))
            .collect();
        let (_, tex) = texture(Format::R32G32B32A32_FLOAT, 8, 8, &texels);
        let (_, src) = structured(
            &(1..=8).map(|v| (v as f32).to_bits()).collect::<Vec<_>>(),
            4,
        );
        let (dst, dst_d) = structured(&[0; 256], 16);
        let b = Bindings {
            ranges: vec![vec![cbuffer(&[2, 0, 1, 3])]],
            resource_heap: vec![
                Descriptor::Null(dxlane::resources::ViewClass::Buffer),
                src,
                tex,
                dst_d,
            ],
            sampler_heap: vec![Descriptor::Sampler(SamplerDesc {
                filter: Filter::POINT,
                ..SamplerDesc::default()
            })],
        };
        run_bound(&s, b, [1, 1, 1], 8);
        let w = words(&dst);
        for i in 0..64u32 {
            let (x, y) = (i % 8, i / 8);
            let k = (x + 1) as f32;
            let want = [x as f32 * k, y as f32 * k, i as f32 * k, k].map(f32::to_bits);
            let at = 4 * (x + 8 * y) as usize;
            assert_eq!(&w[at..at + 4], &want, "{name} thread ({x}, {y})");
        }
    }
}

/// precise_cs.hlsl: `precise float x = o[0] * 3 + o[1]; o[0] = x * x + x`.
#[test]
fn precise() {
    for (name, s) in builds("dxil-reader", "precise") {
        let (m, d) = structured(&[2.0f32.to_bits(), 1.0f32.to_bits()], 4);
        run(&s, vec![d], [1, 1, 1], 4);
        assert_eq!(f32::from_bits(words(&m)[0]), 56.0, "{name}");
    }
}

/// The dxcontainer feature programs: 64-bit integers and doubles in structured buffers,
/// msad4, typed UAVs, heaps, 64-bit atomics, a wave sum.
#[test]
fn feature_programs() {
    let one = |prog: &str| with_dxbc("dxcontainer/features", "dxcontainer/features", prog);
    let dwords = |v: &[f64]| -> Vec<u32> {
        v.iter()
            .flat_map(|d| [d.to_bits() as u32, (d.to_bits() >> 32) as u32])
            .collect()
    };
    for (name, s) in one("int64") {
        let (m, d) = structured(&[0x8000_0001, 0x1, 0, 0], 8);
        run(&s, vec![d], [1, 1, 1], 4);
        let v = 0x1_8000_0001u64 * 3;
        assert_eq!(&words(&m)[0..2], &[v as u32, (v >> 32) as u32], "{name}");
    }
    for (name, s) in one("double") {
        let (m, d) = structured(&dwords(&[1.25, 0.0]), 8);
        run(&s, vec![d], [1, 1, 1], 4);
        assert_eq!(&words(&m)[0..2], &dwords(&[2.5])[..], "{name}");
    }
    for (name, s) in one("dbl2") {
        let (m, d) = structured(&dwords(&[1.0, 3.0]), 8);
        run(&s, vec![d], [1, 1, 1], 4);
        assert_eq!(&words(&m)[0..2], &dwords(&[1.0 / 3.0])[..], "{name}");
    }
    for (name, s) in one("doubleext") {
        let (m, d) = structured(&dwords(&[2.0]), 8);
        run(&s, vec![d], [1, 1, 1], 4);
        assert_eq!(&words(&m)[0..2], &dwords(&[0.5 + 6.0])[..], "{name}");
    }
    for (name, s) in one("msad") {
        let v = [0x0a00_1402u32, 0x0506_0708, 7, 0xffff_fff0];
        let (m, d) = structured(&v, 16);
        run(&s, vec![d], [1, 1, 1], 4);
        // msad4(reference, source.xy, accum): the k-th sum compares reference with the
        // four bytes of source starting at byte k (DXIL.rst "Msad"). Worked by hand:
        // reference bytes 02 14 00 0a (00 masked), source bytes 02 14 00 0a 08 07 06 05;
        // the sums are 0, 18 + 20 + 2, 2 + 10 + 3 and 8 + 12 + 4, and the last added to
        // 0xfffffff0 wraps to 8 (the accumulate wraps modulo 2^32, as WARP's does).
        let want = vec![0x0a00_1402, 0x0506_0708 + 40, 7 + 15, 8];
        assert_eq!(words(&m), want, "{name}");
    }
    for (name, s) in one("typeduav") {
        let (t, d) = texture(Format::R32G32B32A32_FLOAT, 1, 1, &[1.5f32.to_bits(); 4]);
        run(&s, vec![d], [1, 1, 1], 4);
        assert_eq!(tex_words(&t), vec![2.5f32.to_bits(); 4], "{name}");
    }
    // `RWTexture2DMS<float4> t; t[i] = 1;` stores through TextureStoreSample to sample 0
    // of texel i (DXIL.rst "TextureStoreSample"); sample 1 keeps its contents. Samples
    // are planes (`resources::texture`): all of sample 0's texels, then sample 1's.
    for (name, s) in one("msaa") {
        let desc = TextureDesc {
            dim: TextureDim::Tex2DMS,
            samples: 2,
            ..TextureDesc::tex2d(Format::R32G32B32A32_FLOAT, 2, 2)
        };
        let old = 7.0f32.to_bits();
        let t = Texture::from_bytes(desc, &bytes_of(&[old; 32])).unwrap();
        let d = Descriptor::Texture(TextureView::whole(t.clone()));
        run(&s, vec![d], [2, 1, 1], 4);
        let one = 1.0f32.to_bits();
        let mut want = vec![old; 32];
        // Threads (0, 0) and (1, 0) write texels 0 and 1 of sample 0.
        want[..8].fill(one);
        assert_eq!(tex_words(&t), want, "{name}");
    }
    for (name, s) in one("uav64") {
        let bufs: Vec<(Memory, Descriptor)> = (0..9)
            .map(|_| {
                buffer(
                    &[0; 2],
                    BufferKind::Typed {
                        format: Format::R32_FLOAT,
                    },
                )
            })
            .collect();
        run(&s, bufs.iter().map(|b| b.1.clone()).collect(), [1, 1, 1], 4);
        for (k, (m, _)) in bufs.iter().enumerate() {
            assert_eq!(words(m), vec![1.0f32.to_bits(), 0], "{name} u{k}");
        }
    }
    for (name, s) in one("atomic64heap") {
        let (m, d) = structured(&[0xffff_ffff, 0], 8);
        run_bound(
            &s,
            Bindings {
                resource_heap: vec![d],
                ..Bindings::default()
            },
            [1, 1, 1],
            4,
        );
        assert_eq!(words(&m), vec![0, 1], "{name}");
    }
    for (name, s) in one("atomic64shared") {
        let (m, d) = structured(&[9], 4);
        run(&s, vec![d], [1, 1, 1], 4);
        assert_eq!(words(&m), vec![0], "{name}");
    }
    for (name, s) in one("atomic64typed") {
        let (t, d) = texture(Format::R32G32_UINT, 1, 1, &[u32::MAX, 4]);
        run(&s, vec![d], [1, 1, 1], 4);
        assert_eq!(tex_words(&t), vec![0, 5], "{name}");
    }
    for (name, s) in one("heap") {
        let (m, d) = structured(&[0], 4);
        run_bound(
            &s,
            Bindings {
                resource_heap: vec![d],
                ..Bindings::default()
            },
            [1, 1, 1],
            4,
        );
        assert_eq!(words(&m), vec![1], "{name}");
    }
    for (name, s) in one("sheap") {
        let texel = [0.25f32, 0.5, 0.75, 1.0].map(f32::to_bits);
        let (_, t) = texture(Format::R32G32B32A32_FLOAT, 1, 1, &texel);
        let (m, d) = structured(&[0; 4], 16);
        let d = bind(&s, vec![("t0", t), ("u0", d)]);
        run_bound(
            &s,
            Bindings {
                ranges: d.into_iter().map(|x| vec![x]).collect(),
                resource_heap: vec![],
                sampler_heap: vec![Descriptor::Sampler(SamplerDesc::default())],
            },
            [1, 1, 1],
            4,
        );
        assert_eq!(words(&m), texel.to_vec(), "{name}");
    }
    for (name, s) in one("wave") {
        let (m, d) = structured(&[0; 32], 4);
        run(&s, vec![d], [1, 1, 1], 8);
        let want: Vec<u32> = (0..32u32).map(|i| 64 * (i / 8) + 28).collect();
        assert_eq!(words(&m), want, "{name}");
    }
}

/// The differential checks above do run the DXBC builds of the shared sources.
#[test]
fn dxbc_twins_are_run() {
    if common::dxil_programs().is_empty() {
        return;
    }
    let names = |v: Vec<(String, Shader)>| v.into_iter().map(|x| x.0).collect::<Vec<_>>();
    let cb = names(with_dxbc("dxil-reader", "dxbc-reader", "compute_basic"));
    assert!(
        cb.contains(&"dxbc-reader/compute_basic.dxbc".to_string())
            && cb.contains(&"dxbc-reader/compute_basic.od.dxbc".to_string()),
        "{cb:?}"
    );
    let msad = names(with_dxbc(
        "dxcontainer/features",
        "dxcontainer/features",
        "msad",
    ));
    assert_eq!(msad.len(), 2, "{msad:?}");
}
