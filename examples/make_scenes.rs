//! Writes the data files of the draw examples (`examples/data/`): meshes, transforms and
//! lighting made with glam, and a small texture.
//!
//! ```sh
//! cargo run --example make_scenes
//! ```
//!
//! The files are committed; rerun this after changing a scene, then re-bless the goldens
//! (`DXLANE_BLESS=1 cargo test examples`).

use std::f32::consts::PI;
use std::path::Path;

use glam::{Mat3, Mat4, Vec2, Vec3, Vec4};

/// One vertex of `draw_mesh.hlsl`: position, normal, texture coordinate (32 bytes).
struct Vertex {
    pos: Vec3,
    normal: Vec3,
    uv: Vec2,
}

fn sphere(
    center: Vec3,
    radius: f32,
    slices: u32,
    stacks: u32,
    v: &mut Vec<Vertex>,
    idx: &mut Vec<u32>,
) {
    let base = v.len() as u32;
    for j in 0..=stacks {
        let phi = PI * j as f32 / stacks as f32;
        for i in 0..=slices {
            let theta = 2.0 * PI * i as f32 / slices as f32;
            let n = Vec3::new(phi.sin() * theta.cos(), phi.cos(), phi.sin() * theta.sin());
            v.push(Vertex {
                pos: center + n * radius,
                normal: n,
                uv: Vec2::new(
                    i as f32 / slices as f32 * 4.0,
                    j as f32 / stacks as f32 * 2.0,
                ),
            });
        }
    }
    let row = slices + 1;
    for j in 0..stacks {
        for i in 0..slices {
            let a = base + j * row + i;
            let (b, c, d) = (a + 1, a + row, a + row + 1);
            // Clockwise on screen seen from outside (D3D's default front face).
            idx.extend_from_slice(&[a, b, c, b, d, c]);
        }
    }
}

fn cube(center: Vec3, half: f32, rot: Mat3, v: &mut Vec<Vertex>, idx: &mut Vec<u32>) {
    let faces = [Vec3::X, -Vec3::X, Vec3::Y, -Vec3::Y, Vec3::Z, -Vec3::Z];
    for n in faces {
        let base = v.len() as u32;
        let u = if n.y.abs() > 0.5 { Vec3::X } else { Vec3::Y };
        let t = n.cross(u);
        let b = n.cross(t);
        for (k, (s, r)) in [(-1.0, -1.0), (1.0, -1.0), (1.0, 1.0), (-1.0, 1.0)]
            .into_iter()
            .enumerate()
        {
            let p = (n + t * s + b * r) * half;
            v.push(Vertex {
                pos: center + rot * p,
                normal: rot * n,
                uv: Vec2::new([0.0, 1.0, 1.0, 0.0][k], [0.0, 0.0, 1.0, 1.0][k]),
            });
        }
        idx.extend_from_slice(&[base, base + 2, base + 1, base, base + 3, base + 2]);
    }
}

fn write(path: &Path, bytes: &[u8]) {
    std::fs::write(path, bytes).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    println!("{} ({} bytes)", path.display(), bytes.len());
}

fn f32s(v: impl IntoIterator<Item = f32>) -> Vec<u8> {
    v.into_iter().flat_map(f32::to_le_bytes).collect()
}

fn main() {
    let dir = Path::new(env!("CARGO_MANIFEST_DIR")).join("examples/data");
    std::fs::create_dir_all(&dir).expect("examples/data");

    // The mesh: a sphere pierced by a turned cube, so the depth test decides the seam.
    let mut verts = Vec::new();
    let mut idx = Vec::new();
    sphere(Vec3::ZERO, 1.0, 32, 16, &mut verts, &mut idx);
    cube(
        Vec3::new(0.75, -0.25, -0.25),
        0.55,
        Mat3::from_rotation_y(0.6) * Mat3::from_rotation_x(0.4),
        &mut verts,
        &mut idx,
    );
    let vb: Vec<u8> = verts
        .iter()
        .flat_map(|v| {
            f32s([
                v.pos.x, v.pos.y, v.pos.z, v.normal.x, v.normal.y, v.normal.z, v.uv.x, v.uv.y,
            ])
        })
        .collect();
    write(&dir.join("mesh_vertices.bin"), &vb);
    let ib: Vec<u8> = idx.iter().flat_map(|i| i.to_le_bytes()).collect();
    write(&dir.join("mesh_indices.bin"), &ib);

    // Left-handed view and projection (D3D's conventions: depth 0 near, 1 far).
    let model = Mat4::from_rotation_y(-0.5);
    let view = Mat4::look_at_lh(Vec3::new(0.0, 1.2, -3.6), Vec3::ZERO, Vec3::Y);
    let proj = Mat4::perspective_lh(0.9, 1.0, 0.5, 10.0);
    let clip = proj * view * model;
    let normal = Mat3::from_mat4(model);
    let light = Vec3::new(-0.5, 0.8, -0.6).normalize();
    let mut cb = Vec::new();
    for r in 0..4 {
        cb.extend(f32s(clip.row(r).to_array()));
    }
    for r in 0..3 {
        let row = normal.row(r);
        cb.extend(f32s(Vec4::new(row.x, row.y, row.z, 0.0).to_array()));
    }
    cb.extend(f32s([light.x, light.y, light.z, 0.15]));
    write(&dir.join("mesh_scene.bin"), &cb);

    // The texture: 64 × 64 R8G8B8A8_UNORM, a two-colour checker with a thin grid.
    let mut tex = Vec::new();
    for y in 0..64u32 {
        for x in 0..64u32 {
            let check = ((x / 8) + (y / 8)) % 2 == 0;
            let grid = x % 8 == 0 || y % 8 == 0;
            let c: [u8; 4] = if grid {
                [40, 40, 48, 255]
            } else if check {
                [230, 190, 90, 255]
            } else {
                [70, 130, 200, 255]
            };
            tex.extend_from_slice(&c);
        }
    }
    write(&dir.join("checker.bin"), &tex);

    // Two vertex buffers of draw_color.hlsl (float2 position, float4 colour).
    let tri = f32s([
        0.0, 0.8, 1.0, 0.0, 0.0, 1.0, //
        0.8, -0.7, 0.0, 1.0, 0.0, 1.0, //
        -0.8, -0.7, 0.0, 0.0, 1.0, 1.0,
    ]);
    write(&dir.join("triangle.bin"), &tri);
    // Three overlapping translucent triangles for the blend example, back to front.
    let mut blend = Vec::new();
    for (k, (c, off)) in [
        ([1.0, 0.2, 0.2, 0.6], Vec2::new(-0.25, 0.15)),
        ([0.2, 1.0, 0.2, 0.6], Vec2::new(0.25, 0.15)),
        ([0.2, 0.3, 1.0, 0.6], Vec2::new(0.0, -0.25)),
    ]
    .into_iter()
    .enumerate()
    {
        let s = 0.7 + 0.05 * k as f32;
        for p in [
            Vec2::new(0.0, 0.8),
            Vec2::new(0.7, -0.5),
            Vec2::new(-0.7, -0.5),
        ] {
            let q = p * s + off;
            blend.extend(f32s([q.x, q.y, c[0], c[1], c[2], c[3]]));
        }
    }
    write(&dir.join("blend.bin"), &blend);
}
