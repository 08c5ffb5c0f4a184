//! Stream output (`pipeline::so`) through command-list draws: the records, gaps, strips
//! written as lists, the four streams of a geometry program with another stream
//! rasterized, the overflow rule, the filled-size counter across draws, a DXIL geometry
//! program's second stream, and bad state refused naming the key; then the same through
//! a single-draw job's `[[draw.stream_output_buffer]]`, and a domain program's triangles
//! streamed out of a tessellated draw. Every value checked is worked out by hand from the
//! programs in `tests/jobs/stream_output/stream_output.hlsl`,
//! `tests/jobs/gs_after_ds/gs_after_ds.hlsl` (and the corpus's `dxil-reader/streams.hlsl`).

use dxlane::job::{Finished, Job, ListResult, prepare};
use dxlane::pipeline::so::SoStatistics;

use crate::common;

/// Runs `text` as a command-list job in a folder of its own; `PROGRAMS` in it names
/// `tests/jobs/stream_output/`.
pub(crate) fn run(name: &str, text: &str) -> Result<ListResult, String> {
    let dir = common::scratch().join("stream_output").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let programs = common::root().join("tests/jobs/stream_output");
    let text = text.replace("PROGRAMS", &programs.display().to_string());
    let path = dir.join("job.toml");
    std::fs::write(&path, text).unwrap();
    let job = Job::load(&path).map_err(|e| e.to_string())?;
    let opts = common::run_options();
    match prepare(job, &opts)
        .and_then(|p| p.execute(&opts))
        .map_err(|e| e.to_string())?
    {
        Finished::List(r) => Ok(*r),
        _ => Err("not a list".into()),
    }
}

/// The first `n` words of `[[resource]]` entry `index` (in file order) after the list.
pub(crate) fn words(r: &ListResult, index: usize, n: usize) -> Vec<u32> {
    let m = r.bound.resources[index].memory().expect("storage");
    (0..n as u64).map(|i| m.load_u32(4 * i).unwrap()).collect()
}

fn stats(r: &ListResult, command: usize) -> [SoStatistics; 4] {
    r.summary.commands[command]
        .stream_output
        .expect("stream-output statistics")
}

fn st(written: u64, needed: u64) -> SoStatistics {
    SoStatistics {
        primitives_written: written,
        primitives_storage_needed: needed,
    }
}

/// Five positions (v, 10 + v) as a triangle strip, drawn `draws` times through `vs_id`
/// into "so" (filled size in "counter"), with `extra` keys on each draw.
pub(crate) fn strip_job(draws: usize, so_size: u32, extra: &str) -> String {
    let draw = format!(
        r#"
[[command]]
type = "draw"
vs = "PROGRAMS/stream_output.vs_5_0.dxbc"
topology = "triangle_strip"
vertex_count = 5
vertex_buffers = [{{ slot = 0, resource = "positions", stride = 8 }}]
input_element = [{{ semantic = "POSITION", format = "R32G32_FLOAT" }}]
render_targets = [{{ resource = "rt" }}]
rasterized_stream = "none"
stream_output = [
    {{ semantic = "ID", component_count = 1 }},
    {{ component_count = 1 }},
    {{ semantic = "SV_Position", component_count = 2 }},
]
stream_output_buffers = [{{ resource = "so", stride = 16, filled_size_resource = "counter" }}]
{extra}
"#
    );
    format!(
        r#"
[[resource]]
name = "positions"
kind = "raw_buffer"
size = 40
data = {{ f32 = [0, 10, 1, 11, 2, 12, 3, 13, 4, 14] }}

[[resource]]
name = "so"
kind = "raw_buffer"
size = {so_size}
data = {{ fill_u32 = 0xdeadbeef }}

[[resource]]
name = "counter"
kind = "raw_buffer"
size = 4

[[resource]]
name = "rt"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = 4
height = 4
{}"#,
        draw.repeat(draws)
    )
}

