//! Vertex and pixel programs on hand-assembled tokens: what vkd3d's HLSL compiler cannot
//! emit (`eval_*`, `sample` interpolation, `vCoverage`, `vInnerCoverage`, `oDepthGE`,
//! `oStencilRef`, indexed inputs and outputs, the `rasterizer` operand, programs without
//! signature parts) and the rules of the element tables. Each program runs through
//! `exec::StageRunner` with four lanes: one quad, lanes 0–3 = top-left, top-right,
//! bottom-left, bottom-right.

use super::*;
use crate::container::signature::{
    ComponentType as SigType, MinPrecision, RwMaskMeaning, Signature, SignatureElement,
    SignatureKind, SystemValue,
};
use crate::exec::{DescriptorTable, Limits, PixelContext, Profile, StageProgram, StageRunner};
use crate::ir::io::NO_REGISTER;
use crate::ir::{EvalAt, Interp, IoElement, SysValue};

const INPUT: u8 = 1;
const OUTPUT: u8 = 2;
const ODEPTH: u8 = 12;
const RASTERIZER: u8 = 14;
const OMASK: u8 = 15;
const VCOVERAGE: u8 = 35;
const ODEPTH_GE: u8 = 38;
const ODEPTH_LE: u8 = 39;
const OSTENCIL: u8 = 41;
const VINNER: u8 = 42;

/// `v{i}.mask` or `o{i}.mask` (declarations and destinations).
fn io(ty: u8, i: u32, m: &str) -> Vec<u32> {
    let bits = letters(m).iter().fold(0u8, |a, c| a | (1 << c));
    vec![operand(ty, 2, mask(bits), 1, [0; 3]), i]
}

/// `v{i}.swizzle` (a source).
fn v(i: u32, sw: &str) -> Vec<u32> {
    src(INPUT, i, sw)
}

/// `{ty}[r{reg}.c + off].sel`: an input or output indexed at run time.
fn indexed(ty: u8, off: u32, reg: u32, c: &str, sel: u32) -> Vec<u32> {
    vec![
        operand(ty, 2, sel, 1, [3, 0, 0]),
        off,
        operand(TEMP, 2, select1(letters(c)[0]), 1, [0; 3]),
        reg,
    ]
}

/// A registerless one-component register (`oDepth`, `vCoverage`, …).
fn one(ty: u8) -> Vec<u32> {
    vec![operand(ty, 1, 0, 0, [0; 3])]
}

/// The interpolation-mode control bits of `dcl_input_ps` (seed 002: `[14:11]`).
fn mode(m: u32) -> u32 {
    m << 11
}

/// A program of another stage: `ps_5_0` (`0x0000_0050`) or `vs_5_0` (`0x0001_0050`),
/// with 8 temps and nothing else declared.
fn stage(version: u32) -> Asm {
    let mut a = Asm {
        version,
        tokens: Vec::new(),
    };
    a.op(Opcode::DclTemps, 0, &[&[8]]);
    a
}

const PS: u32 = 0x0000_0050;
const VS: u32 = 0x0001_0050;

/// The element named `semantic` `index`.
fn el<'a>(elems: &'a [IoElement], semantic: &str, index: u32) -> &'a IoElement {
    elems
        .iter()
        .find(|e| e.semantic == semantic && e.semantic_index == index)
        .unwrap_or_else(|| panic!("no {semantic}{index} in {elems:#?}"))
}

/// What a pixel wave asks the pipeline, answered by formula so that tests can check
/// which word, place and arguments each `eval` named.
struct Answers;

impl PixelContext for Answers {
    fn eval(&self, tag: u32, word: u32, at: EvalAt, arg: [u32; 2]) -> u32 {
        let at = match at {
            EvalAt::Centroid => 1,
            EvalAt::Sample => 2,
            EvalAt::Snapped => 3,
            EvalAt::Vertex => 4,
        };
        tag * 1_000_000 + at * 100_000 + word * 1000 + (arg[0] & 0xff) * 10 + (arg[1] & 0xf)
    }
    fn sample_count(&self) -> u32 {
        4
    }
    fn sample_position(&self, index: u32) -> [f32; 2] {
        // The standard 4-sample pattern in sixteenths (D3D11.3 §3.5.6.2).
        let p: [[i32; 2]; 4] = [[-2, -6], [6, -2], [-6, 2], [2, 6]];
        p.get(index as usize)
            .map_or([0.0; 2], |s| [s[0] as f32 / 16.0, s[1] as f32 / 16.0])
    }
}

/// Runs `shader` over one quad (four lanes, `helper` of them helpers) with input word
/// `w` of lane `l` = `inputs(w, l)`, lane tags 0–3; returns the output words
/// (`out[w][l]`) and the discarded lanes.
fn run_quad(
    shader: &Shader,
    inputs: &dyn Fn(u32, u32) -> u32,
    helper: u128,
    ctx: Option<&dyn PixelContext>,
) -> (Vec<[u32; 4]>, u128) {
    crate::ir::validate(shader).unwrap();
    let table = DescriptorTable::new(shader, &[], &[], &[]).unwrap();
    let p = StageProgram::new(shader, table, Profile::default(), Limits::default(), 4).unwrap();
    let mut r = StageRunner::new(&p);
    for w in 0..shader.input_words {
        for l in 0..4u32 {
            r.inputs_mut()[(w * 4 + l) as usize] = inputs(w, l);
        }
    }
    for l in 0..4 {
        r.set_tag(l, l as u32);
        r.set_ids(l, [l as u32 & 1, l as u32 >> 1, 0]);
    }
    let run = r.run(0b1111, helper, ctx).unwrap();
    let out = r.outputs();
    let words = (0..shader.output_words as usize)
        .map(|w| [0, 1, 2, 3].map(|l| out[w * 4 + l]))
        .collect();
    (words, run.killed)
}

