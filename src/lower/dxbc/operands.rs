//! Operands: reading source components (swizzles, modifiers, indexing) into IR registers,
//! preparing destinations, and resource handles.

use super::Lowerer;
use super::decls::{MAX_CB_ROWS, RangeInfo};
use super::io::special_side;
use crate::dxbc::{
    Component, Components, Index, Operand, OperandModifier, OperandType, RegisterType,
    RelativeRegister,
};
use crate::ir::{Inst, LocalId, Reg, Stage, Width};
use crate::lower::LowerError;

/// The sign bit of a 32-bit float.
pub(super) const SIGN: u32 = 0x8000_0000;

/// The source component an operand reads for each destination component x, y, z, w:
/// its swizzle, its selected component replicated, x for a one-component register, and
/// x, y, z, w for immediates (and, leniently, for a source written in mask mode).
pub(super) fn swizzle(op: &Operand) -> [usize; 4] {
    match op.components {
        Components::Swizzle(s) => s.0.map(Component::index),
        Components::Select(c) => [c.index(); 4],
        Components::One => [0; 4],
        Components::Mask(_) | Components::Vec4 | Components::Zero => [0, 1, 2, 3],
    }
}

/// The source components (bit i = component i) that destination components `mask` read
/// through swizzle `sw`.
pub(super) fn needed(sw: [usize; 4], mask: u8) -> u8 {
    let mut need = 0u8;
    for (c, s) in sw.iter().enumerate() {
        if mask & (1 << c) != 0 {
            need |= 1 << (s & 3);
        }
    }
    need
}

/// The components of a mask, in order.
pub(super) fn comps(mask: u8) -> impl Iterator<Item = usize> {
    (0..4).filter(move |c| mask & (1 << c) != 0)
}

/// A register one past `r` by `k` (components of one `r#`, halves of a pair).
pub(super) fn plus(r: Reg, k: usize) -> Reg {
    Reg(r.0.wrapping_add(u32::try_from(k).unwrap_or(0)))
}

/// An index: a constant, or a register computed per lane.
#[derive(Debug, Clone, Copy)]
pub(super) enum Idx {
    Imm(u32),
    Dyn(Reg),
}

/// A source's components before its modifier: registers or immediate words.
enum Raw {
    Regs([Reg; 4]),
    Imm([u32; 4]),
}

/// Where a destination's values go after they are computed, when not in `r#` registers.
#[derive(Debug, Clone, Copy)]
enum Store {
    /// An indexable temporary: array, address register, immediate byte offset.
    Local(LocalId, Reg, u32),
    /// Stage output words from `slot` (component `c` at `slot + c`), at a run-time row of
    /// `rows` when indexed (`o[r#.x + n]`).
    Output {
        slot: u32,
        row: Option<Reg>,
        rows: u32,
    },
}

/// A prepared destination: the registers its components are computed into, and, for an
/// indexable temporary or a stage output, where they are stored afterwards.
#[derive(Debug, Clone, Copy)]
pub(super) struct Dest {
    /// Written components (0 for `null`).
    pub mask: u8,
    /// The register of each written component (`r#` components, or fresh registers).
    pub regs: [Reg; 4],
    store: Option<Store>,
}

impl Dest {
    /// The register of component `c`.
    pub fn reg(&self, c: usize) -> Reg {
        self.regs.get(c).copied().unwrap_or(Reg::NONE)
    }

    /// Whether the destination is stored by [`Lowerer::commit`] (an indexable temporary or
    /// a stage output) rather than written in registers.
    pub fn is_stored(&self) -> bool {
        self.store.is_some()
    }

    /// The same destination taking its stored values from `regs` (per component).
    pub fn with_regs(mut self, regs: [Reg; 4]) -> Dest {
        self.regs = regs;
        self
    }
}

