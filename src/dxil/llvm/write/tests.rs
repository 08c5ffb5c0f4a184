//! Unit tests of the bitcode writer: encodings, and modules built by hand read back.

#![allow(clippy::unwrap_used, clippy::indexing_slicing)]

use super::*;
use crate::dxil::llvm::decode_signed;

#[test]
fn signed_encoding_inverts_the_reader() {
    // LLVM `emitSignedInt64` / `decodeSignRotatedValue`: bit 0 is the sign.
    for v in [0, 1, -1, 5, -5, i64::MAX, i64::MIN, i64::MIN + 1] {
        assert_eq!(decode_signed(encode_signed(v)), v, "{v}");
    }
    assert_eq!(encode_signed(-1), 3);
    assert_eq!(encode_signed(i64::MIN), 1);
}

/// Every module [`crate::dxil::llvm::build::Mb`] finishes comes through here, so each
/// hand-built module of the unit tests is also a writer test: it is written, read back,
/// written again and read again; the two readings write the same bytes (the writer's
/// numbering is the reader's), and the listing of what was read equals the listing of
/// what was built. A built module that names a value or metadata that does not exist,
/// or that the reader refuses once written (a test's deliberately inconsistent module),
/// is one no bitcode could carry, and is left to its own test.
pub(crate) fn check_built(m: &Module) {
    use crate::dxil::listing::module_text;
    let first = match write_module(m) {
        Ok(b) => b,
        Err(e) if e.to_string().contains("does not exist") => return,
        Err(e) => panic!("the writer refused a built module: {e}"),
    };
    let Ok(back) = Module::parse(&first) else {
        return;
    };
    let second =
        write_module(&back).unwrap_or_else(|e| panic!("writing the read-back module: {e}"));
    let again =
        Module::parse(&second).unwrap_or_else(|e| panic!("reading the rewritten module: {e}"));
    assert_eq!(
        write_module(&again).as_deref(),
        Ok(second.as_slice()),
        "the read-back module does not write the same bytes twice"
    );
    assert_eq!(
        module_text(m),
        module_text(&back),
        "the built and the read-back module list differently"
    );
}

#[test]
fn a_built_module_with_a_body_round_trips() {
    use crate::dxil::llvm::build::Mb;
    use crate::dxil::llvm::{BinOp, BlockId, Metadata, NamedMetadata};
    // A loop with a phi that refers forward (the relative id is negative, LLVM's signed
    // VBR), a module-level string and node, and a named node: `check_built` (called by
    // `finish`) writes, reads and compares it.
    let mut mb =
        Mb::new("e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64");
    mb.m.version = 1;
    let i32t = mb.int(32);
    let s = mb.md(Metadata::String(b"loop".to_vec()));
    let n = mb.md(Metadata::Node {
        distinct: false,
        ops: vec![Some(s), None],
    });
    mb.m.named_metadata.push(NamedMetadata {
        name: "dx.test".into(),
        ops: vec![n],
    });
    let zero = mb.ci(32, 0);
    let one = mb.ci(32, 1);
    let ten = mb.ci(32, 10);
    mb.block();
    mb.br(BlockId(1));
    mb.block();
    let i = mb.phi(
        i32t,
        vec![
            (zero, BlockId(0)),
            (ValueId(super::super::build::FIRST + 2), BlockId(1)),
        ],
    );
    let h = mb.handle(1, 0, 0);
    let next = mb.bin(BinOp::Add, i, one, i32t);
    mb.store_word(h, i, next);
    let done = mb.icmp(32, next, ten);
    mb.cond_br(done, BlockId(2), BlockId(1));
    mb.block();
    mb.ret();
    let (m, fi) = mb.finish();
    let bytes = write_module(&m).unwrap();
    let back = Module::parse(&bytes).unwrap();
    let body = back.functions[fi].body.as_ref().unwrap();
    // The phi's second incoming value is the add two instructions later.
    let InstKind::Phi { incoming } = &body.instructions[1].kind else {
        panic!("a phi")
    };
    let add = body.instructions[3].result.unwrap();
    assert_eq!(incoming[1].0, add);
    assert_eq!(back.named("dx.test").unwrap().ops.len(), 1);
}

/// `Mb::param` gives `main` parameters (a library export's payload and attributes): the
/// function's type takes them, and the body's arguments, numbered before the body's
/// constants and results (LLVM's function-local numbering), are what its instructions
/// read once written and read back.
#[test]
fn parameters_of_a_built_function_are_its_arguments() {
    use crate::dxil::llvm::build::Mb;
    use crate::dxil::llvm::{Type, ValueKind};
    let mut mb =
        Mb::new("e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64");
    let f32t = mb.t(Type::Float);
    let pf = mb.t(Type::Pointer {
        pointee: f32t,
        address_space: 0,
    });
    let (a, b) = (mb.param(pf), mb.param(pf));
    mb.block();
    let x = mb.load(b, f32t);
    mb.store(a, x);
    mb.ret();
    let (m, fi) = mb.finish();
    let bytes = write_module(&m).unwrap();
    let back = Module::parse(&bytes).unwrap();
    let f = &back.functions[fi];
    let Some(Type::Function { params, .. }) = back.ty(f.ty) else {
        panic!("a function type")
    };
    assert_eq!(params.len(), 2);
    let body = f.body.as_ref().unwrap();
    assert_eq!(body.args.len(), 2);
    let kind = |v: ValueId| body.values[(v.0 - body.first_value) as usize].kind.clone();
    assert!(matches!(kind(body.args[0]), ValueKind::Argument(0)));
    assert!(matches!(kind(body.args[1]), ValueKind::Argument(1)));
    let InstKind::Load { ptr, .. } = body.instructions[0].kind else {
        panic!("a load")
    };
    let InstKind::Store { ptr: to, .. } = body.instructions[1].kind else {
        panic!("a store")
    };
    assert_eq!((ptr, to), (body.args[1], body.args[0]));
}
