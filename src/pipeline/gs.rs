//! The geometry stage: the geometry program run once per input primitive and instance,
//! and what it emits turned into the points, lines and triangles the rasterizer draws.
//!
//! Owns: the geometry program's lanes (which primitive and instance each runs), filling
//! their input words from the vertex outputs (through the link's `gs_inputs`), the
//! primitive's `SV_PrimitiveID` and `SV_GSInstanceID`, collecting every lane's emitted
//! vertices, and restarting the output strips into lists. Does not own: which vertices a
//! primitive has (`ia`), what the vertex stage computed (`vs`), linking (`link`), or
//! what happens to the primitives after (`clip`, `setup`).
//!
//! # Rules (D3D11.3 §13 "Geometry Shader Stage")
//!
//! - **Invocations.** The program runs once per input primitive and per `[instance(n)]`
//!   instance, `SV_GSInstanceID` counting 0 … n − 1; `SV_PrimitiveID` is the input
//!   primitive's number in its draw instance (`ia::Primitive::id`).
//! - **Order.** Primitives leave the stage in input order; the instances of one input
//!   primitive in instance order; each invocation's own in the order it emitted them.
//!   Lane `k` of the stage is primitive `k / n`, instance `k % n`, so collecting the
//!   lanes in order gives that order.
//! - **Emission.** `emit` appends a vertex to a stream's current strip, `cut` ends it;
//!   an invocation's strips also end when it returns. A vertex past `maxvertexcount`
//!   (counted over all streams) is dropped (`exec::Emits`).
//! - **Strips into lists.** A point list makes a point per vertex; a line strip a line
//!   per vertex after the first of its strip; a triangle strip a triangle per vertex
//!   after the second, triangle `k` of the strip `(k, k+1, k+2)` for even `k` and
//!   `(k, k+2, k+1)` for odd `k`, so each keeps the strip's winding and its leading
//!   vertex first (D3D11.3 §8 "Primitive Topologies", which the stage's output strips
//!   follow). Strips too short for a primitive make none.
//! - **Streams.** Each stream has strips of its own (`cut` on one stream ends only its
//!   strip); the stage keeps the primitives of the streams the draw asks for (the
//!   rasterized stream, 0 without stream output, and the streams stream output writes:
//!   `so`), each tagged with its stream, in emission order; the others are dropped.
//! - **Output registers after an emit.** The `emit` reference page makes them undefined;
//!   dxlane keeps their values (no WARP behaviour is documented; a program written for
//!   D3D writes every output before each emit and cannot tell).
//! - **`SV_PrimitiveID` downstream.** When the geometry program writes `SV_PrimitiveID`,
//!   the pixel stage reads the value of the primitive's first vertex; otherwise the
//!   input primitive's id.

use super::draw::{StageWrites, WaveWrites};
use super::ia::PrimKind;
use super::trace::{StageWaves, TraceProgram};
use super::vs::VertexOutputs;
use super::work::LaneSelect;
use crate::exec::{ExecError, MemWrite, StageProgram, WriteSink};
use crate::ir::{GeometryState, GsOutput, IoElement, Shader, Stage, SysValue};

/// One input primitive of the geometry stage.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GsPrimitive {
    /// Its vertices as indices into the vertex outputs, in the order the program reads
    /// them (the first `GsInput::vertices` are used).
    pub vertices: [u32; 6],
    /// `SV_PrimitiveID`.
    pub id: u32,
}

/// A primitive the geometry stage made: indices into its output vertices, leading
/// vertex first, and the `SV_PrimitiveID` the pixel stage reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct GsOut {
    /// The vertices (only the first `kind.vertices()` are used).
    pub v: [u32; 3],
    /// `SV_PrimitiveID`.
    pub id: u32,
    /// The stream it was emitted on.
    pub stream: u32,
}

/// What the stage reads besides the program.
pub struct GsJob<'a> {
    /// The input primitives.
    pub prims: &'a [GsPrimitive],
    /// The vertex stage's outputs.
    pub vertices: &'a VertexOutputs,
    /// Per input word of one input vertex, the vertex output word feeding it.
    pub sources: &'a [Option<u32>],
    /// The streams whose primitives to keep (bit `s`: stream `s`).
    pub streams: u8,
}

/// The output elements of stream `stream` of `last`, the stage feeding the rasterizer
/// and stream output: a geometry program's stream as `Shader::stream_outputs` lists it
/// (a DXBC program's streams share the output registers and their words; a DXIL
/// program's each have signature rows from 0 and words of their own); stream 0 of any
/// other program, or of a geometry program that lists none, is its `outputs`.
pub fn stream_elements(last: &Shader, stream: u32) -> Vec<&IoElement> {
    if last.stage == Stage::Geometry && !last.stream_outputs.is_empty() {
        last.stream_outputs
            .iter()
            .filter(|(k, _)| *k == stream)
            .map(|(_, e)| e)
            .collect()
    } else if stream == 0 {
        last.outputs.iter().collect()
    } else {
        Vec::new()
    }
}

/// The kind of primitive an output topology makes.
pub fn out_kind(o: GsOutput) -> PrimKind {
    match o {
        GsOutput::PointList => PrimKind::Point,
        GsOutput::LineStrip => PrimKind::Line,
        GsOutput::TriangleStrip => PrimKind::Triangle,
    }
}

/// The most bytes of emitted vertices `prims` input primitives can make: every
/// invocation emitting `max_vertices` vertices of `output_words` words. The draw counts
/// it against its memory limit before the stage runs.
pub fn most_output_bytes(g: &GeometryState, output_words: u32, prims: u64) -> u64 {
    prims
        .saturating_mul(u64::from(g.instances))
        .saturating_mul(u64::from(g.max_vertices))
        .saturating_mul(u64::from(output_words))
        .saturating_mul(4)
}

/// Builds the lists of one invocation's strip on the rasterized stream: `strip` holds
/// the output vertex indices since the last cut; a new vertex `v` completes a primitive
/// when the strip is long enough.
fn restart(kind: PrimKind, strip: &[u32], v: u32, id: u32, stream: u32, out: &mut Vec<GsOut>) {
    match kind {
        PrimKind::Point => out.push(GsOut {
            v: [v; 3],
            id,
            stream,
        }),
        PrimKind::Line => {
            if let Some(&a) = strip.last() {
                out.push(GsOut {
                    v: [a, v, v],
                    id,
                    stream,
                });
            }
        }
        PrimKind::Triangle => {
            let n = strip.len();
            if n >= 2 {
                let (a, b) = (strip[n - 2], strip[n - 1]);
                // Triangle k = n − 2 of the strip; odd ones swap their last two.
                let v3 = if (n - 2) % 2 == 0 {
                    [a, b, v]
                } else {
                    [a, v, b]
                };
                out.push(GsOut { v: v3, id, stream });
            }
        }
    }
}

