//! Limits of a run (instructions per lane, memory, the run's total work and time) and the
//! errors of execution.
//!
//! The instruction budget counts *lane-instructions* like fuel: each lane counts the
//! instructions (terminators included) it executes; a lane about to pass
//! [`Limits::max_lane_instructions`] stops the run with [`ExecError::Budget`], naming its
//! thread, the instruction and the instruction's source. An infinite loop therefore ends
//! with that error instead of hanging. The memory budget bounds what execution allocates:
//! registers, per-lane arrays and group shared memory of every group in flight.
//!
//! # One budget for every kind of work
//!
//! A run's total work ([`Limits::max_total_lane_instructions`]) and time
//! ([`Limits::max_wall_time`]) are one [`RunBudget`], made when the run starts and
//! charged by every kind of work it does: a dispatch's thread groups, a draw's vertex
//! waves and pixel waves, the debugger's traced runs (which are such runs). Each charges
//! the lane-instructions it ran as it goes — a dispatch after each thread group, the
//! vertex stage after each chunk of vertices, the pixel stage every few waves and after
//! each tile — and checks the clock at the same points, so a run stops within one such
//! step of passing either limit, with an error saying how far it got. Work whose least
//! cost (one instruction per thread or vertex) already passes the total is refused
//! before it starts ([`RunBudget::check_least`]).

use std::fmt;
use std::sync::atomic::{AtomicU64, Ordering};
use std::time::{Duration, Instant};

use crate::ir::{BlockId, InstId, SourceLoc, Stage, ValidateError};

/// Limits of one run.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub struct Limits {
    /// Most instructions any one lane may execute.
    pub max_lane_instructions: u64,
    /// Most bytes of execution state (registers, local arrays, group shared memory of the
    /// groups running at once).
    pub max_memory_bytes: u64,
    /// Most lane-instructions the whole run may execute, over every group and worker:
    /// bounds a dispatch of many groups as the per-lane budget bounds a loop. Checked
    /// before the run against the least it could take (one instruction per thread) and
    /// after each thread group.
    pub max_total_lane_instructions: u64,
    /// The longest the run may take (wall clock), checked after each thread group;
    /// `None` for no limit.
    pub max_wall_time: Option<std::time::Duration>,
}

impl Default for Limits {
    /// 100 million instructions per lane, 1 GiB of execution state, 10¹² lane-instructions
    /// in all, no time limit.
    fn default() -> Limits {
        Limits {
            max_lane_instructions: 100_000_000,
            max_memory_bytes: 1 << 30,
            max_total_lane_instructions: 1_000_000_000_000,
            max_wall_time: None,
        }
    }
}

/// Three coordinates, printed `(x, y, z)`.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash, Default)]
pub struct Xyz(pub [u32; 3]);

impl fmt::Display for Xyz {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "({}, {}, {})", self.0[0], self.0[1], self.0[2])
    }
}

/// Which invocation a lane runs: a compute thread, a vertex, a pixel (sample) or a ray.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum Invocation {
    /// A compute thread.
    Thread {
        /// `SV_GroupID`.
        group: Xyz,
        /// `SV_GroupThreadID`.
        thread: Xyz,
    },
    /// A vertex-stage invocation.
    Vertex {
        /// The vertex's index (`SV_VertexID`).
        vertex: u32,
        /// `SV_InstanceID`.
        instance: u32,
    },
    /// A pixel-stage invocation (a helper lane's pixel is the uncovered one it stands for).
    Pixel {
        /// Pixel x.
        x: u32,
        /// Pixel y.
        y: u32,
        /// The sample (0 unless the stage runs per sample).
        sample: u32,
    },
    /// A lane of a `DispatchRays`: its ray-generation lane, or one of the programs that
    /// lane's `TraceRay` or `CallShader` ran (they run for the same launch index).
    Ray {
        /// `DispatchRaysIndex()`.
        index: Xyz,
        /// The program's stage: `RayGeneration` for the ray-generation lane itself.
        stage: Stage,
        /// The program, as the pipeline running it numbers its programs
        /// (`RayContext::program`; `pipeline::rays`: the index in its programs).
        program: u32,
    },
}

impl fmt::Display for Invocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Invocation::Thread { group, thread } => write!(f, "group {group}, thread {thread}"),
            Invocation::Vertex { vertex, instance } => {
                write!(f, "vertex {vertex}, instance {instance}")
            }
            Invocation::Pixel { x, y, sample } => write!(f, "pixel ({x}, {y}), sample {sample}"),
            Invocation::Ray {
                index,
                stage: Stage::RayGeneration,
                ..
            } => write!(f, "ray {index}"),
            Invocation::Ray { index, stage, .. } => {
                write!(f, "ray {index}, {} program", stage.words())
            }
        }
    }
}

/// Where in a program a lane was.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Hash)]
pub enum At {
    /// An instruction.
    Inst(InstId),
    /// The terminator of a block.
    Terminator(BlockId),
}

