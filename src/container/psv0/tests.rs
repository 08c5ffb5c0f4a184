//! `PSV0` decoding: hand-built parts in the layout of seed `000_…txt`, good and bad.

#![allow(clippy::arithmetic_side_effects, clippy::cast_possible_truncation)]

use super::*;

fn w(out: &mut Vec<u8>, v: u32) {
    out.extend_from_slice(&v.to_le_bytes());
}

/// A 52-byte runtime info for `stage` with the given element and vector counts.
fn runtime_info(
    stage: u8,
    stage_word: u16,
    elems: [u8; 3],
    in_vectors: u8,
    out_vectors: u8,
    stage_words: [u32; 4],
) -> Vec<u8> {
    let mut out = Vec::new();
    for v in stage_words {
        w(&mut out, v);
    }
    w(&mut out, 0);
    w(&mut out, u32::MAX);
    out.push(stage);
    out.push(0);
    out.extend_from_slice(&stage_word.to_le_bytes());
    out.extend_from_slice(&elems);
    out.push(in_vectors);
    out.extend_from_slice(&[out_vectors, 0, 0, 0]);
    for v in [8, 1, 1] {
        w(&mut out, v);
    }
    w(&mut out, 1); // entry name at string-table offset 1
    out
}

/// A vertex program: one 24-byte resource (a CBV, kind 13), input `POS` (2 rows) and
/// output `SV_Position` (system value: empty name), 2 input and 1 output vectors.
fn vertex_psv() -> Vec<u8> {
    let mut p = Vec::new();
    let info = runtime_info(1, 0, [1, 1, 0], 2, 1, [1, 0, 0, 0]);
    w(&mut p, info.len() as u32);
    p.extend_from_slice(&info);
    w(&mut p, 1);
    w(&mut p, 24);
    for v in [2, 0, 3, 3, 13, 0] {
        w(&mut p, v);
    }
    let strings = b"\0main\0POS\0\0\0";
    w(&mut p, strings.len() as u32);
    p.extend_from_slice(strings);
    w(&mut p, 3);
    for v in [0, 1, 0] {
        w(&mut p, v);
    }
    w(&mut p, 16);
    // POS: name at 6, indices at 0, 2 rows from row 0, 4 columns, allocated, arbitrary, float, linear.
    w(&mut p, 6);
    w(&mut p, 0);
    p.extend_from_slice(&[2, 0, 4 | (1 << 6), 0, 3, 2, 0, 0]);
    // SV_Position: empty name, index at 2, 1 row, position, float, no interpolation.
    w(&mut p, 0);
    w(&mut p, 2);
    p.extend_from_slice(&[1, 0, 4 | (1 << 6), 3, 3, 0, 0, 0]);
    // Input to output: 2 vectors × 4 rows of 1 word.
    for i in 0..8 {
        w(&mut p, 1 << i);
    }
    p
}

fn parse(data: &[u8], program: Option<ProgramKind>) -> Result<Psv0, ContainerError> {
    Psv0::parse(
        &Part {
            tag: FourCc::PSV0,
            offset: 0,
            data,
        },
        program,
    )
}

#[test]
fn decodes_a_vertex_record() {
    let p = parse(&vertex_psv(), None).unwrap();
    let ri = &p.runtime_info;
    assert_eq!(ri.size, 52);
    assert_eq!(
        ri.stage_info,
        StageInfo::Vertex {
            output_position_present: true
        }
    );
    assert_eq!(ri.v1.as_ref().unwrap().shader_stage, ProgramKind::Vertex);
    assert_eq!(ri.num_threads, Some([8, 1, 1]));
    assert_eq!(ri.entry_name.as_deref(), Some("main"));
    assert_eq!(p.resources[0].resource_type, PsvResourceType::Cbv);
    assert_eq!(p.resources[0].kind, Some(ResourceKind::CBuffer));
    assert_eq!(p.inputs[0].name, "POS");
    assert_eq!(p.inputs[0].semantic_indices, [0, 1]);
    assert!(p.inputs[0].allocated);
    assert_eq!(p.inputs[0].interpolation_mode, InterpolationMode::Linear);
    assert_eq!(p.outputs[0].name, "");
    assert_eq!(p.outputs[0].semantic_kind, SemanticKind::Position);
    assert_eq!(p.outputs[0].component_type, ComponentType::Float32);
    let t = &p.dependency_tables[0];
    assert_eq!(
        (t.name.as_str(), t.rows, t.words_per_row),
        ("input_to_output[stream 0]", 8, 1)
    );
}

/// Seed `000_…txt`: validator 1.0 writes a 24-byte runtime info (stage words and wave
/// range) and 16-byte resource records without kind or flags; nothing follows.
#[test]
fn decodes_the_24_byte_form() {
    let mut p = Vec::new();
    w(&mut p, 24);
    for v in [1u32, 0, 0, 0, 0, u32::MAX] {
        w(&mut p, v);
    }
    w(&mut p, 1);
    w(&mut p, 16);
    for v in [1, 0, 0, 0] {
        w(&mut p, v);
    }
    let r = parse(&p, Some(ProgramKind::Pixel)).unwrap();
    assert_eq!(
        r.runtime_info.stage_info,
        StageInfo::Pixel {
            depth_output: true,
            sample_frequency: false
        }
    );
    assert_eq!(r.resources[0].kind, None);
    assert!(r.runtime_info.v1.is_none());
}

/// Hull programs add an input-to-patch-constant table (seed `000_…txt`; DXC `SimplePSV`).
#[test]
fn hull_tables() {
    let mut p = Vec::new();
    let info = runtime_info(3, 2, [0, 0, 0], 1, 1, [3, 3, 2, 3]);
    w(&mut p, info.len() as u32);
    p.extend_from_slice(&info);
    w(&mut p, 0);
    w(&mut p, 8);
    p.extend_from_slice(b"\0main\0\0\0");
    w(&mut p, 0);
    for _ in 0..(4 + 4) {
        w(&mut p, 0);
    }
    let r = parse(&p, None).unwrap();
    let names: Vec<_> = r
        .dependency_tables
        .iter()
        .map(|t| t.name.as_str())
        .collect();
    assert_eq!(
        names,
        ["input_to_output[stream 0]", "input_to_patch_constant"]
    );
    assert!(matches!(
        r.runtime_info.stage_info,
        StageInfo::Hull {
            tessellator_domain: TessellatorDomain::Triangle,
            ..
        }
    ));
}

#[test]
fn refuses_what_does_not_fit() {
    let good = vertex_psv();
    let mut bad = good.clone();
    bad[0] = 30;
    assert!(matches!(
        parse(&bad, None),
        Err(ContainerError::BadField {
            what: "runtime info size",
            ..
        })
    ));
    let mut bad = good.clone();
    bad.extend_from_slice(&[0; 4]);
    assert!(matches!(
        parse(&bad, None),
        Err(ContainerError::BadField {
            what: "bytes after the dependency tables",
            ..
        })
    ));
    let mut bad = good.clone();
    bad[60..64].copy_from_slice(&20u32.to_le_bytes()); // resource record size
    assert!(matches!(
        parse(&bad, None),
        Err(ContainerError::BadField {
            what: "resource record size",
            ..
        })
    ));
    for n in 0..good.len() {
        assert!(parse(&good[..n], None).is_err(), "prefix {n}");
    }
}
