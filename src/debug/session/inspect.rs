//! Inspection at the session's position: what a step read and wrote, values
//! (`print`, `regs`, the wave view), the listing, a pixel or vertex lane's inputs and
//! outputs (with the targets after the draw), and the trace file.

use std::fmt::Write as _;

use crate::exec::{MemWrite, WriteTarget};

use super::breakpoint::Breakpoint;
use super::resolve::Resolved;
use super::{Debugger, lane_bit};
use crate::debug::DebugError;
use crate::debug::format::{self, Fmt, Ty};
use crate::debug::record::Slot;
use crate::debug::source::{Key, Lang};
use crate::ir::Inst;
use crate::pipeline::TraceAt;

/// A value as the program names it, at the session's position.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ValueLine {
    /// The name (`r0.x`, `%12`).
    pub name: String,
    /// Its bits.
    pub bits: u32,
    /// Its type.
    pub ty: Ty,
}

/// What one source step read and wrote.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct StepDetail {
    /// The step's number in the lane's steps.
    pub step: usize,
    /// The listing line.
    pub line: Option<u32>,
    /// The source position.
    pub key: Option<Key>,
    /// The instruction as listed.
    pub text: String,
    /// Values read (before the step).
    pub read: Vec<ValueLine>,
    /// Values written (after it).
    pub wrote: Vec<ValueLine>,
    /// Memory the lane wrote.
    pub memory: Vec<MemWrite>,
    /// Active lanes of the wave.
    pub active: u128,
    /// Helper lanes.
    pub helper: u128,
}

impl Debugger {
    /// What source step `p` read and wrote, for lane `self.lane`.
    pub fn detail(&self, p: usize) -> StepDetail {
        let sh = &self.target.program.debug_shader;
        let s = self.steps[p];
        let inst_index = match (self.target.program.view.lang, s.key) {
            (Lang::Dxil, Some(k)) => Some(k.1),
            _ => None,
        };
        let mut read: Vec<ValueLine> = Vec::new();
        let mut written: Vec<u32> = Vec::new();
        let mut wrote_slots: Vec<(Slot, Ty)> = Vec::new();
        let mut memory = Vec::new();
        let mut outputs: Vec<ValueLine> = Vec::new();
        let (mut active, mut helper) = (0, 0);
        for (k, &ws) in self.wave_steps(p).iter().enumerate() {
            let ws = ws as usize;
            let st = self.rec.steps[ws];
            if k == 0 {
                active = st.active;
                helper = st.helper;
            }
            for r in self.regs_read_at(ws) {
                if written.contains(&r) || sh.is_const(crate::ir::Reg(r)) {
                    continue;
                }
                if let Some((name, decl)) = self.reg_name(r, inst_index, false)
                    && !read.iter().any(|x| x.name == name)
                {
                    let bits = self.rec.value(Slot::Reg(r), ws, self.lane);
                    read.push(ValueLine {
                        name,
                        bits,
                        ty: self.type_of(r, ws, decl),
                    });
                }
            }
            match self.inst_at(ws) {
                Some(Inst::Input { slot, .. }) => {
                    if let Some((name, ty)) = self.io_name(true, *slot)
                        && !read.iter().any(|x| x.name == name)
                    {
                        let bits = self.rec.value(Slot::Input(*slot), ws, self.lane);
                        read.push(ValueLine { name, bits, ty });
                    }
                }
                Some(Inst::InputIndexed { .. }) => {
                    if let Some(w) = self.indexed_input_word(ws)
                        && let Some((name, ty)) = self.io_name(true, w)
                        && !read.iter().any(|x| x.name == name)
                    {
                        let bits = self.rec.value(Slot::Input(w), ws, self.lane);
                        read.push(ValueLine { name, bits, ty });
                    }
                }
                Some(Inst::Output { slot, src }) => {
                    if let Some((name, ty)) = self.io_name(false, *slot) {
                        let bits = self.rec.value(Slot::Reg(src.0), ws + 1, self.lane);
                        outputs.retain(|x: &ValueLine| x.name != name);
                        outputs.push(ValueLine { name, bits, ty });
                    }
                }
                _ => {}
            }
            let ty = self.inst_at(ws).map_or(Ty::Untyped, format::written_type);
            for slot in self.rec.step_writes(ws) {
                if let Slot::Reg(r) = slot {
                    written.push(*r);
                }
                wrote_slots.retain(|(x, _)| x != slot);
                wrote_slots.push((*slot, ty));
            }
            memory.extend(
                self.rec
                    .step_mem(ws)
                    .iter()
                    .filter(|m| m.lane as usize == self.lane)
                    .cloned(),
            );
        }
        let end = self.t(p + 1).min(self.rec.steps.len());
        let last = *self.wave_steps(p).last().unwrap_or(&0) as usize + 1;
        let mut wrote = Vec::new();
        for (slot, ty) in wrote_slots {
            let bits = self.rec.value(slot, last.min(end.max(last)), self.lane);
            let named = match slot {
                Slot::Reg(r) => self.reg_name(r, inst_index, true).map(|(n, d)| {
                    let t = if d != Ty::Untyped { d } else { ty };
                    (n, t)
                }),
                Slot::Local(a, w) => Some((self.local_name(a, w), Ty::Untyped)),
                Slot::Input(w) => self.io_name(true, w),
            };
            if let Some((name, ty)) = named
                && !wrote.iter().any(|x: &ValueLine| x.name == name)
            {
                wrote.push(ValueLine { name, bits, ty });
            }
        }
        wrote.extend(outputs);
        let line = self.line_of(s.key);
        let text = match line {
            Some(l) => self.target.program.view.text(l).to_string(),
            None => self.ir_text(self.rec.steps[self.wave_steps(p)[0] as usize].at),
        };
        StepDetail {
            step: p,
            line,
            key: s.key,
            text,
            read,
            wrote,
            memory,
            active,
            helper,
        }
    }

