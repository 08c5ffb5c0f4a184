//! Running a draw job: load the vertex and pixel programs, bind resources, buffers and
//! targets, check everything, draw, write the outputs, check the expectations, write the
//! summary.
//!
//! A job is a draw job when it has a `[draw]` section; `[program]` then names `vs` (and
//! optionally `ps`: without one the draw writes depth and stencil only). `[[resource]]`
//! entries are visible to both programs (a root signature with `D3D12_SHADER_VISIBILITY_ALL`);
//! each program is checked against them as a compute program is, and a binding neither
//! program declares is warned about.
//!
//! `[[expect]]` entries take `render_target = N` (the texels of `[[draw.render_target]]`
//! #N+1, every sample, as the format stores them), `depth_stencil = true` or
//! `stream_output_buffer = N` (the bytes of `[[draw.stream_output_buffer]]` #N+1, or with
//! `counter` its filled size) besides `reg` and `heap = N` (`[[heap]]` #N+1, which any
//! stage may write through `ResourceDescriptorHeap`).
//!
//! Queries: each `[[draw.query]]` is begun just before the draw and ended just after it
//! (`pipeline::query` states what each type counts), then resolved: the summary's
//! `queries` lists the values in entry order, and an `output` receives
//! `ResolveQueryData`'s bytes (8 per occlusion or binary-occlusion query, 88 per
//! pipeline-statistics query, 16 per stream-output query).
//!
//! Stream output: a single draw has no named resources, so each
//! `[[draw.stream_output_buffer]]` is a buffer the job makes for its slot, with a
//! filled-size counter of its own, written to its `output` after the draw.
//!
//! The summary (`out/<job stem>.summary.json` by default) holds both programs, the
//! profile, wave size, worker threads, samples, whether the pixel program ran per sample
//! and whether depth ran early, the counts of vertices, primitives, pixels, helper lanes
//! and waves, lane-instructions per stage, elapsed seconds with the time per part of the
//! pipeline, the outputs with their MD5, the expectations and the warnings.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use serde::Serialize;

use super::bind::{self, BoundJob, DEFAULT_MAX_RESOURCE_BYTES};
use super::draw::{self as d, draw_err};
use super::limits::MemoryBudget;
use super::prepare::{Finished, Prepared, check_expects};
use super::run::{
    ExpectSummary, OutputSummary, ProgramInfo, RunOptions, check_outputs, load_file, output_gate,
    place_outputs, resolve_plan, resource_memory, summary_place,
};
use super::targets::{self, BoundDepth, BoundTarget};
use super::{Job, JobError, data, reflect};
use crate::ir::{Shader, Stage};
use crate::pipeline::query::{QueryData, QueryType};
use crate::pipeline::so::SoField;
use crate::pipeline::state::*;
use crate::pipeline::{
    Bindings, DrawError, DrawField, DrawReport, DrawState, DrawWork, MeshWork, StageTimes, Work,
};
use crate::resources::Memory;

/// What a draw job did: the JSON summary's contents.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct DrawSummary {
    /// The job file.
    pub job: String,
    /// The highest shader model dxlane runs, and what of it is refused (as `info`
    /// states them).
    pub dxlane_runs: crate::lower::dxil::Runs,
    /// The vertex program (in a mesh draw, the mesh program: its `stage` says which).
    pub vs: ProgramInfo,
    /// The pixel program.
    pub ps: Option<ProgramInfo>,
    /// The geometry program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub gs: Option<ProgramInfo>,
    /// A mesh draw's amplification program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub amplification: Option<ProgramInfo>,
    /// The hull program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub hs: Option<ProgramInfo>,
    /// The domain program.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub ds: Option<ProgramInfo>,
    /// The draw's report: counts, stages' lane-instructions, times.
    pub draw: DrawReport,
    /// Seconds the draw took (wall clock).
    pub elapsed_seconds: f64,
    /// Output files written.
    pub outputs: Vec<OutputSummary>,
    /// Expectation results.
    pub expectations: ExpectSummary,
    /// Warnings of the reflection check.
    pub warnings: Vec<String>,
    /// `[[draw.query]]`'s resolved values, in entry order.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub queries: Vec<DrawQueryValue>,
}

