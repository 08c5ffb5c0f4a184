//! The session: a lane's steps over a record, breakpoints, inspection, and the text
//! commands of scripts and the prompt.
//!
//! [`Debugger`] is one session; its methods are grouped by what they are about, one
//! module each:
//!
//! - this module: opening the session (running the target once, recording the lane's
//!   wave), the lane's source steps over the record, positions, and where the lane is;
//! - `resolve`: what a name in a command means at a position — registers, values,
//!   inputs, arrays, constant buffers, UAV and SRV elements, group shared words — and
//!   conditions over them;
//! - `step`: moving over the record (`step`, `next`, `finish`, `back`, `goto`,
//!   `continue`, `reverse-continue`);
//! - `breakpoint`: breakpoints and watches, and what stops `continue` there;
//! - `inspect`: what a step read and wrote, values (`print`, `regs`, `wave`), the
//!   listing, a pixel or vertex lane's inputs and outputs, the trace file;
//! - `source_level`: with HLSL debug info, steps by line, breakpoints by `FILE:LINE`,
//!   the HLSL source, inlined frames and HLSL variables;
//! - `rays` and `nested`: a ray-generation lane's calls, and stepping inside the
//!   programs they ran;
//! - `why`: the chain of instructions and inputs behind a value;
//! - `diff`: where two lanes' histories part;
//! - `command`: the text commands, parsed and run.

use std::fmt::Write as _;

use crate::exec::{At, ExecError, Invocation, MemWrite};
use crate::ir::Inst;

use super::record::{Record, read_regs};
use super::source::{Key, Lang};
use super::target::{LanePlace, LaneSelect, Target};
use super::{DebugError, DebugOptions};
use crate::pipeline::TraceAt;

mod breakpoint;
mod chain;
mod command;
mod diff;
mod inspect;
mod nested;
mod rays;
mod resolve;
mod scopes;
mod source_level;
mod step;
mod why;

pub use breakpoint::Breakpoint;
pub use command::parse_xyz;
pub use inspect::{StepDetail, ValueLine};
pub use scopes::{MAX_SCOPE_VALUES, Scope, ScopeValue};
pub use source_level::{HlslMember, LineMove};
pub use why::MAX_WHY_DEPTH;

/// One source step of the lane: a run of its IR steps (indices into `lane_steps`).
#[derive(Debug, Clone, Copy)]
struct SrcStep {
    key: Option<Key>,
    first: u32,
    len: u32,
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
    /// A pixel lane: the lane that made its primitive's leading vertex.
    origin: Option<LaneSelect>,
    /// A pixel lane of a mesh draw: its primitive's mesh group and place, and the
    /// threads that wrote it.
    mesh_origin: Option<(
        crate::pipeline::ms::MeshPrimOrigin,
        Option<crate::pipeline::ms::MeshWriters>,
    )>,
    /// A geometry, hull or domain lane: the lanes that made its inputs, one stage up.
    input_origins: Option<crate::debug::target::InputOrigins>,
    /// A ray-generation lane: every program its wave's `TraceRay` and `CallShader` ran.
    nested: Vec<crate::pipeline::rays::NestedRun>,
    /// A ray-generation lane: the steps of the programs it invoked, laid out with its
    /// own (`nested`).
    nest: Option<Box<nested::Nest>>,
}

