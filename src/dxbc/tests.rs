//! Hand-assembled programs for what the test shaders cannot hold (vkd3d's HLSL compiler
//! does not emit them): evaluation at samples and offsets, geometry instancing, class
//! linkage, subroutines, doubles, minimum precision, Shader Model 5.1 arrays and
//! unbounded ranges, hull join phases, custom data. Each is decoded and its listing
//! compared with the text expected; the token layouts are those of seed 002.

use super::token::encode::{mask, opcode, operand, select1, swizzle};
use super::*;
use crate::container::FourCc;

const XYZW: [u8; 4] = [0, 1, 2, 3];

/// Builds a program from instructions.
struct Asm {
    version: u32,
    tokens: Vec<u32>,
}

impl Asm {
    fn new(version: u32) -> Self {
        Asm {
            version,
            tokens: Vec::new(),
        }
    }

    /// An instruction: opcode token with `controls` (already shifted), then `body`.
    fn op(&mut self, op: Opcode, controls: u32, body: &[&[u32]]) -> &mut Self {
        let body: Vec<u32> = body.concat();
        self.tokens
            .push(opcode(op.code(), body.len() as u32 + 1, controls));
        self.tokens.extend(body);
        self
    }

    fn raw(&mut self, words: &[u32]) -> &mut Self {
        self.tokens.extend_from_slice(words);
        self
    }

    /// The program part's words: the version token, the length token, the body.
    fn words(&self) -> Vec<u32> {
        let mut t = vec![self.version, self.tokens.len() as u32 + 2];
        t.extend_from_slice(&self.tokens);
        t
    }

    fn program(&self) -> Result<Program, DxbcError> {
        let bytes: Vec<u8> = self.words().iter().flat_map(|w| w.to_le_bytes()).collect();
        decode::decode_part(FourCc::SHEX, &bytes)
    }

    fn listing(&self) -> String {
        listing(&self.program().unwrap())
    }
}

// Operand builders (seed 002, "Instruction Operand Format").
fn reg(ty: u8, i: u32, m: u8) -> Vec<u32> {
    vec![operand(ty, 2, mask(m), 1, [0; 3]), i]
}
fn swz(ty: u8, i: u32, s: [u8; 4]) -> Vec<u32> {
    vec![operand(ty, 2, swizzle(s), 1, [0; 3]), i]
}
fn sel(ty: u8, i: u32, c: u8) -> Vec<u32> {
    vec![operand(ty, 2, select1(c), 1, [0; 3]), i]
}
fn scalar(ty: u8) -> Vec<u32> {
    vec![operand(ty, 1, 0, 0, [0; 3])]
}
fn imm(v: u32) -> Vec<u32> {
    vec![operand(4, 1, 0, 0, [0; 3]), v]
}
fn imm4(v: [u32; 4]) -> Vec<u32> {
    vec![operand(4, 2, 0, 0, [0; 3]), v[0], v[1], v[2], v[3]]
}
/// An extended operand token with modifier `m` and min precision `p`.
fn ext(mut op: Vec<u32>, m: u32, p: u32, non_uniform: bool) -> Vec<u32> {
    op[0] |= 0x8000_0000;
    op.insert(1, 1 | (m << 6) | (p << 14) | (u32::from(non_uniform) << 17));
    op
}
/// The relative index operand `r{i}.{c}`.
fn rel_r(i: u32, c: u8) -> Vec<u32> {
    sel(0, i, c)
}

const TEMP: u8 = 0;
const INPUT: u8 = 1;
const OUTPUT: u8 = 2;
const F: u32 = 0x3f80_0000; // 1.0

