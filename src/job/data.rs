//! Initial contents of resources: the `data = { … }` forms of the job file.

use std::path::Path;

use super::schema::DataSpec;

/// The bytes a `data` table gives, before they are fitted to the resource. `fill_u32`
/// needs the resource size and is applied by [`fill`]. A `file` must be a regular file of
/// at most `max` bytes (what the resource can hold, see `paths::read_input`).
pub fn bytes(spec: &DataSpec, job_dir: &Path, max: u64) -> Result<Vec<u8>, String> {
    let mut forms = 0;
    let mut out = Vec::new();
    if let Some(v) = &spec.u32 {
        forms += 1;
        out.extend(v.iter().flat_map(|w| w.to_le_bytes()));
    }
    if let Some(v) = &spec.i32 {
        forms += 1;
        out.extend(v.iter().flat_map(|w| w.to_le_bytes()));
    }
    if let Some(v) = &spec.f32 {
        forms += 1;
        out.extend(v.iter().flat_map(|f| f.bits().to_le_bytes()));
    }
    if let Some(h) = &spec.hex {
        forms += 1;
        out = parse_hex(h)?;
    }
    if spec.fill_u32.is_some() {
        forms += 1;
    }
    if let Some(f) = &spec.file {
        forms += 1;
        let path = job_dir.join(f);
        out = super::paths::read_input(&path, max, "what the resource can hold").map_err(|e| {
            // Name the file as the job does.
            let rest = e
                .strip_prefix(&format!("{}: ", path.display()))
                .unwrap_or(&e);
            format!("`file` {}: {rest}", f.display())
        })?;
    }
    if spec.images.is_some() {
        return Err("`images` fill textures only (use `file` for raw bytes)".into());
    }
    if spec.records.is_some() {
        // Written after binding, when every resource has its address
        // (`job::shader_table`); the bytes start as zeros.
        forms += 1;
    }
    if forms != 1 {
        return Err(
            "`data` needs exactly one of u32, i32, f32, hex, fill_u32, file or records".into(),
        );
    }
    Ok(out)
}

/// Fills `size` bytes from a `data` table: the listed bytes first, zeros after;
/// `fill_u32` repeats its word. More listed bytes than `size` is an error.
pub fn fill(spec: Option<&DataSpec>, job_dir: &Path, size: usize) -> Result<Vec<u8>, String> {
    let mut out = super::limits::zeroed_bytes(size)?;
    let Some(spec) = spec else { return Ok(out) };
    if let Some(w) = spec.fill_u32 {
        let b = w.to_le_bytes();
        for (i, x) in out.iter_mut().enumerate() {
            *x = b[i % 4];
        }
        return Ok(out);
    }
    let data = bytes(spec, job_dir, size as u64)?;
    if data.len() > size {
        return Err(format!(
            "`data` holds {} bytes but the resource has {size}",
            data.len()
        ));
    }
    out[..data.len()].copy_from_slice(&data);
    Ok(out)
}

/// Parses hex bytes: pairs of hex digits, whitespace and `_` ignored.
pub fn parse_hex(s: &str) -> Result<Vec<u8>, String> {
    let digits: Vec<u8> = s
        .bytes()
        .filter(|b| !b.is_ascii_whitespace() && *b != b'_')
        .collect();
    if digits.len() % 2 != 0 {
        return Err("`hex`: an odd number of digits".into());
    }
    digits
        .chunks(2)
        .map(|p| {
            let t = std::str::from_utf8(p).map_err(|_| "`hex`: not text".to_string())?;
            u8::from_str_radix(t, 16).map_err(|_| format!("`hex`: `{t}` is not a hex byte"))
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::schema::{FloatText, FloatValue};

    #[test]
    fn forms_give_little_endian_bytes() {
        let d = DataSpec {
            u32: Some(vec![1, 0x0a0b0c0d]),
            ..empty()
        };
        assert_eq!(
            bytes(&d, Path::new("."), 1 << 20).unwrap(),
            vec![1, 0, 0, 0, 0x0d, 0x0c, 0x0b, 0x0a]
        );
        let d = DataSpec {
            f32: Some(vec![
                FloatValue::Number(1.0),
                FloatValue::Text(FloatText {
                    bits: 0x8000_0000,
                    hex: false,
                }),
            ]),
            ..empty()
        };
        assert_eq!(
            bytes(&d, Path::new("."), 1 << 20).unwrap(),
            vec![0, 0, 0x80, 0x3f, 0, 0, 0, 0x80]
        );
        assert_eq!(parse_hex("00ff 1_0").unwrap(), vec![0, 0xff, 0x10]);
        assert!(parse_hex("0").is_err());
    }

    #[test]
    fn fill_pads_and_repeats() {
        let d = DataSpec {
            fill_u32: Some(0x01020304),
            ..empty()
        };
        assert_eq!(
            fill(Some(&d), Path::new("."), 6).unwrap(),
            vec![4, 3, 2, 1, 4, 3]
        );
        let d = DataSpec {
            u32: Some(vec![7]),
            ..empty()
        };
        assert_eq!(
            fill(Some(&d), Path::new("."), 8).unwrap(),
            vec![7, 0, 0, 0, 0, 0, 0, 0]
        );
        assert!(fill(Some(&d), Path::new("."), 2).is_err());
    }

    fn empty() -> DataSpec {
        DataSpec {
            u32: None,
            i32: None,
            f32: None,
            hex: None,
            fill_u32: None,
            file: None,
            images: None,
            records: None,
        }
    }
}