/// Each pixel input carries its `dcl_input_ps` interpolation mode (D3D10_SB_INTERPOLATION_MODE,
/// seed 002); the rasterizer's own values (`dcl_input_ps_sgv`, `vCoverage`,
/// `vInnerCoverage`) are not interpolated. Without a signature, elements are named after
/// their system value or `TEXCOORD<register>`; registerless ones follow the registers, a
/// row each. Every input reads its word.
#[test]
fn pixel_inputs_carry_their_modes_and_read_their_words() {
    let mut a = stage(PS);
    for (reg, m) in (0..7).zip(1..8) {
        a.op(Opcode::DclInputPs, mode(m), &[&io(INPUT, reg, "xyzw")]);
    }
    // v7 = SV_Position (noperspective), v8.x front face, v8.y sample index.
    a.op(
        Opcode::DclInputPsSiv,
        mode(4),
        &[&io(INPUT, 7, "xyzw"), &[1]],
    )
    .op(Opcode::DclInputPsSgv, 0, &[&io(INPUT, 8, "x"), &[9]])
    .op(Opcode::DclInputPsSgv, 0, &[&io(INPUT, 8, "y"), &[10]])
    .op(Opcode::DclInput, 0, &[&one(VCOVERAGE)])
    .op(Opcode::DclInput, 0, &[&one(VINNER)])
    .op(Opcode::DclOutput, 0, &[&io(OUTPUT, 0, "xyzw")])
    .op(Opcode::DclOutput, 0, &[&io(OUTPUT, 1, "xyzw")])
    .op(Opcode::Mov, 0, &[&io(OUTPUT, 0, "xyzw"), &v(5, "wzyx")])
    .op(Opcode::Mov, 0, &[&io(OUTPUT, 1, "x"), &v(8, "y")])
    .op(Opcode::Mov, 0, &[&io(OUTPUT, 1, "y"), &v(7, "w")])
    .op(Opcode::Mov, 0, &[&io(OUTPUT, 1, "z"), &one(VCOVERAGE)])
    .op(Opcode::Mov, 0, &[&io(OUTPUT, 1, "w"), &one(VINNER)])
    .op(Opcode::Ret, 0, &[]);
    let s = a.lower().unwrap();
    assert_eq!(s.stage, crate::ir::Stage::Pixel);
    let modes = [
        Interp::Constant,
        Interp::Linear,
        Interp::LinearCentroid,
        Interp::LinearNoPerspective,
        Interp::LinearNoPerspectiveCentroid,
        Interp::LinearSample,
        Interp::LinearNoPerspectiveSample,
    ];
    for (reg, m) in (0..7u32).zip(modes) {
        let e = el(&s.inputs, "TEXCOORD", reg);
        assert_eq!(
            (e.interp, e.slot, e.register, e.mask),
            (m, 4 * reg, reg, 0xf)
        );
    }
    let pos = el(&s.inputs, "SV_Position", 0);
    assert_eq!(
        (pos.sv, pos.interp, pos.slot),
        (SysValue::Position, Interp::LinearNoPerspective, 28)
    );
    let front = el(&s.inputs, "SV_IsFrontFace", 0);
    assert_eq!(
        (
            front.sv,
            front.interp,
            front.slot,
            front.mask,
            front.component
        ),
        (
            SysValue::IsFrontFace,
            Interp::Undefined,
            32,
            1,
            crate::ir::ComponentType::UInt
        )
    );
    assert_eq!(el(&s.inputs, "SV_SampleIndex", 0).mask, 2);
    let cov = el(&s.inputs, "SV_Coverage", 0);
    assert_eq!(
        (cov.register, cov.slot, cov.sv, cov.interp),
        (NO_REGISTER, 36, SysValue::Coverage, Interp::Undefined)
    );
    assert_eq!(el(&s.inputs, "SV_InnerCoverage", 0).slot, 40);
    assert_eq!(s.input_words, 44);
    assert_eq!(el(&s.outputs, "SV_Target", 1).sv, SysValue::Target);
    assert_eq!(s.output_words, 8);
    let (out, killed) = run_quad(&s, &|w, l| w * 10 + l, 0, None);
    assert_eq!(killed, 0);
    for l in 0..4u32 {
        let lane = |w: usize| out[w][l as usize];
        assert_eq!(
            [lane(0), lane(1), lane(2), lane(3)],
            [23, 22, 21, 20].map(|w| w * 10 + l)
        );
        assert_eq!(
            [lane(4), lane(5), lane(6), lane(7)],
            [33, 31, 36, 40].map(|w| w * 10 + l)
        );
    }
}

