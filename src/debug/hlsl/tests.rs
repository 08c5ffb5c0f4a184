//! Source-level debugging on a compute program carrying debug info as dxc writes it with
//! `-Zi` (LLVM 3.7 `DI*` records, `DILocation`s with `inlinedAt`, `llvm.dbg.value` with
//! `DW_OP_bit_piece`, `dx.source.*`), built with the test module builder from the record
//! layouts of LLVM 3.7's `BitcodeWriter.cpp` and DXIL.rst's metadata (no corpus program
//! carries debug info, and the builder writes modules in memory, not bitcode), and run
//! through the session and the DAP server. Values are worked out by hand from the HLSL.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation
)]

use std::cell::RefCell;
use std::rc::Rc;

use serde_json::{Value, json};

use crate::debug::dap::{LaunchArgs, Server, wire};
use crate::debug::{DebugOptions, Debugger, LaneSelect, Program, Target};
use crate::dxil::dxop::DxOp;
use crate::dxil::llvm::build::Mb;
use crate::dxil::llvm::{
    BinOp, CastOp, Constant, DebugLoc, MdId, Metadata, Module, NamedMetadata, Operand, Type,
    ValueId,
};
use crate::pipeline::{Bindings, Plan};
use crate::resources::{BufferKind, BufferView, Descriptor, Memory};

/// The HLSL the module stands for (`shader.hlsl`).
const HLSL: &str = "RWByteAddressBuffer u : register(u0);
struct S { float a; uint b; };
float sq(float v)
{
    return v * v;
}
[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float2 p = float2(id.x, 2.0);
    float s = sq(p.x) + 1.0;
    S st; st.a = s; st.b = id.x; float3x3 m = { p, s, 1, 2, 3, 4, 5, 6 };
    u.Store(id.x * 4, asuint(st.a + p.y));
}
";

const DL: &str = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64";

/// LLVM 3.7 metadata record codes (`LLVMBitCodes.h`).
const FILE: u32 = 16;
const COMPILE_UNIT: u32 = 20;
const SUBPROGRAM: u32 = 21;
const LEXICAL_BLOCK: u32 = 22;
const BASIC_TYPE: u32 = 15;
const DERIVED_TYPE: u32 = 17;
const COMPOSITE_TYPE: u32 = 18;
const LOCAL_VAR: u32 = 28;
const EXPRESSION: u32 = 29;

/// How the debug info is damaged.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Damage {
    None,
    /// `p`'s type is a `DIFile`.
    NotAType,
    /// `main`'s lexical block is its own scope.
    ScopeCycle,
    /// A location's scope names metadata that does not exist.
    BadId,
    /// One instruction more than the others have (an `ILDB` module that is not the
    /// `DXIL` part's).
    ExtraInstruction,
}

fn s(mb: &mut Mb, t: &str) -> u64 {
    u64::from(mb.md(Metadata::String(t.as_bytes().to_vec())).0) + 1
}

fn di(mb: &mut Mb, code: u32, ops: Vec<u64>) -> MdId {
    mb.md(Metadata::Debug {
        code,
        distinct: ops.first() == Some(&1),
        ops,
    })
}

fn r(id: MdId) -> u64 {
    u64::from(id.0) + 1
}

fn loc(line: u32, column: u32, scope: MdId, inlined_at: Option<MdId>) -> DebugLoc {
    DebugLoc {
        line,
        column,
        scope: Some(scope),
        inlined_at,
    }
}

/// A node of metadata operands.
fn node(m: &mut Module, ops: Vec<Option<MdId>>) -> MdId {
    m.metadata.push(Metadata::Node {
        distinct: false,
        ops,
    });
    MdId(m.metadata.len() as u32 - 1)
}

/// The compute program of [`HLSL`] as dxc -Zi -Od leaves it, `sq` inlined. With
/// `debug` false: the same instructions without any debug info.
/// The module constants and strings the DXIL metadata of a cs_6_0 program with one raw
/// UAV `u0` and `[numthreads(4, 1, 1)]` names; made before the body, as dxc orders them.
#[derive(Clone, Copy)]
struct ComputeNames {
    shader_kind: Option<MdId>,
    six: Option<MdId>,
    zero: Option<MdId>,
    four: Option<MdId>,
    one: Option<MdId>,
    eleven: Option<MdId>,
    f1: Option<MdId>,
    uname: Option<MdId>,
    ename: Option<MdId>,
}

impl ComputeNames {
    fn new(mb: &mut Mb) -> ComputeNames {
        let cmd = |mb: &mut Mb, bits: u32, v: i64| {
            let c = mb.ci(bits, v);
            let ty = mb.ty_of(c);
            Some(mb.md(Metadata::Value { ty, value: c }))
        };
        let shader_kind = Some(mb.md(Metadata::String(b"cs".to_vec())));
        let (six, zero) = (cmd(mb, 32, 6), cmd(mb, 32, 0));
        let (four, one) = (cmd(mb, 32, 4), cmd(mb, 32, 1));
        let (eleven, f1) = (cmd(mb, 32, 11), cmd(mb, 1, 0));
        let uname = Some(mb.md(Metadata::String(b"u".to_vec())));
        let ename = Some(mb.md(Metadata::String(b"main".to_vec())));
        ComputeNames {
            shader_kind,
            six,
            zero,
            four,
            one,
            eleven,
            f1,
            uname,
            ename,
        }
    }

