//! The instruction stream: from a `SHEX`/`SHDR` part to a typed [`Program`].
//!
//! Owns: the version and length tokens, walking instructions by their stated lengths,
//! extended opcode tokens, the operands of executable instructions, custom-data blocks,
//! and the checks that every instruction's tokens add up (seed 002: "Opcode Format",
//! "Extended Opcode Format", "Custom-Data Block Format").
//!
//! Does not own: the layouts of declarations (see [`super::decl`]) and operands (see
//! [`super::operand`]); printing (see [`mod@super::listing`]).

use std::ops::Range;

use crate::container::{Container, FourCc, Part, ProgramKind, ProgramVersion};

use super::decl::{
    CustomData, Declaration, HullPhase, ResourceDimension, ReturnType, read_custom_data,
    read_declaration,
};
use super::error::{DxbcError, Location};
use super::opcode::{Opcode, OpcodeClass, OpcodeInfo};
use super::operand::{ComponentMask, Components, Operand, RegisterType, read_operand_into};
use super::token::{ExtendedOpcodeToken, OpcodeToken, extended_opcode_type};

/// Reads the tokens of one instruction, never past its end.
#[derive(Debug, Clone)]
pub(super) struct Cursor<'a> {
    tokens: &'a [u32],
    pos: usize,
    part: FourCc,
    base: u32,
    mnemonic: &'static str,
}

impl<'a> Cursor<'a> {
    /// A cursor over `tokens` (one instruction), the first of which is token `base` of
    /// part `part`.
    pub(super) fn new(tokens: &'a [u32], part: FourCc, base: u32, mnemonic: &'static str) -> Self {
        Cursor {
            tokens,
            pos: 0,
            part,
            base,
            mnemonic,
        }
    }

    /// The location of token `i` of the instruction.
    fn location_of(&self, i: usize) -> Location {
        Location {
            part: self.part,
            token: self
                .base
                .saturating_add(u32::try_from(i).unwrap_or(u32::MAX)),
        }
    }

    /// The location of the next token.
    pub(super) fn location(&self) -> Location {
        self.location_of(self.pos)
    }

    /// The location of the instruction's first token.
    pub(super) fn start(&self) -> Location {
        self.location_of(0)
    }

    /// The number of tokens read.
    pub(super) fn used(&self) -> usize {
        self.pos
    }

    /// The number of tokens left.
    pub(super) fn remaining(&self) -> usize {
        self.tokens.len().saturating_sub(self.pos)
    }

    /// The instruction's length in tokens.
    fn length(&self) -> u32 {
        u32::try_from(self.tokens.len()).unwrap_or(u32::MAX)
    }

    /// The next token, or [`DxbcError::Truncated`] naming `what` if the instruction ends.
    #[inline]
    pub(super) fn next(&mut self, what: &'static str) -> Result<u32, DxbcError> {
        match self.tokens.get(self.pos) {
            Some(&t) => {
                self.pos = self.pos.wrapping_add(1);
                Ok(t)
            }
            None => Err(self.truncated(what)),
        }
    }

    fn truncated(&self, what: &'static str) -> DxbcError {
        DxbcError::Truncated {
            mnemonic: self.mnemonic,
            length: self.length(),
            what,
            at: self.location(),
        }
    }

    /// The next `n` tokens.
    pub(super) fn take_words(
        &mut self,
        n: u32,
        what: &'static str,
    ) -> Result<&'a [u32], DxbcError> {
        let end = usize::try_from(n)
            .ok()
            .and_then(|n| self.pos.checked_add(n));
        match end.and_then(|end| self.tokens.get(self.pos..end).map(|s| (s, end))) {
            Some((s, end)) => {
                self.pos = end;
                Ok(s)
            }
            None => Err(self.truncated(what)),
        }
    }

    /// A cursor over `tokens`, which start at token `offset` of this instruction.
    pub(super) fn sub(&self, tokens: &'a [u32], offset: usize) -> Cursor<'a> {
        Cursor {
            tokens,
            pos: 0,
            part: self.part,
            base: self.location_of(offset).token,
            mnemonic: self.mnemonic,
        }
    }
}

