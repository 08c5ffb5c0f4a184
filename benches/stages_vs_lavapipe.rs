//! The geometry and tessellation stages beside lavapipe, in the same run: two 1920×1080
//! frames drawn by dxlane (on one and two worker threads, under both engines) and by an
//! independent Direct3D 12 — vkd3d's D3D12 on Mesa's lavapipe, through the D3D12 peer
//! (`tests/d3d12_peer/peer.c`) — from the same DXBC programs (`shaders/stages_bench.hlsl`):
//!
//! 1. **terrain**: a 32 × 32 grid of quad patches, every factor 16, fractional_odd
//!    partitioning (1,024 patches of 18 × 18 domain points), displaced and projected by
//!    the domain program, drawn as 8 instances of 128 patches;
//! 2. **particles**: 100,000 points, each expanded by the geometry program into a
//!    6-pixel quad (a four-vertex strip).
//!
//! ```sh
//! cargo bench --bench stages_vs_lavapipe
//! cargo bench --bench stages_vs_lavapipe -- terrain interp   # one scene, one engine
//! ```
//!
//! Reports the median (and range) of several frames for each, the peer's median, the
//! ratio of dxlane's time to the peer's, dxlane's time profile (thread-seconds per
//! pipeline part) and lane-instruction counts per stage, and how many pixels of the two
//! images differ. dxlane's time is one `job::run_draw_job` of the scene's job file,
//! without the native engine's compile time (the first frame compiles, the others reuse
//! its code); the peer's is one execution of the recorded command list, submission to
//! fence (`repeat` in the peer's plan), after a first execution that compiles the
//! pipeline. Without a C compiler, vkd3d's development files or a Vulkan driver the peer's
//! half says why and dxlane's half still runs.

/// The command line's allocator, so that the draws are measured as `dxlane run` runs them
/// (`resources::memory::LargePages`).
#[global_allocator]
static ALLOCATOR: dxlane::resources::memory::LargePages = dxlane::resources::memory::LargePages;

use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

use dxlane::exec::jit::Engine;
use dxlane::job::{Job, RunOptions, run_draw_job};
use dxlane::pipeline::DrawReport;

/// Frames measured per configuration (after one warm-up frame).
const RUNS: usize = 5;
const WIDTH: u32 = 1920;
const HEIGHT: u32 = 1080;