    /// DXIL's metadata of the finished module: shader model, the UAV, and function `fi`
    /// as the entry point.
    fn finish(&self, m: &mut Module, fi: usize) {
        let ComputeNames {
            shader_kind,
            six,
            zero,
            four,
            one,
            eleven,
            f1,
            uname,
            ename,
        } = *self;
        let model = node(m, vec![shader_kind, six, zero]);
        let uav = node(
            m,
            vec![zero, None, uname, zero, zero, one, eleven, f1, f1, f1, None],
        );
        let uavs = node(m, vec![Some(uav)]);
        let res = node(m, vec![None, Some(uavs), None, None]);
        let threads = node(m, vec![four, one, one]);
        let props = node(m, vec![four, Some(threads)]);
        let func = &m.functions[fi];
        let fv = Metadata::Value {
            ty: func.ptr_ty,
            value: func.value,
        };
        m.metadata.push(fv);
        let fmd = MdId(m.metadata.len() as u32 - 1);
        let entry = node(m, vec![Some(fmd), ename, None, Some(res), Some(props)]);
        for (n, id) in [
            ("dx.shaderModel", model),
            ("dx.resources", res),
            ("dx.entryPoints", entry),
        ] {
            m.named_metadata.push(NamedMetadata {
                name: n.into(),
                ops: vec![id],
            });
        }
    }
}

