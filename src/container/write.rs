//! Writing a container: the header, the part directory, the parts, and the digest; and
//! the `DXIL` part around a module's bitcode.
//!
//! Owns: the layout [`super`] documents, produced rather than read — parts in the order
//! given, each padded to a 4-byte boundary, the digest computed over the finished bytes
//! ([`compute_digest`]), so `dxlane info` reports it as matching. The `DXIL` part's
//! program header (DXIL.rst, "DXIL Container Format"): the version word, the part's
//! size in 32-bit words, the `DXIL` magic, the DXIL version, and the bitcode's offset
//! (16, from the magic) and size.
//!
//! Does not own: what goes in any other part. A caller passes the parts it fills; the
//! example libraries carry only their `DXIL` part, which is all loading a library needs
//! (no `PSV0`, signatures, `RDAT` or `HASH` is written, since nothing here could fill
//! them from what the caller knows).

use super::{
    ContainerError, FourCc, HEADER_SIZE, PART_HEADER_SIZE, ProgramVersion, compute_digest,
};

/// The size of a `DXIL` part's program header (version, size, magic, DXIL version,
/// bitcode offset and size).
pub const DXIL_PROGRAM_HEADER_SIZE: usize = 24;

/// Offset of the bitcode from the `DXIL` magic when nothing lies between them.
const BITCODE_OFFSET: u32 = 16;

fn too_large(size: u64) -> ContainerError {
    ContainerError::TooLarge {
        size: u32::try_from(size).unwrap_or(u32::MAX),
    }
}

/// A container holding `parts` in order (tag and contents), with its digest.
pub fn write_container(parts: &[(FourCc, &[u8])]) -> Result<Vec<u8>, ContainerError> {
    let count = u32::try_from(parts.len()).map_err(|_| too_large(u64::MAX))?;
    let mut offsets = Vec::with_capacity(parts.len());
    let mut at = HEADER_SIZE
        .checked_add(parts.len().checked_mul(4).ok_or(too_large(u64::MAX))?)
        .ok_or(too_large(u64::MAX))?;
    for (_, data) in parts {
        offsets.push(u32::try_from(at).map_err(|_| too_large(at as u64))?);
        let padded = data
            .len()
            .checked_next_multiple_of(4)
            .ok_or(too_large(u64::MAX))?;
        at = at
            .checked_add(PART_HEADER_SIZE)
            .and_then(|a| a.checked_add(padded))
            .ok_or(too_large(u64::MAX))?;
    }
    let total = u32::try_from(at).map_err(|_| too_large(at as u64))?;
    let mut out = Vec::with_capacity(at);
    out.extend_from_slice(b"DXBC");
    out.extend_from_slice(&[0; 16]);
    out.extend_from_slice(&1u16.to_le_bytes());
    out.extend_from_slice(&0u16.to_le_bytes());
    out.extend_from_slice(&total.to_le_bytes());
    out.extend_from_slice(&count.to_le_bytes());
    for o in &offsets {
        out.extend_from_slice(&o.to_le_bytes());
    }
    for (tag, data) in parts {
        let padded = data
            .len()
            .checked_next_multiple_of(4)
            .ok_or(too_large(u64::MAX))?;
        let size = u32::try_from(padded).map_err(|_| too_large(padded as u64))?;
        out.extend_from_slice(&tag.0);
        out.extend_from_slice(&size.to_le_bytes());
        out.extend_from_slice(data);
        out.resize(
            out.len().saturating_add(padded.saturating_sub(data.len())),
            0,
        );
    }
    let digest = compute_digest(&out);
    if let Some(d) = out.get_mut(4..20) {
        d.copy_from_slice(&digest);
    }
    Ok(out)
}

/// The contents of a `DXIL` part: the program header then `bitcode`, padded to 4 bytes.
/// `dxil_version` is (major, minor), `(1, 3)` for DXIL 1.3.
pub fn dxil_part(
    version: ProgramVersion,
    dxil_version: (u8, u8),
    bitcode: &[u8],
) -> Result<Vec<u8>, ContainerError> {
    let padded = bitcode
        .len()
        .checked_next_multiple_of(4)
        .and_then(|n| n.checked_add(DXIL_PROGRAM_HEADER_SIZE))
        .ok_or(too_large(u64::MAX))?;
    let words = u32::try_from(padded / 4).map_err(|_| too_large(padded as u64))?;
    let size = u32::try_from(bitcode.len()).map_err(|_| too_large(bitcode.len() as u64))?;
    let mut out = Vec::with_capacity(padded);
    out.extend_from_slice(&version.to_word().to_le_bytes());
    out.extend_from_slice(&words.to_le_bytes());
    out.extend_from_slice(b"DXIL");
    let dv = (u32::from(dxil_version.0) << 8) | u32::from(dxil_version.1);
    out.extend_from_slice(&dv.to_le_bytes());
    out.extend_from_slice(&BITCODE_OFFSET.to_le_bytes());
    out.extend_from_slice(&size.to_le_bytes());
    out.extend_from_slice(bitcode);
    out.resize(padded, 0);
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::super::{Container, DigestCheck, DxilProgramHeader, ProgramKind};
    use super::*;

    #[test]
    fn a_written_container_reads_back_with_a_matching_digest() {
        // DXIL.rst "DXIL Container Format": the program header's size counts 32-bit
        // words of the whole part; the bitcode offset is from the `DXIL` magic.
        let bitcode = b"BC\xC0\xDE\x01\x02\x03";
        let version = ProgramVersion {
            kind: ProgramKind::Library,
            major: 6,
            minor: 3,
        };
        let part = dxil_part(version, (1, 3), bitcode).unwrap();
        assert_eq!(part.len(), 24 + 8);
        let other = [7u8; 3];
        let bytes = write_container(&[(FourCc::DXIL, &part), (FourCc(*b"XTRA"), &other)]).unwrap();
        let c = Container::parse(&bytes).unwrap();
        assert!(matches!(c.check_digest(), DigestCheck::Matches { .. }));
        assert_eq!(c.parts.len(), 2);
        assert_eq!(c.parts[1].data, &[7, 7, 7, 0]);
        let (h, bc) = DxilProgramHeader::parse(c.part(FourCc::DXIL).unwrap()).unwrap();
        assert_eq!(bc, bitcode);
        assert_eq!(h.version, version);
        assert_eq!(h.size_in_words, 8);
        assert_eq!(h.dxil_version_pair(), (1, 3));
    }
}
