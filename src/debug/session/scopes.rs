//! The session's state as structured data for a front end that shows it in panes rather
//! than as text (the Debug Adapter Protocol server, `debug::dap`): the lanes of the
//! wave, the current listing line, the values by scope, and breakpoints by number.
//!
//! Everything here reads what the text commands read; nothing is computed a second way.

use super::breakpoint::Breakpoint;
use super::resolve::Resolved;
use super::{Debugger, lane_bit};
use crate::debug::DebugError;
use crate::debug::expr;
use crate::debug::format::{self, Fmt, Ty};
use crate::exec::WriteTarget;
use crate::ir::ResourceClass;
use crate::resources::Descriptor;

/// A group of values a front end shows together.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Scope {
    /// The registers (DXBC) or SSA values (DXIL) the lane has written so far.
    Values,
    /// The lane's stage inputs (vertex and pixel lanes).
    Inputs,
    /// The lane's outputs when its wave finished (vertex and pixel lanes).
    Outputs,
    /// The constant buffers the program declares, row by row.
    Constants,
    /// Group shared memory, word by word (compute lanes whose program declares some).
    Shared,
}

impl Scope {
    /// Every scope, in the order a front end lists them.
    pub const ALL: [Scope; 5] = [
        Scope::Values,
        Scope::Inputs,
        Scope::Outputs,
        Scope::Constants,
        Scope::Shared,
    ];

    /// The scope's title.
    pub fn title(self) -> &'static str {
        match self {
            Scope::Values => "Registers and values",
            Scope::Inputs => "Inputs",
            Scope::Outputs => "Outputs",
            Scope::Constants => "Constant buffers",
            Scope::Shared => "Group shared",
        }
    }
}

/// One named value of a scope.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScopeValue {
    /// As the program names it (`r1`, `%12`, `cb0[2]`, `gs[5]`, `v1.xy TEXCOORD0`).
    pub name: String,
    /// Its value as `print` shows it; a vector as `x = …, y = …`.
    pub value: String,
    /// What `watch` takes to stop where it is written (`r1`, `gs[5]`), when it can be.
    pub watch: Option<String>,
}

/// The most rows or words one scope lists (a large constant buffer or group shared
/// array is cut there; `print` reaches the rest).
pub const MAX_SCOPE_VALUES: usize = 1024;

impl Debugger {
    /// The listing line of the next step; when the lane has finished, of its last step.
    pub fn current_line(&self) -> Option<u32> {
        let p = if self.pos < self.steps.len() {
            self.pos
        } else {
            self.steps.len().checked_sub(1)?
        };
        self.line_of(self.steps[p].key)
    }

    /// Whether the lane has run its last step.
    pub fn finished(&self) -> bool {
        self.pos >= self.steps.len()
    }

    /// The lanes of the observed wave (or quad), each with the invocation it stands for.
    pub fn wave_lanes(&self) -> Vec<(usize, String)> {
        (0..self.rec.width.min(128))
            .filter(|&l| lane_bit(self.rec.lanes, l))
            .map(|l| (l, self.lane_text(l)))
            .collect()
    }

    /// The scopes that have something to show for this lane.
    pub fn scopes(&self) -> Vec<Scope> {
        let sh = &self.target.program.debug_shader;
        Scope::ALL
            .into_iter()
            .filter(|s| match s {
                Scope::Values => true,
                Scope::Inputs => !sh.inputs.is_empty(),
                Scope::Outputs => self.traced.is_some() && !sh.outputs.is_empty(),
                Scope::Constants => self
                    .target
                    .program
                    .shader
                    .resources
                    .iter()
                    .any(|r| r.class == ResourceClass::Cbv),
                Scope::Shared => self.target.program.shader.groupshared_bytes > 0,
            })
            .collect()
    }

