//! Which lane wrote each captured word: a thin adapter over `exec::observe`.
//!
//! Owns (over `job::writers`, which `debug` shares): keeping the last writer of every word of those resources during a
//! write-tracking run ([`Writers`], over `exec::WriterMap`), and saying who that was in a
//! report's words, with the `dxlane debug` command line that opens the debugger on that
//! lane ([`WriterReport`]). Does not own: the observation itself (`exec::observe`).
//!
//! For a `DispatchRays`, a binding indexes its own program's resource ranges:
//! [`RayWriterMap`] watches each resource through every program's bindings of it and
//! names the ray (and the nested program, when one wrote the word).
//!
//! For draws, render targets and the depth-stencil buffer are written by the output
//! merger, not through a descriptor: `job::writers::PixelWriters` watches the pipeline's
//! `MergeObserver` instead and keeps, for every sample of every target, the pixel lane
//! (primitive, pixel, sample) that wrote it last. Writes to one texel happen in draw
//! order within the tile that owns it, so "last" does not depend on worker threads.
//!
//! Kept thin on purpose: everything this module knows of `exec::observe` is in it, so a
//! change there touches one file here.

use serde::Serialize;

use crate::exec::{Binding, Invocation, WriteSink, WriterMap};
use crate::ir::{Shader, Stage};
use crate::job::ResourceAt;
use crate::job::StorageSnapshot;
use crate::job::writers::{ChainLink, DrawStage, lane_chain, lane_words, stage_program};
pub use crate::job::writers::{
    DrawLane, DrawWriter, DrawWriters, PixelWriters, RayWriters, SampleKey, bindings_of,
    draw_bindings, draw_bindings_by,
};
use crate::pipeline::rays::RaysWork;
use crate::pipeline::trace::{InputOrigins, input_origins};
use crate::pipeline::{LaneSelect, MergeTarget};

/// The last writer of every word of the watched resources during one run.
pub struct Writers {
    map: WriterMap,
    /// Each watched entry's bindings.
    entries: Vec<Vec<Binding>>,
    thread_group: [u32; 3],
    locs: Vec<String>,
}

impl Writers {
    /// Watches the resources of `entries` (their bindings, as [`bindings_of`] gives them)
    /// for a run of `shader`.
    pub fn new(shader: &Shader, entries: Vec<Vec<Binding>>) -> Writers {
        let watched = entries.iter().flatten().copied().collect::<Vec<_>>();
        Writers {
            // An empty list would mean "every resource": watch a binding no shader has.
            map: WriterMap::new(if watched.is_empty() {
                vec![Binding::ResourceHeap(u32::MAX)]
            } else {
                watched
            }),
            entries,
            thread_group: shader.thread_group,
            locs: shader.locs.iter().map(ToString::to_string).collect(),
        }
    }

    /// The sink to give the run.
    pub fn sink(&self) -> &dyn WriteSink {
        &self.map
    }

    /// Who last wrote the word at byte `addr` of watched entry `entry`'s memory.
    pub fn writer(&self, entry: usize, addr: u64, job: &str) -> Option<WriterReport> {
        let bindings = self.entries.get(entry)?;
        let w = bindings
            .iter()
            .filter_map(|b| self.map.writer(*b, addr))
            .max_by_key(|w| w.writes)?;
        let inst = w.inst.0;
        let source = self
            .locs
            .get(inst as usize)
            .filter(|s| s.as_str() != "-")
            .cloned();
        Some(WriterReport::thread_or_pixel(
            w.invocation,
            self.thread_group,
            inst,
            source,
            w.contested,
            w.writes,
            job,
        ))
    }
}

/// The last writer of every word of the watched resources during one `DispatchRays`:
/// the ray whose lanes wrote it, and which of its programs ([`RayWriters`]). The
/// default watches nothing.
#[derive(Default)]
pub struct RayWriterMap {
    map: RayWriters,
    /// Per program of the pipeline: its stage, export and instructions' places.
    programs: Vec<(Stage, String, Vec<String>)>,
    raygen: usize,
}

