//! Breakpoints and watches: where `continue` and `reverse-continue` stop, and the
//! writers a memory watch finds in other groups (on a draw, other waves) by running the
//! target again.

use std::fmt::Write as _;

use crate::exec::{At, Binding, Invocation, MemWrite, WriteSink, WriteTarget};
use crate::ir::Stage;

use super::{Debugger, inv_text};
use crate::debug::DebugError;
use crate::debug::expr::Cond;
use crate::debug::format::{self, Fmt, Ty};
use crate::debug::record::Slot;
use crate::debug::source::ProgramBreak;
use crate::pipeline::TraceAt;

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
    /// Where the lane enters an HLSL line (programs with debug info), when the condition
    /// holds.
    Source {
        /// The file, as the program spells it.
        file: String,
        /// The line.
        line: u32,
        /// The condition.
        cond: Option<Cond>,
        /// Its text.
        text: String,
    },
    /// Before the lane runs an instruction that stops a debugger by itself (DXIL
    /// `DebugBreak()`, DXBC `debug_break` and `abort`): set by the session when it opens,
    /// one per such instruction.
    Program {
        /// The instruction.
        key: crate::debug::source::Key,
        /// Which.
        kind: ProgramBreak,
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
    /// Before the lane runs a line of the listing of a program it invoked (a ray
    /// pipeline's export: `break closest_hit:12`), in any run of that program.
    Nested {
        /// The programs (indices into `RaysWork::programs`) with that export's name.
        programs: Vec<usize>,
        /// The export's name.
        name: String,
        /// The breakpoint in the program's own terms (a line).
        inner: Box<Breakpoint>,
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

impl Debugger {
    /// Adds a breakpoint; returns its number.
    pub fn add_breakpoint(&mut self, bp: Breakpoint) -> u32 {
        let id = self.next_bp;
        self.next_bp += 1;
        self.bps.push((id, bp));
        id
    }

    /// The breakpoints the program set by itself ([`Breakpoint::Program`]), with which
    /// instruction each is.
    pub fn program_breakpoints(&self) -> Vec<(u32, ProgramBreak)> {
        self.bps
            .iter()
            .filter_map(|(i, b)| match b {
                Breakpoint::Program { kind, .. } => Some((*i, *kind)),
                _ => None,
            })
            .collect()
    }

    pub(super) fn bp_text(&self, bp: &Breakpoint) -> String {
        match bp {
            Breakpoint::Line { line, text, .. } => {
                let mut s = format!("line {line}: {}", self.target.program.view.text(*line));
                if !text.is_empty() {
                    let _ = write!(s, " if {text}");
                }
                s
            }
            Breakpoint::Source {
                file, line, text, ..
            } => {
                let mut s = format!("line {line} of {file}");
                if let Some(t) = self.source_text(file, *line) {
                    let _ = write!(s, ": {t}");
                }
                if !text.is_empty() {
                    let _ = write!(s, " if {text}");
                }
                s
            }
            Breakpoint::Program { key, kind } => {
                let view = &self.target.program.view;
                let name = kind.name(view.lang);
                let line = view
                    .line(*key)
                    .map_or_else(String::new, |l| format!(" (listing line {l})"));
                match kind {
                    ProgramBreak::DebugBreak => format!("the program's {name}{line}"),
                    ProgramBreak::Abort => {
                        format!("the program's {name}{line}: the invocation ends here")
                    }
                }
            }
            Breakpoint::Nan => "the first NaN or infinity the lane writes".into(),
            Breakpoint::Write { name, .. } => format!("a write of {name}"),
            Breakpoint::Memory { name, .. } => format!("a write of {name} by any lane"),
            Breakpoint::Nested {
                programs,
                name,
                inner,
            } => self.nested_bp_text(programs, name, inner),
        }
    }

    /// Whether breakpoint `bp` stops the lane at position `q` (entering it from `q - 1`);
    /// the reason when it does.
    pub(super) fn hits(&self, bp: &Breakpoint, q: usize) -> Result<Option<String>, DebugError> {
        match bp {
            // Stops only inside its program (`continue` over the nested steps).
            Breakpoint::Nested { .. } => Ok(None),
            Breakpoint::Line { line, cond, .. } => {
                let Some(s) = self.steps.get(q) else {
                    return Ok(None);
                };
                if self.line_of(s.key) != Some(*line) {
                    return Ok(None);
                }
                // Only where the line is entered, not on each IR piece of it.
                if let Some(c) = cond
                    && !self.eval(c, q)?
                {
                    return Ok(None);
                }
                Ok(Some(String::new()))
            }
            Breakpoint::Source {
                file, line, cond, ..
            } => {
                if !self.enters_source_line(file, *line, q) {
                    return Ok(None);
                }
                match cond.as_ref().map(|c| self.eval(c, q)) {
                    None | Some(Ok(true)) => Ok(Some(String::new())),
                    Some(Ok(false)) => Ok(None),
                    // An HLSL variable nothing holds at this step: the lane stops and
                    // says so, rather than taking the condition as false.
                    Some(Err(e)) => {
                        Ok(Some(format!("its condition cannot be evaluated here: {e}")))
                    }
                }
            }
            Breakpoint::Program { key, .. } => {
                Ok((self.steps.get(q).and_then(|s| s.key) == Some(*key)).then(String::new))
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
    pub(super) fn others_word(&self) -> &'static str {
        if self.target.is_draw() {
            "other waves"
        } else if self.target.ray_programs().is_some() {
            "other ray-generation waves"
        } else {
            "other groups"
        }
    }

    pub(super) fn writer_text(&self, m: &MemWrite) -> String {
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

    /// Adds a memory watch; writers in other groups (draws: other waves) come from a
    /// second run of the dispatch or draw (checked to end with the same memory).
    pub(super) fn watch_memory(
        &mut self,
        name: String,
        target: WriteTarget,
        addr: u64,
        bytes: u64,
    ) -> String {
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
                    // A nested ray program's binding indexes its own program's ranges,
                    // not the ray-generation program's that `b` indexes.
                    let nested_ray = matches!(
                        w.invocation,
                        Invocation::Ray { stage, .. } if stage != Stage::RayGeneration
                    );
                    if w.target == WriteTarget::Resource(self.b)
                        && !same_group
                        && !nested_ray
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
                // Launch order: x fastest.
                Invocation::Ray { index, .. } => {
                    let [x, y, z] = index.0;
                    ([0; 3], [z, y, x], m.addr)
                }
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
}
