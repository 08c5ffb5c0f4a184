//! HLSL variables of a DXBC vertex program from an `SPDB` part, in every register file
//! the debugger shows and with their HLSL types: the PDB is written here (by the
//! writer of `spdb.rs`) around the vkd3d-compiled `tests/jobs/spdb/vertex_plain.vs_5_0.dxbc`
//! (`vertex.hlsl` beside it), regenerated and compared with the committed
//! `vertex.vs_5_0.dxbc` (`DXLANE_BLESS=1` rewrites it).
//!
//! The type records, from `cvinfo.h` (the microsoft-pdb repository): `LF_VECTOR`
//! (element type, count, size, name), `LF_MATRIX` (element type, rows, columns, major
//! stride, the attribute byte whose bit 0 is `row_major`, size, name), `LF_ARRAY`
//! (element type, index type, size in bytes, name), `LF_FIELDLIST` of `LF_MEMBER`s
//! (attributes, type, offset, name; each padded to 4 bytes with `LF_PAD` bytes) and
//! `LF_STRUCTURE` (member count, properties, field list, derived-from, vtable shape,
//! size, name). The register types of `S_DEFRANGE_HLSL` are `CV_HLSLREG_e` (the DIA
//! SDK's reference), the DXBC operand type numbers.
//!
//! The program (instruction indices count the declarations, as the listing does) and
//! what the hand-written debug info says:
//!
//! | # | instruction | line | held |
//! |---|---|---|---|
//! | 6–8 | `mov x0[0..2].x, v0.x / v0.y / v1.x` | 12 `float a[3] = …` | `p` = v0.xy and `c` = v1 over 6–26 |
//! | 9–12 | `mul`, `ftou`, `udiv`, `mov r0.x, x0[r0.x]` | 13 `float k = …` | `a[i]` = x0[i].x over 9–12 |
//! | 13–16 | `mov r1…`, `mov o0, r1` | 16 `o.pos = …` | `k` = r0.x over 13–19 |
//! | 17–24 | the `mul(m, …)` arithmetic | 17 `o.colour = …` | `m` = (v0.x, v0.y; v1.y, v1.z) over 17–21 |
//! | 25 | `mov o1, r1` | 18 `return o;` | `o.pos` = o0, `o.colour` = o1 over 17–26 |
//! | 26 | `ret` | 19 | |
//!
//! Vertex 1 (the job's vertex buffer): `p` = (0.5, −0.25), `c` = (0.25, 2, 3, 1), so
//! the index is (uint)(1 × 2) % 3 = 2 and `k` = `a[2]` = `c.x` = 0.25; `m` = [[0.5,
//! −0.25], [2, 3]], `mul(m, (k, 1))` = (0.5 × 0.25 − 0.25, 2 × 0.25 + 3) = (−0.125,
//! 3.5); `o.pos` = (0.5, −0.25, 0, 1), `o.colour` = (−0.125, 3.5, 3, 1).

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation
)]

use super::check_committed;
use super::spdb::{cstr, local, record, u16s, u32s, write_pdb};
use crate::container::spdb;
use crate::container::write::write_container;
use crate::container::{Container, FourCc};
use crate::debug::{DebugOptions, Debugger, LaneSelect};

const FOLDER: &str = "tests/jobs/spdb";

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(FOLDER)
}

fn plain() -> Vec<u8> {
    std::fs::read(root().join("vertex_plain.vs_5_0.dxbc")).unwrap()
}

/// The byte offset of each instruction, and last the end of the program.
fn offsets() -> Vec<u32> {
    let p = crate::dxbc::Program::from_bytes(&plain()).unwrap();
    let mut v: Vec<u32> = p.instructions.iter().map(|i| i.offset * 4).collect();
    let last = p.instructions.last().unwrap();
    v.push((last.offset + last.length) * 4);
    v
}

