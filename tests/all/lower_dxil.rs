//! DXIL programs lowered to the IR: every corpus compute, vertex, pixel, geometry, hull,
//! domain, mesh and amplification program and every ray-tracing library export lowers
//! (and its shader validates) or is refused naming what it lacks; other stages are
//! refused by name.
//!
//! Known refusals are data (`tests/expectations/lower_dxil.txt`, `case,Fail  # why`):
//! a program that starts lowering shows up as an unexpected pass, one that stops as a
//! regression.

use std::collections::BTreeMap;
use std::path::Path;

use dxlane::container::{Container, DxilProgramHeader, FourCc};
use dxlane::dxil::llvm::Module;
use dxlane::dxil::meta::DxilMetadata;
use dxlane::lower::{self, LoadOptions, LowerError};

use crate::common;

/// The shader model kind of a DXIL container (`cs`, `ps`, `lib`, …).
fn kind_of(bytes: &[u8]) -> String {
    let c = Container::parse(bytes).expect("container");
    let part = c.part(FourCc::DXIL).expect("DXIL part");
    let (_, bc) = DxilProgramHeader::parse(part).expect("program header");
    let m = Module::parse(bc).expect("module");
    let md = DxilMetadata::read(&m).expect("metadata");
    md.shader_model.expect("shader model").kind
}

/// The expected refusals: `case,Fail  # why` lines.
fn expectations() -> BTreeMap<String, String> {
    let path = common::root().join("tests/expectations/lower_dxil.txt");
    let text = std::fs::read_to_string(&path).unwrap_or_default();
    text.lines()
        .filter(|l| !l.trim().is_empty() && !l.trim_start().starts_with('#'))
        .filter_map(|l| {
            let (case, rest) = l.split_once(',')?;
            let (status, why) = rest.split_once('#').unwrap_or((rest, ""));
            (status.trim() == "Fail").then(|| (case.trim().to_owned(), why.trim().to_owned()))
        })
        .collect()
}

/// The lowering of one program file.
fn load(path: &Path) -> Result<dxlane::ir::Shader, LowerError> {
    let bytes = std::fs::read(path).unwrap();
    lower::load(&bytes, &LoadOptions::default()).map(|l| l.shader)
}

/// The lowering of one program file as the lowering wrote it (no clean-up passes): what
/// the IR snapshots show.
fn load_unoptimized(path: &Path) -> Result<dxlane::ir::Shader, LowerError> {
    let bytes = std::fs::read(path).unwrap();
    let opts = LoadOptions {
        no_opt: true,
        ..LoadOptions::default()
    };
    lower::load(&bytes, &opts).map(|l| l.shader)
}

/// The stages the lowering takes.
const LOWERED: &[&str] = &["cs", "vs", "ps", "gs", "hs", "ds", "ms", "as"];

