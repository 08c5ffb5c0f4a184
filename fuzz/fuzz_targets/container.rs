//! The container header, part directory and every fixed-layout part.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = dxlane::container::Container::parse(data);
});
