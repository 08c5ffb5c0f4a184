//! Modules carrying debug info as dxc writes it with `-Zi`, built with the test module
//! builder from LLVM 3.7's record layouts (no corpus program carries debug info), and
//! read back by hand.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation
)]

use super::*;
use crate::dxil::dxop::DxOp;
use crate::dxil::llvm::build::Mb;
use crate::dxil::llvm::{BinOp, CastOp, Constant, DebugLoc, NamedMetadata, Type};

const DL: &str = "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64";

/// The HLSL the module below stands for (`shader.hlsl`).
pub const HLSL: &str = "RWStructuredBuffer<float> u : register(u0);
float sq(float v)
{
    return v * v;
}
[numthreads(4, 1, 1)]
void main(uint3 id : SV_DispatchThreadID)
{
    float2 p = float2(id.x, 2.0);
    float s = sq(p.x);
    u[id.x] = s + p.y;
}
";

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

fn loc(line: u32, column: u32, scope: MdId, inlined_at: Option<MdId>) -> DebugLoc {
    DebugLoc {
        line,
        column,
        scope: Some(scope),
        inlined_at,
    }
}

/// The ids of the module's debug nodes the tests name.
pub struct Ids {
    pub p: MdId,
    pub s: MdId,
    pub v: MdId,
    pub a: MdId,
}

