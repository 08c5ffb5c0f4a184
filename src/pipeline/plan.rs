//! How work runs: the resolved plan (wave size asked for, worker threads, engine, WARP
//! profile, limits) and the two lane counts that follow from it for each program — the
//! wave size the program sees ([`ProgramWaveSize`]) and the lanes the pipeline runs side
//! by side ([`BatchLanes`]).
//!
//! Owns the batching rule, written once: a program that never looks across the lanes its
//! results could depend on computes the same whichever lanes share a wave, so the
//! pipeline runs more of them at once; every other program runs in waves of exactly its
//! wave size. Does not own: where a given lane lands (`work`), running waves (`exec`).
//!
//! The two counts are distinct types because they answer different questions: a
//! program's `WaveGetLaneCount` and a lane's `WaveGetLaneIndex` come from
//! [`ProgramWaveSize`]; how many lanes one `exec` batch holds comes from [`BatchLanes`].

use crate::exec::jit::Engine;
use crate::exec::{ExecError, Limits, Profile};
use crate::ir::Shader;

/// WARP's default wave size.
pub const DEFAULT_WAVE_SIZE: u32 = 8;

/// How many threads of a compute group run side by side when the shader never looks
/// across lanes. 32 measured fastest on the Mandelbrot benchmark: wider batches lose more
/// to lanes that finish early.
pub const MAX_BATCH_LANES: u32 = 32;

/// Lanes side by side for vertex programs that never look across lanes and pixel
/// programs that never look across quads. Wider than [`MAX_BATCH_LANES`]: a draw's batch
/// carries fixed costs a dispatch's does not (the handles and sampler sites made again,
/// the clock reads of the stage profile, the stage inputs' bookkeeping), and the
/// full-screen and triangle benchmarks ran about a fifth faster with 128 lanes than with
/// 32 (64 lay between).
pub const DRAW_BATCH_LANES: u32 = 128;

/// The resolved plan of a run: everything about *how* work runs that is not the work
/// itself. The same plan runs a dispatch, a draw, or the debugger's runs of either.
///
/// The default: WARP's wave size, all cores, the newest profile, default limits, the
/// native engine. The environment is not consulted here: a front end (the command line)
/// chooses the engine and passes it down.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Plan {
    /// Lanes per wave asked for (4 … 128, a power of two); `None` = WARP's 8. A shader's
    /// `[WaveSize]` takes precedence ([`ProgramWaveSize::choose`]).
    pub wave_size: Option<u32>,
    /// Worker threads; 0 = all cores.
    pub threads: usize,
    /// WARP version rules.
    pub profile: Profile,
    /// Instruction, memory and time limits; the run's totals cover all of the work.
    pub limits: Limits,
    /// Which engine runs the programs.
    pub engine: Engine,
}

