//! `dxlane batch` end to end (issue 37, item 3): shards merged equal one unsharded run,
//! timeouts cut hanging cases, a child killed from outside is an infrastructure failure,
//! the cache gives the same results and is invalidated by a changed program, job or
//! dxlane, baselines, and malformed case lists are named by file and line.
//!
//! Each test works in its own folder under cargo's test temporary directory; the cases
//! are the repository's `examples/` (run and compare cases) and IR jobs written here.

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use crate::common;

fn workdir(name: &str) -> PathBuf {
    let dir = common::scratch().join("batch").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn dxlane(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args(args)
        // The scheduler's variables of the machine running the tests must not shard them.
        .env_remove("JOB_COMPLETION_INDEX")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("CI_NODE_INDEX")
        .output()
        .unwrap()
}

fn os(s: &str) -> &std::ffi::OsStr {
    std::ffi::OsStr::new(s)
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// A report's lines with every `"seconds":…` value (JSONL) and `time="…"` attribute
/// (JUnit) blanked: the only fields allowed to differ between runs.
fn without_timings(report: &str) -> String {
    let mut out = String::new();
    for line in report.lines() {
        let mut l = line.to_string();
        for (key, end) in [("\"seconds\":", '}'), ("time=\"", '"')] {
            let mut from = 0;
            while let Some(at) = l[from..].find(key) {
                let start = from + at + key.len();
                let stop = l[start..].find([end, ',']).map_or(l.len(), |e| start + e);
                l.replace_range(start..stop, "T");
                from = start + 1;
            }
        }
        out.push_str(&l);
        out.push('\n');
    }
    out
}

/// The JSONL results as (case, status) pairs.
fn statuses(jsonl: &Path) -> Vec<(String, String)> {
    std::fs::read_to_string(jsonl)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["case"].as_str().unwrap().to_string(),
                v["status"].as_str().unwrap().to_string(),
            )
        })
        .collect()
}

fn results(jsonl: &Path) -> Vec<serde_json::Value> {
    std::fs::read_to_string(jsonl)
        .unwrap()
        .lines()
        .skip(1)
        .map(|l| serde_json::from_str(l).unwrap())
        .collect()
}

/// The job `double.toml` of `tests/jobs/` and its program, copied into `dir`.
fn double_job(dir: &Path) {
    for f in ["double.toml", "double.ir"] {
        std::fs::copy(common::root().join("tests/jobs").join(f), dir.join(f)).unwrap();
    }
}

/// A job whose program never ends and whose budgets never stop it.
fn hanging_job(dir: &Path) {
    std::fs::copy(
        common::root().join("tests/jobs/loop.ir"),
        dir.join("loop.ir"),
    )
    .unwrap();
    std::fs::write(
        dir.join("hang.toml"),
        "[program]\ncs = \"loop.ir\"\n[dispatch]\ngroups = [1, 1, 1]\n[options]\n\
         max_lane_instructions = 9223372036854775807\n\
         max_total_lane_instructions = 9223372036854775807\n",
    )
    .unwrap();
}

