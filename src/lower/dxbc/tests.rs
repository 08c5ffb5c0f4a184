//! Unit tests of the DXBC lowering on hand-assembled programs (token layouts of seed 002):
//! what vkd3d's compiler never emits (switch fall-through, `breakc`, `continuec`,
//! `retc`, subroutines, the immediate constant buffer, doubles, `bufinfo`,
//! `resinfo_rcpFloat`, counters, two-result instructions, bit fields) and the rules the
//! lowering itself makes (reads before writes within an instruction, modifiers by operand
//! type). Each program runs through `pipeline::dispatch` and stores its results to a raw
//! UAV `u0`, which the test reads back.

mod graphics;

use super::*;
use crate::container::Part;
use crate::dxbc::token::encode::{mask, opcode, operand, select1, swizzle};
use crate::ir::{ResourceClass, ResourceKind, Shader};
use crate::pipeline::{Bindings, Plan, dispatch};
use crate::resources::{
    BufferKind, BufferView, Counter, Descriptor, Format, Memory, Texture, TextureDesc, TextureDim,
    TextureView, ViewClass,
};

const TEMP: u8 = 0;
const IMM32: u8 = 4;
const IMM64: u8 = 5;
const RES: u8 = 7;
const ICB: u8 = 9;
const LABEL: u8 = 10;
const NULL: u8 = 13;
const UAV: u8 = 30;
const TID: u8 = 32;

/// `f32` bits.
fn f(v: f32) -> u32 {
    v.to_bits()
}

/// Component letters → indices.
fn letters(s: &str) -> Vec<u8> {
    s.bytes()
        .map(|b| match b {
            b'x' => 0,
            b'y' => 1,
            b'z' => 2,
            _ => 3,
        })
        .collect()
}

/// A destination `r{i}.mask`.
fn r(i: u32, m: &str) -> Vec<u32> {
    let bits = letters(m).iter().fold(0u8, |a, c| a | (1 << c));
    vec![operand(TEMP, 2, mask(bits), 1, [0; 3]), i]
}

/// A source `r{i}.swizzle` (one letter: select-1).
fn s(i: u32, sw: &str) -> Vec<u32> {
    src(TEMP, i, sw)
}

fn src(ty: u8, i: u32, sw: &str) -> Vec<u32> {
    let l = letters(sw);
    let sel = if l.len() == 1 {
        select1(l[0])
    } else {
        swizzle([l[0], l[1], l[2], l[3]])
    };
    vec![operand(ty, 2, sel, 1, [0; 3]), i]
}

/// `vThreadID.c`.
fn tid(c: &str) -> Vec<u32> {
    vec![operand(TID, 2, select1(letters(c)[0]), 0, [0; 3])]
}

fn l(v: u32) -> Vec<u32> {
    vec![operand(IMM32, 1, 0, 0, [0; 3]), v]
}

fn l4(v: [u32; 4]) -> Vec<u32> {
    vec![operand(IMM32, 2, 0, 0, [0; 3]), v[0], v[1], v[2], v[3]]
}

/// `d(a, b)`: two doubles.
fn d2(a: f64, b: f64) -> Vec<u32> {
    let (a, b) = (a.to_bits(), b.to_bits());
    vec![
        operand(IMM64, 2, 0, 0, [0; 3]),
        a as u32,
        (a >> 32) as u32,
        b as u32,
        (b >> 32) as u32,
    ]
}

/// The operand with modifier `m` (1 = neg, 2 = abs, 3 = -abs).
fn m(mut op: Vec<u32>, m: u32) -> Vec<u32> {
    op[0] |= 0x8000_0000;
    op.insert(1, 1 | (m << 6));
    op
}

fn null() -> Vec<u32> {
    vec![operand(NULL, 0, 0, 0, [0; 3])]
}

fn label(i: u32) -> Vec<u32> {
    vec![operand(LABEL, 0, 0, 1, [0; 3]), i]
}

/// `u{i}` with a write mask.
fn u(i: u32, m: u8) -> Vec<u32> {
    vec![operand(UAV, 2, mask(m), 1, [0; 3]), i]
}

/// `u{i}` or `t{i}` read through a swizzle.
fn res(ty: u8, i: u32, sw: &str) -> Vec<u32> {
    src(ty, i, sw)
}

const TEST_NZ: u32 = 1 << 18;
const SAT: u32 = 1 << 13;

/// A program under construction: a compute program whose declarations come first.
struct Asm {
    version: u32,
    tokens: Vec<u32>,
}

impl Asm {
    /// `cs_5_0` with `dcl_thread_group x, 1, 1`, `dcl_uav_raw u0`, `vThreadID` and 8 temps.
    fn new(threads: u32) -> Asm {
        let mut a = Asm {
            version: 0x0005_0050,
            tokens: Vec::new(),
        };
        a.op(Opcode::DclThreadGroup, 0, &[&[threads, 1, 1]])
            .op(Opcode::DclUavRaw, 0, &[&[operand(UAV, 0, 0, 1, [0; 3]), 0]])
            .op(
                Opcode::DclInput,
                0,
                &[&[operand(TID, 2, mask(0b111), 0, [0; 3])]],
            )
            .op(Opcode::DclTemps, 0, &[&[8]]);
        a
    }

    fn op(&mut self, op: Opcode, controls: u32, body: &[&[u32]]) -> &mut Self {
        let body: Vec<u32> = body.concat();
        self.tokens
            .push(opcode(op.code(), body.len() as u32 + 1, controls));
        self.tokens.extend(body);
        self
    }

    /// `store_raw u0.x, l(4 * word), value`.
    fn store(&mut self, word: u32, value: &[u32]) -> &mut Self {
        self.op(Opcode::StoreRaw, 0, &[&u(0, 1), &l(4 * word), value])
    }

    /// `store_raw u0.x, vThreadID.x * 4 + 4 * word, value` (per thread).
    fn store_tid(&mut self, word: u32, value: &[u32]) -> &mut Self {
        self.op(Opcode::Ishl, 0, &[&r(7, "w"), &tid("x"), &l(2)])
            .op(Opcode::Iadd, 0, &[&r(7, "w"), &s(7, "w"), &l(4 * word)])
            .op(Opcode::StoreRaw, 0, &[&u(0, 1), &s(7, "w"), value])
    }

    fn program(&self) -> Program {
        let mut t = vec![self.version, self.tokens.len() as u32 + 2];
        t.extend_from_slice(&self.tokens);
        let bytes: Vec<u8> = t.iter().flat_map(|w| w.to_le_bytes()).collect();
        let part = Part {
            tag: FourCc::SHEX,
            offset: 0,
            data: &bytes,
        };
        Program::from_part(&part).unwrap()
    }

    fn lower(&self) -> Result<Shader, LowerError> {
        lower_program(&self.program(), None, &LoadOptions::default())
    }

