//! How values print: typed as the program uses them, with their bits.
//!
//! A DXIL value has the type its module gives it. A DXBC register component is untyped;
//! it prints as the type of the instruction that last wrote it ([`written_type`]: `add`
//! writes a float, `iadd` an integer, `ult` a boolean), and as a guess from its bits when
//! that says nothing (a `mov`): a float when the exponent is neither 0 nor 255, an
//! integer otherwise — the rule the fxc-style listing uses for untyped immediates.

use crate::ir::{Inst, ValueType};

/// How to read 32 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Ty {
    /// 32-bit float.
    Float,
    /// Signed 32-bit integer (also 8- and 16-bit, zero-extended).
    Int,
    /// Unsigned 32-bit integer.
    UInt,
    /// A boolean (0 or 0xffffffff).
    Bool,
    /// A binary16 in the low half.
    Half,
    /// The low or high half of a double (printed with its pair when both are known).
    Double,
    /// The low or high half of a 64-bit integer.
    I64,
    /// Not known.
    Untyped,
}

/// A format asked for by `print/x` and its kin.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Fmt {
    /// As typed.
    Natural,
    /// Hex only.
    Hex,
    /// As a float.
    Float,
    /// As a signed integer.
    Int,
    /// As an unsigned integer.
    UInt,
    /// As a half in the low 16 bits.
    Half,
}

impl Fmt {
    /// The format of a `/x`-style suffix letter.
    pub fn from_letter(c: char) -> Option<Fmt> {
        Some(match c {
            'x' => Fmt::Hex,
            'f' => Fmt::Float,
            'i' | 'd' => Fmt::Int,
            'u' => Fmt::UInt,
            'h' => Fmt::Half,
            _ => return None,
        })
    }
}

/// A float as Rust prints it shortest, with NaN and infinities spelled out.
pub fn float_text(v: f32) -> String {
    if v.is_nan() {
        "NaN".into()
    } else if v.is_infinite() {
        if v > 0.0 { "inf".into() } else { "-inf".into() }
    } else {
        format!("{v:?}")
    }
}

/// The type a guess from the bits gives (see the module doc).
pub fn guess(bits: u32) -> Ty {
    let e = (bits >> 23) & 0xff;
    if e != 0 && e != 0xff {
        Ty::Float
    } else {
        Ty::Int
    }
}

/// `bits` as `ty` (or `fmt`), with the bits in hex after it.
pub fn value_text(bits: u32, ty: Ty, fmt: Fmt) -> String {
    let ty = match fmt {
        Fmt::Hex => return format!("0x{bits:08x}"),
        Fmt::Float => Ty::Float,
        Fmt::Int => Ty::Int,
        Fmt::UInt => Ty::UInt,
        Fmt::Half => Ty::Half,
        Fmt::Natural => ty,
    };
    let ty = if ty == Ty::Untyped { guess(bits) } else { ty };
    let v = match ty {
        Ty::Float => float_text(f32::from_bits(bits)),
        Ty::Int | Ty::I64 | Ty::Double | Ty::Untyped => (bits as i32).to_string(),
        Ty::UInt => bits.to_string(),
        Ty::Bool => match bits {
            0 => "false".into(),
            u32::MAX => "true".into(),
            b => format!("{b} (not a boolean)"),
        },
        Ty::Half => {
            let h = half::f16::from_bits(bits as u16);
            if h.is_nan() {
                "NaN".into()
            } else {
                float_text(h.to_f32())
            }
        }
    };
    format!("{v} (0x{bits:08x})")
}

/// A type's name in trace files.
pub fn ty_name(ty: Ty, bits: u32) -> &'static str {
    match if ty == Ty::Untyped { guess(bits) } else { ty } {
        Ty::Float => "float",
        Ty::Int => "int",
        Ty::UInt => "uint",
        Ty::Bool => "bool",
        Ty::Half => "half",
        Ty::Double => "double",
        Ty::I64 => "int64",
        Ty::Untyped => "bits",
    }
}

/// Whether `bits` read as `ty` is a NaN or an infinity.
pub fn is_nan_or_inf(bits: u32, ty: Ty) -> bool {
    match ty {
        Ty::Float => (bits >> 23) & 0xff == 0xff,
        Ty::Half => (bits >> 10) & 0x1f == 0x1f,
        _ => false,
    }
}

/// The type an instruction gives the registers it writes (the instruction table's
/// `result` column; `Untyped` for bit copies and loads, which keep whatever the bits were).
pub fn written_type(inst: &Inst) -> Ty {
    match inst.result_type() {
        ValueType::Bits => Ty::Untyped,
        ValueType::F32 => Ty::Float,
        ValueType::I32 => Ty::Int,
        ValueType::U32 => Ty::UInt,
        ValueType::Bool => Ty::Bool,
        ValueType::F64 => Ty::Double,
        ValueType::I64 => Ty::I64,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Values print typed, with their bits; untyped bits are guessed as the listing does.
    #[test]
    fn values_print_typed_with_bits() {
        assert_eq!(
            value_text(0x3fc0_0000, Ty::Float, Fmt::Natural),
            "1.5 (0x3fc00000)"
        );
        assert_eq!(
            value_text(0x100, Ty::Untyped, Fmt::Natural),
            "256 (0x00000100)"
        );
        assert_eq!(
            value_text(0x3f80_0000, Ty::Untyped, Fmt::Natural),
            "1.0 (0x3f800000)"
        );
        assert_eq!(
            value_text(u32::MAX, Ty::Bool, Fmt::Natural),
            "true (0xffffffff)"
        );
        assert_eq!(
            value_text(u32::MAX, Ty::Int, Fmt::Natural),
            "-1 (0xffffffff)"
        );
        assert_eq!(
            value_text(0x7fc0_0000, Ty::Float, Fmt::Natural),
            "NaN (0x7fc00000)"
        );
        assert_eq!(
            value_text(0x3c00, Ty::Half, Fmt::Natural),
            "1.0 (0x00003c00)"
        );
        assert_eq!(value_text(5, Ty::Float, Fmt::Hex), "0x00000005");
        assert!(is_nan_or_inf(0x7f80_0000, Ty::Float));
        assert!(!is_nan_or_inf(0x7f80_0000, Ty::Int));
    }
}
