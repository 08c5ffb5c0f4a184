//! The bodies of the job-file, capture-manifest, offload-pipeline, shader-test, batch-list,
//! interpreter and draw-state fuzz targets as plain functions.
//!
//! The cargo-fuzz targets `job_file`, `capture_manifest`, `interpreter` and `draw_state`
//! call them with the fuzzer's bytes; `tests/all/fuzz_bodies.rs` calls them with mutated
//! seeds for a bounded number of cases in every `cargo test`, so CI runs them without a
//! nightly toolchain. Each body must return — an error is fine, a panic, an abort or a
//! hang is the bug — and writes only inside the folder it is given (the interpreter and
//! draw-state bodies write no file).

// Each fuzz target uses one body; the test uses them all.
#![allow(dead_code)]

use std::path::Path;

use dxlane::capture::{CompareOptions, compare_job};
use dxlane::job::{Job, RunOptions};

/// A compute job over `double.ir` (out[i] = 2 in[i] + 1), a seed for [`job_file`].
pub const COMPUTE_SEED: &str = r#"[program]
cs = "double.ir"

[dispatch]
groups = [2, 1, 1]

[options]
max_seconds = 1.0

[[resource]]
reg = "t0"
kind = "structured_buffer"
stride = 4
data = { file = "in.bin" }

[[resource]]
reg = "u0"
kind = "structured_buffer"
stride = 4
size = 32
output = "out/u0.bin"

[[expect]]
reg = "u0"
u32 = [1, 3, 5, 7]
"#;

/// A draw job (a full-screen triangle), a seed for [`job_file`].
pub const DRAW_SEED: &str = r#"[program]
vs = "vs.ir"
ps = "ps.ir"

[draw]
vertex_count = 3
instance_count = 1

[[draw.render_target]]
format = "R8G8B8A8_UNORM"
width = 16
height = 16
samples = 1
clear = [0, 0, 0, 1]
output = "out/rt.png"

[draw.depth_stencil]
format = "D32_FLOAT"
output = "out/depth.bin"

[[expect]]
render_target = 0
offset = 0
hex = "08 08 7b ff"
"#;

/// A command list (a clear, a dispatch, a buffer copy, a render-target clear, a draw, a
/// texture copy), a seed for [`job_file`].
pub const LIST_SEED: &str = r#"[[resource]]
name = "in"
kind = "structured_buffer"
stride = 4
data = { file = "in.bin" }

[[resource]]
name = "out"
kind = "structured_buffer"
stride = 4
size = 32

[[resource]]
name = "copy"
kind = "raw_buffer"
size = 32

[[resource]]
name = "rt"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = 16
height = 16

[[resource]]
name = "rt2"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = 16
height = 16

[[command]]
type = "clear_unordered_access"
resource = "out"
uint = [9, 0, 0, 0]

[[command]]
type = "dispatch"
cs = "double.ir"
groups = [1, 1, 1]
bind = [{ reg = "t0", resource = "in" }, { reg = "u0", resource = "out" }]

[[command]]
type = "copy_buffer_region"
dst = "copy"
src = "out"
src_offset = 0
bytes = 32

[[command]]
type = "clear_render_target"
resource = "rt"
color = [0, 0, 0, 1]

[[command]]
type = "draw"
vs = "vs.ir"
ps = "ps.ir"
vertex_count = 3
render_targets = [{ resource = "rt" }]

[[command]]
type = "copy_resource"
dst = "rt2"
src = "rt"

[[expect]]
resource = "copy"
u32 = [1, 3, 5, 7]

[[expect]]
resource = "rt2"
hex = "08 08 7b ff"
"#;

/// A `DispatchRays` job over the corpus's `ray_tracing` library exports (ray generation,
/// miss, closest-hit, callable) and a one-triangle scene, a seed for [`job_file`]. The
/// libraries are the fetched corpus files copied beside the job (`tests/all/fuzz_bodies.rs`
/// does it; under cargo-fuzz, copy them into the fuzz folder, else the seed's mutations
/// stop at the missing file).
pub const RAYS_SEED: &str = r#"[program]
libraries = ["raygen.dxil", "miss.dxil", "closest_hit.dxil", "callable.dxil"]

[rays]
dispatch = [4, 2, 1]
raygen = "raygen"
miss = ["miss"]
hit_groups = [{ name = "triangle", closest_hit = "closest_hit" }]
callable = ["callable"]
max_recursion_depth = 1
max_payload_size = 20
max_attribute_size = 8

[[acceleration_structure]]
name = "triangle"
level = "bottom"
[[acceleration_structure.geometry]]
type = "triangles"
opaque = true
vertices = { f32 = [0, 0, 0,  1, 0, 0,  0, 1, 0] }
indices = { u32 = [0, 1, 2] }

