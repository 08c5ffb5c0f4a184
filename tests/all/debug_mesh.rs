//! The lane debugger on mesh draws: mesh and amplification lanes opened by group and
//! thread (`--ms-group`/`--ms-thread`, `--as-group`/`--as-thread`), through the command
//! line as the geometry, hull and domain lanes are, and through the library. The jobs
//! are the corpus mesh job (`tests/jobs/corpus/mesh_dxil.toml`) and the IR programs of
//! `tests/all/mesh.rs` (an amplification program of two threads storing 1.0 as the
//! payload and launching three mesh groups; a mesh program of four threads reading the
//! payload into its primitives' blue channel), written beside a job of their own.

use std::path::PathBuf;
use std::process::Command;

use dxlane::debug::{self, DebugOptions, Debugger, LaneSelect};
use dxlane::job::{Job, RunOptions};

use crate::common;
use crate::mesh::{Ms, PLAIN, PS, amplification_text, mesh_text};

fn dxlane(args: &[&str]) -> (String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args(args)
        .current_dir(common::root())
        .output()
        .expect("run dxlane");
    let mut s = String::from_utf8_lossy(&out.stdout).into_owned();
    s.push_str(&String::from_utf8_lossy(&out.stderr));
    (s, out.status.code().unwrap_or(-1))
}

/// A mesh draw job of the IR programs: `DispatchMesh(2, 1, 1)` of the amplification
/// program (each group launching 3 × 1 × 1 mesh groups) when `amplification`, else
/// `DispatchMesh(2, 1, 1)` of the plain mesh program.
fn ir_job(name: &str, amplification: bool) -> PathBuf {
    let dir = common::scratch().join("debug_mesh").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let files = [
        ("quad.ms.ir", mesh_text(PLAIN)),
        (
            "payload.ms.ir",
            mesh_text(Ms {
                payload: true,
                ..PLAIN
            }),
        ),
        ("amp.as.ir", amplification_text([3, 1, 1], 1.0, true, false)),
        ("prim.ps.ir", PS.to_string()),
    ];
    for (file, body) in files {
        std::fs::write(dir.join(file), body).unwrap();
    }
    let programs = if amplification {
        "as = \"amp.as.ir\"\nms = \"payload.ms.ir\"\nps = \"prim.ps.ir\""
    } else {
        "ms = \"quad.ms.ir\"\nps = \"prim.ps.ir\""
    };
    let text = format!(
        "[program]\n{programs}\n[draw]\ndispatch_mesh = [2, 1, 1]\n\n[draw.rasterizer]\ncull = \"NONE\"\n\n\
         [[draw.render_target]]\nformat = \"R8G8B8A8_UNORM\"\nwidth = 4\nheight = 4\n"
    );
    let path = dir.join("job.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn path_text(p: &std::path::Path) -> String {
    p.to_string_lossy().into_owned()
}

/// The corpus mesh job, or `None` under `DXLANE_NO_CORPORA` (said on stderr).
fn corpus_mesh_job() -> Option<&'static str> {
    if common::corpora().is_empty() {
        eprintln!("SKIPPED debug_mesh: no corpora");
        return None;
    }
    let job = "tests/jobs/corpus/mesh_dxil.toml";
    assert!(
        common::root()
            .join("target/corpora/dxil-reader/mesh.dxil")
            .exists()
            || common::corpora()
                .iter()
                .any(|d| d.join("mesh.dxil").exists()),
        "the corpora are fetched but mesh.dxil is missing"
    );
    Some(job)
}

