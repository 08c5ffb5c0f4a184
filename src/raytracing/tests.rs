//! One test per traversal rule, each naming its section of the DXR functional spec.

use std::sync::Arc;

use super::*;

const INF: f32 = f32::INFINITY;

fn bytes(v: &[[f32; 3]]) -> Vec<u8> {
    v.iter().flatten().flat_map(|f| f.to_le_bytes()).collect()
}

/// A bottom-level structure of one non-indexed triangle geometry per entry.
fn blas(geoms: &[(&[[f32; 3]], GeometryFlags)]) -> Arc<BottomLevel> {
    let data: Vec<Vec<u8>> = geoms.iter().map(|(v, _)| bytes(v)).collect();
    let descs: Vec<GeometryDesc<'_>> = geoms
        .iter()
        .zip(&data)
        .map(|((v, f), b)| GeometryDesc {
            flags: *f,
            geometry: Geometry::Triangles(TrianglesDesc {
                transform: None,
                index_format: IndexFormat::None,
                index_count: 0,
                indices: &[],
                vertex_format: VertexFormat::R32G32B32_FLOAT,
                vertex_count: v.len() as u32,
                vertices: b,
                vertex_stride: 12,
            }),
        })
        .collect();
    Arc::new(BottomLevel::build(&descs, &BuildOptions::default()).unwrap())
}

fn aabbs(boxes: &[[f32; 6]], flags: GeometryFlags) -> Arc<BottomLevel> {
    let b: Vec<u8> = boxes
        .iter()
        .flatten()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    Arc::new(
        BottomLevel::build(
            &[GeometryDesc {
                flags,
                geometry: Geometry::Aabbs(AabbsDesc {
                    count: boxes.len() as u64,
                    aabbs: &b,
                    stride: 24,
                }),
            }],
            &BuildOptions::default(),
        )
        .unwrap(),
    )
}

fn inst(blas: &Arc<BottomLevel>) -> InstanceDesc {
    InstanceDesc {
        transform: Transform3x4::IDENTITY,
        instance_id: 0,
        instance_mask: 0xff,
        contribution_to_hit_group_index: 0,
        flags: InstanceFlags::NONE,
        blas: Some(blas.clone()),
    }
}

fn tlas(instances: &[InstanceDesc]) -> Arc<TopLevel> {
    Arc::new(TopLevel::build(instances, &BuildOptions::default()).unwrap())
}

fn ray(o: [f32; 3], d: [f32; 3]) -> Ray {
    Ray {
        origin: o,
        t_min: 0.0,
        direction: d,
        t_max: INF,
    }
}

fn desc(flags: RayFlags, r: Ray) -> TraceRayDesc {
    TraceRayDesc {
        flags,
        pipeline_flags: RayFlags::NONE,
        instance_inclusion_mask: 0xff,
        ray: r,
    }
}

/// Traces with an any-hit program answering `decide` and counting its calls.
fn trace(t: &TopLevel, d: &TraceRayDesc, decide: AnyHitDecision) -> (TraceResult<()>, u32) {
    let mut n = 0;
    let mut ah = |_: &Hit, _: Option<&()>| {
        n += 1;
        decide
    };
    let r = trace_ray(Some(t), d, &mut ah, &mut NoPrograms);
    (r, n)
}

/// Every candidate a query offers when nothing is committed, in order.
fn candidates(t: &Arc<TopLevel>, flags: RayFlags, r: Ray) -> Vec<Hit> {
    let mut q = RayQuery::new();
    q.trace_ray_inline(Some(t.clone()), flags, 0xff, r);
    let mut out = Vec::new();
    while q.proceed() {
        out.push(q.candidate().unwrap());
    }
    out
}

/// A triangle in z = `z`, clockwise seen from -z looking down +z (front-facing for rays
/// going +z), covering (0..4, 0..4).
fn front_tri(z: f32) -> [[f32; 3]; 3] {
    [[0.0, 0.0, z], [0.0, 4.0, z], [4.0, 0.0, z]]
}

const DOWN: [f32; 3] = [0.0, 0.0, 1.0];
const O: [f32; 3] = [1.0, 1.0, 0.0];

/// "Ray extents": triangle hits need TMin < t < TMax (exclusive).
#[test]
fn triangle_extents_are_exclusive() {
    let t = tlas(&[inst(&blas(&[(&front_tri(2.0), GeometryFlags::OPAQUE)]))]);
    let mut tr = Tracer::new();
    let mut r = ray(O, DOWN);
    assert_eq!(tr.closest_hit(&t, RayFlags::NONE, 0xff, r).unwrap().t, 2.0);
    r.t_max = 2.0;
    assert!(tr.closest_hit(&t, RayFlags::NONE, 0xff, r).is_none());
    r.t_max = 3.0;
    r.t_min = 2.0;
    assert!(tr.closest_hit(&t, RayFlags::NONE, 0xff, r).is_none());
}

/// "Ray extents", "ReportHit": procedural hits need TMin <= t <= TMax (inclusive), and a
/// report outside the current interval is rejected.
#[test]
fn procedural_extents_are_inclusive() {
    let t = tlas(&[inst(&aabbs(
        &[[0.0, 0.0, 1.0, 4.0, 4.0, 3.0]],
        GeometryFlags::OPAQUE,
    ))]);
    let mut r = ray(O, DOWN);
    r.t_min = 1.0;
    r.t_max = 2.0;
    let mut outcomes = Vec::new();
    let mut isect = |_: &Hit, rep: &mut HitReporter<'_, u32>| {
        outcomes.push(rep.report_hit(2.5, 1, 25));
        outcomes.push(rep.report_hit(0.5, 2, 5));
        outcomes.push(rep.report_hit(2.0, 3, 20));
        outcomes.push(rep.report_hit(1.0, 4, 10));
        outcomes.push(rep.report_hit(1.5, 5, 15));
    };
    let res = trace_ray(
        Some(&t),
        &desc(RayFlags::NONE, r),
        &mut NoPrograms,
        &mut isect,
    );
    use ReportHitOutcome::*;
    // 2.0 = TMax is accepted, then 1.0 = TMin; 1.5 > RayTCurrent() = 1.0 is rejected.
    assert_eq!(outcomes, [Rejected, Rejected, Accepted, Accepted, Rejected]);
    let hit = res.committed.unwrap();
    assert_eq!(
        (hit.t, hit.hit_kind, hit.kind),
        (1.0, 4, PrimitiveKind::Procedural)
    );
    assert_eq!(res.attributes, Some(10));
}

