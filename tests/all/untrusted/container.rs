//! The container layer on corrupted input: the header, the part directory and every
//! part beside the program must refuse or decode, never panic.
//!
//! For each corpus container: random mutations of the whole container (decoding every
//! part and serialising the report), then for each non-program part random mutations
//! of its bytes and every byte set to 0x00 and to 0xff in turn (decoding that part).

use dxlane::container::{Container, ContainerInfo, FourCc, ProgramHeader, decode_part};

use super::{Mutation, Rng, mutate_each};
use crate::common;

/// Random mutations of each whole container.
const WHOLE_MUTATIONS: usize = 64;
/// Random mutations of each non-program part (besides the 0x00/0xff sweep).
const PART_MUTATIONS: usize = 32;

/// Decodes everything a (possibly corrupted) container holds, as `dxlane info` would.
fn decode_all(bytes: &[u8]) {
    if let Ok(info) = ContainerInfo::parse(bytes) {
        let _ = serde_json::to_string(&info);
    }
}

/// Decodes part `index` of a (possibly corrupted) container, with the program kind the
/// container states (the context a real decode would have).
fn decode_one(bytes: &[u8], index: usize) {
    let Ok(c) = Container::parse(bytes) else {
        return;
    };
    let kind = c
        .program_part()
        .and_then(|p| ProgramHeader::parse(p).ok())
        .map(|h| h.version().kind);
    if let Some(part) = c.parts.get(index) {
        let _ = decode_part(part, kind);
    }
}

fn is_program(tag: FourCc) -> bool {
    [FourCc::SHDR, FourCc::SHEX, FourCc::DXIL, FourCc::ILDB].contains(&tag)
}

#[test]
fn corrupted_containers_never_panic() {
    let files: Vec<_> = common::dxbc_programs()
        .into_iter()
        .chain(common::dxil_programs())
        .collect();
    let (mut whole, mut parts, mut part_runs) = (0usize, 0usize, 0usize);
    for (file_index, path) in files.iter().enumerate() {
        let name = common::display_name(path);
        let bytes = std::fs::read(path).unwrap();
        let seed = 0xc0_47a1_0000 ^ (file_index as u64) << 8;

        // The whole container: header, directory and parts together.
        let mut rng = Rng::new(seed);
        for i in 0..WHOLE_MUTATIONS {
            let m = Mutation::random(&mut rng, bytes.len(), 0..bytes.len());
            let mutated = m.apply(&bytes);
            let result = std::panic::catch_unwind(|| decode_all(&mutated));
            assert!(
                result.is_ok(),
                "{name}: decoding panicked on whole-container mutation {i}: {m:?}"
            );
            whole += 1;
        }

        // Each non-program part's bytes.
        let c = Container::parse(&bytes).unwrap();
        for (index, part) in c.parts.iter().enumerate() {
            if is_program(part.tag) {
                continue;
            }
            let start = part.data_offset() as usize;
            let range = start..start + part.data.len();
            parts += 1;
            part_runs += PART_MUTATIONS + 2 * part.data.len();
            mutate_each(
                &format!("{name} part {index} ({})", part.tag),
                &bytes,
                range,
                seed ^ (index as u64 + 1),
                PART_MUTATIONS,
                &|m| decode_one(m, index),
            );
        }
    }
    eprintln!(
        "untrusted container: {} containers, {whole} whole-container mutations, {parts} parts, {part_runs} part decodes",
        files.len()
    );
}
