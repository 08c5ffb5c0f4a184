//! The vertex stage: the vertex program run in waves over the draw's unique vertices.
//!
//! Owns: fetching each vertex's inputs (through `ia` and the link's input sources),
//! running waves through `exec::StageRunner`, and keeping every vertex's output words for
//! the stages after it. Does not own: which vertices there are (`ia`), what the outputs
//! mean (`link`, `clip`).
//!
//! # Post-transform reuse
//!
//! An indexed draw shades each distinct index value once per instance, as a post-transform
//! vertex cache would (D3D11.3 §9.2 "Vertex Shader Invocation" lets an implementation reuse a vertex's outputs for
//! repeated indices, because a vertex program's outputs depend only on its inputs). The
//! outputs of vertex `slot` of instance `k` are words
//! `((k × vertices) + slot) × output_words …` of [`VertexOutputs::words`].
//!
//! # Lanes
//!
//! Vertices fill lanes in order (lane `l` of wave `w` is unique vertex `w × W + l`). A
//! program that never looks across lanes runs 32 vertices side by side (as compute does;
//! the wave size it reports is unchanged). Waves are spread over the worker threads in
//! chunks; the outputs do not depend on the worker count.

use std::sync::Mutex;
use std::sync::atomic::{AtomicBool, Ordering};

use crossbeam::thread;

use super::ia::{self, Element};
use super::link::VsSource;
use super::state::VertexBufferView;
use super::trace::{TraceProgram, Traced};
use crate::exec::{ExecError, StageProgram, StageRunner, WriteSink};

/// Vertices per chunk handed to one worker.
const CHUNK: usize = 1024;

/// Every shaded vertex's output words.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct VertexOutputs {
    /// `output_words` words per vertex, vertex after vertex.
    pub words: Vec<u32>,
    /// Words per vertex.
    pub stride: usize,
}

impl VertexOutputs {
    /// The output words of vertex `v` (an index into the shaded vertices).
    pub fn vertex(&self, v: u32) -> &[u32] {
        let s = v as usize * self.stride;
        self.words.get(s..s + self.stride).unwrap_or(&[])
    }

    /// Output word `w` of vertex `v` (0 when out of range).
    #[inline]
    pub fn word(&self, v: u32, w: u32) -> u32 {
        self.words
            .get(v as usize * self.stride + w as usize)
            .copied()
            .unwrap_or(0)
    }
}

/// What the vertex stage reads for one batch of vertices.
pub struct VertexJob<'a> {
    /// The resolved input layout.
    pub layout: &'a [Element],
    /// Where each input word comes from.
    pub sources: &'a [VsSource],
    /// Vertex buffers by slot.
    pub buffers: &'a [Option<VertexBufferView>],
    /// `SV_VertexID` of each vertex to shade (the index value, or the vertex number).
    pub ids: &'a [u32],
    /// Added to each id to find its vertex in the buffers (`StartVertexLocation`, or
    /// `BaseVertexLocation` for indexed draws).
    pub fetch_base: i64,
    /// `SV_InstanceID`.
    pub instance: u32,
    /// `StartInstanceLocation`.
    pub start_instance: u32,
}

/// Shades every vertex of `job`, appending their outputs to `out` in `ids` order, on
/// `threads` workers, reporting the lanes' memory writes to `writes` (all but the traced
/// wave's). Each chunk's lane-instructions are charged to the run's budget through
/// `charge` as it finishes (`exec::RunBudget`: the total and the clock), and the stage
/// stops at the first refusal. Returns the lane-instructions executed.
#[allow(clippy::too_many_arguments)]
pub(crate) fn shade(
    program: &StageProgram<'_>,
    job: &VertexJob<'_>,
    threads: usize,
    out: &mut VertexOutputs,
    trace: Option<&Trace<'_>>,
    writes: Option<&dyn WriteSink>,
    charge: &(dyn Fn(u64) -> Result<(), ExecError> + Sync),
) -> Result<u64, ExecError> {
    let stride = program.shader().output_words as usize;
    out.stride = stride;
    let first = out.words.len();
    out.words.resize(first + job.ids.len() * stride, 0);
    let dest = &mut out.words[first..];
    if job.ids.is_empty() {
        return Ok(0);
    }
    // A run of one chunk (a small draw's) needs no queue and no worker.
    if job.ids.len() <= CHUNK {
        let mut runner = StageRunner::new(program);
        let trace = trace
            .map(|t| (t, t.slot))
            .filter(|&(_, k)| k < job.ids.len());
        let run = shade_chunk(&mut runner, job, job.ids, dest, stride, trace, writes)
            .and_then(|n| charge(n).map(|()| n));
        // Its wave goes to the next draw of the same program in a command list.
        runner.release();
        return run;
    }
    let chunks: Vec<(usize, &mut [u32])> = dest
        .chunks_mut((CHUNK * stride).max(1))
        .enumerate()
        .collect();
    let nchunks = chunks.len();
    let queue = Mutex::new(chunks);
    let errors: Mutex<Vec<(usize, ExecError)>> = Mutex::new(Vec::new());
    let instructions = Mutex::new(0u64);
    let stop = AtomicBool::new(false);
    let worker = || {
        let mut runner = StageRunner::new(program);
        let mut executed = 0u64;
        loop {
            if stop.load(Ordering::Relaxed) {
                break;
            }
            let next = queue.lock().unwrap_or_else(|p| p.into_inner()).pop();
            let Some((c, dst)) = next else { break };
            let ids = &job.ids[c * CHUNK..(c * CHUNK + CHUNK).min(job.ids.len())];
            let trace = trace.and_then(|t| {
                t.slot
                    .checked_sub(c * CHUNK)
                    .filter(|&k| k < ids.len())
                    .map(|k| (t, k))
            });
            match shade_chunk(&mut runner, job, ids, dst, stride, trace, writes)
                .and_then(|n| charge(n).map(|()| n))
            {
                Ok(n) => executed += n,
                Err(e) => {
                    stop.store(true, Ordering::Relaxed);
                    errors
                        .lock()
                        .unwrap_or_else(|p| p.into_inner())
                        .push((c, e));
                }
            }
        }
        *instructions.lock().unwrap_or_else(|p| p.into_inner()) += executed;
        // Its wave goes to the next draw of the same program in a command list.
        runner.release();
    };
    let threads = threads.clamp(1, nchunks);
    if threads == 1 {
        worker();
    } else {
        let _ = thread::scope(|s| {
            for _ in 0..threads {
                s.spawn(|_| worker());
            }
        });
    }
    let mut errors = errors.into_inner().unwrap_or_else(|p| p.into_inner());
    errors.sort_by_key(|e| e.0);
    if let Some((_, e)) = errors.into_iter().next() {
        return Err(e);
    }
    Ok(instructions.into_inner().unwrap_or_else(|p| p.into_inner()))
}

