//! How LLVM 3.7's assembly writer spells constants: integers, floating-point values,
//! aggregates (with the canonical forms LLVM's constant uniquing gives them), strings
//! and constant expressions.
//!
//! Owns: the text of a constant, given the module it lives in. Does not own: value
//! names and slot numbers (see [`super::asm`]).

use std::fmt::Write as _;

use crate::dxil::llvm::{Constant, Module, Type, TypeId, Value, ValueId, ValueKind};

/// Spells a floating-point constant of `bits` bits the way LLVM 3.7's `AsmWriter`
/// (`WriteConstantInternal`) does.
///
/// Rule (LLVM 3.7 `lib/IR/AsmWriter.cpp`, as in DirectXShaderCompiler): a `float` or
/// `double` that is neither infinite nor NaN is printed with C's `%e` (six digits after
/// the point, at least two exponent digits) when that text reads back as exactly the
/// same `double`; otherwise it is printed as `0x` and the 16 upper-case hex digits of
/// the value converted to `double` (leading zeros dropped). A `half` is printed as
/// `0xH` and its four hex digits. The conversion of a `float` NaN to `double` keeps the
/// payload (APFloat shifts it up and does not quieten it).
pub fn format_float(bits: u64, width: u32) -> String {
    match width {
        16 => format!("0xH{:04X}", bits & 0xffff),
        32 | 64 => {
            let wide = if width == 32 {
                f32_bits_to_f64_bits(bits as u32)
            } else {
                bits
            };
            let v = f64::from_bits(wide);
            if v.is_finite() {
                let s = c_exponent(v);
                let b = s.as_bytes();
                let starts_numeric = match b {
                    [d, ..] if d.is_ascii_digit() => true,
                    [b'-' | b'+', d, ..] if d.is_ascii_digit() => true,
                    _ => false,
                };
                if starts_numeric && s.parse::<f64>().ok() == Some(v) {
                    return s;
                }
            }
            format!("0x{wide:X}")
        }
        // Other widths (x86_fp80, fp128) never occur in DXIL; print the raw bits.
        _ => format!("0x{bits:X}"),
    }
}

/// The bits of a `float` converted to `double` exactly, NaN payloads kept as APFloat
/// keeps them (shifted up, the quiet bit untouched).
fn f32_bits_to_f64_bits(b: u32) -> u64 {
    let f = f32::from_bits(b);
    if f.is_nan() {
        let sign = u64::from(b >> 31) << 63;
        let payload = u64::from(b & 0x007f_ffff) << 29;
        sign | (0x7ffu64 << 52) | payload
    } else {
        f64::from(f).to_bits()
    }
}

/// C's `printf("%e", v)`: `d.dddddde±XX`.
fn c_exponent(v: f64) -> String {
    let s = format!("{v:.6e}");
    let Some((mantissa, exp)) = s.split_once('e') else {
        return s;
    };
    let exp: i32 = exp.parse().unwrap_or(0);
    let sign = if exp < 0 { '-' } else { '+' };
    format!("{mantissa}e{sign}{:02}", exp.unsigned_abs())
}

/// An integer constant of `width` bits, stored sign-extended in `v`, as LLVM prints an
/// `APInt`: signed decimal at the type's width; `i1` as `true`/`false`.
pub fn format_int(v: i64, width: u32) -> String {
    if width == 1 {
        return if v & 1 != 0 { "true" } else { "false" }.to_owned();
    }
    if width >= 64 {
        return v.to_string();
    }
    let shift = 64 - width;
    ((v << shift) >> shift).to_string()
}

