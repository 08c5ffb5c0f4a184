//! The DXBC container: header, part directory, digest, and the parts that restate a
//! program's interface (signatures, RDEF, PSV0, SFI0, STAT, RDAT, HASH).
//!
//! Owns: reading the container header and part directory of any Direct3D shader blob
//! (Shader Model 4–5 `SHDR`/`SHEX` programs and Shader Model 6 `DXIL` programs share it),
//! and decoding the fixed-layout parts beside the program.
//!
//! Does not own: the program tokens (see [`crate::dxbc`]) or the LLVM module (see
//! [`crate::dxil`]). This module depends on nothing else in the crate.
//!
//! # Layout (all little-endian)
//!
//! | offset | size | field |
//! |---|---|---|
//! | 0 | 4 | magic `DXBC` |
//! | 4 | 16 | digest (Direct3D's modified MD5 of bytes 20..) |
//! | 20 | 2 + 2 | container version, major and minor (1.0) |
//! | 24 | 4 | total size in bytes |
//! | 28 | 4 | part count |
//! | 32 | 4 × count | byte offset of each part |
//!
//! Each part starts with its four-character tag and a 4-byte size, then `size` bytes.
//!
//! Every offset and size is checked against the container before it is used, and no
//! allocation is sized by a count read from the input before that count is checked
//! against the bytes that could hold it.
//!
//! # Parts
//!
//! | module | parts |
//! |---|---|
//! | [`digest`] | the digest in bytes 4..20 ([`compute_digest`], [`DigestCheck`]) |
//! | `program` | the first words of `SHDR`/`SHEX`/`DXIL`/`ILDB` ([`ProgramHeader`]) |
//! | [`signature`] | `ISGN`, `OSGN`, `OSG5`, `PCSG`, `ISG1`, `OSG1`, `PSG1` |
//! | [`rdef`] | `RDEF` (constant buffers, variables, types, bindings) |
//! | [`sfi0`] | `SFI0` (feature flags) |
//! | [`stat`] | `STAT` (fxc's statistics, or dxc's reflection program) |
//! | [`psv0`] | `PSV0` (pipeline state validation) |
//! | [`rdat`] | `RDAT` (runtime data: functions and resources of libraries) |
//! | [`hash`] | `HASH` (dxc's shader hash) |
//! | [`srci`] | `SRCI` (dxc's `-Zi` source info: the HLSL files and arguments) |
//! | [`spdb`] | `SPDB` (fxc's `/Zi` PDB, read with the `pdb` crate: HLSL files, line table, variables) |
//! | [`rts0`] | `RTS0` (a serialized root signature: its root parameters and registers) |
//! | [`report`] | [`ContainerInfo`]: every part decoded on its own, for `dxlane info` |
//! | [`write`] | writing a container and a `DXIL` part ([`write::write_container`]) |
//!
//! Other tags are listed by tag and size, never refused.

#![deny(
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::unwrap_used,
    clippy::expect_used,
    clippy::panic
)]

pub mod codes;
pub mod digest;
mod error;
mod fourcc;
pub mod hash;
mod program;
pub mod psv0;
pub mod rdat;
pub mod rdef;
mod reader;
pub mod report;
pub mod rts0;
pub mod sfi0;
pub mod signature;
pub mod spdb;
pub mod srci;
pub mod stage;
pub mod stat;
pub mod write;

pub use digest::{DigestCheck, compute_digest};
pub use error::ContainerError;
pub use fourcc::FourCc;
pub use program::{
    DXIL_BITCODE_HEADER_OFFSET, DxilProgramHeader, ProgramHeader, ProgramKind, ProgramVersion,
    TokenProgramHeader,
};
pub use reader::Reader;
pub use report::{ContainerInfo, PartContents, PartInfo, decode_part};

/// The size of the fixed container header, before the part offsets.
pub const HEADER_SIZE: usize = 32;

/// The size of a part header (tag and size).
pub const PART_HEADER_SIZE: usize = 8;

/// A container holds at most this many parts. Real containers hold fewer than 16; the
/// limit bounds the directory allocation before the offsets are read.
pub const MAX_PARTS: u32 = 4096;

/// One part of a container, borrowed from the container's bytes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Part<'a> {
    /// The part's four-character tag (`SHEX`, `ISGN`, `DXIL`, …).
    pub tag: FourCc,
    /// Byte offset of the part header within the container.
    pub offset: u32,
    /// The part's contents (after its 8-byte header).
    pub data: &'a [u8],
}

impl Part<'_> {
    /// Byte offset of the part's contents within the container.
    pub fn data_offset(&self) -> u32 {
        self.offset.saturating_add(8)
    }
}

/// A decoded container header and part directory, borrowing the container's bytes.
#[derive(Debug, Clone)]
pub struct Container<'a> {
    /// The whole container, `total_size` bytes long.
    pub bytes: &'a [u8],
    /// The 16-byte digest as stored.
    pub digest: [u8; 16],
    /// Container format version (major, minor); 1.0 in every known container.
    pub version: (u16, u16),
    /// Total size the header states (equal to `bytes.len()`).
    pub total_size: u32,
    /// The parts, in directory order.
    pub parts: Vec<Part<'a>>,
}