/// "Ray extents" (no part of a ray may be NaN; dxlane's choice: such rays, infinite ones
/// and zero directions meet nothing) and "TraceRay" (a NULL structure forces a miss).
#[test]
fn bad_rays_and_null_structures_miss() {
    let t = tlas(&[inst(&blas(&[(&front_tri(2.0), GeometryFlags::NONE)]))]);
    let nan = f32::NAN;
    for r in [
        ray([nan, 1.0, 0.0], DOWN),
        ray(O, [0.0, nan, 1.0]),
        ray([INF, 1.0, 0.0], DOWN),
        ray(O, [0.0, 0.0, INF]),
        ray(O, [0.0, 0.0, 0.0]),
        Ray {
            t_min: nan,
            ..ray(O, DOWN)
        },
        Ray {
            t_max: nan,
            ..ray(O, DOWN)
        },
    ] {
        assert!(candidates(&t, RayFlags::NONE, r).is_empty(), "{r:?}");
        assert!(
            trace(&t, &desc(RayFlags::NONE, r), AnyHitDecision::Accept)
                .0
                .committed
                .is_none()
        );
    }
    let res: TraceResult<()> = trace_ray(
        None,
        &desc(RayFlags::NONE, ray(O, DOWN)),
        &mut NoPrograms,
        &mut NoPrograms,
    );
    assert!(res.committed.is_none() && !res.run_closest_hit);
    let mut q = RayQuery::new();
    assert!(!q.proceed());
    q.trace_ray_inline(None, RayFlags::NONE, 0xff, ray(O, DOWN));
    assert!(!q.proceed());
    assert_eq!(q.committed_status(), CommittedStatus::Nothing);
}

/// "Instance masking": an instance is skipped when `InstanceInclusionMask & InstanceMask`
/// is zero; a zero mask is never included.
#[test]
fn instance_mask() {
    let b = blas(&[(&front_tri(2.0), GeometryFlags::OPAQUE)]);
    let t = tlas(&[
        InstanceDesc {
            instance_mask: 0b0101,
            ..inst(&b)
        },
        InstanceDesc {
            instance_mask: 0,
            transform: Transform3x4([1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, -1.0]),
            ..inst(&b)
        },
    ]);
    let mut tr = Tracer::new();
    for (mask, hit) in [
        (0b0001, true),
        (0b0100, true),
        (0b1010, false),
        (0x100, false),
        (0xff, true),
    ] {
        let h = tr.closest_hit(&t, RayFlags::NONE, mask, ray(O, DOWN));
        assert_eq!(h.is_some(), hit, "mask {mask:#x}");
        // The nearer instance (t = 1) has mask 0 and is never included.
        if let Some(h) = h {
            assert_eq!((h.instance_index, h.t), (0, 2.0));
        }
    }
}

/// "Ray flags" RAY_FLAG_FORCE_OPAQUE / FORCE_NON_OPAQUE, and "TraceRay control flow" [3]:
/// opacity from geometry, then instance, then ray flags.
#[test]
fn opacity_overrides() {
    let non = blas(&[(&front_tri(2.0), GeometryFlags::NONE)]);
    let opq = blas(&[(&front_tri(2.0), GeometryFlags::OPAQUE)]);
    let r = ray(O, DOWN);
    let cases = [
        // (geometry opaque, instance flags, ray flags, any-hit expected)
        (false, InstanceFlags::NONE, RayFlags::NONE, true),
        (true, InstanceFlags::NONE, RayFlags::NONE, false),
        (false, InstanceFlags::NONE, RayFlags::FORCE_OPAQUE, false),
        (true, InstanceFlags::NONE, RayFlags::FORCE_NON_OPAQUE, true),
        (false, InstanceFlags::FORCE_OPAQUE, RayFlags::NONE, false),
        (true, InstanceFlags::FORCE_NON_OPAQUE, RayFlags::NONE, true),
        // The ray's flags override the instance's.
        (
            false,
            InstanceFlags::FORCE_OPAQUE,
            RayFlags::FORCE_NON_OPAQUE,
            true,
        ),
        (
            true,
            InstanceFlags::FORCE_NON_OPAQUE,
            RayFlags::FORCE_OPAQUE,
            false,
        ),
    ];
    for (geo_opaque, iflags, rflags, any_hit) in cases {
        let b = if geo_opaque { &opq } else { &non };
        let t = tlas(&[InstanceDesc {
            flags: iflags,
            ..inst(b)
        }]);
        let (res, n) = trace(&t, &desc(rflags, r), AnyHitDecision::Accept);
        assert_eq!(n == 1, any_hit, "{geo_opaque} {iflags:?} {rflags:?}");
        assert_eq!(res.committed.unwrap().non_opaque, any_hit);
        let c = candidates(&t, rflags, r);
        assert_eq!(
            c.len() == 1,
            any_hit,
            "inline: {geo_opaque} {iflags:?} {rflags:?}"
        );
    }
}

/// "Ray flags" RAY_FLAG_CULL_OPAQUE / CULL_NON_OPAQUE: culled by the opacity the geometry
/// and instance flags give.
#[test]
fn cull_opaque_and_non_opaque() {
    let b = blas(&[
        (&front_tri(1.0), GeometryFlags::OPAQUE),
        (&front_tri(2.0), GeometryFlags::NONE),
    ]);
    let forced = tlas(&[InstanceDesc {
        flags: InstanceFlags::FORCE_OPAQUE,
        ..inst(&b)
    }]);
    let t = tlas(&[inst(&b)]);
    let r = ray(O, DOWN);
    let (res, _) = trace(&t, &desc(RayFlags::CULL_OPAQUE, r), AnyHitDecision::Accept);
    assert_eq!(res.committed.unwrap().geometry_index, 1);
    let (res, n) = trace(
        &t,
        &desc(RayFlags::CULL_NON_OPAQUE, r),
        AnyHitDecision::Accept,
    );
    assert_eq!((res.committed.unwrap().geometry_index, n), (0, 0));
    assert!(
        trace(
            &forced,
            &desc(RayFlags::CULL_OPAQUE, r),
            AnyHitDecision::Accept
        )
        .0
        .committed
        .is_none()
    );
}

