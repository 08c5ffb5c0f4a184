//! `dxlane offload`: the offload test suite's pipelines (`tests/offload/*.test`, in the
//! suite's own format) run through the command as the suite's lit would run them, their
//! output checked by their `CHECK:` lines; then bad pipelines and command lines, each an
//! error naming the file, line or option and exit status 1 (as `offloader`), never a
//! panic; and `--api-query`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;

fn dxlane() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dxlane"))
}

/// A test file split as `split-file` splits it: `#--- name` or `//--- name` opens a
/// file, `#--- end` closes the last; the rest is the lit part.
fn split(text: &str) -> (Vec<(String, String)>, String) {
    let mut files: Vec<(String, String)> = Vec::new();
    let mut lit = String::new();
    let mut current: Option<usize> = None;
    for line in text.lines() {
        let marker = line
            .strip_prefix("#--- ")
            .or_else(|| line.strip_prefix("//--- "));
        match marker {
            Some("end") => current = None,
            Some(name) => {
                files.push((name.trim().to_string(), String::new()));
                current = Some(files.len() - 1);
            }
            None => match current {
                Some(i) => {
                    files[i].1.push_str(line);
                    files[i].1.push('\n');
                }
                None => {
                    lit.push_str(line);
                    lit.push('\n');
                }
            },
        }
    }
    (files, lit)
}

/// FileCheck's `CHECK:` and `CHECK-NEXT:` on `output`: each pattern, its whitespace
/// runs matching any run of whitespace, found after the end of the previous match (on
/// the same line or later; `CHECK-NEXT` on the line after the previous match's).
fn file_check(output: &str, lit: &str) -> Result<(), String> {
    let norm = |s: &str| s.split_whitespace().collect::<Vec<_>>().join(" ");
    let text: String = output.lines().map(|l| norm(l) + "\n").collect();
    let mut cursor = 0usize;
    for l in lit.lines() {
        let l = l.trim_start_matches('#').trim();
        let (next, pat) = if let Some(p) = l.strip_prefix("CHECK-NEXT:") {
            (true, p)
        } else if let Some(p) = l.strip_prefix("CHECK:") {
            (false, p)
        } else {
            continue;
        };
        let pat = norm(pat);
        let from = if next {
            match text[cursor..].find('\n') {
                Some(i) => cursor + i + 1,
                None => return Err(format!("CHECK-NEXT: `{pat}`: no next line")),
            }
        } else {
            cursor
        };
        let Some(i) = text[from..].find(&pat) else {
            return Err(format!("CHECK: `{pat}` not found after byte {from}"));
        };
        if next && text[from..from + i].contains('\n') {
            return Err(format!("CHECK-NEXT: `{pat}` is not on the next line"));
        }
        cursor = from + i + pat.len();
    }
    Ok(())
}

struct Case {
    files: Vec<(String, String)>,
    lit: String,
}

fn load(path: &Path) -> Case {
    let (files, lit) = split(&std::fs::read_to_string(path).unwrap());
    Case { files, lit }
}

/// The file a lit path such as `%t.o` or `%t-vertex.o` names, in the case's folder.
fn object(dir: &Path, word: &str) -> PathBuf {
    dir.join(format!(
        "obj{}",
        word.trim_start_matches("%t").replace('/', "_")
    ))
}

/// The string of an HLSL `[RootSignature("...")]` attribute, if the source has one.
fn root_signature_attribute(hlsl: &str) -> Option<String> {
    let at = hlsl.find("[RootSignature(\"")? + "[RootSignature(\"".len();
    let end = hlsl[at..].find('"')?;
    Some(hlsl[at..at + end].to_string())
}

/// The root signature language's top-level items, split at commas outside parentheses.
fn items(s: &str) -> Vec<String> {
    let (mut out, mut cur, mut depth) = (Vec::new(), String::new(), 0i32);
    for c in s.chars() {
        match c {
            '(' => depth += 1,
            ')' => depth -= 1,
            ',' if depth == 0 => {
                out.push(cur.trim().to_string());
                cur.clear();
                continue;
            }
            _ => {}
        }
        cur.push(c);
    }
    if !cur.trim().is_empty() {
        out.push(cur.trim().to_string());
    }
    out
}

/// `(register, space, num32BitConstants)` of an item's arguments (`b2, space = 1`).
fn registers(args: &str) -> Result<(u32, u32, u32), String> {
    let (mut reg, mut space, mut count) = (None, 0, 0);
    for a in items(args) {
        let a: String = a.chars().filter(|c| !c.is_whitespace()).collect();
        if let Some(v) = a.strip_prefix("space=") {
            space = v.parse().map_err(|_| format!("space `{v}`"))?;
        } else if let Some(v) = a.strip_prefix("num32BitConstants=") {
            count = v.parse().map_err(|_| format!("count `{v}`"))?;
        } else if a.len() > 1 && "btus".contains(&a[..1]) {
            reg = Some(a[1..].parse().map_err(|_| format!("register `{a}`"))?);
        } else {
            return Err(format!("root signature argument `{a}`"));
        }
    }
    Ok((reg.ok_or("no register")?, space, count))
}

/// The RTS0 bytes of a root signature in HLSL's root signature language: the subset
/// these tests use (`RootConstants`, `CBV`, `SRV`, `UAV`, `DescriptorTable` of
/// `SRV`/`UAV`/`CBV` ranges of one descriptor each).
fn root_signature(text: &str) -> Result<Vec<u8>, String> {
    use dxlane::container::rts0::{
        DescriptorRange, RegisterClass as C, RootParameter, RootParameterKind as K, RootSignature,
    };
    let mut parameters = Vec::new();
    for item in items(text) {
        let open = item.find('(').ok_or(format!("`{item}`"))?;
        let (name, args) = (item[..open].trim(), &item[open + 1..item.len() - 1]);
        let kind = match name {
            "RootConstants" => {
                let (register, space, values) = registers(args)?;
                K::Constants {
                    register,
                    space,
                    count: values,
                }
            }
            "CBV" | "SRV" | "UAV" => {
                let (register, space, _) = registers(args)?;
                let class = match name {
                    "CBV" => C::Cbv,
                    "SRV" => C::Srv,
                    _ => C::Uav,
                };
                K::Descriptor {
                    class,
                    register,
                    space,
                }
            }
            "DescriptorTable" => {
                let mut ranges = Vec::new();
                for r in items(args) {
                    let open = r.find('(').ok_or(format!("`{r}`"))?;
                    let (register, space, _) = registers(&r[open + 1..r.len() - 1])?;
                    let class = match r[..open].trim() {
                        "SRV" => C::Srv,
                        "UAV" => C::Uav,
                        "CBV" => C::Cbv,
                        other => return Err(format!("range `{other}`")),
                    };
                    ranges.push(DescriptorRange {
                        class,
                        count: 1,
                        base_register: register,
                        space,
                        offset: u32::MAX,
                    });
                }
                K::Table { ranges }
            }
            other => return Err(format!("root signature item `{other}`")),
        };
        parameters.push(RootParameter {
            kind,
            visibility: 0,
        });
    }
    Ok(dxlane::container::rts0::serialize(&RootSignature {
        version: 2,
        parameters,
        static_samplers: 0,
        flags: 0,
    }))
}

