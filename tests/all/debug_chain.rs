//! The debugger's lane chain through every stage (docs/debugger.md "Geometry, hull and
//! domain lanes"): a pixel lane names the geometry lane that made its primitive, a
//! geometry lane the domain (or vertex) lanes of its input vertices, a domain lane the
//! hull lanes of its control points and patch constants, a hull lane the vertex lanes
//! of its control points — each hop followed here by the flags the line gives, with
//! the value it carries derived by hand.

use super::common;
use super::debug::{gs_after_ds_job_file, line_after, session};

/// `tessellation_stages::gs_after_ds_job` drawn twice (`instance_count = 2`), written
/// where `dxlane` can read it.
fn two_instance_job() -> String {
    let one = gs_after_ds_job_file();
    let text = std::fs::read_to_string(&one).unwrap().replace(
        "vertex_count = 6\n",
        "vertex_count = 6\ninstance_count = 2\n",
    );
    let dir = common::scratch().join("debug-chain-instanced");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("job.toml");
    // Several tests ask for the file at once.
    common::write_whole(&path, &text);
    path.display().to_string()
}

/// The flags at the end of the first line of `text` holding `said` (`… (--flag v …)`).
fn flags_after(text: &str, said: &str) -> Vec<String> {
    let line = text
        .lines()
        .find(|l| l.contains(said))
        .unwrap_or_else(|| panic!("no line with `{said}` in\n{text}"));
    let (_, flags) = line
        .rsplit_once(" (--")
        .unwrap_or_else(|| panic!("no flags in `{line}`"));
    format!("--{}", flags.trim_end_matches(')'))
        .split(' ')
        .map(str::to_string)
        .collect()
}

/// `s` split into command-line words.
fn flags_of(s: &str) -> Vec<String> {
    s.split(' ').map(str::to_string).collect()
}

/// Opens `job` with `flags` and runs `script`; exit status 0.
fn open(job: &str, flags: &[String], script: &str) -> String {
    let mut args = vec!["debug", job];
    args.extend(flags.iter().map(String::as_str));
    args.extend_from_slice(&["-c", script]);
    let (text, code) = session(&args);
    assert_eq!(code, 0, "{text}");
    text
}