/// "Ray flags" RAY_FLAG_CULL_BACK_FACING_TRIANGLES / CULL_FRONT_FACING_TRIANGLES, and
/// "D3D12_RAYTRACING_INSTANCE_FLAGS" TRIANGLE_CULL_DISABLE (which SKIP_TRIANGLES still
/// overrules).
#[test]
fn facing_culls_and_cull_disable() {
    let b = blas(&[(&front_tri(2.0), GeometryFlags::OPAQUE)]);
    let t = tlas(&[inst(&b)]);
    let off = tlas(&[InstanceDesc {
        flags: InstanceFlags::TRIANGLE_CULL_DISABLE,
        ..inst(&b)
    }]);
    let front = ray(O, DOWN);
    let back = ray([1.0, 1.0, 4.0], [0.0, 0.0, -1.0]);
    let mut tr = Tracer::new();
    let hit = |tr: &mut Tracer, t: &TopLevel, f, r| tr.closest_hit(t, f, 0xff, r);
    assert!(hit(&mut tr, &t, RayFlags::CULL_BACK_FACING_TRIANGLES, front).is_some());
    assert!(hit(&mut tr, &t, RayFlags::CULL_BACK_FACING_TRIANGLES, back).is_none());
    assert!(hit(&mut tr, &t, RayFlags::CULL_FRONT_FACING_TRIANGLES, front).is_none());
    assert!(hit(&mut tr, &t, RayFlags::CULL_FRONT_FACING_TRIANGLES, back).is_some());
    assert!(hit(&mut tr, &off, RayFlags::CULL_BACK_FACING_TRIANGLES, back).is_some());
    assert!(hit(&mut tr, &off, RayFlags::CULL_FRONT_FACING_TRIANGLES, front).is_some());
    assert!(hit(&mut tr, &off, RayFlags::SKIP_TRIANGLES, front).is_none());
}

/// "D3D12_RAYTRACING_INSTANCE_FLAGS" TRIANGLE_FRONT_COUNTERCLOCKWISE and "HitKind": front
/// faces are clockwise from the origin unless the instance reverses it; an instance
/// transform with a negative determinant changes nothing, a geometry transform does.
#[test]
fn facing_and_hit_kinds() {
    let b = blas(&[(&front_tri(2.0), GeometryFlags::OPAQUE)]);
    let mirror = Transform3x4([-1.0, 0.0, 0.0, 4.0, 0.0, 1.0, 0.0, 0.0, 0.0, 0.0, 1.0, 0.0]);
    let cases = [
        (InstanceFlags::NONE, Transform3x4::IDENTITY, true),
        (
            InstanceFlags::TRIANGLE_FRONT_COUNTERCLOCKWISE,
            Transform3x4::IDENTITY,
            false,
        ),
        (InstanceFlags::NONE, mirror, true),
        (
            InstanceFlags::TRIANGLE_FRONT_COUNTERCLOCKWISE,
            mirror,
            false,
        ),
    ];
    let mut tr = Tracer::new();
    for (flags, transform, front) in cases {
        let t = tlas(&[InstanceDesc {
            flags,
            transform,
            ..inst(&b)
        }]);
        let h = tr
            .closest_hit(&t, RayFlags::NONE, 0xff, ray([1.5, 1.0, 0.0], DOWN))
            .unwrap();
        assert_eq!(h.front_face, front, "{flags:?} {transform:?}");
        let kind = if front {
            HIT_KIND_TRIANGLE_FRONT_FACE
        } else {
            HIT_KIND_TRIANGLE_BACK_FACE
        };
        assert_eq!(h.hit_kind, kind);
        let back = tr
            .closest_hit(
                &t,
                RayFlags::NONE,
                0xff,
                ray([1.5, 1.0, 4.0], [0.0, 0.0, -1.0]),
            )
            .unwrap();
        assert_eq!(back.front_face, !front);
    }
    // A mirroring geometry transform flips the winding.
    let v = bytes(&front_tri(2.0));
    let flipped = Arc::new(
        BottomLevel::build(
            &[GeometryDesc {
                flags: GeometryFlags::OPAQUE,
                geometry: Geometry::Triangles(TrianglesDesc {
                    transform: Some(mirror),
                    index_format: IndexFormat::None,
                    index_count: 0,
                    indices: &[],
                    vertex_format: VertexFormat::R32G32B32_FLOAT,
                    vertex_count: 3,
                    vertices: &v,
                    vertex_stride: 12,
                }),
            }],
            &BuildOptions::default(),
        )
        .unwrap(),
    );
    let t = tlas(&[inst(&flipped)]);
    let h = tr
        .closest_hit(&t, RayFlags::NONE, 0xff, ray([3.0, 1.0, 0.0], DOWN))
        .unwrap();
    assert!(!h.front_face);
}

/// "Ray flags" RAY_FLAG_ACCEPT_FIRST_HIT_AND_END_SEARCH: the first accepted hit ends the
/// search; a hit the any-hit program ignores does not count.
#[test]
fn accept_first_hit_and_end_search() {
    let tris: Vec<[f32; 3]> = (1..=6).flat_map(|k| front_tri(k as f32)).collect();
    let opaque = tlas(&[inst(&blas(&[(&tris, GeometryFlags::OPAQUE)]))]);
    let non = tlas(&[inst(&blas(&[(&tris, GeometryFlags::NONE)]))]);
    let r = ray(O, DOWN);
    let f = RayFlags::ACCEPT_FIRST_HIT_AND_END_SEARCH;
    let mut tr = Tracer::new();
    tr.closest_hit(&opaque, f, 0xff, r).unwrap();
    // One commit, then nothing more is tested after it.
    let tested_first = tr.stats().primitives;
    tr.closest_hit(&opaque, RayFlags::NONE, 0xff, r).unwrap();
    assert!(
        tested_first < tr.stats().primitives,
        "{tested_first} vs {:?}",
        tr.stats()
    );
    let (res, n) = trace(&non, &desc(f, r), AnyHitDecision::Accept);
    assert_eq!(n, 1);
    assert!(res.committed.is_some());
    let (res, n) = trace(&non, &desc(f, r), AnyHitDecision::Ignore);
    assert_eq!((n, res.committed), (6, None));
    // Inline: the search ends once a hit is committed.
    let mut q = RayQuery::new();
    q.trace_ray_inline(Some(non.clone()), f, 0xff, r);
    assert!(q.proceed());
    q.commit_non_opaque_triangle_hit();
    assert!(!q.proceed());
    assert_eq!(q.committed_status(), CommittedStatus::TriangleHit);
}

/// "Ray flags" RAY_FLAG_SKIP_CLOSEST_HIT_SHADER: traversal is unchanged, the caller is
/// told to skip the closest-hit program.
#[test]
fn skip_closest_hit_shader() {
    let t = tlas(&[inst(&blas(&[(&front_tri(2.0), GeometryFlags::OPAQUE)]))]);
    let (res, _) = trace(
        &t,
        &desc(RayFlags::SKIP_CLOSEST_HIT_SHADER, ray(O, DOWN)),
        AnyHitDecision::Accept,
    );
    assert!(res.committed.is_some() && !res.run_closest_hit);
    let (res, _) = trace(
        &t,
        &desc(RayFlags::NONE, ray(O, DOWN)),
        AnyHitDecision::Accept,
    );
    assert!(res.run_closest_hit);
}

