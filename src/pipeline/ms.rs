//! The mesh stage: mesh thread groups, launched by a `DispatchMesh` call or by the
//! amplification stage, whose output arrays become the primitives the rasterizer draws.
//!
//! Owns: running the mesh groups in D3D's order with their payload, reading each
//! group's counts, index tuples, vertex and primitive outputs when it ends, the mesh
//! shader spec's rules on them, and linking the mesh outputs with the pixel program by
//! semantic. Does not own: what happens to the primitives after (`clip`, `setup`, the
//! tiles), the amplification groups (`amplification`), or how a group's waves run
//! (`exec`, which records the outputs in the group's memory, `ir::MeshRegion`).
//!
//! # Rules (DirectX-Specs, Mesh Shader)
//!
//! - **Counts** ("SetMeshOutputCounts"): a group that never calls `SetMeshOutputCounts`
//!   outputs nothing. Counts above the declared array sizes, a thread's second call, an
//!   output written before the call or at an index not below the counts are undefined
//!   behaviour there; here each is an error naming the program, the group, the thread
//!   and the value. A call made by some of the group's threads and not others (divergent
//!   flow control, undefined there) is an error too.
//! - **Indices** ("Rendering of the mesh", rules A): a primitive whose vertex index is
//!   not below the vertex count is dropped.
//! - **`SV_CullPrimitive`** ("SV_CullPrimitive"): a primitive whose flag is true is not
//!   drawn.
//! - **`SV_PrimitiveID`** ("SV_PrimitiveID in the Pixel Shader"): the pixel stage reads
//!   the mesh program's per-primitive `SV_PrimitiveID`; there is no generated one, so a
//!   pixel program reading it needs the mesh program to write it.
//! - **Order** ("Rasterization order"): without an amplification program, group
//!   (x, y, z) in x-then-y-then-z order; within a group, primitive index order.
//! - **Linking** ("Signature Linkage"): pixel inputs match mesh outputs by semantic name
//!   and index (system values by kind), not by register; per-primitive attributes are
//!   constant over their primitive.
//!
//! The primitives leave the stage as vertex records of the mesh program's vertex words
//! followed by the primitive's words, one record per vertex of each primitive, so the
//! rest of the pipeline reads per-primitive attributes as vertex words that every vertex
//! of the primitive shares.

use super::amplification::{self, Launch};
use super::dispatch::{Bindings, thread_layout};
use super::draw::{StageWrites, WaveWrites};
use super::gs::GsOut;
use super::ia::PrimKind;
use super::link::{LinkError, Linked, PsSource};
use super::plan::{Plan, ProgramWaveSize};
use super::trace::{StageGroup, TraceAt};
use super::vs::VertexOutputs;
use super::work::LaneSelect;
use crate::exec::{
    DescriptorTable, ExecError, GroupHooks, GroupRunner, Invocation, MemWrite, Program, RunBudget,
    WriteSink,
};
use crate::ir::{ComponentType, Interp, IoElement, MeshFault, MeshTopology, Shader, SysValue};

/// A mesh draw: `DispatchMesh(groups)` with a mesh program and, optionally, an
/// amplification program (D3D12's `DispatchMesh` with a mesh pipeline state).
#[derive(Clone, Copy)]
pub struct MeshDraw<'a> {
    /// The mesh program and its resources.
    pub ms: (&'a Shader, &'a Bindings),
    /// The amplification program and its resources, when the pipeline has one.
    pub amplification: Option<(&'a Shader, &'a Bindings)>,
    /// The thread groups `DispatchMesh` launches (of the amplification program when
    /// there is one, else of the mesh program).
    pub groups: [u32; 3],
}

