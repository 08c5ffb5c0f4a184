//! The instructions that ask for a debugger: SM 6.10's `DebugBreak()` and
//! `IsDebuggingEnabled()` (DXIL.rst's opcode table, 2147483681 and 2147483682; their
//! meaning from the HLSL specifications' proposal 0039 "Debugging Intrinsics": a break
//! stops an attached debugger and is ignored without one, the query is true only under
//! a debugger) and DXBC's `debug_break` and `abort` (`D3D11_SB_OPCODE_DEBUG_BREAK` 208,
//! `D3D11_SB_OPCODE_ABORT` 207 of the D3D11 token format).
//!
//! The programs are built here, not compiled (no dxc with SM 6.10 and no fxc at hand,
//! and vkd3d's HLSL compiler has no `abort()`): the DXIL module with the test module
//! builder, the DXBC program token by token (the token layouts of `dxbc::token`). Both
//! are written to `tests/jobs/debug_break/`, which the CLI, debug-script and DAP tests
//! use; [`the_committed_containers_are_regenerated_unchanged`] keeps them in step
//! (`DXLANE_BLESS=1` rewrites them).

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::{ComputeNames, DL};
use crate::container::write::{dxil_part, write_container};
use crate::container::{FourCc, ProgramKind, ProgramVersion};
use crate::debug::source::ProgramBreak;
use crate::debug::{DebugOptions, Debugger, LaneSelect, Program, Target};
use crate::dxbc::Opcode;
use crate::dxbc::token::encode::{mask, opcode, operand, select1};
use crate::dxil::dxop::DxOp;
use crate::dxil::llvm::build::Mb;
use crate::dxil::llvm::write::write_module;
use crate::dxil::llvm::{BinOp, CastOp, Module};
use crate::ir::{Inst, SourceLoc};
use crate::lower::{self, LoadOptions};
use crate::pipeline::{Bindings, Plan, dispatch};
use crate::resources::{BufferKind, BufferView, Descriptor, Memory};

/// The DXIL program, as dxc would compile
///
/// ```hlsl
/// RWByteAddressBuffer u : register(u0);
/// [numthreads(4, 1, 1)]
/// void main(uint3 id : SV_DispatchThreadID) {
///     DebugBreak();
///     u.Store(id.x * 4, id.x * 10 + (IsDebuggingEnabled() ? 1 : 0));
/// }
/// ```
///
/// for cs_6_10: thread i stores 10 i, plus 1 under a debugger.
fn dxil_module() -> Module {
    let mut mb = Mb::new(DL);
    let (i32t, i1t, void) = (mb.int(32), mb.int(1), mb.void());
    let names = ComputeNames::new(&mut mb);
    mb.block();
    let h = mb.handle(1, 0, 0);
    let c0 = mb.ci(32, 0);
    let tid = mb.dx("threadId.i32", DxOp::ThreadId, &[c0], i32t);
    mb.dx("debugBreak", DxOp::DebugBreak, &[], void);
    let on = mb.dx("isDebuggerPresent", DxOp::IsDebuggingEnabled, &[], i1t);
    let one = mb.cast(CastOp::ZExt, on, i32t);
    let ten = mb.ci(32, 10);
    let tens = mb.bin(BinOp::Mul, tid, ten, i32t);
    let v = mb.bin(BinOp::Add, tens, one, i32t);
    let four = mb.ci(32, 4);
    let addr = mb.bin(BinOp::Mul, tid, four, i32t);
    mb.store_word(h, addr, v);
    mb.ret();
    let (mut m, fi) = mb.finish();
    names.finish(&mut m, fi);
    m
}

/// The DXIL container: the module in a `DXIL` part of a cs_6_10 program.
fn dxil_container() -> Vec<u8> {
    let version = ProgramVersion {
        kind: ProgramKind::Compute,
        major: 6,
        minor: 10,
    };
    let part = dxil_part(version, (1, 10), &write_module(&dxil_module()).unwrap()).unwrap();
    write_container(&[(FourCc::DXIL, &part)]).unwrap()
}

/// The DXBC program's instruction indices (declarations count).
const DXBC_DEBUG_BREAK: u32 = 6;
const DXBC_ABORT: u32 = 9;

