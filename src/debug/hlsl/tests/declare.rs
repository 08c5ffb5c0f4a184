//! Variables dxc keeps in memory: `llvm.dbg.declare(metadata %alloca, metadata
//! !DILocalVariable, metadata !DIExpression())` binds an `alloca`'s address to the
//! variable (LLVM 3.7's `Intrinsics.td` and "Source Level Debugging with LLVM",
//! `llvm.dbg.declare`), as dxc writes it for local arrays and structs (and for every
//! local at `-Od`). When its scalar replacement splits a struct into one `alloca` per
//! member, each declare's `DW_OP_bit_piece` says which of the variable's bits that
//! `alloca` holds. The module is built with the test builder from those layouts; values
//! are worked out by hand from [`HLSL`].

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation
)]

use super::{
    BASIC_TYPE, COMPILE_UNIT, COMPOSITE_TYPE, ComputeNames, DERIVED_TYPE, DL, EXPRESSION, FILE,
    LOCAL_VAR, SUBPROGRAM, di, loc, r, run_cmd, s, target,
};
use crate::debug::{DebugOptions, Debugger, LaneSelect};
use crate::dxil::dxop::DxOp;
use crate::dxil::llvm::build::{FIRST, Mb};
use crate::dxil::llvm::{
    BinOp, CastOp, Constant, InstKind, MdId, Metadata, Module, NamedMetadata, Operand, Type,
    ValueId,
};

/// The HLSL the module stands for (`mem.hlsl`).
const HLSL: &str = "RWByteAddressBuffer u : register(u0);
struct T { float a; uint b; };
[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float a[3];
    T st, w;
    a[1] = id.x;
    st.b = id.x + 5; w.b = 7;
    a[0] = 2.0; w.a = a[1];
    u.Store(id.x * 4, asuint(a[1]) + st.b);
}
";

/// The compute program of [`HLSL`]: `a` and `st` each in an `alloca` of their own type
/// (`st`'s left unnamed, as the lowering then names its array by index), `w` split into
/// an `alloca` per member (`w.a`, `w.b`) with a declare for each, bits 0–31 and 32–63.
fn module() -> Module {
    module_with(Bind::Declare)
}

/// How the module binds `a` and `st` to their memory.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Bind {
    /// `llvm.dbg.declare(%alloca)`.
    Declare,
    /// `llvm.dbg.value` of a pointer with `DW_OP_deref` ("Source Level Debugging with
    /// LLVM" 3.7: the value is the variable's address): `a` through `getelementptr
    /// %a, 0, 0` (its first element, byte 0), `st` member by member through
    /// `getelementptr %st, 0, 0` (bits 0–31) and `getelementptr %st, 0, 1` (bits 32–63,
    /// a pointer 4 bytes into the `alloca`). The values read are the declare's.
    Deref,
}

