//! Signature parts: the elements a program reads (`ISGN`, `ISG1`), writes (`OSGN`,
//! `OSG5`, `OSG1`) and passes per patch (`PCSG`, `PSG1`).
//!
//! Owns: decoding the three element layouts and naming their codes. Does not own:
//! checking a signature against the program (the decoders do that) or against another
//! stage's signature.
//!
//! # Layout (little-endian)
//!
//! A part starts with the element count and the byte offset of the first element (from
//! the start of the part, 8 in practice), then the elements:
//!
//! | tag | size | fields |
//! |---|---|---|
//! | `ISGN` `OSGN` `PCSG` | 24 | name offset, semantic index, system value, component type, register, mask (u8), read-write mask (u8), 2 bytes padding |
//! | `OSG5` | 28 | stream, then the 24-byte element |
//! | `ISG1` `OSG1` `PSG1` | 32 | stream, the 24-byte element, minimum precision (u32) |
//!
//! Name offsets count from the start of the part. Sources: `D3D11_SIGNATURE_PARAMETER_DESC`
//! (d3d11shader.h); vkd3d-shader `parse_shader_signature` (dxbc.c); LLVM
//! `dxbc::ProgramSignatureElement` (`llvm/BinaryFormat/DXContainer.h`).

use serde::Serialize;

use super::codes::code_enum;
use super::{ContainerError, FourCc, Part, ProgramKind, Reader};

/// The 24-byte element of `ISGN`, `OSGN` and `PCSG`.
pub const ELEMENT_SIZE_V0: u32 = 24;
/// The 28-byte element of `OSG5` (a stream word first).
pub const ELEMENT_SIZE_OSG5: u32 = 28;
/// The 32-byte element of `ISG1`, `OSG1`, `PSG1` (stream first, min precision last).
pub const ELEMENT_SIZE_V1: u32 = 32;

code_enum! {
    /// A system value: `D3D_NAME` (d3dcommon.h); the same numbers as DXIL's
    /// `DxilProgramSigSemantic`.
    pub enum SystemValue: u32 {
        Undefined = 0 => "UNDEFINED",
        Position = 1 => "POSITION",
        ClipDistance = 2 => "CLIP_DISTANCE",
        CullDistance = 3 => "CULL_DISTANCE",
        RenderTargetArrayIndex = 4 => "RENDER_TARGET_ARRAY_INDEX",
        ViewportArrayIndex = 5 => "VIEWPORT_ARRAY_INDEX",
        VertexId = 6 => "VERTEX_ID",
        PrimitiveId = 7 => "PRIMITIVE_ID",
        InstanceId = 8 => "INSTANCE_ID",
        IsFrontFace = 9 => "IS_FRONT_FACE",
        SampleIndex = 10 => "SAMPLE_INDEX",
        FinalQuadEdgeTessFactor = 11 => "FINAL_QUAD_EDGE_TESSFACTOR",
        FinalQuadInsideTessFactor = 12 => "FINAL_QUAD_INSIDE_TESSFACTOR",
        FinalTriEdgeTessFactor = 13 => "FINAL_TRI_EDGE_TESSFACTOR",
        FinalTriInsideTessFactor = 14 => "FINAL_TRI_INSIDE_TESSFACTOR",
        FinalLineDetailTessFactor = 15 => "FINAL_LINE_DETAIL_TESSFACTOR",
        FinalLineDensityTessFactor = 16 => "FINAL_LINE_DENSITY_TESSFACTOR",
        Barycentrics = 23 => "BARYCENTRICS",
        ShadingRate = 24 => "SHADINGRATE",
        CullPrimitive = 25 => "CULLPRIMITIVE",
        Target = 64 => "TARGET",
        Depth = 65 => "DEPTH",
        Coverage = 66 => "COVERAGE",
        DepthGreaterEqual = 67 => "DEPTH_GREATER_EQUAL",
        DepthLessEqual = 68 => "DEPTH_LESS_EQUAL",
        StencilRef = 69 => "STENCIL_REF",
        InnerCoverage = 70 => "INNER_COVERAGE",
    }
}

