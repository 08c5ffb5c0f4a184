//! `DispatchRays` (`pipeline::rays`) over dxil-reader's `ray_tracing.hlsl` library
//! exports, one export per container: ray generation, miss, closest-hit, callable,
//! any-hit and intersection programs over small scenes, each value worked out by hand from
//! the HLSL and the DXR functional spec (sections named), under both engines; the
//! shader-table and recursion refusals; the job file's `[rays]` refusals (the corpus
//! `[rays]` jobs themselves run in `corpus_jobs`).

use std::sync::Arc;

use dxlane::exec::jit::Engine;
use dxlane::exec::{DescriptorTable, Limits, Profile, RunBudget, StageProgram};
use dxlane::ir::Shader;
use dxlane::lower::{self, LoadOptions};
use dxlane::pipeline::rays::{HitGroup, RayPipeline, dispatch_rays};
use dxlane::raytracing::{
    AabbsDesc, BottomLevel, BuildOptions, Geometry, GeometryDesc, GeometryFlags, IndexFormat,
    InstanceDesc, InstanceFlags, TopLevel, Transform3x4, TrianglesDesc, VertexFormat,
};
use dxlane::resources::{
    AccelerationStructure, Descriptor, Format, Texture, TextureDesc, TextureView,
};

use crate::common;

/// `ray_tracing.<name>.dxil`'s one export, lowered.
fn program(name: &str) -> Option<Shader> {
    let want = format!("dxil-reader/ray_tracing.{name}.dxil");
    let f = common::dxil_programs()
        .into_iter()
        .find(|f| common::display_name(f) == want)?;
    let bytes = std::fs::read(&f).unwrap();
    Some(lower::load(&bytes, &LoadOptions::default()).unwrap().shader)
}

/// One triangle (0,0,0) (1,0,0) (0,1,0) under an instance moved to z = 5, ID 3.
fn triangle_scene(flags: GeometryFlags) -> Arc<TopLevel> {
    let v: Vec<u8> = [0f32, 0., 0., 1., 0., 0., 0., 1., 0.]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let i: Vec<u8> = [0u32, 1, 2].iter().flat_map(|x| x.to_le_bytes()).collect();
    let blas = BottomLevel::build(
        &[GeometryDesc {
            flags,
            geometry: Geometry::Triangles(TrianglesDesc {
                transform: None,
                index_format: IndexFormat::R32_UINT,
                index_count: 3,
                indices: &i,
                vertex_format: VertexFormat::R32G32B32_FLOAT,
                vertex_count: 3,
                vertices: &v,
                vertex_stride: 12,
            }),
        }],
        &BuildOptions::default(),
    )
    .unwrap();
    let mut t = Transform3x4::IDENTITY;
    t.0[11] = 5.0;
    instance(blas, t)
}

fn instance(blas: BottomLevel, t: Transform3x4) -> Arc<TopLevel> {
    Arc::new(
        TopLevel::build(
            &[InstanceDesc {
                transform: t,
                instance_id: 3,
                instance_mask: 0xff,
                contribution_to_hit_group_index: 0,
                flags: InstanceFlags::NONE,
                blas: Some(Arc::new(blas)),
            }],
            &BuildOptions::default(),
        )
        .unwrap(),
    )
}

/// One opaque AABB [-1, 1] × [-1, 1] × [1, 2] under an instance moved by (0.5, 0.5, 0),
/// so the 1×1 launch's ray from (0.5, 0.5, 0) starts at the object-space origin.
fn box_scene() -> Arc<TopLevel> {
    let b: Vec<u8> = [-1f32, -1., 1., 1., 1., 2.]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let blas = BottomLevel::build(
        &[GeometryDesc {
            flags: GeometryFlags::OPAQUE,
            geometry: Geometry::Aabbs(AabbsDesc {
                count: 1,
                aabbs: &b,
                stride: 24,
            }),
        }],
        &BuildOptions::default(),
    )
    .unwrap();
    let mut t = Transform3x4::IDENTITY;
    t.0[3] = 0.5;
    t.0[7] = 0.5;
    instance(blas, t)
}

/// The programs: 0 raygen, 1 miss, 2 closest hit, 3 callable, 4 any hit, 5 intersection.
struct Programs {
    shaders: Vec<Shader>,
    /// `D3D12_RAYTRACING_PIPELINE_CONFIG1::Flags` of the runs.
    pipeline_flags: u32,
}

impl Programs {
    fn load() -> Option<Programs> {
        let mut shaders = Vec::new();
        for n in [
            "raygen",
            "miss",
            "closest_hit",
            "callable",
            "any_hit",
            "intersection",
        ] {
            shaders.push(program(n)?);
        }
        Some(Programs {
            shaders,
            pipeline_flags: 0,
        })
    }

    /// Runs `DispatchRays(w, h, 1)` with `groups` as the hit-group table, one miss and
    /// one callable program, `depth` as the recursion limit; returns the output
    /// texture's texels (4 floats each) or the error.
    fn run(
        &self,
        scene: &Arc<TopLevel>,
        [w, h]: [u32; 2],
        groups: Vec<HitGroup>,
        miss: Vec<usize>,
        depth: u32,
        engine: Engine,
    ) -> Result<Vec<[f32; 4]>, String> {
        let tex = Texture::new(TextureDesc::tex2d(Format::R32G32B32A32_FLOAT, w, h)).unwrap();
        let mut programs = Vec::new();
        for (i, s) in self.shaders.iter().enumerate() {
            // The ray generation program binds t0 (the scene) and u0 (the output); the
            // others bind nothing.
            let ranges = if i == 0 {
                let mut r = vec![Vec::new(); s.resources.len()];
                for (k, range) in s.resources.iter().enumerate() {
                    r[k] = vec![
                        if range.kind == dxlane::ir::ResourceKind::AccelerationStructure {
                            Descriptor::AccelerationStructure(AccelerationStructure(scene.clone()))
                        } else {
                            Descriptor::Texture(TextureView::whole(tex.clone()))
                        },
                    ];
                }
                r
            } else {
                Vec::new()
            };
            let table = DescriptorTable::new(s, &ranges, &[], &[]).map_err(|e| e.to_string())?;
            let p = StageProgram::new(s, table, Profile::latest(), Limits::default(), 4)
                .map_err(|e| e.to_string())?
                .with_engine(engine);
            programs.push(p);
        }
        let pipeline = RayPipeline {
            programs,
            raygen: 0,
            miss: miss.into(),
            hit_groups: groups.into(),
            callable: vec![3].into(),
            max_recursion_depth: depth,
            pipeline_flags: self.pipeline_flags,
            arguments: Default::default(),
        };
        let budget = RunBudget::new(&Limits::default());
        let report = dispatch_rays(&pipeline, [w, h, 1], &budget).map_err(|e| e.to_string())?;
        assert_eq!(report.lanes, u64::from(w * h));
        assert_eq!(report.rays, u64::from(w * h), "one TraceRay per lane");
        // SKIP_TRIANGLES leaves a scene of triangles nothing to visit.
        assert!(
            report.lane_instructions > 0
                && (report.traversal > 0 || self.pipeline_flags & 0x100 != 0)
        );
        let bytes = tex.memory().to_bytes();
        Ok(bytes
            .chunks_exact(16)
            .map(|c| {
                let f = |k: usize| f32::from_le_bytes(c[4 * k..4 * k + 4].try_into().unwrap());
                [f(0), f(1), f(2), f(3)]
            })
            .collect())
    }
}

fn close(got: [f32; 4], want: [f32; 4], what: &str) {
    for k in 0..4 {
        let tol = 1e-5 * want[k].abs().max(1.0);
        assert!(
            (got[k] - want[k]).abs() <= tol
                && got[k].is_sign_negative() == want[k].is_sign_negative(),
            "{what}: component {k}: got {got:?}, want {want:?}"
        );
    }
}

/// What a miss writes (raygen after `miss`): the payload's colour is
/// (0.1, 0.2, 0.3) × WorldRayDirection() = (0, 0, 0.3), its distance stays -1; the
/// callable program doubles the parameter (the distance) to -2; the texel is
/// (colour × -2, distance). 0 × -2 is -0 (IEEE 754).
fn missed() -> [f32; 4] {
    [-0.0, -0.0, 0.3f32 * -2.0, -1.0]
}

