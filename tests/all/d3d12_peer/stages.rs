//! The geometry-stage frames on the peer (`examples/frames/cube_map_one_pass.toml`,
//! `examples/frames/particles.toml`), written as plans by hand: the list plans
//! ([`super::lists`]) build pipelines of vertex and pixel programs only, and D3D12 has no
//! `DrawAuto`. Each plan runs the frame's geometry-program draw from the same starting
//! bytes; what it writes is compared with dxlane's bytes after the same frame.

use super::*;
use dxlane::job::{Finished, Job, ListResult, prepare};

/// Runs frame `name` of `examples/frames/` as it is.
fn frame(name: &str) -> ListResult {
    let path = common::root()
        .join("examples/frames")
        .join(format!("{name}.toml"));
    let text = std::fs::read_to_string(&path).unwrap().replace(
        "../../shaders",
        &common::root().join("shaders").display().to_string(),
    );
    let dir = common::scratch().join("d3d12_peer_stages").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let job_path = dir.join("job.toml");
    std::fs::write(&job_path, text).unwrap();
    let opts = common::run_options();
    let job = Job::load(&job_path).unwrap_or_else(|e| panic!("{name}: {e}"));
    match prepare(job, &opts)
        .and_then(|p| p.execute(&opts))
        .unwrap_or_else(|e| panic!("{name}: {e}"))
    {
        Finished::List(r) => *r,
        _ => panic!("{name}: not a list"),
    }
}

fn resource_bytes(r: &ListResult, index: usize) -> Vec<u8> {
    let e = &r.bound.resources[index];
    match e.texture() {
        Some(t) => t.to_bytes(),
        None => e.memory().expect("storage").to_bytes(),
    }
}

