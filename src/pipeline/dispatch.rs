//! Compute dispatch: runs a compute shader over a grid of thread groups.
//!
//! # Threads to lanes
//!
//! The threads of a group are placed in lane slots (slot `i` is lane `i % W` of wave
//! `i / W`, see [`thread_layout`]):
//!
//! - When the group's x and y sizes are both even, the **SM 6.6 compute quad layout**
//!   applies: each 2×2 block of threads `(2m + {0, 1}, 2n + {0, 1}, z)` forms one quad in
//!   four consecutive lanes — `(2m, 2n)`, `(2m + 1, 2n)`, `(2m, 2n + 1)`, `(2m + 1, 2n + 1)`
//!   (lane 0 top-left … 3 bottom-right, as derivatives expect). Quads are taken in order
//!   of z, then n, then m. (HLSL SM 6.6 "Derivative Operations in Compute … Shaders":
//!   numthreads with X and Y divisible by 2 follow the 2D quad rules.)
//! - Otherwise threads are placed linearly by flattened group index
//!   (`SV_GroupIndex` = x + y·X + z·X·Y), which is also the SM 6.6 1D quad rule (X
//!   divisible by 4, Y = Z = 1: quads of four consecutive group indices).
//!
//! A group whose thread count is not a multiple of the wave size leaves the last wave's
//! upper lanes empty.
//!
//! # Wave size
//!
//! The shader's `[WaveSize]` wins: its preferred size when it states one inside its
//! range (SM 6.8 `[WaveSize(min, max, preferred)]`, HLSL specification "WaveSize"), else
//! the option when the range allows it, else 8 (WARP's default) clamped into the range.
//! Without `[WaveSize]`: the option, else 8.
//!
//! # Lanes run side by side
//!
//! A shader that never looks across lanes (no wave or quad operation, derivative,
//! implicit-LOD sample, lane index or count: [`exec::crosses_lanes`](crate::exec::crosses_lanes))
//! computes the same whichever threads share a wave, so its groups run
//! [`MAX_BATCH_LANES`] threads side by side (never fewer than the wave size), which spends
//! the interpreter's per-instruction cost on more lanes. The wave size the program sees
//! and the report states is unchanged; the report also gives the batch width.
//!
//! # Workers
//!
//! Groups are handed out in linear order (x fastest) to `threads` worker threads
//! (crossbeam scoped threads; 0 = all cores). More workers than cores, or than groups,
//! would only wait, so the count is capped at both, and the report's notes say so; when
//! the system refuses to start a worker the run goes on with those it has (at least the
//! calling thread), and says so too. Results do not depend on the worker count, except
//! through atomics a program uses in an order-dependent way. When groups fail, the error
//! of the lowest-numbered failing group is returned (groups below it still finish), so
//! the error does not depend on the worker count either.
//!
//! # The run's budgets
//!
//! Besides each lane's instruction budget, a run has a total one
//! (`Limits::max_total_lane_instructions`) and may have a time limit
//! (`Limits::max_wall_time`). A dispatch whose least work, one instruction per thread,
//! already passes the total is refused before it starts; otherwise both are checked after
//! each thread group, and the run stops with an error saying how far it got.

use std::sync::Mutex;
use std::sync::atomic::{AtomicU64, Ordering};

use super::plan::{BatchKind, BatchLanes, Plan, ProgramWaveSize};
use crate::exec::jit::{Engine, JitReport};
use crate::exec::{
    DescriptorTable, ExecError, GroupHooks, GroupRunner, GroupStats, Program, RunBudget,
    WaveObserver, WriteSink,
};
use crate::ir::{Shader, Stage};
use crate::resources::Descriptor;

/// The most thread groups per dimension (D3D12_CS_DISPATCH_MAX_THREAD_GROUPS_PER_DIMENSION).
pub const MAX_GROUPS_PER_DIMENSION: u32 = 65535;

/// The most threads in a group (D3D12_CS_THREAD_GROUP_MAX_THREADS_PER_GROUP).
pub const MAX_THREADS_PER_GROUP: u32 = 1024;

pub use super::plan::{DEFAULT_WAVE_SIZE, MAX_BATCH_LANES};

/// What the shader's resources are bound to.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct Bindings {
    /// One list per entry of `shader.resources`: element `k` binds register `lower + k`.
    pub ranges: Vec<Vec<Descriptor>>,
    /// SM 6.6 `ResourceDescriptorHeap`.
    pub resource_heap: Vec<Descriptor>,
    /// SM 6.6 `SamplerDescriptorHeap`.
    pub sampler_heap: Vec<Descriptor>,
}