/// `main` of [`HLSL`], with `sq` inlined, as dxc -Zi -Od would leave it: `p` in two
/// `DW_OP_bit_piece`s (`x` from the thread id, `y` the constant 2.0), `sq`'s `v` and its
/// `v * v` located in `sq` inlined at line 10, and a `float a[3]` of which only `a[1]` is
/// ever held. `bad` replaces `p`'s type with a node that is not a type.
pub fn module(bad: bool) -> (Module, Ids) {
    let mut mb = Mb::new(DL);
    let name = s(&mut mb, "shader.hlsl");
    let dir = s(&mut mb, "");
    let file = di(&mut mb, code::FILE, vec![0, name, dir]);
    let f = u64::from(file.0) + 1;
    let cu_producer = s(&mut mb, "dxcoob 1.8");
    let _cu = di(
        &mut mb,
        20, // COMPILE_UNIT
        vec![1, 5, f, cu_producer, 0, 0, 0, 0, 1, 0, 0, 0, 0, 0, 0],
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
        di(mb, code::SUBPROGRAM, ops)
    };
    let main_sp = sub(&mut mb, "main", 7);
    let sq_sp = sub(&mut mb, "sq", 2);
    let block = di(
        &mut mb,
        code::LEXICAL_BLOCK,
        vec![1, u64::from(main_sp.0) + 1, f, 8, 1],
    );
    let float_name = s(&mut mb, "float");
    let float = di(
        &mut mb,
        code::BASIC_TYPE,
        vec![0, 0x24, float_name, 32, 32, 4],
    );
    let fl = u64::from(float.0) + 1;
    let member = |mb: &mut Mb, n: &str, off: u64| {
        let n = s(mb, n);
        di(
            mb,
            code::DERIVED_TYPE,
            vec![0, 0x0d, n, f, 9, 0, fl, 32, 32, off, 0, 0],
        )
    };
    let (mx, my) = (member(&mut mb, "x", 0), member(&mut mb, "y", 32));
    let elements = mb.md(Metadata::Node {
        distinct: false,
        ops: vec![Some(mx), Some(my)],
    });
    let vname = s(&mut mb, "vector<float, 2>");
    let float2 = di(
        &mut mb,
        code::COMPOSITE_TYPE,
        vec![
            0,
            0x02,
            vname,
            f,
            9,
            0,
            0,
            64,
            32,
            0,
            0,
            u64::from(elements.0) + 1,
            0,
            0,
            0,
            0,
        ],
    );
    // typedef float2 = vector<float, 2>
    let tname = s(&mut mb, "float2");
    let typedef = di(
        &mut mb,
        code::DERIVED_TYPE,
        vec![
            0,
            0x16,
            tname,
            f,
            0,
            0,
            u64::from(float2.0) + 1,
            0,
            0,
            0,
            0,
            0,
        ],
    );
    let p_ty = if bad { f } else { u64::from(typedef.0) + 1 };
    let var = |mb: &mut Mb, tag: u64, scope: MdId, n: &str, line: u64, ty: u64, arg: u64| {
        let n = s(mb, n);
        di(
            mb,
            code::LOCAL_VAR,
            vec![0, tag, u64::from(scope.0) + 1, n, f, line, ty, arg, 0],
        )
    };
    let p = var(&mut mb, 0x100, block, "p", 9, p_ty, 0);
    let s_var = var(&mut mb, 0x100, block, "s", 10, fl, 0);
    let v = var(&mut mb, 0x101, sq_sp, "v", 2, fl, 1);
    let range = di(&mut mb, code::SUBRANGE, vec![0, 3, 0]);
    let dims = mb.md(Metadata::Node {
        distinct: false,
        ops: vec![Some(range)],
    });
    let arr = di(
        &mut mb,
        code::COMPOSITE_TYPE,
        vec![
            0,
            0x01,
            0,
            0,
            0,
            0,
            fl,
            96,
            32,
            0,
            0,
            u64::from(dims.0) + 1,
            0,
            0,
            0,
            0,
        ],
    );
    let a = var(&mut mb, 0x100, block, "a", 11, u64::from(arr.0) + 1, 0);
    let piece = |mb: &mut Mb, off: u64| di(mb, code::EXPRESSION, vec![0, 0x9d, off, 32]);
    let (px, py, a1) = (piece(&mut mb, 0), piece(&mut mb, 32), piece(&mut mb, 32));
    let whole = di(&mut mb, code::EXPRESSION, vec![0]);
    let call_site = mb.md(Metadata::Location {
        distinct: false,
        line: 10,
        column: 15,
        scope: block,
        inlined_at: None,
    });
    let text = s(&mut mb, HLSL);
    let contents = mb.md(Metadata::Node {
        distinct: false,
        ops: vec![Some(MdId(name as u32 - 1)), Some(MdId(text as u32 - 1))],
    });
    let main_name = mb.md(Metadata::Node {
        distinct: false,
        ops: vec![Some(MdId(name as u32 - 1))],
    });
    let (zi, od) = (s(&mut mb, "-Zi"), s(&mut mb, "-Od"));
    let args = mb.md(Metadata::Node {
        distinct: false,
        ops: vec![Some(MdId(zi as u32 - 1)), Some(MdId(od as u32 - 1))],
    });
    for (n, id) in [
        ("dx.source.contents", contents),
        ("dx.source.mainFileName", main_name),
        ("dx.source.args", args),
    ] {
        mb.m.named_metadata.push(NamedMetadata {
            name: n.into(),
            ops: vec![id],
        });
    }

    let (i32t, f32t, void) = (mb.int(32), mb.t(Type::Float), mb.void());
    let (i64t, mdt) = (mb.int(64), mb.t(Type::Metadata));
    let c0 = mb.ci(32, 0);
    let zero64 = mb.ci(64, 0);
    let two = mb.c(f32t, Constant::Float(2.0f32.to_bits().into()));
    mb.block();
    let h = mb.handle(1, 0, 0);
    let tid = mb.dx("threadId.i32", DxOp::ThreadId, &[c0], i32t);
    mb.at(loc(9, 23, block, None));
    let fx = mb.cast(CastOp::UiToFp, tid, f32t);
    mb.at(loc(9, 16, block, None));
    let dbg = |mb: &mut Mb, val: ValueId, ty, var: MdId, expr: MdId, at: DebugLoc| {
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
        mb.at(at);
    };
    dbg(&mut mb, fx, f32t, p, px, loc(9, 12, block, None));
    dbg(&mut mb, two, f32t, p, py, loc(9, 12, block, None));
    dbg(
        &mut mb,
        fx,
        f32t,
        v,
        whole,
        loc(2, 16, sq_sp, Some(call_site)),
    );
    let sq = mb.bin(BinOp::Mul, fx, fx, f32t);
    mb.at(loc(4, 14, sq_sp, Some(call_site)));
    dbg(&mut mb, sq, f32t, s_var, whole, loc(10, 11, block, None));
    dbg(&mut mb, fx, f32t, a, a1, loc(11, 5, block, None));
    let sum = mb.bin(BinOp::Add, sq, two, f32t);
    mb.at(loc(11, 17, block, None));
    let four = mb.ci(32, 4);
    let addr = mb.bin(BinOp::Mul, tid, four, i32t);
    mb.at(loc(11, 5, block, None));
    let bits = mb.cast(CastOp::BitCast, sum, i32t);
    mb.store_word(h, addr, bits);
    mb.at(loc(11, 13, block, None));
    mb.ret();
    mb.at(loc(12, 1, block, None));
    let (m, _) = mb.finish();
    (m, Ids { p, s: s_var, v, a })
}