impl RayWriterMap {
    /// Watches the resources at `targets` during a run of `work`.
    pub fn new(work: &RaysWork, targets: &[ResourceAt]) -> RayWriterMap {
        let entries = targets
            .iter()
            .map(|t| {
                work.programs
                    .iter()
                    .map(|(s, _)| bindings_of(s, t))
                    .collect()
            })
            .collect();
        RayWriterMap::with_bindings(work, entries)
    }

    /// Watches, per entry, per program of `work`, the bindings listed (a command list's
    /// `dispatch_rays`, which binds its resources by register).
    pub fn with_bindings(work: &RaysWork, entries: Vec<Vec<Vec<Binding>>>) -> RayWriterMap {
        RayWriterMap {
            map: RayWriters::new(entries),
            programs: work
                .programs
                .iter()
                .map(|(s, _)| {
                    (
                        s.stage,
                        s.entry.clone(),
                        s.locs.iter().map(ToString::to_string).collect(),
                    )
                })
                .collect(),
            raygen: work.raygen,
        }
    }

    /// The sink to give the run.
    pub fn sink(&self) -> &dyn WriteSink {
        &self.map
    }

    /// Who last wrote the word at byte `addr` of watched entry `entry`'s memory: the ray
    /// (`--ray x,y,z` opens its ray-generation lane) and, when a program it invoked wrote
    /// it, that program.
    pub fn writer(&self, entry: usize, addr: u64, job: &str) -> Option<WriterReport> {
        let w = self.map.writer(entry, addr)?;
        let Invocation::Ray { program, .. } = w.invocation else {
            return None;
        };
        let inst = w.inst.0;
        let prog = self.programs.get(program as usize);
        let source = prog
            .and_then(|p| p.2.get(inst as usize))
            .filter(|s| s.as_str() != "-")
            .cloned();
        let mut r = WriterReport::thread_or_pixel(
            w.invocation,
            [1; 3],
            inst,
            source,
            w.contested,
            w.writes,
            job,
        );
        if program as usize != self.raygen
            && let Some((stage, entry, _)) = prog
        {
            let name = format!("{} \"{entry}\"", crate::pipeline::rays::stage_words(*stage));
            r.lane.push_str(&format!(", its {name} program"));
            r.program = Some(name);
        }
        Some(r)
    }
}

/// Who wrote a component, in a report's words.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct WriterReport {
    /// The invocation in words: `thread (10, 4, 0) (group (1, 0, 0), thread (2, 4, 0))`,
    /// `pixel (3, 5)`.
    pub lane: String,
    /// `SV_DispatchThreadID` (compute).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub thread: Option<[u32; 3]>,
    /// `SV_GroupID` (compute).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group: Option<[u32; 3]>,
    /// `SV_GroupThreadID` (compute).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub group_thread: Option<[u32; 3]>,
    /// The pixel (draws).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub pixel: Option<[u32; 2]>,
    /// The sample (draws, per-sample shading).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub sample: Option<u32>,
    /// The primitive the pixel lane ran for (draws: the index of the draw's primitive,
    /// `SV_PrimitiveID` of the first instance).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub primitive: Option<u32>,
    /// The IR instruction that wrote it (resource writes; the output merger's writes to
    /// render targets and depth have none).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub instruction: Option<u32>,
    /// That instruction's place in the original program, when known.
    pub source: Option<String>,
    /// Whether other invocations wrote the word too (the last one then depends on the
    /// order the groups ran in).
    pub contested: bool,
    /// How many writes touched the word.
    pub writes: u32,
    /// The command that opens the lane debugger on this lane.
    pub debug: String,
    /// A pixel lane of a draw: the lane chain behind it, nearest first — the lane that
    /// made its primitive's leading vertex, then stage by stage the lanes that fed that
    /// one, up to a vertex lane ([`origin_links`]); a mesh draw's mesh and
    /// amplification lanes ([`mesh_origin_links`]).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub origin: Vec<OriginLink>,
    /// A command list: the event (`[[command]] #N`, from 1) that wrote it last.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub event: Option<usize>,
    /// `DispatchRaysIndex()` of the ray whose lanes wrote it (ray dispatches).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ray: Option<[u32; 3]>,
    /// The program of that ray that wrote it, when not its ray-generation program: the
    /// closest-hit, any-hit, intersection, miss or callable program, by kind and export
    /// (`closest-hit "closest_hit"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub program: Option<String>,
    /// A draw's UAV word: the stage whose lane wrote it (`"vertex"`, `"hull"`,
    /// `"domain"`, `"geometry"`, `"amplification"`, `"mesh"`, `"pixel"`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stage: Option<&'static str>,
    /// A view-instanced draw of several views: the view instance whose pass ran the
    /// lane (the debug command then carries `--view N`).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub view: Option<u32>,
}

