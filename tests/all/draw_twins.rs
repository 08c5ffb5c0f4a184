//! Differential draws: the fxc (DXBC) and dxc (DXIL) builds of one pixel program that the
//! corpora ship, drawn with the same vertex program, the same state and the same data,
//! write the same bits to every render target and to the depth-stencil buffer (the
//! min-precision pair: the same values to half precision, see below).
//!
//! Pairs: `dxcontainer/features` `NAME.ps_*.dxbc` beside `NAME.dxil`, and the
//! `dxbc-reader` / `dxil-reader` fixtures of one name and source (`sampling`; its
//! Shader Model 6.6 build `sampling.66.dxil` too). The bindings come from both programs'
//! declarations by register (`twins::bind_twins`: deterministic small values, point
//! samplers); a Shader Model 5.0 program has no register spaces, so its DXIL twin's spaces
//! are read as 0 when binding (the sources differ only there). The vertex program is
//! `draw::vertex_program_for` (tests/all/draw.rs) the DXBC twin: a full-screen triangle whose attributes vary
//! across the target, so interpolation, derivatives and filtering all take part.

use std::path::PathBuf;

use dxlane::ir::{ComponentType, Stage, SysValue, parse_shader};
use dxlane::pipeline::{
    CullMode, DepthStencilView, DrawArgs, DrawOptions, DrawState, RenderTargetView, StencilOp, draw,
};
use dxlane::resources::{Format, Texture, TextureDesc};

use crate::draw::vertex_program_for;
use crate::{common, twins};

/// The corpora's pixel-program twins: (DXBC, DXIL).
fn pixel_twins() -> Vec<(PathBuf, PathBuf)> {
    let dxil = common::dxil_programs();
    let mut pairs = Vec::new();
    for b in common::dxbc_programs() {
        let name = b.file_name().unwrap().to_string_lossy().into_owned();
        let dir = b.parent().unwrap();
        let candidates: Vec<PathBuf> = if dir.ends_with("features") {
            match name.split_once(".ps_") {
                Some((stem, _)) => vec![dir.join(format!("{stem}.dxil"))],
                None => continue,
            }
        } else if dir.ends_with("dxbc-reader") {
            let stem = name.trim_end_matches(".dxbc");
            let other = dir.parent().unwrap().join("dxil-reader");
            vec![
                other.join(format!("{stem}.dxil")),
                other.join(format!("{stem}.66.dxil")),
            ]
        } else {
            continue;
        };
        for c in candidates {
            if dxil.contains(&c) {
                pairs.push((b.clone(), c));
            }
        }
    }
    pairs
}

/// Draws `ps` (with `vs`) into 8 × 8 targets of its output types and a
/// D32_FLOAT_S8X24_UINT buffer whose stencil takes the reference (`SV_StencilRef`
/// programs); returns every target's bytes.
fn draw_bytes(
    vs: &dxlane::ir::Shader,
    ps: &dxlane::ir::Shader,
    bindings: &dxlane::pipeline::Bindings,
) -> Result<Vec<Vec<u8>>, String> {
    let vsb = dxlane::pipeline::Bindings::default();
    let mut st = DrawState::new(vs, Some(ps), &vsb, bindings);
    st.rasterizer.cull_mode = CullMode::None;
    let mut targets = vec![None; 8];
    for e in ps.outputs.iter().filter(|e| e.sv == SysValue::Target) {
        let f = match e.component {
            ComponentType::UInt => Format::R32G32B32A32_UINT,
            ComponentType::SInt => Format::R32G32B32A32_SINT,
            _ => Format::R32G32B32A32_FLOAT,
        };
        for r in 0..e.rows {
            if let Some(t) = targets.get_mut((e.semantic_index + r) as usize) {
                *t = Some(RenderTargetView {
                    texture: Texture::new(TextureDesc::tex2d(f, 8, 8)).unwrap(),
                });
            }
        }
    }
    st.render_targets = targets;
    st.depth_stencil_view = Some(DepthStencilView {
        texture: Texture::new(TextureDesc::tex2d(Format::D32_FLOAT_S8X24_UINT, 8, 8)).unwrap(),
    });
    // The buffer starts at depth 0: no depth test, so every pixel reaches the stencil.
    st.depth_stencil.depth_enable = false;
    st.depth_stencil.stencil_enable = true;
    st.depth_stencil.front_face.stencil_pass_op = StencilOp::Replace;
    st.depth_stencil.back_face.stencil_pass_op = StencilOp::Replace;
    let opts = DrawOptions {
        plan: dxlane::pipeline::Plan {
            threads: 1,
            ..crate::common::plan()
        },
        ..crate::common::draw_options()
    };
    draw(
        &st,
        &DrawArgs {
            vertex_count: 3,
            ..DrawArgs::default()
        },
        &opts,
    )
    .map_err(|e| e.to_string())?;
    let mut out: Vec<Vec<u8>> = st
        .render_targets
        .iter()
        .flatten()
        .map(|t| t.texture.to_bytes())
        .collect();
    out.extend(st.depth_stencil_view.as_ref().map(|d| d.texture.to_bytes()));
    Ok(out)
}

