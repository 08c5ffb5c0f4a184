//! Bit fields of the 32-bit tokens of a Shader Model 4–5 program: opcode tokens, extended
//! opcode tokens, operand tokens, extended operand tokens, and the fields that
//! declarations keep in their opcode token.
//!
//! Owns: pure functions from a `u32` to a field, each named after the field and citing
//! its bits in seed `002_…txt` (the flattened `d3d12TokenizedProgramFormat.hpp`). Values
//! are returned raw (as small integers) where the field is an enumeration; turning them
//! into typed enums, and refusing values the format does not define, is the job of
//! [`super::operand`], [`super::decl`] and [`super::decode`].
//!
//! Does not own: reading tokens from bytes or knowing where a token sits.

// Every narrowing cast below follows a mask to the field's width.
#![allow(clippy::cast_possible_truncation)]

/// Extracts `bits` bits of `word` starting at bit `shift`.
#[inline(always)]
const fn bits(word: u32, shift: u32, width: u32) -> u32 {
    word.wrapping_shr(shift) & (1u32.wrapping_shl(width).wrapping_sub(1))
}

/// An opcode token (`OpcodeToken0`, seed 002 "Opcode Format").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OpcodeToken(pub u32);

impl OpcodeToken {
    /// `[10:00]` the opcode type (`D3D10_SB_OPCODE_TYPE`).
    #[inline(always)]
    pub const fn opcode(self) -> u16 {
        bits(self.0, 0, 11) as u16
    }

    /// `[30:24]` the instruction length in tokens, including the opcode token(s)
    /// (1–127; custom data carries its length in the next token instead).
    #[inline(always)]
    pub const fn length(self) -> u32 {
        bits(self.0, 24, 7)
    }

    /// `[31]` an extended opcode token follows.
    #[inline(always)]
    pub const fn extended(self) -> bool {
        self.0 & 0x8000_0000 != 0
    }

    /// `[23:11]` the opcode-specific controls, unshifted into bits 0..13.
    #[inline(always)]
    pub const fn controls(self) -> u32 {
        bits(self.0, 11, 13)
    }

    /// `[13]` saturate the result to `[0, 1]` (`D3D10_SB_INSTRUCTION_SATURATE_MASK`).
    #[inline(always)]
    pub const fn saturate(self) -> bool {
        self.0 & 0x0000_2000 != 0
    }

    /// `[18]` the boolean test of conditional instructions: `true` for "nonzero"
    /// (`D3D10_SB_INSTRUCTION_TEST_BOOLEAN`, 1 = `NONZERO`).
    #[inline(always)]
    pub const fn test_nonzero(self) -> bool {
        self.0 & 0x0004_0000 != 0
    }

    /// `[22:19]` the precise mask, one bit per destination component x, y, z, w
    /// (`D3D11_SB_INSTRUCTION_PRECISE_VALUES`).
    #[inline(always)]
    pub const fn precise_mask(self) -> u8 {
        bits(self.0, 19, 4) as u8
    }

    /// `[12:11]` the return type of `resinfo` (`D3D10_SB_RESINFO_INSTRUCTION_RETURN_TYPE`:
    /// 0 float, 1 rcpFloat, 2 uint) and of `sampleinfo`
    /// (`D3D10_SB_INSTRUCTION_RETURN_TYPE`: 0 float, 1 uint).
    #[inline(always)]
    pub const fn return_type(self) -> u8 {
        bits(self.0, 11, 2) as u8
    }

    /// `[14:11]` the flags of `sync` (`D3D11_SB_SYNC_FLAGS_MASK` 0x7800), unshifted:
    /// bit 0 threads in group, bit 1 group-shared memory, bit 2 UAV memory (group),
    /// bit 3 UAV memory (global).
    #[inline(always)]
    pub const fn sync_flags(self) -> u8 {
        bits(self.0, 11, 4) as u8
    }