/// A vertex program: `SV_VertexID`/`SV_InstanceID` inputs, an `SV_Position` output and
/// plain outputs; vertex inputs and outputs are not interpolated.
#[test]
fn vertex_program_reads_ids_and_writes_outputs() {
    let mut a = stage(VS);
    a.op(Opcode::DclInput, 0, &[&io(INPUT, 0, "xy")])
        .op(Opcode::DclInputSgv, 0, &[&io(INPUT, 1, "x"), &[6]])
        .op(Opcode::DclInputSgv, 0, &[&io(INPUT, 2, "x"), &[8]])
        .op(Opcode::DclOutputSiv, 0, &[&io(OUTPUT, 0, "xyzw"), &[1]])
        .op(Opcode::DclOutput, 0, &[&io(OUTPUT, 1, "xy")])
        // o0 = (v0.x, v0.y, 0, 1); o1.x = float(vertex id), o1.y = instance id + 10
        .op(Opcode::Mov, 0, &[&io(OUTPUT, 0, "xy"), &v(0, "xyxx")])
        .op(
            Opcode::Mov,
            0,
            &[&io(OUTPUT, 0, "zw"), &l4([0, 0, 0, f(1.0)])],
        )
        .op(Opcode::Utof, 0, &[&io(OUTPUT, 1, "x"), &v(1, "x")])
        .op(Opcode::Iadd, 0, &[&io(OUTPUT, 1, "y"), &v(2, "x"), &l(10)])
        .op(Opcode::Ret, 0, &[]);
    let s = a.lower().unwrap();
    assert_eq!(s.stage, crate::ir::Stage::Vertex);
    assert_eq!(el(&s.inputs, "TEXCOORD", 0).mask, 0b11);
    assert_eq!(el(&s.inputs, "SV_VertexID", 0).slot, 4);
    assert_eq!(el(&s.inputs, "SV_InstanceID", 0).slot, 8);
    assert_eq!(el(&s.outputs, "SV_Position", 0).sv, SysValue::Position);
    assert_eq!(el(&s.outputs, "TEXCOORD", 1).slot, 4);
    assert!(
        s.inputs
            .iter()
            .chain(&s.outputs)
            .all(|e| e.interp == Interp::Undefined)
    );
    let (out, _) = run_quad(
        &s,
        &|w, l| match w {
            0 => f(l as f32 * 2.0),
            1 => f(-1.0),
            4 => 100 + l,
            8 => 7,
            _ => 0,
        },
        0,
        None,
    );
    let lanes = |l: f32| [0, 1, 2, 3].map(|k| f(l * k as f32));
    assert_eq!(out[0], lanes(2.0));
    assert_eq!(out[1], [f(-1.0); 4]);
    assert_eq!(out[2], [0; 4]);
    assert_eq!(out[3], [f(1.0); 4]);
    assert_eq!(out[4], [100.0, 101.0, 102.0, 103.0].map(f));
    assert_eq!(out[5], [17; 4]);
}

/// `eval_centroid`, `eval_sample_index` and `eval_snapped` name the swizzled input word,
/// the place and its arguments (D3D11.3 §16.5); an indexed source (`v[r0.x + 1]`) names
/// the row within its `dcl_indexrange`; a modifier and `_sat` apply to the result.
#[test]
fn eval_asks_the_pipeline_for_the_named_word() {
    let mut a = stage(PS);
    a.op(Opcode::DclInputPs, mode(2), &[&io(INPUT, 0, "xyzw")])
        .op(Opcode::DclInputPs, mode(2), &[&io(INPUT, 1, "xyzw")])
        .op(Opcode::DclInputPs, mode(2), &[&io(INPUT, 2, "xyzw")])
        .op(Opcode::DclIndexRange, 0, &[&io(INPUT, 1, "xyzw"), &[2]])
        .op(Opcode::DclOutput, 0, &[&io(OUTPUT, 0, "xyzw")])
        .op(Opcode::DclOutput, 0, &[&io(OUTPUT, 1, "xyzw")])
        .op(Opcode::EvalCentroid, 0, &[&r(0, "xy"), &v(2, "zwxx")])
        .op(Opcode::EvalSampleIndex, 0, &[&r(0, "z"), &v(0, "y"), &l(3)])
        .op(
            Opcode::EvalSnapped,
            0,
            &[&r(0, "w"), &v(1, "x"), &l4([0xf, 7, 0, 0])],
        )
        .op(Opcode::Mov, 0, &[&io(OUTPUT, 0, "xyzw"), &s(0, "xyzw")])
        // r1.x = 1: v[r1.x + 1] is v2 (row 1 of the range v1..v2); r1.y = 1 + 1: v3,
        // past the range: 0.
        .op(Opcode::Mov, 0, &[&r(1, "xy"), &l4([1, 2, 0, 0])])
        .op(
            Opcode::EvalCentroid,
            0,
            &[&r(2, "x"), &indexed(INPUT, 1, 1, "x", select1(1))],
        )
        .op(
            Opcode::EvalCentroid,
            0,
            &[&r(2, "y"), &indexed(INPUT, 1, 1, "y", select1(1))],
        )
        .op(Opcode::EvalCentroid, SAT, &[&r(2, "z"), &m(v(0, "x"), 1)])
        .op(Opcode::Mov, 0, &[&r(2, "w"), &l(0)])
        .op(Opcode::Mov, 0, &[&io(OUTPUT, 1, "xyzw"), &s(2, "xyzw")])
        .op(Opcode::Ret, 0, &[]);
    let s = a.lower().unwrap();
    let (out, _) = run_quad(&s, &|_, _| 0, 0, Some(&Answers));
    for l in 0..4u32 {
        let base = l * 1_000_000;
        assert_eq!(out[0][l as usize], base + 100_000 + 10_000, "v2.z centroid");
        assert_eq!(out[1][l as usize], base + 100_000 + 11_000, "v2.w centroid");
        assert_eq!(
            out[2][l as usize],
            base + 200_000 + 1000 + 30,
            "v0.y sample 3"
        );
        assert_eq!(
            out[3][l as usize],
            base + 300_000 + 4000 + 150 + 7,
            "v1.x snapped (-1, 7)"
        );
        assert_eq!(
            out[4][l as usize],
            base + 100_000 + 9000,
            "v[1 + 1].y = v2.y"
        );
        assert_eq!(out[5][l as usize], 0, "v[2 + 1] is past the range");
        // -eval(v0.x) is negative (the sign bit set on a positive integer's bits) and
        // saturates to +0.
        assert_eq!(out[6][l as usize], 0, "sat(-x)");
    }
}

