//! `[[expect]]`: comparing a run's outputs with values recorded elsewhere (on WARP, on
//! hardware, by hand).
//!
//! Rules:
//! - `u32`/`i32`/`hex` values compare bit-exactly.
//! - `f32` values compare by their bits under `tolerance = "exact"`, except that an
//!   expected `"NaN"` (any spelling of NaN as a number) matches every NaN; spell the
//!   bits (`"0x7fc00000"`) to require one NaN exactly. `-0` and `0` differ.
//! - `{ ulp = N }`: finite values within N units in the last place (the distance between
//!   the two floats in the ordered integer line, so `-0` and `0` are 0 apart); infinities
//!   must match exactly, NaN matches NaN.
//! - `{ abs = X }`: finite values within X of each other; infinities and NaN as above.

use serde::Serialize;

use super::schema::{ExpectEntry, Tolerance};

/// What one expected value is.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Expected {
    /// A 32-bit word, exact.
    Word(u32),
    /// A float; `any_nan` when spelled as NaN.
    Float {
        /// The bits.
        bits: u32,
        /// Matches any NaN.
        any_nan: bool,
    },
    /// A byte, exact.
    Byte(u8),
}

/// One failed comparison.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct Mismatch {
    /// Index of the value in the `[[expect]]` list.
    pub element: usize,
    /// Byte offset within the resource.
    pub offset: u64,
    /// The expected value, as printed.
    pub expected: String,
    /// The value found, as printed (or "missing" past the end of the output).
    pub got: String,
    /// Distance in units in the last place, for floats.
    pub ulp: Option<u64>,
}

/// The values an entry expects, in order (words or bytes).
pub fn expected_values(e: &ExpectEntry) -> Result<Vec<Expected>, String> {
    let mut forms = 0;
    let mut out = Vec::new();
    if let Some(v) = &e.u32 {
        forms += 1;
        out.extend(v.iter().map(|&w| Expected::Word(w)));
    }
    if let Some(v) = &e.i32 {
        forms += 1;
        out.extend(v.iter().map(|&w| Expected::Word(w as u32)));
    }
    if let Some(v) = &e.f32 {
        forms += 1;
        out.extend(v.iter().map(|f| Expected::Float {
            bits: f.bits(),
            any_nan: f.any_nan(),
        }));
    }
    if let Some(h) = &e.hex {
        forms += 1;
        out.extend(super::data::parse_hex(h)?.into_iter().map(Expected::Byte));
    }
    if e.counter.is_some() {
        forms += 1;
    }
    if forms != 1 {
        return Err("an [[expect]] needs exactly one of u32, i32, f32, hex or counter".into());
    }
    Ok(out)
}

/// Orders float bits on one integer line: `-0` and `0` meet at 0.
fn ordered(bits: u32) -> i64 {
    if bits & 0x8000_0000 != 0 {
        -i64::from(bits & 0x7fff_ffff)
    } else {
        i64::from(bits)
    }
}

/// Distance in units in the last place between two non-NaN floats.
pub fn ulp_distance(a: u32, b: u32) -> u64 {
    (ordered(a) - ordered(b)).unsigned_abs()
}

fn float_matches(expected: u32, any_nan: bool, got: u32, tol: Tolerance) -> bool {
    let (e, g) = (f32::from_bits(expected), f32::from_bits(got));
    if e.is_nan() {
        return if any_nan { g.is_nan() } else { expected == got };
    }
    match tol {
        Tolerance::Exact => expected == got,
        _ if g.is_nan() || e.is_infinite() || g.is_infinite() => expected == got,
        Tolerance::Ulp(n) => ulp_distance(expected, got) <= u64::from(n),
        Tolerance::Abs(x) => (f64::from(e) - f64::from(g)).abs() <= x,
    }
}

fn show_float(bits: u32) -> String {
    let f = f32::from_bits(bits);
    format!("{f:?} (0x{bits:08x})")
}

/// Compares an entry's values with `actual`, the resource's final bytes.
pub fn compare(e: &ExpectEntry, values: &[Expected], actual: &[u8]) -> Vec<Mismatch> {
    compare_with(e, values, &|at, size| {
        usize::try_from(at)
            .ok()
            .and_then(|s| actual.get(s..s.checked_add(size)?))
            .map(|b| {
                b.iter()
                    .rev()
                    .fold(0u32, |acc, &x| (acc << 8) | u32::from(x))
            })
    })
}

/// Compares an entry's values with a resource's memory as it is, reading only the bytes
/// the entry names (no copy of the resource: a target of gigabytes is checked in place);
/// `None` is a resource with no contents.
pub fn compare_memory(
    e: &ExpectEntry,
    values: &[Expected],
    memory: Option<&crate::resources::Memory>,
) -> Vec<Mismatch> {
    compare_with(e, values, &|at, size| {
        let m = memory?;
        let mut b = [0u8; 4];
        let b = b.get_mut(..size)?;
        m.read_bytes(at, b).then_some(())?;
        Some(
            b.iter()
                .rev()
                .fold(0u32, |acc, &x| (acc << 8) | u32::from(x)),
        )
    })
}