/// One `S_DEFRANGE_HLSL` range over instructions `first..=last`: register type, the
/// register offsets (one, or two for an indexable temp), the variable's bytes held.
fn range(
    ty: u16,
    regs: &[u32],
    offset_in_parent: u16,
    size: u16,
    (first, last): (usize, usize),
    offs: &[u32],
) -> Vec<u8> {
    let (start, end) = (offs[first], offs[last + 1]);
    let mut p = Vec::new();
    u16s(&mut p, ty);
    u16s(&mut p, regs.len() as u16);
    u16s(&mut p, offset_in_parent);
    u16s(&mut p, size);
    u32s(&mut p, start);
    u16s(&mut p, 1);
    u16s(&mut p, (end - start) as u16);
    for r in regs {
        u32s(&mut p, *r);
    }
    record(0x1150, &p)
}

/// A type record: the u16 length, then the leaf and its payload padded with `LF_PAD`
/// bytes (0xf0 + the bytes left) to 4 bytes.
pub(super) fn type_record(leaf: u16, payload: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    u16s(&mut body, leaf);
    body.extend_from_slice(payload);
    pad(&mut body);
    let mut v = Vec::new();
    u16s(&mut v, body.len() as u16);
    v.extend_from_slice(&body);
    v
}

/// `LF_PAD` bytes up to the next 4 bytes of a record whose length prefix (2 bytes)
/// comes first.
fn pad(body: &mut Vec<u8>) {
    while (body.len() + 2) % 4 != 0 {
        let left = 4 - (body.len() + 2) % 4;
        body.push(0xf0 + left as u8);
    }
}

/// An `LF_MEMBER` of a field list (public, the offset a short numeric leaf).
fn member(ty: u32, offset: u16, name: &str) -> Vec<u8> {
    let mut m = Vec::new();
    u16s(&mut m, 0x150d);
    u16s(&mut m, 3);
    u32s(&mut m, ty);
    u16s(&mut m, offset);
    cstr(&mut m, name);
    while m.len() % 4 != 0 {
        let left = 4 - m.len() % 4;
        m.push(0xf0 + left as u8);
    }
    m
}

/// An `LF_STRUCTURE` of `count` members in field list `fields`, `size` bytes.
fn structure(count: u16, fields: u32, size: u16, name: &str) -> Vec<u8> {
    let mut p = Vec::new();
    u16s(&mut p, count);
    u16s(&mut p, 0);
    u32s(&mut p, fields);
    u32s(&mut p, 0);
    u32s(&mut p, 0);
    u16s(&mut p, size);
    cstr(&mut p, name);
    type_record(0x1505, &p)
}

/// The type records, from index 0x1000.
fn types() -> Vec<u8> {
    let mut t = Vec::new();
    // 0x1000 float2, 0x1001 float4.
    for (count, bytes, name) in [(2u32, 8u16, "float2"), (4, 16, "float4")] {
        let mut p = Vec::new();
        u32s(&mut p, 0x40);
        u32s(&mut p, count);
        u16s(&mut p, bytes);
        cstr(&mut p, name);
        t.extend(type_record(0x151b, &p));
    }
    // 0x1002 float[3]: 12 bytes.
    let mut p = Vec::new();
    u32s(&mut p, 0x40);
    u32s(&mut p, 0x75);
    u16s(&mut p, 12);
    cstr(&mut p, "");
    t.extend(type_record(0x1503, &p));
    // 0x1003 row_major float2x2.
    let mut p = Vec::new();
    u32s(&mut p, 0x40);
    u32s(&mut p, 2);
    u32s(&mut p, 2);
    u32s(&mut p, 8);
    p.push(1);
    u16s(&mut p, 16);
    cstr(&mut p, "float2x2");
    t.extend(type_record(0x151c, &p));
    // 0x1004 VsOut's field list, 0x1005 VsOut.
    let mut f = member(0x1001, 0, "pos");
    f.extend(member(0x1001, 16, "colour"));
    t.extend(type_record(0x1203, &f));
    t.extend(structure(2, 0x1004, 32, "VsOut"));
    // 0x1006 a field list whose member is 0x1007, the structure of that list: a
    // structure that contains itself.
    t.extend(type_record(0x1203, &member(0x1007, 0, "next")));
    t.extend(structure(1, 0x1006, 4, "Loop"));
    // 0x1008 float[0xfffffff0 / 4]: the size as an LF_ULONG numeric leaf.
    let mut p = Vec::new();
    u32s(&mut p, 0x40);
    u32s(&mut p, 0x75);
    u16s(&mut p, 0x8004);
    u32s(&mut p, 0xffff_fff0);
    cstr(&mut p, "");
    t.extend(type_record(0x1503, &p));
    // 0x1009 a field list continuing (LF_INDEX: leaf, pad, index) into itself, 0x100a
    // its structure.
    let mut f = member(0x40, 0, "v");
    u16s(&mut f, 0x1404);
    u16s(&mut f, 0);
    u32s(&mut f, 0x1009);
    t.extend(type_record(0x1203, &f));
    t.extend(structure(1, 0x1009, 4, "Again"));
    t
}

