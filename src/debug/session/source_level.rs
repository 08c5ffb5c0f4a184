//! Source-level debugging, when the program carries HLSL debug info (`debug::hlsl`):
//! steps by HLSL line (`step` into inlined calls, `next` over them, `finish` out of the
//! current inlined frame, `back` to the previous line's start), breakpoints by
//! `FILE:LINE`, the HLSL source around the lane (`list`), the inlined frames (`bt`) and
//! HLSL variables assembled from the values holding their pieces (`print NAME`).
//!
//! Without debug info none of this is reached: every command keeps its listing meaning.

use std::fmt::Write as _;

use super::Debugger;
use super::breakpoint::Breakpoint;
use super::resolve::Resolved;
use super::scopes::ScopeValue;
use crate::debug::DebugError;
use crate::debug::expr::{self, Scalar};
use crate::debug::format::{self, Fmt, Ty};
use crate::debug::hlsl::{self, Held, Hlsl, LeafAt};
use crate::debug::record::Slot;
use crate::dxil::debuginfo::{Frame, same_file};

/// Component letters, by component.
const XYZW: [char; 4] = ['x', 'y', 'z', 'w'];

/// How a line step treats inlined calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LineMove {
    /// `step`: stop at the next line, entering inlined calls.
    Into,
    /// `next`: stop at the next line of this frame or a caller's.
    Over,
    /// `finish`: stop at the first step outside the current inlined frame.
    Out,
}

impl Debugger {
    /// The program's HLSL debug info, when it has some that reads.
    pub(super) fn hlsl(&self) -> Option<&Hlsl> {
        self.target.program.view.hlsl.as_deref()
    }

    /// Whether steps, breakpoints, `list` and `print` work in HLSL terms (the program
    /// carries debug info the session reads).
    pub fn source_level(&self) -> bool {
        self.hlsl().is_some()
    }

    /// The HLSL frames of source step `p`, innermost first (`None`: no location).
    pub(super) fn frames_at(&self, p: usize) -> Option<&[Frame]> {
        self.hlsl()?.frames(self.steps.get(p)?.key)
    }

    /// The HLSL frames of the next step (when the lane has finished, of its last step),
    /// innermost first; empty without debug info or a location there.
    pub fn frames(&self) -> Vec<Frame> {
        let p = if self.pos < self.steps.len() {
            self.pos
        } else {
            match self.steps.len().checked_sub(1) {
                Some(p) => p,
                None => return Vec::new(),
            }
        };
        self.frames_at(p).map(<[Frame]>::to_vec).unwrap_or_default()
    }

    /// The position a line move from the current one stops at (the end when none).
    pub(super) fn line_target(&self, how: LineMove) -> usize {
        let len = self.steps.len();
        if self.pos >= len {
            return len;
        }
        let cur = self.frames_at(self.pos);
        for q in self.pos + 1..len {
            let Some(f) = self.frames_at(q) else { continue };
            let Some(c) = cur else { return q };
            let stop = match how {
                LineMove::Into => !hlsl::same_line(c, f),
                LineMove::Over => {
                    f.len() < c.len()
                        || (f.len() == c.len()
                            && (!hlsl::same_frame(c, f) || !hlsl::same_line(c, f)))
                }
                LineMove::Out => {
                    f.len() < c.len() || (f.len() == c.len() && !hlsl::same_frame(c, f))
                }
            };
            if stop {
                return q;
            }
        }
        len
    }

    /// The position `back` by line stops at: where the line before the current one was
    /// entered (the start when none).
    pub(super) fn line_back_target(&self) -> usize {
        let cur = self.frames_at(self.pos);
        let mut q = self.pos.min(self.steps.len());
        let prev = loop {
            let Some(x) = q.checked_sub(1) else { return 0 };
            q = x;
            if let Some(f) = self.frames_at(q)
                && cur.is_none_or(|c| !hlsl::same_line(c, f))
            {
                break f;
            }
        };
        let mut start = q;
        let mut p = q;
        while let Some(x) = p.checked_sub(1) {
            p = x;
            match self.frames_at(p) {
                None => continue,
                Some(f) if hlsl::same_line(prev, f) => start = p,
                Some(_) => break,
            }
        }
        start
    }

