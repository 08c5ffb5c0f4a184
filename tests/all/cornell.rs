//! The Cornell box example (`examples/cornell.toml`): the committed programs and data are
//! what `examples/make_cornell.rs` makes; the picture is the golden `goldens/cornell.png`
//! bit for bit under both engines; and pixels of each kind the scene's rules make (a
//! lit wall, a block's shadow, the leaf's cut-out, the sphere) have the value a small
//! ray tracer written here derives from the same geometry, light and rules. Its
//! rasterized twin (`examples/cornell_raster.toml`, shadows by inline ray queries from
//! the pixel program) agrees with it wherever both see the same box surface; its golden
//! is checked with the other draws' (`draw::draw_examples_match_goldens`).

use std::path::PathBuf;

use super::common;

// The example's generator uses the parts of the module these tests do not.
#[allow(dead_code)]
#[path = "../../examples/cornell/make.rs"]
pub(crate) mod make;

/// `examples/make_cornell.rs` writes exactly the committed files.
#[test]
fn the_committed_files_are_what_the_generator_makes() {
    let files = make::files();
    assert_eq!(files.len(), 13);
    for (name, bytes) in &files {
        let path = common::root().join("examples").join(name);
        let committed = std::fs::read(&path).unwrap_or_else(|e| panic!("{name}: {e}"));
        assert!(
            committed == *bytes,
            "{name} differs from what `cargo run --example make_cornell` makes"
        );
    }
    // Every container holds what `info --check` compares (the vertex and pixel
    // programs' PSV0; the libraries have none).
    for (name, bytes) in files.iter().filter(|(n, _)| n.ends_with(".dxil")) {
        match dxlane::dxil::check::check(bytes).unwrap_or_else(|e| panic!("{name}: {e}")) {
            dxlane::dxil::check::Checked::Dxil(r) => assert!(r.passed(), "{name}: {r:?}"),
            dxlane::dxil::check::Checked::NotDxil => panic!("{name}: not a DXIL program"),
        }
    }
    // The leaf's hit group's local root constant in the job is its first record.
    let job = std::fs::read_to_string(common::root().join("examples/cornell.toml")).unwrap();
    let base = make::leaf_base();
    assert!(job.contains(&format!(
        "identifier = \"leaf\", local = [{{ constants = [{base}] }}]"
    )));
}

/// Runs the example under both engines (their pictures compared byte for byte) and
/// returns the picture's file and RGBA8 texels.
fn picture() -> (PathBuf, Vec<[u8; 4]>) {
    use dxlane::exec::jit::Engine;
    use dxlane::job::{self, Finished, Job, RunOptions};
    let path = common::root().join("examples/cornell.toml");
    let mut pictures = Vec::new();
    for engine in [Engine::Interp, Engine::Jit] {
        let dir = common::scratch().join("cornell").join(engine.to_string());
        std::fs::create_dir_all(&dir).unwrap();
        let opts = RunOptions {
            engine: Some(engine),
            out_dir: Some(dir.clone()),
            summary: Some(dir.join("summary.json")),
            ..common::run_options()
        };
        let r = Job::load(&path)
            .and_then(|j| job::prepare(j, &opts))
            .and_then(|p| p.execute(&opts))
            .unwrap_or_else(|e| panic!("cornell ({engine}): {e}"));
        let Finished::Rays(r) = r else {
            panic!("cornell: not a [rays] job")
        };
        assert!(r.summary.warnings.is_empty(), "{:?}", r.summary.warnings);
        // One primary ray per pixel, and one shadow ray per pixel that meets a surface.
        assert_eq!(r.summary.lanes, u64::from(make::SIZE * make::SIZE));
        let png = PathBuf::from(&r.summary.outputs[0].path);
        pictures.push((png.clone(), std::fs::read(&png).unwrap()));
    }
    assert!(
        pictures[0].1 == pictures[1].1,
        "the engines' pictures differ"
    );
    let png = pictures.pop().unwrap().0;
    let img = image::open(&png).unwrap().to_rgba8();
    assert_eq!(img.dimensions(), (make::SIZE, make::SIZE));
    (png, img.pixels().map(|p| p.0).collect())
}

