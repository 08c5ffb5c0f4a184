//! Inlined functions of a DXBC program from an `SPDB` part's inline sites: the PDB is
//! written here (by the writer of `spdb.rs`) around the vkd3d-compiled
//! `tests/jobs/spdb/inline_plain.cs_5_0.dxbc` (`inline.hlsl` beside it), regenerated
//! and compared with the committed `inline.cs_5_0.dxbc` (`DXLANE_BLESS=1` rewrites it).
//!
//! The records, from `cvinfo.h` (the microsoft-pdb repository) and LLVM's CodeView
//! documentation (`CodeViewSymbols.rst`, `DebugInfo` C13 subsections):
//!
//! - `S_INLINESITE` (0x114d): the parent symbol's offset in the module stream, the
//!   offset of its `S_INLINESITE_END` (0x114e), the inlinee (an IPI index) and the
//!   binary annotations — compressed opcodes and operands (`CVUncompressData`: one byte
//!   below 0x80, two below 0x4000, four below 0x20000000; a signed line delta in its
//!   low bit) that run a line program from the procedure's start and the inlinee's
//!   line: `ChangeLineOffset` (6), `ChangeCodeOffset` (3, emits a line), and
//!   `ChangeCodeLengthAndCodeOffset` (12, emits a line of that length);
//! - the IPI stream (stream 4, TPI's header): `LF_FUNC_ID` (0x1601: scope, type, name);
//! - the C13 inlinee-lines subsection (0xf6): signature 0, then per inlinee its IPI
//!   index, its file (the checksum subsection's offset) and the line it starts on.
//!
//! The program (instruction indices count the declarations, as the listing does) and
//! what the hand-written debug info says:
//!
//! | # | instruction | main's line | inlined `spread` | held |
//! |---|---|---|---|---|
//! | 4 | `utof r0.x, vThreadID.x` | 15 `float x = …` | | `id` = vThreadID over 4–10 |
//! | 5 | `mul r0.y, r0.x, 2.0` | 16 `float2 p = spread(x);` | 8 `float twice = v * 2.0;` | `x`, `v` = r0.x over 5–6 |
//! | 6 | `add r0.x, r0.x, 1.0` | 16 | 9 `return …` | `twice` = r0.y over 6–7 |
//! | 7 | `add r0.x, r0.y, r0.x` | 17 `float s = …` | | `p` = (r0.y, r0.x) over 7 |
//! | 8–9 | `imul`, `store_raw` | 18 `output.Store(…)` | | `s` = r0.x over 8–9 |
//! | 10 | `ret` | 19 | | |
//!
//! `spread` starts on line 6 (the inlinee-lines record); its annotations move to line 8
//! at instruction 5 and to line 9 at instruction 6, for the one instruction. Thread 3:
//! `x` = `v` = 3.0, `twice` = 6.0, `p` = (6.0, 4.0), `s` = 10.0.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation
)]

use super::check_committed;
use super::spdb::{cstr, inner_start, local, record, session, u16s, u32s, write_pdb_inlined};
use super::spdb_vertex::type_record;
use crate::container::spdb;
use crate::container::write::write_container;
use crate::container::{Container, FourCc};
use crate::debug::Debugger;

const FOLDER: &str = "tests/jobs/spdb";

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(FOLDER)
}

fn plain() -> Vec<u8> {
    std::fs::read(root().join("inline_plain.cs_5_0.dxbc")).unwrap()
}

/// The byte offset of each instruction, and last the end of the program.
fn offsets() -> Vec<u32> {
    let p = crate::dxbc::Program::from_bytes(&plain()).unwrap();
    let mut v: Vec<u32> = p.instructions.iter().map(|i| i.offset * 4).collect();
    let last = p.instructions.last().unwrap();
    v.push((last.offset + last.length) * 4);
    v
}

/// `CVCompressData`: an unsigned annotation operand (below 0x4000 here).
fn compressed(v: &mut Vec<u8>, x: u32) {
    if x < 0x80 {
        v.push(x as u8);
    } else {
        assert!(x < 0x4000);
        v.push(0x80 | (x >> 8) as u8);
        v.push(x as u8);
    }
}

