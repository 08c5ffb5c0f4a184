//! `resolve_subresource` with `format`: the `Format` parameter of D3D12's
//! `ResolveSubresource` and `ResolveSubresourceRegion`, the DXGI format both
//! subresources are read and written as. The D3D12 reference for
//! `ID3D12GraphicsCommandList::ResolveSubresource` (Remarks) allows three pairings: two
//! typed resources of one format resolved as that format; a typed and a typeless
//! resource of one group resolved as the typed one's format; two resources of one
//! typeless format resolved as any typed format of its group. Every byte below is
//! derived by hand; each refusal names the command and the key.
//!
//! A multisampled texture's data holds its samples one after the other, each a whole
//! `width × height` plane, so a 1 × 1 texture of 4 samples has sample `s` at byte `4·s`.

use std::path::{Path, PathBuf};

use dxlane::job::{Finished, Job, prepare};

use crate::common;

fn job(name: &str, text: &str) -> PathBuf {
    let dir = common::scratch().join("resolve_format").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("job.toml");
    std::fs::write(&path, text).unwrap();
    path
}

fn run(path: &Path) -> Result<Finished, String> {
    let job = Job::load(path).map_err(|e| e.to_string())?;
    let opts = common::run_options();
    prepare(job, &opts)
        .and_then(|p| p.execute(&opts))
        .map_err(|e| e.to_string())
}

/// A single-sampled 1 × 1 texture named `name` of `format`, filled with `ee`. A
/// typeless one is given a typed view of its group (`view_format`), as a job's resource
/// needs one; the resolve reads the resource, not the view.
fn one(name: &str, format: &str) -> String {
    let view = match format.strip_suffix("_TYPELESS") {
        Some("R16G16") => "view_format = \"R16G16_FLOAT\"\n".to_string(),
        Some(group) => format!("view_format = \"{group}_UNORM\"\n"),
        None => String::new(),
    };
    format!(
        "\n[[resource]]\nname = \"{name}\"\nkind = \"texture2d\"\nformat = \"{format}\"\n{view}width = 1\nheight = 1\ndata = {{ fill_u32 = 0xeeeeeeee }}\n"
    )
}

/// `ms`: R8G8B8A8_TYPELESS, samples 0 and 1 (255, 255, 0, 255), samples 2 and 3 all
/// zero — half the samples white in red and green. `sn`: R8G8B8A8_TYPELESS whose red
/// codes are 0x7f, 0x80, 0x01, 0xff over the samples (the other channels 0): as UNORM
/// 127, 128, 1 and 255 of 255, as SNORM 1, −1 (−128/127 clamped), 1/127 and −1/127, as
/// UINT 127, 128, 1, 255, as SINT 127, −128, 1, −1.
const SOURCES: &str = r#"
[[resource]]
name = "ms"
kind = "texture2dms"
format = "R8G8B8A8_TYPELESS"
view_format = "R8G8B8A8_UNORM"
width = 1
height = 1
samples = 4
data = { hex = "ffff00ff ffff00ff 00000000 00000000" }

[[resource]]
name = "sn"
kind = "texture2dms"
format = "R8G8B8A8_TYPELESS"
view_format = "R8G8B8A8_UNORM"
width = 1
height = 1
samples = 4
data = { hex = "7f000000 80000000 01000000 ff000000" }

[[resource]]
name = "ms_unorm"
kind = "texture2dms"
format = "R8G8B8A8_UNORM"
width = 1
height = 1
samples = 4
data = { hex = "ffff00ff ffff00ff 00000000 00000000" }
"#;

fn command(dst: &str, src: &str, extra: &str) -> String {
    format!(
        "\n[[command]]\ntype = \"resolve_subresource\"\ndst = \"{dst}\"\nsrc = \"{src}\"\n{extra}\n"
    )
}

fn expect(resource: &str, hex: &str) -> String {
    format!("\n[[expect]]\nresource = \"{resource}\"\noffset = 0\nhex = \"{hex}\"\n")
}