/// A lane one stage up from a pixel lane (or from the previous link), with the command
/// that opens it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
pub struct OriginLink {
    /// `"vertex"`, `"hull"`, `"domain"`, `"geometry"`, `"mesh"` or `"amplification"`.
    pub stage: &'static str,
    /// The lane in words: `domain patch 0, domain point 45, draw instance 0`.
    pub lane: String,
    /// What it did for the pixel lane.
    pub made: String,
    /// The command that opens the lane debugger on it.
    pub debug: String,
    /// The link whose lane this one fed (an index into the links); absent: it fed the
    /// pixel lane.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub fed: Option<usize>,
}

/// The links behind a pixel lane: the lane chain `chain` (`job::writers::lane_chain`,
/// from the lane that made the primitive's leading vertex up to a vertex lane), each
/// lane in the words and with the `dxlane debug` flags the debugger's `inputs` names
/// it by (`job::writers::lane_words`), saying what it made for the lane it fed.
pub fn origin_links(chain: &[ChainLink], job: &str) -> Vec<OriginLink> {
    let job = shell_word(job);
    let stage = |l: &LaneSelect| DrawStage::of(l).map_or("", DrawStage::name);
    chain
        .iter()
        .filter_map(|link| {
            let (lane, flags) = lane_words(&link.lane, None)?;
            let made = match link.fed.and_then(|i| chain.get(i)) {
                Some(f) => format!("made {} of the {} lane", link.made, stage(&f.lane)),
                None => format!("made {}", link.made),
            };
            Some(OriginLink {
                stage: stage(&link.lane),
                lane,
                made,
                debug: format!("dxlane debug {job} {flags}"),
                fed: link.fed,
            })
        })
        .collect()
}

/// The lanes that fed each lane a report's chains pass through, kept so that a lane is
/// run for once however many texels lead to it (`pipeline::trace::input_origins`: one
/// run of the draw per lane).
#[derive(Default)]
pub struct ChainRuns(Vec<(LaneSelect, Option<InputOrigins>)>);

impl ChainRuns {
    /// The lane chain behind a pixel lane whose primitive's leading vertex `first` made
    /// (`job::writers::lane_chain`), each lane's inputs found by running `work` under
    /// `plan` from `start` (the resources are set back to it before each run).
    pub fn chain(
        &mut self,
        first: LaneSelect,
        work: &crate::pipeline::Work,
        plan: &crate::pipeline::Plan,
        start: &StorageSnapshot,
    ) -> Vec<ChainLink> {
        lane_chain(first, &mut |l| {
            if let Some((_, o)) = self.0.iter().find(|(k, _)| *k == l) {
                return o.clone();
            }
            start.restore();
            let o = input_origins(work, plan, l);
            self.0.push((l, o.clone()));
            o
        })
    }
}

