//! The lane debugger and `compare` inside a command list's `dispatch_rays` whose shader
//! tables a command writes (docs/raytracing.md, "Shader tables in buffers"; D3D12 reads a
//! `D3D12_DISPATCH_RAYS_DESC`'s tables when the GPU executes the command). The list:
//!
//! 1. `copy_buffer_region` of the shader records from `staging` into `table`, which
//!    starts zeroed (a zero record is no shader identifier, so the launch can only be
//!    made from the table as the copy leaves it);
//! 2. `dispatch_rays` over the corpus's `ray_tracing` libraries, DispatchRays(4, 2, 1),
//!    its ray-generation record, miss, hit-group and callable tables in `table`;
//! 3. a `dispatch` of `shaders/indirect_fill.hlsl` (thread i writes 3i + 1 to `values`).
//!
//! The launch is `tests/jobs/corpus/ray_tracing_table.toml`'s, whose header works out
//! every value from the DXR functional spec: ray (i, j) starts at ((i + 0.5) / 4,
//! (j + 0.5) / 2, 0) along +z; the triangle (0,0,0) (1,0,0) (0,1,0) moved to z = 5 is hit
//! by rays (0, 0), (1, 0), (2, 0) and (0, 1) at t = 5; the closest-hit program leaves
//! the distance `RayTCurrent() + RayTMin()` = 5 + 0.001 = 5.001 (f32 0x40a00831). The
//! ray-generation program lists its `TraceRay` at listing line 58 (`dxlane disasm
//! target/corpora/dxil-reader/ray_tracing.raygen.dxil`).

use std::path::{Path, PathBuf};
use std::process::Command;

use serde_json::json;

use dxlane::dxil::dxop::DxOp;
use dxlane::dxil::llvm::ValueId;

use crate::common;
use crate::cornell::make::{L, RAYGEN, Res};

/// The folder holding the corpus ray library (`ray_tracing.<export>.dxil`), or `None`
/// only when the corpora are turned off (`DXLANE_NO_CORPORA`, said on stderr).
fn library_dir() -> Option<PathBuf> {
    if common::corpora().is_empty() {
        eprintln!("SKIPPED rays_list_debug: the corpora are turned off");
        return None;
    }
    let own = common::root().join("target/corpora/dxil-reader");
    if own.join("ray_tracing.raygen.dxil").exists() {
        return Some(own);
    }
    Some(
        common::corpora()
            .iter()
            .find(|d| d.join("ray_tracing.raygen.dxil").exists())
            .cloned()
            .expect("the corpora are fetched but ray_tracing.raygen.dxil is missing"),
    )
}

/// The list of the module doc, written as `list.toml` in a fresh folder named `tag`;
/// `copy_first: false` puts the copy after the `dispatch_rays` (whose table is then
/// still zeros when it runs).
fn write_list(tag: &str, copy_first: bool) -> Option<PathBuf> {
    let lib = library_dir()?;
    let libs: Vec<String> = ["raygen", "miss", "closest_hit", "callable"]
        .iter()
        .map(|n| format!("{:?}", lib.join(format!("ray_tracing.{n}.dxil"))))
        .collect();
    let copy = "[[command]]\ntype = \"copy_buffer_region\"\ndst = \"table\"\nsrc = \"staging\"\nbytes = 256\n";
    let rays = format!(
        r#"[[command]]
type = "dispatch_rays"
libraries = [{}]
dispatch = [4, 2, 1]
ray_generation_record = {{ buffer = "table", offset = 0, size = 32 }}
miss_table = {{ buffer = "table", offset = 64, size = 32, stride = 32 }}
hit_group_table = {{ buffer = "table", offset = 128, size = 64, stride = 64 }}
callable_table = {{ buffer = "table", offset = 192, size = 32, stride = 32 }}
hit_groups = [{{ name = "triangle", closest_hit = "closest_hit" }}]
max_recursion_depth = 1
max_payload_size = 20
max_attribute_size = 8
bind = [{{ reg = "t0", resource = "tlas" }}, {{ reg = "u0", resource = "image" }}]
"#,
        libs.join(", ")
    );
    let (first, second) = if copy_first {
        (copy, rays.as_str())
    } else {
        (rays.as_str(), copy)
    };
    let fill = common::root().join("shaders/indirect_fill.cs_5_0.dxbc");
    let text = format!(
        r#"[[acceleration_structure]]
name = "triangle"
level = "bottom"
[[acceleration_structure.geometry]]
type = "triangles"
opaque = true
vertices = {{ f32 = [0, 0, 0,  1, 0, 0,  0, 1, 0] }}
[[acceleration_structure]]
name = "scene"
level = "top"
[[acceleration_structure.instance]]
blas = "triangle"
transform = [1, 0, 0, 0,  0, 1, 0, 0,  0, 0, 1, 5]
id = 3
[[resource]]
name = "tlas"
kind = "acceleration_structure"
acceleration_structure = "scene"
[[resource]]
name = "image"
kind = "texture2d"
format = "R32G32B32A32_FLOAT"
width = 4
height = 2
[[resource]]
name = "staging"
kind = "raw_buffer"
size = 256
data = {{ records = [
    {{ offset = 0, identifier = "raygen" }},
    {{ offset = 64, identifier = "miss" }},
    {{ offset = 128, identifier = "triangle" }},
    {{ offset = 192, identifier = "callable" }},
] }}
[[resource]]
name = "table"
kind = "raw_buffer"
size = 256
[[resource]]
name = "values"
kind = "structured_buffer"
stride = 4
size = 256
{first}{second}[[command]]
type = "dispatch"
cs = {fill:?}
groups = [1, 1, 1]
bind = [{{ reg = "u0", resource = "values" }}]
"#
    );
    let dir = common::scratch().join("rays_list_debug").join(tag);
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    std::fs::write(dir.join("list.toml"), text).unwrap();
    Some(dir)
}

