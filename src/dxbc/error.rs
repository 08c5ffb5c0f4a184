//! Errors of the token-program decoder: each names the part (`SHEX`/`SHDR`), the token
//! offset and the byte offset where decoding stopped.

use std::fmt;

use crate::container::{ContainerError, FourCc};

/// Where in a program part something was found: the part's tag and the offset of the
/// token, counted in 32-bit tokens from the start of the part's contents (the version
/// token is token 0).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Location {
    /// The program part, `SHEX` or `SHDR`.
    pub part: FourCc,
    /// The token offset from the start of the part's contents.
    pub token: u32,
}

impl Location {
    /// The byte offset from the start of the part's contents (`4 × token`).
    pub fn byte(&self) -> u64 {
        u64::from(self.token) * 4
    }
}

impl fmt::Display for Location {
    /// `token 0x1c4 (byte 0x710) of SHEX`.
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "token 0x{:x} (byte 0x{:x}) of {}",
            self.token,
            self.byte(),
            self.part
        )
    }
}

/// An error decoding a Shader Model 4–5 token program.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DxbcError {
    /// The container could not be read.
    #[error(transparent)]
    Container(#[from] ContainerError),
    /// The container holds no `SHEX` or `SHDR` part.
    #[error("container has no SHEX or SHDR program part")]
    NoProgram,
    /// The container's program is a Shader Model 6 (`DXIL`) program.
    #[error("container holds a {0} program, not a Shader Model 4-5 token program")]
    NotTokenProgram(FourCc),
    /// The part is not a whole number of tokens or cannot hold the version and length
    /// tokens.
    #[error(
        "{part} part of {bytes} bytes cannot hold a token program (version and length tokens, 4-byte tokens)"
    )]
    BadPartSize {
        /// The part.
        part: FourCc,
        /// Its size in bytes.
        bytes: usize,
    },
    /// The length token disagrees with the part's size.
    #[error("{part}: length token says {stated} tokens, but the part holds {actual}")]
    LengthMismatch {
        /// The part.
        part: FourCc,
        /// The length token.
        stated: u32,
        /// The tokens the part holds.
        actual: u32,
    },
    /// The version token names a program kind or shader model this decoder does not read.
    #[error(
        "{part}: unsupported program version {kind_code}.{major}.{minor} (Shader Model 4.0-5.1 vs/ps/gs/hs/ds/cs only)"
    )]
    UnsupportedVersion {
        /// The part.
        part: FourCc,
        /// The program-type field.
        kind_code: u16,
        /// Major version.
        major: u8,
        /// Minor version.
        minor: u8,
    },
    /// An opcode this decoder does not know (reserved or past the last defined one).
    #[error("unknown opcode {code} (0x{code:x}) at {at}")]
    UnknownOpcode {
        /// The 11-bit opcode.
        code: u16,
        /// Where.
        at: Location,
    },
    /// An instruction states a length of zero tokens.
    #[error("{mnemonic} states a length of 0 tokens at {at}")]
    ZeroLength {
        /// The opcode's mnemonic.
        mnemonic: &'static str,
        /// Where.
        at: Location,
    },
    /// An instruction's stated length runs past the end of the program.
    #[error(
        "{mnemonic} of {length} tokens runs past the end of the program ({remaining} tokens left) at {at}"
    )]
    PastEnd {
        /// The opcode's mnemonic.
        mnemonic: &'static str,
        /// The stated length.
        length: u32,
        /// Tokens left in the program.
        remaining: u32,
        /// Where the instruction starts.
        at: Location,
    },
    /// Reading an instruction's operands (or other tokens) needed more tokens than its
    /// stated length holds.
    #[error("{mnemonic} of {length} tokens needs a token past its end, reading {what} at {at}")]
    Truncated {
        /// The opcode's mnemonic.
        mnemonic: &'static str,
        /// The stated length.
        length: u32,
        /// What was being read.
        what: &'static str,
        /// Where the missing token would be.
        at: Location,
    },
    /// An instruction's operands ended before its stated length.
    #[error("{mnemonic} states {length} tokens but its operands end after {used} at {at}")]
    TrailingTokens {
        /// The opcode's mnemonic.
        mnemonic: &'static str,
        /// The stated length.
        length: u32,
        /// The tokens used.
        used: u32,
        /// Where the instruction starts.
        at: Location,
    },
    /// A field holds a value the format does not define.
    #[error("bad {what} {value} at {at}")]
    BadField {
        /// Which field.
        what: &'static str,
        /// The value found.
        value: u32,
        /// Where the token holding it is.
        at: Location,
    },
    /// An operand has an index dimension its register type does not allow.
    #[error("{register} operand with {found} indices (expected {expected}) at {at}")]
    BadIndexDimension {
        /// The register type's name.
        register: &'static str,
        /// The index dimension found.
        found: u8,
        /// What was expected, in words.
        expected: &'static str,
        /// Where the operand token is.
        at: Location,
    },
    /// A register of the wrong type where a declaration or instruction needs a given one.
    #[error("{context} needs a {expected} register, found {found} at {at}")]
    WrongRegister {
        /// The instruction or declaration.
        context: &'static str,
        /// The register type expected.
        expected: &'static str,
        /// The register type found.
        found: &'static str,
        /// Where the operand token is.
        at: Location,
    },
    /// A relative index whose register is itself relatively indexed, or does not select
    /// exactly one component.
    #[error("unsupported relative index: {reason} at {at}")]
    BadRelativeIndex {
        /// What is wrong.
        reason: &'static str,
        /// Where the index's operand token is.
        at: Location,
    },
    /// A 64-bit immediate index that does not fit in 32 bits.
    #[error("64-bit index 0x{value:x} does not fit in 32 bits at {at}")]
    IndexTooWide {
        /// The index.
        value: u64,
        /// Where.
        at: Location,
    },
    /// A custom-data block whose length or contents are inconsistent.
    #[error("bad custom-data block (class {class}): {reason} at {at}")]
    BadCustomData {
        /// The custom-data class.
        class: u32,
        /// What is wrong.
        reason: &'static str,
        /// Where the block starts.
        at: Location,
    },
}
