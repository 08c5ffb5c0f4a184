//! Ray tracing's fixed-function half: acceleration structures and their traversal with
//! the rules of the DirectX Raytracing (DXR) functional specification.
//!
//! What it owns:
//!
//! - [`accel`]: bottom-level structures of triangle geometries (every vertex format of
//!   `D3D12_RAYTRACING_GEOMETRY_TRIANGLES_DESC`, 16- and 32-bit or no indices, an
//!   optional 3×4 transform) or procedural AABBs, and top-level structures of instances;
//!   built on the CPU, deterministically for any thread count ([`bvh`]).
//! - [`triangle`]: the watertight ray/triangle test with a tie rule for shared edges and
//!   vertices.
//! - [`traverse`]: the resumable traversal every consumer drives — [`RayQuery`] for inline
//!   ray queries, [`Tracer::trace_ray`] with any-hit and intersection programs for
//!   `TraceRay` — and the hit records that carry every value DXR's accessors return.
//!
//! What it does not own: running shader programs (the caller's any-hit and intersection
//! programs are callbacks, an inline query returns to its caller), shader tables, state
//! objects, payloads, and the job file. It depends on nothing else in the crate, so
//! `exec` (ray queries) and `pipeline` (`DispatchRays`) can both use it.
//!
//! Each rule is documented where it is implemented, with its section of the DXR spec;
//! `docs/raytracing.md` gathers them, the order dxlane chose where the spec leaves it
//! open, and the comparison with Intel Embree.

pub mod accel;
pub(crate) mod bvh;
pub mod flags;
pub mod math;
pub mod traverse;
pub(crate) mod triangle;

pub use accel::{
    AabbsDesc, AccelError, BottomLevel, BuildOptions, Geometry, GeometryDesc, GeometryInfo,
    GeometryType, IndexFormat, Instance, InstanceDesc, MAX_INSTANCES, MAX_PRIMITIVES, TopLevel,
    TrianglesDesc, VertexFormat,
};
pub use flags::{
    GeometryFlags, HIT_KIND_TRIANGLE_BACK_FACE, HIT_KIND_TRIANGLE_FRONT_FACE, InstanceFlags,
    RayFlags,
};
pub use math::Transform3x4;
pub use traverse::{
    AnyHitDecision, AnyHitProgram, CandidateType, CommittedStatus, Hit, HitReporter,
    IntersectionProgram, NoPrograms, PrimitiveKind, Ray, RayQuery, ReportHitOutcome, TraceRayDesc,
    TraceResult, Tracer, Traversal, TraversalStats, trace_ray,
};

#[cfg(test)]
mod tests;