/// A wide integer (more than 64 bits) from its 64-bit words, least significant first,
/// as signed decimal.
fn format_wide_int(words: &[i64], width: u32) -> String {
    // Two's complement over `width` bits, then decimal by repeated division.
    let mut limbs: Vec<u64> = words.iter().map(|&w| w as u64).collect();
    let nlimbs = (width as usize).div_ceil(64).max(1);
    limbs.resize(nlimbs, 0);
    let top_bits = width as usize - (nlimbs - 1) * 64;
    if let Some(last) = limbs.last_mut()
        && top_bits < 64
    {
        let sign = (*last >> (top_bits - 1)) & 1;
        if sign == 1 {
            *last |= !0u64 << top_bits;
        } else {
            *last &= (1u64 << top_bits) - 1;
        }
    }
    let negative = limbs.last().is_some_and(|l| l >> 63 == 1);
    if negative {
        // Negate: invert and add one.
        let mut carry = 1u128;
        for l in &mut limbs {
            let s = u128::from(!*l) + carry;
            *l = s as u64;
            carry = s >> 64;
        }
    }
    let mut digits = Vec::new();
    while limbs.iter().any(|&l| l != 0) {
        let mut rem = 0u128;
        for l in limbs.iter_mut().rev() {
            let cur = (rem << 64) | u128::from(*l);
            *l = (cur / 10) as u64;
            rem = cur % 10;
        }
        digits.push(b'0' + rem as u8);
    }
    if digits.is_empty() {
        digits.push(b'0');
    }
    digits.reverse();
    let mut s = String::from_utf8_lossy(&digits).into_owned();
    if negative {
        s.insert(0, '-');
    }
    s
}

/// Appends `bytes` escaped as LLVM's `PrintEscapedString` does: printable ASCII other
/// than `\` and `"` as is, everything else as `\XX` (upper-case hex).
pub fn push_escaped(out: &mut String, bytes: &[u8]) {
    for &c in bytes {
        if (0x20..0x7f).contains(&c) && c != b'\\' && c != b'"' {
            out.push(char::from(c));
        } else {
            let _ = write!(out, "\\{c:02X}");
        }
    }
}

/// The canonical identity of a constant, as LLVM's uniquing sees it: two constants
/// with equal keys are one LLVM `Constant`.
#[derive(Debug, Clone, PartialEq)]
pub enum ConstKey {
    /// `zeroinitializer`, `null`, integer 0, `+0.0` of this type.
    Null(TypeId),
    /// `undef` of this type.
    Undef(TypeId),
    /// Any other constant, by a structural key.
    Other(TypeId, String),
}

/// Looks at constants of a module (and of one function body).
pub struct ConstView<'m> {
    /// The module.
    pub m: &'m Module,
    /// The function body whose local values are visible, if any.
    pub body: Option<&'m crate::dxil::llvm::FunctionBody>,
}

