//! Captures end to end: `dxlane run --record` folders compared with themselves, then with
//! single elements changed (one ulp, a NaN payload, a sign of zero), a whole texture row
//! changed, D3D12 padded-row layouts, captures made under another profile or with one
//! rule flipped (explain), the text report's snapshots (`tests/snapshots/capture/`), the
//! JSON report's schema, bad input, and the committed example.
//!
//! Programs are the IR text files of `tests/capture/` (so nothing here depends on a
//! lowering) except the example's. Each test works in its own folder under cargo's test
//! temporary directory; a test that compares checks the capture folder is left as it was.

use std::path::{Path, PathBuf};
use std::process::Command;

use dxlane::capture::{self, CompareOptions};
use dxlane::exec::{Fp32Denormals, Profile};
use dxlane::job::{Job, RunOptions};
use dxlane::resources::format::Rounding;
use serde_json::Value;

use crate::common;

/// A fresh folder for test `name` holding the programs and jobs of `tests/capture/`.
fn workdir(name: &str) -> PathBuf {
    let dir = common::scratch().join("capture").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for e in std::fs::read_dir(common::root().join("tests/capture")).unwrap() {
        let p = e.unwrap().path();
        std::fs::copy(&p, dir.join(p.file_name().unwrap())).unwrap();
    }
    dir
}

fn dxlane(args: &[&str], dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run dxlane")
}

/// `dxlane run JOB --threads 1 --record CAP` (and `extra`), which must succeed.
fn record(dir: &Path, job: &str, cap: &str, extra: &[&str]) {
    let mut args = vec!["run", job, "--threads", "1", "-q", "--record", cap];
    args.extend_from_slice(extra);
    let o = dxlane(&args, dir);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `dxlane compare … --json` (with `extra`): its exit status and report.
fn compare_json(dir: &Path, job: &str, cap: &str, extra: &[&str]) -> (i32, Value) {
    let mut args = vec!["compare", job, cap, "--json"];
    args.extend_from_slice(extra);
    let o = dxlane(&args, dir);
    let code = o.status.code().unwrap_or(-1);
    assert!(
        code == 0 || code == 1,
        "exit {code}: {}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: Value = serde_json::from_slice(&o.stdout).expect("the report is JSON");
    (code, v)
}

/// `dxlane compare …` as text: exit status, stdout, stderr.
fn compare_text(dir: &Path, args: &[&str]) -> (i32, String, String) {
    let mut a = vec!["compare"];
    a.extend_from_slice(args);
    let o = dxlane(&a, dir);
    (
        o.status.code().unwrap_or(-1),
        String::from_utf8_lossy(&o.stdout).into_owned(),
        String::from_utf8_lossy(&o.stderr).into_owned(),
    )
}

/// Every file under `dir` with its bytes, sorted.
fn listing(dir: &Path) -> Vec<(PathBuf, Vec<u8>)> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_path_buf()];
    while let Some(d) = stack.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                stack.push(p);
            } else {
                let b = std::fs::read(&p).unwrap();
                out.push((p, b));
            }
        }
    }
    out.sort();
    out
}