/// What the mesh front of a draw did.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct MeshStats {
    /// Amplification groups run.
    pub amplification_groups: u64,
    /// Mesh groups run.
    pub mesh_groups: u64,
    /// Lane-instructions of the amplification stage.
    pub amplification_lane_instructions: u64,
    /// Lane-instructions of the mesh stage.
    pub mesh_lane_instructions: u64,
    /// Primitives the mesh groups output (before culling and dropping).
    pub primitives: u64,
    /// Primitives dropped for a vertex index not below the vertex count.
    pub dropped: u64,
    /// Primitives culled by `SV_CullPrimitive`.
    pub culled: u64,
    /// What the native engine compiled of each program (`as: jit: …`, `ms: jit: …`), and
    /// the seconds it took; empty under the interpreter.
    pub jit: Vec<(String, f64)>,
}

/// The primitive kind of a mesh program's topology.
pub fn prim_kind(t: MeshTopology) -> PrimKind {
    match t {
        MeshTopology::Line => PrimKind::Line,
        MeshTopology::Triangle => PrimKind::Triangle,
    }
}

fn err(message: String) -> ExecError {
    ExecError::Dispatch(message)
}

/// Links the mesh program's outputs with the pixel program by semantic (see the module
/// doc): the rasterizer's words in the vertex records, and each pixel input's source.
pub fn link(ms: &Shader, ps: Option<&Shader>) -> Result<Linked, LinkError> {
    let m = ms
        .mesh
        .ok_or_else(|| LinkError(format!("the mesh program is a {} program", ms.stage)))?;
    let pos = ms
        .outputs
        .iter()
        .find(|o| o.sv == SysValue::Position && o.mask == 0xf)
        .ok_or_else(|| {
            LinkError("the mesh program does not write SV_Position.xyzw to its vertices".into())
        })?;
    let position = [0, 1, 2, 3].map(|c| pos.word(0, c));
    let words_of = |sv: SysValue| -> Vec<u32> {
        let mut v = Vec::new();
        for o in ms.outputs.iter().filter(|o| o.sv == sv) {
            for r in 0..o.rows {
                for c in 0..4 {
                    if o.mask & (1 << c) != 0 {
                        v.push(o.word(r, c));
                    }
                }
            }
        }
        v
    };
    let mut ps_inputs = Vec::new();
    let mut per_sample = false;
    if let Some(ps) = ps {
        ps_inputs = vec![PsSource::Zero; ps.input_words as usize];
        for e in &ps.inputs {
            per_sample |= e.sv == SysValue::SampleIndex || e.interp.per_sample();
            for r in 0..e.rows {
                for c in 0..4u32 {
                    if e.mask & (1 << c) == 0 {
                        continue;
                    }
                    let src = ps_source(ms, m.primitive_words, e, r, c)?;
                    if let Some(slot) = ps_inputs.get_mut(e.word(r, c) as usize) {
                        *slot = src;
                    }
                }
            }
        }
    }
    let _ = m;
    Ok(Linked {
        vs_inputs: Vec::new(),
        gs_inputs: Vec::new(),
        ps_inputs,
        position,
        clip_distances: words_of(SysValue::ClipDistance),
        cull_distances: words_of(SysValue::CullDistance),
        per_sample,
    })
}

/// The output element a pixel input element links to: the same system value, or for
/// arbitrary semantics the same name (any case), with its index range covering `index`.
fn find<'s>(list: &'s [IoElement], e: &IoElement, index: u32) -> Option<(&'s IoElement, u32)> {
    list.iter().find_map(|o| {
        let same = match e.sv {
            SysValue::None => {
                o.sv == SysValue::None && o.semantic.eq_ignore_ascii_case(&e.semantic)
            }
            sv => o.sv == sv,
        };
        (same && (o.semantic_index..o.semantic_index + o.rows).contains(&index))
            .then(|| (o, index - o.semantic_index))
    })
}