    /// `[31:11]` the class of a custom-data block (`D3D10_SB_CUSTOMDATA_CLASS`).
    #[inline(always)]
    pub const fn custom_data_class(self) -> u32 {
        self.0 >> 11
    }

    /// `[23:11]` of `dcl_globalFlags`: the flags, unshifted from bit 11 (bit 0 =
    /// refactoring allowed; `D3D10_SB_GLOBAL_FLAGS_MASK` 0x00fff800).
    #[inline(always)]
    pub const fn global_flags(self) -> u32 {
        bits(self.0, 11, 13)
    }

    /// `[15:11]` the resource dimension of `dcl_resource`/`dcl_uav_typed`
    /// (`D3D10_SB_RESOURCE_DIMENSION`).
    #[inline(always)]
    pub const fn resource_dimension(self) -> u8 {
        bits(self.0, 11, 5) as u8
    }

    /// `[22:16]` the sample count of a multisampled `dcl_resource` (1–127).
    #[inline(always)]
    pub const fn sample_count(self) -> u8 {
        bits(self.0, 16, 7) as u8
    }

    /// `[11]` the access pattern of `dcl_constantbuffer`: `true` for dynamically indexed
    /// (`D3D10_SB_CONSTANT_BUFFER_ACCESS_PATTERN`).
    #[inline(always)]
    pub const fn cb_dynamic_indexed(self) -> bool {
        self.0 & 0x0000_0800 != 0
    }

    /// `[14:11]` the sampler mode of `dcl_sampler` (`D3D10_SB_SAMPLER_MODE`).
    #[inline(always)]
    pub const fn sampler_mode(self) -> u8 {
        bits(self.0, 11, 4) as u8
    }

    /// `[14:11]` the interpolation mode of `dcl_input_ps*` (`D3D10_SB_INTERPOLATION_MODE`).
    #[inline(always)]
    pub const fn interpolation_mode(self) -> u8 {
        bits(self.0, 11, 4) as u8
    }

    /// `[16:11]` the primitive of `dcl_inputprimitive` (`D3D10_SB_PRIMITIVE`), the
    /// topology of `dcl_outputtopology` (`D3D10_SB_PRIMITIVE_TOPOLOGY`, `[17:11]` in the
    /// comment but masked by 0x1f800), and the control-point count of
    /// `dcl_input/output_control_point_count`.
    #[inline(always)]
    pub const fn primitive_field(self) -> u8 {
        bits(self.0, 11, 6) as u8
    }

    /// `[12:11]` the tessellator domain (`D3D11_SB_TESSELLATOR_DOMAIN`).
    #[inline(always)]
    pub const fn tess_domain(self) -> u8 {
        bits(self.0, 11, 2) as u8
    }

    /// `[13:11]` the tessellator partitioning or output primitive
    /// (`D3D11_SB_TESSELLATOR_PARTITIONING`, `D3D11_SB_TESSELLATOR_OUTPUT_PRIMITIVE`).
    #[inline(always)]
    pub const fn tess_field(self) -> u8 {
        bits(self.0, 11, 3) as u8
    }

    /// `[16]` globally coherent UAV access (`D3D11_SB_GLOBALLY_COHERENT_ACCESS`).
    #[inline(always)]
    pub const fn globally_coherent(self) -> bool {
        self.0 & 0x0001_0000 != 0
    }

    /// `[17]` rasterizer-ordered UAV access (`D3D11_SB_RASTERIZER_ORDERED_ACCESS`).
    #[inline(always)]
    pub const fn rasterizer_ordered(self) -> bool {
        self.0 & 0x0002_0000 != 0
    }

    /// `[23]` the structured UAV has an order-preserving counter
    /// (`D3D11_SB_UAV_HAS_ORDER_PRESERVING_COUNTER`).
    #[inline(always)]
    pub const fn has_counter(self) -> bool {
        self.0 & 0x0080_0000 != 0
    }