fn module(debug: bool, damage: Damage) -> Module {
    let mut mb = Mb::new(DL);
    let (i32t, f32t, void) = (mb.int(32), mb.t(Type::Float), mb.void());
    let (i64t, mdt) = (mb.int(64), mb.t(Type::Metadata));
    let names = ComputeNames::new(&mut mb);

    // Debug records.
    let file_name = s(&mut mb, "shader.hlsl");
    let dir = s(&mut mb, "");
    let file = di(&mut mb, FILE, vec![0, file_name, dir]);
    let f = r(file);
    let producer = s(&mut mb, "dxcoob 1.8");
    di(
        &mut mb,
        COMPILE_UNIT,
        vec![1, 5, f, producer, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0],
    );
    let sub = |mb: &mut Mb, n: &str, line: u64| {
        let n = s(mb, n);
        let ops = vec![
            1,
            f,
            n,
            0,
            f,
            line,
            0,
            0,
            1,
            line + 1,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
            0,
        ];
        di(mb, SUBPROGRAM, ops)
    };
    let main_sp = sub(&mut mb, "main", 8);
    let sq_sp = sub(&mut mb, "sq", 3);
    let block_scope = match damage {
        // The next record is the block itself.
        Damage::ScopeCycle => mb.m.metadata.len() as u64 + 1,
        _ => r(main_sp),
    };
    let block = di(&mut mb, LEXICAL_BLOCK, vec![1, block_scope, f, 9, 1]);
    let basic = |mb: &mut Mb, n: &str, enc: u64| {
        let n = s(mb, n);
        di(mb, BASIC_TYPE, vec![0, 0x24, n, 32, 32, enc])
    };
    let float = basic(&mut mb, "float", 4);
    let uint = basic(&mut mb, "uint", 8);
    let member = |mb: &mut Mb, n: &str, ty: MdId, off: u64| {
        let n = s(mb, n);
        di(
            mb,
            DERIVED_TYPE,
            vec![0, 0x0d, n, f, 2, 0, r(ty), 32, 32, off, 0, 0],
        )
    };
    let composite = |mb: &mut Mb, tag: u64, n: &str, size: u64, members: Vec<MdId>| {
        let els = mb.md(Metadata::Node {
            distinct: false,
            ops: members.into_iter().map(Some).collect(),
        });
        let n = s(mb, n);
        di(
            mb,
            COMPOSITE_TYPE,
            vec![0, tag, n, f, 2, 0, 0, size, 32, 0, 0, r(els), 0, 0, 0, 0],
        )
    };
    let (mx, my) = (
        member(&mut mb, "x", float, 0),
        member(&mut mb, "y", float, 32),
    );
    // float2 = vector<float, 2>, a class with members x and y (as dxc describes it).
    let float2 = composite(&mut mb, 0x02, "vector<float, 2>", 64, vec![mx, my]);
    let (ma, mbb) = (
        member(&mut mb, "a", float, 0),
        member(&mut mb, "b", uint, 32),
    );
    let st_ty = composite(&mut mb, 0x13, "S", 64, vec![ma, mbb]);
    // float3x3 = matrix<float, 3, 3>: a class whose members dxc names _11 … _33 (row,
    // column, from 1) at row-major offsets (clang's CGDebugInfo, HLSL change).
    let cells: Vec<MdId> = (0..9u64)
        .map(|k| {
            member(
                &mut mb,
                &format!("_{}{}", k / 3 + 1, k % 3 + 1),
                float,
                32 * k,
            )
        })
        .collect();
    let m_ty = composite(&mut mb, 0x02, "matrix<float, 3, 3>", 288, cells);
    let p_ty = if damage == Damage::NotAType {
        f
    } else {
        r(float2)
    };
    let var = |mb: &mut Mb, tag: u64, scope: MdId, n: &str, line: u64, ty: u64, arg: u64| {
        let n = s(mb, n);
        di(
            mb,
            LOCAL_VAR,
            vec![0, tag, r(scope), n, f, line, ty, arg, 0],
        )
    };
    let p = var(&mut mb, 0x100, block, "p", 10, p_ty, 0);
    let s_var = var(&mut mb, 0x100, block, "s", 11, r(float), 0);
    let st = var(&mut mb, 0x100, block, "st", 12, r(st_ty), 0);
    let m_var = var(&mut mb, 0x100, block, "m", 12, r(m_ty), 0);
    let v = var(&mut mb, 0x101, sq_sp, "v", 3, r(float), 1);
    let piece = |mb: &mut Mb, off: u64| di(mb, EXPRESSION, vec![0, 0x9d, off, 32]);
    let (lo, hi) = (piece(&mut mb, 0), piece(&mut mb, 32));
    let m_pieces: Vec<MdId> = (0..9u64).map(|k| piece(&mut mb, 32 * k)).collect();
    let whole = di(&mut mb, EXPRESSION, vec![0]);
    let call_site = mb.md(Metadata::Location {
        distinct: false,
        line: 11,
        column: 15,
        scope: block,
        inlined_at: None,
    });
    if debug {
        let text = s(&mut mb, HLSL);
        let name_id = MdId(file_name as u32 - 1);
        let contents = mb.md(Metadata::Node {
            distinct: false,
            ops: vec![Some(name_id), Some(MdId(text as u32 - 1))],
        });
        let main_name = mb.md(Metadata::Node {
            distinct: false,
            ops: vec![Some(name_id)],
        });
        for (n, id) in [
            ("dx.source.contents", contents),
            ("dx.source.mainFileName", main_name),
        ] {
            mb.m.named_metadata.push(NamedMetadata {
                name: n.into(),
                ops: vec![id],
            });
        }
    }
    let bad_scope = MdId(40_000);
    let scope_of_10 = if damage == Damage::BadId {
        bad_scope
    } else {
        block
    };

    // The body.
    let at = |mb: &mut Mb, l: DebugLoc| {
        if debug {
            mb.at(l);
        }
    };
    let c0 = mb.ci(32, 0);
    let zero64 = mb.ci(64, 0);
    let two = mb.c(f32t, Constant::Float(2.0f32.to_bits().into()));
    let onef = mb.c(f32t, Constant::Float(1.0f32.to_bits().into()));
    let ones: Vec<ValueId> = (1..=6)
        .map(|k| mb.c(f32t, Constant::Float((k as f32).to_bits().into())))
        .collect();
    let dbg = |mb: &mut Mb, val: ValueId, var: MdId, expr: MdId, l: DebugLoc| {
        if !debug {
            return;
        }
        let ty = mb.ty_of(val);
        let vm = mb.local_md(Metadata::Value { ty, value: val });
        mb.call(
            "llvm.dbg.value",
            void,
            vec![mdt, i64t, mdt, mdt],
            vec![
                Operand::Metadata(vm),
                Operand::Value(zero64),
                Operand::Metadata(var),
                Operand::Metadata(expr),
            ],
        );
        mb.at(l);
    };
    mb.block();
    let h = mb.handle(1, 0, 0);
    at(&mut mb, loc(13, 5, block, None));
    let tid = mb.dx("threadId.i32", DxOp::ThreadId, &[c0], i32t);
    at(&mut mb, loc(10, 23, scope_of_10, None));
    if damage == Damage::ExtraInstruction {
        mb.bin(BinOp::Mul, tid, tid, i32t);
    }
    let fx = mb.cast(CastOp::UiToFp, tid, f32t);
    at(&mut mb, loc(10, 23, block, None));
    dbg(&mut mb, fx, p, lo, loc(10, 12, block, None));
    dbg(&mut mb, two, p, hi, loc(10, 12, block, None));
    let inl = |line, col| loc(line, col, sq_sp, Some(call_site));
    dbg(&mut mb, fx, v, whole, inl(3, 16));
    let sqv = mb.bin(BinOp::Mul, fx, fx, f32t);
    at(&mut mb, inl(5, 14));
    let s1 = mb.bin(BinOp::Add, sqv, onef, f32t);
    at(&mut mb, loc(11, 23, block, None));
    dbg(&mut mb, s1, s_var, whole, loc(11, 11, block, None));
    dbg(&mut mb, s1, st, lo, loc(12, 10, block, None));
    dbg(&mut mb, tid, st, hi, loc(12, 23, block, None));
    for (k, &val) in [fx, two, s1].iter().chain(&ones).enumerate() {
        dbg(&mut mb, val, m_var, m_pieces[k], loc(12, 43, block, None));
    }
    let sum = mb.bin(BinOp::Add, s1, two, f32t);
    at(&mut mb, loc(13, 30, block, None));
    let c4 = mb.ci(32, 4);
    let addr = mb.bin(BinOp::Mul, tid, c4, i32t);
    at(&mut mb, loc(13, 14, block, None));
    // Left without a location, as compiler-made instructions may be.
    let bits = mb.cast(CastOp::BitCast, sum, i32t);
    mb.store_word(h, addr, bits);
    at(&mut mb, loc(13, 5, block, None));
    mb.ret();
    at(&mut mb, loc(14, 1, block, None));
    let (mut m, fi) = mb.finish();
    if !debug {
        // Stripped, as dxc strips the DXIL part: no debug records are left.
        for md in &mut m.metadata {
            if matches!(md, Metadata::Debug { .. } | Metadata::Location { .. }) {
                *md = Metadata::Node {
                    distinct: false,
                    ops: Vec::new(),
                };
            }
        }
    }

    names.finish(&mut m, fi);
    m
}