/// `dxlane ARGS` in `dir` under `engine` (`DXLANE_ENGINE`): stdout, stderr, exit code.
fn dxlane(dir: &Path, engine: &str, args: &[&str]) -> (String, String, i32) {
    let out = Command::new(env!("CARGO_BIN_EXE_dxlane"))
        .args(args)
        .env("DXLANE_ENGINE", engine)
        .current_dir(dir)
        .output()
        .expect("run dxlane");
    (
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
        out.status.code().unwrap_or(-1),
    )
}

const ENGINES: [&str; 2] = ["interp", "jit"];

/// `--event 2 --ray 0,0` opens ray (0, 0)'s ray-generation lane of the launch made from
/// the table the copy (event 1) wrote; `step` at its `TraceRay` (line 58) enters the
/// closest-hit program of hit group 0 ("triangle"): instance 0 with ID 3, primitive 0,
/// t = 5 (DXR spec "Addressing calculations within shader tables": record 0 + 1 × 0 +
/// 0; "RayTCurrent"). Inside, `RayTCurrent` is 5 and `InstanceID` 3, and three steps on
/// the distance `RayTCurrent() + RayTMin()` is 5.001 (0x40a00831).
#[test]
fn debug_event_steps_into_the_closest_hit_of_tables_a_copy_wrote() {
    let Some(dir) = write_list("step", true) else {
        return;
    };
    for engine in ENGINES {
        let (out, err, code) = dxlane(
            &dir,
            engine,
            &[
                "debug",
                "list.toml",
                "--event",
                "2",
                "--ray",
                "0,0",
                "--threads",
                "1",
                "-c",
                "break 58; continue; step; print RayTCurrent, InstanceID; step 3; print %3",
            ],
        );
        assert_eq!(code, 0, "{engine}: {out}{err}");
        assert!(
            out.contains("ray generation of DispatchRaysIndex (0, 0, 0)"),
            "{engine}: {out}"
        );
        assert!(
            out.contains("enters closest-hit \"closest_hit\" of hit group 0 (\"triangle\") for instance 0 (ID 3), primitive 0, geometry 0, RayTCurrent 5.0, HitKind 255"),
            "{engine}: {out}"
        );
        assert!(
            out.contains("RayTCurrent = 5.0 (0x40a00000)\nInstanceID = 3 (0x00000003)"),
            "{engine}: {out}"
        );
        assert!(out.contains("%3 = 5.001 (0x40a00831)"), "{engine}: {out}");
    }
}