/// A `[[draw.query]]`, checked: the query type and where its resolved bytes go.
#[derive(Debug, Clone)]
pub struct DrawQuery {
    /// `[[draw.query]] #N`.
    pub name: String,
    /// The query's type.
    pub kind: QueryType,
    /// Where `ResolveQueryData`'s bytes are written (placed through the output gate).
    pub output: Option<PathBuf>,
}

/// One `[[draw.query]]`'s resolved value, as the summary lists it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub struct DrawQueryValue {
    /// Its type.
    #[serde(rename = "type")]
    pub kind: String,
    /// Its value: a count, or the counters by name.
    pub value: serde_json::Value,
}

impl DrawQuery {
    /// What the query holds after `report`'s draw: it was begun just before the draw,
    /// so it counts that draw alone.
    pub fn data(report: &DrawReport) -> QueryData {
        let mut q = QueryData::default();
        q.add_runs(
            std::slice::from_ref(&crate::pipeline::WorkReport::Draw(Box::new(report.clone()))),
            0,
        );
        q
    }
}

/// Checks `[[draw.query]]`: every type but `TIMESTAMP` (a timestamp has no begin, so
/// there is nothing for it to enclose: D3D12's `BeginQuery` refuses one), the output
/// placed inside the job's folder.
fn draw_queries(
    dsec: &d::DrawSection,
    dir: &Path,
    gate: &super::paths::OutputGate,
) -> Result<Vec<DrawQuery>, JobError> {
    let mut out = Vec::with_capacity(dsec.query.len().min(16));
    for (i, e) in dsec.query.iter().enumerate() {
        let name = format!("[[draw.query]] #{}", i + 1);
        let kind = match QueryType::parse(&e.query) {
            Some(QueryType::Timestamp) => {
                return Err(draw_err(
                    &name,
                    "`query` \"TIMESTAMP\": a timestamp is not begun and ended around a draw (D3D12's BeginQuery refuses D3D12_QUERY_TYPE_TIMESTAMP); a command list's `end_query` takes one",
                ));
            }
            Some(k) => k,
            None => {
                return Err(draw_err(
                    &name,
                    format!(
                        "`query` \"{}\": one of OCCLUSION, BINARY_OCCLUSION, PIPELINE_STATISTICS, SO_STATISTICS_STREAM0 … 3 (D3D12_QUERY_TYPE)",
                        e.query
                    ),
                ));
            }
        };
        let output = match &e.output {
            Some(p) => Some(
                gate.place(&super::resolve(dir, p))
                    .map_err(|m| draw_err(&name, format!("`output`: {m}")))?,
            ),
            None => None,
        };
        out.push(DrawQuery { name, kind, output });
    }
    Ok(out)
}

/// A finished draw job.
#[derive(Debug, Clone)]
pub struct DrawResult {
    /// The summary (also written as JSON).
    pub summary: DrawSummary,
    /// Where the summary was written.
    pub summary_path: PathBuf,
    /// The render targets after the draw.
    pub targets: Vec<BoundTarget>,
    /// The depth-stencil buffer after the draw.
    pub depth: Option<BoundDepth>,
    /// The job's `[[resource]]` entries after the draw.
    pub bound: BoundJob,
}

impl DrawResult {
    /// 0 when every expectation holds, 1 when any fails.
    pub fn exit_code(&self) -> u8 {
        if self.summary.expectations.failed == 0 {
            0
        } else {
            1
        }
    }
}