fn target(m: &Module) -> (Target, Memory) {
    split_target(m, None)
}

/// A target running `m`, with `debug` as its `ILDB` debug module.
fn split_target(m: &Module, debug: Option<&Module>) -> (Target, Memory) {
    program_target(Program::from_dxil_module(m, debug, None).unwrap())
}

/// A target running `program` on one group of 4 threads, u0 a 16-byte raw buffer.
fn program_target(program: Program) -> (Target, Memory) {
    let mem = Memory::zeroed(16).unwrap();
    let bindings = Bindings {
        ranges: vec![vec![Descriptor::Buffer {
            view: BufferView::whole(mem.clone(), BufferKind::Raw),
            counter: None,
        }]],
        ..Bindings::default()
    };
    let plan = Plan {
        threads: 1,
        ..Plan::default()
    };
    (
        Target::new(program, bindings, [1, 1, 1], plan).unwrap(),
        mem,
    )
}

/// A session on thread (3, 0, 0): `id.x` = 3, so `p` = (3, 2), `s` = 3·3 + 1 = 10,
/// `st` = {10, 3}, and the thread stores 10 + 2 = 12.0 at byte 12.
fn session(debug: bool, damage: Damage) -> Debugger {
    let (t, _) = target(&module(debug, damage));
    Debugger::open(t, LaneSelect::Thread([3, 0, 0]), DebugOptions::default()).unwrap()
}

/// The HLSL line `where` shows for the next step (`next line N of …`).
fn line(d: &mut Debugger) -> Option<u32> {
    let w = d.where_text();
    let n = w.split("next line ").nth(1)?;
    n.split(' ').next()?.parse().ok()
}

fn run_cmd(d: &mut Debugger, cmd: &str) -> String {
    d.execute(cmd)
        .unwrap_or_else(|e| panic!("`{cmd}`: {e}\n{}", d.where_text()))
}

/// The program runs as it should: the store of thread 3 is 12.0 at byte 12.
#[test]
fn the_program_computes_what_its_hlsl_says() {
    let (t, mem) = target(&module(true, Damage::None));
    let d = Debugger::open(t, LaneSelect::Thread([3, 0, 0]), DebugOptions::default()).unwrap();
    assert!(d.source_level(), "{:?}", d.notes());
    let _ = mem;
    let out = d.outputs();
    assert!(
        out.iter()
            .any(|b| b.len() == 16 && b[12..16] == 12.0f32.to_le_bytes()),
        "{out:?}"
    );
}

/// `step` goes by HLSL line and into the inlined `sq` (its `v * v` on line 5, inlined at
/// line 11); the instruction without a location belongs to no line. `stepi` goes by
/// instruction.
#[test]
fn step_goes_by_line_into_inlined_calls() {
    let mut d = session(true, Damage::None);
    assert_eq!(line(&mut d), Some(13), "{}", d.where_text());
    let mut lines = vec![line(&mut d)];
    while !d.finished() {
        run_cmd(&mut d, "step");
        lines.push(line(&mut d));
    }
    assert_eq!(
        lines,
        [
            Some(13),
            Some(10),
            Some(5),
            Some(11),
            Some(13),
            Some(14),
            None
        ]
    );
    // By instruction: the threadId and the uitofp are both on line 10.
    let mut d = session(true, Damage::None);
    run_cmd(&mut d, "stepi");
    assert_eq!(line(&mut d), Some(10));
    run_cmd(&mut d, "stepi");
    assert_eq!(line(&mut d), Some(10));
    run_cmd(&mut d, "stepi");
    assert_eq!(line(&mut d), Some(5));
    let w = d.where_text();
    assert!(
        w.contains("line 5 of shader.hlsl in sq, inlined at shader.hlsl:11 in main: return v * v;"),
        "{w}"
    );
}

/// `next` steps over the inlined call; `finish` leaves the inlined frame; `back` goes
/// back to where the previous line was entered.
#[test]
fn next_finish_and_back_go_by_line() {
    let mut d = session(true, Damage::None);
    run_cmd(&mut d, "step");
    assert_eq!(line(&mut d), Some(10));
    run_cmd(&mut d, "next");
    assert_eq!(line(&mut d), Some(11), "next skips sq's line 5");
    run_cmd(&mut d, "back");
    assert_eq!(line(&mut d), Some(5));
    run_cmd(&mut d, "back");
    assert_eq!(line(&mut d), Some(10));
    // Back to the line's first step (the threadId), not its last.
    run_cmd(&mut d, "stepi");
    assert_eq!(line(&mut d), Some(10));
    run_cmd(&mut d, "back");
    assert_eq!(line(&mut d), Some(13));
    assert_eq!(d.position(), 0);
    run_cmd(&mut d, "step 2");
    assert_eq!(line(&mut d), Some(5));
    run_cmd(&mut d, "finish");
    assert_eq!(line(&mut d), Some(11), "finish leaves sq");
    // In main, finish runs to the end.
    run_cmd(&mut d, "finish");
    assert!(d.finished());
}

