//! The two gates of dxlane's files: [`OutputGate`], which every file dxlane writes goes
//! through, and [`read_input`] (with [`open_input`]), which every file it reads goes
//! through.
//!
//! A job file, a capture folder or a debugger script may come from someone else (a bug
//! report, a capture sent along), so what dxlane may write and read is decided here, once,
//! for every command: `run` (a dispatch's and a draw's outputs, the summary, `--record`),
//! `compare` (its diff images, the capture's files), `debug` (`--trace`, `--script`),
//! `info` and `disasm`, and whatever comes later. Owns: placing and writing output files,
//! opening and reading input files. Does not own: what is written or read (the callers),
//! how much memory a job may hold ([`super::limits`]).
//!
//! # Writes
//!
//! - Every gate has a base folder: the job's folder, `--out-dir`, or a folder the user
//!   names on the command line (`--record DIR`, `--images DIR`, the folder of
//!   `--summary FILE` or `--trace FILE`). The base is the user's choice and is taken as
//!   given.
//! - A path a job names (`output`, `outputs = [{ file }]`, `resolve_output`,
//!   `counter_output`, `[options] summary`, the default summary) is relative to the job's
//!   folder and must stay inside the base: an absolute path, or one whose `..` climbs out
//!   once folded, is refused with the entry and the path named. With `--out-dir DIR` it
//!   goes below `DIR` instead, and must stay inside `DIR`.
//! - Below the base, a folder on the way that is a symbolic link must lead inside the
//!   base (resolved, then checked), both when the path is placed and again when it is
//!   written; missing folders are created one at a time, each checked as it is made.
//! - The file itself is never written through. A symbolic link, a folder, a device or a
//!   pipe where the file goes is refused; an existing regular file — hard-linked to a file
//!   elsewhere or not — is replaced, not overwritten: the bytes go to a new file in the
//!   same folder, created exclusively and without following links (`O_CREAT | O_EXCL |
//!   O_NOFOLLOW`), which is then renamed over the old name. Another name of the old file
//!   keeps its bytes.
//! - `--allow-outside` (the user's explicit choice, for a job they trust) lifts the first
//!   three rules: paths may be absolute or climb out, and folders may be links anywhere.
//!   The file itself is still replaced, never written through.
//!
//! # Reads
//!
//! - An input must be a regular file, and its kind is checked before it is opened; it is
//!   then opened without blocking (`O_NONBLOCK`, so a pipe swapped in after the check
//!   cannot stall the open) and checked again on the open handle, so a FIFO, a device or
//!   a folder is an error naming the file, never a read that waits for ever.
//! - It is read no further than one byte past the most it may hold, into a buffer
//!   reserved fallibly: `/dev/zero`-like inputs and huge files fail with the limit and
//!   what sets it.
//! - Files of a capture folder ([`inside`]) must lie inside it: no `..`, no absolute
//!   path, and no symbolic link anywhere below the folder (a link is refused, not
//!   followed), so a capture sent along cannot make dxlane read, and print, the user's
//!   other files. A job's own inputs (programs, `data` files, images) are where the job
//!   says, links followed, as a command line's files are.

use std::ffi::OsString;
use std::fs::{File, OpenOptions};
use std::io::{ErrorKind, Read, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU64, Ordering};

/// Where a job's outputs may go (`dxlane run`'s `--out-dir` and `--allow-outside`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputPolicy {
    /// The job file's folder (empty for the current folder).
    pub job_dir: PathBuf,
    /// `--out-dir`: the folder outputs are written to instead of the job's.
    pub out_dir: Option<PathBuf>,
    /// `--allow-outside`: write wherever the job says.
    pub allow_outside: bool,
}

/// The gate every output file goes through (see the module doc): it places the paths a
/// job names and writes files without following links or writing through hard links.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputGate {
    /// The folder outputs stay inside (empty for the current folder).
    base: PathBuf,
    /// How messages name the base: "the job's folder", "--out-dir", "--record".
    word: String,
    /// The folder the paths given to [`OutputGate::place`] were resolved against.
    job_dir: PathBuf,
    /// `--allow-outside`.
    allow_outside: bool,
}

/// Numbers the temporary files of one process.
static TEMPORARIES: AtomicU64 = AtomicU64::new(0);

