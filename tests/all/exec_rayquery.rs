//! Inline ray queries run through the IR's `rq_*` instructions in jobs (a hand-written
//! IR program, both engines) on hostile rays and in wrong states, against the same
//! queries made directly with `raytracing::RayQuery`; and traversal charged to the
//! budget. Sources: the DXR functional spec sections named in each test.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use dxlane::job::run_job;
use dxlane::raytracing::{
    BottomLevel, BuildOptions, CommittedStatus, Geometry, GeometryDesc, GeometryFlags, IndexFormat,
    InstanceDesc, InstanceFlags, Ray, RayFlags, RayQuery, TopLevel, Transform3x4, TrianglesDesc,
    VertexFormat,
};

use crate::common;

/// Thread i reads element i of t1, eight words: origin, direction, a mode and ray flags. It
/// allocates a query (template flags 0), traces through t0 (t from 0 to 100, mask 0xff)
/// with those flags; mode 1 aborts before the first `Proceed()`, mode 2 traces through
/// t1 (a buffer, not a structure). It commits every non-opaque triangle it is offered
/// and writes `out[4 i..]`: the committed status, `CommittedRayT()`, the committed
/// primitive index, and what one more `Proceed()` returns (0: the query is over).
pub(crate) const PROGRAM: &str = r#"shader compute
group [8 1 1]
const r0 = 0
const r1 = 8
const r2 = 4
const r3 = 1
const r4 = 2
const r5 = 255
const r6 = 100.0
const r7 = 0.0
const r8 = 3
const r9 = 16
resource range0 = srv space 0 lower 0 count 1 acceleration_structure mixed "scene"
resource range1 = srv space 0 lower 1 count 1 structured_buffer(stride 32) uint "rays"
resource range2 = uav space 0 lower 0 count 1 structured_buffer(stride 4) uint "out"
block0:
    sysval thread_id, 0, r10
    handle r11, range0, r0
    handle r12, range1, r0
    handle r13, range2, r0
    struct_load b32, 15, [r20 r21 r22 r23], r12, r10, r0
    struct_load b32, 15, [r24 r25 r26 r27], r12, r10, r9
    rq_alloc 0, 0, r30
    icmp eq, r31, r26, r4
    select r32, r31, r12, r11
    rq_trace r30, r32, r27, r5, [r20 r21 r22 r7 r23 r24 r25 r6]
    icmp eq, r33, r26, r3
    branch r33, block1, block2
block1:
    rq_control abort, r30, _
    jump block2
block2:
    rq_proceed r34, r30
    branch r34, block3, block4
block3:
    rq_get candidate_type, 0, r35, r30
    rq_control commit_triangle, r30, _
    jump block2
block4:
    rq_get committed_status, 0, r40, r30
    rq_get committed_ray_t, 0, r41, r30
    rq_get committed_primitive_index, 0, r42, r30
    rq_proceed r43, r30
    imul r44, r10, r2
    struct_store b32, 1, r13, r44, r0, [r40 _ _ _]
    iadd r45, r44, r3
    struct_store b32, 1, r13, r45, r0, [r41 _ _ _]
    iadd r46, r44, r4
    struct_store b32, 1, r13, r46, r0, [r42 _ _ _]
    iadd r47, r44, r8
    struct_store b32, 1, r13, r47, r0, [r43 _ _ _]
    return
"#;

/// The scene the job builds: one non-opaque geometry, the unit square's two triangles
/// (0,0,0) (1,0,0) (0,1,0) and (1,0,0) (1,1,0) (0,1,0), instance at z = 5.
const SCENE: &str = r#"
[[acceleration_structure]]
name = "square"
level = "bottom"
[[acceleration_structure.geometry]]
type = "triangles"
vertices = { f32 = [0, 0, 0,  1, 0, 0,  0, 1, 0,  1, 1, 0] }
indices = { u32 = [0, 1, 2,  1, 3, 2] }
"#;