/// `compare` against a capture of the list with texel (1, 0) of `image` one ulp off
/// names event 2's ray (1, 0, 0) as its writer, at the ray-generation program's store
/// (the texel is ray (1, 0)'s: each ray writes its own), and the `dxlane debug` command
/// it prints opens that ray's lane. Texel (1, 0) is a hit at (0.375, 0.25): its red is
/// 3 × 0.375 × 10.002 = 11.25225 (ray_tracing_table.toml's header).
#[test]
fn compare_names_the_ray_of_tables_a_copy_wrote() {
    let Some(dir) = write_list("compare", true) else {
        return;
    };
    for engine in ENGINES {
        let cap = format!("cap_{engine}");
        let (out, err, code) = dxlane(
            &dir,
            engine,
            &["run", "list.toml", "--threads", "1", "-q", "--record", &cap],
        );
        assert_eq!(code, 0, "{engine}: {out}{err}");
        let bin = std::fs::read_dir(dir.join(&cap))
            .unwrap()
            .map(|e| e.unwrap().path())
            .find(|p| {
                p.extension().is_some_and(|x| x == "bin")
                    && std::fs::metadata(p).is_ok_and(|m| m.len() == 128)
            })
            .expect("the image's readback (4 × 2 texels of 16 bytes)");
        let mut b = std::fs::read(&bin).unwrap();
        let red = f32::from_le_bytes(b[16..20].try_into().unwrap());
        assert!(
            (red - 11.25225).abs() < 1e-4,
            "{engine}: texel (1, 0) red {red}"
        );
        b[16] ^= 1;
        std::fs::write(&bin, b).unwrap();
        let (out, err, code) = dxlane(
            &dir,
            engine,
            &[
                "compare",
                "list.toml",
                &cap,
                "--json",
                "--no-images",
                "--no-explain",
            ],
        );
        assert_eq!(code, 1, "{engine}: {out}{err}");
        let v: serde_json::Value = serde_json::from_str(&out).unwrap();
        let image = v["resources"]
            .as_array()
            .unwrap()
            .iter()
            .find(|r| !r["mismatches"].as_array().is_none_or(Vec::is_empty))
            .expect("a resource with a mismatch");
        let m = &image["mismatches"][0];
        assert_eq!(m["at"], "(1, 0) r", "{engine}: {m}");
        let w = &m["writer"];
        assert_eq!(
            w["lane"], "event 2 (dispatch_rays): ray (1, 0, 0)",
            "{engine}: {w}"
        );
        assert_eq!(w["event"], 2, "{engine}: {w}");
        assert_eq!(w["ray"], json!([1, 0, 0]), "{engine}: {w}");
        assert!(w["program"].is_null(), "ray generation wrote it: {w}");
        // The ray-generation program's one texture store, where the job-level
        // compare of `ray_tracing.toml` finds it too (docs/capture.md).
        assert_eq!(
            w["source"], "dxil function 0 instruction 44",
            "{engine}: {w}"
        );
        let debug = w["debug"].as_str().unwrap();
        assert!(
            debug.starts_with("dxlane debug list.toml --event 2 --ray 1,0,0"),
            "{engine}: {debug}"
        );
        let (out, err, code) = dxlane(
            &dir,
            engine,
            &[
                "debug",
                "list.toml",
                "--event",
                "2",
                "--ray",
                "1,0,0",
                "--threads",
                "1",
            ],
        );
        assert_eq!(code, 0, "{engine}: {out}{err}");
        assert!(
            out.contains("ray generation of DispatchRaysIndex (1, 0, 0)"),
            "{engine}: {out}"
        );
    }
}

/// Refusals name the event: a ray outside DispatchRays(4, 2, 1) (rays (0, 0, 0) to
/// (3, 1, 0)); `--ray` on the list's compute dispatch (event 3) and on the copy
/// (event 1, which runs no program); and a launch whose table is still zeros when it
/// runs (the copy after it: no record holds a shader identifier).
#[test]
fn ray_lanes_of_list_events_are_refused_by_name() {
    let Some(dir) = write_list("refusals", true) else {
        return;
    };
    let debug = |dir: &Path, event: &str, ray: &str| {
        let (out, err, code) = dxlane(
            dir,
            "interp",
            &[
                "debug",
                "list.toml",
                "--event",
                event,
                "--ray",
                ray,
                "--threads",
                "1",
            ],
        );
        assert_ne!(code, 0, "{out}");
        format!("{out}{err}")
    };
    let e = debug(&dir, "2", "4,0");
    assert!(
        e.contains("--event 2 (dispatch_rays): --ray 4,0,0: outside the dispatch: DispatchRays(4, 2, 1) launches rays (0, 0, 0) to (3, 1, 0)"),
        "{e}"
    );
    let e = debug(&dir, "2", "0,2");
    assert!(e.contains("--ray 0,2,0: outside the dispatch"), "{e}");
    let e = debug(&dir, "3", "0,0");
    assert!(
        e.contains("--ray: --event 3 is a dispatch, not a dispatch_rays"),
        "{e}"
    );
    let e = debug(&dir, "1", "0,0");
    assert!(
        e.contains("--event 1 is a copy_buffer_region command, which runs no program"),
        "{e}"
    );
    let Some(late) = write_list("zero_table", false) else {
        return;
    };
    let e = debug(&late, "1", "0,0");
    assert!(
        e.contains(
            "--event 1 (dispatch_rays): its shader tables, as the commands before it left them:"
        ),
        "{e}"
    );
}

