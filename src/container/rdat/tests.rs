//! `RDAT` decoding: hand-built parts in the layout of DirectXShaderCompiler's
//! `DxilRuntimeReflection.h` / `RDAT_LibraryTypes.inl`, good and bad.

#![allow(clippy::arithmetic_side_effects, clippy::cast_possible_truncation)]

use super::*;

fn words(ws: &[u32]) -> Vec<u8> {
    ws.iter().flat_map(|w| w.to_le_bytes()).collect()
}

/// Builds an RDAT part from (type, body) sub-parts.
fn build(parts: &[(u32, Vec<u8>)]) -> Vec<u8> {
    let mut out = words(&[RDAT_VERSION, parts.len() as u32]);
    let mut at = 8 + 4 * parts.len();
    for (_, body) in parts {
        out.extend_from_slice(&(at as u32).to_le_bytes());
        at += 8 + body.len();
    }
    for (t, body) in parts {
        out.extend_from_slice(&words(&[*t, body.len() as u32]));
        out.extend_from_slice(body);
    }
    out
}

/// A ray-generation library: strings "", "\x01?RayGen@@YAXXZ", "RayGen", "U0", "helper";
/// resource U0 (a UAV raw buffer, space 13); function RayGen using resource 0 and
/// depending on "helper"; one function record of `stride` bytes.
fn library(stride: u32) -> Vec<u8> {
    let strings = b"\0\x01?RayGen@@YAXXZ\0RayGen\0U0\0helper\0\0".to_vec();
    let s_mangled = 1;
    let s_name = 17;
    let s_u0 = 24;
    let s_helper = 27;
    // Index arrays: [1, 0] (resources), [1, helper] (dependencies).
    let index = words(&[1, 0, 1, s_helper]);
    let mut resources = words(&[1, 32]);
    resources.extend(words(&[1, 11, 0, 13, 0, 0, s_u0, 0]));
    let mut functions = words(&[1, stride]);
    let mut rec = vec![
        s_mangled,
        s_name,
        0,
        2,
        7,
        0,
        0,
        1 << 14,
        0,
        1 << 7 | 1 << 6,
        0x0006_0063,
    ];
    rec.resize(stride as usize / 4, 0xdead);
    functions.extend(words(&rec));
    let subobjects = words(&[0, 16]);
    build(&[
        (1, strings),
        (2, index),
        (3, resources),
        (4, functions),
        (6, subobjects),
    ])
}

fn parse(data: &[u8]) -> Result<Rdat, ContainerError> {
    Rdat::parse(&Part {
        tag: FourCc::RDAT,
        offset: 0,
        data,
    })
}

#[test]
fn decodes_a_library() {
    let r = parse(&library(44)).unwrap();
    assert_eq!(r.parts.len(), 5);
    assert_eq!(r.parts[3].part_type, RdatPartType::FunctionTable);
    assert_eq!(
        (r.parts[3].record_count, r.parts[3].record_stride),
        (Some(1), Some(44))
    );
    assert_eq!(r.parts[4].part_type, RdatPartType::SubobjectTable);
    assert_eq!(r.strings[2], "RayGen");
    let res = &r.resources[0];
    assert_eq!(
        (res.class, res.kind, res.space, res.name.as_str()),
        (ResourceClass::Uav, ResourceKind::RawBuffer, 13, "U0")
    );
    let f = &r.functions[0];
    assert_eq!(f.unmangled_name, "RayGen");
    assert_eq!(f.name, "\u{1}?RayGen@@YAXXZ");
    assert_eq!(f.resources, [0]);
    assert_eq!(r.resource_name(f.resources[0]), Some("U0"));
    assert_eq!(f.function_dependencies, ["helper"]);
    assert_eq!(f.shader_kind, ProgramKind::RayGeneration);
    assert_eq!(f.feature_names, ["WaveOps"]);
    assert_eq!(f.shader_stages, ["library", "ray_generation"]);
    assert_eq!(f.min_shader_target_profile, "lib_6_3");
    assert!(f.extra_words.is_empty());
}

/// Records are stepped by the stride: a longer (later-version) record keeps its extra
/// words raw.
#[test]
fn respects_the_stride() {
    let r = parse(&library(52)).unwrap();
    assert_eq!(r.functions[0].extra_words, [0xdead, 0xdead]);
    assert!(matches!(
        parse(&library(40)),
        Err(ContainerError::BadField {
            what: "RDAT record stride",
            ..
        })
    ));
}

#[test]
fn refuses_bad_headers_and_references() {
    let good = library(44);
    let mut bad = good.clone();
    bad[0] = 0x11;
    assert!(matches!(
        parse(&bad),
        Err(ContainerError::BadField {
            what: "RDAT version",
            ..
        })
    ));
    let mut bad = good.clone();
    bad[4..8].copy_from_slice(&u32::MAX.to_le_bytes());
    assert!(matches!(
        parse(&bad),
        Err(ContainerError::BadField {
            what: "RDAT part count",
            ..
        })
    ));
    // An index array longer than the arrays.
    let index_body = u32::from_le_bytes(good[12..16].try_into().unwrap()) as usize + 8;
    let mut bad = good.clone();
    bad[index_body..index_body + 4].copy_from_slice(&1000u32.to_le_bytes());
    assert!(matches!(
        parse(&bad),
        Err(ContainerError::BadField {
            what: "index array length",
            ..
        })
    ));
    for n in 0..good.len() {
        let _ = parse(&good[..n]);
    }
}
