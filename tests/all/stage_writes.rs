//! Who wrote a draw's UAV word when a lane of a stage other than vertex or pixel wrote it
//! (issue 34): mesh, amplification, geometry, hull and domain lanes report their stores
//! to the draw's write sink with their lane, so `compare` names the lane (its stage in
//! the JSON, its `dxlane debug` command) and `dxlane debug JOB --element` opens it — on
//! a draw job and on a command list's event; and on a draw of several views every link
//! carries the `--view N` of the pass that wrote it.
//!
//! "Last" is the order the pipeline runs the lanes in with a write sink (one worker
//! thread): per view (view 0 first, D3D12 View Instancing, "Implementation
//! Flexibility": dxlane loops the whole draw per view), the amplification groups in grid
//! order, then the mesh groups launch by launch (mesh shader spec, "Amplification
//! shader": the groups an amplification group launches); the hull program's
//! control-point phase, then its patch-constant phase (D3D11.3 §11.7), then each
//! patch's domain points in the tessellator's order (§10.10); within a wave, lane
//! order. The programs are the IR programs of `tests/all/mesh.rs` and
//! `tests/all/view_stages.rs`, and the example tessellation draw's programs lowered to
//! the IR, each given a store to a raw UAV; the expected writers follow from those
//! orders by hand.

use std::path::{Path, PathBuf};
use std::process::Command;

use dxlane::debug::provenance::{self, OutputSelect};
use dxlane::debug::{DebugOptions, LaneSelect};
use dxlane::job::{Job, Prepared, RunOptions};
use dxlane::pipeline::Work;
use serde_json::Value;

use crate::common;
use crate::mesh::{Ms, PLAIN, PS, amplification_text, mesh_text};

/// A fresh folder for test `name`.
fn workdir(name: &str) -> PathBuf {
    let dir = common::scratch().join("stage_writes").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn dxlane(args: &[&str], dir: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args(args)
        .current_dir(dir)
        .output()
        .expect("run dxlane")
}

/// `dxlane run JOB --threads 1 --record cap` (and `extra`), which must succeed.
fn record(dir: &Path, job: &str, extra: &[&str]) {
    let mut args = vec!["run", job, "--threads", "1", "-q", "--record", "cap"];
    args.extend_from_slice(extra);
    let o = dxlane(&args, dir);
    assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
}

/// `dxlane compare JOB cap --json --no-explain --no-images`: the report (the run must
/// find a difference).
fn compare_json(dir: &Path, job: &str) -> Value {
    let o = dxlane(
        &[
            "compare",
            job,
            "cap",
            "--json",
            "--no-explain",
            "--no-images",
        ],
        dir,
    );
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    serde_json::from_slice(&o.stdout).expect("the report is JSON")
}

/// Adds 1 to words `at` of the captured file `file`.
fn bump(dir: &Path, file: &str, at: &[usize]) {
    let p = dir.join("cap").join(file);
    let mut b = std::fs::read(&p).unwrap_or_else(|e| panic!("{}: {e}", p.display()));
    for &i in at {
        b[i * 4] = b[i * 4].wrapping_add(1);
    }
    std::fs::write(&p, b).unwrap();
}

/// The writer of the mismatch at `at` of the report's resource `target`.
fn writer<'a>(v: &'a Value, target: &str, at: &str) -> &'a Value {
    let r = v["resources"]
        .as_array()
        .unwrap()
        .iter()
        .find(|r| r["target"] == target)
        .unwrap_or_else(|| panic!("no {target}: {v}"));
    let m = r["mismatches"]
        .as_array()
        .unwrap()
        .iter()
        .find(|m| m["at"] == at)
        .unwrap_or_else(|| panic!("no {at} in {r}"));
    &m["writer"]
}

/// Runs `cmd` (a `dxlane debug …` line of a report) in `dir` with `-c continue` and
/// returns its output; it must open its lane.
fn opens(cmd: &str, dir: &Path) -> String {
    let mut args: Vec<&str> = cmd.split(' ').skip(1).collect();
    args.extend(["-c", "continue"]);
    let o = dxlane(&args, dir);
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(o.status.success(), "{cmd}: {text}");
    text
}

fn prepared(path: &Path) -> Prepared {
    let job = Job::load(path).unwrap();
    dxlane::job::prepare(
        job,
        &RunOptions {
            threads: Some(2),
            ..common::run_options()
        },
    )
    .unwrap_or_else(|e| panic!("{}: {e}", path.display()))
}