fn ps_source(
    ms: &Shader,
    _prim_words: u32,
    e: &IoElement,
    r: u32,
    c: u32,
) -> Result<PsSource, LinkError> {
    let index = e.semantic_index + r;
    let found = find(&ms.outputs, e, index)
        .map(|(o, row)| (o, row, false))
        .or_else(|| find(&ms.primitive_outputs, e, index).map(|(o, row)| (o, row, true)));
    match e.sv {
        SysValue::Position => {
            return Ok(PsSource::Position {
                component: c as u8,
                interp: e.interp,
            });
        }
        SysValue::IsFrontFace => return Ok(PsSource::IsFrontFace),
        SysValue::SampleIndex => return Ok(PsSource::SampleIndex),
        SysValue::Coverage => return Ok(PsSource::Coverage),
        SysValue::InnerCoverage => return Ok(PsSource::InnerCoverage),
        SysValue::PrimitiveId => {
            return match found {
                Some((_, _, true)) => Ok(PsSource::PrimitiveId),
                _ => Err(LinkError(
                    "the pixel program reads SV_PrimitiveID, which the mesh program does not write as a primitive output (mesh shader spec, \"SV_PrimitiveID in the Pixel Shader\")".into(),
                )),
            };
        }
        SysValue::Barycentrics => {
            return Ok(PsSource::Barycentric {
                component: c as u8,
                perspective: !matches!(
                    e.interp,
                    Interp::LinearNoPerspective
                        | Interp::LinearNoPerspectiveCentroid
                        | Interp::LinearNoPerspectiveSample
                ),
            });
        }
        sv if sv.made_by_rasterizer() => return Ok(PsSource::Zero),
        _ => {}
    }
    let Some((o, row, per_primitive)) = found else {
        return Err(LinkError(format!(
            "the pixel program reads {}{index}, which the mesh program writes neither per vertex nor per primitive",
            e.semantic
        )));
    };
    // Components match by their place in the element (linking is not by register).
    let k = c - e.mask.trailing_zeros();
    let col = o.mask.trailing_zeros() + k;
    if col > 3 || o.mask & (1 << col) == 0 {
        return Err(LinkError(format!(
            "the pixel program reads {}.{} but the mesh program writes {}.{}",
            e.semantic_name(),
            crate::ir::io::mask_letters(e.mask),
            o.semantic_name(),
            crate::ir::io::mask_letters(o.mask)
        )));
    }
    if o.component != e.component {
        return Err(LinkError(format!(
            "{}: the mesh program writes {} but the pixel program reads {}",
            e.semantic_name(),
            o.component,
            e.component
        )));
    }
    let word = o.word(row, col);
    if per_primitive {
        // Constant over the primitive: every vertex record carries the same words.
        return Ok(PsSource::Vertex {
            word: ms.output_words + word,
            interp: Interp::Constant,
        });
    }
    let interp = if matches!(e.component, ComponentType::SInt | ComponentType::UInt) {
        Interp::Constant
    } else {
        match e.interp {
            Interp::Undefined => Interp::Linear,
            i => i,
        }
    };
    Ok(PsSource::Vertex { word, interp })
}

/// Words of one vertex record: the mesh program's vertex words and its primitive words.
pub fn record_words(ms: &Shader) -> u32 {
    ms.output_words + ms.mesh.map_or(0, |m| m.primitive_words)
}