impl OutputPolicy {
    /// The gate of this policy.
    pub fn gate(&self) -> OutputGate {
        let (base, word) = match &self.out_dir {
            Some(d) => (d.clone(), "--out-dir"),
            None => (self.job_dir.clone(), "the job's folder"),
        };
        OutputGate {
            base,
            word: word.into(),
            job_dir: self.job_dir.clone(),
            allow_outside: self.allow_outside,
        }
    }
}

impl OutputGate {
    /// A gate for files dxlane names itself inside `dir`, a folder the user named on the
    /// command line (`flag`, e.g. `--record`): paths given to it are `dir` joined with a
    /// name.
    pub fn folder(dir: &Path, flag: &str) -> OutputGate {
        OutputGate {
            base: dir.to_path_buf(),
            word: flag.to_string(),
            job_dir: dir.to_path_buf(),
            allow_outside: false,
        }
    }

    /// The gate and the path of a file the user named on the command line (`--summary
    /// FILE`, `--trace FILE`): its folder is the user's choice; the file itself is
    /// replaced, never written through.
    pub fn user_file(path: &Path, flag: &str) -> Result<(OutputGate, PathBuf), String> {
        let name = match path.components().next_back() {
            Some(Component::Normal(n)) => n.to_os_string(),
            _ => {
                return Err(format!(
                    "{flag} {}: give a file name, not a folder",
                    path.display()
                ));
            }
        };
        let dir = path.parent().map_or_else(PathBuf::new, Path::to_path_buf);
        let gate = OutputGate::folder(&dir, flag);
        let placed = gate.place(&dir.join(name))?;
        Ok((gate, placed))
    }

    /// The folder outputs stay inside.
    pub fn base(&self) -> &Path {
        &self.base
    }

    fn shown_base(&self) -> String {
        if self.base.as_os_str().is_empty() {
            ".".to_string()
        } else {
            self.base.display().to_string()
        }
    }

    fn refuse_outside(&self, p: &Path) -> String {
        format!(
            "{} is outside {} ({}): outputs are written only inside it; pass --allow-outside to write there",
            p.display(),
            self.word,
            self.shown_base()
        )
    }

    /// `resolved` (a path resolved against the job's folder, `job::resolve`) as a path
    /// below the job's folder: relative, and no `..` left once folded.
    fn below_job(&self, resolved: &Path) -> Option<PathBuf> {
        let folded = super::resolve(Path::new(""), resolved);
        let rel = if self.job_dir.as_os_str().is_empty() {
            folded.as_path()
        } else {
            folded
                .strip_prefix(super::resolve(Path::new(""), &self.job_dir))
                .ok()?
        };
        let plain = rel.components().all(|c| matches!(c, Component::Normal(_)));
        (plain && rel.components().next().is_some()).then(|| rel.to_path_buf())
    }

    /// Where an output goes: `resolved` is the job's path resolved against the job's
    /// folder (`job::resolve`). Refuses (saying why, and how to allow it) a path outside
    /// the base, a folder on the way that leads out of it through a link, and a link,
    /// folder, device or pipe where the file would go.
    pub fn place(&self, resolved: &Path) -> Result<PathBuf, String> {
        let Some(rel) = self.below_job(resolved) else {
            if self.allow_outside {
                self.check_file(resolved)?;
                return Ok(resolved.to_path_buf());
            }
            return Err(self.refuse_outside(resolved));
        };
        let target = self.base.join(&rel);
        if self.allow_outside {
            self.check_file(&target)?;
        } else {
            self.check_inside(&rel)?;
        }
        Ok(target)
    }

    /// Refuses a link, folder, device or pipe at `path` (an output file is made only as
    /// a new regular file).
    fn check_file(&self, path: &Path) -> Result<(), String> {
        match path.symlink_metadata() {
            Err(_) => Ok(()),
            Ok(m) if m.file_type().is_symlink() => Err(format!(
                "{} is a symbolic link: dxlane never writes an output through a link (remove it, or name another file)",
                path.display()
            )),
            Ok(m) if m.is_dir() => Err(format!("{} is a folder, not a file", path.display())),
            Ok(m) if !m.is_file() => Err(format!(
                "{} is not a regular file (a device, pipe or socket): outputs replace regular files only",
                path.display()
            )),
            Ok(_) => Ok(()),
        }
    }

