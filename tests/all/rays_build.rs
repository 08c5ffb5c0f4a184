//! `build_raytracing_acceleration_structure` commands in a command list: inputs read from
//! named buffers when the command runs, the destination bound by later commands, bad
//! input refused naming the command and field (D3D12 `BuildRaytracingAccelerationStructure`,
//! `D3D12_BUILD_RAYTRACING_ACCELERATION_STRUCTURE_INPUTS`; DXR functional spec sections
//! named at each test).

use dxlane::exec::jit::Engine;
use dxlane::job::{Finished, Job, RunOptions, prepare};

use crate::common;

/// The corpus's `ray_query_hits.dxil` (thread i traces ray i of its constants and writes
/// ten words of what it committed; `tests/jobs/corpus/ray_query_hits.toml` states it).
fn query_program() -> Option<String> {
    let dir = common::corpora()
        .iter()
        .find(|d| d.ends_with("dxil-reader"))?
        .clone();
    Some(format!("\"{}\"", dir.join("ray_query_hits.dxil").display()))
}

/// Resources: two structures (`blas` is resource 0, so its GPU virtual address is
/// 2^40: `job::shader_table::resource_address`), the square's vertices in a staging
/// buffer and an empty vertex buffer, its indices, and one
/// `D3D12_RAYTRACING_INSTANCE_DESC` (the transform moves it to z = 5; word 12 is
/// ID 3 | mask 0xff << 24, word 13 contribution 2, words 14–15 the address of `blas`);
/// `inst` is resource 5, so `ptrs` holds its address, 6 × 2^40.
const RESOURCES: &str = r#"
[[resource]]
name = "blas"
kind = "acceleration_structure"
[[resource]]
name = "tlas"
kind = "acceleration_structure"
[[resource]]
name = "staging"
kind = "raw_buffer"
data = { f32 = [0, 0, 0,  1, 0, 0,  0, 1, 0,  1, 1, 0] }
[[resource]]
name = "verts"
kind = "raw_buffer"
size = 48
[[resource]]
name = "idx"
kind = "raw_buffer"
data = { u32 = [0, 1, 2,  1, 3, 2] }
[[resource]]
name = "inst"
kind = "raw_buffer"
data = { f32 = [1, 0, 0, 0,  0, 1, 0, 0,  0, 0, 1, 5,  "0xff000003", "0x2", "0x0", "0x100"] }
[[resource]]
name = "ptrs"
kind = "raw_buffer"
data = { u32 = [0, 1536] }
[[resource]]
name = "results"
kind = "structured_buffer"
stride = 4
size = 200
"#;

const COPY: &str = r#"
[[command]]
type = "copy_buffer_region"
dst = "verts"
src = "staging"
bytes = 48
"#;

const BUILD_BLAS: &str = r#"
[[command]]
type = "build_raytracing_acceleration_structure"
dst = "blas"
level = "bottom"
[[command.geometry]]
type = "triangles"
vertices = { buffer = "verts" }
vertex_count = 4
indices = { buffer = "idx" }
index_count = 6
"#;

const BUILD_TLAS: &str = r#"
[[command]]
type = "build_raytracing_acceleration_structure"
dst = "tlas"
level = "top"
instances = { buffer = "inst" }
instance_count = 1
"#;

/// The dispatch of `ray_query_hits.toml`, with its constants as command data.
fn dispatch(cs: &str) -> String {
    format!(
        r#"
[[command]]
type = "dispatch"
cs = {cs}
groups = [1, 1, 1]
bind = [
  {{ reg = "t0", resource = "tlas" }},
  {{ reg = "u0", resource = "results" }},
  {{ reg = "b0", f32 = [
    0.25, 0.25, 0, 0,   0.75, 0.75, 0, 0,   2, 2, 0, 0,   0.5, 0.5, 0, 0,   0.25, 0.25, 10, 0,
    0, 0, 1, 0,   0, 0, 1, 0,   0, 0, 1, 0,   0, 0, 1, 0,   0, 0, -1, 0,
    "0x0", "0xff", "0x0", "0x0",   "0x0", "0xff", "0x0", "0x0",   "0x0", "0xff", "0x0", "0x0",
    "0x0", "0xff", "0x0", "0x0",   "0x10", "0xff", "0x0", "0x0" ] }},
]
"#
    )
}

