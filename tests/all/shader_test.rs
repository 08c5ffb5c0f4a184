//! `dxlane shader-test` end to end (issue 37, item 2): the vkd3d-format files written for
//! dxlane in `tests/shader_test/` run under SM 4.0–5.1 with the probes and outcomes stated
//! here by hand; a wrong probe, a `fail` section that compiles and an unmet requirement
//! are reported as such; malformed files are named by file and line (exit 2); `dxlane
//! batch` runs shader-test files as cases.
//!
//! The format's rules are those of vkd3d's `tests/shader_runner.c`; SM 6.0 runs need
//! `dxc`, which these tests do not ask for (its runs are left out of the models run).

use std::path::{Path, PathBuf};
use std::process::{Command, Output};

use dxlane::shader_test::{Outcome, RunConfig, parse_file, run_file};

use crate::common;

/// The SM 4–5 models, the ones vkd3d-compiler builds.
const MODELS: [u32; 4] = [40, 41, 50, 51];

fn config(compiler: std::ffi::OsString) -> RunConfig {
    RunConfig {
        threads: Some(1),
        models: Some(MODELS.to_vec()),
        vkd3d_compiler: Some(PathBuf::from(compiler)),
        ..RunConfig::default()
    }
}

fn workdir(name: &str) -> PathBuf {
    let dir = common::scratch().join("shader_test").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn dxlane(args: &[&std::ffi::OsStr]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args(args)
        .env_remove("JOB_COMPLETION_INDEX")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("CI_NODE_INDEX")
        .output()
        .unwrap()
}

fn text(o: &Output) -> String {
    format!(
        "status {:?}\nstdout:\n{}\nstderr:\n{}",
        o.status,
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    )
}

/// Per model 4.0, 4.1, 5.0, 5.1: `Some((probes passed, todo))` for a pass, `None` for a
/// skip.
type PerModel = [Option<(usize, usize)>; 4];

/// (file, per model 4.0, 4.1, 5.0, 5.1: `Some((probes passed, todo))` for a pass, `None`
/// for a skip). Counted by hand from the files: every probe line that applies to the
/// model, `if(...)` lines whose condition is false for dxlane left out, the one
/// deliberately wrong `todo(dxlane)` probe of draw.shader_test counted as todo.
const EXPECTED: &[(&str, PerModel)] = &[
    // 8 probes of the three draws into layers 1, 2 and 0 of a render-target array
    // (SV_RenderTargetArrayIndex from the vertex program), 1 of the texture array read
    // by layer.
    ("arrays.shader_test", [Some((9, 0)); 4]),
    // `shader model >= 5.0`: nothing applies to SM 4; 7 probes, then 1 after the second
    // dispatch.
    (
        "compute.shader_test",
        [None, None, Some((8, 0)), Some((8, 0))],
    ),
    ("depth.shader_test", [Some((6, 0)); 4]),
    // 6 + 1 (`if(dxlane)`) rgba probes on the first target, 4 on the second program, 5
    // on the uint target; `if(glsl)` not run; the `todo(dxlane)` probe fails as todo.
    ("draw.shader_test", [Some((14, 1)); 4]),
    // 6 probes of three draws over one depth buffer (each sees the one before), 6 of
    // the depth-bounds test, 4 of viewport 0 and 4 of viewport 1 chosen by the vertex
    // program.
    ("draws.shader_test", [Some((20, 0)); 4]),
    // One effect compiles, one `fail` effect fails (its test read past), one `todo`
    // effect fails as todo; then 1 probe of the pixel program.
    ("effect.shader_test", [Some((1, 1)); 4]),
    // 3 probes of the two triangles coloured by SV_PrimitiveID, 8 of the two points
    // expanded to quads (D3D11.3 §13).
    ("geometry.shader_test", [Some((11, 0)); 4]),
    // `dxbc-tpf-hex` sections of every stage (SM 5.0 to 5.1 only): 2 probes of the vertex
    // and pixel programs, 4 with the geometry program, 4 with the hull and domain
    // programs too, 3 of the compute program's UAV.
    (
        "hex.shader_test",
        [None, None, Some((13, 0)), Some((13, 0))],
    ),
    // SM 4.x: the first [require] block (one probe); SM 5.x: the second (one probe).
    // `shader model >= 4.1`: nothing applies to SM 4.0; 7 probes of the multisampled
    // target and texture; SM 5 adds the two counter programs, which vkd3d-compiler 2.1
    // cannot build: two `todo` compiles and two `todo` dispatches.
    (
        "multisample.shader_test",
        [None, Some((7, 0)), Some((7, 4)), Some((7, 4))],
    ),
    ("require.shader_test", [Some((1, 0)); 4]),
    // 15 probes of the two render targets and the point and line draws; SM 5 adds the
    // `float64` block's three `rd` probes and one `fail` probe that fails as stated.
    (
        "resources.shader_test",
        [Some((15, 0)), Some((15, 0)), Some((18, 1)), Some((18, 1))],
    ),
    // 1 probe after the `%` line, none after the `fail` shader (its test is read past),
    // 1 of the back face, 3 of the two targets, 1 of the multisampled read, 1 of the
    // `backcompat` half global, 1 of the buffer without a format, 1 of the column-major
    // matrix; SM 5 adds the 2 of the raw buffer.
    (
        "runner.shader_test",
        [Some((9, 0)), Some((9, 0)), Some((11, 0)), Some((11, 0))],
    ),
    // `tessellation-shader`: nothing applies to SM 4; 4 probes of the two quad patches.
    (
        "tessellation.shader_test",
        [None, None, Some((4, 0)), Some((4, 0))],
    ),
    ("texture.shader_test", [Some((6, 0)); 4]),
];

#[test]
fn hand_written_files_give_their_stated_probes() {
    let Some(compiler) = common::vkd3d_compiler("the shader-test files") else {
        return;
    };
    let cfg = config(compiler);
    let dir = common::root().join("tests/shader_test");
    let mut found: Vec<String> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".shader_test"))
        .collect();
    found.sort();
    let listed: Vec<&str> = EXPECTED.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        found, listed,
        "every file in tests/shader_test has its expectation here"
    );
    for (name, per_model) in EXPECTED {
        let test = parse_file(&dir.join(name)).unwrap();
        let reports = run_file(&test, &cfg);
        assert_eq!(reports.len(), MODELS.len());
        for (r, want) in reports.iter().zip(per_model) {
            let got = match r.outcome {
                Outcome::Pass => Some((r.probes_passed, r.todo)),
                Outcome::Skip => None,
                Outcome::Fail => panic!("{name} sm {}: failed: {:?}", r.model, r.failures),
            };
            assert_eq!(got, *want, "{name} sm {}: {r:?}", r.model);
        }
    }
}

