//! DXIL programs of the corpora: module, `dx.op` calls and metadata decode.

use dxlane::container::{Container, DxilProgramHeader, FourCc};
use dxlane::dxil::llvm::Module;

use crate::common;

/// The raw bitcode of a container's DXIL part.
pub fn bitcode(bytes: &[u8]) -> Vec<u8> {
    let c = Container::parse(bytes).expect("container");
    let part = c.part(FourCc::DXIL).expect("DXIL part");
    DxilProgramHeader::parse(part)
        .expect("program header")
        .1
        .to_vec()
}

#[test]
fn every_corpus_module_decodes() {
    let files = common::dxil_programs();
    let mut failures = Vec::new();
    for f in &files {
        let bytes = std::fs::read(f).unwrap();
        if let Err(e) = Module::parse(&bitcode(&bytes)) {
            failures.push(format!("{}: {e}", common::display_name(f)));
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} failed:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    eprintln!("{} DXIL modules decoded", files.len());
}

#[test]
fn every_dx_op_call_decodes() {
    let mut total = 0usize;
    let mut failures = Vec::new();
    for f in common::dxil_programs() {
        let bytes = std::fs::read(&f).unwrap();
        let m = Module::parse(&bitcode(&bytes)).unwrap();
        match dxlane::dxil::dxop::decode_all(&m) {
            Ok(calls) => total += calls.len(),
            Err(e) => failures.push(format!("{}: {e}", common::display_name(&f))),
        }
        // Every call to a dx.op function is among them.
        let direct = m
            .functions
            .iter()
            .filter_map(|f| f.body.as_ref())
            .flat_map(|b| &b.instructions)
            .filter(|i| matches!(&i.kind, dxlane::dxil::llvm::InstKind::Call { callee, .. } if m.function_of_value(*callee).is_some_and(|f| f.name.starts_with("dx.op."))))
            .count();
        let decoded = dxlane::dxil::dxop::decode_all(&m)
            .map(|c| c.len())
            .unwrap_or(0);
        if failures.is_empty() {
            assert_eq!(direct, decoded, "{}", common::display_name(&f));
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    eprintln!("{total} dx.op calls decoded");
}

fn metadata(name: &str) -> dxlane::dxil::meta::DxilMetadata {
    let f = common::dxil_programs()
        .into_iter()
        .find(|p| common::display_name(p) == name)
        .expect(name);
    let m = Module::parse(&bitcode(&std::fs::read(f).unwrap())).unwrap();
    dxlane::dxil::meta::DxilMetadata::read(&m).unwrap()
}

#[test]
fn every_program_has_typed_metadata() {
    let mut entries = 0;
    for f in common::dxil_programs() {
        let name = common::display_name(&f);
        let m = Module::parse(&bitcode(&std::fs::read(&f).unwrap())).unwrap();
        let md =
            dxlane::dxil::meta::DxilMetadata::read(&m).unwrap_or_else(|e| panic!("{name}: {e}"));
        let sm = md
            .shader_model
            .as_ref()
            .unwrap_or_else(|| panic!("{name}: no shader model"));
        assert!(
            md.dxil_version.is_some() && md.validator_version.is_some(),
            "{name}"
        );
        assert!(!md.entry_points.is_empty(), "{name}: no entry point");
        entries += md.entry_points.len();
        if sm.kind != "lib" {
            let e = &md.entry_points[0];
            assert!(e.function_name.is_some(), "{name}: entry without function");
            assert!(
                e.signatures.is_some() || sm.kind == "cs" || sm.kind == "as",
                "{name}: no signatures"
            );
        }
        // Every createHandle names a declared resource range.
        if let Some(res) = &md.resources {
            for r in res.all() {
                assert!(r.range_size >= 1, "{name}: {r:?}");
            }
        }
    }
    eprintln!("{entries} entry points read");
}

#[test]
fn compute_basic_matches_its_hlsl() {
    // compute_basic.hlsl: [numthreads(8, 4, 2)], a RWByteAddressBuffer, a
    // RWStructuredBuffer<uint>, a RWBuffer<float4> and one constant buffer.
    let md = metadata("dxil-reader/compute_basic.dxil");
    assert_eq!(md.shader_model.as_ref().unwrap().kind, "cs");
    let e = &md.entry_points[0];
    assert_eq!(e.name, "main");
    assert_eq!(e.num_threads(), Some([8, 4, 2]));
    assert_eq!(e.flags(), Some(16));
    let res = md.resources.as_ref().unwrap();
    assert_eq!(res.uavs.len(), 3);
    assert_eq!(res.cbvs.len(), 1);
    assert_eq!(res.uavs[0].shape, Some(11), "raw buffer");
    assert_eq!(res.uavs[1].shape, Some(12), "structured buffer");
    assert_eq!(res.uavs[1].struct_stride, Some(4));
    assert_eq!(res.uavs[2].shape, Some(10), "typed buffer");
    assert_eq!(res.uavs[2].element_type, Some(9), "f32");
    assert_eq!(res.cbvs[0].size, Some(4));
}

#[test]
fn denorm_attribute_is_read() {
    // Seed 000_…: dxc writes "fp32-denorm-mode" with -denorm's word, nothing without it.
    for (file, want) in [
        ("denorm.any.ps.dxil", Some("any")),
        ("denorm.preserve.ps.dxil", Some("preserve")),
        ("denorm.ftz.ps.dxil", Some("ftz")),
        ("denorm.default.ps.dxil", None),
    ] {
        let md = metadata(&format!("dxil-reader/{file}"));
        assert_eq!(
            md.entry_points[0].fp32_denorm_mode.as_deref(),
            want,
            "{file}"
        );
    }
}