    /// `[11]` of `dcl_interface`: the interface is indexed dynamically.
    #[inline(always)]
    pub const fn interface_indexed(self) -> bool {
        self.0 & 0x0000_0800 != 0
    }
}

/// The type of an extended opcode token (`D3D10_SB_EXTENDED_OPCODE_TYPE`).
pub mod extended_opcode_type {
    /// `D3D10_SB_EXTENDED_OPCODE_EMPTY`.
    pub const EMPTY: u8 = 0;
    /// `D3D10_SB_EXTENDED_OPCODE_SAMPLE_CONTROLS`: immediate texel offsets.
    pub const SAMPLE_CONTROLS: u8 = 1;
    /// `D3D11_SB_EXTENDED_OPCODE_RESOURCE_DIM`: resource dimension and structure stride.
    pub const RESOURCE_DIM: u8 = 2;
    /// `D3D11_SB_EXTENDED_OPCODE_RESOURCE_RETURN_TYPE`: per-component return types.
    pub const RESOURCE_RETURN_TYPE: u8 = 3;
}

/// An extended opcode token (`OpcodeToken1`, seed 002 "Extended Opcode Format").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtendedOpcodeToken(pub u32);

impl ExtendedOpcodeToken {
    /// `[05:00]` the extended opcode type (see [`extended_opcode_type`]).
    #[inline(always)]
    pub const fn kind(self) -> u8 {
        bits(self.0, 0, 6) as u8
    }

    /// `[31]` another extended opcode token follows (they chain).
    #[inline(always)]
    pub const fn extended(self) -> bool {
        self.0 & 0x8000_0000 != 0
    }

    /// The immediate texel offsets u `[12:09]`, v `[16:13]`, w `[20:17]` of a sample-controls
    /// token, each a 4-bit two's-complement number sign-extended to `-8..=7`
    /// (`DECODE_IMMEDIATE_D3D10_SB_ADDRESS_OFFSET`).
    #[inline(always)]
    pub const fn texel_offsets(self) -> [i8; 3] {
        [
            sign4(bits(self.0, 9, 4)),
            sign4(bits(self.0, 13, 4)),
            sign4(bits(self.0, 17, 4)),
        ]
    }

    /// `[10:06]` the resource dimension of a resource-dim token.
    #[inline(always)]
    pub const fn resource_dimension(self) -> u8 {
        bits(self.0, 6, 5) as u8
    }

    /// `[22:11]` the structure stride of a resource-dim token (structured buffers only).
    #[inline(always)]
    pub const fn structure_stride(self) -> u32 {
        bits(self.0, 11, 12)
    }

    /// The return types of components x `[09:06]`, y `[13:10]`, z `[17:14]`, w `[21:18]`
    /// of a resource-return-type token (`D3D10_SB_RESOURCE_RETURN_TYPE` values).
    #[inline(always)]
    pub const fn return_types(self) -> [u8; 4] {
        [
            bits(self.0, 6, 4) as u8,
            bits(self.0, 10, 4) as u8,
            bits(self.0, 14, 4) as u8,
            bits(self.0, 18, 4) as u8,
        ]
    }
}

/// Sign-extends a 4-bit two's-complement number.
#[inline(always)]
const fn sign4(v: u32) -> i8 {
    let v = (v & 0xf) as i8;
    if v >= 8 { v.wrapping_sub(16) } else { v }
}

/// The return types of a declaration's `ResourceReturnTypeToken`: x `[03:00]`, y `[07:04]`,
/// z `[11:08]`, w `[15:12]` (seed 002 "Resource Return Type Token").
#[inline(always)]
pub const fn resource_return_types(token: u32) -> [u8; 4] {
    [
        bits(token, 0, 4) as u8,
        bits(token, 4, 4) as u8,
        bits(token, 8, 4) as u8,
        bits(token, 12, 4) as u8,
    ]
}

/// An operand token (`OperandToken0`, seed 002 "Instruction Operand Format").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct OperandToken(pub u32);