/// Checks a mesh draw's `[program]` and `[draw]` keys: a mesh program, no vertex or
/// geometry program and no input assembler state (the mesh shader spec's
/// "CreatePipelineState": IA disabled, no VS, GS, HS or DS), and a grid within
/// `DispatchMesh`'s limits.
fn check_mesh_draw(
    p: &super::schema::ProgramSection,
    d: &d::DrawSection,
    groups: [u32; 3],
) -> Result<(), JobError> {
    let program = |message: &str| JobError::Section {
        section: "[program]",
        message: message.into(),
    };
    if p.ms.is_none() {
        return Err(program(
            "a mesh draw (`draw.dispatch_mesh`) needs `ms` (the mesh program's file, relative to the job file)",
        ));
    }
    if p.vs.is_some() {
        return Err(program(
            "a mesh draw (`draw.dispatch_mesh`) has no vertex stage: give `ms` (and optionally `as`), not `vs`",
        ));
    }
    if p.gs.is_some() {
        return Err(program(
            "a mesh draw (`draw.dispatch_mesh`) has no geometry stage: remove `gs`",
        ));
    }
    if p.hs.is_some() || p.ds.is_some() {
        return Err(program(
            "a mesh draw (`draw.dispatch_mesh`) has no tessellation stages: remove `hs` and `ds`",
        ));
    }
    let ia = [
        ("vertex_count", d.vertex_count.is_some()),
        ("index_count", d.index_count.is_some()),
        ("instance_count", d.instance_count.is_some()),
        ("topology", d.topology.is_some()),
        ("index_buffer", d.index_buffer.is_some()),
        ("vertex_buffer", !d.vertex_buffer.is_empty()),
        ("input_element", !d.input_element.is_empty()),
    ];
    if let Some((key, _)) = ia.iter().find(|(_, set)| *set) {
        return Err(draw_err(
            "[draw]",
            format!(
                "`{key}` with `dispatch_mesh`: a mesh draw has no input assembler (its programs make the primitives)"
            ),
        ));
    }
    let who = if p.amplification.is_some() {
        "`draw.dispatch_mesh` (amplification groups)"
    } else {
        "`draw.dispatch_mesh` (mesh groups)"
    };
    crate::pipeline::amplification::check_grid(groups, who)
        .map_err(|e| draw_err("[draw]", e.to_string()))?;
    Ok(())
}

fn program(
    job: &Job,
    key: &str,
    path: &Path,
    stage: Stage,
) -> Result<(Shader, ProgramInfo), JobError> {
    let path = job.resolve(path);
    let (shader, container, shader_model) = load_file(&path, job.file.program.entry.as_ref())?;
    if shader.stage != stage {
        return Err(JobError::Program {
            path: path.clone(),
            message: format!(
                "is a {} program, but `{key}` needs a {stage} program",
                shader.stage
            ),
        });
    }
    let info = ProgramInfo {
        path: path.display().to_string(),
        container,
        shader_model,
        stage: shader.stage.to_string(),
        entry: shader.entry.clone(),
    };
    Ok((shader, info))
}

fn field_entry(f: DrawField) -> String {
    match f {
        DrawField::Args | DrawField::Viewport | DrawField::Scissor => "[draw]".into(),
        DrawField::Programs => "[program]".into(),
        DrawField::RenderTarget(i) => format!("[[draw.render_target]] #{}", i + 1),
        DrawField::DepthStencil => "[draw.depth_stencil]".into(),
        DrawField::InputElement(i) => format!("[[draw.input_element]] #{}", i + 1),
        DrawField::Rasterizer => "[draw.rasterizer]".into(),
        DrawField::Blend(i) => format!("[[draw.blend]] #{}", i + 1),
        DrawField::IndexBuffer => "[draw.index_buffer]".into(),
        DrawField::StreamOutput(f) => match f {
            SoField::Entry(i) => format!("[[draw.stream_output]] #{}", i + 1),
            SoField::Stride(i) | SoField::Buffer(i) => {
                format!("[[draw.stream_output_buffer]] (slot {i})")
            }
            SoField::RasterizedStream => "[draw] rasterized_stream".into(),
        },
        DrawField::ViewInstancing => "[draw] view_instancing".into(),
        DrawField::ShadingRate => "[draw] shading_rate".into(),
    }
}

pub(crate) fn draw_error(e: DrawError) -> JobError {
    match e {
        DrawError::State { field, message } => JobError::Entry {
            entry: field_entry(field),
            message,
        },
        DrawError::Link(l) => JobError::Section {
            section: "[program]",
            message: format!("the programs do not link: {l}"),
        },
        DrawError::Exec(x) => JobError::Exec(x),
    }
}

