//! Unit tests of the DXIL lowering: hand-built modules run on a small one-lane evaluator
//! for the rules that need exact answers, and hand-built vertex and pixel programs (the
//! signature layout, the stage operations) run through `exec::StageRunner`. The corpus
//! programs are run end to end in `tests/all/lower_dxil_stage.rs`.

use super::*;
use crate::container::Container;

/// The corpus DXIL programs (`tools/fetch-corpora.sh`, run here when needed: these unit
/// tests may run before any integration test has fetched them), in cargo's target
/// folder (`CARGO_TARGET_DIR` when set). Panics when they cannot be fetched, unless
/// `DXLANE_NO_CORPORA` is set, which makes the corpus tests here say they are skipped.
fn corpus_files() -> Vec<std::path::PathBuf> {
    static DIRS: std::sync::OnceLock<Vec<std::path::PathBuf>> = std::sync::OnceLock::new();
    let dirs = DIRS.get_or_init(|| {
        if std::env::var_os("DXLANE_NO_CORPORA").is_some() {
            eprintln!("DXLANE_NO_CORPORA is set: the corpus programs are not tested");
            return Vec::new();
        }
        let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
        let target = std::env::var_os("CARGO_TARGET_DIR")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| root.join("target"));
        let out = std::process::Command::new("bash")
            .arg(root.join("tools/fetch-corpora.sh"))
            .env("CARGO_TARGET_DIR", &target)
            .output()
            .expect("run tools/fetch-corpora.sh");
        assert!(
            out.status.success(),
            "tools/fetch-corpora.sh failed (DXLANE_NO_CORPORA=1 tests without the corpora):\n{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8_lossy(&out.stdout)
            .lines()
            .map(std::path::PathBuf::from)
            .collect()
    });
    let mut out = Vec::new();
    for d in dirs {
        for sub in [d.clone(), d.join("features")] {
            let Ok(rd) = std::fs::read_dir(&sub) else {
                continue;
            };
            let mut v: Vec<_> = rd
                .flatten()
                .map(|e| e.path())
                .filter(|p| p.extension().is_some_and(|e| e == "dxil"))
                .collect();
            v.sort();
            out.extend(v);
        }
    }
    out
}

fn module_of(bytes: &[u8]) -> Module {
    let c = Container::parse(bytes).unwrap();
    let (_, bc) = DxilProgramHeader::parse(c.part(FourCc::DXIL).unwrap()).unwrap();
    Module::parse(bc).unwrap()
}

/// Prints the IR of the corpus program named by `DXLANE_DUMP` (a debugging aid).
#[test]
fn dump_named_program() {
    let Some(want) = std::env::var_os("DXLANE_DUMP") else {
        return;
    };
    for f in corpus_files() {
        if f.file_name() == Some(want.as_os_str()) {
            let m = module_of(&std::fs::read(&f).unwrap());
            match lower_module(&m, &LoadOptions::default()) {
                Ok(s) => eprintln!("{s}"),
                Err(e) => eprintln!("{e}"),
            }
        }
    }
}

// ---- hand-built modules ---------------------------------------------------------------

use crate::dxil::dxop::DxOp;
use crate::dxil::llvm::{
    BinOp, BlockId as LBlock, CastOp, Constant, InstKind, MetadataKind, Predicate, Type, TypeId,
    ValueId,
};
use crate::ir::{
    ComponentType, Inst, Reg, ResourceClass, ResourceKind, ResourceRange, Terminator, Width,
};
use resources::{HandleKind, Range};

use crate::dxil::llvm::build::{FIRST, Mb};

/// DXIL's default data layout (no 16-bit types).
const DL32: &str =
    "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64";
/// The layout with `-enable-16bit-types`.
const DL16: &str = "e-m:e-p:32:32-i1:32-i8:8-i16:16-i32:32-i64:64-f16:16-f32:32-f64:64-n8:16:32:64";

/// Lowers a hand-built module with u0 a raw buffer (range 0) and b0 a constant buffer
/// (range 1).
fn lower_test(m: &Module, fi: usize) -> Result<Shader, LowerError> {
    let mut b = Builder::new(Stage::Compute);
    let mut ranges = Vec::new();
    for (class, kind) in [
        (ResourceClass::Uav, ResourceKind::RawBuffer),
        (
            ResourceClass::Cbv,
            ResourceKind::ConstantBuffer { size: 64 },
        ),
    ] {
        b.shader_mut().resources.push(ResourceRange {
            class,
            space: 0,
            lower: 0,
            count: 1,
            kind,
            component: ComponentType::Mixed,
            name: String::new(),
            counter: false,
            globally_coherent: false,
            rasterizer_ordered: false,
        });
        ranges.push(Range {
            class,
            id: 0,
            symbol: None,
            handle: HandleKind {
                kind,
                component: ComponentType::Mixed,
            },
        });
    }
    lower_entry(m, fi, b, ranges, stage::Io::compute(), None)
}

// ---- a one-lane evaluator --------------------------------------------------------------

/// Memory of a one-lane run.
struct Mem {
    bufs: Vec<Vec<u8>>,
    locals: Vec<Vec<u8>>,
    shared: Vec<u8>,
    consts: Vec<Vec<u8>>,
}

fn rd(mem: &[u8], at: u64, n: usize) -> u64 {
    (0..n).fold(0u64, |v, k| {
        let b = usize::try_from(at + k as u64)
            .ok()
            .and_then(|i| mem.get(i))
            .copied()
            .unwrap_or(0);
        v | u64::from(b) << (8 * k)
    })
}

fn wr(mem: &mut [u8], at: u64, n: usize, v: u64) {
    for k in 0..n {
        if let Some(b) = usize::try_from(at + k as u64)
            .ok()
            .and_then(|i| mem.get_mut(i))
        {
            *b = (v >> (8 * k)) as u8;
        }
    }
}

fn size(w: Width) -> usize {
    match w {
        Width::B16 => 2,
        Width::B32 => 4,
        Width::B64 => 8,
    }
}

/// One instruction of the one-lane evaluator: the (register, value) writes it makes.
#[allow(clippy::needless_range_loop)]
fn step(inst: &Inst, r: &[u32], mem: &mut Mem, thread: [u32; 3]) -> Vec<(Reg, u32)> {
    let g = |x: Reg| r[x.index()];
    let g64 = |x: Reg| u64::from(r[x.index()]) | u64::from(r[x.index() + 1]) << 32;
    let f = |x: Reg| f32::from_bits(r[x.index()]);
    let b = |t: bool| if t { u32::MAX } else { 0 };
    let one = |d: Reg, v: u32| vec![(d, v)];
    let pair = |d: Reg, v: u64| vec![(d, v as u32), (d.hi(), (v >> 32) as u32)];
    use crate::ir::ICond::*;
    match inst {
        Inst::Mov { dst, src } => one(*dst, g(*src)),
        Inst::Select { dst, cond, a, b } => one(*dst, if g(*cond) != 0 { g(*a) } else { g(*b) }),
        Inst::IAdd { dst, a, b } => one(*dst, g(*a).wrapping_add(g(*b))),
        Inst::ISub { dst, a, b } => one(*dst, g(*a).wrapping_sub(g(*b))),
        Inst::IMul { dst, a, b } => one(*dst, g(*a).wrapping_mul(g(*b))),
        Inst::IMad { dst, a, b, c } => one(*dst, g(*a).wrapping_mul(g(*b)).wrapping_add(g(*c))),
        Inst::IDiv { dst, a, b } => {
            let (x, y) = (g(*a) as i32, g(*b) as i32);
            one(
                *dst,
                if y == 0 {
                    u32::MAX
                } else {
                    x.wrapping_div(y) as u32
                },
            )
        }
        Inst::UDiv { dst, a, b } => one(*dst, g(*a).checked_div(g(*b)).unwrap_or(u32::MAX)),
        Inst::And { dst, a, b } => one(*dst, g(*a) & g(*b)),
        Inst::Or { dst, a, b } => one(*dst, g(*a) | g(*b)),
        Inst::Xor { dst, a, b } => one(*dst, g(*a) ^ g(*b)),
        Inst::Shl { dst, a, b } => one(*dst, g(*a) << (g(*b) & 31)),
        Inst::UShr { dst, a, b } => one(*dst, g(*a) >> (g(*b) & 31)),
        Inst::IShr { dst, a, b } => one(*dst, ((g(*a) as i32) >> (g(*b) & 31)) as u32),
        Inst::INeg { dst, src } => one(*dst, g(*src).wrapping_neg()),
        Inst::SExtBits { bits, dst, src } => {
            let sh = 32 - u32::from(*bits);
            one(*dst, (((g(*src) << sh) as i32) >> sh) as u32)
        }
        Inst::ICmp { cond, dst, a, b: y } => {
            let (x, y) = (g(*a), g(*y));
            let (sx, sy) = (x as i32, y as i32);
            one(
                *dst,
                b(match cond {
                    Eq => x == y,
                    Ne => x != y,
                    ULt => x < y,
                    ULe => x <= y,
                    UGt => x > y,
                    UGe => x >= y,
                    SLt => sx < sy,
                    SLe => sx <= sy,
                    SGt => sx > sy,
                    SGe => sx >= sy,
                }),
            )
        }
        Inst::FirstBitHi { dst, src } => {
            let x = g(*src);
            one(*dst, if x == 0 { u32::MAX } else { x.leading_zeros() })
        }
        Inst::FirstBitShi { dst, src } => {
            let x = g(*src);
            let x = if (x as i32) < 0 { !x } else { x };
            one(*dst, if x == 0 { u32::MAX } else { x.leading_zeros() })
        }
        Inst::FirstBitLo { dst, src } => {
            let x = g(*src);
            one(*dst, if x == 0 { u32::MAX } else { x.trailing_zeros() })
        }
        Inst::Bfrev { dst, src } => one(*dst, g(*src).reverse_bits()),
        Inst::CountBits { dst, src } => one(*dst, g(*src).count_ones()),
        Inst::FAdd { dst, a, b } => one(*dst, (f(*a) + f(*b)).to_bits()),
        Inst::FMul { dst, a, b } => one(*dst, (f(*a) * f(*b)).to_bits()),
        Inst::UToF { dst, src } => one(*dst, (g(*src) as f32).to_bits()),
        Inst::IToF { dst, src } => one(*dst, (g(*src) as i32 as f32).to_bits()),
        Inst::F16ToF32 { dst, src } => one(
            *dst,
            half::f16::from_bits(g(*src) as u16).to_f32().to_bits(),
        ),
        Inst::F32ToF16 { dst, src } => one(*dst, u32::from(half::f16::from_f32(f(*src)).to_bits())),
        Inst::SysValue { axis, dst, .. } => one(*dst, thread[*axis as usize]),
        Inst::Handle { dst, range, .. } => one(*dst, range.0),
        Inst::I64Add { dst, a, b } => pair(*dst, g64(*a).wrapping_add(g64(*b))),
        Inst::ZExt64 { dst, src } => pair(*dst, u64::from(g(*src))),
        Inst::RawStore {
            width,
            mask,
            handle,
            addr,
            src,
        } => {
            let n = size(*width);
            for k in 0..4 {
                if mask & (1 << k) != 0 {
                    let v = if n == 8 {
                        g64(src[k])
                    } else {
                        u64::from(g(src[k]))
                    };
                    let at = u64::from(g(*addr)) + (k * n) as u64;
                    wr(&mut mem.bufs[g(*handle) as usize], at, n, v);
                }
            }
            vec![]
        }
        Inst::LocalStore {
            width,
            mask,
            addr,
            offset,
            src,
            ..
        }
        | Inst::SharedStore {
            width,
            mask,
            addr,
            offset,
            src,
        } => {
            let n = size(*width);
            let base = u64::from(g(*addr).wrapping_add(*offset));
            let m = match inst {
                Inst::LocalStore { array, .. } => &mut mem.locals[array.index()],
                _ => &mut mem.shared,
            };
            for k in 0..4 {
                if mask & (1 << k) != 0 {
                    let v = if n == 8 {
                        g64(src[k])
                    } else {
                        u64::from(g(src[k]))
                    };
                    wr(m, base + (k * n) as u64, n, v);
                }
            }
            vec![]
        }
        Inst::CbLoad {
            width,
            mask,
            dst,
            addr,
            offset,
            ..
        }
        | Inst::LocalLoad {
            width,
            mask,
            dst,
            addr,
            offset,
            ..
        }
        | Inst::SharedLoad {
            width,
            mask,
            dst,
            addr,
            offset,
        } => {
            let n = size(*width);
            let base = u64::from(g(*addr).wrapping_add(*offset));
            let m: &Vec<u8> = match inst {
                Inst::CbLoad { handle, .. } => &mem.bufs[g(*handle) as usize],
                Inst::LocalLoad { array, .. } => &mem.locals[array.index()],
                _ => &mem.shared,
            };
            let mut out = vec![];
            for k in 0..4 {
                if mask & (1 << k) != 0 {
                    let v = rd(m, base + (k * n) as u64, n);
                    out.push((dst[k], v as u32));
                    if n == 8 {
                        out.push((dst[k].hi(), (v >> 32) as u32));
                    }
                }
            }
            out
        }
        Inst::ConstLoad {
            width,
            mask,
            dst,
            array,
            addr,
            offset,
        } => {
            let n = size(*width);
            let base = u64::from(g(*addr).wrapping_add(*offset));
            (0..4)
                .filter(|k| mask & (1 << k) != 0)
                .map(|k| {
                    (
                        dst[k],
                        rd(&mem.consts[array.index()], base + (k * n) as u64, n) as u32,
                    )
                })
                .collect()
        }
        other => panic!("the test evaluator does not know `{other}`"),
    }
}

/// Runs a lowered shader for one thread: `bufs[i]` is the memory of range `i`; returns
/// the buffers after the run.
fn run(s: &Shader, bufs: Vec<Vec<u8>>, thread: [u32; 3]) -> Vec<Vec<u8>> {
    let mut r = vec![0u32; s.num_regs as usize];
    r[..s.consts.len()].copy_from_slice(&s.consts);
    let mut mem = Mem {
        bufs,
        locals: s.locals.iter().map(|l| vec![0; l.bytes as usize]).collect(),
        shared: vec![0; s.groupshared_bytes as usize],
        consts: s
            .const_arrays
            .iter()
            .map(|c| c.words.iter().flat_map(|w| w.to_le_bytes()).collect())
            .collect(),
    };
    let mut block = 0usize;
    for _ in 0..10_000 {
        let b = &s.blocks[block];
        for i in b.start..b.end {
            for (d, v) in step(&s.insts[i as usize], &r, &mut mem, thread) {
                r[d.index()] = v;
            }
        }
        block = match &b.term {
            Terminator::Jump(t) => t.index(),
            Terminator::Branch { cond, then_, else_ } => {
                if r[cond.index()] != 0 {
                    then_.index()
                } else {
                    else_.index()
                }
            }
            Terminator::Switch {
                sel,
                cases,
                default,
            } => {
                let v = r[sel.index()];
                cases
                    .iter()
                    .find(|c| c.0 == v)
                    .map_or(default.index(), |c| c.1.index())
            }
            Terminator::Return => return mem.bufs,
            Terminator::Unreachable => panic!("unreachable reached"),
        };
    }
    panic!("runaway program");
}

