//! Moving over the record: `step`, `next`, `finish`, `back`, `goto`, `continue` and
//! `reverse-continue`. Nothing is executed again: a position is a place in the lane's
//! recorded source steps, and each command's own work charges the run's time limit.

use std::fmt::Write as _;

use super::Debugger;
use super::breakpoint::Breakpoint;
use crate::debug::DebugError;
use crate::debug::source::{Key, Lang};

impl Debugger {
    /// The start of a command's work, for [`Debugger::charge_time`].
    pub(super) fn clock(&self) -> std::time::Instant {
        std::time::Instant::now()
    }

    /// Refuses to go on with a command (`what`) that has taken longer than the run's time
    /// limit (`max_seconds`, `--max-seconds`): a command's work charges the same time
    /// budget a run does. Without a limit, nothing is checked.
    pub(super) fn charge_time(
        &self,
        started: &std::time::Instant,
        what: &str,
    ) -> Result<(), DebugError> {
        match self.target.plan.limits.max_wall_time {
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
        self.advance_to(end)
    }

    /// Runs the steps from the position to `end`, printing what each did (a long run:
    /// its first and last ones).
    pub(super) fn advance_to(&mut self, end: usize) -> String {
        let end = end.min(self.steps.len());
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
        let from = self.pos;
        self.pos = self.steps.len();
        for q in from + 1..self.steps.len() {
            match self.steps.get(q).and_then(|s| s.key) {
                Some(k) if Self::same_function(k, cur) && k.1 >= cur.1 => {
                    self.pos = q;
                    break;
                }
                _ => continue,
            }
        }
        // A ray-generation lane's TraceRay or CallShader stepped over: what it ran.
        let mut out = self.passed_ray_calls(from, self.pos);
        out.push_str(&self.where_text());
        out
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

    pub(super) fn stop_text(&self, id: u32, bp: &Breakpoint, why: &str) -> String {
        let mut s = format!("breakpoint {id}: {}", self.bp_text(bp));
        if !why.is_empty() {
            let _ = write!(s, " — {why}");
        }
        let _ = write!(s, "\n{}", self.where_text());
        s
    }

    pub(super) fn end_text(&self) -> String {
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
}