    pub(super) fn detail_text(&self, d: &StepDetail) -> String {
        let mut s = format!("[{}] {}", d.step, self.step_title(d.step));
        for v in &d.read {
            let _ = write!(
                s,
                "\n    read  {} = {}",
                v.name,
                format::value_text(v.bits, v.ty, Fmt::Natural)
            );
        }
        for v in &d.wrote {
            let _ = write!(
                s,
                "\n    wrote {} = {}",
                v.name,
                format::value_text(v.bits, v.ty, Fmt::Natural)
            );
        }
        for m in &d.memory {
            let _ = write!(
                s,
                "\n    wrote {} = {}",
                self.memory_name(m.target, m.addr, m.bytes),
                format::value_text(m.value[0], Ty::Untyped, Fmt::Natural)
            );
        }
        // A ray-generation lane's TraceRay or CallShader: the programs it ran.
        if self.target.ray_programs().is_some() {
            for &ws in self.wave_steps(d.step) {
                s.push_str(&self.nested_lines(ws as usize));
            }
        }
        s
    }

    /// The values of a place at the current position, one line per component.
    pub fn print(&self, t: &str, fmt: Fmt) -> Result<String, DebugError> {
        let time = self.t(self.pos);
        if let Some(words) = self.output_words(t) {
            return Ok(self.print_outputs(&words, time, fmt));
        }
        match self.resolve_text(t)? {
            Resolved::Slots(v) => {
                let mut out = Vec::new();
                for (name, slot, decl) in v {
                    let bits = self.rec.value(slot, time, self.lane);
                    let ty = match slot {
                        Slot::Reg(r) => self.type_of(r, time, decl),
                        Slot::Local(..) => Ty::Untyped,
                        Slot::Input(_) => decl,
                    };
                    let written = match slot {
                        Slot::Reg(r) => {
                            self.rec
                                .last_lane_write(Slot::Reg(r), time, self.lane)
                                .is_some()
                                || self.target.program.view.lang == Lang::Ir
                        }
                        Slot::Local(..) | Slot::Input(_) => true,
                    };
                    let note = if written { "" } else { "  (not written yet)" };
                    out.push(format!(
                        "{name} = {}{note}",
                        format::value_text(bits, ty, fmt)
                    ));
                }
                Ok(out.join("\n"))
            }
            Resolved::Constant(v) => Ok(v
                .iter()
                .map(|(n, b)| format!("{n} = {}", format::value_text(*b, Ty::Untyped, fmt)))
                .collect::<Vec<_>>()
                .join("\n")),
            Resolved::Shared(w) => Ok(format!(
                "gs[{w}] = {}",
                format::value_text(self.rec.shared_word(w, time), Ty::Untyped, fmt)
            )),
            Resolved::Resource {
                name,
                binding,
                addr,
                bytes,
            } => {
                let final_bytes = self.resource_bytes(binding, addr, bytes);
                let words: Vec<String> = final_bytes
                    .chunks(4)
                    .map(|c| {
                        let mut b = [0u8; 4];
                        b[..c.len()].copy_from_slice(c);
                        format::value_text(u32::from_le_bytes(b), Ty::Untyped, fmt)
                    })
                    .collect();
                let mut s = format!(
                    "{name} (bytes {addr}..{} of {}) after the run: {}",
                    addr + bytes,
                    self.binding_name(binding),
                    words.join(", ")
                );
                let target = WriteTarget::Resource(binding);
                for (k, st) in self.rec.steps.iter().enumerate().take(time) {
                    let _ = st;
                    for m in self.rec.step_mem(k) {
                        if m.target == target
                            && m.addr < addr + bytes
                            && m.addr + u64::from(m.bytes) > addr
                            && m.lane as usize == self.lane
                        {
                            let _ = write!(
                                s,
                                "\n    this lane wrote {} before this point",
                                format::value_text(m.value[0], Ty::Untyped, fmt)
                            );
                        }
                    }
                }
                Ok(s)
            }
        }
    }

