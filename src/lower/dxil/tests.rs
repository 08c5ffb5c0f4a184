//! Unit tests of the DXIL lowering: graphics programs' bodies lowered as compute (for
//! coverage of the constructs they use), and hand-built modules run on a small one-lane
//! evaluator for the rules that need exact answers.

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

/// Every graphics program's body lowers as if it were compute (inputs 0, outputs
/// dropped), or is refused by name: the loops, switches, arrays, half and bit operations
/// of the pixel programs are lowered by the same code as compute programs'.
#[test]
fn graphics_bodies_lower() {
    let files = corpus_files();
    if files.is_empty() {
        eprintln!("corpora not fetched (tools/fetch-corpora.sh): skipping");
        return;
    }
    let mut lowered = 0;
    let mut refused = Vec::new();
    for f in &files {
        let m = module_of(&std::fs::read(f).unwrap());
        let name = f.file_name().unwrap().to_string_lossy().into_owned();
        match lower_module_with(&m, &LoadOptions::default(), true) {
            Ok(s) => {
                crate::ir::validate(&s).unwrap();
                lowered += 1;
            }
            Err(LowerError::Unsupported { what, location }) => {
                refused.push(format!("{name}: {what} at {location}"))
            }
            Err(LowerError::Entry(e)) if e.contains("several entry points") => {}
            Err(e) => panic!("{name}: {e}"),
        }
    }
    eprintln!("{lowered} lowered; refused:\n{}", refused.join("\n"));
    assert!(lowered > 100, "{lowered}");
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
            match lower_module_with(&m, &LoadOptions::default(), true) {
                Ok(s) => eprintln!("{s}"),
                Err(e) => eprintln!("{e}"),
            }
        }
    }
}

// ---- hand-built modules ---------------------------------------------------------------