/// What the closest-hit program gives for the triangle scene's hit at (x, 0.5, 5) from
/// (x, 0.5, 0) along +z, through the ray-generation program. DXR spec sections:
/// "RayTCurrent" (t = 5), "RayTMin" (0.001); "Intersection attributes structure"
/// (barycentrics weigh vertices 1 and 2: (x, 0.5)); "WorldRayOrigin" (x, 0.5, 0);
/// "ObjectRayOrigin" (x, 0.5, -5) and "ObjectRayDirection" (0, 0, 1) through the
/// instance's inverse; "ObjectToWorld3x4" row 1 (0, 1, 0, 0) and "WorldToObject3x4"
/// row 2 (0, 0, 1, -5), their first three columns. The colour sums, in the program's
/// order: x = x + x + x + 0 + 0 + 0, y = 0.5 + 0.5 + 0.5 + 0 + 1 + 0,
/// z = (1 - x - 0.5) + 0 - 5 + 1 + 0 + 1. The distance is 5 + 0.001; the callable
/// program doubles it; the texel is (colour × 2d, d).
fn hit(x: f32) -> [f32; 4] {
    let d = 5.0f32 + 0.001f32;
    let v = d * 2.0;
    [3.0 * x * v, 2.5 * v, (0.5 - x - 3.0) * v, d]
}

/// A 4 × 1 launch over the opaque triangle: rays from x = 0.125 and 0.375 (y = 0.5)
/// hit, x = 0.625 and 0.875 pass beside it. DXR spec "Addressing calculations within
/// shader tables": hit group 0 + 1 × GeometryIndex() 0 + the instance's contribution 0
/// is group 0; MissShaderIndex 0 is miss record 0; CallShader(0) callable record 0.
#[test]
fn raygen_miss_closest_hit_and_callable() {
    let Some(p) = Programs::load() else {
        assert!(
            common::corpora().is_empty(),
            "ray_tracing programs are missing"
        );
        return;
    };
    let groups = vec![HitGroup {
        name: "triangles".into(),
        closest_hit: Some(2),
        any_hit: None,
        intersection: None,
    }];
    let scene = triangle_scene(GeometryFlags::OPAQUE);
    for engine in [Engine::Interp, Engine::Jit] {
        let t = p
            .run(&scene, [4, 1], groups.clone(), vec![1], 1, engine)
            .unwrap();
        close(t[0], hit(0.125), "ray (0, 0)");
        close(t[1], hit(0.375), "ray (1, 0)");
        close(t[2], missed(), "ray (2, 0)");
        close(t[3], missed(), "ray (3, 0)");
    }
}

/// The pipeline's flags (`D3D12_RAYTRACING_PIPELINE_CONFIG1`): DXR spec
/// "D3D12_RAYTRACING_PIPELINE_FLAGS" — `SKIP_TRIANGLES` (0x100) acts as the ray flag on
/// every `TraceRay`, so the rays that hit the opaque triangle in
/// `raygen_miss_closest_hit_and_callable` miss; `SKIP_PROCEDURAL_PRIMITIVES` (0x200)
/// leaves the triangle hits as they were; `ALLOW_OPACITY_MICROMAPS` (0x400) changes
/// nothing.
#[test]
fn pipeline_flags_skip_primitives() {
    let Some(mut p) = Programs::load() else {
        assert!(
            common::corpora().is_empty(),
            "ray_tracing programs are missing"
        );
        return;
    };
    let groups = vec![HitGroup {
        name: "triangles".into(),
        closest_hit: Some(2),
        any_hit: None,
        intersection: None,
    }];
    let scene = triangle_scene(GeometryFlags::OPAQUE);
    for engine in [Engine::Interp, Engine::Jit] {
        p.pipeline_flags = 0x100;
        let t = p
            .run(&scene, [4, 1], groups.clone(), vec![1], 1, engine)
            .unwrap();
        for (i, texel) in t.iter().enumerate() {
            close(*texel, missed(), &format!("skip triangles: ray ({i}, 0)"));
        }
        for flags in [0x200, 0x400] {
            p.pipeline_flags = flags;
            let t = p
                .run(&scene, [4, 1], groups.clone(), vec![1], 1, engine)
                .unwrap();
            close(t[0], hit(0.125), "ray (0, 0)");
            close(t[1], hit(0.375), "ray (1, 0)");
            close(t[2], missed(), "ray (2, 0)");
        }
    }
}

/// The same launch over the triangle made non-opaque, with the any-hit program in its
/// hit group: at x = 0.125 the first barycentric is below 0.25, so the program calls
/// `IgnoreHit()` and the ray misses (DXR spec "IgnoreHit": the hit is not committed);
/// at x = 0.375 it returns and the hit is committed ("Any hit shaders"), so the
/// closest-hit program runs as before.
#[test]
fn any_hit_ignores_and_accepts() {
    let Some(p) = Programs::load() else {
        assert!(
            common::corpora().is_empty(),
            "ray_tracing programs are missing"
        );
        return;
    };
    let groups = vec![HitGroup {
        name: "alpha".into(),
        closest_hit: Some(2),
        any_hit: Some(4),
        intersection: None,
    }];
    let scene = triangle_scene(GeometryFlags::NONE);
    for engine in [Engine::Interp, Engine::Jit] {
        let t = p
            .run(&scene, [4, 1], groups.clone(), vec![1], 1, engine)
            .unwrap();
        close(t[0], missed(), "ray (0, 0): ignored");
        close(t[1], hit(0.375), "ray (1, 0): accepted");
        close(t[2], missed(), "ray (2, 0)");
        close(t[3], missed(), "ray (3, 0)");
    }
}

/// A 1 × 1 launch (ray from (0.5, 0.5, 0) along +z, TMax 1000) into a procedural AABB
/// whose instance puts the ray's object-space origin at (0, 0, 0). The intersection
/// program reports t = RayTCurrent() + length(ObjectRayOrigin()) = 1000 + 0 with hit
/// kind 1 and attributes (0.5, 0.5): RayTCurrent() in an intersection program is TMax
/// while nothing is committed, and a procedural hit at exactly TMax is accepted
/// ("Ray extents": TMin <= t <= TMax for procedural primitives). The closest-hit
/// program then sees t = 1000 and the reported attributes: colour
/// x = 0.5 + 0.5 + 0 + 0 + 0 + 0, y = 0.5 + 0.5 + 0 + 0 + 1 + 0,
/// z = (1 - 0.5 - 0.5) + 0 + 0 + 1 + 0 + 1; distance 1000 + 0.001, doubled by the
/// callable program.
#[test]
fn intersection_reports_a_procedural_hit() {
    let Some(p) = Programs::load() else {
        assert!(
            common::corpora().is_empty(),
            "ray_tracing programs are missing"
        );
        return;
    };
    let groups = vec![HitGroup {
        name: "sphere".into(),
        closest_hit: Some(2),
        any_hit: None,
        intersection: Some(5),
    }];
    let scene = box_scene();
    for engine in [Engine::Interp, Engine::Jit] {
        let t = p
            .run(&scene, [1, 1], groups.clone(), vec![1], 1, engine)
            .unwrap();
        let d = 1000.0f32 + 0.001f32;
        let v = d * 2.0;
        close(t[0], [v, 2.0 * v, 2.0 * v, d], "ray (0, 0)");
    }
}

/// Refusals (D3D leaves them undefined; `pipeline::rays` documents the choice): a
/// `TraceRay` past the pipeline's recursion limit names the lane and the depth (DXR spec
/// "Ray recursion limit"); a hit group index past the table and a miss index past the
/// table name the lane and the index ("Addressing calculations within shader tables").
#[test]
fn recursion_and_table_refusals() {
    let Some(p) = Programs::load() else {
        assert!(
            common::corpora().is_empty(),
            "ray_tracing programs are missing"
        );
        return;
    };
    let scene = triangle_scene(GeometryFlags::OPAQUE);
    let group = || {
        vec![HitGroup {
            name: "triangles".into(),
            closest_hit: Some(2),
            any_hit: None,
            intersection: None,
        }]
    };
    let e = p
        .run(&scene, [4, 1], group(), vec![1], 0, Engine::Interp)
        .unwrap_err();
    assert!(
        e.contains("ray (0, 0, 0): TraceRay at recursion depth 1 passes the pipeline's max_recursion_depth 0"),
        "{e}"
    );
    let e = p
        .run(&scene, [4, 1], Vec::new(), vec![1], 1, Engine::Interp)
        .unwrap_err();
    assert!(
        e.contains("ray (0, 0, 0): hit group index 0 is past the hit-group table of 0"),
        "{e}"
    );
    let e = p
        .run(&scene, [4, 1], group(), Vec::new(), 1, Engine::Interp)
        .unwrap_err();
    assert!(
        e.contains("ray (2, 0, 0): miss shader index 0 is past the miss table of 0"),
        "{e}"
    );
    let e = p
        .run(&scene, [4, 1], group(), vec![1], 32, Engine::Interp)
        .unwrap_err();
    assert!(
        e.contains("max_recursion_depth 32 is past D3D12's 31"),
        "{e}"
    );
}