/// How threads were placed in lanes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ThreadLayout {
    /// By flattened group index.
    Linear,
    /// SM 6.6 2D compute quads.
    Quads,
}

/// What a dispatch did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct DispatchReport {
    /// Lane-instructions executed (instructions and terminators, counted per active lane).
    pub lane_instructions: u64,
    /// Waves run.
    pub waves: u64,
    /// Thread groups run.
    pub groups: u64,
    /// Lanes per wave.
    pub wave_size: u32,
    /// Threads run side by side (the wave size, or more when the shader never looks
    /// across lanes).
    pub batch_lanes: u32,
    /// The WARP profile's name.
    pub profile: String,
    /// Worker threads used.
    pub threads: usize,
    /// How threads were placed in lanes.
    pub layout: ThreadLayout,
    /// What the dispatch changed from what it was asked (fewer workers), one line each.
    pub notes: Vec<String>,
    /// The engine that ran the shader.
    pub engine: Engine,
    /// What the native engine compiled (coverage, compile time), when it ran.
    pub jit: Option<JitReport>,
}

/// The `SV_GroupThreadID` of each lane slot of a group of `tg` threads (see the module
/// doc), and which layout applies.
pub fn thread_layout(tg: [u32; 3]) -> (Vec<[u32; 3]>, ThreadLayout) {
    let [x, y, z] = tg;
    let mut out = Vec::with_capacity((x as usize) * (y as usize) * (z as usize));
    if x % 2 == 0 && y % 2 == 0 {
        for k in 0..z {
            for qy in (0..y).step_by(2) {
                for qx in (0..x).step_by(2) {
                    out.push([qx, qy, k]);
                    out.push([qx + 1, qy, k]);
                    out.push([qx, qy + 1, k]);
                    out.push([qx + 1, qy + 1, k]);
                }
            }
        }
        (out, ThreadLayout::Quads)
    } else {
        for k in 0..z {
            for j in 0..y {
                for i in 0..x {
                    out.push([i, j, k]);
                }
            }
        }
        (out, ThreadLayout::Linear)
    }
}

/// What a dispatch reports to, for debugging and capture comparison (see
/// `exec::observe`); the default observes nothing.
#[derive(Default)]
pub struct DispatchHooks<'a> {
    /// Every lane's memory writes.
    pub writes: Option<&'a dyn WriteSink>,
    /// One wave of one group, traced.
    pub observe: Option<ObserveWave<'a>>,
    /// The budget to charge (a command list's, shared by its commands); `None`: the
    /// dispatch's own, from `Plan::limits`.
    pub budget: Option<&'a RunBudget>,
}

/// The wave a dispatch traces. Its group runs `shader` — the same program, lowered for
/// debugging (unoptimised, so that each instruction maps to one source instruction), with
/// the same resources and thread group — in waves of exactly the program's wave size
/// (never side by side), so that it sees the waves WARP would. Every other group runs as
/// in [`dispatch`].
pub struct ObserveWave<'a> {
    /// `SV_GroupID` of the group.
    pub group: [u32; 3],
    /// The wave's index in the group (lane slots `wave × wave size …`; see [`thread_layout`]).
    pub wave: usize,
    /// The shader the group runs.
    pub shader: &'a Shader,
    /// Who hears the wave's steps.
    pub observer: &'a mut (dyn WaveObserver + Send),
}

/// Runs `shader` over `groups` thread groups. `progress`, when given, is called with
/// (groups done, groups in all) after each group, from the worker threads.
pub fn dispatch(
    shader: &Shader,
    bindings: &Bindings,
    groups: [u32; 3],
    opts: &Plan,
    progress: Option<&(dyn Fn(u64, u64) + Sync)>,
) -> Result<DispatchReport, ExecError> {
    dispatch_with(
        shader,
        bindings,
        groups,
        opts,
        progress,
        DispatchHooks::default(),
    )
}

