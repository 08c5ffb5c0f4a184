//! SM 6.9 native vectors ("long vectors": DirectX-Specs proposals 0026 "HLSL Long
//! Vectors" and 0030 "DXIL Vectors") and the 16-bit `IsInf`/`IsNaN`/`IsFinite`:
//! hand-built DXIL modules (`dxil::llvm::build`) written into `cs_6_9` containers,
//! loaded and dispatched on both engines (the interpreter and the native engine) with
//! outputs derived by hand in each test; malformed modules refused with the function and
//! instruction named; `info` and the listing of these modules.

use dxlane::container::write::{dxil_part, write_container};
use dxlane::container::{FourCc, ProgramKind, ProgramVersion};
use dxlane::dxil::dxop::DxOp;
use dxlane::dxil::llvm::build::{EntryPoint, Mb};
use dxlane::dxil::llvm::write::write_module;
use dxlane::dxil::llvm::{BinOp, CastOp, Constant, MdId, Metadata, TypeId};
use dxlane::dxil::llvm::{BlockId, InstKind, Type, ValueId};
use dxlane::exec::jit::Engine;
use dxlane::lower::{LoadOptions, load};
use dxlane::pipeline::{Bindings, Plan, dispatch};
use dxlane::resources::{BufferKind, BufferView, Descriptor, Memory};

/// dxc's data layout under `-enable-16bit-types`.
const DL16: &str = "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64";

/// A UAV of a test program: a raw buffer (shape 11) or a structured one (12, stride).
#[derive(Clone, Copy)]
enum Uav {
    Raw,
    Structured(u32),
}

/// Finishes `mb` as the `cs_6_9` entry `main` with `[numthreads(threads)]` and UAVs
/// u0, u1, … (range ids 0, 1, …) as `uavs` lists them, in a container of its DXIL part.
fn container(mut mb: Mb, uavs: &[Uav], threads: [i64; 3]) -> Vec<u8> {
    let mi = |mb: &mut Mb, bits: u32, v: i64| {
        let c = mb.ci(bits, v);
        let t = mb.int(bits);
        Some(mb.md(Metadata::Value { ty: t, value: c }))
    };
    let node = |mb: &mut Mb, ops: Vec<Option<MdId>>| {
        Some(mb.md(Metadata::Node {
            distinct: false,
            ops,
        }))
    };
    let version = [mi(&mut mb, 32, 1), mi(&mut mb, 32, 9)];
    let version = node(&mut mb, version.to_vec());
    let cs = Some(mb.md(Metadata::String(b"cs".to_vec())));
    let sm = [cs, mi(&mut mb, 32, 6), mi(&mut mb, 32, 9)];
    let sm = node(&mut mb, sm.to_vec());
    let mut list = Vec::new();
    for (id, u) in uavs.iter().enumerate() {
        let (shape, tags) = match u {
            Uav::Raw => (11, None),
            Uav::Structured(stride) => {
                let t = [mi(&mut mb, 32, 1), mi(&mut mb, 32, i64::from(*stride))];
                (12, node(&mut mb, t.to_vec()))
            }
        };
        let name = Some(mb.md(Metadata::String(Vec::new())));
        let ops = vec![
            mi(&mut mb, 32, id as i64),
            None,
            name,
            mi(&mut mb, 32, 0),
            mi(&mut mb, 32, id as i64),
            mi(&mut mb, 32, 1),
            mi(&mut mb, 32, shape),
            mi(&mut mb, 1, 0),
            mi(&mut mb, 1, 0),
            mi(&mut mb, 1, 0),
            tags,
        ];
        list.push(node(&mut mb, ops));
    }
    let uav_list = node(&mut mb, list);
    let resources = node(&mut mb, vec![None, uav_list, None, None]);
    let t = threads.map(|x| mi(&mut mb, 32, x));
    let t = node(&mut mb, t.to_vec());
    let props = [mi(&mut mb, 32, 4), t];
    let props = node(&mut mb, props.to_vec());
    mb.ret();
    let (mut m, fi) = mb.finish();
    EntryPoint {
        name: "main",
        version,
        shader_model: sm,
        signatures: None,
        resources,
        module_resources: resources,
        properties: props,
    }
    .declare(&mut m, fi);
    let bitcode = write_module(&m).expect("the writer takes the built module");
    let program = ProgramVersion {
        kind: ProgramKind::Compute,
        major: 6,
        minor: 9,
    };
    let dxil = dxil_part(program, (1, 9), &bitcode).unwrap();
    write_container(&[(FourCc::DXIL, &dxil)]).unwrap()
}

/// A buffer descriptor over `bytes` (raw, or structured of `stride`).
fn buffer(bytes: &[u8], u: Uav) -> (Memory, Descriptor) {
    let m = Memory::from_bytes(bytes).unwrap();
    let kind = match u {
        Uav::Raw => BufferKind::Raw,
        Uav::Structured(stride) => BufferKind::Structured { stride },
    };
    let d = Descriptor::Buffer {
        view: BufferView::whole(m.clone(), kind),
        counter: None,
    };
    (m, d)
}

