//! Container → DXIL program header → LLVM module → `dx.op` calls and DXIL metadata.
#![no_main]

use dxlane::container::{Container, DxilProgramHeader, FourCc};
use dxlane::dxil::{dxop, llvm::Module, meta::DxilMetadata};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // Raw bitcode as well as containers.
    let bitcode = match Container::parse(data) {
        Ok(c) => match c.part(FourCc::DXIL).map(DxilProgramHeader::parse) {
            Some(Ok((_, bc))) => bc,
            _ => return,
        },
        Err(_) => data,
    };
    if let Ok(m) = Module::parse(bitcode) {
        let _ = dxop::decode_all(&m);
        let _ = DxilMetadata::read(&m);
    }
});