[[acceleration_structure]]
name = "scene"
level = "top"
[[acceleration_structure.instance]]
blas = "triangle"
transform = [1, 0, 0, 0,  0, 1, 0, 0,  0, 0, 1, 5]
id = 3

[[resource]]
reg = "t0"
kind = "acceleration_structure"
acceleration_structure = "scene"

[[resource]]
reg = "u0"
kind = "texture2d"
format = "R32G32B32A32_FLOAT"
width = 4
height = 2

[[expect]]
reg = "u0"
offset = 48
u32 = [0x80000000, 0x80000000]
"#;

/// A capture manifest of `seed.toml`'s `u0`, a seed for [`capture_manifest`].
pub const MANIFEST_SEED: &str = r#"job = "seed.toml"

[device]
adapter = "fuzz"
warp = "1.0.13"

[[resource]]
reg = "u0"
file = "u0.bin"
format = "R32_UINT"
layout = "tight"
tolerance = { ulp = 1 }
nan = "any"
"#;

/// An offload test suite pipeline for `double.ir`, a seed for [`offload_pipeline`].
pub const OFFLOAD_SEED: &str = "---
Shaders:
  - Stage: Compute
    Entry: main
Buffers:
  - Name: In
    Format: UInt32
    Data: [ 0, 1, 2, 3, 4, 5, 6, 7 ]
  - Name: Out
    Format: UInt32
    FillSize: 32
  - Name: Want
    Format: UInt32
    Data: [ 1, 3, 5, 7, 9, 11, 13, 15 ]
Results:
  - Result: Double
    Rule: BufferExact
    Actual: Out
    Expected: Want
DescriptorSets:
  - Resources:
    - Name: In
      Kind: StructuredBuffer
      DirectXBinding:
        Register: 0
        Space: 0
    - Name: Out
      Kind: RWStructuredBuffer
      DirectXBinding:
        Register: 0
        Space: 0
DispatchParameters:
  DispatchGroupCount: [2, 1, 1]
";

/// A batch case list, a seed for [`batch_lists`]: every line form of `batch::case`.
pub const BATCH_SEED: &str =
    "# cases\nrun job.toml timeout=5\ncompare job.toml cap\nshader-test f.shader_test\njob.toml\n";

/// The most memory a fuzzed job may ask for (its `max_memory` is lowered to this).
pub const MAX_MEMORY: u64 = 16 << 20;

/// Writes the files the seeds name into `dir`: the programs, an input, a job and a
/// capture folder of it.
pub fn prepare_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join("cap"))?;
    std::fs::write(
        dir.join("double.ir"),
        include_str!("../tests/jobs/double.ir"),
    )?;
    std::fs::write(
        dir.join("vs.ir"),
        include_str!("../shaders/draw_fullscreen.vs.ir"),
    )?;
    std::fs::write(
        dir.join("ps.ir"),
        include_str!("../shaders/draw_fullscreen.ps.ir"),
    )?;
    let words: Vec<u8> = (0u32..8).flat_map(|w| w.to_le_bytes()).collect();
    std::fs::write(dir.join("in.bin"), &words)?;
    std::fs::write(dir.join("seed.toml"), COMPUTE_SEED)?;
    let out: Vec<u8> = (0u32..8).flat_map(|w| (2 * w + 1).to_le_bytes()).collect();
    std::fs::write(dir.join("cap/u0.bin"), out)?;
    Ok(())
}

/// A job file made of the fuzzer's bytes, read, checked, bound and run — a dispatch or
/// a draw — with small limits (memory, time, one worker) and its outputs under
/// `dir/out-dir`. Never panics.
pub fn job_file(dir: &Path, data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let Ok(mut job) = Job::from_text(&text, &dir.join("job.toml")) else {
        return;
    };
    let o = &mut job.file.options;
    o.max_memory = Some(o.max_memory.unwrap_or(MAX_MEMORY).min(MAX_MEMORY));
    o.max_lane_instructions = Some(o.max_lane_instructions.unwrap_or(1 << 20).min(1 << 20));
    o.max_total_lane_instructions = Some(
        o.max_total_lane_instructions
            .unwrap_or(1 << 24)
            .min(1 << 24),
    );
    let opts = RunOptions {
        threads: Some(1),
        max_seconds: Some(0.5),
        out_dir: Some(dir.join("out-dir")),
        ..RunOptions::default()
    };
    if let Ok(p) = dxlane::job::prepare(job, &opts) {
        let _ = p.execute(&opts);
    }
}