/// vkd3d's runner compiles an `[effect]` section with fx_4_0, fx_4_1 or fx_5_0 for SM 4.0,
/// 4.1 and 5.0 (`compile_shader`'s `effect_models` in `tests/shader_runner.c`); it names
/// none for 5.1, where dxlane uses fx_5_0. An effect that does not compile, without
/// `fail` or `todo`, fails the run naming its line and profile.
#[test]
fn effect_sections_compile_with_the_fx_profile_of_the_model() {
    let Some(compiler) = common::vkd3d_compiler("the shader-test effect sections") else {
        return;
    };
    let cfg = config(compiler);
    let dir = workdir("effect_profile");
    let path = dir.join("case.shader_test");
    std::fs::write(&path, "[effect]\ntechnique10 t {\n").unwrap();
    let test = parse_file(&path).unwrap();
    let reports = run_file(&test, &cfg);
    let profiles = ["fx_4_0", "fx_4_1", "fx_5_0", "fx_5_0"];
    assert_eq!(reports.len(), profiles.len());
    for (r, p) in reports.iter().zip(profiles) {
        assert_eq!(r.outcome, Outcome::Fail, "{r:?}");
        assert!(
            r.failures[0].starts_with(&format!("line 1: [effect] under {p} did not compile")),
            "{r:?}"
        );
    }
}