/// `ray_query_hits.toml`'s expectations (worked out by hand there): rays 0, 1 and 4
/// hit, ray 2 misses, ray 3 crosses the shared edge.
const HITS: &str = r#"
[[expect]]
resource = "results"
offset = 0
u32 = [1]
[[expect]]
resource = "results"
offset = 4
f32 = [5]
tolerance = { abs = 1e-6 }
[[expect]]
resource = "results"
offset = 8
u32 = [0, 3, 2, 0, 0]
[[expect]]
resource = "results"
offset = 28
f32 = [0.25, 0.25]
tolerance = { abs = 1e-6 }
[[expect]]
resource = "results"
offset = 48
u32 = [0, 3, 2, 0, 1]
[[expect]]
resource = "results"
offset = 68
f32 = [0.5, 0.25]
tolerance = { abs = 1e-6 }
[[expect]]
resource = "results"
offset = 80
u32 = [0, 0, 0, 0, 0, 0, 0, 0, 0, 0]
[[expect]]
resource = "results"
offset = 120
u32 = [1]
[[expect]]
resource = "results"
offset = 160
u32 = [1]
[[expect]]
resource = "results"
offset = 196
u32 = [1]
"#;

fn write(name: &str, text: &str) -> std::path::PathBuf {
    let dir = common::scratch().join("rays_build");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    path
}

fn run(name: &str, text: &str, engine: Option<Engine>) -> Result<Finished, String> {
    let opts = RunOptions {
        engine,
        ..common::run_options()
    };
    Job::load(&write(name, text))
        .and_then(|j| prepare(j, &opts))
        .and_then(|p| p.execute(&opts))
        .map_err(|e| e.to_string())
}

fn passed(f: &Finished) -> (usize, usize) {
    let Finished::List(r) = f else {
        panic!("not a list")
    };
    let e = &r.summary.expectations;
    assert_eq!(e.failed, 0, "{:?}", e.results);
    (e.passed, e.failed)
}

/// A copy writes the vertices, a bottom-level build reads them when it runs, a top-level
/// build reads the instance description (its `AccelerationStructure` address names the
/// bottom level), and a ray-query dispatch traces the result: the hits of
/// `ray_query_hits.toml` under both engines (D3D12 `BuildRaytracingAccelerationStructure`;
/// DXR spec "D3D12_RAYTRACING_INSTANCE_DESC"). The same through
/// `D3D12_ELEMENTS_LAYOUT_ARRAY_OF_POINTERS`.
#[test]
fn built_by_commands_from_buffers() {
    let Some(cs) = query_program() else {
        assert!(common::corpora().is_empty(), "the corpora are missing");
        eprintln!("SKIPPED rays_build::built_by_commands_from_buffers: no corpora");
        return;
    };
    let text = format!(
        "{RESOURCES}{COPY}{BUILD_BLAS}{BUILD_TLAS}{}{HITS}",
        dispatch(&cs)
    );
    for engine in [Engine::Interp, Engine::Jit] {
        let f = run("array", &text, Some(engine)).unwrap_or_else(|e| panic!("{engine}: {e}"));
        assert_eq!(passed(&f), (10, 0), "{engine}");
        let Finished::List(r) = &f else { panic!() };
        let kinds: Vec<&str> = r.summary.commands.iter().map(|c| c.kind.as_str()).collect();
        assert_eq!(
            kinds,
            [
                "copy_buffer_region",
                "build_raytracing_acceleration_structure",
                "build_raytracing_acceleration_structure",
                "dispatch"
            ]
        );
    }
    let pointers = text.replace(
        "instances = { buffer = \"inst\" }",
        "instances = { buffer = \"ptrs\" }\ninstance_layout = \"array_of_pointers\"",
    );
    assert_eq!(passed(&run("pointers", &pointers, None).unwrap()), (10, 0));
}

