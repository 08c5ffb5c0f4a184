//! The lane chain through the stages: which input vertex, control point or patch
//! constant an input word of a geometry, hull or domain lane belongs to, how the program
//! names it (DXBC `v[1][0].x`, `vicp[2][0].x`, `vocp[0][1].y`, `vpc3.x`; DXIL by semantic
//! with the vertex or control point), and which lane one stage up made it — as the
//! traced draw fed it (`pipeline::InputOrigins`), with the flags that open that lane —
//! in the words `compare` names the same lanes with (`job::writers::made_by`).

use std::fmt::Write as _;

use super::Debugger;
use crate::debug::DebugError;
use crate::debug::format::Ty;
use crate::debug::record::Slot;
use crate::debug::source::Lang;
use crate::debug::target::LaneSelect;
use crate::ir::io::NO_REGISTER;
use crate::ir::{IoElement, Shader};
use crate::job::writers::{FORK_OUTPUTS, PATCH_CONSTANTS, made_by};
use crate::pipeline::TraceAt;

/// An input word as `print` and `why` take it: its name, slot and type.
type NamedInput = (String, Slot, Ty);

/// Where an input word of a geometry, hull or domain lane sits (`ir::GeometryState`,
/// `ir::HullState`, `ir::DomainState` lay the words out).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum InputPlace {
    /// Word `word` of input vertex `j` of a geometry lane's primitive.
    Vertex { j: u32, word: u32 },
    /// Word `word` of input control point `k` of a hull or domain lane's patch.
    ControlPoint { k: u32, word: u32 },
    /// Word `word` of output control point `k`, as a hull patch-constant lane reads it.
    OutputPoint { k: u32, word: u32 },
    /// Patch-constant word `word`: a domain lane's, or a DXBC join phase's (the fork
    /// phases' results).
    PatchConstant { word: u32 },
}

/// The place of input word `w` of a lane of `sh`; `None` for a word that is none of
/// these (a system value, another stage's input).
pub(super) fn input_place(sh: &Shader, w: u32) -> Option<InputPlace> {
    let split = |base: u32, per: u32, count: u32| -> Option<(u32, u32)> {
        let rel = w.checked_sub(base)?;
        (per > 0 && u64::from(rel) < u64::from(per) * u64::from(count))
            .then(|| (rel / per, rel % per))
    };
    if let Some(g) = sh.geometry {
        let (j, word) = split(0, g.vertex_words, g.input.vertices())?;
        return Some(InputPlace::Vertex { j, word });
    }
    if let Some(h) = sh.hull {
        if let Some((k, word)) = split(0, h.point_words, h.input_points) {
            return Some(InputPlace::ControlPoint { k, word });
        }
        if let Some((k, word)) = split(h.ocp_word, h.output_point_words, h.output_points) {
            return Some(InputPlace::OutputPoint { k, word });
        }
        let pcw = sh.output_words.saturating_sub(h.output_point_words);
        if h.join
            && let Some((_, word)) = split(h.vpc_word, pcw, 1)
        {
            return Some(InputPlace::PatchConstant { word });
        }
        return None;
    }
    if let Some(d) = sh.domain {
        if let Some((k, word)) = split(0, d.point_words, d.input_points) {
            return Some(InputPlace::ControlPoint { k, word });
        }
        let pc = d.location_word.saturating_sub(d.patch_word);
        if let Some((_, word)) = split(d.patch_word, pc, 1) {
            return Some(InputPlace::PatchConstant { word });
        }
    }
    None
}

/// What a lane of `sh` reads as patch constants, as the chain names it: a domain lane's
/// patch constants, or a DXBC join phase's fork results (the fork-phase lane made them).
fn patch_what(sh: &Shader) -> &'static str {
    if sh.hull.is_some() {
        FORK_OUTPUTS
    } else {
        PATCH_CONSTANTS
    }
}

/// The element of `elems` holding word `w` (a register row of it, in a component its
/// mask has: DXIL packs several elements into the columns of one row), with the row.
fn element_at(elems: &[IoElement], w: u32) -> Option<(&IoElement, u32)> {
    elems
        .iter()
        .filter(|e| e.register != NO_REGISTER)
        .find(|e| {
            w >= e.slot
                && u64::from(w - e.slot) < 4 * u64::from(e.rows)
                && e.mask >> ((w - e.slot) % 4) & 1 == 1
        })
        .map(|e| (e, (w - e.slot) / 4))
}

