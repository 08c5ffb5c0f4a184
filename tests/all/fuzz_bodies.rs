//! The fuzz targets' bodies (`fuzz/bodies.rs`) run on mutated seeds — a compute job, a
//! draw job, a capture manifest, compute programs in the IR's text form — and on random
//! draw states, for a bounded number of cases (`PROPTEST_CASES`, 48 by default for
//! each), so every `cargo test` and CI fuzz them briefly without a nightly toolchain;
//! `cargo fuzz run <target>` fuzzes them for as long as one likes (`fuzz/README.md`). A case
//! passes when the body returns: the budgets and the gates turn every hostile job into an
//! error or a bounded run.

#[path = "../../fuzz/bodies.rs"]
pub(crate) mod bodies;

use std::path::PathBuf;
use std::sync::OnceLock;

use proptest::prelude::*;

use crate::common;

/// The folder the bodies run in, prepared once per test run.
fn dir(name: &str) -> PathBuf {
    let d = common::scratch().join("fuzz_bodies").join(name);
    let _ = std::fs::remove_dir_all(&d);
    bodies::prepare_dir(&d).unwrap();
    d
}

/// Numbers a mutation puts in place of a number of the seed: the edges of every
/// integer type a job reads, and floats that are not finite or not positive.
const NUMBERS: &[&str] = &[
    "0",
    "1",
    "-1",
    "3",
    "65535",
    "65536",
    "4294967295",
    "4294967296",
    "1000000000",
    "30000000",
    "18446744073709551615",
    "1e300",
    "nan",
    "-0.0",
    "0.000001",
];

/// Keys a mutation renames another key to (each a key of some section).
const KEYS: &[&str] = &[
    "size",
    "output",
    "outputs",
    "file",
    "vertex_count",
    "instance_count",
    "index_count",
    "width",
    "height",
    "samples",
    "groups",
    "stride",
    "offset",
    "max_memory",
    "max_seconds",
    "summary",
    "layout",
    "row_pitch",
    "resolve_output",
];

/// Paths a mutation puts in place of a string of the seed.
const PATHS: &[&str] = &[
    "../escape.bin",
    "/tmp/escape.bin",
    "/dev/zero",
    "out/../../escape.bin",
    ".",
    "",
    "cap/u0.bin",
    "double.ir",
];

#[derive(Debug, Clone)]
enum Mutation {
    /// Set byte `at` (modulo the length) to `value`.
    Byte { at: usize, value: u8 },
    /// Remove `len` bytes at `at`.
    Cut { at: usize, len: usize },
    /// Repeat the line at `at`.
    DupLine { at: usize },
    /// Replace the `n`-th number with `NUMBERS[k]`.
    Number { n: usize, k: usize },
    /// Replace the `n`-th key with `KEYS[k]`.
    Key { n: usize, k: usize },
    /// Replace the `n`-th string with `PATHS[k]`.
    Path { n: usize, k: usize },
}

fn mutation() -> impl Strategy<Value = Mutation> {
    prop_oneof![
        (any::<usize>(), any::<u8>()).prop_map(|(at, value)| Mutation::Byte { at, value }),
        (any::<usize>(), 0usize..16).prop_map(|(at, len)| Mutation::Cut { at, len }),
        any::<usize>().prop_map(|at| Mutation::DupLine { at }),
        (any::<usize>(), 0..NUMBERS.len()).prop_map(|(n, k)| Mutation::Number { n, k }),
        (any::<usize>(), 0..KEYS.len()).prop_map(|(n, k)| Mutation::Key { n, k }),
        (any::<usize>(), 0..PATHS.len()).prop_map(|(n, k)| Mutation::Path { n, k }),
    ]
}

