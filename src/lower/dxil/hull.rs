//! Hull and domain programs (`hs_6_x`, `ds_6_x`): their state from the entry point's
//! metadata, the layout of their control points and patch constants in a lane's words,
//! and the `dx.op` operations only they use (`OutputControlPointID`,
//! `LoadOutputControlPoint`, `StorePatchConstant`, `LoadPatchConstant`,
//! `DomainLocation`).
//!
//! Owns: reading DXIL's hull state (entry-point tag 3) and domain state (tag 2; DXIL.rst
//! "Hull Shader", "Domain Shader") into the IR's [`HullState`] and [`DomainState`] with
//! D3D's limits, laying out the words those states describe, and lowering the operations.
//! Does not own: lowering the two functions of a hull program into one shader
//! (`super::lower_hull`), or what the stages do with the words (`pipeline::hs`,
//! `pipeline::ds`).
//!
//! # A DXIL hull program on the IR's phase word
//!
//! DXIL keeps a hull program as two functions (DXIL.rst "Hull shader representation"):
//! the entry point, run once per output control point, and the patch-constant function
//! the hull state names, run once per patch — "not separated into fork and join phases,
//! as it is the case in DXBC". The lowering puts both in one IR shader behind the phase
//! word the DXBC lowering uses ([`hull_phase`](crate::ir::hull_phase)): the control-point
//! phase is the entry function, the fork phase is the patch-constant function, and there
//! is no join phase (`HullState::join` is false), so `pipeline::hs` runs a DXIL hull
//! program exactly as it runs a DXBC one.
//!
//! # Words (the IR's [`HullState`] and [`DomainState`] layouts)
//!
//! - **Hull inputs:** the input patch, control point `k`'s packed rows at
//!   `k · point_words` (`LoadInput`'s fourth operand is the control point, as a geometry
//!   program's is its vertex); the unpacked input elements after the last control point;
//!   the output control points the patch-constant function reads
//!   (`LoadOutputControlPoint`) at `ocp_word`; an unused `vpc` block (no join phase);
//!   the phase word; then the system values the program reads (`SV_PrimitiveID`,
//!   `SV_OutputControlPointID`).
//! - **Hull outputs:** one output control point (the output signature,
//!   `output_point_words`), then the patch-constant signature, each element keeping its
//!   packed register. The final factors are the patch-constant elements whose semantic
//!   kind is `TessFactor` (row `r`: edge factor `r`; an isoline's rows are the line
//!   density, then the line detail, D3D11.3 §10.10.4) and `InsideTessFactor` (row `r`:
//!   inside factor `r`), read by their signature rows and columns.
//! - **Domain inputs:** the patch's control points as the hull's input patch, then the
//!   patch-constant signature from `patch_word` (registers as packed), then
//!   `SV_DomainLocation` (u, v, w) at `location_word`, then the system values
//!   (`SV_PrimitiveID`).
//!
//! # Limits (refused by name, at the entry point)
//!
//! A hull state without its patch-constant function, or naming a function the module
//! does not define; input control points outside 1 … 32 and output control points
//! outside 0 … 32 (D3D11.3 §10.3, `D3D11_IA_PATCH_MAX_CONTROL_POINT_COUNT`); a domain,
//! partitioning or output primitive outside DXIL's enumerations (`TessellatorDomain`:
//! 1 isoline, 2 tri, 3 quad; `TessellatorPartitioning`: 1 integer, 2 pow2,
//! 3 fractional_odd, 4 fractional_even; `TessellatorOutputPrimitive`: 1 point, 2 line,
//! 3 triangle_cw, 4 triangle_ccw); a max tessellation factor outside [1, 64] (DXIL.rst
//! `META.MAXTESSFACTOR`). `LoadPatchConstant` in a hull program is refused: DXIL.rst says
//! only the DXBC-to-DXIL converter emits it (to read DXBC's `vpc`), and dxc's hull
//! programs never do.