/// An offload pipeline made of the fuzzer's bytes, read and run on `double.ir` with one
/// worker and a time limit (`dxlane offload`'s library half). Writes no file. Never
/// panics.
pub fn offload_pipeline(dir: &Path, data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let opts = dxlane::offload::OffloadOptions {
        threads: Some(1),
        max_seconds: Some(0.5),
        ..Default::default()
    };
    let _ = dxlane::offload::run(&dir.join("p.yaml"), &text, &[dir.join("double.ir")], &opts);
}

/// A capture manifest made of the fuzzer's bytes: parsed on its own, then written into a
/// capture folder and compared with the seed job (no images, no explanation reruns).
/// Never panics.
pub fn capture_manifest(dir: &Path, data: &[u8]) {
    let text = String::from_utf8_lossy(data);
    let cap = dir.join("cap");
    if dxlane::capture::Capture::parse(&text, &cap).is_err() {
        return;
    }
    if std::fs::write(cap.join("capture.toml"), data).is_err() {
        return;
    }
    let opts = CompareOptions {
        threads: Some(1),
        no_images: true,
        no_explain: true,
        any_job: true,
        ..CompareOptions::default()
    };
    let _ = compare_job(&dir.join("seed.toml"), &cap, &opts);
}

/// A vkd3d-format shader-test file, a seed for [`shader_test_file`]: compute, a uniform,
/// typed UAV buffer and texture resources, probes.
pub const SHADER_TEST_SEED: &str = include_str!("../tests/shader_test/compute.shader_test");

/// A vkd3d shader-test file made of the fuzzer's bytes: parsed, every `[test]` line split
/// into its qualifiers and its command, then run as SM 5.0 with a compiler that does not
/// exist, so the run reads the resource sections and the commands past the failed
/// compiles without starting a program. Never panics.
pub fn shader_test_file(dir: &Path, data: &[u8]) {
    use dxlane::shader_test::parse::{SectionKind, parse, split_qualifiers};
    use dxlane::shader_test::run::parse_command;
    let text = String::from_utf8_lossy(data);
    let Ok(test) = parse(&text, &dir.join("f.shader_test")) else {
        return;
    };
    for section in &test.sections {
        if section.kind == SectionKind::Test {
            for (_, line) in &section.body {
                if let Ok((_, rest)) = split_qualifiers(line) {
                    let _ = parse_command(rest);
                }
            }
        }
    }
    let cfg = dxlane::shader_test::RunConfig {
        threads: Some(1),
        models: Some(vec![50]),
        vkd3d_compiler: Some(dir.join("no-such-compiler")),
        ..Default::default()
    };
    let _ = dxlane::shader_test::run_file(&test, &cfg);
}

/// Writes the files [`BATCH_SEED`] names into `dir` (a case list names files that exist).
pub fn prepare_batch_dir(dir: &Path) -> std::io::Result<()> {
    std::fs::create_dir_all(dir.join("cap"))?;
    for name in ["job.toml", "f.shader_test"] {
        if !dir.join(name).exists() {
            std::fs::write(dir.join(name), "")?;
        }
    }
    Ok(())
}

/// A batch case list and baseline list made of the fuzzer's bytes, read from a file in
/// `dir` (the cases it names need not exist). Never panics.
pub fn batch_lists(dir: &Path, data: &[u8]) {
    let list = dir.join("cases.txt");
    if prepare_batch_dir(dir).is_err() || std::fs::write(&list, data).is_err() {
        return;
    }
    let mut cases = Vec::new();
    let _ = dxlane::batch::case::read_list(&list, &mut cases);
    if let Ok(b) = dxlane::batch::Baseline::load(Some(&list), Some(&list), None) {
        for case in &cases {
            let _ = b.expects_failure(&case.name, dxlane::batch::Status::Fail);
            let _ = b.flaky(&case.name);
        }
    }
}

// ------------------------------------------------------------------ interpreter

/// Seeds for [`interpreter`], compute programs in the IR's text form: memory through
/// structured buffers, and the lowered vkd3d-compiled programs of the IR snapshots —
/// loops and branches (Mandelbrot, control flow), atomics and group-shared memory,
/// indexable temporaries, SM 5.1 descriptor ranges.
pub const INTERPRETER_SEEDS: &[&str] = &[
    include_str!("../tests/jobs/double.ir"),
    include_str!("../tests/snapshots/ir/shaders/mandelbrot.cs_5_0.dxbc.ir"),
    include_str!("../tests/snapshots/ir/shaders/control_flow_cs.cs_5_0.dxbc.ir"),
    include_str!("../tests/snapshots/ir/shaders/atomics.cs_5_0.dxbc.ir"),
    include_str!("../tests/snapshots/ir/shaders/indexable.cs_5_0.dxbc.ir"),
    include_str!("../tests/snapshots/ir/shaders/resources_sm51.cs_5_1.dxbc.ir"),
];

