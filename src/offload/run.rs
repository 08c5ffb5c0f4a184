//! Running a pipeline description: the descriptor sets become a dxlane job (one
//! `[[resource]]` per bound buffer, texture or sampler at its register), the job runs
//! through the `job` module, every bound buffer is read back into the pipeline, and the
//! `Results` rules are checked as the suite's `Check.cpp` checks them.
//!
//! Rules, with their source in `llvm/offload-test-suite`:
//!
//! - The programs are the files given, in `Shaders` order; a count that differs is an
//!   error (`offloader.cpp`).
//! - A compute pipeline has exactly one `Compute` program; its groups are
//!   `DispatchParameters: DispatchGroupCount`, else the program's or the file's
//!   `DispatchSize`, else `[1, 1, 1]` (`Pipeline.h`: the default).
//! - A raster pipeline has one `Vertex` program, optionally `Hull` and `Domain` programs
//!   (together) and a `Geometry` program, and one `Pixel` program; a mesh pipeline one
//!   `Mesh` program, optionally an `Amplification` and a `Pixel` program. Its draw is
//!   set up as the suite's Direct3D 12 device sets it up (see `draw`), and its render
//!   target (resolved first when multisampled) is read back into the buffer
//!   `Bindings: RenderTarget` names. A ray tracing pipeline (ray generation, miss,
//!   hit and callable programs, at least one ray generation program, nothing else) runs
//!   one `DispatchRays` of `DispatchGroupCount` rays (see `rays`).
//! - A resource array (`ArraySize` n) binds its n buffers at n consecutive registers, as
//!   HLSL lays out `RWBuffer<T> B[n] : register(u0)`.
//! - A resource gives exactly one of `DirectXBinding` and `HeapIndex` (`Pipeline.cpp`);
//!   `HeapIndex: i` puts it in slot `i` of the SM 6.6 resource (or sampler) descriptor
//!   heap, an array in n slots from `i`, the slots no resource takes null descriptors.
//! - Root constants and root descriptors are bound at the registers of the program's
//!   root signature (see `root`).
//! - Typed views take their DXGI format from `Format` and `Channels` (32-bit integers and
//!   floats, 16-bit ones, and 64-bit elements as pairs of 32-bit words); structured
//!   views their stride from `Stride` (else channels × element size).
//! - `BufferExact` compares the bytes; `BufferFloatULP` and `BufferFloatEpsilon` compare
//!   element by element with `Check.cpp`'s rules: equal values pass, NaN matches only
//!   NaN, under `DenormMode: Any` a sign-preserving zero matches an expected denormal,
//!   ULP distance is the difference of the bit patterns (16-bit: in the monotonic order,
//!   ±0 equal), epsilon is `|actual − expected| < ε`. Buffers of different sizes differ.

use std::path::{Path, PathBuf};

use toml::{Table, Value};

use super::OffloadError;
use super::pipeline::{self, Buffer, DataFormat, Pipeline, Resource, ResultRule};
use super::yaml_out::{Writer, elements};
use crate::exec::jit::Engine;
use crate::job::{self, Job, Register, ResourceAt, RunOptions};
use crate::pipeline::Hooks;

/// How to run.
#[derive(Debug, Clone, Default)]
pub struct OffloadOptions {
    /// Worker threads (`None`: all cores).
    pub threads: Option<usize>,
    /// The WARP profile (`None`: the newest).
    pub profile: Option<String>,
    /// The engine.
    pub engine: Engine,
    /// Stop the run after this many seconds (`None`: no limit but the job's budgets).
    pub max_seconds: Option<f64>,
}

/// A finished run.
#[derive(Debug, Clone)]
pub struct Outcome {
    /// The pipeline with the buffers read back, printed as `offloader` prints it.
    pub yaml: String,
    /// One message per failed result rule (`Test failed: NAME` with both buffers).
    pub failures: Vec<String>,
    /// Every buffer after the run: name, format, channels, dimensions, bytes.
    pub buffers: Vec<ReadBack>,
}

/// One buffer after the run.
#[derive(Debug, Clone)]
pub struct ReadBack {
    /// Its name.
    pub name: String,
    /// Its element format.
    pub format: DataFormat,
    /// Elements per entry.
    pub channels: u32,
    /// Width and height, when the file gives `OutputProps`.
    pub size: Option<(u32, u32)>,
    /// The first (or only) block's bytes.
    pub bytes: Vec<u8>,
}

/// A buffer of the pipeline with its contents (one block per array element).
pub(super) struct Held {
    /// The buffer as the file gives it.
    pub buffer: Buffer,
    /// Its contents, one block per array element.
    pub blocks: Vec<Vec<u8>>,
    /// Its counters after the run, one per array element that has one.
    pub counters: Vec<u32>,
}

