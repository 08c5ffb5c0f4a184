//! Draw state: any bytes as a draw's state (topology, buffers, layout, rasterizer,
//! blend, depth-stencil, viewport, scissor, sample mask, targets) given straight to
//! `pipeline::draw` — an error or a bounded draw, never a panic or a hang. The body is
//! `bodies::draw_state`, which `tests/all/fuzz_bodies.rs` also runs on random bytes in
//! every `cargo test`.
#![no_main]

#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    let _ = bodies::draw_state(data);
});
