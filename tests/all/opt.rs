//! The IR clean-up passes (`ir::opt`) on every program that lowers: the result
//! validates, never grows, and (through the end-to-end tests, which load with the passes
//! on) computes the same outputs.

use dxlane::ir::{WithLocs, opt, validate};
use dxlane::lower::{self, LoadOptions};

use crate::common;

#[test]
fn every_lowered_program_optimises_to_a_valid_smaller_shader() {
    let raw = LoadOptions {
        no_opt: true,
        ..LoadOptions::default()
    };
    let (mut before, mut after, mut programs) = (0usize, 0usize, 0usize);
    for path in common::dxbc_programs()
        .into_iter()
        .chain(common::dxil_programs())
    {
        let bytes = std::fs::read(&path).unwrap();
        let Ok(loaded) = lower::load(&bytes, &raw) else {
            continue;
        };
        let mut s = loaded.shader;
        let stats = opt::optimize(&mut s);
        validate(&s).unwrap_or_else(|e| panic!("{}: {e}", common::display_name(&path)));
        assert!(
            stats.insts_after <= stats.insts_before,
            "{}",
            common::display_name(&path)
        );
        before += stats.insts_before;
        after += stats.insts_after;
        programs += 1;
    }
    eprintln!("ir::opt: {programs} programs, {before} instructions before, {after} after");
}

#[test]
fn mandelbrot_snapshot() {
    let path = common::root().join("shaders/mandelbrot.cs_5_0.dxbc");
    let bytes = std::fs::read(path).unwrap();
    let s = lower::load(&bytes, &LoadOptions::default()).unwrap().shader;
    common::assert_snapshot(
        "ir/optimized/mandelbrot.cs_5_0.dxbc.ir",
        &WithLocs(&s).to_string(),
    );
}