fn words(path: &Path) -> Vec<u32> {
    std::fs::read(path)
        .unwrap()
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn write_words(path: &Path, w: &[u32]) {
    let b: Vec<u8> = w.iter().flat_map(|x| x.to_le_bytes()).collect();
    std::fs::write(path, b).unwrap();
}

/// Edits `capture.toml` in `cap`: replaces `from` (which must be there) with `to`.
fn edit_manifest(cap: &Path, from: &str, to: &str) {
    let p = cap.join("capture.toml");
    let t = std::fs::read_to_string(&p).unwrap();
    assert!(t.contains(from), "{from:?} not in:\n{t}");
    std::fs::write(&p, t.replacen(from, to, 1)).unwrap();
}

fn drop_profile(cap: &Path) {
    let p = cap.join("capture.toml");
    let t = std::fs::read_to_string(&p).unwrap();
    let t: String = t
        .lines()
        .filter(|l| !l.starts_with("profile = "))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(&p, t).unwrap();
}

/// A run recorded with `--record` compares equal with itself, leaves the capture as it
/// was, and writes no images; the same holds on another worker count.
#[test]
fn a_recorded_compute_job_matches_itself() {
    let d = workdir("itself");
    record(&d, "grid.toml", "cap", &[]);
    let before = listing(&d.join("cap"));
    for threads in ["1", "2"] {
        let (code, v) = compare_json(&d, "grid.toml", "cap", &["--threads", threads]);
        assert_eq!(code, 0);
        assert_eq!(v["result"], "equal");
        let r = v["resources"].as_array().unwrap();
        assert_eq!(r.len(), 2);
        assert_eq!(r[0]["target"], "u0");
        assert_eq!(
            (r[0]["elements"].as_u64(), r[0]["components"].as_u64()),
            (Some(32), Some(32))
        );
        assert_eq!(
            (r[1]["elements"].as_u64(), r[1]["components"].as_u64()),
            (Some(32), Some(128))
        );
        assert!(v["explain"].is_null());
    }
    assert_eq!(
        listing(&d.join("cap")),
        before,
        "compare wrote into the capture folder"
    );
    assert!(!d.join("out/compare").exists());
}

/// One element changed by one ulp: found, located, attributed to the thread that wrote
/// it (thread (5, 1, 0) writes values[13]), with the command that opens it, and
/// measured as 1 ulp; the texture stays equal. The same lane is named whatever the
/// worker count.
#[test]
fn one_ulp_is_found_located_and_attributed() {
    let d = workdir("one_ulp");
    record(&d, "grid.toml", "cap", &[]);
    let cap = d.join("cap");
    edit_manifest(
        &cap,
        "file = \"u0.bin\"",
        "file = \"u0.bin\"\nformat = \"R32_FLOAT\"",
    );
    let mut w = words(&cap.join("u0.bin"));
    w[13] += 1;
    write_words(&cap.join("u0.bin"), &w);
    let (code, v) = compare_json(&d, "grid.toml", "cap", &["--threads", "1"]);
    assert_eq!(code, 1);
    assert_eq!(v["result"], "differs");
    let r = &v["resources"][0];
    assert_eq!(r["format"][0], "R32_FLOAT");
    assert_eq!(r["differing_elements"], 1);
    assert_eq!(r["histogram"]["ulp_1"], 1);
    assert_eq!(r["largest_ulp"]["ulp"], 1);
    let m = &r["mismatches"][0];
    assert_eq!(m["at"], "[13]");
    assert_eq!(m["kind"], "ulp");
    assert_eq!(m["ulp"], 1);
    assert_eq!(m["address"], 52);
    assert_eq!(m["location"]["element"], 13);
    let wr = &m["writer"];
    assert_eq!(wr["thread"], serde_json::json!([5, 1, 0]));
    assert_eq!(wr["group"], serde_json::json!([1, 0, 0]));
    assert_eq!(wr["group_thread"], serde_json::json!([1, 1, 0]));
    assert_eq!(wr["contested"], false);
    assert_eq!(wr["debug"], "dxlane debug grid.toml --thread 5,1,0");
    assert_eq!(v["resources"][1]["differing_elements"], 0);
    // No WARP rule changes a hand-edited value.
    let e = &v["explain"];
    assert!(e["matches"].as_array().unwrap().is_empty());
    assert!(
        e["verdict"]
            .as_str()
            .unwrap()
            .contains("not a WARP version's"),
        "{e}"
    );
    let (_, v2) = compare_json(&d, "grid.toml", "cap", &["--threads", "2"]);
    assert_eq!(v2["resources"][0]["mismatches"], r["mismatches"]);
}

/// A NaN payload and a sign of zero are told apart from each other and from ulps; `ulp`
/// tolerances accept a sign of zero but not a payload, `--nan any` accepts payloads.
/// 16-bit halves compare as halves.
#[test]
fn nan_payloads_and_signed_zeros_are_told_apart() {
    let d = workdir("nan_zero");
    record(&d, "special.toml", "cap", &[]);
    let cap = d.join("cap");
    edit_manifest(
        &cap,
        "file = \"u0.bin\"",
        "file = \"u0.bin\"\nformat = [\"R16_FLOAT\", \"R16_UINT\"]",
    );
    edit_manifest(
        &cap,
        "file = \"u1.bin\"",
        "file = \"u1.bin\"\nformat = \"R32_FLOAT\"",
    );
    let h = words(&cap.join("u0.bin"));
    assert_eq!(h, vec![0x3c01, 0x7fff], "halves as WARP rounds them");
    write_words(&cap.join("u0.bin"), &[0x3c01, 0x7e00]);
    let f = words(&cap.join("u1.bin"));
    assert_eq!(f[1], 0x8000_0000);
    assert!(f32::from_bits(f[2]).is_nan());
    write_words(&cap.join("u1.bin"), &[f[0], 0, f[2] ^ 2]);
    let (code, v) = compare_json(&d, "special.toml", "cap", &["--no-explain"]);
    assert_eq!(code, 1);
    let halves = &v["resources"][0]["mismatches"];
    assert_eq!(halves[0]["at"], "[1][0]");
    assert_eq!(halves[0]["kind"], "nan_payload");
    let floats = &v["resources"][1];
    assert_eq!(floats["mismatches"][0]["at"], "[1]");
    assert_eq!(floats["mismatches"][0]["kind"], "signed_zero");
    assert_eq!(
        floats["mismatches"][0]["capture"]["value"],
        "0.0 (0x00000000)"
    );
    assert_eq!(
        floats["mismatches"][0]["dxlane"]["value"],
        "-0.0 (0x80000000)"
    );
    assert_eq!(floats["mismatches"][1]["kind"], "nan_payload");
    assert_eq!(floats["histogram"]["signed_zero"], 1);
    assert_eq!(floats["histogram"]["nan_payload"], 1);
    let (code, v) = compare_json(
        &d,
        "special.toml",
        "cap",
        &["--no-explain", "--tolerance", "ulp 4"],
    );
    assert_eq!(code, 1);
    assert_eq!(v["resources"][1]["differing_components"], 1);
    assert_eq!(v["resources"][1]["within_tolerance"], 1);
    let (code, _) = compare_json(
        &d,
        "special.toml",
        "cap",
        &["--tolerance", "ulp 4", "--nan", "any"],
    );
    assert_eq!(code, 0);
}

/// A whole row of a texture changed: every texel of it found at (x, 2), each written by
/// thread (x, 2, 0), and diff images drawn beside the job, not in the capture.
#[test]
fn a_texture_row_is_found_attributed_and_drawn() {
    let d = workdir("row");
    record(&d, "grid.toml", "cap", &[]);
    let cap = d.join("cap");
    let before_edit = words(&cap.join("u1.bin"));
    let mut w = before_edit.clone();
    for x in 0..8 {
        w[(2 * 8 + x) * 4] += 1; // red of (x, 2)
    }
    write_words(&cap.join("u1.bin"), &w);
    let before = listing(&cap);
    let (code, v) = compare_json(
        &d,
        "grid.toml",
        "cap",
        &["--no-explain", "--mismatches", "20"],
    );
    assert_eq!(code, 1);
    let r = &v["resources"][1];
    assert_eq!(r["differing_elements"], 8);
    assert_eq!(r["differing_components"], 8);
    let m = r["mismatches"].as_array().unwrap();
    assert_eq!(m.len(), 8);
    for (x, m) in m.iter().enumerate() {
        assert_eq!(m["at"], format!("({x}, 2) r"));
        assert_eq!(m["location"]["kind"], "texel");
        assert_eq!(m["location"]["y"], 2);
        assert_eq!(m["ulp"], 1);
        assert_eq!(m["writer"]["thread"], serde_json::json!([x, 2, 0]));
    }
    let diff = d.join("out/compare/cap/u1.diff.png");
    let side = d.join("out/compare/cap/u1.side.png");
    assert_eq!(r["images"]["diff"][0], "out/compare/cap/u1.diff.png");
    let heat = image::open(&diff).unwrap().to_rgb8();
    assert_eq!(heat.dimensions(), (8, 4));
    assert_eq!(heat.get_pixel(3, 1).0, [0, 0, 0]);
    assert_ne!(heat.get_pixel(3, 2).0, [0, 0, 0]);
    assert_eq!(image::open(&side).unwrap().width(), 8 * 3 + 8);
    assert_eq!(
        listing(&cap),
        before,
        "compare wrote into the capture folder"
    );
}

/// Padded rows as a D3D12 readback lays them out — to the last row's data (TotalBytes),
/// fully padded, or at an explicit pitch — read back to the same texels.
#[test]
fn padded_row_captures_read_correctly() {
    let d = workdir("padded");
    record(&d, "grid.toml", "cap", &[]);
    let cap = d.join("cap");
    let tight = std::fs::read(cap.join("u1.bin")).unwrap();
    assert_eq!(tight.len(), 8 * 4 * 16);
    let pad = |pitch: usize, last_padded: bool| -> Vec<u8> {
        let mut out = Vec::new();
        for (y, row) in tight.chunks(128).enumerate() {
            out.extend_from_slice(row);
            if y < 3 || last_padded {
                out.resize(out.len() + pitch - 128, 0xcd);
            }
        }
        out
    };
    std::fs::write(cap.join("u1-total.bin"), pad(256, false)).unwrap();
    std::fs::write(cap.join("u1-padded.bin"), pad(256, true)).unwrap();
    std::fs::write(cap.join("u1-384.bin"), pad(384, false)).unwrap();
    let extra = "\n[[resource]]\nreg = \"u1\"\nfile = \"u1-total.bin\"\nlayout = \"d3d12\"\n\n[[resource]]\nreg = \"u1\"\nfile = \"u1-padded.bin\"\nlayout = \"d3d12\"\n\n[[resource]]\nreg = \"u1\"\nfile = \"u1-384.bin\"\nrow_pitch = 384\n";
    let p = cap.join("capture.toml");
    let t = std::fs::read_to_string(&p).unwrap() + extra;
    std::fs::write(&p, t).unwrap();
    let (code, v) = compare_json(&d, "grid.toml", "cap", &[]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["resources"].as_array().unwrap().len(), 5);
    // Read as tight rows, the same padded file is wrong: refused by its length.
    edit_manifest(
        &cap,
        "file = \"u1-384.bin\"\nrow_pitch = 384",
        "file = \"u1-384.bin\"",
    );
    let (code, _, err) = compare_text(&d, &["grid.toml", "cap"]);
    assert_eq!(code, 2);
    assert!(
        err.contains("[[resource]] #5 (u1)")
            && err.contains("is 1280 bytes; the layout needs 512 bytes"),
        "{err}"
    );
}

/// A capture made under warp-1.0.13 and compared under the newest WARP: explain finds
/// the preset and the rule (the WARP changelog's 1.0.14 FMA fusion).
#[test]
fn explain_finds_fusion_in_a_capture_made_under_1_0_13() {
    let d = workdir("explain_fma");
    record(&d, "grid.toml", "cap", &["--profile", "warp-1.0.13"]);
    let cap = d.join("cap");
    // With the profile it states, the capture matches.
    let (code, v) = compare_json(&d, "grid.toml", "cap", &[]);
    assert_eq!(
        (code, v["profile"]["name"].as_str()),
        (0, Some("warp-1.0.13"))
    );
    drop_profile(&cap);
    edit_manifest(
        &cap,
        "file = \"u0.bin\"",
        "file = \"u0.bin\"\nformat = \"R32_FLOAT\"",
    );
    let (code, v) = compare_json(&d, "grid.toml", "cap", &[]);
    assert_eq!(code, 1);
    assert_eq!(v["profile"]["name"], "warp-1.0.14");
    assert_eq!(v["resources"][0]["differing_elements"], 32);
    assert_eq!(v["resources"][1]["differing_elements"], 0);
    let e = &v["explain"];
    assert_eq!(
        e["matches"],
        serde_json::json!(["warp-1.0.13", "fuse_mad = false"])
    );
    assert!(
        e["verdict"].as_str().unwrap().starts_with(
            "matches with warp-1.0.13: this capture's multiply-adds were not fused into FMA"
        ),
        "{e}"
    );
    let nt: Vec<&str> = e["not_tried"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["name"].as_str().unwrap())
        .collect();
    assert!(nt.contains(&"wave_read_inactive_zero = false"), "{nt:?}");
}

/// The same for wave reads of inactive lanes (the changelog's other 1.0.14 rule).
#[test]
fn explain_finds_inactive_lane_reads() {
    let d = workdir("explain_wave");
    record(&d, "wave.toml", "cap", &["--profile", "warp-1.0.13"]);
    let cap = d.join("cap");
    assert_eq!(words(&cap.join("u0.bin")), vec![3, 3, 3, 9, 3, 3, 3, 3]);
    drop_profile(&cap);
    let (code, v) = compare_json(&d, "wave.toml", "cap", &[]);
    assert_eq!(code, 1);
    let r = &v["resources"][0];
    assert_eq!(r["differing_elements"], 7);
    assert_eq!(r["mismatches"][0]["kind"], "integer");
    let e = &v["explain"];
    assert_eq!(
        e["matches"],
        serde_json::json!(["warp-1.0.13", "wave_read_inactive_zero = false"])
    );
    assert!(
        e["verdict"]
            .as_str()
            .unwrap()
            .contains("wave reads of inactive lanes gave what the lane's register held"),
        "{e}"
    );
}

/// Captures from a device that rounds fp16 toward zero, makes another NaN, or keeps
/// fp32 denormals (rules no WARP release is known to follow): explain names each rule and
/// says no WARP does it.
#[test]
fn explain_finds_fp16_and_denormal_rules() {
    let d = workdir("explain_rules");
    let job_path = d.join("special.toml");
    let mut cases: Vec<(&str, Profile)> = Vec::new();
    let mut p = Profile::latest();
    p.f16.rounding = Rounding::TowardZero;
    cases.push(("f16.rounding = toward_zero", p));
    let mut p = Profile::latest();
    p.f16.nan = 0x7e00;
    cases.push(("f16.nan = 0x7e00", p));
    let mut p = Profile::latest();
    p.fp32_denormals = Fp32Denormals::Preserve;
    cases.push(("fp32_denormals = preserve", p));
    for (i, (rule, profile)) in cases.into_iter().enumerate() {
        let job = Job::load(&job_path).unwrap();
        let opts = RunOptions {
            threads: Some(1),
            ..crate::common::run_options()
        };
        let mut prepared = dxlane::job::prepare(job.clone(), &opts).unwrap();
        prepared.plan.profile = profile;
        let result = prepared.execute(&opts).unwrap();
        let cap = d.join(format!("cap{i}"));
        capture::record::record(&job, &result, &cap).unwrap();
        let report = capture::compare_job(
            &job_path,
            &cap,
            &CompareOptions {
                default_engine: crate::common::engine(),
                ..CompareOptions::default()
            },
        )
        .unwrap();
        assert_eq!(report.exit_code(), 1, "{rule}");
        let e = report.explain.as_ref().unwrap();
        assert_eq!(e.matches, vec![rule.to_string()], "{rule}");
        assert!(
            e.verdict.contains("no WARP release is known to do this"),
            "{rule}: {}",
            e.verdict
        );
        assert!(
            e.verdict
                .starts_with(&format!("matches with {rule}: this capture's")),
            "{}",
            e.verdict
        );
    }
}

/// `Path` shown relative to `dir` in snapshots.
fn normalized(text: &str, dir: &Path) -> String {
    text.replace(&dir.display().to_string(), "<dir>")
}

/// The text report, as snapshots: equal, a changed texture row with its images, and a
/// capture explained by another profile.
#[test]
fn text_report_snapshots() {
    let d = workdir("snapshots");
    record(&d, "grid.toml", "cap", &[]);
    let (code, out, _) = compare_text(&d, &["grid.toml", "cap"]);
    assert_eq!(code, 0);
    common::assert_snapshot("capture/equal.txt", &normalized(&out, &d));

    let cap = d.join("cap");
    let mut w = words(&cap.join("u1.bin"));
    for x in 0..8 {
        w[(2 * 8 + x) * 4] += 1 + x as u32 * 40;
    }
    write_words(&cap.join("u1.bin"), &w);
    let (code, out, _) = compare_text(&d, &["grid.toml", "cap", "--mismatches", "3"]);
    assert_eq!(code, 1);
    common::assert_snapshot("capture/row.txt", &normalized(&out, &d));

    record(&d, "grid.toml", "cap13", &["--profile", "warp-1.0.13"]);
    drop_profile(&d.join("cap13"));
    edit_manifest(
        &d.join("cap13"),
        "file = \"u0.bin\"",
        "file = \"u0.bin\"\nformat = \"R32_FLOAT\"",
    );
    let (code, out, _) = compare_text(&d, &["grid.toml", "cap13", "--mismatches", "2"]);
    assert_eq!(code, 1);
    common::assert_snapshot("capture/explain.txt", &normalized(&out, &d));
}

/// The JSON report has the schema docs/capture.md documents: every key there, of its
/// type.
#[test]
fn json_report_follows_its_schema() {
    let d = workdir("schema");
    record(&d, "grid.toml", "cap", &["--profile", "warp-1.0.13"]);
    drop_profile(&d.join("cap"));
    edit_manifest(
        &d.join("cap"),
        "file = \"u0.bin\"",
        "file = \"u0.bin\"\nformat = \"R32_FLOAT\"",
    );
    let (_, v) = compare_json(&d, "grid.toml", "cap", &["--mismatches", "1"]);
    let obj = |v: &Value, keys: &[&str]| {
        let o = v
            .as_object()
            .unwrap_or_else(|| panic!("not an object: {v}"));
        let mut have: Vec<&str> = o.keys().map(String::as_str).collect();
        have.sort_unstable();
        let mut want = keys.to_vec();
        want.sort_unstable();
        assert_eq!(have, want);
    };
    obj(
        &v,
        &[
            "schema",
            "job",
            "capture",
            "device",
            "profile",
            "result",
            "resources",
            "explain",
            "notes",
        ],
    );
    assert_eq!(v["schema"], "dxlane-compare/1");
    obj(&v["device"], &["adapter", "warp", "os", "profile", "notes"]);
    obj(&v["profile"], &["name", "from"]);
    let r = &v["resources"][0];
    obj(
        r,
        &[
            "entry",
            "target",
            "file",
            "kind",
            "format",
            "tolerance",
            "nan",
            "elements",
            "components",
            "differing_elements",
            "differing_components",
            "within_tolerance",
            "largest_ulp",
            "largest_abs",
            "histogram",
            "mismatches",
            "images",
        ],
    );
    obj(&r["largest_ulp"], &["ulp", "abs", "at"]);
    obj(
        &r["histogram"],
        &[
            "ulp_1",
            "ulp_2_3",
            "ulp_4_15",
            "ulp_16_255",
            "ulp_256_65535",
            "ulp_65536_up",
            "signed_zero",
            "nan_payload",
            "nan_vs_number",
            "infinity",
            "integer",
        ],
    );
    let m = &r["mismatches"][0];
    obj(
        m,
        &[
            "at",
            "location",
            "component",
            "address",
            "capture",
            "dxlane",
            "kind",
            "ulp",
            "abs",
            "writer",
        ],
    );
    obj(&m["location"], &["kind", "byte", "element", "offset"]);
    obj(&m["capture"], &["bits", "value"]);
    obj(
        &m["writer"],
        &[
            "lane",
            "thread",
            "group",
            "group_thread",
            "instruction",
            "source",
            "contested",
            "writes",
            "debug",
        ],
    );
    let e = &v["explain"];
    obj(
        e,
        &[
            "base",
            "differing",
            "variants",
            "not_tried",
            "matches",
            "verdict",
        ],
    );
    obj(
        &e["variants"][0],
        &[
            "name",
            "kind",
            "changes",
            "fixed",
            "still_differ",
            "broken",
            "matches",
        ],
    );
    obj(&e["not_tried"][0], &["name", "why"]);
    assert!(v["resources"][0]["elements"].is_u64() && v["notes"].is_array());
}

/// Bad input: each refused with exit 2 and a message naming the entry and the byte (or
/// the job), snapshotted; the capture folder is never written.
#[test]
fn bad_captures_are_refused_by_name() {
    let d = workdir("bad");
    record(&d, "grid.toml", "good", &[]);
    let good = std::fs::read_to_string(d.join("good/capture.toml")).unwrap();
    let u0 = std::fs::read(d.join("good/u0.bin")).unwrap();
    // (name, capture.toml, a file to replace and its bytes)
    type Case<'a> = (&'a str, &'a str, Option<(&'a str, Vec<u8>)>);
    let cases: &[Case<'_>] = &[
        (
            "corrupt",
            "job = \"grid.toml\"\n[[resource]\nreg = \"u0\"\n",
            None,
        ),
        (
            "unknown key",
            "job = \"grid.toml\"\n[[resource]]\nreg = \"u0\"\nfile = \"u0.bin\"\npitch = 4\n",
            None,
        ),
        (
            "unknown register",
            "job = \"grid.toml\"\n[[resource]]\nreg = \"u7\"\nfile = \"u0.bin\"\n",
            None,
        ),
        (
            "another job",
            &good.replace("job = \"grid.toml\"", "job = \"other.toml\""),
            None,
        ),
        (
            "another program",
            &good.replace("program_md5 = \"", "program_md5 = \"00"),
            None,
        ),
        ("short file", &good, Some(("u0.bin", u0[..100].to_vec()))),
        (
            "long file",
            &good,
            Some(("u0.bin", [u0.clone(), vec![0; 8]].concat())),
        ),
        (
            "missing file",
            &good.replace("file = \"u0.bin\"", "file = \"none.bin\""),
            None,
        ),
        (
            "texture format",
            &good.replace(
                "file = \"u1.bin\"",
                "file = \"u1.bin\"\nformat = \"R8_UNORM\"",
            ),
            None,
        ),
        (
            "heap slot",
            "job = \"grid.toml\"\n[[resource]]\nheap = 2\nfile = \"u0.bin\"\n",
            None,
        ),
        (
            "render target",
            "job = \"grid.toml\"\n[[resource]]\nrender_target = 0\nfile = \"u0.bin\"\n",
            None,
        ),
        (
            "element size",
            "job = \"grid.toml\"\n[[resource]]\nreg = \"u0\"\nfile = \"u0.bin\"\nformat = \"R32G32B32_FLOAT\"\n",
            None,
        ),
        (
            "outside",
            "job = \"grid.toml\"\n[[resource]]\nreg = \"u0\"\nfile = \"../good/u0.bin\"\n",
            None,
        ),
        ("not utf-8", "job = \"grid.toml\"\n\u{0}\u{1}", None),
    ];
    let mut all = String::new();
    for (name, manifest, file) in cases {
        let cap = d.join("cap");
        let _ = std::fs::remove_dir_all(&cap);
        std::fs::create_dir_all(&cap).unwrap();
        for f in ["u0.bin", "u1.bin"] {
            std::fs::copy(d.join("good").join(f), cap.join(f)).unwrap();
        }
        if *name == "not utf-8" {
            std::fs::write(cap.join("capture.toml"), b"job = \"grid.toml\"\n\xff\xfe").unwrap();
        } else {
            std::fs::write(cap.join("capture.toml"), manifest).unwrap();
        }
        if let Some((f, bytes)) = file {
            std::fs::write(cap.join(f), bytes).unwrap();
        }
        let before = listing(&cap);
        let (code, out, err) = compare_text(&d, &["grid.toml", "cap"]);
        assert_eq!(code, 2, "{name}: {out}{err}");
        assert!(out.is_empty(), "{name}: {out}");
        assert_eq!(err.lines().count(), 1, "{name}: {err}");
        assert_eq!(
            listing(&cap),
            before,
            "{name}: the capture folder was written"
        );
        all.push_str(&format!("{name}: {}", normalized(&err, &d)));
    }
    // Images may not go into the capture folder.
    let cap = d.join("cap");
    std::fs::write(cap.join("capture.toml"), &good).unwrap();
    let mut w = words(&cap.join("u1.bin"));
    w[0] ^= 1;
    write_words(&cap.join("u1.bin"), &w);
    let before = listing(&cap);
    let (code, _, err) = compare_text(&d, &["grid.toml", "cap", "--images", "cap/img"]);
    assert_eq!(code, 2, "{err}");
    assert_eq!(listing(&cap), before);
    all.push_str(&format!("images inside: {}", normalized(&err, &d)));
    common::assert_snapshot("capture/errors.txt", &all);
}