/// The variables: `(type, parameter, name, ranges)`.
fn symbols(offs: &[u32]) -> Vec<u8> {
    let all = (6, 26);
    let r = |ty, regs: &[u32], at, size, span| range(ty, regs, at, size, span, offs);
    let vars: Vec<(u32, bool, &str, Vec<Vec<u8>>)> = vec![
        (0x1000, true, "p", vec![r(1, &[0], 0, 8, all)]),
        (0x1001, true, "c", vec![r(1, &[16], 0, 16, all)]),
        (
            0x1002,
            false,
            "a",
            (0..3u32)
                .map(|i| r(3, &[0, 16 * i], 4 * i as u16, 4, (9, 12)))
                .collect(),
        ),
        (0x40, false, "k", vec![r(0, &[0], 0, 4, (13, 19))]),
        (
            0x1003,
            false,
            "m",
            vec![
                r(1, &[0], 0, 4, (17, 21)),
                r(1, &[4], 4, 4, (17, 21)),
                r(1, &[20], 8, 4, (17, 21)),
                r(1, &[24], 12, 4, (17, 21)),
            ],
        ),
        (
            0x1005,
            false,
            "o",
            vec![r(2, &[0], 0, 16, (17, 26)), r(2, &[16], 16, 16, (17, 26))],
        ),
        // Bad input: registers the program does not declare, a register file no
        // variable is read from, types that do not read.
        (0x40, false, "far", vec![r(2, &[80], 0, 4, all)]),
        (0x40, false, "deep", vec![r(3, &[3, 0], 0, 4, all)]),
        (0x40, false, "past", vec![r(3, &[0, 48], 0, 4, all)]),
        (0x40, false, "spare", vec![r(0, &[9 * 16], 0, 4, all)]),
        (0x40, false, "constant", vec![r(8, &[0, 0], 0, 4, all)]),
        (0x40, false, "unknown", vec![r(99, &[0], 0, 4, all)]),
        (0x2000, false, "lost", vec![r(0, &[0], 0, 4, all)]),
        (0x1007, false, "looped", vec![r(0, &[0], 0, 4, all)]),
        (0x1008, false, "huge", vec![r(0, &[0], 0, 4, all)]),
        (0x100a, false, "again", vec![r(0, &[0], 0, 4, all)]),
    ];
    let mut inner = Vec::new();
    for (ty, param, name, ranges) in vars {
        inner.extend(local(ty, param, name));
        for r in ranges {
            inner.extend(r);
        }
    }
    inner
}