/// The whole chain on a vs → hs → tessellator → ds → gs → ps draw of two instances
/// (`gs_after_ds.hlsl`; every factor 1, so tri patch p makes one triangle of its
/// corner points, domain point 0 at (u, v, w) = (0, 1, 0), D3D11.3 §11.7.5). Pixel
/// (1, 1) is covered by the point the geometry program emitted for patch 1's domain
/// point 0 in each instance (primitive order is instance by instance, so `--prim d` is
/// instance d's). Each hop, in instance d:
/// - the pixel's primitive came from geometry input primitive 1 (patch 1's triangle,
///   §13.2), instance d;
/// - that lane's first emitted `o0` is its input vertex 0, `v[0][0]` = (−0.625, 0.625,
///   0.5, 1), made by domain patch 1, point 0 of instance d;
/// - that domain lane puts the point at u·P0 + v·P1 + w·P2 = P1, so its `o0.x` comes
///   from `vicp[1][0].x` = −0.625, made by hull patch 1's control point 1 (§11: a domain
///   lane reads the hull's output control points);
/// - that hull lane returns input control point 1 (`v[vOutputControlPointID][0]`), which
///   the input assembler fed from vertex 4 (patch 1 is vertices 3, 4, 5 of a
///   non-indexed draw, §10.5), instance d;
/// - vertex lane 4 of instance d outputs the vertex buffer's fifth position, the centre
///   of pixel (1, 1): (−0.625, 0.625, 0.5).
#[test]
fn the_chain_from_a_pixel_to_its_vertex_lane_in_each_instance() {
    let job = two_instance_job();
    for d in 0..2u32 {
        let px = open(
            &job,
            &[
                "--pixel".into(),
                "1,1".into(),
                "--prim".into(),
                d.to_string(),
            ],
            "inputs",
        );
        let gs_flags = flags_after(&px, "the primitive's leading vertex was made by");
        assert_eq!(
            gs_flags.join(" "),
            format!("--gs-primitive 1 --gs-instance 0 --instance {d}"),
            "{px}"
        );
        let gs = open(&job, &gs_flags, "step 6; why o0.x; inputs");
        let said = format!(
            "v[0][0].x = -0.625 (0xbf200000): an input of the lane, from the pipeline: input vertex 0 was made by domain patch 1, domain point 0, draw instance {d} (--ds-patch 1 --ds-point 0 --instance {d})"
        );
        assert!(gs.contains(&said), "{gs}");
        for j in 0..3 {
            assert!(
                gs.contains(&format!(
                    "input vertex {j} was made by domain patch 1, domain point {j}, draw instance {d}"
                )),
                "inputs: {gs}"
            );
        }
        let ds_flags = flags_after(&gs, "input vertex 0 was made by");
        let ds = open(&job, &ds_flags, "continue; outputs; why o0.x");
        assert!(
            line_after(&ds, "o0.xyzw SV_Position: ")
                .starts_with("-0.625 (0xbf200000), 0.625 (0x3f200000), 0.5 (0x3f000000), 1.0"),
            "{ds}"
        );
        let said = format!(
            "vicp[1][0].x = -0.625 (0xbf200000): an input of the lane, from the pipeline: control point 1 was made by hull patch 1, control point 1, draw instance {d} (--hs-patch 1 --control-point 1 --instance {d})"
        );
        assert!(ds.contains(&said), "{ds}");
        let hs_flags = flags_after(&ds, "control point 1 was made by");
        let hs = open(&job, &hs_flags, "continue; outputs; why o0.x");
        // The patch-constant lane of the same patch reads the control-point lanes'
        // outputs (`vocp`, D3D11.3 §10: after every control point is computed).
        let pc = open(
            &job,
            &flags_of(&format!("--hs-patch 1 --patch-constant --instance {d}")),
            "inputs",
        );
        assert!(
            pc.contains(&format!(
                "output control point 2 was made by hull patch 1, control point 2, draw instance {d} (--hs-patch 1 --control-point 2 --instance {d})"
            )),
            "{pc}"
        );
        assert!(
            line_after(&hs, "o0.xyz POSITION0: ")
                .starts_with("-0.625 (0xbf200000), 0.625 (0x3f200000), 0.5"),
            "{hs}"
        );
        let said = format!(
            "v[1][0].x = -0.625 (0xbf200000): an input of the lane, from the pipeline: control point 1 was made by vertex 4, draw instance {d} (--vertex 4 --instance {d})"
        );
        assert!(hs.contains(&said), "{hs}");
        let vs_flags = flags_after(&hs, "control point 1 was made by");
        let vs = open(&job, &vs_flags, "where; continue; outputs");
        assert!(
            line_after(&vs, "o0.xyz POSITION0: ")
                .starts_with("-0.625 (0xbf200000), 0.625 (0x3f200000), 0.5"),
            "{vs}"
        );
        if d == 0 {
            let text = format!("{px}{gs}{ds}{hs}{vs}").replace(&job, "JOB");
            common::assert_snapshot("debug/lane_chain.txt", &text);
        }
    }
}

/// A hull program without a control-point phase (the corpus's fxc-built
/// `min16_patch.plain.hs.dxbc`, `tests/jobs/debug_chain/pass_through.toml`): output
/// control point k is input control point k (D3D11.3 §10.5), so a domain lane's
/// control points are named by the vertex lanes that made them, and its patch constants
/// by the hull's patch-constant lane. In draw instance 1: the domain program's
/// `COLOR0.x` is control point 0's `COLOR.x` (0.5) times `PCDATA.x`, which the
/// patch-constant function set to control point 0's `COLOR.x` — from vertex 0, instance
/// 1 — so 0.25; that patch-constant lane's own `vicp[0][1].x` leads to the same vertex.
#[test]
fn a_pass_through_hull_leads_to_the_vertex_lanes() {
    if common::corpora().is_empty() {
        eprintln!("DXLANE_NO_CORPORA is set: the pass-through chain is not checked");
        return;
    }
    let job = "tests/jobs/debug_chain/pass_through.toml".to_string();
    let flags = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
    let ds = open(
        &job,
        &flags("--ds-patch 0 --ds-point 0 --instance 1"),
        "continue; outputs; why o1.x",
    );
    assert!(
        line_after(&ds, "o1.xyzw COLOR0: ").starts_with("0.25 (0x3e800000)"),
        "{ds}"
    );
    assert!(
        ds.contains("vicp[0][1].x = 0.5 (0x3f000000): an input of the lane, from the pipeline: control point 0 was made by vertex 0, draw instance 1 (--vertex 0 --instance 1), passed through by the hull program (it has no control-point phase)"),
        "{ds}"
    );
    assert!(
        ds.contains("vpc4.x = 0.5 (0x3f000000): an input of the lane, from the pipeline: the patch constants were made by hull patch 0, patch constants, draw instance 1 (--hs-patch 0 --patch-constant --instance 1)"),
        "{ds}"
    );
    let pc_flags = flags_after(&ds, "the patch constants were made by");
    let pc = open(&job, &pc_flags, "continue; why o4.x; inputs");
    // Its output control points (`vocp`) are the input control points passed through.
    for k in 0..3 {
        assert!(
            pc.contains(&format!(
                "output control point {k} was made by vertex {k}, draw instance 1 (--vertex {k} --instance 1)"
            )),
            "{pc}"
        );
    }
    assert!(
        pc.contains("vicp[0][1].x = 0.5 (0x3f000000): an input of the lane, from the pipeline: control point 0 was made by vertex 0, draw instance 1 (--vertex 0 --instance 1)"),
        "{pc}"
    );
    let vs = open(&job, &flags("--vertex 0 --instance 1"), "continue; outputs");
    assert!(
        line_after(&vs, "COLOR0: ").starts_with("0.5 (0x3f000000), 0.25"),
        "{vs}"
    );
    common::assert_snapshot(
        "debug/lane_chain_pass_through.txt",
        &format!("{ds}{pc}{vs}"),
    );
}

