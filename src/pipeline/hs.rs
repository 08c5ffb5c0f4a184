//! The hull stage: a hull program's control-point phase run once per output control point
//! of every patch, and its patch-constant phases (fork, then join) once per patch.
//!
//! Owns: which lane runs which patch, control point and phase (the phase word of
//! [`HullState`]); filling the lanes' input words — the patch's input control points from
//! the vertex outputs (through the link's `hull_points`), `SV_PrimitiveID`,
//! `SV_OutputControlPointID`, the output control points the patch-constant phases read
//! (`vocp`) and, for join phases, the fork results (`vpc`); the pass-through of a program
//! without a control-point phase; reading each patch's tessellation factors. Does not
//! own: which vertices make a patch (`ia::patches`), the tessellator (`tess`), or the
//! domain program (`ds`).
//!
//! # Rules (D3D11.3 §10 "Hull Shader Stage")
//!
//! - **Invocations.** The control-point phase runs once per output control point,
//!   `SV_OutputControlPointID` = 0 … n − 1; the patch-constant phases once per patch,
//!   after every control point of the patch is computed, with all of them readable
//!   (`vocp`); join phases after the fork phases, reading their results (`vpc`).
//!   `SV_PrimitiveID` is the patch's number in its draw instance.
//! - **Pass-through.** Without a control-point phase, output control point `k` is input
//!   control point `k` (the compiler then declares as many of each).
//! - **Order.** Lanes take patches in input order; the results do not depend on the wave
//!   size, since no hull lane reads another's values.

use super::draw::{StageWrites, WaveWrites};
use super::trace::{StageWaves, TraceProgram};
use super::vs::VertexOutputs;
use super::work::LaneSelect;
use crate::exec::{ExecError, MemWrite, StageProgram, WriteSink};
use crate::ir::io::NO_REGISTER;
use crate::ir::{HullState, Shader, SysValue, hull_phase};

/// What the hull stage reads besides the program.
pub struct HullJob<'a> {
    /// The patches' control points as indices into `vertices`, `input_points` per patch.
    pub points: &'a [u32],
    /// Each patch's `SV_PrimitiveID`.
    pub ids: &'a [u32],
    /// The vertex stage's outputs.
    pub vertices: &'a VertexOutputs,
    /// Per input word of one input control point, the vertex output word feeding it.
    pub sources: &'a [Option<u32>],
}

/// What the hull stage made: every patch's output control points and patch constants.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct HullOutputs {
    /// Output control points, `output_points` per patch, `output_point_words` words each.
    pub points: VertexOutputs,
    /// Patch constants, one entry per patch (the output words from
    /// `output_point_words` on).
    pub constants: VertexOutputs,
}

/// Writes item `item`'s input words into lane `lane` of a wave of `wave` lanes
/// (`inputs[word·wave + lane]`): `(item, inputs, lane, wave)`.
pub(crate) type FillLane<'a> = dyn FnMut(usize, &mut [u32], usize, usize) + 'a;
/// Reads lane `lane`'s output words (`outputs[word·wave + lane]`): `(item, outputs, lane,
/// wave)`.
pub(crate) type TakeLane<'a> = dyn FnMut(usize, &[u32], usize, usize) + 'a;