    /// One value across the wave, with the masks of the next step.
    pub fn wave(&self, t: &str) -> Result<String, DebugError> {
        let time = self.t(self.pos);
        let (active, helper) = match self.steps.get(self.pos) {
            Some(s) => {
                let st = self.rec.steps[self.lane_steps[s.first as usize] as usize];
                (st.active, st.helper)
            }
            None => (0, self.rec.steps.last().map_or(0, |s| s.helper)),
        };
        let slots = match self.resolve_text(t)? {
            Resolved::Slots(v) => v,
            _ => {
                return Err(DebugError::Command(
                    "the wave view shows registers and values; memory is shared by the lanes"
                        .into(),
                ));
            }
        };
        let w = self.rec.width;
        let mut s = format!(
            "{t} across wave {} of {} lanes (active {}, helper {}):",
            self.place.wave,
            w,
            mask_text(active, w),
            mask_text(helper, w)
        );
        for l in 0..w {
            if !lane_bit(self.rec.lanes, l) {
                continue;
            }
            let state = if lane_bit(active, l) {
                if lane_bit(helper, l) {
                    "helper"
                } else {
                    "active"
                }
            } else {
                "      "
            };
            let vals: Vec<String> = slots
                .iter()
                .map(|(_, slot, decl)| {
                    let bits = self.rec.value(*slot, time, l);
                    let ty = match slot {
                        Slot::Reg(r) if *decl == Ty::Untyped => {
                            format::guess(bits).max_ty(self.type_of(*r, time, *decl))
                        }
                        _ => *decl,
                    };
                    format::value_text(bits, ty, Fmt::Natural)
                })
                .collect();
            let me = if l == self.lane { "=>" } else { "  " };
            // Pixel lanes come in quads: say which corner each is (what derivatives read).
            let quad = match self.place.draw {
                Some(TraceAt::Pixel { .. }) => format!(
                    " quad {} {}",
                    l / 4,
                    ["top-left", "top-right", "bottom-left", "bottom-right"][l % 4]
                ),
                _ => String::new(),
            };
            let _ = write!(
                s,
                "\n{me} lane {l:>2} {state} {}{quad}: {}",
                self.lane_text(l),
                vals.join(", ")
            );
        }
        Ok(s)
    }

