//! Ray tracing in a suite pipeline: its `AccelerationStructures` (for ray tracing
//! pipelines and for inline ray queries in any stage), and a ray tracing pipeline's
//! `HitGroups`, `RayTracingPipelineConfig` and `ShaderBindingTable`, turned into the
//! job's own `[[acceleration_structure]]` entries and `[rays]` section, so the pipeline
//! runs through the code `[rays]` jobs run through (`job::rays`, `pipeline::rays`).
//!
//! The schema is the suite's `Pipeline.h` / `Pipeline.cpp` (`llvm/offload-test-suite`):
//!
//! - `AccelerationStructures: { BLAS: [...], TLAS: [...] }`. A BLAS has a `Name` and
//!   `Triangles` (`VertexBuffer`, `VertexFormat` = `RGB32Float`, `VertexStride` = 12,
//!   `VertexCount`, `IndexBuffer`, `IndexFormat` = `Uint32`, `IndexCount`, `Opaque` =
//!   true, `Transform`) or `AABBs` (`AABBBuffer`, `AABBCount`, `AABBStride` = 24,
//!   `Opaque` = true), the defaults being the schema's. A TLAS has a `Name`, `ArraySize`
//!   (1) and `Instances` (`BLAS`, `Transform` (12 floats, row-major 3×4, the identity by
//!   default), `InstanceID`, `InstanceMask` = 255, `InstanceContributionToHitGroupIndex`,
//!   `InstanceFlags`). A resource of `Kind: AccelerationStructure` is the TLAS of its
//!   `Name`, bound as an SRV.
//! - `HitGroups`: `Name`, `Type` (`Triangles` by default), `ClosestHit`, `AnyHit`,
//!   `Intersection`, each program an `Entry` of `Shaders` of that stage.
//! - `RayTracingPipelineConfig`: `MaxTraceRecursionDepth` (1), `MaxPayloadSizeInBytes`
//!   (0), `MaxAttributeSizeInBytes` (8), `PipelineFlags`.
//! - `ShaderBindingTable`: `RayGen` (one record), `Miss`, `HitGroup`, `Callable` (lists),
//!   each record a `ShaderName` (an export, or a hit group's `Name`) and `LocalRootData`
//!   bytes.
//! - `DispatchParameters: DispatchGroupCount` is `DispatchRays`' width, height and depth
//!   (`validateDispatchParameters`).
//!
//! The shader table is laid out as the suite's `ShaderBindingTable.h` describes every
//! backend's: the four regions one after the other (ray generation, miss, hit group,
//! callable), each starting at a multiple of 64 bytes
//! (`D3D12_RAYTRACING_SHADER_TABLE_BYTE_ALIGNMENT`), each record the 32-byte shader
//! identifier and its `LocalRootData`, padded to the region's stride: the largest
//! record rounded up to 32 bytes (`D3D12_RAYTRACING_SHADER_RECORD_BYTE_ALIGNMENT`).
//! The records are written into a buffer and the tables read from it, as
//! `D3D12_DISPATCH_RAYS_DESC` gives them, so local root arguments reach the programs
//! through the libraries' local root signatures as on a device.
//!
//! Each program file is a DXIL library (`lib_6_3` or later); the state object exports
//! the `Entry` of every `RayGeneration`, `Miss` and `Callable` program and holds every
//! hit group. The spelling of `InstanceFlags` and `PipelineFlags` is not in the schema
//! read here: a number (the D3D12 flag bits) or flag names are taken.

use std::collections::BTreeSet;

use serde::Deserialize;
use serde_norway::Value as Yaml;
use toml::{Table, Value};

use super::pipeline::{self, Pipeline};
use super::run::Held;
use crate::container::rts0::SHADER_IDENTIFIER_SIZE;
use crate::job::shader_table;

/// `D3D12_RAYTRACING_SHADER_RECORD_BYTE_ALIGNMENT`.
const RECORD_ALIGNMENT: u64 = 32;
/// `D3D12_RAYTRACING_SHADER_TABLE_BYTE_ALIGNMENT`.
const TABLE_ALIGNMENT: u64 = 64;
/// The most `LocalRootData` bytes of one record: D3D12's largest shader record
/// (`D3D12_RAYTRACING_MAX_SHADER_RECORD_STRIDE`, 4096) less the identifier.
const MAX_LOCAL_ROOT_DATA: usize = 4096 - SHADER_IDENTIFIER_SIZE as usize;
/// The most records of one table read from a pipeline.
const MAX_RECORDS: usize = 4096;

