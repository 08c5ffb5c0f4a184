//! The session: a lane's steps over a record, breakpoints, inspection, and the text
//! commands of scripts and the prompt.

use std::fmt::Write as _;

use crate::exec::{At, Binding, ExecError, Invocation, MemWrite, WriteSink, WriteTarget};
use crate::ir::{Inst, ResourceClass};
use crate::resources::Descriptor;

use super::expr::{self, Cond, Number, Operand, PlaceText, Scalar};
use super::format::{self, Fmt, Ty};
use super::record::{Record, Slot, read_regs};
use super::source::{Key, Lang};
use super::target::{LanePlace, LaneSelect, Target};
use super::{DebugError, DebugOptions};
use crate::pipeline::TraceAt;

/// The most levels `why` walks back.
pub const MAX_WHY_DEPTH: usize = 64;

/// One source step of the lane: a run of its IR steps (indices into `lane_steps`).
#[derive(Debug, Clone, Copy)]
struct SrcStep {
    key: Option<Key>,
    first: u32,
    len: u32,
}

/// What `why` has walked through: the source positions on the current chain (to stop at
/// a loop's earlier iteration) and the writes already shown.
#[derive(Default)]
struct WhyState {
    chain: Vec<Key>,
    shown: std::collections::HashSet<(Slot, usize)>,
}

/// A breakpoint or watch.
#[derive(Debug, Clone, PartialEq)]
pub enum Breakpoint {
    /// Before the lane runs an instruction on a listing line (when the condition holds).
    Line {
        /// The line.
        line: u32,
        /// The condition.
        cond: Option<Cond>,
        /// Its text.
        text: String,
    },
    /// Before the lane runs the first NaN- or infinity-writing step: after it.
    Nan,
    /// After a step of the lane writes one of these registers.
    Write {
        /// The name as given.
        name: String,
        /// The slots.
        slots: Vec<Slot>,
    },
    /// After any lane writes these bytes.
    Memory {
        /// The name as given.
        name: String,
        /// The memory.
        target: WriteTarget,
        /// First byte.
        addr: u64,
        /// Bytes.
        bytes: u64,
    },
}

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

/// A place resolved against the program.
#[derive(Debug, Clone)]
enum Resolved {
    /// Register-like slots: (name, slot, declared type).
    Slots(Vec<(String, Slot, Ty)>),
    /// Constant-buffer words: (name, bits).
    Constant(Vec<(String, u32)>),
    /// Group shared word.
    Shared(u64),
    /// A resource element's bytes.
    Resource {
        name: String,
        binding: Binding,
        addr: u64,
        bytes: u64,
    },
}

/// A debugging session over one lane of a recorded run (see the module doc).
pub struct Debugger {
    target: Target,
    place: LanePlace,
    options: DebugOptions,
    rec: Record,
    fault: Option<ExecError>,
    outputs: Vec<Vec<u8>>,
    lane: usize,
    lane_steps: Vec<u32>,
    steps: Vec<SrcStep>,
    pos: usize,
    bps: Vec<(u32, Breakpoint)>,
    next_bp: u32,
    /// Writes of watched memory by lanes of other groups (draws: other waves), from a
    /// second run.
    elsewhere: Vec<MemWrite>,
    notes: Vec<String>,
    /// Draws: the traced wave's lanes and outputs, and the targets at the lane's pixel.
    traced: Option<crate::pipeline::Traced>,
    pixel: Vec<String>,
}

fn lane_bit(mask: u128, l: usize) -> bool {
    l < 128 && (mask >> l) & 1 == 1
}

fn mask_text(mask: u128, width: usize) -> String {
    let mut s = String::with_capacity(width + 2);
    s.push_str("0b");
    for l in (0..width).rev() {
        s.push(if lane_bit(mask, l) { '1' } else { '0' });
    }
    s
}

fn inv_text(i: &Invocation) -> String {
    match i {
        Invocation::Thread { group, thread } => format!("group {group}, thread {thread}"),
        other => other.to_string(),
    }
}

impl Debugger {
    /// Runs the target once, recording the wave of the chosen lane, and opens a session
    /// at the lane's first step.
    pub fn open(
        target: Target,
        lane: LaneSelect,
        options: DebugOptions,
    ) -> Result<Debugger, DebugError> {
        let target = target.for_lane(lane)?;
        let place = target.place(lane)?;
        let run = target.run(&place, options.max_record_bytes, None);
        let mut d = Debugger {
            target,
            place,
            options,
            rec: run.record,
            fault: run.fault,
            outputs: run.outputs,
            lane: place.lane,
            lane_steps: Vec::new(),
            steps: Vec::new(),
            pos: 0,
            bps: Vec::new(),
            next_bp: 1,
            elsewhere: Vec::new(),
            notes: Vec::new(),
            traced: run.traced,
            pixel: run.pixel,
        };
        if !d.rec.started {
            let why = d
                .fault
                .as_ref()
                .map_or_else(|| "it never ran".to_string(), ToString::to_string);
            return Err(DebugError::Lane(format!(
                "the lane's group did not run: the dispatch stopped first ({why})"
            )));
        }
        if !lane_bit(d.rec.lanes, d.lane) {
            return Err(DebugError::Lane(
                "the lane does not exist in its wave".into(),
            ));
        }
        if let Some(t) = &d.rec.truncated {
            d.notes.push(format!("note: {t}"));
        }
        if let Some(f) = &d.fault {
            let here = d.fault_is_here();
            d.notes.push(if here {
                format!("note: the run stops at a fault in this wave: {f}")
            } else {
                format!("note: the dispatch ended with an error elsewhere: {f}")
            });
        }
        d.select_lane(place.lane);
        Ok(d)
    }

    fn fault_is_here(&self) -> bool {
        let lane = match &self.fault {
            Some(ExecError::Budget { lane, .. }) | Some(ExecError::Unreachable { lane, .. }) => {
                lane
            }
            _ => return false,
        };
        self.rec.invocations.contains(lane)
    }

    /// The target.
    pub fn target(&self) -> &Target {
        &self.target
    }

    /// The record of the observed wave.
    pub fn record(&self) -> &Record {
        &self.rec
    }

    /// The writable resources' contents after the recorded run.
    pub fn outputs(&self) -> &[Vec<u8>] {
        &self.outputs
    }

    /// The engine error the recorded run ended with.
    pub fn fault(&self) -> Option<&ExecError> {
        self.fault.as_ref()
    }

    /// Notes about the run (truncation, faults) shown when the session opens.
    pub fn notes(&self) -> &[String] {
        &self.notes
    }

    /// The observed lane (in its wave).
    pub fn lane(&self) -> usize {
        self.lane
    }

    /// Source steps the lane ran.
    pub fn len(&self) -> usize {
        self.steps.len()
    }

    /// Whether the lane ran no step.
    pub fn is_empty(&self) -> bool {
        self.steps.is_empty()
    }

    /// The position: source steps executed.
    pub fn position(&self) -> usize {
        self.pos
    }

    fn select_lane(&mut self, lane: usize) {
        self.lane = lane;
        self.lane_steps = (0..self.rec.steps.len() as u32)
            .filter(|&s| lane_bit(self.rec.steps[s as usize].active, lane))
            .collect();
        let view = &self.target.program.view;
        let shader = &self.target.program.debug_shader;
        let mut steps: Vec<SrcStep> = Vec::new();
        let mut last_pos: Option<u64> = None;
        for (i, &s) in self.lane_steps.iter().enumerate() {
            let at = self.rec.steps[s as usize].at;
            let key = view.key(shader, at);
            let ir_pos = match at {
                At::Inst(x) => 2 * u64::from(x.0),
                At::Terminator(b) => shader
                    .blocks
                    .get(b.index())
                    .map_or(0, |bl| (2 * u64::from(bl.end)).saturating_sub(1)),
            };
            let same = match (steps.last(), key) {
                (Some(_), None) => true,
                (Some(prev), Some(k)) => {
                    prev.key == Some(k) && last_pos.is_some_and(|p| ir_pos > p)
                }
                (None, _) => false,
            };
            if same {
                if let Some(p) = steps.last_mut() {
                    p.len += 1;
                }
            } else {
                steps.push(SrcStep {
                    key,
                    first: i as u32,
                    len: 1,
                });
            }
            last_pos = Some(ir_pos);
        }
        self.steps = steps;
        self.pos = self.pos.min(self.steps.len());
    }

    /// The wave step the state at position `p` is taken before.
    fn t(&self, p: usize) -> usize {
        match self.steps.get(p) {
            Some(s) => self.lane_steps[s.first as usize] as usize,
            None => self.rec.steps.len(),
        }
    }

    /// Wave steps of source step `p`.
    fn wave_steps(&self, p: usize) -> &[u32] {
        let s = self.steps[p];
        &self.lane_steps[s.first as usize..(s.first + s.len) as usize]
    }

    fn line_of(&self, key: Option<Key>) -> Option<u32> {
        key.and_then(|k| self.target.program.view.line(k))
    }