/// The zero/nonzero test of a conditional instruction (`D3D10_SB_INSTRUCTION_TEST_BOOLEAN`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Test {
    /// `_z`: taken when the condition's bits are all zero.
    Zero,
    /// `_nz`: taken when any bit of the condition is set.
    NonZero,
}

/// The return type of `resinfo` (`D3D10_SB_RESINFO_INSTRUCTION_RETURN_TYPE`) and
/// `sampleinfo` (`D3D10_SB_INSTRUCTION_RETURN_TYPE`, float or uint only).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum InfoReturnType {
    /// Float values (no suffix).
    Float,
    /// `_rcpFloat`: reciprocals of the dimensions (resinfo only).
    RcpFloat,
    /// `_uint`: unsigned integers.
    Uint,
}

/// The flags of `sync` (`D3D11_SB_SYNC_*`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct SyncFlags {
    /// `_t`: wait for all threads of the group.
    pub threads_in_group: bool,
    /// `_g`: group-shared memory barrier.
    pub group_shared_memory: bool,
    /// `_ugroup`: UAV memory barrier within the group.
    pub uav_memory_group: bool,
    /// `_uglobal`: UAV memory barrier across the device.
    pub uav_memory_global: bool,
}

/// Where an executable instruction's operands lie in [`Program::operands`].
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct OperandRange {
    /// The first operand.
    pub start: u32,
    /// The number of operands.
    pub len: u8,
}

impl OperandRange {
    /// As a range of indices.
    pub fn range(&self) -> Range<usize> {
        let start = self.start as usize;
        start..start.saturating_add(usize::from(self.len))
    }
}

/// An executable instruction: its opcode, modifiers, and operands.
#[derive(Debug, Clone, PartialEq)]
pub struct Executable {
    /// The opcode.
    pub opcode: Opcode,
    /// `_sat`: clamp results to `[0, 1]`.
    pub saturate: bool,
    /// The zero/nonzero test of `if`, `breakc`, `continuec`, `callc`, `retc`, `discard`.
    pub test: Option<Test>,
    /// `precise`: destination components that must not be refactored.
    pub precise: ComponentMask,
    /// The return type of `resinfo` and `sampleinfo`.
    pub return_type: Option<InfoReturnType>,
    /// The flags of `sync`.
    pub sync: Option<SyncFlags>,
    /// `_aoffimmi(u,v,w)`: immediate texel offsets (sample-controls extended token).
    pub texel_offsets: Option<[i8; 3]>,
    /// The resource dimension of a Shader Model 5 `_indexable` instruction.
    pub resource_dimension: Option<ResourceDimension>,
    /// The structure stride that goes with a structured-buffer resource dimension.
    pub structure_stride: u32,
    /// The resource's return types (resource-return-type extended token).
    pub resource_return_types: Option<[ReturnType; 4]>,
    /// The function index of `fcall` (the token before its interface operand).
    pub function_index: Option<u32>,
    /// The opcode-specific control bits `[23:11]` as found.
    pub controls: u32,
    /// Tokens the stated length holds after the last operand. fxc sometimes states one
    /// more token than an instruction uses (seen on `ld`, `samplepos` and `sample_cl_s`
    /// with a zero immediate offset; RenderDoc issue #54 "Undocumented magic extra DWORD");
    /// like the runtime, the decoder skips them by the stated length.
    pub unused_tokens: u32,
    /// The operands, in [`Program::operands`].
    pub operands: OperandRange,
}