impl<'m> ConstView<'m> {
    fn value(&self, id: ValueId) -> Option<&'m Value> {
        self.m.value(self.body, id)
    }

    fn ty(&self, t: TypeId) -> Option<&'m Type> {
        self.m.ty(t)
    }

    /// The element type of an aggregate type at `index`.
    pub fn element_type(&self, t: TypeId, index: usize) -> Option<TypeId> {
        match self.ty(t)? {
            Type::Array { element, .. } | Type::Vector { element, .. } => Some(*element),
            Type::Struct { elements, .. } => elements.get(index).copied(),
            _ => None,
        }
    }

    /// The canonical key of the constant `id` (see [`ConstKey`]). Values that are not
    /// constants (globals, instructions) key by their id.
    pub fn key(&self, id: ValueId) -> ConstKey {
        self.key_depth(id, 0)
    }

    fn key_depth(&self, id: ValueId, depth: u32) -> ConstKey {
        let Some(v) = self.value(id) else {
            return ConstKey::Other(TypeId(u32::MAX), format!("v{}", id.0));
        };
        let ty = v.ty;
        let ValueKind::Constant(c) = &v.kind else {
            return ConstKey::Other(ty, format!("v{}", id.0));
        };
        if depth > 64 {
            return ConstKey::Other(ty, format!("v{}", id.0));
        }
        match c {
            Constant::Null => ConstKey::Null(ty),
            Constant::Undef => ConstKey::Undef(ty),
            Constant::Int(i) => {
                let w = self.ty(ty).and_then(Type::int_width).unwrap_or(64);
                let s = format_int(*i, w);
                if s == "0" || s == "false" {
                    ConstKey::Null(ty)
                } else {
                    ConstKey::Other(ty, s)
                }
            }
            Constant::WideInt(words) => {
                if words.iter().all(|&w| w == 0) {
                    ConstKey::Null(ty)
                } else {
                    ConstKey::Other(ty, format!("{words:?}"))
                }
            }
            Constant::Float(bits) => {
                if *bits == 0 {
                    ConstKey::Null(ty)
                } else {
                    ConstKey::Other(ty, format!("f{bits:x}"))
                }
            }
            Constant::Aggregate(elems) => {
                let keys: Vec<ConstKey> = elems
                    .iter()
                    .map(|e| self.key_depth(*e, depth + 1))
                    .collect();
                self.aggregate_key(ty, &keys)
            }
            Constant::String(b) | Constant::CString(b) => {
                let mut bytes = b.clone();
                if matches!(c, Constant::CString(_)) {
                    bytes.push(0);
                }
                if bytes.iter().all(|&x| x == 0) {
                    ConstKey::Null(ty)
                } else {
                    ConstKey::Other(ty, format!("s{bytes:?}"))
                }
            }
            Constant::Data(d) => {
                if d.iter().all(|&x| x == 0) {
                    ConstKey::Null(ty)
                } else {
                    ConstKey::Other(ty, format!("d{d:?}"))
                }
            }
            _ => ConstKey::Other(ty, format!("v{}", id.0)),
        }
    }

    /// The key of an aggregate from its elements' keys (LLVM's `ConstantStruct::get`,
    /// `ConstantArray::get`, `ConstantVector::get` canonicalisation: all-zero gives
    /// `zeroinitializer`, all-undef `undef`; an empty array or struct is
    /// `zeroinitializer`).
    fn aggregate_key(&self, ty: TypeId, keys: &[ConstKey]) -> ConstKey {
        match self.aggregate_form(ty, keys) {
            AggForm::Zero => ConstKey::Null(ty),
            AggForm::Undef => ConstKey::Undef(ty),
            AggForm::Elements => ConstKey::Other(ty, format!("{keys:?}")),
        }
    }

    fn aggregate_form(&self, ty: TypeId, keys: &[ConstKey]) -> AggForm {
        let is_struct = matches!(self.ty(ty), Some(Type::Struct { .. }));
        let Some(first) = keys.first() else {
            return AggForm::Zero;
        };
        if is_struct {
            // ConstantStruct::get: every element null, or every element undef.
            if keys.iter().all(|k| matches!(k, ConstKey::Null(_))) {
                return AggForm::Zero;
            }
            if keys.iter().all(|k| matches!(k, ConstKey::Undef(_))) {
                return AggForm::Undef;
            }
            return AggForm::Elements;
        }
        // Arrays and vectors: every element the same constant as the first, and that
        // constant undef or null.
        if keys.iter().all(|k| k == first) {
            match first {
                ConstKey::Undef(_) => return AggForm::Undef,
                ConstKey::Null(_) => return AggForm::Zero,
                ConstKey::Other(..) => {}
            }
        }
        AggForm::Elements
    }

    /// Appends the text of constant `id` (without its type) to `out`. `operand` spells
    /// a non-constant operand inside a constant expression (globals by name).
    pub fn write(&self, out: &mut String, id: ValueId, operand: &dyn Fn(&mut String, ValueId)) {
        self.write_depth(out, id, operand, 0);
    }

    fn write_typed(
        &self,
        out: &mut String,
        ty: TypeId,
        id: ValueId,
        operand: &dyn Fn(&mut String, ValueId),
        depth: u32,
    ) {
        out.push_str(&type_name(self.m, ty));
        out.push(' ');
        self.write_value(out, id, operand, depth);
    }

    /// A value inside a constant: constants recursively, other values through
    /// `operand`.
    fn write_value(
        &self,
        out: &mut String,
        id: ValueId,
        operand: &dyn Fn(&mut String, ValueId),
        depth: u32,
    ) {
        match self.value(id) {
            Some(v) if matches!(v.kind, ValueKind::Constant(_)) && v.name.is_none() => {
                self.write_depth(out, id, operand, depth + 1)
            }
            _ => operand(out, id),
        }
    }

    fn write_depth(
        &self,
        out: &mut String,
        id: ValueId,
        operand: &dyn Fn(&mut String, ValueId),
        depth: u32,
    ) {
        let Some(v) = self.value(id) else {
            out.push_str("<badref>");
            return;
        };
        let ValueKind::Constant(c) = &v.kind else {
            operand(out, id);
            return;
        };
        if depth > 64 {
            out.push_str("<placeholder or erroneous Constant>");
            return;
        }
        let ty = v.ty;
        match c {
            Constant::Null => out.push_str(&self.null_text(ty)),
            Constant::Undef => out.push_str("undef"),
            Constant::Int(i) => {
                let w = self.ty(ty).and_then(Type::int_width).unwrap_or(64);
                out.push_str(&format_int(*i, w));
            }
            Constant::WideInt(words) => {
                let w = self.ty(ty).and_then(Type::int_width).unwrap_or(64);
                out.push_str(&format_wide_int(words, w));
            }
            Constant::Float(bits) => {
                let w = self.ty(ty).and_then(Type::float_bits).unwrap_or(64);
                out.push_str(&format_float(*bits, w));
            }
            Constant::Aggregate(elems) => {
                let keys: Vec<ConstKey> = elems.iter().map(|e| self.key(*e)).collect();
                match self.aggregate_form(ty, &keys) {
                    AggForm::Zero => out.push_str("zeroinitializer"),
                    AggForm::Undef => out.push_str("undef"),
                    AggForm::Elements => self.write_elements(out, ty, elems, operand, depth),
                }
            }
            Constant::String(b) | Constant::CString(b) => {
                let mut bytes = b.clone();
                if matches!(c, Constant::CString(_)) {
                    bytes.push(0);
                }
                if bytes.iter().all(|&x| x == 0) {
                    out.push_str("zeroinitializer");
                } else {
                    self.write_data_bytes(out, ty, &bytes);
                }
            }
            Constant::Data(d) => {
                if d.iter().all(|&x| x == 0) {
                    out.push_str("zeroinitializer");
                } else {
                    self.write_data(out, ty, d);
                }
            }
            Constant::Cast { op, value } => {
                out.push_str(op.name());
                out.push_str(" (");
                let vty = self.value(*value).map(|v| v.ty).unwrap_or(ty);
                self.write_typed(out, vty, *value, operand, depth);
                out.push_str(" to ");
                out.push_str(&type_name(self.m, ty));
                out.push(')');
            }
            Constant::Binary {
                op,
                lhs,
                rhs,
                flags,
            } => {
                let lty = self.value(*lhs).map(|v| v.ty).unwrap_or(ty);
                let float = self.ty(lty).is_some_and(type_is_fp);
                out.push_str(op.name(float));
                out.push_str(&binary_flags(*op, float, *flags as u8));
                out.push_str(" (");
                self.write_typed(out, lty, *lhs, operand, depth);
                out.push_str(", ");
                let rty = self.value(*rhs).map(|v| v.ty).unwrap_or(ty);
                self.write_typed(out, rty, *rhs, operand, depth);
                out.push(')');
            }
            Constant::Gep {
                inbounds,
                source_ty,
                operands,
            } => {
                out.push_str("getelementptr");
                if *inbounds {
                    out.push_str(" inbounds");
                }
                out.push_str(" (");
                let base_ty = operands.first().and_then(|b| self.value(*b)).map(|v| v.ty);
                let src = source_ty.or_else(|| {
                    base_ty.and_then(|t| match self.ty(t) {
                        Some(Type::Pointer { pointee, .. }) => Some(*pointee),
                        _ => None,
                    })
                });
                if let Some(src) = src {
                    out.push_str(&type_name(self.m, src));
                    out.push_str(", ");
                }
                for (i, o) in operands.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    let oty = self.value(*o).map(|v| v.ty).unwrap_or(ty);
                    self.write_typed(out, oty, *o, operand, depth);
                }
                out.push(')');
            }
            Constant::Select {
                cond,
                if_true,
                if_false,
            } => {
                out.push_str("select (");
                self.write_operands(out, &[*cond, *if_true, *if_false], ty, operand, depth);
                out.push(')');
            }
            Constant::Cmp { pred, lhs, rhs } => {
                out.push_str(if pred.is_float() { "fcmp " } else { "icmp " });
                out.push_str(pred.name());
                out.push_str(" (");
                self.write_operands(out, &[*lhs, *rhs], ty, operand, depth);
                out.push(')');
            }
            Constant::ExtractElement { vector, index } => {
                out.push_str("extractelement (");
                self.write_operands(out, &[*vector, *index], ty, operand, depth);
                out.push(')');
            }
            Constant::InsertElement {
                vector,
                element,
                index,
            } => {
                out.push_str("insertelement (");
                self.write_operands(out, &[*vector, *element, *index], ty, operand, depth);
                out.push(')');
            }
            Constant::ShuffleVector { a, b, mask } => {
                out.push_str("shufflevector (");
                self.write_operands(out, &[*a, *b, *mask], ty, operand, depth);
                out.push(')');
            }
            Constant::BlockAddress { function, block } => {
                out.push_str("blockaddress(");
                operand(out, *function);
                let _ = write!(out, ", %{block})");
            }
            Constant::Raw { code, .. } => {
                let _ = write!(out, "<constant record {code}>");
            }
        }
    }

    fn write_operands(
        &self,
        out: &mut String,
        ops: &[ValueId],
        ty: TypeId,
        operand: &dyn Fn(&mut String, ValueId),
        depth: u32,
    ) {
        for (i, o) in ops.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            let oty = self.value(*o).map(|v| v.ty).unwrap_or(ty);
            self.write_typed(out, oty, *o, operand, depth);
        }
    }

    /// The text of a null constant of type `ty`.
    fn null_text(&self, ty: TypeId) -> String {
        match self.ty(ty) {
            Some(Type::Integer(1)) => "false".to_owned(),
            Some(Type::Integer(_)) => "0".to_owned(),
            Some(t) if type_is_fp(t) => format_float(0, t.float_bits().unwrap_or(64)),
            Some(Type::Pointer { .. }) => "null".to_owned(),
            Some(Type::Token) => "none".to_owned(),
            _ => "zeroinitializer".to_owned(),
        }
    }

    fn write_elements(
        &self,
        out: &mut String,
        ty: TypeId,
        elems: &[ValueId],
        operand: &dyn Fn(&mut String, ValueId),
        depth: u32,
    ) {
        match self.ty(ty) {
            Some(Type::Struct { packed, .. }) => {
                if *packed {
                    out.push('<');
                }
                out.push('{');
                if !elems.is_empty() {
                    out.push(' ');
                    for (i, e) in elems.iter().enumerate() {
                        if i > 0 {
                            out.push_str(", ");
                        }
                        let ety = self.element_type(ty, i).unwrap_or(ty);
                        let ety = self.value(*e).map(|v| v.ty).unwrap_or(ety);
                        self.write_typed(out, ety, *e, operand, depth);
                    }
                    out.push(' ');
                }
                out.push('}');
                if *packed {
                    out.push('>');
                }
            }
            Some(Type::Array { element, .. }) => {
                // An array of i8 whose elements are all plain integers is a
                // ConstantDataArray, printed as a string.
                if self.ty(*element) == Some(&Type::Integer(8))
                    && let Some(bytes) = self.all_int_bytes(elems)
                {
                    out.push_str("c\"");
                    push_escaped(out, &bytes);
                    out.push('"');
                    return;
                }
                out.push('[');
                for (i, e) in elems.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.write_typed(out, *element, *e, operand, depth);
                }
                out.push(']');
            }
            Some(Type::Vector { element, .. }) => {
                out.push('<');
                for (i, e) in elems.iter().enumerate() {
                    if i > 0 {
                        out.push_str(", ");
                    }
                    self.write_typed(out, *element, *e, operand, depth);
                }
                out.push('>');
            }
            _ => out.push_str("<placeholder or erroneous Constant>"),
        }
    }

    /// The bytes of an i8 aggregate whose elements are all integer constants.
    fn all_int_bytes(&self, elems: &[ValueId]) -> Option<Vec<u8>> {
        elems
            .iter()
            .map(|e| match &self.value(*e)?.kind {
                ValueKind::Constant(Constant::Int(i)) => Some(*i as u8),
                ValueKind::Constant(Constant::Null) => Some(0),
                _ => None,
            })
            .collect()
    }

    fn write_data_bytes(&self, out: &mut String, ty: TypeId, bytes: &[u8]) {
        match self.ty(ty) {
            Some(Type::Array { .. }) => {
                out.push_str("c\"");
                push_escaped(out, bytes);
                out.push('"');
            }
            _ => {
                let words: Vec<u64> = bytes.iter().map(|&b| u64::from(b)).collect();
                self.write_data(out, ty, &words);
            }
        }
    }

    fn write_data(&self, out: &mut String, ty: TypeId, data: &[u64]) {
        let (open, close, element) = match self.ty(ty) {
            Some(Type::Array { element, .. }) => ('[', ']', *element),
            Some(Type::Vector { element, .. }) => ('<', '>', *element),
            _ => {
                out.push_str("<placeholder or erroneous Constant>");
                return;
            }
        };
        if open == '[' && self.ty(element) == Some(&Type::Integer(8)) {
            let bytes: Vec<u8> = data.iter().map(|&d| d as u8).collect();
            out.push_str("c\"");
            push_escaped(out, &bytes);
            out.push('"');
            return;
        }
        let ename = type_name(self.m, element);
        out.push(open);
        for (i, d) in data.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            out.push_str(&ename);
            out.push(' ');
            match self.ty(element) {
                Some(Type::Integer(w)) => out.push_str(&format_int(*d as i64, *w)),
                Some(t) if type_is_fp(t) => {
                    out.push_str(&format_float(*d, t.float_bits().unwrap_or(64)))
                }
                _ => out.push_str(&d.to_string()),
            }
        }
        out.push(close);
    }
}

