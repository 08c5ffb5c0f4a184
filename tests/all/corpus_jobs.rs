//! The corpus programs that sample or load textures, run in the jobs of
//! `tests/jobs/corpus/` with the expectations worked out in each job's header; and the ones
//! that cannot run in a job yet (pixel programs), listed in
//! `tests/expectations/corpus_jobs.txt`, refused as such.

use std::path::{Path, PathBuf};

use dxlane::job::{RunOptions, run_job};

use crate::common;

/// The folder holding the corpora (`target/corpora`), when fetched.
fn corpora_root() -> Option<PathBuf> {
    common::corpora().first()?.parent().map(Path::to_path_buf)
}

/// Writes job `name` into a fresh folder with its corpus paths pointing at this build's
/// corpora, and returns the path.
fn staged(name: &str, root: &Path) -> PathBuf {
    let text = std::fs::read_to_string(common::root().join("tests/jobs/corpus").join(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    let text = text.replace("../../../target/corpora", &root.display().to_string());
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
        .join("corpus_jobs")
        .join(name.trim_end_matches(".toml"));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(name);
    std::fs::write(&path, text).unwrap();
    path
}

#[test]
fn corpus_sampling_jobs() {
    let Some(root) = corpora_root() else {
        eprintln!(
            "SKIPPED corpus_jobs::corpus_sampling_jobs: the corpora are not fetched (DXLANE_NO_CORPORA)"
        );
        return;
    };
    let mut names: Vec<String> = std::fs::read_dir(common::root().join("tests/jobs/corpus"))
        .unwrap()
        .flatten()
        .map(|e| e.file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".toml"))
        .collect();
    names.sort();
    assert!(names.len() >= 9, "{names:?}");
    let mut checked = 0;
    for name in &names {
        let path = staged(name, &root);
        let r = run_job(&path, &RunOptions::default()).unwrap_or_else(|e| panic!("{name}: {e}"));
        let lines = r.summary.expectations.results.len();
        assert!(lines > 0, "{name}: no expectation");
        assert!(
            r.passed(),
            "{name}:\n{}",
            r.summary
                .expectations
                .results
                .iter()
                .flat_map(|e| e.mismatch_lines())
                .collect::<Vec<_>>()
                .join("\n")
        );
        checked += lines;
    }
    eprintln!("{} corpus jobs, {checked} expectations held", names.len());
}

/// Each listed program exists, and a compute job refuses it as a graphics program.
#[test]
fn corpus_programs_without_jobs_are_known() {
    let Some(root) = corpora_root() else {
        eprintln!(
            "SKIPPED corpus_jobs::corpus_programs_without_jobs_are_known: the corpora are not fetched (DXLANE_NO_CORPORA)"
        );
        return;
    };
    let list =
        std::fs::read_to_string(common::root().join("tests/expectations/corpus_jobs.txt")).unwrap();
    let mut n = 0;
    for line in list
        .lines()
        .filter(|l| !l.trim_start().starts_with('#') && !l.trim().is_empty())
    {
        let case = line.split(',').next().unwrap().trim();
        let program = root.join(case);
        assert!(program.exists(), "{case} is not in the corpora");
        let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR"))
            .join("corpus_jobs")
            .join("refused");
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("job.toml");
        std::fs::write(
            &path,
            format!(
                "[program]\ncs = \"{}\"\n[dispatch]\ngroups = [1, 1, 1]\n",
                program.display()
            ),
        )
        .unwrap();
        let e = run_job(&path, &RunOptions::default())
            .err()
            .unwrap_or_else(|| {
                panic!("{case} now runs as a compute job: give it a job and remove its line")
            });
        let m = e.to_string();
        assert!(
            m.contains("is a ps_") && m.contains("runs compute programs"),
            "{case}: {m}"
        );
        n += 1;
    }
    assert!(n >= 6, "{n}");
}