/// `discard_nz` flags the lanes whose value has any bit set, `discard_z` those whose value
/// is 0; they are reported as killed and keep running as helper lanes (the SM4 assembly
/// reference for `discard`: "flags the current pixel as terminated, while continuing
/// execution"), so they still reach the `mov` after it — whose write the pipeline drops.
#[test]
fn discard_flags_the_tested_lanes() {
    for (test, killed) in [(TEST_NZ, 0b0110u128), (0, 0b1001)] {
        let mut a = stage(PS);
        a.op(Opcode::DclInputPs, mode(1), &[&io(INPUT, 0, "x")])
            .op(Opcode::DclOutput, 0, &[&io(OUTPUT, 0, "x")])
            .op(Opcode::Discard, test, &[&v(0, "x")])
            .op(Opcode::Mov, 0, &[&io(OUTPUT, 0, "x"), &l(5)])
            .op(Opcode::Ret, 0, &[]);
        let s = a.lower().unwrap();
        // Lanes 1 and 2 have a nonzero value (-0.0 counts: its sign bit is set).
        let (out, k) = run_quad(
            &s,
            &|_, l| match l {
                1 => 0x8000_0000,
                2 => 3,
                _ => 0,
            },
            0,
            None,
        );
        assert_eq!(k, killed);
        assert_eq!(out[0], [5; 4], "discarded lanes run on");
    }
}

/// The unqualified `deriv_rtx`/`deriv_rty` are the coarse derivatives (one pair per 2×2
/// stamp: the `deriv_rtx` reference page); `_fine` ones differ per row (x) and column
/// (y). With TL = 1, TR = 2, BL = 5, BR = 7: coarse d/dx = 2 - 1, d/dy = 5 - 1 in every
/// lane; fine d/dx = 1 (top row), 2 (bottom row); fine d/dy = 4 (left), 5 (right).
#[test]
fn derivatives_read_the_quad() {
    let mut a = stage(PS);
    a.op(Opcode::DclInputPs, mode(2), &[&io(INPUT, 0, "x")])
        .op(Opcode::DclOutput, 0, &[&io(OUTPUT, 0, "xyzw")])
        .op(Opcode::DclOutput, 0, &[&io(OUTPUT, 1, "xyzw")])
        .op(Opcode::DerivRtx, 0, &[&io(OUTPUT, 0, "x"), &v(0, "x")])
        .op(Opcode::DerivRty, 0, &[&io(OUTPUT, 0, "y"), &v(0, "x")])
        .op(
            Opcode::DerivRtxCoarse,
            0,
            &[&io(OUTPUT, 0, "z"), &v(0, "x")],
        )
        .op(
            Opcode::DerivRtyCoarse,
            0,
            &[&io(OUTPUT, 0, "w"), &v(0, "x")],
        )
        .op(Opcode::DerivRtxFine, 0, &[&io(OUTPUT, 1, "x"), &v(0, "x")])
        .op(Opcode::DerivRtyFine, 0, &[&io(OUTPUT, 1, "y"), &v(0, "x")])
        // -ddx_fine(v0.x) and sat(ddy_fine(v0.x)) = 1
        .op(
            Opcode::DerivRtxFine,
            0,
            &[&io(OUTPUT, 1, "z"), &m(v(0, "x"), 1)],
        )
        .op(
            Opcode::DerivRtyFine,
            SAT,
            &[&io(OUTPUT, 1, "w"), &v(0, "x")],
        )
        .op(Opcode::Ret, 0, &[]);
    let s = a.lower().unwrap();
    let vals = [1.0f32, 2.0, 5.0, 7.0];
    let (out, _) = run_quad(&s, &|_, l| f(vals[l as usize]), 0b1000, None);
    let lane = |w: usize| out[w].map(f32::from_bits);
    assert_eq!(lane(0), [1.0; 4]);
    assert_eq!(lane(1), [4.0; 4]);
    assert_eq!(lane(2), [1.0; 4]);
    assert_eq!(lane(3), [4.0; 4]);
    // Lane 3 is a helper: it runs (its value feeds the others) but its outputs mean
    // nothing, so only lanes 0-2 are checked.
    assert_eq!(lane(4)[..3], [1.0, 1.0, 2.0]);
    assert_eq!(lane(5)[..3], [4.0, 5.0, 4.0]);
    assert_eq!(lane(6)[..3], [-1.0, -1.0, -2.0]);
    assert_eq!(lane(7)[..3], [1.0, 1.0, 1.0]);
}

