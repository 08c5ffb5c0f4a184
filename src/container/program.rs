//! The headers at the start of a program part: the version and length tokens of a
//! `SHDR`/`SHEX` program, and the DXIL program header of a `DXIL`/`ILDB` part.
//!
//! Both begin with the same version word: program kind in bits 16..32, major version in
//! bits 4..8, minor version in bits 0..4 (seed `002_…`, "Version Token"; DXIL.rst,
//! "DXIL Container Format").

use std::fmt;

use super::{ContainerError, FourCc, Part, Reader};

/// The kind of program a part holds (`D3D10_SB_TOKENIZED_PROGRAM_TYPE`, extended by
/// Shader Model 6's library, ray-tracing, mesh and node kinds).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum ProgramKind {
    /// Pixel shader (0).
    Pixel,
    /// Vertex shader (1).
    Vertex,
    /// Geometry shader (2).
    Geometry,
    /// Hull shader (3).
    Hull,
    /// Domain shader (4).
    Domain,
    /// Compute shader (5).
    Compute,
    /// Library (6).
    Library,
    /// Ray generation (7).
    RayGeneration,
    /// Intersection (8).
    Intersection,
    /// Any hit (9).
    AnyHit,
    /// Closest hit (10).
    ClosestHit,
    /// Miss (11).
    Miss,
    /// Callable (12).
    Callable,
    /// Mesh shader (13).
    Mesh,
    /// Amplification shader (14).
    Amplification,
    /// Work-graph node (15).
    Node,
    /// Any other value.
    Unknown(u16),
}

impl ProgramKind {
    /// The kind for a version word's type field.
    pub fn from_code(code: u16) -> Self {
        use ProgramKind::*;
        match code {
            0 => Pixel,
            1 => Vertex,
            2 => Geometry,
            3 => Hull,
            4 => Domain,
            5 => Compute,
            6 => Library,
            7 => RayGeneration,
            8 => Intersection,
            9 => AnyHit,
            10 => ClosestHit,
            11 => Miss,
            12 => Callable,
            13 => Mesh,
            14 => Amplification,
            15 => Node,
            n => Unknown(n),
        }
    }

    /// The numeric code.
    pub fn code(self) -> u16 {
        use ProgramKind::*;
        match self {
            Pixel => 0,
            Vertex => 1,
            Geometry => 2,
            Hull => 3,
            Domain => 4,
            Compute => 5,
            Library => 6,
            RayGeneration => 7,
            Intersection => 8,
            AnyHit => 9,
            ClosestHit => 10,
            Miss => 11,
            Callable => 12,
            Mesh => 13,
            Amplification => 14,
            Node => 15,
            Unknown(n) => n,
        }
    }

    /// The profile prefix fxc and dxc use (`ps`, `vs`, `gs`, `hs`, `ds`, `cs`, `lib`,
    /// `ms`, `as`); ray-tracing kinds are compiled as libraries.
    pub fn profile_prefix(self) -> &'static str {
        use ProgramKind::*;
        match self {
            Pixel => "ps",
            Vertex => "vs",
            Geometry => "gs",
            Hull => "hs",
            Domain => "ds",
            Compute => "cs",
            Mesh => "ms",
            Amplification => "as",
            Library | RayGeneration | Intersection | AnyHit | ClosestHit | Miss | Callable | Node => "lib",
            Unknown(_) => "unknown",
        }
    }
}

/// A program version word: kind, major and minor version.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct ProgramVersion {
    /// The program kind.
    pub kind: ProgramKind,
    /// Major shader model.
    pub major: u8,
    /// Minor shader model.
    pub minor: u8,
}

impl ProgramVersion {
    /// Decodes a version word.
    pub fn from_word(word: u32) -> Self {
        ProgramVersion {
            kind: ProgramKind::from_code((word >> 16) as u16),
            major: ((word >> 4) & 0xf) as u8,
            minor: (word & 0xf) as u8,
        }
    }

    /// Encodes the version word.
    pub fn to_word(self) -> u32 {
        (u32::from(self.kind.code()) << 16) | (u32::from(self.major & 0xf) << 4) | u32::from(self.minor & 0xf)
    }
}

impl fmt::Display for ProgramVersion {
    /// The profile name: `cs_5_0`, `ps_6_6`, `lib_6_3`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}_{}_{}", self.kind.profile_prefix(), self.major, self.minor)
    }
}

