//! Builds and runs the Embree peer (`peer.c` beside this file) for the ray tracing tests
//! and benchmark: compiled with `cc` against Debian's `libembree-dev` (Embree 3) into
//! `TARGET/embree-peer/`, at test time, outside the library's build.

#![allow(dead_code)] // The test and the benchmark each use part of it.

use std::path::{Path, PathBuf};
use std::process::Command;

/// The C source.
const SOURCE: &str = include_str!("peer.c");

/// Compiles the peer into `target/embree-peer/peer` (again only when the source
/// changed); `Err` says why it cannot be built (no `cc`, no Embree).
pub fn build(target: &Path) -> Result<PathBuf, String> {
    let dir = target.join("embree-peer");
    std::fs::create_dir_all(&dir).map_err(|e| format!("cannot create {}: {e}", dir.display()))?;
    let src = dir.join("peer.c");
    let exe = dir.join("peer");
    let fresh = std::fs::read_to_string(&src).is_ok_and(|s| s == SOURCE) && exe.exists();
    if fresh {
        return Ok(exe);
    }
    // Another test process may be building it too: write and compile under names of our
    // own, then rename into place.
    let tag = std::process::id();
    let tmp_src = dir.join(format!("peer.{tag}.c"));
    let tmp_exe = dir.join(format!("peer.{tag}.tmp"));
    std::fs::write(&tmp_src, SOURCE)
        .map_err(|e| format!("cannot write {}: {e}", tmp_src.display()))?;
    let cc = std::env::var("CC").unwrap_or_else(|_| "cc".into());
    let out = Command::new(&cc)
        .args(["-O2", "-o"])
        .arg(&tmp_exe)
        .arg(&tmp_src)
        .args(["-lembree3", "-lpthread"])
        .output()
        .map_err(|e| format!("cannot run {cc}: {e}"))?;
    if !out.status.success() {
        let _ = std::fs::remove_file(&tmp_src);
        let _ = std::fs::remove_file(&tmp_exe);
        return Err(format!(
            "{cc} could not build the Embree peer (is libembree-dev installed?): {}",
            String::from_utf8_lossy(&out.stderr)
                .lines()
                .take(3)
                .collect::<Vec<_>>()
                .join(" / ")
        ));
    }
    std::fs::rename(&tmp_exe, &exe).map_err(|e| format!("cannot move the peer into place: {e}"))?;
    std::fs::rename(&tmp_src, &src)
        .map_err(|e| format!("cannot move the peer's source into place: {e}"))?;
    Ok(exe)
}

/// A scene as the peer reads it: structures of triangles and instances of them.
#[derive(Clone, Debug, Default)]
pub struct Scene {
    /// Per structure, its triangles (three vertices each).
    pub blas: Vec<Vec<[[f32; 3]; 3]>>,
    /// (structure, 3×4 row-major object-to-world transform).
    pub instances: Vec<(u32, [f32; 12])>,
}

impl Scene {
    fn bytes(&self) -> Vec<u8> {
        let mut b = Vec::new();
        b.extend((self.blas.len() as u32).to_le_bytes());
        for tris in &self.blas {
            b.extend((tris.len() as u32).to_le_bytes());
            for f in tris.iter().flatten().flatten() {
                b.extend(f.to_le_bytes());
            }
        }
        b.extend((self.instances.len() as u32).to_le_bytes());
        for (s, m) in &self.instances {
            b.extend(s.to_le_bytes());
            for f in m {
                b.extend(f.to_le_bytes());
            }
        }
        b
    }
}

/// One ray: origin, tmin, direction, tmax.
pub type PeerRay = [f32; 8];

/// Embree's closest hit of a ray.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct PeerHit {
    pub t: f32,
    pub instance: u32,
    pub primitive: u32,
    pub u: f32,
    pub v: f32,
}