/// The ray-tracing libraries' files, by export, for job files.
fn library_paths() -> Option<Vec<(String, std::path::PathBuf)>> {
    let dir = common::corpora()
        .iter()
        .find(|d| d.ends_with("dxil-reader"))?
        .clone();
    Some(
        [
            "raygen",
            "miss",
            "closest_hit",
            "callable",
            "any_hit",
            "intersection",
        ]
        .iter()
        .map(|n| (n.to_string(), dir.join(format!("ray_tracing.{n}.dxil"))))
        .chain([("query".to_string(), dir.join("ray_query_hits.dxil"))])
        .chain([(
            "raygen_od".to_string(),
            dir.join("ray_tracing.raygen.od.dxil"),
        )])
        .chain([("subobjects".to_string(), dir.join("ray_subobjects.dxil"))])
        .collect(),
    )
}

/// A `[rays]` job: `program` and `rays` replace the valid job's sections (`$name` is the
/// library of export `name`), `tail` follows the resources; returns the error of
/// preparing and running it.
fn rays_job_error(name: &str, program: &str, rays: &str, tail: &str) -> Option<String> {
    Some(match rays_job_result(name, program, rays, tail)? {
        Ok(_) => panic!("{name} ran"),
        Err(e) => e.to_string(),
    })
}

/// What preparing and running the job of [`rays_job_error`] gives.
fn rays_job_result(
    name: &str,
    program: &str,
    rays: &str,
    tail: &str,
) -> Option<Result<dxlane::job::Finished, dxlane::job::JobError>> {
    let libs = library_paths()?;
    let mut text = format!(
        "{program}\n{rays}\n\
[[acceleration_structure]]\nname = \"tri\"\nlevel = \"bottom\"\n\
[[acceleration_structure.geometry]]\ntype = \"triangles\"\nopaque = true\n\
vertices = {{ f32 = [0, 0, 0, 1, 0, 0, 0, 1, 0] }}\n\
[[acceleration_structure]]\nname = \"scene\"\nlevel = \"top\"\n\
[[acceleration_structure.instance]]\nblas = \"tri\"\ntransform = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 5]\n\
[[resource]]\nreg = \"t0\"\nkind = \"acceleration_structure\"\nacceleration_structure = \"scene\"\n{tail}"
    );
    for (n, p) in &libs {
        text = text.replace(&format!("${n}\""), &format!("{}\"", p.display()));
    }
    let dir = common::scratch().join("rays_jobs");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join(format!("{name}.toml"));
    std::fs::write(&path, text).unwrap();
    let opts = common::run_options();
    Some(
        dxlane::job::Job::load(&path)
            .and_then(|j| dxlane::job::prepare(j, &opts))
            .and_then(|p| p.execute(&opts)),
    )
}

const OUTPUT: &str = "[[resource]]\nreg = \"u0\"\nkind = \"texture2d\"\nformat = \"R32G32B32A32_FLOAT\"\nwidth = 2\nheight = 1\n";

/// The job file's `[rays]` refusals, each naming the key and the export: unknown exports
/// (with the closest name), an export of the wrong stage in a slot (DXR spec "Shader
/// types"), a shader configuration smaller than a program's payload or attributes or
/// past 32 bytes (`D3D12_RAYTRACING_SHADER_CONFIG`), hit groups whose kind does not
/// match their intersection program (`D3D12_HIT_GROUP_TYPE`), a recursion depth past 31
/// (`D3D12_RAYTRACING_MAX_DECLARABLE_TRACE_RECURSION_DEPTH`), empty and oversized
/// launches (`DispatchRays`: width × height × depth <= 2^30), a program that is not a
/// library, an export in two libraries, missing configuration; and at run time a
/// `TraceRay` past the recursion limit, a hit-group index past the table and a program
/// taking another payload than its `TraceRay` passed, naming the ray.
#[test]
fn rays_jobs_refuse_bad_input_by_name() {
    let program = "[program]\nlibraries = [\"$raygen\", \"$miss\", \"$closest_hit\", \"$callable\", \"$any_hit\", \"$intersection\"]";
    let rays = |over: &[(&str, &str)]| {
        let mut keys: Vec<(String, String)> = [
            ("dispatch", "[2, 1, 1]"),
            ("raygen", "\"raygen\""),
            ("miss", "[\"miss\"]"),
            ("hit_groups", "[{ closest_hit = \"closest_hit\" }]"),
            ("callable", "[\"callable\"]"),
            ("max_recursion_depth", "1"),
            ("max_payload_size", "20"),
            ("max_attribute_size", "8"),
        ]
        .iter()
        .map(|(k, v)| (k.to_string(), v.to_string()))
        .collect();
        for (k, v) in over {
            match keys.iter_mut().find(|(key, _)| key == k) {
                Some(slot) if v.is_empty() => slot.1.clear(),
                Some(slot) => slot.1 = v.to_string(),
                None => keys.push((k.to_string(), v.to_string())),
            }
        }
        let mut s = String::from("[rays]\n");
        for (k, v) in keys.iter().filter(|(_, v)| !v.is_empty()) {
            s.push_str(&format!("{k} = {v}\n"));
        }
        s
    };
    let cases: Vec<(&str, String, String, &str)> = vec![
        (
            "unknown_export",
            program.into(),
            rays(&[("raygen", "\"raygn\"")]),
            "[rays]: `raygen`: no library exports \"raygn\" (did you mean \"raygen\"?)",
        ),
        (
            "miss_as_raygen",
            program.into(),
            rays(&[("raygen", "\"miss\"")]),
            "`raygen`: \"miss\" is a [shader(\"miss\")] program, not a [shader(\"raygeneration\")] program",
        ),
        (
            "closest_hit_as_miss",
            program.into(),
            rays(&[("miss", "[\"closest_hit\"]")]),
            "`miss[0]`: \"closest_hit\" is a [shader(\"closesthit\")] program",
        ),
        (
            "intersection_as_any_hit",
            program.into(),
            rays(&[("hit_groups", "[{ name = \"g\", any_hit = \"intersection\" }]")]),
            "`hit_groups[0] (\"g\").any_hit`: \"intersection\" is a [shader(\"intersection\")] program",
        ),
        (
            "payload_too_small",
            program.into(),
            rays(&[("max_payload_size", "16")]),
            "`max_payload_size` 16: \"raygen\" (raygen) calls TraceRay with a payload of 20 bytes",
        ),
        (
            "attributes_too_small",
            program.into(),
            rays(&[("max_attribute_size", "4")]),
            "`max_attribute_size` 4: \"closest_hit\" (hit_groups[0].closest_hit) declares attributes of 8 bytes",
        ),
        (
            "attributes_past_32",
            program.into(),
            rays(&[("max_attribute_size", "36")]),
            "`max_attribute_size` 36: at most 32",
        ),
        (
            "triangles_with_intersection",
            program.into(),
            rays(&[(
                "hit_groups",
                "[{ closest_hit = \"closest_hit\", intersection = \"intersection\" }]",
            )]),
            "`hit_groups[0]`: a triangles hit group has no intersection program",
        ),
        (
            "procedural_without_intersection",
            program.into(),
            rays(&[(
                "hit_groups",
                "[{ kind = \"procedural\", closest_hit = \"closest_hit\" }]",
            )]),
            "`hit_groups[0]`: a procedural hit group needs an `intersection` program",
        ),
        (
            "unknown_kind",
            program.into(),
            rays(&[("hit_groups", "[{ kind = \"spheres\" }]")]),
            "`hit_groups[0].kind` \"spheres\": give \"triangles\" or \"procedural\"",
        ),
        (
            "recursion_past_31",
            program.into(),
            rays(&[("max_recursion_depth", "32")]),
            "`max_recursion_depth` 32: D3D12 allows 0 to 31",
        ),
        (
            "empty_dispatch",
            program.into(),
            rays(&[("dispatch", "[2, 0, 1]")]),
            "`dispatch` [2, 0, 1]: a dimension of 0 launches no ray",
        ),
        (
            "dispatch_past_2_30",
            program.into(),
            rays(&[("dispatch", "[65536, 16385, 1]")]),
            "at most 2^30",
        ),
        (
            "not_a_library",
            "[program]\nlibraries = [\"$raygen\", \"$query\"]".into(),
            rays(&[]),
            "`libraries[1]`: is a cs_6_",
        ),
        (
            "export_in_two_libraries",
            "[program]\nlibraries = [\"$raygen\", \"$raygen_od\", \"$miss\", \"$closest_hit\", \"$callable\"]".into(),
            rays(&[]),
            "`raygen`: \"raygen\" is exported by both `libraries[0]` and `libraries[1]`",
        ),
        (
            "no_shader_config",
            program.into(),
            rays(&[("max_payload_size", "")]),
            "[rays]: missing `max_payload_size`",
        ),
        (
            "library_without_rays",
            "[program]\nlibrary = \"$raygen\"\n[dispatch]\ngroups = [1, 1, 1]".into(),
            String::new(),
            "`library` and `libraries` are run by a `[rays]` section",
        ),
        (
            "rays_with_cs",
            format!("{program}\ncs = \"$raygen\""),
            rays(&[]),
            "[program]: `cs`: a `[rays]` job runs the exports of `library` or `libraries`",
        ),
        (
            "recursion_at_run_time",
            program.into(),
            rays(&[("max_recursion_depth", "0")]),
            "ray (0, 0, 0): TraceRay at recursion depth 1 passes the pipeline's max_recursion_depth 0",
        ),
        (
            // A library of four exports: the closest-hit program's payload is 8 bytes,
            // the ray generation program's TraceRay passes 20 (DXR spec "Ray payload").
            // The configuration is the library's (its RaytracingShaderConfig: payloads
            // up to 32 bytes).
            "payload_of_another_structure",
            "[program]\nlibraries = [\"$raygen\", \"$subobjects\", \"$callable\"]".into(),
            rays(&[
                ("max_recursion_depth", ""),
                ("max_payload_size", ""),
                ("max_attribute_size", ""),
            ]),
            "ray (0, 0, 0): the closest-hit program \"closest_hit\" takes a payload of 8 bytes, but its TraceRay passed 20",
        ),
        (
            "hit_group_past_the_table",
            program.into(),
            rays(&[("hit_groups", "[]")]),
            "ray (0, 0, 0): hit group index 0 is past the hit-group table of 0",
        ),
    ];
    let n = cases.len();
    for (name, program, rays, want) in cases {
        let Some(e) = rays_job_error(name, &program, &rays, OUTPUT) else {
            assert!(common::corpora().is_empty(), "the corpora are missing");
            eprintln!("SKIPPED rays::rays_jobs_refuse_bad_input_by_name: no corpora");
            return;
        };
        assert!(e.contains(want), "{name}: {e}");
        assert!(!e.contains("panicked"), "{name}: {e}");
    }
    // A program whose resources the job does not bind (as a local root signature would
    // bind them) is refused by the reflection check, naming the program.
    let e = rays_job_error("unbound_output", program, &rays(&[]), "").unwrap();
    assert!(
        e.contains("program \"raygen\"") && e.contains("u0"),
        "unbound_output: {e}"
    );
    eprintln!("{} [rays] refusals named", n + 1);
}

