//! Who wrote a command list's captured resources: the event, and in it the lane.
//!
//! Owns: naming, for each listed mismatch of a command list's named resource
//! (`resource = "name"`), the last command of the list that wrote or changed its word —
//! and, for a dispatch or a draw, the lane that wrote it, with the `dxlane debug JOB
//! --event N …` command that opens that lane. Does not own: the comparison, the
//! attribution inside one dispatch or draw (`super::writers`, `job::writers`), or
//! placement (`pipeline::Work::pixel_selects`).
//!
//! # Rules
//!
//! - The list runs once more from its start, command by command, on fresh resources,
//!   under the plan the comparison ran. Before each command the watched words are read.
//! - A dispatch runs with a write sink on the descriptors through which its command binds
//!   the resource (`bind = [{ reg, resource }]`); each watched word a thread wrote names
//!   that thread (the same last-writer rule as a dispatch job: `exec::WriterMap`).
//! - A `dispatch_rays` runs with a write sink on each program's bindings of the registers
//!   its command binds the resource at; each watched word names the ray whose lanes
//!   wrote it last, and the nested program when one did (`super::writers::RayWriterMap`).
//!   One whose shader tables are in buffers is made first from the tables as the
//!   commands before it left them (`Command::work_now`), as running it makes it.
//! - A draw runs with an output-merger observer on the render targets and depth buffer
//!   that view the whole resource (mip 0 of a one-slice texture: a view of another mip or
//!   slice is not attributed, and the report says so); each watched sample names the
//!   pixel lane that wrote it last, ranked as `--pixel x,y --prim k` ranks it (the draw
//!   is run again from the same start for the ranks), and, for a draw with geometry or
//!   tessellation stages, the lanes one stage up (`super::writers::origin_links`).
//! - Any other command (a clear, copy or resolve, an indirect dispatch) that changes a
//!   watched word is that word's last writer, named by event with no lane.
//! - Later events win: a word a dispatch wrote and a later copy overwrote is the copy's.
//! - A draw's or dispatch's writes to a resource through other views (a draw's UAVs)
//!   are not attributed; an earlier event's answer then stands, which the report notes.

use super::CaptureError;
use super::compare::{Location, ResourceDiff};
use super::writers::{
    DrawLane, DrawWriters, OriginLink, PixelWriterReport, PixelWriters, RayWriterMap, WriterReport,
    Writers, bindings_of, draw_bindings_by, draw_writer_report, origin_links, several_views,
    shell_word,
};
use crate::exec::RunBudget;
use crate::job::writers::{StageBindings, lane_sample};
use crate::job::{Prepared, Register, ResourceAt, ResourceData};
use crate::pipeline::draw::LaneWriteSink;
use crate::pipeline::{Command, Hooks, LaneSelect, MergeTarget, Work};
use crate::resources::{Memory, Texture};

/// The memory a wanted entry names, when it is a list's named resource.
struct Watched {
    name: String,
    memory: Memory,
    texture: Option<Texture>,
}