/// The 32-bit words of a buffer.
fn words(b: &[u8]) -> Vec<u32> {
    b.chunks(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

/// LLVM LangRef "phi": `%a = phi [1], [%b]` and `%b = phi [2], [%a]` swap on every trip
/// around the loop; the loop's back edge is critical (the latch also exits), so the copies
/// get a block of their own.
#[test]
fn phi_swap_in_a_loop() {
    let mut mb = Mb::new(DL32);
    let i32t = mb.int(32);
    let (c0, c1, c2, c4) = (mb.ci(32, 0), mb.ci(32, 1), mb.ci(32, 2), mb.ci(32, 4));
    let b0 = mb.block();
    let h = mb.handle(1, 0, 0);
    let b1 = LBlock(1);
    let b2 = LBlock(2);
    mb.br(b1);
    mb.block();
    // %a, %b, %i are values FIRST+1.. in push order.
    let a = ValueId(FIRST + 1);
    let b = ValueId(FIRST + 2);
    let i1 = ValueId(FIRST + 4);
    let pa = mb.phi(i32t, vec![(c1, b0), (b, b1)]);
    let pb = mb.phi(i32t, vec![(c2, b0), (a, b1)]);
    let pi = mb.phi(i32t, vec![(c0, b0), (i1, b1)]);
    assert_eq!((pa, pb), (a, b));
    let next = mb.bin(BinOp::Add, pi, c1, i32t);
    assert_eq!(next, i1);
    let c = mb.icmp(36, next, c4); // ult
    mb.cond_br(c, b1, b2);
    mb.block();
    mb.store_word(h, c0, pa);
    mb.store_word(h, c4, pb);
    mb.ret();
    let (m, fi) = mb.finish();
    let s = lower_test(&m, fi).unwrap();
    // entry, loop, the back edge's copies, exit
    assert_eq!(s.blocks.len(), 4, "{s}");
    let out = run(&s, vec![vec![0; 8], vec![]], [0; 3]);
    // Four trips: (1,2) (2,1) (1,2) (2,1).
    assert_eq!(words(&out[0]), vec![2, 1]);
}

/// A branch whose taken side goes straight to a block with a phi is a critical edge:
/// its copy must not run on the other side.
#[test]
fn critical_edges_are_split() {
    let mut mb = Mb::new(DL32);
    let i32t = mb.int(32);
    let (c0, c10, c20) = (mb.ci(32, 0), mb.ci(32, 10), mb.ci(32, 20));
    let b0 = mb.block();
    let h = mb.handle(1, 0, 0);
    let tid = mb.dx("threadId.i32", DxOp::ThreadId, &[c0], i32t);
    let c = mb.icmp(32, tid, c0);
    mb.cond_br(c, LBlock(2), LBlock(1));
    let b1 = mb.block();
    mb.br(LBlock(2));
    mb.block();
    let x = mb.phi(i32t, vec![(c10, b0), (c20, b1)]);
    mb.store_word(h, c0, x);
    mb.ret();
    let (m, fi) = mb.finish();
    let s = lower_test(&m, fi).unwrap();
    assert_eq!(s.blocks.len(), 4, "{s}");
    for (t, want) in [(0, 10), (1, 20)] {
        let out = run(&s, vec![vec![0; 4], vec![]], [t, 0, 0]);
        assert_eq!(words(&out[0]), vec![want], "thread {t}");
    }
}

/// 16-bit integers live zero-extended in 32 bits: wrapping arithmetic is masked, signed
/// operations sign-extend first; `i1` is 0/−1 (`zext` → `and 1`, `add` is `xor`).
#[test]
fn narrow_integers_and_booleans() {
    let mut mb = Mb::new(DL16);
    let (i1t, i16t, i32t, f32t) = (mb.int(1), mb.int(16), mb.int(32), mb.t(Type::Float));
    let m1 = mb.ci(16, -1); // 0xffff as stored (sign-extended)
    let one = mb.ci(16, 1);
    let four = mb.ci(16, 4);
    let fifteen = mb.ci(16, 15);
    let min = mb.ci(16, -32768); // 0x8000
    let m6 = mb.ci(16, -6);
    let k100 = mb.ci(16, 0x100);
    let big = mb.ci(32, 0x12345);
    let t = mb.ci(1, 1);
    let mut outs = Vec::new();
    mb.block();
    let h = mb.handle(1, 0, 0);
    let r = mb.bin(BinOp::Add, m1, one, i16t); // 0
    outs.push((mb.cast(CastOp::ZExt, r, i32t), 0));
    let r = mb.bin(BinOp::SDiv, m6, four, i16t); // -1 → 0xffff
    outs.push((mb.cast(CastOp::ZExt, r, i32t), 0xffff));
    let r = mb.bin(BinOp::AShr, min, one, i16t); // 0xc000
    outs.push((mb.cast(CastOp::ZExt, r, i32t), 0xc000));
    let r = mb.bin(BinOp::LShr, min, fifteen, i16t); // 1
    outs.push((mb.cast(CastOp::ZExt, r, i32t), 1));
    let r = mb.bin(BinOp::Mul, k100, k100, i16t); // 0x10000 wraps to 0
    outs.push((mb.cast(CastOp::ZExt, r, i32t), 0));
    let c = mb.icmp(40, min, one); // slt: −32768 < 1
    outs.push((mb.cast(CastOp::ZExt, c, i32t), 1));
    let c = mb.icmp(36, min, one); // ult: 0x8000 < 1 is false
    outs.push((mb.cast(CastOp::ZExt, c, i32t), 0));
    outs.push((mb.cast(CastOp::SExt, m1, i32t), 0xffff_ffff));
    let r = mb.cast(CastOp::Trunc, big, i16t);
    outs.push((mb.cast(CastOp::ZExt, r, i32t), 0x2345));
    let f = mb.cast(CastOp::SiToFp, m1, f32t);
    outs.push((mb.cast(CastOp::BitCast, f, i32t), (-1.0f32).to_bits()));
    let f = mb.cast(CastOp::UiToFp, m1, f32t);
    outs.push((mb.cast(CastOp::BitCast, f, i32t), 65535.0f32.to_bits()));
    let r = mb.bin(BinOp::Add, t, t, i1t); // true + true = false
    outs.push((mb.cast(CastOp::ZExt, r, i32t), 0));
    outs.push((mb.cast(CastOp::SExt, t, i32t), 0xffff_ffff));
    let f = mb.cast(CastOp::UiToFp, t, f32t); // 1.0, not −1.0
    outs.push((mb.cast(CastOp::BitCast, f, i32t), 1.0f32.to_bits()));
    for (k, (v, _)) in outs.clone().into_iter().enumerate() {
        let addr = mb.ci(32, 4 * k as i64);
        mb.store_word(h, addr, v);
    }
    mb.ret();
    let (m, fi) = mb.finish();
    let s = lower_test(&m, fi).unwrap();
    let out = run(&s, vec![vec![0; 4 * outs.len()], vec![]], [0; 3]);
    let want: Vec<u32> = outs.iter().map(|o| o.1).collect();
    assert_eq!(words(&out[0]), want, "{s}");
}

/// GEP offsets follow the data layout with dxc's vector rule (seed 000 "Listings":
/// `<3 x float>` is 12 bytes aligned 4): in `[2 x { <3 x float>, float }]` element 1's
/// vector component 2 is at 16 + 8 = 24, element i's float at 16·i + 12.
#[test]
fn gep_offsets_use_the_dxc_vector_layout() {
    let mut mb = Mb::new(DL32);
    let (i32t, f32t) = (mb.int(32), mb.t(Type::Float));
    let v3 = mb.t(Type::Vector {
        len: 3,
        element: f32t,
    });
    let st = mb.t(Type::Struct {
        name: Some("S".into()),
        packed: false,
        elements: vec![v3, f32t],
        opaque: false,
    });
    let arr = mb.t(Type::Array {
        len: 2,
        element: st,
    });
    let parr = mb.t(Type::Pointer {
        pointee: arr,
        address_space: 0,
    });
    let pf = mb.t(Type::Pointer {
        pointee: f32t,
        address_space: 0,
    });
    let (c0, c1, c2, c4, one) = (
        mb.ci(32, 0),
        mb.ci(32, 1),
        mb.ci(32, 2),
        mb.ci(32, 4),
        mb.ci(32, 1),
    );
    let five = mb.c(f32t, Constant::Float(u64::from(5.0f32.to_bits())));
    let seven = mb.c(f32t, Constant::Float(u64::from(7.0f32.to_bits())));
    mb.block();
    let h = mb.handle(1, 0, 0);
    let tid = mb.dx("threadId.i32", DxOp::ThreadId, &[c0], i32t);
    let a = mb.push(
        InstKind::Alloca {
            allocated: arr,
            size: one,
            align: 4,
            inalloca: false,
            raw_align: 3,
        },
        parr,
    );
    let gep = |mb: &mut Mb, idx: Vec<ValueId>| {
        mb.push(
            InstKind::Gep {
                inbounds: true,
                source_ty: arr,
                base: a,
                indices: idx,
                explicit_type: true,
            },
            pf,
        )
    };
    let p1 = gep(&mut mb, vec![c0, c1, c0, c2]);
    let p2 = gep(&mut mb, vec![c0, tid, c1]);
    let void = mb.void();
    for (p, v) in [(p1, five), (p2, seven)] {
        mb.push(
            InstKind::Store {
                ptr: p,
                value: v,
                align: 4,
                volatile: false,
                atomic: None,
            },
            void,
        );
    }
    // Read both back through constant GEPs.
    let q1 = gep(&mut mb, vec![c0, c1, c0, c2]);
    let q2 = gep(&mut mb, vec![c0, c1, c1]);
    for (k, q) in [q1, q2].into_iter().enumerate() {
        let l = mb.push(
            InstKind::Load {
                ptr: q,
                align: 4,
                volatile: false,
                atomic: None,
            },
            f32t,
        );
        let w = mb.cast(CastOp::BitCast, l, i32t);
        let addr = if k == 0 { c0 } else { c4 };
        mb.store_word(h, addr, w);
    }
    mb.ret();
    let (m, fi) = mb.finish();
    let s = lower_test(&m, fi).unwrap();
    assert_eq!(s.locals[0].bytes, 32);
    assert!(
        s.insts
            .iter()
            .any(|i| matches!(i, Inst::LocalStore { offset: 24, .. })),
        "{s}"
    );
    let out = run(&s, vec![vec![0; 8], vec![]], [1, 0, 0]);
    assert_eq!(
        words(&out[0]),
        vec![5.0f32.to_bits(), 7.0f32.to_bits()],
        "{s}"
    );
}

/// DXIL.rst "FirstbitHi": the index counts from the MSB (0x10000000 gives 3), as the
/// IR's; the 16-bit overload counts from bit 15, `FirstbitSHi` from the first bit
/// differing from the sign, and "none" is 0xffffffff.
#[test]
fn firstbit_counts_from_the_msb_of_the_overload() {
    let mut mb = Mb::new(DL16);
    let i32t = mb.int(32);
    let cases: Vec<(DxOp, u32, i64, u32)> = vec![
        // (operation, bits, value, expected)
        (DxOp::FirstbitHi, 32, 0x1000_0000, 3),
        (DxOp::FirstbitHi, 16, 0x0100, 7),
        (DxOp::FirstbitHi, 16, 0, u32::MAX),
        (DxOp::FirstbitSHi, 16, 0xff00u16 as i16 as i64, 8),
        (DxOp::FirstbitSHi, 16, -1, u32::MAX),
        (DxOp::FirstbitSHi, 16, 0x0001, 15),
        (DxOp::FirstbitLo, 16, 0x0100, 8),
        (DxOp::FirstbitLo, 16, 0, u32::MAX),
    ];
    let vals: Vec<ValueId> = cases.iter().map(|c| mb.ci(c.1, c.2)).collect();
    mb.block();
    let h = mb.handle(1, 0, 0);
    for (k, (c, v)) in cases.iter().zip(&vals).enumerate() {
        let name = format!("unaryBits.i{}", c.1);
        let r = mb.dx(&name, c.0, &[*v], i32t);
        let addr = mb.ci(32, 4 * k as i64);
        mb.store_word(h, addr, r);
    }
    mb.ret();
    let (m, fi) = mb.finish();
    let s = lower_test(&m, fi).unwrap();
    let out = run(&s, vec![vec![0; 4 * cases.len()], vec![]], [0; 3]);
    let want: Vec<u32> = cases.iter().map(|c| c.3).collect();
    assert_eq!(words(&out[0]), want, "{s}");
}

/// DXIL.rst "CBufferLoadLegacy": the operand is a 16-byte row; its components are
/// 4 × 32, 8 × 16 or 2 × 64 bits by the overload.
#[test]
fn cbuffer_legacy_rows() {
    let mut mb = Mb::new(DL16);
    let (i16t, i32t, i64t, f16t) = (mb.int(16), mb.int(32), mb.int(64), mb.t(Type::Half));
    let r32 = mb.named("dx.types.CBufRet.i32", vec![i32t; 4]);
    let r16 = mb.named("dx.types.CBufRet.f16", vec![f16t; 8]);
    let r64 = mb.named("dx.types.CBufRet.i64", vec![i64t; 2]);
    let (c0, c1, c2, c3) = (mb.ci(32, 0), mb.ci(32, 1), mb.ci(32, 2), mb.ci(32, 3));
    mb.block();
    let h = mb.handle(1, 0, 0);
    let cb = mb.handle(2, 0, 0);
    let tid = mb.dx("threadId.i32", DxOp::ThreadId, &[c0], i32t);
    let mut outs = Vec::new();
    let row = mb.dx(
        "cbufferLoadLegacy.i32",
        DxOp::CBufferLoadLegacy,
        &[cb, c2],
        r32,
    );
    outs.push(mb.push(
        InstKind::ExtractValue {
            aggregate: row,
            indices: vec![1],
        },
        i32t,
    ));
    let row = mb.dx(
        "cbufferLoadLegacy.i32",
        DxOp::CBufferLoadLegacy,
        &[cb, tid],
        r32,
    );
    outs.push(mb.push(
        InstKind::ExtractValue {
            aggregate: row,
            indices: vec![3],
        },
        i32t,
    ));
    let row = mb.dx(
        "cbufferLoadLegacy.f16",
        DxOp::CBufferLoadLegacy,
        &[cb, c1],
        r16,
    );
    let hv = mb.push(
        InstKind::ExtractValue {
            aggregate: row,
            indices: vec![5],
        },
        f16t,
    );
    let iv = mb.cast(CastOp::BitCast, hv, i16t);
    outs.push(mb.cast(CastOp::ZExt, iv, i32t));
    let row = mb.dx(
        "cbufferLoadLegacy.i64",
        DxOp::CBufferLoadLegacy,
        &[cb, c3],
        r64,
    );
    let w = mb.push(
        InstKind::ExtractValue {
            aggregate: row,
            indices: vec![1],
        },
        i64t,
    );
    outs.push(mb.cast(CastOp::Trunc, w, i32t));
    for (k, v) in outs.iter().enumerate() {
        let addr = mb.ci(32, 4 * k as i64);
        mb.store_word(h, addr, *v);
    }
    mb.ret();
    let (m, fi) = mb.finish();
    let s = lower_test(&m, fi).unwrap();
    // Row 2, component 1: offset 32, mask 0b10.
    assert!(
        s.insts.iter().any(|i| matches!(
            i,
            Inst::CbLoad {
                offset: 32,
                mask: 2,
                ..
            }
        )),
        "{s}"
    );
    let cbuf: Vec<u8> = (0..64).collect();
    let out = run(&s, vec![vec![0; 16], cbuf], [1, 0, 0]);
    let word = |b: u32| u32::from_le_bytes([b as u8, b as u8 + 1, b as u8 + 2, b as u8 + 3]);
    assert_eq!(
        words(&out[0]),
        vec![word(36), word(28), 0x1b1a, word(56)],
        "{s}"
    );
}

/// dx.precise on a FMad makes it `fmad_precise` (DXIL.rst "FMad": not fused for
/// precise); Dot3 is three rounded products summed in order.
#[test]
fn precise_mad_and_dot_order() {
    let mut mb = Mb::new(DL32);
    let (f32t, i32t) = (mb.t(Type::Float), mb.int(32));
    let x = mb.c(f32t, Constant::Float(u64::from(2.0f32.to_bits())));
    let c0 = mb.ci(32, 0);
    mb.block();
    let h = mb.handle(1, 0, 0);
    let a = mb.dx("tertiary.f32", DxOp::FMad, &[x, x, x], f32t);
    let b = mb.dx("tertiary.f32", DxOp::FMad, &[a, x, x], f32t);
    let d = mb.dx("dot3.f32", DxOp::Dot3, &[a, b, x, x, x, x], f32t);
    let w = mb.cast(CastOp::BitCast, d, i32t);
    mb.store_word(h, c0, w);
    mb.ret();
    let (mut m, fi) = mb.finish();
    m.metadata_kinds.push(MetadataKind {
        id: 7,
        name: "dx.precise".into(),
    });
    m.functions[fi].body.as_mut().unwrap().instructions[1]
        .attachments
        .push((7, crate::dxil::llvm::MdId(0)));
    let s = lower_test(&m, fi).unwrap();
    let names: Vec<&str> = s.insts.iter().map(|i| i.mnemonic()).collect();
    let from = names.iter().position(|n| *n == "fmad_precise").unwrap();
    assert_eq!(
        &names[from..from + 7],
        &[
            "fmad_precise",
            "fmad",
            "fmul",
            "fmul",
            "fadd",
            "fmul",
            "fadd"
        ],
        "{s}"
    );
}

/// A cycle entered other than through its header cannot be ordered for reconvergence:
/// refused, naming the edge in LLVM's block numbers.
#[test]
fn irreducible_control_flow_is_refused() {
    let mut mb = Mb::new(DL32);
    let i32t = mb.int(32);
    let c0 = mb.ci(32, 0);
    mb.block();
    let tid = mb.dx("threadId.i32", DxOp::ThreadId, &[c0], i32t);
    let c = mb.icmp(32, tid, c0);
    mb.cond_br(c, LBlock(1), LBlock(2));
    mb.block();
    mb.br(LBlock(2));
    mb.block();
    mb.br(LBlock(1));
    let (m, fi) = mb.finish();
    match lower_test(&m, fi) {
        Err(LowerError::Unsupported { what, .. }) => {
            assert!(what.starts_with("irreducible control flow"), "{what}")
        }
        other => panic!("{other:?}"),
    }
}

/// A phi of pointers into two different arrays has no one memory: refused, naming it.
#[test]
fn pointers_into_two_arrays_are_refused() {
    let mut mb = Mb::new(DL32);
    let (i32t, c0, one) = (mb.int(32), mb.ci(32, 0), mb.ci(32, 1));
    let pi = mb.t(Type::Pointer {
        pointee: i32t,
        address_space: 0,
    });
    let b0 = mb.block();
    let alloca = |mb: &mut Mb| {
        mb.push(
            InstKind::Alloca {
                allocated: i32t,
                size: one,
                align: 4,
                inalloca: false,
                raw_align: 3,
            },
            pi,
        )
    };
    let x = alloca(&mut mb);
    let y = alloca(&mut mb);
    let tid = mb.dx("threadId.i32", DxOp::ThreadId, &[c0], i32t);
    let c = mb.icmp(32, tid, c0);
    mb.cond_br(c, LBlock(1), LBlock(2));
    let b1 = mb.block();
    mb.br(LBlock(2));
    mb.block();
    let p = mb.phi(pi, vec![(x, b0), (y, b1)]);
    let void = mb.void();
    mb.push(
        InstKind::Store {
            ptr: p,
            value: c0,
            align: 4,
            volatile: false,
            atomic: None,
        },
        void,
    );
    mb.ret();
    let (m, fi) = mb.finish();
    match lower_test(&m, fi) {
        Err(LowerError::Unsupported { what, location }) => {
            assert!(what.contains("two different arrays"), "{what}");
            assert!(location.contains("instruction"), "{location}");
        }
        other => panic!("{other:?}"),
    }
}

/// Globals: a `static const` table read through a constant-expression GEP (a constant
/// array), a non-constant static array initialised at entry (a per-lane array), two
/// group shared variables placed at their alignment; vectors indexed by a variable.
#[test]
fn globals_and_vectors() {
    let mut mb = Mb::new(DL32);
    let (i32t, i64t) = (mb.int(32), mb.int(64));
    let arr = mb.t(Type::Array {
        len: 4,
        element: i32t,
    });
    let v4 = mb.t(Type::Vector {
        len: 4,
        element: i32t,
    });
    let pi = mb.t(Type::Pointer {
        pointee: i32t,
        address_space: 0,
    });
    let c: Vec<ValueId> = (0..8).map(|k| mb.ci(32, k)).collect();
    let init = |mb: &mut Mb, vals: [i64; 4]| {
        let ids: Vec<ValueId> = vals.iter().map(|v| mb.ci(32, *v)).collect();
        mb.c(arr, Constant::Aggregate(ids))
    };
    let tinit = init(&mut mb, [10, 20, 30, 40]);
    let table = mb.global("const_table", arr, 0, Some(tinit));
    let sinit = init(&mut mb, [1, 0, 3, 0]);
    let stat = mb.global("state", arr, 0, Some(sinit));
    let g1 = mb.global("g1", i32t, 3, None);
    let g2 = mb.global("g2", i64t, 3, None);
    // getelementptr ([4 x i32]* @const_table, i32 0, i32 2) as a constant expression.
    let cgep = mb.c(
        pi,
        Constant::Gep {
            inbounds: true,
            source_ty: Some(arr),
            operands: vec![table, c[0], c[2]],
        },
    );
    let vec_init = {
        let ids = vec![c[4], c[5], c[6], c[7]];
        mb.c(v4, Constant::Aggregate(ids))
    };
    mb.block();
    let h = mb.handle(1, 0, 0);
    let tid = mb.dx("threadId.i32", DxOp::ThreadId, &[c[0]], i32t); // 2
    let mut outs = Vec::new();
    outs.push(mb.load(cgep, i32t)); // 30
    let p = mb.push(
        InstKind::Gep {
            inbounds: true,
            source_ty: arr,
            base: table,
            indices: vec![c[0], tid],
            explicit_type: true,
        },
        pi,
    );
    outs.push(mb.load(p, i32t)); // 30
    let sp = |mb: &mut Mb, k: ValueId| {
        mb.push(
            InstKind::Gep {
                inbounds: true,
                source_ty: arr,
                base: stat,
                indices: vec![c[0], k],
                explicit_type: true,
            },
            pi,
        )
    };
    let s1 = sp(&mut mb, c[1]);
    mb.store(s1, c[7]);
    let s0 = sp(&mut mb, c[0]);
    outs.push(mb.load(s0, i32t)); // 1 (initialised)
    let s1 = sp(&mut mb, c[1]);
    outs.push(mb.load(s1, i32t)); // 7 (stored)
    let s2 = sp(&mut mb, tid);
    outs.push(mb.load(s2, i32t)); // 3
    mb.store(g1, tid);
    let big = mb.ci(64, 1 << 40);
    mb.store(g2, big);
    outs.push(mb.load(g1, i32t)); // 2
    let e = mb.push(
        InstKind::ExtractElement {
            vector: vec_init,
            index: tid,
        },
        i32t,
    );
    outs.push(e); // 6
    let ins = mb.push(
        InstKind::InsertElement {
            vector: vec_init,
            element: c[1],
            index: tid,
        },
        v4,
    );
    for k in [1, 2] {
        outs.push(mb.push(
            InstKind::ExtractValue {
                aggregate: ins,
                indices: vec![k],
            },
            i32t,
        )); // 5, then 1
    }
    for (k, v) in outs.clone().into_iter().enumerate() {
        let addr = mb.ci(32, 4 * k as i64);
        mb.store_word(h, addr, v);
    }
    mb.ret();
    let (m, fi) = mb.finish();
    let s = lower_test(&m, fi).unwrap();
    // g1 at 0, g2 (8-byte aligned) at 8.
    assert_eq!(s.groupshared_bytes, 16, "{s}");
    assert_eq!(s.const_arrays[0].words, vec![10, 20, 30, 40]);
    assert!(
        s.insts.iter().any(|i| matches!(
            i,
            Inst::SharedStore {
                width: Width::B64,
                offset: 8,
                ..
            }
        )),
        "{s}"
    );
    let out = run(&s, vec![vec![0; 4 * outs.len()], vec![]], [2, 0, 0]);
    assert_eq!(words(&out[0]), vec![30, 30, 1, 7, 3, 2, 6, 5, 1], "{s}");
}

// ---- vertex and pixel programs ------------------------------------------------------------

use crate::dxil::meta::{SignatureElement, Signatures};
use crate::exec::{Limits, PixelContext, Profile, StageProgram, StageRunner, WaveRun};
use crate::ir::io::NO_REGISTER;
use crate::ir::{EvalAt, Interp, IoElement, SysValue};

/// A signature element record: id, name, component type, semantic kind, interpolation,
/// rows × columns at (start row, start column).
#[allow(clippy::too_many_arguments)]
fn sig(
    id: u32,
    name: &str,
    ct: u32,
    kind: u32,
    interp: u32,
    rows: u32,
    cols: u32,
    at: (i32, i32),
) -> SignatureElement {
    SignatureElement {
        id,
        name: name.into(),
        component_type: ct,
        semantic_kind: kind,
        semantic_indices: (0..rows).collect(),
        interpolation: interp,
        rows,
        cols,
        start_row: at.0,
        start_col: at.1,
        stream: None,
        dynamic_index_mask: None,
        usage_mask: None,
        other_tags: Vec::new(),
    }
}

/// Lowers a hand-built module as a vertex or pixel entry with signatures `sigs` and no
/// resources.
fn lower_stage(
    m: &Module,
    fi: usize,
    stage: Stage,
    sigs: &Signatures,
) -> Result<Shader, LowerError> {
    let mut b = Builder::new(stage);
    b.shader_mut().thread_group = [0; 3];
    let io = stage::Io::lay_out(stage, Some(sigs), b.shader_mut())?;
    let s = lower_entry(m, fi, b, Vec::new(), io, None)?;
    crate::ir::validate(&s).unwrap_or_else(|e| panic!("{e}\n{s}"));
    Ok(s)
}

/// Runs one wave of four lanes (a quad) of `s`: `input(lane, word)` gives the input
/// words; returns the output words (word `i` of lane `l` at `4i + l`) and the run.
fn run_quad(
    s: &Shader,
    input: impl Fn(usize, u32) -> u32,
    helper: u128,
    pixel: Option<&dyn PixelContext>,
) -> (Vec<u32>, WaveRun) {
    let table = crate::exec::DescriptorTable::new(s, &[], &[], &[]).unwrap();
    let p = StageProgram::new(s, table, Profile::default(), Limits::default(), 4).unwrap();
    let mut r = StageRunner::new(&p);
    for w in 0..s.input_words {
        for l in 0..4 {
            r.inputs_mut()[w as usize * 4 + l] = input(l, w);
        }
    }
    for l in 0..4 {
        r.set_tag(l, l as u32);
    }
    let run = r
        .run(0b1111, helper, pixel)
        .unwrap_or_else(|e| panic!("{e}\n{s}"));
    (r.outputs().to_vec(), run)
}

fn elem<'a>(list: &'a [IoElement], name: &str) -> &'a IoElement {
    list.iter()
        .find(|e| e.semantic == name)
        .unwrap_or_else(|| panic!("no element {name}"))
}