use crate::dxil::llvm::{
    BinOp, BlockId as LBlock, CastOp, Constant, InstKind, MetadataKind, Type, ValueId,
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
    lower_entry(m, fi, b, ranges, false)
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
    let tid = mb.dx("threadId.i32", 93, &[c0], i32t);
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
    let tid = mb.dx("threadId.i32", 93, &[c0], i32t);
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
    let cases: Vec<(i64, u32, i64, u32)> = vec![
        // (opcode, bits, value, expected)
        (33, 32, 0x1000_0000, 3),
        (33, 16, 0x0100, 7),
        (33, 16, 0, u32::MAX),
        (34, 16, 0xff00u16 as i16 as i64, 8),
        (34, 16, -1, u32::MAX),
        (34, 16, 0x0001, 15),
        (32, 16, 0x0100, 8),
        (32, 16, 0, u32::MAX),
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
    let tid = mb.dx("threadId.i32", 93, &[c0], i32t);
    let mut outs = Vec::new();
    let row = mb.dx("cbufferLoadLegacy.i32", 59, &[cb, c2], r32);
    outs.push(mb.push(
        InstKind::ExtractValue {
            aggregate: row,
            indices: vec![1],
        },
        i32t,
    ));
    let row = mb.dx("cbufferLoadLegacy.i32", 59, &[cb, tid], r32);
    outs.push(mb.push(
        InstKind::ExtractValue {
            aggregate: row,
            indices: vec![3],
        },
        i32t,
    ));
    let row = mb.dx("cbufferLoadLegacy.f16", 59, &[cb, c1], r16);
    let hv = mb.push(
        InstKind::ExtractValue {
            aggregate: row,
            indices: vec![5],
        },
        f16t,
    );
    let iv = mb.cast(CastOp::BitCast, hv, i16t);
    outs.push(mb.cast(CastOp::ZExt, iv, i32t));
    let row = mb.dx("cbufferLoadLegacy.i64", 59, &[cb, c3], r64);
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
    let a = mb.dx("tertiary.f32", 46, &[x, x, x], f32t);
    let b = mb.dx("tertiary.f32", 46, &[a, x, x], f32t);
    let d = mb.dx("dot3.f32", 55, &[a, b, x, x, x, x], f32t);
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
    let tid = mb.dx("threadId.i32", 93, &[c0], i32t);
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
    let tid = mb.dx("threadId.i32", 93, &[c0], i32t);
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

// ---- graphics programs' bodies, run -----------------------------------------------------

/// Runs a graphics corpus program's body as one compute thread (see
/// `lower_module_with`): `inputs[e]` is input element e's four components, `cb` the words
/// of constant buffer b0; returns output element e's four words for each e < 4. `None`
/// when the corpora are not fetched.
fn run_graphics(file: &str, inputs: &[[f32; 4]], cb: &[u32]) -> Option<Vec<[u32; 4]>> {
    use crate::pipeline::{Bindings, DispatchOptions, dispatch};
    use crate::resources::{BufferKind, BufferView, Descriptor, Memory};
    let path = corpus_files()
        .into_iter()
        .find(|p| p.file_name().is_some_and(|n| n == file))?;
    let m = module_of(&std::fs::read(&path).unwrap());
    let s = lower_module_with(&m, &LoadOptions::default(), true)
        .unwrap_or_else(|e| panic!("{file}: {e}"));
    let mut in_words = vec![0u32; 64];
    for (e, v) in inputs.iter().enumerate() {
        for (c, x) in v.iter().enumerate() {
            in_words[16 * e + c] = x.to_bits();
        }
    }
    let bytes = |w: &[u32]| -> Vec<u8> { w.iter().flat_map(|x| x.to_le_bytes()).collect() };
    let raw = |m: &Memory| Descriptor::Buffer {
        view: BufferView::whole(m.clone(), BufferKind::Raw),
        counter: None,
    };
    let inp = Memory::from_bytes(&bytes(&in_words)).unwrap();
    let out = Memory::zeroed(256).unwrap();
    let mut ranges = Vec::new();
    for r in &s.resources {
        ranges.push(vec![match (r.class, r.space, r.lower) {
            (ResourceClass::Cbv, _, _) => Descriptor::ConstantBuffer {
                memory: Memory::from_bytes(&bytes(cb)).unwrap(),
                offset: 0,
                size: 4 * cb.len() as u64,
            },
            (ResourceClass::Uav, GRAPHICS_IO_SPACE, 0) => raw(&inp),
            (ResourceClass::Uav, GRAPHICS_IO_SPACE, 1) => raw(&out),
            other => panic!("{file}: no binding for {other:?}"),
        }]);
    }
    let b = Bindings {
        ranges,
        ..Bindings::default()
    };
    let o = DispatchOptions {
        wave_size: Some(4),
        threads: 1,
        ..DispatchOptions::default()
    };
    dispatch(&s, &b, [1, 1, 1], &o, None).unwrap_or_else(|e| panic!("{file}: {e}"));
    let w = words(&out.to_bytes());
    Some(
        (0..4)
            .map(|e| [w[16 * e], w[16 * e + 1], w[16 * e + 2], w[16 * e + 3]])
            .collect(),
    )
}

/// The builds of a graphics corpus program.
fn graphics_builds(name: &str) -> Vec<String> {
    let files = corpus_files();
    let out: Vec<String> = ["", ".66", ".od"]
        .iter()
        .map(|s| format!("{name}{s}.dxil"))
        .filter(|f| {
            files
                .iter()
                .any(|p| p.file_name().is_some_and(|n| n == f.as_str()))
        })
        .collect();
    assert!(
        files.is_empty() || !out.is_empty(),
        "{name} is not in the corpora"
    );
    out
}

fn fw(v: [f32; 4]) -> [u32; 4] {
    v.map(f32::to_bits)
}

/// half_ops.hlsl's stated result: x + y of the halves 1.0009765625 and 1.0 rounds to
/// even (2.0); the product is 1.0009765625; 1 − 2 in uint16_t wraps to 65535; the half
/// of 1/3 is 0.333251953125 (WARP: 16-bit math in fp32 rounded to nearest even).
#[test]
fn half_ops_run() {
    for f in graphics_builds("half_ops") {
        let cb = [(1.0f32 + 1.0 / 1024.0).to_bits(), 1.0f32.to_bits()];
        let Some(out) = run_graphics(&f, &[], &cb) else {
            return;
        };
        assert_eq!(
            out[0],
            fw([2.0, 1.0 + 1.0 / 1024.0, 65535.0, 1365.0 / 4096.0]),
            "{f}"
        );
    }
}

/// bits.hlsl with f = (7.5, 2, 1.5, 0), u = (0xf0f0, 7, 0x801000, 3), i = (−17, 5,
/// −64, 3).
#[test]
fn bits_run() {
    let f = [7.5f32, 2.0, 1.5, 0.0];
    let u = [0xf0f0u32, 7, 0x0080_1000, 3];
    let i = [-17i32, 5, -64, 3];
    let mut cb: Vec<u32> = f.iter().map(|x| x.to_bits()).collect();
    cb.extend(u);
    cb.extend(i.map(|x| x as u32));
    let a = [
        u[0].count_ones(),
        u[1].trailing_zeros(),
        31 - u[2].leading_zeros(),
        u[3].reverse_bits(),
    ];
    let b = [
        u[0] / u[1],
        u[0] % u[1],
        (i[0] / i[1]) as u32,
        (i[0] % i[1]) as u32,
    ];
    let c = fw([f[0] / f[1], f[1], f[0], 1.0]);
    let dz = 7u32
        .wrapping_add((i[2] >> (i[3] & 31)) as u32)
        .wrapping_add(u[2] << (u[3] & 31))
        .wrapping_add(u[0].wrapping_mul(u[1]).wrapping_add(u[2]));
    let d = [u[0].wrapping_mul(u[1]), u[2].wrapping_mul(u[3]), dz, 2];
    for file in graphics_builds("bits") {
        let Some(out) = run_graphics(&file, &[], &cb) else {
            return;
        };
        assert_eq!(out, vec![a, b, c, d], "{file}");
    }
}

/// loops.hlsl with a = (2, 10, 0, 100), n = (6, 2, 3, 20), t = (0.5, 1): every value is
/// exact in float, so the loops' results are the HLSL's.
#[test]
fn loops_run() {
    let a = [2.0f32, 10.0, 0.0, 100.0];
    let n = [6i32, 2, 3, 20];
    let t = [0.5f32, 1.0];
    let (mut sum, mut count) = (0.0f32, 0u32);
    for i in 0..n[0] {
        if i == n[1] {
            continue;
        }
        if sum > a[3] {
            break;
        }
        sum += a[0] * i as f32 + t[0];
        count += 1;
    }
    let mut inner = 0u32;
    'outer: for j in 0..n[2] {
        for m in 0..4 {
            inner += (j * 4 + m) as u32;
            if inner > n[3] as u32 {
                break;
            }
        }
        if inner > 1000 {
            break 'outer;
        }
    }
    let (mut v, mut guard) = (t[1], 0u32);
    while v < a[1] && guard < 16 {
        v = v * 1.5 + 0.25;
        guard += 1;
    }
    let mut cb: Vec<u32> = a.iter().map(|x| x.to_bits()).collect();
    cb.extend(n.map(|x| x as u32));
    for file in graphics_builds("loops") {
        let Some(out) = run_graphics(&file, &[[0.0; 4], [t[0], t[1], 0.0, 0.0]], &cb) else {
            return;
        };
        assert_eq!(out[0], fw([sum, v, 0.0, 1.0]), "{file}");
        assert_eq!(out[1], [count, inner, guard, 0], "{file}");
    }
}

/// switch.hlsl: each case of the first switch, and the loop's switch with `continue`.
#[test]
fn switch_run() {
    let a = [3.0f32, 4.0, 5.0, 0.0];
    let t = [0.5f32, 2.0];
    for (sel, x) in [
        (0, a[0]),
        (1, a[1] + t[0]),
        (2, a[1] + t[0]),
        (5, a[2] * t[1]),
        (9, -1.0),
    ] {
        let iters = 7;
        let acc: u32 = (0..iters)
            .map(|i| match i & 3 {
                0 => 6,
                1 => 10,
                2 => 105,
                _ => 1005,
            })
            .sum();
        let mut cb: Vec<u32> = a.iter().map(|x| x.to_bits()).collect();
        cb.extend([sel as u32, iters as u32, 0, 0]);
        for file in graphics_builds("switch") {
            let Some(out) = run_graphics(&file, &[[0.0; 4], [t[0], t[1], 0.0, 0.0]], &cb) else {
                return;
            };
            assert_eq!(out[0], fw([x, 0.0, 0.0, 1.0]), "{file} n.x = {sel}");
            assert_eq!(out[1], [acc, 0, 0, 0], "{file} n.x = {sel}");
        }
    }
}

/// flow.hlsl: short-circuit tests both ways, the early return, the nested if.
#[test]
fn flow_run() {
    let a = [1.0f32, 2.0, 3.0, 4.0];
    let cases: Vec<([i32; 4], [f32; 2])> = vec![
        ([5, 9, 0, 1], [1.5, 1.0]),
        ([1, 9, 0, 1], [0.5, 0.25]),
        ([1, 1, 7, 0], [1.5, 3.0]),
        ([4, 2, 0, 0], [2.0, 1.0]),
    ];
    for (n, t) in cases {
        let mut x = [0.0f32, 0.0, 0.0, 1.0];
        let mut k = [0u32; 4];
        x[0] = if t[0] > a[0] && t[1] < a[1] {
            a[2] * t[0]
        } else {
            a[3] - t[1]
        };
        k[0] = if n[0] > 3 || n[1] < 2 { 5 } else { 9 };
        if n[2] == 7 {
            x[1] = 1.0;
        } else {
            k[1] = if n[3] > 0 {
                if t[1] > 0.5 { 11 } else { 13 }
            } else {
                17
            };
            x[2] = if n[0] > n[1] { a[0] } else { a[1] };
        }
        let mut cb: Vec<u32> = a.iter().map(|v| v.to_bits()).collect();
        cb.extend(n.map(|v| v as u32));
        for file in graphics_builds("flow") {
            let Some(out) = run_graphics(&file, &[[0.0; 4], [t[0], t[1], 0.0, 0.0]], &cb) else {
                return;
            };
            assert_eq!(out[0], fw(x), "{file} n = {n:?}");
            assert_eq!(out[1], k, "{file} n = {n:?}");
        }
    }
}

/// arrays.hlsl: a local array indexed by a computed value, the `static const` table
/// (a constant array), a dynamically indexed constant-buffer array.
#[test]
fn arrays_run() {
    let a = [1.0f32, 2.0, 3.0, 4.0];
    let n = [1i32, 6, 2, 4];
    let table: Vec<[f32; 4]> = (0..6)
        .map(|r| [10.0 * r as f32, 10.0 * r as f32 + 1.0, 0.0, 0.0])
        .collect();
    let weights = [0.1f32, 0.2, 0.4, 0.2, 0.1];
    let mut s = 0.0f32;
    for i in 0..4 {
        s += weights[i] * a[((i as i32 + n[0]) & 3) as usize];
    }
    let want = fw([
        s,
        weights[(n[1] & 3) as usize],
        table[n[2] as usize][0],
        table[((n[3] + 1) % 6) as usize][1],
    ]);
    let mut cb: Vec<u32> = a.iter().map(|v| v.to_bits()).collect();
    cb.extend(n.map(|v| v as u32));
    for row in &table {
        cb.extend(row.map(f32::to_bits));
    }
    for file in graphics_builds("arrays") {
        let Some(out) = run_graphics(&file, &[], &cb) else {
            return;
        };
        assert_eq!(out[0], want, "{file}");
        assert_eq!(out[1], [0; 4], "{file}");
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
    let tid = mb.dx("threadId.i32", 93, &[c[0]], i32t); // 2
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

// ---- wave, pack and unpack operations through the interpreter ---------------------------

/// Lowers a hand-built module (u0 raw, see [`lower_test`]) as a group of 8 threads and
/// dispatches it on the interpreter with waves of 8; returns u0's words.
fn dispatch8(m: &Module, fi: usize, words_out: usize) -> Vec<u32> {
    use crate::pipeline::{Bindings, DispatchOptions, dispatch};
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
    let o = DispatchOptions {
        wave_size: Some(8),
        threads: 1,
        ..DispatchOptions::default()
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
    let lane = mb.dx("waveGetLaneIndex", 111, &[], i32t);
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
                    166,
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
                166,
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
            167,
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
            let s = mb.dx(&format!("waveMatch.{ty}"), 165, &[v], four);
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
            let u = mb.dx("unpack4x8.i16", 219, &[md, packed], four16);
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
                220,
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
                mb.dx("legacyF32ToF16", 130, &[v], i32t)
            })
            .collect()
    });
    let w = dispatch8(&m, fi, 8 * n);
    let want: Vec<u32> = cases.iter().map(|(_, h)| *h).collect();
    assert_eq!(per_lane(&w, 3, n), want);
}
