//! `ResolveSubresource`'s `Format` on the peer: a multisampled `R8G8B8A8_TYPELESS`
//! target drawn through an `R8G8B8A8_UNORM` view with half its samples white (sample
//! mask 0b0011 over 4 samples, a triangle covering every pixel), then resolved three
//! times — into a typeless texture as `R8G8B8A8_UNORM_SRGB` and as `R8G8B8A8_UNORM`, and
//! into a typed `R8G8B8A8_UNORM_SRGB` texture — and read back. dxlane's answers for the
//! same samples are `tests/all/resolve_format.rs`'s, derived by hand: sRGB `bc bc 00 80`
//! (linear 0.5 encoded), UNORM `80 80 00 80` (codes averaged).
//!
//! The peer deviates: vkd3d 1.2 resolves a typeless resource only in the format it made
//! the resource's Vulkan image with (`R8G8B8A8_UNORM` for `R8G8B8A8_TYPELESS`); given
//! `R8G8B8A8_UNORM_SRGB` it logs "ResolveSubresource: Not implemented for typeless
//! resources" and records nothing, so both sRGB destinations keep their starting zeros.
//! The test holds the UNORM resolve equal to dxlane's bytes and the two sRGB resolves
//! as the peer's skip, so that a peer that starts honouring `Format` fails here and the
//! sRGB bytes can be compared instead.

use super::*;

/// The bytes every texel of a resolve into `format` holds (see the module doc).
fn wanted(format: &str) -> [u8; 4] {
    if format.ends_with("_SRGB") {
        [0xbc, 0xbc, 0x00, 0x80]
    } else {
        [0x80, 0x80, 0x00, 0x80]
    }
}

#[test]
fn resolve_format_on_the_peer() {
    let test = "d3d12_peer::resolve_format::resolve_format_on_the_peer";
    let Some(exe) = peer(test) else { return };
    let (_, _, vs_file, ps_file) = random_programs();
    let mut plan = Plan::new("resolve_format");
    let vs = plan.shader(vs_file);
    let ps = plan.shader(ps_file);
    plan.line("texture ms dim=2d format=R8G8B8A8_TYPELESS width=4 height=4 samples=4 rtv=1");
    plan.line("rtv msv resource=ms format=R8G8B8A8_UNORM");
    let outs = [
        ("as_srgb", "R8G8B8A8_TYPELESS", "R8G8B8A8_UNORM_SRGB"),
        ("as_unorm", "R8G8B8A8_TYPELESS", "R8G8B8A8_UNORM"),
        ("typed_srgb", "R8G8B8A8_UNORM_SRGB", "R8G8B8A8_UNORM_SRGB"),
    ];
    // Zeros to start from: a skipped resolve must leave them (a new resource's
    // contents are otherwise whatever the peer's memory held).
    let zeros = plan.data(&[0u8; 64]);
    for (name, format, _) in outs {
        plan.line(format!(
            "texture {name} dim=2d format={format} width=4 height=4 data={zeros}"
        ));
    }
    plan.line("root_signature rs graphics");
    plan.line("end");
    plan.line("pipeline pso graphics");
    plan.line("root_signature rs");
    plan.line(format!("vs {vs}"));
    plan.line(format!("ps {ps}"));
    plan.line("input POSITION 0 R32G32B32A32_FLOAT");
    plan.line("input COLOR 0 R32G32B32A32_FLOAT");
    plan.line("input TRIANGLE 0 R32_UINT");
    plan.line("topology_type triangle");
    plan.line("rasterizer cull=none");
    plan.line("sample_desc count=4");
    plan.line("sample_mask 3");
    plan.line("render_target_formats R8G8B8A8_UNORM");
    plan.line("end");
    // One triangle over the whole target: position, colour (1, 1, 0, 1), number 0.
    let mut vb = Vec::new();
    for [x, y] in [[-1.0f32, -1.0], [-1.0, 3.0], [3.0, -1.0]] {
        for v in [x, y, 0.0, 1.0, 1.0, 1.0, 0.0, 1.0] {
            vb.extend_from_slice(&v.to_le_bytes());
        }
        vb.extend_from_slice(&0u32.to_le_bytes());
    }
    let vb = buffer(&mut plan, &vb, 4, false);
    plan.line("set_pipeline pso");
    plan.line("set_render_targets msv");
    plan.line("clear_render_target msv 0 0 0 0");
    plan.line("set_viewports 0,0,4,4,0,1");
    plan.line("set_scissors 0,0,4,4");
    plan.line("set_topology triangle_list");
    plan.line(format!("set_vertex_buffer 0 resource={vb} stride=36"));
    plan.line("draw 3");
    for (name, _, format) in outs {
        plan.line(format!("resolve_subresource {name} 0 ms 0 {format}"));
        plan.line(format!("readback {name} {name}.bin"));
    }
    let path = plan.finish();
    if run_plan(test, exe, &path).is_none() {
        return;
    }
    for (name, _, format) in outs {
        let got = plan.read(&format!("{name}.bin"));
        if format.ends_with("_SRGB") {
            assert_eq!(
                got,
                vec![0; 64],
                "{name}: the peer's skip of a typeless resolve as {format} (dxlane writes {:02x?})",
                wanted(format)
            );
        } else {
            assert_eq!(
                got,
                wanted(format).repeat(16),
                "{name}: resolved as {format}"
            );
        }
    }
}