/// The inputs are read when the command runs, not when the list is made: with the copy
/// after the build, the bottom level is built from zeroed vertices — every triangle
/// degenerate, never hit (DXR spec "Degenerate primitives and instances") — so every
/// ray misses and its ten words stay 0; and a build after the dispatch changes nothing
/// it traced.
#[test]
fn inputs_are_read_when_the_command_runs() {
    let Some(cs) = query_program() else {
        assert!(common::corpora().is_empty(), "the corpora are missing");
        eprintln!("SKIPPED rays_build::inputs_are_read_when_the_command_runs: no corpora");
        return;
    };
    let zeros = vec!["0"; 50].join(", ");
    let text = format!(
        "{RESOURCES}{BUILD_BLAS}{COPY}{BUILD_TLAS}{}{BUILD_BLAS}\n[[expect]]\nresource = \"results\"\noffset = 0\nu32 = [{zeros}]\n",
        dispatch(&cs)
    );
    assert_eq!(passed(&run("late_copy", &text, None).unwrap()), (1, 0));
}

/// Bad input is refused naming the command and the field: before the list runs for what
/// the command states (a range outside its buffer, a vertex format D3D12 does not allow
/// for ray tracing, counts whose byte size overflows, misaligned addresses and strides,
/// a binding of a structure no earlier command built, the memory budget), when it runs
/// for what memory holds (an instance naming an unbuilt bottom level, or an address of
/// no resource; an index past the vertices).
#[test]
fn bad_builds_are_refused_by_name() {
    let err = |name: &str, text: String| {
        run(name, &text, None)
            .err()
            .unwrap_or_else(|| panic!("{name}: the job ran"))
    };
    let blas = |geo: &str| {
        format!(
            "{RESOURCES}{COPY}\n[[command]]\ntype = \"build_raytracing_acceleration_structure\"\ndst = \"blas\"\nlevel = \"bottom\"\n[[command.geometry]]\n{geo}\n"
        )
    };
    let cmd = "[[command]] #2 (build_raytracing_acceleration_structure)";
    let cases: [(&str, String, &str); 9] = [
        (
            "past_buffer",
            blas(
                "type = \"triangles\"\nvertices = { buffer = \"verts\", offset = 12 }\nvertex_count = 4\nindices = { buffer = \"idx\" }\nindex_count = 6",
            ),
            "`geometry[0].vertices`: 48 bytes from offset 12 pass the end of \"verts\" (48 bytes)",
        ),
        (
            "format",
            blas(
                "type = \"triangles\"\nvertices = { buffer = \"verts\" }\nvertex_format = \"R32G32B32A32_FLOAT\"\nvertex_count = 3",
            ),
            "`geometry[0].vertex_format` \"R32G32B32A32_FLOAT\" is not a vertex format",
        ),
        (
            "overflow",
            blas(
                "type = \"aabbs\"\naabbs = { buffer = \"verts\" }\naabb_count = 9223372036854775807",
            ),
            "`geometry[0].aabbs`: the range's size overflows 64 bits",
        ),
        (
            "misaligned",
            blas(
                "type = \"triangles\"\nvertices = { buffer = \"verts\", offset = 2 }\nvertex_count = 3",
            ),
            "`geometry[0].vertices.offset` 2: the address must be a multiple of 4",
        ),
        (
            "aabb_stride",
            blas(
                "type = \"aabbs\"\naabbs = { buffer = \"verts\" }\naabb_count = 1\naabb_stride = 28",
            ),
            "`geometry[0].aabb_stride` 28: a multiple of 8",
        ),
        (
            "not_multiple_of_3",
            blas("type = \"triangles\"\nvertices = { buffer = \"verts\" }\nvertex_count = 4"),
            "`geometry[0].vertex_count` 4: a multiple of 3",
        ),
        (
            "index_past_vertices",
            blas(
                "type = \"triangles\"\nvertices = { buffer = \"verts\" }\nvertex_count = 3\nindices = { buffer = \"idx\" }\nindex_count = 6",
            ),
            "geometry[0].triangles.indices[4]",
        ),
        (
            "unbuilt_blas",
            format!("{RESOURCES}{COPY}{BUILD_TLAS}"),
            "instance[0].AccelerationStructure: 0x10000000000: \"blas\" is not built",
        ),
        (
            "address_of_nothing",
            format!("{RESOURCES}{COPY}{BUILD_TLAS}").replace("\"0x100\"", "\"0x10\""),
            "instance[0].AccelerationStructure: 0x1000000000 is the address of no resource",
        ),
    ];
    for (name, text, want) in cases {
        let e = err(name, text);
        assert!(e.contains(cmd) && e.contains(want), "{name}: {e}");
    }
    // The whole input counts against the job's memory.
    let e = err(
        "budget",
        format!(
            "[options]\nmax_memory = 420\n{}",
            blas("type = \"triangles\"\nvertices = { buffer = \"verts\" }\nvertex_count = 3")
        ),
    );
    assert!(e.contains("max_memory") && e.contains("#2"), "budget: {e}");
    let Some(cs) = query_program() else {
        return;
    };
    let e = err(
        "unbuilt_bind",
        format!("{RESOURCES}{COPY}{BUILD_BLAS}{}", dispatch(&cs)),
    );
    assert!(
        e.contains("[[command]] #3 (dispatch)")
            && e.contains(
                "\"tlas\" is built by no earlier build_raytracing_acceleration_structure command"
            ),
        "{e}"
    );
    let e = err(
        "bottom_bind",
        format!(
            "{RESOURCES}{COPY}{BUILD_BLAS}{}",
            dispatch(&cs).replace("\"tlas\"", "\"blas\"")
        ),
    );
    assert!(e.contains("last built as a bottom level"), "{e}");
}