/// Register `rN` of `line` renamed `r(N + by)` (a whole word only: not `range0`).
fn shift_regs(line: &str, by: u32) -> String {
    let b = line.as_bytes();
    let mut out = String::new();
    let mut i = 0;
    while i < b.len() {
        let word_start = i == 0 || !(b[i - 1].is_ascii_alphanumeric() || b[i - 1] == b'_');
        if word_start && b[i] == b'r' {
            let mut j = i + 1;
            while j < b.len() && b[j].is_ascii_digit() {
                j += 1;
            }
            let word_end = j == b.len() || !(b[j].is_ascii_alphanumeric() || b[j] == b'_');
            if j > i + 1 && word_end {
                let n: u32 = line[i + 1..j].parse().unwrap();
                out.push_str(&format!("r{}", n + by));
                i = j;
                continue;
            }
        }
        out.push(b[i] as char);
        i += 1;
    }
    out
}

/// Program `text` (the IR's text form) with a raw UAV range declared and `store`
/// inserted after the line starting `after` (`block0:` for the program's start). The
/// program's registers move up by `consts.len()` to make room for the constants
/// `consts`, which `c0`, `c1`, … name in `store`; `%N` names the program's own
/// register N, `t0` … `t7` free registers, `RANGE` the new range.
pub(crate) fn with_store(text: &str, consts: &[u32], after: &str, store: &str) -> String {
    let k = consts.len() as u32;
    let n: u32 = text
        .lines()
        .find_map(|l| l.strip_prefix("regs "))
        .and_then(|n| n.trim().parse().ok())
        .expect("regs N");
    let range = format!(
        "range{}",
        text.lines().filter(|l| l.starts_with("resource ")).count()
    );
    let mut store = store.replace("RANGE", &range);
    for i in (0..8).rev() {
        store = store.replace(&format!("t{i}"), &format!("r{}", n + k + i));
    }
    for i in (0..n).rev() {
        store = store.replace(&format!("%{i}"), &format!("r{}", i + k));
    }
    for i in (0..k).rev() {
        store = store.replace(&format!("c{i}"), &format!("r{i}"));
    }
    let mut out = String::new();
    for line in text.lines() {
        if line.starts_with("regs ") {
            out.push_str(&format!("regs {}\n", n + k + 8));
            for (i, c) in consts.iter().enumerate() {
                out.push_str(&format!("const r{i} = {c:#x}\n"));
            }
            continue;
        }
        if line.starts_with("block0:") {
            out.push_str(&format!(
                "resource {range} = uav space 0 lower 0 count 1 raw_buffer uint \"u\"\n"
            ));
        }
        out.push_str(&shift_regs(line, k));
        out.push('\n');
        if line.starts_with(after) {
            out.push_str(&store);
        }
    }
    out
}

pub(crate) const UAV: &str =
    "\n[[resource]]\nreg = \"u0\"\nkind = \"raw_buffer\"\nsize = 128\ndata = { fill_u32 = 0 }\n";

/// The mesh job: two amplification groups of two threads, each launching three mesh
/// groups of four threads (`tests/all/mesh.rs`'s programs). Amplification thread t of
/// group g stores 16 + 2g + t to word 2g + t; mesh thread t of mesh group g stores
/// 64 + 4g + t to word 8 + 4g + t — each mesh word twice, once per launch, the second
/// launch's (amplification group 1's) coming last.
fn mesh_job(d: &Path) {
    let amp = with_store(
        &amplification_text([3, 1, 1], 1.0, true, false),
        &[0, 4, 16],
        "    group_index",
        "    sysval group_id, 0, t0
    iadd t1, t0, t0
    iadd t1, t1, %6
    iadd t2, t1, c2
    imul t3, t1, c1
    handle t4, RANGE, c0
    raw_store b32, 1, t4, t3, [t2 _ _ _]
",
    );
    let ms = with_store(
        &mesh_text(Ms {
            payload: true,
            ..PLAIN
        }),
        &[0, 4, 64, 8],
        "    group_index",
        "    sysval group_id, 0, t0
    imul t1, t0, c1
    iadd t1, t1, %12
    iadd t2, t1, c2
    iadd t3, t1, c3
    imul t3, t3, c1
    handle t4, RANGE, c0
    raw_store b32, 1, t4, t3, [t2 _ _ _]
",
    );
    std::fs::write(d.join("amp.as.ir"), amp).unwrap();
    std::fs::write(d.join("uav.ms.ir"), ms).unwrap();
    std::fs::write(d.join("prim.ps.ir"), PS).unwrap();
    std::fs::write(
        d.join("mesh.toml"),
        format!(
            "[program]\nas = \"amp.as.ir\"\nms = \"uav.ms.ir\"\nps = \"prim.ps.ir\"\n[draw]\ndispatch_mesh = [2, 1, 1]\n\n\
             [draw.rasterizer]\ncull = \"NONE\"\n\n[[draw.render_target]]\nformat = \"R8G8B8A8_UNORM\"\nwidth = 4\nheight = 4\n{UAV}"
        ),
    )
    .unwrap();
}

