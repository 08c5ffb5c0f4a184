//! Stepping inside the programs a ray-generation lane invokes (closest-hit, any-hit,
//! intersection, miss, callable, and those they invoke in turn).
//!
//! The traced run records each program the observed lane's `TraceRay` and `CallShader`
//! ran as a wave of one lane (`target::NestedRecord`); each becomes a session of its own
//! over that record ([`Invoked`]), and the lane's steps and theirs are laid out in the
//! order they ran ([`Nest::line`]): a program's steps come right after the step that
//! invoked it, so moving over that line (`step`, `back`, `continue`,
//! `reverse-continue`) crosses program boundaries as it crosses any step, and nothing
//! runs again. While the position is inside a program, the caller stands before its
//! `TraceRay` or `CallShader` (the call has not returned), and the commands that read
//! values read the program's own record.

use std::collections::HashMap;
use std::fmt::Write as _;

use super::Debugger;
use super::breakpoint::Breakpoint;
use crate::debug::DebugError;
use crate::debug::expr;
use crate::debug::format::{self, Fmt, Ty};
use crate::debug::record::{Record, Slot};
use crate::debug::target::{LanePlace, NestedRecord, Target};
use crate::ir::RaySystemValue;

/// One program the observed lane invoked, as a session over its recorded steps.
pub(super) struct Invoked {
    /// Its run (index into the session's `nested`).
    run: usize,
    /// The program (index into `RaysWork::programs`).
    program: usize,
    /// The invoking program: a place in `Nest::subs`, `None` for the ray-generation
    /// program.
    parent: Option<usize>,
    /// The invoking `TraceRay` or `CallShader`: a source step of the parent.
    at: usize,
    /// The session over its record.
    d: Box<Debugger>,
    /// Whether it ran to its end.
    finished: bool,
}

/// The lane's steps with those of the programs it invoked, in the order they ran.
pub(super) struct Nest {
    subs: Vec<Invoked>,
    /// Frame and source step: frame 0 is the ray-generation program, `k + 1` is
    /// `subs[k]`.
    line: Vec<(u32, u32)>,
    /// The position in `line` (its length: the lane has finished).
    pos: usize,
}

/// A ray system value's HLSL name (DXR spec "System value intrinsics") and the type of
/// its components.
fn system_name(v: RaySystemValue) -> (&'static str, Ty) {
    use RaySystemValue as V;
    match v {
        V::DispatchRaysIndex => ("DispatchRaysIndex", Ty::UInt),
        V::DispatchRaysDimensions => ("DispatchRaysDimensions", Ty::UInt),
        V::WorldRayOrigin => ("WorldRayOrigin", Ty::Float),
        V::WorldRayDirection => ("WorldRayDirection", Ty::Float),
        V::ObjectRayOrigin => ("ObjectRayOrigin", Ty::Float),
        V::ObjectRayDirection => ("ObjectRayDirection", Ty::Float),
        V::ObjectToWorld => ("ObjectToWorld3x4", Ty::Float),
        V::WorldToObject => ("WorldToObject3x4", Ty::Float),
        V::RayTMin => ("RayTMin", Ty::Float),
        V::RayTCurrent => ("RayTCurrent", Ty::Float),
        V::RayFlags => ("RayFlags", Ty::UInt),
        V::InstanceIndex => ("InstanceIndex", Ty::UInt),
        V::InstanceId => ("InstanceID", Ty::UInt),
        V::PrimitiveIndex => ("PrimitiveIndex", Ty::UInt),
        V::GeometryIndex => ("GeometryIndex", Ty::UInt),
        V::HitKind => ("HitKind", Ty::UInt),
    }
}

/// Lays out `frame`'s `len` steps with, after each, the programs it invoked there.
fn emit(subs: &[Invoked], frame: Option<usize>, len: usize, out: &mut Vec<(u32, u32)>) {
    let f = frame.map_or(0, |k| k as u32 + 1);
    for p in 0..len {
        out.push((f, p as u32));
        for (k, s) in subs.iter().enumerate() {
            if s.parent == frame && s.at == p {
                emit(subs, Some(k), s.d.steps.len(), out);
            }
        }
    }
}

