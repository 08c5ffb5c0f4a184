//! What a user may name (a `Place`) and the conditions of breakpoints ([`Cond`]).
//!
//! Places, in the program's terms:
//!
//! | spelling | what |
//! |---|---|
//! | `r3`, `r3.xy`, `vThreadID.x` | DXBC temporaries and inputs, with a swizzle |
//! | `%42`, `%name`, `%agg[1]` | DXIL values (a leaf of an aggregate by index) |
//! | `r12` | IR registers (programs written in the IR's text form) |
//! | `x0[2].y` | a component of element 2 of an indexable temporary (DXBC; 16 bytes per element) or word 2 of a local array (DXIL, IR) |
//! | `cb0[2].y` | row 2, component y of the constant buffer at `b0` (DXBC spelling; 16 bytes per row) |
//! | `u0[5]`, `t1[3]` | element 5 of the UAV or SRV bound at the register: a structured element, a typed element, a raw buffer's 4-byte word, a texture's texel in linear order of mip 0 |
//! | `gs[7]` | 4-byte word 7 of group shared memory |
//!
//! Conditions compare places and numbers with `==`, `!=`, `<`, `<=`, `>`, `>=`, joined by
//! `&&`, `||`, `!` and parentheses: `r0.x > 4`, `%12 == 0 && r1.y != 0`. A comparison is
//! made as floats when either side is a float (by type, or a literal with a point,
//! exponent, `nan` or `inf`), as signed integers when either side is a negative literal
//! or a signed value, otherwise as unsigned integers.

/// A position in a condition or command, for messages.
fn err(what: impl Into<String>, text: &str, at: usize) -> String {
    format!("{} at column {} of `{text}`", what.into(), at + 1)
}

/// A name and what follows it, before it is resolved against the program.
#[derive(Debug, Clone, PartialEq)]
pub struct PlaceText {
    /// The name (`r3`, `%42`, `cb0`, `u0`, `gs`).
    pub name: String,
    /// `[n]`, if given.
    pub index: Option<u64>,
    /// The components after a `.` (`xy` → `[0, 1]`), if given.
    pub swizzle: Option<Vec<usize>>,
    /// The text as written (`p.x`, `m[1][2]`, `a[2].pos`): an HLSL variable's path,
    /// which may go on past one index and swizzle.
    pub spelling: String,
    /// The spelling goes on past what a program place can name (a second index, a
    /// member after an index): only an HLSL variable can be named so.
    pub hlsl_only: bool,
}

/// A literal number.
#[derive(Debug, Clone, Copy, PartialEq)]
pub enum Number {
    /// An integer (signed when negative).
    Int(i64),
    /// A float.
    Float(f32),
}

/// A side of a comparison.
#[derive(Debug, Clone, PartialEq)]
pub enum Operand {
    /// A place (one component).
    Place(PlaceText),
    /// A number.
    Number(Number),
}

/// A comparison operator.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum CmpOp {
    /// `==`
    Eq,
    /// `!=`
    Ne,
    /// `<`
    Lt,
    /// `<=`
    Le,
    /// `>`
    Gt,
    /// `>=`
    Ge,
}

/// A breakpoint condition.
#[derive(Debug, Clone, PartialEq)]
pub enum Cond {
    /// A comparison.
    Cmp(Operand, CmpOp, Operand),
    /// A place alone: true when non-zero.
    Truthy(Operand),
    /// Both.
    And(Box<Cond>, Box<Cond>),
    /// Either.
    Or(Box<Cond>, Box<Cond>),
    /// Not.
    Not(Box<Cond>),
}

/// The most nesting a condition may have (bounds the parser's recursion on hostile
/// scripts).
pub const MAX_DEPTH: usize = 32;

struct P<'a> {
    s: &'a str,
    b: &'a [u8],
    i: usize,
    depth: usize,
}

