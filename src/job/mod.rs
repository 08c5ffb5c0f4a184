//! The job file (TOML): the program, its bindings, the dispatch and the outputs.
//!
//! Owns the user-facing contract of DESIGN's "Job file": parsing it ([`schema`]), the
//! initial data forms ([`data`]), turning entries into resources and descriptors
//! ([`bind`]), checking them against what the program declares ([`reflect`]), running a
//! compute job and writing its outputs and summary ([`run`]), and checking outputs
//! against `[[expect]]` entries ([`expect`]); for draws, the `[draw]` section ([`draw`]),
//! its render targets and depth-stencil buffer ([`targets`]) and running a draw job
//! ([`draw_run`]); for ray tracing, the `[rays]` section over DXIL libraries ([`rays`]).
//! Does not own: the resources themselves
//! (`resources`), execution (`exec`, `pipeline`), or printing to a terminal (`cli`).
//!
//! # The contract, beyond DESIGN's example
//!
//! - `[program] cs` is a DXBC container (DXBC or DXIL program), or a file ending in
//!   `.ir`: the interpreter IR's text form (`ir::parse_shader`), checked by
//!   `ir::validate` — for tests and for programs written by hand.
//! - Entries are numbered from 1 in the order the file lists them; errors name them that
//!   way: `[[resource]] #2 (u0)`, `[[heap]] #1 (ResourceDescriptorHeap[0])`.
//! - Texture cube arrays: `array_size` counts **cubes**; the texture holds 6 faces per
//!   cube (as HLSL's `TextureCubeArray` and D3D12's `NumCubes` count).
//! - Image files fill texture subresources (`data = { images = [...] }`, one per
//!   subresource in D3D12 order; a `.png` `file` fills mip 0 of slice 0), converted to the
//!   texture's format as [`image_io`] states. A `.png` output writes mip 0 of slice 0 of a
//!   texture of 8- or 16-bit UNORM or sRGB channels (sample 0 of a multisampled texture,
//!   plane 0 of a 3D one); `outputs = [{ file, mip, slice }]` writes single subresources
//!   as `.png` or `.bin`. Every other output is `.bin`: a buffer's whole memory, or all of
//!   a texture's subresources tightly packed in D3D12 order.
//! - `dxlane run` exits with 0 when every `[[expect]]` holds, 1 when any fails, and 2
//!   on any error (the job, the program, the run).
//! - Every file is written through one gate and read through one ([`paths`]): outputs
//!   stay inside the job's folder (or `--out-dir`) unless the user passes
//!   `--allow-outside`, and are never written through a link; inputs are regular files
//!   read no further than they may hold. Every allocation is counted against
//!   `max_memory` ([`limits`]); a run — dispatch or draw — has a total budget of
//!   lane-instructions and may have a time limit (`max_total_lane_instructions`,
//!   `max_seconds`: one `exec::RunBudget`).

pub mod accel;
pub mod bind;
pub mod data;
pub mod draw;
pub mod draw_run;
pub mod expect;
pub mod image_io;
pub mod limits;
pub mod list;
mod local_root;
pub mod paths;
mod png;
pub mod prepare;
pub mod rays;
pub mod reflect;
pub mod run;
pub mod schema;
pub mod shader_table;
mod state_object;
pub mod table;
pub mod targets;
pub mod writers;

use std::path::{Path, PathBuf};

pub use bind::{BoundEntry, BoundJob, EntryKind, EntryRef, Register, Table, Visibility};
pub use draw_run::{
    BoundSoBuffer, DrawQuery, DrawQueryValue, DrawResult, DrawSummary, run_draw_job,
};
pub use prepare::{
    CommandSummary, Finished, ListResult, ListSummary, Prepared, StorageSnapshot, prepare,
};
pub use rays::{RaysResult, RaysSummary};
pub use run::{RunOptions, RunResult, Summary, run_job};
pub use schema::JobFile;
pub use table::{BufferRead, ResourceAt, ResourceData, ResourceRef};

use crate::exec::ExecError;
use crate::lower::LowerError;

/// Parses a job file's text. Errors carry TOML's line and column.
pub fn parse(text: &str) -> Result<JobFile, toml::de::Error> {
    toml::from_str(text)
}