impl Debugger {
    /// A session over the record of one program a ray-generation lane invoked (a wave
    /// of one lane; never run again).
    fn over_record(target: Target, record: Record, parent: &Debugger) -> Option<Debugger> {
        if !record.started || record.lanes & 1 == 0 {
            return None;
        }
        let place = LanePlace {
            group: [0; 3],
            wave: 0,
            lane: 0,
            wave_size: record.width as u32,
            draw: None,
        };
        let mut d = Debugger {
            target,
            place,
            options: parent.options,
            rec: record,
            fault: None,
            outputs: Vec::new(),
            lane: 0,
            lane_steps: Vec::new(),
            steps: Vec::new(),
            pos: 0,
            bps: Vec::new(),
            next_bp: 1,
            elsewhere: Vec::new(),
            notes: Vec::new(),
            traced: None,
            pixel: Vec::new(),
            origin: None,
            mesh_origin: None,
            input_origins: None,
            nested: Vec::new(),
            nest: None,
        };
        d.select_lane(0);
        Some(d)
    }

    /// Makes the sessions over the programs the lane invoked and lays out the steps
    /// (see the module doc). Programs whose record is missing (the record limit) are
    /// left out, with those they invoked.
    pub(super) fn build_nest(&mut self, records: Vec<NestedRecord>) {
        if records.is_empty() {
            return;
        }
        // The ray-generation lane's calls, by number: their source steps.
        let mut call_step = Vec::new();
        for p in 0..self.steps.len() {
            for &ws in self.wave_steps(p) {
                if self.ray_call(ws as usize).is_some() {
                    call_step.push(p);
                }
            }
        }
        let mut subs: Vec<Invoked> = Vec::new();
        let mut of_run: HashMap<usize, usize> = HashMap::new();
        for r in records {
            let Some(n) = self.nested.get(r.run) else {
                continue;
            };
            let parent = match n.parent {
                None => None,
                Some(pr) => match of_run.get(&pr) {
                    Some(&k) => Some(k),
                    None => continue,
                },
            };
            let at = match (parent, r.parent_step) {
                (None, _) => call_step.get(n.call as usize).copied(),
                (Some(k), Some(ws)) => subs[k].d.source_step_of(ws as usize),
                (Some(_), None) => None,
            };
            let (Some(at), Some(target)) = (at, self.target.ray_program_target(n.program)) else {
                continue;
            };
            let Some(d) = Debugger::over_record(target, r.record, self) else {
                continue;
            };
            of_run.insert(r.run, subs.len());
            subs.push(Invoked {
                run: r.run,
                program: n.program,
                parent,
                at,
                d: Box::new(d),
                finished: r.finished,
            });
        }
        // Each program's own view of what its calls ran: the runs below it, numbered by
        // its own calls and indented from it.
        for k in 0..subs.len() {
            let depth = self.nested.get(subs[k].run).map_or(0, |n| n.depth);
            let mut mine = Vec::new();
            for j in k + 1..subs.len() {
                // The child of `k` on the way up from `j`.
                let mut c = j;
                while let Some(p) = subs[c].parent {
                    if p == k {
                        break;
                    }
                    c = p;
                }
                if subs[c].parent != Some(k) {
                    continue;
                }
                let call = subs[k]
                    .d
                    .steps
                    .get(subs[c].at)
                    .and_then(|_| subs[k].d.wave_steps(subs[c].at).first().copied())
                    .map_or(0, |ws| subs[k].d.ray_call_number(ws as usize));
                if let Some(n) = self.nested.get(subs[j].run) {
                    let mut n = n.clone();
                    n.lane = 0;
                    n.call = call;
                    n.depth = n.depth.saturating_sub(depth);
                    mine.push(n);
                }
            }
            subs[k].d.nested = mine;
        }
        let mut line = Vec::new();
        emit(&subs, None, self.steps.len(), &mut line);
        let pos = line
            .iter()
            .position(|&e| e == (0, self.pos as u32))
            .unwrap_or(line.len());
        self.nest = Some(Box::new(Nest { subs, line, pos }));
    }

    /// Inside a program the lane invoked: a frame per program, innermost first, each
    /// named, with its program (index into `RaysWork::programs`; `None`: the
    /// ray-generation program) and its listing line at its step (a caller's: its call).
    /// Empty in the ray-generation program.
    pub fn ray_frames(&self) -> Vec<(String, Option<usize>, Option<u32>)> {
        let (Some(k), Some(n)) = (self.current_sub(), self.nest_on()) else {
            return Vec::new();
        };
        self.frames_up(k)
            .into_iter()
            .map(|(f, step)| {
                let d = self.frame_session(f);
                let name = match f {
                    Some(k) => self.sub_title(k),
                    None => self.lane_text(self.lane),
                };
                let line = d.steps.get(step).and_then(|s| d.line_of(s.key));
                (name, f.and_then(|k| n.subs.get(k)).map(|s| s.program), line)
            })
            .collect()
    }