/// Runs a mesh draw's amplification and mesh groups (see the module doc), appending
/// vertex records to `out` and primitives to `prims`, as view instance `view` (0
/// without view instancing). `take` counts bytes against the draw's memory limit
/// before they are allocated. `trace`, when given, runs the one amplification or mesh
/// group it names with the debug program, one wave traced (`trace::StageGroup`).
/// With `writes`, every other group's memory writes are reported, each named by its
/// amplification group and thread, or its mesh group and thread (and the amplification
/// group that launched it): amplification groups in grid order, then the mesh groups
/// launch by launch, each launch's in grid order, which is the order they run in.
#[allow(clippy::too_many_arguments)]
pub(crate) fn shade(
    d: &MeshDraw<'_>,
    plan: &Plan,
    view: u32,
    budget: &RunBudget,
    take: &mut dyn FnMut(&str, u64) -> Result<(), super::draw::DrawError>,
    out: &mut VertexOutputs,
    prims: &mut Vec<GsOut>,
    trace: Option<&StageGroup<'_>>,
    mut origins: Option<&mut Vec<MeshPrimOrigin>>,
    writes: Option<StageWrites<'_>>,
) -> Result<MeshStats, super::draw::DrawError> {
    let (ms, ms_bindings) = d.ms;
    let m = ms
        .mesh
        .filter(|_| ms.stage == crate::ir::Stage::Mesh)
        .ok_or_else(|| {
            err(format!(
                "the mesh program is a {} program; a mesh draw needs a mesh program",
                ms.stage
            ))
        })?;
    let mut stats = MeshStats::default();
    let who = match d.amplification {
        Some(_) => "the draw's amplification grid",
        None => "the draw's mesh grid",
    };
    let first = amplification::check_grid(d.groups, who)?;
    // The mesh program reads its view's SV_ViewID (`view_instancing`); an amplification
    // program cannot read one (DXIL.rst: `NA` in `ASIn`).
    let ms_program = prepare(plan, ms, ms_bindings)?.with_view_id(view);
    take("the mesh group's memory", ms_program.group_memory_bytes())?;
    let threads = ms_program.threads_per_group();
    budget.check_least(
        || format!("{first} groups of {threads} threads"),
        first.saturating_mul(threads as u64),
    )?;
    let mut launches: Vec<Launch> = Vec::new();
    if let Some((a, ab)) = d.amplification {
        let am = a
            .mesh
            .filter(|_| a.stage == crate::ir::Stage::Amplification)
            .ok_or_else(|| {
                err(format!(
                    "the amplification program is a {} program",
                    a.stage
                ))
            })?;
        if am.payload_bytes != m.payload_bytes {
            return Err(err(format!(
                "the amplification program's payload is {} bytes but the mesh program's is {} (mesh shader spec, \"Mesh Payload\": the sizes must match)",
                am.payload_bytes, m.payload_bytes
            ))
            .into());
        }
        let program = prepare(plan, a, ab)?;
        take(
            "the amplification group's memory",
            program.group_memory_bytes(),
        )?;
        let mut runner = GroupRunner::new(&program);
        for (k, g) in amplification::grid_order(d.groups).enumerate() {
            let words = (m.payload_bytes as u64).div_ceil(4) * 4 + 64;
            take("an amplification group's launch", words)?;
            let (launch, n) = match trace.map(|t| (t, t.at)) {
                Some((t, TraceAt::Amplification { group, .. })) if group == g => {
                    let (r, st) = t.run(g, &[])?;
                    let launch = amplification::read_launch(r.group_memory(), &program, g)?;
                    (launch, st.lane_instructions)
                }
                _ => {
                    let lane = |_: usize, w: &MemWrite| match w.invocation {
                        Invocation::Thread { group, thread } => LaneSelect::Amplification {
                            group: group.0,
                            thread: thread.0,
                        },
                        _ => LaneSelect::Amplification {
                            group: g,
                            thread: [0; 3],
                        },
                    };
                    let sink = writes.map(|to| WaveWrites {
                        to,
                        start: 0,
                        lane: &lane,
                    });
                    amplification::run_group(
                        &mut runner,
                        &program,
                        g,
                        sink.as_ref().map(|s| s as &dyn WriteSink),
                    )?
                }
            };
            stats.amplification_groups += 1;
            stats.amplification_lane_instructions += n;
            budget.charge(n).map_err(|spent| {
                budget.error(spent, k as u64 + 1, first, "amplification groups")
            })?;
            launches.push(launch);
        }
        if let Some(r) = program.jit_report() {
            stats
                .jit
                .push((format!("as: {r}"), r.compile_time.as_secs_f64()));
        }
    } else {
        launches.push(Launch {
            group: [0; 3],
            mesh_groups: d.groups,
            payload: Vec::new(),
        });
    }
    let total: u64 = launches
        .iter()
        .map(|l| l.mesh_groups.iter().map(|&g| u64::from(g)).product::<u64>())
        .sum();
    let mut runner = GroupRunner::new(&ms_program);
    let stride = record_words(ms) as usize;
    out.stride = stride;
    let mut done = 0u64;
    for l in &launches {
        for g in amplification::grid_order(l.mesh_groups) {
            let traced = match trace.map(|t| (t, t.at)) {
                Some((t, TraceAt::Mesh { launch, group, .. }))
                    if group == g && (d.amplification.is_none() || launch == Some(l.group)) =>
                {
                    Some(t.run(g, &l.payload)?)
                }
                _ => None,
            };
            let (st, mem) = match &traced {
                Some((r, st)) => (*st, r.group_memory()),
                None => {
                    let launch = d.amplification.map(|_| l.group);
                    let lane = |_: usize, w: &MemWrite| {
                        let thread = match w.invocation {
                            Invocation::Thread { thread, .. } => thread.0,
                            _ => [0; 3],
                        };
                        LaneSelect::Mesh {
                            launch,
                            group: g,
                            thread,
                        }
                    };
                    let sink = writes.map(|to| WaveWrites {
                        to,
                        start: 0,
                        lane: &lane,
                    });
                    let hooks = GroupHooks {
                        shared_init: &l.payload,
                        writes: sink.as_ref().map(|s| s as &dyn WriteSink),
                        ..GroupHooks::default()
                    };
                    let st = runner.run_with(g, hooks)?;
                    (st, runner.group_memory())
                }
            };
            done += 1;
            stats.mesh_groups += 1;
            stats.mesh_lane_instructions += st.lane_instructions;
            budget
                .charge(st.lane_instructions)
                .map_err(|spent| budget.error(spent, done, total, "mesh groups"))?;
            let launch = d.amplification.map(|_| l.group);
            collect(
                ms,
                &ms_program,
                mem,
                (launch, g, view),
                take,
                out,
                prims,
                &mut stats,
                origins.as_deref_mut(),
            )?;
        }
    }
    // After the groups, so that the report counts what the region code ran.
    if let Some(r) = ms_program.jit_report() {
        stats
            .jit
            .push((format!("ms: {r}"), r.compile_time.as_secs_f64()));
    }
    Ok(stats)
}