/// A program in the IR's text form made of the fuzzer's bytes: parsed, validated and, if
/// it is a compute program, dispatched by the interpreter on its own — every declared
/// range bound (small buffers and textures, null views, samplers), a few groups, a wave
/// size the bytes choose, small budgets. The interpreter must return an error or finish:
/// a validated program never panics it, whatever its registers, operands and control
/// flow. Never panics.
pub fn interpreter(data: &[u8]) {
    use dxlane::exec::Limits;
    use dxlane::ir::{ResourceKind, Stage, parse_shader, validate};
    use dxlane::pipeline::{Bindings, Plan, dispatch};
    use dxlane::resources::{
        BufferKind, BufferView, Descriptor, Format, Memory, SamplerDesc, Texture, TextureDesc,
        TextureView, ViewClass,
    };

    // The first byte chooses the wave size and the groups; the rest is the program.
    let Some((&knobs, text)) = data.split_first() else {
        return;
    };
    let text = String::from_utf8_lossy(text);
    let Ok(shader) = parse_shader(&text) else {
        return;
    };
    if validate(&shader).is_err() || shader.stage != Stage::Compute {
        return;
    }
    let bytes: Vec<u8> = (0..256u32).map(|i| (i * 37 + 11) as u8).collect();
    let memory = || Memory::from_bytes(&bytes).expect("256 bytes");
    let descriptor = |kind: ResourceKind| -> Descriptor {
        match kind {
            ResourceKind::RawBuffer => Descriptor::Buffer {
                view: BufferView::whole(memory(), BufferKind::Raw),
                counter: None,
            },
            ResourceKind::StructuredBuffer { stride } if stride > 0 && stride <= 256 => {
                Descriptor::Buffer {
                    view: BufferView::whole(memory(), BufferKind::Structured { stride }),
                    counter: None,
                }
            }
            ResourceKind::TypedBuffer => Descriptor::Buffer {
                view: BufferView::whole(
                    memory(),
                    BufferKind::Typed {
                        format: Format::R32_UINT,
                    },
                ),
                counter: None,
            },
            ResourceKind::Texture2D => {
                match Texture::from_bytes(TextureDesc::tex2d(Format::R32_FLOAT, 8, 8), &bytes) {
                    Ok(t) => Descriptor::Texture(TextureView::whole(t)),
                    Err(_) => Descriptor::Null(ViewClass::Texture),
                }
            }
            ResourceKind::ConstantBuffer { .. } => Descriptor::ConstantBuffer {
                memory: memory(),
                offset: 0,
                size: 256,
            },
            ResourceKind::Sampler { .. } => Descriptor::Sampler(SamplerDesc::default()),
            ResourceKind::StructuredBuffer { .. } => Descriptor::Null(ViewClass::Buffer),
            // A null structure: ray queries through it run and miss.
            ResourceKind::AccelerationStructure => {
                Descriptor::Null(ViewClass::AccelerationStructure)
            }
            _ => Descriptor::Null(ViewClass::Texture),
        }
    };
    let bindings = Bindings {
        ranges: shader
            .resources
            .iter()
            .map(|r| (0..r.count.min(4)).map(|_| descriptor(r.kind)).collect())
            .collect(),
        ..Bindings::default()
    };
    let opts = Plan {
        wave_size: Some([4u32, 8, 16, 32, 64, 128][usize::from(knobs & 7) % 6]),
        threads: 1,
        limits: Limits {
            max_lane_instructions: 1 << 14,
            max_memory_bytes: 16 << 20,
            max_total_lane_instructions: 1 << 20,
            max_wall_time: Some(std::time::Duration::from_millis(500)),
        },
        ..dxlane::pipeline::Plan::default()
    };
    let groups = [1 + u32::from(knobs >> 6), 1, 1];
    let _ = dispatch(&shader, &bindings, groups, &opts, None);
}

// ------------------------------------------------------------------ draw state

/// A vertex program for [`draw_state`]: POSITION (xyzw) and COLOR through.
pub const DRAW_STATE_VS: &str = r#"shader vertex
regs 8
io_words in 8 out 8
input "POSITION" 0 sv none reg 0 rows 1 mask xyzw float interp undefined slot 0
input "COLOR" 0 sv none reg 1 rows 1 mask xyzw float interp undefined slot 4
output "SV_Position" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0
output "COLOR" 0 sv none reg 1 rows 1 mask xyzw float interp undefined slot 4
block0:
    input r0, 0
    input r1, 1
    input r2, 2
    input r3, 3
    output 0, r0
    output 1, r1
    output 2, r2
    output 3, r3
    input r4, 4
    input r5, 5
    input r6, 6
    input r7, 7
    output 4, r4
    output 5, r5
    output 6, r6
    output 7, r7
    return