/// `oDepth`, `oDepthGE`, `oDepthLE`, `oMask` and `oStencilRef` are registerless outputs
/// after the render targets, a row each, with their system values (D3D11.3 §16.7–16.9); `_sat`
/// applies before the write.
#[test]
fn registerless_outputs() {
    for (ty, sv, name) in [
        (ODEPTH, SysValue::Depth, "SV_Depth"),
        (
            ODEPTH_GE,
            SysValue::DepthGreaterEqual,
            "SV_DepthGreaterEqual",
        ),
        (ODEPTH_LE, SysValue::DepthLessEqual, "SV_DepthLessEqual"),
    ] {
        let mut a = stage(PS);
        a.op(Opcode::DclInputPs, mode(2), &[&io(INPUT, 0, "x")])
            .op(Opcode::DclOutput, 0, &[&io(OUTPUT, 0, "x")])
            .op(Opcode::DclOutput, 0, &[&one(ty)])
            .op(Opcode::DclOutput, 0, &[&one(OMASK)])
            .op(Opcode::DclOutput, 0, &[&one(OSTENCIL)])
            .op(Opcode::Mov, 0, &[&io(OUTPUT, 0, "x"), &l(f(1.0))])
            .op(Opcode::Mul, SAT, &[&one(ty), &v(0, "x"), &l(f(0.5))])
            .op(Opcode::And, 0, &[&one(OMASK), &l(0xff), &l(0x5)])
            .op(Opcode::Mov, 0, &[&one(OSTENCIL), &l(3)])
            .op(Opcode::Ret, 0, &[]);
        let s = a.lower().unwrap();
        let d = el(&s.outputs, name, 0);
        assert_eq!((d.sv, d.register, d.slot, d.mask), (sv, NO_REGISTER, 4, 1));
        let cov = el(&s.outputs, "SV_Coverage", 0);
        assert_eq!((cov.sv, cov.slot), (SysValue::Coverage, 8));
        assert_eq!(el(&s.outputs, "SV_StencilRef", 0).slot, 12);
        assert_eq!(s.output_words, 16);
        let (out, _) = run_quad(&s, &|_, l| f(l as f32 + 0.5), 0, None);
        assert_eq!(
            out[4].map(f32::from_bits),
            [0.25, 0.75, 1.0, 1.0],
            "sat(x / 2)"
        );
        assert_eq!(out[8], [5; 4]);
        assert_eq!(out[12], [3; 4]);
    }
}

/// `v[r#.x + n]` and `o[r#.x + n]` address the rows of their `dcl_indexrange` (the
/// elements stay one per register); a row past the range reads 0 and is not written.
#[test]
fn indexed_inputs_and_outputs_stay_in_their_range() {
    let mut a = stage(PS);
    a.op(Opcode::DclInputPs, mode(2), &[&io(INPUT, 0, "xyzw")])
        .op(Opcode::DclInputPs, mode(2), &[&io(INPUT, 1, "xyzw")])
        .op(Opcode::DclInputPs, mode(2), &[&io(INPUT, 2, "xyzw")])
        .op(Opcode::DclInputPs, mode(2), &[&io(INPUT, 3, "xyzw")])
        .op(Opcode::DclIndexRange, 0, &[&io(INPUT, 1, "xyzw"), &[2]])
        .op(Opcode::DclOutput, 0, &[&io(OUTPUT, 0, "xyzw")])
        .op(Opcode::DclOutput, 0, &[&io(OUTPUT, 1, "xyzw")])
        .op(Opcode::DclOutput, 0, &[&io(OUTPUT, 2, "xyzw")])
        .op(Opcode::DclIndexRange, 0, &[&io(OUTPUT, 1, "xyzw"), &[2]])
        // r1.x = row from v0.x (0, 1, 2 or 3 per lane)
        .op(Opcode::Ftou, 0, &[&r(1, "x"), &v(0, "x")])
        // o0.x = v[r1.x + 1].y: v1.y, v2.y, then 0 past the range (v3 is outside it)
        .op(
            Opcode::Mov,
            0,
            &[&io(OUTPUT, 0, "x"), &indexed(INPUT, 1, 1, "x", select1(1))],
        )
        .op(Opcode::Mov, 0, &[&io(OUTPUT, 0, "yzw"), &l4([0; 4])])
        .op(Opcode::Mov, 0, &[&io(OUTPUT, 1, "xyzw"), &l4([0; 4])])
        .op(Opcode::Mov, 0, &[&io(OUTPUT, 2, "xyzw"), &l4([0; 4])])
        // o[r1.x + 1].zw = (9, 8): o1, o2, then nothing past the range
        .op(
            Opcode::Mov,
            0,
            &[&indexed(OUTPUT, 1, 1, "x", mask(0b1100)), &l4([0, 0, 9, 8])],
        )
        .op(Opcode::Ret, 0, &[]);
    let s = a.lower().unwrap();
    assert!(s.inputs.iter().all(|e| e.rows == 1));
    let (out, _) = run_quad(
        &s,
        &|w, l| if w == 0 { f(l as f32) } else { 100 + w },
        0,
        None,
    );
    assert_eq!(out[0], [105, 109, 0, 0], "v1.y, v2.y, past, past");
    assert_eq!(out[6], [9, 0, 0, 0]);
    assert_eq!(out[7], [8, 0, 0, 0]);
    assert_eq!(out[10], [0, 9, 0, 0]);
    assert_eq!(out[11], [0, 8, 0, 0]);
}

