//! A ray-generation lane's `TraceRay` and `CallShader`: the programs each one ran (the
//! traced run's `NestedRun`s), as the step output, `rays` and `why` show them.
//!
//! The nested programs run inside the lane's instruction (`pipeline::rays`); the session
//! knows of each one its kind, program, shader-table record, hit and the payload words
//! it started with and left, and of the observed lane's, their steps (`nested`).

use std::fmt::Write as _;

use crate::debug::format::{self, Fmt, Ty};
use crate::debug::record::Slot;
use crate::ir::Inst;
use crate::pipeline::Work;
use crate::pipeline::rays::{NestedKind, NestedRun, TableRecord};

use super::Debugger;

impl Debugger {
    /// Whether the instruction at wave step `ws` is a `TraceRay` or `CallShader`, and its
    /// payload's array, address register and offset.
    pub(super) fn ray_call(&self, ws: usize) -> Option<(u32, crate::ir::Reg, u32, bool)> {
        match self.inst_at(ws)? {
            Inst::RayTrace {
                payload,
                addr,
                offset,
                ..
            }
            | Inst::HitObjectTrace {
                payload,
                addr,
                offset,
                ..
            }
            | Inst::HitObjectInvoke {
                payload,
                addr,
                offset,
                ..
            } => Some((payload.0, *addr, *offset, true)),
            Inst::RayCall {
                param,
                addr,
                offset,
                ..
            } => Some((param.0, *addr, *offset, false)),
            _ => None,
        }
    }

    /// Which of the lane's own `TraceRay` / `CallShader` executions wave step `ws` is
    /// (0: its first), counted over the lane's steps before it.
    pub(super) fn ray_call_number(&self, ws: usize) -> u32 {
        let before = self.lane_steps.partition_point(|&s| (s as usize) < ws);
        self.lane_steps[..before]
            .iter()
            .filter(|&&s| self.ray_call(s as usize).is_some())
            .count() as u32
    }

    /// The programs call `call` of the lane ran, in the order they started.
    fn nested_of(&self, call: u32) -> impl Iterator<Item = &NestedRun> {
        let lane = self.lane as u32;
        self.nested
            .iter()
            .filter(move |n| n.lane == lane && n.call == call)
    }

    /// One nested program, named: its kind and entry, its record, and its hit.
    pub(super) fn nested_title(&self, n: &NestedRun) -> String {
        let entry = self
            .target
            .ray_programs()
            .and_then(|p| p.get(n.program))
            .map_or_else(String::new, |p| format!(" \"{}\"", p.shader.entry));
        let group = match &*self.target.work {
            Work::Rays(r) => match r.hit_groups.get(n.record as u64) {
                Some(TableRecord::Shader(g)) => Some(g.name.clone()),
                _ => None,
            },
            _ => None,
        };
        let record = match (n.kind, group) {
            (NestedKind::Miss, _) => format!("miss record {}", n.record),
            (NestedKind::Callable, _) => format!("callable record {}", n.record),
            (_, Some(g)) => format!("hit group {} (\"{g}\")", n.record),
            (_, None) => format!("hit group {}", n.record),
        };
        let mut s = format!("{}{entry} of {record}", n.kind);
        if let (Some(h), NestedKind::Intersection) = (&n.hit, n.kind) {
            // A procedural candidate: its `t` is where the ray enters its AABB, not
            // RayTCurrent() (the committed hit's, or TMax).
            let _ = write!(
                s,
                " for instance {} (ID {}), primitive {}, geometry {}, its AABB entered at t {}",
                h.instance_index,
                h.instance_id,
                h.primitive_index,
                h.geometry_index,
                format::float_text(h.t)
            );
            return s;
        }
        if let Some(h) = &n.hit {
            let _ = write!(
                s,
                " for instance {} (ID {}), primitive {}, geometry {}, RayTCurrent {}",
                h.instance_index,
                h.instance_id,
                h.primitive_index,
                h.geometry_index,
                format::float_text(h.t)
            );
            if n.kind == NestedKind::ClosestHit || n.kind == NestedKind::AnyHit {
                let _ = write!(s, ", HitKind {}", h.hit_kind);
            }
        }
        s
    }

    fn words_text(words: &[u32]) -> String {
        let v: Vec<String> = words
            .iter()
            .map(|w| format::value_text(*w, Ty::Untyped, Fmt::Natural))
            .collect();
        format!("({})", v.join(", "))
    }

    /// The lines the step output adds after a `TraceRay` or `CallShader` wave step:
    /// what it ran, indented by nesting.
    pub(super) fn nested_lines(&self, ws: usize) -> String {
        let Some((_, _, _, trace)) = self.ray_call(ws) else {
            return String::new();
        };
        let call = self.ray_call_number(ws);
        let mut s = String::new();
        let mut any = false;
        for n in self.nested_of(call) {
            any = true;
            let pad = "  ".repeat(n.depth as usize);
            if n.kind == NestedKind::Intersection {
                // An intersection program takes no payload: its hits go to ReportHit.
                let _ = write!(s, "\n  {pad}ran {}", self.nested_title(n));
                continue;
            }
            let _ = write!(
                s,
                "\n  {pad}ran {}: payload {} → {}",
                self.nested_title(n),
                Self::words_text(&n.payload_in),
                Self::words_text(&n.payload_out)
            );
        }
        if !any {
            let _ = write!(
                s,
                "\n    ran no program{}",
                if trace {
                    " (a miss or hit group without one, or SKIP_CLOSEST_HIT_SHADER)"
                } else {
                    ""
                }
            );
        }
        s
    }

