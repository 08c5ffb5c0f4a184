//! Source-level debugging of a DXBC program from an `SPDB` part. No fxc here and no
//! corpus container carries one, so this module writes the PDB itself, from the
//! documented layouts, around the vkd3d-compiled `tests/jobs/spdb/plain.cs_5_0.dxbc`
//! (the HLSL beside it), with a hand-written line table and variables; the containers
//! of `tests/jobs/spdb/` are regenerated and compared (`DXLANE_BLESS=1` rewrites them).
//!
//! The layouts, from LLVM's PDB documentation (`llvm/docs/PDB/MsfFile.rst`,
//! `PdbStream.rst`, `HashTable.rst`, `DbiStream.rst`, `ModiStream.rst`,
//! `TpiStream.rst`, `StringTable.rst`, `CodeViewSymbols.rst`) and Microsoft's
//! `cvinfo.h` (the microsoft-pdb repository), and fxc's use of them as RenderDoc's
//! `dxbc_spdb.cpp` reads it:
//!
//! - MSF: block 0 the superblock (magic, block size, free-block-map block, block
//!   count, directory size, a reserved word, the block listing the directory's
//!   blocks), blocks 1 and 2 the free-block maps, then each stream's blocks, the
//!   directory (stream count, each stream's size, each stream's block numbers) and the
//!   block listing it.
//! - stream 1, the PDB info stream: version 20000404, signature, age, GUID, then the
//!   named-stream map — a string buffer and a hash table (size, capacity, present and
//!   deleted bit vectors, (name offset, stream) pairs of the present buckets) — and
//!   the feature code 20140508. Buckets are filled in order rather than by the name's
//!   hash: readers that scan the map (the `pdb` crate) do not hash.
//! - stream 2, TPI: the 56-byte header (version 20040203, first type index 0x1000),
//!   then `LF_VECTOR` records (element type, count, byte size, name).
//! - stream 3, DBI: the 64-byte header (signature -1, version 19990903) and one module
//!   record (its stream, symbol and C13 line sizes, names).
//! - the module stream: the C13 signature 4, the symbols (`S_GPROC32 main`, then each
//!   `S_LOCAL` followed by its `S_DEFRANGE_HLSL` records, `S_END`), then the C13
//!   subsections: file checksums (0xf4: name offset in `/names`, MD5) and lines (0xf2:
//!   the code range, one file block of (offset, line | statement bit) pairs).
//! - `/names`: signature 0xeffeeffe, hash version 1, the strings (an empty one first),
//!   a bucket table and the string count.
//! - `/src/files/shader.hlsl`: the HLSL text, where fxc keeps each source file.
//!
//! The program (`shader.hlsl`, lines 9–13), its instructions (indices count the
//! declarations, as the listing does) and what the hand-written debug info says:
//!
//! | # | instruction | line | live ranges |
//! |---|---|---|---|
//! | 4 | `utof r0.x, vThreadID.x` | 9 `float x = (float)id.x;` | `id` = vThreadID.xyz over 4–10 |
//! | 5 | `mul r0.y, r0.x, 2.0` | 10 `float2 p = …` | `x` = r0.x over 5–6 |
//! | 6 | `add r0.x, r0.x, 1.0` | 10 | `p.x` = r0.y over 6–7 |
//! | 7 | `add r0.x, r0.y, r0.x` | 11 `float s = p.x + p.y;` | `p.y` = r0.x over 7 |
//! | 8 | `imul null, r1.x, vThreadID.x, 4` | 12 `output.Store(…)` | `s` = r0.x over 8–9 |
//! | 9 | `store_raw u0.x, r1.x, r0.x` | 12 | `unused` = o0.x (a register the program does not declare) |
//! | 10 | `ret` | 13 | |
//!
//! Thread 3: `x` = 3.0, `p` = (6.0, 4.0), `s` = 10.0, stored at byte 12.

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation
)]

use serde_json::{Value, json};

use super::{Client, Sink, check_committed};
use crate::container::spdb;
use crate::container::write::write_container;
use crate::container::{Container, FourCc};
use crate::debug::dap::{LaunchArgs, Server};
use crate::debug::{DebugOptions, Debugger, LaneSelect, Program, Target};
use crate::resources::Memory;

const FOLDER: &str = "tests/jobs/spdb";
const BLOCK: u32 = 512;

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join(FOLDER)
}