impl Executable {
    /// The operands.
    pub fn operands<'p>(&self, program: &'p Program) -> &'p [Operand] {
        program.operands.get(self.operands.range()).unwrap_or(&[])
    }

    /// The destination operands (the first `destinations` of the opcode table; `imul`,
    /// `udiv`, `sincos`, `swapc`, `uaddc`, `usubb` and `imm_atomic_*` have two).
    pub fn destinations<'p>(&self, program: &'p Program) -> &'p [Operand] {
        let ops = self.operands(program);
        ops.get(..usize::from(self.opcode.info().destinations))
            .unwrap_or(ops)
    }

    /// The source operands (those after the destinations).
    pub fn sources<'p>(&self, program: &'p Program) -> &'p [Operand] {
        let ops = self.operands(program);
        ops.get(usize::from(self.opcode.info().destinations)..)
            .unwrap_or(&[])
    }
}

/// What an instruction is.
#[derive(Debug, Clone, PartialEq)]
pub enum InstructionKind {
    /// A declaration.
    Declaration(Declaration),
    /// An executable instruction.
    Executable(Executable),
    /// The start of a hull-shader phase.
    HullPhase(HullPhase),
    /// A custom-data block (immediate constant buffer, comment, debug info, message).
    CustomData(CustomData),
}

/// One instruction of the stream.
#[derive(Debug, Clone, PartialEq)]
pub struct Instruction {
    /// Its first token's offset from the start of the part (the version token is 0).
    pub offset: u32,
    /// Its length in tokens.
    pub length: u32,
    /// What it is.
    pub kind: InstructionKind,
}

/// A decoded Shader Model 4.0–5.1 program: declarations and executable instructions in
/// stream order.
#[derive(Debug, Clone, PartialEq)]
pub struct Program {
    /// The part it was read from (`SHEX` or `SHDR`).
    pub part: FourCc,
    /// The version token: program kind and shader model.
    pub version: ProgramVersion,
    /// The length token: the program's length in tokens.
    pub length_in_tokens: u32,
    /// The instructions, in stream order.
    pub instructions: Vec<Instruction>,
    /// The operands of all executable instructions; each [`Executable`] names its range.
    pub operands: Vec<Operand>,
}

impl Program {
    /// Decodes the `SHEX` or `SHDR` part of a container.
    pub fn from_container(container: &Container<'_>) -> Result<Program, DxbcError> {
        let part = container.program_part().ok_or(DxbcError::NoProgram)?;
        if part.tag != FourCc::SHEX && part.tag != FourCc::SHDR {
            return Err(DxbcError::NotTokenProgram(part.tag));
        }
        Program::from_part(part)
    }

    /// Decodes a container's bytes.
    pub fn from_bytes(bytes: &[u8]) -> Result<Program, DxbcError> {
        Program::from_container(&Container::parse(bytes)?)
    }

    /// Decodes a program part.
    pub fn from_part(part: &Part<'_>) -> Result<Program, DxbcError> {
        decode_part(part.tag, part.data)
    }

    /// Whether the program uses Shader Model 5.1's ranged bindings (version 5.1).
    pub fn is_sm51(&self) -> bool {
        is_sm51(self.version)
    }

    /// The operands of an executable instruction.
    pub fn operands_of(&self, e: &Executable) -> &[Operand] {
        e.operands(self)
    }

    /// The executable instructions with their stream positions.
    pub fn executables(&self) -> impl Iterator<Item = (&Instruction, &Executable)> {
        self.instructions.iter().filter_map(|i| match &i.kind {
            InstructionKind::Executable(e) => Some((i, e)),
            _ => None,
        })
    }

    /// The declarations.
    pub fn declarations(&self) -> impl Iterator<Item = &Declaration> {
        self.instructions.iter().filter_map(|i| match &i.kind {
            InstructionKind::Declaration(d) => Some(d),
            _ => None,
        })
    }

    /// The declaration of register `register` with id `id` (`t3` → `(Resource, 3)`; in
    /// Shader Model 5.1 the id is the variable id, `T3[...]`). Input and output
    /// declarations are not looked up here (one register may be declared per component).
    pub fn declaration_of(&self, register: RegisterType, id: u32) -> Option<&Declaration> {
        self.declarations().find(|d| {
            let declares_binding = d.binding().is_some()
                || matches!(
                    d,
                    Declaration::TgsmRaw { .. } | Declaration::TgsmStructured { .. }
                );
            declares_binding
                && d.register()
                    .is_some_and(|op| op.register == register && op.register_number() == Some(id))
        })
    }