#[test]
fn pixel_twins_draw_identical_targets() {
    if std::env::var_os("DXLANE_NO_CORPORA").is_some() {
        eprintln!("SKIPPED draw_twins: the corpora are not fetched (DXLANE_NO_CORPORA)");
        return;
    }
    let pairs = pixel_twins();
    let mut failures = Vec::new();
    let mut compared = 0;
    let mut names = Vec::new();
    let mut blank = Vec::new();
    for (b, x) in &pairs {
        let name = format!("{} / {}", common::display_name(b), common::display_name(x));
        let (a, mut d) = match (twins::load(b), twins::load(x)) {
            (Ok(a), Ok(d)) => (a, d),
            // Hull and domain programs of the dxbc-reader / dxil-reader pairs: the DXBC
            // ones lower, the DXIL ones are refused by their stage.
            (_, Err(e)) | (Err(e), _)
                if e.contains("unsupported") && e.contains("shader stage") =>
            {
                continue;
            }
            (a, d) => {
                failures.push(format!("{name}: {:?} {:?}", a.err(), d.err()));
                continue;
            }
        };
        // The dxbc-reader / dxil-reader pairs include vertex, hull and domain programs.
        if a.stage != Stage::Pixel {
            continue;
        }
        assert_eq!(d.stage, Stage::Pixel, "{name}");
        if a.resources.iter().all(|r| r.space == 0) {
            for r in &mut d.resources {
                r.space = 0;
            }
        }
        let vs = parse_shader(&vertex_program_for(&a)).unwrap();
        let (ba, bd, _) = match twins::bind_twins(&a, &d) {
            Ok(t) => t,
            Err(e) => {
                failures.push(format!("{name}: {e}"));
                continue;
            }
        };
        match (draw_bytes(&vs, &a, &ba), draw_bytes(&vs, &d, &bd)) {
            (Ok(p), Ok(q)) => {
                // min16float: the DXIL build computes in half precision (`half` operations,
                // rounded as WARP rounds its 16-bit results), the DXBC build's `{min16f}`
                // operations in f32; D3D allows any precision of at least 16 bits, so the
                // two agree to half precision: 2^-9 relative (a product of two values
                // each rounded to 11 significant bits, then rounded again).
                let half = name.contains("minprec");
                let same = |u: &[u8], v: &[u8]| {
                    if u == v {
                        return true;
                    }
                    let f = |w: &[u8]| f32::from_le_bytes(w.try_into().unwrap());
                    let (x, y) = (f(u), f(v));
                    half && (x - y).abs() <= x.abs().max(y.abs()) / 512.0
                };
                for (k, (p, q)) in p.iter().zip(&q).enumerate() {
                    let differ = p
                        .chunks(4)
                        .zip(q.chunks(4))
                        .filter(|(u, v)| !same(u, v))
                        .count();
                    if differ > 0 || p.len() != q.len() {
                        failures.push(format!(
                            "{name}: target {k}: {differ} of {} words differ",
                            p.len() / 4
                        ));
                    }
                }
                // A pair whose targets stay clear would compare nothing.
                let written: usize = p
                    .iter()
                    .map(|t| t.chunks(4).filter(|w| w.iter().any(|b| *b != 0)).count())
                    .sum();
                if written == 0 {
                    blank.push(name.clone());
                }
                if p.len() != q.len() {
                    failures.push(format!("{name}: {} and {} targets", p.len(), q.len()));
                }
                compared += 1;
                names.push(name);
            }
            (p, q) => failures.push(format!("{name}: DXBC {:?}, DXIL {:?}", p.err(), q.err())),
        }
    }
    eprintln!("pixel twins: {compared} pairs drew identical targets: {names:?}");
    // structured_tail's data (small integers) reads as denormal floats and doubles,
    // which the program's arithmetic flushes: its targets stay 0 in both builds.
    eprintln!("pairs whose targets stayed clear: {blank:?}");
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    assert!(compared >= 9, "only {compared} pixel twin pairs");
    assert!(blank.len() <= 1, "targets stayed clear: {blank:?}");
}
