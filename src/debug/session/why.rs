//! `why`: the chain of instructions and inputs that produced a value, walked back
//! def-use from the recorded steps, through the lane's own memory writes, to inputs,
//! system values, loads and constants.

use std::fmt::Write as _;

use crate::exec::{MemWrite, WriteTarget};
use crate::ir::Inst;

use super::Debugger;
use super::resolve::Resolved;
use crate::debug::DebugError;
use crate::debug::format::{self, Fmt, Ty};
use crate::debug::record::{Slot, read_regs};
use crate::debug::source::{Key, Lang};

/// The most levels `why` walks back.
pub const MAX_WHY_DEPTH: usize = 64;

/// What `why` has walked through: the source positions on the current chain (to stop at
/// a loop's earlier iteration) and the writes already shown.
#[derive(Default)]
pub(super) struct WhyState {
    chain: Vec<Key>,
    shown: std::collections::HashSet<(Slot, usize)>,
}

impl Debugger {
    /// The chain of instructions and inputs that produced a value (def-use backwards,
    /// through the lane's own memory writes), `depth` levels deep.
    pub fn why(&self, t: &str, depth: usize) -> Result<String, DebugError> {
        let depth = depth.clamp(1, MAX_WHY_DEPTH);
        let time = self.t(self.pos);
        if let Some(words) = self.output_words(t) {
            // An output word holds what the lane's last output instruction stored: the
            // chain goes on from the register it stored, as it was then.
            let mut out = String::new();
            for (name, word, ty) in words {
                match self.last_output(word, time) {
                    Some((s, src)) => {
                        // Named as the program names the register it stored (DXBC
                        // `r1.x`), else as the output.
                        let reg = self
                            .reg_name(src, None, false)
                            .map_or_else(|| name.clone(), |(n, _)| n);
                        let _ = writeln!(
                            out,
                            "{name}: an output of the lane, stored by its last output write so far:"
                        );
                        self.why_slot(
                            &mut out,
                            &reg,
                            Slot::Reg(src),
                            ty,
                            s + 1,
                            1,
                            depth,
                            &mut WhyState::default(),
                        );
                    }
                    None => {
                        let _ = writeln!(out, "{name}: not written by the lane yet");
                    }
                }
            }
            return Ok(out.trim_end().to_string());
        }
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

    /// `why` inside a program the lane invoked (run `run`, recorded step by step):
    /// from the word `word` of its payload as it left it, through its own steps.
    /// Whether that program's steps are recorded.
    pub(super) fn why_in_invoked(
        &self,
        out: &mut String,
        run: usize,
        word: u32,
        level: usize,
        depth: usize,
    ) -> bool {
        let Some(d) = self.invoked_session(run) else {
            return false;
        };
        let Some((x, _)) = d.target.program.debug_shader.ray.and_then(|r| r.payload) else {
            return false;
        };
        if level >= depth {
            return true;
        }
        let pad = "  ".repeat(level);
        let _ = writeln!(
            out,
            "{pad}inside it, run {run} of the lane (`step` into its TraceRay or CallShader reaches its steps):"
        );
        d.why_slot(
            out,
            &d.local_name(x.0, word),
            Slot::Local(x.0, word),
            Ty::Untyped,
            d.rec.steps.len(),
            level + 1,
            depth,
            &mut WhyState::default(),
        );
        true
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
                (_, Slot::Input(w)) => match self.chain_origin_text(w).or_else(|| self.origin_text()) {
                    Some(o) if self.lane == self.place.lane => {
                        format!("an input of the lane, from the pipeline: {o}")
                    }
                    _ => "an input of the lane, from the pipeline".to_string(),
                },
                (_, Slot::Local(..)) if self.rec.init_locals.contains_key(&slot) => {
                    "as the lane started: passed in by its caller (a payload, parameter or attribute word)".into()
                }
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
        match self.why_ray_payload(out, slot, ws, level + 1, depth) {
            // A payload word a TraceRay or CallShader wrote back: the program that
            // wrote it, then the word the call passed in.
            Some(what) => {
                if level + 2 < depth {
                    let _ = writeln!(out, "{pad}  what {what} passed in:");
                    self.why_slot(out, name, slot, decl, ws, level + 2, depth, seen);
                }
            }
            None => self.why_inputs(out, ws, level + 1, depth, seen, 0),
        }
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
                Inst::InputIndexed { .. } => {
                    // A row chosen at run time (DXBC `v[vOutputControlPointID][0]`): the
                    // word this lane read.
                    if let Some(w) = self.indexed_input_word(ws)
                        && let Some((name, ty)) = self.io_name(true, w)
                    {
                        self.why_slot(out, &name, Slot::Input(w), ty, ws, level, depth, seen);
                    }
                    return;
                }
                Inst::LocalLoad {
                    width,
                    array,
                    addr,
                    offset,
                    mask,
                    ..
                } => {
                    // A word of the lane's own array (a DXIL alloca, a DXBC indexable
                    // temporary): the chain goes on from the last write of the first
                    // word it read (a ray-generation lane's payload after TraceRay
                    // included), then from the address it was read at.
                    let a = self
                        .rec
                        .value(Slot::Reg(addr.0), ws, self.lane)
                        .wrapping_add(*offset);
                    let first = a.wrapping_add(
                        mask.trailing_zeros()
                            * match width {
                                crate::ir::Width::B16 => 2,
                                crate::ir::Width::B32 => 4,
                                crate::ir::Width::B64 => 8,
                            },
                    );
                    if *mask != 0 {
                        let word = first / 4;
                        let name = self.local_name(array.0, word);
                        self.why_slot(
                            out,
                            &name,
                            Slot::Local(array.0, word),
                            Ty::Untyped,
                            ws,
                            level,
                            depth,
                            seen,
                        );
                    }
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
            let first = addr / 4;
            if target == WriteTarget::GroupShared
                && usize::try_from(first).is_ok_and(|w| w < self.rec.shared_init.len())
            {
                return format!(
                    "{pad}not written by the group before this point: the payload its amplification group passed to DispatchMesh\n"
                );
            }
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
}