/// Runs `source` (written to a file in `dir`) and returns the SM 5.0 report.
fn run_source(dir: &Path, source: &str, cfg: &RunConfig) -> dxlane::shader_test::RunReport {
    let path = dir.join("case.shader_test");
    std::fs::write(&path, source).unwrap();
    let test = parse_file(&path).unwrap();
    let cfg = RunConfig {
        models: Some(vec![50]),
        ..cfg.clone()
    };
    run_file(&test, &cfg).remove(0)
}

const RED: &str = "[pixel shader]\nfloat4 main() : sv_target\n{\n    return float4(1, 0, 0, 1);\n}\n\n[test]\ndraw quad\n";

#[test]
fn a_wrong_probe_fails_naming_its_line_and_the_value_read() {
    let Some(compiler) = common::vkd3d_compiler("the shader-test failure cases") else {
        return;
    };
    let cfg = config(compiler);
    let dir = workdir("wrong_probe");
    // Line 9: the probe; (0, 0) holds (1, 0, 0, 1), not (0, 1, 0, 1).
    let r = run_source(
        &dir,
        &format!("{RED}probe all rgba (0.0, 1.0, 0.0, 1.0)\n"),
        &cfg,
    );
    assert_eq!(r.outcome, Outcome::Fail, "{r:?}");
    assert!(r.failures[0].starts_with("line 9: "), "{r:?}");
    assert!(
        r.failures[0].contains("(0, 0) is (1.0, 0.0, 0.0, 1.0)"),
        "{r:?}"
    );
    // Within the tolerance: 1.0000001 is 1 ulp above 1.0, so `1` passes and `0` fails.
    let r = run_source(
        &dir,
        &format!("{RED}probe all rgba (1.0000001, 0.0, 0.0, 1.0) 1\n"),
        &cfg,
    );
    assert_eq!(r.outcome, Outcome::Pass, "{r:?}");
    let r = run_source(
        &dir,
        &format!("{RED}probe all rgba (1.0000001, 0.0, 0.0, 1.0)\n"),
        &cfg,
    );
    assert_eq!(r.outcome, Outcome::Fail, "{r:?}");
    // `fail(sm>=5)` on a probe that fails: not a failure, counted as todo.
    let r = run_source(
        &dir,
        &format!("{RED}fail(sm>=5) probe all rgba (0.0, 0.0, 0.0, 0.0)\n"),
        &cfg,
    );
    assert_eq!((r.outcome, r.todo), (Outcome::Pass, 1), "{r:?}");
    // `if(!dxlane)`: not run by dxlane, so its wrong value is never checked.
    let r = run_source(
        &dir,
        &format!("{RED}if(!dxlane) probe all rgba (0.0, 0.0, 0.0, 0.0)\n"),
        &cfg,
    );
    assert_eq!((r.outcome, r.probes_passed), (Outcome::Pass, 0), "{r:?}");
}

/// vkd3d's reader (tests/shader_runner.c) drops every line that starts with `%`, in any
/// section: a comment closing a shader section never reaches the compiler. Blank lines
/// stay in shaders (compiler messages keep their line numbers).
#[test]
fn comment_lines_are_dropped_inside_shader_sections() {
    let t = dxlane::shader_test::parse::parse(
        "[pixel shader]\nfloat4 main() : sv_target { return 0; }\n\n% about the next section\n[test]\ndraw quad\n",
        Path::new("c.shader_test"),
    )
    .unwrap();
    let body: Vec<(usize, &str)> = t.sections[0]
        .body
        .iter()
        .map(|(n, l)| (*n, l.as_str()))
        .collect();
    assert_eq!(
        body,
        [(2, "float4 main() : sv_target { return 0; }"), (3, "")]
    );
}

