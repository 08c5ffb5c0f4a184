//! Queries and predication in command lists (`[[query_heap]]`, `begin_query`,
//! `end_query`, `resolve_query_data`, `set_predication`; `pipeline::query` states the
//! rules): occlusion counts samples that pass the depth and stencil tests, binary
//! occlusion is 0 or 1, pipeline and stream-output statistics count what D3D12's
//! structs name, a predicate read when each command runs skips it, and every bad query
//! or predicate is refused naming the command and the key. Also the list commands that
//! came with them: `draw_auto` (a stream-output buffer drawn with the count stream
//! output left) and `copy_texture_region` with placed footprints.
//!
//! The pictures are hand-derived: a 16 × 16 target, rectangles whose edges fall on pixel
//! boundaries (so the top-left rule decides no pixel), the vertex program writing z = 0.

use std::path::{Path, PathBuf};

use dxlane::job::{Finished, Job, ListResult, prepare};

use crate::common;

fn job(name: &str, text: &str) -> PathBuf {
    let dir = common::scratch().join("queries").join(name);
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

fn list(name: &str, text: &str) -> Box<ListResult> {
    match run(&job(name, text)) {
        Ok(Finished::List(r)) => {
            assert_eq!(r.summary.expectations.failed, 0, "{name}: {:?}", r.summary);
            r
        }
        Ok(_) => panic!("{name}: not a list"),
        Err(e) => panic!("{name}: {e}"),
    }
}

fn error_of(name: &str, text: &str) -> String {
    match run(&job(name, text)) {
        Ok(_) => panic!("{name}: the job ran"),
        Err(e) => e,
    }
}

/// The bytes of named resource `name` after the list.
fn bytes(r: &ListResult, name: &str) -> Vec<u8> {
    r.bound
        .resources
        .iter()
        .find(|e| e.name.contains(&format!("\"{name}\"")))
        .unwrap_or_else(|| panic!("no resource {name}"))
        .contents()
        .unwrap()
}

/// The little-endian u64s of `name`.
fn u64s(r: &ListResult, name: &str) -> Vec<u64> {
    bytes(r, name)
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Three rectangles of two triangles each (position, colour):
/// A, vertices 0..6: x ∈ [-1, 0], every row — pixels x 0..8, y 0..16 (128 pixels), red;
/// B, vertices 6..12: x ∈ [-0.5, 0.5], y ∈ [-1, 0.5] — pixels x 4..12, y 4..16 (96), green;
/// C, vertices 12..18: x ∈ [-1, -0.5], every row — pixels x 0..4 (64), inside A, blue.
const SCENE: &str = r#"
[[resource]]
name = "verts"
kind = "raw_buffer"
size = 432
data = { f32 = [
    -1, -1, 1, 0, 0, 1,   -1, 1, 1, 0, 0, 1,   0, 1, 1, 0, 0, 1,
    -1, -1, 1, 0, 0, 1,   0, 1, 1, 0, 0, 1,    0, -1, 1, 0, 0, 1,
    -0.5, -1, 0, 1, 0, 1,   -0.5, 0.5, 0, 1, 0, 1,   0.5, 0.5, 0, 1, 0, 1,
    -0.5, -1, 0, 1, 0, 1,   0.5, 0.5, 0, 1, 0, 1,    0.5, -1, 0, 1, 0, 1,
    -1, -1, 0, 0, 1, 1,   -1, 1, 0, 0, 1, 1,   -0.5, 1, 0, 0, 1, 1,
    -1, -1, 0, 0, 1, 1,   -0.5, 1, 0, 0, 1, 1,  -0.5, -1, 0, 0, 1, 1,
] }

[[resource]]
name = "color"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = 16
height = 16

[[resource]]
name = "depth"
kind = "texture2d"
format = "D32_FLOAT"
width = 16
height = 16

[[resource]]
name = "results"
kind = "raw_buffer"
size = 256

[[query_heap]]
name = "occ"
type = "OCCLUSION"
count = 4

[[query_heap]]
name = "time"
type = "TIMESTAMP"
count = 1

[[command]]
type = "clear_depth_stencil"
resource = "depth"
depth = 1.0
"#;

/// A draw of `count` vertices from `first` with a LESS depth test.
fn draw(first: u32, count: u32) -> String {
    format!(
        r#"
[[command]]
type = "draw"
vertex_count = {count}
start_vertex = {first}
vs = "SHADERS/draw_color.vs_5_0.dxbc"
ps = "SHADERS/draw_color.ps_5_0.dxbc"
vertex_buffers = [{{ slot = 0, resource = "verts", stride = 24 }}]
input_element = [
    {{ semantic = "POSITION", format = "R32G32_FLOAT" }},
    {{ semantic = "COLOR", format = "R32G32B32A32_FLOAT" }},
]
render_targets = [{{ resource = "color" }}]
depth_stencil = {{ resource = "depth", depth_func = "LESS" }}
rasterizer = {{ cull = "NONE" }}
"#
    )
}

fn begin(heap: &str, index: u32, query: &str) -> String {
    format!(
        "\n[[command]]\ntype = \"begin_query\"\nheap = \"{heap}\"\nindex = {index}\nquery = \"{query}\"\n"
    )
}

fn end(heap: &str, index: u32, query: &str) -> String {
    begin(heap, index, query).replace("begin_query", "end_query")
}

fn resolve(heap: &str, query: &str, first: u32, count: u32, offset: u64) -> String {
    format!(
        "\n[[command]]\ntype = \"resolve_query_data\"\nheap = \"{heap}\"\nquery = \"{query}\"\nfirst = {first}\ncount = {count}\nbuffer = \"results\"\noffset = {offset}\n"
    )
}

/// D3D12_QUERY_TYPE_OCCLUSION counts the samples that pass the depth and stencil tests,
/// exactly: A over a cleared depth buffer passes all its 128 pixels; B drawn after it
/// with LESS fails where A wrote z = 0 (columns 4..8) and passes columns 8..12, 4 × 12 =
/// 48; C, wholly behind A, passes none. Only the draws between begin and end count.
#[test]
fn occlusion_counts_the_samples_that_pass() {
    let text = format!(
        "{SCENE}{}{}{}{}{}{}{}{}{}{}",
        begin("occ", 1, "OCCLUSION"),
        draw(0, 6),
        end("occ", 1, "OCCLUSION"),
        begin("occ", 0, "OCCLUSION"),
        draw(6, 6),
        end("occ", 0, "OCCLUSION"),
        begin("occ", 2, "OCCLUSION"),
        draw(12, 6),
        end("occ", 2, "OCCLUSION"),
        resolve("occ", "OCCLUSION", 0, 3, 8),
    );
    let r = list("occlusion", &text);
    assert_eq!(&u64s(&r, "results")[..4], [0, 48, 128, 0]);
    // The summary lists each resolved query.
    let last = r.summary.commands.last().unwrap();
    let values: Vec<(u32, String)> = last
        .queries
        .iter()
        .map(|q| (q.index, q.value.to_string()))
        .collect();
    assert_eq!(
        values,
        [(0, "48".into()), (1, "128".into()), (2, "0".into())]
    );
    assert_eq!(last.queries[0].kind, "OCCLUSION");
    assert_eq!(last.queries[0].heap, "occ");
}

/// BINARY_OCCLUSION resolves to 1 when any sample passed and 0 when none did ("the
/// least significant bit is either 0 … or 1 …; the rest of the bits are 0").
#[test]
fn binary_occlusion_is_zero_or_one() {
    let text = format!(
        "{SCENE}{}{}{}{}{}{}{}{}",
        draw(0, 6),
        begin("occ", 0, "BINARY_OCCLUSION"),
        draw(6, 6),
        end("occ", 0, "BINARY_OCCLUSION"),
        begin("occ", 1, "BINARY_OCCLUSION"),
        draw(12, 6),
        end("occ", 1, "BINARY_OCCLUSION"),
        resolve("occ", "BINARY_OCCLUSION", 0, 2, 0),
    );
    let r = list("binary", &text);
    assert_eq!(&u64s(&r, "results")[..2], [1, 0]);
}

/// With 4 samples per pixel the query counts samples, not pixels: B alone covers every
/// sample of its 96 pixels (its edges lie on pixel boundaries), 384; under a sample mask
/// of 0b0101 (D3D11.3 §16.9.4: coverage AND the sample mask) half of them, 192.
#[test]
fn occlusion_counts_samples_of_a_multisampled_target() {
    let ms = SCENE
        .replace(
            "name = \"color\"\nkind = \"texture2d\"",
            "name = \"color\"\nkind = \"texture2dms\"\nsamples = 4",
        )
        .replace(
            "name = \"depth\"\nkind = \"texture2d\"",
            "name = \"depth\"\nkind = \"texture2dms\"\nsamples = 4",
        );
    let masked = draw(6, 6).replace("rasterizer =", "sample_mask = 5\nrasterizer =");
    let text = format!(
        "{ms}{}{}{}{}{}{}{}",
        begin("occ", 0, "OCCLUSION"),
        draw(6, 6),
        end("occ", 0, "OCCLUSION"),
        "\n[[command]]\ntype = \"clear_depth_stencil\"\nresource = \"depth\"\ndepth = 1.0\n",
        begin("occ", 1, "OCCLUSION") + &masked,
        end("occ", 1, "OCCLUSION"),
        resolve("occ", "OCCLUSION", 0, 2, 0),
    );
    let r = list("msaa", &text);
    assert_eq!(&u64s(&r, "results")[..2], [384, 192]);
    // Alpha-to-coverage of alpha 0.5 keeps round(0.5 × 4) = 2 samples of each pixel
    // (dxlane's pattern, `docs/pipeline.md`): 192 again, counted after the late depth
    // test that alpha-to-coverage moves the test to.
    let half = ms.replace("0, 1, 0, 1", "0, 1, 0, 0.5");
    let a2c = draw(6, 6).replace("rasterizer =", "alpha_to_coverage = true\nrasterizer =");
    let text = format!(
        "{half}{}{a2c}{}{}",
        begin("occ", 0, "OCCLUSION"),
        end("occ", 0, "OCCLUSION"),
        resolve("occ", "OCCLUSION", 0, 1, 0),
    );
    let r = list("msaa_a2c", &text);
    assert_eq!(u64s(&r, "results")[0], 192);
}

/// D3D12_QUERY_DATA_PIPELINE_STATISTICS of draw A (6 vertices, 2 triangles, 128 pixels)
/// and of a dispatch of 3 groups of 64 threads, in the struct's order: IAVertices 6,
/// IAPrimitives 2, VSInvocations 6, GSInvocations 0, GSPrimitives 0, CInvocations 2,
/// CPrimitives 2, PSInvocations 128, HSInvocations 0, DSInvocations 0, CSInvocations
/// 192 (thread groups × threads per group).
#[test]
fn pipeline_statistics_count_a_draw_and_a_dispatch() {
    let text = format!(
        r#"{SCENE}
[[resource]]
name = "values"
kind = "structured_buffer"
stride = 4
size = 1024

[[query_heap]]
name = "stats"
type = "PIPELINE_STATISTICS"
count = 2
{}{}{}{}
[[command]]
type = "dispatch"
cs = "SHADERS/indirect_fill.cs_5_0.dxbc"
groups = [3, 1, 1]
bind = [{{ reg = "u0", resource = "values" }}]
{}{}"#,
        begin("stats", 0, "PIPELINE_STATISTICS"),
        draw(0, 6),
        end("stats", 0, "PIPELINE_STATISTICS"),
        begin("stats", 1, "PIPELINE_STATISTICS"),
        end("stats", 1, "PIPELINE_STATISTICS"),
        resolve("stats", "PIPELINE_STATISTICS", 0, 2, 0),
    );
    let r = list("statistics", &text);
    let v = u64s(&r, "results");
    assert_eq!(v[..11], [6, 2, 6, 0, 0, 2, 2, 128, 0, 0, 0]);
    assert_eq!(v[11..22], [0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 192]);
    let q = &r.summary.commands.last().unwrap().queries[0];
    assert_eq!(q.value["ps_invocations"], 128);
}

/// D3D12_QUERY_DATA_SO_STATISTICS: two triangles streamed out into a buffer with room
/// for one — NumPrimitivesWritten 1, PrimitivesStorageNeeded 2 (the overflow rule:
/// a primitive that does not fit is needed, not written); stream 1 saw nothing.
#[test]
fn stream_output_statistics_count_overflow() {
    let so = draw(0, 6).replace(
        "rasterizer =",
        "stream_output = [{ semantic = \"SV_Position\", component_count = 4 }]\nstream_output_buffers = [{ resource = \"so\", stride = 16 }]\nrasterizer =",
    );
    let text = format!(
        r#"{SCENE}
[[resource]]
name = "so"
kind = "raw_buffer"
size = 48

[[query_heap]]
name = "sos"
type = "SO_STATISTICS"
count = 2
{}{}{so}{}{}{}{}"#,
        begin("sos", 0, "SO_STATISTICS_STREAM0"),
        begin("sos", 1, "SO_STATISTICS_STREAM1"),
        end("sos", 0, "SO_STATISTICS_STREAM0"),
        end("sos", 1, "SO_STATISTICS_STREAM1"),
        resolve("sos", "SO_STATISTICS_STREAM0", 0, 1, 0),
        resolve("sos", "SO_STATISTICS_STREAM1", 1, 1, 16),
    );
    let r = list("so_statistics", &text);
    assert_eq!(&u64s(&r, "results")[..4], [1, 2, 0, 0]);
}

/// Timestamps: `end_query` alone takes one, and a later one is never smaller (a
/// monotonic count at 1,000,000,000 Hz).
#[test]
fn timestamps_are_monotonic() {
    let text = format!(
        r#"{SCENE}
[[query_heap]]
name = "clock"
type = "TIMESTAMP"
count = 2
{}{}{}{}"#,
        end("clock", 0, "TIMESTAMP"),
        draw(0, 6),
        end("clock", 1, "TIMESTAMP"),
        resolve("clock", "TIMESTAMP", 0, 2, 0),
    );
    let r = list("timestamps", &text);
    let v = u64s(&r, "results");
    assert!(v[1] >= v[0] && v[1] > 0, "{v:?}");
}

/// The classic occlusion predication: C's query (hidden behind A: 0 samples) resolved
/// into a buffer predicates a draw with EQUAL_ZERO, which is skipped; B's (48) does not
/// skip it. The value is read when the predicated command runs (written by the
/// resolve just before); `set_predication` with no keys turns predication off, and
/// predicated clears and copies are skipped too (D3D12: "subsequent rendering and
/// resource manipulation commands are not actually performed").
#[test]
fn predication_skips_commands_on_an_occlusion_result() {
    let predicate = |offset: u64| {
        format!(
            "\n[[command]]\ntype = \"set_predication\"\nbuffer = \"results\"\noffset = {offset}\noperation = \"EQUAL_ZERO\"\n"
        )
    };
    let off = "\n[[command]]\ntype = \"set_predication\"\n";
    // C's query is 0: the draw of B under it is skipped, so the target keeps A alone.
    let text = format!(
        "{SCENE}{}{}{}{}{}{}{}{}{off}",
        draw(0, 6),
        begin("occ", 0, "OCCLUSION"),
        draw(12, 6),
        end("occ", 0, "OCCLUSION"),
        resolve("occ", "OCCLUSION", 0, 1, 0),
        predicate(0),
        draw(6, 6),
        "\n[[command]]\ntype = \"copy_buffer_region\"\ndst = \"results\"\ndst_offset = 64\nsrc = \"verts\"\nsrc_offset = 0\nbytes = 8\n",
    );
    let r = list("predicated_off", &text);
    let color = bytes(&r, "color");
    let px = |x: usize, y: usize| color[4 * (16 * y + x)..4 * (16 * y + x) + 4].to_vec();
    assert_eq!(px(10, 10), [0, 0, 0, 0], "B was skipped");
    assert_eq!(px(2, 10), [255, 0, 0, 255], "A");
    assert_eq!(u64s(&r, "results")[8], 0, "the copy was skipped");
    let skipped: Vec<bool> = r
        .summary
        .commands
        .iter()
        .map(|c| c.predicated_off)
        .collect();
    assert_eq!(
        skipped,
        [
            false, false, false, false, false, false, false, true, true, false
        ]
    );
    // The debugger refuses the skipped draw (event 8) rather than show work the list
    // never did, and opens the draw that ran (event 1 is the clear, 4 is C's draw).
    let path = job("predicated_off_debug", &text);
    let opts = common::run_options();
    let p = prepare(Job::load(&path).unwrap(), &opts).unwrap();
    let e = match dxlane::debug::from_job_event(&p, Some(8)) {
        Ok(_) => panic!("a skipped event has no lane"),
        Err(e) => e.to_string(),
    };
    assert!(
        e.contains("--event 8") && e.contains("set_predication"),
        "{e}"
    );
    if let Err(e) = dxlane::debug::from_job_event(&p, Some(4)) {
        panic!("event 4: {e}");
    }
    // With B's query instead (48 samples) the same predicate lets the commands run.
    let text = text.replacen("start_vertex = 12", "start_vertex = 6", 1);
    let r = list("predicated_on", &text);
    assert_eq!(u64s(&r, "results")[0], 48);
    assert!(r.summary.commands.iter().all(|c| !c.predicated_off));
    assert_ne!(u64s(&r, "results")[8], 0, "the copy ran");
}

/// NOT_EQUAL_ZERO skips when the value is not zero; predication stops at
/// `set_predication` with no keys.
#[test]
fn not_equal_zero_skips_on_a_non_zero_value_until_turned_off() {
    let text = format!(
        r#"{SCENE}
[[resource]]
name = "flag"
kind = "raw_buffer"
size = 16
data = {{ u32 = [0, 0, 0, 1] }}

[[command]]
type = "set_predication"
buffer = "flag"
offset = 8
operation = "NOT_EQUAL_ZERO"
{}
[[command]]
type = "set_predication"
{}"#,
        draw(6, 6),
        draw(0, 6),
    );
    let r = list("not_equal_zero", &text);
    let color = bytes(&r, "color");
    assert_eq!(
        color[4 * (16 * 10 + 10)..4 * (16 * 10 + 10) + 4],
        [0, 0, 0, 0]
    );
    assert_eq!(
        color[4 * (16 * 10 + 2)..4 * (16 * 10 + 2) + 4],
        [255, 0, 0, 255]
    );
}

/// Every bad query or predicate is refused before the list runs, naming the command
/// and the key: the rules of BeginQuery, EndQuery, ResolveQueryData (the runtime's and
/// the debug layer's checks) and SetPredication.
#[test]
fn bad_queries_and_predicates_are_refused_by_name() {
    let cases: Vec<(&str, String, &[&str])> = vec![
        (
            "index_outside",
            format!("{}{}", begin("occ", 4, "OCCLUSION"), end("occ", 4, "OCCLUSION")),
            &["[[command]] #2 (begin_query)", "`index` 4", "holds 4 queries"],
        ),
        (
            "type_mismatch",
            begin("occ", 0, "PIPELINE_STATISTICS"),
            &["#2 (begin_query)", "`query` PIPELINE_STATISTICS", "OCCLUSION heap"],
        ),
        (
            "unknown_heap",
            begin("nope", 0, "OCCLUSION"),
            &["#2 (begin_query)", "`heap`", "\"nope\""],
        ),
        (
            "end_without_begin",
            end("occ", 0, "OCCLUSION"),
            &["#2 (end_query)", "`index` 0", "not begun"],
        ),
        (
            "begin_twice",
            format!("{}{}", begin("occ", 0, "OCCLUSION"), begin("occ", 0, "OCCLUSION")),
            &["#3 (begin_query)", "begun by [[command]] #2"],
        ),
        (
            "end_other_type",
            format!(
                "{}{}",
                begin("occ", 0, "OCCLUSION"),
                end("occ", 0, "BINARY_OCCLUSION")
            ),
            &["#3 (end_query)", "`query` BINARY_OCCLUSION", "began query 0 as OCCLUSION"],
        ),
        (
            "never_ended",
            begin("occ", 0, "OCCLUSION"),
            &["#2 (begin_query)", "never ended"],
        ),
        (
            "resolve_open",
            format!(
                "{}{}{}",
                begin("occ", 0, "OCCLUSION"),
                resolve("occ", "OCCLUSION", 0, 1, 0),
                end("occ", 0, "OCCLUSION")
            ),
            &["#3 (resolve_query_data)", "not ended", "undefined"],
        ),
        (
            "resolve_never_ended",
            resolve("occ", "OCCLUSION", 0, 1, 0),
            &["#2 (resolve_query_data)", "query 0 of \"occ\"", "never ended"],
        ),
        (
            "resolve_past_heap",
            resolve("occ", "OCCLUSION", 3, 2, 0),
            &["#2 (resolve_query_data)", "`first` 3 and `count` 2", "holds 4"],
        ),
        (
            "resolve_past_buffer",
            format!(
                "{}{}{}",
                begin("occ", 0, "OCCLUSION"),
                end("occ", 0, "OCCLUSION"),
                resolve("occ", "OCCLUSION", 0, 1, 256)
            ),
            &["#4 (resolve_query_data)", "`buffer`", "264", "256 bytes"],
        ),
        (
            "resolve_misaligned",
            format!(
                "{}{}{}",
                begin("occ", 0, "BINARY_OCCLUSION"),
                end("occ", 0, "BINARY_OCCLUSION"),
                resolve("occ", "BINARY_OCCLUSION", 0, 1, 4)
            ),
            &["#4 (resolve_query_data)", "`offset` 4", "multiple of 8"],
        ),
        (
            "timestamp_begin",
            begin("time", 0, "TIMESTAMP"),
            &["#2 (begin_query)", "`query` TIMESTAMP", "no BeginQuery"],
        ),
        (
            "heap_type_mismatch_timestamp",
            begin("occ", 0, "TIMESTAMP"),
            &["#2 (begin_query)", "`query` TIMESTAMP", "OCCLUSION heap"],
        ),
        (
            "predicate_misaligned",
            "\n[[command]]\ntype = \"set_predication\"\nbuffer = \"results\"\noffset = 4\noperation = \"EQUAL_ZERO\"\n".into(),
            &["#2 (set_predication)", "`offset` 4", "multiple of 8"],
        ),
        (
            "predicate_past_buffer",
            "\n[[command]]\ntype = \"set_predication\"\nbuffer = \"results\"\noffset = 256\noperation = \"EQUAL_ZERO\"\n".into(),
            &["#2 (set_predication)", "`offset` 256", "256 bytes"],
        ),
        (
            "predicate_operation",
            "\n[[command]]\ntype = \"set_predication\"\nbuffer = \"results\"\noperation = \"LESS\"\n".into(),
            &["#2 (set_predication)", "`operation` \"LESS\""],
        ),
        (
            "predicate_no_buffer",
            "\n[[command]]\ntype = \"set_predication\"\noffset = 8\n".into(),
            &["#2 (set_predication)", "need `buffer`"],
        ),
        (
            "query_key_on_a_draw",
            draw(0, 3).replace("vertex_count", "heap = \"occ\"\nvertex_count"),
            &["#2 (draw)", "`heap` does not apply"],
        ),
    ];
    for (name, commands, wants) in cases {
        let e = error_of(name, &format!("{SCENE}{commands}"));
        for w in wants {
            assert!(e.contains(w), "{name}: {e:?} lacks {w:?}");
        }
    }
    // The heap itself.
    let e = error_of(
        "heap_type",
        &SCENE.replace("type = \"OCCLUSION\"", "type = \"OCCLUDED\""),
    );
    assert!(
        e.contains("[[query_heap]] #1") && e.contains("`type` \"OCCLUDED\""),
        "{e}"
    );
    let e = error_of("heap_count", &SCENE.replace("count = 4", "count = 0"));
    assert!(
        e.contains("[[query_heap]] #1") && e.contains("`count` 0"),
        "{e}"
    );
}

/// DrawAuto in a list (`draw_auto`, D3D11's `DrawAuto` reading the filled size D3D12
/// keeps in a buffer): draw 1 streams out A's first triangle (3 vertices of 32 bytes:
/// `SV_Position`, `COLOR`), draw 2 appends B's two triangles behind it (the filled size
/// is where writing starts), and draw 3 draws ⌊288 / 32⌋ = 9 vertices from the stream-
/// output buffer as its vertex buffer: A's first triangle and B, red and green, and not
/// A's second triangle (never streamed out). Neither streaming draw rasterizes
/// (`rasterized_stream = "none"`).
#[test]
fn draw_auto_draws_what_stream_output_appended() {
    let so = |first: u32, count: u32| {
        draw(first, count).replace(
            "rasterizer =",
            "stream_output = [{ semantic = \"SV_Position\" }, { semantic = \"COLOR\" }]\nrasterized_stream = \"none\"\nstream_output_buffers = [{ resource = \"so\", stride = 32, filled_size_resource = \"counters\" }]\nrasterizer =",
        )
    };
    let auto = draw(0, 1)
        .replace(
            "vertex_count = 1\nstart_vertex = 0\n",
            "draw_auto = { resource = \"counters\" }\n",
        )
        .replace(
            "vertex_buffers = [{ slot = 0, resource = \"verts\", stride = 24 }]",
            "vertex_buffers = [{ slot = 0, resource = \"so\", stride = 32 }]",
        )
        .replace(
            "{ semantic = \"COLOR\", format = \"R32G32B32A32_FLOAT\" }",
            "{ semantic = \"COLOR\", format = \"R32G32B32A32_FLOAT\", offset = 16 }",
        );
    let text = format!(
        r#"{SCENE}
[[resource]]
name = "so"
kind = "raw_buffer"
size = 1024

[[resource]]
name = "counters"
kind = "raw_buffer"
size = 4
{}{}{auto}"#,
        so(0, 3),
        so(6, 6),
    );
    let r = list("draw_auto", &text);
    assert_eq!(bytes(&r, "counters"), 288u32.to_le_bytes());
    // `debug --event 4` opens the DrawAuto draw with the count the two streaming draws
    // left: pixel (10, 10) is B's, drawn from vertices 3..9; (1, 14) is covered by none.
    let opts = common::run_options();
    let p = prepare(Job::load(&job("draw_auto_debug", &text)).unwrap(), &opts).unwrap();
    let t = match dxlane::debug::from_job_event(&p, Some(4)) {
        Ok(t) => t,
        Err(e) => panic!("event 4: {e}"),
    };
    let pixel = |x, y| dxlane::debug::LaneSelect::Pixel {
        x,
        y,
        sample: 0,
        prim: 0,
    };
    assert!(t.place(pixel(10, 10)).is_ok_and(|p| p.draw.is_some()));
    assert!(t.place(pixel(1, 14)).is_err());
    let color = bytes(&r, "color");
    let px = |x: usize, y: usize| color[4 * (16 * y + x)..4 * (16 * y + x) + 4].to_vec();
    assert_eq!(px(1, 1), [255, 0, 0, 255], "A's first triangle");
    assert_eq!(px(10, 10), [0, 255, 0, 255], "B");
    assert_eq!(
        px(1, 14),
        [0, 0, 0, 0],
        "A's second triangle was not streamed out"
    );
    assert_eq!(px(14, 1), [0, 0, 0, 0]);
    // The streamed records: B's first vertex follows A's triangle, at byte 96.
    let so = bytes(&r, "so");
    let f = |at: usize| f32::from_le_bytes(so[at..at + 4].try_into().unwrap());
    assert_eq!([f(96), f(100), f(104), f(108)], [-0.5, -1.0, 0.0, 1.0]);
    assert_eq!([f(112), f(116), f(120), f(124)], [0.0, 1.0, 0.0, 1.0]);
    // DrawAuto takes no arguments, needs a stride at slot 0 and a word for the size.
    for (name, bad, want) in [
        (
            "draw_auto_count",
            auto.replace("draw_auto", "vertex_count = 3\ndraw_auto"),
            "`vertex_count`: a `draw_auto` draw",
        ),
        (
            "draw_auto_offset",
            auto.replace(
                "resource = \"counters\" }",
                "resource = \"counters\", offset = 2 }",
            ),
            "`draw_auto`: `offset` 2",
        ),
        (
            "draw_auto_indexed",
            auto.replace("type = \"draw\"", "type = \"draw_indexed\""),
            "`draw_auto` does not apply to a draw_indexed command",
        ),
    ] {
        let e = error_of(
            name,
            &format!(
                "{SCENE}\n[[resource]]\nname = \"so\"\nkind = \"raw_buffer\"\nsize = 64\n[[resource]]\nname = \"counters\"\nkind = \"raw_buffer\"\nsize = 4\n{bad}"
            ),
        );
        assert!(e.contains("#2 (draw") && e.contains(want), "{name}: {e}");
    }
}

/// CopyTextureRegion with a placed footprint (D3D12_PLACED_SUBRESOURCE_FOOTPRINT): a
/// 2 × 2 box of a 4 × 4 R32_UINT texture to a buffer at offset 512 with a row pitch of
/// 256 lands at 512 + y × 256 + x × 4; copied back from the buffer into another
/// texture at (1, 2) it is the same texels there. Predicated copies are skipped like
/// the others.
#[test]
fn placed_footprint_copies_follow_the_footprint() {
    let text = r#"
[[resource]]
name = "tex"
kind = "texture2d"
format = "R32_UINT"
width = 4
height = 4
data = { u32 = [0, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15] }

[[resource]]
name = "back"
kind = "texture2d"
format = "R32_UINT"
width = 4
height = 4

[[resource]]
name = "staging"
kind = "raw_buffer"
size = 1024

[[command]]
type = "copy_texture_region"
dst = "staging"
dst_footprint = { offset = 512, format = "R32_UINT", width = 2, height = 2, row_pitch = 256 }
src = "tex"
src_box = [1, 2, 0, 3, 4, 1]

[[command]]
type = "copy_texture_region"
dst = "back"
dst_at = [1, 2, 0]
src = "staging"
src_footprint = { offset = 512, format = "R32_UINT", width = 2, height = 2, row_pitch = 256 }
"#;
    let r = list("footprint", text);
    let staging = bytes(&r, "staging");
    let w = |at: usize| u32::from_le_bytes(staging[at..at + 4].try_into().unwrap());
    assert_eq!([w(512), w(516), w(768), w(772)], [9, 10, 13, 14]);
    assert_eq!(w(520), 0, "past the footprint's width");
    let back = bytes(&r, "back");
    let t = |x: usize, y: usize| {
        u32::from_le_bytes(
            back[4 * (4 * y + x)..4 * (4 * y + x) + 4]
                .try_into()
                .unwrap(),
        )
    };
    assert_eq!([t(1, 2), t(2, 2), t(1, 3), t(2, 3)], [9, 10, 13, 14]);
    assert_eq!(t(0, 2), 0);
    let cases = [
        (
            "fp_offset",
            "offset = 512",
            "offset = 256",
            "`offset` 256 is not a multiple of 512",
        ),
        (
            "fp_pitch",
            "row_pitch = 256 }\nsrc = \"tex\"",
            "row_pitch = 128 }\nsrc = \"tex\"",
            "`row_pitch` 128 is not a non-zero multiple of 256",
        ),
        (
            "fp_format",
            "format = \"R32_UINT\", width = 2, height = 2, row_pitch = 256 }\nsrc = \"tex\"",
            "format = \"R16G16_UINT\", width = 2, height = 2, row_pitch = 256 }\nsrc = \"tex\"",
            "not copy-compatible",
        ),
        (
            "fp_outside",
            "offset = 512, format = \"R32_UINT\", width = 2, height = 2, row_pitch = 256 }\nsrc = \"tex\"",
            "offset = 512, format = \"R32_UINT\", width = 2, height = 3, row_pitch = 256 }\nsrc = \"tex\"",
            "ends at byte 1032, past the 1024 bytes",
        ),
        (
            "fp_box",
            "src_box = [1, 2, 0, 3, 4, 1]",
            "src_box = [1, 1, 0, 3, 4, 1]",
            "does not fit the destination",
        ),
        (
            "fp_both",
            "dst_footprint",
            "src_footprint = { format = \"R32_UINT\", width = 1, row_pitch = 256 }\ndst_footprint",
            "one side is a texture",
        ),
    ];
    for (name, from, to, want) in cases {
        assert!(text.contains(from), "{name}");
        let e = error_of(name, &text.replacen(from, to, 1));
        assert!(
            e.contains("#1 (copy_texture_region)") && e.contains(want),
            "{name}: {e}"
        );
    }
}

/// A single-draw job (`[draw]`) drawing rectangles A then B of [`SCENE`] (vertices
/// 0..12) with a LESS depth test over a cleared depth buffer, with `[[draw.query]]`
/// entries around it and `extra` appended.
fn single_draw(extra: &str) -> String {
    let verts = SCENE
        .split("data = { f32 = [")
        .nth(1)
        .and_then(|s| s.split("] }").next())
        .unwrap();
    format!(
        r#"
[program]
vs = "SHADERS/draw_color.vs_5_0.dxbc"
ps = "SHADERS/draw_color.ps_5_0.dxbc"

[draw]
vertex_count = 12

[[draw.vertex_buffer]]
slot = 0
stride = 24
data = {{ f32 = [{verts}] }}

[[draw.input_element]]
semantic = "POSITION"
format = "R32G32_FLOAT"

[[draw.input_element]]
semantic = "COLOR"
format = "R32G32B32A32_FLOAT"

[[draw.render_target]]
format = "R8G8B8A8_UNORM"
width = 16
height = 16

[draw.depth_stencil]
format = "D32_FLOAT"
clear_depth = 1.0
depth_func = "LESS"

[draw.rasterizer]
cull = "NONE"
{extra}"#
    )
}

fn single_draw_result(name: &str, text: &str) -> Box<dxlane::job::DrawResult> {
    match run(&job(name, text)) {
        Ok(Finished::Draw(r)) => r,
        Ok(_) => panic!("{name}: not a draw"),
        Err(e) => panic!("{name}: {e}"),
    }
}

/// A single draw's `[[draw.query]]` is begun just before the draw and ended just after
/// it, then resolved (`ResolveQueryData`'s layouts). A passes its 128 pixels and B
/// the 48 right of A (the occlusion rule above): OCCLUSION 176, BINARY_OCCLUSION 1.
/// D3D12_QUERY_DATA_PIPELINE_STATISTICS: IAVertices 12, IAPrimitives 4, VSInvocations
/// 12, CInvocations 4, CPrimitives 4, PSInvocations 176 (the pixel program writes no
/// depth and does not discard, so the depth test runs before it and B's 48 hidden
/// pixels are not shaded), the rest 0.
#[test]
fn single_draw_queries_resolve_after_the_draw() {
    let text = single_draw(
        r#"
[[draw.query]]
query = "OCCLUSION"
output = "out/occlusion.bin"

[[draw.query]]
query = "BINARY_OCCLUSION"

[[draw.query]]
query = "PIPELINE_STATISTICS"
output = "out/statistics.bin"
"#,
    );
    let path = job("single_draw", &text);
    let r = match run(&path) {
        Ok(Finished::Draw(r)) => r,
        Ok(_) => panic!("not a draw"),
        Err(e) => panic!("{e}"),
    };
    let q = &r.summary.queries;
    assert_eq!(q.len(), 3);
    assert_eq!(
        (q[0].kind.as_str(), q[0].value.as_u64()),
        ("OCCLUSION", Some(176))
    );
    assert_eq!(
        (q[1].kind.as_str(), q[1].value.as_u64()),
        ("BINARY_OCCLUSION", Some(1))
    );
    assert_eq!(q[2].kind, "PIPELINE_STATISTICS");
    assert_eq!(q[2].value["ps_invocations"], 176);
    let dir = path.parent().unwrap().join("out");
    let occ = std::fs::read(dir.join("occlusion.bin")).unwrap();
    assert_eq!(occ, 176u64.to_le_bytes());
    let stats: Vec<u64> = std::fs::read(dir.join("statistics.bin"))
        .unwrap()
        .chunks_exact(8)
        .map(|c| u64::from_le_bytes(c.try_into().unwrap()))
        .collect();
    assert_eq!(stats, [12, 4, 12, 0, 0, 4, 4, 176, 0, 0, 0]);
    // The summary JSON carries them too; a draw without queries has no `queries` key.
    let json = std::fs::read_to_string(&r.summary_path).unwrap();
    assert!(json.contains("\"queries\""), "{json}");
    let plain = single_draw_result("single_draw_plain", &single_draw(""));
    assert!(plain.summary.queries.is_empty());
    let json = std::fs::read_to_string(&plain.summary_path).unwrap();
    assert!(!json.contains("\"queries\""), "{json}");
}

/// A single draw's bad queries are refused naming the entry and the key: a timestamp
/// (D3D12's `BeginQuery` takes no TIMESTAMP: it has no begin, so nothing to enclose), a
/// name that is no D3D12_QUERY_TYPE, an unknown key; `[[query_heap]]` stays a command
/// list's.
#[test]
fn single_draw_bad_queries_are_refused() {
    let e = error_of(
        "single_timestamp",
        &single_draw("\n[[draw.query]]\nquery = \"TIMESTAMP\"\n"),
    );
    assert!(
        e.contains("[[draw.query]] #1") && e.contains("TIMESTAMP"),
        "{e}"
    );
    let e = error_of(
        "single_unknown",
        &single_draw(
            "\n[[draw.query]]\nquery = \"OCCLUSION\"\n[[draw.query]]\nquery = \"VISIBLE\"\n",
        ),
    );
    assert!(
        e.contains("[[draw.query]] #2") && e.contains("`query` \"VISIBLE\""),
        "{e}"
    );
    let e = error_of(
        "single_key",
        &single_draw("\n[[draw.query]]\nquery = \"OCCLUSION\"\nheap = \"occ\"\n"),
    );
    assert!(e.contains("heap"), "{e}");
    let e = error_of(
        "single_heap",
        &single_draw("\n[[query_heap]]\nname = \"occ\"\ntype = \"OCCLUSION\"\ncount = 1\n"),
    );
    assert!(e.contains("[[query_heap]]"), "{e}");
}
