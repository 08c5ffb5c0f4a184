//! Fuzzes the DXBC token-program decoder: container → `SHEX`/`SHDR` decode → listing.
//! Inputs that are not containers are also decoded as a bare program part, so that the
//! fuzzer reaches the instruction decoder without first learning the container format.
#![no_main]

use dxlane::container::{Container, FourCc, Part};
use dxlane::dxbc::{Program, listing};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(container) = Container::parse(data) {
        if let Ok(program) = Program::from_container(&container) {
            let _ = listing(&program);
        }
    }
    for tag in [FourCc::SHEX, FourCc::SHDR] {
        if let Ok(program) = Program::from_part(&Part {
            tag,
            offset: 0,
            data,
        }) {
            let _ = listing(&program);
        }
    }
});