/// Why a job could not be run. Each variant's text is one line (the reflection check adds
/// its listing on the lines after); the caller prefixes the job file's path.
#[derive(Debug, thiserror::Error)]
pub enum JobError {
    /// A file the job names could not be read or written.
    #[error("{path}: {message}")]
    Io {
        /// The file.
        path: PathBuf,
        /// What went wrong.
        message: String,
    },
    /// The job file is not valid TOML or breaks the schema.
    #[error("{0}")]
    Parse(String),
    /// A section of the job (`[program]`, `[dispatch]`, `[options]`) is wrong.
    #[error("{section}: {message}")]
    Section {
        /// `[program]`, `[dispatch]`, `[options]`.
        section: &'static str,
        /// What is wrong, naming the key.
        message: String,
    },
    /// An entry (`[[resource]] #2 (u0)`, `[[expect]] #1 (u0)`) is wrong.
    #[error("{entry}: {message}")]
    Entry {
        /// The entry, as `[[resource]] #2 (u0)`.
        entry: String,
        /// What is wrong, naming the key.
        message: String,
    },
    /// The program could not be loaded (decoded, lowered or parsed).
    #[error("{path}: {source}")]
    Load {
        /// The program file.
        path: PathBuf,
        /// Why.
        source: LoadError,
    },
    /// The program is not one `dxlane run` can dispatch.
    #[error("{path}: {message}")]
    Program {
        /// The program file.
        path: PathBuf,
        /// What is wrong.
        message: String,
    },
    /// The job's bindings do not fit what the program declares; `listing` has the
    /// table of every declared range and every binding.
    #[error("{message}\n{listing}")]
    Reflection {
        /// The problems, one per line.
        message: String,
        /// What the program expects and what the job gave.
        listing: String,
    },
    /// The run itself failed.
    #[error("{0}")]
    Exec(#[from] ExecError),
}

/// Why a program file could not be loaded.
#[derive(Debug, thiserror::Error)]
pub enum LoadError {
    /// A container's program could not be decoded or lowered.
    #[error("cannot load the program: {0}")]
    Lower(#[from] LowerError),
    /// An `.ir` file could not be parsed.
    #[error("line {line}: {message}")]
    IrParse {
        /// 1-based line.
        line: usize,
        /// What is wrong.
        message: String,
    },
    /// An `.ir` program breaks an IR invariant.
    #[error("invalid IR program: {0}")]
    IrInvalid(String),
}

impl JobError {
    /// The error for entry `entry`.
    pub(crate) fn entry(entry: impl ToString, message: impl Into<String>) -> JobError {
        JobError::Entry {
            entry: entry.to_string(),
            message: message.into(),
        }
    }

    /// Whether this is a program the lowering does not support yet (as opposed to a
    /// broken job or a failed run).
    pub fn is_unsupported_program(&self) -> bool {
        matches!(
            self,
            JobError::Load {
                source: LoadError::Lower(LowerError::Unsupported { .. }),
                ..
            }
        )
    }
}

/// A job file read from disk: its contents and the folder its paths are relative to.
#[derive(Debug, Clone)]
pub struct Job {
    /// The job file's path, as given.
    pub path: PathBuf,
    /// The folder relative paths in the job are resolved against (empty for the current
    /// folder).
    pub dir: PathBuf,
    /// The parsed contents.
    pub file: JobFile,
}

impl Job {
    /// Reads and parses a job file.
    pub fn load(path: &Path) -> Result<Job, JobError> {
        let io = |message: String| JobError::Io {
            path: path.to_path_buf(),
            message,
        };
        let bytes = paths::read_input(path, limits::MAX_JOB_FILE_BYTES, "the largest job file")
            .map_err(|m| {
                io(m.strip_prefix(&format!("{}: ", path.display()))
                    .map(str::to_string)
                    .unwrap_or(m))
            })?;
        let text = String::from_utf8(bytes).map_err(|_| io("not UTF-8 text".into()))?;
        Job::from_text(&text, path)
    }

    /// Parses a job file's text as if it had been read from `path`.
    pub fn from_text(text: &str, path: &Path) -> Result<Job, JobError> {
        let file = parse(text).map_err(|e| JobError::Parse(one_line_toml_error(&e, text)))?;
        // A job in the current folder has an empty folder, so its paths read `out/x.bin`
        // rather than `./out/x.bin`.
        let dir = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
        Ok(Job {
            path: path.to_path_buf(),
            dir,
            file,
        })
    }

