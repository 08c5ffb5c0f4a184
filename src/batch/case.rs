//! What a case is and where cases come from: a folder tree, a case list, or single files.
//!
//! # Finding cases in a folder tree
//!
//! Walked in name order, symbolic links not followed, hidden folders (`.git`) and folders
//! named `out` or `target` (dxlane's and cargo's outputs) skipped:
//!
//! - a folder holding `capture.toml` is a `compare` case: the job `capture.toml` names
//!   (its `job` key, a file beside the capture folder) against the capture; the folder is
//!   not searched further;
//! - a `*.shader_test` file is a `shader-test` case;
//! - a `*.toml` file with a `[program]` table is a `run` case (other TOML files, such as
//!   a capture's manifest or `Cargo.toml`, are not jobs).
//!
//! A case's name is its path relative to the folder given, with `/` between parts; a
//! `compare` case is named by its capture folder.
//!
//! # Case lists
//!
//! A text file, one case a line; `#` starts a comment, blank lines are ignored; paths are
//! relative to the list's folder and may not contain spaces:
//!
//! ```text
//! run JOB.toml [timeout=SECONDS]
//! compare JOB.toml CAPTURE_FOLDER [timeout=SECONDS]
//! shader-test FILE.shader_test [timeout=SECONDS]
//! PATH [timeout=SECONDS]        # a .toml job (run) or a .shader_test file
//! ```
//!
//! A case's name is its path as written (the capture folder's for `compare`). Errors
//! name the list and the line.

use std::path::{Path, PathBuf};
use std::time::Duration;

use super::BatchError;

/// Cases in one batch, at most (a guard against a case list or tree that never ends).
pub const MAX_CASES: usize = 1_000_000;

/// Folder depth searched, at most.
pub const MAX_DEPTH: usize = 64;

/// Bytes of a case list read, at most.
pub const MAX_LIST_BYTES: u64 = 64 << 20;

/// Bytes of a TOML file read to decide whether it is a job, at most.
const MAX_TOML_BYTES: u64 = 16 << 20;

/// What a case runs, as a `dxlane` subcommand.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum CaseKind {
    /// `dxlane run JOB`: the job's `[[expect]]` entries decide.
    Run {
        /// The job file.
        job: PathBuf,
    },
    /// `dxlane compare JOB CAPTURE`: equal within tolerances passes.
    Compare {
        /// The job file.
        job: PathBuf,
        /// The capture folder.
        capture: PathBuf,
    },
    /// `dxlane shader-test FILE`: a vkd3d-format shader test.
    ShaderTest {
        /// The `.shader_test` file.
        file: PathBuf,
    },
}

impl CaseKind {
    /// The subcommand's name (the JSONL `kind` and JUnit `classname`).
    pub fn word(&self) -> &'static str {
        match self {
            CaseKind::Run { .. } => "run",
            CaseKind::Compare { .. } => "compare",
            CaseKind::ShaderTest { .. } => "shader-test",
        }
    }
}

/// One case of a batch.
#[derive(Debug, Clone, PartialEq)]
pub struct Case {
    /// The stable name: sharding, ordering, baselines and reports use it.
    pub name: String,
    /// What it runs.
    pub kind: CaseKind,
    /// Its own timeout, overriding the batch's (`timeout=` in a case list).
    pub timeout: Option<Duration>,
}

/// The cases of every source given on the command line (folders, case lists, single
/// `.toml` or `.shader_test` files), sorted by name; two cases of one name are an error.
pub fn collect(sources: &[PathBuf]) -> Result<Vec<Case>, BatchError> {
    let mut cases = Vec::new();
    for src in sources {
        let meta = std::fs::metadata(src).map_err(|e| BatchError::io(src, e))?;
        if meta.is_dir() {
            walk(src, src, 0, &mut cases)?;
        } else if let Some(kind) = kind_of_file(src)? {
            cases.push(Case {
                name: slashed(src),
                kind,
                timeout: None,
            });
        } else {
            read_list(src, &mut cases)?;
        }
        if cases.len() > MAX_CASES {
            return Err(BatchError::Other(format!("more than {MAX_CASES} cases")));
        }
    }
    cases.sort_by(|a, b| a.name.cmp(&b.name));
    for pair in cases.windows(2) {
        if pair[0].name == pair[1].name {
            return Err(BatchError::Other(format!(
                "two cases are named `{}`: give each case once",
                pair[0].name
            )));
        }
    }
    Ok(cases)
}