/// A pixel signature with packed and unpacked elements of each kind of record.
fn pixel_sigs() -> Signatures {
    Signatures {
        inputs: vec![
            sig(0, "SV_Position", 9, 3, 4, 1, 4, (0, 0)),
            sig(1, "TEXCOORD", 9, 0, 2, 2, 2, (1, 2)),
            sig(2, "SV_SampleIndex", 5, 12, 1, 1, 1, (-1, -1)),
            sig(3, "SV_IsFrontFace", 5, 13, 1, 1, 1, (3, 0)),
            sig(4, "K", 5, 0, 1, 1, 1, (3, 1)),
            sig(5, "H", 8, 0, 2, 1, 1, (4, 0)),
            sig(6, "S", 2, 0, 1, 1, 1, (4, 1)),
        ],
        outputs: vec![
            sig(0, "SV_Target", 9, 16, 0, 1, 4, (0, 0)),
            sig(1, "H", 8, 16, 0, 1, 1, (1, 0)),
            sig(2, "S", 2, 16, 0, 1, 1, (1, 1)),
            sig(3, "SV_Depth", 9, 17, 0, 1, 1, (-1, -1)),
            sig(4, "SV_Coverage", 5, 14, 0, 1, 1, (-1, -1)),
        ],
        patch_constants: Vec::new(),
    }
}

/// DXIL.rst "Signature element record" and "Accessing signature value in operations": a
/// packed element's word for (row, column) is 4·(start row + row) + start column +
/// column; elements the signature does not pack (start row −1) get rows after the packed
/// ones, in signature order; only pixel inputs keep their interpolation mode.
#[test]
fn signature_layout() {
    let mut s = Shader::new(Stage::Pixel);
    stage::Io::lay_out(Stage::Pixel, Some(&pixel_sigs()), &mut s).unwrap();
    let t = elem(&s.inputs, "TEXCOORD");
    assert_eq!(
        (t.register, t.slot, t.rows, t.mask, t.interp),
        (1, 4, 2, 0b1100, Interp::Linear)
    );
    assert_eq!(t.word(1, 3), 11, "row 1, column 3 of the register file");
    let si = elem(&s.inputs, "SV_SampleIndex");
    assert_eq!(
        (si.sv, si.register, si.slot, si.mask, si.component),
        (
            SysValue::SampleIndex,
            NO_REGISTER,
            20,
            1,
            ComponentType::UInt
        )
    );
    let p = elem(&s.inputs, "SV_Position");
    assert_eq!(
        (p.sv, p.interp),
        (SysValue::Position, Interp::LinearNoPerspective)
    );
    assert_eq!(elem(&s.inputs, "S").component, ComponentType::SInt);
    assert_eq!(elem(&s.inputs, "H").component, ComponentType::Float);
    assert_eq!(
        s.input_words, 24,
        "five packed rows and one of SV_SampleIndex"
    );
    let d = elem(&s.outputs, "SV_Depth");
    let c = elem(&s.outputs, "SV_Coverage");
    assert_eq!(
        (d.sv, d.register, d.slot),
        (SysValue::Depth, NO_REGISTER, 8)
    );
    assert_eq!(
        (c.sv, c.register, c.slot),
        (SysValue::Coverage, NO_REGISTER, 12)
    );
    assert_eq!(s.output_words, 16);
    assert!(s.outputs.iter().all(|e| e.interp == Interp::Undefined));
    // Vertex inputs are not interpolated either.
    let mut v = Shader::new(Stage::Vertex);
    let sigs = Signatures {
        inputs: vec![sig(0, "POSITION", 9, 0, 2, 1, 3, (0, 0))],
        ..Signatures::default()
    };
    stage::Io::lay_out(Stage::Vertex, Some(&sigs), &mut v).unwrap();
    assert_eq!(v.inputs[0].interp, Interp::Undefined);
}

/// The semantic kinds mapped to system values are the ones of DXIL's `SemanticKind`
/// enumeration of the same number (DXIL.rst's semantic interpretation table, transcribed
/// independently in `container::psv0`).
#[test]
fn semantic_kinds_match_the_dxil_enumeration() {
    let flat = |s: &str| s.replace('_', "").to_ascii_lowercase();
    let mut n = 0;
    for k in 0..40u32 {
        let Some(sv) = stage::sys_value(k) else {
            continue;
        };
        let name = crate::container::psv0::SemanticKind::from_code(k as u8)
            .name()
            .unwrap();
        let want = if sv == SysValue::None {
            "arbitrary".to_string()
        } else {
            flat(&sv.to_string())
        };
        assert_eq!(flat(name), want, "kind {k}");
        n += 1;
    }
    assert_eq!(n, 24);
}

/// Malformed or foreign signature records are refused, naming the element.
#[test]
fn bad_signatures_are_refused() {
    let one = |e: SignatureElement| Signatures {
        inputs: vec![e],
        ..Signatures::default()
    };
    let cases = [
        (sig(0, "A", 9, 0, 2, 1, 5, (0, 0)), "1 rows of 5 columns"),
        (sig(0, "A", 9, 0, 2, 2, 1, (31, 0)), "past the 32 registers"),
        (sig(0, "A", 9, 0, 2, 1, 2, (0, 3)), "past the 32 registers"),
        (
            sig(0, "A", 9, 0, 2, 1, 1, (-1, 0)),
            "start row -1 with start column 0",
        ),
        (sig(0, "A", 9, 0, 9, 1, 1, (0, 0)), "interpolation mode 9"),
        (sig(0, "A", 10, 0, 2, 1, 1, (0, 0)), "component type 10"),
        (sig(0, "T", 5, 21, 0, 1, 1, (0, 0)), "semantic kind 21 (T)"),
    ];
    for (e, want) in cases {
        let mut s = Shader::new(Stage::Pixel);
        let err = stage::Io::lay_out(Stage::Pixel, Some(&one(e)), &mut s)
            .unwrap_err()
            .to_string();
        assert!(err.contains(want), "{err}");
        assert!(err.contains("input signature element 0"), "{err}");
    }
    let twice = Signatures {
        inputs: vec![
            sig(0, "A", 9, 0, 2, 1, 1, (0, 0)),
            sig(0, "B", 9, 0, 2, 1, 1, (1, 0)),
        ],
        ..Signatures::default()
    };
    let mut s = Shader::new(Stage::Pixel);
    let err = stage::Io::lay_out(Stage::Pixel, Some(&twice), &mut s).unwrap_err();
    assert!(
        err.to_string().contains("a second element with id 0"),
        "{err}"
    );
}