"#;

/// Reads the fuzzer's bytes as the draw's state, a byte or a word at a time; zeros once
/// they run out.
struct Bytes<'d>(&'d [u8]);

impl Bytes<'_> {
    fn u8(&mut self) -> u8 {
        match self.0.split_first() {
            Some((&b, rest)) => {
                self.0 = rest;
                b
            }
            None => 0,
        }
    }
    fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }
    fn f32(&mut self) -> f32 {
        f32::from_bits(self.u32())
    }
    /// A float that is usually in a useful range, sometimes any bits (NaN, ∞, huge).
    fn coord(&mut self) -> f32 {
        match self.u8() % 8 {
            0 => self.f32(),
            k => f32::from(self.u8() as i8) / 16.0 * f32::from(k),
        }
    }
    fn pick<T: Copy>(&mut self, from: &[T]) -> T {
        from[usize::from(self.u8()) % from.len()]
    }
    fn chance(&mut self) -> bool {
        self.u8() & 1 == 1
    }
}

/// A draw made of the fuzzer's bytes, run by `pipeline::draw` directly (not through a
/// job file, so every field can take any value the API allows): every topology with
/// adjacency, indexed or not with strip cuts and indices past the buffer, short and
/// misaligned vertex buffers, any viewport (NaN, ∞, negative or zero sizes, depth range
/// inverted), any scissor, every cull and fill mode, depth bias of any float, every
/// blend, logic op, depth and stencil function and operation, sample masks, alpha to
/// coverage, 1, 2 and 4 samples, one or two targets of several formats, with or without
/// a depth-stencil view. Small targets and budgets keep each case short. Whether the
/// draw ran without an error. Never panics.
pub fn draw_state(data: &[u8]) -> bool {
    use dxlane::exec::Limits;
    use dxlane::ir::parse_shader;
    use dxlane::pipeline::{
        Bindings, Blend, BlendOp, CullMode, DepthStencilOpDesc, DepthStencilView, DrawArgs,
        DrawOptions, DrawState, FillMode, IndexBufferView, IndexFormat, InputElementDesc,
        InputLayout, LogicOp, PrimitiveTopology, Rect, RenderTargetView, StencilOp, StripCutValue,
        VertexBufferView, Viewport, draw,
    };
    use dxlane::resources::{ComparisonFunc, Format, Memory, Texture, TextureDesc, TextureDim};
    use std::sync::OnceLock;

    static PROGRAMS: OnceLock<(dxlane::ir::Shader, dxlane::ir::Shader)> = OnceLock::new();
    let (vs, ps) = PROGRAMS.get_or_init(|| {
        (
            parse_shader(DRAW_STATE_VS).expect("the fuzz vertex program"),
            parse_shader(include_str!("../shaders/draw_color.ps.ir"))
                .expect("the fuzz pixel program"),
        )
    });
    let none = Bindings::default();
    let mut b = Bytes(data);
    // A draw state whose fields fail to build reports `false` as a refused draw does.
    let mut s = DrawState::new(vs, Some(ps), &none, &none);

    use PrimitiveTopology as T;
    s.topology = b.pick(&[
        T::PointList,
        T::LineList,
        T::LineStrip,
        T::TriangleList,
        T::TriangleStrip,
        T::LineListAdj,
        T::LineStripAdj,
        T::TriangleListAdj,
        T::TriangleStripAdj,
    ]);
    // Layout: usually the natural one; sometimes offsets and formats off.
    let (pos_format, color_format) = if b.u8() % 8 == 0 {
        (
            b.pick(Format::ALL),
            b.pick(&[
                Format::R8G8B8A8_UNORM,
                Format::R32_UINT,
                Format::R16G16_FLOAT,
            ]),
        )
    } else {
        (Format::R32G32B32A32_FLOAT, Format::R32G32B32A32_FLOAT)
    };
    let color_offset = if b.u8() % 8 == 0 { b.u32() % 64 } else { 16 };
    s.input_layout = InputLayout {
        elements: vec![
            InputElementDesc {
                semantic: "POSITION".into(),
                semantic_index: 0,
                format: pos_format,
                input_slot: 0,
                aligned_byte_offset: 0,
                instance_data_step_rate: 0,
            },
            InputElementDesc {
                semantic: "COLOR".into(),
                semantic_index: 0,
                format: color_format,
                input_slot: u32::from(b.u8() % 16 == 0),
                aligned_byte_offset: color_offset,
                instance_data_step_rate: u32::from(b.u8() % 4),
            },
        ],
    };
    let vertices = usize::from(b.u8() % 13);
    let stride = if b.u8() % 8 == 0 { b.u32() % 48 } else { 32 };
    let mut vb = Vec::new();
    for _ in 0..vertices {
        for k in 0..8 {
            let v = if k == 3 && b.u8() % 4 != 0 {
                1.0
            } else {
                b.coord()
            };
            vb.extend_from_slice(&v.to_le_bytes());
        }
    }
    if b.u8() % 8 == 0 {
        // A buffer cut short, mid-vertex.
        vb.truncate(usize::from(b.u8()) % (vb.len() + 1));
    }
    // A view from any offset, of any size or to the buffer's end (past it included).
    let (offset, size) = if b.u8() % 4 == 0 {
        let size = b.chance().then(|| u64::from(b.u8()));
        (u64::from(b.u8() % 40), size)
    } else {
        (0, None)
    };
    s.vertex_buffers = vec![Memory::from_bytes(&vb).ok().map(|data| VertexBufferView {
        data,
        stride,
        offset,
        size,
    })];
    let indexed = b.chance();
    if indexed {
        let format = b.pick(&[IndexFormat::U16, IndexFormat::U32]);
        let n = usize::from(b.u8() % 16);
        let mut ib = Vec::new();
        for _ in 0..n {
            let i = match b.u8() % 8 {
                0 => u32::MAX,
                1 => b.u32(),
                _ => u32::from(b.u8()) % (vertices as u32 + 2),
            };
            match format {
                IndexFormat::U16 => ib.extend_from_slice(&(i as u16).to_le_bytes()),
                IndexFormat::U32 => ib.extend_from_slice(&i.to_le_bytes()),
            }
        }
        s.index_buffer = Memory::from_bytes(&ib).ok().map(|data| IndexBufferView {
            data,
            format,
            offset: 0,
            size: None,
        });
        s.strip_cut = b.pick(&[StripCutValue::Disabled, StripCutValue::Enabled]);
    }

    // Mostly solid: wireframe is refused for now, and solid fill reaches the rasterizer.
    s.rasterizer.fill_mode = b.pick(&[
        FillMode::Solid,
        FillMode::Solid,
        FillMode::Solid,
        FillMode::Wireframe,
    ]);
    s.rasterizer.cull_mode = b.pick(&[CullMode::None, CullMode::Front, CullMode::Back]);
    s.rasterizer.front_counter_clockwise = b.chance();
    s.rasterizer.depth_bias = if b.chance() { b.u32() as i32 } else { 0 };
    s.rasterizer.depth_bias_clamp = if b.chance() { b.f32() } else { 0.0 };
    s.rasterizer.slope_scaled_depth_bias = if b.chance() { b.f32() } else { 0.0 };
    s.rasterizer.depth_clip_enable = b.chance();
    s.rasterizer.multisample_enable = b.chance();
    s.rasterizer.antialiased_line_enable = b.chance();
    s.rasterizer.forced_sample_count = if b.u8() % 16 == 0 {
        u32::from(b.u8() % 17)
    } else {
        0
    };

    const BLENDS: &[Blend] = &[
        Blend::Zero,
        Blend::One,
        Blend::SrcColor,
        Blend::InvSrcColor,
        Blend::SrcAlpha,
        Blend::InvSrcAlpha,
        Blend::DestAlpha,
        Blend::InvDestAlpha,
        Blend::DestColor,
        Blend::InvDestColor,
        Blend::SrcAlphaSat,
        Blend::BlendFactor,
        Blend::InvBlendFactor,
        Blend::Src1Color,
        Blend::InvSrc1Color,
        Blend::Src1Alpha,
        Blend::InvSrc1Alpha,
        Blend::AlphaFactor,
        Blend::InvAlphaFactor,
    ];
    const OPS: &[BlendOp] = &[
        BlendOp::Add,
        BlendOp::Subtract,
        BlendOp::RevSubtract,
        BlendOp::Min,
        BlendOp::Max,
    ];
    const LOGIC: &[LogicOp] = &[
        LogicOp::Clear,
        LogicOp::Set,
        LogicOp::Copy,
        LogicOp::CopyInverted,
        LogicOp::Noop,
        LogicOp::Invert,
        LogicOp::And,
        LogicOp::Nand,
        LogicOp::Or,
        LogicOp::Nor,
        LogicOp::Xor,
        LogicOp::Equiv,
        LogicOp::AndReverse,
        LogicOp::AndInverted,
        LogicOp::OrReverse,
        LogicOp::OrInverted,
    ];
    const FUNCS: &[ComparisonFunc] = &[
        ComparisonFunc::Never,
        ComparisonFunc::Less,
        ComparisonFunc::Equal,
        ComparisonFunc::LessEqual,
        ComparisonFunc::Greater,
        ComparisonFunc::NotEqual,
        ComparisonFunc::GreaterEqual,
        ComparisonFunc::Always,
    ];
    const STENCIL: &[StencilOp] = &[
        StencilOp::Keep,
        StencilOp::Zero,
        StencilOp::Replace,
        StencilOp::IncrSat,
        StencilOp::DecrSat,
        StencilOp::Invert,
        StencilOp::Incr,
        StencilOp::Decr,
    ];
    s.blend.alpha_to_coverage_enable = b.u8() % 4 == 0;
    s.blend.independent_blend_enable = b.chance();
    for t in s.blend.render_target.iter_mut().take(2) {
        t.blend_enable = b.chance();
        t.logic_op_enable = b.u8() % 8 == 0;
        t.src_blend = b.pick(BLENDS);
        t.dest_blend = b.pick(BLENDS);
        t.blend_op = b.pick(OPS);
        t.src_blend_alpha = b.pick(BLENDS);
        t.dest_blend_alpha = b.pick(BLENDS);
        t.blend_op_alpha = b.pick(OPS);
        t.logic_op = b.pick(LOGIC);
        t.render_target_write_mask = b.u8() & 0xf;
    }
    s.depth_stencil.depth_enable = b.chance();
    s.depth_stencil.depth_write = b.chance();
    s.depth_stencil.depth_func = b.pick(FUNCS);
    s.depth_stencil.stencil_enable = b.chance();
    s.depth_stencil.stencil_read_mask = b.u8();
    s.depth_stencil.stencil_write_mask = b.u8();
    for face in [
        &mut s.depth_stencil.front_face,
        &mut s.depth_stencil.back_face,
    ] {
        *face = DepthStencilOpDesc {
            stencil_fail_op: b.pick(STENCIL),
            stencil_depth_fail_op: b.pick(STENCIL),
            stencil_pass_op: b.pick(STENCIL),
            stencil_func: b.pick(FUNCS),
        };
    }

    let (w, h) = (1 + u32::from(b.u8() % 24), 1 + u32::from(b.u8() % 24));
    if b.u8() % 4 == 0 {
        // One viewport mostly, sometimes several, now and then past D3D12's 16.
        let n = match b.u8() % 8 {
            0 => 17,
            1 | 2 => 2,
            _ => 1,
        };
        for _ in 0..n {
            s.viewports.push(Viewport {
                top_left_x: b.coord(),
                top_left_y: b.coord(),
                width: b.coord(),
                height: b.coord(),
                min_depth: b.coord(),
                max_depth: b.coord(),
            });
        }
    }
    if b.chance() {
        let n = 1 + usize::from(b.u8() % 2);
        for _ in 0..n {
            let mut c = || i32::from(b.u8() as i8);
            s.scissors.push(Rect {
                left: c(),
                top: c(),
                right: c(),
                bottom: c(),
            });
        }
    }
    s.sample_mask = if b.chance() { b.u32() } else { u32::MAX };
    s.blend_factor = [b.coord(), b.coord(), b.coord(), b.coord()];
    s.stencil_ref = b.u8();

    let samples = b.pick(&[1u32, 1, 2, 4]);
    let target = |format: Format| {
        let mut desc = TextureDesc::tex2d(format, w, h);
        if samples > 1 {
            desc.dim = TextureDim::Tex2DMS;
            desc.samples = samples;
        }
        Texture::new(desc).ok()
    };
    let targets = 1 + usize::from(b.u8() % 2);
    s.render_targets = (0..targets)
        .map(|_| {
            let f = b.pick(&[
                Format::R8G8B8A8_UNORM,
                Format::R8G8B8A8_UNORM_SRGB,
                Format::R16G16B16A16_FLOAT,
                Format::R32G32B32A32_FLOAT,
                Format::R32_UINT,
                Format::R10G10B10A2_UNORM,
                Format::B5G6R5_UNORM,
            ]);
            target(f).map(|texture| RenderTargetView { texture })
        })
        .collect();
    if b.chance() {
        let f = b.pick(&[
            Format::D32_FLOAT,
            Format::D24_UNORM_S8_UINT,
            Format::D16_UNORM,
            Format::D32_FLOAT_S8X24_UINT,
        ]);
        // A depth view of another sample count is an error the draw must report.
        s.depth_stencil_view = target(f).map(|texture| DepthStencilView { texture });
    }

    let args = DrawArgs {
        vertex_count: if indexed {
            u32::from(b.u8() % 20)
        } else {
            u32::from(b.u8() % 16)
        },
        instance_count: u32::from(b.u8() % 3),
        start_vertex: if b.u8() % 8 == 0 { b.u32() } else { 0 },
        base_vertex: if b.u8() % 8 == 0 { b.u32() as i32 } else { 0 },
        start_instance: if b.u8() % 8 == 0 { b.u32() } else { 0 },
    };
    let opts = DrawOptions {
        plan: dxlane::pipeline::Plan {
            threads: 1,
            limits: Limits {
                max_lane_instructions: 1 << 12,
                max_memory_bytes: 16 << 20,
                max_total_lane_instructions: 1 << 20,
                max_wall_time: Some(std::time::Duration::from_millis(500)),
            },
            ..dxlane::pipeline::Plan::default()
        },
        ..DrawOptions::default()
    };
    draw(&s, &args, &opts).is_ok()
}

