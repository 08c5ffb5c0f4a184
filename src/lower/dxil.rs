//! DXIL (Shader Model 6) → IR.

use super::{LoadOptions, LowerError};
use crate::container::Container;
use crate::ir::Shader;

/// Lowers the DXIL program of a container.
pub fn lower_container(
    _container: &Container<'_>,
    _opts: &LoadOptions,
) -> Result<Shader, LowerError> {
    Err(LowerError::Unsupported {
        what: "DXIL programs (lowering not written yet)".into(),
        location: "program".into(),
    })
}