/// The byte ranges of the tokens `is_token` picks out (runs of the bytes it accepts).
fn tokens(text: &[u8], is_token: impl Fn(u8) -> bool) -> Vec<(usize, usize)> {
    let mut out = Vec::new();
    let mut start = None;
    for (i, &b) in text.iter().chain(std::iter::once(&b'\n')).enumerate() {
        match (start, is_token(b)) {
            (None, true) => start = Some(i),
            (Some(s), false) => {
                out.push((s, i));
                start = None;
            }
            _ => {}
        }
    }
    out
}

fn replace_nth(text: &mut Vec<u8>, spans: &[(usize, usize)], n: usize, with: &str) {
    if spans.is_empty() {
        return;
    }
    let (s, e) = spans[n % spans.len()];
    text.splice(s..e, with.bytes());
}

fn apply(seed: &str, ms: &[Mutation]) -> Vec<u8> {
    let mut t = seed.as_bytes().to_vec();
    for m in ms {
        let len = t.len().max(1);
        match *m {
            Mutation::Byte { at, value } => {
                if let Some(b) = t.get_mut(at % len) {
                    *b = value;
                }
            }
            Mutation::Cut { at, len: n } => {
                let s = at % len;
                let e = (s + n).min(t.len());
                if s < e {
                    t.drain(s..e);
                }
            }
            Mutation::DupLine { at } => {
                let lines = tokens(&t, |b| b != b'\n');
                if !lines.is_empty() {
                    let (s, e) = lines[at % lines.len()];
                    let mut line = t[s..e].to_vec();
                    line.push(b'\n');
                    t.splice(s..s, line);
                }
            }
            Mutation::Number { n, k } => {
                let spans = tokens(&t, |b| b.is_ascii_digit() || b == b'.');
                replace_nth(&mut t, &spans, n, NUMBERS[k]);
            }
            Mutation::Key { n, k } => {
                // A key: a run of letters and `_` at the start of a line.
                let spans: Vec<_> = tokens(&t, |b| b.is_ascii_lowercase() || b == b'_')
                    .into_iter()
                    .filter(|&(s, _)| s == 0 || t[s - 1] == b'\n')
                    .collect();
                replace_nth(&mut t, &spans, n, KEYS[k]);
            }
            Mutation::Path { n, k } => {
                let quotes: Vec<usize> = t
                    .iter()
                    .enumerate()
                    .filter(|&(_, &b)| b == b'"')
                    .map(|(i, _)| i)
                    .collect();
                let spans: Vec<_> = quotes
                    .chunks(2)
                    .filter(|c| c.len() == 2)
                    .map(|c| (c[0] + 1, c[1]))
                    .collect();
                replace_nth(&mut t, &spans, n, PATHS[k]);
            }
        }
    }
    t
}

fn cases() -> u32 {
    std::env::var("PROPTEST_CASES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(48)
}

/// Nothing the bodies write leaves their folder: `../escape.bin` and `/tmp/escape.bin`
/// never appear (the paths the mutations plant).
fn nothing_escaped(d: &std::path::Path) {
    assert!(!d.parent().unwrap().join("escape.bin").exists());
    assert!(!d.join("escape.bin").exists());
}

fn job_dir() -> &'static PathBuf {
    static D: OnceLock<PathBuf> = OnceLock::new();
    D.get_or_init(|| dir("jobs"))
}

/// The folder of the ray tracing seed: the corpus's `ray_tracing` library exports copied
/// beside the job; `None` without the corpora.
fn rays_dir() -> Option<&'static PathBuf> {
    static D: OnceLock<Option<PathBuf>> = OnceLock::new();
    D.get_or_init(|| {
        let d = dir("rays");
        for export in ["raygen", "miss", "closest_hit", "callable"] {
            let name = format!("ray_tracing.{export}.dxil");
            // Without the corpora (`DXLANE_NO_CORPORA`, which `corpora()` reports) the
            // seed is not run; with them, a missing library is a failure.
            if common::corpora().is_empty() {
                return None;
            }
            let from = common::corpora()
                .iter()
                .map(|c| c.join(&name))
                .find(|p| p.is_file())
                .unwrap_or_else(|| panic!("{name} is not in the fetched corpora"));
            std::fs::copy(from, d.join(format!("{export}.dxil"))).unwrap();
        }
        Some(d)
    })
    .as_ref()
}