/// Builds `main` of a pixel program over [`pixel_sigs`] with `body`.
fn pixel_program(body: impl FnOnce(&mut Mb)) -> Result<Shader, LowerError> {
    let mut mb = Mb::new(DL32);
    mb.block();
    body(&mut mb);
    mb.ret();
    let (m, fi) = mb.finish();
    lower_stage(&m, fi, Stage::Pixel, &pixel_sigs())
}

fn load_input(mb: &mut Mb, ty: TypeId, ov: &str, id: i64, row: ValueId, col: i64) -> ValueId {
    let i32t = mb.int(32);
    let (idv, colv, u) = (mb.ci(32, id), mb.ci(8, col), mb.undef(i32t));
    mb.dx(
        &format!("loadInput.{ov}"),
        DxOp::LoadInput,
        &[idv, row, colv, u],
        ty,
    )
}

fn store_output(mb: &mut Mb, ov: &str, id: i64, row: i64, col: i64, v: ValueId) {
    let void = mb.void();
    let (idv, rowv, colv) = (mb.ci(32, id), mb.ci(32, row), mb.ci(8, col));
    mb.dx(
        &format!("storeOutput.{ov}"),
        DxOp::StoreOutput,
        &[idv, rowv, colv, v],
        void,
    );
}

/// `LoadInput` of a constant row reads the element's word (`input`), of a run-time row
/// `input_indexed` (a row past the element reads 0); 16-bit values narrow on load (f32 →
/// half to nearest even, integers to their low 16 bits) and widen on store (half → f32
/// exactly, `i16` sign-extended for a signed element): see `stage`'s "Values in words".
#[test]
fn inputs_and_outputs_move_words() {
    let s = pixel_program(|mb| {
        let (f32t, i32t, f16t, i16t) =
            (mb.t(Type::Float), mb.int(32), mb.t(Type::Half), mb.int(16));
        let one = mb.ci(32, 1);
        let zero = mb.ci(32, 0);
        let a = load_input(mb, f32t, "f32", 1, one, 1);
        let k = load_input(mb, i32t, "i32", 4, zero, 0);
        let b = load_input(mb, f32t, "f32", 1, k, 0);
        store_output(mb, "f32", 0, 0, 0, a);
        store_output(mb, "f32", 0, 0, 1, b);
        let h = load_input(mb, f16t, "f16", 5, zero, 0);
        store_output(mb, "f16", 1, 0, 0, h);
        let i = load_input(mb, i16t, "i16", 6, zero, 0);
        store_output(mb, "i16", 2, 0, 0, i);
    })
    .unwrap();
    assert!(
        s.insts.iter().any(|i| matches!(
            i,
            Inst::InputIndexed {
                slot: 6,
                rows: 2,
                ..
            }
        )),
        "{s}"
    );
    let ks = [0u32, 1, 2, 7];
    let (out, _) = run_quad(
        &s,
        |l, w| match w {
            11 => (l as f32 + 0.5).to_bits(),
            6 => 100 + l as u32,
            10 => 200 + l as u32,
            13 => ks[l],
            16 => (1.0f32 + 3.0 / 4096.0).to_bits(),
            17 => [0xffff_8001u32, 0x0001_7fff, 0, 0xffff_ffff][l],
            _ => 0,
        },
        0,
        None,
    );
    let o = |w: usize, l: usize| out[w * 4 + l];
    for (l, k) in ks.iter().enumerate() {
        assert_eq!(f32::from_bits(o(0, l)), l as f32 + 0.5, "row 1 column 3");
        let want = match k {
            0 => 100 + l as u32,
            1 => 200 + l as u32,
            _ => 0,
        };
        assert_eq!(o(1, l), want, "TEXCOORD[{k}].z");
        assert_eq!(
            f32::from_bits(o(4, l)),
            1.0 + 1.0 / 1024.0,
            "1 + 3·2^-12 to the nearest half"
        );
    }
    assert_eq!(
        [o(5, 0), o(5, 1), o(5, 2), o(5, 3)],
        [0xffff_8001, 0x7fff, 0, 0xffff_ffff],
        "int16_t words sign-extended"
    );
}

/// A pixel context that answers `eval` with what it was asked and has the standard
/// four-sample pattern (`D3D11_STANDARD_MULTISAMPLE_PATTERN`, in sixteenths: (−2, −6), (6, −2), (−6, 2),
/// (2, 6)).
struct Asked;

impl PixelContext for Asked {
    fn eval(&self, tag: u32, word: u32, at: EvalAt, arg: [u32; 2]) -> u32 {
        let code = match at {
            EvalAt::Centroid => 1,
            EvalAt::Sample => 2,
            EvalAt::Snapped => 3,
            EvalAt::Vertex => 4,
        };
        tag << 28 | word << 20 | code << 16 | (arg[0] & 0xff) << 8 | (arg[1] & 0xff)
    }
    fn sample_count(&self) -> u32 {
        4
    }
    fn sample_position(&self, index: u32) -> [f32; 2] {
        let p = [(-2, -6), (6, -2), (-6, 2), (2, 6)];
        p.get(index as usize)
            .map_or([0.0; 2], |(x, y)| [*x as f32 / 16.0, *y as f32 / 16.0])
    }
}

/// `EvalCentroid`, `EvalSampleIndex`, `EvalSnapped` and `AttributeAtVertex` become `eval`
/// of the element's word (DXIL.rst operand orders): the pipeline answers through
/// `PixelContext::eval` with the sample index, the two offsets or the vertex; a half
/// result narrows as `LoadInput` does.
#[test]
fn eval_asks_the_pipeline() {
    let s = pixel_program(|mb| {
        let (f32t, i32t) = (mb.t(Type::Float), mb.int(32));
        let (id, col, one) = (mb.ci(32, 1), mb.ci(8, 1), mb.ci(32, 1));
        let zero = mb.ci(32, 0);
        let k = load_input(mb, i32t, "i32", 4, zero, 0);
        let c = mb.dx(
            "evalCentroid.f32",
            DxOp::EvalCentroid,
            &[id, one, col],
            f32t,
        );
        let si = mb.dx("sampleIndex.i32", DxOp::SampleIndex, &[], i32t);
        let e = mb.dx(
            "evalSampleIndex.f32",
            DxOp::EvalSampleIndex,
            &[id, k, col, si],
            f32t,
        );
        let (m8, p7) = (mb.ci(32, -8), mb.ci(32, 7));
        let sn = mb.dx(
            "evalSnapped.f32",
            DxOp::EvalSnapped,
            &[id, one, col, m8, p7],
            f32t,
        );
        let v2 = mb.ci(8, 2);
        let av = mb.dx(
            "attributeAtVertex.f32",
            DxOp::AttributeAtVertex,
            &[id, one, col, v2],
            f32t,
        );
        for (c_, v) in [c, e, sn, av].into_iter().enumerate() {
            store_output(mb, "f32", 0, 0, c_ as i64, v);
        }
    })
    .unwrap();
    let ks = [0u32, 1, 1, 5];
    let (out, _) = run_quad(
        &s,
        |l, w| match w {
            13 => ks[l],
            20 => 3 - l as u32, // SV_SampleIndex
            _ => 0,
        },
        0,
        Some(&Asked),
    );
    for l in 0..4 {
        let tag = (l as u32) << 28;
        let o = |c: usize| out[c * 4 + l];
        // TEXCOORD row 1, column 2 + 1: word 4 + 4 + 3.
        assert_eq!(o(0), tag | 11 << 20 | 1 << 16, "centroid, lane {l}");
        let want = match ks[l] {
            0 => tag | 7 << 20 | 2 << 16 | (3 - l as u32) << 8,
            1 => tag | 11 << 20 | 2 << 16 | (3 - l as u32) << 8,
            _ => 0, // a row past the element
        };
        assert_eq!(o(1), want, "sample, lane {l}");
        assert_eq!(
            o(2),
            tag | 11 << 20 | 3 << 16 | 0xf8 << 8 | 7,
            "snapped, lane {l}"
        );
        assert_eq!(
            o(3),
            tag | 11 << 20 | 4 << 16 | 2 << 8,
            "vertex 2, lane {l}"
        );
    }
}

/// `Coverage`, `InnerCoverage` and `ViewID` are not in a pixel signature (DXIL.rst
/// `NotInSig`): each gets an element of its own, unpacked, after the others, when first
/// read; `SampleIndex` reads the signature's `SV_SampleIndex`. The render target's sample
/// count and pattern come from the pipeline (`RenderTargetGetSampleCount`,
/// `RenderTargetGetSamplePosition`).
#[test]
fn pixel_system_values_and_the_sample_pattern() {
    let s = pixel_program(|mb| {
        let (f32t, i32t) = (mb.t(Type::Float), mb.int(32));
        let cov = mb.dx("coverage.i32", DxOp::Coverage, &[], i32t);
        let inner = mb.dx("innerCoverage.i32", DxOp::InnerCoverage, &[], i32t);
        let view = mb.dx("viewID.i32", DxOp::ViewID, &[], i32t);
        let si = mb.dx("sampleIndex.i32", DxOp::SampleIndex, &[], i32t);
        let n = mb.dx(
            "renderTargetGetSampleCount",
            DxOp::RenderTargetGetSampleCount,
            &[],
            i32t,
        );
        let pos_t = mb.named("dx.types.SamplePos", vec![f32t, f32t]);
        let p = mb.dx(
            "renderTargetGetSamplePosition",
            DxOp::RenderTargetGetSamplePosition,
            &[si],
            pos_t,
        );
        let x = mb.push(
            InstKind::ExtractValue {
                aggregate: p,
                indices: vec![0],
            },
            f32t,
        );
        let y = mb.push(
            InstKind::ExtractValue {
                aggregate: p,
                indices: vec![1],
            },
            f32t,
        );
        for (c, v) in [cov, inner, view, n].into_iter().enumerate() {
            store_output(mb, "i32", 0, 0, c as i64, v);
        }
        store_output(mb, "f32", 3, 0, 0, x);
        store_output(mb, "f32", 1, 0, 0, y);
        store_output(mb, "i32", 4, 0, 0, cov);
    })
    .unwrap();
    let made: Vec<(&str, SysValue, u32, u32)> = s
        .inputs
        .iter()
        .skip(7)
        .map(|e| (e.semantic.as_str(), e.sv, e.register, e.slot))
        .collect();
    assert_eq!(
        made,
        [
            ("SV_Coverage", SysValue::Coverage, NO_REGISTER, 24),
            ("SV_InnerCoverage", SysValue::InnerCoverage, NO_REGISTER, 28),
            ("SV_ViewID", SysValue::ViewId, NO_REGISTER, 32),
        ]
    );
    assert_eq!(s.input_words, 36);
    let (out, _) = run_quad(
        &s,
        |l, w| match w {
            20 => l as u32,
            24 => 0b1111 >> l,
            28 => u32::from(l == 0),
            32 => 9,
            _ => 0,
        },
        0,
        Some(&Asked),
    );
    for l in 0..4 {
        let o = |w: usize| out[w * 4 + l];
        assert_eq!(
            [o(0), o(1), o(2), o(3)],
            [0b1111 >> l, u32::from(l == 0), 9, 4]
        );
        let want = Asked.sample_position(l as u32);
        assert_eq!(
            [f32::from_bits(o(8)), f32::from_bits(o(4))],
            want,
            "sample {l}"
        );
        assert_eq!(o(12), 0b1111 >> l, "SV_Coverage out");
    }
}

/// D3D's discard demotes (HLSL SM 6.6 "IsHelperLane": helper lanes include discarded
/// pixels): the discarded lanes are reported killed but run on, so a derivative taken
/// after the discard still sees their values, and `IsHelperLane` is true in them.
#[test]
fn discard_demotes_to_a_helper_lane() {
    let s = pixel_program(|mb| {
        let (f32t, i1t, i32t) = (mb.t(Type::Float), mb.int(1), mb.int(32));
        let zero = mb.ci(32, 0);
        let x = load_input(mb, f32t, "f32", 0, zero, 0);
        let half = mb.c(f32t, Constant::Float(u64::from(0.5f32.to_bits())));
        let c = mb.push(
            InstKind::Cmp {
                pred: Predicate(2), // fcmp ogt
                lhs: x,
                rhs: half,
                flags: 0,
            },
            i1t,
        );
        let void = mb.void();
        mb.dx("discard", DxOp::Discard, &[c], void);
        let y = mb.bin(BinOp::Mul, x, x, f32t);
        let d = mb.dx("unary.f32", DxOp::DerivFineX, &[y], f32t); // DerivFineX
        let h = mb.dx("isHelperLane.i1", DxOp::IsHelperLane, &[], i1t);
        let hz = mb.cast(CastOp::ZExt, h, i32t);
        store_output(mb, "f32", 0, 0, 0, d);
        store_output(mb, "i32", 0, 0, 1, hz);
    })
    .unwrap();
    assert!(
        s.insts.iter().any(|i| matches!(i, Inst::Demote { .. })),
        "{s}"
    );
    let (out, run) = run_quad(
        &s,
        |l, w| if w == 0 { (l as f32).to_bits() } else { 0 },
        0,
        None,
    );
    assert_eq!(run.killed, 0b1110, "x > 0.5 in lanes 1, 2, 3");
    // Lane 0 (top-left): d/dx of x² across the top row is 1² − 0² = 1.
    assert_eq!(f32::from_bits(out[0]), 1.0);
    assert_eq!(out[4], 0, "lane 0 is not a helper");
}

/// A pixel program that discards where its input `K` (word 13) is above 35, then writes
/// to `SV_Target`: `WaveActiveBallot(true).x`, `WaveActiveSum(K)`, `WavePrefixSum(K)`
/// and `WaveReadLaneFirst(K) · 256 + WaveActiveCountBits(true) · 16 +
/// WaveIsFirstLane()`; with `[WaveOpsIncludeHelperLanes]` when `include` (dxc's
/// `"waveops-include-helper-lanes"` function attribute).
fn wave_ops_over_helpers_program(include: bool) -> Shader {
    let mut mb = Mb::new(DL32);
    mb.block();
    let (i32t, i1t) = (mb.int(32), mb.int(1));
    let zero = mb.ci(32, 0);
    let k = load_input(&mut mb, i32t, "i32", 4, zero, 0);
    let limit = mb.ci(32, 35);
    let over = mb.icmp(34, k, limit); // ugt
    let void = mb.void();
    mb.dx("discard", DxOp::Discard, &[over], void);
    let yes = mb.ci(1, 1);
    let four = mb.named("dx.types.fouri32", vec![i32t, i32t, i32t, i32t]);
    let ballot = mb.dx("waveActiveBallot", DxOp::WaveActiveBallot, &[yes], four);
    let ballot = mb.extract_value(ballot, 0, i32t);
    let (sum_op, unsigned) = (mb.ci(8, 0), mb.ci(8, 1));
    let sum = mb.dx(
        "waveActiveOp.i32",
        DxOp::WaveActiveOp,
        &[k, sum_op, unsigned],
        i32t,
    );
    let prefix = mb.dx(
        "wavePrefixOp.i32",
        DxOp::WavePrefixOp,
        &[k, sum_op, unsigned],
        i32t,
    );
    let first_k = mb.dx("waveReadLaneFirst.i32", DxOp::WaveReadLaneFirst, &[k], i32t);
    let count = mb.dx("waveAllOp", DxOp::WaveAllBitCount, &[yes], i32t);
    let is_first = mb.dx("waveIsFirstLane", DxOp::WaveIsFirstLane, &[], i1t);
    let is_first = mb.cast(CastOp::ZExt, is_first, i32t);
    let (c256, c16) = (mb.ci(32, 256), mb.ci(32, 16));
    let a = mb.bin(BinOp::Mul, first_k, c256, i32t);
    let b = mb.bin(BinOp::Mul, count, c16, i32t);
    let ab = mb.bin(BinOp::Add, a, b, i32t);
    let packed = mb.bin(BinOp::Add, ab, is_first, i32t);
    for (col, v) in [ballot, sum, prefix, packed].into_iter().enumerate() {
        store_output(&mut mb, "i32", 0, 0, col as i64, v);
    }
    mb.ret();
    let (mut m, fi) = mb.finish();
    if include {
        use crate::dxil::llvm::{Attribute, AttributeGroup, AttributeList};
        let id = m
            .attribute_groups
            .iter()
            .map(|g| g.id + 1)
            .max()
            .unwrap_or(1);
        m.attribute_groups.push(AttributeGroup {
            id,
            slot: u32::MAX,
            attrs: vec![Attribute::String(
                "waveops-include-helper-lanes".into(),
                None,
            )],
        });
        m.attribute_lists.push(AttributeList { groups: vec![id] });
        m.functions[fi].attributes = m.attribute_lists.len() as u32;
    }
    lower_stage(&m, fi, Stage::Pixel, &pixel_sigs()).unwrap()
}