/// D3D11.3 §14 "Stream Output Stage" (a strip is written as a list of whole primitives;
/// without a geometry program the vertex program's outputs are streamed) and
/// `D3D12_SO_DECLARATION_ENTRY` (entries follow each other in their slot; an entry
/// without a semantic is a gap, not written). A strip of 5 vertices makes triangles
/// (0, 1, 2), (1, 3, 2), (2, 3, 4) (§8 "Triangle Strip": odd triangles keep the winding
/// with their first vertex leading); each record is (ID, gap, x, y) of 16 bytes, so 9
/// records, 144 bytes: the filled size ends at 144 (`BufferFilledSize`, D3D12 "Stream
/// output counters"). Nothing is rasterized (`D3D12_SO_NO_RASTERIZED_STREAM`).
#[test]
fn a_vertex_programs_triangle_strip_is_written_as_a_list() {
    let r = run("strip", &strip_job(1, 160, "")).unwrap_or_else(|e| panic!("{e}"));
    let got = words(&r, 1, 40);
    let mut want = Vec::new();
    for v in [0u32, 1, 2, 1, 3, 2, 2, 3, 4] {
        want.extend([
            v,
            0xdeadbeef,
            (v as f32).to_bits(),
            (10.0 + v as f32).to_bits(),
        ]);
    }
    want.extend([0xdeadbeef; 4]);
    assert_eq!(got, want);
    assert_eq!(words(&r, 2, 1), vec![144]);
    assert_eq!(stats(&r, 0)[0], st(3, 3));
    assert_eq!(
        r.summary.commands[0].pixels_shaded, 0,
        "no stream rasterized"
    );
}