    /// The dimension of the resource an operand names (`t#`, `u#`, `g#`), from its
    /// declaration.
    pub fn resource_dimension(&self, operand: &Operand) -> Option<ResourceDimension> {
        let id = operand.register_number()?;
        self.declaration_of(operand.register, id)?
            .resource_dimension()
    }

    /// The immediate constant buffer, if the program declares one.
    pub fn immediate_constant_buffer(&self) -> Option<&[[u32; 4]]> {
        self.instructions.iter().find_map(|i| match &i.kind {
            InstructionKind::CustomData(CustomData::ImmediateConstantBuffer(v)) => {
                Some(v.as_slice())
            }
            _ => None,
        })
    }
}

/// Whether a version is Shader Model 5.1 or later.
fn is_sm51(v: ProgramVersion) -> bool {
    v.major > 5 || (v.major == 5 && v.minor >= 1)
}

/// Decodes the contents of a `SHEX`/`SHDR` part.
///
/// Checks, in order: the part holds whole 32-bit tokens and at least the version and
/// length tokens; the version is a vertex, pixel, geometry, hull, domain or compute
/// program of Shader Model 4.0, 4.1, 5.0 or 5.1; the length token equals the part's size
/// in tokens (seed 002, "Length Token": the count includes the version and length
/// tokens). Then each instruction: a known opcode, a nonzero length (`[30:24]`, or the
/// second token of a custom-data block, at least 2), not past the program's end, and
/// operands that use exactly its tokens.
pub(super) fn decode_part(part: FourCc, bytes: &[u8]) -> Result<Program, DxbcError> {
    let words = bytes.chunks_exact(4);
    if !words.remainder().is_empty() || bytes.len() < 8 {
        return Err(DxbcError::BadPartSize {
            part,
            bytes: bytes.len(),
        });
    }
    let tokens: Vec<u32> = words
        .map(|w| u32::from_le_bytes(<[u8; 4]>::try_from(w).unwrap_or_default()))
        .collect();
    let (version_token, length_token) = match tokens.as_slice() {
        [v, l, ..] => (*v, *l),
        _ => {
            return Err(DxbcError::BadPartSize {
                part,
                bytes: bytes.len(),
            });
        }
    };
    let version = ProgramVersion::from_word(version_token);
    let supported_kind = matches!(
        version.kind,
        ProgramKind::Pixel
            | ProgramKind::Vertex
            | ProgramKind::Geometry
            | ProgramKind::Hull
            | ProgramKind::Domain
            | ProgramKind::Compute
    );
    if !supported_kind
        || !matches!(
            (version.major, version.minor),
            (4, 0) | (4, 1) | (5, 0) | (5, 1)
        )
    {
        return Err(DxbcError::UnsupportedVersion {
            part,
            kind_code: version.kind.code(),
            major: version.major,
            minor: version.minor,
        });
    }
    let actual = u32::try_from(tokens.len()).unwrap_or(u32::MAX);
    if length_token != actual {
        return Err(DxbcError::LengthMismatch {
            part,
            stated: length_token,
            actual,
        });
    }
    let sm51 = is_sm51(version);
    let mut program = Program {
        part,
        version,
        length_in_tokens: length_token,
        // Bounded by the tokens actually present: an instruction takes at least one token,
        // an operand at least one.
        instructions: Vec::with_capacity(tokens.len() / 6),
        operands: Vec::with_capacity(tokens.len() / 3),
    };
    let mut pos = 2usize;
    while let Some(&first) = tokens.get(pos) {
        let at = Location {
            part,
            token: u32::try_from(pos).unwrap_or(u32::MAX),
        };
        let tok = OpcodeToken(first);
        let opcode = Opcode::from_code(tok.opcode()).ok_or(DxbcError::UnknownOpcode {
            code: tok.opcode(),
            at,
        })?;
        let remaining = tokens.len().saturating_sub(pos);
        let remaining_u32 = u32::try_from(remaining).unwrap_or(u32::MAX);
        let info = opcode.info();
        let mnemonic = info.mnemonic;
        let length = match opcode {
            Opcode::CustomData => {
                let len = *tokens.get(pos.wrapping_add(1)).ok_or(DxbcError::PastEnd {
                    mnemonic,
                    length: 2,
                    remaining: remaining_u32,
                    at,
                })?;
                if len < 2 {
                    return Err(DxbcError::BadCustomData {
                        class: tok.custom_data_class(),
                        reason: "length below 2 tokens",
                        at,
                    });
                }
                len
            }
            // The extended bit of these declarations means "the next token is the length"
            // (seed 002: interface function body/table and interface declarations).
            Opcode::DclFunctionBody | Opcode::DclFunctionTable | Opcode::DclInterface
                if tok.extended() =>
            {
                *tokens.get(pos.wrapping_add(1)).ok_or(DxbcError::PastEnd {
                    mnemonic,
                    length: 2,
                    remaining: remaining_u32,
                    at,
                })?
            }
            _ => tok.length(),
        };
        if length == 0 {
            return Err(DxbcError::ZeroLength { mnemonic, at });
        }
        let len = usize::try_from(length).unwrap_or(usize::MAX);
        let body = pos
            .checked_add(len)
            .and_then(|end| tokens.get(pos..end))
            .ok_or(DxbcError::PastEnd {
                mnemonic,
                length,
                remaining: remaining_u32,
                at,
            })?;
        let mut c = Cursor::new(body, part, at.token, mnemonic);
        c.next("opcode token")?;
        let kind = match info.class {
            OpcodeClass::CustomData => {
                c.next("custom-data length")?;
                let words = c.take_words(length.saturating_sub(2), "custom data")?;
                InstructionKind::CustomData(read_custom_data(tok.custom_data_class(), words, &c)?)
            }
            OpcodeClass::Declaration => {
                if tok.extended() {
                    if matches!(
                        opcode,
                        Opcode::DclFunctionBody | Opcode::DclFunctionTable | Opcode::DclInterface
                    ) {
                        c.next("declaration length")?;
                    } else {
                        return Err(DxbcError::BadField {
                            what: "extended opcode token on a declaration",
                            value: first,
                            at,
                        });
                    }
                }
                InstructionKind::Declaration(read_declaration(opcode, tok, &mut c, sm51)?)
            }
            OpcodeClass::HullPhase => InstructionKind::HullPhase(match opcode {
                Opcode::HsDecls => HullPhase::Declarations,
                Opcode::HsControlPointPhase => HullPhase::ControlPoint,
                Opcode::HsForkPhase => HullPhase::Fork,
                _ => HullPhase::Join,
            }),
            _ => {
                let mut e = read_executable(opcode, info, tok, &mut c, &mut program.operands)?;
                e.unused_tokens = u32::try_from(c.remaining()).unwrap_or(u32::MAX);
                c.take_words(e.unused_tokens, "unused tokens")?;
                InstructionKind::Executable(e)
            }
        };
        if c.remaining() != 0 {
            return Err(DxbcError::TrailingTokens {
                mnemonic,
                length,
                used: u32::try_from(c.used()).unwrap_or(u32::MAX),
                at,
            });
        }
        program.instructions.push(Instruction {
            offset: at.token,
            length,
            kind,
        });
        pos = pos.saturating_add(len);
    }
    Ok(program)
}