    /// Lowers, runs one group with a raw `u0` of `words` words (other ranges from
    /// `bind`), and returns `u0`.
    fn run_with(
        &self,
        words: usize,
        bind: &dyn Fn(&crate::ir::ResourceRange) -> Option<Descriptor>,
    ) -> Vec<u32> {
        let shader = self.lower().unwrap();
        crate::ir::validate(&shader).unwrap();
        let out = Memory::zeroed(words as u64 * 4).unwrap();
        let mut bindings = Bindings::default();
        for range in &shader.resources {
            let d = if range.class == ResourceClass::Uav && range.lower == 0 {
                Descriptor::Buffer {
                    view: BufferView::whole(out.clone(), BufferKind::Raw),
                    counter: None,
                }
            } else {
                bind(range).unwrap_or(Descriptor::Null(ViewClass::Buffer))
            };
            bindings.ranges.push(vec![d]);
        }
        dispatch(&shader, &bindings, [1, 1, 1], &Plan::default(), None).unwrap();
        out.to_bytes()
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect()
    }

    fn run(&self, words: usize) -> Vec<u32> {
        self.run_with(words, &|_| None)
    }
}

/// DXBC reads every source before writing: `add r0.xy, r0.yx, r1.xy` adds the old y to
/// x and the old x to y. The first component's result goes to a fresh register, copied
/// after the second reads the old value.
#[test]
fn sources_are_read_before_any_component_is_written() {
    let mut a = Asm::new(1);
    a.op(
        Opcode::Mov,
        0,
        &[&r(0, "xyzw"), &l4([f(1.0), f(2.0), 3, 4])],
    )
    .op(
        Opcode::Mov,
        0,
        &[&r(1, "xy"), &l4([f(10.0), f(20.0), 0, 0])],
    )
    .op(Opcode::Add, 0, &[&r(0, "xy"), &s(0, "yxzw"), &s(1, "xyzw")])
    // A rotation: every component reads one written before it.
    .op(Opcode::Mov, 0, &[&r(2, "xyzw"), &l4([1, 2, 3, 4])])
    .op(Opcode::Mov, 0, &[&r(2, "xyzw"), &s(2, "yzwx")])
    // An index register that the same instruction overwrites.
    .op(Opcode::Mov, 0, &[&r(3, "xy"), &l4([5, 6, 0, 0])])
    .op(Opcode::Iadd, 0, &[&r(3, "xy"), &s(3, "yxzw"), &l(100)])
    .store(0, &s(0, "x"))
    .store(1, &s(0, "y"))
    .store(2, &s(2, "x"))
    .store(3, &s(2, "y"))
    .store(4, &s(2, "z"))
    .store(5, &s(2, "w"))
    .store(6, &s(3, "x"))
    .store(7, &s(3, "y"))
    .op(Opcode::Ret, 0, &[]);
    let out = a.run(8);
    assert_eq!(&out[..2], &[f(12.0), f(21.0)]);
    assert_eq!(&out[2..6], &[2, 3, 4, 1]);
    assert_eq!(&out[6..8], &[106, 105]);
    // The add (instruction 6, after four declarations and two moves): x goes to a fresh
    // register, y is written in place, then x is copied into place.
    let shader = a.lower().unwrap();
    let add: Vec<&crate::ir::Inst> = shader
        .insts
        .iter()
        .zip(&shader.locs)
        .filter(|(_, loc)| matches!(loc, SourceLoc::Dxbc { index: 6, .. }))
        .map(|(i, _)| i)
        .collect();
    assert_eq!(
        add.iter().map(|i| i.mnemonic()).collect::<Vec<_>>(),
        ["fadd", "fadd", "mov"]
    );
    match (add[0], add[1], add[2]) {
        (
            crate::ir::Inst::FAdd { dst: fresh, .. },
            crate::ir::Inst::FAdd { a: old_x, .. },
            crate::ir::Inst::Mov { dst: x, src },
        ) => {
            assert_eq!(src, fresh);
            assert_eq!(x, old_x);
        }
        other => panic!("{other:?}"),
    }
}

/// Modifiers follow the operand type: on float operands `-x` flips the sign bit and
/// `|x|` clears it (so `-0.0` and NaN payloads behave as bits); on integer operands `-x`
/// is two's-complement negation; `mov` takes float modifiers.
#[test]
fn modifiers_on_float_and_integer_operands() {
    let mut a = Asm::new(1);
    a.op(
        Opcode::Mov,
        0,
        &[&r(0, "xyzw"), &l4([f(-2.5), f(4.0), 7, 0x8000_0000])],
    )
    // float: -(-2.5) + |4| = 6.5
    .op(
        Opcode::Add,
        0,
        &[&r(1, "x"), &m(s(0, "x"), 1), &m(s(0, "y"), 2)],
    )
    // int: -7 + 0x80000000 (wrapping)
    .op(Opcode::Iadd, 0, &[&r(1, "y"), &m(s(0, "z"), 1), &s(0, "w")])
    // mov: float modifiers on bits: -|7| keeps 7's bits and sets the sign.
    .op(Opcode::Mov, 0, &[&r(1, "z"), &m(s(0, "z"), 3)])
    // int negation of INT_MIN wraps to itself.
    .op(Opcode::Ineg, 0, &[&r(1, "w"), &s(0, "w")])
    // an immediate with a modifier folds: -l(1.0) and -l(5) as an int.
    .op(Opcode::Mul, 0, &[&r(2, "x"), &m(l(f(1.0)), 1), &s(0, "y")])
    .op(Opcode::Imul, 0, &[&null(), &r(2, "y"), &m(l(5), 1), &l(3)])
    .store(0, &s(1, "x"))
    .store(1, &s(1, "y"))
    .store(2, &s(1, "z"))
    .store(3, &s(1, "w"))
    .store(4, &s(2, "x"))
    .store(5, &s(2, "y"))
    .op(Opcode::Ret, 0, &[]);
    let out = a.run(6);
    assert_eq!(
        out,
        vec![
            f(6.5),
            0x8000_0000u32.wrapping_sub(7),
            0x8000_0007,
            0x8000_0000,
            f(-4.0),
            (-15i32) as u32
        ]
    );
}

/// `_sat` clamps float results to [0, 1] and sends NaN to 0 (D3D11.3 §3.1).
#[test]
fn saturate_clamps_and_sends_nan_to_zero() {
    let mut a = Asm::new(1);
    a.op(
        Opcode::Mov,
        0,
        &[&r(0, "xyzw"), &l4([f(2.0), f(-3.0), 0x7fc0_0000, f(0.25)])],
    )
    .op(Opcode::Mov, SAT, &[&r(1, "xyzw"), &s(0, "xyzw")])
    .op(Opcode::Add, SAT, &[&r(2, "x"), &s(0, "w"), &s(0, "w")])
    .store(0, &s(1, "x"))
    .store(1, &s(1, "y"))
    .store(2, &s(1, "z"))
    .store(3, &s(1, "w"))
    .store(4, &s(2, "x"))
    .op(Opcode::Ret, 0, &[]);
    assert_eq!(a.run(5), vec![f(1.0), f(0.0), 0, f(0.25), f(0.5)]);
}

