//! Container → DXIL program header → LLVM module → `dx.op` calls and DXIL metadata;
//! and every module the reader accepts is written and read back as the same module.
#![no_main]

use dxlane::container::{Container, DxilProgramHeader, FourCc};
use dxlane::dxil::llvm::write::write_module;
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
        let written = write_module(&m).expect("a module the reader accepts is written");
        let back = Module::parse(&written).expect("written bitcode reads back");
        let again = write_module(&back).expect("the read-back module is written");
        assert_eq!(written, again, "writing the read-back module gives the same bytes");
    }
});