/// Reads an executable instruction after its opcode token: the chain of extended opcode
/// tokens, `fcall`'s function index, then the opcode's operands.
fn read_executable(
    opcode: Opcode,
    info: &OpcodeInfo,
    tok: OpcodeToken,
    c: &mut Cursor<'_>,
    arena: &mut Vec<Operand>,
) -> Result<Executable, DxbcError> {
    let at = c.start();
    let mut e = Executable {
        opcode,
        // Bit 13 is `_sat` only where the opcode's own controls leave it free: `sync`'s
        // flags are bits 11–14 (`D3D11_SB_SYNC_FLAGS_MASK` 0x7800), and its bit 13 is
        // the UAV-group flag. No other executable opcode puts controls there (resinfo's
        // and sampleinfo's return types are bits 11–12, the test bit is 18, the precise
        // mask 19–22).
        saturate: tok.saturate() && opcode != Opcode::Sync,
        test: opcode.has_test().then_some(if tok.test_nonzero() {
            Test::NonZero
        } else {
            Test::Zero
        }),
        precise: ComponentMask(tok.precise_mask()),
        return_type: None,
        sync: None,
        texel_offsets: None,
        resource_dimension: None,
        structure_stride: 0,
        resource_return_types: None,
        function_index: None,
        controls: tok.controls(),
        unused_tokens: 0,
        operands: OperandRange::default(),
    };
    match opcode {
        Opcode::Resinfo => {
            e.return_type = Some(match tok.return_type() {
                0 => InfoReturnType::Float,
                1 => InfoReturnType::RcpFloat,
                2 => InfoReturnType::Uint,
                v => {
                    return Err(DxbcError::BadField {
                        what: "resinfo return type",
                        value: u32::from(v),
                        at,
                    });
                }
            });
        }
        Opcode::SampleInfo => {
            e.return_type = Some(match tok.return_type() {
                0 => InfoReturnType::Float,
                1 => InfoReturnType::Uint,
                v => {
                    return Err(DxbcError::BadField {
                        what: "sampleinfo return type",
                        value: u32::from(v),
                        at,
                    });
                }
            });
        }
        Opcode::Sync => {
            let f = tok.sync_flags();
            e.sync = Some(SyncFlags {
                threads_in_group: f & 1 != 0,
                group_shared_memory: f & 2 != 0,
                uav_memory_group: f & 4 != 0,
                uav_memory_global: f & 8 != 0,
            });
        }
        _ => {}
    }
    let mut extended = tok.extended();
    while extended {
        let ext_at = c.location();
        let ext = ExtendedOpcodeToken(c.next("extended opcode token")?);
        match ext.kind() {
            extended_opcode_type::EMPTY => {}
            extended_opcode_type::SAMPLE_CONTROLS => e.texel_offsets = Some(ext.texel_offsets()),
            extended_opcode_type::RESOURCE_DIM => {
                e.resource_dimension = Some(ResourceDimension::decode(
                    u32::from(ext.resource_dimension()),
                    ext_at,
                )?);
                e.structure_stride = ext.structure_stride();
            }
            extended_opcode_type::RESOURCE_RETURN_TYPE => {
                let [x, y, z, w] = ext.return_types().map(u32::from);
                e.resource_return_types = Some([
                    ReturnType::decode(x, ext_at)?,
                    ReturnType::decode(y, ext_at)?,
                    ReturnType::decode(z, ext_at)?,
                    ReturnType::decode(w, ext_at)?,
                ]);
            }
            k => {
                return Err(DxbcError::BadField {
                    what: "extended opcode type",
                    value: u32::from(k),
                    at: ext_at,
                });
            }
        }
        extended = ext.extended();
    }
    if opcode == Opcode::InterfaceCall {
        e.function_index = Some(c.next("function index")?);
    }
    let start = u32::try_from(arena.len()).unwrap_or(u32::MAX);
    let count = info.operands;
    for _ in 0..count {
        arena.push(Operand::new(RegisterType::Null, Components::Zero));
        if let Some(slot) = arena.last_mut() {
            read_operand_into(c, slot)?;
        }
    }
    e.operands = OperandRange { start, len: count };
    Ok(e)
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects, clippy::cast_possible_truncation)]
mod tests {
    use super::*;
    use crate::dxbc::token::encode;

