//! The meshlet example (`examples/meshlets.toml`, its vertex twin
//! `examples/meshlets_vertex.toml`): the committed programs and data are what
//! `examples/make_meshlets.rs` makes, every program is a container `info --check` and
//! `llvm-dis` accept, the amplification program culls exactly the meshlets the same
//! frustum test culls on the CPU, the culled meshlets would draw nothing, and the two
//! paths draw the same image bit for bit on both engines (issue 34's "meshlet twin").
//! The goldens are checked with the other examples' (`draw::draw_examples_match_goldens`).

use dxlane::container::write::write_container;
use dxlane::container::{Container, DxilProgramHeader, FourCc};
use dxlane::dxil::check::{Checked, check};
use dxlane::exec::jit::Engine;
use dxlane::job::{self, DrawResult, Job, RunOptions};

use super::common;

// The example's generator uses the parts of the module these tests do not.
#[allow(dead_code)]
#[path = "../../examples/meshlets/make.rs"]
mod make;

fn example(name: &str) -> String {
    std::fs::read_to_string(common::root().join("examples").join(name)).unwrap()
}

/// Runs `text` as `examples/NAME.toml` on `engine` (and `threads` workers, when given),
/// outputs under the test's folder.
fn run_on(name: &str, text: &str, engine: Engine, threads: Option<usize>) -> DrawResult {
    let dir = common::scratch()
        .join("meshlets")
        .join(format!("{name}-{engine}"));
    std::fs::create_dir_all(&dir).unwrap();
    let job = Job::from_text(
        text,
        &common::root().join("examples").join(format!("{name}.toml")),
    )
    .unwrap_or_else(|e| panic!("{name}: {e}"));
    let opts = RunOptions {
        engine: Some(engine),
        out_dir: Some(dir.clone()),
        summary: Some(dir.join("summary.json")),
        threads,
        ..common::run_options()
    };
    job::run_draw_job(job, &opts).unwrap_or_else(|e| panic!("{name}: {e}"))
}

fn run(name: &str, text: &str, engine: Engine) -> DrawResult {
    run_on(name, text, engine, None)
}

fn image(r: &DrawResult) -> Vec<u8> {
    r.targets[0].view.texture.to_bytes()
}

/// `examples/make_meshlets.rs` writes exactly the committed files (so the containers
/// and data under test are the generator's), and the jobs' counts are the model's.
#[test]
fn the_committed_files_are_what_the_generator_makes() {
    let files = make::files();
    assert_eq!(files.len(), 9);
    for (name, bytes) in &files {
        let path = common::root().join("examples").join(name);
        let committed = std::fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            committed == *bytes,
            "{name} differs from what `cargo run --example make_meshlets` makes"
        );
    }
    let model = make::model();
    let groups = model.meshlets.len().div_ceil(make::AS_THREADS as usize);
    assert!(
        example("meshlets.toml").contains(&format!("dispatch_mesh = [{groups}, 1, 1]")),
        "{groups} amplification groups"
    );
    let indices = 3 * model.triangles.len();
    assert!(example("meshlets_vertex.toml").contains(&format!("index_count = {indices} ")));
}

/// The meshlet builder keeps the limits the mesh program declares (DirectX-Specs "Mesh
/// Shader", "Mesh shader output size limits": the program's own maxima, here 64 vertices
/// and 126 primitives), every triangle's indices are below its meshlet's vertex count,
/// and each bounding sphere holds its meshlet's vertices.
#[test]
fn meshlets_keep_their_limits_and_spheres() {
    let m = make::model();
    assert!(m.meshlets.len() > 32, "more than one amplification group");
    let mut tris = 0;
    for x in &m.meshlets {
        assert!((1..=make::MAX_VERTICES as u32).contains(&x.vertex_count));
        assert!((1..=make::MAX_PRIMITIVES as u32).contains(&x.prim_count));
        assert_eq!(x.prim_offset as usize, tris);
        tris += x.prim_count as usize;
        let t = &m.triangles[x.prim_offset as usize..][..x.prim_count as usize];
        assert!(t.iter().flatten().all(|&i| u32::from(i) < x.vertex_count));
        let v = &m.positions[x.vertex_offset as usize..][..x.vertex_count as usize];
        assert!(v.iter().all(|p| p.distance(x.center) <= x.radius));
    }
    assert_eq!(tris, m.triangles.len());
}