// ------------------------------------------------------------------ debug adapter

/// The program every [`dap_stream`] launch opens: a compute program in the IR's text
/// form, four lanes, a few steps.
pub const DAP_PROGRAM: &str = "shader compute
group [4 1 1]
const r0 = 1
const r1 = 3
block0:
    sysval thread_id, 0, r2
    iadd r3, r2, r0
    imul r3, r3, r1
    iadd r3, r3, r2
    return
";

/// The requests of a whole session over [`DAP_PROGRAM`], in order: the seeds of
/// [`dap_stream`] (framed by [`dap_frame`]).
pub const DAP_REQUESTS: &[&str] = &[
    r#"{"seq":1,"type":"request","command":"initialize","arguments":{"adapterID":"x"}}"#,
    r#"{"seq":2,"type":"request","command":"launch","arguments":{"job":"j.toml","thread":"2,0,0"}}"#,
    r#"{"seq":3,"type":"request","command":"setBreakpoints","arguments":{"source":{"sourceReference":1},"breakpoints":[{"line":6,"condition":"r3 > 1","hitCondition":">= 1"}]}}"#,
    r#"{"seq":4,"type":"request","command":"configurationDone"}"#,
    r#"{"seq":5,"type":"request","command":"continue","arguments":{"threadId":3}}"#,
    r#"{"seq":6,"type":"request","command":"stackTrace","arguments":{"threadId":2}}"#,
    r#"{"seq":7,"type":"request","command":"scopes","arguments":{"frameId":3}}"#,
    r#"{"seq":8,"type":"request","command":"variables","arguments":{"variablesReference":17}}"#,
    r#"{"seq":9,"type":"request","command":"stepBack","arguments":{"threadId":3}}"#,
    r#"{"seq":10,"type":"request","command":"evaluate","arguments":{"expression":"why r3 2","context":"repl"}}"#,
    r#"{"seq":11,"type":"request","command":"setDataBreakpoints","arguments":{"breakpoints":[{"dataId":"r3","hitCondition":"% 2"}]}}"#,
    r#"{"seq":12,"type":"request","command":"reverseContinue","arguments":{"threadId":1}}"#,
    r#"{"seq":13,"type":"request","command":"source","arguments":{"sourceReference":1}}"#,
    r#"{"seq":14,"type":"request","command":"disconnect"}"#,
];

