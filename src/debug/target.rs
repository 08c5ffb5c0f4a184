//! What a session debugs: the program (as the normal run runs it, and unoptimised for the
//! observed group), its listing, the resources it is bound to, the dispatch, and how to
//! run it again from the same starting contents.

use crate::exec::{ExecError, WriteSink};
use crate::ir::{Shader, Stage};
use crate::lower::{self, LoadOptions};
use crate::pipeline::dispatch::{choose_wave_size, thread_layout};
use crate::pipeline::{Bindings, DispatchHooks, DispatchOptions, ObserveWave, dispatch_with};
use crate::resources::{Counter, Descriptor, Memory};

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
}

/// What one run of the target with an observed wave gave.
pub struct Run {
    /// The observed wave's record.
    pub record: Record,
    /// The engine error the run ended with, if any.
    pub fault: Option<ExecError>,
    /// The writable resources' contents after the run.
    pub outputs: Vec<Vec<u8>>,
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
        })
    }

    /// Lanes per wave of a run.
    pub fn wave_size(&self) -> Result<u32, DebugError> {
        choose_wave_size(&self.program.shader, self.options.wave_size)
            .map_err(|e| DebugError::Lane(e.to_string()))
    }

    /// Where the selected lane runs; an error naming the dispatch's extent when it does
    /// not exist.
    pub fn place(&self, sel: LaneSelect) -> Result<LanePlace, DebugError> {
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
        })
    }

    /// Runs the whole dispatch from the start, observing wave `wave` of group `group`
    /// (keeping at most `limit_bytes` of record) and reporting every write to `writes`.
    pub fn run(
        &self,
        group: [u32; 3],
        wave: usize,
        limit_bytes: usize,
        writes: Option<&dyn WriteSink>,
    ) -> Run {
        self.start.restore();
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
        }
    }

    /// Runs the dispatch from the start as a normal run does (nothing observed) and
    /// returns the writable resources' contents.
    pub fn run_normal(&self) -> Result<Vec<Vec<u8>>, ExecError> {
        self.start.restore();
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

/// The target of a prepared job (`job::run::prepare`): its program (reloaded for debugging),
/// its bound resources, groups and options.
pub fn from_job(p: &crate::job::run::Prepared) -> Result<Target, DebugError> {
    let info = &p.program.info;
    let program = if info.container == "IR" {
        Program::from_ir(p.program.shader.clone())
    } else {
        let bytes = std::fs::read(&info.path)
            .map_err(|e| DebugError::Load(format!("{}: {e}", info.path)))?;
        Program::from_container(&bytes, p.job.file.program.entry.clone())?
    };
    Target::new(program, p.fit.bindings.clone(), p.groups, p.options.clone())
}
