//! `SRCI`: the source-info part newer dxc writes with `-Zi` (`DxilContainer.h`,
//! `DxilSourceInfo`; written by dxc's `SourceInfoWriter`): the HLSL files the program
//! was compiled from, their names and the compiler's arguments, kept beside the `ILDB`
//! debug module instead of in its `dx.source.*` metadata.
//!
//! # Layout (little-endian)
//!
//! | field | size |
//! |---|---|
//! | part header: aligned size, flags, section count | 4 + 2 + 2 |
//! | each section: aligned size (header included), flags, type, then its data | 4 + 2 + 2 + … |
//!
//! | section type | data |
//! |---|---|
//! | 1, names | flags u32, count u32, entries' size u16 (a 10-byte header), then per file: aligned size, flags, name size, content size (u32 each), the NUL-terminated name, padding to 4 |
//! | 0, contents | aligned size u32, flags u16, compression u16 (0 none, 1 zlib), entries' size, uncompressed size, count (u32 each), then the entries — zlib-compressed as one stream when compression is 1 — each: aligned size, flags, content size (u32 each), the NUL-terminated text, padding to 4 |
//! | 2, arguments | flags, size, count (u32 each), then `count` pairs of NUL-terminated name and value |
//!
//! Names and contents pair up by position; the first file is the main file. Untrusted:
//! every size is checked against the bytes holding it, a zlib stream is inflated only up
//! to its stated uncompressed size (at most [`MAX_SOURCE_BYTES`]), and an error names the
//! field and its byte offset in the part.

use super::reader::Reader;
use super::{ContainerError, FourCc};

/// The tag.
pub const SRCI: FourCc = FourCc(*b"SRCI");

/// The most source text (uncompressed, all files) a part may state.
pub const MAX_SOURCE_BYTES: u32 = 64 << 20;

/// One source file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct SourceFile {
    /// The file's name as the compiler was given it.
    pub name: String,
    /// Its text.
    pub text: String,
}

/// What an `SRCI` part says.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct SourceInfo {
    /// The files, the main file first.
    pub files: Vec<SourceFile>,
    /// The compiler's arguments: (option, value) pairs; a positional argument has an
    /// empty option.
    pub args: Vec<(String, String)>,
    /// Whether the contents were zlib-compressed.
    pub compressed: bool,
}

fn bad(what: &'static str, value: u64, offset: usize) -> ContainerError {
    ContainerError::BadField {
        part: SRCI,
        what,
        value,
        offset: u32::try_from(offset).unwrap_or(u32::MAX),
    }
}

fn checked(a: usize, b: usize) -> Result<usize, ContainerError> {
    a.checked_add(b)
        .ok_or(ContainerError::TooLarge { size: u32::MAX })
}

/// Reads an `SRCI` part's contents.
pub fn read(data: &[u8]) -> Result<SourceInfo, ContainerError> {
    let r = Reader::new(data, SRCI);
    let sections = r.u16_at(6)?;
    let mut names: Vec<String> = Vec::new();
    let mut texts: Vec<String> = Vec::new();
    let mut info = SourceInfo::default();
    let mut at = 8usize;
    for _ in 0..sections {
        let size = r.u32_at(at)? as usize;
        let kind = r.u16_at(checked(at, 6)?)?;
        if size < 8 || size % 4 != 0 {
            return Err(bad("section size", size as u64, at));
        }
        let body = r.slice_at(checked(at, 8)?, size.saturating_sub(8))?;
        let base = checked(at, 8)?;
        match kind {
            1 => names = read_names(body, base)?,
            0 => {
                let (t, z) = read_contents(body, base)?;
                texts = t;
                info.compressed = z;
            }
            2 => info.args = read_args(body, base)?,
            // A section of a later layout: skipped by its size.
            _ => {}
        }
        at = checked(at, size)?;
    }
    if names.len() != texts.len() {
        return Err(bad(
            "count of names against contents",
            names.len() as u64,
            8,
        ));
    }
    info.files = names
        .into_iter()
        .zip(texts)
        .map(|(name, text)| SourceFile { name, text })
        .collect();
    Ok(info)
}

/// A NUL-terminated string of `size` bytes (NUL included) at `offset` of `r`.
fn sized_str(
    r: &Reader,
    offset: usize,
    size: usize,
    base: usize,
) -> Result<String, ContainerError> {
    let s = r.slice_at(offset, size)?;
    let (last, text) = s
        .split_last()
        .ok_or(bad("string size", 0, checked(base, offset)?))?;
    if *last != 0 {
        return Err(ContainerError::BadString {
            part: SRCI,
            offset: u32::try_from(checked(base, offset)?).unwrap_or(u32::MAX),
        });
    }
    Ok(String::from_utf8_lossy(text).into_owned())
}

