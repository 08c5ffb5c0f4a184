//! Every corpus and `shaders/` container: the directory parses, every part decodes, and
//! the stored digest is the one Direct3D's MD5 variant computes (real fxc/dxc output is
//! signed, so every digest must match).

use std::collections::BTreeMap;

use dxlane::container::{
    ContainerInfo, DigestCheck, FourCc, PartContents, ProgramHeader, ProgramKind,
};

use crate::common;

/// Decodes every program file; returns (containers, digests matching, parts decoded per
/// tag) and fails listing every part that did not decode.
fn check_all(files: &[std::path::PathBuf]) -> (usize, usize, BTreeMap<String, usize>) {
    let mut failures = Vec::new();
    let mut matching = 0;
    let mut per_tag: BTreeMap<String, usize> = BTreeMap::new();
    for path in files {
        let name = common::display_name(path);
        let bytes = std::fs::read(path).unwrap();
        let info = match ContainerInfo::parse(&bytes) {
            Ok(i) => i,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        match info.digest {
            DigestCheck::Matches { .. } => matching += 1,
            other => failures.push(format!("{name}: digest {other:?}")),
        }
        for p in &info.parts {
            match &p.contents {
                Ok(_) => *per_tag.entry(p.tag.to_string()).or_default() += 1,
                Err(e) => failures.push(format!("{name}: part {} ({}): {e}", p.index, p.tag)),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} failures:\n{}",
        failures.len(),
        failures.join("\n")
    );
    (files.len(), matching, per_tag)
}

#[test]
fn dxbc_containers_decode_and_digests_match() {
    let files = common::dxbc_programs();
    let (n, matching, per_tag) = check_all(&files);
    eprintln!("DXBC: {n} containers, {matching} digests match; parts decoded: {per_tag:?}");
    assert_eq!(n, matching);
}

#[test]
fn dxil_containers_decode_and_digests_match() {
    let files = common::dxil_programs();
    let (n, matching, per_tag) = check_all(&files);
    eprintln!("DXIL: {n} containers, {matching} digests match; parts decoded: {per_tag:?}");
    assert_eq!(n, matching);
}

/// Cross-checks between parts that restate the same facts, over the whole corpus:
/// PSV0's stage equals the DXIL header's kind (seed `000_…txt`: "equals the program
/// kind in the DXIL header"), the rows of its elements equal the ISG1/OSG1/PSG1
/// element counts (those list one element per row), and a DXIL container's STAT holds
/// a DXIL program.
#[test]
fn parts_agree_with_each_other() {
    let mut checked = 0;
    for path in common::dxil_programs() {
        let name = common::display_name(&path);
        let bytes = std::fs::read(&path).unwrap();
        let info = ContainerInfo::parse(&bytes).unwrap();
        let kind = info.program_kind().unwrap();
        let count = |tag: FourCc| {
            info.parts
                .iter()
                .find(|p| p.tag == tag)
                .map(|p| match &p.contents {
                    Ok(PartContents::Signature(s)) => s.elements.len(),
                    _ => panic!("{name}: {tag} did not decode as a signature"),
                })
        };
        for p in &info.parts {
            match &p.contents {
                Ok(PartContents::Psv0(psv)) => {
                    let v1 = psv.runtime_info.v1.as_ref().unwrap();
                    assert_eq!(v1.shader_stage, kind, "{name}");
                    let rows = |e: &[dxlane::container::psv0::PsvElement]| {
                        e.iter().map(|e| usize::from(e.rows)).sum::<usize>()
                    };
                    assert_eq!(usize::from(v1.input_elements), psv.inputs.len(), "{name}");
                    assert_eq!(
                        rows(&psv.inputs),
                        count(FourCc::ISG1).unwrap_or(0),
                        "{name}: inputs"
                    );
                    assert_eq!(
                        rows(&psv.outputs),
                        count(FourCc::OSG1).unwrap_or(0),
                        "{name}: outputs"
                    );
                    assert_eq!(
                        rows(&psv.patch_constants),
                        count(FourCc::PSG1).unwrap_or(0),
                        "{name}: patch constants"
                    );
                    if kind == ProgramKind::Compute {
                        assert!(
                            psv.runtime_info
                                .num_threads
                                .unwrap()
                                .iter()
                                .all(|&n| n >= 1),
                            "{name}"
                        );
                    }
                    checked += 1;
                }
                Ok(PartContents::Statistics(s)) => {
                    assert!(
                        matches!(
                            s,
                            dxlane::container::stat::Statistics::DxilReflection { .. }
                        ),
                        "{name}"
                    );
                }
                _ => {}
            }
        }
    }
    assert!(checked > 0 || common::corpora().is_empty());
}

/// fxc's RDEF target word restates the program version of SHDR/SHEX.
#[test]
fn rdef_target_matches_the_program() {
    for path in common::dxbc_programs() {
        let name = common::display_name(&path);
        let bytes = std::fs::read(&path).unwrap();
        let info = ContainerInfo::parse(&bytes).unwrap();
        let Some(Ok(ProgramHeader::Tokens(t))) = info.program.as_ref().map(|p| p.header.clone())
        else {
            continue;
        };
        for p in &info.parts {
            if let Ok(PartContents::Rdef(r)) = &p.contents {
                assert_eq!(
                    (r.major, r.minor),
                    (t.version.major, t.version.minor),
                    "{name}"
                );
                assert_eq!(r.target_kind, t.version.kind.profile_prefix(), "{name}");
            }
        }
    }
}

/// A Shader Model 5.1 `RDEF` (reversed `RD11` magic, 40-byte bindings with space and
/// ID) as vkd3d-shader writes it, compiled from HLSL when `VKD3D_COMPILER` names the
/// compiler; skipped otherwise.
#[test]
fn vkd3d_sm51_rdef() {
    let Some(compiler) = common::vkd3d_compiler("the Shader Model 5.1 RDEF check") else {
        return;
    };
    let dir = common::target_dir().join("container-test-sm51");
    std::fs::create_dir_all(&dir).unwrap();
    let source = dir.join("rdef51.hlsl");
    std::fs::write(
        &source,
        "cbuffer Frame : register(b1, space2) { float4 tint; float2 uv[2]; };\n\
         Texture2D<float4> tex : register(t3, space1);\n\
         SamplerState samp : register(s0);\n\
         float4 main(float4 pos : SV_Position) : SV_Target { return tex.Sample(samp, uv[1]) * tint; }\n",
    )
    .unwrap();
    let out = dir.join("rdef51.dxbc");
    let status = std::process::Command::new(compiler)
        .args(["-p", "ps_5_1", "-x", "hlsl", "-b", "dxbc-tpf", "-o"])
        .arg(&out)
        .arg(&source)
        .status()
        .unwrap();
    assert!(status.success());
    let bytes = std::fs::read(&out).unwrap();
    let info = ContainerInfo::parse(&bytes).unwrap();
    assert!(info.digest.matches());
    let rdef = info
        .parts
        .iter()
        .find_map(|p| match &p.contents {
            Ok(PartContents::Rdef(r)) => Some(r.clone()),
            _ => None,
        })
        .unwrap();
    assert_eq!(
        rdef.rd11.unwrap().magic,
        dxlane::container::rdef::RD11_MAGIC_REVERSED
    );
    let tex = rdef.bindings.iter().find(|b| b.name == "tex").unwrap();
    assert_eq!((tex.bind_point, tex.space), (3, Some(1)));
    let frame = rdef.bindings.iter().find(|b| b.name == "Frame").unwrap();
    assert_eq!((frame.bind_point, frame.space), (1, Some(2)));
    let cb = rdef.buffer_for(frame).unwrap();
    assert_eq!(cb.variables[1].name, "uv");
    assert_eq!(cb.variables[1].ty.elements, 2);
}
