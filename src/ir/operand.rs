//! Operand kinds of IR instructions: how each prints, parses and exposes its registers.
//!
//! Every field of an [`Inst`](super::Inst) variant has a type implementing [`Operand`];
//! the instruction table in `inst.rs` derives printing, parsing and register visiting
//! from these impls, so a new operand kind is added here once.

use std::fmt;

use super::ids::{ConstId, LocalId, RangeId, Reg};
use super::parse::{ParseError, Tokens};
use super::shader::Shader;

/// How an instruction uses a register operand.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Role {
    /// Reads a 32-bit value.
    Read,
    /// Writes a 32-bit value.
    Write,
    /// Reads a 64-bit value from the register and the next.
    Read64,
    /// Writes a 64-bit value to the register and the next.
    Write64,
    /// Not a register operand.
    None,
}

impl Role {
    /// Whether the role writes.
    pub fn writes(self) -> bool {
        matches!(self, Role::Write | Role::Write64)
    }

    /// Whether the role covers two registers.
    pub fn is_wide(self) -> bool {
        matches!(self, Role::Read64 | Role::Write64)
    }
}

/// A field of an instruction.
pub trait Operand: Sized {
    /// Prints the field as the text form spells it.
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result;
    /// Parses the field from the text form.
    fn parse(t: &mut Tokens<'_>) -> Result<Self, ParseError>;
    /// Calls `v` with each register this field names (none for non-register fields;
    /// [`Reg::NONE`] entries are skipped).
    fn visit(&self, _role: Role, _v: &mut dyn FnMut(Role, Reg)) {}
    /// Calls `v` with a mutable reference to each register this field names.
    fn visit_mut(&mut self, _role: Role, _v: &mut dyn FnMut(Role, &mut Reg)) {}
}

impl Operand for Reg {
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        if self.is_none() {
            f.write_str("_")
        } else {
            write!(f, "{self}")
        }
    }
    fn parse(t: &mut Tokens<'_>) -> Result<Self, ParseError> {
        let w = t.word()?;
        if w == "_" {
            return Ok(Reg::NONE);
        }
        let n = t.indexed(w, Reg::PREFIX)?;
        // The highest number is `_`'s: written as a number it would be an operand the
        // validator cannot see.
        if n > Shader::MAX_REGS {
            return Err(t.error(format!(
                "register `{w}` is past the most a program may have ({})",
                Shader::MAX_REGS
            )));
        }
        Ok(Reg(n))
    }
    fn visit(&self, role: Role, v: &mut dyn FnMut(Role, Reg)) {
        if !self.is_none() {
            v(role, *self)
        }
    }
    fn visit_mut(&mut self, role: Role, v: &mut dyn FnMut(Role, &mut Reg)) {
        if !self.is_none() {
            v(role, self)
        }
    }
}

impl<const N: usize> Operand for [Reg; N] {
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("[")?;
        for (i, r) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            r.print(f)?;
        }
        f.write_str("]")
    }
    fn parse(t: &mut Tokens<'_>) -> Result<Self, ParseError> {
        t.expect("[")?;
        let mut out = [Reg::NONE; N];
        for r in out.iter_mut() {
            *r = Reg::parse(t)?;
        }
        t.expect("]")?;
        Ok(out)
    }
    fn visit(&self, role: Role, v: &mut dyn FnMut(Role, Reg)) {
        for r in self {
            r.visit(role, v);
        }
    }
    fn visit_mut(&mut self, role: Role, v: &mut dyn FnMut(Role, &mut Reg)) {
        for r in self {
            r.visit_mut(role, v);
        }
    }
}

/// A boxed register list (an instruction with many register operands keeps `Inst` small
/// by boxing them: `rq_trace`'s ray); spelled as the list is.
impl<const N: usize> Operand for Box<[Reg; N]> {
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        (**self).print(f)
    }
    fn parse(t: &mut Tokens<'_>) -> Result<Self, ParseError> {
        Ok(Box::new(<[Reg; N]>::parse(t)?))
    }
    fn visit(&self, role: Role, v: &mut dyn FnMut(Role, Reg)) {
        (**self).visit(role, v)
    }
    fn visit_mut(&mut self, role: Role, v: &mut dyn FnMut(Role, &mut Reg)) {
        (**self).visit_mut(role, v)
    }
}

macro_rules! int_operand {
    ($($t:ty),*) => {$(
        impl Operand for $t {
            fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{self}")
            }
            fn parse(t: &mut Tokens<'_>) -> Result<Self, ParseError> {
                let w = t.word()?;
                w.parse().map_err(|_| t.error(format!("expected a number, found `{w}`")))
            }
        }
    )*};
}
int_operand!(u8, u16, u32, i8, i32);

impl Operand for bool {
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{self}")
    }
    fn parse(t: &mut Tokens<'_>) -> Result<Self, ParseError> {
        match t.word()? {
            "true" => Ok(true),
            "false" => Ok(false),
            w => Err(t.error(format!("expected true or false, found `{w}`"))),
        }
    }
}

impl<const N: usize> Operand for [i8; N] {
    fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str("(")?;
        for (i, x) in self.iter().enumerate() {
            if i > 0 {
                f.write_str(" ")?;
            }
            write!(f, "{x}")?;
        }
        f.write_str(")")
    }
    fn parse(t: &mut Tokens<'_>) -> Result<Self, ParseError> {
        t.expect("(")?;
        let mut out = [0i8; N];
        for x in out.iter_mut() {
            *x = i8::parse(t)?;
        }
        t.expect(")")?;
        Ok(out)
    }
}

macro_rules! id_operand {
    ($($t:ident),*) => {$(
        impl Operand for $t {
            fn print(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{self}")
            }
            fn parse(t: &mut Tokens<'_>) -> Result<Self, ParseError> {
                let w = t.word()?;
                t.indexed(w, $t::PREFIX).map($t)
            }
        }
    )*};
}
id_operand!(LocalId, ConstId, RangeId);

/// Declares a field enum: a plain `Copy` enum whose variants print as the given words.
macro_rules! word_enum {
    ($(#[$doc:meta])* $name:ident { $($(#[$vdoc:meta])* $variant:ident = $word:literal),* $(,)? }) => {
        $(#[$doc])*
        #[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
        pub enum $name {
            $($(#[$vdoc])* $variant),*
        }

        impl $name {
            /// Every value, in declaration order.
            pub const ALL: &'static [$name] = &[$($name::$variant),*];

            /// The word the text form uses.
            pub fn word(self) -> &'static str {
                match self {
                    $($name::$variant => $word),*
                }
            }
        }

        impl std::fmt::Display for $name {
            fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.word())
            }
        }

        #[cfg(test)]
        impl $crate::ir::props::Example for $name {
            fn example(_: &mut u32) -> Self {
                $name::ALL[0]
            }
            fn others() -> Vec<Self> {
                $name::ALL[1..].to_vec()
            }
        }

        impl $crate::ir::operand::Operand for $name {
            fn print(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(self.word())
            }
            fn parse(t: &mut $crate::ir::parse::Tokens<'_>) -> Result<Self, $crate::ir::parse::ParseError> {
                let w = t.word()?;
                $name::ALL
                    .iter()
                    .copied()
                    .find(|v| v.word() == w)
                    .ok_or_else(|| t.error(format!(concat!("expected a ", stringify!($name), ", found `{}`"), w)))
            }
        }
    };
}
pub(crate) use word_enum;