/// A signed line delta as an operand: the magnitude shifted up, the sign in bit 0.
fn signed(d: i32) -> u32 {
    if d < 0 {
        ((-d as u32) << 1) | 1
    } else {
        (d as u32) << 1
    }
}

/// How the inline site is damaged, for the bad-input tests.
#[derive(Clone, Copy, PartialEq, Eq, Debug)]
enum Damage {
    None,
    /// The annotations end inside a four-byte operand, at the record's end.
    AnnotationsPastRecord,
    /// The inlinee is an IPI index past the stream's records.
    InlineePastIpi,
    /// A second `S_INLINESITE_END` closes nothing.
    ExtraEnd,
    /// The `S_INLINESITE_END` is missing.
    NoEnd,
}

/// The S_INLINESITE record's binary annotations.
fn annotations(offs: &[u32], damage: Damage) -> Vec<u8> {
    let mut a = Vec::new();
    // Line 6 → 8, emitted at instruction 5.
    compressed(&mut a, 6);
    compressed(&mut a, signed(2));
    compressed(&mut a, 3);
    compressed(&mut a, offs[5]);
    // Line 9 at instruction 6, for that one instruction.
    compressed(&mut a, 6);
    compressed(&mut a, signed(1));
    compressed(&mut a, 12);
    compressed(&mut a, offs[7] - offs[6]);
    compressed(&mut a, offs[6] - offs[5]);
    if damage == Damage::AnnotationsPastRecord {
        // A ChangeLineOffset whose operand says four bytes, the record ending after the
        // first (no padding: the payload's 12 bytes and these end on a 4-byte boundary).
        if a.len() % 2 == 1 {
            // ChangeCodeLength with a two-byte operand: three bytes.
            a.extend_from_slice(&[4, 0x80, 0x01]);
        }
        while (a.len() + 2) % 4 != 0 {
            compressed(&mut a, 8);
            compressed(&mut a, 1);
        }
        a.push(6);
        a.push(0xc0);
    }
    a
}

/// A range of register type `ty` at byte `offset` of its file holding the variable's
/// bytes `[at, at + size)` over instructions `first..=last`.
fn range(
    ty: u16,
    offset: u32,
    at: u16,
    size: u16,
    first: usize,
    last: usize,
    offs: &[u32],
) -> Vec<u8> {
    let (start, end) = (offs[first], offs[last + 1]);
    let mut p = Vec::new();
    u16s(&mut p, ty);
    u16s(&mut p, 1);
    u16s(&mut p, at);
    u16s(&mut p, size);
    u32s(&mut p, start);
    u16s(&mut p, 1);
    u16s(&mut p, (end - start) as u16);
    u32s(&mut p, offset);
    record(0x1150, &p)
}

/// The procedure's inner symbols: the locals of `main`, the inline site of `spread`
/// with its two locals, then `main`'s later locals.
fn symbols(offs: &[u32], damage: Damage) -> Vec<u8> {
    let mut before = Vec::new();
    before.extend_from_slice(&local(0x1001, true, "id"));
    before.extend_from_slice(&range(0x20, 0, 0, 12, 4, 10, offs));
    before.extend_from_slice(&local(0x40, false, "x"));
    before.extend_from_slice(&range(0, 0, 0, 4, 5, 6, offs));
    let mut site_locals = Vec::new();
    site_locals.extend_from_slice(&local(0x40, true, "v"));
    site_locals.extend_from_slice(&range(0, 0, 0, 4, 5, 6, offs));
    site_locals.extend_from_slice(&local(0x40, false, "twice"));
    site_locals.extend_from_slice(&range(0, 4, 0, 4, 6, 7, offs));
    let inlinee = inlinee(damage);
    let ann = annotations(offs, damage);
    let site_at = inner_start() + before.len() as u32;
    let site_len = record(0x114d, &[vec![0; 12], ann.clone()].concat()).len() as u32;
    let end_at = site_at + site_len + site_locals.len() as u32;
    let mut p = Vec::new();
    u32s(&mut p, 4); // the parent: S_GPROC32, after the C13 signature
    u32s(&mut p, end_at);
    u32s(&mut p, inlinee);
    p.extend_from_slice(&ann);
    let mut out = before;
    out.extend_from_slice(&record(0x114d, &p));
    out.extend_from_slice(&site_locals);
    match damage {
        Damage::NoEnd => {}
        Damage::ExtraEnd => {
            out.extend_from_slice(&record(0x114e, &[]));
            out.extend_from_slice(&record(0x114e, &[]));
        }
        _ => out.extend_from_slice(&record(0x114e, &[])),
    }
    out.extend_from_slice(&local(0x1000, false, "p"));
    out.extend_from_slice(&range(0, 4, 0, 4, 7, 7, offs));
    out.extend_from_slice(&range(0, 0, 4, 4, 7, 7, offs));
    out.extend_from_slice(&local(0x40, false, "s"));
    out.extend_from_slice(&range(0, 0, 0, 4, 8, 9, offs));
    out
}

