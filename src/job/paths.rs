//! Where a job may write: its outputs stay inside the job's folder (or the folder the
//! user names with `--out-dir`), so a job file from a bug report cannot overwrite the
//! user's files.
//!
//! Owns: placing every output path a job file names (`output`, `counter_output`,
//! `[options] summary`) and refusing those that would land outside. Does not own: what
//! is written ([`super::run`]).
//!
//! # Rules
//!
//! - A job's output paths are relative to the job file's folder and must stay inside it:
//!   an absolute path, or one whose `..` climbs out, is refused with the entry and the
//!   path named. With `--out-dir DIR` they are relative to `DIR` instead, and must stay
//!   inside `DIR`.
//! - Symbolic links are followed as the write would follow them: the deepest folder of
//!   the path that exists (or the file itself, when it exists) must resolve inside the
//!   base, so a link planted in the job's folder cannot carry a write out of it.
//! - `--allow-outside` (the user's explicit choice) lifts both rules; a path the user
//!   gives on the command line (`--summary`) is the user's own and is not checked.

use std::path::{Component, Path, PathBuf};

/// Where outputs may go.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct OutputPolicy {
    /// The job file's folder (empty for the current folder).
    pub job_dir: PathBuf,
    /// `--out-dir`: the folder outputs are written to instead of the job's.
    pub out_dir: Option<PathBuf>,
    /// `--allow-outside`: write wherever the job says.
    pub allow_outside: bool,
}

impl OutputPolicy {
    /// The folder outputs must stay inside.
    pub fn base(&self) -> &Path {
        self.out_dir.as_deref().unwrap_or(&self.job_dir)
    }

    /// Where an output the job names goes: `resolved` is the job's path resolved against
    /// the job's folder (`job::resolve`). The error says why it is refused and how to
    /// allow it.
    pub fn place(&self, resolved: &Path) -> Result<PathBuf, String> {
        if self.allow_outside {
            return Ok(resolved.to_path_buf());
        }
        let (rel, base_word) = match self.out_dir.as_deref() {
            None => (self.relative_to_job(resolved), "the job's folder"),
            Some(_) => (self.relative_to_job(resolved), "--out-dir"),
        };
        let base = self.base();
        let shown_base = if base.as_os_str().is_empty() {
            ".".to_string()
        } else {
            base.display().to_string()
        };
        let refuse = || {
            format!(
                "{} is outside {base_word} ({shown_base}): outputs are written only inside it; pass --allow-outside to write there",
                resolved.display()
            )
        };
        let rel = rel.ok_or_else(refuse)?;
        let target = base.join(&rel);
        if !links_stay_inside(base, &target) {
            return Err(format!(
                "{} leads outside {base_word} ({shown_base}) through a symbolic link: outputs are written only inside it; pass --allow-outside to write there",
                target.display()
            ));
        }
        Ok(target)
    }

    /// `resolved` as a path below the job's folder, when it is one: relative, and no
    /// `..` left after folding.
    fn relative_to_job(&self, resolved: &Path) -> Option<PathBuf> {
        let rel = if self.job_dir.as_os_str().is_empty() {
            resolved
        } else {
            resolved.strip_prefix(&self.job_dir).ok()?
        };
        let plain = rel.components().all(|c| matches!(c, Component::Normal(_)));
        (plain && rel.components().next().is_some()).then(|| rel.to_path_buf())
    }
}

/// Whether `target` (below `base` lexically) stays below it once symbolic links are
/// followed: the deepest part of it that exists must resolve inside `base`.
fn links_stay_inside(base: &Path, target: &Path) -> bool {
    let base_dir = if base.as_os_str().is_empty() {
        Path::new(".")
    } else {
        base
    };
    let Ok(real_base) = base_dir.canonicalize() else {
        // The base does not exist yet (a new --out-dir): nothing in it can be a link.
        return true;
    };
    let mut probe = target.to_path_buf();
    loop {
        if probe.symlink_metadata().is_ok() {
            return probe
                .canonicalize()
                .is_ok_and(|real| real.starts_with(&real_base));
        }
        if !probe.pop() || probe.as_os_str().is_empty() {
            return true;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn policy(job: &str, out: Option<&str>) -> OutputPolicy {
        OutputPolicy {
            job_dir: PathBuf::from(job),
            out_dir: out.map(PathBuf::from),
            allow_outside: false,
        }
    }

    /// Hostile outputs: absolute paths and `..` that climbs out are refused, with the
    /// flag that allows them named; plain relative paths stay where they were.
    #[test]
    fn outputs_stay_inside_the_job_folder() {
        let p = policy("examples", None);
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
        let here = policy("", None);
        assert!(here.place(Path::new("out/a.bin")).is_ok());
        assert!(here.place(Path::new("../a.bin")).is_err());
        assert!(here.place(Path::new("/tmp/a.bin")).is_err());
        let any = OutputPolicy {
            allow_outside: true,
            ..policy("examples", None)
        };
        assert_eq!(
            any.place(Path::new("/tmp/a.bin")).unwrap(),
            Path::new("/tmp/a.bin")
        );
    }

    /// `--out-dir` takes the job's relative outputs.
    #[test]
    fn out_dir_rebases_outputs() {
        let p = policy("jobs", Some("/tmp/dxlane-out-test"));
        assert_eq!(
            p.place(Path::new("jobs/out/x.bin")).unwrap(),
            Path::new("/tmp/dxlane-out-test/out/x.bin")
        );
        let e = p.place(Path::new("/etc/x")).unwrap_err();
        assert!(e.contains("outside --out-dir"), "{e}");
    }

    /// A symbolic link inside the job's folder that points out of it is not followed.
    #[cfg(unix)]
    #[test]
    fn links_out_of_the_folder_are_refused() {
        let dir = std::env::temp_dir().join(format!("dxlane-paths-{}", std::process::id()));
        let job = dir.join("job");
        let elsewhere = dir.join("elsewhere");
        std::fs::create_dir_all(&job).unwrap();
        std::fs::create_dir_all(&elsewhere).unwrap();
        std::os::unix::fs::symlink(&elsewhere, job.join("out")).unwrap();
        let p = OutputPolicy {
            job_dir: job.clone(),
            out_dir: None,
            allow_outside: false,
        };
        let e = p.place(&job.join("out/x.bin")).unwrap_err();
        assert!(e.contains("symbolic link"), "{e}");
        assert!(p.place(&job.join("fine/x.bin")).is_ok());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}