/// Inputs named as the listing indexes them, asked for wrongly: an input vertex past
/// the primitive's three, a register past those declared, a control point in a
/// geometry lane, a patch constant in a control-point lane — one line each naming the
/// place and what the lane has (a script stops there with exit status 1).
#[test]
fn chain_inputs_asked_for_wrongly() {
    let job = gs_after_ds_job_file();
    let mut text = String::new();
    for (lane, script) in [
        ("--gs-primitive 0", "print v[3][0]"),
        ("--gs-primitive 0", "print v[0][5].x"),
        ("--gs-primitive 0", "why vicp[0][0].x"),
        ("--hs-patch 0 --control-point 0", "print vpc0"),
        ("--ds-patch 0 --ds-point 0", "print vicp[1][0].y"),
    ] {
        let mut args = vec!["debug", job.as_str()];
        args.extend(lane.split(' '));
        args.extend_from_slice(&["-c", script]);
        let (t, code) = session(&args);
        let expect = if script.starts_with("print vicp[1]") {
            0
        } else {
            1
        };
        assert_eq!(code, expect, "{t}");
        text.push_str(&t);
    }
    assert!(
        text.contains("error: v[3][0]: the lane has 3 input vertex(s) (0 to 2)"),
        "{text}"
    );
    assert!(
        text.contains("vicp[1][0].y = 0.875 (0x3f600000)"),
        "patch 0's control point 1 is vertex 1, (−0.625, 0.875): {text}"
    );
    common::assert_snapshot("debug/lane_chain_bad_input.txt", &text.replace(&job, "JOB"));
}

/// The DXIL forms (`tests/jobs/corpus/tessellation_dxil.toml`, dxc's hs_6_0 and ds_6_0;
/// DXIL.rst: `LoadInput` with a control-point index, `LoadPatchConstant`): the domain
/// lane of patch 0's first point — (u, v, w) = (0, 1, 0), the tessellator's first point
/// of a tri patch (D3D11.3 §11.7.5) — computes `COLOR0.x` = Σ colour_k.x · location_k
/// = 0 from control point 1's `CTRL_COLOR.x` (0: P1 is green), named with the hull lane
/// that made it, and its position reads the patch constants (`CENTRE`), named with the
/// patch-constant lane; a geometry lane of `geometry_dxil.toml` names the vertex lanes
/// of its input vertices (`LoadInput` with a vertex index).
#[test]
fn the_chain_through_dxil_loads() {
    if common::corpora().is_empty() {
        eprintln!("DXLANE_NO_CORPORA is set: the DXIL chain is not checked");
        return;
    }
    let flags = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
    let job = "tests/jobs/corpus/tessellation_dxil.toml";
    let ds = open(
        job,
        &flags("--ds-patch 0 --ds-point 0"),
        "continue; outputs; why COLOR0.x; why SV_Position.x 40",
    );
    assert!(
        line_after(&ds, "COLOR0: ").starts_with("0.0 (0x00000000), 1.0 (0x3f800000), 0.0"),
        "{ds}"
    );
    assert!(
        ds.contains("CTRL_COLOR0.x of control point 1 = 0.0 (0x00000000): an input of the lane, from the pipeline: control point 1 was made by hull patch 0, control point 1, draw instance 0 (--hs-patch 0 --control-point 1 --instance 0)"),
        "{ds}"
    );
    assert!(
        ds.contains("CENTRE0.x (patch constant) = -0.75 (0xbf400000): an input of the lane, from the pipeline: the patch constants were made by hull patch 0, patch constants, draw instance 0 (--hs-patch 0 --patch-constant --instance 0)"),
        "{ds}"
    );
    let gs = open(
        "tests/jobs/corpus/geometry_dxil.toml",
        &flags("--gs-primitive 0 --gs-instance 1"),
        "inputs",
    );
    for j in 0..3 {
        assert!(
            gs.contains(&format!(
                "input vertex {j} was made by vertex {j}, draw instance 0 (--vertex {j} --instance 0)"
            )),
            "{gs}"
        );
    }
}