/// The links behind a pixel lane of a mesh draw whose primitive came from `o`: the
/// mesh lanes that wrote its indices and per-primitive outputs and each of its vertices
/// (found by running the mesh group again under `plan`: `pipeline::ms::writers`), one
/// link per thread saying what it wrote, then the amplification group that launched the
/// mesh group. Empty when `work` is not a mesh draw.
pub fn mesh_origin_links(
    work: &crate::pipeline::Work,
    plan: &crate::pipeline::Plan,
    o: &crate::pipeline::ms::MeshPrimOrigin,
    job: &str,
) -> Vec<OriginLink> {
    let crate::pipeline::Work::Draw(d) = work else {
        return Vec::new();
    };
    let state = d.state();
    let Some(m) = state.mesh else {
        return Vec::new();
    };
    let job = shell_word(job);
    let p = |v: [u32; 3]| format!("({}, {}, {})", v[0], v[1], v[2]);
    let c = |v: [u32; 3]| format!("{},{},{}", v[0], v[1], v[2]);
    let launched = o
        .launch
        .map(|l| format!(", launched by amplification group {}", p(l)))
        .unwrap_or_default();
    let as_flag = o
        .launch
        .map(|l| format!("--as-group {} ", c(l)))
        .unwrap_or_default();
    // Per thread, in the order first met: what it wrote of the primitive.
    let mut by_thread: Vec<([u32; 3], Vec<String>)> = Vec::new();
    let mut add = |t: [u32; 3], what: String| match by_thread.iter_mut().find(|x| x.0 == t) {
        Some(x) => x.1.push(what),
        None => by_thread.push((t, vec![what])),
    };
    if let Ok(w) = crate::pipeline::ms::writers(&m, plan, o, m.ms.0) {
        for &t in &w.primitive {
            add(
                t,
                "the primitive's indices and per-primitive outputs".into(),
            );
        }
        for (v, list) in &w.vertices {
            for &t in list {
                add(t, format!("vertex {v}'s outputs"));
            }
        }
    }
    let mut links: Vec<OriginLink> = by_thread
        .into_iter()
        .map(|(t, what)| OriginLink {
            stage: "mesh",
            lane: format!(
                "mesh group {}, thread {}{launched} (primitive {} of the group)",
                p(o.group),
                p(t),
                o.prim
            ),
            made: format!("wrote {}", what.join(", ")),
            fed: None,
            debug: format!(
                "dxlane debug {job} {as_flag}--ms-group {} --ms-thread {}",
                c(o.group),
                c(t)
            ),
        })
        .collect();
    if let Some(l) = o.launch {
        links.push(OriginLink {
            stage: "amplification",
            lane: format!("amplification group {}", p(l)),
            made: format!("launched mesh group {} with its payload", p(o.group)),
            debug: format!("dxlane debug {job} --as-group {} --as-thread 0,0,0", c(l)),
            // It launched the mesh group of the first link.
            fed: (!links.is_empty()).then_some(0),
        });
    }
    links
}

impl WriterReport {
    fn thread_or_pixel(
        inv: Invocation,
        tg: [u32; 3],
        instruction: u32,
        source: Option<String>,
        contested: bool,
        writes: u32,
        job: &str,
    ) -> WriterReport {
        let mut r = WriterReport {
            lane: String::new(),
            thread: None,
            group: None,
            group_thread: None,
            pixel: None,
            sample: None,
            primitive: None,
            instruction: Some(instruction),
            source,
            contested,
            writes,
            debug: String::new(),
            origin: Vec::new(),
            event: None,
            ray: None,
            program: None,
            stage: None,
            view: None,
        };
        match inv {
            Invocation::Thread { group, thread } => {
                let (g, t) = (group.0, thread.0);
                let d = [0, 1, 2].map(|i| g[i].wrapping_mul(tg[i]).wrapping_add(t[i]));
                r.lane = format!(
                    "thread ({}, {}, {}) = group ({}, {}, {}) thread ({}, {}, {})",
                    d[0], d[1], d[2], g[0], g[1], g[2], t[0], t[1], t[2]
                );
                r.debug = format!(
                    "dxlane debug {} --thread {},{},{}",
                    shell_word(job),
                    d[0],
                    d[1],
                    d[2]
                );
                r.thread = Some(d);
                r.group = Some(g);
                r.group_thread = Some(t);
            }
            Invocation::Pixel { x, y, sample } => {
                r = r.pixel(x, y, Some(sample), job);
            }
            Invocation::Vertex { vertex, instance } => {
                r.lane = format!("vertex {vertex}, instance {instance}");
                r.debug = format!(
                    "dxlane debug {} --vertex {vertex} --instance {instance}",
                    shell_word(job)
                );
            }
            Invocation::Ray { index, .. } => {
                let [x, y, z] = index.0;
                r.lane = format!("ray ({x}, {y}, {z})");
                r.debug = format!("dxlane debug {} --ray {x},{y},{z}", shell_word(job));
                r.ray = Some(index.0);
            }
        }
        r
    }

