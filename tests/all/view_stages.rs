//! `SV_ViewID` in the geometry, hull and domain stages (D3D12 View Instancing, "View
//! Instancing Declaration": every graphics stage may read its view's `SV_ViewID`;
//! DXIL.rst's semantic table: `NotInSig` in `GSIn`), with programs in the IR's text
//! form: a draw of two views whose geometry program writes its view into the colour
//! each pixel gets, each view in its own half of the target; the debugger's
//! `--gs-primitive` lane of each view reading it; and a tessellated draw of two views
//! whose hull and domain lanes store the view they read.

use std::path::PathBuf;
use std::process::Command;

use dxlane::job::{self, Job, RunOptions};

use crate::common;

/// A full-screen triangle from `SV_VertexID` alone: (−1, −1), (3, −1), (−1, 3).
pub(crate) const VS: &str = "shader vertex
regs 10
const r0 = 0xbf800000
const r1 = 0x40400000
const r2 = 0x1
const r3 = 0x2
const r4 = 0x3f800000
const r5 = 0x0
io_words in 4 out 4
input \"SV_VertexID\" 0 sv vertex_id reg none rows 1 mask x uint interp undefined slot 0
output \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    input r6, 0
    icmp eq, r7, r6, r2
    select r8, r7, r1, r0
    icmp eq, r7, r6, r3
    select r9, r7, r1, r0
    output 0, r8
    output 1, r9
    output 2, r5
    output 3, r4
    return
";

/// Passes its triangle through, each vertex with `COLOR` = (view, 1, 0, 1): the view
/// as a float, read once (`r7`).
pub(crate) fn gs() -> String {
    let mut body = String::new();
    for v in 0..3 {
        for c in 0..4 {
            body.push_str(&format!(
                "    input r{}, {}\n    output {c}, r{}\n",
                3 + c,
                4 * v + c,
                3 + c
            ));
        }
        body.push_str(
            "    output 4, r7\n    output 5, r0\n    output 6, r1\n    output 7, r0\n    emit 0\n",
        );
    }
    format!(
        "shader geometry
regs 8
const r0 = 0x3f800000
const r1 = 0x0
io_words in 16 out 8
input \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0
input \"SV_ViewID\" 0 sv view_id reg none rows 1 mask x uint interp undefined slot 12
output \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0
output \"COLOR\" 0 sv none reg 1 rows 1 mask xyzw float interp constant slot 4
geometry input triangle output trianglestrip max_vertices 3 instances 1 vertex_words 4
block0:
    input r2, 12
    utof r7, r2
{body}    return
"
    )
}

/// Writes its `COLOR`.
pub(crate) const PS: &str = "shader pixel
regs 4
io_words in 8 out 4
input \"COLOR\" 0 sv none reg 1 rows 1 mask xyzw float interp constant slot 4
output \"SV_Target\" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    input r0, 4
    input r1, 5
    input r2, 6
    input r3, 7
    output 0, r0
    output 1, r1
    output 2, r2
    output 3, r3
    return
";

/// The job: the triangle drawn through [`gs`] for two views into an 8 × 4 target,
/// view 0 at viewport 0 (columns 0 to 3), view 1 at viewport 1 (columns 4 to 7);
/// `views` = "" draws without view instancing.
fn gs_job(name: &str, views: &str) -> PathBuf {
    let dir = common::scratch().join("view_stages").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, body) in [
        ("tri.vs.ir", VS.to_string()),
        ("view.gs.ir", gs()),
        ("color.ps.ir", PS.to_string()),
    ] {
        std::fs::write(dir.join(file), body).unwrap();
    }
    let text = format!(
        "[program]\nvs = \"tri.vs.ir\"\ngs = \"view.gs.ir\"\nps = \"color.ps.ir\"\n\
         [draw]\nvertex_count = 3\n\
         viewports = [[0, 0, 4, 4, 0, 1], [4, 0, 4, 4, 0, 1]]\nscissors = [[0, 0, 4, 4], [4, 0, 8, 4]]\n{views}\n\
         [draw.rasterizer]\ncull = \"NONE\"\n\n\
         [[draw.render_target]]\nformat = \"R8G8B8A8_UNORM\"\nwidth = 8\nheight = 4\n"
    );
    let path = dir.join("job.toml");
    std::fs::write(&path, text).unwrap();
    path
}

pub(crate) const TWO: &str =
    "view_instancing = { count = 2, locations = [{ viewport = 0 }, { viewport = 1 }] }";

/// Every texel of the 8 × 4 target after the job.
fn texels(path: &std::path::Path) -> Vec<[u8; 4]> {
    let job = Job::load(path).unwrap();
    let r = job::run_draw_job(
        job,
        &RunOptions {
            threads: Some(2),
            ..common::run_options()
        },
    )
    .unwrap();
    r.targets[0]
        .view
        .texture
        .to_bytes()
        .chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect()
}

