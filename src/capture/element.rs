//! Comparing one component of one element in its format: how far apart two values are
//! and whether a tolerance accepts that.
//!
//! Owns: the components of an element ([`components`]: a format's channels, or a list of
//! formats filling a buffer's element), the distance between a captured and a computed
//! component ([`difference`]) and the tolerance rules ([`accepts`]). Does not own: where
//! elements are ([`super::layout`]) or the report ([`super::report`]).
//!
//! # Rules
//!
//! - Components are compared by their bits in the format: a 32-bit float channel by its
//!   32 bits, a 16-bit float by its 16, UNORM/SNORM/sRGB by their integer codes, an
//!   R11G11B10 channel by its 11 or 10 bits, R9G9B9E5 by its three decoded floats.
//! - Two floats with the same bits are equal; otherwise the difference is one of:
//!   **signed zero** (`+0` and `−0`), **NaN payload** (both NaN, other bits), **NaN vs
//!   number**, **infinity** (one is infinite, the other not or of the other sign), or a
//!   distance in **units in the last place** (ulp: how many representable values lie
//!   between them on the ordered line where `−0` and `+0` meet, `job::expect::ulp_distance`)
//!   with its absolute difference.
//! - UNORM, SNORM and sRGB codes differ by a number of ulps (codes apart: SNORM codes are
//!   signed, so −1.0 spelled `0x80` and `0x81` are 1 apart) and by the difference of the
//!   values they decode to.
//! - UINT, SINT and typeless channels are integers: any difference is a mismatch,
//!   whatever the tolerance (reported as how far apart the integers are).
//! - Tolerances (`exact` by default, for every format: dxlane computes what WARP
//!   computes, bit for bit, so a WARP capture matches exactly):
//!   - `exact`: equal bits only;
//!   - `{ ulp = N }`: at most N ulps apart (so `+0` and `−0` match);
//!   - `{ abs = X }`: decoded values at most X apart (`+0` and `−0` match);
//!   - under any tolerance an infinity matches only itself, and a NaN matches a NaN of
//!     other bits only with `nan = "any"` (default `"exact"`: NaN payloads are told
//!     apart).

use serde::Serialize;

use crate::job::expect::ulp_distance;
use crate::resources::Format;
use crate::resources::format::Tolerance;
use crate::resources::format::{
    Layout as TexelLayout, Num, shared_exp_to_rgb, small_float_to_f32, snorm_to_float,
    srgb_to_linear, unorm_to_float,
};

/// How a NaN compares with a NaN of other bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum NanRule {
    /// Only the same bits match (payloads are told apart).
    #[default]
    Exact,
    /// Any NaN matches any NaN.
    Any,
}

/// What a component's bits are.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    /// IEEE float of 32 or 16 bits.
    Float {
        /// 32 or 16.
        bits: u8,
    },
    /// Unsigned small float (R11G11B10): 5 exponent bits, `bits − 5` mantissa bits.
    UFloat {
        /// 11 or 10.
        bits: u8,
    },
    /// Unsigned normalized code.
    UNorm {
        /// Bits.
        bits: u8,
    },
    /// Signed normalized code.
    SNorm {
        /// Bits.
        bits: u8,
    },
    /// sRGB-encoded code.
    Srgb {
        /// Bits.
        bits: u8,
    },
    /// 10-bit extended-range biased code.
    XrBias,
    /// Unsigned integer (and typeless bits).
    UInt {
        /// Bits.
        bits: u8,
    },
    /// Signed integer.
    SInt {
        /// Bits.
        bits: u8,
    },
    /// One of R9G9B9E5's three channels, as its decoded 32-bit float.
    SharedExp,
}

impl Kind {
    /// Whether the component is an integer (compared exactly under every tolerance).
    pub fn is_integer(self) -> bool {
        matches!(self, Kind::UInt { .. } | Kind::SInt { .. })
    }
}

