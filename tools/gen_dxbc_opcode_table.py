#!/usr/bin/env python3
"""Generates src/dxbc/opcode_table.rs: the Shader Model 4.0-5.1 opcode table.

The opcode numbers come from the D3D10_SB_OPCODE_TYPE enum of the token-format header
(d3d11TokenizedProgramFormat.hpp / d3d12TokenizedProgramFormat.hpp in DirectX-Headers,
the header that seed 002 flattens). The enum numbers its entries implicitly from 0 in
declaration order; the RESERVED entries keep their numbers and are left out of the table,
so the decoder refuses them.

What the header does not say is written below, one line per opcode: the Rust variant, the
mnemonic fxc prints, the operand count, how many leading operands are destinations, the
data type of each operand slot (used by the listing to print immediates: f float, i int,
u uint, d double, a untyped/raw bits), and the opcode's class. Declarations and custom data
have their own token layouts and list no operands here.

    tools/gen_dxbc_opcode_table.py HEADER > src/dxbc/opcode_table.rs

HEADER is any file holding the `typedef enum D3D10_SB_OPCODE_TYPE { ... }` declaration.
The output is passed through rustfmt (edition 2024) so that it is checked in formatted.
"""

import re
import subprocess
import sys

# enum name (prefix stripped) | variant | mnemonic | operands | destinations | types | class
TABLE = """
ADD | Add | add | 3 | 1 | fff | Float
AND | And | and | 3 | 1 | uuu | Bit
BREAK | Break | break | 0 | 0 | | Flow
BREAKC | Breakc | breakc | 1 | 0 | u | Flow
CALL | Call | call | 1 | 0 | u | Flow
CALLC | Callc | callc | 2 | 0 | uu | Flow
CASE | Case | case | 1 | 0 | i | Flow
CONTINUE | Continue | continue | 0 | 0 | | Flow
CONTINUEC | Continuec | continuec | 1 | 0 | u | Flow
CUT | Cut | cut | 0 | 0 | | Flow
DEFAULT | Default | default | 0 | 0 | | Flow
DERIV_RTX | DerivRtx | deriv_rtx | 2 | 1 | ff | Float
DERIV_RTY | DerivRty | deriv_rty | 2 | 1 | ff | Float
DISCARD | Discard | discard | 1 | 0 | u | Flow
DIV | Div | div | 3 | 1 | fff | Float
DP2 | Dp2 | dp2 | 3 | 1 | fff | Float
DP3 | Dp3 | dp3 | 3 | 1 | fff | Float
DP4 | Dp4 | dp4 | 3 | 1 | fff | Float
ELSE | Else | else | 0 | 0 | | Flow
EMIT | Emit | emit | 0 | 0 | | Flow
EMITTHENCUT | EmitThenCut | emit_then_cut | 0 | 0 | | Flow
ENDIF | EndIf | endif | 0 | 0 | | Flow
ENDLOOP | EndLoop | endloop | 0 | 0 | | Flow
ENDSWITCH | EndSwitch | endswitch | 0 | 0 | | Flow
EQ | Eq | eq | 3 | 1 | uff | Float
EXP | Exp | exp | 2 | 1 | ff | Float
FRC | Frc | frc | 2 | 1 | ff | Float
FTOI | Ftoi | ftoi | 2 | 1 | if | Conversion
FTOU | Ftou | ftou | 2 | 1 | uf | Conversion
GE | Ge | ge | 3 | 1 | uff | Float
IADD | Iadd | iadd | 3 | 1 | iii | Int
IF | If | if | 1 | 0 | u | Flow
IEQ | Ieq | ieq | 3 | 1 | uii | Int
IGE | Ige | ige | 3 | 1 | uii | Int
ILT | Ilt | ilt | 3 | 1 | uii | Int
IMAD | Imad | imad | 4 | 1 | iiii | Int
IMAX | Imax | imax | 3 | 1 | iii | Int
IMIN | Imin | imin | 3 | 1 | iii | Int
IMUL | Imul | imul | 4 | 2 | iiii | Int
INE | Ine | ine | 3 | 1 | uii | Int
INEG | Ineg | ineg | 2 | 1 | ii | Int
ISHL | Ishl | ishl | 3 | 1 | iiu | Int
ISHR | Ishr | ishr | 3 | 1 | iiu | Int
ITOF | Itof | itof | 2 | 1 | fi | Conversion
LABEL | Label | label | 1 | 0 | u | Flow
LD | Ld | ld | 3 | 1 | aia | Texture
LD_MS | LdMs | ldms | 4 | 1 | aiai | Texture
LOG | Log | log | 2 | 1 | ff | Float
LOOP | Loop | loop | 0 | 0 | | Flow
LT | Lt | lt | 3 | 1 | uff | Float
MAD | Mad | mad | 4 | 1 | ffff | Float
MIN | Min | min | 3 | 1 | fff | Float
MAX | Max | max | 3 | 1 | fff | Float
CUSTOMDATA | CustomData | customdata | 0 | 0 | | CustomData
MOV | Mov | mov | 2 | 1 | aa | Move
MOVC | Movc | movc | 4 | 1 | auaa | Move
MUL | Mul | mul | 3 | 1 | fff | Float
NE | Ne | ne | 3 | 1 | uff | Float
NOP | Nop | nop | 0 | 0 | | Flow
NOT | Not | not | 2 | 1 | uu | Bit
OR | Or | or | 3 | 1 | uuu | Bit
RESINFO | Resinfo | resinfo | 3 | 1 | aua | Texture
RET | Ret | ret | 0 | 0 | | Flow
RETC | Retc | retc | 1 | 0 | u | Flow
ROUND_NE | RoundNe | round_ne | 2 | 1 | ff | Float
ROUND_NI | RoundNi | round_ni | 2 | 1 | ff | Float
ROUND_PI | RoundPi | round_pi | 2 | 1 | ff | Float
ROUND_Z | RoundZ | round_z | 2 | 1 | ff | Float
RSQ | Rsq | rsq | 2 | 1 | ff | Float
SAMPLE | Sample | sample | 4 | 1 | afaa | Texture
SAMPLE_C | SampleC | sample_c | 5 | 1 | afaaf | Texture
SAMPLE_C_LZ | SampleCLz | sample_c_lz | 5 | 1 | afaaf | Texture
SAMPLE_L | SampleL | sample_l | 5 | 1 | afaaf | Texture
SAMPLE_D | SampleD | sample_d | 6 | 1 | afaaff | Texture
SAMPLE_B | SampleB | sample_b | 5 | 1 | afaaf | Texture
SQRT | Sqrt | sqrt | 2 | 1 | ff | Float
SWITCH | Switch | switch | 1 | 0 | i | Flow
SINCOS | Sincos | sincos | 3 | 2 | fff | Float
UDIV | Udiv | udiv | 4 | 2 | uuuu | Uint
ULT | Ult | ult | 3 | 1 | uuu | Uint
UGE | Uge | uge | 3 | 1 | uuu | Uint
UMUL | Umul | umul | 4 | 2 | uuuu | Uint
UMAD | Umad | umad | 4 | 1 | uuuu | Uint
UMAX | Umax | umax | 3 | 1 | uuu | Uint
UMIN | Umin | umin | 3 | 1 | uuu | Uint
USHR | Ushr | ushr | 3 | 1 | uuu | Uint
UTOF | Utof | utof | 2 | 1 | fu | Conversion
XOR | Xor | xor | 3 | 1 | uuu | Bit
DCL_RESOURCE | DclResource | dcl_resource | 0 | 0 | | Declaration
DCL_CONSTANT_BUFFER | DclConstantBuffer | dcl_constantbuffer | 0 | 0 | | Declaration
DCL_SAMPLER | DclSampler | dcl_sampler | 0 | 0 | | Declaration
DCL_INDEX_RANGE | DclIndexRange | dcl_indexrange | 0 | 0 | | Declaration
DCL_GS_OUTPUT_PRIMITIVE_TOPOLOGY | DclGsOutputPrimitiveTopology | dcl_outputtopology | 0 | 0 | | Declaration
DCL_GS_INPUT_PRIMITIVE | DclGsInputPrimitive | dcl_inputprimitive | 0 | 0 | | Declaration
DCL_MAX_OUTPUT_VERTEX_COUNT | DclMaxOutputVertexCount | dcl_maxout | 0 | 0 | | Declaration
DCL_INPUT | DclInput | dcl_input | 0 | 0 | | Declaration
DCL_INPUT_SGV | DclInputSgv | dcl_input_sgv | 0 | 0 | | Declaration
DCL_INPUT_SIV | DclInputSiv | dcl_input_siv | 0 | 0 | | Declaration
DCL_INPUT_PS | DclInputPs | dcl_input_ps | 0 | 0 | | Declaration
DCL_INPUT_PS_SGV | DclInputPsSgv | dcl_input_ps_sgv | 0 | 0 | | Declaration
DCL_INPUT_PS_SIV | DclInputPsSiv | dcl_input_ps_siv | 0 | 0 | | Declaration
DCL_OUTPUT | DclOutput | dcl_output | 0 | 0 | | Declaration
DCL_OUTPUT_SGV | DclOutputSgv | dcl_output_sgv | 0 | 0 | | Declaration
DCL_OUTPUT_SIV | DclOutputSiv | dcl_output_siv | 0 | 0 | | Declaration
DCL_TEMPS | DclTemps | dcl_temps | 0 | 0 | | Declaration
DCL_INDEXABLE_TEMP | DclIndexableTemp | dcl_indexableTemp | 0 | 0 | | Declaration
DCL_GLOBAL_FLAGS | DclGlobalFlags | dcl_globalFlags | 0 | 0 | | Declaration
LOD | Lod | lod | 4 | 1 | afaa | Texture
GATHER4 | Gather4 | gather4 | 4 | 1 | afaa | Texture
SAMPLE_POS | SamplePos | samplepos | 3 | 1 | fai | Texture
SAMPLE_INFO | SampleInfo | sampleinfo | 2 | 1 | aa | Texture
HS_DECLS | HsDecls | hs_decls | 0 | 0 | | HullPhase
HS_CONTROL_POINT_PHASE | HsControlPointPhase | hs_control_point_phase | 0 | 0 | | HullPhase
HS_FORK_PHASE | HsForkPhase | hs_fork_phase | 0 | 0 | | HullPhase
HS_JOIN_PHASE | HsJoinPhase | hs_join_phase | 0 | 0 | | HullPhase
EMIT_STREAM | EmitStream | emit_stream | 1 | 0 | a | Flow
CUT_STREAM | CutStream | cut_stream | 1 | 0 | a | Flow
EMITTHENCUT_STREAM | EmitThenCutStream | emit_then_cut_stream | 1 | 0 | a | Flow
INTERFACE_CALL | InterfaceCall | fcall | 1 | 0 | a | Flow
BUFINFO | Bufinfo | bufinfo | 2 | 1 | ua | Texture
DERIV_RTX_COARSE | DerivRtxCoarse | deriv_rtx_coarse | 2 | 1 | ff | Float
DERIV_RTX_FINE | DerivRtxFine | deriv_rtx_fine | 2 | 1 | ff | Float
DERIV_RTY_COARSE | DerivRtyCoarse | deriv_rty_coarse | 2 | 1 | ff | Float
DERIV_RTY_FINE | DerivRtyFine | deriv_rty_fine | 2 | 1 | ff | Float
GATHER4_C | Gather4C | gather4_c | 5 | 1 | afaaf | Texture
GATHER4_PO | Gather4Po | gather4_po | 5 | 1 | afiaa | Texture
GATHER4_PO_C | Gather4PoC | gather4_po_c | 6 | 1 | afiaaf | Texture
RCP | Rcp | rcp | 2 | 1 | ff | Float
F32TOF16 | F32tof16 | f32tof16 | 2 | 1 | uf | Conversion
F16TOF32 | F16tof32 | f16tof32 | 2 | 1 | fu | Conversion
UADDC | Uaddc | uaddc | 4 | 2 | uuuu | Uint
USUBB | Usubb | usubb | 4 | 2 | uuuu | Uint
COUNTBITS | Countbits | countbits | 2 | 1 | uu | Bit
FIRSTBIT_HI | FirstbitHi | firstbit_hi | 2 | 1 | uu | Bit
FIRSTBIT_LO | FirstbitLo | firstbit_lo | 2 | 1 | uu | Bit
FIRSTBIT_SHI | FirstbitShi | firstbit_shi | 2 | 1 | ui | Bit
UBFE | Ubfe | ubfe | 4 | 1 | uuuu | Bit
IBFE | Ibfe | ibfe | 4 | 1 | iuui | Bit
BFI | Bfi | bfi | 5 | 1 | uuuuu | Bit
BFREV | Bfrev | bfrev | 2 | 1 | uu | Bit
SWAPC | Swapc | swapc | 5 | 2 | aauaa | Move
DCL_STREAM | DclStream | dcl_stream | 0 | 0 | | Declaration
DCL_FUNCTION_BODY | DclFunctionBody | dcl_function_body | 0 | 0 | | Declaration
DCL_FUNCTION_TABLE | DclFunctionTable | dcl_function_table | 0 | 0 | | Declaration
DCL_INTERFACE | DclInterface | dcl_interface | 0 | 0 | | Declaration
DCL_INPUT_CONTROL_POINT_COUNT | DclInputControlPointCount | dcl_input_control_point_count | 0 | 0 | | Declaration
DCL_OUTPUT_CONTROL_POINT_COUNT | DclOutputControlPointCount | dcl_output_control_point_count | 0 | 0 | | Declaration
DCL_TESS_DOMAIN | DclTessDomain | dcl_tessellator_domain | 0 | 0 | | Declaration
DCL_TESS_PARTITIONING | DclTessPartitioning | dcl_tessellator_partitioning | 0 | 0 | | Declaration
DCL_TESS_OUTPUT_PRIMITIVE | DclTessOutputPrimitive | dcl_tessellator_output_primitive | 0 | 0 | | Declaration
DCL_HS_MAX_TESSFACTOR | DclHsMaxTessFactor | dcl_hs_max_tessfactor | 0 | 0 | | Declaration
DCL_HS_FORK_PHASE_INSTANCE_COUNT | DclHsForkPhaseInstanceCount | dcl_hs_fork_phase_instance_count | 0 | 0 | | Declaration
DCL_HS_JOIN_PHASE_INSTANCE_COUNT | DclHsJoinPhaseInstanceCount | dcl_hs_join_phase_instance_count | 0 | 0 | | Declaration
DCL_THREAD_GROUP | DclThreadGroup | dcl_thread_group | 0 | 0 | | Declaration
DCL_UNORDERED_ACCESS_VIEW_TYPED | DclUavTyped | dcl_uav_typed | 0 | 0 | | Declaration
DCL_UNORDERED_ACCESS_VIEW_RAW | DclUavRaw | dcl_uav_raw | 0 | 0 | | Declaration
DCL_UNORDERED_ACCESS_VIEW_STRUCTURED | DclUavStructured | dcl_uav_structured | 0 | 0 | | Declaration
DCL_THREAD_GROUP_SHARED_MEMORY_RAW | DclTgsmRaw | dcl_tgsm_raw | 0 | 0 | | Declaration
DCL_THREAD_GROUP_SHARED_MEMORY_STRUCTURED | DclTgsmStructured | dcl_tgsm_structured | 0 | 0 | | Declaration
DCL_RESOURCE_RAW | DclResourceRaw | dcl_resource_raw | 0 | 0 | | Declaration
DCL_RESOURCE_STRUCTURED | DclResourceStructured | dcl_resource_structured | 0 | 0 | | Declaration
LD_UAV_TYPED | LdUavTyped | ld_uav_typed | 3 | 1 | aua | Memory
STORE_UAV_TYPED | StoreUavTyped | store_uav_typed | 3 | 1 | aua | Memory
LD_RAW | LdRaw | ld_raw | 3 | 1 | aua | Memory
STORE_RAW | StoreRaw | store_raw | 3 | 1 | aua | Memory
LD_STRUCTURED | LdStructured | ld_structured | 4 | 1 | auua | Memory
STORE_STRUCTURED | StoreStructured | store_structured | 4 | 1 | auua | Memory
ATOMIC_AND | AtomicAnd | atomic_and | 3 | 1 | auu | Atomic
ATOMIC_OR | AtomicOr | atomic_or | 3 | 1 | auu | Atomic
ATOMIC_XOR | AtomicXor | atomic_xor | 3 | 1 | auu | Atomic
ATOMIC_CMP_STORE | AtomicCmpStore | atomic_cmp_store | 4 | 1 | auuu | Atomic
ATOMIC_IADD | AtomicIadd | atomic_iadd | 3 | 1 | aui | Atomic
ATOMIC_IMAX | AtomicImax | atomic_imax | 3 | 1 | aui | Atomic
ATOMIC_IMIN | AtomicImin | atomic_imin | 3 | 1 | aui | Atomic
ATOMIC_UMAX | AtomicUmax | atomic_umax | 3 | 1 | auu | Atomic
ATOMIC_UMIN | AtomicUmin | atomic_umin | 3 | 1 | auu | Atomic
IMM_ATOMIC_ALLOC | ImmAtomicAlloc | imm_atomic_alloc | 2 | 1 | ua | Atomic
IMM_ATOMIC_CONSUME | ImmAtomicConsume | imm_atomic_consume | 2 | 1 | ua | Atomic
IMM_ATOMIC_IADD | ImmAtomicIadd | imm_atomic_iadd | 4 | 2 | iaui | Atomic
IMM_ATOMIC_AND | ImmAtomicAnd | imm_atomic_and | 4 | 2 | uauu | Atomic
IMM_ATOMIC_OR | ImmAtomicOr | imm_atomic_or | 4 | 2 | uauu | Atomic
IMM_ATOMIC_XOR | ImmAtomicXor | imm_atomic_xor | 4 | 2 | uauu | Atomic
IMM_ATOMIC_EXCH | ImmAtomicExch | imm_atomic_exch | 4 | 2 | aaua | Atomic
IMM_ATOMIC_CMP_EXCH | ImmAtomicCmpExch | imm_atomic_cmp_exch | 5 | 2 | aauaa | Atomic
IMM_ATOMIC_IMAX | ImmAtomicImax | imm_atomic_imax | 4 | 2 | iaui | Atomic
IMM_ATOMIC_IMIN | ImmAtomicImin | imm_atomic_imin | 4 | 2 | iaui | Atomic
IMM_ATOMIC_UMAX | ImmAtomicUmax | imm_atomic_umax | 4 | 2 | uauu | Atomic
IMM_ATOMIC_UMIN | ImmAtomicUmin | imm_atomic_umin | 4 | 2 | uauu | Atomic
SYNC | Sync | sync | 0 | 0 | | Flow
DADD | Dadd | dadd | 3 | 1 | ddd | Double
DMAX | Dmax | dmax | 3 | 1 | ddd | Double
DMIN | Dmin | dmin | 3 | 1 | ddd | Double
DMUL | Dmul | dmul | 3 | 1 | ddd | Double
DEQ | Deq | deq | 3 | 1 | udd | Double
DGE | Dge | dge | 3 | 1 | udd | Double
DLT | Dlt | dlt | 3 | 1 | udd | Double
DNE | Dne | dne | 3 | 1 | udd | Double
DMOV | Dmov | dmov | 2 | 1 | dd | Double
DMOVC | Dmovc | dmovc | 4 | 1 | dudd | Double
DTOF | Dtof | dtof | 2 | 1 | fd | Conversion
FTOD | Ftod | ftod | 2 | 1 | df | Conversion
EVAL_SNAPPED | EvalSnapped | eval_snapped | 3 | 1 | ffi | Float
EVAL_SAMPLE_INDEX | EvalSampleIndex | eval_sample_index | 3 | 1 | ffi | Float
EVAL_CENTROID | EvalCentroid | eval_centroid | 2 | 1 | ff | Float
DCL_GS_INSTANCE_COUNT | DclGsInstanceCount | dcl_gsinstances | 0 | 0 | | Declaration
ABORT | Abort | abort | 0 | 0 | | Debug
DEBUG_BREAK | DebugBreak | debug_break | 0 | 0 | | Debug
DDIV | Ddiv | ddiv | 3 | 1 | ddd | Double
DFMA | Dfma | dfma | 4 | 1 | dddd | Double
DRCP | Drcp | drcp | 2 | 1 | dd | Double
MSAD | Msad | msad | 4 | 1 | uuuu | Uint
DTOI | Dtoi | dtoi | 2 | 1 | id | Conversion
DTOU | Dtou | dtou | 2 | 1 | ud | Conversion
ITOD | Itod | itod | 2 | 1 | di | Conversion
UTOD | Utod | utod | 2 | 1 | du | Conversion
GATHER4_FEEDBACK | Gather4Feedback | gather4_s | 5 | 2 | aafaa | Texture
GATHER4_C_FEEDBACK | Gather4CFeedback | gather4_c_s | 6 | 2 | aafaaf | Texture
GATHER4_PO_FEEDBACK | Gather4PoFeedback | gather4_po_s | 6 | 2 | aafiaa | Texture
GATHER4_PO_C_FEEDBACK | Gather4PoCFeedback | gather4_po_c_s | 7 | 2 | aafiaaf | Texture
LD_FEEDBACK | LdFeedback | ld_s | 4 | 2 | aaia | Texture
LD_MS_FEEDBACK | LdMsFeedback | ldms_s | 5 | 2 | aaiai | Texture
LD_UAV_TYPED_FEEDBACK | LdUavTypedFeedback | ld_uav_typed_s | 4 | 2 | aaua | Memory
LD_RAW_FEEDBACK | LdRawFeedback | ld_raw_s | 4 | 2 | aaua | Memory
LD_STRUCTURED_FEEDBACK | LdStructuredFeedback | ld_structured_s | 5 | 2 | aauua | Memory
SAMPLE_L_FEEDBACK | SampleLFeedback | sample_l_s | 6 | 2 | aafaaf | Texture
SAMPLE_C_LZ_FEEDBACK | SampleCLzFeedback | sample_c_lz_s | 6 | 2 | aafaaf | Texture
SAMPLE_CLAMP_FEEDBACK | SampleClampFeedback | sample_cl_s | 6 | 2 | aafaaf | Texture
SAMPLE_B_CLAMP_FEEDBACK | SampleBClampFeedback | sample_b_cl_s | 7 | 2 | aafaaff | Texture
SAMPLE_D_CLAMP_FEEDBACK | SampleDClampFeedback | sample_d_cl_s | 8 | 2 | aafaafff | Texture
SAMPLE_C_CLAMP_FEEDBACK | SampleCClampFeedback | sample_c_cl_s | 7 | 2 | aafaaff | Texture
CHECK_ACCESS_FULLY_MAPPED | CheckAccessFullyMapped | check_access_fully_mapped | 2 | 1 | uu | Texture
"""