/// Input primitives' lanes per unit of work when the stage runs on several workers: a
/// multiple of every wave size, large enough that a worker's share of the emitted
/// vertices is copied once in a long run.
const CHUNK: usize = 4096;

/// What every wave of one draw's geometry stage reads besides its lanes.
struct Layout<'j> {
    job: &'j GsJob<'j>,
    stride: usize,
    kind: PrimKind,
    nverts: usize,
    vw: usize,
    prim_word: Option<usize>,
    inst_word: Option<usize>,
    out_prim_word: [Option<u32>; 4],
    instances: usize,
}

/// Where a range of the stage's lanes puts the vertices it emits.
enum Dest<'a> {
    /// At the end of the stage's vertex list (one range on one thread): vertex `v` is
    /// at word `v × stride`.
    Append(&'a mut Vec<u32>),
    /// In place in the range's own region of the list, room for `maxvertexcount` a lane
    /// (several ranges at once): vertex `first + k` is at word `k × stride` of `words`.
    Region {
        words: &'a mut [u32],
        first: u32,
        used: usize,
    },
}

impl Dest<'_> {
    /// Puts a vertex's words (padded with zeros to `stride`); its index, or `None` when
    /// a region is full (it never is: the program emits at most `maxvertexcount`).
    fn push(&mut self, vwords: &[u32], stride: usize) -> Option<u32> {
        match self {
            Dest::Append(words) => {
                let v = words.len() / stride.max(1);
                words.extend_from_slice(vwords);
                words.resize(v * stride + stride, 0);
                Some(v as u32)
            }
            Dest::Region { words, first, used } => {
                let slot = words.get_mut(*used * stride..(*used + 1) * stride)?;
                let n = vwords.len().min(stride);
                slot[..n].copy_from_slice(&vwords[..n]);
                slot[n..].fill(0);
                let v = first.checked_add(u32::try_from(*used).ok()?)?;
                *used += 1;
                Some(v)
            }
        }
    }

    /// Word `w` of vertex `v` (0 past what was put).
    fn word(&self, v: u32, w: usize, stride: usize) -> u32 {
        let (words, k) = match self {
            Dest::Append(words) => (&words[..], v as usize),
            Dest::Region { words, first, .. } => (&words[..], v.wrapping_sub(*first) as usize),
        };
        words.get(k * stride + w).copied().unwrap_or(0)
    }
}

