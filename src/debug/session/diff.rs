//! `diff`: where the lane's history and another lane's part — the first different
//! value, the first different branch — with a lane of the same wave (from the record) or
//! of another wave (recorded by running the target again).

use std::fmt::Write as _;

use super::{Debugger, inv_text, lane_bit};
use crate::debug::DebugError;
use crate::debug::format::{self, Fmt};
use crate::debug::target::{LanePlace, LaneSelect};
use crate::pipeline::TraceAt;

impl Debugger {
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
            origin: None,
            mesh_origin: None,
            input_origins: None,
            nested: self.nested.clone(),
            nest: None,
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
            Some(TraceAt::Geometry { .. }) => 3,
            Some(TraceAt::Hull { point: Some(_), .. }) => 4,
            Some(TraceAt::Hull { .. }) => 5,
            Some(TraceAt::Domain { .. }) => 6,
            Some(TraceAt::Mesh { .. }) => 7,
            Some(TraceAt::Amplification { .. }) => 8,
            Some(TraceAt::Ray { .. }) => 9,
        };
        let place = self.target.place(sel)?;
        if stage(&place) != stage(&self.place) {
            return Err(DebugError::Command(
                "`diff` compares two lanes of the same program and phase: a pixel lane with a pixel, a vertex lane with a vertex, a geometry, hull or domain lane with one of its own kind".into(),
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
}