fn read_names(body: &[u8], base: usize) -> Result<Vec<String>, ContainerError> {
    let r = Reader::new(body, SRCI);
    let count = r.u32_at(4)? as usize;
    let mut out = Vec::new();
    let mut at = 10usize;
    for _ in 0..count {
        let size = r.u32_at(at)? as usize;
        let name_size = r.u32_at(checked(at, 8)?)? as usize;
        if size < 16 || name_size > size.saturating_sub(16) {
            return Err(bad("name entry size", size as u64, checked(base, at)?));
        }
        out.push(sized_str(&r, checked(at, 16)?, name_size, base)?);
        at = checked(at, size)?;
    }
    Ok(out)
}

fn read_contents(body: &[u8], base: usize) -> Result<(Vec<String>, bool), ContainerError> {
    let r = Reader::new(body, SRCI);
    let compress = r.u16_at(6)?;
    let size = r.u32_at(8)? as usize;
    let full = r.u32_at(12)?;
    let count = r.u32_at(16)? as usize;
    let stored = r.slice_at(20, size)?;
    let inflated;
    let entries: &[u8] = match compress {
        0 => stored,
        1 => {
            if full > MAX_SOURCE_BYTES {
                return Err(bad(
                    "uncompressed size",
                    u64::from(full),
                    checked(base, 12)?,
                ));
            }
            inflated =
                miniz_oxide::inflate::decompress_to_vec_zlib_with_limit(stored, full as usize)
                    .map_err(|_| {
                        bad("zlib stream of size", size as u64, base.saturating_add(20))
                    })?;
            if inflated.len() != full as usize {
                return Err(bad(
                    "uncompressed size",
                    u64::from(full),
                    checked(base, 12)?,
                ));
            }
            &inflated
        }
        c => return Err(bad("compression type", u64::from(c), checked(base, 6)?)),
    };
    let e = Reader::new(entries, SRCI);
    let mut out = Vec::new();
    let mut at = 0usize;
    for _ in 0..count {
        let size = e.u32_at(at)? as usize;
        let text_size = e.u32_at(checked(at, 8)?)? as usize;
        if size < 12 || text_size > size.saturating_sub(12) {
            return Err(bad("content entry size", size as u64, checked(base, 20)?));
        }
        out.push(sized_str(&e, checked(at, 12)?, text_size, base)?);
        at = checked(at, size)?;
    }
    Ok((out, compress == 1))
}

fn read_args(body: &[u8], base: usize) -> Result<Vec<(String, String)>, ContainerError> {
    let r = Reader::new(body, SRCI);
    let size = r.u32_at(4)? as usize;
    let count = r.u32_at(8)?;
    let bytes = r.slice_at(12, size)?;
    let mut words = bytes.split(|&b| b == 0);
    let mut out = Vec::new();
    for _ in 0..count {
        let (Some(n), Some(v)) = (words.next(), words.next()) else {
            return Err(bad("argument count", u64::from(count), checked(base, 8)?));
        };
        out.push((
            String::from_utf8_lossy(n).into_owned(),
            String::from_utf8_lossy(v).into_owned(),
        ));
    }
    Ok(out)
}