/// Runs the geometry program over every primitive of `job` and instance, appending the
/// rasterized stream's vertices to `out` (its `stride` set to the program's output
/// words) and the primitives they make to `prims`, in D3D's order (module doc). Each
/// wave's lane-instructions are charged through `charge`. Returns the lane-instructions
/// executed.
///
/// On `threads` > 1, a stage of several [`CHUNK`]s of lanes runs them on the workers:
/// each chunk puts its vertices in a region of `out` of its own (room for
/// `maxvertexcount` a lane, so the vertex indices have gaps where lanes emitted less) and
/// its primitives in a list of its own, the lists appended in lane order. The lanes are
/// independent (each reads its own primitive and emits its own strips), so the same
/// primitives leave the stage, with the same vertex words, for any number of workers.
///
/// With `trace` = (the debugger's program, lane `k`), the wave holding the stage's lane
/// `k` (input primitive `k / instances`, `SV_GSInstanceID` `k % instances`) runs the debug
/// program — the same program lowered without clean-up, of the same wave size — through
/// the traced loop; what it emits is collected as a normal wave's. With `origins`, each
/// vertex appended to `out` pushes the stage lane that emitted it. With `writes`, the
/// other waves' memory writes are reported, each named by its input primitive and
/// `SV_GSInstanceID`. Those three run on this thread alone.
#[allow(clippy::too_many_arguments)]
pub(crate) fn shade(
    program: &StageProgram<'_>,
    job: &GsJob<'_>,
    threads: usize,
    out: &mut VertexOutputs,
    prims: &mut Vec<GsOut>,
    trace: Option<(&TraceProgram<'_>, usize)>,
    origins: Option<&mut Vec<u32>>,
    charge: &(dyn Fn(u64) -> Result<(), ExecError> + Sync),
    writes: Option<StageWrites<'_>>,
) -> Result<u64, ExecError> {
    let s: &Shader = program.shader();
    let Some(g) = s.geometry else {
        return Err(ExecError::Dispatch(
            "a geometry program without its geometry state".into(),
        ));
    };
    let stride = s.output_words as usize;
    out.stride = stride;
    let layout = Layout {
        job,
        stride,
        kind: out_kind(g.output),
        nverts: g.input.vertices() as usize,
        vw: g.vertex_words as usize,
        prim_word: s.input_sv(SysValue::PrimitiveId).map(|e| e.slot as usize),
        inst_word: s.input_sv(SysValue::GsInstanceId).map(|e| e.slot as usize),
        // Each stream's own `SV_PrimitiveID` word (a DXIL program's streams have their own).
        out_prim_word: std::array::from_fn(|k| {
            stream_elements(s, k as u32)
                .iter()
                .find(|e| e.sv == SysValue::PrimitiveId)
                .map(|e| e.slot)
        }),
        instances: g.instances as usize,
    };
    let lanes_total = job.prims.len() * layout.instances;
    let chunks = lanes_total.div_ceil(CHUNK);
    let workers = threads.min(chunks);
    if workers <= 1
        || trace.is_some()
        || origins.is_some()
        || writes.is_some()
        || stride == 0
        || g.max_vertices == 0
    {
        let mut waves = StageWaves::new(program, lanes_total, trace)?;
        let mut dest = Dest::Append(&mut out.words);
        let lanes = (0, lanes_total);
        let mut executed = 0;
        shade_lanes(
            &layout,
            &mut waves,
            lanes,
            (&mut dest, prims, &mut executed),
            origins,
            charge,
            writes,
        )?;
        return Ok(executed);
    }
    use std::sync::Mutex;
    use std::sync::atomic::{AtomicBool, Ordering};
    // Each chunk's region: room for `maxvertexcount` vertices a lane, after the vertices
    // already there, in zeroed memory that only the chunk's worker touches (counted
    // against the draw's memory with the stage's most output). Vertex indices are
    // positions, so the room a lane leaves unused is never read.
    let maxv = g.max_vertices as usize;
    let per_chunk = CHUNK.saturating_mul(maxv).saturating_mul(stride);
    let first = out.words.len() / stride.max(1);
    let room = lanes_total
        .checked_mul(maxv)
        .and_then(|n| n.checked_mul(stride))
        .and_then(|n| n.checked_add(first * stride))
        .ok_or_else(refused)?;
    let mut words: Vec<u32> = bytemuck::allocation::try_zeroed_vec(room).map_err(|_| refused())?;
    words[..first * stride].copy_from_slice(&out.words[..first * stride]);
    let (_, regions) = words.split_at_mut(first * stride);
    let queue: Mutex<Vec<(usize, &mut [u32])>> = Mutex::new(
        regions
            .chunks_mut(per_chunk.max(1))
            .enumerate()
            .rev()
            .collect(),
    );
    let stop = AtomicBool::new(false);
    type Part = (usize, Result<(Vec<GsOut>, u64), ExecError>);
    let parts: Mutex<Vec<Part>> = Mutex::new(Vec::new());
    let worker = || -> Result<(), ExecError> {
        let mut waves = StageWaves::new(program, lanes_total, None)?;
        loop {
            if stop.load(Ordering::Relaxed) {
                return Ok(());
            }
            let next = queue.lock().unwrap_or_else(|p| p.into_inner()).pop();
            let Some((c, region)) = next else {
                return Ok(());
            };
            let range = (c * CHUNK, ((c + 1) * CHUNK).min(lanes_total));
            let mut dest = Dest::Region {
                words: region,
                first: u32::try_from(first + c * CHUNK * maxv).map_err(|_| refused())?,
                used: 0,
            };
            let mut listed = Vec::new();
            let mut executed = 0;
            let run = listed
                .try_reserve_exact((range.1 - range.0).saturating_mul(maxv))
                .map_err(|_| refused())
                .and_then(|()| {
                    shade_lanes(
                        &layout,
                        &mut waves,
                        range,
                        (&mut dest, &mut listed, &mut executed),
                        None,
                        charge,
                        None,
                    )
                })
                .map(|()| (listed, executed));
            if run.is_err() {
                stop.store(true, Ordering::Relaxed);
            }
            parts
                .lock()
                .unwrap_or_else(|p| p.into_inner())
                .push((c, run));
        }
    };
    let started: Vec<Result<(), ExecError>> = std::thread::scope(|sc| {
        let handles: Vec<_> = (1..workers).map(|_| sc.spawn(worker)).collect();
        let mut started = vec![worker()];
        for h in handles {
            started.push(h.join().unwrap_or_else(|e| std::panic::resume_unwind(e)));
        }
        started
    });
    let mut parts = parts.into_inner().unwrap_or_else(|p| p.into_inner());
    parts.sort_by_key(|p| p.0);
    // The first failure in lane order is the stage's, as on one worker.
    let mut ok = Vec::with_capacity(parts.len());
    for (_, part) in parts {
        ok.push(part?);
    }
    if let Some(e) = started.into_iter().find_map(Result::err) {
        return Err(e);
    }
    let listed: usize = ok.iter().map(|p| p.0.len()).sum();
    prims.try_reserve(listed).map_err(|_| refused())?;
    let mut executed = 0u64;
    for (list, n) in ok {
        prims.extend_from_slice(&list);
        executed += n;
    }
    out.words = words;
    Ok(executed)
}

fn refused() -> ExecError {
    ExecError::Dispatch(
        "the geometry stage's emitted vertices: the system refused the memory".into(),
    )
}

/// Runs lanes `lo..hi` of the stage, putting the vertices they emit in `dest` and
/// appending the primitives they make to `listed`, adding their lane-instructions to
/// `executed`.
#[allow(clippy::too_many_arguments)]
fn shade_lanes(
    l: &Layout<'_>,
    waves: &mut StageWaves<'_>,
    (lo, hi): (usize, usize),
    (dest, listed, executed): (&mut Dest<'_>, &mut Vec<GsOut>, &mut u64),
    mut origins: Option<&mut Vec<u32>>,
    charge: &dyn Fn(u64) -> Result<(), ExecError>,
    writes: Option<StageWrites<'_>>,
) -> Result<(), ExecError> {
    let (job, stride, instances) = (l.job, l.stride, l.instances);
    let w = waves.wave_size();
    let mut strips: [Vec<u32>; 4] = Default::default();
    // Per wave: where each record's vertex words start, and the records lane by lane.
    let mut first_word = Vec::new();
    let mut by_lane: Vec<u32> = Vec::new();
    let mut lane_end: Vec<u32> = Vec::new();
    let mut start = lo;
    while start < hi {
        let n = (hi - start).min(w);
        let mut wave = waves.wave(start, n);
        let runner = &mut *wave.runner;
        {
            let inputs = runner.inputs_mut();
            for ln in 0..n {
                let k = start + ln;
                let (p, i) = (&job.prims[k / instances], k % instances);
                for (j, &v) in p.vertices.iter().take(l.nverts).enumerate() {
                    for (word, src) in job.sources.iter().enumerate().take(l.vw) {
                        let x = src.map_or(0, |o| job.vertices.word(v, o));
                        if let Some(d) = inputs.get_mut((j * l.vw + word) * w + ln) {
                            *d = x;
                        }
                    }
                }
                if let Some(pw) = l.prim_word
                    && let Some(d) = inputs.get_mut(pw * w + ln)
                {
                    *d = p.id;
                }
                if let Some(iw) = l.inst_word
                    && let Some(d) = inputs.get_mut(iw * w + ln)
                {
                    *d = i as u32;
                }
            }
        }
        for ln in 0..n {
            let k = start + ln;
            runner.set_ids(ln, [job.prims[k / instances].id, (k % instances) as u32, 0]);
        }
        // Stage lane k is input primitive k / instances, SV_GSInstanceID k % instances.
        let lane = |k: usize, _: &MemWrite| LaneSelect::Geometry {
            prim: (k / instances) as u32,
            gs_instance: (k % instances) as u32,
            instance: writes.map_or(0, |w| w.instance),
        };
        let sink = writes.map(|to| WaveWrites {
            to,
            start,
            lane: &lane,
        });
        let run = wave.run(n, sink.as_ref().map(|s| s as &dyn WriteSink))?;
        let runner = &*wave.runner;
        charge(run.lane_instructions)?;
        *executed += run.lane_instructions;
        let (records, words) = runner.emitted();
        // The records are in execution order, each lane's own in its program order:
        // where each vertex's words start, then each lane's records in lane order
        // (a counting sort by lane keeps each lane's own order).
        first_word.clear();
        let mut next = 0usize;
        for r in records {
            if r.cut {
                first_word.push(usize::MAX);
            } else {
                first_word.push(next * stride);
                next += 1;
            }
        }
        lane_end.clear();
        lane_end.resize(n + 1, 0);
        for r in records {
            if let Some(c) = lane_end.get_mut(r.lane as usize + 1) {
                *c += 1;
            }
        }
        for k in 1..lane_end.len() {
            lane_end[k] += lane_end[k - 1];
        }
        by_lane.clear();
        by_lane.resize(lane_end[n] as usize, 0);
        {
            let mut at = lane_end.clone();
            for (i, r) in records.iter().enumerate() {
                if let Some(a) = at.get_mut(r.lane as usize) {
                    if let Some(slot) = by_lane.get_mut(*a as usize) {
                        *slot = i as u32;
                    }
                    *a += 1;
                }
            }
        }
        for ln in 0..n {
            let id_in = job.prims[(start + ln) / instances].id;
            for s in &mut strips {
                s.clear();
            }
            for &i in &by_lane[lane_end[ln] as usize..lane_end[ln + 1] as usize] {
                let (r, fw) = (&records[i as usize], first_word[i as usize]);
                if r.stream >= 4 || job.streams & (1 << r.stream) == 0 {
                    continue;
                }
                let Some(strip) = strips.get_mut(r.stream as usize) else {
                    continue;
                };
                if r.cut {
                    strip.clear();
                    continue;
                }
                let vwords = words.get(fw..fw + stride).unwrap_or(&[]);
                let Some(v) = dest.push(vwords, stride) else {
                    continue;
                };
                if let Some(o) = origins.as_deref_mut() {
                    o.push((start + ln) as u32);
                }
                let before = listed.len();
                restart(l.kind, strip, v, id_in, u32::from(r.stream), listed);
                if let Some(pw) = l.out_prim_word[usize::from(r.stream)] {
                    for p in &mut listed[before..] {
                        p.id = dest.word(p.v[0], pw as usize, stride);
                    }
                }
                strip.push(v);
            }
        }
        start += n;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::exec::{DescriptorTable, Limits, Profile};
    use crate::ir::parse_shader;

    /// A geometry program reading triangles (one word `A` per vertex), with
    /// `SV_PrimitiveID` at word 12 and `SV_GSInstanceID` at word 16; it writes position
    /// x = `A` of the vertex it emits and `ID` = (primitive, instance). `body` follows.
    fn program(output: &str, max: u32, instances: u32, body: &str) -> Shader {
        parse_shader(&format!(
            "shader geometry\nregs 8\nconst r0 = 0x0\nio_words in 20 out 8\n\
input \"A\" 0 sv none reg 0 rows 1 mask x float interp undefined slot 0\n\
input \"SV_PrimitiveID\" 0 sv primitive_id reg none rows 1 mask x uint interp undefined slot 12\n\
input \"SV_GSInstanceID\" 0 sv gs_instance_id reg none rows 1 mask x uint interp undefined slot 16\n\
output \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0\n\
output \"ID\" 0 sv none reg 1 rows 1 mask xy uint interp undefined slot 4\n\
geometry input triangle output {output} max_vertices {max} instances {instances} vertex_words 4\n\
block0:\n    input r1, 12\n    input r2, 16\n    input r3, 0\n    input r4, 4\n    input r5, 8\n\
    output 4, r1\n    output 5, r2\n{body}    return\n"
        ))
        .unwrap()
    }

    /// Runs `gs` over primitives 7 (vertices 0, 1, 2) and 8 (vertices 3, 4, 5), whose
    /// `A` words are 10 × the vertex; returns the output vertices and primitives.
    fn run(gs: &Shader) -> (VertexOutputs, Vec<GsOut>) {
        let table = DescriptorTable::new(gs, &[], &[], &[]).unwrap();
        let p = StageProgram::new(gs, table, Profile::default(), Limits::default(), 8).unwrap();
        let vertices = VertexOutputs {
            words: (0..6u32).flat_map(|v| [v * 10, 0, 0, 0]).collect(),
            stride: 4,
        };
        let prims = [
            GsPrimitive {
                vertices: [0, 1, 2, 0, 0, 0],
                id: 7,
            },
            GsPrimitive {
                vertices: [3, 4, 5, 0, 0, 0],
                id: 8,
            },
        ];
        let job = GsJob {
            prims: &prims,
            vertices: &vertices,
            sources: &[Some(0), None, None, None],
            streams: 1,
        };
        let (mut out, mut list) = (VertexOutputs::default(), Vec::new());
        shade(
            &p,
            &job,
            1,
            &mut out,
            &mut list,
            None,
            None,
            &|_| Ok(()),
            None,
        )
        .unwrap();
        (out, list)
    }

    /// D3D11.3 §13: an invocation per primitive and instance, `SV_PrimitiveID` and
    /// `SV_GSInstanceID` their numbers; primitives leave in input order, instance by
    /// instance; a fifth emit past `maxvertexcount(4)` is dropped, and the four
    /// vertices' strip makes two triangles, the odd one reordered to keep the winding.
    #[test]
    fn invocations_in_order_with_ids_and_the_excess_dropped() {
        let emit = |r: &str| format!("    output 0, {r}\n    emit 0\n");
        let body = [emit("r3"), emit("r4"), emit("r5"), emit("r3"), emit("r4")].concat();
        let (out, prims) = run(&program("trianglestrip", 4, 2, &body));
        assert_eq!(
            out.words.len(),
            4 * 4 * 8,
            "16 vertices: the fifth emits dropped"
        );
        assert_eq!(prims.len(), 8);
        let ids: Vec<(u32, u32)> = prims
            .iter()
            .map(|p| (out.word(p.v[0], 4), out.word(p.v[0], 5)))
            .collect();
        assert_eq!(
            ids,
            vec![
                (7, 0),
                (7, 0),
                (7, 1),
                (7, 1),
                (8, 0),
                (8, 0),
                (8, 1),
                (8, 1)
            ]
        );
        assert!(prims.iter().all(|p| p.id == 7 || p.id == 8));
        let xs = |p: &GsOut| p.v.map(|v| out.word(v, 0));
        assert_eq!(xs(&prims[0]), [0, 10, 20]);
        assert_eq!(xs(&prims[1]), [10, 0, 20], "odd: (k, k+2, k+1)");
        assert_eq!(xs(&prims[4]), [30, 40, 50]);
    }

    /// A cut ends the strip: two vertices, a cut, three vertices make one line then two
    /// (line strip), one triangle (triangle strip), five points (point list); vertices
    /// of stream 1 are not rasterized.
    #[test]
    fn cuts_restart_strips_and_only_stream_0_is_rasterized() {
        let emit = |r: &str| format!("    output 0, {r}\n    emit 0\n");
        let body = [
            emit("r3"),
            emit("r4"),
            "    cut 0\n    emit 1\n".to_string(),
            emit("r3"),
            emit("r4"),
            emit("r5"),
        ]
        .concat();
        let count = |o: &str| run(&program(o, 8, 1, &body)).1.len();
        assert_eq!(count("linestrip"), 2 * 3);
        assert_eq!(count("trianglestrip"), 2);
        assert_eq!(count("pointlist"), 2 * 5);
    }

    /// The stage's order (module doc, D3D11.3 §13) does not depend on the workers: a
    /// stage of several `CHUNK`s of lanes whose invocations emit different numbers of
    /// vertices (with cuts, on two streams, over two instances) leaves the same vertices
    /// and primitives on 1, 2 and 3 workers, and every lane-instruction is counted.
    #[test]
    fn several_workers_emit_what_one_does() {
        // Lane-dependent emits: instance 1 of an odd primitive emits three vertices
        // before the cut, the others one.
        let body = "    and r6, r1, r2\n    output 0, r3\n    emit 0\n    icmp ne, r7, r6, r0\n    branch r7, block1, block2\nblock1:\n    output 0, r4\n    emit 0\n    output 0, r5\n    emit 0\n    jump block2\nblock2:\n    cut 0\n    output 0, r5\n    emit 0\n    emit 1\n";
        let gs = program("trianglestrip", 6, 2, body);
        let table = DescriptorTable::new(&gs, &[], &[], &[]).unwrap();
        let p = StageProgram::new(&gs, table, Profile::default(), Limits::default(), 8).unwrap();
        let n = 2 * CHUNK + 77;
        let vertices = VertexOutputs {
            words: (0..3 * n as u32).flat_map(|v| [v, 0, 0, 0]).collect(),
            stride: 4,
        };
        let prims: Vec<GsPrimitive> = (0..n as u32)
            .map(|k| GsPrimitive {
                vertices: [3 * k, 3 * k + 1, 3 * k + 2, 0, 0, 0],
                id: k,
            })
            .collect();
        let job = GsJob {
            prims: &prims,
            vertices: &vertices,
            sources: &[Some(0), None, None, None],
            streams: 1,
        };
        let shade_on = |threads: usize| {
            let mut out = VertexOutputs {
                words: vec![9; 8 * 5],
                stride: 8,
            };
            let mut list = Vec::new();
            let n = shade(
                &p,
                &job,
                threads,
                &mut out,
                &mut list,
                None,
                None,
                &|_| Ok(()),
                None,
            )
            .unwrap();
            // What a primitive is: its vertices' words, its id and stream (the vertex
            // indices have gaps on several workers).
            let resolved: Vec<(Vec<u32>, u32, u32)> = list
                .iter()
                .map(|q| {
                    let words = q.v.iter().flat_map(|&v| out.vertex(v).to_vec()).collect();
                    (words, q.id, q.stream)
                })
                .collect();
            assert_eq!(&out.words[..40], &[9; 40], "the vertices already there");
            (resolved, list, n)
        };
        let one = shade_on(1);
        assert_eq!(
            one.1.len(),
            n / 2,
            "a triangle per odd primitive's instance 1"
        );
        // Lanes 0–2 emit two vertices each, after the 5 already there.
        assert_eq!(one.1[0].v[0], 5 + 6);
        for threads in [2, 3] {
            let many = shade_on(threads);
            assert!(many.0 == one.0 && many.2 == one.2, "{threads} workers");
        }
    }

    fn strip(kind: PrimKind, n: u32) -> Vec<[u32; 3]> {
        let mut out = Vec::new();
        let mut s = Vec::new();
        for v in 0..n {
            restart(kind, &s, v, 0, 0, &mut out);
            s.push(v);
        }
        out.iter().map(|p| p.v).collect()
    }

    /// D3D11.3 §8 "Primitive Topologies" (the output strips follow the IA's strip
    /// rules): odd triangles of a strip swap their last two vertices, keeping the strip's
    /// winding and the leading vertex first; lines join each vertex to the one before.
    #[test]
    fn strips_restart_into_lists_with_the_strip_winding() {
        assert_eq!(
            strip(PrimKind::Triangle, 5),
            vec![[0, 1, 2], [1, 3, 2], [2, 3, 4]]
        );
        assert_eq!(strip(PrimKind::Line, 3), vec![[0, 1, 1], [1, 2, 2]]);
        assert_eq!(strip(PrimKind::Point, 2), vec![[0, 0, 0], [1, 1, 1]]);
        assert!(
            strip(PrimKind::Triangle, 2).is_empty(),
            "too short: nothing"
        );
    }

    /// A DXIL geometry program writing all four streams, built by hand (`dxil::llvm::build`:
    /// there is no DXIL compiler to build it from HLSL), drawn with each stream rasterized
    /// in turn and with all four streamed out at once, beside its DXBC twin
    /// (`shaders/geometry_four_streams.hlsl`, which states the program) from vkd3d.
    ///
    /// The draw: two points from `SV_VertexID` v = 0, 1 at clip x = −0.875, y = 0.875 −
    /// 0.5 v (z 0, w 1): the centres of pixels (0, 0) and (0, 2) of an 8 × 8 target.
    /// Stream k moves the point right by 0.25 k (one pixel) and gives it `COLOR0` =
    /// (k + 1, y, 0, 1), so stream k lights pixels (k, 0) and (k, 2) with k + 1 in red and
    /// the input's y (0.875, 0.375) in green.
    #[allow(clippy::indexing_slicing, clippy::unwrap_used)]
    mod dxil_streams {

        use crate::dxil::dxop::DxOp;
        use crate::dxil::llvm::build::Mb;
        use crate::dxil::llvm::{
            BinOp, Constant, MdId, Metadata, Module, NamedMetadata, Type, ValueId,
        };
        use crate::ir::{Shader, parse_shader};
        use crate::lower::LoadOptions;
        use crate::pipeline::so::{
            NO_RASTERIZED_STREAM, SoBufferView, SoDeclarationEntry, StreamOutput, StreamOutputDesc,
        };
        use crate::pipeline::{
            Bindings, CullMode, DrawArgs, DrawOptions, DrawState, PrimitiveTopology,
            RenderTargetView, draw,
        };
        use crate::resources::{Format, Memory, Texture, TextureDesc};

        pub(super) const DL: &str =
            "e-m:e-p:32:32-i1:32-i8:32-i16:32-i32:32-i64:64-f16:32-f32:32-f64:64-n8:16:32:64";

        /// A metadata node of `ops`.
        pub(super) fn node(mb: &mut Mb, ops: Vec<Option<MdId>>) -> Option<MdId> {
            Some(mb.md(Metadata::Node {
                distinct: false,
                ops,
            }))
        }

        /// An integer constant of `bits` bits as metadata.
        pub(super) fn int(mb: &mut Mb, bits: u32, v: i64) -> Option<MdId> {
            let c = mb.ci(bits, v);
            let ty = mb.ty_of(c);
            Some(mb.md(Metadata::Value { ty, value: c }))
        }

        /// A signature element record (DXIL.rst "Signature element record"): one row of
        /// four `float` columns at `row`, on `stream`.
        pub(super) fn element(
            mb: &mut Mb,
            id: i64,
            name: &str,
            kind: i64,
            row: i64,
            stream: i64,
        ) -> Option<MdId> {
            let name = Some(mb.md(Metadata::String(name.as_bytes().to_vec())));
            let index = int(mb, 32, 0);
            let indices = node(mb, vec![index]);
            let ops = vec![
                int(mb, 32, id),
                name,
                int(mb, 8, 9), // f32
                int(mb, 8, kind),
                indices,
                int(mb, 8, 0),
                int(mb, 32, 1),
                int(mb, 8, 4),
                int(mb, 32, row),
                int(mb, 8, 0),
            ];
            let tag = int(mb, 32, 0); // the stream tag
            let value = int(mb, 32, stream);
            let tags = node(mb, vec![tag, value]);
            let mut ops = ops;
            ops.push(tags);
            node(mb, ops)
        }

        /// The geometry program of `shaders/geometry_four_streams.hlsl` as DXIL: point input
        /// (`SV_Position`, row 0), per stream k an `SV_Position` (row 0) and a `COLOR0` (row 1)
        /// of its own, `maxvertexcount(4)`, stream mask 0xf, point lists. Stream 0 emits;
        /// stream 1 emits then cuts; stream 2 emits; stream 3 uses `EmitThenCutStream`.
        fn four_streams() -> Module {
            let mut mb = Mb::new(DL);
            let (f32t, void) = (mb.t(Type::Float), mb.void());
            // The metadata's operands first: module constants and nodes.
            let kind = Some(mb.md(Metadata::String(b"gs".to_vec())));
            let (six, zero) = (int(&mut mb, 32, 6), int(&mut mb, 32, 0));
            let model = node(&mut mb, vec![kind, six, zero]);
            let input = element(&mut mb, 0, "SV_Position", 3, 0, 0);
            let inputs = node(&mut mb, vec![input]);
            let mut outs = Vec::new();
            for k in 0..4 {
                outs.push(element(&mut mb, 2 * k, "SV_Position", 3, 0, k));
                outs.push(element(&mut mb, 2 * k + 1, "COLOR", 0, 1, k));
            }
            let outputs = node(&mut mb, outs);
            let sigs = node(&mut mb, vec![inputs, outputs, None]);
            // Input primitive point (1), max vertex count 4, stream mask 0xf, point list (1),
            // one instance (dxc's five operands, `geometry::state`).
            let state: Vec<Option<MdId>> = [1, 4, 0xf, 1, 1]
                .into_iter()
                .map(|v| int(&mut mb, 32, v))
                .collect();
            let state = node(&mut mb, state);
            let tag = int(&mut mb, 32, 1);
            let props = node(&mut mb, vec![tag, state]);
            let name = Some(mb.md(Metadata::String(b"main".to_vec())));

            let fc = |mb: &mut Mb, x: f32| mb.c(f32t, Constant::Float(u64::from(x.to_bits())));
            mb.block();
            let c0 = mb.ci(32, 0);
            let p: Vec<ValueId> = (0..4)
                .map(|c| {
                    let col = mb.ci(8, c);
                    mb.dx("loadInput.f32", DxOp::LoadInput, &[c0, c0, col, c0], f32t)
                })
                .collect();
            for k in 0..4i64 {
                let dx = fc(&mut mb, 0.25 * k as f32);
                let x = mb.bin(BinOp::Add, p[0], dx, f32t);
                let (red, zero, one) = (
                    fc(&mut mb, (k + 1) as f32),
                    fc(&mut mb, 0.0),
                    fc(&mut mb, 1.0),
                );
                let rows = [
                    (2 * k, [x, p[1], p[2], p[3]]),
                    (2 * k + 1, [red, p[1], zero, one]),
                ];
                for (id, values) in rows {
                    let id = mb.ci(32, id);
                    for (c, v) in values.into_iter().enumerate() {
                        let col = mb.ci(8, c as i64);
                        mb.dx(
                            "storeOutput.f32",
                            DxOp::StoreOutput,
                            &[id, c0, col, v],
                            void,
                        );
                    }
                }
                let s = mb.ci(8, k);
                match k {
                    1 => {
                        mb.dx("emitStream", DxOp::EmitStream, &[s], void);
                        mb.dx("cutStream", DxOp::CutStream, &[s], void);
                    }
                    3 => {
                        mb.dx("emitThenCutStream", DxOp::EmitThenCutStream, &[s], void);
                    }
                    _ => {
                        mb.dx("emitStream", DxOp::EmitStream, &[s], void);
                    }
                }
            }
            mb.ret();
            let (mut m, fi) = mb.finish();
            let func = &m.functions[fi];
            m.metadata.push(Metadata::Value {
                ty: func.ptr_ty,
                value: func.value,
            });
            let fmd = Some(MdId(m.metadata.len() as u32 - 1));
            m.metadata.push(Metadata::Node {
                distinct: false,
                ops: vec![fmd, name, sigs, None, props],
            });
            let entry = MdId(m.metadata.len() as u32 - 1);
            for (n, id) in [
                ("dx.shaderModel", model.unwrap()),
                ("dx.entryPoints", entry),
            ] {
                m.named_metadata.push(NamedMetadata {
                    name: n.into(),
                    ops: vec![id],
                });
            }
            m
        }

        /// The vertex program: `SV_VertexID` v → clip (−0.875, 0.875 − 0.5 v, 0, 1).
        const VS: &str = "shader vertex
        regs 8
        const r0 = 0xbf600000 ; -0.875
        const r1 = 0x3f600000 ; 0.875
        const r2 = 0x3f000000 ; 0.5
        const r3 = 0x0
        const r4 = 0x3f800000 ; 1.0
        io_words in 4 out 4
        input \"SV_VertexID\" 0 sv vertex_id reg 0 rows 1 mask x uint interp undefined slot 0
        output \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0
        block0:
            input r5, 0
            utof r5, r5
            fmul r5, r5, r2
            fsub r6, r1, r5
            output 0, r0
            output 1, r6
            output 2, r3
            output 3, r4
            return
        ";

        /// The two builds of the geometry program: the hand-built DXIL, and vkd3d's DXBC.
        fn programs() -> [(&'static str, Shader); 2] {
            let dxil = crate::lower::dxil::lower_module(&four_streams(), &LoadOptions::default())
                .unwrap_or_else(|e| panic!("the hand-built DXIL geometry program: {e}"));
            crate::ir::validate(&dxil).unwrap();
            let bytes = include_bytes!("../../shaders/geometry_four_streams.gs_5_0.dxbc");
            let dxbc = crate::lower::load(bytes, &LoadOptions::default())
                .unwrap()
                .shader;
            [("dxil", dxil), ("dxbc", dxbc)]
        }

        /// What one draw left: the target's texels (RGBA32 floats, row by row) and each
        /// stream-output buffer's words.
        struct Drawn {
            texels: Vec<[f32; 4]>,
            so: Vec<Vec<u32>>,
        }

        /// Draws the two points through `gs` into an 8 × 8 `R32G32B32A32_FLOAT` target, with
        /// stream output's `entries` into four 24-byte buffers and `rasterized` stream.
        fn run(gs: &Shader, entries: Vec<SoDeclarationEntry>, rasterized: u32) -> Drawn {
            let vs = parse_shader(VS).unwrap();
            let ps = parse_shader(include_str!("../../shaders/draw_color.ps.ir")).unwrap();
            let none = Bindings::default();
            let rt = Texture::new(TextureDesc::tex2d(Format::R32G32B32A32_FLOAT, 8, 8)).unwrap();
            let mut state = DrawState::new(&vs, Some(&ps), &none, &none);
            state.gs = Some((gs, &none));
            state.topology = PrimitiveTopology::PointList;
            state.rasterizer.cull_mode = CullMode::None;
            state.render_targets = vec![Some(RenderTargetView {
                texture: rt.clone(),
            })];
            let buffers: Vec<Memory> = (0..4).map(|_| Memory::zeroed(24).unwrap()).collect();
            state.stream_output = Some(StreamOutput {
                desc: StreamOutputDesc {
                    entries,
                    strides: vec![12; 4],
                    rasterized_stream: rasterized,
                },
                buffers: buffers
                    .iter()
                    .map(|m| {
                        Some(SoBufferView {
                            data: m.clone(),
                            offset: 0,
                            size: 24,
                            filled_size: None,
                        })
                    })
                    .collect(),
            });
            let args = DrawArgs {
                vertex_count: 2,
                ..DrawArgs::default()
            };
            draw(&state, &args, &DrawOptions::default()).unwrap();
            let texels = rt
                .to_bytes()
                .chunks(16)
                .map(|t| {
                    std::array::from_fn(|c| {
                        f32::from_le_bytes(t[4 * c..4 * c + 4].try_into().unwrap())
                    })
                })
                .collect();
            let so = buffers
                .iter()
                .map(|m| (0..6).map(|i| m.load_u32(4 * i).unwrap()).collect())
                .collect();
            Drawn { texels, so }
        }

        /// Stream k's point of input vertex v: pixel (k, 2v), colour (k + 1, y, 0, 1) with
        /// y = 0.875 − 0.5 v (module doc).
        fn lit(k: u32) -> Vec<((u32, u32), [f32; 4])> {
            (0..2u32)
                .map(|v| {
                    (
                        (k, 2 * v),
                        [(k + 1) as f32, 0.875 - 0.5 * v as f32, 0.0, 1.0],
                    )
                })
                .collect()
        }

        /// The texels `lit` leaves, every other one zero.
        fn expected(lit: &[((u32, u32), [f32; 4])]) -> Vec<[f32; 4]> {
            let mut t = vec![[0.0; 4]; 64];
            for &((x, y), c) in lit {
                t[(8 * y + x) as usize] = c;
            }
            t
        }

        /// D3D12 `D3D12_STREAM_OUTPUT_DESC::RasterizedStream` (D3D11.3 §14.1 "Stream Output
        /// Stage": the stream to rasterize, any of the four): each stream of the DXIL program
        /// rasterized in turn lights only its own points — its own `SV_Position` and `COLOR0`
        /// rows (DXIL.rst "Signature element record": each stream's rows from 0), which the
        /// pixel program links by — and the DXBC twin, whose streams share the output
        /// registers, lights the same texels.
        #[test]
        fn each_stream_of_a_dxil_program_rasterized_in_turn() {
            let [(_, dxil), (_, dxbc)] = programs();
            for k in 0..4 {
                let want = expected(&lit(k));
                let a = run(&dxil, Vec::new(), k);
                assert_eq!(a.texels, want, "DXIL, stream {k} rasterized");
                let b = run(&dxbc, Vec::new(), k);
                assert_eq!(b.texels, a.texels, "DXBC twin, stream {k} rasterized");
            }
        }

        /// D3D11.3 §14 "Stream Output Stage" with several streams: every stream writes its
        /// own buffer in the same draw (`COLOR0.xy` then `SV_Position.x`, 12-byte records),
        /// each point once per input vertex in input order, while stream 2 is rasterized; the
        /// DXBC twin writes the same words.
        #[test]
        fn four_streams_of_a_dxil_program_streamed_out_at_once() {
            let entries: Vec<SoDeclarationEntry> = (0..4u32)
                .flat_map(|k| {
                    [("COLOR", 0, 2), ("SV_Position", 0, 1)].map(|(name, start, count)| {
                        SoDeclarationEntry {
                            stream: k,
                            semantic_name: Some(name.into()),
                            semantic_index: 0,
                            start_component: start,
                            component_count: count,
                            output_slot: k as u8,
                        }
                    })
                })
                .collect();
            let [(_, dxil), (_, dxbc)] = programs();
            let a = run(&dxil, entries.clone(), 2);
            for k in 0..4u32 {
                let x = -0.875 + 0.25 * k as f32;
                let want: Vec<u32> = [0.875f32, 0.375]
                    .into_iter()
                    .flat_map(|y| [(k + 1) as f32, y, x].map(f32::to_bits))
                    .collect();
                assert_eq!(a.so[k as usize], want, "DXIL, stream {k}'s buffer");
            }
            assert_eq!(a.texels, expected(&lit(2)), "stream 2 rasterized");
            let b = run(&dxbc, entries.clone(), 2);
            assert_eq!((b.so, b.texels), (a.so, a.texels), "the DXBC twin");
            let none = run(&dxil, entries, NO_RASTERIZED_STREAM);
            assert_eq!(none.texels, expected(&[]), "no stream rasterized");
        }
    }

    /// A DXIL geometry program after a DXIL domain program (vs → hs → tessellator → ds →
    /// gs → ps, every program DXIL but the pixel program's IR): the corpus's
    /// `tessellation.{vs,hs,ds}.dxil` draw of `tests/jobs/corpus/tessellation_dxil.toml`
    /// with a hand-built geometry program between the domain program and the rasterizer
    /// that emits each input triangle's three vertices, as they came, as a triangle strip.
    #[allow(clippy::indexing_slicing, clippy::unwrap_used)]
    mod dxil_after_ds {

        use std::path::{Path, PathBuf};

        use super::dxil_streams::{DL, element, node};
        use crate::container::FourCc;
        use crate::container::write::{dxil_part, write_container};
        use crate::dxil::dxop::DxOp;
        use crate::dxil::llvm::build::Mb;
        use crate::dxil::llvm::write::write_module;
        use crate::dxil::llvm::{MdId, Metadata, Module, NamedMetadata, Type};
        use crate::job::{Job, RunOptions, run_draw_job};

        /// The geometry program: triangle input of `SV_Position` (row 0) and `COLOR` (row 1),
        /// the same two as outputs, `maxvertexcount(3)`, a triangle strip on stream 0; it
        /// copies input vertex 0, 1, 2 to the outputs and emits each.
        fn pass_through() -> Module {
            let mut mb = Mb::new(DL);
            let (f32t, void) = (mb.t(Type::Float), mb.void());
            let kind = Some(mb.md(Metadata::String(b"gs".to_vec())));
            let (six, zero) = (
                super::dxil_streams::int(&mut mb, 32, 6),
                super::dxil_streams::int(&mut mb, 32, 0),
            );
            let model = node(&mut mb, vec![kind, six, zero]);
            let side = |mb: &mut Mb| {
                let pos = element(mb, 0, "SV_Position", 3, 0, 0);
                let color = element(mb, 1, "COLOR", 0, 1, 0);
                node(mb, vec![pos, color])
            };
            let (inputs, outputs) = (side(&mut mb), side(&mut mb));
            let sigs = node(&mut mb, vec![inputs, outputs, None]);
            // Triangle (3), max vertex count 3, stream mask 1, triangle strip (5), 1 instance.
            let state: Vec<Option<MdId>> = [3, 3, 1, 5, 1]
                .into_iter()
                .map(|v| super::dxil_streams::int(&mut mb, 32, v))
                .collect();
            let state = node(&mut mb, state);
            let tag = super::dxil_streams::int(&mut mb, 32, 1);
            let props = node(&mut mb, vec![tag, state]);
            let name = Some(mb.md(Metadata::String(b"main".to_vec())));

            mb.block();
            let (c0, s0) = (mb.ci(32, 0), mb.ci(8, 0));
            for v in 0..3 {
                let vertex = mb.ci(32, v);
                for id in 0..2 {
                    let id = mb.ci(32, id);
                    for c in 0..4 {
                        let col = mb.ci(8, c);
                        let x = mb.dx(
                            "loadInput.f32",
                            DxOp::LoadInput,
                            &[id, c0, col, vertex],
                            f32t,
                        );
                        mb.dx(
                            "storeOutput.f32",
                            DxOp::StoreOutput,
                            &[id, c0, col, x],
                            void,
                        );
                    }
                }
                mb.dx("emitStream", DxOp::EmitStream, &[s0], void);
            }
            mb.ret();
            let (mut m, fi) = mb.finish();
            let func = &m.functions[fi];
            m.metadata.push(Metadata::Value {
                ty: func.ptr_ty,
                value: func.value,
            });
            let fmd = Some(MdId(m.metadata.len() as u32 - 1));
            m.metadata.push(Metadata::Node {
                distinct: false,
                ops: vec![fmd, name, sigs, None, props],
            });
            let entry = MdId(m.metadata.len() as u32 - 1);
            for (n, id) in [
                ("dx.shaderModel", model.unwrap()),
                ("dx.entryPoints", entry),
            ] {
                m.named_metadata.push(NamedMetadata {
                    name: n.into(),
                    ops: vec![id],
                });
            }
            m
        }

        /// Runs the corpus's tessellated draw (its job text, read from beside the job so its
        /// relative paths hold) with `gs` added when given; outputs go to `out`. Returns the
        /// render target's bytes and the expectations that passed and failed.
        fn run(root: &Path, gs: Option<&Path>, out: &Path) -> (Vec<u8>, usize, usize, u64) {
            let job_path = root.join("tests/jobs/corpus/tessellation_dxil.toml");
            let mut text = std::fs::read_to_string(&job_path).unwrap();
            if let Some(gs) = gs {
                text = text.replace(
                    "ps = \"./tessellation.ps.ir\"",
                    &format!("ps = \"./tessellation.ps.ir\"\ngs = \"{}\"", gs.display()),
                );
                assert!(text.contains("\ngs = "), "the job names its pixel program");
            }
            let job = Job::from_text(&text, &job_path).unwrap();
            let opts = RunOptions {
                out_dir: Some(out.to_path_buf()),
                summary: Some(out.join("summary.json")),
                allow_outside: true,
                ..RunOptions::default()
            };
            let r = run_draw_job(job, &opts).unwrap_or_else(|e| panic!("{e}"));
            let e = &r.summary.expectations;
            (
                r.targets[0].view.texture.to_bytes(),
                e.passed,
                e.failed,
                r.summary.draw.gs_invocations,
            )
        }

        /// D3D11.3 §13.2 and §8.17 (a geometry program after tessellation reads the
        /// tessellator's primitives, in its order and winding): a DXIL program that emits each
        /// input triangle unchanged, after the corpus's DXIL hull and domain programs, runs once
        /// per tessellated triangle and leaves the target the draw without it leaves — every
        /// pixel value hand-derived in `tessellation_dxil.toml` (its nine expectations pass) and
        /// every byte equal.
        #[test]
        fn a_dxil_geometry_program_after_a_dxil_domain_program() {
            let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
            if !root
                .join("target/corpora/dxil-reader/tessellation.ds.dxil")
                .is_file()
            {
                assert!(
                    std::env::var_os("DXLANE_NO_CORPORA").is_some(),
                    "the corpora are missing: run tools/fetch-corpora.sh (or set DXLANE_NO_CORPORA=1 to skip this check)"
                );
                eprintln!("DXLANE_NO_CORPORA is set: the DXIL gs-after-ds draw is not checked");
                return;
            }
            let out =
                std::env::temp_dir().join(format!("dxlane-gs-after-ds-{}", std::process::id()));
            std::fs::create_dir_all(&out).unwrap();
            let bitcode = write_module(&pass_through()).unwrap();
            let part = dxil_part(
                crate::container::ProgramVersion {
                    kind: crate::container::ProgramKind::Geometry,
                    major: 6,
                    minor: 0,
                },
                (1, 0),
                &bitcode,
            )
            .unwrap();
            let gs = out.join("pass_through.gs.dxil");
            std::fs::write(
                &gs,
                write_container(&[(FourCc::DXIL, part.as_slice())]).unwrap(),
            )
            .unwrap();

            let (plain, passed, failed, none) = run(&root, None, &out);
            assert_eq!(
                (passed, failed, none),
                (9, 0, 0),
                "without the geometry program"
            );
            let (with_gs, passed, failed, invocations) = run(&root, Some(&gs), &out);
            assert_eq!((passed, failed), (9, 0), "with it: the hand-derived pixels");
            assert!(invocations > 1, "one invocation per tessellated triangle");
            assert!(with_gs == plain, "every byte of the target");
            let _ = std::fs::remove_dir_all(&out);
        }
    }
}
