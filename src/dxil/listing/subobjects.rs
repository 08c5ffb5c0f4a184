//! The `; Subobjects:` block of a library's listing: the state-object subobjects dxc
//! reads from the `RDAT` part's subobject table (`LoadSubobjectsFromRDAT`) and prints
//! sorted by name (`PrintSubobjects` in `dxcdisassembler.cpp`).
//!
//! Owns: reading the subobject records (kind, name, and the kind's fields) from the
//! `RDAT` sub-parts and their text. Does not own: the rest of `RDAT` (see
//! [`crate::container::rdat`]).
//!
//! Layout (DirectXShaderCompiler `RDAT_SubobjectTypes.inl`): the part is a version
//! word, a sub-part count and offsets; each sub-part a type word, a size word and its
//! bytes. Type 1 is the string buffer (strings by byte offset), 2 the index arrays (a
//! count then indices, by word offset), 5 the raw bytes (by offset and size), 6 the
//! subobject table (a record count, a stride, then the records). A subobject record is
//! its kind, its name, then by kind: flags (state-object config); a root signature's
//! bytes (offset, size); an association's subobject name and export-name array; a
//! shader config's payload and attribute sizes; a pipeline config's recursion depth
//! (and flags, kind 12); a hit group's type and any-hit, closest-hit and intersection
//! names.

/// Records read at most (a bound on a corrupt count).
const MAX_RECORDS: usize = 4096;

struct Rdat<'a> {
    strings: &'a [u8],
    index: &'a [u8],
    raw_len: usize,
    table: &'a [u8],
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    let s = b.get(at..at.checked_add(4)?)?;
    Some(u32::from_le_bytes([
        *s.first()?,
        *s.get(1)?,
        *s.get(2)?,
        *s.get(3)?,
    ]))
}