/// One component of an element: where its bits are and what they mean.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Component {
    /// Byte of the element where its texel (the format's unit) starts.
    pub texel: u32,
    /// Bytes of that texel.
    pub texel_bytes: u32,
    /// Bit offset in the texel.
    pub shift: u8,
    /// Width in bits (32 for [`Kind::SharedExp`]).
    pub bits: u8,
    /// What the bits are.
    pub kind: Kind,
    /// Which channel of the texel: 0 = R (x) … 3 = A (w).
    pub channel: u8,
    /// The component's name in reports: `x`, `r`, `depth`, `[3].y`.
    pub name: String,
}

/// How components are named.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Naming {
    /// Buffers: `x y z w`.
    Vector,
    /// Textures and render targets: `r g b a` (`depth`, `stencil` for depth formats).
    Color,
}

/// The components of one element made of `formats` one after the other (a texture's
/// single format, or a buffer element's fields). Errors name a format that cannot be
/// compared (block-compressed, subsampled).
pub fn components(formats: &[Format], naming: Naming) -> Result<Vec<Component>, String> {
    let mut out = Vec::new();
    let mut at = 0u32;
    let several = formats.len() > 1;
    for (field, &f) in formats.iter().enumerate() {
        let tb = f.bytes_per_texel();
        let name = |ch: u8| -> String {
            let base = match naming {
                Naming::Vector => ["x", "y", "z", "w"][usize::from(ch & 3)],
                Naming::Color if f.is_depth() => {
                    ["depth", "stencil", "b", "a"][usize::from(ch & 3)]
                }
                Naming::Color => ["r", "g", "b", "a"][usize::from(ch & 3)],
            };
            let single = f.component_count() == 1 && naming == Naming::Vector;
            match (several, single) {
                (true, true) => format!("[{field}]"),
                (true, false) => format!("[{field}].{base}"),
                (false, true) => String::new(),
                (false, false) => base.to_string(),
            }
        };
        match f.layout() {
            TexelLayout::Channels(chans) => {
                for c in chans {
                    let kind = match c.num {
                        Num::Float => Kind::Float { bits: c.bits },
                        Num::UFloat => Kind::UFloat { bits: c.bits },
                        Num::UNorm => Kind::UNorm { bits: c.bits },
                        Num::SNorm => Kind::SNorm { bits: c.bits },
                        Num::Srgb => Kind::Srgb { bits: c.bits },
                        Num::XrBias => Kind::XrBias,
                        Num::UInt | Num::Typeless => Kind::UInt { bits: c.bits },
                        Num::SInt => Kind::SInt { bits: c.bits },
                    };
                    out.push(Component {
                        texel: at,
                        texel_bytes: tb,
                        shift: c.shift,
                        bits: c.bits,
                        kind,
                        channel: c.dest,
                        name: name(c.dest),
                    });
                }
            }
            TexelLayout::SharedExp => {
                for ch in 0..3u8 {
                    out.push(Component {
                        texel: at,
                        texel_bytes: tb,
                        shift: 0,
                        bits: 32,
                        kind: Kind::SharedExp,
                        channel: ch,
                        name: name(ch),
                    });
                }
            }
            TexelLayout::Block | TexelLayout::Unsupported => {
                return Err(format!(
                    "{f} texels cannot be compared yet (block-compressed or subsampled)"
                ));
            }
        }
        at += tb;
    }
    Ok(out)
}

/// The bytes one element of `formats` takes.
pub fn element_bytes(formats: &[Format]) -> u32 {
    formats.iter().map(|f| f.bytes_per_texel()).sum()
}

impl Component {
    /// The component's bits in `element` (the element's bytes; missing bytes read 0).
    pub fn read(&self, element: &[u8]) -> u32 {
        let mut raw = [0u8; 16];
        let start = self.texel as usize;
        let n = (self.texel_bytes as usize).min(16);
        if let Some(src) = element.get(start..).map(|s| &s[..s.len().min(n)]) {
            raw[..src.len()].copy_from_slice(src);
        }
        let bits = u128::from_le_bytes(raw);
        if self.kind == Kind::SharedExp {
            return shared_exp_to_rgb(bits as u32)[usize::from(self.channel.min(2))].to_bits();
        }
        let mask = if self.bits >= 32 {
            u32::MAX
        } else {
            (1u32 << self.bits) - 1
        };
        ((bits >> self.shift) as u32) & mask
    }