/// `--record` never overwrites a file the job reads, nor follows a link out of its
/// folder.
#[test]
fn record_respects_the_jobs_files() {
    let d = workdir("record_guard");
    std::fs::write(d.join("u0.bin"), [1u8; 16]).unwrap();
    let job = std::fs::read_to_string(d.join("grid.toml")).unwrap()
        + "\n[[resource]]\nreg = \"t0\"\nkind = \"raw_buffer\"\ndata = { file = \"u0.bin\" }\n";
    std::fs::write(d.join("reads.toml"), job).unwrap();
    let o = dxlane(&["run", "reads.toml", "-q", "--record", "."], &d);
    assert_eq!(o.status.code(), Some(2));
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(err.contains("the job reads this file"), "{err}");
    assert_eq!(std::fs::read(d.join("u0.bin")).unwrap(), [1u8; 16]);
    #[cfg(unix)]
    {
        std::fs::create_dir_all(d.join("cap")).unwrap();
        std::os::unix::fs::symlink(d.join("outside.bin"), d.join("cap/u0.bin")).unwrap();
        let o = dxlane(&["run", "grid.toml", "-q", "--record", "cap"], &d);
        assert_eq!(o.status.code(), Some(2));
        assert!(String::from_utf8_lossy(&o.stderr).contains("symbolic link"));
        assert!(!d.join("outside.bin").exists());
    }
}