/// The mesh grid amplification group `group` of the draw launches, found by running
/// that group alone (amplification groups do not see each other's memory). Its
/// resource writes are made as the draw makes them: a caller that needs the starting
/// contents restores them.
pub fn launched_by(d: &MeshDraw<'_>, plan: &Plan, group: [u32; 3]) -> Result<[u32; 3], ExecError> {
    let Some((a, ab)) = d.amplification else {
        return Ok(d.groups);
    };
    let program = prepare(plan, a, ab)?;
    let mut runner = GroupRunner::new(&program);
    amplification::run_group(&mut runner, &program, group, None).map(|(l, _)| l.mesh_groups)
}

/// The traced group of a mesh draw: the debug program `debug` of the amplification or
/// mesh program `at` names, bound as the drawn one is, checked to have the drawn one's
/// thread group, memory layout and resources (so that the group's outputs read the
/// same way), to run by the interpreter (which is what reports each step).
pub(crate) fn trace_group<'a>(
    d: &MeshDraw<'a>,
    plan: &Plan,
    view: u32,
    hook: &'a (dyn super::trace::Hook + 'a),
    at: TraceAt,
    debug: &'a Shader,
) -> Result<StageGroup<'a>, ExecError> {
    let ((drawn, bindings), wave) = match at {
        TraceAt::Mesh { wave, .. } => (d.ms, wave),
        TraceAt::Amplification { wave, .. } => match d.amplification {
            Some(a) => (a, wave),
            None => {
                return Err(err(
                    "an amplification wave to trace, but the draw has no amplification program"
                        .into(),
                ));
            }
        },
        _ => return Err(err("not a mesh or amplification wave".into())),
    };
    if debug.stage != drawn.stage
        || debug.thread_group != drawn.thread_group
        || debug.groupshared_bytes != drawn.groupshared_bytes
        || debug.output_words != drawn.output_words
        || debug.mesh != drawn.mesh
        || debug.resources != drawn.resources
    {
        return Err(err(
            "the traced program has another stage, thread group, memory layout or resources than the drawn one".into(),
        ));
    }
    let program = prepare(plan, debug, bindings)?
        .with_engine(crate::exec::jit::Engine::Interp)
        .with_view_id(view);
    Ok(StageGroup::new(hook, at, program, wave as usize))
}