/// Evaluation (`eval_*`), modifiers, precise, sample info, info return types, texel
/// offsets at the 4-bit limits, pixel system registers.
#[test]
fn pixel_evaluation_and_modifiers() {
    let mut a = Asm::new(0x0000_0050);
    a.op(Opcode::DclInputPs, 6 << 11, &[&reg(INPUT, 1, 0b0011)])
        .op(Opcode::DclInputPs, 7 << 11, &[&reg(INPUT, 2, 0b0001)])
        .op(Opcode::DclInput, 0, &[&scalar(35)])
        .op(Opcode::DclOutput, 0, &[&scalar(38)])
        .op(Opcode::DclOutput, 0, &[&scalar(15)])
        .op(Opcode::DclTemps, 0, &[&[2]])
        .op(
            Opcode::EvalSampleIndex,
            0,
            &[&reg(TEMP, 0, 0b0011), &swz(INPUT, 1, [0, 1, 0, 0]), &imm(2)],
        )
        .op(
            Opcode::EvalSnapped,
            0,
            &[
                &reg(TEMP, 0, 0b1100),
                &swz(INPUT, 1, [0, 0, 0, 1]),
                &imm4([1, 0xffff_ffff, 0, 0]),
            ],
        )
        .op(
            Opcode::EvalCentroid,
            1 << 13,
            &[&reg(TEMP, 1, 0b0001), &sel(INPUT, 1, 1)],
        )
        .op(
            Opcode::Mad,
            0xf << 19,
            &[
                &reg(TEMP, 0, 0xf),
                &ext(swz(TEMP, 0, XYZW), 1, 0, false),
                &ext(swz(TEMP, 1, [0; 4]), 2, 0, false),
                &ext(swz(INPUT, 1, [1; 4]), 3, 0, false),
            ],
        )
        .op(Opcode::Mov, 0, &[&scalar(38), &imm(0x3f00_0000)])
        .op(Opcode::Discard, 0, &[&scalar(35)])
        .op(
            Opcode::SampleInfo,
            1 << 11,
            &[&reg(TEMP, 0, 1), &[operand(14, 2, select1(0), 0, [0; 3])]],
        )
        .op(
            Opcode::Resinfo,
            1 << 11,
            &[&reg(TEMP, 0, 0xf), &imm(0), &swz(7, 0, XYZW)],
        )
        .raw(&[
            opcode(Opcode::Sample.code(), 10, 0x8000_0000),
            1 | (8 << 9) | (7 << 13),
        ])
        .raw(
            &[
                reg(TEMP, 1, 0xf),
                swz(INPUT, 1, [0, 1, 0, 0]),
                swz(7, 0, XYZW),
                vec![operand(6, 0, 0, 1, [0; 3]), 0],
            ]
            .concat(),
        )
        .op(Opcode::Mov, 0, &[&scalar(15), &imm(5)])
        .op(Opcode::Ret, 0, &[]);
    assert_eq!(
        a.listing(),
        "ps_5_0
dcl_input_ps linear sample v1.xy
dcl_input_ps linear noperspective sample v2.x
dcl_input vCoverage
dcl_output oDepthGE
dcl_output oMask
dcl_temps 2
eval_sample_index r0.xy, v1.xyxx, l(2)
eval_snapped r0.zw, v1.xxxy, l(1, -1, 0, 0)
eval_centroid_sat r1.x, v1.y
mad [precise] r0.xyzw, -r0.xyzw, |r1.xxxx|, -|v1.yyyy|
mov oDepthGE, l(0.500000)
discard_z vCoverage
sampleinfo_uint r0.x, rasterizer.x
resinfo_rcpFloat r0.xyzw, l(0), t0.xyzw
sample_aoffimmi(-8,7,0) r1.xyzw, v1.xyxx, t0.xyzw, s0
mov oMask, l(5)
ret
"
    );
}

/// Geometry instancing and streams (`dcl_gsinstances`, `vGSInstanceID`, `dcl_stream`,
/// stream emission).
#[test]
fn geometry_instances_and_streams() {
    let mut a = Asm::new(0x0002_0050);
    a.op(Opcode::DclGsInstanceCount, 0, &[&[4]])
        .op(Opcode::DclInput, 0, &[&scalar(37)])
        .op(Opcode::DclGsInputPrimitive, 7 << 11, &[])
        .op(Opcode::DclStream, 0, &[&[operand(16, 0, 0, 1, [0; 3]), 1]])
        .op(Opcode::DclGsOutputPrimitiveTopology, 3 << 11, &[])
        .op(Opcode::DclMaxOutputVertexCount, 0, &[&[12]])
        .op(
            Opcode::DclInput,
            0,
            &[&[operand(INPUT, 2, mask(0xf), 2, [0; 3]), 6, 0]],
        )
        .op(
            Opcode::Mov,
            0,
            &[
                &reg(OUTPUT, 0, 0xf),
                &[
                    operand(INPUT, 2, swizzle(XYZW), 2, [0, 2, 0]),
                    5,
                    rel_r(0, 0)[0],
                    0,
                ],
            ],
        )
        .op(
            Opcode::EmitThenCutStream,
            0,
            &[&[operand(16, 0, 0, 1, [0; 3]), 1]],
        )
        .op(Opcode::Cut, 0, &[])
        .op(Opcode::Ret, 0, &[]);
    assert_eq!(
        a.listing(),
        "gs_5_0
dcl_gsinstances 4
dcl_input vGSInstanceID
dcl_inputprimitive triangleadj
dcl_stream m1
dcl_outputtopology linestrip
dcl_maxout 12
dcl_input v[6][0].xyzw
mov o0.xyzw, v[5][r0.x + 0].xyzw
emit_then_cut_stream m1
cut
ret
"
    );
    let p = a.program().unwrap();
    assert!(matches!(
        p.declarations().nth(2),
        Some(Declaration::GsInputPrimitive(Primitive::TriangleAdj))
    ));
}