/// "Ray flags" RAY_FLAG_SKIP_TRIANGLES / SKIP_PROCEDURAL_PRIMITIVES, and
/// D3D12_RAYTRACING_PIPELINE_FLAGS: the pipeline's skip flags act without showing in
/// RayFlags().
#[test]
fn skip_triangles_and_procedurals() {
    let tri = blas(&[(&front_tri(2.0), GeometryFlags::OPAQUE)]);
    // In front of the triangle: a box behind a committed hit is never offered.
    let proc = aabbs(&[[0.0, 0.0, 0.5, 4.0, 4.0, 1.0]], GeometryFlags::OPAQUE);
    let t = tlas(&[inst(&tri), inst(&proc)]);
    let r = ray(O, DOWN);
    let kinds = |flags| -> Vec<PrimitiveKind> {
        let mut q = RayQuery::new();
        q.trace_ray_inline(Some(t.clone()), flags, 0xff, r);
        let mut out = Vec::new();
        while q.proceed() {
            out.push(q.candidate().unwrap().kind);
        }
        if q.committed_status() == CommittedStatus::TriangleHit {
            out.push(PrimitiveKind::Triangle);
        }
        out
    };
    assert_eq!(
        kinds(RayFlags::NONE),
        [PrimitiveKind::Procedural, PrimitiveKind::Triangle]
    );
    assert_eq!(kinds(RayFlags::SKIP_TRIANGLES), [PrimitiveKind::Procedural]);
    assert_eq!(
        kinds(RayFlags::SKIP_PROCEDURAL_PRIMITIVES),
        [PrimitiveKind::Triangle]
    );
    let mut seen = 0;
    let mut isect = |_: &Hit, rep: &mut HitReporter<'_, ()>| {
        seen += 1;
        assert_eq!(rep.ray_flags(), RayFlags::NONE);
    };
    let d = TraceRayDesc {
        pipeline_flags: RayFlags::SKIP_TRIANGLES,
        ..desc(RayFlags::NONE, r)
    };
    let res = trace_ray(Some(&t), &d, &mut NoPrograms, &mut isect);
    assert_eq!((seen, res.committed), (1, None));
}

/// "Preservation of triangle set", D3D12_RAYTRACING_GEOMETRY_FLAG_NO_DUPLICATE_ANYHIT_INVOCATION:
/// a ray crossing n non-opaque triangles invokes any-hit once per triangle (when every hit
/// is ignored, so TMax never shrinks), with the flag and without it.
#[test]
fn any_hit_counts_under_both_geometry_flags() {
    // Forty overlapping slanted triangles crossing the ray, spread over many leaves.
    let tris: Vec<[f32; 3]> = (0..40)
        .flat_map(|k| {
            let z = 1.0 + k as f32 * 0.25;
            [[-3.0, -3.0, z], [-3.0, 5.0, z + 0.5], [5.0, -3.0, z + 0.1]]
        })
        .collect();
    let r = ray([0.0, 0.0, 0.0], DOWN);
    for flags in [
        GeometryFlags::NONE,
        GeometryFlags::NO_DUPLICATE_ANYHIT_INVOCATION,
    ] {
        let t = tlas(&[inst(&blas(&[(&tris, flags)]))]);
        let mut prims = Vec::new();
        let mut ah = |h: &Hit, _: Option<&()>| {
            prims.push(h.primitive_index);
            AnyHitDecision::Ignore
        };
        let res = trace_ray(Some(&t), &desc(RayFlags::NONE, r), &mut ah, &mut NoPrograms);
        assert!(res.committed.is_none());
        prims.sort();
        assert_eq!(prims, (0..40).collect::<Vec<_>>(), "{flags:?}");
        // Accepting: every invocation is for a hit closer than all accepted before it.
        let mut ts = Vec::new();
        let mut ah = |h: &Hit, _: Option<&()>| {
            ts.push(h.t);
            AnyHitDecision::Accept
        };
        let res = trace_ray(Some(&t), &desc(RayFlags::NONE, r), &mut ah, &mut NoPrograms);
        assert!(ts.windows(2).all(|w| w[1] < w[0]), "{ts:?}");
        assert_eq!(res.committed.unwrap().primitive_index, 0);
    }
}

/// "Any hit shader", "AcceptHitAndEndSearch", "Intersection shader": an any-hit program
/// ending the search ends the intersection program too; procedural any-hits see the
/// reported attributes; opaque procedural hits skip any-hit.
#[test]
fn procedural_programs() {
    let non = aabbs(&[[0.0, 0.0, 1.0, 4.0, 4.0, 3.0]], GeometryFlags::NONE);
    let t = tlas(&[inst(&non)]);
    let mut anyhits = Vec::new();
    let mut ah = |h: &Hit, a: Option<&u32>| {
        anyhits.push((h.t, h.hit_kind, a.copied()));
        if h.hit_kind == 2 {
            AnyHitDecision::AcceptAndEndSearch
        } else {
            AnyHitDecision::Accept
        }
    };
    let mut outcomes = Vec::new();
    let mut isect = |c: &Hit, rep: &mut HitReporter<'_, u32>| {
        assert!(c.non_opaque && c.kind == PrimitiveKind::Procedural);
        assert_eq!(rep.t_current(), INF);
        outcomes.push(rep.report_hit(2.5, 1, 10));
        assert_eq!(rep.t_current(), 2.5);
        outcomes.push(rep.report_hit(2.0, 2, 20));
        assert!(rep.search_ended());
        outcomes.push(rep.report_hit(1.5, 3, 30));
    };
    let res = trace_ray(
        Some(&t),
        &desc(RayFlags::NONE, ray(O, DOWN)),
        &mut ah,
        &mut isect,
    );
    use ReportHitOutcome::*;
    assert_eq!(outcomes, [Accepted, AcceptedAndEnded, Rejected]);
    assert_eq!(anyhits, [(2.5, 1, Some(10)), (2.0, 2, Some(20))]);
    assert_eq!(res.attributes, Some(20));
    assert_eq!(res.committed.unwrap().hit_kind, 2);
    // Opaque: no any-hit.
    let opaque = tlas(&[inst(&aabbs(
        &[[0.0, 0.0, 1.0, 4.0, 4.0, 3.0]],
        GeometryFlags::OPAQUE,
    ))]);
    let mut n = 0;
    let mut ah = |_: &Hit, _: Option<&()>| {
        n += 1;
        AnyHitDecision::Accept
    };
    let mut isect = |_: &Hit, rep: &mut HitReporter<'_, ()>| {
        assert_eq!(rep.report_hit(2.0, 0, ()), Accepted);
    };
    let res = trace_ray(
        Some(&opaque),
        &desc(RayFlags::NONE, ray(O, DOWN)),
        &mut ah,
        &mut isect,
    );
    assert_eq!((n, res.committed.unwrap().t), (0, 2.0));
}