/// Loads `program` and dispatches one group on each engine with UAVs holding `inputs`;
/// asserts the engines agree and returns the UAVs' bytes after the run.
fn run_both(program: &[u8], uavs: &[Uav], inputs: &[Vec<u8>]) -> Vec<Vec<u8>> {
    let shader = load(program, &LoadOptions::default())
        .unwrap_or_else(|e| panic!("{e}"))
        .shader;
    let mut results = Vec::new();
    for engine in [Engine::Interp, Engine::Jit] {
        let (mems, descs): (Vec<_>, Vec<_>) =
            inputs.iter().zip(uavs).map(|(b, u)| buffer(b, *u)).unzip();
        let b = Bindings {
            ranges: descs.into_iter().map(|d| vec![d]).collect(),
            ..Bindings::default()
        };
        let o = Plan {
            engine,
            threads: 1,
            ..Plan::default()
        };
        dispatch(&shader, &b, [1, 1, 1], &o, None).unwrap_or_else(|e| panic!("{e}"));
        results.push(mems.iter().map(|m| m.to_bytes()).collect::<Vec<_>>());
    }
    let jit = results.pop().unwrap();
    let interp = results.pop().unwrap();
    assert!(interp == jit, "the engines disagree");
    jit
}

fn f32s(v: impl IntoIterator<Item = f32>) -> Vec<u8> {
    v.into_iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn u32s(v: impl IntoIterator<Item = u32>) -> Vec<u8> {
    v.into_iter().flat_map(|x| x.to_le_bytes()).collect()
}

fn words(b: &[u8]) -> Vec<u32> {
    b.chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// `%dx.types.ResRet.v<n><ty>` = `{ <n x ty>, i32 }`.
fn resret(mb: &mut Mb, vt: TypeId, tag: &str) -> TypeId {
    let i32t = mb.int(32);
    mb.named(&format!("dx.types.ResRet.{tag}"), vec![vt, i32t])
}

/// `RawBufferVectorLoad(h, index, offset, 4)`'s vector (its `ResRet` member 0).
fn vload(
    mb: &mut Mb,
    h: ValueId,
    index: ValueId,
    offset: ValueId,
    vt: TypeId,
    tag: &str,
) -> ValueId {
    let rt = resret(mb, vt, tag);
    let align = mb.ci(32, 4);
    let r = mb.dx(
        &format!("rawBufferVectorLoad.{tag}"),
        DxOp::RawBufferVectorLoad,
        &[h, index, offset, align],
        rt,
    );
    mb.extract_value(r, 0, vt)
}

/// `RawBufferVectorStore(h, index, offset, v, 4)`.
fn vstore(mb: &mut Mb, h: ValueId, index: ValueId, offset: ValueId, v: ValueId, tag: &str) {
    let void = mb.void();
    let align = mb.ci(32, 4);
    mb.dx(
        &format!("rawBufferVectorStore.{tag}"),
        DxOp::RawBufferVectorStore,
        &[h, index, offset, v, align],
        void,
    );
}

/// `dx.op.threadId.i32(93, 0)`.
fn thread_x(mb: &mut Mb) -> ValueId {
    let i32t = mb.int(32);
    let zero = mb.ci(32, 0);
    mb.dx("threadId.i32", DxOp::ThreadId, &[zero], i32t)
}

/// Two threads each load `<n x float>` from u0 at byte 4·n·t, compute `x·x + x` with
/// vector `fmul` and `fadd`, and store the vector to u1 at the same place.
fn square_plus(n: u64) -> Vec<u8> {
    let mut mb = Mb::new(DL16);
    mb.block();
    let f32t = mb.t(Type::Float);
    let i32t = mb.int(32);
    let vt = mb.vector(n, f32t);
    let tag = format!("v{n}f32");
    let h0 = mb.handle(1, 0, 0);
    let h1 = mb.handle(1, 1, 1);
    let t = thread_x(&mut mb);
    let stride = mb.ci(32, 4 * n as i64);
    let base = mb.bin(BinOp::Mul, t, stride, i32t);
    let u = mb.undef(i32t);
    let x = vload(&mut mb, h0, base, u, vt, &tag);
    let sq = mb.bin(BinOp::Mul, x, x, vt);
    let y = mb.bin(BinOp::Add, sq, x, vt);
    vstore(&mut mb, h1, base, u, y, &tag);
    container(mb, &[Uav::Raw, Uav::Raw], [2, 1, 1])
}

/// 0030 "Changes to DXIL Intrinsics": `RawBufferVectorLoad` reads a whole vector,
/// elementwise LLVM arithmetic runs on it, `RawBufferVectorStore` writes it back — for
/// 5, 16 and 1024 elements (0026: vectors of up to 1024). Inputs are small integers in
/// float, so `x·x + x` is exact and derived here by that formula.
#[test]
fn vectors_of_5_16_and_1024_load_compute_and_store() {
    for n in [5u64, 16, 1024] {
        let program = square_plus(n);
        let count = 2 * n as usize;
        let x: Vec<f32> = (0..count).map(|i| (i % 13) as f32 - 6.0).collect();
        let out = run_both(
            &program,
            &[Uav::Raw, Uav::Raw],
            &[f32s(x.iter().copied()), vec![0xab; 4 * count + 8]],
        );
        let want: Vec<u8> = f32s(x.iter().map(|v| v * v + v));
        assert_eq!(&out[1][..4 * count], &want[..], "n = {n}");
        // Nothing is written past the two vectors.
        assert_eq!(&out[1][4 * count..], &[0xab; 8], "n = {n}");
    }
}

/// `RawBufferVectorLoad`/`Store` on a structured buffer take the element index and the
/// byte offset within it (DXIL.rst "RawBufferLoad": c0 in elements, c1 the offset), and
/// follow `RawBufferLoad`'s out-of-bounds rule element by element: reading past the
/// stride gives 0 and writing past it is dropped (D3D11.3 §5.3.5 structured buffers).
/// Here `<6 x half>` from element 1 at offset 4 of a 16-byte stride: elements 0–5 at
/// bytes 20–31 are inside, so all six are read; stored again at offset 8 of element 0,
/// elements 4 and 5 (bytes 16–19) fall past the stride and are dropped.
#[test]
fn structured_half_vectors_and_the_stride() {
    let mut mb = Mb::new(DL16);
    mb.block();
    let f16t = mb.t(Type::Half);
    let vt = mb.vector(6, f16t);
    let h0 = mb.handle(1, 0, 0);
    let one = mb.ci(32, 1);
    let four = mb.ci(32, 4);
    let x = vload(&mut mb, h0, one, four, vt, "v6f16");
    let y = mb.bin(BinOp::Add, x, x, vt);
    let zero = mb.ci(32, 0);
    let eight = mb.ci(32, 8);
    vstore(&mut mb, h0, zero, eight, y, "v6f16");
    let program = container(mb, &[Uav::Structured(16)], [1, 1, 1]);
    // Element 1, bytes 4..16: the halves 1.0, 2.0, … 6.0 (0x3c00, 0x4000, 0x4200,
    // 0x4400, 0x4500, 0x4600).
    let mut input = vec![0u8; 32];
    for (k, h) in [0x3c00u16, 0x4000, 0x4200, 0x4400, 0x4500, 0x4600]
        .iter()
        .enumerate()
    {
        input[20 + 2 * k..22 + 2 * k].copy_from_slice(&h.to_le_bytes());
    }
    let out = run_both(&program, &[Uav::Structured(16)], &[input.clone()]);
    let mut want = input;
    // x + x: 2, 4, 6, 8 (0x4000, 0x4400, 0x4600, 0x4800) at bytes 8..16 of element 0.
    for (k, h) in [0x4000u16, 0x4400, 0x4600, 0x4800].iter().enumerate() {
        want[8 + 2 * k..10 + 2 * k].copy_from_slice(&h.to_le_bytes());
    }
    assert_eq!(out[0], want);
}

/// The program of [`every_kind_of_vector_operation`].
fn every_kind_program() -> Vec<u8> {
    let mut mb = Mb::new(DL16);
    mb.block();
    let i32t = mb.int(32);
    let f32t = mb.t(Type::Float);
    let i1 = mb.int(1);
    let iv = mb.vector(5, i32t);
    let fv = mb.vector(5, f32t);
    let bv = mb.vector(5, i1);
    let h0 = mb.handle(1, 0, 0);
    let h1 = mb.handle(1, 1, 1);
    let u = mb.undef(i32t);
    let at = |mb: &mut Mb, k: i64| mb.ci(32, k);
    let a0 = at(&mut mb, 0);
    let a = vload(&mut mb, h0, a0, u, iv, "v5i32");
    let b20 = at(&mut mb, 20);
    let b = vload(&mut mb, h0, b20, u, iv, "v5i32");
    let f40 = at(&mut mb, 40);
    let f = vload(&mut mb, h0, f40, u, fv, "v5f32");
    let mut outs: Vec<(ValueId, &str)> = Vec::new();
    // LLVM instructions: sub, shl, icmp + select, fcmp olt, sitofp, extract/insert with
    // a dynamic index, shufflevector.
    let d = mb.bin(BinOp::Sub, b, a, iv);
    outs.push((d, "v5i32"));
    let lt = mb.cmp(40, a, b); // slt
    let m = mb.select(lt, a, b);
    outs.push((m, "v5i32"));
    let zf = mb.c(fv, Constant::Null);
    let neg = mb.cmp(4, f, zf); // fcmp olt
    let negi = mb.cast(CastOp::ZExt, neg, iv);
    outs.push((negi, "v5i32"));
    let af = mb.cast(CastOp::SiToFp, a, fv);
    outs.push((af, "v5f32"));
    let k = at(&mut mb, 2);
    let t = thread_x(&mut mb);
    let dyn_k = mb.bin(BinOp::Add, k, t, i32t); // 2 (thread 0)
    let e = mb.extract_element(b, dyn_k);
    let ins = mb.insert_element(a, e, t); // a with a[0] = b[2]
    outs.push((ins, "v5i32"));
    let sh = mb.shuffle(a, b, &[9, 0, 5, 3, 7]);
    outs.push((sh, "v5i32"));
    // Elementwise dx.ops with vector overloads: unary, binary, tertiary, unaryBits,
    // isSpecialFloat.
    let fabs = mb.dx("unary.v5f32", DxOp::FAbs, &[f], fv);
    outs.push((fabs, "v5f32"));
    let imax = mb.dx("binary.v5i32", DxOp::IMax, &[a, b], iv);
    outs.push((imax, "v5i32"));
    let umin = mb.dx("binary.v5i32", DxOp::UMin, &[a, b], iv);
    outs.push((umin, "v5i32"));
    let imad = mb.dx("tertiary.v5i32", DxOp::IMad, &[a, b, a], iv);
    outs.push((imad, "v5i32"));
    let fmad = mb.dx("tertiary.v5f32", DxOp::FMad, &[f, f, f], fv);
    outs.push((fmad, "v5f32"));
    let cb = mb.dx("unaryBits.v5i32", DxOp::Countbits, &[a], iv);
    outs.push((cb, "v5i32"));
    let fbh = mb.dx("unaryBits.v5i32", DxOp::FirstbitHi, &[b], iv);
    outs.push((fbh, "v5i32"));
    let fin = mb.dx("isSpecialFloat.v5f32", DxOp::IsNormal, &[f], bv);
    let fini = mb.cast(CastOp::ZExt, fin, iv);
    outs.push((fini, "v5i32"));
    // The SM 6.9 operations returning scalars.
    let dot = mb.dx("dot.v5f32", DxOp::FDot, &[f, af], f32t);
    let all = mb.dx("vectorReduce.v5i32", DxOp::VectorReduceAnd, &[b], i32t);
    let any = mb.dx("vectorReduce.v5i32", DxOp::VectorReduceOr, &[a], i32t);
    let lt_all = mb.dx("vectorReduce.v5i1", DxOp::VectorReduceAnd, &[lt], i1);
    let lt_all = mb.cast(CastOp::ZExt, lt_all, i32t);
    let mut at_byte = 0i64;
    for (v, tag) in outs {
        let addr = mb.ci(32, at_byte);
        vstore(&mut mb, h1, addr, u, v, tag);
        at_byte += 20;
    }
    let dot_bits = mb.cast(CastOp::BitCast, dot, i32t);
    for v in [dot_bits, all, any, lt_all] {
        let addr = mb.ci(32, at_byte);
        mb.store_word(h1, addr, v);
        at_byte += 4;
    }
    container(mb, &[Uav::Raw, Uav::Raw], [1, 1, 1])
}

/// One program using each kind of vector operation, every result stored as words to
/// u1 (word k of the list below); u0 holds the inputs a = (1, −2, 3, −4, 5),
/// b = (10, 20, 30, 40, 50) as i32 and f = (0.5, −1.5, 2.0, −0.0, 4.0) as float.
#[test]
fn every_kind_of_vector_operation() {
    let program = every_kind_program();
    let a_in = [1i32, -2, 3, -4, 5];
    let b_in = [10i32, 20, 30, 40, 50];
    let f_in = [0.5f32, -1.5, 2.0, -0.0, 4.0];
    let mut input = u32s(a_in.iter().chain(&b_in).map(|x| *x as u32));
    input.extend(f32s(f_in));
    let out = run_both(
        &program,
        &[Uav::Raw, Uav::Raw],
        &[input, vec![0; 4 * (14 * 5 + 4)]],
    );
    let w = words(&out[1]);
    let f = |x: f32| x.to_bits();
    let i = |x: i32| x as u32;
    let want: Vec<u32> = [
        // b − a
        [9, 22, 27, 44, 45].map(i),
        // a < b ? a : b (every a is smaller)
        a_in.map(i),
        // f < 0 (−0.0 is not below 0)
        [0, 1, 0, 0, 0],
        // sitofp a
        [1.0, -2.0, 3.0, -4.0, 5.0].map(f),
        // a with element t = 0 set to b[2 + t] = 30
        [30, -2, 3, -4, 5].map(i),
        // mask (9, 0, 5, 3, 7) over a ++ b: b[4], a[0], b[0], a[3], b[2]
        [50, 1, 10, -4, 30].map(i),
        // FAbs f
        [0.5, 1.5, 2.0, 0.0, 4.0].map(f),
        // IMax(a, b), signed
        b_in.map(i),
        // UMin(a, b), unsigned: −2 and −4 are large
        [1, 20, 3, 40, 5].map(i),
        // IMad(a, b, a) = a·b + a
        [11, -42, 93, -164, 255].map(i),
        // FMad(f, f, f) = f·f + f, exact here
        [0.75, 0.75, 6.0, 0.0, 20.0].map(f),
        // Countbits a: 1, 0xfffffffe, 3, 0xfffffffc, 5
        [1, 31, 2, 30, 2],
        // FirstbitHi b, counted from the MSB (DXIL.rst "FirstbitHi"): 10, 20, 30, 40, 50
        // have their top bit at 3, 4, 4, 5, 5, so 28, 27, 27, 26, 26
        [28, 27, 27, 26, 26],
        // IsNormal f: ±0 is not normal
        [1, 1, 1, 0, 1],
    ]
    .concat()
    .into_iter()
    .chain([
        // FDot(f, sitofp a), products summed in order:
        // 0.5 + 3 + 6 + 0 + 20 = 29.5
        f(29.5),
        // AND of b: 10 & 20 & 30 & 40 & 50 = 0; OR of a: 1 | −2 | 3 | −4 | 5 = −1
        0,
        u32::MAX,
        // every a < b
        1,
    ])
    .collect();
    assert_eq!(w, want);
}

/// A phi of vectors carried around a loop and vectors in an alloca and in group shared
/// memory (0030 "Vectors in memory representations": allocas, groupshared, SSA values):
/// v starts at (1, 2, 3, 4, 5, 6) and doubles three times, is stored to an alloca and to
/// a groupshared global, and read back with a dynamic element index from each.
#[test]
fn vector_phis_and_vectors_in_memory() {
    let mut mb = Mb::new(DL16);
    let i32t = mb.int(32);
    let vt = mb.vector(6, i32t);
    let ptr = mb.t(Type::Pointer {
        pointee: vt,
        address_space: 0,
    });
    let shared = mb.global("shared", vt, 3, None);
    let b0 = mb.block();
    let h1 = mb.handle(1, 0, 0);
    let ids: Vec<ValueId> = (1..=6).map(|k| mb.ci(32, k)).collect();
    let start = mb.c(vt, Constant::Aggregate(ids));
    let zero = mb.ci(32, 0);
    let one = mb.ci(32, 1);
    let three = mb.ci(32, 3);
    let alloca_size = mb.ci(32, 1);
    let slot = mb.push(
        InstKind::Alloca {
            allocated: vt,
            size: alloca_size,
            align: 4,
            inalloca: false,
            raw_align: 3,
        },
        ptr,
    );
    let b1 = BlockId(1);
    let b2 = BlockId(2);
    mb.br(b1);
    mb.block(); // 1: the loop
    let i = mb.phi(i32t, vec![(zero, b0)]);
    let v = mb.phi(vt, vec![(start, b0)]);
    let v2 = mb.bin(BinOp::Add, v, v, vt);
    let i2 = mb.bin(BinOp::Add, i, one, i32t);
    let more = mb.cmp(36, i2, three); // ult
    mb.cond_br(more, b1, b2);
    mb.add_incoming(i, i2, b1);
    mb.add_incoming(v, v2, b1);
    mb.block(); // 2
    mb.store(slot, v2);
    mb.store(shared, v2);
    let t = thread_x(&mut mb);
    let k = mb.bin(BinOp::Add, t, three, i32t); // 3
    let local = mb.load(slot, vt);
    let from_local = mb.extract_element(local, k);
    let gv = mb.load(shared, vt);
    let from_shared = mb.extract_element(gv, t);
    let a0 = mb.ci(32, 0);
    let a4 = mb.ci(32, 4);
    mb.store_word(h1, a0, from_local);
    mb.store_word(h1, a4, from_shared);
    let program = container(mb, &[Uav::Raw], [1, 1, 1]);
    let out = run_both(&program, &[Uav::Raw], &[vec![0; 8]]);
    // Three doublings: 8·(1 … 6); element 3 is 32, element 0 is 8.
    assert_eq!(words(&out[0]), [32, 8]);
}

/// Proposal 0038 "16 bit isSpecialFloat DXIL Op" (SM 6.9): `IsNaN`, `IsInf`,
/// `IsFinite` and `IsNormal` on `half` values, called with the f16 overload and with
/// the `<8 x half>` vector overload, decided on the binary16 bits (exponent 0x1f: ∞ when
/// the mantissa is 0, NaN otherwise; exponent 0: zero or denormal, finite but not
/// normal). The inputs are +∞, −∞, a quiet NaN, a signalling NaN, 65504 (the largest
/// finite), the smallest denormal, +0 and −0.
#[test]
fn half_is_special_float() {
    let mut mb = Mb::new(DL16);
    mb.block();
    let i32t = mb.int(32);
    let i1 = mb.int(1);
    let f16t = mb.t(Type::Half);
    let hv = mb.vector(8, f16t);
    let bv = mb.vector(8, i1);
    let iv = mb.vector(8, i32t);
    let h0 = mb.handle(1, 0, 0);
    let h1 = mb.handle(1, 1, 1);
    let u = mb.undef(i32t);
    let zero = mb.ci(32, 0);
    let v = vload(&mut mb, h0, zero, u, hv, "v8f16");
    let ops = [DxOp::IsNaN, DxOp::IsInf, DxOp::IsFinite, DxOp::IsNormal];
    for (o, op) in ops.iter().enumerate() {
        for k in 0..8 {
            let kk = mb.ci(32, k);
            let e = mb.extract_element(v, kk);
            let r = mb.dx("isSpecialFloat.f16", *op, &[e], i1);
            let w = mb.cast(CastOp::ZExt, r, i32t);
            let addr = mb.ci(32, 4 * (8 * o as i64 + k));
            mb.store_word(h1, addr, w);
        }
        let r = mb.dx("isSpecialFloat.v8f16", *op, &[v], bv);
        let w = mb.cast(CastOp::ZExt, r, iv);
        let addr = mb.ci(32, 128 + 32 * o as i64);
        vstore(&mut mb, h1, addr, u, w, "v8i32");
    }
    let program = container(mb, &[Uav::Raw, Uav::Raw], [1, 1, 1]);
    let halves = [
        0x7c00u16, 0xfc00, 0x7e00, 0x7c01, 0x7bff, 0x0001, 0x0000, 0x8000,
    ];
    let input: Vec<u8> = halves.iter().flat_map(|h| h.to_le_bytes()).collect();
    let out = run_both(&program, &[Uav::Raw, Uav::Raw], &[input, vec![0; 256]]);
    let want: [[u32; 8]; 4] = [
        [0, 0, 1, 1, 0, 0, 0, 0], // IsNaN
        [1, 1, 0, 0, 0, 0, 0, 0], // IsInf
        [0, 0, 0, 0, 1, 1, 1, 1], // IsFinite
        [0, 0, 0, 0, 1, 0, 0, 0], // IsNormal
    ];
    let w = words(&out[1]);
    assert_eq!(&w[..32], want.concat(), "the f16 overload");
    assert_eq!(&w[32..], want.concat(), "the <8 x half> overload");
}

/// Loads `program` and returns the lowering's refusal.
fn refusal(program: &[u8]) -> String {
    match load(program, &LoadOptions::default()) {
        Ok(_) => panic!("loaded"),
        Err(e) => e.to_string(),
    }
}

/// A module whose body is `body` (given the `<n x float>` type of the first argument it
/// asks for), as a `cs_6_9` container with one raw UAV.
fn module_with(n: u64, body: impl FnOnce(&mut Mb, TypeId)) -> Vec<u8> {
    let mut mb = Mb::new(DL16);
    mb.block();
    let f32t = mb.t(Type::Float);
    let vt = mb.vector(n, f32t);
    body(&mut mb, vt);
    container(mb, &[Uav::Raw], [1, 1, 1])
}

/// 0026 "HLSL Long Vectors": at most 1024 elements; 0030: a single-element vector is a
/// scalar in DXIL. A vector past 1024 — in a `RawBufferVectorLoad`, in plain LLVM
/// arithmetic, or of 2^40 elements, which nothing may size anything by — and a vector of
/// one element are refused naming the function and the instruction.
#[test]
fn vector_lengths_past_the_limit_are_refused() {
    for n in [1025u64, 1 << 40] {
        let p = module_with(n, |mb, vt| {
            let h = mb.handle(1, 0, 0);
            let i32t = mb.int(32);
            let u = mb.undef(i32t);
            let zero = mb.ci(32, 0);
            let tag = format!("v{n}f32");
            let x = vload(mb, h, zero, u, vt, &tag);
            let y = mb.bin(BinOp::Add, x, x, vt);
            vstore(mb, h, zero, u, y, &tag);
        });
        let e = refusal(&p);
        assert!(e.contains("@main") && e.contains("instruction"), "{e}");
        assert!(e.contains(&format!("{n} elements")), "{e}");
    }
    let p = module_with(2000, |mb, vt| {
        let z = mb.c(vt, Constant::Null);
        let y = mb.bin(BinOp::Add, z, z, vt);
        let h = mb.handle(1, 0, 0);
        let i32t = mb.int(32);
        let zero = mb.ci(32, 0);
        let k = mb.extract_element(y, zero);
        let w = mb.cast(CastOp::BitCast, k, i32t);
        mb.store_word(h, zero, w);
    });
    let e = refusal(&p);
    assert!(
        e.contains("instruction 0") && e.contains("a vector of 2000 elements"),
        "{e}"
    );
    let p = module_with(1, |mb, vt| {
        let z = mb.c(vt, Constant::Null);
        let a = mb.dx("unary.v1f32", DxOp::FAbs, &[z], vt);
        let h = mb.handle(1, 0, 0);
        let zero = mb.ci(32, 0);
        let i32t = mb.int(32);
        let k = mb.extract_element(a, zero);
        let w = mb.cast(CastOp::BitCast, k, i32t);
        mb.store_word(h, zero, w);
    });
    let e = refusal(&p);
    assert!(e.contains("FAbs on a vector of 1 elements"), "{e}");
}

/// Only the operations DXIL gives vector overloads take vectors, and only of their
/// element types (0030 Appendix 1; hctdb.py's overload letters): `IsInf` of `<4 x i32>`,
/// `Dot2` of vectors and `FDot` of doubles are refused, as is a `RawBufferVectorLoad`
/// whose alignment is not a constant.
#[test]
fn wrong_vector_overloads_are_refused() {
    let p = module_with(4, |mb, _| {
        let i32t = mb.int(32);
        let i1 = mb.int(1);
        let iv = mb.vector(4, i32t);
        let bv = mb.vector(4, i1);
        let z = mb.c(iv, Constant::Null);
        let r = mb.dx("isSpecialFloat.v4i32", DxOp::IsInf, &[z], bv);
        let zero = mb.ci(32, 0);
        let b = mb.extract_element(r, zero);
        let w = mb.cast(CastOp::ZExt, b, i32t);
        let h = mb.handle(1, 0, 0);
        mb.store_word(h, zero, w);
    });
    let e = refusal(&p);
    assert!(
        e.contains("@main") && e.contains("IsInf has no vector overload of i32 elements"),
        "{e}"
    );
    let p = module_with(2, |mb, vt| {
        let f32t = mb.t(Type::Float);
        let z = mb.c(vt, Constant::Null);
        let d = mb.dx("dot2.v2f32", DxOp::Dot2, &[z, z, z, z], f32t);
        let i32t = mb.int(32);
        let w = mb.cast(CastOp::BitCast, d, i32t);
        let zero = mb.ci(32, 0);
        let h = mb.handle(1, 0, 0);
        mb.store_word(h, zero, w);
    });
    let e = refusal(&p);
    assert!(e.contains("Dot2 has no vector overloads"), "{e}");
    let p = module_with(3, |mb, _| {
        let f64t = mb.t(Type::Double);
        let dv = mb.vector(3, f64t);
        let z = mb.c(dv, Constant::Null);
        let d = mb.dx("dot.v3f64", DxOp::FDot, &[z, z], f64t);
        let i64t = mb.int(64);
        let i32t = mb.int(32);
        let w = mb.cast(CastOp::BitCast, d, i64t);
        let w = mb.cast(CastOp::Trunc, w, i32t);
        let zero = mb.ci(32, 0);
        let h = mb.handle(1, 0, 0);
        mb.store_word(h, zero, w);
    });
    let e = refusal(&p);
    assert!(
        e.contains("FDot has no vector overload of double elements"),
        "{e}"
    );
    let p = module_with(4, |mb, vt| {
        let h = mb.handle(1, 0, 0);
        let i32t = mb.int(32);
        let u = mb.undef(i32t);
        let t = thread_x(mb);
        let rt = resret(mb, vt, "v4f32");
        let r = mb.dx(
            "rawBufferVectorLoad.v4f32",
            DxOp::RawBufferVectorLoad,
            &[h, t, u, t],
            rt,
        );
        let x = mb.extract_value(r, 0, vt);
        vstore(mb, h, t, u, x, "v4f32");
    });
    let e = refusal(&p);
    assert!(
        e.contains("RawBufferVectorLoad with an alignment that is not a constant"),
        "{e}"
    );
}

/// 0030 Appendix 1: the wave operations have elementwise vector overloads — each element
/// is the operation over the wave on that element. Four lanes hold (t + 1, 10, 100·t);
/// `WaveActiveOp` Sum, `WaveReadLaneFirst`, `WaveActiveAllEqual` and the exclusive
/// `WavePrefixOp` Sum of that `<3 x i32>` (DXIL.rst: WaveOpKind Sum = 0, SignedOpKind
/// Signed = 0).
#[test]
fn wave_operations_on_vectors() {
    let mut mb = Mb::new(DL16);
    mb.block();
    let i32t = mb.int(32);
    let i1 = mb.int(1);
    let i8t = mb.int(8);
    let iv = mb.vector(3, i32t);
    let bv = mb.vector(3, i1);
    let h0 = mb.handle(1, 0, 0);
    let h1 = mb.handle(1, 1, 1);
    let u = mb.undef(i32t);
    let t = thread_x(&mut mb);
    let twelve = mb.ci(32, 12);
    let at = mb.bin(BinOp::Mul, t, twelve, i32t);
    let v = vload(&mut mb, h0, at, u, iv, "v3i32");
    let sum = mb.c(i8t, Constant::Int(0));
    let signed = mb.c(i8t, Constant::Int(0));
    let s = mb.dx(
        "waveActiveOp.v3i32",
        DxOp::WaveActiveOp,
        &[v, sum, signed],
        iv,
    );
    let f = mb.dx("waveReadLaneFirst.v3i32", DxOp::WaveReadLaneFirst, &[v], iv);
    let e = mb.dx(
        "waveActiveAllEqual.v3i32",
        DxOp::WaveActiveAllEqual,
        &[v],
        bv,
    );
    let e = mb.cast(CastOp::ZExt, e, iv);
    let p = mb.dx(
        "wavePrefixOp.v3i32",
        DxOp::WavePrefixOp,
        &[v, sum, signed],
        iv,
    );
    let forty_eight = mb.ci(32, 48);
    let base = mb.bin(BinOp::Mul, t, forty_eight, i32t);
    for (j, x) in [s, f, e, p].into_iter().enumerate() {
        let off = mb.ci(32, 12 * j as i64);
        let addr = mb.bin(BinOp::Add, base, off, i32t);
        vstore(&mut mb, h1, addr, u, x, "v3i32");
    }
    let program = container(mb, &[Uav::Raw, Uav::Raw], [4, 1, 1]);
    let input = u32s((0..4u32).flat_map(|t| [t + 1, 10, 100 * t]));
    let out = run_both(&program, &[Uav::Raw, Uav::Raw], &[input, vec![0; 4 * 48]]);
    let w = words(&out[1]);
    for t in 0..4u32 {
        let prefix = [
            (0..t).map(|s| s + 1).sum(),
            10 * t,
            (0..t).map(|s| 100 * s).sum(),
        ];
        let want = [[10, 40, 600], [1, 10, 0], [0, 1, 0], prefix].concat();
        assert_eq!(&w[12 * t as usize..12 * (t as usize + 1)], want, "lane {t}");
    }
}

/// `dxlane info` on a long-vector module: the DXIL 1.9 `cs_6_9` program, and the line
/// stating the highest shader model dxlane runs with what of it is refused; `--json`
/// carries the same; the README states the same line with the command that shows it.
#[test]
fn info_states_the_highest_shader_model() {
    let dir = crate::common::scratch().join("longvec");
    std::fs::create_dir_all(&dir).unwrap();
    let file = dir.join("every_kind.dxil");
    std::fs::write(&file, every_kind_program()).unwrap();
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_dxlane"))
            .args(args)
            .arg(&file)
            .output()
            .unwrap();
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let text = run(&["info"]);
    assert!(text.contains("cs_6_9 (part DXIL; DXIL 1.9;"), "{text}");
    let line = format!(
        "Runs:    dxlane runs {}",
        dxlane::lower::dxil::runs_statement()
    );
    assert!(text.contains(&line), "{text}");
    assert!(
        line.contains("6.0–6.9 (DXIL), except work graph node programs (6.8)"),
        "{line}"
    );
    let json: serde_json::Value = serde_json::from_str(&run(&["info", "--json"])).unwrap();
    assert_eq!(json["dxlane_runs"]["highest_shader_model"], "6.9");
    assert_eq!(
        json["dxlane_runs"]["refused"].as_array().unwrap().len(),
        dxlane::lower::dxil::REFUSED_FEATURES.len()
    );
    let readme = std::fs::read_to_string(crate::common::root().join("README.md")).unwrap();
    let readme = readme.split_whitespace().collect::<Vec<_>>().join(" ");
    let said = dxlane::lower::dxil::runs_statement();
    assert!(
        readme.contains(&said) && readme.contains("dxlane info"),
        "the README does not say {said:?}"
    );
}

/// SM 6.9 lists no refusal: SER's last operation, `HitObject_LoadLocalRootTableConstant`,
/// lowers (`tests/all/ser.rs` runs it), and like every `HitObject` operation it is refused
/// by name outside ray generation, closest-hit and miss programs (HLSL proposal 0027,
/// "Valid Shader Stages"), here in a compute program.
#[test]
fn sm_6_9_lists_no_refusal_and_hit_objects_keep_their_stages() {
    assert!(
        !dxlane::lower::dxil::REFUSED_FEATURES
            .iter()
            .any(|f| f.contains("6.9")),
        "{:?}",
        dxlane::lower::dxil::REFUSED_FEATURES
    );
    let op = DxOp::HitObject_LoadLocalRootTableConstant;
    let mut mb = Mb::new(DL16);
    mb.block();
    let i32t = mb.int(32);
    let z = mb.ci(32, 0);
    let r = mb.dx("hitObject_LoadLocalRootTableConstant", op, &[z, z], i32t);
    let h = mb.handle(1, 0, 0);
    mb.store_word(h, z, r);
    let e = refusal(&container(mb, &[Uav::Raw], [1, 1, 1]));
    assert!(
        e.contains(&format!("{op}"))
            && e.contains("ray generation, closest-hit and miss programs only"),
        "{e}"
    );
}

/// The listing of the long-vector modules: vector types, vector `dx.op` overloads and
/// the SM 6.9 operations print, and (with `LLVM_DIS`) the module text equals
/// `llvm-dis`'s line for line after the usual normalisation.
#[test]
fn listings_of_long_vector_modules() {
    use dxlane::container::{Container, DxilProgramHeader};
    for (name, program) in [
        ("every_kind", every_kind_program()),
        ("square_plus_1024", square_plus(1024)),
    ] {
        let text = dxlane::dxil::listing::disassemble(&program).unwrap();
        if name == "every_kind" {
            for want in [
                "call <5 x i32> @dx.op.binary.v5i32(i32 37, <5 x i32>",
                "call float @dx.op.dot.v5f32(i32 311, <5 x float>",
                "call i32 @dx.op.vectorReduce.v5i32(i32 309, <5 x i32>",
                "call %dx.types.ResRet.v5f32 @dx.op.rawBufferVectorLoad.v5f32(i32 303,",
                "shufflevector <5 x i32>",
            ] {
                assert!(text.contains(want), "{name}: no {want:?} in\n{text}");
            }
        }
        let Some(dis) = crate::common::llvm_dis("the long-vector listing comparison") else {
            continue;
        };
        let c = Container::parse(&program).unwrap();
        let (_, bitcode) = DxilProgramHeader::parse(c.part(FourCc::DXIL).unwrap()).unwrap();
        let dir = crate::common::target_dir().join("longvec-llvm-dis");
        std::fs::create_dir_all(&dir).unwrap();
        crate::dxil_listing::compare_with_llvm_dis(
            std::path::Path::new(&dis),
            bitcode,
            &dir.join(format!("{name}.bc")),
        )
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    }
}