/// Class linkage (function bodies, tables, interfaces, `fcall`), subroutines (`label`,
/// `call`, `callc`, `retc`), doubles (`d(...)` immediates), minimum precision, an
/// indexable temp with a relative index, UAV flags, a multisampled resource, TGSM.
#[test]
fn linkage_subroutines_doubles_and_flags() {
    let mut a = Asm::new(0x0005_0050);
    let label = |i: u32| vec![operand(10, 0, 0, 1, [0; 3]), i];
    let one = 1.0f64.to_bits();
    let half = 0.5f64.to_bits();
    a.op(
        Opcode::DclGlobalFlags,
        (1 << 11) | (1 << 12) | (1 << 16),
        &[],
    )
    .op(Opcode::DclFunctionBody, 0, &[&[0]])
    .op(Opcode::DclFunctionBody, 0, &[&[1]])
    .op(Opcode::DclFunctionTable, 0, &[&[0, 2, 0, 1]])
    .op(Opcode::DclInterface, 0, &[&[0, 2, 1 | (1 << 16), 0]])
    // The extended form: the token after the opcode token is the length.
    .raw(&[
        opcode(Opcode::DclInterface.code(), 0, 0x8000_0800),
        6,
        1,
        1,
        1 | (2 << 16),
        0,
    ])
    .op(Opcode::DclIndexableTemp, 0, &[&[0, 4, 2]])
    .op(
        Opcode::DclUavStructured,
        0x0081_0000,
        &[&[operand(30, 0, 0, 1, [0; 3]), 0], &[16]],
    )
    .op(
        Opcode::DclUavTyped,
        (8 << 11) | 0x0002_0000,
        &[&[operand(30, 0, 0, 1, [0; 3]), 1], &[0x3333]],
    )
    .op(
        Opcode::DclResource,
        (4 << 11) | (8 << 16),
        &[&[operand(7, 0, 0, 1, [0; 3]), 0], &[0x5555]],
    )
    .op(
        Opcode::DclTgsmRaw,
        0,
        &[&[operand(31, 0, 0, 1, [0; 3]), 0], &[256]],
    )
    .op(Opcode::DclTemps, 0, &[&[2]])
    .op(Opcode::Call, 0, &[&label(0)])
    .op(Opcode::Callc, 1 << 18, &[&sel(TEMP, 0, 0), &label(1)])
    .raw(&[
        opcode(Opcode::InterfaceCall.code(), 6, 0),
        1,
        operand(19, 0, 0, 2, [0; 3]),
        1,
        0,
    ])
    .raw(&[0])
    .op(Opcode::Sync, 0x4800, &[])
    .op(
        Opcode::Dmov,
        0,
        &[
            &reg(TEMP, 0, 0b0011),
            &[
                operand(5, 2, 0, 0, [0; 3]),
                one as u32,
                (one >> 32) as u32,
                half as u32,
                (half >> 32) as u32,
            ],
        ],
    )
    .op(Opcode::Ret, 0, &[])
    .op(Opcode::Label, 0, &[&label(0)])
    .op(
        Opcode::Mov,
        0,
        &[
            &[
                operand(3, 2, mask(0b0010), 2, [0, 3, 0]),
                0,
                2,
                rel_r(1, 0)[0],
                1,
            ],
            &ext(sel(TEMP, 0, 0), 0, 1, false),
        ],
    )
    .op(Opcode::Retc, 0, &[&sel(TEMP, 0, 1)])
    .op(Opcode::Ret, 0, &[])
    .op(Opcode::Label, 0, &[&label(1)])
    .op(Opcode::Ret, 0, &[]);
    let text = a.listing();
    assert_eq!(
        text,
        "cs_5_0
dcl_globalFlags refactoringAllowed | enableDoublePrecisionFloatOps | enableMinimumPrecision
dcl_function_body fb0
dcl_function_body fb1
dcl_function_table ft0 = {fb0, fb1}
dcl_interface fp0[1][2] = {ft0}
dcl_interface_dynamicindexed fp1[2][1] = {ft0}
dcl_indexableTemp x0[4], 2
dcl_uav_structured_glc_opc u0, 16
dcl_uav_typed_texture2darray_rov (sint,sint,sint,sint) u1
dcl_resource_texture2dms(8) (float,float,float,float) t0
dcl_tgsm_raw g0, 256
dcl_temps 2
call l0
callc_nz r0.x, l1
fcall fp1[0][1]
sync_uglobal_t
dmov r0.xy, d(1.000000l, 0.500000l)
ret
label l0
mov x0[r1.x + 2].y, r0.x {min16f}
retc_z r0.y
ret
label l1
ret
"
    );
    let p = a.program().unwrap();
    let (_, fcall) = p
        .executables()
        .find(|(_, e)| e.opcode == Opcode::InterfaceCall)
        .unwrap();
    assert_eq!((fcall.function_index, fcall.unused_tokens), (Some(1), 1));
    let Some(Declaration::Interface(i)) = p.declarations().nth(5) else {
        panic!("interface")
    };
    assert!(i.dynamically_indexed);
    assert_eq!(
        (i.id, i.type_count, i.array_length, i.tables.as_slice()),
        (1, 1, 2, &[0][..])
    );
    assert_eq!(p.resource_dimension(&p.operands[0]), None);
}