impl SystemValue {
    /// The abbreviation fxc prints in a signature table's `SysValue` column (`NONE`,
    /// `POS`, `CLIPDST`, …); the `D3D_NAME` suffix where fxc has no abbreviation.
    pub fn listing_name(self) -> String {
        use SystemValue::*;
        let s = match self {
            Undefined => "NONE",
            Position => "POS",
            ClipDistance => "CLIPDST",
            CullDistance => "CULLDST",
            RenderTargetArrayIndex => "RTINDEX",
            ViewportArrayIndex => "VPINDEX",
            VertexId => "VERTID",
            PrimitiveId => "PRIMID",
            InstanceId => "INSTID",
            IsFrontFace => "FFACE",
            SampleIndex => "SAMPLE",
            FinalQuadEdgeTessFactor => "QUADEDGE",
            FinalQuadInsideTessFactor => "QUADINT",
            FinalTriEdgeTessFactor => "TRIEDGE",
            FinalTriInsideTessFactor => "TRIINT",
            FinalLineDetailTessFactor => "LINEDET",
            FinalLineDensityTessFactor => "LINEDEN",
            Target => "TARGET",
            Depth => "DEPTH",
            Coverage => "COVERAGE",
            DepthGreaterEqual => "DEPTHGE",
            DepthLessEqual => "DEPTHLE",
            StencilRef => "STENCILREF",
            InnerCoverage => "INNERCOV",
            other => return other.to_string(),
        };
        s.to_string()
    }
}

code_enum! {
    /// The type of an element's components: `D3D_REGISTER_COMPONENT_TYPE` (0–3),
    /// extended by DXIL's `DxilProgramSigCompType` (4–9) for native 16- and 64-bit
    /// elements.
    pub enum ComponentType: u32 {
        Unspecified = 0 => "unknown",
        Uint32 = 1 => "uint",
        Sint32 = 2 => "int",
        Float32 = 3 => "float",
        Uint16 = 4 => "uint16",
        Sint16 = 5 => "int16",
        Float16 = 6 => "half",
        Uint64 = 7 => "uint64",
        Sint64 = 8 => "int64",
        Float64 = 9 => "double",
    }
}

code_enum! {
    /// The minimum precision of an element's data: `D3D_MIN_PRECISION` (d3dcommon.h),
    /// the same numbers as DXIL's `DxilProgramSigMinPrecision`.
    pub enum MinPrecision: u32 {
        Default = 0 => "default",
        Float16 = 1 => "min16f",
        Float2_8 = 2 => "min10f",
        Reserved = 3 => "reserved",
        Sint16 = 4 => "min16i",
        Uint16 = 5 => "min16u",
        Any16 = 0xf0 => "any16",
        Any10 = 0xf1 => "any10",
    }
}

/// Which side of the program a signature describes.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum SignatureKind {
    /// What the program reads per vertex, control point or pixel (`ISGN`, `ISG1`).
    Input,
    /// What the program writes (`OSGN`, `OSG5`, `OSG1`).
    Output,
    /// Per-patch values (`PCSG`, `PSG1`): written by a hull program, read by a domain
    /// program.
    PatchConstant,
}

/// What an element's read-write mask byte means. The byte is one field of the element;
/// its sense depends on which way the data flows (`D3D11_SIGNATURE_PARAMETER_DESC`
/// `ReadWriteMask`; LLVM `ProgramSignatureElement::ExclusiveMask`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum RwMaskMeaning {
    /// The program reads these components (an input, or a domain program's patch
    /// constants). fxc's `Used` column shows this mask.
    AlwaysRead,
    /// The program never writes these components (an output, or a hull program's
    /// patch constants); the written components are `mask & !rw_mask`.
    NeverWritten,
}

/// One signature element.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct SignatureElement {
    /// Output stream (geometry programs; 0 in the forms without a stream).
    pub stream: u32,
    /// The semantic name as written in HLSL (`SV_Position`, `TEXCOORD`).
    pub semantic_name: String,
    /// The semantic index.
    pub semantic_index: u32,
    /// The system value this element carries.
    pub system_value: SystemValue,
    /// The type of its components.
    pub component_type: ComponentType,
    /// The register (`v#`/`o#` index); 0xffffffff for a pixel program's depth,
    /// coverage and stencil outputs, which have no register.
    pub register: u32,
    /// The components the element occupies (bit 0 = x).
    pub mask: u8,
    /// The read-write mask; see [`Signature::rw_mask_meaning`].
    pub rw_mask: u8,
    /// Minimum precision (`ISG1`, `OSG1`, `PSG1`; default elsewhere).
    pub min_precision: MinPrecision,
}

/// A decoded signature part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct Signature {
    /// The part's tag.
    pub tag: FourCc,
    /// Which side of the program it describes.
    pub kind: SignatureKind,
    /// What each element's `rw_mask` means here.
    pub rw_mask_meaning: RwMaskMeaning,
    /// Bytes per element (24, 28 or 32).
    pub element_size: u32,
    /// The elements, in stored order.
    pub elements: Vec<SignatureElement>,
}

impl SignatureElement {
    /// The components the program uses: read ones for an input, written ones
    /// (`mask & !rw_mask`) for an output.
    pub fn used_components(&self, meaning: RwMaskMeaning) -> u8 {
        match meaning {
            RwMaskMeaning::AlwaysRead => self.rw_mask,
            RwMaskMeaning::NeverWritten => self.mask & !self.rw_mask & 0xf,
        }
    }
}