fn capture_dir() -> &'static PathBuf {
    static D: OnceLock<PathBuf> = OnceLock::new();
    D.get_or_init(|| dir("captures"))
}

proptest! {
    #![proptest_config(ProptestConfig { cases: cases(), failure_persistence: None, ..ProptestConfig::default() })]

    /// Mutated compute jobs: refused or run, within their budgets.
    #[test]
    fn mutated_compute_jobs_are_refused_or_run(ms in proptest::collection::vec(mutation(), 1..6)) {
        let d = job_dir();
        bodies::job_file(d, &apply(bodies::COMPUTE_SEED, &ms));
        nothing_escaped(d);
    }

    /// Mutated offload pipelines: refused with a named error, or run.
    #[test]
    fn mutated_offload_pipelines_are_refused_or_run(ms in proptest::collection::vec(mutation(), 1..6)) {
        let d = job_dir();
        bodies::offload_pipeline(d, &apply(bodies::OFFLOAD_SEED, &ms));
        nothing_escaped(d);
    }

    /// Mutated vkd3d shader-test files: refused naming the line, or read and run.
    #[test]
    fn mutated_shader_test_files_are_refused_or_read(ms in proptest::collection::vec(mutation(), 1..6)) {
        let d = job_dir();
        bodies::shader_test_file(d, &apply(bodies::SHADER_TEST_SEED, &ms));
        nothing_escaped(d);
    }

    /// Mutated batch case lists (read also as baselines): refused naming the line, or read.
    #[test]
    fn mutated_batch_lists_are_refused_or_read(ms in proptest::collection::vec(mutation(), 1..6)) {
        let d = job_dir();
        bodies::batch_lists(d, &apply(bodies::BATCH_SEED, &ms));
        nothing_escaped(d);
    }

    /// Mutated command lists: refused or run, within their budgets.
    #[test]
    fn mutated_command_lists_are_refused_or_run(ms in proptest::collection::vec(mutation(), 1..6)) {
        let d = job_dir();
        bodies::job_file(d, &apply(bodies::LIST_SEED, &ms));
        nothing_escaped(d);
    }

    /// Mutated ray tracing jobs (`[rays]`, acceleration structures): refused or run,
    /// within their budgets.
    #[test]
    fn mutated_rays_jobs_are_refused_or_run(ms in proptest::collection::vec(mutation(), 1..6)) {
        if let Some(d) = rays_dir() {
            bodies::job_file(d, &apply(bodies::RAYS_SEED, &ms));
            nothing_escaped(d);
        }
    }

    /// Mutated draw jobs: refused or drawn, within their budgets.
    #[test]
    fn mutated_draw_jobs_are_refused_or_drawn(ms in proptest::collection::vec(mutation(), 1..6)) {
        let d = job_dir();
        bodies::job_file(d, &apply(bodies::DRAW_SEED, &ms));
        nothing_escaped(d);
    }

    /// Mutated programs in the IR's text form: refused by the parser or the validator,
    /// or run by the interpreter to an error or the end.
    #[test]
    fn mutated_programs_are_refused_or_interpreted(
        seed in 0..bodies::INTERPRETER_SEEDS.len(),
        knobs in any::<u8>(),
        ms in proptest::collection::vec(mutation(), 1..6),
    ) {
        let mut data = vec![knobs];
        data.extend(apply(bodies::INTERPRETER_SEEDS[seed], &ms));
        bodies::interpreter(&data);
    }

    /// Random draw states given straight to the pipeline: refused or drawn.
    #[test]
    fn random_draw_states_are_refused_or_drawn(data in proptest::collection::vec(any::<u8>(), 0..400)) {
        bodies::draw_state(&data);
    }

    /// Debug Adapter Protocol sessions whose requests are mutated, reordered or
    /// dropped, framed correctly: each answered or refused.
    #[test]
    fn mutated_dap_sessions_are_answered(
        order in proptest::collection::vec(0..bodies::DAP_REQUESTS.len(), 1..20),
        which in any::<usize>(),
        ms in proptest::collection::vec(mutation(), 1..6),
    ) {
        let mut msgs: Vec<Vec<u8>> =
            order.iter().map(|&k| bodies::DAP_REQUESTS[k].as_bytes().to_vec()).collect();
        let k = which % msgs.len();
        msgs[k] = apply(bodies::DAP_REQUESTS[order[k]], &ms);
        bodies::dap_stream(&bodies::dap_frame(&msgs));
    }

    /// The framing itself mutated: a broken header or length ends the session with an
    /// error, never a panic.
    #[test]
    fn mutated_dap_streams_are_answered(ms in proptest::collection::vec(mutation(), 1..6)) {
        let seed = String::from_utf8(bodies::dap_frame(bodies::DAP_REQUESTS)).unwrap();
        bodies::dap_stream(&apply(&seed, &ms));
    }

    /// Mutated capture manifests: refused naming the entry or byte, or compared.
    #[test]
    fn mutated_manifests_are_refused_or_compared(ms in proptest::collection::vec(mutation(), 1..6)) {
        let d = capture_dir();
        bodies::capture_manifest(d, &apply(bodies::MANIFEST_SEED, &ms));
        nothing_escaped(d);
    }
}