/// Runs `count` lanes of `program` in waves: `fill(item, inputs, lane, wave)` writes
/// item `item`'s input words into lane `lane` (`inputs[word·wave + lane]`), `ids(item)`
/// names the lane in errors, and after each wave `take(item, outputs, lane, wave)` reads
/// the lane's output words (`outputs[word·wave + lane]`). Each wave's lane-instructions
/// are charged through `charge`; returns their sum. The hull and domain stages share it.
///
/// With `trace` = (the debugger's program, item `k`), the wave holding item `k` runs the
/// debug program (lowered without clean-up, of the same wave size) through the traced
/// loop instead; the other waves run as they would. With `writes` = (the draw's sink,
/// the lane of item `k`), every other wave's memory writes are reported, each with its
/// item's lane.
#[allow(clippy::too_many_arguments)]
pub(crate) fn run_lanes(
    program: &StageProgram<'_>,
    count: usize,
    ids: &dyn Fn(usize) -> [u32; 3],
    fill: &mut FillLane<'_>,
    take: &mut TakeLane<'_>,
    charge: &dyn Fn(u64) -> Result<(), ExecError>,
    trace: Option<(&TraceProgram<'_>, usize)>,
    writes: Option<(StageWrites<'_>, &(dyn Fn(usize) -> LaneSelect + Sync))>,
) -> Result<u64, ExecError> {
    let mut waves = StageWaves::new(program, count, trace)?;
    let w = waves.wave_size();
    let mut executed = 0u64;
    let mut start = 0usize;
    while start < count {
        let n = (count - start).min(w);
        let mut wave = waves.wave(start, n);
        {
            let inputs = wave.runner.inputs_mut();
            inputs.fill(0);
            for l in 0..n {
                fill(start + l, inputs, l, w);
            }
        }
        for l in 0..n {
            wave.runner.set_ids(l, ids(start + l));
        }
        let lane = |k: usize, _: &MemWrite| writes.map_or(LaneSelect::Thread([0; 3]), |w| (w.1)(k));
        let sink = writes.map(|(to, _)| WaveWrites {
            to,
            start,
            lane: &lane,
        });
        let run = wave
            .run(n, sink.as_ref().map(|s| s as &dyn WriteSink))?
            .lane_instructions;
        let outputs = wave.runner.outputs();
        for l in 0..n {
            take(start + l, outputs, l, w);
        }
        charge(run)?;
        executed += run;
        start += n;
    }
    Ok(executed)
}

/// The hull state of a program the draw was given as its hull program.
pub fn state(s: &Shader) -> Result<HullState, ExecError> {
    s.hull.ok_or_else(|| {
        ExecError::Dispatch(format!(
            "the hull program is a {} program without a hull state",
            s.stage
        ))
    })
}

/// Writes word `word` of lane `l` (0 outside the input words).
fn put(inputs: &mut [u32], word: usize, l: usize, w: usize, v: u32) {
    if let Some(d) = inputs.get_mut(word * w + l) {
        *d = v;
    }
}

/// The most bytes the hull stage's outputs for `patches` patches take.
pub fn output_bytes(h: &HullState, pc_words: u32, patches: u64) -> u64 {
    let per = u64::from(h.output_points)
        .saturating_mul(u64::from(h.output_point_words))
        .saturating_add(u64::from(pc_words));
    patches.saturating_mul(per).saturating_mul(4)
}

/// Runs the hull program over every patch of `job` (module doc), replacing `out` with
/// the results. Returns the lane-instructions executed.
pub fn shade(
    program: &StageProgram<'_>,
    job: &HullJob<'_>,
    out: &mut HullOutputs,
    charge: &dyn Fn(u64) -> Result<(), ExecError>,
) -> Result<u64, ExecError> {
    shade_traced(program, job, out, charge, None, None)
}

/// [`shade`], with `trace` = (the debugger's program, patch, `Some(k)`, _): the wave
/// running output control point `k` of the patch is traced; with `None` for `k`, the wave
/// running the patch's patch-constant phase: the fork pass, or with `true` last, the
/// join pass of a DXBC program with join phases. With `writes`, the other waves' memory
/// writes are reported, each named by its patch and control point, or its patch's
/// patch-constant phase.
pub(crate) fn shade_traced(
    program: &StageProgram<'_>,
    job: &HullJob<'_>,
    out: &mut HullOutputs,
    charge: &dyn Fn(u64) -> Result<(), ExecError>,
    trace: Option<(&TraceProgram<'_>, u32, Option<u32>, bool)>,
    writes: Option<StageWrites<'_>>,
) -> Result<u64, ExecError> {
    let s = program.shader();
    let h = state(s)?;
    let n_in = h.input_points as usize;
    let n_out = h.output_points as usize;
    let pw = h.point_words as usize;
    let opw = h.output_point_words as usize;
    let pcw = (s.output_words as usize).saturating_sub(opw);
    let patches = job.ids.len().min(job.points.len() / n_in.max(1));
    let prim_word = s.input_sv(SysValue::PrimitiveId).map(|e| e.slot as usize);
    let cp_word = s
        .input_sv(SysValue::OutputControlPointId)
        .map(|e| e.slot as usize);
    out.points.stride = opw;
    out.points.words.clear();
    out.points.words.resize(patches * n_out * opw, 0);
    out.constants.stride = pcw;
    out.constants.words.clear();
    out.constants.words.resize(patches * pcw, 0);
    // The input control points and the shared system values of a lane of patch `p`.
    let control_points = |p: usize, inputs: &mut [u32], l: usize, w: usize| {
        let points = job.points.get(p * n_in..(p + 1) * n_in).unwrap_or(&[]);
        for (k, &v) in points.iter().enumerate() {
            for (word, src) in job.sources.iter().enumerate().take(pw) {
                let x = src.map_or(0, |o| job.vertices.word(v, o));
                put(inputs, k * pw + word, l, w, x);
            }
        }
        if let Some(pw) = prim_word {
            put(inputs, pw, l, w, job.ids.get(p).copied().unwrap_or(0));
        }
    };
    let mut executed = 0u64;
    // The lanes the phases' writes are reported with: item i of the control-point
    // phase is control point i % n_out of patch i / n_out; a patch-constant item is
    // its patch.
    let instance = writes.map_or(0, |w| w.instance);
    let cp_lane = |i: usize| LaneSelect::Hull {
        patch: (i / n_out.max(1)) as u32,
        control_point: Some((i % n_out.max(1)) as u32),
        instance,
        join: false,
    };
    let pc_lane = |p: usize| LaneSelect::Hull {
        patch: p as u32,
        control_point: None,
        instance,
        join: false,
    };
    // A DXBC join phase's writes are its own lane's (`--join-phase`).
    let join_lane = |p: usize| LaneSelect::Hull {
        patch: p as u32,
        control_point: None,
        instance,
        join: true,
    };

    // The control-point phase.
    if h.pass_through {
        for p in 0..patches {
            for k in 0..n_out {
                let v = job.points.get(p * n_in + k).copied().unwrap_or(0);
                for word in 0..opw {
                    let x = job
                        .sources
                        .get(word)
                        .copied()
                        .flatten()
                        .map_or(0, |o| job.vertices.word(v, o));
                    if let Some(d) = out.points.words.get_mut((p * n_out + k) * opw + word) {
                        *d = x;
                    }
                }
            }
        }
    } else if n_out > 0 {
        let words = &mut out.points.words;
        executed += run_lanes(
            program,
            patches * n_out,
            &|i| {
                [
                    job.ids.get(i / n_out).copied().unwrap_or(0),
                    (i % n_out) as u32,
                    0,
                ]
            },
            &mut |i, inputs, l, w| {
                control_points(i / n_out, inputs, l, w);
                if let Some(c) = cp_word {
                    put(inputs, c, l, w, (i % n_out) as u32);
                }
                put(
                    inputs,
                    h.phase_word as usize,
                    l,
                    w,
                    hull_phase::CONTROL_POINT,
                );
            },
            &mut |i, outputs, l, w| {
                for word in 0..opw {
                    if let (Some(d), Some(v)) =
                        (words.get_mut(i * opw + word), outputs.get(word * w + l))
                    {
                        *d = *v;
                    }
                }
            },
            charge,
            trace.and_then(|(t, p, k, _)| {
                k.filter(|&k| (k as usize) < n_out)
                    .map(|k| (t, p as usize * n_out + k as usize))
            }),
            writes.map(|w| (w, &cp_lane as &(dyn Fn(usize) -> LaneSelect + Sync))),
        )?;
    }

    // The patch-constant phases: forks, then joins reading the fork results.
    let passes: &[u32] = if h.join {
        &[hull_phase::FORK, hull_phase::JOIN]
    } else {
        &[hull_phase::FORK]
    };
    for &phase in passes {
        let before = std::mem::take(&mut out.constants.words);
        let mut after = vec![0u32; before.len()];
        let ocp = &out.points.words;
        executed += run_lanes(
            program,
            patches,
            &|p| [job.ids.get(p).copied().unwrap_or(0), 0, 0],
            &mut |p, inputs, l, w| {
                control_points(p, inputs, l, w);
                let base = h.ocp_word as usize;
                let first = p * n_out * opw;
                for k in 0..n_out * opw {
                    put(
                        inputs,
                        base + k,
                        l,
                        w,
                        ocp.get(first + k).copied().unwrap_or(0),
                    );
                }
                if phase == hull_phase::JOIN {
                    for k in 0..pcw {
                        let v = before.get(p * pcw + k).copied().unwrap_or(0);
                        put(inputs, h.vpc_word as usize + k, l, w, v);
                    }
                }
                put(inputs, h.phase_word as usize, l, w, phase);
            },
            &mut |p, outputs, l, w| {
                for k in 0..pcw {
                    if let (Some(d), Some(v)) =
                        (after.get_mut(p * pcw + k), outputs.get((opw + k) * w + l))
                    {
                        *d = *v;
                    }
                }
            },
            charge,
            match trace {
                Some((t, p, None, join))
                    if phase
                        == if join {
                            hull_phase::JOIN
                        } else {
                            hull_phase::FORK
                        } =>
                {
                    Some((t, p as usize))
                }
                _ => None,
            },
            writes.map(|w| {
                let lane: &(dyn Fn(usize) -> LaneSelect + Sync) = if phase == hull_phase::JOIN {
                    &join_lane
                } else {
                    &pc_lane
                };
                (w, lane)
            }),
        )?;
        out.constants.words = after;
    }
    Ok(executed)
}

/// The lanes that made a patch's control points, for the debugger
/// (`trace::InputOrigins`): per input control point `k`, `vertex(k)` (the vertex lane
/// the input assembler fed it from), and per output control point `k` the control-point
/// phase's lane of patch `patch` — or, for a program without that phase, input control
/// point `k`'s vertex lane, which it passes through.
pub(crate) fn point_origins(
    h: &HullState,
    patch: u32,
    instance: u32,
    vertex: &dyn Fn(usize) -> LaneSelect,
) -> (Vec<LaneSelect>, Vec<LaneSelect>) {
    let inputs = (0..h.input_points as usize).map(vertex).collect();
    let outputs = (0..h.output_points)
        .map(|k| {
            if h.pass_through {
                vertex(k as usize)
            } else {
                LaneSelect::Hull {
                    patch,
                    control_point: Some(k),
                    join: false,
                    instance,
                }
            }
        })
        .collect();
    (inputs, outputs)
}

/// Patch `p`'s final factors, as the patch-constant phases wrote them (0 where the
/// program writes none, which culls the patch: D3D11.3 §11.7.12).
pub fn factors(h: &HullState, out: &HullOutputs, p: u32) -> ([f32; 4], [f32; 2]) {
    let opw = h.output_point_words;
    let read = |w: u32| -> f32 {
        if w == NO_REGISTER {
            return 0.0;
        }
        f32::from_bits(out.constants.word(p, w.wrapping_sub(opw)))
    };
    let f = h.factor_words;
    (
        [read(f[0]), read(f[1]), read(f[2]), read(f[3])],
        [read(f[4]), read(f[5])],
    )
}
