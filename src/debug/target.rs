//! What a session debugs: the program (as the normal run runs it, and unoptimised for the
//! observed group or wave), its listing, the resources it is bound to, the dispatch or
//! draw, and how to run it again from the same starting contents.
//!
//! A draw target ([`from_draw_job`]) holds both programs; a session on a vertex lane
//! debugs the vertex program ([`Target::for_lane`]), one on a pixel lane the pixel
//! program. Its writable contents include the render targets and the depth buffer.

use crate::exec::{ExecError, WriteSink};
use crate::ir::{Shader, Stage};
use crate::lower::{self, LoadOptions};
use crate::pipeline::dispatch::{choose_wave_size, thread_layout};
use crate::pipeline::draw::{BATCH_LANES, crosses_quads};
use crate::pipeline::{Bindings, DispatchHooks, DispatchOptions, ObserveWave, dispatch_with};
use crate::pipeline::{DrawError, PixelLane, PixelObserver, TraceAt, TraceWave, Traced};
use crate::resources::{Counter, Descriptor, Memory};
use std::sync::{Arc, Mutex};

use super::DebugError;
use super::record::{Record, Recorder};
use super::source::SourceView;

/// A program to debug, with its source view.
#[derive(Debug, Clone)]
pub struct Program {
    /// The shader as a normal run runs it (clean-up passes applied).
    pub shader: Shader,
    /// The same program lowered without clean-up, which the observed group runs: each
    /// instruction maps to one source instruction and each source value to its registers.
    pub debug_shader: Shader,
    /// The listing and names.
    pub view: SourceView,
}

impl Program {
    /// Decodes and lowers a container (DXBC or DXIL) for debugging.
    pub fn from_container(bytes: &[u8], entry: Option<String>) -> Result<Program, DebugError> {
        let opts = LoadOptions {
            entry,
            no_opt: false,
        };
        let normal = lower::load(bytes, &opts).map_err(|e| DebugError::Load(e.to_string()))?;
        let raw = lower::load(
            bytes,
            &LoadOptions {
                no_opt: true,
                ..opts
            },
        )
        .map_err(|e| DebugError::Load(e.to_string()))?;
        let view = if raw.dxil {
            let (text, lines, module) = crate::dxil::listing::disassemble_with_lines(bytes)
                .map_err(|e| DebugError::Load(e.to_string()))?;
            SourceView::dxil(&text, &lines, &module, &raw.shader)
        } else {
            let p = crate::dxbc::Program::from_bytes(bytes)
                .map_err(|e| DebugError::Load(e.to_string()))?;
            SourceView::dxbc(&p, &raw.shader)
        };
        Ok(Program {
            shader: normal.shader,
            debug_shader: raw.shader,
            view,
        })
    }

    /// A program written in the IR's text form (already validated): it is its own
    /// source and runs as written.
    pub fn from_ir(shader: Shader) -> Program {
        let view = SourceView::ir(&shader);
        Program {
            debug_shader: shader.clone(),
            shader,
            view,
        }
    }
}

/// The writable contents of a dispatch's resources before it ran, to run it again from
/// the same start (UAV memories and counters; read-only resources never change).
#[derive(Debug, Clone, Default)]
struct Snapshot {
    memories: Vec<(Memory, Vec<u8>)>,
    counters: Vec<(Counter, u32)>,
}

impl Snapshot {
    fn take(b: &Bindings) -> Snapshot {
        let mut s = Snapshot::default();
        for d in b.ranges.iter().flatten().chain(&b.resource_heap) {
            let (m, c) = match d {
                Descriptor::Buffer { view, counter } => (Some(&view.memory), counter.as_ref()),
                Descriptor::Texture(v) => (Some(v.texture.memory()), None),
                _ => (None, None),
            };
            if let Some(m) = m
                && !s.memories.iter().any(|(x, _)| x == m)
            {
                s.memories.push((m.clone(), m.to_bytes()));
            }
            if let Some(c) = c {
                s.counters.push((c.clone(), c.get()));
            }
        }
        s
    }