/// The sphere test the amplification program runs, by hand on one plane `x ≥ 0` (unit
/// normal (1, 0, 0), d = 0): a sphere is kept while `n·c + d + r ≥ 0`, so a sphere at
/// x = −0.5 of radius 0.4 is culled, of radius 0.5 (touching) and 0.6 kept.
#[test]
fn the_sphere_test_by_hand() {
    let mut planes = [[0.0, 0.0, 0.0, 1.0]; 6];
    planes[0] = [1.0, 0.0, 0.0, 0.0];
    let sphere = |x: f32, radius: f32| make::Meshlet {
        center: glam::Vec3::new(x, 0.3, -2.0),
        radius,
        vertex_offset: 0,
        vertex_count: 0,
        prim_offset: 0,
        prim_count: 0,
    };
    assert!(!make::meshlet_visible(&planes, &sphere(-0.5, 0.4)));
    assert!(make::meshlet_visible(&planes, &sphere(-0.5, 0.5)));
    assert!(make::meshlet_visible(&planes, &sphere(-0.5, 0.6)));
    assert!(make::meshlet_visible(&planes, &sphere(0.2, 0.0)));
}

/// The scene's six planes are the clip volume's (D3D11.3 §15.4: −w ≤ x ≤ w,
/// −w ≤ y ≤ w, 0 ≤ z ≤ w): a point is inside every plane exactly when its clip
/// position is inside the volume, checked on every vertex of the model.
#[test]
fn the_planes_bound_the_clip_volume() {
    let m = make::model();
    let s = make::scene(m.meshlets.len() as u32);
    let (mut inside, mut outside) = (0, 0);
    for p in &m.positions {
        let c = s.clip * p.extend(1.0);
        let by_clip =
            -c.w <= c.x && c.x <= c.w && -c.w <= c.y && c.y <= c.w && 0.0 <= c.z && c.z <= c.w;
        let by_planes = s
            .planes
            .iter()
            .all(|q| q[0] * p.x + q[1] * p.y + q[2] * p.z + q[3] >= 0.0);
        // Points within rounding of a plane may fall either way.
        let margin = s
            .planes
            .iter()
            .map(|q| (q[0] * p.x + q[1] * p.y + q[2] * p.z + q[3]).abs())
            .fold(f32::MAX, f32::min);
        if margin > 1e-4 {
            assert_eq!(by_clip, by_planes, "{p}");
        }
        if by_planes {
            inside += 1;
        } else {
            outside += 1;
        }
    }
    assert!(
        inside > 0 && outside > 0,
        "{inside} inside, {outside} outside"
    );
}