/// The module with `a` and `st` bound as `bind` says.
fn module_with(bind: Bind) -> Module {
    let mut mb = Mb::new(DL);
    let (i32t, f32t, void) = (mb.int(32), mb.t(Type::Float), mb.void());
    let mdt = mb.t(Type::Metadata);
    let names = ComputeNames::new(&mut mb);

    let file_name = s(&mut mb, "mem.hlsl");
    let dir = s(&mut mb, "");
    let file = di(&mut mb, FILE, vec![0, file_name, dir]);
    let f = r(file);
    let producer = s(&mut mb, "dxcoob 1.8");
    di(
        &mut mb,
        COMPILE_UNIT,
        vec![1, 5, f, producer, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0],
    );
    let n = s(&mut mb, "main");
    let main_sp = di(
        &mut mb,
        SUBPROGRAM,
        vec![1, f, n, 0, f, 4, 0, 0, 1, 5, 0, 0, 0, 0, 0, 0, 0, 0, 0],
    );
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
    let (ma, mbb) = (
        member(&mut mb, "a", float, 0),
        member(&mut mb, "b", uint, 32),
    );
    let els = mb.md(Metadata::Node {
        distinct: false,
        ops: vec![Some(ma), Some(mbb)],
    });
    let tn = s(&mut mb, "T");
    let t_ty = di(
        &mut mb,
        COMPOSITE_TYPE,
        vec![0, 0x13, tn, f, 2, 0, 0, 64, 32, 0, 0, r(els), 0, 0, 0, 0],
    );
    // float[3]: DW_TAG_array_type of float, one DISubrange of 3 (record 13: [distinct,
    // count, lower bound]).
    let range = di(&mut mb, 13, vec![0, 3, 0]);
    let dims = mb.md(Metadata::Node {
        distinct: false,
        ops: vec![Some(range)],
    });
    let a_ty = di(
        &mut mb,
        COMPOSITE_TYPE,
        vec![
            0,
            0x01,
            0,
            f,
            0,
            0,
            r(float),
            96,
            32,
            0,
            0,
            r(dims),
            0,
            0,
            0,
            0,
        ],
    );
    let var = |mb: &mut Mb, n: &str, line: u64, ty: MdId| {
        let n = s(mb, n);
        di(
            mb,
            LOCAL_VAR,
            vec![0, 0x100, r(main_sp), n, f, line, r(ty), 0, 0],
        )
    };
    let a_var = var(&mut mb, "a", 6, a_ty);
    let st_var = var(&mut mb, "st", 7, t_ty);
    let w_var = var(&mut mb, "w", 7, t_ty);
    let whole = di(&mut mb, EXPRESSION, vec![0]);
    let lo = di(&mut mb, EXPRESSION, vec![0, 0x9d, 0, 32]);
    let hi = di(&mut mb, EXPRESSION, vec![0, 0x9d, 32, 32]);
    // DW_OP_deref (0x06), alone and before each half's DW_OP_bit_piece.
    let deref = di(&mut mb, EXPRESSION, vec![0, 0x06]);
    let deref_lo = di(&mut mb, EXPRESSION, vec![0, 0x06, 0x9d, 0, 32]);
    let deref_hi = di(&mut mb, EXPRESSION, vec![0, 0x06, 0x9d, 32, 32]);
    let i64t = mb.int(64);
    let zero64 = mb.ci(64, 0);
    {
        let text = s(&mut mb, HLSL);
        let name_id = MdId(file_name as u32 - 1);
        let contents = mb.md(Metadata::Node {
            distinct: false,
            ops: vec![Some(name_id), Some(MdId(text as u32 - 1))],
        });
        mb.m.named_metadata.push(NamedMetadata {
            name: "dx.source.contents".into(),
            ops: vec![contents],
        });
    }

    let arr = mb.t(Type::Array {
        len: 3,
        element: f32t,
    });
    let t_llvm = mb.named("struct.T", vec![f32t, i32t]);
    let ptr = |mb: &mut Mb, pointee| {
        mb.t(Type::Pointer {
            pointee,
            address_space: 0,
        })
    };
    let (parr, pt, pf, pi) = (
        ptr(&mut mb, arr),
        ptr(&mut mb, t_llvm),
        ptr(&mut mb, f32t),
        ptr(&mut mb, i32t),
    );
    let (c0, c1, c4, c5, c7) = (
        mb.ci(32, 0),
        mb.ci(32, 1),
        mb.ci(32, 4),
        mb.ci(32, 5),
        mb.ci(32, 7),
    );
    let two = mb.c(f32t, Constant::Float(2.0f32.to_bits().into()));
    let at = |mb: &mut Mb, line: u32| mb.at(loc(line, 5, main_sp, None));
    let alloca = |mb: &mut Mb, allocated, ty| {
        mb.push(
            InstKind::Alloca {
                allocated,
                size: c1,
                align: 4,
                inalloca: false,
                raw_align: 3,
            },
            ty,
        )
    };
    let gep = |mb: &mut Mb, source_ty, base, field: ValueId, ty| {
        mb.push(
            InstKind::Gep {
                inbounds: true,
                source_ty,
                base,
                indices: vec![c0, field],
                explicit_type: true,
            },
            ty,
        )
    };
    let declare = |mb: &mut Mb, p: ValueId, v: MdId, e: MdId, line: u32| {
        let ty = mb.ty_of(p);
        let vm = mb.local_md(Metadata::Value { ty, value: p });
        mb.call(
            "llvm.dbg.declare",
            void,
            vec![mdt, mdt, mdt],
            vec![
                Operand::Metadata(vm),
                Operand::Metadata(v),
                Operand::Metadata(e),
            ],
        );
        at(mb, line);
    };

    mb.block();
    let h = mb.handle(1, 0, 0);
    at(&mut mb, 8);
    let a = alloca(&mut mb, arr, parr);
    at(&mut mb, 6);
    let st = alloca(&mut mb, t_llvm, pt);
    at(&mut mb, 7);
    let wa = alloca(&mut mb, f32t, pf);
    at(&mut mb, 7);
    let wb = alloca(&mut mb, i32t, pi);
    at(&mut mb, 7);
    let value = |mb: &mut Mb, p: ValueId, v: MdId, e: MdId, line: u32| {
        let ty = mb.ty_of(p);
        let vm = mb.local_md(Metadata::Value { ty, value: p });
        mb.call(
            "llvm.dbg.value",
            void,
            vec![mdt, i64t, mdt, mdt],
            vec![
                Operand::Metadata(vm),
                Operand::Value(zero64),
                Operand::Metadata(v),
                Operand::Metadata(e),
            ],
        );
        at(mb, line);
    };
    match bind {
        Bind::Declare => {
            declare(&mut mb, a, a_var, whole, 6);
            declare(&mut mb, st, st_var, whole, 7);
        }
        Bind::Deref => {
            let first = gep(&mut mb, arr, a, c0, pf);
            at(&mut mb, 6);
            let sta = gep(&mut mb, t_llvm, st, c0, pf);
            at(&mut mb, 7);
            let stb = gep(&mut mb, t_llvm, st, c1, pi);
            at(&mut mb, 7);
            value(&mut mb, first, a_var, deref, 6);
            value(&mut mb, sta, st_var, deref_lo, 7);
            value(&mut mb, stb, st_var, deref_hi, 7);
        }
    }
    declare(&mut mb, wa, w_var, lo, 7);
    declare(&mut mb, wb, w_var, hi, 7);
    let tid = mb.dx("threadId.i32", DxOp::ThreadId, &[c0], i32t);
    at(&mut mb, 8);
    let fx = mb.cast(CastOp::UiToFp, tid, f32t);
    at(&mut mb, 8);
    let a1 = gep(&mut mb, arr, a, c1, pf);
    at(&mut mb, 8);
    mb.store(a1, fx);
    at(&mut mb, 8);
    let t5 = mb.bin(BinOp::Add, tid, c5, i32t);
    at(&mut mb, 9);
    let stb = gep(&mut mb, t_llvm, st, c1, pi);
    at(&mut mb, 9);
    mb.store(stb, t5);
    at(&mut mb, 9);
    mb.store(wb, c7);
    at(&mut mb, 9);
    let a0 = gep(&mut mb, arr, a, c0, pf);
    at(&mut mb, 10);
    mb.store(a0, two);
    at(&mut mb, 10);
    let x = mb.load(a1, f32t);
    at(&mut mb, 10);
    mb.store(wa, x);
    at(&mut mb, 10);
    let y = mb.load(a1, f32t);
    at(&mut mb, 11);
    let bits = mb.cast(CastOp::BitCast, y, i32t);
    at(&mut mb, 11);
    let b = mb.load(stb, i32t);
    at(&mut mb, 11);
    let sum = mb.bin(BinOp::Add, bits, b, i32t);
    at(&mut mb, 11);
    let addr = mb.bin(BinOp::Mul, tid, c4, i32t);
    at(&mut mb, 11);
    mb.store_word(h, addr, sum);
    at(&mut mb, 11);
    mb.ret();
    at(&mut mb, 12);
    let (mut m, fi) = mb.finish();
    // The lowering names an alloca's array after its value (`st` is left unnamed).
    let body = m.functions[fi].body.as_mut().unwrap();
    for (v, name) in [(a, "a"), (wa, "w.a"), (wb, "w.b")] {
        body.values[(v.0 - FIRST) as usize].name = Some(name.into());
    }

    names.finish(&mut m, fi);
    m
}