enum AggForm {
    Zero,
    Undef,
    Elements,
}

/// Whether a type is a floating-point scalar or a vector of them (LLVM's
/// `isFPOrFPVectorTy`, without the module to look through vectors: see
/// [`type_is_fp_or_fp_vector`]).
pub fn type_is_fp(t: &Type) -> bool {
    t.is_float()
}

/// Whether `ty` is a floating-point scalar or a vector of floating-point values.
pub fn type_is_fp_or_fp_vector(m: &Module, ty: TypeId) -> bool {
    match m.ty(ty) {
        Some(Type::Vector { element, .. }) => m.ty(*element).is_some_and(Type::is_float),
        Some(t) => t.is_float(),
        None => false,
    }
}

/// The `nuw`/`nsw`/`exact` or fast-math flags of a binary operator as LLVM 3.7 prints
/// them (`WriteOptimizationInfo`): fast-math flags for floating-point operators
/// (`fast` alone when unsafe-algebra is set, else `nnan ninf nsz arcp` as set; bitcode
/// bits 0 unsafe-algebra, 1 nnan, 2 ninf, 3 nsz, 4 arcp); `nuw` (bit 0) then `nsw`
/// (bit 1) for `add`, `sub`, `mul`, `shl`; `exact` (bit 0) for `udiv`, `sdiv`,
/// `lshr`, `ashr`.
pub fn binary_flags(op: crate::dxil::llvm::BinOp, float: bool, flags: u8) -> String {
    use crate::dxil::llvm::BinOp::*;
    if float {
        return fast_math_text(flags);
    }
    let mut s = String::new();
    match op {
        Add | Sub | Mul | Shl => {
            if flags & 1 != 0 {
                s.push_str(" nuw");
            }
            if flags & 2 != 0 {
                s.push_str(" nsw");
            }
        }
        UDiv | SDiv | LShr | AShr if flags & 1 != 0 => s.push_str(" exact"),
        _ => {}
    }
    s
}