/// The inlinee's IPI index the site names.
fn inlinee(damage: Damage) -> u32 {
    if damage == Damage::InlineePastIpi {
        0x1005
    } else {
        0x1000
    }
}

fn pdb(damage: Damage) -> Vec<u8> {
    let offs = offsets();
    let text = std::fs::read_to_string(root().join("inline.hlsl")).unwrap();
    // TPI: float2 (0x1000) and uint3 (0x1001), fxc's LF_VECTOR.
    let mut types = Vec::new();
    for (elem, count, bytes, name) in [(0x40u32, 2u32, 8u16, "float2"), (0x75, 3, 12, "uint3")] {
        let mut p = Vec::new();
        u32s(&mut p, elem);
        u32s(&mut p, count);
        u16s(&mut p, bytes);
        cstr(&mut p, name);
        types.extend_from_slice(&type_record(0x151b, &p));
    }
    // IPI: LF_FUNC_ID spread (0x1000).
    let mut ipi = Vec::new();
    let mut p = Vec::new();
    u32s(&mut p, 0);
    u32s(&mut p, 0);
    cstr(&mut p, "spread");
    ipi.extend_from_slice(&type_record(0x1601, &p));
    let lines = [(4, 15), (5, 16), (7, 17), (8, 18), (10, 19)];
    write_pdb_inlined(
        &offs,
        &text,
        "inline.hlsl",
        &types,
        &symbols(&offs, damage),
        &lines,
        &ipi,
        &[(inlinee(damage), 6)],
    )
}

fn container(damage: Damage) -> Vec<u8> {
    let bytes = plain();
    let c = Container::parse(&bytes).unwrap();
    let pdb = pdb(damage);
    let mut parts: Vec<(FourCc, &[u8])> = c.parts.iter().map(|p| (p.tag, p.data)).collect();
    parts.push((spdb::SPDB, &pdb));
    write_container(&parts).unwrap()
}

/// The committed container is what the writer makes of the program today.
#[test]
fn the_committed_inline_container_is_regenerated_unchanged() {
    check_committed(
        FOLDER,
        vec![("inline.cs_5_0.dxbc", container(Damage::None))],
    );
}

/// The reader takes the inline site's function, lines and locals back out (cvinfo.h's
/// `INLINESITESYM` and `BinaryAnnotationOpcode`).
#[test]
fn the_reader_reads_the_inline_site() {
    let offs = offsets();
    let s = spdb::read(&pdb(Damage::None)).unwrap();
    assert!(s.warnings.is_empty(), "{:?}", s.warnings);
    assert_eq!(s.inline_sites.len(), 1);
    let site = &s.inline_sites[0];
    assert_eq!(site.function, "spread");
    assert_eq!(site.parent, None);
    let lines: Vec<(u32, Option<u32>, &str, u32)> = site
        .lines
        .iter()
        .map(|l| (l.offset, l.length, l.file.as_str(), l.line))
        .collect();
    assert_eq!(
        lines,
        [
            (offs[5], Some(offs[6] - offs[5]), "inline.hlsl", 8),
            (offs[6], Some(offs[7] - offs[6]), "inline.hlsl", 9),
        ]
    );
    let sites: Vec<(&str, Option<usize>)> = s
        .variables
        .iter()
        .map(|v| (v.name.as_str(), v.site))
        .collect();
    assert_eq!(
        sites,
        [
            ("id", None),
            ("x", None),
            ("v", Some(0)),
            ("twice", Some(0)),
            ("p", None),
            ("s", None)
        ]
    );
}