fn hlsl() -> String {
    std::fs::read_to_string(root().join("shader.hlsl")).unwrap()
}

fn plain() -> Vec<u8> {
    std::fs::read(root().join("plain.cs_5_0.dxbc")).unwrap()
}

/// The byte offset (from the start of the `SHEX` data) of each instruction, and last
/// the end of the program.
fn offsets() -> Vec<u32> {
    let p = crate::dxbc::Program::from_bytes(&plain()).unwrap();
    let mut v: Vec<u32> = p.instructions.iter().map(|i| i.offset * 4).collect();
    let last = p.instructions.last().unwrap();
    v.push((last.offset + last.length) * 4);
    v
}

pub(super) fn u16s(v: &mut Vec<u8>, x: u16) {
    v.extend_from_slice(&x.to_le_bytes());
}

pub(super) fn u32s(v: &mut Vec<u8>, x: u32) {
    v.extend_from_slice(&x.to_le_bytes());
}

pub(super) fn cstr(v: &mut Vec<u8>, s: &str) {
    v.extend_from_slice(s.as_bytes());
    v.push(0);
}

/// An MSF file holding `streams` (stream `k` is `streams[k]`).
pub fn msf(streams: &[Vec<u8>]) -> Vec<u8> {
    let bs = BLOCK as usize;
    let blocks_of = |n: usize| n.div_ceil(bs);
    // Blocks 0–2: superblock and the two free-block maps.
    let mut next = 3u32;
    let mut lists = Vec::new();
    for s in streams {
        let n = blocks_of(s.len()) as u32;
        lists.push((next..next + n).collect::<Vec<u32>>());
        next += n;
    }
    let mut dir = Vec::new();
    u32s(&mut dir, streams.len() as u32);
    for s in streams {
        u32s(&mut dir, s.len() as u32);
    }
    for l in &lists {
        for b in l {
            u32s(&mut dir, *b);
        }
    }
    let dir_blocks: Vec<u32> = (next..next + blocks_of(dir.len()) as u32).collect();
    next += dir_blocks.len() as u32;
    let map_block = next;
    next += 1;
    let mut out = vec![0u8; next as usize * bs];
    let mut put = |block: u32, data: &[u8]| {
        let at = block as usize * bs;
        out[at..at + data.len()].copy_from_slice(data);
    };
    let mut sb = Vec::new();
    sb.extend_from_slice(b"Microsoft C/C++ MSF 7.00\r\n\x1aDS\0\0\0");
    u32s(&mut sb, BLOCK);
    u32s(&mut sb, 1);
    u32s(&mut sb, next);
    u32s(&mut sb, dir.len() as u32);
    u32s(&mut sb, 0);
    u32s(&mut sb, map_block);
    put(0, &sb);
    for (s, l) in streams.iter().zip(&lists) {
        for (k, b) in l.iter().enumerate() {
            put(*b, &s[k * bs..((k + 1) * bs).min(s.len())]);
        }
    }
    for (k, b) in dir_blocks.iter().enumerate() {
        put(*b, &dir[k * bs..((k + 1) * bs).min(dir.len())]);
    }
    let mut map = Vec::new();
    for b in &dir_blocks {
        u32s(&mut map, *b);
    }
    put(map_block, &map);
    out
}

/// A symbol record: length, kind, payload, padded to 4 bytes.
pub(super) fn record(kind: u16, payload: &[u8]) -> Vec<u8> {
    let mut body = Vec::new();
    u16s(&mut body, kind);
    body.extend_from_slice(payload);
    while (body.len() + 2) % 4 != 0 {
        body.push(0);
    }
    let mut v = Vec::new();
    u16s(&mut v, body.len() as u16);
    v.extend_from_slice(&body);
    v
}

/// One `S_DEFRANGE_HLSL` range: register type and byte offset in its file, the
/// variable's bytes held, and the instructions `[first, last]` it holds over.
struct Range {
    register_type: u16,
    register_offset: u32,
    offset_in_parent: u16,
    size: u16,
    first: usize,
    last: usize,
}