/// HLSL SM 6.7 "Helper Lanes in Wave Ops Mode": with `[WaveOpsIncludeHelperLanes]` wave
/// operations count helper lanes as active; without it they take no part (SM 6.0 wave
/// intrinsics: helper lanes are inactive lanes). A quad whose lane 0 is outside the
/// triangle (a helper lane from the start, as at a triangle's edge) and whose lane 3
/// discards (K = 40 > 35: demoted to a helper), K = 10, 20, 30, 40 in lanes 0–3:
/// - without the attribute the wave is lanes 1 and 2: ballot 0b0110, sum 20 + 30 = 50,
///   prefix sums 0 and 20 (the helpers get the identity 0), the first lane 1 reads 20,
///   the count is 2;
/// - with it all four lanes take part: ballot 0b1111, sum 100, prefix sums 0, 10, 30,
///   60, the first lane 0 reads 10, the count is 4.
///
/// Helper lanes get the results too (their outputs are dropped by the pipeline).
#[test]
fn wave_ops_include_helper_lanes_only_with_the_attribute() {
    let k = [10u32, 20, 30, 40];
    for (include, ballot, sum, prefix, packed) in [
        (
            false,
            0b0110,
            50,
            [0, 0, 20, 0],
            [
                20 * 256 + 32,
                20 * 256 + 32 + 1,
                20 * 256 + 32,
                20 * 256 + 32,
            ],
        ),
        (
            true,
            0b1111,
            100,
            [0, 10, 30, 60],
            [
                10 * 256 + 64 + 1,
                10 * 256 + 64,
                10 * 256 + 64,
                10 * 256 + 64,
            ],
        ),
    ] {
        let s = wave_ops_over_helpers_program(include);
        assert_eq!(s.wave_ops_include_helpers, include, "{s}");
        let (out, run) = run_quad(&s, |l, w| if w == 13 { k[l] } else { 0 }, 0b0001, None);
        assert_eq!(run.killed, 0b1000, "lane 3 discards");
        for l in 0..4 {
            let o = |word: usize| out[word * 4 + l];
            assert_eq!(
                [o(0), o(1), o(2), o(3)],
                [ballot, sum, prefix[l], packed[l]],
                "lane {l}, attribute {include}\n{s}"
            );
        }
    }
}

/// The shader's `wave_ops_include_helpers` survives the IR's text form (printed as a
/// header line, parsed back).
#[test]
fn wave_ops_include_helpers_survives_the_ir_text() {
    let s = wave_ops_over_helpers_program(true);
    let text = s.to_string();
    assert!(text.contains("\nwave_ops_include_helpers\n"), "{text}");
    let back = crate::ir::parse_shader(&text).unwrap();
    assert!(back.wave_ops_include_helpers);
    let plain = wave_ops_over_helpers_program(false).to_string();
    assert!(!plain.contains("wave_ops_include_helpers"), "{plain}");
}

/// An early depth-stencil program says so with shader flag bit 3
/// (`ShaderFlags::m_bForceEarlyDepthStencil`, DXIL entry property 0).
#[test]
fn early_depth_stencil_is_shader_flag_3() {
    use crate::dxil::meta::{EntryPoint, Property};
    let entry = |props: Vec<(u32, Property)>| EntryPoint {
        function: None,
        function_name: None,
        name: "main".into(),
        signatures: None,
        resources: None,
        properties: props,
        fp32_denorm_mode: None,
    };
    assert!(early_depth_stencil(&entry(vec![(0, Property::Flags(0x8))])));
    assert!(early_depth_stencil(&entry(vec![(
        0,
        Property::Flags(0x1_0008)
    )])));
    assert!(!early_depth_stencil(&entry(vec![(
        0,
        Property::Flags(0x400)
    )])));
    assert!(!early_depth_stencil(&entry(Vec::new())));
}

/// SM 6.8's `StartVertexLocation` and `StartInstanceLocation` (vertex programs) read
/// elements of their own, as `ViewID` does.
#[test]
fn start_locations() {
    let mut mb = Mb::new(DL32);
    mb.block();
    let i32t = mb.int(32);
    let sv = mb.dx(
        "startVertexLocation.i32",
        DxOp::StartVertexLocation,
        &[],
        i32t,
    );
    let si = mb.dx(
        "startInstanceLocation.i32",
        DxOp::StartInstanceLocation,
        &[],
        i32t,
    );
    store_output(&mut mb, "i32", 0, 0, 0, sv);
    store_output(&mut mb, "i32", 0, 0, 1, si);
    mb.ret();
    let (m, fi) = mb.finish();
    let sigs = Signatures {
        outputs: vec![sig(0, "OUT", 5, 0, 0, 1, 2, (0, 0))],
        ..Signatures::default()
    };
    let s = lower_stage(&m, fi, Stage::Vertex, &sigs).unwrap();
    let svs: Vec<(SysValue, u32)> = s.inputs.iter().map(|e| (e.sv, e.slot)).collect();
    assert_eq!(
        svs,
        [
            (SysValue::StartVertexLocation, 0),
            (SysValue::StartInstanceLocation, 4)
        ]
    );
    let (out, _) = run_quad(&s, |_, w| 40 + w, 0, None);
    assert_eq!((out[0], out[4]), (40, 44));
}

/// Operations outside their stage, and signature accesses the signature does not allow,
/// are refused naming the operation and where it is.
#[test]
fn stage_operations_are_checked() {
    let vertex = |body: &dyn Fn(&mut Mb)| {
        let mut mb = Mb::new(DL32);
        mb.block();
        body(&mut mb);
        mb.ret();
        let (m, fi) = mb.finish();
        let sigs = Signatures {
            outputs: vec![sig(0, "OUT", 9, 0, 0, 1, 1, (0, 0))],
            ..Signatures::default()
        };
        lower_stage(&m, fi, Stage::Vertex, &sigs)
    };
    let msg = |r: Result<Shader, LowerError>| r.unwrap_err().to_string();
    let e = msg(vertex(&|mb| {
        let t = mb.ci(1, 1);
        let void = mb.void();
        mb.dx("discard", DxOp::Discard, &[t], void);
    }));
    assert!(
        e.contains("dx.op Discard in a vertex shader") && e.contains("instruction 0"),
        "{e}"
    );
    let e = msg(vertex(&|mb| {
        let f32t = mb.t(Type::Float);
        let one = mb.c(f32t, Constant::Float(u64::from(1.0f32.to_bits())));
        let d = mb.dx("unary.f32", DxOp::DerivCoarseX, &[one], f32t);
        store_output(mb, "f32", 0, 0, 0, d);
    }));
    assert!(e.contains("DerivCoarseX in a vertex shader"), "{e}");
    // Hull, domain and geometry programs have no quads either (DXC's stage masks of
    // the derivative operations: pixel, compute, mesh, amplification, node).
    for stage in [Stage::Hull, Stage::Domain, Stage::Geometry] {
        let mut mb = Mb::new(DL32);
        mb.block();
        let f32t = mb.t(Type::Float);
        let one = mb.c(f32t, Constant::Float(u64::from(1.0f32.to_bits())));
        let d = mb.dx("unary.f32", DxOp::DerivCoarseX, &[one], f32t);
        store_output(&mut mb, "f32", 0, 0, 0, d);
        mb.ret();
        let (m, fi) = mb.finish();
        let sigs = Signatures {
            outputs: vec![sig(0, "OUT", 9, 0, 0, 1, 1, (0, 0))],
            ..Signatures::default()
        };
        let e = msg(lower_stage(&m, fi, stage, &sigs));
        assert!(
            e.contains(&format!("DerivCoarseX in a {stage} shader")),
            "{e}"
        );
    }
    let e = msg(pixel_program(|mb| {
        let i32t = mb.int(32);
        let z = mb.ci(32, 0);
        let t = mb.dx("threadId.i32", DxOp::ThreadId, &[z], i32t);
        store_output(mb, "i32", 0, 0, 0, t);
    }));
    assert!(e.contains("ThreadId in a pixel shader"), "{e}");
    let e = msg(pixel_program(|mb| {
        let f32t = mb.t(Type::Float);
        let z = mb.ci(32, 0);
        let x = load_input(mb, f32t, "f32", 9, z, 0);
        store_output(mb, "f32", 0, 0, 0, x);
    }));
    assert!(
        e.contains("LoadInput of input element 9, which the signature does not declare"),
        "{e}"
    );
    let e = msg(pixel_program(|mb| {
        let f32t = mb.t(Type::Float);
        let z = mb.ci(32, 0);
        let x = load_input(mb, f32t, "f32", 1, z, 2);
        store_output(mb, "f32", 0, 0, 0, x);
    }));
    assert!(
        e.contains("column 2 of input element 1 (TEXCOORD0), which has 2"),
        "{e}"
    );
    let e = msg(pixel_program(|mb| {
        let f32t = mb.t(Type::Float);
        let two = mb.ci(32, 2);
        let x = load_input(mb, f32t, "f32", 1, two, 0);
        store_output(mb, "f32", 0, 0, 0, x);
    }));
    assert!(e.contains("row 2 of an element of 2 rows"), "{e}");
}

// ---- wave, pack and unpack operations through the interpreter ---------------------------

/// Lowers a hand-built module (u0 raw, see [`lower_test`]) as a group of 8 threads and
/// dispatches it on the interpreter with waves of 8; returns u0's words.
fn dispatch8(m: &Module, fi: usize, words_out: usize) -> Vec<u32> {
    use crate::pipeline::{Bindings, Plan, dispatch};
    use crate::resources::{BufferKind, BufferView, Descriptor, Memory};
    let mut s = lower_test(m, fi).unwrap();
    s.thread_group = [8, 1, 1];
    crate::ir::validate(&s).unwrap();
    let out = Memory::zeroed(4 * words_out as u64).unwrap();
    let b = Bindings {
        ranges: vec![
            vec![Descriptor::Buffer {
                view: BufferView::whole(out.clone(), BufferKind::Raw),
                counter: None,
            }],
            vec![Descriptor::ConstantBuffer {
                memory: Memory::zeroed(64).unwrap(),
                offset: 0,
                size: 64,
            }],
        ],
        ..Bindings::default()
    };
    let o = Plan {
        wave_size: Some(8),
        threads: 1,
        ..Plan::default()
    };
    dispatch(&s, &b, [1, 1, 1], &o, None).unwrap_or_else(|e| panic!("{e}\n{s}"));
    words(&out.to_bytes())
}

/// A module whose lanes 2..8 run `body` (lanes 0 and 1 take the other branch, so the
/// partition masks below name inactive lanes); `body` gets the lane index and returns the
/// words to store, lane `l`'s word `k` at u0 word `8k + l`.
fn lanes_2_to_8(
    dl: &str,
    body: impl FnOnce(&mut Mb, ValueId) -> Vec<ValueId>,
) -> (Module, usize, usize) {
    let mut mb = Mb::new(dl);
    let i32t = mb.int(32);
    mb.block(); // 0
    let h = mb.handle(1, 0, 0);
    let lane = mb.dx("waveGetLaneIndex", DxOp::WaveGetLaneIndex, &[], i32t);
    let two = mb.ci(32, 2);
    let active = mb.icmp(35, lane, two); // uge
    let (b1, b2) = (LBlock(1), LBlock(2));
    mb.cond_br(active, b1, b2);
    mb.block(); // 1
    let outs = body(&mut mb, lane);
    let n = outs.len();
    for (k, v) in outs.into_iter().enumerate() {
        let base = mb.ci(32, 32 * k as i64);
        let four = mb.ci(32, 4);
        let off = mb.bin(BinOp::Mul, lane, four, i32t);
        let addr = mb.bin(BinOp::Add, base, off, i32t);
        mb.store_word(h, addr, v);
    }
    mb.br(b2);
    mb.block(); // 2
    mb.ret();
    let (m, fi) = mb.finish();
    (m, fi, n)
}

/// Lane `l`'s words `k = 0..n` from a run's u0.
fn per_lane(w: &[u32], lane: usize, n: usize) -> Vec<u32> {
    (0..n).map(|k| w[8 * k + lane]).collect()
}

/// `WaveMultiPrefixOp` with every `WaveMultiPrefixOpKind` (DXC `DxilConstants.h`: Sum 0,
/// And 1, Or 2, Xor 3, Product 4 — not `WaveOpKind`'s order) and both `SignedOpKind`s,
/// over partitions 0x55 (even lanes) and 0xaa (odd lanes) that name the inactive lanes 0
/// and 1: the exclusive prefix covers only active lanes below in the same partition
/// (DXIL.rst "WaveMultiPrefixOp"). Values are 3·lane − 5; the expected words were worked
/// out by hand: even lanes 2, 4, 6 hold 1, 7, 13; odd lanes 3, 5, 7 hold 4, 10, 16.
#[test]
fn wave_multi_prefix_every_kind() {
    let (m, fi, n) = lanes_2_to_8(DL32, |mb, lane| {
        let i32t = mb.int(32);
        let i8t = mb.int(8);
        let (three, five) = (mb.ci(32, 3), mb.ci(32, 5));
        let t = mb.bin(BinOp::Mul, lane, three, i32t);
        let v = mb.bin(BinOp::Sub, t, five, i32t);
        let one = mb.ci(32, 1);
        let odd = mb.bin(BinOp::And, lane, one, i32t);
        let (even_mask, shift) = (mb.ci(32, 0x55), one);
        let m0 = mb.bin(BinOp::Shl, even_mask, odd, i32t);
        let _ = shift;
        let zero = mb.ci(32, 0);
        let mut outs = Vec::new();
        for kind in 0..5 {
            for sign in 0..2 {
                let (k, s) = (mb.ci(8, kind), mb.ci(8, sign));
                let _ = i8t;
                outs.push(mb.dx(
                    "waveMultiPrefixOp.i32",
                    DxOp::WaveMultiPrefixOp,
                    &[v, m0, zero, zero, zero, k, s],
                    i32t,
                ));
            }
        }
        // Float sums and products over the same partitions.
        let f32t = mb.t(Type::Float);
        let fv = mb.cast(CastOp::SiToFp, v, f32t);
        for kind in [0, 4] {
            let (k, s) = (mb.ci(8, kind), mb.ci(8, 0));
            let r = mb.dx(
                "waveMultiPrefixOp.f32",
                DxOp::WaveMultiPrefixOp,
                &[fv, m0, zero, zero, zero, k, s],
                f32t,
            );
            outs.push(mb.cast(CastOp::FpToSi, r, i32t));
        }
        // WaveMultiPrefixBitCount of (v & 1) over one partition of all eight lanes.
        let all = mb.ci(32, 0xff);
        let bit = mb.bin(BinOp::And, v, one, i32t);
        let set = mb.icmp(33, bit, zero); // ne
        outs.push(mb.dx(
            "waveMultiPrefixBitCount",
            DxOp::WaveMultiPrefixBitCount,
            &[set, all, zero, zero, zero],
            i32t,
        ));
        outs
    });
    let w = dispatch8(&m, fi, 8 * n);
    let ones = u32::MAX;
    // Sum, And, Or, Xor, Product (each twice: signed, unsigned), f32 sum and product,
    // bit count.
    let want: [(usize, [u32; 13]); 6] = [
        (2, [0, 0, ones, ones, 0, 0, 0, 0, 1, 1, 0, 1, 0]),
        (3, [0, 0, ones, ones, 0, 0, 0, 0, 1, 1, 0, 1, 1]),
        (4, [1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1, 1]),
        (5, [4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 4, 2]),
        (6, [8, 8, 1, 1, 7, 7, 6, 6, 7, 7, 8, 7, 2]),
        (7, [14, 14, 0, 0, 14, 14, 14, 14, 40, 40, 14, 40, 3]),
    ];
    for (lane, expected) in want {
        assert_eq!(per_lane(&w, lane, n), expected, "lane {lane}");
    }
    for lane in [0, 1] {
        assert_eq!(per_lane(&w, lane, n), vec![0; n], "inactive lane {lane}");
    }
}