    /// The values of a scope at the current position.
    pub fn scope_values(&self, scope: Scope) -> Vec<ScopeValue> {
        match scope {
            Scope::Values => self.written_values(),
            Scope::Inputs => text_rows(&self.inputs(), "inputs of lane"),
            Scope::Outputs => self
                .outputs_text()
                .map(|t| text_rows(&t, "outputs of lane"))
                .unwrap_or_default(),
            Scope::Constants => self.constant_rows(),
            Scope::Shared => self.shared_words(),
        }
    }

    /// Registers and values the lane has written, one entry per program value.
    fn written_values(&self) -> Vec<ScopeValue> {
        let view = &self.target.program.view;
        let mut out = Vec::new();
        for v in &view.vars {
            let mut parts = Vec::new();
            for (c, text) in self.written_components(v) {
                let comp = v.component_name(c);
                // A one-component value shows bare; a vector names each component
                // (`x = …`), as `print r1` does.
                let label = comp
                    .strip_prefix(v.name.as_str())
                    .map(|s| s.trim_start_matches('.'))
                    .unwrap_or("");
                parts.push(if v.regs.len() == 1 || label.is_empty() {
                    text
                } else {
                    format!("{label} = {text}")
                });
            }
            if !parts.is_empty() {
                out.push(ScopeValue {
                    name: v.name.clone(),
                    value: parts.join(", "),
                    watch: Some(v.name.clone()),
                });
            }
        }
        out
    }

    /// Every row of every bound constant buffer the program declares.
    fn constant_rows(&self) -> Vec<ScopeValue> {
        let sh = &self.target.program.shader;
        let mut out = Vec::new();
        for (k, r) in sh.resources.iter().enumerate() {
            if r.class != ResourceClass::Cbv || r.space != 0 {
                continue;
            }
            let Some(descs) = self.target.bindings.ranges.get(k) else {
                continue;
            };
            for (e, d) in descs.iter().enumerate() {
                let Descriptor::ConstantBuffer { size, .. } = d else {
                    continue;
                };
                let Some(reg) = r.lower.checked_add(e as u32) else {
                    continue;
                };
                for row in 0..size.div_ceil(16) {
                    if out.len() >= MAX_SCOPE_VALUES {
                        return out;
                    }
                    let name = format!("cb{reg}[{row}]");
                    // A last row shorter than 16 bytes: its words one by one.
                    let value = match self.resolve_text(&name) {
                        Ok(Resolved::Constant(v)) => join_components(&v),
                        _ => (0..4)
                            .filter_map(|c| {
                                let n = format!("{name}.{}", ['x', 'y', 'z', 'w'][c]);
                                match self.resolve_text(&n) {
                                    Ok(Resolved::Constant(v)) => Some(join_components(&v)),
                                    _ => None,
                                }
                            })
                            .collect::<Vec<_>>()
                            .join(", "),
                    };
                    out.push(ScopeValue {
                        name,
                        value,
                        watch: None,
                    });
                }
            }
        }
        out
    }

    /// Group shared memory as the lane's wave sees it at the current position.
    fn shared_words(&self) -> Vec<ScopeValue> {
        let time = self.t(self.pos);
        let words = u64::from(self.target.program.shader.groupshared_bytes).div_ceil(4);
        (0..words.min(MAX_SCOPE_VALUES as u64))
            .map(|w| ScopeValue {
                name: format!("gs[{w}]"),
                value: format::value_text(self.rec.shared_word(w, time), Ty::Untyped, Fmt::Natural),
                watch: Some(format!("gs[{w}]")),
            })
            .collect()
    }

    /// Adds a breakpoint on a listing line (`break LINE [if COND]`); its number.
    pub fn break_at_line(&mut self, line: u32, cond: Option<&str>) -> Result<u32, DebugError> {
        let line = self.parse_line(&line.to_string())?;
        let parsed = match cond {
            Some(c) => {
                let p = expr::parse_cond(c).map_err(DebugError::Command)?;
                // Resolve the names now, so that a typo fails here.
                self.eval(&p, self.pos)?;
                Some(p)
            }
            None => None,
        };
        Ok(self.add_breakpoint(Breakpoint::Line {
            line,
            cond: parsed,
            text: cond.unwrap_or("").to_string(),
        }))
    }