fn defrange(r: &Range, offs: &[u32]) -> Vec<u8> {
    let start = offs[r.first];
    let end = offs[r.last + 1];
    let mut p = Vec::new();
    u16s(&mut p, r.register_type);
    u16s(&mut p, 1); // one register dimension, data memory space
    u16s(&mut p, r.offset_in_parent);
    u16s(&mut p, r.size);
    u32s(&mut p, start);
    u16s(&mut p, 1);
    u16s(&mut p, (end - start) as u16);
    u32s(&mut p, r.register_offset);
    record(0x1150, &p)
}

pub(super) fn local(ty: u32, parameter: bool, name: &str) -> Vec<u8> {
    let mut p = Vec::new();
    u32s(&mut p, ty);
    u16s(&mut p, u16::from(parameter));
    cstr(&mut p, name);
    record(0x113e, &p)
}

/// How a PDB is damaged, for the bad-input tests.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Damage {
    None,
    /// No line table entries.
    NoLines,
}

/// The PDB of the program, as fxc would lay it out.
fn pdb(damage: Damage) -> Vec<u8> {
    let offs = offsets();
    let text = hlsl();
    // TPI: float2 (0x1000) and uint3 (0x1001).
    let mut recs = Vec::new();
    for (elem, count, bytes, name) in [(0x40u32, 2u32, 8u16, "float2"), (0x75, 3, 12, "uint3")] {
        let mut p = Vec::new();
        u32s(&mut p, elem);
        u32s(&mut p, count);
        u16s(&mut p, bytes);
        cstr(&mut p, name);
        recs.extend_from_slice(&record(0x151b, &p));
    }
    // The module: symbols, then C13 lines.
    let vars: Vec<(u32, bool, &str, Vec<Range>)> = vec![
        (
            0x1001,
            true,
            "id",
            vec![Range {
                register_type: 0x20,
                register_offset: 0,
                offset_in_parent: 0,
                size: 12,
                first: 4,
                last: 10,
            }],
        ),
        (
            0x40,
            false,
            "x",
            vec![Range {
                register_type: 0,
                register_offset: 0,
                offset_in_parent: 0,
                size: 4,
                first: 5,
                last: 6,
            }],
        ),
        (
            0x1000,
            false,
            "p",
            vec![
                Range {
                    register_type: 0,
                    register_offset: 4,
                    offset_in_parent: 0,
                    size: 4,
                    first: 6,
                    last: 7,
                },
                Range {
                    register_type: 0,
                    register_offset: 0,
                    offset_in_parent: 4,
                    size: 4,
                    first: 7,
                    last: 7,
                },
            ],
        ),
        (
            0x40,
            false,
            "s",
            vec![Range {
                register_type: 0,
                register_offset: 0,
                offset_in_parent: 0,
                size: 4,
                first: 8,
                last: 9,
            }],
        ),
        (
            0x40,
            false,
            "unused",
            vec![Range {
                register_type: 2,
                register_offset: 0,
                offset_in_parent: 0,
                size: 4,
                first: 4,
                last: 10,
            }],
        ),
    ];
    let mut inner = Vec::new();
    for (ty, param, name, ranges) in &vars {
        inner.extend_from_slice(&local(*ty, *param, name));
        for r in ranges {
            inner.extend_from_slice(&defrange(r, &offs));
        }
    }
    let lines: Vec<(usize, u32)> = match damage {
        Damage::NoLines => Vec::new(),
        Damage::None => vec![(4, 9), (5, 10), (7, 11), (8, 12), (10, 13)],
    };
    write_pdb(&offs, &text, "shader.hlsl", &recs, &inner, &lines)
}

/// A PDB as fxc lays it out for a program whose instructions start at byte offsets
/// `offs` (the end last): the HLSL `text` of file `file`, the type records `recs`
/// (indices from 0x1000), the procedure's inner symbols `inner` and the line table
/// `lines` (instruction index, line).
pub(super) fn write_pdb(
    offs: &[u32],
    text: &str,
    file: &str,
    recs: &[u8],
    inner: &[u8],
    lines: &[(usize, u32)],
) -> Vec<u8> {
    write_pdb_inlined(offs, text, file, recs, inner, lines, &[], &[])
}

/// The byte of the module's symbol stream where the procedure's inner symbols start
/// (after the C13 signature and the `S_GPROC32 main` record): what an `S_INLINESITE`
/// record's parent and end fields count from.
pub(super) fn inner_start() -> u32 {
    4 + record(0x1110, &proc_payload(0)).len() as u32
}