use std::collections::HashMap;

use super::func::{FnLower, R, Val};
use super::stage::{Io, lay_out_elements, sys_value_tess};
use crate::dxil::dxop::{DxOp, DxOpCall};
use crate::dxil::llvm::{Instruction, Module, ValueId};
use crate::dxil::meta::{EntryPoint, Property, Signatures};
use crate::ir::io::NO_REGISTER;
use crate::ir::validate::MAX_CONTROL_POINTS;
use crate::ir::{
    DomainState, HullState, Inst, Shader, Stage, SysValue, TessDomain, TessOutput, TessPartitioning,
};
use crate::lower::LowerError;

/// The largest `[maxtessfactor]` (D3D11.3 §10.10.1; DXIL.rst `META.MAXTESSFACTOR`).
pub const MAX_TESS_FACTOR: f32 = 64.0;

fn bad(location: &str, message: String) -> LowerError {
    LowerError::Invalid {
        message,
        location: location.to_owned(),
    }
}

fn domain_of(v: i64, what: &str, location: &str) -> Result<TessDomain, LowerError> {
    Ok(match v {
        1 => TessDomain::Isoline,
        2 => TessDomain::Tri,
        3 => TessDomain::Quad,
        d => {
            return Err(bad(
                location,
                format!("{what} tessellator domain {d}: isoline (1), tri (2) or quad (3)"),
            ));
        }
    })
}

/// What a DXIL hull state holds, before the layout's words are known.
#[derive(Debug, Clone)]
pub struct HullMeta {
    /// The patch-constant function's name in the module.
    pub patch_function: String,
    /// Input control points.
    pub input_points: u32,
    /// Output control points.
    pub output_points: u32,
    /// The domain.
    pub domain: TessDomain,
    /// The partitioning.
    pub partitioning: TessPartitioning,
    /// The output primitive.
    pub output: TessOutput,
    /// `[maxtessfactor]`.
    pub max_factor: f32,
}

/// Reads the hull state (tag 3) of entry point `e` of module `m`.
pub fn hull_state(m: &Module, e: &EntryPoint, location: &str) -> Result<HullMeta, LowerError> {
    let Some((f, values)) = e.properties.iter().find_map(|(_, p)| match p {
        Property::Hull {
            patch_constant_function,
            values,
        } => Some((*patch_constant_function, values)),
        _ => None,
    }) else {
        return Err(bad(
            location,
            "a hull program without its hull state (entry-point tag 3)".into(),
        ));
    };
    let at = |i: usize, what: &str| -> Result<i64, LowerError> {
        values
            .get(i)
            .copied()
            .ok_or_else(|| bad(location, format!("the hull state has no {what}")))
    };
    let count = |i: usize, what: &str, min: u32| -> Result<u32, LowerError> {
        let v = at(i, what)?;
        u32::try_from(v)
            .ok()
            .filter(|n| (min..=MAX_CONTROL_POINTS).contains(n))
            .ok_or_else(|| {
                bad(
                    location,
                    format!("hull state {what} {v}: {min} to {MAX_CONTROL_POINTS}"),
                )
            })
    };
    let input_points = count(0, "input control point count", 1)?;
    let output_points = count(1, "output control point count", 0)?;
    let domain = domain_of(at(2, "tessellator domain")?, "hull state", location)?;
    let partitioning = match at(3, "partitioning")? {
        1 => TessPartitioning::Integer,
        2 => TessPartitioning::Pow2,
        3 => TessPartitioning::FractionalOdd,
        4 => TessPartitioning::FractionalEven,
        p => {
            return Err(bad(
                location,
                format!(
                    "hull state partitioning {p}: integer (1), pow2 (2), fractional_odd (3) or fractional_even (4)"
                ),
            ));
        }
    };
    let output = match at(4, "output primitive")? {
        1 => TessOutput::Point,
        2 => TessOutput::Line,
        3 => TessOutput::TriangleCw,
        4 => TessOutput::TriangleCcw,
        o => {
            return Err(bad(
                location,
                format!(
                    "hull state output primitive {o}: point (1), line (2), triangle_cw (3) or triangle_ccw (4)"
                ),
            ));
        }
    };
    // The factor is a float constant, read as its bits.
    let bits = at(5, "max tessellation factor")?;
    let max_factor = f32::from_bits(u32::try_from(bits).unwrap_or(u32::MAX));
    if !(1.0..=MAX_TESS_FACTOR).contains(&max_factor) {
        return Err(bad(
            location,
            format!("hull state max tessellation factor {max_factor}: 1 to {MAX_TESS_FACTOR}"),
        ));
    }
    let Some(f) = f else {
        return Err(bad(
            location,
            "the hull state names no patch-constant function".into(),
        ));
    };
    let patch_function = m
        .value(None, f)
        .and_then(|v| v.name.clone())
        .filter(|n| m.functions.iter().any(|g| &g.name == n && g.body.is_some()))
        .ok_or_else(|| {
            bad(
                location,
                format!("the hull state's patch-constant function ({f}) is not a function the module defines"),
            )
        })?;
    Ok(HullMeta {
        patch_function,
        input_points,
        output_points,
        domain,
        partitioning,
        output,
        max_factor,
    })
}