/// `WaveMatch` on every overload it has (DXIL.rst: half, float, double, i16, i32, i64):
/// per lane, the mask of active lanes holding the same value. Lanes 2..8 hold lane % 3
/// (2 0 1 2 0 1), so lanes 2 and 5 match (0x24), 3 and 6 (0x48), 4 and 7 (0x90); the
/// inactive lanes 0 and 1 (values 0 and 1) are in no mask.
#[test]
fn wave_match_every_type() {
    let (m, fi, n) = lanes_2_to_8(DL16, |mb, lane| {
        let i32t = mb.int(32);
        let three = mb.ci(32, 3);
        let r = mb.bin(BinOp::URem, lane, three, i32t);
        let i16t = mb.int(16);
        let i64t = mb.int(64);
        let (ht, ft, dt) = (mb.t(Type::Half), mb.t(Type::Float), mb.t(Type::Double));
        let vals = [
            ("i32", r),
            ("i16", mb.cast(CastOp::Trunc, r, i16t)),
            ("i64", mb.cast(CastOp::ZExt, r, i64t)),
            ("f32", mb.cast(CastOp::UiToFp, r, ft)),
            ("f16", mb.cast(CastOp::UiToFp, r, ht)),
            ("f64", mb.cast(CastOp::UiToFp, r, dt)),
        ];
        let four = mb.named("dx.types.fouri32", vec![i32t, i32t, i32t, i32t]);
        let mut outs = Vec::new();
        for (ty, v) in vals {
            let s = mb.dx(&format!("waveMatch.{ty}"), DxOp::WaveMatch, &[v], four);
            outs.push(mb.push(
                InstKind::ExtractValue {
                    aggregate: s,
                    indices: vec![0],
                },
                i32t,
            ));
        }
        outs
    });
    let w = dispatch8(&m, fi, 8 * n);
    for (lane, mask) in [
        (2, 0x24),
        (3, 0x48),
        (4, 0x90),
        (5, 0x24),
        (6, 0x48),
        (7, 0x90),
    ] {
        assert_eq!(per_lane(&w, lane, n), vec![mask; n], "lane {lane}");
    }
}

/// `WaveMatch` of a vector (SM 6.9, proposal 0030 Appendix 1) on 64-bit and half
/// elements: the AND of the element-wise matches (dxc's lowering of a vector `WaveMatch`
/// before native vectors). Lanes 2..8 hold (l & 1, (l >> 2) & 1): (0,0) (1,0) (0,1) (1,1)
/// (0,1) (1,1), so 2 and 3 are alone (0x04, 0x08), 4 and 6 match (0x50), 5 and 7 (0xa0) —
/// where the first element alone would match all even lanes (0x54).
#[test]
fn wave_match_of_64_bit_and_half_vectors() {
    let (m, fi, n) = lanes_2_to_8(DL16, |mb, lane| {
        let (i32t, i64t, ht) = (mb.int(32), mb.int(64), mb.t(Type::Half));
        let (one, two) = (mb.ci(32, 1), mb.ci(32, 2));
        let a = mb.bin(BinOp::And, lane, one, i32t);
        let b = mb.bin(BinOp::LShr, lane, two, i32t);
        let b = mb.bin(BinOp::And, b, one, i32t);
        let four = mb.named("dx.types.fouri32", vec![i32t, i32t, i32t, i32t]);
        let mut outs = Vec::new();
        for (ty, tag, cast) in [(i64t, "v2i64", CastOp::ZExt), (ht, "v2f16", CastOp::UiToFp)] {
            let vt = mb.vector(2, ty);
            let (x, y) = (mb.cast(cast, a, ty), mb.cast(cast, b, ty));
            let u = mb.undef(vt);
            let (k0, k1) = (mb.ci(32, 0), mb.ci(32, 1));
            let v = mb.insert_element(u, x, k0);
            let v = mb.insert_element(v, y, k1);
            let s = mb.dx(&format!("waveMatch.{tag}"), DxOp::WaveMatch, &[v], four);
            outs.push(mb.extract_value(s, 0, i32t));
        }
        outs
    });
    let w = dispatch8(&m, fi, 8 * n);
    for (lane, mask) in [
        (2, 0x04),
        (3, 0x08),
        (4, 0x50),
        (5, 0xa0),
        (6, 0x50),
        (7, 0xa0),
    ] {
        assert_eq!(per_lane(&w, lane, n), vec![mask; n], "lane {lane}");
    }
}

/// SM 6.6 `Unpack4x8` into `%dx.types.fouri16` and `Pack4x8` from 16-bit inputs
/// (DXIL.rst ops 219 and 220; DXC `hctdb.py`: unpackMode 0 unsigned, 1 signed; packMode 0
/// truncates, 1 clamps to [0, 255], 2 to [−128, 127]; HLSL `unpack_s8s16`,
/// `unpack_u8u16`, `pack_u8`, `pack_s8`, `pack_clamp_u8`, `pack_clamp_s8`). 16-bit
/// results are stored zero-extended. The packed word 0x80ff7f01 unpacks to 1, 127, −1,
/// −128 signed and 1, 127, 255, 128 unsigned; the 16-bit values 300, −3, 127, −200 pack
/// to 0x38 7f fd 2c truncated, 0x00 7f 00 ff clamped unsigned and 0x80 7f fd 7f clamped
/// signed (bytes w z y x).
#[test]
fn pack_and_unpack_16_bit() {
    let (m, fi, n) = lanes_2_to_8(DL16, |mb, _lane| {
        let i32t = mb.int(32);
        let i16t = mb.int(16);
        let four16 = mb.named("dx.types.fouri16", vec![i16t, i16t, i16t, i16t]);
        let packed = mb.ci(32, 0x80ff_7f01u32 as i64);
        let mut outs = Vec::new();
        for mode in [1, 0] {
            let md = mb.ci(8, mode);
            let u = mb.dx("unpack4x8.i16", DxOp::Unpack4x8, &[md, packed], four16);
            for k in 0..4 {
                let e = mb.push(
                    InstKind::ExtractValue {
                        aggregate: u,
                        indices: vec![k],
                    },
                    i16t,
                );
                outs.push(mb.cast(CastOp::ZExt, e, i32t));
            }
        }
        let vals: Vec<ValueId> = [300i64, -3, 127, -200]
            .iter()
            .map(|v| {
                let t = mb.int(16);
                mb.c(t, Constant::Int(*v))
            })
            .collect();
        for mode in [0, 1, 2] {
            let md = mb.ci(8, mode);
            outs.push(mb.dx(
                "pack4x8.i16",
                DxOp::Pack4x8,
                &[md, vals[0], vals[1], vals[2], vals[3]],
                i32t,
            ));
        }
        outs
    });
    let w = dispatch8(&m, fi, 8 * n);
    assert_eq!(
        per_lane(&w, 4, n),
        vec![
            1,
            127,
            0xffff,
            0xff80, // signed, as 16-bit words
            1,
            127,
            255,
            128, // unsigned
            0x387f_fd2c,
            0x007f_00ff,
            0x807f_fd7f,
        ]
    );
}

/// DXIL `LegacyF32ToF16` (op 130) end to end through the lowering and the interpreter,
/// with seed `000_…`'s values observed on WARP through Direct3D 12 ("Converting a float
/// to a half"): toward zero, 1 + 0x1fff·2⁻²³ → 0x3c00 and its negative 0xbc00, 65520
/// and 1e10 → 0x7bff, −65520 → 0xfbff, 1e-5 → the denormal 167·2⁻²⁴, the NaN 0x7fc00000
/// → 0x7fff; and an infinity stays one, 0x7c00 (DESIGN, "WARP-faithful semantics").
#[test]
fn legacy_f32_to_f16_runs_as_warp_rounds() {
    let cases: [(u32, u32); 8] = [
        (0x3f80_1fff, 0x3c00),
        (0xbf80_1fff, 0xbc00),
        (65520f32.to_bits(), 0x7bff),
        (1e10f32.to_bits(), 0x7bff),
        ((-65520f32).to_bits(), 0xfbff),
        (1e-5f32.to_bits(), 167),
        (0x7fc0_0000, 0x7fff),
        (f32::INFINITY.to_bits(), 0x7c00),
    ];
    let (m, fi, n) = lanes_2_to_8(DL32, |mb, _lane| {
        let i32t = mb.int(32);
        let f32t = mb.t(Type::Float);
        cases
            .iter()
            .map(|(bits, _)| {
                let v = mb.c(f32t, Constant::Float(u64::from(*bits)));
                mb.dx("legacyF32ToF16", DxOp::LegacyF32ToF16, &[v], i32t)
            })
            .collect()
    });
    let w = dispatch8(&m, fi, 8 * n);
    let want: Vec<u32> = cases.iter().map(|(_, h)| *h).collect();
    assert_eq!(per_lane(&w, 3, n), want);
}

// ---- inline ray queries through a hand-built module -----------------------------------

/// A compute module of 8 threads: thread `l` traces one ray from
/// (0.125 + 0.25·(l & 3), 0.25 + 0.5·(l >> 2), 0) along +z (t from 0 to 100) through
/// t0 with ray flags `1 << (l + shift)` and mask 0xff, commits every non-opaque triangle
/// it is offered, and writes the committed status, `CommittedRayT()`, primitive index,
/// instance index and both barycentrics to u0 word `8k + l` (k = 0..6).
fn ray_query_module(shift: i64) -> (Module, usize) {
    let mut mb = Mb::new(DL32);
    let i32t = mb.int(32);
    let i1t = mb.int(1);
    let f32t = mb.t(Type::Float);
    let void = mb.void();
    let fc = |mb: &mut Mb, x: f32| mb.c(f32t, Constant::Float(u64::from(x.to_bits())));
    mb.block(); // 0
    let out = mb.handle(1, 0, 0);
    let scene = mb.handle(0, 0, 0);
    let zero = mb.ci(32, 0);
    let lane = mb.dx("threadId.i32", DxOp::ThreadId, &[zero], i32t);
    let three = mb.ci(32, 3);
    let two = mb.ci(32, 2);
    let col = mb.bin(BinOp::And, lane, three, i32t);
    let row = mb.bin(BinOp::LShr, lane, two, i32t);
    let fx = mb.cast(CastOp::UiToFp, col, f32t);
    let fy = mb.cast(CastOp::UiToFp, row, f32t);
    let (quarter, eighth, half) = (fc(&mut mb, 0.25), fc(&mut mb, 0.125), fc(&mut mb, 0.5));
    let sx = mb.bin(BinOp::Mul, fx, quarter, f32t);
    let ox = mb.bin(BinOp::Add, sx, eighth, f32t);
    let sy = mb.bin(BinOp::Mul, fy, half, f32t);
    let oy = mb.bin(BinOp::Add, sy, quarter, f32t);
    let one = mb.ci(32, 1);
    let sh = mb.ci(32, shift);
    let bit = mb.bin(BinOp::Add, lane, sh, i32t);
    let flags = mb.bin(BinOp::Shl, one, bit, i32t);
    let rq = mb.dx("allocateRayQuery", DxOp::AllocateRayQuery, &[zero], i32t);
    let mask = mb.ci(32, 0xff);
    let (fz, fone, tmax) = (fc(&mut mb, 0.0), fc(&mut mb, 1.0), fc(&mut mb, 100.0));
    mb.dx(
        "rayQuery_TraceRayInline",
        DxOp::RayQuery_TraceRayInline,
        &[rq, scene, flags, mask, ox, oy, fz, fz, fz, fz, fone, tmax],
        void,
    );
    mb.br(LBlock(1));
    mb.block(); // 1
    let p = mb.dx("rayQuery_Proceed.i1", DxOp::RayQuery_Proceed, &[rq], i1t);
    mb.cond_br(p, LBlock(2), LBlock(3));
    mb.block(); // 2
    mb.dx(
        "rayQuery_CommitNonOpaqueTriangleHit",
        DxOp::RayQuery_CommitNonOpaqueTriangleHit,
        &[rq],
        void,
    );
    mb.br(LBlock(1));
    mb.block(); // 3
    let status = mb.dx(
        "rayQuery_StateScalar.i32",
        DxOp::RayQuery_CommittedStatus,
        &[rq],
        i32t,
    );
    let t = mb.dx(
        "rayQuery_StateScalar.f32",
        DxOp::RayQuery_CommittedRayT,
        &[rq],
        f32t,
    );
    let prim = mb.dx(
        "rayQuery_StateScalar.i32",
        DxOp::RayQuery_CommittedPrimitiveIndex,
        &[rq],
        i32t,
    );
    let inst = mb.dx(
        "rayQuery_StateScalar.i32",
        DxOp::RayQuery_CommittedInstanceIndex,
        &[rq],
        i32t,
    );
    let (c0, c1) = (mb.ci(8, 0), mb.ci(8, 1));
    let bx = mb.dx(
        "rayQuery_StateVector.f32",
        DxOp::RayQuery_CommittedTriangleBarycentrics,
        &[rq, c0],
        f32t,
    );
    let by = mb.dx(
        "rayQuery_StateVector.f32",
        DxOp::RayQuery_CommittedTriangleBarycentrics,
        &[rq, c1],
        f32t,
    );
    let outs = [status, t, prim, inst, bx, by];
    for (k, v) in outs.into_iter().enumerate() {
        let v = if k == 1 || k >= 4 {
            mb.cast(CastOp::BitCast, v, i32t)
        } else {
            v
        };
        let base = mb.ci(32, 32 * k as i64);
        let four = mb.ci(32, 4);
        let off = mb.bin(BinOp::Mul, lane, four, i32t);
        let addr = mb.bin(BinOp::Add, base, off, i32t);
        mb.store_word(out, addr, v);
    }
    mb.ret();
    mb.finish()
}

