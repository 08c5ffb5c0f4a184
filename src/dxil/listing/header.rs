//! The comment block of a listing.
use crate::container::{Container, DxilProgramHeader};
use crate::dxil::llvm::Module;

/// The comment block dxc prints before the module.
pub fn header(c: &Container<'_>, program: &DxilProgramHeader, m: &Module) -> String {
    let _ = (c, program, m);
    String::new()
}