    fn add_memory(&mut self, m: &Memory) {
        if !self.memories.iter().any(|(x, _)| x == m) {
            self.memories.push((m.clone(), m.to_bytes()));
        }
    }

    fn restore(&self) {
        for (m, bytes) in &self.memories {
            m.write_bytes(0, bytes);
        }
        for (c, v) in &self.counters {
            c.set(*v);
        }
    }

    /// Every writable memory's bytes now, in a stable order.
    fn contents(&self) -> Vec<Vec<u8>> {
        self.memories.iter().map(|(m, _)| m.to_bytes()).collect()
    }
}

/// A dispatch to debug: the program, its bindings, the groups and the options.
#[derive(Debug, Clone)]
pub struct Target {
    /// The program.
    pub program: Program,
    /// What its resources are bound to.
    pub bindings: Bindings,
    /// Thread groups.
    pub groups: [u32; 3],
    /// Dispatch options (wave size, workers, profile, limits).
    pub options: DispatchOptions,
    start: Snapshot,
    draw: Option<Arc<DrawTarget>>,
}

/// A draw to debug: the prepared job and both programs.
struct DrawTarget {
    prepared: crate::job::draw_run::PreparedDraw,
    vs: Program,
    ps: Option<Program>,
}

impl std::fmt::Debug for DrawTarget {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DrawTarget")
            .field("job", &self.prepared.job.path)
            .field("args", &self.prepared.args)
            .finish_non_exhaustive()
    }
}

/// Which lane to observe.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum LaneSelect {
    /// A compute thread by `SV_DispatchThreadID`.
    Thread([u32; 3]),
    /// A compute thread by `SV_GroupID` and `SV_GroupThreadID`.
    GroupThread {
        /// The group.
        group: [u32; 3],
        /// The thread in it.
        thread: [u32; 3],
    },
    /// The pixel-program lane that shaded sample `sample` of pixel (`x`, `y`) for the
    /// `prim`-th primitive covering it, in draw order (0: the first).
    Pixel {
        /// Pixel x.
        x: u32,
        /// Pixel y.
        y: u32,
        /// The sample (0 without MSAA).
        sample: u32,
        /// Which of the primitives covering the sample.
        prim: u32,
    },
    /// The vertex-program lane of `SV_VertexID` `vertex` of instance `instance`.
    Vertex {
        /// `SV_VertexID` (the index value of an indexed draw).
        vertex: u32,
        /// `SV_InstanceID`.
        instance: u32,
    },
}

/// Where a lane runs: its group, its wave in the group and its lane in the wave.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct LanePlace {
    /// `SV_GroupID`.
    pub group: [u32; 3],
    /// Wave index in the group.
    pub wave: usize,
    /// Lane in the wave.
    pub lane: usize,
    /// Lanes per wave.
    pub wave_size: u32,
    /// Draws: the wave the pipeline traces.
    pub draw: Option<TraceAt>,
}

/// What one run of the target with an observed wave gave.
pub struct Run {
    /// The observed wave's record.
    pub record: Record,
    /// The engine error the run ended with, if any.
    pub fault: Option<ExecError>,
    /// The writable resources' contents after the run.
    pub outputs: Vec<Vec<u8>>,
    /// Draws: what the traced wave did (its lanes and output words).
    pub traced: Option<Traced>,
    /// Draws: the render targets' and depth buffer's values at the lane's pixel and
    /// sample after the draw, one line each.
    pub pixel: Vec<String>,
}

fn draw_fault(e: DrawError) -> ExecError {
    match e {
        DrawError::Exec(x) => x,
        other => ExecError::Dispatch(other.to_string()),
    }
}