/// `dp3` multiplies then adds in order, each step rounded (no fused multiply-add): with
/// 2^24 + 1 products it shows the rounding a fused evaluation would not have.
#[test]
fn dot_products_are_unfused_and_in_order() {
    let big = 16_777_216.0f32; // 2^24
    let mut a = Asm::new(1);
    a.op(
        Opcode::Mov,
        0,
        &[&r(0, "xyzw"), &l4([f(big), f(1.0), f(-big), f(3.0)])],
    )
    .op(
        Opcode::Mov,
        0,
        &[&r(1, "xyzw"), &l4([f(1.0), f(1.0), f(1.0), f(1.0)])],
    )
    // (2^24 * 1 + 1 * 1) rounds to 2^24, then - 2^24 → 0 (a fused or reordered sum gives 1).
    .op(Opcode::Dp3, 0, &[&r(2, "xy"), &s(0, "xyzw"), &s(1, "xyzw")])
    .op(Opcode::Dp2, 0, &[&r(2, "z"), &s(0, "ywww"), &s(1, "xyzw")])
    .store(0, &s(2, "x"))
    .store(1, &s(2, "y"))
    .store(2, &s(2, "z"))
    .op(Opcode::Ret, 0, &[]);
    assert_eq!(a.run(3), vec![f(0.0), f(0.0), f(4.0)]);
}

/// Indexable temporaries: 16 bytes per element, relative indices (register plus
/// offset), partial masks; an index past the end reads 0 and writes nothing (the
/// neighbouring array is untouched).
#[test]
fn indexable_temporaries_address_by_element_and_component() {
    let x = |i: u32, idx: u32, m: &str| {
        let bits = letters(m).iter().fold(0u8, |a, c| a | (1 << c));
        vec![operand(3, 2, mask(bits), 2, [0; 3]), i, idx]
    };
    // x{i}[r{reg}.c + off]
    let xr = |i: u32, off: u32, reg: u32, c: &str, sel: u32| {
        vec![
            operand(3, 2, sel, 2, [0, 3, 0]),
            i,
            off,
            operand(TEMP, 2, select1(letters(c)[0]), 1, [0; 3]),
            reg,
        ]
    };
    let mut a = Asm::new(1);
    a.op(Opcode::DclIndexableTemp, 0, &[&[0, 4, 4]])
        .op(Opcode::DclIndexableTemp, 0, &[&[1, 2, 4]])
        .op(Opcode::Mov, 0, &[&x(1, 0, "xyzw"), &l4([7, 7, 7, 7])])
        .op(Opcode::Mov, 0, &[&r(0, "xyzw"), &l4([1, 2, 9, 0])])
        .op(Opcode::Mov, 0, &[&x(0, 2, "xyzw"), &l4([20, 21, 22, 23])])
        // x0[r0.x + 2].yz = (100, 101): element 3
        .op(
            Opcode::Mov,
            0,
            &[&xr(0, 2, 0, "x", mask(0b0110)), &l4([0, 100, 101, 0])],
        )
        // x0[r0.z + 0] (element 9, past the end) = 55: dropped
        .op(
            Opcode::Mov,
            0,
            &[&xr(0, 0, 0, "z", mask(0b1111)), &l4([55, 55, 55, 55])],
        )
        // r1 = x0[r0.y + 0].wzyx (element 2 reversed)
        .op(
            Opcode::Mov,
            0,
            &[&r(1, "xyzw"), &xr(0, 0, 0, "y", swizzle([3, 2, 1, 0]))],
        )
        // r2.x = x0[r0.x + 2].z (101); r2.y = x0[r0.z + 0].x (past the end: 0)
        .op(Opcode::Mov, 0, &[&r(2, "x"), &xr(0, 2, 0, "x", select1(2))])
        .op(Opcode::Mov, 0, &[&r(2, "y"), &xr(0, 0, 0, "z", select1(0))])
        .op(
            Opcode::Mov,
            0,
            &[&r(2, "z"), &[operand(3, 2, select1(3), 2, [0; 3]), 1, 0]],
        )
        .store(0, &s(1, "x"))
        .store(1, &s(1, "y"))
        .store(2, &s(1, "z"))
        .store(3, &s(1, "w"))
        .store(4, &s(2, "x"))
        .store(5, &s(2, "y"))
        .store(6, &s(2, "z"))
        .op(Opcode::Ret, 0, &[]);
    assert_eq!(a.run(7), vec![23, 22, 21, 20, 101, 0, 7]);
}

/// The immediate constant buffer: an immediate index reads constants, a relative one
/// loads `icb[i]` at byte `16 i + 4 c`; past the end reads 0.
#[test]
fn immediate_constant_buffer() {
    let icb = |off: u32, reg: u32, c: &str, sel: u32| {
        vec![
            operand(ICB, 2, sel, 1, [3, 0, 0]),
            off,
            operand(TEMP, 2, select1(letters(c)[0]), 1, [0; 3]),
            reg,
        ]
    };
    let mut a = Asm::new(1);
    // dcl_immediateConstantBuffer { {1,2,3,4}, {5,6,7,8}, {9,10,11,12} }
    a.tokens
        .extend_from_slice(&[0x0000_1835, 14, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12]);
    a.op(Opcode::Mov, 0, &[&r(0, "xy"), &l4([1, 5, 0, 0])])
        .op(
            Opcode::Mov,
            0,
            &[
                &r(1, "xy"),
                &[operand(ICB, 2, swizzle([2, 1, 0, 0]), 1, [0; 3]), 1],
            ],
        )
        .op(
            Opcode::Mov,
            0,
            &[&r(1, "zw"), &icb(1, 0, "x", swizzle([0, 0, 3, 0]))],
        )
        .op(Opcode::Mov, 0, &[&r(2, "x"), &icb(0, 0, "y", select1(0))])
        .store(0, &s(1, "x"))
        .store(1, &s(1, "y"))
        .store(2, &s(1, "z"))
        .store(3, &s(1, "w"))
        .store(4, &s(2, "x"))
        .op(Opcode::Ret, 0, &[]);
    assert_eq!(a.run(5), vec![7, 6, 12, 9, 0]);
}