/// DXR's inline ray query through a hand-built module, lowered and dispatched on the
/// interpreter over a top-level structure of two instances of the unit square's two
/// triangles (one non-opaque at z = 5, one opaque and mirrored at z = 3 with
/// `TRIANGLE_CULL_DISABLE`); every ray flag reaches the query through the program's
/// dynamic flags (bits 0–9 across the two shifts), and each lane's words equal
/// `raytracing::RayQuery`'s answers for the same ray and flags (DXR spec "RayQuery
/// intrinsics", "Ray flags").
#[test]
fn ray_query_module_matches_the_traversal() {
    use crate::pipeline::{Bindings, Plan, dispatch};
    use crate::raytracing::{
        BottomLevel, BuildOptions, Geometry, GeometryDesc, GeometryFlags, IndexFormat,
        InstanceDesc, InstanceFlags, Ray, RayFlags, RayQuery, TopLevel, Transform3x4,
        TrianglesDesc, VertexFormat,
    };
    use crate::resources::{AccelerationStructure, BufferKind, BufferView, Descriptor, Memory};
    use std::sync::Arc;
    let v: Vec<u8> = [0f32, 0., 0., 1., 0., 0., 0., 1., 0., 1., 1., 0.]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let ix: Vec<u8> = [0u32, 1, 2, 1, 3, 2]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let blas = |flags| {
        Arc::new(
            BottomLevel::build(
                &[GeometryDesc {
                    flags,
                    geometry: Geometry::Triangles(TrianglesDesc {
                        transform: None,
                        index_format: IndexFormat::R32_UINT,
                        index_count: 6,
                        indices: &ix,
                        vertex_format: VertexFormat::R32G32B32_FLOAT,
                        vertex_count: 4,
                        vertices: &v,
                        vertex_stride: 12,
                    }),
                }],
                &BuildOptions::default(),
            )
            .unwrap(),
        )
    };
    // The near instance covers only x <= 0.5 of the square (mirrored, half width).
    let near = Transform3x4([-0.5, 0., 0., 0.5, 0., 1., 0., 0., 0., 0., 1., 3.]);
    let mut far = Transform3x4::IDENTITY;
    far.0[11] = 5.0;
    let tlas = Arc::new(
        TopLevel::build(
            &[
                InstanceDesc {
                    transform: far,
                    instance_id: 1,
                    instance_mask: 0xff,
                    contribution_to_hit_group_index: 0,
                    flags: InstanceFlags::NONE,
                    blas: Some(blas(GeometryFlags::NONE)),
                },
                InstanceDesc {
                    transform: near,
                    instance_id: 2,
                    instance_mask: 0xff,
                    contribution_to_hit_group_index: 0,
                    flags: InstanceFlags::TRIANGLE_CULL_DISABLE,
                    blas: Some(blas(GeometryFlags::OPAQUE)),
                },
            ],
            &BuildOptions::default(),
        )
        .unwrap(),
    );
    let mut hits = 0;
    for shift in [0, 2] {
        let (m, fi) = ray_query_module(shift);
        let mut b = Builder::new(Stage::Compute);
        let mut ranges = Vec::new();
        for (class, kind) in [
            (ResourceClass::Uav, ResourceKind::RawBuffer),
            (ResourceClass::Srv, ResourceKind::AccelerationStructure),
        ] {
            b.shader_mut().resources.push(ResourceRange {
                class,
                space: 0,
                lower: 0,
                count: 1,
                kind,
                component: ComponentType::Mixed,
                name: String::new(),
                counter: false,
                globally_coherent: false,
                rasterizer_ordered: false,
            });
            ranges.push(Range {
                class,
                id: 0,
                symbol: None,
                handle: HandleKind {
                    kind,
                    component: ComponentType::Mixed,
                },
            });
        }
        let mut s = lower_entry(&m, fi, b, ranges, stage::Io::compute(), None).unwrap();
        s.thread_group = [8, 1, 1];
        crate::ir::validate(&s).unwrap();
        let out = Memory::zeroed(4 * 48).unwrap();
        let bindings = Bindings {
            ranges: vec![
                vec![Descriptor::Buffer {
                    view: BufferView::whole(out.clone(), BufferKind::Raw),
                    counter: None,
                }],
                vec![Descriptor::AccelerationStructure(AccelerationStructure(
                    tlas.clone(),
                ))],
            ],
            ..Bindings::default()
        };
        let plan = Plan {
            wave_size: Some(8),
            threads: 1,
            ..Plan::default()
        };
        dispatch(&s, &bindings, [1, 1, 1], &plan, None).unwrap_or_else(|e| panic!("{e}\n{s}"));
        let w = words(&out.to_bytes());
        for l in 0..8u32 {
            let flags = 1u32 << (l + shift as u32);
            let mut q = RayQuery::new();
            let o = [
                0.125 + 0.25 * (l & 3) as f32,
                0.25 + 0.5 * (l >> 2) as f32,
                0.0,
            ];
            q.trace_ray_inline(
                Some(tlas.clone()),
                RayFlags(flags),
                0xff,
                Ray {
                    origin: o,
                    t_min: 0.0,
                    direction: [0.0, 0.0, 1.0],
                    t_max: 100.0,
                },
            );
            while q.proceed() {
                q.commit_non_opaque_triangle_hit();
            }
            let h = q.committed();
            let want = [
                q.committed_status() as u32,
                q.committed_ray_t().to_bits(),
                h.map_or(0, |h| h.primitive_index),
                h.map_or(0, |h| h.instance_index),
                h.map_or(0, |h| h.barycentrics[0].to_bits()),
                h.map_or(0, |h| h.barycentrics[1].to_bits()),
            ];
            let got: Vec<u32> = (0..6).map(|k| w[8 * k + l as usize]).collect();
            assert_eq!(got, want, "lane {l}, flags {flags:#x}");
            hits += usize::from(want[0] != 0);
        }
    }
    // Some flags cull or skip everything (SKIP_TRIANGLES, CULL_OPAQUE on the near
    // instance...), others hit: both kinds of answer are compared.
    assert!(hits > 0 && hits < 16, "{hits} hits");
}

// ---- view instancing: a hand-built DXIL vertex and pixel pair drawn view by view -------

/// A DXIL vertex program: a triangle over the whole viewport from `SV_VertexID` (input
/// element 0: vertex k at (4·(k & 1) − 1, 2·(k & 2) − 1)), output `V` (u32, register 1)
/// = 10 × `ViewID` + 1, and with `rtai = Some(k)` `SV_RenderTargetArrayIndex` = k
/// (register 2).
fn view_vs(rtai: Option<i64>) -> Shader {
    let mut mb = Mb::new(DL32);
    mb.block();
    let (f32t, i32t) = (mb.t(Type::Float), mb.int(32));
    let f = |mb: &mut Mb, v: f32| mb.c(f32t, Constant::Float(u64::from(v.to_bits())));
    let (zero, one, two, ten) = (mb.ci(32, 0), mb.ci(32, 1), mb.ci(32, 2), mb.ci(32, 10));
    let id = load_input(&mut mb, i32t, "i32", 0, zero, 0);
    let view = mb.dx("viewID.i32", DxOp::ViewID, &[], i32t);
    let (f0, f1, f2, f4) = (
        f(&mut mb, 0.0),
        f(&mut mb, 1.0),
        f(&mut mb, 2.0),
        f(&mut mb, 4.0),
    );
    let a = mb.bin(BinOp::And, id, one, i32t);
    let a = mb.cast(CastOp::UiToFp, a, f32t);
    let x = mb.bin(BinOp::Mul, a, f4, f32t);
    let x = mb.bin(BinOp::Sub, x, f1, f32t);
    let b = mb.bin(BinOp::And, id, two, i32t);
    let b = mb.cast(CastOp::UiToFp, b, f32t);
    let y = mb.bin(BinOp::Mul, b, f2, f32t);
    let y = mb.bin(BinOp::Sub, y, f1, f32t);
    for (c, v) in [x, y, f0, f1].into_iter().enumerate() {
        store_output(&mut mb, "f32", 0, 0, c as i64, v);
    }
    let v = mb.bin(BinOp::Mul, view, ten, i32t);
    let v = mb.bin(BinOp::Add, v, one, i32t);
    store_output(&mut mb, "i32", 1, 0, 0, v);
    let mut outputs = vec![
        sig(0, "SV_Position", 9, 3, 0, 1, 4, (0, 0)),
        sig(1, "V", 5, 0, 0, 1, 1, (1, 0)),
    ];
    if let Some(k) = rtai {
        let k = mb.ci(32, k);
        store_output(&mut mb, "i32", 2, 0, 0, k);
        outputs.push(sig(2, "SV_RenderTargetArrayIndex", 5, 4, 0, 1, 1, (2, 0)));
    }
    mb.ret();
    let (m, fi) = mb.finish();
    let sigs = Signatures {
        inputs: vec![sig(0, "SV_VertexID", 5, 1, 0, 1, 1, (0, 0))],
        outputs,
        ..Signatures::default()
    };
    lower_stage(&m, fi, Stage::Vertex, &sigs).unwrap()
}

/// A DXIL pixel program writing (`V`, its own `ViewID`) to a two-channel uint target.
fn view_ps() -> Shader {
    let mut mb = Mb::new(DL32);
    mb.block();
    let i32t = mb.int(32);
    let zero = mb.ci(32, 0);
    let v = load_input(&mut mb, i32t, "i32", 0, zero, 0);
    let view = mb.dx("viewID.i32", DxOp::ViewID, &[], i32t);
    store_output(&mut mb, "i32", 0, 0, 0, v);
    store_output(&mut mb, "i32", 0, 0, 1, view);
    mb.ret();
    let (m, fi) = mb.finish();
    let sigs = Signatures {
        inputs: vec![sig(0, "V", 5, 0, 1, 1, 1, (1, 0))],
        outputs: vec![sig(0, "SV_Target", 5, 16, 0, 1, 2, (0, 0))],
        ..Signatures::default()
    };
    lower_stage(&m, fi, Stage::Pixel, &sigs).unwrap()
}

/// Each slice's 16 texels of a two-channel target, as (V, ViewID).
type Slices = Vec<Vec<[u32; 2]>>;