    /// Every register and value the lane has written so far.
    pub fn regs(&self) -> String {
        let mut out = Vec::new();
        for v in &self.target.program.view.vars {
            let parts: Vec<String> = self
                .written_components(v)
                .into_iter()
                .map(|(c, text)| format!("{} = {text}", v.component_name(c)))
                .collect();
            if !parts.is_empty() {
                out.push(parts.join(", "));
            }
        }
        if out.is_empty() {
            "the lane has written no register yet".into()
        } else {
            out.join("\n")
        }
    }

    /// The components of `v` the lane has written by now, each with its value as `print`
    /// shows it.
    pub(super) fn written_components(&self, v: &crate::debug::source::Var) -> Vec<(usize, String)> {
        let time = self.t(self.pos);
        let mut out = Vec::new();
        for (c, r) in v.regs.iter().enumerate() {
            if *r == u32::MAX
                || self
                    .rec
                    .last_lane_write(Slot::Reg(*r), time, self.lane)
                    .is_none()
            {
                continue;
            }
            let bits = self.rec.value(Slot::Reg(*r), time, self.lane);
            let ty = self.type_of(*r, time, v.ty.get(c).copied().unwrap_or(Ty::Untyped));
            out.push((c, format::value_text(bits, ty, Fmt::Natural)));
        }
        out
    }

    /// The lane's inputs by signature element, as the pipeline gave them (interpolated
    /// attributes, `SV_Position`, `SV_IsFrontFace`, `SV_SampleIndex`, `SV_Coverage`, vertex
    /// attributes and ids), named as the program names them: DXBC `v1.xy`, DXIL by semantic.
    pub fn inputs(&self) -> String {
        let sh = &self.target.program.debug_shader;
        let dxbc = self.target.program.view.lang == Lang::Dxbc;
        let w = self.rec.width;
        let mut s = String::new();
        for e in &sh.inputs {
            for r in 0..e.rows {
                let (comps, letters, ty) = element_components(e.mask, e.component);
                let vals: Vec<String> = comps
                    .iter()
                    .map(|&c| {
                        let word = e.word(r, c) as usize;
                        let bits = self
                            .rec
                            .inputs
                            .get(word * w + self.lane)
                            .copied()
                            .unwrap_or(0);
                        format::value_text(bits, ty, Fmt::Natural)
                    })
                    .collect();
                // A system value without a register (`vDomain`, `vPrim`) is named by
                // its semantic alone.
                // An input vertex's, control point's or patch constant's row is named
                // as the listing indexes it (`v[0][1]`, `vicp[0][0]`, `vpc3`).
                let chain = self.chain_input_name(e.word(r, comps.first().copied().unwrap_or(0)));
                let name = match &chain {
                    Some((n, _)) if dxbc => {
                        let stem = n.rsplit_once('.').map_or(n.as_str(), |(a, _)| a);
                        format!("{stem}.{letters} ")
                    }
                    _ if dxbc && e.register != crate::ir::io::NO_REGISTER => {
                        format!("v{}.{letters} ", e.register + r)
                    }
                    _ => String::new(),
                };
                let mut sem = if e.rows > 1 {
                    format!("{}[{r}]", e.semantic_name())
                } else {
                    e.semantic_name()
                };
                if let Some(label) = self.chain_first_label(e.word(r, 0)) {
                    sem.push_str(label);
                }
                let how = if e.interp == crate::ir::Interp::Undefined {
                    String::new()
                } else {
                    format!(" ({})", e.interp)
                };
                let _ = write!(s, "\n{name}{sem}{how}: {}", vals.join(", "));
            }
        }
        if s.is_empty() {
            return "the program reads no inputs".into();
        }
        // A geometry, hull or domain lane's other input vertices or control points,
        // and the lanes that made them.
        self.chain_inputs_text(&mut s);
        // The session's own pixel lane: where its inputs came from, one stage up.
        if self.lane == self.place.lane
            && let Some(o) = self.origin_text()
        {
            let _ = write!(s, "\n{o}");
        }
        format!("inputs of lane {}:{s}", self.lane)
    }