/// Traces `rays` through `scene` with `rtcIntersect1`; `None` per miss.
pub fn compare(
    peer: &Path,
    work: &Path,
    scene: &Scene,
    rays: &[PeerRay],
) -> Result<Vec<Option<PeerHit>>, String> {
    std::fs::create_dir_all(work).map_err(|e| e.to_string())?;
    let sp = work.join("scene.bin");
    let rp = work.join("rays.bin");
    let op = work.join("hits.bin");
    std::fs::write(&sp, scene.bytes()).map_err(|e| e.to_string())?;
    let mut rb = Vec::with_capacity(4 + rays.len() * 32);
    rb.extend((rays.len() as u32).to_le_bytes());
    for f in rays.iter().flatten() {
        rb.extend(f.to_le_bytes());
    }
    std::fs::write(&rp, rb).map_err(|e| e.to_string())?;
    let out = Command::new(peer)
        .arg("compare")
        .args([&sp, &rp, &op])
        .output()
        .map_err(|e| format!("cannot run the peer: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "the peer failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let b = std::fs::read(&op).map_err(|e| e.to_string())?;
    if b.len() != rays.len() * 20 {
        return Err(format!(
            "the peer wrote {} bytes for {} rays",
            b.len(),
            rays.len()
        ));
    }
    Ok(b.chunks_exact(20)
        .map(|r| {
            let w =
                |i: usize| u32::from_le_bytes([r[4 * i], r[4 * i + 1], r[4 * i + 2], r[4 * i + 3]]);
            let inst = w(1);
            (inst != u32::MAX).then(|| PeerHit {
                t: f32::from_bits(w(0)),
                instance: inst,
                primitive: w(2),
                u: f32::from_bits(w(3)),
                v: f32::from_bits(w(4)),
            })
        })
        .collect())
}

/// A pinhole camera: the ray of pixel (x, y) has direction
/// `forward + sx·right + sy·up`, `sx = (x + ½)/w·2 - 1`, `sy = 1 - (y + ½)/h·2`.
#[derive(Clone, Copy, Debug)]
pub struct Camera {
    pub width: u32,
    pub height: u32,
    pub origin: [f32; 3],
    pub forward: [f32; 3],
    pub right: [f32; 3],
    pub up: [f32; 3],
}

impl Camera {
    /// The direction of pixel (x, y), in the peer's arithmetic order.
    pub fn direction(&self, x: u32, y: u32) -> [f32; 3] {
        let sx = (x as f32 + 0.5) / self.width as f32 * 2.0 - 1.0;
        let sy = 1.0 - (y as f32 + 0.5) / self.height as f32 * 2.0;
        [0, 1, 2].map(|k| self.forward[k] + sx * self.right[k] + sy * self.up[k])
    }
}

/// The peer's benchmark figures.
#[derive(Clone, Copy, Debug)]
pub struct PeerBench {
    pub build_s: f64,
    pub build_cpu_s: f64,
    pub trace_s: f64,
    pub trace_cpu_s: f64,
    pub rays: u64,
    pub hits: u64,
}

/// Builds `scene` and traces `camera`'s primary rays on `threads` threads, `reps` times.
pub fn bench(
    peer: &Path,
    work: &Path,
    scene: &Scene,
    camera: &Camera,
    threads: u32,
    reps: u32,
) -> Result<PeerBench, String> {
    std::fs::create_dir_all(work).map_err(|e| e.to_string())?;
    let sp = work.join("bench-scene.bin");
    let cp = work.join("bench-camera.bin");
    std::fs::write(&sp, scene.bytes()).map_err(|e| e.to_string())?;
    let mut cb = Vec::new();
    cb.extend(camera.width.to_le_bytes());
    cb.extend(camera.height.to_le_bytes());
    for f in [camera.origin, camera.forward, camera.right, camera.up]
        .iter()
        .flatten()
    {
        cb.extend(f.to_le_bytes());
    }
    std::fs::write(&cp, cb).map_err(|e| e.to_string())?;
    let out = Command::new(peer)
        .arg("bench")
        .args([&sp, &cp])
        .args([threads.to_string(), reps.to_string()])
        .output()
        .map_err(|e| format!("cannot run the peer: {e}"))?;
    if !out.status.success() {
        return Err(format!(
            "the peer failed: {}",
            String::from_utf8_lossy(&out.stderr)
        ));
    }
    let text = String::from_utf8_lossy(&out.stdout);
    let field = |name: &str| -> Result<f64, String> {
        text.split_whitespace()
            .find_map(|kv| kv.strip_prefix(name)?.strip_prefix('=')?.parse().ok())
            .ok_or_else(|| format!("the peer's output lacks {name}: {text}"))
    };
    Ok(PeerBench {
        build_s: field("build_s")?,
        build_cpu_s: field("build_cpu_s")?,
        trace_s: field("trace_s")?,
        trace_cpu_s: field("trace_cpu_s")?,
        rays: field("rays")? as u64,
        hits: field("hits")? as u64,
    })
}