/// A path's text with `/` between its parts.
fn slashed(p: &Path) -> String {
    p.components()
        .map(|c| c.as_os_str().to_string_lossy().into_owned())
        .collect::<Vec<_>>()
        .join("/")
        .replace("//", "/")
}

/// The kind of a single file named as a case: a job (`.toml` with `[program]`) or a
/// shader test; `None` for anything else (a case list).
fn kind_of_file(path: &Path) -> Result<Option<CaseKind>, BatchError> {
    match path.extension().and_then(|e| e.to_str()) {
        Some("shader_test") => Ok(Some(CaseKind::ShaderTest {
            file: path.to_path_buf(),
        })),
        Some("toml") => {
            if is_job(path)? {
                Ok(Some(CaseKind::Run {
                    job: path.to_path_buf(),
                }))
            } else {
                Err(BatchError::io(
                    path,
                    "not a job file (it has no [program] table)",
                ))
            }
        }
        _ => Ok(None),
    }
}

/// Whether a TOML file is a job: it parses and has a `[program]` table.
fn is_job(path: &Path) -> Result<bool, BatchError> {
    let bytes = crate::job::paths::read_input(path, MAX_TOML_BYTES, "a job file's size")
        .map_err(|e| BatchError::Other(e.to_string()))?;
    let Ok(text) = std::str::from_utf8(&bytes) else {
        return Ok(false);
    };
    Ok(match text.parse::<toml::Table>() {
        Ok(t) => t.get("program").is_some_and(toml::Value::is_table),
        Err(_) => {
            // A broken job is still a case (its run reports the error), when it looks
            // like one.
            text.lines().any(|l| l.trim() == "[program]")
        }
    })
}

/// The job a capture folder's manifest names (beside the folder), when it names one.
fn capture_job(capture: &Path) -> Result<PathBuf, BatchError> {
    let manifest = capture.join("capture.toml");
    let bytes = crate::job::paths::read_input(&manifest, MAX_TOML_BYTES, "a manifest's size")
        .map_err(BatchError::Other)?;
    let text = String::from_utf8_lossy(&bytes);
    let table: toml::Table = text
        .parse()
        .map_err(|e| BatchError::io(&manifest, format!("not valid TOML: {e}")))?;
    let job = table
        .get("job")
        .and_then(toml::Value::as_str)
        .ok_or_else(|| BatchError::io(&manifest, "no `job` key naming the capture's job file"))?;
    let dir = capture.parent().unwrap_or(Path::new(""));
    Ok(dir.join(job))
}

fn walk(root: &Path, dir: &Path, depth: usize, cases: &mut Vec<Case>) -> Result<(), BatchError> {
    if depth > MAX_DEPTH {
        return Err(BatchError::io(
            dir,
            format!("folders nested deeper than {MAX_DEPTH}"),
        ));
    }
    if dir.join("capture.toml").is_file() && depth > 0 {
        let rel = dir.strip_prefix(root).unwrap_or(dir);
        cases.push(Case {
            name: slashed(rel),
            kind: CaseKind::Compare {
                job: capture_job(dir)?,
                capture: dir.to_path_buf(),
            },
            timeout: None,
        });
        return Ok(());
    }
    let mut entries = Vec::new();
    for e in std::fs::read_dir(dir).map_err(|e| BatchError::io(dir, e))? {
        let e = e.map_err(|e| BatchError::io(dir, e))?;
        entries.push(e.path());
        if entries.len() > MAX_CASES {
            return Err(BatchError::io(
                dir,
                format!("more than {MAX_CASES} entries"),
            ));
        }
    }
    entries.sort();
    for path in entries {
        let Ok(meta) = std::fs::symlink_metadata(&path) else {
            continue;
        };
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        if meta.is_dir() {
            if name.starts_with('.') || name == "out" || name == "target" {
                continue;
            }
            walk(root, &path, depth + 1, cases)?;
        } else if meta.is_file() {
            let rel = slashed(path.strip_prefix(root).unwrap_or(&path));
            if name.ends_with(".shader_test") {
                cases.push(Case {
                    name: rel,
                    kind: CaseKind::ShaderTest { file: path },
                    timeout: None,
                });
            } else if name.ends_with(".toml") && name != "capture.toml" && is_job(&path)? {
                cases.push(Case {
                    name: rel,
                    kind: CaseKind::Run { job: path },
                    timeout: None,
                });
            }
            if cases.len() > MAX_CASES {
                return Err(BatchError::Other(format!("more than {MAX_CASES} cases")));
            }
        }
    }
    Ok(())
}