/// "RayQuery intrinsics", "TraceRayInline control flow": candidates, commits and the
/// accessors' values through the state machine.
#[test]
fn ray_query_state_machine() {
    let b = blas(&[
        (&front_tri(3.0), GeometryFlags::NONE),
        (
            &[front_tri(f32::NAN), front_tri(2.0)].concat(),
            GeometryFlags::NONE,
        ),
    ]);
    let p = aabbs(&[[0.0, 0.0, 5.0, 4.0, 4.0, 6.0]], GeometryFlags::OPAQUE);
    let scale = Transform3x4([2.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0, 0.0, 0.0, 0.0, 2.0, 0.0]);
    let t = tlas(&[
        InstanceDesc {
            blas: None,
            ..inst(&b)
        },
        InstanceDesc {
            transform: scale,
            instance_id: 0xabcdef,
            contribution_to_hit_group_index: 7,
            ..inst(&b)
        },
        InstanceDesc {
            instance_id: 9,
            ..inst(&p)
        },
    ]);
    let r = Ray {
        t_max: 100.0,
        ..ray([2.0, 2.0, 0.0], DOWN)
    };
    let mut q = RayQuery::new();
    q.trace_ray_inline(Some(t.clone()), RayFlags::NONE, 0xff, r);
    assert_eq!(q.committed_ray_t(), 100.0);
    assert_eq!(q.committed_status(), CommittedStatus::Nothing);
    assert_eq!(
        (q.world_ray_origin(), q.world_ray_direction(), q.ray_t_min()),
        (r.origin, r.direction, 0.0)
    );
    let mut seen = Vec::new();
    while q.proceed() {
        let c = q.candidate().unwrap();
        seen.push((c.instance_index, c.geometry_index, c.primitive_index, c.t));
        match q.candidate_type().unwrap() {
            CandidateType::NonOpaqueTriangle => {
                assert_eq!(
                    (c.instance_id, c.instance_contribution_to_hit_group_index),
                    (0xabcdef, 7)
                );
                // The object-space ray of a scaled instance; t is the same in both spaces.
                assert_eq!(c.object_ray_origin, [1.0, 1.0, 0.0]);
                assert_eq!(c.object_ray_direction, [0.0, 0.0, 0.5]);
                assert_eq!(c.object_to_world, scale);
                assert_eq!(c.world_to_object.0[0], 0.5);
                assert_eq!(c.object_to_world.to_4x3()[0], [2.0, 0.0, 0.0]);
                assert!(c.non_opaque && c.hit_kind == HIT_KIND_TRIANGLE_FRONT_FACE);
            }
            CandidateType::ProceduralPrimitive => {
                assert!(!q.candidate_procedural_primitive_non_opaque());
                assert_eq!(c.instance_id, 9);
                // Commits on the wrong candidate type do nothing.
                q.commit_non_opaque_triangle_hit();
                assert_eq!(q.committed_status(), CommittedStatus::Nothing);
                q.commit_procedural_primitive_hit(5.5);
            }
        }
    }
    // Nothing was committed before the box was reached, so all three were offered; the
    // NaN triangle (primitive 0 of geometry 1) is inactive but keeps its index.
    seen.sort_by(|a, b| a.3.total_cmp(&b.3));
    assert_eq!(seen, [(1, 1, 1, 4.0), (2, 0, 0, 5.0), (1, 0, 0, 6.0)]);
    assert_eq!(
        q.committed_status(),
        CommittedStatus::ProceduralPrimitiveHit
    );
    let c = q.committed().unwrap();
    assert_eq!((c.instance_index, c.instance_id, c.t), (2, 9, 5.5));
    // A triangle commit (twice: no further effect), then Abort: the search is over, the
    // committed hit stays.
    q.trace_ray_inline(Some(t.clone()), RayFlags::NONE, 0xff, r);
    assert!(q.proceed());
    let c = q.candidate().unwrap();
    assert_eq!(c.kind, PrimitiveKind::Triangle);
    q.commit_non_opaque_triangle_hit();
    q.commit_non_opaque_triangle_hit();
    assert_eq!(q.committed_ray_t(), c.t);
    assert_eq!(q.committed(), Some(c));
    q.abort();
    assert!(!q.proceed());
    assert_eq!(q.committed_status(), CommittedStatus::TriangleHit);
    // A new trace resets everything. Forced opaque, the triangles are committed without
    // stopping, and the box (behind t = 4) is never offered.
    q.trace_ray_inline(Some(t.clone()), RayFlags::FORCE_OPAQUE, 0xff, r);
    assert_eq!(q.committed_status(), CommittedStatus::Nothing);
    assert_eq!(q.ray_flags(), RayFlags::FORCE_OPAQUE);
    assert!(!q.proceed());
    let c = q.committed().unwrap();
    assert_eq!((c.t, c.geometry_index, c.primitive_index), (4.0, 1, 1));
    assert_eq!(c.barycentrics, [0.25, 0.25]);
}

/// Rays exactly through the vertices and edges of a mesh: how many triangles does each
/// hit? (Counted as candidates: every triangle is non-opaque and nothing is committed, so
/// every hit is offered.)
fn hits_per_ray(t: &Arc<TopLevel>, rays: &[Ray]) -> Vec<usize> {
    rays.iter()
        .map(|&r| candidates(t, RayFlags::FORCE_NON_OPAQUE, r).len())
        .collect()
}

/// Directions with power-of-two ratios, so that `p - k·d` and the shear are exact.
fn dyadic_dirs() -> Vec<[f32; 3]> {
    let mut out = Vec::new();
    for &a in &[-1.0f32, -0.5, -0.25, 0.0, 0.25, 0.5, 1.0] {
        for &b in &[-1.0f32, -0.5, 0.0, 0.5, 1.0] {
            for &c in &[1.0f32, 2.0, 4.0, -4.0, -1.0] {
                out.push([a, b, c]);
            }
        }
    }
    out
}

