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

use super::ia::PrimKind;
use super::trace::{StageWaves, TraceProgram};
use super::vs::VertexOutputs;
use crate::exec::{ExecError, StageProgram};
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

/// Runs the geometry program over every primitive of `job` and instance, appending the
/// rasterized stream's vertices to `out` (its `stride` set to the program's output
/// words) and the primitives they make to `prims`, in D3D's order (module doc). Each
/// wave's lane-instructions are charged through `charge`. Returns the lane-instructions
/// executed.
///
/// With `trace` = (the debugger's program, lane `k`), the wave holding the stage's lane
/// `k` (input primitive `k / instances`, `SV_GSInstanceID` `k % instances`) runs the debug
/// program — the same program lowered without clean-up, of the same wave size — through
/// the traced loop; what it emits is collected as a normal wave's. With `origins`, each
/// vertex appended to `out` pushes the stage lane that emitted it.
pub(crate) fn shade(
    program: &StageProgram<'_>,
    job: &GsJob<'_>,
    out: &mut VertexOutputs,
    prims: &mut Vec<GsOut>,
    trace: Option<(&TraceProgram<'_>, usize)>,
    mut origins: Option<&mut Vec<u32>>,
    charge: &dyn Fn(u64) -> Result<(), ExecError>,
) -> Result<u64, ExecError> {
    let s: &Shader = program.shader();
    let Some(g) = s.geometry else {
        return Err(ExecError::Dispatch(
            "a geometry program without its geometry state".into(),
        ));
    };
    let stride = s.output_words as usize;
    out.stride = stride;
    let kind = out_kind(g.output);
    let nverts = g.input.vertices() as usize;
    let vw = g.vertex_words as usize;
    let prim_word = s.input_sv(SysValue::PrimitiveId).map(|e| e.slot as usize);
    let inst_word = s.input_sv(SysValue::GsInstanceId).map(|e| e.slot as usize);
    // Each stream's own `SV_PrimitiveID` word (a DXIL program's streams have their own).
    let out_prim_word: [Option<u32>; 4] = std::array::from_fn(|k| {
        stream_elements(s, k as u32)
            .iter()
            .find(|e| e.sv == SysValue::PrimitiveId)
            .map(|e| e.slot)
    });
    let instances = g.instances as usize;
    let lanes_total = job.prims.len() * instances;
    let mut waves = StageWaves::new(program, lanes_total, trace)?;
    let w = waves.wave_size();
    let mut executed = 0u64;
    let mut strips: [Vec<u32>; 4] = Default::default();
    let mut start = 0usize;
    while start < lanes_total {
        let n = (lanes_total - start).min(w);
        let mut wave = waves.wave(start, n);
        let runner = &mut *wave.runner;
        {
            let inputs = runner.inputs_mut();
            for l in 0..n {
                let k = start + l;
                let (p, i) = (&job.prims[k / instances], k % instances);
                for (j, &v) in p.vertices.iter().take(nverts).enumerate() {
                    for (word, src) in job.sources.iter().enumerate().take(vw) {
                        let x = src.map_or(0, |o| job.vertices.word(v, o));
                        if let Some(d) = inputs.get_mut((j * vw + word) * w + l) {
                            *d = x;
                        }
                    }
                }
                if let Some(pw) = prim_word
                    && let Some(d) = inputs.get_mut(pw * w + l)
                {
                    *d = p.id;
                }
                if let Some(iw) = inst_word
                    && let Some(d) = inputs.get_mut(iw * w + l)
                {
                    *d = i as u32;
                }
            }
        }
        for l in 0..n {
            let k = start + l;
            runner.set_ids(l, [job.prims[k / instances].id, (k % instances) as u32, 0]);
        }
        let run = wave.run(n)?;
        let runner = &*wave.runner;
        charge(run.lane_instructions)?;
        executed += run.lane_instructions;
        let (records, words) = runner.emitted();
        // The records are in execution order, each lane's own in its program order:
        // where each vertex's words start, then each lane's records in lane order.
        let mut first_word = Vec::with_capacity(records.len());
        let mut next = 0usize;
        for r in records {
            if r.cut {
                first_word.push(usize::MAX);
            } else {
                first_word.push(next * stride);
                next += 1;
            }
        }
        for l in 0..n {
            let id_in = job.prims[(start + l) / instances].id;
            for s in &mut strips {
                s.clear();
            }
            for (r, &fw) in records.iter().zip(&first_word) {
                if r.lane as usize != l || r.stream >= 4 || job.streams & (1 << r.stream) == 0 {
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
                let v = (out.words.len() / stride.max(1)) as u32;
                if let Some(o) = origins.as_deref_mut() {
                    o.push((start + l) as u32);
                }
                out.words.extend_from_slice(vwords);
                out.words.resize(v as usize * stride + stride, 0);
                let before = prims.len();
                restart(kind, strip, v, id_in, u32::from(r.stream), prims);
                if let Some(pw) = out_prim_word[usize::from(r.stream)] {
                    for p in &mut prims[before..] {
                        p.id = out.word(p.v[0], pw);
                    }
                }
                strip.push(v);
            }
        }
        start += n;
    }
    Ok(executed)
}

#[cfg(test)]
mod dxil_after_ds;
#[cfg(test)]
mod dxil_streams;

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
        shade(&p, &job, &mut out, &mut list, None, None, &|_| Ok(())).unwrap();
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
}
