//! The read-back pipeline printed as the suite's `offloader` prints it (LLVM's
//! `yaml::Output`), so the tests' FileCheck lines match dxlane's output.
//!
//! The form, from LLVM's YAML writer: a `---` line, block mappings whose keys are padded
//! so values start 17 columns after the key's indentation (one space at least), `- `
//! sequence items, flow sequences `[ a, b ]` that wrap before an element once the line
//! has passed column 70 (the new line indented two past the `[`), and `...` at the end.
//! Scalars follow LLVM's `ScalarTraits`: hex formats `0x` and upper-case digits without
//! padding, integers in decimal, floats as C's `%g`, `Float16` as hex (the suite reads
//! and prints it as `Hex16`), `Bool` as a 32-bit integer.

use std::fmt::Write as _;

use super::pipeline::DataFormat;

/// Column past which a flow sequence wraps (LLVM's default `WrapColumn`).
const WRAP_COLUMN: usize = 70;

/// A YAML document being written.
#[derive(Debug, Default)]
pub struct Writer {
    out: String,
}

impl Writer {
    /// A document with its `---` line.
    pub fn new() -> Writer {
        Writer {
            out: "---\n".into(),
        }
    }

    /// `key: value` at `indent`; `item` starts a sequence item (`- ` before the key).
    pub fn scalar(&mut self, indent: usize, item: bool, key: &str, value: &str) {
        self.key(indent, item, key);
        let pad = 16usize.saturating_sub(key.len()).max(1);
        self.out.extend(std::iter::repeat_n(' ', pad));
        self.out.push_str(value);
        self.out.push('\n');
    }

    /// `key:` opening a nested block at `indent`.
    pub fn open(&mut self, indent: usize, item: bool, key: &str) {
        self.key(indent, item, key);
        self.out.push('\n');
    }

    /// `key:` opening a block sequence at `indent`, or `key: []` when it will hold no
    /// items: LLVM's `Output::endSequence` writes `[]`, padded like a scalar, for a
    /// sequence that emitted nothing, and never leaves the key bare.
    pub fn open_sequence(&mut self, indent: usize, item: bool, key: &str, empty: bool) {
        if empty {
            self.scalar(indent, item, key, "[]");
        } else {
            self.open(indent, item, key);
        }
    }

    /// `key: [ a, b, … ]` at `indent`, wrapped as LLVM wraps flow sequences.
    pub fn flow(&mut self, indent: usize, item: bool, key: &str, values: &[String]) {
        self.key(indent, item, key);
        let pad = 16usize.saturating_sub(key.len()).max(1);
        self.out.extend(std::iter::repeat_n(' ', pad));
        self.sequence(values);
    }

    /// `- [ a, b, … ]`: one flow sequence as an item of a block sequence at `indent`.
    pub fn flow_item(&mut self, indent: usize, values: &[String]) {
        self.out
            .extend(std::iter::repeat_n(' ', indent.saturating_sub(2)));
        self.out.push_str("- ");
        self.sequence(values);
    }

    fn sequence(&mut self, values: &[String]) {
        let line_start = self.out.rfind('\n').map_or(0, |i| i + 1);
        let start_col = self.out.len() - line_start;
        let mut col = start_col;
        self.out.push_str("[ ");
        col += 2;
        for (i, v) in values.iter().enumerate() {
            if i > 0 {
                self.out.push_str(", ");
                col += 2;
            }
            if col > WRAP_COLUMN {
                self.out.push('\n');
                self.out.extend(std::iter::repeat_n(' ', start_col + 2));
                col = start_col + 2;
            }
            self.out.push_str(v);
            col += v.len();
        }
        self.out.push_str(" ]\n");
    }

    fn key(&mut self, indent: usize, item: bool, key: &str) {
        if item {
            self.out
                .extend(std::iter::repeat_n(' ', indent.saturating_sub(2)));
            self.out.push_str("- ");
        } else {
            self.out.extend(std::iter::repeat_n(' ', indent));
        }
        self.out.push_str(key);
        self.out.push(':');
    }

    /// The document, with its `...` line.
    pub fn finish(mut self) -> String {
        self.out.push_str("...\n");
        self.out
    }
}

/// Each element of `bytes` as the suite prints a buffer of `format`.
pub fn elements(format: DataFormat, bytes: &[u8]) -> Vec<String> {
    use DataFormat::*;
    let n = format.size() as usize;
    bytes
        .chunks_exact(n)
        .map(|c| {
            let u = c
                .iter()
                .rev()
                .fold(0u64, |acc, &b| (acc << 8) | u64::from(b));
            match format {
                Hex8 | Hex16 | Hex32 | Hex64 | Float16 => format!("0x{u:X}"),
                UInt16 | UInt32 | UInt64 | Bool => u.to_string(),
                Int16 => (u as u16 as i16).to_string(),
                Int32 => (u as u32 as i32).to_string(),
                Int64 => (u as i64).to_string(),
                Float32 | Depth32 => c_g(f64::from(f32::from_bits(u as u32))),
                Float64 => c_g(f64::from_bits(u)),
            }
        })
        .collect()
}