/// The corpus's `ray_tracing` libraries (one export each), as TOML strings.
fn ray_libraries() -> Option<String> {
    let dir = common::corpora()
        .iter()
        .find(|d| d.ends_with("dxil-reader"))?
        .clone();
    let libs: Vec<String> = ["raygen", "miss", "closest_hit", "callable"]
        .iter()
        .map(|n| {
            format!(
                "\"{}\"",
                dir.join(format!("ray_tracing.{n}.dxil")).display()
            )
        })
        .collect();
    Some(format!("[{}]", libs.join(", ")))
}

/// `tests/jobs/corpus/ray_tracing_table.toml` as a command list whose shader table a copy
/// writes before `dispatch_rays` reads it: the identifiers are in `staging`, the table
/// buffer starts zeroed, and the texels are that job's (worked out in its header: hits
/// at launch indices (0, 0), (1, 0), (2, 0) and (0, 1), misses elsewhere).
fn table_list(libraries: &str, copy_first: bool) -> String {
    let copy = "[[command]]\ntype = \"copy_buffer_region\"\ndst = \"table\"\nsrc = \"staging\"\nbytes = 256\n";
    let rays = format!(
        r#"[[command]]
type = "dispatch_rays"
libraries = {libraries}
dispatch = [4, 2, 1]
ray_generation_record = {{ buffer = "table", offset = 0, size = 32 }}
miss_table = {{ buffer = "table", offset = 64, size = 32, stride = 32 }}
hit_group_table = {{ buffer = "table", offset = 128, size = 64, stride = 64 }}
callable_table = {{ buffer = "table", offset = 192, size = 32, stride = 32 }}
hit_groups = [{{ name = "triangle", closest_hit = "closest_hit" }}]
max_recursion_depth = 1
max_payload_size = 20
max_attribute_size = 8
bind = [{{ reg = "t0", resource = "tlas" }}, {{ reg = "u0", resource = "image" }}]
"#
    );
    let (a, b) = if copy_first {
        (copy, rays.as_str())
    } else {
        (rays.as_str(), copy)
    };
    format!(
        r#"
[[acceleration_structure]]
name = "triangle"
level = "bottom"
[[acceleration_structure.geometry]]
type = "triangles"
opaque = true
vertices = {{ f32 = [0, 0, 0,  1, 0, 0,  0, 1, 0] }}
[[acceleration_structure]]
name = "scene"
level = "top"
[[acceleration_structure.instance]]
blas = "triangle"
transform = [1, 0, 0, 0,  0, 1, 0, 0,  0, 0, 1, 5]
id = 3
[[resource]]
name = "tlas"
kind = "acceleration_structure"
acceleration_structure = "scene"
[[resource]]
name = "image"
kind = "texture2d"
format = "R32G32B32A32_FLOAT"
width = 4
height = 2
[[resource]]
name = "staging"
kind = "raw_buffer"
size = 256
data = {{ records = [
    {{ offset = 0, identifier = "raygen" }},
    {{ offset = 64, identifier = "miss" }},
    {{ offset = 128, identifier = "triangle" }},
    {{ offset = 192, identifier = "callable" }},
] }}
[[resource]]
name = "table"
kind = "raw_buffer"
size = 256
{a}{b}
[[expect]]
resource = "image"
offset = 0
f32 = [3.7507501, 17.5035, -23.754749, 5.0009999,  11.25225, 17.5035, -26.255249, 5.0009999,  18.75375, 17.5035, -28.755749, 5.0009999]
tolerance = {{ abs = 1e-5 }}
[[expect]]
resource = "image"
offset = 48
u32 = [0x80000000, 0x80000000]
[[expect]]
resource = "image"
offset = 56
f32 = [-0.6, -1]
[[expect]]
resource = "image"
offset = 64
f32 = [3.7507501, 32.5065, -28.755749, 5.0009999]
tolerance = {{ abs = 1e-5 }}
[[expect]]
resource = "image"
offset = 80
f32 = ["-0", "-0", -0.6, -1,  "-0", "-0", -0.6, -1,  "-0", "-0", -0.6, -1]
"#
    )
}