impl P<'_> {
    fn ws(&mut self) {
        while self.i < self.b.len() && self.b[self.i].is_ascii_whitespace() {
            self.i += 1;
        }
    }
    fn eat(&mut self, t: &str) -> bool {
        self.ws();
        if self.s[self.i..].starts_with(t) {
            self.i += t.len();
            true
        } else {
            false
        }
    }
    fn done(&mut self) -> bool {
        self.ws();
        self.i >= self.b.len()
    }
    fn e(&self, what: &str) -> String {
        err(what, self.s, self.i)
    }

    fn or(&mut self) -> Result<Cond, String> {
        let mut l = self.and()?;
        while self.eat("||") {
            let r = self.and()?;
            l = Cond::Or(Box::new(l), Box::new(r));
        }
        Ok(l)
    }
    fn and(&mut self) -> Result<Cond, String> {
        let mut l = self.not()?;
        while self.eat("&&") {
            let r = self.not()?;
            l = Cond::And(Box::new(l), Box::new(r));
        }
        Ok(l)
    }
    fn not(&mut self) -> Result<Cond, String> {
        self.depth += 1;
        if self.depth > MAX_DEPTH {
            return Err(self.e(&format!("more than {MAX_DEPTH} levels of nesting")));
        }
        let r = if self.s[self.i..].trim_start().starts_with("!=") {
            self.cmp()
        } else if self.eat("!") {
            Ok(Cond::Not(Box::new(self.not()?)))
        } else if self.eat("(") {
            let c = self.or()?;
            if !self.eat(")") {
                return Err(self.e("expected `)`"));
            }
            Ok(c)
        } else {
            self.cmp()
        };
        self.depth -= 1;
        r
    }
    fn cmp(&mut self) -> Result<Cond, String> {
        let a = self.operand()?;
        self.ws();
        let op = [
            ("==", CmpOp::Eq),
            ("!=", CmpOp::Ne),
            ("<=", CmpOp::Le),
            (">=", CmpOp::Ge),
            ("<", CmpOp::Lt),
            (">", CmpOp::Gt),
        ]
        .into_iter()
        .find(|(t, _)| self.s[self.i..].starts_with(t));
        match op {
            Some((t, op)) => {
                self.i += t.len();
                let b = self.operand()?;
                Ok(Cond::Cmp(a, op, b))
            }
            None => Ok(Cond::Truthy(a)),
        }
    }
    fn operand(&mut self) -> Result<Operand, String> {
        self.ws();
        let start = self.i;
        let c = self.b.get(self.i).copied();
        match c {
            Some(b'-' | b'+' | b'0'..=b'9' | b'.') => {
                while self.i < self.b.len()
                    && (self.b[self.i].is_ascii_alphanumeric() || b"+-.".contains(&self.b[self.i]))
                {
                    // A sign is part of a number only at its start or after an exponent.
                    if (self.b[self.i] == b'-' || self.b[self.i] == b'+')
                        && self.i > start
                        && !matches!(self.b[self.i - 1], b'e' | b'E')
                    {
                        break;
                    }
                    self.i += 1;
                }
                parse_number(&self.s[start..self.i])
                    .map(Operand::Number)
                    .ok_or_else(|| {
                        err(
                            format!("`{}` is not a number", &self.s[start..self.i]),
                            self.s,
                            start,
                        )
                    })
            }
            Some(_) => {
                let p = place_at(self.s, &mut self.i)?;
                match p.name.as_str() {
                    "nan" | "NaN" | "inf" | "true" | "false"
                        if p.index.is_none() && p.swizzle.is_none() =>
                    {
                        Ok(Operand::Number(match p.name.as_str() {
                            "true" => Number::Int(-1),
                            "false" => Number::Int(0),
                            "inf" => Number::Float(f32::INFINITY),
                            _ => Number::Float(f32::NAN),
                        }))
                    }
                    _ => Ok(Operand::Place(p)),
                }
            }
            None => Err(self.e("expected a value")),
        }
    }
}

/// A number: decimal or `0x` hex integers, floats (`1.5`, `2e3`, `nan`, `inf`, `-inf`).
pub fn parse_number(t: &str) -> Option<Number> {
    let (neg, body) = match t.strip_prefix('-') {
        Some(b) => (true, b),
        None => (false, t.strip_prefix('+').unwrap_or(t)),
    };
    if let Some(h) = body.strip_prefix("0x").or_else(|| body.strip_prefix("0X")) {
        let v = i64::from(u32::from_str_radix(h, 16).ok()?);
        return Some(Number::Int(if neg { -v } else { v }));
    }
    if body.bytes().all(|c| c.is_ascii_digit()) && !body.is_empty() {
        let v: i64 = body.parse().ok()?;
        if v > i64::from(u32::MAX) {
            return None;
        }
        return Some(Number::Int(if neg { -v } else { v }));
    }
    let f: f32 = match body {
        "inf" => f32::INFINITY,
        "nan" | "NaN" => f32::NAN,
        _ => body.parse().ok()?,
    };
    Some(Number::Float(if neg { -f } else { f }))
}