/// A group program ready to run under `plan` (waves of the program's size, threads laid
/// out as a compute group's).
fn prepare<'s>(plan: &Plan, s: &'s Shader, b: &Bindings) -> Result<Program<'s>, ExecError> {
    let wave = ProgramWaveSize::choose(s, plan.wave_size)?.get();
    let table = DescriptorTable::new(s, &b.ranges, &b.resource_heap, &b.sampler_heap)?;
    let (layout, _) = thread_layout(s.thread_group);
    Ok(
        Program::new(s, table, plan.profile.clone(), plan.limits, wave, layout)?
            .with_engine(plan.engine),
    )
}

/// A mesh group's thread from its flat index.
fn thread_of(tg: [u32; 3], t: u32) -> [u32; 3] {
    let (x, y) = (tg[0].max(1), tg[1].max(1));
    [t % x, (t / x) % y, t / (x * y)]
}

/// Reads one finished mesh group's outputs (see the rules in the module doc).
#[allow(clippy::too_many_arguments)]
fn collect(
    ms: &Shader,
    program: &Program<'_>,
    mem: &[u32],
    (launch, g, view): (Option<[u32; 3]>, [u32; 3], u32),
    take: &mut dyn FnMut(&str, u64) -> Result<(), super::draw::DrawError>,
    out: &mut VertexOutputs,
    prims: &mut Vec<GsOut>,
    stats: &mut MeshStats,
    mut origins: Option<&mut Vec<MeshPrimOrigin>>,
) -> Result<(), super::draw::DrawError> {
    let Some(m) = ms.mesh else { return Ok(()) };
    let threads = program.threads_per_group();
    let shared_words = (ms.groupshared_bytes as usize).div_ceil(4);
    let r = m.region(shared_words, threads, ms.output_words);
    let word = |i: usize| mem.get(i).copied().unwrap_or(0);
    let who = format!(
        "mesh program {}, group ({}, {}, {})",
        ms.entry, g[0], g[1], g[2]
    );
    if let Some(f) = MeshFault::from_code(word(r.base + 3)) {
        let value = word(r.base + 4);
        let [tx, ty, tz] = thread_of(ms.thread_group, word(r.base + 5));
        let what = match f {
            MeshFault::VerticesOverMax => format!(
                "SetMeshOutputCounts({value}, …) with more vertices than the {} the program declares",
                m.max_vertices
            ),
            MeshFault::PrimitivesOverMax => format!(
                "SetMeshOutputCounts(…, {value}) with more primitives than the {} the program declares",
                m.max_primitives
            ),
            MeshFault::CountsTwice => {
                "called SetMeshOutputCounts a second time (it may be called once)".into()
            }
            MeshFault::WriteBeforeCounts => format!(
                "wrote output element {value} before calling SetMeshOutputCounts (writes must follow it)"
            ),
            MeshFault::VertexIndex => format!(
                "wrote vertex {value}, not below the vertex count {}",
                word(r.base + 1)
            ),
            MeshFault::PrimitiveIndex => format!(
                "wrote primitive {value}, not below the primitive count {}",
                word(r.base + 2)
            ),
        };
        return Err(err(format!(
            "{who}, thread ({tx}, {ty}, {tz}): {what} (mesh shader spec, \"SetMeshOutputCounts\")"
        ))
        .into());
    }
    let called = (r.called..r.called + threads)
        .filter(|&i| word(i) != 0)
        .count();
    if called != 0 && called != threads {
        return Err(err(format!(
            "{who}: {called} of its {threads} threads called SetMeshOutputCounts (mesh shader spec, \"SetMeshOutputCounts\": not from divergent flow control)"
        ))
        .into());
    }
    if word(r.base) == 0 {
        return Ok(());
    }
    let (nv, np) = (word(r.base + 1), word(r.base + 2));
    let k = m.topology.indices() as usize;
    let vw = ms.output_words as usize;
    let pw = m.primitive_words as usize;
    let flag = |sv: SysValue| {
        ms.primitive_outputs
            .iter()
            .find(|e| e.sv == sv)
            .map(|e| e.slot + e.mask.trailing_zeros())
    };
    let (cull, id) = (flag(SysValue::CullPrimitive), flag(SysValue::PrimitiveId));
    let bytes = (np as u64) * (k as u64) * ((vw + pw) as u64) * 4;
    take("the mesh group's vertex records", bytes)?;
    for p in 0..np as usize {
        stats.primitives += 1;
        let pbase = r.primitives + p * pw;
        if cull.is_some_and(|w| word(pbase + w as usize) != 0) {
            stats.culled += 1;
            continue;
        }
        let idx: Vec<u32> = (0..k).map(|i| word(r.indices + 3 * p + i)).collect();
        if idx.iter().any(|&v| v >= nv) {
            stats.dropped += 1;
            continue;
        }
        if out.words.try_reserve(k * (vw + pw)).is_err() || prims.try_reserve(1).is_err() {
            return Err(err(format!("{who}: the system refused room for its vertices")).into());
        }
        let first = (out.words.len() / out.stride.max(1)) as u32;
        let mut v = [first; 3];
        for (i, &x) in idx.iter().enumerate() {
            let vb = r.vertices + x as usize * vw;
            out.words.extend((vb..vb + vw).map(word));
            out.words.extend((pbase..pbase + pw).map(word));
            v[i] = first + i as u32;
        }
        prims.push(GsOut {
            v,
            id: id.map_or(0, |w| word(pbase + w as usize)),
            stream: 0,
        });
        if let Some(o) = origins.as_deref_mut() {
            let mut vertices = [0; 3];
            for (d, s) in vertices.iter_mut().zip(&idx) {
                *d = *s;
            }
            if o.try_reserve(1).is_ok() {
                o.push(MeshPrimOrigin {
                    launch,
                    group: g,
                    prim: p as u32,
                    vertices,
                    count: k as u8,
                    view,
                });
            }
        }
    }
    Ok(())
}

