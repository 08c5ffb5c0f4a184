//! Ray tracing: the bottom-level build of a 1,048,352-triangle height field on one and on
//! two worker threads, and the primary rays of a 1920×1080 frame over it traced on two
//! worker threads (closest hit, `Tracer::closest_hit`), beside Intel Embree's own build
//! and traversal (`rtcIntersect1`, two threads) of the same triangles and rays in the same
//! run, through the C peer of the tests (`tests/embree_peer/`, built here with `cc`).
//! Times are medians of five runs, as wall time and as this process's CPU time (which a
//! machine busy with other work inflates less); the report gives rays per second both
//! ways and Embree's ratio to dxlane, and the load average during the run. It also
//! prints the inner nodes visited and triangles tested per ray, and one worker's time
//! per ray for the rays that hit and for those that miss, apart.
//!
//! ```sh
//! cargo bench --bench raytracing
//! ```
//!
//! Without `cc` or `libembree-dev` the Embree column says why and dxlane's still runs.

/// The command line's allocator, so that the draws are measured as `dxlane run` runs them
/// (`resources::memory::LargePages`).
#[global_allocator]
static ALLOCATOR: dxlane::resources::memory::LargePages = dxlane::resources::memory::LargePages;

use std::sync::Arc;
use std::time::Instant;

use dxlane::raytracing::{
    BottomLevel, BuildOptions, Geometry, GeometryDesc, GeometryFlags, IndexFormat, InstanceDesc,
    InstanceFlags, Ray, RayFlags, TopLevel, Tracer, Transform3x4, TrianglesDesc, VertexFormat,
};

#[path = "../tests/embree_peer/peer.rs"]
mod peer;

/// Quads per side of the height field (two triangles each).
const N: usize = 724;
const WIDTH: u32 = 1920;
const HEIGHT: u32 = 1080;
const THREADS: u32 = 2;
const REPS: usize = 5;

fn height(i: usize, j: usize) -> f32 {
    let (x, y) = (i as f32, j as f32);
    let mut h = (i as u32).wrapping_mul(0x9e37_79b9) ^ (j as u32).wrapping_mul(0x85eb_ca6b);
    h ^= h >> 15;
    h = h.wrapping_mul(0x2c1b_3c6d);
    h ^= h >> 12;
    let noise = (h & 0xffff) as f32 / 65535.0 - 0.5;
    24.0 * (x * 0.021).sin() * (y * 0.017).cos() + 6.0 * (x * 0.09 + y * 0.05).sin() + 0.8 * noise
}

fn triangles() -> Vec<[[f32; 3]; 3]> {
    let p = |i: usize, j: usize| [i as f32, j as f32, height(i, j)];
    let mut out = Vec::with_capacity(2 * N * N);
    for i in 0..N {
        for j in 0..N {
            let (a, b, c, d) = (p(i, j), p(i + 1, j), p(i + 1, j + 1), p(i, j + 1));
            out.push([a, b, c]);
            out.push([a, c, d]);
        }
    }
    out
}

fn camera() -> peer::Camera {
    let origin = [-80.0f32, -60.0, 140.0];
    let target = [N as f32 * 0.5, N as f32 * 0.5, 0.0];
    let norm = |v: [f32; 3]| {
        let l = (v[0] * v[0] + v[1] * v[1] + v[2] * v[2]).sqrt();
        v.map(|c| c / l)
    };
    let cross = |a: [f32; 3], b: [f32; 3]| {
        [
            a[1] * b[2] - a[2] * b[1],
            a[2] * b[0] - a[0] * b[2],
            a[0] * b[1] - a[1] * b[0],
        ]
    };
    let forward = norm([0, 1, 2].map(|k| target[k] - origin[k]));
    let right = norm(cross(forward, [0.0, 0.0, 1.0]));
    let up = cross(right, forward);
    let half = (30.0f32).to_radians().tan();
    let aspect = WIDTH as f32 / HEIGHT as f32;
    peer::Camera {
        width: WIDTH,
        height: HEIGHT,
        origin,
        forward,
        right: right.map(|c| c * half * aspect),
        up: up.map(|c| c * half),
    }
}

/// This process's CPU time (user and system) in seconds, from `/proc/self/stat` (clock
/// ticks of 1/100 s); 0 where there is no such file.
fn cpu_seconds() -> f64 {
    let Ok(s) = std::fs::read_to_string("/proc/self/stat") else {
        return 0.0;
    };
    // Fields after the parenthesised command: state is field 3, utime 14, stime 15.
    let Some(rest) = s.rfind(')').and_then(|i| s.get(i + 2..)) else {
        return 0.0;
    };
    let f: Vec<&str> = rest.split_whitespace().collect();
    let tick = |i: usize| f.get(i).and_then(|v| v.parse::<f64>().ok()).unwrap_or(0.0);
    (tick(11) + tick(12)) / 100.0
}