    /// The lane of a view-instanced draw's pass of view `view`: named with its view,
    /// and its debug command (and its links') carrying `--view N`, which the debugger
    /// needs to open a lane of a draw of several views.
    pub fn in_view(mut self, view: u32) -> WriterReport {
        self.lane.push_str(&format!(", view {view}"));
        self.debug.push_str(&format!(" --view {view}"));
        for link in &mut self.origin {
            link.debug.push_str(&format!(" --view {view}"));
        }
        self.view = Some(view);
        self
    }

    /// This report for pixel `(x, y)` (and `sample`, named in the debug command when
    /// the pixel program ran per sample).
    pub fn pixel(mut self, x: u32, y: u32, sample: Option<u32>, job: &str) -> WriterReport {
        self.lane = match sample {
            Some(s) if s > 0 => format!("pixel ({x}, {y}) sample {s}"),
            _ => format!("pixel ({x}, {y})"),
        };
        self.debug = match sample {
            Some(s) if s > 0 => format!(
                "dxlane debug {} --pixel {x},{y} --sample {s}",
                shell_word(job)
            ),
            _ => format!("dxlane debug {} --pixel {x},{y}", shell_word(job)),
        };
        self.pixel = Some([x, y]);
        self.sample = sample;
        self
    }
}

/// Who last wrote a word of a draw's UAV (`job::writers::DrawWriters`), in a report's
/// words: the lane of whichever stage wrote it, the stage, and the command that opens
/// the lane (a pixel lane's `--prim k` is the caller's to add: it takes the pipeline's
/// rank). `per_sample`: whether the pixel program ran per sample.
pub fn draw_writer_report(
    w: &DrawWriter,
    d: &crate::pipeline::DrawWork,
    per_sample: bool,
    job: &str,
) -> WriterReport {
    let inst = w.inst.0;
    let source = stage_program(d, w.stage)
        .and_then(|s| s.locs.get(inst as usize))
        .map(ToString::to_string)
        .filter(|s| s != "-");
    let mut r = WriterReport::thread_or_pixel(
        Invocation::Pixel {
            x: 0,
            y: 0,
            sample: 0,
        },
        [1; 3],
        inst,
        source,
        w.contested,
        w.writes,
        job,
    );
    r.pixel = None;
    r.sample = None;
    match w.lane {
        DrawLane::Pixel { x, y, sample, .. } => {
            r = r.pixel(x, y, per_sample.then_some(sample), job);
        }
        DrawLane::Lane(sel) => {
            if let Some((words, flags)) = lane_words(&sel, None) {
                r.lane = words;
                r.debug = format!("dxlane debug {} {flags}", shell_word(job));
            }
        }
    }
    r.stage = Some(w.stage.name());
    r
}

/// Whether draw `d` runs several views whose passes a run watches (view instancing with
/// more than one view, no one view chosen): its lanes are then named with their view.
pub fn several_views(d: &crate::pipeline::DrawWork) -> bool {
    d.view.is_none()
        && d.state()
            .view_instancing
            .as_ref()
            .is_some_and(|v| v.views().nth(1).is_some())
}

/// A capture report's words for the output merger's writers.
pub trait PixelWriterReport {
    /// Who last wrote sample `sample` of pixel `(x, y)` of `target`; for a resolved
    /// image (`sample` `None`), the writer of the lowest sample written. `per_sample`:
    /// whether the pixel program ran per sample (the debug command then names it).
    fn writer(
        &self,
        target: MergeTarget,
        x: u32,
        y: u32,
        sample: Option<u32>,
        per_sample: bool,
        job: &str,
    ) -> Option<WriterReport>;
}