    fn step_title(&self, p: usize) -> String {
        let s = self.steps[p];
        let view = &self.target.program.view;
        match (s.key, self.line_of(s.key)) {
            (Some(k), Some(l)) => match view.lang {
                Lang::Ir => format!("line {l}: {}", view.text(l)),
                _ => format!("line {l} (#{}): {}", k.1, view.text(l)),
            },
            _ => {
                let at = self.rec.steps[self.wave_steps(p)[0] as usize].at;
                format!("(no source instruction) {}", self.ir_text(at))
            }
        }
    }

    fn ir_text(&self, at: At) -> String {
        let sh = &self.target.program.debug_shader;
        match at {
            At::Inst(i) => sh
                .insts
                .get(i.index())
                .map_or(String::new(), ToString::to_string),
            At::Terminator(b) => sh
                .blocks
                .get(b.index())
                .map_or(String::new(), |bl| bl.term.to_string()),
        }
    }

    fn inst_at(&self, s: usize) -> Option<&Inst> {
        match self.rec.steps.get(s)?.at {
            At::Inst(i) => self.target.program.debug_shader.insts.get(i.index()),
            At::Terminator(_) => None,
        }
    }

    fn regs_read_at(&self, s: usize) -> Vec<u32> {
        let mut v = Vec::new();
        match self.rec.steps[s].at {
            At::Inst(_) => {
                if let Some(i) = self.inst_at(s) {
                    read_regs(i, &mut v);
                }
            }
            At::Terminator(b) => {
                if let Some(r) = self
                    .target
                    .program
                    .debug_shader
                    .blocks
                    .get(b.index())
                    .and_then(|bl| bl.term.reg())
                {
                    v.push(r.0);
                }
            }
        }
        v
    }

    /// The type lane `l`'s register `r` has before wave step `t`: the declared type, or
    /// the type of the instruction that last wrote it (through bit copies).
    fn type_of(&self, r: u32, t: usize, declared: Ty) -> Ty {
        if declared != Ty::Untyped {
            return declared;
        }
        let (mut r, mut t) = (r, t);
        for _ in 0..16 {
            let Some(s) = self.rec.last_lane_write(Slot::Reg(r), t, self.lane) else {
                return Ty::Untyped;
            };
            let Some(inst) = self.inst_at(s) else {
                return Ty::Untyped;
            };
            match inst {
                Inst::Mov { src, .. } => {
                    r = src.0;
                    t = s;
                    if self.target.program.debug_shader.is_const(*src) {
                        return Ty::Untyped;
                    }
                }
                i => return format::written_type(i),
            }
        }
        Ty::Untyped
    }

    fn reg_name(&self, r: u32, inst: Option<u32>, write: bool) -> Option<(String, Ty)> {
        let view = &self.target.program.view;
        let (v, c) = view.name_for(r, inst, write)?;
        let var = &view.vars[v];
        Some((
            var.component_name(c),
            var.ty.get(c).copied().unwrap_or(Ty::Untyped),
        ))
    }

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

    /// The program's name of input or output word `word` of a graphics stage (DXBC
    /// `v1.x`, `o0.y`; otherwise the semantic, `TEXCOORD0.x`), with its declared type.
    fn io_name(&self, input: bool, word: u32) -> Option<(String, Ty)> {
        let sh = &self.target.program.debug_shader;
        let dxbc = self.target.program.view.lang == Lang::Dxbc;
        let elems = if input { &sh.inputs } else { &sh.outputs };
        let e = elems
            .iter()
            .find(|e| word >= e.slot && u64::from(word - e.slot) < 4 * u64::from(e.rows))?;
        let (r, c) = ((word - e.slot) / 4, (word - e.slot) % 4);
        let comp = ['x', 'y', 'z', 'w'][c as usize];
        let ty = match e.component {
            crate::ir::ComponentType::Float => Ty::Float,
            crate::ir::ComponentType::SInt => Ty::Int,
            _ => Ty::UInt,
        };
        let named = dxbc
            && !matches!(
                e.sv,
                crate::ir::SysValue::Depth
                    | crate::ir::SysValue::DepthGreaterEqual
                    | crate::ir::SysValue::DepthLessEqual
                    | crate::ir::SysValue::Coverage
                    | crate::ir::SysValue::StencilRef
                    | crate::ir::SysValue::VertexId
                    | crate::ir::SysValue::InstanceId
                    | crate::ir::SysValue::PrimitiveId
                    | crate::ir::SysValue::IsFrontFace
                    | crate::ir::SysValue::SampleIndex
            );
        let name = if named {
            format!("{}{}.{comp}", if input { 'v' } else { 'o' }, e.register + r)
        } else if e.rows > 1 {
            format!("{}[{r}].{comp}", e.semantic_name())
        } else {
            format!("{}.{comp}", e.semantic_name())
        };
        Some((name, ty))
    }

    /// Input word of a name the program uses (`v1.x` in DXBC, `TEXCOORD0.x`, `SV_Position.y`).
    fn input_slots(&self, base: &str, comps: &[usize]) -> Option<Vec<(String, Slot, Ty)>> {
        let sh = &self.target.program.debug_shader;
        let mut out = Vec::new();
        for e in &sh.inputs {
            for r in 0..e.rows {
                let w0 = e.word(r, 0);
                let Some((n0, _)) = self.io_name(true, w0 + (e.mask.trailing_zeros() & 3)) else {
                    continue;
                };
                let stem = n0.rsplit_once('.').map_or(n0.as_str(), |(a, _)| a);
                if !stem.eq_ignore_ascii_case(base) {
                    continue;
                }
                let want: Vec<usize> = if comps.is_empty() {
                    (0..4).filter(|c| e.mask >> c & 1 == 1).collect()
                } else {
                    comps.to_vec()
                };
                for c in want {
                    let word = w0 + c as u32;
                    if let Some((name, ty)) = self.io_name(true, word) {
                        out.push((name, Slot::Input(word), ty));
                    }
                }
                return Some(out);
            }
        }
        None
    }

    fn local_name(&self, array: u32, word: u32) -> String {
        let view = &self.target.program.view;
        let name = view
            .locals
            .get(array as usize)
            .cloned()
            .unwrap_or_else(|| format!("x{array}"));
        if view.lang == Lang::Dxbc {
            format!(
                "{name}[{}].{}",
                word / 4,
                ['x', 'y', 'z', 'w'][(word % 4) as usize]
            )
        } else {
            format!("{name}[{word}]")
        }
    }

    fn detail_text(&self, d: &StepDetail) -> String {
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
        s
    }

    fn memory_name(&self, target: WriteTarget, addr: u64, bytes: u32) -> String {
        match target {
            WriteTarget::GroupShared => format!("gs[{}] (byte {addr})", addr / 4),
            WriteTarget::Local(a) => self.local_name(a, (addr / 4) as u32),
            WriteTarget::Resource(b) => {
                let name = self.binding_name(b);
                format!("{name} bytes {addr}..{}", addr + u64::from(bytes))
            }
        }
    }

    fn binding_name(&self, b: Binding) -> String {
        let sh = &self.target.program.shader;
        match b {
            Binding::Range { range, element } => sh.resources.get(range as usize).map_or_else(
                || format!("range {range}"),
                |r| {
                    let mut s = format!("{}{}", r.class.letter(), r.lower + element);
                    if r.space != 0 {
                        let _ = write!(s, ", space{}", r.space);
                    }
                    s
                },
            ),
            Binding::ResourceHeap(i) => format!("heap[{i}]"),
        }
    }

    /// Where the session is, as one line.
    pub fn where_text(&self) -> String {
        let inv = self
            .rec
            .invocations
            .get(self.lane)
            .map_or_else(String::new, inv_text);
        let wave = match self.place.draw {
            Some(TraceAt::Pixel { tile, .. }) => {
                format!("pixel wave {} of tile {tile}", self.place.wave)
            }
            Some(TraceAt::Vertex { .. }) => format!("vertex wave {}", self.place.wave),
            None => format!("wave {}", self.place.wave),
        };
        let helper = match self.rec.steps.first() {
            Some(st) if lane_bit(st.helper, self.lane) => " (a helper lane)",
            _ => "",
        };
        let mut s = format!(
            "lane {} of {wave} ({inv}){helper}, step {} of {}",
            self.lane,
            self.pos,
            self.steps.len()
        );
        if self.pos < self.steps.len() {
            let _ = write!(s, ": next {}", self.step_title(self.pos));
        } else {
            s.push_str(": the lane has finished");
            if self.fault_is_here()
                && let Some(f) = &self.fault
            {
                let _ = write!(s, " — stopped at a fault: {f}");
            }
            if let Some(t) = &self.rec.truncated {
                let _ = write!(s, " — {t}");
            }
        }
        s
    }

    // ---- resolution ------------------------------------------------------------------