/// The seeds themselves run: the mutations start from jobs and a manifest that work.
#[test]
fn the_seeds_run() {
    let d = dir("seeds");
    let job = dxlane::job::Job::from_text(bodies::COMPUTE_SEED, &d.join("job.toml")).unwrap();
    let r = dxlane::job::prepare(job, &crate::common::run_options())
        .unwrap()
        .execute(&crate::common::run_options())
        .unwrap();
    assert_eq!(r.exit_code(), 0);
    let job = dxlane::job::Job::from_text(bodies::DRAW_SEED, &d.join("draw.toml")).unwrap();
    let r = dxlane::job::run_draw_job(job, &crate::common::run_options()).unwrap();
    assert_eq!(r.exit_code(), 0, "{:?}", r.summary.expectations);
    let job = dxlane::job::Job::from_text(bodies::LIST_SEED, &d.join("list.toml")).unwrap();
    let r = dxlane::job::prepare(job, &crate::common::run_options())
        .unwrap()
        .execute(&crate::common::run_options())
        .unwrap();
    assert_eq!(r.exit_code(), 0, "the command-list seed");
    if let Some(rd) = rays_dir() {
        let job = dxlane::job::Job::from_text(bodies::RAYS_SEED, &rd.join("rays.toml")).unwrap();
        let r = dxlane::job::prepare(job, &crate::common::run_options())
            .unwrap()
            .execute(&crate::common::run_options())
            .unwrap();
        assert_eq!(r.exit_code(), 0, "the ray tracing seed");
    }
    std::fs::write(d.join("cap/capture.toml"), bodies::MANIFEST_SEED).unwrap();
    let report = dxlane::capture::compare_job(
        &d.join("seed.toml"),
        &d.join("cap"),
        &dxlane::capture::CompareOptions {
            no_images: true,
            ..Default::default()
        },
    )
    .unwrap();
    assert_eq!(report.exit_code(), 0);
}

