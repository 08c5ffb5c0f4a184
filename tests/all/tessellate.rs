//! `dxlane tessellate`: the JSON it prints for a grid of patches — every domain ×
//! partitioning × output primitive D3D allows, over factors at 1, at 64, just below and
//! just above integers, fractional, huge, NaN and negative — as snapshots in
//! `tests/snapshots/tessellate/` (one file per patch, named
//! `DOMAIN.PARTITIONING.OUTPUT.CASE.json`); the JSON read back equals the library's
//! tessellation bit for bit; the text report and the refusals of bad command lines.

use std::process::{Command, Output};

use dxlane::pipeline::tess::{
    Domain, OutputPrimitive, Partitioning, TessFactors, TessellatorDesc, tessellate,
};
use serde_json::Value;

use crate::common;

fn dxlane(args: &[String]) -> Output {
    Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .arg("tessellate")
        .args(args)
        .current_dir(common::root())
        .output()
        .expect("run dxlane")
}

/// The float just below and just above.
fn below(x: f32) -> f32 {
    f32::from_bits(x.to_bits() - 1)
}
fn above(x: f32) -> f32 {
    f32::from_bits(x.to_bits() + 1)
}

/// One patch of the grid: a name, the edge factors and the inside factors.
type Case = (&'static str, Vec<f32>, Vec<f32>);

fn tri_cases() -> Vec<Case> {
    vec![
        ("ones", vec![1.0, 1.0, 1.0], vec![1.0]),
        ("integers", vec![2.0, 3.0, 4.0], vec![3.0]),
        (
            "below_integer",
            vec![below(3.0), below(4.0), below(5.0)],
            vec![below(3.0)],
        ),
        (
            "above_integer",
            vec![above(3.0), above(4.0), above(5.0)],
            vec![above(3.0)],
        ),
        ("fractional", vec![2.5, 3.7, 1.3], vec![2.2]),
        ("max", vec![64.0, 1.0, 5.0], vec![4.0]),
        ("huge", vec![f32::INFINITY, 1e9, 70.0], vec![-5.0]),
        ("nan_inside", vec![3.0, 3.0, 3.0], vec![f32::NAN]),
        ("culled_nan", vec![f32::NAN, 2.0, 2.0], vec![2.0]),
        ("culled_negative", vec![2.0, -1.0, 2.0], vec![2.0]),
        ("culled_zero", vec![2.0, 2.0, 0.0], vec![2.0]),
    ]
}

fn quad_cases() -> Vec<Case> {
    vec![
        ("ones", vec![1.0; 4], vec![1.0, 1.0]),
        ("integers", vec![2.0, 3.0, 4.0, 5.0], vec![3.0, 4.0]),
        (
            "below_integer",
            vec![below(3.0), below(4.0), below(2.0), below(5.0)],
            vec![below(3.0), below(4.0)],
        ),
        (
            "above_integer",
            vec![above(3.0), above(4.0), above(2.0), above(5.0)],
            vec![above(3.0), above(2.0)],
        ),
        ("fractional", vec![2.5, 3.7, 1.3, 6.1], vec![2.2, 4.9]),
        ("wide", vec![5.0, 5.0, 5.0, 5.0], vec![9.0, 2.0]),
        ("max", vec![64.0, 2.0, 1.0, 7.0], vec![5.0, 3.0]),
        ("huge", vec![f32::INFINITY, 1e9, 70.0, 2.0], vec![-5.0, 3.0]),
        ("nan_inside", vec![3.0; 4], vec![f32::NAN, 4.0]),
        ("culled_nan", vec![2.0, f32::NAN, 2.0, 2.0], vec![2.0, 2.0]),
        ("culled_negative", vec![2.0, 2.0, 2.0, -1.0], vec![2.0, 2.0]),
        ("culled_zero", vec![0.0, 2.0, 2.0, 2.0], vec![2.0, 2.0]),
    ]
}

fn isoline_cases() -> Vec<Case> {
    vec![
        ("ones", vec![1.0, 1.0], vec![]),
        ("integers", vec![3.0, 4.0], vec![]),
        ("below_integer", vec![below(3.0), below(4.0)], vec![]),
        ("above_integer", vec![above(3.0), above(4.0)], vec![]),
        ("fractional", vec![2.5, 3.7], vec![]),
        ("max_detail", vec![2.0, 64.0], vec![]),
        ("max_density", vec![64.0, 1.0], vec![]),
        ("huge_density", vec![f32::INFINITY, 2.5], vec![]),
        ("huge_detail", vec![1.0, 1e9], vec![]),
        ("culled_nan", vec![f32::NAN, 3.0], vec![]),
        ("culled_negative", vec![3.0, -1.0], vec![]),
        ("culled_zero", vec![0.0, 3.0], vec![]),
    ]
}

const PARTITIONINGS: [(Partitioning, &str); 4] = [
    (Partitioning::Integer, "integer"),
    (Partitioning::Pow2, "pow2"),
    (Partitioning::FractionalOdd, "fractional_odd"),
    (Partitioning::FractionalEven, "fractional_even"),
];

/// Every domain with the output primitives D3D11.3 §11.7.15 allows it.
/// A domain, its name, its output primitives with their names, and its cases.
type DomainGrid = (
    Domain,
    &'static str,
    Vec<(OutputPrimitive, &'static str)>,
    Vec<Case>,
);

fn domains() -> Vec<DomainGrid> {
    let point = (OutputPrimitive::Point, "point");
    let tris = [
        point,
        (OutputPrimitive::TriangleCw, "triangle_cw"),
        (OutputPrimitive::TriangleCcw, "triangle_ccw"),
    ];
    vec![
        (Domain::Tri, "tri", tris.to_vec(), tri_cases()),
        (Domain::Quad, "quad", tris.to_vec(), quad_cases()),
        (
            Domain::Isoline,
            "isoline",
            vec![point, (OutputPrimitive::Line, "line")],
            isoline_cases(),
        ),
    ]
}

/// Factors on the command line as their exact bits.
fn list(values: &[f32]) -> String {
    values
        .iter()
        .map(|x| format!("{:#010x}", x.to_bits()))
        .collect::<Vec<_>>()
        .join(",")
}

fn factors(domain: Domain, e: &[f32], i: &[f32]) -> TessFactors {
    match domain {
        Domain::Tri => TessFactors::tri([e[0], e[1], e[2]], i[0]),
        Domain::Quad => TessFactors::quad([e[0], e[1], e[2], e[3]], [i[0], i[1]]),
        Domain::Isoline => TessFactors::isoline(e[0], e[1]),
    }
}

fn hex_bits(v: &Value) -> u32 {
    let s = v.as_str().expect("bits as a string");
    u32::from_str_radix(s.trim_start_matches("0x"), 16).expect("hex bits")
}

/// Checks the printed JSON against the library's own tessellation of the same patch:
/// every point's bits (and its decimal form reading back to them) and every primitive.
fn check_json_equals_library(name: &str, json: &str, desc: &TessellatorDesc, f: &TessFactors) {
    let v: Value = serde_json::from_str(json).unwrap_or_else(|e| panic!("{name}: not JSON: {e}"));
    let t = tessellate(desc, f).unwrap();
    let points = v["points"].as_array().expect("points");
    assert_eq!(points.len(), t.points.len(), "{name}");
    assert_eq!(v["point_count"], t.points.len(), "{name}");
    for (p, q) in points.iter().zip(&t.points) {
        for (axis, want) in ["u", "v"].iter().zip(q) {
            let bits = hex_bits(&p[format!("{axis}_bits")]);
            assert_eq!(bits, want.to_bits(), "{name}: {p}");
            let decimal = p[*axis].as_f64().expect("a number") as f32;
            assert_eq!(
                decimal.to_bits(),
                bits,
                "{name}: {p}: the decimal does not read back"
            );
        }
    }
    let prims = v["primitives"].as_array().expect("primitives");
    let flat: Vec<u32> = prims
        .iter()
        .flat_map(|p| {
            p.as_array()
                .unwrap()
                .iter()
                .map(|i| i.as_u64().unwrap() as u32)
        })
        .collect();
    assert_eq!(flat, t.indices, "{name}");
    assert_eq!(v["primitive_count"], t.primitive_count(), "{name}");
    assert_eq!(v["outcome"], t.outcome.to_string(), "{name}");
}

#[test]
fn json_grid_matches_snapshots() {
    let mut failures = Vec::new();
    let mut checked = 0;
    for (domain, dname, outputs, cases) in domains() {
        for (part, pname) in PARTITIONINGS {
            for &(output, oname) in &outputs {
                for (case, e, i) in &cases {
                    let name = format!("tessellate/{dname}.{pname}.{oname}.{case}.json");
                    let mut args = vec![
                        "--json".to_string(),
                        format!("--domain={dname}"),
                        format!("--partitioning={pname}"),
                        format!("--output={oname}"),
                        format!("--edges={}", list(e)),
                    ];
                    if !i.is_empty() {
                        args.push(format!("--inside={}", list(i)));
                    }
                    let out = dxlane(&args);
                    assert!(
                        out.status.success(),
                        "{name}: {}",
                        String::from_utf8_lossy(&out.stderr)
                    );
                    let json = String::from_utf8(out.stdout).unwrap();
                    let desc = TessellatorDesc {
                        domain,
                        partitioning: part,
                        output_primitive: output,
                    };
                    check_json_equals_library(&name, &json, &desc, &factors(domain, e, i));
                    if let Err(err) = common::check_snapshot(&name, &json) {
                        failures.push(err);
                    }
                    checked += 1;
                }
            }
        }
    }
    // 11 tri and 12 quad cases × 4 partitionings × 3 outputs, 12 isoline × 4 × 2.
    assert_eq!(checked, 11 * 12 + 12 * 12 + 12 * 8);
    assert!(failures.is_empty(), "{}", failures.join("\n"));
}

#[test]
fn snapshot_folder_holds_only_the_grid() {
    // A case dropped from the grid must take its snapshot with it.
    let dir = common::root().join("tests/snapshots/tessellate");
    let mut expected = std::collections::BTreeSet::new();
    for (_, dname, outputs, cases) in domains() {
        for (_, pname) in PARTITIONINGS {
            for (_, oname) in &outputs {
                for (case, _, _) in &cases {
                    expected.insert(format!("{dname}.{pname}.{oname}.{case}.json"));
                }
            }
        }
    }
    expected.insert("text.tri.fractional_odd.triangle_cw.txt".into());
    expected.insert("text.quad.integer.point.culled.txt".into());
    let found: std::collections::BTreeSet<String> = std::fs::read_dir(&dir)
        .expect("tests/snapshots/tessellate")
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    if std::env::var_os("DXLANE_BLESS").is_none() {
        assert_eq!(
            found.difference(&expected).collect::<Vec<_>>(),
            Vec::<&String>::new(),
            "snapshots no test writes"
        );
    }
}

#[test]
fn text_report_snapshots() {
    let cases: [(&str, &[&str]); 2] = [
        (
            "tessellate/text.tri.fractional_odd.triangle_cw.txt",
            &[
                "--domain",
                "tri",
                "--partitioning",
                "fractional_odd",
                "--output",
                "triangle_cw",
                "--edges",
                "2.5,1,3.7",
                "--inside",
                "2",
            ],
        ),
        (
            "tessellate/text.quad.integer.point.culled.txt",
            &[
                "--domain",
                "quad",
                "--partitioning",
                "integer",
                "--output",
                "point",
                "--edges",
                "2,-0.0,nan,2",
                "--inside",
                "2,2",
            ],
        ),
    ];
    for (name, args) in cases {
        let args: Vec<String> = args.iter().map(|s| s.to_string()).collect();
        let out = dxlane(&args);
        assert!(
            out.status.success(),
            "{name}: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        common::assert_snapshot(name, &String::from_utf8(out.stdout).unwrap());
    }
}

#[test]
fn bad_command_lines_are_refused_with_one_line_naming_the_argument() {
    // Each: the command line, and the start of the one line it must be refused with.
    let cases: [(&str, &str); 12] = [
        (
            "--domain tri --partitioning integer --output line --edges 1,1,1 --inside 1",
            "dxlane: --output line: output primitive line is not allowed with the tri domain",
        ),
        (
            "--domain isoline --partitioning pow2 --output triangle_cw --edges 1,1",
            "dxlane: --output triangle_cw: output primitive triangle_cw is not allowed with the \
             isoline domain",
        ),
        (
            "--domain quad --partitioning integer --output point --edges 1,1,1 --inside 1,1",
            "dxlane: --edges: the quad domain takes 4 (U=0,V=0,U=1,V=1), not 3",
        ),
        (
            "--domain tri --partitioning integer --output point --edges 1,1,1",
            "dxlane: --inside: the tri domain takes 1",
        ),
        (
            "--domain isoline --partitioning integer --output line --edges 1,1 --inside 2",
            "dxlane: --inside: the isoline domain takes 0",
        ),
        (
            "--domain tri --partitioning integer --output point --edges 1,x,1 --inside 1",
            "dxlane: --edges factor 2 \"x\":",
        ),
        (
            "--domain tri --partitioning integer --output point --edges 1,1,1 --inside 0xzz",
            "dxlane: --inside factor 1 \"0xzz\":",
        ),
        (
            "--domain quad --partitioning integer --output point --edges 1,,1,1 --inside 1,1",
            "dxlane: --edges factor 2 \"\":",
        ),
        (
            "--domain tri --partitioning odd --output point --edges 1,1,1 --inside 1",
            "dxlane: --partitioning \"odd\": give one of integer, pow2, fractional_odd, \
             fractional_even",
        ),
        (
            "--domain cube --partitioning integer --output point --edges 1,1,1 --inside 1",
            "dxlane: --domain \"cube\": give one of tri, quad, isoline",
        ),
        (
            "--partitioning integer --output point --edges 1,1,1 --inside 1",
            "dxlane: --domain is missing",
        ),
        (
            "--domain tri --partitioning integer --output point --inside 1",
            "dxlane: --edges is missing",
        ),
    ];
    for (line, message) in cases {
        let args: Vec<String> = line.split(' ').map(String::from).collect();
        let out = dxlane(&args);
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(2), "{line}: {err}");
        assert!(err.starts_with(message), "{line}: {err}");
        assert_eq!(err.lines().count(), 1, "{line}: {err}");
        assert!(out.stdout.is_empty(), "{line}");
    }
    // clap's own refusal of an unknown flag is status 2 as well.
    let out = dxlane(&["--domains".to_string(), "tri".to_string()]);
    assert_eq!(out.status.code(), Some(2));
}