/// Runs the pipeline in `text` (read from `path`) with the program files `shaders`.
pub fn run(
    path: &Path,
    text: &str,
    shaders: &[PathBuf],
    opts: &OffloadOptions,
) -> Result<Outcome, OffloadError> {
    let at = |line: usize, message: String| OffloadError {
        file: path.to_path_buf(),
        line,
        message,
    };
    let p = pipeline::parse(text).map_err(|(line, m)| at(line, m))?;
    if shaders.len() != p.shaders.len() {
        return Err(at(
            0,
            format!(
                "the pipeline description expects {} shader(s), {} provided",
                p.shaders.len(),
                shaders.len()
            ),
        ));
    }
    let mut held: Vec<Held> = Vec::with_capacity(p.buffers.len());
    let mut total = 0u64;
    for b in &p.buffers {
        let line = pipeline::line_of_name(text, &b.name);
        if held.iter().any(|h| h.buffer.name == b.name) {
            return Err(at(line, format!("`Buffers`: `{}` is named twice", b.name)));
        }
        let blocks = b
            .bytes()
            .map_err(|m| at(line, format!("buffer `{}`: {m}", b.name)))?;
        total = total.saturating_add(blocks.iter().map(|b| b.len() as u64).sum());
        if total > pipeline::MAX_PIPELINE_BYTES {
            return Err(at(
                line,
                format!(
                    "buffer `{}`: the buffers hold more than {} bytes together",
                    b.name,
                    pipeline::MAX_PIPELINE_BYTES
                ),
            ));
        }
        held.push(Held {
            buffer: b.clone(),
            blocks,
            counters: Vec::new(),
        });
    }
    check_results(&p, &held, text).map_err(|(l, m)| at(l, m))?;
    let kind = stages(&p).map_err(|m| at(0, m))?;
    let program_path = |i: usize| -> Result<Value, OffloadError> {
        let s = shaders[i]
            .canonicalize()
            .map_err(|e| at(0, format!("{}: {e}", shaders[i].display())))?;
        Ok(Value::String(s.to_string_lossy().into_owned()))
    };
    let mut table = Table::new();
    let mut prog = Table::new();
    // The render target's buffer, for a raster pipeline.
    let mut target = None;
    // The shader table's buffer, for a ray tracing pipeline.
    let mut shader_table = None;
    match kind {
        Stages::Compute(program) => {
            let groups = p
                .dispatch_parameters
                .as_ref()
                .and_then(|d| d.dispatch_group_count)
                .or(p.shaders[program].dispatch_size)
                .or(p.dispatch_size)
                .unwrap_or([1, 1, 1]);
            if let Some(vc) = p.dispatch_parameters.as_ref().and_then(|d| d.vertex_count) {
                return Err(at(
                    0,
                    format!(
                        "`DispatchParameters: VertexCount` {vc} is for a raster pipeline; this one is compute"
                    ),
                ));
            }
            prog.insert("cs".into(), program_path(program)?);
            let mut dispatch = Table::new();
            dispatch.insert(
                "groups".into(),
                Value::Array(groups.iter().map(|&g| Value::Integer(g.into())).collect()),
            );
            table.insert("dispatch".into(), Value::Table(dispatch));
        }
        Stages::Raster { vs, hs, ds, gs, ps } => {
            if let Some(g) = p
                .dispatch_parameters
                .as_ref()
                .and_then(|d| d.dispatch_group_count)
            {
                return Err(at(
                    0,
                    format!(
                        "`DispatchParameters: DispatchGroupCount` {g:?} is for compute and mesh pipelines; this one draws vertices"
                    ),
                ));
            }
            prog.insert("vs".into(), program_path(vs)?);
            for (key, i) in [("hs", hs), ("ds", ds), ("gs", gs)] {
                if let Some(i) = i {
                    prog.insert(key.into(), program_path(i)?);
                }
            }
            prog.insert("ps".into(), program_path(ps)?);
            let kind = super::draw::RasterKind::Vertices {
                tessellated: hs.is_some(),
            };
            let d = super::draw::draw_table(&p, &held, text, kind).map_err(|(l, m)| at(l, m))?;
            table.insert("draw".into(), Value::Table(d.table));
            target = Some((d.target, d.samples));
        }
        Stages::Mesh {
            amplification,
            ms,
            ps,
        } => {
            // `validateDispatchParameters`: a mesh pipeline takes thread groups, not vertices.
            if let Some(vc) = p.dispatch_parameters.as_ref().and_then(|d| d.vertex_count) {
                return Err(at(
                    super::draw::line_of_key(text, "VertexCount"),
                    format!(
                        "`DispatchParameters: VertexCount` {vc} is for a Vertex pipeline; a mesh pipeline takes `DispatchGroupCount`"
                    ),
                ));
            }
            let groups = p
                .dispatch_parameters
                .as_ref()
                .and_then(|d| d.dispatch_group_count)
                .unwrap_or([1, 1, 1]);
            if let Some(i) = amplification {
                prog.insert("as".into(), program_path(i)?);
            }
            prog.insert("ms".into(), program_path(ms)?);
            if let Some(i) = ps {
                prog.insert("ps".into(), program_path(i)?);
            }
            let kind = super::draw::RasterKind::Mesh(groups);
            let d = super::draw::draw_table(&p, &held, text, kind).map_err(|(l, m)| at(l, m))?;
            table.insert("draw".into(), Value::Table(d.table));
            target = Some((d.target, d.samples));
        }
        Stages::Rays => {
            // `validateDispatchParameters`: `DispatchGroupCount` is the launch's width,
            // height and depth; a vertex count means nothing to `DispatchRays`.
            if let Some(vc) = p.dispatch_parameters.as_ref().and_then(|d| d.vertex_count) {
                return Err(at(
                    super::draw::line_of_key(text, "VertexCount"),
                    format!(
                        "`DispatchParameters: VertexCount` {vc} is for a Vertex pipeline; a ray tracing pipeline takes `DispatchGroupCount` (width, height, depth)"
                    ),
                ));
            }
            let mut files = Vec::with_capacity(shaders.len());
            for i in 0..shaders.len() {
                if let Value::String(f) = program_path(i)? {
                    files.push(f);
                }
            }
            let (program, rays, sbt) =
                super::rays::ray_pipeline(&p, &files, text).map_err(|(l, m)| at(l, m))?;
            prog = program;
            table.insert("rays".into(), Value::Table(rays));
            shader_table = Some(sbt);
        }
    }
    let (structures, tops) =
        super::rays::acceleration_structures(&p, &held, text).map_err(|(l, m)| at(l, m))?;
    if !structures.is_empty() {
        table.insert("acceleration_structure".into(), Value::Array(structures));
    }
    table.insert("program".into(), Value::Table(prog));
    // (buffer index, array element, register) of every bound buffer, to read back.
    let mut bound: Vec<(usize, usize, Register)> = Vec::new();
    let mut resources = Vec::new();
    // `HeapIndex` resources by slot: the SM 6.6 descriptor heaps.
    let mut heap: Vec<Option<Table>> = Vec::new();
    let mut sampler_heap: Vec<Option<Table>> = Vec::new();
    // (buffer index, array element, heap slot) of every buffer in the heap.
    let mut heap_bound: Vec<(usize, usize, u32)> = Vec::new();
    // Registers of acceleration structures (nothing to read back).
    let mut as_regs: Vec<Register> = Vec::new();
    for (si, set) in p.descriptor_sets.iter().enumerate() {
        for r in &set.resources {
            let line = pipeline::line_of_name(text, &r.name);
            let err = |m: String| at(line, format!("`DescriptorSets[{si}]`: `{}`: {m}", r.name));
            // `Pipeline.cpp`: a resource is reached by a descriptor table binding or by
            // its descriptor heap index, never both.
            let heap_index = match (r.direct_x_binding, r.heap_index) {
                (Some(_), Some(_)) | (None, None) => {
                    return Err(err(
                        "give exactly one of `DirectXBinding` and `HeapIndex`".into()
                    ));
                }
                (None, Some(i)) => Some(i),
                (Some(_), None) => None,
            };
            let binding = r.direct_x_binding.unwrap_or(pipeline::DirectXBinding {
                register: 0,
                space: 0,
            });
            if r.kind == "AccelerationStructure" {
                // `Pipeline.cpp`: the resource's `Name` is a TLAS's; it is an SRV.
                if heap_index.is_some() {
                    return Err(err(
                        "`HeapIndex` on an acceleration structure: dxlane binds one by `DirectXBinding`".into(),
                    ));
                }
                if !tops.contains(&r.name) {
                    return Err(err(
                        "no TLAS of that name in `AccelerationStructures`".into()
                    ));
                }
                let reg = Register {
                    class: crate::ir::ResourceClass::Srv,
                    index: binding.register,
                    space: binding.space,
                };
                if bound.iter().any(|&(_, _, b)| b == reg) || as_regs.contains(&reg) {
                    return Err(err(format!("{reg} is bound twice")));
                }
                as_regs.push(reg);
                let mut e = Table::new();
                e.insert("reg".into(), Value::String(format!("t{}", reg.index)));
                if reg.space != 0 {
                    e.insert("space".into(), Value::Integer(reg.space.into()));
                }
                e.insert(
                    "kind".into(),
                    Value::String("acceleration_structure".into()),
                );
                e.insert(
                    "acceleration_structure".into(),
                    Value::String(r.name.clone()),
                );
                resources.push(Value::Table(e));
                continue;
            }
            if r.tiles_mapped.is_some() || r.is_reserved == Some(true) {
                return Err(err(
                    "tiled (reserved) resources: dxlane has no tiled resources".into(),
                ));
            }
            let kind = ResourceKind::parse(&r.kind).map_err(&err)?;
            if kind == ResourceKind::Sampler {
                let s = p
                    .samplers
                    .iter()
                    .find(|s| s.name == r.name)
                    .ok_or_else(|| err("no sampler of that name in `Samplers`".into()))?;
                let mut entry = sampler_entry(s, binding).map_err(&err)?;
                if let Some(i) = heap_index {
                    entry.remove("reg");
                    entry.remove("space");
                    place(&mut sampler_heap, i, MAX_SAMPLER_HEAP_INDEX, entry).map_err(&err)?;
                } else {
                    resources.push(Value::Table(entry));
                }
                continue;
            }
            let bi = held
                .iter()
                .position(|h| h.buffer.name == r.name)
                .ok_or_else(|| err("no buffer of that name in `Buffers`".into()))?;
            let h = &held[bi];
            if let Some(first) = heap_index {
                // An array takes consecutive heap slots, as it takes registers.
                for (i, block) in h.blocks.iter().enumerate() {
                    let slot = first.checked_add(i as u32).ok_or_else(|| {
                        err("the array's heap indices pass the last index".into())
                    })?;
                    let reg = Register {
                        class: kind.class(),
                        index: 0,
                        space: 0,
                    };
                    let mut entry = resource_entry(&h.buffer, block, kind, r, reg).map_err(&err)?;
                    entry.remove("reg");
                    entry.remove("space");
                    let descriptor = match kind.class() {
                        crate::ir::ResourceClass::Srv => "srv",
                        crate::ir::ResourceClass::Uav => "uav",
                        _ => "cbv",
                    };
                    entry.insert("descriptor".into(), Value::String(descriptor.into()));
                    place(&mut heap, slot, MAX_HEAP_INDEX, entry).map_err(&err)?;
                    heap_bound.push((bi, i, slot));
                }
                continue;
            }
            for (i, block) in h.blocks.iter().enumerate() {
                let reg_index = binding.register.checked_add(i as u32).ok_or_else(|| {
                    err("the array's registers pass the last register number".into())
                })?;
                let reg = Register {
                    class: kind.class(),
                    index: reg_index,
                    space: binding.space,
                };
                if bound.iter().any(|&(_, _, b)| b == reg) {
                    return Err(err(format!("{reg} is bound twice")));
                }
                resources.push(Value::Table(
                    resource_entry(&h.buffer, block, kind, r, reg).map_err(&err)?,
                ));
                bound.push((bi, i, reg));
            }
        }
    }
    // The program whose root signature the device uses (`createRootSignature`): the
    // compute, vertex or mesh program.
    let root_program = match kind {
        Stages::Compute(i) => &shaders[i],
        Stages::Raster { vs, .. } => &shaders[vs],
        Stages::Mesh { ms, .. } => &shaders[ms],
        // The global root signature: the ray generation program's library's.
        Stages::Rays => {
            let i = p
                .shaders
                .iter()
                .position(|s| s.stage == "RayGeneration")
                .unwrap_or(0);
            &shaders[i]
        }
    };
    let mut root_regs: Vec<Register> = Vec::new();
    for rb in super::root::bind(&p, root_program, &held, text).map_err(|(l, m)| at(l, m))? {
        if bound.iter().any(|&(_, _, b)| b == rb.reg)
            || root_regs.contains(&rb.reg)
            || as_regs.contains(&rb.reg)
        {
            return Err(at(
                rb.line,
                format!(
                    "`RuntimeSettings: DirectX: RootParameters`: {} is bound twice",
                    rb.reg
                ),
            ));
        }
        resources.push(Value::Table(rb.entry));
        match rb.read_back {
            Some(bi) => bound.push((bi, 0, rb.reg)),
            None => root_regs.push(rb.reg),
        }
    }
    if let Some(t) = shader_table {
        resources.push(Value::Table(t));
    }
    table.insert("resource".into(), Value::Array(resources));
    if !heap.is_empty() {
        table.insert("heap".into(), Value::Array(slots(heap, "srv")));
    }
    if !sampler_heap.is_empty() {
        table.insert("sampler_heap".into(), Value::Array(slots(sampler_heap, "")));
    }
    let toml_text = toml::to_string(&table).map_err(|e| at(0, format!("the job: {e}")))?;
    let job = Job::from_text(&toml_text, path).map_err(|e| at(0, e.to_string()))?;
    let run_opts = RunOptions {
        threads: opts.threads,
        profile: opts.profile.clone(),
        default_engine: opts.engine,
        max_seconds: opts.max_seconds,
        ..RunOptions::default()
    };
    // A ray tracing pipeline's exports, hit groups and shader table are checked against
    // the libraries when the job is prepared; say which part of the pipeline that is.
    let what = |e: String| match kind {
        Stages::Rays => format!(
            "the ray tracing pipeline (`Shaders`, `HitGroups`, `RayTracingPipelineConfig`, `ShaderBindingTable`): {e}"
        ),
        _ => e,
    };
    let prepared = job::prepare(job, &run_opts).map_err(|e| at(0, what(e.to_string())))?;
    prepared
        .run(None, Hooks::default())
        .map_err(|e| at(0, what(e.to_string())))?;
    for &(bi, i, reg) in &bound {
        let r = prepared
            .resource(ResourceAt::Register(reg))
            .map_err(|m| at(0, m))?;
        let h = &mut held[bi];
        let bytes = r.contents();
        // A constant buffer is rounded up when bound; the pipeline keeps its own size.
        let n = h.blocks[i].len().min(bytes.len());
        h.blocks[i][..n].copy_from_slice(&bytes[..n]);
        if let Some(c) = r.counter {
            if h.counters.len() <= i {
                h.counters.resize(i + 1, 0);
            }
            h.counters[i] = c;
        }
    }
    for &(bi, i, slot) in &heap_bound {
        let r = prepared
            .resource(ResourceAt::Heap(slot))
            .map_err(|m| at(0, m))?;
        let bytes = r.contents();
        let h = &mut held[bi];
        let n = h.blocks[i].len().min(bytes.len());
        h.blocks[i][..n].copy_from_slice(&bytes[..n]);
        if let Some(c) = r.counter {
            if h.counters.len() <= i {
                h.counters.resize(i + 1, 0);
            }
            h.counters[i] = c;
        }
    }
    if let Some((t, samples)) = target {
        // `copyFromTexture`: the target's rows, packed tightly, replace the buffer's data;
        // a multisampled target is resolved first (`ResolveSubresource`), as the device does.
        let r = prepared
            .resource(ResourceAt::RenderTarget(0))
            .map_err(|m| at(0, m))?;
        let bytes = match r.data {
            job::ResourceData::Texture(tex) if samples > 1 => crate::pipeline::om::resolve(tex)
                .map_err(|e| at(0, format!("resolving the render target: {e}")))?
                .to_bytes(),
            _ => r.contents(),
        };
        let h = &mut held[t];
        if bytes.len() != h.blocks[0].len() {
            return Err(at(
                0,
                format!(
                    "render target `{}`: {} bytes read back for a buffer of {}",
                    h.buffer.name,
                    bytes.len(),
                    h.blocks[0].len()
                ),
            ));
        }
        h.blocks[0].copy_from_slice(&bytes);
    }

    let failures = p.results.iter().filter_map(|r| verify(r, &held)).collect();
    Ok(Outcome {
        yaml: print(&p, &held),
        failures,
        buffers: held
            .iter()
            .map(|h| ReadBack {
                name: h.buffer.name.clone(),
                format: h.buffer.format,
                channels: h.buffer.channels,
                size: h.buffer.output_props.map(|o| (o.width, o.height)),
                bytes: h.blocks.first().cloned().unwrap_or_default(),
            })
            .collect(),
    })
}