TYPES = {"f": "Float", "i": "Int", "u": "Uint", "d": "Double", "a": "Untyped"}


def read_enum(path):
    text = open(path, encoding="utf-8", errors="replace").read()
    m = re.search(r"typedef\s+enum\s+D3D10_SB_OPCODE_TYPE\s*\{(.*?)\}\s*D3D10_SB_OPCODE_TYPE\s*;", text, re.S)
    if not m:
        sys.exit(
            f"{path}: no `typedef enum D3D10_SB_OPCODE_TYPE {{...}}` found (seed 002's flattened copy "
            "lost it; pass d3d12TokenizedProgramFormat.hpp from DirectX-Headers)"
        )
    body = re.sub(r"//[^\n]*", "", m.group(1))
    entries, value = [], 0
    for item in body.split(","):
        item = item.strip()
        if not item:
            continue
        name, _, explicit = item.partition("=")
        name = name.strip()
        if explicit.strip():
            value = int(explicit.strip(), 0)
        entries.append((name, value))
        value += 1
    return entries


def main():
    if len(sys.argv) != 2:
        sys.exit(__doc__)
    rows = {}
    for line in TABLE.strip().splitlines():
        key, variant, mnemonic, operands, dsts, types, cls = [c.strip() for c in line.split("|")]
        assert len(types) == int(operands), line
        rows[key] = (variant, mnemonic, int(operands), int(dsts), types, cls)
    ops = []
    for name, value in read_enum(sys.argv[1]):
        key = re.sub(r"^D3D(10|10_1|11|11_1|WDDM1_3)_SB_OPCODE_", "", name)
        if "RESERVED" in key or key == "D3D10_SB_NUM_OPCODES" or name == "D3D10_SB_NUM_OPCODES":
            continue
        if key not in rows:
            sys.exit(f"opcode {name} has no row in the table")
        ops.append((value, name) + rows.pop(key))
    if rows:
        sys.exit(f"rows without an enum entry: {sorted(rows)}")

    out = []
    w = out.append
    w("// generated by tools/gen_dxbc_opcode_table.py from D3D10_SB_OPCODE_TYPE; do not edit.")
    w("//")
    w("// Opcode numbers: the enum of d3d12TokenizedProgramFormat.hpp (seed 002's header). Mnemonics,")
    w("// operand counts and operand types: the table in the script.")
    w("")
    w("use super::opcode::{OpcodeClass, OpcodeInfo, OperandType};")
    w("")
    w("/// A Shader Model 4.0-5.1 opcode (bits 0..11 of an opcode token), `D3D10_SB_OPCODE_TYPE`.")
    w("#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]")
    w("#[repr(u16)]")
    w("pub enum Opcode {")
    for value, name, variant, mnemonic, *_ in ops:
        w(f"    /// `{mnemonic}` ({name} = {value}).")
        w(f"    {variant} = {value},")
    w("}")
    w("")
    w(f"/// Every opcode, in numeric order.")
    w(f"pub const ALL_OPCODES: [Opcode; {len(ops)}] = [")
    for op in ops:
        w(f"    Opcode::{op[2]},")
    w("];")
    w("")
    w("impl Opcode {")
    w("    /// The opcode for the 11-bit code of an opcode token; `None` for reserved and unknown codes.")
    w("    pub const fn from_code(code: u16) -> Option<Opcode> {")
    w("        Some(match code {")
    for value, _, variant, *_ in ops:
        w(f"            {value} => Opcode::{variant},")
    w("            _ => return None,")
    w("        })")
    w("    }")
    w("")
    w("    /// The numeric code.")
    w("    pub const fn code(self) -> u16 {")
    w("        self as u16")
    w("    }")
    w("")
    w("    /// The table row: mnemonic, operand counts and types, class.")
    w("    #[inline]")
    w("    pub fn info(self) -> &'static OpcodeInfo {")
    w("        // Every variant's code indexes a row (the table has a row for each code up to the")
    w("        // last one, reserved codes included).")
    w("        OPCODE_INFO.get(usize::from(self as u16)).unwrap_or(&RESERVED)")
    w("    }")
    w("}")
    w("")
    w("/// The row of a reserved code (never returned for a valid opcode).")
    w("const RESERVED: OpcodeInfo = OpcodeInfo { mnemonic: \"reserved\", operands: 0, destinations: 0, types: &[], class: OpcodeClass::Debug };")
    w("")
    last = max(v for v, *_ in ops)
    by_code = {v: row for v, *row in ops}
    w(f"/// The rows, indexed by opcode code.")
    w(f"static OPCODE_INFO: [OpcodeInfo; {last + 1}] = [")
    for code in range(last + 1):
        if code not in by_code:
            w(f"    RESERVED, // {code}")
            continue
        name, variant, mnemonic, operands, dsts, types, cls = by_code[code]
        ts = ", ".join(f"OperandType::{TYPES[t]}" for t in types)
        w(f"    OpcodeInfo {{ mnemonic: \"{mnemonic}\", operands: {operands}, destinations: {dsts}, types: &[{ts}], class: OpcodeClass::{cls} }}, // {code}")
    w("];")
    text = "\n".join(out) + "\n"
    fmt = subprocess.run(["rustfmt", "--edition", "2024"], input=text, capture_output=True, text=True)
    if fmt.returncode != 0:
        sys.exit("rustfmt failed:\n" + fmt.stderr)
    sys.stdout.write(fmt.stdout)


if __name__ == "__main__":
    main()