/// vkd3d's runner reads a probe's tolerance with `sscanf("%u")`: text after the values
/// that is not a number (vkd3d's tests/hlsl/function-return.shader_test ends a probe with
/// `;`) leaves the tolerance at 0, and digits are read up to the first other character.
#[test]
fn text_after_a_probe_is_read_as_vkd3d_reads_it() {
    use dxlane::shader_test::run::parse_command;
    let plain = parse_command("probe all rgba (0.2, 0.1, 0.8, 0.5)").unwrap();
    assert_eq!(
        parse_command("probe all rgba (0.2, 0.1, 0.8, 0.5);").unwrap(),
        plain
    );
    assert_eq!(
        parse_command("probe all rgba (0.2, 0.1, 0.8, 0.5) 0").unwrap(),
        plain
    );
    assert_eq!(
        parse_command("probe all rgba (0.2, 0.1, 0.8, 0.5) 4;").unwrap(),
        parse_command("probe all rgba (0.2, 0.1, 0.8, 0.5) 4").unwrap()
    );
    assert_ne!(
        parse_command("probe all rgba (0.2, 0.1, 0.8, 0.5) 4").unwrap(),
        plain
    );
    assert!(parse_command("probe all rgba (0.2, 0.1, 0.8, 0.5) 99999999999").is_err());
}

#[test]
fn compile_expectations_and_requirements() {
    let Some(compiler) = common::vkd3d_compiler("the shader-test failure cases") else {
        return;
    };
    let cfg = config(compiler);
    let dir = workdir("compile");
    // A `fail` section that compiles is a failure naming its header line.
    let r = run_source(
        &dir,
        "[pixel shader fail]\nfloat4 main() : sv_target { return 1; }\n",
        &cfg,
    );
    assert_eq!(r.outcome, Outcome::Fail, "{r:?}");
    assert!(r.failures[0].starts_with("line 1: "), "{r:?}");
    assert!(r.failures[0].contains("must fail"), "{r:?}");
    // A section that does not compile is a failure; under `todo` it is counted as todo.
    let broken = "float4 main() : sv_target { return nothing_declared; }\n";
    let r = run_source(&dir, &format!("[pixel shader]\n{broken}"), &cfg);
    assert_eq!(r.outcome, Outcome::Fail, "{r:?}");
    assert!(r.failures[0].contains("did not compile"), "{r:?}");
    // With the compiler's own message.
    assert!(r.failures[0].contains("nothing_declared"), "{r:?}");
    let r = run_source(&dir, &format!("[pixel shader todo]\n{broken}"), &cfg);
    assert_eq!((r.outcome, r.todo), (Outcome::Pass, 1), "{r:?}");
    // A requirement dxlane's runner does not meet skips the run, naming it and its line.
    let r = run_source(&dir, &format!("[require]\nrov\n\n{RED}"), &cfg);
    assert_eq!(r.outcome, Outcome::Skip, "{r:?}");
    let why = r.skipped.unwrap();
    assert!(why.contains("line 2") && why.contains("rov"), "{why}");
    // A command word the runner does not carry out (a later vkd3d release's, or a
    // patch-list draw) skips the run at that line; the probes before it were checked.
    let r = run_source(
        &dir,
        &format!("{RED}probe all rgba (1.0, 0.0, 0.0, 1.0)\nfrobnicate 1 2\n"),
        &cfg,
    );
    assert_eq!((r.outcome, r.probes_passed), (Outcome::Skip, 1), "{r:?}");
    assert!(r.skipped.unwrap().contains("line 10: `frobnicate 1 2`"));
    // A size that would need more than the runner allows is refused before allocating,
    // naming its line.
    let r = run_source(
        &dir,
        &format!("[rtv 0]\nformat r32g32b32a32 float\nsize (2d, 16384, 16384)\n\n{RED}"),
        &cfg,
    );
    assert_eq!(r.outcome, Outcome::Fail, "{r:?}");
    assert!(r.failures[0].starts_with("line 3: size: "), "{r:?}");
    assert!(r.failures[0].contains("256 MiB"), "{r:?}");
    // Out of the model range: nothing runs, said so.
    let r = run_source(
        &dir,
        &format!("[require]\nshader model < 5.0\n\n{RED}"),
        &cfg,
    );
    assert_eq!(r.outcome, Outcome::Skip, "{r:?}");
    assert!(r.skipped.unwrap().contains("shader model 5.0"));
}