/// The average is taken in `Format`'s interpretation (D3D12 `ResolveSubresource`:
/// `Format` "indicates how the multisampled resource will be resolved"; D3D11.3 §3.2.3
/// for the sRGB curve, §3.2.3.x for UNORM and SNORM conversion):
///
/// - `ms` as R8G8B8A8_UNORM_SRGB: red and green decode to linear 1 and 0, average 0.5,
///   encoded back 1.055·0.5^(1/2.4) − 0.055 = 0.73536, × 255 = 187.52 → 188 (0xbc);
///   alpha is linear in an sRGB format: 127.5 → 128 (0x80). Bytes `bcbc0080`.
/// - `ms` as R8G8B8A8_UNORM: the encoded codes averaged, 127.5 → 128: `80800080`. The
///   same bytes, another answer.
/// - into a typed R8G8B8A8_UNORM_SRGB destination (the one-typed case): `bcbc0080`;
///   from a typed R8G8B8A8_UNORM source into a typeless destination: `80800080`.
/// - `ResolveSubresourceRegion`'s AVERAGE as sRGB: `bcbc0080` too.
/// - `sn` as SNORM: (1 − 1 + 1/127 − 1/127) / 4 = 0 → `00000000`; as UNORM: (127 + 128
///   + 1 + 255) / 4 = 127.75 → 128 → `80000000`.
/// - MIN and MAX compare as `Format` reads ("Resolves the source samples to their
///   minimum/maximum value", `D3D12_RESOLVE_MODE`): red MAX as UNORM 0xff, as SNORM
///   0x7f (1.0), as UINT 0xff, as SINT 0x7f; MIN as UNORM 0x01, as SNORM 0x80 (−1),
///   as SINT 0x80 (−128). The other channels are 0 in every sample.
#[test]
fn the_format_chooses_how_samples_are_read() {
    let mut text = SOURCES.to_string();
    let outs = [
        (
            "srgb",
            "R8G8B8A8_TYPELESS",
            "ms",
            "format = \"R8G8B8A8_UNORM_SRGB\"",
            "bcbc0080",
        ),
        (
            "unorm",
            "R8G8B8A8_TYPELESS",
            "ms",
            "format = \"R8G8B8A8_UNORM\"",
            "80800080",
        ),
        (
            "typed_srgb",
            "R8G8B8A8_UNORM_SRGB",
            "ms",
            "format = \"R8G8B8A8_UNORM_SRGB\"",
            "bcbc0080",
        ),
        (
            "from_typed",
            "R8G8B8A8_TYPELESS",
            "ms_unorm",
            "format = \"R8G8B8A8_UNORM\"",
            "80800080",
        ),
        (
            "region_srgb",
            "R8G8B8A8_TYPELESS",
            "ms",
            "mode = \"average\"\nformat = \"R8G8B8A8_UNORM_SRGB\"",
            "bcbc0080",
        ),
        (
            "sn_snorm",
            "R8G8B8A8_TYPELESS",
            "sn",
            "format = \"R8G8B8A8_SNORM\"",
            "00000000",
        ),
        (
            "sn_unorm",
            "R8G8B8A8_TYPELESS",
            "sn",
            "format = \"R8G8B8A8_UNORM\"",
            "80000000",
        ),
        (
            "max_unorm",
            "R8G8B8A8_TYPELESS",
            "sn",
            "mode = \"max\"\nformat = \"R8G8B8A8_UNORM\"",
            "ff000000",
        ),
        (
            "max_snorm",
            "R8G8B8A8_TYPELESS",
            "sn",
            "mode = \"max\"\nformat = \"R8G8B8A8_SNORM\"",
            "7f000000",
        ),
        (
            "max_uint",
            "R8G8B8A8_TYPELESS",
            "sn",
            "mode = \"max\"\nformat = \"R8G8B8A8_UINT\"",
            "ff000000",
        ),
        (
            "max_sint",
            "R8G8B8A8_TYPELESS",
            "sn",
            "mode = \"max\"\nformat = \"R8G8B8A8_SINT\"",
            "7f000000",
        ),
        (
            "min_unorm",
            "R8G8B8A8_TYPELESS",
            "sn",
            "mode = \"min\"\nformat = \"R8G8B8A8_UNORM\"",
            "01000000",
        ),
        (
            "min_snorm",
            "R8G8B8A8_TYPELESS",
            "sn",
            "mode = \"min\"\nformat = \"R8G8B8A8_SNORM\"",
            "80000000",
        ),
        (
            "min_sint",
            "R8G8B8A8_TYPELESS",
            "sn",
            "mode = \"min\"\nformat = \"R8G8B8A8_SINT\"",
            "80000000",
        ),
    ];
    for (name, format, _, _, _) in &outs {
        text += &one(name, format);
    }
    for (name, _, src, extra, _) in &outs {
        text += &command(name, src, extra);
    }
    for (name, _, _, _, hex) in &outs {
        text += &expect(name, hex);
    }
    let Finished::List(r) = run(&job("interpretations", &text)).unwrap() else {
        panic!("not a list")
    };
    assert_eq!(
        r.summary.expectations.failed, 0,
        "{:?}",
        r.summary.expectations
    );
    assert_eq!(r.summary.expectations.passed, outs.len());
}