// ---- a reference tracer ---------------------------------------------------------------

type V = [f32; 3];

fn sub(a: V, b: V) -> V {
    [a[0] - b[0], a[1] - b[1], a[2] - b[2]]
}

fn dot(a: V, b: V) -> f32 {
    a[0] * b[0] + a[1] * b[1] + a[2] * b[2]
}

fn cross(a: V, b: V) -> V {
    [
        a[1] * b[2] - a[2] * b[1],
        a[2] * b[0] - a[0] * b[2],
        a[0] * b[1] - a[1] * b[0],
    ]
}

fn at(o: V, d: V, t: f32) -> V {
    [o[0] + d[0] * t, o[1] + d[1] * t, o[2] + d[2] * t]
}

/// What a ray meets first.
#[derive(Debug, Clone, Copy, PartialEq)]
enum Surface {
    /// Box triangle `i` (its record in `cornell_primitives.bin`).
    Box(usize),
    /// The leaf (its solid part).
    Leaf,
    Sphere,
}

/// Möller–Trumbore: `t` and the barycentric weights of vertices 1 and 2.
fn triangle(o: V, d: V, v: &[[f32; 3]; 3]) -> Option<(f32, f32, f32)> {
    let (e1, e2) = (sub(v[1], v[0]), sub(v[2], v[0]));
    let p = cross(d, e2);
    let det = dot(e1, p);
    if det.abs() < 1e-12 {
        return None;
    }
    let s = sub(o, v[0]);
    let u = dot(s, p) / det;
    let q = cross(s, e1);
    let w = dot(d, q) / det;
    let t = dot(e2, q) / det;
    (u >= 0.0 && w >= 0.0 && u + w <= 1.0).then_some((t, u, w))
}

/// The closest surface in `(t_min, t_max)` with its `t` and (for the sphere) normal; the
/// leaf where `frac(4u) >= 0.5` lets the ray through (the any-hit program's rule, DXR
/// spec "IgnoreHit": the hit is rejected and traversal goes on).
fn trace(o: V, d: V, t_min: f32, t_max: f32) -> Option<(Surface, f32, V)> {
    let mut best: Option<(Surface, f32, V)> = None;
    let mut offer = |s: Surface, t: f32, n: V| {
        if t > t_min && t < t_max && best.is_none_or(|b| t < b.1) {
            best = Some((s, t, n));
        }
    };
    for (i, tri) in make::box_triangles().iter().enumerate() {
        if let Some((t, _, _)) = triangle(o, d, &tri.v) {
            offer(Surface::Box(i), t, tri.normal);
        }
    }
    for tri in make::leaf_triangles() {
        if let Some((t, u, _)) = triangle(o, d, &tri.v)
            && (u * make::STRIPES).fract() < 0.5
        {
            offer(Surface::Leaf, t, tri.normal);
        }
    }
    let oc = sub(o, make::SPHERE_CENTRE);
    let (a, b) = (dot(d, d), dot(oc, d));
    let disc = b * b - a * (dot(oc, oc) - make::SPHERE_RADIUS * make::SPHERE_RADIUS);
    if disc >= 0.0 {
        for t in [(-b - disc.sqrt()) / a, (-b + disc.sqrt()) / a] {
            if t >= t_min && t <= t_max {
                let p = sub(at(oc, d, t), [0.0; 3]);
                offer(Surface::Sphere, t, p.map(|c| c / make::SPHERE_RADIUS));
                break;
            }
        }
    }
    best
}

/// The primary ray of pixel (x, y), as the ray generation program makes it.
fn primary(x: u32, y: u32) -> (V, V) {
    let s = |i: u32| ((i as f32 + 0.5) * 2.0 / make::SIZE as f32 - 1.0) * make::FOV;
    (make::EYE, [s(x), -s(y), 1.0])
}