/// `compare` names the amplification lane behind word 1 and the mesh lane of the later
/// launch behind word 19 (written by both launches: contested, two writes), each with
/// its stage and the `dxlane debug` command that opens it.
#[test]
fn compare_names_the_mesh_and_amplification_lanes_behind_uav_words() {
    let d = workdir("mesh-compare");
    mesh_job(&d);
    record(&d, "mesh.toml", &[]);
    bump(&d, "u0.bin", &[1, 19]);
    let v = compare_json(&d, "mesh.toml");
    let w = writer(&v, "u0", "+0x4");
    assert_eq!(w["stage"], "amplification", "{w}");
    assert_eq!(w["lane"], "amplification group (0, 0, 0), thread (1, 0, 0)");
    assert_eq!(
        w["debug"],
        "dxlane debug mesh.toml --as-group 0,0,0 --as-thread 1,0,0"
    );
    assert_eq!(
        (w["writes"].as_u64(), w["contested"].as_bool()),
        (Some(1), Some(false))
    );
    let w = writer(&v, "u0", "+0x4c");
    assert_eq!(w["stage"], "mesh", "{w}");
    assert_eq!(
        w["lane"],
        "mesh group (2, 0, 0), thread (3, 0, 0), launched by amplification group (1, 0, 0)"
    );
    assert_eq!(
        w["debug"],
        "dxlane debug mesh.toml --as-group 1,0,0 --ms-group 2,0,0 --ms-thread 3,0,0"
    );
    assert_eq!(
        (w["writes"].as_u64(), w["contested"].as_bool()),
        (Some(2), Some(true))
    );
    for at in ["+0x4", "+0x4c"] {
        opens(writer(&v, "u0", at)["debug"].as_str().unwrap(), &d);
    }
}