/// `break LINE` is a line of the main file, `break FILE:LINE` of that file; a line
/// without code moves to the next line with some; the lane stops where it enters the
/// line, forward and backward.
#[test]
fn breakpoints_by_file_and_line() {
    let mut d = session(true, Damage::None);
    let b = run_cmd(&mut d, "break 12");
    assert!(
        b.contains("breakpoint 1: line 13 of shader.hlsl: u.Store"),
        "{b}"
    );
    let b = run_cmd(&mut d, "break shader.hlsl:5");
    assert!(b.contains("line 5 of shader.hlsl: return v * v;"), "{b}");
    let c = run_cmd(&mut d, "continue");
    assert!(c.starts_with("breakpoint 2"), "{c}");
    assert_eq!(line(&mut d), Some(5));
    let c = run_cmd(&mut d, "continue");
    assert!(c.starts_with("breakpoint 1"), "{c}");
    assert_eq!(line(&mut d), Some(13));
    // Entered once after line 11: the instruction without location and the store on
    // the same line do not stop it again.
    let c = run_cmd(&mut d, "continue");
    assert!(c.contains("the lane has finished"), "{c}");
    let c = run_cmd(&mut d, "reverse-continue");
    assert!(c.starts_with("breakpoint 1"), "{c}");
    assert_eq!(line(&mut d), Some(13));
    let e = d.execute("break other.hlsl:3").unwrap_err().to_string();
    assert!(
        e.contains("no instruction from a file named other.hlsl"),
        "{e}"
    );
    let e = d.execute("break 15").unwrap_err().to_string();
    assert!(e.contains("on line 15 of shader.hlsl or after it"), "{e}");
    // An instruction index still names the listing.
    let b = run_cmd(&mut d, "break #2");
    assert!(
        b.starts_with("breakpoint 3: line ") && !b.contains(" of shader.hlsl"),
        "{b}"
    );
}

/// HLSL variables assembled from their pieces (`DW_OP_bit_piece`): a vector in two
/// pieces, a struct's members, an inlined function's parameter; optimised out before
/// their bindings take effect.
#[test]
fn variables_assemble_from_their_pieces() {
    let mut d = session(true, Damage::None);
    let p = run_cmd(&mut d, "print p");
    assert_eq!(p, "p.x = optimised out\np.y = optimised out", "{p}");
    run_cmd(&mut d, "step 2");
    assert_eq!(line(&mut d), Some(5));
    let p = run_cmd(&mut d, "print p");
    assert!(
        p.starts_with("p.x = 3.0 (0x40400000)\np.y = 2.0 (0x40000000)"),
        "{p}"
    );
    assert!(run_cmd(&mut d, "print v").starts_with("v = 3.0 (0x40400000)"));
    assert_eq!(run_cmd(&mut d, "print s"), "s = optimised out");
    run_cmd(&mut d, "next");
    run_cmd(&mut d, "next");
    assert_eq!(line(&mut d), Some(13));
    assert!(run_cmd(&mut d, "print s").starts_with("s = 10.0 (0x41200000)"));
    let st = run_cmd(&mut d, "print st");
    assert!(
        st.starts_with("st.a = 10.0 (0x41200000)\nst.b = 3 (0x00000003)"),
        "{st}"
    );
    assert!(run_cmd(&mut d, "print st.b").starts_with("st.b = 3"));
    assert!(run_cmd(&mut d, "print/x p.y").starts_with("p.y = 0x40000000"));
    assert!(run_cmd(&mut d, "print st.c").contains("st has no member .c"));
    // Locals by frame: main's at line 13.
    let l = d.locals(0);
    let names: Vec<&str> = l.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["p", "s", "m", "st"]);
    assert!(
        l[0].value.starts_with("x = 3.0 (0x40400000), y = 2.0"),
        "{:?}",
        l[0]
    );
}

/// `list` shows the HLSL source with the next step's line marked; `bt` the inlined frames.
#[test]
fn list_and_backtrace_show_hlsl() {
    let mut d = session(true, Damage::None);
    run_cmd(&mut d, "step 2");
    let l = run_cmd(&mut d, "list");
    assert!(l.contains("=>     5      return v * v;"), "{l}");
    assert!(l.starts_with("shader.hlsl:"), "{l}");
    let bt = run_cmd(&mut d, "bt");
    assert_eq!(
        bt,
        "#0 sq (inlined) at shader.hlsl:5:14\n#1 main at shader.hlsl:11:15"
    );
    let w = run_cmd(&mut d, "where");
    assert!(w.ends_with(&bt), "{w}");
    // A line as given, code or not; `step 0` moves nothing.
    let l = run_cmd(&mut d, "list 2");
    assert!(l.contains("     2  struct S { float a; uint b; };"), "{l}");
    let p = d.position();
    run_cmd(&mut d, "step 0");
    assert_eq!(d.position(), p);
    // The listing is still there.
    let l = run_cmd(&mut d, "listing");
    assert!(l.contains("fmul"), "{l}");
}

/// Without debug info, `step`, `break` and `list` keep their listing meaning.
#[test]
fn without_debug_info_everything_is_by_listing() {
    let mut d = session(false, Damage::None);
    assert!(!d.source_level());
    assert!(d.frames().is_empty());
    let w = d.where_text();
    assert!(!w.contains("shader.hlsl"), "{w}");
    let first = d.current_line().unwrap();
    run_cmd(&mut d, "step");
    assert_eq!(d.position(), 1);
    let l = run_cmd(&mut d, "list");
    assert!(l.contains("=>"), "{l}");
    let e = d.execute("break shader.hlsl:5").unwrap_err().to_string();
    assert!(e.contains("is not a line number"), "{e}");
    assert!(run_cmd(&mut d, &format!("break {first}")).starts_with("breakpoint 1: line"));
    assert_eq!(
        run_cmd(&mut d, "bt"),
        "#0 the program (no debug info: one frame, the listing)"
    );
}

