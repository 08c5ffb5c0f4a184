//! The lane debugger on ray-tracing jobs: ray-generation lanes opened by launch index
//! (`--ray x,y`, docs/debugger.md "Ray lanes"), the programs each `TraceRay` and
//! `CallShader` ran, `why` from a payload word into the program that wrote it, stepping
//! back across a `TraceRay`, the DAP `launch` argument, refusals, and the traced run
//! leaving the memory a normal run leaves. The jobs are the corpus ray jobs
//! (`tests/jobs/corpus/ray_tracing*.toml`), whose headers derive every value by hand
//! from the DXR functional spec; the values checked here are those.
//!
//! The ray-generation program (`ray_tracing.hlsl`'s `raygen`, dxc's `lib_6_6` build)
//! lists its `TraceRay` at listing line 58, the load of `payload.distance` after it
//! (`%24`) at line 61 and its `CallShader` at line 64 (`dxlane disasm
//! target/corpora/dxil-reader/ray_tracing.raygen.dxil`).

use std::process::Command;

use serde_json::json;

use dxlane::debug::provenance::{self, OutputSelect, ProvenanceError};
use dxlane::debug::{self, DebugOptions, Debugger, LaneSelect};
use dxlane::job::{Job, RunOptions};
use dxlane::pipeline::{Bindings, Work};

use crate::common;
use crate::dap::{Client, corpus_job};

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

/// The corpus ray job `name`, or `None` only when the corpora are turned off
/// (`DXLANE_NO_CORPORA`, said on stderr). Fetched corpora without the library the jobs
/// run are a failure, not a skip.
fn job(name: &str) -> Option<String> {
    if common::corpora().is_empty() {
        eprintln!("SKIPPED debug_rays: the corpora are turned off");
        return None;
    }
    assert!(
        common::root()
            .join("target/corpora/dxil-reader/ray_tracing.raygen.dxil")
            .exists()
            || common::corpora()
                .iter()
                .any(|d| d.join("ray_tracing.raygen.dxil").exists()),
        "the corpora are fetched but ray_tracing.raygen.dxil is missing"
    );
    Some(format!("tests/jobs/corpus/{name}.toml"))
}

/// A session on `ray` of the corpus job `name` through the library, on one worker
/// thread.
fn open(name: &str, ray: [u32; 3]) -> Option<Debugger> {
    let path = job(name)?;
    let j = Job::load(&common::root().join(path)).unwrap();
    let opts = RunOptions {
        threads: Some(1),
        ..RunOptions::default()
    };
    let p = dxlane::job::prepare(j, &opts).unwrap();
    let t = debug::from_job(&p).unwrap();
    Some(Debugger::open(t, LaneSelect::Ray(ray), DebugOptions::default()).unwrap())
}

/// The lines of `out` that name a nested program (`ran …`).
fn ran(out: &str) -> Vec<String> {
    out.lines()
        .map(str::trim)
        .filter(|l| l.starts_with("ran "))
        .map(str::to_string)
        .collect()
}