/// `container` with one more part, its directory, size and digest rewritten.
fn with_part(container: &[u8], tag: [u8; 4], data: &[u8]) -> Vec<u8> {
    let word = |i: usize| u32::from_le_bytes(container[i..i + 4].try_into().unwrap());
    let count = word(28) as usize;
    let mut out = container[..32].to_vec();
    for i in 0..count {
        out.extend_from_slice(&(word(32 + 4 * i) + 4).to_le_bytes());
    }
    let end = container.len() as u32 + 4;
    out.extend_from_slice(&end.to_le_bytes());
    out.extend_from_slice(&container[32 + 4 * count..]);
    out.extend_from_slice(&tag);
    out.extend_from_slice(&(data.len() as u32).to_le_bytes());
    out.extend_from_slice(data);
    let total = out.len() as u32;
    out[24..28].copy_from_slice(&total.to_le_bytes());
    out[28..32].copy_from_slice(&(count as u32 + 1).to_le_bytes());
    let digest = dxlane::container::compute_digest(&out);
    out[4..20].copy_from_slice(&digest);
    out
}

/// Runs one test file: writes its files, compiles each `%dxc_target` line's HLSL file
/// for its `-T` profile (and `-E` entry) into its `-Fo` file, runs `dxlane offload` as
/// its `%offloader` line says, with the compiled files it names in order.
fn run_case(name: &str, compiler: &std::ffi::OsStr) -> Result<(), String> {
    run_case_in(
        name,
        compiler,
        &common::scratch().join("offload").join(name),
    )
}

/// [`run_case`] in the folder `dir` (tests that run a case again use their own, so that
/// tests running at once do not share one).
fn run_case_in(name: &str, compiler: &std::ffi::OsStr, dir: &Path) -> Result<(), String> {
    let case = load(&common::root().join("tests/offload").join(name));
    let dir = dir.to_path_buf();
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (n, text) in &case.files {
        std::fs::write(dir.join(n), text).unwrap();
    }
    let run_lines: Vec<&str> = case
        .lit
        .lines()
        .filter_map(|l| l.trim_start_matches('#').trim().strip_prefix("RUN:"))
        .map(str::trim)
        .collect();
    let compiles: Vec<&&str> = run_lines
        .iter()
        .filter(|l| l.starts_with("%dxc_target"))
        .collect();
    if compiles.is_empty() {
        return Err("no %dxc_target line".into());
    }
    for compile in compiles {
        let words: Vec<&str> = compile.split_whitespace().collect();
        let after = |flag: &str| words.windows(2).find(|w| w[0] == flag).map(|w| w[1]);
        let profile = after("-T").ok_or("no -T")?;
        let output = after("-Fo").ok_or("no -Fo")?;
        let source = words
            .iter()
            .find(|w| w.ends_with(".hlsl"))
            .and_then(|w| w.rsplit('/').next())
            .ok_or("no source")?;
        let mut cmd = Command::new(compiler);
        cmd.args(["-p", profile, "-o"]).arg(object(&dir, output));
        if let Some(entry) = after("-E") {
            cmd.args(["-e", entry]);
        }
        let out = cmd.arg(dir.join(source)).output().unwrap();
        if !out.status.success() {
            return Err(format!("compile: {}", String::from_utf8_lossy(&out.stderr)));
        }
        // vkd3d-compiler ignores `[RootSignature(...)]`; DXC puts it in an RTS0 part.
        let hlsl = std::fs::read_to_string(dir.join(source)).unwrap();
        if let Some(sig) = root_signature_attribute(&hlsl) {
            let rts0 = root_signature(&sig)?;
            let obj = object(&dir, output);
            let with = with_part(&std::fs::read(&obj).unwrap(), *b"RTS0", &rts0);
            std::fs::write(&obj, with).unwrap();
        }
    }
    let offload = run_lines
        .iter()
        .find(|l| l.contains("%offloader"))
        .ok_or("no %offloader line")?;
    let expect_failure = offload.starts_with("not ");
    let pipeline = offload
        .split_whitespace()
        .find(|w| w.ends_with(".yaml"))
        .and_then(|w| w.rsplit('/').next())
        .ok_or("no pipeline")?;
    let programs: Vec<PathBuf> = offload
        .split_whitespace()
        .filter(|w| w.starts_with("%t") && !w.ends_with(".yaml"))
        .map(|w| object(&dir, w))
        .collect();
    let out = dxlane()
        .arg("offload")
        .arg(dir.join(pipeline))
        .args(&programs)
        .args(["--threads", "2"])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout).into_owned();
    let stderr = String::from_utf8_lossy(&out.stderr).into_owned();
    let code = out.status.code();
    if expect_failure != (code == Some(1)) || !(code == Some(0) || code == Some(1)) {
        return Err(format!(
            "exit {code:?} (expected {}):\n{stdout}\n{stderr}",
            if expect_failure { 1 } else { 0 }
        ));
    }
    let checked = if offload.contains("2>&1") {
        stdout.clone() + &stderr
    } else {
        stdout.clone()
    };
    file_check(&checked, &case.lit).map_err(|e| format!("{e}\n--- output:\n{checked}"))
}

/// Every test file in `tests/offload` runs and matches its `CHECK:` lines.
#[test]
fn offload_suite_files_pass() {
    let Some(compiler) = common::vkd3d_compiler("the offload pipelines") else {
        return;
    };
    let mut names: Vec<String> = std::fs::read_dir(common::root().join("tests/offload"))
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|n| n.ends_with(".test"))
        .collect();
    names.sort();
    assert!(names.len() >= 6, "{names:?}");
    let failures: Vec<String> = names
        .iter()
        .filter_map(|n| run_case(n, &compiler).err().map(|e| format!("{n}: {e}")))
        .collect();
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}

/// The checker itself: a pattern that is not there fails, `CHECK-NEXT` wants the next
/// line.
#[test]
fn the_checker_can_fail() {
    let out = "a: 1\nb:   2\nc: 3\n";
    assert!(file_check(out, "# CHECK: a: 1\n# CHECK-NEXT: b: 2\n").is_ok());
    assert!(file_check(out, "# CHECK: a: 1\n# CHECK-NEXT: c: 3\n").is_err());
    assert!(file_check(out, "# CHECK: c: 3\n# CHECK: a: 1\n").is_err());
    assert!(file_check(out, "# CHECK: d\n").is_err());
}

fn pipeline_dir(name: &str) -> PathBuf {
    let d = common::scratch().join("offload-bad").join(name);
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    std::fs::copy(
        common::root().join("tests/jobs/double.ir"),
        d.join("double.ir"),
    )
    .unwrap();
    d
}

/// A pipeline for `tests/jobs/double.ir` (u0[i] = 2 t0[i] + 1, 8 threads): the fuzz
/// targets' seed.
const DOUBLE: &str = crate::fuzz_bodies::bodies::OFFLOAD_SEED;