    /// The value the bits stand for, as a float (integers by value).
    pub fn value(&self, v: u32) -> f64 {
        value(self.kind, v)
    }

    /// The bits as a report prints them: `0.5 (0x3f000000)`, `128 (0x80)`.
    pub fn show(&self, v: u32) -> String {
        let hex_digits = usize::from(self.bits.div_ceil(4)).max(2);
        let hex = format!("0x{v:0hex_digits$x}");
        match self.kind {
            Kind::Float { bits: 32 } | Kind::SharedExp => {
                format!("{:?} ({hex})", f32::from_bits(v))
            }
            Kind::UInt { .. } => format!("{v} ({hex})"),
            Kind::SInt { bits } => format!("{} ({hex})", sign_extend(v, bits)),
            _ => format!("{} ({hex})", short_float(value(self.kind, v))),
        }
    }
}

/// A float printed with the digits an f32 needs.
fn short_float(x: f64) -> String {
    format!("{:?}", x as f32)
}

fn sign_extend(v: u32, bits: u8) -> i64 {
    if bits >= 32 {
        i64::from(v as i32)
    } else {
        let s = 32 - u32::from(bits);
        i64::from(((v << s) as i32) >> s)
    }
}

fn value(kind: Kind, v: u32) -> f64 {
    match kind {
        Kind::Float { bits: 16 } => f64::from(small_float_to_f32(v, 10, true)),
        Kind::Float { .. } | Kind::SharedExp => f64::from(f32::from_bits(v)),
        Kind::UFloat { bits } => f64::from(small_float_to_f32(v, u32::from(bits) - 5, false)),
        Kind::UNorm { bits } => f64::from(unorm_to_float(v, bits)),
        Kind::SNorm { bits } => f64::from(snorm_to_float(v, bits)),
        Kind::Srgb { bits } => f64::from(srgb_to_linear(unorm_to_float(v, bits))),
        Kind::XrBias => (f64::from(v) - 384.0) / 510.0,
        Kind::UInt { .. } => f64::from(v),
        Kind::SInt { bits } => sign_extend(v, bits) as f64,
    }
}

/// What kind of difference two components show.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Serialize)]
#[serde(rename_all = "snake_case")]
pub enum DiffKind {
    /// Some ulps apart (floats, UNORM, SNORM, sRGB codes).
    Ulp,
    /// `+0` against `−0`.
    SignedZero,
    /// Both NaN, with other bits.
    NanPayload,
    /// A NaN against a number.
    NanVsNumber,
    /// An infinity against a finite value or the other infinity.
    Infinity,
    /// Integers that differ.
    Integer,
}

impl DiffKind {
    /// The words a report uses.
    pub fn words(self) -> &'static str {
        match self {
            DiffKind::Ulp => "ulp",
            DiffKind::SignedZero => "sign of zero",
            DiffKind::NanPayload => "NaN payload",
            DiffKind::NanVsNumber => "NaN vs number",
            DiffKind::Infinity => "infinity",
            DiffKind::Integer => "integer",
        }
    }
}

/// How two components differ.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Difference {
    /// The kind.
    pub kind: DiffKind,
    /// Units in the last place apart ([`DiffKind::Ulp`] and [`DiffKind::SignedZero`]).
    pub ulp: Option<u64>,
    /// How far apart their values are (finite values and integers).
    pub abs: Option<f64>,
}

/// A float class of a component's bits: NaN, infinity, zero, or a position on the
/// ordered line.
enum Class {
    Nan,
    Inf,
    Zero,
    Finite(i64),
}

fn class(kind: Kind, v: u32) -> Class {
    let (sign, exp, mant, exp_max) = match kind {
        Kind::Float { bits: 16 } => ((v >> 15) & 1 == 1, (v >> 10) & 0x1f, v & 0x3ff, 0x1f),
        Kind::Float { .. } | Kind::SharedExp => {
            ((v >> 31) == 1, (v >> 23) & 0xff, v & 0x7f_ffff, 0xff)
        }
        Kind::UFloat { bits } => {
            let m = u32::from(bits) - 5;
            (false, v >> m, v & ((1 << m) - 1), 0x1f)
        }
        // Not a float: callers ask only for float kinds.
        _ => return Class::Finite(i64::from(v)),
    };
    if exp == exp_max {
        return if mant != 0 { Class::Nan } else { Class::Inf };
    }
    let mag = i64::from(v & sign_mask_complement(kind));
    if mag == 0 {
        return Class::Zero;
    }
    Class::Finite(if sign { -mag } else { mag })
}

