//! Corrupted DXIL bitcode: the bitstream, module, `dx.op` and metadata layers must
//! refuse or decode, never panic or hang.

use dxlane::dxil::{dxop, llvm::Module, meta::DxilMetadata};

use super::mutate_each;
use crate::common;
use crate::dxil::bitcode;

/// Decodes everything the DXIL layers decode; errors are fine.
fn decode(bytes: &[u8]) {
    let _ = dxlane::dxil::bitstream::read_tree(bytes);
    if let Ok(m) = Module::parse(bytes) {
        let _ = dxop::decode_all(&m);
        let _ = DxilMetadata::read(&m);
    }
}

#[test]
fn corrupted_bitcode_is_refused_or_decoded() {
    let files = common::dxil_programs();
    let mut runs = 0usize;
    for (k, f) in files.iter().enumerate() {
        let bc = bitcode(&std::fs::read(f).unwrap());
        let len = bc.len();
        // A window of 96 bytes per program (moving through the stream from program to
        // program) gets every byte set to 0x00 and 0xff; random flips, truncations and
        // splices land in it too.
        let window = 96.min(len);
        let start = (k * 997) % (len - window + 1);
        let count = 120;
        mutate_each(
            &common::display_name(f),
            &bc,
            start..start + window,
            k as u64,
            count,
            &decode,
        );
        runs += count + 2 * window;
    }
    eprintln!("{runs} corrupted modules decoded or refused");
}