/// Writes an `SRCI` part as dxc lays it out: the files' names, their contents (zlib
/// compressed when `compress`) and the arguments.
pub fn write(info: &SourceInfo, compress: bool) -> Result<Vec<u8>, ContainerError> {
    let too_large = || ContainerError::TooLarge { size: u32::MAX };
    let u32_of = |n: usize| u32::try_from(n).map_err(|_| too_large());
    let pad = |v: &mut Vec<u8>, from: usize| {
        while (v.len().saturating_sub(from)) % 4 != 0 {
            v.push(0);
        }
    };
    let section = |out: &mut Vec<u8>, kind: u16, data: &[u8]| -> Result<(), ContainerError> {
        let start = out.len();
        out.extend_from_slice(&[0; 4]);
        out.extend_from_slice(&0u16.to_le_bytes());
        out.extend_from_slice(&kind.to_le_bytes());
        out.extend_from_slice(data);
        pad(out, start);
        let size = u32_of(out.len().saturating_sub(start))?.to_le_bytes();
        if let Some(s) = out.get_mut(start..start.saturating_add(4)) {
            s.copy_from_slice(&size);
        }
        Ok(())
    };
    let mut out = Vec::new();
    out.extend_from_slice(&[0; 6]);
    out.extend_from_slice(&3u16.to_le_bytes());

    let mut names = Vec::new();
    for f in &info.files {
        let start = names.len();
        let size = 16usize.saturating_add(f.name.len()).saturating_add(1);
        names.extend_from_slice(&u32_of(size.next_multiple_of(4))?.to_le_bytes());
        names.extend_from_slice(&0u32.to_le_bytes());
        names.extend_from_slice(&u32_of(f.name.len().saturating_add(1))?.to_le_bytes());
        names.extend_from_slice(&u32_of(f.text.len().saturating_add(1))?.to_le_bytes());
        names.extend_from_slice(f.name.as_bytes());
        names.push(0);
        pad(&mut names, start);
    }
    let mut data = Vec::new();
    data.extend_from_slice(&0u32.to_le_bytes());
    data.extend_from_slice(&u32_of(info.files.len())?.to_le_bytes());
    data.extend_from_slice(
        &u16::try_from(names.len())
            .map_err(|_| too_large())?
            .to_le_bytes(),
    );
    data.extend_from_slice(&names);
    section(&mut out, 1, &data)?;

    let mut entries = Vec::new();
    for f in &info.files {
        let start = entries.len();
        let size = 12usize.saturating_add(f.text.len()).saturating_add(1);
        entries.extend_from_slice(&u32_of(size.next_multiple_of(4))?.to_le_bytes());
        entries.extend_from_slice(&0u32.to_le_bytes());
        entries.extend_from_slice(&u32_of(f.text.len().saturating_add(1))?.to_le_bytes());
        entries.extend_from_slice(f.text.as_bytes());
        entries.push(0);
        pad(&mut entries, start);
    }
    let stored = if compress {
        miniz_oxide::deflate::compress_to_vec_zlib(&entries, 6)
    } else {
        entries.clone()
    };
    let mut data = Vec::new();
    // dxc leaves this header's own aligned size zero.
    data.extend_from_slice(&0u32.to_le_bytes());
    data.extend_from_slice(&0u16.to_le_bytes());
    data.extend_from_slice(&u16::from(compress).to_le_bytes());
    data.extend_from_slice(&u32_of(stored.len())?.to_le_bytes());
    data.extend_from_slice(&u32_of(entries.len())?.to_le_bytes());
    data.extend_from_slice(&u32_of(info.files.len())?.to_le_bytes());
    data.extend_from_slice(&stored);
    section(&mut out, 0, &data)?;

    let mut pairs = Vec::new();
    for (n, v) in &info.args {
        pairs.extend_from_slice(n.as_bytes());
        pairs.push(0);
        pairs.extend_from_slice(v.as_bytes());
        pairs.push(0);
    }
    let mut data = Vec::new();
    data.extend_from_slice(&0u32.to_le_bytes());
    data.extend_from_slice(&u32_of(pairs.len())?.to_le_bytes());
    data.extend_from_slice(&u32_of(info.args.len())?.to_le_bytes());
    data.extend_from_slice(&pairs);
    section(&mut out, 2, &data)?;

    let total = u32_of(out.len())?.to_le_bytes();
    if let Some(s) = out.get_mut(0..4) {
        s.copy_from_slice(&total);
    }
    Ok(out)
}

#[cfg(test)]
#[allow(clippy::unwrap_used, clippy::indexing_slicing)]
mod tests {
    use super::*;

    fn sample() -> SourceInfo {
        SourceInfo {
            files: vec![
                SourceFile {
                    name: "main.hlsl".into(),
                    text: "#include \"lib.hlsli\"\nvoid main() {}\n".into(),
                },
                SourceFile {
                    name: "lib.hlsli".into(),
                    text: "float f;".into(),
                },
            ],
            args: vec![
                ("T".into(), "cs_6_0".into()),
                ("Zi".into(), String::new()),
                (String::new(), "main.hlsl".into()),
            ],
            compressed: false,
        }
    }

    /// DxilContainer.h `DxilSourceInfo`: names and contents pair by position, either
    /// stored or zlib-compressed; arguments are NUL-terminated (option, value) pairs.
    #[test]
    fn a_written_part_reads_back_stored_and_compressed() {
        for compress in [false, true] {
            let bytes = write(&sample(), compress).unwrap();
            assert_eq!(bytes.len() % 4, 0);
            assert_eq!(
                u32::from_le_bytes(bytes[0..4].try_into().unwrap()) as usize,
                bytes.len()
            );
            let got = read(&bytes).unwrap();
            assert_eq!(got.files, sample().files);
            assert_eq!(got.args, sample().args);
            assert_eq!(got.compressed, compress);
        }
    }

    /// Untrusted input: every truncation and every single-byte change is an error or a
    /// reading, never a panic; a stated size beyond the bytes is refused by name.
    #[test]
    fn damaged_parts_are_errors_not_panics() {
        for compress in [false, true] {
            let bytes = write(&sample(), compress).unwrap();
            for n in 0..bytes.len() {
                let _ = read(&bytes[..n]);
            }
            for k in 0..bytes.len() {
                for v in [0u8, 0x7f, 0xff] {
                    let mut b = bytes.clone();
                    b[k] = v;
                    let _ = read(&b);
                }
            }
        }
        let mut b = write(&sample(), false).unwrap();
        // The names section's size, made larger than the part.
        b[8..12].copy_from_slice(&0x1000u32.to_le_bytes());
        let e = read(&b).unwrap_err().to_string();
        assert!(e.contains("truncated SRCI"), "{e}");
        let mut b = write(&sample(), true).unwrap();
        // The contents section: its uncompressed size, made larger than the limit.
        let names = u32::from_le_bytes(b[8..12].try_into().unwrap()) as usize;
        let at = 8 + names + 8 + 12;
        b[at..at + 4].copy_from_slice(&(MAX_SOURCE_BYTES + 1).to_le_bytes());
        let e = read(&b).unwrap_err().to_string();
        assert!(e.contains("bad uncompressed size"), "{e}");
    }
}