fn le_words(bytes: &[u8]) -> Vec<u32> {
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// The one-pass cube map: the six faces start as the frame's clears left them, then
/// one draw through `cube_one_pass`'s geometry program renders the triangle into every
/// face (`SV_RenderTargetArrayIndex`) through render-target and depth views of all six
/// slices. The faces and the depth slices must equal dxlane's bit for bit: the
/// triangles' corners lie on the 1/16-pixel grid of a 32 × 32 face and their colours
/// are multiples of 1/8, which leaves no rule room.
#[test]
fn one_pass_cube_map_matches_the_peer() {
    let test = "d3d12_peer::one_pass_cube_map_matches_the_peer";
    let Some(exe) = peer(test) else { return };
    let ours = frame("cube_map_one_pass");
    assert_eq!(ours.summary.expectations.failed, 0);
    let cube_ours = resource_bytes(&ours, 0);
    let depth_ours = resource_bytes(&ours, 4);
    let triangle = resource_bytes(&ours, 2);

    // The faces' clear colours, as the frame's clear commands wrote them.
    let clears: [[u8; 4]; 6] =
        std::array::from_fn(|k| cube_ours[k * 4096..k * 4096 + 4].try_into().unwrap());
    let faces: Vec<u8> = clears.iter().flat_map(|c| c.repeat(32 * 32)).collect();
    let ones: Vec<u8> = (0..6 * 32 * 32).flat_map(|_| 1f32.to_le_bytes()).collect();

    let mut plan = Plan::new("one_pass_cube_map");
    let data = plan.data(&faces);
    plan.line(format!(
        "texture cube dim=2d format=R8G8B8A8_UNORM width=32 height=32 array=6 rtv=1 data={data}"
    ));
    let data = plan.data(&ones);
    plan.line(format!(
        "texture depth dim=2d format=R32_TYPELESS width=32 height=32 array=6 dsv=1 data={data}"
    ));
    let mut tri = triangle.clone();
    tri.resize(256, 0);
    let data = plan.data(&tri);
    plan.line(format!("buffer tri size=256 data={data}"));
    let vs = plan.shader(&common::root().join("shaders/cube_one_pass.vs_5_0.dxbc"));
    let gs = plan.shader(&common::root().join("shaders/cube_one_pass.gs_5_0.dxbc"));
    let ps = plan.shader(&common::root().join("shaders/draw_color.ps_5_0.dxbc"));
    plan.line("rtv faces resource=cube format=R8G8B8A8_UNORM slices=0+6");
    plan.line("dsv faces_depth resource=depth format=D32_FLOAT slices=0+6");
    plan.line("root_signature rs graphics");
    plan.line("end");
    plan.line("pipeline cube graphics");
    plan.line("root_signature rs");
    plan.line(format!("vs {vs}"));
    plan.line(format!("gs {gs}"));
    plan.line(format!("ps {ps}"));
    plan.line("input POSITION 0 R32G32_FLOAT");
    plan.line("input COLOR 0 R32G32B32A32_FLOAT");
    plan.line("topology_type triangle");
    plan.line("rasterizer cull=none");
    plan.line("depth_stencil depth=1 func=LESS");
    plan.line("render_target_formats R8G8B8A8_UNORM");
    plan.line("depth_stencil_format D32_FLOAT");
    plan.line("end");
    plan.line("set_pipeline cube");
    plan.line("set_render_targets faces depth=faces_depth");
    plan.line("set_viewports 0,0,32,32,0,1");
    plan.line("set_scissors 0,0,32,32");
    plan.line("set_topology triangle_list");
    plan.line("set_vertex_buffer 0 resource=tri stride=24");
    plan.line("draw 3");
    plan.line("readback cube cube.bin");
    plan.line("readback depth depth.bin");
    let path = plan.finish();
    if run_plan(test, exe, &path).is_none() {
        return;
    }
    let mut cube_theirs = plan.read("cube.bin");
    cube_theirs.truncate(cube_ours.len());
    let mut depth_theirs = plan.read("depth.bin");
    depth_theirs.truncate(depth_ours.len());
    let differing = |a: &[u8], b: &[u8]| {
        a.chunks_exact(4)
            .zip(b.chunks_exact(4))
            .enumerate()
            .filter(|(_, (x, y))| x != y)
            .map(|(i, (x, y))| format!("texel {i}: dxlane {x:02x?} peer {y:02x?}"))
            .take(5)
            .collect::<Vec<_>>()
    };
    let d = differing(&cube_ours, &cube_theirs);
    assert!(d.is_empty(), "the faces differ: {d:?}");
    let d = differing(&depth_ours, &depth_theirs);
    assert!(d.is_empty(), "the depth slices differ: {d:?}");
}

/// The particle step: `particles`' vertex and geometry programs stream the twelve
/// particles out through one `BufferFilledSize` counter, nothing rasterized (D3D11.3
/// §14: records in input order, the dropped particle not written). The 11 records and
/// the counter must equal dxlane's word for word. The peer writes every component of a
/// declared element's register (see [`stream_output_matches_the_peer`]): VELOCITY's
/// fourth word lands on COLOR.x, which the COLOR entry then writes, so every record's
/// words are compared.
#[test]
fn particle_step_matches_the_peer() {
    let test = "d3d12_peer::particle_step_matches_the_peer";
    let Some(exe) = peer(test) else { return };
    let ours = frame("particles");
    assert_eq!(ours.summary.expectations.failed, 0);
    let particles = resource_bytes(&ours, 0);
    let state_ours = le_words(&resource_bytes(&ours, 1));
    let counter_ours = le_words(&resource_bytes(&ours, 2));

    let mut plan = Plan::new("particle_step");
    let mut p = particles.clone();
    p.resize(p.len().next_multiple_of(256), 0);
    let data = plan.data(&p);
    plan.line(format!("buffer particles size={} data={data}", p.len()));
    let data = plan.data(&[0; 768]);
    plan.line(format!("buffer state size=768 data={data}"));
    let data = plan.data(&[0; 4]);
    plan.line(format!("buffer counter size=4 data={data}"));
    let vs = plan.shader(&common::root().join("shaders/particles.vs_5_0.dxbc"));
    let gs = plan.shader(&common::root().join("shaders/particles.gs_5_0.dxbc"));
    plan.line("root_signature rs graphics stream_output=1");
    plan.line("end");
    plan.line("pipeline step graphics");
    plan.line("root_signature rs");
    plan.line(format!("vs {vs}"));
    plan.line(format!("gs {gs}"));
    plan.line("input POSITION 0 R32G32B32A32_FLOAT");
    plan.line("input VELOCITY 0 R32G32B32_FLOAT");
    plan.line("input COLOR 0 R32G32B32A32_FLOAT");
    plan.line("topology_type point");
    plan.line("so_entry POSITION 0 count=4");
    plan.line("so_entry VELOCITY 0 count=3");
    plan.line("so_entry COLOR 0 count=4");
    plan.line("so_strides 44");
    plan.line("rasterized_stream none");
    plan.line("end");
    plan.line("set_pipeline step");
    plan.line("set_topology point_list");
    plan.line("set_vertex_buffer 0 resource=particles stride=44");
    plan.line("set_viewports 0,0,128,128,0,1");
    plan.line("set_so_target 0 resource=state counter=counter size=528");
    plan.line("draw 12");
    plan.line("set_so_target 0");
    plan.line("readback state state.bin");
    plan.line("readback counter counter.bin");
    let path = plan.finish();
    if run_plan(test, exe, &path).is_none() {
        return;
    }
    let state_theirs = le_words(&plan.read("state.bin"));
    let counter_theirs = le_words(&plan.read("counter.bin"));
    assert_eq!(counter_theirs, counter_ours, "BufferFilledSize");
    assert_eq!(counter_ours, [484]);
    for r in 0..11 {
        assert_eq!(
            state_theirs[11 * r..11 * (r + 1)],
            state_ours[11 * r..11 * (r + 1)],
            "record {r}"
        );
    }
}
