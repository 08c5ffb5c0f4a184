//! Hull and domain programs: the tessellator state their declarations give, how a hull
//! program's phases become one IR shader, and the operands only these stages have
//! (`vicp`, `vocp`, `vpc`, `vOutputControlPointID`, `vForkInstanceID`,
//! `vJoinInstanceID`, `vDomain`).
//!
//! # A hull program's phases in one shader
//!
//! A DXBC hull program is a control-point phase (absent: the output control points are
//! the input ones), any number of fork phases and then of join phases, each fork and
//! join phase run `dcl_hs_{fork,join}_phase_instance_count` times (D3D11.3 §10 "Hull
//! Shader Stage"). It lowers to **one** IR shader whose lanes read a phase word
//! ([`hull_phase`]) and branch on it at entry:
//!
//! - **control point** — the control-point phase's body, once per output control point
//!   (`vOutputControlPointID` is an input word); without one, nothing (the pipeline
//!   copies the input control points: [`HullState::pass_through`]).
//! - **fork** — every fork phase, instance after instance, in one lane per patch: each
//!   instance is the phase's body lowered again with `vForkInstanceID` a constant, its
//!   `ret` continuing with the next instance. Fork instances cannot see each other's
//!   results (D3D gives them no way to), so running them in order in one lane computes
//!   what running them side by side would.
//! - **join** — first each patch constant is copied from its `vpc` input word (the fork
//!   results the pipeline hands back) to its output word, then every join phase's
//!   instances as above, reading the fork results through `vpc`. A program without join
//!   phases needs no second pass ([`HullState::join`]).
//!
//! `o#` means an output control point's register in the control-point phase and a patch
//! constant in the fork and join phases: the two files sit one after the other in the
//! output words (see [`HullState`] for the whole layout).

use super::decls::Decls;
use super::{Lowerer, RetTarget};
use crate::dxbc::Declaration;
use crate::dxbc::{
    HullPhase, Index, InstructionKind, Operand, Program, RegisterType, SystemName,
    TessDomain as DxDomain, TessOutputPrimitive as DxOutput, TessPartitioning as DxPart,
};
use crate::ir::io::NO_REGISTER;
use crate::ir::validate::MAX_CONTROL_POINTS;
use crate::ir::{
    Builder, DomainState, HullState, ICond, Inst, Reg, Stage, Terminator, TessDomain, TessOutput,
    TessPartitioning, hull_phase,
};
use crate::lower::LowerError;

/// The most instances a fork or join phase may declare
/// (`dcl_hs_fork_phase_instance_count`'s limit in the D3D11 token format).
pub const MAX_PHASE_INSTANCES: u32 = 32;

/// One phase of a hull program: its kind, the instructions after its marker, and how
/// many instances run.
#[derive(Debug, Clone, Copy)]
pub(super) struct Phase {
    pub kind: HullPhase,
    pub start: usize,
    pub end: usize,
    pub instances: u32,
}

/// The phases of a hull program, in program order, up to the first subroutine body.
pub(super) fn phases(p: &Program, end: usize) -> Vec<Phase> {
    let mut out: Vec<Phase> = Vec::new();
    for (i, inst) in p.instructions.iter().enumerate().take(end) {
        match &inst.kind {
            InstructionKind::HullPhase(kind) => {
                if let Some(last) = out.last_mut() {
                    last.end = i;
                }
                out.push(Phase {
                    kind: *kind,
                    start: i.saturating_add(1),
                    end,
                    instances: 1,
                });
            }
            InstructionKind::Declaration(
                Declaration::HsForkPhaseInstanceCount(n) | Declaration::HsJoinPhaseInstanceCount(n),
            ) => {
                if let Some(last) = out.last_mut() {
                    last.instances = *n;
                }
            }
            _ => {}
        }
    }
    out
}

fn missing(what: &str, stage: Stage) -> LowerError {
    LowerError::Invalid {
        message: format!("a {stage} program without {what}"),
        location: "the program's declarations".into(),
    }
}

fn invalid_at(p: &Program, i: usize, message: String) -> LowerError {
    LowerError::Invalid {
        message,
        location: crate::ir::SourceLoc::Dxbc {
            index: u32::try_from(i).unwrap_or(u32::MAX),
            token: p.instructions.get(i).map_or(0, |x| x.offset),
        }
        .to_string(),
    }
}

