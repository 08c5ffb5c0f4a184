//! The hull program of `tests/jobs/debug_chain/fork_join.toml`, whose join phase reads
//! what its fork phase wrote: vkd3d's HLSL compiler puts a patch-constant function in
//! fork phases only, so it is made here from `shaders/tessellation.hlsl`'s compiled hull
//! program. The fork phase keeps everything but the inside factor (`o3.x`); a join phase
//! (D3D11.3 §10: join phases run after every fork phase of the patch and read their
//! outputs as `vpc#`) computes it from the three edge factors the fork phase wrote,
//! `(vpc0.x + vpc1.x) + vpc2.x` over 3 — the sum and order the compiled fork phase uses,
//! so the patch's factors, and the picture, are the compiled program's.
//!
//! The container keeps the compiled program's other parts (signatures, resources) and
//! drops its statistics. The committed file is what this test makes (`DXLANE_BLESS=1`
//! rewrites it).

use super::*;

const COMMITTED: &str = "tests/jobs/debug_chain/fork_join.hs_5_0.dxbc";
const COMPILED: &str = "shaders/tessellation.hs_5_0.dxbc";

/// `vpc#` (D3D11_SB_OPERAND_TYPE_INPUT_PATCH_CONSTANT).
const PATCH_CONSTANT: u8 = 27;

/// The compiled program's instructions, each its tokens (the length in bits 24–30 of
/// its opcode token; this program has no custom-data block).
fn instructions(program: &[u32]) -> Vec<Vec<u32>> {
    let mut out = Vec::new();
    let mut at = 2;
    while at < program.len() {
        let len = ((program[at] >> 24) & 0x7f) as usize;
        assert!(len > 0, "a zero-length instruction at token {at}");
        out.push(program[at..at + len].to_vec());
        at += len;
    }
    out
}

/// Whether instruction `i` writes or declares output register 3 (its first operand
/// `o3`: the inside factor).
fn touches_o3(i: &[u32]) -> bool {
    let op = i[0] & 0x7ff;
    let first_is_o3 = i.len() >= 3 && (i[1] >> 12) & 0xff == u32::from(OUTPUT) && i[2] == 3;
    (op == u32::from(Opcode::Div.code()) || op == u32::from(Opcode::DclOutputSiv.code()))
        && first_is_o3
}

fn program_tokens(compiled: &[u32]) -> Vec<u32> {
    let mut a = Asm::new(compiled[0]);
    // The fork phase's declaration of o3 (`dcl_output_siv o3.x,
    // finalTriInsideTessFactor`) moves to the join phase.
    let mut inside = Vec::new();
    for i in instructions(compiled) {
        if !touches_o3(&i) {
            a.raw(&i);
        } else if i[0] & 0x7ff == u32::from(Opcode::DclOutputSiv.code()) {
            inside = i;
        }
    }
    assert!(!inside.is_empty(), "no declaration of o3");
    let vpc = |r: u32| vec![operand(PATCH_CONSTANT, 2, select1(0), 1, [0; 3]), r];
    a.op(Opcode::HsJoinPhase, 0, &[]);
    for r in 0..3 {
        a.op(
            Opcode::DclInput,
            0,
            &[&[operand(PATCH_CONSTANT, 2, mask(0b0001), 1, [0; 3]), r]],
        );
    }
    a.raw(&inside)
        .op(Opcode::DclTemps, 0, &[&[1]])
        .op(Opcode::Add, 0, &[&reg(TEMP, 0, 0b0001), &vpc(0), &vpc(1)])
        .op(
            Opcode::Add,
            0,
            &[&reg(TEMP, 0, 0b0001), &sel(TEMP, 0, 0), &vpc(2)],
        )
        .op(
            Opcode::Div,
            0,
            &[
                &reg(OUTPUT, 3, 0b0001),
                &sel(TEMP, 0, 0),
                &imm(3.0f32.to_bits()),
            ],
        )
        .op(Opcode::Ret, 0, &[]);
    a.words()
}

fn container() -> Vec<u8> {
    with_program(COMPILED, program_tokens)
}

/// The fork phase lost its inside factor, a join phase computes it from `vpc0` to
/// `vpc2`, and the committed container is what this builder makes.
#[test]
fn the_fork_join_hull_program_is_regenerated_unchanged() {
    let bytes = container();
    let text = listing(&Program::from_bytes(&bytes).unwrap());
    let fork = &text[text.find("hs_fork_phase").unwrap()..text.find("hs_join_phase").unwrap()];
    assert!(!fork.contains("o3"), "{text}");
    assert!(
        text.ends_with(
            "hs_join_phase
dcl_input vpc0.x
dcl_input vpc1.x
dcl_input vpc2.x
dcl_output_siv o3.x, finalTriInsideTessFactor
dcl_temps 1
add r0.x, vpc0.x, vpc1.x
add r0.x, r0.x, vpc2.x
div o3.x, r0.x, l(3.000000)
ret
"
        ),
        "{text}"
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