    /// Checks the existing part of `base/rel`: every folder on the way that is a link
    /// resolves inside the base; the file is not a link, folder, device or pipe.
    fn check_inside(&self, rel: &Path) -> Result<(), String> {
        let base = if self.base.as_os_str().is_empty() {
            Path::new(".")
        } else {
            &self.base
        };
        let Ok(real_base) = base.canonicalize() else {
            // The base does not exist yet (a new --out-dir): nothing in it can be a link.
            return Ok(());
        };
        let parts: Vec<_> = rel.components().collect();
        let mut probe = self.base.clone();
        for (i, c) in parts.iter().enumerate() {
            probe.push(c);
            if i + 1 == parts.len() {
                return self.check_file(&probe);
            }
            match probe.symlink_metadata() {
                Err(_) => return Ok(()),
                Ok(m) if m.file_type().is_symlink() => {
                    if !probe
                        .canonicalize()
                        .is_ok_and(|real| real.starts_with(&real_base))
                    {
                        return Err(format!(
                            "{} leads outside {} ({}) through a symbolic link ({}): outputs are written only inside it; pass --allow-outside to write there",
                            self.base.join(rel).display(),
                            self.word,
                            self.shown_base(),
                            probe.display()
                        ));
                    }
                }
                Ok(m) if !m.is_dir() => {
                    return Err(format!(
                        "{}: {} is not a folder",
                        self.base.join(rel).display(),
                        probe.display()
                    ));
                }
                Ok(_) => {}
            }
        }
        Ok(())
    }

    /// Writes `bytes` to `path` (a path [`OutputGate::place`] gave), creating folders,
    /// by the rules of the module doc. The error names the file.
    pub fn write(&self, path: &Path, bytes: &[u8]) -> Result<(), String> {
        self.write_with(path, &mut |w| w.write_all(bytes))
    }

    /// Writes the bytes `fill` writes to `path` (streamed: no copy of the whole), by the
    /// rules of the module doc. The error names the file.
    pub fn write_with(
        &self,
        path: &Path,
        fill: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
    ) -> Result<(), String> {
        let shown = path.display();
        match path
            .strip_prefix(&self.base)
            .ok()
            .filter(|rel| rel.components().all(|c| matches!(c, Component::Normal(_))))
        {
            Some(rel) if !self.allow_outside => {
                // Placed once; checked again now, as the folders are made.
                self.check_inside(rel)?;
                self.make_folders(rel)?;
            }
            _ if self.allow_outside => {
                if let Some(parent) = path.parent().filter(|p| !p.as_os_str().is_empty()) {
                    std::fs::create_dir_all(parent).map_err(|e| format!("{shown}: {e}"))?;
                }
            }
            _ => return Err(self.refuse_outside(path)),
        }
        self.check_file(path)?;
        replace(path, fill).map_err(|e| format!("{shown}: {e}"))
    }

    /// Creates the base and the missing folders of `rel`'s parent one at a time, each
    /// checked as it is made (a link found on the way must lead inside the base).
    fn make_folders(&self, rel: &Path) -> Result<(), String> {
        if !self.base.as_os_str().is_empty() {
            std::fs::create_dir_all(&self.base)
                .map_err(|e| format!("{}: {e}", self.base.display()))?;
        }
        let Some(parent) = rel.parent() else {
            return Ok(());
        };
        let mut probe = self.base.clone();
        for c in parent.components() {
            probe.push(c);
            match std::fs::create_dir(&probe) {
                Ok(()) => {}
                Err(e) if e.kind() == ErrorKind::AlreadyExists => {}
                Err(e) => return Err(format!("{}: {e}", probe.display())),
            }
        }
        // Whatever was there (or appeared) must still hold.
        self.check_inside(rel)
    }
}

/// Writes what `fill` writes to a new file beside `path` (created exclusively, links not
/// followed) and renames it over `path`: an existing file at `path` is replaced, and any
/// other name (hard link) of it keeps its bytes.
fn replace(
    path: &Path,
    fill: &mut dyn FnMut(&mut dyn Write) -> std::io::Result<()>,
) -> std::io::Result<()> {
    let dir = match path.parent() {
        Some(p) if !p.as_os_str().is_empty() => p.to_path_buf(),
        _ => PathBuf::from("."),
    };
    let name = path
        .file_name()
        .ok_or_else(|| std::io::Error::new(ErrorKind::InvalidInput, "no file name"))?;
    let mut tmp_name = OsString::from(".");
    tmp_name.push(name);
    tmp_name.push(format!(
        ".{}-{}.tmp",
        std::process::id(),
        TEMPORARIES.fetch_add(1, Ordering::Relaxed)
    ));
    let tmp = dir.join(tmp_name);
    let mut options = OpenOptions::new();
    options.write(true).create_new(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NOFOLLOW);
    }
    let file = options.open(&tmp)?;
    let written = (|| {
        let mut w = std::io::BufWriter::with_capacity(1 << 16, file);
        fill(&mut w)?;
        w.flush()?;
        drop(w);
        std::fs::rename(&tmp, path)
    })();
    if written.is_err() {
        let _ = std::fs::remove_file(&tmp);
    }
    written
}