impl<'a> Rdat<'a> {
    fn parse(data: &'a [u8]) -> Option<Rdat<'a>> {
        let count = u32_at(data, 4)? as usize;
        if count > 64 {
            return None;
        }
        let mut r = Rdat {
            strings: &[],
            index: &[],
            raw_len: 0,
            table: &[],
        };
        for i in 0..count {
            let off = u32_at(data, 8 + 4 * i)? as usize;
            let ty = u32_at(data, off)?;
            let size = u32_at(data, off + 4)? as usize;
            let body = data.get(off + 8..off.checked_add(8)?.checked_add(size)?)?;
            match ty {
                1 => r.strings = body,
                2 => r.index = body,
                5 => r.raw_len = body.len(),
                6 => r.table = body,
                _ => {}
            }
        }
        Some(r)
    }

    fn string(&self, off: u32) -> String {
        let rest = self.strings.get(off as usize..).unwrap_or_default();
        let end = rest.iter().position(|&b| b == 0).unwrap_or(rest.len());
        String::from_utf8_lossy(rest.get(..end).unwrap_or_default()).into_owned()
    }

    /// An index array (by word offset): its indices.
    fn index_array(&self, word: u32) -> Vec<u32> {
        let at = word as usize * 4;
        let Some(n) = u32_at(self.index, at) else {
            return Vec::new();
        };
        (0..(n as usize).min(MAX_RECORDS))
            .map_while(|i| u32_at(self.index, at + 4 + 4 * i))
            .collect()
    }
}

/// The `; Subobjects:` block for an `RDAT` part's bytes, or nothing when it has no
/// subobject table.
pub fn subobjects(rdat: &[u8]) -> String {
    let Some(r) = Rdat::parse(rdat) else {
        return String::new();
    };
    let (Some(count), Some(stride)) = (u32_at(r.table, 0), u32_at(r.table, 4)) else {
        return String::new();
    };
    let (count, stride) = (count as usize, stride as usize);
    if count == 0 || stride < 8 || count > MAX_RECORDS {
        return String::new();
    }
    let mut items: Vec<(String, String)> = Vec::new();
    for i in 0..count {
        let base = 8 + i * stride;
        let Some(rec) = r.table.get(base..base + stride) else {
            break;
        };
        let w = |k: usize| u32_at(rec, 4 * k).unwrap_or(0);
        let name = r.string(w(1));
        let (kind, body) = match w(0) {
            0 => (
                "StateObjectConfig",
                flags_text(w(2), STATE_OBJECT_FLAGS, "<invalid StateObjectFlag>"),
            ),
            k @ (1 | 2) => {
                let (off, size) = (w(2) as usize, w(3) as usize);
                let text = if off.checked_add(size).is_some_and(|e| e <= r.raw_len) {
                    format!("<{size} bytes>")
                } else {
                    "<error getting subobject>".to_owned()
                };
                (
                    if k == 1 {
                        "GlobalRootSignature"
                    } else {
                        "LocalRootSignature"
                    },
                    text,
                )
            }
            8 => {
                let exports: Vec<String> = r
                    .index_array(w(3))
                    .iter()
                    .map(|s| format!("\"{}\"", r.string(*s)))
                    .collect();
                (
                    "SubobjectToExportsAssociation",
                    format!("\"{}\", {{ {} }} ", r.string(w(2)), exports.join(", ")),
                )
            }
            9 => (
                "RaytracingShaderConfig",
                format!(
                    "MaxPayloadSizeInBytes = {}, MaxAttributeSizeInBytes = {}",
                    w(2),
                    w(3)
                ),
            ),
            10 => (
                "RaytracingPipelineConfig",
                format!("MaxTraceRecursionDepth = {}", w(2)),
            ),
            11 => (
                "HitGroup",
                format!(
                    "HitGroupType = {}, Anyhit = \"{}\", Closesthit = \"{}\", Intersection = \"{}\"",
                    match w(2) {
                        0 => "Triangle",
                        1 => "ProceduralPrimitive",
                        _ => "<invalid HitGroupType>",
                    },
                    r.string(w(3)),
                    r.string(w(4)),
                    r.string(w(5))
                ),
            ),
            12 => (
                "RaytracingPipelineConfig1",
                format!(
                    "MaxTraceRecursionDepth = {}, Flags = {}",
                    w(2),
                    flags_text(w(3), PIPELINE_FLAGS, "<invalid RaytracingPipelineFlags>")
                ),
            ),
            _ => ("<invalid kind>", String::new()),
        };
        items.push((name.clone(), format!(";  {kind} {name} = {{ {body} }};\n")));
    }
    if items.is_empty() {
        return String::new();
    }
    // dxc keeps subobjects in a map by name.
    items.sort_by(|a, b| a.0.as_bytes().cmp(b.0.as_bytes()));
    items.dedup_by(|a, b| a.0 == b.0);
    let mut out = String::from(";\n; Subobjects:\n;\n");
    for (_, line) in items {
        out.push_str(&line);
    }
    out.push_str(";\n");
    out
}

/// `DXIL::StateObjectFlags` names.
const STATE_OBJECT_FLAGS: &[(u32, &str)] = &[
    (
        1,
        "STATE_OBJECT_FLAG_ALLOW_LOCAL_DEPENDENCIES_ON_EXTERNAL_DEFINITIONS",
    ),
    (
        2,
        "STATE_OBJECT_FLAG_ALLOW_EXTERNAL_DEPENDENCIES_ON_LOCAL_DEFINITIONS",
    ),
    (4, "STATE_OBJECT_FLAG_ALLOW_STATE_OBJECT_ADDITIONS"),
];

/// `DXIL::RaytracingPipelineFlags` names.
const PIPELINE_FLAGS: &[(u32, &str)] = &[
    (0x100, "RAYTRACING_PIPELINE_FLAG_SKIP_TRIANGLES"),
    (0x200, "RAYTRACING_PIPELINE_FLAG_SKIP_PROCEDURAL_PRIMITIVES"),
    (0x400, "RAYTRACING_PIPELINE_FLAG_ALLOW_OPACITY_MICROMAPS"),
];

/// dxc's `PrintFlags`: `0`, or each set bit's name from the lowest, joined by ` | `.
fn flags_text(mut flags: u32, names: &[(u32, &str)], invalid: &str) -> String {
    if flags == 0 {
        return "0".into();
    }
    let mut out = String::new();
    while flags != 0 {
        let bit = flags & flags.wrapping_neg();
        flags ^= bit;
        if !out.is_empty() {
            out.push_str(" | ");
        }
        match names.iter().find(|(b, _)| *b == bit) {
            Some((_, n)) => out.push_str(n),
            None => out.push_str(invalid),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn flags_print_as_dxc_prints_them() {
        assert_eq!(flags_text(0, STATE_OBJECT_FLAGS, "?"), "0");
        assert_eq!(
            flags_text(3, STATE_OBJECT_FLAGS, "?"),
            "STATE_OBJECT_FLAG_ALLOW_LOCAL_DEPENDENCIES_ON_EXTERNAL_DEFINITIONS | STATE_OBJECT_FLAG_ALLOW_EXTERNAL_DEPENDENCIES_ON_LOCAL_DEFINITIONS"
        );
    }
}
