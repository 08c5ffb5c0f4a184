//! [`ContainerInfo`]: everything a container holds, each part decoded on its own.
//!
//! Owns: choosing the decoder for each part and collecting the results, so that a part
//! that fails to decode reports its error beside the others instead of hiding them.
//! Does not own: printing (the `info` command does that) or the program's tokens and
//! bitcode.

use serde::Serialize;

use super::digest::DigestCheck;
use super::hash::ShaderHash;
use super::psv0::Psv0;
use super::rdat::Rdat;
use super::rdef::Rdef;
use super::sfi0::FeatureFlags;
use super::signature::{Signature, is_signature_tag};
use super::stat::Statistics;
use super::{Container, ContainerError, FourCc, Part, ProgramHeader, ProgramKind};

/// What a part decoded to.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum PartContents {
    /// A program part's header (`SHDR`, `SHEX`, `DXIL`, `ILDB`); the program itself is
    /// decoded by [`crate::dxbc`] or [`crate::dxil`].
    Program(ProgramHeader),
    /// A signature (`ISGN`, `OSGN`, `OSG5`, `PCSG`, `ISG1`, `OSG1`, `PSG1`).
    Signature(Signature),
    /// Resource definitions (`RDEF`).
    Rdef(Rdef),
    /// Feature flags (`SFI0`).
    FeatureFlags(FeatureFlags),
    /// Statistics (`STAT`).
    Statistics(Statistics),
    /// Pipeline-state validation (`PSV0`).
    Psv0(Psv0),
    /// Runtime data (`RDAT`).
    Rdat(Rdat),
    /// Shader hash (`HASH`).
    Hash(ShaderHash),
    /// The HLSL sources and compiler arguments dxc keeps with `-Zi` (`SRCI`,
    /// [`super::srci`]): the file names, not their text.
    SourceInfo {
        /// The files' names, the main file first.
        files: Vec<String>,
        /// How many compiler arguments it records.
        arguments: usize,
        /// Whether the contents were zlib-compressed.
        compressed: bool,
    },
    /// fxc's HLSL debug info (`SPDB`, a PDB; [`super::spdb`]): what it holds.
    ProgramDatabase {
        /// The embedded HLSL files' names.
        files: Vec<String>,
        /// Line-table entries.
        lines: usize,
        /// Variables.
        variables: usize,
    },
    /// A part this module does not decode: listed by tag and size.
    Undecoded {
        /// What the tag is known to hold, when it is known.
        note: Option<&'static str>,
    },
}

/// What a tag this module does not decode is known to hold.
pub fn undecoded_note(tag: FourCc) -> Option<&'static str> {
    Some(match &tag.0 {
        b"Aon9" => "Direct3D 9 program for feature level 9",
        b"ILDN" => "debug name",
        b"RTS0" => "root signature",
        b"PRIV" => "private data",
        b"VERS" => "compiler version",
        b"PDBI" => "PDB information",
        b"IFCE" => "interfaces",
        b"ICFE" => "interfaces",
        b"SDBG" => "debug information (no public layout)",
        b"XNAP" | b"XNAS" => "Direct3D 9 programs for Xbox",
        _ => return None,
    })
}

/// Decodes one part. `program` is the container's program kind (it decides the
/// direction of a patch-constant signature and the stage of a 24-byte PSV0 runtime
/// info). Unknown tags decode to [`PartContents::Undecoded`], never to an error.
pub fn decode_part(
    part: &Part<'_>,
    program: Option<ProgramKind>,
) -> Result<PartContents, ContainerError> {
    let tag = part.tag;
    Ok(match tag {
        FourCc::SHDR | FourCc::SHEX | FourCc::DXIL | FourCc::ILDB => {
            PartContents::Program(ProgramHeader::parse(part)?)
        }
        t if is_signature_tag(t) => PartContents::Signature(Signature::parse(part, program)?),
        FourCc::RDEF => PartContents::Rdef(Rdef::parse(part)?),
        FourCc::SFI0 => PartContents::FeatureFlags(FeatureFlags::parse(part)?),
        FourCc::STAT => PartContents::Statistics(Statistics::parse(part)?),
        FourCc::PSV0 => PartContents::Psv0(Psv0::parse(part, program)?),
        FourCc::RDAT => PartContents::Rdat(Rdat::parse(part)?),
        FourCc::HASH => PartContents::Hash(ShaderHash::parse(part)?),
        super::srci::SRCI => {
            let info = super::srci::read(part.data)?;
            PartContents::SourceInfo {
                files: info.files.into_iter().map(|f| f.name).collect(),
                arguments: info.args.len(),
                compressed: info.compressed,
            }
        }
        super::spdb::SPDB => {
            let s = super::spdb::read(part.data)?;
            PartContents::ProgramDatabase {
                files: s.files.into_iter().map(|f| f.name).collect(),
                lines: s.lines.len(),
                variables: s.variables.len(),
            }
        }
        t => PartContents::Undecoded {
            note: undecoded_note(t),
        },
    })
}

/// One part with what it decoded to.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PartInfo {
    /// Its index in the directory.
    pub index: u32,
    /// Its tag.
    pub tag: FourCc,
    /// Byte offset of its header in the container.
    pub offset: u32,
    /// Its size in bytes (after the header).
    pub size: u32,
    /// What it decoded to, or why it did not.
    pub contents: Result<PartContents, ContainerError>,
}