/// Compares an entry's values with what `read(offset, size)` gives (`None`: past the
/// end), a little-endian value of 1 or 4 bytes.
fn compare_with(
    e: &ExpectEntry,
    values: &[Expected],
    read: &dyn Fn(u64, usize) -> Option<u32>,
) -> Vec<Mismatch> {
    let mut out = Vec::new();
    let mut at = e.offset;
    for (i, v) in values.iter().enumerate() {
        let size: u64 = if matches!(v, Expected::Byte(_)) { 1 } else { 4 };
        let got = read(at, size as usize);
        let expected = match *v {
            Expected::Word(w) => format!("{w} (0x{w:08x})"),
            Expected::Byte(b) => format!("0x{b:02x}"),
            Expected::Float { any_nan: true, .. } => "NaN".to_string(),
            Expected::Float { bits, .. } => show_float(bits),
        };
        let (ok, ulp) = match (*v, got) {
            (Expected::Word(w), Some(g)) => (w == g, None),
            (Expected::Byte(b), Some(g)) => (u32::from(b) == g, None),
            (Expected::Float { bits, any_nan }, Some(g)) => {
                let ulp = (!f32::from_bits(bits).is_nan() && !f32::from_bits(g).is_nan())
                    .then(|| ulp_distance(bits, g));
                (float_matches(bits, any_nan, g, e.tolerance), ulp)
            }
            (_, None) => (false, None),
        };
        if !ok {
            let got = match (v, got) {
                (_, None) => "missing (past the end of the output)".to_string(),
                (Expected::Float { .. }, Some(g)) => show_float(g),
                (Expected::Byte(_), Some(g)) => format!("0x{g:02x}"),
                (Expected::Word(_), Some(g)) => format!("{g} (0x{g:08x})"),
            };
            out.push(Mismatch {
                element: i,
                offset: at,
                expected,
                got,
                ulp,
            });
        }
        at = at.saturating_add(size);
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::job::schema::{FloatText, FloatValue};

    fn entry(f: Vec<FloatValue>, tolerance: Tolerance) -> ExpectEntry {
        ExpectEntry {
            f32: Some(f),
            tolerance,
            ..Default::default()
        }
    }

    fn bytes(words: &[u32]) -> Vec<u8> {
        words.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    /// Read in place or from a copy, an expectation finds the same mismatches, values
    /// past the end included ("missing"); a resource with no contents misses them all.
    #[test]
    fn memory_reads_match_copies() {
        let e = ExpectEntry {
            offset: 6,
            ..Default::default()
        };
        let values = [
            Expected::Word(0x0302_0100),
            Expected::Byte(9),
            Expected::Word(7),
        ];
        let data: Vec<u8> = (0u8..11).collect();
        let m = crate::resources::Memory::from_bytes(&data).unwrap();
        let copied = compare(&e, &values, &data);
        let in_place = compare_memory(&e, &values, Some(&m));
        assert_eq!(copied, in_place);
        assert_eq!(in_place.len(), 3);
        assert!(in_place[2].got.contains("missing"));
        assert_eq!(compare_memory(&e, &values, None).len(), 3);
    }

    #[test]
    fn exact_floats_distinguish_signed_zero_and_accept_any_nan() {
        let e = entry(
            vec![
                FloatValue::Text(FloatText {
                    bits: 0x8000_0000,
                    hex: false,
                }),
                FloatValue::Text(FloatText {
                    bits: 0x7fc0_0000,
                    hex: false,
                }),
            ],
            Tolerance::Exact,
        );
        let v = expected_values(&e).unwrap();
        assert!(compare(&e, &v, &bytes(&[0x8000_0000, 0x7f80_0001])).is_empty());
        let m = compare(&e, &v, &bytes(&[0, 0x7f80_0001]));
        assert_eq!(m.len(), 1);
        assert_eq!(m[0].element, 0);
    }

    #[test]
    fn hex_spelled_nan_is_exact() {
        let e = entry(
            vec![FloatValue::Text(FloatText {
                bits: 0x7fc0_0001,
                hex: true,
            })],
            Tolerance::Exact,
        );
        let v = expected_values(&e).unwrap();
        assert_eq!(compare(&e, &v, &bytes(&[0x7fc0_0000])).len(), 1);
        assert!(compare(&e, &v, &bytes(&[0x7fc0_0001])).is_empty());
    }

    #[test]
    fn ulp_tolerance_counts_across_zero() {
        assert_eq!(ulp_distance(0x8000_0000, 0), 0);
        assert_eq!(ulp_distance(0x8000_0001, 0x0000_0001), 2);
        let e = entry(vec![FloatValue::Number(1.0)], Tolerance::Ulp(1));
        let v = expected_values(&e).unwrap();
        assert!(compare(&e, &v, &bytes(&[0x3f80_0001])).is_empty());
        let m = compare(&e, &v, &bytes(&[0x3f80_0002]));
        assert_eq!(m[0].ulp, Some(2));
    }

    #[test]
    fn missing_values_are_reported() {
        let e = ExpectEntry {
            u32: Some(vec![1, 2]),
            ..Default::default()
        };
        let v = expected_values(&e).unwrap();
        let m = compare(&e, &v, &bytes(&[1]));
        assert_eq!(m.len(), 1);
        assert!(m[0].got.contains("missing"));
    }
}