/// The committed example compares with exit 0; its sibling made under warp-1.0.13 is
/// explained by FMA fusion, with its diff images drawn where the test says.
#[test]
fn the_committed_example_compares() {
    let root = common::root();
    let (code, out, err) = compare_text(
        &root,
        &["examples/capture_demo.toml", "examples/capture_demo"],
    );
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains("result    equal: 2 resources compared"),
        "{out}"
    );
    let d = workdir("example");
    let images = d.join("img").display().to_string();
    let (code, v) = compare_json(
        &root,
        "examples/capture_demo.toml",
        "examples/capture_demo-warp-1.0.13",
        &["--images", &images],
    );
    assert_eq!(code, 1);
    assert!(
        v["explain"]["verdict"]
            .as_str()
            .unwrap()
            .starts_with("matches with warp-1.0.13")
    );
    let m = &v["resources"][0]["mismatches"][0];
    assert!(
        m["writer"]["debug"]
            .as_str()
            .unwrap()
            .starts_with("dxlane debug examples/capture_demo.toml --thread ")
    );
}

/// Every byte of a capture.toml set to a few values: each mutant is compared or refused,
/// never a panic, and the capture folder is never written.
#[test]
fn mutated_manifests_are_refused_or_compared_never_panic() {
    let d = workdir("mutants");
    record(&d, "grid.toml", "cap", &[]);
    let cap = d.join("cap");
    let good = std::fs::read(cap.join("capture.toml")).unwrap();
    let extra = b"\n[[resource]]\nreg = \"u1\"\nfile = \"u1.bin\"\nrow_pitch = 128\nsubresource = 0\nformat = \"R32G32B32A32_UINT\"\ntolerance = { ulp = 3 }\n";
    let good: Vec<u8> = [good, extra.to_vec()].concat();
    let opts = CompareOptions {
        no_explain: true,
        no_images: true,
        threads: Some(1),
        default_engine: crate::common::engine(),
        ..CompareOptions::default()
    };
    let job = d.join("grid.toml");
    std::fs::write(cap.join("capture.toml"), &good).unwrap();
    assert!(capture::compare_job(&job, &cap, &opts).is_ok());
    let before = listing(&cap);
    let (mut compared, mut refused) = (0, 0);
    for i in 0..good.len() {
        for v in [b'0', b'"', b'9', 0xff] {
            if good[i] == v {
                continue;
            }
            let mut m = good.clone();
            m[i] = v;
            std::fs::write(cap.join("capture.toml"), &m).unwrap();
            match capture::compare_job(&job, &cap, &opts) {
                Ok(_) => compared += 1,
                Err(e) => {
                    assert!(!e.to_string().contains('\n'), "{e}");
                    refused += 1;
                }
            }
        }
    }
    std::fs::write(cap.join("capture.toml"), &good).unwrap();
    let mut after = listing(&cap);
    after.retain(|(p, _)| !p.ends_with("capture.toml"));
    let mut want = before;
    want.retain(|(p, _)| !p.ends_with("capture.toml"));
    assert_eq!(after, want);
    assert!(
        compared > 0 && refused > 0,
        "{compared} compared, {refused} refused"
    );
}

/// A mismatch's debug command runs what the comparison ran: with `--profile` when the
/// capture chose a profile the job does not run by itself, with `--wave-size` when the
/// command line set one.
#[test]
fn debug_commands_repeat_the_compared_run() {
    let d = workdir("debug_flags");
    record(&d, "grid.toml", "cap", &["--profile", "warp-1.0.13"]);
    let cap = d.join("cap");
    let mut w = words(&cap.join("u1.bin"));
    w[4 * 9 + 1] ^= 1; // (1, 1) g
    write_words(&cap.join("u1.bin"), &w);
    let (code, v) = compare_json(
        &d,
        "grid.toml",
        "cap",
        &["--no-explain", "--wave-size", "16"],
    );
    assert_eq!(code, 1);
    assert_eq!(
        v["resources"][1]["mismatches"][0]["writer"]["debug"],
        "dxlane debug grid.toml --thread 1,1,0 --profile warp-1.0.13 --wave-size 16"
    );
}

// ---- Draws: render targets and depth (tests/capture/draw.toml, draw_msaa.toml) ----
//
// draw.toml draws two triangles into 16 × 8 targets: primitive 0 covers every pixel,
// primitive 1 (drawn second, depth LESS_EQUAL at the same depth) the pixels whose centre
// lies above the diagonal from the top left to the bottom right corner of the
// viewport's [-1, 1]² square scaled to 16 × 8 — so pixel (x, y) is last written by
// primitive 1 when y_ndc ≥ −x_ndc, else by primitive 0.

/// The primitive that last wrote pixel (x, y) of draw.toml (see above).
fn draw_primitive(x: u32, y: u32) -> u32 {
    let xn = (x as f64 + 0.5) / 16.0 * 2.0 - 1.0;
    let yn = 1.0 - (y as f64 + 0.5) / 8.0 * 2.0;
    u32::from(yn >= -xn)
}

/// How many primitives wrote pixel (x, y).
fn draw_writes(x: u32, y: u32) -> u32 {
    1 + draw_primitive(x, y)
}

/// A recorded draw compares equal with itself (render targets and depth), on one or two
/// workers, and compare leaves the capture as it was and draws no images.
#[test]
fn a_recorded_draw_matches_itself() {
    let d = workdir("draw-itself");
    record(&d, "draw.toml", "cap", &[]);
    let manifest = std::fs::read_to_string(d.join("cap/capture.toml")).unwrap();
    assert!(
        manifest.contains("render_target = 0\nfile = \"rt0.bin\"")
            && manifest.contains("render_target = 1\nfile = \"rt1.bin\"")
            && manifest.contains("depth = true\nfile = \"depth.bin\""),
        "{manifest}"
    );
    let before = listing(&d.join("cap"));
    for threads in ["1", "2"] {
        let (code, v) = compare_json(&d, "draw.toml", "cap", &["--threads", threads]);
        assert_eq!(code, 0, "{v}");
        let r = v["resources"].as_array().unwrap();
        let targets: Vec<&str> = r.iter().map(|r| r["target"].as_str().unwrap()).collect();
        assert_eq!(targets, ["rt0", "rt1", "depth"]);
        assert_eq!(r[0]["kind"], "render target, R8G8B8A8_UNORM");
        assert_eq!(r[2]["kind"], "depth-stencil, D32_FLOAT");
        for r in r {
            assert_eq!(r["elements"], 128);
        }
        assert_eq!(r[0]["components"], 512);
    }
    assert_eq!(
        listing(&d.join("cap")),
        before,
        "compare wrote into the capture"
    );
    assert!(!d.join("out/compare").exists());
}

