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