/// Whether `tag` is one of the signature parts.
pub fn is_signature_tag(tag: FourCc) -> bool {
    [
        FourCc::ISGN,
        FourCc::OSGN,
        FourCc::OSG5,
        FourCc::PCSG,
        FourCc::ISG1,
        FourCc::OSG1,
        FourCc::PSG1,
    ]
    .contains(&tag)
}

impl Signature {
    /// Decodes a signature part. `program` is the kind of program in the container: it
    /// decides whether a patch-constant signature is read (domain) or written (hull);
    /// without it, patch constants are taken as written.
    ///
    /// Refuses a tag that is not a signature, an element array that runs past the part,
    /// and a name offset outside the part or not NUL-terminated.
    pub fn parse(part: &Part<'_>, program: Option<ProgramKind>) -> Result<Self, ContainerError> {
        let tag = part.tag;
        let r = Reader::new(part.data, tag);
        let (kind, element_size, has_stream, has_precision) = match &tag.0 {
            b"ISGN" => (SignatureKind::Input, ELEMENT_SIZE_V0, false, false),
            b"OSGN" => (SignatureKind::Output, ELEMENT_SIZE_V0, false, false),
            b"PCSG" => (SignatureKind::PatchConstant, ELEMENT_SIZE_V0, false, false),
            b"OSG5" => (SignatureKind::Output, ELEMENT_SIZE_OSG5, true, false),
            b"ISG1" => (SignatureKind::Input, ELEMENT_SIZE_V1, true, true),
            b"OSG1" => (SignatureKind::Output, ELEMENT_SIZE_V1, true, true),
            b"PSG1" => (SignatureKind::PatchConstant, ELEMENT_SIZE_V1, true, true),
            _ => {
                return Err(ContainerError::BadField {
                    part: tag,
                    what: "signature tag",
                    value: 0,
                    offset: 0,
                });
            }
        };
        let rw_mask_meaning = match kind {
            SignatureKind::Input => RwMaskMeaning::AlwaysRead,
            SignatureKind::Output => RwMaskMeaning::NeverWritten,
            SignatureKind::PatchConstant if program == Some(ProgramKind::Domain) => {
                RwMaskMeaning::AlwaysRead
            }
            SignatureKind::PatchConstant => RwMaskMeaning::NeverWritten,
        };
        let count = r.u32_at(0)?;
        let first = r.u32_at(4)?;
        let array_bytes = u64::from(count).saturating_mul(element_size.into());
        let end = u64::from(first).saturating_add(array_bytes);
        if end > r.len() as u64 {
            return Err(ContainerError::BadField {
                part: tag,
                what: "element count",
                value: count.into(),
                offset: 0,
            });
        }
        // `count` elements fit in the part's bytes, so the allocation is bounded by them.
        let mut elements = Vec::with_capacity(count as usize);
        for i in 0..count as usize {
            let at = (first as usize).saturating_add(i.saturating_mul(element_size as usize));
            let (stream, base) = if has_stream {
                (r.u32_at(at)?, at.saturating_add(4))
            } else {
                (0, at)
            };
            let name_offset = r.u32_at(base)?;
            let semantic_name = r.cstr_at(name_offset as usize)?.to_string();
            let mask = r.u8_at(base.saturating_add(20))?;
            let rw_mask = r.u8_at(base.saturating_add(21))?;
            let min_precision = if has_precision {
                MinPrecision::from_code(r.u32_at(base.saturating_add(24))?)
            } else {
                MinPrecision::Default
            };
            elements.push(SignatureElement {
                stream,
                semantic_name,
                semantic_index: r.u32_at(base.saturating_add(4))?,
                system_value: SystemValue::from_code(r.u32_at(base.saturating_add(8))?),
                component_type: ComponentType::from_code(r.u32_at(base.saturating_add(12))?),
                register: r.u32_at(base.saturating_add(16))?,
                mask,
                rw_mask,
                min_precision,
            });
        }
        Ok(Signature {
            tag,
            kind,
            rw_mask_meaning,
            element_size,
            elements,
        })
    }
}

#[cfg(test)]
#[allow(
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation,
    clippy::type_complexity
)]
mod tests {
    use super::*;