/// The reference colour of pixel (x, y), what it sees, and whether the light reaches it.
fn reference(x: u32, y: u32) -> (Option<Surface>, bool, [f32; 3]) {
    let (o, d) = primary(x, y);
    let Some((s, t, n)) = trace(o, d, make::T_MIN, make::T_MAX) else {
        return (None, false, make::BACKGROUND);
    };
    let albedo = match s {
        Surface::Box(i) => make::box_triangles()[i].colour,
        Surface::Leaf => make::leaf_triangles()[0].colour,
        Surface::Sphere => make::SPHERE_COLOUR,
    };
    let p = at(o, d, t);
    let n = if dot(n, d) > 0.0 { n.map(|c| -c) } else { n };
    let l = sub(make::LIGHT, p);
    let cos = (dot(n, l) / dot(l, l).sqrt()).max(0.0);
    let lit = trace(p, l, make::T_MIN, 1.0).is_none();
    let k = make::AMBIENT + make::DIFFUSE * if lit { cos } else { 0.0 };
    (Some(s), lit, albedo.map(|c| c * k))
}

fn unorm(v: f32) -> u8 {
    (v.clamp(0.0, 1.0) * 255.0).round() as u8
}

/// The picture against its golden, under both engines; and against the reference tracer:
/// every pixel within 1/255 of the reference but for a few where the two tracers' rounding
/// decides an edge (a silhouette, a stripe's border, a shadow's edge: each pixel there
/// may take either side), and for each kind of pixel the scene's rules make, some pixels
/// of that kind equal to the reference. Sources: DXR spec "TraceRay control flow" (the
/// closest hit's program shades, the miss program answers a miss), "Ray flags"
/// (`ACCEPT_FIRST_HIT_AND_END_SEARCH`: any hit occludes; `SKIP_CLOSEST_HIT_SHADER`),
/// "IgnoreHit", "ReportHit", "Addressing calculations within shader tables" (a shadow
/// ray's contribution selects the shadow hit groups; a NULL record runs nothing).
#[test]
fn the_picture_is_the_golden_and_the_reference_tracers() {
    let (png, texels) = picture();
    if let Some(e) = super::draw::compare_golden(&png, "cornell.png") {
        panic!("{e}");
    }
    let mut far = Vec::new();
    // (kind, lit) → pixels of that kind equal to the reference.
    let mut alike = std::collections::BTreeMap::<String, usize>::new();
    for y in 0..make::SIZE {
        for x in 0..make::SIZE {
            let (s, lit, want) = reference(x, y);
            let got = texels[(y * make::SIZE + x) as usize];
            let want = want.map(unorm);
            let close = (0..3).all(|c| got[c].abs_diff(want[c]) <= 1) && got[3] == 255;
            if !close {
                far.push((x, y, got, want));
                continue;
            }
            let kind = match s {
                None => "background".to_owned(),
                Some(Surface::Box(i)) if i < 10 => format!("wall {}", i / 2),
                Some(Surface::Box(_)) => "block".to_owned(),
                Some(Surface::Leaf) => "leaf".to_owned(),
                Some(Surface::Sphere) => "sphere".to_owned(),
            };
            *alike
                .entry(format!("{kind}, {}", if lit { "lit" } else { "shadow" }))
                .or_default() += 1;
        }
    }
    let n = (make::SIZE * make::SIZE) as usize;
    // `-- --nocapture` shows how close the two tracers are.
    eprintln!(
        "cornell: {} of {n} pixels within 1/255 of the reference tracer; by kind: {alike:?}",
        n - far.len()
    );
    assert!(
        far.len() * 200 < n,
        "{} pixels differ from the reference (at most 0.5%): {:?}",
        far.len(),
        &far[..far.len().min(20)]
    );
    for kind in [
        "wall 2, lit",    // the back wall, Lambert from the point light
        "wall 0, shadow", // the floor in a block's or the leaf's shadow: ambient only
        "wall 3, lit",    // the red wall
        "wall 4, lit",    // the green wall
        "block, lit",
        "block, shadow",
        "leaf, lit",      // the leaf's solid stripes (closest-hit through its record)
        "sphere, lit",    // the intersection program's hit, shaded by its closest-hit
        "sphere, shadow", // its far side
    ] {
        let count = alike.get(kind).copied().unwrap_or(0);
        assert!(count >= 20, "{kind}: {count} pixels alike; {alike:?}");
    }
    // Through the leaf's cut-out: a pixel whose ray crosses the leaf's quad inside an
    // ignored stripe shows what is behind (the tall block or the back wall), as the
    // reference says; count those.
    let mut through = 0;
    for y in 0..make::SIZE {
        for x in 0..make::SIZE {
            let (o, d) = primary(x, y);
            let crosses = make::leaf_triangles().iter().any(|t| {
                triangle(o, d, &t.v).is_some_and(|(_, u, _)| (u * make::STRIPES).fract() >= 0.55)
            });
            let (s, _, want) = reference(x, y);
            let got = texels[(y * make::SIZE + x) as usize];
            if crosses
                && s != Some(Surface::Leaf)
                && (0..3).all(|c| got[c].abs_diff(unorm(want[c])) <= 1)
            {
                through += 1;
            }
        }
    }
    assert!(through >= 100, "{through} pixels seen through the cut-out");
}