impl Serialize for PartInfo {
    /// `{ "index", "tag", "offset", "size", "contents" }`, or `"error"` (the message) in
    /// place of `"contents"` when the part did not decode.
    fn serialize<S: serde::Serializer>(&self, s: S) -> Result<S::Ok, S::Error> {
        use serde::ser::SerializeStruct;
        let mut st = s.serialize_struct("PartInfo", 5)?;
        st.serialize_field("index", &self.index)?;
        st.serialize_field("tag", &self.tag)?;
        st.serialize_field("offset", &self.offset)?;
        st.serialize_field("size", &self.size)?;
        match &self.contents {
            Ok(c) => st.serialize_field("contents", c)?,
            Err(e) => st.serialize_field("error", e)?,
        }
        st.end()
    }
}

/// The program part as far as its header tells.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ProgramInfo {
    /// The program part's tag.
    pub tag: FourCc,
    /// Its header, or why it could not be read.
    #[serde(serialize_with = "ser_result")]
    pub header: Result<ProgramHeader, ContainerError>,
}

fn ser_result<S: serde::Serializer, T: Serialize>(
    r: &Result<T, ContainerError>,
    s: S,
) -> Result<S::Ok, S::Error> {
    #[derive(Serialize)]
    #[serde(rename_all = "snake_case")]
    enum Out<'a, T> {
        Ok(&'a T),
        Error(&'a ContainerError),
    }
    match r {
        Ok(v) => Out::Ok(v).serialize(s),
        Err(e) => Out::<T>::Error(e).serialize(s),
    }
}

/// Everything a container holds.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ContainerInfo {
    /// Container format version (major, minor).
    pub version: (u16, u16),
    /// The stated total size.
    pub total_size: u32,
    /// The digest verdict.
    pub digest: DigestCheck,
    /// The program part (`None` when the container has none).
    pub program: Option<ProgramInfo>,
    /// Every part, in directory order.
    pub parts: Vec<PartInfo>,
}

impl ContainerInfo {
    /// Reads the header and directory (an error there is returned: nothing else can be
    /// trusted), then decodes every part independently.
    pub fn parse(bytes: &[u8]) -> Result<Self, ContainerError> {
        Ok(Self::of(&Container::parse(bytes)?))
    }

    /// Decodes every part of a parsed container.
    pub fn of(c: &Container<'_>) -> Self {
        let program = c.program_part().map(|p| ProgramInfo {
            tag: p.tag,
            header: ProgramHeader::parse(p),
        });
        let kind = program
            .as_ref()
            .and_then(|p| p.header.as_ref().ok())
            .map(|h| h.version().kind);
        let parts = c
            .parts
            .iter()
            .enumerate()
            .map(|(i, p)| PartInfo {
                index: u32::try_from(i).unwrap_or(u32::MAX),
                tag: p.tag,
                offset: p.offset,
                size: u32::try_from(p.data.len()).unwrap_or(u32::MAX),
                contents: decode_part(p, kind),
            })
            .collect();
        ContainerInfo {
            version: c.version,
            total_size: c.total_size,
            digest: DigestCheck::check(c.digest, c.bytes),
            program,
            parts,
        }
    }

    /// The program kind, when the program header could be read.
    pub fn program_kind(&self) -> Option<ProgramKind> {
        self.program
            .as_ref()
            .and_then(|p| p.header.as_ref().ok())
            .map(|h| h.version().kind)
    }

    /// The parts that failed to decode.
    pub fn errors(&self) -> impl Iterator<Item = (&PartInfo, &ContainerError)> {
        self.parts
            .iter()
            .filter_map(|p| p.contents.as_ref().err().map(|e| (p, e)))
    }
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects, clippy::cast_possible_truncation)]
mod tests {
    use super::*;
    use crate::container::tests::build;

    /// A part that fails does not hide the others; unknown tags are listed, not refused.
    #[test]
    fn parts_decode_independently() {
        let mut sfi = 1u64.to_le_bytes().to_vec();
        sfi.truncate(8);
        let bytes = build(&[
            (b"SFI0", &sfi),
            (b"ISGN", &[9, 9]),
            (b"XYZW", &[1, 2, 3]),
            (b"SHEX", &[0x50, 0, 5, 0, 2, 0, 0, 0]),
        ]);
        let info = ContainerInfo::parse(&bytes).unwrap();
        assert!(matches!(
            info.parts[0].contents,
            Ok(PartContents::FeatureFlags(_))
        ));
        assert!(info.parts[1].contents.is_err());
        assert!(matches!(
            info.parts[2].contents,
            Ok(PartContents::Undecoded { note: None })
        ));
        assert_eq!(info.program_kind(), Some(ProgramKind::Compute));
        assert_eq!(info.errors().count(), 1);
        assert!(matches!(info.digest, DigestCheck::Unsigned { .. }));
        let json = serde_json::to_value(&info).unwrap();
        assert!(json["parts"][1]["error"].as_str().unwrap().contains("ISGN"));
        assert_eq!(
            json["parts"][0]["contents"]["feature_flags"]["names"][0],
            "Doubles"
        );
        assert_eq!(
            json["program"]["header"]["ok"]["version"]["profile"],
            "cs_5_0"
        );
    }
}