impl PixelWriterReport for PixelWriters {
    /// Who last wrote sample `sample` of pixel `(x, y)` of `target`; for a resolved
    /// image (`sample` `None`), the writer of the lowest sample written. `per_sample`:
    /// whether the pixel program ran per sample (the debug command then names it).
    fn writer(
        &self,
        target: MergeTarget,
        x: u32,
        y: u32,
        sample: Option<u32>,
        per_sample: bool,
        job: &str,
    ) -> Option<WriterReport> {
        let (lane, writes) = match sample {
            Some(s) => self.last((target, x, y, s))?,
            None => (0..32).find_map(|s| self.last((target, x, y, s)))?,
        };
        let r = WriterReport {
            lane: String::new(),
            thread: None,
            group: None,
            group_thread: None,
            pixel: None,
            sample: None,
            primitive: Some(lane.prim),
            instruction: None,
            source: None,
            contested: false,
            writes,
            debug: String::new(),
            origin: Vec::new(),
            event: None,
            ray: None,
            program: None,
            stage: None,
            view: None,
        };
        let mut r = r.pixel(lane.x, lane.y, per_sample.then_some(lane.sample), job);
        r.lane.push_str(&format!(", primitive {}", lane.prim));
        Some(r)
    }
}

/// `s` as one shell word (quoted when it holds anything but plain path characters).
pub fn shell_word(s: &str) -> String {
    if !s.is_empty()
        && s.bytes()
            .all(|b| b.is_ascii_alphanumeric() || b"/._-+,=:@".contains(&b))
    {
        s.to_string()
    } else {
        format!("'{}'", s.replace('\'', "'\\''"))
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{MemWrite, WriteTarget, Xyz};
    use crate::ir::{InstId, ResourceClass, ResourceKind, parse_shader};
    use crate::job::{Register, ResourceAt};

    /// A write through `u3` of a range `u2..u5` is the range's element 1.
    #[test]
    fn registers_map_to_range_elements() {
        let text = "shader compute\ngroup [4 2 1]\nresource range0 = uav space 0 lower 2 count 4 raw_buffer uint\nresource range1 = srv space 0 lower 3 count 1 raw_buffer uint\nblock0:\n    return\n";
        let s = parse_shader(text).unwrap();
        assert_eq!(s.resources[0].kind, ResourceKind::RawBuffer);
        let reg = |i| {
            ResourceAt::Register(Register {
                class: ResourceClass::Uav,
                index: i,
                space: 0,
            })
        };
        assert_eq!(
            bindings_of(&s, &reg(3)),
            vec![Binding::Range {
                range: 0,
                element: 1
            }]
        );
        assert!(bindings_of(&s, &reg(6)).is_empty());
        assert_eq!(
            bindings_of(&s, &ResourceAt::Heap(5)),
            vec![Binding::ResourceHeap(5)]
        );

        let w = Writers::new(&s, vec![bindings_of(&s, &reg(3))]);
        w.sink().write(&MemWrite {
            target: WriteTarget::Resource(Binding::Range {
                range: 0,
                element: 1,
            }),
            addr: 8,
            bytes: 4,
            value: [0; 4],
            atomic: false,
            lane: 3,
            invocation: Invocation::Thread {
                group: Xyz([1, 0, 0]),
                thread: Xyz([2, 1, 0]),
            },
            inst: InstId(0),
        });
        let r = w.writer(0, 10, "jobs/a b.toml").unwrap();
        assert_eq!(r.thread, Some([6, 1, 0]));
        assert_eq!(r.debug, "dxlane debug 'jobs/a b.toml' --thread 6,1,0");
        assert!(w.writer(0, 12, "j").is_none());
    }

    #[test]
    fn pixels_name_their_sample_only_when_shaded_per_sample() {
        let base = WriterReport::thread_or_pixel(
            Invocation::Pixel {
                x: 3,
                y: 4,
                sample: 0,
            },
            [1, 1, 1],
            7,
            None,
            false,
            1,
            "draw.toml",
        );
        assert_eq!(base.debug, "dxlane debug draw.toml --pixel 3,4");
        let r = base.pixel(3, 4, Some(2), "draw.toml");
        assert_eq!(r.debug, "dxlane debug draw.toml --pixel 3,4 --sample 2");
    }
}