    /// Builds a signature part: header, elements of `size` bytes, then the names.
    pub(crate) fn build(
        size: u32,
        elems: &[(&str, u32, u32, u32, u32, u8, u8, u32, u32)],
    ) -> Vec<u8> {
        let mut out = Vec::new();
        out.extend_from_slice(&(elems.len() as u32).to_le_bytes());
        out.extend_from_slice(&8u32.to_le_bytes());
        let names_at = 8 + size as usize * elems.len();
        let mut names = Vec::new();
        for &(name, index, sv, ct, reg, mask, rw, stream, prec) in elems {
            if size != ELEMENT_SIZE_V0 {
                out.extend_from_slice(&stream.to_le_bytes());
            }
            out.extend_from_slice(&((names_at + names.len()) as u32).to_le_bytes());
            names.extend_from_slice(name.as_bytes());
            names.push(0);
            for w in [index, sv, ct, reg] {
                out.extend_from_slice(&w.to_le_bytes());
            }
            out.extend_from_slice(&[mask, rw, 0, 0]);
            if size == ELEMENT_SIZE_V1 {
                out.extend_from_slice(&prec.to_le_bytes());
            }
        }
        out.extend_from_slice(&names);
        out
    }

    fn part<'a>(tag: &[u8; 4], data: &'a [u8]) -> Part<'a> {
        Part {
            tag: FourCc(*tag),
            offset: 0,
            data,
        }
    }

    /// Element layouts from d3d11shader.h / vkd3d-shader `parse_shader_signature`; the
    /// values are those of the corpus's `tessellation.vs.dxbc` output signature.
    #[test]
    fn decodes_the_three_layouts() {
        let data = build(
            24,
            &[
                ("SV_Position", 0, 1, 3, 0, 0xf, 0, 0, 0),
                ("COLOR", 1, 0, 3, 1, 0x7, 0x8, 0, 0),
            ],
        );
        let s = Signature::parse(&part(b"OSGN", &data), None).unwrap();
        assert_eq!(s.kind, SignatureKind::Output);
        assert_eq!(s.rw_mask_meaning, RwMaskMeaning::NeverWritten);
        assert_eq!(s.elements[0].system_value, SystemValue::Position);
        assert_eq!(s.elements[0].system_value.listing_name(), "POS");
        assert_eq!(s.elements[1].semantic_name, "COLOR");
        assert_eq!(s.elements[1].semantic_index, 1);
        assert_eq!(s.elements[1].used_components(s.rw_mask_meaning), 0x7);

        let data = build(28, &[("TEXCOORD", 0, 0, 3, 1, 0x3, 0xc, 2, 0)]);
        let s = Signature::parse(&part(b"OSG5", &data), None).unwrap();
        assert_eq!(s.elements[0].stream, 2);
        assert_eq!(s.element_size, 28);

        // min16_patch.ds.dxbc: ISG1 COLOR with min precision 1 (min16f).
        let data = build(32, &[("COLOR", 0, 0, 3, 1, 0x7, 0x7, 0, 1)]);
        let s = Signature::parse(&part(b"ISG1", &data), None).unwrap();
        assert_eq!(s.elements[0].min_precision, MinPrecision::Float16);
        assert_eq!(s.rw_mask_meaning, RwMaskMeaning::AlwaysRead);
    }

    /// Corpus `tessellation.hs.dxbc` vs `tessellation.ds.dxbc`: the hull program's PCSG
    /// marks never-written components (0xe for a scalar tess factor), the domain
    /// program's marks read ones.
    #[test]
    fn patch_constant_direction_follows_the_program() {
        let data = build(24, &[("SV_TessFactor", 0, 13, 3, 0, 0x1, 0xe, 0, 0)]);
        let hs = Signature::parse(&part(b"PCSG", &data), Some(ProgramKind::Hull)).unwrap();
        assert_eq!(hs.rw_mask_meaning, RwMaskMeaning::NeverWritten);
        assert_eq!(hs.elements[0].used_components(hs.rw_mask_meaning), 0x1);
        let ds = Signature::parse(&part(b"PCSG", &data), Some(ProgramKind::Domain)).unwrap();
        assert_eq!(ds.rw_mask_meaning, RwMaskMeaning::AlwaysRead);
    }

    #[test]
    fn refuses_overlong_counts_and_bad_names() {
        let mut data = build(24, &[("A", 0, 0, 3, 0, 1, 1, 0, 0)]);
        let good = data.clone();
        data[0..4].copy_from_slice(&u32::MAX.to_le_bytes());
        assert!(matches!(
            Signature::parse(&part(b"ISGN", &data), None),
            Err(ContainerError::BadField { .. })
        ));
        let mut data = good.clone();
        data[8..12].copy_from_slice(&0xffffu32.to_le_bytes());
        assert!(matches!(
            Signature::parse(&part(b"ISGN", &data), None),
            Err(ContainerError::BadString { .. })
        ));
        let mut data = good;
        let last = data.len() - 1;
        data[last] = b'B'; // name no longer terminated
        assert!(Signature::parse(&part(b"ISGN", &data), None).is_err());
        assert!(Signature::parse(&part(b"ISGN", &[1, 0, 0]), None).is_err());
    }
}