/// Shader Model 5.1: 3D declaration operands `T0[lower:upper]` with a space DWORD
/// (0xffffffff upper bound = unbounded), 2D uses with relative and non-uniform indices,
/// 3D constant-buffer uses.
#[test]
fn shader_model_5_1_ranges() {
    let mut a = Asm::new(0x0000_0051);
    let decl3 = |ty: u8, id: u32, lo: u32, hi: u32| vec![operand(ty, 0, 0, 3, [0; 3]), id, lo, hi];
    a.op(
        Opcode::DclResource,
        3 << 11,
        &[&decl3(7, 0, 0, u32::MAX), &[0x5555], &[1]],
    )
    .op(Opcode::DclSampler, 1 << 11, &[&decl3(6, 1, 2, 5), &[0]])
    .op(
        Opcode::DclConstantBuffer,
        1 << 11,
        &[
            &[operand(8, 2, swizzle(XYZW), 3, [0; 3]), 2, 0, 0],
            &[16],
            &[3],
        ],
    )
    .op(Opcode::DclUavRaw, 0, &[&decl3(30, 0, 1, 1), &[0]])
    .op(Opcode::DclTemps, 0, &[&[2]])
    .op(
        Opcode::Sample,
        0,
        &[
            &reg(TEMP, 0, 0xf),
            &swz(INPUT, 0, [0, 1, 0, 0]),
            &ext(
                vec![
                    operand(7, 2, swizzle(XYZW), 2, [0, 3, 0]),
                    0,
                    3,
                    rel_r(1, 0)[0],
                    1,
                ],
                0,
                0,
                true,
            ),
            &[operand(6, 0, 0, 2, [0; 3]), 1, 2],
        ],
    )
    .op(
        Opcode::Mov,
        0,
        &[
            &reg(TEMP, 0, 1),
            &[
                operand(8, 2, select1(0), 3, [0, 0, 3]),
                2,
                0,
                4,
                rel_r(1, 1)[0],
                1,
            ],
        ],
    )
    .op(Opcode::Ret, 0, &[]);
    assert_eq!(
        a.listing(),
        "ps_5_1
dcl_resource_texture2d (float,float,float,float) T0[0:*], space=1
dcl_sampler S1[2:5], mode_comparison, space=0
dcl_constantbuffer CB2[0:0][16], dynamicIndexed, space=3
dcl_uav_raw U0[1:1], space=0
dcl_temps 2
sample r0.xyzw, v0.xyxx, T0[r1.x + 3].xyzw {nonuniform}, S1[2]
mov r0.x, CB2[0][r1.y + 4].x
ret
"
    );
    let p = a.program().unwrap();
    let ranges: Vec<BindingRange> = p
        .declarations()
        .filter_map(|d| d.binding().copied())
        .collect();
    assert_eq!(
        ranges[0],
        BindingRange {
            id: 0,
            lower: 0,
            upper: u32::MAX,
            space: 1
        }
    );
    assert!(ranges[0].is_unbounded());
    assert_eq!(
        ranges[2],
        BindingRange {
            id: 2,
            lower: 0,
            upper: 0,
            space: 3
        }
    );
    // A 5.0-style 1D declaration in a 5.1 program is refused.
    let mut bad = Asm::new(0x0000_0051);
    bad.op(
        Opcode::DclResourceRaw,
        0,
        &[&[operand(7, 0, 0, 1, [0; 3]), 0], &[0]],
    );
    assert!(matches!(
        bad.program(),
        Err(DxbcError::BadIndexDimension { found: 1, .. })
    ));
}

