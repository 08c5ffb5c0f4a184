//! A DXIL geometry program after a DXIL domain program (vs → hs → tessellator → ds →
//! gs → ps, every program DXIL but the pixel program's IR): the corpus's
//! `tessellation.{vs,hs,ds}.dxil` draw of `tests/jobs/corpus/tessellation_dxil.toml`
//! with a hand-built geometry program between the domain program and the rasterizer
//! that emits each input triangle's three vertices, as they came, as a triangle strip.

#![allow(clippy::indexing_slicing, clippy::unwrap_used)]

use std::path::{Path, PathBuf};

use super::dxil_streams::{DL, element, node};
use crate::container::FourCc;
use crate::container::write::{dxil_part, write_container};
use crate::dxil::dxop::DxOp;
use crate::dxil::llvm::build::Mb;
use crate::dxil::llvm::write::write_module;
use crate::dxil::llvm::{MdId, Metadata, Module, NamedMetadata, Type};
use crate::job::{Job, RunOptions, run_draw_job};

/// The geometry program: triangle input of `SV_Position` (row 0) and `COLOR` (row 1),
/// the same two as outputs, `maxvertexcount(3)`, a triangle strip on stream 0; it
/// copies input vertex 0, 1, 2 to the outputs and emits each.
fn pass_through() -> Module {
    let mut mb = Mb::new(DL);
    let (f32t, void) = (mb.t(Type::Float), mb.void());
    let kind = Some(mb.md(Metadata::String(b"gs".to_vec())));
    let (six, zero) = (
        super::dxil_streams::int(&mut mb, 32, 6),
        super::dxil_streams::int(&mut mb, 32, 0),
    );
    let model = node(&mut mb, vec![kind, six, zero]);
    let side = |mb: &mut Mb| {
        let pos = element(mb, 0, "SV_Position", 3, 0, 0);
        let color = element(mb, 1, "COLOR", 0, 1, 0);
        node(mb, vec![pos, color])
    };
    let (inputs, outputs) = (side(&mut mb), side(&mut mb));
    let sigs = node(&mut mb, vec![inputs, outputs, None]);
    // Triangle (3), max vertex count 3, stream mask 1, triangle strip (5), 1 instance.
    let state: Vec<Option<MdId>> = [3, 3, 1, 5, 1]
        .into_iter()
        .map(|v| super::dxil_streams::int(&mut mb, 32, v))
        .collect();
    let state = node(&mut mb, state);
    let tag = super::dxil_streams::int(&mut mb, 32, 1);
    let props = node(&mut mb, vec![tag, state]);
    let name = Some(mb.md(Metadata::String(b"main".to_vec())));

    mb.block();
    let (c0, s0) = (mb.ci(32, 0), mb.ci(8, 0));
    for v in 0..3 {
        let vertex = mb.ci(32, v);
        for id in 0..2 {
            let id = mb.ci(32, id);
            for c in 0..4 {
                let col = mb.ci(8, c);
                let x = mb.dx(
                    "loadInput.f32",
                    DxOp::LoadInput,
                    &[id, c0, col, vertex],
                    f32t,
                );
                mb.dx(
                    "storeOutput.f32",
                    DxOp::StoreOutput,
                    &[id, c0, col, x],
                    void,
                );
            }
        }
        mb.dx("emitStream", DxOp::EmitStream, &[s0], void);
    }
    mb.ret();
    let (mut m, fi) = mb.finish();
    let func = &m.functions[fi];
    m.metadata.push(Metadata::Value {
        ty: func.ptr_ty,
        value: func.value,
    });
    let fmd = Some(MdId(m.metadata.len() as u32 - 1));
    m.metadata.push(Metadata::Node {
        distinct: false,
        ops: vec![fmd, name, sigs, None, props],
    });
    let entry = MdId(m.metadata.len() as u32 - 1);
    for (n, id) in [
        ("dx.shaderModel", model.unwrap()),
        ("dx.entryPoints", entry),
    ] {
        m.named_metadata.push(NamedMetadata {
            name: n.into(),
            ops: vec![id],
        });
    }
    m
}

/// Runs the corpus's tessellated draw (its job text, read from beside the job so its
/// relative paths hold) with `gs` added when given; outputs go to `out`. Returns the
/// render target's bytes and the expectations that passed and failed.
fn run(root: &Path, gs: Option<&Path>, out: &Path) -> (Vec<u8>, usize, usize, u64) {
    let job_path = root.join("tests/jobs/corpus/tessellation_dxil.toml");
    let mut text = std::fs::read_to_string(&job_path).unwrap();
    if let Some(gs) = gs {
        text = text.replace(
            "ps = \"./tessellation.ps.ir\"",
            &format!("ps = \"./tessellation.ps.ir\"\ngs = \"{}\"", gs.display()),
        );
        assert!(text.contains("\ngs = "), "the job names its pixel program");
    }
    let job = Job::from_text(&text, &job_path).unwrap();
    let opts = RunOptions {
        out_dir: Some(out.to_path_buf()),
        summary: Some(out.join("summary.json")),
        allow_outside: true,
        ..RunOptions::default()
    };
    let r = run_draw_job(job, &opts).unwrap_or_else(|e| panic!("{e}"));
    let e = &r.summary.expectations;
    (
        r.targets[0].view.texture.to_bytes(),
        e.passed,
        e.failed,
        r.summary.draw.gs_invocations,
    )
}

/// D3D11.3 §13.2 and §8.17 (a geometry program after tessellation reads the
/// tessellator's primitives, in its order and winding): a DXIL program that emits each
/// input triangle unchanged, after the corpus's DXIL hull and domain programs, runs once
/// per tessellated triangle and leaves the target the draw without it leaves — every
/// pixel value hand-derived in `tessellation_dxil.toml` (its nine expectations pass) and
/// every byte equal.
#[test]
fn a_dxil_geometry_program_after_a_dxil_domain_program() {
    let root = PathBuf::from(env!("CARGO_MANIFEST_DIR"));
    if !root
        .join("target/corpora/dxil-reader/tessellation.ds.dxil")
        .is_file()
    {
        assert!(
            std::env::var_os("DXLANE_NO_CORPORA").is_some(),
            "the corpora are missing: run tools/fetch-corpora.sh (or set DXLANE_NO_CORPORA=1 to skip this check)"
        );
        eprintln!("DXLANE_NO_CORPORA is set: the DXIL gs-after-ds draw is not checked");
        return;
    }
    let out = std::env::temp_dir().join(format!("dxlane-gs-after-ds-{}", std::process::id()));
    std::fs::create_dir_all(&out).unwrap();
    let bitcode = write_module(&pass_through()).unwrap();
    let part = dxil_part(
        crate::container::ProgramVersion {
            kind: crate::container::ProgramKind::Geometry,
            major: 6,
            minor: 0,
        },
        (1, 0),
        &bitcode,
    )
    .unwrap();
    let gs = out.join("pass_through.gs.dxil");
    std::fs::write(
        &gs,
        write_container(&[(FourCc::DXIL, part.as_slice())]).unwrap(),
    )
    .unwrap();

    let (plain, passed, failed, none) = run(&root, None, &out);
    assert_eq!(
        (passed, failed, none),
        (9, 0, 0),
        "without the geometry program"
    );
    let (with_gs, passed, failed, invocations) = run(&root, Some(&gs), &out);
    assert_eq!((passed, failed), (9, 0), "with it: the hand-derived pixels");
    assert!(invocations > 1, "one invocation per tessellated triangle");
    assert!(with_gs == plain, "every byte of the target");
    let _ = std::fs::remove_dir_all(&out);
}