impl<'a> Container<'a> {
    /// Reads the header and the part directory.
    ///
    /// Refuses: a wrong magic, a stated total size larger than the input (trailing bytes
    /// after the stated size are ignored), a part count that the directory cannot hold,
    /// a part offset or size that runs past the end, and parts that overlap each other
    /// or the directory.
    pub fn parse(bytes: &'a [u8]) -> Result<Self, ContainerError> {
        let top = FourCc::CONTAINER;
        let r = Reader::new(bytes, top);
        let magic = r.u32_at(0)?;
        if magic != u32::from_le_bytes(*b"DXBC") {
            return Err(ContainerError::BadMagic {
                found: magic.to_le_bytes(),
            });
        }
        let digest: [u8; 16] = r.array_at(4)?;
        let version = (r.u16_at(20)?, r.u16_at(22)?);
        let total_size = r.u32_at(24)?;
        let total = usize::try_from(total_size)
            .map_err(|_| ContainerError::TooLarge { size: total_size })?;
        if total > bytes.len() {
            return Err(ContainerError::Truncated {
                part: top,
                offset: 24,
                need: total_size.into(),
                have: bytes.len() as u64,
            });
        }
        let bytes = bytes.get(..total).unwrap_or(bytes);
        let r = Reader::new(bytes, top);
        let count = r.u32_at(28)?;
        let dir_end = u64::from(count)
            .checked_mul(4)
            .and_then(|n| n.checked_add(HEADER_SIZE as u64))
            .unwrap_or(u64::MAX);
        if count > MAX_PARTS || dir_end > u64::from(total_size) {
            return Err(ContainerError::BadPartCount { count, total_size });
        }
        // `count` is now bounded by the bytes that hold the directory.
        let mut parts: Vec<Part<'a>> = Vec::with_capacity(count as usize);
        for i in 0..count {
            let at = HEADER_SIZE.saturating_add((i as usize).saturating_mul(4));
            let offset = r.u32_at(at)?;
            let body = u64::from(offset).saturating_add(PART_HEADER_SIZE as u64);
            if u64::from(offset) < dir_end || body > u64::from(total_size) {
                return Err(ContainerError::BadPartOffset {
                    index: i,
                    offset,
                    total_size,
                });
            }
            let tag = FourCc(r.array_at(offset as usize)?);
            let size = r.u32_at((offset as usize).saturating_add(4))?;
            let end = body.saturating_add(u64::from(size));
            if end > u64::from(total_size) {
                return Err(ContainerError::Truncated {
                    part: tag,
                    offset: offset.saturating_add(4),
                    need: end,
                    have: total_size.into(),
                });
            }
            let data = usize::try_from(body)
                .ok()
                .zip(usize::try_from(end).ok())
                .and_then(|(start, end)| bytes.get(start..end))
                .unwrap_or_default();
            parts.push(Part { tag, offset, data });
        }
        check_overlaps(&parts)?;
        Ok(Container {
            bytes,
            digest,
            version,
            total_size,
            parts,
        })
    }

    /// The first part with this tag.
    pub fn part(&self, tag: FourCc) -> Option<&Part<'a>> {
        self.parts.iter().find(|p| p.tag == tag)
    }

    /// The digest verdict: the stored digest against [`compute_digest`] of the bytes.
    pub fn check_digest(&self) -> DigestCheck {
        DigestCheck::check(self.digest, self.bytes)
    }

    /// The program part: `SHEX` or `SHDR` for Shader Model 4–5, `DXIL` for Shader Model 6
    /// (an `ILDB` debug program is used only when no `DXIL` part is present).
    pub fn program_part(&self) -> Option<&Part<'a>> {
        [FourCc::SHEX, FourCc::SHDR, FourCc::DXIL, FourCc::ILDB]
            .into_iter()
            .find_map(|t| self.part(t))
    }
}

/// Refuses parts that overlap: each part's header and contents must lie apart from every
/// other part's.
fn check_overlaps(parts: &[Part<'_>]) -> Result<(), ContainerError> {
    let mut spans: Vec<(u64, u64, usize)> = parts
        .iter()
        .enumerate()
        .map(|(i, p)| {
            let start = u64::from(p.offset);
            let end = start
                .saturating_add(PART_HEADER_SIZE as u64)
                .saturating_add(p.data.len() as u64);
            (start, end, i)
        })
        .collect();
    spans.sort_unstable();
    for w in spans.windows(2) {
        if let [a, b] = w
            && b.0 < a.1
        {
            let (first, second) = (a.2.min(b.2), a.2.max(b.2));
            let tag = |i: usize| parts.get(i).map(|p| p.tag).unwrap_or(FourCc::CONTAINER);
            return Err(ContainerError::OverlappingParts {
                first: tag(first),
                second: tag(second),
                offset: u32::try_from(b.0).unwrap_or(u32::MAX),
            });
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests;
