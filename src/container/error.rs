//! Errors of the container layer: each names the part and the byte offset.

use super::FourCc;

/// An error reading a container or one of its parts.
///
/// Offsets are in bytes: from the start of the container for the header and the part
/// directory, from the start of the part's contents otherwise.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum ContainerError {
    /// The first four bytes are not `DXBC`.
    #[error("not a DXBC container: it starts with \"{}\", not \"DXBC\"", FourCc(*.found))]
    BadMagic {
        /// The bytes found.
        found: [u8; 4],
    },
    /// The stated total size cannot be addressed on this machine.
    #[error("container states a total size of {size} bytes, too large to address")]
    TooLarge {
        /// The stated size.
        size: u32,
    },
    /// A read ran past the end of a part (or of the container).
    #[error("truncated {part}: need {need} bytes at byte 0x{offset:x}, have {have}")]
    Truncated {
        /// The part being read (`DXBC` for the container header).
        part: FourCc,
        /// Where the read started.
        offset: u32,
        /// Bytes needed, counted from the start of the part (or container).
        need: u64,
        /// Bytes the part (or container) holds.
        have: u64,
    },
    /// The part count cannot fit in the container.
    #[error(
        "container states {count} parts, but a directory that large does not fit in its {total_size} bytes"
    )]
    BadPartCount {
        /// The stated count.
        count: u32,
        /// The container's size.
        total_size: u32,
    },
    /// A part offset points into the header or past the end.
    #[error(
        "part {index} starts at byte 0x{offset:x}, not between the part directory and the end of the {total_size}-byte container"
    )]
    BadPartOffset {
        /// The part's index in the directory.
        index: u32,
        /// The stated offset.
        offset: u32,
        /// The container's size.
        total_size: u32,
    },
    /// Two parts share bytes.
    #[error("parts {first} and {second} overlap at byte 0x{offset:x}")]
    OverlappingParts {
        /// One part.
        first: FourCc,
        /// The other.
        second: FourCc,
        /// Where the later one starts.
        offset: u32,
    },
    /// A count or size field is inconsistent with the bytes that hold it.
    #[error("{part}: bad {what} {value} at byte 0x{offset:x}")]
    BadField {
        /// The part.
        part: FourCc,
        /// Which field.
        what: &'static str,
        /// The value found.
        value: u64,
        /// Where it was read.
        offset: u32,
    },
    /// A string is not terminated or not valid UTF-8 (or the stated string offset is out
    /// of range).
    #[error("{part}: bad string at byte 0x{offset:x}")]
    BadString {
        /// The part.
        part: FourCc,
        /// Where the string starts (or the offset field that points at it).
        offset: u32,
    },
    /// A required part is missing.
    #[error("container has no {0} part")]
    MissingPart(FourCc),
    /// Nested records (RDEF types) go deeper than the decoder follows.
    #[error("{part}: records nested deeper than {limit} levels at byte 0x{offset:x}")]
    TooDeep {
        /// The part.
        part: FourCc,
        /// Where the record that went too deep starts.
        offset: u32,
        /// The nesting limit.
        limit: u32,
    },
    /// The part asks for more decoded records than the decoder's limit (a guard
    /// against inputs whose records share bytes so that decoding them multiplies).
    #[error("{part}: more than {limit} {what}")]
    LimitExceeded {
        /// The part.
        part: FourCc,
        /// What was counted.
        what: &'static str,
        /// The limit.
        limit: u32,
    },
    /// An `SPDB` part (a PDB) that does not read.
    #[error(transparent)]
    ProgramDatabase(#[from] super::spdb::SpdbError),
}

impl serde::Serialize for ContainerError {
    /// An error serialises as its message.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}