/// The declare module in the `DXIL` part of a cs_6_0 container, with its debug
/// metadata (`tests/jobs/zi/declare.dxil`, which `declare.toml` runs and the DAP
/// transcript `hlsl_declare` debugs).
fn container() -> Vec<u8> {
    use crate::container::write::{dxil_part, write_container};
    use crate::container::{FourCc, ProgramKind, ProgramVersion};
    let version = ProgramVersion {
        kind: ProgramKind::Compute,
        major: 6,
        minor: 0,
    };
    let bitcode = crate::dxil::llvm::write::write_module(&module()).unwrap();
    let part = dxil_part(version, (1, 0), &bitcode).unwrap();
    write_container(&[(FourCc::DXIL, &part)]).unwrap()
}

/// The committed container is what the builder makes of the module today.
#[test]
fn the_committed_declare_container_is_regenerated_unchanged() {
    super::check_committed("tests/jobs/zi", vec![("declare.dxil", container())]);
}

/// A session on thread (3, 0, 0): `id.x` = 3.
fn session() -> Debugger {
    let (t, _) = target(&module());
    Debugger::open(t, LaneSelect::Thread([3, 0, 0]), DebugOptions::default()).unwrap()
}

/// The HLSL line of the next step.
fn line(d: &mut Debugger) -> u32 {
    super::line(d).unwrap_or_else(|| panic!("{}", d.where_text()))
}