    /// The output words a graphics stage's place names — DXBC `o1`, `o1.xy`; the
    /// semantic otherwise (`SV_Target0.x`, `COLOR0`) — with their names and declared
    /// types; `None` when `t` names no output.
    pub(super) fn output_words(&self, t: &str) -> Option<Vec<(String, u32, Ty)>> {
        let t = t.trim();
        let (base, comps) = match t.rsplit_once('.') {
            Some((b, c))
                if !c.is_empty() && c.len() <= 4 && c.chars().all(|x| "xyzwrgba".contains(x)) =>
            {
                let v: Vec<usize> = c
                    .chars()
                    .map(|x| match x {
                        'x' | 'r' => 0,
                        'y' | 'g' => 1,
                        'z' | 'b' => 2,
                        _ => 3,
                    })
                    .collect();
                (b, v)
            }
            _ => (t, Vec::new()),
        };
        self.io_words(false, base, &comps)
    }

    /// The lane's last output instruction before wave step `time` that stored output
    /// word `word`: its wave step and the IR register it stored.
    pub(super) fn last_output(&self, word: u32, time: usize) -> Option<(usize, u32)> {
        self.lane_steps
            .iter()
            .map(|&s| s as usize)
            .take_while(|&s| s < time)
            .filter_map(|s| match self.inst_at(s) {
                Some(Inst::Output { slot, src }) if *slot == word => Some((s, src.0)),
                _ => None,
            })
            .last()
    }

    /// `print` of output words at wave step `time`: each word's value is the one the
    /// lane's last output instruction before `time` stored there (DXBC writes an output
    /// register like any other and the program's last write is what leaves the stage;
    /// a geometry lane's words are those of the vertex it is building), or "not written
    /// yet".
    fn print_outputs(&self, words: &[(String, u32, Ty)], time: usize, fmt: Fmt) -> String {
        let mut out = Vec::new();
        for (name, word, ty) in words {
            out.push(match self.last_output(*word, time) {
                Some((s, src)) => {
                    let bits = self.rec.value(Slot::Reg(src), s + 1, self.lane);
                    format!("{name} = {}", format::value_text(bits, *ty, fmt))
                }
                None => format!("{name}  (not written yet)"),
            });
        }
        out.join("\n")
    }

    /// The lane's output words by signature element after its wave ran (DXBC `o0`, DXIL by
    /// semantic), whether it discarded, and the render targets at its pixel after the draw.
    pub fn outputs_text(&self) -> Result<String, DebugError> {
        let Some(t) = &self.traced else {
            return Err(DebugError::Command(
                "`outputs` shows the output registers of a vertex, pixel, geometry, hull or domain lane and a mesh lane's output arrays; a compute lane writes memory (print u0[i]), and an amplification lane writes its payload into its group's memory (print gs[i]; its steps show each write)".into(),
            ));
        };
        if let Some(TraceAt::Mesh { .. }) = self.place.draw {
            return Ok(self.mesh_outputs_text(&t.group_memory));
        }
        let sh = &self.target.program.debug_shader;
        let dxbc = self.target.program.view.lang == Lang::Dxbc;
        let w = t.wave_size as usize;
        let mut s = format!("outputs of lane {} (when its wave finished):", self.lane);
        for e in &sh.outputs {
            for r in 0..e.rows {
                let (comps, letters, ty) = element_components(e.mask, e.component);
                let vals: Vec<String> = comps
                    .iter()
                    .map(|&c| {
                        let word = e.word(r, c) as usize;
                        let bits = t.outputs.get(word * w + self.lane).copied().unwrap_or(0);
                        format::value_text(bits, ty, Fmt::Natural)
                    })
                    .collect();
                let name = if dxbc
                    && !matches!(
                        e.sv,
                        crate::ir::SysValue::Depth | crate::ir::SysValue::Coverage
                    ) {
                    format!("o{}.{letters} ", e.register + r)
                } else {
                    String::new()
                };
                let sem = if e.rows > 1 {
                    format!("{}[{r}]", e.semantic_name())
                } else {
                    e.semantic_name()
                };
                let _ = write!(s, "\n{name}{sem}: {}", vals.join(", "));
            }
        }
        if let Some(p) = t.pixels.get(self.lane) {
            if p.coverage == 0 {
                s.push_str("\na helper lane: its outputs are dropped");
            } else if lane_bit(t.killed, self.lane) {
                s.push_str("\nthe lane discarded: its outputs are dropped");
            } else {
                let _ = write!(s, "\ncoverage 0x{:x} of primitive {}", p.coverage, p.prim);
            }
            // The targets were read for the session's own lane's pixel.
            if self.lane == self.place.lane {
                for line in &self.pixel {
                    let _ = write!(s, "\n{line}");
                }
            } else {
                let _ = write!(
                    s,
                    "\n(the targets after the draw are shown for the session's lane, lane {})",
                    self.place.lane
                );
            }
        }
        Ok(s)
    }

