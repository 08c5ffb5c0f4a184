//! Fuzzes the DXBC lowering: container → decode → lower (and the IR validator on what
//! lowers). Inputs that are not containers are also decoded as a bare `SHEX` part, so that
//! the fuzzer reaches the lowering without first learning the container format. Any input
//! must be refused or lowered to a valid shader, never panic.
#![no_main]

use dxlane::container::{FourCc, Part};
use dxlane::dxbc::Program;
use dxlane::lower::{self, LoadOptions};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let opts = LoadOptions::default();
    if let Ok(loaded) = lower::load(data, &opts) {
        assert!(dxlane::ir::validate(&loaded.shader).is_ok());
    }
    if let Ok(program) = Program::from_part(&Part {
        tag: FourCc::SHEX,
        offset: 0,
        data,
    }) && let Ok(shader) = lower::dxbc::lower_program(&program, None, &opts)
    {
        assert!(dxlane::ir::validate(&shader).is_ok());
    }
});