/// `BufferFilledSizeLocation` is read as where writing starts and written with where it
/// ended (D3D12 "Stream output counters"), so a second draw with the same counter
/// appends: 288 bytes after two draws, the second draw's records from byte 144. With
/// room for 16 records (256 bytes) the second draw's third triangle would end at 288:
/// it is not written (D3D11.3 §14: a primitive that does not fit is not written and
/// the stream stops), so the second draw writes two triangles and the counter ends at
/// 240; storage needed still counts all three.
#[test]
fn a_second_draw_appends_and_a_full_buffer_stops_its_stream() {
    let r = run("append", &strip_job(2, 320, "")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(words(&r, 2, 1), vec![288]);
    let got = words(&r, 1, 80);
    assert_eq!(
        &got[36..40],
        &[0, 0xdeadbeef, 0, 10f32.to_bits()],
        "second draw's first record"
    );
    assert_eq!(got[72], 0xdeadbeef);
    assert_eq!(stats(&r, 1)[0], st(3, 3));

    let r = run("overflow", &strip_job(2, 256, "")).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(words(&r, 2, 1), vec![240]);
    let got = words(&r, 1, 64);
    assert_eq!(
        &got[48..52],
        &[1, 0xdeadbeef, 1f32.to_bits(), 11f32.to_bits()]
    );
    assert_eq!(
        &got[56..60],
        &[2, 0xdeadbeef, 2f32.to_bits(), 12f32.to_bits()]
    );
    assert_eq!(got[60], 0xdeadbeef, "the third triangle is not written");
    assert_eq!(stats(&r, 0)[0], st(3, 3));
    assert_eq!(stats(&r, 1)[0], st(2, 3));
}

/// The command list of [`four_streams_into_four_buffers_with_stream_2_rasterized`]:
/// two points through `gs_streams`, stream s's VALUE into buffer s (buffer 3 with room
/// for one record), `rasterized` the `rasterized_stream` value (a number or `"none"`).
pub(crate) fn four_streams_job(rasterized: &str) -> String {
    r#"
[[resource]]
name = "points"
kind = "raw_buffer"
size = 48
data = { f32 = [0, 0, 0, 1, 0, 0,  0, 0, 0, 1, 0, 0] }

[[resource]]
name = "b0"
kind = "raw_buffer"
size = 16
[[resource]]
name = "b1"
kind = "raw_buffer"
size = 16
[[resource]]
name = "b2"
kind = "raw_buffer"
size = 16
[[resource]]
name = "b3"
kind = "raw_buffer"
size = 16

[[resource]]
name = "rt"
kind = "texture2d"
format = "R32_UINT"
width = 8
height = 8
data = { fill_u32 = 99 }

[[command]]
type = "draw"
vs = "PROGRAMS/stream_output_pass.vs_5_0.dxbc"
gs = "PROGRAMS/stream_output.gs_5_0.dxbc"
ps = "PROGRAMS/stream_output.ps_5_0.dxbc"
topology = "point_list"
vertex_count = 2
vertex_buffers = [{ slot = 0, resource = "points", stride = 24 }]
input_element = [
    { semantic = "SV_Position", format = "R32G32B32A32_FLOAT" },
    { semantic = "TEXCOORD", format = "R32G32_FLOAT" },
]
render_targets = [{ resource = "rt" }]
rasterizer = { cull = "NONE" }
rasterized_stream = RASTERIZED
stream_output = [
    { stream = 0, semantic = "VALUE", component_count = 1, slot = 0 },
    { stream = 1, semantic = "VALUE", component_count = 1, slot = 1 },
    { stream = 2, semantic = "VALUE", component_count = 1, slot = 2 },
    { stream = 3, semantic = "VALUE", component_count = 1, slot = 3 },
]
stream_output_buffers = [
    { resource = "b0", stride = 4, filled_size_resource = "counters", filled_size_offset = 0 },
    { resource = "b1", stride = 4, filled_size_resource = "counters", filled_size_offset = 4 },
    { resource = "b2", stride = 4, filled_size_resource = "counters", filled_size_offset = 8 },
    { resource = "b3", stride = 4, size = 4, filled_size_resource = "counters", filled_size_offset = 12 },
]

[[resource]]
name = "counters"
kind = "raw_buffer"
size = 16
"#
    .replace("RASTERIZED", rasterized)
}

/// A geometry program's four streams into four buffers with stream 2 rasterized (D3D11.3
/// §14, `RasterizedStream`): two input points (SV_PrimitiveID 0 and 1), each invocation
/// emitting on stream s a point whose VALUE is 10·id + s; buffer s takes stream s's VALUE
/// (stride 4). Buffer 3 holds one record only: stream 3's second point overflows while
/// streams 0 … 2 write both (overflow is per stream). The target shows stream 2 alone:
/// its points at pixels (2, 0) and (2, 1) hold 2 and 12; pixels (0..2, row) keep the
/// clear value.
#[test]
fn four_streams_into_four_buffers_with_stream_2_rasterized() {
    let text = four_streams_job("2");
    let r = run("streams", &text).unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(words(&r, 1, 2), vec![0, 10]);
    assert_eq!(words(&r, 2, 2), vec![1, 11]);
    assert_eq!(words(&r, 3, 2), vec![2, 12]);
    assert_eq!(words(&r, 4, 2), vec![3, 0], "room for one record");
    assert_eq!(words(&r, 6, 4), vec![8, 8, 8, 4]);
    let s = stats(&r, 0);
    assert_eq!(s, [st(2, 2), st(2, 2), st(2, 2), st(1, 2)]);
    let rt = words(&r, 5, 16);
    assert_eq!(&rt[0..4], &[99, 99, 2, 99], "row 0: stream 2 only");
    assert_eq!(&rt[8..12], &[99, 99, 12, 99], "row 1");
}

/// A DXIL geometry program's streams (DXIL.rst "Signature element record": stream 1's
/// elements tagged with their stream, found by the declaration; `EmitStream`): the
/// corpus's `streams.hlsl` emits each corner of the input triangle on stream 0, then one
/// point with TAG = input[1].uv.x on stream 1 — its fourth vertex under
/// `[maxvertexcount(3)]`, which counts the vertices of every stream, so D3D drops it
/// (D3D11.3 §13.2; `dcl_maxOutputVertexCount`). The corners' uv are (1, 2), (3, 4),
/// (5, 6): buffer 0 takes stream 0's TEXCOORD0.xy of the three corners; buffer 1 and
/// stream 1's statistics stay empty.
#[test]
fn a_dxil_geometry_programs_second_stream() {
    let gs = common::corpora()
        .iter()
        .map(|d| d.join("streams.gs.dxil"))
        .find(|p| p.is_file())
        .expect("the corpus's dxil-reader/streams.gs.dxil");
    let text = format!(
        r#"
[[resource]]
name = "corners"
kind = "raw_buffer"
size = 72
data = {{ f32 = [0, 0, 0, 1, 1, 2,  1, 0, 0, 1, 3, 4,  0, 1, 0, 1, 5, 6] }}

[[resource]]
name = "b0"
kind = "raw_buffer"
size = 32

[[resource]]
name = "b1"
kind = "raw_buffer"
size = 8

[[resource]]
name = "rt"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = 4
height = 4

[[command]]
type = "draw"
vs = "PROGRAMS/stream_output_pass.vs_5_0.dxbc"
gs = "{gs}"
vertex_count = 3
vertex_buffers = [{{ slot = 0, resource = "corners", stride = 24 }}]
input_element = [
    {{ semantic = "SV_Position", format = "R32G32B32A32_FLOAT" }},
    {{ semantic = "TEXCOORD", format = "R32G32_FLOAT" }},
]
render_targets = [{{ resource = "rt" }}]
rasterized_stream = "none"
stream_output = [
    {{ stream = 0, semantic = "TEXCOORD", component_count = 2, slot = 0 }},
    {{ stream = 1, semantic = "TAG", component_count = 1, slot = 1 }},
]
stream_output_buffers = [
    {{ resource = "b0", stride = 8 }},
    {{ resource = "b1", stride = 4 }},
]
"#,
        gs = gs.display()
    );
    let r = run("dxil-streams", &text).unwrap_or_else(|e| panic!("{e}"));
    let f = |x: f32| x.to_bits();
    assert_eq!(
        words(&r, 1, 8),
        vec![f(1.0), f(2.0), f(3.0), f(4.0), f(5.0), f(6.0), 0, 0]
    );
    assert_eq!(words(&r, 2, 2), vec![0, 0], "the fourth vertex is dropped");
    assert_eq!(stats(&r, 0)[..2], [st(3, 3), st(0, 0)]);
}

fn refused(name: &str, text: &str) -> String {
    match run(name, text) {
        Ok(_) => panic!("{name}: ran"),
        Err(e) => e,
    }
}

/// Bad stream-output state is refused before anything runs, naming the command and the
/// key (D3D12's `CreateGraphicsPipelineState` and `SOSetTargets` checks): a semantic
/// the vertex program does not output, components overlapping in one buffer, a stride
/// too small or not a multiple of 4, more than 4 buffers, a rasterized stream past 3, a
/// stream > 0 from a vertex program, a buffer the draw also reads.
#[test]
fn bad_stream_output_state_is_refused_by_name() {
    let with = |decl: &str, buffers: &str, rast: &str| {
        strip_job(1, 160, "")
            .replace(
                "stream_output = [\n    { semantic = \"ID\", component_count = 1 },\n    { component_count = 1 },\n    { semantic = \"SV_Position\", component_count = 2 },\n]",
                &format!("stream_output = [{decl}]"),
            )
            .replace(
                "stream_output_buffers = [{ resource = \"so\", stride = 16, filled_size_resource = \"counter\" }]",
                &format!("stream_output_buffers = [{buffers}]"),
            )
            .replace("rasterized_stream = \"none\"", &format!("rasterized_stream = {rast}"))
    };
    let so = "{ resource = \"so\", stride = 16 }";
    let cases = [
        (
            with("{ semantic = \"COLOR\" }", so, "\"none\""),
            "stream-output declaration entry 0",
            "COLOR0: the vertex program outputs no such semantic",
        ),
        (
            with(
                "{ semantic = \"SV_Position\", component_count = 2 }, { semantic = \"SV_Position\", start_component = 1, component_count = 1 }",
                so,
                "\"none\"",
            ),
            "stream-output declaration entry 1",
            "overlap",
        ),
        (
            with(
                "{ semantic = \"SV_Position\" }",
                "{ resource = \"so\", stride = 12 }",
                "\"none\"",
            ),
            "the stride of stream-output buffer 0",
            "stride 12 of output slot 0",
        ),
        (
            with(
                "{ semantic = \"ID\", component_count = 1 }",
                "{ resource = \"so\", stride = 6 }",
                "\"none\"",
            ),
            "the stride of stream-output buffer 0",
            "multiple of 4",
        ),
        (
            with("", &[so; 5].join(", "), "\"none\""),
            "`stream_output_buffers`",
            "at most 4",
        ),
        (
            with("", so, "4"),
            "the rasterized stream",
            "streams are 0 to 3",
        ),
        (
            with(
                "{ stream = 1, semantic = \"ID\", component_count = 1 }",
                so,
                "\"none\"",
            ),
            "stream-output declaration entry 0",
            "has one stream",
        ),
        (
            with(
                "{ semantic = \"ID\", component_count = 1 }",
                "{ resource = \"positions\", stride = 4 }",
                "\"none\"",
            ),
            "stream-output buffer 0",
            "also vertex buffer 0",
        ),
    ];
    for (i, (text, key, what)) in cases.iter().enumerate() {
        let e = refused(&format!("bad-{i}"), text);
        assert!(
            e.contains("[[command]] #1") && e.contains(key) && e.contains(what),
            "case {i}: {e}"
        );
    }
}

/// Runs `text` as a single-draw job (paths relative to `examples/`).
fn run_draw(name: &str, text: &str) -> Result<dxlane::job::DrawResult, String> {
    crate::draw::run_text(&format!("so-{name}"), text, 1).map_err(|e| e.to_string())
}

/// The bytes of the output file entry `entry` wrote, as words.
fn output_words(r: &dxlane::job::DrawResult, entry: &str) -> Vec<u32> {
    let o = r
        .summary
        .outputs
        .iter()
        .find(|o| o.entry == entry)
        .unwrap_or_else(|| panic!("no output of {entry}: {:?}", r.summary.outputs));
    std::fs::read(&o.path)
        .unwrap()
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// The strip of `strip_job` as a single-draw job: `[[draw.stream_output]]`, `[draw]
/// rasterized_stream` and a `[[draw.stream_output_buffer]]` of 160 bytes starting as
/// 0xdeadbeef words; `extra` is appended.
fn single_strip_job(extra: &str) -> String {
    format!(
        r#"[program]
vs = "../tests/jobs/stream_output/stream_output.vs_5_0.dxbc"

[draw]
topology = "triangle_strip"
vertex_count = 5
rasterized_stream = "none"

[[draw.vertex_buffer]]
slot = 0
stride = 8
data = {{ f32 = [0, 10, 1, 11, 2, 12, 3, 13, 4, 14] }}

[[draw.input_element]]
semantic = "POSITION"
format = "R32G32_FLOAT"

[[draw.render_target]]
format = "R8G8B8A8_UNORM"
width = 4
height = 4

[[draw.stream_output]]
semantic = "ID"
component_count = 1

[[draw.stream_output]]
component_count = 1

[[draw.stream_output]]
semantic = "SV_Position"
component_count = 2

[[draw.stream_output_buffer]]
slot = 0
stride = 16
size = 160
fill_u32 = 0xdeadbeef
output = "so.bin"
{extra}"#
    )
}

/// The list test's strip (`a_vertex_programs_triangle_strip_is_written_as_a_list`, the
/// same D3D11.3 §14 "Stream Output Stage" and `D3D12_SO_DECLARATION_ENTRY` rules) as a
/// single-draw job: the same 9 records of (ID, gap, x, y), the gap and the rest of the
/// buffer left as they were, the filled size 144 (`BufferFilledSizeLocation`, D3D12
/// "Stream output counters"); `[[expect]] stream_output_buffer` checks both, and the
/// buffer's `output` file holds the same bytes.
#[test]
fn a_single_draw_streams_out_as_a_list_draw_does() {
    let mut want = Vec::new();
    for v in [0u32, 1, 2, 1, 3, 2, 2, 3, 4] {
        want.extend([
            v,
            0xdeadbeef,
            (v as f32).to_bits(),
            (10.0 + v as f32).to_bits(),
        ]);
    }
    want.extend([0xdeadbeef; 4]);
    let words: Vec<String> = want.iter().map(|w| w.to_string()).collect();
    let expects = format!(
        "[[expect]]\nstream_output_buffer = 0\nu32 = [{}]\n\n[[expect]]\nstream_output_buffer = 0\ncounter = 144\n",
        words.join(", ")
    );
    let r = run_draw("strip", &single_strip_job(&expects)).unwrap_or_else(|e| panic!("{e}"));
    let x = &r.summary.expectations;
    assert_eq!((x.passed, x.failed), (2, 0), "{x:?}");
    assert_eq!(output_words(&r, "[[draw.stream_output_buffer]] #1"), want);
    let so = r.summary.draw.stream_output.expect("statistics");
    assert_eq!(so[0], st(3, 3));
    assert_eq!(r.summary.draw.pixels_shaded, 0, "no stream rasterized");

    // A wrong filled size fails the expectation (it is checked, not assumed).
    let r = run_draw(
        "strip-wrong",
        &single_strip_job("[[expect]]\nstream_output_buffer = 0\ncounter = 140\n"),
    )
    .unwrap_or_else(|e| panic!("{e}"));
    assert_eq!(r.summary.expectations.failed, 1);
}

/// `filled_size` is where writing starts (D3D12 "Stream output counters": the
/// `BufferFilledSizeLocation` value is read before the draw): from 32 the 9 records end
/// at 176, past the 160-byte view, so the third triangle (ending at 176) does not fit
/// and the stream stops after two (D3D11.3 §14: a primitive is written whole or not at
/// all); the filled size ends at 32 + 96 = 128.
#[test]
fn a_single_draws_filled_size_is_where_writing_starts() {
    let text = single_strip_job("").replace(
        "fill_u32 = 0xdeadbeef\n",
        "fill_u32 = 0xdeadbeef\nfilled_size = 32\n",
    );
    let text = format!("{text}[[expect]]\nstream_output_buffer = 0\ncounter = 128\n");
    let r = run_draw("filled", &text).unwrap_or_else(|e| panic!("{e}"));
    let got = output_words(&r, "[[draw.stream_output_buffer]] #1");
    assert_eq!(got[..8], [0xdeadbeef; 8]);
    assert_eq!(got[8..12], [0, 0xdeadbeef, 0f32.to_bits(), 10f32.to_bits()]);
    assert_eq!(got[28], 2, "record 6 is vertex 2");
    assert_eq!(got[32..], [0xdeadbeef; 8]);
    assert_eq!(
        r.summary.expectations.failed, 0,
        "{:?}",
        r.summary.expectations
    );
    let so = r.summary.draw.stream_output.expect("statistics");
    assert_eq!(so[0], st(2, 3));
}

/// `offset` is where the view starts in the buffer (`D3D12_STREAM_OUTPUT_BUFFER_VIEW`
/// `BufferLocation`): with 16 bytes before a view of exactly 144 bytes, the 9 records
/// fill the view (the last triangle ends at 144, which fits: D3D11.3 §14 refuses only a
/// primitive past `SizeInBytes`), the 16 bytes before it stay as they were, and the
/// output file holds all 160 bytes.
#[test]
fn a_single_draws_view_starts_at_its_offset() {
    let text = single_strip_job("[[expect]]\nstream_output_buffer = 0\ncounter = 144\n")
        .replace("size = 160\n", "size = 144\noffset = 16\n");
    let r = run_draw("offset", &text).unwrap_or_else(|e| panic!("{e}"));
    let got = output_words(&r, "[[draw.stream_output_buffer]] #1");
    assert_eq!(got.len(), 40);
    assert_eq!(got[..4], [0xdeadbeef; 4]);
    assert_eq!(got[4..8], [0, 0xdeadbeef, 0f32.to_bits(), 10f32.to_bits()]);
    assert_eq!(got[36..], [4, 0xdeadbeef, 4f32.to_bits(), 14f32.to_bits()]);
    assert_eq!(
        r.summary.expectations.failed, 0,
        "{:?}",
        r.summary.expectations
    );
    assert_eq!(
        r.summary.draw.stream_output.expect("statistics")[0],
        st(3, 3)
    );
}

/// Stream output from a DOMAIN program (D3D11.3 §14: without a geometry program the
/// last vertex-processing stage's outputs are stream 0). `gs_after_ds_job` without its
/// geometry and pixel programs: two tri patches, every factor 1, integer partitioning,
/// triangle_cw, so each patch is one triangle of points 0 (u, v, w) = (0, 1, 0),
/// 1 (0, 0, 1), 2 (1, 0, 0) in that order (D3D11.3 §11.7.5 "Tessellation Pattern";
/// docs/tessellation.md; `dxlane tessellate --domain tri --partitioning integer
/// --output triangle_cw --edges 1,1,1 --inside 1`). The domain program writes LOC =
/// (u, v, w) and SV_Position = (u·P0 + v·P1 + w·P2, 1), so the points land on P1, P2,
/// P0, patch 0's before patch 1's. Each record is LOC.xyz then SV_Position.xyzw: 28
/// bytes, 6 records, 168 bytes, the rest of the 192-byte view untouched.
#[test]
fn a_domain_program_streams_out_the_tessellators_triangles() {
    let text = crate::tessellation_stages::gs_after_ds_job(
        r#"
[[draw.stream_output]]
semantic = "LOC"
component_count = 3

[[draw.stream_output]]
semantic = "SV_Position"

[[draw.stream_output_buffer]]
slot = 0
stride = 28
size = 192
fill_u32 = 0xdeadbeef
output = "ds.bin"

[[expect]]
stream_output_buffer = 0
counter = 168
"#,
    )
    .replace(
        "gs = \"../tests/jobs/gs_after_ds/gs_after_ds.gs_5_0.dxbc\"\n",
        "",
    )
    .replace(
        "ps = \"../tests/jobs/gs_after_ds/gs_after_ds.ps_5_0.dxbc\"\n",
        "",
    )
    .replace(
        "vertex_count = 6\n",
        "vertex_count = 6\nrasterized_stream = \"none\"\n",
    );
    let r = run_draw("domain", &text).unwrap_or_else(|e| panic!("{e}"));
    let centre = |x: f32, y: f32| [(x + 0.5) / 4.0 - 1.0, 1.0 - (y + 0.5) / 4.0, 0.5];
    let mut want = Vec::new();
    for p in 0..2 {
        let y = p as f32;
        // (u, v, w) and the control point it lands on.
        for (uvw, k) in [
            ([0f32, 1.0, 0.0], 1.0),
            ([0.0, 0.0, 1.0], 2.0),
            ([1.0, 0.0, 0.0], 0.0),
        ] {
            want.extend(uvw.map(f32::to_bits));
            want.extend(centre(k, y).map(f32::to_bits));
            want.push(1f32.to_bits());
        }
    }
    want.extend([0xdeadbeef; 6]);
    assert_eq!(output_words(&r, "[[draw.stream_output_buffer]] #1"), want);
    let x = &r.summary.expectations;
    assert_eq!((x.passed, x.failed), (1, 0), "{x:?}");
    let d = &r.summary.draw;
    assert_eq!((d.primitives, d.domain_points), (2, 6), "{d:?}");
    assert_eq!(d.stream_output.expect("statistics")[0], st(2, 2));
}

/// Bad single-draw stream output is refused before anything runs, naming the key: a
/// semantic the vertex program does not output and a stride below the record
/// (`CreateGraphicsPipelineState`'s checks, D3D11.3 §14 / `D3D12_STREAM_OUTPUT_DESC`),
/// a slot given twice or past 3 (`SOSetTargets` binds one view per slot of
/// `D3D12_SO_BUFFER_SLOT_COUNT`), a filled size past the view, an expectation of a
/// buffer the draw does not have, an unknown key.
#[test]
fn bad_single_draw_stream_output_is_refused_by_name() {
    let base = single_strip_job("");
    let buffer = "[[draw.stream_output_buffer]]\nslot = 0\nstride = 16\nsize = 160\n";
    let cases = [
        (
            base.replace("semantic = \"ID\"", "semantic = \"COLOR\""),
            "[[draw.stream_output]] #1",
            "COLOR0",
        ),
        (
            base.replace("stride = 16\n", "stride = 8\n"),
            "[[draw.stream_output_buffer]] (slot 0)",
            "stride 8",
        ),
        (
            format!("{base}\n{buffer}"),
            "[[draw.stream_output_buffer]] #2",
            "`slot` 0: already given by [[draw.stream_output_buffer]] #1",
        ),
        (
            base.replace("slot = 0\nstride = 16", "slot = 4\nstride = 16"),
            "[[draw.stream_output_buffer]] #1",
            "`slot` 4",
        ),
        (
            base.replace("size = 160\n", "size = 160\nfilled_size = 164\n"),
            "[[draw.stream_output_buffer]] #1",
            "`filled_size` 164",
        ),
        (
            format!("{base}\n[[expect]]\nstream_output_buffer = 1\nu32 = [0]\n"),
            "[[expect]] #1",
            "`stream_output_buffer` 1",
        ),
        (
            base.replace("size = 160\n", "size = 160\nbytes = 4\n"),
            "bytes",
            "unknown field",
        ),
    ];
    for (i, (text, key, what)) in cases.iter().enumerate() {
        let e = match run_draw(&format!("bad-{i}"), text) {
            Ok(_) => panic!("case {i}: drew"),
            Err(e) => e,
        };
        assert!(e.contains(key) && e.contains(what), "case {i}: {e}");
    }
}