fn component_ty(e: &IoElement) -> Ty {
    match e.component {
        crate::ir::ComponentType::Float => Ty::Float,
        crate::ir::ComponentType::SInt => Ty::Int,
        _ => Ty::UInt,
    }
}

impl Debugger {
    /// Whether the session's lane runs a hull program's control-point phase (whose
    /// listing names its input control points `v[k][r]`, where the other phases say
    /// `vicp[k][r]`).
    fn in_control_point_phase(&self) -> bool {
        matches!(self.place.draw, Some(TraceAt::Hull { point: Some(_), .. }))
    }

    /// The name of input word `w` when it belongs to an input vertex, control point or
    /// patch constant (`input_place`), with its type; `None` otherwise.
    pub(super) fn chain_input_name(&self, w: u32) -> Option<(String, Ty)> {
        let sh = &self.target.program.debug_shader;
        let place = input_place(sh, w)?;
        let dxbc = self.target.program.view.lang == Lang::Dxbc;
        let comp = ['x', 'y', 'z', 'w'][(w % 4) as usize];
        let (elem, prefix, suffix) = match place {
            InputPlace::Vertex { j, word } => (
                element_at(&sh.inputs, word),
                format!("v[{j}]"),
                format!(" of input vertex {j}"),
            ),
            InputPlace::ControlPoint { k, word } => (
                element_at(&sh.inputs, word),
                if self.in_control_point_phase() {
                    format!("v[{k}]")
                } else {
                    format!("vicp[{k}]")
                },
                format!(" of control point {k}"),
            ),
            InputPlace::OutputPoint { k, word } => (
                element_at(&sh.outputs, word),
                format!("vocp[{k}]"),
                format!(" of output control point {k}"),
            ),
            InputPlace::PatchConstant { word } => {
                // A domain program's patch-constant elements are inputs at their own
                // words; a join phase reads the fork phases' outputs.
                let e = match (sh.domain, sh.hull) {
                    (Some(_), _) => element_at(&sh.inputs, w),
                    (_, Some(h)) => element_at(&sh.outputs, h.output_point_words + word),
                    _ => None,
                };
                (e, "vpc".to_string(), " (patch constant)".to_string())
            }
        };
        let ty = elem.map_or(Ty::Untyped, |(e, _)| component_ty(e));
        let reg = match place {
            InputPlace::Vertex { word, .. }
            | InputPlace::ControlPoint { word, .. }
            | InputPlace::OutputPoint { word, .. }
            | InputPlace::PatchConstant { word } => word / 4,
        };
        if dxbc || elem.is_none() {
            let name = match place {
                InputPlace::PatchConstant { .. } => format!("vpc{reg}.{comp}"),
                _ => format!("{prefix}[{reg}].{comp}"),
            };
            return Some((name, ty));
        }
        let (e, row) = elem?;
        let sem = if e.rows > 1 {
            format!("{}[{row}]", e.semantic_name())
        } else {
            e.semantic_name()
        };
        Some((format!("{sem}.{comp}{suffix}"), ty))
    }