    /// The session of ray frame `depth` of [`Debugger::ray_frames`] (0: the innermost),
    /// which answers for that program's values at its step.
    pub fn ray_frame(&self, depth: usize) -> Option<&Debugger> {
        let k = self.current_sub()?;
        let (f, _) = *self.frames_up(k).get(depth)?;
        Some(self.frame_session(f))
    }

    /// Moves to step `p` of the lane's own program (on a ray-generation lane, out of any
    /// program it invoked), as `goto p` does.
    pub fn goto_lane_step(&mut self, p: usize) -> String {
        self.pos = p.min(self.steps.len());
        self.sync_line_pos();
        self.where_text()
    }

    /// Whether moves go over the steps of the programs the lane invoked too (a
    /// ray-generation lane whose programs were recorded): `step`, `next`, `finish` and
    /// `back` through [`Debugger::execute`].
    pub fn steps_into_rays(&self) -> bool {
        self.nest_on().is_some()
    }

    /// The session over run `run` of the lane's invoked programs, when recorded.
    pub(super) fn invoked_session(&self, run: usize) -> Option<&Debugger> {
        let n = self.nest_on()?;
        n.subs.iter().find(|s| s.run == run).map(|s| &*s.d)
    }

    /// The nest, while the observed lane is the one whose programs were recorded.
    fn nest_on(&self) -> Option<&Nest> {
        self.nest
            .as_deref()
            .filter(|_| self.lane == self.place.lane)
    }

    /// The program the position is in (a place in `Nest::subs`), `None` in the
    /// ray-generation program.
    pub(super) fn current_sub(&self) -> Option<usize> {
        let n = self.nest_on()?;
        let (f, _) = *n.line.get(n.pos)?;
        (f > 0).then(|| f as usize - 1)
    }

    /// Frame and source step at line position `q` (past the end: the ray-generation
    /// program's end).
    fn line_at(&self, q: usize) -> (u32, u32) {
        self.nest_on()
            .and_then(|n| n.line.get(q).copied())
            .unwrap_or((0, self.steps.len() as u32))
    }

    /// Moves to line position `q`: the program there stands at its step, each caller
    /// before the call that invoked it.
    fn set_line_pos(&mut self, q: usize) {
        let Some(n) = self.nest.as_deref_mut() else {
            return;
        };
        let q = q.min(n.line.len());
        n.pos = q;
        let (f, l) = n
            .line
            .get(q)
            .copied()
            .unwrap_or((0, self.steps.len() as u32));
        if f == 0 {
            self.pos = l as usize;
            return;
        }
        let mut k = f as usize - 1;
        n.subs[k].d.pos = l as usize;
        loop {
            let at = n.subs[k].at;
            match n.subs[k].parent {
                Some(p) => {
                    n.subs[p].d.pos = at;
                    k = p;
                }
                None => {
                    self.pos = at;
                    return;
                }
            }
        }
    }

    /// After a move inside the ray-generation program: the line position of its step.
    pub(super) fn sync_line_pos(&mut self) {
        let pos = self.pos as u32;
        if self.lane != self.place.lane {
            return;
        }
        if let Some(n) = self.nest.as_deref_mut() {
            n.pos = n
                .line
                .iter()
                .position(|&e| e == (0, pos))
                .unwrap_or(n.line.len());
        }
    }

    /// Whether frame `f` is program `k` or runs below it.
    fn within(&self, f: u32, k: usize) -> bool {
        let Some(n) = self.nest_on() else {
            return false;
        };
        let mut c = match f.checked_sub(1) {
            Some(c) => c as usize,
            None => return false,
        };
        loop {
            if c == k {
                return true;
            }
            match n.subs.get(c).and_then(|s| s.parent) {
                Some(p) => c = p,
                None => return false,
            }
        }
    }

    /// A program the lane invoked, named: kind, entry, record and hit.
    fn sub_title(&self, k: usize) -> String {
        let Some(s) = self.nest_on().and_then(|n| n.subs.get(k)) else {
            return String::new();
        };
        self.nested
            .get(s.run)
            .map_or_else(String::new, |r| self.nested_title(r))
    }

