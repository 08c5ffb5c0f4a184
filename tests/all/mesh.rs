//! Mesh draws: mesh and amplification programs (written in the IR's text form, so each
//! rule gets exactly the program it needs) drawn through `pipeline::draw` with a mesh
//! state. Each test names the rule of DirectX-Specs' "Mesh Shader" document it checks.

use dxlane::ir::{Shader, parse_shader};
use dxlane::pipeline::ms::MeshDraw;
use dxlane::pipeline::{Bindings, CullMode, DrawArgs, DrawOptions, DrawState, RenderTargetView};
use dxlane::pipeline::{DrawReport, draw};
use dxlane::resources::{Format, Texture, TextureDesc};

/// What a test's mesh program does differently from the plain one.
#[derive(Clone, Copy)]
pub(crate) struct Ms {
    /// `SetMeshOutputCounts` arguments.
    pub(crate) counts: (u32, u32),
    /// Primitive 1's vertex indices.
    pub(crate) prim1: [u32; 3],
    /// Primitive 1's `SV_CullPrimitive`.
    pub(crate) cull1: bool,
    /// Calls `SetMeshOutputCounts` twice.
    pub(crate) twice: bool,
    /// Writes an output before `SetMeshOutputCounts`.
    pub(crate) early_write: bool,
    /// Reads a 4-byte payload into primitive colours' blue channel.
    pub(crate) payload: bool,
    /// Only thread 0 calls `SetMeshOutputCounts`, and nothing is written.
    pub(crate) divergent: bool,
}

pub(crate) const PLAIN: Ms = Ms {
    counts: (4, 2),
    prim1: [2, 1, 3],
    cull1: false,
    twice: false,
    early_write: false,
    payload: false,
    divergent: false,
};

