//! The examples of the geometry, tessellation and stream-output stages: the one-pass
//! cube map (`examples/frames/cube_map_one_pass.toml`) against the face-by-face frame,
//! the particle frame (`examples/frames/particles.toml`: stream output feeding a DrawAuto
//! draw), and the terrain (`examples/terrain.toml`: distance-based fractional_odd
//! factors that neighbouring patches share). Their pictures are checked against
//! `goldens/` with the other frames and draws (`command_list::frame_examples_*`,
//! `draw::draw_examples_match_goldens`); these tests check what the pictures alone
//! would not show. Values are worked out by hand from the programs in `shaders/`.

use std::collections::{HashMap, HashSet};
use std::path::PathBuf;

use dxlane::job::{Finished, Job, ListResult, prepare};

use crate::common;

/// Runs frame `name` (from `examples/frames/`, with `edit` applied to its text) in a
/// folder of its own.
fn run_frame(name: &str, tag: &str, edit: &dyn Fn(String) -> String) -> ListResult {
    let text = std::fs::read_to_string(
        common::root()
            .join("examples/frames")
            .join(format!("{name}.toml")),
    )
    .unwrap();
    let shaders = common::root().join("shaders");
    let text = edit(text.replace("../../shaders", &shaders.display().to_string()));
    let dir: PathBuf = common::scratch().join("stage_examples").join(tag);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("job.toml");
    std::fs::write(&path, text).unwrap();
    let job = Job::load(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
    let opts = common::run_options();
    match prepare(job, &opts)
        .and_then(|p| p.execute(&opts))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
    {
        Finished::List(r) => *r,
        _ => panic!("{name}: not a list"),
    }
}

/// The bytes of `[[resource]]` entry `index` (file order) after the list.
fn bytes(r: &ListResult, index: usize) -> Vec<u8> {
    let e = &r.bound.resources[index];
    match e.texture() {
        Some(t) => t.to_bytes(),
        None => e.memory().expect("storage").to_bytes(),
    }
}

fn words(r: &ListResult, index: usize) -> Vec<u32> {
    bytes(r, index)
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// D3D11.3's geometry-shader chapter (`SV_RenderTargetArrayIndex` selects the slice of
/// a render-target array view a primitive is drawn into) and D3D12's cube textures (a
/// cube is a 2D array of six faces; a render-target view of it is a 2D-array view):
/// one draw whose geometry program emits the triangle once per face with the face's
/// index draws, into a view of all six faces, exactly what six
/// draws into single-face views draw. The cube (every face, cleared colours included)
/// and the cross sampled from it equal the face-by-face frame's bit for bit, and one
/// face's texel is worked out by hand: face 3's triangle has corners (16.5, 4), (26.5,
/// 24), (6.5, 24) in the face, so texel (16, 16)'s centre weighs them 0.375, 0.3125,
/// 0.3125 and gets (0.8828, 0.9219, 0.8828, 1) → e1 eb e1 ff.
#[test]
fn a_cube_map_in_one_pass_equals_the_face_by_face_frame() {
    let one = run_frame("cube_map_one_pass", "one_pass", &|t| t);
    let faces = run_frame("cube_map", "face_by_face", &|t| t);
    assert_eq!(
        one.summary.expectations.failed, 0,
        "{:?}",
        one.summary.expectations
    );
    assert_eq!(faces.summary.expectations.failed, 0);
    let (cube, cross) = (bytes(&one, 0), bytes(&one, 1));
    assert_eq!(cube.len(), 6 * 32 * 32 * 4);
    assert!(cube == bytes(&faces, 0), "the cubes differ");
    assert!(cross == bytes(&faces, 1), "the crosses differ");
    let texel = 3 * 4096 + 4 * (32 * 16 + 16);
    assert_eq!(cube[texel..texel + 4], [0xe1, 0xeb, 0xe1, 0xff]);
    // Each face's triangle went to its own slice only: face k's texel (16, 16) is
    // inside triangle k, and every face's corner texel (0, 0) kept its clear colour.
    let clears: [[u8; 4]; 6] = [
        [0xcc, 0x33, 0x33, 0xff],
        [0x33, 0x99, 0x99, 0xff],
        [0x33, 0xbf, 0x33, 0xff],
        [0x99, 0x33, 0x99, 0xff],
        [0x33, 0x59, 0xcc, 0xff],
        [0xbf, 0xbf, 0x33, 0xff],
    ];
    for (k, clear) in clears.iter().enumerate() {
        assert_eq!(cube[k * 4096..k * 4096 + 4], *clear, "face {k}'s corner");
    }
    // The depth view of six slices: the triangle's z = 0 in face 3 at texel (16, 16),
    // 1.0 (as the job filled it) at every face's corner.
    let depth = words(&one, 4);
    assert_eq!(depth[3 * 1024 + 32 * 16 + 16], 0);
    for k in 0..6 {
        assert_eq!(depth[k * 1024], 1f32.to_bits(), "face {k}'s corner depth");
    }
}

/// A face index past the view's slices draws into the view's first slice (D3D12: an
/// out-of-range render-target array index makes the effective index 0; as
/// `command_list::an_array_index_past_the_view_renders_to_its_first_slice`, here with
/// a depth view of as many slices): with views of faces 0 to 2 only, copies 3, 4 and 5
/// all land in face 0 and faces 3 to 5 keep their clear colour everywhere.
#[test]
fn a_face_index_past_the_view_draws_into_its_first_slice() {
    let edit = |t: String| {
        t.replace(
            "render_targets = [{ resource = \"cube\", slices = [0, 6] }]",
            "render_targets = [{ resource = \"cube\", slices = [0, 3] }]",
        )
        .replace(
            "depth_stencil = { resource = \"depth\", slices = [0, 6], depth_func = \"LESS\" }",
            "depth_stencil = { resource = \"depth\", slices = [0, 3], depth_func = \"LESS_EQUAL\" }",
        )
    };
    let r = run_frame("cube_map_one_pass", "past_the_view", &edit);
    let cube = bytes(&r, 0);
    let faces = run_frame("cube_map", "face_by_face_2", &|t| t);
    let reference = bytes(&faces, 0);
    // Faces 1 and 2 as drawn face by face; 3 to 5 only cleared.
    assert!(cube[4096..3 * 4096] == reference[4096..3 * 4096]);
    for k in 3..6 {
        let face = &cube[k * 4096..(k + 1) * 4096];
        assert!(
            face.chunks_exact(4).all(|p| p == &face[..4]),
            "face {k} was drawn into"
        );
    }
    // Face 0, texel (22, 16), centre (22.5, 16.5): right of triangle 0 (corners at x
    // 13.5, 23.5, 3.5: its right edge crosses y = 16.5 at x = 13.5 + 0.625 × 10 =
    // 19.75), inside copy 5 (5 pixels further right: 12.25 to 24.75), which came last
    // with an equal depth (LESS_EQUAL), so it holds what face 5 holds there face by
    // face; texel (2, 30): below every copy, still cleared.
    let at = |c: &[u8], k: usize, x: usize, y: usize| {
        let i = k * 4096 + 4 * (32 * y + x);
        c[i..i + 4].to_vec()
    };
    assert_eq!(at(&cube, 0, 22, 16), at(&reference, 5, 22, 16));
    assert_ne!(at(&cube, 0, 22, 16), [0xcc, 0x33, 0x33, 0xff]);
    assert_eq!(at(&cube, 0, 2, 30), [0xcc, 0x33, 0x33, 0xff]);
}

/// The particle step of `shaders/particles.hlsl`, done here in f32: p + v/4 − (0, 1/16,
/// 0), v − (0, 1/2, 0), kept when the new y ≥ −1. Every input is a multiple of 1/64, so
/// each sum is exact and the order of the operations cannot matter.
fn step(particles: &[[f32; 11]]) -> Vec<[f32; 11]> {
    particles
        .iter()
        .filter_map(|p| {
            let mut o = *p;
            // Position x, y, z, size, velocity x, y, z, colour.
            for c in 0..3 {
                o[c] = p[c] + p[4 + c] * 0.25;
            }
            o[1] -= 0.0625;
            o[5] -= 0.5;
            (o[1] >= -1.0).then_some(o)
        })
        .collect()
}

/// The particle frame's input: twelve records of 11 floats from its "particles" buffer.
fn particles(r: &ListResult) -> Vec<[f32; 11]> {
    words(r, 0)
        .chunks_exact(11)
        .map(|c| std::array::from_fn(|i| f32::from_bits(c[i])))
        .collect()
}

const STATISTICS: &str = r#"
[[query_heap]]
name = "stats"
type = "PIPELINE_STATISTICS"
count = 1

[[resource]]
name = "results"
kind = "raw_buffer"
size = 88
"#;

/// Wraps the particle frame's last draw in a pipeline-statistics query.
fn with_statistics(text: String) -> String {
    let draw = "[[command]]                     # the sprites";
    let (head, tail) = text.split_at(text.find(draw).unwrap());
    let cut = tail.find("\n[[expect]]").unwrap();
    let (sprites, expects) = tail.split_at(cut);
    format!(
        "{head}{STATISTICS}\n[[command]]\ntype = \"begin_query\"\nheap = \"stats\"\nindex = 0\nquery = \"PIPELINE_STATISTICS\"\n\n{sprites}\n[[command]]\ntype = \"end_query\"\nheap = \"stats\"\nindex = 0\nquery = \"PIPELINE_STATISTICS\"\n\n[[command]]\ntype = \"resolve_query_data\"\nheap = \"stats\"\nquery = \"PIPELINE_STATISTICS\"\ncount = 1\nbuffer = \"results\"\n{expects}"
    )
}

/// D3D11.3 §14 (stream output writes the primitives that leave the geometry program,
/// in order; the filled size counts the bytes written) and D3D11's `DrawAuto` (the
/// vertex count is the filled size over vertex buffer 0's stride): the step keeps 11 of
/// the 12 particles (particle 10 falls to y = −1.1875), writes them in input order as
/// 44-byte records (every record equal to the step done here in f32), leaves the twelfth
/// record's bytes as they were, and counts 484 bytes; the sprite draw then takes 11
/// points (`IAVertices`, `GSInvocations`), each a four-vertex strip of two triangles
/// (`GSPrimitives` 22).
#[test]
fn the_particle_step_streams_out_the_living_and_draw_auto_draws_them() {
    let r = run_frame("particles", "particles", &with_statistics);
    assert_eq!(
        r.summary.expectations.failed, 0,
        "{:?}",
        r.summary.expectations
    );
    let input = particles(&r);
    assert_eq!(input.len(), 12);
    let want = step(&input);
    assert_eq!(want.len(), 11);
    let state = words(&r, 1);
    for (i, w) in want.iter().enumerate() {
        let got: Vec<f32> = state[11 * i..11 * (i + 1)]
            .iter()
            .map(|&b| f32::from_bits(b))
            .collect();
        assert_eq!(got, w.to_vec(), "record {i}");
    }
    assert_eq!(state[121..], [0; 11]);
    assert_eq!(words(&r, 2), [484]);
    let so = r.summary.commands[1].stream_output.expect("statistics");
    assert_eq!(so[0].primitives_written, 11);
    assert_eq!(so[0].primitives_storage_needed, 11);
    let stats: Vec<u64> = bytes(&r, 4)
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    // D3D12_QUERY_DATA_PIPELINE_STATISTICS: IAVertices, IAPrimitives, VSInvocations,
    // GSInvocations, GSPrimitives, …
    assert_eq!(stats[0], 11, "IAVertices");
    assert_eq!(stats[2], 11, "VSInvocations");
    assert_eq!(stats[3], 11, "GSInvocations");
    assert_eq!(stats[4], 22, "GSPrimitives");
}

/// The same frame with particle 0 thrown down (velocity y −2: y = −0.75 − 0.5 − 1/16 =
/// −1.3125, below the floor): 10 records, particle 1's first, a 440-byte filled size,
/// and DrawAuto draws 10 points; where particle 0's sprite was (pixel (64, 70), its
/// centre at (64, 70.67)), the clear colour shows.
#[test]
fn draw_auto_draws_what_the_counter_says() {
    let edit = |t: String| {
        with_statistics(t.replace(
            "       0.0,  -0.75,    3.0,   0.25,      0.0,    2.0,",
            "       0.0,  -0.75,    3.0,   0.25,      0.0,   -2.0,",
        ))
    };
    let r = run_frame("particles", "particles_fewer", &edit);
    let want = step(&particles(&r));
    assert_eq!(want.len(), 10);
    assert_eq!(words(&r, 2), [440]);
    let state = words(&r, 1);
    assert_eq!(f32::from_bits(state[0]), 0.375, "record 0 is particle 1");
    assert_eq!(state[110..], [0; 22]);
    let stats: Vec<u64> = bytes(&r, 4)
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(stats[0], 10, "IAVertices");
    let color = bytes(&r, 3);
    let i = 4 * (128 * 70 + 64);
    assert_eq!(color[i..i + 4], [0x14, 0x14, 0x1a, 0xff]);
}

/// The terrain's triangles as streamed out of the domain program (`SV_Position`, bit
/// for bit), with `hs` as its hull program; then the edges no second triangle shares
/// (the outline): how many, whether each of its vertices has exactly two of them, how
/// many of its vertices one walk along it reaches and how many there are. An edge of
/// more than two triangles fails.
fn terrain_outline(tag: &str, hs: &str) -> (usize, bool, usize, usize) {
    let text = std::fs::read_to_string(common::root().join("examples/terrain.toml"))
        .unwrap()
        .replace("terrain.hs_5_0.dxbc", hs);
    let text = format!(
        "{text}
[[draw.stream_output]]
semantic = \"SV_Position\"

[[draw.stream_output_buffer]]
slot = 0
stride = 16
size = 4194304
output = \"terrain_so.bin\"
"
    );
    let r = crate::draw::run_text(tag, &text, 2).unwrap_or_else(|e| panic!("{e}"));
    let so = r.summary.draw.stream_output.expect("statistics")[0];
    assert_eq!(
        so.primitives_written, so.primitives_storage_needed,
        "the buffer held every triangle"
    );
    let o = r
        .summary
        .outputs
        .iter()
        .find(|o| o.path.ends_with("terrain_so.bin"))
        .expect("the stream-output file");
    let words: Vec<u32> = std::fs::read(&o.path)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect();
    let vertices: Vec<[u32; 4]> = words
        .chunks_exact(4)
        .take(3 * so.primitives_written as usize)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect();
    // More than the 128 triangles of 64 patches cut once: the factors are above 1.
    assert!(
        vertices.len() / 3 > 1000,
        "{} triangles",
        vertices.len() / 3
    );
    let mut edges: HashMap<([u32; 4], [u32; 4]), u32> = HashMap::new();
    for t in vertices.chunks_exact(3) {
        for (a, b) in [(t[0], t[1]), (t[1], t[2]), (t[2], t[0])] {
            *edges.entry((a.min(b), a.max(b))).or_default() += 1;
        }
    }
    assert!(
        edges.values().all(|&n| n <= 2),
        "an edge of three triangles"
    );
    let outline: Vec<_> = edges.iter().filter(|e| *e.1 == 1).map(|e| *e.0).collect();
    let mut next: HashMap<[u32; 4], Vec<[u32; 4]>> = HashMap::new();
    for (a, b) in &outline {
        next.entry(*a).or_default().push(*b);
        next.entry(*b).or_default().push(*a);
    }
    let start = outline[0].0;
    let mut seen = HashSet::from([start]);
    let mut stack = vec![start];
    while let Some(v) = stack.pop() {
        for w in &next[&v] {
            if seen.insert(*w) {
                stack.push(*w);
            }
        }
    }
    let two = next.values().all(|n| n.len() == 2);
    (outline.len(), two, seen.len(), next.len())
}

/// D3D11.3 §11.7.5 (the tessellator places an edge's points from that edge's factor
/// alone, the same way from either end) and the terrain's patch-constant function (an
/// edge's factor from the camera's distance to its midpoint, computed from the same two
/// corners by both patches sharing it): the terrain is watertight. Its triangles share
/// every edge inside the grid with exactly one other triangle; the edges no other
/// triangle shares form one closed loop (each of its vertices on two of them), the
/// grid's outline, cut finer than its 32 patch edges. A crack — two patches cutting a
/// shared edge differently — adds outline edges along it, meeting the others at patch
/// corners (three or more there), as the same grid with `tessellation_patch`'s hull program
/// (the same factors for every patch: 2.5 on edge u = 0 and 7.5 on u = 1, so
/// neighbours disagree) shows.
#[test]
fn the_terrain_is_watertight() {
    let (outline, two, reached, total) =
        terrain_outline("terrain-watertight", "terrain.hs_5_0.dxbc");
    assert!(outline > 32, "{outline} outline edges");
    assert!(two, "an outline vertex with other than two outline edges");
    assert_eq!(
        reached, total,
        "{reached} of {total} outline vertices in one loop: a crack"
    );
    let (_, two, reached, total) =
        terrain_outline("terrain-cracked", "tessellation_patch.hs_5_0.dxbc");
    assert!(
        !two || reached < total,
        "uneven factors left no crack: {reached} of {total} outline vertices in one loop"
    );
}

/// D3D11.3 §15 (the rasterizer is the stage that reads `SV_Position`) and stream output's
/// `D3D11_SO_NO_RASTERIZED_STREAM` (nothing reaches the rasterizer): a step whose
/// geometry program writes no `SV_Position`, drawn with no render target and no
/// depth-stencil view bound, streams out the same records as the example's step. The
/// same program with a rasterized stream is refused, naming `SV_Position`.
#[test]
fn a_step_that_rasterizes_nothing_needs_no_position_and_no_target() {
    let Some(compiler) = common::vkd3d_compiler("the position-free particle step") else {
        return;
    };
    let dir = common::scratch()
        .join("stage_examples")
        .join("no_position_gs");
    std::fs::create_dir_all(&dir).unwrap();
    let source = std::fs::read_to_string(common::root().join("shaders/particles.hlsl"))
        .unwrap()
        .replace("    float4 clip : SV_Position;\n", "")
        .replace(
            "    o.clip = float4(o.pos.xy, o.pos.z * 0.5, o.pos.z);\n",
            "",
        );
    assert!(
        !source.contains(": SV_Position") && !source.contains("o.clip"),
        "the edit no longer applies"
    );
    let hlsl = dir.join("step.hlsl");
    std::fs::write(&hlsl, source).unwrap();
    let gs = dir.join("step.gs_5_0.dxbc");
    let status = std::process::Command::new(compiler)
        .args([
            "-p", "gs_5_0", "-e", "gs_main", "-x", "hlsl", "-b", "dxbc-tpf", "-o",
        ])
        .arg(&gs)
        .arg(&hlsl)
        .status()
        .unwrap();
    assert!(status.success());
    let gs_line = |t: &str| {
        t.lines()
            .find(|l| l.starts_with("gs = ") && l.contains("particles.gs_5_0.dxbc"))
            .unwrap()
            .to_string()
    };
    let swap = |t: String| -> String {
        let old = gs_line(&t);
        t.replacen(&old, &format!("gs = {:?}", gs.display().to_string()), 1)
    };
    let r = run_frame("particles", "no_position", &swap);
    let want = step(&particles(&r));
    let state = words(&r, 1);
    for (i, w) in want.iter().enumerate() {
        let got: Vec<f32> = state[11 * i..11 * (i + 1)]
            .iter()
            .map(|&b| f32::from_bits(b))
            .collect();
        assert_eq!(got, w.to_vec(), "record {i}");
    }
    assert_eq!(words(&r, 2), [484]);

    // Rasterizing stream 0 needs the position.
    let text = std::fs::read_to_string(common::root().join("examples/frames/particles.toml"))
        .unwrap()
        .replace(
            "../../shaders",
            &common::root().join("shaders").display().to_string(),
        );
    let text = swap(text).replacen(
        "\nrasterized_stream = \"none\"",
        "\nrasterized_stream = 0\nrender_targets = [{ resource = \"color\" }]",
        1,
    );
    let path = dir.join("rasterized.toml");
    std::fs::write(&path, text).unwrap();
    let job = Job::load(&path).unwrap();
    let opts = common::run_options();
    let err = match prepare(job, &opts).and_then(|p| p.execute(&opts)) {
        Err(e) => e.to_string(),
        Ok(_) => panic!("a rasterized stream without SV_Position ran"),
    };
    assert!(err.contains("does not write SV_Position"), "{err}");
}

/// The one-pass cube map through geometry instancing
/// (`examples/frames/cube_map_instanced.toml`, its program assembled by the dxbc
/// module's `cube_instanced` tests): D3D11.3 §13.2 "GS Instancing" — the program runs
/// once per instance for each input primitive with `SV_GSInstanceID` = 0 … 5, and the
/// instances' primitives leave the stage instance by instance. Instance k draws face k,
/// so the cube and the cross equal the face-by-face frame's (and its golden's) bit for
/// bit, as the loop's one-pass frame does.
#[test]
fn an_instanced_cube_map_equals_the_face_by_face_frame() {
    let frames = common::root().join("examples/frames");
    let here = |t: String| t.replace("\"./", &format!("\"{}/", frames.display()));
    let inst = run_frame("cube_map_instanced", "instanced", &here);
    let faces = run_frame("cube_map", "face_by_face_3", &|t| t);
    assert_eq!(
        inst.summary.expectations.failed, 0,
        "{:?}",
        inst.summary.expectations
    );
    assert!(bytes(&inst, 0) == bytes(&faces, 0), "the cubes differ");
    assert!(bytes(&inst, 1) == bytes(&faces, 1), "the crosses differ");
    // The goldens the frame tests compare with: the instanced frame's is the
    // face-by-face frame's.
    let golden = |n: &str| std::fs::read(common::root().join("goldens").join(n)).unwrap();
    assert!(golden("cube_map_instanced.png") == golden("cube_map.png"));
}

/// `dxlane disasm` lists the instanced program (the listing its builder checks, with
/// `dcl_gsinstances 6` and `vGSInstanceID`).
#[test]
fn disasm_lists_the_instanced_geometry_program() {
    let out = std::process::Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args(["disasm", "examples/frames/cube_map_instanced.gs_5_0.dxbc"])
        .current_dir(common::root())
        .output()
        .unwrap();
    assert!(out.status.success());
    let text = String::from_utf8_lossy(&out.stdout);
    for line in [
        "dcl_gsinstances 6",
        "dcl_input vGSInstanceID",
        "utof r0.x, vGSInstanceID",
        "mov o2.x, vGSInstanceID",
    ] {
        assert!(text.lines().any(|l| l.trim() == line), "{line}: {text}");
    }
}

/// The debugger opens a lane of the instanced program by primitive and instance
/// (`docs/debugger.md`, "Geometry, hull and domain lanes"): `--gs-primitive 0
/// --gs-instance 4` of the frame's draw (event 7, after six clears) reads
/// `SV_GSInstanceID` 4, and its last emitted vertex is input corner 2, (−0.78125, −0.5),
/// moved right by 4 / 16 to x = −0.53125, into face 4; `why o0.x` walks back to the
/// instance id. An instance past the program's six is refused by its flag.
#[test]
fn the_debugger_opens_a_lane_of_a_geometry_instance() {
    let job = "examples/frames/cube_map_instanced.toml";
    let (text, code) = crate::debug::session(&[
        "debug",
        job,
        "--event",
        "7",
        "--gs-primitive",
        "0",
        "--gs-instance",
        "4",
        "-c",
        "inputs; continue; outputs; why o0.x",
    ]);
    assert_eq!(code, 0, "{text}");
    assert!(
        text.contains("geometry primitive with SV_PrimitiveID 0, SV_GSInstanceID 4"),
        "{text}"
    );
    assert!(
        crate::debug::line_after(&text, "SV_GSInstanceID: ").starts_with("4 "),
        "{text}"
    );
    let outputs = text
        .split("outputs of lane")
        .nth(1)
        .unwrap_or_else(|| panic!("{text}"));
    assert!(outputs.contains("-0.53125 (0xbf080000)"), "{text}");
    let why = &text[text.find("(dxlane) why o0.x").unwrap()..];
    assert!(why.contains("vGSInstanceID"), "{text}");
    let (past, code) = crate::debug::session(&[
        "debug",
        job,
        "--event",
        "7",
        "--gs-primitive",
        "0",
        "--gs-instance",
        "6",
        "-c",
        "where",
    ]);
    assert_eq!(code, 2, "{past}");
    assert!(past.contains("--gs-instance"), "{past}");
}