/// The name of the job's buffer holding the shader table.
pub(super) const TABLE_BUFFER: &str = "offload_shader_binding_table";

/// An error: the line (0: the file) and the message naming the field.
type Fail = (usize, String);

/// `AccelerationStructures`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct AccelStructs {
    #[serde(default, rename = "BLAS")]
    blas: Vec<Blas>,
    #[serde(default, rename = "TLAS")]
    tlas: Vec<Tlas>,
}

/// A bottom-level structure.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
struct Blas {
    name: String,
    #[serde(default)]
    triangles: Vec<Triangles>,
    #[serde(default, rename = "AABBs")]
    aabbs: Vec<Aabbs>,
}

/// A triangle geometry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
struct Triangles {
    vertex_buffer: String,
    vertex_format: Option<String>,
    vertex_stride: Option<u32>,
    vertex_count: u32,
    index_buffer: Option<String>,
    index_format: Option<String>,
    index_count: Option<u32>,
    opaque: Option<bool>,
    transform: Option<Vec<f32>>,
}

/// An AABB geometry.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields)]
struct Aabbs {
    #[serde(rename = "AABBBuffer")]
    aabb_buffer: String,
    #[serde(rename = "AABBCount")]
    aabb_count: u32,
    #[serde(rename = "AABBStride")]
    aabb_stride: Option<u32>,
    #[serde(rename = "Opaque")]
    opaque: Option<bool>,
}

/// A top-level structure.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
struct Tlas {
    name: String,
    array_size: Option<u32>,
    instances: Vec<Instance>,
}

/// One instance of a top-level structure.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
struct Instance {
    #[serde(rename = "BLAS")]
    blas: String,
    transform: Option<Vec<f32>>,
    #[serde(rename = "InstanceID")]
    instance_id: Option<u32>,
    instance_mask: Option<u32>,
    instance_contribution_to_hit_group_index: Option<u32>,
    instance_flags: Option<Yaml>,
}

/// One entry of `HitGroups`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
struct HitGroup {
    name: String,
    #[serde(rename = "Type")]
    kind: Option<String>,
    closest_hit: Option<String>,
    any_hit: Option<String>,
    intersection: Option<String>,
}

/// `RayTracingPipelineConfig`.
#[derive(Debug, Deserialize, Default)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
struct Config {
    max_trace_recursion_depth: Option<u32>,
    max_payload_size_in_bytes: Option<u32>,
    max_attribute_size_in_bytes: Option<u32>,
    pipeline_flags: Option<Yaml>,
}

/// `ShaderBindingTable`.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
struct Sbt {
    ray_gen: Record,
    #[serde(default)]
    miss: Vec<Record>,
    #[serde(default)]
    hit_group: Vec<Record>,
    #[serde(default)]
    callable: Vec<Record>,
}

/// One shader record.
#[derive(Debug, Deserialize)]
#[serde(deny_unknown_fields, rename_all = "PascalCase")]
struct Record {
    shader_name: String,
    #[serde(default)]
    local_root_data: Vec<Yaml>,
}

/// Reads the optional value `v` of `key` as `T`, the error naming the key.
fn read<T: for<'de> Deserialize<'de>>(v: &Yaml, key: &str, text: &str) -> Result<T, Fail> {
    serde_norway::from_value(v.clone())
        .map_err(|e| (super::draw::line_of_key(text, key), format!("`{key}`: {e}")))
}

/// The buffer named `name`, the error naming `field`.
fn buffer<'a>(held: &'a [Held], name: &str, field: &str) -> Result<&'a Held, String> {
    held.iter()
        .find(|h| h.buffer.name == name)
        .ok_or_else(|| format!("`{field}`: no buffer \"{name}\" in `Buffers`"))
}

/// Lower-case hex of `bytes`, the job's `hex` data form.
fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