/// `dispatch_rays` reads its shader tables (`D3D12_DISPATCH_RAYS_DESC`) when it runs:
/// a copy before it writes the records, and the launch runs them (DXR spec "Shader
/// tables", "Shader table memory initialization"), under both engines. With the copy
/// after it, the ray generation record it reads is all zeros — a NULL identifier,
/// refused naming the command (DXR spec "Shader identifier"; D3D would run nothing).
/// A table past its buffer is refused before the list runs.
#[test]
fn dispatch_rays_reads_tables_when_it_runs() {
    let Some(libs) = ray_libraries() else {
        assert!(common::corpora().is_empty(), "the corpora are missing");
        eprintln!("SKIPPED rays_build::dispatch_rays_reads_tables_when_it_runs: no corpora");
        return;
    };
    for engine in [Engine::Interp, Engine::Jit] {
        let f = run("tables", &table_list(&libs, true), Some(engine))
            .unwrap_or_else(|e| panic!("{engine}: {e}"));
        assert_eq!(passed(&f), (5, 0), "{engine}");
    }
    let e = run("tables_late", &table_list(&libs, false), None)
        .err()
        .unwrap_or_else(|| panic!("a NULL ray generation record is refused"));
    assert!(
        e.contains("[[command]] #1 (dispatch_rays)") && e.contains("NULL"),
        "{e}"
    );
    let text =
        table_list(&libs, true).replace("offset = 192, size = 32", "offset = 192, size = 96");
    let e = run("tables_past", &text, None)
        .err()
        .unwrap_or_else(|| panic!("a table past its buffer is refused"));
    assert!(
        e.contains("[[command]] #2 (dispatch_rays)") && e.contains("callable_table"),
        "{e}"
    );
}