/// A group of 4 threads making a full-screen quad: thread t writes vertex t at
/// (2·(t & 1) − 1, 2·(t >> 1) − 1), threads 0 and 1 write primitive t's colour
/// (1 − t, t, payload or 0, 1); primitive 0 is (0, 1, 2), primitive 1 `prim1`.
fn mesh_program(o: Ms) -> Shader {
    let text = mesh_text(o);
    parse_shader(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// [`mesh_program`]'s text.
pub(crate) fn mesh_text(o: Ms) -> String {
    let payload_bytes = if o.payload { 4 } else { 0 };
    let blue = if o.payload {
        "shared_load b32, 1, [r23 _ _ _], r0, 0"
    } else {
        "mov r23, r0"
    };
    let early = if o.early_write {
        "mesh_vertex_out 0, _, 1, r12, r0"
    } else {
        ""
    };
    let twice = if o.twice { "mesh_counts r6, r7" } else { "" };
    let body = if o.divergent {
        "    icmp eq, r13, r12, r0
    branch r13, block1, block2
block1:
    mesh_counts r6, r7
    jump block2
block2:
    return
"
        .to_string()
    } else {
        format!(
            "    {early}
    mesh_counts r6, r7
    {twice}
    and r14, r12, r1
    utof r15, r14
    fmul r15, r15, r5
    fsub r15, r15, r4
    ushr r16, r12, r1
    utof r17, r16
    fmul r17, r17, r5
    fsub r17, r17, r4
    mesh_vertex_out 0, _, 1, r12, r15
    mesh_vertex_out 1, _, 1, r12, r17
    mesh_vertex_out 2, _, 1, r12, r0
    mesh_vertex_out 3, _, 1, r12, r4
    icmp ult, r18, r12, r2
    branch r18, block1, block4
block1:
    utof r19, r12
    fsub r20, r4, r19
    {blue}
    mesh_primitive_out 0, _, 1, r12, r20
    mesh_primitive_out 1, _, 1, r12, r19
    mesh_primitive_out 2, _, 1, r12, r23
    mesh_primitive_out 3, _, 1, r12, r4
    icmp eq, r21, r12, r0
    select r22, r21, r0, r11
    mesh_primitive_out 4, _, 1, r12, r22
    branch r21, block2, block3
block2:
    mesh_indices r0, [r0 r1 r2]
    jump block4
block3:
    mesh_indices r1, [r8 r9 r10]
    jump block4
block4:
    return
"
        )
    };
    let text = format!(
        "shader mesh
group [4 1 1]
regs 24
const r0 = 0x0
const r1 = 0x1
const r2 = 0x2
const r3 = 0x3
const r4 = 0x3f800000
const r5 = 0x40000000
const r6 = {nv}
const r7 = {np}
const r8 = {i0}
const r9 = {i1}
const r10 = {i2}
const r11 = {cull}
groupshared {payload_bytes}
io_words in 0 out 4
output \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0
primitive_output \"PRIMCOLOR\" 0 sv none reg 1 rows 1 mask xyzw float interp undefined slot 0
primitive_output \"SV_CullPrimitive\" 0 sv cull_primitive reg none rows 1 mask x uint interp undefined slot 4
mesh topology triangle max_vertices 4 max_primitives 2 payload_bytes {payload_bytes} primitive_words 8
block0:
    group_index r12
{body}",
        nv = o.counts.0,
        np = o.counts.1,
        i0 = o.prim1[0],
        i1 = o.prim1[1],
        i2 = o.prim1[2],
        cull = if o.cull1 { 0xffff_ffffu32 } else { 0 },
    );
    // The options that add nothing leave blank lines.
    text.lines()
        .filter(|l| !l.trim().is_empty())
        .map(|l| format!("{l}\n"))
        .collect()
}

/// Threads 0 and 1 of a 2-thread amplification group store `blue` as the payload and
/// call `DispatchMesh(groups)` (only thread 0 when `divergent`, nobody when `!call`).
fn amplification_program(groups: [u32; 3], blue: f32, call: bool, divergent: bool) -> Shader {
    let text = amplification_text(groups, blue, call, divergent);
    parse_shader(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
}

/// [`amplification_program`]'s text.
pub(crate) fn amplification_text(
    groups: [u32; 3],
    blue: f32,
    call: bool,
    divergent: bool,
) -> String {
    let dispatch = match (call, divergent) {
        (false, _) => "    return\n".to_string(),
        (true, false) => "    dispatch_mesh [r3 r4 r5], 0\n    return\n".to_string(),
        (true, true) => "    icmp eq, r7, r6, r0
    branch r7, block1, block2
block1:
    dispatch_mesh [r3 r4 r5], 0
    jump block2
block2:
    return
"
        .to_string(),
    };
    format!(
        "shader amplification
group [2 1 1]
regs 8
const r0 = 0x0
const r1 = 0x1
const r2 = {blue:#x}
const r3 = {gx}
const r4 = {gy}
const r5 = {gz}
groupshared 4
mesh topology triangle max_vertices 0 max_primitives 0 payload_bytes 4 primitive_words 0
block0:
    group_index r6
    shared_store b32, 1, r0, 0, [r2 _ _ _]
{dispatch}",
        blue = blue.to_bits(),
        gx = groups[0],
        gy = groups[1],
        gz = groups[2],
    )
}

/// Writes its per-primitive `PRIMCOLOR` (at register 0: linked by semantic, not by the
/// mesh program's register 1).
pub(crate) const PS: &str = "shader pixel
regs 4
io_words in 4 out 4
input \"PRIMCOLOR\" 0 sv none reg 0 rows 1 mask xyzw float interp constant slot 0
output \"SV_Target\" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    input r0, 0
    input r1, 1
    input r2, 2
    input r3, 3
    output 0, r0
    output 1, r1
    output 2, r2
    output 3, r3
    return
";

/// Draws `ms` (after `amp` when given) over `groups` into a 4×4 RGBA8 target.
fn run(
    ms: &Shader,
    amp: Option<&Shader>,
    groups: [u32; 3],
) -> Result<(DrawReport, Vec<u8>), String> {
    let ps = parse_shader(PS).unwrap();
    let none = Bindings::default();
    let rt = Texture::new(TextureDesc::tex2d(Format::R8G8B8A8_UNORM, 4, 4)).unwrap();
    let mut state = DrawState::new(ms, Some(&ps), &none, &none);
    state.mesh = Some(MeshDraw {
        ms: (ms, &none),
        amplification: amp.map(|a| (a, &none)),
        groups,
    });
    state.render_targets = vec![Some(RenderTargetView {
        texture: rt.clone(),
    })];
    state.rasterizer.cull_mode = CullMode::None;
    let r =
        draw(&state, &DrawArgs::default(), &DrawOptions::default()).map_err(|e| e.to_string())?;
    Ok((r, rt.to_bytes()))
}

/// "Primitive Attributes" (`SV_RenderTargetArrayIndex` is a per-primitive output of a
/// mesh program) and D3D12's out-of-range rule (`D3D12_VIEW_INSTANCE_LOCATION`: the
/// effective index becomes 0): the plain program with its per-primitive word 4 declared
/// `SV_RenderTargetArrayIndex` (thread 0 writes 0, thread 1 `value`) draws primitive 0
/// into slice 0 and primitive 1 into slice `value` of a two-slice view, or slice 0 when
/// `value` is past it.
#[test]
fn a_per_primitive_array_index_routes_mesh_primitives_between_slices() {
    let program = |value: u32| {
        let text = mesh_text(Ms {
            cull1: true,
            ..PLAIN
        })
        .replace(
            "primitive_output \"SV_CullPrimitive\" 0 sv cull_primitive",
            "primitive_output \"SV_RenderTargetArrayIndex\" 0 sv render_target_array_index",
        )
        .replace("const r11 = 4294967295", &format!("const r11 = {value}"));
        parse_shader(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    };
    let draw_into_slices = |ms: &Shader| {
        let ps = parse_shader(PS).unwrap();
        let none = Bindings::default();
        let mut desc = TextureDesc::tex2d(Format::R8G8B8A8_UNORM, 4, 4);
        desc.dim = dxlane::resources::TextureDim::Tex2DArray;
        desc.depth_or_array_size = 2;
        let rt = Texture::new(desc).unwrap();
        let mut state = DrawState::new(ms, Some(&ps), &none, &none);
        state.mesh = Some(MeshDraw {
            ms: (ms, &none),
            amplification: None,
            groups: [1, 1, 1],
        });
        state.render_targets = vec![Some(RenderTargetView {
            texture: rt.target_view(0, 0, 2).unwrap(),
        })];
        state.rasterizer.cull_mode = CullMode::None;
        draw(&state, &DrawArgs::default(), &DrawOptions::default()).unwrap();
        let bytes = rt.to_bytes();
        (bytes[..64].to_vec(), bytes[64..].to_vec())
    };
    let (s0, s1) = draw_into_slices(&program(1));
    assert_eq!(pixel(&s0, 0, 3), [255, 0, 0, 255], "primitive 0 in slice 0");
    assert_eq!(pixel(&s0, 3, 0), [0, 0, 0, 0], "primitive 1 not in slice 0");
    assert_eq!(pixel(&s1, 3, 0), [0, 255, 0, 255], "primitive 1 in slice 1");
    assert_eq!(pixel(&s1, 0, 3), [0, 0, 0, 0]);
    let (s0, s1) = draw_into_slices(&program(5));
    assert_eq!(pixel(&s0, 0, 3), [255, 0, 0, 255]);
    assert_eq!(pixel(&s0, 3, 0), [0, 255, 0, 255], "index 5: slice 0");
    assert!(s1.iter().all(|&b| b == 0), "slice 1 untouched");
}

fn pixel(img: &[u8], x: usize, y: usize) -> [u8; 4] {
    let i = (y * 4 + x) * 4;
    [img[i], img[i + 1], img[i + 2], img[i + 3]]
}

/// "Shared Output Arrays", "Vertex Indices", "Primitive Attributes": the group's index
/// tuples make the primitives, each coloured by its per-primitive attribute, which the
/// pixel program reads by semantic ("Signature Linkage").
#[test]
fn a_mesh_group_draws_its_primitives_with_their_attributes() {
    let (r, img) = run(&mesh_program(PLAIN), None, [1, 1, 1]).unwrap();
    assert_eq!((r.mesh_groups, r.primitives), (1, 2));
    assert!(r.ms_lane_instructions > 0);
    // Primitive 0 is the lower-left half (red), primitive 1 the upper-right (green).
    assert_eq!(pixel(&img, 0, 3), [255, 0, 0, 255]);
    assert_eq!(pixel(&img, 3, 0), [0, 255, 0, 255]);
}

/// "SV_CullPrimitive": a primitive whose flag is set is not drawn.
#[test]
fn cull_primitive_removes_the_primitive() {
    let ms = mesh_program(Ms {
        cull1: true,
        ..PLAIN
    });
    let (r, img) = run(&ms, None, [1, 1, 1]).unwrap();
    assert_eq!(r.mesh_primitives_discarded, 1);
    assert_eq!(pixel(&img, 0, 3), [255, 0, 0, 255]);
    assert_eq!(pixel(&img, 3, 0), [0, 0, 0, 0]);
}

/// "Rendering of the mesh" (rules A) and the rule: a primitive with a vertex
/// index not below the vertex count is dropped, the others drawn.
#[test]
fn a_primitive_indexing_past_the_vertex_count_is_dropped() {
    let ms = mesh_program(Ms {
        prim1: [2, 1, 4],
        ..PLAIN
    });
    let (r, img) = run(&ms, None, [1, 1, 1]).unwrap();
    assert_eq!(r.mesh_primitives_discarded, 1);
    assert_eq!(pixel(&img, 3, 0), [0, 0, 0, 0]);
    assert_eq!(pixel(&img, 0, 3), [255, 0, 0, 255]);
}

/// "DispatchMesh API": a grid of zero groups runs nothing and draws nothing.
#[test]
fn zero_groups_draw_nothing() {
    let (r, img) = run(&mesh_program(PLAIN), None, [0, 1, 1]).unwrap();
    assert_eq!(r.mesh_groups, 0);
    assert!(img.iter().all(|&b| b == 0));
}

/// "SetMeshOutputCounts", undefined behaviour 2 and 3: counts above the declared array
/// sizes are refused, naming the program, group, thread and value.
#[test]
fn counts_above_the_maxima_are_refused() {
    let e = run(
        &mesh_program(Ms {
            counts: (5, 2),
            ..PLAIN
        }),
        None,
        [1, 1, 1],
    )
    .unwrap_err();
    assert!(e.contains("group (0, 0, 0)"), "{e}");
    assert!(e.contains("SetMeshOutputCounts(5, …)"), "{e}");
    assert!(e.contains("the 4 the program declares"), "{e}");
    let e = run(
        &mesh_program(Ms {
            counts: (4, 3),
            ..PLAIN
        }),
        None,
        [1, 1, 1],
    )
    .unwrap_err();
    assert!(e.contains("SetMeshOutputCounts(…, 3)"), "{e}");
}

/// "SetMeshOutputCounts" restrictions 1, 2 and 4: once per thread, before any output
/// write, and writes below the counts.
#[test]
fn counts_misuse_is_refused() {
    let e = run(
        &mesh_program(Ms {
            twice: true,
            ..PLAIN
        }),
        None,
        [1, 1, 1],
    )
    .unwrap_err();
    assert!(e.contains("a second time"), "{e}");
    let e = run(
        &mesh_program(Ms {
            early_write: true,
            ..PLAIN
        }),
        None,
        [1, 1, 1],
    )
    .unwrap_err();
    assert!(e.contains("before calling SetMeshOutputCounts"), "{e}");
    assert!(e.contains("thread (0, 0, 0)"), "{e}");
    let e = run(
        &mesh_program(Ms {
            counts: (3, 2),
            ..PLAIN
        }),
        None,
        [1, 1, 1],
    )
    .unwrap_err();
    assert!(
        e.contains("wrote vertex 3, not below the vertex count 3"),
        "{e}"
    );
    let e = run(
        &mesh_program(Ms {
            divergent: true,
            ..PLAIN
        }),
        None,
        [1, 1, 1],
    )
    .unwrap_err();
    assert!(
        e.contains("1 of its 4 threads called SetMeshOutputCounts"),
        "{e}"
    );
}

/// "DispatchMesh API": each count below 64k, their product at most 2^22.
#[test]
fn grids_past_the_limits_are_refused() {
    let ms = mesh_program(PLAIN);
    let e = run(&ms, None, [65_536, 1, 1]).unwrap_err();
    assert!(e.contains("at most 65535"), "{e}");
    let e = run(&ms, None, [4096, 2048, 1]).unwrap_err();
    assert!(e.contains("2^22"), "{e}");
}

/// "Rasterization order": without an amplification program the groups run in x, then
/// y, then z order, each drawing over the one before: the last group's colour wins.
#[test]
fn groups_run_in_order() {
    let (r, _) = run(&mesh_program(PLAIN), None, [2, 2, 2]).unwrap();
    assert_eq!(r.mesh_groups, 8);
    assert_eq!(r.primitives, 16);
}

/// "DispatchMesh intrinsic", "Mesh Payload": an amplification group launches its mesh
/// grid and passes its payload, laid out as the programs' memory lays it out.
#[test]
fn an_amplification_group_launches_mesh_groups_with_its_payload() {
    let ms = mesh_program(Ms {
        payload: true,
        ..PLAIN
    });
    let amp = amplification_program([3, 1, 1], 1.0, true, false);
    let (r, img) = run(&ms, Some(&amp), [2, 1, 1]).unwrap();
    assert_eq!(r.amplification_groups, 2);
    assert_eq!(r.mesh_groups, 6);
    assert!(r.as_lane_instructions > 0);
    assert_eq!(pixel(&img, 0, 3), [255, 0, 255, 255]);
    assert_eq!(pixel(&img, 3, 0), [0, 255, 255, 255]);
}

/// "DispatchMesh intrinsic": exactly once per group, not from divergent flow control;
/// the launched grid within the API's limits; "Mesh Payload": the two programs' payload
/// sizes match.
#[test]
fn amplification_rules_are_enforced() {
    let ms = mesh_program(Ms {
        payload: true,
        ..PLAIN
    });
    let e = run(
        &ms,
        Some(&amplification_program([1, 1, 1], 1.0, false, false)),
        [1, 1, 1],
    )
    .unwrap_err();
    assert!(e.contains("without calling DispatchMesh"), "{e}");
    assert!(e.contains("group (0, 0, 0)"), "{e}");
    let e = run(
        &ms,
        Some(&amplification_program([1, 1, 1], 1.0, true, true)),
        [1, 1, 1],
    )
    .unwrap_err();
    assert!(e.contains("1 of its 2 threads called DispatchMesh"), "{e}");
    let e = run(
        &ms,
        Some(&amplification_program([70_000, 1, 1], 1.0, true, false)),
        [1, 1, 1],
    )
    .unwrap_err();
    assert!(e.contains("at most 65535"), "{e}");
    let e = run(
        &mesh_program(PLAIN),
        Some(&amplification_program([1, 1, 1], 1.0, true, false)),
        [1, 1, 1],
    )
    .unwrap_err();
    assert!(
        e.contains("payload is 4 bytes but the mesh program's is 0"),
        "{e}"
    );
}

/// Runs the job `text` (its `$MESH` and `$AMP` standing for the corpus mesh and
/// amplification programs, `$PS` for `tests/jobs/corpus/mesh.ps.ir`); the error's text.
fn job_error(name: &str, text: &str) -> Option<String> {
    let corpus = crate::common::corpora()
        .iter()
        .find(|d| d.ends_with("dxil-reader"))?
        .clone();
    let text = text
        .replace("$MESH", &corpus.join("mesh.dxil").display().to_string())
        .replace(
            "$AMP",
            &corpus.join("amplify.as.dxil").display().to_string(),
        )
        .replace(
            "$PS",
            &crate::common::root()
                .join("tests/jobs/corpus/mesh.ps.ir")
                .display()
                .to_string(),
        );
    let dir = crate::common::scratch().join("mesh_jobs");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    let job = dxlane::job::Job::load(&path).map_err(|e| e.to_string());
    let r = job.and_then(|j| {
        dxlane::job::run_draw_job(j, &crate::common::run_options()).map_err(|e| e.to_string())
    });
    Some(r.err().unwrap_or_else(|| panic!("{name} ran")))
}

/// A mesh draw's summary names the mesh program (as the stage before the rasterizer)
/// and counts its groups and lane-instructions.
#[test]
fn a_mesh_job_reports_its_stages() {
    let Some(corpus) = crate::common::corpora()
        .iter()
        .find(|d| d.ends_with("dxil-reader"))
    else {
        eprintln!("SKIPPED mesh::a_mesh_job_reports_its_stages: no corpora");
        return;
    };
    let dir = crate::common::scratch().join("mesh_jobs");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("summary.toml");
    let text = format!(
        "[program]\nms = \"{}\"\n[draw]\ndispatch_mesh = [2, 1, 1]\n{TARGET}",
        corpus.join("mesh.dxil").display()
    );
    std::fs::write(&path, text).unwrap();
    let job = dxlane::job::Job::load(&path).unwrap();
    let r = dxlane::job::run_draw_job(job, &crate::common::run_options()).unwrap();
    assert_eq!(r.summary.vs.stage, "mesh");
    assert!(r.summary.amplification.is_none());
    assert_eq!(r.summary.draw.mesh_groups, 2);
    assert_eq!(r.summary.draw.primitives, 4);
    // 32 threads per group, each running at least its entry block.
    assert!(r.summary.draw.ms_lane_instructions >= 64);
}

const TARGET: &str = "[[draw.render_target]]\nformat = \"R8G8B8A8_UNORM\"\nwidth = 4\nheight = 4\n\
[[resource]]\nreg = \"b0\"\nkind = \"cbuffer\"\ndata = { f32 = [1.0, 0.0, 0.0, 0.0] }\n";

/// The job file's mesh draw: `draw.dispatch_mesh` with `[program] ms` (and `as`),
/// refusing what a mesh pipeline cannot have (mesh shader spec, "CreatePipelineState":
/// IA disabled, no VS/GS/HS/DS) and grids past "DispatchMesh API"'s limits, each naming the key.
#[test]
fn mesh_jobs_refuse_bad_input_by_name() {
    let cases: &[(&str, &str, &str)] = &[
        (
            "no_ms",
            "[program]\nps = \"$PS\"\n[draw]\ndispatch_mesh = [1, 1, 1]\n",
            "needs `ms`",
        ),
        (
            "with_vs",
            "[program]\nms = \"$MESH\"\nvs = \"$MESH\"\n[draw]\ndispatch_mesh = [1, 1, 1]\n",
            "not `vs`",
        ),
        (
            "with_hs_ds",
            "[program]\nms = \"$MESH\"\nhs = \"$MESH\"\nds = \"$MESH\"\n[draw]\ndispatch_mesh = [1, 1, 1]\n",
            "no tessellation stages",
        ),
        (
            "ms_without_dispatch",
            "[program]\nms = \"$MESH\"\n[draw]\nvertex_count = 3\n",
            "give `draw.dispatch_mesh",
        ),
        (
            "vertex_count",
            "[program]\nms = \"$MESH\"\n[draw]\ndispatch_mesh = [1, 1, 1]\nvertex_count = 3\n",
            "`vertex_count` with `dispatch_mesh`",
        ),
        (
            "too_many",
            "[program]\nms = \"$MESH\"\n[draw]\ndispatch_mesh = [65536, 1, 1]\n",
            "at most 65535",
        ),
        (
            "too_many_in_all",
            "[program]\nms = \"$MESH\"\nas = \"$AMP\"\n[draw]\ndispatch_mesh = [4096, 4096, 1]\n",
            "2^22",
        ),
        (
            "as_is_ms",
            "[program]\nms = \"$MESH\"\nas = \"$MESH\"\n[draw]\ndispatch_mesh = [1, 1, 1]\n",
            "but `as` needs",
        ),
        (
            "payload_mismatch",
            "[program]\nms = \"$MESH\"\nas = \"$AMP\"\nps = \"$PS\"\n[draw]\ndispatch_mesh = [1, 1, 1]\n",
            "payload is 20 bytes but the mesh program's is 0",
        ),
    ];
    for (name, head, want) in cases {
        let Some(e) = job_error(name, &format!("{head}{TARGET}")) else {
            eprintln!("SKIPPED mesh::mesh_jobs_refuse_bad_input_by_name: no corpora");
            return;
        };
        assert!(e.contains(want), "{name}: {e}");
    }
}

/// D3D12 View Instancing with a mesh pipeline (DXIL.rst's table: `SV_ViewID` is a
/// `NotInSig` input of `MSIn`): the plain mesh program with its primitives' blue channel
/// set to its view's `SV_ViewID`, drawn for two views at slices 0 and 1 of a two-slice
/// view; the whole mesh stage runs once per view. With the view instance mask on and
/// only bit 1 set ("SetViewInstanceMask"), view 0 is not drawn.
#[test]
fn a_mesh_program_reads_the_view_id_of_each_view() {
    use dxlane::pipeline::{ViewInstanceLocation, ViewInstancingDesc};
    let text = mesh_text(PLAIN)
        .replace(
            "io_words in 0 out 4\n",
            "io_words in 4 out 4\ninput \"SV_ViewID\" 0 sv view_id reg none rows 1 mask x uint interp undefined slot 0\n",
        )
        .replace("    mov r23, r0\n", "    input r23, 0\n    utof r23, r23\n");
    let ms = parse_shader(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let ps = parse_shader(PS).unwrap();
    let draw_views = |mask: Option<u32>| {
        let none = Bindings::default();
        let mut desc = TextureDesc::tex2d(Format::R8G8B8A8_UNORM, 4, 4);
        desc.dim = dxlane::resources::TextureDim::Tex2DArray;
        desc.depth_or_array_size = 2;
        let rt = Texture::new(desc).unwrap();
        let mut state = DrawState::new(&ms, Some(&ps), &none, &none);
        state.mesh = Some(MeshDraw {
            ms: (&ms, &none),
            amplification: None,
            groups: [1, 1, 1],
        });
        state.render_targets = vec![Some(RenderTargetView {
            texture: rt.target_view(0, 0, 2).unwrap(),
        })];
        state.rasterizer.cull_mode = CullMode::None;
        state.view_instancing = Some(ViewInstancingDesc {
            locations: (0..2)
                .map(|k| ViewInstanceLocation {
                    viewport: 0,
                    render_target_slice: k,
                })
                .collect(),
            mask,
        });
        let r = draw(&state, &DrawArgs::default(), &DrawOptions::default()).unwrap();
        let bytes = rt.to_bytes();
        (r, bytes[..64].to_vec(), bytes[64..].to_vec())
    };
    let (r, s0, s1) = draw_views(None);
    assert_eq!(r.mesh_groups, 2, "one mesh group per view");
    assert_eq!(pixel(&s0, 0, 3), [255, 0, 0, 255], "view 0: blue 0");
    assert_eq!(pixel(&s0, 3, 0), [0, 255, 0, 255]);
    assert_eq!(pixel(&s1, 0, 3), [255, 0, 255, 255], "view 1: blue 1.0");
    assert_eq!(pixel(&s1, 3, 0), [0, 255, 255, 255]);
    let (r, s0, s1) = draw_views(Some(0b10));
    assert_eq!(r.mesh_groups, 1);
    assert!(s0.iter().all(|&b| b == 0), "view 0 masked off");
    assert_eq!(pixel(&s1, 0, 3), [255, 0, 255, 255]);
}

/// The native engine runs the amplification and mesh programs as it runs the other
/// stages (arithmetic compiled, the rest interpreted: `exec::jit`), with the same
/// results as the interpreter, bit for bit: the meshlet example (`examples/meshlets.toml`,
/// DXIL amplification and mesh programs: frustum culling, a payload, matrix transforms)
/// draws the same target under both engines, with the same counts, and under the native
/// engine the draw's report says what it compiled of each of the two programs.
#[test]
fn mesh_and_amplification_programs_run_alike_under_both_engines() {
    use dxlane::exec::jit::Engine;
    let path = crate::common::root().join("examples/meshlets.toml");
    let mut runs = Vec::new();
    for engine in [Engine::Interp, Engine::Jit] {
        let job = dxlane::job::Job::load(&path).unwrap();
        let r = dxlane::job::run_draw_job(
            job,
            &dxlane::job::RunOptions {
                engine: Some(engine),
                ..crate::common::run_options()
            },
        )
        .unwrap_or_else(|e| panic!("{engine}: {e}"));
        let d = r.summary.draw.clone();
        assert_eq!(d.engine, engine.to_string());
        let compiled = |stage: &str| {
            d.jit
                .iter()
                .any(|j| j.starts_with(&format!("{stage}: jit: ")))
        };
        match engine {
            Engine::Interp => assert!(d.jit.is_empty(), "{:?}", d.jit),
            Engine::Jit => assert!(compiled("as") && compiled("ms"), "{:?}", d.jit),
        }
        runs.push((
            r.targets[0].view.texture.to_bytes(),
            (
                d.amplification_groups,
                d.mesh_groups,
                d.as_lane_instructions,
                d.ms_lane_instructions,
                d.primitives,
                d.pixels_shaded,
            ),
        ));
    }
    assert!(runs[0].0 == runs[1].0, "the engines drew different targets");
    assert_eq!(runs[0].1, runs[1].1);
    assert!(runs[0].1.1 > 0 && runs[0].1.4 > 0, "{:?}", runs[0].1);
}

/// Mesh shader spec, "Rendering of the mesh": a mesh program of output topology `line`
/// draws lines, each index tuple two vertices — D3D12 has no point topology for mesh
/// programs (`[outputtopology]` takes `line` or `triangle`). Two threads each write a
/// vertex at y = 0.25 (screen row 1.5 of a 4 × 4 target), thread 0 at x = −0.75
/// (screen 0.5, pixel 0's centre), thread 1 at x = 0.75 (screen 3.5, pixel 3's centre);
/// thread 0 writes line 0 = (0, 1) in red. D3D11.3 §3.4.3 (aliased lines, diamond
/// exit): a pixel is drawn where the line leaves its diamond, so pixels 0, 1 and 2 of
/// row 1 are red (the line ends inside pixel 3's diamond) and every other pixel keeps
/// the clear. Without the index tuple nothing is drawn.
#[test]
fn a_line_topology_mesh_program_draws_lines() {
    let text = |indices: bool| {
        format!(
            "shader mesh
group [2 1 1]
regs 12
const r0 = 0x0
const r1 = 0x1
const r2 = 0x3f800000
const r3 = 0xbf400000
const r4 = 0x3f400000
const r5 = 0x3e800000
const r6 = 0x2
io_words in 0 out 4
output \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0
primitive_output \"PRIMCOLOR\" 0 sv none reg 1 rows 1 mask xyzw float interp undefined slot 0
mesh topology line max_vertices 2 max_primitives 1 payload_bytes 0 primitive_words 4
block0:
    group_index r7
    mesh_counts r6, r1
    icmp eq, r8, r7, r0
    select r9, r8, r3, r4
    mesh_vertex_out 0, _, 1, r7, r9
    mesh_vertex_out 1, _, 1, r7, r5
    mesh_vertex_out 2, _, 1, r7, r0
    mesh_vertex_out 3, _, 1, r7, r2
    branch r8, block1, block2
block1:
    mesh_primitive_out 0, _, 1, r0, r2
    mesh_primitive_out 1, _, 1, r0, r0
    mesh_primitive_out 2, _, 1, r0, r0
    mesh_primitive_out 3, _, 1, r0, r2
    {}
    jump block2
block2:
    return
",
            if indices {
                "mesh_indices r0, [r0 r1 _]"
            } else {
                ""
            }
        )
    };
    for indices in [true, false] {
        let t = text(indices);
        let ms = parse_shader(&t).unwrap_or_else(|e| panic!("{e}\n{t}"));
        let (r, img) = run(&ms, None, [1, 1, 1]).unwrap();
        for y in 0..4 {
            for x in 0..4 {
                let want = if indices && y == 1 && x < 3 {
                    [255, 0, 0, 255]
                } else {
                    [0; 4]
                };
                assert_eq!(pixel(&img, x, y), want, "indices {indices}: ({x}, {y})");
            }
        }
        assert_eq!(r.pixels_shaded, if indices { 3 } else { 0 });
    }
}

/// Mesh shader spec, "SV_PrimitiveID in the Pixel Shader": the pixel program reads the
/// per-primitive `SV_PrimitiveID` the mesh program wrote (there is no generated one).
/// The plain program with its per-primitive word 4 declared `SV_PrimitiveID`, thread 0
/// writing 0 for primitive 0 and thread 1 writing 7 for primitive 1; a pixel program
/// writing the id it reads as id / 255 in every channel but alpha: the lower-left half
/// (primitive 0) gets 0, the upper-right half (primitive 1) 7.
#[test]
fn the_pixel_program_reads_the_mesh_programs_primitive_id() {
    let text = mesh_text(Ms {
        cull1: true,
        ..PLAIN
    })
    .replace(
        "primitive_output \"SV_CullPrimitive\" 0 sv cull_primitive",
        "primitive_output \"SV_PrimitiveID\" 0 sv primitive_id",
    )
    .replace("const r11 = 4294967295", "const r11 = 7");
    assert!(text.contains("const r11 = 7"), "{text}");
    let ms = parse_shader(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let ps = parse_shader(
        "shader pixel
regs 4
const r0 = 0x3b808081
const r1 = 0x3f800000
io_words in 8 out 4
input \"SV_PrimitiveID\" 0 sv primitive_id reg none rows 1 mask x uint interp constant slot 4
output \"SV_Target\" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    input r2, 4
    utof r2, r2
    fmul r2, r2, r0
    output 0, r2
    output 1, r2
    output 2, r2
    output 3, r1
    return
",
    )
    .unwrap();
    let none = Bindings::default();
    let rt = Texture::new(TextureDesc::tex2d(Format::R8G8B8A8_UNORM, 4, 4)).unwrap();
    let mut state = DrawState::new(&ms, Some(&ps), &none, &none);
    state.mesh = Some(MeshDraw {
        ms: (&ms, &none),
        amplification: None,
        groups: [1, 1, 1],
    });
    state.render_targets = vec![Some(RenderTargetView {
        texture: rt.clone(),
    })];
    state.rasterizer.cull_mode = CullMode::None;
    draw(&state, &DrawArgs::default(), &DrawOptions::default()).unwrap();
    let img = rt.to_bytes();
    assert_eq!(pixel(&img, 0, 3), [0, 0, 0, 255]);
    assert_eq!(pixel(&img, 3, 0), [7, 7, 7, 255]);
}

/// "Primitive Attributes" (`SV_ViewportArrayIndex` is a per-primitive output of a mesh
/// program) and D3D11.3 §15.6 "Viewport" and §15.7 "Scissor Test" (the viewport index
/// selects the viewport and its scissor rectangle; an index past the viewports set
/// selects viewport 0, "the effective index becomes 0" of
/// `D3D12_VIEW_INSTANCE_LOCATION`): the plain program
/// with its per-primitive word 4 declared `SV_ViewportArrayIndex`, thread 0 writing 0
/// and thread 1 `value`, into an 8 × 4 target with viewport 0 on its left half and
/// viewport 1 on its right half. With 1, primitive 0 (the lower-left half of its
/// viewport) is drawn on the left and primitive 1 (the upper-right half) on the right;
/// with 9 both are drawn on the left.
#[test]
fn a_per_primitive_viewport_index_routes_mesh_primitives_between_viewports() {
    use dxlane::pipeline::{Rect, Viewport};
    let program = |value: u32| {
        let text = mesh_text(Ms {
            cull1: true,
            ..PLAIN
        })
        .replace(
            "primitive_output \"SV_CullPrimitive\" 0 sv cull_primitive",
            "primitive_output \"SV_ViewportArrayIndex\" 0 sv viewport_array_index",
        )
        .replace("const r11 = 4294967295", &format!("const r11 = {value}"));
        parse_shader(&text).unwrap_or_else(|e| panic!("{e}\n{text}"))
    };
    let draw_halves = |ms: &Shader| {
        let ps = parse_shader(PS).unwrap();
        let none = Bindings::default();
        let rt = Texture::new(TextureDesc::tex2d(Format::R8G8B8A8_UNORM, 8, 4)).unwrap();
        let mut state = DrawState::new(ms, Some(&ps), &none, &none);
        state.mesh = Some(MeshDraw {
            ms: (ms, &none),
            amplification: None,
            groups: [1, 1, 1],
        });
        state.render_targets = vec![Some(RenderTargetView {
            texture: rt.clone(),
        })];
        state.rasterizer.cull_mode = CullMode::None;
        state.viewports = (0..2)
            .map(|k| Viewport {
                top_left_x: 4.0 * k as f32,
                ..Viewport::full(4, 4)
            })
            .collect();
        state.scissors = (0..2)
            .map(|k| Rect {
                left: 4 * k,
                top: 0,
                right: 4 * k + 4,
                bottom: 4,
            })
            .collect();
        draw(&state, &DrawArgs::default(), &DrawOptions::default()).unwrap();
        let b = rt.to_bytes();
        move |x: usize, y: usize| {
            let i = (y * 8 + x) * 4;
            [b[i], b[i + 1], b[i + 2], b[i + 3]]
        }
    };
    let px = draw_halves(&program(1));
    assert_eq!(px(0, 3), [255, 0, 0, 255], "primitive 0 in viewport 0");
    assert_eq!(px(3, 0), [0, 0, 0, 0], "primitive 1 not in viewport 0");
    assert_eq!(px(7, 0), [0, 255, 0, 255], "primitive 1 in viewport 1");
    assert_eq!(px(4, 3), [0, 0, 0, 0], "primitive 0 not in viewport 1");
    let px = draw_halves(&program(9));
    assert_eq!(px(0, 3), [255, 0, 0, 255]);
    assert_eq!(px(3, 0), [0, 255, 0, 255], "index 9: viewport 0");
    assert_eq!(px(7, 0), [0, 0, 0, 0], "viewport 1 untouched");
}

/// VRS "Per-Primitive Attribute" with the mesh shader's per-primitive `SV_ShadingRate`
/// (D3D12's `MeshShaderPerPrimitiveShadingRateSupported`, which `pipeline::vrs` states)
/// and "Combining Shading Rate Factors" with combiner 0 `OVERRIDE`: the plain program's
/// per-primitive word 4 declared `SV_ShadingRate`, primitive 0 (the lower-left half of a
/// 4 × 4 target) at 0 (1X1) and primitive 1 (the upper-right half) at 5 (2X2). A pixel
/// program writing its `SV_Position.xy`: a 1X1 lane stands at its pixel's centre, a 2X2
/// lane at its coarse pixel's centre (the rule `tests/all/vrs.rs`
/// `coarse_pixels_take_their_centre_and_derivatives_span_them` holds), so pixel (3, 0)
/// of primitive 1 reads (3, 1), the centre of the 2 × 2 block
/// from (2, 0), and pixel (0, 3) of primitive 0 reads (0.5, 3.5). With `PASSTHROUGH` the
/// draw's 1X1 stands and pixel (3, 0) reads (3.5, 0.5).
#[test]
fn a_per_primitive_shading_rate_makes_a_mesh_primitive_shade_coarsely() {
    use dxlane::pipeline::vrs::{Combiner, ShadingRate, ShadingRateState};
    let text = mesh_text(Ms {
        cull1: true,
        ..PLAIN
    })
    .replace(
        "primitive_output \"SV_CullPrimitive\" 0 sv cull_primitive",
        "primitive_output \"SV_ShadingRate\" 0 sv shading_rate",
    )
    .replace("const r11 = 4294967295", "const r11 = 5");
    let ms = parse_shader(&text).unwrap_or_else(|e| panic!("{e}\n{text}"));
    let ps = parse_shader(
        "shader pixel
regs 4
const r0 = 0x3f800000
io_words in 4 out 4
input \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp noperspective slot 0
output \"SV_Target\" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    input r1, 0
    input r2, 1
    output 0, r1
    output 1, r2
    output 2, r0
    output 3, r0
    return
",
    )
    .unwrap();
    let position = |combiner: Combiner| {
        let none = Bindings::default();
        let rt = Texture::new(TextureDesc::tex2d(Format::R32G32B32A32_FLOAT, 4, 4)).unwrap();
        let mut state = DrawState::new(&ms, Some(&ps), &none, &none);
        state.mesh = Some(MeshDraw {
            ms: (&ms, &none),
            amplification: None,
            groups: [1, 1, 1],
        });
        state.render_targets = vec![Some(RenderTargetView {
            texture: rt.clone(),
        })];
        state.rasterizer.cull_mode = CullMode::None;
        state.shading_rate = ShadingRateState {
            rate: ShadingRate::X1X1,
            combiners: [combiner, Combiner::Passthrough],
            image: None,
        };
        draw(&state, &DrawArgs::default(), &DrawOptions::default()).unwrap();
        let b = rt.to_bytes();
        move |x: usize, y: usize| {
            let i = (y * 4 + x) * 16;
            let f = |k: usize| f32::from_le_bytes(b[i + k..i + k + 4].try_into().unwrap());
            (f(0), f(4))
        }
    };
    let at = position(Combiner::Override);
    assert_eq!(at(3, 0), (3.0, 1.0), "primitive 1 at 2X2");
    assert_eq!(at(2, 1), (3.0, 1.0), "the same coarse pixel");
    assert_eq!(at(0, 3), (0.5, 3.5), "primitive 0 at 1X1");
    let at = position(Combiner::Passthrough);
    assert_eq!(at(3, 0), (3.5, 0.5), "the draw's 1X1");
}

/// The corpus's other mesh program, dxcontainer's `features/meshderiv.dxil` (dxc
/// `ms_6_6`: `[numthreads(4, 1, 1)]`, `out vertices V v[3]`, `SetMeshOutputCounts(3, 1)`,
/// then every thread `i` writes `v[i]`), writes vertex 3 from thread 3: past the count
/// it set, which the mesh shader spec ("SetMeshOutputCounts") leaves undefined. By the
/// issue's bad-input rule the draw is refused with an error naming the program, group,
/// thread and value, and nothing panics.
#[test]
fn the_corpus_meshderiv_program_is_refused_for_writing_past_its_vertex_count() {
    let Some(corpus) = crate::common::corpora()
        .iter()
        .find(|d| d.ends_with("dxcontainer"))
    else {
        eprintln!("SKIPPED mesh::the_corpus_meshderiv_program_is_refused…: no corpora");
        return;
    };
    let dir = crate::common::scratch().join("mesh_jobs");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("meshderiv.toml");
    let text = format!(
        "[program]\nms = \"{}\"\n[draw]\ndispatch_mesh = [1, 1, 1]\n\
[[draw.render_target]]\nformat = \"R8G8B8A8_UNORM\"\nwidth = 4\nheight = 4\n\
[[resource]]\nreg = \"t0\"\nkind = \"texture2d\"\nformat = \"R32G32B32A32_FLOAT\"\nwidth = 1\nheight = 1\ndata = {{ f32 = [0.5, 0.5, 0, 1] }}\n\
[[resource]]\nreg = \"s0\"\nkind = \"sampler\"\nfilter = \"MIN_MAG_MIP_POINT\"\n",
        corpus.join("features/meshderiv.dxil").display()
    );
    std::fs::write(&path, text).unwrap();
    let job = dxlane::job::Job::load(&path).unwrap();
    let Err(e) = dxlane::job::run_draw_job(job, &crate::common::run_options()) else {
        panic!("meshderiv.dxil drew");
    };
    let e = e.to_string();
    for part in [
        "mesh program main",
        "group (0, 0, 0)",
        "thread (3, 0, 0)",
        "wrote vertex 3, not below the vertex count 3",
    ] {
        assert!(e.contains(part), "{e:?} does not say {part:?}");
    }
}