/// `dispatch_rays` as a command of a command list, reading the `[rays]` keys: the output
/// texture is cleared to 7, then `DispatchRays(2, 1, 1)` over the opaque triangle of
/// `tests/jobs/corpus/ray_tracing.toml` writes texels (0, 0) and (1, 0) only
/// (`DispatchRaysDimensions()` is (2, 1, 1), so the rays start at (0.25, 0.5) and
/// (0.75, 0.5)). The first hits the triangle at t = 5: colour (3x, 3y + 1, -2 - x - y) =
/// (0.75, 2.5, -2.75) times the doubled distance 10.002, then 5.001 (the closest-hit
/// values derived in that job's header); the second misses: (-0, -0, -0.6, -1). The
/// other six texels keep the clear. Both engines; a bad export in the command is refused
/// naming the command.
#[test]
fn dispatch_rays_runs_as_a_command() {
    let Some(libs) = library_paths() else {
        assert!(common::corpora().is_empty(), "the corpora are missing");
        eprintln!("SKIPPED rays::dispatch_rays_runs_as_a_command: no corpora");
        return;
    };
    let lib = |n: &str| {
        libs.iter()
            .find(|(k, _)| k == n)
            .map(|(_, p)| format!("\"{}\"", p.display()))
            .unwrap()
    };
    let text = |raygen: &str| {
        format!(
            "[[acceleration_structure]]\nname = \"tri\"\nlevel = \"bottom\"\n\
[[acceleration_structure.geometry]]\ntype = \"triangles\"\nopaque = true\n\
vertices = {{ f32 = [0, 0, 0, 1, 0, 0, 0, 1, 0] }}\n\
[[acceleration_structure]]\nname = \"scene\"\nlevel = \"top\"\n\
[[acceleration_structure.instance]]\nblas = \"tri\"\nid = 3\ntransform = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 5]\n\
[[resource]]\nname = \"tlas\"\nkind = \"acceleration_structure\"\nacceleration_structure = \"scene\"\n\
[[resource]]\nname = \"image\"\nkind = \"texture2d\"\nformat = \"R32G32B32A32_FLOAT\"\nwidth = 4\nheight = 2\n\
[[command]]\ntype = \"clear_unordered_access\"\nresource = \"image\"\nfloat = [7, 7, 7, 7]\n\
[[command]]\ntype = \"dispatch_rays\"\nlibraries = [{}, {}, {}, {}]\n\
dispatch = [2, 1, 1]\nraygen = \"{raygen}\"\nmiss = [\"miss\"]\n\
hit_groups = [{{ closest_hit = \"closest_hit\" }}]\ncallable = [\"callable\"]\n\
max_recursion_depth = 1\nmax_payload_size = 20\nmax_attribute_size = 8\n\
bind = [{{ reg = \"t0\", resource = \"tlas\" }}, {{ reg = \"u0\", resource = \"image\" }}]\n\
[[expect]]\nresource = \"image\"\noffset = 0\nf32 = [7.5015001, 25.004999, -27.505499, 5.0009999]\ntolerance = {{ abs = 1e-5 }}\n\
[[expect]]\nresource = \"image\"\noffset = 16\nf32 = [\"-0\", \"-0\", -0.6, -1]\n\
[[expect]]\nresource = \"image\"\noffset = 32\nf32 = [7, 7, 7, 7, 7, 7, 7, 7]\n\
[[expect]]\nresource = \"image\"\noffset = 64\nf32 = [7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7, 7]\n",
            lib("raygen"),
            lib("miss"),
            lib("closest_hit"),
            lib("callable"),
        )
    };
    let dir = common::scratch().join("rays_list");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("list.toml");
    std::fs::write(&path, text("raygen")).unwrap();
    let mut images = Vec::new();
    for engine in [Engine::Interp, Engine::Jit] {
        let opts = dxlane::job::RunOptions {
            engine: Some(engine),
            ..common::run_options()
        };
        let f = dxlane::job::Job::load(&path)
            .and_then(|j| dxlane::job::prepare(j, &opts))
            .and_then(|p| p.execute(&opts))
            .unwrap_or_else(|e| panic!("{engine}: {e}"));
        let dxlane::job::Finished::List(r) = f else {
            panic!("not a list");
        };
        let s = &r.summary;
        assert_eq!(s.commands[1].kind, "dispatch_rays");
        assert!(s.commands[1].lane_instructions > 0);
        assert_eq!(
            (s.expectations.passed, s.expectations.failed),
            (4, 0),
            "{engine}: {:?}",
            s.expectations.results
        );
        images.push(r.bound.resources[1].memory().unwrap().to_bytes());
    }
    assert!(images[0] == images[1], "the engines wrote different texels");
    std::fs::write(&path, text("mis")).unwrap();
    let opts = common::run_options();
    let e = dxlane::job::Job::load(&path)
        .and_then(|j| dxlane::job::prepare(j, &opts))
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains("[[command]] #2 (dispatch_rays): `raygen`: no library exports \"mis\""),
        "{e}"
    );
}

