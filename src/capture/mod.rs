//! Captures: resources recorded on WARP (or any D3D12 device), compared with what dxlane
//! computes — where they differ, by how much, which lane wrote each difference, and
//! which WARP rule explains it.
//!
//! A **capture folder** holds `capture.toml` ([`manifest`]: the job it belongs to, the
//! device it was recorded on, one entry per recorded resource with its file and its
//! D3D12 readback layout) and the files. [`compare_job`] runs the job, reads every
//! captured resource through its layout ([`layout`]), compares it element by element in
//! its format ([`element`], [`compare`]), names the lane behind each mismatch from a
//! write-tracking run ([`writers`]), draws diff images of textures ([`diff_image`]),
//! reruns the job under each WARP profile and with each profile-dependent rule flipped
//! to find the one that makes the capture match ([`explain`]) — on a command list, the
//! writer is named by event and lane (`list`) — and returns a
//! [`report::Report`] (text for people, JSON for tools). [`record`] writes a capture of
//! a run's own outputs (`dxlane run --record DIR`).
//!
//! Dependencies: `capture → job, pipeline` (and the `exec` observation and profile types
//! they run with). The job's TOML is `job`'s; this module reads only its own
//! `capture.toml`. It never writes into a capture folder.
//!
//! Untrusted input: a manifest, or files of the wrong size, for another job, naming
//! registers the job does not bind — each is an error naming the entry and the byte;
//! nothing here panics or allocates from a length it has not checked.

pub mod compare;
pub mod diff_image;
pub mod element;
pub mod explain;
pub mod figures;
pub mod layout;
mod list;
pub mod manifest;
pub mod record;
pub mod replay;
pub mod report;
pub mod writers;

use std::path::PathBuf;

pub use crate::job::ResourceAt;
pub use manifest::{Capture, CaptureEntry, Device};
pub use replay::{CompareOptions, compare_job};
pub use report::Report;

use crate::job::JobError;

/// Why a comparison (or a recording) could not be made. Each message is one line.
#[derive(Debug, thiserror::Error)]
pub enum CaptureError {
    /// A file could not be read or written.
    #[error("{path}: {message}", path = path.display())]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// `capture.toml` is not valid TOML or breaks the schema.
    #[error("{path}: {message}", path = path.display())]
    Manifest {
        /// The manifest.
        path: PathBuf,
        /// What is wrong, with its line, column and byte.
        message: String,
    },
    /// An entry of `capture.toml` is wrong, or does not fit the job.
    #[error("capture.toml: {entry}: {message}")]
    Entry {
        /// The entry: `[[resource]] #2 (u0)`.
        entry: String,
        /// What is wrong.
        message: String,
    },
    /// The capture belongs to another job or program.
    #[error("{0}")]
    OtherJob(String),
    /// The job could not be loaded or run.
    #[error("{0}")]
    Job(#[from] JobError),
    /// The profile to compare under is not one dxlane knows.
    #[error("{0}")]
    Profile(String),
    /// Something the comparison would write cannot go where it would.
    #[error("{0}")]
    Output(String),
}