/// The DXBC join phase traced (`--join-phase`; D3D11.3 §10: join phases run after the
/// fork phases, once per patch): `tests/jobs/debug_chain/join_phase.toml`'s hull
/// program computes its patch constants in one join phase. The join lane of patch 0
/// writes edge 0 = min(2, 16) = 2 and CENTRE.x (`o0.y`, from `r1.x`) = (−1.75 + 0.25 −
/// 0.75) / 3 = −0.75, the mean of the control points' x, whose `why` names the vertex
/// lanes that fed them; the domain lane's patch constants name that join lane. A draw whose hull program
/// has no join phase refuses `--join-phase` in one line (exit status 2).
#[test]
fn the_join_phase_is_traced() {
    if common::corpora().is_empty() {
        eprintln!("DXLANE_NO_CORPORA is set: the join phase is not checked");
        return;
    }
    let flags = |s: &str| s.split(' ').map(str::to_string).collect::<Vec<_>>();
    let job = "tests/jobs/debug_chain/join_phase.toml";
    let join = open(
        job,
        &flags("--hs-patch 0 --join-phase"),
        "where; continue; outputs; why r1.x",
    );
    assert!(
        join.contains("hull join-phase wave 0 (hull patch 0, join phase, draw instance 0)"),
        "{join}"
    );
    assert!(
        line_after(&join, "o0.x SV_TessFactor: ").starts_with("2.0 (0x40000000)"),
        "{join}"
    );
    assert!(join.contains("r1.x = -0.75 (0xbf400000) ← "), "{join}");
    for (k, x) in [
        (0, "-1.75 (0xbfe00000)"),
        (1, "0.25 (0x3e800000)"),
        (2, "-0.75 (0xbf400000)"),
    ] {
        assert!(
            join.contains(&format!(
                "vicp[{k}][0].x = {x}: an input of the lane, from the pipeline: control point {k} was made by vertex {k}, draw instance 0 (--vertex {k} --instance 0)"
            )),
            "{join}"
        );
    }
    let ds = open(job, &flags("--ds-patch 0 --ds-point 0"), "inputs");
    assert!(
        ds.contains("the patch constants were made by hull patch 0, join phase, draw instance 0 (--hs-patch 0 --join-phase --instance 0)"),
        "{ds}"
    );
    let (no, code) = session(&[
        "debug",
        "examples/tessellation.toml",
        "--hs-patch",
        "0",
        "--join-phase",
    ]);
    assert_eq!(code, 2, "{no}");
    assert!(
        no.contains("--join-phase: the hull program has no join phase"),
        "{no}"
    );
    common::assert_snapshot("debug/lane_chain_join_phase.txt", &format!("{join}{no}"));
}