    fn program(body: &[u32]) -> Vec<u8> {
        let mut t = vec![0x0005_0050, (body.len() + 2) as u32];
        t.extend_from_slice(body);
        t.iter().flat_map(|w| w.to_le_bytes()).collect()
    }

    fn decode(body: &[u32]) -> Result<Program, DxbcError> {
        decode_part(FourCc::SHEX, &program(body))
    }

    const RET: u32 = 0x0100_003e;

    // Seed 002, "Version Token" and "Length Token".
    #[test]
    fn version_and_length() {
        let p = decode(&[RET]).unwrap();
        assert_eq!(p.version.to_string(), "cs_5_0");
        assert_eq!(p.length_in_tokens, 3);
        assert_eq!(p.instructions.len(), 1);
        assert_eq!((p.instructions[0].offset, p.instructions[0].length), (2, 1));
        let mut bytes = program(&[RET]);
        bytes[4] = 4;
        assert!(matches!(
            decode_part(FourCc::SHEX, &bytes),
            Err(DxbcError::LengthMismatch {
                stated: 4,
                actual: 3,
                ..
            })
        ));
        assert!(matches!(
            decode_part(FourCc::SHEX, &bytes[..7]),
            Err(DxbcError::BadPartSize { .. })
        ));
        let mut bytes = program(&[RET]);
        bytes[0] = 0x60; // version 6.0
        assert!(matches!(
            decode_part(FourCc::SHEX, &bytes),
            Err(DxbcError::UnsupportedVersion { major: 6, .. })
        ));
    }