/// Two typed resources of one format resolve without `format`, as they always did, and
/// with `format` naming that format; the answer is the UNORM one.
#[test]
fn typed_pairs_need_no_format() {
    let text = format!(
        "{SOURCES}{}{}{}{}{}{}",
        one("a", "R8G8B8A8_UNORM"),
        one("b", "R8G8B8A8_UNORM"),
        command("a", "ms_unorm", ""),
        command("b", "ms_unorm", "format = \"R8G8B8A8_UNORM\""),
        expect("a", "80800080"),
        expect("b", "80800080"),
    );
    let Finished::List(r) = run(&job("typed", &text)).unwrap() else {
        panic!("not a list")
    };
    assert_eq!(r.summary.expectations.failed, 0);
    assert_eq!(r.summary.expectations.passed, 2);
}

/// The pairings the reference does not allow, and formats a resolve cannot take, each
/// refused naming the command and the key.
#[test]
fn refusals_name_the_command_and_key() {
    let targets = [
        one("tl", "R8G8B8A8_TYPELESS"),
        one("unorm", "R8G8B8A8_UNORM"),
        one("srgb", "R8G8B8A8_UNORM_SRGB"),
        one("rg16f", "R16G16_FLOAT"),
        one("tl16", "R16G16_TYPELESS"),
    ]
    .concat();
    let cases: &[(&str, &str, &str, &str, &[&str])] = &[
        (
            "typeless_without_format",
            "tl",
            "ms",
            "",
            &[
                "#1 (resolve_subresource)",
                "missing `format`",
                "\"ms\" is R8G8B8A8_TYPELESS",
            ],
        ),
        (
            "typeless_dst_without_format",
            "tl",
            "ms_unorm",
            "",
            &["missing `format`", "\"tl\" is R8G8B8A8_TYPELESS"],
        ),
        (
            "typed_dst_of_another_group",
            "rg16f",
            "ms",
            "format = \"R16G16_FLOAT\"",
            &[
                "#1 (resolve_subresource)",
                "`dst`",
                "\"rg16f\" is R16G16_FLOAT",
                "not of the group",
            ],
        ),
        (
            "typeless_pair_of_two_groups",
            "tl16",
            "ms",
            "format = \"R8G8B8A8_UNORM\"",
            &["`format`", "two typeless resources", "R16G16_TYPELESS"],
        ),
        (
            "format_of_another_group",
            "tl",
            "ms",
            "format = \"R16G16_FLOAT\"",
            &[
                "`format`",
                "R16G16_FLOAT is not of R8G8B8A8_TYPELESS's group",
            ],
        ),
        (
            "typed_pair_cast",
            "unorm",
            "ms_unorm",
            "format = \"R8G8B8A8_UNORM_SRGB\"",
            &[
                "`format`",
                "R8G8B8A8_UNORM_SRGB is not R8G8B8A8_UNORM",
                "their own format",
            ],
        ),
        (
            "typed_pair_of_two_formats",
            "srgb",
            "ms_unorm",
            "format = \"R8G8B8A8_UNORM\"",
            &["`format`", "two typed resources"],
        ),
        (
            "format_not_the_typed_ones",
            "srgb",
            "ms",
            "format = \"R8G8B8A8_UNORM\"",
            &[
                "`format`",
                "R8G8B8A8_UNORM is not R8G8B8A8_UNORM_SRGB",
                "\"srgb\"",
            ],
        ),
        (
            "typeless_format",
            "tl",
            "ms",
            "format = \"R8G8B8A8_TYPELESS\"",
            &["`format`", "is typeless"],
        ),
        (
            "unknown_format",
            "tl",
            "ms",
            "format = \"R8G8B8A8_UNROM\"",
            &["`format`", "unknown format \"R8G8B8A8_UNROM\""],
        ),
        (
            "integer_average",
            "tl",
            "ms",
            "format = \"R8G8B8A8_UINT\"",
            &[
                "#1 (resolve_subresource)",
                "`format`",
                "R8G8B8A8_UINT cannot be resolved",
                "integer",
            ],
        ),
        (
            "integer_region_average",
            "tl",
            "ms",
            "mode = \"average\"\nformat = \"R8G8B8A8_SINT\"",
            &["`format`", "integer", "AVERAGE"],
        ),
    ];
    for (name, dst, src, extra, wants) in cases {
        let text = format!("{SOURCES}{targets}{}", command(dst, src, extra));
        let e = match run(&job(name, &text)) {
            Ok(_) => panic!("{name}: the job ran"),
            Err(e) => e,
        };
        for w in *wants {
            assert!(e.contains(w), "{name}: `{w}` not in: {e}");
        }
    }
}