/// Finds the pixel lanes standing for a pixel and sample.
struct Locate {
    x: u32,
    y: u32,
    sample: u32,
    per_sample: bool,
    found: Mutex<Vec<(u32, u32, u32, u32)>>,
}

impl PixelObserver for Locate {
    fn wave(&self, tile: u32, wave: u32, lanes: &[PixelLane], _: &crate::exec::WaveRun, _: &[u32]) {
        for (l, p) in lanes.iter().enumerate() {
            let covers = if self.per_sample {
                p.sample == self.sample && p.coverage != 0
            } else {
                p.coverage & (1u32 << (self.sample & 31)) != 0
            };
            if p.x == self.x && p.y == self.y && covers {
                self.found
                    .lock()
                    .unwrap_or_else(|e| e.into_inner())
                    .push((p.prim, tile, wave, l as u32));
            }
        }
    }
}

impl Target {
    /// A target; the bindings' current contents are the start of every run.
    pub fn new(
        program: Program,
        bindings: Bindings,
        groups: [u32; 3],
        options: DispatchOptions,
    ) -> Result<Target, DebugError> {
        if program.shader.stage != Stage::Compute {
            return Err(DebugError::Lane(format!(
                "a {} program: the debugger runs compute dispatches (draws need the graphics pipeline)",
                program.shader.stage
            )));
        }
        let start = Snapshot::take(&bindings);
        Ok(Target {
            program,
            bindings,
            groups,
            options,
            start,
            draw: None,
        })
    }

    /// Whether the target is a draw.
    pub fn is_draw(&self) -> bool {
        self.draw.is_some()
    }

    /// The target as a session on `sel` debugs it: for a vertex lane of a draw, the
    /// vertex program and its bindings; otherwise the target itself. An error when the
    /// kind of lane does not fit the kind of job.
    pub fn for_lane(&self, sel: LaneSelect) -> Result<Target, DebugError> {
        let pixel = matches!(sel, LaneSelect::Pixel { .. });
        let vertex = matches!(sel, LaneSelect::Vertex { .. });
        let Some(d) = &self.draw else {
            if pixel || vertex {
                return Err(DebugError::Lane(
                    "a compute job has threads, not pixels or vertices: give --thread x,y,z or --group x,y,z --group-thread x,y,z".into(),
                ));
            }
            return Ok(self.clone());
        };
        if !pixel && !vertex {
            return Err(DebugError::Lane(
                "a draw job has pixels and vertices, not threads: give --pixel x,y [--sample n] or --vertex n [--instance i]".into(),
            ));
        }
        let mut t = self.clone();
        if vertex {
            t.program = d.vs.clone();
            t.bindings = d.prepared.vs_bindings.clone();
        } else {
            let Some(ps) = &d.ps else {
                return Err(DebugError::Lane(
                    "the draw has no pixel program: debug a vertex with --vertex n".into(),
                ));
            };
            t.program = ps.clone();
            t.bindings = d.prepared.ps_bindings.clone();
        }
        Ok(t)
    }