/// The shader-test and batch-list seeds are read whole: the file's sections and every
/// `[test]` command, and the list's four cases.
#[test]
fn the_shader_test_and_batch_seeds_read() {
    let d = dir("list-seeds");
    let test =
        dxlane::shader_test::parse::parse(bodies::SHADER_TEST_SEED, &d.join("f.shader_test"))
            .unwrap();
    let mut commands = 0;
    for s in &test.sections {
        if s.kind == dxlane::shader_test::parse::SectionKind::Test {
            for (_, line) in &s.body {
                let (_, rest) = dxlane::shader_test::parse::split_qualifiers(line).unwrap();
                dxlane::shader_test::run::parse_command(rest).unwrap();
                commands += 1;
            }
        }
    }
    assert!(commands >= 10, "{commands} commands");
    let list = d.join("cases.txt");
    bodies::prepare_batch_dir(&d).unwrap();
    std::fs::write(&list, bodies::BATCH_SEED).unwrap();
    let mut cases = Vec::new();
    dxlane::batch::case::read_list(&list, &mut cases).unwrap();
    assert_eq!(cases.len(), 4);
}

/// The DAP seed session reaches the handlers: the launch opens a lane, the breakpoint
/// is verified, and every request is answered successfully.
#[test]
fn the_dap_seed_session_runs() {
    use dxlane::debug::dap;
    let mut out = Vec::new();
    let launch = Box::new(|_: &dap::LaunchArgs| {
        let shader = dxlane::ir::parse_shader(bodies::DAP_PROGRAM).unwrap();
        let t = dxlane::debug::Target::new(
            dxlane::debug::Program::from_ir(shader),
            dxlane::pipeline::Bindings::default(),
            [1, 1, 1],
            dxlane::pipeline::Plan::default(),
        )
        .unwrap();
        dxlane::debug::Debugger::open(
            t,
            dxlane::debug::LaneSelect::Thread([2, 0, 0]),
            dxlane::debug::DebugOptions::default(),
        )
        .map_err(|e| e.to_string())
    });
    let data = bodies::dap_frame(bodies::DAP_REQUESTS);
    dap::serve(&mut std::io::Cursor::new(data), &mut out, launch).unwrap();
    let mut r = std::io::Cursor::new(out);
    let mut responses = 0;
    while let Some(m) = dap::wire::read_message(&mut r).unwrap() {
        let v: serde_json::Value = serde_json::from_slice(&m).unwrap();
        if v["type"] == "response" {
            assert_eq!(v["success"], true, "{v}");
            responses += 1;
        }
        if v["command"] == "setBreakpoints" {
            assert_eq!(v["body"]["breakpoints"][0]["verified"], true, "{v}");
        }
    }
    assert_eq!(responses, bodies::DAP_REQUESTS.len());
    // The fuzz body runs the same stream.
    bodies::dap_stream(&bodies::dap_frame(bodies::DAP_REQUESTS));
}

/// The interpreter's seeds parse, validate and run to the end with the body's bindings,
/// so the mutations start from programs that reach the interpreter.
#[test]
fn the_interpreter_seeds_run() {
    use dxlane::ir::{parse_shader, validate};
    for (i, text) in bodies::INTERPRETER_SEEDS.iter().enumerate() {
        let shader = parse_shader(text).unwrap_or_else(|e| panic!("seed {i}: {e}"));
        validate(&shader).unwrap_or_else(|e| panic!("seed {i}: {e}"));
        assert_eq!(shader.stage, dxlane::ir::Stage::Compute, "seed {i}");
        let mut data = vec![0u8];
        data.extend_from_slice(text.as_bytes());
        bodies::interpreter(&data);
    }
}

/// Random draw states reach the rasterizer, not only the state checks: of 300 seeded
/// byte strings, at least a fifth draw without an error (the rest are refused, as the
/// bytes ask for a mismatched depth view, an empty buffer or a zero instance count).
#[test]
fn random_draw_states_mostly_draw() {
    let mut x = 0x2545_f491_4f6c_dd1du64;
    let mut drew = 0;
    for _ in 0..300 {
        let data: Vec<u8> = (0..400)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                x as u8
            })
            .collect();
        drew += usize::from(bodies::draw_state(&data));
    }
    assert!(drew >= 60, "only {drew} of 300 random draw states drew");
}