/// Reads the domain state (tag 2): the domain and the input control points.
pub fn domain_state(e: &EntryPoint, location: &str) -> Result<(TessDomain, u32), LowerError> {
    let Some(values) = e.properties.iter().find_map(|(_, p)| match p {
        Property::Domain(v) => Some(v),
        _ => None,
    }) else {
        return Err(bad(
            location,
            "a domain program without its domain state (entry-point tag 2)".into(),
        ));
    };
    let domain = domain_of(
        values.first().copied().unwrap_or(0),
        "domain state",
        location,
    )?;
    let n = values.get(1).copied().unwrap_or(0);
    let points = u32::try_from(n)
        .ok()
        .filter(|n| (1..=MAX_CONTROL_POINTS).contains(n))
        .ok_or_else(|| {
            bad(
                location,
                format!("domain state input control point count {n}: 1 to {MAX_CONTROL_POINTS}"),
            )
        })?;
    Ok((domain, points))
}

/// An input patch's layout: its elements, element id → index, words per control point,
/// words in all.
type PatchLayout = (Vec<crate::ir::IoElement>, HashMap<u32, usize>, u32, u32);

/// The input patch's layout: the input elements with the unpacked ones moved past the
/// last control point.
fn lay_out_patch(sigs: &Signatures, points: u32) -> R<PatchLayout> {
    let (mut inputs, ids, words) = lay_out_elements(&sigs.inputs, "input", sys_value_tess)?;
    let point_words = inputs
        .iter()
        .filter(|e| e.register != NO_REGISTER)
        .map(|e| e.slot.saturating_add(4 * e.rows))
        .max()
        .unwrap_or(0);
    let extra = point_words.saturating_mul(points.saturating_sub(1));
    for e in inputs.iter_mut().filter(|e| e.register == NO_REGISTER) {
        e.slot = e.slot.saturating_add(extra);
    }
    Ok((inputs, ids, point_words, words.saturating_add(extra)))
}

