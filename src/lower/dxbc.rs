//! DXBC (Shader Model 4.0–5.1) → IR.

use super::{LoadOptions, LowerError};
use crate::container::Container;
use crate::ir::Shader;

/// Lowers the `SHDR`/`SHEX` program of a container.
pub fn lower_container(
    _container: &Container<'_>,
    _opts: &LoadOptions,
) -> Result<Shader, LowerError> {
    Err(LowerError::Unsupported {
        what: "DXBC programs (lowering not written yet)".into(),
        location: "program".into(),
    })
}
