//! DXIL programs lowered to the IR: every corpus compute program lowers (and its shader
//! validates) or is refused naming what it lacks; other stages are refused by name.
//!
//! Known refusals are data (`tests/expectations/lower_dxil.txt`, `case,Fail  # why`):
//! a program that starts lowering shows up as an unexpected pass, one that stops as a
//! regression.

use std::collections::BTreeMap;
use std::path::Path;

use dxlane::container::{Container, DxilProgramHeader, FourCc};
use dxlane::dxil::llvm::Module;
use dxlane::dxil::meta::DxilMetadata;
use dxlane::lower::{self, LoadOptions, LowerError};

use crate::common;

/// The shader model kind of a DXIL container (`cs`, `ps`, `lib`, …).
fn kind_of(bytes: &[u8]) -> String {
    let c = Container::parse(bytes).expect("container");
    let part = c.part(FourCc::DXIL).expect("DXIL part");
    let (_, bc) = DxilProgramHeader::parse(part).expect("program header");
    let m = Module::parse(bc).expect("module");
    let md = DxilMetadata::read(&m).expect("metadata");
    md.shader_model.expect("shader model").kind
}

/// The expected refusals: `case,Fail  # why` lines.
fn expectations() -> BTreeMap<String, String> {
    let path = common::root().join("tests/expectations/lower_dxil.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .filter_map(|l| {
            let (case, rest) = l.split_once(',')?;
            let (status, why) = rest.split_once('#').unwrap_or((rest, ""));
            (status.trim() == "Fail").then(|| (case.trim().to_owned(), why.trim().to_owned()))
        })
        .collect()
}

/// The lowering of one program file.
fn load(path: &Path) -> Result<dxlane::ir::Shader, LowerError> {
    let bytes = std::fs::read(path).unwrap();
    lower::load(&bytes, &LoadOptions::default()).map(|l| l.shader)
}

#[test]
fn every_compute_program_lowers_or_is_refused_by_name() {
    let expected = expectations();
    let mut lowered = 0usize;
    let mut reasons: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut table = String::new();
    for f in common::dxil_programs() {
        let name = common::display_name(&f);
        let bytes = std::fs::read(&f).unwrap();
        if kind_of(&bytes) != "cs" {
            continue;
        }
        match load(&f) {
            Ok(s) => {
                dxlane::ir::validate(&s).unwrap_or_else(|e| panic!("{name}: {e}"));
                lowered += 1;
                table.push_str(&format!(
                    "  {name}: lowered, {} instructions\n",
                    s.insts.len()
                ));
                if let Some(why) = expected.get(&name) {
                    failures.push(format!(
                        "{name}: lowers now, but tests/expectations/lower_dxil.txt expects a refusal ({why})"
                    ));
                }
            }
            Err(LowerError::Unsupported { what, location }) => {
                table.push_str(&format!("  {name}: refused: {what} at {location}\n"));
                reasons.entry(what.clone()).or_default().push(name.clone());
                if !expected.contains_key(&name) {
                    failures.push(format!("{name}: refused: unsupported {what} at {location}"));
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    let refused: usize = reasons.values().map(Vec::len).sum();
    eprintln!("DXIL compute programs: {lowered} lowered, {refused} refused\n{table}");
    for (what, cases) in &reasons {
        eprintln!("  {} refused: {what}", cases.len());
    }
    assert!(lowered > 0, "no compute program lowered");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn other_stages_are_refused_with_their_name() {
    let mut seen = 0;
    for f in common::dxil_programs() {
        let name = common::display_name(&f);
        let bytes = std::fs::read(&f).unwrap();
        let kind = kind_of(&bytes);
        if kind == "cs" {
            continue;
        }
        seen += 1;
        match load(&f) {
            Err(LowerError::Unsupported { what, .. }) => {
                assert!(
                    what.contains("stage") || what.contains("shader kind"),
                    "{name} ({kind}): {what}"
                );
                if kind == "ps" {
                    assert_eq!(
                        what, "pixel shader stage (the graphics pipeline is not implemented)",
                        "{name}"
                    );
                }
            }
            Err(LowerError::Entry(e)) if kind == "lib" => {
                // Libraries with several entry points need one named.
                assert!(e.contains("several entry points"), "{name}: {e}");
            }
            Err(e) => panic!("{name} ({kind}): {e}"),
            Ok(_) => panic!("{name} ({kind}) lowered"),
        }
    }
    assert!(seen > 0);
}

/// Small programs whose IR is kept as a snapshot (`tests/snapshots/ir/dxil/`).
const SNAPSHOTS: &[&str] = &[
    "dxil-reader/barrier.cs.dxil",
    "dxil-reader/compute_basic.dxil",
    "dxil-reader/compute_basic.66.dxil",
    "dxil-reader/heap.dxil",
    "dxil-reader/image_atomics.dxil",
    "dxil-reader/lane_2d.dxil",
    "dxil-reader/uav_counter.dxil",
    "dxil-reader/wave_size.cs.dxil",
    "dxil-reader/waves.dxil",
    "dxil-reader/wide_ints.dxil",
    "dxcontainer/features/msad.dxil",
    "dxcontainer/features/dbl2.dxil",
];

#[test]
fn ir_snapshots() {
    let files = common::dxil_programs();
    let mut failures = Vec::new();
    for want in SNAPSHOTS {
        let Some(f) = files.iter().find(|f| common::display_name(f) == *want) else {
            if files.is_empty() {
                return; // no corpora
            }
            panic!("{want} is not in the corpora");
        };
        let s = load(f).unwrap_or_else(|e| panic!("{want}: {e}"));
        // The text form reads back as the same shader.
        let text = s.to_string();
        let again = dxlane::ir::parse_shader(&text).unwrap_or_else(|e| panic!("{want}: {e}"));
        assert_eq!(again.to_string(), text, "{want}");
        let name = format!(
            "ir/dxil/{}.ir",
            want.replace('/', "__").trim_end_matches(".dxil")
        );
        if let Err(e) = common::check_snapshot(&name, &text) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
