//! A job's `[[acceleration_structure]]` geometry read from named `[[resource]]` buffers
//! (`{ buffer = "name", offset = n }`, as a list's build command spells a GPU address:
//! D3D12's `D3D12_RAYTRACING_GEOMETRY_TRIANGLES_DESC` takes its vertex, index and
//! transform buffers as addresses), checked and read as the build command reads them
//! (docs/raytracing.md "Acceleration structures in a job").
//!
//! The base is `tests/jobs/corpus/ray_query_hits.toml` (inline ray queries over one
//! non-opaque two-triangle square moved to z = 5; its header works out every hit by
//! hand): the same square from named buffers must give word for word the same results,
//! under both engines.

use std::path::PathBuf;

use dxlane::exec::jit::Engine;
use dxlane::job::Finished;

use crate::common;

/// `ray_query_hits.toml` with its program's path made absolute, or `None` only when the
/// corpora are turned off.
fn base() -> Option<String> {
    if common::corpora().is_empty() {
        eprintln!("SKIPPED accel_named: the corpora are turned off");
        return None;
    }
    let program = common::corpora()
        .iter()
        .map(|d| d.join("ray_query_hits.dxil"))
        .chain([common::root().join("target/corpora/dxil-reader/ray_query_hits.dxil")])
        .find(|p| p.exists())
        .expect("the corpora are fetched but ray_query_hits.dxil is missing");
    let text =
        std::fs::read_to_string(common::root().join("tests/jobs/corpus/ray_query_hits.toml"))
            .unwrap();
    let old = "cs = \"../../../target/corpora/dxil-reader/ray_query_hits.dxil\"";
    assert!(text.contains(old));
    Some(text.replace(old, &format!("cs = {:?}", program.display().to_string())))
}

/// The square's inline geometry in `ray_query_hits.toml`.
const INLINE: &str = "vertices = { f32 = [0, 0, 0,  1, 0, 0,  0, 1, 0,  1, 1, 0] }\n\
indices = { u32 = [0, 1, 2,  1, 3, 2] }";

/// The same square from named buffers: the four vertices after 16 bytes of other data
/// in `verts`, the six indices after two other words in `idx`, and an identity
/// transform 48 bytes into `xform`.
const NAMED: &str = "vertices = { buffer = \"verts\", offset = 16 }\nvertex_count = 4\n\
indices = { buffer = \"idx\", offset = 8 }\nindex_count = 6\n\
transform = { buffer = \"xform\", offset = 48 }";

/// The `idx` buffer of [`BUFFERS`].
const IDX: &str = "
[[resource]]
name = \"idx\"
kind = \"raw_buffer\"
data = { u32 = [7, 7,  0, 1, 2,  1, 3, 2] }
";

const BUFFERS: &str = "
[[resource]]
name = \"verts\"
kind = \"raw_buffer\"
data = { f32 = [9, 9, 9, 9,  0, 0, 0,  1, 0, 0,  0, 1, 0,  1, 1, 0] }

[[resource]]
name = \"idx\"
kind = \"raw_buffer\"
data = { u32 = [7, 7,  0, 1, 2,  1, 3, 2] }

[[resource]]
name = \"xform\"
kind = \"raw_buffer\"
data = { f32 = [5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5, 5,  1, 0, 0, 0,  0, 1, 0, 0,  0, 0, 1, 0] }
";

/// Writes `text` as job `name` and runs it under `engine`: the results buffer `u0`.
fn run(name: &str, text: &str, engine: Engine) -> Result<Vec<u8>, String> {
    let dir = common::scratch().join("accel_named");
    std::fs::create_dir_all(&dir).unwrap();
    let path: PathBuf = dir.join(format!("{name}.{engine}.toml"));
    std::fs::write(&path, text).unwrap();
    let opts = dxlane::job::RunOptions {
        engine: Some(engine),
        ..common::run_options()
    };
    let f = dxlane::job::Job::load(&path)
        .and_then(|j| dxlane::job::prepare(j, &opts))
        .and_then(|p| p.execute(&opts))
        .map_err(|e| e.to_string())?;
    let Finished::Dispatch(r) = f else {
        panic!("{name}: a compute job finishes a dispatch");
    };
    assert!(r.passed(), "{name}: {:?}", r.summary.expectations);
    // The named buffers are used by the structure: no "not used" warning.
    assert!(
        !r.summary.warnings.iter().any(|w| w.contains("not used")),
        "{name}: {:?}",
        r.summary.warnings
    );
    Ok(r.bound
        .resources
        .iter()
        .find(|e| e.name.contains("(u0)"))
        .and_then(|e| e.memory())
        .map(|m| m.to_bytes())
        .expect("the results buffer"))
}