    fn unknown(&self, name: &str) -> DebugError {
        let view = &self.target.program.view;
        let mut known: Vec<&str> = view.vars.iter().map(|v| v.name.as_str()).take(8).collect();
        if view.vars.len() > 8 {
            known.push("…");
        }
        DebugError::Command(format!(
            "unknown register or value `{name}` (this program has {}{})",
            known.join(", "),
            match view.lang {
                Lang::Dxbc => "; also cb#[row], x#[i], u#[i], t#[i], gs[word]",
                Lang::Dxil => "; also u#[i], t#[i], gs[word]",
                Lang::Ir => "; also u#[i], gs[word]",
            }
        ))
    }

    fn resolve(&self, p: &PlaceText) -> Result<Resolved, DebugError> {
        let view = &self.target.program.view;
        let var_slots =
            |var: &super::source::Var, comps: &[usize]| -> Result<Resolved, DebugError> {
                let mut out = Vec::new();
                for &c in comps {
                    let r = *var.regs.get(c).ok_or_else(|| {
                        DebugError::Command(format!("{} has no component {c}", var.name))
                    })?;
                    if r == u32::MAX {
                        return Err(DebugError::Command(format!(
                            "{} is not held in registers",
                            var.component_name(c)
                        )));
                    }
                    out.push((
                        var.component_name(c),
                        Slot::Reg(r),
                        var.ty.get(c).copied().unwrap_or(Ty::Untyped),
                    ));
                }
                Ok(Resolved::Slots(out))
            };
        if p.index.is_none() {
            if let Some(v) = view.var(&p.name) {
                let all: Vec<usize> = (0..v.regs.len()).collect();
                return var_slots(v, &all);
            }
            if let Some((base, comps)) = expr::split_swizzle(&p.name)
                && let Some(v) = view.var(base)
            {
                return var_slots(v, &comps);
            }
            let (base, comps) = match expr::split_swizzle(&p.name) {
                Some((b, c)) => (b.to_string(), c),
                None => (p.name.clone(), Vec::new()),
            };
            if let Some(slots) = self.input_slots(&base, &comps) {
                return Ok(Resolved::Slots(slots));
            }
            if view.lang == Lang::Dxil && p.name.starts_with('%') {
                return Err(DebugError::Command(format!(
                    "{} has no registers in the lowered program (a pointer, or a value nothing with an effect reads)",
                    p.name
                )));
            }
            return Err(self.unknown(&p.name));
        }
        let index = p.index.unwrap_or(0);
        if let Some(v) = view.var(&p.name) {
            return var_slots(v, &[index as usize]);
        }
        if p.name == "gs" {
            let words = u64::from(self.target.program.shader.groupshared_bytes).div_ceil(4);
            if index >= words {
                return Err(DebugError::Command(format!(
                    "gs[{index}]: the program has {words} words of group shared memory"
                )));
            }
            return Ok(Resolved::Shared(index));
        }
        if let Some(a) = view.locals.iter().position(|n| *n == p.name) {
            let words = self.rec.local_words.get(a).copied().unwrap_or(0) as u64;
            let dxbc = view.lang == Lang::Dxbc;
            let comps: Vec<usize> = match (&p.swizzle, dxbc) {
                (Some(c), _) => c.clone(),
                (None, true) => vec![0, 1, 2, 3],
                (None, false) => vec![0],
            };
            let mut out = Vec::new();
            for c in comps {
                let word = if dxbc {
                    index * 4 + c as u64
                } else {
                    index + c as u64
                };
                if word >= words {
                    return Err(DebugError::Command(format!(
                        "{}[{index}] is past the end of {} ({words} words)",
                        p.name, p.name
                    )));
                }
                out.push((
                    self.local_name(a as u32, word as u32),
                    Slot::Local(a as u32, word as u32),
                    Ty::Untyped,
                ));
            }
            return Ok(Resolved::Slots(out));
        }
        let (class, num) = match (
            p.name.get(..1),
            p.name.get(1..).and_then(|n| n.parse::<u32>().ok()),
        ) {
            (Some("u"), Some(n)) => (ResourceClass::Uav, n),
            (Some("t"), Some(n)) => (ResourceClass::Srv, n),
            (Some("b"), Some(n)) => (ResourceClass::Cbv, n),
            _ if p.name.starts_with("cb") => (
                ResourceClass::Cbv,
                p.name[2..]
                    .parse::<u32>()
                    .map_err(|_| self.unknown(&p.name))?,
            ),
            _ => return Err(self.unknown(&p.name)),
        };
        let sh = &self.target.program.shader;
        let (k, r) = sh
            .resources
            .iter()
            .enumerate()
            .find(|(_, r)| {
                r.class == class
                    && r.space == 0
                    && num >= r.lower
                    && u64::from(num - r.lower) < u64::from(r.count)
            })
            .ok_or_else(|| {
                DebugError::Command(format!(
                    "the program declares no {}{num} (it declares {})",
                    class.letter(),
                    sh.resources
                        .iter()
                        .map(|r| r.binding_name())
                        .collect::<Vec<_>>()
                        .join(", ")
                ))
            })?;
        let element = num - r.lower;
        let desc = self
            .target
            .bindings
            .ranges
            .get(k)
            .and_then(|v| v.get(element as usize))
            .ok_or_else(|| DebugError::Command(format!("{} is not bound", p.name)))?;
        let binding = Binding::Range {
            range: k as u32,
            element,
        };
        match desc {
            Descriptor::ConstantBuffer {
                memory,
                offset,
                size,
            } => {
                let comps = p.swizzle.clone().unwrap_or_else(|| vec![0, 1, 2, 3]);
                let mut out = Vec::new();
                for c in comps {
                    let b = index * 16 + c as u64 * 4;
                    if b + 4 > *size {
                        return Err(DebugError::Command(format!(
                            "{}[{index}] is past the end of the constant buffer ({size} bytes)",
                            p.name
                        )));
                    }
                    let bits = memory.load_u32(offset + b).unwrap_or(0);
                    out.push((
                        format!("{}[{index}].{}", p.name, ['x', 'y', 'z', 'w'][c]),
                        bits,
                    ));
                }
                Ok(Resolved::Constant(out))
            }
            Descriptor::Buffer { view: bv, .. } => {
                let es = bv.element_size();
                if index >= bv.num_elements {
                    return Err(DebugError::Command(format!(
                        "{}[{index}]: the view has {} elements",
                        p.name, bv.num_elements
                    )));
                }
                let addr = bv.byte_offset() + index * es;
                Ok(Resolved::Resource {
                    name: format!("{}[{index}]", p.name),
                    binding,
                    addr,
                    bytes: es,
                })
            }
            Descriptor::Texture(tv) => {
                let [w, h, _] = tv.mip_size(0);
                let (w, h) = (u64::from(w.max(1)), u64::from(h.max(1)));
                let xyz = [
                    (index % w) as u32,
                    ((index / w) % h) as u32,
                    (index / (w * h)) as u32,
                ];
                let addr = tv.texel_addr_at(0, 0, xyz).ok_or_else(|| {
                    DebugError::Command(format!("{}[{index}] is outside the texture", p.name))
                })?;
                Ok(Resolved::Resource {
                    name: format!("{}[{index}]", p.name),
                    binding,
                    addr,
                    bytes: u64::from(tv.format.bytes_per_texel()),
                })
            }
            _ => Err(DebugError::Command(format!(
                "{} is a sampler or a null descriptor: it has no elements",
                p.name
            ))),
        }
    }

    fn resolve_text(&self, t: &str) -> Result<Resolved, DebugError> {
        let p = expr::parse_place(t).map_err(DebugError::Command)?;
        self.resolve(&p)
    }

    fn resource_bytes(&self, binding: Binding, addr: u64, bytes: u64) -> Vec<u8> {
        let Binding::Range { range, element } = binding else {
            return Vec::new();
        };
        let mem = match self
            .target
            .bindings
            .ranges
            .get(range as usize)
            .and_then(|v| v.get(element as usize))
        {
            Some(Descriptor::Buffer { view, .. }) => view.memory.clone(),
            Some(Descriptor::Texture(v)) => v.texture.memory().clone(),
            _ => return Vec::new(),
        };
        let mut out = vec![0u8; bytes.min(64) as usize];
        mem.read_bytes(addr, &mut out);
        out
    }

