//! `STAT`: fxc's statistics of a Shader Model 4/5 program, or, in a DXIL container, a
//! second DXIL program (the reflection module).
//!
//! Owns: reading the counters and naming the words whose meaning is known. Does not own:
//! recomputing them from the program, or decoding the reflection module (that is a DXIL
//! program like any other; [`crate::dxil`] reads it).
//!
//! # Layout
//!
//! Little-endian 32-bit words: 29 for Shader Model 4.0/4.1 (116 bytes), 37 for 5.0
//! (148 bytes). The word meanings follow Wine's `d3dcompiler_parse_stat`
//! (`dlls/d3dcompiler_43/reflection.c`) and Xenia's `dxbc::Statistics`
//! (`src/xenia/gpu/dxbc.h`, which names the words Wine skips from its own fxc
//! experiments); the fields are those of `D3D11_SHADER_DESC` and
//! `ID3D11ShaderReflection`'s `Get*InstructionCount`. Words without a known meaning are
//! kept and shown as raw words.

use serde::Serialize;

use super::stage::{
    PrimitiveTopology, TessellatorDomain, TessellatorOutputPrimitive, TessellatorPartitioning,
    input_primitive_name,
};
use super::{ContainerError, DxilProgramHeader, Part, Reader};

/// A `STAT` part holds at most this many words (a sanity bound: fxc writes 37).
pub const MAX_STAT_WORDS: usize = 1024;

/// The named words: (index, name).
pub const STAT_WORDS: &[(usize, &str)] = &[
    (0, "instruction_count"),
    (1, "temp_register_count"),
    (2, "def_count"),
    (3, "dcl_count"),
    (4, "float_instruction_count"),
    (5, "int_instruction_count"),
    (6, "uint_instruction_count"),
    (7, "static_flow_control_count"),
    (8, "dynamic_flow_control_count"),
    (9, "macro_instruction_count"),
    (10, "temp_array_count"),
    (11, "array_instruction_count"),
    (12, "cut_instruction_count"),
    (13, "emit_instruction_count"),
    (14, "texture_normal_instructions"),
    (15, "texture_load_instructions"),
    (16, "texture_comp_instructions"),
    (17, "texture_bias_instructions"),
    (18, "texture_gradient_instructions"),
    (19, "mov_instruction_count"),
    (20, "movc_instruction_count"),
    (21, "conversion_instruction_count"),
    (23, "input_primitive"),
    (24, "gs_output_topology"),
    (25, "gs_max_output_vertex_count"),
    (27, "lod_instructions"),
    (30, "control_points"),
    (31, "hs_output_primitive"),
    (32, "hs_partitioning"),
    (33, "tessellator_domain"),
    (34, "barrier_instructions"),
    (35, "interlocked_instructions"),
    (36, "texture_store_instructions"),
];

/// One word of the counters, named where its meaning is known.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct StatWord {
    /// The word's index.
    pub index: u32,
    /// Its name, `None` for a word of unknown meaning.
    pub name: Option<&'static str>,
    /// The stored value.
    pub value: u32,
    /// The value's name, for the words that hold an enumeration (primitive,
    /// topology, tessellator settings).
    pub meaning: Option<String>,
}

/// A decoded `STAT` part.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub enum Statistics {
    /// Shader Model 4/5 counters.
    Counters {
        /// Every word, in order.
        words: Vec<StatWord>,
    },
    /// A DXIL container's `STAT`: a DXIL program (the reflection module dxc keeps
    /// beside the stripped program), recognised by its program header.
    DxilReflection {
        /// Its program header.
        header: DxilProgramHeader,
    },
}

impl Statistics {
    /// Decodes a `STAT` part. A part whose bytes 8..12 read `DXIL` is taken as a DXIL
    /// program and its header decoded; anything else must be a whole number of
    /// 32-bit words.
    pub fn parse(part: &Part<'_>) -> Result<Self, ContainerError> {
        let r = Reader::new(part.data, part.tag);
        if r.slice_at(8, 4).is_ok_and(|m| m == b"DXIL") {
            let (header, _) = DxilProgramHeader::parse(part)?;
            return Ok(Statistics::DxilReflection { header });
        }
        if part.data.len() % 4 != 0 || part.data.len() / 4 > MAX_STAT_WORDS {
            return Err(ContainerError::BadField {
                part: part.tag,
                what: "part size",
                value: part.data.len() as u64,
                offset: 0,
            });
        }
        let mut words = Vec::with_capacity(part.data.len() / 4);
        for index in 0..part.data.len() / 4 {
            let value = r.u32_at(index.saturating_mul(4))?;
            let name = STAT_WORDS
                .iter()
                .find(|(i, _)| *i == index)
                .map(|(_, n)| *n);
            let meaning = match index {
                23 => Some(input_primitive_name(value)),
                24 => Some(PrimitiveTopology::from_code(value).to_string()),
                31 => Some(TessellatorOutputPrimitive::from_code(value).to_string()),
                32 => Some(TessellatorPartitioning::from_code(value).to_string()),
                33 => Some(TessellatorDomain::from_code(value).to_string()),
                _ => None,
            };
            words.push(StatWord {
                index: u32::try_from(index).unwrap_or(u32::MAX),
                name,
                value,
                meaning,
            });
        }
        Ok(Statistics::Counters { words })
    }

    /// The value of the named word, when the part has it.
    pub fn get(&self, name: &str) -> Option<u32> {
        match self {
            Statistics::Counters { words } => {
                words.iter().find(|w| w.name == Some(name)).map(|w| w.value)
            }
            Statistics::DxilReflection { .. } => None,
        }
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
    use crate::container::FourCc;

    /// Word positions from Wine's `d3dcompiler_parse_stat`: word 0 instructions, 1
    /// temps, 3 declarations, 24 the GS output topology, 33 the tessellator domain.
    #[test]
    fn names_words() {
        let mut words = [0u32; 37];
        words[0] = 12;
        words[1] = 3;
        words[24] = 5;
        words[33] = 3;
        words[22] = 77;
        let data: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        let s = Statistics::parse(&Part {
            tag: FourCc::STAT,
            offset: 0,
            data: &data,
        })
        .unwrap();
        assert_eq!(s.get("instruction_count"), Some(12));
        assert_eq!(s.get("temp_register_count"), Some(3));
        let Statistics::Counters { words } = &s else {
            panic!()
        };
        assert_eq!(words[24].meaning.as_deref(), Some("trianglestrip"));
        assert_eq!(words[33].meaning.as_deref(), Some("quad"));
        assert_eq!((words[22].name, words[22].value), (None, 77));
    }

    #[test]
    fn recognises_dxil_and_refuses_odd_sizes() {
        let mut data = vec![0x50, 0, 5, 0, 6, 0, 0, 0];
        data.extend_from_slice(b"DXIL");
        data.extend_from_slice(&[0, 1, 0, 0, 16, 0, 0, 0, 0, 0, 0, 0]);
        let s = Statistics::parse(&Part {
            tag: FourCc::STAT,
            offset: 0,
            data: &data,
        })
        .unwrap();
        assert!(matches!(s, Statistics::DxilReflection { .. }));
        assert!(
            Statistics::parse(&Part {
                tag: FourCc::STAT,
                offset: 0,
                data: &[0; 7]
            })
            .is_err()
        );
    }
}