fn int(n: u64) -> Value {
    Value::Integer(i64::try_from(n).unwrap_or(i64::MAX))
}

fn floats(f: &[f32]) -> Value {
    Value::Array(f.iter().map(|&x| Value::Float(x.into())).collect())
}

fn hex_data(bytes: &[u8]) -> Value {
    let mut d = Table::new();
    d.insert("hex".into(), Value::String(hex(bytes)));
    Value::Table(d)
}

/// The pipeline's `AccelerationStructures` as the job's `[[acceleration_structure]]`
/// entries (bottom levels first), and the names of its top levels.
pub(super) fn acceleration_structures(
    p: &Pipeline,
    held: &[Held],
    text: &str,
) -> Result<(Vec<Value>, Vec<String>), Fail> {
    let Some(v) = &p.acceleration_structures else {
        return Ok((Vec::new(), Vec::new()));
    };
    let a: AccelStructs = read(v, "AccelerationStructures", text)?;
    let mut out = Vec::new();
    let mut names = BTreeSet::new();
    for (i, b) in a.blas.iter().enumerate() {
        let line = pipeline::line_of_name(text, &b.name);
        let at = |m: String| {
            (
                line,
                format!("`AccelerationStructures: BLAS[{i}]` (\"{}\"): {m}", b.name),
            )
        };
        if !names.insert(b.name.clone()) {
            return Err(at("the name is taken twice".into()));
        }
        if b.triangles.is_empty() == b.aabbs.is_empty() {
            // D3D12 builds a bottom level of one geometry type.
            return Err(at("give `Triangles` or `AABBs` (one geometry type)".into()));
        }
        let mut geometries = Vec::new();
        for (k, t) in b.triangles.iter().enumerate() {
            let f = |key: &str| format!("Triangles[{k}]: {key}");
            let mut g = Table::new();
            g.insert("type".into(), Value::String("triangles".into()));
            let vb = buffer(held, &t.vertex_buffer, &f("VertexBuffer")).map_err(at)?;
            g.insert("vertices".into(), hex_data(&vb.blocks[0]));
            let format = match t.vertex_format.as_deref().unwrap_or("RGB32Float") {
                "RGB32Float" => "R32G32B32_FLOAT",
                "RG32Float" => "R32G32_FLOAT",
                other => {
                    return Err(at(format!(
                        "`{}`: `{other}`; a BLAS takes RGB32Float or RG32Float positions",
                        f("VertexFormat")
                    )));
                }
            };
            g.insert("vertex_format".into(), Value::String(format.into()));
            g.insert(
                "vertex_stride".into(),
                int(t.vertex_stride.unwrap_or(12).into()),
            );
            g.insert("vertex_count".into(), int(t.vertex_count.into()));
            if let Some(ib) = t.index_buffer.as_deref().filter(|s| !s.is_empty()) {
                let ib = buffer(held, ib, &f("IndexBuffer")).map_err(at)?;
                g.insert("indices".into(), hex_data(&ib.blocks[0]));
                let format = match t.index_format.as_deref().unwrap_or("Uint32") {
                    "Uint32" => "R32_UINT",
                    "Uint16" => "R16_UINT",
                    other => {
                        return Err(at(format!(
                            "`{}`: `{other}`; give Uint16 or Uint32",
                            f("IndexFormat")
                        )));
                    }
                };
                g.insert("index_format".into(), Value::String(format.into()));
                g.insert("index_count".into(), int(t.index_count.unwrap_or(0).into()));
            } else if t.index_count.is_some_and(|n| n != 0) {
                return Err(at(format!(
                    "`{}` without an `IndexBuffer`",
                    f("IndexCount")
                )));
            }
            if let Some(m) = &t.transform {
                if m.len() != 12 {
                    return Err(at(format!(
                        "`{}`: {} floats; give 12 (3×4, row-major)",
                        f("Transform"),
                        m.len()
                    )));
                }
                g.insert("transform".into(), floats(m));
            }
            g.insert("opaque".into(), Value::Boolean(t.opaque.unwrap_or(true)));
            geometries.push(Value::Table(g));
        }
        for (k, a) in b.aabbs.iter().enumerate() {
            let mut g = Table::new();
            g.insert("type".into(), Value::String("aabbs".into()));
            let ab =
                buffer(held, &a.aabb_buffer, &format!("AABBs[{k}]: AABBBuffer")).map_err(at)?;
            g.insert("aabbs".into(), hex_data(&ab.blocks[0]));
            g.insert("aabb_count".into(), int(a.aabb_count.into()));
            g.insert(
                "aabb_stride".into(),
                int(a.aabb_stride.unwrap_or(24).into()),
            );
            g.insert("opaque".into(), Value::Boolean(a.opaque.unwrap_or(true)));
            geometries.push(Value::Table(g));
        }
        let mut e = Table::new();
        e.insert("name".into(), Value::String(b.name.clone()));
        e.insert("level".into(), Value::String("bottom".into()));
        e.insert("geometry".into(), Value::Array(geometries));
        out.push(Value::Table(e));
    }
    let mut tops = Vec::new();
    for (i, t) in a.tlas.iter().enumerate() {
        let line = pipeline::line_of_name(text, &t.name);
        let at = |m: String| {
            (
                line,
                format!("`AccelerationStructures: TLAS[{i}]` (\"{}\"): {m}", t.name),
            )
        };
        if !names.insert(t.name.clone()) {
            return Err(at("the name is taken twice".into()));
        }
        if t.array_size.unwrap_or(1) != 1 {
            return Err(at(
                "`ArraySize` other than 1: dxlane binds one top-level structure per resource"
                    .into(),
            ));
        }
        let mut instances = Vec::new();
        for (k, inst) in t.instances.iter().enumerate() {
            let f = |key: &str| format!("Instances[{k}]: {key}");
            if !a.blas.iter().any(|b| b.name == inst.blas) {
                return Err(at(format!(
                    "`{}`: no BLAS \"{}\" in `AccelerationStructures`",
                    f("BLAS"),
                    inst.blas
                )));
            }
            let mut e = Table::new();
            e.insert("blas".into(), Value::String(inst.blas.clone()));
            if let Some(m) = &inst.transform {
                if m.len() != 12 {
                    return Err(at(format!(
                        "`{}`: {} floats; give 12 (3×4, row-major)",
                        f("Transform"),
                        m.len()
                    )));
                }
                e.insert("transform".into(), floats(m));
            }
            e.insert("id".into(), int(inst.instance_id.unwrap_or(0).into()));
            e.insert(
                "mask".into(),
                int(inst.instance_mask.unwrap_or(0xff).into()),
            );
            e.insert(
                "contribution".into(),
                int(inst
                    .instance_contribution_to_hit_group_index
                    .unwrap_or(0)
                    .into()),
            );
            let flags = instance_flags(inst.instance_flags.as_ref())
                .map_err(|m| at(format!("`{}`: {m}", f("InstanceFlags"))))?;
            e.insert(
                "flags".into(),
                Value::Array(flags.into_iter().map(|s| Value::String(s.into())).collect()),
            );
            instances.push(Value::Table(e));
        }
        let mut e = Table::new();
        e.insert("name".into(), Value::String(t.name.clone()));
        e.insert("level".into(), Value::String("top".into()));
        e.insert("instance".into(), Value::Array(instances));
        out.push(Value::Table(e));
        tops.push(t.name.clone());
    }
    Ok((out, tops))
}

