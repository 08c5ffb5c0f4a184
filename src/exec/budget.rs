//! Limits of a run (instructions per lane, memory) and the errors of execution.
//!
//! The instruction budget counts *lane-instructions* like fuel: each lane counts the
//! instructions (terminators included) it executes; a lane about to pass
//! [`Limits::max_lane_instructions`] stops the run with [`ExecError::Budget`], naming its
//! thread, the instruction and the instruction's source. An infinite loop therefore ends
//! with that error instead of hanging. The memory budget bounds what execution allocates:
//! registers, per-lane arrays and group shared memory of every group in flight.

use std::fmt;

use crate::ir::{BlockId, InstId, SourceLoc, ValidateError};

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

/// Which invocation a lane runs: a compute thread, a vertex or a pixel (sample).
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
}

impl fmt::Display for Invocation {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            Invocation::Thread { group, thread } => write!(f, "group {group}, thread {thread}"),
            Invocation::Vertex { vertex, instance } => {
                write!(f, "vertex {vertex}, instance {instance}")
            }
            Invocation::Pixel { x, y, sample } => write!(f, "pixel ({x}, {y}), sample {sample}"),
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
        "the run's budget of {limit} lane-instructions is exhausted after {done} of {groups} thread groups ({executed} lane-instructions); raise `[options] max_total_lane_instructions` to run longer"
    )]
    TotalBudget {
        /// The budget.
        limit: u64,
        /// Lane-instructions executed when it stopped.
        executed: u64,
        /// Thread groups finished.
        done: u64,
        /// Thread groups in the dispatch.
        groups: u64,
    },
    /// A dispatch whose least possible work (one instruction per thread) is already past
    /// the total budget.
    #[error(
        "{groups} thread groups of {threads} threads run at least {least} lane-instructions, more than the run's budget of {limit}; raise `[options] max_total_lane_instructions` or dispatch fewer groups"
    )]
    TooMuchWork {
        /// Thread groups.
        groups: u64,
        /// Threads per group.
        threads: u64,
        /// The least the run takes.
        least: u64,
        /// The budget.
        limit: u64,
    },
    /// The run took longer than `Limits::max_wall_time`.
    #[error(
        "the run's time limit of {limit_seconds} s is reached after {done} of {groups} thread groups"
    )]
    WallTime {
        /// The limit in seconds.
        limit_seconds: f64,
        /// Thread groups finished.
        done: u64,
        /// Thread groups in the dispatch.
        groups: u64,
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

#[cfg(test)]
mod tests {
    use super::*;

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