    /// The `TraceRay` and `CallShader` calls of source steps `from .. to` with what each
    /// ran, a line each and its programs under it (`next` over them); empty for other
    /// lanes.
    pub(super) fn passed_ray_calls(&self, from: usize, to: usize) -> String {
        if self.target.ray_programs().is_none() {
            return String::new();
        }
        let mut out = String::new();
        for p in from..to.min(self.steps.len()) {
            for &ws in self.wave_steps(p) {
                if let Some((_, _, _, trace)) = self.ray_call(ws as usize) {
                    let _ = writeln!(
                        out,
                        "[{p}] {}{}",
                        if trace { "TraceRay" } else { "CallShader" },
                        self.nested_lines(ws as usize)
                    );
                }
            }
        }
        out
    }

    /// The source step of the lane's last `TraceRay` or `CallShader` that ran program
    /// `program` (its index in the pipeline), itself or below a program it ran.
    pub fn last_call_running(&self, program: usize) -> Option<usize> {
        let mut call = 0u32;
        let mut found = None;
        for p in 0..self.steps.len() {
            for &ws in self.wave_steps(p) {
                if self.ray_call(ws as usize).is_none() {
                    continue;
                }
                if self.nested_of(call).any(|n| n.program == program) {
                    found = Some(p);
                }
                call += 1;
            }
        }
        found
    }

    /// `rays`: every `TraceRay` and `CallShader` the lane ran, with its step and the
    /// programs it ran.
    pub fn rays_text(&self) -> String {
        if self.target.ray_programs().is_none() {
            return "not a ray-generation lane: `rays` lists a ray-generation lane's TraceRay and CallShader calls".into();
        }
        let mut out = String::new();
        let mut call = 0u32;
        for (p, _) in self.steps.iter().enumerate() {
            for &ws in self.wave_steps(p) {
                let Some((_, _, _, trace)) = self.ray_call(ws as usize) else {
                    continue;
                };
                let _ = write!(
                    out,
                    "{}call {call}, [{p}] {}: {}{}",
                    if out.is_empty() { "" } else { "\n" },
                    if trace { "TraceRay" } else { "CallShader" },
                    self.step_title(p),
                    self.nested_lines(ws as usize)
                );
                call += 1;
            }
        }
        if out.is_empty() {
            "the lane runs no TraceRay or CallShader".into()
        } else {
            out
        }
    }

    /// `why` on a payload word the lane's `TraceRay` or `CallShader` at wave step `ws`
    /// wrote back: the nested program that last changed it (programs of the call's own
    /// depth; a program's own calls pass their payloads, not this one), then what the
    /// call passed in (the caller goes on with it). When the program's steps are
    /// recorded, `why` goes on inside it (`depth` levels in all). `None` when `ws` is no
    /// such call; else the call's name.
    pub(super) fn why_ray_payload(
        &self,
        out: &mut String,
        slot: Slot,
        ws: usize,
        level: usize,
        depth: usize,
    ) -> Option<&'static str> {
        let Slot::Local(x, word) = slot else {
            return None;
        };
        let (array, addr, offset, trace) = self.ray_call(ws)?;
        if array != x {
            return None;
        }
        let start = self
            .rec
            .value(Slot::Reg(addr.0), ws, self.lane)
            .wrapping_add(offset)
            / 4;
        let k = word.checked_sub(start)? as usize;
        let pad = "  ".repeat(level);
        let call = self.ray_call_number(ws);
        let what = if trace { "TraceRay" } else { "CallShader" };
        let writer = self
            .nested_of(call)
            .filter(|n| n.depth == 1 && n.kind != NestedKind::Intersection)
            .filter(|n| n.payload_in.get(k) != n.payload_out.get(k))
            .last();
        let stepno = self
            .source_step_of(ws)
            .map_or_else(String::new, |p| format!(" at step {p}"));
        match writer {
            Some(n) => {
                let run = self.nested.iter().position(|x| std::ptr::eq(x, n));
                let _ = writeln!(
                    out,
                    "{pad}payload word {k} written by {}, invoked by {what}{stepno} (call {call}): {} → {}",
                    self.nested_title(n),
                    n.payload_in
                        .get(k)
                        .map_or_else(String::new, |v| format::value_text(
                            *v,
                            Ty::Untyped,
                            Fmt::Natural
                        )),
                    n.payload_out
                        .get(k)
                        .map_or_else(String::new, |v| format::value_text(
                            *v,
                            Ty::Untyped,
                            Fmt::Natural
                        )),
                );
                // The program's own steps, when recorded: the store and its inputs.
                if let Some(run) = run {
                    self.why_in_invoked(out, run, k as u32, level + 1, depth);
                }
            }
            None => {
                let _ = writeln!(
                    out,
                    "{pad}payload word {k}: the programs {what}{stepno} (call {call}) ran left it as it was passed in"
                );
            }
        }
        Some(what)
    }
}