fn domain_of(p: &Program, d: &Decls, stage: Stage) -> Result<TessDomain, LowerError> {
    let (dom, at) = d
        .tess
        .domain
        .ok_or_else(|| missing("dcl_tessellator_domain", stage))?;
    match dom {
        DxDomain::Tri => Ok(TessDomain::Tri),
        DxDomain::Quad => Ok(TessDomain::Quad),
        DxDomain::Isoline => Ok(TessDomain::Isoline),
        other => Err(invalid_at(
            p,
            at,
            format!("dcl_tessellator_domain {}", other.fxc_name()),
        )),
    }
}

fn points_in(p: &Program, d: &Decls, stage: Stage) -> Result<u32, LowerError> {
    let (n, at) = d
        .tess
        .points_in
        .ok_or_else(|| missing("dcl_input_control_point_count", stage))?;
    if !(1..=MAX_CONTROL_POINTS).contains(&n) {
        return Err(invalid_at(
            p,
            at,
            format!("dcl_input_control_point_count {n}: 1 to {MAX_CONTROL_POINTS}"),
        ));
    }
    Ok(n)
}

/// Which final factor a `dcl_output_siv` names: its index in
/// [`HullState::factor_words`] (edges 0 … 3, inside 4 and 5), in D3D's order for the
/// domain (`tess::TessFactors`).
fn factor_index(name: SystemName) -> Option<usize> {
    use SystemName as N;
    Some(match name {
        N::FinalQuadUEq0EdgeTessFactor | N::FinalTriUEq0EdgeTessFactor => 0,
        N::FinalQuadVEq0EdgeTessFactor | N::FinalTriVEq0EdgeTessFactor => 1,
        N::FinalQuadUEq1EdgeTessFactor | N::FinalTriWEq0EdgeTessFactor => 2,
        N::FinalQuadVEq1EdgeTessFactor => 3,
        N::FinalLineDensityTessFactor => 0,
        N::FinalLineDetailTessFactor => 1,
        N::FinalQuadUInsideTessFactor | N::FinalTriInsideTessFactor => 4,
        N::FinalQuadVInsideTessFactor => 5,
        _ => return None,
    })
}

/// Puts a hull or domain program's [`HullState`] or [`DomainState`] into the shader,
/// from its declarations and the layout `patch_layout` made. D3D requires the domain
/// (hull and domain), the partitioning and output primitive (hull), and the control-point
/// counts; a hull program without a control-point phase passes its input control points
/// through, so it must declare as many outputs as inputs.
pub(super) fn state(p: &Program, d: &Decls, b: &mut Builder) -> Result<(), LowerError> {
    let stage = d.stage;
    let domain = domain_of(p, d, stage)?;
    let input_points = points_in(p, d, stage)?;
    let w = d.tess.words;
    if stage == Stage::Domain {
        b.shader_mut().domain = Some(DomainState {
            domain,
            input_points,
            point_words: w.point_words,
            patch_word: d.io.patch_base,
            location_word: w.location_word,
        });
        return Ok(());
    }
    let (part, at) = d
        .tess
        .partitioning
        .ok_or_else(|| missing("dcl_tessellator_partitioning", stage))?;
    let partitioning = match part {
        DxPart::Integer => TessPartitioning::Integer,
        DxPart::Pow2 => TessPartitioning::Pow2,
        DxPart::FractionalOdd => TessPartitioning::FractionalOdd,
        DxPart::FractionalEven => TessPartitioning::FractionalEven,
        other => {
            return Err(invalid_at(
                p,
                at,
                format!("dcl_tessellator_partitioning {}", other.fxc_name()),
            ));
        }
    };
    let (out, at) = d
        .tess
        .output
        .ok_or_else(|| missing("dcl_tessellator_output_primitive", stage))?;
    let output = match out {
        DxOutput::Point => TessOutput::Point,
        DxOutput::Line => TessOutput::Line,
        DxOutput::TriangleCw => TessOutput::TriangleCw,
        DxOutput::TriangleCcw => TessOutput::TriangleCcw,
        other => {
            return Err(invalid_at(
                p,
                at,
                format!("dcl_tessellator_output_primitive {}", other.fxc_name()),
            ));
        }
    };
    let (output_points, at) = d
        .tess
        .points_out
        .ok_or_else(|| missing("dcl_output_control_point_count", stage))?;
    if output_points > MAX_CONTROL_POINTS {
        return Err(invalid_at(
            p,
            at,
            format!("dcl_output_control_point_count {output_points}: 0 to {MAX_CONTROL_POINTS}"),
        ));
    }
    let all = phases(p, p.instructions.len());
    let pass_through = !all.iter().any(|ph| ph.kind == HullPhase::ControlPoint);
    if pass_through && output_points != input_points {
        return Err(invalid_at(
            p,
            at,
            format!(
                "dcl_output_control_point_count {output_points} without a control-point phase: the {input_points} input control points pass through unchanged, so the counts must be equal"
            ),
        ));
    }
    for ph in &all {
        if !(1..=MAX_PHASE_INSTANCES).contains(&ph.instances) {
            return Err(invalid_at(
                p,
                ph.start.saturating_sub(1),
                format!(
                    "a phase of {} instances: 1 to {MAX_PHASE_INSTANCES}",
                    ph.instances
                ),
            ));
        }
    }
    let mut factor_words = [NO_REGISTER; 6];
    for decl in d.io_decls.iter().filter(|x| x.patch && x.output) {
        let (Some(name), Some(n)) = (decl.sv, decl.number) else {
            continue;
        };
        let Some(k) = factor_index(name) else {
            continue;
        };
        let c = decl.mask.trailing_zeros().min(3);
        if let Some(slot) = factor_words.get_mut(k) {
            *slot =
                d.io.patch_base
                    .saturating_add(n.saturating_mul(4))
                    .saturating_add(c);
        }
    }
    b.shader_mut().hull = Some(HullState {
        domain,
        partitioning,
        output,
        input_points,
        output_points,
        max_factor: d.tess.max_factor.unwrap_or(64.0),
        point_words: w.point_words,
        output_point_words: w.output_point_words,
        ocp_word: d.io.ocp_base,
        vpc_word: d.io.vpc_base,
        phase_word: w.phase_word,
        join: all.iter().any(|ph| ph.kind == HullPhase::Join),
        pass_through,
        factor_words,
    });
    Ok(())
}

