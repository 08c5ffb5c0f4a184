//! The DXBC decoder on corrupted programs: each program's `SHEX`/`SHDR` part is mutated
//! (bit flips, bytes and words set, truncations, splices, insertions; every byte set to
//! 0x00 and 0xff) and decoded, and what decodes is listed. Each must refuse or succeed,
//! never panic. Each mutation is also tried with the length token patched to the
//! mutated size, so that truncated and extended programs reach the instruction decoder.

use dxlane::container::{Container, Part};
use dxlane::dxbc::{Program, listing};

use crate::common;

/// Random mutations per program (on top of the 0x00/0xff sweep of every byte).
const MUTATIONS_PER_PROGRAM: usize = 400;

fn decode_and_list(part: &Part<'_>, data: &[u8]) {
    let mutated = Part {
        tag: part.tag,
        offset: part.offset,
        data,
    };
    if let Ok(program) = Program::from_part(&mutated) {
        let _ = listing(&program);
    }
}

#[test]
fn mutated_programs_never_panic() {
    let mut total = 0usize;
    for (n, path) in common::dxbc_programs().iter().enumerate() {
        let bytes = std::fs::read(path).unwrap();
        let container = Container::parse(&bytes).unwrap();
        let part = *container.program_part().unwrap();
        let data = part.data;
        let check = |m: &[u8]| {
            decode_and_list(&part, m);
            if m.len() >= 8 && m.len() % 4 == 0 {
                let mut fixed = m.to_vec();
                fixed[4..8].copy_from_slice(&((m.len() / 4) as u32).to_le_bytes());
                decode_and_list(&part, &fixed);
            }
        };
        crate::untrusted::mutate_each(
            &common::display_name(path),
            data,
            0..data.len(),
            0xdbc0_0000 + n as u64,
            MUTATIONS_PER_PROGRAM,
            &check,
        );
        total += MUTATIONS_PER_PROGRAM + 2 * data.len();
    }
    eprintln!("dxbc: {total} mutated programs decoded");
}