/// Names the writer of every listed mismatch of `diffs` (one per `wants` entry) in a run
/// of the list of `p` (prepared afresh: it is run). `job` is the job file as the report
/// names it; `same_run` the flags every debug command gets. Returns notes for the
/// report.
pub(super) fn attribute(
    p: &Prepared,
    wants: &[ResourceAt],
    diffs: &mut [ResourceDiff],
    job: &str,
    same_run: &str,
) -> Result<Vec<String>, CaptureError> {
    let Work::List(commands) = &p.work else {
        return Ok(Vec::new());
    };
    let watched: Vec<Option<Watched>> = wants.iter().map(|w| watched(p, *w)).collect();
    let budget = RunBudget::new(&p.plan.limits);
    let mut notes = Vec::new();
    let mut other_views = false;
    let fail = |n: usize, e: String| {
        CaptureError::Output(format!(
            "the write-tracking run of the list fails at event {n}: {e}"
        ))
    };
    for (i, cmd) in commands.iter().enumerate() {
        let n = i + 1;
        let before: Vec<Vec<Option<u32>>> = watched
            .iter()
            .zip(diffs.iter())
            .map(|(w, d)| match w {
                Some(w) => d
                    .mismatches
                    .iter()
                    .map(|m| w.memory.load_u32(m.address))
                    .collect(),
                None => Vec::new(),
            })
            .collect();
        let mut lanes: Vec<(usize, usize, WriterReport)> = Vec::new();
        // A `dispatch_rays` whose tables are in buffers is made from them as the
        // commands before it left them: the work running it makes.
        let made = cmd.work_now().map_err(|e| fail(n, e))?;
        match made.as_deref() {
            Some(Work::Dispatch(d)) => {
                let binds = p
                    .job
                    .file
                    .commands
                    .get(i)
                    .map(|c| c.bind.as_slice())
                    .unwrap_or_default();
                let entries: Vec<Vec<crate::exec::Binding>> = watched
                    .iter()
                    .map(|w| {
                        let Some(w) = w else { return Vec::new() };
                        binds
                            .iter()
                            .filter(|b| b.resource.as_deref() == Some(w.name.as_str()))
                            .filter_map(|b| Register::parse(&b.reg, b.space))
                            .flat_map(|r| bindings_of(&d.shader, &ResourceAt::Register(r)))
                            .collect()
                    })
                    .collect();
                let writers = Writers::new(&d.shader, entries);
                cmd.run(
                    &p.plan,
                    &budget,
                    Hooks {
                        writes: Some(writers.sink()),
                        ..Hooks::default()
                    },
                )
                .map_err(|e| fail(n, e.to_string()))?;
                for (k, d) in diffs.iter().enumerate() {
                    for (j, m) in d.mismatches.iter().enumerate() {
                        if let Some(r) = writers.writer(k, m.address, job) {
                            lanes.push((k, j, r));
                        }
                    }
                }
            }
            Some(Work::Rays(r)) => {
                let binds = p
                    .job
                    .file
                    .commands
                    .get(i)
                    .map(|c| c.bind.as_slice())
                    .unwrap_or_default();
                // Per entry, per program: each program's bindings of the registers the
                // command binds the entry's resource at.
                let entries: Vec<Vec<Vec<crate::exec::Binding>>> = watched
                    .iter()
                    .map(|w| {
                        let Some(w) = w else { return Vec::new() };
                        let regs: Vec<Register> = binds
                            .iter()
                            .filter(|b| b.resource.as_deref() == Some(w.name.as_str()))
                            .filter_map(|b| Register::parse(&b.reg, b.space))
                            .collect();
                        r.programs
                            .iter()
                            .map(|(s, _)| {
                                regs.iter()
                                    .flat_map(|g| bindings_of(s, &ResourceAt::Register(*g)))
                                    .collect()
                            })
                            .collect()
                    })
                    .collect();
                let writers = RayWriterMap::with_bindings(r, entries);
                cmd.run(
                    &p.plan,
                    &budget,
                    Hooks {
                        writes: Some(writers.sink()),
                        ..Hooks::default()
                    },
                )
                .map_err(|e| fail(n, e.to_string()))?;
                for (k, d) in diffs.iter().enumerate() {
                    for (j, m) in d.mismatches.iter().enumerate() {
                        if let Some(r) = writers.writer(k, m.address, job) {
                            lanes.push((k, j, r));
                        }
                    }
                }
            }
            Some(work @ Work::Draw(dw)) => {
                // The targets that view a watched resource whole.
                let mut keys = Vec::new();
                let targets: Vec<Option<MergeTarget>> = watched
                    .iter()
                    .map(|w| {
                        let w = w.as_ref()?;
                        let t = w.texture.as_ref()?;
                        let same = |v: &Texture| v.memory() == &w.memory;
                        let whole = |v: &Texture| v.desc() == t.desc();
                        let rts = dw.fixed.render_targets();
                        for (ix, v) in rts.iter().enumerate() {
                            if let Some(v) = v
                                && same(&v.texture)
                            {
                                if whole(&v.texture) {
                                    return Some(MergeTarget::Color(ix as u32));
                                }
                                other_views = true;
                            }
                        }
                        match dw.fixed.depth_stencil_view() {
                            Some(v) if same(&v.texture) && whole(&v.texture) => {
                                Some(MergeTarget::DepthStencil)
                            }
                            Some(v) if same(&v.texture) => {
                                other_views = true;
                                None
                            }
                            _ => None,
                        }
                    })
                    .collect();
                for (t, d) in targets.iter().zip(diffs.iter()) {
                    let Some(t) = t else { continue };
                    for m in &d.mismatches {
                        if let Location::Texel {
                            x,
                            y,
                            sample,
                            mip: 0,
                            slice: 0,
                            z: 0,
                            ..
                        } = m.location
                        {
                            keys.push((*t, x, y, sample));
                        }
                    }
                }
                // The UAV words: per entry, each stage's bindings of the registers the
                // command binds the entry's resource at.
                let binds = p
                    .job
                    .file
                    .commands
                    .get(i)
                    .map(|c| c.bind.as_slice())
                    .unwrap_or_default();
                let uav_entries: Vec<_> = watched
                    .iter()
                    .zip(diffs.iter())
                    .map(|(w, d)| {
                        let regs: Vec<Register> = w
                            .iter()
                            .flat_map(|w| {
                                binds
                                    .iter()
                                    .filter(|b| b.resource.as_deref() == Some(w.name.as_str()))
                                    .filter_map(|b| Register::parse(&b.reg, b.space))
                            })
                            .collect();
                        let stages = draw_bindings_by(dw, |s| {
                            regs.iter()
                                .flat_map(|g| bindings_of(s, &ResourceAt::Register(*g)))
                                .collect()
                        });
                        (stages, d.mismatches.iter().map(|m| m.address).collect())
                    })
                    .collect();
                let uav_watched = uav_entries
                    .iter()
                    .any(|(b, _): &(StageBindings, Vec<u64>)| b.iter().any(|v| !v.is_empty()));
                let uavs = DrawWriters::new(uav_entries);
                let start = (!keys.is_empty() || uav_watched).then(|| p.snapshot());
                let pixels = PixelWriters::with_origins(keys);
                let reports = cmd
                    .run(
                        &p.plan,
                        &budget,
                        Hooks {
                            merges: Some(&pixels),
                            writes: uav_watched.then_some(&uavs as &dyn crate::exec::WriteSink),
                            lanes: uav_watched.then_some(&uavs as &dyn LaneWriteSink),
                            pixels: uav_watched
                                .then_some(&uavs as &dyn crate::pipeline::PixelObserver),
                            ..Hooks::default()
                        },
                    )
                    .map_err(|e| fail(n, e.to_string()))?;
                let per_sample = reports.iter().any(|r| match r {
                    crate::pipeline::WorkReport::Draw(r) => r.per_sample,
                    _ => false,
                });
                let mut ranks = Vec::new();
                let mut chains = super::writers::ChainRuns::default();
                let views = several_views(dw);
                for (k, (t, d)) in targets.iter().zip(diffs.iter()).enumerate() {
                    let Some(t) = t else { continue };
                    for (j, m) in d.mismatches.iter().enumerate() {
                        let Location::Texel {
                            x,
                            y,
                            sample,
                            mip: 0,
                            slice: 0,
                            z: 0,
                            ..
                        } = m.location
                        else {
                            continue;
                        };
                        let Some(mut r) = pixels.writer(*t, x, y, Some(sample), per_sample, job)
                        else {
                            continue;
                        };
                        if let Some((lane, _)) = pixels.last_setup((*t, x, y, sample)) {
                            if let (Some(sel), Some(work), Some(start)) =
                                (pixels.origin(lane.prim), cmd.work(), &start)
                            {
                                // The chain's lanes run the draw again from its start;
                                // the resources then go back to what the draw left.
                                let after = p.snapshot();
                                let chain = chains.chain(sel, work, &p.plan, start);
                                r.origin = origin_links(&chain, job);
                                after.restore();
                            } else if let (Some(o), Some(work), Some(start)) =
                                (pixels.mesh_origin(lane.prim), cmd.work(), &start)
                            {
                                // The mesh group runs again from the draw's start; the
                                // resources then go back to what the draw left.
                                let after = p.snapshot();
                                start.restore();
                                r.origin =
                                    super::writers::mesh_origin_links(work, &p.plan, &o, job);
                                after.restore();
                            }
                            if lane.prim > 0 {
                                ranks.push((lanes.len(), lane, sample));
                            }
                        }
                        if views {
                            r = r.in_view(pixels.last_view((*t, x, y, sample)).unwrap_or(0));
                        }
                        lanes.push((k, j, r));
                    }
                }
                // A UAV word a lane of the draw wrote (any stage).
                for (k, d) in diffs.iter().enumerate() {
                    if targets.get(k).is_some_and(Option::is_some) {
                        continue;
                    }
                    for (j, m) in d.mismatches.iter().enumerate() {
                        let Some(w) = uavs.writer(k, m.address) else {
                            continue;
                        };
                        let mut r = draw_writer_report(&w, dw, per_sample, job);
                        if let DrawLane::Pixel {
                            lane: Some(lane), ..
                        } = w.lane
                            && lane.prim > 0
                        {
                            ranks.push((lanes.len(), lane, lane_sample(&lane)));
                        }
                        if views {
                            r = r.in_view(w.view);
                        }
                        lanes.push((k, j, r));
                    }
                }
                if !ranks.is_empty()
                    && let Some(start) = start
                {
                    // The ranks come from the same draw from the same start; it leaves
                    // the resources as the tracked draw did.
                    let after = p.snapshot();
                    start.restore();
                    let asked: Vec<_> = ranks.iter().map(|r| (r.1, r.2)).collect();
                    let selects = work.pixel_selects(&p.plan, &asked).unwrap_or_default();
                    after.restore();
                    for ((at, _, _), sel) in ranks.iter().zip(selects) {
                        if let Ok(LaneSelect::Pixel { prim, .. }) = sel
                            && prim > 0
                            && let Some((_, _, r)) = lanes.get_mut(*at)
                        {
                            r.debug.push_str(&format!(" --prim {prim}"));
                        }
                    }
                }
            }
            _ => {
                cmd.run(&p.plan, &budget, Hooks::default())
                    .map_err(|e| fail(n, e.to_string()))?;
            }
        }
        // Words this command changed without a lane of it named: the command itself.
        for (k, (w, d)) in watched.iter().zip(diffs.iter_mut()).enumerate() {
            let Some(w) = w else { continue };
            for (j, m) in d.mismatches.iter_mut().enumerate() {
                let was = before.get(k).and_then(|b| b.get(j)).copied().flatten();
                if let Some(pos) = lanes.iter().position(|(a, b, _)| (*a, *b) == (k, j)) {
                    let (_, _, r) = lanes.swap_remove(pos);
                    m.writer = Some(at_event(r, n, cmd, job, same_run));
                } else if w.memory.load_u32(m.address) != was {
                    m.writer = Some(no_lane(n, cmd));
                }
            }
        }
    }
    if other_views {
        notes.push(
            "a draw of the list renders to a mip or slice of a compared resource: its texels are not attributed (an earlier event's answer stands)".into(),
        );
    }
    Ok(notes)
}