/// `ray_subobjects.dxil`'s `RDAT` subobject table, decoded (`container::rdat::subobjects`):
/// every kind its HLSL declares, with the values written there (see its header).
#[test]
fn library_subobjects_decode() {
    use dxlane::container::rdat::{SubobjectDesc as D, subobjects};
    use dxlane::container::{Container, FourCc};
    let Some(libs) = library_paths() else {
        assert!(common::corpora().is_empty(), "the corpora are missing");
        eprintln!("SKIPPED rays::library_subobjects_decode: no corpora");
        return;
    };
    let path = &libs.iter().find(|(k, _)| k == "subobjects").unwrap().1;
    let bytes = std::fs::read(path).unwrap();
    let c = Container::parse(&bytes).unwrap();
    let got = subobjects(c.part(FourCc::RDAT).unwrap()).unwrap();
    let by = |n: &str| {
        got.iter()
            .find(|s| s.name == n)
            .map(|s| s.desc.clone())
            .unwrap_or_else(|| panic!("no subobject {n}: {got:?}"))
    };
    assert_eq!(got.len(), 8, "{got:?}");
    assert_eq!(by("state_config"), D::StateObjectConfig { flags: 1 });
    assert!(
        matches!(by("global_signature"), D::GlobalRootSignature { bytes } if bytes.len() == 48)
    );
    assert!(matches!(by("local_signature"), D::LocalRootSignature { bytes } if bytes.len() == 48));
    assert_eq!(
        by("association"),
        D::Association {
            subobject: "local_signature".into(),
            exports: vec!["closest_hit".into(), "miss".into()],
        }
    );
    assert_eq!(
        by("shader_config"),
        D::ShaderConfig {
            max_payload_size: 32,
            max_attribute_size: 8
        }
    );
    assert_eq!(
        by("pipeline_config"),
        D::PipelineConfig {
            max_recursion_depth: 2,
            flags: None
        }
    );
    assert_eq!(
        by("triangle_group"),
        D::HitGroup {
            kind: 0,
            any_hit: String::new(),
            closest_hit: "closest_hit".into(),
            intersection: String::new(),
        }
    );
    assert_eq!(
        by("procedural_group"),
        D::HitGroup {
            kind: 1,
            any_hit: "any_hit".into(),
            closest_hit: "closest_hit".into(),
            intersection: "intersection".into(),
        }
    );
    // The root signatures' bytes (container::rts0): "RootConstants(num32BitConstants =
    // 2, b0)" is one parameter, two constants at b0, placed after the 32-byte shader
    // identifier (DXR spec "Shader table memory initialization"): record bytes 32..40;
    // "SRV(t0)" a root SRV at t0.
    use dxlane::container::rts0::{RegisterClass, RootParameterKind as K, RootSignature};
    let D::LocalRootSignature { bytes } = by("local_signature") else {
        unreachable!()
    };
    let rs = RootSignature::parse(&bytes, FourCc::RTS0).unwrap();
    assert_eq!(
        rs.parameters
            .iter()
            .map(|p| p.kind.clone())
            .collect::<Vec<_>>(),
        vec![K::Constants {
            register: 0,
            space: 0,
            count: 2
        }]
    );
    let (args, size) = rs.local_arguments().unwrap();
    assert_eq!((args[0].offset, args[0].size, size), (32, 8, 40));
    let D::GlobalRootSignature { bytes } = by("global_signature") else {
        unreachable!()
    };
    let rs = RootSignature::parse(&bytes, FourCc::RTS0).unwrap();
    assert_eq!(
        rs.parameters
            .iter()
            .map(|p| p.kind.clone())
            .collect::<Vec<_>>(),
        vec![K::Descriptor {
            class: RegisterClass::Srv,
            register: 0,
            space: 0
        }]
    );
    // Every byte of the part at 0x00 and 0xff: refused or decoded, never a panic.
    let part = c.part(FourCc::RDAT).unwrap();
    for at in 0..part.data.len() {
        for b in [0u8, 0xff] {
            let mut data = part.data.to_vec();
            data[at] = b;
            let p = dxlane::container::Part {
                data: &data,
                ..*part
            };
            let _ = subobjects(&p);
        }
    }
}

/// A `[rays]` job taking its configuration and a hit group from a library's subobjects
/// (DXR spec "Subobject association behavior"): `ray_subobjects.hlsl` (its
/// export-limited builds of closest_hit, any_hit and intersection) declares
/// `procedural_group` (any_hit, closest_hit, intersection), a shader configuration
/// (payload 32, attributes 8) and a pipeline configuration (depth 2), none named by an
/// association, so they are the library's defaults ("Declaring a default association")
/// for its exports; the job names the group only and states no configuration. The
/// scene's triangle is behind the rays (z = -5), so both rays of `DispatchRays(2, 1, 1)`
/// run ray_tracing.hlsl's miss program: (-0, -0, -0.6, -1) each (see
/// tests/jobs/corpus/ray_tracing.toml). Then the refusals: a job value disagreeing with
/// the library's, naming both; a restated hit group whose program differs; a named
/// group no library defines, with no programs.
#[test]
fn rays_job_takes_the_libraries_subobjects() {
    let Some(libs) = library_paths() else {
        assert!(common::corpora().is_empty(), "the corpora are missing");
        eprintln!("SKIPPED rays::rays_job_takes_the_libraries_subobjects: no corpora");
        return;
    };
    let lib = |n: &str| {
        libs.iter()
            .find(|(k, _)| k == n)
            .map(|(_, p)| format!("\"{}\"", p.display()))
            .unwrap()
    };
    // The export-limited builds of ray_subobjects.hlsl, each with the whole subobject
    // table (the same subobjects three times: one each).
    let sub = |n: &str| {
        let whole = &libs.iter().find(|(k, _)| k == "subobjects").unwrap().1;
        format!(
            "\"{}\"",
            whole
                .with_file_name(format!("ray_subobjects.{n}.dxil"))
                .display()
        )
    };
    let text = |rays: &str| {
        format!(
            "[program]\nlibraries = [{}, {}, {}, {}, {}, {}]\n\
[rays]\ndispatch = [2, 1, 1]\nraygen = \"raygen\"\nmiss = [\"miss\"]\ncallable = [\"callable\"]\n{rays}\n\
[[acceleration_structure]]\nname = \"tri\"\nlevel = \"bottom\"\n\
[[acceleration_structure.geometry]]\ntype = \"triangles\"\nopaque = true\n\
vertices = {{ f32 = [0, 0, 0, 1, 0, 0, 0, 1, 0] }}\n\
[[acceleration_structure]]\nname = \"scene\"\nlevel = \"top\"\n\
[[acceleration_structure.instance]]\nblas = \"tri\"\ntransform = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, -5]\n\
[[resource]]\nreg = \"t0\"\nkind = \"acceleration_structure\"\nacceleration_structure = \"scene\"\n{OUTPUT}\
[[expect]]\nreg = \"u0\"\noffset = 0\nf32 = [\"-0\", \"-0\", -0.6, -1, \"-0\", \"-0\", -0.6, -1]\n",
            lib("raygen"),
            lib("miss"),
            lib("callable"),
            sub("closest_hit"),
            sub("any_hit"),
            sub("intersection"),
        )
    };
    let dir = common::scratch().join("rays_subobjects");
    std::fs::create_dir_all(&dir).unwrap();
    let run = |name: &str, rays: &str| {
        let path = dir.join(format!("{name}.toml"));
        std::fs::write(&path, text(rays)).unwrap();
        let opts = common::run_options();
        dxlane::job::Job::load(&path)
            .and_then(|j| dxlane::job::prepare(j, &opts))
            .and_then(|p| p.execute(&opts))
            .map_err(|e| e.to_string())
    };
    for (name, rays) in [
        ("by_name", "hit_groups = [{ name = \"procedural_group\" }]"),
        // Restating what the library says is allowed.
        (
            "restated",
            "hit_groups = [{ name = \"procedural_group\", kind = \"procedural\", closest_hit = \"closest_hit\" }]\nmax_payload_size = 32\nmax_recursion_depth = 2",
        ),
    ] {
        let f = run(name, rays).unwrap_or_else(|e| panic!("{name}: {e}"));
        let dxlane::job::Finished::Rays(r) = f else {
            panic!("{name}: not a ray-tracing job");
        };
        let s = &r.summary;
        assert_eq!(
            (s.expectations.passed, s.expectations.failed, s.rays),
            (1, 0, 2),
            "{name}: {:?}",
            s.expectations.results
        );
        // The group's three programs came from the library's HitGroup subobject.
        let entries: Vec<&str> = s.programs.iter().map(|p| p.entry.as_str()).collect();
        for e in ["any_hit", "closest_hit", "intersection"] {
            assert!(entries.contains(&e), "{name}: {entries:?}");
        }
    }
    for (name, rays, want) in [
        (
            "payload_disagrees",
            "hit_groups = [{ name = \"procedural_group\" }]\nmax_payload_size = 20",
            "`max_payload_size` 20 disagrees with RaytracingShaderConfig \"shader_config\" (libraries[3])'s MaxPayloadSizeInBytes 32",
        ),
        (
            "depth_disagrees",
            "hit_groups = [{ name = \"procedural_group\" }]\nmax_recursion_depth = 1",
            "`max_recursion_depth` 1 disagrees with RaytracingPipelineConfig \"pipeline_config\" (libraries[3])'s MaxTraceRecursionDepth 2",
        ),
        (
            "program_disagrees",
            "hit_groups = [{ name = \"triangle_group\", any_hit = \"any_hit\" }]",
            "`hit_groups[0] (\"triangle_group\").any_hit` \"any_hit\" disagrees with the library's HitGroup \"triangle_group\" (libraries[3]), which has no any_hit",
        ),
        (
            "kind_disagrees",
            "hit_groups = [{ name = \"procedural_group\", kind = \"triangles\" }]",
            "`hit_groups[0] (\"procedural_group\").kind` \"triangles\" disagrees with the library's HitGroup \"procedural_group\" (libraries[3]): kind \"procedural\"",
        ),
        (
            "no_such_group",
            "hit_groups = [{ name = \"sphere_group\" }]",
            "`hit_groups[0] (\"sphere_group\")`: names no programs, and no library defines a hit group \"sphere_group\"",
        ),
    ] {
        let e = run(name, rays)
            .err()
            .unwrap_or_else(|| panic!("{name} ran"));
        assert!(e.contains(want), "{name}: {e}");
    }
}