/// Hull join phases, the hull declarations, custom data (comment, immediate constant
/// buffer), a relative index through a one-component register.
#[test]
fn hull_join_phase_and_custom_data() {
    let mut a = Asm::new(0x0003_0050);
    a.op(Opcode::HsDecls, 0, &[])
        .op(Opcode::DclInputControlPointCount, 4 << 11, &[])
        .op(Opcode::DclOutputControlPointCount, 16 << 11, &[])
        .op(Opcode::DclTessDomain, 3 << 11, &[])
        .op(Opcode::DclTessPartitioning, 2 << 11, &[])
        .op(Opcode::DclTessOutputPrimitive, 2 << 11, &[])
        .op(Opcode::DclHsMaxTessFactor, 0, &[&[16.0f32.to_bits()]])
        .raw(&[0x0000_0035, 4, 0x6c6c_6568, 0x006f])
        .raw(&[0x0000_1835, 6, F, 0, 0xffff_ffff, 0x7fff_ffff])
        .op(Opcode::HsJoinPhase, 0, &[])
        .op(Opcode::DclHsJoinPhaseInstanceCount, 0, &[&[2]])
        .op(Opcode::DclInput, 0, &[&scalar(24)])
        .op(Opcode::DclOutputSiv, 0, &[&reg(OUTPUT, 0, 1), &[21]])
        .op(
            Opcode::Mov,
            0,
            &[
                &reg(OUTPUT, 0, 1),
                &[
                    operand(9, 2, select1(0), 1, [2, 0, 0]),
                    operand(24, 1, 0, 0, [0; 3]),
                ],
            ],
        )
        .op(Opcode::Ret, 0, &[]);
    assert_eq!(
        a.listing(),
        "hs_5_0
hs_decls
dcl_input_control_point_count 4
dcl_output_control_point_count 16
dcl_tessellator_domain domain_quad
dcl_tessellator_partitioning partitioning_pow2
dcl_tessellator_output_primitive output_line
dcl_hs_max_tessfactor l(16.000000)
// comment block, 2 words
dcl_immediateConstantBuffer { { 1.000000, 0, -1, 0x7fffffff} }
hs_join_phase
dcl_hs_join_phase_instance_count 2
dcl_input vJoinInstanceID
dcl_output_siv o0.x, finalLineDetailTessFactor
mov o0.x, icb[vJoinInstanceID + 0].x
ret
"
    );
}