/// Malformed debug info (a non-type as a type, a scope cycle, an id naming no record):
/// the session steps the listing and says why; nothing panics.
#[test]
fn malformed_debug_info_falls_back_to_the_listing() {
    for (damage, why) in [
        (Damage::NotAType, "is not a type"),
        (Damage::ScopeCycle, "deeper than 64"),
        (Damage::BadId, "no such metadata"),
    ] {
        let mut d = session(true, damage);
        assert!(!d.source_level());
        let n = d.notes().join("\n");
        assert!(
            n.contains("debug info is not used")
                && n.contains(why)
                && n.contains("stepping by the listing"),
            "{n}"
        );
        run_cmd(&mut d, "step");
        assert_eq!(d.position(), 1);
        assert!(run_cmd(&mut d, "list").contains("=>"));
    }
}

/// A DAP client on a shared buffer: the server writes messages, the test reads them.
#[derive(Clone, Default)]
struct Sink(Rc<RefCell<Vec<u8>>>);

impl std::io::Write for Sink {
    fn write(&mut self, b: &[u8]) -> std::io::Result<usize> {
        self.0.borrow_mut().extend_from_slice(b);
        Ok(b.len())
    }
    fn flush(&mut self) -> std::io::Result<()> {
        Ok(())
    }
}

struct Client<'a> {
    server: Server<'a, Sink>,
    sink: Sink,
    seq: i64,
}

impl Client<'_> {
    fn new(debug: bool) -> Client<'static> {
        let launch = Box::new(move |_: &LaunchArgs| {
            let (t, _) = target(&module(debug, Damage::None));
            Debugger::open(t, LaneSelect::Thread([3, 0, 0]), DebugOptions::default())
                .map_err(|e| e.to_string())
        });
        let sink = Sink::default();
        Client {
            server: Server::new(sink.clone(), launch),
            sink,
            seq: 0,
        }
    }

    /// Sends a request; every message the server sent in answer.
    fn send(&mut self, command: &str, arguments: Value) -> Vec<Value> {
        self.seq += 1;
        let req = json!({ "seq": self.seq, "type": "request", "command": command, "arguments": arguments });
        self.server.message(req.to_string().as_bytes());
        let bytes = std::mem::take(&mut *self.sink.0.borrow_mut());
        let mut r = std::io::Cursor::new(bytes);
        let mut out = Vec::new();
        while let Some(m) = wire::read_message(&mut r).unwrap() {
            out.push(serde_json::from_slice(&m).unwrap());
        }
        out
    }

    /// A request's successful response body.
    fn ok(&mut self, command: &str, arguments: Value) -> Value {
        let msgs = self.send(command, arguments);
        let resp = msgs
            .iter()
            .find(|m| m["type"] == "response")
            .unwrap_or_else(|| panic!("no response to {command}: {msgs:?}"));
        assert_eq!(resp["success"], true, "{command}: {resp}");
        resp["body"].clone()
    }

    fn top(&mut self) -> Value {
        self.ok("stackTrace", json!({ "threadId": 4 }))["stackFrames"].clone()
    }
}

