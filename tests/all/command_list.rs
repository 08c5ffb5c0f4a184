//! Command-list jobs (`[[command]]`): the examples in `examples/lists/` hold their
//! expectations; each command sees the writes before it; the list's budget is one; bad
//! commands are errors naming the command and the field; `debug --event` selects a
//! dispatch of the list.
//!
//! Programs are the compiled examples' (`shaders/`); each job runs in its own folder
//! under cargo's test temporary directory.

use std::path::{Path, PathBuf};

use dxlane::debug;
use dxlane::job::{Finished, Job, prepare};
use dxlane::pipeline::{LaneSelect, Work};

use crate::common;

/// A fresh folder for test `name`, holding `job.toml` with `text` (programs are named
/// through `SHADERS`, replaced by the repository's `shaders/` folder).
fn job(name: &str, text: &str) -> PathBuf {
    let dir = common::scratch().join("command_list").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let shaders = common::root().join("shaders");
    let text = text.replace("SHADERS", &shaders.display().to_string());
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

fn error_of(name: &str, text: &str) -> String {
    match run(&job(name, text)) {
        Ok(_) => panic!("{name}: the job ran"),
        Err(e) => e,
    }
}

const BUFFERS: &str = r#"
[[resource]]
name = "args"
kind = "raw_buffer"
size = 24

[[resource]]
name = "values"
kind = "structured_buffer"
stride = 4
size = 1024

[[resource]]
name = "small"
kind = "raw_buffer"
size = 8

[[resource]]
name = "tex"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = 4
height = 4

[[resource]]
name = "ftex"
kind = "texture2d"
format = "R32_FLOAT"
width = 4
height = 4
"#;

/// Every example list runs and holds every expectation it states.
#[test]
fn list_examples_hold_their_expectations() {
    let dir = common::root().join("examples/lists");
    let mut jobs: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .filter(|p| p.extension().is_some_and(|x| x == "toml"))
        .collect();
    jobs.sort();
    assert!(jobs.len() >= 2, "{jobs:?}");
    for path in &jobs {
        let Finished::List(r) = run(path).unwrap() else {
            panic!("{}: not a list", path.display())
        };
        let e = &r.summary.expectations;
        assert!(e.passed >= 3 && e.failed == 0, "{}: {e:?}", path.display());
        assert_eq!(r.summary.commands.len(), 4, "{}", path.display());
    }
}

/// Every picture an example list writes matches its golden in `goldens/`, bit for bit
/// (`DXLANE_BLESS=1` rewrites them, as for the draw examples).
#[test]
fn list_example_pictures_match_goldens() {
    let dir = common::root().join("examples/lists");
    let mut compared = 0;
    let mut failures = Vec::new();
    for name in ["shadow", "render_target_array"] {
        let text = std::fs::read_to_string(dir.join(format!("{name}.toml")))
            .unwrap()
            .replace("../../shaders", "SHADERS");
        let path = job(&format!("golden_{name}"), &text);
        let Finished::List(r) = run(&path).unwrap() else {
            panic!("{name}: not a list")
        };
        for o in r
            .summary
            .outputs
            .iter()
            .filter(|o| o.path.ends_with(".png"))
        {
            let file = Path::new(&o.path)
                .file_name()
                .unwrap()
                .to_string_lossy()
                .into_owned();
            compared += 1;
            if let Some(m) = crate::draw::compare_golden(Path::new(&o.path), &file) {
                failures.push(m);
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared >= 2, "compared {compared} pictures");
}

/// The example frames (`examples/frames/`): each runs, holds its expectations, and its
/// picture matches its golden in `goldens/` bit for bit (`DXLANE_BLESS=1` rewrites
/// them). `gpu_driven` draws through an `ExecuteIndirect` whose arguments and count a
/// dispatch of the same list wrote; `deferred` samples three render targets the list
/// wrote and tonemaps in a compute pass; `cube_map` renders a cube's faces slice by
/// slice and samples it as a `TextureCube`, `cube_map_one_pass` renders them in one draw
/// through a geometry program's `SV_RenderTargetArrayIndex`, `cube_map_instanced` in one
/// draw of a geometry program of six instances (its program beside it); `particles` streams out
/// a geometry program's particle step and draws the buffer with `draw_auto`
/// (`stage_examples` checks what their pictures do not show); `vrs` shades with a
/// screen-space rate image, per-primitive rates and a draw's base rate combined by MAX
/// (tier 2 variable-rate shading; its expectations hold one 4X4 coarse pixel).
#[test]
fn frame_examples_run_and_match_goldens() {
    let dir = common::root().join("examples/frames");
    let mut failures = Vec::new();
    for (name, commands) in [
        ("cube_map", 13),
        ("cube_map_one_pass", 8),
        ("cube_map_instanced", 8),
        ("deferred", 7),
        ("gpu_driven", 3),
        ("particles", 3),
        ("vrs", 3),
    ] {
        let text = std::fs::read_to_string(dir.join(format!("{name}.toml")))
            .unwrap()
            .replace("../../shaders", "SHADERS")
            .replace("\"./", &format!("\"{}/", dir.display()));
        let path = job(&format!("frame_{name}"), &text);
        let Finished::List(r) = run(&path).unwrap() else {
            panic!("{name}: not a list")
        };
        assert_eq!(r.summary.commands.len(), commands, "{name}");
        assert_eq!(
            r.summary.expectations.failed, 0,
            "{name}: {:?}",
            r.summary.expectations
        );
        let pictures: Vec<_> = r
            .summary
            .outputs
            .iter()
            .filter(|o| o.path.ends_with(".png"))
            .collect();
        assert_eq!(pictures.len(), 1, "{name}");
        let file = format!("{name}.png");
        if let Some(m) = crate::draw::compare_golden(Path::new(&pictures[0].path), &file) {
            failures.push(m);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// A cube texture is a 2D array resource in D3D12 (`TextureCube` is a view dimension;
/// a render-target view of its faces is `D3D12_RTV_DIMENSION_TEXTURE2DARRAY`, "Cube
/// textures" in the D3D12 resource binding documentation), so a draw renders into one
/// face through `slices = [face, 1]`: the face's texels change, the others keep their
/// clear. A cube used to be refused as a render target.
#[test]
fn a_draw_renders_into_one_face_of_a_cube() {
    let text = r#"
[[resource]]
name = "cube"
kind = "texturecube"
format = "R8G8B8A8_UNORM"
width = 4
height = 4
data = { fill_u32 = 0x11223344 }

[[command]]
type = "draw"
vs = "SHADERS/draw_fullscreen.vs_5_0.dxbc"
ps = "SHADERS/draw_fullscreen.ps_5_0.dxbc"
vertex_count = 3
render_targets = [{ resource = "cube", slices = [3, 1] }]

[[expect]]                      # face 2, texel (0, 0): untouched
resource = "cube"
offset = 128
hex = "44 33 22 11"

[[expect]]                      # face 4, texel (0, 0): untouched
resource = "cube"
offset = 256
hex = "44 33 22 11"

[[expect]]                      # face 3, texels (0, 0) and (3, 3): drawn, alpha 1.0
resource = "cube"
offset = 195
hex = "ff"

[[expect]]
resource = "cube"
offset = 255
hex = "ff"
"#;
    let Finished::List(r) = run(&job("cube_face", text)).unwrap() else {
        panic!("not a list")
    };
    assert_eq!(
        r.summary.expectations.failed, 0,
        "{:?}",
        r.summary.expectations
    );
    assert_eq!(r.summary.expectations.passed, 4);
}

/// ExecuteIndirect reads its arguments when it runs: a dispatch earlier in the list
/// wrote them (D3D12 resource state model: order implies the barrier). With a count
/// buffer, the count is min(count, MaxCommandCount) (the ExecuteIndirect pseudo-code):
/// a count of 9 with a maximum of 2 runs two records; a zero group count runs nothing.
#[test]
fn execute_indirect_counts_and_reads_arguments_late() {
    let text = format!(
        r#"{BUFFERS}
[[resource]]
name = "count"
kind = "raw_buffer"
size = 4
data = {{ u32 = [9] }}

[[command]]                     # args = (1, 1, 1, 0, 1, 1): records 0 and 1
type = "dispatch"
cs = "SHADERS/indirect_args.cs_5_0.dxbc"
groups = [1, 1, 1]
bind = [{{ reg = "u0", resource = "args" }}, {{ reg = "b0", u32 = [1] }}]

[[command]]
type = "copy_buffer_region"
dst = "args"
dst_offset = 12
src = "args"
src_offset = 0
bytes = 12

[[command]]
type = "execute_indirect"
cs = "SHADERS/indirect_fill.cs_5_0.dxbc"
bind = [{{ reg = "u0", resource = "values" }}]
arguments = "args"
stride = 12
max_command_count = 2
count_buffer = "count"

[[expect]]
resource = "values"
offset = 252
u32 = [190, 0]
"#
    );
    let Finished::List(r) = run(&job("indirect_count", &text)).unwrap() else {
        panic!("not a list")
    };
    assert_eq!(
        r.summary.expectations.failed, 0,
        "{:?}",
        r.summary.expectations
    );
    // Two records of one group of 64 threads each.
    assert_eq!(r.summary.commands[2].runs, 2);

    // Zero groups in a record: a no-op, not an error.
    let zero = text
        .replace("u32 = [1] }]", "u32 = [0] }]")
        .replace("u32 = [190, 0]", "u32 = [0, 0]");
    let Finished::List(r) = run(&job("indirect_zero", &zero)).unwrap() else {
        panic!("not a list")
    };
    assert_eq!(r.summary.commands[2].runs, 0);
    assert_eq!(r.summary.expectations.failed, 0);
}

/// Clears and copies, each with its D3D12 rule: a UAV float clear of a R32_FLOAT
/// texture writes the float; CopyTextureRegion moves a box; a render-target clear
/// converts to UNORM.
#[test]
fn clears_and_copies_follow_their_rules() {
    let text = format!(
        r#"{BUFFERS}
[[resource]]
name = "tex2"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = 4
height = 4

[[resource]]
name = "ms"
kind = "texture2dms"
format = "R8G8B8A8_UNORM"
width = 4
height = 4
samples = 4

[[resource]]
name = "resolved"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = 4
height = 4

[[command]]
type = "clear_unordered_access"
resource = "ftex"
float = [2.5, 0, 0, 0]

[[command]]
type = "clear_render_target"
resource = "ms"
color = [0.25, 1, 0, 1]

[[command]]
type = "resolve_subresource"
dst = "resolved"
src = "ms"

[[command]]
type = "clear_render_target"
resource = "tex"
color = [1, 0, 0.5, 1]

[[command]]
type = "copy_texture_region"
dst = "tex2"
dst_at = [2, 2, 0]
src = "tex"
src_box = [0, 0, 0, 1, 1, 1]

[[expect]]
resource = "ftex"
offset = 60
f32 = [2.5]

[[expect]]                      # every sample 0.25: the average stays 64/255
resource = "resolved"
offset = 60
hex = "40 ff 00 ff"

[[expect]]                      # texel (2, 2) of tex2: the copied texel; (3, 2): zero
resource = "tex2"
offset = 40
hex = "ff 00 80 ff 00 00 00 00"
"#
    );
    let Finished::List(r) = run(&job("clears", &text)).unwrap() else {
        panic!("not a list")
    };
    assert_eq!(
        r.summary.expectations.failed, 0,
        "{:?}",
        r.summary.expectations
    );
}

/// The list's budget is one: two dispatches that each fit `max_total_lane_instructions`
/// but not together fail at the second, naming it.
#[test]
fn one_budget_covers_the_whole_list() {
    let dispatch = r#"
[[command]]
type = "dispatch"
cs = "SHADERS/indirect_fill.cs_5_0.dxbc"
groups = [4, 1, 1]
bind = [{ reg = "u0", resource = "values" }]
"#;
    // One dispatch of 256 threads runs 1,536 lane-instructions.
    let text =
        format!("[options]\nmax_total_lane_instructions = 2000\n{BUFFERS}{dispatch}{dispatch}");
    let e = error_of("budget", &text);
    assert!(e.contains("[[command]] #2 (dispatch)"), "{e}");
    let one = format!("[options]\nmax_total_lane_instructions = 2000\n{BUFFERS}{dispatch}");
    assert!(run(&job("budget_one", &one)).is_ok());
}

/// Bad commands are errors naming the command and the field, never a panic.
#[test]
fn bad_commands_name_the_command_and_field() {
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "unknown_name",
            "[[command]]\ntype = \"copy_resource\"\ndst = \"values\"\nsrc = \"nope\"\n",
            &["[[command]] #1 (copy_resource)", "`src`", "\"nope\""],
        ),
        (
            "unknown_type",
            "[[command]]\ntype = \"draw_mesh\"\n",
            &["[[command]] #1 (draw_mesh)", "unknown `type`"],
        ),
        (
            "key_of_another_type",
            "[[command]]\ntype = \"copy_resource\"\ndst = \"values\"\nsrc = \"values\"\ngroups = [1, 1, 1]\n",
            &["`groups` does not apply to a copy_resource"],
        ),
        (
            "mip_out_of_range",
            "[[command]]\ntype = \"clear_render_target\"\nresource = \"tex\"\nmip = 3\ncolor = [0, 0, 0, 0]\n",
            &["#1 (clear_render_target)", "`mip` 3", "1 mip(s)"],
        ),
        (
            "region_outside",
            "[[command]]\ntype = \"copy_buffer_region\"\ndst = \"small\"\nsrc = \"values\"\ndst_offset = 4\nbytes = 8\n",
            &[
                "#1 (copy_buffer_region)",
                "`dst_offset` 4",
                "\"small\" (8 bytes)",
            ],
        ),
        (
            "overlap",
            "[[command]]\ntype = \"copy_buffer_region\"\ndst = \"values\"\nsrc = \"values\"\ndst_offset = 4\nbytes = 8\n",
            &["overlap"],
        ),
        (
            "formats",
            "[[command]]\ntype = \"copy_resource\"\ndst = \"tex\"\nsrc = \"ftex\"\n",
            &["#1 (copy_resource)", "not copy-compatible"],
        ),
        (
            "buffer_sizes",
            "[[command]]\ntype = \"copy_resource\"\ndst = \"small\"\nsrc = \"args\"\n",
            &["one size"],
        ),
        (
            "arguments_too_small",
            "[[command]]\ntype = \"execute_indirect\"\ncs = \"SHADERS/indirect_fill.cs_5_0.dxbc\"\nbind = [{ reg = \"u0\", resource = \"values\" }]\narguments = \"small\"\nmax_command_count = 1\n",
            &["#1 (execute_indirect)", "`arguments`", "need 12"],
        ),
        (
            "count_offset",
            "[[command]]\ntype = \"execute_indirect\"\ncs = \"SHADERS/indirect_fill.cs_5_0.dxbc\"\nbind = [{ reg = \"u0\", resource = \"values\" }]\narguments = \"args\"\nmax_command_count = 1\ncount_buffer = \"small\"\ncount_offset = 8\n",
            &["`count_offset` 8"],
        ),
        (
            "bind_class",
            "[[command]]\ntype = \"dispatch\"\ncs = \"SHADERS/indirect_fill.cs_5_0.dxbc\"\ngroups = [1, 1, 1]\nbind = [{ reg = \"b0\", resource = \"values\" }]\n",
            &["#1 (dispatch)", "`bind` #1", "b0 cannot hold"],
        ),
        (
            "resolve_not_multisampled",
            "[[command]]\ntype = \"resolve_subresource\"\ndst = \"tex\"\nsrc = \"tex\"\n",
            &["#1 (resolve_subresource)", "`src`", "not multisampled"],
        ),
        (
            "groups",
            "[[command]]\ntype = \"dispatch\"\ncs = \"SHADERS/indirect_fill.cs_5_0.dxbc\"\ngroups = [0, 1, 1]\n",
            &["`groups`", "from 1 to 65535"],
        ),
    ];
    for (name, command, wants) in cases {
        let e = error_of(name, &format!("{BUFFERS}\n{command}"));
        for w in *wants {
            assert!(e.contains(w), "{name}: `{w}` not in: {e}");
        }
    }
    // A list's resource with a register, and a duplicate name.
    let e = error_of(
        "reg_in_list",
        "[[resource]]\nname = \"a\"\nreg = \"u0\"\nkind = \"raw_buffer\"\nsize = 4\n[[command]]\ntype = \"copy_resource\"\ndst = \"a\"\nsrc = \"a\"\n",
    );
    assert!(
        e.contains("[[resource]] #1 (u0)") && e.contains("`reg`"),
        "{e}"
    );
    let e = error_of(
        "duplicate_name",
        "[[resource]]\nname = \"a\"\nkind = \"raw_buffer\"\nsize = 4\n[[resource]]\nname = \"a\"\nkind = \"raw_buffer\"\nsize = 4\n[[command]]\ntype = \"copy_resource\"\ndst = \"a\"\nsrc = \"a\"\n",
    );
    assert!(
        e.contains("[[resource]] #2") && e.contains("also the name"),
        "{e}"
    );
    // A named resource in a job without a list.
    let e = error_of(
        "named_without_list",
        "[program]\ncs = \"SHADERS/indirect_fill.cs_5_0.dxbc\"\n[dispatch]\ngroups = [1, 1, 1]\n[[resource]]\nname = \"a\"\nkind = \"raw_buffer\"\nsize = 4\n",
    );
    assert!(e.contains("missing `reg`"), "{e}");
}

/// `debug --event N` debugs a dispatch of a list after the commands before it ran:
/// the indirect example's event 2 writes the arguments from the root constant.
#[test]
fn debug_selects_an_event_of_the_list() {
    let path = common::root().join("examples/lists/two_pass_scan.toml");
    let opts = common::run_options();
    let p = prepare(Job::load(&path).unwrap(), &opts).unwrap();
    assert!(matches!(p.work, Work::List(_)));
    let e = debug::from_job_event(&p, None).err().unwrap().to_string();
    assert!(e.contains("--event"), "{e}");
    let e = debug::from_job_event(&p, Some(3))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("copy_resource"), "{e}");
    let e = debug::from_job_event(&p, Some(9))
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("events 1 to 4"), "{e}");
    // Event 2 reads pass 1's totals: its lane sees them (the commands before it ran).
    let t = debug::from_job_event(&p, Some(2)).unwrap();
    let place = t.place(LaneSelect::Thread([1, 0, 0])).unwrap();
    assert_eq!((place.group, place.lane), ([0, 0, 0], 1));
    let out = t.run_normal().unwrap();
    // The debugged event's run leaves what the normal list left in its UAVs.
    let Finished::List(r) = run(&path).unwrap() else {
        panic!("not a list")
    };
    let block_sums = r
        .bound
        .resources
        .iter()
        .find(|e| e.name.contains("block_sums"))
        .unwrap();
    assert!(
        out.iter().any(|m| m == &block_sums.contents().unwrap()),
        "the event's run differs from the list's"
    );
}

/// Two triangles for `draw_color` (float2 position, float4 colour): a red one on the
/// left of a 16 × 16 target, a green one on the right.
const TRIANGLES: &str = r#"
[[resource]]
name = "verts"
kind = "raw_buffer"
size = 144
data = { f32 = [
    -1, -1, 1, 0, 0, 1,   -1, 1, 1, 0, 0, 1,   -0.1, 0, 1, 0, 0, 1,
    1, -1, 0, 1, 0, 1,    1, 1, 0, 1, 0, 1,    0.1, 0, 0, 1, 0, 1,
] }

[[resource]]
name = "color"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = 16
height = 16
data = { fill_u32 = 0xff332211 }
"#;

/// A `draw_color` draw's state: the vertex buffer, layout and target of `TRIANGLES`.
const DRAW_COLOR: &str = r#"vs = "SHADERS/draw_color.vs_5_0.dxbc"
ps = "SHADERS/draw_color.ps_5_0.dxbc"
vertex_buffers = [{ slot = 0, resource = "verts", stride = 24 }]
input_element = [
    { semantic = "POSITION", format = "R32G32_FLOAT" },
    { semantic = "COLOR", format = "R32G32B32A32_FLOAT" },
]
render_targets = [{ resource = "color" }]
rasterizer = { cull = "NONE" }
"#;

/// The 4 bytes of pixel (`x`, `y`) of a 16-wide RGBA8 named resource.
fn pixel(r: &dxlane::job::ListResult, name: &str, x: usize, y: usize) -> Vec<u8> {
    let e = r
        .bound
        .resources
        .iter()
        .find(|e| e.name.contains(&format!("\"{name}\"")) || e.name.contains(name))
        .unwrap();
    let b = e.contents().unwrap();
    let at = 4 * (16 * y + x);
    b[at..at + 4].to_vec()
}

fn list(name: &str, text: &str) -> Box<dxlane::job::ListResult> {
    match run(&job(name, text)) {
        Ok(Finished::List(r)) => {
            assert_eq!(r.summary.expectations.failed, 0, "{name}: {:?}", r.summary);
            r
        }
        Ok(_) => panic!("{name}: not a list"),
        Err(e) => panic!("{name}: {e}"),
    }
}

/// Draws in a row accumulate: each loads the target the commands before it left (D3D12
/// render targets keep their contents between draws; only a clear command clears), so
/// the second triangle joins the first and the starting contents stay where neither
/// draws.
#[test]
fn draws_in_a_row_accumulate_into_their_targets() {
    let text = format!(
        "{TRIANGLES}
[[command]]
type = \"draw\"
vertex_count = 3
{DRAW_COLOR}
[[command]]
type = \"draw\"
vertex_count = 3
start_vertex = 3
{DRAW_COLOR}"
    );
    let r = list("accumulate", &text);
    assert_eq!(pixel(&r, "color", 2, 8), [255, 0, 0, 255]);
    assert_eq!(pixel(&r, "color", 13, 8), [0, 255, 0, 255]);
    assert_eq!(pixel(&r, "color", 8, 0), [0x11, 0x22, 0x33, 0xff]);
    assert_eq!(r.summary.commands.len(), 2);
    assert!(r.summary.commands.iter().all(|c| c.pixels_shaded > 0));
    // A clear between them leaves only the second.
    let cleared = format!(
        "{TRIANGLES}
[[command]]
type = \"draw\"
vertex_count = 3
{DRAW_COLOR}
[[command]]
type = \"clear_render_target\"
resource = \"color\"
color = [0, 0, 1, 1]
[[command]]
type = \"draw\"
vertex_count = 3
start_vertex = 3
{DRAW_COLOR}"
    );
    let r = list("accumulate_cleared", &cleared);
    assert_eq!(pixel(&r, "color", 2, 8), [0, 0, 255, 255]);
    assert_eq!(pixel(&r, "color", 13, 8), [0, 255, 0, 255]);
}

/// The shadow example's text with its programs found from a test folder.
fn shadow_text() -> String {
    std::fs::read_to_string(common::root().join("examples/lists/shadow.toml"))
        .unwrap()
        .replace("../../shaders", "SHADERS")
}

/// A depth buffer written by one draw is tested against by the next (D3D11.3 §17.11:
/// the depth test reads the buffer's current contents): the ground drawn after the
/// square keeps the square's nearer depth under it and writes its own elsewhere.
#[test]
fn a_draw_tests_depth_written_by_the_draw_before() {
    let text = shadow_text();
    // Keep the light pass only, split in two draws: the square (vertices 6..12) first.
    let head = text
        .split("[[command]]\ntype = \"clear_render_target\"")
        .next()
        .unwrap();
    let head = head.replace("vertex_count = 12", "vertex_count = 6\nstart_vertex = 6");
    let ground = text
        .split("[[command]]                     # the light's view")
        .nth(1)
        .unwrap()
        .split("[[command]]\ntype = \"clear_render_target\"")
        .next()
        .unwrap()
        .replace("vertex_count = 12", "vertex_count = 6");
    // `ground` starts inside the split comment: open a new comment for it.
    let full = format!("{head}[[command]] #{ground}");
    let Finished::List(r) = run(&job("depth_across_draws", &full)).unwrap() else {
        panic!("not a list")
    };
    assert_eq!(r.summary.commands.len(), 3);
    let shadow = r
        .bound
        .resources
        .iter()
        .find(|e| e.name.contains("shadow"))
        .unwrap()
        .contents()
        .unwrap();
    let depth = |x: usize, y: usize| {
        let at = 4 * (128 * y + x);
        f32::from_le_bytes(shadow[at..at + 4].try_into().unwrap())
    };
    assert_eq!(depth(48, 64), 0.25, "under the square");
    assert_eq!(depth(100, 20), 0.5, "the ground");
}

/// A texture written as a depth buffer by command 2 is sampled by command 4, and the
/// picture has its shadow (the example's expectations); the lighting pass may also
/// bind the shadow map as its own read-only depth view while sampling it (D3D12's
/// DEPTH_READ state combines with PIXEL_SHADER_RESOURCE), but not as a writable one.
#[test]
fn a_read_only_depth_view_may_be_sampled_by_its_draw() {
    let text = shadow_text();
    let writable = text.replace(
        "depth_stencil = { resource = \"depth\" }",
        "depth_stencil = { resource = \"shadow\" }",
    );
    let e = error_of("depth_hazard", &writable);
    for w in [
        "[[command]] #4 (draw)",
        "`bind` #1 (t0 = \"shadow\")",
        "`depth_stencil`",
        "read_only",
    ] {
        assert!(e.contains(w), "`{w}` not in: {e}");
    }
    let read_only = text.replace(
        "depth_stencil = { resource = \"depth\" }",
        "depth_stencil = { resource = \"shadow\", read_only = true, depth_func = \"ALWAYS\" }",
    );
    let Finished::List(r) = run(&job("depth_read_only", &read_only)).unwrap() else {
        panic!("not a list")
    };
    // The read-only view wrote nothing: the light's depth is what pass 1 left.
    assert_eq!(
        r.summary.expectations.failed, 0,
        "{:?}",
        r.summary.expectations
    );
}

/// Bad draw commands are errors naming the command and the key: unknown resources, a
/// depth format as a render target, targets of different sample counts, a resource
/// bound as a render target and a shader resource of one draw (D3D12's hazard), views
/// outside their texture, arguments missing or of the other kind of draw.
#[test]
fn bad_draw_commands_name_the_command_and_key() {
    let draw = |extra: &str, state: &str| {
        format!(
            "{TRIANGLES}
[[resource]]
name = \"ms\"
kind = \"texture2dms\"
format = \"R8G8B8A8_UNORM\"
width = 16
height = 16
samples = 4

[[resource]]
name = \"d\"
kind = \"texture2d\"
format = \"D32_FLOAT\"
width = 16
height = 16

[[command]]
type = \"draw\"
{extra}
{state}"
        )
    };
    let base = DRAW_COLOR.to_string();
    let cases: Vec<(&str, String, &[&str])> = vec![
        (
            "rt_unknown",
            draw(
                "vertex_count = 3",
                &base.replace("resource = \"color\" }", "resource = \"colour\" }"),
            ),
            &["[[command]] #1 (draw)", "no resource is named \"colour\""],
        ),
        (
            "rt_depth_format",
            draw(
                "vertex_count = 3",
                &base.replace("resource = \"color\" }", "resource = \"d\" }"),
            ),
            &[
                "#1 (draw)",
                "`render_targets` #1 \"d\"",
                "D32_FLOAT is not a render-target format",
                "depth_stencil",
            ],
        ),
        (
            "samples",
            draw(
                "vertex_count = 3",
                &base.replace(
                    "[{ resource = \"color\" }]",
                    "[{ resource = \"color\" }, { resource = \"ms\" }]",
                ),
            ),
            &[
                "#1 (draw)",
                "`render_targets` #2 \"ms\"",
                "4 sample(s)",
                "one size and sample count",
            ],
        ),
        (
            "hazard",
            draw(
                "vertex_count = 3\nbind = [{ reg = \"t0\", resource = \"color\" }]",
                &base,
            ),
            &[
                "#1 (draw)",
                "`bind` #1 (t0 = \"color\")",
                "`render_targets` #1",
                "both bind \"color\"",
            ],
        ),
        (
            "mip_outside",
            draw(
                "vertex_count = 3",
                &base.replace("resource = \"color\" }", "resource = \"color\", mip = 1 }"),
            ),
            &["#1 (draw)", "`render_targets` #1", "`mip` 1", "1 mip(s)"],
        ),
        (
            "slices_outside",
            draw(
                "vertex_count = 3",
                &base.replace(
                    "resource = \"color\" }",
                    "resource = \"color\", slices = [1, 1] }",
                ),
            ),
            &["#1 (draw)", "`slices` [1, 1]", "1 array slice(s)"],
        ),
        (
            "no_count",
            draw("", &base),
            &["#1 (draw)", "missing `vertex_count`"],
        ),
        (
            "index_count_on_draw",
            draw("index_count = 3", &base),
            &["#1 (draw)", "`index_count` does not apply to a draw"],
        ),
        (
            "index_buffer_on_draw",
            draw(
                "vertex_count = 3\nindex_buffer = { resource = \"verts\", format = \"R16_UINT\" }",
                &base,
            ),
            &["#1 (draw)", "`index_buffer`", "draw_indexed"],
        ),
        (
            "vb_not_buffer",
            draw(
                "vertex_count = 3",
                &base.replace(
                    "resource = \"verts\", stride",
                    "resource = \"color\", stride",
                ),
            ),
            &["#1 (draw)", "`vertex_buffers` #1 (slot 0)", "not a buffer"],
        ),
        (
            "rasterizer_name",
            draw(
                "vertex_count = 3",
                &base.replace("cull = \"NONE\"", "cull = \"SIDEWAYS\""),
            ),
            &["[[command]] #1 (draw) `rasterizer`", "`cull`", "SIDEWAYS"],
        ),
        (
            "no_targets",
            draw(
                "vertex_count = 3",
                &base.replace("render_targets = [{ resource = \"color\" }]", ""),
            ),
            &["#1 (draw)", "needs `render_targets` or a `depth_stencil`"],
        ),
        (
            "depth_as_rt_format",
            draw(
                "vertex_count = 3",
                &format!("{base}depth_stencil = {{ resource = \"color\" }}"),
            ),
            &[
                "#1 (draw)",
                "`depth_stencil` \"color\"",
                "not a depth format",
            ],
        ),
        (
            "vs_is_pixel",
            draw(
                "vertex_count = 3",
                &base.replace("draw_color.vs_5_0", "draw_color.ps_5_0"),
            ),
            &["#1 (draw)", "`vs`", "not a vertex program"],
        ),
        (
            "two_stencil_refs",
            draw(
                "vertex_count = 3\nstencil_ref = 1\nfront_and_back_stencil_ref = [1, 2]",
                &base,
            ),
            &[
                "#1 (draw)",
                "`stencil_ref` and `front_and_back_stencil_ref` both given",
            ],
        ),
    ];
    for (name, text, wants) in &cases {
        let e = error_of(name, text);
        for w in *wants {
            assert!(e.contains(w), "{name}: `{w}` not in: {e}");
        }
    }
}

/// `execute_indirect` of draws reads `D3D12_DRAW_ARGUMENTS` (vertex count, instance
/// count, start vertex, start instance) and `D3D12_DRAW_INDEXED_ARGUMENTS` (index
/// count, instance count, start index, base vertex, start instance) when it runs; the
/// count is min(count buffer, MaxCommandCount); a record whose vertices lie past the
/// vertex buffer reads zeros (D3D11.3 §8.19.2: out-of-bounds fetches return 0) and
/// draws a point-sized nothing rather than failing.
#[test]
fn execute_indirect_draws_read_their_arguments() {
    let indirect = |sig: &str, args: &str, count: u32, extra: &str| {
        format!(
            "{TRIANGLES}
[[resource]]
name = \"args\"
kind = \"raw_buffer\"
size = 40
data = {{ u32 = [{args}] }}

[[resource]]
name = \"count\"
kind = \"raw_buffer\"
size = 4
data = {{ u32 = [{count}] }}

[[resource]]
name = \"indices\"
kind = \"raw_buffer\"
size = 12
data = {{ u32 = [3, 4, 5] }}

[[command]]
type = \"execute_indirect\"
signature = \"{sig}\"
arguments = \"args\"
max_command_count = 2
count_buffer = \"count\"
{extra}
{DRAW_COLOR}"
        )
    };
    let clear = [0x11, 0x22, 0x33, 0xff];
    // Two records, both run: the red and the green triangle.
    let r = list(
        "indirect_draw",
        &indirect("draw", "3, 1, 0, 0, 3, 1, 3, 0", 2, ""),
    );
    assert_eq!(pixel(&r, "color", 2, 8), [255, 0, 0, 255]);
    assert_eq!(pixel(&r, "color", 13, 8), [0, 255, 0, 255]);
    assert_eq!(r.summary.commands[0].runs, 2);
    // The count buffer says 1: only the first record.
    let r = list(
        "indirect_draw_count",
        &indirect("draw", "3, 1, 0, 0, 3, 1, 3, 0", 1, ""),
    );
    assert_eq!(pixel(&r, "color", 13, 8), clear);
    // A count past MaxCommandCount is clamped to it.
    let r = list(
        "indirect_clamp",
        &indirect("draw", "3, 1, 3, 0, 3, 1, 0, 0", 7, ""),
    );
    assert_eq!(r.summary.commands[0].runs, 2);
    // Start vertex 1000: every fetch is past the buffer, reads zeros, covers nothing.
    let r = list(
        "indirect_oob",
        &indirect("draw", "3, 1, 1000, 0, 0, 0, 0, 0", 1, ""),
    );
    assert_eq!(pixel(&r, "color", 2, 8), clear);
    assert_eq!(r.summary.commands[0].pixels_shaded, 0);
    // Indexed: indices 3, 4, 5 with base vertex -3 are vertices 0, 1, 2 (red).
    let ib = "index_buffer = { resource = \"indices\", format = \"R32_UINT\" }";
    let r = list(
        "indirect_indexed",
        &indirect(
            "draw_indexed",
            "3, 1, 0, 4294967293, 0, 0, 0, 0, 0, 0",
            1,
            ib,
        ),
    );
    assert_eq!(pixel(&r, "color", 2, 8), [255, 0, 0, 255]);
    assert_eq!(pixel(&r, "color", 13, 8), clear);
    // The argument buffer must hold MaxCommandCount records: 2 × 20 bytes from byte 4.
    let e = error_of(
        "indirect_small",
        &indirect(
            "draw_indexed",
            "0",
            1,
            &format!("{ib}\nargument_offset = 4"),
        ),
    );
    assert!(
        e.contains("[[command]] #1 (execute_indirect)")
            && e.contains("`arguments`")
            && e.contains("need 44"),
        "{e}"
    );
    // The count is a word inside its buffer.
    let e = error_of(
        "indirect_count_end",
        &indirect("draw", "0", 1, "count_offset = 4"),
    );
    assert!(e.contains("`count_offset` 4"), "{e}");
    // A dispatch's key on an indirect draw, and a draw's on an indirect dispatch.
    let e = error_of(
        "indirect_cs",
        &indirect("draw", "0", 1, "cs = \"SHADERS/indirect_fill.cs_5_0.dxbc\""),
    );
    assert!(e.contains("`cs`") && e.contains("\"draw\""), "{e}");
    let e = error_of("indirect_sig", &indirect("mesh", "0", 1, ""));
    assert!(e.contains("`signature` \"mesh\""), "{e}");
}

/// `debug --event N` on a draw event selects a pixel or a vertex lane of that draw,
/// after the commands before it ran (`Work::locate` on the event's work): the shadow
/// example's pixel (40, 64) in event 4 is shaded by its lighting pass.
#[test]
fn debug_selects_a_lane_of_a_draw_event() {
    let path = common::root().join("examples/lists/shadow.toml");
    let opts = common::run_options();
    let p = prepare(Job::load(&path).unwrap(), &opts).unwrap();
    let t = debug::from_job_event(&p, Some(4)).unwrap();
    let place = t
        .place(LaneSelect::Pixel {
            x: 40,
            y: 64,
            sample: 0,
            prim: 0,
        })
        .unwrap();
    assert!(place.draw.is_some(), "{place:?}");
    let e = t
        .place(LaneSelect::Pixel {
            x: 1,
            y: 1,
            sample: 0,
            prim: 0,
        })
        .err()
        .unwrap()
        .to_string();
    assert!(e.contains("covered by no primitive"), "{e}");
    // Event 2 has no pixel program: its vertex lanes are there.
    let t = debug::from_job_event(&p, Some(2)).unwrap();
    let v = t
        .place(LaneSelect::Vertex {
            vertex: 7,
            instance: 0,
        })
        .unwrap();
    assert_eq!(v.lane, 7 % v.wave_size as usize);
}

/// A render-target view of one mip and one array slice (`MipSlice`,
/// `FirstArraySlice`) renders into that subresource only, at the mip's size: the
/// triangles cover mip 1 (8 × 8) of slice 1, and mip 0 of slice 1 and mip 1 of slice 0
/// keep their starting texels.
#[test]
fn a_view_renders_into_its_mip_and_slice() {
    let text = format!(
        "{TRIANGLES}
[[resource]]
name = \"mipped\"
kind = \"texture2darray\"
format = \"R8G8B8A8_UNORM\"
width = 16
height = 16
mips = 2
array_size = 2
data = {{ fill_u32 = 0xff332211 }}

[[command]]
type = \"draw\"
vertex_count = 6
{}",
        DRAW_COLOR.replace(
            "resource = \"color\" }",
            "resource = \"mipped\", mip = 1, slices = [1, 1] }"
        )
    );
    let r = list("mip_view", &text);
    let m = r
        .bound
        .resources
        .iter()
        .find(|e| e.name.contains("mipped"))
        .unwrap()
        .contents()
        .unwrap();
    // D3D12 subresource order: slice 0 (mip 0: 256 texels, mip 1: 64), then slice 1.
    let texel = |slice: usize, mip: usize, x: usize, y: usize| {
        let base = slice * (256 + 64) + if mip == 1 { 256 } else { 0 };
        let w = if mip == 1 { 8 } else { 16 };
        let at = 4 * (base + w * y + x);
        m[at..at + 4].to_vec()
    };
    let clear = [0x11, 0x22, 0x33, 0xff];
    assert_eq!(
        texel(1, 1, 1, 4),
        [255, 0, 0, 255],
        "left of mip 1, slice 1"
    );
    assert_eq!(
        texel(1, 1, 6, 4),
        [0, 255, 0, 255],
        "right of mip 1, slice 1"
    );
    assert_eq!(texel(1, 0, 2, 8), clear, "mip 0 of slice 1");
    assert_eq!(texel(0, 1, 1, 4), clear, "mip 1 of slice 0");
    assert_eq!(texel(0, 0, 2, 8), clear, "mip 0 of slice 0");
}

/// A `layers` resource: a 16 × 16 RGBA8 array of `n` slices holding 0xff332211.
fn layers(n: u32) -> String {
    format!(
        "
[[resource]]
name = \"layers\"
kind = \"texture2darray\"
format = \"R8G8B8A8_UNORM\"
width = 16
height = 16
array_size = {n}
data = {{ fill_u32 = 0xff332211 }}
"
    )
}

/// The 4 bytes of pixel (`x`, `y`) of slice `slice` of the 16 × 16 RGBA8 `layers`.
fn layer_pixel(r: &dxlane::job::ListResult, slice: usize, x: usize, y: usize) -> Vec<u8> {
    let e = r
        .bound
        .resources
        .iter()
        .find(|e| e.name.contains("\"layers\""))
        .unwrap();
    let b = e.contents().unwrap();
    let at = 4 * (256 * slice + 16 * y + x);
    b[at..at + 4].to_vec()
}

const RED: [u8; 4] = [255, 0, 0, 255];
const GREEN: [u8; 4] = [0, 255, 0, 255];
const CLEAR: [u8; 4] = [0x11, 0x22, 0x33, 0xff];

/// D3D11.3 §13 (the geometry shader's `SV_RenderTargetArrayIndex` output) and the
/// D3D12 reference of `D3D12_VIEW_INSTANCE_LOCATION`: each primitive renders to the
/// slice of the view its leading vertex names, in one draw. `shaders/layers.hlsl`'s
/// geometry program emits every input triangle three times, copy k to slice k + route.x:
/// both triangles reach each of the view's three slices, and the texture's fourth slice,
/// outside the view, stays as it was.
#[test]
fn a_geometry_program_sends_a_triangle_to_each_slice_of_the_view() {
    let text = format!(
        "{TRIANGLES}{}
[[command]]
type = \"draw\"
vertex_count = 6
gs = \"SHADERS/layers.gs_5_0.dxbc\"
bind = [{{ reg = \"b0\", u32 = [0, 0, 0, 0] }}]
{}",
        layers(4),
        DRAW_COLOR.replace(
            "resource = \"color\" }",
            "resource = \"layers\", slices = [0, 3] }"
        )
    );
    let r = list("gs_slices", &text);
    for slice in 0..3 {
        assert_eq!(layer_pixel(&r, slice, 2, 8), RED, "slice {slice}, left");
        assert_eq!(layer_pixel(&r, slice, 13, 8), GREEN, "slice {slice}, right");
        assert_eq!(
            layer_pixel(&r, slice, 8, 1),
            CLEAR,
            "slice {slice}, between"
        );
    }
    assert_eq!(layer_pixel(&r, 3, 2, 8), CLEAR, "outside the view");
    assert_eq!(layer_pixel(&r, 3, 13, 8), CLEAR, "outside the view");
}

/// Out of range (the D3D12 reference of `D3D12_VIEW_INSTANCE_LOCATION`: "the effective
/// index becomes 0"): with route.x = 1 the copies name slices 1, 2 and 3 of a view of
/// texture slices 1 and 2; index 1 is texture slice 2, indices 2 and 3 are past the view
/// and land in its first slice, texture slice 1. Texture slice 0 is not in the view and
/// is not written.
#[test]
fn an_array_index_past_the_view_renders_to_its_first_slice() {
    let text = format!(
        "{TRIANGLES}{}
[[command]]
type = \"draw\"
vertex_count = 3
gs = \"SHADERS/layers.gs_5_0.dxbc\"
bind = [{{ reg = \"b0\", u32 = [1, 0, 0, 0] }}]
{}",
        layers(3),
        DRAW_COLOR.replace(
            "resource = \"color\" }",
            "resource = \"layers\", slices = [1, 2] }"
        )
    );
    let r = list("gs_slices_out_of_range", &text);
    assert_eq!(layer_pixel(&r, 0, 2, 8), CLEAR, "texture slice 0");
    assert_eq!(layer_pixel(&r, 1, 2, 8), RED, "view slice 0 (indices 2, 3)");
    assert_eq!(layer_pixel(&r, 2, 2, 8), RED, "view slice 1 (index 1)");
}

/// D3D12's `VPAndRTArrayIndexFromAnyShaderFeedingRasterizerSupportedWithoutGSEmulation`
/// (WARP supports it): a vertex program feeding the rasterizer routes too, each
/// primitive by its leading vertex. `layers.hlsl`'s vertex program names slice
/// `SV_VertexID / 3 + route.x`: the red triangle goes to slice 0 and the green one to
/// slice 1; with route.x = 2 the red one goes to slice 2 and the green one's index 3 is
/// out of range, so slice 0.
#[test]
fn a_vertex_program_routes_primitives_between_slices() {
    let draw = |route: u32| {
        format!(
            "{TRIANGLES}{}
[[command]]
type = \"draw\"
vertex_count = 6
bind = [{{ reg = \"b0\", u32 = [{route}, 0, 0, 0] }}]
{}",
            layers(3),
            DRAW_COLOR
                .replace("draw_color.vs_5_0", "layers.vs_5_0")
                .replace(
                    "resource = \"color\" }",
                    "resource = \"layers\", slices = [0, 3] }"
                )
        )
    };
    let r = list("vs_slices", &draw(0));
    assert_eq!(layer_pixel(&r, 0, 2, 8), RED);
    assert_eq!(layer_pixel(&r, 0, 13, 8), CLEAR);
    assert_eq!(layer_pixel(&r, 1, 2, 8), CLEAR);
    assert_eq!(layer_pixel(&r, 1, 13, 8), GREEN);
    assert_eq!(layer_pixel(&r, 2, 2, 8), CLEAR);
    let r = list("vs_slices_out_of_range", &draw(2));
    assert_eq!(layer_pixel(&r, 2, 2, 8), RED, "index 2");
    assert_eq!(layer_pixel(&r, 2, 13, 8), CLEAR);
    assert_eq!(
        layer_pixel(&r, 0, 13, 8),
        GREEN,
        "index 3, out of range: slice 0"
    );
    assert_eq!(layer_pixel(&r, 0, 2, 8), CLEAR);
    assert_eq!(layer_pixel(&r, 1, 2, 8), CLEAR);
    assert_eq!(layer_pixel(&r, 1, 13, 8), CLEAR);
}

/// D3D12 View Instancing in a command list ("View Instance Locations", "SetViewInstanceMask"):
/// a draw of two views at slices 0 and 2 of a three-slice view runs once per view and
/// draws both triangles into each view's slice, slice 1 untouched; with the mask on and
/// only bit 1 set, only slice 2. A count past `D3D12_MAX_VIEW_INSTANCE_COUNT` and a
/// location list of another length are refused naming the command and the key.
#[test]
fn a_list_draw_runs_once_per_view_at_its_location() {
    let draw = |vi: &str| {
        format!(
            "{TRIANGLES}{}
[[command]]
type = \"draw\"
vertex_count = 6
view_instancing = {vi}
{}",
            layers(3),
            DRAW_COLOR.replace(
                "resource = \"color\" }",
                "resource = \"layers\", slices = [0, 3] }"
            )
        )
    };
    let two =
        "{ count = 2, locations = [{ render_target_slice = 0 }, { render_target_slice = 2 }] }";
    let r = list("view_instancing", &draw(two));
    for slice in [0, 2] {
        assert_eq!(layer_pixel(&r, slice, 2, 8), RED, "slice {slice}");
        assert_eq!(layer_pixel(&r, slice, 13, 8), GREEN, "slice {slice}");
    }
    assert_eq!(layer_pixel(&r, 1, 2, 8), CLEAR);
    assert_eq!(layer_pixel(&r, 1, 13, 8), CLEAR);
    let masked = two.replace(" }] }", " }], mask = 2 }");
    let r = list("view_instancing_masked", &draw(&masked));
    assert_eq!(layer_pixel(&r, 0, 2, 8), CLEAR, "view 0 masked off");
    assert_eq!(layer_pixel(&r, 2, 2, 8), RED);
    let e = error_of(
        "view_instancing_count",
        &draw("{ count = 5, locations = [{}, {}, {}, {}, {}] }"),
    );
    assert!(
        e.contains("#1") && e.contains("`view_instancing.count` = 5"),
        "{e}"
    );
    let e = error_of(
        "view_instancing_locations",
        &draw("{ count = 2, locations = [{}] }"),
    );
    assert!(
        e.contains("`view_instancing.locations` has 1 entries for `count` = 2"),
        "{e}"
    );
    let e = error_of(
        "view_instancing_slice",
        &draw("{ count = 1, locations = [{ render_target_slice = 2048 }] }"),
    );
    assert!(
        e.contains("`view_instancing.locations[0].render_target_slice` = 2048;"),
        "{e}"
    );
}

/// D3D12's `D3D12_TEX3D_RTV` (`FirstWSlice`, `WSize`): a view of W slices 1 and 2 of a
/// 3D texture takes primitives by `SV_RenderTargetArrayIndex` as an array view does —
/// copies 0 and 1 to W slices 1 and 2, copy 2 (past the view) to W slice 1 — and W slice
/// 0 is not written.
#[test]
fn a_view_of_3d_slices_takes_primitives_by_array_index() {
    let text = format!(
        "{TRIANGLES}
[[resource]]
name = \"layers\"
kind = \"texture3d\"
format = \"R8G8B8A8_UNORM\"
width = 16
height = 16
depth = 3
data = {{ fill_u32 = 0xff332211 }}

[[command]]
type = \"draw\"
vertex_count = 3
gs = \"SHADERS/layers.gs_5_0.dxbc\"
bind = [{{ reg = \"b0\", u32 = [0, 0, 0, 0] }}]
{}",
        DRAW_COLOR.replace(
            "resource = \"color\" }",
            "resource = \"layers\", slices = [1, 2] }"
        )
    );
    let r = list("slices_3d", &text);
    assert_eq!(layer_pixel(&r, 0, 2, 8), CLEAR, "W slice 0");
    assert_eq!(layer_pixel(&r, 1, 2, 8), RED, "W slice 1");
    assert_eq!(layer_pixel(&r, 2, 2, 8), RED, "W slice 2");
    assert_eq!(layer_pixel(&r, 1, 13, 8), CLEAR);
    // W slices past the mip's depth are refused, naming the key.
    let e = error_of(
        "slices_3d_outside",
        &text.replace("slices = [1, 2]", "slices = [2, 2]"),
    );
    assert!(
        e.contains("`slices` [2, 2]") && e.contains("3 W slice(s)"),
        "{e}"
    );
}

/// The depth-stencil view routes with the render targets (D3D11.3 §17 "Output Merger":
/// `SV_RenderTargetArrayIndex` indexes every bound view): the vertex program sends the
/// red triangle to slice 0 and the green one to slice 1 of both a colour and a depth
/// array, and each depth slice holds only its own triangle's depth (0) where it drew.
#[test]
fn the_depth_view_takes_the_same_slice_as_the_targets() {
    let text = format!(
        "{TRIANGLES}{}
[[resource]]
name = \"depth\"
kind = \"texture2darray\"
format = \"D32_FLOAT\"
width = 16
height = 16
array_size = 2
data = {{ fill_u32 = 0x3f800000 }}

[[command]]
type = \"draw\"
vertex_count = 6
bind = [{{ reg = \"b0\", u32 = [0, 0, 0, 0] }}]
depth_stencil = {{ resource = \"depth\", slices = [0, 2] }}
{}",
        layers(2),
        DRAW_COLOR
            .replace("draw_color.vs_5_0", "layers.vs_5_0")
            .replace(
                "resource = \"color\" }",
                "resource = \"layers\", slices = [0, 2] }"
            )
    );
    let r = list("depth_slices", &text);
    let e = r
        .bound
        .resources
        .iter()
        .find(|e| e.name.contains("\"depth\""))
        .unwrap();
    let b = e.contents().unwrap();
    let depth = |slice: usize, x: usize, y: usize| {
        let at = 4 * (256 * slice + 16 * y + x);
        f32::from_le_bytes(b[at..at + 4].try_into().unwrap())
    };
    assert_eq!(depth(0, 2, 8), 0.0, "slice 0 under the red triangle");
    assert_eq!(depth(0, 13, 8), 1.0, "slice 0 where only slice 1 drew");
    assert_eq!(depth(1, 13, 8), 0.0, "slice 1 under the green triangle");
    assert_eq!(depth(1, 2, 8), 1.0);
    assert_eq!(layer_pixel(&r, 0, 2, 8), RED);
    assert_eq!(layer_pixel(&r, 1, 13, 8), GREEN);
}

/// Pixel (`x`, `y`) of the 48 × 16 RGBA8 `wide` target.
fn wide_pixel(r: &dxlane::job::ListResult, x: usize, y: usize) -> Vec<u8> {
    let e = r
        .bound
        .resources
        .iter()
        .find(|e| e.name.contains("\"wide\""))
        .unwrap();
    let b = e.contents().unwrap();
    let at = 4 * (48 * y + x);
    b[at..at + 4].to_vec()
}

/// D3D11.3 §15.6 "Viewport" and §15.7 "Scissor Test" (RSSetViewports,
/// RSSetScissorRects): `SV_ViewportArrayIndex` of a primitive's leading vertex chooses
/// its viewport and the scissor rectangle of the same index; an index at or past the
/// number of viewports chooses viewport 0. Three 16 × 16 viewports side by side on a
/// 48 × 16 target; `layers.hlsl`'s geometry program sends copy k of each triangle to
/// viewport k + route.y.
#[test]
fn the_viewport_index_chooses_each_primitives_viewport_and_scissor() {
    let draw = |route_y: u32, viewports: &str, scissors: &str| {
        format!(
            "{TRIANGLES}
[[resource]]
name = \"wide\"
kind = \"texture2d\"
format = \"R8G8B8A8_UNORM\"
width = 48
height = 16
data = {{ fill_u32 = 0xff332211 }}

[[command]]
type = \"draw\"
vertex_count = 6
gs = \"SHADERS/layers.gs_5_0.dxbc\"
bind = [{{ reg = \"b0\", u32 = [0, {route_y}, 0, 0] }}]
viewports = {viewports}
{scissors}
{}",
            DRAW_COLOR.replace("resource = \"color\" }", "resource = \"wide\" }")
        )
    };
    let three = "[[0, 0, 16, 16, 0, 1], [16, 0, 16, 16, 0, 1], [32, 0, 16, 16, 0, 1]]";
    let r = list("viewports", &draw(0, three, ""));
    for v in 0..3 {
        assert_eq!(wide_pixel(&r, 16 * v + 2, 8), RED, "viewport {v}, left");
        assert_eq!(wide_pixel(&r, 16 * v + 13, 8), GREEN, "viewport {v}, right");
        assert_eq!(
            wide_pixel(&r, 16 * v + 8, 1),
            CLEAR,
            "viewport {v}, between"
        );
    }
    // Scissor rectangle 1 keeps the top half of viewport 1 only; the others the whole.
    let scissors = "scissors = [[0, 0, 48, 16], [16, 0, 32, 8], [0, 0, 48, 16]]";
    let r = list("viewports_scissors", &draw(0, three, scissors));
    assert_eq!(wide_pixel(&r, 18, 4), RED, "viewport 1, inside its scissor");
    assert_eq!(
        wide_pixel(&r, 18, 12),
        CLEAR,
        "viewport 1, below its scissor"
    );
    assert_eq!(
        wide_pixel(&r, 2, 12),
        RED,
        "viewport 0's scissor is the whole"
    );
    assert_eq!(
        wide_pixel(&r, 34, 12),
        RED,
        "viewport 2's scissor is the whole"
    );
    // Two viewports: copy 2 names viewport 2, out of range, so viewport 0.
    let two = "[[0, 0, 16, 16, 0, 1], [16, 0, 16, 16, 0, 1]]";
    let r = list("viewports_out_of_range", &draw(0, two, ""));
    assert_eq!(wide_pixel(&r, 2, 8), RED);
    assert_eq!(wide_pixel(&r, 18, 8), RED);
    assert_eq!(wide_pixel(&r, 34, 8), CLEAR, "no third viewport");
    // route.y = 1: copies name viewports 1, 2 and 3; 3 is out of range (viewport 0).
    let r = list("viewports_shifted", &draw(1, three, ""));
    for v in 0..3 {
        assert_eq!(wide_pixel(&r, 16 * v + 2, 8), RED, "viewport {v}");
    }
}

/// The viewport and scissor keys refuse what D3D12 refuses, naming the key: more than
/// 16 viewports (`D3D12_VIEWPORT_AND_SCISSORRECT_OBJECT_COUNT_PER_PIPELINE`), negative
/// sizes, depths outside [0, 1], a viewport past `D3D12_VIEWPORT_BOUNDS_MAX`, fewer
/// scissor rectangles than viewports, and a key given both ways.
#[test]
fn bad_viewport_and_scissor_arrays_are_refused_by_name() {
    let vp = "[0, 0, 16, 16, 0, 1]";
    let seventeen = format!("viewports = [{}]", vec![vp; 17].join(", "));
    let cases: Vec<(String, &str)> = vec![
        (seventeen, "`viewports` has 17 entries"),
        (
            "viewports = [[0, 0, 16, 16, 0, 1], [0, 0, -4, 16, 0, 1]]".into(),
            "`viewports` #2",
        ),
        (
            "viewports = [[0, 0, 16, 16, 0, 1.5]]".into(),
            "must lie in [0, 1]",
        ),
        (
            "viewports = [[32760, 0, 16, 16, 0, 1]]".into(),
            "D3D12_VIEWPORT_BOUNDS_MIN, _MAX",
        ),
        (
            "viewports = [[0, 0, 8, 8, 0, 1], [8, 0, 8, 8, 0, 1]]\nscissors = [[0, 0, 8, 8]]"
                .into(),
            "`scissors` has 1 entries for 2 viewport(s)",
        ),
        (
            format!("viewport = {vp}\nviewports = [{vp}]"),
            "`viewport` and `viewports` both given",
        ),
        (
            "scissors = [[0, 0, 8, 8], [8, 8, 4, 4]]".into(),
            "`scissors` #2 [8, 8, 4, 4]",
        ),
    ];
    for (i, (keys, wanted)) in cases.iter().enumerate() {
        let text = format!(
            "{TRIANGLES}
[[command]]
type = \"draw\"
vertex_count = 3
{keys}
{DRAW_COLOR}"
        );
        let e = error_of(&format!("bad_viewports_{i}"), &text);
        assert!(e.contains(wanted), "`{wanted}` not in: {e}");
        assert!(e.contains("[[command]] #1 (draw)"), "{e}");
    }
}

/// D3D11.3 §8.19.2: a vertex buffer view (`BufferLocation`, `SizeInBytes`) bounds the
/// fetch by the view. The view of `verts` from byte 72 is the green triangle; 72 bytes
/// long it holds all three vertices, all green; 71 bytes long the last vertex's colour
/// element straddles the view's end and reads (0, 0, 0, 1) (its position, inside, still
/// reads), so the triangle shades from green to black at its apex. Index
/// buffer views likewise: indices 3, 4, 5 from byte 6; 4 bytes long the third index is
/// past the view and reads 0, the red triangle's first vertex (−1, −1).
#[test]
fn buffer_views_with_offsets_bound_their_fetches() {
    let draw = |buffers: &str| {
        format!(
            "{TRIANGLES}
[[command]]
type = \"draw\"
vertex_count = 3
{}",
            DRAW_COLOR.replace(
                "vertex_buffers = [{ slot = 0, resource = \"verts\", stride = 24 }]",
                buffers
            )
        )
    };
    let view = |size: u32| {
        format!(
            "vertex_buffers = [{{ slot = 0, resource = \"verts\", stride = 24, offset = 72, size = {size} }}]"
        )
    };
    let r = list("vb_view_edge", &draw(&view(72)));
    assert_eq!(pixel(&r, "color", 13, 8), GREEN);
    assert_eq!(pixel(&r, "color", 8, 8), CLEAR, "the apex at 0.1");
    assert_eq!(
        pixel(&r, "color", 2, 8),
        CLEAR,
        "the red triangle is not in the view"
    );
    let r = list("vb_view_one_past", &draw(&view(71)));
    let p = pixel(&r, "color", 13, 8);
    assert!(
        p[0] == 0 && p[2] == 0 && p[1] > 0 && p[1] < 255,
        "(13, 8) darker green, towards the black apex: {p:?}"
    );
    assert_eq!(
        pixel(&r, "color", 8, 8),
        CLEAR,
        "the apex's position is inside"
    );
    // Offsets and sizes outside the buffer are refused, naming the key.
    for (i, (offset, size)) in [(145, None), (72, Some(73))].into_iter().enumerate() {
        let size = size.map(|n| format!(", size = {n}")).unwrap_or_default();
        let e = error_of(
            &format!("vb_view_outside_{i}"),
            &draw(&format!(
                "vertex_buffers = [{{ slot = 0, resource = \"verts\", stride = 24, offset = {offset}{size} }}]"
            )),
        );
        assert!(
            e.contains("`vertex_buffers` #1") && e.contains("outside the buffer's 144 bytes"),
            "{e}"
        );
    }
    let indexed = |size: u32| {
        format!(
            "{TRIANGLES}
[[resource]]
name = \"indices\"
kind = \"raw_buffer\"
size = 12
data = {{ u32 = [65536, 196610, 327684] }}

[[command]]
type = \"draw_indexed\"
index_count = 3
index_buffer = {{ resource = \"indices\", format = \"R16_UINT\", offset = 6, size = {size} }}
{DRAW_COLOR}"
        )
    };
    let r = list("ib_view_edge", &indexed(6));
    assert_eq!(pixel(&r, "color", 13, 8), GREEN);
    assert_eq!(pixel(&r, "color", 8, 14), CLEAR);
    let r = list("ib_view_one_past", &indexed(4));
    assert_ne!(
        pixel(&r, "color", 8, 14),
        CLEAR,
        "the third index reads 0: vertex (−1, −1) widens the triangle"
    );
}

/// The stencil state of `TRIANGLES`' two triangles: the left one is clockwise on screen
/// (a front face), the right one counter-clockwise (a back face).
const STENCIL_FACES: &str = r#"
[[resource]]
name = "ds"
kind = "texture2d"
format = "D24_UNORM_S8_UINT"
width = 16
height = 16
data = { fill_u32 = 0xa5000000 }
"#;

/// The stencil byte of pixel (`x`, `y`) of `STENCIL_FACES`' buffer.
fn stencil_at(r: &dxlane::job::ListResult, x: usize, y: usize) -> u8 {
    pixel(r, "ds", x, y)[3]
}

/// Independent front and back stencil references and masks (DirectX-Specs "VulkanOn12",
/// "Independent Front/Back Stencil Refs and Masks"; `OMSetFrontAndBackStencilRef`,
/// `D3D12_DEPTH_STENCILOP_DESC1`): the front face writes its reference through its write
/// mask, the back face its own through its own; a later draw tests each face through
/// its read mask with its reference, and a single `stencil_ref` (OMSetStencilRef) gives
/// both faces one.
#[test]
fn stencil_references_and_masks_per_face() {
    let state = |refs: &str| {
        format!(
            "{TRIANGLES}{STENCIL_FACES}
[[command]]
type = \"draw\"
vertex_count = 6
vs = \"SHADERS/draw_color.vs_5_0.dxbc\"
vertex_buffers = [{{ slot = 0, resource = \"verts\", stride = 24 }}]
input_element = [
    {{ semantic = \"POSITION\", format = \"R32G32_FLOAT\" }},
    {{ semantic = \"COLOR\", format = \"R32G32B32A32_FLOAT\" }},
]
rasterizer = {{ cull = \"NONE\" }}
front_and_back_stencil_ref = [0x12, 0x34]
depth_stencil = {{ resource = \"ds\", depth_enable = false, stencil_enable = true, front = {{ pass = \"REPLACE\", write_mask = 0x0f }}, back = {{ pass = \"REPLACE\", write_mask = 0xf0 }} }}

[[command]]
type = \"clear_render_target\"
resource = \"color\"
color = [0, 0, 1, 1]

[[command]]
type = \"draw\"
vertex_count = 6
{DRAW_COLOR}{refs}
depth_stencil = {{ resource = \"ds\", depth_enable = false, stencil_enable = true, front = {{ func = \"EQUAL\", read_mask = 0x0f }}, back = {{ func = \"EQUAL\", read_mask = 0xf0 }} }}
"
        )
    };
    let r = list(
        "stencil_faces",
        &state("front_and_back_stencil_ref = [0x02, 0x30]"),
    );
    // 0xa5 with 0x12 written through 0x0f (front) and 0x34 through 0xf0 (back).
    assert_eq!(stencil_at(&r, 2, 8), 0xa2, "front face");
    assert_eq!(stencil_at(&r, 13, 8), 0x35, "back face");
    assert_eq!(stencil_at(&r, 8, 0), 0xa5, "neither");
    // (0x02 & 0x0f) == (0xa2 & 0x0f) and (0x30 & 0xf0) == (0x35 & 0xf0): both drawn.
    assert_eq!(pixel(&r, "color", 2, 8), [255, 0, 0, 255]);
    assert_eq!(pixel(&r, "color", 13, 8), [0, 255, 0, 255]);
    // One reference for both faces: the back face's test (0x02 & 0xf0) != 0x30 fails.
    let r = list("stencil_one_ref", &state("stencil_ref = 0x02"));
    assert_eq!(pixel(&r, "color", 2, 8), [255, 0, 0, 255]);
    assert_eq!(pixel(&r, "color", 13, 8), [0, 0, 255, 255]);
}

/// The depth-bounds test (DirectX-Specs "D3D12 Depth Bounds Test", Detailed Design):
/// two draws leave depth 0.3 under the left triangle and 0.8 under the right one (their
/// viewports' depth ranges), 1.0 elsewhere; a full-screen draw at depth 0 with
/// `DepthBoundsTestEnable` then shades only where the *stored* depth lies in
/// `depth_bounds` (inclusive). Inverted bounds keep nothing; a NaN bound is 0; with the
/// test off the bounds do nothing.
#[test]
fn the_depth_bounds_test_keeps_samples_whose_stored_depth_is_in_range() {
    let text = |bounds: &str, on: bool| {
        let layout = "vs = \"SHADERS/draw_color.vs_5_0.dxbc\"
vertex_buffers = [{ slot = 0, resource = \"verts\", stride = 24 }]
input_element = [
    { semantic = \"POSITION\", format = \"R32G32_FLOAT\" },
    { semantic = \"COLOR\", format = \"R32G32B32A32_FLOAT\" },
]
rasterizer = { cull = \"NONE\" }
depth_stencil = { resource = \"db\", depth_func = \"ALWAYS\" }";
        format!(
            "{TRIANGLES}
[[resource]]
name = \"db\"
kind = \"texture2d\"
format = \"D32_FLOAT\"
width = 16
height = 16
data = {{ fill_u32 = 0x3f800000 }}

[[command]]
type = \"draw\"
vertex_count = 3
viewport = [0, 0, 16, 16, 0.3, 0.3]
{layout}

[[command]]
type = \"draw\"
vertex_count = 3
start_vertex = 3
viewport = [0, 0, 16, 16, 0.8, 0.8]
{layout}

[[command]]
type = \"clear_render_target\"
resource = \"color\"
color = [0, 0, 0, 0]

[[command]]
type = \"draw\"
vertex_count = 3
vs = \"SHADERS/draw_fullscreen.vs_5_0.dxbc\"
ps = \"SHADERS/draw_fullscreen.ps_5_0.dxbc\"
render_targets = [{{ resource = \"color\" }}]
depth_bounds = {bounds}
depth_stencil = {{ resource = \"db\", depth_func = \"ALWAYS\", depth_write = false, depth_bounds_test = {on} }}
"
        )
    };
    // Which of the left triangle, the right one and the background were shaded.
    let shaded = |name: &str, bounds: &str, on: bool| {
        let r = list(name, &text(bounds, on));
        [(2, 8), (13, 8), (8, 0)].map(|(x, y)| pixel(&r, "color", x, y)[3] == 255)
    };
    assert_eq!(
        shaded("bounds_in", "[0.25, 0.5]", true),
        [true, false, false],
        "stored 0.3 in [0.25, 0.5]; the incoming 0 is not, and does not count"
    );
    assert_eq!(
        shaded("bounds_inclusive", "[0.3, 0.8]", true),
        [true, true, false]
    );
    assert_eq!(
        shaded("bounds_inverted", "[0.5, 0.25]", true),
        [false, false, false]
    );
    assert_eq!(
        shaded("bounds_nan", "[nan, 0.3]", true),
        [true, false, false],
        "a NaN bound is 0"
    );
    assert_eq!(
        shaded("bounds_off", "[0.25, 0.5]", false),
        [true, true, true]
    );
}

/// A draw job whose vertex and pixel programs both read `t0`
/// (`shaders/draw_visibility.hlsl`), with the `[[resource]]` entries `bindings`; render
/// target 0 gets the vertex program's `t0[0]`, target 1 the pixel program's.
fn visibility_job(bindings: &str, expects: &str) -> String {
    format!(
        "[program]
vs = \"SHADERS/draw_visibility.vs_5_0.dxbc\"
ps = \"SHADERS/draw_visibility.ps_5_0.dxbc\"

[draw]
vertex_count = 3
{bindings}
[[draw.render_target]]
format = \"R32G32B32A32_FLOAT\"
width = 4
height = 4

[[draw.render_target]]
format = \"R32G32B32A32_FLOAT\"
width = 4
height = 4
{expects}"
    )
}

/// `[[resource]]` at t0 holding the four floats `v`, seen by `visibility`.
fn t0(visibility: &str, v: [f32; 4]) -> String {
    format!(
        "[[resource]]
reg = \"t0\"
kind = \"typed_buffer\"
format = \"R32G32B32A32_FLOAT\"
size = 16
data = {{ f32 = {v:?} }}
{visibility}
"
    )
}

/// `[[expect]]` that texel 0 of render target `rt` holds `v`.
fn expect_rt(rt: u32, v: [f32; 4]) -> String {
    format!("[[expect]]\nrender_target = {rt}\noffset = 0\nf32 = {v:?}\n")
}

/// Per-stage bindings (a root signature parameter's `ShaderVisibility`,
/// `D3D12_SHADER_VISIBILITY_VERTEX` / `_PIXEL`): one register names a different resource
/// in the vertex and the pixel program; `all` (the default, as before) names one for both.
#[test]
fn a_register_names_different_resources_per_stage() {
    let per_stage = visibility_job(
        &(t0("visibility = \"vertex\"", [1.0, 2.0, 3.0, 4.0])
            + &t0("visibility = \"PIXEL\"", [10.0, 20.0, 30.0, 40.0])),
        &(expect_rt(0, [1.0, 2.0, 3.0, 4.0]) + &expect_rt(1, [10.0, 20.0, 30.0, 40.0])),
    );
    match run(&job("visibility_per_stage", &per_stage)) {
        Ok(Finished::Draw(r)) => {
            assert_eq!(r.summary.expectations.failed, 0, "{:?}", r.summary);
            assert_eq!(r.summary.expectations.passed, 2);
        }
        Ok(_) => panic!("not a draw"),
        Err(e) => panic!("{e}"),
    }
    let shared = visibility_job(
        &t0("", [5.0, 6.0, 7.0, 8.0]),
        &(expect_rt(0, [5.0, 6.0, 7.0, 8.0]) + &expect_rt(1, [5.0, 6.0, 7.0, 8.0])),
    );
    let Ok(Finished::Draw(r)) = run(&job("visibility_all", &shared)) else {
        panic!("the shared binding did not draw")
    };
    assert_eq!(r.summary.expectations.failed, 0, "{:?}", r.summary);
    // Bad input, each naming the entry and the key.
    let cases: Vec<(&str, String, &[&str])> = vec![
        (
            "visibility_overlap",
            visibility_job(
                &(t0("visibility = \"vertex\"", [0.0; 4]) + &t0("", [0.0; 4])),
                "",
            ),
            &[
                "[[resource]] #2",
                "t0 is already bound by [[resource]] #1",
                "visibilities vertex and all overlap",
            ],
        ),
        (
            "visibility_unknown",
            visibility_job(&t0("visibility = \"vertx\"", [0.0; 4]), ""),
            &[
                "[[resource]] #1",
                "`visibility`",
                "unknown visibility \"vertx\"",
                "pixel",
            ],
        ),
        (
            "visibility_pixel_only",
            visibility_job(&t0("visibility = \"pixel\"", [0.0; 4]), ""),
            &["t0", "the job binds nothing"],
        ),
        (
            "visibility_expect_ambiguous",
            visibility_job(
                &(t0("visibility = \"vertex\"", [0.0; 4])
                    + &t0("visibility = \"pixel\"", [0.0; 4])),
                "[[expect]]\nreg = \"t0\"\nf32 = [0]\n",
            ),
            &[
                "[[expect]] #1",
                "t0 is bound per stage",
                "visibility vertex",
                "visibility pixel",
            ],
        ),
    ];
    for (name, text, wants) in &cases {
        let e = error_of(name, text);
        for w in *wants {
            assert!(e.contains(w), "{name}: `{w}` not in: {e}");
        }
    }
}

/// A list draw's `bind` takes `visibility` too, and a dispatch sees only `all` bindings
/// (D3D12 reads no other visibility for compute).
#[test]
fn list_bindings_take_a_visibility() {
    let text = |binds: &str| {
        format!(
            "[[resource]]
name = \"a\"
kind = \"typed_buffer\"
format = \"R32G32B32A32_FLOAT\"
size = 16
data = {{ f32 = [1, 2, 3, 4] }}

[[resource]]
name = \"b\"
kind = \"typed_buffer\"
format = \"R32G32B32A32_FLOAT\"
size = 16
data = {{ f32 = [10, 20, 30, 40] }}

[[resource]]
name = \"rt0\"
kind = \"texture2d\"
format = \"R32G32B32A32_FLOAT\"
width = 4
height = 4

[[resource]]
name = \"rt1\"
kind = \"texture2d\"
format = \"R32G32B32A32_FLOAT\"
width = 4
height = 4

[[command]]
type = \"draw\"
vertex_count = 3
vs = \"SHADERS/draw_visibility.vs_5_0.dxbc\"
ps = \"SHADERS/draw_visibility.ps_5_0.dxbc\"
render_targets = [{{ resource = \"rt0\" }}, {{ resource = \"rt1\" }}]
bind = [{binds}]

[[expect]]
resource = \"rt0\"
f32 = [1, 2, 3, 4]

[[expect]]
resource = \"rt1\"
f32 = [10, 20, 30, 40]
"
        )
    };
    list(
        "list_visibility",
        &text(
            "{ reg = \"t0\", resource = \"a\", visibility = \"vertex\" }, { reg = \"t0\", resource = \"b\", visibility = \"pixel\" }",
        ),
    );
    let e = error_of(
        "list_visibility_overlap",
        &text(
            "{ reg = \"t0\", resource = \"a\" }, { reg = \"t0\", resource = \"b\", visibility = \"pixel\" }",
        ),
    );
    assert!(
        e.contains("`bind` #2: t0 is already bound by `bind` #1")
            && e.contains("visibilities all and pixel overlap"),
        "{e}"
    );
}

/// A render-target or depth view's own format (`D3D12_RENDER_TARGET_VIEW_DESC::Format`,
/// `D3D12_DEPTH_STENCIL_VIEW_DESC::Format`; D3D12 "Typed and typeless formats"): a
/// typeless texture is drawn into through a typed view of its group, and a UNORM one
/// through its sRGB view, whose stores encode linear colour to sRGB (D3D11.3 §3.2.3.7:
/// 0.5 stores as about 0.7354, code 188; 0.25 as 0.5371, code 137) where the UNORM view
/// stores 128 and 64. A view outside the texture's group, or a typeless view format, is
/// refused naming the view and `format`.
#[test]
fn a_view_format_casts_the_target_within_its_group() {
    let text = |format: &str, rt_view: &str, depth: &str| {
        // A typeless resource states the format its shader views read (`view_format`).
        let srv = if format.ends_with("TYPELESS") {
            "view_format = \"R8G8B8A8_UNORM\""
        } else {
            ""
        };
        format!(
            "[[resource]]
name = \"verts\"
kind = \"raw_buffer\"
size = 72
data = {{ f32 = [-1, -1, 0.5, 0.25, 0, 1,   -1, 1, 0.5, 0.25, 0, 1,   1, -1, 0.5, 0.25, 0, 1] }}

[[resource]]
name = \"color\"
kind = \"texture2d\"
format = \"{format}\"
width = 16
height = 16
{srv}

[[resource]]
name = \"depth\"
kind = \"texture2d\"
format = \"R32_TYPELESS\"
view_format = \"R32_FLOAT\"
width = 16
height = 16
data = {{ fill_u32 = 0x3f800000 }}

[[command]]
type = \"draw\"
vertex_count = 3
{}
{depth}",
            DRAW_COLOR.replace(
                "render_targets = [{ resource = \"color\" }]",
                &format!("render_targets = [{{ resource = \"color\"{rt_view} }}]")
            )
        )
    };
    let with_depth = "depth_stencil = { resource = \"depth\", format = \"D32_FLOAT\" }";
    let r = list(
        "view_format_typeless",
        &text(
            "R8G8B8A8_TYPELESS",
            ", format = \"R8G8B8A8_UNORM\"",
            with_depth,
        ),
    );
    assert_eq!(pixel(&r, "color", 1, 8), [128, 64, 0, 255]);
    let d = r
        .bound
        .resources
        .iter()
        .find(|e| e.name.contains("\"depth\""))
        .unwrap()
        .contents()
        .unwrap();
    let depth = |x: usize, y: usize| {
        let at = 4 * (16 * y + x);
        f32::from_le_bytes(d[at..at + 4].try_into().unwrap())
    };
    assert_eq!(
        depth(1, 8),
        0.0,
        "the D32_FLOAT view wrote the triangle's depth"
    );
    assert_eq!(depth(15, 1), 1.0, "and left the rest");
    let r = list(
        "view_format_srgb",
        &text("R8G8B8A8_UNORM", ", format = \"R8G8B8A8_UNORM_SRGB\"", ""),
    );
    let p = pixel(&r, "color", 1, 8);
    assert!(p[0].abs_diff(188) <= 1 && p[1].abs_diff(137) <= 1, "{p:?}");
    assert_eq!(p[2..], [0, 255]);
    let e = error_of(
        "view_format_other_group",
        &text("R8G8B8A8_TYPELESS", ", format = \"R32_FLOAT\"", ""),
    );
    assert!(
        e.contains("`render_targets` #1 \"color\": `format`: R32_FLOAT is not of"),
        "{e}"
    );
    let e = error_of(
        "view_format_typeless_view",
        &text("R8G8B8A8_UNORM", ", format = \"R8G8B8A8_TYPELESS\"", ""),
    );
    assert!(e.contains("`format`: R8G8B8A8_TYPELESS is typeless"), "{e}");
    let e = error_of(
        "depth_view_format_other_group",
        &text(
            "R8G8B8A8_UNORM",
            "",
            "depth_stencil = { resource = \"depth\", format = \"D16_UNORM\" }",
        ),
    );
    assert!(
        e.contains("`depth_stencil` \"depth\": `format`: D16_UNORM is not of"),
        "{e}"
    );
}