    fn draw_place(&self, d: &DrawTarget, sel: LaneSelect) -> Result<LanePlace, DebugError> {
        let p = &d.prepared;
        match sel {
            LaneSelect::Pixel { x, y, sample, prim } => {
                let Some(ps) = &d.ps else {
                    return Err(DebugError::Lane("the draw has no pixel program".into()));
                };
                let (w, h, n) = self.target_size();
                if x >= w || y >= h {
                    return Err(DebugError::Lane(format!(
                        "pixel ({x}, {y}) is outside the {w} × {h} render target: pixels (0, 0) to ({}, {})",
                        w.saturating_sub(1),
                        h.saturating_sub(1)
                    )));
                }
                if sample >= n {
                    return Err(DebugError::Lane(format!(
                        "sample {sample}: the render target has {n} sample(s) a pixel (0 to {})",
                        n - 1
                    )));
                }
                let wave = choose_wave_size(&ps.shader, p.wave_size)
                    .map_err(|e| DebugError::Lane(e.to_string()))?;
                let batch = if crosses_quads(&ps.shader) {
                    wave
                } else {
                    BATCH_LANES.max(wave)
                };
                let per_sample = crate::pipeline::link::link(
                    &crate::pipeline::ia::resolve_layout(
                        &p.fixed
                            .state(
                                &d.vs.shader,
                                Some(&ps.shader),
                                &p.vs_bindings,
                                &p.ps_bindings,
                            )
                            .input_layout,
                    )
                    .map_err(|e| DebugError::Lane(e.message))?,
                    &d.vs.shader,
                    Some(&ps.shader),
                )
                .map(|l| l.per_sample)
                .map_err(|e| DebugError::Lane(e.to_string()))?;
                let loc = Locate {
                    x,
                    y,
                    sample,
                    per_sample,
                    found: Mutex::new(Vec::new()),
                };
                self.start.restore();
                let mut o = p.options();
                o.observer = Some(&loc);
                let r = crate::pipeline::draw(&p.state(), &p.args, &o);
                drop(o);
                self.start.restore();
                if let Err(e) = r {
                    return Err(DebugError::Lane(format!(
                        "the draw fails before the lane can be found: {e}"
                    )));
                }
                let mut found = loc.found.into_inner().unwrap_or_else(|e| e.into_inner());
                found.sort_unstable();
                let s_text = if n > 1 {
                    format!(", sample {sample},")
                } else {
                    String::new()
                };
                let Some(&(_, tile, b, l)) = found.get(prim as usize) else {
                    return Err(DebugError::Lane(if found.is_empty() {
                        format!(
                            "pixel ({x}, {y}){s_text} is covered by no primitive of the draw: no pixel-program lane shaded it"
                        )
                    } else {
                        format!(
                            "pixel ({x}, {y}){s_text} is covered by {} primitive(s); --prim takes 0 to {}",
                            found.len(),
                            found.len() - 1
                        )
                    }));
                };
                let per_batch = (batch / wave) as usize;
                Ok(LanePlace {
                    group: [0; 3],
                    wave: b as usize * per_batch + (l / wave) as usize,
                    lane: (l % wave) as usize,
                    wave_size: wave,
                    draw: Some(TraceAt::Pixel {
                        tile,
                        batch: b,
                        lane: l,
                    }),
                })
            }
            LaneSelect::Vertex { vertex, instance } => {
                let a = &p.args;
                if instance >= a.instance_count {
                    return Err(DebugError::Lane(format!(
                        "instance {instance}: the draw has {} instance(s) (0 to {})",
                        a.instance_count,
                        a.instance_count.saturating_sub(1)
                    )));
                }
                let st = p.state();
                let count = u64::from(a.vertex_count);
                let mut ids: Vec<u32> = match &st.index_buffer {
                    Some(ib) => (0..count)
                        .map(|k| crate::pipeline::ia::read_index(ib, u64::from(a.start_vertex) + k))
                        .collect(),
                    None => (0..a.vertex_count).collect(),
                };
                if let (Some(ib), crate::pipeline::StripCutValue::Enabled) =
                    (&st.index_buffer, st.strip_cut)
                {
                    let cut = crate::pipeline::ia::cut_value(ib.format);
                    ids.retain(|&i| i != cut);
                }
                ids.sort_unstable();
                ids.dedup();
                let slot = ids.binary_search(&vertex).map_err(|_| {
                    DebugError::Lane(match (&st.index_buffer, ids.first(), ids.last()) {
                        (None, _, _) => format!(
                            "vertex {vertex} is past the draw: it shades vertices 0 to {}",
                            a.vertex_count.saturating_sub(1)
                        ),
                        (Some(_), Some(lo), Some(hi)) => format!(
                            "vertex {vertex} is not drawn: the index buffer names {} distinct vertices, {lo} to {hi}",
                            ids.len()
                        ),
                        _ => "the draw shades no vertex".to_string(),
                    })
                })?;
                let wave = choose_wave_size(&d.vs.shader, p.wave_size)
                    .map_err(|e| DebugError::Lane(e.to_string()))?;
                Ok(LanePlace {
                    group: [0; 3],
                    wave: slot / wave as usize,
                    lane: slot % wave as usize,
                    wave_size: wave,
                    draw: Some(TraceAt::Vertex { vertex, instance }),
                })
            }
            _ => Err(DebugError::Lane(
                "a draw job has pixels and vertices, not threads".into(),
            )),
        }
    }