/// Opens the regular file `path` for reading (see the module doc): its kind is checked
/// before it is opened and again on the open handle; with `follow_links` false a
/// symbolic link is refused. Returns the file and its length. Errors name the file.
pub fn open_input(path: &Path, follow_links: bool) -> Result<(File, u64), String> {
    let shown = path.display();
    let meta = if follow_links {
        std::fs::metadata(path)
    } else {
        std::fs::symlink_metadata(path)
    }
    .map_err(|e| format!("{shown}: {e}"))?;
    let kind = |m: &std::fs::Metadata| -> Option<&'static str> {
        if m.file_type().is_symlink() {
            Some("a symbolic link, which is not followed here; give the file itself")
        } else if m.is_dir() {
            Some("a folder; give a regular file")
        } else if !m.is_file() {
            Some("not a regular file (a device, pipe or socket); give a regular file")
        } else {
            None
        }
    };
    if let Some(k) = kind(&meta) {
        return Err(format!("{shown}: {k}"));
    }
    let mut options = OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        let no_follow = if follow_links { 0 } else { libc::O_NOFOLLOW };
        options.custom_flags(libc::O_NONBLOCK | no_follow);
    }
    let file = options.open(path).map_err(|e| format!("{shown}: {e}"))?;
    let meta = file.metadata().map_err(|e| format!("{shown}: {e}"))?;
    if let Some(k) = kind(&meta) {
        return Err(format!("{shown}: {k}"));
    }
    Ok((file, meta.len()))
}

/// Reads an opened input (of `len` bytes when opened) no further than one byte past
/// `max`, into a buffer reserved fallibly; `what_limits` says what sets `max`.
pub fn read_opened(
    path: &Path,
    file: File,
    len: u64,
    max: u64,
    what_limits: &str,
) -> Result<Vec<u8>, String> {
    let shown = path.display();
    if len > max {
        return Err(format!(
            "{shown}: {len} bytes, more than {max} ({what_limits})"
        ));
    }
    // The length can change between the look and the read: read at most one byte past
    // the limit.
    let mut out = Vec::new();
    out.try_reserve_exact(usize::try_from(len).unwrap_or(usize::MAX))
        .map_err(|_| format!("{shown}: cannot reserve {len} bytes to read it"))?;
    file.take(max.saturating_add(1))
        .read_to_end(&mut out)
        .map_err(|e| format!("{shown}: {e}"))?;
    if out.len() as u64 > max {
        return Err(format!(
            "{shown}: more than {max} bytes ({what_limits}); it grew while being read"
        ));
    }
    Ok(out)
}

/// Reads the regular file `path` of at most `max` bytes, links followed (see the module
/// doc). A missing file, a folder, a device, a pipe or a file longer than `max` is an
/// error naming the file and, for the last, the limit and what sets it (`what_limits`,
/// e.g. "the buffer's `size`").
pub fn read_input(path: &Path, max: u64, what_limits: &str) -> Result<Vec<u8>, String> {
    let (file, len) = open_input(path, true)?;
    read_opened(path, file, len, max, what_limits)
}