/// The program runs as its HLSL says: thread 3 stores asuint(3.0) + 8 at byte 12.
#[test]
fn the_memory_program_computes_what_its_hlsl_says() {
    let d = session();
    assert!(d.source_level(), "{:?}", d.notes());
    let want = (3.0f32.to_bits() + 8).to_le_bytes();
    assert!(
        d.outputs()
            .iter()
            .any(|b| b.len() == 16 && b[12..16] == want),
        "{:?}",
        d.outputs()
    );
}

/// A declared variable prints from its `alloca`'s memory once the lane is past the
/// declare (before it, it is optimised out) at the step: before a store,
/// what the array held (the lowering's zeroed array); after it, the stored value; the
/// same going back. `a` is an array, `st` a struct, `w` a struct whose members are in two
/// `alloca`s (its declares' `DW_OP_bit_piece`s). Thread 3: a[1] = 3.0, st.b = 3 + 5,
/// w.b = 7, a[0] = 2.0, w.a = a[1] = 3.0.
#[test]
fn declared_variables_print_from_memory() {
    declared_variables_print_from_memory_with(session());
}

/// The same variables bound by `llvm.dbg.value`s of pointers into their `alloca`s with
/// `DW_OP_deref` ([`Bind::Deref`]) read the same values at the same places: `st.b`
/// through a pointer 4 bytes into `st`'s memory.
#[test]
fn deref_bound_pointers_read_through_memory() {
    let (t, _) = target(&module_with(Bind::Deref));
    let d = Debugger::open(t, LaneSelect::Thread([3, 0, 0]), DebugOptions::default()).unwrap();
    assert!(d.source_level(), "{:?}", d.notes());
    declared_variables_print_from_memory_with(d);
}