/// Sharding (deqp-runner's static kind): three shard processes over `examples/` (run and
/// compare cases), merged, give the report of one unsharded run byte for byte, apart
/// from timings; every case is in exactly one shard.
#[test]
fn shards_merged_equal_one_unsharded_run() {
    let dir = workdir("shards");
    let examples = common::root().join("examples");
    let full = dir.join("full.jsonl");
    let full_xml = dir.join("full.xml");
    let o = dxlane(&[
        os("batch"),
        examples.as_os_str(),
        os("-j"),
        os("2"),
        os("--jsonl"),
        full.as_os_str(),
        os("--junit"),
        full_xml.as_os_str(),
    ]);
    // capture_demo-warp-1.0.13 differs on purpose (the explain example): status 1.
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let all = statuses(&full);
    assert!(all.len() >= 14, "{all:?}");
    assert!(all.iter().any(|(c, s)| c == "capture_demo" && s == "pass"));
    assert!(
        all.iter()
            .any(|(c, s)| c == "capture_demo-warp-1.0.13" && s == "fail")
    );
    let mut shard_files = Vec::new();
    let mut seen = 0;
    for i in 0..3 {
        let f = dir.join(format!("shard{i}.jsonl"));
        let o = dxlane(&[
            os("batch"),
            examples.as_os_str(),
            os("--shard"),
            os(&format!("{i}/3")),
            os("--jsonl"),
            f.as_os_str(),
        ]);
        assert!(matches!(o.status.code(), Some(0 | 1)), "{}", text(&o));
        seen += statuses(&f).len();
        shard_files.push(f);
    }
    assert_eq!(seen, all.len());
    let merged = dir.join("merged.jsonl");
    let merged_xml = dir.join("merged.xml");
    let mut args = vec![os("batch"), os("merge")];
    // Given out of order: the merge orders by case name.
    for f in shard_files.iter().rev() {
        args.push(f.as_os_str());
    }
    args.extend([
        os("--jsonl"),
        merged.as_os_str(),
        os("--junit"),
        merged_xml.as_os_str(),
    ]);
    let o = dxlane(&args);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let read = |p: &Path| without_timings(&std::fs::read_to_string(p).unwrap());
    assert_eq!(read(&merged), read(&full));
    assert_eq!(read(&merged_xml), read(&full_xml));
    // A missing shard is an infrastructure failure, named.
    let o = dxlane(&[
        os("batch"),
        os("merge"),
        shard_files[0].as_os_str(),
        shard_files[2].as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("shard(s) 1 of 3 missing"), "{}", text(&o));
}

/// A case that hangs is killed when its timeout passes and reported as `timeout`; the
/// batch goes on with the other cases.
#[test]
fn a_hanging_case_is_cut_by_its_timeout() {
    let dir = workdir("timeout");
    hanging_job(&dir);
    double_job(&dir);
    let report = dir.join("r.jsonl");
    let o = dxlane(&[
        os("batch"),
        dir.as_os_str(),
        os("--timeout"),
        os("1"),
        os("-j"),
        os("1"),
        os("--jsonl"),
        report.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    assert_eq!(
        statuses(&report),
        vec![
            ("double.toml".to_string(), "pass".to_string()),
            ("hang.toml".to_string(), "timeout".to_string())
        ]
    );
    // The run's outputs went to a temporary folder, not beside the job.
    assert!(!dir.join("out").exists());
}

/// A case's process killed by a signal the batch did not send is an infrastructure
/// failure (exit status 2, `infra-failure`), not a failed case.
#[cfg(target_os = "linux")]
#[test]
fn a_child_killed_from_outside_is_an_infrastructure_failure() {
    let dir = workdir("killed");
    hanging_job(&dir);
    let report = dir.join("r.jsonl");
    let mut batch = Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args([
            os("batch"),
            dir.as_os_str(),
            os("--jsonl"),
            report.as_os_str(),
        ])
        .env_remove("JOB_COMPLETION_INDEX")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("CI_NODE_INDEX")
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    // Find the batch's child in /proc (field 4 of /proc/PID/stat is the parent's id).
    let parent = batch.id();
    let mut child = None;
    for _ in 0..100_000 {
        for e in std::fs::read_dir("/proc").unwrap().flatten() {
            let Ok(stat) = std::fs::read_to_string(e.path().join("stat")) else {
                continue;
            };
            let after = stat.rsplit_once(") ").map_or("", |(_, a)| a);
            let ppid = after.split_whitespace().nth(1).unwrap_or("");
            if ppid == parent.to_string() {
                child = e.file_name().to_str().map(str::to_string);
            }
        }
        if child.is_some() || batch.try_wait().unwrap().is_some() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let child = child.expect("the batch started a child process");
    let killed = Command::new("kill").args(["-9", &child]).status().unwrap();
    assert!(killed.success());
    let out = batch.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(2), "{}", text(&out));
    let r = results(&report);
    assert_eq!(r.len(), 1);
    assert_eq!(r[0]["status"], "infra-failure");
    assert!(
        r[0]["message"].as_str().unwrap().contains("signal 9"),
        "{:?}",
        r[0]
    );
}

/// The cache returns the results a run gave (dxlane is deterministic) without running
/// the cases again, and runs a case again when its program, its job or dxlane changes.
#[test]
fn the_cache_gives_identical_results_and_is_invalidated_by_changes() {
    let dir = workdir("cache");
    let cases = dir.join("cases");
    std::fs::create_dir_all(&cases).unwrap();
    double_job(&cases);
    std::fs::copy(
        common::root().join("tests/jobs/f32tof16.ir"),
        cases.join("f32tof16.ir"),
    )
    .unwrap();
    // The example's job with its program as IR text.
    let example = std::fs::read_to_string(common::root().join("examples/f32tof16.toml"))
        .unwrap()
        .replace("../shaders/f32tof16.cs_5_0.dxbc", "f32tof16.ir");
    std::fs::write(cases.join("f32tof16.toml"), example).unwrap();
    let cache = dir.join("cache");
    let run = |report: &str, exe: &Path| -> Vec<serde_json::Value> {
        let report = dir.join(report);
        let o = Command::new(exe)
            .args([
                os("batch"),
                cases.as_os_str(),
                os("--cache"),
                cache.as_os_str(),
                os("--jsonl"),
                report.as_os_str(),
            ])
            .env_remove("JOB_COMPLETION_INDEX")
            .env_remove("SLURM_ARRAY_TASK_ID")
            .env_remove("CI_NODE_INDEX")
            .output()
            .unwrap();
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        results(&report)
    };
    let exe = PathBuf::from(env!("CARGO_BIN_EXE_dxlane"));
    // Cached results have no time: the case did not run.
    let ran = |r: &serde_json::Value| r["seconds"].as_f64().unwrap() > 0.0;
    let first = run("1.jsonl", &exe);
    assert_eq!(first.len(), 2);
    assert!(first.iter().all(ran));
    let second = run("2.jsonl", &exe);
    assert!(second.iter().all(|r| !ran(r)), "{second:?}");
    let strip = |v: &[serde_json::Value]| {
        v.iter()
            .map(|r| {
                let mut r = r.clone();
                r["seconds"] = 0.into();
                r
            })
            .collect::<Vec<_>>()
    };
    assert_eq!(strip(&first), strip(&second));
    // A changed program: only its case runs again.
    let ir = cases.join("double.ir");
    let program = std::fs::read_to_string(&ir).unwrap();
    std::fs::write(&ir, format!("; changed\n{program}")).unwrap();
    let third = run("3.jsonl", &exe);
    assert_eq!(
        third.iter().map(ran).collect::<Vec<_>>(),
        vec![true, false],
        "{third:?}"
    );
    // A changed job.
    let job = cases.join("f32tof16.toml");
    let text_of_job = std::fs::read_to_string(&job).unwrap();
    std::fs::write(&job, format!("# changed\n{text_of_job}")).unwrap();
    let fourth = run("4.jsonl", &exe);
    assert_eq!(
        fourth.iter().map(ran).collect::<Vec<_>>(),
        vec![false, true]
    );
    // Another dxlane build: an executable with other bytes reruns every case.
    let other = dir.join("dxlane-other");
    let mut bytes = std::fs::read(&exe).unwrap();
    bytes.push(0);
    std::fs::write(&other, bytes).unwrap();
    #[cfg(unix)]
    {
        use std::os::unix::fs::PermissionsExt;
        std::fs::set_permissions(&other, std::fs::Permissions::from_mode(0o755)).unwrap();
    }
    let fifth = run("5.jsonl", &other);
    assert!(fifth.iter().all(ran), "{fifth:?}");
    assert_eq!(strip(&fifth), strip(&first));
}

/// Baselines: an expected failure is `expected-fail` (status 0); a listed case that
/// passes is `unexpected-pass` (status 1); skipped cases do not run; a flaky case that
/// fails is run a second time.
#[test]
fn baselines_expected_failures_flakes_and_skips() {
    let dir = workdir("baselines");
    let examples = common::root().join("examples");
    let list = dir.join("cases.txt");
    std::fs::write(
        &list,
        format!(
            "# two compare cases\ncompare {0}/capture_demo.toml {0}/capture_demo-warp-1.0.13\n\
             compare {0}/capture_demo.toml {0}/capture_demo  timeout=60\n",
            examples.display()
        ),
    )
    .unwrap();
    let fails = dir.join("fails.txt");
    let flakes = dir.join("flakes.txt");
    let skips = dir.join("skips.txt");
    let report = dir.join("r.jsonl");
    let name = |n: &str| format!("{}/{n}", examples.display()).replace('\\', "/");
    std::fs::write(
        &fails,
        format!(
            "{},Fail  # explained by the profile\n",
            name("capture_demo-warp-1.0.13")
        ),
    )
    .unwrap();
    std::fs::write(&flakes, "").unwrap();
    std::fs::write(&skips, "").unwrap();
    let go = || {
        dxlane(&[
            os("batch"),
            list.as_os_str(),
            os("--expected-failures"),
            fails.as_os_str(),
            os("--flakes"),
            flakes.as_os_str(),
            os("--skips"),
            skips.as_os_str(),
            os("--jsonl"),
            report.as_os_str(),
        ])
    };
    let o = go();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let s = statuses(&report);
    assert_eq!(s[0].1, "pass");
    assert_eq!(s[1].1, "expected-fail");
    // The passing case listed as failing: unexpected-pass, status 1.
    std::fs::write(&fails, "*capture_demo\n").unwrap();
    std::fs::write(&flakes, "*1.0.13\n").unwrap();
    std::fs::write(&skips, "").unwrap();
    let o = go();
    assert_eq!(o.status.code(), Some(1), "{}", text(&o));
    let r = results(&report);
    assert_eq!(r[0]["status"], "unexpected-pass");
    assert_eq!(r[1]["status"], "fail");
    assert_eq!(r[1]["attempts"], 2, "a flaky case that fails runs twice");
    // Skips.
    std::fs::write(&fails, "").unwrap();
    std::fs::write(&skips, "*1.0.13\n").unwrap();
    let o = go();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let r = results(&report);
    assert_eq!(r[1]["status"], "skip");
    assert_eq!(r[1]["attempts"], 0);
}

/// Malformed case lists and baselines are errors naming the file and line, exit status
/// 2 (the run itself failed), never a panic; so are bad shards and a missing folder.
#[test]
fn malformed_inputs_are_named_by_file_and_line() {
    let dir = workdir("malformed");
    double_job(&dir);
    let cases: &[(&str, &str)] = &[
        (
            "run double.toml\nrun\n",
            "cases.txt:2: `run` takes a job file",
        ),
        (
            "double.toml\nrun missing.toml\n",
            "cases.txt:2: file `missing.toml` does not exist",
        ),
        (
            "# ok\n\ncompare double.toml\n",
            "cases.txt:3: `compare` takes a job file and a capture folder",
        ),
        ("double.toml timeout=-1\n", "cases.txt:1: timeout=\"-1\""),
        ("frobnicate x y\n", "cases.txt:1: `frobnicate x y`: give"),
        (
            "double.toml\ndouble.toml\n",
            "two cases are named `double.toml`",
        ),
        ("\u{0}\u{1}binary\n", "cases.txt:1:"),
    ];
    let list = dir.join("cases.txt");
    for (content, want) in cases {
        std::fs::write(&list, content).unwrap();
        let o = dxlane(&[os("batch"), list.as_os_str()]);
        let t = text(&o);
        assert_eq!(o.status.code(), Some(2), "{content:?}: {t}");
        assert!(t.contains(want), "{content:?}: wanted {want:?} in {t}");
    }
    std::fs::write(&list, [0xffu8, 0xfe, b'\n']).unwrap();
    let o = dxlane(&[os("batch"), list.as_os_str()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("not UTF-8"), "{}", text(&o));
    // A bad baseline line.
    std::fs::write(&list, "double.toml\n").unwrap();
    let fails = dir.join("fails.txt");
    std::fs::write(&fails, "double.toml,Maybe\n").unwrap();
    let o = dxlane(&[
        os("batch"),
        list.as_os_str(),
        os("--expected-failures"),
        fails.as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("fails.txt:1: status `Maybe`"),
        "{}",
        text(&o)
    );
    // Shards: a bad flag, and a scheduler index without its count.
    let o = dxlane(&[os("batch"), list.as_os_str(), os("--shard"), os("3/3")]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    let o = Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args([os("batch"), list.as_os_str()])
        .env("JOB_COMPLETION_INDEX", "1")
        .env_remove("DXLANE_SHARD_COUNT")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(text(&o).contains("DXLANE_SHARD_COUNT"), "{}", text(&o));
    // A broken report to merge.
    let bad = dir.join("bad.jsonl");
    std::fs::write(&bad, "{\"format\":\"dxlane-batch/1\",\"version\":\"0\",\"shard\":\"0/1\",\"all_cases\":1,\"cases\":1}\n{\"case\":\n").unwrap();
    let o = dxlane(&[os("batch"), os("merge"), bad.as_os_str()]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
    assert!(
        text(&o).contains("bad.jsonl:2: not a case result"),
        "{}",
        text(&o)
    );
    // A report that cannot be written (its folder is a file).
    let o = dxlane(&[
        os("batch"),
        list.as_os_str(),
        os("--jsonl"),
        dir.join("double.toml/r.jsonl").as_os_str(),
    ]);
    assert_eq!(o.status.code(), Some(2), "{}", text(&o));
}

/// The shard digest is stable: the same case lands on the same shard in every run (a
/// fixed expectation, so a change of digest is noticed: `--list` of shard 0 of 2).
#[test]
fn shard_assignment_is_stable() {
    let examples = common::root().join("examples");
    let list = |i: u32| {
        let o = dxlane(&[
            os("batch"),
            examples.as_os_str(),
            os("--list"),
            os("--shard"),
            os(&format!("{i}/2")),
        ]);
        assert_eq!(o.status.code(), Some(0), "{}", text(&o));
        String::from_utf8_lossy(&o.stdout).into_owned()
    };
    let (a, b) = (list(0), list(1));
    let names = |s: &str| -> Vec<String> {
        s.lines()
            .map(|l| l.split_once(' ').unwrap().1.to_string())
            .collect()
    };
    for n in names(&a) {
        let d = md5_first8(&n);
        assert_eq!(d % 2, 0, "{n}");
    }
    for n in names(&b) {
        assert_eq!(md5_first8(&n) % 2, 1, "{n}");
    }
    assert!(!names(&a).is_empty() && !names(&b).is_empty());
}

/// MD5 of the name, first 8 bytes big-endian (the digest `batch::shard` documents),
/// through the library's own function checked against RFC 1321 vectors in its unit tests.
fn md5_first8(name: &str) -> u64 {
    dxlane::batch::shard::case_digest(name)
}