/// The ray-generation waves run on worker threads, and the picture does not depend on
/// how many: the example on one worker and on as many as the machine has (at least
/// two are asked for) writes the same bytes and counts the same rays, traversal steps
/// and lane-instructions (every ray's programs and traversal run on one thread, in the
/// order they would on one worker: `pipeline::rays`, "Workers"; the DXR spec leaves the
/// order of rays of different launch indices open, and these rays share no memory).
#[test]
fn the_picture_is_the_same_on_any_number_of_workers() {
    use dxlane::exec::jit::Engine;
    use dxlane::job::{self, Finished, Job, RunOptions};
    let path = common::root().join("examples/cornell.toml");
    let cores = std::thread::available_parallelism().map_or(1, |n| n.get());
    let mut runs = Vec::new();
    for threads in [1, cores.max(2)] {
        let dir = common::scratch()
            .join("cornell-workers")
            .join(threads.to_string());
        std::fs::create_dir_all(&dir).unwrap();
        let opts = RunOptions {
            engine: Some(Engine::Jit),
            threads: Some(threads),
            out_dir: Some(dir.clone()),
            summary: Some(dir.join("summary.json")),
            ..common::run_options()
        };
        let r = Job::load(&path)
            .and_then(|j| job::prepare(j, &opts))
            .and_then(|p| p.execute(&opts))
            .unwrap_or_else(|e| panic!("cornell on {threads} workers: {e}"));
        let Finished::Rays(r) = r else {
            panic!("cornell: not a [rays] job")
        };
        // As many workers as asked for, up to the cores.
        assert_eq!(r.summary.threads, threads.min(cores), "{threads} asked for");
        let png = std::fs::read(&r.summary.outputs[0].path).unwrap();
        let s = &r.summary;
        runs.push((png, s.rays, s.traversal, s.lane_instructions));
    }
    assert!(runs[0].0 == runs[1].0, "the pictures differ");
    assert_eq!(
        (runs[0].1, runs[0].2, runs[0].3),
        (runs[1].1, runs[1].2, runs[1].3),
        "rays, traversal and lane-instructions"
    );
}

