//! (filled in with its decoder)
fn main() {}