/// The join phase's hop to the fork phase (D3D11.3 §10: the join phases run after every
/// fork phase of the patch and read the fork phases' outputs as `vpc#`):
/// `tests/jobs/debug_chain/fork_join.toml`'s hull program writes the edge factors 3, 6,
/// 3 in its fork phase and the inside factor (vpc0.x + vpc1.x + vpc2.x) / 3 = 4 in its
/// join phase. In the join lane of patch 0, `why o3.x` walks back to the three `vpc`
/// reads and names, for each, the fork-phase lane of the patch that wrote them; `inputs`
/// says the same; that lane's outputs hold the edges.
#[test]
fn a_join_phase_names_the_fork_phase_lane_it_reads() {
    let job = "tests/jobs/debug_chain/fork_join.toml";
    let join = open(
        job,
        &flags_of("--hs-patch 0 --join-phase"),
        "continue; outputs; inputs; why o3.x",
    );
    assert!(
        line_after(&join, "o3.x SV_InsideTessFactor: ").starts_with("4.0 (0x40800000)"),
        "{join}"
    );
    let fork = "the fork phases' outputs were made by hull patch 0, patch constants, draw instance 0 (--hs-patch 0 --patch-constant --instance 0)";
    for (r, v) in [
        (0, "3.0 (0x40400000)"),
        (1, "6.0 (0x40c00000)"),
        (2, "3.0 (0x40400000)"),
    ] {
        assert!(
            join.contains(&format!(
                "vpc{r}.x = {v}: an input of the lane, from the pipeline: {fork}"
            )),
            "vpc{r}: {join}"
        );
    }
    let inputs = &join[join.find("(dxlane) inputs").unwrap()..join.find("(dxlane) why").unwrap()];
    assert!(inputs.contains(fork), "{join}");
    let pc = open(
        job,
        &flags_of("--hs-patch 0 --patch-constant"),
        "continue; outputs",
    );
    for (r, v) in [
        (0, "3.0 (0x40400000)"),
        (1, "6.0 (0x40c00000)"),
        (2, "3.0 (0x40400000)"),
    ] {
        let label = if r == 0 {
            "o0.x SV_TessFactor: ".to_string()
        } else {
            format!("o{r}.x SV_TessFactor{r}: ")
        };
        assert!(line_after(&pc, &label).starts_with(v), "{pc}");
    }
    common::assert_snapshot("debug/lane_chain_fork_join.txt", &format!("{join}{pc}"));
}

/// `compare` follows the same hop: pixel (4, 4) of the fork/join draw
/// ([`a_join_phase_names_the_fork_phase_lane_it_reads`]) chains to its domain lane, that
/// lane's control point 0 (the hull control-point lane, then its vertex lane) and its
/// patch constants (the join-phase lane), and from the join-phase lane to the fork-phase
/// lane whose outputs it read — each link the lane the debugger, opened on the lane it
/// fed, names.
#[test]
fn compare_links_go_from_the_join_phase_to_the_fork_phase() {
    let dir = common::scratch().join("compare-chain-fork-join");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let src = common::root().join("tests/jobs/debug_chain");
    let text = std::fs::read_to_string(src.join("fork_join.toml"))
        .unwrap()
        .replace(
            "../../../shaders",
            &common::root().join("shaders").display().to_string(),
        )
        .replace(
            "\"fork_join.hs",
            &format!("\"{}/fork_join.hs", src.display()),
        );
    std::fs::write(dir.join("fork_join.toml"), text).unwrap();
    // R8G8B8A8, 8 pixels a row.
    let w = compare_writer(&dir, "fork_join.toml", (4 * 8 + 4) * 4);
    let links = every_link_fed_the_next(&dir, "fork_join.toml", &w);
    let got: Vec<&str> = links.iter().map(|l| l["stage"].as_str().unwrap()).collect();
    assert_eq!(got, ["domain", "hull", "hull", "vertex", "hull"], "{w}");
    let last = links.last().unwrap();
    assert_eq!(
        last["debug"], "dxlane debug fork_join.toml --hs-patch 0 --patch-constant --instance 0",
        "{w}"
    );
    assert!(
        last["made"]
            .as_str()
            .unwrap()
            .contains("the fork phases' outputs"),
        "{w}"
    );
}