/// Lowers every corpus program of the shader-model kinds `kinds`, checking each against
/// the expectations; returns how many lowered and were refused.
fn lower_all(kinds: &[&str], what: &str) -> (usize, usize) {
    let expected = expectations();
    let mut lowered = 0usize;
    let mut reasons: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut failures = Vec::new();
    let mut table = String::new();
    for f in common::dxil_programs() {
        let name = common::display_name(&f);
        let bytes = std::fs::read(&f).unwrap();
        if !kinds.contains(&kind_of(&bytes).as_str()) {
            continue;
        }
        match load(&f) {
            Ok(s) => {
                dxlane::ir::validate(&s).unwrap_or_else(|e| panic!("{name}: {e}"));
                lowered += 1;
                table.push_str(&format!(
                    "  {name}: lowered, {} instructions\n",
                    s.insts.len()
                ));
                if let Some(why) = expected.get(&name) {
                    failures.push(format!(
                        "{name}: lowers now, but tests/expectations/lower_dxil.txt expects a refusal ({why})"
                    ));
                }
            }
            Err(LowerError::Unsupported { what, location }) => {
                table.push_str(&format!("  {name}: refused: {what} at {location}\n"));
                reasons.entry(what.clone()).or_default().push(name.clone());
                if !expected.contains_key(&name) {
                    failures.push(format!("{name}: refused: unsupported {what} at {location}"));
                }
            }
            Err(e) => failures.push(format!("{name}: {e}")),
        }
    }
    let refused: usize = reasons.values().map(Vec::len).sum();
    eprintln!("DXIL {what} programs: {lowered} lowered, {refused} refused\n{table}");
    for (what, cases) in &reasons {
        eprintln!("  {} refused: {what}", cases.len());
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
    (lowered, refused)
}

#[test]
fn every_compute_program_lowers_or_is_refused_by_name() {
    if common::corpora().is_empty() {
        return; // the DXIL programs all come from the corpora
    }
    let (lowered, _) = lower_all(&["cs"], "compute");
    assert!(lowered > 0, "no compute program lowered");
}

/// Every corpus vertex and pixel program (`vs_6_x`, `ps_6_x`) lowers with its signature
/// elements laid out, and validates; refusals are listed in the expectations.
#[test]
fn every_vertex_and_pixel_program_lowers_or_is_refused_by_name() {
    if common::corpora().is_empty() {
        return; // the DXIL programs all come from the corpora
    }
    let (lowered, refused) = lower_all(&["vs", "ps"], "vertex and pixel");
    // The corpora hold 10 vertex and 59 pixel programs (dxil-reader and dxcontainer
    // 0.4.0).
    assert_eq!(lowered + refused, 69, "vertex and pixel programs checked");
    assert!(lowered >= 60, "{lowered} lowered");
}

/// Every corpus mesh and amplification program (`ms_6_x`, `as_6_x`) lowers with its
/// mesh state and signatures, and validates.
#[test]
fn every_mesh_and_amplification_program_lowers() {
    if common::corpora().is_empty() {
        return; // the DXIL programs all come from the corpora
    }
    let (lowered, refused) = lower_all(&["ms", "as"], "mesh and amplification");
    // dxil-reader's mesh.dxil, mesh.66.dxil, mesh.od.dxil and amplify.as.dxil, and
    // dxcontainer's meshderiv.dxil (0.4.0).
    assert_eq!(
        (lowered, refused),
        (5, 0),
        "mesh and amplification programs"
    );
}

/// Every corpus geometry program (`gs_6_x`) lowers with its state read from the
/// metadata (DXIL.rst "Geometry Shader"; dxc's operand order) and validates: dxil-reader's
/// geometry.dxil, geometry.66.dxil, geometry.od.dxil ([instance(2)], maxvertexcount 6,
/// a triangle in, triangle strips out) and streams.gs.dxil (two point streams).
#[test]
fn every_geometry_program_lowers_with_its_state() {
    if common::corpora().is_empty() {
        return; // the DXIL programs all come from the corpora
    }
    let (lowered, refused) = lower_all(&["gs"], "geometry");
    assert_eq!((lowered, refused), (4, 0), "geometry programs");
    let root = common::corpora()
        .iter()
        .find(|p| p.ends_with("dxil-reader"))
        .cloned()
        .expect("dxil-reader corpus");
    use dxlane::ir::{GsInput, GsOutput, Inst, SysValue};
    for name in ["geometry.dxil", "geometry.66.dxil", "geometry.od.dxil"] {
        let s = load(&root.join(name)).unwrap();
        let g = s.geometry.expect("geometry state");
        assert_eq!(
            (g.input, g.output, g.max_vertices, g.instances),
            (GsInput::Triangle, GsOutput::TriangleStrip, 6, 2),
            "{name}"
        );
        // One input vertex: SV_Position (row 0) and TEXCOORD0 (row 1); the three
        // vertices follow each other, SV_PrimitiveID after them.
        assert_eq!(g.vertex_words, 8, "{name}");
        let prim = s.input_sv(SysValue::PrimitiveId).expect("SV_PrimitiveID");
        assert!(prim.slot >= 3 * 8, "{name}: {}", prim.slot);
        assert!(s.input_sv(SysValue::GsInstanceId).is_some(), "{name}");
        let emits = s
            .insts
            .iter()
            .filter(|i| matches!(i, Inst::Emit { stream: 0 }))
            .count();
        let cuts = s
            .insts
            .iter()
            .filter(|i| matches!(i, Inst::Cut { stream: 0 }))
            .count();
        assert!(
            emits >= 2 && cuts >= 1,
            "{name}: {emits} emits, {cuts} cuts"
        );
    }
    let s = load(&root.join("streams.gs.dxil")).unwrap();
    let g = s.geometry.unwrap();
    assert_eq!((g.output, g.max_vertices), (GsOutput::PointList, 3));
    assert!(
        s.insts
            .iter()
            .any(|i| matches!(i, Inst::Emit { stream: 1 }))
    );
    // Stream 1's elements are packed from row 0 again: they get words of their own,
    // after stream 0's, and no register to link by.
    let tag = s.outputs.iter().find(|e| e.semantic == "TAG").unwrap();
    assert_eq!(tag.register, dxlane::ir::io::NO_REGISTER);
    assert!(tag.slot >= 8, "{}", tag.slot);
    let uv = s.outputs.iter().find(|e| e.semantic == "TEXCOORD").unwrap();
    assert_eq!((uv.register, uv.slot), (1, 4));
}

/// Every corpus hull and domain program (`hs_6_x`, `ds_6_x`: dxil-reader's
/// tessellation.hs, .hs.od, .ds, .ds.od) lowers and validates, with the states of its
/// metadata (DXIL.rst "Hull Shader", "Domain Shader") laid out as the IR's `HullState` /
/// `DomainState`: the hull program's two functions behind the phase word (control-point
/// phase: the entry function; fork phase: the patch-constant function; no join), the
/// final factors found by the patch-constant signature's semantic kinds.
#[test]
fn every_hull_and_domain_program_lowers_with_its_state() {
    if common::corpora().is_empty() {
        return; // the DXIL programs all come from the corpora
    }
    let (lowered, refused) = lower_all(&["hs", "ds"], "hull and domain");
    assert_eq!((lowered, refused), (4, 0), "hull and domain programs");
    let root = common::corpora()
        .iter()
        .find(|p| p.ends_with("dxil-reader"))
        .cloned()
        .expect("dxil-reader corpus");
    use dxlane::ir::io::NO_REGISTER;
    use dxlane::ir::{Inst, SysValue, TessDomain, TessOutput, TessPartitioning};
    for name in ["tessellation.hs.dxil", "tessellation.hs.od.dxil"] {
        let s = load(&root.join(name)).unwrap();
        let h = s.hull.expect("hull state");
        assert_eq!(
            (h.domain, h.partitioning, h.output),
            (
                TessDomain::Tri,
                TessPartitioning::Integer,
                TessOutput::TriangleCw
            ),
            "{name}"
        );
        assert_eq!(
            (h.input_points, h.output_points, h.max_factor),
            (3, 3, 16.0)
        );
        assert!(!h.join && !h.pass_through, "{name}");
        // CTRL_POSITION and CTRL_COLOR: two rows per control point, in and out.
        assert_eq!((h.point_words, h.output_point_words), (8, 8), "{name}");
        // SV_TessFactor: 3 rows in column w from row 0; SV_InsideTessFactor row 3,
        // column x; the patch constants follow the 8 control-point words.
        assert_eq!(
            h.factor_words,
            [11, 15, 19, NO_REGISTER, 20, NO_REGISTER],
            "{name}"
        );
        assert!(
            s.input_sv(SysValue::OutputControlPointId).is_some(),
            "{name}"
        );
        assert!(s.input_sv(SysValue::PrimitiveId).is_some(), "{name}");
        // The phase word is read once, at the branch between the two functions.
        let phase_reads = s
            .insts
            .iter()
            .filter(|i| matches!(i, Inst::Input { slot, .. } if *slot == h.phase_word))
            .count();
        assert_eq!(phase_reads, 1, "{name}");
    }
    for name in ["tessellation.ds.dxil", "tessellation.ds.od.dxil"] {
        let s = load(&root.join(name)).unwrap();
        let d = s.domain.expect("domain state");
        assert_eq!(
            (d.domain, d.input_points, d.point_words),
            (TessDomain::Tri, 3, 8)
        );
        // The patch constants (4 rows) after the 3 control points, then the location.
        assert_eq!((d.patch_word, d.location_word), (24, 40), "{name}");
        assert!(
            s.inputs
                .iter()
                .any(|e| e.sv == SysValue::InsideTessFactor && e.slot == 24 + 12),
            "{name}"
        );
    }
}

/// A geometry program whose PSV0 words (the runtime's description of the pipeline
/// state, DXC `SetShaderProps`) disagree with its metadata is refused, naming the field
/// and both values.
#[test]
fn geometry_psv0_words_are_cross_checked() {
    let Some(root) = common::corpora()
        .iter()
        .find(|p| p.ends_with("dxil-reader"))
        .cloned()
    else {
        return; // the DXIL programs all come from the corpora
    };
    let mut bytes = std::fs::read(root.join("geometry.dxil")).unwrap();
    let at = {
        let c = Container::parse(&bytes).unwrap();
        let p = c.part(FourCc(*b"PSV0")).expect("PSV0");
        p.data.as_ptr() as usize - bytes.as_ptr() as usize
    };
    // The runtime info follows its u32 size; its first word is the input primitive.
    assert_eq!(&bytes[at + 4..at + 8], &3u32.to_le_bytes(), "triangle");
    bytes[at + 4..at + 8].copy_from_slice(&2u32.to_le_bytes());
    let Err(e) = lower::load(&bytes, &LoadOptions::default()) else {
        panic!("a PSV0 that disagrees with the metadata is refused");
    };
    let m = e.to_string();
    assert!(
        m.contains("input primitive is 3 but PSV0's is 2") && m.contains("entry point main"),
        "{m}"
    );
}

#[test]
fn other_stages_are_refused_with_their_name() {
    if common::corpora().is_empty() {
        return; // the DXIL programs all come from the corpora
    }
    let mut seen = 0;
    for f in common::dxil_programs() {
        let name = common::display_name(&f);
        let bytes = std::fs::read(&f).unwrap();
        let kind = kind_of(&bytes);
        if LOWERED.contains(&kind.as_str()) {
            continue;
        }
        seen += 1;
        match load(&f) {
            Err(LowerError::Unsupported { what, .. }) => {
                assert!(
                    what.contains("stage") || what.contains("shader kind"),
                    "{name} ({kind}): {what}"
                );
            }
            Err(LowerError::Entry(e)) if kind == "lib" => {
                // Libraries with several entry points need one named.
                assert!(e.contains("several entry points"), "{name}: {e}");
            }
            // A library of one ray-tracing export lowers (`ray_tracing_exports_lower`).
            Ok(s) if kind == "lib" && s.stage.is_ray_tracing() => {}
            Err(e) => panic!("{name} ({kind}): {e}"),
            Ok(_) => panic!("{name} ({kind}) lowered"),
        }
    }
    assert!(seen > 0);
}

/// The exports of a library and their kinds (entry-point tag 8, DXIL `ShaderKind`).
fn exports(bytes: &[u8]) -> Vec<(String, u32)> {
    let c = Container::parse(bytes).expect("container");
    let part = c.part(FourCc::DXIL).expect("DXIL part");
    let (_, bc) = DxilProgramHeader::parse(part).expect("program header");
    let m = Module::parse(bc).expect("module");
    let md = DxilMetadata::read(&m).expect("metadata");
    md.entry_points
        .iter()
        .filter(|e| e.function.is_some())
        .map(|e| {
            let kind = e
                .properties
                .iter()
                .find_map(|(_, p)| match p {
                    dxlane::dxil::meta::Property::ShaderKind(k) => Some(*k),
                    _ => None,
                })
                .unwrap_or(u32::MAX);
            (dxlane::lower::dxil::export_name(&e.name).to_owned(), kind)
        })
        .collect()
}

/// Every ray-tracing export of the corpora's libraries (`ray_tracing.*` one export each,
/// both builds; `ray_subobjects` whole and one export at a time) lowers when named by its
/// export name, validates, and has the stage its `[shader(...)]` kind gives and the
/// payload, parameter and attribute memory the DXR spec's "Shader parameters" give it,
/// sized by the data layout as the entry declares (tags 6 and 7).
#[test]
fn ray_tracing_exports_lower() {
    use dxlane::ir::Stage;
    if common::corpora().is_empty() {
        return; // the DXIL programs all come from the corpora
    }
    let mut lowered = 0;
    for f in common::dxil_programs() {
        let name = common::display_name(&f);
        let file = name.rsplit('/').next().unwrap_or(&name);
        if !(file.starts_with("ray_tracing.") || file.starts_with("ray_subobjects")) {
            continue;
        }
        let bytes = std::fs::read(&f).unwrap();
        assert_eq!(kind_of(&bytes), "lib", "{name}");
        let list = exports(&bytes);
        assert!(!list.is_empty(), "{name} has no export");
        for (export, kind) in list {
            let opts = LoadOptions {
                entry: Some(export.clone()),
                ..LoadOptions::default()
            };
            let s = lower::load(&bytes, &opts)
                .unwrap_or_else(|e| panic!("{name} {export}: {e}"))
                .shader;
            dxlane::ir::validate(&s).unwrap_or_else(|e| panic!("{name} {export}: {e}"));
            assert_eq!(s.entry, export, "{name}");
            // DXIL ShaderKind: 7 ray generation, 8 intersection, 9 any hit, 10 closest
            // hit, 11 miss, 12 callable.
            let stage = match kind {
                7 => Stage::RayGeneration,
                8 => Stage::Intersection,
                9 => Stage::AnyHit,
                10 => Stage::ClosestHit,
                11 => Stage::Miss,
                12 => Stage::Callable,
                k => panic!("{name} {export}: kind {k}"),
            };
            assert_eq!(s.stage, stage, "{name} {export}");
            let r = s.ray.expect("ray state");
            let bytes_of = |p: Option<(dxlane::ir::LocalId, u32)>| p.map(|(_, b)| b);
            // ray_tracing.hlsl's Payload is { float; uint; float3 } (20 bytes), its
            // Parameter { float }; ray_subobjects.hlsl's Payload { float; uint }.
            let payload = if file.starts_with("ray_subobjects") {
                8
            } else {
                20
            };
            let (want_payload, want_attrs) = match stage {
                Stage::AnyHit | Stage::ClosestHit => (Some(payload), Some(8)),
                Stage::Miss => (Some(payload), None),
                Stage::Callable => (Some(4), None),
                _ => (None, None),
            };
            assert_eq!(bytes_of(r.payload), want_payload, "{name} {export}");
            assert_eq!(bytes_of(r.attributes), want_attrs, "{name} {export}");
            // Each DXR operation the source uses is there.
            let text = s.to_string();
            let want: &[&str] = match (file.starts_with("ray_tracing"), stage) {
                (true, Stage::RayGeneration) => &[
                    "rt_get dispatch_rays_index",
                    "rt_get dispatch_rays_dimensions",
                    "rt_trace",
                    "rt_call",
                ],
                (true, Stage::Miss) => {
                    &["rt_get world_ray_direction", "rt_get dispatch_rays_index"]
                }
                (true, Stage::ClosestHit) => &[
                    "rt_get ray_t_current",
                    "rt_get ray_t_min",
                    "rt_get instance_id",
                    "rt_get instance_index",
                    "rt_get primitive_index",
                    "rt_get geometry_index",
                    "rt_get hit_kind",
                    "rt_get ray_flags",
                    "rt_get world_ray_origin",
                    "rt_get object_ray_origin",
                    "rt_get object_ray_direction",
                    "rt_get object_to_world, 4,",
                    "rt_get world_to_object, 8,",
                ],
                (true, Stage::AnyHit) => &["rt_hit_end ignore", "rt_hit_end accept_and_end"],
                (_, Stage::Intersection) => &["rt_get ray_t_current", "rt_report_hit"],
                _ => &[],
            };
            for w in want {
                assert!(text.contains(w), "{name} {export}: no `{w}` in\n{text}");
            }
            lowered += 1;
        }
    }
    // ray_tracing: 6 exports in two builds, and the space-3 closest hit; ray_subobjects:
    // the whole library's 4 exports and the 4 one-export libraries.
    assert_eq!(lowered, 21, "ray-tracing exports lowered");
}

/// A library export that does not exist is refused naming the exports there are.
#[test]
fn a_missing_export_is_refused_with_the_exports() {
    let Some(f) = common::dxil_programs()
        .into_iter()
        .find(|f| common::display_name(f) == "dxil-reader/ray_subobjects.dxil")
    else {
        assert!(
            common::corpora().is_empty(),
            "ray_subobjects.dxil is missing"
        );
        return;
    };
    let bytes = std::fs::read(&f).unwrap();
    let opts = LoadOptions {
        entry: Some("closest".into()),
        ..LoadOptions::default()
    };
    match lower::load(&bytes, &opts) {
        Err(LowerError::Entry(e)) => assert_eq!(
            e,
            "no entry point closest (the program has any_hit, closest_hit, intersection, miss)"
        ),
        other => panic!("{other:?}"),
    }
}

/// Small programs whose IR is kept as a snapshot (`tests/snapshots/ir/dxil/`).
const SNAPSHOTS: &[&str] = &[
    "dxil-reader/amplify.as.dxil",
    "dxil-reader/barrier.cs.dxil",
    "dxil-reader/buffer_arrays.66.dxil",
    "dxil-reader/compute_basic.dxil",
    "dxil-reader/compute_basic.66.dxil",
    "dxil-reader/draw_discard.dxil",
    "dxil-reader/dynidx.ps.dxil",
    "dxil-reader/heap.dxil",
    "dxil-reader/image_atomics.dxil",
    "dxil-reader/lane_2d.dxil",
    "dxil-reader/mesh.dxil",
    "dxil-reader/pixel_ops.dxil",
    "dxil-reader/ray_tracing.any_hit.dxil",
    "dxil-reader/ray_tracing.callable.dxil",
    "dxil-reader/ray_tracing.closest_hit.dxil",
    "dxil-reader/ray_tracing.intersection.dxil",
    "dxil-reader/ray_tracing.miss.dxil",
    "dxil-reader/ray_tracing.raygen.dxil",
    "dxil-reader/uav_counter.dxil",
    "dxil-reader/vertex.dxil",
    "dxil-reader/wave_size.cs.dxil",
    "dxil-reader/waves.dxil",
    "dxil-reader/wide_ints.dxil",
    "dxcontainer/features/msad.dxil",
    "dxcontainer/features/dbl2.dxil",
];

#[test]
fn ir_snapshots() {
    let files = common::dxil_programs();
    let mut failures = Vec::new();
    for want in SNAPSHOTS {
        let Some(f) = files.iter().find(|f| common::display_name(f) == *want) else {
            if files.is_empty() {
                return; // no corpora
            }
            panic!("{want} is not in the corpora");
        };
        let s = load_unoptimized(f).unwrap_or_else(|e| panic!("{want}: {e}"));
        // The text form reads back as the same shader.
        let text = s.to_string();
        let again = dxlane::ir::parse_shader(&text).unwrap_or_else(|e| panic!("{want}: {e}"));
        assert_eq!(again.to_string(), text, "{want}");
        let name = format!(
            "ir/dxil/{}.ir",
            want.replace('/', "__").trim_end_matches(".dxil")
        );
        if let Err(e) = common::check_snapshot(&name, &text) {
            failures.push(e);
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

/// Changes one thing of a decoded module's entry function (an operand, a constant, a
/// type, a branch target, an operator, an index), the way a hostile or broken program
/// could; returns what was changed.
fn mutate(m: &mut Module, fi: usize, rng: &mut crate::untrusted::Rng) -> String {
    use dxlane::dxil::llvm::{
        BinOp, BlockId, CastOp, Constant, InstKind, Operand, Predicate, TypeId, ValueId, ValueKind,
    };
    let nvals = m.values.len() as u32;
    let ntypes = m.types.len() as u32;
    let body = m.functions[fi].body.as_mut().unwrap();
    let nlocal = nvals + body.values.len() as u32;
    let nblocks = body.blocks.len() as u32;
    let ninst = body.instructions.len();
    let which = rng.below(7);
    if which == 1 {
        // A constant: opcodes, masks, indices, sizes.
        let consts: Vec<usize> = (0..m.values.len())
            .filter(|&i| matches!(m.values[i].kind, ValueKind::Constant(Constant::Int(_))))
            .collect();
        if consts.is_empty() {
            return "nothing".into();
        }
        let i = consts[rng.below(consts.len())];
        let v = [
            0,
            1,
            2,
            3,
            4,
            -1,
            255,
            0x7fff_ffff,
            i64::MIN,
            rng.below(320) as i64,
        ][rng.below(10)];
        m.values[i].kind = ValueKind::Constant(Constant::Int(v));
        return format!("constant {i} = {v}");
    }
    let k = rng.below(ninst.max(1));
    let inst = &mut body.instructions[k];
    let rv = |rng: &mut crate::untrusted::Rng| ValueId(rng.below(nlocal as usize + 8) as u32);
    match which {
        0 => {
            let v = rv(rng);
            let slot: Option<&mut ValueId> = match &mut inst.kind {
                InstKind::Binary { lhs, rhs, .. } | InstKind::Cmp { lhs, rhs, .. } => {
                    Some(if rng.below(2) == 0 { lhs } else { rhs })
                }
                InstKind::Cast { value, .. } => Some(value),
                InstKind::Select { cond, if_true, .. } => {
                    Some(if rng.below(2) == 0 { cond } else { if_true })
                }
                InstKind::ExtractValue { aggregate, .. }
                | InstKind::InsertValue { aggregate, .. } => Some(aggregate),
                InstKind::ExtractElement { vector, index } => {
                    Some(if rng.below(2) == 0 { vector } else { index })
                }
                InstKind::Phi { incoming } if !incoming.is_empty() => {
                    let n = incoming.len();
                    Some(&mut incoming[rng.below(n)].0)
                }
                InstKind::CondBr { cond, .. } | InstKind::Switch { cond, .. } => Some(cond),
                InstKind::Call { args, .. } if !args.is_empty() => {
                    let n = args.len();
                    match &mut args[rng.below(n)] {
                        Operand::Value(x) => Some(x),
                        _ => None,
                    }
                }
                InstKind::Load { ptr, .. } | InstKind::AtomicRmw { ptr, .. } => Some(ptr),
                InstKind::Store { ptr, value, .. } => {
                    Some(if rng.below(2) == 0 { ptr } else { value })
                }
                InstKind::Gep { base, indices, .. } => {
                    if indices.is_empty() || rng.below(2) == 0 {
                        Some(base)
                    } else {
                        let n = indices.len();
                        Some(&mut indices[rng.below(n)])
                    }
                }
                InstKind::CmpXchg { cmp, .. } => Some(cmp),
                InstKind::Alloca { size, .. } => Some(size),
                _ => None,
            };
            match slot {
                Some(s) => {
                    *s = v;
                    format!("instruction {k}: an operand = {v}")
                }
                None => "nothing".into(),
            }
        }
        2 => {
            let t = TypeId(rng.below(ntypes as usize + 2) as u32);
            inst.ty = t;
            format!("instruction {k}: type = {t}")
        }
        3 => {
            let b = BlockId(rng.below(nblocks as usize + 1) as u32);
            match &mut inst.kind {
                InstKind::Br { target } => *target = b,
                InstKind::CondBr { if_true, .. } => *if_true = b,
                InstKind::Switch { default, .. } => *default = b,
                InstKind::Phi { incoming } if !incoming.is_empty() => incoming[0].1 = b,
                _ => return "nothing".into(),
            }
            format!("instruction {k}: a block = {b}")
        }
        4 => {
            match &mut inst.kind {
                InstKind::Binary { op, .. } => {
                    *op = BinOp::from_code(rng.below(13) as u64).unwrap()
                }
                InstKind::Cast { op, .. } => *op = CastOp::from_code(rng.below(13) as u64).unwrap(),
                InstKind::Cmp { pred, .. } => *pred = Predicate(rng.below(42) as u8),
                _ => return "nothing".into(),
            }
            format!("instruction {k}: operator")
        }
        5 => {
            let i = [0u32, 1, 4, 7, 100, u32::MAX][rng.below(6)];
            match &mut inst.kind {
                InstKind::ExtractValue { indices, .. } | InstKind::InsertValue { indices, .. }
                    if !indices.is_empty() =>
                {
                    indices[0] = i
                }
                _ => return "nothing".into(),
            }
            format!("instruction {k}: index = {i}")
        }
        _ => {
            // Swap two instructions' kinds (uses before definitions, misplaced phis
            // and terminators).
            let j = rng.below(ninst.max(1));
            let a = body.instructions[k].kind.clone();
            body.instructions[k].kind = body.instructions[j].kind.clone();
            body.instructions[j].kind = a;
            format!("instructions {k} and {j} swapped")
        }
    }
}

/// Hostile modules: each compute, vertex and pixel program's entry function changed in
/// many random ways is lowered or refused, never a panic (the lowering treats the module
/// as untrusted).
#[test]
fn mutated_modules_are_lowered_or_refused() {
    let mut runs = 0;
    let mut lowered = 0;
    let mut build_errors = Vec::new();
    for (n, f) in common::dxil_programs().iter().enumerate() {
        let bytes = std::fs::read(f).unwrap();
        // Vertex and pixel programs (signatures, stage operations) get fewer tries each:
        // there are more of them.
        let tries = match kind_of(&bytes).as_str() {
            "cs" => 400,
            "vs" | "ps" => 100,
            _ => continue,
        };
        let c = Container::parse(&bytes).unwrap();
        let (_, bc) = DxilProgramHeader::parse(c.part(FourCc::DXIL).unwrap()).unwrap();
        let m = Module::parse(bc).unwrap();
        let fi = m.functions.iter().position(|f| f.body.is_some()).unwrap();
        let mut rng = crate::untrusted::Rng::new(n as u64);
        for i in 0..tries {
            let mut mm = m.clone();
            let mut what = Vec::new();
            for _ in 0..1 + rng.below(3) {
                what.push(mutate(&mut mm, fi, &mut rng));
            }
            let r = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                dxlane::lower::dxil::lower_module(&mm, &LoadOptions::default())
            }));
            match r {
                Ok(Ok(s)) => {
                    dxlane::ir::validate(&s).unwrap();
                    lowered += 1;
                }
                Ok(Err(LowerError::Build(e))) => build_errors.push(format!(
                    "{} mutation {i} ({}): {e}",
                    common::display_name(f),
                    what.join("; ")
                )),
                Ok(Err(_)) => {}
                Err(_) => panic!(
                    "{} mutation {i} ({}) panicked",
                    common::display_name(f),
                    what.join("; ")
                ),
            }
            runs += 1;
        }
    }
    eprintln!("{runs} mutated modules: {lowered} lowered, the rest refused");
    // A refusal comes from the lowering, naming what it refuses; IR the builder rejects
    // would be a lowering bug.
    assert!(build_errors.is_empty(), "{}", build_errors.join("\n"));
}