/// A hash of one pixel's hit (its primitive, `t` and barycentrics, bit for bit); the
/// frame's digest is the wrapping sum over pixels, so any change of any hit shows.
fn hit_digest(x: u32, y: u32, h: &dxlane::raytracing::Hit) -> u64 {
    let mut v = ((u64::from(y) << 32) | u64::from(x)) ^ 0x9e37_79b9_7f4a_7c15;
    for w in [
        u64::from(h.primitive_index),
        u64::from(h.t.to_bits()),
        (u64::from(h.barycentrics[0].to_bits()) << 32) | u64::from(h.barycentrics[1].to_bits()),
    ] {
        v = (v ^ w).wrapping_mul(0x1000_0000_01b3);
        v ^= v >> 31;
    }
    v
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

/// The primary ray of pixel (`x`, `y`), as Embree's peer makes it.
fn primary_ray(cam: &peer::Camera, x: u32, y: u32) -> Ray {
    Ray {
        origin: cam.origin,
        t_min: 0.0,
        direction: cam.direction(x, y),
        t_max: 1.0e30,
    }
}

/// One worker's time per ray for the rays that hit and for those that miss, apart
/// (median of `REPS` passes over each set), with the inner nodes each visits: what a
/// ray costs beyond its nodes shows in the missing rays, most of which leave at the root.
fn per_kind(tlas: &TopLevel, cam: &peer::Camera) {
    let mut tracer = Tracer::new();
    let (mut hit, mut miss) = (Vec::new(), Vec::new());
    for y in 0..HEIGHT {
        for x in 0..WIDTH {
            let ray = primary_ray(cam, x, y);
            if tracer
                .closest_hit(tlas, RayFlags::NONE, 0xff, ray)
                .is_some()
            {
                hit.push(ray);
            } else {
                miss.push(ray);
            }
        }
    }
    for (name, set) in [("hit", &hit), ("miss", &miss)] {
        let mut times = Vec::new();
        let mut nodes = 0u64;
        for _ in 0..REPS {
            nodes = 0;
            let start = Instant::now();
            for r in set.iter() {
                std::hint::black_box(tracer.closest_hit(tlas, RayFlags::NONE, 0xff, *r));
                nodes += tracer.stats().nodes;
            }
            times.push(start.elapsed().as_secs_f64());
        }
        println!(
            "  dxlane, 1 worker, the {} rays that {name}: {:.0} ns a ray, {:.1} inner nodes a ray",
            set.len(),
            median(times) * 1e9 / set.len().max(1) as f64,
            nodes as f64 / set.len().max(1) as f64
        );
    }
}

fn main() {
    // `cargo bench` passes `--bench`; nothing here takes arguments.
    let tris = triangles();
    let bytes: Vec<u8> = tris
        .iter()
        .flatten()
        .flatten()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let desc = GeometryDesc {
        flags: GeometryFlags::OPAQUE,
        geometry: Geometry::Triangles(TrianglesDesc {
            transform: None,
            index_format: IndexFormat::None,
            index_count: 0,
            indices: &[],
            vertex_format: VertexFormat::R32G32B32_FLOAT,
            vertex_count: 3 * tris.len() as u32,
            vertices: &bytes,
            vertex_stride: 12,
        }),
    };
    println!(
        "raytracing: {} triangles, {WIDTH}×{HEIGHT} primary rays, {THREADS} worker threads",
        tris.len()
    );
    let mut blas = None;
    for threads in [1usize, 2] {
        let mut times = Vec::new();
        let mut cpus = Vec::new();
        for _ in 0..REPS {
            let start = Instant::now();
            let cpu = cpu_seconds();
            let b = BottomLevel::build(
                &[desc],
                &BuildOptions {
                    threads,
                    ..BuildOptions::default()
                },
            )
            .expect("build");
            times.push(start.elapsed().as_secs_f64());
            cpus.push(cpu_seconds() - cpu);
            blas = Some(b);
        }
        println!(
            "  dxlane BVH build, {threads} thread(s): {:.3} s wall, {:.2} s CPU",
            median(times),
            median(cpus)
        );
    }
    let blas = Arc::new(blas.expect("built"));
    println!("  dxlane BVH: {} inner nodes", blas.node_count());
    let tlas = TopLevel::build(
        &[InstanceDesc {
            transform: Transform3x4::IDENTITY,
            instance_id: 0,
            instance_mask: 0xff,
            contribution_to_hit_group_index: 0,
            flags: InstanceFlags::NONE,
            blas: Some(blas.clone()),
        }],
        &BuildOptions::default(),
    )
    .expect("top level");
    let cam = camera();
    let mut times = Vec::new();
    let mut cpus = Vec::new();
    let mut hits = 0u64;
    let mut digest = 0u64;
    let (mut nodes, mut prims) = (0u64, 0u64);
    for _ in 0..REPS {
        let start = Instant::now();
        let cpu = cpu_seconds();
        (hits, digest, nodes, prims) = std::thread::scope(|s| {
            let workers: Vec<_> = (0..THREADS)
                .map(|k| {
                    let tlas = &tlas;
                    let cam = &cam;
                    s.spawn(move || {
                        let mut tracer = Tracer::new();
                        let (mut hits, mut digest) = (0u64, 0u64);
                        let (mut nodes, mut prims) = (0u64, 0u64);
                        for y in (k..HEIGHT).step_by(THREADS as usize) {
                            for x in 0..WIDTH {
                                let ray = primary_ray(cam, x, y);
                                if let Some(h) = tracer.closest_hit(tlas, RayFlags::NONE, 0xff, ray)
                                {
                                    hits += 1;
                                    digest = digest.wrapping_add(hit_digest(x, y, &h));
                                }
                                let st = tracer.stats();
                                nodes += st.nodes;
                                prims += st.primitives;
                            }
                        }
                        (hits, digest, nodes, prims)
                    })
                })
                .collect();
            workers.into_iter().map(|w| w.join().expect("worker")).fold(
                (0u64, 0u64, 0u64, 0u64),
                |(h, d, n, p), (wh, wd, wn, wp)| (h + wh, d.wrapping_add(wd), n + wn, p + wp),
            )
        });
        times.push(start.elapsed().as_secs_f64());
        cpus.push(cpu_seconds() - cpu);
    }
    let rays = u64::from(WIDTH * HEIGHT);
    let ours = median(times);
    let ours_cpu = median(cpus);
    let ours_rate = rays as f64 / ours;
    let ours_cpu_rate = rays as f64 / ours_cpu;
    println!(
        "  dxlane traversal: {ours:.3} s wall, {:.2} Mrays/s; {ours_cpu:.2} s CPU, {:.2} Mrays per CPU-second ({hits} of {rays} rays hit)",
        ours_rate / 1e6,
        ours_cpu_rate / 1e6
    );
    println!("  dxlane hits' digest (pixel, primitive, t, barycentrics): {digest:016x}");
    println!(
        "  dxlane work per ray: {:.1} inner nodes visited, {:.2} triangles tested",
        nodes as f64 / rays as f64,
        prims as f64 / rays as f64
    );
    per_kind(&tlas, &cam);

    let target = std::env::var_os("CARGO_TARGET_DIR")
        .map(std::path::PathBuf::from)
        .unwrap_or_else(|| std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("target"));
    let scene = peer::Scene {
        blas: vec![tris],
        instances: vec![(0, Transform3x4::IDENTITY.0)],
    };
    match peer::build(&target).and_then(|exe| {
        peer::bench(
            &exe,
            &target.join("embree-peer"),
            &scene,
            &cam,
            THREADS,
            REPS as u32,
        )
    }) {
        Ok(e) => {
            let rate = e.rays as f64 / e.trace_s;
            let cpu_rate = e.rays as f64 / e.trace_cpu_s;
            println!(
                "  Embree build ({THREADS} threads): {:.3} s wall, {:.2} s CPU; traversal: {:.3} s wall, {:.2} Mrays/s; \
                 {:.2} s CPU, {:.2} Mrays per CPU-second ({} of {} rays hit)",
                e.build_s,
                e.build_cpu_s,
                e.trace_s,
                rate / 1e6,
                e.trace_cpu_s,
                cpu_rate / 1e6,
                e.hits,
                e.rays
            );
            println!(
                "  Embree ÷ dxlane: {:.2} in rays per second, {:.2} in rays per CPU-second",
                rate / ours_rate,
                cpu_rate / ours_cpu_rate
            );
        }
        Err(why) => println!("  Embree: not run ({why})"),
    }
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        println!(
            "  load average at the end: {}",
            load.split_whitespace()
                .take(3)
                .collect::<Vec<_>>()
                .join(" ")
        );
    }
}