/// [`dispatch`], reporting to `hooks`.
pub fn dispatch_with(
    shader: &Shader,
    bindings: &Bindings,
    groups: [u32; 3],
    opts: &Plan,
    progress: Option<&(dyn Fn(u64, u64) + Sync)>,
    hooks: DispatchHooks<'_>,
) -> Result<DispatchReport, ExecError> {
    if shader.stage != Stage::Compute {
        return Err(ExecError::Dispatch(format!(
            "a {} shader cannot be dispatched; only compute shaders can",
            shader.stage
        )));
    }
    if let Some(&g) = groups.iter().find(|&&g| g > MAX_GROUPS_PER_DIMENSION) {
        return Err(ExecError::Dispatch(format!(
            "{g} thread groups in one dimension; D3D allows at most {MAX_GROUPS_PER_DIMENSION}"
        )));
    }
    let tg = shader.thread_group;
    // The program's numbers: three of 2^32 − 1 overflow a u64 product.
    let per_group = u64::from(tg[0])
        .saturating_mul(u64::from(tg[1]))
        .saturating_mul(u64::from(tg[2]));
    if per_group == 0 || per_group > u64::from(MAX_THREADS_PER_GROUP) {
        return Err(ExecError::Dispatch(format!(
            "a thread group of {}×{}×{} threads; D3D allows 1 to {MAX_THREADS_PER_GROUP}",
            tg[0], tg[1], tg[2]
        )));
    }
    let wave_size = ProgramWaveSize::choose(shader, opts.wave_size)?.get();
    let table = DescriptorTable::new(
        shader,
        &bindings.ranges,
        &bindings.resource_heap,
        &bindings.sampler_heap,
    )?;
    let (layout, layout_kind) = thread_layout(tg);
    let batch_lanes = BatchLanes::choose(
        shader,
        ProgramWaveSize::choose(shader, opts.wave_size)?,
        BatchKind::Compute {
            group_threads: per_group as u32,
        },
    )
    .get();
    let observed_program = match &hooks.observe {
        Some(o) => {
            if o.shader.thread_group != tg || o.shader.resources != shader.resources {
                return Err(ExecError::Dispatch(
                    "the observed group's shader has another thread group or resources".into(),
                ));
            }
            let table = DescriptorTable::new(
                o.shader,
                &bindings.ranges,
                &bindings.resource_heap,
                &bindings.sampler_heap,
            )?;
            Some(Program::new(
                o.shader,
                table,
                opts.profile.clone(),
                opts.limits,
                wave_size,
                layout.clone(),
            )?)
        }
        None => None,
    };
    let observed_group = hooks.observe.as_ref().map(|o| (o.group, o.wave));
    let observer = Mutex::new(hooks.observe.map(|o| o.observer));
    let writes = hooks.writes;
    let program = Program::new(
        shader,
        table,
        opts.profile.clone(),
        opts.limits,
        batch_lanes,
        layout,
    )?
    .with_engine(opts.engine);
    let total = u64::from(groups[0]) * u64::from(groups[1]) * u64::from(groups[2]);
    // The run's one budget (`exec::RunBudget`), charged after each group.
    let own;
    let budget = match hooks.budget {
        Some(b) => b,
        None => {
            own = RunBudget::new(&opts.limits);
            &own
        }
    };
    budget.check_least(
        || format!("{total} thread groups of {per_group} threads"),
        total.saturating_mul(per_group),
    )?;
    let cores = super::plan::cores();
    let requested = if opts.threads == 0 {
        cores
    } else {
        opts.threads
    };
    let mut notes = Vec::new();
    let threads = requested.min(cores).min(total.max(1) as usize).max(1);
    if opts.threads != 0 && threads < requested {
        notes.push(format!(
            "{requested} worker threads asked for; running {threads}: more than the {cores} cores or the {total} thread groups would only wait"
        ));
    }
    let needed = program.group_memory_bytes().saturating_mul(threads as u64);
    if needed > opts.limits.max_memory_bytes {
        return Err(ExecError::MemoryBudget {
            needed,
            limit: opts.limits.max_memory_bytes,
        });
    }
    let mut report = DispatchReport {
        lane_instructions: 0,
        waves: 0,
        groups: 0,
        wave_size,
        batch_lanes,
        profile: opts.profile.name().to_string(),
        threads,
        layout: layout_kind,
        notes,
        engine: opts.engine,
        jit: program.jit_report(),
    };
    if total == 0 {
        return Ok(report);
    }

    let next = AtomicU64::new(0);
    let done = AtomicU64::new(0);
    let stop = AtomicU64::new(u64::MAX);
    let errors: Mutex<Vec<(u64, ExecError)>> = Mutex::new(Vec::new());
    let [gx, gy, _] = groups;
    // Workers claim groups a few at a time: one shared counter bumped per group is a
    // cache line the cores pass back and forth thousands of times per dispatch. One
    // worker claims one at a time, so its budget errors name the same group as ever.
    let claim = if threads == 1 {
        1
    } else {
        (total / (threads as u64 * 64)).clamp(1, 8)
    };
    let worker = || -> GroupStats {
        let mut runner = GroupRunner::new(&program);
        let mut stats = GroupStats::default();
        let mut mine = 0..0;
        loop {
            let i = match mine.next() {
                Some(i) => i,
                None => {
                    let first = next.fetch_add(claim, Ordering::Relaxed);
                    mine = first + 1..(first + claim).min(total);
                    first
                }
            };
            if i >= total || i > stop.load(Ordering::Relaxed) {
                break;
            }
            let id = [
                (i % u64::from(gx)) as u32,
                ((i / u64::from(gx)) % u64::from(gy)) as u32,
                (i / (u64::from(gx) * u64::from(gy))) as u32,
            ];
            let fail = |e: ExecError| {
                stop.fetch_min(i, Ordering::Relaxed);
                errors
                    .lock()
                    .unwrap_or_else(|p| p.into_inner())
                    .push((i, e));
            };
            let result = match (observed_group, &observed_program) {
                (Some((g, wave)), Some(op)) if g == id => {
                    let mut slot = observer.lock().unwrap_or_else(|p| p.into_inner());
                    let mut r = GroupRunner::new(op);
                    let observe = slot
                        .as_mut()
                        .map(|o| (wave, &mut **o as &mut dyn WaveObserver));
                    r.run_with(
                        id,
                        GroupHooks {
                            writes,
                            observe,
                            shared_init: &[],
                        },
                    )
                }
                _ if writes.is_some() => runner.run_with(
                    id,
                    GroupHooks {
                        writes,
                        observe: None,
                        shared_init: &[],
                    },
                ),
                _ => runner.run(id),
            };
            match result {
                Ok(s) => {
                    stats.lane_instructions += s.lane_instructions;
                    stats.waves += s.waves;
                    if let Err(spent) = budget.charge(s.lane_instructions) {
                        let finished = done.load(Ordering::Relaxed) + 1;
                        fail(budget.error(spent, finished, total, "thread groups"));
                    }
                }
                Err(e) => fail(e),
            }
            let d = done.fetch_add(1, Ordering::Relaxed) + 1;
            if let Some(p) = progress {
                p(d, total);
            }
        }
        stats
    };
    let mut started_workers = threads;
    let all: Vec<GroupStats> = if threads == 1 {
        vec![worker()]
    } else {
        crossbeam::thread::scope(|s| {
            // A refused spawn (the system's thread limit) is not fatal: the workers that
            // did start, and this thread, share the groups.
            let mut handles = Vec::with_capacity(threads - 1);
            for _ in 1..threads {
                match s.builder().spawn(|_| worker()) {
                    Ok(h) => handles.push(h),
                    Err(_) => break,
                }
            }
            started_workers = handles.len() + 1;
            let mut all = vec![worker()];
            all.extend(handles.into_iter().map(|h| h.join().unwrap_or_default()));
            all
        })
        .unwrap_or_default()
    };
    if started_workers < threads {
        report.notes.push(format!(
            "the system started only {started_workers} of {threads} worker threads; the run used those"
        ));
        report.threads = started_workers;
    }
    let mut errors = errors.into_inner().unwrap_or_else(|p| p.into_inner());
    if let Some(pos) = (0..errors.len()).min_by_key(|&k| errors[k].0) {
        return Err(errors.swap_remove(pos).1);
    }
    for s in all {
        report.lane_instructions += s.lane_instructions;
    }
    // Waves as the program sees them, whatever batch width ran them.
    report.waves = total * per_group.div_ceil(u64::from(wave_size));
    report.groups = total;
    // Now with what the region code ran.
    report.jit = program.jit_report();
    Ok(report)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::ir::WaveSizeReq;

    /// SM 6.6 compute quads: 2×2 blocks of (x, y) in four consecutive lanes.
    #[test]
    fn quad_layout() {
        let (l, k) = thread_layout([4, 2, 1]);
        assert_eq!(k, ThreadLayout::Quads);
        assert_eq!(
            l,
            vec![
                [0, 0, 0],
                [1, 0, 0],
                [0, 1, 0],
                [1, 1, 0],
                [2, 0, 0],
                [3, 0, 0],
                [2, 1, 0],
                [3, 1, 0]
            ]
        );
        let (l, k) = thread_layout([3, 2, 1]);
        assert_eq!(k, ThreadLayout::Linear);
        assert_eq!(l[3], [0, 1, 0]);
        let (_, k) = thread_layout([8, 1, 1]);
        assert_eq!(k, ThreadLayout::Linear);
    }

    fn choose_wave_size(s: &Shader, o: Option<u32>) -> Result<u32, ExecError> {
        ProgramWaveSize::choose(s, o).map(ProgramWaveSize::get)
    }

    #[test]
    fn wave_size_choice() {
        let mut s = Shader::new(Stage::Compute);
        assert_eq!(ProgramWaveSize::choose(&s, None).unwrap().get(), 8);
        assert_eq!(choose_wave_size(&s, Some(32)).unwrap(), 32);
        assert!(choose_wave_size(&s, Some(12)).is_err());
        assert!(choose_wave_size(&s, Some(256)).is_err());
        s.wave_size = Some(WaveSizeReq {
            min: 32,
            max: 32,
            preferred: 0,
        });
        assert_eq!(choose_wave_size(&s, Some(16)).unwrap(), 32);
        s.wave_size = Some(WaveSizeReq {
            min: 16,
            max: 64,
            preferred: 0,
        });
        assert_eq!(choose_wave_size(&s, Some(32)).unwrap(), 32);
        assert_eq!(ProgramWaveSize::choose(&s, None).unwrap().get(), 16);
        s.wave_size = Some(WaveSizeReq {
            min: 16,
            max: 64,
            preferred: 64,
        });
        assert_eq!(choose_wave_size(&s, Some(32)).unwrap(), 64);
        // A preferred size outside the range is not honoured: the option, else 8 clamped.
        s.wave_size = Some(WaveSizeReq {
            min: 16,
            max: 32,
            preferred: 64,
        });
        assert_eq!(choose_wave_size(&s, Some(32)).unwrap(), 32);
        assert_eq!(ProgramWaveSize::choose(&s, None).unwrap().get(), 16);
    }
}