    #[test]
    fn refuses_bad_instruction_lengths() {
        // Opcode 107 is D3D10_SB_OPCODE_RESERVED0.
        let e = decode(&[0x0100_006b]).unwrap_err();
        assert!(
            matches!(
                e,
                DxbcError::UnknownOpcode {
                    code: 107,
                    at: Location { token: 2, .. }
                }
            ),
            "{e}"
        );
        assert_eq!(
            e.to_string(),
            "unknown opcode 107 (0x6b) at token 0x2 (byte 0x8) of SHEX"
        );
        assert!(matches!(
            decode(&[0x0000_003e]),
            Err(DxbcError::ZeroLength {
                mnemonic: "ret",
                ..
            })
        ));
        assert!(matches!(
            decode(&[0x0200_003e]),
            Err(DxbcError::PastEnd {
                length: 2,
                remaining: 1,
                ..
            })
        ));
        // mov with one operand too few tokens: dst r0.x then a source that is cut off.
        let dst = encode::operand(0, 2, encode::mask(1), 1, [0; 3]);
        let e = decode(&[encode::opcode(54, 3, 0), dst, 0]).unwrap_err();
        assert!(
            matches!(
                e,
                DxbcError::Truncated {
                    mnemonic: "mov",
                    ..
                }
            ),
            "{e}"
        );
        // dcl_temps stating 3 tokens uses only 2.
        assert!(matches!(
            decode(&[0x0300_0068, 1, 0]),
            Err(DxbcError::TrailingTokens { used: 2, .. })
        ));
        // An executable instruction may state more tokens than it uses (an fxc quirk);
        // they are skipped and counted.
        let p = decode(&[0x0200_003e, 0]).unwrap();
        let (_, e) = p.executables().next().unwrap();
        assert_eq!(e.unused_tokens, 1);
    }

    // `mov r0.x, l(1.0)`: operands land in the program's arena.
    #[test]
    fn executable_operands() {
        let dst = encode::operand(0, 2, encode::mask(1), 1, [0; 3]);
        let src = encode::operand(4, 1, 0, 0, [0; 3]);
        let p = decode(&[encode::opcode(54, 5, 0), dst, 0, src, 0x3f80_0000, RET]).unwrap();
        let (_, e) = p.executables().next().unwrap();
        assert_eq!(e.opcode, Opcode::Mov);
        assert_eq!(e.destinations(&p).len(), 1);
        assert_eq!(e.sources(&p)[0].immediate32(), &[0x3f80_0000]);
    }