/// Draws [`view_vs`] and [`view_ps`] (3 vertices) into a 4 × 4 R32G32_UINT array of
/// `slices` slices, zero at the start, with `views` and `viewports`; returns the report,
/// or the error, and each slice's 16 texels as (V, ViewID).
fn draw_views(
    rtai: Option<i64>,
    views: Option<crate::pipeline::ViewInstancingDesc>,
    slices: u32,
    viewports: Vec<crate::pipeline::Viewport>,
) -> Result<(crate::pipeline::DrawReport, Slices), String> {
    use crate::pipeline::{Bindings, CullMode, DrawArgs, DrawOptions, DrawState};
    use crate::resources::{Format, Texture, TextureDesc, TextureDim};
    let (vs, ps) = (view_vs(rtai), view_ps());
    let none = Bindings::default();
    let mut desc = TextureDesc::tex2d(Format::R32G32_UINT, 4, 4);
    desc.dim = TextureDim::Tex2DArray;
    desc.depth_or_array_size = slices;
    let rt = Texture::new(desc).unwrap();
    let mut state = DrawState::new(&vs, Some(&ps), &none, &none);
    state.render_targets = vec![Some(crate::pipeline::RenderTargetView {
        texture: rt.target_view(0, 0, slices).unwrap(),
    })];
    state.rasterizer.cull_mode = CullMode::None;
    state.viewports = viewports;
    state.view_instancing = views;
    let args = DrawArgs {
        vertex_count: 3,
        ..DrawArgs::default()
    };
    let report =
        crate::pipeline::draw(&state, &args, &DrawOptions::default()).map_err(|e| e.to_string())?;
    let words: Vec<u32> = rt
        .to_bytes()
        .chunks_exact(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect();
    let texels = words
        .chunks_exact(32)
        .map(|s| s.chunks_exact(2).map(|t| [t[0], t[1]]).collect())
        .collect();
    Ok((report, texels))
}

/// `count` views at `(viewport, slice)` locations, masked by `mask`.
fn views(locations: &[(u32, u32)], mask: Option<u32>) -> crate::pipeline::ViewInstancingDesc {
    crate::pipeline::ViewInstancingDesc {
        locations: locations
            .iter()
            .map(
                |&(viewport, render_target_slice)| crate::pipeline::ViewInstanceLocation {
                    viewport,
                    render_target_slice,
                },
            )
            .collect(),
        mask,
    }
}

/// Every texel of a slice holds `want`.
fn slice_is(slice: &[[u32; 2]], want: [u32; 2]) -> bool {
    slice.len() == 16 && slice.iter().all(|&t| t == want)
}

/// D3D12 View Instancing ("SV_ViewID", "View Instance Locations"): four views at slices
/// 3, 2, 1, 0; each view's vertex program reads its `SV_ViewID` (`V` = 10v + 1 reaches
/// the pixel program through the signature) and so does each view's pixel program; the
/// pipeline runs once per view (`pipeline::view_instancing`), so the vertex stage
/// shades its 3 vertices 4 times.
#[test]
fn view_id_reaches_the_vertex_and_pixel_programs_of_each_view() {
    let four = views(&[(0, 3), (0, 2), (0, 1), (0, 0)], None);
    let (r, s) = draw_views(None, Some(four), 4, Vec::new()).unwrap();
    for (k, slice) in s.iter().enumerate() {
        let v = 3 - k as u32;
        assert!(slice_is(slice, [10 * v + 1, v]), "slice {k}: {slice:?}");
    }
    assert_eq!(r.vertices_shaded, 12);
    assert_eq!(r.pixels_shaded, 64);
    // "View Instancing Declaration": without view instancing (count 0, here `None`)
    // a program reading SV_ViewID sees 0, and one view is drawn.
    let (r, s) = draw_views(None, None, 4, Vec::new()).unwrap();
    assert!(slice_is(&s[0], [1, 0]), "{:?}", s[0]);
    assert!(s[1..].iter().all(|x| slice_is(x, [0, 0])));
    assert_eq!(r.vertices_shaded, 3);
}

/// "SetViewInstanceMask": with masking on, only the views whose bit is set run; a mask
/// of 0 (the command list's default) draws nothing at all.
#[test]
fn masked_views_are_not_drawn() {
    let locs = [(0, 3), (0, 2), (0, 1), (0, 0)];
    let (r, s) = draw_views(None, Some(views(&locs, Some(0b1010))), 4, Vec::new()).unwrap();
    assert!(slice_is(&s[2], [11, 1]), "view 1 at slice 2: {:?}", s[2]);
    assert!(slice_is(&s[0], [31, 3]), "view 3 at slice 0: {:?}", s[0]);
    assert!(slice_is(&s[1], [0, 0]) && slice_is(&s[3], [0, 0]));
    assert_eq!(r.vertices_shaded, 6);
    let (r, s) = draw_views(None, Some(views(&locs, Some(0))), 4, Vec::new()).unwrap();
    assert!(s.iter().all(|x| slice_is(x, [0, 0])));
    assert_eq!((r.vertices_shaded, r.pixels_shaded), (0, 0));
}

/// "View Instance Locations": the location adds to the `SV_RenderTargetArrayIndex` the
/// vertex program writes (here 1), in wrapping 32-bit arithmetic, and a sum past the
/// slices goes to slice 0: views at locations 0, 1 and 3 of four slices draw into
/// slices 1, 2 and 0 (3 + 1 = 4 is out of range); slice 3 is untouched. A written
/// index of 2^32 − 1 at location 1 wraps to slice 0.
#[test]
fn the_location_adds_to_the_written_slice_and_out_of_range_is_slice_0() {
    let three = views(&[(0, 0), (0, 1), (0, 3)], None);
    let (_, s) = draw_views(Some(1), Some(three), 4, Vec::new()).unwrap();
    assert!(slice_is(&s[1], [1, 0]), "view 0: {:?}", s[1]);
    assert!(slice_is(&s[2], [11, 1]), "view 1: {:?}", s[2]);
    assert!(slice_is(&s[0], [21, 2]), "view 2, out of range: {:?}", s[0]);
    assert!(slice_is(&s[3], [0, 0]));
    let (_, s) = draw_views(Some(-1), Some(views(&[(0, 1)], None)), 2, Vec::new()).unwrap();
    assert!(
        slice_is(&s[0], [1, 0]),
        "1 + (2^32 - 1) wraps to 0: {:?}",
        s[0]
    );
    assert!(slice_is(&s[1], [0, 0]));
}

/// "View Instance Locations": a location's viewport index selects the viewport (and its
/// scissor rectangle) of the view's primitives: view 0 at viewport 1 (the right half)
/// and view 1 at viewport 0 (the left half) of one slice.
#[test]
fn each_view_takes_the_viewport_of_its_location() {
    let half = |x: f32| crate::pipeline::Viewport {
        top_left_x: x,
        top_left_y: 0.0,
        width: 2.0,
        height: 4.0,
        min_depth: 0.0,
        max_depth: 1.0,
    };
    let two = views(&[(1, 0), (0, 0)], None);
    let (_, s) = draw_views(None, Some(two), 1, vec![half(0.0), half(2.0)]).unwrap();
    for (i, t) in s[0].iter().enumerate() {
        let want = if i % 4 < 2 { [11, 1] } else { [1, 0] };
        assert_eq!(*t, want, "texel ({}, {})", i % 4, i / 4);
    }
}

/// The pipeline's checks of the view-instancing state, each naming the field: 1 to 4
/// views (`D3D12_MAX_VIEW_INSTANCE_COUNT`), a location's viewport below 16; and
/// `SV_ViewID` is refused where DXIL.rst's table has no `ViewID` (compute, `NA`).
#[test]
fn bad_view_instancing_states_are_refused_by_field() {
    let e = draw_views(None, Some(views(&[(0, 0); 5], None)), 1, Vec::new()).unwrap_err();
    assert!(e.contains("view instancing: count: 5 views"), "{e}");
    let e = draw_views(None, Some(views(&[], None)), 1, Vec::new()).unwrap_err();
    assert!(e.contains("view instancing: count: 0 views"), "{e}");
    let e = draw_views(None, Some(views(&[(0, 0), (16, 0)], None)), 1, Vec::new()).unwrap_err();
    assert!(e.contains("locations[1].viewport: 16;"), "{e}");
    let mut mb = Mb::new(DL32);
    mb.block();
    let i32t = mb.int(32);
    let h = mb.handle(1, 0, 0);
    let v = mb.dx("viewID.i32", DxOp::ViewID, &[], i32t);
    let c0 = mb.ci(32, 0);
    mb.store_word(h, c0, v);
    mb.ret();
    let (m, fi) = mb.finish();
    let e = lower_test(&m, fi).unwrap_err().to_string();
    assert!(e.contains("dx.op ViewID in a compute shader"), "{e}");
}

// ---- mesh and amplification rules on hand-built DXIL ----------------------------------

/// A mesh or amplification program of `threads` threads (`[numthreads(threads, 1, 1)]`,
/// a triangle mesh state of 3 vertices and 1 primitive, `payload` bytes of payload; a
/// mesh program's vertices declare `SV_Position`, left unwritten) lowered from a module
/// built here: block 0 reads `SV_GroupIndex` and hands it to
/// `body`, which writes the rest (its own blocks, its `ret`s).
fn group_program(
    stage: Stage,
    threads: u32,
    payload: u32,
    body: impl FnOnce(&mut Mb, ValueId),
) -> Shader {
    let mut mb = Mb::new(DL32);
    mb.block();
    let i32t = mb.int(32);
    let tid = mb.dx(
        "flattenedThreadIdInGroup.i32",
        DxOp::FlattenedThreadIdInGroup,
        &[],
        i32t,
    );
    body(&mut mb, tid);
    let (m, fi) = mb.finish();
    let mut b = Builder::new(stage);
    let s = b.shader_mut();
    s.thread_group = [threads, 1, 1];
    s.mesh = Some(crate::ir::MeshState {
        topology: crate::ir::MeshTopology::Triangle,
        max_vertices: 3,
        max_primitives: 1,
        payload_bytes: payload,
        primitive_words: 0,
    });
    let io = if stage == Stage::Mesh {
        s.groupshared_bytes = payload.div_ceil(4) * 4;
        let sigs = Signatures {
            outputs: vec![sig(0, "SV_Position", 9, 3, 0, 1, 4, (0, 0))],
            ..Signatures::default()
        };
        stage::Io::lay_out_mesh(Some(&sigs), s).unwrap()
    } else {
        stage::Io::no_signatures(stage)
    };
    let s = lower_entry(&m, fi, b, Vec::new(), io, None).unwrap();
    crate::ir::validate(&s).unwrap_or_else(|e| panic!("{e}\n{s}"));
    s
}

/// `SetMeshOutputCounts(v, p)` in the current block.
fn set_counts(mb: &mut Mb, v: i64, p: i64) {
    let void = mb.void();
    let (v, p) = (mb.ci(32, v), mb.ci(32, p));
    mb.dx(
        "setMeshOutputCounts",
        DxOp::SetMeshOutputCounts,
        &[v, p],
        void,
    );
}

/// Block 0 branches on `SV_GroupIndex == 0` to block 1 (`then`, which falls into block
/// 2) or block 2, which returns.
fn if_thread_0(mb: &mut Mb, tid: ValueId, then: impl FnOnce(&mut Mb)) {
    let zero = mb.ci(32, 0);
    let c = mb.icmp(32, tid, zero); // eq
    mb.cond_br(c, LBlock(1), LBlock(2));
    mb.block();
    then(mb);
    mb.br(LBlock(2));
    mb.block();
    mb.ret();
}

/// Draws mesh program `ms` (after amplification program `amp`) over one group into a
/// 2 × 2 target; the draw's error text.
fn draw_mesh(ms: &Shader, amp: Option<&Shader>) -> Result<(), String> {
    use crate::pipeline::{
        Bindings, DrawArgs, DrawOptions, DrawState, RenderTargetView, ms::MeshDraw,
    };
    use crate::resources::{Format, Texture, TextureDesc};
    let none = Bindings::default();
    let rt = Texture::new(TextureDesc::tex2d(Format::R8G8B8A8_UNORM, 2, 2)).unwrap();
    let mut state = DrawState::new(ms, None, &none, &none);
    state.mesh = Some(MeshDraw {
        ms: (ms, &none),
        amplification: amp.map(|a| (a, &none)),
        groups: [1, 1, 1],
    });
    state.render_targets = vec![Some(RenderTargetView { texture: rt })];
    crate::pipeline::draw(&state, &DrawArgs::default(), &DrawOptions::default())
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// Mesh shader spec, "SetMeshOutputCounts": called once per group, by every thread
/// (uniform flow control), with counts at most the declared maxima — each misuse in a
/// DXIL module built here (`dx.op.setMeshOutputCounts`, opcode 168) is an error naming
/// the program's group; the well-formed module draws.
#[test]
fn set_mesh_output_counts_misuse_in_dxil_is_refused() {
    let ok = group_program(Stage::Mesh, 4, 0, |mb, _| {
        set_counts(mb, 3, 1);
        mb.ret();
    });
    assert_eq!(draw_mesh(&ok, None), Ok(()));
    let twice = group_program(Stage::Mesh, 4, 0, |mb, _| {
        set_counts(mb, 3, 1);
        set_counts(mb, 3, 1);
        mb.ret();
    });
    let e = draw_mesh(&twice, None).unwrap_err();
    assert!(
        e.contains("a second time") && e.contains("group (0, 0, 0)"),
        "{e}"
    );
    let divergent = group_program(Stage::Mesh, 4, 0, |mb, tid| {
        if_thread_0(mb, tid, |mb| set_counts(mb, 3, 1));
    });
    let e = draw_mesh(&divergent, None).unwrap_err();
    assert!(
        e.contains("1 of its 4 threads called SetMeshOutputCounts"),
        "{e}"
    );
    let above = group_program(Stage::Mesh, 4, 0, |mb, _| {
        set_counts(mb, 4, 1);
        mb.ret();
    });
    let e = draw_mesh(&above, None).unwrap_err();
    assert!(
        e.contains("SetMeshOutputCounts(4, …) with more vertices than the 3 the program declares"),
        "{e}"
    );
}

/// Mesh shader spec, "DispatchMesh intrinsic": an amplification group calls
/// `DispatchMesh` exactly once, from uniform flow control; a module built here whose
/// thread 0 alone calls it (`dx.op.dispatchMesh`, opcode 173, with a group shared
/// payload) is refused naming the group, and the uniform call draws.
#[test]
fn divergent_dispatch_mesh_in_dxil_is_refused() {
    let amp = |divergent: bool| {
        group_program(Stage::Amplification, 2, 4, |mb, tid| {
            let i32t = mb.int(32);
            let payload = mb.global("payload", i32t, 3, None);
            let one = mb.ci(32, 1);
            let call = move |mb: &mut Mb| {
                let void = mb.void();
                mb.dx(
                    "dispatchMesh.struct.Payload",
                    DxOp::DispatchMesh,
                    &[one, one, one, payload],
                    void,
                );
            };
            if divergent {
                if_thread_0(mb, tid, call);
            } else {
                call(mb);
                mb.ret();
            }
        })
    };
    let ms = group_program(Stage::Mesh, 4, 4, |mb, _| {
        set_counts(mb, 3, 1);
        mb.ret();
    });
    assert_eq!(draw_mesh(&ms, Some(&amp(false))), Ok(()));
    let e = draw_mesh(&ms, Some(&amp(true))).unwrap_err();
    assert!(
        e.contains("1 of its 2 threads called DispatchMesh") && e.contains("group (0, 0, 0)"),
        "{e}"
    );
}

/// SM 6.6's 64-bit atomics in a module built here (DXIL.rst: `atomicrmw` on an `i64`
/// in group shared memory; `dx.op.atomicBinOp.i64`, opcode 78, on a raw buffer): eight
/// lanes each add 0xffffffff to a group shared `i64` and to the buffer's first 8 bytes.
/// By hand: the total is 8 × 0xffffffff = 0x7_ffff_fff8 — the carry out of the low
/// word reaches the high one — and each lane's returned old value is a distinct
/// multiple k × 0xffffffff, k = 0 … 7 (every lane's add lands once, in some order).
#[test]
fn int64_atomics_in_dxil_carry_into_the_high_word() {
    use crate::dxil::llvm::{Ordering, RmwOp};
    let mut mb = Mb::new(DL32);
    let (i32t, i64t) = (mb.int(32), mb.int(64));
    mb.block();
    let h = mb.handle(1, 0, 0);
    let total = mb.global("total", i64t, 3, None);
    let lane = mb.dx(
        "flattenedThreadIdInGroup.i32",
        DxOp::FlattenedThreadIdInGroup,
        &[],
        i32t,
    );
    let v = mb.ci(64, 0xffff_ffff);
    let old_shared = mb.push(
        InstKind::AtomicRmw {
            op: RmwOp::Add,
            ptr: total,
            value: v,
            volatile: false,
            ordering: Ordering(6),
            scope: 1,
        },
        i64t,
    );
    let (zero, add) = (mb.ci(32, 0), mb.ci(32, 0)); // AtomicBinOpCode::Add = 0
    let u = mb.undef(i32t);
    let old_buffer = mb.dx(
        "atomicBinOp.i64",
        DxOp::AtomicBinOp,
        &[h, add, zero, u, u, v],
        i64t,
    );
    let sum = mb.load(total, i64t);
    let (four, shift) = (mb.ci(32, 4), mb.ci(64, 32));
    let at = mb.bin(BinOp::Mul, lane, four, i32t);
    for (k, x) in [old_shared, old_buffer, sum].into_iter().enumerate() {
        let hi = mb.bin(BinOp::LShr, x, shift, i64t);
        for (j, half) in [x, hi].into_iter().enumerate() {
            let word = mb.cast(CastOp::Trunc, half, i32t);
            let base = mb.ci(32, 64 + 32 * (2 * k + j) as i64);
            let addr = mb.bin(BinOp::Add, base, at, i32t);
            mb.store_word(h, addr, word);
        }
    }
    mb.ret();
    let (m, fi) = mb.finish();
    let w = dispatch8(&m, fi, 64);
    let want_total = 8 * 0xffff_ffffu64;
    assert_eq!((w[0], w[1]), (0xffff_fff8, 7), "the buffer's i64: {w:x?}");
    let read = |k: usize, l: usize| {
        u64::from(w[16 + 8 * 2 * k + l]) | u64::from(w[16 + 8 * (2 * k + 1) + l]) << 32
    };
    for k in 0..2 {
        let mut olds: Vec<u64> = (0..8).map(|l| read(k, l)).collect();
        olds.sort_unstable();
        let want: Vec<u64> = (0..8).map(|n| n * 0xffff_ffff).collect();
        assert_eq!(
            olds,
            want,
            "returned old values ({})",
            ["shared", "buffer"][k]
        );
    }
    for l in 0..8 {
        assert_eq!(
            read(2, l),
            want_total,
            "lane {l}'s load of the shared total"
        );
    }
}

/// `QuadVote` (DXIL op 222, `QuadAny` / `QuadAll`; HLSL SM 6.7 "QuadAny and QuadAll"):
/// the vote covers all four lanes of the quad, helper lanes included, both the lane
/// outside the triangle and a lane demoted by `discard` ("they assume that all lanes in
/// the quad are active, including helper lanes"); every lane gets the quad's answer.
/// K = 10, 20, 30, 40 in lanes 0–3, lane 0 a helper from the start, lane 3 discards
/// (K > 35): `QuadAny(K < 15)` is true through the helper lane alone, `QuadAny(K > 35)`
/// through the demoted lane alone, `QuadAll(K > 5)` holds, and `QuadAll(K > 15)` fails
/// on the helper lane's 10.
#[test]
fn quad_vote_counts_every_lane_of_the_quad() {
    let s = pixel_program(|mb| {
        let (i32t, i1t) = (mb.int(32), mb.int(1));
        let zero = mb.ci(32, 0);
        let k = load_input(mb, i32t, "i32", 4, zero, 0);
        let c35 = mb.ci(32, 35);
        let over = mb.icmp(34, k, c35); // ugt
        let void = mb.void();
        mb.dx("discard", DxOp::Discard, &[over], void);
        let votes = [(36, 15, 0), (34, 35, 0), (34, 5, 1), (34, 15, 1)]; // (ult/ugt, K, all)
        for (col, (pred, limit, all)) in votes.into_iter().enumerate() {
            let limit = mb.ci(32, limit);
            let cond = mb.icmp(pred, k, limit);
            let kind = mb.ci(8, all);
            let vote = mb.dx("quadVote.i1", DxOp::QuadVote, &[cond, kind], i1t);
            let v = mb.cast(CastOp::ZExt, vote, i32t);
            store_output(mb, "i32", 0, 0, col as i64, v);
        }
    })
    .unwrap();
    let k = [10u32, 20, 30, 40];
    let (out, run) = run_quad(&s, |l, w| if w == 13 { k[l] } else { 0 }, 0b0001, None);
    assert_eq!(run.killed, 0b1000, "lane 3 discards");
    for l in 0..4 {
        let o = |word: usize| out[word * 4 + l];
        assert_eq!([o(0), o(1), o(2), o(3)], [1, 1, 1, 0], "lane {l}\n{s}");
    }
}

/// A module whose `main` makes one `barrierByMemoryType(mem, sem)` call.
fn barrier_module(mem: i64, sem: i64) -> (Module, usize) {
    let mut mb = Mb::new(DL32);
    mb.block();
    let (m, s) = (mb.ci(32, mem), mb.ci(32, sem));
    let void = mb.void();
    mb.dx(
        "barrierByMemoryType",
        DxOp::BarrierByMemoryType,
        &[m, s],
        void,
    );
    mb.ret();
    mb.finish()
}

/// SM 6.8 `Barrier(memory, semantics)` (HLSL work graphs specification, "Barrier"; the
/// DXIL validator's rules, as DXC's `validation/barrier` tests state them): UAV memory
/// is device memory, group-shared memory the group's, GROUP_SYNC synchronises the
/// group; a bit outside the defined flags is refused, and so is a group sync, group
/// scope or group-shared memory in a stage without thread groups ("sync in a
/// non-Compute/Amplification/Mesh/Node Shader must only sync UAV"), while a pixel
/// program may order UAV memory at device scope. Node memory bits order nothing here
/// (no node records) and pass.
#[test]
fn barrier_flags_follow_the_sm68_rules() {
    let barrier = |s: &Shader| {
        s.insts.iter().find_map(|i| match i {
            Inst::Barrier {
                group_sync,
                group_memory,
                device_memory,
            } => Some((*group_sync, *group_memory, *device_memory)),
            _ => None,
        })
    };
    // (memory, semantics, what a compute program lowers it to)
    for (mem, sem, want) in [
        (1, 4, (false, false, true)),   // DeviceMemoryBarrier
        (1, 5, (true, false, true)),    // DeviceMemoryBarrierWithGroupSync
        (2, 3, (true, true, false)),    // GroupMemoryBarrierWithGroupSync
        (15, 5, (true, true, true)),    // AllMemoryBarrierWithGroupSync
        (0, 1, (true, false, false)),   // a bare group sync
        (12, 2, (false, false, false)), // node memory only
    ] {
        let (m, fi) = barrier_module(mem, sem);
        let s = lower_test(&m, fi).unwrap_or_else(|e| panic!("({mem}, {sem}): {e}"));
        assert_eq!(barrier(&s), Some(want), "({mem}, {sem})\n{s}");
    }
    for (mem, sem, says) in [
        (16, 0, "memory type flags 0x10"),
        (18, 1, "memory type flags 0x12"),
        (1, 16, "semantic flags 0x10"),
        (1, -1, "semantic flags"),
    ] {
        let (m, fi) = barrier_module(mem, sem);
        let err = lower_test(&m, fi).unwrap_err().to_string();
        assert!(err.contains(says), "({mem}, {sem}): {err}");
    }
    // A pixel program: UAV memory at device scope only.
    let (m, fi) = barrier_module(1, 4);
    let s = lower_stage(&m, fi, Stage::Pixel, &pixel_sigs()).unwrap();
    assert_eq!(barrier(&s), Some((false, false, true)));
    for (mem, sem) in [(1, 3), (1, 1), (1, 2), (2, 4), (3, 4)] {
        let (m, fi) = barrier_module(mem, sem);
        let err = lower_stage(&m, fi, Stage::Pixel, &pixel_sigs())
            .unwrap_err()
            .to_string();
        assert!(
            err.contains("in a pixel shader") && err.contains("only order UAV memory"),
            "({mem}, {sem}): {err}"
        );
    }
}