/// The highest `HeapIndex` of a resource dxlane takes: a limit of its own (D3D12's
/// resource binding tier 1 allows 1,000,000 descriptors), so a hostile index cannot make
/// it list a million empty slots.
pub const MAX_HEAP_INDEX: u32 = 65535;

/// The highest `HeapIndex` of a sampler (D3D12's sampler heaps hold 2048 samplers).
pub const MAX_SAMPLER_HEAP_INDEX: u32 = 2047;

/// Puts `entry` in heap slot `i` (at most `max`); a slot taken twice is an error.
fn place(heap: &mut Vec<Option<Table>>, i: u32, max: u32, entry: Table) -> Result<(), String> {
    if i > max {
        return Err(format!(
            "`HeapIndex` {i}; dxlane's descriptor heaps here end at {max}"
        ));
    }
    let i = i as usize;
    if heap.len() <= i {
        heap.resize(i + 1, None);
    }
    if heap[i].is_some() {
        return Err(format!("`HeapIndex` {i} is taken twice"));
    }
    heap[i] = Some(entry);
    Ok(())
}

/// A heap's entries in slot order, its empty slots null (`kind = "none"`).
fn slots(heap: Vec<Option<Table>>, descriptor: &str) -> Vec<Value> {
    heap.into_iter()
        .map(|e| {
            Value::Table(e.unwrap_or_else(|| {
                let mut t = Table::new();
                if !descriptor.is_empty() {
                    t.insert("descriptor".into(), Value::String(descriptor.into()));
                }
                t.insert("kind".into(), Value::String("none".into()));
                t
            }))
        })
        .collect()
}