/// A mesh lane of dxc's mesh program (`mesh.hlsl`, DXIL): the session names the lane by
/// its mesh group and thread (mesh shader spec: the mesh program runs as thread groups,
/// "Mesh Shader" > "Thread groups"), steps through `SetMeshOutputCounts` and its vertex
/// and index writes, and steps back.
#[test]
fn a_mesh_lane_steps_through_its_output_writes_and_back() {
    let Some(job) = corpus_mesh_job() else {
        return;
    };
    let (out, code) = dxlane(&[
        "debug",
        job,
        "--ms-group",
        "0,0,0",
        "--ms-thread",
        "1,0,0",
        "-c",
        "next; next; next; back; continue",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("lane 1 of mesh wave 0 (mesh group (0, 0, 0), thread (1, 0, 0)), step 0 of"),
        "{out}"
    );
    assert!(
        out.contains("@dx.op.setMeshOutputCounts(i32 168, i32 4, i32 2)"),
        "{out}"
    );
    // After three steps and one back the session stands at step 2.
    let wheres: Vec<&str> = out.lines().filter(|l| l.starts_with("lane 1 of")).collect();
    assert!(wheres.len() >= 6, "{out}");
    assert!(wheres[4].contains("step 2 of"), "{out}");
    // Thread 1 writes its vertex (index < 4) and triangle 1: the listing's output
    // writes are among its steps, and it finishes.
    assert!(wheres[5].contains("the lane has finished"), "{out}");
}

/// An amplification lane: the group's two threads store 1.0 into the payload and call
/// `DispatchMesh(3, 1, 1)` (mesh shader spec, "DispatchMesh intrinsic"); the lane steps
/// to its end and reads the payload it wrote from group shared memory.
#[test]
fn an_amplification_lane_writes_the_payload() {
    let job = path_text(&ir_job("amplification_lane", true));
    let (out, code) = dxlane(&[
        "debug",
        &job,
        "--as-group",
        "1,0,0",
        "--as-thread",
        "1,0,0",
        "-c",
        "next; next; continue; print gs[0]; why gs[0]",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(
            "lane 1 of amplification wave 0 (amplification group (1, 0, 0), thread (1, 0, 0))"
        ),
        "{out}"
    );
    assert!(
        out.contains("step 2 of 4: next line 5: dispatch_mesh"),
        "{out}"
    );
    assert!(out.contains("the lane has finished"), "{out}");
    assert!(out.contains("gs[0] = 1.0 (0x3f800000)"), "{out}");
    assert!(out.contains("stored by this lane at line 4"), "{out}");
}

/// A mesh lane launched by an amplification group reads the payload that group passed
/// (mesh shader spec, "Mesh Payload"): group shared word 0 holds 1.0 before the lane's
/// first step, `why` says where it came from, and the lane names its launching group.
#[test]
fn a_mesh_lane_reads_its_payload() {
    let job = path_text(&ir_job("mesh_lane_payload", true));
    let (out, code) = dxlane(&[
        "debug",
        &job,
        "--as-group",
        "1,0,0",
        "--ms-group",
        "2,0,0",
        "--ms-thread",
        "1,0,0",
        "-c",
        "print gs[0]; why gs[0]; continue; print r23; why r23",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(
            "lane 1 of mesh wave 0 (mesh group (2, 0, 0), thread (1, 0, 0), launched by amplification group (1, 0, 0))"
        ),
        "{out}"
    );
    assert!(out.contains("gs[0] = 1.0 (0x3f800000)"), "{out}");
    assert!(
        out.contains("not written by the group before this point: the payload its amplification group passed to DispatchMesh"),
        "{out}"
    );
    assert!(
        out.contains("r23 = 1.0 (0x3f800000) ← line 22: shared_load"),
        "{out}"
    );
    assert!(
        out.contains("loaded from gs[0] (group shared byte 0):"),
        "{out}"
    );
}

/// Selections outside the draw are refused with exit status 2, naming the flag and its
/// value and the extent there is: a group outside the `DispatchMesh` grid, a thread
/// outside `[numthreads]`, a mesh group its amplification group did not launch, a mesh
/// group without the launching group when there are several, a mesh or amplification
/// lane of a draw without that program, and a vertex of a mesh draw.
#[test]
fn mesh_and_amplification_selections_are_refused_by_name() {
    let amp = path_text(&ir_job("refusals_amp", true));
    let plain = path_text(&ir_job("refusals_plain", false));
    let cases: &[(&str, &[&str], &str)] = &[
        (
            "as group outside",
            &["--as-group", "2,0,0", "--as-thread", "0,0,0"],
            "--as-group 2,0,0: outside the draw's DispatchMesh grid of 2 × 1 × 1 groups: (0, 0, 0) to (1, 0, 0)",
        ),
        (
            "as thread outside",
            &["--as-group", "0,0,0", "--as-thread", "2,0,0"],
            "--as-thread 2,0,0: outside the amplification program's [numthreads(2, 1, 1)]",
        ),
        (
            "ms group not launched",
            &[
                "--as-group",
                "0,0,0",
                "--ms-group",
                "3,0,0",
                "--ms-thread",
                "0,0,0",
            ],
            "--ms-group 3,0,0: amplification group (0, 0, 0) did not launch it: it launched 3 × 1 × 1 groups: (0, 0, 0) to (2, 0, 0)",
        ),
        (
            "ms group without its launch",
            &["--ms-group", "0,0,0", "--ms-thread", "0,0,0"],
            "name the one that launched the mesh group with --as-group x,y,z",
        ),
        (
            "ms thread outside",
            &[
                "--as-group",
                "0,0,0",
                "--ms-group",
                "0,0,0",
                "--ms-thread",
                "4,0,0",
            ],
            "--ms-thread 4,0,0: outside the mesh program's [numthreads(4, 1, 1)]",
        ),
        (
            "ms thread alone",
            &[
                "--as-group",
                "0,0,0",
                "--as-thread",
                "0,0,0",
                "--vertex",
                "0",
            ],
            "cannot be used with",
        ),
    ];
    let plain_cases: &[(&str, &[&str], &str)] = &[
        (
            "ms group outside",
            &["--ms-group", "0,1,0", "--ms-thread", "0,0,0"],
            "--ms-group 0,1,0: outside the draw's DispatchMesh grid of 2 × 1 × 1 groups",
        ),
        (
            "no amplification program",
            &["--as-group", "0,0,0", "--as-thread", "0,0,0"],
            "--as-group: the draw has no amplification program",
        ),
        (
            "launch without amplification",
            &[
                "--as-group",
                "0,0,0",
                "--ms-group",
                "0,0,0",
                "--ms-thread",
                "0,0,0",
            ],
            "--as-group 0,0,0: the draw has no amplification program",
        ),
        (
            "vertex of a mesh draw",
            &["--vertex", "0"],
            "--vertex: a mesh draw has no vertex stage",
        ),
    ];
    let triangle: &[(&str, &[&str], &str)] = &[(
        "no mesh program",
        &["--ms-group", "0,0,0", "--ms-thread", "0,0,0"],
        "--ms-group: the draw has no mesh program",
    )];
    let mut checked = 0;
    for (job, list) in [
        (amp.as_str(), cases),
        (plain.as_str(), plain_cases),
        ("examples/triangle.toml", triangle),
    ] {
        for (name, flags, want) in list {
            let mut args = vec!["debug", job];
            args.extend_from_slice(flags);
            let (out, code) = dxlane(&args);
            assert_eq!(code, 2, "{name}: {out}");
            assert!(out.contains(want), "{name}: want `{want}` in\n{out}");
            checked += 1;
        }
    }
    assert_eq!(checked, 11);
}

/// A debugged mesh draw — one mesh or amplification group running the unoptimised
/// lowering with one wave traced — leaves the render target byte for byte as the normal
/// draw does (DESIGN "The debugger observes one lane of a normal run"), for lanes of
/// each stage.
#[test]
fn debugged_mesh_draws_equal_normal_draws() {
    let path = ir_job("equal", true);
    let job = Job::load(&path).unwrap();
    let opts = RunOptions {
        threads: Some(1),
        ..common::run_options()
    };
    let p = dxlane::job::prepare(job, &opts).unwrap();
    let target = debug::from_job(&p).unwrap();
    let normal = target.run_normal().unwrap();
    let lanes = [
        LaneSelect::Amplification {
            group: [0, 0, 0],
            thread: [0, 0, 0],
        },
        LaneSelect::Amplification {
            group: [1, 0, 0],
            thread: [1, 0, 0],
        },
        LaneSelect::Mesh {
            launch: Some([0, 0, 0]),
            group: [0, 0, 0],
            thread: [0, 0, 0],
        },
        LaneSelect::Mesh {
            launch: Some([1, 0, 0]),
            group: [2, 0, 0],
            thread: [3, 0, 0],
        },
    ];
    for sel in lanes {
        let d = Debugger::open(target.clone(), sel, DebugOptions::default())
            .unwrap_or_else(|e| panic!("{sel:?}: {e}"));
        assert!(d.fault().is_none(), "{sel:?}");
        assert!(!d.is_empty(), "{sel:?}: no steps");
        assert_eq!(d.outputs(), &normal[..], "{sel:?}: the targets differ");
    }
}

/// The DAP `launch` request takes the same selectors (`msGroup`, `msThread`, `asGroup`,
/// `asThread`): the session stops at the lane's entry, names it in `threads`, and steps.
#[test]
fn dap_launch_opens_a_mesh_lane() {
    use crate::dap::Client;
    use serde_json::json;
    let job = path_text(&ir_job("dap", true));
    let mut c = Client::start();
    c.open(json!({
        "type": "dxlane",
        "request": "launch",
        "job": job,
        "asGroup": "1,0,0",
        "msGroup": "2,0,0",
        "msThread": "1,0,0",
    }));
    let entry = c.configured();
    assert_eq!(entry["reason"], "entry", "{entry}");
    let thread = entry["threadId"].as_i64().expect("a thread");
    let threads = c.ok("threads", serde_json::Value::Null);
    let text = threads.to_string();
    assert!(
        text.contains("mesh group (2, 0, 0), thread (1, 0, 0)"),
        "{text}"
    );
    c.step("next", thread);
    let back = c.step("stepBack", thread);
    assert_eq!(back["reason"], "step", "{back}");
    c.ok("disconnect", serde_json::Value::Null);
    assert_eq!(c.finish(), 0);
}

/// A pixel of a mesh-drawn primitive leads back to the mesh lanes behind it (mesh
/// shader spec, "Rendering of the mesh": each primitive's vertices are the vertex
/// outputs its indices name, its per-primitive attributes constant over it): `why` at
/// an input names the primitive's mesh group and the amplification group that launched
/// it, and the threads that wrote its indices and attributes and each of its vertices,
/// each with the flags that open it. The IR mesh program's thread t writes vertex t, and
/// threads 0 and 1 primitive t; pixel (1, 1) lies in primitive 1 (2, 1, 3) of each of
/// the six mesh groups, the sixth (`--prim 5`) being group (2, 0, 0) of amplification
/// group (1, 0, 0).
#[test]
fn a_mesh_drawn_pixel_names_the_mesh_lanes_behind_it() {
    let job = path_text(&ir_job("pixel_origin", true));
    let (out, code) = dxlane(&[
        "debug",
        &job,
        "--pixel",
        "1,1",
        "--prim",
        "5",
        "-c",
        "next; why r0; inputs",
    ]);
    assert_eq!(code, 0, "{out}");
    let want = "the primitive is primitive 1 of mesh group (2, 0, 0), launched by amplification group (1, 0, 0); \
        its indices and per-primitive outputs were written by thread (1, 0, 0) (--as-group 1,0,0 --ms-group 2,0,0 --ms-thread 1,0,0); \
        its vertex 2 by thread (2, 0, 0) (--as-group 1,0,0 --ms-group 2,0,0 --ms-thread 2,0,0); \
        its vertex 1 by thread (1, 0, 0) (--as-group 1,0,0 --ms-group 2,0,0 --ms-thread 1,0,0); \
        its vertex 3 by thread (3, 0, 0) (--as-group 1,0,0 --ms-group 2,0,0 --ms-thread 3,0,0)";
    assert!(
        out.contains(&format!(
            "PRIMCOLOR0.x = 0.0 (0x00000000): an input of the lane, from the pipeline: {want}"
        )),
        "{out}"
    );
    assert_eq!(out.matches(want).count(), 2, "`why` and `inputs`: {out}");
    // The flags it prints open that lane.
    let (lane, code) = dxlane(&[
        "debug",
        &job,
        "--as-group",
        "1,0,0",
        "--ms-group",
        "2,0,0",
        "--ms-thread",
        "3,0,0",
    ]);
    assert_eq!(code, 0, "{lane}");
    assert!(
        lane.contains(
            "(mesh group (2, 0, 0), thread (3, 0, 0), launched by amplification group (1, 0, 0))"
        ),
        "{lane}"
    );
}

/// The same for dxc's mesh program (`mesh.hlsl`): pixel (2, 1) lies in triangle 0
/// (0, 1, 2), which thread 0 emits, and thread i writes vertex i.
#[test]
fn a_corpus_mesh_pixel_names_the_mesh_lanes_behind_it() {
    let Some(job) = corpus_mesh_job() else {
        return;
    };
    let (out, code) = dxlane(&["debug", job, "--pixel", "2,1", "-c", "inputs"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(
            "the primitive is primitive 0 of mesh group (0, 0, 0); its indices and per-primitive outputs were written by thread (0, 0, 0) (--ms-group 0,0,0 --ms-thread 0,0,0); \
             its vertex 0 by thread (0, 0, 0) (--ms-group 0,0,0 --ms-thread 0,0,0); \
             its vertex 1 by thread (1, 0, 0) (--ms-group 0,0,0 --ms-thread 1,0,0); \
             its vertex 2 by thread (2, 0, 0) (--ms-group 0,0,0 --ms-thread 2,0,0)"
        ),
        "{out}"
    );
}

/// On a command list, `--event N` selects the mesh draw first, as for other lanes: the
/// list's `dispatch_mesh` command (its amplification and mesh programs those of
/// [`ir_job`]) opens its mesh lane, which reads its payload, and a lane of a list event
/// that is not a mesh draw is refused by the flag.
#[test]
fn a_list_event_opens_a_mesh_lane() {
    let dir = ir_job("list_event", true).parent().unwrap().to_path_buf();
    let list = dir.join("list.toml");
    std::fs::write(
        &list,
        "[[resource]]\nname = \"rt\"\nkind = \"texture2d\"\nformat = \"R8G8B8A8_UNORM\"\nwidth = 4\nheight = 4\n\n\
         [[command]]\ntype = \"clear_render_target\"\nresource = \"rt\"\ncolor = [0.0, 0.0, 0.0, 0.0]\n\n\
         [[command]]\ntype = \"dispatch_mesh\"\nas = \"amp.as.ir\"\nms = \"payload.ms.ir\"\nps = \"prim.ps.ir\"\n\
         groups = [2, 1, 1]\nrasterizer = { cull = \"NONE\" }\nrender_targets = [{ resource = \"rt\" }]\n",
    )
    .unwrap();
    let list = path_text(&list);
    let (out, code) = dxlane(&[
        "debug",
        &list,
        "--event",
        "2",
        "--as-group",
        "1,0,0",
        "--ms-group",
        "2,0,0",
        "--ms-thread",
        "1,0,0",
        "-c",
        "print gs[0]",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains(
            "(mesh group (2, 0, 0), thread (1, 0, 0), launched by amplification group (1, 0, 0))"
        ),
        "{out}"
    );
    assert!(out.contains("gs[0] = 1.0 (0x3f800000)"), "{out}");
    let (out, code) = dxlane(&[
        "debug",
        &list,
        "--event",
        "1",
        "--as-group",
        "0,0,0",
        "--as-thread",
        "0,0,0",
    ]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("--event 1"), "{out}");
}

/// A vertex program passing `POSITION` through, and a pixel program writing its view's
/// `SV_ViewID` as red: (view, 1, 0, 1).
const VS_PASS: &str = "shader vertex
regs 1
io_words in 4 out 4
input \"POSITION\" 0 sv none reg 0 rows 1 mask xyzw float interp undefined slot 0
output \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    input r0, 0
    output 0, r0
    input r0, 1
    output 1, r0
    input r0, 2
    output 2, r0
    input r0, 3
    output 3, r0
    return
";

const PS_VIEW: &str = "shader pixel
regs 4
const r0 = 0x3f800000
const r1 = 0x0
io_words in 4 out 4
input \"SV_ViewID\" 0 sv view_id reg none rows 1 mask x uint interp undefined slot 0
output \"SV_Target\" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    input r2, 0
    utof r3, r2
    output 0, r3
    output 1, r0
    output 2, r1
    output 3, r0
    return
";

/// Two views of one draw into an 8 × 4 target, view 0 at viewport 0 (the left half),
/// view 1 at viewport 1 (the right half). `mesh`: the plain mesh program with its
/// primitives' blue channel its view's `SV_ViewID` (`DispatchMesh(1, 1, 1)`), or with
/// `amplification` the amplification and payload programs of [`ir_job`]
/// (`DispatchMesh(2, 1, 1)`); otherwise a full-viewport triangle of [`VS_PASS`] and
/// [`PS_VIEW`].
fn view_job(name: &str, mesh: bool, amplification: bool) -> PathBuf {
    let dir = common::scratch().join("debug_views").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let ms = mesh_text(PLAIN)
        .replace(
            "io_words in 0 out 4\n",
            "io_words in 4 out 4\ninput \"SV_ViewID\" 0 sv view_id reg none rows 1 mask x uint interp undefined slot 0\n",
        )
        .replace("    mov r23, r0\n", "    input r23, 0\n    utof r23, r23\n");
    let files = [
        ("view.ms.ir", ms),
        (
            "payload.ms.ir",
            mesh_text(Ms {
                payload: true,
                ..PLAIN
            }),
        ),
        ("amp.as.ir", amplification_text([3, 1, 1], 1.0, true, false)),
        ("prim.ps.ir", PS.to_string()),
        ("pass.vs.ir", VS_PASS.to_string()),
        ("view.ps.ir", PS_VIEW.to_string()),
    ];
    for (file, body) in files {
        std::fs::write(dir.join(file), body).unwrap();
    }
    let draw = match (mesh, amplification) {
        (true, true) => {
            "[program]\nas = \"amp.as.ir\"\nms = \"payload.ms.ir\"\nps = \"prim.ps.ir\"\n[draw]\ndispatch_mesh = [2, 1, 1]\n"
        }
        (true, false) => {
            "[program]\nms = \"view.ms.ir\"\nps = \"prim.ps.ir\"\n[draw]\ndispatch_mesh = [1, 1, 1]\n"
        }
        (false, _) => {
            "[program]\nvs = \"pass.vs.ir\"\nps = \"view.ps.ir\"\n[draw]\nvertex_count = 3\n"
        }
    };
    let triangle = if mesh {
        ""
    } else {
        "[[draw.vertex_buffer]]\nslot = 0\nstride = 16\ndata = { f32 = [-1.0, -1.0, 0.0, 1.0, 3.0, -1.0, 0.0, 1.0, -1.0, 3.0, 0.0, 1.0] }\n\
         [[draw.input_element]]\nsemantic = \"POSITION\"\nformat = \"R32G32B32A32_FLOAT\"\n"
    };
    let text = format!(
        "{draw}viewports = [[0, 0, 4, 4, 0, 1], [4, 0, 4, 4, 0, 1]]\nscissors = [[0, 0, 4, 4], [4, 0, 8, 4]]\n\
         view_instancing = {{ count = 2, locations = [{{ viewport = 0 }}, {{ viewport = 1 }}] }}\n\
         [draw.rasterizer]\ncull = \"NONE\"\n\n\
         [[draw.render_target]]\nformat = \"R8G8B8A8_UNORM\"\nwidth = 8\nheight = 4\n{triangle}"
    );
    let path = dir.join("job.toml");
    std::fs::write(&path, text).unwrap();
    path
}

/// D3D12 View Instancing, "View Instancing Declaration" (a program reads its view's
/// `SV_ViewID`) and "Implementation Flexibility" (dxlane loops the whole draw per view,
/// `docs/pipeline.md`): `--view N` opens a lane in view N's pass, which reads
/// `SV_ViewID` = N — a pixel lane of the right half (viewport 1) is view 1's, the same
/// pixel in view 0 is covered by nothing; a vertex lane of each view. Without `--view`
/// a lane of a draw of two views is refused naming the flag, and a view the draw does
/// not run is refused naming it.
#[test]
fn view_n_opens_a_lane_of_that_views_pass() {
    let job = path_text(&view_job("pixel", false, false));
    let (out, code) = dxlane(&[
        "debug",
        &job,
        "--pixel",
        "5,1",
        "--view",
        "1",
        "-c",
        "continue; print r2",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("r2 = 1"), "SV_ViewID of view 1: {out}");
    assert!(
        out.contains("pixel (5, 1)") && out.contains(", view 1), step"),
        "{out}"
    );
    let (out, code) = dxlane(&[
        "debug",
        &job,
        "--pixel",
        "1,1",
        "--view",
        "0",
        "-c",
        "continue; print r2",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("r2 = 0"), "SV_ViewID of view 0: {out}");
    let (out, code) = dxlane(&["debug", &job, "--pixel", "5,1", "--view", "0"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("covered by no primitive"), "{out}");
    let (out, code) = dxlane(&["debug", &job, "--pixel", "5,1"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("the draw runs 2 views (view instancing: views 0, 1)")
            && out.contains("--view N"),
        "{out}"
    );
    let (out, code) = dxlane(&["debug", &job, "--vertex", "1", "--view", "2"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("--view 2: the draw declares 2 view(s) (0 to 1)"),
        "{out}"
    );
    let (out, code) = dxlane(&["debug", &job, "--vertex", "1", "--view", "1", "-c", "where"]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains(", view 1), step"), "{out}");
    let (out, code) = dxlane(&["debug", &job, "--thread", "0,0,0", "--view", "1"]);
    assert_eq!(code, 2, "{out}");
}

/// The debugged draw of one view leaves the targets as the normal draw of every view
/// does, byte for byte, for a lane of each stage and view (the other view's pass runs
/// unobserved, `DrawOptions::view`).
#[test]
fn debugging_one_view_leaves_every_views_outputs() {
    // View v's half starts at column 4v.
    let pixel = |view: u32| LaneSelect::Pixel {
        x: 4 * view + 1,
        y: 1,
        sample: 0,
        prim: 0,
    };
    let cases: [(&str, bool, bool, Vec<LaneSelect>); 3] = [
        (
            "equal_pixel",
            false,
            false,
            vec![
                pixel(0),
                LaneSelect::Vertex {
                    vertex: 2,
                    instance: 0,
                },
            ],
        ),
        (
            "equal_mesh",
            true,
            false,
            vec![LaneSelect::Mesh {
                launch: None,
                group: [0, 0, 0],
                thread: [1, 0, 0],
            }],
        ),
        (
            "equal_amplification",
            true,
            true,
            vec![
                LaneSelect::Amplification {
                    group: [1, 0, 0],
                    thread: [0, 0, 0],
                },
                LaneSelect::Mesh {
                    launch: Some([1, 0, 0]),
                    group: [2, 0, 0],
                    thread: [3, 0, 0],
                },
            ],
        ),
    ];
    for (name, mesh, amplification, lanes) in cases {
        let job = Job::load(&view_job(name, mesh, amplification)).unwrap();
        let opts = RunOptions {
            threads: Some(1),
            ..common::run_options()
        };
        let p = dxlane::job::prepare(job, &opts).unwrap();
        let target = debug::from_job(&p).unwrap();
        let normal = target.run_normal().unwrap();
        // Each view drew its half; the halves differ where the programs read
        // `SV_ViewID` (the amplification job's do not).
        assert!(normal[0][16..32].iter().any(|&b| b != 0), "{name}");
        assert_eq!(
            normal[0][..16] != normal[0][16..32],
            !amplification,
            "{name}"
        );
        for view in [0, 1] {
            for &sel in &lanes {
                let sel = match sel {
                    LaneSelect::Pixel { .. } => pixel(view),
                    other => other,
                };
                let t = target.with_view(view).unwrap();
                let d = Debugger::open(t, sel, DebugOptions::default())
                    .unwrap_or_else(|e| panic!("{name} {sel:?} view {view}: {e}"));
                assert!(d.fault().is_none(), "{name} {sel:?} view {view}");
                assert_eq!(
                    d.outputs(),
                    &normal[..],
                    "{name} {sel:?} view {view}: the targets differ"
                );
            }
        }
    }
}

/// A mesh lane of view 1 reads `SV_ViewID` = 1 (DXIL.rst: `SV_ViewID` is `NotInSig` in
/// `MSIn`) and writes it as its primitive's blue; an amplification lane takes `--view`
/// too: dxlane runs the amplification program once per view's pass, and `--view` picks
/// the pass (its lanes cannot read `SV_ViewID`: `NA` in `ASIn`). A pixel of view 1's
/// half (`--texel`) opens view 1's pixel lane, whose primitive's mesh lanes are named
/// with `--view 1`; the DAP `launch` request takes `view`.
#[test]
fn view_n_opens_mesh_and_amplification_lanes_and_texels_find_their_view() {
    let job = path_text(&view_job("mesh", true, false));
    let (out, code) = dxlane(&[
        "debug",
        &job,
        "--ms-group",
        "0,0,0",
        "--ms-thread",
        "0,0,0",
        "--view",
        "1",
        "-c",
        "continue; print r23",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("r23 = 1.0"), "{out}");
    let (out, code) = dxlane(&["debug", &job, "--texel", "rt0", "4,1", "-c", "inputs"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("rt0 (4, 1) (bytes ff 00 ff ff) was last written by pixel (4, 1)")
            && out.contains("in view 1 (--pixel 4,1 --view 1)"),
        "{out}"
    );
    assert!(
        out.contains("(--ms-group 0,0,0 --ms-thread 0,0,0 --view 1)"),
        "{out}"
    );
    let (out, code) = dxlane(&["debug", &job, "--texel", "rt0", "0,1"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("rt0 (0, 1) (bytes ff 00 00 ff) was last written by pixel (0, 1)")
            && out.contains("in view 0 (--pixel 0,1 --view 0)"),
        "{out}"
    );
    let (out, code) = dxlane(&["debug", &job, "--texel", "rt0", "0,1", "--view", "0"]);
    assert_eq!(code, 2, "{out}");
    let amp = path_text(&view_job("amp", true, true));
    let (out, code) = dxlane(&[
        "debug",
        &amp,
        "--as-group",
        "1,0,0",
        "--as-thread",
        "1,0,0",
        "--view",
        "1",
        "-c",
        "where",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("(amplification group (1, 0, 0), thread (1, 0, 0), view 1)"),
        "{out}"
    );
    use crate::dap::Client;
    use serde_json::json;
    let mut c = Client::start();
    c.open(json!({
        "type": "dxlane",
        "request": "launch",
        "job": job,
        "msGroup": "0,0,0",
        "msThread": "0,0,0",
        "view": 1,
    }));
    let entry = c.configured();
    assert_eq!(entry["reason"], "entry", "{entry}");
    let thread = entry["threadId"].as_i64().expect("a thread");
    c.ok("continue", json!({ "threadId": thread }));
    let _ = c.event("stopped");
    let e = c.ok(
        "evaluate",
        json!({ "expression": "r23", "context": "watch", "frameId": thread }),
    );
    assert!(
        e["result"]
            .as_str()
            .is_some_and(|r| r.starts_with("r23 = 1.0")),
        "{e}"
    );
    c.ok("disconnect", serde_json::Value::Null);
    assert_eq!(c.finish(), 0);
}

/// `--event N --view V` on a command list: the list's draw of two views opens view V's
/// pixel lane.
#[test]
fn a_list_event_opens_a_lane_of_one_view() {
    let dir = view_job("list", false, false)
        .parent()
        .unwrap()
        .to_path_buf();
    let list = dir.join("list.toml");
    std::fs::write(
        &list,
        "[[resource]]\nname = \"rt\"\nkind = \"texture2d\"\nformat = \"R8G8B8A8_UNORM\"\nwidth = 8\nheight = 4\n\n\
         [[resource]]\nname = \"tri\"\nkind = \"raw_buffer\"\ndata = { f32 = [-1.0, -1.0, 0.0, 1.0, 3.0, -1.0, 0.0, 1.0, -1.0, 3.0, 0.0, 1.0] }\n\n\
         [[command]]\ntype = \"clear_render_target\"\nresource = \"rt\"\ncolor = [0.0, 0.0, 0.0, 0.0]\n\n\
         [[command]]\ntype = \"draw\"\nvs = \"pass.vs.ir\"\nps = \"view.ps.ir\"\nvertex_count = 3\n\
         vertex_buffers = [{ slot = 0, resource = \"tri\", stride = 16 }]\n\
         input_element = [{ semantic = \"POSITION\", format = \"R32G32B32A32_FLOAT\" }]\n\
         viewports = [[0, 0, 4, 4, 0, 1], [4, 0, 4, 4, 0, 1]]\nscissors = [[0, 0, 4, 4], [4, 0, 8, 4]]\n\
         view_instancing = { count = 2, locations = [{ viewport = 0 }, { viewport = 1 }] }\n\
         rasterizer = { cull = \"NONE\" }\nrender_targets = [{ resource = \"rt\" }]\n",
    )
    .unwrap();
    let list = path_text(&list);
    let (out, code) = dxlane(&[
        "debug",
        &list,
        "--event",
        "2",
        "--pixel",
        "6,2",
        "--view",
        "1",
        "-c",
        "continue; print r2",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(out.contains("r2 = 1"), "{out}");
    assert!(out.contains(", view 1), step"), "{out}");
}

/// `outputs` on a mesh lane: the group's output arrays as the mesh program left them
/// (mesh shader spec, "Mesh shader outputs": the counts, each primitive's indices and
/// per-primitive attributes, each vertex's attributes), read from the group's memory —
/// by hand for the IR program: `SetMeshOutputCounts(4, 2)`; primitive 0 (0, 1, 2) in
/// (1, 0, 0, 1), primitive 1 (2, 1, 3) in (0, 1, 0, 1); vertex t at (2·(t & 1) − 1,
/// 2·(t >> 1) − 1, 0, 1). An amplification lane has no outputs to show.
#[test]
fn outputs_of_a_mesh_lane_are_its_groups_arrays() {
    let job = path_text(&ir_job("outputs", false));
    let (out, code) = dxlane(&[
        "debug",
        &job,
        "--ms-group",
        "1,0,0",
        "--ms-thread",
        "2,0,0",
        "-c",
        "outputs",
    ]);
    assert_eq!(code, 0, "{out}");
    for want in [
        "outputs of lane 2's mesh group (when the group finished",
        "SetMeshOutputCounts(4, 2) (at most 4 vertices, 2 primitives)",
        "primitive 0: indices (0, 1, 2); PRIMCOLOR0 = 1.0 (0x3f800000), 0.0 (0x00000000), 0.0 (0x00000000), 1.0 (0x3f800000)",
        "primitive 1: indices (2, 1, 3); PRIMCOLOR0 = 0.0 (0x00000000), 1.0 (0x3f800000), 0.0 (0x00000000), 1.0 (0x3f800000); SV_CullPrimitive = 0",
        "vertex 0: SV_Position = -1.0 (0xbf800000), -1.0 (0xbf800000), 0.0 (0x00000000), 1.0 (0x3f800000)",
        "vertex 3: SV_Position = 1.0 (0x3f800000), 1.0 (0x3f800000), 0.0 (0x00000000), 1.0 (0x3f800000)",
    ] {
        assert!(out.contains(want), "{want}: {out}");
    }
    let amp = path_text(&ir_job("outputs_amp", true));
    let (out, code) = dxlane(&[
        "debug",
        &amp,
        "--as-group",
        "0,0,0",
        "--as-thread",
        "0,0,0",
        "-c",
        "outputs",
    ]);
    assert_eq!(code, 1, "{out}");
    assert!(
        out.contains("an amplification lane writes its payload"),
        "{out}"
    );
}
