//! `HASH`: the shader hash dxc stores beside a DXIL program.
//!
//! Owns: reading its flags and digest. Does not own: recomputing it (it is an MD5 of the
//! program or of the source, which this tool does not have).

use serde::Serialize;

use super::digest::hex_digest;
use super::{ContainerError, Part, Reader};

/// The size of a `HASH` part: a flags word and 16 digest bytes.
pub const HASH_SIZE: usize = 20;

/// Flag bit 0: the hash covers the source (dxc `-Zss`), not only the program.
pub const HASH_INCLUDES_SOURCE: u32 = 1;

/// A decoded `HASH` part (`DxilShaderHash`: DXIL.rst, "DXIL Container Format"; LLVM
/// `dxbc::ShaderHash`).
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct ShaderHash {
    /// The flags word.
    pub flags: u32,
    /// Bit 0 of the flags.
    pub includes_source: bool,
    /// The digest, as 32 hex digits.
    pub digest: String,
}

impl ShaderHash {
    /// Decodes a `HASH` part; refuses any size but 20 bytes.
    pub fn parse(part: &Part<'_>) -> Result<Self, ContainerError> {
        if part.data.len() != HASH_SIZE {
            return Err(ContainerError::BadField {
                part: part.tag,
                what: "part size",
                value: part.data.len() as u64,
                offset: 0,
            });
        }
        let r = Reader::new(part.data, part.tag);
        let flags = r.u32_at(0)?;
        let digest: [u8; 16] = r.array_at(4)?;
        Ok(ShaderHash {
            flags,
            includes_source: flags & HASH_INCLUDES_SOURCE != 0,
            digest: hex_digest(&digest),
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
    use crate::container::FourCc;

    #[test]
    fn reads_flags_and_digest() {
        let mut data = vec![1, 0, 0, 0];
        data.extend(0..16u8);
        let h = ShaderHash::parse(&Part {
            tag: FourCc::HASH,
            offset: 0,
            data: &data,
        })
        .unwrap();
        assert!(h.includes_source);
        assert_eq!(h.digest, "000102030405060708090a0b0c0d0e0f");
        assert!(
            ShaderHash::parse(&Part {
                tag: FourCc::HASH,
                offset: 0,
                data: &data[..19]
            })
            .is_err()
        );
    }
}