/// The DXBC program, cs_5_0, `[numthreads(4, 1, 1)]`:
///
/// ```text
/// 0 dcl_thread_group 4, 1, 1
/// 1 dcl_uav_raw u0
/// 2 dcl_input vThreadID.x
/// 3 dcl_temps 1
/// 4 ishl r0.x, vThreadID.x, l(2)
/// 5 store_raw u0.x, r0.x, vThreadID.x
/// 6 debug_break
/// 7 ieq r0.y, vThreadID.x, l(2)
/// 8 if_nz r0.y
/// 9   abort
/// 10 endif
/// 11 store_raw u0.x, r0.x, l(99)
/// 12 ret
/// ```
///
/// Thread i stores i, then 99 over it — but thread 2 aborts first, so u0 holds
/// 99, 99, 2, 99, with or without a debugger.
fn dxbc_tokens() -> Vec<u32> {
    const TEMP: u8 = 0;
    const IMM32: u8 = 4;
    const UAV: u8 = 30;
    const TID: u8 = 32;
    let r = |c: u8| vec![operand(TEMP, 2, mask(1 << c), 1, [0; 3]), 0];
    let rs = |c: u8| vec![operand(TEMP, 2, select1(c), 1, [0; 3]), 0];
    let tid = vec![operand(TID, 2, select1(0), 0, [0; 3])];
    let l = |v: u32| vec![operand(IMM32, 1, 0, 0, [0; 3]), v];
    let u0 = vec![operand(UAV, 2, mask(1), 1, [0; 3]), 0];
    let mut t: Vec<u32> = vec![0x0005_0050, 0];
    let mut op = |o: Opcode, controls: u32, body: &[&[u32]]| {
        let body = body.concat();
        t.push(opcode(o.code(), body.len() as u32 + 1, controls));
        t.extend(body);
    };
    op(Opcode::DclThreadGroup, 0, &[&[4, 1, 1]]);
    op(Opcode::DclUavRaw, 0, &[&[operand(UAV, 0, 0, 1, [0; 3]), 0]]);
    op(
        Opcode::DclInput,
        0,
        &[&[operand(TID, 2, mask(1), 0, [0; 3])]],
    );
    op(Opcode::DclTemps, 0, &[&[1]]);
    op(Opcode::Ishl, 0, &[&r(0), &tid, &l(2)]);
    op(Opcode::StoreRaw, 0, &[&u0, &rs(0), &tid]);
    op(Opcode::DebugBreak, 0, &[]);
    op(Opcode::Ieq, 0, &[&r(1), &tid, &l(2)]);
    op(Opcode::If, 1 << 18, &[&rs(1)]);
    op(Opcode::Abort, 0, &[]);
    op(Opcode::EndIf, 0, &[]);
    op(Opcode::StoreRaw, 0, &[&u0, &rs(0), &l(99)]);
    op(Opcode::Ret, 0, &[]);
    t[1] = t.len() as u32;
    t
}

/// The DXBC container: `SHEX` and the empty signatures of a compute program.
fn dxbc_container() -> Vec<u8> {
    let shex: Vec<u8> = dxbc_tokens().iter().flat_map(|w| w.to_le_bytes()).collect();
    // A signature part without elements: count 0, elements at byte 8.
    let empty: Vec<u8> = [0u32, 8].iter().flat_map(|w| w.to_le_bytes()).collect();
    write_container(&[
        (FourCc(*b"ISGN"), &empty),
        (FourCc(*b"OSGN"), &empty),
        (FourCc::SHEX, &shex),
    ])
    .unwrap()
}

/// The containers of `tests/jobs/debug_break/`, by file name.
fn containers() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("debug_break.dxil", dxil_container()),
        ("debug_break.dxbc", dxbc_container()),
    ]
}

#[test]
fn the_committed_containers_are_regenerated_unchanged() {
    super::check_committed("tests/jobs/debug_break", containers());
}