fn run(d: &mut Debugger, cmd: &str) -> String {
    d.execute(cmd)
        .unwrap_or_else(|e| panic!("`{cmd}`: {e}\n{}", d.where_text()))
}

/// The next step's innermost HLSL line.
fn line(d: &Debugger) -> Option<(String, u32)> {
    d.frames().first().map(|f| (f.function.clone(), f.line))
}

/// `bt` inside the inlined function: `spread` innermost, then `main` on the call's
/// line, as the DXIL path shows `inlinedAt` frames.
#[test]
fn bt_shows_the_inlined_frame() {
    let mut d = session(&container(Damage::None));
    assert!(d.source_level(), "{:?}", d.notes());
    assert!(
        d.notes().iter().all(|n| !n.contains("SPDB")),
        "{:?}",
        d.notes()
    );
    run(&mut d, "break inline.hlsl:9");
    run(&mut d, "continue");
    assert_eq!(
        run(&mut d, "bt"),
        "#0 spread (inlined) at inline.hlsl:9:0\n#1 main at inline.hlsl:16:0"
    );
}

/// `step` enters the inlined function, `finish` leaves it for the caller's next line,
/// `next` goes over it (docs/debugger.md, "Debugging in HLSL").
#[test]
fn steps_enter_leave_and_pass_the_inlined_call() {
    let mut d = session(&container(Damage::None));
    assert_eq!(line(&d), Some(("main".into(), 15)));
    run(&mut d, "step");
    assert_eq!(line(&d), Some(("spread".into(), 8)));
    run(&mut d, "step");
    assert_eq!(line(&d), Some(("spread".into(), 9)));
    run(&mut d, "finish");
    assert_eq!(line(&d), Some(("main".into(), 17)));
    let mut d = session(&container(Damage::None));
    run(&mut d, "next");
    assert_eq!(line(&d), Some(("main".into(), 17)));
}

/// A local declared inside the inline site belongs to the inlined frame: at line 9,
/// frame 0 (`spread`) has `v` = 3 and `twice` = 6; frame 1 (`main`) has `id` and `x`
/// = 3, not `spread`'s.
#[test]
fn an_inlined_frames_locals_are_its_own() {
    let mut d = session(&container(Damage::None));
    run(&mut d, "break inline.hlsl:9");
    run(&mut d, "continue");
    let names = |d: &Debugger, depth: usize| -> Vec<(String, String)> {
        d.locals(depth)
            .into_iter()
            .map(|v| (v.name, v.value.split(" (").next().unwrap().to_string()))
            .collect()
    };
    assert_eq!(
        names(&d, 0),
        [("v".into(), "3.0".into()), ("twice".into(), "6.0".into())]
    );
    let main = names(&d, 1);
    let main: Vec<&str> = main.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(main, ["id", "p", "s", "x"]);
    assert!(run(&mut d, "print twice").starts_with("twice = 6.0"));
}

/// Inline sites that do not read leave the program debugging by its procedure's lines,
/// with a note naming the record, never a panic: annotations that run past the record,
/// an inlinee past the IPI stream, an `S_INLINESITE_END` that closes nothing (the site
/// itself still reads) and a site never closed.
#[test]
fn bad_inline_sites_debug_at_the_level_that_reads() {
    for (damage, says, inlined) in [
        (Damage::AnnotationsPastRecord, "run past the record", false),
        (Damage::InlineePastIpi, "past the IPI stream", false),
        (Damage::ExtraEnd, "closes no inline site", true),
        (Damage::NoEnd, "no S_INLINESITE_END", true),
    ] {
        let s = spdb::read(&pdb(damage)).unwrap();
        assert!(
            s.warnings.iter().any(|w| w.contains(says)),
            "{damage:?}: {:?}",
            s.warnings
        );
        let mut d = session(&container(damage));
        assert!(d.source_level(), "{damage:?}: {:?}", d.notes());
        assert!(
            d.notes().iter().any(|n| n.contains(says)),
            "{damage:?}: {:?}",
            d.notes()
        );
        run(&mut d, "step");
        let want = if inlined {
            ("spread".to_string(), 8)
        } else {
            ("main".to_string(), 16)
        };
        assert_eq!(line(&d), Some(want), "{damage:?}");
    }
}