/// The `S_GPROC32` payload of `main` over `code` bytes (its end field filled later).
fn proc_payload(code: u32) -> Vec<u8> {
    let mut p = Vec::new();
    for x in [0u32, 0, 0, code, 0, code, 0, 0] {
        u32s(&mut p, x);
    }
    u16s(&mut p, 1);
    p.push(0);
    cstr(&mut p, "main");
    p
}

/// As [`write_pdb`], with the IPI stream's records `ipi` (indices from 0x1000; none:
/// an empty stream 4, as before) and the module's inlinee-lines subsection (0xf6,
/// `cvinfo.h`'s `CodeViewInlineeSourceLine`: the inlinee's IPI index, its file as the
/// checksum subsection's offset, its line) for each `(inlinee, line)` in `inlinees`.
#[allow(clippy::too_many_arguments)]
pub(super) fn write_pdb_inlined(
    offs: &[u32],
    text: &str,
    file: &str,
    recs: &[u8],
    inner: &[u8],
    lines: &[(usize, u32)],
    ipi: &[u8],
    inlinees: &[(u32, u32)],
) -> Vec<u8> {
    let code = offs[offs.len() - 1];
    // `/names`: the file's name at offset 1.
    let mut names = Vec::new();
    u32s(&mut names, 0xeffe_effe);
    u32s(&mut names, 1);
    let strings = format!("\0{file}\0");
    let strings = strings.as_bytes();
    u32s(&mut names, strings.len() as u32);
    names.extend_from_slice(strings);
    u32s(&mut names, 2);
    u32s(&mut names, 1);
    u32s(&mut names, 0);
    u32s(&mut names, 1);
    // TPI and IPI share the 56-byte header.
    let item_stream = |recs: &[u8]| {
        let mut v = Vec::new();
        let count = type_count(recs);
        for x in [20040203u32, 56, 0x1000, 0x1000 + count, recs.len() as u32] {
            u32s(&mut v, x);
        }
        u16s(&mut v, 0xffff);
        u16s(&mut v, 0xffff);
        for x in [4u32, 0x3ffff, 0, 0, 0, 0, 0, 0] {
            u32s(&mut v, x);
        }
        v.extend_from_slice(recs);
        v
    };
    let tpi = item_stream(recs);
    let ipi = if ipi.is_empty() {
        Vec::new()
    } else {
        item_stream(ipi)
    };
    let mut syms = Vec::new();
    u32s(&mut syms, 4);
    let proc_len = proc_payload(code);
    // The procedure's end: the S_END after the locals.
    let gproc_size = record(0x1110, &proc_len).len();
    let end_at = (4 + gproc_size + inner.len()) as u32;
    let mut p = proc_len.clone();
    p[4..8].copy_from_slice(&end_at.to_le_bytes());
    syms.extend_from_slice(&record(0x1110, &p));
    syms.extend_from_slice(inner);
    syms.extend_from_slice(&record(0x0006, &[]));
    let mut c13 = Vec::new();
    let mut chk = Vec::new();
    u32s(&mut chk, 1);
    chk.push(16);
    chk.push(1);
    {
        use md5::{Digest, Md5};
        chk.extend_from_slice(&Md5::digest(text.as_bytes()));
    }
    while chk.len() % 4 != 0 {
        chk.push(0);
    }
    u32s(&mut c13, 0xf4);
    u32s(&mut c13, chk.len() as u32);
    c13.extend_from_slice(&chk);
    let mut l = Vec::new();
    u32s(&mut l, 0);
    u16s(&mut l, 1);
    u16s(&mut l, 0);
    u32s(&mut l, code);
    u32s(&mut l, 0);
    u32s(&mut l, lines.len() as u32);
    u32s(&mut l, 12 + 8 * lines.len() as u32);
    for (i, line) in lines {
        u32s(&mut l, offs[*i]);
        u32s(&mut l, line | 1 << 31);
    }
    u32s(&mut c13, 0xf2);
    u32s(&mut c13, l.len() as u32);
    c13.extend_from_slice(&l);
    if !inlinees.is_empty() {
        let mut v = Vec::new();
        u32s(&mut v, 0);
        for (id, line) in inlinees {
            for x in [*id, 0, *line] {
                u32s(&mut v, x);
            }
        }
        u32s(&mut c13, 0xf6);
        u32s(&mut c13, v.len() as u32);
        c13.extend_from_slice(&v);
    }
    let mut module = syms.clone();
    module.extend_from_slice(&c13);
    // DBI: one module, in stream 5.
    let mut mi = Vec::new();
    u32s(&mut mi, 0);
    u16s(&mut mi, 1);
    u16s(&mut mi, 0);
    for x in [0u32, code, 0] {
        u32s(&mut mi, x);
    }
    u16s(&mut mi, 0);
    u16s(&mut mi, 0);
    u32s(&mut mi, 0);
    u32s(&mut mi, 0);
    u16s(&mut mi, 0);
    u16s(&mut mi, 5);
    u32s(&mut mi, syms.len() as u32);
    u32s(&mut mi, 0);
    u32s(&mut mi, c13.len() as u32);
    u16s(&mut mi, 1);
    u16s(&mut mi, 0);
    for x in [0u32, 0, 0] {
        u32s(&mut mi, x);
    }
    cstr(&mut mi, file);
    cstr(&mut mi, file);
    while mi.len() % 4 != 0 {
        mi.push(0);
    }
    let mut dbi = Vec::new();
    u32s(&mut dbi, 0xffff_ffff);
    u32s(&mut dbi, 19990903);
    u32s(&mut dbi, 1);
    for x in [0xffffu16, 0, 0xffff, 0, 0xffff, 0] {
        u16s(&mut dbi, x);
    }
    u32s(&mut dbi, mi.len() as u32);
    for _ in 0..7 {
        u32s(&mut dbi, 0);
    }
    u16s(&mut dbi, 0);
    u16s(&mut dbi, 0);
    u32s(&mut dbi, 0);
    dbi.extend_from_slice(&mi);
    // The PDB info stream with the named streams /names (6) and the source (7).
    let mut info = Vec::new();
    for x in [20000404u32, 0, 1] {
        u32s(&mut info, x);
    }
    info.extend_from_slice(&[0x5d; 16]);
    let buf = format!("/names\0/src/files/{file}\0");
    let buf = buf.as_bytes();
    u32s(&mut info, buf.len() as u32);
    info.extend_from_slice(buf);
    for x in [2u32, 4, 1, 0b11, 0, 0, 6, 7, 7] {
        u32s(&mut info, x);
    }
    u32s(&mut info, 0);
    u32s(&mut info, 20140508);
    msf(&[
        Vec::new(),
        info,
        tpi,
        dbi,
        ipi,
        module,
        names,
        text.as_bytes().to_vec(),
    ])
}