/// Merges the two programs' reflection warnings: a binding is "not used" only when
/// neither program declares it.
pub(crate) fn merge_warnings(vs: Vec<String>, ps: Option<Vec<String>>) -> Vec<String> {
    let Some(ps) = ps else { return vs };
    let unused = |w: &String| w.contains("this binding is not used");
    let mut out: Vec<String> = vs
        .iter()
        .filter(|w| !unused(w) || ps.contains(w))
        .cloned()
        .collect();
    for w in ps {
        if !unused(&w) && !out.contains(&w) {
            out.push(w);
        }
    }
    out
}

/// The program warnings of a draw: [`merge_warnings`] of the vertex (or mesh) and pixel
/// programs, then a binding "not used" by them is still used when any of `others` (the
/// geometry, hull, domain or amplification program) declares it. Single draws and a
/// command list's draws report the same warnings this way.
pub(crate) fn stage_warnings<'a>(
    vs: Vec<String>,
    ps: Option<Vec<String>>,
    others: impl IntoIterator<Item = &'a Vec<String>>,
) -> Vec<String> {
    let mut warnings = merge_warnings(vs, ps);
    for g in others {
        warnings.retain(|w| !w.contains("this binding is not used") || g.contains(w));
    }
    warnings
}

/// D3D runs the tessellator only between a hull and a domain program (D3D11.3 §10, §11;
/// D3D12 refuses a pipeline state with one of them): `Err` says which is missing, in the
/// job file's keys (`hs`, `ds`), for the caller to place (`[program]`, or a command).
pub(crate) fn check_tessellation_programs(hs: bool, ds: bool) -> Result<(), &'static str> {
    match (hs, ds) {
        (true, false) => Err(
            "`hs` without `ds`: a hull program's patches reach the rasterizer only through a domain program",
        ),
        (false, true) => Err(
            "`ds` without `hs`: a domain program runs on the points the tessellator makes of a hull program's patches",
        ),
        _ => Ok(()),
    }
}

/// A mesh draw's arguments: it assembles no vertices (`pipeline::ms` makes its
/// primitives), so one instance of none.
pub(crate) fn mesh_args() -> DrawArgs {
    DrawArgs {
        vertex_count: 0,
        instance_count: 1,
        ..DrawArgs::default()
    }
}

/// Reads, checks and runs a draw job (see the module doc).
pub fn run_draw_job(job: Job, opts: &RunOptions<'_>) -> Result<DrawResult, JobError> {
    match prepare_draw(job, opts)?.execute(opts)? {
        Finished::Draw(r) => Ok(*r),
        Finished::Dispatch(_) | Finished::List(_) | Finished::Rays(_) => Err(JobError::Section {
            section: "[draw]",
            message: "missing".into(),
        }),
    }
}