/// `D3D12_RAYTRACING_INSTANCE_FLAGS` as the job names them, from a number (the flag
/// bits), a name, or a list of names (`TriangleCullDisable`,
/// `TriangleFrontCounterClockwise`, `ForceOpaque`, `ForceNonOpaque`, `None`).
fn instance_flags(v: Option<&Yaml>) -> Result<Vec<&'static str>, String> {
    const FLAGS: [(u64, &str, &str); 4] = [
        (1, "triangleculldisable", "triangle_cull_disable"),
        (
            2,
            "trianglefrontcounterclockwise",
            "triangle_front_counterclockwise",
        ),
        (4, "forceopaque", "force_opaque"),
        (8, "forcenonopaque", "force_non_opaque"),
    ];
    let by_name = |s: &str| -> Result<Option<&'static str>, String> {
        // `ForceOpaque`, `FORCE_OPAQUE` and `D3D12_RAYTRACING_INSTANCE_FLAG_FORCE_OPAQUE`
        // are one flag.
        let key: String = s
            .chars()
            .filter(|c| *c != '_')
            .collect::<String>()
            .to_ascii_lowercase();
        let key = key.trim_start_matches("d3d12raytracinginstanceflag");
        if key == "none" {
            return Ok(None);
        }
        FLAGS
            .iter()
            .find(|(_, n, _)| *n == key)
            .map(|(_, _, j)| Some(*j))
            .ok_or_else(|| {
                format!(
                    "`{s}`; give TriangleCullDisable, TriangleFrontCounterClockwise, ForceOpaque, ForceNonOpaque or None"
                )
            })
    };
    let mut out = Vec::new();
    match v {
        None | Some(Yaml::Null) => {}
        Some(Yaml::Number(n)) => {
            let bits = n.as_u64().ok_or("not a flag number")?;
            if bits & !0xf != 0 {
                return Err(format!("{bits:#x} has bits past ForceNonOpaque (8)"));
            }
            out.extend(FLAGS.iter().filter(|(b, ..)| bits & b != 0).map(|f| f.2));
        }
        Some(Yaml::String(s)) => {
            for part in s.split('|').map(str::trim).filter(|p| !p.is_empty()) {
                out.extend(by_name(part)?);
            }
        }
        Some(Yaml::Sequence(list)) => {
            for item in list {
                let Yaml::String(s) = item else {
                    return Err("a list of flag names".into());
                };
                out.extend(by_name(s)?);
            }
        }
        Some(_) => return Err("a flag number, name or list of names".into()),
    }
    Ok(out)
}