/// One UNORM code of a render target, one float ulp of another and one ulp of depth:
/// each found at its pixel, measured, and attributed to the pixel lane that wrote it
/// last (primitive 1 over primitive 0 where it covers), with the `dxlane debug --pixel`
/// command that opens that lane.
#[test]
fn draw_texels_are_found_measured_and_attributed_to_their_pixel_lane() {
    let d = workdir("draw-texel");
    record(&d, "draw.toml", "cap", &[]);
    let cap = d.join("cap");
    let mut rt0 = std::fs::read(cap.join("rt0.bin")).unwrap();
    rt0[(6 * 16 + 5) * 4 + 1] += 1; // green of (5, 6): primitive 0 only
    rt0[(16 + 12) * 4] -= 1; // red of (12, 1): primitive 1 over 0
    std::fs::write(cap.join("rt0.bin"), &rt0).unwrap();
    let mut rt1 = words(&cap.join("rt1.bin"));
    rt1[2 * 16 + 3] += 1; // (3, 2): one ulp
    write_words(&cap.join("rt1.bin"), &rt1);
    let mut depth = words(&cap.join("depth.bin"));
    depth[0] += 1; // (0, 0)
    write_words(&cap.join("depth.bin"), &depth);
    let before = listing(&cap);
    let (code, v) = compare_json(&d, "draw.toml", "cap", &["--no-explain"]);
    assert_eq!(code, 1);
    let r = &v["resources"];
    let m = r[0]["mismatches"].as_array().unwrap();
    assert_eq!(r[0]["differing_elements"], 2);
    assert_eq!(m.len(), 2);
    // Texels are walked row by row: (12, 1) first.
    assert_eq!(m[0]["at"], "(12, 1) r");
    assert_eq!(m[1]["at"], "(5, 6) g");
    for (m, (x, y)) in m.iter().zip([(12, 1), (5, 6)]) {
        assert_eq!(m["ulp"], 1, "{m}");
        assert_eq!(
            (m["location"]["x"].as_u64(), m["location"]["y"].as_u64()),
            (Some(x), Some(y))
        );
        let w = &m["writer"];
        assert_eq!(w["pixel"], serde_json::json!([x, y]));
        assert_eq!(w["primitive"], draw_primitive(x as u32, y as u32));
        assert_eq!(w["writes"], draw_writes(x as u32, y as u32));
        // The command opens the lane that wrote the texel: primitive 1's at (12, 1), the
        // second primitive covering it (`--prim 1`), as `dxlane debug --texel` finds it.
        let prim = if draw_primitive(x as u32, y as u32) == 1 {
            " --prim 1"
        } else {
            ""
        };
        assert_eq!(
            w["debug"],
            format!("dxlane debug draw.toml --pixel {x},{y}{prim}")
        );
    }
    assert_eq!(draw_primitive(12, 1), 1);
    assert_eq!(draw_primitive(5, 6), 0);
    // The schema's Writer for a draw (docs/capture.md): no thread, no instruction, no
    // sample (the program runs per pixel).
    let mut keys: Vec<&str> = m[0]["writer"]
        .as_object()
        .unwrap()
        .keys()
        .map(String::as_str)
        .collect();
    keys.sort_unstable();
    assert_eq!(
        keys,
        [
            "contested",
            "debug",
            "lane",
            "origin",
            "pixel",
            "primitive",
            "source",
            "writes"
        ]
    );
    // The lane chain of a vertex-and-pixel draw: the vertex lane that made the
    // primitive's leading vertex.
    assert_eq!(m[0]["writer"]["origin"][0]["stage"], "vertex");
    assert_eq!(m[0]["writer"]["lane"], "pixel (12, 1), primitive 1");
    let m1 = &r[1]["mismatches"][0];
    assert_eq!(
        (m1["at"].as_str(), m1["ulp"].as_u64()),
        (Some("(3, 2) r"), Some(1))
    );
    assert_eq!(m1["writer"]["pixel"], serde_json::json!([3, 2]));
    let m2 = &r[2]["mismatches"][0];
    assert_eq!(m2["at"], "(0, 0) depth");
    assert_eq!(m2["ulp"], 1);
    assert_eq!(m2["writer"]["debug"], "dxlane debug draw.toml --pixel 0,0");
    assert_eq!(listing(&cap), before, "compare wrote into the capture");
    // Diff images of each render target, beside the job.
    assert_eq!(r[0]["images"]["diff"][0], "out/compare/cap/rt0.diff.png");
    assert_eq!(r[2]["images"]["diff"][0], "out/compare/cap/depth.diff.png");
}

/// A whole row of a render target changed: all 16 texels found at (x, 3), each written
/// by the lane of pixel (x, 3) of the primitive that covers it last, and drawn as a heat
/// map and side by side.
#[test]
fn a_render_target_row_is_found_attributed_and_drawn() {
    let d = workdir("draw-row");
    record(&d, "draw.toml", "cap", &[]);
    let cap = d.join("cap");
    let mut rt0 = std::fs::read(cap.join("rt0.bin")).unwrap();
    for x in 0..16 {
        rt0[(3 * 16 + x) * 4 + 2] ^= 0x10; // blue of (x, 3): 16 codes
    }
    std::fs::write(cap.join("rt0.bin"), &rt0).unwrap();
    let (code, v) = compare_json(
        &d,
        "draw.toml",
        "cap",
        &["--no-explain", "--mismatches", "20"],
    );
    assert_eq!(code, 1);
    let r = &v["resources"][0];
    assert_eq!(r["differing_elements"], 16);
    assert_eq!(r["largest_ulp"]["ulp"], 16);
    let m = r["mismatches"].as_array().unwrap();
    assert_eq!(m.len(), 16);
    for (x, m) in m.iter().enumerate() {
        assert_eq!(m["at"], format!("({x}, 3) b"));
        assert_eq!(m["ulp"], 16);
        assert_eq!(m["writer"]["pixel"], serde_json::json!([x, 3]));
        assert_eq!(m["writer"]["primitive"], draw_primitive(x as u32, 3));
    }
    // Both primitives are named along the row.
    assert!(
        (0..16).any(|x| draw_primitive(x, 3) == 0) && (0..16).any(|x| draw_primitive(x, 3) == 1)
    );
    let heat = image::open(d.join("out/compare/cap/rt0.diff.png"))
        .unwrap()
        .to_rgb8();
    assert_eq!(heat.dimensions(), (16, 8));
    assert_eq!(heat.get_pixel(4, 2).0, [0, 0, 0]);
    assert_ne!(heat.get_pixel(4, 3).0, [0, 0, 0]);
    let side = image::open(d.join("out/compare/cap/rt0.side.png")).unwrap();
    assert_eq!(side.width(), 16 * 3 + 8);
}