fn pdb() -> Vec<u8> {
    let offs = offsets();
    let text = std::fs::read_to_string(root().join("vertex.hlsl")).unwrap();
    let lines = [(6, 12), (9, 13), (13, 16), (17, 17), (25, 18), (26, 19)];
    write_pdb(
        &offs,
        &text,
        "vertex.hlsl",
        &types(),
        &symbols(&offs),
        &lines,
    )
}

fn container() -> Vec<u8> {
    let bytes = plain();
    let c = Container::parse(&bytes).unwrap();
    let pdb = pdb();
    let mut parts: Vec<(FourCc, &[u8])> = c.parts.iter().map(|p| (p.tag, p.data)).collect();
    parts.push((spdb::SPDB, &pdb));
    write_container(&parts).unwrap()
}

/// The committed container is what the writer makes of the program today.
#[test]
fn the_committed_vertex_container_is_regenerated_unchanged() {
    check_committed(FOLDER, vec![("vertex.vs_5_0.dxbc", container())]);
}

/// The reader reads the matrix, the structure and the array, and says why the bad
/// types do not read.
#[test]
fn the_reader_reads_matrices_structures_and_arrays() {
    use spdb::{Field, ScalarKind::Float, VarType};
    let s = spdb::read(&pdb()).unwrap();
    let ty = |name: &str| {
        s.variables
            .iter()
            .find(|v| v.name == name)
            .unwrap()
            .ty
            .clone()
    };
    assert_eq!(
        ty("m"),
        VarType::Matrix {
            kind: Float,
            rows: 2,
            cols: 2,
            row_major: true
        }
    );
    assert_eq!(
        ty("a"),
        VarType::Array {
            element: Box::new(VarType::Scalar(Float)),
            count: 3,
            stride: 4
        }
    );
    let f4 = VarType::Vector(Float, 4);
    assert_eq!(
        ty("o"),
        VarType::Struct(vec![
            Field {
                name: "pos".into(),
                offset: 0,
                ty: f4.clone()
            },
            Field {
                name: "colour".into(),
                offset: 16,
                ty: f4
            },
        ])
    );
    let why = |name: &str| match ty(name) {
        VarType::Unreadable(_, why) => why,
        t => panic!("{name}: {t:?}"),
    };
    assert!(
        why("lost").contains("past the type stream"),
        "{}",
        why("lost")
    );
    assert!(why("looped").contains("nested deeper"), "{}", why("looped"));
    assert!(
        why("huge").contains("more than the 4096 scalars"),
        "{}",
        why("huge")
    );
    assert!(!why("again").is_empty());
}

fn session() -> Debugger {
    let path = root().join("vertex.toml");
    let job = crate::job::Job::load(&path).unwrap();
    let p = crate::job::prepare(job, &crate::job::RunOptions::default()).unwrap();
    let t = crate::debug::target::from_job(&p).unwrap();
    Debugger::open(
        t,
        LaneSelect::Vertex {
            vertex: 1,
            instance: 0,
        },
        DebugOptions::default(),
    )
    .unwrap()
}

fn run(d: &mut Debugger, cmd: &str) -> String {
    d.execute(cmd)
        .unwrap_or_else(|e| panic!("`{cmd}`: {e}\n{}", d.where_text()))
}

fn at_line(d: &mut Debugger, line: u32) {
    let (_, _, l) = d
        .break_at_source(&format!("vertex.hlsl:{line}"), None)
        .unwrap();
    assert_eq!(l, line);
    run(d, "continue");
    assert!(
        d.where_text().contains(&format!("next line {line} ")),
        "{}",
        d.where_text()
    );
}

