//! The corpus programs that sample or load textures or trace inline ray queries, run in
//! the jobs of `tests/jobs/corpus/` with the expectations worked out in each job's
//! header (ray queries over `[[acceleration_structure]]` scenes): compute
//! programs in `[dispatch]` jobs, ray-tracing libraries' exports in `[rays]` jobs
//! (`DispatchRays`), pixel programs in `[draw]` jobs (with the vertex
//! programs `tests/jobs/corpus/*.vs.ir` written for them). DXBC and DXIL twins of one
//! pixel program draw identical targets. Programs that cannot run in a job yet would be
//! listed in `tests/expectations/corpus_jobs.txt`, and are refused as such.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use dxlane::exec::jit::Engine;
use dxlane::job::{self, Job, RunOptions, run_job};

use crate::common;

/// The folder holding the corpora (`target/corpora`), when fetched.
fn corpora_root() -> Option<PathBuf> {
    common::corpora().first()?.parent().map(Path::to_path_buf)
}

/// Writes job `name` into a fresh folder with its corpus paths pointing at this build's
/// corpora, and returns the path.
pub(crate) fn staged(name: &str, root: &Path) -> PathBuf {
    let text = std::fs::read_to_string(common::root().join("tests/jobs/corpus").join(name))
        .unwrap_or_else(|e| panic!("{name}: {e}"));
    // The vertex programs of draw jobs sit beside the jobs, unless they come from the
    // corpora.
    let text = text.replace("vs = \"../../../target/corpora", "vs = \"@CORPUS_VS@");
    let text = text.replace("../../../target/corpora", &root.display().to_string());
    let text = text.replace(
        "vs = \"",
        &format!(
            "vs = \"{}/",
            common::root().join("tests/jobs/corpus").display()
        ),
    );
    let text = text.replace(
        &format!(
            "{}/@CORPUS_VS@",
            common::root().join("tests/jobs/corpus").display()
        ),
        &root.display().to_string(),
    );
    // Programs written for the jobs (`"./name"`) sit beside them too.
    let text = text.replace(
        "= \"./",
        &format!(
            "= \"{}/",
            common::root().join("tests/jobs/corpus").display()
        ),
    );
    let dir = common::scratch()
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
    assert!(names.len() >= 15, "{names:?}");
    let mut checked = 0;
    // Each draw job's render targets, to compare twins.
    let mut drawn: BTreeMap<String, Vec<Vec<u8>>> = BTreeMap::new();
    for name in &names {
        let path = staged(name, &root);
        let text = std::fs::read_to_string(&path).unwrap();
        let (expectations, targets) = if text.contains("\n[draw]") {
            // Both engines, render targets compared byte for byte.
            let mut drawn_by = Vec::new();
            for engine in [Engine::Interp, Engine::Jit] {
                let job = Job::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
                let opts = RunOptions {
                    engine: Some(engine),
                    ..crate::common::run_options()
                };
                let r = job::run_draw_job(job, &opts).unwrap_or_else(|e| panic!("{name}: {e}"));
                let t: Vec<Vec<u8>> = r
                    .targets
                    .iter()
                    .map(|t| t.view.texture.to_bytes())
                    .collect();
                drawn_by.push((r.summary.expectations, t));
            }
            let (jit_e, jit_t) = drawn_by.pop().unwrap();
            let (e, t) = drawn_by.pop().unwrap();
            assert!(t == jit_t, "{name}: the engines drew different targets");
            assert_eq!(
                e.failed, jit_e.failed,
                "{name}: the engines' expectations differ"
            );
            (e, Some(t))
        } else if text.contains("\n[rays]") {
            // A DXR pipeline: both engines, every resource compared byte for byte.
            let mut by = Vec::new();
            for engine in [Engine::Interp, Engine::Jit] {
                let job = Job::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
                let opts = RunOptions {
                    engine: Some(engine),
                    ..crate::common::run_options()
                };
                let finished = job::prepare(job, &opts)
                    .and_then(|p| p.execute(&opts))
                    .unwrap_or_else(|e| panic!("{name}: {e}"));
                let job::Finished::Rays(r) = finished else {
                    panic!("{name}: not a ray dispatch");
                };
                assert!(r.summary.rays > 0, "{name}: no TraceRay ran");
                let bytes: Vec<Vec<u8>> = r
                    .bound
                    .resources
                    .iter()
                    .map(|e| e.memory().map(|m| m.to_bytes()).unwrap_or_default())
                    .collect();
                by.push((r.summary.expectations, bytes));
            }
            let (jit_e, jit_b) = by.pop().unwrap();
            let (e, b) = by.pop().unwrap();
            assert!(b == jit_b, "{name}: the engines wrote different resources");
            assert_eq!(
                e.failed, jit_e.failed,
                "{name}: the engines' expectations differ"
            );
            (e, None)
        } else {
            // Both engines, outputs compared byte for byte.
            let r = common::run_job_both(
                &path,
                &format!("corpus/{name}"),
                crate::common::run_options(),
            )
            .unwrap_or_else(|e| panic!("{name}: {e}"));
            (r.summary.expectations, None)
        };
        let lines = expectations.results.len();
        assert!(lines > 0, "{name}: no expectation");
        assert!(
            expectations.failed == 0,
            "{name}:\n{}",
            expectations
                .results
                .iter()
                .flat_map(|e| e.mismatch_lines())
                .collect::<Vec<_>>()
                .join("\n")
        );
        if let Some(t) = targets {
            drawn.insert(name.trim_end_matches(".toml").to_string(), t);
        }
        checked += lines;
    }
    // Differential: the fxc (DXBC) and dxc (DXIL, Shader Model 6.0 and 6.6) builds of one
    // source, drawn with the same state and data, give the same bits in every target.
    for twins in [
        &["sampling_dxbc", "sampling_dxil", "sampling_dxil66"][..],
        &["textures_dxil", "textures_dxil66"],
        &["mesh_dxil", "mesh_dxil66", "mesh_dxil_od"],
        &["geometry_dxil", "geometry_dxil66", "geometry_dxil_od"],
        &[
            "tessellation_dxil",
            "tessellation_dxil_od",
            "tessellation_dxbc",
        ],
    ] {
        let first = &drawn[twins[0]];
        for other in &twins[1..] {
            assert!(
                &drawn[*other] == first,
                "{other} draws other pixels than {}",
                twins[0]
            );
        }
    }
    eprintln!("{} corpus jobs, {checked} expectations held", names.len());
}

/// Each listed program exists, and a compute job refuses it as a graphics program (the
/// list is empty since the draw pipeline runs the pixel programs it held).
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
        let dir = common::scratch().join("corpus_jobs").join("refused");
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
        let e = run_job(&path, &crate::common::run_options())
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
    eprintln!("{n} corpus programs without a job");
}
