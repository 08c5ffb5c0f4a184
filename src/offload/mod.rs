//! The HLSL offload test suite (`llvm/offload-test-suite`) on dxlane: `dxlane offload
//! PIPELINE.yaml SHADER…` behaves like the suite's `offloader` with dxlane as its
//! Direct3D device, and `dxlane offload --api-query` describes that device as the
//! suite's `api-query` does (`docs/offload-test-suite.md`).
//!
//! Owns: the pipeline description ([`pipeline`]: its YAML schema and buffer contents),
//! running one ([`run`]: made into a job, run through the `job` module, read back, the
//! `Results` rules checked; a raster pipeline's draw set up as the suite's Direct3D 12
//! device sets it up, in `draw`; a ray tracing pipeline's acceleration structures, hit
//! groups and shader binding table made into the job's, in `rays`; root constants and root descriptors bound at the
//! registers of the program's root signature, in `root`), printing it back as the suite's tools print it
//! ([`yaml_out`]), and the device description ([`device`]). Does not own: compiling HLSL
//! (the suite's `dxc` or `clang-dxc`), binding and running (`job`), the command line
//! (`cli`).

pub mod device;
mod draw;
pub mod pipeline;
mod rays;
mod root;
pub mod run;
pub mod yaml_out;

pub use run::{OffloadOptions, Outcome, ReadBack, run};

/// A pipeline that cannot be read or run: the file, the line (0: the file as a whole)
/// and what is wrong, naming the field.
#[derive(Debug, thiserror::Error)]
#[error("{}:{line}: {message}", file.display())]
pub struct OffloadError {
    /// The pipeline file.
    pub file: std::path::PathBuf,
    /// The line, from 1 (0: the file as a whole).
    pub line: usize,
    /// What is wrong.
    pub message: String,
}