impl OperandToken {
    /// `[01:00]` the number of components (`D3D10_SB_OPERAND_NUM_COMPONENTS`:
    /// 0 → 0, 1 → 1, 2 → 4, 3 → N).
    #[inline(always)]
    pub const fn num_components(self) -> u8 {
        bits(self.0, 0, 2) as u8
    }

    /// `[03:02]` the 4-component selection mode (`D3D10_SB_OPERAND_4_COMPONENT_SELECTION_MODE`:
    /// 0 mask, 1 swizzle, 2 select 1).
    #[inline(always)]
    pub const fn selection_mode(self) -> u8 {
        bits(self.0, 2, 2) as u8
    }

    /// `[07:04]` the write mask in mask mode, bit 0 = x.
    #[inline(always)]
    pub const fn mask(self) -> u8 {
        bits(self.0, 4, 4) as u8
    }

    /// `[11:04]` the swizzle in swizzle mode: the source component (0–3) of destination
    /// components x, y, z, w, two bits each.
    #[inline(always)]
    pub const fn swizzle(self) -> [u8; 4] {
        [
            bits(self.0, 4, 2) as u8,
            bits(self.0, 6, 2) as u8,
            bits(self.0, 8, 2) as u8,
            bits(self.0, 10, 2) as u8,
        ]
    }

    /// `[05:04]` the selected component in select-1 mode.
    #[inline(always)]
    pub const fn select1(self) -> u8 {
        bits(self.0, 4, 2) as u8
    }

    /// `[19:12]` the operand (register) type (`D3D10_SB_OPERAND_TYPE`).
    #[inline(always)]
    pub const fn operand_type(self) -> u8 {
        bits(self.0, 12, 8) as u8
    }

    /// `[21:20]` the index dimension: how many indices follow (0–3).
    #[inline(always)]
    pub const fn index_dimension(self) -> u8 {
        bits(self.0, 20, 2) as u8
    }

    /// The representation of index `dim` (0, 1 or 2) at `[24:22]`, `[27:25]`, `[30:28]`
    /// (`D3D10_SB_OPERAND_INDEX_REPRESENTATION`; the shift is `22 + 3 * dim`).
    #[inline(always)]
    pub const fn index_representation(self, dim: u32) -> u8 {
        bits(self.0, 22u32.wrapping_add(3u32.wrapping_mul(dim % 3)), 3) as u8
    }

    /// `[31]` an extended operand token follows.
    #[inline(always)]
    pub const fn extended(self) -> bool {
        self.0 & 0x8000_0000 != 0
    }
}

/// An extended operand token (`OperandToken1`, seed 002 "Extended Instruction Operand
/// Format").
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtendedOperandToken(pub u32);

impl ExtendedOperandToken {
    /// `[05:00]` the extended operand type (`D3D10_SB_EXTENDED_OPERAND_TYPE`: 0 empty,
    /// 1 modifier).
    #[inline(always)]
    pub const fn kind(self) -> u8 {
        bits(self.0, 0, 6) as u8
    }

    /// `[13:06]` the source modifier (`D3D10_SB_OPERAND_MODIFIER`: 0 none, 1 neg, 2 abs,
    /// 3 absneg).
    #[inline(always)]
    pub const fn modifier(self) -> u8 {
        bits(self.0, 6, 8) as u8
    }

    /// `[16:14]` the minimum precision (`D3D11_SB_OPERAND_MIN_PRECISION`).
    #[inline(always)]
    pub const fn min_precision(self) -> u8 {
        bits(self.0, 14, 3) as u8
    }

    /// `[17]` the operand is non-uniform (`D3D12_SB_OPERAND_NON_UNIFORM`).
    #[inline(always)]
    pub const fn non_uniform(self) -> bool {
        self.0 & 0x0002_0000 != 0
    }

    /// `[31]` yet another extended operand token follows.
    #[inline(always)]
    pub const fn extended(self) -> bool {
        self.0 & 0x8000_0000 != 0
    }
}