/// Lowers `bytes` with or without `debugging`, runs one group of 4 threads on a raw
/// 16-byte `u0`, and returns the shader and `u0`'s words.
fn run(bytes: &[u8], debugging: bool) -> (crate::ir::Shader, Vec<u32>) {
    let opts = LoadOptions {
        debugging,
        no_opt: debugging,
        ..LoadOptions::default()
    };
    let shader = lower::load(bytes, &opts).unwrap().shader;
    crate::ir::validate(&shader).unwrap();
    let mem = Memory::zeroed(16).unwrap();
    let bindings = Bindings {
        ranges: vec![vec![Descriptor::Buffer {
            view: BufferView::whole(mem.clone(), BufferKind::Raw),
            counter: None,
        }]],
        ..Bindings::default()
    };
    dispatch(&shader, &bindings, [1, 1, 1], &Plan::default(), None).unwrap();
    let words = mem
        .to_bytes()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect();
    (shader, words)
}

/// The IR instructions lowered from source position `at`.
fn lowered_from(s: &crate::ir::Shader, at: impl Fn(&SourceLoc) -> bool) -> Vec<&Inst> {
    s.insts
        .iter()
        .zip(&s.locs)
        .filter(|(_, l)| at(l))
        .map(|(i, _)| i)
        .collect()
}

/// Proposal 0039: `IsDebuggingEnabled()` is false without a debugger and true under
/// one; `DebugBreak()` is ignored without one. The two lowerings differ only there: the
/// query's constant, and the break's own step.
#[test]
fn is_debugging_enabled_says_which_lowering_and_debug_break_is_a_step_only_for_a_debugger() {
    let bytes = dxil_container();
    let (plain, out) = run(&bytes, false);
    assert_eq!(out, [0, 10, 20, 30], "false outside a debugger:\n{plain}");
    let (debug, out) = run(&bytes, true);
    assert_eq!(out, [1, 11, 21, 31], "true under a debugger:\n{debug}");
    // The call is instruction 3 of main: the handle, the opcode's function, threadId,
    // then the break (the builder's numbering: `handle`, `threadId`, `debugBreak`).
    let break_at = |s: &crate::ir::Shader| {
        let view = crate::debug::source::SourceView::dxil("", &[], &dxil_module(), s, None);
        view.breaks.clone()
    };
    let (debug_raw, _) = run(&bytes, true);
    let breaks = break_at(&debug_raw);
    assert_eq!(breaks.len(), 1, "{breaks:?}");
    assert_eq!(breaks[0].1, ProgramBreak::DebugBreak);
    let key = breaks[0].0;
    let at = |l: &SourceLoc| {
        *l == SourceLoc::Dxil {
            function: key.0,
            inst: key.1,
        }
    };
    assert_eq!(lowered_from(&debug_raw, at).len(), 1, "{debug_raw}");
    let plain_raw = lower::load(
        &bytes,
        &LoadOptions {
            no_opt: true,
            ..LoadOptions::default()
        },
    )
    .unwrap()
    .shader;
    assert!(lowered_from(&plain_raw, at).is_empty(), "{plain_raw}");
}

/// DXBC `debug_break` is a step only under a debugger, and `abort` ends the invocation
/// in both lowerings: thread 2's second store never happens.
#[test]
fn dxbc_abort_ends_the_invocation_and_debug_break_is_a_step_only_for_a_debugger() {
    let bytes = dxbc_container();
    for debugging in [false, true] {
        let (s, out) = run(&bytes, debugging);
        assert_eq!(out, [99, 99, 2, 99], "debugging {debugging}:\n{s}");
        let at = |index: u32| move |l: &SourceLoc| matches!(*l, SourceLoc::Dxbc { index: i, .. } if i == index);
        let steps = usize::from(debugging);
        assert_eq!(lowered_from(&s, at(DXBC_DEBUG_BREAK)).len(), steps, "{s}");
        assert_eq!(lowered_from(&s, at(DXBC_ABORT)).len(), steps, "{s}");
    }
}