    /// ` (input vertex 0)` or ` (control point 0)` for a word of the first input vertex
    /// or control point, which `inputs` lists by element before the others.
    pub(super) fn chain_first_label(&self, w: u32) -> Option<&'static str> {
        match input_place(&self.target.program.debug_shader, w)? {
            InputPlace::Vertex { .. } => Some(" (input vertex 0)"),
            InputPlace::ControlPoint { .. } => Some(" (control point 0)"),
            _ => None,
        }
    }

    /// The input words a DXBC place names as the listing does — `v[j][r]`, `vicp[k][r]`,
    /// `vocp[k][r]`, `vpc#`, with an optional swizzle — for `print` and `why`; `None`
    /// when `t` is not of that form, an error when it is but the lane has no such input.
    pub(super) fn chain_input_slots(&self, t: &str) -> Option<Result<Vec<NamedInput>, DebugError>> {
        let t = t.trim();
        let (base, swizzle) = match t.split_once('.') {
            Some((b, s)) => (b, Some(s)),
            None => (t, None),
        };
        let number = |s: &str| s.parse::<u32>().ok();
        let (kind, first, reg) = if let Some(r) = base.strip_prefix("vpc") {
            ("vpc", 0, number(r)?)
        } else {
            let (kind, rest) = ["vicp", "vocp", "v"]
                .iter()
                .find_map(|k| base.strip_prefix(k).map(|r| (*k, r)))?;
            let rest = rest.strip_prefix('[')?;
            let (a, rest) = rest.split_once("][")?;
            let b = rest.strip_suffix(']')?;
            (kind, number(a)?, number(b)?)
        };
        let comps: Vec<u32> = match swizzle {
            None => vec![0, 1, 2, 3],
            Some(s) if !s.is_empty() && s.len() <= 4 => {
                let mut v = Vec::new();
                for c in s.chars() {
                    v.push(match c {
                        'x' | 'r' => 0,
                        'y' | 'g' => 1,
                        'z' | 'b' => 2,
                        'w' | 'a' => 3,
                        _ => return None,
                    });
                }
                v
            }
            _ => return None,
        };
        let sh = &self.target.program.debug_shader;
        let no = |why: String| Some(Err(DebugError::Command(format!("{t}: {why}"))));
        let per_point = |per: u32, count: u32, base: u32, what: &str| {
            if first >= count {
                return Err(format!(
                    "the lane has {count} {what}(s) (0 to {})",
                    count.max(1) - 1
                ));
            }
            if u64::from(reg) * 4 >= u64::from(per) {
                return Err(format!(
                    "each {what} has {} input register(s) (0 to {})",
                    per / 4,
                    (per / 4).max(1) - 1
                ));
            }
            Ok(base + first * per + reg * 4)
        };
        let start = match (kind, sh.geometry, sh.hull, sh.domain) {
            ("v", Some(g), _, _) => {
                per_point(g.vertex_words, g.input.vertices(), 0, "input vertex")
            }
            ("v" | "vicp", _, Some(h), _) => {
                per_point(h.point_words, h.input_points, 0, "input control point")
            }
            ("vicp", _, _, Some(d)) => {
                per_point(d.point_words, d.input_points, 0, "input control point")
            }
            ("vocp", _, Some(h), _) if !self.in_control_point_phase() => per_point(
                h.output_point_words,
                h.output_points,
                h.ocp_word,
                "output control point",
            ),
            ("vpc", _, Some(h), _) if h.join => {
                let pcw = sh.output_words.saturating_sub(h.output_point_words);
                per_point(pcw.max(4), 1, h.vpc_word, "patch constant").map_err(|_| {
                    format!(
                        "the fork phases write {} patch-constant register(s)",
                        pcw / 4
                    )
                })
            }
            ("vpc", _, _, Some(d)) => {
                let pc = d.location_word.saturating_sub(d.patch_word);
                per_point(pc.max(4), 1, d.patch_word, "patch constant")
                    .map_err(|_| format!("the lane reads {} patch-constant register(s)", pc / 4))
            }
            _ => Err(format!(
                "not an input of this {} lane: v[i][r] names a geometry lane's input vertices and a hull control-point lane's control points, vicp[k][r] a hull or domain lane's control points, vocp[k][r] a hull patch-constant lane's output control points, vpc# a domain lane's patch constants or what a join phase reads of the fork phases' outputs",
                sh.stage
            )),
        };
        let start = match start {
            Ok(s) => s,
            Err(e) => return no(e),
        };
        let mut out = Vec::new();
        for c in comps {
            let w = start + c;
            let (name, ty) = self
                .chain_input_name(w)
                .unwrap_or_else(|| (t.to_string(), Ty::Untyped));
            out.push((name, Slot::Input(w), ty));
        }
        Some(Ok(out))
    }

    /// The lane one stage up that made input word `w` of the session's lane (the lane
    /// the session opened), as the traced draw fed it, with the flags that open it; `None`
    /// when the word comes from no other lane or the draw did not say.
    pub(super) fn chain_origin_text(&self, w: u32) -> Option<String> {
        let o = self.input_origins.as_ref()?;
        let sh = &self.target.program.debug_shader;
        let view = self.target.view();
        let (what, lane) = match input_place(sh, w)? {
            InputPlace::Vertex { j, .. } => {
                (format!("input vertex {j}"), *o.points.get(j as usize)?)
            }
            InputPlace::ControlPoint { k, .. } => {
                (format!("control point {k}"), *o.points.get(k as usize)?)
            }
            InputPlace::OutputPoint { k, .. } => (
                format!("output control point {k}"),
                *o.output_points.get(k as usize)?,
            ),
            InputPlace::PatchConstant { .. } => (patch_what(sh).to_string(), o.patch?),
        };
        let mut s = made_by(&what, &lane, view)?;
        // A domain lane's control point straight from a vertex lane: the hull program
        // has no control-point phase.
        if sh.domain.is_some() && matches!(lane, LaneSelect::Vertex { .. }) {
            s.push_str(", passed through by the hull program (it has no control-point phase)");
        }
        Some(s)
    }

    /// `inputs` of a geometry, hull or domain lane: per input vertex or control point
    /// past the first (the first is listed by element, as any stage's inputs), its
    /// words by register, and for the session's lane the lane one stage up that made
    /// each vertex, control point and the patch constants.
    pub(super) fn chain_inputs_text(&self, out: &mut String) {
        let sh = &self.target.program.debug_shader;
        let w = self.rec.width;
        let mine = self.lane == self.place.lane;
        let (count, per, first_word, label) = match (sh.geometry, sh.hull, sh.domain) {
            (Some(g), _, _) => (g.input.vertices(), g.vertex_words, 0, "input vertex"),
            (_, Some(h), _) => (h.input_points, h.point_words, 0, "control point"),
            (_, _, Some(d)) => (d.input_points, d.point_words, 0, "control point"),
            _ => return,
        };
        let elems: Vec<&IoElement> = sh
            .inputs
            .iter()
            .filter(|e| e.register != NO_REGISTER && e.slot < per)
            .collect();
        for k in 1..count {
            for e in &elems {
                for r in 0..e.rows {
                    let word0 = first_word + k * per + e.slot + 4 * r;
                    let vals: Vec<String> = (0..4)
                        .filter(|c| e.mask >> c & 1 == 1)
                        .map(|c| {
                            let bits = self
                                .rec
                                .inputs
                                .get((word0 + c) as usize * w + self.lane)
                                .copied()
                                .unwrap_or(0);
                            crate::debug::format::value_text(
                                bits,
                                component_ty(e),
                                crate::debug::format::Fmt::Natural,
                            )
                        })
                        .collect();
                    let letters: String = (0..4)
                        .filter(|c| e.mask >> c & 1 == 1)
                        .map(|c| ['x', 'y', 'z', 'w'][c as usize])
                        .collect();
                    let name = self
                        .chain_input_name(word0 + e.mask.trailing_zeros().min(3))
                        .map(|(n, _)| n)
                        .unwrap_or_default();
                    let stem = match self.target.program.view.lang {
                        Lang::Dxbc => {
                            let s = name.rsplit_once('.').map_or(name.as_str(), |(a, _)| a);
                            format!("{s}.{letters} ")
                        }
                        _ => String::new(),
                    };
                    let sem = if e.rows > 1 {
                        format!("{}[{r}]", e.semantic_name())
                    } else {
                        e.semantic_name()
                    };
                    let _ = write!(out, "\n{stem}{sem} ({label} {k}): {}", vals.join(", "));
                }
            }
        }
        if !mine {
            return;
        }
        // Where each came from, one line each.
        for k in 0..count {
            if let Some(t) = self.chain_origin_text(first_word + k * per) {
                let _ = write!(out, "\n{t}");
            }
        }
        if let Some(o) = &self.input_origins {
            for (k, lane) in o.output_points.iter().enumerate() {
                let what = format!("output control point {k}");
                if let Some(t) = made_by(&what, lane, self.target.view()) {
                    let _ = write!(out, "\n{t}");
                }
            }
            if let Some(p) = o.patch
                && let Some(t) = made_by(patch_what(sh), &p, self.target.view())
            {
                let _ = write!(out, "\n{t}");
            }
        }
    }
}

impl Debugger {
    /// The input word an indexed input read (`Inst::InputIndexed`) at wave step `ws`
    /// took for the session's lane: its row index as the lane held it then; `None` when
    /// the index was out of the declared rows (the read gave 0).
    pub(super) fn indexed_input_word(&self, ws: usize) -> Option<u32> {
        let crate::ir::Inst::InputIndexed {
            slot, index, rows, ..
        } = self.inst_at(ws)?
        else {
            return None;
        };
        let i = self.rec.value(Slot::Reg(index.0), ws, self.lane);
        (i < *rows).then(|| slot.wrapping_add(i.wrapping_mul(4)))
    }
}