/// The header of a `DXIL` or `ILDB` part (24 bytes).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DxilProgramHeader {
    /// The program version word.
    pub version: ProgramVersion,
    /// The part's size in 32-bit words, as stated.
    pub size_in_words: u32,
    /// The DXIL version (major in bits 8..16, minor in bits 0..8).
    pub dxil_version: u32,
    /// Offset of the bitcode from the start of the bitcode header (byte 8 of the part).
    pub bitcode_offset: u32,
    /// Size of the bitcode in bytes.
    pub bitcode_size: u32,
}

/// Byte offset of the bitcode header (`DXIL` magic) within the program part.
pub const DXIL_BITCODE_HEADER_OFFSET: u32 = 8;

impl DxilProgramHeader {
    /// Reads the header of a `DXIL`/`ILDB` part and returns it with the bitcode bytes.
    /// Refuses a wrong magic and a bitcode range outside the part.
    pub fn parse<'a>(part: &Part<'a>) -> Result<(Self, &'a [u8]), ContainerError> {
        let r = Reader::new(part.data, part.tag);
        let version = ProgramVersion::from_word(r.u32_at(0)?);
        let size_in_words = r.u32_at(4)?;
        let magic = r.u32_at(8)?;
        if magic != u32::from_le_bytes(*b"DXIL") {
            return Err(ContainerError::BadField { part: part.tag, what: "bitcode magic", value: magic.into(), offset: 8 });
        }
        let dxil_version = r.u32_at(12)?;
        let bitcode_offset = r.u32_at(16)?;
        let bitcode_size = r.u32_at(20)?;
        let start = u64::from(DXIL_BITCODE_HEADER_OFFSET).saturating_add(bitcode_offset.into());
        let end = start.saturating_add(bitcode_size.into());
        let bitcode = usize::try_from(start)
            .ok()
            .zip(usize::try_from(end).ok())
            .and_then(|(s, e)| part.data.get(s..e))
            .ok_or(ContainerError::Truncated {
                part: part.tag,
                offset: 16,
                need: end,
                have: part.data.len() as u64,
            })?;
        Ok((DxilProgramHeader { version, size_in_words, dxil_version, bitcode_offset, bitcode_size }, bitcode))
    }

    /// DXIL version as (major, minor).
    pub fn dxil_version_pair(&self) -> (u8, u8) {
        (((self.dxil_version >> 8) & 0xff) as u8, (self.dxil_version & 0xff) as u8)
    }
}

/// The first two tokens of a `SHDR`/`SHEX` part: the version and the program length.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TokenProgramHeader {
    /// The version token.
    pub version: ProgramVersion,
    /// The program length in 32-bit tokens, including these two.
    pub length_in_tokens: u32,
}

impl TokenProgramHeader {
    /// Reads the version and length tokens.
    pub fn parse(part: &Part<'_>) -> Result<Self, ContainerError> {
        let r = Reader::new(part.data, part.tag);
        Ok(TokenProgramHeader { version: ProgramVersion::from_word(r.u32_at(0)?), length_in_tokens: r.u32_at(4)? })
    }
}

/// The program a container holds, as far as its header tells.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ProgramHeader {
    /// A Shader Model 4–5 token program (`SHDR`/`SHEX`).
    Tokens(TokenProgramHeader),
    /// A Shader Model 6 DXIL program (`DXIL`/`ILDB`).
    Dxil(DxilProgramHeader),
}

impl ProgramHeader {
    /// Reads the header of whichever program part `part` is.
    pub fn parse(part: &Part<'_>) -> Result<Self, ContainerError> {
        if part.tag == FourCc::DXIL || part.tag == FourCc::ILDB {
            Ok(ProgramHeader::Dxil(DxilProgramHeader::parse(part)?.0))
        } else {
            Ok(ProgramHeader::Tokens(TokenProgramHeader::parse(part)?))
        }
    }

    /// The program version.
    pub fn version(&self) -> ProgramVersion {
        match self {
            ProgramHeader::Tokens(t) => t.version,
            ProgramHeader::Dxil(d) => d.version,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_word_round_trips() {
        // cs_5_0 as fxc writes it: 0x00050050.
        let v = ProgramVersion::from_word(0x0005_0050);
        assert_eq!(v.kind, ProgramKind::Compute);
        assert_eq!((v.major, v.minor), (5, 0));
        assert_eq!(v.to_string(), "cs_5_0");
        assert_eq!(v.to_word(), 0x0005_0050);
        assert_eq!(ProgramVersion::from_word(0x0006_0063).to_string(), "lib_6_3");
    }
}