/// Reads a case list (format in the module doc) into `cases`.
pub fn read_list(list: &Path, cases: &mut Vec<Case>) -> Result<(), BatchError> {
    let bytes = crate::job::paths::read_input(list, MAX_LIST_BYTES, "the case list limit")
        .map_err(BatchError::Other)?;
    let text = std::str::from_utf8(&bytes)
        .map_err(|e| BatchError::io(list, format!("not UTF-8 text (byte {})", e.valid_up_to())))?;
    let dir = list.parent().unwrap_or(Path::new(""));
    for (i, raw) in text.lines().enumerate() {
        let line = i + 1;
        let err = |message: String| BatchError::Line {
            file: list.to_path_buf(),
            line,
            message,
        };
        let content = raw.split('#').next().unwrap_or("").trim();
        if content.is_empty() {
            continue;
        }
        let mut words: Vec<&str> = content.split_whitespace().collect();
        let mut timeout = None;
        if let Some(last) = words.last()
            && let Some(v) = last.strip_prefix("timeout=")
        {
            let secs: f64 = v
                .parse()
                .ok()
                .filter(|s: &f64| s.is_finite() && *s > 0.0 && *s < 1e9)
                .ok_or_else(|| {
                    err(format!(
                        "timeout=\"{v}\": give a positive number of seconds"
                    ))
                })?;
            timeout = Some(Duration::from_secs_f64(secs));
            words.pop();
        }
        let existing = |w: &str, want_dir: bool| -> Result<PathBuf, BatchError> {
            let p = dir.join(w);
            let ok = if want_dir { p.is_dir() } else { p.is_file() };
            if ok {
                Ok(p)
            } else {
                Err(err(format!(
                    "{} `{w}` does not exist (paths are relative to the list's folder)",
                    if want_dir { "folder" } else { "file" }
                )))
            }
        };
        let (name, kind) = match words.as_slice() {
            ["run", job] => (
                job.to_string(),
                CaseKind::Run {
                    job: existing(job, false)?,
                },
            ),
            ["compare", job, capture] => (
                capture.to_string(),
                CaseKind::Compare {
                    job: existing(job, false)?,
                    capture: existing(capture, true)?,
                },
            ),
            ["shader-test", file] => (
                file.to_string(),
                CaseKind::ShaderTest {
                    file: existing(file, false)?,
                },
            ),
            [path] if path.ends_with(".toml") => (
                path.to_string(),
                CaseKind::Run {
                    job: existing(path, false)?,
                },
            ),
            [path] if path.ends_with(".shader_test") => (
                path.to_string(),
                CaseKind::ShaderTest {
                    file: existing(path, false)?,
                },
            ),
            [word, ..] if matches!(*word, "run" | "compare" | "shader-test") => {
                return Err(err(format!(
                    "`{word}` takes {}; got {} word(s) after it",
                    match *word {
                        "compare" => "a job file and a capture folder",
                        "run" => "a job file",
                        _ => "a .shader_test file",
                    },
                    words.len() - 1
                )));
            }
            _ => {
                return Err(err(format!(
                    "`{content}`: give `run JOB`, `compare JOB CAPTURE`, `shader-test FILE`, or a .toml or .shader_test path"
                )));
            }
        };
        cases.push(Case {
            name: name.replace('\\', "/"),
            kind,
            timeout,
        });
        if cases.len() > MAX_CASES {
            return Err(err(format!("more than {MAX_CASES} cases")));
        }
    }
    Ok(())
}
