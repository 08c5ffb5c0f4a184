//! Writes the meshlet example (`examples/meshlets.toml` and its vertex twin
//! `examples/meshlets_vertex.toml`): the torus's meshlets, vertices and triangles and the
//! scene's constants in `examples/data/`, and the four DXIL programs in
//! `examples/meshlets/`, built with the crate's own module builder and writers
//! (`examples/meshlets/make.rs`).
//!
//! ```sh
//! cargo run --example make_meshlets
//! ```
//!
//! The files are committed, and `tests/all/meshlets.rs` checks that they are what this
//! makes; rerun it after changing the scene or a program, then re-bless the goldens
//! (`DXLANE_BLESS=1 cargo test --test all draw::draw_examples`).

use std::path::Path;

// The tests use the parts of the module this program does not.
#[allow(dead_code)]
#[path = "meshlets/make.rs"]
mod make;

fn main() {
    let root = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples");
    for (name, bytes) in make::files() {
        let path = root.join(&name);
        std::fs::write(&path, &bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
        println!("{} ({} bytes)", path.display(), bytes.len());
    }
    let model = make::model();
    let scene = make::scene(model.meshlets.len() as u32);
    let visible = make::visible_meshlets(&model, &scene);
    println!(
        "{} triangles in {} meshlets; the frustum keeps {} and culls {}",
        model.triangles.len(),
        model.meshlets.len(),
        visible.len(),
        model.meshlets.len() - visible.len()
    );
}
