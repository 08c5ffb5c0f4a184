//! `dxlane info`: the text report of a representative set of corpus containers (one per
//! stage and per part kind), one JSON report, and the one-line errors for files that
//! are not containers. Snapshots live in `tests/snapshots/info/`.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::common;

/// One container per stage and per part kind.
const REPRESENTATIVE: &[&str] = &[
    "dxbc-reader/reflection_sm4.ps40.dxbc", // ps_4_0: SM4 RDEF without RD11, cbuffers, samplers, textures
    "dxbc-reader/reflection_sm4.ps50.dxbc", // ps_5_0: the same with RD11 type names
    "dxbc-reader/structured_layout.dxbc",   // nested structs in structured-buffer bind info
    "dxbc-reader/compute_basic.dxbc",       // cs_5_0: UAVs
    "dxbc-reader/tessellation.vs.dxbc",     // vs_5_0
    "dxbc-reader/tessellation.hs.dxbc",     // hs_5_0: PCSG written
    "dxbc-reader/tessellation.ds.dxbc",     // ds_5_0: PCSG read
    "dxbc-reader/geometry_decls.gs.dxbc",   // gs_5_0: OSG5
    "dxbc-reader/min16_patch.ds.dxbc",      // ISG1/PSG1/OSG1 with min precision in DXBC
    "dxcontainer/features/cmp9.ps_4_0_level_9_1.dxbc", // SHDR, Aon9 (undecoded), SFI0
    "dxil-reader/compute_basic.dxil",       // cs_6_x: PSV0 with thread group, HASH, STAT program
    "dxil-reader/draw_texture.dxil",        // ps_6_x: resources in PSV0
    "dxil-reader/tessellation.hs.dxil",     // hs_6_x: PSG1, patch-constant dependency table
    "dxil-reader/tessellation.ds.dxil",     // ds_6_x
    "dxil-reader/streams.gs.dxil",          // gs_6_x: two streams
    "dxil-reader/mesh.dxil",                // ms_6_5
    "dxil-reader/amplify.as.dxil",          // as_6_5
    "dxil-reader/ray_tracing.raygen.dxil",  // lib_6_x: RDAT functions and resources
    "dxil-reader/ray_subobjects.dxil",      // lib_6_x: RDAT subobject table
];

/// The container reported as JSON.
const JSON_SAMPLE: &str = "dxbc-reader/compute_basic.dxbc";

fn find(name: &str) -> Option<PathBuf> {
    common::dxbc_programs()
        .into_iter()
        .chain(common::dxil_programs())
        .find(|p| common::display_name(p) == name)
}

fn snapshot_name(name: &str, ext: &str) -> String {
    format!("info/{}.{ext}", name.replace('/', "."))
}

fn dxlane(args: &[&str], dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run dxlane")
}

