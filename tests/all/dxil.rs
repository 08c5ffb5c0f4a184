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