    /// A path from the job file, resolved against the job's folder.
    pub fn resolve(&self, p: &Path) -> PathBuf {
        resolve(&self.dir, p)
    }
}

/// `p` resolved against `dir`, with `..` after a named folder folded away lexically
/// (`examples/../shaders/x.dxbc` reads `shaders/x.dxbc`), so messages and summaries show
/// short paths. Symbolic links are not followed; a `..` that would climb above the start
/// is kept.
pub fn resolve(dir: &Path, p: &Path) -> PathBuf {
    use std::path::Component;
    let mut out: Vec<Component<'_>> = Vec::new();
    let joined = dir.join(p);
    for c in joined.components() {
        match c {
            Component::CurDir => {}
            Component::ParentDir if matches!(out.last(), Some(Component::Normal(_))) => {
                out.pop();
            }
            c => out.push(c),
        }
    }
    out.iter().collect()
}

/// TOML's error as one line: ``line 4, column 1: unknown field `group`, expected `groups` ``.
fn one_line_toml_error(e: &toml::de::Error, text: &str) -> String {
    let msg = e.message().trim().replace('\n', " ");
    match e.span() {
        Some(span) => {
            let before = text.get(..span.start).unwrap_or(text);
            let line = before.matches('\n').count() + 1;
            let column = before.len() - before.rfind('\n').map_or(0, |i| i + 1) + 1;
            format!("line {line}, column {column}: {msg}")
        }
        None => msg,
    }
}

/// The known name closest to `name`, when it is close enough to be a likely misspelling
/// (an edit distance of at most a quarter of its length, and at least 2).
pub(crate) fn closest<'a>(name: &str, known: impl IntoIterator<Item = &'a str>) -> Option<&'a str> {
    let n = name.to_ascii_uppercase();
    let limit = (n.len() / 4).max(2);
    known
        .into_iter()
        .map(|k| (edit_distance(&n, &k.to_ascii_uppercase()), k))
        .filter(|(d, _)| *d <= limit)
        .min_by_key(|(d, _)| *d)
        .map(|(_, k)| k)
}

/// Levenshtein distance between two strings (by chars).
fn edit_distance(a: &str, b: &str) -> usize {
    let b: Vec<char> = b.chars().collect();
    let mut row: Vec<usize> = (0..=b.len()).collect();
    for (i, ca) in a.chars().enumerate() {
        let mut prev = row[0];
        row[0] = i + 1;
        for (j, cb) in b.iter().enumerate() {
            let cur = row[j + 1];
            row[j + 1] = (prev + usize::from(ca != *cb)).min(row[j] + 1).min(cur + 1);
            prev = cur;
        }
    }
    row[b.len()]
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn design_example_parses() {
        let text = r#"
[program]
cs = "../shaders/mandelbrot.cs_5_0.dxbc"
entry = "main"

[dispatch]
groups = [16, 16, 1]

[options]
wave_size = 8
threads = 0

[[resource]]
reg = "u0"
space = 0
kind = "structured_buffer"
stride = 4
size = 1048576
counter = 0
data = { u32 = [1, 2, 3] }
output = "out/mandel.bin"
counter_output = "out/u0.counter.bin"

[[resource]]
reg = "s0"
kind = "sampler"
filter = "MIN_MAG_MIP_LINEAR"
address = ["WRAP", "CLAMP", "CLAMP"]

[[heap]]
descriptor = "uav"
kind = "structured_buffer"
stride = 4
size = 4
output = "out/heap0.bin"

[[expect]]
reg = "u0"
offset = 4
f32 = [1.5, "NaN", "-inf", "-0"]
tolerance = { ulp = 2 }
"#;
        let job = parse(text).unwrap();
        assert_eq!(job.dispatch.unwrap().groups, [16, 16, 1]);
        assert_eq!(job.resources.len(), 2);
        assert_eq!(job.heap[0].descriptor.as_deref(), Some("uav"));
        assert_eq!(job.expects[0].tolerance, schema::Tolerance::Ulp(2));
        assert_eq!(job.expects[0].f32.as_ref().unwrap()[3].bits(), 0x8000_0000);
    }

    #[test]
    fn misspelt_key_is_refused_with_its_position() {
        let text = "[program]\ncs = \"a\"\n[dispatch]\ngroup = [1, 1, 1]\n";
        let e = parse(text).unwrap_err();
        let msg = e.to_string();
        assert!(msg.contains("group") && msg.contains("line 4"), "{msg}");
        let e = Job::from_text(text, Path::new("x.toml")).unwrap_err();
        assert!(!e.to_string().contains('\n'), "{e}");
    }

    #[test]
    fn paths_fold_parent_folders() {
        let r = |d: &str, p: &str| resolve(Path::new(d), Path::new(p));
        assert_eq!(
            r("examples", "../shaders/x.dxbc"),
            Path::new("shaders/x.dxbc")
        );
        assert_eq!(r("", "out/x.bin"), Path::new("out/x.bin"));
        assert_eq!(r("a", "../../x"), Path::new("../x"));
        assert_eq!(r("/j", "/abs/x"), Path::new("/abs/x"));
        assert_eq!(r("./a", "./b"), Path::new("a/b"));
    }

    #[test]
    fn close_names_are_suggested() {
        let known = ["R8G8B8A8_UNORM", "R8G8B8A8_UINT", "R32_FLOAT"];
        assert_eq!(closest("R8G8B8A8_UNROM", known), Some("R8G8B8A8_UNORM"));
        assert_eq!(closest("BC9", known), None);
        assert_eq!(edit_distance("kitten", "sitting"), 3);
    }
}
