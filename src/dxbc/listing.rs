//! stub
use super::Program;
/// stub
pub fn listing(_p: &Program) -> String {
    String::new()
}
