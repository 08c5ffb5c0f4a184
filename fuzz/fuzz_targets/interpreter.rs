//! The interpreter on its own: any bytes as a program in the IR's text form, parsed,
//! validated and dispatched with every range bound and small budgets — an error or a
//! finished run, never a panic or a hang. The body is `bodies::interpreter`, which
//! `tests/all/fuzz_bodies.rs` also runs on mutated seeds in every `cargo test`.
#![no_main]

#[path = "../bodies.rs"]
mod bodies;

libfuzzer_sys::fuzz_target!(|data: &[u8]| {
    bodies::interpreter(data);
});