/// The number of type records in `recs` (each a u16 length and that many bytes).
fn type_count(recs: &[u8]) -> u32 {
    let (mut at, mut n) = (0usize, 0u32);
    while at + 2 <= recs.len() {
        at += 2 + usize::from(u16::from_le_bytes([recs[at], recs[at + 1]]));
        n += 1;
    }
    n
}

/// The plain program's parts with an `SPDB` part of `spdb` added.
fn with_spdb(spdb: &[u8]) -> Vec<u8> {
    let bytes = plain();
    let c = Container::parse(&bytes).unwrap();
    let mut parts: Vec<(FourCc, &[u8])> = c.parts.iter().map(|p| (p.tag, p.data)).collect();
    parts.push((spdb::SPDB, spdb));
    write_container(&parts).unwrap()
}

/// The containers, by file name.
fn containers() -> Vec<(&'static str, Vec<u8>)> {
    vec![
        ("spdb.cs_5_0.dxbc", with_spdb(&pdb(Damage::None))),
        ("no_lines.cs_5_0.dxbc", with_spdb(&pdb(Damage::NoLines))),
    ]
}

/// The committed containers are what the writer makes of the program today.
#[test]
fn the_committed_spdb_containers_are_regenerated_unchanged() {
    check_committed(FOLDER, containers());
}

