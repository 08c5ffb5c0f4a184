//! The Debug Adapter Protocol server (`dxlane debug --dap`) reading any bytes as its
//! input stream: Content-Length framing, request parsing and every handler, in any
//! order, over a small lane — an answer or an error response, never a panic or a hang.
//! The body is `bodies::dap_stream`, which `tests/all/fuzz_bodies.rs` also runs on
//! mutated seeds in every `cargo test`.
#![no_main]

#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    bodies::dap_stream(data);
});
