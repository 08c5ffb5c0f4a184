//! DXIL programs of the corpora: module, `dx.op` calls and metadata decode.

use dxlane::container::{Container, DxilProgramHeader, FourCc};
use dxlane::dxil::llvm::Module;

use crate::common;

/// The raw bitcode of a container's DXIL part.
pub fn bitcode(bytes: &[u8]) -> Vec<u8> {
    let c = Container::parse(bytes).expect("container");
    let part = c.part(FourCc::DXIL).expect("DXIL part");
    DxilProgramHeader::parse(part)
        .expect("program header")
        .1
        .to_vec()
}

#[test]
fn every_corpus_module_decodes() {
    let files = common::dxil_programs();
    let mut failures = Vec::new();
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        if let Err(e) = Module::parse(&bitcode(&bytes)) {
            failures.push(format!("{}: {e}", common::display_name(f)));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    eprintln!("{} DXIL modules decoded", files.len());
}

#[test]
fn every_dx_op_call_decodes() {
    let mut total = 0usize;
    let mut failures = Vec::new();
    for f in common::dxil_programs() {
        let bytes = std::fs::read(&f).unwrap();
        let m = Module::parse(&bitcode(&bytes)).unwrap();
        match dxlane::dxil::dxop::decode_all(&m) {
            Ok(calls) => total += calls.len(),
            Err(e) => failures.push(format!("{}: {e}", common::display_name(&f))),
        }
        // Every call to a dx.op function is among them.
        let direct = m
            .functions
            .iter()
            .filter_map(|f| f.body.as_ref())
            .flat_map(|b| &b.instructions)
            .filter(|i| matches!(&i.kind, dxlane::dxil::llvm::InstKind::Call { callee, .. } if m.function_of_value(*callee).is_some_and(|f| f.name.starts_with("dx.op."))))
            .count();
        let decoded = dxlane::dxil::dxop::decode_all(&m)
            .map(|c| c.len())
            .unwrap_or(0);
        if failures.is_empty() {
            assert_eq!(direct, decoded, "{}", common::display_name(&f));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{total} dx.op calls decoded");
}
