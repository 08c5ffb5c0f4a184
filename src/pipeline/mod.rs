//! Running programs: compute dispatch, and the graphics pipeline that runs vertex and
//! pixel programs inside a draw.
//!
//! Owns: how a dispatch's threads are laid out in waves and quads and spread over worker
//! threads ([`dispatch`](fn@dispatch)); the draw state in Direct3D 12's vocabulary ([`state`]) and
//! the pipeline's stages, one module each, as D3D names them — input assembly ([`ia`]),
//! the vertex stage ([`vs`]), stage linking ([`link`]), clipping ([`clip`]), primitive
//! setup and binning ([`setup`]), the rasterizer ([`raster`]), attribute interpolation
//! ([`interp`]), the pixel stage ([`ps`]) and the output merger ([`om`]) — run by
//! [`draw()`]. Does not own: executing waves (`exec`) or resource storage (`resources`).

pub mod clip;
pub mod dispatch;
pub mod draw;
pub mod ia;
pub mod interp;
pub mod link;
pub mod om;
pub mod ps;
pub mod raster;
pub mod setup;
pub mod state;
pub mod tess;
pub mod vs;

pub use dispatch::{
    Bindings, DispatchHooks, DispatchOptions, DispatchReport, ObserveWave, ThreadLayout, dispatch,
    dispatch_with,
};
pub use draw::{
    DrawError, DrawField, DrawOptions, DrawReport, DrawState, StageTimes, TraceAt, TraceWave,
    Traced, draw,
};
pub use ps::{MergeObserver, MergeTarget, PixelLane, PixelObserver};
pub use state::*;
