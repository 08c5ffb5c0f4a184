//! HLSL variables of a DXBC domain program held in an input control point (`vicp`),
//! the patch constants (`vpc`) and a constant buffer (`cb#`), from an `SPDB` part
//! written here (by the writer of `spdb.rs`) around `shaders/tessellation.ds_5_0.dxbc`
//! (`shaders/tessellation.hlsl`); the container `tests/jobs/spdb/domain.ds_5_0.dxbc`
//! is regenerated and compared (`DXLANE_BLESS=1` rewrites it).
//!
//! `S_DEFRANGE_HLSL`'s register types are `CV_HLSLREG_e` (`cvinfo.h`; the DXBC operand
//! types): 8 constant buffer, 25 input control point, 26 output control point, 27 input
//! patch constant. A constant buffer's and a control point's range has two register
//! dimensions — the buffer's or control point's number, then the byte in it (row × 16 +
//! component × 4) — the layout of an indexable temp's; a patch constant's has one, the
//! byte in the patch-constant registers.
//!
//! The job (`domain.toml`): one patch of three control points at (−0.5, −0.5, 0.25, 1),
//! (0.5, −0.5, 0.5, 1), (0.75, 0.25, 0.75, 1); b0 = an identity `transform` and
//! `factor` = 3 (cb0[4].x). The hull program passes positions through and its fork
//! phase writes `center` = the corners' mean = (0.25, −0.25, 0.5) to vpc0.yzw. On domain
//! point 0 of patch 0: `corner` (vicp[1][0]) = (0.5, −0.5, 0.5, 1), `center` (vpc0.yzw)
//! = (0.25, −0.25, 0.5), `factor` (cb0[4].x) = 3; `lost` names vocp[0][0], which a
//! domain lane does not read.
//!
//! The hull program of `tests/jobs/spdb/hull.hlsl` (vkd3d-compiled,
//! `hull_plain.hs_5_0.dxbc`; the container `hull.hs_5_0.dxbc`, job `hull.toml`) reads
//! output control point 1 in its fork phase (instructions 26–31; line 31 `pc.lift =
//! cps[1].pos.y;`); its PDB holds `lifted` (a `float4`) in vocp[1][0]. The control-point
//! phase doubles each point's y, so on patch 0's patch-constant lane `lifted` = (0.5,
//! −1.0, 0.5, 1).

#![allow(
    clippy::unwrap_used,
    clippy::indexing_slicing,
    clippy::arithmetic_side_effects,
    clippy::cast_possible_truncation
)]

use super::check_committed;
use super::spdb::{cstr, local, record, u16s, u32s, write_pdb};
use super::spdb_vertex::type_record;
use crate::container::spdb;
use crate::container::write::write_container;
use crate::container::{Container, FourCc};
use crate::debug::{DebugOptions, Debugger, LaneSelect};

const FOLDER: &str = "tests/jobs/spdb";

fn root() -> std::path::PathBuf {
    std::path::Path::new(env!("CARGO_MANIFEST_DIR")).to_path_buf()
}

fn plain() -> Vec<u8> {
    std::fs::read(root().join("shaders/tessellation.ds_5_0.dxbc")).unwrap()
}

/// The byte offset of each instruction, and last the end of the program.
fn offsets() -> Vec<u32> {
    let p = crate::dxbc::Program::from_bytes(&plain()).unwrap();
    let mut v: Vec<u32> = p.instructions.iter().map(|i| i.offset * 4).collect();
    let last = p.instructions.last().unwrap();
    v.push((last.offset + last.length) * 4);
    v
}

/// A range of register type `ty` at register offsets `regs` (one or two dimensions)
/// holding the variable's first `size` bytes over the whole program.
fn range(ty: u16, regs: &[u32], size: u16, offs: &[u32]) -> Vec<u8> {
    let (start, end) = (offs[0], offs[offs.len() - 1]);
    let mut p = Vec::new();
    u16s(&mut p, ty);
    u16s(&mut p, regs.len() as u16);
    u16s(&mut p, 0);
    u16s(&mut p, size);
    u32s(&mut p, start);
    u16s(&mut p, 1);
    u16s(&mut p, (end - start) as u16);
    for r in regs {
        u32s(&mut p, *r);
    }
    record(0x1150, &p)
}

fn pdb() -> Vec<u8> {
    let offs = offsets();
    let text = std::fs::read_to_string(root().join("shaders/tessellation.hlsl")).unwrap();
    // TPI: float4 (0x1000) and float3 (0x1001), fxc's LF_VECTOR.
    let mut types = Vec::new();
    for (count, bytes, name) in [(4u32, 16u16, "float4"), (3, 12, "float3")] {
        let mut p = Vec::new();
        u32s(&mut p, 0x40);
        u32s(&mut p, count);
        u16s(&mut p, bytes);
        cstr(&mut p, name);
        types.extend_from_slice(&type_record(0x151b, &p));
    }
    let mut inner = Vec::new();
    inner.extend_from_slice(&local(0x1000, false, "corner"));
    inner.extend_from_slice(&range(25, &[1, 0], 16, &offs));
    inner.extend_from_slice(&local(0x1001, false, "center"));
    inner.extend_from_slice(&range(27, &[4], 12, &offs));
    inner.extend_from_slice(&local(0x40, false, "factor"));
    inner.extend_from_slice(&range(8, &[0, 64], 4, &offs));
    inner.extend_from_slice(&local(0x40, false, "lost"));
    inner.extend_from_slice(&range(26, &[0, 0], 4, &offs));
    // Instructions 9–13 on line 59, 14–15 on 60, 16–48 on 61, `ret` on 62.
    let lines = [(9, 59), (14, 60), (16, 61), (49, 62)];
    write_pdb(&offs, &text, "tessellation.hlsl", &types, &inner, &lines)
}