/// `sampleinfo` and `samplepos` of the `rasterizer` describe the render target's sample
/// pattern, through the operand's swizzle (D3D11.3 §22); `sampleinfo` is a float unless
/// `_uint`.
#[test]
fn rasterizer_sample_pattern() {
    let rast = |sel: u32| vec![operand(RASTERIZER, 2, sel, 0, [0; 3])];
    let mut a = stage(PS);
    a.op(Opcode::DclOutput, 0, &[&io(OUTPUT, 0, "xyzw")])
        .op(Opcode::DclOutput, 0, &[&io(OUTPUT, 1, "xyzw")])
        .op(
            Opcode::SampleInfo,
            0,
            &[&io(OUTPUT, 0, "x"), &rast(select1(0))],
        )
        // _uint (return type 1 in [12:11]), swizzled: y takes x
        .op(
            Opcode::SampleInfo,
            1 << 11,
            &[&io(OUTPUT, 0, "yz"), &rast(swizzle([0, 0, 0, 1]))],
        )
        .op(Opcode::Mov, 0, &[&io(OUTPUT, 0, "w"), &l(0)])
        .op(
            Opcode::SamplePos,
            0,
            &[&io(OUTPUT, 1, "xyzw"), &rast(swizzle([0, 1, 2, 3])), &l(1)],
        )
        .op(Opcode::Ret, 0, &[]);
    let s = a.lower().unwrap();
    let (out, _) = run_quad(&s, &|_, _| 0, 0, Some(&Answers));
    assert_eq!(out[0], [f(4.0); 4]);
    assert_eq!(out[1], [4; 4]);
    assert_eq!(out[2], [4; 4], "z of the swizzle reads x");
    assert_eq!(out[3], [0; 4]);
    assert_eq!(out[4], [f(0.375); 4]);
    assert_eq!(out[5], [f(-0.125); 4]);
    assert_eq!(out[6], [0; 4]);
    // Without a pipeline context the pattern is the single sample at the centre.
    let (out, _) = run_quad(&s, &|_, _| 0, 0, None);
    assert_eq!(out[0], [f(1.0); 4]);
}

/// `dcl_globalFlags forceEarlyDepthStencil` (`[earlydepthstencil]`) is the shader's
/// `early_depth_stencil`.
#[test]
fn early_depth_stencil_flag() {
    for (flags, early) in [(1 << 2, true), (1, false)] {
        let mut a = stage(PS);
        a.op(Opcode::DclGlobalFlags, flags << 11, &[])
            .op(Opcode::Ret, 0, &[]);
        assert_eq!(a.lower().unwrap().early_depth_stencil, early);
    }
}

/// What needs a pixel quad is refused in a vertex program by name; geometry, hull and
/// domain programs are refused by their stage.
#[test]
fn stage_refusals() {
    let smp = vec![operand(6, 0, 0, 1, [0; 3]), 0];
    for (op, operands, text) in [
        (
            Opcode::DerivRtxFine,
            vec![r(0, "x"), s(0, "x")],
            "opcode deriv_rtx_fine (derivatives need pixel quads; vertex programs have none)",
        ),
        (
            Opcode::Sample,
            vec![r(0, "x"), s(0, "xyzw"), res(RES, 0, "xyzw"), smp.clone()],
            "opcode sample (an implicit level of detail needs derivatives; vertex programs have none)",
        ),
        (
            Opcode::Discard,
            vec![s(0, "x")],
            "opcode discard (pixel shaders only)",
        ),
        (
            Opcode::EvalCentroid,
            vec![r(0, "x"), v(0, "x")],
            "opcode eval_centroid (pixel shaders only)",
        ),
        (
            Opcode::SampleInfo,
            vec![
                r(0, "x"),
                vec![operand(RASTERIZER, 2, select1(0), 0, [0; 3])],
            ],
            "sampleinfo of the rasterizer (a vertex program has no render target)",
        ),
    ] {
        let mut a = stage(VS);
        a.op(Opcode::DclInput, 0, &[&io(INPUT, 0, "x")]);
        let refs: Vec<&[u32]> = operands.iter().map(|v| v.as_slice()).collect();
        a.op(op, 0, &refs).op(Opcode::Ret, 0, &[]);
        match a.lower().unwrap_err() {
            LowerError::Unsupported { what, .. } => assert_eq!(what, text),
            other => panic!("{other}"),
        }
    }
    // A pixel output register in a vertex program, a compute input in a pixel program.
    let mut a = stage(VS);
    a.op(Opcode::DclOutput, 0, &[&one(ODEPTH)]);
    let e = a.lower().unwrap_err().to_string();
    assert!(
        e.contains("output register output depth in a vertex program"),
        "{e}"
    );
    let mut a = stage(PS);
    a.op(Opcode::DclInput, 0, &[&tid("x")]);
    let e = a.lower().unwrap_err().to_string();
    assert!(
        e.contains("input register input thread id in a pixel program"),
        "{e}"
    );
    // Hull and domain programs lower, but D3D requires their tessellator domain.
    for (version, kind) in [(0x0003_0050, "hull"), (0x0004_0050, "domain")] {
        let e = stage(version).lower().unwrap_err().to_string();
        assert!(
            e.contains(&format!("a {kind} program without dcl_tessellator_domain")),
            "{e}"
        );
    }
    // A geometry program lowers, but D3D requires its state declarations.
    let e = stage(0x0002_0050).lower().unwrap_err().to_string();
    assert!(
        e.contains("a geometry program without dcl_inputprimitive"),
        "{e}"
    );
}

