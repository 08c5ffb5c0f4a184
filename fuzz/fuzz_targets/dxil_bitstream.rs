//! Raw LLVM bitstream walk: blocks, abbreviations and records of arbitrary bytes.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = dxlane::dxil::bitstream::read_tree(data);
});