/// Which programs run, as indices into `Shaders` (and the program files).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Stages {
    /// A compute pipeline's one `Compute` program.
    Compute(usize),
    /// A traditional raster pipeline's programs.
    Raster {
        /// The vertex program.
        vs: usize,
        /// The hull program (with `ds`).
        hs: Option<usize>,
        /// The domain program (with `hs`).
        ds: Option<usize>,
        /// The geometry program.
        gs: Option<usize>,
        /// The pixel program.
        ps: usize,
    },
    /// A mesh pipeline's programs.
    Mesh {
        /// The amplification program.
        amplification: Option<usize>,
        /// The mesh program.
        ms: usize,
        /// The pixel program (optional, as on the suite's device).
        ps: Option<usize>,
    },
    /// A ray tracing pipeline: every program is a library export (see `rays`).
    Rays,
}

/// The ray tracing stages of the suite's schema.
const RAY_STAGES: [&str; 6] = [
    "RayGeneration",
    "Intersection",
    "AnyHit",
    "ClosestHit",
    "Miss",
    "Callable",
];

/// The pipeline's kind from its stages (`Pipeline.cpp`, `validatePipelineKind`): one
/// `Compute` program alone; a `Vertex` program with optional `Hull` and `Domain`
/// (together) and `Geometry` programs and a `Pixel` program (`Device.cpp` requires
/// one); or a `Mesh` program with optional `Amplification` and `Pixel` programs. No
/// stage appears twice.
fn stages(p: &Pipeline) -> Result<Stages, String> {
    const RASTER: [&str; 8] = [
        "Compute",
        "Vertex",
        "Hull",
        "Domain",
        "Geometry",
        "Pixel",
        "Amplification",
        "Mesh",
    ];
    for s in &p.shaders {
        if !RASTER.contains(&s.stage.as_str()) && !RAY_STAGES.contains(&s.stage.as_str()) {
            return Err(format!(
                "`Shaders`: stage `{}`; the suite's stages are {}, {}",
                s.stage,
                RASTER.join(", "),
                RAY_STAGES.join(", ")
            ));
        }
    }
    if p.shaders.is_empty() {
        return Err("`Shaders` is empty".into());
    }
    if let Some(s) = p
        .shaders
        .iter()
        .find(|s| RAY_STAGES.contains(&s.stage.as_str()))
    {
        // `validatePipelineKind`: ray tracing programs stand alone (several of one stage
        // allowed), with at least one RayGeneration program. The suite refuses Compute,
        // Vertex, Amplification and Mesh programs beside them; dxlane refuses every
        // other stage, which such a pipeline would never run.
        if let Some(o) = p
            .shaders
            .iter()
            .find(|o| !RAY_STAGES.contains(&o.stage.as_str()))
        {
            return Err(format!(
                "`Shaders`: `{}` is a ray tracing stage; a ray tracing pipeline has no {} program",
                s.stage, o.stage
            ));
        }
        if !p.shaders.iter().any(|s| s.stage == "RayGeneration") {
            return Err("`Shaders`: a ray tracing pipeline needs a RayGeneration program".into());
        }
        return Ok(Stages::Rays);
    }
    // The suite refuses ray tracing state on a pipeline without ray tracing stages
    // (`Pipeline.cpp`, `validatePipelineKind`). Acceleration structures are not in the
    // list: inline ray queries read them from any stage.
    for (key, present) in [
        ("HitGroups", p.hit_groups.is_some()),
        (
            "RayTracingPipelineConfig",
            p.ray_tracing_pipeline_config.is_some(),
        ),
        ("ShaderBindingTable", p.shader_binding_table.is_some()),
    ] {
        if present {
            return Err(format!(
                "`{key}` belongs to ray tracing pipelines; this pipeline has no ray tracing stage"
            ));
        }
    }
    let of = |stage: &str| -> Result<Option<usize>, String> {
        let all: Vec<usize> = (0..p.shaders.len())
            .filter(|&i| p.shaders[i].stage == stage)
            .collect();
        match all.as_slice() {
            [] => Ok(None),
            [i] => Ok(Some(*i)),
            _ => Err(format!(
                "`Shaders`: the pipeline has more than one {stage} program"
            )),
        }
    };
    let compute = of("Compute")?;
    let (vs, hs, ds, gs, ps) = (
        of("Vertex")?,
        of("Hull")?,
        of("Domain")?,
        of("Geometry")?,
        of("Pixel")?,
    );
    let (amplification, ms) = (of("Amplification")?, of("Mesh")?);
    if let Some(i) = compute {
        if p.shaders.len() != 1 {
            return Err("a compute pipeline has only its Compute program".into());
        }
        return Ok(Stages::Compute(i));
    }
    if let Some(vs) = vs {
        if amplification.is_some() || ms.is_some() {
            return Err(
                "`Shaders`: Vertex and Mesh or Amplification programs cannot be in one pipeline"
                    .into(),
            );
        }
        if hs.is_some() != ds.is_some() {
            return Err(
                "`Shaders`: Hull and Domain programs go together (the tessellator runs between them)"
                    .into(),
            );
        }
        let ps = ps.ok_or(
            "`Shaders`: a Vertex pipeline needs a Pixel program (the suite's Direct3D device requires both)",
        )?;
        return Ok(Stages::Raster { vs, hs, ds, gs, ps });
    }
    if let Some(ms) = ms {
        if let Some(stage) = [("Hull", hs), ("Domain", ds), ("Geometry", gs)]
            .iter()
            .find_map(|(n, i)| i.map(|_| *n))
        {
            return Err(format!(
                "`Shaders`: a mesh pipeline has no {stage} stage (the mesh program makes the primitives)"
            ));
        }
        return Ok(Stages::Mesh {
            amplification,
            ms,
            ps,
        });
    }
    Err("`Shaders`: the pipeline has no Compute, Vertex or Mesh program".into())
}