/// Fast-math flags as LLVM 3.7 prints them (see [`binary_flags`]).
pub fn fast_math_text(flags: u8) -> String {
    if flags & 1 != 0 {
        return " fast".to_owned();
    }
    let mut s = String::new();
    for (bit, name) in [(2, " nnan"), (4, " ninf"), (8, " nsz"), (16, " arcp")] {
        if flags & bit != 0 {
            s.push_str(name);
        }
    }
    s
}

/// Whether an identifier needs quotes in LLVM assembly (`PrintLLVMName`): it starts
/// with a digit or holds a character other than letters, digits, `-`, `.`, `_`.
fn needs_quotes(name: &[u8]) -> bool {
    match name.first() {
        None => true,
        Some(c) if c.is_ascii_digit() => true,
        _ => name
            .iter()
            .any(|&c| !(c.is_ascii_alphanumeric() || c == b'-' || c == b'.' || c == b'_')),
    }
}

/// Appends a name with its sigil (`%`, `@`, or none for labels) as LLVM's
/// `PrintLLVMName` spells it: bare when it is a simple identifier, else quoted and
/// escaped.
pub fn push_llvm_name(out: &mut String, prefix: &str, name: &str) {
    out.push_str(prefix);
    if needs_quotes(name.as_bytes()) {
        out.push('"');
        push_escaped(out, name.as_bytes());
        out.push('"');
    } else {
        out.push_str(name);
    }
}