fn sign_mask_complement(kind: Kind) -> u32 {
    match kind {
        Kind::Float { bits: 16 } => 0x7fff,
        Kind::UFloat { .. } => u32::MAX,
        _ => 0x7fff_ffff,
    }
}

fn is_float_like(kind: Kind) -> bool {
    matches!(
        kind,
        Kind::Float { .. } | Kind::UFloat { .. } | Kind::SharedExp
    )
}

/// How a captured component `c` and dxlane's `d` differ; `None` when their bits are the
/// same (see the module doc).
pub fn difference(kind: Kind, c: u32, d: u32) -> Option<Difference> {
    if c == d {
        return None;
    }
    let abs = (value(kind, c) - value(kind, d)).abs();
    if is_float_like(kind) {
        let diff = match (class(kind, c), class(kind, d)) {
            (Class::Nan, Class::Nan) => Difference {
                kind: DiffKind::NanPayload,
                ulp: None,
                abs: None,
            },
            (Class::Nan, _) | (_, Class::Nan) => Difference {
                kind: DiffKind::NanVsNumber,
                ulp: None,
                abs: None,
            },
            (Class::Inf, _) | (_, Class::Inf) => Difference {
                kind: DiffKind::Infinity,
                ulp: None,
                abs: None,
            },
            (Class::Zero, Class::Zero) => Difference {
                kind: DiffKind::SignedZero,
                ulp: Some(0),
                abs: Some(0.0),
            },
            (a, b) => {
                let pos = |x: Class| match x {
                    Class::Finite(p) => p,
                    _ => 0,
                };
                let ulp = match kind {
                    Kind::Float { bits: 32 } | Kind::SharedExp => ulp_distance(c, d),
                    _ => (pos(a) - pos(b)).unsigned_abs(),
                };
                Difference {
                    kind: DiffKind::Ulp,
                    ulp: Some(ulp),
                    abs: Some(abs),
                }
            }
        };
        return Some(diff);
    }
    Some(match kind {
        Kind::UNorm { .. } | Kind::Srgb { .. } | Kind::XrBias => Difference {
            kind: DiffKind::Ulp,
            ulp: Some(u64::from(c.abs_diff(d))),
            abs: Some(abs),
        },
        Kind::SNorm { bits } => Difference {
            kind: DiffKind::Ulp,
            ulp: Some((sign_extend(c, bits) - sign_extend(d, bits)).unsigned_abs()),
            abs: Some(abs),
        },
        _ => Difference {
            kind: DiffKind::Integer,
            ulp: None,
            abs: Some(abs),
        },
    })
}

/// Whether `tol` (with `nan`) accepts the difference `d` of a component of `kind` (see
/// the module doc).
pub fn accepts(tol: Tolerance, nan: NanRule, kind: Kind, d: &Difference) -> bool {
    if kind.is_integer() {
        return false;
    }
    match d.kind {
        DiffKind::NanPayload => nan == NanRule::Any,
        DiffKind::NanVsNumber | DiffKind::Infinity | DiffKind::Integer => false,
        DiffKind::SignedZero => tol != Tolerance::Exact,
        DiffKind::Ulp => match tol {
            Tolerance::Exact => false,
            Tolerance::Ulp(n) => d.ulp.is_some_and(|u| u <= u64::from(n)),
            Tolerance::Abs(x) => d.abs.is_some_and(|a| a <= x),
        },
    }
}

/// A tolerance as reports and the command line spell it: `exact`, `ulp 2`, `abs 0.001`.
pub fn tolerance_words(t: Tolerance) -> String {
    match t {
        Tolerance::Exact => "exact".into(),
        Tolerance::Ulp(n) => format!("ulp {n}"),
        Tolerance::Abs(x) => format!("abs {x}"),
    }
}