/// Message bodies framed as the Debug Adapter Protocol frames them.
pub fn dap_frame<B: AsRef<[u8]>>(bodies: &[B]) -> Vec<u8> {
    let mut out = Vec::new();
    for b in bodies {
        let b = b.as_ref();
        out.extend(format!("Content-Length: {}\r\n\r\n", b.len()).into_bytes());
        out.extend_from_slice(b);
    }
    out
}

/// The fuzzer's bytes as the input stream of a Debug Adapter Protocol session
/// (`dxlane debug --dap`): framed or not, any requests in any order. A `launch` opens a
/// session on [`DAP_PROGRAM`] (its `thread` argument picks the lane); the responses go
/// nowhere. The server must answer or refuse each message and return. Never panics.
pub fn dap_stream(data: &[u8]) {
    use dxlane::debug::{DebugOptions, Debugger, LaneSelect, Program, Target, dap};
    use dxlane::pipeline::{Bindings, Plan};

    let launch = Box::new(|a: &dap::LaunchArgs| {
        let shader = dxlane::ir::parse_shader(DAP_PROGRAM).map_err(|e| e.to_string())?;
        let target = Target::new(
            Program::from_ir(shader),
            Bindings::default(),
            [1, 1, 1],
            Plan {
                threads: 1,
                ..Plan::default()
            },
        )
        .map_err(|e| e.to_string())?;
        let xyz = dxlane::debug::session_parse_xyz(a.thread.as_deref().unwrap_or("0,0,0"))
            .map_err(|e| e.to_string())?;
        Debugger::open(target, LaneSelect::Thread(xyz), DebugOptions::default())
            .map_err(|e| e.to_string())
    });
    let mut input = std::io::Cursor::new(data);
    let _ = dap::serve(&mut input, std::io::sink(), launch);
}
