//! (filled in with its decoder)
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = dxlane::container::Container::parse(data);
});