#[test]
fn malformed_files_are_named_by_file_and_line() {
    let dir = workdir("malformed");
    let cases: &[(&str, &str, &str)] = &[
        (
            "[test]\ndraw quad\nprobe all rgba (1, 2, 3)\n",
            ":3: ",
            "takes 4 value(s)",
        ),
        ("[test]\nuniform 0 float4 1 2\n", ":2: ", "takes 4 value(s)"),
        ("[test]\ndispatch 1 1\n", ":2: ", "three group counts"),
        ("[test]\ndraw hexagon list 3\n", ":2: ", "topology"),
        (
            "[test]\ndraw 5 control point patch list 5\n",
            ":2: ",
            "N control point patch list with N from 1 to 4",
        ),
        (
            "[test]\nif probe all r (1)\n",
            ":2: ",
            "condition in parentheses",
        ),
        ("[test]\ntodo(sm~5) probe all r (1)\n", ":2: ", "after sm"),
        ("\n[pixel shader sometimes]\n", ":2: ", "unknown qualifier"),
        ("[texture]\n", ":1: ", "slot"),
        ("[frobnicate]\n", ":1: ", "unknown section"),
        ("a stray line\n", ":1: ", "before the first [section]"),
        ("% only a comment\n", ":0: ", "no sections"),
        // `dxbc-tpf-hex` bodies as vkd3d's runner reads them: words of 8 digits.
        (
            "[vertex shader dxbc-tpf-hex]\n43425844 0102\n",
            ":2: ",
            "a word of 4 hexadecimal digit(s) ends at the end of the line",
        ),
        (
            "[pixel shader dxbc-tpf-hex]\n\n43425844\n4342584g\n",
            ":4: ",
            "`g` is not a hexadecimal digit",
        ),
        (
            "[geometry shader dxbc-tpf-hex]\n4342 5844\n",
            ":2: ",
            "ends at a space",
        ),
        (
            "[hull shader dxbc-tpf-hex]\n434258% cut\n",
            ":2: ",
            "ends at a comment",
        ),
        // A container stating 256 bytes in 32.
        (
            "[require]\nshader model >= 5.0\n[compute shader dxbc-tpf-hex]\n43425844 00000000 00000000 00000000\n00000000 00000001 00000100 00000000\n",
            ":3: ",
            "its 32 bytes are not a DXBC container: truncated",
        ),
        (
            "[domain shader dxbc-tpf-hex]\n% nothing\n\n",
            ":3: ",
            "holds no words",
        ),
    ];
    for (i, (source, at, says)) in cases.iter().enumerate() {
        let path = dir.join(format!("bad{i}.shader_test"));
        std::fs::write(&path, source).unwrap();
        let o = dxlane(&[std::ffi::OsStr::new("shader-test"), path.as_os_str()]);
        assert_eq!(o.status.code(), Some(2), "{source:?}: {}", text(&o));
        let err = String::from_utf8_lossy(&o.stderr);
        let want = format!("{}{at}", path.display());
        assert!(
            err.contains(&want),
            "{source:?}: {err} does not name {want}"
        );
        assert!(
            err.contains(says),
            "{source:?}: {err} does not say {says:?}"
        );
    }
    // Not UTF-8: the line of the first bad byte.
    let path = dir.join("binary.shader_test");
    std::fs::write(&path, b"[test]\n\xff\n").unwrap();
    let e = parse_file(&path).unwrap_err();
    assert_eq!(e.line, 2, "{e}");
}

