//! Running programs: compute dispatch (the graphics pipeline comes later).
//!
//! Owns: how a dispatch's threads are laid out in waves and quads, how thread groups are
//! spread over worker threads, and the binding of descriptors to a shader's declared
//! resources. Does not own: executing waves (`exec`) or resource storage (`resources`).

pub mod dispatch;

pub use dispatch::{
    Bindings, DispatchHooks, DispatchOptions, DispatchReport, ObserveWave, ThreadLayout, dispatch,
    dispatch_with,
};