/// The reader takes the file, the line table and the variables back out of the PDB.
#[test]
fn the_reader_reads_what_the_writer_wrote() {
    let offs = offsets();
    let s = spdb::read(&pdb(Damage::None)).unwrap();
    assert_eq!(s.files.len(), 1);
    assert_eq!(s.files[0].name, "shader.hlsl");
    assert_eq!(s.files[0].text, hlsl());
    assert_eq!(s.function.as_deref(), Some("main"));
    let lines: Vec<(u32, u32)> = s.lines.iter().map(|l| (l.offset, l.line)).collect();
    assert_eq!(
        lines,
        vec![
            (offs[4], 9),
            (offs[5], 10),
            (offs[7], 11),
            (offs[8], 12),
            (offs[10], 13)
        ]
    );
    assert!(s.lines.iter().all(|l| l.file == "shader.hlsl"));
    let names: Vec<&str> = s.variables.iter().map(|v| v.name.as_str()).collect();
    assert_eq!(names, ["id", "x", "p", "s", "unused"]);
    assert_eq!(
        s.variables[0].ty,
        spdb::VarType::Vector(spdb::ScalarKind::UInt, 3)
    );
    assert!(s.variables[0].parameter);
    assert_eq!(
        s.variables[2].ty,
        spdb::VarType::Vector(spdb::ScalarKind::Float, 2)
    );
    assert_eq!(
        s.variables[1].ty,
        spdb::VarType::Scalar(spdb::ScalarKind::Float)
    );
    let p1 = &s.variables[2].ranges[1];
    assert_eq!(
        (p1.register_offset, p1.offset_in_parent, p1.size_in_parent),
        (0, 4, 4)
    );
    assert_eq!((p1.start, p1.end), (offs[7], offs[8]));
}

/// A target running `bytes` on one group of 4 threads, u0 a 16-byte raw buffer.
pub(super) fn target(bytes: &[u8]) -> (Target, Memory) {
    super::program_target(Program::from_container(bytes, None).unwrap())
}

pub(super) fn session(bytes: &[u8]) -> Debugger {
    let (t, _) = target(bytes);
    Debugger::open(t, LaneSelect::Thread([3, 0, 0]), DebugOptions::default()).unwrap()
}

fn run(d: &mut Debugger, cmd: &str) -> String {
    d.execute(cmd)
        .unwrap_or_else(|e| panic!("`{cmd}`: {e}\n{}", d.where_text()))
}

/// The HLSL line `where` shows for the next step.
fn line(d: &mut Debugger) -> Option<u32> {
    let w = d.where_text();
    let n = w.split("next line ").nth(1)?;
    n.split(' ').next()?.parse().ok()
}

/// `step` goes by HLSL line (lines 10 and 12 hold two instructions each); `stepi` by
/// instruction; `back` returns to where the previous line was entered.
#[test]
fn steps_go_by_hlsl_line() {
    let mut d = session(&std::fs::read(root().join("spdb.cs_5_0.dxbc")).unwrap());
    assert!(d.source_level(), "{:?}", d.notes());
    // The session opens on the steps `dcl_input vThreadID` makes: the entry, line 9.
    assert_eq!(line(&mut d), Some(9), "{}", d.where_text());
    let mut seen = vec![9];
    for _ in 0..4 {
        run(&mut d, "step");
        seen.push(line(&mut d).unwrap());
    }
    assert_eq!(seen, [9, 10, 11, 12, 13]);
    run(&mut d, "back");
    assert_eq!(line(&mut d), Some(12));
    run(&mut d, "back");
    assert_eq!(line(&mut d), Some(11));
    run(&mut d, "back");
    assert_eq!(line(&mut d), Some(10));
    // Line 10 holds two instructions: one `stepi` stays on it.
    run(&mut d, "stepi");
    assert_eq!(line(&mut d), Some(10));
    run(&mut d, "stepi");
    assert_eq!(line(&mut d), Some(11));
}

/// A breakpoint on an HLSL line stops where the line is entered; one on a line without
/// code moves to the next line with code (line 8 `{` → 9).
#[test]
fn breakpoints_by_hlsl_line() {
    let mut d = session(&std::fs::read(root().join("spdb.cs_5_0.dxbc")).unwrap());
    let (_, file, l) = d.break_at_source("shader.hlsl:12", None).unwrap();
    assert_eq!((file.as_str(), l), ("shader.hlsl", 12));
    run(&mut d, "continue");
    assert_eq!(line(&mut d), Some(12));
    assert!(
        d.where_text().contains("output.Store"),
        "{}",
        d.where_text()
    );
    let (_, _, moved) = d.break_at_source("8", None).unwrap();
    assert_eq!(moved, 9);
}