impl fmt::Display for At {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            At::Inst(i) => write!(f, "{i}"),
            At::Terminator(b) => write!(f, "the terminator of {b}"),
        }
    }
}

/// An engine failure: the run could not complete. (What a program computes, including
/// out-of-bounds accesses and discards, is never an error.)
#[derive(Debug, Clone, PartialEq, thiserror::Error)]
pub enum ExecError {
    /// A lane would pass its instruction budget.
    #[error(
        "{lane}: the budget of {limit} instructions per lane is exhausted at {at} `{text}` ({loc})"
    )]
    Budget {
        /// The lane's invocation.
        lane: Invocation,
        /// The instruction it was about to execute.
        at: At,
        /// The instruction as printed.
        text: String,
        /// Its source.
        loc: SourceLoc,
        /// The budget.
        limit: u64,
    },
    /// A lane accessed an element of a declared range that the bindings left unbound.
    #[error(
        "{lane}: {at} `{text}` ({loc}) accesses {element}, an element of a declared range the job does not bind"
    )]
    UnboundDescriptor {
        /// The lane's invocation.
        lane: Invocation,
        /// The instruction.
        at: At,
        /// The instruction as printed.
        text: String,
        /// Its source.
        loc: SourceLoc,
        /// The element (`t3, space1`).
        element: String,
    },
    /// A lane reached an `unreachable` terminator.
    #[error("{lane}: reached `unreachable` at the end of {block} ({loc})")]
    Unreachable {
        /// The lane's invocation.
        lane: Invocation,
        /// The block.
        block: BlockId,
        /// The terminator's source.
        loc: SourceLoc,
    },
    /// The run's total work would pass its budget (`Limits::max_total_lane_instructions`).
    #[error(
        "the run's budget of {limit} lane-instructions is exhausted after {done} of {total} {unit} ({executed} lane-instructions); raise `[options] max_total_lane_instructions` to run longer"
    )]
    TotalBudget {
        /// The budget.
        limit: u64,
        /// Lane-instructions executed when it stopped.
        executed: u64,
        /// Steps of the work finished (thread groups, instances, tiles).
        done: u64,
        /// Steps of the work in all.
        total: u64,
        /// What a step is: `thread groups`, `instances of the vertex stage`, `tiles`.
        unit: &'static str,
    },
    /// Work whose least possible cost (one instruction per thread, or per vertex) is
    /// already past the total budget.
    #[error(
        "{work} run at least {least} lane-instructions, more than the run's budget of {limit}; raise `[options] max_total_lane_instructions` or ask for less work"
    )]
    TooMuchWork {
        /// The work: `65535 thread groups of 64 threads`, `3 vertices × 10 instances`.
        work: String,
        /// The least the run takes.
        least: u64,
        /// The budget.
        limit: u64,
    },
    /// The run took longer than `Limits::max_wall_time`.
    #[error("the run's time limit of {limit_seconds} s is reached after {done} of {total} {unit}")]
    WallTime {
        /// The limit in seconds.
        limit_seconds: f64,
        /// Steps of the work finished.
        done: u64,
        /// Steps of the work in all.
        total: u64,
        /// What a step is.
        unit: &'static str,
    },
    /// The run would need more execution memory than allowed.
    #[error("execution needs {needed} bytes of memory, more than the limit of {limit}")]
    MemoryBudget {
        /// Bytes needed.
        needed: u64,
        /// The limit.
        limit: u64,
    },
    /// A binding does not fit what the shader declares.
    #[error("binding {binding}: {message}")]
    Binding {
        /// The binding (`u0`, `t3, space1`, `heap[2]`).
        binding: String,
        /// What is wrong.
        message: String,
    },
    /// A wave size that is not a power of two from 4 to 128, or outside the shader's
    /// `[WaveSize]` range.
    #[error("wave size {size}: {message}")]
    WaveSize {
        /// The size.
        size: u32,
        /// What is wrong.
        message: String,
    },
    /// The shader breaks an IR invariant.
    #[error("invalid shader: {0}")]
    Invalid(#[from] ValidateError),
    /// The dispatch itself is malformed (group counts, thread group shape, stage).
    #[error("bad dispatch: {0}")]
    Dispatch(String),
}

/// Why a run must stop (see [`RunBudget`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Spent {
    /// The total of lane-instructions is passed; `executed` were counted.
    Instructions {
        /// Lane-instructions counted when it stopped.
        executed: u64,
    },
    /// The time limit is reached.
    Time,
}

/// The run-wide budgets every kind of work charges (see the module doc): the total of
/// lane-instructions and the time limit of [`Limits`], shared by the run's workers.
#[derive(Debug)]
pub struct RunBudget {
    total: u64,
    wall: Option<Duration>,
    started: Instant,
    executed: AtomicU64,
}

impl RunBudget {
    /// The budgets of `limits`, the clock started now.
    pub fn new(limits: &Limits) -> RunBudget {
        RunBudget {
            total: limits.max_total_lane_instructions,
            wall: limits.max_wall_time,
            started: Instant::now(),
            executed: AtomicU64::new(0),
        }
    }

