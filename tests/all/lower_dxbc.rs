//! DXBC programs lowered to the IR: every compute program of `shaders/` and the corpora
//! lowers (and its shader validates) or is refused naming what it lacks; programs of
//! other stages are refused by their stage. Known refusals are data
//! (`tests/expectations/lower_dxbc.txt`, `case,Fail  # why`): a program that starts
//! lowering shows up as an unexpected pass, one that stops as a regression. A few
//! programs' IR is kept as snapshots under `tests/snapshots/ir/` (`DXLANE_BLESS=1`
//! rewrites them).

use std::collections::BTreeMap;
use std::path::Path;

use dxlane::container::ProgramKind;
use dxlane::dxbc::Program;
use dxlane::ir::{Shader, WithLocs};
use dxlane::lower::{self, LoadOptions, LowerError};

use crate::common;

/// The expected refusals: `case,Fail  # why` lines.
fn expectations() -> BTreeMap<String, String> {
    let path = common::root().join("tests/expectations/lower_dxbc.txt");
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
fn load(path: &Path) -> Result<Shader, LowerError> {
    let bytes = std::fs::read(path).unwrap();
    lower::load(&bytes, &LoadOptions::default()).map(|l| l.shader)
}

fn kind_of(path: &Path) -> ProgramKind {
    let bytes = std::fs::read(path).unwrap();
    Program::from_bytes(&bytes)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
        .version
        .kind
}

#[test]
fn every_compute_program_lowers_or_is_refused_by_name() {
    let expected = expectations();
    let (mut lowered, mut refused) = (0usize, 0usize);
    let mut failures = Vec::new();
    let mut table = String::new();
    for f in common::dxbc_programs() {
        let name = common::display_name(&f);
        if kind_of(&f) != ProgramKind::Compute {
            continue;
        }
        match load(&f) {
            Ok(s) => {
                dxlane::ir::validate(&s).unwrap_or_else(|e| panic!("{name}: {e}"));
                lowered += 1;
                table.push_str(&format!(
                    "  {name:<55} lowered: {} blocks, {} instructions, {} registers\n",
                    s.blocks.len(),
                    s.insts.len(),
                    s.num_regs
                ));
                if let Some(why) = expected.get(&name) {
                    failures.push(format!(
                        "{name}: lowers now, but tests/expectations/lower_dxbc.txt expects a refusal ({why})"
                    ));
                }
            }
            Err(LowerError::Unsupported { what, location }) => {
                refused += 1;
                table.push_str(&format!("  {name:<55} refused: {what} at {location}\n"));
                if !expected.contains_key(&name) {
                    failures.push(format!("{name}: refused: unsupported {what} at {location}"));
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    eprintln!("DXBC compute programs: {lowered} lowered, {refused} refused\n{table}");
    assert!(lowered >= 10, "only {lowered} compute programs lowered");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Programs of the other stages are refused with their stage's name, never lowered
/// halfway.
#[test]
fn other_stages_are_refused_by_stage() {
    let mut seen = 0;
    for f in common::dxbc_programs() {
        let name = common::display_name(&f);
        let kind = kind_of(&f);
        if kind == ProgramKind::Compute {
            continue;
        }
        seen += 1;
        match load(&f) {
            Err(LowerError::Unsupported { what, .. }) => assert_eq!(
                what,
                format!(
                    "{} shader stage (the graphics pipeline is not implemented)",
                    kind.name()
                ),
                "{name}"
            ),
            other => panic!("{name}: expected the stage to be refused, got {other:?}"),
        }
    }
    assert!(seen > 10, "only {seen} non-compute programs");
}

/// The IR of a handful of programs, with source locations.
#[test]
fn ir_snapshots() {
    let mut failures = Vec::new();
    for name in [
        "shaders/compute_basic.cs_5_0.dxbc",
        "shaders/indexable.cs_5_0.dxbc",
        "shaders/resources_sm51.cs_5_1.dxbc",
        "shaders/compute_sm4.cs_4_0.dxbc",
        "shaders/mandelbrot.cs_5_0.dxbc",
        "shaders/control_flow_cs.cs_5_0.dxbc",
        "shaders/atomics.cs_5_0.dxbc",
        "dxbc-reader/controls.cs.dxbc",
        "dxbc-reader/image_atomic_results.dxbc",
        "dxcontainer/features/doubleext.cs_5_0.dxbc",
        "dxcontainer/features/msad.cs_5_0.dxbc",
    ] {
        let Some(path) = common::dxbc_programs()
            .into_iter()
            .find(|p| common::display_name(p) == name)
        else {
            if name.starts_with("shaders/") {
                failures.push(format!("{name}: missing"));
            }
            continue;
        };
        match load(&path) {
            Ok(s) => {
                let text = WithLocs(&s).to_string();
                if let Err(e) = common::check_snapshot(&format!("ir/{name}.ir"), &text) {
                    failures.push(e);
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}