/// Derived by hand: the whole draw runs once per view (`pipeline::view_instancing`),
/// so view v's geometry lanes read `SV_ViewID` = v and every pixel of view v's
/// viewport gets (v, 1, 0, 1) — (0, 255, 0, 255) on the left, (255, 255, 0, 255) on the
/// right. Without view instancing the program reads 0 and only viewport 0 is drawn
/// ("View Instancing Declaration": "Shaders that input SV_ViewID will only see the value
/// 0"), the right half keeping the target's clear value.
#[test]
fn a_geometry_program_reads_the_view_id_of_each_view() {
    let px = texels(&gs_job("two", TWO));
    for (i, p) in px.iter().enumerate() {
        let (x, y) = (i % 8, i / 8);
        let want = if x < 4 {
            [0, 255, 0, 255]
        } else {
            [255, 255, 0, 255]
        };
        assert_eq!(*p, want, "pixel ({x}, {y})");
    }
    let px = texels(&gs_job("none", ""));
    for (i, p) in px.iter().enumerate() {
        let want = if i % 8 < 4 { [0, 255, 0, 255] } else { [0; 4] };
        assert_eq!(*p, want, "pixel ({}, {})", i % 8, i / 8);
    }
}

/// `dxlane debug --gs-primitive 0 --view N` opens the geometry lane of view N's pass,
/// which reads `SV_ViewID` = N.
#[test]
fn the_geometry_lane_of_each_view_reads_its_view() {
    let job = gs_job("debug", TWO);
    let job = job.to_string_lossy();
    for (view, want) in [("0", "r2 = 0"), ("1", "r2 = 1")] {
        let out = Command::new(env!("CARGO_BIN_EXE_dxlane"))
            .args([
                "debug",
                &job,
                "--gs-primitive",
                "0",
                "--view",
                view,
                "-c",
                "continue; print r2",
            ])
            .current_dir(common::root())
            .output()
            .expect("run dxlane");
        let text = format!(
            "{}{}",
            String::from_utf8_lossy(&out.stdout),
            String::from_utf8_lossy(&out.stderr)
        );
        assert_eq!(out.status.code(), Some(0), "{text}");
        assert!(text.contains(want), "view {view}: {text}");
        assert!(text.contains(&format!(", view {view}), step")), "{text}");
    }
}

/// `text` (a program in the IR's text form) reading `SV_ViewID` at a new input word past
/// its own, and that word.
fn with_view_input(text: &str) -> (String, u32) {
    let mut slot = 0;
    let mut out = String::new();
    for line in text.lines() {
        if let Some(rest) = line.strip_prefix("io_words in ") {
            let (n, tail) = rest.split_once(' ').unwrap();
            slot = n.parse().unwrap();
            out.push_str(&format!(
                "io_words in {} {tail}\ninput \"SV_ViewID\" 0 sv view_id reg none rows 1 mask x uint interp undefined slot {slot}\n",
                slot + 1
            ));
            continue;
        }
        out.push_str(line);
        out.push('\n');
    }
    (out, slot)
}

/// D3D12 View Instancing (DirectX-Specs "View Instancing": graphics shaders can read
/// `SV_ViewID`; `D3D12_VIEW_INSTANCING_TIER`: hull factors that depend on it make the
/// tessellation repeat per view): in a draw of two views, every hull lane (both phases)
/// of view v's pass reads v and stores v + 1 to word 8 + v of a raw UAV, every domain
/// lane stores v + 1 to word 12 + v. The example tessellation draw's programs lowered to
/// the IR, each given that read and store. Without view instancing each reads 0
/// ("Shaders that input SV_ViewID will only see the value 0"): words 9 and 13 keep the
/// buffer's 0.
#[test]
fn hull_and_domain_programs_read_the_view_id_of_each_view() {
    use crate::stage_writes::{UAV, tess_example, with_store};
    let (hs, ds, text) = tess_example();
    // v + 1 to word `base` + v (`base` the constant c2 = 8 or c4 = 12).
    let store = |base: &str, slot: u32| {
        format!(
            "    input t0, {slot}
    iadd t1, t0, c1
    iadd t2, t0, {base}
    imul t2, t2, c3
    handle t3, RANGE, c0
    raw_store b32, 1, t3, t2, [t1 _ _ _]
"
        )
    };
    let (hs, hs_slot) = with_view_input(&hs);
    let (ds, ds_slot) = with_view_input(&ds);
    let hs = with_store(&hs, &[0, 1, 8, 4, 12], "block0:", &store("c2", hs_slot));
    let ds = with_store(&ds, &[0, 1, 8, 4, 12], "block0:", &store("c4", ds_slot));
    for (name, views, want) in [
        (
            "two",
            "view_instancing = { count = 2, locations = [{ viewport = 0 }, { viewport = 0 }] }",
            [1, 2, 1, 2],
        ),
        ("none", "", [1, 0, 1, 0]),
    ] {
        let dir = common::scratch()
            .join("view_stages")
            .join(format!("tess-{name}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("patch.hs.ir"), &hs).unwrap();
        std::fs::write(dir.join("patch.ds.ir"), &ds).unwrap();
        let job_text = format!(
            "{}\n{UAV}",
            text.replacen("[draw]\n", &format!("[draw]\n{views}\n"), 1)
        );
        let path = dir.join("tess.toml");
        std::fs::write(&path, job_text).unwrap();
        let r = job::run_draw_job(Job::load(&path).unwrap(), &common::run_options())
            .unwrap_or_else(|e| panic!("{name}: {e}"));
        let bytes = r.bound.resources[0].contents().unwrap();
        let word = |i: usize| u32::from_le_bytes(bytes[i * 4..i * 4 + 4].try_into().unwrap());
        assert_eq!([word(8), word(9), word(12), word(13)], want, "{name}");
    }
}