fn watched(p: &Prepared, at: ResourceAt) -> Option<Watched> {
    let ResourceAt::Named(i) = at else {
        return None;
    };
    let name = p.job.file.resources.get(i as usize)?.name.clone()?;
    let r = p.resource_named(&name).ok()?;
    let (memory, texture) = match r.data {
        ResourceData::Buffer { memory, .. } => (memory.clone(), None),
        ResourceData::Texture(t) => (t.memory().clone(), Some(t.clone())),
    };
    Some(Watched {
        name,
        memory,
        texture,
    })
}

/// `r`, a lane of event `n`: its words and commands name the event.
fn at_event(
    mut r: WriterReport,
    n: usize,
    cmd: &Command,
    job: &str,
    same_run: &str,
) -> WriterReport {
    r.lane = format!("event {n} ({}): {}", cmd.name(), r.lane);
    r.event = Some(n);
    r.debug = event_flag(&r.debug, n, job);
    r.debug.push_str(same_run);
    for link in &mut r.origin {
        *link = OriginLink {
            debug: format!("{}{same_run}", event_flag(&link.debug, n, job)),
            ..link.clone()
        };
    }
    r
}

/// `dxlane debug JOB …` as `dxlane debug JOB --event n …`.
fn event_flag(debug: &str, n: usize, job: &str) -> String {
    let head = format!("dxlane debug {}", shell_word(job));
    match debug.strip_prefix(&head) {
        Some(rest) => format!("{head} --event {n}{rest}"),
        None => debug.to_string(),
    }
}

/// A word event `n` changed with no lane of it named: a command that runs no program
/// (or whose lanes are not named).
fn no_lane(n: usize, cmd: &Command) -> WriterReport {
    let what = if cmd.work().is_some() || cmd.late().is_some() {
        "through a view whose writes are not attributed"
    } else if cmd.name().starts_with("execute_indirect") {
        "whose lanes are not named yet"
    } else {
        "which runs no program: no lane"
    };
    WriterReport {
        lane: format!("event {n} ({}), {what}", cmd.name()),
        thread: None,
        group: None,
        group_thread: None,
        pixel: None,
        sample: None,
        primitive: None,
        instruction: None,
        source: None,
        contested: false,
        writes: 1,
        debug: String::new(),
        origin: Vec::new(),
        event: Some(n),
        ray: None,
        program: None,
        stage: None,
        view: None,
    }
}