/// Where a primitive a mesh draw drew came from: its mesh group and its place in it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct MeshPrimOrigin {
    /// The amplification group that launched the mesh group (`None`: no amplification
    /// program).
    pub launch: Option<[u32; 3]>,
    /// The mesh group.
    pub group: [u32; 3],
    /// The primitive's index in the group's primitive array.
    pub prim: u32,
    /// Its vertices' indices in the group's vertex array (the first `count`).
    pub vertices: [u32; 3],
    /// Vertices a primitive has (2 or 3).
    pub count: u8,
    /// The view whose pass drew it (its `SV_ViewID`; 0 without view instancing).
    pub view: u32,
}

/// The threads of a mesh group that wrote one primitive: its index tuple and
/// per-primitive outputs (`primitive`), and each of its vertices' outputs.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct MeshWriters {
    /// Threads (`SV_GroupThreadID`) that wrote the primitive's indices or attributes.
    pub primitive: Vec<[u32; 3]>,
    /// Per vertex of the primitive (in its order): the vertex index and the threads
    /// that wrote its outputs.
    pub vertices: Vec<(u32, Vec<[u32; 3]>)>,
}

/// Hears which lanes write a primitive's and its vertices' outputs.
struct WriterWatch<'s> {
    shader: &'s Shader,
    origin: MeshPrimOrigin,
    found: MeshWriters,
}