/// A global root signature's registers bind its arguments for every program of the
/// pipeline (DXR spec "Local root signatures vs global root signatures": the global
/// root signature is shared by every shader of the dispatch; its arguments are set
/// with the command list's root arguments). The job declares the signature (a table of
/// one UAV at `u0`) and its arguments (`global = [{ table = ["image"] }]`); the command
/// binds another texture at `u0` too, which the global argument shadows and which stays
/// as cleared. The texels are `rays::dispatch_rays_runs_as_a_command`'s (worked out in
/// `tests/jobs/corpus/ray_tracing.toml`'s header). `global` without a global root
/// signature, or with the wrong arguments, is refused naming the key.
#[test]
fn global_root_arguments_bind_every_program() {
    let Some(libs) = ray_libraries() else {
        assert!(common::corpora().is_empty(), "the corpora are missing");
        eprintln!("SKIPPED rays_build::global_root_arguments_bind_every_program: no corpora");
        return;
    };
    let text = |global: &str| {
        format!(
            r#"
[[acceleration_structure]]
name = "tri"
level = "bottom"
[[acceleration_structure.geometry]]
type = "triangles"
opaque = true
vertices = {{ f32 = [0, 0, 0, 1, 0, 0, 0, 1, 0] }}
[[acceleration_structure]]
name = "scene"
level = "top"
[[acceleration_structure.instance]]
blas = "tri"
id = 3
transform = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 5]
[[resource]]
name = "tlas"
kind = "acceleration_structure"
acceleration_structure = "scene"
[[resource]]
name = "image"
kind = "texture2d"
format = "R32G32B32A32_FLOAT"
width = 2
height = 1
[[resource]]
name = "other"
kind = "texture2d"
format = "R32G32B32A32_FLOAT"
width = 2
height = 1
[[command]]
type = "clear_unordered_access"
resource = "other"
float = [7, 7, 7, 7]
[[command]]
type = "dispatch_rays"
libraries = {libs}
dispatch = [2, 1, 1]
raygen = "raygen"
miss = ["miss"]
hit_groups = [{{ closest_hit = "closest_hit" }}]
callable = ["callable"]
max_recursion_depth = 1
max_payload_size = 20
max_attribute_size = 8
{global}
bind = [{{ reg = "t0", resource = "tlas" }}, {{ reg = "u0", resource = "other" }}]
[[expect]]
resource = "image"
offset = 0
f32 = [7.5015001, 25.004999, -27.505499, 5.0009999]
tolerance = {{ abs = 1e-5 }}
[[expect]]
resource = "image"
offset = 16
f32 = ["-0", "-0", -0.6, -1]
[[expect]]
resource = "other"
offset = 0
f32 = [7, 7, 7, 7, 7, 7, 7, 7]
"#
        )
    };
    let good = "global_root_signature = [{ table = [\"u0\"] }]\nglobal = [{ table = [\"image\"] }]";
    for engine in [Engine::Interp, Engine::Jit] {
        let f =
            run("global", &text(good), Some(engine)).unwrap_or_else(|e| panic!("{engine}: {e}"));
        assert_eq!(passed(&f), (3, 0), "{engine}");
    }
    for (name, global, want) in [
        (
            "global_without_signature",
            "global = [{ table = [\"image\"] }]",
            "`global`: the pipeline has no global root signature",
        ),
        (
            "global_two_entries",
            "global_root_signature = [{ table = [\"u0\"] }]\nglobal = [{ table = [\"image\", \"other\"] }]",
            "names 2 resources",
        ),
    ] {
        let e = run(name, &text(global), None)
            .err()
            .unwrap_or_else(|| panic!("{name}: the job ran"));
        assert!(
            e.contains("[[command]] #2 (dispatch_rays)") && e.contains(want),
            "{name}: {e}"
        );
    }
}
