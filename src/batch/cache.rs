//! The result cache (`--cache DIR`): dxlane is deterministic, so a case whose inputs, run
//! options and dxlane build are unchanged gives the result it gave before, and need not
//! run again.
//!
//! The key is an MD5 digest over, in order: the cache format, dxlane's version, the MD5
//! of the running `dxlane` executable (so a rebuilt dxlane of the same version does not
//! reuse results), the case's kind and the child's arguments (the profile, engine and
//! budgets it is given), and every input file's path, length and bytes. A case's inputs
//! are conservative rather than exact:
//!
//! - `run`: the job file, and every file — or every file inside every folder — that any
//!   string in the job names (relative to the job's folder): programs, data, images;
//! - `compare`: the same, and every file of the capture folder;
//! - `shader-test`: the file, and the compilers it would use (`VKD3D_COMPILER`, or
//!   `vkd3d-compiler` and `dxc` on `PATH`), whose bytes stand for their versions.
//!
//! Only outcomes fixed by the inputs are kept: `pass`, `fail` and `error`. A timeout,
//! crash or kill is run again next time. Entries are one JSON file each, `KEY.json`,
//! holding the key and version they were written for, checked when read.

use std::io::Read;
use std::path::{Path, PathBuf};

use md5::{Digest, Md5};
use serde::{Deserialize, Serialize};

use super::case::{Case, CaseKind};
use super::report::{CaseResult, Status};
use crate::job::paths::{OutputGate, open_input, read_input};

/// The cache entries' format.
const CACHE_FORMAT: &str = "dxlane-batch-cache/1";

/// Files hashed per case, at most; past this the case is not cached.
const MAX_INPUT_FILES: usize = 100_000;

/// Folder depth searched for a case's inputs, at most.
const MAX_INPUT_DEPTH: usize = 16;

/// An entry read, at most.
const MAX_ENTRY_BYTES: u64 = 16 << 20;

/// A folder of cached results.
#[derive(Debug, Clone)]
pub struct Cache {
    dir: PathBuf,
    /// dxlane's version and the executable's digest: part of every key.
    build: String,
}

#[derive(Debug, Serialize, Deserialize)]
#[serde(deny_unknown_fields)]
struct Entry {
    format: String,
    key: String,
    version: String,
    result: CaseResult,
}

impl Cache {
    /// A cache in `dir` for results of the build `build` (see [`build_id`]).
    pub fn new(dir: &Path, build: String) -> Cache {
        Cache {
            dir: dir.to_path_buf(),
            build,
        }
    }

    /// The key of `case` run with the child arguments `args`; `None` when its inputs
    /// cannot all be read (the case then runs and is not cached).
    pub fn key(&self, case: &Case, args: &[String]) -> Option<String> {
        fn field(h: &mut Md5, bytes: &[u8]) {
            h.update((bytes.len() as u64).to_le_bytes());
            h.update(bytes);
        }
        let mut h = Md5::new();
        field(&mut h, CACHE_FORMAT.as_bytes());
        field(&mut h, env!("CARGO_PKG_VERSION").as_bytes());
        field(&mut h, self.build.as_bytes());
        field(&mut h, case.kind.word().as_bytes());
        field(&mut h, case.name.as_bytes());
        for a in args {
            field(&mut h, a.as_bytes());
        }
        let files = inputs(&case.kind)?;
        for f in files {
            field(&mut h, f.to_string_lossy().as_bytes());
            h.update(file_digest(&f)?);
        }
        Some(hex(&h.finalize()))
    }

    /// The cached result of the key, when there is one written for this dxlane.
    pub fn get(&self, key: &str, case: &Case) -> Option<CaseResult> {
        let path = self.dir.join(format!("{key}.json"));
        if !path.is_file() {
            return None;
        }
        let bytes = read_input(&path, MAX_ENTRY_BYTES, "a cache entry's size").ok()?;
        let e: Entry = serde_json::from_slice(&bytes).ok()?;
        (e.format == CACHE_FORMAT
            && e.key == key
            && e.version == env!("CARGO_PKG_VERSION")
            && e.result.case == case.name)
            .then_some(e.result)
    }

    /// Keeps `result` under `key` when its outcome is fixed by the inputs.
    pub fn put(&self, key: &str, result: &CaseResult) -> Result<(), String> {
        if !matches!(result.status, Status::Pass | Status::Fail | Status::Error) {
            return Ok(());
        }
        let e = Entry {
            format: CACHE_FORMAT.into(),
            key: key.into(),
            version: env!("CARGO_PKG_VERSION").into(),
            result: result.clone(),
        };
        let text = serde_json::to_string(&e).map_err(|e| e.to_string())?;
        let gate = OutputGate::folder(&self.dir, "--cache");
        let path = gate.place(&self.dir.join(format!("{key}.json")))?;
        gate.write(&path, text.as_bytes())
    }
}