/// `%dx.types.HitObject = type { i8* }`.
fn hit_object(l: &mut L) -> dxlane::dxil::llvm::TypeId {
    let i8t = l.mb.int(8);
    let p = l.ptr(i8t);
    l.mb.named("dx.types.HitObject", vec![p])
}

/// A 16-byte payload alloca of zeros.
fn zero_payload(l: &mut L) -> ValueId {
    let ty = l.payload;
    let p = l.alloca(ty);
    let z = l.f(0.0);
    l.store_fields(ty, p, &[z, z, z, z]);
    p
}

/// A `lib_6_9` ray-generation program `name` that passes its 16-byte payload to one
/// hit-object operation: `HitObject::TraceRay` of a ray from the origin along +z
/// (`invoke: false`), or `HitObject::Invoke` of `HitObject::MakeNop()` (`true`).
fn payload_op_raygen(name: &str, invoke: bool) -> Vec<u8> {
    let mut l = L::new();
    l.mb.block();
    let p = zero_payload(&mut l);
    let ho = hit_object(&mut l);
    let h = if invoke {
        l.mb.dx("hitObject_MakeNop", DxOp::HitObject_MakeNop, &[], ho)
    } else {
        let scene = l.handle(Res::Scene);
        let (flags, mask, hc, mult, miss) = (l.i(0), l.i(0xff), l.i(0), l.i(0), l.i(0));
        let (zero, one, far) = (l.f(0.0), l.f(1.0), l.f(100.0));
        let ops = vec![
            scene, flags, mask, hc, mult, miss, zero, zero, zero, zero, zero, zero, one, far, p,
        ];
        l.mb.dx(
            "hitObject_TraceRay.struct.Payload",
            DxOp::HitObject_TraceRay,
            &ops,
            ho,
        )
    };
    if invoke {
        let void = l.mb.void();
        l.mb.dx(
            "hitObject_Invoke.struct.Payload",
            DxOp::HitObject_Invoke,
            &[h, p],
            void,
        );
    }
    l.finish_as(name, RAYGEN, None, 9)
}

/// A `[rays]` job's payload-size refusal names the operation whose payload fixed the
/// size: a 16-byte payload under `max_payload_size` 12 is refused for
/// `HitObject::TraceRay` and for `HitObject::Invoke`, not said to be a `TraceRay`
/// (DXR spec "D3D12_RAYTRACING_SHADER_CONFIG": the payload of any operation that
/// passes one fits `MaxPayloadSizeInBytes`; proposal 0027 "HitObject::TraceRay",
/// "HitObject::Invoke").
#[test]
fn payload_size_errors_name_the_hit_object_operation() {
    let dir = common::scratch()
        .join("rays_list_debug")
        .join("payload_ops");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    for (name, invoke, op) in [
        ("rg_ho_trace", false, "HitObject::TraceRay"),
        ("rg_ho_invoke", true, "HitObject::Invoke"),
    ] {
        let lib = dir.join(format!("{name}.lib.dxil"));
        std::fs::write(&lib, payload_op_raygen(name, invoke)).unwrap();
        let text = format!(
            "[program]\nlibraries = [{lib:?}]\n\
[rays]\ndispatch = [1, 1, 1]\nraygen = \"{name}\"\n\
max_recursion_depth = 1\nmax_payload_size = 12\nmax_attribute_size = 8\n\
[[acceleration_structure]]\nname = \"tri\"\nlevel = \"bottom\"\n\
[[acceleration_structure.geometry]]\ntype = \"triangles\"\nopaque = true\n\
vertices = {{ f32 = [0, 0, 1, 1, 0, 1, 0, 1, 1] }}\n\
[[acceleration_structure]]\nname = \"scene\"\nlevel = \"top\"\n\
[[acceleration_structure.instance]]\nblas = \"tri\"\n\
[[resource]]\nreg = \"t0\"\nkind = \"acceleration_structure\"\nacceleration_structure = \"scene\"\n"
        );
        let path = dir.join(format!("{name}.toml"));
        std::fs::write(&path, text).unwrap();
        let e = dxlane::job::Job::load(&path)
            .and_then(|j| dxlane::job::prepare(j, &common::run_options()))
            .map(|_| ())
            .expect_err("a 16-byte payload under max_payload_size 12")
            .to_string();
        assert!(
            e.contains(&format!(
                "`max_payload_size` 12: \"{name}\" (raygen) calls {op} with a payload of 16 bytes"
            )),
            "{e}"
        );
    }
}