/// DAP with debug info: HLSL frames (the inlined function its own frame) with their
/// source served by `source`, breakpoints set in the HLSL file, line steps forward and
/// back, a Locals scope, and instruction steps by `granularity`.
#[test]
fn dap_debugs_in_hlsl() {
    let mut c = Client::new(true);
    c.ok("initialize", json!({ "adapterID": "dxlane" }));
    let msgs = c.send("launch", json!({ "job": "x.toml" }));
    assert!(
        msgs.iter().any(|m| m["event"] == "capabilities"
            && m["body"]["capabilities"]["supportsSteppingGranularity"] == true),
        "{msgs:?}"
    );
    let b = c.ok(
        "setBreakpoints",
        json!({ "source": { "name": "shader.hlsl", "path": "shader.hlsl" }, "breakpoints": [{ "line": 5 }, { "line": 12 }] }),
    );
    assert_eq!(b["breakpoints"][0]["verified"], true, "{b}");
    assert_eq!(
        b["breakpoints"][1]["line"], 13,
        "moved to the next line with code: {b}"
    );
    assert_eq!(b["breakpoints"][0]["source"]["sourceReference"], 2, "{b}");
    c.ok("configurationDone", Value::Null);
    let f = c.top();
    assert_eq!(f[0]["line"], 13);
    assert_eq!(f[0]["source"]["name"], "shader.hlsl");
    assert_eq!(f[0]["source"]["path"], "shader.hlsl");
    let src = c.ok("source", json!({ "sourceReference": 2 }));
    assert_eq!(src["content"], HLSL);
    c.ok("continue", json!({ "threadId": 4 }));
    let f = c.top();
    assert_eq!(f.as_array().unwrap().len(), 2, "{f}");
    assert_eq!(
        (f[0]["name"].as_str(), f[0]["line"].as_u64()),
        (Some("sq"), Some(5))
    );
    assert_eq!(
        (f[1]["name"].as_str(), f[1]["line"].as_u64()),
        (Some("main"), Some(11))
    );
    // Locals of each frame.
    let scopes = c.ok("scopes", json!({ "frameId": f[0]["id"] }));
    assert_eq!(scopes["scopes"][0]["name"], "Locals");
    let r = scopes["scopes"][0]["variablesReference"].clone();
    let vars = c.ok("variables", json!({ "variablesReference": r }));
    assert_eq!(vars["variables"][0]["name"], "v");
    assert!(
        vars["variables"][0]["value"]
            .as_str()
            .unwrap()
            .starts_with("3.0 ")
    );
    let scopes = c.ok("scopes", json!({ "frameId": f[1]["id"] }));
    let r = scopes["scopes"][0]["variablesReference"].clone();
    let vars = c.ok("variables", json!({ "variablesReference": r }));
    let p = vars["variables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "p")
        .unwrap();
    assert!(
        p["value"]
            .as_str()
            .unwrap()
            .starts_with("x = 3.0 (0x40400000), y = 2.0"),
        "{p}"
    );
    // stepOut leaves sq; stepBack returns to it; next goes over it.
    c.ok("stepOut", json!({ "threadId": 4 }));
    assert_eq!(c.top()[0]["line"], 11);
    c.ok("stepBack", json!({ "threadId": 4 }));
    assert_eq!(c.top()[0]["line"], 5);
    c.ok("stepBack", json!({ "threadId": 4 }));
    assert_eq!(c.top()[0]["line"], 10);
    c.ok("next", json!({ "threadId": 4 }));
    assert_eq!(c.top()[0]["line"], 11);
    c.ok("stepBack", json!({ "threadId": 4 }));
    c.ok("stepBack", json!({ "threadId": 4 }));
    assert_eq!(c.top()[0]["line"], 10);
    // By instruction: line 10 has two.
    c.ok(
        "stepIn",
        json!({ "threadId": 4, "granularity": "instruction" }),
    );
    assert_eq!(c.top()[0]["line"], 10);
    c.ok("stepIn", json!({ "threadId": 4 }));
    assert_eq!(c.top()[0]["line"], 5);
    let e = c.ok(
        "evaluate",
        json!({ "expression": "p.y", "context": "watch", "frameId": 4 }),
    );
    assert!(
        e["result"].as_str().unwrap().starts_with("p.y = 2.0"),
        "{e}"
    );
    // A source the program does not carry is an error.
    let msgs = c.send("source", json!({ "sourceReference": 9 }));
    assert!(msgs.iter().any(|m| m["success"] == false), "{msgs:?}");
    c.ok("disconnect", Value::Null);
}

/// DAP without debug info: one frame, the listing, as before.
#[test]
fn dap_without_debug_info_shows_the_listing() {
    let mut c = Client::new(false);
    c.ok("initialize", json!({}));
    let msgs = c.send("launch", json!({ "job": "x.toml" }));
    assert!(
        !msgs.iter().any(|m| m["event"] == "capabilities"),
        "{msgs:?}"
    );
    c.ok("configurationDone", Value::Null);
    let f = c.top();
    assert_eq!(f.as_array().unwrap().len(), 1);
    assert_eq!(f[0]["source"]["sourceReference"], 1);
    let scopes = c.ok("scopes", json!({ "frameId": 4 }));
    assert_ne!(scopes["scopes"][0]["name"], "Locals");
    let msgs = c.send(
        "setBreakpoints",
        json!({ "source": { "path": "shader.hlsl" }, "breakpoints": [{ "line": 5 }] }),
    );
    assert!(msgs.iter().any(|m| m["success"] == false), "{msgs:?}");
}

/// dxc -Zi keeps the debug module in the `ILDB` part and strips the `DXIL` part (no
/// `llvm.dbg.*` calls, no locations): the session runs the stripped module and maps the
/// debug module's instructions onto it, skipping the `llvm.dbg` calls.
#[test]
fn an_ildb_debug_module_debugs_the_stripped_program() {
    let (run, debug) = (module(false, Damage::None), module(true, Damage::None));
    let (t, _) = split_target(&run, Some(&debug));
    let mut d = Debugger::open(t, LaneSelect::Thread([3, 0, 0]), DebugOptions::default()).unwrap();
    assert!(d.source_level(), "{:?}", d.notes());
    let mut lines = vec![line(&mut d)];
    while !d.finished() {
        run_cmd(&mut d, "step");
        lines.push(line(&mut d));
    }
    assert_eq!(
        lines,
        [
            Some(13),
            Some(10),
            Some(5),
            Some(11),
            Some(13),
            Some(14),
            None
        ]
    );
    // From the end: back to line 14, to the second entry of 13, then to 11.
    run_cmd(&mut d, "back 3");
    assert_eq!(line(&mut d), Some(11));
    assert!(run_cmd(&mut d, "print p").starts_with("p.x = 3.0 (0x40400000)\np.y = 2.0"));
    run_cmd(&mut d, "next");
    let st = run_cmd(&mut d, "print st");
    assert!(st.starts_with("st.a = 10.0 (0x41200000)\nst.b = 3"), "{st}");
    // A debug module that is not the run's: the listing, with the reason.
    let other = module(true, Damage::ExtraInstruction);
    let (t, _) = split_target(&run, Some(&other));
    let d = Debugger::open(t, LaneSelect::Thread([3, 0, 0]), DebugOptions::default()).unwrap();
    assert!(!d.source_level());
    let n = d.notes().join("\n");
    assert!(
        n.contains("ILDB: instruction 2 of the ILDB module's main is not instruction 2"),
        "{n}"
    );
}

/// dxc describes `float3x3` as the class `matrix<float, 3, 3>` with members `_11` …
/// `_33` at row-major offsets (clang's CGDebugInfo, HLSL change): `print` shows it by
/// row, and an element reads as `m[1][2]`, `m._m12` (from 0) or `m._23` (from 1). Thread
/// 3: m = { p, s, 1, 2, 3, 4, 5, 6 } = rows (3, 2, 10), (1, 2, 3), (4, 5, 6).
#[test]
fn matrices_print_by_row_and_by_element() {
    let mut d = session(true, Damage::None);
    run_cmd(&mut d, "break 13 if st.b == 3");
    run_cmd(&mut d, "continue");
    assert_eq!(d.position(), 5, "{}", d.where_text());
    let m = run_cmd(&mut d, "print m");
    assert_eq!(
        m,
        "m[0] = 3.0 (0x40400000), 2.0 (0x40000000), 10.0 (0x41200000)\n\
         m[1] = 1.0 (0x3f800000), 2.0 (0x40000000), 3.0 (0x40400000)\n\
         m[2] = 4.0 (0x40800000), 5.0 (0x40a00000), 6.0 (0x40c00000)"
    );
    for spelling in ["m[1][2]", "m._m12", "m._23"] {
        assert_eq!(
            run_cmd(&mut d, &format!("print {spelling}")),
            "m[1][2] = 3.0 (0x40400000)",
            "{spelling}"
        );
    }
    assert_eq!(
        run_cmd(&mut d, "print m[2]"),
        "m[2] = 4.0 (0x40800000), 5.0 (0x40a00000), 6.0 (0x40c00000)"
    );
    // In a condition, an element is one scalar; the matrix is not.
    run_cmd(&mut d, "delete");
    run_cmd(&mut d, "break 13 if m._m02 == 10 && m[1][2] > 2.5");
    let back = run_cmd(&mut d, "reverse-continue");
    assert!(
        back.contains("its condition cannot be evaluated here"),
        "{back}"
    );
    let e = d.execute("break 13 if m > 1").unwrap_err().to_string();
    assert!(e.contains("`m` has 9 scalars"), "{e}");
}

/// Breakpoint conditions name HLSL variables (a scalar: `s`, `p.x`, `st.b`), read at
/// the step the breakpoint is tested on (docs/debugger.md, "Debugging in HLSL"). A name
/// that is neither an HLSL scalar nor a place of the program is refused when the
/// breakpoint is set; a variable nothing holds where the line is entered stops the lane
/// with the reason instead of being taken as false.
#[test]
fn conditions_read_hlsl_variables_at_the_step() {
    let mut d = session(true, Damage::None);
    // s = 10 where line 13 is entered the second time (step 5): not > 100.
    run_cmd(&mut d, "break 13 if s > 100");
    let c = run_cmd(&mut d, "continue");
    assert!(c.contains("the lane has finished"), "{c}");
    run_cmd(&mut d, "delete");
    run_cmd(&mut d, "break 13 if s > 9.5 && p.x == 3 && st.b != 2");
    let c = run_cmd(&mut d, "reverse-continue");
    assert!(c.starts_with("breakpoint 2"), "{c}");
    assert!(!c.contains("cannot be evaluated"), "{c}");
    assert_eq!(d.position(), 5);
    // Line 10 is entered at step 1, where s is not held yet.
    run_cmd(&mut d, "delete");
    run_cmd(&mut d, "break 10 if s > 1");
    let c = run_cmd(&mut d, "reverse-continue");
    assert!(
        c.contains("its condition cannot be evaluated here: `s` is optimised out here"),
        "{c}"
    );
    assert_eq!(d.position(), 1);
    for (cond, says) in [
        ("p > 1", "`p` has 2 scalars"),
        ("st.c == 1", "`st.c` names no HLSL variable or member"),
        ("q[1][2] == 0", "`q[1][2]` names no HLSL variable here"),
    ] {
        let e = d
            .execute(&format!("break 13 if {cond}"))
            .unwrap_err()
            .to_string();
        assert!(e.contains(says), "{cond}: {e}");
    }
}

/// Checks that the files in `folder` (under the repository root) are what `containers`
/// makes of their modules today; with `DXLANE_BLESS` set, writes them instead.
fn check_committed(folder: &str, containers: Vec<(&'static str, Vec<u8>)>) {
    let dir = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(folder);
    let bless = std::env::var_os("DXLANE_BLESS").is_some();
    for (name, bytes) in containers {
        let path = dir.join(name);
        if bless {
            std::fs::write(&path, &bytes).unwrap();
            continue;
        }
        let old = std::fs::read(&path)
            .unwrap_or_else(|e| panic!("{name}: {e}; DXLANE_BLESS=1 writes it"));
        assert!(
            old == bytes,
            "{folder}/{name} differs from what the writers make (DXLANE_BLESS=1 rewrites it)"
        );
    }
}

mod debug_break;
mod declare;
mod spdb;
mod spdb_domain;
mod spdb_inline;
mod spdb_vertex;
mod zi;
