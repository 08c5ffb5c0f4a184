//! Container header and directory: hand-built containers, good and bad.

#![allow(clippy::arithmetic_side_effects, clippy::cast_possible_truncation)]

use super::*;

/// Builds a container from parts; the digest is left zero.
pub(crate) fn build(parts: &[(&[u8; 4], &[u8])]) -> Vec<u8> {
    let dir = HEADER_SIZE + 4 * parts.len();
    let total: usize = dir + parts.iter().map(|(_, d)| 8 + d.len()).sum::<usize>();
    let mut out = Vec::with_capacity(total);
    out.extend_from_slice(b"DXBC");
    out.extend_from_slice(&[0; 16]);
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&(total as u32).to_le_bytes());
    out.extend_from_slice(&(parts.len() as u32).to_le_bytes());
    let mut at = dir;
    for (_, d) in parts {
        out.extend_from_slice(&(at as u32).to_le_bytes());
        at += 8 + d.len();
    }
    for (t, d) in parts {
        out.extend_from_slice(*t);
        out.extend_from_slice(&(d.len() as u32).to_le_bytes());
        out.extend_from_slice(d);
    }
    out
}

#[test]
fn reads_parts_in_directory_order() {
    let bytes = build(&[(b"ISGN", &[1, 2, 3, 4]), (b"SHEX", &[5; 8])]);
    let c = Container::parse(&bytes).unwrap();
    assert_eq!(c.parts.len(), 2);
    assert_eq!(c.parts[0].tag, FourCc::ISGN);
    assert_eq!(c.parts[1].data, &[5; 8]);
    assert_eq!(c.program_part().unwrap().tag, FourCc::SHEX);
    assert_eq!(c.version, (1, 0));
}

#[test]
fn refuses_bad_magic_and_truncation() {
    let mut bytes = build(&[(b"SHEX", &[0; 4])]);
    assert!(matches!(
        Container::parse(&bytes[..20]),
        Err(ContainerError::Truncated { .. })
    ));
    bytes[0] = b'X';
    assert!(matches!(
        Container::parse(&bytes),
        Err(ContainerError::BadMagic { .. })
    ));
}

#[test]
fn refuses_huge_part_count_without_allocating() {
    let mut bytes = build(&[(b"SHEX", &[0; 4])]);
    bytes[28..32].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(
        Container::parse(&bytes),
        Err(ContainerError::BadPartCount { .. })
    ));
}

#[test]
fn refuses_part_past_end_and_overlap() {
    let mut bytes = build(&[(b"ISGN", &[0; 4]), (b"SHEX", &[0; 4])]);
    let good = bytes.clone();
    // Second part's size runs past the end.
    let second = u32::from_le_bytes(bytes[36..40].try_into().unwrap()) as usize;
    bytes[second + 4..second + 8].copy_from_slice(&100u32.to_le_bytes());
    let e = Container::parse(&bytes).unwrap_err();
    assert!(e.to_string().contains("SHEX"), "{e}");
    // Second part points at the first.
    let mut bytes = good;
    let first = bytes[32..36].to_vec();
    bytes[36..40].copy_from_slice(&first);
    assert!(matches!(
        Container::parse(&bytes),
        Err(ContainerError::OverlappingParts { .. })
    ));
}