    /// A mesh lane's outputs: its group's output arrays as the group left them (mesh
    /// shader spec, "Mesh shader outputs": `SetMeshOutputCounts`' counts, then each
    /// primitive's index tuple and per-primitive outputs, each vertex's outputs, up to the
    /// counts), read from the group's memory when it finished (`ir::MeshRegion`).
    fn mesh_outputs_text(&self, mem: &[u32]) -> String {
        let sh = &self.target.program.debug_shader;
        let Some(m) = sh.mesh else {
            return "the mesh program has no mesh state".into();
        };
        let threads: usize = sh.thread_group.iter().map(|&n| n as usize).product();
        let shared_words = (sh.groupshared_bytes as usize).div_ceil(4);
        let r = m.region(shared_words, threads, sh.output_words);
        let word = |i: usize| mem.get(i).copied().unwrap_or(0);
        let mut s = format!(
            "outputs of lane {}'s mesh group (when the group finished; any of its threads may write any element):",
            self.lane
        );
        if mem.len() < r.end {
            s.push_str(
                "
the group did not finish: its output arrays were not read",
            );
            return s;
        }
        if word(r.base) == 0 {
            s.push_str(
                "
SetMeshOutputCounts was not called: the group outputs nothing",
            );
            return s;
        }
        let (nv, np) = (word(r.base + 1), word(r.base + 2));
        let _ = write!(
            s,
            "
SetMeshOutputCounts({nv}, {np}) (at most {} vertices, {} primitives)",
            m.max_vertices, m.max_primitives
        );
        let per = match m.topology {
            crate::ir::MeshTopology::Line => 2,
            _ => 3,
        };
        let element = |e: &crate::ir::IoElement, base: usize| {
            let mut parts = Vec::new();
            for row in 0..e.rows {
                let (comps, _, ty) = element_components(e.mask, e.component);
                let vals: Vec<String> = comps
                    .iter()
                    .map(|&c| {
                        format::value_text(word(base + e.word(row, c) as usize), ty, Fmt::Natural)
                    })
                    .collect();
                let sem = if e.rows > 1 {
                    format!("{}[{row}]", e.semantic_name())
                } else {
                    e.semantic_name()
                };
                parts.push(format!("{sem} = {}", vals.join(", ")));
            }
            parts.join("; ")
        };
        for p in 0..np as usize {
            let idx: Vec<String> = (0..per)
                .map(|k| word(r.indices + 3 * p + k).to_string())
                .collect();
            let _ = write!(
                s,
                "
primitive {p}: indices ({})",
                idx.join(", ")
            );
            let base = r.primitives + p * m.primitive_words as usize;
            for e in &sh.primitive_outputs {
                let _ = write!(s, "; {}", element(e, base));
            }
        }
        for v in 0..nv as usize {
            let base = r.vertices + v * sh.output_words as usize;
            let fields: Vec<String> = sh.outputs.iter().map(|e| element(e, base)).collect();
            let _ = write!(
                s,
                "
vertex {v}: {}",
                fields.join("; ")
            );
        }
        s
    }