impl Io {
    /// Lays out a hull program's words (module doc) into `s` and sets its
    /// [`HullState`].
    pub fn lay_out_hull(sigs: Option<&Signatures>, s: &mut Shader, h: &HullMeta) -> R<Io> {
        let empty = Signatures::default();
        let sigs = sigs.unwrap_or(&empty);
        let (inputs, ids_in, point_words, words_in) = lay_out_patch(sigs, h.input_points)?;
        let (mut outputs, ids_out, opw) =
            lay_out_elements(&sigs.outputs, "output", sys_value_tess)?;
        let (pcs, ids_pc, pcw) =
            lay_out_elements(&sigs.patch_constants, "patch constant", sys_value_tess)?;
        let mut factor_words = [NO_REGISTER; 6];
        let mut patch = HashMap::new();
        for (id, i) in ids_pc {
            patch.insert(id, i + outputs.len());
        }
        for e in pcs {
            let mut e = e;
            e.slot = e.slot.saturating_add(opw);
            let first = match e.sv {
                SysValue::TessFactor => 0,
                SysValue::InsideTessFactor => 4,
                _ => usize::MAX,
            };
            if first != usize::MAX {
                for r in 0..e.rows {
                    if let Some(w) = factor_words.get_mut(first.saturating_add(r as usize)) {
                        *w = e.slot + 4 * r + e.mask.trailing_zeros();
                    }
                }
            }
            outputs.push(e);
        }
        let ocp_word = words_in;
        let vpc_word = ocp_word.saturating_add(h.output_points.saturating_mul(opw));
        let phase_word = vpc_word.saturating_add(pcw);
        s.inputs = inputs;
        s.input_words = phase_word.saturating_add(1);
        s.outputs = outputs;
        s.output_words = opw.saturating_add(pcw);
        s.hull = Some(HullState {
            domain: h.domain,
            partitioning: h.partitioning,
            output: h.output,
            input_points: h.input_points,
            output_points: h.output_points,
            max_factor: h.max_factor,
            point_words,
            output_point_words: opw,
            ocp_word,
            vpc_word,
            phase_word,
            join: false,
            pass_through: false,
            factor_words,
        });
        let mut io = Io::no_signatures(Stage::Hull);
        io.inputs = ids_in;
        io.outputs = ids_out;
        io.patch = patch;
        io.vertices = h.input_points;
        io.vertex_rows = point_words / 4;
        Ok(io)
    }

    /// Lays out a domain program's words (module doc) into `s` and sets its
    /// [`DomainState`].
    pub fn lay_out_domain(
        sigs: Option<&Signatures>,
        s: &mut Shader,
        domain: TessDomain,
        points: u32,
    ) -> R<Io> {
        let empty = Signatures::default();
        let sigs = sigs.unwrap_or(&empty);
        let (mut inputs, ids_in, point_words, words_in) = lay_out_patch(sigs, points)?;
        let (outputs, ids_out, words_out) =
            lay_out_elements(&sigs.outputs, "output", super::stage::sys_value)?;
        let (pcs, ids_pc, pcw) =
            lay_out_elements(&sigs.patch_constants, "patch constant", sys_value_tess)?;
        let patch_word = words_in;
        let mut patch = HashMap::new();
        for (id, i) in ids_pc {
            patch.insert(id, i + inputs.len());
        }
        for mut e in pcs {
            e.slot = e.slot.saturating_add(patch_word);
            inputs.push(e);
        }
        let location_word = patch_word.saturating_add(pcw);
        s.inputs = inputs;
        s.input_words = location_word.saturating_add(4);
        s.outputs = outputs;
        s.output_words = words_out;
        s.domain = Some(DomainState {
            domain,
            input_points: points,
            point_words,
            patch_word,
            location_word,
        });
        let mut io = Io::no_signatures(Stage::Domain);
        io.inputs = ids_in;
        io.outputs = ids_out;
        io.patch = patch;
        io.vertices = points;
        io.vertex_rows = point_words / 4;
        Ok(io)
    }
}