    /// A scalar value of a place at the current position (for conditions).
    fn scalar(&self, p: &PlaceText, t: usize) -> Result<Scalar, DebugError> {
        let r = self.resolve(p)?;
        let (bits, ty) = match r {
            Resolved::Slots(v) => {
                if v.len() != 1 {
                    return Err(DebugError::Command(format!(
                        "`{}` has {} components; a condition compares one (`{}.x`)",
                        p.name,
                        v.len(),
                        p.name
                    )));
                }
                let (_, slot, decl) = &v[0];
                let bits = self.rec.value(*slot, t, self.lane);
                let ty = match slot {
                    Slot::Reg(r) => self.type_of(*r, t, *decl),
                    Slot::Local(..) => Ty::Untyped,
                    Slot::Input(_) => *decl,
                };
                (bits, ty)
            }
            Resolved::Constant(v) => {
                if v.len() != 1 {
                    return Err(DebugError::Command(
                        "a condition compares one constant-buffer component (`cb0[1].x`)".into(),
                    ));
                }
                (v[0].1, Ty::Untyped)
            }
            Resolved::Shared(w) => (self.rec.shared_word(w, t), Ty::Untyped),
            Resolved::Resource { .. } => {
                return Err(DebugError::Command(
                    "a condition cannot read a UAV or SRV element (its value at a step is not recorded); watch it instead".into(),
                ));
            }
        };
        let ty = if ty == Ty::Untyped {
            format::guess(bits)
        } else {
            ty
        };
        Ok(match ty {
            Ty::Float => Scalar {
                bits: u64::from(bits),
                float: true,
                signed: false,
            },
            Ty::Half => Scalar {
                bits: u64::from(half::f16::from_bits(bits as u16).to_f32().to_bits()),
                float: true,
                signed: false,
            },
            Ty::Int => Scalar {
                bits: bits as i32 as i64 as u64,
                float: false,
                signed: true,
            },
            _ => Scalar {
                bits: u64::from(bits),
                float: false,
                signed: false,
            },
        })
    }

    fn operand(&self, o: &Operand, t: usize) -> Result<Scalar, DebugError> {
        match o {
            Operand::Number(n) => Ok(Scalar::number(*n)),
            Operand::Place(p) => self.scalar(p, t),
        }
    }

    fn eval(&self, c: &Cond, t: usize) -> Result<bool, DebugError> {
        Ok(match c {
            Cond::Cmp(a, op, b) => expr::compare(*op, self.operand(a, t)?, self.operand(b, t)?),
            Cond::Truthy(a) => {
                let v = self.operand(a, t)?;
                expr::compare(expr::CmpOp::Ne, v, Scalar::number(Number::Int(0)))
            }
            Cond::And(a, b) => self.eval(a, t)? && self.eval(b, t)?,
            Cond::Or(a, b) => self.eval(a, t)? || self.eval(b, t)?,
            Cond::Not(a) => !self.eval(a, t)?,
        })
    }

    // ---- breakpoints -----------------------------------------------------------------

    /// Adds a breakpoint; returns its number.
    pub fn add_breakpoint(&mut self, bp: Breakpoint) -> u32 {
        let id = self.next_bp;
        self.next_bp += 1;
        self.bps.push((id, bp));
        id
    }

    fn bp_text(&self, bp: &Breakpoint) -> String {
        match bp {
            Breakpoint::Line { line, text, .. } => {
                let mut s = format!("line {line}: {}", self.target.program.view.text(*line));
                if !text.is_empty() {
                    let _ = write!(s, " if {text}");
                }
                s
            }
            Breakpoint::Nan => "the first NaN or infinity the lane writes".into(),
            Breakpoint::Write { name, .. } => format!("a write of {name}"),
            Breakpoint::Memory { name, .. } => format!("a write of {name} by any lane"),
        }
    }

    /// Whether breakpoint `bp` stops the lane at position `q` (entering it from `q - 1`);
    /// the reason when it does.
    fn hits(&self, bp: &Breakpoint, q: usize) -> Result<Option<String>, DebugError> {
        match bp {
            Breakpoint::Line { line, cond, .. } => {
                let Some(s) = self.steps.get(q) else {
                    return Ok(None);
                };
                if self.line_of(s.key) != Some(*line) {
                    return Ok(None);
                }
                // Only where the line is entered, not on each IR piece of it.
                if let Some(c) = cond
                    && !self.eval(c, self.t(q))?
                {
                    return Ok(None);
                }
                Ok(Some(String::new()))
            }
            Breakpoint::Nan => {
                let Some(p) = q.checked_sub(1) else {
                    return Ok(None);
                };
                let d = self.detail(p);
                Ok(d.wrote
                    .iter()
                    .find(|v| format::is_nan_or_inf(v.bits, v.ty))
                    .map(|v| {
                        format!(
                            "step {p} wrote {} = {}",
                            v.name,
                            format::value_text(v.bits, v.ty, Fmt::Natural)
                        )
                    }))
            }
            Breakpoint::Write { name, slots } => {
                let Some(p) = q.checked_sub(1) else {
                    return Ok(None);
                };
                for &ws in self.wave_steps(p) {
                    if self
                        .rec
                        .step_writes(ws as usize)
                        .iter()
                        .any(|s| slots.contains(s))
                    {
                        return Ok(Some(format!("step {p} wrote {name}")));
                    }
                }
                Ok(None)
            }
            Breakpoint::Memory {
                target,
                addr,
                bytes,
                name,
            } => {
                let Some(p) = q.checked_sub(1) else {
                    return Ok(None);
                };
                let (from, to) = (self.t(p), self.t(q));
                let hit = |m: &MemWrite| {
                    m.target == *target
                        && m.addr < addr + bytes
                        && m.addr + u64::from(m.bytes) > *addr
                };
                let mut who = Vec::new();
                for s in from..to.min(self.rec.steps.len()) {
                    for m in self.rec.step_mem(s).iter().filter(|m| hit(m)) {
                        who.push(self.writer_text(m));
                    }
                }
                for o in &self.rec.others {
                    if (o.pos as usize) > from && (o.pos as usize) <= to && hit(&o.write) {
                        who.push(self.writer_text(&o.write));
                    }
                }
                if who.is_empty() {
                    Ok(None)
                } else {
                    Ok(Some(format!("{name} written by {}", who.join("; "))))
                }
            }
        }
    }