/// Doubles live in xy/zw pairs: `dadd` writing zw from swizzled pairs, `dtof` writing
/// the n-th double to the n-th masked component, `ftod` reading component k for pair k,
/// `dmovc` testing component k for pair k, comparisons, and `dmov` with a negation.
#[test]
fn doubles_use_component_pairs() {
    let mut a = Asm::new(1);
    a.op(Opcode::Dmov, 0, &[&r(0, "xyzw"), &d2(1.5, -4.0)])
        // r1.zw = r0.zw + r0.xy = -2.5; r1.xy = r0.xy + d(0.25) = 1.75
        .op(
            Opcode::Dadd,
            0,
            &[&r(1, "zw"), &s(0, "zwzw"), &s(0, "xyxy")],
        )
        .op(
            Opcode::Dadd,
            0,
            &[&r(1, "xy"), &s(0, "xyxy"), &d2(0.25, 0.0)],
        )
        // r2.yw = float(r1.zw), float(r1.xy)
        .op(Opcode::Dtof, 0, &[&r(2, "yw"), &s(1, "zwxy")])
        // r3 = double(r2.w) in xy, double(r2.y) in zw
        .op(Opcode::Ftod, 0, &[&r(3, "xyzw"), &s(2, "wyyy")])
        // r4.xy = (l.x != 0) ? r0.xy : r1.xy; r4.zw = (l.y != 0) ? r0.zw : r1.zw
        .op(
            Opcode::Dmovc,
            0,
            &[
                &r(4, "xyzw"),
                &l4([0, 1, 0, 0]),
                &s(0, "xyzw"),
                &s(1, "xyzw"),
            ],
        )
        .op(Opcode::Dlt, 0, &[&r(5, "xy"), &s(0, "xyzw"), &s(1, "zwxy")])
        .op(Opcode::Dmov, 0, &[&r(6, "zw"), &m(s(0, "xyxy"), 1)])
        .op(Opcode::Dtoi, 0, &[&r(5, "z"), &s(6, "zwzw")])
        .store(0, &s(2, "y"))
        .store(1, &s(2, "w"))
        .store(2, &s(3, "x"))
        .store(3, &s(3, "y"))
        .store(4, &s(3, "z"))
        .store(5, &s(3, "w"))
        .store(6, &s(4, "x"))
        .store(7, &s(4, "y"))
        .store(8, &s(4, "z"))
        .store(9, &s(4, "w"))
        .store(10, &s(5, "x"))
        .store(11, &s(5, "y"))
        .store(12, &s(5, "z"))
        .op(Opcode::Ret, 0, &[]);
    let out = a.run(13);
    let dw = |v: f64| [v.to_bits() as u32, (v.to_bits() >> 32) as u32];
    assert_eq!(&out[..2], &[f(-2.5), f(1.75)]);
    assert_eq!(&out[2..4], &dw(1.75));
    assert_eq!(&out[4..6], &dw(-2.5));
    assert_eq!(&out[6..8], &dw(1.75));
    assert_eq!(&out[8..10], &dw(-4.0));
    // 1.5 < -2.5 is false; -4.0 < 1.75 is true.
    assert_eq!(&out[10..12], &[0, 0xffff_ffff]);
    assert_eq!(out[12], (-1i32) as u32);
}