/// The components of a swizzle (`xyzw` or `rgba`).
fn swizzle(t: &str) -> Option<Vec<usize>> {
    if t.is_empty() || t.len() > 4 {
        return None;
    }
    t.chars()
        .map(|c| match c {
            'x' | 'r' => Some(0),
            'y' | 'g' => Some(1),
            'z' | 'b' => Some(2),
            'w' | 'a' => Some(3),
            _ => None,
        })
        .collect()
}

fn place_at(s: &str, i: &mut usize) -> Result<PlaceText, String> {
    let b = s.as_bytes();
    let start = *i;
    let ok = |c: u8| c.is_ascii_alphanumeric() || b"_%$.".contains(&c);
    while *i < b.len() && ok(b[*i]) {
        *i += 1;
    }
    let word = &s[start..*i];
    if word.is_empty() {
        return Err(err("expected a register or value", s, start));
    }
    let mut index = None;
    let mut rest_swizzle = None;
    let mut hlsl_only = false;
    if *i < b.len() && b[*i] == b'[' {
        let close = s[*i..]
            .find(']')
            .ok_or_else(|| err("expected `]`", s, *i))?;
        let inner = s[*i + 1..*i + close].trim();
        let n = match parse_number(inner) {
            Some(Number::Int(n)) if n >= 0 => n as u64,
            _ => return Err(err(format!("`{inner}` is not an index"), s, *i + 1)),
        };
        index = Some(n);
        *i += close + 1;
        if *i < b.len() && b[*i] == b'.' {
            let st = *i + 1;
            *i = st;
            while *i < b.len() && b[*i].is_ascii_alphabetic() {
                *i += 1;
            }
            match swizzle(&s[st..*i]) {
                Some(sw) => rest_swizzle = Some(sw),
                // A struct member of an HLSL array element (`a[2].pos`).
                None if st < *i => hlsl_only = true,
                None => return Err(err("not a swizzle", s, st)),
            }
        }
        // More indices and members: an HLSL path (`m[1][2]`, `a[1].pos[0]`).
        while *i < b.len() && (b[*i] == b'[' || b[*i] == b'.') {
            hlsl_only = true;
            if b[*i] == b'[' {
                let close = s[*i..]
                    .find(']')
                    .ok_or_else(|| err("expected `]`", s, *i))?;
                *i += close + 1;
            } else {
                *i += 1;
                while *i < b.len() && (b[*i].is_ascii_alphanumeric() || b[*i] == b'_') {
                    *i += 1;
                }
            }
        }
    }
    Ok(PlaceText {
        name: word.to_string(),
        index,
        swizzle: rest_swizzle,
        spelling: s[start..*i].to_string(),
        hlsl_only,
    })
}

/// Reads a place from the whole of `t` (`r0.xy`, `%12`, `cb0[1].y`). A trailing
/// `.xyzw`-style part on a plain name is left in the name; [`split_swizzle`] takes it
/// off when the name alone is what the program knows.
pub fn parse_place(t: &str) -> Result<PlaceText, String> {
    let t = t.trim();
    let mut i = 0;
    let p = place_at(t, &mut i)?;
    if i != t.len() {
        return Err(err("unexpected text", t, i));
    }
    Ok(p)
}

/// `r0.xy` → (`r0`, `[0, 1]`), when the part after the last dot is a swizzle.
pub fn split_swizzle(name: &str) -> Option<(&str, Vec<usize>)> {
    let (a, b) = name.rsplit_once('.')?;
    Some((a, swizzle(b)?))
}

/// Parses a condition.
pub fn parse_cond(t: &str) -> Result<Cond, String> {
    let mut p = P {
        s: t,
        b: t.as_bytes(),
        i: 0,
        depth: 0,
    };
    if p.done() {
        return Err("an empty condition".into());
    }
    let c = p.or()?;
    if !p.done() {
        return Err(p.e("unexpected text"));
    }
    Ok(c)
}