/// A type as LLVM 3.7's `TypePrinting::print` spells it: named structures by name,
/// literal structures by their body.
pub fn type_name(m: &Module, ty: TypeId) -> String {
    let mut s = String::new();
    push_type(&mut s, m, ty, 0);
    s
}

fn push_type(out: &mut String, m: &Module, ty: TypeId, depth: u32) {
    if depth > 256 {
        out.push_str("<type nesting too deep>");
        return;
    }
    let Some(t) = m.ty(ty) else {
        out.push_str("<badtype>");
        return;
    };
    match t {
        Type::Void => out.push_str("void"),
        Type::Half => out.push_str("half"),
        Type::Float => out.push_str("float"),
        Type::Double => out.push_str("double"),
        Type::X86Fp80 => out.push_str("x86_fp80"),
        Type::Fp128 => out.push_str("fp128"),
        Type::PpcFp128 => out.push_str("ppc_fp128"),
        Type::X86Mmx => out.push_str("x86_mmx"),
        Type::Label => out.push_str("label"),
        Type::Metadata => out.push_str("metadata"),
        Type::Token => out.push_str("token"),
        Type::Integer(w) => {
            let _ = write!(out, "i{w}");
        }
        Type::Function {
            vararg,
            ret,
            params,
        } => {
            push_type(out, m, *ret, depth + 1);
            out.push_str(" (");
            for (i, p) in params.iter().enumerate() {
                if i > 0 {
                    out.push_str(", ");
                }
                push_type(out, m, *p, depth + 1);
            }
            if *vararg {
                if !params.is_empty() {
                    out.push_str(", ");
                }
                out.push_str("...");
            }
            out.push(')');
        }
        Type::Struct { name: Some(n), .. } => push_llvm_name(out, "%", n),
        Type::Struct { name: None, .. } => push_struct_body(out, m, ty, depth),
        Type::Pointer {
            pointee,
            address_space,
        } => {
            push_type(out, m, *pointee, depth + 1);
            if *address_space != 0 {
                let _ = write!(out, " addrspace({address_space})");
            }
            out.push('*');
        }
        Type::Array { len, element } => {
            let _ = write!(out, "[{len} x ");
            push_type(out, m, *element, depth + 1);
            out.push(']');
        }
        Type::Vector { len, element } => {
            let _ = write!(out, "<{len} x ");
            push_type(out, m, *element, depth + 1);
            out.push('>');
        }
    }
}

