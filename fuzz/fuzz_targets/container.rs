//! The container header, part directory and every part beside the program: decoding
//! any input must refuse or succeed, never panic.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    // Every part, each decoded on its own, with the digest check.
    if let Ok(info) = dxlane::container::ContainerInfo::parse(data) {
        // Formatting walks every decoded record.
        let _ = format!("{info:?}");
    }
    // Each part again without a program kind (the context differs for PCSG and PSV0).
    if let Ok(c) = dxlane::container::Container::parse(data) {
        for part in &c.parts {
            let _ = dxlane::container::decode_part(part, None);
        }
    }
});