/// Refusals name what is wrong and where (seed 002's enumerations and lengths).
#[test]
fn declaration_refusals() {
    // Interpolation mode 8 is undefined.
    let mut a = Asm::new(0x0000_0050);
    a.op(Opcode::DclInputPs, 8 << 11, &[&reg(INPUT, 0, 1)]);
    let e = a.program().unwrap_err();
    assert_eq!(
        e.to_string(),
        "bad interpolation mode 8 at token 0x2 (byte 0x8) of SHEX"
    );
    // A sampler declaration naming a texture register.
    let mut a = Asm::new(0x0000_0050);
    a.op(Opcode::DclSampler, 0, &[&[operand(7, 0, 0, 1, [0; 3]), 0]]);
    assert!(matches!(
        a.program(),
        Err(DxbcError::WrongRegister {
            expected: "sampler",
            found: "resource",
            ..
        })
    ));
    // An indexable temp of 5 components.
    let mut a = Asm::new(0x0000_0050);
    a.op(Opcode::DclIndexableTemp, 0, &[&[0, 4, 5]]);
    assert!(matches!(
        a.program(),
        Err(DxbcError::BadField {
            what: "indexable temp component count",
            value: 5,
            ..
        })
    ));
    // A function table whose length runs past the instruction.
    let mut a = Asm::new(0x0005_0050);
    a.op(Opcode::DclFunctionTable, 0, &[&[0, 9, 0]]);
    assert!(matches!(
        a.program(),
        Err(DxbcError::Truncated {
            what: "function body ids",
            ..
        })
    ));
    // A shader message whose operands run past the block.
    let mut a = Asm::new(0x0005_0050);
    a.raw(&[0x0000_2035, 8, 0x0020_0102, 0, 2, 1, 9, 0]);
    assert!(matches!(
        a.program(),
        Err(DxbcError::BadCustomData { class: 4, .. })
    ));
    // A well-formed shader message is kept with its text and operand.
    let mut a = Asm::new(0x0005_0050);
    a.raw(&[0x0000_2035, 10, 0x0020_0102, 1, 3, 1, 2])
        .raw(&sel(TEMP, 0, 0))
        .raw(&[0x0069_6868]);
    let p = a.program().unwrap();
    let InstructionKind::CustomData(CustomData::ShaderMessage(m)) = &p.instructions[0].kind else {
        panic!("message")
    };
    assert_eq!((m.text.as_str(), m.operands.len()), ("hhi", 1));
    assert_eq!(
        listing(&p),
        "cs_5_0\n// shader message 0x00200102 (printf): \"hhi\", r0.x\n"
    );
}

/// `sync`: bits 11–14 of the opcode token are its flags (threads in group 0x800,
/// group-shared memory 0x1000, UAV memory of the group 0x2000, global UAV memory 0x4000;
/// `D3D11_SB_SYNC_*`), so bit 13 is never `_sat` there. Every combination lists in fxc's
/// order: `_uglobal`, `_ugroup`, `_g`, `_t`.
#[test]
fn sync_flags_are_not_saturate() {
    let names = ["_t", "_g", "_ugroup", "_uglobal"];
    for flags in 1u32..16 {
        let mut a = Asm::new(0x0005_0050);
        a.op(Opcode::Sync, flags << 11, &[]).op(Opcode::Ret, 0, &[]);
        let mut want = String::from("sync");
        for bit in (0..4).rev() {
            if flags & (1 << bit) != 0 {
                want.push_str(names[bit]);
            }
        }
        let text = a.listing();
        assert_eq!(text, format!("cs_5_0\n{want}\nret\n"), "flags {flags:#x}");
        let p = a.program().unwrap();
        let (_, e) = p.executables().next().unwrap();
        assert!(!e.saturate, "flags {flags:#x}");
    }
    // `_sat` itself still reads from bit 13 of an arithmetic opcode.
    let mut a = Asm::new(0x0005_0050);
    a.op(
        Opcode::Mov,
        1 << 13,
        &[&reg(TEMP, 0, 0b0001), &sel(TEMP, 1, 0)],
    )
    .op(Opcode::Ret, 0, &[]);
    assert!(
        a.listing().contains("mov_sat r0.x, r1.x"),
        "{}",
        a.listing()
    );
}

/// A hand-assembled container: the parts of the compiled container at `compiled` (a
/// path from the crate's root), its program part replaced by what `program` makes of
/// the old program's words, its statistics part (`STAT`, which counts the old program's
/// instructions) dropped.
fn with_program(compiled: &str, program: impl FnOnce(&[u32]) -> Vec<u32>) -> Vec<u8> {
    let root = std::path::Path::new(env!("CARGO_MANIFEST_DIR"));
    let compiled = std::fs::read(root.join(compiled)).unwrap();
    let c = crate::container::Container::parse(&compiled).unwrap();
    let old: Vec<u32> = c
        .program_part()
        .unwrap()
        .data
        .chunks_exact(4)
        .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
        .collect();
    let program: Vec<u8> = program(&old).iter().flat_map(|w| w.to_le_bytes()).collect();
    let parts: Vec<(FourCc, &[u8])> = c
        .parts
        .iter()
        .filter(|p| p.tag != FourCc(*b"STAT"))
        .map(|p| {
            if matches!(&p.tag.0, b"SHDR" | b"SHEX") {
                (p.tag, program.as_slice())
            } else {
                (p.tag, p.data)
            }
        })
        .collect();
    crate::container::write::write_container(&parts).unwrap()
}

mod cube_instanced;
mod fork_join;