/// Inputs, an indexable temp's elements, a temp, a matrix by rows from inputs, a
/// structure in two outputs (the second not written yet, then written), with the
/// values worked out in the module doc.
#[test]
fn variables_read_from_inputs_outputs_and_indexable_temps() {
    let mut d = session();
    assert!(d.source_level(), "{:?}", d.notes());
    at_line(&mut d, 13);
    // Inputs (v0.xy, v1).
    assert_eq!(
        run(&mut d, "print p")
            .lines()
            .map(|l| l.split(" (").next().unwrap())
            .collect::<Vec<_>>(),
        ["p.x = 0.5", "p.y = -0.25"]
    );
    assert!(run(&mut d, "print c.y").starts_with("c.y = 2.0"));
    // The indexable temp x0's elements.
    let a = run(&mut d, "print a");
    let a: Vec<&str> = a.lines().map(|l| l.split(" (").next().unwrap()).collect();
    assert_eq!(a, ["a[0] = 0.5", "a[1] = -0.25", "a[2] = 0.25"]);
    assert!(run(&mut d, "print k").contains("optimised out"));
    at_line(&mut d, 17);
    assert!(run(&mut d, "print k").starts_with("k = 0.25"));
    // The matrix by rows, and an element by HLSL's spellings.
    let m = run(&mut d, "print m");
    let rows: Vec<String> = m
        .lines()
        .map(|l| {
            l.split(", ")
                .map(|x| x.split(" (").next().unwrap())
                .collect::<Vec<_>>()
                .join(", ")
        })
        .collect();
    assert_eq!(rows, ["m[0] = 0.5, -0.25", "m[1] = 2.0, 3.0"], "{m}");
    assert!(run(&mut d, "print m._m10").starts_with("m[1][0] = 2.0"));
    assert!(run(&mut d, "print m._22").starts_with("m[1][1] = 3.0"));
    // The structure: o.pos written to o0 (instruction 16), o.colour not yet.
    let o = run(&mut d, "print o");
    assert!(
        o.contains("o.pos.x = 0.5") && o.contains("o.pos.w = 1.0"),
        "{o}"
    );
    assert!(o.contains("o.colour.x = not written yet"), "{o}");
    at_line(&mut d, 19);
    let o = run(&mut d, "print o.colour");
    let o: Vec<&str> = o.lines().map(|l| l.split(" (").next().unwrap()).collect();
    assert_eq!(
        o,
        [
            "o.colour.x = -0.125",
            "o.colour.y = 3.5",
            "o.colour.z = 3.0",
            "o.colour.w = 1.0"
        ]
    );
    // Outside their ranges.
    assert!(run(&mut d, "print a[1]").contains("optimised out"));
    assert!(run(&mut d, "print m").contains("optimised out"));
    // The Locals list shows the structure member by member.
    let locals = d.locals(0);
    let o = locals.iter().find(|v| v.name == "o").unwrap();
    assert!(o.value.starts_with("pos.x = 0.5"), "{}", o.value);
}

/// Registers the program does not declare, a constant buffer, an unknown register type
/// and types that do not read: each variable is unreadable with the reason.
#[test]
fn bad_ranges_and_types_read_as_unreadable_with_the_reason() {
    let mut d = session();
    at_line(&mut d, 13);
    for (name, says) in [
        (
            "far",
            "an output register or component the program does not declare",
        ),
        ("deep", "an indexable temp the program does not declare"),
        ("past", "an element past the end of its indexable temp"),
        ("spare", "a temp register past the program's dcl_temps"),
        ("constant", "a constant buffer"),
        ("unknown", "no DXBC register type"),
        (
            "lost",
            "does not read: type index 0x2000 is past the type stream's records",
        ),
        ("looped", "nested deeper than 16"),
        ("huge", "more than the 4096 scalars read"),
    ] {
        let v = run(&mut d, &format!("print {name}"));
        assert!(
            v.starts_with(&format!("{name} = unreadable: ")) && v.contains(says),
            "{name}: {v}"
        );
    }
    assert!(run(&mut d, "print again").contains("unreadable"));
    let locals = d.locals(0);
    let huge = locals.iter().find(|v| v.name == "huge").unwrap();
    assert!(huge.value.starts_with("unreadable: "), "{}", huge.value);
}