    /// Width, height and samples of the draw's targets (0s for a dispatch).
    pub fn target_size(&self) -> (u32, u32, u32) {
        let Some(d) = &self.draw else {
            return (0, 0, 0);
        };
        let f = &d.prepared.fixed;
        let t = f
            .render_targets()
            .iter()
            .flatten()
            .map(|r| r.texture.desc())
            .next()
            .or_else(|| f.depth_stencil_view().map(|v| v.texture.desc()));
        t.map_or((0, 0, 0), |d| (d.width, d.height, d.samples))
    }

    /// The targets' values at pixel (x, y), sample `s`, one line each.
    fn pixel_values(&self, x: u32, y: u32, s: u32) -> Vec<String> {
        let Some(d) = &self.draw else {
            return Vec::new();
        };
        let f = &d.prepared.fixed;
        let mut out = Vec::new();
        let mut one = |name: String, t: &crate::resources::Texture| {
            let fmt = t.desc().format;
            let n = fmt.bytes_per_texel() as usize;
            let Some(a) = t.texel_addr(0, 0, [x, y, 0], s) else {
                return;
            };
            let mut b = vec![0u8; n];
            t.memory().read_bytes(a, &mut b);
            let hex: Vec<String> = b.iter().map(|v| format!("{v:02x}")).collect();
            let v = fmt.decode_f32(&b);
            let vals: Vec<String> = v.iter().map(|&c| super::format::float_text(c)).collect();
            out.push(format!(
                "{name} ({fmt}) after the draw: {} (bytes {})",
                vals.join(", "),
                hex.join(" ")
            ));
        };
        for (i, rt) in f.render_targets().iter().enumerate() {
            if let Some(rt) = rt {
                one(format!("render target {i}"), &rt.texture);
            }
        }
        if let Some(ds) = f.depth_stencil_view() {
            one("depth-stencil".into(), &ds.texture);
        }
        out
    }

    /// Lanes per wave of a run.
    pub fn wave_size(&self) -> Result<u32, DebugError> {
        choose_wave_size(&self.program.shader, self.options.wave_size)
            .map_err(|e| DebugError::Lane(e.to_string()))
    }