/// A structure's body (`{ i32, float }`, `<{ … }>`, `{}`, `opaque`), LLVM's
/// `printStructBody`.
pub fn struct_body(m: &Module, ty: TypeId) -> String {
    let mut s = String::new();
    push_struct_body(&mut s, m, ty, 0);
    s
}

fn push_struct_body(out: &mut String, m: &Module, ty: TypeId, depth: u32) {
    let Some(Type::Struct {
        packed,
        elements,
        opaque,
        ..
    }) = m.ty(ty)
    else {
        push_type(out, m, ty, depth + 1);
        return;
    };
    if *opaque {
        out.push_str("opaque");
        return;
    }
    if *packed {
        out.push('<');
    }
    if elements.is_empty() {
        out.push_str("{}");
    } else {
        out.push_str("{ ");
        for (i, e) in elements.iter().enumerate() {
            if i > 0 {
                out.push_str(", ");
            }
            push_type(out, m, *e, depth + 1);
        }
        out.push_str(" }");
    }
    if *packed {
        out.push('>');
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// LLVM 3.7 `WriteConstantInternal`: exactly representable values in `%e` form,
    /// others as the hex of the double (source: lib/IR/AsmWriter.cpp).
    #[test]
    fn floats_as_llvm_prints_them() {
        assert_eq!(format_float(1.0f32.to_bits().into(), 32), "1.000000e+00");
        assert_eq!(format_float(0.5f32.to_bits().into(), 32), "5.000000e-01");
        assert_eq!(
            format_float((-1.0f32).to_bits().into(), 32),
            "-1.000000e+00"
        );
        assert_eq!(format_float(0, 32), "0.000000e+00");
        assert_eq!(
            format_float((-0.0f32).to_bits().into(), 32),
            "-0.000000e+00"
        );
        assert_eq!(
            format_float(0.1f32.to_bits().into(), 32),
            "0x3FB99999A0000000"
        );
        assert_eq!(format_float(1.0f64.to_bits(), 64), "1.000000e+00");
        // A double whose %e text reads back exactly is printed as text.
        assert_eq!(format_float(0.1f64.to_bits(), 64), "1.000000e-01");
        assert_eq!(
            format_float(0.123_456_789f64.to_bits(), 64),
            "0x3FBF9ADD3739635F"
        );
        assert_eq!(
            format_float(f32::INFINITY.to_bits().into(), 32),
            "0x7FF0000000000000"
        );
        assert_eq!(format_float(0x7fc0_0000, 32), "0x7FF8000000000000");
        assert_eq!(format_float(1e10f32.to_bits().into(), 32), "1.000000e+10");
        assert_eq!(
            format_float(65504.0f32.to_bits().into(), 32),
            "6.550400e+04"
        );
        assert_eq!(format_float(0x3c00, 16), "0xH3C00");
        assert_eq!(
            format_float(1e-5f32.to_bits().into(), 32),
            "0x3EE4F8B580000000"
        );
        assert_eq!(format_float(1e100f64.to_bits(), 64), "1.000000e+100");
    }

    /// APInt prints signed decimal at the type's width; i1 prints true/false.
    #[test]
    fn integers_as_llvm_prints_them() {
        assert_eq!(format_int(-1, 32), "-1");
        assert_eq!(format_int(255, 8), "-1");
        assert_eq!(format_int(0xffff_ffff, 32), "-1");
        assert_eq!(format_int(7, 32), "7");
        assert_eq!(format_int(1, 1), "true");
        assert_eq!(format_int(0, 1), "false");
        assert_eq!(format_int(i64::MIN, 64), "-9223372036854775808");
        assert_eq!(format_wide_int(&[5, 0], 128), "5");
        assert_eq!(format_wide_int(&[-1, -1], 128), "-1");
    }

    #[test]
    fn names_are_quoted_when_needed() {
        let mut s = String::new();
        push_llvm_name(&mut s, "@", "\u{1}?g@@3_KA");
        assert_eq!(s, "@\"\\01?g@@3_KA\"");
        let mut s = String::new();
        push_llvm_name(&mut s, "%", "dx.types.Handle");
        assert_eq!(s, "%dx.types.Handle");
        let mut s = String::new();
        push_llvm_name(&mut s, "%", "class.Texture2D<vector<float, 4> >");
        assert_eq!(s, "%\"class.Texture2D<vector<float, 4> >\"");
    }
}