    /// `step N` by line: N line moves into inlined calls, printing what each step of
    /// them read and wrote.
    pub fn step_lines(&mut self, n: usize, how: LineMove) -> String {
        let start = self.pos;
        for _ in 0..n {
            let q = self.line_target(how);
            if q == self.pos {
                break;
            }
            self.pos = q;
        }
        let end = self.pos;
        self.pos = start;
        self.advance_to(end)
    }

    /// `back N` by line.
    pub fn back_lines(&mut self, n: usize) -> String {
        for _ in 0..n {
            let q = self.line_back_target();
            if q == self.pos {
                break;
            }
            self.pos = q;
        }
        self.where_text()
    }

    /// `FILE:LINE` or `LINE` (the main file): the file as the program spells it and the
    /// first line there, at or after the one asked for, that holds an instruction.
    pub(super) fn parse_source_line(&self, t: &str) -> Result<(String, u32), DebugError> {
        let Some(h) = self.hlsl() else {
            return Err(DebugError::Command(format!(
                "`{t}`: the program carries no debug info, so lines are listing lines"
            )));
        };
        let (file, line) = match t.rsplit_once(':') {
            Some((f, l)) => (f.trim().to_string(), l.trim()),
            None => (h.main_file(), t.trim()),
        };
        let line = line
            .parse::<u32>()
            .map_err(|_| DebugError::Command(format!("`{line}` is not a line number")))?;
        let known =
            h.located_lines().iter().any(|(f, _)| same_file(f, &file)) || h.source(&file).is_some();
        if !known {
            return Err(DebugError::Command(format!(
                "the program has no instruction from a file named {file}"
            )));
        }
        h.line_with_code(&file, line).ok_or_else(|| {
            DebugError::Command(format!(
                "no instruction of the program is on line {line} of {file} or after it"
            ))
        })
    }

    /// `list`'s `FILE:LINE` or `LINE` (of the next step's file, else the main file): the
    /// line as given, code or not.
    pub(super) fn parse_list_at(&self, t: &str) -> Result<(String, u32), DebugError> {
        let (file, line) = match t.rsplit_once(':') {
            Some((f, l)) => (f.trim().to_string(), l.trim()),
            None => {
                let f = match self.frames().first() {
                    Some(f) => f.file.clone(),
                    None => self.hlsl().map(Hlsl::main_file).unwrap_or_default(),
                };
                (f, t.trim())
            }
        };
        let line = line
            .parse::<u32>()
            .map_err(|_| DebugError::Command(format!("`{line}` is not a line number")))?;
        Ok((file, line))
    }

    /// Adds a breakpoint on an HLSL line (`FILE:LINE`, or `LINE` of the main file) with
    /// an optional condition; its number and the line it stops on (the first line at or
    /// after the one asked for that holds an instruction, as debuggers move them).
    pub fn break_at_source(
        &mut self,
        at: &str,
        cond: Option<&str>,
    ) -> Result<(u32, String, u32), DebugError> {
        let (file, line) = self.parse_source_line(at)?;
        let parsed = match cond {
            Some(c) => {
                let p = expr::parse_cond(c).map_err(DebugError::Command)?;
                // The names, not the values: an HLSL variable may not be held yet.
                self.check_cond(&p)?;
                Some(p)
            }
            None => None,
        };
        let id = self.add_breakpoint(Breakpoint::Source {
            file: file.clone(),
            line,
            cond: parsed,
            text: cond.unwrap_or("").to_string(),
        });
        Ok((id, file, line))
    }

    /// Whether the lane enters HLSL line `file:line` at position `q`: the step is located
    /// there and the located step before it is not on that same line.
    pub(super) fn enters_source_line(&self, file: &str, line: u32, q: usize) -> bool {
        let Some(f) = self.frames_at(q) else {
            return false;
        };
        let Some(inner) = f.first() else {
            return false;
        };
        if inner.line != line || !same_file(&inner.file, file) {
            return false;
        }
        let mut p = q;
        while let Some(x) = p.checked_sub(1) {
            p = x;
            if let Some(g) = self.frames_at(p) {
                return !hlsl::same_line(f, g);
            }
        }
        true
    }