/// Reads, checks and binds a draw job (see the module doc).
pub fn prepare_draw(job: Job, opts: &RunOptions<'_>) -> Result<Prepared, JobError> {
    let Some(dsec) = job.file.draw.clone() else {
        return Err(JobError::Section {
            section: "[draw]",
            message: "missing".into(),
        });
    };
    if job.file.dispatch.is_some() {
        return Err(JobError::Section {
            section: "[dispatch]",
            message: "a job has `[dispatch]` or `[draw]`, not both".into(),
        });
    }
    let p = &job.file.program;
    if p.cs.is_some() {
        return Err(JobError::Section {
            section: "[program]",
            message: "a draw runs `vs` and `ps`, not `cs`".into(),
        });
    }
    let mesh_groups = dsec.dispatch_mesh;
    if let Some(groups) = mesh_groups {
        check_mesh_draw(p, &dsec, groups)?;
    } else if p.ms.is_some() || p.amplification.is_some() {
        return Err(JobError::Section {
            section: "[program]",
            message: "`ms` and `as` run in a mesh draw: give `draw.dispatch_mesh = [x, y, z]`"
                .into(),
        });
    }
    let (vs_key, vs_stage, vs_path) = match (&p.vs, &p.ms) {
        (_, Some(ms)) if mesh_groups.is_some() => ("ms", Stage::Mesh, ms),
        (Some(vs), _) => ("vs", Stage::Vertex, vs),
        _ => {
            return Err(JobError::Section {
                section: "[program]",
                message: "missing `vs` (the vertex program's file, relative to the job file)"
                    .into(),
            });
        }
    };
    let o = &job.file.options;
    let mut plan = resolve_plan(&job, opts)?;
    let resource_limit = o.max_memory.unwrap_or(DEFAULT_MAX_RESOURCE_BYTES);
    let (vs, vs_info) = program(&job, vs_key, vs_path, vs_stage)?;
    let amplification = match &p.amplification {
        Some(path) => Some(program(&job, "as", path, Stage::Amplification)?),
        None => None,
    };
    let ps = match &p.ps {
        Some(path) => Some(program(&job, "ps", path, Stage::Pixel)?),
        None => None,
    };
    let gs = match &p.gs {
        Some(path) => Some(program(&job, "gs", path, Stage::Geometry)?),
        None => None,
    };
    let hs = match &p.hs {
        Some(path) => Some(program(&job, "hs", path, Stage::Hull)?),
        None => None,
    };
    let ds = match &p.ds {
        Some(path) => Some(program(&job, "ds", path, Stage::Domain)?),
        None => None,
    };
    check_tessellation_programs(hs.is_some(), ds.is_some()).map_err(|m| JobError::Section {
        section: "[program]",
        message: m.into(),
    })?;
    let mut bound = bind::bind_job(&job.file, &job.dir, resource_limit)?;
    let gate = output_gate(&job, opts);
    place_outputs(&mut bound, &gate)?;
    check_outputs(&bound)?;
    let mut memory = resource_memory(&bound, resource_limit)?;
    let vs_fit = reflect::check(&vs, &bound)?;
    let ps_fit = match &ps {
        Some((s, _)) => Some(reflect::check(s, &bound)?),
        None => None,
    };
    let gs_fit = match &gs {
        Some((s, _)) => Some(reflect::check(s, &bound)?),
        None => None,
    };
    let hs_fit = match &hs {
        Some((s, _)) => Some(reflect::check(s, &bound)?),
        None => None,
    };
    let ds_fit = match &ds {
        Some((s, _)) => Some(reflect::check(s, &bound)?),
        None => None,
    };
    let as_fit = match &amplification {
        Some((s, _)) => Some(reflect::check(s, &bound)?),
        None => None,
    };
    let warnings = stage_warnings(
        vs_fit.warnings.clone(),
        ps_fit.as_ref().map(|f| f.warnings.clone()),
        [&gs_fit, &hs_fit, &ds_fit, &as_fit]
            .into_iter()
            .flatten()
            .map(|f| &f.warnings),
    );

    // Buffers.
    let mut vertex_buffers: Vec<Option<VertexBufferView>> = Vec::new();
    for (i, v) in dsec.vertex_buffer.iter().enumerate() {
        let name = format!("[[draw.vertex_buffer]] #{} (slot {})", i + 1, v.slot);
        if v.slot >= VERTEX_INPUT_SLOTS {
            return Err(draw_err(
                &name,
                format!(
                    "`slot` {}: D3D has slots 0 to {}",
                    v.slot,
                    VERTEX_INPUT_SLOTS - 1
                ),
            ));
        }
        if v.stride > crate::pipeline::ia::MAX_STRIDE {
            return Err(draw_err(
                &name,
                format!(
                    "`stride` {}: at most {}",
                    v.stride,
                    crate::pipeline::ia::MAX_STRIDE
                ),
            ));
        }
        let data = buffer_bytes(&name, &v.data, v.offset, &job.dir, &mut memory)?;
        let slot = v.slot as usize;
        if vertex_buffers.len() <= slot {
            vertex_buffers.resize(slot + 1, None);
        }
        if vertex_buffers[slot].is_some() {
            return Err(draw_err(&name, format!("slot {} is already bound", v.slot)));
        }
        vertex_buffers[slot] = Some(VertexBufferView {
            data,
            stride: v.stride,
            offset: 0,
            size: None,
        });
    }
    let index_buffer = match &dsec.index_buffer {
        Some(ib) => {
            let name = "[draw.index_buffer]";
            let format = match ib
                .format
                .to_ascii_uppercase()
                .trim_start_matches("DXGI_FORMAT_")
            {
                "R16_UINT" => IndexFormat::U16,
                "R32_UINT" => IndexFormat::U32,
                other => {
                    return Err(draw_err(
                        name,
                        format!("`format` \"{other}\": give R16_UINT or R32_UINT"),
                    ));
                }
            };
            let data = buffer_bytes(name, &ib.data, ib.offset, &job.dir, &mut memory)?;
            Some(IndexBufferView {
                data,
                format,
                offset: 0,
                size: None,
            })
        }
        None => None,
    };
    let mut rts = targets::render_targets(&dsec.render_target, &job.dir, &mut memory)?;
    for t in &mut rts {
        for (key, slot) in [
            ("output", &mut t.output),
            ("resolve_output", &mut t.resolve_output),
        ] {
            if let Some(p) = slot.as_ref() {
                *slot = Some(
                    gate.place(p)
                        .map_err(|m| draw_err(&t.name, format!("`{key}`: {m}")))?,
                );
            }
        }
    }
    let size = rts.first().map(|t| {
        let d = t.view.texture.desc();
        (d.width, d.height, d.samples)
    });
    let depth = match &dsec.depth_stencil {
        Some(e) => {
            let mut dd = targets::depth_stencil(e, size, &job.dir, &mut memory)?;
            if let Some(p) = &dd.output {
                dd.output = Some(
                    gate.place(p)
                        .map_err(|m| draw_err("[draw.depth_stencil]", format!("`output`: {m}")))?,
                );
            }
            Some(dd)
        }
        None => None,
    };
    // The draw's own memory (vertex outputs, primitives, bins, tiles) is what the job's
    // `max_memory` leaves once its resources, buffers and targets are held.
    plan.limits.max_memory_bytes = plan.limits.max_memory_bytes.min(memory.left());
    let summary = summary_place(&job, opts, &gate)?;
    let args = match mesh_groups {
        Some(_) => mesh_args(),
        None => d::args(&dsec)?,
    };
    let empty = Bindings::default();
    let ps_bindings = ps_fit.as_ref().map_or(&empty, |f| &f.bindings);
    let mut state = DrawState::new(
        &vs,
        ps.as_ref().map(|(s, _)| s),
        &vs_fit.bindings,
        ps_bindings,
    );
    state.input_layout = d::input_layout(&dsec)?;
    state.topology = d::topology(&dsec)?;
    state.vertex_buffers = vertex_buffers;
    state.index_buffer = index_buffer;
    state.strip_cut = if dsec.strip_cut.unwrap_or(false) {
        StripCutValue::Enabled
    } else {
        StripCutValue::Disabled
    };
    state.rasterizer = d::rasterizer(&dsec)?;
    state.blend = d::blend(&dsec)?;
    state.viewports = d::viewports(&dsec)?;
    state.scissors = d::scissors(&dsec)?;
    state.sample_mask = dsec.sample_mask.unwrap_or(u32::MAX);
    state.blend_factor = dsec.blend_factor.unwrap_or([1.0; 4]);
    (state.stencil_ref, state.back_stencil_ref) = d::stencil_refs(&dsec)?;
    state.depth_bounds = dsec.depth_bounds.unwrap_or([0.0, 1.0]);
    state.view_instancing = d::view_instancing(&dsec)?;
    state.shading_rate = d::shading_rate(&dsec, d::shading_rate_image(&dsec, &job.dir)?)?;
    state.render_targets = rts.iter().map(|t| Some(t.view.clone())).collect();
    let so_buffers = so_buffers(&dsec, &job.dir, &gate, &mut memory)?;
    let queries = draw_queries(&dsec, &job.dir, &gate)?;
    if !dsec.stream_output.is_empty()
        || dsec.rasterized_stream.is_some()
        || !dsec.stream_output_buffer.is_empty()
    {
        state.stream_output = Some(stream_output_state(&dsec, &so_buffers)?);
    }
    if let Some(dd) = &depth {
        state.depth_stencil_view = Some(dd.view.clone());
        state.depth_stencil = dd.desc;
    } else {
        state.depth_stencil.depth_enable = false;
    }
    let expects = check_expects(&job, &bound, Some(&dsec))?;
    let fixed = state.fixed();
    drop(state);
    let vs_bindings = vs_fit.bindings;
    let ps_bindings = ps_fit.map(|f| f.bindings).unwrap_or_default();
    let gs_bindings = gs_fit.map(|f| f.bindings).unwrap_or_default();
    // The programs' files in the work's order: vertex, pixel, then geometry.
    let mut programs = vec![vs_info];
    let ps = ps.map(|(s, info)| {
        programs.push(info);
        Arc::new(s)
    });
    let gs = gs.map(|(s, info)| {
        programs.push(info);
        (Arc::new(s), gs_bindings)
    });
    let hs = hs.map(|(s, info)| {
        programs.push(info);
        (Arc::new(s), hs_fit.map(|f| f.bindings).unwrap_or_default())
    });
    let ds = ds.map(|(s, info)| {
        programs.push(info);
        (Arc::new(s), ds_fit.map(|f| f.bindings).unwrap_or_default())
    });
    let mesh = mesh_groups.map(|groups| {
        let amplification = amplification.map(|(s, info)| {
            programs.push(info);
            (Arc::new(s), as_fit.map(|f| f.bindings).unwrap_or_default())
        });
        MeshWork {
            amplification,
            groups,
        }
    });
    Ok(Prepared {
        work: Work::Draw(Box::new(DrawWork {
            vs: Arc::new(vs),
            ps,
            vs_bindings,
            ps_bindings,
            gs,
            hs,
            ds,
            fixed: Arc::new(fixed),
            args,
            mesh,
            view: None,
        })),
        plan,
        programs,
        bound,
        targets: rts,
        depth,
        so_buffers,
        draw_queries: queries,
        warnings,
        expects,
        gate,
        memory,
        summary,
        job,
    })
}