fn lane_bit(mask: u128, l: usize) -> bool {
    l < 128 && (mask >> l) & 1 == 1
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
        let mut run = target.run(&place, options.max_record_bytes, None);
        let records = std::mem::take(&mut run.nested_records);
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
            origin: run.origin,
            mesh_origin: run.mesh_origin,
            input_origins: run.input_origins,
            nested: run.nested,
            nest: None,
        };
        if !d.rec.started {
            // A geometry lane past the tessellator's primitives, or a domain point past
            // the patch's, is known only once the draw has run.
            let stage = match place.draw {
                Some(TraceAt::Geometry { .. }) => {
                    Some("the geometry stage has no such input primitive in that draw instance")
                }
                Some(TraceAt::Domain { .. }) => Some(
                    "the tessellator made fewer domain points for that patch, or culled it (`dxlane tessellate` lists them)",
                ),
                Some(TraceAt::Hull { .. }) => Some("the hull stage ran no such lane"),
                Some(TraceAt::Mesh { .. }) => Some("the draw ran no such mesh group"),
                Some(TraceAt::Amplification { .. }) => {
                    Some("the draw ran no such amplification group")
                }
                _ => None,
            };
            if let (Some(s), None) = (stage, &d.fault) {
                return Err(DebugError::Lane(format!("the lane never ran: {s}")));
            }
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
        if let Some(n) = &d.target.program.view.hlsl_note {
            d.notes.push(format!("note: {n}"));
        }
        if let Some(f) = &d.fault {
            let here = d.fault_is_here();
            d.notes.push(if here {
                format!("note: the run stops at a fault in this wave: {f}")
            } else {
                format!("note: the dispatch ended with an error elsewhere: {f}")
            });
        }
        // The program's own breakpoints: `continue` stops at each as at one the user set.
        for (key, kind) in d.target.program.view.breaks.clone() {
            d.add_breakpoint(Breakpoint::Program { key, kind });
        }
        d.select_lane(place.lane);
        d.build_nest(records);
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

    /// Draws: what the traced wave did (its lanes and output words).
    pub fn traced(&self) -> Option<&crate::pipeline::Traced> {
        self.traced.as_ref()
    }

    /// The lane's last write of a resource, through any of `bindings`, that touches
    /// bytes `addr .. addr + bytes` of its memory: the source step that made it and the
    /// write (its bytes after the instruction). `None` when the lane made none.
    pub fn last_memory_write(
        &self,
        bindings: &[crate::exec::Binding],
        addr: u64,
        bytes: u64,
    ) -> Option<(usize, crate::exec::MemWrite)> {
        let mut found = None;
        for p in 0..self.steps.len() {
            for &ws in self.wave_steps(p) {
                for m in self.rec.step_mem(ws as usize) {
                    let hit = m.lane as usize == self.lane
                        && matches!(m.target, crate::exec::WriteTarget::Resource(b) if bindings.contains(&b))
                        && m.addr < addr.saturating_add(bytes)
                        && addr < m.addr.saturating_add(u64::from(m.bytes));
                    if hit {
                        found = Some((p, m.clone()));
                    }
                }
            }
        }
        found
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

    /// Adds a note to those shown when the session opens.
    pub fn add_note(&mut self, note: String) {
        self.notes.push(note);
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

    fn source_step_of(&self, ws: usize) -> Option<usize> {
        let i = self.lane_steps.binary_search(&(ws as u32)).ok()?;
        let p = self.steps.partition_point(|s| s.first as usize <= i);
        p.checked_sub(1)
    }

    fn line_of(&self, key: Option<Key>) -> Option<u32> {
        key.and_then(|k| self.target.program.view.line(k))
    }

    fn step_title(&self, p: usize) -> String {
        let s = self.steps[p];
        let view = &self.target.program.view;
        if let Some(t) = self.frames_at(p).and_then(|f| self.hlsl_title(f)) {
            return match (s.key, self.line_of(s.key)) {
                (Some(k), Some(l)) => {
                    format!("{t} — listing line {l} (#{}): {}", k.1, view.text(l))
                }
                _ => t,
            };
        }
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

    /// Lane `l`'s invocation as the session names it: a geometry, hull or domain lane by
    /// the ids its stage gives it (the stage puts them where a compute lane's thread id
    /// goes: `gs`, `hs`, `ds`), others as `inv_text`.
    pub(crate) fn lane_text(&self, l: usize) -> String {
        let Some(i) = self.rec.invocations.get(l) else {
            return String::new();
        };
        // A ray-generation lane is named by its launch index, which its place gives.
        if let Some(TraceAt::Ray { wave, dims }) = self.place.draw {
            let [x, y, z] = crate::pipeline::rays::launch_index(
                wave.saturating_mul(u64::from(self.place.wave_size))
                    .saturating_add(l as u64),
                dims,
            );
            return format!("ray generation of DispatchRaysIndex ({x}, {y}, {z})");
        }
        let ids = match i {
            Invocation::Thread { thread, .. } => thread.0,
            other => return inv_text(other),
        };
        let inst = |n: u32| format!(", draw instance {n}");
        match self.place.draw {
            Some(TraceAt::Geometry { instance, .. }) => format!(
                "geometry primitive with SV_PrimitiveID {}, SV_GSInstanceID {}{}",
                ids[0],
                ids[1],
                inst(instance)
            ),
            Some(TraceAt::Hull {
                instance,
                point: Some(_),
                ..
            }) => format!(
                "hull patch {}, control point {}{}",
                ids[0],
                ids[1],
                inst(instance)
            ),
            Some(TraceAt::Hull {
                instance,
                join: true,
                ..
            }) => {
                format!("hull patch {}, join phase{}", ids[0], inst(instance))
            }
            Some(TraceAt::Hull { instance, .. }) => {
                format!("hull patch {}, patch constants{}", ids[0], inst(instance))
            }
            Some(TraceAt::Domain { instance, .. }) => format!(
                "domain patch {}, domain point {}{}",
                ids[0],
                ids[1],
                inst(instance)
            ),
            Some(TraceAt::Mesh {
                launch: Some(l), ..
            }) => format!(
                "mesh {}, launched by amplification group ({}, {}, {})",
                inv_text(i),
                l[0],
                l[1],
                l[2]
            ),
            Some(TraceAt::Mesh { .. }) => format!("mesh {}", inv_text(i)),
            Some(TraceAt::Amplification { .. }) => format!("amplification {}", inv_text(i)),
            _ => inv_text(i),
        }
    }

    /// A pixel lane of a draw with a geometry or domain program: the lane one stage up
    /// that made its primitive's leading vertex — the geometry or domain lane whose
    /// outputs the lane's inputs come from (with the primitive's other vertices) — with
    /// the flags that open it.
    pub fn origin_text(&self) -> Option<String> {
        if let Some((o, w)) = &self.mesh_origin {
            return Some(mesh_origin_text(o, w.as_ref(), self.target.view()));
        }
        // Named for the geometry and domain stages, whose lanes a pixel's position does
        // not lead to otherwise; a vertex-and-pixel draw's sessions read as they always
        // have.
        match self.origin? {
            sel @ (LaneSelect::Geometry { .. } | LaneSelect::Domain { .. }) => {
                crate::job::writers::made_by("the primitive's leading vertex", &sel, None)
            }
            _ => None,
        }
    }

    /// Where the session is, as one line.
    pub fn where_text(&self) -> String {
        if let Some(k) = self.current_sub() {
            return self.nested_where(k);
        }
        let mut inv = self.lane_text(self.lane);
        if let Some(v) = self.target.view() {
            let _ = write!(inv, ", view {v}");
        }
        let wave = match self.place.draw {
            Some(TraceAt::Pixel { tile, .. }) => {
                format!("pixel wave {} of tile {tile}", self.place.wave)
            }
            Some(TraceAt::Vertex { .. }) => format!("vertex wave {}", self.place.wave),
            Some(TraceAt::Geometry { .. }) => format!("geometry wave {}", self.place.wave),
            Some(TraceAt::Hull { point: Some(_), .. }) => {
                format!("hull control-point wave {}", self.place.wave)
            }
            Some(TraceAt::Hull { join: true, .. }) => {
                format!("hull join-phase wave {}", self.place.wave)
            }
            Some(TraceAt::Hull { .. }) => format!("hull patch-constant wave {}", self.place.wave),
            Some(TraceAt::Domain { .. }) => format!("domain wave {}", self.place.wave),
            Some(TraceAt::Mesh { .. }) => format!("mesh wave {}", self.place.wave),
            Some(TraceAt::Amplification { .. }) => {
                format!("amplification wave {}", self.place.wave)
            }
            Some(TraceAt::Ray { .. }) => format!("ray-generation wave {}", self.place.wave),
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
}

fn xyz_paren(v: [u32; 3]) -> String {
    format!("({}, {}, {})", v[0], v[1], v[2])
}

/// A mesh-drawn pixel's primitive: the mesh group and primitive it came from, and the
/// mesh lanes that wrote its indices and per-primitive outputs and each of its vertices'
/// outputs, each with the flags that open it (with `--view N` when the session watches
/// one view of a view-instanced draw).
fn mesh_origin_text(
    o: &crate::pipeline::ms::MeshPrimOrigin,
    w: Option<&crate::pipeline::ms::MeshWriters>,
    view: Option<u32>,
) -> String {
    let view = view.map(|v| format!(" --view {v}")).unwrap_or_default();
    let flags = |t: [u32; 3]| {
        let launch = o
            .launch
            .map(|l| format!("--as-group {},{},{} ", l[0], l[1], l[2]))
            .unwrap_or_default();
        format!(
            "{launch}--ms-group {},{},{} --ms-thread {},{},{}{view}",
            o.group[0], o.group[1], o.group[2], t[0], t[1], t[2]
        )
    };
    let lanes = |list: &[[u32; 3]]| {
        if list.is_empty() {
            return "no thread".to_string();
        }
        list.iter()
            .map(|&t| format!("thread {} ({})", xyz_paren(t), flags(t)))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let launched = o
        .launch
        .map(|l| format!(", launched by amplification group {}", xyz_paren(l)))
        .unwrap_or_default();
    let mut s = format!(
        "the primitive is primitive {} of mesh group {}{launched}",
        o.prim,
        xyz_paren(o.group)
    );
    match w {
        Some(w) => {
            let _ = write!(
                s,
                "; its indices and per-primitive outputs were written by {}",
                lanes(&w.primitive)
            );
            for (v, list) in &w.vertices {
                let _ = write!(s, "; its vertex {v} by {}", lanes(list));
            }
        }
        None => s.push_str(
            " (the mesh lanes that wrote it could not be found: the group fails when run again)",
        ),
    }
    s
}