/// The same scene, built directly.
fn scene() -> Arc<TopLevel> {
    let v: Vec<u8> = [0f32, 0., 0., 1., 0., 0., 0., 1., 0., 1., 1., 0.]
        .iter()
        .flat_map(|f| f.to_le_bytes())
        .collect();
    let i: Vec<u8> = [0u32, 1, 2, 1, 3, 2]
        .iter()
        .flat_map(|x| x.to_le_bytes())
        .collect();
    let blas = BottomLevel::build(
        &[GeometryDesc {
            flags: GeometryFlags::NONE,
            geometry: Geometry::Triangles(TrianglesDesc {
                transform: None,
                index_format: IndexFormat::R32_UINT,
                index_count: 6,
                indices: &i,
                vertex_format: VertexFormat::R32G32B32_FLOAT,
                vertex_count: 4,
                vertices: &v,
                vertex_stride: 12,
            }),
        }],
        &BuildOptions::default(),
    )
    .unwrap();
    let mut t = Transform3x4::IDENTITY;
    t.0[11] = 5.0;
    Arc::new(
        TopLevel::build(
            &[InstanceDesc {
                transform: t,
                instance_id: 0,
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

/// One ray of the test: origin, direction, mode, flags.
type Case = ([f32; 3], [f32; 3], u32, u32);

/// What `raytracing::RayQuery` answers for a case, as the program writes it.
fn direct(tlas: &Arc<TopLevel>, c: &Case) -> [u32; 4] {
    let mut q = RayQuery::new();
    let structure = (c.2 != 2).then(|| tlas.clone());
    q.trace_ray_inline(
        structure,
        RayFlags(c.3),
        0xff,
        Ray {
            origin: c.0,
            t_min: 0.0,
            direction: c.1,
            t_max: 100.0,
        },
    );
    if c.2 == 1 {
        q.abort();
    }
    while q.proceed() {
        q.commit_non_opaque_triangle_hit();
    }
    let status = q.committed_status();
    [
        status as u32,
        q.committed_ray_t().to_bits(),
        q.committed().map_or(0, |h| h.primitive_index),
        u32::from(q.proceed()),
    ]
}

/// Writes the program and a job over `cases` into a fresh folder; returns the job path.
fn stage(name: &str, cases: &[Case], options: &str) -> PathBuf {
    let dir = common::scratch().join("exec_rayquery").join(name);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    // One thread per case, so a one-case run counts one lane's instructions.
    let program = PROGRAM.replace("group [8 1 1]", &format!("group [{} 1 1]", cases.len()));
    std::fs::write(dir.join("rq.ir"), program).unwrap();
    let mut words = Vec::new();
    for c in cases {
        words.extend(c.0.iter().map(|f| format!("\"{:#x}\"", f.to_bits())));
        words.extend(c.1.iter().map(|f| format!("\"{:#x}\"", f.to_bits())));
        words.push(format!("\"{:#x}\"", c.2));
        words.push(format!("\"{:#x}\"", c.3));
    }
    let scene = SCENE;
    let job = format!(
        r#"[program]
cs = "rq.ir"
[dispatch]
groups = [1, 1, 1]
{options}
{scene}
[[acceleration_structure]]
name = "scene"
level = "top"
[[acceleration_structure.instance]]
blas = "square"
transform = [1, 0, 0, 0,  0, 1, 0, 0,  0, 0, 1, 5]
[[resource]]
reg = "t0"
kind = "acceleration_structure"
acceleration_structure = "scene"
[[resource]]
reg = "t1"
kind = "structured_buffer"
stride = 32
size = 256
data = {{ f32 = [{}] }}
[[resource]]
reg = "u0"
kind = "structured_buffer"
stride = 4
size = 128
"#,
        words.join(", ")
    );
    let path = dir.join("rq.toml");
    std::fs::write(&path, job).unwrap();
    path
}

/// The `u0` words after running the job at `path` under both engines (equal).
fn run(path: &Path, tag: &str) -> Vec<u32> {
    let r =
        common::run_job_both(path, tag, common::run_options()).unwrap_or_else(|e| panic!("{e}"));
    let u0 = r
        .bound
        .resources
        .iter()
        .find(|e| e.reg.map(|g| g.to_string()).as_deref() == Some("u0"))
        .unwrap();
    u0.contents()
        .unwrap()
        .chunks(4)
        .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
        .collect()
}

/// Hits, a miss, NaN and infinite origins and directions (DXR spec "Ray extents": the
/// traversal's choice is that they miss), a zero direction, `Proceed()` after `Abort()`
/// ("RayQuery intrinsics": the query is over), a trace through a buffer's handle (no
/// structure: a miss), and `RAY_FLAG_CULL_BACK_FACING_TRIANGLES` on a back face ("Ray
/// flags"): every case as `raytracing::RayQuery` answers it, and never a panic.
#[test]
fn ray_queries_in_a_program_match_the_traversal() {
    let up = [0.0, 0.0, 1.0];
    let cases: [Case; 8] = [
        ([0.25, 0.25, 0.0], up, 0, 0),
        ([0.75, 0.75, 0.0], up, 0, 0),
        ([2.0, 2.0, 0.0], up, 0, 0),
        ([f32::NAN, 0.25, 0.0], up, 0, 0),
        ([0.25, 0.25, 0.0], [0.0, f32::INFINITY, 1.0], 0, 0),
        ([0.25, 0.25, 0.0], [0.0, 0.0, 0.0], 0, 0),
        ([0.25, 0.25, 0.0], up, 1, 0),
        ([0.25, 0.25, 0.0], up, 2, 0),
    ];
    let got = run(&stage("hostile", &cases, ""), "exec_rayquery/hostile");
    let tlas = scene();
    let mut want = Vec::new();
    for c in &cases {
        want.extend(direct(&tlas, c));
    }
    assert_eq!(got, want);
    // The hand-derived part: rays 0 and 1 hit triangles 0 and 1 at t = 5, the rest miss
    // with CommittedRayT() = TMax = 100.
    let hits: Vec<(u32, u32)> = got.chunks(4).map(|w| (w[0], w[2])).collect();
    assert_eq!(hits[0], (CommittedStatus::TriangleHit as u32, 0));
    assert_eq!(hits[1], (CommittedStatus::TriangleHit as u32, 1));
    assert_eq!(f32::from_bits(got[1]), 5.0);
    for (k, w) in got.chunks(4).enumerate().skip(2) {
        assert_eq!((w[0], f32::from_bits(w[1]), w[3]), (0, 100.0, 0), "ray {k}");
    }
    // Back faces culled, through the program's dynamic flags.
    let culled: [Case; 1] = [(
        [0.25, 0.25, 0.0],
        up,
        0,
        RayFlags::CULL_BACK_FACING_TRIANGLES.0,
    )];
    let got = run(&stage("culled", &culled, ""), "exec_rayquery/culled");
    assert_eq!(&got[..4], &direct(&tlas, &culled[0]));
    assert_eq!(got[0], 0);
}

/// Lane-instructions of a one-thread run of `case` under the interpreter with budget
/// `budget`, or the error.
fn lane_instructions(name: &str, case: Case, budget: u64) -> Result<u64, String> {
    let path = stage(
        name,
        &[case],
        &format!("[options]\nmax_lane_instructions = {budget}\nengine = \"interp\""),
    );
    run_job(&path, &common::run_options())
        .map(|r| r.summary.lane_instructions)
        .map_err(|e| e.to_string())
}

/// Each `Proceed()` charges the nodes, instances and primitives it visited to the lane:
/// a hit ray's run counts exactly the traversal's work more than a run through a buffer
/// handle (no structure, no work) beyond the one more loop iteration it takes (its
/// `rq_proceed` and `branch`, then `rq_get`, `rq_control` and `jump`: 5); a budget that
/// covers the program's instructions but not the traversal stops the run.
#[test]
fn traversal_is_charged_to_the_budget() {
    let up = [0.0, 0.0, 1.0];
    let hit: Case = ([0.25, 0.25, 0.0], up, 0, 0);
    let none: Case = ([0.25, 0.25, 0.0], up, 2, 0);
    let with = lane_instructions("budget_hit", hit, 10_000).unwrap();
    let without = lane_instructions("budget_none", none, 10_000).unwrap();
    let mut q = RayQuery::new();
    q.trace_ray_inline(
        Some(scene()),
        RayFlags::NONE,
        0xff,
        Ray {
            origin: hit.0,
            t_min: 0.0,
            direction: up,
            t_max: 100.0,
        },
    );
    while q.proceed() {
        q.commit_non_opaque_triangle_hit();
    }
    let s = q.stats();
    let work = s.nodes + s.instances + s.primitives;
    assert!(work > 0);
    assert_eq!(with, without + 5 + work, "traversal work {work}");
    // The program's own instructions for the hit path, without the traversal.
    let e = lane_instructions("budget_short", hit, without + 5).unwrap_err();
    assert!(e.contains("budget") || e.contains("instruction"), "{e}");
    assert_eq!(lane_instructions("budget_exact", hit, with).unwrap(), with);
}