/// The job's `[program]` and `[rays]` sections and its shader-table buffer for a ray
/// tracing pipeline; `files` are the program files (canonical), in `Shaders` order.
pub(super) fn ray_pipeline(
    p: &Pipeline,
    files: &[String],
    text: &str,
) -> Result<(Table, Table, Table), Fail> {
    // Libraries, each once: several `Shaders` entries may name programs of one file.
    let mut libraries: Vec<Value> = Vec::new();
    for f in files {
        let v = Value::String(f.clone());
        if !libraries.contains(&v) {
            libraries.push(v);
        }
    }
    let mut program = Table::new();
    program.insert("libraries".into(), Value::Array(libraries));

    let entries_of = |stage: &str| -> Vec<&str> {
        p.shaders
            .iter()
            .filter(|s| s.stage == stage)
            .map(|s| s.entry.as_str())
            .collect()
    };
    let groups: Vec<HitGroup> = match &p.hit_groups {
        Some(v) => read(v, "HitGroups", text)?,
        None => Vec::new(),
    };
    let config: Config = match &p.ray_tracing_pipeline_config {
        Some(v) => read(v, "RayTracingPipelineConfig", text)?,
        None => Config::default(),
    };
    let Some(sbt) = &p.shader_binding_table else {
        return Err((
            0,
            "`ShaderBindingTable`: a ray tracing pipeline needs one (its `RayGen` record at least)"
                .into(),
        ));
    };
    let sbt: Sbt = read(sbt, "ShaderBindingTable", text)?;

    let mut rays = Table::new();
    let d = p
        .dispatch_parameters
        .as_ref()
        .and_then(|d| d.dispatch_group_count)
        .unwrap_or([1, 1, 1]);
    rays.insert(
        "dispatch".into(),
        Value::Array(d.iter().map(|&n| int(n.into())).collect()),
    );
    // The state object's exports: every ray generation, miss and callable program;
    // hit-group programs are reached through their groups.
    let mut exports: Vec<Value> = Vec::new();
    for stage in ["RayGeneration", "Miss", "Callable"] {
        for e in entries_of(stage) {
            let v = Value::String(e.into());
            if !exports.contains(&v) {
                exports.push(v);
            }
        }
    }
    rays.insert("exports".into(), Value::Array(exports));
    let mut hit_groups = Vec::new();
    for (i, g) in groups.iter().enumerate() {
        let line = pipeline::line_of_name(text, &g.name);
        let at = |m: String| (line, format!("`HitGroups[{i}]` (\"{}\"): {m}", g.name));
        if groups[..i].iter().any(|o| o.name == g.name) {
            return Err(at("the name is taken twice".into()));
        }
        let mut e = Table::new();
        e.insert("name".into(), Value::String(g.name.clone()));
        let kind = match g.kind.as_deref().unwrap_or("Triangles") {
            "Triangles" | "Triangle" => "triangles",
            "Procedural" | "ProceduralPrimitive" => "procedural",
            other => {
                return Err(at(format!("`Type: {other}`; give Triangles or Procedural")));
            }
        };
        e.insert("kind".into(), Value::String(kind.into()));
        for (key, job_key, stage, name) in [
            ("ClosestHit", "closest_hit", "ClosestHit", &g.closest_hit),
            ("AnyHit", "any_hit", "AnyHit", &g.any_hit),
            (
                "Intersection",
                "intersection",
                "Intersection",
                &g.intersection,
            ),
        ] {
            let Some(n) = name.as_deref().filter(|n| !n.is_empty()) else {
                continue;
            };
            if !entries_of(stage).contains(&n) {
                return Err(at(format!(
                    "`{key}`: \"{n}\" is the `Entry` of no {stage} program in `Shaders`"
                )));
            }
            e.insert(job_key.into(), Value::String(n.into()));
        }
        hit_groups.push(Value::Table(e));
    }
    rays.insert("hit_groups".into(), Value::Array(hit_groups));
    rays.insert(
        "max_recursion_depth".into(),
        int(config.max_trace_recursion_depth.unwrap_or(1).into()),
    );
    rays.insert(
        "max_payload_size".into(),
        int(config.max_payload_size_in_bytes.unwrap_or(0).into()),
    );
    rays.insert(
        "max_attribute_size".into(),
        int(config.max_attribute_size_in_bytes.unwrap_or(8).into()),
    );
    match &config.pipeline_flags {
        None | Some(Yaml::Null) => {}
        Some(Yaml::Number(n)) if n.as_u64() == Some(0) => {}
        Some(Yaml::String(s)) if s == "None" => {}
        Some(other) => {
            return Err((
                super::draw::line_of_key(text, "PipelineFlags"),
                format!(
                    "`RayTracingPipelineConfig: PipelineFlags`: {other:?}; dxlane takes skip flags from a library's RaytracingPipelineConfig1 subobject only"
                ),
            ));
        }
    }

    // The shader table, region by region.
    let groups_named = |n: &str| groups.iter().any(|g| g.name == n);
    let regions: [(&str, &str, Vec<&Record>, &[&str]); 4] = [
        (
            "RayGen",
            "ray_generation_record",
            vec![&sbt.ray_gen],
            &["RayGeneration"],
        ),
        ("Miss", "miss_table", sbt.miss.iter().collect(), &["Miss"]),
        (
            "HitGroup",
            "hit_group_table",
            sbt.hit_group.iter().collect(),
            &[],
        ),
        (
            "Callable",
            "callable_table",
            sbt.callable.iter().collect(),
            &["Callable"],
        ),
    ];
    let mut bytes: Vec<u8> = Vec::new();
    for (key, job_key, records, stages) in regions {
        let field = |i: usize| {
            if key == "RayGen" {
                "`ShaderBindingTable: RayGen`".to_string()
            } else {
                format!("`ShaderBindingTable: {key}[{i}]`")
            }
        };
        if records.len() > MAX_RECORDS {
            return Err((
                super::draw::line_of_key(text, key),
                format!(
                    "`ShaderBindingTable: {key}`: {} records; dxlane reads at most {MAX_RECORDS}",
                    records.len()
                ),
            ));
        }
        let mut datas = Vec::with_capacity(records.len());
        for (i, r) in records.iter().enumerate() {
            let at = |m: String| (super::draw::line_of_key(text, "ShaderName"), m);
            let n = r.shader_name.as_str();
            let known = if stages.is_empty() {
                groups_named(n)
            } else {
                stages.iter().any(|s| entries_of(s).contains(&n))
            };
            if !known {
                let what = if stages.is_empty() {
                    "the `Name` of no entry of `HitGroups`".to_string()
                } else {
                    format!("the `Entry` of no {} program in `Shaders`", stages[0])
                };
                return Err(at(format!("{}: `ShaderName` \"{n}\" is {what}", field(i))));
            }
            if r.local_root_data.len() > MAX_LOCAL_ROOT_DATA {
                return Err(at(format!(
                    "{}: {} bytes of `LocalRootData`; a record holds at most {MAX_LOCAL_ROOT_DATA}",
                    field(i),
                    r.local_root_data.len()
                )));
            }
            let data = r
                .local_root_data
                .iter()
                .map(byte)
                .collect::<Result<Vec<u8>, String>>()
                .map_err(|m| at(format!("{}: `LocalRootData`: {m}", field(i))))?;
            datas.push((n, data));
        }
        if datas.is_empty() {
            continue;
        }
        let longest = datas.iter().map(|(_, d)| d.len() as u64).max().unwrap_or(0);
        let stride =
            (u64::from(SHADER_IDENTIFIER_SIZE) + longest).next_multiple_of(RECORD_ALIGNMENT);
        let start = (bytes.len() as u64).next_multiple_of(TABLE_ALIGNMENT);
        bytes.resize(start as usize, 0);
        for (n, d) in &datas {
            let at = bytes.len();
            bytes.extend_from_slice(&shader_table::identifier(n));
            bytes.extend_from_slice(d);
            bytes.resize(at + stride as usize, 0);
        }
        let mut range = Table::new();
        range.insert("buffer".into(), Value::String(TABLE_BUFFER.into()));
        range.insert("offset".into(), int(start));
        range.insert("size".into(), int(stride * datas.len() as u64));
        if key != "RayGen" {
            range.insert("stride".into(), int(stride));
        }
        rays.insert(job_key.into(), Value::Table(range));
    }
    let mut table = Table::new();
    table.insert("name".into(), Value::String(TABLE_BUFFER.into()));
    table.insert("kind".into(), Value::String("raw_buffer".into()));
    table.insert("size".into(), int(bytes.len() as u64));
    table.insert("data".into(), hex_data(&bytes));
    Ok((program, rays, table))
}