    /// The listing around a line (default: the next step's), `=>` at the next step and
    /// `*` at breakpoints, with what the last step read and wrote.
    pub fn list(&self, around: Option<u32>) -> String {
        let view = &self.target.program.view;
        let cur = self.steps.get(self.pos).and_then(|s| self.line_of(s.key));
        let center = around.or(cur).unwrap_or(1);
        let lo = center.saturating_sub(5).max(1);
        let hi = (center + 5).min(view.lines.len() as u32);
        let mut s = String::new();
        for l in lo..=hi {
            let mark = if Some(l) == cur { "=>" } else { "  " };
            let bp = if self
                .bps
                .iter()
                .any(|(_, b)| matches!(b, Breakpoint::Line { line, .. } if *line == l))
            {
                '*'
            } else {
                ' '
            };
            let _ = writeln!(s, "{mark}{bp}{l:>5}  {}", view.lines[(l - 1) as usize]);
        }
        if around.is_none() && self.pos > 0 {
            let _ = write!(s, "last: {}", self.detail_text(&self.detail(self.pos - 1)));
        }
        s.trim_end().to_string()
    }

    /// Writes every source step of the lane as one JSON object per line.
    pub fn write_trace(&self, w: &mut dyn std::io::Write) -> Result<usize, DebugError> {
        let io = |e: std::io::Error| DebugError::Io(format!("cannot write the trace: {e}"));
        let vals = |v: &[ValueLine]| -> Vec<serde_json::Value> {
            v.iter()
                .map(|x| {
                    let ty = if x.ty == Ty::Untyped { format::guess(x.bits) } else { x.ty };
                    serde_json::json!({
                        "name": x.name,
                        "type": format::ty_name(ty, x.bits),
                        "value": format::value_text(x.bits, ty, Fmt::Natural).split(" (").next().unwrap_or(""),
                        "bits": format!("0x{:08x}", x.bits),
                    })
                })
                .collect()
        };
        for p in 0..self.steps.len() {
            let d = self.detail(p);
            let mem: Vec<serde_json::Value> = d
                .memory
                .iter()
                .map(|m| {
                    serde_json::json!({
                        "target": self.memory_name(m.target, m.addr, m.bytes),
                        "addr": m.addr,
                        "bytes": m.bytes,
                        "value": format!("0x{:08x}", m.value[0]),
                    })
                })
                .collect();
            let obj = serde_json::json!({
                "step": p,
                "line": d.line,
                "index": d.key.map(|k| k.1),
                "function": d.key.map(|k| k.0),
                "text": d.text,
                "read": vals(&d.read),
                "wrote": vals(&d.wrote),
                "memory": mem,
                "active": format!("0x{:x}", d.active),
                "helper": format!("0x{:x}", d.helper),
            });
            writeln!(w, "{obj}").map_err(io)?;
        }
        Ok(self.steps.len())
    }
}

impl Ty {
    /// The more specific of two types (a known one over a guess).
    fn max_ty(self, other: Ty) -> Ty {
        if other == Ty::Untyped { self } else { other }
    }
}

/// A signature element's components (by its mask), their letters (`xy`) and the type
/// they are shown as: what `inputs` and `outputs` list for each row.
fn element_components(mask: u8, component: crate::ir::ComponentType) -> (Vec<u32>, String, Ty) {
    let comps: Vec<u32> = (0..4).filter(|c| mask >> c & 1 == 1).collect();
    let letters = comps.iter().map(|&c| b"xyzw"[c as usize] as char).collect();
    let ty = match component {
        crate::ir::ComponentType::Float => Ty::Float,
        crate::ir::ComponentType::SInt => Ty::Int,
        _ => Ty::UInt,
    };
    (comps, letters, ty)
}

/// A lane mask as `0b…`, lane `width − 1` first.
fn mask_text(mask: u128, width: usize) -> String {
    let mut s = String::with_capacity(width + 2);
    s.push_str("0b");
    for l in (0..width).rev() {
        s.push(if lane_bit(mask, l) { '1' } else { '0' });
    }
    s
}
