//! Bounds-checked little-endian reads over a part's bytes.

use super::{ContainerError, FourCc};

/// Reads little-endian values at byte offsets of one part, returning
/// [`ContainerError::Truncated`] (naming the part and offset) instead of panicking.
#[derive(Debug, Clone, Copy)]
pub struct Reader<'a> {
    bytes: &'a [u8],
    part: FourCc,
}

impl<'a> Reader<'a> {
    /// A reader over `bytes`, the contents of part `part`.
    pub fn new(bytes: &'a [u8], part: FourCc) -> Self {
        Reader { bytes, part }
    }

    /// The bytes read.
    pub fn bytes(&self) -> &'a [u8] {
        self.bytes
    }

    /// The part's tag.
    pub fn part(&self) -> FourCc {
        self.part
    }

    /// The number of bytes.
    pub fn len(&self) -> usize {
        self.bytes.len()
    }

    /// Whether there are no bytes.
    pub fn is_empty(&self) -> bool {
        self.bytes.is_empty()
    }

    fn truncated(&self, offset: usize, n: usize) -> ContainerError {
        ContainerError::Truncated {
            part: self.part,
            offset: u32::try_from(offset).unwrap_or(u32::MAX),
            need: (offset as u64).saturating_add(n as u64),
            have: self.bytes.len() as u64,
        }
    }

    /// `n` bytes at `offset`.
    pub fn slice_at(&self, offset: usize, n: usize) -> Result<&'a [u8], ContainerError> {
        offset
            .checked_add(n)
            .and_then(|end| self.bytes.get(offset..end))
            .ok_or_else(|| self.truncated(offset, n))
    }

    /// A fixed-size array at `offset`.
    pub fn array_at<const N: usize>(&self, offset: usize) -> Result<[u8; N], ContainerError> {
        let s = self.slice_at(offset, N)?;
        let mut out = [0u8; N];
        out.copy_from_slice(s);
        Ok(out)
    }

    /// A byte at `offset`.
    pub fn u8_at(&self, offset: usize) -> Result<u8, ContainerError> {
        self.bytes
            .get(offset)
            .copied()
            .ok_or_else(|| self.truncated(offset, 1))
    }

    /// A little-endian `u16` at `offset`.
    pub fn u16_at(&self, offset: usize) -> Result<u16, ContainerError> {
        Ok(u16::from_le_bytes(self.array_at(offset)?))
    }

    /// A little-endian `u32` at `offset`.
    pub fn u32_at(&self, offset: usize) -> Result<u32, ContainerError> {
        Ok(u32::from_le_bytes(self.array_at(offset)?))
    }

    /// A little-endian `u64` at `offset`.
    pub fn u64_at(&self, offset: usize) -> Result<u64, ContainerError> {
        Ok(u64::from_le_bytes(self.array_at(offset)?))
    }

    /// A NUL-terminated UTF-8 string starting at `offset`.
    pub fn cstr_at(&self, offset: usize) -> Result<&'a str, ContainerError> {
        let bad = || ContainerError::BadString {
            part: self.part,
            offset: u32::try_from(offset).unwrap_or(u32::MAX),
        };
        let rest = self.bytes.get(offset..).ok_or_else(bad)?;
        let len = rest.iter().position(|&b| b == 0).ok_or_else(bad)?;
        let s = rest.get(..len).ok_or_else(bad)?;
        std::str::from_utf8(s).map_err(|_| bad())
    }
}