/// The debugger's chain through DXIL's hull loads (`tests/jobs/hs_loads/hs_loads.toml`,
/// its values derived there): in the patch-constant lane, edge factor 1 is output
/// control point 1's `POSITION.w` = 1, read by `LoadOutputControlPoint` and named with
/// the control-point lane that wrote it (D3D11.3 §10: the patch-constant phase reads the
/// control-point phase's outputs); the inside factor is output control point 0's w. In
/// the domain lane of point 2, (u, v, w) = (1, 0, 0), `COLOR0.x` = `SUM` + u = 0.25 + 1,
/// and `SUM`, read by `LoadPatchConstant`, is named with the patch-constant lane.
#[test]
fn the_chain_through_dxil_hull_loads() {
    let job = "tests/jobs/hs_loads/hs_loads.toml";
    let pc = open(
        job,
        &flags_of("--hs-patch 0 --patch-constant"),
        "continue; outputs; why SV_TessFactor[1]; why SV_InsideTessFactor",
    );
    assert!(
        line_after(&pc, "SUM0: ").starts_with("0.25 (0x3e800000)"),
        "{pc}"
    );
    assert!(
        pc.contains("POSITION0.w of output control point 1 = 1.0 (0x3f800000): an input of the lane, from the pipeline: output control point 1 was made by hull patch 0, control point 1, draw instance 0 (--hs-patch 0 --control-point 1 --instance 0)"),
        "{pc}"
    );
    assert!(
        pc.contains("POSITION0.w of output control point 0 = 1.0 (0x3f800000): an input of the lane, from the pipeline: output control point 0 was made by hull patch 0, control point 0, draw instance 0 (--hs-patch 0 --control-point 0 --instance 0)"),
        "{pc}"
    );
    let ds = open(
        job,
        &flags_of("--ds-patch 0 --ds-point 2"),
        "continue; outputs; why COLOR0.x",
    );
    assert!(
        line_after(&ds, "COLOR0: ").starts_with("1.25 (0x3fa00000), 1.0 (0x3f800000), 0.0"),
        "{ds}"
    );
    assert!(
        ds.contains("SUM0.x (patch constant) = 0.25 (0x3e800000): an input of the lane, from the pipeline: the patch constants were made by hull patch 0, patch constants, draw instance 0 (--hs-patch 0 --patch-constant --instance 0)"),
        "{ds}"
    );
}

/// `why` on SSA values in a DXIL patch-constant lane (`docs/debugger.md`, "Geometry,
/// hull and domain lanes": a patch-constant lane names its patch-constant function's
/// values, which number from `%1` as the entry function's do). In
/// `tests/jobs/hs_loads/hs_loads.toml`'s patch-constant lane, `%8` = `%7` + `%3` = SUM =
/// 0.25, `%7` = `%1` + `%2` = −0.25 + 0.375, each load of an output control point's
/// `POSITION.x` named with the control-point lane that made it (D3D11.3 §10: the
/// patch-constant phase reads the control-point phase's outputs). `print %3` is the
/// patch function's `%3` (output control point 2's x, 0.125), not the entry function's
/// `%3` (a product the control-point phase computes).
#[test]
fn why_follows_ssa_values_in_a_dxil_patch_constant_lane() {
    let job = "tests/jobs/hs_loads/hs_loads.toml";
    let pc = open(
        job,
        &flags_of("--hs-patch 0 --patch-constant"),
        "continue; print %3; why %8",
    );
    assert!(pc.contains("%3 = 0.125 (0x3e000000)"), "{pc}");
    let why = &pc[pc.find("(dxlane) why %8").unwrap()..];
    assert!(why.contains("%8 = 0.25 (0x3e800000) ← "), "{pc}");
    assert!(why.contains("%7 = 0.125 (0x3e000000) ← "), "{pc}");
    for (k, x) in [
        (0, "-0.25 (0xbe800000)"),
        (1, "0.375 (0x3ec00000)"),
        (2, "0.125 (0x3e000000)"),
    ] {
        assert!(
            why.contains(&format!(
                "POSITION0.x of output control point {k} = {x}: an input of the lane, from the pipeline: output control point {k} was made by hull patch 0, control point {k}, draw instance 0 (--hs-patch 0 --control-point {k} --instance 0)"
            )),
            "control point {k}: {pc}"
        );
    }
    // The control-point lane still names the entry function's values.
    let cp = open(
        job,
        &flags_of("--hs-patch 0 --control-point 1"),
        "continue; print %3",
    );
    assert!(cp.contains("%3 = 0.375 (0x3ec00000)"), "{cp}");
    common::assert_snapshot("debug/why_dxil_patch_constant.txt", &format!("{pc}{cp}"));
}

/// `dxlane ARGS` run in `dir`: its exit status and output (stdout, then stderr).
fn dxlane_in(dir: &std::path::Path, args: &[&str]) -> (Option<i32>, String) {
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args(args)
        .current_dir(dir)
        .output()
        .unwrap();
    let text = format!(
        "{}{}",
        String::from_utf8_lossy(&o.stdout),
        String::from_utf8_lossy(&o.stderr)
    );
    (o.status.code(), text)
}