/// A single-draw job's stream-output buffer (`[[draw.stream_output_buffer]]`): the
/// memory the draw writes and its filled-size counter.
#[derive(Debug, Clone)]
pub struct BoundSoBuffer {
    /// `[[draw.stream_output_buffer]] #N`.
    pub name: String,
    /// The entry's slot.
    pub slot: u32,
    /// The entry's stride.
    pub stride: u32,
    /// The whole buffer: `offset` bytes before the view, then the view's `size`.
    pub memory: Memory,
    /// Bytes before the view.
    pub offset: u64,
    /// The view's `SizeInBytes`.
    pub size: u64,
    /// The 32-bit filled size (`BufferFilledSizeLocation`), before and after the draw.
    pub filled_size: Memory,
    /// Where the buffer is written after the draw (placed through the output gate).
    pub output: Option<PathBuf>,
}

/// Makes `[[draw.stream_output_buffer]]`'s buffers, each checked by name: a slot 0 … 3
/// given once (`D3D12_SO_BUFFER_SLOT_COUNT`; `SOSetTargets` binds one view per slot),
/// a size, a filled size within it, the output placed inside the job's folder.
fn so_buffers(
    dsec: &d::DrawSection,
    dir: &Path,
    gate: &super::paths::OutputGate,
    memory: &mut MemoryBudget,
) -> Result<Vec<BoundSoBuffer>, JobError> {
    use crate::pipeline::so::SO_BUFFER_SLOTS;
    let mut out: Vec<BoundSoBuffer> = Vec::with_capacity(dsec.stream_output_buffer.len().min(8));
    for (i, e) in dsec.stream_output_buffer.iter().enumerate() {
        let name = format!("[[draw.stream_output_buffer]] #{}", i + 1);
        if e.slot as usize >= SO_BUFFER_SLOTS {
            return Err(draw_err(
                &name,
                format!(
                    "`slot` {}: D3D12 has stream-output slots 0 to {}",
                    e.slot,
                    SO_BUFFER_SLOTS - 1
                ),
            ));
        }
        if let Some(other) = out.iter().find(|b| b.slot == e.slot) {
            return Err(draw_err(
                &name,
                format!("`slot` {}: already given by {}", e.slot, other.name),
            ));
        }
        if e.size == 0 {
            return Err(draw_err(&name, "`size` 0: give the view's bytes"));
        }
        let offset = e.offset.unwrap_or(0);
        let total = offset
            .checked_add(e.size)
            .ok_or_else(|| draw_err(&name, "`offset` + `size` overflows"))?;
        let filled = e.filled_size.unwrap_or(0);
        if u64::from(filled) > e.size {
            return Err(draw_err(
                &name,
                format!(
                    "`filled_size` {filled} is past the view's `size` {}",
                    e.size
                ),
            ));
        }
        memory.take(&name, total.saturating_add(4))?;
        let data = Memory::zeroed(total).map_err(|m| draw_err(&name, m.to_string()))?;
        if let Some(w) = e.fill_u32 {
            data.fill_words(w);
        }
        let counter = Memory::zeroed(4).map_err(|m| draw_err(&name, m.to_string()))?;
        counter.store_u32(0, filled);
        let output = match &e.output {
            Some(p) => Some(
                gate.place(&super::resolve(dir, p))
                    .map_err(|m| draw_err(&name, format!("`output`: {m}")))?,
            ),
            None => None,
        };
        out.push(BoundSoBuffer {
            name,
            slot: e.slot,
            stride: e.stride,
            memory: data,
            offset,
            size: e.size,
            filled_size: counter,
            output,
        });
    }
    Ok(out)
}