/// A session on `bytes` (compute, one group of 4 threads, a raw 16-byte `u0`) at
/// thread `x`.
fn session(bytes: &[u8], x: u32) -> Debugger {
    let program = Program::from_container(bytes, None).unwrap();
    let mem = Memory::zeroed(16).unwrap();
    let bindings = Bindings {
        ranges: vec![vec![Descriptor::Buffer {
            view: BufferView::whole(mem, BufferKind::Raw),
            counter: None,
        }]],
        ..Bindings::default()
    };
    let plan = Plan {
        threads: 1,
        ..Plan::default()
    };
    let t = Target::new(program, bindings, [1, 1, 1], plan).unwrap();
    Debugger::open(t, LaneSelect::Thread([x, 0, 0]), DebugOptions::default()).unwrap()
}

fn cmd(d: &mut Debugger, c: &str) -> String {
    d.execute(c)
        .unwrap_or_else(|e| panic!("`{c}`: {e}\n{}", d.where_text()))
}

/// Under the debugger `continue` stops at `DebugBreak()` as at a breakpoint the program
/// set, saying so; the value of `IsDebuggingEnabled()` is true there, and the run ends
/// with the debugger's values.
#[test]
fn continue_stops_at_debug_break() {
    let mut d = session(&dxil_container(), 1);
    assert_eq!(d.program_breakpoints().len(), 1);
    let text = cmd(&mut d, "continue");
    assert!(
        text.starts_with("breakpoint 1: the program's DebugBreak() (listing line "),
        "{text}"
    );
    let text = cmd(&mut d, "continue");
    assert!(!text.contains("breakpoint"), "one break per lane: {text}");
    assert!(d.finished(), "{text}");
    let out = d.outputs();
    assert!(
        out.iter()
            .any(|b| b.len() == 16 && b[4..8] == 11u32.to_le_bytes()),
        "{out:?}"
    );
    // Going back, the lane stops there again.
    let text = cmd(&mut d, "reverse-continue");
    assert!(text.starts_with("breakpoint 1: "), "{text}");
    // `delete` removes the program's breakpoint as any other.
    cmd(&mut d, "delete 1");
    cmd(&mut d, "back 10");
    let text = cmd(&mut d, "continue");
    assert!(!text.contains("breakpoint"), "{text}");
}

/// DXBC: every lane stops at `debug_break`; thread 2 then stops at `abort`, whose stop
/// says the invocation ends there, and ends without its second store; thread 0 never
/// reaches the `abort`.
#[test]
fn continue_stops_at_debug_break_and_abort() {
    let mut d = session(&dxbc_container(), 2);
    let text = cmd(&mut d, "continue");
    assert!(
        text.starts_with("breakpoint 1: the program's debug_break (listing line 8)"),
        "{text}"
    );
    let text = cmd(&mut d, "continue");
    assert!(
        text.starts_with(
            "breakpoint 2: the program's abort (listing line 11): the invocation ends here"
        ),
        "{text}"
    );
    cmd(&mut d, "continue");
    assert!(d.finished());
    let out = d.outputs();
    assert!(
        out.iter()
            .any(|b| b.len() == 16 && b[8..12] == 2u32.to_le_bytes()),
        "{out:?}"
    );
    let mut d = session(&dxbc_container(), 0);
    cmd(&mut d, "continue");
    let text = cmd(&mut d, "continue");
    assert!(!text.contains("breakpoint"), "{text}");
    assert!(d.finished());
}

/// The DXIL listing names the two experimental operations as it names the others
/// (their names and empty operand lists from DXIL.rst's experimental opcode table),
/// not as an invalid opcode: the committed container's listing shows both calls.
#[test]
fn the_listing_names_debug_break_and_is_debugging_enabled() {
    let text = crate::dxil::listing::disassemble(&dxil_container()).unwrap();
    let line_of = |call: &str| {
        text.lines()
            .find(|l| l.contains(call) && l.contains("call "))
            .unwrap_or_else(|| panic!("no call of {call} in\n{text}"))
            .to_string()
    };
    let brk = line_of("@dx.op.debugBreak(");
    assert!(brk.ends_with("  ; DebugBreak()"), "{brk}");
    // LLVM prints an `i32` constant signed: 2147483681 is -2147483615.
    assert!(brk.contains("(i32 -2147483615)"), "{brk}");
    let q = line_of("@dx.op.isDebuggerPresent(");
    assert!(q.ends_with("  ; IsDebuggingEnabled()"), "{q}");
    assert!(!text.contains("invalid DXIL opcode"), "{text}");
}