/// Records `job` (in `dir`) into a capture, changes one byte of render target 0 at
/// byte `at` (a texel of pixel `pixel`), and returns `compare --json`'s writer of that
/// texel.
fn compare_writer(dir: &std::path::Path, job: &str, at: usize) -> serde_json::Value {
    let _ = std::fs::remove_dir_all(dir.join("cap"));
    let (code, text) = dxlane_in(
        dir,
        &["run", job, "--threads", "1", "-q", "--record", "cap"],
    );
    assert_eq!(code, Some(0), "{text}");
    let mut rt0 = std::fs::read(dir.join("cap/rt0.bin")).unwrap();
    rt0[at] ^= 1;
    std::fs::write(dir.join("cap/rt0.bin"), &rt0).unwrap();
    let o = std::process::Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args([
            "compare",
            job,
            "cap",
            "--json",
            "--no-explain",
            "--no-images",
        ])
        .current_dir(dir)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(1),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    let v: serde_json::Value = serde_json::from_slice(&o.stdout).unwrap();
    v["resources"][0]["mismatches"][0]["writer"].clone()
}

/// The flags of a `dxlane debug JOB …` command.
fn command_flags<'a>(debug: &'a str, job: &str) -> &'a str {
    debug
        .strip_prefix(&format!("dxlane debug {job} "))
        .unwrap_or_else(|| panic!("`{debug}` does not open {job}"))
}

/// Opens, for every link of `writer`'s chain, the lane it fed (its own flags, or the
/// pixel lane's for the first), and checks that the debugger's `inputs` there names the
/// link's lane in the same words and flags: `control point 0 was made by hull patch 1,
/// control point 0, draw instance 1 (--hs-patch 1 --control-point 0 --instance 1)`.
/// Returns the links.
fn every_link_fed_the_next(
    dir: &std::path::Path,
    job: &str,
    writer: &serde_json::Value,
) -> Vec<serde_json::Value> {
    let links = writer["origin"]
        .as_array()
        .unwrap_or_else(|| panic!("{writer}"))
        .clone();
    for link in &links {
        let fed = match link.get("fed") {
            Some(i) => &links[i.as_u64().unwrap() as usize]["debug"],
            None => &writer["debug"],
        };
        let stage = link["stage"].as_str().unwrap();
        let fed_stage = match link.get("fed") {
            Some(i) => links[i.as_u64().unwrap() as usize]["stage"]
                .as_str()
                .unwrap(),
            None => "pixel",
        };
        let made = link["made"].as_str().unwrap();
        let what = made
            .strip_prefix("made ")
            .and_then(|m| {
                m.strip_suffix(&format!(" of the {fed_stage} lane"))
                    .or(Some(m))
            })
            .unwrap();
        let verb = if what.ends_with('s') { "were" } else { "was" };
        let said = format!(
            "{what} {verb} made by {} ({})",
            link["lane"].as_str().unwrap(),
            command_flags(link["debug"].as_str().unwrap(), job)
        );
        let mut args = vec!["debug", job];
        args.extend(command_flags(fed.as_str().unwrap(), job).split(' '));
        args.extend(["-c", "inputs"]);
        let (code, text) = dxlane_in(dir, &args);
        assert_eq!(code, Some(0), "{text}");
        // A pixel lane of a vertex-and-pixel draw names no lane (its sessions read as
        // they always have): such a link is checked by the caller.
        if fed_stage == "pixel" && stage == "vertex" {
            continue;
        }
        assert!(
            text.contains(&said),
            "{stage} link {link}: the lane it fed says\n{text}"
        );
    }
    links
}