/// Register numbers past D3D11's counts (32 inputs, 8 pixel outputs) are refused before
/// anything is sized by them, as is a read of an undeclared register.
#[test]
fn registers_are_bounded() {
    let mut a = stage(PS);
    a.op(Opcode::DclOutput, 0, &[&io(OUTPUT, 8, "x")]);
    let e = a.lower().unwrap_err().to_string();
    assert!(
        e.contains("o8: a pixel program has 8 output registers"),
        "{e}"
    );
    let mut a = stage(VS);
    a.op(Opcode::DclInput, 0, &[&io(INPUT, 32, "x")]);
    let e = a.lower().unwrap_err().to_string();
    assert!(
        e.contains("v32: a vertex program has 32 input registers"),
        "{e}"
    );
    let mut a = stage(VS);
    a.op(Opcode::DclInput, 0, &[&io(INPUT, 0, "x")])
        .op(Opcode::Mov, 0, &[&r(0, "x"), &v(1, "x")]);
    let e = a.lower().unwrap_err().to_string();
    assert!(e.contains("v1 is not declared"), "{e}");
}

fn element(
    name: &str,
    index: u32,
    sv: SystemValue,
    ty: SigType,
    register: u32,
    mask: u8,
) -> SignatureElement {
    SignatureElement {
        stream: 0,
        semantic_name: name.into(),
        semantic_index: index,
        system_value: sv,
        component_type: ty,
        register,
        mask,
        rw_mask: mask,
        min_precision: MinPrecision::Default,
    }
}

fn signature(kind: SignatureKind, elements: Vec<SignatureElement>) -> Signature {
    Signature {
        tag: if kind == SignatureKind::Input {
            FourCc::ISGN
        } else {
            FourCc::OSGN
        },
        kind,
        rw_mask_meaning: RwMaskMeaning::AlwaysRead,
        element_size: 24,
        elements,
    }
}

/// With signature parts, the signature names the elements (semantic, index, type, mask,
/// packing two elements into one register), keeps the ones the program does not declare,
/// and names registerless outputs; the declaration decides the system value and the
/// interpolation mode.
#[test]
fn signatures_name_the_elements() {
    let mut a = stage(PS);
    a.op(Opcode::DclInputPs, mode(3), &[&io(INPUT, 1, "xy")])
        .op(Opcode::DclInputPs, mode(3), &[&io(INPUT, 1, "zw")])
        .op(Opcode::DclInputPsSiv, mode(4), &[&io(INPUT, 0, "xy"), &[1]])
        .op(Opcode::DclOutput, 0, &[&io(OUTPUT, 0, "xyzw")])
        .op(Opcode::DclOutput, 0, &[&one(ODEPTH)])
        .op(Opcode::Mov, 0, &[&io(OUTPUT, 0, "xyzw"), &v(1, "xyzw")])
        .op(Opcode::Mov, 0, &[&one(ODEPTH), &v(0, "x")])
        .op(Opcode::Ret, 0, &[]);
    let inputs = signature(
        SignatureKind::Input,
        vec![
            element(
                "SV_POSITION",
                0,
                SystemValue::Position,
                SigType::Float32,
                0,
                0xf,
            ),
            element("UV", 0, SystemValue::Undefined, SigType::Float32, 1, 0b0011),
            element("ID", 5, SystemValue::Undefined, SigType::Uint32, 1, 0b1100),
            element(
                "UNUSED",
                0,
                SystemValue::Undefined,
                SigType::Sint32,
                2,
                0b0001,
            ),
        ],
    );
    let outputs = signature(
        SignatureKind::Output,
        vec![
            element(
                "SV_TARGET",
                0,
                SystemValue::Undefined,
                SigType::Float32,
                0,
                0xf,
            ),
            element(
                "SV_DEPTH",
                0,
                SystemValue::Undefined,
                SigType::Float32,
                NO_REGISTER,
                1,
            ),
        ],
    );
    let refl = Reflection {
        rdef: None,
        inputs: Some(&inputs),
        outputs: Some(&outputs),
        patch: None,
    };
    let s = lower_reflected(&a.program(), &refl, &LoadOptions::default()).unwrap();
    let pos = el(&s.inputs, "SV_POSITION", 0);
    assert_eq!(
        (pos.mask, pos.sv, pos.interp),
        (0xf, SysValue::Position, Interp::LinearNoPerspective)
    );
    let uv = el(&s.inputs, "UV", 0);
    assert_eq!(
        (uv.slot, uv.mask, uv.interp),
        (4, 0b0011, Interp::LinearCentroid)
    );
    let id = el(&s.inputs, "ID", 5);
    assert_eq!(
        (id.slot, id.mask, id.component),
        (4, 0b1100, crate::ir::ComponentType::UInt)
    );
    let unused = el(&s.inputs, "UNUSED", 0);
    assert_eq!(
        (unused.slot, unused.interp, unused.component),
        (8, Interp::Undefined, crate::ir::ComponentType::SInt)
    );
    assert_eq!(s.inputs.len(), 4);
    assert_eq!(s.input_words, 12);
    let target = el(&s.outputs, "SV_TARGET", 0);
    assert_eq!(target.sv, SysValue::Target, "a pixel o# is a render target");
    let depth = el(&s.outputs, "SV_DEPTH", 0);
    assert_eq!((depth.sv, depth.slot), (SysValue::Depth, 4));
    // A signature register past D3D's count is refused.
    let bad = signature(
        SignatureKind::Input,
        vec![element(
            "X",
            0,
            SystemValue::Undefined,
            SigType::Float32,
            40,
            1,
        )],
    );
    let refl = Reflection {
        inputs: Some(&bad),
        ..Reflection::default()
    };
    let e = lower_reflected(&a.program(), &refl, &LoadOptions::default())
        .unwrap_err()
        .to_string();
    assert!(e.contains("signature element X0 at register 40"), "{e}");
}