fn check_results(p: &Pipeline, held: &[Held], text: &str) -> Result<(), (usize, String)> {
    for r in &p.results {
        let line = text
            .lines()
            .position(|l| {
                l.trim_start()
                    .trim_start_matches("- ")
                    .trim()
                    .strip_prefix("Result:")
                    .is_some_and(|n| n.trim() == r.result)
            })
            .map_or(0, |i| i + 1);
        let find = |name: &str, what: &str| {
            held.iter()
                .find(|h| h.buffer.name == name)
                .map(|h| h.buffer.format)
                .ok_or((
                    line,
                    format!("result `{}`: `{what}` buffer `{name}` not found", r.result),
                ))
        };
        let a = find(&r.actual, "Actual")?;
        let e = find(&r.expected, "Expected")?;
        let rule =
            Rule::parse(&r.rule).map_err(|m| (line, format!("result `{}`: {m}", r.result)))?;
        if rule != Rule::Exact {
            if !a.is_float() || !e.is_float() {
                return Err((
                    line,
                    format!(
                        "result `{}`: `{}` compares Float16, Float32 or Float64 buffers",
                        r.result, r.rule
                    ),
                ));
            }
            if a != e {
                return Err((
                    line,
                    format!(
                        "result `{}`: the buffers must have the same format",
                        r.result
                    ),
                ));
            }
            if rule == Rule::Ulp && r.ulpt.is_none() {
                return Err((line, format!("result `{}`: no `ULPT`", r.result)));
            }
            if rule == Rule::Epsilon && r.epsilon.is_none() {
                return Err((line, format!("result `{}`: no `Epsilon`", r.result)));
            }
        }
        if let Some(d) = &r.denorm_mode {
            Denorm::parse(d).map_err(|m| (line, format!("result `{}`: {m}", r.result)))?;
        }
    }
    Ok(())
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Rule {
    Exact,
    Ulp,
    Epsilon,
}

impl Rule {
    fn parse(s: &str) -> Result<Rule, String> {
        Ok(match s {
            "BufferExact" => Rule::Exact,
            "BufferFloatULP" | "BufferFuzzyULP" | "BufferFuzzy" => Rule::Ulp,
            "BufferFloatEpsilon" | "BufferFuzzyEpsilon" => Rule::Epsilon,
            _ => {
                return Err(format!(
                    "`Rule: {s}`; give BufferExact, BufferFloatULP or BufferFloatEpsilon"
                ));
            }
        })
    }
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Denorm {
    Any,
    Ftz,
    Preserve,
}

impl Denorm {
    fn parse(s: &str) -> Result<Denorm, String> {
        Ok(match s {
            "Any" => Denorm::Any,
            "FTZ" => Denorm::Ftz,
            "Preserve" => Denorm::Preserve,
            _ => return Err(format!("`DenormMode: {s}`; give Any, FTZ or Preserve")),
        })
    }
}

/// The failure message of `r`, or `None` when it holds (`Check.cpp`'s `verifyResult`).
fn verify(r: &ResultRule, held: &[Held]) -> Option<String> {
    let a = held.iter().find(|h| h.buffer.name == r.actual)?;
    let e = held.iter().find(|h| h.buffer.name == r.expected)?;
    let rule = Rule::parse(&r.rule).ok()?;
    let dm = r
        .denorm_mode
        .as_deref()
        .and_then(|d| Denorm::parse(d).ok())
        .unwrap_or(Denorm::Any);
    let (ab, eb) = (a.blocks.concat(), e.blocks.concat());
    let tol = Tolerance {
        ulps: r.ulpt.unwrap_or(0).min(u64::from(u32::MAX)),
        epsilon: r.epsilon.unwrap_or(0.0),
    };
    let ok = match rule {
        Rule::Exact => ab == eb,
        _ => floats_match(a.buffer.format, &ab, &eb, rule, tol, dm),
    };
    if ok {
        return None;
    }
    let mut w = Writer::new();
    buffer_yaml(&mut w, 0, false, &e.buffer, e);
    let expected = w.finish();
    let mut w = Writer::new();
    buffer_yaml(&mut w, 0, false, &a.buffer, a);
    let got = w.finish();
    Some(format!(
        "Test failed: {}\nExpected:\n{expected}Got:\n{got}",
        r.result
    ))
}

#[derive(Debug, Clone, Copy)]
struct Tolerance {
    ulps: u64,
    epsilon: f64,
}

/// `Check.cpp`'s float rules, element by element; buffers of different sizes differ.
fn floats_match(
    format: DataFormat,
    a: &[u8],
    e: &[u8],
    rule: Rule,
    tol: Tolerance,
    dm: Denorm,
) -> bool {
    if a.len() != e.len() {
        return false;
    }
    let n = format.size() as usize;
    a.chunks_exact(n).zip(e.chunks_exact(n)).all(|(x, y)| {
        let word = |c: &[u8]| {
            c.iter()
                .rev()
                .fold(0u64, |acc, &b| (acc << 8) | u64::from(b))
        };
        let (x, y) = (word(x), word(y));
        match format {
            DataFormat::Float32 => f32_match(
                f32::from_bits(x as u32),
                f32::from_bits(y as u32),
                rule,
                tol,
                dm,
            ),
            DataFormat::Float64 => f64_match(f64::from_bits(x), f64::from_bits(y), rule, tol, dm),
            DataFormat::Float16 => f16_match(x as u16, y as u16, rule, tol),
            _ => false,
        }
    })
}

/// An expected denormal may come back as a zero of its sign under `DenormMode: Any`.
fn f32_match(x: f32, y: f32, rule: Rule, tol: Tolerance, dm: Denorm) -> bool {
    if x == y {
        return true;
    }
    if x.is_nan() || y.is_nan() {
        return x.is_nan() && y.is_nan();
    }
    if dm == Denorm::Any
        && y.is_subnormal()
        && x == 0.0
        && x.is_sign_negative() == y.is_sign_negative()
    {
        return true;
    }
    match rule {
        Rule::Epsilon => (x - y).abs() < tol.epsilon as f32,
        _ => u64::from((x.to_bits().wrapping_sub(y.to_bits()) as i32).unsigned_abs()) <= tol.ulps,
    }
}

fn f64_match(x: f64, y: f64, rule: Rule, tol: Tolerance, dm: Denorm) -> bool {
    if x == y {
        return true;
    }
    if x.is_nan() || y.is_nan() {
        return x.is_nan() && y.is_nan();
    }
    if dm == Denorm::Any
        && y.is_subnormal()
        && x == 0.0
        && x.is_sign_negative() == y.is_sign_negative()
    {
        return true;
    }
    match rule {
        Rule::Epsilon => (x - y).abs() < tol.epsilon,
        _ => (x.to_bits().wrapping_sub(y.to_bits()) as i64).unsigned_abs() <= tol.ulps,
    }
}

/// 16-bit floats: ±0 equal, no denormal mode (they keep denormals), ULPs counted in the
/// monotonic order of the bit patterns.
fn f16_match(x: u16, y: u16, rule: Rule, tol: Tolerance) -> bool {
    let nan = |h: u16| h & 0x7c00 == 0x7c00 && h & 0x03ff != 0;
    if x & 0x7fff == 0 && y & 0x7fff == 0 {
        return true;
    }
    if x == y {
        return true;
    }
    if nan(x) || nan(y) {
        return nan(x) && nan(y);
    }
    match rule {
        Rule::Epsilon => {
            let (a, b) = (
                half::f16::from_bits(x).to_f32(),
                half::f16::from_bits(y).to_f32(),
            );
            (a - b).abs() < tol.epsilon as f32
        }
        _ => {
            let ordered = |h: u16| -> i32 {
                if h & 0x8000 != 0 {
                    i32::from(!h)
                } else {
                    i32::from(h | 0x8000)
                }
            };
            u64::from((ordered(x) - ordered(y)).unsigned_abs()) <= tol.ulps
        }
    }
}

/// The whole pipeline as `offloader` prints it after a run.
fn print(p: &Pipeline, held: &[Held]) -> String {
    let mut w = Writer::new();
    w.open_sequence(0, false, "Shaders", p.shaders.is_empty());
    for s in &p.shaders {
        w.scalar(4, true, "Stage", &s.stage);
        w.scalar(4, false, "Entry", &s.entry);
        if let Some(d) = s.dispatch_size {
            w.flow(4, false, "DispatchSize", &d.map(|v| v.to_string()));
        }
    }
    w.open_sequence(0, false, "Buffers", held.is_empty());
    for h in held {
        buffer_yaml(&mut w, 4, true, &h.buffer, h);
    }
    if !p.results.is_empty() {
        w.open(0, false, "Results");
        for r in &p.results {
            w.scalar(4, true, "Result", &r.result);
            w.scalar(4, false, "Rule", &r.rule);
            w.scalar(4, false, "Actual", &r.actual);
            w.scalar(4, false, "Expected", &r.expected);
            if let Some(u) = r.ulpt {
                w.scalar(4, false, "ULPT", &u.to_string());
            }
            if let Some(e) = r.epsilon {
                w.scalar(4, false, "Epsilon", &super::yaml_out::c_g(e));
            }
            if let Some(d) = &r.denorm_mode {
                w.scalar(4, false, "DenormMode", d);
            }
        }
    }
    w.open_sequence(0, false, "DescriptorSets", p.descriptor_sets.is_empty());
    for set in &p.descriptor_sets {
        w.open_sequence(4, true, "Resources", set.resources.is_empty());
        for r in &set.resources {
            resource_yaml(&mut w, 8, r);
        }
    }
    if let Some(b) = &p.bindings {
        bindings_yaml(&mut w, b);
    }
    if let Some(d) = &p.dispatch_parameters {
        if d.dispatch_group_count.is_some() || d.vertex_count.is_some() {
            w.open(0, false, "DispatchParameters");
        }
        if let Some(g) = d.dispatch_group_count {
            w.flow(2, false, "DispatchGroupCount", &g.map(|v| v.to_string()));
        }
        if let Some(n) = d.vertex_count {
            w.scalar(2, false, "VertexCount", &n.to_string());
        }
    }
    w.finish()
}

/// `Bindings` as the suite prints them: the names and attributes the file gives, the
/// topology when it is not the default `TriangleList`.
fn bindings_yaml(w: &mut Writer, b: &pipeline::IoBindings) {
    w.open(0, false, "Bindings");
    if let Some(v) = &b.vertex_buffer {
        w.scalar(2, false, "VertexBuffer", v);
    }
    if !b.vertex_attributes.is_empty() {
        w.open(2, false, "VertexAttributes");
        for a in &b.vertex_attributes {
            w.scalar(6, true, "Format", a.format.name());
            w.scalar(6, false, "Channels", &a.channels.to_string());
            w.scalar(6, false, "Offset", &a.offset.to_string());
            w.scalar(6, false, "Name", &a.name);
        }
    }
    if let Some(r) = &b.render_target {
        w.scalar(2, false, "RenderTarget", r);
    }
    if let Some(t) = b.topology.as_deref().filter(|t| *t != "TriangleList") {
        w.scalar(2, false, "Topology", t);
    }
    if let Some(n) = b.patch_control_points {
        w.scalar(2, false, "PatchControlPoints", &n.to_string());
    }
    if let Some(n) = b.sample_count.filter(|&n| n != 1) {
        w.scalar(2, false, "SampleCount", &n.to_string());
    }
}

fn buffer_yaml(w: &mut Writer, indent: usize, item: bool, b: &Buffer, h: &Held) {
    w.scalar(indent, item, "Name", &b.name);
    w.scalar(indent, false, "Format", b.format.name());
    if b.channels != 1 {
        w.scalar(indent, false, "Channels", &b.channels.to_string());
    }
    if b.stride != 0 {
        w.scalar(indent, false, "Stride", &b.stride.to_string());
    }
    if b.array_size != 1 {
        w.scalar(indent, false, "ArraySize", &b.array_size.to_string());
    }
    match h.counters.as_slice() {
        [] => {}
        [c] if b.array_size == 1 => w.scalar(indent, false, "Counter", &c.to_string()),
        cs => w.flow(
            indent,
            false,
            "Counters",
            &cs.iter().map(u32::to_string).collect::<Vec<_>>(),
        ),
    }
    if b.array_size == 1 {
        let data = h
            .blocks
            .first()
            .map(|d| elements(b.format, d))
            .unwrap_or_default();
        w.flow(indent, false, "Data", &data);
    } else {
        w.open(indent, false, "Data");
        for block in &h.blocks {
            w.flow_item(indent + 2, &elements(b.format, block));
        }
    }
    if let Some(o) = b.output_props {
        w.open(indent, false, "OutputProps");
        w.scalar(indent + 2, false, "Height", &o.height.to_string());
        w.scalar(indent + 2, false, "Width", &o.width.to_string());
        w.scalar(indent + 2, false, "Depth", &o.depth.to_string());
        if o.mip_levels != 1 {
            w.scalar(indent + 2, false, "MipLevels", &o.mip_levels.to_string());
        }
        if o.array_slices != 1 {
            w.scalar(
                indent + 2,
                false,
                "ArraySlices",
                &o.array_slices.to_string(),
            );
        }
        if let Some(n) = o.sample_count.filter(|&n| n != 1) {
            w.scalar(indent + 2, false, "SampleCount", &n.to_string());
        }
    }
}

fn resource_yaml(w: &mut Writer, indent: usize, r: &Resource) {
    w.scalar(indent, true, "Name", &r.name);
    w.scalar(indent, false, "Kind", &r.kind);
    if r.has_counter {
        w.scalar(indent, false, "HasCounter", "true");
    }
    if let Some(b) = r.direct_x_binding {
        w.open(indent, false, "DirectXBinding");
        w.scalar(indent + 2, false, "Register", &b.register.to_string());
        w.scalar(indent + 2, false, "Space", &b.space.to_string());
    }
    if let Some(i) = r.heap_index {
        w.scalar(indent, false, "HeapIndex", &i.to_string());
    }
}

/// The suite's resource kinds (`API/Enums.h`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum ResourceKind {
    Buffer,
    RwBuffer,
    StructuredBuffer,
    RwStructuredBuffer,
    ByteAddressBuffer,
    RwByteAddressBuffer,
    ConstantBuffer,
    Texture2D,
    RwTexture2D,
    Sampler,
}

impl ResourceKind {
    /// The kind the schema names `s`, or why there is none.
    pub(super) fn parse(s: &str) -> Result<ResourceKind, String> {
        use ResourceKind::*;
        Ok(match s {
            "Buffer" => Buffer,
            "RWBuffer" => RwBuffer,
            "StructuredBuffer" => StructuredBuffer,
            "RWStructuredBuffer" => RwStructuredBuffer,
            "ByteAddressBuffer" => ByteAddressBuffer,
            "RWByteAddressBuffer" => RwByteAddressBuffer,
            "ConstantBuffer" => ConstantBuffer,
            "Texture2D" => Texture2D,
            "RWTexture2D" => RwTexture2D,
            "Sampler" => Sampler,
            "SampledTexture2D" => {
                return Err(
                    "`Kind: SampledTexture2D` is a Vulkan combined image sampler; Direct3D binds a texture and a sampler"
                        .into(),
                );
            }
            "AccelerationStructure" => {
                return Err(
                    "`Kind: AccelerationStructure` is bound by the TLAS of its name, not as a buffer"
                        .into(),
                );
            }
            other => {
                return Err(format!(
                    "`Kind: {other}`; give Buffer, RWBuffer, StructuredBuffer, RWStructuredBuffer, ByteAddressBuffer, RWByteAddressBuffer, ConstantBuffer, Texture2D, RWTexture2D or Sampler"
                ));
            }
        })
    }

    fn class(self) -> crate::ir::ResourceClass {
        use crate::ir::ResourceClass as C;
        use ResourceKind::*;
        match self {
            Buffer | StructuredBuffer | ByteAddressBuffer | Texture2D => C::Srv,
            RwBuffer | RwStructuredBuffer | RwByteAddressBuffer | RwTexture2D => C::Uav,
            ConstantBuffer => C::Cbv,
            Sampler => C::Sampler,
        }
    }
}

/// The DXGI format (without the prefix) of a typed view of `channels` elements of
/// `format`: 64-bit elements are pairs of 32-bit words, as typed views have no 64-bit
/// formats.
fn dxgi_format(format: DataFormat, channels: u32) -> Result<String, String> {
    use DataFormat::*;
    let (bits, suffix, per) = match format {
        Float32 | Depth32 => (32, "FLOAT", 1),
        Int32 => (32, "SINT", 1),
        UInt32 | Hex32 | Bool => (32, "UINT", 1),
        Float16 => (16, "FLOAT", 1),
        Int16 => (16, "SINT", 1),
        UInt16 | Hex16 => (16, "UINT", 1),
        Hex8 => (8, "UINT", 1),
        Float64 | Int64 | UInt64 | Hex64 => (32, "UINT", 2),
    };
    let n = channels.saturating_mul(per);
    let names = ["R", "G", "B", "A"];
    if n == 0 || n > 4 || (n == 3 && bits != 32) {
        return Err(format!(
            "{channels} {} channels make no typed format",
            format.name()
        ));
    }
    let mut s = String::new();
    for c in names.iter().take(n as usize) {
        s.push_str(c);
        s.push_str(&bits.to_string());
    }
    Ok(format!("{s}_{suffix}"))
}

fn hex(bytes: &[u8]) -> String {
    let mut s = String::with_capacity(bytes.len() * 2);
    for b in bytes {
        s.push_str(&format!("{b:02x}"));
    }
    s
}

/// The job's `[[resource]]` for one buffer (or one element of an array) at `reg`.
pub(super) fn resource_entry(
    b: &Buffer,
    block: &[u8],
    kind: ResourceKind,
    r: &Resource,
    reg: Register,
) -> Result<Table, String> {
    use ResourceKind::*;
    let mut t = Table::new();
    let reg_text = format!("{}{}", reg.class.letter(), reg.index);
    t.insert("reg".into(), Value::String(reg_text));
    if reg.space != 0 {
        t.insert("space".into(), Value::Integer(reg.space.into()));
    }
    let mut data = Table::new();
    data.insert("hex".into(), Value::String(hex(block)));
    let size = |n: usize| Value::Integer(n as i64);
    match kind {
        Buffer | RwBuffer => {
            t.insert("kind".into(), Value::String("typed_buffer".into()));
            t.insert(
                "format".into(),
                Value::String(dxgi_format(b.format, b.channels)?),
            );
            t.insert("size".into(), size(block.len()));
        }
        StructuredBuffer | RwStructuredBuffer => {
            t.insert("kind".into(), Value::String("structured_buffer".into()));
            let stride = b.element_size();
            if stride == 0 {
                return Err("a structured buffer of 0-byte elements".into());
            }
            t.insert("stride".into(), Value::Integer(stride.into()));
            t.insert("size".into(), size(block.len()));
        }
        ByteAddressBuffer | RwByteAddressBuffer => {
            t.insert("kind".into(), Value::String("raw_buffer".into()));
            t.insert("size".into(), size(block.len()));
        }
        ConstantBuffer => {
            t.insert("kind".into(), Value::String("cbuffer".into()));
            // Constant buffers are read in 16-byte rows; the tail of the last row is zero.
            t.insert("size".into(), size(block.len().div_ceil(16).max(1) * 16));
        }
        Texture2D | RwTexture2D => {
            let o = b
                .output_props
                .ok_or("a texture needs `OutputProps` (Width, Height, Depth)")?;
            if o.width == 0 || o.height == 0 || o.depth != 1 {
                return Err(format!(
                    "`OutputProps`: {}×{}×{}; a 2D texture is at least 1×1 and 1 deep",
                    o.width, o.height, o.depth
                ));
            }
            if o.array_slices != 1 {
                return Err("`OutputProps: ArraySlices` other than 1 is a texture array; `Texture2D` has one slice".into());
            }
            let mut expected = 0u64;
            let (mut w, mut h) = (u64::from(o.width), u64::from(o.height));
            for _ in 0..o.mip_levels {
                expected = expected.saturating_add(w * h * u64::from(b.element_size()));
                w = (w / 2).max(1);
                h = (h / 2).max(1);
            }
            if expected != block.len() as u64 {
                return Err(format!(
                    "{} bytes of data for a {}×{} texture of {} mips, which holds {expected}",
                    block.len(),
                    o.width,
                    o.height,
                    o.mip_levels
                ));
            }
            t.insert("kind".into(), Value::String("texture2d".into()));
            t.insert(
                "format".into(),
                Value::String(dxgi_format(b.format, b.channels)?),
            );
            t.insert("width".into(), Value::Integer(o.width.into()));
            t.insert("height".into(), Value::Integer(o.height.into()));
            t.insert("mips".into(), Value::Integer(o.mip_levels.into()));
        }
        Sampler => return Err("a sampler is not a buffer".into()),
    }
    if r.has_counter {
        if !matches!(kind, RwStructuredBuffer) {
            return Err("`HasCounter` goes with RWStructuredBuffer".into());
        }
        t.insert("counter".into(), Value::Integer(0));
    }
    t.insert("data".into(), Value::Table(data));
    Ok(t)
}

/// The job's `[[resource]]` for a sampler: the suite's filters pick the minification
/// and magnification filter, and its mip filter follows the minification filter.
fn sampler_entry(
    s: &pipeline::Sampler,
    binding: pipeline::DirectXBinding,
) -> Result<Table, String> {
    let mut t = Table::new();
    t.insert(
        "reg".into(),
        Value::String(format!("s{}", binding.register)),
    );
    if binding.space != 0 {
        t.insert("space".into(), Value::Integer(binding.space.into()));
    }
    t.insert("kind".into(), Value::String("sampler".into()));
    let linear = |f: &Option<String>, key: &str| -> Result<bool, String> {
        match f.as_deref() {
            None | Some("Linear") => Ok(true),
            Some("Nearest") => Ok(false),
            Some(o) => Err(format!("`{key}: {o}`; give Nearest or Linear")),
        }
    };
    let min = linear(&s.min_filter, "MinFilter")?;
    let mag = linear(&s.mag_filter, "MagFilter")?;
    let name = |l: bool| if l { "LINEAR" } else { "POINT" };
    // D3D12_FILTER names; the mip filter follows the minification filter.
    let filter = if min == mag {
        format!("MIN_MAG_MIP_{}", name(min))
    } else {
        format!("MIN_{}_MAG_{}_MIP_{}", name(min), name(mag), name(min))
    };
    let comparison = match s.kind.as_deref() {
        None | Some("Sampler") => {
            if s.comparison_op.as_deref().is_some_and(|c| c != "Never") {
                return Err("`Kind: Sampler` takes `ComparisonOp: Never`".into());
            }
            None
        }
        Some("SamplerComparison") => {
            let c = s.comparison_op.as_deref().unwrap_or("Never");
            let f = match c {
                "Less" => "LESS",
                "Equal" => "EQUAL",
                "LessEqual" => "LESS_EQUAL",
                "Greater" => "GREATER",
                "NotEqual" => "NOT_EQUAL",
                "GreaterEqual" => "GREATER_EQUAL",
                "Always" => "ALWAYS",
                "Never" => {
                    return Err(
                        "`Kind: SamplerComparison` needs a `ComparisonOp` other than Never".into(),
                    );
                }
                o => return Err(format!("`ComparisonOp: {o}`")),
            };
            Some(f)
        }
        Some(o) => return Err(format!("`Kind: {o}`; give Sampler or SamplerComparison")),
    };
    let filter = match comparison {
        Some(_) => format!("COMPARISON_{filter}"),
        None => filter,
    };
    t.insert("filter".into(), Value::String(filter));
    if let Some(c) = comparison {
        t.insert("comparison".into(), Value::String(c.into()));
    }
    let address = match s.address.as_deref().unwrap_or("Clamp") {
        "Clamp" => "CLAMP",
        "Repeat" => "WRAP",
        "Mirror" => "MIRROR",
        "Border" => "BORDER",
        "MirrorOnce" => "MIRROR_ONCE",
        o => {
            return Err(format!(
                "`Address: {o}`; give Clamp, Repeat, Mirror, Border or MirrorOnce"
            ));
        }
    };
    t.insert(
        "address".into(),
        Value::Array(vec![Value::String(address.into()); 3]),
    );
    if let Some(v) = s.min_lod {
        t.insert("min_lod".into(), Value::Float(v.into()));
    }
    if let Some(v) = s.max_lod {
        t.insert("max_lod".into(), Value::Float(v.into()));
    }
    if let Some(v) = s.mip_lod_bias {
        t.insert("mip_lod_bias".into(), Value::Float(v.into()));
    }
    Ok(t)
}
