//! vkd3d's shader-test files (`*.shader_test`): reading them and running them on dxlane.
//!
//! Owns: the file format ([`parse`]: sections, qualifiers, resources, test commands, each
//! with its line), and running a file ([`run`]): once per shader model in its range, each
//! shader section compiled by an outside compiler (`vkd3d-compiler` for SM 4.0–5.1, `dxc`
//! for 6.0), each `draw` or `dispatch` made into a job and run through the `job` module,
//! each `probe` checked against the results. Does not own: compiling HLSL (the outside
//! compilers), binding and running (the `job` module), printing (`cli`).
//!
//! # The format (as vkd3d's `tests/shader_runner.c` reads it)
//!
//! A file is a list of sections, each opened by a `[name]` line; lines starting with `%`
//! are comments. `[require]` states the shader model range (`shader model >= 4.0`,
//! `shader model < 6.0`), compile options (`options: row-major`) and features
//! (`float64`, `int64`, `geometry-shader`, `tessellation-shader`, `rov`, `wave ops`) of
//! the sections after it, up to the next `[require]`. `[pixel shader]`, `[vertex
//! shader]`, `[compute shader]`, `[geometry shader]`, `[hull shader]` and `[domain
//! shader]` hold HLSL (entry `main`; a hull program names its patch-constant function),
//! qualified by `todo(…)`, `fail(…)` (the compile must fail) or `notimpl(…)`; with
//! `dxbc-tpf-hex` among the qualifiers the body is a compiled DXBC container in
//! hexadecimal words instead (`parse::hex_program`). `[srv n]`,
//! `[uav n]`, `[rtv n]`, `[dsv]` and `[vb n]` describe resources (`format`, `size`,
//! `stride`, `levels`, then their data), `[sampler n]` a sampler, `[input layout]` the
//! vertex layout; `[test]` holds commands: `draw quad`, `draw TOPOLOGY COUNT
//! [INSTANCES]` (`N control point patch list` for N of 1 to 4 among the topologies),
//! `dispatch X Y Z`, `uniform OFFSET TYPE VALUES`, `clear rtv n R G B A`, `clear dsv D`,
//! `depth FUNC`, `sample mask M`, and `probe`, each optionally after `todo(…)`, `if(…)`,
//! `bug_if(…)` or `fail(…)`.
//!
//! A qualifier's condition is a `|`-list of `&`-lists of terms: `sm>=4`, `sm<6` (any of
//! `<`, `<=`, `>`, `>=`, `==` and a model `4`, `5.1`), or a tag naming a runner. dxlane's
//! tags are [`TAGS`]: `dxlane` (this runner), `d3d12` (the API it stands for) and `warp`
//! (the device whose answers it gives); a `!` before a term negates it.

pub mod parse;
pub mod run;

pub use parse::{ShaderTest, parse_file};
pub use run::{Outcome, RunConfig, RunReport, run_file};

/// The tags true for dxlane in `if(…)`, `todo(…)` and `fail(…)` conditions.
pub const TAGS: &[&str] = &["dxlane", "d3d12", "warp"];

/// A malformed shader-test file: the file, the line and what is wrong.
#[derive(Debug, thiserror::Error)]
#[error("{}:{line}: {message}", file.display())]
pub struct ShaderTestError {
    /// The file.
    pub file: std::path::PathBuf,
    /// The line, from 1 (0: the file as a whole).
    pub line: usize,
    /// What is wrong, naming the field.
    pub message: String,
}