/// The processor count the worker pools are sized from (`threads = 0` means all of
/// them), asked of the system once per process: `available_parallelism` reads the
/// cgroup's quota files on Linux, which cost a quarter of a small draw's time when asked
/// per draw (a list of 1,000 small draws, measured with `perf`).
pub fn cores() -> usize {
    static CORES: std::sync::OnceLock<usize> = std::sync::OnceLock::new();
    *CORES.get_or_init(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

impl Plan {
    /// The wave size `shader` sees under this plan.
    pub fn wave_size_of(&self, shader: &Shader) -> Result<ProgramWaveSize, ExecError> {
        ProgramWaveSize::choose(shader, self.wave_size)
    }
}

/// The wave size a program sees (`WaveGetLaneCount`): a power of two from 4 to 128.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct ProgramWaveSize(u32);

impl ProgramWaveSize {
    /// The wave size of `shader` when `option` is asked for.
    ///
    /// The shader's `[WaveSize]` wins: its preferred size when it states one inside its
    /// range (SM 6.8 `[WaveSize(min, max, preferred)]`, HLSL specification "WaveSize"),
    /// else the option when the range allows it, else 8 (WARP's default) clamped into the
    /// range. Without `[WaveSize]`: the option, else 8.
    pub fn choose(shader: &Shader, option: Option<u32>) -> Result<ProgramWaveSize, ExecError> {
        let size = match shader.wave_size {
            Some(req) => {
                if req.min > req.max {
                    return Err(ExecError::WaveSize {
                        size: req.min,
                        message: format!(
                            "the shader's [WaveSize] range {}..{} is empty",
                            req.min, req.max
                        ),
                    });
                }
                if req.preferred != 0 && (req.min..=req.max).contains(&req.preferred) {
                    req.preferred
                } else {
                    match option {
                        Some(o) if (req.min..=req.max).contains(&o) => o,
                        _ => DEFAULT_WAVE_SIZE.clamp(req.min, req.max),
                    }
                }
            }
            None => option.unwrap_or(DEFAULT_WAVE_SIZE),
        };
        if !(4..=128).contains(&size) || !size.is_power_of_two() {
            return Err(ExecError::WaveSize {
                size,
                message: "not a power of two from 4 to 128".into(),
            });
        }
        Ok(ProgramWaveSize(size))
    }

    /// The lane count.
    pub fn get(self) -> u32 {
        self.0
    }
}

/// What a batch of lanes runs: which lanes the program may look across decides how
/// widely the pipeline may batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum BatchKind {
    /// A compute group of this many threads.
    Compute {
        /// Threads in one group (`numthreads` x·y·z).
        group_threads: u32,
    },
    /// Vertices of a draw, at most `vertices` of them per run of the stage (one
    /// instance's distinct vertices).
    Vertex {
        /// The most vertices one run shades (`u32::MAX` when not known).
        vertices: u32,
    },
    /// Pixels of a draw, in whole quads.
    Pixel,
}

impl BatchKind {
    /// The kind with its count rounded as [`BatchLanes::choose`] rounds it: two kinds of
    /// one class choose the same batch for every shader and wave size (what a cache of
    /// prepared programs may key them by).
    pub fn class(self) -> BatchKind {
        let round = |n: u32, most: u32| n.checked_next_power_of_two().unwrap_or(u32::MAX).min(most);
        match self {
            BatchKind::Compute { group_threads } => BatchKind::Compute {
                group_threads: round(group_threads.max(1), MAX_BATCH_LANES),
            },
            BatchKind::Vertex { vertices } => BatchKind::Vertex {
                vertices: round(vertices, DRAW_BATCH_LANES),
            },
            BatchKind::Pixel => BatchKind::Pixel,
        }
    }
}

/// Lanes the pipeline runs side by side in one `exec` batch: the program's wave size, or
/// more when the program cannot tell (see the module doc). Never fewer than the wave size.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct BatchLanes(u32);

impl BatchLanes {
    /// The batch width for `shader` in waves of `wave`:
    ///
    /// - compute: the group's thread count rounded up to a power of two, between the wave
    ///   size and [`MAX_BATCH_LANES`], when no instruction crosses lanes
    ///   (`exec::shader_crosses_lanes`); else the wave size;
    /// - vertex: when no instruction crosses lanes, [`DRAW_BATCH_LANES`], or fewer for a
    ///   run of fewer vertices (the power of two that holds them, at least the wave
    ///   size); else the wave size;
    /// - pixel: [`DRAW_BATCH_LANES`] when no instruction reads lanes outside its quad or
    ///   the wave's shape ([`crosses_quads`]); else the wave size — quad operations and
    ///   derivatives see the same quads in a batch of whole quads.
    pub fn choose(shader: &Shader, wave: ProgramWaveSize, kind: BatchKind) -> BatchLanes {
        let w = wave.get();
        let lanes = match kind {
            BatchKind::Compute { group_threads } => {
                if crate::exec::shader_crosses_lanes(shader) {
                    w
                } else {
                    group_threads
                        .max(1)
                        .checked_next_power_of_two()
                        .unwrap_or(u32::MAX)
                        .clamp(w, MAX_BATCH_LANES.max(w))
                }
            }
            BatchKind::Vertex { .. } if crate::exec::shader_crosses_lanes(shader) => w,
            BatchKind::Pixel if crosses_quads(shader) => w,
            // A run of few vertices gets a batch no wider than it needs: every lane of a
            // batch costs its share of the registers set up, the inputs zeroed and each
            // instruction, and a list's one-triangle draws otherwise ran 3 vertices in
            // 128 lanes (the lanes are independent, so the width is not seen).
            BatchKind::Vertex { vertices } => vertices
                .checked_next_power_of_two()
                .unwrap_or(u32::MAX)
                .clamp(w, DRAW_BATCH_LANES.max(w)),
            BatchKind::Pixel => DRAW_BATCH_LANES.max(w),
        };
        BatchLanes(lanes)
    }

    /// The lane count.
    pub fn get(self) -> u32 {
        self.0
    }

    /// Waves of `wave` lanes in one batch.
    pub fn waves(self, wave: ProgramWaveSize) -> u32 {
        self.0 / wave.get()
    }
}

/// Whether an instruction of `s` reads lanes outside its quad, or the wave's shape (the
/// instruction table's `lanes` column says `wave`): only then must a pixel wave hold
/// just the lanes of one wave, instead of a batch of whole quads.
pub fn crosses_quads(s: &Shader) -> bool {
    s.insts.iter().any(|i| i.lanes() == crate::ir::Lanes::Wave)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn shader(text: &str) -> Shader {
        crate::ir::parse_shader(text).unwrap()
    }

    const PLAIN_CS: &str = "shader compute\ngroup [64 1 1]\nblock0:\n    return\n";

    #[test]
    fn batches_widen_only_where_the_program_cannot_tell() {
        let s = shader(PLAIN_CS);
        let w = ProgramWaveSize::choose(&s, None).unwrap();
        assert_eq!(w.get(), DEFAULT_WAVE_SIZE);
        // A group of 64 independent threads: capped at MAX_BATCH_LANES.
        let b = BatchLanes::choose(&s, w, BatchKind::Compute { group_threads: 64 });
        assert_eq!(b.get(), MAX_BATCH_LANES);
        // A group of 3: rounded to 4, raised to the wave size.
        let b = BatchLanes::choose(&s, w, BatchKind::Compute { group_threads: 3 });
        assert_eq!(b.get(), 8);
        let vertices = |n: u32| BatchLanes::choose(&s, w, BatchKind::Vertex { vertices: n }).get();
        assert_eq!(vertices(u32::MAX), DRAW_BATCH_LANES);
        assert_eq!(vertices(1000), DRAW_BATCH_LANES);
        // A run of few vertices: the power of two that holds them, at least a wave.
        assert_eq!(vertices(3), 8);
        assert_eq!(vertices(0), 8);
        assert_eq!(vertices(40), 64);
        assert_eq!(vertices(128), 128);
        // Kinds of one class choose one batch, whatever the wave.
        for wave in [4, 8, 32, 128] {
            let w = ProgramWaveSize::choose(&s, Some(wave)).unwrap();
            for n in [0, 1, 3, 5, 8, 9, 100, 128, 129, 1000, u32::MAX] {
                for kind in [
                    BatchKind::Vertex { vertices: n },
                    BatchKind::Compute { group_threads: n },
                ] {
                    assert_eq!(
                        BatchLanes::choose(&s, w, kind),
                        BatchLanes::choose(&s, w, kind.class()),
                        "{kind:?} in waves of {wave}"
                    );
                }
            }
        }
        // A wave wider than the draw's batch keeps the wave.
        let wide = ProgramWaveSize::choose(&s, Some(128)).unwrap();
        assert_eq!(BatchLanes::choose(&s, wide, BatchKind::Pixel).get(), 128);
        assert_eq!(
            BatchLanes::choose(&s, wide, BatchKind::Compute { group_threads: 64 }).waves(wide),
            1
        );
    }

    #[test]
    fn wave_sizes_outside_the_rule_are_refused() {
        let s = shader(PLAIN_CS);
        assert!(ProgramWaveSize::choose(&s, Some(12)).is_err());
        assert!(ProgramWaveSize::choose(&s, Some(256)).is_err());
        assert_eq!(ProgramWaveSize::choose(&s, Some(32)).unwrap().get(), 32);
    }
}