/// `dxlane info --check` holds every generated container's PSV0 and SFI0 against its
/// module (`docs/info-check.md`), and `llvm-dis` (when found) reads each one's bitcode.
/// A PSV0 with a wrong payload size is caught, so the check compares something.
#[test]
fn info_check_and_llvm_dis_accept_every_program() {
    let dis = common::llvm_dis("the llvm-dis check of the meshlet programs");
    let dir = common::scratch().join("meshlets").join("llvm-dis");
    std::fs::create_dir_all(&dir).unwrap();
    for (name, bytes) in make::programs() {
        match check(&bytes).unwrap_or_else(|e| panic!("{name}: {e}")) {
            Checked::Dxil(r) => assert!(r.passed(), "{name}: {r:?}"),
            Checked::NotDxil => panic!("{name}: not a DXIL program"),
        }
        let c = Container::parse(&bytes).unwrap();
        let (_, bitcode) = DxilProgramHeader::parse(c.part(FourCc::DXIL).unwrap()).unwrap();
        if let Some(dis) = &dis {
            let path = dir.join(format!("{name}.bc"));
            std::fs::write(&path, bitcode).unwrap();
            let out = std::process::Command::new(dis)
                .arg("-o")
                .arg("-")
                .arg(&path)
                .output()
                .expect("run LLVM_DIS");
            assert!(
                out.status.success(),
                "{name}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            let text = String::from_utf8_lossy(&out.stdout);
            assert!(text.contains("define void @main()"), "{name}");
        }
        if name == "cull.as.dxil" {
            // Stage word 0 of an amplification program is its payload size.
            let mut psv = c.part(FourCc(*b"PSV0")).unwrap().data.to_vec();
            psv[4] ^= 4;
            let parts: Vec<(FourCc, Vec<u8>)> = c
                .parts
                .iter()
                .map(|p| {
                    (
                        p.tag,
                        if p.tag.0 == *b"PSV0" {
                            psv.clone()
                        } else {
                            p.data.to_vec()
                        },
                    )
                })
                .collect();
            let refs: Vec<(FourCc, &[u8])> = parts.iter().map(|(t, d)| (*t, &d[..])).collect();
            let bad = write_container(&refs).unwrap();
            match check(&bad).unwrap() {
                Checked::Dxil(r) => assert!(!r.passed(), "a wrong payload size passed"),
                Checked::NotDxil => panic!("not a DXIL program"),
            }
        }
    }
}

/// The meshlet twin (issue 34): the amplification, mesh and pixel programs and the
/// vertex and pixel programs draw the same image, bit for bit, on both engines; the
/// amplification program launches exactly the meshlets the CPU's frustum test keeps
/// (one mesh group each, DirectX-Specs "Mesh Shader", "DispatchMesh intrinsic"), and the
/// mesh groups draw only the visible meshlets' triangles.
#[test]
fn the_meshlet_twin_draws_the_same_image() {
    let model = make::model();
    let scene = make::scene(model.meshlets.len() as u32);
    let visible = make::visible_meshlets(&model, &scene);
    let culled = model.meshlets.len() - visible.len();
    assert!(culled > 0 && !visible.is_empty(), "{culled} culled");
    let kept_triangles: u32 = visible
        .iter()
        .map(|&i| model.meshlets[i as usize].prim_count)
        .sum();
    let mut images = Vec::new();
    for engine in [Engine::Interp, Engine::Jit] {
        let mesh = run("meshlets", &example("meshlets.toml"), engine);
        let d = &mesh.summary.draw;
        assert_eq!(
            d.amplification_groups,
            model.meshlets.len().div_ceil(32) as u64
        );
        assert_eq!(d.mesh_groups, visible.len() as u64, "{engine}");
        assert_eq!(d.primitives, u64::from(kept_triangles), "{engine}");
        let vertex = run("meshlets_vertex", &example("meshlets_vertex.toml"), engine);
        assert_eq!(vertex.summary.draw.primitives, model.triangles.len() as u64);
        let (a, b) = (image(&mesh), image(&vertex));
        assert!(a == b, "{engine}: the mesh and vertex paths' images differ");
        let first = &a[..4];
        assert!(a.chunks(4).any(|p| p != first), "an empty picture");
        images.push(a);
    }
    assert!(images[0] == images[1], "the engines' images differ");
    // DESIGN "Graphics pipeline": the same image for any worker count.
    for threads in [1, 3] {
        let r = run_on(
            "meshlets",
            &example("meshlets.toml"),
            Engine::Jit,
            Some(threads),
        );
        assert!(image(&r) == images[0], "{threads} workers");
    }
}

/// The meshlets the amplification program culls lie outside the frustum: drawn alone
/// through the vertex twin (their triangles' indices only), they leave every pixel at
/// the clear colour (D3D11.3 §15.4: what lies outside the view volume is clipped
/// away), while the same number of visible meshlets' triangles draw pixels.
#[test]
fn culled_meshlets_draw_no_pixels() {
    let model = make::model();
    let scene = make::scene(model.meshlets.len() as u32);
    let visible = make::visible_meshlets(&model, &scene);
    let indices_of = |pick: &mut dyn Iterator<Item = u32>| -> Vec<u32> {
        pick.flat_map(|i| {
            let x = model.meshlets[i as usize];
            model.triangles[x.prim_offset as usize..][..x.prim_count as usize]
                .iter()
                .flat_map(move |t| t.map(|k| x.vertex_offset + u32::from(k)))
                .collect::<Vec<_>>()
        })
        .collect()
    };
    let culled: Vec<u32> = (0..model.meshlets.len() as u32)
        .filter(|i| !visible.contains(i))
        .collect();
    let base = example("meshlets_vertex.toml");
    let draw = |name: &str, idx: &[u32]| {
        let list: Vec<String> = idx.iter().map(u32::to_string).collect();
        let text = base
            .replace(
                &format!("index_count = {} ", 3 * model.triangles.len()),
                &format!("index_count = {} ", idx.len()),
            )
            .replace(
                "data = { file = \"data/meshlet_indices.bin\" }",
                &format!("data = {{ u32 = [{}] }}", list.join(", ")),
            );
        assert!(text != base);
        image(&run(name, &text, common::engine()))
    };
    let clear = draw("meshlets_culled", &indices_of(&mut culled.iter().copied()));
    let first = &clear[..4];
    assert!(
        clear.chunks(4).all(|p| p == first),
        "a culled meshlet drew a pixel"
    );
    let some = indices_of(&mut visible.iter().copied().take(culled.len()));
    let drawn = draw("meshlets_kept", &some);
    assert!(
        drawn.chunks(4).any(|p| p != first),
        "visible meshlets drew nothing"
    );
}