    /// The text of one HLSL line of a file the program carries (trimmed), if it has it.
    pub(super) fn source_text(&self, file: &str, line: u32) -> Option<&str> {
        let (_, s) = self.hlsl()?.source(file)?;
        s.text
            .lines()
            .nth(line.checked_sub(1)? as usize)
            .map(str::trim)
    }

    /// How a located step reads in `where`: `line 11 of shader.hlsl in main: text`, with
    /// the callers of an inlined function.
    pub(super) fn hlsl_title(&self, frames: &[Frame]) -> Option<String> {
        let inner = frames.first()?;
        let mut s = format!(
            "line {} of {} in {}",
            inner.line, inner.file, inner.function
        );
        for c in frames.iter().skip(1) {
            let _ = write!(s, ", inlined at {}:{} in {}", c.file, c.line, c.function);
        }
        if let Some(t) = self.source_text(&inner.file, inner.line) {
            let _ = write!(s, ": {t}");
        }
        Some(s)
    }

    /// `bt`: the inlined frames of the next step, innermost first.
    pub fn backtrace(&self) -> String {
        let frames = self.frames();
        if frames.is_empty() {
            return match self.hlsl() {
                Some(_) => "#0 (no HLSL location here)".into(),
                None => "#0 the program (no debug info: one frame, the listing)".into(),
            };
        }
        frames
            .iter()
            .enumerate()
            .map(|(k, f)| {
                let inl = if k + 1 < frames.len() {
                    " (inlined)"
                } else {
                    ""
                };
                format!(
                    "#{k} {}{inl} at {}:{}:{}",
                    f.function, f.file, f.line, f.column
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }

    /// `list` with debug info: the HLSL source around a line of the current file (default
    /// the next step's), `=>` at the next step's line and `*` at breakpoints.
    pub(super) fn list_source(&self, around: Option<(String, u32)>) -> Result<String, DebugError> {
        let cur = self.frames().first().map(|f| (f.file.clone(), f.line));
        let h = self
            .hlsl()
            .ok_or_else(|| DebugError::Command("no debug info".into()))?;
        let (file, center) = match around.or_else(|| cur.clone()) {
            Some(x) => x,
            None => (h.main_file(), 1),
        };
        let Some((_, src)) = h.source(&file) else {
            return Err(DebugError::Command(format!(
                "the program does not carry the text of {file} (dx.source.contents or an SRCI part)"
            )));
        };
        let lines: Vec<&str> = src.text.lines().collect();
        let lo = center.saturating_sub(5).max(1);
        let hi = center.saturating_add(5).min(lines.len() as u32);
        let mut s = format!("{}:\n", src.name);
        for l in lo..=hi {
            let here = cur
                .as_ref()
                .is_some_and(|(f, x)| *x == l && same_file(f, &file));
            let mark = if here { "=>" } else { "  " };
            let bp = self.bps.iter().any(|(_, b)| {
                matches!(b, Breakpoint::Source { file: f, line, .. } if *line == l && same_file(f, &file))
            });
            let _ = writeln!(
                s,
                "{mark}{}{l:>5}  {}",
                if bp { '*' } else { ' ' },
                lines.get(l.saturating_sub(1) as usize).unwrap_or(&"")
            );
        }
        Ok(s.trim_end().to_string())
    }

    /// Where each leaf of variable `v` is once the lane has reached source step `q`.
    fn leaves_at(&self, v: usize, q: usize) -> Vec<LeafAt> {
        let Some(h) = self.hlsl() else {
            return Vec::new();
        };
        // The steps run and the one about to run (finished: every step).
        let upto = q.saturating_add(1).min(self.steps.len());
        let keys: Vec<_> = self.steps[..upto].iter().map(|s| s.key).collect();
        h.assemble(v, &keys)
    }

    /// One leaf's bits at source step `q`, or why it has none there.
    fn leaf_bits(&self, l: &LeafAt, q: usize) -> Result<u64, &'static str> {
        let shift = |b: u64| {
            if l.bit >= 64 { 0 } else { b >> l.bit }
        };
        match l.held {
            Held::Nothing => Err("optimised out"),
            Held::Unreadable(why) => Err(why),
            Held::Const(b) => Ok(shift(b)),
            Held::Input(w) => Ok(u64::from(self.rec.value(
                Slot::Input(w),
                self.t(q),
                self.lane,
            ))),
            // As `print o0` reads it: the lane's last output write before the step.
            Held::Output(w) => match self.last_output(w, self.t(q)) {
                Some((s, src)) => Ok(u64::from(self.rec.value(Slot::Reg(src), s + 1, self.lane))),
                None => Err("not written yet"),
            },
            Held::Constant(cb, byte) => {
                let t = format!("cb{cb}[{}].{}", byte / 16, XYZW[(byte % 16 / 4) as usize]);
                let p = expr::parse_place(&t).map_err(|_| "unreadable: no such constant")?;
                match self.resolve(&p) {
                    Ok(Resolved::Constant(v)) => v
                        .first()
                        .map(|(_, b)| u64::from(*b))
                        .ok_or("unreadable: no such constant"),
                    _ => Err(
                        "unreadable: its range names a constant buffer the program does not declare, that is not bound, or past the buffer's end",
                    ),
                }
            }
            Held::InputPoint(..) | Held::OutputPoint(..) | Held::PatchConstant(_) => {
                let c = |b: u32| XYZW[(b % 16 / 4) as usize];
                // The spelling `print` takes for it, read as `print` reads it.
                let t = match l.held {
                    Held::InputPoint(k, b) => format!("vicp[{k}][{}].{}", b / 16, c(b)),
                    Held::OutputPoint(k, b) => format!("vocp[{k}][{}].{}", b / 16, c(b)),
                    Held::PatchConstant(b) => format!("vpc{}.{}", b / 16, c(b)),
                    _ => String::new(),
                };
                match self.chain_input_slots(&t) {
                    Some(Ok(v)) => match v.first() {
                        Some((_, slot, _)) => {
                            Ok(u64::from(self.rec.value(*slot, self.t(q), self.lane)))
                        }
                        None => Err("unreadable: no such input"),
                    },
                    _ => Err(
                        "unreadable: its range names a control point or patch constant this lane does not read",
                    ),
                }
            }
            Held::LocalWord(a, w) => {
                let words = self.rec.local_words.get(a as usize).copied().unwrap_or(0) as u64;
                if u64::from(w) >= words {
                    return Err("unreadable: past the end of its indexable temp");
                }
                Ok(u64::from(self.rec.value(
                    Slot::Local(a, w),
                    self.t(q),
                    self.lane,
                )))
            }
            Held::Reg(r) => {
                let time = self.t(q);
                if self
                    .rec
                    .last_lane_write(Slot::Reg(r), time, self.lane)
                    .is_none()
                {
                    return Err("optimised out (not computed yet)");
                }
                Ok(u64::from(self.rec.value(Slot::Reg(r), time, self.lane)))
            }
            Held::Local(inst) => {
                // The local array of that name: its words as the lowering placed them
                // (an array the lane has not stored to reads as its initial zeros).
                let view = &self.target.program.view;
                let name = self
                    .hlsl()
                    .and_then(|h| h.alloca_name(inst))
                    .ok_or("optimised out")?;
                let mut named = view.locals.iter().enumerate().filter(|(_, n)| *n == name);
                let (Some((a, _)), None) = (named.next(), named.next()) else {
                    return Err("optimised out (its memory is not known)");
                };
                let words = self.rec.local_words.get(a).copied().unwrap_or(0) as u64;
                let word = l.bit / 32;
                let last = l.bit.saturating_add(l.leaf.size.max(1) - 1) / 32;
                if last >= words {
                    return Err("optimised out (past the end of its memory)");
                }
                let time = self.t(q);
                let read = |w: u64| {
                    u64::from(
                        self.rec
                            .value(Slot::Local(a as u32, w as u32), time, self.lane),
                    )
                };
                let lo = read(word);
                let hi = if last > word { read(word + 1) } else { 0 };
                Ok((lo | hi << 32) >> (l.bit % 32))
            }
            Held::Def(inst) => {
                let view = &self.target.program.view;
                let Some(var) = view.vars.iter().find(|x| x.def == Some(inst)) else {
                    return Err("optimised out");
                };
                let k = (l.bit / 32) as usize;
                let time = self.t(q);
                let Some(&r) = var.regs.get(k).filter(|r| **r != u32::MAX) else {
                    return Err("optimised out");
                };
                if self
                    .rec
                    .last_lane_write(Slot::Reg(r), time, self.lane)
                    .is_none()
                {
                    return Err("optimised out (not computed yet)");
                }
                let lo = u64::from(self.rec.value(Slot::Reg(r), time, self.lane));
                let hi = match var.regs.get(k + 1) {
                    Some(&r2) if l.leaf.size > 32 && r2 != u32::MAX => {
                        u64::from(self.rec.value(Slot::Reg(r2), time, self.lane))
                    }
                    _ => 0,
                };
                Ok((lo | hi << 32) >> (l.bit % 32))
            }
        }
    }

    /// One leaf's value as text (`optimised out` where nothing holds it).
    fn leaf_text(&self, l: &LeafAt, fmt: Fmt) -> String {
        let ty = hlsl::leaf_ty(&l.leaf);
        let bits = match self.leaf_bits(l, self.pos) {
            Ok(b) => b,
            Err(why) => return why.into(),
        };
        match ty {
            Ty::Double if fmt == Fmt::Natural => {
                format!("{} (0x{bits:016x})", f64::from_bits(bits))
            }
            Ty::I64 if fmt == Fmt::Natural => format!("{} (0x{bits:016x})", bits as i64),
            Ty::Half => format::value_text((bits & 0xffff) as u32, ty, fmt),
            Ty::Bool => format::value_text(if bits & 1 == 1 { u32::MAX } else { 0 }, ty, fmt),
            _ => format::value_text(bits as u32, ty, fmt),
        }
    }

    /// The variable an HLSL spelling names (`p.x` → `p`) in the next step's frames, and
    /// its leaves under the spelling's path at source step `q`; `None` when no variable
    /// has that name.
    fn named_leaves(&self, t: &str, q: usize) -> Option<(String, String, Vec<LeafAt>)> {
        self.named_variable(t, q)
            .map(|(name, path, leaves, _)| (name, path, leaves))
    }

    /// As [`Debugger::named_leaves`], with the variable's index.
    fn named_variable(&self, t: &str, q: usize) -> Option<(String, String, Vec<LeafAt>, usize)> {
        let h = self.hlsl()?;
        let end = t.find(['.', '[']).unwrap_or(t.len());
        let (name, path) = t.split_at(end);
        let path = matrix_path(path);
        // The frames of step `q` (finished: of the last step).
        let at = q.min(self.steps.len().saturating_sub(1));
        let funcs: Vec<&str> = self
            .frames_at(at)
            .unwrap_or_default()
            .iter()
            .map(|f| f.function.as_str())
            .collect();
        let v = *h.variables_named(name, &funcs).first()?;
        let leaves = self
            .leaves_at(v, q)
            .into_iter()
            .filter(|l| below(&l.leaf.path, &path))
            .collect();
        Some((name.to_string(), path, leaves, v))
    }

    /// `NAME = unreadable: …` when the variable a spelling names does not read as a
    /// whole (its type record does not read).
    fn unreadable_named(&self, t: &str) -> Option<String> {
        let h = self.hlsl()?;
        let name = &t[..t.find(['.', '[']).unwrap_or(t.len())];
        let at = self.pos.min(self.steps.len().saturating_sub(1));
        let funcs: Vec<&str> = self
            .frames_at(at)
            .unwrap_or_default()
            .iter()
            .map(|f| f.function.as_str())
            .collect();
        let v = *h.variables_named(name, &funcs).first()?;
        h.unreadable(v)
            .map(|why| format!("{name} = unreadable: {why}"))
    }

    /// `print NAME` for an HLSL variable (`p`, `p.x`, `s.pos.y`, `a[1]`, `m[1][2]`,
    /// `m._m12`): one line per scalar, a matrix one line per row; `None` when no
    /// variable has that name.
    pub(super) fn print_hlsl(&self, t: &str, fmt: Fmt) -> Option<String> {
        if let Some(why) = self.unreadable_named(t) {
            return Some(why);
        }
        let (name, path, leaves) = self.named_leaves(t, self.pos)?;
        if leaves.is_empty() {
            return Some(format!("{name} has no member {path}"));
        }
        let mut lines: Vec<(String, Vec<String>)> = Vec::new();
        for l in &leaves {
            let value = self.leaf_text(l, fmt);
            // A matrix's elements print by row: `m[1] = a, b, c`.
            let row = l
                .leaf
                .matrix
                .then(|| l.leaf.path.rfind('[').map(|k| &l.leaf.path[..k]))
                .flatten()
                .filter(|r| r.len() >= path.len());
            match (row, lines.last_mut()) {
                (Some(r), Some((last, vals))) if *last == format!("{name}{r}") => vals.push(value),
                (Some(r), _) => lines.push((format!("{name}{r}"), vec![value])),
                (None, _) => lines.push((format!("{name}{}", l.leaf.path), vec![value])),
            }
        }
        Some(
            lines
                .iter()
                .map(|(n, v)| format!("{n} = {}", v.join(", ")))
                .collect::<Vec<_>>()
                .join("\n"),
        )
    }

    /// An HLSL scalar's value at source step `q`, for a condition: `None` when no HLSL
    /// variable has the spelling's name; an error when the spelling names more than one
    /// scalar, or one that nothing holds at that step (optimised out).
    pub(super) fn hlsl_scalar(&self, t: &str, q: usize) -> Option<Result<Scalar, DebugError>> {
        let (_, _, leaves) = self.named_leaves(t, q)?;
        let l = match leaves.as_slice() {
            [l] => l,
            [] => {
                return Some(Err(DebugError::Command(format!(
                    "`{t}` names no HLSL variable or member"
                ))));
            }
            many => {
                return Some(Err(DebugError::Command(format!(
                    "`{t}` has {} scalars; a condition compares one",
                    many.len()
                ))));
            }
        };
        let bits = match self.leaf_bits(l, q) {
            Ok(b) => b,
            Err(why) => {
                return Some(Err(DebugError::Command(format!("`{t}` is {why} here"))));
            }
        };
        let ty = hlsl::leaf_ty(&l.leaf);
        let float = |f: f32| Scalar {
            bits: u64::from(f.to_bits()),
            float: true,
            signed: false,
        };
        Some(Ok(match ty {
            Ty::Float => float(f32::from_bits(bits as u32)),
            Ty::Half => float(half::f16::from_bits(bits as u16).to_f32()),
            Ty::Double => float(f64::from_bits(bits) as f32),
            Ty::Int => Scalar {
                bits: bits as u32 as i32 as i64 as u64,
                float: false,
                signed: true,
            },
            Ty::I64 if l.leaf.encoding == crate::dxil::debuginfo::Encoding::Signed => Scalar {
                bits,
                float: false,
                signed: true,
            },
            Ty::Bool => Scalar {
                bits: bits & 1,
                float: false,
                signed: false,
            },
            _ => Scalar {
                bits: if l.leaf.size >= 64 {
                    bits
                } else {
                    bits & ((1u64 << l.leaf.size.min(63)) - 1)
                },
                float: false,
                signed: false,
            },
        }))
    }

    /// Whether an HLSL spelling names a scalar of a variable (checked when a
    /// breakpoint's condition is set, when the value may not be held yet); `None` when
    /// no HLSL variable has the spelling's name.
    pub(super) fn hlsl_names_scalar(&self, t: &str) -> Option<Result<(), DebugError>> {
        let (_, _, leaves) = self.named_leaves(t, self.pos)?;
        Some(match leaves.len() {
            1 => Ok(()),
            0 => Err(DebugError::Command(format!(
                "`{t}` names no HLSL variable or member"
            ))),
            n => Err(DebugError::Command(format!(
                "`{t}` has {n} scalars; a condition compares one"
            ))),
        })
    }

    /// The HLSL variables of frame `depth` (0: innermost) at the current position, one
    /// entry per variable: a scalar's value, or `x = …, y = …` by member and element.
    pub fn locals(&self, depth: usize) -> Vec<ScopeValue> {
        self.local_members(depth)
            .into_iter()
            .map(|m| ScopeValue {
                name: m.name,
                value: m.value,
                watch: None,
            })
            .collect()
    }

    /// The HLSL variables of frame `depth` (0: innermost) at the current position as
    /// members: each with its value as [`Debugger::locals`] shows it and, for a
    /// vector, matrix, structure or array, the count of its children
    /// ([`Debugger::hlsl_members`] lists them).
    pub fn local_members(&self, depth: usize) -> Vec<HlslMember> {
        let Some(h) = self.hlsl() else {
            return Vec::new();
        };
        let frames = self.frames();
        let Some(f) = frames.get(depth) else {
            return Vec::new();
        };
        h.variables_of(&f.function)
            .into_iter()
            .map(|v| {
                let name = h.info.variables[v].name.clone();
                if let Some(why) = h.unreadable(v) {
                    return HlslMember {
                        spelling: name.clone(),
                        name,
                        value: format!("unreadable: {why}"),
                        variable: v,
                        path: String::new(),
                        named: 0,
                        indexed: 0,
                    };
                }
                let leaves = self.leaves_at(v, self.pos);
                self.member(v, &name, name.clone(), "", &leaves)
            })
            .collect()
    }

    /// The children of HLSL variable `variable` (an index of the debug info's
    /// variables) below `path` (`""`: the variable; `.b`, `[1]`: a member, an element or
    /// a matrix row) at the current position: a structure's members by name, an array's
    /// elements and a matrix's rows as `[i]`, a vector's or row's components. Empty for
    /// a scalar, a path the variable does not have, or a variable past the debug info.
    pub fn hlsl_members(&self, variable: usize, path: &str) -> Vec<HlslMember> {
        let Some(h) = self.hlsl() else {
            return Vec::new();
        };
        let Some(var) = h.info.variables.get(variable) else {
            return Vec::new();
        };
        if h.unreadable(variable).is_some() {
            return Vec::new();
        }
        let leaves: Vec<LeafAt> = self
            .leaves_at(variable, self.pos)
            .into_iter()
            .filter(|l| below(&l.leaf.path, path))
            .collect();
        let mut segments: Vec<&str> = Vec::new();
        for l in &leaves {
            if let Some(s) = next_segment(&l.leaf.path[path.len()..])
                && !segments.contains(&s)
            {
                segments.push(s);
            }
        }
        segments
            .into_iter()
            .map(|s| {
                let child = format!("{path}{s}");
                let of: Vec<LeafAt> = (leaves.iter())
                    .filter(|l| below(&l.leaf.path, &child))
                    .cloned()
                    .collect();
                let label = s.trim_start_matches('.').to_string();
                self.member(
                    variable,
                    &label,
                    format!("{}{child}", var.name),
                    &child,
                    &of,
                )
            })
            .collect()
    }

    /// The HLSL variable and path an expression names when it is a vector, matrix,
    /// structure or array (or a member of one that has children), with its children's
    /// counts; `None` for a scalar or anything else.
    pub fn hlsl_composite(&self, t: &str) -> Option<HlslMember> {
        let h = self.hlsl()?;
        let (name, path, leaves, v) = self.named_variable(t, self.pos)?;
        if h.unreadable(v).is_some() {
            return None;
        }
        let m = self.member(v, &name, format!("{name}{path}"), &path, &leaves);
        (m.named + m.indexed > 0).then_some(m)
    }

    /// A member of `variable` at `path` whose leaves are `leaves`: its value (a scalar's,
    /// else `x = …, y = …` by the paths below it) and its children's counts.
    fn member(
        &self,
        variable: usize,
        name: &str,
        spelling: String,
        path: &str,
        leaves: &[LeafAt],
    ) -> HlslMember {
        let value = match leaves {
            [l] if l.leaf.path == path => self.leaf_text(l, Fmt::Natural),
            _ => leaves
                .iter()
                .map(|l| {
                    format!(
                        "{} = {}",
                        l.leaf.path[path.len().min(l.leaf.path.len())..].trim_start_matches('.'),
                        self.leaf_text(l, Fmt::Natural)
                    )
                })
                .collect::<Vec<_>>()
                .join(", "),
        };
        let mut seen: Vec<&str> = Vec::new();
        for l in leaves {
            if let Some(s) = l.leaf.path.get(path.len()..).and_then(next_segment)
                && !seen.contains(&s)
            {
                seen.push(s);
            }
        }
        let indexed = seen.iter().filter(|s| s.starts_with('[')).count();
        HlslMember {
            name: name.to_string(),
            value,
            spelling,
            variable,
            path: path.to_string(),
            named: seen.len() - indexed,
            indexed,
        }
    }
}

/// One HLSL variable, or one child of it, for a client that expands composites (the
/// DAP server's `variables` children).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct HlslMember {
    /// As the client shows it: the variable's name, a member's name (`b`), an element's
    /// or a matrix row's index (`[1]`), a component (`x`).
    pub name: String,
    /// Its value: a scalar's, else its scalars by path (`a = 0.0, b = 8`).
    pub value: String,
    /// What `print` takes for it (`st.b`, `m[1]`).
    pub spelling: String,
    /// The debug info's variable it belongs to.
    pub variable: usize,
    /// Its path below the variable (`""`, `.b`, `[1]`, `[1][2]`).
    pub path: String,
    /// Its children named by member (`.b`, `.x`).
    pub named: usize,
    /// Its children named by index (`[i]`).
    pub indexed: usize,
}

/// Whether leaf path `p` is `path` or below it.
fn below(p: &str, path: &str) -> bool {
    p == path || (p.starts_with(path) && p[path.len()..].starts_with(['.', '[']))
}

/// The first segment of a path (`.b` of `.b.x`, `[1]` of `[1][2]`); `None` when empty.
fn next_segment(rest: &str) -> Option<&str> {
    let end = match rest.as_bytes().first()? {
        b'[' => rest.find(']')? + 1,
        _ => rest[1..].find(['.', '[']).map_or(rest.len(), |k| k + 1),
    };
    Some(&rest[..end])
}

/// A path below an HLSL variable with a matrix element spelled `._m12` (row and column
/// from 0) or `._23` (from 1), as HLSL spells them, turned into the `[1][2]` the debug
/// info reader names matrix elements by.
fn matrix_path(path: &str) -> String {
    let mut out = String::new();
    for (k, seg) in path.split('.').enumerate() {
        if k == 0 {
            out.push_str(seg);
            continue;
        }
        let (name, rest) = seg.split_at(seg.find('[').unwrap_or(seg.len()));
        let zero = name
            .strip_prefix("_m")
            .map(|d| d.as_bytes())
            .and_then(|d| match d {
                [r @ b'0'..=b'3', c @ b'0'..=b'3'] => Some((r - b'0', c - b'0')),
                _ => None,
            });
        match zero.or_else(|| {
            crate::dxil::debuginfo::matrix_element(name).map(|(r, c)| (r as u8, c as u8))
        }) {
            Some((r, c)) => {
                let _ = write!(out, "[{r}][{c}]{rest}");
            }
            None => {
                out.push('.');
                out.push_str(seg);
            }
        }
    }
    out
}