impl Lowerer<'_> {
    /// Lowers a hull program's phases behind the branch on the phase word (module doc).
    pub(super) fn lower_hull(&mut self) -> Result<(), LowerError> {
        let p = self.p;
        let Some(h) = self.b.shader().hull else {
            return Err(self.invalid("a hull program without its state".into()));
        };
        let all = phases(p, self.labels_start);
        // The phase branch carries the first phase marker's location, the join phases'
        // copy of the fork results the first join marker's.
        let marker = |ph: &Phase| ph.start.saturating_sub(1);
        self.set_loc_of(all.first().map_or(0, marker));
        let phase = self.b.temp();
        self.b.emit(Inst::Input {
            dst: phase,
            slot: h.phase_word,
        });
        let end = self.b.new_block();
        let cp = self.b.new_block();
        let rest = self.b.new_block();
        let fork = self.b.new_block();
        let join = self.b.new_block();
        let is = |l: &mut Self, value: u32| -> Reg {
            let t = l.b.temp();
            let k = l.b.konst(value);
            l.b.emit(Inst::ICmp {
                cond: ICond::Eq,
                dst: t,
                a: phase,
                b: k,
            });
            t
        };
        let c = is(self, hull_phase::CONTROL_POINT);
        self.b.terminate(Terminator::Branch {
            cond: c,
            then_: cp,
            else_: rest,
        });
        self.b.switch_to(rest);
        let c = is(self, hull_phase::FORK);
        self.b.terminate(Terminator::Branch {
            cond: c,
            then_: fork,
            else_: join,
        });

        self.b.switch_to(cp);
        for ph in all.iter().filter(|ph| ph.kind == HullPhase::ControlPoint) {
            self.phase(ph, 0)?;
        }
        self.jump_if_open(end);

        self.b.switch_to(fork);
        for ph in all.iter().filter(|ph| ph.kind == HullPhase::Fork) {
            for i in 0..ph.instances {
                self.phase(ph, i)?;
            }
        }
        self.jump_if_open(end);

        self.b.switch_to(join);
        if let Some(first) = all.iter().find(|ph| ph.kind == HullPhase::Join) {
            self.set_loc_of(marker(first));
        }
        // The fork results become the join's outputs before any join phase writes.
        let pc_words = self
            .b
            .shader()
            .output_words
            .saturating_sub(h.output_point_words);
        for k in 0..pc_words {
            let t = self.b.temp();
            self.b.emit(Inst::Input {
                dst: t,
                slot: h.vpc_word.saturating_add(k),
            });
            self.b.emit(Inst::Output {
                slot: h.output_point_words.saturating_add(k),
                src: t,
            });
        }
        for ph in all.iter().filter(|ph| ph.kind == HullPhase::Join) {
            for i in 0..ph.instances {
                self.phase(ph, i)?;
            }
        }
        self.jump_if_open(end);
        self.b.switch_to(end);
        self.b.terminate(Terminator::Return);
        Ok(())
    }

    /// Lowers instance `instance` of one phase, its `ret` continuing after it.
    fn phase(&mut self, ph: &Phase, instance: u32) -> Result<(), LowerError> {
        let cont = self.b.new_block();
        self.hull_phase = Some(ph.kind);
        self.phase_instance = Some(self.b.konst(instance));
        let ret = std::mem::replace(&mut self.ret_target, RetTarget::Block(cont));
        let result = self.lower_range(ph.start, ph.end);
        self.ret_target = ret;
        result?;
        if let Some(f) = self.frames.last() {
            return Err(self.invalid(format!("{} in a hull phase is never closed", f.name())));
        }
        self.flush()?;
        self.jump_if_open(cont);
        self.b.switch_to(cont);
        self.hull_phase = None;
        self.phase_instance = None;
        Ok(())
    }

    /// Whether `op` is one of the operands only hull and domain programs have, read by
    /// [`Lowerer::patch_read`].
    pub(super) fn is_patch_operand(&self, r: RegisterType) -> bool {
        use RegisterType as R;
        match self.d.stage {
            Stage::Hull => matches!(
                r,
                R::Input
                    | R::InputControlPoint
                    | R::OutputControlPoint
                    | R::InputPatchConstant
                    | R::InputForkInstanceId
                    | R::InputJoinInstanceId
                    | R::OutputControlPointId
                    | R::InputPrimitiveId
            ),
            Stage::Domain => matches!(
                r,
                R::Input
                    | R::InputControlPoint
                    | R::InputPatchConstant
                    | R::InputDomainPoint
                    | R::InputPrimitiveId
            ),
            _ => false,
        }
    }

    /// Reads components `need` of a hull or domain operand.
    pub(super) fn patch_read(&mut self, op: &Operand, need: u8) -> Result<[Reg; 4], LowerError> {
        use RegisterType as R;
        match op.register {
            R::InputForkInstanceId | R::InputJoinInstanceId => {
                let want = if op.register == R::InputForkInstanceId {
                    HullPhase::Fork
                } else {
                    HullPhase::Join
                };
                match (self.hull_phase, self.phase_instance) {
                    (Some(ph), Some(r)) if ph == want => {
                        let zero = self.k(0);
                        Ok([r, zero, zero, zero])
                    }
                    _ => Err(self.invalid(format!(
                        "{} outside a {} phase",
                        op.register.name(),
                        if want == HullPhase::Fork {
                            "fork"
                        } else {
                            "join"
                        }
                    ))),
                }
            }
            R::OutputControlPointId | R::InputPrimitiveId => {
                if op.register == R::OutputControlPointId
                    && self.hull_phase != Some(HullPhase::ControlPoint)
                {
                    return Err(self
                        .invalid("vOutputControlPointID outside the control-point phase".into()));
                }
                let slot = self.special_word(op.register)?;
                let t = self.temp();
                self.emit(Inst::Input { dst: t, slot });
                let zero = self.k(0);
                Ok([t, zero, zero, zero])
            }
            R::InputDomainPoint => {
                let Some(ds) = self.b.shader().domain else {
                    return Err(self.invalid("vDomain without the domain state".into()));
                };
                let dst = self.load_regs(need);
                for c in super::operands::comps(need) {
                    let Some(&d) = dst.get(c) else { continue };
                    if c < 3 {
                        let slot = ds
                            .location_word
                            .saturating_add(u32::try_from(c).unwrap_or(0));
                        self.emit(Inst::Input { dst: d, slot });
                    } else {
                        let zero = self.k(0);
                        self.emit(Inst::Mov { dst: d, src: zero });
                    }
                }
                Ok(dst)
            }
            _ => {
                let (slot, row, rows) = self.patch_row(op, false)?;
                let dst = self.load_regs(need);
                for c in super::operands::comps(need) {
                    let Some(&d) = dst.get(c) else { continue };
                    let slot = slot.wrapping_add(u32::try_from(c).unwrap_or(0));
                    self.emit(match row {
                        None => Inst::Input { dst: d, slot },
                        Some(index) => Inst::InputIndexed {
                            dst: d,
                            slot,
                            index,
                            rows,
                        },
                    });
                }
                Ok(dst)
            }
        }
    }

    /// The first word, run-time row and row count of a hull or domain `v[k][n]`,
    /// `vicp[k][n]`, `vocp[k][n]`, `vpc#` or `o#` operand (`io::io_row`'s answer for
    /// these stages): a control point `k` chosen at run time becomes a row of
    /// `points × registers` rows.
    pub(super) fn patch_row(
        &mut self,
        op: &Operand,
        output: bool,
    ) -> Result<(u32, Option<Reg>, u32), LowerError> {
        use RegisterType as R;
        let io = &self.d.io;
        let patch_phase = matches!(self.hull_phase, Some(HullPhase::Fork | HullPhase::Join));
        let (base, regs, points, patch) = match (op.register, output) {
            (R::Input | R::InputControlPoint, false) => {
                (0, io.input_regs, Some(io.points_in), false)
            }
            (R::OutputControlPoint, false) if self.d.stage == Stage::Hull => {
                if !patch_phase {
                    return Err(self.invalid("vocp outside a fork or join phase".into()));
                }
                (io.ocp_base, io.output_regs, Some(io.points_out), false)
            }
            (R::InputPatchConstant, false) => {
                let base = if self.d.stage == Stage::Hull {
                    if self.hull_phase != Some(HullPhase::Join) {
                        return Err(self.invalid("vpc outside a join phase".into()));
                    }
                    io.vpc_base
                } else {
                    io.patch_base
                };
                (base, io.patch_regs, None, true)
            }
            (R::Output, true) if self.d.stage == Stage::Hull && patch_phase => {
                (io.patch_base, io.patch_regs, None, true)
            }
            (R::Output, true) => (0, io.output_regs, None, false),
            (r, _) => {
                return Err(self.unsupported(format!(
                    "register {} in a {} program",
                    r.name(),
                    self.d.stage
                )));
            }
        };
        let letter = op.register.name();
        if let Some(points) = points {
            if op.index_count != 2 {
                return Err(self.invalid(format!(
                    "a {letter} operand with {} indices ([point][register] has 2)",
                    op.index_count
                )));
            }
            let n = match op.index(1) {
                Some(Index::Immediate(n)) => *n,
                _ => {
                    return Err(self.unsupported(format!("a {letter} register chosen at run time")));
                }
            };
            if n >= regs {
                return Err(self.invalid(format!("{letter}[…][{n}] is not declared")));
            }
            let stride = regs.saturating_mul(4);
            return match op.index(0) {
                Some(Index::Immediate(k)) => {
                    if *k >= points {
                        return Err(self.invalid(format!(
                            "{letter}[{k}][…]: the patch has {points} control points"
                        )));
                    }
                    Ok((
                        base.saturating_add(k.saturating_mul(stride))
                            .saturating_add(n.saturating_mul(4)),
                        None,
                        1,
                    ))
                }
                Some(Index::Relative { offset, register }) => {
                    let (offset, register) = (*offset, *register);
                    // Row `k·regs + n` of `points·regs` rows of 4 words from the base.
                    let k = self.relative(&register)?;
                    let t = self.temp();
                    let kr = self.k(regs);
                    let add = self.k(offset.saturating_mul(regs).saturating_add(n));
                    self.emit(Inst::IMad {
                        dst: t,
                        a: k,
                        b: kr,
                        c: add,
                    });
                    Ok((base, Some(t), points.saturating_mul(regs)))
                }
                None => Err(self.invalid(format!("{letter}[…][…] without its control point"))),
            };
        }
        if op.index_count != 1 {
            return Err(self.invalid(format!(
                "a {letter} operand with {} indices",
                op.index_count
            )));
        }
        match op.index(0).copied() {
            Some(Index::Immediate(n)) => {
                if n >= regs {
                    return Err(self.invalid(format!("{letter}{n} is not declared")));
                }
                Ok((base.saturating_add(n.saturating_mul(4)), None, 1))
            }
            Some(Index::Relative { offset, register }) => {
                let (first, count) = self
                    .d
                    .io
                    .ranges
                    .iter()
                    .find(|r| {
                        r.output == output
                            && r.patch == patch
                            && offset >= r.first
                            && offset.wrapping_sub(r.first) < r.count
                    })
                    .map_or((0, regs), |r| (r.first, r.count));
                if count == 0 {
                    return Err(self.invalid(format!("{letter}[…] indexes no registers")));
                }
                let r = self.relative(&register)?;
                let delta = offset.wrapping_sub(first);
                let row = if delta == 0 {
                    r
                } else {
                    let t = self.temp();
                    let k = self.k(delta);
                    self.emit(Inst::IAdd { dst: t, a: r, b: k });
                    t
                };
                Ok((
                    base.saturating_add(first.saturating_mul(4)),
                    Some(row),
                    count,
                ))
            }
            None => Err(self.invalid(format!("a {letter} operand without its register"))),
        }
    }
}