/// D3D11.3 §10 "Hull Shader Stage": fork phases run `dcl_hs_fork_phase_instance_count`
/// instances with `vForkInstanceID` 0 … n − 1, and join phases run after them, reading
/// the fork results through `vpc` with `vJoinInstanceID` 0 … n − 1; outputs the join
/// phases do not write keep the fork results. Here two fork instances write
/// `o[vForkInstanceID].x = vForkInstanceID` and two join instances
/// `o[vJoinInstanceID + 2].x = vpc1.x + vJoinInstanceID`: patch constants 0, 1, 1, 2.
#[test]
fn hull_fork_and_join_instances() {
    const FORK_ID: u8 = 23;
    const JOIN_ID: u8 = 24;
    const VPC: u8 = 27;
    let rel = |ty: u8, first: u32| -> Vec<u32> {
        vec![
            operand(OUTPUT, 2, mask(1), 1, [3, 0, 0]),
            first,
            operand(ty, 1, 0, 0, [0; 3]),
        ]
    };
    let mut a = stage(0x0003_0050);
    a.op(Opcode::HsDecls, 0, &[])
        .op(Opcode::DclInputControlPointCount, 1 << 11, &[])
        .op(Opcode::DclOutputControlPointCount, 1 << 11, &[])
        .op(Opcode::DclTessDomain, 1 << 11, &[])
        .op(Opcode::DclTessPartitioning, 1 << 11, &[])
        .op(Opcode::DclTessOutputPrimitive, 2 << 11, &[])
        .op(Opcode::HsForkPhase, 0, &[])
        .op(Opcode::DclHsForkPhaseInstanceCount, 0, &[&[2]])
        .op(Opcode::DclInput, 0, &[&one(FORK_ID)])
        .op(Opcode::DclOutput, 0, &[&io(OUTPUT, 0, "x")])
        .op(Opcode::DclOutput, 0, &[&io(OUTPUT, 1, "x")])
        .op(Opcode::DclIndexRange, 0, &[&io(OUTPUT, 0, "x"), &[2]])
        .op(Opcode::Mov, 0, &[&rel(FORK_ID, 0), &one(FORK_ID)])
        .op(Opcode::Ret, 0, &[])
        .op(Opcode::HsJoinPhase, 0, &[])
        .op(Opcode::DclHsJoinPhaseInstanceCount, 0, &[&[2]])
        .op(Opcode::DclInput, 0, &[&one(JOIN_ID)])
        .op(Opcode::DclInput, 0, &[&io(VPC, 1, "x")])
        .op(Opcode::DclOutput, 0, &[&io(OUTPUT, 2, "x")])
        .op(Opcode::DclOutput, 0, &[&io(OUTPUT, 3, "x")])
        .op(Opcode::DclIndexRange, 0, &[&io(OUTPUT, 2, "x"), &[2]])
        .op(
            Opcode::Iadd,
            0,
            &[&rel(JOIN_ID, 2), &src(VPC, 1, "x"), &one(JOIN_ID)],
        )
        .op(Opcode::Ret, 0, &[]);
    let s = a.lower().unwrap();
    let h = s.hull.unwrap();
    assert!(h.join && h.pass_through);
    let table = DescriptorTable::new(&s, &[], &[], &[]).unwrap();
    let p = StageProgram::new(&s, table, Profile::default(), Limits::default(), 8).unwrap();
    let vertices = crate::pipeline::vs::VertexOutputs::default();
    let job = crate::pipeline::hs::HullJob {
        points: &[0, 0],
        ids: &[0, 1],
        vertices: &vertices,
        sources: &[],
    };
    let mut out = crate::pipeline::hs::HullOutputs::default();
    crate::pipeline::hs::shade(&p, &job, &mut out, &|_| Ok(())).unwrap();
    for patch in 0..2 {
        let got: Vec<u32> = (0..4).map(|r| out.constants.word(patch, 4 * r)).collect();
        assert_eq!(got, vec![0, 1, 1, 2], "patch {patch}");
    }
}
