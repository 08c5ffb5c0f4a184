//! Typed indices: registers, blocks, instructions, arrays and resource ranges.
//!
//! Each is a `u32` newtype whose `Display` is the printer's spelling (`r12`, `block3`).

use std::fmt;

macro_rules! entity {
    ($(#[$doc:meta])* $name:ident, $prefix:literal) => {
        $(#[$doc])*
        #[derive(Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, Default)]
        pub struct $name(pub u32);

        impl $name {
            /// The printer's prefix for this kind of index.
            pub const PREFIX: &'static str = $prefix;

            /// The index as a `usize`, for indexing tables.
            #[inline(always)]
            pub fn index(self) -> usize {
                self.0 as usize
            }
        }

        impl fmt::Display for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                write!(f, "{}{}", $prefix, self.0)
            }
        }

        impl fmt::Debug for $name {
            fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
                fmt::Display::fmt(self, f)
            }
        }
    };
}

entity!(
    /// A register: one 32-bit slot per lane. A 64-bit value occupies two consecutive
    /// registers, low half first; the operand names the first.
    Reg,
    "r"
);
entity!(
    /// A basic block: its index in [`crate::ir::Shader::blocks`].
    BlockId,
    "block"
);
entity!(
    /// An instruction: its index in [`crate::ir::Shader::insts`].
    InstId,
    "inst"
);
entity!(
    /// A per-lane, byte-addressed private array (DXBC indexable temps `x#`, DXIL `alloca`s).
    LocalId,
    "x"
);
entity!(
    /// A read-only array shared by all lanes (DXBC immediate constant buffer, DXIL
    /// constant global arrays).
    ConstId,
    "icb"
);
entity!(
    /// A resource range the shader declares: its index in [`crate::ir::Shader::resources`].
    RangeId,
    "range"
);

impl Reg {
    /// "No register": an unused slot of a fixed-size operand list (`[Reg; 4]`) or an
    /// absent optional result. Printed as `_`.
    pub const NONE: Reg = Reg(u32::MAX);

    /// Whether this is [`Reg::NONE`].
    #[inline(always)]
    pub fn is_none(self) -> bool {
        self == Reg::NONE
    }

    /// The other half of a 64-bit pair.
    #[inline(always)]
    pub fn hi(self) -> Reg {
        Reg(self.0.wrapping_add(1))
    }
}
