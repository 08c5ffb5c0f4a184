//! dxc-style listings of DXIL programs (`dxlane::dxil::listing`): a snapshot of the
//! listing of every corpus DXIL program (`tests/snapshots/listings/<name>.txt`), the
//! layout rules of seed `000_…` ("Listings"), and — with `LLVM_DIS` set — the module
//! text of every program (its `DXIL` part and its `STAT` reflection module) against
//! `llvm-dis`'s, after the differences between LLVM 3.7 and the newer LLVM are
//! normalised (see [`llvm_dis_normalise`]).

use std::path::Path;

use dxlane::container::{Container, DxilProgramHeader, FourCc};
use dxlane::dxil::listing::{disassemble, module_text};
use dxlane::dxil::llvm::Module;

use crate::common;

fn listing_of(name: &str) -> Option<String> {
    let f = common::dxil_programs()
        .into_iter()
        .find(|p| common::display_name(p) == name)?;
    Some(disassemble(&std::fs::read(f).unwrap()).expect("listing"))
}

#[test]
fn every_listing_matches_its_snapshot() {
    let files = common::dxil_programs();
    let mut failures = Vec::new();
    for f in &files {
        let name = common::display_name(f);
        match disassemble(&std::fs::read(f).unwrap()) {
            Ok(text) => {
                if let Err(e) = common::check_snapshot(&format!("listings/{name}.txt"), &text) {
                    failures.push(e);
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {} listings differ:\n{}",
        failures.len(),
        files.len(),
        failures.join("\n")
    );
    eprintln!("{} DXIL listings checked", files.len());
}

/// Seed `000_…`, "Listings": the listing ends with one newline more after the module.
#[test]
fn listing_ends_with_an_extra_newline() {
    let Some(text) = listing_of("dxil-reader/flow.dxil") else {
        eprintln!("no corpora: skipped");
        return;
    };
    assert!(
        text.ends_with("!19 = !{i32 1}\n\n"),
        "{:?}",
        &text[text.len() - 40..]
    );
}

/// Seed `000_…`, "Listings": a block's predecessors are listed in the reverse of the
/// order the branches to it were created in; LLVM pads the comment to column 50
/// (`printBasicBlock`).
#[test]
fn predecessors_in_use_list_order() {
    let Some(text) = listing_of("dxil-reader/flow.dxil") else {
        eprintln!("no corpora: skipped");
        return;
    };
    // Block %37 is reached from %30 (first), %34, then %36.
    let line = "; <label>:37                                      ; preds = %36, %34, %30";
    assert!(text.contains(line), "no line {line:?}");
    assert_eq!(line.find("; preds").unwrap(), 50);
}

/// dxcdisassembler.cpp: the comment block comes first, then the module; `dx.op`
/// calls carry `; OpName(params)`, `AnnotateHandle` the decoded resource.
#[test]
fn comment_block_and_op_comments() {
    let Some(text) = listing_of("dxil-reader/flow.dxil") else {
        eprintln!("no corpora: skipped");
        return;
    };
    assert!(text.starts_with(";\n; Input signature:\n;\n"));
    let module_at = text.find("target datalayout").unwrap();
    let header = &text[..module_at];
    for s in [
        "; shader hash: ",
        ";PSVRuntimeInfo:\n; Pixel Shader\n",
        "; Name                 Index             InterpMode DynIdx\n",
        "; cbuffer Values\n",
        "; Values                            cbuffer      NA          NA     CB0            cb0     1\n",
        "; ViewId state:\n",
    ] {
        assert!(header.contains(s), "header lacks {s:?}");
    }
    assert!(text.contains(
        "call %dx.types.Handle @dx.op.createHandle(i32 57, i8 2, i32 0, i32 0, i1 false)  ; CreateHandle(resourceClass,rangeId,index,nonUniformIndex)\n"
    ));
    if let Some(t) = listing_of("dxil-reader/compute_basic.66.dxil") {
        assert!(t.contains("; AnnotateHandle(res,props)  resource: "));
    }
}

/// Not a DXIL program: the listing refuses with a clear error.
#[test]
fn dxbc_containers_are_refused() {
    let Some(f) = common::dxbc_programs().into_iter().next() else {
        eprintln!("no DXBC programs: skipped");
        return;
    };
    let e = disassemble(&std::fs::read(f).unwrap()).unwrap_err();
    assert!(e.to_string().contains("no DXIL program part"), "{e}");
}

/// Corrupted containers never panic the listing (each byte of each part set to 0x00
/// or 0xff, on a few programs).
#[test]
fn corrupted_containers_never_panic() {
    let files = common::dxil_programs();
    for f in files.iter().take(6) {
        let bytes = std::fs::read(f).unwrap();
        let Ok(c) = Container::parse(&bytes) else {
            continue;
        };
        let spans: Vec<(usize, usize)> = c
            .parts
            .iter()
            .filter(|p| p.tag != FourCc::DXIL)
            .map(|p| (p.data_offset() as usize, p.data.len()))
            .collect();
        for (start, len) in spans {
            for i in (start..start + len).step_by(7) {
                for v in [0u8, 0xff] {
                    let mut b = bytes.clone();
                    b[i] = v;
                    let _ = disassemble(&b);
                }
            }
        }
    }
}

/// The bitcode of a container part (`DXIL` or `STAT`), if it holds a program.
fn part_bitcode(bytes: &[u8], tag: FourCc) -> Option<Vec<u8>> {
    let c = Container::parse(bytes).ok()?;
    let p = c.part(tag)?;
    DxilProgramHeader::parse(p).ok().map(|(_, b)| b.to_vec())
}

/// Makes our LLVM 3.7 text and llvm-dis's comparable, undoing the differences the
/// newer LLVM makes on the same bitcode:
/// - llvm-dis prints `; ModuleID` and `source_filename`; dxc prints neither;
/// - an unnamed block's label is `N:` there, `; <label>:N` in LLVM 3.7;
/// - dxc's `; OpName(params)` comments are dxc's own;
/// - the newer LLVM renames and re-attributes intrinsics (`llvm.lifetime.start.p0i8`,
///   `immarg`, `willreturn`) and moves their declarations: `.p0i8` is taken off
///   calls, `llvm.*` declarations are dropped, attribute group numbers and lines are
///   ignored;
/// - the newer LLVM prints an alignment on every load, store and atomic (computing
///   one when the bitcode states none); LLVM 3.7 prints none when the bitcode states
///   none (a line may differ only by that).
pub fn llvm_dis_normalise(text: &str, ours: bool) -> Vec<String> {
    let mut lines: Vec<String> = Vec::new();
    for l in text.lines() {
        if l.starts_with("; ModuleID") || l.starts_with("source_filename") {
            continue;
        }
        let mut l = l.to_string();
        if ours {
            if let Some(i) = l.find("  ; ")
                && l.starts_with("  ")
            {
                l.truncate(i);
            }
            if let Some(rest) = l.strip_prefix("; <label>:") {
                let (n, preds) = rest.split_once(' ').unwrap_or((rest, ""));
                l = format!("{n}: {}", preds.trim_start());
            }
        } else if l.contains("@llvm.") {
            // The newer LLVM mangles the pointer type into intrinsic names.
            l = l.replace(".p0i8(", "(");
        } else if !l.starts_with(' ')
            && !l.starts_with(';')
            && let Some((label, rest)) = l.split_once(':')
            && rest.trim_start().starts_with(';')
            && !label.contains(' ')
        {
            l = format!("{label}: {}", rest.trim_start());
        }
        lines.push(l.trim_end().to_string());
    }
    // Drop llvm.* declarations with their comment and blank line; attribute lines.
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let l = &lines[i];
        let decl_llvm = |s: &str| s.starts_with("declare") && s.contains("@llvm.");
        if l.starts_with("; Function Attrs") && lines.get(i + 1).is_some_and(|n| decl_llvm(n)) {
            i += 2;
            if lines.get(i).is_some_and(|s| s.is_empty()) {
                i += 1;
            }
            continue;
        }
        if decl_llvm(l) {
            i += 1;
            if lines.get(i).is_some_and(|s| s.is_empty()) {
                i += 1;
            }
            continue;
        }
        if l.starts_with("attributes #") {
            i += 1;
            continue;
        }
        let mut s = String::new();
        let mut rest = l.as_str();
        while let Some(p) = rest.find(" #") {
            let (a, b) = rest.split_at(p);
            s.push_str(a);
            let digits = b[2..].chars().take_while(char::is_ascii_digit).count();
            if digits > 0 {
                s.push_str(" #N");
                rest = &b[2 + digits..];
            } else {
                s.push_str(" #");
                rest = &b[2..];
            }
        }
        s.push_str(rest);
        out.push(s);
        i += 1;
    }
    while out.last().is_some_and(|s| s.is_empty()) {
        out.pop();
    }
    out
}

fn strip_align(s: &str) -> String {
    match s.rfind(", align ") {
        Some(i) if s[i + 8..].chars().all(|c| c.is_ascii_digit()) => s[..i].to_string(),
        _ => s.to_string(),
    }
}

pub(crate) fn compare_with_llvm_dis(dis: &Path, bitcode: &[u8], path: &Path) -> Result<(), String> {
    std::fs::write(path, bitcode).unwrap();
    let out = std::process::Command::new(dis)
        .arg("-o")
        .arg("-")
        .arg(path)
        .output()
        .expect("run LLVM_DIS");
    if !out.status.success() {
        return Err(format!(
            "llvm-dis failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let theirs = llvm_dis_normalise(&String::from_utf8_lossy(&out.stdout), false);
    let m = Module::parse(bitcode).map_err(|e| e.to_string())?;
    let ours = llvm_dis_normalise(&module_text(&m), true);
    if ours.len() != theirs.len() {
        return Err(format!(
            "{} lines here, {} from llvm-dis",
            ours.len(),
            theirs.len()
        ));
    }
    for (k, (a, b)) in ours.iter().zip(&theirs).enumerate() {
        // A line may differ only by the alignment llvm-dis adds.
        let only_align = !a.contains(", align ") && *a == strip_align(b);
        if a != b && !only_align {
            return Err(format!("line {}:\n  ours:     {a}\n  llvm-dis: {b}", k + 1));
        }
    }
    Ok(())
}

#[test]
fn module_text_agrees_with_llvm_dis() {
    let Some(dis) = common::llvm_dis("the listing comparison with llvm-dis") else {
        return;
    };
    let dis = Path::new(&dis);
    let dir = common::target_dir().join("dxil-listing-llvm-dis");
    std::fs::create_dir_all(&dir).unwrap();
    let (mut agreed, mut failures) = (0usize, Vec::new());
    for (k, f) in common::dxil_programs().iter().enumerate() {
        let name = common::display_name(f);
        let bytes = std::fs::read(f).unwrap();
        for tag in [FourCc::DXIL, FourCc(*b"STAT")] {
            let Some(bc) = part_bitcode(&bytes, tag) else {
                continue;
            };
            let path = dir.join(format!("{k}.{tag}.bc"));
            match compare_with_llvm_dis(dis, &bc, &path) {
                Ok(()) => agreed += 1,
                Err(e) => failures.push(format!("{name} ({tag}): {e}")),
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} modules differ from llvm-dis:\n{}",
        failures.len(),
        failures.join("\n")
    );
    eprintln!("{agreed} modules agree with llvm-dis");
}

/// A library's subobjects come from the `RDAT` subobject table, sorted by name
/// (dxcdisassembler.cpp `PrintSubobjects`).
#[test]
fn library_subobjects_from_rdat() {
    let Some(text) = listing_of("dxil-reader/ray_subobjects.dxil") else {
        eprintln!("no corpora: skipped");
        return;
    };
    let at = text
        .find(";\n; Subobjects:\n;\n")
        .expect("a subobjects block");
    let block = &text[at..text.find("target datalayout").unwrap()];
    assert!(
        block.contains(";  RaytracingShaderConfig shader_config = { MaxPayloadSizeInBytes = 32, MaxAttributeSizeInBytes = 8 };\n"),
        "{block}"
    );
}