/// Encoders used by the unit tests here and in the other layers to assemble tokens by
/// hand (the `ENCODE_*` macros of seed 002).
#[cfg(test)]
#[allow(clippy::arithmetic_side_effects, clippy::cast_possible_truncation)]
pub(crate) mod encode {
    /// An opcode token: opcode, length, and extra control bits already in place.
    pub fn opcode(op: u16, length: u32, extra: u32) -> u32 {
        u32::from(op) | (length << 24) | extra
    }

    /// An operand token.
    pub fn operand(
        ty: u8,
        num_components: u8,
        selection: u32,
        index_dim: u8,
        reps: [u8; 3],
    ) -> u32 {
        u32::from(num_components)
            | selection
            | (u32::from(ty) << 12)
            | (u32::from(index_dim) << 20)
            | (u32::from(reps[0]) << 22)
            | (u32::from(reps[1]) << 25)
            | (u32::from(reps[2]) << 28)
    }

    /// Mask-mode selection bits for a 4-component operand.
    pub fn mask(m: u8) -> u32 {
        u32::from(m) << 4
    }

    /// Swizzle-mode selection bits.
    pub fn swizzle(s: [u8; 4]) -> u32 {
        (1 << 2)
            | (u32::from(s[0]) << 4)
            | (u32::from(s[1]) << 6)
            | (u32::from(s[2]) << 8)
            | (u32::from(s[3]) << 10)
    }

    /// Select-1 selection bits.
    pub fn select1(c: u8) -> u32 {
        (2 << 2) | (u32::from(c) << 4)
    }
}

#[cfg(test)]
#[allow(clippy::arithmetic_side_effects, clippy::cast_possible_truncation)]
mod tests {
    use super::*;

    // Seed 002, "Opcode Format": [10:00] type, [23:11] controls, [30:24] length, [31] extended.
    #[test]
    fn opcode_token_fields() {
        // mad_sat with length 9, extended: 0x80000000 | 9 << 24 | 1 << 13 | 50.
        let t = OpcodeToken(0x8900_2032);
        assert_eq!(t.opcode(), 50);
        assert_eq!(t.length(), 9);
        assert!(t.extended());
        assert!(t.saturate());
        assert!(!t.test_nonzero());
        // if_nz: bit 18.
        assert!(OpcodeToken(0x0304_001f).test_nonzero());
        // precise(xz): bits 19 and 21.
        assert_eq!(OpcodeToken(0x0028_0000).precise_mask(), 0b0101);
        // resinfo_uint: [12:11] = 2.
        assert_eq!(OpcodeToken(0x0000_1000).return_type(), 2);
        // sync_g_t: threads (0x800) | tgsm (0x1000).
        assert_eq!(OpcodeToken(0x0000_1800 | 190).sync_flags(), 0b0011);
    }

    // Seed 002, "Custom-Data Block Format": [31:11] class.
    #[test]
    fn custom_data_class() {
        // dcl_immediateConstantBuffer: class 3 << 11 | opcode 53.
        assert_eq!(OpcodeToken(0x0000_1835).custom_data_class(), 3);
        assert_eq!(OpcodeToken(0x0000_1835).opcode(), 53);
    }

    // Seed 002, "Extended Opcode Format": offsets at [12:09], [16:13], [20:17], 4-bit two's
    // complement.
    #[test]
    fn texel_offsets_are_signed_4_bit() {
        // u = 1, v = -1 (0xf), w = -8 (0x8).
        let t = ExtendedOpcodeToken(1 | (1 << 9) | (0xf << 13) | (0x8 << 17));
        assert_eq!(t.kind(), extended_opcode_type::SAMPLE_CONTROLS);
        assert_eq!(t.texel_offsets(), [1, -1, -8]);
        assert_eq!(ExtendedOpcodeToken(1 | (7 << 9)).texel_offsets(), [7, 0, 0]);
    }