/// Variables by name, from the registers their ranges name, at each line: `x` while
/// r0.x holds it, `p` assembled from r0.y and r0.x, `s`; `x` is optimised out once its
/// range ends, and `unused` (in o0, which the compute program does not declare) is
/// unreadable with the reason.
#[test]
fn variables_print_by_name_from_their_registers() {
    let mut d = session(&std::fs::read(root().join("spdb.cs_5_0.dxbc")).unwrap());
    // Line 9, on the system values' steps: id's range has not begun.
    assert_eq!(line(&mut d), Some(9));
    assert!(run(&mut d, "print id").contains("optimised out"));
    // Past them, about to run `utof`.
    for _ in 0..4 {
        if d.where_text().contains("utof") {
            break;
        }
        run(&mut d, "stepi");
        assert_eq!(line(&mut d), Some(9));
    }
    assert!(d.where_text().contains("utof"), "{}", d.where_text());
    // Line 9, about to run `utof`: id = (3, 0, 0); x is not held yet.
    let id = run(&mut d, "print id");
    assert!(id.contains("id.x = 3") && id.contains("id.z = 0"), "{id}");
    assert!(run(&mut d, "print x").contains("optimised out"));
    run(&mut d, "step");
    // Line 10 (about to run `mul`): x = 3.0.
    let x = run(&mut d, "print x");
    assert!(x.starts_with("x = 3.0"), "{x}");
    run(&mut d, "step");
    // Line 11 (about to run the last `add`): p = (6.0, 4.0); x's range has ended.
    let p = run(&mut d, "print p");
    assert!(p.contains("p.x = 6.0") && p.contains("p.y = 4.0"), "{p}");
    assert_eq!(
        run(&mut d, "print p.y").split(" (").next(),
        Some("p.y = 4.0")
    );
    assert!(run(&mut d, "print x").contains("optimised out"));
    run(&mut d, "step");
    // Line 12: s = 10.0.
    assert!(run(&mut d, "print s").starts_with("s = 10.0"));
    // `unused` is in o0, which a compute program never declares: unreadable, and why.
    let unused = run(&mut d, "print unused");
    assert_eq!(
        unused,
        "unused = unreadable: its range names an output register or component the program does not declare"
    );
    let locals: Vec<(String, String)> =
        d.locals(0).into_iter().map(|v| (v.name, v.value)).collect();
    let names: Vec<&str> = locals.iter().map(|(n, _)| n.as_str()).collect();
    assert_eq!(names[0], "id", "parameters first: {locals:?}");
    assert!(names.contains(&"s") && names.contains(&"p"), "{locals:?}");
}

/// `list` shows the HLSL around the next step's line.
#[test]
fn list_shows_the_hlsl() {
    let mut d = session(&std::fs::read(root().join("spdb.cs_5_0.dxbc")).unwrap());
    run(&mut d, "step");
    let l = run(&mut d, "list");
    assert!(l.starts_with("shader.hlsl:"), "{l}");
    assert!(l.contains("=>    10      float2 p"), "{l}");
}

/// A DAP session on the SPDB program: the HLSL source served, a breakpoint by line,
/// HLSL frames and the Locals scope.
#[test]
fn dap_shows_the_hlsl_and_its_locals() {
    let bytes = std::fs::read(root().join("spdb.cs_5_0.dxbc")).unwrap();
    let launch = Box::new(move |_: &LaunchArgs| {
        let (t, _) = target(&bytes);
        Debugger::open(t, LaneSelect::Thread([3, 0, 0]), DebugOptions::default())
            .map_err(|e| e.to_string())
    });
    let sink = Sink::default();
    let mut c = Client {
        server: Server::new(sink.clone(), launch),
        sink,
        seq: 0,
    };
    c.ok("initialize", json!({ "adapterID": "dxlane" }));
    c.send("launch", json!({ "job": "x.toml" }));
    let b = c.ok(
        "setBreakpoints",
        json!({ "source": { "name": "shader.hlsl", "path": "shader.hlsl" }, "breakpoints": [{ "line": 11 }] }),
    );
    assert_eq!(b["breakpoints"][0]["verified"], true, "{b}");
    c.ok("configurationDone", Value::Null);
    let f = c.top();
    assert_eq!(f[0]["line"], 9, "{f}");
    assert_eq!(f[0]["source"]["name"], "shader.hlsl");
    let reference = f[0]["source"]["sourceReference"].clone();
    let src = c.ok("source", json!({ "sourceReference": reference }));
    assert_eq!(src["content"], hlsl());
    c.ok("continue", json!({ "threadId": 4 }));
    let f = c.top();
    assert_eq!(
        (f[0]["name"].as_str(), f[0]["line"].as_u64()),
        (Some("main"), Some(11))
    );
    let scopes = c.ok("scopes", json!({ "frameId": f[0]["id"] }));
    assert_eq!(scopes["scopes"][0]["name"], "Locals");
    let r = scopes["scopes"][0]["variablesReference"].clone();
    let vars = c.ok("variables", json!({ "variablesReference": r }));
    let p = vars["variables"]
        .as_array()
        .unwrap()
        .iter()
        .find(|v| v["name"] == "p")
        .unwrap();
    assert!(
        p["value"]
            .as_str()
            .unwrap()
            .starts_with("x = 6.0 (0x40c00000), y = 4.0"),
        "{p}"
    );
    c.ok("disconnect", Value::Null);
}