    /// Where the selected lane runs; an error naming the dispatch's extent when it does
    /// not exist.
    pub fn place(&self, sel: LaneSelect) -> Result<LanePlace, DebugError> {
        if let Some(d) = &self.draw {
            return self.draw_place(d, sel);
        }
        let tg = self.program.shader.thread_group;
        let g = self.groups;
        let (group, thread) = match sel {
            LaneSelect::Thread(t) => {
                for k in 0..3 {
                    if u64::from(t[k]) >= u64::from(g[k]) * u64::from(tg[k]) {
                        return Err(DebugError::Lane(format!(
                            "thread ({}, {}, {}) is outside the dispatch: {} × {} × {} groups of {} × {} × {} threads make threads (0, 0, 0) to ({}, {}, {})",
                            t[0],
                            t[1],
                            t[2],
                            g[0],
                            g[1],
                            g[2],
                            tg[0],
                            tg[1],
                            tg[2],
                            u64::from(g[0]) * u64::from(tg[0]) - 1,
                            u64::from(g[1]) * u64::from(tg[1]) - 1,
                            u64::from(g[2]) * u64::from(tg[2]) - 1
                        )));
                    }
                }
                (
                    [t[0] / tg[0], t[1] / tg[1], t[2] / tg[2]],
                    [t[0] % tg[0], t[1] % tg[1], t[2] % tg[2]],
                )
            }
            LaneSelect::Pixel { .. } | LaneSelect::Vertex { .. } => {
                return Err(DebugError::Lane(
                    "a compute job has threads, not pixels or vertices".into(),
                ));
            }
            LaneSelect::GroupThread { group, thread } => {
                if (0..3).any(|k| group[k] >= g[k]) {
                    return Err(DebugError::Lane(format!(
                        "group ({}, {}, {}) is outside the dispatch of {} × {} × {} groups",
                        group[0], group[1], group[2], g[0], g[1], g[2]
                    )));
                }
                if (0..3).any(|k| thread[k] >= tg[k]) {
                    return Err(DebugError::Lane(format!(
                        "group thread ({}, {}, {}) is outside the thread group of {} × {} × {}",
                        thread[0], thread[1], thread[2], tg[0], tg[1], tg[2]
                    )));
                }
                (group, thread)
            }
        };
        let w = self.wave_size()?;
        let (layout, _) = thread_layout(tg);
        let slot = layout
            .iter()
            .position(|x| *x == thread)
            .ok_or_else(|| DebugError::Lane("the thread has no lane slot".into()))?;
        Ok(LanePlace {
            group,
            wave: slot / w as usize,
            lane: slot % w as usize,
            wave_size: w,
            draw: None,
        })
    }

    /// Runs the whole dispatch from the start, observing wave `wave` of group `group`
    /// (keeping at most `limit_bytes` of record) and reporting every write to `writes`.
    /// Draws: the traced wave is `place.draw`, and `writes` hears the writes of every
    /// other vertex and pixel wave (`DrawOptions::memory`: on one worker thread, in the
    /// order they happen).
    pub fn run(
        &self,
        place: &LanePlace,
        limit_bytes: usize,
        writes: Option<&dyn WriteSink>,
    ) -> Run {
        let (group, wave) = (place.group, place.wave);
        self.start.restore();
        if let (Some(d), Some(at)) = (&self.draw, place.draw) {
            let p = &d.prepared;
            let mut rec = Recorder::new(&self.program.debug_shader, limit_bytes);
            let (r, traced) = {
                let hook = TraceWave::new(at, &self.program.debug_shader, &mut rec);
                let mut o = p.options();
                o.trace = Some(&hook);
                o.memory = writes;
                let r = crate::pipeline::draw(&p.state(), &p.args, &o);
                (r, hook.take())
            };
            let pixel = match (&traced, at) {
                (Some(t), TraceAt::Pixel { .. }) => t
                    .pixels
                    .get(place.lane)
                    .map(|l| {
                        // Every sample the lane stands for (its one sample when the
                        // program runs per sample).
                        let n = self.target_size().2;
                        (0..n.min(32))
                            .filter(|s| l.coverage >> s & 1 == 1)
                            .flat_map(|s| {
                                self.pixel_values(l.x, l.y, s).into_iter().map(move |t| {
                                    if n > 1 { format!("sample {s}: {t}") } else { t }
                                })
                            })
                            .collect()
                    })
                    .unwrap_or_default(),
                _ => Vec::new(),
            };
            return Run {
                record: rec.finish(),
                fault: r.err().map(draw_fault),
                outputs: self.start.contents(),
                traced,
                pixel,
            };
        }
        let mut rec = Recorder::new(&self.program.debug_shader, limit_bytes);
        let result = dispatch_with(
            &self.program.shader,
            &self.bindings,
            self.groups,
            &self.options,
            None,
            DispatchHooks {
                writes,
                observe: Some(ObserveWave {
                    group,
                    wave,
                    shader: &self.program.debug_shader,
                    observer: &mut rec,
                }),
            },
        );
        Run {
            record: rec.finish(),
            fault: result.err(),
            outputs: self.start.contents(),
            traced: None,
            pixel: Vec::new(),
        }
    }