/// One scene: its programs and draw, as a dxlane job and as a peer plan.
struct Scene {
    name: &'static str,
    /// `[program]` keys and the peer's stage words, with the DXBC file names.
    programs: &'static [(&'static str, &'static str)],
    /// The job's topology and the peer's (`set_topology`, `topology_type`).
    topology: (&'static str, &'static str, &'static str),
    vertices: u32,
    instances: u32,
}

const SCENES: [Scene; 2] = [
    Scene {
        name: "terrain",
        programs: &[
            ("vs", "stages_bench_terrain.vs_5_0.dxbc"),
            ("hs", "stages_bench_terrain.hs_5_0.dxbc"),
            ("ds", "stages_bench_terrain.ds_5_0.dxbc"),
            ("ps", "stages_bench_terrain.ps_5_0.dxbc"),
        ],
        topology: ("4_control_point_patchlist", "patch_list_4", "patch"),
        vertices: 512,
        instances: 8,
    },
    Scene {
        name: "particles",
        programs: &[
            ("vs", "stages_bench_particles.vs_5_0.dxbc"),
            ("gs", "stages_bench_particles.gs_5_0.dxbc"),
            ("ps", "stages_bench_particles.ps_5_0.dxbc"),
        ],
        topology: ("point_list", "point_list", "point"),
        vertices: 100_000,
        instances: 1,
    },
];

/// The clear colour, as the job and the plan write it.
const CLEAR: [f32; 4] = [0.1, 0.1, 0.15, 1.0];

fn root() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

fn scratch() -> PathBuf {
    let d = root().join("target/tmp/stages_vs_lavapipe");
    std::fs::create_dir_all(&d).expect("scratch folder");
    d
}

fn stats(mut t: Vec<f64>) -> (f64, f64, f64) {
    t.sort_by(f64::total_cmp);
    (t[t.len() / 2], t[0], t[t.len() - 1])
}

// ------------------------------------------------------------------------ dxlane

/// The scene as a job file in `dir`.
fn write_job(scene: &Scene, dir: &Path) -> PathBuf {
    let shaders = root().join("shaders");
    let mut job = String::from("[program]\n");
    for (key, file) in scene.programs {
        job += &format!("{key} = {:?}\n", shaders.join(file).display().to_string());
    }
    job += &format!(
        "\n[draw]\ntopology = \"{}\"\nvertex_count = {}\ninstance_count = {}\n\n[draw.rasterizer]\ncull = \"NONE\"\n\n[[draw.render_target]]\nformat = \"R8G8B8A8_UNORM\"\nwidth = {WIDTH}\nheight = {HEIGHT}\nclear = {CLEAR:?}\n",
        scene.topology.0, scene.vertices, scene.instances
    );
    let path = dir.join(format!("{}.toml", scene.name));
    std::fs::write(&path, job).expect("job file");
    path
}

struct DxlaneRun {
    median: f64,
    min: f64,
    max: f64,
    compile: f64,
    report: DrawReport,
    image: Vec<u8>,
}

fn dxlane_runs(job: &Path, threads: usize, engine: Engine) -> Result<DxlaneRun, String> {
    let opts = RunOptions {
        threads: Some(threads),
        engine: Some(engine),
        ..RunOptions::default()
    };
    dxlane::exec::jit::clear_cache();
    let mut times = Vec::new();
    let mut compile = 0.0;
    let mut last = None;
    // One warm-up frame (it compiles under the native engine), then RUNS measured.
    for i in 0..=RUNS {
        let loaded = Job::load(job).map_err(|e| e.to_string())?;
        let t = Instant::now();
        let r = run_draw_job(loaded, &opts).map_err(|e| e.to_string())?;
        let all = t.elapsed().as_secs_f64();
        let c = r.summary.draw.compile_seconds;
        if i == 0 {
            compile = c;
        } else {
            times.push(all - c);
        }
        last = Some(r);
    }
    let r = last.expect("ran");
    let (median, min, max) = stats(times);
    Ok(DxlaneRun {
        median,
        min,
        max,
        compile,
        image: r.targets[0].view.texture.to_bytes(),
        report: r.summary.draw,
    })
}

fn profile(r: &DrawReport) -> String {
    let t = &r.times;
    format!(
        "setup (vertex, hull, tessellator, domain, geometry, clipping) {:.1} ms, binning {:.1} ms, raster {:.1} ms, shading {:.1} ms, output merger {:.1} ms (thread-seconds)",
        t.setup * 1e3,
        t.binning * 1e3,
        t.raster * 1e3,
        t.shading * 1e3,
        t.output_merger * 1e3
    )
}

fn counts(r: &DrawReport) -> String {
    let mut s = format!(
        "lane-instructions: vs {}, ps {}",
        r.vs_lane_instructions, r.ps_lane_instructions
    );
    if r.hs_lane_instructions > 0 {
        s += &format!(
            ", hs {}, ds {} ({} domain points)",
            r.hs_lane_instructions, r.ds_lane_instructions, r.domain_points
        );
    }
    if r.gs_lane_instructions > 0 {
        s += &format!(", gs {}", r.gs_lane_instructions);
    }
    s + &format!(
        "; {} triangles rasterized, {} pixels shaded",
        r.primitives_rasterized, r.pixels_shaded
    )
}

// -------------------------------------------------------------------------- peer

/// FNV-1a, for the peer's file name.
fn fnv(parts: &[&[u8]]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    for p in parts {
        for b in *p {
            h ^= u64::from(*b);
            h = h.wrapping_mul(0x100_0000_01b3);
        }
        h ^= 0xff;
        h = h.wrapping_mul(0x100_0000_01b3);
    }
    h
}

/// Builds the peer (as `tests/all/d3d12_peer.rs` does), or says why it cannot.
fn build_peer() -> Result<PathBuf, String> {
    let source_path = root().join("tests/d3d12_peer/peer.c");
    let source = std::fs::read(&source_path).map_err(|e| format!("reading peer.c: {e}"))?;
    let pc = Command::new("pkg-config")
        .args(["--cflags", "--libs", "libvkd3d", "libvkd3d-utils"])
        .output()
        .map_err(|e| format!("pkg-config cannot run ({e})"))?;
    if !pc.status.success() {
        return Err(format!(
            "pkg-config finds no libvkd3d (install libvkd3d-dev): {}",
            String::from_utf8_lossy(&pc.stderr).trim()
        ));
    }
    let flags = String::from_utf8_lossy(&pc.stdout).trim().to_string();
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let dir = root().join("target/d3d12-peer");
    std::fs::create_dir_all(&dir).map_err(|e| format!("{}: {e}", dir.display()))?;
    let exe = dir.join(format!(
        "peer-bench-{:016x}",
        fnv(&[&source, flags.as_bytes(), cc.as_bytes()])
    ));
    if exe.is_file() {
        return Ok(exe);
    }
    let out = Command::new(&cc)
        .args(["-std=c99", "-O1", "-o"])
        .arg(&exe)
        .arg(&source_path)
        .args(flags.split_whitespace())
        .output()
        .map_err(|e| format!("{cc} cannot run ({e})"))?;
    if !out.status.success() {
        return Err(format!(
            "{cc} could not build peer.c: {}",
            String::from_utf8_lossy(&out.stderr).trim()
        ));
    }
    Ok(exe)
}

/// The scene as a peer plan in `dir`: with `repeat` executions timed, or (`None`) run
/// once with the target read back into `SCENE.peer.bin`.
fn write_plan(scene: &Scene, dir: &Path, repeat: Option<usize>) -> PathBuf {
    let shaders = root().join("shaders");
    let mut plan = format!(
        "d3d12-plan 1\ntexture rt dim=2d format=R8G8B8A8_UNORM width={WIDTH} height={HEIGHT} rtv=1\nrtv rtv0 resource=rt\n"
    );
    for (key, file) in scene.programs {
        let copy = dir.join(file);
        std::fs::copy(shaders.join(file), &copy).expect("copying a program");
        plan += &format!("shader {key} {file}\n");
    }
    plan += "root_signature rs graphics\nend\npipeline p graphics\nroot_signature rs\n";
    for (key, _) in scene.programs {
        plan += &format!("{key} {key}\n");
    }
    plan += &format!(
        "topology_type {}\nrasterizer cull=none\nrender_target_formats R8G8B8A8_UNORM\nend\n",
        scene.topology.2
    );
    plan += &format!(
        "set_pipeline p\nset_topology {}\nset_viewports 0,0,{WIDTH},{HEIGHT},0,1\nset_scissors 0,0,{WIDTH},{HEIGHT}\nset_render_targets rtv0\nclear_render_target rtv0 {} {} {} {}\ndraw {} instances={}\n",
        scene.topology.1, CLEAR[0], CLEAR[1], CLEAR[2], CLEAR[3], scene.vertices, scene.instances
    );
    let name = match repeat {
        Some(n) => {
            plan += &format!("repeat {n}\n");
            format!("{}_timed.txt", scene.name)
        }
        None => {
            plan += &format!("readback rt {}.peer.bin\n", scene.name);
            format!("{}_image.txt", scene.name)
        }
    };
    let path = dir.join(name);
    std::fs::write(&path, plan).expect("plan");
    path
}

/// The peer's exit status when no D3D12 device can be made.
const NO_DEVICE: i32 = 77;

fn run_peer(exe: &Path, plan: &Path) -> Result<String, String> {
    let out = Command::new(exe)
        .arg(plan)
        .output()
        .map_err(|e| format!("the peer cannot run: {e}"))?;
    match out.status.code() {
        Some(0) => Ok(String::from_utf8_lossy(&out.stdout).into_owned()),
        Some(NO_DEVICE) => Err(format!(
            "no Vulkan adapter for vkd3d (install mesa-vulkan-drivers): {}",
            String::from_utf8_lossy(&out.stderr).trim()
        )),
        _ => Err(format!(
            "the peer failed on {}: {}",
            plan.display(),
            String::from_utf8_lossy(&out.stderr).trim()
        )),
    }
}

struct PeerRun {
    median: f64,
    min: f64,
    max: f64,
    image: Vec<u8>,
}

fn peer_runs(exe: &Path, scene: &Scene, dir: &Path) -> Result<PeerRun, String> {
    run_peer(exe, &write_plan(scene, dir, None))?;
    let image = std::fs::read(dir.join(format!("{}.peer.bin", scene.name)))
        .map_err(|e| format!("the peer's image: {e}"))?;
    let out = run_peer(exe, &write_plan(scene, dir, Some(RUNS)))?;
    let times: Vec<f64> = out
        .lines()
        .filter_map(|l| l.strip_prefix("execution "))
        .filter_map(|l| l.split_once(": "))
        .filter_map(|(_, t)| t.strip_suffix(" ms")?.parse::<f64>().ok())
        .map(|ms| ms / 1e3)
        .collect();
    if times.len() != RUNS {
        return Err(format!(
            "the peer printed {} execution times, not {RUNS}:\n{out}",
            times.len()
        ));
    }
    let (median, min, max) = stats(times);
    Ok(PeerRun {
        median,
        min,
        max,
        image,
    })
}

/// Pixels whose RGBA8 texels differ by more than 1 in any channel.
fn pixels_differing(a: &[u8], b: &[u8]) -> usize {
    a.chunks(4)
        .zip(b.chunks(4))
        .filter(|(x, y)| x.iter().zip(*y).any(|(p, q)| p.abs_diff(*q) > 1))
        .count()
}

fn main() {
    let args: Vec<String> = std::env::args().skip(1).collect();
    let wanted = |w: &str, all: &[&str]| {
        !args.iter().any(|a| all.contains(&a.as_str())) || args.iter().any(|a| a == w)
    };
    let engines: Vec<Engine> = [(Engine::Interp, "interp"), (Engine::Jit, "jit")]
        .into_iter()
        .filter(|(_, n)| wanted(n, &["interp", "jit"]))
        .map(|(e, _)| e)
        .collect();
    let dir = scratch();
    let peer = build_peer();
    if let Err(why) = &peer {
        println!("lavapipe (vkd3d D3D12 peer): not run: {why}");
    }
    println!("medians of {RUNS} frames at {WIDTH}x{HEIGHT} (after one warm-up frame each):");
    for scene in &SCENES {
        if !wanted(scene.name, &["terrain", "particles"]) {
            continue;
        }
        println!("{}:", scene.name);
        let job = write_job(scene, &dir);
        let lavapipe = match &peer {
            Ok(exe) => peer_runs(exe, scene, &dir),
            Err(why) => Err(why.clone()),
        };
        match &lavapipe {
            Ok(p) => println!(
                "  lavapipe (vkd3d 1.2 D3D12)  : {:8.1} ms ({:.1}–{:.1})",
                p.median * 1e3,
                p.min * 1e3,
                p.max * 1e3
            ),
            Err(why) => println!("  lavapipe: not run: {why}"),
        }
        let mut first_image: Option<Vec<u8>> = None;
        for &engine in &engines {
            for threads in [1, 2] {
                let r = match dxlane_runs(&job, threads, engine) {
                    Ok(r) => r,
                    Err(e) => {
                        println!("  dxlane {engine:6} {threads} thread(s): failed: {e}");
                        continue;
                    }
                };
                let ratio = match &lavapipe {
                    Ok(p) => format!(", {:.2}x lavapipe's time", r.median / p.median),
                    Err(_) => String::new(),
                };
                let compile = if engine == Engine::Jit {
                    format!(", compile {:.1} ms in the first frame", r.compile * 1e3)
                } else {
                    String::new()
                };
                println!(
                    "  dxlane {engine:6} {threads} thread{}: {:8.1} ms ({:.1}–{:.1}){ratio}{compile}",
                    if threads == 1 { " " } else { "s" },
                    r.median * 1e3,
                    r.min * 1e3,
                    r.max * 1e3,
                );
                if threads == 1 {
                    println!("    profile: {}", profile(&r.report));
                    println!("    {}", counts(&r.report));
                }
                match &first_image {
                    None => {
                        if let Ok(p) = &lavapipe {
                            println!(
                                "    pixels differing from lavapipe's image by more than 1/255: {} of {}",
                                pixels_differing(&r.image, &p.image),
                                WIDTH * HEIGHT
                            );
                        }
                        first_image = Some(r.image);
                    }
                    Some(img) => assert!(
                        *img == r.image,
                        "{}: dxlane's image depends on the engine or worker count",
                        scene.name
                    ),
                }
            }
        }
    }
}