/// An SPDB part that does not read, or reads but gives no line, leaves the listing, and
/// the session says what was wrong.
#[test]
fn a_bad_spdb_part_leaves_the_listing_with_a_note() {
    let good = pdb(Damage::None);
    let mut cases: Vec<(&str, Vec<u8>, &str)> = vec![
        ("truncated to its superblock", good[..64].to_vec(), "SPDB"),
        (
            "garbled magic",
            {
                let mut b = good.clone();
                b[0] ^= 0xff;
                b
            },
            "MSF superblock",
        ),
        ("no lines", pdb(Damage::NoLines), "no instruction"),
    ];
    // The directory's size and a stream's size pointing far past the data.
    let mut huge = good.clone();
    huge[44..48].copy_from_slice(&0x7fff_ffffu32.to_le_bytes());
    cases.push(("a directory past the data", huge, "SPDB"));
    let mut size = good.clone();
    size[32..36].copy_from_slice(&0x300u32.to_le_bytes());
    cases.push(("a block size not a power of two", size, "MSF superblock"));
    // Every stream's size in the directory set to u32::MAX - 1.
    let dir_block = u32::from_le_bytes(good[52..56].try_into().unwrap());
    let dir_at = u32::from_le_bytes(
        good[(dir_block * BLOCK) as usize..][..4]
            .try_into()
            .unwrap(),
    ) as usize
        * BLOCK as usize;
    let mut sizes = good.clone();
    for k in 1..8 {
        sizes[dir_at + 4 * k..dir_at + 4 * k + 4].copy_from_slice(&(u32::MAX - 1).to_le_bytes());
    }
    cases.push(("huge stream sizes", sizes, "SPDB"));
    // The stream table's block list pointing past the data.
    let mut past = good.clone();
    past[52..56].copy_from_slice(&0x10_0000u32.to_le_bytes());
    cases.push(("a directory block past the data", past, "SPDB"));
    for (what, part, says) in cases {
        let bytes = with_spdb(&part);
        let d = session(&bytes);
        assert!(!d.source_level(), "{what}");
        let notes = d.notes().join("\n");
        assert!(
            notes.contains("the SPDB part is not used") && notes.contains(says),
            "{what}: {notes}"
        );
        assert!(notes.contains("stepping by the listing"), "{what}: {notes}");
    }
}

/// The superblock's block count is not trusted: a huge one changes nothing, since every
/// read is checked against the part's bytes.
#[test]
fn a_huge_block_count_is_not_trusted() {
    let mut b = pdb(Damage::None);
    b[40..44].copy_from_slice(&u32::MAX.to_le_bytes());
    let s = spdb::read(&b).unwrap();
    assert_eq!(s.lines.len(), 5);
    assert!(session(&with_spdb(&b)).source_level());
}

/// Every byte of the PDB set to 0x00 and to 0xff in turn: the reader returns, never
/// panics (the crate's own unchecked lengths included).
#[test]
fn every_byte_damaged_reads_or_refuses() {
    let good = pdb(Damage::None);
    // The first block, the directory and the streams' first bytes: where lengths live.
    for at in (0..good.len()).step_by(7) {
        for v in [0x00u8, 0xff] {
            let mut b = good.clone();
            b[at] = v;
            let _ = spdb::read(&b);
        }
    }
}