    /// A frame, short: `ray generation of DispatchRaysIndex (…)` or `closest-hit
    /// "closest_hit"`.
    fn frame_name(&self, f: Option<usize>) -> String {
        match f.and_then(|k| self.nest_on()?.subs.get(k)) {
            None => self.lane_text(self.lane),
            Some(s) => match self.nested.get(s.run) {
                Some(r) => format!("{} \"{}\"", r.kind, s.d.target.program.shader.entry),
                None => String::new(),
            },
        }
    }

    /// The session of frame `f` (`None`: this one).
    fn frame_session(&self, f: Option<usize>) -> &Debugger {
        match f.and_then(|k| self.nest_on()?.subs.get(k)) {
            Some(s) => &s.d,
            None => self,
        }
    }

    /// What the step at line position `q` did, and where it leads: into a program it
    /// invoked, or back to a caller.
    fn line_step_text(&self, q: usize) -> String {
        let (f, l) = self.line_at(q);
        let next = self.nest_on().and_then(|n| n.line.get(q + 1).copied());
        // The first step of another program: one this step invoked, or the next one
        // the same call ran.
        let entering = next.filter(|&(g, m)| g > 0 && g != f && m == 0);
        let frame = f.checked_sub(1).map(|x| x as usize);
        let d = self.frame_session(frame);
        let enters_below = entering.is_some_and(|(g, _)| {
            self.nest_on()
                .and_then(|n| n.subs.get(g as usize - 1))
                .is_some_and(|s| s.parent == f.checked_sub(1).map(|x| x as usize))
        });
        let mut s = if let (Some((g, _)), true) = (entering, enters_below) {
            format!(
                "[{l}] {}\n    enters {}",
                d.step_title(l as usize),
                self.sub_title(g as usize - 1)
            )
        } else {
            d.detail_text(&d.detail(l as usize))
        };
        if let (Some((g, _)), false) = (entering, enters_below) {
            let _ = write!(s, "\n    then {}", self.sub_title(g as usize - 1));
        }
        if let Some(k) = frame {
            s = format!("{}: {s}", self.frame_name(Some(k)));
            // Back in a caller: what its call did, now that it has returned.
            let (g, m) = next.unwrap_or((0, self.steps.len() as u32));
            let back = g == 0 || (g != f && self.within(f, g as usize - 1));
            if back && entering.is_none() && m > 0 {
                let gf = g.checked_sub(1).map(|x| x as usize);
                let c = self.frame_session(gf);
                let _ = write!(
                    s,
                    "\nreturned to {}: {}",
                    self.frame_name(gf),
                    c.detail_text(&c.detail(m as usize - 1))
                );
            }
        }
        s
    }

    /// `step N` over the line.
    fn line_step(&mut self, n: usize) -> String {
        let Some(len) = self.nest_on().map(|x| x.line.len()) else {
            return self.step(n);
        };
        let from = self.nest_on().map_or(0, |x| x.pos);
        if from >= len {
            return self.where_text();
        }
        let end = from.saturating_add(n).min(len);
        let shown = end - from;
        let mut out = String::new();
        for q in from..end {
            if shown <= 16 || q + 3 >= end {
                let _ = writeln!(out, "{}", self.line_step_text(q));
            } else if q == from + 13 {
                let _ = writeln!(out, "… {} steps …", end - 3 - q);
            }
        }
        self.set_line_pos(end);
        out.push_str(&self.where_text());
        out
    }

    /// `next` in program `k`: over its own calls, to its next step, or out of it to
    /// what runs after it.
    fn line_next(&mut self, k: usize) -> String {
        let Some(n) = self.nest.as_deref_mut() else {
            return self.where_text();
        };
        let s = &mut n.subs[k].d;
        let _ = s.next_over();
        let p = s.pos;
        let f = k as u32 + 1;
        let q = if p < s.steps.len() {
            n.line.iter().position(|&e| e == (f, p as u32))
        } else {
            None
        };
        let (from, len) = (n.pos, n.line.len());
        let q = q.unwrap_or_else(|| {
            (from + 1..len)
                .find(|&q| !self.within(self.line_at(q).0, k))
                .unwrap_or(len)
        });
        self.set_line_pos(q);
        self.where_text()
    }