/// `--ray 0,0` opens the ray-generation lane of DispatchRaysIndex (0, 0, 0); its
/// `TraceRay` runs the closest-hit program of hit group 0 for instance 0 (ID 3),
/// primitive 0, geometry 0 at t = 5 (ray_tracing.toml: the ray from (0.125, 0.25, 0)
/// along +z meets the triangle moved to z = 5; DXR spec "Addressing calculations within
/// shader tables", "RayTCurrent"), which leaves the distance 5 + 0.001; its
/// `CallShader` runs callable record 0, which doubles it. A ray beside the triangle
/// ((3, 0): x + y > 1) runs miss record 0, which leaves the distance -1 and sets the
/// count to DispatchRaysIndex().x = 3 ("Miss shaders").
#[test]
fn a_hit_ray_and_a_missing_ray_run_their_programs() {
    let Some(j) = job("ray_tracing") else { return };
    let (out, code) = dxlane(&[
        "debug",
        &j,
        "--ray",
        "0,0",
        "--threads",
        "1",
        "-c",
        "break 58; continue; step; rays",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("ray generation of DispatchRaysIndex (0, 0, 0)"),
        "{out}"
    );
    let r = ran(&out);
    assert!(
        r.iter().any(|l| l.starts_with(
            "ran closest-hit \"closest_hit\" of hit group 0 (\"triangle\") for instance 0 (ID 3), primitive 0, geometry 0, RayTCurrent 5.0,"
        ) && l.contains("payload (-1.0 (0xbf800000), 0 (0x00000000), 0 (0x00000000), 0 (0x00000000), 0 (0x00000000)) → (5.001 (0x40a00831),")),
        "{out}"
    );
    assert!(
        r.iter().any(|l| l.starts_with(
            "ran callable \"callable\" of callable record 0: payload (5.001 (0x40a00831)) → (10.002 (0x41200831))"
        )),
        "{out}"
    );
    assert!(out.contains("call 0, ["), "{out}");
    assert!(out.contains("call 1, ["), "{out}");

    let (out, code) = dxlane(&["debug", &j, "--ray", "3,0", "--threads", "1", "-c", "rays"]);
    assert_eq!(code, 0, "{out}");
    let r = ran(&out);
    assert!(
        r.iter().any(|l| l
            .starts_with("ran miss \"miss\" of miss record 0: payload (-1.0 (0xbf800000), 0 (0x00000000), 0 (0x00000000), 0 (0x00000000), 0 (0x00000000)) → (-1.0 (0xbf800000), 3 (0x00000003),")),
        "{out}"
    );
    assert!(
        r.iter().any(|l| l
            .starts_with("ran callable \"callable\" of callable record 0: payload (-1.0 (0xbf800000)) → (-2.0 (0xc0000000))")),
        "{out}"
    );
    assert!(!out.contains("closest-hit"), "{out}");
}

/// The non-opaque triangle (ray_tracing_any_hit.toml): hit group 0 + 1 × 0 + the
/// instance's contribution 1 = record 1, "alpha". Ray (0, 0) meets it at barycentrics
/// (0.125, 0.25): its any-hit program ignores the hit (x < 0.25, "IgnoreHit") and the
/// miss program runs; ray (1, 0) at (0.375, 0.25): any-hit accepts, then closest-hit.
#[test]
fn any_hit_runs_before_the_miss_or_closest_hit() {
    let Some(j) = job("ray_tracing_any_hit") else {
        return;
    };
    let (out, code) = dxlane(&["debug", &j, "--ray", "0,0", "-c", "rays"]);
    assert_eq!(code, 0, "{out}");
    let r = ran(&out);
    assert!(r[0].starts_with("ran any-hit \"any_hit\" of hit group 1 (\"alpha\") for instance 0 (ID 3), primitive 0, geometry 0"), "{out}");
    assert!(
        r[1].starts_with("ran miss \"miss\" of miss record 0"),
        "{out}"
    );
    assert!(r[2].starts_with("ran callable"), "{out}");
    let (out, code) = dxlane(&["debug", &j, "--ray", "1,0", "-c", "rays"]);
    assert_eq!(code, 0, "{out}");
    let r = ran(&out);
    assert!(
        r[0].starts_with("ran any-hit \"any_hit\" of hit group 1 (\"alpha\")"),
        "{out}"
    );
    assert!(
        r[1].starts_with("ran closest-hit \"closest_hit\" of hit group 1 (\"alpha\") for instance 0 (ID 3), primitive 0, geometry 0, RayTCurrent 5"),
        "{out}"
    );
}

/// The procedural box (ray_tracing_procedural.toml): every ray enters the AABB, so the
/// intersection program of record 1 ("sphere") runs first, for the candidate the ray
/// meets where it enters the box [1, 2] in z: t = 1 (the origin is at z = 0, the
/// direction +z). Ray 1 reports t = 1000, accepted: any-hit, then closest-hit at
/// RayTCurrent 1000. Ray 0 reports past TMax: rejected, so the miss
/// program runs ("ReportHit", "Ray extents").
#[test]
fn the_intersection_program_runs_first() {
    let Some(j) = job("ray_tracing_procedural") else {
        return;
    };
    let (out, code) = dxlane(&["debug", &j, "--ray", "1,0", "-c", "rays"]);
    assert_eq!(code, 0, "{out}");
    let r = ran(&out);
    assert!(
        r[0] == "ran intersection \"intersection\" of hit group 1 (\"sphere\") for instance 0 (ID 3), primitive 0, geometry 0, its AABB entered at t 1.0",
        "{out}"
    );
    assert!(
        r[1].starts_with("ran any-hit \"any_hit\" of hit group 1 (\"sphere\")"),
        "{out}"
    );
    assert!(
        r[2].starts_with("ran closest-hit \"closest_hit\" of hit group 1 (\"sphere\") for instance 0 (ID 3), primitive 0, geometry 0, RayTCurrent 1000"),
        "{out}"
    );
    let (out, code) = dxlane(&["debug", &j, "--ray", "0,0", "-c", "rays"]);
    assert_eq!(code, 0, "{out}");
    let r = ran(&out);
    assert!(r[0].starts_with("ran intersection"), "{out}");
    assert!(r[1].starts_with("ran miss"), "{out}");
}

/// `next` over the `TraceRay` moves one step, past the whole call; `back` returns to
/// before it, where the payload's distance is -1 again (the value the ray-generation
/// program stored), and stepping forward again reads 5.001 (the closest-hit program's
/// RayTCurrent() + RayTMin()). `why` on the distance loaded after the call names the
/// closest-hit program of instance 0, primitive 0, invoked by that `TraceRay`, and goes
/// on with the -1 the call passed in.
#[test]
fn back_across_trace_ray_and_why_into_the_closest_hit() {
    let Some(mut d) = open("ray_tracing", [0, 0, 0]) else {
        return;
    };
    d.execute("break 58").unwrap();
    d.execute("continue").unwrap();
    let at = d.position();
    let payload_before = d.execute("print alloca2[0]").unwrap();
    let out = d.execute("next").unwrap();
    assert_eq!(d.position(), at + 1, "{out}");
    assert_eq!(ran(&out).len(), 1, "{out}");
    let payload_after = d.execute("print alloca2[0]").unwrap();
    assert!(
        payload_before.contains("-1.0 (0xbf800000)"),
        "{payload_before}"
    );
    assert!(
        payload_after.contains("5.001 (0x40a00831)"),
        "{payload_after}"
    );
    // One step back from after the call is the last step of the program it ran (its
    // `ret`), which has stored the distance; back at the call, the payload is as before.
    let w = d.execute("back").unwrap();
    assert!(w.starts_with("closest-hit \"closest_hit\""), "{w}");
    let p = d.execute("print payload").unwrap();
    assert!(p.starts_with("payload = (5.001 (0x40a00831),"), "{p}");
    d.execute(&format!("goto {at}")).unwrap();
    assert_eq!(d.execute("print alloca2[0]").unwrap(), payload_before);
    d.execute("next").unwrap();
    assert_eq!(d.execute("print alloca2[0]").unwrap(), payload_after);

    d.execute("break 63").unwrap();
    d.execute("continue").unwrap();
    let v = d.execute("print %24").unwrap();
    assert!(v.contains("5.001 (0x40a00831)"), "{v}");
    let why = d.execute("why %24 6").unwrap();
    assert!(
        why.contains(
            "payload word 0 written by closest-hit \"closest_hit\" of hit group 0 (\"triangle\") for instance 0 (ID 3), primitive 0, geometry 0, RayTCurrent 5.0"
        ),
        "{why}"
    );
    assert!(
        why.contains(&format!(
            "invoked by TraceRay at step {at} (call 0): -1.0 (0xbf800000) → 5.001 (0x40a00831)"
        )),
        "{why}"
    );
    assert!(why.contains("what TraceRay passed in:"), "{why}");

    // The missing ray's distance: the miss program leaves it as passed in.
    let mut m = open("ray_tracing", [3, 0, 0]).unwrap();
    m.execute("break 63").unwrap();
    m.execute("continue").unwrap();
    let why = m.execute("why %24 6").unwrap();
    assert!(
        why.contains("payload word 0: the programs TraceRay at step")
            && why.contains("left it as it was passed in"),
        "{why}"
    );
}

/// The debugged run leaves the memory the normal run leaves, byte for byte, on every
/// corpus ray job (docs/debugger.md "Ray lanes").
#[test]
fn the_debugged_run_equals_the_normal_run() {
    for (name, ray) in [
        ("ray_tracing", [2, 1, 0]),
        ("ray_tracing", [0, 0, 0]),
        ("ray_tracing", [3, 0, 0]),
        ("ray_tracing_od", [0, 0, 0]),
        ("ray_tracing_any_hit", [1, 0, 0]),
        ("ray_tracing_procedural", [1, 0, 0]),
        ("ray_tracing_local", [0, 0, 0]),
    ] {
        let Some(d) = open(name, ray) else { return };
        let normal = d.target().run_normal().unwrap();
        assert_eq!(d.outputs(), normal.as_slice(), "{name}");
        assert!(normal.iter().any(|m| m.iter().any(|b| *b != 0)), "{name}");
    }
}

/// Refusals name the flag and the value (exit status 2).
#[test]
fn ray_lanes_are_refused_by_name() {
    let Some(j) = job("ray_tracing") else { return };
    let (out, code) = dxlane(&["debug", &j, "--ray", "4,0"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("--ray 4,0,0: outside the dispatch: DispatchRays(4, 2, 1) launches rays (0, 0, 0) to (3, 1, 0)"),
        "{out}"
    );
    let (out, code) = dxlane(&["debug", &j, "--ray", "1"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("--ray: `1` is not x,y or x,y,z"), "{out}");
    let (out, code) = dxlane(&["debug", &j, "--thread", "0,0,0"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("give --ray x,y[,z]"), "{out}");
    let (out, code) = dxlane(&["debug", &j, "--ray", "0,0", "--thread", "0,0,0"]);
    assert_eq!(code, 2, "{out}");
    assert!(out.contains("--ray"), "{out}");
    let (out, code) = dxlane(&["debug", "examples/mandelbrot.toml", "--ray", "0,0"]);
    assert_eq!(code, 2, "{out}");
    assert!(
        out.contains("--ray: the job is a compute dispatch, not a DispatchRays"),
        "{out}"
    );
}

/// DAP: `launch` takes `ray` as `[x, y, z]`; the one thread is the lane, named by its
/// launch index, and stepping over the `TraceRay` reports the programs it ran on the
/// console.
#[test]
fn dap_launch_takes_a_ray() {
    if job("ray_tracing").is_none() {
        return;
    }
    let Some(j) = corpus_job("tests/jobs/corpus/ray_tracing.toml") else {
        return;
    };
    let mut c = Client::start();
    c.open(json!({ "job": j, "ray": [2, 0, 0], "threads": 1 }));
    c.configured();
    let threads = c.ok("threads", serde_json::Value::Null);
    let names: Vec<String> = threads["threads"]
        .as_array()
        .unwrap()
        .iter()
        .map(|t| t["name"].as_str().unwrap_or_default().to_string())
        .collect();
    assert!(
        names
            .iter()
            .any(|n| n.contains("ray generation of DispatchRaysIndex (2, 0, 0)")),
        "{names:?}"
    );
    let r = c.ok(
        "evaluate",
        json!({ "expression": "rays", "context": "repl" }),
    );
    let text = r["result"].as_str().unwrap_or_default().to_string();
    assert!(
        text.contains("ran closest-hit \"closest_hit\" of hit group 0 (\"triangle\") for instance 0 (ID 3), primitive 0, geometry 0, RayTCurrent 5"),
        "{text}"
    );
    c.ok("disconnect", json!({}));
    assert_eq!(c.finish(), 0);
}

/// `--texel` and `--element` on a ray job open the ray-generation lane whose store wrote
/// the texel last (docs/debugger.md "Which lane wrote it"): ray (1, 0) hits at (0.375,
/// 0.25), so its texel is (3x, 3y + 1, -2 - x - y) × 10.002 = (1.125, 1.75, -2.625) ×
/// 10.002, then 5.001 (ray_tracing.toml's header); ray (2, 1) misses, so texel (2, 1)
/// = element 6 holds (-0, -0, -0.6, -1). Each ray writes its own texel once, at
/// `output[at]` (listing line 76).
#[test]
fn texel_and_element_open_the_ray_that_wrote_them() {
    let Some(j) = job("ray_tracing") else { return };
    let (out, code) = dxlane(&[
        "debug",
        &j,
        "--texel",
        "u0",
        "1,0",
        "--threads",
        "1",
        "-c",
        "print u0[1]",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("u0 (1, 0) (bytes 37 09 34 41 2b 07 8c 41 c0 0a d2 c1 31 08 a0 40) was last written by ray (1, 0, 0) (--ray 1,0,0): the ray-generation program's instruction #"),
        "{out}"
    );
    assert!(
        out.contains("the session stands after that store (line 76:"),
        "{out}"
    );
    assert!(
        out.contains("ray generation of DispatchRaysIndex (1, 0, 0)"),
        "{out}"
    );
    assert!(
        out.contains("11.25225 (0x41340937), 17.5035 (0x418c072b), -26.255249 (0xc1d20ac0), 5.001 (0x40a00831)"),
        "{out}"
    );
    assert!(
        out.contains("this lane wrote 11.25225 (0x41340937) before this point"),
        "{out}"
    );

    let (out, code) = dxlane(&["debug", &j, "--element", "u0[6]", "--threads", "1"]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("u0[6] (texel (2, 1) of layer 0) (bytes 00 00 00 80 00 00 00 80 9a 99 19 bf 00 00 80 bf) was last written by ray (2, 1, 0) (--ray 2,1,0)"),
        "{out}"
    );
}

/// A closest-hit program that writes the UAV itself, written by hand in the IR: it
/// stores RayTCurrent() to texel (x, y + 2) of a 4×4 output, for launch index (x, y)
/// (the corpus job's output made two rows taller, which its ray-generation program
/// never writes). Ray (1, 0) hits at t = 5 ("RayTCurrent": the hit's t in closest-hit),
/// so texel (1, 2) is 5.0 in every channel and was written by ray (1, 0, 0)'s
/// closest-hit program, inside its TraceRay (listing line 58); ray (3, 0) misses, so
/// nothing wrote texel (3, 2).
#[test]
fn a_texel_a_nested_program_wrote_names_that_program() {
    let Some(path) = job("ray_tracing") else {
        return;
    };
    let path = common::root().join(path);
    let text = std::fs::read_to_string(&path).unwrap();
    assert_eq!(text.matches("height = 2").count(), 1);
    let text = text.replace("height = 2", "height = 4");
    let j = Job::from_text(&text, &path).unwrap();
    let opts = RunOptions {
        threads: Some(1),
        ..RunOptions::default()
    };
    let mut p = dxlane::job::prepare(j, &opts).unwrap();
    let writer = dxlane::ir::parse_shader(
        "shader closesthit
entry \"writer\"
const r0 = 0
const r1 = 2
local x0 20 \"payload\"
local x1 8 \"attributes\"
ray payload x0 bytes 20 attributes x1 bytes 8
resource range0 = uav space 0 lower 0 count 1 texture2d float \"output\"
block0:
    rt_get dispatch_rays_index, 0, r2
    rt_get dispatch_rays_index, 1, r3
    iadd r4, r3, r1
    handle r5, range0, r0
    rt_get ray_t_current, 0, r6
    typed_store r5, [r2 r4 _], _, [r6 r6 r6 r6], 15
    return
",
    )
    .unwrap();
    dxlane::ir::validate(&writer).unwrap();
    let Work::Rays(r) = &mut p.work else {
        panic!("not a ray job")
    };
    let (raygen, raygen_bindings) = &r.programs[r.raygen];
    let u0 = raygen
        .resources
        .iter()
        .position(|x| x.class == dxlane::ir::ResourceClass::Uav)
        .unwrap();
    let bindings = Bindings {
        ranges: vec![raygen_bindings.ranges[u0].clone()],
        resource_heap: Vec::new(),
        sampler_heap: Vec::new(),
    };
    let Some(dxlane::pipeline::rays::TableRecord::Shader(group)) = r.hit_groups.get(0) else {
        panic!("no hit group 0")
    };
    let ch = group.closest_hit.unwrap();
    r.programs[ch] = (writer, bindings);

    let target = debug::from_job(&p).unwrap();
    let sel = OutputSelect::texel("u0", "1,2", 0, 0, 0).unwrap();
    let found = provenance::find(&p, &target, &sel, None).unwrap();
    assert_eq!(found.lane, LaneSelect::Ray([1, 0, 0]));
    assert_eq!(found.flags, "--ray 1,0,0");
    assert_eq!(
        found.nested,
        Some((ch, "closest-hit \"writer\"".to_string()))
    );
    assert_eq!(found.value, [0x00, 0x00, 0xa0, 0x40].repeat(4), "5.0 ×4");
    assert!(
        found
            .line()
            .contains("the closest-hit \"writer\" program's instruction #"),
        "{}",
        found.line()
    );

    let (d, _) = provenance::open(&p, None, &sel, DebugOptions::default()).unwrap();
    let notes = d.notes().join("\n");
    assert!(
        notes.contains("the session stands after the call that ran the closest-hit \"writer\" program (line 58:"),
        "{notes}"
    );

    let missing = OutputSelect::texel("u0", "3,2", 0, 0, 0).unwrap();
    match provenance::find(&p, &target, &missing, None) {
        Err(ProvenanceError::Unwritten(t)) => {
            assert!(t.contains("was written by no lane of the run"), "{t}")
        }
        other => panic!("{other:?}"),
    }
}

/// `compare` on a ray job names the ray behind a differing texel and the command that
/// opens it (docs/capture.md): texel (2, 1) was written by ray (2, 1, 0)'s
/// ray-generation lane (ray_tracing.toml: each ray writes its own texel).
#[test]
fn compare_names_the_ray_behind_a_texel() {
    let Some(j) = job("ray_tracing") else { return };
    let cap = common::scratch().join("debug_rays_compare");
    let _ = std::fs::remove_dir_all(&cap);
    let c = cap.display().to_string();
    let (out, code) = dxlane(&["run", &j, "--threads", "1", "-q", "--record", &c]);
    assert_eq!(code, 0, "{out}");
    let bin = cap.join("u0.bin");
    let mut b = std::fs::read(&bin).unwrap();
    // Texel (2, 1) is element 6: its red channel, one ulp off.
    b[6 * 16] ^= 1;
    std::fs::write(&bin, b).unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args(["compare", &j, &c, "--json", "--no-images", "--no-explain"])
        .current_dir(common::root())
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(1), "{out:?}");
    let v: serde_json::Value = serde_json::from_slice(&out.stdout).unwrap();
    let m = &v["resources"][0]["mismatches"][0];
    assert_eq!(m["at"], "(2, 1) r");
    assert_eq!(m["writer"]["lane"], "ray (2, 1, 0)");
    assert_eq!(m["writer"]["ray"], json!([2, 1, 0]));
    assert_eq!(
        m["writer"]["debug"],
        format!("dxlane debug {j} --ray 2,1,0")
    );
    assert!(m["writer"]["program"].is_null(), "{m}");
}

/// A memory watch in a ray lane hears the other ray-generation waves' writes (docs/debugger.md
/// "Ray lanes"): at wave size 4 ray (2, 1) — launch-linear index 6 (x fastest) — runs in
/// wave 1, not the observed lane's wave 0, and stores the missing ray's texel (2, 1)
/// (element 6, bytes 96..112), whose red channel is -0 (ray_tracing.toml's header).
#[test]
fn a_memory_watch_hears_other_ray_generation_waves() {
    let Some(j) = job("ray_tracing") else { return };
    let (out, code) = dxlane(&[
        "debug",
        &j,
        "--ray",
        "0,0",
        "--wave-size",
        "4",
        "--threads",
        "1",
        "-c",
        "watch u0[6]; continue",
    ]);
    assert_eq!(code, 0, "{out}");
    assert!(
        out.contains("1 write(s) by lanes of other ray-generation waves"),
        "{out}"
    );
    assert!(
        out.contains(
            "u0 bytes 96..112 by ray (2, 1, 0) at line 76 (value -2147483648 (0x80000000))"
        ),
        "{out}"
    );
}

/// The folder holding the corpus ray library (`ray_tracing.<export>.dxil`).
fn library_dir() -> std::path::PathBuf {
    let own = common::root().join("target/corpora/dxil-reader");
    if own.join("ray_tracing.raygen.dxil").exists() {
        return own;
    }
    common::corpora()
        .iter()
        .find(|d| d.join("ray_tracing.raygen.dxil").exists())
        .cloned()
        .expect("the ray library")
}

/// `compare` on a command list names the `dispatch_rays` event and the ray behind a
/// differing texel (docs/capture.md): DispatchRays(2, 1, 1) over a 4×2 image cleared
/// to 7; ray (1, 0) starts at ((1 + 0.5) / 2, (0 + 0.5) / 1) = (0.75, 0.5), beside the
/// triangle (x + y > 1), so it misses and its texel's red is -0 (ray_tracing.toml's
/// header, the same programs).
#[test]
fn compare_names_the_event_and_ray_of_a_list() {
    if job("ray_tracing").is_none() {
        return;
    }
    let lib = |n: &str| format!("{:?}", library_dir().join(format!("ray_tracing.{n}.dxil")));
    let text = format!(
        "[[acceleration_structure]]\nname = \"tri\"\nlevel = \"bottom\"\n\
[[acceleration_structure.geometry]]\ntype = \"triangles\"\nopaque = true\n\
vertices = {{ f32 = [0, 0, 0, 1, 0, 0, 0, 1, 0] }}\n\
[[acceleration_structure]]\nname = \"scene\"\nlevel = \"top\"\n\
[[acceleration_structure.instance]]\nblas = \"tri\"\nid = 3\ntransform = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 5]\n\
[[resource]]\nname = \"tlas\"\nkind = \"acceleration_structure\"\nacceleration_structure = \"scene\"\n\
[[resource]]\nname = \"image\"\nkind = \"texture2d\"\nformat = \"R32G32B32A32_FLOAT\"\nwidth = 4\nheight = 2\n\
[[command]]\ntype = \"clear_unordered_access\"\nresource = \"image\"\nfloat = [7, 7, 7, 7]\n\
[[command]]\ntype = \"dispatch_rays\"\nlibraries = [{}, {}, {}, {}]\n\
dispatch = [2, 1, 1]\nraygen = \"raygen\"\nmiss = [\"miss\"]\n\
hit_groups = [{{ closest_hit = \"closest_hit\" }}]\ncallable = [\"callable\"]\n\
max_recursion_depth = 1\nmax_payload_size = 20\nmax_attribute_size = 8\n\
bind = [{{ reg = \"t0\", resource = \"tlas\" }}, {{ reg = \"u0\", resource = \"image\" }}]\n",
        lib("raygen"),
        lib("miss"),
        lib("closest_hit"),
        lib("callable"),
    );
    let dir = common::scratch().join("debug_rays_list");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("list.toml"), text).unwrap();
    let run = |args: &[&str]| {
        Command::new(env!("CARGO_BIN_EXE_dxlane"))
            .args(args)
            .current_dir(&dir)
            .output()
            .unwrap()
    };
    let o = run(&[
        "run",
        "list.toml",
        "--threads",
        "1",
        "-q",
        "--record",
        "cap",
    ]);
    assert!(o.status.success(), "{o:?}");
    let bin = std::fs::read_dir(dir.join("cap"))
        .unwrap()
        .map(|e| e.unwrap().path())
        .find(|p| p.extension().is_some_and(|x| x == "bin"))
        .unwrap();
    let mut b = std::fs::read(&bin).unwrap();
    assert_eq!(b[16..20], [0, 0, 0, 0x80], "texel (1, 0) red is -0");
    b[16] ^= 1;
    std::fs::write(&bin, b).unwrap();
    let o = run(&[
        "compare",
        "list.toml",
        "cap",
        "--json",
        "--no-images",
        "--no-explain",
    ]);
    assert_eq!(o.status.code(), Some(1), "{o:?}");
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    let w = &v["resources"][0]["mismatches"][0]["writer"];
    assert_eq!(w["lane"], "event 2 (dispatch_rays): ray (1, 0, 0)");
    assert_eq!(w["event"], 2);
    assert_eq!(w["ray"], json!([1, 0, 0]));
    assert_eq!(w["debug"], "dxlane debug list.toml --event 2 --ray 1,0,0");

    // The debugger's lookup finds the same event and ray, the clear before it not.
    let o = run(&[
        "debug",
        "list.toml",
        "--texel",
        "image",
        "1,0",
        "--threads",
        "1",
    ]);
    let out = String::from_utf8_lossy(&o.stdout);
    assert!(o.status.success(), "{o:?}");
    assert!(
        out.contains("event 2: image (1, 0) (bytes 00 00 00 80 00 00 00 80 9a 99 19 bf 00 00 80 bf) was last written by ray (1, 0, 0) (--ray 1,0,0)"),
        "{out}"
    );
    // Texel (3, 0): no ray of DispatchRays(2, 1, 1) writes it; the clear (event 1) did.
    let o = run(&[
        "debug",
        "list.toml",
        "--texel",
        "image",
        "3,0",
        "--threads",
        "1",
    ]);
    assert_eq!(o.status.code(), Some(3), "{o:?}");
    let err = String::from_utf8_lossy(&o.stderr);
    assert!(
        err.contains("was last changed by event 1 ([[command]] #1, a clear_unordered_access)"),
        "{err}"
    );
}

/// The ray write attribution (`job::writers::RayWriters`, docs/capture.md): a word's
/// last writer is the last write heard; a write through another program's bindings
/// counts only when that program's list names the binding (each program indexes its own
/// resource ranges); writes by two programs of the same ray do not make the word
/// contested, a write by another ray does.
#[test]
fn ray_writers_keep_the_last_ray_and_program() {
    use dxlane::exec::{Binding, Invocation, MemWrite, WriteSink, WriteTarget, Xyz};
    use dxlane::ir::{InstId, Stage};
    use dxlane::job::writers::RayWriters;
    let b0 = Binding::Range {
        range: 0,
        element: 0,
    };
    let b1 = Binding::Range {
        range: 1,
        element: 0,
    };
    // Program 0 (ray generation) writes the resource through range 1; program 1
    // (closest-hit) through range 0.
    let map = RayWriters::new(vec![vec![vec![b1], vec![b0]]]);
    let write = |b: Binding, ray: [u32; 3], stage: Stage, program: u32, inst: u32| MemWrite {
        target: WriteTarget::Resource(b),
        addr: 16,
        bytes: 4,
        value: [1, 0, 0, 0],
        atomic: false,
        lane: 0,
        invocation: Invocation::Ray {
            index: Xyz(ray),
            stage,
            program,
        },
        inst: InstId(inst),
    };
    // Range 0 of the ray-generation program is another resource: not heard.
    map.write(&write(b0, [0, 0, 0], Stage::RayGeneration, 0, 3));
    assert_eq!(map.writer(0, 16), None);
    map.write(&write(b1, [1, 0, 0], Stage::RayGeneration, 0, 4));
    map.write(&write(b0, [1, 0, 0], Stage::ClosestHit, 1, 5));
    let w = map.writer(0, 18).unwrap();
    assert_eq!(w.inst, InstId(5));
    assert_eq!(w.writes, 2);
    assert!(!w.contested, "two programs of one ray");
    assert!(matches!(w.invocation, Invocation::Ray { program: 1, .. }));
    map.write(&write(b1, [2, 0, 0], Stage::RayGeneration, 0, 4));
    let w = map.writer(0, 16).unwrap();
    assert!(w.contested, "another ray");
    assert!(matches!(
        w.invocation,
        Invocation::Ray {
            index: Xyz([2, 0, 0]),
            ..
        }
    ));
    assert_eq!(map.writer(0, 20), None);
}

/// The first line of `out` that starts with `prefix`, or a failure showing `out`.
fn line_with<'a>(out: &'a str, prefix: &str) -> &'a str {
    out.lines()
        .find(|l| l.starts_with(prefix))
        .unwrap_or_else(|| panic!("no line starting with {prefix:?} in:\n{out}"))
}

/// `step` at the `TraceRay` (listing line 58) of ray (0, 0) enters the closest-hit
/// program (hit group 0, instance 0 with ID 3, primitive 0, t = 5: ray_tracing.toml's
/// header), whose own steps, registers and system values the session shows: its
/// RayTCurrent() is the hit's t, 5 (DXR spec "RayTCurrent"), its RayTMin() the
/// TraceRay's 0.001, so its first add leaves 5.001; WorldRayOrigin() is the ray's
/// origin (0.125, 0.25, 0), InstanceID() 3, PrimitiveIndex() 0; the payload starts as
/// the caller passed it (-1.0). `bt` shows the program over the ray-generation frame;
/// `finish` returns to the caller's next step, where the load of the distance reads
/// 5.001. (docs/debugger.md "Ray lanes")
#[test]
fn step_into_the_closest_hit_and_finish() {
    let Some(mut d) = open("ray_tracing", [0, 0, 0]) else {
        return;
    };
    d.execute("break 58").unwrap();
    d.execute("continue").unwrap();
    assert_eq!(d.position(), 17);
    let out = d.execute("step").unwrap();
    assert!(
        out.contains("\n    enters closest-hit \"closest_hit\" of hit group 0 (\"triangle\") for instance 0 (ID 3), primitive 0, geometry 0, RayTCurrent 5.0, HitKind 255\n"),
        "{out}"
    );
    let w = d.execute("where").unwrap();
    assert!(
        w.starts_with("closest-hit \"closest_hit\" of hit group 0 (\"triangle\") for instance 0 (ID 3), primitive 0, geometry 0, RayTCurrent 5.0, HitKind 255, invoked by TraceRay at step 17 of ray generation of DispatchRaysIndex (0, 0, 0); step 0 of "),
        "{w}"
    );
    assert!(
        w.contains("next line 23 (#0): %1 = call float @dx.op.rayTCurrent.f32(i32 154)"),
        "{w}"
    );
    let v = d
        .execute("print RayTCurrent, RayTMin, WorldRayOrigin, InstanceID, PrimitiveIndex, payload")
        .unwrap();
    let v: Vec<&str> = v.lines().collect();
    assert_eq!(v[0], "RayTCurrent = 5.0 (0x40a00000)");
    assert_eq!(v[1], "RayTMin = 0.001 (0x3a83126f)");
    assert_eq!(
        v[2],
        "WorldRayOrigin = (0.125 (0x3e000000), 0.25 (0x3e800000), 0.0 (0x00000000))"
    );
    assert_eq!(v[3], "InstanceID = 3 (0x00000003)");
    assert_eq!(v[4], "PrimitiveIndex = 0 (0x00000000)");
    assert!(
        v[5].starts_with("payload = (-1.0 (0xbf800000), 0 (0x00000000)"),
        "{}",
        v[5]
    );
    let out = d.execute("step 3").unwrap();
    assert!(out.contains("wrote %3 = 5.001 (0x40a00831)"), "{out}");
    assert_eq!(d.execute("print %3").unwrap(), "%3 = 5.001 (0x40a00831)");
    let bt = d.execute("bt").unwrap();
    let bt: Vec<&str> = bt.lines().collect();
    assert_eq!(bt.len(), 2, "{bt:?}");
    assert!(
        bt[0].starts_with("#0 closest-hit \"closest_hit\" of hit group 0 (\"triangle\") for instance 0 (ID 3), primitive 0, geometry 0, RayTCurrent 5.0, HitKind 255: step 3, line 26 (#3):"),
        "{bt:?}"
    );
    assert!(
        bt[1].starts_with("#1 ray generation of DispatchRaysIndex (0, 0, 0): step 17, line 58 (#26): call void @dx.op.traceRay"),
        "{bt:?}"
    );
    let w = d.execute("finish").unwrap();
    assert!(
        w.starts_with("lane 0 of ray-generation wave 0 (ray generation of DispatchRaysIndex (0, 0, 0)), step 18 of 29: next line 61 (#29)"),
        "{w}"
    );
    assert_eq!(d.position(), 18);
    d.execute("step").unwrap();
    assert_eq!(d.execute("print %24").unwrap(), "%24 = 5.001 (0x40a00831)");
}

/// A ray beside the triangle ((3, 0)) runs the miss program: `step` at its `TraceRay`
/// enters it; its RayTCurrent() is the ray's TMax, 1000 (DXR spec "RayTCurrent": in a
/// miss program, TMax), DispatchRaysIndex() (3, 0, 0), RayFlags() the TraceRay's 0.
/// Then `step` at the `CallShader` (line 64) enters the callable program, whose
/// parameter is the -1.0 the miss left; stepping through its four steps returns to the
/// caller with what the call did, and the caller reads -2.0 (the callable doubles it).
#[test]
fn step_into_the_miss_and_the_callable() {
    let Some(mut d) = open("ray_tracing", [3, 0, 0]) else {
        return;
    };
    d.execute("break 58").unwrap();
    d.execute("continue").unwrap();
    let out = d.execute("step").unwrap();
    assert!(
        out.contains("\n    enters miss \"miss\" of miss record 0\n"),
        "{out}"
    );
    let v = d
        .execute("print RayTCurrent, DispatchRaysIndex, RayFlags")
        .unwrap();
    assert_eq!(
        v,
        "RayTCurrent = 1000.0 (0x447a0000)\nDispatchRaysIndex = (3 (0x00000003), 0 (0x00000000), 0 (0x00000000))\nRayFlags = 0 (0x00000000)"
    );
    // A miss program has no hit: HitKind() is not one of its values.
    let e = d.execute("print HitKind").unwrap_err().to_string();
    assert!(e.contains("HitKind"), "{e}");
    d.execute("break 64").unwrap();
    let out = d.execute("continue").unwrap();
    assert!(out.starts_with("breakpoint 2: line 64"), "{out}");
    let out = d.execute("step").unwrap();
    assert!(
        out.contains("\n    enters callable \"callable\" of callable record 0\n"),
        "{out}"
    );
    assert_eq!(
        d.execute("print payload").unwrap(),
        "payload = (-1.0 (0xbf800000))"
    );
    let out = d.execute("step 4").unwrap();
    assert!(
        out.contains("callable \"callable\": [2] line 21 (#3): store float %3, float* %1"),
        "{out}"
    );
    let back = line_with(&out, "returned to ");
    assert!(
        back.starts_with("returned to ray generation of DispatchRaysIndex (3, 0, 0): [20] line 64 (#32): call void @dx.op.callShader"),
        "{out}"
    );
    assert!(
        out.contains("ran callable \"callable\" of callable record 0: payload (-1.0 (0xbf800000)) → (-2.0 (0xc0000000))"),
        "{out}"
    );
    assert!(
        d.execute("where")
            .unwrap()
            .starts_with("lane 3 of ray-generation wave 0")
    );
    assert_eq!(d.position(), 21);
}

/// The non-opaque triangle (ray_tracing_any_hit.toml): `step` at ray (0, 0)'s
/// `TraceRay` enters the any-hit program of hit group 1 ("alpha"), with the hit's
/// barycentrics (0.125, 0.25) as its attributes (DXR spec
/// "BuiltInTriangleIntersectionAttributes") and HitKind() 255, a back face
/// (HIT_KIND_TRIANGLE_BACK_FACE); after it, the miss program (the hit was ignored).
#[test]
fn step_into_the_any_hit() {
    let Some(mut d) = open("ray_tracing_any_hit", [0, 0, 0]) else {
        return;
    };
    d.execute("break 58").unwrap();
    d.execute("continue").unwrap();
    let out = d.execute("step").unwrap();
    assert!(
        out.contains("\n    enters any-hit \"any_hit\" of hit group 1 (\"alpha\") for instance 0 (ID 3), primitive 0, geometry 0, RayTCurrent 5.0, HitKind 255\n"),
        "{out}"
    );
    assert_eq!(
        d.execute("print attributes, HitKind").unwrap(),
        "attributes = (0.125 (0x3e000000), 0.25 (0x3e800000))\nHitKind = 255 (0xff)"
            .replace("0xff)", "0x000000ff)")
    );
    // The any-hit program's steps end; the miss program's come next, then the caller's.
    let mut out = String::new();
    for _ in 0..40 {
        out.push_str(&d.execute("step").unwrap());
        out.push('\n');
    }
    assert!(
        out.contains("\n    then miss \"miss\" of miss record 0\n"),
        "{out}"
    );
    let miss_step = line_with(&out, "miss \"miss\": [0]");
    assert!(miss_step.contains("line 18"), "{out}");
    assert!(
        out.contains("returned to ray generation of DispatchRaysIndex (0, 0, 0): [17] line 58"),
        "{out}"
    );
}

/// The procedural box (ray_tracing_procedural.toml): `step` at ray (1, 0)'s `TraceRay`
/// enters the intersection program of record 1 ("sphere"), whose candidate the ray meets
/// where it enters the box; before it reports a hit its RayTCurrent() is the ray's TMax,
/// 1000 (DXR spec "RayTCurrent": the closest committed t so far), which the session says
/// is as the program started.
#[test]
fn step_into_the_intersection() {
    let Some(mut d) = open("ray_tracing_procedural", [1, 0, 0]) else {
        return;
    };
    d.execute("break 58").unwrap();
    d.execute("continue").unwrap();
    let out = d.execute("step").unwrap();
    assert!(
        out.contains("\n    enters intersection \"intersection\" of hit group 1 (\"sphere\") for instance 0 (ID 3), primitive 0, geometry 0, its AABB entered at t 1.0\n"),
        "{out}"
    );
    let v = d.execute("print RayTCurrent, InstanceIndex").unwrap();
    assert_eq!(
        v,
        "RayTCurrent = 1000.0 (0x447a0000) (as the program started; its accepted ReportHit calls lower it)\nInstanceIndex = 0 (0x00000000)"
    );
    let bt = d.execute("bt").unwrap();
    assert!(
        bt.starts_with("#0 intersection \"intersection\" of hit group 1 (\"sphere\")"),
        "{bt}"
    );
    // `finish` goes to the caller's next step, past the any-hit and closest-hit
    // programs the same TraceRay ran after it.
    let w = d.execute("finish").unwrap();
    assert!(w.starts_with("lane 1 of ray-generation wave 0"), "{w}");
    assert_eq!(d.position(), 18);
}

/// `break closest_hit:25` stops at line 25 of the closest-hit program's listing (its
/// add) inside the call, wherever `continue` starts; plain `break 58` stays the
/// ray-generation program's; `reverse-continue` from the end stops at the program's
/// breakpoint again, and `back`/`step` cross the boundary restoring its values exactly.
#[test]
fn a_breakpoint_in_the_closest_hit() {
    let Some(mut d) = open("ray_tracing", [0, 0, 0]) else {
        return;
    };
    let b = d.execute("break closest_hit:25").unwrap();
    assert_eq!(
        b,
        "breakpoint 1: closest_hit:25: %3 = fadd fast float %2, %1"
    );
    let out = d.execute("continue").unwrap();
    assert!(out.starts_with("breakpoint 1: closest_hit:25:"), "{out}");
    let w = d.execute("where").unwrap();
    assert!(w.starts_with("closest-hit \"closest_hit\""), "{w}");
    assert!(w.contains("; step 2 of "), "{w}");
    assert_eq!(d.execute("print %2").unwrap(), "%2 = 0.001 (0x3a83126f)");
    let out = d.execute("step").unwrap();
    assert!(out.contains("wrote %3 = 5.001 (0x40a00831)"), "{out}");
    let out = d.execute("back 3").unwrap();
    assert!(out.contains("; step 0 of "), "{out}");
    let e = d.execute("print %2").unwrap();
    assert!(e.contains("not computed") || e.contains("not"), "{e}");
    // Back once more: the caller, before its TraceRay.
    let w = d.execute("back").unwrap();
    assert!(w.contains("step 17 of 29: next line 58"), "{w}");
    assert_eq!(
        d.execute("print alloca2[0]").unwrap(),
        "alloca2[0] = -1.0 (0xbf800000)"
    );
    // Forward again, the call runs the program again, and stops there again.
    let out = d.execute("continue").unwrap();
    assert!(out.starts_with("breakpoint 1: closest_hit:25:"), "{out}");
    let end = d.execute("continue").unwrap();
    assert!(end.contains("the lane has finished"), "{end}");
    let out = d.execute("reverse-continue").unwrap();
    assert!(out.starts_with("breakpoint 1: closest_hit:25:"), "{out}");
    let bps = d.execute("breakpoints").unwrap();
    assert_eq!(bps, "1: closest_hit:25: %3 = fadd fast float %2, %1");
    // A name that is no export is the listing's `FILE:LINE` (not this program's).
    assert!(d.execute("break nosuch:25").is_err());
    let e = d.execute("break closest_hit:1").unwrap_err().to_string();
    assert!(e.contains("line 1 holds no instruction"), "{e}");
}

/// `why` on the distance the ray-generation program loads after its `TraceRay` goes
/// into the closest-hit program that wrote it: its store of the payload word (line 79)
/// and, on, the add of RayTCurrent() and RayTMin() (line 25) that made 5.001.
#[test]
fn why_goes_into_the_closest_hit() {
    let Some(mut d) = open("ray_tracing", [0, 0, 0]) else {
        return;
    };
    d.execute("break 63").unwrap();
    d.execute("continue").unwrap();
    let why = d.execute("why %24 10").unwrap();
    assert!(
        why.contains("payload word 0 written by closest-hit \"closest_hit\""),
        "{why}"
    );
    assert!(
        why.contains("payload[0] = 5.001 (0x40a00831) ← line 79 (#56): store float %3, float* %56, align 4 [step 47]"),
        "{why}"
    );
    assert!(
        why.contains(
            "%3 = 5.001 (0x40a00831) ← line 25 (#2): %3 = fadd fast float %2, %1 [step 2]"
        ),
        "{why}"
    );
    assert!(
        why.contains(
            "%1 = 5.0 (0x40a00000) ← line 23 (#0): %1 = call float @dx.op.rayTCurrent.f32"
        ),
        "{why}"
    );
    assert!(why.contains("what TraceRay passed in:"), "{why}");
}

/// DAP inside a program a ray invoked: after `stepIn` at the `TraceRay` (a breakpoint at
/// listing line 58 stops there), `stackTrace` has a frame per program, innermost first —
/// the closest-hit program on its own listing (a `sourceReference` the `source` request
/// serves), then the ray-generation program at its `TraceRay`, line 58 — and the
/// selected frame's `scopes` and `variables` are that program's: after three steps the
/// closest-hit's `%3` holds 5.001 (RayTCurrent() 5 + RayTMin() 0.001).
#[test]
fn dap_stack_frames_inside_the_closest_hit() {
    if job("ray_tracing").is_none() {
        return;
    }
    let Some(j) = corpus_job("tests/jobs/corpus/ray_tracing.toml") else {
        return;
    };
    let mut c = Client::start();
    c.open(json!({ "job": j, "ray": [0, 0, 0], "threads": 1 }));
    c.ok(
        "setBreakpoints",
        json!({ "source": { "sourceReference": 1 }, "breakpoints": [{ "line": 58 }] }),
    );
    c.configured();
    c.step("continue", 1);
    for _ in 0..4 {
        c.step("stepIn", 1);
    }
    let st = c.ok("stackTrace", json!({ "threadId": 1 }));
    let frames = st["stackFrames"].as_array().unwrap().clone();
    assert_eq!(frames.len(), 2, "{st}");
    assert!(
        frames[0]["name"].as_str().unwrap().starts_with(
            "closest-hit \"closest_hit\" of hit group 0 (\"triangle\") for instance 0 (ID 3)"
        ),
        "{st}"
    );
    assert_eq!(frames[0]["line"], 26, "{st}");
    assert!(
        frames[1]["name"]
            .as_str()
            .unwrap()
            .starts_with("ray generation of DispatchRaysIndex (0, 0, 0)"),
        "{st}"
    );
    assert_eq!(frames[1]["line"], 58, "{st}");
    assert_eq!(frames[1]["source"]["sourceReference"], 1, "{st}");
    let src = frames[0]["source"]["sourceReference"].as_i64().unwrap();
    assert_ne!(src, 1, "{st}");
    let text = c.ok("source", json!({ "sourceReference": src }));
    assert!(
        text["content"]
            .as_str()
            .unwrap()
            .contains("%3 = fadd fast float %2, %1"),
        "{text}"
    );
    let scopes = c.ok("scopes", json!({ "frameId": frames[0]["id"] }));
    let r = scopes["scopes"][0]["variablesReference"].clone();
    let vars = c.ok("variables", json!({ "variablesReference": r }));
    let found = vars["variables"].as_array().unwrap().iter().any(|v| {
        v["name"] == "%3"
            && v["value"]
                .as_str()
                .unwrap_or("")
                .contains("5.001 (0x40a00831)")
    });
    assert!(found, "{vars}");
    // The caller's frame: its values before the call (the payload's distance is -1).
    let scopes = c.ok("scopes", json!({ "frameId": frames[1]["id"] }));
    let r = scopes["scopes"][0]["variablesReference"].clone();
    let vars = c.ok("variables", json!({ "variablesReference": r }));
    assert!(
        !vars["variables"]
            .as_array()
            .unwrap()
            .iter()
            .any(|v| v["name"] == "%24"),
        "{vars}"
    );
    c.ok("disconnect", json!({}));
    assert_eq!(c.finish(), 0);
}