/// A closed fan of `n` triangles around `center` (a cone when `center` is raised), wound
/// consistently; `flip`: every other triangle wound the other way.
fn fan(center: [f32; 3], n: usize, flip: bool) -> Vec<[f32; 3]> {
    let ring: Vec<[f32; 3]> = (0..n)
        .map(|k| {
            let a = k as f64 / n as f64 * std::f64::consts::TAU;
            // Quantize to multiples of 1/64 so that sums stay exact.
            let q = |v: f64| ((v * 64.0).round() / 64.0) as f32;
            [q(2.0 * a.cos()), q(2.0 * a.sin()), 0.0]
        })
        .collect();
    (0..n)
        .flat_map(|k| {
            let a = ring[k];
            let b = ring[(k + 1) % n];
            if flip && k % 2 == 1 {
                [center, a, b]
            } else {
                [center, b, a]
            }
        })
        .collect()
}

/// "Fixed function ray-triangle intersection specification", "Watertightness", "Top-left
/// rule": a ray through a vertex shared by a fan of triangles hits exactly one of them,
/// from every direction, planar or not, with consistent or mixed winding.
#[test]
fn shared_vertex_hits_exactly_one() {
    let mut checked = 0;
    for (center, n, flip) in [
        ([0.0, 0.0, 0.0], 6, false),
        ([0.0, 0.0, 0.0], 5, true),
        ([0.0, 0.0, 1.0], 7, false),
        ([0.0, 0.0, -0.5], 8, true),
    ] {
        let t = tlas(&[inst(&blas(&[(&fan(center, n, flip), GeometryFlags::NONE)]))]);
        let rays: Vec<Ray> = dyadic_dirs()
            .into_iter()
            // Rays that see the fan from above or below, not along its (cone) surface.
            .filter(|d| {
                d[2].abs() >= 4.0 * (d[0].abs().max(d[1].abs()))
                    || (center[2] == 0.0 && d[2] != 0.0)
            })
            .map(|d| ray([0, 1, 2].map(|k| center[k] - 8.0 * d[k]), d))
            .collect();
        let counts = hits_per_ray(&t, &rays);
        for (r, c) in rays.iter().zip(&counts) {
            assert_eq!(*c, 1, "fan {center:?} n={n} flip={flip}: {r:?}");
        }
        checked += counts.len();
    }
    assert!(checked > 200, "{checked}");
}

/// The same rule for edges and vertices of a grid of triangles, with rays exactly through
/// every vertex, every edge midpoint and every quarter point of the edges, from many
/// directions, and instanced under a transform (watertightness holds within a
/// bottom-level structure whatever the instance transform: "Watertightness").
#[test]
fn shared_edges_of_a_grid_hit_exactly_one() {
    const N: usize = 5;
    // Vertex heights on a 1/16 grid, so that midpoints and quarter points are exact.
    let h = |i: usize, j: usize| ((i * 7 + j * 3) % 5) as f32 / 16.0;
    let p = |i: usize, j: usize| [i as f32, j as f32, h(i, j)];
    let mut tris = Vec::new();
    let mut edges = Vec::new();
    for i in 0..N {
        for j in 0..N {
            let (a, b, c, d) = (p(i, j), p(i + 1, j), p(i + 1, j + 1), p(i, j + 1));
            // Alternate the diagonal.
            if (i + j) % 2 == 0 {
                tris.extend([a, d, c, a, c, b]);
                edges.push((a, c));
            } else {
                tris.extend([a, d, b, b, d, c]);
                edges.push((b, d));
            }
            if i > 0 {
                edges.push((a, d));
            }
            if j > 0 {
                edges.push((a, b));
            }
        }
    }
    let b = blas(&[(&tris, GeometryFlags::NONE)]);
    let rot = Transform3x4([0.0, -1.0, 0.0, 3.0, 1.0, 0.0, 0.0, -2.0, 0.0, 0.0, 1.0, 0.5]);
    let mut points = Vec::new();
    for i in 1..N {
        for j in 1..N {
            points.push(p(i, j));
        }
    }
    for (a, c) in &edges {
        for w in [0.25f32, 0.5, 0.75] {
            points.push([0, 1, 2].map(|k| a[k] + w * (c[k] - a[k])));
        }
    }
    let mut checked = 0;
    for transform in [Transform3x4::IDENTITY, rot] {
        let t = tlas(&[InstanceDesc {
            transform,
            ..inst(&b)
        }]);
        let mut rays = Vec::new();
        for q in &points {
            let q = transform.transform_point(*q);
            for d in dyadic_dirs() {
                if d[2].abs() < 2.0 * d[0].abs().max(d[1].abs()) {
                    continue; // grazing the surface, whose slopes reach 0.25
                }
                rays.push(ray([0, 1, 2].map(|k| q[k] - 4.0 * d[k]), d));
            }
        }
        let counts = hits_per_ray(&t, &rays);
        for (r, c) in rays.iter().zip(&counts) {
            assert_eq!(*c, 1, "{r:?} under {transform:?}");
        }
        checked += counts.len();
    }
    assert!(checked > 10_000, "{checked}");
}

/// "Determinism based on fixed acceleration structure build input": the same inputs give
/// the same candidates in the same order, whatever the build's thread count.
#[test]
fn same_candidates_in_the_same_order_for_any_thread_count() {
    let mut s = 42u64;
    let mut r = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as f32 / (1u64 << 24) as f32
    };
    let verts: Vec<[f32; 3]> = (0..3 * 40_000)
        .map(|k| {
            if k % 3 == 0 {
                [r() * 10.0, r() * 10.0, r() * 10.0]
            } else {
                [r(), r(), r()]
            }
        })
        .scan([0.0f32; 3], |base, v| {
            if v[0] > 1.0 || v[1] > 1.0 || v[2] > 1.0 {
                *base = v;
                Some(v)
            } else {
                Some([
                    base[0] + v[0] - 0.5,
                    base[1] + v[1] - 0.5,
                    base[2] + v[2] - 0.5,
                ])
            }
        })
        .collect();
    let data = bytes(&verts);
    let build = |threads| {
        let desc = GeometryDesc {
            flags: GeometryFlags::NONE,
            geometry: Geometry::Triangles(TrianglesDesc {
                transform: None,
                index_format: IndexFormat::None,
                index_count: 0,
                indices: &[],
                vertex_format: VertexFormat::R32G32B32_FLOAT,
                vertex_count: verts.len() as u32,
                vertices: &data,
                vertex_stride: 12,
            }),
        };
        let opts = BuildOptions {
            threads,
            ..BuildOptions::default()
        };
        let b = Arc::new(BottomLevel::build(&[desc], &opts).unwrap());
        Arc::new(TopLevel::build(&[inst(&b)], &opts).unwrap())
    };
    let one = build(1);
    let three = build(3);
    let mut total = 0;
    for k in 0..50 {
        let o = [-1.0, k as f32 * 0.2, 5.0];
        let rr = ray(o, [1.0, 0.01 * k as f32, 0.05]);
        let a = candidates(&one, RayFlags::NONE, rr);
        assert_eq!(a, candidates(&three, RayFlags::NONE, rr));
        total += a.len();
    }
    assert!(total > 100, "{total}");
}