impl WriterWatch<'_> {
    fn note(list: &mut Vec<[u32; 3]>, t: [u32; 3]) {
        if !list.contains(&t) {
            list.push(t);
        }
    }
}

impl crate::exec::WaveObserver for WriterWatch<'_> {
    fn start(&mut self, _: &dyn crate::exec::WaveRead) {}
    fn step(
        &mut self,
        at: crate::exec::At,
        active: u128,
        helper: u128,
        wave: &dyn crate::exec::WaveRead,
        _: &[crate::exec::MemWrite],
    ) {
        use crate::ir::Inst;
        let crate::exec::At::Inst(id) = at else {
            return;
        };
        let (index, vertex) = match self.shader.insts.get(id.index()) {
            Some(Inst::MeshIndices { prim, .. }) | Some(Inst::MeshPrimOut { prim, .. }) => {
                (*prim, false)
            }
            Some(Inst::MeshVertexOut { vertex, .. }) => (*vertex, true),
            _ => return,
        };
        let lanes = active & !helper;
        for l in 0..wave.width().min(128) {
            if lanes >> l & 1 == 0 {
                continue;
            }
            let Some(&i) = wave.reg(index.0).get(l) else {
                continue;
            };
            let crate::exec::Invocation::Thread { thread, .. } = wave.invocation(l) else {
                continue;
            };
            if vertex {
                for (v, list) in self.found.vertices.iter_mut() {
                    if *v == i {
                        Self::note(list, thread.0);
                    }
                }
            } else if i == self.origin.prim {
                Self::note(&mut self.found.primitive, thread.0);
            }
        }
    }
    fn others(&mut self, _: &[crate::exec::MemWrite]) {}
}

/// The threads of mesh group `o.group` that wrote primitive `o.prim` and its vertices
/// (see [`MeshWriters`]), found by running that group again with `debug` (the mesh
/// program lowered without clean-up, so each output write is one instruction) once per
/// wave, watching each wave's output writes, with the `SV_ViewID` of the view whose
/// pass drew it (`o.view`); the amplification group that launched it runs first for
/// its payload. Each run makes the group's resource writes again: a
/// caller that needs the resources as the draw left them reads them first.
pub fn writers(
    d: &MeshDraw<'_>,
    plan: &Plan,
    o: &MeshPrimOrigin,
    debug: &Shader,
) -> Result<MeshWriters, ExecError> {
    let payload = match (d.amplification, o.launch) {
        (Some((a, ab)), Some(l)) => {
            let program = prepare(plan, a, ab)?;
            let mut runner = GroupRunner::new(&program);
            amplification::run_group(&mut runner, &program, l, None)?
                .0
                .payload
        }
        _ => Vec::new(),
    };
    let program = prepare(plan, debug, d.ms.1)?
        .with_engine(crate::exec::jit::Engine::Interp)
        .with_view_id(o.view);
    let threads = program.threads_per_group();
    let w = (program.wave_size() as usize).max(1);
    let mut watch = WriterWatch {
        shader: debug,
        origin: *o,
        found: MeshWriters {
            primitive: Vec::new(),
            vertices: o
                .vertices
                .iter()
                .take(usize::from(o.count))
                .map(|&v| (v, Vec::new()))
                .collect(),
        },
    };
    for wave in 0..threads.div_ceil(w) {
        let mut runner = GroupRunner::new(&program);
        runner.run_with(
            o.group,
            GroupHooks {
                writes: None,
                observe: Some((wave, &mut watch)),
                shared_init: &payload,
            },
        )?;
    }
    Ok(watch.found)
}
