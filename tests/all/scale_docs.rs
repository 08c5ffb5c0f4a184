//! The scheduler recipes in `docs/scale.md` are real configurations (issue 37, item 3):
//! the Kubernetes manifest and the GitHub Actions workflow parse as YAML and have the
//! fields those engines need for sharding (an Indexed Job with per-index retries and a
//! pod failure policy that fails an index on dxlane's exit codes, a matrix whose size is
//! the shard count), the Slurm script is valid bash, and every `dxlane batch` option the
//! page uses is one the command accepts.
//!
//! Sources: Kubernetes' Job API (`completionMode: Indexed`, `backoffLimitPerIndex`,
//! `podFailurePolicy` rules with `action: FailIndex` and `onExitCodes`, which requires
//! `restartPolicy: Never`), GitHub Actions' workflow syntax (`strategy.matrix`), Slurm's
//! `sbatch` array options.

use std::process::Command;

use serde_norway::Value;

use crate::common;

/// The page's fenced blocks of language `lang`, in order.
fn blocks(lang: &str) -> Vec<String> {
    let page = std::fs::read_to_string(common::root().join("docs/scale.md")).unwrap();
    let mut out = Vec::new();
    let mut current: Option<String> = None;
    for line in page.lines() {
        let fence = line.trim_start();
        if let Some(c) = current.as_mut() {
            if fence == "```" {
                out.push(current.take().unwrap());
            } else {
                c.push_str(line);
                c.push('\n');
            }
        } else if fence == format!("```{lang}") {
            current = Some(String::new());
        }
    }
    out
}

fn yaml_documents() -> (Value, Value) {
    let docs: Vec<Value> = blocks("yaml")
        .iter()
        .map(|b| serde_norway::from_str(b).unwrap_or_else(|e| panic!("{e}:\n{b}")))
        .collect();
    assert_eq!(docs.len(), 2, "a Kubernetes manifest and a GitHub workflow");
    (docs[0].clone(), docs[1].clone())
}

#[test]
fn the_kubernetes_manifest_is_an_indexed_job_failing_indexes_on_dxlanes_exit_codes() {
    let (job, _) = yaml_documents();
    assert_eq!(job["apiVersion"], Value::from("batch/v1"));
    assert_eq!(job["kind"], Value::from("Job"));
    let spec = &job["spec"];
    assert_eq!(spec["completionMode"], Value::from("Indexed"));
    let completions = spec["completions"].as_u64().unwrap();
    assert!(spec["backoffLimitPerIndex"].as_u64().unwrap() >= 1);
    // podFailurePolicy requires pods that are not restarted in place.
    assert_eq!(
        spec["template"]["spec"]["restartPolicy"],
        Value::from("Never")
    );
    let container = &spec["template"]["spec"]["containers"][0];
    let name = container["name"].as_str().unwrap();
    let rules = spec["podFailurePolicy"]["rules"].as_sequence().unwrap();
    let fail_index = rules
        .iter()
        .find(|r| r["action"] == "FailIndex")
        .expect("a FailIndex rule");
    let codes = &fail_index["onExitCodes"];
    assert_eq!(codes["containerName"], Value::from(name));
    assert_eq!(codes["operator"], Value::from("In"));
    let values: Vec<u64> = codes["values"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|v| v.as_u64().unwrap())
        .collect();
    // 2 is dxlane batch's "the run itself failed" (infrastructure), 1 "cases failed":
    // neither is helped by a retry of a deterministic run.
    assert!(values.contains(&2) && values.contains(&1), "{values:?}");
    // The shard count the batch reads is the Job's completions.
    let env = container["env"].as_sequence().unwrap();
    let count = env
        .iter()
        .find(|e| e["name"] == "DXLANE_SHARD_COUNT")
        .expect("DXLANE_SHARD_COUNT");
    assert_eq!(count["value"], Value::from(completions.to_string()));
    let args = container["args"][0].as_str().unwrap();
    assert!(args.contains("dxlane batch") && args.contains("$JOB_COMPLETION_INDEX"));
}

#[test]
fn the_github_matrix_has_one_job_per_shard_and_a_merge() {
    let (_, workflow) = yaml_documents();
    let shard = &workflow["jobs"]["shard"];
    let indexes = shard["strategy"]["matrix"]["index"].as_sequence().unwrap();
    assert_eq!(shard["strategy"]["fail-fast"], Value::from(false));
    let n = indexes.len();
    let runs: Vec<&str> = shard["steps"]
        .as_sequence()
        .unwrap()
        .iter()
        .filter_map(|s| s["run"].as_str())
        .collect();
    let batch = runs.iter().find(|r| r.contains("dxlane batch")).unwrap();
    assert!(
        batch.contains(&format!("--shard ${{{{ matrix.index }}}}/{n}")),
        "{batch}"
    );
    for (i, v) in indexes.iter().enumerate() {
        assert_eq!(v.as_u64(), Some(i as u64), "indexes count from 0");
    }
    let merge = &workflow["jobs"]["merge"];
    assert_eq!(merge["needs"], Value::from("shard"));
    assert_eq!(merge["if"], Value::from("always()"));
}

#[test]
fn the_slurm_script_is_valid_bash_and_the_options_exist() {
    let scripts: Vec<String> = blocks("sh");
    let sbatch = scripts
        .iter()
        .find(|s| s.starts_with("#!/bin/bash") && s.contains("#SBATCH --array="))
        .expect("the Slurm script");
    for script in &scripts {
        let o = Command::new("bash")
            .args(["-n", "-c", script])
            .output()
            .unwrap();
        assert!(
            o.status.success(),
            "{script}\n{}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    assert!(sbatch.contains("SLURM_ARRAY_TASK_ID"));
    // Every `--option` given to `dxlane batch` on the page is one it accepts.
    let help = |args: &[&str]| {
        let o = Command::new(env!("CARGO_BIN_EXE_dxlane"))
            .args(args)
            .output()
            .unwrap();
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let known = format!(
        "{}{}",
        help(&["batch", "--help"]),
        help(&["batch", "merge", "--help"])
    );
    let code: String = ["sh", "yaml", "text"]
        .iter()
        .flat_map(|l| blocks(l))
        .collect();
    let mut checked = 0;
    for line in code.lines().filter(|l| !l.trim_start().starts_with('#')) {
        for word in line.split_whitespace() {
            let word = word.trim_matches(|c: char| c == '`' || c == '\'' || c == ',');
            let Some(name) = word.strip_prefix("--") else {
                continue;
            };
            let name = name.split('=').next().unwrap();
            // Options of the other programs in the recipes (sbatch, cargo).
            if matches!(name, "parsable" | "dependency" | "wrap" | "path" | "locked") {
                continue;
            }
            if name.is_empty() || !name.chars().all(|c| c.is_ascii_lowercase() || c == '-') {
                continue;
            }
            assert!(
                known.contains(&format!("--{name}")),
                "--{name} (docs/scale.md: `{}`) is not a dxlane batch option",
                line.trim()
            );
            checked += 1;
        }
    }
    assert!(checked >= 15, "only {checked} options found on the page");
}