/// The rasterized twin's picture (RGBA8 texels), on both engines, alike byte for byte.
fn raster_picture() -> Vec<[u8; 4]> {
    use dxlane::exec::jit::Engine;
    use dxlane::job::{self, Finished, Job, RunOptions};
    let path = common::root().join("examples/cornell_raster.toml");
    let mut pictures = Vec::new();
    for engine in [Engine::Interp, Engine::Jit] {
        let dir = common::scratch()
            .join("cornell_raster")
            .join(engine.to_string());
        std::fs::create_dir_all(&dir).unwrap();
        let opts = RunOptions {
            engine: Some(engine),
            out_dir: Some(dir.clone()),
            summary: Some(dir.join("summary.json")),
            ..common::run_options()
        };
        let r = Job::load(&path)
            .and_then(|j| job::prepare(j, &opts))
            .and_then(|p| p.execute(&opts))
            .unwrap_or_else(|e| panic!("cornell_raster ({engine}): {e}"));
        let Finished::Draw(r) = r else {
            panic!("cornell_raster: not a draw job")
        };
        pictures.push(r.targets[0].view.texture.to_bytes());
    }
    assert!(pictures[0] == pictures[1], "the engines' pictures differ");
    pictures[1]
        .chunks_exact(4)
        .map(|c| [c[0], c[1], c[2], c[3]])
        .collect()
}

/// The shadows by inline ray queries from a pixel program (DXR spec "RayQuery
/// intrinsics", "TraceRayInline control flow": non-opaque triangle and procedural
/// candidates are the program's to commit; `ACCEPT_FIRST_HIT_AND_END_SEARCH` ends the
/// query at the first commit) agree with the shadow rays of the ray-traced picture
/// ("TraceRay control flow", any-hit and intersection programs) where both pictures see
/// the same box surface: every such pixel within 2/255 but at most 1% of them. The
/// tolerance: the rasterized point is the interpolated vertex position, the ray-traced
/// one `origin + t·direction`, which differ by rounding, so shading differs by a unit in
/// the last place and a shadow ray passing within rounding of an edge (a block's, a
/// stripe's, the sphere's silhouette) may go either way. At least 500 pixels of the box
/// are in shadow in both, among them the leaf's striped shadow and the sphere's.
#[test]
fn the_rasterized_shadows_are_the_ray_traced_ones() {
    let (_, traced) = picture();
    let raster = raster_picture();
    let (mut same, mut far, mut shadow, mut leaf_or_sphere_shadow) = (0, 0, 0, 0);
    for y in 0..make::SIZE {
        for x in 0..make::SIZE {
            let (s, lit, _) = reference(x, y);
            if !matches!(s, Some(Surface::Box(_))) {
                continue;
            }
            same += 1;
            let i = (y * make::SIZE + x) as usize;
            let (a, b) = (traced[i], raster[i]);
            if (0..3).any(|c| a[c].abs_diff(b[c]) > 2) {
                far += 1;
                continue;
            }
            if !lit {
                shadow += 1;
                // Shadowed by the leaf or the sphere only: what the ray query's candidate
                // handling decides.
                let (o, d) = primary(x, y);
                let (_, t, _) = trace(o, d, make::T_MIN, make::T_MAX).unwrap();
                let p = at(o, d, t);
                let blocker = trace(p, sub(make::LIGHT, p), make::T_MIN, 1.0);
                if matches!(blocker, Some((Surface::Leaf | Surface::Sphere, _, _))) {
                    leaf_or_sphere_shadow += 1;
                }
            }
        }
    }
    eprintln!(
        "cornell_raster: {} of {same} box pixels within 2/255 of the ray-traced picture; \
         {shadow} shadowed alike, {leaf_or_sphere_shadow} of them by the leaf or the sphere",
        same - far
    );
    assert!(same > 40_000, "{same} pixels see the box in both");
    assert!(
        far * 100 < same,
        "{far} of {same} pixels differ by more than 2/255"
    );
    assert!(shadow >= 500, "{shadow} shadowed pixels alike");
    assert!(
        leaf_or_sphere_shadow >= 100,
        "{leaf_or_sphere_shadow} pixels in the leaf's or the sphere's shadow alike"
    );
}