    // Seed 002, "Extended Opcode Format": chained sample controls, resource dim and return
    // type tokens of `sample_aoffimmi_indexable(1,-1,0)(texture2d)(float,float,float,float)`.
    #[test]
    fn chained_extended_opcode_tokens() {
        let ext1 = 0x8000_0000 | 1 | (1 << 9) | (0xf << 13);
        let ext2 = 0x8000_0000 | 2 | (3 << 6);
        let ext3 = 3 | (5 << 6) | (5 << 10) | (5 << 14) | (5 << 18);
        let dst = encode::operand(0, 2, encode::mask(0xf), 1, [0; 3]);
        let coord = encode::operand(1, 2, encode::swizzle([0, 1, 0, 0]), 1, [0; 3]);
        let tex = encode::operand(7, 2, encode::swizzle([0, 1, 2, 3]), 1, [0; 3]);
        let smp = encode::operand(6, 0, 0, 1, [0; 3]);
        let body = [
            encode::opcode(69, 12, 0x8000_0000),
            ext1,
            ext2,
            ext3,
            dst,
            0,
            coord,
            1,
            tex,
            0,
            smp,
            0,
            RET,
        ];
        let p = decode(&body).unwrap();
        let (_, e) = p.executables().next().unwrap();
        assert_eq!(e.texel_offsets, Some([1, -1, 0]));
        assert_eq!(e.resource_dimension, Some(ResourceDimension::Texture2D));
        assert_eq!(e.resource_return_types, Some([ReturnType::Float; 4]));
        assert_eq!(e.operands.len, 4);
    }

    // Seed 002, "Custom-Data Block Format" and "Immediate Constant Buffer Declaration".
    #[test]
    fn custom_data_blocks() {
        let icb = [0x0000_1835, 6, 1, 2, 3, 4];
        let p = decode(&[icb[0], icb[1], icb[2], icb[3], icb[4], icb[5], RET]).unwrap();
        assert_eq!(p.immediate_constant_buffer(), Some(&[[1, 2, 3, 4]][..]));
        assert_eq!(p.instructions[1].offset, 8);
        // A comment block is kept.
        let p = decode(&[0x0000_0035, 3, 0x6968, RET]).unwrap();
        assert!(
            matches!(&p.instructions[0].kind, InstructionKind::CustomData(CustomData::Comment(w)) if w == &[0x6968])
        );
        assert!(matches!(
            decode(&[0x0000_1835, 5, 1, 2, 3, RET]),
            Err(DxbcError::BadCustomData { class: 3, .. })
        ));
        assert!(matches!(
            decode(&[0x0000_0035, 1, RET]),
            Err(DxbcError::BadCustomData { .. })
        ));
        assert!(matches!(
            decode(&[0x0000_0035, 9, RET]),
            Err(DxbcError::PastEnd { length: 9, .. })
        ));
    }

    #[test]
    fn conditional_and_info_modifiers() {
        let cond = encode::operand(0, 2, encode::select1(0), 1, [0; 3]);
        let p = decode(&[encode::opcode(31, 3, 1 << 18), cond, 0, 0x0100_0015, RET]).unwrap();
        let (_, e) = p.executables().next().unwrap();
        assert_eq!(e.test, Some(Test::NonZero));
        // sync_g_t
        let p = decode(&[encode::opcode(190, 1, 0x1800), RET]).unwrap();
        let (_, e) = p.executables().next().unwrap();
        assert_eq!(
            e.sync,
            Some(SyncFlags {
                threads_in_group: true,
                group_shared_memory: true,
                ..SyncFlags::default()
            })
        );
        // resinfo return type 3 is undefined.
        assert!(matches!(
            decode(&[encode::opcode(61, 1, 3 << 11)]),
            Err(DxbcError::BadField {
                what: "resinfo return type",
                ..
            })
        ));
    }
}