#[test]
fn text_reports() {
    if common::corpora().is_empty() {
        eprintln!("info: no corpora, text snapshots not checked");
        return;
    }
    let mut failures = Vec::new();
    for name in REPRESENTATIVE {
        let path = find(name).unwrap_or_else(|| panic!("{name}: not in the corpora"));
        let out = dxlane(&["info", path.to_str().unwrap()], &common::root());
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let text = String::from_utf8(out.stdout).unwrap();
        // The report names the file by its base name only, never by where it lies.
        let dir = path.parent().unwrap().to_string_lossy().into_owned();
        assert!(
            !text.contains(&dir) && !text.contains(&*common::root().to_string_lossy()),
            "{name}: machine path"
        );
        assert!(!text.contains(": error:"), "{name}: a part failed:\n{text}");
        if let Err(e) = common::check_snapshot(&snapshot_name(name, "txt"), &text) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn json_report() {
    if common::corpora().is_empty() {
        eprintln!("info: no corpora, JSON snapshot not checked");
        return;
    }
    let path = find(JSON_SAMPLE).unwrap();
    let out = dxlane(&["info", "--json", path.to_str().unwrap()], &common::root());
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let text = String::from_utf8(out.stdout).unwrap();
    let v: serde_json::Value = serde_json::from_str(&text).unwrap();
    assert_eq!(v["file"], "compute_basic.dxbc");
    assert_eq!(v["digest"]["status"], "matches");
    common::assert_snapshot(&snapshot_name(JSON_SAMPLE, "json"), &text);
}

/// Every corpus container reports without a part error, as text and as JSON.
#[test]
fn every_container_reports() {
    for path in common::dxbc_programs()
        .into_iter()
        .chain(common::dxil_programs())
    {
        let bytes = std::fs::read(&path).unwrap();
        let info = dxlane::container::ContainerInfo::parse(&bytes).unwrap();
        assert!(serde_json::to_string(&info).is_ok());
        assert_eq!(info.errors().count(), 0, "{}", common::display_name(&path));
    }
}

/// A file that is not a container, or whose directory is broken, ends with one line
/// `dxlane: <file>: <error>` and a failure status.
#[test]
fn broken_files_fail_with_one_line() {
    let dir = common::target_dir().join("info-test-files");
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(
        dir.join("text.dxbc"),
        b"not a shader at all, just some text",
    )
    .unwrap();
    // A container header whose part offset points past the end.
    let mut broken = Vec::new();
    broken.extend_from_slice(b"DXBC");
    broken.extend_from_slice(&[0; 16]);
    broken.extend_from_slice(&[1, 0, 0, 0]);
    broken.extend_from_slice(&40u32.to_le_bytes());
    broken.extend_from_slice(&1u32.to_le_bytes());
    broken.extend_from_slice(&1000u32.to_le_bytes());
    broken.extend_from_slice(&[0; 4]);
    std::fs::write(dir.join("broken.dxbc"), &broken).unwrap();
    let mut report = String::new();
    for file in ["text.dxbc", "broken.dxbc", "missing.dxbc"] {
        let out = dxlane(&["info", file], &dir);
        assert!(!out.status.success(), "{file}");
        let err = String::from_utf8(out.stderr).unwrap();
        assert_eq!(err.lines().count(), 1, "{file}: {err}");
        assert!(err.starts_with(&format!("dxlane: {file}: ")), "{err}");
        assert!(out.stdout.is_empty());
        // The OS's wording of a missing file varies; keep only the first part.
        report.push_str(err.split(" (os error").next().unwrap().trim_end());
        report.push('\n');
    }
    common::assert_snapshot("info/errors.txt", &report);
}

/// A reader that stops early (`dxlane disasm F | head -1`) closes the pipe: dxlane stops
/// quietly with status 0 instead of panicking on the next write (`cli::main`).
#[test]
fn a_closed_pipe_ends_quietly() {
    let file = common::dxbc_programs()
        .into_iter()
        .max_by_key(|p| std::fs::metadata(p).map(|m| m.len()).unwrap_or(0))
        .expect("shaders/ holds DXBC programs");
    for cmd in ["disasm", "info"] {
        let mut child = Command::new(env!("CARGO_BIN_EXE_dxlane"))
            .arg(cmd)
            .arg(&file)
            .stdout(std::process::Stdio::piped())
            .stderr(std::process::Stdio::piped())
            .spawn()
            .unwrap();
        // Closing the read end before the first write makes every write fail with EPIPE.
        drop(child.stdout.take());
        let out = child.wait_with_output().unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{cmd}: {:?} {err}", out.status);
        assert!(!err.contains("panicked"), "{cmd}: {err}");
    }
}

/// `dxlane info` lists a library's subobjects as its HLSL declares them
/// (dxil-reader `ray_subobjects.hlsl`: every subobject kind the runtime data stores).
#[test]
fn library_subobjects_are_listed() {
    if common::corpora().is_empty() {
        return; // `corpora()` said the corpus tests do not run
    }
    let file = find("dxil-reader/ray_subobjects.dxil").expect("ray_subobjects.dxil in the corpora");
    let out = dxlane(&["info", file.to_str().unwrap()], Path::new("."));
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for line in [
        "Subobjects (8):",
        // STATE_OBJECT_FLAGS_ALLOW_LOCAL_DEPENDENCIES_ON_EXTERNAL_DEFINITIONS = 0x1.
        "  state_config (StateObjectConfig): flags 0x1",
        "  global_signature (GlobalRootSignature): SRV",
        "  local_signature (LocalRootSignature): 32BIT_CONSTANTS",
        "  association (SubobjectToExportsAssociation): local_signature to closest_hit, miss",
        "  shader_config (RaytracingShaderConfig): payload 32 bytes, attributes 8 bytes",
        "  pipeline_config (RaytracingPipelineConfig): max recursion depth 2",
        "  triangle_group (HitGroup): triangles, closest hit closest_hit",
        "  procedural_group (HitGroup): procedural primitive, closest hit closest_hit, any hit any_hit, intersection intersection",
    ] {
        assert!(text.contains(line), "missing `{line}` in:\n{text}");
    }
}