impl Lowerer<'_> {
    /// The first of the four IR registers of temporary `r{n}` (made on first use).
    pub(super) fn temp_base(&mut self, n: u32) -> Reg {
        if let Some(r) = self.temps.get(&n) {
            return *r;
        }
        let base = self.b.temps(4);
        for k in 0..4 {
            self.arch.insert(plus(base, k).0);
        }
        self.temps.insert(n, base);
        // The debugger's source map: r{n}.xyzw are these four registers.
        let regs = (0..4).map(|k| plus(base, k)).collect();
        self.b.name_regs(crate::ir::VarKey::DxbcTemp(n), regs);
        base
    }

    /// A constant register.
    pub(super) fn k(&mut self, v: u32) -> Reg {
        self.b.konst(v)
    }

    /// Reads the components `need` (bit i = component i) of source `op` as data of type
    /// `ty` and applies its modifier; returns a register per component (`_` for those
    /// not needed).
    ///
    /// Modifiers follow the operand's data type (the D3D11.3 instruction reference, §22, per instruction): on
    /// float and untyped operands (`mov`, `movc`, loaded data) `-x` flips the sign bit and
    /// `|x|` clears it — bit operations, exact for every input, since a float operation
    /// flushes a denormal input to zero whatever its sign; on integer operands `-x` is
    /// two's-complement negation and `|x|` is not defined. Minimum-precision hints are
    /// ignored: every value is computed at 32 bits, which the hints allow.
    pub(super) fn read(
        &mut self,
        op: &Operand,
        ty: OperandType,
        need: u8,
    ) -> Result<[Reg; 4], LowerError> {
        let raw = self.read_raw(op, need)?;
        let integer = matches!(ty, OperandType::Int | OperandType::Uint);
        if integer && matches!(op.modifier, OperandModifier::Abs | OperandModifier::AbsNeg) {
            return Err(self.invalid("an |abs| modifier on an integer operand".into()));
        }
        let mut out = [Reg::NONE; 4];
        match raw {
            Raw::Imm(words) => {
                for c in comps(need) {
                    let w = words.get(c).copied().unwrap_or(0);
                    let v = match (op.modifier, integer) {
                        (OperandModifier::None, _) => w,
                        (OperandModifier::Neg, true) => w.wrapping_neg(),
                        (OperandModifier::Neg, false) => w ^ SIGN,
                        (OperandModifier::Abs, _) => w & !SIGN,
                        (OperandModifier::AbsNeg, _) => w | SIGN,
                    };
                    if let Some(slot) = out.get_mut(c) {
                        *slot = self.k(v);
                    }
                }
            }
            Raw::Regs(regs) => {
                for c in comps(need) {
                    let r = regs.get(c).copied().unwrap_or(Reg::NONE);
                    let v = match (op.modifier, integer) {
                        (OperandModifier::None, _) => r,
                        (OperandModifier::Neg, true) => {
                            let t = self.temp();
                            self.emit(Inst::INeg { dst: t, src: r });
                            t
                        }
                        (m, _) => {
                            let t = self.temp();
                            let inst = match m {
                                OperandModifier::Neg => Inst::Xor {
                                    dst: t,
                                    a: r,
                                    b: self.k(SIGN),
                                },
                                OperandModifier::Abs => Inst::And {
                                    dst: t,
                                    a: r,
                                    b: self.k(!SIGN),
                                },
                                _ => Inst::Or {
                                    dst: t,
                                    a: r,
                                    b: self.k(SIGN),
                                },
                            };
                            self.emit(inst);
                            t
                        }
                    };
                    if let Some(slot) = out.get_mut(c) {
                        *slot = v;
                    }
                }
            }
        }
        Ok(out)
    }

    /// Reads the components of `op` that destination components `mask` use, as `ty`:
    /// returns, per destination component, the register holding its source value.
    pub(super) fn read_for(
        &mut self,
        op: &Operand,
        ty: OperandType,
        mask: u8,
    ) -> Result<[Reg; 4], LowerError> {
        let sw = swizzle(op);
        let regs = self.read(op, ty, needed(sw, mask))?;
        let mut out = [Reg::NONE; 4];
        for c in comps(mask) {
            if let (Some(slot), Some(s)) = (out.get_mut(c), sw.get(c)) {
                *slot = regs.get(*s).copied().unwrap_or(Reg::NONE);
            }
        }
        Ok(out)
    }

    /// Reads the one component a scalar source selects (`r0.x`, `l(3)`, the first of a
    /// swizzle).
    pub(super) fn scalar(&mut self, op: &Operand, ty: OperandType) -> Result<Reg, LowerError> {
        let r = self.read_for(op, ty, 1)?;
        Ok(r[0])
    }

    /// Reads double `k` (0 or 1) of a source: the register pair holding the components
    /// its swizzle puts at `2k` and `2k + 1` (low word first, as the double-precision
    /// instructions of D3D11.3 §22 define them), with its modifier applied to the sign bit of the high word.
    pub(super) fn read_pair(&mut self, op: &Operand, k: usize) -> Result<Reg, LowerError> {
        let sw = swizzle(op);
        let lo_c = sw.get(k.wrapping_mul(2)).copied().unwrap_or(0);
        let hi_c = sw.get(k.wrapping_mul(2) | 1).copied().unwrap_or(1);
        let raw = self.read_raw(op, (1 << lo_c) | (1 << hi_c))?;
        let modify = |hi: u32| match op.modifier {
            OperandModifier::None => hi,
            OperandModifier::Neg => hi ^ SIGN,
            OperandModifier::Abs => hi & !SIGN,
            OperandModifier::AbsNeg => hi | SIGN,
        };
        match raw {
            Raw::Imm(words) => {
                let lo = words.get(lo_c).copied().unwrap_or(0);
                let hi = modify(words.get(hi_c).copied().unwrap_or(0));
                Ok(self.b.konst64(u64::from(lo) | (u64::from(hi) << 32)))
            }
            Raw::Regs(regs) => {
                let lo = regs.get(lo_c).copied().unwrap_or(Reg::NONE);
                let hi = regs.get(hi_c).copied().unwrap_or(Reg::NONE);
                if op.modifier == OperandModifier::None && hi == lo.hi() {
                    return Ok(lo);
                }
                let t = self.temp64();
                self.emit(Inst::Mov { dst: t, src: lo });
                let inst = match op.modifier {
                    OperandModifier::None => Inst::Mov {
                        dst: t.hi(),
                        src: hi,
                    },
                    OperandModifier::Neg => Inst::Xor {
                        dst: t.hi(),
                        a: hi,
                        b: self.k(SIGN),
                    },
                    OperandModifier::Abs => Inst::And {
                        dst: t.hi(),
                        a: hi,
                        b: self.k(!SIGN),
                    },
                    OperandModifier::AbsNeg => Inst::Or {
                        dst: t.hi(),
                        a: hi,
                        b: self.k(SIGN),
                    },
                };
                self.emit(inst);
                Ok(t)
            }
        }
    }

    /// The components `need` of an operand, without its modifier.
    fn read_raw(&mut self, op: &Operand, need: u8) -> Result<Raw, LowerError> {
        use RegisterType as R;
        let need = need & 0xf;
        match op.register {
            R::Immediate32 | R::Immediate64 => {
                let v = op.values;
                Ok(Raw::Imm(match (op.register, op.components) {
                    (R::Immediate32, Components::One) => [v[0]; 4],
                    (R::Immediate64, Components::One) => [v[0], v[1], v[0], v[1]],
                    _ => v,
                }))
            }
            R::Temp => {
                let n = self.register_number(op)?;
                let base = self.temp_base(n);
                Ok(Raw::Regs([0, 1, 2, 3].map(|c| plus(base, c))))
            }
            R::IndexableTemp => {
                let n = self.register_number(op)?;
                let local = *self
                    .d
                    .locals
                    .get(&n)
                    .ok_or_else(|| self.invalid(format!("x{n} is not declared")))?;
                let idx = self.index_at(op, 1)?;
                let (addr, offset) = self.element_addr(idx, local.elements);
                let dst = self.load_regs(need);
                self.emit(Inst::LocalLoad {
                    width: Width::B32,
                    mask: need,
                    dst,
                    array: local.id,
                    addr,
                    offset,
                });
                Ok(Raw::Regs(dst))
            }
            R::ImmediateConstantBuffer => {
                let (array, elements) = match &self.d.icb {
                    Some((id, n, _)) => (*id, *n),
                    None => {
                        return Err(self.invalid(
                            "icb is read but no immediate constant buffer is declared".into(),
                        ));
                    }
                };
                match self.index_at(op, 0)? {
                    Idx::Imm(e) => {
                        let mut words = [0u32; 4];
                        if let Some((_, _, all)) = &self.d.icb {
                            for (c, w) in words.iter_mut().enumerate() {
                                let at = usize::try_from(e)
                                    .ok()
                                    .and_then(|e| e.checked_mul(4))
                                    .and_then(|i| i.checked_add(c));
                                *w = at.and_then(|i| all.get(i)).copied().unwrap_or(0);
                            }
                        }
                        Ok(Raw::Imm(words))
                    }
                    idx => {
                        let (addr, offset) = self.element_addr(idx, elements);
                        let dst = self.load_regs(need);
                        self.emit(Inst::ConstLoad {
                            width: Width::B32,
                            mask: need,
                            dst,
                            array,
                            addr,
                            offset,
                        });
                        Ok(Raw::Regs(dst))
                    }
                }
            }
            R::ConstantBuffer => {
                let (_, handle) = self.handle(op)?;
                let row = if self.d.sm51 { 2 } else { 1 };
                let idx = self.index_at(op, row)?;
                let (addr, offset) = self.element_addr(idx, MAX_CB_ROWS);
                let dst = self.load_regs(need);
                self.emit(Inst::CbLoad {
                    width: Width::B32,
                    mask: need,
                    dst,
                    handle,
                    addr,
                    offset,
                });
                Ok(Raw::Regs(dst))
            }
            R::InputThreadId
            | R::InputThreadGroupId
            | R::InputThreadIdInGroup
            | R::InputThreadIdInGroupFlattened
                if self.d.stage == Stage::Compute =>
            {
                let regs = self.d.inputs.get(&op.register).copied().ok_or_else(|| {
                    self.invalid(format!("{} was not set up", op.register.name()))
                })?;
                let zero = self.k(0);
                let w = if op.register == R::InputThreadIdInGroupFlattened {
                    regs[0]
                } else {
                    zero
                };
                Ok(Raw::Regs([regs[0], regs[1], regs[2], w]))
            }
            r if self.is_patch_operand(r) => Ok(Raw::Regs(self.patch_read(op, need)?)),
            R::Input if self.d.stage != Stage::Compute => Ok(Raw::Regs(self.read_input(op, need)?)),
            R::InputCoverageMask
            | R::InnerCoverage
            | R::InputPrimitiveId
            | R::InputGsInstanceId
                if super::io::special_in(self.d.stage, op.register) =>
            {
                // One-component registers: x holds the value; other components read 0.
                let slot = self.special_word(op.register)?;
                let t = self.temp();
                self.emit(Inst::Input { dst: t, slot });
                let zero = self.k(0);
                Ok(Raw::Regs([t, zero, zero, zero]))
            }
            R::CycleCounter => {
                let t = self.temp64();
                self.emit(Inst::CycleCounter { dst: t });
                let zero = self.k(0);
                Ok(Raw::Regs([t, t.hi(), zero, zero]))
            }
            R::Null => Err(self.invalid("null is read as a source".into())),
            other => Err(self.unsupported(format!(
                "register {} as a source in a {} program",
                other.name(),
                self.d.stage
            ))),
        }
    }

    /// Four consecutive fresh registers for a load's results; those outside `need` are `_`.
    pub(super) fn load_regs(&mut self, need: u8) -> [Reg; 4] {
        let base = self.scratch(4);
        let mut out = [Reg::NONE; 4];
        for c in comps(need) {
            if let Some(slot) = out.get_mut(c) {
                *slot = plus(base, c);
            }
        }
        out
    }

    /// The register number (first index) of an operand, which must be immediate.
    pub(super) fn register_number(&self, op: &Operand) -> Result<u32, LowerError> {
        op.register_number().ok_or_else(|| {
            self.invalid(format!(
                "{} operand without an immediate register number",
                op.register.name()
            ))
        })
    }

    /// Index `i` of an operand.
    fn index_at(&mut self, op: &Operand, i: usize) -> Result<Idx, LowerError> {
        let idx = *op.index(i).ok_or_else(|| {
            self.invalid(format!("{} operand lacks index {i}", op.register.name()))
        })?;
        self.index(&idx)
    }

    /// An index's value: the constant, or `register + offset` per lane (32-bit
    /// wrapping, as D3D computes indices).
    pub(super) fn index(&mut self, i: &Index) -> Result<Idx, LowerError> {
        match *i {
            Index::Immediate(v) => Ok(Idx::Imm(v)),
            Index::Relative { offset, register } => {
                let r = self.relative(&register)?;
                if offset == 0 {
                    Ok(Idx::Dyn(r))
                } else {
                    let t = self.temp();
                    let off = self.k(offset);
                    self.emit(Inst::IAdd {
                        dst: t,
                        a: r,
                        b: off,
                    });
                    Ok(Idx::Dyn(t))
                }
            }
        }
    }

    /// The value of a relative index's register component.
    pub(super) fn relative(&mut self, rr: &RelativeRegister) -> Result<Reg, LowerError> {
        let mut op = Operand::new(
            rr.register,
            if rr.scalar {
                Components::One
            } else {
                Components::Select(rr.component)
            },
        );
        op.index_count = rr.index_count;
        for (slot, v) in op.indices.iter_mut().zip(rr.indices()) {
            *slot = Index::Immediate(*v);
        }
        self.scalar(&op, OperandType::Uint)
    }

    /// The byte address of element `idx` of a 16-byte-element array of `limit` elements,
    /// as (address register, immediate offset). A per-lane index is clamped to `limit`
    /// first, so that `index * 16` cannot wrap back into the array: an index past the end
    /// stays past the end, where reads give 0 and writes are dropped.
    pub(super) fn element_addr(&mut self, idx: Idx, limit: u32) -> (Reg, u32) {
        match idx {
            Idx::Imm(v) => (self.k(0), v.saturating_mul(16)),
            Idx::Dyn(r) => {
                let clamped = self.temp();
                let lim = self.k(limit);
                self.emit(Inst::UMin {
                    dst: clamped,
                    a: r,
                    b: lim,
                });
                let addr = self.temp();
                let four = self.k(4);
                self.emit(Inst::Shl {
                    dst: addr,
                    a: clamped,
                    b: four,
                });
                (addr, 0)
            }
        }
    }

    /// Prepares a destination: `r#` components directly, `x#[i]` components in fresh
    /// registers stored by [`Lowerer::commit`], nothing for `null`.
    pub(super) fn dest(&mut self, op: &Operand) -> Result<Dest, LowerError> {
        let mask = match op.components {
            Components::Mask(m) => m.0 & 0xf,
            Components::One => 1,
            Components::Zero => 0,
            _ => {
                return Err(self.invalid(format!(
                    "a {} destination that selects components instead of masking them",
                    op.register.name()
                )));
            }
        };
        let mut d = Dest {
            mask,
            regs: [Reg::NONE; 4],
            store: None,
        };
        match op.register {
            RegisterType::Null => d.mask = 0,
            RegisterType::Temp => {
                let n = self.register_number(op)?;
                let base = self.temp_base(n);
                for c in comps(mask) {
                    if let Some(slot) = d.regs.get_mut(c) {
                        *slot = plus(base, c);
                    }
                }
            }
            RegisterType::IndexableTemp => {
                let n = self.register_number(op)?;
                let local = *self
                    .d
                    .locals
                    .get(&n)
                    .ok_or_else(|| self.invalid(format!("x{n} is not declared")))?;
                let idx = self.index_at(op, 1)?;
                let (addr, offset) = self.element_addr(idx, local.elements);
                d.regs = self.load_regs(mask);
                d.store = Some(Store::Local(local.id, addr, offset));
            }
            RegisterType::Output if matches!(self.d.stage, Stage::Hull | Stage::Domain) => {
                let (slot, row, rows) = self.patch_row(op, true)?;
                d.regs = self.load_regs(mask);
                d.store = Some(Store::Output { slot, row, rows });
            }
            RegisterType::Output if self.d.stage != Stage::Compute => {
                let (slot, row, rows) = self.io_row(op, true)?;
                d.regs = self.load_regs(mask);
                d.store = Some(Store::Output { slot, row, rows });
            }
            r if special_side(r) == Some(true) && self.d.stage == Stage::Pixel => {
                let slot = self.special_word(r)?;
                if mask & !1 != 0 {
                    return Err(self.invalid(format!(
                        "{} written with mask {mask:#x} (it has one component)",
                        r.name()
                    )));
                }
                d.regs = self.load_regs(mask);
                d.store = Some(Store::Output {
                    slot,
                    row: None,
                    rows: 1,
                });
            }
            other => {
                return Err(self.unsupported(format!(
                    "register {} as a destination in a {} program",
                    other.name(),
                    self.d.stage
                )));
            }
        }
        Ok(d)
    }

    /// Copies the scalar `src` into every component `d` writes, then commits `d` (the
    /// `dst.xyzw` of instructions with one result: counters, dimensions, atomics).
    pub(super) fn splat(&mut self, d: &Dest, src: Reg) {
        for c in comps(d.mask) {
            self.emit(Inst::Mov { dst: d.reg(c), src });
        }
        self.commit(d);
    }

    /// Stores an indexable-temporary destination's components, or writes a stage
    /// output's: one `output` (`output_indexed`) per written component.
    pub(super) fn commit(&mut self, d: &Dest) {
        if d.mask == 0 {
            return;
        }
        match d.store {
            None => {}
            Some(Store::Local(array, addr, offset)) => self.emit(Inst::LocalStore {
                width: Width::B32,
                mask: d.mask,
                array,
                addr,
                offset,
                src: d.regs,
            }),
            Some(Store::Output { slot, row, rows }) => {
                for c in comps(d.mask) {
                    let slot = slot.wrapping_add(u32::try_from(c).unwrap_or(0));
                    let src = d.reg(c);
                    self.emit(match row {
                        None => Inst::Output { slot, src },
                        Some(index) => Inst::OutputIndexed {
                            slot,
                            index,
                            rows,
                            src,
                        },
                    });
                }
            }
        }
    }

    /// The range a resource operand (`t#`, `u#`, `cb#`, `s#`) names and a handle to the
    /// descriptor it indexes. Shader Model 5.1 operands carry the range's variable id
    /// and an absolute register number (immediate or relative), which becomes an index
    /// from the range's first register; earlier models name one register.
    pub(super) fn handle(&mut self, op: &Operand) -> Result<(RangeInfo, Reg), LowerError> {
        let id = self.register_number(op)?;
        let info = self
            .d
            .ranges
            .get(&(op.register, id))
            .cloned()
            .ok_or_else(|| self.invalid(format!("{} {id} is not declared", op.register.name())))?;
        let idx = if self.d.sm51 {
            let i = *op.index(1).ok_or_else(|| {
                self.invalid(format!(
                    "a Shader Model 5.1 {} operand without its register index",
                    op.register.name()
                ))
            })?;
            match self.index(&i)? {
                Idx::Imm(v) => Idx::Imm(v.wrapping_sub(info.lower)),
                Idx::Dyn(r) if info.lower == 0 => Idx::Dyn(r),
                Idx::Dyn(r) => {
                    let t = self.temp();
                    let lower = self.k(info.lower);
                    self.emit(Inst::ISub {
                        dst: t,
                        a: r,
                        b: lower,
                    });
                    Idx::Dyn(t)
                }
            }
        } else {
            Idx::Imm(0)
        };
        let h = match idx {
            Idx::Imm(v) => {
                if let Some(h) = self.d.handles.get(&(info.id, v)) {
                    *h
                } else {
                    let dst = self.temp();
                    let index = self.k(v);
                    self.emit(Inst::Handle {
                        dst,
                        range: info.id,
                        index,
                    });
                    dst
                }
            }
            Idx::Dyn(index) => {
                let dst = self.temp();
                self.emit(Inst::Handle {
                    dst,
                    range: info.id,
                    index,
                });
                dst
            }
        };
        Ok((info, h))
    }
}