/// One `LocalRootData` byte: a number from 0 to 255 (LLVM's `Hex8` prints `0x1F`).
fn byte(v: &Yaml) -> Result<u8, String> {
    match v {
        Yaml::Number(n) => n
            .as_u64()
            .and_then(|n| u8::try_from(n).ok())
            .ok_or_else(|| format!("{n} is not a byte")),
        Yaml::String(s) => s
            .strip_prefix("0x")
            .or_else(|| s.strip_prefix("0X"))
            .and_then(|h| u8::from_str_radix(h, 16).ok())
            .ok_or_else(|| format!("`{s}` is not a byte")),
        _ => Err("a list of bytes".into()),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Instance flags by number, name and list, as `D3D12_RAYTRACING_INSTANCE_FLAGS`
    /// numbers them (1, 2, 4, 8); an unknown name or bit is an error.
    #[test]
    fn instance_flags_forms() {
        let y = |s: &str| serde_norway::from_str::<Yaml>(s).unwrap();
        assert_eq!(
            instance_flags(Some(&y("5"))).unwrap(),
            ["triangle_cull_disable", "force_opaque"]
        );
        assert_eq!(
            instance_flags(Some(&y(
                "[ TriangleFrontCounterClockwise, ForceNonOpaque ]"
            )))
            .unwrap(),
            ["triangle_front_counterclockwise", "force_non_opaque"]
        );
        assert_eq!(
            instance_flags(Some(&y("None"))).unwrap(),
            Vec::<&str>::new()
        );
        assert!(instance_flags(Some(&y("16"))).is_err());
        assert!(instance_flags(Some(&y("Opaque"))).is_err());
    }

    /// `LocalRootData` bytes as numbers or `Hex8` text.
    #[test]
    fn local_root_data_bytes() {
        let y = |s: &str| serde_norway::from_str::<Yaml>(s).unwrap();
        assert_eq!(byte(&y("7")), Ok(7));
        assert_eq!(byte(&y("\"0x1F\"")), Ok(0x1f));
        assert!(byte(&y("256")).is_err());
    }
}