/// The vertex wave a draw traces (`pipeline::TraceWave`): the unique-vertex slot it
/// holds and the debug program.
pub(crate) struct Trace<'a> {
    pub program: &'a TraceProgram<'a>,
    pub slot: usize,
}

fn shade_chunk(
    runner: &mut StageRunner<'_>,
    job: &VertexJob<'_>,
    ids: &[u32],
    dst: &mut [u32],
    stride: usize,
    trace: Option<(&Trace<'_>, usize)>,
    writes: Option<&dyn WriteSink>,
) -> Result<u64, ExecError> {
    let w = runner.wave_size();
    let mut executed = 0;
    let mut fetched: Vec<[u32; 4]> = vec![[0; 4]; job.layout.len()];
    for (b, batch) in ids.chunks(w).enumerate() {
        if let Some((t, k)) = trace
            && k / w == b
        {
            // The traced batch runs the debug program in waves of the program's size.
            let mut dr = StageRunner::new(&t.program.program);
            let dw = dr.wave_size();
            for (j, sub) in batch.chunks(dw).enumerate() {
                fill(&mut dr, job, sub, &mut fetched);
                let lanes = if sub.len() >= 128 {
                    u128::MAX
                } else {
                    (1u128 << sub.len()) - 1
                };
                let traced = (k % w) / dw == j;
                let run = t.program.run(&mut dr, lanes, 0, None, traced, writes)?;
                executed += run.lane_instructions;
                let outputs = dr.outputs();
                for l in 0..sub.len() {
                    let v = b * w + j * dw + l;
                    for word in 0..stride {
                        if let Some(d) = dst.get_mut(v * stride + word) {
                            *d = outputs.get(word * dw + l).copied().unwrap_or(0);
                        }
                    }
                }
                if traced {
                    t.program.hook.set(Traced {
                        wave_size: dw as u32,
                        pixels: Vec::new(),
                        vertices: sub.to_vec(),
                        outputs: outputs.to_vec(),
                        killed: run.killed,
                        group_memory: Vec::new(),
                    });
                }
            }
            continue;
        }
        fill(runner, job, batch, &mut fetched);
        let lanes = if batch.len() >= 128 {
            u128::MAX
        } else {
            (1u128 << batch.len()) - 1
        };
        let run = runner.run_writes(lanes, 0, None, writes)?;
        executed += run.lane_instructions;
        let outputs = runner.outputs();
        for l in 0..batch.len() {
            let v = b * w + l;
            for word in 0..stride {
                if let Some(d) = dst.get_mut(v * stride + word) {
                    *d = outputs.get(word * w + l).copied().unwrap_or(0);
                }
            }
        }
    }
    Ok(executed)
}

/// Writes the input words and ids of the vertices `batch` into `runner`'s lanes.
fn fill(
    runner: &mut StageRunner<'_>,
    job: &VertexJob<'_>,
    batch: &[u32],
    fetched: &mut [[u32; 4]],
) {
    let w = runner.wave_size();
    {
        for (l, &id) in batch.iter().enumerate() {
            for (e, f) in job.layout.iter().zip(fetched.iter_mut()) {
                let index = match job.instance.checked_div(e.step_rate) {
                    None => i64::from(id) + job.fetch_base,
                    Some(k) => i64::from(job.start_instance) + i64::from(k),
                };
                *f = ia::fetch(e, job.buffers, index);
            }
            let inputs = runner.inputs_mut();
            for (word, src) in job.sources.iter().enumerate() {
                let v = match *src {
                    VsSource::Layout { element, component } => fetched
                        .get(element)
                        .map_or(0, |f| f[usize::from(component & 3)]),
                    VsSource::VertexId => id,
                    VsSource::InstanceId => job.instance,
                    VsSource::StartVertex => job.fetch_base as u32,
                    VsSource::StartInstance => job.start_instance,
                    VsSource::Zero => 0,
                };
                if let Some(x) = inputs.get_mut(word * w + l) {
                    *x = v;
                }
            }
            runner.set_ids(l, [id, job.instance, 0]);
        }
    }
}
