//! Running programs: compute dispatch, and the graphics pipeline that runs vertex and
//! pixel programs inside a draw.
//!
//! Owns: how a dispatch's threads are laid out in waves and quads and spread over worker
//! threads ([`dispatch`](fn@dispatch)); the draw state in Direct3D 12's vocabulary ([`state`]) and
//! the pipeline's stages, one module each, as D3D names them — input assembly ([`ia`]),
//! the vertex stage ([`vs`]), the hull stage ([`hs`]), the domain stage ([`ds`]), the
//! geometry stage ([`gs`]), the amplification and mesh stages ([`amplification`], [`ms`]),
//! stage linking ([`link`]), clipping ([`clip`]), primitive
//! setup ([`setup`]), the rasterizer ([`raster`]), attribute interpolation
//! ([`interp`]), the pixel stage ([`ps`]) and the output merger ([`om`]), queries and
//! predication ([`query`]) — run by
//! [`draw()`](fn@draw) ([`draw`](mod@draw): the orchestration), with the screen cut into
//! tiles that list their primitives ([`bin`]) and run on worker threads (`tile`), and
//! one wave traceable for the debugger ([`trace`]); the work value and its plan
//! ([`work`], [`plan`]) and command lists of dispatches, draws, clears and copies
//! ([`commands`]), whose draws keep their prepared programs, waves and tile lists from one
//! draw to the next as a pipeline state object would ([`pso`]); `DispatchRays` over ray-tracing programs and their shader table
//! ([`rays`]); acceleration-structure builds as list commands ([`accel_build`]); view instancing, the pipeline run once per view ([`view_instancing`]);
//! variable-rate shading, the pixel program run per coarse pixel ([`vrs`]).
//! Does not own: executing waves
//! (`exec`) or resource storage (`resources`).

pub mod accel_build;
pub mod amplification;
pub mod bin;
pub mod clip;
pub mod commands;
pub mod dispatch;
pub mod draw;
pub mod ds;
pub mod gs;
pub mod hs;
pub mod ia;
pub mod interp;
pub mod link;
pub mod ms;
pub mod om;
pub mod plan;
pub mod ps;
pub mod pso;
pub mod query;
pub mod raster;
pub mod rays;
pub mod setup;
pub mod so;
pub mod state;
pub mod tess;
pub(crate) mod tile;
pub mod trace;
pub mod view_instancing;
pub mod vrs;
pub mod vs;
pub mod work;

pub use commands::{Command, CommandReport, ListReport, run_list};
pub use dispatch::{
    Bindings, DispatchHooks, DispatchReport, ObserveWave, ThreadLayout, dispatch, dispatch_with,
};
pub use draw::{DrawError, DrawField, DrawOptions, DrawReport, StageTimes, draw};
pub use plan::{BatchKind, BatchLanes, Plan, ProgramWaveSize};
pub use ps::{MergeObserver, MergeTarget, PixelLane, PixelObserver};
pub use pso::PsoCache;
pub use state::*;
pub use trace::{NestedObserver, NestedTrace, TraceAt, TraceWave, Traced};
pub use view_instancing::{ViewInstanceLocation, ViewInstancingDesc};
pub use work::{
    DispatchWork, DrawWork, Hooks, LanePlace, LaneSelect, LocateError, MeshWork, Work, WorkReport,
};

/// Programs the pipeline's unit tests draw with.
#[cfg(test)]
pub(crate) mod fixtures {
    /// A full-screen triangle from `SV_VertexID`.
    pub const FULLSCREEN_VS: &str = "shader vertex
regs 8
const r0 = 0x1
const r1 = 0x2
const r2 = 0x40800000 ; 4.0
const r3 = 0x3f800000 ; 1.0
const r4 = 0x0
io_words in 4 out 4
input \"SV_VertexID\" 0 sv vertex_id reg 0 rows 1 mask x uint interp undefined slot 0
output \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    input r5, 0
    and r6, r5, r0
    utof r6, r6
    fmul r6, r6, r2
    fsub r6, r6, r3
    output 0, r6
    and r7, r5, r1
    utof r7, r7
    fmul r7, r7, r2
    fsub r7, r7, r3
    fsub r7, r4, r7
    output 1, r7
    output 2, r4
    output 3, r3
    return
";

    /// Writes its pixel's position as the colour: each lane's outputs name its pixel.
    pub const POSITION_PS: &str = "shader pixel
regs 4
const r0 = 0x0
io_words in 4 out 4
input \"SV_Position\" 0 sv position reg 0 rows 1 mask xyzw float interp noperspective slot 0
output \"SV_Target\" 0 sv target reg 0 rows 1 mask xyzw float interp undefined slot 0
block0:
    input r1, 0
    input r2, 1
    output 0, r1
    output 1, r2
    output 2, r0
    output 3, r0
    return
";
}