/// Untrusted input: NaN, infinite, enormous and degenerate triangles, random bytes in
/// every vertex format, and hostile rays build and trace without a panic.
#[test]
fn hostile_geometry_never_panics() {
    let big = 3.0e38f32;
    let tris = [
        [[-big, -big, 1.0], [-big, big, 1.0], [big, 0.0, 1.0]],
        [[f32::INFINITY, 0.0, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]],
        [[0.0, f32::NAN, 0.0], [0.0, 1.0, 0.0], [1.0, 0.0, 0.0]],
        [[1e-40, 0.0, 0.0], [0.0, 1e-40, 0.0], [0.0, 0.0, 0.0]],
        [[1.0, 1.0, 1.0], [1.0, 1.0, 1.0], [1.0, 1.0, 1.0]],
    ];
    let flat: Vec<[f32; 3]> = tris.iter().flatten().copied().collect();
    let t = tlas(&[inst(&blas(&[(&flat, GeometryFlags::NONE)]))]);
    for r in [
        ray(O, DOWN),
        ray([big, big, -big], [-1.0, -1.0, 1.0]),
        ray([0.0, 0.0, 0.0], [1e-30, 1e-30, 1e-30]),
        ray([1e30, 0.0, 0.0], [-1.0, 1e-20, 0.0]),
    ] {
        let _ = candidates(&t, RayFlags::NONE, r);
        let _ = Tracer::new().closest_hit(&t, RayFlags::NONE, 0xff, r);
    }
    let mut s = 7u64;
    let mut rnd = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        s
    };
    for _ in 0..300 {
        let fmt = VertexFormat::ALL[(rnd() % 13) as usize];
        let n = (rnd() % 64) as usize;
        let data: Vec<u8> = (0..n * 12).map(|_| rnd() as u8).collect();
        let idx: Vec<u8> = (0..n * 2).map(|_| (rnd() % 8) as u8).collect();
        let indexed = rnd() % 2 == 0;
        let desc = GeometryDesc {
            flags: GeometryFlags(rnd() as u32),
            geometry: Geometry::Triangles(TrianglesDesc {
                transform: (rnd() % 3 == 0)
                    .then(|| Transform3x4(std::array::from_fn(|_| f32::from_bits(rnd() as u32)))),
                index_format: if indexed {
                    IndexFormat::R16_UINT
                } else {
                    IndexFormat::None
                },
                index_count: if indexed { (n / 3 * 3) as u32 } else { 0 },
                indices: &idx,
                vertex_format: fmt,
                vertex_count: (rnd() % (n as u64 + 1)) as u32,
                vertices: &data,
                vertex_stride: rnd() % 16,
            }),
        };
        if let Ok(b) = BottomLevel::build(&[desc], &BuildOptions::default()) {
            let b = Arc::new(b);
            let transform = Transform3x4(std::array::from_fn(|_| (rnd() % 7) as f32 - 3.0));
            let t = tlas(&[InstanceDesc {
                transform,
                ..inst(&b)
            }]);
            let o = [0, 1, 2].map(|_| f32::from_bits(rnd() as u32 & 0xbfff_ffff));
            let d = [0, 1, 2].map(|_| (rnd() % 5) as f32 - 2.0);
            let _ = candidates(&t, RayFlags(rnd() as u32 & 0x3ff), ray(o, d));
        }
    }
}

/// A scene for holding the wide bottom-level walk to the binary one: opaque and
/// non-opaque triangle clusters, a planar grid of shared edges, opaque and non-opaque
/// boxes, under identity, rotated, scaled and mirrored instances.
fn mixed_scene(seed: u64) -> Arc<TopLevel> {
    let mut s = seed;
    let mut r = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as f32 / (1u64 << 24) as f32
    };
    let mut cluster = |n: usize| -> Vec<[f32; 3]> {
        let mut out = Vec::with_capacity(3 * n);
        for _ in 0..n {
            let base = [r() * 20.0 - 10.0, r() * 20.0 - 10.0, r() * 20.0 - 10.0];
            for _ in 0..3 {
                out.push([0, 1, 2].map(|k| base[k] + r() * 2.0 - 1.0));
            }
        }
        out
    };
    let opaque = cluster(3000);
    let see_through = cluster(3000);
    let mut grid = Vec::new();
    for i in 0..24 {
        for j in 0..24 {
            let p = |a: usize, b: usize| [a as f32 - 12.0, b as f32 - 12.0, 0.5];
            let (a, b, c, d) = (p(i, j), p(i + 1, j), p(i + 1, j + 1), p(i, j + 1));
            grid.extend([a, b, c, a, c, d]);
        }
    }
    let tris = blas(&[
        (&opaque, GeometryFlags::OPAQUE),
        (&see_through, GeometryFlags::NONE),
        (&grid, GeometryFlags::NONE),
    ]);
    let mut boxes = Vec::new();
    for _ in 0..600 {
        let p = [r() * 20.0 - 10.0, r() * 20.0 - 10.0, r() * 20.0 - 10.0];
        let e = [r() * 1.5, r() * 1.5, r() * 1.5];
        boxes.push([p[0], p[1], p[2], p[0] + e[0], p[1] + e[1], p[2] + e[2]]);
    }
    let (solid, hollow) = boxes.split_at(300);
    let solid = aabbs(solid, GeometryFlags::OPAQUE);
    let hollow = aabbs(hollow, GeometryFlags::NONE);
    let place = |b: &Arc<BottomLevel>, m: [f32; 12]| InstanceDesc {
        transform: Transform3x4(m),
        ..inst(b)
    };
    tlas(&[
        inst(&tris),
        place(
            &tris,
            [
                0.0, -1.0, 0.0, 3.0, 1.5, 0.0, 0.0, -2.0, 0.0, 0.0, -1.0, 4.0,
            ],
        ),
        inst(&solid),
        place(
            &hollow,
            [0.8, 0.0, 0.0, 1.0, 0.0, 1.2, 0.0, 0.0, 0.0, 0.0, 0.9, -1.0],
        ),
    ])
}