/// Render targets and depth in D3D12 readback layout (rows of 64 bytes padded to 256)
/// read back to the same texels, and a texel changed in the padded file is found,
/// located and attributed.
#[test]
fn padded_render_target_captures_read_correctly() {
    let d = workdir("draw-padded");
    record(&d, "draw.toml", "cap", &[]);
    let cap = d.join("cap");
    let pad = |name: &str, last_padded: bool| -> Vec<u8> {
        let tight = std::fs::read(cap.join(name)).unwrap();
        assert_eq!(tight.len(), 8 * 64);
        let mut out = Vec::new();
        for (y, row) in tight.chunks(64).enumerate() {
            out.extend_from_slice(row);
            if y < 7 || last_padded {
                out.resize(out.len() + 256 - 64, 0xcd);
            }
        }
        out
    };
    let mut rt0 = pad("rt0.bin", false);
    assert_eq!(rt0.len(), 7 * 256 + 64);
    std::fs::write(cap.join("depth-d3d12.bin"), pad("depth.bin", true)).unwrap();
    std::fs::write(cap.join("rt0-d3d12.bin"), &rt0).unwrap();
    let extra = "\n[[resource]]\nrender_target = 0\nfile = \"rt0-d3d12.bin\"\nlayout = \"d3d12\"\n\n[[resource]]\ndepth_stencil = true\nfile = \"depth-d3d12.bin\"\nrow_pitch = 256\n";
    let p = cap.join("capture.toml");
    std::fs::write(&p, std::fs::read_to_string(&p).unwrap() + extra).unwrap();
    let (code, v) = compare_json(&d, "draw.toml", "cap", &[]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(v["resources"].as_array().unwrap().len(), 5);
    rt0[4 * 256 + 9 * 4 + 2] += 1; // blue of (9, 4) in the padded file
    rt0[4 * 256 + 100] = 0; // padding: never compared
    std::fs::write(cap.join("rt0-d3d12.bin"), &rt0).unwrap();
    let (code, v) = compare_json(&d, "draw.toml", "cap", &["--no-explain"]);
    assert_eq!(code, 1);
    let r = &v["resources"][3];
    assert_eq!(r["entry"], "[[resource]] #4 (rt0)");
    assert_eq!(r["differing_components"], 1);
    let m = &r["mismatches"][0];
    assert_eq!(
        (m["at"].as_str(), m["ulp"].as_u64()),
        (Some("(9, 4) b"), Some(1))
    );
    assert_eq!(m["writer"]["pixel"], serde_json::json!([9, 4]));
    assert_eq!(m["writer"]["primitive"], draw_primitive(9, 4));
}

/// A multisampled target: `--record` writes every sample plane; one sample of one texel
/// changed is found at its sample. A resolved image (`resolved = true`, the
/// `ResolveSubresource` + readback a D3D12 harness makes, here in D3D12 layout) compares
/// with dxlane's resolve.
#[test]
fn multisampled_targets_compare_per_sample_or_resolved() {
    let d = workdir("draw-msaa");
    record(&d, "draw_msaa.toml", "cap", &[]);
    let cap = d.join("cap");
    let mut planes = std::fs::read(cap.join("rt0.bin")).unwrap();
    assert_eq!(planes.len(), 4 * 16 * 8 * 4);
    // The resolved image, as the run wrote it, repacked as a padded readback.
    let resolved = std::fs::read(d.join("out/resolved.bin")).unwrap();
    let mut padded = Vec::new();
    for row in resolved.chunks(64) {
        padded.extend_from_slice(row);
        padded.resize(padded.len() + 192, 0);
    }
    std::fs::write(cap.join("rt0-resolved.bin"), &padded).unwrap();
    let extra = "\n[[resource]]\nrender_target = 0\nresolved = true\nfile = \"rt0-resolved.bin\"\nlayout = \"d3d12\"\n";
    let p = cap.join("capture.toml");
    std::fs::write(&p, std::fs::read_to_string(&p).unwrap() + extra).unwrap();
    let (code, v) = compare_json(&d, "draw_msaa.toml", "cap", &[]);
    assert_eq!(code, 0, "{v}");
    assert_eq!(
        v["resources"][0]["kind"],
        "render target, 4 samples, R8G8B8A8_UNORM"
    );
    assert_eq!(v["resources"][0]["elements"], 4 * 128);
    assert_eq!(
        v["resources"][1]["kind"],
        "render target, 4 samples resolved, R8G8B8A8_UNORM"
    );
    assert_eq!(v["resources"][1]["elements"], 128);
    // Sample 2 of (6, 5), green; sample-major planes.
    planes[2 * 512 + (5 * 16 + 6) * 4 + 1] += 1;
    std::fs::write(cap.join("rt0.bin"), &planes).unwrap();
    let (code, v) = compare_json(&d, "draw_msaa.toml", "cap", &["--no-explain"]);
    assert_eq!(code, 1);
    let m = &v["resources"][0]["mismatches"][0];
    assert_eq!(m["at"], "(6, 5) sample 2 g");
    assert_eq!(m["location"]["sample"], 2);
    assert_eq!(m["writer"]["pixel"], serde_json::json!([6, 5]));
    // The program runs per pixel, not per sample: the debug command names the pixel.
    assert_eq!(
        m["writer"]["debug"],
        "dxlane debug draw_msaa.toml --pixel 6,5"
    );
    assert_eq!(v["resources"][1]["differing_components"], 0);
    assert_eq!(
        v["resources"][0]["images"]["diff"][0],
        "out/compare/cap/rt0.sub0.sample2.diff.png"
    );
}

/// A draw captured under warp-1.0.13 (multiply-adds not fused) and compared under the
/// newest WARP: rt1 (whose values are a mad's rounding) differs and explain finds the
/// preset and the FMA rule by rerunning the draw; rt0 and depth stay equal.
#[test]
fn explain_finds_fusion_in_a_draw_captured_under_1_0_13() {
    let d = workdir("draw-explain");
    record(&d, "draw.toml", "cap", &["--profile", "warp-1.0.13"]);
    drop_profile(&d.join("cap"));
    let (code, v) = compare_json(&d, "draw.toml", "cap", &["--no-images"]);
    assert_eq!(code, 1);
    assert_eq!(v["profile"]["name"], Profile::latest().name());
    assert_eq!(v["resources"][0]["differing_components"], 0);
    assert_eq!(v["resources"][2]["differing_components"], 0);
    assert!(v["resources"][1]["differing_components"].as_u64().unwrap() > 100);
    let e = &v["explain"];
    let matches: Vec<&str> = e["matches"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m.as_str().unwrap())
        .collect();
    assert!(matches.contains(&"warp-1.0.13"), "{e}");
    assert!(matches.contains(&"fuse_mad = false"), "{e}");
    assert!(
        e["verdict"].as_str().unwrap().contains("warp-1.0.13"),
        "{e}"
    );
}

/// The text report of a draw, as a snapshot: the 1.0.13 capture, its pixel lanes and
/// debug commands, and the explanation.
#[test]
fn draw_text_report_snapshot() {
    let d = workdir("draw-snapshot");
    record(&d, "draw.toml", "cap13", &["--profile", "warp-1.0.13"]);
    drop_profile(&d.join("cap13"));
    let (code, out, _) = compare_text(&d, &["draw.toml", "cap13", "--mismatches", "3"]);
    assert_eq!(code, 1);
    common::assert_snapshot("capture/draw.txt", &normalized(&out, &d));
}

/// Bad draw captures: a render-target index the draw lacks, a file of the wrong size,
/// depth of a draw without one, `resolved` of a one-sample target, a render target of a
/// compute job — each refused with exit 2, naming the entry (and the byte); the capture
/// folder is never written.
#[test]
fn bad_draw_captures_are_refused_by_name() {
    let d = workdir("draw-bad");
    record(&d, "draw.toml", "cap", &[]);
    record(&d, "draw_msaa.toml", "capm", &[]);
    let cap = d.join("cap");
    let manifest = std::fs::read_to_string(cap.join("capture.toml")).unwrap();
    let mut all = String::new();
    let mut check = |name: &str, job: &str, cap_name: &str, want: &[&str]| {
        let before = listing(&d.join(cap_name));
        let (code, out, err) = compare_text(&d, &[job, cap_name, "--any-job"]);
        assert_eq!(code, 2, "{name}: {out}{err}");
        for w in want {
            assert!(err.contains(w), "{name}: {w:?} not in {err}");
        }
        assert_eq!(
            listing(&d.join(cap_name)),
            before,
            "{name}: wrote into the capture"
        );
        all.push_str(&format!("{name}\n{}\n", normalized(&err, &d)));
    };
    edit_manifest(&cap, "render_target = 1", "render_target = 2");
    check(
        "render target the draw lacks",
        "draw.toml",
        "cap",
        &["[[resource]] #2 (rt2)", "the draw has 2 render targets"],
    );
    std::fs::write(cap.join("capture.toml"), &manifest).unwrap();
    let rt0 = std::fs::read(cap.join("rt0.bin")).unwrap();
    std::fs::write(cap.join("rt0.bin"), &rt0[..rt0.len() - 10]).unwrap();
    check(
        "short render target",
        "draw.toml",
        "cap",
        &[
            "[[resource]] #1 (rt0)",
            "is 502 bytes",
            "the file ends at byte 502, inside row 7",
        ],
    );
    std::fs::write(cap.join("rt0.bin"), [&rt0[..], &[0u8; 4]].concat()).unwrap();
    check(
        "long render target",
        "draw.toml",
        "cap",
        &[
            "[[resource]] #1 (rt0)",
            "is 516 bytes",
            "4 bytes past the layout's end",
        ],
    );
    std::fs::write(cap.join("rt0.bin"), &rt0).unwrap();
    edit_manifest(
        &cap,
        "render_target = 0",
        "render_target = 0\nresolved = true",
    );
    check(
        "resolved one-sample target",
        "draw.toml",
        "cap",
        &["[[resource]] #1 (rt0)", "has one sample"],
    );
    std::fs::write(cap.join("capture.toml"), &manifest).unwrap();
    let capm = d.join("capm");
    let p = capm.join("capture.toml");
    std::fs::write(
        &p,
        std::fs::read_to_string(&p).unwrap() + "\n[[resource]]\ndepth = true\nfile = \"rt0.bin\"\n",
    )
    .unwrap();
    check(
        "depth of a draw without one",
        "draw_msaa.toml",
        "capm",
        &["[[resource]] #2 (depth)", "no [draw.depth_stencil]"],
    );
    let no_md5: String = manifest
        .lines()
        .filter(|l| !l.starts_with("program_md5"))
        .map(|l| format!("{l}\n"))
        .collect();
    std::fs::write(cap.join("capture.toml"), no_md5).unwrap();
    check(
        "render target of a compute job",
        "grid.toml",
        "cap",
        &["[[resource]] #1 (rt0)", "belong to draw jobs"],
    );
    common::assert_snapshot("capture/draw_errors.txt", &all);
}

/// The committed draw capture (examples/capture_msaa: msaa.toml's target per sample and
/// resolved in D3D12 layout) compares with exit 0, writing nothing into the example.
#[test]
fn the_committed_draw_example_compares() {
    let root = common::root();
    let before = listing(&root.join("examples/capture_msaa"));
    let (code, out, err) = compare_text(&root, &["examples/msaa.toml", "examples/capture_msaa"]);
    assert_eq!(code, 0, "{out}{err}");
    assert!(
        out.contains(
            "rt0 (render target, 4 samples, R8G8B8A8_UNORM, exact): equal (9,216 elements)"
        ) && out.contains(
            "rt0 (render target, 4 samples resolved, R8G8B8A8_UNORM, exact): equal (2,304 elements)"
        ) && out.contains("result    equal: 2 resources compared"),
        "{out}"
    );
    assert_eq!(listing(&root.join("examples/capture_msaa")), before);
}

/// `examples/lists/two_pass_scan.toml` in `d` as `scan.toml`, its input inline and its
/// program named by absolute path.
fn scan_job(d: &Path) {
    let text =
        std::fs::read_to_string(common::root().join("examples/lists/two_pass_scan.toml")).unwrap();
    let iota: Vec<String> = (0..256).map(|i| i.to_string()).collect();
    let text = text
        .replace(
            "../../shaders",
            &common::root().join("shaders").display().to_string(),
        )
        .replace(
            "data = { file = \"../data/iota256.bin\" }",
            &format!("data = {{ u32 = [{}] }}", iota.join(", ")),
        );
    std::fs::write(d.join("scan.toml"), text).unwrap();
}

/// A command list's capture (`--record`, and `--record-after N,M`: the named resources
/// as command N left them, `event = N` in the manifest) compares equal with the list it
/// came from, each entry named `resource = "name"`; the capture after command 1 holds
/// pass 1's sums and no block sums yet (`block_sums` is resource #4; the list's
/// expectation gives its values after pass 2), and compared with the whole list (its
/// `event` removed) the copy's destination differs. A changed word is found and named
/// by resource; bad events and names are refused naming them.
#[test]
fn a_command_list_is_recorded_and_compared_by_event() {
    let d = workdir("list");
    scan_job(&d);
    record(&d, "scan.toml", "cap", &["--record-after", "1,3"]);
    let cap = d.join("cap");
    let manifest = std::fs::read_to_string(cap.join("capture.toml")).unwrap();
    assert!(
        manifest.contains("resource = \"block_sums\"") && !manifest.contains("event"),
        "{manifest}"
    );
    let after1 = std::fs::read_to_string(cap.join("event-1/capture.toml")).unwrap();
    assert!(after1.contains("event = 1"), "{after1}");
    assert_eq!(
        words(&cap.join("resource4.bin"))[..5],
        [2016, 8128, 18336, 32640, 32640]
    );
    assert!(
        words(&cap.join("event-1/resource4.bin"))
            .iter()
            .all(|&w| w == 0)
    );
    // Pass 1's running sum of group 0: 0 + 1 + … + i.
    assert_eq!(words(&cap.join("event-1/resource2.bin"))[..4], [0, 1, 3, 6]);

    for c in ["cap", "cap/event-1", "cap/event-3"] {
        let (code, v) = compare_json(&d, "scan.toml", c, &["--threads", "1"]);
        assert_eq!((code, &v["result"]), (0, &Value::from("equal")), "{c}: {v}");
        let r = v["resources"].as_array().unwrap();
        assert_eq!(r.len(), 6, "{c}");
        assert_eq!(r[3]["target"], "block_sums");
    }

    // Without its event, the capture after command 1 is compared with the whole list:
    // pass 2's block sums and the copy differ.
    edit_manifest(&cap.join("event-1"), "event = 1\n", "");
    let (code, v) = compare_json(&d, "scan.toml", "cap/event-1", &["--no-explain"]);
    assert_eq!(code, 1);
    let differ: Vec<&str> = v["resources"]
        .as_array()
        .unwrap()
        .iter()
        .filter(|r| r["differing_elements"].as_u64() != Some(0))
        .map(|r| r["target"].as_str().unwrap())
        .collect();
    assert_eq!(differ, ["block_sums", "kept"]);

    let mut w = words(&cap.join("resource4.bin"));
    w[2] += 1;
    write_words(&cap.join("resource4.bin"), &w);
    let (code, v) = compare_json(&d, "scan.toml", "cap", &["--no-explain"]);
    assert_eq!(code, 1);
    let r = &v["resources"][3];
    assert_eq!(
        (r["target"].as_str(), r["differing_elements"].as_u64()),
        (Some("block_sums"), Some(1))
    );
    assert_eq!(r["mismatches"][0]["at"], "[2]");
    // Named by event and lane: pass 2 (event 2) wrote it, through the thread the
    // debugger's own lookup (`--element`) names.
    let w = &r["mismatches"][0]["writer"];
    assert_eq!(w["event"], 2, "{w}");
    let o = dxlane(
        &[
            "debug",
            "scan.toml",
            "--element",
            "block_sums[2]",
            "-c",
            "where",
        ],
        &d,
    );
    let line = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(line.starts_with("event 2: "), "{line}");
    let flags = flags_after(&line, "was last written by ");
    assert_eq!(
        w["debug"],
        format!("dxlane debug scan.toml --event 2 {flags}")
    );
    assert!(
        w["lane"]
            .as_str()
            .unwrap()
            .starts_with("event 2 (dispatch): thread"),
        "{w}"
    );

    let o = dxlane(
        &[
            "run",
            "scan.toml",
            "-q",
            "--record",
            "bad",
            "--record-after",
            "9",
        ],
        &d,
    );
    let e = String::from_utf8_lossy(&o.stderr);
    assert_eq!(o.status.code(), Some(2));
    assert!(
        e.contains("--record-after 9: the list has commands 1 to 4"),
        "{e}"
    );
    edit_manifest(&cap.join("event-3"), "event = 3", "event = 7");
    let (code, _, e) = compare_text(&d, &["scan.toml", "cap/event-3"]);
    assert_eq!(code, 2);
    assert!(
        e.contains("`event` 7") && e.contains("commands 1 to 4"),
        "{e}"
    );
    edit_manifest(&cap.join("event-3"), "event = 7", "event = 3");
    edit_manifest(
        &cap.join("event-3"),
        "resource = \"kept\"",
        "resource = \"nope\"",
    );
    let (code, _, e) = compare_text(&d, &["scan.toml", "cap/event-3"]);
    assert_eq!(code, 2);
    assert!(
        e.contains("[[resource]] #6") && e.contains("no [[resource]] named \"nope\""),
        "{e}"
    );
}

/// `examples/NAME.toml` in `d` as `NAME.toml`, its programs named by absolute path.
fn example_job(d: &Path, name: &str) {
    let text = std::fs::read_to_string(common::root().join(format!("examples/{name}.toml")))
        .unwrap()
        .replace(
            "../shaders",
            &common::root().join("shaders").display().to_string(),
        );
    std::fs::write(d.join(format!("{name}.toml")), text).unwrap();
}

/// The `dxlane debug` flags in the first ` (--…)` after `marker` in `text`.
fn flags_after(text: &str, marker: &str) -> String {
    let at = text
        .find(marker)
        .unwrap_or_else(|| panic!("{marker:?} not in:\n{text}"));
    let rest = &text[at + marker.len()..];
    let open = rest.find(" (--").unwrap_or_else(|| panic!("{text}"));
    let close = rest[open..].find(')').unwrap_or_else(|| panic!("{text}"));
    rest[open + 2..open + close].to_string()
}

/// A texel of a draw with tessellation or a geometry program leads past its pixel lane
/// (issue 33): the report names the domain lane that made the primitive's leading vertex
/// and the hull patch whose factors tessellated it, or the geometry lane that emitted it,
/// each with the `dxlane debug` command that opens it — the lane the debugger's own
/// trace-back names from that texel (`dxlane debug --texel rt0 x,y`: the pixel lane's
/// `inputs`), so both lookups agree. The text report prints the links under the pixel
/// lane's command.
#[test]
fn draw_texels_lead_to_their_geometry_domain_and_hull_lanes() {
    let d = workdir("draw-stages");
    for (name, texel, stage) in [
        ("tessellation", (64u32, 64u32), "domain"),
        ("tessellation", (40, 90), "domain"),
        ("sprites", (64, 64), "geometry"),
    ] {
        example_job(&d, name);
        let job = format!("{name}.toml");
        let _ = std::fs::remove_dir_all(d.join("cap"));
        record(&d, &job, "cap", &[]);
        let cap = d.join("cap");
        let mut rt0 = std::fs::read(cap.join("rt0.bin")).unwrap();
        let (x, y) = texel;
        let at = ((y * 128 + x) * 4) as usize;
        rt0[at] ^= 1;
        std::fs::write(cap.join("rt0.bin"), &rt0).unwrap();
        let (code, v) = compare_json(&d, &job, "cap", &["--no-explain", "--no-images"]);
        assert_eq!(code, 1, "{v}");
        let m = &v["resources"][0]["mismatches"][0];
        assert_eq!(m["at"], format!("({x}, {y}) r"), "{v}");
        let w = &m["writer"];
        assert_eq!(w["pixel"], serde_json::json!([x, y]), "{w}");
        let links = w["origin"].as_array().unwrap_or_else(|| panic!("{w}"));
        assert_eq!(links[0]["stage"], stage, "{w}");

        // The debugger, opened on the texel, names the same lane one stage up.
        let o = dxlane(
            &[
                "debug",
                &job,
                "--texel",
                "rt0",
                &format!("{x},{y}"),
                "-c",
                "inputs",
            ],
            &d,
        );
        let px = String::from_utf8_lossy(&o.stdout).into_owned();
        assert!(
            o.status.success(),
            "{px}{}",
            String::from_utf8_lossy(&o.stderr)
        );
        let flags = flags_after(&px, "the primitive's leading vertex was made by ");
        assert_eq!(
            links[0]["debug"],
            format!("dxlane debug {job} {flags}"),
            "{px}"
        );
        if stage == "domain" {
            // Domain patch p was tessellated from hull patch p's factors.
            let patch = flags
                .split(' ')
                .skip_while(|f| *f != "--ds-patch")
                .nth(1)
                .unwrap()
                .to_string();
            let inst = flags.rsplit(' ').next().unwrap();
            // The chain goes on to the domain lane's control point 0 and its patch
            // constants (`debug_chain::compare_links_follow_the_whole_chain` follows
            // every hop through the debugger).
            let pc = links
                .iter()
                .find(|l| l["made"] == "made the patch constants of the domain lane")
                .unwrap_or_else(|| panic!("{w}"));
            assert_eq!(pc["stage"], "hull");
            assert_eq!(pc["fed"], 0, "{w}");
            assert_eq!(
                pc["debug"],
                format!("dxlane debug {job} --hs-patch {patch} --patch-constant --instance {inst}")
            );
            // The command opens a lane: the hull lane's session runs.
            let o = dxlane(
                &[
                    "debug",
                    &job,
                    "--hs-patch",
                    &patch,
                    "--patch-constant",
                    "--instance",
                    inst,
                    "-c",
                    "where",
                ],
                &d,
            );
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
        } else {
            // The geometry lane, then the vertex lane of its input vertex 0.
            assert_eq!(links.len(), 2, "{w}");
            assert_eq!(
                links[0]["debug"],
                format!("dxlane debug {job} --gs-primitive 5 --gs-instance 0 --instance 0")
            );
            assert_eq!(links[1]["stage"], "vertex", "{w}");
            assert_eq!(links[1]["fed"], 0, "{w}");
        }
        let (code, text, _) = compare_text(&d, &[&job, "cap", "--no-explain", "--no-images"]);
        assert_eq!(code, 1);
        let l = links[0]["lane"].as_str().unwrap();
        assert!(
            text.contains(&format!("             {l}: "))
                && text.contains(&format!("             dxlane debug {job} {flags}\n")),
            "{text}"
        );
    }
}

/// `examples/lists/NAME.toml` in `d` as `NAME.toml`, its programs named by absolute path.
fn list_job(d: &Path, name: &str) {
    let text = std::fs::read_to_string(common::root().join(format!("examples/lists/{name}.toml")))
        .unwrap()
        .replace(
            "../../shaders",
            &common::root().join("shaders").display().to_string(),
        );
    std::fs::write(d.join(format!("{name}.toml")), text).unwrap();
}

/// Command lists per event (issue 32): a word a copy wrote last is named by its event
/// with no lane (`[[command]] #3`, a copy_resource, runs no program); a texel of a list's
/// draw names the event and the pixel lane, with the `dxlane debug JOB --event N --pixel`
/// command the debugger's own `--texel` lookup gives; `--event N` compares after command
/// N whatever the capture says (noting a capture taken after another), and an event past
/// the list is refused naming it.
#[test]
fn command_list_mismatches_name_their_event_and_lane() {
    let d = workdir("list-events");
    scan_job(&d);
    record(&d, "scan.toml", "cap", &["--record-after", "1"]);
    let cap = d.join("cap");
    let mut w = words(&cap.join("resource6.bin"));
    w[3] += 1;
    write_words(&cap.join("resource6.bin"), &w);
    let (code, v) = compare_json(&d, "scan.toml", "cap", &["--no-explain"]);
    assert_eq!(code, 1);
    let r = &v["resources"][5];
    assert_eq!(r["target"], "kept");
    let w = &r["mismatches"][0]["writer"];
    assert_eq!(w["event"], 3, "{w}");
    assert_eq!(w["debug"], "", "{w}");
    assert!(
        w["lane"]
            .as_str()
            .unwrap()
            .starts_with("event 3 (copy_resource)"),
        "{w}"
    );
    let (code, text, _) = compare_text(&d, &["scan.toml", "cap", "--no-explain"]);
    assert_eq!(code, 1);
    assert!(
        text.contains("written by event 3 (copy_resource)"),
        "{text}"
    );

    // `--event 1` compares the whole-list capture after pass 1: block_sums (pass 2's)
    // and kept (the copy's) differ, and the report says the capture was not taken there.
    let (code, v) = compare_json(&d, "scan.toml", "cap", &["--no-explain", "--event", "1"]);
    assert_eq!(code, 1);
    assert!(
        v["notes"]
            .to_string()
            .contains("compared after event 1 (--event)"),
        "{}",
        v["notes"]
    );
    // The capture taken after event 1 compares equal with `--event 1`, and differs
    // with `--event 4` (the whole list).
    let (code, v) = compare_json(&d, "scan.toml", "cap/event-1", &["--event", "1"]);
    assert_eq!(code, 0, "{v}");
    let (code, _) = compare_json(
        &d,
        "scan.toml",
        "cap/event-1",
        &["--no-explain", "--event", "4"],
    );
    assert_eq!(code, 1);
    let (code, _, e) = compare_text(&d, &["scan.toml", "cap", "--event", "9"]);
    assert_eq!(code, 2);
    assert!(e.contains("--event 9: the job has commands 1 to 4"), "{e}");

    // A list's draw: the shadow-mapped scene's lit ground.
    list_job(&d, "shadow");
    record(&d, "shadow.toml", "scap", &[]);
    let scap = d.join("scap");
    let manifest = std::fs::read_to_string(scap.join("capture.toml")).unwrap();
    let color = manifest
        .split("[[resource]]")
        .find(|e| e.contains("resource = \"color\""))
        .and_then(|e| e.split("file = \"").nth(1))
        .and_then(|f| f.split('"').next())
        .unwrap_or_else(|| panic!("{manifest}"))
        .to_string();
    let mut b = std::fs::read(scap.join(&color)).unwrap();
    let (x, y) = (64u32, 100u32);
    b[((y * 128 + x) * 4) as usize] ^= 1;
    std::fs::write(scap.join(&color), &b).unwrap();
    let (code, v) = compare_json(&d, "shadow.toml", "scap", &["--no-explain", "--no-images"]);
    assert_eq!(code, 1, "{v}");
    let m = v["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["target"] == "color")
        .map(|r| r["mismatches"][0].clone())
        .unwrap();
    let w = &m["writer"];
    assert_eq!(w["event"], 4, "{w}");
    assert_eq!(w["pixel"], serde_json::json!([x, y]), "{w}");
    let o = dxlane(
        &[
            "debug",
            "shadow.toml",
            "--texel",
            "color",
            &format!("{x},{y}"),
            "-c",
            "where",
        ],
        &d,
    );
    let line = String::from_utf8_lossy(&o.stdout).into_owned();
    assert!(line.starts_with("event 4: "), "{line}");
    let flags = flags_after(&line, "was last written by ");
    assert_eq!(
        w["debug"],
        format!("dxlane debug shadow.toml --event 4 {flags}")
    );
}

/// A ray dispatch over four libraries is recorded and compared with itself: `program_md5`
/// names the ray-generation program's library on both sides (it named the last library on
/// the compare side, which refused every such capture).
#[test]
fn a_recorded_ray_dispatch_matches_itself() {
    if common::corpora().is_empty() {
        return; // `corpora()` said the corpus tests do not run
    }
    let dir = workdir("rays");
    let corpora = common::target_dir().join("corpora");
    let text = std::fs::read_to_string(common::root().join("tests/jobs/corpus/ray_tracing.toml"))
        .unwrap()
        .replace(
            "../../../target/corpora/",
            &format!("{}/", corpora.display()),
        );
    std::fs::write(dir.join("rays.toml"), text).unwrap();
    record(&dir, "rays.toml", "cap", &[]);
    let (code, v) = compare_json(&dir, "rays.toml", "cap", &[]);
    assert_eq!(code, 0, "{v}");
}

/// A texel of a mesh draw leads past its pixel lane to the mesh lanes behind its
/// primitive (issue 34): the mesh group's threads that wrote the primitive's indices and
/// per-primitive outputs and each of its vertices, and the amplification group that
/// launched the group (mesh shader spec, "Amplification shader" and "Rendering of the
/// mesh"), each with the `dxlane debug` command that opens it — the same lanes the
/// debugger names from that pixel. The IR programs of `tests/all/mesh.rs`: two
/// amplification groups each launch three mesh groups; thread t of a mesh group writes
/// vertex t and threads 0 and 1 primitive t; pixel (1, 1) is last written by primitive 1
/// (2, 1, 3) of mesh group (2, 0, 0) of amplification group (1, 0, 0).
#[test]
fn mesh_draw_texels_lead_to_their_mesh_and_amplification_lanes() {
    use crate::mesh::{Ms, PLAIN, PS, amplification_text, mesh_text};
    let d = workdir("mesh-lanes");
    std::fs::write(
        d.join("payload.ms.ir"),
        mesh_text(Ms {
            payload: true,
            ..PLAIN
        }),
    )
    .unwrap();
    std::fs::write(
        d.join("amp.as.ir"),
        amplification_text([3, 1, 1], 1.0, true, false),
    )
    .unwrap();
    std::fs::write(d.join("prim.ps.ir"), PS).unwrap();
    std::fs::write(
        d.join("mesh.toml"),
        "[program]\nas = \"amp.as.ir\"\nms = \"payload.ms.ir\"\nps = \"prim.ps.ir\"\n[draw]\ndispatch_mesh = [2, 1, 1]\n\n\
         [draw.rasterizer]\ncull = \"NONE\"\n\n[[draw.render_target]]\nformat = \"R8G8B8A8_UNORM\"\nwidth = 4\nheight = 4\n",
    )
    .unwrap();
    record(&d, "mesh.toml", "cap", &[]);
    let mut rt0 = std::fs::read(d.join("cap/rt0.bin")).unwrap();
    rt0[(4 + 1) * 4] ^= 1;
    std::fs::write(d.join("cap/rt0.bin"), &rt0).unwrap();
    let (code, v) = compare_json(&d, "mesh.toml", "cap", &["--no-explain", "--no-images"]);
    assert_eq!(code, 1, "{v}");
    let m = &v["resources"][0]["mismatches"][0];
    assert_eq!(m["at"], "(1, 1) r", "{v}");
    let w = &m["writer"];
    assert_eq!(
        w["debug"], "dxlane debug mesh.toml --pixel 1,1 --prim 5",
        "{w}"
    );
    let links = w["origin"].as_array().unwrap_or_else(|| panic!("{w}"));
    let want = [
        (
            "mesh",
            "mesh group (2, 0, 0), thread (1, 0, 0), launched by amplification group (1, 0, 0) (primitive 1 of the group)",
            "wrote the primitive's indices and per-primitive outputs, vertex 1's outputs",
            "dxlane debug mesh.toml --as-group 1,0,0 --ms-group 2,0,0 --ms-thread 1,0,0",
        ),
        (
            "mesh",
            "mesh group (2, 0, 0), thread (2, 0, 0), launched by amplification group (1, 0, 0) (primitive 1 of the group)",
            "wrote vertex 2's outputs",
            "dxlane debug mesh.toml --as-group 1,0,0 --ms-group 2,0,0 --ms-thread 2,0,0",
        ),
        (
            "mesh",
            "mesh group (2, 0, 0), thread (3, 0, 0), launched by amplification group (1, 0, 0) (primitive 1 of the group)",
            "wrote vertex 3's outputs",
            "dxlane debug mesh.toml --as-group 1,0,0 --ms-group 2,0,0 --ms-thread 3,0,0",
        ),
        (
            "amplification",
            "amplification group (1, 0, 0)",
            "launched mesh group (2, 0, 0) with its payload",
            "dxlane debug mesh.toml --as-group 1,0,0 --as-thread 0,0,0",
        ),
    ];
    assert_eq!(links.len(), want.len(), "{w}");
    for (l, (stage, lane, made, debug)) in links.iter().zip(want) {
        assert_eq!(l["stage"], stage, "{l}");
        assert_eq!(l["lane"], lane, "{l}");
        assert_eq!(l["made"], made, "{l}");
        assert_eq!(l["debug"], debug, "{l}");
    }
    // Each command opens its lane.
    for l in links {
        let cmd = l["debug"].as_str().unwrap();
        let args: Vec<&str> = cmd.split(' ').skip(1).collect();
        let o = dxlane(&args, &d);
        assert!(
            o.status.success(),
            "{cmd}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    // The text report prints the links under the pixel lane's command.
    let (code, text, _) = compare_text(&d, &["mesh.toml", "cap", "--no-explain", "--no-images"]);
    assert_eq!(code, 1);
    assert!(
        text.contains(
            "             dxlane debug mesh.toml --as-group 1,0,0 --ms-group 2,0,0 --ms-thread 3,0,0\n"
        ),
        "{text}"
    );
}
