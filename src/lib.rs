//! dxlane runs Direct3D shader programs on the CPU, giving the answers Microsoft's WARP
//! gives.
//!
//! # Data flow
//!
//! ```text
//! bytes ─► container ─┬─► dxbc::Program ──► lower::dxbc ─┐
//!                     ├─► dxil::Module  ──► lower::dxil ─┼─► ir::Shader ─► exec (waves of lanes)
//!                     └─► signatures, RDEF, PSV0, SFI0 ──┘
//!               job file ─► resources ─► pipeline (compute dispatch) ─► outputs
//! ```
//!
//! Dependencies point one way: [`container`] ← [`dxbc`], [`dxil`] ← [`lower`] → [`ir`] ←
//! [`exec`] ← [`pipeline`] ← [`job`] ← [`cli`]. The decoders know nothing of execution;
//! [`exec`] knows nothing of DXBC or DXIL; only [`lower`] knows both sides. [`ir`],
//! [`container`] and [`resources`] are leaves.
//!
//! Every decoder treats its input as untrusted: it returns an error naming the part and
//! the byte, token or bit offset, never panics, and never allocates from an unchecked
//! length.

#![deny(unsafe_code)]

pub mod batch;
pub mod capture;
pub mod cli;
pub mod container;
pub mod debug;
pub mod dxbc;
pub mod dxil;
pub mod exec;
pub mod ir;
pub mod job;
pub mod lower;
pub mod pipeline;
pub mod raytracing;
pub mod resources;
