//! Shader Model 4–5 token programs: every program of the project's `shaders/` and of the
//! public corpora decodes without error, and its listing matches its snapshot under
//! `tests/snapshots/listings/` (`DXLANE_BLESS=1` rewrites them). `dxlane disasm` prints
//! the same listing and refuses what it cannot list with one line and a non-zero status.

use std::path::{Path, PathBuf};
use std::process::Command;

use dxlane::dxbc::{InstructionKind, Program, listing};

use crate::common;

fn snapshot_name(path: &Path) -> String {
    format!("listings/{}.txt", common::display_name(path))
}

fn shader_programs() -> Vec<PathBuf> {
    common::dxbc_programs()
        .into_iter()
        .filter(|p| common::display_name(p).starts_with("shaders/"))
        .collect()
}

#[test]
fn every_program_decodes_and_matches_its_listing_snapshot() {
    let programs = common::dxbc_programs();
    let shaders = shader_programs().len();
    assert!(
        shaders >= 20,
        "expected the project's compiled shaders, found {shaders}"
    );
    let mut failures = Vec::new();
    let (mut instructions, mut executables) = (0usize, 0usize);
    for path in &programs {
        let name = common::display_name(path);
        let bytes = std::fs::read(path).unwrap();
        match Program::from_bytes(&bytes) {
            Ok(program) => {
                instructions += program.instructions.len();
                executables += program.executables().count();
                if let Err(e) = common::check_snapshot(&snapshot_name(path), &listing(&program)) {
                    failures.push(e);
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    eprintln!(
        "dxbc: {} programs ({} shaders, {} corpus), {instructions} instructions ({executables} executable)",
        programs.len(),
        shaders,
        programs.len() - shaders
    );
    assert!(
        failures.is_empty(),
        "{} of {} programs failed:\n{}",
        failures.len(),
        programs.len(),
        failures.join("\n")
    );
}

/// The corpora hold 47 fxc-compiled programs; all of them are read.
#[test]
fn corpus_programs_are_present() {
    if common::corpora().is_empty() {
        eprintln!("corpora not available: skipped");
        return;
    }
    let corpus = common::dxbc_programs().len() - shader_programs().len();
    assert!(
        corpus >= 45,
        "expected about 47 corpus DXBC programs, found {corpus}"
    );
}

/// Every instruction of every program covers exactly the tokens between its neighbours,
/// and executable instructions' operand ranges tile the operand list.
#[test]
fn instruction_offsets_tile_the_program() {
    for path in common::dxbc_programs() {
        let program = Program::from_bytes(&std::fs::read(&path).unwrap()).unwrap();
        let mut next = 2;
        let mut operand = 0usize;
        for inst in &program.instructions {
            assert_eq!(inst.offset, next, "{}", common::display_name(&path));
            next += inst.length;
            if let InstructionKind::Executable(e) = &inst.kind {
                assert_eq!(e.operands.range().start, operand);
                operand = e.operands.range().end;
                assert_eq!(
                    e.destinations(&program).len() + e.sources(&program).len(),
                    e.operands(&program).len()
                );
            }
        }
        assert_eq!(
            next,
            program.length_in_tokens,
            "{}",
            common::display_name(&path)
        );
        assert_eq!(operand, program.operands.len());
    }
}

fn dxlane() -> Command {
    Command::new(env!("CARGO_BIN_EXE_dxlane"))
}

#[test]
fn disasm_prints_the_listing() {
    let path = common::root().join("shaders/compute_basic.cs_5_0.dxbc");
    let out = dxlane().arg("disasm").arg(&path).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let program = Program::from_bytes(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), listing(&program));
}

#[test]
fn disasm_prints_dxil_listings_too() {
    let Some(path) = common::dxil_programs().into_iter().next() else {
        return;
    };
    let out = dxlane().arg("disasm").arg(&path).output().unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let expected = dxlane::dxil::listing::disassemble(&std::fs::read(&path).unwrap()).unwrap();
    assert_eq!(String::from_utf8(out.stdout).unwrap(), expected);
}

#[test]
fn disasm_refuses_with_one_line() {
    let dir = common::target_dir().join("dxbc-disasm-test");
    std::fs::create_dir_all(&dir).unwrap();
    let mut bytes =
        std::fs::read(common::root().join("shaders/compute_basic.cs_5_0.dxbc")).unwrap();
    // Corrupt the first instruction's opcode inside the program part: 0x7ff is undefined.
    let shex = bytes
        .windows(4)
        .position(|w| w == b"SHEX" || w == b"SHDR")
        .unwrap();
    let tag = String::from_utf8_lossy(&bytes[shex..shex + 4]).into_owned();
    let first = shex + 8 + 8;
    bytes[first..first + 2].copy_from_slice(&0x07ffu16.to_le_bytes());
    let bad = dir.join("bad_opcode.dxbc");
    std::fs::write(&bad, &bytes).unwrap();
    let missing = dir.join("missing.dxbc");
    let unknown = format!("unknown opcode 2047 (0x7ff) at token 0x2 (byte 0x8) of {tag}");
    let cases = vec![(bad, unknown.as_str()), (missing, "No such file")];
    for (path, expected) in cases {
        let out = dxlane().arg("disasm").arg(&path).output().unwrap();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(!out.status.success(), "{}", path.display());
        assert!(out.stdout.is_empty());
        assert_eq!(stderr.lines().count(), 1, "{stderr}");
        assert!(stderr.contains(expected), "{stderr}");
    }
}