fn declared_variables_print_from_memory_with(mut d: Debugger) {
    assert_eq!(line(&mut d), 8, "{}", d.where_text());
    // The handle, before the declares: not in effect yet.
    assert_eq!(run_cmd(&mut d, "print a[2]"), "a[2] = optimised out");
    run_cmd(&mut d, "stepi");
    assert_eq!(line(&mut d), 8);
    assert_eq!(
        run_cmd(&mut d, "print a"),
        "a[0] = 0.0 (0x00000000)\na[1] = 0.0 (0x00000000)\na[2] = 0.0 (0x00000000)"
    );
    assert_eq!(run_cmd(&mut d, "print st.b"), "st.b = 0 (0x00000000)");
    run_cmd(&mut d, "next");
    assert_eq!(line(&mut d), 9);
    assert_eq!(run_cmd(&mut d, "print a[1]"), "a[1] = 3.0 (0x40400000)");
    assert_eq!(run_cmd(&mut d, "print a[0]"), "a[0] = 0.0 (0x00000000)");
    assert_eq!(run_cmd(&mut d, "print st.b"), "st.b = 0 (0x00000000)");
    run_cmd(&mut d, "next");
    assert_eq!(line(&mut d), 10);
    assert_eq!(run_cmd(&mut d, "print st.b"), "st.b = 8 (0x00000008)");
    assert_eq!(
        run_cmd(&mut d, "print st"),
        "st.a = 0.0 (0x00000000)\nst.b = 8 (0x00000008)"
    );
    assert_eq!(
        run_cmd(&mut d, "print w"),
        "w.a = 0.0 (0x00000000)\nw.b = 7 (0x00000007)"
    );
    run_cmd(&mut d, "next");
    assert_eq!(line(&mut d), 11);
    assert_eq!(run_cmd(&mut d, "print a[0]"), "a[0] = 2.0 (0x40000000)");
    assert_eq!(run_cmd(&mut d, "print w.a"), "w.a = 3.0 (0x40400000)");
    // Locals (the DAP scope): by line, then name.
    let l = d.locals(0);
    let names: Vec<&str> = l.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["a", "st", "w"]);
    assert_eq!(
        l[0].value,
        "[0] = 2.0 (0x40000000), [1] = 3.0 (0x40400000), [2] = 0.0 (0x00000000)"
    );
    assert_eq!(l[2].value, "a = 3.0 (0x40400000), b = 7 (0x00000007)");
    // Back over line 10: a[0] and w.a as they were before its stores.
    run_cmd(&mut d, "back");
    assert_eq!(line(&mut d), 10);
    assert_eq!(run_cmd(&mut d, "print a[0]"), "a[0] = 0.0 (0x00000000)");
    assert_eq!(run_cmd(&mut d, "print w.a"), "w.a = 0.0 (0x00000000)");
    assert_eq!(run_cmd(&mut d, "print st.b"), "st.b = 8 (0x00000008)");
}

/// A declare's `DW_OP_plus N` puts the variable N bytes into the memory ("Source Level
/// Debugging with LLVM", LLVM 3.7: the expression applies to the address), combined
/// with its `DW_OP_bit_piece`: the leaf at bit 32 of the variable, in a piece starting at
/// bit 32, at 4 bytes into the memory, is at bit 32 of it.
#[test]
fn a_declared_address_offset_moves_the_variable() {
    use crate::dxil::debuginfo::{Binding, DebugInfo, Encoding, Leaf, LeafValue, Variable};
    let leaf = |path: &str, offset| Leaf {
        path: path.into(),
        offset,
        size: 32,
        encoding: Encoding::Float,
        matrix: false,
    };
    let info = DebugInfo {
        variables: vec![Variable {
            name: "v".into(),
            function: "main".into(),
            line: 1,
            parameter: false,
            leaves: vec![leaf(".x", 0), leaf(".y", 32)],
        }],
        bindings: vec![Binding {
            function: 0,
            inst: 0,
            variable: 0,
            value: ValueId(7),
            piece: Some((32, 32)),
            declare: true,
            offset: 4,
        }],
        ..DebugInfo::default()
    };
    let got = info.assemble(0, |_| Some(0));
    assert_eq!(got[0].1, LeafValue::OptimisedOut);
    assert_eq!(got[1].1, LeafValue::Memory(ValueId(7), 32));
    let none = info.assemble(0, |_| None);
    assert!(none.iter().all(|(_, v)| *v == LeafValue::OptimisedOut));
}