impl<'m> FnLower<'m> {
    /// Lowers a hull or domain program's own operation (module doc).
    pub fn tess_op(
        &mut self,
        c: &DxOpCall<'m>,
        inst: &'m Instruction,
        res: Option<ValueId>,
    ) -> R<()> {
        let op = c.op();
        let stage = self.io.stage;
        let only = |l: &Self, ok: bool, what: &str| -> R<()> {
            if ok {
                Ok(())
            } else {
                Err(l.invalid(format!("dx.op {} in {what}", c.name())))
            }
        };
        match op {
            DxOp::OutputControlPointID => {
                only(
                    self,
                    stage == Stage::Hull && !self.io.patch_phase,
                    &format!("a {stage} shader's {}", self.phase_name()),
                )?;
                let slot =
                    self.sys_input(SysValue::OutputControlPointId, "SV_OutputControlPointID")?;
                let d = self.op2(|dst| Inst::Input { dst, slot });
                self.define(res, Val::Regs(vec![d]));
            }
            DxOp::DomainLocation => {
                let Some(d) = self.b.shader().domain.filter(|_| stage == Stage::Domain) else {
                    return Err(self.invalid(format!("dx.op {} in a {stage} shader", c.name())));
                };
                let k = self.ai(c, 0)?;
                let k = u32::try_from(k).ok().filter(|&k| k < 3).ok_or_else(|| {
                    self.invalid(format!("{} of component {k}: u, v, w are 0 to 2", c.name()))
                })?;
                let slot = d.location_word + k;
                let r = self.op2(|dst| Inst::Input { dst, slot });
                self.define(res, Val::Regs(vec![r]));
            }
            DxOp::LoadOutputControlPoint => {
                // LoadOutputControlPoint(outputSigId, row, col, index).
                let Some(h) = self.b.shader().hull.filter(|_| self.io.patch_phase) else {
                    return Err(self.invalid(format!(
                        "dx.op {} outside a hull program's patch-constant function",
                        c.name()
                    )));
                };
                let (word, rows, _) = self.element_at(c, false, true)?;
                let l = self.leaf(inst.ty)?;
                let base = h.ocp_word;
                let r = self.read_point_word(
                    c,
                    base,
                    word,
                    rows,
                    h.output_points,
                    h.output_point_words / 4,
                )?;
                let v = self.narrow_word(c, l, r)?;
                self.define(res, Val::Regs(vec![v]));
            }
            DxOp::LoadPatchConstant => {
                if stage != Stage::Domain {
                    return Err(self.unsupported(format!(
                        "dx.op {} in a {stage} shader (DXIL.rst: only the DXBC-to-DXIL converter emits it there, to read DXBC's vpc)",
                        c.name()
                    )));
                }
                let (word, rows, _) = self.element_at(c, true, false)?;
                let l = self.leaf(inst.ty)?;
                let rv = self.arg_of(c, 1)?;
                let r = match self.const_row(c, rv, rows)? {
                    Some(row) => {
                        let slot = word + 4 * row;
                        self.op2(|dst| Inst::Input { dst, slot })
                    }
                    None => {
                        let index = self.reg(rv)?;
                        self.op2(|dst| Inst::InputIndexed {
                            dst,
                            slot: word,
                            index,
                            rows,
                        })
                    }
                };
                let v = self.narrow_word(c, l, r)?;
                self.define(res, Val::Regs(vec![v]));
            }
            DxOp::StorePatchConstant => {
                only(
                    self,
                    stage == Stage::Hull && self.io.patch_phase,
                    "anything but a hull program's patch-constant function",
                )?;
                let (word, rows, component) = self.element_at(c, true, true)?;
                let vid = self.arg_of(c, 3)?;
                let l = self.leaf(self.ty(vid)?)?;
                let v = self.reg(vid)?;
                let src = self.widen_word(c, l, v, component)?;
                let rv = self.arg_of(c, 1)?;
                match self.const_row(c, rv, rows)? {
                    Some(row) => self.emit(Inst::Output {
                        slot: word + 4 * row,
                        src,
                    }),
                    None => {
                        let index = self.reg(rv)?;
                        self.emit(Inst::OutputIndexed {
                            slot: word,
                            index,
                            rows,
                            src,
                        });
                    }
                }
            }
            _ => return Err(self.unsupported(format!("dx.op {} ({})", c.name(), c.opcode()))),
        }
        Ok(())
    }

