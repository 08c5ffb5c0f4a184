//! Writes the Cornell box example (`examples/cornell.toml`): the box's and the leaf's
//! vertices and the primitive records in `examples/data/`, and the DXIL library programs
//! in `examples/cornell/`, built with the crate's own module builder and writers
//! (`examples/cornell/make.rs`).
//!
//! ```sh
//! cargo run --example make_cornell
//! ```
//!
//! The files are committed, and `tests/all/cornell.rs` checks that they are what this
//! makes; rerun it after changing the scene or a program, then re-bless the golden
//! (`DXLANE_BLESS=1 cargo test --test all cornell`).

use std::path::Path;

// The tests use the parts of the module this program does not.
#[allow(dead_code)]
#[path = "cornell/make.rs"]
mod make;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    for (name, bytes) in make::files() {
        let path = root.join(&name);
        std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        println!("{} ({} bytes)", path.display(), bytes.len());
    }
}