/// Compares two values (bits and whether each is a float, a signed integer).
pub fn compare(op: CmpOp, a: Scalar, b: Scalar) -> bool {
    use std::cmp::Ordering;
    let ord = if a.float || b.float {
        let (x, y) = (a.as_f64(), b.as_f64());
        if x.is_nan() || y.is_nan() {
            return op == CmpOp::Ne;
        }
        x.partial_cmp(&y).unwrap_or(Ordering::Equal)
    } else if a.signed || b.signed {
        a.as_i64().cmp(&b.as_i64())
    } else {
        a.bits.cmp(&b.bits)
    };
    match op {
        CmpOp::Eq => ord == Ordering::Equal,
        CmpOp::Ne => ord != Ordering::Equal,
        CmpOp::Lt => ord == Ordering::Less,
        CmpOp::Le => ord != Ordering::Greater,
        CmpOp::Gt => ord == Ordering::Greater,
        CmpOp::Ge => ord != Ordering::Less,
    }
}

/// A value to compare.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct Scalar {
    /// Its bits (a float's as f32, an integer's as i64 when `signed`).
    pub bits: u64,
    /// A float.
    pub float: bool,
    /// A signed integer.
    pub signed: bool,
}

impl Scalar {
    /// A literal.
    pub fn number(n: Number) -> Scalar {
        match n {
            Number::Int(v) => Scalar {
                bits: v as u64,
                float: false,
                signed: v < 0,
            },
            Number::Float(f) => Scalar {
                bits: u64::from(f.to_bits()),
                float: true,
                signed: false,
            },
        }
    }
    fn as_f64(self) -> f64 {
        if self.float {
            f64::from(f32::from_bits(self.bits as u32))
        } else if self.signed {
            self.bits as i64 as f64
        } else {
            self.bits as f64
        }
    }
    fn as_i64(self) -> i64 {
        if self.signed {
            self.bits as i64
        } else {
            self.bits as u32 as i32 as i64
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Conditions parse with precedence (`&&` before `||`) and report bad text by column.
    #[test]
    fn conditions_parse() {
        let c = parse_cond("r0.x > 4 || %12 == 0 && !(cb0[2].y <= -1.5)").unwrap();
        assert!(matches!(c, Cond::Or(..)));
        let Cond::Cmp(Operand::Place(p), CmpOp::Gt, Operand::Number(Number::Int(4))) =
            parse_cond("r0.x > 4").unwrap()
        else {
            panic!()
        };
        assert_eq!(p.name, "r0.x");
        let p = parse_place("cb0[2].y").unwrap();
        assert_eq!((p.index, p.swizzle), (Some(2), Some(vec![1])));
        assert_eq!(split_swizzle("r0.xy"), Some(("r0", vec![0, 1])));
        assert!(
            parse_cond("r0.x >")
                .unwrap_err()
                .contains("expected a value")
        );
        assert!(parse_cond("r0.x > 4 )").unwrap_err().contains("column 10"));
        assert!(parse_cond("").is_err());
        assert!(
            parse_cond(&"(".repeat(100))
                .unwrap_err()
                .contains("nesting")
        );
        assert_eq!(parse_number("0x10"), Some(Number::Int(16)));
        assert_eq!(parse_number("-2"), Some(Number::Int(-2)));
        assert_eq!(parse_number("1e3"), Some(Number::Float(1000.0)));
        assert_eq!(parse_number("x"), None);
    }

    /// Floats compare as floats (NaN unordered), negatives as signed.
    #[test]
    fn comparisons_follow_the_types() {
        let f = |v: f32| Scalar::number(Number::Float(v));
        let i = |v: i64| Scalar::number(Number::Int(v));
        assert!(compare(CmpOp::Gt, f(4.5), i(4)));
        assert!(!compare(CmpOp::Eq, f(f32::NAN), f(f32::NAN)));
        assert!(compare(CmpOp::Ne, f(f32::NAN), i(0)));
        let u = Scalar {
            bits: 0xffff_ffff,
            float: false,
            signed: false,
        };
        assert!(compare(CmpOp::Gt, u, i(4)));
        assert!(compare(CmpOp::Lt, u, i(0)) || compare(CmpOp::Eq, u, i(-1)));
    }
}
