//! The interpreter end to end: programs written in the IR's text form, dispatched with
//! `pipeline::dispatch`, results read back from buffers.

use dxlane::exec::{ExecError, Invocation, Limits, Profile};
use dxlane::ir::{Shader, parse_shader, validate};
use dxlane::pipeline::{Bindings, DispatchReport, Plan, ThreadLayout, dispatch};
use dxlane::resources::{
    BufferKind, BufferView, Counter, Descriptor, Filter, Format, Memory, SamplerDesc, Texture,
    TextureDesc, TextureDim, TextureView, ViewClass,
};

/// Parses and validates a shader in the IR's text form.
pub fn shader(text: &str) -> Shader {
    let s = parse_shader(text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    validate(&s).unwrap_or_else(|e| panic!("{e}\n{s}"));
    s
}

/// A structured buffer of `stride`-byte elements holding `words`.
pub fn structured(words: &[u32], stride: u32) -> (Memory, Descriptor) {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let m = Memory::from_bytes(&bytes).unwrap();
    let d = Descriptor::Buffer {
        view: BufferView::whole(m.clone(), BufferKind::Structured { stride }),
        counter: None,
    };
    (m, d)
}

/// A raw buffer holding `words`.
pub fn raw(words: &[u32]) -> (Memory, Descriptor) {
    let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
    let m = Memory::from_bytes(&bytes).unwrap();
    let d = Descriptor::Buffer {
        view: BufferView::whole(m.clone(), BufferKind::Raw),
        counter: None,
    };
    (m, d)
}

/// The memory as 32-bit words.
pub fn words(m: &Memory) -> Vec<u32> {
    m.to_bytes()
        .chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// Options with a wave size and worker count.
pub fn opts(wave: u32, threads: usize) -> Plan {
    Plan {
        wave_size: Some(wave),
        threads,
        ..crate::common::plan()
    }
}

/// Dispatches with one descriptor per declared range.
pub fn run(
    s: &Shader,
    ranges: Vec<Descriptor>,
    groups: [u32; 3],
    o: &Plan,
) -> Result<DispatchReport, ExecError> {
    let b = Bindings {
        ranges: ranges.into_iter().map(|d| vec![d]).collect(),
        ..Bindings::default()
    };
    dispatch(s, &b, groups, o, None)
}

const OUT: &str =
    "resource range0 = uav space 0 lower 0 count 1 structured_buffer(stride 4) uint \"out\"";

/// Runs a program that writes one word per thread to `out[SV_DispatchThreadID.x]` and
/// returns the words.
fn outputs(text: &str, n: usize, groups: [u32; 3], o: &Plan) -> Vec<u32> {
    let s = shader(text);
    let (m, d) = structured(&vec![0; n], 4);
    run(&s, vec![d], groups, o).unwrap_or_else(|e| panic!("{e}"));
    words(&m)
}

#[test]
fn writes_one_value_per_thread() {
    let text = format!(
        "shader compute
group [64 1 1]
const r0 = 0
const r1 = 3
const r2 = 1
{OUT}
block0:
    sysval thread_id, 0, r3
    imul r4, r3, r1
    iadd r4, r4, r2
    handle r5, range0, r0
    struct_store b32, 1, r5, r3, r0, [r4 _ _ _]
    return
"
    );
    let s = shader(&text);
    let (m, d) = structured(&[0; 256], 4);
    let r = run(&s, vec![d], [4, 1, 1], &opts(8, 1)).unwrap();
    let w = words(&m);
    assert!(w.iter().enumerate().all(|(i, &v)| v == 3 * i as u32 + 1));
    assert_eq!(r.groups, 4);
    assert_eq!(r.waves, 32);
    assert_eq!(r.wave_size, 8);
    assert_eq!(r.profile, "warp-1.0.14");
    // 5 instructions and a terminator per lane.
    assert_eq!(r.lane_instructions, 256 * 6);
}

/// After an `if`/`else`, wave operations see every lane again (reconvergence at the
/// immediate post-dominator, `ir::cfg`).
#[test]
fn reconverges_after_if_else() {
    let text = format!(
        "shader compute
group [32 1 1]
const r0 = 0
const r1 = 1
const r2 = 100
const r3 = 200
const r4 = 0xffffffff
{OUT}
block0:
    sysval thread_id, 0, r5
    and r6, r5, r1
    branch r6, block1, block2
block1:
    iadd r7, r5, r2
    jump block3
block2:
    iadd r7, r5, r3
    jump block3
block3:
    wave_countbits r8, r4
    wave_reduce sum, u32, r9, r7
    imul r10, r8, r2
    iadd r10, r10, r9
    handle r11, range0, r0
    struct_store b32, 1, r11, r5, r0, [r10 _ _ _]
    return
"
    );
    for wave in [4u32, 8, 16, 32] {
        let w = outputs(&text, 32, [1, 1, 1], &opts(wave, 1));
        for (t, &v) in w.iter().enumerate() {
            let base = t as u32 / wave * wave;
            let sum: u32 = (base..base + wave)
                .map(|x| x + if x & 1 == 1 { 100 } else { 200 })
                .sum();
            assert_eq!(v, wave * 100 + sum, "wave {wave} thread {t}");
        }
    }
}

/// Lanes that leave a loop early wait after it; the wave operation after the loop sees
/// all of them, each with its own trip count.
#[test]
fn reconverges_after_a_loop_with_early_exits() {
    let text = format!(
        "shader compute
group [16 1 1]
const r0 = 0
const r1 = 1
const r2 = 0xffffffff
const r3 = 1000
{OUT}
block0:
    sysval thread_id, 0, r4
    lane_index r5
    mov r6, r0
    jump block1
block1:
    icmp uge, r7, r6, r5
    branch r7, block3, block2
block2:
    iadd r6, r6, r1
    jump block1
block3:
    wave_countbits r8, r2
    wave_reduce max, u32, r9, r6
    imul r10, r8, r3
    iadd r10, r10, r9
    handle r11, range0, r0
    struct_store b32, 1, r11, r4, r0, [r10 _ _ _]
    return
"
    );
    let w = outputs(&text, 16, [1, 1, 1], &opts(8, 1));
    assert_eq!(w, vec![8 * 1000 + 7; 16]);
}

/// A `switch` with cases, a shared target and a default; lanes reconverge after it.
#[test]
fn switch_dispatches_per_lane() {
    let text = format!(
        "shader compute
group [8 1 1]
const r0 = 0
const r1 = 10
const r2 = 20
const r3 = 30
const r4 = 0xffffffff
const r5 = 100
{OUT}
block0:
    sysval thread_id, 0, r6
    switch r6, [0: block1, 3: block2, 5: block2], block3
block1:
    mov r7, r1
    jump block4
block2:
    mov r7, r2
    jump block4
block3:
    mov r7, r3
    jump block4
block4:
    wave_countbits r8, r4
    imul r8, r8, r5
    iadd r7, r7, r8
    handle r9, range0, r0
    struct_store b32, 1, r9, r6, r0, [r7 _ _ _]
    return
"
    );
    let w = outputs(&text, 8, [1, 1, 1], &opts(8, 1));
    assert_eq!(w, vec![810, 830, 830, 820, 830, 820, 830, 830]);
}

const REDUCTION: &str = "shader compute
group [64 1 1]
groupshared 256
const r0 = 0
const r1 = 1
const r2 = 4
const r3 = 32
resource range0 = uav space 0 lower 0 count 1 structured_buffer(stride 4) uint \"out\"
block0:
    sysval group_thread_id, 0, r4
    iadd r5, r4, r1
    imul r6, r4, r2
    shared_store b32, 1, r6, 0, [r5 _ _ _]
    barrier true, true, false
    mov r7, r3
    jump block1
block1:
    icmp eq, r8, r7, r0
    branch r8, block5, block2
block2:
    icmp ult, r9, r4, r7
    branch r9, block3, block4
block3:
    iadd r10, r4, r7
    imul r10, r10, r2
    shared_load b32, 1, [r11 _ _ _], r10, 0
    shared_load b32, 1, [r12 _ _ _], r6, 0
    iadd r12, r12, r11
    shared_store b32, 1, r6, 0, [r12 _ _ _]
    jump block4
block4:
    barrier true, true, false
    ushr r7, r7, r1
    jump block1
block5:
    icmp eq, r13, r4, r0
    branch r13, block6, block7
block6:
    sysval group_id, 0, r14
    handle r15, range0, r0
    shared_load b32, 1, [r16 _ _ _], r0, 0
    struct_store b32, 1, r15, r14, r0, [r16 _ _ _]
    jump block7
block7:
    return
";

/// A group-wide tree reduction in group shared memory: every wave of the group reaches
/// each barrier before any passes it; the result does not depend on the wave size.
#[test]
fn barriers_synchronise_waves_sharing_group_memory() {
    let s = shader(REDUCTION);
    for wave in [4u32, 8, 16, 32, 64, 128] {
        let (m, d) = structured(&[0; 6], 4);
        run(&s, vec![d], [6, 1, 1], &opts(wave, 2)).unwrap();
        assert_eq!(words(&m), vec![2080; 6], "wave size {wave}");
    }
}

/// UAV atomics from many groups give the same memory with one and four workers.
#[test]
fn atomics_are_thread_count_independent() {
    let text = "shader compute
group [32 1 1]
const r0 = 0
const r1 = 15
const r2 = 4
resource range0 = uav space 0 lower 0 count 1 raw_buffer uint \"acc\"
block0:
    sysval thread_id, 0, r3
    and r4, r3, r1
    imul r4, r4, r2
    handle r5, range0, r0
    res_atomic add, _, r5, [r4 _ _], r3
    res_atomic umax, _, r5, [r4 _ _], r3
    return
";
    let s = shader(text);
    let mut results = Vec::new();
    for threads in [1usize, 4] {
        let (m, d) = raw(&[0; 16]);
        let r = run(&s, vec![d], [64, 1, 1], &opts(8, threads)).unwrap();
        // Workers are capped at the machine's cores.
        let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
        assert_eq!(r.threads, threads.min(cores));
        results.push(words(&m));
    }
    assert_eq!(results[0], results[1]);
    // Slot k holds the sum of thread ids ≡ k (mod 16) plus the umax of them (applied after
    // the adds of the same wave, but interleaved across waves: only the sum is fixed).
    let n = 64 * 32u32;
    for (k, &v) in results[0].iter().enumerate() {
        let sum: u32 = (0..n).filter(|t| t & 15 == k as u32).sum();
        assert!(v >= sum, "slot {k}");
    }
}

/// Atomics that are order-independent give exactly the expected value for any workers.
#[test]
fn atomic_add_totals() {
    let text = "shader compute
group [64 1 1]
const r0 = 0
const r1 = 1
resource range0 = uav space 0 lower 0 count 1 raw_buffer uint \"acc\"
block0:
    sysval thread_id, 0, r2
    handle r3, range0, r0
    res_atomic add, r4, r3, [r0 _ _], r1
    res_atomic add, _, r3, [r0 _ _], r0
    return
";
    let s = shader(text);
    for threads in [1usize, 2, 4] {
        let (m, d) = raw(&[0]);
        run(&s, vec![d], [100, 1, 1], &opts(16, threads)).unwrap();
        assert_eq!(words(&m), vec![6400]);
    }
}

/// D3D's robust access: out-of-bounds structured reads give 0, writes are dropped,
/// raw reads past the end give 0.
#[test]
fn out_of_bounds_accesses_are_robust() {
    let text = "shader compute
group [8 1 1]
const r0 = 0
const r1 = 4
const r2 = 1000000
const r3 = 0xdead
resource range0 = uav space 0 lower 0 count 1 structured_buffer(stride 4) uint \"out\"
block0:
    sysval thread_id, 0, r4
    handle r5, range0, r0
    iadd r6, r4, r1
    struct_load b32, 1, [r7 _ _ _], r5, r6, r0
    struct_store b32, 1, r5, r6, r0, [r3 _ _ _]
    struct_store b32, 1, r5, r2, r0, [r3 _ _ _]
    struct_store b32, 1, r5, r4, r1, [r3 _ _ _]
    iadd r7, r7, r1
    struct_store b32, 1, r5, r4, r0, [r7 _ _ _]
    return
";
    let s = shader(text);
    let (m, d) = structured(&[9; 6], 4);
    run(&s, vec![d], [1, 1, 1], &opts(8, 1)).unwrap();
    // Threads 0 and 1 read elements 4 and 5 (9) before or after threads 0 and 1 write
    // them; the others read past the end (0). Writes at 6.. and at offset 4 are dropped.
    let w = words(&m);
    assert_eq!(w.len(), 6);
    assert_eq!(&w[2..4], &[4, 4]);
    assert!(w[0] == 13 && w[1] == 13, "{w:?}");
    assert_eq!(&w[4..6], &[4, 4]);
}

/// An infinite loop ends with a budget error naming the thread and the instruction.
#[test]
fn infinite_loop_exhausts_the_budget() {
    let text = "shader compute
group [4 1 1]
const r0 = 1
block0:
    jump block1
block1:
    iadd r1, r1, r0
    jump block1
";
    let s = shader(text);
    let o = Plan {
        limits: Limits {
            max_lane_instructions: 1001,
            ..Limits::default()
        },
        ..opts(4, 1)
    };
    let e = run(&s, vec![], [2, 1, 1], &o).unwrap_err();
    match &e {
        ExecError::Budget {
            lane: Invocation::Thread { group, thread },
            at,
            ..
        } => {
            assert_eq!(group.0, [0, 0, 0]);
            assert_eq!(thread.0, [0, 0, 0]);
            // 1 (block0) + 500 × 2 = 1001: the next iteration's `iadd` passes the budget.
            assert_eq!(at.to_string(), "inst0");
        }
        _ => panic!("{e}"),
    }
    let msg = e.to_string();
    assert!(msg.contains("group (0, 0, 0), thread (0, 0, 0)"), "{msg}");
    assert!(msg.contains("iadd r1, r1, r0"), "{msg}");
    // With four workers the reported error is still group 0's.
    let e4 = run(&s, vec![], [8, 1, 1], &Plan { threads: 4, ..o }).unwrap_err();
    assert_eq!(e4, e);
}

/// A lane reaching `unreachable` is an error naming it.
#[test]
fn unreachable_is_an_error() {
    let text = "shader compute
group [8 1 1]
const r0 = 5
block0:
    sysval thread_id, 0, r1
    icmp eq, r2, r1, r0
    branch r2, block1, block2
block1:
    unreachable
block2:
    return
";
    let e = run(&shader(text), vec![], [1, 1, 1], &opts(8, 1)).unwrap_err();
    match e {
        ExecError::Unreachable {
            lane: Invocation::Thread { thread, .. },
            block,
            ..
        } => {
            assert_eq!(thread.0, [5, 0, 0]);
            assert_eq!(block.0, 1);
        }
        _ => panic!("{e}"),
    }
}

/// `lane_count` and `lane_index` for every wave size; a group smaller than the wave
/// leaves the rest of the wave empty.
#[test]
fn every_wave_size() {
    let text = format!(
        "shader compute
group [24 1 1]
const r0 = 0
const r1 = 1000
const r2 = 0xffffffff
const r3 = 1000000
{OUT}
block0:
    sysval thread_id, 0, r4
    lane_count r5
    lane_index r6
    wave_countbits r7, r2
    imul r5, r5, r1
    iadd r5, r5, r6
    imul r7, r7, r3
    iadd r5, r5, r7
    handle r8, range0, r0
    struct_store b32, 1, r8, r4, r0, [r5 _ _ _]
    return
"
    );
    for wave in [4u32, 8, 16, 32, 64, 128] {
        let w = outputs(&text, 24, [1, 1, 1], &opts(wave, 1));
        for (t, &v) in w.iter().enumerate() {
            let lane = t as u32 % wave;
            let active = (24 - t as u32 / wave * wave).min(wave);
            assert_eq!(
                v,
                active * 1_000_000 + wave * 1000 + lane,
                "wave {wave} t {t}"
            );
        }
    }
    assert!(matches!(
        run(
            &shader(&text),
            vec![structured(&[0; 24], 4).1],
            [1, 1, 1],
            &opts(12, 1)
        ),
        Err(ExecError::WaveSize { .. })
    ));
}

/// SM 6.6 compute quads: with an 8×8 group, each 2×2 block of threads is one quad, so
/// fine derivatives of `x + 10 y` are 1 and 10 and `quad_read_lane 0` reads the block's
/// top-left thread.
#[test]
fn compute_quad_layout() {
    let text = "shader compute
group [8 8 1]
const r0 = 0
const r1 = 10
const r2 = 4
const r3 = 8
resource range0 = uav space 0 lower 0 count 1 structured_buffer(stride 16) uint \"out\"
block0:
    sysval group_thread_id, 0, r4
    sysval group_thread_id, 1, r5
    imul r6, r5, r1
    iadd r6, r6, r4
    utof r7, r6
    deriv fine_x, r8, r7
    deriv fine_y, r9, r7
    quad_read_lane false, r10, r6, r0
    group_index r11
    imul r12, r5, r3
    iadd r12, r12, r4
    handle r13, range0, r0
    struct_store b32, 15, r13, r12, r0, [r8 r9 r10 r11]
    return
";
    let s = shader(text);
    let (m, d) = structured(&[0; 256], 16);
    let r = run(&s, vec![d], [1, 1, 1], &opts(8, 1)).unwrap();
    assert_eq!(r.layout, ThreadLayout::Quads);
    let w = words(&m);
    for y in 0..8u32 {
        for x in 0..8u32 {
            let e = &w[((y * 8 + x) * 4) as usize..][..4];
            assert_eq!(f32::from_bits(e[0]), 1.0);
            assert_eq!(f32::from_bits(e[1]), 10.0);
            assert_eq!(e[2], (y & !1) * 10 + (x & !1), "({x}, {y})");
            assert_eq!(e[3], y * 8 + x);
        }
    }
}

/// Wave operations of every kind over a partly active wave (lane 3 inactive).
#[test]
fn wave_operations() {
    let text = "shader compute
group [8 1 1]
const r0 = 0
const r1 = 3
const r2 = 2
const r3 = 1
const r4 = 4
const r5 = 16
const r6 = 32
const r7 = 48
const r8 = 64
resource range0 = uav space 0 lower 0 count 1 structured_buffer(stride 80) uint \"out\"
block0:
    lane_index r9
    icmp ne, r10, r9, r1
    branch r10, block1, block2
block1:
    wave_prefix sum, u32, r11, r9
    wave_reduce product, u32, r12, r2
    and r13, r9, r3
    wave_ballot [r14 r15 r16 r17], r13
    wave_countbits r18, r13
    wave_prefix_countbits r19, r13
    wave_read_lane false, r20, r9, r4
    wave_read_lane false, r21, r9, r1
    wave_read_first false, r22, r9
    wave_is_first r23
    wave_match false, [r24 r25 r26 r27], r13
    wave_all_equal false, r28, r13
    wave_any r29, r13
    wave_all r30, r13
    wave_multi_prefix sum, u32, r31, r9, [r24 r25 r26 r27]
    wave_multi_prefix_countbits r32, r9, [r24 r25 r26 r27]
    handle r33, range0, r0
    struct_store b32, 15, r33, r9, r0, [r11 r12 r14 r18]
    struct_store b32, 15, r33, r9, r5, [r19 r20 r21 r22]
    struct_store b32, 15, r33, r9, r6, [r23 r24 r25 r26]
    struct_store b32, 15, r33, r9, r7, [r28 r29 r30 r31]
    struct_store b32, 1, r33, r9, r8, [r32 _ _ _]
    jump block2
block2:
    return
";
    let s = shader(text);
    let (m, d) = structured(&[0; 160], 80);
    run(&s, vec![d], [1, 1, 1], &opts(8, 1)).unwrap();
    let w = words(&m);
    let active = [0u32, 1, 2, 4, 5, 6, 7];
    for &l in &active {
        let e = &w[(l * 20) as usize..][..20];
        let below: Vec<u32> = active.iter().copied().filter(|&k| k < l).collect();
        assert_eq!(e[0], below.iter().sum::<u32>(), "prefix sum lane {l}");
        assert_eq!(e[1], 1 << 7, "product");
        assert_eq!(e[2], 0b1010_0010, "ballot of odd active lanes");
        assert_eq!(e[3], 3, "countbits");
        assert_eq!(e[4], below.iter().filter(|&&k| k & 1 == 1).count() as u32);
        assert_eq!(e[5], 4, "read lane 4");
        assert_eq!(e[6], 0, "reading inactive lane 3 gives 0 (1.0.14)");
        assert_eq!(e[7], 0, "read first");
        assert_eq!(e[8], if l == 0 { u32::MAX } else { 0 });
        let matching = if l & 1 == 1 { 0b1010_0010 } else { 0b0101_0101 };
        assert_eq!(e[9], matching, "match lane {l}");
        assert_eq!(&e[10..12], &[0, 0]);
        assert_eq!(e[12], 0, "all equal");
        assert_eq!(e[13], u32::MAX, "any");
        assert_eq!(e[14], 0, "all");
        let part: Vec<u32> = below.iter().copied().filter(|&k| k & 1 == l & 1).collect();
        assert_eq!(e[15], part.iter().sum::<u32>(), "multi prefix lane {l}");
        assert_eq!(e[16], part.iter().filter(|&&k| k != 0).count() as u32);
    }
    assert_eq!(&w[60..80], &[0; 20]);
}

/// Under the 1.0.13 profile a read of an inactive lane returns what its register holds,
/// and `fmad` is not fused.
#[test]
fn profile_1_0_13_rules() {
    let text = format!(
        "shader compute
group [8 1 1]
const r0 = 0
const r1 = 3
const r2 = 0x3f800800
const r3 = 0xbf801000
{OUT}
block0:
    lane_index r4
    sysval thread_id, 0, r5
    icmp ne, r6, r4, r1
    branch r6, block1, block2
block1:
    wave_read_lane false, r7, r4, r1
    handle r8, range0, r0
    struct_store b32, 1, r8, r5, r0, [r7 _ _ _]
    jump block2
block2:
    return
"
    );
    let o13 = Plan {
        profile: Profile::by_name("warp-1.0.13").unwrap(),
        ..opts(8, 1)
    };
    let w = outputs(&text, 8, [1, 1, 1], &o13);
    assert_eq!(w, vec![3, 3, 3, 0, 3, 3, 3, 3]);
    let w = outputs(&text, 8, [1, 1, 1], &opts(8, 1));
    assert_eq!(w, vec![0; 8]);
    // (1 + 2^-12)^2 − (1 + 2^-11): fused keeps 2^-24.
    let mad = format!(
        "shader compute
group [1 1 1]
const r0 = 0
const r1 = 0x3f800800
const r2 = 0xbf801000
{OUT}
block0:
    fmad r3, r1, r1, r2
    handle r4, range0, r0
    struct_store b32, 1, r4, r0, r0, [r3 _ _ _]
    return
"
    );
    assert_eq!(
        outputs(&mad, 1, [1, 1, 1], &opts(8, 1)),
        vec![2f32.powi(-24).to_bits()]
    );
    assert_eq!(outputs(&mad, 1, [1, 1, 1], &o13), vec![0]);
}

/// Local arrays (per lane), constant arrays, group index, 64-bit arithmetic and moves.
#[test]
fn local_and_constant_arrays_and_64_bit_values() {
    let text = format!(
        "shader compute
group [8 1 1]
const r0 = 0
const r1 = 4
const r2 = 3
const r3 = 0xffffffff
const r4 = 1
local x0 16 \"tmp\"
constarray icb0 [10 20 30 40]
{OUT}
block0:
    sysval thread_id, 0, r5
    and r6, r5, r2
    imul r7, r6, r1
    local_store b32, 1, x0, r7, 0, [r5 _ _ _]
    local_store b32, 1, x0, r0, 0, [r2 _ _ _]
    local_load b32, 1, [r8 _ _ _], x0, r7, 0
    local_load b32, 1, [r9 _ _ _], x0, r7, 64
    const_load b32, 1, [r10 _ _ _], icb0, r7, 0
    iadd r8, r8, r10
    iadd r8, r8, r9
    mov r11, r3
    mov r12, r0
    zext64 r13, r5
    i64add r15, r11, r13
    iadd r8, r8, r16
    handle r17, range0, r0
    struct_store b32, 1, r17, r5, r0, [r8 _ _ _]
    return
"
    );
    let w = outputs(&text, 8, [1, 1, 1], &opts(8, 1));
    // local[(t&3)*4] = t, except slot 0 which is overwritten with 3; icb adds 10*(slot+1);
    // the 64-bit add carries into the high word exactly when t > 0.
    let want: Vec<u32> = (0..8u32)
        .map(|t| {
            let slot = t & 3;
            let local = if slot == 0 { 3 } else { t };
            local + 10 * (slot + 1) + u32::from(t > 0)
        })
        .collect();
    assert_eq!(w, want);
}

/// `discard` ends lanes; `demote` makes helper lanes that do not write; `is_helper`.
#[test]
fn discard_demote_and_helpers() {
    let text = format!(
        "shader compute
group [8 1 1]
const r0 = 0
const r1 = 1
const r2 = 6
const r3 = 0xffffffff
{OUT}
block0:
    sysval thread_id, 0, r4
    and r5, r4, r1
    discard r5
    icmp eq, r6, r4, r2
    demote r6
    is_helper r7
    wave_countbits r8, r3
    iadd r7, r7, r8
    handle r9, range0, r0
    struct_store b32, 1, r9, r4, r0, [r7 _ _ _]
    return
"
    );
    let w = outputs(&text, 8, [1, 1, 1], &opts(8, 1));
    // Odd lanes discarded; lane 6 is a helper (no write); 3 non-helper lanes remain.
    assert_eq!(w, vec![3, 0, 3, 0, 3, 0, 0, 0]);
}

/// Typed UAVs of textures, typed buffers, constant buffers, counters, dimensions, and a
/// linear sample through a sampler heap, all in one program.
#[test]
fn resources_of_every_kind() {
    let text = "shader compute
group [4 1 1]
heap sampler
const r0 = 0
const r1 = 1
const r2 = 0x3f000000
const r3 = 0x3e800000
resource range0 = uav space 0 lower 0 count 1 texture2d float \"img\"
resource range1 = srv space 0 lower 0 count 1 typed_buffer float \"tb\"
resource range2 = cbv space 0 lower 0 count 1 cbuffer(size 16) mixed \"cb\"
resource range3 = uav space 0 lower 1 count 1 structured_buffer(stride 4) uint counter \"app\"
resource range4 = srv space 0 lower 1 count 1 texture2d float \"tex\"
block0:
    sysval thread_id, 0, r4
    handle r5, range0, r0
    handle r6, range1, r0
    handle r7, range2, r0
    handle r8, range3, r0
    handle r9, range4, r0
    heap_handle true, r10, r0
    typed_load [r11 r12 r13 r14], r6, [r4 _ _], _, _, (0 0 0), _
    cb_load b32, 1, [r15 _ _ _], r7, r0, 4
    utof r16, r4
    typed_store r5, [r4 r0 _], _, [r11 r15 r16 r14], 15
    counter_inc r17, r8
    struct_store b32, 1, r8, r17, r0, [r4 _ _ _]
    dimensions [r18 r19 r20 r21], r5, r0
    sample level, [r22 _ _ _], r9, r10, [r2 r2 _ _], (0 0 0), [_ _], r0, _, [_ _ _], [_ _ _], _, _
    typed_store r5, [r4 r1 _], _, [r18 r19 r21 r22], 15
    return
";
    let s = shader(text);
    let img = Texture::new(TextureDesc::tex2d(Format::R32G32B32A32_FLOAT, 4, 2)).unwrap();
    let tb = Memory::from_bytes(&[
        0, 64, 128, 255, 10, 20, 30, 40, 255, 255, 255, 255, 1, 2, 3, 4,
    ])
    .unwrap();
    let cb = Memory::from_bytes(&[0, 0, 0, 0, 0, 0, 0x40, 0x40, 0, 0, 0, 0, 0, 0, 0, 0]).unwrap();
    let app = Memory::zeroed(16).unwrap();
    let counter = Counter::new(0);
    let tex = Texture::from_bytes(
        TextureDesc::tex2d(Format::R8_UNORM, 2, 2),
        &[0, 255, 255, 255],
    )
    .unwrap();
    let b = Bindings {
        ranges: vec![
            vec![Descriptor::Texture(TextureView::whole(img.clone()))],
            vec![Descriptor::Buffer {
                view: BufferView::whole(
                    tb,
                    BufferKind::Typed {
                        format: Format::R8G8B8A8_UNORM,
                    },
                ),
                counter: None,
            }],
            vec![Descriptor::ConstantBuffer {
                memory: cb,
                offset: 0,
                size: 16,
            }],
            vec![Descriptor::Buffer {
                view: BufferView::whole(app.clone(), BufferKind::Structured { stride: 4 }),
                counter: Some(counter.clone()),
            }],
            vec![Descriptor::Texture(TextureView::whole(tex))],
        ],
        resource_heap: vec![],
        sampler_heap: vec![Descriptor::Sampler(SamplerDesc {
            filter: Filter::LINEAR,
            ..SamplerDesc::default()
        })],
    };
    dispatch(&s, &b, [1, 1, 1], &opts(4, 1), None).unwrap();
    let px = |x: u32, y: u32| -> Vec<f32> {
        let a = ((y * 4 + x) * 16) as usize;
        img.to_bytes()[a..a + 16]
            .chunks(4)
            .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    };
    assert_eq!(px(0, 0), vec![0.0, 3.0, 0.0, 1.0]);
    assert_eq!(px(1, 0), vec![10.0 / 255.0, 3.0, 1.0, 40.0 / 255.0]);
    assert_eq!(px(3, 0), vec![1.0 / 255.0, 3.0, 3.0, 4.0 / 255.0]);
    // Dimensions of a UAV texture: width, height, mips; the sample at the centre of
    // four texels with linear filtering averages 0, 1, 1, 1.
    let d = px(2, 1);
    assert_eq!(d[0].to_bits(), 4);
    assert_eq!(d[1].to_bits(), 2);
    assert_eq!(d[2].to_bits(), 1);
    assert_eq!(d[3], 0.75);
    assert_eq!(counter.get(), 4);
    let mut seen = words(&app);
    seen.sort();
    assert_eq!(seen, vec![0, 1, 2, 3]);
}

/// A binding of the wrong kind is refused before anything runs; a missing one too.
#[test]
fn bindings_are_checked() {
    let s = shader(&format!(
        "shader compute\ngroup [1 1 1]\n{OUT}\nblock0:\n    return\n"
    ));
    let (_, raw_d) = raw(&[0]);
    let e = run(&s, vec![raw_d], [1, 1, 1], &opts(8, 1)).unwrap_err();
    assert!(e.to_string().contains("u0"), "{e}");
    let e = run(&s, vec![], [1, 1, 1], &opts(8, 1)).unwrap_err();
    assert!(matches!(e, ExecError::Binding { .. }), "{e}");
    run(
        &s,
        vec![Descriptor::Null(ViewClass::Buffer)],
        [1, 1, 1],
        &opts(8, 1),
    )
    .unwrap();
    let e = run(
        &s,
        vec![Descriptor::Null(ViewClass::Texture)],
        [1, 1, 1],
        &opts(8, 1),
    )
    .unwrap_err();
    assert!(matches!(e, ExecError::Binding { .. }), "{e}");
}

/// A null descriptor reads 0 and drops writes.
#[test]
fn null_descriptors_read_zero() {
    let text = "shader compute
group [4 1 1]
const r0 = 0
const r1 = 7
resource range0 = uav space 0 lower 0 count 1 structured_buffer(stride 4) uint \"n\"
resource range1 = uav space 0 lower 1 count 1 structured_buffer(stride 4) uint \"out\"
block0:
    sysval thread_id, 0, r2
    handle r3, range0, r0
    handle r4, range1, r0
    struct_store b32, 1, r3, r2, r0, [r1 _ _ _]
    struct_load b32, 1, [r5 _ _ _], r3, r2, r0
    dimensions [r6 r7 _ _], r3, r0
    iadd r5, r5, r6
    iadd r5, r5, r7
    struct_store b32, 1, r4, r2, r0, [r5 _ _ _]
    return
";
    let (m, d) = structured(&[9; 4], 4);
    run(
        &shader(text),
        vec![Descriptor::Null(ViewClass::Buffer), d],
        [1, 1, 1],
        &opts(4, 1),
    )
    .unwrap();
    assert_eq!(words(&m), vec![0; 4]);
}

/// Groups and threads of a 3D dispatch see their system values; progress is reported.
#[test]
fn system_values_and_progress() {
    let text = "shader compute
group [2 2 2]
const r0 = 0
const r1 = 8
const r2 = 100
resource range0 = uav space 0 lower 0 count 1 structured_buffer(stride 16) uint \"out\"
block0:
    sysval thread_id, 0, r3
    sysval thread_id, 1, r4
    sysval thread_id, 2, r5
    sysval group_id, 0, r6
    sysval group_id, 1, r7
    sysval group_id, 2, r8
    group_index r9
    imul r10, r6, r2
    imul r11, r7, r2
    imul r12, r8, r2
    iadd r10, r10, r11
    iadd r10, r10, r12
    imul r11, r4, r1
    imul r13, r5, r1
    imul r13, r13, r1
    iadd r11, r11, r13
    iadd r11, r11, r3
    handle r14, range0, r0
    struct_store b32, 15, r14, r11, r0, [r3 r4 r5 r9]
    return
";
    let s = shader(text);
    let (m, d) = structured(&[0; 4 * 8 * 8 * 8], 16);
    let count = std::sync::atomic::AtomicU64::new(0);
    let last = std::sync::atomic::AtomicU64::new(0);
    let progress = |done: u64, total: u64| {
        count.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
        last.fetch_max(done, std::sync::atomic::Ordering::Relaxed);
        assert_eq!(total, 64);
    };
    let b = Bindings {
        ranges: vec![vec![d]],
        ..Bindings::default()
    };
    dispatch(&s, &b, [4, 4, 4], &opts(4, 2), Some(&progress)).unwrap();
    assert_eq!(count.into_inner(), 64);
    assert_eq!(last.into_inner(), 64);
    let w = words(&m);
    for z in 0..8u32 {
        for y in 0..8u32 {
            for x in 0..8u32 {
                let i = ((z * 64 + y * 8 + x) * 4) as usize;
                let gi = (x & 1) + 2 * (y & 1) + 4 * (z & 1);
                assert_eq!(&w[i..i + 4], &[x, y, z, gi]);
            }
        }
    }
}

/// Results do not depend on the number of workers (a deterministic program).
#[test]
fn results_do_not_depend_on_worker_count() {
    let s = shader(REDUCTION);
    let mut all = Vec::new();
    for threads in [1usize, 2, 3, 4] {
        let (m, d) = structured(&[0; 50], 4);
        run(&s, vec![d], [50, 1, 1], &opts(8, threads)).unwrap();
        all.push(words(&m));
    }
    assert!(all.windows(2).all(|w| w[0] == w[1]));
}

/// A stage other than compute cannot be dispatched; absurd groups are refused.
#[test]
fn malformed_dispatches_are_refused() {
    let s = shader("shader pixel\nblock0:\n    return\n");
    assert!(matches!(
        run(&s, vec![], [1, 1, 1], &opts(8, 1)),
        Err(ExecError::Dispatch(_))
    ));
    let s = shader("shader compute\ngroup [2048 1 1]\nblock0:\n    return\n");
    assert!(matches!(
        run(&s, vec![], [1, 1, 1], &opts(8, 1)),
        Err(ExecError::Dispatch(_))
    ));
    let s = shader("shader compute\ngroup [1 1 1]\nblock0:\n    return\n");
    assert!(matches!(
        run(&s, vec![], [70000, 1, 1], &opts(8, 1)),
        Err(ExecError::Dispatch(_))
    ));
    let r = run(&s, vec![], [0, 5, 1], &opts(8, 1)).unwrap();
    assert_eq!(r.groups, 0);
}

/// The memory budget refuses a dispatch whose execution state would not fit.
#[test]
fn memory_budget() {
    let s = shader("shader compute\ngroup [1024 1 1]\nregs 1000\nblock0:\n    return\n");
    let o = Plan {
        limits: Limits {
            max_memory_bytes: 1 << 20,
            ..Limits::default()
        },
        ..opts(8, 1)
    };
    assert!(matches!(
        run(&s, vec![], [1, 1, 1], &o),
        Err(ExecError::MemoryBudget { .. })
    ));
}

/// Arrays of UAVs: elements past the bound descriptors are null; 2D textures in a cube
/// array are sampled by direction.
#[test]
fn resource_arrays_and_cubes() {
    let text = "shader compute
group [6 1 1]
const r0 = 0
const r1 = 12
resource range0 = uav space 0 lower 0 count 3 structured_buffer(stride 4) uint \"arr\"
resource range1 = srv space 0 lower 0 count 1 texturecube float \"cube\"
resource range2 = sampler space 0 lower 0 count 1 sampler mixed \"s\"
constarray icb0 [0x3f800000 0 0 0xbf800000 0 0 0 0x3f800000 0 0 0xbf800000 0 0 0 0x3f800000 0 0 0xbf800000]
block0:
    sysval thread_id, 0, r2
    imul r3, r2, r1
    const_load b32, 7, [r4 r5 r6 _], icb0, r3, 0
    handle r7, range1, r0
    handle r8, range2, r0
    sample level, [r9 _ _ _], r7, r8, [r4 r5 r6 _], (0 0 0), [_ _], r0, _, [_ _ _], [_ _ _], _, _
    ftou r10, r9
    handle r11, range0, r0
    struct_store b32, 1, r11, r2, r0, [r10 _ _ _]
    handle r12, range0, r2
    struct_store b32, 1, r12, r0, r0, [r2 _ _ _]
    return
";
    let s = shader(text);
    let desc = TextureDesc {
        dim: TextureDim::Cube,
        format: Format::R32_FLOAT,
        width: 1,
        height: 1,
        depth_or_array_size: 6,
        mips: 1,
        samples: 1,
    };
    let faces: Vec<u8> = (0..6u32)
        .flat_map(|f| (10.0 * f as f32 + 5.0).to_le_bytes())
        .collect();
    let cube = Texture::from_bytes(desc, &faces).unwrap();
    let (m0, d0) = structured(&[0; 6], 4);
    let (m1, d1) = structured(&[0; 1], 4);
    let b = Bindings {
        ranges: vec![
            vec![d0, d1],
            vec![Descriptor::Texture(TextureView::whole(cube))],
            vec![Descriptor::Sampler(SamplerDesc::default())],
        ],
        ..Bindings::default()
    };
    dispatch(&s, &b, [1, 1, 1], &opts(8, 1), None).unwrap();
    // Thread t samples face t (directions +X, −X, +Y, −Y, +Z, −Z); thread 1 also wrote
    // 1 to element 0 of array element 1 (its own buffer); threads 2.. hit null elements.
    assert_eq!(words(&m0)[1..], [15, 25, 35, 45, 55]);
    assert_eq!(words(&m0)[0], 0);
    assert_eq!(words(&m1), vec![1]);
}

/// The 64-bit pair of a double.
fn dw(x: f64) -> [u32; 2] {
    let b = x.to_bits();
    [b as u32, (b >> 32) as u32]
}

/// The 64-bit pair of an integer.
fn qw(x: u64) -> [u32; 2] {
    [x as u32, (x >> 32) as u32]
}

fn four(a: [u32; 2], b: [u32; 2]) -> [u32; 4] {
    [a[0], a[1], b[0], b[1]]
}

/// One of every scalar family: doubles, 64-bit integers, conversions, bits, integer and
/// float arithmetic. Each chunk writes r23–r26, stored as four words; the expected words
/// come from Rust's own arithmetic, and constants worked out by hand for the WARP-specific
/// rules (never from the functions under test).
#[test]
fn scalar_instruction_families() {
    let pi = std::f32::consts::PI;
    let p64: u64 = 0x1_0000_0005;
    let neg: u64 = 0xffff_ffff_8000_0000;
    let chunks: Vec<(&str, [u32; 4])> = vec![
        ("dadd r23, r1, r3\ndmul r25, r1, r3", four(dw(3.5), dw(3.0))),
        (
            "ddiv r23, r1, r3\ndfma r25, r1, r3, r1",
            four(dw(0.75), dw(4.5)),
        ),
        (
            "drcp r23, r3\ndsqrt r25, r3",
            four(dw(0.5), dw(2f64.sqrt())),
        ),
        ("dmin r23, r1, r3\ndmax r25, r1, r3", four(dw(1.5), dw(2.0))),
        (
            "dsub r23, r1, r3\ndrem r25, r3, r1",
            four(dw(-0.5), dw(0.5)),
        ),
        (
            "dcmp lt, r23, r1, r3\ndtest finite, r24, r1\ndtof r25, r1\ndtoi r26, r3",
            [u32::MAX, u32::MAX, 1.5f32.to_bits(), 2],
        ),
        (
            "ftod r23, r7\nitod r25, r5",
            four(dw(f64::from(pi)), dw(-10.0)),
        ),
        (
            "utod r23, r9\ndtou r25, r3\nftoi r26, r13",
            [
                dw(4294967295.0)[0],
                dw(4294967295.0)[1],
                2,
                (-123i32) as u32,
            ],
        ),
        (
            "ftoi64 r23, r13\nftou64 r25, r14",
            four(qw(-123i64 as u64), qw(u64::MAX)),
        ),
        ("dtoi64 r23, r1\ndtou64 r25, r3", four(qw(1), qw(2))),
        (
            "i64tof r23, r15\nu64tof r24, r15\ni64tod r25, r15",
            [
                (p64 as f32).to_bits(),
                (p64 as f32).to_bits(),
                dw(p64 as f64)[0],
                dw(p64 as f64)[1],
            ],
        ),
        (
            "u64tod r23, r15\nsext64 r25, r5",
            four(dw(p64 as f64), qw(-10i64 as u64)),
        ),
        (
            "zext64 r23, r5\nsext 8, r25, r17\nsext 16, r26, r11",
            [0xffff_fff6, 0, u32::MAX, 8],
        ),
        (
            "i64add r23, r15, r15\ni64sub r25, r0, r15",
            four(qw(2 * p64), qw(p64.wrapping_neg())),
        ),
        (
            "i64mul r23, r15, r15\nu64div r25, r15, r19",
            four(qw(p64.wrapping_mul(p64)), qw(p64 / 3)),
        ),
        (
            "u64rem r23, r15, r19\ni64rem r25, r15, r0",
            four(qw(p64 % 3), qw(u64::MAX)),
        ),
        (
            "i64shl r23, r15, r6\nu64shr r25, r15, r11",
            four(qw(p64 << 3), qw(p64 >> 8)),
        ),
        (
            "i64shr r23, r8, r12\ni64cmp slt, r25, r8, r15\ncountbits64 r26, r15",
            [
                qw(((neg as i64) >> 4) as u64)[0],
                qw(((neg as i64) >> 4) as u64)[1],
                u32::MAX,
                3,
            ],
        ),
        (
            "i64min r23, r8, r15\nu64max r25, r8, r15",
            four(qw(neg), qw(neg)),
        ),
        (
            "i64max r23, r8, r15\nu64min r25, r8, r15",
            four(qw(p64), qw(p64)),
        ),
        (
            "firstbit_hi64 r23, r15\nfirstbit_lo64 r24, r15\nbfrev64 r25, r15",
            [31, 0, qw(p64.reverse_bits())[0], qw(p64.reverse_bits())[1]],
        ),
        (
            "firstbit_shi64 r23, r8\nmov r24, r0\nselect64 r25, r9, r15, r0",
            [33, 0, qw(p64)[0], qw(p64)[1]],
        ),
        (
            "imulhi r23, r5, r10\numulhi r24, r9, r9\nimad r25, r5, r6, r10\nineg r26, r5",
            [
                ((-10i64 * 0x1234_5678) >> 32) as u32,
                0xffff_fffe,
                0x1234_5678u32.wrapping_sub(30),
                10,
            ],
        ),
        (
            "uaddc r23, r24, r9, r6\nusubb r25, r26, r6, r9",
            [2, 1, 4, 1],
        ),
        (
            "bfi r23, r11, r12, r9, r10\nubfe r24, r11, r12, r10\nibfe r25, r11, r12, r8\nmsad r26, r10, r15, r6",
            [
                // bfi: bits 4..12 of 0x12345678 set; msad: 3 + |0x78-5| + 0x56 + 0x34
                // + 0x12 (the source's upper bytes are 0).
                0x1234_5ff8,
                0x67,
                0,
                274,
            ],
        ),
        (
            "f32tof16 r23, r7\nf32tohalf r24, r7\nf16tof32 r25, r23\nfrem r26, r7, r13",
            [
                // π as a half is 0x4248 (3.140625) both toward zero and to nearest
                // even; 3.140625 as f32 is 0x40490000.
                0x4248,
                0x4248,
                0x4049_0000,
                pi.to_bits(),
            ],
        ),
        (
            "fmin r23, r7, r14\nfmax r24, r7, r14\nffma r25, r7, r7, r13\nfmad_precise r26, r7, r7, r13",
            [
                pi.to_bits(),
                f32::INFINITY.to_bits(),
                // π·π − 123 = −113.13039…: 0xc2e242c3 fused, and also with the
                // product rounded first (worked in exact binary64, rounded once).
                0xc2e2_42c3,
                0xc2e2_42c3,
            ],
        ),
        (
            "fcmp ge, r23, r7, r13\nutof r24, r9\nitof r25, r5\nftou r26, r13",
            [u32::MAX, 4294967296f32.to_bits(), (-10f32).to_bits(), 0],
        ),
        (
            "not r23, r10\nxor r24, r10, r9\nishr r25, r8, r6\nushr r26, r8, r6",
            [!0x1234_5678, !0x1234_5678, 0xf000_0000, 0x1000_0000],
        ),
        (
            "firstbit_hi r23, r10\nfirstbit_lo r24, r10\nfirstbit_shi r25, r5\ncountbits r26, r10",
            [3, 3, 28, 0x1234_5678u32.count_ones()],
        ),
        (
            "udiv r23, r10, r0\nurem r24, r10, r6\nidiv r25, r5, r6\nirem r26, r5, r6",
            [u32::MAX, 0x1234_5678 % 3, (-3i32) as u32, (-1i32) as u32],
        ),
        (
            "umin r23, r5, r6\numax r24, r5, r6\nimin r25, r5, r6\nimax r26, r5, r6",
            [3, 0xffff_fff6, (-10i32) as u32, 3],
        ),
        (
            "funary sqrt, r23, r7\nfunary sat, r24, r13\nfsub r25, r7, r7\nfdiv r26, r7, r0",
            [pi.sqrt().to_bits(), 0, 0, f32::INFINITY.to_bits()],
        ),
    ];
    let mut text = String::from(
        "shader compute
group [1 1 1]
const r0 = 0
const r1 = 0
const r2 = 0x3ff80000
const r3 = 0
const r4 = 0x40000000
const r5 = 0xfffffff6
const r6 = 3
const r7 = 0x40490fdb
const r8 = 0x80000000
const r9 = 0xffffffff
const r10 = 0x12345678
const r11 = 8
const r12 = 4
const r13 = 0xc2f60000
const r14 = 0x7f800000
const r15 = 5
const r16 = 1
const r17 = 0xffff
const r18 = 16
const r19 = 3
const r20 = 0
resource range0 = uav space 0 lower 0 count 1 raw_buffer uint \"out\"
block0:
    handle r21, range0, r0
    mov r22, r0
",
    );
    for (body, _) in &chunks {
        for line in body.lines() {
            text.push_str(&format!("    {line}\n"));
        }
        text.push_str(
            "    raw_store b32, 15, r21, r22, [r23 r24 r25 r26]\n    iadd r22, r22, r18\n",
        );
    }
    text.push_str("    return\n");
    let s = shader(&text);
    let (m, d) = raw(&vec![0; chunks.len() * 4]);
    run(&s, vec![d], [1, 1, 1], &opts(8, 1)).unwrap();
    let w = words(&m);
    for (i, (body, want)) in chunks.iter().enumerate() {
        assert_eq!(&w[i * 4..i * 4 + 4], want, "chunk {i}:\n{body}");
    }
}

/// Texture and UAV atomics, group shared atomics, counters, gather, LOD, multisampled
/// textures, quad operations, derivatives and typed wave reductions, in one 4 × 2 group
/// (SM 6.6 quads: lanes 0–3 are threads (0,0), (1,0), (0,1), (1,1)).
#[test]
fn textures_atomics_and_quads() {
    let text = "shader compute
group [4 2 1]
groupshared 16
const r0 = 0
const r1 = 1
const r2 = 2
const r3 = 3
const r4 = 160
const r5 = 100
const r6 = 0x3f000000
const r7 = 4
const r8 = 8
const r9 = 16
const r10 = 32
const r11 = 48
const r12 = 64
const r13 = 80
const r14 = 96
const r15 = 112
const r16 = 0x41200000
const r17 = 0x40000000
const r18 = 0xffffffff
const r19 = 128
resource range0 = uav space 0 lower 0 count 1 raw_buffer uint \"out\"
resource range1 = uav space 0 lower 1 count 1 texture2d uint \"img\"
resource range2 = srv space 0 lower 0 count 1 texture2d float \"tex\"
resource range3 = sampler space 0 lower 0 count 1 sampler mixed \"s\"
resource range4 = srv space 0 lower 1 count 1 texture2dms uint \"ms\"
resource range5 = uav space 0 lower 2 count 1 raw_buffer uint \"acc64\"
resource range6 = uav space 0 lower 3 count 1 structured_buffer(stride 4) uint counter \"consume\"
block0:
    group_index r30
    sysval group_thread_id, 0, r31
    sysval group_thread_id, 1, r32
    imul r33, r30, r4
    handle r34, range0, r0
    handle r35, range1, r0
    handle r36, range2, r0
    handle r37, range3, r0
    handle r38, range4, r0
    handle r39, range5, r0
    handle r40, range6, r0
    and r41, r31, r1
    res_atomic add, _, r35, [r41 r0 _], r1
    iadd r42, r30, r5
    res_cmpxchg r43, r35, [r3 r3 _], r0, r42
    zext64 r44, r1
    res_atomic64 add, r46, r39, [r0 _ _], r44
    shared_atomic add, r48, r0, r1
    iadd r50, r30, r1
    shared_cmpxchg r49, r7, r0, r50
    shared_atomic64 add, r51, r8, r44
    barrier true, true, false
    shared_load b32, 7, [r53 r54 r55 _], r0, 0
    counter_dec r56, r40
    raw_store b32, 15, r34, r33, [r43 r46 r48 r49]
    iadd r57, r33, r9
    raw_store b32, 15, r34, r57, [r51 r53 r54 r55]
    gather implicit, 0, [r58 r59 r60 r61], r36, r37, [r6 r6 _ _], (0 0 0), [_ _], _, _, [_ _ _], [_ _ _], _, _
    iadd r57, r33, r10
    raw_store b32, 15, r34, r57, [r58 r59 r60 r61]
    utof r62, r31
    utof r63, r32
    fmul r62, r62, r6
    fmul r63, r63, r6
    lod [r64 r65], r36, r37, [r62 r63 _]
    sample_count r66, r38
    iadd r57, r33, r11
    raw_store b32, 15, r34, r57, [r64 r65 r66 r56]
    and r67, r30, r3
    sample_pos [r68 r69], r38, r67
    and r70, r32, r1
    typed_load [r71 _ _ _], r38, [r41 r70 _], _, r67, (0 0 0), _
    cycle_counter r72
    iadd r57, r33, r12
    raw_store b32, 15, r34, r57, [r68 r69 r71 r72]
    quad_swap x, false, r73, r30
    quad_swap y, false, r74, r30
    quad_swap diag, false, r75, r30
    icmp eq, r96, r30, r2
    quad_vote false, r76, r96
    iadd r57, r33, r13
    raw_store b32, 15, r34, r57, [r73 r74 r75 r76]
    quad_vote true, r77, r96
    utof r97, r30
    utof r98, r32
    utof r99, r31
    fmul r100, r98, r16
    fadd r100, r100, r99
    deriv coarse_x, r78, r100
    deriv coarse_y, r79, r100
    wave_reduce sum, f32, r80, r97
    iadd r57, r33, r14
    raw_store b32, 15, r34, r57, [r77 r78 r79 r80]
    f32tohalf r101, r97
    wave_reduce sum, f16, r81, r101
    zext64 r102, r30
    wave_reduce sum, u64, r82, r102
    ineg r103, r30
    wave_reduce min, i32, r84, r103
    wave_prefix product, f32, r85, r17
    iadd r57, r33, r15
    raw_store b32, 15, r34, r57, [r81 r82 r84 r85]
    wave_all_equal true, r86, r102
    wave_read_first true, r87, r102
    quad_read_lane true, r89, r102, r3
    and r104, r30, r1
    zext64 r105, r104
    wave_match true, [r91 r92 r93 r94], r105
    iadd r57, r33, r19
    raw_store b32, 15, r34, r57, [r86 r87 r89 r91]
    return
";
    let s = shader(text);
    let img = Texture::new(TextureDesc {
        format: Format::R32_UINT,
        ..TextureDesc::tex2d(Format::R32_UINT, 4, 4)
    })
    .unwrap();
    let mut tex_bytes = Vec::new();
    for m in 0..3u32 {
        let n = 4 >> m;
        for y in 0..n {
            for x in 0..n {
                tex_bytes.extend_from_slice(&((x + 10 * y + 1000 * m) as f32).to_le_bytes());
            }
        }
    }
    let tex = Texture::from_bytes(
        TextureDesc {
            mips: 3,
            ..TextureDesc::tex2d(Format::R32_FLOAT, 4, 4)
        },
        &tex_bytes,
    )
    .unwrap();
    let mut ms_bytes = Vec::new();
    for smp in 0..4u32 {
        for y in 0..2u32 {
            for x in 0..2u32 {
                ms_bytes.extend_from_slice(&(smp * 10 + x + 2 * y).to_le_bytes());
            }
        }
    }
    let ms = Texture::from_bytes(
        TextureDesc {
            dim: TextureDim::Tex2DMS,
            samples: 4,
            ..TextureDesc::tex2d(Format::R32_UINT, 2, 2)
        },
        &ms_bytes,
    )
    .unwrap();
    let (out, out_d) = raw(&[0; 8 * 40]);
    let (acc, acc_d) = raw(&[0, 0]);
    let counter = Counter::new(10);
    let b = Bindings {
        ranges: vec![
            vec![out_d],
            vec![Descriptor::Texture(TextureView::whole(img.clone()))],
            vec![Descriptor::Texture(TextureView::whole(tex))],
            vec![Descriptor::Sampler(SamplerDesc {
                filter: Filter::POINT,
                ..SamplerDesc::default()
            })],
            vec![Descriptor::Texture(TextureView::whole(ms))],
            vec![acc_d],
            vec![Descriptor::Buffer {
                view: BufferView::whole(
                    Memory::zeroed(64).unwrap(),
                    BufferKind::Structured { stride: 4 },
                ),
                counter: Some(counter.clone()),
            }],
        ],
        ..Bindings::default()
    };
    let r = dispatch(&s, &b, [1, 1, 1], &opts(8, 1), None).unwrap();
    assert_eq!(r.layout, ThreadLayout::Quads);
    let w = words(&out);
    let f = |x: f32| x.to_bits();
    // Lane of each thread (group index), and the thread of each lane.
    let lane_of = [0usize, 1, 4, 5, 2, 3, 6, 7];
    let tid_of = [0u32, 1, 4, 5, 2, 3, 6, 7];
    let positions: [[f32; 2]; 4] = [[-2.0, -6.0], [6.0, -2.0], [-6.0, 2.0], [2.0, 6.0]];
    for tid in 0..8u32 {
        let l = lane_of[tid as usize];
        let (x, y) = (tid % 4, tid / 4);
        let e = &w[(tid * 40) as usize..][..36];
        let ctx = format!("thread {tid} (lane {l})");
        // UAV and shared atomics return old values in lane order.
        assert_eq!(e[0], if tid == 0 { 0 } else { 100 }, "{ctx}");
        assert_eq!(e[1], l as u32, "{ctx}");
        assert_eq!(e[2], l as u32, "{ctx}");
        assert_eq!(e[3], if tid == 0 { 0 } else { 1 }, "{ctx}");
        assert_eq!(&e[4..8], &[l as u32, 8, 1, 8], "{ctx}");
        // gather at (0.5, 0.5) of a 4 × 4 texture of x + 10 y: (1,2) (2,2) (2,1) (1,1).
        assert_eq!(&e[8..12], &[f(21.0), f(22.0), f(12.0), f(11.0)], "{ctx}");
        // u = x / 2: two texels per pixel → LOD 1 (clamped and unclamped).
        assert_eq!(&e[12..16], &[f(1.0), f(1.0), 4, 9 - l as u32], "{ctx}");
        let smp = tid & 3;
        assert_eq!(e[16], f(positions[smp as usize][0] / 16.0), "{ctx}");
        assert_eq!(e[17], f(positions[smp as usize][1] / 16.0), "{ctx}");
        assert_eq!(e[18], smp * 10 + (x & 1) + 2 * (y & 1), "{ctx}");
        assert!(e[19] > 0);
        assert_eq!(
            &e[20..23],
            &[tid_of[l ^ 1], tid_of[l ^ 2], tid_of[l ^ 3]],
            "{ctx}"
        );
        assert_eq!(e[23], if l >= 4 { u32::MAX } else { 0 }, "quad any {ctx}");
        assert_eq!(e[24], 0, "quad all {ctx}");
        assert_eq!(&e[25..28], &[f(1.0), f(10.0), f(28.0)], "{ctx}");
        assert_eq!(e[28], 0x4f00, "f16 sum {ctx}");
        assert_eq!(e[29], 28, "u64 sum {ctx}");
        assert_eq!(e[30], (-7i32) as u32, "{ctx}");
        assert_eq!(e[31], f(2f32.powi(l as i32)), "prefix product {ctx}");
        assert_eq!(e[32], 0, "all equal {ctx}");
        assert_eq!(e[33], 0, "read first {ctx}");
        assert_eq!(e[34], tid_of[(l & !3) + 3], "{ctx}");
        assert_eq!(e[35], if l & 1 == 0 { 0x55 } else { 0xaa }, "{ctx}");
    }
    let img = words(img.memory());
    assert_eq!(&img[..2], &[4, 4]);
    assert_eq!(img[15], 100);
    assert_eq!(words(&acc), vec![8, 0]);
    assert_eq!(counter.get(), 2);
}

/// 16- and 64-bit memory widths, 64-bit compare-exchanges, the resource heap, `rcp`,
/// signed 64-bit division, gradient and comparison sampling, and gather with
/// programmable offsets.
#[test]
fn widths_heaps_and_sampling_modes() {
    let text = "shader compute
group [1 1 1]
groupshared 8
heap resource
const r0 = 0
const r1 = 1
const r2 = 2
const r3 = 8
const r4 = 0xbeef
const r5 = 0xfffffff6
const r6 = 3
const r7 = 0
const r8 = 0x40800000
const r9 = 7
const r10 = 9
const r11 = 0x3f000000
const r12 = 0x3e800000
const r13 = 0x3fc00000
const r14 = 0x3f800000
const r15 = 4
resource range0 = uav space 0 lower 0 count 1 raw_buffer uint \"buf\"
resource range1 = srv space 0 lower 0 count 1 texture2d float \"tex\"
resource range2 = sampler space 0 lower 0 count 1 sampler mixed \"point\"
resource range3 = sampler space 0 lower 1 count 1 sampler(comparison) mixed \"cmp\"
block0:
    handle r20, range0, r0
    heap_handle false, r21, r0
    raw_load b16, 3, [r22 r23 _ _], r20, r2
    raw_load b64, 1, [r24 _ _ _], r20, r3
    raw_store b16, 1, r20, r0, [r4 _ _ _]
    res_cmpxchg64 r26, r20, [r3 _ _], r24, r9
    sext64 r28, r5
    i64div r30, r28, r6
    mov r50, r0
    mov r51, r0
    shared_cmpxchg64 r32, r0, r50, r24
    shared_load b64, 1, [r34 _ _ _], r0, 0
    funary rcp, r36, r8
    struct_store b32, 15, r21, r0, r0, [r22 r23 r24 r25]
    struct_store b32, 15, r21, r1, r0, [r26 r27 r30 r31]
    struct_store b32, 15, r21, r2, r0, [r32 r33 r34 r35]
    handle r40, range1, r0
    handle r41, range2, r0
    handle r42, range3, r0
    sample grad, [r43 _ _ _], r40, r41, [r12 r12 _ _], (0 0 0), [_ _], _, _, [r11 r0 _], [r0 r0 _], _, _
    sample grad, [r44 _ _ _], r40, r41, [r12 r12 _ _], (0 0 0), [_ _], _, _, [r14 r0 _], [r0 r0 _], _, _
    sample cmp_lz, [r45 _ _ _], r40, r42, [r11 r11 _ _], (0 0 0), [_ _], _, r13, [_ _ _], [_ _ _], _, _
    gather cmp, 0, [r46 r47 r48 r49], r40, r42, [r12 r12 _ _], (0 0 0), [r1 r0], _, r13, [_ _ _], [_ _ _], _, _
    struct_store b32, 15, r21, r6, r0, [r36 r43 r44 r45]
    struct_store b32, 15, r21, r15, r0, [r46 r47 r48 r49]
    return
";
    let s = shader(text);
    let (buf, buf_d) = raw(&[0x4433_2211, 0x8877_6655, 1, 2]);
    let (out, out_d) = structured(&[0; 20], 16);
    let mut tex = Vec::new();
    for v in [0.0f32, 1.0, 2.0, 3.0, 100.0] {
        tex.extend_from_slice(&v.to_le_bytes());
    }
    let tex = Texture::from_bytes(
        TextureDesc {
            mips: 2,
            ..TextureDesc::tex2d(Format::R32_FLOAT, 2, 2)
        },
        &tex,
    )
    .unwrap();
    let cmp = SamplerDesc {
        filter: Filter::from_name("COMPARISON_MIN_MAG_MIP_LINEAR").unwrap(),
        comparison: dxlane::resources::ComparisonFunc::Less,
        ..SamplerDesc::default()
    };
    let b = Bindings {
        ranges: vec![
            vec![buf_d],
            vec![Descriptor::Texture(TextureView::whole(tex))],
            vec![Descriptor::Sampler(SamplerDesc {
                filter: Filter::POINT,
                ..SamplerDesc::default()
            })],
            vec![Descriptor::Sampler(cmp)],
        ],
        resource_heap: vec![out_d],
        sampler_heap: vec![],
    };
    dispatch(&s, &b, [1, 1, 1], &opts(4, 1), None).unwrap();
    let w = words(&out);
    assert_eq!(
        &w[0..4],
        &[0x4433, 0x6655, 1, 2],
        "16- and 64-bit raw loads"
    );
    assert_eq!(
        &w[4..8],
        &[1, 2, (-3i32) as u32, u32::MAX],
        "cmpxchg64 old, i64div"
    );
    assert_eq!(
        &w[8..12],
        &[0, 0, 1, 2],
        "shared cmpxchg64 old, then the stored pair"
    );
    let f = |x: f32| x.to_bits();
    // rcp(4); grad of half a texel → mip 0 texel (0,0); of one texel → LOD 1 → mip 1;
    // comparison 1.5 < texel over the four texels 0 1 2 3 → 0.5.
    assert_eq!(&w[12..16], &[f(0.25), f(0.0), f(100.0), f(0.5)]);
    // Gather with offset (1, 0) from (0.25, 0.25): texels (1,1) (2→1,1) (2→1,0) (1,0) =
    // 3 3 1 1, compared with 1.5 < texel.
    assert_eq!(&w[16..20], &[f(1.0), f(1.0), f(0.0), f(0.0)]);
    assert_eq!(words(&buf), vec![0x4433_beef, 0x8877_6655, 7, 9]);
}

/// Implicit-LOD sampling takes its gradients from the lane's 2×2 quad (lanes 4k..4k+3:
/// top-left, top-right, bottom-left, bottom-right; coarse derivatives, D3D11.3 §7.18.11):
/// quad 0 steps one texel per pixel (LOD 0), quad 1 four (LOD 2); `sample_b` adds its
/// bias per lane. Mip m of the texture holds 100 × m everywhere.
#[test]
fn implicit_lod_comes_from_the_quad() {
    let text = "shader compute
group [8 1 1]
const r0 = 0
const r1 = 8
const r2 = 0x3f800000
resource range0 = uav space 0 lower 0 count 1 structured_buffer(stride 4) uint \"out\"
resource range1 = srv space 0 lower 0 count 1 texture2d float \"tex\"
resource range2 = sampler space 0 lower 0 count 1 sampler mixed \"s\"
constarray icb0 [0x3d800000 0x3d800000 0x3e400000 0x3d800000 0x3d800000 0x3e400000 0x3e400000 0x3e400000 0x3d800000 0x3d800000 0x3f100000 0x3d800000 0x3d800000 0x3f100000 0x3f100000 0x3f100000]
block0:
    sysval thread_id, 0, r3
    imul r4, r3, r1
    const_load b32, 3, [r5 r6 _ _], icb0, r4, 0
    handle r7, range1, r0
    handle r8, range2, r0
    sample implicit, [r9 _ _ _], r7, r8, [r5 r6 _ _], (0 0 0), [_ _], _, _, [_ _ _], [_ _ _], _, _
    sample bias, [r10 _ _ _], r7, r8, [r5 r6 _ _], (0 0 0), [_ _], r2, _, [_ _ _], [_ _ _], _, _
    ftou r11, r9
    ftou r12, r10
    handle r13, range0, r0
    struct_store b32, 1, r13, r3, r0, [r11 _ _ _]
    iadd r14, r3, r1
    struct_store b32, 1, r13, r14, r0, [r12 _ _ _]
    return
";
    let s = shader(text);
    let desc = TextureDesc {
        mips: 4,
        ..TextureDesc::tex2d(Format::R32_FLOAT, 8, 8)
    };
    let mut bytes = Vec::new();
    for m in 0..4u32 {
        let [w, h, _] = desc.mip_size(m);
        for _ in 0..w * h {
            bytes.extend((100.0 * m as f32).to_le_bytes());
        }
    }
    let t = Texture::from_bytes(desc, &bytes).unwrap();
    let (m, d) = structured(&[0; 16], 4);
    run(
        &s,
        vec![
            d,
            Descriptor::Texture(TextureView::whole(t)),
            Descriptor::Sampler(SamplerDesc::default()),
        ],
        [1, 1, 1],
        &opts(8, 1),
    )
    .unwrap();
    assert_eq!(
        words(&m),
        [
            0, 0, 0, 0, 200, 200, 200, 200, 100, 100, 100, 100, 300, 300, 300, 300
        ]
    );
}

/// A wave's implicit-LOD samples (taken a quad at a time through a prepared sampler
/// site) give each lane the reference's bits: `resources::sample::sample` with the
/// quad's coarse gradients (D3D11.3 §7.18.11), for quads whose footprints step from a
/// fraction of a texel to many texels per pixel (so quads choose different mips, and
/// neighbouring quads share a choice), hostile coordinates among them, with linear and
/// point mip filters, several address modes and wave sizes.
#[test]
fn implicit_lod_wave_samples_equal_reference() {
    use dxlane::resources::AddressMode;
    use dxlane::resources::sample::{Lod, SampleInput, sample};
    let text = "shader compute
group [32 1 1]
const r0 = 0
resource range0 = uav space 0 lower 0 count 1 structured_buffer(stride 16) uint \"out\"
resource range1 = uav space 0 lower 1 count 1 structured_buffer(stride 8) uint \"coords\"
resource range2 = srv space 0 lower 0 count 1 texture2d float \"tex\"
resource range3 = sampler space 0 lower 0 count 1 sampler mixed \"s\"
block0:
    sysval thread_id, 0, r1
    handle r2, range1, r0
    struct_load b32, 3, [r3 r4 _ _], r2, r1, r0
    handle r5, range2, r0
    handle r6, range3, r0
    sample implicit, [r7 r8 r9 r10], r5, r6, [r3 r4 _ _], (0 0 0), [_ _], _, _, [_ _ _], [_ _ _], _, _
    handle r11, range0, r0
    struct_store b32, 15, r11, r1, r0, [r7 r8 r9 r10]
    return
";
    let s = shader(text);
    let desc = TextureDesc {
        mips: 5,
        ..TextureDesc::tex2d(Format::R8G8B8A8_UNORM, 32, 16)
    };
    let mut x = 0x2545_f491u32;
    let mut next = move || {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        x
    };
    let bytes: Vec<u8> = (0..desc.total_bytes()).map(|_| next() as u8).collect();
    let tex = Texture::from_bytes(desc, &bytes).unwrap();
    let view = TextureView::whole(tex);
    let n = 256usize;
    let mut coords = Vec::with_capacity(2 * n);
    for q in 0..n / 4 {
        // Texels per pixel step: 1/8 to 32; every third quad repeats its neighbour's.
        let step = if q % 3 == 2 {
            1.0
        } else {
            (next() % 256) as f32 / 8.0 + 0.125
        };
        let (bu, bv) = (
            (next() % 4096) as f32 / 512.0 - 4.0,
            (next() % 4096) as f32 / 512.0,
        );
        for k in 0..4u32 {
            let mut u = bu + (k & 1) as f32 * step / 32.0;
            let mut v = bv + (k >> 1) as f32 * step / 16.0;
            match next() % 40 {
                0 => u = f32::NAN,
                1 => v = f32::INFINITY,
                2 => u = 1e9,
                _ => {}
            }
            coords.extend([u.to_bits(), v.to_bits()]);
        }
    }
    for (filter, address) in [
        ("MIN_MAG_MIP_LINEAR", AddressMode::Wrap),
        ("MIN_MAG_LINEAR_MIP_POINT", AddressMode::Mirror),
        ("MIN_POINT_MAG_LINEAR_MIP_POINT", AddressMode::Clamp),
        ("MIN_MAG_MIP_LINEAR", AddressMode::Border),
    ] {
        let sampler = SamplerDesc {
            filter: Filter::from_name(filter).unwrap(),
            address: [address; 3],
            ..SamplerDesc::default()
        };
        let f = f32::from_bits;
        let mut want = Vec::with_capacity(4 * n);
        for l in 0..n {
            let q = l & !3;
            let c = |i: usize, k: usize| f(coords[2 * i + k]);
            let d = |a: usize, k: usize| f((c(a, k) - c(q, k)).to_bits());
            let input = SampleInput {
                coord: [c(l, 0), c(l, 1), 0.0, 0.0],
                offset: [0; 3],
                lod: Lod::Gradients {
                    ddx: [d(q + 1, 0), d(q + 1, 1), 0.0],
                    ddy: [d(q + 2, 0), d(q + 2, 1), 0.0],
                    bias: 0.0,
                },
                min_lod_clamp: f32::NEG_INFINITY,
                reference: None,
            };
            want.extend(sample(&view, &sampler, &input));
        }
        for wave in [4, 8, 32] {
            let (m, out) = structured(&vec![0; 4 * n], 16);
            let (_, cd) = structured(&coords, 8);
            run(
                &s,
                vec![
                    out,
                    cd,
                    Descriptor::Texture(view.clone()),
                    Descriptor::Sampler(sampler),
                ],
                [(n / 32) as u32, 1, 1],
                &opts(wave, 1),
            )
            .unwrap();
            assert_eq!(words(&m), want, "{filter} {address:?} wave {wave}");
        }
    }
}
