//! Four-character part tags.

use std::fmt;

/// A four-character code: the tag of a container part (`SHEX`, `ISGN`, `DXIL`, …).
#[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
pub struct FourCc(pub [u8; 4]);

impl FourCc {
    /// The container itself (`DXBC`), used in errors about the header and directory.
    pub const CONTAINER: FourCc = FourCc(*b"DXBC");
    /// Shader Model 4.0/4.1 program.
    pub const SHDR: FourCc = FourCc(*b"SHDR");
    /// Shader Model 5.x program.
    pub const SHEX: FourCc = FourCc(*b"SHEX");
    /// Shader Model 6 program (DXIL program header and LLVM bitcode).
    pub const DXIL: FourCc = FourCc(*b"DXIL");
    /// Shader Model 6 program with debug information.
    pub const ILDB: FourCc = FourCc(*b"ILDB");
    /// Input signature.
    pub const ISGN: FourCc = FourCc(*b"ISGN");
    /// Output signature.
    pub const OSGN: FourCc = FourCc(*b"OSGN");
    /// Output signature with streams (SM5 geometry).
    pub const OSG5: FourCc = FourCc(*b"OSG5");
    /// Patch-constant signature.
    pub const PCSG: FourCc = FourCc(*b"PCSG");
    /// Input signature with min precision (SM5.1 / SM6).
    pub const ISG1: FourCc = FourCc(*b"ISG1");
    /// Output signature with min precision.
    pub const OSG1: FourCc = FourCc(*b"OSG1");
    /// Patch-constant signature with min precision.
    pub const PSG1: FourCc = FourCc(*b"PSG1");
    /// Resource definitions (reflection).
    pub const RDEF: FourCc = FourCc(*b"RDEF");
    /// Statistics.
    pub const STAT: FourCc = FourCc(*b"STAT");
    /// Shader feature flags.
    pub const SFI0: FourCc = FourCc(*b"SFI0");
    /// Pipeline state validation record.
    pub const PSV0: FourCc = FourCc(*b"PSV0");
    /// Runtime data (libraries and SM6 reflection).
    pub const RDAT: FourCc = FourCc(*b"RDAT");
    /// Serialized root signature.
    pub const RTS0: FourCc = FourCc(*b"RTS0");
    /// Shader hash.
    pub const HASH: FourCc = FourCc(*b"HASH");

    /// The tag as text; bytes outside printable ASCII are shown as `\xNN`.
    pub fn as_text(&self) -> String {
        self.to_string()
    }
}

impl fmt::Display for FourCc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        for &b in &self.0 {
            if b.is_ascii_graphic() || b == b' ' {
                write!(f, "{}", b as char)?;
            } else {
                write!(f, "\\x{b:02x}")?;
            }
        }
        Ok(())
    }
}

impl fmt::Debug for FourCc {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "FourCc({self})")
    }
}

impl serde::Serialize for FourCc {
    /// A tag serialises as its text (see [`FourCc::as_text`]).
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        s.collect_str(self)
    }
}
