//! The geometry program of `examples/frames/cube_map_instanced.toml`, assembled here
//! because vkd3d's HLSL compiler has no `[instance(n)]`: the one-pass cube map's
//! program (`shaders/cube_one_pass.hlsl`, whose geometry program loops over the six
//! faces) with the loop replaced by geometry instancing — `dcl_gsinstances 6`, one face
//! per instance, the face being `vGSInstanceID` (D3D11.3 §13.2 "GS Instancing": each
//! instance runs the program once for the same input primitive, `SV_GSInstanceID` =
//! 0 … n − 1, and their output is ordered instance by instance). Copy k is moved right by
//! k / 16, as the loop does: `utof` of k times 0.0625 is exact, so the instanced frame
//! equals `examples/frames/cube_map.toml` bit for bit.
//!
//! The container keeps the vkd3d-compiled program's signature and resource parts (the
//! stage's inputs and outputs are the same) and drops its statistics part, which counts
//! the loop's instructions. The committed file is what this test makes
//! (`DXLANE_BLESS=1` rewrites it).

use super::*;

/// The committed container, from the crate's root.
const COMMITTED: &str = "examples/frames/cube_map_instanced.gs_5_0.dxbc";
/// The vkd3d-compiled program whose parts it keeps.
const COMPILED: &str = "shaders/cube_one_pass.gs_5_0.dxbc";

/// `vGSInstanceID` (D3D11_SB_OPERAND_TYPE_INPUT_GS_INSTANCE_ID).
const GS_INSTANCE_ID: u8 = 37;
/// A stream operand (`m#`).
const STREAM: u8 = 16;
/// The system-value names of `dcl_*_siv` (D3D10_SB_NAME): position, render-target array
/// index.
const NAME_POSITION: u32 = 1;
const NAME_RT_ARRAY_INDEX: u32 = 4;

/// `v[i][r]` with a swizzle.
fn vin(i: u32, r: u32, s: [u8; 4]) -> Vec<u32> {
    vec![operand(INPUT, 2, swizzle(s), 2, [0; 3]), i, r]
}

/// `v[i][r]`, one component.
fn vin1(i: u32, r: u32, c: u8) -> Vec<u32> {
    vec![operand(INPUT, 2, select1(c), 2, [0; 3]), i, r]
}

/// The program's tokens: declarations as the compiled program has them (with three
/// output vertices, one face, instead of eighteen), then one face.
fn program_tokens() -> Vec<u32> {
    let m0 = [operand(STREAM, 0, 0, 1, [0; 3]), 0];
    let mut a = Asm::new(0x0002_0050);
    a.op(Opcode::DclGsInstanceCount, 0, &[&[6]])
        .op(Opcode::DclInput, 0, &[&scalar(GS_INSTANCE_ID)])
        // trianglelist in, trianglestrip out (D3D10_SB_PRIMITIVE_TRIANGLE = 3,
        // D3D10_SB_PRIMITIVE_TOPOLOGY_TRIANGLESTRIP = 5).
        .op(Opcode::DclGsInputPrimitive, 3 << 11, &[])
        .op(Opcode::DclGsOutputPrimitiveTopology, 5 << 11, &[])
        .op(Opcode::DclMaxOutputVertexCount, 0, &[&[3]])
        .op(Opcode::DclStream, 0, &[&m0])
        .op(
            Opcode::DclInputSiv,
            0,
            &[
                &[operand(INPUT, 2, mask(0xf), 2, [0; 3]), 3, 0],
                &[NAME_POSITION],
            ],
        )
        .op(
            Opcode::DclInput,
            0,
            &[&[operand(INPUT, 2, mask(0xf), 2, [0; 3]), 3, 1]],
        )
        .op(
            Opcode::DclOutputSiv,
            0,
            &[&reg(OUTPUT, 0, 0xf), &[NAME_POSITION]],
        )
        .op(Opcode::DclOutput, 0, &[&reg(OUTPUT, 1, 0xf)])
        .op(
            Opcode::DclOutputSiv,
            0,
            &[&reg(OUTPUT, 2, 0b0001), &[NAME_RT_ARRAY_INDEX]],
        )
        .op(Opcode::DclTemps, 0, &[&[1]])
        // r0.x = k / 16.
        .op(
            Opcode::Utof,
            0,
            &[&reg(TEMP, 0, 0b0001), &scalar(GS_INSTANCE_ID)],
        )
        .op(
            Opcode::Mul,
            0,
            &[
                &reg(TEMP, 0, 0b0001),
                &sel(TEMP, 0, 0),
                &imm(0.0625f32.to_bits()),
            ],
        );
    for i in 0..3 {
        a.op(
            Opcode::Add,
            0,
            &[&reg(OUTPUT, 0, 0b0001), &vin1(i, 0, 0), &sel(TEMP, 0, 0)],
        )
        .op(
            Opcode::Mov,
            0,
            &[&reg(OUTPUT, 0, 0b1110), &vin(i, 0, [1, 1, 2, 3])],
        )
        .op(Opcode::Mov, 0, &[&reg(OUTPUT, 1, 0xf), &vin(i, 1, XYZW)])
        .op(
            Opcode::Mov,
            0,
            &[&reg(OUTPUT, 2, 0b0001), &scalar(GS_INSTANCE_ID)],
        )
        .op(Opcode::EmitStream, 0, &[&m0]);
    }
    a.op(Opcode::CutStream, 0, &[&m0]).op(Opcode::Ret, 0, &[]);
    a.words()
}

/// The container: the compiled one's parts, its program replaced, its statistics
/// dropped.
fn container() -> Vec<u8> {
    with_program(COMPILED, |_| program_tokens())
}

/// The program lists as intended (one face per instance), and the committed container
/// is what this builder makes.
#[test]
fn the_instanced_cube_program_is_regenerated_unchanged() {
    let bytes = container();
    let p = Program::from_bytes(&bytes).unwrap();
    assert_eq!(
        listing(&p),
        "gs_5_0
dcl_gsinstances 6
dcl_input vGSInstanceID
dcl_inputprimitive triangle
dcl_outputtopology trianglestrip
dcl_maxout 3
dcl_stream m0
dcl_input_siv v[3][0].xyzw, position
dcl_input v[3][1].xyzw
dcl_output_siv o0.xyzw, position
dcl_output o1.xyzw
dcl_output_siv o2.x, rendertarget_array_index
dcl_temps 1
utof r0.x, vGSInstanceID
mul r0.x, r0.x, l(0.062500)
add o0.x, v[0][0].x, r0.x
mov o0.yzw, v[0][0].yyzw
mov o1.xyzw, v[0][1].xyzw
mov o2.x, vGSInstanceID
emit_stream m0
add o0.x, v[1][0].x, r0.x
mov o0.yzw, v[1][0].yyzw
mov o1.xyzw, v[1][1].xyzw
mov o2.x, vGSInstanceID
emit_stream m0
add o0.x, v[2][0].x, r0.x
mov o0.yzw, v[2][0].yyzw
mov o1.xyzw, v[2][1].xyzw
mov o2.x, vGSInstanceID
emit_stream m0
cut_stream m0
ret
"
    );
    let path = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(COMMITTED);
    if std::env::var_os("DXLANE_BLESS").is_some() {
        std::fs::write(&path, &bytes).unwrap();
        return;
    }
    let committed = std::fs::read(&path)
        .unwrap_or_else(|e| panic!("{COMMITTED}: {e}; DXLANE_BLESS=1 writes it"));
    assert!(
        committed == bytes,
        "{COMMITTED} differs from what its builder makes (DXLANE_BLESS=1 rewrites it)"
    );
}