/// The draw's stream-output state: `[draw]`'s declaration and rasterized stream (the
/// parser a command list's draws use) with `buffers` bound by slot; a slot with no
/// buffer has stride 0 and no view (a null `D3D12_STREAM_OUTPUT_BUFFER_VIEW`).
fn stream_output_state(
    dsec: &d::DrawSection,
    buffers: &[BoundSoBuffer],
) -> Result<crate::pipeline::so::StreamOutput, JobError> {
    use crate::pipeline::so::SoBufferView;
    let slots = buffers
        .iter()
        .map(|b| b.slot as usize + 1)
        .max()
        .unwrap_or(0);
    let mut strides = vec![0; slots];
    let mut views = vec![None; slots];
    for b in buffers {
        strides[b.slot as usize] = b.stride;
        views[b.slot as usize] = Some(SoBufferView {
            data: b.memory.clone(),
            offset: b.offset,
            size: b.size,
            filled_size: Some((b.filled_size.clone(), 0)),
        });
    }
    Ok(crate::pipeline::so::StreamOutput {
        desc: d::stream_output_desc(dsec, strides)?,
        buffers: views,
    })
}

fn buffer_bytes(
    name: &str,
    spec: &super::schema::DataSpec,
    offset: Option<u64>,
    dir: &Path,
    memory: &mut MemoryBudget,
) -> Result<Memory, JobError> {
    if spec.fill_u32.is_some() {
        return Err(draw_err(
            name,
            "`data`: give the bytes (fill_u32 needs a size)",
        ));
    }
    let bytes = data::bytes(spec, dir, memory.left()).map_err(|m| draw_err(name, m))?;
    let skip = offset.unwrap_or(0);
    if skip > bytes.len() as u64 {
        return Err(draw_err(
            name,
            format!("`offset` {skip} is past the data's {} bytes", bytes.len()),
        ));
    }
    let rest = bytes.get(skip as usize..).unwrap_or(&[]);
    // The buffer is kept; the bytes read are held while it is made.
    memory.take(name, rest.len() as u64)?;
    memory.transient(name, bytes.len() as u64, "its data, copied in")?;
    Memory::from_bytes(rest).map_err(|m| draw_err(name, m.to_string()))
}

/// Keeps the times type in the summary's public vocabulary.
pub type Times = StageTimes;