    /// Runs the dispatch from the start as a normal run does (nothing observed) and
    /// returns the writable resources' contents.
    pub fn run_normal(&self) -> Result<Vec<Vec<u8>>, ExecError> {
        self.start.restore();
        if let Some(d) = &self.draw {
            let p = &d.prepared;
            crate::pipeline::draw(&p.state(), &p.args, &p.options()).map_err(draw_fault)?;
            return Ok(self.start.contents());
        }
        crate::pipeline::dispatch(
            &self.program.shader,
            &self.bindings,
            self.groups,
            &self.options,
            None,
        )?;
        Ok(self.start.contents())
    }
}

/// Reads a program file again, for debugging, through the read gate (`job::paths`).
fn read_program(path: &str) -> Result<Vec<u8>, DebugError> {
    crate::job::paths::read_input(
        std::path::Path::new(path),
        crate::job::limits::MAX_PROGRAM_BYTES,
        "the largest program a job may load",
    )
    .map_err(DebugError::Load)
}

/// The target of a prepared job (`job::run::prepare`): its program (reloaded for debugging),
/// its bound resources, groups and options.
pub fn from_job(p: &crate::job::run::Prepared) -> Result<Target, DebugError> {
    let info = &p.program.info;
    let program = if info.container == "IR" {
        Program::from_ir(p.program.shader.clone())
    } else {
        let bytes = read_program(&info.path)?;
        Program::from_container(&bytes, p.job.file.program.entry.clone())?
    };
    Target::new(program, p.fit.bindings.clone(), p.groups, p.options.clone())
}

/// The target of a prepared draw job (`job::draw_run::prepare_draw`): both programs
/// (reloaded for debugging), their bindings, the draw state and arguments; its writable
/// contents are the UAVs, the render targets and the depth buffer.
pub fn from_draw_job(p: crate::job::draw_run::PreparedDraw) -> Result<Target, DebugError> {
    let load = |s: &Shader, info: &crate::job::run::ProgramInfo| -> Result<Program, DebugError> {
        if info.container == "IR" {
            Ok(Program::from_ir(s.clone()))
        } else {
            let bytes = read_program(&info.path)?;
            Program::from_container(&bytes, p.job.file.program.entry.clone())
        }
    };
    if p.gs.is_some() {
        return Err(DebugError::Load(
            "a draw with a geometry program: the debugger selects vertex and pixel lanes of draws without one".into(),
        ));
    }
    let vs = load(&p.vs.0, &p.vs.1)?;
    let ps = match &p.ps {
        Some((s, i)) => Some(load(s, i)?),
        None => None,
    };
    let mut start = Snapshot::take(&p.vs_bindings);
    for (m, b) in Snapshot::take(&p.ps_bindings).memories {
        if !start.memories.iter().any(|(x, _)| *x == m) {
            start.memories.push((m, b));
        }
    }
    for rt in p.fixed.render_targets().iter().flatten() {
        start.add_memory(rt.texture.memory());
    }
    if let Some(ds) = p.fixed.depth_stencil_view() {
        start.add_memory(ds.texture.memory());
    }
    let (program, bindings) = match &ps {
        Some(ps) => (ps.clone(), p.ps_bindings.clone()),
        None => (vs.clone(), p.vs_bindings.clone()),
    };
    let options = DispatchOptions {
        wave_size: p.wave_size,
        threads: p.threads,
        profile: p.profile.clone(),
        limits: p.limits,
        engine: p.engine,
    };
    Ok(Target {
        program,
        bindings,
        groups: [1, 1, 1],
        options,
        start,
        draw: Some(Arc::new(DrawTarget {
            prepared: p,
            vs,
            ps,
        })),
    })
}
