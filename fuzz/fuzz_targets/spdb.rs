//! fxc's `SPDB` part (a PDB, read through the `pdb` crate): any bytes must be read or
//! refused with an error naming the structure, never a panic and never an allocation
//! larger than the input. libfuzzer's panic hook aborts before `spdb::read`'s
//! `catch_unwind` sees a panic, so a panic inside the crate is reported here too.
#![no_main]

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    if let Ok(s) = dxlane::container::spdb::read(data) {
        // Formatting walks every record read.
        let _ = format!("{s:?}");
    }
});