/// `dxlane debug JOB --element u0[i]` opens the same lanes: the session's lane is the
/// writer and the value it found is what the lane stored.
#[test]
fn debug_element_opens_mesh_and_amplification_lanes() {
    let d = workdir("mesh-element");
    mesh_job(&d);
    let job = d.join("mesh.toml");
    for (el, lane, value) in [
        (
            "u0[2]",
            LaneSelect::Amplification {
                group: [1, 0, 0],
                thread: [0, 0, 0],
            },
            18u32,
        ),
        (
            "u0[19]",
            LaneSelect::Mesh {
                launch: Some([1, 0, 0]),
                group: [2, 0, 0],
                thread: [3, 0, 0],
            },
            75,
        ),
        (
            "u0[8]",
            LaneSelect::Mesh {
                launch: Some([1, 0, 0]),
                group: [0, 0, 0],
                thread: [0, 0, 0],
            },
            64,
        ),
    ] {
        let p = prepared(&job);
        let (_, found) = provenance::open(
            &p,
            None,
            &OutputSelect::element(el).unwrap(),
            DebugOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{el}: {e}"));
        assert_eq!(found.lane, lane, "{el}");
        assert_eq!(found.value, value.to_le_bytes(), "{el}");
    }
    let job = job.to_string_lossy();
    let text = opens(&format!("dxlane debug {job} --element u0[19]"), &d);
    assert!(text.contains("mesh group (2, 0, 0)"), "{text}");
}

/// On a command list: the draw event's UAV words name the event and the lane, and the
/// `--event N` command opens it; `dxlane debug LIST --event N --element` finds it too.
#[test]
fn a_list_event_names_the_mesh_lane_behind_a_uav_word() {
    let d = workdir("mesh-list");
    mesh_job(&d);
    std::fs::write(
        d.join("list.toml"),
        "[[resource]]\nname = \"rt\"\nkind = \"texture2d\"\nformat = \"R8G8B8A8_UNORM\"\nwidth = 4\nheight = 4\n\n\
         [[resource]]\nname = \"buf\"\nkind = \"raw_buffer\"\nsize = 128\ndata = { fill_u32 = 0 }\n\n\
         [[command]]\ntype = \"dispatch_mesh\"\nas = \"amp.as.ir\"\nms = \"uav.ms.ir\"\nps = \"prim.ps.ir\"\n\
         groups = [2, 1, 1]\nbind = [{ reg = \"u0\", resource = \"buf\" }]\n\
         rasterizer = { cull = \"NONE\" }\nrender_targets = [{ resource = \"rt\" }]\n",
    )
    .unwrap();
    record(&d, "list.toml", &[]);
    bump(&d, "resource2.bin", &[3, 17]);
    let v = compare_json(&d, "list.toml");
    let w = writer(&v, "buf", "+0xc");
    assert_eq!(w["event"], 1, "{w}");
    assert_eq!(w["stage"], "amplification", "{w}");
    assert_eq!(
        w["lane"],
        "event 1 (dispatch_mesh): amplification group (1, 0, 0), thread (1, 0, 0)"
    );
    assert_eq!(
        w["debug"],
        "dxlane debug list.toml --event 1 --as-group 1,0,0 --as-thread 1,0,0"
    );
    let w = writer(&v, "buf", "+0x44");
    assert_eq!(w["stage"], "mesh", "{w}");
    assert_eq!(
        w["debug"],
        "dxlane debug list.toml --event 1 --as-group 1,0,0 --ms-group 2,0,0 --ms-thread 1,0,0"
    );
    for at in ["+0xc", "+0x44"] {
        opens(writer(&v, "buf", at)["debug"].as_str().unwrap(), &d);
    }
    // The debugger's own lookup on the event opens the same mesh lane.
    let text = opens("dxlane debug list.toml --event 1 --element buf[17]", &d);
    assert!(
        text.contains("mesh group (2, 0, 0), thread (1, 0, 0)"),
        "{text}"
    );
}

/// The two-view geometry draw of `tests/all/view_stages.rs` (view 0 in columns 0 to 3,
/// view 1 in columns 4 to 7 of an 8 × 4 target), its geometry program also storing its
/// `SV_ViewID` v to word 0 and 10 + v to word 1 + v: word 0 is written by both views'
/// passes, view 1's last; word 1 by view 0's alone.
fn views_job(d: &Path) {
    use crate::view_stages::{PS as VPS, TWO, VS, gs};
    let g = with_store(
        &gs(),
        &[0, 1, 4, 10],
        "    utof",
        "    handle t0, RANGE, c0
    raw_store b32, 1, t0, c0, [%2 _ _ _]
    iadd t1, %2, c1
    imul t2, t1, c2
    iadd t3, %2, c3
    raw_store b32, 1, t0, t2, [t3 _ _ _]
",
    );
    std::fs::write(d.join("tri.vs.ir"), VS).unwrap();
    std::fs::write(d.join("view.gs.ir"), g).unwrap();
    std::fs::write(d.join("color.ps.ir"), VPS).unwrap();
    std::fs::write(
        d.join("views.toml"),
        format!(
            "[program]\nvs = \"tri.vs.ir\"\ngs = \"view.gs.ir\"\nps = \"color.ps.ir\"\n\
             [draw]\nvertex_count = 3\n\
             viewports = [[0, 0, 4, 4, 0, 1], [4, 0, 4, 4, 0, 1]]\nscissors = [[0, 0, 4, 4], [4, 0, 8, 4]]\n{TWO}\n\
             [draw.rasterizer]\ncull = \"NONE\"\n\n\
             [[draw.render_target]]\nformat = \"R8G8B8A8_UNORM\"\nwidth = 8\nheight = 4\n{UAV}"
        ),
    )
    .unwrap();
}

/// D3D12 View Instancing: the passes run view 0 first, so a word both views' geometry
/// lanes wrote was last written by view 1's. Every link of a texel or word names its
/// view and carries `--view N`, so the debugger (which asks for the view of a draw of
/// several) opens the lane: texel (1, 1) is view 0's pixel, (5, 1) view 1's; their
/// geometry links too.
#[test]
fn links_of_a_draw_of_several_views_carry_the_view() {
    let d = workdir("views");
    views_job(&d);
    record(&d, "views.toml", &[]);
    bump(&d, "u0.bin", &[0, 1]);
    bump(&d, "rt0.bin", &[8 + 1, 8 + 5]);
    let v = compare_json(&d, "views.toml");
    let w = writer(&v, "u0", "+0x0");
    assert_eq!(w["stage"], "geometry", "{w}");
    assert_eq!(w["view"], 1, "{w}");
    assert_eq!(
        w["lane"],
        "geometry input primitive 0, SV_GSInstanceID 0, draw instance 0, view 1"
    );
    assert_eq!(
        w["debug"],
        "dxlane debug views.toml --gs-primitive 0 --gs-instance 0 --instance 0 --view 1"
    );
    assert_eq!(
        (w["writes"].as_u64(), w["contested"].as_bool()),
        (Some(2), Some(true))
    );
    let w = writer(&v, "u0", "+0x4");
    assert_eq!(w["view"], 0, "{w}");
    assert!(w["debug"].as_str().unwrap().ends_with(" --view 0"), "{w}");
    for (at, view) in [("(1, 1) r", 0), ("(5, 1) r", 1)] {
        let w = writer(&v, "rt0", at);
        assert_eq!(w["view"], view, "{w}");
        let (x, _) = at[1..].split_once(',').unwrap();
        assert_eq!(
            w["debug"],
            format!("dxlane debug views.toml --pixel {x},1 --view {view}"),
            "{w}"
        );
        let links = w["origin"].as_array().unwrap_or_else(|| panic!("{w}"));
        assert_eq!(links.len(), 1, "{w}");
        assert!(
            links[0]["debug"]
                .as_str()
                .unwrap()
                .ends_with(&format!(" --view {view}")),
            "{w}"
        );
        let text = opens(w["debug"].as_str().unwrap(), &d);
        assert!(text.contains(&format!("view {view}")), "{text}");
        opens(links[0]["debug"].as_str().unwrap(), &d);
    }
    for at in ["+0x0", "+0x4"] {
        let text = opens(writer(&v, "u0", at)["debug"].as_str().unwrap(), &d);
        assert!(text.contains("view"), "{text}");
    }
}

/// The example tessellation draw (`examples/tessellation.toml`, one patch of four
/// control points) with its hull and domain programs lowered to the IR, each storing to
/// a raw UAV at its start: hull lanes to word 2 + phase (the control-point phase, 0,
/// then the fork phase, 1: D3D11.3 §11.7), domain lanes to word 1. Returns the number
/// of output control points and of domain points.
fn tess_job(d: &Path) -> (u32, u64) {
    let (hs, ds, text) = tess_example();
    let hull = hs
        .lines()
        .find(|l| l.starts_with("hull "))
        .expect("the hull state");
    let field = |name: &str| -> u32 {
        let mut it = hull.split_whitespace();
        while let Some(t) = it.next() {
            if t == name {
                return it.next().unwrap().parse().unwrap();
            }
        }
        panic!("{name} in {hull}")
    };
    assert_eq!(
        hull.split_whitespace()
            .skip_while(|t| *t != "pass_through")
            .nth(1),
        Some("0"),
        "{hull}"
    );
    let phase = field("phase_word");
    let points = field("output_points");
    // Value and address: the phase p read from the phase word, stored as 2 + p at word
    // 2 + p.
    let hs = with_store(
        &hs,
        &[0, 4, 2],
        "block0:",
        &format!(
            "    input t0, {phase}
    iadd t1, t0, c2
    imul t2, t1, c1
    handle t3, RANGE, c0
    raw_store b32, 1, t3, t2, [t1 _ _ _]
"
        ),
    );
    // Domain lanes: 7 at word 1.
    let ds = with_store(
        &ds,
        &[0, 4, 7],
        "block0:",
        "    handle t3, RANGE, c0
    raw_store b32, 1, t3, c1, [c2 _ _ _]
",
    );
    std::fs::write(d.join("patch.hs.ir"), hs).unwrap();
    std::fs::write(d.join("patch.ds.ir"), ds).unwrap();
    std::fs::write(d.join("tess.toml"), format!("{text}\n{UAV}")).unwrap();
    let r = dxlane::job::run_draw_job(
        Job::load(&d.join("tess.toml")).unwrap(),
        &common::run_options(),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    (points, r.summary.draw.domain_points)
}

/// The example tessellation draw (`examples/tessellation.toml`): its hull and domain
/// programs lowered to the IR, in the IR's text form, and its job text with `hs` and
/// `ds` naming `patch.hs.ir` and `patch.ds.ir` beside it (the other programs by path).
pub(crate) fn tess_example() -> (String, String, String) {
    let root = common::root();
    let example = root.join("examples/tessellation.toml");
    let p = prepared(&example);
    let Work::Draw(w) = &p.work else {
        panic!("a draw")
    };
    let hs = w.hs.as_ref().unwrap().0.to_string();
    let ds = w.ds.as_ref().unwrap().0.to_string();
    let text = std::fs::read_to_string(&example)
        .unwrap()
        .replace("../shaders", &root.join("shaders").display().to_string())
        .replace(
            &format!(
                "hs = \"{}\"",
                root.join("shaders/tessellation_patch.hs_5_0.dxbc")
                    .display()
            ),
            "hs = \"patch.hs.ir\"",
        )
        .replace(
            &format!(
                "ds = \"{}\"",
                root.join("shaders/tessellation_patch.ds_5_0.dxbc")
                    .display()
            ),
            "ds = \"patch.ds.ir\"",
        );
    assert!(
        text.contains("patch.hs.ir") && text.contains("patch.ds.ir"),
        "{text}"
    );
    (hs, ds, text)
}

/// The hull program's control-point phase runs before its patch-constant phase (D3D11.3
/// §11.7), one lane per output control point in order; the domain points run in the
/// tessellator's order (§10.10), after the hull stage. So word 2 (the control-point
/// phase's) was last written by the last control point, word 3 by the patch-constant
/// phase, word 1 by the last domain point: `compare` names each with its stage and
/// command, and `dxlane debug --element` opens the same lanes.
#[test]
fn hull_and_domain_lanes_behind_uav_words_are_named_and_opened() {
    let d = workdir("tess");
    let (points, domain_points) = tess_job(&d);
    assert!(points > 1 && domain_points > 1, "{points} {domain_points}");
    record(&d, "tess.toml", &[]);
    bump(&d, "u0.bin", &[1, 2, 3]);
    let v = compare_json(&d, "tess.toml");
    let last_cp = points - 1;
    let last_point = domain_points - 1;
    let want = [
        (
            2,
            "hull",
            format!("hull patch 0, control point {last_cp}, draw instance 0"),
            format!("--hs-patch 0 --control-point {last_cp} --instance 0"),
            LaneSelect::Hull {
                patch: 0,
                control_point: Some(last_cp),
                instance: 0,
                join: false,
            },
            2u32,
        ),
        (
            3,
            "hull",
            "hull patch 0, patch constants, draw instance 0".to_string(),
            "--hs-patch 0 --patch-constant --instance 0".to_string(),
            LaneSelect::Hull {
                patch: 0,
                control_point: None,
                instance: 0,
                join: false,
            },
            3,
        ),
        (
            1,
            "domain",
            format!("domain patch 0, domain point {last_point}, draw instance 0"),
            format!("--ds-patch 0 --ds-point {last_point} --instance 0"),
            LaneSelect::Domain {
                patch: 0,
                point: last_point as u32,
                instance: 0,
            },
            7,
        ),
    ];
    for (word, stage, lane, flags, sel, value) in want {
        let w = writer(&v, "u0", &format!("+0x{:x}", word * 4));
        assert_eq!(w["stage"], stage, "{w}");
        assert_eq!(w["lane"], lane, "{w}");
        assert_eq!(w["debug"], format!("dxlane debug tess.toml {flags}"), "{w}");
        opens(w["debug"].as_str().unwrap(), &d);
        let p = prepared(&d.join("tess.toml"));
        let el = format!("u0[{word}]");
        let (_, found) = provenance::open(
            &p,
            None,
            &OutputSelect::element(&el).unwrap(),
            DebugOptions::default(),
        )
        .unwrap_or_else(|e| panic!("{el}: {e}"));
        assert_eq!(found.lane, sel, "{el}");
        assert_eq!(found.value, value.to_le_bytes(), "{el}");
    }
}
