//! `resolve_subresource` with a `mode`: D3D12's `ResolveSubresourceRegion` with
//! `D3D12_RESOLVE_MODE_MIN`, `MAX`, `AVERAGE` and `DECOMPRESS` (DirectX-Specs "D3D12
//! Programmable Sample Positions", section "ResolveSubresourceRegion", and the D3D12
//! reference for the method and the enumeration), over a source rectangle into a
//! destination offset, every byte derived by hand, and the refusals naming the command
//! and the key.
//!
//! A multisampled texture's data holds its samples one after the other, each a whole
//! `width × height` plane, texels in rows (the subresource's layout); so a 2 × 2
//! `R8G8B8A8_UNORM` texture of 4 samples has sample `s` of texel `(x, y)` at byte
//! `16·s + 4·(2y + x)`.

use std::path::{Path, PathBuf};

use dxlane::job::{Finished, Job, prepare};

use crate::common;

fn job(name: &str, text: &str) -> PathBuf {
    let dir = common::scratch().join("resolve_region").join(name);
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

/// Texel (0, 0)'s samples are (R, G, B, A) = (10, 0, 1, 255), (200, 0, 2, 255),
/// (50, 255, 3, 255), (91, 0, 5, 255); texel (1, 0) holds 11 22 33 44 in every
/// sample, (0, 1) zero, (1, 1) 01 02 03 04 in every sample.
const COLOUR: &str = r#"
[[resource]]
name = "ms"
kind = "texture2dms"
format = "R8G8B8A8_UNORM"
width = 2
height = 2
samples = 4
data = { hex = "0a0001ff 11223344 00000000 01020304 c80002ff 11223344 00000000 01020304 32ff03ff 11223344 00000000 01020304 5b0005ff 11223344 00000000 01020304" }

[[resource]]
name = "ms2"
kind = "texture2dms"
format = "R8G8B8A8_UNORM"
width = 2
height = 2
samples = 4
data = { fill_u32 = 0xeeeeeeee }

[[resource]]
name = "min_out"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = 2
height = 2
data = { fill_u32 = 0xeeeeeeee }

[[resource]]
name = "max_out"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = 2
height = 2
data = { fill_u32 = 0xeeeeeeee }

[[resource]]
name = "avg_out"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = 2
height = 2
data = { fill_u32 = 0xeeeeeeee }

[[resource]]
name = "avg_part"
kind = "texture2d"
format = "R8G8B8A8_UNORM"
width = 2
height = 2
data = { fill_u32 = 0xeeeeeeee }
"#;

/// MIN of texel (0, 0) per component: R min(10, 200, 50, 91) = 10, G 0, B 1, A 255,
/// written at `dst_at` (1, 0) from the one-texel rectangle, texel (0, 0) of the
/// destination left alone. MAX of the whole subresource: (200, 255, 5, 255) at (0, 0),
/// 11 22 33 44 at (1, 0). AVERAGE: R 351/4 = 87.75 → 88 (0x58), G 255/4 = 63.75 → 64
/// (0x40), B 11/4 = 2.75 → 3, A 255 (the UNORM rule: scale, add ½, truncate). The
/// rectangle of column 1 averaged to (0, 0): its texels unchanged (every sample alike)
/// in column 0 of the destination, column 1 left alone. DECOMPRESS of texel (0, 0) to
/// (1, 1) of another 4-sample texture: each sample to the same sample, at bytes 12,
/// 28, 44 and 60.
#[test]
fn min_max_average_decompress_over_rectangles() {
    let text = format!(
        r#"{COLOUR}
[[command]]
type = "resolve_subresource"
mode = "min"
dst = "min_out"
src = "ms"
src_rect = [0, 0, 1, 1]
dst_at = [1, 0, 0]

[[command]]
type = "resolve_subresource"
mode = "max"
dst = "max_out"
src = "ms"

[[command]]
type = "resolve_subresource"
mode = "average"
dst = "avg_out"
src = "ms"

[[command]]
type = "resolve_subresource"
mode = "average"
dst = "avg_part"
src = "ms"
src_rect = [1, 0, 2, 2]
dst_at = [0, 0, 0]

[[command]]
type = "resolve_subresource"
mode = "decompress"
dst = "ms2"
src = "ms"
src_rect = [0, 0, 1, 1]
dst_at = [1, 1, 0]

[[expect]]
resource = "min_out"
offset = 0
hex = "eeeeeeee 0a0001ff eeeeeeee eeeeeeee"

[[expect]]
resource = "max_out"
offset = 0
hex = "c8ff05ff 11223344"

[[expect]]
resource = "avg_out"
offset = 0
hex = "584003ff 11223344 00000000 01020304"

[[expect]]
resource = "avg_part"
offset = 0
hex = "11223344 eeeeeeee 01020304 eeeeeeee"

[[expect]]
resource = "ms2"
offset = 0
hex = "eeeeeeee eeeeeeee eeeeeeee 0a0001ff eeeeeeee eeeeeeee eeeeeeee c80002ff eeeeeeee eeeeeeee eeeeeeee 32ff03ff eeeeeeee eeeeeeee eeeeeeee 5b0005ff"
"#
    );
    let Finished::List(r) = run(&job("colour", &text)).unwrap() else {
        panic!("not a list")
    };
    assert_eq!(
        r.summary.expectations.failed, 0,
        "{:?}",
        r.summary.expectations
    );
    assert_eq!(r.summary.expectations.passed, 5);
}

/// A depth-stencil resource resolves one plane at a time (D3D12 makes depth and stencil
/// separate subresources; "MIN or MAX can be used with any RenderTarget or
/// DepthStencil format (depth or stencil plane)", "AVERAGE … including depth (not
/// stencil)"). The `D24_UNORM_S8_UINT` samples hold depth codes 16, 32, 8, 48 with
/// stencil 3, 9, 1, 7 (bytes: 24-bit code, then the stencil). MIN of the depth plane
/// writes code 8 and keeps the destination's stencil 0xaa; MAX of the stencil plane
/// then writes 9 and keeps code 8. AVERAGE of the depth plane: (16 + 32 + 8 + 48) / 4 =
/// 26 (0x1a) exactly, over a stencil of 0xaa left alone. MIN of a `D32_FLOAT` source's
/// depth: the smallest float, −0.5 of 0.25, −0.5, 1, 0.75 (bytes 00 00 00 bf).
#[test]
fn depth_and_stencil_planes() {
    let text = r#"
[[resource]]
name = "ds"
kind = "texture2dms"
format = "D24_UNORM_S8_UINT"
width = 1
height = 1
samples = 4
data = { hex = "10000003 20000009 08000001 30000007" }

[[resource]]
name = "ds_min"
kind = "texture2d"
format = "D24_UNORM_S8_UINT"
width = 1
height = 1
data = { fill_u32 = 0xaa000000 }

[[resource]]
name = "ds_avg"
kind = "texture2d"
format = "D24_UNORM_S8_UINT"
width = 1
height = 1
data = { fill_u32 = 0xaa000000 }

[[resource]]
name = "d32"
kind = "texture2dms"
format = "D32_FLOAT"
width = 1
height = 1
samples = 4
data = { f32 = [0.25, -0.5, 1.0, 0.75] }

[[resource]]
name = "d32_min"
kind = "texture2d"
format = "D32_FLOAT"
width = 1
height = 1

[[command]]
type = "resolve_subresource"
mode = "min"
dst = "ds_min"
src = "ds"

[[command]]
type = "resolve_subresource"
mode = "max"
plane = "stencil"
dst = "ds_min"
src = "ds"

[[command]]
type = "resolve_subresource"
mode = "average"
plane = "depth"
dst = "ds_avg"
src = "ds"

[[command]]
type = "resolve_subresource"
mode = "min"
dst = "d32_min"
src = "d32"

[[expect]]
resource = "ds_min"
offset = 0
hex = "08000009"

[[expect]]
resource = "ds_avg"
offset = 0
hex = "1a0000aa"

[[expect]]
resource = "d32_min"
offset = 0
hex = "000000bf"
"#;
    let Finished::List(r) = run(&job("planes", text)).unwrap() else {
        panic!("not a list")
    };
    assert_eq!(
        r.summary.expectations.failed, 0,
        "{:?}",
        r.summary.expectations
    );
    assert_eq!(r.summary.expectations.passed, 3);
}

/// Decompress into its own source in place ("the destination surface can optionally
/// be the same as the source … as long as rect/region match"): nothing changes.
#[test]
fn decompress_in_place_changes_nothing() {
    let text = format!(
        r#"{COLOUR}
[[command]]
type = "resolve_subresource"
mode = "decompress"
dst = "ms"
src = "ms"
src_rect = [1, 0, 2, 2]
dst_at = [1, 0, 0]

[[expect]]
resource = "ms"
offset = 0
hex = "0a0001ff 11223344 00000000 01020304 c80002ff 11223344 00000000 01020304"
"#
    );
    let Finished::List(r) = run(&job("in_place", &text)).unwrap() else {
        panic!("not a list")
    };
    assert_eq!(r.summary.expectations.failed, 0);
}

/// Bad resolves are errors naming the command and the key: each mode's formats, sample
/// counts, planes, the rectangle and the offset, an unknown mode, and a region without
/// a mode.
#[test]
fn bad_region_resolves_name_the_command_and_key() {
    let extra = r#"
[[resource]]
name = "ms_uint"
kind = "texture2dms"
format = "R8_UINT"
width = 2
height = 2
samples = 4

[[resource]]
name = "uint_out"
kind = "texture2d"
format = "R8_UINT"
width = 2
height = 2

[[resource]]
name = "ms_ds"
kind = "texture2dms"
format = "D24_UNORM_S8_UINT"
width = 2
height = 2
samples = 4

[[resource]]
name = "ds_out"
kind = "texture2d"
format = "D24_UNORM_S8_UINT"
width = 2
height = 2

[[resource]]
name = "ms_d32"
kind = "texture2dms"
format = "D32_FLOAT"
width = 2
height = 2
samples = 4

[[resource]]
name = "d32_out"
kind = "texture2d"
format = "D32_FLOAT"
width = 2
height = 2

[[resource]]
name = "ms8"
kind = "texture2dms"
format = "R8G8B8A8_UNORM"
width = 2
height = 2
samples = 8
"#;
    let cases: &[(&str, &str, &[&str])] = &[
        (
            "average_integer",
            "mode = \"average\"\ndst = \"uint_out\"\nsrc = \"ms_uint\"",
            &["#1 (resolve_subresource)", "`src`", "integer", "AVERAGE"],
        ),
        (
            "average_stencil",
            "mode = \"average\"\nplane = \"stencil\"\ndst = \"ds_out\"\nsrc = \"ms_ds\"",
            &["`src`", "stencil plane", "AVERAGE"],
        ),
        (
            "no_stencil_plane",
            "mode = \"max\"\nplane = \"stencil\"\ndst = \"d32_out\"\nsrc = \"ms_d32\"",
            &["`plane` \"stencil\"", "no stencil plane"],
        ),
        (
            "plane_of_colour",
            "mode = \"min\"\nplane = \"depth\"\ndst = \"min_out\"\nsrc = \"ms\"",
            &["`plane` \"depth\"", "one plane"],
        ),
        (
            "unknown_plane",
            "mode = \"min\"\nplane = \"both\"\ndst = \"ds_out\"\nsrc = \"ms_ds\"",
            &["`plane` \"both\"", "\"depth\" and \"stencil\""],
        ),
        (
            "min_into_multisampled",
            "mode = \"min\"\ndst = \"ms2\"\nsrc = \"ms\"",
            &["`dst`", "4 samples", "single-sampled"],
        ),
        (
            "max_from_single",
            "mode = \"max\"\ndst = \"max_out\"\nsrc = \"min_out\"",
            &["`src`", "not multisampled"],
        ),
        (
            "decompress_sample_counts",
            "mode = \"decompress\"\ndst = \"ms8\"\nsrc = \"ms\"",
            &["`dst`", "8 sample(s)", "DECOMPRESS"],
        ),
        (
            "formats_differ",
            "mode = \"min\"\ndst = \"uint_out\"\nsrc = \"ms\"",
            &["one format", "R8_UINT", "R8G8B8A8_UNORM"],
        ),
        (
            "rect_outside",
            "mode = \"min\"\ndst = \"min_out\"\nsrc = \"ms\"\nsrc_rect = [1, 0, 3, 1]",
            &["`src_rect` [1, 0, 3, 1]", "inside mip 0", "2×2"],
        ),
        (
            "rect_empty",
            "mode = \"average\"\ndst = \"min_out\"\nsrc = \"ms\"\nsrc_rect = [1, 1, 1, 2]",
            &["`src_rect`", "non-empty"],
        ),
        (
            "dst_at_outside",
            "mode = \"max\"\ndst = \"max_out\"\nsrc = \"ms\"\nsrc_rect = [0, 0, 2, 1]\ndst_at = [1, 0, 0]",
            &["`dst_at` [1, 0, 0]", "does not fit", "\"max_out\""],
        ),
        (
            "dst_at_z",
            "mode = \"max\"\ndst = \"max_out\"\nsrc = \"ms\"\nsrc_rect = [0, 0, 1, 1]\ndst_at = [0, 0, 1]",
            &["`dst_at`", "DstX and DstY only"],
        ),
        (
            "slice_outside",
            "mode = \"max\"\ndst = \"max_out\"\nsrc = \"ms\"\nsrc_slice = 1",
            &["`src_slice` 1", "1 array slice"],
        ),
        (
            "decompress_shifted_in_place",
            "mode = \"decompress\"\ndst = \"ms\"\nsrc = \"ms\"\nsrc_rect = [0, 0, 1, 1]\ndst_at = [1, 0, 0]",
            &["`dst_at`", "in place"],
        ),
        (
            "unknown_mode",
            "mode = \"median\"\ndst = \"max_out\"\nsrc = \"ms\"",
            &["`mode` \"median\"", "\"min\"", "\"decompress\""],
        ),
        (
            "region_without_mode",
            "dst = \"max_out\"\nsrc = \"ms\"\nsrc_rect = [0, 0, 1, 1]",
            &[
                "`src_rect`",
                "ResolveSubresource (no `mode`)",
                "ResolveSubresourceRegion",
            ],
        ),
    ];
    for (name, keys, wants) in cases {
        let text =
            format!("{COLOUR}{extra}\n[[command]]\ntype = \"resolve_subresource\"\n{keys}\n");
        let e = match run(&job(name, &text)) {
            Ok(_) => panic!("{name}: the job ran"),
            Err(e) => e,
        };
        for w in *wants {
            assert!(e.contains(w), "{name}: `{w}` not in: {e}");
        }
    }
}