    /// Adds a watch on a register, value or memory element (`watch P`); its number.
    pub fn watch(&mut self, place: &str) -> Result<u32, DebugError> {
        match self.resolve_text(place)? {
            Resolved::Slots(v) => {
                let slots = v.iter().map(|x| x.1).collect();
                Ok(self.add_breakpoint(Breakpoint::Write {
                    name: place.to_string(),
                    slots,
                }))
            }
            Resolved::Shared(w) => {
                self.watch_memory(place.to_string(), WriteTarget::GroupShared, w * 4, 4);
                Ok(self.next_bp - 1)
            }
            Resolved::Resource {
                binding,
                addr,
                bytes,
                ..
            } => {
                self.watch_memory(
                    place.to_string(),
                    WriteTarget::Resource(binding),
                    addr,
                    bytes,
                );
                Ok(self.next_bp - 1)
            }
            Resolved::Constant(_) => Err(DebugError::Command(
                "constant buffers are never written: nothing to watch".into(),
            )),
        }
    }

    /// Removes breakpoint `id`; whether there was one.
    pub fn remove_breakpoint(&mut self, id: u32) -> bool {
        let before = self.bps.len();
        self.bps.retain(|(i, _)| *i != id);
        self.bps.len() != before
    }

    /// Every position (`0..=len`) at which breakpoint `id` stops the lane, in order, and
    /// the reason at each: what `continue` and `reverse-continue` would stop at with it
    /// alone. A front end counts hits with it (hit-count breakpoints): the n-th entry is
    /// the n-th time the lane reaches the breakpoint, counted from the lane's first step.
    pub fn breakpoint_stops(&self, id: u32) -> Result<Vec<(usize, String)>, DebugError> {
        let Some((_, bp)) = self.bps.iter().find(|(i, _)| *i == id) else {
            return Err(DebugError::Command(format!("there is no breakpoint {id}")));
        };
        let clock = self.clock();
        let mut out = Vec::new();
        for q in 0..=self.steps.len() {
            if q % 1024 == 0 {
                self.charge_time(&clock, "counting breakpoint hits")?;
            }
            if let Some(why) = self.hits(bp, q)? {
                out.push((q, why));
            }
        }
        Ok(out)
    }

    /// The text of breakpoint `id` as `breakpoints` lists it.
    pub fn breakpoint_text(&self, id: u32) -> Option<String> {
        self.bps
            .iter()
            .find(|(i, _)| *i == id)
            .map(|(_, b)| self.bp_text(b))
    }

    /// Whether breakpoint `id` is a watch (it stops after a write) rather than a line.
    pub fn is_watch(&self, id: u32) -> bool {
        self.bps.iter().any(|(i, b)| {
            *i == id && matches!(b, Breakpoint::Write { .. } | Breakpoint::Memory { .. })
        })
    }
}

/// `x = 1 (0x…), y = …` from a constant buffer row's components.
fn join_components(v: &[(String, u32)]) -> String {
    v.iter()
        .map(|(n, b)| {
            let comp = n.rsplit('.').next().unwrap_or(n);
            format!(
                "{comp} = {}",
                format::value_text(*b, Ty::Untyped, Fmt::Natural)
            )
        })
        .collect::<Vec<_>>()
        .join(", ")
}

/// The `name: value` lines of `inputs` or `outputs`, past the heading.
fn text_rows(text: &str, heading: &str) -> Vec<ScopeValue> {
    text.lines()
        .filter(|l| !l.starts_with(heading))
        .map(|l| match l.split_once(": ") {
            Some((n, v)) => ScopeValue {
                name: n.trim().to_string(),
                value: v.to_string(),
                watch: None,
            },
            None => ScopeValue {
                name: String::new(),
                value: l.to_string(),
                watch: None,
            },
        })
        .collect()
}