/// C's `printf("%g")`: six significant digits, fixed notation for exponents −4 to 5 and
/// scientific (`e+XX`) otherwise, trailing zeros removed; `nan`/`-nan`, `inf`/`-inf` as
/// glibc prints them.
pub fn c_g(v: f64) -> String {
    const P: i32 = 6;
    if v.is_nan() {
        return if v.is_sign_negative() { "-nan" } else { "nan" }.into();
    }
    if v.is_infinite() {
        return if v < 0.0 { "-inf" } else { "inf" }.into();
    }
    if v == 0.0 {
        return if v.is_sign_negative() { "-0" } else { "0" }.into();
    }
    // The exponent after rounding to P significant digits decides the notation.
    let sci = format!("{:.*e}", (P - 1) as usize, v);
    let (mant, exp) = sci.split_once('e').unwrap_or((&sci, "0"));
    let x: i32 = exp.parse().unwrap_or(0);
    if (-4..P).contains(&x) {
        let fixed = format!("{:.*}", (P - 1 - x) as usize, v);
        strip_zeros(&fixed)
    } else {
        let m = strip_zeros(mant);
        let mut s = String::new();
        let _ = write!(s, "{m}e{}{:02}", if x < 0 { '-' } else { '+' }, x.abs());
        s
    }
}

fn strip_zeros(s: &str) -> String {
    if s.contains('.') {
        s.trim_end_matches('0').trim_end_matches('.').to_string()
    } else {
        s.to_string()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `%g` as glibc prints it (C11 §7.21.6.1: precision 6, style e when the exponent
    /// is < −4 or ≥ the precision, trailing zeros removed).
    #[test]
    fn percent_g() {
        let cases: [(f64, &str); 14] = [
            (4.0, "4"),
            (0.5, "0.5"),
            (1.0 / 3.0, "0.333333"),
            (100000.0, "100000"),
            (1000000.0, "1e+06"),
            (123456789.0, "1.23457e+08"),
            (0.0001, "0.0001"),
            (0.00001, "1e-05"),
            (-2.5, "-2.5"),
            (999999.5, "1e+06"),
            (f64::from(f32::MAX), "3.40282e+38"),
            (f64::from(f32::from_bits(1)), "1.4013e-45"),
            (-0.0, "-0"),
            (f64::INFINITY, "inf"),
        ];
        for (v, want) in cases {
            assert_eq!(c_g(v), want, "{v:e}");
        }
        assert_eq!(c_g(f64::NAN), "nan");
    }

    /// LLVM's `yaml::Output::endSequence`: a block sequence that emitted no item is
    /// written `[]` after the key's padding (the suite prints `DescriptorSets:  []` for a
    /// pipeline without descriptor sets); a sequence with items opens a bare `key:` line.
    #[test]
    fn empty_block_sequences_print_brackets() {
        let mut w = Writer::new();
        w.open_sequence(0, false, "DescriptorSets", true);
        w.open_sequence(0, false, "Buffers", false);
        w.scalar(4, true, "Name", "In");
        w.open_sequence(4, true, "Resources", true);
        assert_eq!(
            w.finish(),
            "---\nDescriptorSets:  []\nBuffers:\n  - Name:            In\n  - Resources:       []\n...\n"
        );
    }

    /// The suite's `StructuredBuffer.test` checks `0x0`, `0x3F800000`: hex without padding,
    /// upper-case digits.
    #[test]
    fn hex_elements() {
        let bytes: Vec<u8> = [0u32, 0x3f80_0000]
            .iter()
            .flat_map(|w| w.to_le_bytes())
            .collect();
        assert_eq!(elements(DataFormat::Hex32, &bytes), ["0x0", "0x3F800000"]);
        assert_eq!(elements(DataFormat::Int16, &[0xff, 0xff]), ["-1"]);
    }

    /// LLVM's writer: keys padded to column 17, flow sequences wrapped after column 70
    /// with the continuation two columns past the `[`.
    #[test]
    fn layout_and_wrapping() {
        let mut w = Writer::new();
        w.scalar(4, true, "Name", "Out");
        let values: Vec<String> = (0..30).map(|i| (i * 1000).to_string()).collect();
        w.flow(4, false, "Data", &values);
        let text = w.finish();
        let lines: Vec<&str> = text.lines().collect();
        assert_eq!(lines[0], "---");
        assert_eq!(lines[1], "  - Name:            Out");
        assert!(lines[2].starts_with("    Data:            [ 0, 1000, 2000,"));
        // Wrapped: the line passed column 70 before the element that starts the next.
        assert!(lines[2].len() > WRAP_COLUMN && lines[2].len() < WRAP_COLUMN + 10);
        assert!(lines[3].starts_with(&" ".repeat(23)), "{:?}", lines[3]);
        assert!(text.ends_with(" ]\n...\n"));
    }
}