    // Seed 002: resource dim [10:06], structure stride [22:11]; return types 4 bits from bit 6.
    #[test]
    fn resource_dim_and_return_type_tokens() {
        let t = ExtendedOpcodeToken(2 | (12 << 6) | (16 << 11) | 0x8000_0000);
        assert_eq!(t.kind(), extended_opcode_type::RESOURCE_DIM);
        assert_eq!(t.resource_dimension(), 12);
        assert_eq!(t.structure_stride(), 16);
        assert!(t.extended());
        let r = ExtendedOpcodeToken(3 | (5 << 6) | (5 << 10) | (4 << 14) | (3 << 18));
        assert_eq!(r.return_types(), [5, 5, 4, 3]);
        assert_eq!(resource_return_types(0x5555), [5, 5, 5, 5]);
        assert_eq!(resource_return_types(0x4321), [1, 2, 3, 4]);
    }

    // Seed 002, "Instruction Operand Format".
    #[test]
    fn operand_token_fields() {
        // r1.xyzw swizzle .yxwz, 1D immediate: the common source form.
        let t = OperandToken(encode::operand(
            0,
            2,
            encode::swizzle([1, 0, 3, 2]),
            1,
            [0, 0, 0],
        ));
        assert_eq!(t.num_components(), 2);
        assert_eq!(t.selection_mode(), 1);
        assert_eq!(t.swizzle(), [1, 0, 3, 2]);
        assert_eq!(t.operand_type(), 0);
        assert_eq!(t.index_dimension(), 1);
        assert!(!t.extended());
        // cb0[r0.x + 3]: 2D, second index imm32 + relative (3).
        let t = OperandToken(encode::operand(8, 2, encode::mask(0xf), 2, [0, 3, 0]) | 0x8000_0000);
        assert_eq!(t.mask(), 0xf);
        assert_eq!(t.index_representation(0), 0);
        assert_eq!(t.index_representation(1), 3);
        assert!(t.extended());
        let t = OperandToken(encode::operand(7, 2, encode::select1(2), 3, [0, 1, 4]));
        assert_eq!(t.select1(), 2);
        assert_eq!(t.index_representation(2), 4);
    }

    // Seed 002, "Extended Instruction Operand Format": modifier [13:06], min precision
    // [16:14], non-uniform [17].
    #[test]
    fn extended_operand_fields() {
        let t = ExtendedOperandToken(1 | (3 << 6) | (1 << 14) | (1 << 17));
        assert_eq!(t.kind(), 1);
        assert_eq!(t.modifier(), 3);
        assert_eq!(t.min_precision(), 1);
        assert!(t.non_uniform());
        assert!(!t.extended());
    }

    // Seed 002, declarations: fields kept in OpcodeToken0.
    #[test]
    fn declaration_fields() {
        // dcl_resource_texture2dms(4): dim 4 at [15:11], sample count 4 at [22:16].
        let t = OpcodeToken((4 << 11) | (4 << 16) | 88);
        assert_eq!(t.resource_dimension(), 4);
        assert_eq!(t.sample_count(), 4);
        // dcl_uav_structured with glc, rov and counter.
        let t = OpcodeToken(0x0001_0000 | 0x0002_0000 | 0x0080_0000);
        assert!(t.globally_coherent() && t.rasterizer_ordered() && t.has_counter());
        // dcl_globalFlags refactoringAllowed | allResourcesBound: bits 11 and 19.
        assert_eq!(
            OpcodeToken((1 << 11) | (1 << 19) | 106).global_flags(),
            0x101
        );
        assert_eq!(OpcodeToken(3 << 11).tess_domain(), 3);
        assert_eq!(OpcodeToken(4 << 11).tess_field(), 4);
        assert_eq!(OpcodeToken(32 << 11).primitive_field(), 32);
        assert_eq!(OpcodeToken(6 << 11).interpolation_mode(), 6);
    }
}