    /// `finish` in program `k`: to its caller's next step.
    fn line_finish(&mut self, k: usize) -> String {
        let Some(n) = self.nest_on() else {
            return self.where_text();
        };
        let g = n.subs[k].parent.map_or(0, |p| p as u32 + 1);
        let q = (n.pos + 1..n.line.len())
            .find(|&q| n.line[q].0 == g)
            .unwrap_or(n.line.len());
        self.set_line_pos(q);
        self.where_text()
    }

    /// `continue` (forward) or `reverse-continue` over the line: the ray-generation
    /// program's breakpoints at its steps, a program's breakpoints
    /// ([`Breakpoint::Nested`]) at that program's steps.
    fn line_cont(&mut self, forward: bool) -> Result<String, DebugError> {
        let Some((from, len)) = self.nest_on().map(|n| (n.pos, n.line.len())) else {
            return if forward {
                self.cont()
            } else {
                self.reverse_cont()
            };
        };
        let clock = self.clock();
        let order: Vec<usize> = if forward {
            (from + 1..=len).collect()
        } else {
            (0..from).rev().collect()
        };
        for q in order {
            if q % 1024 == 0 {
                self.charge_time(&clock, "continue")?;
            }
            let (f, l) = self.line_at(q);
            for (id, bp) in &self.bps {
                let why = match (f, bp) {
                    (0, Breakpoint::Nested { .. }) => None,
                    (0, _) => self.hits(bp, l as usize)?,
                    (
                        g,
                        Breakpoint::Nested {
                            programs, inner, ..
                        },
                    ) => match self.nest_on().and_then(|n| n.subs.get(g as usize - 1)) {
                        Some(s) if programs.contains(&s.program) => s.d.hits(inner, l as usize)?,
                        _ => None,
                    },
                    _ => None,
                };
                if let Some(why) = why {
                    let (id, bp) = (*id, bp.clone());
                    self.set_line_pos(q);
                    return Ok(self.stop_text(id, &bp, &why));
                }
            }
        }
        if forward {
            self.set_line_pos(len);
            Ok(self.end_text())
        } else {
            self.set_line_pos(0);
            Ok(format!("at the start\n{}", self.where_text()))
        }
    }

    /// Where the session is inside program `k`, as one line.
    pub(super) fn nested_where(&self, k: usize) -> String {
        let Some(n) = self.nest_on() else {
            return String::new();
        };
        let s = &n.subs[k];
        let call = self.frame_session(s.parent);
        let what = match call
            .wave_steps(s.at)
            .first()
            .and_then(|&ws| call.ray_call(ws as usize))
        {
            Some((.., true)) => "TraceRay",
            _ => "CallShader",
        };
        let mut t = format!(
            "{}, invoked by {what} at step {} of {}",
            self.sub_title(k),
            s.at,
            self.frame_name(s.parent)
        );
        if s.parent.is_some() {
            let _ = write!(t, " for {}", self.lane_text(self.lane));
        }
        let d = &s.d;
        let _ = write!(t, "; step {} of {}", d.pos, d.steps.len());
        if d.pos < d.steps.len() {
            let _ = write!(t, ": next {}", d.step_title(d.pos));
        }
        if !s.finished && d.pos + 1 >= d.steps.len() {
            t.push_str(" (the program stopped here: the launch failed inside it)");
        }
        t
    }

    /// `bt` inside a program the lane invoked: a frame per program, innermost first.
    fn nested_backtrace(&self, k: usize) -> String {
        let mut out = Vec::new();
        for (i, (f, step)) in self.frames_up(k).into_iter().enumerate() {
            let d = self.frame_session(f);
            let title = match f {
                Some(k) => self.sub_title(k),
                None => self.lane_text(self.lane),
            };
            let at = if d.steps.get(step).is_some() {
                format!("step {step}, {}", d.step_title(step))
            } else {
                format!("step {step}, the end")
            };
            out.push(format!("#{i} {title}: {at}"));
        }
        out.join("\n")
    }

    /// The frames from program `k` up to the ray-generation program, each with its
    /// source step (a caller's: its call).
    pub(super) fn frames_up(&self, k: usize) -> Vec<(Option<usize>, usize)> {
        let Some(n) = self.nest_on() else {
            return Vec::new();
        };
        let mut out = vec![(Some(k), n.subs[k].d.pos)];
        let mut c = k;
        loop {
            let s = &n.subs[c];
            out.push((s.parent, s.at));
            match s.parent {
                Some(p) => c = p,
                None => break,
            }
        }
        out
    }

