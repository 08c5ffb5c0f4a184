//! dxlane runs Direct3D shader programs on the CPU, giving the answers Microsoft's WARP
//! gives.
//!
//! # Data flow
//!
//! ```text
//! bytes ─► container ─┬─► dxbc::Program ──► lower::dxbc ─┐
//!                     ├─► dxil::Module  ──► lower::dxil ─┼─► ir::Shader ─► exec (waves of lanes:
//!                     └─► signatures, RDEF, PSV0, SFI0 ──┘         interpreter, or native code via exec::jit)
//! job file ─► job ─► resources ─► pipeline ─► outputs
//!                                 ├─ dispatch (compute)
//!                                 ├─ draw: ia → vs → link → clip → setup → bin → tile (raster, interp, ps, om)
//!                                 └─ tess (the fixed-function tessellator)
//! capture (compare, record) and debug (one wave, stepped) use the same run; cli calls them.
//! ```
//!
//! Dependencies point one way: [`container`] ← [`dxbc`], [`dxil`] ← [`lower`] → [`ir`] ←
//! [`exec`] ← [`pipeline`] ← [`job`] ← [`capture`], [`debug`] ← [`cli`]; [`exec`] also uses
//! [`resources`], and [`raytracing`] is a leaf but for `wide` (functions compiled for the
//! baseline and for AVX2, which it shares with the pixel path). The decoders know nothing
//! of execution; [`exec`] knows nothing of DXBC or DXIL; only [`lower`] knows both sides.
//! [`ir`], [`container`] and `wide` are leaves. `docs/architecture.md` holds
//! the table of who may import whom, and a test holds the code to it.
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
pub mod offload;
pub mod pipeline;
pub mod raytracing;
pub mod resources;
pub mod shader_test;
pub(crate) mod wide;