/// A deterministic choice for candidate `k` of ray `i`.
fn choice(i: usize, k: usize) -> u64 {
    let mut h = (i as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ (k as u64 + 1);
    h ^= h >> 29;
    h = h.wrapping_mul(0xbf58_476d_1ce4_e5b9);
    h ^ (h >> 32)
}

fn mixed_rays(seed: u64, n: usize) -> Vec<Ray> {
    let mut s = seed;
    let mut r = move || {
        s ^= s << 13;
        s ^= s >> 7;
        s ^= s << 17;
        (s >> 40) as f32 / (1u64 << 24) as f32
    };
    (0..n)
        .map(|i| {
            let o = [r() * 40.0 - 20.0, r() * 40.0 - 20.0, r() * 40.0 - 20.0];
            // A third of the rays aim exactly at a vertex or an edge's midpoint of the grid.
            let target = if i % 3 == 0 {
                let (a, b) = ((r() * 24.0) as i32 - 12, (r() * 24.0) as i32 - 12);
                let half = if i % 2 == 0 { 0.5 } else { 0.0 };
                [a as f32 + half, b as f32, 0.5]
            } else {
                [r() * 20.0 - 10.0, r() * 20.0 - 10.0, r() * 20.0 - 10.0]
            };
            Ray {
                origin: o,
                t_min: if i % 4 == 1 { 0.3 } else { 0.0 },
                direction: [0, 1, 2].map(|k| target[k] - o[k]),
                t_max: if i % 5 == 2 { 0.9 } else { INF },
            }
        })
        .collect()
}

/// Everything an inline query shows of ray `i`: each candidate, the committed state
/// after the caller's choice, and the work counts. Triangles are committed or not,
/// procedural hits committed at `t` beyond the committed one as often as within it (the
/// spec leaves the range to the program), and some queries abort.
fn query_log(mut q: RayQuery, t: &Arc<TopLevel>, i: usize, flags: RayFlags, r: Ray) -> String {
    use std::fmt::Write;
    let mut log = String::new();
    q.trace_ray_inline(Some(t.clone()), flags, 0xff, r);
    let mut k = 0;
    while q.proceed() {
        let c = q.candidate().unwrap();
        let h = choice(i, k);
        match q.candidate_type() {
            Some(CandidateType::NonOpaqueTriangle) if h % 3 != 0 => {
                q.commit_non_opaque_triangle_hit()
            }
            Some(CandidateType::ProceduralPrimitive) if h % 4 != 0 => {
                q.commit_procedural_primitive_hit(c.t + (h % 7) as f32 * 0.5)
            }
            _ => {}
        }
        let _ = writeln!(
            log,
            "{c:?} -> {:?} {}",
            q.committed_status(),
            q.committed_ray_t()
        );
        if h % 41 == 0 {
            q.abort();
        }
        k += 1;
    }
    let _ = writeln!(log, "{:?} {:?}", q.committed(), q.stats());
    log
}

/// Everything `TraceRay` shows of ray `i`: each any-hit and intersection call in order
/// with its verdict, and the result.
fn trace_log(mut tracer: Tracer, t: &TopLevel, i: usize, flags: RayFlags, r: Ray) -> String {
    let log = std::cell::RefCell::new(String::new());
    let k = std::cell::Cell::new(0);
    let mut any_hit = |h: &Hit, a: Option<&u32>| {
        let n = choice(i, k.replace(k.get() + 1));
        let d = match n % 5 {
            0 => AnyHitDecision::Ignore,
            1 if n % 3 == 0 => AnyHitDecision::AcceptAndEndSearch,
            _ => AnyHitDecision::Accept,
        };
        log.borrow_mut()
            .push_str(&format!("any {h:?} {a:?} {d:?}\n"));
        d
    };
    let mut intersection = |h: &Hit, rep: &mut HitReporter<'_, u32>| {
        let n = choice(i, k.replace(k.get() + 1));
        for j in 0..(n % 3) {
            let out = rep.report_hit(h.t + j as f32 * 0.25, 7, j as u32);
            log.borrow_mut()
                .push_str(&format!("report {h:?} {j} {out:?}\n"));
            if rep.search_ended() {
                break;
            }
        }
    };
    let res = tracer.trace_ray(Some(t), &desc(flags, r), &mut any_hit, &mut intersection);
    let mut out = log.into_inner();
    out.push_str(&format!("{res:?}\n"));
    out
}

/// The wide bottom-level walk (`bvh::Wide`) offers the same candidates in the same order
/// as the binary walk it replaced, with the same committed hits and work counts, under
/// inline queries (with commits beyond the committed `t`, which the DXR spec's
/// "CommitProceduralPrimitiveHit" leaves to the program, and aborts), `TraceRay` with
/// any-hit and intersection programs, and ray flags; dxlane's order is the documented
/// hierarchy order (`docs/raytracing.md`, "Order of candidates and any-hit
/// invocations").
#[test]
fn wide_walk_is_the_binary_walk() {
    let flag_sets = [
        RayFlags::NONE,
        RayFlags::ACCEPT_FIRST_HIT_AND_END_SEARCH,
        RayFlags::CULL_BACK_FACING_TRIANGLES,
        RayFlags::FORCE_OPAQUE,
        RayFlags::FORCE_NON_OPAQUE | RayFlags::CULL_FRONT_FACING_TRIANGLES,
    ];
    let (mut candidates_seen, mut nodes) = (0usize, 0u64);
    for seed in [3u64, 17] {
        let t = mixed_scene(seed);
        for (i, r) in mixed_rays(seed * 7 + 1, 400).into_iter().enumerate() {
            let flags = flag_sets[i % flag_sets.len()];
            let wide = query_log(RayQuery::new(), &t, i, flags, r);
            assert_eq!(
                wide,
                query_log(RayQuery::binary_reference(), &t, i, flags, r),
                "ray {i} {r:?} {flags:?}"
            );
            candidates_seen += wide.lines().count() - 1;
            let wide = trace_log(Tracer::new(), &t, i, flags, r);
            assert_eq!(
                wide,
                trace_log(Tracer::binary_reference(), &t, i, flags, r),
                "ray {i} {r:?} {flags:?}"
            );
            let mut a = Tracer::new();
            let mut b = Tracer::binary_reference();
            assert_eq!(
                a.closest_hit(&t, flags, 0xff, r),
                b.closest_hit(&t, flags, 0xff, r)
            );
            assert_eq!(a.stats(), b.stats());
            nodes += a.stats().nodes;
        }
    }
    // Enough happened for the comparison to mean something.
    assert!(candidates_seen > 600, "{candidates_seen}");
    assert!(nodes > 20_000, "{nodes}");
}