fn main_index(m: &Module) -> usize {
    m.functions.iter().position(|f| f.name == "main").unwrap()
}

fn line_of(d: &DebugInfo, m: &Module, k: u32) -> (String, u32) {
    let f = d.location(main_index(m), k).unwrap();
    (f.function.clone(), f.line)
}

/// DXIL.rst "Debug info": the source, its main file name and the compiler's arguments
/// travel as `dx.source.*` named metadata.
#[test]
fn sources_and_arguments_are_read() {
    let (m, _) = module(false);
    assert_eq!(kind(&m), DebugInfoKind::DxilMetadata);
    let d = DebugInfo::read(&m).unwrap().unwrap();
    assert_eq!(d.main_file.as_deref(), Some("shader.hlsl"));
    assert_eq!(d.sources.len(), 1);
    assert_eq!(d.sources[0].name, "shader.hlsl");
    assert_eq!(d.sources[0].text, HLSL);
    assert_eq!(d.args, ["-Zi", "-Od"]);
}

/// A module with no debug records, locations or `dx.source.*` carries no debug info.
#[test]
fn a_module_without_debug_info_has_none() {
    let mut mb = Mb::new(DL);
    mb.block();
    mb.ret();
    let (m, _) = mb.finish();
    assert_eq!(kind(&m), DebugInfoKind::None);
    assert_eq!(DebugInfo::read(&m).unwrap(), None);
}

/// LLVM 3.7 `DILocation`: the scope goes up through lexical blocks to the subprogram
/// (function and file); `inlinedAt` adds the caller's frame, innermost first.
#[test]
fn locations_walk_scopes_and_inlined_calls() {
    let (m, _) = module(false);
    let d = DebugInfo::read(&m).unwrap().unwrap();
    let mi = main_index(&m);
    // Instruction 1 (threadId, after the handle) at line 9 of main.
    assert_eq!(line_of(&d, &m, 1), ("main".into(), 9));
    // The multiply: in sq at line 4, inlined into main at line 10, column 15.
    let k = (0..m.functions[mi].body.as_ref().unwrap().instructions.len() as u32)
        .find(|&k| d.location(mi, k).is_some_and(|f| f.line == 4))
        .unwrap();
    let fr = &d.frames[&(mi, k)];
    assert_eq!(fr.len(), 2, "{fr:?}");
    assert_eq!(
        (fr[0].function.as_str(), fr[0].line, fr[0].file.as_str()),
        ("sq", 4, "shader.hlsl")
    );
    assert_eq!(
        (fr[1].function.as_str(), fr[1].line, fr[1].column),
        ("main", 10, 15)
    );
    // Lines by file: the full name or its last component, any case.
    assert_eq!(d.instructions_at(mi, "shader.hlsl", 4), vec![k]);
    assert_eq!(d.instructions_at(mi, "C:\\src\\Shader.hlsl", 4), vec![k]);
    assert!(d.instructions_at(mi, "other.hlsl", 4).is_empty());
}