/// Local root arguments checked against the record's local root signature (DXR spec
/// "Local root signatures vs global root signatures", "Shader record"), each refusal
/// naming the table entry and the parameter: arguments for a record whose export has
/// no local root signature; a parameter a program reads left unset; an argument of
/// another type; one more argument than parameters; a wrong number of constants; a
/// named resource that does not exist or cannot be a root descriptor; a signature
/// from both the library and the job. The library's signature is `ray_subobjects`'
/// `RootConstants(num32BitConstants = 2, b0)` on its miss program.
#[test]
fn local_root_arguments_are_checked_by_record() {
    let program =
        "[program]\nlibraries = [\"$raygen\", \"$miss\", \"$closest_hit\", \"$callable\"]";
    let rays = |raygen: &str| {
        format!(
            "[rays]\ndispatch = [2, 1, 1]\nraygen = {raygen}\nmiss = [\"miss\"]\n\
hit_groups = [{{ closest_hit = \"closest_hit\" }}]\ncallable = [\"callable\"]\n\
max_recursion_depth = 1\nmax_payload_size = 20\nmax_attribute_size = 8"
        )
    };
    let srv = "local_root_signature = [{ descriptor = \"t0\" }]";
    let tail = format!(
        "{OUTPUT}[[resource]]\nname = \"picture\"\nkind = \"texture2d\"\nformat = \"R32G32B32A32_FLOAT\"\nwidth = 2\nheight = 1\n"
    );
    let cases: Vec<(&str, String, &str)> = vec![
        (
            "no_signature",
            rays("{ export = \"raygen\", local = [{ constants = [1] }] }"),
            "`raygen.local`: the record's export has no local root signature",
        ),
        (
            "unset",
            rays(&format!("{{ export = \"raygen\", {srv} }}")),
            "`raygen.local`: `raygen.local_root_signature` declares parameter 0 (root SRV t0), which the record leaves unset",
        ),
        (
            "wrong_type",
            rays(&format!(
                "{{ export = \"raygen\", {srv}, local = [{{ table = [\"picture\"] }}] }}"
            )),
            "`raygen.local[0]`: gives `table`, but `raygen.local_root_signature`'s parameter 0 (root SRV t0) takes `resource`",
        ),
        (
            "one_too_many",
            rays(&format!(
                "{{ export = \"raygen\", {srv}, local = [{{ resource = \"picture\" }}, {{ constants = [1] }}] }}"
            )),
            "`raygen.local[1]` (constants): `raygen.local_root_signature` declares 1 parameter, so the record has no argument 1",
        ),
        (
            "two_kinds",
            rays(&format!(
                "{{ export = \"raygen\", {srv}, local = [{{ resource = \"picture\", table = [\"picture\"] }}] }}"
            )),
            "`raygen.local[0]`: give one of `constants`, `resource` and `table`, not resource and table",
        ),
        (
            "no_such_resource",
            rays(&format!(
                "{{ export = \"raygen\", {srv}, local = [{{ resource = \"pictur\" }}] }}"
            )),
            "`raygen.local[0]`: no `[[resource]]` is named \"pictur\"",
        ),
        (
            "texture_as_root_descriptor",
            rays(&format!(
                "{{ export = \"raygen\", {srv}, local = [{{ resource = \"picture\" }}] }}"
            )),
            "`raygen.local[0]`: \"picture\" ([[resource]] #3 (\"picture\")): is texture2d R32G32B32A32_FLOAT; a root descriptor is the address of buffer memory",
        ),
        (
            "misspelt_key",
            rays("{ export = \"raygen\", locl = [] }"),
            "unknown field `locl`",
        ),
    ];
    for (name, rays, want) in &cases {
        let Some(e) = rays_job_error(name, program, rays, &tail) else {
            assert!(common::corpora().is_empty(), "the corpora are missing");
            eprintln!("SKIPPED rays::local_root_arguments_are_checked_by_record: no corpora");
            return;
        };
        assert!(e.contains(want), "{name}: {e}");
    }
    // The library's local root signature: two root constants in b0 on its miss program.
    let program = "[program]\nlibraries = [\"$raygen\", \"$subobjects\", \"$callable\"]";
    let rays = |miss: &str| {
        format!(
            "[rays]\ndispatch = [2, 1, 1]\nraygen = \"raygen\"\nmiss = [{miss}]\n\
hit_groups = [{{ name = \"triangle_group\" }}]\ncallable = [\"callable\"]"
        )
    };
    let sig = "LocalRootSignature \"local_signature\" (libraries[1])";
    let wrong = format!(
        "`miss[0].local[0]`: gives `table`, but {sig}'s parameter 0 (2 root constants, b0) takes `constants`"
    );
    let count = format!(
        "`miss[0].local[0]`: gives 3 constants, but {sig}'s parameter 0 (2 root constants, b0) takes 2"
    );
    let both = format!(
        "`miss[0].local_root_signature`: the libraries already associate {sig} with this record's export"
    );
    for (name, miss, want) in [
        (
            "library_wrong_type",
            "{ export = \"miss\", local = [{ table = [\"picture\"] }] }",
            wrong.as_str(),
        ),
        (
            "library_constant_count",
            "{ export = \"miss\", local = [{ constants = [1, 2, 3] }] }",
            count.as_str(),
        ),
        (
            "library_and_job",
            "{ export = \"miss\", local_root_signature = [{ constants = 2, reg = \"b0\" }] }",
            both.as_str(),
        ),
    ] {
        let e = rays_job_error(name, program, &rays(miss), &tail).unwrap();
        assert!(e.contains(want), "{name}: {e}");
    }
    // Given as declared, every record is accepted and the launch runs: ray (0, 0, 0)
    // meets the triangle, whose group's closest-hit program (the library's, with the
    // same local root signature, given its two constants too) takes an 8-byte payload
    // where the ray generation program passes 20 — the run-time refusal of
    // `payload_of_another_structure`, reached only after preparation accepted them.
    let ok = rays("{ export = \"miss\", local = [{ constants = [1, 2.5] }] }").replace(
        "{ name = \"triangle_group\" }",
        "{ name = \"triangle_group\", local = [{ constants = [-1, 0] }] }",
    );
    let e = rays_job_error("library_given", program, &ok, &tail).unwrap();
    assert!(
        e.contains("ray (0, 0, 0): the closest-hit program \"closest_hit\" takes a payload of 8 bytes, but its TraceRay passed 20"),
        "library_given: {e}"
    );
}