/// `switch` with a case that runs on into the next (no `break`), shared labels and a
/// default: thread 0 runs cases 0 and 1 (1 + 10), thread 1 case 1, threads 2 and 3 the
/// shared labels, others the default.
#[test]
fn switch_falls_through_to_the_next_case() {
    let mut a = Asm::new(6);
    a.op(Opcode::Mov, 0, &[&r(1, "x"), &l(0)])
        .op(Opcode::Switch, 0, &[&tid("x")])
        .op(Opcode::Case, 0, &[&l(0)])
        .op(Opcode::Iadd, 0, &[&r(1, "x"), &s(1, "x"), &l(1)])
        .op(Opcode::Case, 0, &[&l(1)])
        .op(Opcode::Iadd, 0, &[&r(1, "x"), &s(1, "x"), &l(10)])
        .op(Opcode::Break, 0, &[])
        .op(Opcode::Case, 0, &[&l(2)])
        .op(Opcode::Case, 0, &[&l(3)])
        .op(Opcode::Mov, 0, &[&r(1, "x"), &l(50)])
        .op(Opcode::Break, 0, &[])
        .op(Opcode::Default, 0, &[])
        .op(Opcode::Mov, 0, &[&r(1, "x"), &l(99)])
        .op(Opcode::Break, 0, &[])
        .op(Opcode::EndSwitch, 0, &[])
        .store_tid(0, &s(1, "x"))
        .op(Opcode::Ret, 0, &[]);
    assert_eq!(a.run(6), vec![11, 10, 50, 50, 99, 99]);
    // The two shared labels go to one block.
    let shader = a.lower().unwrap();
    let switch = shader
        .blocks
        .iter()
        .find_map(|b| match &b.term {
            Terminator::Switch { cases, .. } => Some(cases.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(switch.len(), 4);
    assert_eq!(switch[2].1, switch[3].1);
}

/// `breakc`, `continuec` and `retc` with both tests: thread t counts loop iterations
/// until the counter reaches 5 + t, skipping odd counters, and threads 1 and 3 return
/// before storing.
#[test]
fn conditional_break_continue_and_return() {
    let mut a = Asm::new(4);
    a.op(Opcode::Mov, 0, &[&r(0, "xy"), &l4([0, 0, 0, 0])])
        .op(Opcode::Iadd, 0, &[&r(0, "w"), &tid("x"), &l(5)])
        .op(Opcode::Loop, 0, &[])
        .op(Opcode::Iadd, 0, &[&r(0, "x"), &s(0, "x"), &l(1)])
        .op(Opcode::Uge, 0, &[&r(0, "z"), &s(0, "x"), &s(0, "w")])
        .op(Opcode::Breakc, TEST_NZ, &[&s(0, "z")])
        .op(Opcode::And, 0, &[&r(0, "z"), &s(0, "x"), &l(1)])
        .op(Opcode::Continuec, TEST_NZ, &[&s(0, "z")])
        .op(Opcode::Iadd, 0, &[&r(0, "y"), &s(0, "y"), &l(1)])
        .op(Opcode::EndLoop, 0, &[])
        .op(Opcode::And, 0, &[&r(0, "z"), &tid("x"), &l(1)])
        .op(Opcode::Retc, TEST_NZ, &[&s(0, "z")])
        // breakc_z: leaves when the test value is zero.
        .op(Opcode::Loop, 0, &[])
        .op(Opcode::Breakc, 0, &[&l(0)])
        .op(Opcode::EndLoop, 0, &[])
        .store_tid(0, &s(0, "y"))
        .op(Opcode::Ret, 0, &[]);
    // Counters 1..(4 + t) are visited; the even ones are counted: t = 0 → 2 (2, 4),
    // t = 2 → 3 (2, 4, 6).
    assert_eq!(a.run(4), vec![2, 0, 3, 0]);
}

/// `call`/`callc` inline the subroutine; its `ret`/`retc` continue after the call; a
/// subroutine may call another; temporaries are shared with the caller.
#[test]
fn subroutines_are_inlined() {
    let mut a = Asm::new(2);
    a.op(Opcode::Mov, 0, &[&r(1, "x"), &l(0)])
        .op(Opcode::Call, 0, &[&label(0)])
        .op(Opcode::Call, 0, &[&label(0)])
        .op(Opcode::Callc, TEST_NZ, &[&tid("x"), &label(1)])
        .store_tid(0, &s(1, "x"))
        .op(Opcode::Ret, 0, &[])
        .op(Opcode::Label, 0, &[&label(0)])
        .op(Opcode::Iadd, 0, &[&r(1, "x"), &s(1, "x"), &l(1)])
        .op(Opcode::Ret, 0, &[])
        .op(Opcode::Label, 0, &[&label(1)])
        .op(Opcode::Call, 0, &[&label(0)])
        .op(Opcode::Ige, 0, &[&r(2, "x"), &s(1, "x"), &l(3)])
        .op(Opcode::Retc, TEST_NZ, &[&s(2, "x")])
        .op(Opcode::Iadd, 0, &[&r(1, "x"), &s(1, "x"), &l(100)])
        .op(Opcode::Ret, 0, &[]);
    // Thread 0: 1 + 1; thread 1: 1 + 1 + 1, then returns early from l1.
    assert_eq!(a.run(2), vec![2, 3]);
}

/// D3D forbids recursion: a subroutine that calls itself (here through another) is
/// refused, naming the label.
#[test]
fn recursion_is_refused() {
    let mut a = Asm::new(1);
    a.op(Opcode::Call, 0, &[&label(0)])
        .op(Opcode::Ret, 0, &[])
        .op(Opcode::Label, 0, &[&label(0)])
        .op(Opcode::Call, 0, &[&label(1)])
        .op(Opcode::Ret, 0, &[])
        .op(Opcode::Label, 0, &[&label(1)])
        .op(Opcode::Call, 0, &[&label(0)])
        .op(Opcode::Ret, 0, &[]);
    let e = a.lower().unwrap_err();
    assert!(
        matches!(&e, LowerError::Unsupported { what, .. } if what.contains("recursive call of subroutine l0")),
        "{e}"
    );
}

/// What a compute program cannot run is refused with the opcode's name and location.
#[test]
fn refusals_name_the_opcode_and_its_location() {
    for (op, operands, text) in [
        (
            Opcode::DerivRtx,
            vec![r(0, "x"), s(0, "x")],
            "opcode deriv_rtx (derivatives need pixel quads; compute programs have none)",
        ),
        (
            Opcode::Lod,
            vec![
                r(0, "x"),
                s(0, "xyzw"),
                res(RES, 0, "xyzw"),
                vec![operand(6, 0, 0, 1, [0; 3]), 0],
            ],
            "opcode lod (an implicit level of detail needs derivatives; compute programs have none)",
        ),
        (Opcode::Emit, vec![], "opcode emit (geometry shaders only)"),
        (
            Opcode::Discard,
            vec![s(0, "x")],
            "opcode discard (pixel shaders only)",
        ),
    ] {
        let mut a = Asm::new(1);
        let refs: Vec<&[u32]> = operands.iter().map(|v| v.as_slice()).collect();
        a.op(op, 0, &refs).op(Opcode::Ret, 0, &[]);
        let e = a.lower().unwrap_err();
        match &e {
            LowerError::Unsupported { what, location } => {
                assert_eq!(what, text);
                // dcl_thread_group, dcl_uav_raw, dcl_input, dcl_temps, then the opcode at
                // token 2 + 4 + 3 + 2 + 2.
                assert_eq!(location, "dxbc instruction 4 (token 0xd)");
            }
            other => panic!("{other}"),
        }
    }
    let mut a = Asm::new(1);
    a.version = 0x0003_0050;
    let e = a.lower().unwrap_err();
    // A hull program lowers, but not with a compute program's declarations.
    assert!(
        e.to_string().contains("declaration in a hull program"),
        "{e}"
    );
}

/// Two-result instructions (`imul`/`umul` high then low, `udiv` quotient then
/// remainder, `uaddc`, `usubb`, `swapc`, `sincos`), with `null` destinations.
#[test]
fn two_result_instructions() {
    let mut a = Asm::new(1);
    a.op(
        Opcode::Mov,
        0,
        &[&r(0, "xyzw"), &l4([0xffff_fff0, 3, 17, 0])],
    )
    .op(
        Opcode::Umul,
        0,
        &[&r(1, "x"), &r(1, "y"), &s(0, "x"), &s(0, "y")],
    )
    .op(
        Opcode::Imul,
        0,
        &[&r(1, "z"), &null(), &s(0, "x"), &s(0, "y")],
    )
    .op(
        Opcode::Udiv,
        0,
        &[&r(2, "x"), &r(2, "y"), &s(0, "z"), &s(0, "y")],
    )
    .op(
        Opcode::Udiv,
        0,
        &[&null(), &r(2, "z"), &s(0, "z"), &s(0, "w")],
    )
    .op(
        Opcode::Uaddc,
        0,
        &[&r(3, "x"), &r(3, "y"), &s(0, "x"), &l(0x20)],
    )
    .op(
        Opcode::Usubb,
        0,
        &[&r(3, "z"), &r(3, "w"), &s(0, "y"), &s(0, "z")],
    )
    // swapc r4.xy, r5.xy, (1, 0), (10, 11), (20, 21): r4 = (20, 11), r5 = (10, 21)
    .op(
        Opcode::Swapc,
        0,
        &[
            &r(4, "xy"),
            &r(5, "xy"),
            &l4([1, 0, 0, 0]),
            &l4([10, 11, 0, 0]),
            &l4([20, 21, 0, 0]),
        ],
    )
    .op(Opcode::Sincos, 0, &[&null(), &r(6, "x"), &l(0)])
    .store(0, &s(1, "x"))
    .store(1, &s(1, "y"))
    .store(2, &s(1, "z"))
    .store(3, &s(2, "x"))
    .store(4, &s(2, "y"))
    .store(5, &s(2, "z"))
    .store(6, &s(3, "x"))
    .store(7, &s(3, "y"))
    .store(8, &s(3, "z"))
    .store(9, &s(3, "w"))
    .store(10, &s(4, "x"))
    .store(11, &s(4, "y"))
    .store(12, &s(5, "x"))
    .store(13, &s(5, "y"))
    .store(14, &s(6, "x"))
    .op(Opcode::Ret, 0, &[]);
    assert_eq!(
        a.run(15),
        vec![
            2,
            0xffff_ffd0,
            0xffff_ffff,
            5,
            2,
            0xffff_ffff,
            0x10,
            1,
            (3u32).wrapping_sub(17),
            1,
            20,
            11,
            10,
            21,
            f(1.0)
        ]
    );
}

/// Bit fields: `ubfe`, `ibfe`, `bfi`, `bfrev`, `countbits`, `firstbit_*`, `msad`.
#[test]
fn bit_field_instructions() {
    let mut a = Asm::new(1);
    a.op(
        Opcode::Mov,
        0,
        &[&r(0, "xyzw"), &l4([0xabcd_1234, 8, 4, 0])],
    )
    .op(
        Opcode::Ubfe,
        0,
        &[&r(1, "x"), &s(0, "y"), &s(0, "z"), &s(0, "x")],
    )
    .op(Opcode::Ibfe, 0, &[&r(1, "y"), &l(8), &l(24), &s(0, "x")])
    .op(
        Opcode::Bfi,
        0,
        &[&r(1, "z"), &l(8), &l(4), &l(0xff), &s(0, "w")],
    )
    .op(Opcode::Bfrev, 0, &[&r(1, "w"), &l(1)])
    .op(Opcode::FirstbitHi, 0, &[&r(2, "x"), &l(0x100)])
    .op(Opcode::FirstbitShi, 0, &[&r(2, "y"), &l(0xffff_0000)])
    .op(Opcode::FirstbitLo, 0, &[&r(2, "z"), &l(0)])
    .op(Opcode::Countbits, 0, &[&r(2, "w"), &s(0, "x")])
    .op(
        Opcode::Msad,
        0,
        &[&r(3, "x"), &l(0x0403_0201), &l(0x0504_0302), &l(10)],
    )
    .store(0, &s(1, "x"))
    .store(1, &s(1, "y"))
    .store(2, &s(1, "z"))
    .store(3, &s(1, "w"))
    .store(4, &s(2, "x"))
    .store(5, &s(2, "y"))
    .store(6, &s(2, "z"))
    .store(7, &s(2, "w"))
    .store(8, &s(3, "x"))
    .op(Opcode::Ret, 0, &[]);
    assert_eq!(
        a.run(9),
        vec![
            0x23,
            0xffff_ffab,
            0xff0,
            0x8000_0000,
            23,
            16,
            0xffff_ffff,
            0xabcd_1234u32.count_ones(),
            14
        ]
    );
}

/// `bufinfo` (elements of a typed view, structures, bytes of a raw view) and `resinfo`
/// in its three forms (`_rcpFloat`: reciprocal width and height, the array size and mip
/// count as floats; a mip past the last gives infinite reciprocals).
#[test]
fn size_queries() {
    let mut a = Asm::new(1);
    a.op(
        Opcode::DclResourceRaw,
        0,
        &[&[operand(RES, 0, 0, 1, [0; 3]), 1]],
    )
    .op(
        Opcode::DclResourceStructured,
        0,
        &[&[operand(RES, 0, 0, 1, [0; 3]), 2], &[12]],
    )
    .op(
        Opcode::DclResource,
        8 << 11,
        &[&[operand(RES, 0, 0, 1, [0; 3]), 3], &[0x5555]],
    )
    .op(Opcode::Bufinfo, 0, &[&r(0, "xy"), &res(RES, 1, "x")])
    .op(Opcode::Bufinfo, 0, &[&r(0, "z"), &res(RES, 2, "x")])
    .op(
        Opcode::Resinfo,
        1 << 11,
        &[&r(1, "xyzw"), &l(1), &res(RES, 3, "xyzw")],
    )
    .op(
        Opcode::Resinfo,
        2 << 11,
        &[&r(2, "xyzw"), &l(0), &res(RES, 3, "wzyx")],
    )
    .op(
        Opcode::Resinfo,
        1 << 11,
        &[&r(3, "xw"), &l(9), &res(RES, 3, "xyzw")],
    )
    .store(0, &s(0, "x"))
    .store(1, &s(0, "y"))
    .store(2, &s(0, "z"))
    .store(3, &s(1, "x"))
    .store(4, &s(1, "y"))
    .store(5, &s(1, "z"))
    .store(6, &s(1, "w"))
    .store(7, &s(2, "x"))
    .store(8, &s(2, "y"))
    .store(9, &s(2, "z"))
    .store(10, &s(2, "w"))
    .store(11, &s(3, "x"))
    .store(12, &s(3, "w"))
    .op(Opcode::Ret, 0, &[]);
    let out = a.run_with(13, &|range| {
        Some(match (range.lower, range.kind) {
            (1, ResourceKind::RawBuffer) => Descriptor::Buffer {
                view: BufferView::whole(Memory::zeroed(40).unwrap(), BufferKind::Raw),
                counter: None,
            },
            (2, _) => Descriptor::Buffer {
                view: BufferView::whole(
                    Memory::zeroed(60).unwrap(),
                    BufferKind::Structured { stride: 12 },
                ),
                counter: None,
            },
            _ => {
                let desc = TextureDesc {
                    dim: TextureDim::Tex2DArray,
                    format: Format::from_name("R32_FLOAT").unwrap(),
                    width: 8,
                    height: 4,
                    depth_or_array_size: 3,
                    mips: 2,
                    samples: 1,
                };
                Descriptor::Texture(TextureView::whole(Texture::new(desc).unwrap()))
            }
        })
    });
    assert_eq!(
        out,
        vec![
            40,
            40,
            5,
            f(0.25),
            f(0.5),
            f(3.0),
            f(2.0),
            2,
            3,
            4,
            8,
            f(f32::INFINITY),
            f(2.0)
        ]
    );
}

/// `imm_atomic_alloc` returns the counter before incrementing, `imm_atomic_consume` the
/// counter after decrementing; the range is marked as having a counter.
#[test]
fn counters() {
    let mut a = Asm::new(4);
    a.op(
        Opcode::DclUavStructured,
        0,
        &[&[operand(UAV, 0, 0, 1, [0; 3]), 1], &[4]],
    )
    .op(
        Opcode::ImmAtomicAlloc,
        0,
        &[&r(0, "x"), &[operand(UAV, 0, 0, 1, [0; 3]), 1]],
    )
    .op(
        Opcode::ImmAtomicConsume,
        0,
        &[&r(0, "y"), &[operand(UAV, 0, 0, 1, [0; 3]), 1]],
    )
    .op(Opcode::AtomicIadd, 0, &[&u(0, 1), &l(0), &s(0, "x")])
    .op(Opcode::AtomicIadd, 0, &[&u(0, 1), &l(4), &s(0, "y")])
    .op(Opcode::Ret, 0, &[]);
    let shader = a.lower().unwrap();
    assert!(shader.resources.iter().any(|r| r.counter));
    let counter = Counter::new(10);
    let out = a.run_with(2, &|_| {
        Some(Descriptor::Buffer {
            view: BufferView::whole(
                Memory::zeroed(16).unwrap(),
                BufferKind::Structured { stride: 4 },
            ),
            counter: Some(counter.clone()),
        })
    });
    // Allocations see 10, 11, 12, 13 (sum 46); then consumes see 13, 12, 11, 10 (46).
    assert_eq!(out, vec![46, 46]);
    assert_eq!(counter.get(), 10);
}

/// Shader Model 5.1 ranges: `U1[2:4]` indexed by an immediate and by a register; the
/// handle's index counts from the range's first register.
#[test]
fn shader_model_5_1_ranges() {
    let mut a = Asm::new(3);
    a.version = 0x0005_0051;
    a.tokens.clear();
    let decl3 = |id: u32, lo: u32, hi: u32| vec![operand(UAV, 0, 0, 3, [0; 3]), id, lo, hi];
    a.op(Opcode::DclThreadGroup, 0, &[&[3, 1, 1]])
        .op(Opcode::DclUavRaw, 0, &[&decl3(0, 0, 0), &[0]])
        .op(Opcode::DclUavRaw, 0, &[&decl3(1, 2, 4), &[0]])
        .op(
            Opcode::DclInput,
            0,
            &[&[operand(TID, 2, mask(0b111), 0, [0; 3])]],
        )
        .op(Opcode::DclTemps, 0, &[&[2]])
        .op(Opcode::Iadd, 0, &[&r(0, "x"), &tid("x"), &l(2)])
        // store_raw U1[r0.x].x, l(0), vThreadID.x + 1
        .op(Opcode::Iadd, 0, &[&r(0, "y"), &tid("x"), &l(1)])
        .op(
            Opcode::StoreRaw,
            0,
            &[
                &[
                    operand(UAV, 2, mask(1), 2, [0, 2, 0]),
                    1,
                    operand(TEMP, 2, select1(0), 1, [0; 3]),
                    0,
                ],
                &l(0),
                &s(0, "y"),
            ],
        )
        // store_raw U0[0].x, l(0), 7
        .op(
            Opcode::StoreRaw,
            0,
            &[&[operand(UAV, 2, mask(1), 2, [0; 3]), 0, 0], &l(0), &l(7)],
        )
        .op(Opcode::Ret, 0, &[]);
    let shader = a.lower().unwrap();
    assert_eq!(shader.resources[1].lower, 2);
    assert_eq!(shader.resources[1].count, 3);
    let mems: Vec<Memory> = (0..4).map(|_| Memory::zeroed(4).unwrap()).collect();
    let desc = |m: &Memory| Descriptor::Buffer {
        view: BufferView::whole(m.clone(), BufferKind::Raw),
        counter: None,
    };
    let bindings = Bindings {
        ranges: vec![
            vec![desc(&mems[0])],
            vec![desc(&mems[1]), desc(&mems[2]), desc(&mems[3])],
        ],
        ..Bindings::default()
    };
    dispatch(&shader, &bindings, [1, 1, 1], &Plan::default(), None).unwrap();
    let word = |m: &Memory| m.load_u32(0).unwrap();
    assert_eq!(mems.iter().map(word).collect::<Vec<_>>(), vec![7, 1, 2, 3]);
}

/// Malformed structure is an error, not a crash.
#[test]
fn unbalanced_control_flow_is_invalid() {
    for ops in [
        vec![Opcode::EndIf],
        vec![Opcode::Loop],
        vec![Opcode::Break],
        vec![Opcode::Case],
        vec![Opcode::Else],
    ] {
        let mut a = Asm::new(1);
        for op in &ops {
            if *op == Opcode::Case {
                a.op(*op, 0, &[&l(0)]);
            } else {
                a.op(*op, 0, &[]);
            }
        }
        a.op(Opcode::Ret, 0, &[]);
        let e = a.lower().unwrap_err();
        assert!(matches!(e, LowerError::Invalid { .. }), "{ops:?}: {e}");
    }
}

/// Every IR instruction carries the DXBC instruction it came from.
#[test]
fn every_instruction_has_a_dxbc_location() {
    let mut a = Asm::new(1);
    a.op(Opcode::Mov, 0, &[&r(0, "xy"), &l4([1, 2, 0, 0])])
        .op(Opcode::Iadd, 0, &[&r(0, "xy"), &s(0, "yxxx"), &tid("x")])
        .store(0, &s(0, "x"))
        .op(Opcode::Ret, 0, &[]);
    let shader = a.lower().unwrap();
    assert!(!shader.insts.is_empty());
    for (i, loc) in shader.locs.iter().enumerate() {
        assert!(
            matches!(loc, SourceLoc::Dxbc { .. }),
            "{}: {loc}",
            shader.insts[i]
        );
    }
}

/// The texture instructions a compute program may use: `sample_c_lz` through a
/// comparison sampler, `sample_d`, `gather4_po` (per-lane offsets), `ld_s` with
/// `check_access_fully_mapped`, `ld_ms`, `sampleinfo` (integer and float) and
/// `samplepos` (the standard 4-sample pattern's sample 1 is (6/16, -2/16)).
#[test]
fn texture_instructions_in_compute() {
    use crate::resources::{ComparisonFunc, Filter, FilterType, Reduction, SamplerDesc};
    let smp = |i: u32| vec![operand(6, 0, 0, 1, [0; 3]), i];
    let mut a = Asm::new(1);
    a.op(
        Opcode::DclResource,
        3 << 11,
        &[&[operand(RES, 0, 0, 1, [0; 3]), 0], &[0x5555]],
    )
    .op(
        Opcode::DclResource,
        (4 << 11) | (4 << 16),
        &[&[operand(RES, 0, 0, 1, [0; 3]), 1], &[0x4444]],
    )
    .op(Opcode::DclSampler, 1 << 11, &[&smp(0)])
    .op(Opcode::DclSampler, 0, &[&smp(1)])
    .op(
        Opcode::SampleCLz,
        0,
        &[
            &r(0, "x"),
            &l4([f(0.75), f(0.25), 0, 0]),
            &res(RES, 0, "x"),
            &smp(0),
            &l(f(0.4)),
        ],
    )
    .op(
        Opcode::SampleCLz,
        0,
        &[
            &r(0, "y"),
            &l4([f(0.75), f(0.25), 0, 0]),
            &res(RES, 0, "x"),
            &smp(0),
            &l(f(0.6)),
        ],
    )
    .op(
        Opcode::SampleD,
        0,
        &[
            &r(0, "z"),
            &l4([f(0.25), f(0.75), 0, 0]),
            &res(RES, 0, "x"),
            &smp(1),
            &l4([0; 4]),
            &l4([0; 4]),
        ],
    )
    .op(
        Opcode::Gather4Po,
        0,
        &[
            &r(1, "xyzw"),
            &l4([f(0.5), f(0.5), 0, 0]),
            &l4([1, 0, 0, 0]),
            &res(RES, 0, "xyzw"),
            &[operand(6, 2, select1(0), 1, [0; 3]), 1],
        ],
    )
    .op(
        Opcode::LdFeedback,
        0,
        &[&r(2, "x"), &r(2, "y"), &l4([1, 1, 0, 0]), &res(RES, 0, "x")],
    )
    .op(Opcode::CheckAccessFullyMapped, 0, &[&r(2, "z"), &s(2, "y")])
    .op(
        Opcode::LdMs,
        0,
        &[&r(3, "x"), &l4([1, 0, 0, 0]), &res(RES, 1, "x"), &l(2)],
    )
    .op(
        Opcode::SampleInfo,
        1 << 11,
        &[&r(3, "y"), &res(RES, 1, "x")],
    )
    .op(
        Opcode::SamplePos,
        0,
        &[&r(3, "zw"), &res(RES, 1, "xxxy"), &l(1)],
    )
    .op(Opcode::SampleInfo, 0, &[&r(4, "x"), &res(RES, 1, "x")]);
    let mut word = 0;
    for (reg, comps) in [(0, "xyz"), (1, "xyzw"), (2, "xz"), (3, "xyzw"), (4, "x")] {
        for c in comps.chars() {
            a.store(word, &s(reg, &c.to_string()));
            word += 1;
        }
    }
    a.op(Opcode::Ret, 0, &[]);
    let texture = |dim, format: &str, samples: u32, words: &[u32]| {
        let desc = TextureDesc {
            dim,
            format: Format::from_name(format).unwrap(),
            width: 2,
            height: 2,
            depth_or_array_size: 1,
            mips: 1,
            samples,
        };
        let bytes: Vec<u8> = words.iter().flat_map(|w| w.to_le_bytes()).collect();
        Descriptor::Texture(TextureView::whole(
            Texture::from_bytes(desc, &bytes).unwrap(),
        ))
    };
    let ms: Vec<u32> = (0..16).map(|k| 100 * (k / 4) + k % 4).collect();
    let out = a.run_with(word as usize, &|range| {
        Some(match (range.class, range.lower) {
            (ResourceClass::Srv, 0) => texture(
                TextureDim::Tex2D,
                "R32_FLOAT",
                1,
                &[f(0.25), f(0.5), f(0.75), f(1.0)],
            ),
            (ResourceClass::Srv, _) => texture(TextureDim::Tex2DMS, "R32_UINT", 4, &ms),
            (_, 0) => Descriptor::Sampler(SamplerDesc {
                filter: Filter {
                    min: FilterType::Point,
                    mag: FilterType::Point,
                    mip: FilterType::Point,
                    anisotropic: false,
                    reduction: Reduction::Comparison,
                },
                comparison: ComparisonFunc::LessEqual,
                ..SamplerDesc::default()
            }),
            _ => Descriptor::Sampler(SamplerDesc {
                filter: Filter::POINT,
                ..SamplerDesc::default()
            }),
        })
    });
    assert_eq!(
        out,
        vec![
            f(1.0),
            f(0.0),
            f(0.75),
            f(1.0),
            f(1.0),
            f(0.5),
            f(0.5),
            f(1.0),
            0xffff_ffff,
            201,
            4,
            f(0.375),
            f(-0.125),
            f(4.0)
        ]
    );
}

/// Group shared memory: each `g#` is its own region; an access outside its declaration
/// (raw address past the size, structured index past the count, offset past the stride)
/// reads 0 and writes nothing — it does not reach the next region.
#[test]
fn group_shared_regions_are_bounded() {
    let g = |i: u32, m: u8| vec![operand(31, 2, mask(m), 1, [0; 3]), i];
    let gs = |i: u32, sw: &str| src(31, i, sw);
    let mut a = Asm::new(1);
    a.op(
        Opcode::DclTgsmRaw,
        0,
        &[&[operand(31, 0, 0, 1, [0; 3]), 0], &[8]],
    )
    .op(
        Opcode::DclTgsmRaw,
        0,
        &[&[operand(31, 0, 0, 1, [0; 3]), 1], &[8]],
    )
    .op(
        Opcode::DclTgsmStructured,
        0,
        &[&[operand(31, 0, 0, 1, [0; 3]), 2], &[8], &[2]],
    )
    .op(Opcode::Mov, 0, &[&r(0, "xyzw"), &l4([8, 4, 2, 0])])
    .op(
        Opcode::StoreRaw,
        0,
        &[&g(1, 0b11), &l(0), &l4([1, 2, 0, 0])],
    )
    .op(
        Opcode::StoreRaw,
        0,
        &[&g(0, 0b11), &l(0), &l4([5, 6, 0, 0])],
    )
    // g0 at byte r0.x = 8: past its 8 bytes.
    .op(Opcode::StoreRaw, 0, &[&g(0, 1), &s(0, "x"), &l(99)])
    // g2[r0.z = 2]: past its 2 structures; g2[1] at offset r0.y = 4 with two
    // components: past the 8-byte stride.
    .op(
        Opcode::StoreStructured,
        0,
        &[&g(2, 1), &s(0, "z"), &l(0), &l(77)],
    )
    .op(
        Opcode::StoreStructured,
        0,
        &[&g(2, 0b11), &l(1), &s(0, "y"), &l4([88, 88, 0, 0])],
    )
    .op(
        Opcode::StoreStructured,
        0,
        &[&g(2, 0b11), &l(1), &l(0), &l4([3, 4, 0, 0])],
    )
    .op(Opcode::LdRaw, 0, &[&r(1, "xy"), &l(0), &gs(1, "xyzw")])
    .op(Opcode::LdRaw, 0, &[&r(1, "zw"), &s(0, "y"), &gs(0, "xxxy")])
    .op(
        Opcode::LdStructured,
        0,
        &[&r(2, "xy"), &l(1), &l(0), &gs(2, "xyzw")],
    )
    .op(Opcode::LdRaw, 0, &[&r(2, "z"), &l(0), &gs(0, "y")])
    .store(0, &s(1, "x"))
    .store(1, &s(1, "y"))
    .store(2, &s(1, "z"))
    .store(3, &s(1, "w"))
    .store(4, &s(2, "x"))
    .store(5, &s(2, "y"))
    .store(6, &s(2, "z"))
    .op(Opcode::Ret, 0, &[]);
    // g1 keeps (1, 2); g0 read at byte 4 for two words spans past its end: 0, 0;
    // g2[1] holds (3, 4); g0[1] is 6.
    assert_eq!(a.run(7), vec![1, 2, 0, 0, 3, 4, 6]);
}