/// Parses a tolerance as the command line spells it: `exact`, `ulp N` (or `ulp:N`,
/// `ulp=N`), `abs X`.
pub fn parse_tolerance(s: &str) -> Option<Tolerance> {
    let t = s.trim();
    if t.eq_ignore_ascii_case("exact") {
        return Some(Tolerance::Exact);
    }
    let (word, rest) = t.split_at(t.find([' ', ':', '=']).unwrap_or(t.len()));
    let rest = rest.trim_start_matches([' ', ':', '=']).trim();
    match word.to_ascii_lowercase().as_str() {
        "ulp" => rest.parse().ok().map(Tolerance::Ulp),
        "abs" => rest
            .parse::<f64>()
            .ok()
            .filter(|x| x.is_finite() && *x >= 0.0)
            .map(Tolerance::Abs),
        _ => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const F32: Kind = Kind::Float { bits: 32 };
    const F16: Kind = Kind::Float { bits: 16 };

    fn diff(kind: Kind, c: u32, d: u32) -> Difference {
        difference(kind, c, d).unwrap()
    }

    /// The module doc: one ulp is the next float; the line meets at zero.
    #[test]
    fn floats_differ_by_ulps_across_zero() {
        assert!(difference(F32, 0x3f80_0000, 0x3f80_0000).is_none());
        let d = diff(F32, 0x3f80_0000, 0x3f80_0001);
        assert_eq!((d.kind, d.ulp), (DiffKind::Ulp, Some(1)));
        assert!((d.abs.unwrap() - f64::from(f32::EPSILON)).abs() < 1e-12);
        assert_eq!(diff(F32, 0x8000_0001, 0x0000_0001).ulp, Some(2));
        assert_eq!(diff(F16, 0x3c00, 0x3c02).ulp, Some(2));
        assert_eq!(diff(F16, 0x8001, 0x0001).ulp, Some(2));
    }

    /// Signed zeros and NaN payloads are told apart (the issue: "with NaN payloads and
    /// signed zeros told apart").
    #[test]
    fn signed_zero_nan_payload_and_infinity_are_their_own_kinds() {
        assert_eq!(diff(F32, 0, 0x8000_0000).kind, DiffKind::SignedZero);
        assert_eq!(
            diff(F32, 0x7fc0_0000, 0x7fc0_0001).kind,
            DiffKind::NanPayload
        );
        assert_eq!(
            diff(F32, 0x7fc0_0000, 0xffc0_0000).kind,
            DiffKind::NanPayload
        );
        assert_eq!(diff(F32, 0x7fc0_0000, 0).kind, DiffKind::NanVsNumber);
        assert_eq!(diff(F32, 0x7f80_0000, 0x7f7f_ffff).kind, DiffKind::Infinity);
        assert_eq!(diff(F16, 0x7e00, 0x7fff).kind, DiffKind::NanPayload);
        assert_eq!(diff(F16, 0x8000, 0).kind, DiffKind::SignedZero);
        let u = Kind::UFloat { bits: 11 };
        assert_eq!(diff(u, 0x7c1, 0x7c2).kind, DiffKind::NanPayload);
        assert_eq!(diff(u, 0x3c0, 0x3c1).ulp, Some(1));
    }

    /// D3D11.3 §3.2: UNORM and SNORM compare as codes; SNORM codes are signed.
    #[test]
    fn normalized_codes_differ_in_ulps() {
        let d = diff(Kind::UNorm { bits: 8 }, 128, 130);
        assert_eq!((d.kind, d.ulp), (DiffKind::Ulp, Some(2)));
        assert!((d.abs.unwrap() - 2.0 / 255.0).abs() < 1e-6);
        assert_eq!(diff(Kind::SNorm { bits: 8 }, 0x7f, 0x81).ulp, Some(254));
        // −1.0 has two codes: 1 ulp apart, 0 in value.
        let d = diff(Kind::SNorm { bits: 8 }, 0x80, 0x81);
        assert_eq!((d.ulp, d.abs), (Some(1), Some(0.0)));
    }

    #[test]
    fn integers_are_exact_under_every_tolerance() {
        let k = Kind::UInt { bits: 32 };
        let d = diff(k, 5, 7);
        assert_eq!((d.kind, d.abs), (DiffKind::Integer, Some(2.0)));
        assert!(!accepts(Tolerance::Ulp(100), NanRule::Any, k, &d));
        assert!(!accepts(Tolerance::Abs(100.0), NanRule::Any, k, &d));
        assert_eq!(diff(Kind::SInt { bits: 8 }, 0xff, 1).abs, Some(2.0));
    }

    /// The module doc's tolerance rules.
    #[test]
    fn tolerances() {
        let one = diff(F32, 0x3f80_0000, 0x3f80_0001);
        assert!(!accepts(Tolerance::Exact, NanRule::Exact, F32, &one));
        assert!(accepts(Tolerance::Ulp(1), NanRule::Exact, F32, &one));
        assert!(accepts(Tolerance::Abs(1e-6), NanRule::Exact, F32, &one));
        assert!(!accepts(Tolerance::Abs(1e-9), NanRule::Exact, F32, &one));
        let z = diff(F32, 0, 0x8000_0000);
        assert!(!accepts(Tolerance::Exact, NanRule::Exact, F32, &z));
        assert!(accepts(Tolerance::Ulp(0), NanRule::Exact, F32, &z));
        let nan = diff(F32, 0x7fc0_0000, 0x7fc0_0001);
        assert!(!accepts(Tolerance::Ulp(9), NanRule::Exact, F32, &nan));
        assert!(accepts(Tolerance::Exact, NanRule::Any, F32, &nan));
        let inf = diff(F32, 0x7f80_0000, 0x7f7f_ffff);
        assert!(!accepts(Tolerance::Ulp(u32::MAX), NanRule::Any, F32, &inf));
    }

    #[test]
    fn components_of_formats() {
        let c = components(&[Format::R8G8B8A8_UNORM], Naming::Color).unwrap();
        assert_eq!(c.len(), 4);
        assert_eq!(c[2].name, "b");
        assert_eq!(c[2].read(&[1, 2, 3, 4]), 3);
        let c = components(&[Format::R32G32_FLOAT, Format::R32_UINT], Naming::Vector).unwrap();
        assert_eq!(
            c.iter().map(|c| c.name.as_str()).collect::<Vec<_>>(),
            ["[0].x", "[0].y", "[1]"]
        );
        assert_eq!((c[2].texel, c[2].kind), (8, Kind::UInt { bits: 32 }));
        let c = components(&[Format::D24_UNORM_S8_UINT], Naming::Color).unwrap();
        assert_eq!(c[1].name, "stencil");
        assert_eq!(c[1].read(&[0, 0, 0, 9]), 9);
        assert_eq!(
            components(&[Format::R32_FLOAT], Naming::Vector).unwrap()[0].name,
            ""
        );
        assert!(components(&[Format::BC1_UNORM], Naming::Color).is_err());
        let c = components(&[Format::R9G9B9E5_SHAREDEXP], Naming::Color).unwrap();
        assert_eq!(c.len(), 3);
    }

    #[test]
    fn tolerance_spellings() {
        assert_eq!(parse_tolerance("exact"), Some(Tolerance::Exact));
        assert_eq!(parse_tolerance("ulp 2"), Some(Tolerance::Ulp(2)));
        assert_eq!(parse_tolerance("ulp:3"), Some(Tolerance::Ulp(3)));
        assert_eq!(parse_tolerance("abs=0.5"), Some(Tolerance::Abs(0.5)));
        assert_eq!(parse_tolerance("abs -1"), None);
        assert_eq!(parse_tolerance("ulps 2"), None);
        assert_eq!(tolerance_words(Tolerance::Ulp(2)), "ulp 2");
    }

    #[test]
    fn values_print_with_their_bits() {
        let c = components(&[Format::R32_FLOAT], Naming::Vector).unwrap();
        assert_eq!(c[0].show(0x3f00_0000), "0.5 (0x3f000000)");
        let c = components(&[Format::R8_UNORM], Naming::Color).unwrap();
        assert_eq!(c[0].show(0xff), "1.0 (0xff)");
        let c = components(&[Format::R8_SINT], Naming::Color).unwrap();
        assert_eq!(c[0].show(0xff), "-1 (0xff)");
    }
}