/// A command list's `dispatch_rays` takes records with local root arguments too: the
/// ray-generation record's local descriptor table binds u0 to the named "image" (the
/// command binds only t0), and the texels are `dispatch_rays_runs_as_a_command`'s.
#[test]
fn dispatch_rays_command_takes_local_arguments() {
    let Some(libs) = library_paths() else {
        assert!(common::corpora().is_empty(), "the corpora are missing");
        eprintln!("SKIPPED rays::dispatch_rays_command_takes_local_arguments: no corpora");
        return;
    };
    let lib = |n: &str| {
        libs.iter()
            .find(|(k, _)| k == n)
            .map(|(_, p)| format!("\"{}\"", p.display()))
            .unwrap()
    };
    let text = format!(
        "[[acceleration_structure]]\nname = \"tri\"\nlevel = \"bottom\"\n\
[[acceleration_structure.geometry]]\ntype = \"triangles\"\nopaque = true\n\
vertices = {{ f32 = [0, 0, 0, 1, 0, 0, 0, 1, 0] }}\n\
[[acceleration_structure]]\nname = \"scene\"\nlevel = \"top\"\n\
[[acceleration_structure.instance]]\nblas = \"tri\"\nid = 3\ntransform = [1, 0, 0, 0, 0, 1, 0, 0, 0, 0, 1, 5]\n\
[[resource]]\nname = \"tlas\"\nkind = \"acceleration_structure\"\nacceleration_structure = \"scene\"\n\
[[resource]]\nname = \"image\"\nkind = \"texture2d\"\nformat = \"R32G32B32A32_FLOAT\"\nwidth = 4\nheight = 2\n\
[[command]]\ntype = \"clear_unordered_access\"\nresource = \"image\"\nfloat = [7, 7, 7, 7]\n\
[[command]]\ntype = \"dispatch_rays\"\nlibraries = [{}, {}, {}, {}]\n\
dispatch = [2, 1, 1]\n\
raygen = {{ export = \"raygen\", local_root_signature = [{{ table = [\"u0\"] }}], local = [{{ table = [\"image\"] }}] }}\n\
miss = [\"miss\"]\n\
hit_groups = [{{ closest_hit = \"closest_hit\" }}]\ncallable = [\"callable\"]\n\
max_recursion_depth = 1\nmax_payload_size = 20\nmax_attribute_size = 8\n\
bind = [{{ reg = \"t0\", resource = \"tlas\" }}]\n\
[[expect]]\nresource = \"image\"\noffset = 0\nf32 = [7.5015001, 25.004999, -27.505499, 5.0009999]\ntolerance = {{ abs = 1e-5 }}\n\
[[expect]]\nresource = \"image\"\noffset = 16\nf32 = [\"-0\", \"-0\", -0.6, -1]\n\
[[expect]]\nresource = \"image\"\noffset = 32\nf32 = [7, 7, 7, 7, 7, 7, 7, 7]\n",
        lib("raygen"),
        lib("miss"),
        lib("closest_hit"),
        lib("callable"),
    );
    let dir = common::scratch().join("rays_list_local");
    std::fs::create_dir_all(&dir).unwrap();
    let path = dir.join("list.toml");
    std::fs::write(&path, &text).unwrap();
    for engine in [Engine::Interp, Engine::Jit] {
        let opts = dxlane::job::RunOptions {
            engine: Some(engine),
            ..common::run_options()
        };
        let f = dxlane::job::Job::load(&path)
            .and_then(|j| dxlane::job::prepare(j, &opts))
            .and_then(|p| p.execute(&opts))
            .unwrap_or_else(|e| panic!("{engine}: {e}"));
        let dxlane::job::Finished::List(r) = f else {
            panic!("not a list");
        };
        let s = &r.summary;
        assert_eq!(
            (s.expectations.passed, s.expectations.failed),
            (3, 0),
            "{engine}: {:?}",
            s.expectations.results
        );
    }
    // Without the argument the program's u0 is bound by nothing: refused, naming the
    // record and the parameter.
    std::fs::write(
        &path,
        text.replace(", local = [{ table = [\"image\"] }]", ""),
    )
    .unwrap();
    let opts = common::run_options();
    let e = dxlane::job::Job::load(&path)
        .and_then(|j| dxlane::job::prepare(j, &opts))
        .expect_err("refused")
        .to_string();
    assert!(
        e.contains("[[command]] #2 (dispatch_rays): `raygen.local`: `raygen.local_root_signature` declares parameter 0 (descriptor table: u0), which the record leaves unset"),
        "{e}"
    );
}

/// A corpus `[rays]` job's text with its corpus paths pointed at this build's corpora,
/// edited by `edit`, run under `engine`: the output texture's bytes (`u0`, or heap slot
/// 0 where the job has a heap) or the error. `None` without the corpora.
fn run_corpus_rays(
    name: &str,
    tag: &str,
    engine: Engine,
    edit: &dyn Fn(String) -> String,
) -> Option<Result<Vec<u8>, String>> {
    let dir = common::corpora()
        .iter()
        .find(|d| d.ends_with("dxil-reader"))?
        .clone();
    let text = std::fs::read_to_string(common::root().join("tests/jobs/corpus").join(name))
        .unwrap()
        .replace(
            "../../../target/corpora/dxil-reader",
            &dir.display().to_string(),
        );
    let out = common::scratch().join("rays_tables");
    std::fs::create_dir_all(&out).unwrap();
    let path = out.join(format!("{tag}.toml"));
    std::fs::write(&path, edit(text)).unwrap();
    let opts = dxlane::job::RunOptions {
        engine: Some(engine),
        ..common::run_options()
    };
    let finished = dxlane::job::Job::load(&path)
        .and_then(|j| dxlane::job::prepare(j, &opts))
        .and_then(|p| p.execute(&opts));
    Some(match finished {
        Ok(dxlane::job::Finished::Rays(r)) => {
            let texture = r
                .bound
                .heap
                .first()
                .or_else(|| {
                    r.bound
                        .resources
                        .iter()
                        .find(|e| e.name.contains("\"picture\""))
                })
                .or_else(|| r.bound.resources.iter().find(|e| e.name.contains("(u0)")))
                .and_then(|e| e.memory())
                .map(|m| m.to_bytes())
                .unwrap_or_default();
            assert!(!texture.is_empty(), "{tag}: no output texture");
            Ok(texture)
        }
        Ok(_) => panic!("{tag}: not a ray dispatch"),
        Err(e) => Err(e.to_string()),
    })
}

/// The texel at `i` (4 floats) of a texture's bytes, as bits.
fn texel_bits(bytes: &[u8], i: usize) -> [u32; 4] {
    let w = |k: usize| {
        let at = 16 * i + 4 * k;
        u32::from_le_bytes([bytes[at], bytes[at + 1], bytes[at + 2], bytes[at + 3]])
    };
    [w(0), w(1), w(2), w(3)]
}

/// The shader table in a buffer (`D3D12_DISPATCH_RAYS_DESC`; DXR functional spec
/// "Shader tables", "Addressing calculations within shader tables", "Shader table memory
/// initialization") gives the same bytes as the lists in record order: the corpus's
/// `ray_tracing.toml` and `ray_tracing_local.toml` against their `_table` twins (the
/// second carrying a root SRV's GPU virtual address and a descriptor table's handle in
/// the record's bytes), under both engines. A hit-group stride of 0 makes every index
/// read record 0 ("Shader record stride"): with the instance's contribution 5 the
/// table of one record still runs it, while a stride of 32 puts index 5 past the table.
#[test]
fn buffer_tables_match_the_lists() {
    let keep = |t: String| t;
    for (list, table) in [
        ("ray_tracing.toml", "ray_tracing_table.toml"),
        ("ray_tracing_local.toml", "ray_tracing_local_table.toml"),
    ] {
        for engine in [Engine::Interp, Engine::Jit] {
            let Some(a) = run_corpus_rays(list, "list", engine, &keep) else {
                assert!(common::corpora().is_empty(), "the corpora are missing");
                eprintln!("SKIPPED rays::buffer_tables_match_the_lists: no corpora");
                return;
            };
            let b = run_corpus_rays(table, "table", engine, &keep).unwrap();
            let (a, b) = (a.unwrap(), b.unwrap());
            assert!(a == b, "{engine}: {table} wrote other bytes than {list}");
            assert!(a.iter().any(|&x| x != 0), "{list}: nothing written");
        }
    }
    let list = run_corpus_rays("ray_tracing.toml", "list", Engine::Interp, &keep)
        .unwrap()
        .unwrap();
    let contribution = |stride: &'static str| {
        move |t: String| {
            t.replace("id = 3\n", "id = 3\ncontribution = 5\n").replace(
                "hit_group_table = { buffer = \"table\", offset = 128, size = 64, stride = 64 }",
                &format!("hit_group_table = {{ buffer = \"table\", offset = 128, size = 32, stride = {stride} }}"),
            )
        }
    };
    let zero = run_corpus_rays(
        "ray_tracing_table.toml",
        "stride0",
        Engine::Interp,
        &contribution("0"),
    )
    .unwrap()
    .unwrap();
    assert!(zero == list, "a stride of 0 reads record 0 for index 5");
    let e = run_corpus_rays(
        "ray_tracing_table.toml",
        "stride32",
        Engine::Interp,
        &contribution("32"),
    )
    .unwrap()
    .unwrap_err();
    assert!(
        e.contains("ray (0, 0, 0): hit group index 5 is past the hit-group table of 1"),
        "{e}"
    );
}