#[cfg(test)]
mod batch_tests {
    use super::*;
    use crate::ir::parse_shader;
    use crate::resources::{BufferKind, BufferView, Memory};

    fn run(body: &str) -> (DispatchReport, Vec<u8>) {
        let text = format!(
            "shader compute\ngroup [8 8 1]\nconst r0 = 0\nconst r1 = 4\nresource range0 = uav space 0 lower 0 count 1 raw_buffer uint\nblock0:\n    group_index r2\n    imul r3, r2, r1\n    handle r4, range0, r0\n{body}    raw_store b32, 1, r4, r3, [r5 _ _ _]\n    return\n"
        );
        let s = parse_shader(&text).unwrap();
        let m = Memory::zeroed(256).unwrap();
        let d = Descriptor::Buffer {
            view: BufferView::whole(m.clone(), BufferKind::Raw),
            counter: None,
        };
        let b = Bindings {
            ranges: vec![vec![d]],
            resource_heap: vec![],
            sampler_heap: vec![],
        };
        let r = dispatch(&s, &b, [1, 1, 1], &Plan::default(), None).unwrap();
        (r, m.to_bytes())
    }

    /// A shader that never looks across lanes runs 32 threads side by side; the wave size
    /// it reports (and the waves it counts) stay WARP's 8.
    #[test]
    fn lane_independent_shaders_run_in_wider_batches() {
        let (r, out) = run("    iadd r5, r2, r1\n");
        assert_eq!(
            (r.wave_size, r.batch_lanes, r.waves),
            (8, MAX_BATCH_LANES, 8)
        );
        assert_eq!(
            u32::from_le_bytes(out[4 * 9..4 * 10].try_into().unwrap()),
            13
        );
    }

    /// A wave operation keeps waves at their size: lane 9 sees its wave of 8.
    #[test]
    fn cross_lane_shaders_keep_their_waves() {
        let (r, out) = run("    lane_count r5\n");
        assert_eq!((r.wave_size, r.batch_lanes), (8, 8));
        assert_eq!(
            u32::from_le_bytes(out[4 * 9..4 * 10].try_into().unwrap()),
            8
        );
    }
}