/// `compare` names a differing texel's whole lane chain, the debugger's (issue 33): on
/// the two-instance vs → hs → ds → gs → ps draw of
/// [`the_chain_from_a_pixel_to_its_vertex_lane_in_each_instance`], pixel (1, 1) is
/// written last by instance 1 (instances draw in order, D3D11.3 §8.6), so its chain is
/// that test's hops in instance 1: the geometry lane of input primitive 1; the domain
/// lane of patch 1, point 0, which made its input vertex 0; that lane's control point 0
/// from hull patch 1's control-point lane 0, and its patch constants from hull patch 1's
/// patch-constant lane; that control-point lane's input control point 0 from vertex 3
/// (patch 1 is vertices 3, 4, 5). Each link is the lane the debugger, opened on the
/// lane it fed, names.
#[test]
fn compare_links_follow_the_whole_chain() {
    let dir = common::scratch().join("compare-chain");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::copy(two_instance_job(), dir.join("job.toml")).unwrap();
    // R32G32B32A32_UINT, 8 pixels a row: pixel (1, 1) at 16 × 9.
    let w = compare_writer(&dir, "job.toml", 16 * 9);
    assert_eq!(
        w["debug"], "dxlane debug job.toml --pixel 1,1 --prim 1",
        "{w}"
    );
    let links = every_link_fed_the_next(&dir, "job.toml", &w);
    let got: Vec<(&str, &str, Option<u64>)> = links
        .iter()
        .map(|l| {
            (
                l["stage"].as_str().unwrap(),
                command_flags(l["debug"].as_str().unwrap(), "job.toml"),
                l.get("fed").and_then(serde_json::Value::as_u64),
            )
        })
        .collect();
    assert_eq!(
        got,
        [
            (
                "geometry",
                "--gs-primitive 1 --gs-instance 0 --instance 1",
                None
            ),
            ("domain", "--ds-patch 1 --ds-point 0 --instance 1", Some(0)),
            (
                "hull",
                "--hs-patch 1 --control-point 0 --instance 1",
                Some(1)
            ),
            (
                "hull",
                "--hs-patch 1 --patch-constant --instance 1",
                Some(1)
            ),
            ("vertex", "--vertex 3 --instance 1", Some(2)),
        ],
        "{w}"
    );
    // The text report prints each link and its command under the pixel lane's.
    let (code, text) = dxlane_in(
        &dir,
        &["compare", "job.toml", "cap", "--no-explain", "--no-images"],
    );
    assert_eq!(code, Some(1), "{text}");
    assert!(
        text.contains("             vertex 3, draw instance 1: made control point 0 of the hull lane\n             dxlane debug job.toml --vertex 3 --instance 1\n"),
        "{text}"
    );
}

/// The chain of a tessellated draw without a geometry program (`examples/tessellation.toml`:
/// one quad patch, its hull program passing control points through its control-point
/// phase) and of a geometry draw (`examples/sprites.toml`: points expanded to quads):
/// every link is the lane the debugger names from the lane it fed; the tessellated
/// chain ends at a vertex lane through the hull's control-point lane, the geometry one
/// at the vertex lane of the point.
#[test]
fn compare_links_of_tessellated_and_geometry_draws() {
    for (name, texel, stages) in [
        (
            "tessellation",
            (64u32, 64u32),
            &["domain", "hull", "hull", "vertex"][..],
        ),
        ("sprites", (64, 64), &["geometry", "vertex"][..]),
    ] {
        let dir = common::scratch().join(format!("compare-chain-{name}"));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let text = std::fs::read_to_string(common::root().join(format!("examples/{name}.toml")))
            .unwrap()
            .replace(
                "../shaders",
                &common::root().join("shaders").display().to_string(),
            );
        let job = format!("{name}.toml");
        std::fs::write(dir.join(&job), text).unwrap();
        // R8G8B8A8, 128 pixels a row.
        let w = compare_writer(&dir, &job, ((texel.1 * 128 + texel.0) * 4) as usize);
        let links = every_link_fed_the_next(&dir, &job, &w);
        let got: Vec<&str> = links.iter().map(|l| l["stage"].as_str().unwrap()).collect();
        assert_eq!(got, stages, "{name}: {w}");
    }
}

/// A draw of vertex and pixel programs alone: the chain is the vertex lane that made the
/// primitive's leading vertex (D3D11.3 §8.10 "Primitive Topologies": a triangle list's first vertex), here
/// vertex 0 of `examples/triangle.toml`'s one triangle.
#[test]
fn compare_links_of_a_vertex_and_pixel_draw() {
    let dir = common::scratch().join("compare-chain-triangle");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let text = std::fs::read_to_string(common::root().join("examples/triangle.toml"))
        .unwrap()
        .replace(
            "../shaders",
            &common::root().join("shaders").display().to_string(),
        )
        .replace(
            "\"data/",
            &format!("\"{}/", common::root().join("examples/data").display()),
        );
    std::fs::write(dir.join("triangle.toml"), text).unwrap();
    let w = compare_writer(&dir, "triangle.toml", (64 * 128 + 64) * 4);
    let links = every_link_fed_the_next(&dir, "triangle.toml", &w);
    assert_eq!(links.len(), 1, "{w}");
    assert_eq!(links[0]["stage"], "vertex", "{w}");
    assert_eq!(links[0]["lane"], "vertex 0, draw instance 0", "{w}");
    assert_eq!(
        links[0]["debug"], "dxlane debug triangle.toml --vertex 0 --instance 0",
        "{w}"
    );
    assert_eq!(
        links[0]["made"], "made the primitive's leading vertex",
        "{w}"
    );
}