/// NULL (all-zero) identifiers (DXR spec "Shader identifier": no shader runs for that
/// purpose and ray tracing continues; a NULL hit group runs none of its programs). The
/// corpus's `ray_tracing_table.toml` with one record zeroed at a time, values from its
/// header: a NULL hit group leaves a hit's payload as the ray generation program set
/// it (colour 0, distance -1), so texel (0, 0) is (0 × -2, 0 × -2, 0 × -2, -1); a NULL
/// miss record does the same for the miss at (3, 0); a NULL callable record leaves the
/// distance undoubled, so the miss at (3, 0) writes (0, 0, 0.3) × -1 and -1, and the hit
/// at (0, 0) (x, y) = (0.125, 0.25) writes (3x, 3y + 1, -2 - x - y) × 5.001 and 5.001.
/// A NULL ray generation record is refused (nothing would run).
#[test]
fn null_records_run_no_program() {
    let null = |name: &'static str| {
        move |t: String| t.replace(&format!(", identifier = \"{name}\" }}"), " }")
    };
    let run = |name: &'static str| {
        run_corpus_rays("ray_tracing_table.toml", name, Engine::Interp, &null(name))
    };
    let Some(group) = run("triangle") else {
        eprintln!("SKIPPED rays::null_records_run_no_program: no corpora");
        return;
    };
    let nz = 0x8000_0000u32;
    let m1 = (-1.0f32).to_bits();
    let group = group.unwrap();
    assert_eq!(texel_bits(&group, 0), [nz, nz, nz, m1]);
    let miss = run("miss").unwrap().unwrap();
    assert_eq!(texel_bits(&miss, 3), [nz, nz, nz, m1]);
    // The hit at (0, 0) is unchanged by a NULL miss record.
    assert_eq!(texel_bits(&miss, 0), texel_bits(&group_list(), 0));
    let callable = run("callable").unwrap().unwrap();
    assert_eq!(texel_bits(&callable, 3), [nz, nz, (-0.3f32).to_bits(), m1]);
    let d = 5.001f32;
    let (x, y) = (0.125f32, 0.25f32);
    let want = [3.0 * x * d, (3.0 * y + 1.0) * d, (-2.0 - x - y) * d, d];
    let got = texel_bits(&callable, 0).map(f32::from_bits);
    for k in 0..4 {
        assert!((got[k] - want[k]).abs() < 1e-5, "{got:?} vs {want:?}");
    }
    let e = run("raygen").unwrap().unwrap_err();
    assert!(
        e.contains("`ray_generation_record`: its shader identifier is NULL"),
        "{e}"
    );
}

/// `ray_tracing.toml`'s texture (the list form).
fn group_list() -> Vec<u8> {
    run_corpus_rays("ray_tracing.toml", "list", Engine::Interp, &|t| t)
        .unwrap()
        .unwrap()
}

/// An edit of a job's text.
type Edit = Box<dyn Fn(String) -> String>;

/// The buffer form's refusals, each naming the key, record or lane: both forms at once;
/// a table start off 64 bytes (`D3D12_RAYTRACING_SHADER_TABLE_BYTE_ALIGNMENT`, DXR spec
/// "Shader tables"); a stride not a multiple of 32 or past 4096
/// (`D3D12_RAYTRACING_SHADER_RECORD_BYTE_ALIGNMENT`, "Shader record stride"); a range past
/// its buffer; a ray generation record smaller than an identifier; an identifier naming
/// nothing in the pipeline, or a hit group where a miss program belongs (errors when a
/// ray reaches the record: only records a launch reaches need be valid, "Shader
/// tables"); a root descriptor's address into no resource and a descriptor table's
/// handle outside the heap ("Shader table memory initialization").
#[test]
fn buffer_tables_refuse_bad_input_by_name() {
    let cases: Vec<(&str, &str, Edit, &str)> = vec![
        (
            "ray_tracing_table.toml",
            "both_forms",
            Box::new(|t| {
                t.replace(
                    "dispatch = [4, 2, 1]\n",
                    "dispatch = [4, 2, 1]\nraygen = \"raygen\"\n",
                )
            }),
            "`raygen` lists the shader table, and `ray_generation_record` reads it from a buffer: give one form",
        ),
        (
            "ray_tracing_table.toml",
            "misaligned",
            Box::new(|t| {
                t.replace(
                    "offset = 64, size = 32, stride = 32",
                    "offset = 32, size = 32, stride = 32",
                )
            }),
            "`miss_table.offset` 32: a shader table starts at a multiple of 64 bytes",
        ),
        (
            "ray_tracing_table.toml",
            "stride_48",
            Box::new(|t| {
                t.replace(
                    "offset = 64, size = 32, stride = 32",
                    "offset = 64, size = 32, stride = 48",
                )
            }),
            "`miss_table.stride` 48: a record stride is a multiple of 32",
        ),
        (
            "ray_tracing_table.toml",
            "stride_4128",
            Box::new(|t| {
                t.replace(
                    "offset = 192, size = 32, stride = 32",
                    "offset = 192, size = 32, stride = 4128",
                )
            }),
            "`callable_table.stride` 4128: a record stride is a multiple of 32 (D3D12_RAYTRACING_SHADER_RECORD_BYTE_ALIGNMENT) from 0 to 4096 bytes",
        ),
        (
            "ray_tracing_table.toml",
            "past_buffer",
            Box::new(|t| {
                t.replace(
                    "offset = 192, size = 32, stride = 32",
                    "offset = 192, size = 128, stride = 32",
                )
            }),
            "`callable_table`: bytes 192 to 192 + 128 pass the end of \"table\" (256 bytes)",
        ),
        (
            "ray_tracing_table.toml",
            "short_raygen",
            Box::new(|t| t.replace("offset = 0, size = 32 }", "offset = 0, size = 16 }")),
            "`ray_generation_record.size` 16: the record holds at least a 32-byte shader identifier",
        ),
        (
            "ray_tracing_table.toml",
            "unknown_identifier",
            Box::new(|t| t.replace("identifier = \"miss\"", "identifier = \"mis\"")),
            "ray (3, 0, 0): miss shader index 0: miss_table record 0 (byte 64 of \"table\"): its shader identifier names nothing in the pipeline",
        ),
        (
            "ray_tracing_table.toml",
            "group_as_miss",
            Box::new(|t| t.replace("identifier = \"miss\"", "identifier = \"triangle\"")),
            "miss_table record 0 (byte 64 of \"table\"): its shader identifier names the hit group \"triangle\", which a miss record cannot run",
        ),
        (
            "ray_tracing_local_table.toml",
            "address_nowhere",
            Box::new(|t| t.replace("{ resource = \"scene\" }", "{ constants = [4096, 0] }")),
            "ray_generation_record record 0 (byte 0 of \"table\"): parameter 0 (bytes 32..40): GPU virtual address 0x0000000000001000 points into no named `[[resource]]`",
        ),
        (
            "ray_tracing_local_table.toml",
            "handle_outside",
            Box::new(|t| t.replace("{ heap = 0 }", "{ heap = 1 }")),
            "ray_generation_record record 0 (byte 0 of \"table\"): parameter 1 (bytes 40..48): GPU descriptor handle 0x4000000000000020 with 1 descriptors is outside the heap's 1 slots",
        ),
    ];
    for (job, tag, edit, want) in &cases {
        let Some(r) = run_corpus_rays(job, tag, Engine::Interp, edit) else {
            eprintln!("SKIPPED rays::buffer_tables_refuse_bad_input_by_name: no corpora");
            return;
        };
        let e = r.expect_err(tag);
        assert!(e.contains(want), "{tag}: {e}");
    }
    eprintln!("{} buffer-table refusals named", cases.len());
}

/// With tables in buffers the run summary lists the pipeline's shader identifiers (DXR
/// spec "Shader identifier": what `GetShaderIdentifier` returns), so a user can write
/// tables by other means: `ray_tracing_table.toml`'s ray generation, miss and callable
/// exports and its hit group, each the bytes `shader_table::identifier` gives.
#[test]
fn summary_lists_the_shader_identifiers() {
    let Some(dir) = common::corpora()
        .iter()
        .find(|d| d.ends_with("dxil-reader"))
        .cloned()
    else {
        eprintln!("SKIPPED rays::summary_lists_the_shader_identifiers: no corpora");
        return;
    };
    let text =
        std::fs::read_to_string(common::root().join("tests/jobs/corpus/ray_tracing_table.toml"))
            .unwrap()
            .replace(
                "../../../target/corpora/dxil-reader",
                &dir.display().to_string(),
            );
    let out = common::scratch().join("rays_identifiers");
    std::fs::create_dir_all(&out).unwrap();
    let path = out.join("job.toml");
    std::fs::write(&path, text).unwrap();
    let opts = common::run_options();
    let Ok(dxlane::job::Finished::Rays(r)) = dxlane::job::Job::load(&path)
        .and_then(|j| dxlane::job::prepare(j, &opts))
        .and_then(|p| p.execute(&opts))
    else {
        panic!("the job did not run");
    };
    let listed: Vec<(String, String, String)> = r
        .summary
        .shader_identifiers
        .iter()
        .map(|i| (i.name.clone(), i.table.clone(), i.identifier.clone()))
        .collect();
    let hex = |n: &str| {
        dxlane::job::shader_table::identifier(n)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    for (name, table) in [
        ("raygen", "ray generation"),
        ("miss", "miss"),
        ("callable", "callable"),
        ("triangle", "hit group"),
    ] {
        assert!(
            listed.contains(&(name.into(), table.into(), hex(name))),
            "{name}: {listed:?}"
        );
    }
    assert_eq!(listed.len(), 4, "{listed:?}");
    // "dxlaneID"
    assert!(hex("raygen").starts_with("64786c616e654944"));
}