    /// Where the writes a second run finds come from: a dispatch's other groups (the
    /// lane's own group is in the record), a draw's other waves.
    fn others_word(&self) -> &'static str {
        if self.target.is_draw() {
            "other waves"
        } else {
            "other groups"
        }
    }

    fn writer_text(&self, m: &MemWrite) -> String {
        let me = self.rec.invocations.get(self.lane) == Some(&m.invocation);
        let who = if me {
            "this lane".to_string()
        } else {
            inv_text(&m.invocation)
        };
        let line = self
            .target
            .program
            .view
            .key(&self.target.program.debug_shader, At::Inst(m.inst))
            .and_then(|k| self.target.program.view.line(k))
            .map_or_else(String::new, |l| format!(" at line {l}"));
        format!(
            "{who}{line} (value {})",
            format::value_text(m.value[0], Ty::Untyped, Fmt::Natural)
        )
    }

    /// Runs forward to the next breakpoint (or the end); the reason it stopped.
    pub fn cont(&mut self) -> Result<String, DebugError> {
        let clock = self.clock();
        for q in self.pos + 1..=self.steps.len() {
            if q % 1024 == 0 {
                self.charge_time(&clock, "continue")?;
            }
            for (id, bp) in &self.bps {
                if let Some(why) = self.hits(bp, q)? {
                    self.pos = q;
                    return Ok(self.stop_text(*id, bp, &why));
                }
            }
        }
        self.pos = self.steps.len();
        Ok(self.end_text())
    }

    /// Runs backward to the previous breakpoint (or the start).
    pub fn reverse_cont(&mut self) -> Result<String, DebugError> {
        let clock = self.clock();
        for q in (0..self.pos).rev() {
            if q % 1024 == 0 {
                self.charge_time(&clock, "reverse-continue")?;
            }
            for (id, bp) in &self.bps {
                if let Some(why) = self.hits(bp, q)? {
                    self.pos = q;
                    return Ok(self.stop_text(*id, bp, &why));
                }
            }
        }
        self.pos = 0;
        Ok(format!("at the start\n{}", self.where_text()))
    }

    fn stop_text(&self, id: u32, bp: &Breakpoint, why: &str) -> String {
        let mut s = format!("breakpoint {id}: {}", self.bp_text(bp));
        if !why.is_empty() {
            let _ = write!(s, " — {why}");
        }
        let _ = write!(s, "\n{}", self.where_text());
        s
    }

    fn end_text(&self) -> String {
        let mut s = self.where_text();
        let mems: Vec<&Breakpoint> = self
            .bps
            .iter()
            .map(|(_, b)| b)
            .filter(|b| matches!(b, Breakpoint::Memory { .. }))
            .collect();
        if !mems.is_empty() && !self.elsewhere.is_empty() {
            let _ = write!(s, "\nwatched memory written in {}:", self.others_word());
            for m in self.elsewhere.iter().take(8) {
                let _ = write!(
                    s,
                    "\n    {} by {}",
                    self.memory_name(m.target, m.addr, m.bytes),
                    self.writer_text(m)
                );
            }
            if self.elsewhere.len() > 8 {
                let _ = write!(s, "\n    … and {} more", self.elsewhere.len() - 8);
            }
        }
        s
    }

    // ---- stepping ------------------------------------------------------------------

    /// The start of a command's work, for [`Debugger::charge_time`].
    fn clock(&self) -> std::time::Instant {
        std::time::Instant::now()
    }

    /// Refuses to go on with a command (`what`) that has taken longer than the run's time
    /// limit (`max_seconds`, `--max-seconds`): a command's work charges the same time
    /// budget a run does. Without a limit, nothing is checked.
    fn charge_time(&self, started: &std::time::Instant, what: &str) -> Result<(), DebugError> {
        match self.target.options.limits.max_wall_time {
            Some(max) if started.elapsed() > max => Err(DebugError::Command(format!(
                "`{what}` stopped at step {} of {}: the time limit of {} s (`max_seconds`) is reached",
                self.pos,
                self.steps.len(),
                max.as_secs_f64()
            ))),
            _ => Ok(()),
        }
    }

    /// Runs `n` source steps forward (fewer at the end); what each did.
    pub fn step(&mut self, n: usize) -> String {
        let end = self.pos.saturating_add(n).min(self.steps.len());
        let mut out = String::new();
        if self.pos >= self.steps.len() {
            return self.where_text();
        }
        let shown = end - self.pos;
        for p in self.pos..end {
            if shown <= 16 || p + 3 >= end {
                let _ = writeln!(out, "{}", self.detail_text(&self.detail(p)));
            } else if p == self.pos + 13 {
                let _ = writeln!(out, "… {} steps …", end - 3 - p);
            }
        }
        self.pos = end;
        out.push_str(&self.where_text());
        out
    }

    /// Goes back `n` source steps, restoring the recorded values.
    pub fn back(&mut self, n: usize) -> String {
        self.pos = self.pos.saturating_sub(n);
        self.where_text()
    }

    /// Moves to position `p` directly.
    pub fn goto(&mut self, p: usize) -> String {
        self.pos = p.min(self.steps.len());
        self.where_text()
    }

    fn same_function(a: Key, b: Key) -> bool {
        a.0 == b.0
    }

    /// Runs the current instruction and stops at the next one of the same function that
    /// is after it or is it again (over a call; over one whole iteration of a loop when at
    /// its last instruction).
    pub fn next_over(&mut self) -> String {
        let Some(cur) = self.steps.get(self.pos).and_then(|s| s.key) else {
            return self.step(1);
        };
        for q in self.pos + 1..=self.steps.len() {
            match self.steps.get(q).and_then(|s| s.key) {
                Some(k) if Self::same_function(k, cur) && k.1 >= cur.1 => {
                    self.pos = q;
                    return self.where_text();
                }
                _ if q == self.steps.len() => {}
                _ => continue,
            }
        }
        self.pos = self.steps.len();
        self.where_text()
    }

    /// Runs until the current subroutine returns (in the main program: to the end).
    pub fn finish(&mut self) -> String {
        let Some(cur) = self.steps.get(self.pos).and_then(|s| s.key) else {
            return self.goto(self.steps.len());
        };
        if cur.0 != 0 && self.target.program.view.lang == Lang::Dxbc {
            for q in self.pos + 1..self.steps.len() {
                if self.steps[q].key.is_some_and(|k| k.0 != cur.0) {
                    self.pos = q;
                    return self.where_text();
                }
            }
        }
        self.goto(self.steps.len())
    }

    // ---- inspection ----------------------------------------------------------------

    /// The values of a place at the current position, one line per component.
    pub fn print(&self, t: &str, fmt: Fmt) -> Result<String, DebugError> {
        let time = self.t(self.pos);
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
                self.rec
                    .invocations
                    .get(l)
                    .map_or_else(String::new, inv_text),
                vals.join(", ")
            );
        }
        Ok(s)
    }

    /// The chain of instructions and inputs that produced a value (def-use backwards,
    /// through the lane's own memory writes), `depth` levels deep.
    pub fn why(&self, t: &str, depth: usize) -> Result<String, DebugError> {
        let depth = depth.clamp(1, MAX_WHY_DEPTH);
        let time = self.t(self.pos);
        let slots = match self.resolve_text(t)? {
            Resolved::Slots(v) => v,
            Resolved::Constant(v) => {
                return Ok(v
                    .iter()
                    .map(|(n, b)| {
                        format!(
                            "{n} = {}: a constant buffer value, set by the job",
                            format::value_text(*b, Ty::Untyped, Fmt::Natural)
                        )
                    })
                    .collect::<Vec<_>>()
                    .join("\n"));
            }
            Resolved::Shared(w) => {
                return Ok(self
                    .why_memory(
                        WriteTarget::GroupShared,
                        w * 4,
                        4,
                        time,
                        0,
                        depth,
                        &mut WhyState::default(),
                    )
                    .trim_end()
                    .to_string());
            }
            Resolved::Resource {
                binding,
                addr,
                bytes,
                name,
            } => {
                let s = self.why_memory(
                    WriteTarget::Resource(binding),
                    addr,
                    bytes,
                    time,
                    0,
                    depth,
                    &mut WhyState::default(),
                );
                return Ok(format!("{name}:\n{}", s.trim_end()));
            }
        };
        let mut out = String::new();
        for (name, slot, decl) in slots {
            self.why_slot(
                &mut out,
                &name,
                slot,
                decl,
                time,
                0,
                depth,
                &mut WhyState::default(),
            );
        }
        Ok(out.trim_end().to_string())
    }

    #[allow(clippy::too_many_arguments)]
    fn why_slot(
        &self,
        out: &mut String,
        name: &str,
        slot: Slot,
        decl: Ty,
        time: usize,
        level: usize,
        depth: usize,
        seen: &mut WhyState,
    ) {
        let pad = "  ".repeat(level);
        let bits = self.rec.value(slot, time, self.lane);
        let ty = match slot {
            Slot::Reg(r) => self.type_of(r, time, decl),
            Slot::Local(..) => Ty::Untyped,
            Slot::Input(_) => decl,
        };
        let val = format::value_text(bits, ty, Fmt::Natural);
        let Some(ws) = self.rec.last_lane_write(slot, time, self.lane) else {
            let what = match (self.target.program.view.lang, slot) {
                (_, Slot::Input(_)) => "an input of the lane, from the pipeline".to_string(),
                (Lang::Dxil, _) => "not computed by the lane yet at this point".to_string(),
                (_, Slot::Local(..)) => "never written by the lane yet (arrays start at 0)".into(),
                _ => "never written by the lane yet (registers start at 0)".into(),
            };
            let _ = writeln!(out, "{pad}{name} = {val}: {what}");
            return;
        };
        let p = self.source_step_of(ws);
        let key = p.and_then(|p| self.steps[p].key);
        let title = p.map_or_else(
            || self.ir_text(self.rec.steps[ws].at),
            |p| self.step_title(p),
        );
        let stepno = p.map_or_else(String::new, |p| format!(" [step {p}]"));
        if !seen.shown.insert((slot, ws)) {
            let _ = writeln!(out, "{pad}{name} = {val} ← {title}{stepno} (shown above)");
            return;
        }
        if let Some(k) = key
            && seen.chain.contains(&k)
        {
            let _ = writeln!(
                out,
                "{pad}{name} = {val} ← {title}{stepno} (again: an earlier iteration)"
            );
            return;
        }
        let _ = writeln!(out, "{pad}{name} = {val} ← {title}{stepno}");
        if level + 1 >= depth {
            if level + 1 == depth {
                let _ = writeln!(out, "{pad}  …");
            }
            return;
        }
        if let Some(k) = key {
            seen.chain.push(k);
        }
        self.why_inputs(out, ws, level + 1, depth, seen, 0);
        if key.is_some() {
            seen.chain.pop();
        }
    }

    /// The named inputs of the instruction at wave step `ws` (looking through the
    /// lowering's unnamed scratch registers), and what a load read.
    fn why_inputs(
        &self,
        out: &mut String,
        ws: usize,
        level: usize,
        depth: usize,
        seen: &mut WhyState,
        hops: usize,
    ) {
        let pad = "  ".repeat(level);
        let sh = &self.target.program.debug_shader;
        let inst_index = match (
            self.target.program.view.lang,
            self.source_step_of(ws).and_then(|p| self.steps[p].key),
        ) {
            (Lang::Dxil, Some(k)) => Some(k.1),
            _ => None,
        };
        if let Some(inst) = self.inst_at(ws) {
            match inst {
                Inst::SysValue { .. } | Inst::GroupIndex { .. } => {
                    let _ = writeln!(out, "{pad}(a system value: the lane's thread id)");
                    return;
                }
                Inst::Input { slot, .. } => {
                    if let Some((name, ty)) = self.io_name(true, *slot) {
                        self.why_slot(out, &name, Slot::Input(*slot), ty, ws, level, depth, seen);
                    }
                    return;
                }
                Inst::CbLoad { .. } => {
                    let _ = writeln!(out, "{pad}(loaded from a constant buffer the job binds)");
                }
                Inst::RawLoad { .. } | Inst::StructLoad { .. } | Inst::TypedLoad { .. } => {
                    let _ = writeln!(out, "{pad}(loaded from a resource)");
                }
                Inst::Sample { .. } | Inst::Gather { .. } => {
                    let _ = writeln!(out, "{pad}(sampled from a texture)");
                }
                Inst::SharedLoad { addr, offset, .. } => {
                    let a = u64::from(self.rec.value(Slot::Reg(addr.0), ws, self.lane))
                        + u64::from(*offset);
                    let _ = writeln!(
                        out,
                        "{pad}loaded from gs[{}] (group shared byte {a}):",
                        a / 4
                    );
                    out.push_str(&self.why_memory(
                        WriteTarget::GroupShared,
                        a,
                        4,
                        ws,
                        level + 1,
                        depth,
                        seen,
                    ));
                }
                _ => {}
            }
        }
        let mut reads = self.regs_read_at(ws);
        reads.sort_unstable();
        reads.dedup();
        for r in reads {
            if sh.is_const(crate::ir::Reg(r)) {
                continue;
            }
            match self.reg_name(r, inst_index, false) {
                Some((name, decl)) => {
                    self.why_slot(out, &name, Slot::Reg(r), decl, ws, level, depth, seen);
                }
                None if hops < 8 => {
                    if let Some(w2) = self.rec.last_lane_write(Slot::Reg(r), ws, self.lane) {
                        self.why_inputs(out, w2, level, depth, seen, hops + 1);
                    }
                }
                None => {}
            }
        }
    }

    #[allow(clippy::too_many_arguments)]
    fn why_memory(
        &self,
        target: WriteTarget,
        addr: u64,
        bytes: u64,
        time: usize,
        level: usize,
        depth: usize,
        seen: &mut WhyState,
    ) -> String {
        let pad = "  ".repeat(level);
        let hit = |m: &MemWrite| {
            m.target == target && m.addr < addr + bytes && m.addr + u64::from(m.bytes) > addr
        };
        // The last write before `time`: the wave's own, or another wave's of the group.
        let mut last: Option<(usize, MemWrite)> = None;
        for s in 0..time.min(self.rec.steps.len()) {
            for m in self.rec.step_mem(s) {
                if hit(m) {
                    last = Some((s + 1, m.clone()));
                }
            }
        }
        for o in &self.rec.others {
            if (o.pos as usize) <= time
                && hit(&o.write)
                && last.as_ref().is_none_or(|(p, _)| o.pos as usize >= *p)
            {
                last = Some((o.pos as usize, o.write.clone()));
            }
        }
        let Some((pos, m)) = last else {
            return format!(
                "{pad}not written by the group before this point (its contents from the job)\n"
            );
        };
        let mut s = format!("{pad}stored by {}\n", self.writer_text(&m));
        let mine = self.rec.invocations.get(self.lane) == Some(&m.invocation);
        if mine && level + 1 < depth {
            let ws = pos.saturating_sub(1);
            if let Some(inst) = self.inst_at(ws) {
                let mut srcs = Vec::new();
                read_regs(inst, &mut srcs);
                let _ = inst;
                let mut sub = String::new();
                self.why_inputs(&mut sub, ws, level + 1, depth, seen, 0);
                s.push_str(&sub);
            }
        } else if !mine {
            let _ = writeln!(s, "{pad}  (another lane: debug it with --thread or `diff`)");
        }
        s
    }

    fn source_step_of(&self, ws: usize) -> Option<usize> {
        let i = self.lane_steps.binary_search(&(ws as u32)).ok()?;
        let p = self.steps.partition_point(|s| s.first as usize <= i);
        p.checked_sub(1)
    }

    /// Where this lane's history and lane `other`'s part (both in the recorded wave).
    pub fn diff(&self, other: usize) -> Result<String, DebugError> {
        if !lane_bit(self.rec.lanes, other) {
            return Err(DebugError::Command(format!(
                "lane {other} is not in this wave (lanes 0 to {} exist); `diff thread x,y,z` compares a lane elsewhere",
                self.rec.lanes.count_ones().saturating_sub(1)
            )));
        }
        let mut o = Debugger {
            target: self.target.clone(),
            place: self.place,
            options: self.options,
            rec: self.rec.clone(),
            fault: self.fault.clone(),
            outputs: Vec::new(),
            lane: other,
            lane_steps: Vec::new(),
            steps: Vec::new(),
            pos: 0,
            bps: Vec::new(),
            next_bp: 1,
            elsewhere: Vec::new(),
            notes: Vec::new(),
            traced: self.traced.clone(),
            pixel: Vec::new(),
        };
        o.select_lane(other);
        Ok(self.diff_with(&o, &format!("lane {other}")))
    }

    /// Where this lane's history and another lane's (anywhere in the dispatch: its wave is
    /// recorded by running the dispatch again) part.
    pub fn diff_lane(&self, sel: LaneSelect) -> Result<String, DebugError> {
        let stage = |p: &LanePlace| match p.draw {
            None => 0,
            Some(TraceAt::Pixel { .. }) => 1,
            Some(TraceAt::Vertex { .. }) => 2,
        };
        let place = self.target.place(sel)?;
        if stage(&place) != stage(&self.place) {
            return Err(DebugError::Command(
                "`diff` compares two lanes of the same program: a pixel lane with a pixel, a vertex lane with a vertex".into(),
            ));
        }
        // A draw's lanes are found by drawing (their wave is known only then), so another
        // draw lane is always recorded by drawing again.
        if place.draw.is_none()
            && self.place.draw.is_none()
            && place.group == self.place.group
            && place.wave == self.place.wave
        {
            return self.diff(place.lane);
        }
        let mut o = Debugger::open(self.target.clone(), sel, self.options)?;
        let mut s = self.diff_with(&o, &inv_text(&o.rec.invocations[o.lane]));
        if o.outputs != self.outputs {
            s.push_str("\nnote: the second run ended with different memory: the program is order-dependent through atomics");
        }
        o.pos = 0;
        Ok(s)
    }

    fn diff_with(&self, o: &Debugger, who: &str) -> String {
        let n = self.steps.len().min(o.steps.len());
        let mut first_value: Option<String> = None;
        let mut first_path: Option<String> = None;
        for p in 0..n {
            if self.steps[p].key != o.steps[p].key {
                let prev = p
                    .checked_sub(1)
                    .map_or_else(|| "the start".to_string(), |q| self.step_title(q));
                first_path = Some(format!(
                    "paths part after step {} ({prev}): here next {}, in {who} next {}",
                    p.saturating_sub(1),
                    self.step_title(p),
                    o.step_title(p)
                ));
                break;
            }
            if first_value.is_none() {
                let (a, b) = (self.detail(p), o.detail(p));
                for (x, y) in a.wrote.iter().zip(&b.wrote) {
                    if x.name == y.name && x.bits != y.bits {
                        first_value = Some(format!(
                            "first different value at step {p} ({}): {} = {} here, {} in {who}",
                            self.step_title(p),
                            x.name,
                            format::value_text(x.bits, x.ty, Fmt::Natural),
                            format::value_text(y.bits, y.ty, Fmt::Natural)
                        ));
                        break;
                    }
                }
            }
        }
        if first_path.is_none() && self.steps.len() != o.steps.len() {
            first_path = Some(format!(
                "the same path for {n} steps; then {}",
                if self.steps.len() > n {
                    format!("this lane runs {} more", self.steps.len() - n)
                } else {
                    format!("{who} runs {} more", o.steps.len() - n)
                }
            ));
        }
        let mut s = format!(
            "this lane ran {} steps, {who} ran {}",
            self.steps.len(),
            o.steps.len()
        );
        match (&first_value, &first_path) {
            (None, None) => s.push_str("\nthe same path and the same values throughout"),
            _ => {
                for x in [first_value, first_path].into_iter().flatten() {
                    let _ = write!(s, "\n{x}");
                }
            }
        }
        s
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
                let name = if dxbc {
                    format!("v{}.{letters} ", e.register + r)
                } else {
                    String::new()
                };
                let sem = if e.rows > 1 {
                    format!("{}[{r}]", e.semantic_name())
                } else {
                    e.semantic_name()
                };
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
        format!("inputs of lane {}:{s}", self.lane)
    }

    /// The lane's output words by signature element after its wave ran (DXBC `o0`, DXIL by
    /// semantic), whether it discarded, and the render targets at its pixel after the draw.
    pub fn outputs_text(&self) -> Result<String, DebugError> {
        let Some(t) = &self.traced else {
            return Err(DebugError::Command(
                "`outputs` shows a vertex or pixel lane's outputs; a compute lane writes memory (print u0[i])".into(),
            ));
        };
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

    /// Every register and value the lane has written so far.
    pub fn regs(&self) -> String {
        let time = self.t(self.pos);
        let view = &self.target.program.view;
        let mut out = Vec::new();
        for v in &view.vars {
            let mut parts = Vec::new();
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
                parts.push(format!(
                    "{} = {}",
                    v.component_name(c),
                    format::value_text(bits, ty, Fmt::Natural)
                ));
            }
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

    /// Switches to another lane of the same wave (or quad), keeping the position in
    /// source steps where it can.
    pub fn switch_lane(&mut self, lane: usize) -> Result<String, DebugError> {
        if !lane_bit(self.rec.lanes, lane) {
            return Err(DebugError::Command(format!(
                "lane {lane} is not in this wave (its lanes are 0 to {}); open a new session with --thread for a lane elsewhere",
                self.rec.lanes.count_ones().saturating_sub(1)
            )));
        }
        let t = self.t(self.pos);
        self.select_lane(lane);
        // The first step of the new lane at or after the same wave step.
        self.pos = (0..self.steps.len())
            .find(|&p| self.t(p) >= t)
            .unwrap_or(self.steps.len());
        Ok(self.where_text())
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

    /// Adds a memory watch; writers in other groups (draws: other waves) come from a
    /// second run of the dispatch or draw (checked to end with the same memory).
    fn watch_memory(&mut self, name: String, target: WriteTarget, addr: u64, bytes: u64) -> String {
        let mut note = String::new();
        if let WriteTarget::Resource(b) = target {
            struct Filter {
                b: Binding,
                addr: u64,
                bytes: u64,
                group: [u32; 3],
                draw: Option<TraceAt>,
                hits: std::sync::Mutex<Vec<MemWrite>>,
            }
            impl WriteSink for Filter {
                fn write(&self, w: &MemWrite) {
                    let same_group = matches!(w.invocation, Invocation::Thread { group, .. } if group.0 == self.group);
                    // A binding names a range of the writing stage's program: the other
                    // stage's writes would name another resource by the same numbers.
                    let other_stage = matches!(
                        (self.draw, w.invocation),
                        (Some(TraceAt::Pixel { .. }), Invocation::Vertex { .. })
                            | (Some(TraceAt::Vertex { .. }), Invocation::Pixel { .. })
                    );
                    if w.target == WriteTarget::Resource(self.b)
                        && !same_group
                        && !other_stage
                        && w.addr < self.addr + self.bytes
                        && w.addr + u64::from(w.bytes) > self.addr
                    {
                        let mut h = self.hits.lock().unwrap_or_else(|p| p.into_inner());
                        if h.len() < 1024 {
                            h.push(w.clone());
                        }
                    }
                }
            }
            let f = Filter {
                b,
                addr,
                bytes,
                group: self.place.group,
                draw: self.place.draw,
                hits: std::sync::Mutex::new(Vec::new()),
            };
            let run = self
                .target
                .run(&self.place, self.options.max_record_bytes, Some(&f));
            let mut hits = f.hits.into_inner().unwrap_or_else(|p| p.into_inner());
            hits.sort_by_key(|m| match m.invocation {
                Invocation::Thread { group, thread } => (group.0, thread.0, m.addr),
                _ => ([0; 3], [0; 3], m.addr),
            });
            let others = self.others_word();
            if run.outputs != self.outputs {
                let _ = write!(
                    note,
                    "\nnote: the second run ended with different memory: the program is order-dependent through atomics, and writers in {others} may differ from the recorded run's"
                );
            } else {
                let _ = write!(
                    note,
                    "\n(a second run found the writers in {others}; it ended with the same memory)"
                );
            }
            if !hits.is_empty() {
                let _ = write!(
                    note,
                    "\n{} write(s) by lanes of {others} (listed when the lane finishes)",
                    hits.len()
                );
            }
            self.elsewhere.extend(hits);
        }
        let id = self.add_breakpoint(Breakpoint::Memory {
            name: name.clone(),
            target,
            addr,
            bytes,
        });
        format!("watch {id}: a write of {name} by any lane{note}")
    }

    // ---- text commands ---------------------------------------------------------------

    /// Runs one text command (see `help`) and returns what it prints.
    pub fn execute(&mut self, line: &str) -> Result<String, DebugError> {
        let line = line.trim();
        let (cmd, rest) = match line.split_once(char::is_whitespace) {
            Some((c, r)) => (c, r.trim()),
            None => (line, ""),
        };
        let (cmd, fmt) = match cmd.split_once('/') {
            Some((c, f)) => {
                let mut chars = f.chars();
                let fmt = match (chars.next().and_then(Fmt::from_letter), chars.next()) {
                    (Some(x), None) => x,
                    _ => {
                        return Err(DebugError::Command(format!(
                            "unknown format `/{f}` (x, f, i, u, h)"
                        )));
                    }
                };
                (c, fmt)
            }
            None => (cmd, Fmt::Natural),
        };
        let count = |rest: &str| -> Result<usize, DebugError> {
            if rest.is_empty() {
                return Ok(1);
            }
            rest.parse::<usize>()
                .map_err(|_| DebugError::Command(format!("`{rest}` is not a count")))
        };
        let need = |rest: &str, what: &str| -> Result<(), DebugError> {
            if rest.is_empty() {
                Err(DebugError::Command(format!("`{cmd}` needs {what}")))
            } else {
                Ok(())
            }
        };
        match cmd {
            "" => Ok(String::new()),
            "help" | "h" | "?" => Ok(HELP.trim_end().to_string()),
            "step" | "s" | "stepi" | "si" => Ok(self.step(count(rest)?)),
            "next" | "n" => {
                // Stops at the end of the lane (a count past it does no more), and
                // charges the run's time budget as it goes.
                let n = count(rest)?;
                let clock = self.clock();
                let mut s = String::new();
                for i in 0..n {
                    if self.pos >= self.steps.len() && i > 0 {
                        break;
                    }
                    self.charge_time(&clock, "next")?;
                    s = self.next_over();
                }
                Ok(s)
            }
            "finish" | "fin" => Ok(self.finish()),
            "continue" | "c" | "cont" => self.cont(),
            "back" | "b" | "reverse-step" | "rs" => Ok(self.back(count(rest)?)),
            "reverse-continue" | "rc" => self.reverse_cont(),
            "goto" => {
                need(rest, "a step number")?;
                let p = rest
                    .parse::<usize>()
                    .map_err(|_| DebugError::Command(format!("`{rest}` is not a step number")))?;
                Ok(self.goto(p))
            }
            "where" | "w" | "info" => Ok(self.where_text()),
            "list" | "l" => {
                let at = if rest.is_empty() {
                    None
                } else {
                    Some(self.parse_line(rest)?)
                };
                Ok(self.list(at))
            }
            "print" | "p" => {
                need(rest, "a register or value (`print r0`)")?;
                let mut out = Vec::new();
                for t in rest.split(',') {
                    out.push(self.print(t.trim(), fmt)?);
                }
                Ok(out.join("\n"))
            }
            "regs" | "registers" => Ok(self.regs()),
            "inputs" => Ok(self.inputs()),
            "outputs" => self.outputs_text(),
            "wave" => {
                need(rest, "a register or value (`wave r0.x`)")?;
                self.wave(rest)
            }
            "why" => {
                need(rest, "a register or value (`why r0.x`)")?;
                let (what, depth) = match rest.rsplit_once(char::is_whitespace) {
                    Some((a, d)) if d.parse::<usize>().is_ok() => {
                        (a.trim(), d.parse::<usize>().unwrap_or(6))
                    }
                    _ => (rest, 6),
                };
                self.why(what, depth)
            }
            "diff" => {
                need(
                    rest,
                    "a lane (`diff 3`), a thread (`diff thread 1,0,0`), a pixel (`diff pixel 3,4`) or a vertex (`diff vertex 2`)",
                )?;
                if let Some(t) = rest.strip_prefix("thread") {
                    let xyz = parse_xyz(t.trim())?;
                    self.diff_lane(LaneSelect::Thread(xyz))
                } else if let Some(t) = rest.strip_prefix("pixel") {
                    self.diff_lane(parse_pixel(t.trim())?)
                } else if let Some(t) = rest.strip_prefix("vertex") {
                    self.diff_lane(parse_vertex(t.trim())?)
                } else {
                    let l = rest
                        .parse::<usize>()
                        .map_err(|_| DebugError::Command(format!("`{rest}` is not a lane")))?;
                    self.diff(l)
                }
            }
            "lane" => {
                need(rest, "a lane of this wave (`lane 3`)")?;
                let l = rest
                    .parse::<usize>()
                    .map_err(|_| DebugError::Command(format!("`{rest}` is not a lane")))?;
                self.switch_lane(l)
            }
            "break" | "br" => {
                need(rest, "a line (`break 17`), `#index`, `nan`, or `… if COND`")?;
                let (at, cond) = match rest.split_once(" if ") {
                    Some((a, c)) => (a.trim(), Some(c.trim())),
                    None => (rest, None),
                };
                if at == "nan" || at == "inf" {
                    if cond.is_some() {
                        return Err(DebugError::Command("`break nan` takes no condition".into()));
                    }
                    let id = self.add_breakpoint(Breakpoint::Nan);
                    return Ok(format!(
                        "breakpoint {id}: the first NaN or infinity the lane writes"
                    ));
                }
                let line = self.parse_line(at)?;
                let parsed = match cond {
                    Some(c) => {
                        let p = expr::parse_cond(c).map_err(DebugError::Command)?;
                        // Resolve the names now, so that a typo fails here.
                        self.eval(&p, self.t(self.pos))?;
                        Some(p)
                    }
                    None => None,
                };
                let bp = Breakpoint::Line {
                    line,
                    cond: parsed,
                    text: cond.unwrap_or("").to_string(),
                };
                let text = self.bp_text(&bp);
                let id = self.add_breakpoint(bp);
                Ok(format!("breakpoint {id}: {text}"))
            }
            "watch" => {
                need(
                    rest,
                    "a register, value or memory element (`watch r1.x`, `watch u0[5]`)",
                )?;
                match self.resolve_text(rest)? {
                    Resolved::Slots(v) => {
                        let slots = v.iter().map(|x| x.1).collect();
                        let id = self.add_breakpoint(Breakpoint::Write {
                            name: rest.to_string(),
                            slots,
                        });
                        Ok(format!("watch {id}: a write of {rest} by the lane"))
                    }
                    Resolved::Shared(w) => {
                        Ok(self.watch_memory(rest.to_string(), WriteTarget::GroupShared, w * 4, 4))
                    }
                    Resolved::Resource {
                        binding,
                        addr,
                        bytes,
                        ..
                    } => Ok(self.watch_memory(
                        rest.to_string(),
                        WriteTarget::Resource(binding),
                        addr,
                        bytes,
                    )),
                    Resolved::Constant(_) => Err(DebugError::Command(
                        "constant buffers are never written: nothing to watch".into(),
                    )),
                }
            }
            "delete" | "d" => {
                if rest.is_empty() {
                    let n = self.bps.len();
                    self.bps.clear();
                    return Ok(format!("deleted {n} breakpoint(s)"));
                }
                let id = rest.parse::<u32>().map_err(|_| {
                    DebugError::Command(format!("`{rest}` is not a breakpoint number"))
                })?;
                let before = self.bps.len();
                self.bps.retain(|(i, _)| *i != id);
                if self.bps.len() == before {
                    return Err(DebugError::Command(format!("there is no breakpoint {id}")));
                }
                Ok(format!("deleted breakpoint {id}"))
            }
            "breakpoints" | "bps" => {
                if self.bps.is_empty() {
                    return Ok("no breakpoints".into());
                }
                Ok(self
                    .bps
                    .iter()
                    .map(|(id, b)| format!("{id}: {}", self.bp_text(b)))
                    .collect::<Vec<_>>()
                    .join("\n"))
            }
            other => Err(DebugError::Command(format!(
                "unknown command `{other}` (try `help`)"
            ))),
        }
    }

    /// A listing line (`17`) or an instruction index (`#15`); an error when no
    /// instruction is there.
    fn parse_line(&self, t: &str) -> Result<u32, DebugError> {
        let view = &self.target.program.view;
        if let Some(i) = t.strip_prefix('#') {
            let i = i
                .parse::<u32>()
                .map_err(|_| DebugError::Command(format!("`{t}` is not an instruction index")))?;
            let mut keys: Vec<(&Key, &u32)> =
                view.key_line.iter().filter(|(k, _)| k.1 == i).collect();
            keys.sort();
            return keys.first().map(|(_, l)| **l).ok_or_else(|| {
                DebugError::Command(format!("the program has no instruction #{i}"))
            });
        }
        let l = t
            .parse::<u32>()
            .map_err(|_| DebugError::Command(format!("`{t}` is not a line number")))?;
        if view.keys_on_line(l).is_empty() {
            return Err(DebugError::Command(format!(
                "line {l} holds no instruction{}",
                if l as usize > view.lines.len() {
                    format!(" (the listing has {} lines)", view.lines.len())
                } else {
                    format!(": `{}`", view.text(l))
                }
            )));
        }
        // A line the lowering made nothing for (a declaration) cannot be reached.
        let sh = &self.target.program.debug_shader;
        let reachable = (0..sh.insts.len() as u32)
            .map(|i| At::Inst(crate::ir::InstId(i)))
            .chain((0..sh.blocks.len() as u32).map(|b| At::Terminator(crate::ir::BlockId(b))))
            .any(|at| view.key(sh, at).and_then(|k| view.line(k)) == Some(l));
        if !reachable {
            return Err(DebugError::Command(format!(
                "line {l} (`{}`) runs nothing: a declaration or an instruction the lowering needs no code for",
                view.text(l)
            )));
        }
        Ok(l)
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

/// `x,y [sample n] [prim k]`: a pixel-program lane of a draw (`diff pixel`).
fn parse_pixel(t: &str) -> Result<LaneSelect, DebugError> {
    let mut words = t.split_whitespace();
    let xy = words.next().unwrap_or("");
    let parts: Vec<&str> = xy.split(',').map(str::trim).collect();
    let num = |p: &str, what: &str| {
        p.parse::<u32>()
            .map_err(|_| DebugError::Command(format!("`{p}` is not {what}")))
    };
    let [x, y] = parts[..] else {
        return Err(DebugError::Command(format!(
            "`{xy}` is not a pixel x,y (`diff pixel 3,4 [sample n] [prim k]`)"
        )));
    };
    let (x, y) = (num(x, "a pixel x")?, num(y, "a pixel y")?);
    let (mut sample, mut prim) = (0, 0);
    while let Some(key) = words.next() {
        let v = words.next().unwrap_or("");
        match key {
            "sample" => sample = num(v, "a sample number")?,
            "prim" => prim = num(v, "a primitive number")?,
            _ => {
                return Err(DebugError::Command(format!(
                    "`{key}`: after the pixel come `sample n` and `prim k`"
                )));
            }
        }
    }
    Ok(LaneSelect::Pixel { x, y, sample, prim })
}

/// `n [instance i]`: a vertex-program lane of a draw (`diff vertex`).
fn parse_vertex(t: &str) -> Result<LaneSelect, DebugError> {
    let mut words = t.split_whitespace();
    let num = |p: &str, what: &str| {
        p.parse::<u32>()
            .map_err(|_| DebugError::Command(format!("`{p}` is not {what}")))
    };
    let vertex = num(words.next().unwrap_or(""), "a vertex number")?;
    let mut instance = 0;
    while let Some(key) = words.next() {
        let v = words.next().unwrap_or("");
        match key {
            "instance" => instance = num(v, "an instance number")?,
            _ => {
                return Err(DebugError::Command(format!(
                    "`{key}`: after the vertex comes `instance i`"
                )));
            }
        }
    }
    Ok(LaneSelect::Vertex { vertex, instance })
}

/// `x,y,z` (spaces allowed).
pub fn parse_xyz(t: &str) -> Result<[u32; 3], DebugError> {
    let parts: Vec<&str> = t.split(',').map(str::trim).collect();
    if parts.len() != 3 {
        return Err(DebugError::Command(format!("`{t}` is not x,y,z")));
    }
    let mut v = [0u32; 3];
    for (k, p) in parts.iter().enumerate() {
        v[k] = p
            .parse()
            .map_err(|_| DebugError::Command(format!("`{p}` in `{t}` is not a number")))?;
    }
    Ok(v)
}

const HELP: &str = "
commands (a script separates them with `;` or new lines; `#` starts a comment):
  step [N], s          run N source instructions, printing what each read and wrote
  next [N], n          step over a call; at a loop's last instruction, over one whole iteration
  finish               run until the current subroutine returns (main program: to the end)
  continue, c          run to the next breakpoint or the end
  back [N], b          go back N steps (recorded values; nothing is re-run)
  reverse-continue, rc go back to the previous breakpoint or the start
  goto N               go to step N
  where, w             where the lane is
  list [LINE], l       the listing around the next instruction, and what the last one did
  print[/x|f|i|u|h] P  values: r3, r3.xy, vThreadID.x, %42, %name, cb0[2].y, x0[1], u0[5], gs[3]
  regs                 every register or value the lane has written so far
  wave P               one value across the lanes of the wave, with the active and helper masks
  inputs               the lane's inputs by signature element (v1.xy, SV_Position, …)
  outputs              a vertex or pixel lane's outputs (o0, SV_Target) and the targets after the draw
  why P [DEPTH]        the instructions and inputs that produced a value
  diff LANE            where this lane and lane LANE of the wave part; any other lane:
                       diff thread x,y,z | diff pixel x,y [sample n] [prim k] | diff vertex n
  lane N               switch to lane N of the wave
  break LINE [if COND] stop before the lane runs LINE (or #INDEX); COND like `r0.x > 4 && %3 == 0`
  break nan            stop after the lane first writes a NaN or an infinity
  watch P              stop after the lane writes a register or value, or any lane writes u0[5] / gs[3]
  breakpoints, delete [N]
  help";