    /// Which function of a hull program is being lowered, for messages.
    fn phase_name(&self) -> &'static str {
        if self.io.patch_phase {
            "patch-constant function"
        } else {
            "entry function"
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::dxil::llvm::ValueId;

    fn entry(f: Option<ValueId>, values: Vec<i64>) -> EntryPoint {
        EntryPoint {
            function: None,
            function_name: Some("hs_main".into()),
            name: "hs_main".into(),
            signatures: None,
            resources: None,
            properties: vec![(
                3,
                Property::Hull {
                    patch_constant_function: f,
                    values,
                },
            )],
            fp32_denorm_mode: None,
        }
    }

    fn refused(f: Option<ValueId>, values: Vec<i64>, what: &str) {
        let m = Module::default();
        let e = hull_state(&m, &entry(f, values), "entry point hs_main")
            .unwrap_err()
            .to_string();
        assert!(e.contains(what) && e.contains("entry point hs_main"), "{e}");
    }

    /// DXIL.rst "Hull Shader" (tag 3: patch-constant function, input and output control
    /// points, domain, partitioning, output primitive, max tessellation factor) and
    /// D3D11.3 §10.3 (1 to 32 input, 0 to 32 output control points), §10.10.1 (a
    /// factor of at most 64): each bad value is refused by name, never a panic.
    #[test]
    fn bad_hull_states_are_refused_by_name() {
        let sixteen = i64::from(16f32.to_bits());
        let ok = vec![3, 3, 2, 1, 3, sixteen];
        let f = Some(ValueId(0));
        refused(None, ok.clone(), "names no patch-constant function");
        refused(f, ok.clone(), "is not a function the module defines");
        refused(
            f,
            vec![33, 3, 2, 1, 3, sixteen],
            "input control point count 33",
        );
        refused(
            f,
            vec![0, 3, 2, 1, 3, sixteen],
            "input control point count 0",
        );
        refused(
            f,
            vec![3, 33, 2, 1, 3, sixteen],
            "output control point count 33",
        );
        refused(f, vec![3, 3, 4, 1, 3, sixteen], "tessellator domain 4");
        refused(f, vec![3, 3, 2, 5, 3, sixteen], "partitioning 5");
        refused(f, vec![3, 3, 2, 1, 0, sixteen], "output primitive 0");
        refused(
            f,
            vec![3, 3, 2, 1, 3, i64::from(65f32.to_bits())],
            "max tessellation factor 65",
        );
        refused(f, vec![3, 3, 2], "no partitioning");
        let mut e = entry(f, ok);
        e.properties.clear();
        let m = hull_state(&Module::default(), &e, "x")
            .unwrap_err()
            .to_string();
        assert!(m.contains("without its hull state"), "{m}");
    }

    /// DXIL.rst "Domain Shader" (tag 2: domain, input control points).
    #[test]
    fn domain_states_are_read_and_checked() {
        let e = |v: Vec<i64>| EntryPoint {
            function: None,
            function_name: None,
            name: "ds_main".into(),
            signatures: None,
            resources: None,
            properties: vec![(2, Property::Domain(v))],
            fp32_denorm_mode: None,
        };
        assert_eq!(
            domain_state(&e(vec![2, 3]), "x").unwrap(),
            (TessDomain::Tri, 3)
        );
        assert_eq!(
            domain_state(&e(vec![3, 16]), "x").unwrap(),
            (TessDomain::Quad, 16)
        );
        assert_eq!(
            domain_state(&e(vec![1, 1]), "x").unwrap(),
            (TessDomain::Isoline, 1)
        );
        for (v, what) in [
            (vec![2, 33], "input control point count 33"),
            (vec![2, 0], "input control point count 0"),
            (vec![0, 3], "tessellator domain 0"),
        ] {
            let m = domain_state(&e(v), "entry point ds_main")
                .unwrap_err()
                .to_string();
            assert!(m.contains(what) && m.contains("ds_main"), "{m}");
        }
    }
}