/// `DILocalVariable` types flatten into scalars: a typedef is its type, a
/// `vector<float, 2>` class its members `x`, `y` at their offsets, `float[3]` its
/// elements by `DISubrange` count.
#[test]
fn variable_types_flatten_into_leaves() {
    let (m, _) = module(false);
    let d = DebugInfo::read(&m).unwrap().unwrap();
    let p = &d.variables[d.variable("p").unwrap()];
    let leaves: Vec<(&str, u64, u64)> = p
        .leaves
        .iter()
        .map(|l| (l.path.as_str(), l.offset, l.size))
        .collect();
    assert_eq!(leaves, [(".x", 0, 32), (".y", 32, 32)]);
    assert_eq!(p.leaves[0].encoding, Encoding::Float);
    assert_eq!(
        (p.function.as_str(), p.line, p.parameter),
        ("main", 9, false)
    );
    let v = &d.variables[d.variable("v").unwrap()];
    assert_eq!((v.function.as_str(), v.parameter), ("sq", true));
    let a = &d.variables[d.variable("a").unwrap()];
    let paths: Vec<(&str, u64)> = a
        .leaves
        .iter()
        .map(|l| (l.path.as_str(), l.offset))
        .collect();
    assert_eq!(paths, [("[0]", 0), ("[1]", 32), ("[2]", 64)]);
}

/// `llvm.dbg.value` with `DW_OP_bit_piece offset, size`: each piece's value holds those
/// bits of the variable; the latest binding run holds a leaf; a leaf no binding run
/// covers is optimised out.
#[test]
fn variables_assemble_from_pieces() {
    let (m, _) = module(false);
    let d = DebugInfo::read(&m).unwrap().unwrap();
    let mi = main_index(&m);
    let body = m.functions[mi].body.as_ref().unwrap();
    let fx = body.instructions[2].result.unwrap(); // uitofp
    let p = d.variable("p").unwrap();
    // Nothing run yet: all optimised out.
    let none = d.assemble(p, |_| None);
    assert!(none.iter().all(|(_, v)| *v == LeafValue::OptimisedOut));
    // Every binding run, in instruction order.
    let all = d.assemble(p, |b| Some(u64::from(b.inst)));
    assert_eq!(all[0].1, LeafValue::Value(fx, 0));
    let LeafValue::Value(y, 0) = all[1].1 else {
        panic!("{all:?}")
    };
    assert!(matches!(
        m.values.get(y.0 as usize).map(|v| &v.kind),
        Some(crate::dxil::llvm::ValueKind::Constant(Constant::Float(b))) if *b == u64::from(2.0f32.to_bits())
    ));
    // Only the x piece's binding run: y optimised out.
    let first = d.bindings.iter().find(|b| b.variable == p).unwrap().inst;
    let half = d.assemble(p, |b| (b.inst == first).then_some(0));
    assert_eq!(half[0].1, LeafValue::Value(fx, 0));
    assert_eq!(half[1].1, LeafValue::OptimisedOut);
    // a[1] alone is held; a[0] and a[2] are optimised out.
    let a = d.assemble(d.variable("a").unwrap(), |b| Some(u64::from(b.inst)));
    let got: Vec<bool> = a
        .iter()
        .map(|(_, v)| *v != LeafValue::OptimisedOut)
        .collect();
    assert_eq!(got, [false, true, false]);
}

/// Malformed debug info is an error naming the record, never a panic.
#[test]
fn malformed_debug_info_is_an_error() {
    let (m, ids) = module(true);
    let e = DebugInfo::read(&m).unwrap_err();
    // p's type is the DIFile record: said with where.
    assert!(
        e.contains("is not a type") && e.contains("function main"),
        "{e}"
    );
    let (m, _) = module(false);
    assert!(
        DebugInfo::read(&m)
            .unwrap()
            .unwrap()
            .variable("p")
            .is_some()
    );
    let _ = (ids.p, ids.s, ids.v, ids.a);
}

proptest::proptest! {
    /// Any operands in the debug records: an answer or an error, never a panic.
    #[test]
    fn corrupt_debug_records_never_panic(
        seed in proptest::collection::vec((0usize..64, 0usize..20, 0u64..80), 1..12)
    ) {
        let (mut m, _) = module(false);
        let n = m.metadata.len();
        for (which, op, v) in seed {
            if let Some(Metadata::Debug { ops, .. }) = m.metadata.get_mut(which % n)
                && let Some(o) = ops.get_mut(op)
            {
                *o = v;
            }
        }
        let _ = DebugInfo::read(&m);
    }
}
