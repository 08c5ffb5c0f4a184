//! Debugging one lane: record a normal run, then step forwards and backwards over it in
//! the program's own terms.
//!
//! Owns: the [`Debugger`] session (lane selection, stepping at source granularity,
//! breakpoints, inspection, `why`, `diff`, the trace file) and the text commands a
//! script or the prompt gives it ([`Debugger::execute`]). Does not own: running programs
//! (`exec`, `pipeline`), listings (`dxbc`, `dxil`), the job file (`job`; a caller turns a
//! job into a [`Target`]) or the prompt itself (`cli`).
//!
//! # Record, then navigate
//!
//! Opening a session runs the whole dispatch once, as a normal run does, except that the
//! group holding the chosen lane runs the unoptimised lowering of the program (each IR
//! instruction maps to one source instruction and each source register or value to IR
//! registers, `ir::SourceVar`) in waves of exactly the program's wave size, and the wave
//! holding the lane runs through `exec`'s traced loop, which reports every step to a
//! [`record::Recorder`]. Every other wave and group runs at full speed. The record keeps,
//! per step, the instruction, the execution and helper masks, every lane's values of the
//! registers it wrote, and the memory its lanes wrote; the other waves of the group
//! report their memory writes in order between the observed wave's steps.
//!
//! The session then moves over the record: `back N` and `reverse-continue` restore
//! recorded values, never re-execute. Values of any lane of the wave come from the same
//! record (the wave view, `diff` within the wave, `lane N`). Only what needs other lanes'
//! history — a memory-write watch on a UAV (writers in other groups) or `diff` with a
//! lane of another wave — runs the dispatch again, from the same starting contents, and
//! the session checks that the run ended with the same memory (a program that races
//! through atomics may not; the session says so).
//!
//! A draw job runs the same way through `pipeline::draw` with a `DrawOptions::trace`
//! hook: the batch holding the chosen pixel or vertex lane runs the unoptimised lowering
//! in waves of the program's wave size, its wave traced; quads, helper lanes and
//! per-sample execution are the normal draw's (see `docs/debugger.md`, "Draw jobs"). A
//! memory watch's second draw sets `DrawOptions::memory` too: the other vertex and pixel
//! waves report their writes, with the writing pixel or vertex.
//!
//! The observed group's results equal a normal run's: the unoptimised and optimised
//! lowerings compute the same values, and exec's traced loop runs the same handlers in
//! the same order (tests check every example job byte for byte).
//!
//! # Steps and positions
//!
//! A *source step* is one execution of one DXBC or DXIL instruction by the lane: the run
//! of IR steps with the same source location (IR steps the lowering made without a
//! location belong to the step before). The session's position `p` counts executed
//! source steps: the state shown is the one just before step `p` (the wave's state
//! before its next step involving the lane), and `step` runs step `p`, printing what it
//! read and wrote.
//!
//! # Limits
//!
//! The record holds at most [`DebugOptions::max_record_bytes`] (256 MiB by default):
//! a lane that runs longer is recorded up to there, and the session says where it
//! stopped. Conditions nest at most [`expr::MAX_DEPTH`] deep; `why` walks back at most
//! [`MAX_WHY_DEPTH`] levels.

pub mod dap;
pub mod expr;
pub mod format;
pub mod hlsl;
pub mod provenance;
pub mod record;
pub mod source;
pub mod target;

mod session;

pub use session::{
    Breakpoint, Debugger, HlslMember, LineMove, MAX_SCOPE_VALUES, MAX_WHY_DEPTH, Scope, ScopeValue,
    StepDetail, ValueLine, parse_xyz as session_parse_xyz,
};
pub use target::{
    LanePlace, LaneSelect, Program, ProgramFile, Run, Target, from_job, from_job_event, from_work,
};

/// Why a session could not open or a command failed.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum DebugError {
    /// The program could not be loaded.
    #[error("cannot load the program: {0}")]
    Load(String),
    /// The lane does not exist or cannot be debugged.
    #[error("{0}")]
    Lane(String),
    /// A command is malformed or names something the program does not have.
    #[error("{0}")]
    Command(String),
    /// The trace file could not be written.
    #[error("{0}")]
    Io(String),
}

/// The most bytes of a `--script` file: far more than any script a person writes.
pub const MAX_SCRIPT_BYTES: u64 = 1 << 20;

/// Settings of a session.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DebugOptions {
    /// The most bytes the record of the observed wave may take.
    pub max_record_bytes: usize,
}

impl Default for DebugOptions {
    /// 256 MiB of record.
    fn default() -> DebugOptions {
        DebugOptions {
            max_record_bytes: 256 << 20,
        }
    }
}
