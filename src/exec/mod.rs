//! Executing the interpreter IR in waves of lanes, with WARP's arithmetic rules.
//!
//! Owns: waves and their lanes, control flow and reconvergence, the arithmetic rules
//! (every WARP-faithful rule lives here, each with its source), per-lane arrays and group
//! shared memory, resource access through descriptors, derivatives, wave and quad
//! operations, barriers, and the limits of a run. Does not own: DXBC or DXIL (it sees
//! only `ir`), resources' storage and filtering (`resources`), or how threads are laid out
//! and groups distributed over workers (`pipeline::dispatch`).
//!
//! # The wave model
//!
//! A **wave** is `W` lanes run together (`W` = 4 … 128, a power of two; WARP's default is
//! 8). Its registers are stored structure-of-arrays: each IR register is one `[u32; W]`,
//! so an instruction is one loop over the lanes — the same work for every lane, which the
//! compiler unrolls and vectorises. Constant registers are filled once when the wave is
//! made. The hot code is monomorphic over `W` (`Wave<const W: usize>`), chosen once per
//! run from the six supported widths.
//!
//! An **execution mask** says which lanes run the current block. Every lane waits at a
//! block; after each terminator the wave continues with the lowest-numbered block some
//! lane waits at (the rule `ir::cfg` orders blocks for), running exactly the lanes waiting
//! there. Uniform branches — every active lane going the same way, to a block below the
//! waiting ones — skip that search. So lanes that diverge at an `if` reconverge at its
//! join, and lanes that leave a loop early wait for the others after it: wave operations
//! after an `if`/`else` or a loop see every lane again.
//!
//! A **thread group** is a set of waves sharing group shared memory; a `barrier
//! group_sync` suspends a wave mid-block until every wave of its group has reached it
//! (see [`GroupRunner`]). Groups are independent and run in parallel on worker threads;
//! results never depend on the number of workers, except where the program itself is
//! order-dependent through atomics on UAVs shared between groups: commutative atomics
//! (add, and, or, xor, min, max) end with the same memory, but the old values they return
//! to each lane, and the outcome of exchanges and compare-exchanges racing between groups,
//! follow the order groups happened to run in.
//!
//! **Helper lanes** (pixel work, `demote`) run but never write memory and take no part
//! in wave operations; `discard` ends lanes. Quads are lanes `4k … 4k + 3`.
//!
//! # Outcomes and errors
//!
//! What a program does — out-of-bounds accesses, discards, NaNs — is an outcome, never an
//! error. [`ExecError`] is for engine failures: a lane passing its instruction budget
//! (an infinite loop), a lane reaching `unreachable`, memory limits, bad bindings; it names
//! the thread, the instruction and its source.
//!
//! # Rules and profiles
//!
//! [`float`], [`convert`], [`arith`] and [`bits`] hold one function per rule, each citing
//! its source (D3D11.3 functional specification, the seeds, DXIL.rst, the WARP-validated
//! DirectXShaderCompiler execution tables) with a unit test. Rules that differ between WARP
//! releases are read from the run's [`Profile`].

// Lane loops index several `[u32; W]` arrays by the same lane; indexed loops read
// clearest there and vectorise as well as iterator chains.
#![allow(clippy::needless_range_loop)]

pub mod arith;
pub mod bits;
pub mod budget;
mod control;
pub mod convert;
pub mod float;
mod group;
mod hit_object;
mod interp;
pub mod jit;
mod memory;
mod mesh;
pub mod observe;
pub mod profile;
mod ray_query;
mod rays;
mod resource;
mod sample;
pub mod stage;
mod unbound;
mod wave;
mod wave_ops;

pub use budget::{At, ExecError, Invocation, Limits, RunBudget, Spent, Xyz};
pub use group::{GroupHooks, GroupRunner, GroupStats, MAX_GROUP_THREADS, Program};
pub use hit_object::{HitObject, HitObjectKind};
pub use observe::{
    Binding, MemWrite, WaveObserver, WaveRead, WordWriter, WriteSink, WriteTarget, WriterMap,
};
pub use profile::{F16Rule, Fp32Denormals, Profile};
pub use rays::RayContext;
pub use resource::DescriptorTable;
pub use stage::{PixelContext, PreparedStage, StageProgram, StageRunner, WaveRun};
pub use wave::EmitRecord;

use crate::ir::{Inst, Lanes, Shader};

/// Whether an instruction reads other lanes' values or the wave's shape (the instruction
/// table's `lanes` column): wave and quad operations, derivatives (and the sampling that
/// takes them), lane index and count. A shader without any runs the same whichever
/// lanes share a wave, which lets `pipeline::dispatch` run more threads side by side
/// than a wave holds.
pub fn crosses_lanes(inst: &Inst) -> bool {
    inst.lanes() != Lanes::Own
}

/// Whether any instruction of the shader [crosses lanes](crosses_lanes).
pub fn shader_crosses_lanes(shader: &Shader) -> bool {
    shader.insts.iter().any(crosses_lanes)
}

/// What every handler may read while a group runs.
pub(crate) struct Ctx<'a> {
    /// The shader.
    pub shader: &'a Shader,
    /// The dispatch's descriptors.
    pub table: &'a DescriptorTable,
    /// The WARP profile.
    pub profile: &'a Profile,
    /// Instructions each lane may execute.
    pub limit: u64,
    /// Whether 32-bit float arithmetic flushes denormals.
    pub ftz: bool,
    /// `SV_GroupID` of the running group.
    pub group_id: [u32; 3],
    /// Bytes of group shared memory.
    pub shared_bytes: u64,
    /// Pixel stages: what the pipeline answers about the lanes' pixels.
    pub pixel: Option<&'a dyn PixelContext>,
    /// Ray-tracing stages: what the pipeline answers about the lanes' rays and runs for
    /// them (`rays`).
    pub rays: Option<&'a dyn RayContext>,
    /// Native code for the shader's arithmetic, when the run uses the native engine.
    pub jit: Option<&'a jit::JitShader>,
    /// Where memory writes are reported, when someone observes them (`observe`).
    pub writes: Option<&'a dyn observe::WriteSink>,
}
