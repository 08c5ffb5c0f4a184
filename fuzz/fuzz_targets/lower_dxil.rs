//! Container bytes → DXIL program → IR: loading any input must lower, refuse or fail to
//! decode, never panic; what lowers must validate.
#![no_main]

use dxlane::lower::{LoadOptions, load};

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(l) = load(data, &LoadOptions::default()) {
        if l.dxil {
            dxlane::ir::validate(&l.shader).expect("a lowered shader validates");
        }
    }
});