    /// Lane-instructions charged so far.
    pub fn executed(&self) -> u64 {
        self.executed.load(Ordering::Relaxed)
    }

    /// When the run started.
    pub fn started(&self) -> Instant {
        self.started
    }

    /// Refuses work named `work` whose least cost, `least` lane-instructions, already
    /// passes the total.
    pub fn check_least(&self, work: impl FnOnce() -> String, least: u64) -> Result<(), ExecError> {
        if least > self.total {
            return Err(ExecError::TooMuchWork {
                work: work(),
                least,
                limit: self.total,
            });
        }
        Ok(())
    }

    /// Charges `n` lane-instructions and checks the clock (read only when there is a time
    /// limit).
    pub fn charge(&self, n: u64) -> Result<(), Spent> {
        self.charge_at(n, self.now())
    }

    /// The time now, when there is a time limit to check it against (a clock read costs
    /// tens of nanoseconds on a virtual machine: none is made without a limit).
    pub fn now(&self) -> Option<Instant> {
        self.wall.map(|_| Instant::now())
    }

    /// Charges `n` lane-instructions, and checks the clock when `now` is given (a caller
    /// that has just read it, or that reads it only every few steps, passes it).
    pub fn charge_at(&self, n: u64, now: Option<Instant>) -> Result<(), Spent> {
        let sum = self
            .executed
            .fetch_add(n, Ordering::Relaxed)
            .saturating_add(n);
        if sum > self.total {
            return Err(Spent::Instructions { executed: sum });
        }
        match now {
            Some(now) => self.check_time_at(now),
            None => Ok(()),
        }
    }

    /// Checks the clock (and whether the total is already passed, by another worker).
    pub fn check(&self) -> Result<(), Spent> {
        self.charge_at(0, self.now())
    }

    fn check_time_at(&self, now: Instant) -> Result<(), Spent> {
        match self.wall {
            Some(max) if now.saturating_duration_since(self.started) > max => Err(Spent::Time),
            _ => Ok(()),
        }
    }

    /// The error of a run stopped by `spent` after `done` of `total` steps of `unit`
    /// (`thread groups`, `instances of the vertex stage`, `tiles`).
    pub fn error(&self, spent: Spent, done: u64, total: u64, unit: &'static str) -> ExecError {
        match spent {
            Spent::Instructions { executed } => ExecError::TotalBudget {
                limit: self.total,
                executed,
                done,
                total,
                unit,
            },
            Spent::Time => ExecError::WallTime {
                limit_seconds: self.wall.map_or(0.0, |d| d.as_secs_f64()),
                done,
                total,
                unit,
            },
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// One budget, charged from anywhere: the total stops the run once passed (and stays
    /// passed for every later charge, as another worker would see it); the time limit
    /// once reached; least work past the total is refused before it starts.
    #[test]
    fn the_run_budget_stops_every_kind_of_work() {
        let limits = Limits {
            max_total_lane_instructions: 100,
            ..Limits::default()
        };
        let b = RunBudget::new(&limits);
        assert_eq!(b.charge(60), Ok(()));
        assert_eq!(b.charge_at(40, None), Ok(()));
        assert_eq!(b.charge(1), Err(Spent::Instructions { executed: 101 }));
        assert!(b.check().is_err());
        let e = b.error(Spent::Instructions { executed: 101 }, 3, 10, "tiles");
        assert!(
            e.to_string()
                .contains("budget of 100 lane-instructions is exhausted after 3 of 10 tiles"),
            "{e}"
        );
        let e = b.check_least(|| "7 vertices × 20 instances".into(), 140);
        assert!(
            e.unwrap_err()
                .to_string()
                .starts_with("7 vertices × 20 instances run at least 140"),
        );
        let timed = RunBudget::new(&Limits {
            max_wall_time: Some(Duration::from_nanos(1)),
            ..Limits::default()
        });
        let later = timed.started() + Duration::from_millis(1);
        assert_eq!(timed.charge_at(1, Some(later)), Err(Spent::Time));
        assert_eq!(timed.charge_at(1, None), Ok(()));
        let e = timed.error(Spent::Time, 0, 5, "instances of the vertex stage");
        assert!(e.to_string().contains("after 0 of 5 instances"), "{e}");
    }

    #[test]
    fn messages_name_thread_and_instruction() {
        let e = ExecError::Budget {
            lane: Invocation::Thread {
                group: Xyz([1, 2, 3]),
                thread: Xyz([4, 0, 0]),
            },
            at: At::Inst(InstId(7)),
            text: "iadd r1, r1, r0".into(),
            loc: SourceLoc::Dxbc {
                index: 9,
                token: 0x40,
            },
            limit: 1000,
        };
        assert_eq!(
            e.to_string(),
            "group (1, 2, 3), thread (4, 0, 0): the budget of 1000 instructions per lane is exhausted at inst7 `iadd r1, r1, r0` (dxbc instruction 9 (token 0x40))"
        );
    }
}