fn offload(dir: &Path, yaml: &str, extra: &[&str]) -> (Option<i32>, String, String) {
    std::fs::write(dir.join("p.yaml"), yaml).unwrap();
    let out = dxlane()
        .arg("offload")
        .arg(dir.join("p.yaml"))
        .arg(dir.join("double.ir"))
        .args(["-api", "dx"])
        .args(extra)
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// The seed runs and its rule holds; each broken copy is refused with exit status 1 and
/// a message naming the line or field (`offloader`'s exit status for every error).
#[test]
fn bad_pipelines_are_named_errors() {
    let d = pipeline_dir("bad");
    let (code, out, err) = offload(&d, DOUBLE, &[]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(
        out.contains("Data:            [ 1, 3, 5, 7, 9, 11, 13, 15 ]"),
        "{out}"
    );
    let cases: [(&str, &str, &str); 10] = [
        (
            "DescriptorSets:",
            "HitGroups: []\nDescriptorSets:",
            "`HitGroups` belongs to ray tracing pipelines",
        ),
        (
            "Format: UInt32\n    FillSize",
            "Format: UInt33\n    FillSize",
            "p.yaml:",
        ),
        ("DescriptorSets:", "DescriptorSet:", "DescriptorSet"),
        (
            "Name: Want\n",
            "Name: Want\n    Bogus: 1\n",
            "p.yaml:13: Buffers[2]: unknown field `Bogus`",
        ),
        (
            "Actual: Out",
            "Actual: Nothing",
            "`Actual` buffer `Nothing` not found",
        ),
        ("Kind: StructuredBuffer", "Kind: Texture9D", "Texture9D"),
        (
            "Data: [ 0, 1, 2, 3, 4, 5, 6, 7 ]",
            "Data: [ 0, 1, -2 ]",
            "Data[2]",
        ),
        ("FillSize: 32", "FillSize: 9999999999999", "most a buffer"),
        (
            "Register: 0\n        Space: 0\n    - Name: Out",
            "Register: 0\n        Space: 0\n    - Name: Missing",
            "`Missing`: no buffer",
        ),
        (
            "Rule: BufferExact",
            "Rule: BufferFloatULP\n    ULPT: 1",
            "Float16, Float32 or Float64",
        ),
    ];
    for (from, to, want) in cases {
        assert!(DOUBLE.contains(from), "{from}");
        let (code, out, err) = offload(&d, &DOUBLE.replacen(from, to, 1), &[]);
        assert_eq!(code, Some(1), "{to}: {out}{err}");
        assert!(err.contains(want), "{to}: wanted `{want}` in {err}");
        assert!(err.starts_with("dxlane offload: error: "), "{err}");
    }
    // Two shaders named, one given; an API dxlane does not run; an unknown option.
    let two = DOUBLE.replacen(
        "Shaders:\n",
        "Shaders:\n  - Stage: Compute\n    Entry: other\n",
        1,
    );
    let (code, _, err) = offload(&d, &two, &[]);
    assert_eq!(code, Some(1));
    assert!(err.contains("expects 2 shader(s), 1 provided"), "{err}");
    let (code, _, err) = offload(&d, DOUBLE, &["-api", "vk"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("Direct3D programs only"), "{err}");
    let (code, _, err) = offload(&d, DOUBLE, &["-frobnicate"]);
    assert_eq!(code, Some(1));
    assert!(err.contains("frobnicate"), "{err}");
}

/// `-r NAME -o FILE` writes the buffer as a PNG of its `OutputProps` size; `-quiet`
/// prints nothing.
#[test]
fn image_and_quiet_outputs() {
    let d = pipeline_dir("image");
    let yaml = DOUBLE.replacen(
        "    FillSize: 32\n",
        "    FillSize: 32\n    OutputProps:\n      Height: 2\n      Width: 4\n      Depth: 1\n",
        1,
    );
    let png = d.join("out.png");
    let (code, out, err) = offload(&d, &yaml, &["-r", "Out", "-o", png.to_str().unwrap()]);
    assert_eq!(code, Some(0), "{out}{err}");
    let img = image::open(&png).unwrap().to_luma8();
    assert_eq!(img.dimensions(), (4, 2));
    // Out = 1, 3, …, 15: integers clamped to 0..255 as grey levels.
    assert_eq!(img.get_pixel(3, 1).0, [15]);
    let (code, out, _) = offload(&d, DOUBLE, &["-quiet"]);
    assert_eq!(code, Some(0));
    assert!(!out.contains("Buffers"), "{out}");
}

/// `--api-query` prints a device list the suite's lit configuration reads (`yaml`):
/// DirectX, dxlane and its profile, the features lit turns into `Int16`, `Half`,
/// `Double`, `Int64`.
#[test]
fn api_query_describes_dxlane() {
    let out = dxlane()
        .args(["offload", "--api-query", "--as-warp"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8(out.stdout).unwrap();
    let v: serde_norway::Value = serde_norway::from_str(&text).unwrap();
    let d = &v["Devices"][0];
    assert_eq!(d["API"].as_str(), Some("DirectX"));
    let desc = d["Description"].as_str().unwrap();
    assert!(
        desc.contains("dxlane") && desc.contains("warp-1.0"),
        "{desc}"
    );
    assert!(desc.contains("Microsoft Basic Render Driver"), "{desc}");
    for f in [
        "Native16BitShaderOpsSupported",
        "DoublePrecisionFloatShaderOps",
        "Int64ShaderOps",
    ] {
        assert_eq!(d["Features"][f].as_bool(), Some(true), "{f}");
    }
    // Ray tracing pipelines and inline ray queries run (`ray_tracing_pipeline_runs`,
    // `inline_ray_queries_in_compute`): tier 1.1. The shader model is the DXIL reader's.
    assert!(text.contains("    RaytracingTier: 1.1\n"), "{text}");
    let (major, minor) = dxlane::lower::dxil::HIGHEST_SHADER_MODEL;
    assert!(
        text.contains(&format!("    HighestShaderModel: {major}.{minor}\n")),
        "{text}"
    );
}

/// A UAV with `HasCounter` starts its counter at 0 and prints it back as `Counter:`
/// (the suite's `setCounters`); `HasCounter` on a view that has no counter is refused.
#[test]
fn counters_are_read_back() {
    let d = pipeline_dir("counter");
    std::fs::copy(
        common::root().join("tests/offload/counter.ir"),
        d.join("counter.ir"),
    )
    .unwrap();
    let yaml = "---
Shaders:
  - Stage: Compute
    Entry: main
Buffers:
  - Name: Log
    Format: UInt32
    ZeroInitSize: 16
DescriptorSets:
  - Resources:
    - Name: Log
      Kind: RWStructuredBuffer
      HasCounter: true
      DirectXBinding:
        Register: 1
        Space: 0
";
    std::fs::write(d.join("p.yaml"), yaml).unwrap();
    let run = |yaml: &str| {
        std::fs::write(d.join("p.yaml"), yaml).unwrap();
        dxlane()
            .arg("offload")
            .arg(d.join("p.yaml"))
            .arg(d.join("counter.ir"))
            .args(["-api", "dx"])
            .output()
            .unwrap()
    };
    let out = run(yaml);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(
        file_check(
            &text,
            "# CHECK: Name: Log\n# CHECK-NEXT: Format: UInt32\n# CHECK-NEXT: Counter: 4\n"
        )
        .is_ok(),
        "{text}"
    );
    let out = run(&yaml.replace("RWStructuredBuffer", "RWByteAddressBuffer"));
    assert_eq!(out.status.code(), Some(1));
    assert!(
        String::from_utf8_lossy(&out.stderr).contains("`HasCounter` goes with RWStructuredBuffer")
    );
}

/// A raster pipeline's render target as an image: `-r Output -o FILE.png` writes the
/// 4×4 Float32 × 4 target of `triangle_vertex_buffer.test` as RGBA, each channel
/// clamped to [0, 1] and scaled by 255; its covered corner pixel is (0.25, 0.5, 0.5,
/// 0.5), its uncovered one zero.
#[test]
fn raster_target_golden_and_png() {
    let Some(compiler) = common::vkd3d_compiler("the offload raster pipelines") else {
        return;
    };
    let name = "triangle_vertex_buffer.test";
    // Its own folder: `offload_suite_files_pass` runs the same case at the same time.
    let dir = common::scratch().join("offload-golden").join(name);
    run_case_in(name, &compiler, &dir).unwrap();
    let png = dir.join("Output.png");
    let out = dxlane()
        .arg("offload")
        .arg(dir.join("pipeline.yaml"))
        .arg(dir.join("obj-vertex.o"))
        .arg(dir.join("obj-pixel.o"))
        .args(["-r", "Output", "-o"])
        .arg(&png)
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    let img = image::open(&png).unwrap().to_rgba8();
    assert_eq!(img.dimensions(), (4, 4));
    assert_eq!(img.get_pixel(0, 0).0, [64, 128, 128, 128]);
    assert_eq!(img.get_pixel(3, 3).0, [0, 0, 0, 0]);
    // The whole printed pipeline, as a golden file.
    let out = dxlane()
        .arg("offload")
        .arg(dir.join("pipeline.yaml"))
        .arg(dir.join("obj-vertex.o"))
        .arg(dir.join("obj-pixel.o"))
        .output()
        .unwrap();
    assert!(out.status.success(), "{out:?}");
    common::assert_snapshot(
        "offload/triangle_vertex_buffer.yaml",
        &String::from_utf8_lossy(&out.stdout),
    );
}

/// `HeapIndex` resources are the SM 6.6 descriptor heaps' slots: dxil-reader's
/// `heap.dxil` (DXC, cs_6_6) takes a texture, a sampler and two structured buffers from
/// `ResourceDescriptorHeap[i]` and `SamplerDescriptorHeap[i]` by indices in b0. Slot 2
/// is left empty (a null descriptor). Thread (x, y) samples the 8×8 texture at texel
/// (x, y)'s centre, so linear filtering reads that texel alone: target[x + 8y] =
/// (x, y, x + y, 1) × source[x], source[x] = x + 1. The UAV at slot 1 is read back.
#[test]
fn heap_index_resources() {
    let Some(dir) = common::corpora()
        .iter()
        .find(|d| d.ends_with("dxil-reader"))
        .cloned()
    else {
        panic!("the dxil-reader corpus is needed (heap.dxil)");
    };
    let program = dir.join("heap.dxil");
    let list = |v: Vec<f32>| {
        v.iter()
            .map(|f| format!("{f}"))
            .collect::<Vec<_>>()
            .join(", ")
    };
    let mut image = Vec::new();
    let mut expected = Vec::new();
    for y in 0..8 {
        for x in 0..8 {
            let t = [x as f32, y as f32, (x + y) as f32, 1.0];
            image.extend(t);
            expected.extend(t.map(|c| c * (x + 1) as f32));
        }
    }
    let yaml = format!(
        "---
Shaders:
  - Stage: Compute
    Entry: main
Buffers:
  - Name: Indices
    Format: UInt32
    Data: [ 3, 0, 0, 1 ]
  - Name: Image
    Format: Float32
    Channels: 4
    Data: [ {} ]
    OutputProps:
      Height: 8
      Width: 8
      Depth: 1
  - Name: Source
    Format: Float32
    Data: [ 1, 2, 3, 4, 5, 6, 7, 8 ]
  - Name: Target
    Format: Float32
    Channels: 4
    FillSize: 1024
  - Name: Expected
    Format: Float32
    Channels: 4
    Data: [ {} ]
Samplers:
  - Name: Smp
Results:
  - Result: Target
    Rule: BufferExact
    Actual: Target
    Expected: Expected
DescriptorSets:
  - Resources:
    - Name: Indices
      Kind: ConstantBuffer
      DirectXBinding:
        Register: 0
        Space: 0
    - Name: Source
      Kind: StructuredBuffer
      HeapIndex: 0
    - Name: Target
      Kind: RWStructuredBuffer
      HeapIndex: 1
    - Name: Image
      Kind: Texture2D
      HeapIndex: 3
    - Name: Smp
      Kind: Sampler
      HeapIndex: 0
...
",
        list(image),
        list(expected)
    );
    let d = common::scratch().join("offload-heap");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let run = |yaml: &str| {
        std::fs::write(d.join("p.yaml"), yaml).unwrap();
        dxlane()
            .arg("offload")
            .arg(d.join("p.yaml"))
            .arg(&program)
            .output()
            .unwrap()
    };
    let out = run(&yaml);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{text}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(text.contains("HeapIndex:       3"), "{text}");
    // A slot taken twice, an index past dxlane's heap, and both ways of binding at once
    // are refused, naming the resource.
    for (from, to, want) in [
        (
            "HeapIndex: 3",
            "HeapIndex: 1",
            "`HeapIndex` 1 is taken twice",
        ),
        (
            "HeapIndex: 3",
            "HeapIndex: 4000000000",
            "`HeapIndex` 4000000000",
        ),
        (
            "      HeapIndex: 0\n    - Name: Target",
            "      HeapIndex: 0\n      DirectXBinding:\n        Register: 0\n        Space: 0\n    - Name: Target",
            "`Source`: give exactly one of `DirectXBinding` and `HeapIndex`",
        ),
    ] {
        assert!(yaml.contains(from), "{from}");
        let out = run(&yaml.replacen(from, to, 1));
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{to}: {err}");
        assert!(err.contains(want), "{to}: wanted `{want}` in {err}");
    }
}

/// What a raster pipeline or a root parameter cannot be is refused with exit status 1,
/// naming the field (and its line where the file has one); never a panic.
#[test]
fn raster_and_root_refusals() {
    let Some(compiler) = common::vkd3d_compiler("the offload raster pipelines") else {
        return;
    };
    let name = "triangle_vertex_buffer.test";
    let dir = common::scratch().join("offload-refusals").join(name);
    run_case_in(name, &compiler, &dir).unwrap();
    let yaml = std::fs::read_to_string(dir.join("pipeline.yaml")).unwrap();
    let root = "RuntimeSettings:\n  DirectX:\n    RootParameters:\n      - Kind: Constant\n        Name: VertexData\nBuffers:";
    let cases: [(&str, &str, &str); 7] = [
        (
            "  RenderTarget: Output\n",
            "",
            "a raster pipeline needs a `RenderTarget`",
        ),
        (
            "  RenderTarget: Output\n",
            "  RenderTarget: Output\n  Topology: PatchList\n",
            "bad.yaml:45: `Bindings: Topology: PatchList` needs `PatchControlPoints`",
        ),
        (
            "    - Format: Float32\n      Channels: 2",
            "    - Format: Float64\n      Channels: 2",
            "`Bindings: VertexAttributes[0]`: vertex attribute: `Format: Float64`",
        ),
        (
            "  RenderTarget: Output",
            "  RenderTarget: Missing",
            "`Bindings: RenderTarget`: no buffer named `Missing`",
        ),
        (
            "  - Stage: Pixel",
            "  - Stage: Geometry",
            "a Vertex pipeline needs a Pixel program",
        ),
        (
            "Buffers:",
            root,
            "bad.yaml:10: `RuntimeSettings: DirectX: RootParameters[0]`: `Constant` is bound at the register the root signature gives it, and",
        ),
        (
            "DescriptorSets: []",
            "DescriptorSets: []\nDispatchParameters:\n  DispatchGroupCount: [1, 1, 1]",
            "`DispatchParameters: DispatchGroupCount` [1, 1, 1] is for compute and mesh pipelines",
        ),
    ];
    for (from, to, want) in cases {
        assert!(yaml.contains(from), "{from}");
        std::fs::write(dir.join("bad.yaml"), yaml.replacen(from, to, 1)).unwrap();
        let out = dxlane()
            .arg("offload")
            .arg(dir.join("bad.yaml"))
            .arg(dir.join("obj-vertex.o"))
            .arg(dir.join("obj-pixel.o"))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "{to}: {err}");
        assert!(err.contains(want), "{to}: wanted `{want}` in {err}");
    }
}

/// Runs `dxlane offload` on `yaml` (written as `name` in `dir`) with `programs` and
/// `extra` arguments: (exit status, standard output, standard error).
fn offload_yaml(
    dir: &Path,
    name: &str,
    yaml: &str,
    programs: &[PathBuf],
    extra: &[&str],
) -> (Option<i32>, String, String) {
    std::fs::write(dir.join(name), yaml).unwrap();
    let out = dxlane()
        .arg("offload")
        .arg(dir.join(name))
        .args(programs)
        .args(extra)
        .args(["--threads", "2"])
        .output()
        .unwrap();
    (
        out.status.code(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// Each `(from, to, wanted)`: the pipeline with `from` replaced by `to` is refused
/// with exit status 1 and an error containing `wanted`.
fn refusals(dir: &Path, yaml: &str, programs: &[PathBuf], cases: &[(&str, &str, &str)]) {
    for (from, to, want) in cases {
        assert!(yaml.contains(from), "{from}");
        let (code, _, err) =
            offload_yaml(dir, "bad.yaml", &yaml.replacen(from, to, 1), programs, &[]);
        assert_eq!(code, Some(1), "{to}: {err}");
        assert!(err.contains(want), "{to}: wanted `{want}` in {err}");
    }
}

/// The compiled programs of a `tests/offload` case, in its `%offloader` line's order.
fn case_programs(name: &str, compiler: &std::ffi::OsStr) -> (PathBuf, String, Vec<PathBuf>) {
    let dir = common::scratch().join("offload-again").join(name);
    run_case_in(name, compiler, &dir).unwrap();
    let yaml = std::fs::read_to_string(dir.join("pipeline.yaml")).unwrap();
    let lit = load(&common::root().join("tests/offload").join(name)).lit;
    let line = lit
        .lines()
        .find(|l| l.contains("%offloader"))
        .unwrap()
        .to_string();
    let programs = line
        .split_whitespace()
        .filter(|w| w.starts_with("%t") && !w.ends_with(".yaml"))
        .map(|w| object(&dir, w))
        .collect();
    (dir, yaml, programs)
}

/// Tessellated pipelines follow `Pipeline.cpp`'s `validatePipelineKind`: hull and
/// domain programs come together, a pipeline is tessellated exactly when its topology
/// is `PatchList`, and `PatchControlPoints` (1 to 32) goes with `PatchList` only. Each
/// refusal names the field and its line. With `PatchControlPoints: 4` the same two
/// patches no longer match the hull program's 3-point input patch, which dxlane
/// refuses rather than draw.
#[test]
fn tessellation_refusals() {
    let Some(compiler) = common::vkd3d_compiler("the offload tessellation pipelines") else {
        return;
    };
    let (dir, yaml, programs) = case_programs("tessellation_patches.test", &compiler);
    let cases = [
        (
            "  PatchControlPoints: 3\n",
            "",
            "bad.yaml:44: `Bindings: Topology: PatchList` needs `PatchControlPoints` (1 to 32)",
        ),
        (
            "  PatchControlPoints: 3",
            "  PatchControlPoints: 33",
            "bad.yaml:45: `Bindings: PatchControlPoints: 33`; give 1 to 32",
        ),
        (
            "  Topology: PatchList\n  PatchControlPoints: 3\n",
            "",
            "hull and domain programs draw patches: give `Bindings: Topology: PatchList`",
        ),
        (
            "  - Stage: Domain",
            "  - Stage: Geometry",
            "Hull and Domain programs go together",
        ),
        (
            "  - Stage: Hull",
            "  - Stage: Domain",
            "more than one Domain program",
        ),
    ];
    refusals(&dir, &yaml, &programs, &cases);
    let (code, _, err) = offload_yaml(
        &dir,
        "bad.yaml",
        &yaml.replace("PatchControlPoints: 3", "PatchControlPoints: 4"),
        &programs,
        &[],
    );
    assert_eq!(code, Some(1), "{err}");
    // `PatchList` on a pipeline without hull and domain programs.
    let (dir, yaml, programs) = case_programs("geometry_points.test", &compiler);
    refusals(
        &dir,
        &yaml,
        &programs,
        &[(
            "  Topology: PointList",
            "  Topology: PatchList\n  PatchControlPoints: 1",
            "`Bindings: Topology: PatchList` needs `Hull` and `Domain` programs",
        )],
    );
}

/// Multisampled targets: the older schema's `OutputProps: SampleCount` gives the same
/// resolved image as `Bindings: SampleCount`; a count outside D3D's standard patterns,
/// an integer target (D3D12 resolves no integer format), and two different counts are
/// refused, naming the field and its line. With one sample the target is an ordinary
/// one: column 1's centre lies on the triangle's right edge, which the top-left rule
/// (D3D11.3 §3.4.1) leaves out, so that column stays zero.
#[test]
fn multisampled_targets() {
    let Some(compiler) = common::vkd3d_compiler("the offload multisampled pipelines") else {
        return;
    };
    let (dir, yaml, programs) = case_programs("msaa_triangle.test", &compiler);
    let older = yaml.replace("  SampleCount: 4\n", "").replace(
        "      Depth: 1\n  - Name: Expected",
        "      Depth: 1\n      SampleCount: 4\n  - Name: Expected",
    );
    assert_ne!(older, yaml);
    let (code, out, err) = offload_yaml(&dir, "older.yaml", &older, &programs, &[]);
    assert_eq!(code, Some(0), "{out}{err}");
    assert!(out.contains("SampleCount:     4"), "{out}");
    // One sample: column 0 is covered, column 1's centre is on the triangle's right edge.
    let single = yaml.replace("  SampleCount: 4\n", "").replace(
        "Data: [ 1, 0.5, 0.25, 1,  0.5, 0.25, 0.125, 0.5,\n            1, 0.5, 0.25, 1,  0.5, 0.25, 0.125, 0.5 ]",
        "Data: [ 1, 0.5, 0.25, 1,  0, 0, 0, 0,\n            1, 0.5, 0.25, 1,  0, 0, 0, 0 ]",
    );
    assert_ne!(single, yaml);
    let (code, out, err) = offload_yaml(&dir, "single.yaml", &single, &programs, &[]);
    assert_eq!(code, Some(0), "{out}{err}");
    let cases = [
        (
            "  SampleCount: 4",
            "  SampleCount: 3",
            "bad.yaml:37: `SampleCount: 3`: give 1, 2, 4, 8 or 16",
        ),
        (
            "      Depth: 1\n  - Name: Expected",
            "      Depth: 1\n      SampleCount: 2\n  - Name: Expected",
            "`Bindings: SampleCount` 4 and the render target's `OutputProps: SampleCount` 2 differ",
        ),
        (
            "  - Name: Output\n    Format: Float32\n    Channels: 4\n    FillSize: 64",
            "  - Name: Output\n    Format: UInt32\n    Channels: 4\n    FillSize: 64",
            "`SampleCount: 4` with the UInt32 render target `Output`",
        ),
    ];
    refusals(&dir, &yaml, &programs, &cases);
}

/// The pipeline of a mesh draw into a 4×4 Float32 target: `first` goes into `Shaders`
/// before the mesh program, `tail` after `DescriptorSets`.
fn mesh_pipeline(first: &str, tail: &str) -> String {
    format!(
        "---
Shaders:
{first}  - Stage: Mesh
    Entry: main
  - Stage: Pixel
    Entry: main
Buffers:
  - Name: Output
    Format: Float32
    Channels: 4
    FillSize: 256
    OutputProps:
      Height: 4
      Width: 4
      Depth: 1
Bindings:
  RenderTarget: Output
DescriptorSets: []
{tail}...
"
    )
}

/// The 4×4 Float32 × 4 target of a printed pipeline, as floats.
fn output_floats(out: &str) -> Vec<f32> {
    let v: serde_norway::Value = serde_norway::from_str(out).unwrap();
    let b = v["Buffers"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|b| b["Name"].as_str() == Some("Output"))
        .unwrap();
    b["Data"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|f| f.as_f64().unwrap() as f32)
        .collect()
}

/// Mesh pipelines (`Mesh`, optionally `Amplification` and `Pixel`): `DispatchMesh` of
/// `DispatchGroupCount`, with the rasterizer at D3D12's default as the suite's device
/// leaves it (`createPipelineAsMsPs`: culling `BACK`, clockwise triangles front).
///
/// The mesh program (`tests/all/mesh.rs`'s, in the IR's text form, so `-api dx`) makes
/// the full-target quad's corners v0 (-1, -1), v1 (1, -1), v2 (-1, 1), v3 (1, 1) and two
/// triangles: (0, 1, 2), counter-clockwise on the screen and so culled, and (1, 2, 3),
/// clockwise, drawn with its per-primitive colour (0, 1, 0, 1). On the 4×4 target that
/// triangle is screen (4, 4), (0, 0), (4, 0): the pixels with x > y, and those with
/// x = y, whose centres lie on its left edge (the top-left rule). With an amplification
/// program storing 0.5 in the payload the colour's blue is 0.5.
///
/// Then DXC's programs from the dxil-reader corpus, as the suite would give them:
/// `mesh.dxil` (ms_6_5) with `half_ops.dxil` (ps_6_2) — the mesh program's quad has
/// both triangles counter-clockwise, so the device's culling leaves the target zero.
#[test]
fn mesh_pipelines() {
    use crate::mesh::{Ms, PLAIN, PS, amplification_text, mesh_text};
    let d = common::scratch().join("offload-mesh");
    let _ = std::fs::remove_dir_all(&d);
    std::fs::create_dir_all(&d).unwrap();
    let clockwise = Ms {
        prim1: [1, 2, 3],
        ..PLAIN
    };
    std::fs::write(d.join("mesh.ir"), mesh_text(clockwise)).unwrap();
    std::fs::write(
        d.join("mesh_payload.ir"),
        mesh_text(Ms {
            payload: true,
            ..clockwise
        }),
    )
    .unwrap();
    std::fs::write(d.join("pixel.ir"), PS).unwrap();
    std::fs::write(
        d.join("amp.ir"),
        amplification_text([1, 1, 1], 0.5, true, false),
    )
    .unwrap();
    let expected = |blue: f32| -> Vec<f32> {
        let mut v = Vec::new();
        for y in 0..4 {
            for x in 0..4 {
                if x >= y {
                    v.extend([0.0, 1.0, blue, 1.0]);
                } else {
                    v.extend([0.0; 4]);
                }
            }
        }
        v
    };
    let api = ["-api", "dx"];
    let yaml = mesh_pipeline("", "");
    let progs = [d.join("mesh.ir"), d.join("pixel.ir")];
    let (code, out, err) = offload_yaml(&d, "mesh.yaml", &yaml, &progs, &api);
    assert_eq!(code, Some(0), "{out}{err}");
    assert_eq!(output_floats(&out), expected(0.0), "{out}");
    let amp = mesh_pipeline(
        "  - Stage: Amplification\n    Entry: main\n",
        "DispatchParameters:\n  DispatchGroupCount: [1, 1, 1]\n",
    );
    let with_amp = [
        d.join("amp.ir"),
        d.join("mesh_payload.ir"),
        d.join("pixel.ir"),
    ];
    let (code, out, err) = offload_yaml(&d, "amp.yaml", &amp, &with_amp, &api);
    assert_eq!(code, Some(0), "{out}{err}");
    assert_eq!(output_floats(&out), expected(0.5), "{out}");
    // Refusals, each naming the field.
    let cases = [
        (
            "DescriptorSets: []\n",
            "DescriptorSets: []\nDispatchParameters:\n  VertexCount: 3\n",
            "`DispatchParameters: VertexCount` 3 is for a Vertex pipeline",
        ),
        (
            "  RenderTarget: Output\n",
            "  RenderTarget: Output\n  Topology: PointList\n",
            "mesh.yaml:18: `Bindings: Topology` in a mesh pipeline",
        ),
        (
            "  - Stage: Pixel",
            "  - Stage: Geometry",
            "a mesh pipeline has no Geometry stage",
        ),
        (
            "  - Stage: Pixel",
            "  - Stage: Vertex",
            "Vertex and Mesh or Amplification programs cannot be in one pipeline",
        ),
        (
            "  - Stage: Pixel",
            "  - Stage: ClosestHit",
            "`ClosestHit` is a ray tracing stage",
        ),
    ];
    for (from, to, want) in cases {
        assert!(yaml.contains(from), "{from}");
        let bad = yaml.replacen(from, to, 1);
        let (code, _, err) = offload_yaml(&d, "mesh.yaml", &bad, &progs, &api);
        assert_eq!(code, Some(1), "{to}: {err}");
        assert!(err.contains(want), "{to}: wanted `{want}` in {err}");
    }
    // DXC's DXIL mesh and pixel programs, without `-api`.
    let Some(corpus) = common::corpora()
        .iter()
        .find(|d| d.ends_with("dxil-reader"))
        .cloned()
    else {
        panic!("the dxil-reader corpus is needed (mesh.dxil, half_ops.dxil)");
    };
    // The cbuffer at b0 is the mesh program's `scale` and the pixel program's (a, b).
    let dxil = mesh_pipeline("", "").replace(
        "Bindings:",
        "  - Name: Values\n    Format: Float32\n    Data: [ 1.0009765625, 1.0, 0, 0 ]\nBindings:",
    );
    let dxil = dxil.replace(
        "DescriptorSets: []\n",
        "DescriptorSets:\n  - Resources:\n    - Name: Values\n      Kind: ConstantBuffer\n      DirectXBinding:\n        Register: 0\n        Space: 0\n",
    );
    let (code, out, err) = offload_yaml(
        &d,
        "dxil.yaml",
        &dxil,
        &[corpus.join("mesh.dxil"), corpus.join("half_ops.dxil")],
        &[],
    );
    assert_eq!(code, Some(0), "{dxil}\n{out}{err}");
    assert!(out.starts_with("Using DirectX API"), "{out}");
    assert_eq!(
        output_floats(out.trim_start_matches("Using DirectX API\n")),
        vec![0.0; 64],
        "{out}"
    );
}

/// The dxil-reader corpus's `ray_tracing.hlsl` libraries (`lib_6_3`, one export per
/// container), as `tests/all/rays.rs` runs them: `raygen`, `miss`, `closest_hit`,
/// `callable`.
fn ray_libraries() -> Vec<PathBuf> {
    let Some(dir) = common::corpora()
        .iter()
        .find(|d| d.ends_with("dxil-reader"))
        .cloned()
    else {
        panic!("the dxil-reader corpus is needed (ray_tracing.*.dxil)");
    };
    ["raygen", "miss", "closest_hit", "callable"]
        .iter()
        .map(|n| dir.join(format!("ray_tracing.{n}.dxil")))
        .collect()
}

/// What the ray generation program writes for a ray from (x, 0.5, 0) along +z that hits
/// the triangle (0,0,0) (1,0,0) (0,1,0) of an instance moved to z = 5, derived in
/// `tests/all/rays.rs` (`hit`) from the HLSL and the DXR spec: the colour sums
/// (3x, 2.5, 0.5 − x − 3), the distance d = 5 + 0.001 (`RayTCurrent()` + `RayTMin()`),
/// the callable program doubling it; the texel is (colour × 2d, d).
fn ray_hit(x: f32) -> [f32; 4] {
    let d = 5.0f32 + 0.001f32;
    let v = d * 2.0;
    [3.0 * x * v, 2.5 * v, (0.5 - x - 3.0) * v, d]
}

/// What it writes for a ray that misses: the miss program's colour (0.1, 0.2, 0.3) ×
/// `WorldRayDirection()` = (0, 0, 0.3), distance −1 doubled by the callable program:
/// (0, 0, 0.3, −1) × (−2, −2, −2, 1), 0 × −2 being −0.
fn ray_missed() -> [f32; 4] {
    [-0.0, -0.0, 0.3f32 * -2.0, -1.0]
}

/// A ray tracing pipeline in the suite's schema: ray generation, miss, closest-hit and
/// callable programs, a one-triangle BLAS from a vertex buffer under a TLAS instance at
/// z = 5, one triangle hit group, the shader binding table and a 4 × 1 launch. The ray
/// generation program traces from ((i + 0.5) / 4, 0.5, 0) along +z: rays 0 and 1 (x =
/// 0.125, 0.375) hit, rays 2 and 3 (x = 0.625, 0.875) pass beside the triangle (DXR
/// spec "Addressing calculations within shader tables": hit group 0, miss record 0,
/// callable record 0).
fn ray_pipeline_yaml() -> String {
    let expected: Vec<String> = [ray_hit(0.125), ray_hit(0.375), ray_missed(), ray_missed()]
        .iter()
        .flatten()
        .map(|f| format!("{f:?}"))
        .collect();
    format!(
        "---
Shaders:
  - Stage: RayGeneration
    Entry: raygen
  - Stage: Miss
    Entry: miss
  - Stage: ClosestHit
    Entry: closest_hit
  - Stage: Callable
    Entry: callable
Buffers:
  - Name: Vertices
    Format: Float32
    Data: [ 0, 0, 0, 1, 0, 0, 0, 1, 0 ]
  - Name: Output
    Format: Float32
    Channels: 4
    FillSize: 64
    OutputProps:
      Height: 1
      Width: 4
      Depth: 1
  - Name: Expected
    Format: Float32
    Channels: 4
    Data: [ {} ]
Results:
  - Result: Output
    Rule: BufferFloatEpsilon
    Epsilon: 0.0001
    Actual: Output
    Expected: Expected
AccelerationStructures:
  BLAS:
    - Name: Triangle
      Triangles:
        - VertexBuffer: Vertices
          VertexCount: 3
  TLAS:
    - Name: Scene
      Instances:
        - BLAS: Triangle
          Transform: [ 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 5 ]
          InstanceID: 3
HitGroups:
  - Name: Hit
    ClosestHit: closest_hit
RayTracingPipelineConfig:
  MaxTraceRecursionDepth: 1
  MaxPayloadSizeInBytes: 20
  MaxAttributeSizeInBytes: 8
ShaderBindingTable:
  RayGen:
    ShaderName: raygen
  Miss:
    - ShaderName: miss
  HitGroup:
    - ShaderName: Hit
  Callable:
    - ShaderName: callable
DispatchParameters:
  DispatchGroupCount: [ 4, 1, 1 ]
DescriptorSets:
  - Resources:
    - Name: Scene
      Kind: AccelerationStructure
      DirectXBinding:
        Register: 0
        Space: 0
    - Name: Output
      Kind: RWTexture2D
      DirectXBinding:
        Register: 0
        Space: 0
...
",
        expected.join(", ")
    )
}

/// The ray tracing pipeline runs and its `Results` rule holds (exit status 0); the
/// read-back target printed is the four texels derived by hand.
#[test]
fn ray_tracing_pipeline_runs() {
    let d = pipeline_dir("rays");
    let yaml = ray_pipeline_yaml();
    let (code, out, err) = offload_yaml(&d, "rays.yaml", &yaml, &ray_libraries(), &[]);
    assert_eq!(code, Some(0), "{out}{err}");
    let got = output_floats(out.trim_start_matches("Using DirectX API\n"));
    let want: Vec<f32> = [ray_hit(0.125), ray_hit(0.375), ray_missed(), ray_missed()].concat();
    assert_eq!(got.len(), want.len(), "{out}");
    for (k, (g, w)) in got.iter().zip(&want).enumerate() {
        // The printed text is C's `%g` (6 significant digits).
        assert!(
            (g - w).abs() <= 1e-5 * w.abs().max(1.0),
            "texel component {k}: {g} vs {w}\n{out}"
        );
    }
}

/// Bad ray tracing pipelines: each an error with exit status 1 naming the field — a hit
/// group naming an unknown program, a record naming an unknown hit group or export, a
/// BLAS naming a missing buffer, a TLAS naming a missing BLAS, a resource naming a
/// missing TLAS, an export no library has, a vertex count on `DispatchRays`, a missing
/// shader binding table, programs of other pipelines beside ray tracing ones, no ray
/// generation program, an unknown key; and at run time a ray whose hit group index is
/// past the hit-group table (D3D leaves it undefined; `pipeline::rays` refuses it,
/// naming the ray).
#[test]
fn ray_tracing_refusals() {
    let d = pipeline_dir("rays-bad");
    let yaml = ray_pipeline_yaml();
    let libs = ray_libraries();
    let cases: [(&str, &str, &str); 13] = [
        (
            "    ClosestHit: closest_hit\n",
            "    ClosestHit: closest\n",
            "`HitGroups[0]` (\"Hit\"): `ClosestHit`: \"closest\" is the `Entry` of no ClosestHit program",
        ),
        (
            "    - ShaderName: Hit\n",
            "    - ShaderName: Hot\n",
            "`ShaderBindingTable: HitGroup[0]`: `ShaderName` \"Hot\" is the `Name` of no entry of `HitGroups`",
        ),
        (
            "    - ShaderName: miss\n",
            "    - ShaderName: closest_hit\n",
            "`ShaderBindingTable: Miss[0]`: `ShaderName` \"closest_hit\" is the `Entry` of no Miss program",
        ),
        (
            "VertexBuffer: Vertices",
            "VertexBuffer: Verts",
            "`AccelerationStructures: BLAS[0]` (\"Triangle\"): `Triangles[0]: VertexBuffer`: no buffer \"Verts\"",
        ),
        (
            "        - BLAS: Triangle\n",
            "        - BLAS: Tri\n",
            "`Instances[0]: BLAS`: no BLAS \"Tri\"",
        ),
        (
            "    - Name: Scene\n      Kind",
            "    - Name: Scenery\n      Kind",
            "`Scenery`: no TLAS of that name in `AccelerationStructures`",
        ),
        (
            "    Entry: callable\n",
            "    Entry: call\n",
            "`ShaderBindingTable: Callable[0]`: `ShaderName` \"callable\" is the `Entry` of no Callable program",
        ),
        (
            "  DispatchGroupCount: [ 4, 1, 1 ]\n",
            "  DispatchGroupCount: [ 4, 1, 1 ]\n  VertexCount: 3\n",
            "`DispatchParameters: VertexCount` 3 is for a Vertex pipeline",
        ),
        (
            "ShaderBindingTable:\n  RayGen:",
            "Unused:\n  RayGen:",
            "unknown field `Unused`",
        ),
        (
            "  - Stage: Callable\n",
            "  - Stage: Compute\n",
            "is a ray tracing stage; a ray tracing pipeline has no Compute program",
        ),
        (
            "  - Stage: RayGeneration\n",
            "  - Stage: Miss\n",
            "a ray tracing pipeline needs a RayGeneration program",
        ),
        (
            "  Callable:\n",
            "  Callables:\n",
            "`ShaderBindingTable`: unknown field `Callables`",
        ),
        (
            "  HitGroup:\n    - ShaderName: Hit\n",
            "  HitGroup: []\n",
            "hit group index 0 is past the hit-group table of 0",
        ),
    ];
    for (from, to, want) in cases {
        assert!(yaml.contains(from), "{from}");
        let bad = yaml.replacen(from, to, 1);
        let (code, _, err) = offload_yaml(&d, "bad.yaml", &bad, &libs, &[]);
        assert_eq!(code, Some(1), "{to}: {err}");
        assert!(err.contains(want), "{to}: wanted `{want}` in {err}");
        assert!(!err.contains("panicked"), "{err}");
    }
    // An export no library has: the `Entry` and its record renamed together.
    let bad = yaml.replace(" callable\n", " callable2\n");
    let (code, _, err) = offload_yaml(&d, "bad.yaml", &bad, &libs, &[]);
    assert_eq!(code, Some(1), "{err}");
    assert!(
        err.contains("the ray tracing pipeline") && err.contains("\"callable2\""),
        "{err}"
    );
}

/// An inline ray query in a compute program, its structure bound as an SRV: the
/// program of `tests/all/exec_rayquery.rs` (IR text form, so `-api dx`) traces thread
/// i's ray from t1 through the TLAS at t0 and writes [committed status, `CommittedRayT()`,
/// committed primitive index, one more `Proceed()`] to u0. The BLAS is the unit square
/// from a vertex and an index buffer (two triangles, (0,1,2) and (1,3,2)), not opaque,
/// so the program commits each candidate; the instance moves it to z = 5. Even threads
/// cross triangle 0 at (0.1 + 0.1 i, 0.05), odd ones triangle 1 at (0.1 + 0.1 i, 0.95):
/// status 1 (`COMMITTED_TRIANGLE_HIT`), t = 5, primitive i mod 2, and `Proceed()` false
/// once the query is over (DXR spec "RayQuery intrinsics").
#[test]
fn inline_ray_queries_in_compute() {
    let d = pipeline_dir("rayquery");
    std::fs::write(d.join("query.ir"), crate::exec_rayquery::PROGRAM).unwrap();
    let mut rays = Vec::new();
    for i in 0..8u32 {
        let y = if i % 2 == 0 { 0.05f32 } else { 0.95 };
        let words = [
            (0.1 + 0.1 * i as f32).to_bits(),
            y.to_bits(),
            0f32.to_bits(),
            0f32.to_bits(),
            0f32.to_bits(),
            1f32.to_bits(),
            0,
            0,
        ];
        rays.extend(words.map(|w| format!("0x{w:X}")));
    }
    let yaml = format!(
        "---
Shaders:
  - Stage: Compute
    Entry: main
Buffers:
  - Name: Square
    Format: Float32
    Data: [ 0, 0, 0, 1, 0, 0, 0, 1, 0, 1, 1, 0 ]
  - Name: Indices
    Format: UInt32
    Data: [ 0, 1, 2, 1, 3, 2 ]
  - Name: Rays
    Format: Hex32
    Stride: 32
    Data: [ {} ]
  - Name: Out
    Format: UInt32
    FillSize: 128
AccelerationStructures:
  BLAS:
    - Name: Quad
      Triangles:
        - VertexBuffer: Square
          VertexCount: 4
          IndexBuffer: Indices
          IndexFormat: Uint32
          IndexCount: 6
          Opaque: false
  TLAS:
    - Name: Scene
      Instances:
        - BLAS: Quad
          Transform: [ 1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 5 ]
DescriptorSets:
  - Resources:
    - Name: Scene
      Kind: AccelerationStructure
      DirectXBinding:
        Register: 0
        Space: 0
    - Name: Rays
      Kind: StructuredBuffer
      DirectXBinding:
        Register: 1
        Space: 0
    - Name: Out
      Kind: RWStructuredBuffer
      DirectXBinding:
        Register: 0
        Space: 0
...
",
        rays.join(", ")
    );
    let (code, out, err) = offload_yaml(
        &d,
        "query.yaml",
        &yaml,
        &[d.join("query.ir")],
        &["-api", "dx"],
    );
    assert_eq!(code, Some(0), "{out}{err}");
    let v: serde_norway::Value = serde_norway::from_str(&out).unwrap();
    let b = v["Buffers"]
        .as_sequence()
        .unwrap()
        .iter()
        .find(|b| b["Name"].as_str() == Some("Out"))
        .unwrap();
    let words: Vec<u32> = b["Data"]
        .as_sequence()
        .unwrap()
        .iter()
        .map(|w| w.as_u64().unwrap() as u32)
        .collect();
    assert_eq!(words.len(), 32, "{out}");
    for (i, w) in words.chunks(4).enumerate() {
        assert_eq!(w[0], 1, "thread {i}: committed status\n{out}");
        let t = f32::from_bits(w[1]);
        assert!((t - 5.0).abs() <= 1e-5, "thread {i}: t {t}");
        assert_eq!(w[2], i as u32 % 2, "thread {i}: primitive");
        assert_eq!(w[3], 0, "thread {i}: Proceed() after the end");
    }
}