#[test]
fn batch_runs_shader_test_files_as_cases() {
    let Some(compiler) = common::vkd3d_compiler("batch over shader-test files") else {
        return;
    };
    let dir = workdir("batch");
    let jsonl = dir.join("results.jsonl");
    let o = Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .arg("batch")
        .arg(common::root().join("tests/shader_test"))
        .args(["-j", "2", "--jsonl"])
        .arg(&jsonl)
        .env("VKD3D_COMPILER", compiler)
        .env_remove("JOB_COMPLETION_INDEX")
        .env_remove("SLURM_ARRAY_TASK_ID")
        .env_remove("CI_NODE_INDEX")
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(0), "{}", text(&o));
    let report = std::fs::read_to_string(&jsonl).unwrap();
    let cases: Vec<(String, String, String)> = report
        .lines()
        .skip(1)
        .map(|l| {
            let v: serde_json::Value = serde_json::from_str(l).unwrap();
            (
                v["case"].as_str().unwrap().to_string(),
                v["kind"].as_str().unwrap().to_string(),
                v["status"].as_str().unwrap().to_string(),
            )
        })
        .collect();
    let names: Vec<&str> = EXPECTED.iter().map(|(n, _)| *n).collect();
    assert_eq!(
        cases.iter().map(|c| c.0.as_str()).collect::<Vec<_>>(),
        names,
        "{report}"
    );
    assert!(
        cases.iter().all(|c| c.1 == "shader-test" && c.2 == "pass"),
        "{report}"
    );
}

/// A pass-through vertex program and a red pixel program, for the tessellation cases.
const TESS_VS_PS: &str = "[vertex shader]\nfloat4 main(uint id : SV_VertexID) : POS\n{\n    return float4(id, 0, 0, 1);\n}\n\n[pixel shader]\nfloat4 main() : sv_target\n{\n    return float4(1, 0, 0, 1);\n}\n\n";

/// A tri-domain hull program of three control points with factors of 1.
const TESS_HS: &str = "[hull shader]\nstruct cp { float4 pos : POS; };\nstruct consts { float e[3] : SV_TessFactor; float i : SV_InsideTessFactor; };\nconsts pc(InputPatch<cp, 3> ip)\n{\n    consts o;\n    o.e[0] = o.e[1] = o.e[2] = 1.0;\n    o.i = 1.0;\n    return o;\n}\n    [domain(\"tri\")]\n    [outputcontrolpoints(3)]\n    [partitioning(\"integer\")]\n    [outputtopology(\"triangle_cw\")]\n    [patchconstantfunc(\"pc\")]\ncp main(InputPatch<cp, 3> ip, uint i : SV_OutputControlPointID)\n{\n    return ip[i];\n}\n\n";

/// vkd3d's runner (tests/shader_runner.c): a draw with a hull program and no domain
/// program is refused, and no hull or domain program is compiled below SM 5.0 (there are
/// no hs_4_x / ds_4_x profiles; D3D11.3 §10 makes the hull stage a feature level 11 one).
#[test]
fn tessellation_sections_need_both_programs_and_sm5() {
    let Some(compiler) = common::vkd3d_compiler("the shader-test tessellation cases") else {
        return;
    };
    let cfg = config(compiler);
    let dir = workdir("tessellation");
    let source = format!("{TESS_VS_PS}{TESS_HS}[test]\ndraw 3 control point patch list 3\n");
    let r = run_source(&dir, &source, &cfg);
    assert_eq!(r.outcome, Outcome::Fail, "{r:?}");
    assert!(
        r.failures[0].starts_with("line ") && r.failures[0].contains("no domain shader"),
        "{r:?}"
    );
    // Under `todo` the refused draw counts as todo and the probe after it is not checked.
    let todo = format!(
        "{TESS_VS_PS}{TESS_HS}[test]\ntodo draw 3 control point patch list 3\nprobe all rgba (9.0, 9.0, 9.0, 9.0)\n"
    );
    let r = run_source(&dir, &todo, &cfg);
    assert_eq!(
        (r.outcome, r.todo, r.probes_passed),
        (Outcome::Pass, 1, 0),
        "{r:?}"
    );
    // SM 4.0: the run stops at the hull section, naming it and its line.
    let path = dir.join("sm4.shader_test");
    std::fs::write(&path, &source).unwrap();
    let test = parse_file(&path).unwrap();
    let sm4 = RunConfig {
        models: Some(vec![40]),
        ..cfg.clone()
    };
    let r = run_file(&test, &sm4).remove(0);
    assert_eq!(r.outcome, Outcome::Skip, "{r:?}");
    let why = r.skipped.unwrap();
    assert!(
        why.contains("line 13") && why.contains("[hull shader]"),
        "{why}"
    );
}
