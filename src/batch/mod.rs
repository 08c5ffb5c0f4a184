//! Batches: many cases run as child processes, sharded across machines, with baselines,
//! a result cache and reports (JSONL and JUnit XML).
//!
//! Owns: what a case is ([`case`]: a job for `run`, a job and capture folder for
//! `compare`, a shader-test file), finding cases in a folder tree or reading a case list,
//! deterministic static sharding ([`shard`]), baseline lists of expected failures, flakes
//! and skips ([`baseline`]), the result cache ([`cache`]), running cases as child
//! processes with timeouts ([`runner`]), and the reports and their merge ([`report`]).
//! Does not own: what a case does (the child is the same `dxlane` executable running
//! `run`, `compare` or `shader-test`), printing to a terminal (`cli`).
//!
//! # Why child processes
//!
//! A case that hangs is cut by killing its process when its timeout passes, and a case
//! that crashes cannot take the batch down with it; results are read from the child's
//! exit status (0 pass, 1 fail, 2 error, as every `dxlane` command reports them).
//!
//! # Determinism
//!
//! A batch's report lists results ordered by case name, not by completion, and each
//! result's fields other than `seconds` depend only on the case's inputs and dxlane; so
//! the merge of N shards' reports equals one unsharded run's apart from timings.

pub mod baseline;
pub mod cache;
pub mod case;
pub mod report;
pub mod runner;
pub mod shard;

use std::path::PathBuf;

pub use baseline::Baseline;
pub use case::{Case, CaseKind};
pub use report::{CaseResult, Header, Status};
pub use shard::Shard;

/// The report format's name and version, written in every JSONL header.
pub const FORMAT: &str = "dxlane-batch/1";

/// Why a batch could not run (an infrastructure failure: exit status 2).
#[derive(Debug, thiserror::Error)]
pub enum BatchError {
    /// A line of a case list, baseline or report is malformed.
    #[error("{}:{line}: {message}", file.display())]
    Line {
        /// The file.
        file: PathBuf,
        /// The line, from 1.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// A file or folder could not be read or written.
    #[error("{}: {message}", path.display())]
    Io {
        /// The file or folder.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The shard could not be decided, or shards do not fit together.
    #[error("{0}")]
    Shard(String),
    /// Something else about the batch as a whole (no cases, two cases of one name).
    #[error("{0}")]
    Other(String),
}

impl BatchError {
    fn io(path: &std::path::Path, e: impl std::fmt::Display) -> BatchError {
        BatchError::Io {
            path: path.to_path_buf(),
            message: e.to_string(),
        }
    }
}