/// dxlane's build: its version and the MD5 of the executable at `exe`.
pub fn build_id(exe: &Path) -> Result<String, String> {
    let d = file_digest(exe).ok_or_else(|| format!("{}: cannot be read", exe.display()))?;
    Ok(format!("{} {}", env!("CARGO_PKG_VERSION"), hex(&d)))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// MD5 of a file's bytes, read in pieces.
fn file_digest(path: &Path) -> Option<[u8; 16]> {
    let (mut file, _) = open_input(path, true).ok()?;
    let mut h = Md5::new();
    let mut buf = vec![0u8; 1 << 16];
    loop {
        let n = file.read(&mut buf).ok()?;
        if n == 0 {
            break;
        }
        h.update(buf.get(..n)?);
    }
    Some(h.finalize().into())
}

/// The input files of a case (see the module doc), sorted; `None` when there are too
/// many or one cannot be listed.
fn inputs(kind: &CaseKind) -> Option<Vec<PathBuf>> {
    let mut out = Vec::new();
    match kind {
        CaseKind::Run { job } => job_inputs(job, &mut out)?,
        CaseKind::Compare { job, capture } => {
            job_inputs(job, &mut out)?;
            folder_files(capture, 0, &mut out)?;
        }
        CaseKind::ShaderTest { file } => {
            out.push(file.clone());
            for (env, name) in [("VKD3D_COMPILER", "vkd3d-compiler"), ("DXC", "dxc")] {
                if let Some(p) = tool_path(env, name) {
                    out.push(p);
                }
            }
        }
    }
    out.sort();
    out.dedup();
    (out.len() <= MAX_INPUT_FILES).then_some(out)
}

/// `$env`, else `name` on `PATH`.
fn tool_path(env: &str, name: &str) -> Option<PathBuf> {
    if let Some(v) = std::env::var_os(env) {
        let p = PathBuf::from(v);
        return p.is_file().then_some(p);
    }
    let path = std::env::var_os("PATH")?;
    std::env::split_paths(&path)
        .map(|d| d.join(name))
        .find(|p| p.is_file())
}

fn job_inputs(job: &Path, out: &mut Vec<PathBuf>) -> Option<()> {
    out.push(job.to_path_buf());
    let dir = job.parent().unwrap_or(Path::new(""));
    let bytes = read_input(job, MAX_ENTRY_BYTES, "a job file's size").ok()?;
    // A job that is not TOML names no files; its run reports the error.
    let Ok(table) = String::from_utf8_lossy(&bytes).parse::<toml::Table>() else {
        return Some(());
    };
    let mut strings = Vec::new();
    collect_strings(&toml::Value::Table(table), &mut strings);
    for s in strings {
        let p = dir.join(&s);
        // Folders only when named below the job's folder: a string such as "/" must
        // not make the key walk the whole file system.
        let below = Path::new(&s)
            .components()
            .all(|c| matches!(c, std::path::Component::Normal(_)));
        if p.is_file() {
            out.push(p);
        } else if below && p.is_dir() {
            folder_files(&p, 0, out)?;
        }
        if out.len() > MAX_INPUT_FILES {
            return None;
        }
    }
    Some(())
}

fn collect_strings(v: &toml::Value, out: &mut Vec<String>) {
    match v {
        toml::Value::String(s) if !s.is_empty() => out.push(s.clone()),
        toml::Value::Array(a) => a.iter().for_each(|x| collect_strings(x, out)),
        toml::Value::Table(t) => t.values().for_each(|x| collect_strings(x, out)),
        _ => {}
    }
}

fn folder_files(dir: &Path, depth: usize, out: &mut Vec<PathBuf>) -> Option<()> {
    if depth > MAX_INPUT_DEPTH {
        return None;
    }
    for e in std::fs::read_dir(dir).ok()? {
        let p = e.ok()?.path();
        let meta = std::fs::symlink_metadata(&p).ok()?;
        if meta.is_dir() {
            folder_files(&p, depth + 1, out)?;
        } else if meta.is_file() {
            out.push(p);
        }
        if out.len() > MAX_INPUT_FILES {
            return None;
        }
    }
    Some(())
}