fn container() -> Vec<u8> {
    wrap(&plain(), &pdb())
}

/// A program's parts with an `SPDB` part of `pdb` added.
fn wrap(bytes: &[u8], pdb: &[u8]) -> Vec<u8> {
    let c = Container::parse(bytes).unwrap();
    let mut parts: Vec<(FourCc, &[u8])> = c.parts.iter().map(|p| (p.tag, p.data)).collect();
    parts.push((spdb::SPDB, pdb));
    write_container(&parts).unwrap()
}

fn hull_plain() -> Vec<u8> {
    std::fs::read(root().join(FOLDER).join("hull_plain.hs_5_0.dxbc")).unwrap()
}

/// The hull program's PDB: `lifted` in vocp[1][0] over the fork phase.
fn hull_pdb() -> Vec<u8> {
    let p = crate::dxbc::Program::from_bytes(&hull_plain()).unwrap();
    let mut offs: Vec<u32> = p.instructions.iter().map(|i| i.offset * 4).collect();
    let last = p.instructions.last().unwrap();
    offs.push((last.offset + last.length) * 4);
    let text = std::fs::read_to_string(root().join(FOLDER).join("hull.hlsl")).unwrap();
    let mut p = Vec::new();
    u32s(&mut p, 0x40);
    u32s(&mut p, 4);
    u16s(&mut p, 16);
    cstr(&mut p, "float4");
    let types = type_record(0x151b, &p);
    let mut inner = local(0x1000, false, "lifted");
    inner.extend_from_slice(&range(26, &[1, 0], 16, &offs));
    let lines = [(11, 42), (26, 27), (30, 31), (31, 32)];
    write_pdb(&offs, &text, "hull.hlsl", &types, &inner, &lines)
}

/// The committed container is what the writer makes of the program today.
#[test]
fn the_committed_domain_container_is_regenerated_unchanged() {
    check_committed(
        FOLDER,
        vec![
            ("domain.ds_5_0.dxbc", container()),
            ("hull.hs_5_0.dxbc", wrap(&hull_plain(), &hull_pdb())),
        ],
    );
}

fn session() -> Debugger {
    open(
        "domain.toml",
        LaneSelect::Domain {
            patch: 0,
            point: 0,
            instance: 0,
        },
    )
}

fn open(job: &str, lane: LaneSelect) -> Debugger {
    let path = root().join(FOLDER).join(job);
    let job = crate::job::Job::load(&path).unwrap();
    let p = crate::job::prepare(job, &crate::job::RunOptions::default()).unwrap();
    let t = crate::debug::target::from_job(&p).unwrap();
    Debugger::open(t, lane, DebugOptions::default()).unwrap()
}

fn run(d: &mut Debugger, cmd: &str) -> String {
    d.execute(cmd)
        .unwrap_or_else(|e| panic!("`{cmd}`: {e}\n{}", d.where_text()))
}

/// Each printed line's name and value, without the bits.
fn values(text: &str) -> Vec<String> {
    text.lines()
        .map(|l| l.split(" (").next().unwrap().to_string())
        .collect()
}

/// Variables in an input control point, the patch constants and the constant buffer
/// read what `print vicp[1][0]`, `print vpc0` and `print cb0[4]` read (values worked
/// out in the module doc); a range naming an output control point in a domain lane is
/// unreadable, and says why.
#[test]
fn control_points_patch_constants_and_constant_buffers() {
    let mut d = session();
    assert!(d.source_level(), "{:?}", d.notes());
    assert_eq!(
        values(&run(&mut d, "print corner")),
        [
            "corner.x = 0.5",
            "corner.y = -0.5",
            "corner.z = 0.5",
            "corner.w = 1.0"
        ]
    );
    assert_eq!(
        values(&run(&mut d, "print center")),
        ["center.x = 0.25", "center.y = -0.25", "center.z = 0.5"]
    );
    assert_eq!(values(&run(&mut d, "print factor")), ["factor = 3.0"]);
    // The same words the registers show.
    assert!(run(&mut d, "print vicp[1][0].y").contains("-0.5"));
    assert!(run(&mut d, "print vpc0.y").contains("0.25"));
    assert!(run(&mut d, "print cb0[4].x").contains("3.0"));
    assert_eq!(
        run(&mut d, "print lost"),
        "lost = unreadable: its range names a control point or patch constant this lane does not read"
    );
}

/// A variable in an output control point reads on a hull patch-constant lane as `print
/// vocp[1][0]` does: (0.5, −1.0, 0.5, 1) on patch 0 (the module doc).
#[test]
fn output_control_points_on_a_patch_constant_lane() {
    let mut d = open(
        "hull.toml",
        LaneSelect::Hull {
            patch: 0,
            control_point: None,
            join: false,
            instance: 0,
        },
    );
    assert!(d.source_level(), "{:?}", d.notes());
    assert_eq!(
        values(&run(&mut d, "print lifted")),
        [
            "lifted.x = 0.5",
            "lifted.y = -1.0",
            "lifted.z = 0.5",
            "lifted.w = 1.0"
        ]
    );
    assert!(run(&mut d, "print vocp[1][0].y").contains("-1.0"));
}
