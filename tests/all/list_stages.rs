//! A command list's draws through every stage a single draw has: tessellated draws (vertex,
//! hull, tessellator, domain and a geometry program after it, with stream output) and
//! mesh draws (`dispatch_mesh`, and `execute_indirect` of `DispatchMesh` arguments), each
//! compared bit for bit with the same draw as a single-draw job and with values worked
//! out by hand; and bad commands refused naming the command and the key.
//!
//! The tessellated programs are `tests/jobs/gs_after_ds/gs_after_ds.hlsl` (whose values
//! `tests/all/tessellation_stages.rs` works out) and `tests/jobs/list_stages/replay.hlsl`;
//! the mesh programs are the IR programs of `tests/all/mesh.rs`, written beside the job.

use std::path::{Path, PathBuf};

use dxlane::job::{Finished, Job, ListResult, prepare};

use crate::common;
use crate::mesh::{Ms, PLAIN, PS, amplification_text, mesh_text};

/// A fresh folder for test `name` holding `files` (name, text) and `job.toml` with
/// `text`, in which `ROOT` stands for the repository's root.
fn job(name: &str, text: &str, files: &[(&str, String)]) -> PathBuf {
    let dir = common::scratch().join("list_stages").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (file, body) in files {
        std::fs::write(dir.join(file), body).unwrap();
    }
    let text = text.replace("ROOT", &common::root().display().to_string());
    let path = dir.join("job.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn run(path: &Path) -> Result<Finished, String> {
    let job = Job::load(path).map_err(|e| e.to_string())?;
    let opts = common::run_options();
    prepare(job, &opts)
        .and_then(|p| p.execute(&opts))
        .map_err(|e| e.to_string())
}

fn list(name: &str, text: &str, files: &[(&str, String)]) -> ListResult {
    match run(&job(name, text, files)) {
        Ok(Finished::List(r)) => *r,
        Ok(_) => panic!("{name}: not a list"),
        Err(e) => panic!("{name}: {e}"),
    }
}

fn refused(name: &str, text: &str, files: &[(&str, String)]) -> String {
    match run(&job(name, text, files)) {
        Ok(_) => panic!("{name}: the job ran"),
        Err(e) => e,
    }
}

/// The bytes of named resource `index` (in file order) after the list.
fn bytes_of(r: &ListResult, index: usize) -> Vec<u8> {
    r.bound.resources[index]
        .memory()
        .expect("storage")
        .to_bytes()
}

fn words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// The control points of `tessellation_stages::gs_after_ds_job`: patch `p`'s three at
/// the centres of pixels (0, p), (1, p), (2, p) of an 8 × 8 target.
fn centre(x: f32, y: f32) -> [f32; 3] {
    [(x + 0.5) / 4.0 - 1.0, 1.0 - (y + 0.5) / 4.0, 0.5]
}

const GS_AFTER_DS: &str = "ROOT/tests/jobs/gs_after_ds/gs_after_ds";

/// A clear, the tessellated draw of `gs_after_ds_job` (vs → hs → tessellator → ds → gs →
/// ps) streaming its geometry program's points out to "points", then a plain draw of
/// those records as vertices through `replay.hlsl`; `tess` is the tessellated draw's
/// program and topology keys.
fn tess_list(tess: &str) -> String {
    let control: Vec<String> = (0..2)
        .flat_map(|p| (0..3).map(move |x| centre(x as f32, p as f32)))
        .flat_map(|c| c.map(|v| v.to_string()))
        .collect();
    format!(
        r#"
[[resource]]
name = "control"
kind = "raw_buffer"
size = 72
data = {{ f32 = [{control}] }}

[[resource]]
name = "points"
kind = "raw_buffer"
size = 224
data = {{ fill_u32 = 0xdeadbeef }}

[[resource]]
name = "filled"
kind = "raw_buffer"
size = 4

[[resource]]
name = "rt"
kind = "texture2d"
format = "R32G32B32A32_UINT"
width = 8
height = 8

[[command]]
type = "clear_render_target"
resource = "rt"
color = [7, 7, 7, 7]

[[command]]
type = "draw"
{tess}
vertex_count = 6
vertex_buffers = [{{ slot = 0, resource = "control", stride = 12 }}]
input_element = [{{ semantic = "POSITION", format = "R32G32B32_FLOAT" }}]
rasterizer = {{ cull = "NONE" }}
render_targets = [{{ resource = "rt" }}]
stream_output = [{{ semantic = "SV_Position" }}, {{ semantic = "DATA" }}]
stream_output_buffers = [{{ resource = "points", stride = 32, filled_size_resource = "filled" }}]

[[command]]
type = "draw"
vs = "ROOT/tests/jobs/list_stages/replay.vs_5_0.dxbc"
ps = "{GS_AFTER_DS}.ps_5_0.dxbc"
topology = "point_list"
vertex_count = 6
vertex_buffers = [{{ slot = 0, resource = "points", stride = 32 }}]
input_element = [
    {{ semantic = "POSITION", format = "R32G32B32A32_FLOAT" }},
    {{ semantic = "DATA", format = "R32G32B32A32_UINT" }},
]
render_targets = [{{ resource = "rt" }}]
"#,
        control = control.join(", ")
    )
}

/// The tessellated draw's programs and topology, every stage.
fn tess_programs() -> String {
    format!(
        "vs = \"{GS_AFTER_DS}.vs_5_0.dxbc\"\nhs = \"{GS_AFTER_DS}.hs_5_0.dxbc\"\n\
         ds = \"{GS_AFTER_DS}.ds_5_0.dxbc\"\ngs = \"{GS_AFTER_DS}.gs_5_0.dxbc\"\n\
         ps = \"{GS_AFTER_DS}.ps_5_0.dxbc\"\ntopology = \"3_control_point_patchlist\""
    )
}

/// A tessellated draw in a list, a geometry program after its domain program, draws
/// what the same draw as a single-draw job draws, bit for bit; its stream output
/// (D3D11.3 §14: the geometry program's stream 0, whole primitives, in order) feeds
/// the next draw (order implies the barrier, `pipeline::commands`). By hand, from
/// `a_geometry_program_reads_the_tessellators_primitives` (every factor 1: each patch
/// one triangle of its corners, tessellator points (0, 1), (0, 0), (1, 0) landing on
/// control points 1, 2, 0): patch `p`'s points are records 3p … 3p + 2, each
/// `SV_Position` then `DATA` = (SV_PrimitiveID, index in the primitive, u bits, v
/// bits); the second draw puts each four rows lower with 100 added to DATA.x.
#[test]
fn a_tessellated_draw_streams_out_to_the_next_draw() {
    let r = list("tess", &tess_list(&tess_programs()), &[]);
    let c = &r.summary.commands;
    assert_eq!(c[1].kind, "draw");
    let so = c[1].stream_output.expect("stream-output statistics")[0];
    assert_eq!(
        (so.primitives_written, so.primitives_storage_needed),
        (6, 6)
    );
    assert_eq!((c[1].pixels_shaded, c[2].pixels_shaded), (6, 6));
    // Every stage's lanes count: the vertex, hull, domain, geometry and pixel programs.
    assert!(c[1].lane_instructions > c[2].lane_instructions);

    let one = 1f32.to_bits();
    let mut want = Vec::new();
    for p in 0..2u32 {
        for (pixel, data) in [
            (1.0, [p, 0, 0, one]),
            (2.0, [p, 1, 0, 0]),
            (0.0, [p, 2, one, 0]),
        ] {
            want.extend(centre(pixel, p as f32).map(f32::to_bits));
            want.push(one);
            want.extend(data);
        }
    }
    want.extend([0xdeadbeef; 8]);
    assert_eq!(words(&bytes_of(&r, 1)), want, "the streamed-out records");
    assert_eq!(words(&bytes_of(&r, 2)), [6 * 32], "BufferFilledSize");

    let rt = words(&bytes_of(&r, 3));
    let texel =
        |x: usize, y: usize| -> [u32; 4] { std::array::from_fn(|c| rt[(y * 8 + x) * 4 + c]) };
    for p in 0..2u32 {
        let y = p as usize;
        for (row, add) in [(y, 0), (y + 4, 100)] {
            assert_eq!(texel(0, row), [p + add, 2, one, 0], "row {row}");
            assert_eq!(texel(1, row), [p + add, 0, 0, one], "row {row}");
            assert_eq!(texel(2, row), [p + add, 1, 0, 0], "row {row}");
            assert_eq!(texel(3, row), [7; 4], "row {row}");
        }
    }
    for row in [2, 3, 6, 7] {
        assert!((0..8).all(|x| texel(x, row) == [7; 4]), "row {row}");
    }

    // The same draw as a single-draw job: rows 0 to 3 (the second draw writes rows 4
    // and 5) are the same bytes.
    let single = crate::draw::run_text(
        "list-stages-single-tess",
        &crate::tessellation_stages::gs_after_ds_job(""),
        1,
    )
    .unwrap_or_else(|e| panic!("{e}"));
    let single = single.targets[0].view.texture.to_bytes();
    let half = 4 * 8 * 16;
    assert_eq!(bytes_of(&r, 3)[..half], single[..half]);
}

/// A list's tessellated draw is checked as a single draw is (D3D11.3 §10, §8; D3D12
/// refuses such a pipeline state), each error naming the command and refused before
/// the list runs: a hull program without a domain program and the other way round, a
/// patch list with no hull program, a patch list of another size than the hull
/// program reads.
#[test]
fn bad_tessellated_list_draws_are_refused_by_command() {
    let full = tess_programs();
    let ds_line = format!("ds = \"{GS_AFTER_DS}.ds_5_0.dxbc\"\n");
    let hs_line = format!("hs = \"{GS_AFTER_DS}.hs_5_0.dxbc\"\n");
    let gs_line = format!("gs = \"{GS_AFTER_DS}.gs_5_0.dxbc\"\n");
    let cases = [
        (full.replace(&ds_line, ""), "`hs` without `ds`"),
        (full.replace(&hs_line, ""), "`ds` without `hs`"),
        (
            full.replace(&ds_line, "")
                .replace(&hs_line, "")
                .replace(&gs_line, ""),
            "makes patches, which only a hull program reads",
        ),
        (
            full.replace("3_control_point_patchlist", "2_control_point_patchlist"),
            "patches of 3 control points",
        ),
    ];
    for (i, (programs, want)) in cases.iter().enumerate() {
        // Without stream output, so that only the stages are wrong.
        let text = tess_list(programs)
            .lines()
            .filter(|l| !l.starts_with("stream_output"))
            .collect::<Vec<_>>()
            .join("\n");
        let e = refused(&format!("tess-bad-{i}"), &text, &[]);
        assert!(
            e.contains("[[command]] #2 (draw)") && e.contains(want),
            "case {i}: {e}"
        );
        // Refused while the list is made: the error is the job's, not a command's run.
        assert!(!e.contains("bad dispatch"), "case {i}: {e}");
    }
}

/// The mesh programs of `tests/all/mesh.rs` as files: `quad.ms.ir` (the plain full-target
/// quad, primitive 0 red and 1 green), `payload.ms.ir` (its blue from a 4-byte payload),
/// `amp.as.ir` (a 2-thread amplification group storing 1.0 as the payload and launching
/// 3 × 1 × 1 mesh groups) and `prim.ps.ir` (writes the per-primitive colour).
fn mesh_files() -> Vec<(&'static str, String)> {
    vec![
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
    ]
}

const MESH_TARGET: &str = r#"
[[resource]]
name = "rt"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = 4
height = 4
"#;

/// Runs the single mesh draw of `programs` (`[program]` keys) over `groups` into a 4 × 4
/// RGBA8 target; the target's bytes.
fn single_mesh(name: &str, programs: &str, groups: [u32; 3]) -> Vec<u8> {
    let text = format!(
        "[program]\n{programs}\n[draw]\ndispatch_mesh = {groups:?}\n\n[draw.rasterizer]\ncull = \"NONE\"\n\n\
         [[draw.render_target]]\nformat = \"R8G8B8A8_UNORM\"\nwidth = 4\nheight = 4\n"
    );
    let path = job(name, &text, &mesh_files());
    let job = Job::load(&path).unwrap();
    let r =
        dxlane::job::run_draw_job(job, &common::run_options()).unwrap_or_else(|e| panic!("{e}"));
    r.targets[0].view.texture.to_bytes()
}

fn pixel(img: &[u8], x: usize, y: usize) -> [u8; 4] {
    let i = (y * 4 + x) * 4;
    [img[i], img[i + 1], img[i + 2], img[i + 3]]
}

/// `dispatch_mesh` in a list draws what `draw.dispatch_mesh` draws, bit for bit, with and
/// without an amplification program (mesh shader spec, "DispatchMesh API" and
/// "Amplification shader"): by hand, primitive 0 (lower left) red and primitive 1
/// (upper right) green, blue the payload's 1.0 through the amplification program; two
/// amplification groups each launching three mesh groups shade the 16 pixels six times.
#[test]
fn dispatch_mesh_in_a_list_draws_as_a_single_mesh_draw() {
    for (name, programs, groups, blue, shaded) in [
        (
            "ms",
            "ms = \"quad.ms.ir\"\nps = \"prim.ps.ir\"",
            [1, 1, 1],
            0,
            16,
        ),
        (
            "as",
            "as = \"amp.as.ir\"\nms = \"payload.ms.ir\"\nps = \"prim.ps.ir\"",
            [2, 1, 1],
            255,
            96,
        ),
    ] {
        let text = format!(
            "{MESH_TARGET}\n[[command]]\ntype = \"dispatch_mesh\"\n{programs}\ngroups = {groups:?}\n\
             rasterizer = {{ cull = \"NONE\" }}\nrender_targets = [{{ resource = \"rt\" }}]\n"
        );
        let r = list(&format!("mesh-{name}"), &text, &mesh_files());
        let c = &r.summary.commands[0];
        assert_eq!(
            (c.kind.as_str(), c.pixels_shaded),
            ("dispatch_mesh", shaded),
            "{name}"
        );
        let img = bytes_of(&r, 0);
        assert_eq!(pixel(&img, 0, 3), [255, 0, blue, 255], "{name}");
        assert_eq!(pixel(&img, 3, 0), [0, 255, blue, 255], "{name}");
        assert_eq!(
            img,
            single_mesh(&format!("single-{name}"), programs, groups),
            "{name}"
        );
    }
}

/// `execute_indirect` of `DispatchMesh` arguments (`D3D12_DISPATCH_MESH_ARGUMENTS`: three
/// UINTs a record; the count is the smaller of the count buffer's value and
/// `MaxCommandCount`, ExecuteIndirect's pseudo-code): records (1, 1, 1), (2, 1, 1),
/// (4, 1, 1) with a count of 2 run the first two — 1 + 2 mesh groups of 16 pixels — and
/// draw what one single mesh draw of 3 groups draws.
#[test]
fn execute_indirect_dispatches_mesh_groups_up_to_the_count() {
    let text = format!(
        r#"{MESH_TARGET}
[[resource]]
name = "args"
kind = "raw_buffer"
size = 36
data = {{ u32 = [1, 1, 1,  2, 1, 1,  4, 1, 1] }}

[[resource]]
name = "count"
kind = "raw_buffer"
size = 4
data = {{ u32 = [2] }}

[[command]]
type = "execute_indirect"
signature = "dispatch_mesh"
ms = "quad.ms.ir"
ps = "prim.ps.ir"
arguments = "args"
max_command_count = 3
count_buffer = "count"
rasterizer = {{ cull = "NONE" }}
render_targets = [{{ resource = "rt" }}]
"#
    );
    let r = list("mesh-indirect", &text, &mesh_files());
    let c = &r.summary.commands[0];
    assert_eq!((c.runs, c.pixels_shaded), (2, 48));
    assert_eq!(
        bytes_of(&r, 0),
        single_mesh(
            "single-indirect",
            "ms = \"quad.ms.ir\"\nps = \"prim.ps.ir\"",
            [3, 1, 1]
        )
    );
}

/// Bad mesh commands, each an error naming the command and the key or record: a grid
/// past the DispatchMesh API's limits (each count below 64k, the product at most 2^22;
/// mesh shader spec, "DispatchMesh API") given by the command or read from an argument
/// record; what a mesh pipeline has none of ("CreatePipelineState": no input
/// assembler, no vertex, hull, domain or geometry program); a missing mesh program; mesh
/// programs in a draw's `execute_indirect`; an argument buffer too small for
/// `max_command_count` records of 12 bytes.
#[test]
fn bad_mesh_commands_name_the_command_and_key() {
    let draw = "rasterizer = { cull = \"NONE\" }\nrender_targets = [{ resource = \"rt\" }]\n";
    let direct = |extra: &str| {
        format!(
            "{MESH_TARGET}\n[[command]]\ntype = \"dispatch_mesh\"\nms = \"quad.ms.ir\"\n{extra}{draw}"
        )
    };
    let indirect = |args: &str, extra: &str| {
        format!(
            "{MESH_TARGET}\n[[resource]]\nname = \"args\"\nkind = \"raw_buffer\"\nsize = 12\n\
             data = {{ u32 = [{args}] }}\n\n[[command]]\ntype = \"execute_indirect\"\n\
             arguments = \"args\"\nmax_command_count = 1\n{extra}{draw}"
        )
    };
    let mesh_sig = "signature = \"dispatch_mesh\"\nms = \"quad.ms.ir\"\n";
    let cases = [
        (
            direct("groups = [65536, 1, 1]\n"),
            "[[command]] #1 (dispatch_mesh)",
            "`groups` (mesh groups): 65536 mesh groups in one dimension",
        ),
        (
            direct("groups = [4096, 4096, 1]\n"),
            "[[command]] #1 (dispatch_mesh)",
            "2^22",
        ),
        (
            direct("groups = [1, 1, 1]\nvs = \"prim.ps.ir\"\n"),
            "[[command]] #1 (dispatch_mesh)",
            "`vs`: a mesh draw has no input assembler",
        ),
        (
            direct("groups = [1, 1, 1]\nhs = \"prim.ps.ir\"\n"),
            "[[command]] #1 (dispatch_mesh)",
            "`hs`: a mesh draw",
        ),
        (
            direct("groups = [1, 1, 1]\ntopology = \"triangle_list\"\n"),
            "[[command]] #1 (dispatch_mesh)",
            "`topology`: a mesh draw",
        ),
        (
            direct("").replace("ms = \"quad.ms.ir\"\n", "groups = [1, 1, 1]\n"),
            "[[command]] #1 (dispatch_mesh)",
            "missing `ms`",
        ),
        (
            direct(""),
            "[[command]] #1 (dispatch_mesh)",
            "missing `groups`",
        ),
        (
            direct("groups = [1, 1, 1]\nas = \"quad.ms.ir\"\n"),
            "[[command]] #1 (dispatch_mesh)",
            "`as`",
        ),
        (
            indirect("70000, 1, 1", mesh_sig),
            "[[command]] #1 (execute_indirect)",
            "record 0",
        ),
        (
            indirect("4096, 4096, 1", mesh_sig),
            "[[command]] #1 (execute_indirect)",
            "2^22",
        ),
        (
            indirect(
                "1, 1, 1",
                &format!(
                    "{mesh_sig}input_element = [{{ semantic = \"POSITION\", format = \"R32_FLOAT\" }}]\n"
                ),
            ),
            "[[command]] #1 (execute_indirect)",
            "`input_element`: a mesh draw",
        ),
        (
            indirect(
                "1, 1, 1",
                "signature = \"draw\"\nvs = \"prim.ps.ir\"\nms = \"quad.ms.ir\"\n",
            ),
            "[[command]] #1 (execute_indirect)",
            "`ms`: `signature = \"draw\"`",
        ),
        (
            indirect("1, 1, 1", mesh_sig).replace("max_command_count = 1", "max_command_count = 2"),
            "[[command]] #1 (execute_indirect)",
            "need 24",
        ),
    ];
    for (i, (text, command, want)) in cases.iter().enumerate() {
        let e = refused(&format!("mesh-bad-{i}"), text, &mesh_files());
        assert!(e.contains(command) && e.contains(want), "case {i}: {e}");
    }
}