    /// `print` inside program `k` of a name the program's record does not hold: a ray
    /// system value (as the program started), `payload` or `attributes` (the words at
    /// the position).
    fn print_ray_value(&self, k: usize, t: &str, fmt: Fmt) -> Option<String> {
        let n = self.nest_on()?;
        let s = n.subs.get(k)?;
        let run = self.nested.get(s.run)?;
        let d = &s.d;
        if t == "payload" || t == "attributes" {
            let ray = d.target.program.debug_shader.ray?;
            let (x, bytes) = if t == "payload" {
                ray.payload?
            } else {
                ray.attributes?
            };
            let time = d.t(d.pos);
            let words: Vec<String> = (0..bytes.div_ceil(4))
                .map(|w| {
                    let v = d.rec.value(Slot::Local(x.0, w), time, 0);
                    format::value_text(v, Ty::Untyped, fmt)
                })
                .collect();
            return Some(format!("{t} = ({})", words.join(", ")));
        }
        let (base, comp) = match t.split_once('.') {
            Some((b, c)) => (b, Some(c)),
            None => match t.split_once('[') {
                Some((b, i)) => (b, Some(i.trim_end_matches(']'))),
                None => (t, None),
            },
        };
        let (v, words) = run
            .system
            .iter()
            .find(|(v, _)| system_name(*v).0.eq_ignore_ascii_case(base))?;
        let (name, ty) = system_name(*v);
        let pick: Vec<usize> = match comp {
            None => (0..words.len()).collect(),
            Some(c) => match c.parse::<usize>() {
                Ok(i) => vec![i],
                Err(_) => c
                    .chars()
                    .map(|ch| "xyzw".find(ch).unwrap_or(usize::MAX))
                    .collect(),
            },
        };
        let vals: Option<Vec<String>> = pick
            .iter()
            .map(|&i| words.get(i).map(|w| format::value_text(*w, ty, fmt)))
            .collect();
        let Some(vals) = vals else {
            return Some(format!("{t}: {name} has {} components", words.len()));
        };
        let shown = if vals.len() == 1 {
            vals.join("")
        } else {
            format!("({})", vals.join(", "))
        };
        let note = if run.kind == crate::pipeline::rays::NestedKind::Intersection
            && *v == RaySystemValue::RayTCurrent
        {
            " (as the program started; its accepted ReportHit calls lower it)"
        } else {
            ""
        };
        Some(format!("{t} = {shown}{note}"))
    }

    /// `break NAME:LINE [if COND]` where NAME is an export of the ray-tracing
    /// pipeline: a breakpoint on line LINE of that program's listing; `None` when NAME
    /// names no export.
    fn break_in_program(
        &mut self,
        at: &str,
        cond: Option<&str>,
    ) -> Option<Result<u32, DebugError>> {
        let (name, line) = at.rsplit_once(':')?;
        let programs: Vec<usize> = self
            .target
            .ray_programs()?
            .iter()
            .enumerate()
            .filter(|(_, p)| p.shader.entry == name.trim())
            .map(|(i, _)| i)
            .collect();
        let first = *programs.first()?;
        let r = (|| {
            let target = self
                .target
                .ray_program_target(first)
                .ok_or_else(|| DebugError::Command(format!("no program `{name}`")))?;
            // A session over no steps checks the line and the condition's names
            // against the program.
            let mut empty = Record::default();
            (empty.started, empty.lanes, empty.width) = (true, 1, 1);
            let probe = Debugger::over_record(target, empty, self)
                .ok_or_else(|| DebugError::Command(format!("no program `{name}`")))?;
            let l = probe.parse_line(line.trim())?;
            let parsed = match cond {
                Some(c) => {
                    let p = expr::parse_cond(c).map_err(DebugError::Command)?;
                    probe.check_cond(&p)?;
                    Some(p)
                }
                None => None,
            };
            let inner = Breakpoint::Line {
                line: l,
                cond: parsed,
                text: cond.unwrap_or("").to_string(),
            };
            Ok(self.add_breakpoint(Breakpoint::Nested {
                programs: programs.clone(),
                name: name.trim().to_string(),
                inner: Box::new(inner),
            }))
        })();
        Some(r)
    }