/// The path of `file` inside the folder `dir`, for reading: `file` must be relative with
/// no `..`, and no part of it below `dir` may be a symbolic link (see the module doc).
/// The error says which rule `file` breaks.
pub fn inside(dir: &Path, file: &Path) -> Result<PathBuf, String> {
    let plain = file
        .components()
        .all(|c| matches!(c, Component::Normal(_) | Component::CurDir));
    if !plain || file.as_os_str().is_empty() {
        return Err(format!(
            "\"{}\" must be a path inside the folder (no `..`, not absolute)",
            file.display()
        ));
    }
    let mut probe = dir.to_path_buf();
    for c in file.components() {
        if c == Component::CurDir {
            continue;
        }
        probe.push(c);
        if probe
            .symlink_metadata()
            .is_ok_and(|m| m.file_type().is_symlink())
        {
            return Err(format!(
                "{} is a symbolic link: files are read only from inside the folder, and links are not followed",
                probe.display()
            ));
        }
    }
    Ok(probe)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn gate(job: &str, out: Option<&str>) -> OutputGate {
        OutputPolicy {
            job_dir: PathBuf::from(job),
            out_dir: out.map(PathBuf::from),
            allow_outside: false,
        }
        .gate()
    }

    /// A fresh folder for a test.
    fn scratch(name: &str) -> PathBuf {
        let dir = std::env::temp_dir().join(format!("dxlane-paths-{name}-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        dir
    }

    /// Hostile outputs: absolute paths and `..` that climbs out are refused, with the
    /// flag that allows them named; plain relative paths stay where they were.
    #[test]
    fn outputs_stay_inside_the_job_folder() {
        let p = gate("examples", None);
        assert_eq!(
            p.place(Path::new("examples/out/x.bin")).unwrap(),
            Path::new("examples/out/x.bin")
        );
        for bad in ["/etc/passwd", "../x", "x.bin", "examples/../../x"] {
            let e = p.place(Path::new(bad)).unwrap_err();
            assert!(
                e.contains("outside the job's folder") && e.contains("--allow-outside"),
                "{e}"
            );
        }
        let here = gate("", None);
        assert!(here.place(Path::new("out/a.bin")).is_ok());
        assert!(here.place(Path::new("../a.bin")).is_err());
        assert!(here.place(Path::new("/tmp/a.bin")).is_err());
        let any = OutputPolicy {
            job_dir: PathBuf::from("examples"),
            out_dir: None,
            allow_outside: true,
        }
        .gate();
        assert_eq!(
            any.place(Path::new("/tmp/a.bin")).unwrap(),
            Path::new("/tmp/a.bin")
        );
    }

    /// `--out-dir` takes the job's relative outputs.
    #[test]
    fn out_dir_rebases_outputs() {
        let p = gate("jobs", Some("/tmp/dxlane-out-test"));
        assert_eq!(
            p.place(Path::new("jobs/out/x.bin")).unwrap(),
            Path::new("/tmp/dxlane-out-test/out/x.bin")
        );
        let e = p.place(Path::new("/etc/x")).unwrap_err();
        assert!(e.contains("outside --out-dir"), "{e}");
    }

    /// A symbolic link inside the job's folder that points out of it is not followed; a
    /// link that stays inside is; a link where the file goes is refused even when it
    /// stays inside.
    #[cfg(unix)]
    #[test]
    fn links_out_of_the_folder_are_refused() {
        let dir = scratch("links");
        let job = dir.join("job");
        let elsewhere = dir.join("elsewhere");
        std::fs::create_dir_all(job.join("real")).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, job.join("out")).unwrap();
        std::os::unix::fs::symlink(job.join("real"), job.join("alias")).unwrap();
        std::fs::write(elsewhere.join("victim"), b"keep").unwrap();
        std::os::unix::fs::symlink(elsewhere.join("victim"), job.join("t.bin")).unwrap();
        let p = gate(job.to_str().unwrap(), None);
        let e = p.place(&job.join("out/x.bin")).unwrap_err();
        assert!(e.contains("symbolic link"), "{e}");
        let e = p.write(&job.join("out/x.bin"), b"x").unwrap_err();
        assert!(e.contains("symbolic link"), "{e}");
        assert!(p.place(&job.join("fine/x.bin")).is_ok());
        p.write(&p.place(&job.join("alias/x.bin")).unwrap(), b"in")
            .unwrap();
        assert_eq!(std::fs::read(job.join("real/x.bin")).unwrap(), b"in");
        let e = p.place(&job.join("t.bin")).unwrap_err();
        assert!(e.contains("symbolic link"), "{e}");
        assert_eq!(std::fs::read(elsewhere.join("victim")).unwrap(), b"keep");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// An output that is a hard link to a file elsewhere is replaced: the other name
    /// keeps its bytes. Nothing is left behind beside the output.
    #[cfg(unix)]
    #[test]
    fn hard_links_are_replaced_not_written_through() {
        let dir = scratch("hard");
        std::fs::write(dir.join("victim"), b"keep").unwrap();
        std::fs::create_dir_all(dir.join("job/out")).unwrap();
        std::fs::hard_link(dir.join("victim"), dir.join("job/out/u0.bin")).unwrap();
        let g = gate(dir.join("job").to_str().unwrap(), None);
        let placed = g.place(&dir.join("job/out/u0.bin")).unwrap();
        g.write(&placed, b"new bytes").unwrap();
        assert_eq!(std::fs::read(dir.join("victim")).unwrap(), b"keep");
        assert_eq!(std::fs::read(&placed).unwrap(), b"new bytes");
        let names: Vec<_> = std::fs::read_dir(dir.join("job/out"))
            .unwrap()
            .map(|e| e.unwrap().file_name())
            .collect();
        assert_eq!(names.len(), 1, "{names:?}");
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// A file the user names on the command line: its folder is theirs, the file is
    /// replaced, a link there refused.
    #[cfg(unix)]
    #[test]
    fn user_files_are_replaced_never_followed() {
        let dir = scratch("user");
        std::fs::write(dir.join("victim"), b"keep").unwrap();
        std::os::unix::fs::symlink(dir.join("victim"), dir.join("trace.jsonl")).unwrap();
        let e = OutputGate::user_file(&dir.join("trace.jsonl"), "--trace").unwrap_err();
        assert!(e.contains("symbolic link"), "{e}");
        let (g, p) = OutputGate::user_file(&dir.join("sub/s.json"), "--summary").unwrap();
        g.write(&p, b"{}").unwrap();
        assert_eq!(std::fs::read(dir.join("sub/s.json")).unwrap(), b"{}");
        assert!(OutputGate::user_file(Path::new(".."), "--summary").is_err());
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Hostile inputs: a device that never ends, a folder, a file past its limit, a
    /// pipe (which would block an open for reading until a writer came).
    #[test]
    fn files_are_read_no_further_than_they_may_hold() {
        let e = read_input(Path::new("/dev/zero"), 1 << 20, "the buffer's `size`");
        assert!(e.unwrap_err().contains("not a regular file"));
        let e = read_input(Path::new("."), 10, "x").unwrap_err();
        assert!(e.contains("a folder"), "{e}");
        let dir = scratch("reads");
        let f = dir.join("big.bin");
        std::fs::write(&f, [7u8; 100]).unwrap();
        let e = read_input(&f, 99, "the buffer's `size`").unwrap_err();
        assert!(
            e.contains("100 bytes, more than 99 (the buffer's `size`)"),
            "{e}"
        );
        assert_eq!(read_input(&f, 100, "x").unwrap().len(), 100);
        #[cfg(unix)]
        {
            let fifo = dir.join("fifo");
            let made = std::process::Command::new("mkfifo").arg(&fifo).status();
            if made.is_ok_and(|s| s.success()) {
                let e = read_input(&fifo, 100, "x").unwrap_err();
                assert!(e.contains("not a regular file"), "{e}");
            }
        }
        std::fs::remove_dir_all(&dir).unwrap();
    }

    /// Files of a capture folder: no `..`, not absolute, no link below the folder.
    #[cfg(unix)]
    #[test]
    fn reads_inside_a_folder_follow_no_links() {
        let dir = scratch("inside");
        std::fs::create_dir_all(dir.join("cap/sub")).unwrap();
        std::fs::write(dir.join("secret"), b"secret").unwrap();
        std::os::unix::fs::symlink(dir.join("secret"), dir.join("cap/u0.bin")).unwrap();
        std::os::unix::fs::symlink(&dir, dir.join("cap/up")).unwrap();
        let cap = dir.join("cap");
        for bad in ["u0.bin", "up/secret"] {
            let e = inside(&cap, Path::new(bad)).unwrap_err();
            assert!(e.contains("symbolic link"), "{bad}: {e}");
        }
        for bad in ["../secret", "/etc/passwd", ""] {
            let e = inside(&cap, Path::new(bad)).unwrap_err();
            assert!(e.contains("inside the folder"), "{bad}: {e}");
        }
        assert_eq!(
            inside(&cap, Path::new("./sub/x.bin")).unwrap(),
            cap.join("sub/x.bin")
        );
        let e = open_input(&cap.join("u0.bin"), false).unwrap_err();
        assert!(e.contains("symbolic link"), "{e}");
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