/// The square from named buffers hits what the inline square hits: all five rays'
/// ten words each (status, t, instance index and ID, contribution, geometry and
/// primitive index, barycentrics, facing) equal, and the job's own expectations hold
/// for both, under both engines.
#[test]
fn named_buffers_give_the_hits_inline_data_gives() {
    let Some(text) = base() else { return };
    assert!(text.contains(INLINE));
    let named = format!("{}{BUFFERS}", text.replace(INLINE, NAMED));
    for engine in [Engine::Interp, Engine::Jit] {
        let a = run("inline", &text, engine).unwrap();
        let b = run("named", &named, engine).unwrap();
        assert_eq!(a.len(), 200);
        assert_eq!(a, b, "{engine}");
        // Ray 1 meets triangle 1 (primitive index 1) at t = 5.
        assert_eq!(b[40..44], 1u32.to_le_bytes());
        assert_eq!(b[44..48], 5f32.to_le_bytes());
        assert_eq!(b[64..68], 1u32.to_le_bytes());
    }
}

/// Refusals name the structure entry and the key, with the build command's wording
/// (`list::accel`): a buffer no `[[resource]]` is named, a range past its buffer's end, a
/// start that is not a multiple of the vertex format's component size, a transform not
/// at a multiple of 16 (`D3D12_RAYTRACING_TRANSFORM3X4_BYTE_ALIGNMENT`), a count
/// missing, and a named buffer beside a data form.
#[test]
fn named_buffer_refusals_name_the_entry_and_key() {
    let Some(text) = base() else { return };
    let entry = "[[acceleration_structure]] #1 (\"square\")";
    let cases = [
        (
            "missing",
            NAMED.replace("\"idx\"", "\"indices\""),
            "`geometry[0].indices.buffer`: no resource is named \"indices\" (the job names: verts, xform)",
        ),
        (
            "past_end",
            NAMED.replace("offset = 16", "offset = 32"),
            "`geometry[0].vertices`: 48 bytes from offset 32 pass the end of \"verts\" (64 bytes)",
        ),
        (
            "misaligned",
            NAMED.replace("offset = 16", "offset = 18"),
            "`geometry[0].vertices.offset` 18: the address must be a multiple of 4",
        ),
        (
            "transform_misaligned",
            NAMED.replace("offset = 48", "offset = 40"),
            "`geometry[0].transform.offset` 40: the address must be a multiple of 16",
        ),
        (
            "no_count",
            NAMED.replace("index_count = 6\n", ""),
            "missing `geometry[0].index_count`",
        ),
        (
            "mixed",
            NAMED.replace(
                "indices = { buffer = \"idx\", offset = 8 }",
                "indices = { u32 = [0, 1, 2,  1, 3, 2] }",
            ),
            "geometry[0].indices: a data form, but `vertices` names a buffer",
        ),
    ];
    for (name, geo, want) in cases {
        // A named resource no geometry reads is refused before the structures are
        // built (a job without commands binds only registers): the cases whose
        // geometry does not read `idx` leave it out.
        let buffers = match name {
            "missing" | "mixed" => BUFFERS.replace(IDX, ""),
            _ => BUFFERS.to_string(),
        };
        let job = format!("{}{buffers}", text.replace(INLINE, &geo));
        let e = run(name, &job, Engine::Interp).unwrap_err();
        assert!(e.contains(entry) && e.contains(want), "{name}: {e}");
    }
}