    /// The text of a program's breakpoint (`closest_hit:12: <listing line>`).
    pub(super) fn nested_bp_text(
        &self,
        programs: &[usize],
        name: &str,
        inner: &Breakpoint,
    ) -> String {
        match (
            inner,
            programs
                .first()
                .and_then(|&i| self.target.ray_programs()?.get(i)),
        ) {
            (Breakpoint::Line { line, text, .. }, Some(p)) => {
                let mut s = format!("{name}:{line}: {}", p.view.text(*line));
                if !text.is_empty() {
                    let _ = write!(s, " if {text}");
                }
                s
            }
            _ => format!("{name}: a breakpoint"),
        }
    }

    /// The commands that work differently while the lane's invoked programs are
    /// recorded: moving over the line, and, inside a program, what reads its values.
    /// `None`: the command runs as in any session.
    pub(super) fn execute_nested(
        &mut self,
        cmd: &str,
        rest: &str,
        fmt: Fmt,
        line: &str,
    ) -> Option<Result<String, DebugError>> {
        self.nest_on()?;
        let sub = self.current_sub();
        let count = || -> Result<usize, DebugError> {
            if rest.is_empty() {
                return Ok(1);
            }
            rest.parse::<usize>()
                .map_err(|_| DebugError::Command(format!("`{rest}` is not a count")))
        };
        match (cmd, sub) {
            ("step" | "s" | "stepi" | "si", _) => Some(count().map(|n| self.line_step(n))),
            ("back" | "b" | "reverse-step" | "rs" | "backi" | "reverse-stepi" | "rsi", _) => {
                Some(count().map(|n| {
                    let q = self.nest_on().map_or(0, |x| x.pos).saturating_sub(n);
                    self.set_line_pos(q);
                    self.where_text()
                }))
            }
            ("continue" | "c" | "cont", _) => Some(self.line_cont(true)),
            ("reverse-continue" | "rc", _) => Some(self.line_cont(false)),
            ("break" | "br", _) => {
                let (at, cond) = match rest.split_once(" if ") {
                    Some((a, c)) => (a.trim(), Some(c.trim())),
                    None => (rest, None),
                };
                let r = self.break_in_program(at, cond)?;
                Some(r.map(|id| {
                    format!(
                        "breakpoint {id}: {}",
                        self.breakpoint_text(id).unwrap_or_default()
                    )
                }))
            }
            (_, None) => None,
            ("next" | "n" | "nexti" | "ni", Some(k)) => Some(count().map(|n| {
                let mut s = String::new();
                for _ in 0..n {
                    s = match self.current_sub() {
                        Some(k2) => self.line_next(k2),
                        None => {
                            let t = self.next_over();
                            self.sync_line_pos();
                            t
                        }
                    };
                }
                let _ = k;
                s
            })),
            ("finish" | "fin", Some(k)) => Some(Ok(self.line_finish(k))),
            ("goto", Some(_)) => {
                let p = match rest.parse::<usize>() {
                    Ok(p) => p,
                    Err(_) => {
                        return Some(Err(DebugError::Command(format!(
                            "`{rest}` is not a step number"
                        ))));
                    }
                };
                self.pos = p.min(self.steps.len());
                self.sync_line_pos();
                Some(Ok(self.where_text()))
            }
            ("where" | "w" | "info", Some(k)) => Some(Ok(self.nested_where(k))),
            ("bt" | "backtrace", Some(k)) => Some(Ok(self.nested_backtrace(k))),
            ("watch" | "lane" | "diff", Some(_)) => Some(Err(DebugError::Command(format!(
                "`{cmd}` works in the ray-generation program: `finish` returns to the caller"
            )))),
            ("print" | "p", Some(k)) if !rest.is_empty() => {
                let mut out = Vec::new();
                for t in rest.split(',') {
                    let t = t.trim();
                    if let Some(v) = self.print_ray_value(k, t, fmt) {
                        out.push(v);
                        continue;
                    }
                    let d = &self.nest_on()?.subs[k].d;
                    match d.print(t, fmt) {
                        Ok(v) => out.push(v),
                        Err(e) => return Some(Err(e)),
                    }
                }
                Some(Ok(out.join("\n")))
            }
            (
                "help" | "h" | "?" | "breakpoints" | "bps" | "delete" | "d" | "" | "rays",
                Some(_),
            ) => None,
            (_, Some(k)) => {
                let n = self.nest.as_deref_mut()?;
                Some(n.subs[k].d.execute(line))
            }
        }
    }
}
