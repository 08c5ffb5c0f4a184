//! The text commands of scripts and the prompt (`help` lists them): each line parsed
//! and run on the session.

use crate::exec::At;

use super::Debugger;
use super::breakpoint::Breakpoint;
use super::resolve::Resolved;
use super::source_level::LineMove;
use crate::debug::DebugError;
use crate::debug::expr;
use crate::debug::format::Fmt;
use crate::debug::source::Key;
use crate::debug::target::LaneSelect;
use crate::exec::WriteTarget;

impl Debugger {
    /// Runs one text command (see `help`) and returns what it prints.
    pub fn execute(&mut self, line: &str) -> Result<String, DebugError> {
        let line = line.trim();
        let (cmd, rest, fmt) = split_command(line)?;
        // A ray-generation lane with the programs it invoked recorded: moves go over
        // their steps too, and inside one the program's own record answers.
        if let Some(r) = self.execute_nested(cmd, rest, fmt, line) {
            return r;
        }
        let before = self.pos;
        let r = self.execute_plain(cmd, rest, fmt);
        if self.pos != before {
            self.sync_line_pos();
        }
        r
    }

    fn execute_plain(&mut self, cmd: &str, rest: &str, fmt: Fmt) -> Result<String, DebugError> {
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
            "step" | "s" if self.source_level() => {
                Ok(self.step_lines(count(rest)?, LineMove::Into))
            }
            "next" | "n" if self.source_level() => {
                let n = count(rest)?;
                let clock = self.clock();
                for _ in 0..n {
                    self.charge_time(&clock, "next")?;
                    let q = self.line_target(LineMove::Over);
                    if q == self.pos {
                        break;
                    }
                    self.pos = q;
                }
                Ok(self.where_text())
            }
            "finish" | "fin" if self.source_level() && self.frames().len() > 1 => {
                self.pos = self.line_target(LineMove::Out);
                Ok(self.where_text())
            }
            "back" | "b" | "reverse-step" | "rs" if self.source_level() => {
                Ok(self.back_lines(count(rest)?))
            }
            "backi" | "reverse-stepi" | "rsi" => Ok(self.back(count(rest)?)),
            "bt" | "backtrace" => Ok(self.backtrace()),
            "where" | "w" | "info" if self.source_level() => {
                Ok(format!("{}\n{}", self.where_text(), self.backtrace()))
            }
            "list" | "l" if self.source_level() => {
                let at = if rest.is_empty() {
                    None
                } else {
                    Some(self.parse_list_at(rest)?)
                };
                self.list_source(at)
            }
            "listing" => {
                let at = if rest.is_empty() {
                    None
                } else {
                    Some(self.parse_line(rest)?)
                };
                Ok(self.list(at))
            }
            "step" | "s" | "stepi" | "si" => Ok(self.step(count(rest)?)),
            "next" | "n" | "nexti" | "ni" => {
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
                    match self.print_hlsl(t.trim(), fmt) {
                        Some(x) => out.push(x),
                        None => out.push(self.print(t.trim(), fmt)?),
                    }
                }
                Ok(out.join("\n"))
            }
            "regs" | "registers" => Ok(self.regs()),
            "inputs" => Ok(self.inputs()),
            "rays" => Ok(self.rays_text()),
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
                if self.source_level() && !at.starts_with('#') {
                    let (id, _, _) = self.break_at_source(at, cond)?;
                    return Ok(format!(
                        "breakpoint {id}: {}",
                        self.breakpoint_text(id).unwrap_or_default()
                    ));
                }
                let line = self.parse_line(at)?;
                let parsed = match cond {
                    Some(c) => {
                        let p = expr::parse_cond(c).map_err(DebugError::Command)?;
                        // Resolve the names now, so that a typo fails here.
                        self.eval(&p, self.pos)?;
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
    pub(super) fn parse_line(&self, t: &str) -> Result<u32, DebugError> {
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

/// A command line's command, its argument text and the format a `/x` suffix asks for.
fn split_command(line: &str) -> Result<(&str, &str, Fmt), DebugError> {
    let (cmd, rest) = match line.split_once(char::is_whitespace) {
        Some((c, r)) => (c, r.trim()),
        None => (line, ""),
    };
    match cmd.split_once('/') {
        Some((c, f)) => {
            let mut chars = f.chars();
            match (chars.next().and_then(Fmt::from_letter), chars.next()) {
                (Some(x), None) => Ok((c, rest, x)),
                _ => Err(DebugError::Command(format!(
                    "unknown format `/{f}` (x, f, i, u, h)"
                ))),
            }
        }
        None => Ok((cmd, rest, Fmt::Natural)),
    }
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
                       (with HLSL debug info: N HLSL lines, into inlined calls)
  stepi [N], si        run N source instructions, with or without debug info
  next [N], n          step over a call; at a loop's last instruction, over one whole iteration
                       (with HLSL debug info: to the next HLSL line of this function)
  nexti [N], ni        `next` by instruction, with or without debug info
  finish               run until the current subroutine returns (main program: to the end)
                       (with HLSL debug info: out of the current inlined function)
  continue, c          run to the next breakpoint or the end
  back [N], b          go back N steps (recorded values; nothing is re-run); with HLSL
                       debug info, to the start of the N-th line before
  backi [N]            go back N instructions, with or without debug info
  reverse-continue, rc go back to the previous breakpoint or the start
  goto N               go to step N
  where, w             where the lane is
  bt, backtrace        the HLSL frames (inlined functions) of the next step; inside a
                       program a ray invoked, a frame per program (closest-hit, ray generation)
  list [LINE], l       the listing around the next instruction, and what the last one did
                       (with HLSL debug info: the HLSL source; `list FILE:LINE`)
  listing [LINE]       the listing, with or without debug info
  print[/x|f|i|u|h] P  values: r3, r3.xy, vThreadID.x, %42, %name, cb0[2].y, x0[1], u0[5], gs[3]
  regs                 every register or value the lane has written so far
  wave P               one value across the lanes of the wave, with the active and helper masks
  inputs               the lane's inputs by signature element (v1.xy, SV_Position, …)
  outputs              a vertex or pixel lane's outputs (o0, SV_Target) and the targets after the draw
  why P [DEPTH]        the instructions and inputs that produced a value
  rays                 a ray-generation lane's TraceRay and CallShader calls and the programs
                       each ran (kind, shader-table record, instance, primitive, payload)
  diff LANE            where this lane and lane LANE of the wave part; any other lane:
                       diff thread x,y,z | diff pixel x,y [sample n] [prim k] | diff vertex n
  lane N               switch to lane N of the wave
  break LINE [if COND] stop before the lane runs LINE (or #INDEX); COND like `r0.x > 4 && %3 == 0`
                       (with HLSL debug info: HLSL LINE of the main file, or FILE:LINE)
  break NAME:LINE      a ray lane: stop at LINE of the listing of export NAME, in any of its runs
  break nan            stop after the lane first writes a NaN or an infinity
  watch P              stop after the lane writes a register or value, or any lane writes u0[5] / gs[3]
  breakpoints, delete [N]
  help";

#[cfg(test)]
mod tests {
    use super::*;

    /// `--thread x,y,z` and `diff thread x,y,z` (docs/debugger.md): three numbers,
    /// spaces allowed around them; anything else is an error naming the text.
    #[test]
    fn thread_ids_are_three_numbers() {
        assert_eq!(parse_xyz("3,4,5").unwrap(), [3, 4, 5]);
        assert_eq!(parse_xyz(" 3 , 4,5 ").unwrap(), [3, 4, 5]);
        let e = parse_xyz("3,4").unwrap_err().to_string();
        assert!(e.contains("`3,4` is not x,y,z"), "{e}");
        let e = parse_xyz("3,x,5").unwrap_err().to_string();
        assert!(e.contains("`x` in `3,x,5` is not a number"), "{e}");
        assert!(parse_xyz("1,2,3,4").is_err());
        assert!(parse_xyz("-1,2,3").is_err());
    }

    /// `diff pixel x,y [sample n] [prim k]` (docs/debugger.md): sample and primitive
    /// default to 0 and come in either order.
    #[test]
    fn pixel_lanes_name_a_pixel_then_sample_and_primitive() {
        let px = |x, y, sample, prim| LaneSelect::Pixel { x, y, sample, prim };
        assert_eq!(parse_pixel("6,7").unwrap(), px(6, 7, 0, 0));
        assert_eq!(parse_pixel("6,7 sample 2").unwrap(), px(6, 7, 2, 0));
        assert_eq!(parse_pixel("6,7 prim 1 sample 3").unwrap(), px(6, 7, 3, 1));
        let e = parse_pixel("6").unwrap_err().to_string();
        assert!(e.contains("is not a pixel x,y"), "{e}");
        let e = parse_pixel("6,7 layer 1").unwrap_err().to_string();
        assert!(e.contains("`layer`"), "{e}");
        let e = parse_pixel("6,7 sample").unwrap_err().to_string();
        assert!(e.contains("is not a sample number"), "{e}");
    }

    /// `diff vertex n [instance i]` (docs/debugger.md): the instance defaults to 0.
    #[test]
    fn vertex_lanes_name_a_vertex_then_an_instance() {
        assert_eq!(
            parse_vertex("5").unwrap(),
            LaneSelect::Vertex {
                vertex: 5,
                instance: 0
            }
        );
        assert_eq!(
            parse_vertex("5 instance 2").unwrap(),
            LaneSelect::Vertex {
                vertex: 5,
                instance: 2
            }
        );
        let e = parse_vertex("five").unwrap_err().to_string();
        assert!(e.contains("`five` is not a vertex number"), "{e}");
        let e = parse_vertex("5 prim 1").unwrap_err().to_string();
        assert!(e.contains("after the vertex comes `instance i`"), "{e}");
    }
}
