//! `[rays]`: a DXR ray-tracing pipeline made from DXIL libraries and run by one
//! `DispatchRays`.
//!
//! Owns: reading `[program] library` / `libraries` and the `[rays]` section into a
//! `pipeline::rays::RaysWork` — the exports by name, checked against the stage of each
//! slot; the hit groups (`D3D12_HIT_GROUP_DESC`); the shader configuration
//! (`D3D12_RAYTRACING_SHADER_CONFIG`) and pipeline configuration
//! (`D3D12_RAYTRACING_PIPELINE_CONFIG`) checked against what each program declares;
//! the `DispatchRays` size — and the run's summary. Does not own: running the pipeline
//! (`pipeline::rays`), the resources and expectations (shared with a dispatch).
//!
//! # The job's form
//!
//! The shader table is the `[rays]` lists in record order: `miss` (index =
//! `MissShaderIndex`), `hit_groups` (index = the hit-group index of the DXR spec's
//! "Addressing calculations within shader tables"), `callable` (index = `CallShader`'s
//! `ShaderIndex`). Every program binds the job's `[[resource]]` entries by register, as
//! a global root signature would; a record with local root arguments (`local`, see
//! `job::local_root`) binds its programs' registers of its local root signature to
//! them instead, and its programs are fitted once per such record.
//!
//! Or the tables are in buffers, as `D3D12_DISPATCH_RAYS_DESC` gives them
//! (`ray_generation_record`, `miss_table`, `hit_group_table`, `callable_table`; the two
//! forms are exclusive): the pipeline holds `exports` (default: every program of the
//! libraries no hit group names) and the named `hit_groups`, and `read_tables` reads
//! each record (an identifier and local root arguments, `job::shader_table`) into the
//! same tables the lists make.
//!
//! # Rules (errors name the key and the export)
//!
//! - Each export is found in exactly one library (D3D12: export names are unique in a
//!   state object); a name no library exports is refused with the closest one suggested.
//! - Each slot takes its stage: `raygen` a `[shader("raygeneration")]` program, `miss`
//!   miss programs, `callable` callable programs, a hit group's `closest_hit`,
//!   `any_hit` and `intersection` their own (DXR spec "Shader types").
//! - A `triangles` hit group has no intersection program; a `procedural` one has one
//!   (`D3D12_HIT_GROUP_TYPE`). A triangle hit group's closest-hit and any-hit programs
//!   take `BuiltInTriangleIntersectionAttributes` (8 bytes; DXR spec "Intersection
//!   attributes structure"); a procedural group's take what its intersection program's
//!   `ReportHit` passes (same size).
//! - `max_payload_size`: every miss, closest-hit and any-hit program's payload and every
//!   `TraceRay`'s payload fit; `max_attribute_size` (at most
//!   `D3D12_RAYTRACING_MAX_ATTRIBUTE_SIZE_IN_BYTES`, 32): every hit program's attributes
//!   and every `ReportHit`'s fit. Callable parameters are not counted (the shader
//!   configuration bounds ray payloads and attributes only).
//! - `max_recursion_depth` from 0 to 31 (`D3D12_RAYTRACING_MAX_DECLARABLE_TRACE_RECURSION_DEPTH`).
//!   All three are required, as a D3D12 pipeline needs one shader configuration and
//!   one pipeline configuration; each comes from the job's key or from the libraries'
//!   configuration subobjects associated with the pipeline's exports
//!   (`job::state_object`), and where both give one they must agree (an error names
//!   both: D3D would let the state object's association override the library's, but a
//!   job that states a value means it).
//! - A `hit_groups` entry whose `name` is a library's `HitGroup` subobject takes its
//!   kind and programs; what it restates must agree. A named entry with no programs
//!   and no such subobject is refused.
//! - A `RaytracingPipelineConfig1`'s skip flags apply to every `TraceRay`.
//! - `dispatch`: each dimension at least 1 (D3D12 launches nothing for a 0, which a job
//!   cannot check; refused as `[dispatch]` refuses 0 groups), and at most 2^30 rays in
//!   all (`DispatchRays`).
//! - A record's local root signature comes from the libraries' association or the
//!   entry's `local_root_signature`; its arguments are checked by `job::local_root`. A
//!   record without `local` whose programs declare none of the signature's registers
//!   takes no arguments (nothing would read them), so a library's signature on a
//!   program that does not use it asks nothing of the job.

use std::collections::BTreeMap;
use std::path::PathBuf;

use serde::Serialize;

use super::bind::{self, DEFAULT_MAX_RESOURCE_BYTES};
use super::local_root::{self, LocalRecord};
use super::prepare::{Prepared, check_expects};
use super::run::{
    ExpectSummary, OutputSummary, ProgramInfo, RunOptions, load_file, output_gate, place_outputs,
    read_program, resolve_plan, resource_memory, summary_place,
};
use super::schema::{
    HitGroupEntry, LocalArgumentEntry, LocalParameterEntry, RaysSection, TableEntry,
};
use super::shader_table::{self, Named};
use super::state_object::{Associated, Found, LibrarySubobjects, StateObject};
use super::{Job, JobError, reflect};
use crate::container::rdat::{self, RdatSubobject, SubobjectDesc};
use crate::container::rts0::{MAX_SHADER_RECORD_STRIDE, RootSignature, SHADER_IDENTIFIER_SIZE};
use crate::container::{Container, FourCc};
use crate::exec::ExecError;
use crate::ir::io::MAX_RAY_ATTRIBUTE_BYTES;
use crate::ir::{Inst, Shader, Stage};
use crate::lower::{self, LibraryExport};
use crate::pipeline::Bindings;
use crate::pipeline::Work;
use crate::pipeline::rays::{
    HitGroup, MAX_DISPATCH_RAYS, MAX_RECURSION_DEPTH, RaysWork, RecordArguments, ShaderTable,
    TableRecord,
};

/// The most libraries a job names.
pub const MAX_LIBRARIES: usize = 64;

/// The most records of one table (miss, hit group, callable) a job lists.
pub const MAX_TABLE_RECORDS: usize = 4096;

/// The size of `BuiltInTriangleIntersectionAttributes` (two floats).
const TRIANGLE_ATTRIBUTE_BYTES: u32 = 8;

/// What a ray-tracing job did: the JSON summary's contents.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct RaysSummary {
    /// The job file.
    pub job: String,
    /// The highest shader model dxlane runs, and what of it is refused (as `info`
    /// states them).
    pub dxlane_runs: crate::lower::dxil::Runs,
    /// The pipeline's programs, in the order the tables first name them (ray generation
    /// first).
    pub programs: Vec<ProgramInfo>,
    /// The WARP profile's name.
    pub profile: String,
    /// The engine: `jit` or `interp`.
    pub engine: String,
    /// The ray-generation program's wave size.
    pub wave_size: u32,
    /// Worker threads the ray-generation waves ran on.
    pub threads: usize,
    /// `DispatchRays`' width, height and depth.
    pub dispatch: [u32; 3],
    /// Ray-generation lanes run.
    pub lanes: u64,
    /// `TraceRay` calls.
    pub rays: u64,
    /// Nodes, instances and primitives the traversals visited.
    pub traversal: u64,
    /// Lane-instructions of every program, nested ones included.
    pub lane_instructions: u64,
    /// Seconds the launch took (wall clock).
    pub elapsed_seconds: f64,
    /// Output files written.
    pub outputs: Vec<OutputSummary>,
    /// Expectation results.
    pub expectations: ExpectSummary,
    /// Warnings of the reflection checks.
    pub warnings: Vec<String>,
    /// With tables in buffers: the shader identifier of each export and hit group a
    /// record can name (`job::shader_table`).
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub shader_identifiers: Vec<IdentifierInfo>,
}

/// One shader identifier of a pipeline, for a user writing tables.
#[derive(Debug, Clone, Serialize, PartialEq)]
pub struct IdentifierInfo {
    /// The export or hit group.
    pub name: String,
    /// Its table: `ray generation`, `miss`, `hit group` or `callable`.
    pub table: String,
    /// The 32 bytes, as hex.
    pub identifier: String,
}

/// The identifiers a summary lists: with tables in buffers, those of the pipeline's
/// ray generation, miss and callable programs (`programs`) and of its hit groups.
pub(crate) fn identifiers(
    programs: &[ProgramInfo],
    rs: Option<&RaysSection>,
) -> Vec<IdentifierInfo> {
    let Some(rs) = rs.filter(|r| r.ray_generation_record.is_some()) else {
        return Vec::new();
    };
    let hex = |n: &str| {
        shader_table::identifier(n)
            .iter()
            .map(|b| format!("{b:02x}"))
            .collect::<String>()
    };
    let mut out: Vec<IdentifierInfo> = Vec::new();
    for p in programs {
        let table = match p.stage.as_str() {
            "raygeneration" => "ray generation",
            "miss" => "miss",
            "callable" => "callable",
            _ => continue,
        };
        if !out.iter().any(|i| i.name == p.entry) {
            out.push(IdentifierInfo {
                name: p.entry.clone(),
                table: table.into(),
                identifier: hex(&p.entry),
            });
        }
    }
    for g in rs.hit_groups.iter().filter_map(|g| g.name.as_deref()) {
        out.push(IdentifierInfo {
            name: g.to_string(),
            table: "hit group".into(),
            identifier: hex(g),
        });
    }
    out
}

/// A finished ray-tracing job.
#[derive(Debug, Clone)]
pub struct RaysResult {
    /// The summary (also written as JSON).
    pub summary: RaysSummary,
    /// Where the summary was written.
    pub summary_path: PathBuf,
    /// The job's resources after the run.
    pub bound: bind::BoundJob,
}

fn rays_err(message: String) -> JobError {
    JobError::Section {
        section: "[rays]",
        message,
    }
}

fn program_err(message: impl Into<String>) -> JobError {
    JobError::Section {
        section: "[program]",
        message: message.into(),
    }
}

/// A library, its exports and its subobjects.
struct Library {
    path: PathBuf,
    key: String,
    exports: Vec<LibraryExport>,
    subobjects: Vec<RdatSubobject>,
}

/// The slot an export is named in, and the stage it needs.
struct Slot<'a> {
    key: String,
    name: &'a str,
    stage: Stage,
}

/// What a slot's stage is called in messages (HLSL's `[shader("…")]`).
fn stage_words(s: Stage) -> String {
    format!("a [shader(\"{s}\")] program")
}

/// Which part of the job a message is about: the libraries' keys (`[program]`, or a
/// command) or the pipeline's (`[rays]`, or a command).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Part {
    /// `library`, `libraries`.
    Program,
    /// The `[rays]` keys.
    Rays,
}

/// The libraries named by `library` or `libraries`, read and listed.
fn libraries(
    job: &Job,
    library: Option<&PathBuf>,
    libraries: Option<&Vec<PathBuf>>,
) -> Result<Vec<Library>, Where> {
    let program_err = |m: &str| Where::At(Part::Program, m.to_string());
    let given: Vec<(String, &PathBuf)> = match (library, libraries) {
        (Some(_), Some(_)) => {
            return Err(program_err("give `library` or `libraries`, not both"));
        }
        (Some(l), None) => vec![("library".into(), l)],
        (None, Some(ls)) => {
            if ls.is_empty() {
                return Err(program_err("`libraries` is empty: name at least one"));
            }
            if ls.len() > MAX_LIBRARIES {
                return Err(program_err(&format!(
                    "`libraries` names {} files; a job takes at most {MAX_LIBRARIES}",
                    ls.len()
                )));
            }
            ls.iter()
                .enumerate()
                .map(|(i, l)| (format!("libraries[{i}]"), l))
                .collect()
        }
        (None, None) => {
            return Err(program_err(
                "a ray-tracing pipeline needs `library` (or `libraries`): the DXIL libraries its exports come from",
            ));
        }
    };
    let mut out = Vec::with_capacity(given.len());
    for (key, rel) in given {
        let path = job.resolve(rel);
        let bytes = read_program(&path).map_err(Where::Job)?;
        let (version, exports) = lower::library_exports(&bytes)
            .map_err(|e| JobError::Program {
                path: path.clone(),
                message: format!("`{key}`: cannot read the library: {e}"),
            })
            .map_err(Where::Job)?;
        if version.kind != crate::container::ProgramKind::Library {
            return Err(Where::Job(JobError::Program {
                path,
                message: format!(
                    "`{key}`: is a {version} program, not a DXIL library (lib_6_3 or later)"
                ),
            }));
        }
        let subobjects = library_subobjects(&bytes)
            .map_err(|e| JobError::Program {
                path: path.clone(),
                message: format!("`{key}`: cannot read the library's subobjects: {e}"),
            })
            .map_err(Where::Job)?;
        out.push(Library {
            path,
            key,
            exports,
            subobjects,
        });
    }
    Ok(out)
}

/// The subobjects of a library's `RDAT` part (none without one).
fn library_subobjects(
    bytes: &[u8],
) -> Result<Vec<RdatSubobject>, crate::container::ContainerError> {
    let c = Container::parse(bytes)?;
    match c.part(FourCc::RDAT) {
        Some(part) => rdat::subobjects(part),
        None => Ok(Vec::new()),
    }
}

/// An error of reading a pipeline: a message about a part of the job, or a job error
/// that names its own place (a file).
pub(crate) enum Where {
    /// A message about `Part`'s keys.
    At(Part, String),
    /// An error naming its file.
    Job(JobError),
}

impl Where {
    /// The job error, with `at` making the error for a part's message.
    pub(crate) fn into_job(self, at: impl Fn(Part, String) -> JobError) -> JobError {
        match self {
            Where::At(p, m) => at(p, m),
            Where::Job(e) => e,
        }
    }
}

/// A table record: its program (index into [`Pipeline::programs`]) and its local root
/// arguments (index into [`Pipeline::records`]), when it has any.
pub(crate) type Record = (usize, Option<usize>);

/// A ray-tracing pipeline read from the `[rays]` keys: its programs (lowered, ray
/// generation first, then in the order the tables first name them) and its tables.
#[derive(Debug, Clone)]
pub(crate) struct Pipeline {
    /// The programs and their files.
    pub programs: Vec<(Shader, ProgramInfo)>,
    /// The ray-generation record.
    pub raygen: Record,
    /// The miss table.
    pub miss: ShaderTable<Record>,
    /// The hit-group table, each group with its record's local root arguments.
    pub hit_groups: ShaderTable<(HitGroup, Option<usize>)>,
    /// The callable table.
    pub callable: ShaderTable<Record>,
    /// Tables in buffers: what each identifier names (the tables above are filled from
    /// the buffers by [`read_tables`]).
    pub names: Option<Vec<Named<Target>>>,
    /// The records' local root signatures and arguments.
    pub records: Vec<LocalRecord>,
    /// The global root signature and its arguments, when the job gives them.
    pub global: Option<LocalRecord>,
    /// Tables in buffers: each miss and hit-group record's bytes after its identifier,
    /// as [`read_tables`] read them (the list form's come from `records`).
    pub arguments: Option<RecordArguments>,
    /// `max_recursion_depth`.
    pub max_recursion_depth: u32,
    /// `D3D12_RAYTRACING_PIPELINE_FLAGS` of the libraries' `RaytracingPipelineConfig1`.
    pub pipeline_flags: u32,
    /// `dispatch`.
    pub dims: [u32; 3],
}

/// What a shader identifier names: a program (ray generation, miss, callable) or a hit
/// group.
#[derive(Debug, Clone)]
pub(crate) enum Target {
    /// A program, by index into [`Pipeline::programs`].
    Program(usize),
    /// A hit group.
    Group(HitGroup),
}

/// The `[rays]` keys of the list form and of the buffer form (`D3D12_DISPATCH_RAYS_DESC`).
const LIST_KEYS: [&str; 3] = ["raygen", "miss", "callable"];
const BUFFER_KEYS: [&str; 5] = [
    "exports",
    "ray_generation_record",
    "miss_table",
    "hit_group_table",
    "callable_table",
];

/// Whether `rs` takes its tables from buffers; both forms at once is an error naming
/// the keys.
fn buffer_form(rs: &RaysSection) -> Result<bool, String> {
    let list: Vec<&str> = LIST_KEYS
        .into_iter()
        .zip([
            rs.raygen.is_some(),
            !rs.miss.is_empty(),
            !rs.callable.is_empty(),
        ])
        .filter(|(_, set)| *set)
        .map(|(k, _)| k)
        .collect();
    let buffer: Vec<&str> = BUFFER_KEYS
        .into_iter()
        .zip([
            rs.exports.is_some(),
            rs.ray_generation_record.is_some(),
            rs.miss_table.is_some(),
            rs.hit_group_table.is_some(),
            rs.callable_table.is_some(),
        ])
        .filter(|(_, set)| *set)
        .map(|(k, _)| k)
        .collect();
    if buffer.is_empty() {
        return Ok(false);
    }
    if let Some(k) = list.first() {
        return Err(format!(
            "`{k}` lists the shader table, and `{}` reads it from a buffer: give one form (D3D12_DISPATCH_RAYS_DESC takes the tables from memory; the lists are dxlane's shorthand)",
            buffer[0]
        ));
    }
    if rs.ray_generation_record.is_none() {
        return Err(
            "missing `ray_generation_record = { buffer, offset, size }` (D3D12_DISPATCH_RAYS_DESC::RayGenerationShaderRecord)".into(),
        );
    }
    for (i, g) in rs.hit_groups.iter().enumerate() {
        if g.name.is_none() {
            return Err(format!(
                "`hit_groups[{i}]`: with tables in buffers, a hit group needs a `name` (its shader identifier is taken by name)"
            ));
        }
        if g.local.is_some() {
            return Err(format!(
                "`{}.local`: with tables in buffers, local root arguments are the record's bytes",
                group_key(i, g)
            ));
        }
    }
    if let Some(e) = rs.exports.iter().flatten().find(|e| e.local().is_some()) {
        return Err(format!(
            "`exports` \"{}\": with tables in buffers, local root arguments are the record's bytes, not `local`",
            e.export()
        ));
    }
    Ok(true)
}

/// Reads the pipeline `rs` describes over the libraries named by `library` or
/// `libraries` (see the module doc for the rules).
pub(crate) fn read_pipeline(
    job: &Job,
    library: Option<&PathBuf>,
    libraries_: Option<&Vec<PathBuf>>,
    rs: &RaysSection,
) -> Result<Pipeline, Where> {
    let rays_err = |m: String| Where::At(Part::Rays, m);
    let dims = check_dispatch(rs).map_err(rays_err)?;
    let buffers = buffer_form(rs).map_err(rays_err)?;
    for (key, n) in [
        ("miss", rs.miss.len()),
        ("hit_groups", rs.hit_groups.len()),
        ("callable", rs.callable.len()),
    ] {
        if n > MAX_TABLE_RECORDS {
            return Err(rays_err(format!(
                "`{key}` lists {n} records; a job takes at most {MAX_TABLE_RECORDS}"
            )));
        }
    }
    let libs = libraries(job, library, libraries_)?;
    let scopes: Vec<LibrarySubobjects<'_>> = libs
        .iter()
        .map(|l| LibrarySubobjects {
            key: &l.key,
            exports: l.exports.iter().map(|e| e.name.as_str()).collect(),
            subobjects: &l.subobjects,
        })
        .collect();
    let state = StateObject::new(&scopes).map_err(rays_err)?;
    let groups = resolve_hit_groups(&rs.hit_groups, &state).map_err(rays_err)?;
    // With tables in buffers the pipeline holds `exports` (default: every program of
    // the libraries); for the configuration checks they stand in the lists' place.
    let owned;
    let rs = if buffers {
        let group_programs: Vec<&str> = groups
            .iter()
            .flat_map(|g| [&g.closest_hit, &g.any_hit, &g.intersection])
            .flatten()
            .map(String::as_str)
            .collect();
        let exports: Vec<TableEntry> = match &rs.exports {
            Some(e) => e.clone(),
            None => libs
                .iter()
                .flat_map(|l| &l.exports)
                .filter(|e| e.stage.is_some() && !group_programs.contains(&e.name.as_str()))
                .map(|e| TableEntry::Name(e.name.clone()))
                .collect(),
        };
        owned = RaysSection {
            miss: exports,
            ..rs.clone()
        };
        &owned
    } else {
        rs
    };
    let config = resolve_config(rs, &groups, &state).map_err(rays_err)?;
    let depth = match config.max_recursion_depth {
        None => {
            return Err(rays_err(
                "missing `max_recursion_depth` (D3D12_RAYTRACING_PIPELINE_CONFIG: a pipeline needs one; no library's RaytracingPipelineConfig applies)".into(),
            ));
        }
        Some(d) if d > MAX_RECURSION_DEPTH => {
            return Err(rays_err(format!(
                "`max_recursion_depth` {d}: D3D12 allows 0 to {MAX_RECURSION_DEPTH} (D3D12_RAYTRACING_MAX_DECLARABLE_TRACE_RECURSION_DEPTH)"
            )));
        }
        Some(d) => d,
    };
    let max_payload = config.max_payload_size.ok_or_else(|| {
        rays_err(
            "missing `max_payload_size` (D3D12_RAYTRACING_SHADER_CONFIG: a pipeline needs one; no library's RaytracingShaderConfig applies)"
                .into(),
        )
    })?;
    let max_attributes = match config.max_attribute_size {
        None => {
            return Err(rays_err(
                "missing `max_attribute_size` (D3D12_RAYTRACING_SHADER_CONFIG: a pipeline needs one; no library's RaytracingShaderConfig applies)".into(),
            ));
        }
        Some(a) if a > MAX_RAY_ATTRIBUTE_BYTES => {
            return Err(rays_err(format!(
                "`max_attribute_size` {a}: at most {MAX_RAY_ATTRIBUTE_BYTES} (D3D12_RAYTRACING_MAX_ATTRIBUTE_SIZE_IN_BYTES)"
            )));
        }
        Some(a) => a,
    };
    let kinds = hit_group_kinds(&groups).map_err(rays_err)?;

    // Every slot, in table order: the programs are loaded in the order first named.
    let mut slots = Vec::new();
    let raygen = if buffers {
        for (i, m) in rs.miss.iter().enumerate() {
            let stage = libs
                .iter()
                .flat_map(|l| &l.exports)
                .find(|e| e.name == m.export())
                .and_then(|e| e.stage)
                .unwrap_or(Stage::RayGeneration);
            slots.push(Slot {
                key: format!("exports[{i}]"),
                name: m.export(),
                stage,
            });
        }
        ""
    } else {
        let raygen = rs.raygen.as_ref().map(TableEntry::export).ok_or_else(|| {
            rays_err("missing `raygen` (the ray-generation program's export)".into())
        })?;
        slots.push(Slot {
            key: "raygen".into(),
            name: raygen,
            stage: Stage::RayGeneration,
        });
        for (i, m) in rs.miss.iter().enumerate() {
            slots.push(Slot {
                key: format!("miss[{i}]"),
                name: m.export(),
                stage: Stage::Miss,
            });
        }
        raygen
    };
    for (i, g) in groups.iter().enumerate() {
        for (field, name, stage) in [
            ("closest_hit", &g.closest_hit, Stage::ClosestHit),
            ("any_hit", &g.any_hit, Stage::AnyHit),
            ("intersection", &g.intersection, Stage::Intersection),
        ] {
            if let Some(n) = name {
                slots.push(Slot {
                    key: format!("{}.{field}", group_key(i, g)),
                    name: n,
                    stage,
                });
            }
        }
    }
    for (i, c) in rs.callable.iter().enumerate().filter(|_| !buffers) {
        slots.push(Slot {
            key: format!("callable[{i}]"),
            name: c.export(),
            stage: Stage::Callable,
        });
    }
    // Export name → program index.
    let mut index: BTreeMap<&str, usize> = BTreeMap::new();
    let mut loaded: Vec<(Shader, ProgramInfo)> = Vec::new();
    for slot in &slots {
        let lib = find_export(&libs, slot).map_err(rays_err)?;
        if index.contains_key(slot.name) {
            continue;
        }
        let (shader, container, shader_model) =
            load_file(&lib.path, Some(&slot.name.to_string())).map_err(Where::Job)?;
        if shader.stage != slot.stage {
            // The listing and the lowering read the same property; kept as a check.
            return Err(rays_err(format!(
                "`{}`: \"{}\" lowers as {}, not {}",
                slot.key,
                slot.name,
                stage_words(shader.stage),
                stage_words(slot.stage)
            )));
        }
        let info = ProgramInfo {
            path: lib.path.display().to_string(),
            container,
            shader_model,
            stage: shader.stage.to_string(),
            entry: shader.entry.clone(),
        };
        index.insert(slot.name, loaded.len());
        loaded.push((shader, info));
    }
    let at = |n: &str| index.get(n).copied().unwrap_or(0);
    let hit_groups: Vec<HitGroup> = groups
        .iter()
        .enumerate()
        .map(|(i, g)| HitGroup {
            name: g.name.clone().unwrap_or_else(|| format!("hit_groups[{i}]")),
            closest_hit: g.closest_hit.as_deref().map(at),
            any_hit: g.any_hit.as_deref().map(at),
            intersection: g.intersection.as_deref().map(at),
        })
        .collect();
    check_sizes(&loaded, &slots, &index, max_payload, max_attributes).map_err(rays_err)?;
    check_hit_attributes(&groups, &kinds, &loaded, &index).map_err(rays_err)?;
    if buffers {
        let names =
            identified(rs, &groups, hit_groups, &slots, &loaded, &state, &at).map_err(rays_err)?;
        return Ok(Pipeline {
            raygen: (0, None),
            miss: Vec::new().into(),
            hit_groups: Vec::new().into(),
            callable: Vec::new().into(),
            names: Some(names),
            records: Vec::new(),
            global: config.global,
            arguments: None,
            max_recursion_depth: depth,
            pipeline_flags: config.pipeline_flags,
            dims,
            programs: loaded,
        });
    }
    // Each record's local root signature and arguments.
    let mut records: Vec<LocalRecord> = Vec::new();
    let mut record = |key: String,
                      lib: Option<Found>,
                      entry_sig: Option<&[LocalParameterEntry]>,
                      args: Option<&[LocalArgumentEntry]>,
                      programs: &[usize]|
     -> Result<Option<usize>, String> {
        let shaders: Vec<&Shader> = programs
            .iter()
            .filter_map(|&i| loaded.get(i).map(|(s, _)| s))
            .collect();
        let r = local_record(key, lib, entry_sig, args, &shaders)?;
        Ok(r.map(|r| {
            records.push(r);
            records.len() - 1
        }))
    };
    let raygen_entry = rs.raygen.as_ref();
    let raygen_record = record(
        "raygen".into(),
        state
            .associated(raygen, Associated::LocalRootSignature)
            .map_err(rays_err)?,
        raygen_entry.and_then(TableEntry::local_root_signature),
        raygen_entry.and_then(TableEntry::local),
        &[at(raygen)],
    )
    .map_err(rays_err)?;
    let mut miss = Vec::with_capacity(rs.miss.len());
    for (i, m) in rs.miss.iter().enumerate() {
        let lib = state
            .associated(m.export(), Associated::LocalRootSignature)
            .map_err(rays_err)?;
        let r = record(
            format!("miss[{i}]"),
            lib,
            m.local_root_signature(),
            m.local(),
            &[at(m.export())],
        )
        .map_err(rays_err)?;
        miss.push((at(m.export()), r));
    }
    let mut callable = Vec::with_capacity(rs.callable.len());
    for (i, c) in rs.callable.iter().enumerate() {
        let lib = state
            .associated(c.export(), Associated::LocalRootSignature)
            .map_err(rays_err)?;
        let r = record(
            format!("callable[{i}]"),
            lib,
            c.local_root_signature(),
            c.local(),
            &[at(c.export())],
        )
        .map_err(rays_err)?;
        callable.push((at(c.export()), r));
    }
    let mut group_records = Vec::with_capacity(groups.len());
    for (i, (g, h)) in groups.iter().zip(hit_groups).enumerate() {
        let names: Vec<&str> = [&g.closest_hit, &g.any_hit, &g.intersection]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect();
        let lib = state
            .associated_to_group(&h.name, &names, Associated::LocalRootSignature)
            .map_err(|e| rays_err(format!("`{}`: {e}", group_key(i, g))))?;
        let programs: Vec<usize> = [h.closest_hit, h.any_hit, h.intersection]
            .into_iter()
            .flatten()
            .collect();
        let r = record(
            group_key(i, g),
            lib,
            g.local_root_signature.as_deref(),
            g.local.as_deref(),
            &programs,
        )
        .map_err(rays_err)?;
        group_records.push((h, r));
    }
    Ok(Pipeline {
        raygen: (at(raygen), raygen_record),
        miss: miss.into(),
        hit_groups: group_records.into(),
        callable: callable.into(),
        names: None,
        records,
        global: config.global,
        arguments: None,
        max_recursion_depth: depth,
        pipeline_flags: config.pipeline_flags,
        dims,
        programs: loaded,
    })
}

/// A record's local root signature — the libraries' association `lib`, or the job's
/// `local_root_signature` — with its arguments checked against it (`job::local_root`).
/// `None` when it has none, or when `local` is not given and none of its `programs`
/// declares a register the signature binds (nothing would read the arguments).
fn local_record(
    key: String,
    lib: Option<Found>,
    entry_sig: Option<&[LocalParameterEntry]>,
    args: Option<&[LocalArgumentEntry]>,
    programs: &[&Shader],
) -> Result<Option<LocalRecord>, String> {
    let Some((signature, from)) = record_signature(&key, lib, entry_sig)? else {
        return match args {
            Some(a) if !a.is_empty() => Err(format!(
                "`{key}.local`: the record's export has no local root signature (no library associates one, and the entry gives no `local_root_signature`), so it takes no local root arguments"
            )),
            _ => Ok(None),
        };
    };
    if args.is_none()
        && (signature.parameters.is_empty()
            || !programs
                .iter()
                .any(|s| local_root::reads_any(s, &signature)))
    {
        return Ok(None);
    }
    let args = local_root::check_arguments(&key, &from, &signature, args)?;
    Ok(Some(LocalRecord {
        key,
        signature,
        args,
    }))
}

/// A record's local root signature and where it comes from: the libraries' association
/// `lib` or the job's `local_root_signature` (both is an error).
fn record_signature(
    key: &str,
    lib: Option<Found>,
    entry_sig: Option<&[LocalParameterEntry]>,
) -> Result<Option<(RootSignature, String)>, String> {
    Ok(Some(match (lib, entry_sig) {
        (Some(f), Some(_)) => {
            return Err(format!(
                "`{key}.local_root_signature`: the libraries already associate {} with this record's export; give one or the other",
                f.label()
            ));
        }
        (Some(f), None) => {
            local_record_size(&f).map_err(|m| format!("`{key}`: {m}"))?;
            let SubobjectDesc::LocalRootSignature { bytes } = &f.desc else {
                return Ok(None);
            };
            let sig = RootSignature::parse(bytes, FourCc::RTS0).map_err(|e| {
                format!(
                    "`{key}`: {}: cannot read the root signature: {e}",
                    f.label()
                )
            })?;
            (sig, f.label())
        }
        (None, Some(params)) => {
            let sig = local_root::job_signature(key, params)?;
            if sig.local_arguments().is_none() {
                return Err(format!(
                    "`{key}.local_root_signature`: its arguments pass the {MAX_SHADER_RECORD_STRIDE}-byte shader record"
                ));
            }
            (sig, format!("`{key}.local_root_signature`"))
        }
        (None, None) => return Ok(None),
    }))
}

/// With tables in buffers: what each identifier of the pipeline names — its ray
/// generation, miss and callable exports and its hit groups — with the local root
/// signature a record of it carries (none when its programs read no register of it).
/// Two names with one identifier are refused.
fn identified(
    rs: &RaysSection,
    groups: &[HitGroupEntry],
    hit_groups: Vec<HitGroup>,
    slots: &[Slot<'_>],
    loaded: &[(Shader, ProgramInfo)],
    state: &StateObject<'_>,
    at: &dyn Fn(&str) -> usize,
) -> Result<Vec<Named<Target>>, String> {
    let reads = |sig: Option<(RootSignature, String)>, programs: &[usize]| {
        sig.filter(|(s, _)| {
            programs.iter().any(|&p| {
                loaded
                    .get(p)
                    .is_some_and(|(sh, _)| local_root::reads_any(sh, s))
            })
        })
    };
    let mut out: Vec<Named<Target>> = Vec::new();
    for (i, e) in rs.miss.iter().enumerate() {
        let name = e.export();
        let table = match slots.iter().find(|s| s.name == name).map(|s| s.stage) {
            Some(Stage::RayGeneration) => "ray generation",
            Some(Stage::Miss) => "miss",
            Some(Stage::Callable) => "callable",
            _ => continue,
        };
        let key = format!("exports[{i}]");
        let lib = state.associated(name, Associated::LocalRootSignature)?;
        let sig = record_signature(&key, lib, e.local_root_signature())?;
        out.push(Named {
            name: name.to_string(),
            table,
            target: Target::Program(at(name)),
            signature: reads(sig, &[at(name)]),
        });
    }
    for (i, (g, h)) in groups.iter().zip(hit_groups).enumerate() {
        let names: Vec<&str> = [&g.closest_hit, &g.any_hit, &g.intersection]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect();
        let key = group_key(i, g);
        let lib = state
            .associated_to_group(&h.name, &names, Associated::LocalRootSignature)
            .map_err(|e| format!("`{key}`: {e}"))?;
        let sig = record_signature(&key, lib, g.local_root_signature.as_deref())?;
        let programs: Vec<usize> = [h.closest_hit, h.any_hit, h.intersection]
            .into_iter()
            .flatten()
            .collect();
        out.push(Named {
            name: h.name.clone(),
            table: "hit group",
            signature: reads(sig, &programs),
            target: Target::Group(h),
        });
    }
    for (k, a) in out.iter().enumerate() {
        if let Some(b) = out[..k].iter().find(|b| {
            b.name == a.name
                || shader_table::identifier(&b.name) == shader_table::identifier(&a.name)
        }) {
            return Err(format!(
                "\"{}\" and \"{}\" would share a shader identifier (names are unique in a state object)",
                b.name, a.name
            ));
        }
    }
    Ok(out)
}

/// With tables in buffers: reads the ray generation record and the miss, hit-group and
/// callable tables from the bound buffers into `p`'s tables and local records
/// (`job::shader_table` for the rules).
pub(crate) fn read_tables(
    p: &mut Pipeline,
    rs: &RaysSection,
    job: &Job,
    bound: &bind::BoundJob,
) -> Result<(), String> {
    let Some(names) = p.names.take() else {
        return Ok(());
    };
    let buffer_of = |n: &str| {
        job.file
            .resources
            .iter()
            .position(|e| e.name.as_deref() == Some(n))
            .and_then(|i| bound.resources.get(i))
            .and_then(|b| match &b.storage {
                bind::Storage::Buffer(m) => Some(m.clone()),
                _ => None,
            })
    };
    let resource_name = |i: usize| job.file.resources.get(i).and_then(|e| e.name.clone());
    let heap_len = bound.heap.len();
    let read = |key: &'static str,
                r: Option<&super::schema::TableRange>,
                table: &'static str,
                strided: bool| {
        match r {
            None => Ok::<_, String>((
                ShaderTable {
                    records: Vec::new(),
                    zero_stride: false,
                },
                Vec::new(),
            )),
            Some(r) => {
                let t = shader_table::read_range(key, r, &buffer_of, strided)?;
                let decoded =
                    shader_table::decode_table(&t, table, &names, &resource_name, heap_len)?;
                let raw = shader_table::record_arguments(&t, decoded.len());
                Ok((decoded, raw))
            }
        }
    };
    let (raygen, _) = read(
        "ray_generation_record",
        rs.ray_generation_record.as_ref(),
        "ray generation",
        false,
    )?;
    let (miss, miss_args) = read("miss_table", rs.miss_table.as_ref(), "miss", true)?;
    let (groups, group_args) = read(
        "hit_group_table",
        rs.hit_group_table.as_ref(),
        "hit group",
        true,
    )?;
    let (callable, _) = read(
        "callable_table",
        rs.callable_table.as_ref(),
        "callable",
        true,
    )?;
    p.arguments = Some(RecordArguments {
        miss: miss_args,
        hit_groups: group_args,
    });
    // One local record per distinct (name, arguments).
    let mut seen: Vec<(usize, Vec<LocalArgumentEntry>)> = Vec::new();
    let records = &mut p.records;
    let mut record_of = |d: &shader_table::Decoded| -> Option<usize> {
        let args = d.args.as_ref()?;
        let (sig, _) = names.get(d.named)?.signature.as_ref()?;
        if let Some(i) = seen.iter().position(|(n, a)| *n == d.named && a == args) {
            return Some(i);
        }
        seen.push((d.named, args.clone()));
        records.push(LocalRecord {
            key: d.key.clone(),
            signature: sig.clone(),
            args: args.clone(),
        });
        Some(records.len() - 1)
    };
    let program = |d: &shader_table::Decoded| match names.get(d.named).map(|n| &n.target) {
        Some(Target::Program(i)) => *i,
        _ => 0,
    };
    p.raygen = match raygen.records.first() {
        Some(TableRecord::Shader(d)) => (program(d), record_of(d)),
        Some(TableRecord::Null) => {
            return Err(
                "`ray_generation_record`: its shader identifier is NULL; D3D runs no shader for it, so nothing would run (refused, as a dispatch of 0 rays is)".into(),
            );
        }
        Some(TableRecord::Invalid(m)) => return Err(m.clone()),
        None => {
            return Err(format!(
                "`ray_generation_record.size` {}: the record holds at least a {SHADER_IDENTIFIER_SIZE}-byte shader identifier",
                rs.ray_generation_record.as_ref().map_or(0, |r| r.size)
            ));
        }
    };
    p.miss = miss.map(|d| (program(d), record_of(d)));
    p.callable = callable.map(|d| (program(d), record_of(d)));
    p.hit_groups = groups.map(|d| {
        let g = match names.get(d.named).map(|n| &n.target) {
            Some(Target::Group(g)) => g.clone(),
            _ => HitGroup {
                name: String::new(),
                closest_hit: None,
                any_hit: None,
                intersection: None,
            },
        };
        (g, record_of(d))
    });
    p.names = Some(names);
    Ok(())
}

/// A command list's `dispatch_rays` whose shader tables are in buffers: the tables are
/// read, and their records' programs fitted, when the command runs (D3D12 reads a
/// `D3D12_DISPATCH_RAYS_DESC`'s tables when the GPU executes the command), so a copy or
/// a dispatch before it in the list can write them.
#[derive(Debug)]
pub(crate) struct TablesInBuffers {
    /// The pipeline, its tables still empty.
    pub pipeline: Pipeline,
    /// The command's keys, as a `[rays]` section.
    pub rays: RaysSection,
    /// The job (its resources' names give addresses their resources).
    pub job: std::sync::Arc<Job>,
    /// The list's resources.
    pub bound: std::sync::Arc<bind::BoundJob>,
    /// The command's own bindings (`bind`).
    pub own: bind::BoundJob,
    /// The list's resource names, as indices into `bound`.
    pub names: std::collections::HashMap<String, usize>,
}

impl TablesInBuffers {
    /// Checks what does not depend on the tables' contents (each range inside its
    /// buffer, aligned), before the list runs.
    pub(crate) fn check_ranges(&self) -> Result<(), String> {
        let buffer_of = |n: &str| self.buffer_of(n);
        for (key, r, strided) in [
            (
                "ray_generation_record",
                &self.rays.ray_generation_record,
                false,
            ),
            ("miss_table", &self.rays.miss_table, true),
            ("hit_group_table", &self.rays.hit_group_table, true),
            ("callable_table", &self.rays.callable_table, true),
        ] {
            if let Some(r) = r {
                shader_table::read_range(key, r, &buffer_of, strided)?;
            }
        }
        Ok(())
    }

    fn buffer_of(&self, n: &str) -> Option<crate::resources::Memory> {
        let i = *self.names.get(n)?;
        match &self.bound.resources.get(i)?.storage {
            bind::Storage::Buffer(m) => Some(m.clone()),
            _ => None,
        }
    }
}

impl crate::pipeline::commands::LateWork for TablesInBuffers {
    fn name(&self) -> &'static str {
        "dispatch_rays"
    }

    fn program_count(&self) -> usize {
        self.pipeline.programs.len()
    }

    fn make(&self) -> Result<crate::pipeline::commands::MadeWork, String> {
        let mut p = self.pipeline.clone();
        read_tables(&mut p, &self.rays, &self.job, &self.bound)?;
        let (depth, flags, dims) = (p.max_recursion_depth, p.pipeline_flags, p.dims);
        let named = |n: &str| {
            self.names
                .get(n)
                .and_then(|&i| self.bound.resources.get(i))
                .or_else(|| shader_table::heap_slot_of(n).and_then(|s| self.bound.heap.get(s)))
        };
        let index = |n: &str| self.names.get(n).copied();
        let mut f = fit_pipeline(p, &self.own, &named, &index).map_err(|w| match w {
            Where::At(_, m) => m,
            Where::Job(x) => format!("the bindings: {x}"),
        })?;
        let sources = std::mem::take(&mut f.sources);
        Ok(crate::pipeline::commands::MadeWork {
            work: Work::Rays(Box::new(f.work(depth, flags, dims))),
            sources,
        })
    }
}

/// A pipeline's programs fitted to the job's resources: one per program and record
/// (a program of records with local root arguments is fitted once per record), the
/// tables as indices into them, the programs' files and the reflection warnings.
pub(crate) struct FittedPipeline {
    /// Every fitted program with its bindings.
    pub programs: Vec<(Shader, Bindings)>,
    /// The loaded programs' files, once each.
    pub infos: Vec<ProgramInfo>,
    /// The file of each of `programs` (a program fitted for several records is listed
    /// once per fit, as a command list counts a command's programs).
    pub fitted_infos: Vec<ProgramInfo>,
    /// For each of `programs`, its index in the pipeline's loaded programs (which of
    /// `infos` it is).
    pub sources: Vec<usize>,
    /// The reflection warnings (a binding is "not used" only when no fit uses it).
    pub warnings: Vec<String>,
    /// The ray-generation program.
    pub raygen: usize,
    /// The miss table.
    pub miss: ShaderTable<usize>,
    /// The hit-group table.
    pub hit_groups: ShaderTable<HitGroup>,
    /// The callable table.
    pub callable: ShaderTable<usize>,
    /// The miss and hit-group records' local root arguments.
    pub arguments: RecordArguments,
}

impl FittedPipeline {
    /// The `DispatchRays` of these programs and tables.
    pub(crate) fn work(
        &mut self,
        max_recursion_depth: u32,
        pipeline_flags: u32,
        dims: [u32; 3],
    ) -> RaysWork {
        RaysWork {
            programs: std::mem::take(&mut self.programs),
            raygen: self.raygen,
            miss: self.miss.clone(),
            hit_groups: self.hit_groups.clone(),
            callable: self.callable.clone(),
            max_recursion_depth,
            pipeline_flags,
            arguments: std::mem::take(&mut self.arguments),
            dims,
        }
    }
}

/// The local root arguments of `rec` as the bytes after a record's identifier hold
/// them ("Shader table memory initialization", the layout of `job::shader_table`):
/// root constants as 32-bit words; a root descriptor as the GPU virtual address of its
/// `[[resource]]` plus its offset (`resource_index` finds the entry); a descriptor
/// table as the handle of its first heap slot, or 0 when it names `[[resource]]`
/// entries (which have no heap slot).
fn argument_bytes(rec: &LocalRecord, resource_index: &dyn Fn(&str) -> Option<usize>) -> Vec<u8> {
    let Some((layout, size)) = rec.signature.local_arguments() else {
        return Vec::new();
    };
    let id = SHADER_IDENTIFIER_SIZE as usize;
    let mut out = vec![0u8; (size as usize).saturating_sub(id)];
    for (l, a) in layout.iter().zip(&rec.args) {
        let bytes: Vec<u8> = if let Some(c) = &a.constants {
            c.iter()
                .flat_map(|v| shader_table::constant_word(*v).unwrap_or(0).to_le_bytes())
                .collect()
        } else if let Some(n) = &a.resource {
            resource_index(n)
                .map_or(0, |i| {
                    shader_table::resource_address(i).saturating_add(a.offset.unwrap_or(0))
                })
                .to_le_bytes()
                .to_vec()
        } else if let Some(t) = &a.table {
            t.first()
                .and_then(|n| shader_table::heap_slot_of(n))
                .and_then(|s| u32::try_from(s).ok())
                .map_or(0, shader_table::heap_handle)
                .to_le_bytes()
                .to_vec()
        } else {
            Vec::new()
        };
        let at = (l.offset as usize).saturating_sub(id);
        if let Some(dst) = out.get_mut(at..at + bytes.len()) {
            dst.copy_from_slice(&bytes);
        }
    }
    out
}

/// Fits every record's programs to `bound` (the reflection check), each record with
/// local root arguments to its own view of the resources (`job::local_root`; `named`
/// finds a named `[[resource]]`).
pub(crate) fn fit_pipeline<'a>(
    p: Pipeline,
    bound: &bind::BoundJob,
    named: &dyn Fn(&str) -> Option<&'a bind::BoundEntry>,
    resource_index: &dyn Fn(&str) -> Option<usize>,
) -> Result<FittedPipeline, Where> {
    // What `HitObject::LoadLocalRootTableConstant` reads: the bytes of tables in
    // buffers, or the list form's arguments laid out as a record would hold them.
    let arguments = match &p.arguments {
        Some(a) => a.clone(),
        None => {
            let bytes = |rec: &Option<usize>| {
                rec.and_then(|r| p.records.get(r))
                    .map(|r| argument_bytes(r, resource_index))
                    .unwrap_or_default()
            };
            RecordArguments {
                miss: p
                    .miss
                    .records
                    .iter()
                    .map(|r| match r {
                        TableRecord::Shader((_, rec)) => bytes(rec),
                        _ => Vec::new(),
                    })
                    .collect(),
                hit_groups: p
                    .hit_groups
                    .records
                    .iter()
                    .map(|r| match r {
                        TableRecord::Shader((_, rec)) => bytes(rec),
                        _ => Vec::new(),
                    })
                    .collect(),
            }
        }
    };
    // The global root signature's registers bind its arguments for every program;
    // a record's local root signature then binds its own on top.
    let global_view;
    let bound = match &p.global {
        Some(g) => {
            global_view =
                local_root::record_view(g, bound, named).map_err(|m| Where::At(Part::Rays, m))?;
            &global_view
        }
        None => bound,
    };
    let mut views = Vec::with_capacity(p.records.len());
    for r in &p.records {
        views.push(local_root::record_view(r, bound, named).map_err(|m| Where::At(Part::Rays, m))?);
    }
    // Every (program, record) the tables use, in table order.
    let mut uses: Vec<Record> = Vec::new();
    let mut use_of = |r: Record| match uses.iter().position(|u| *u == r) {
        Some(i) => i,
        None => {
            uses.push(r);
            uses.len() - 1
        }
    };
    let raygen = use_of(p.raygen);
    let miss = p.miss.map(|&r| use_of(r));
    let hit_groups = p.hit_groups.map(|(h, rec)| HitGroup {
        name: h.name.clone(),
        closest_hit: h.closest_hit.map(|i| use_of((i, *rec))),
        any_hit: h.any_hit.map(|i| use_of((i, *rec))),
        intersection: h.intersection.map(|i| use_of((i, *rec))),
    });
    let callable = p.callable.map(|&r| use_of(r));
    let mut programs = Vec::with_capacity(uses.len());
    let mut fitted_infos = Vec::with_capacity(uses.len());
    let mut sources = Vec::with_capacity(uses.len());
    let mut warnings: Vec<String> = Vec::new();
    let mut unused: Option<Vec<String>> = None;
    for (prog, rec) in uses {
        let Some((shader, info)) = p.programs.get(prog) else {
            continue;
        };
        let view = rec.and_then(|r| views.get(r)).unwrap_or(bound);
        let record = rec
            .and_then(|r| p.records.get(r))
            .map(|r| format!(" (record `{}`)", r.key))
            .unwrap_or_default();
        let fit = reflect::check(shader, view)
            .map_err(|e| match e {
                JobError::Reflection { message, listing } => JobError::Reflection {
                    message: format!("program \"{}\"{record}: {message}", shader.entry),
                    listing,
                },
                e => e,
            })
            .map_err(Where::Job)?;
        let (not_used, other): (Vec<String>, Vec<String>) = fit
            .warnings
            .into_iter()
            .partition(|w| w.contains("this binding is not used"));
        unused = Some(match unused {
            None => not_used,
            Some(u) => u.into_iter().filter(|w| not_used.contains(w)).collect(),
        });
        for w in other {
            if !warnings.contains(&w) {
                warnings.push(w);
            }
        }
        programs.push((shader.clone(), fit.bindings));
        fitted_infos.push(info.clone());
        sources.push(prog);
    }
    // An entry a record's arguments name is used through the record, under another
    // register (or none): its "not used" warning would be wrong.
    let by_records: Vec<String> = p
        .records
        .iter()
        .flat_map(|r| &r.args)
        .flat_map(|a| a.resource.iter().chain(a.table.iter().flatten()))
        .filter_map(|n| named(n).map(|e| format!("{}: ", e.name)))
        .collect();
    warnings.extend(
        unused
            .unwrap_or_default()
            .into_iter()
            .filter(|w| !by_records.iter().any(|n| w.starts_with(n.as_str()))),
    );
    Ok(FittedPipeline {
        programs,
        infos: p.programs.into_iter().map(|(_, i)| i).collect(),
        fitted_infos,
        sources,
        warnings,
        raygen,
        miss,
        hit_groups,
        callable,
        arguments,
    })
}

/// Checks and binds a `[rays]` job (see the module doc).
pub(crate) fn prepare_rays(job: Job, opts: &RunOptions<'_>) -> Result<Prepared, JobError> {
    let Some(rs) = job.file.rays.clone() else {
        return Err(rays_err("missing".into()));
    };
    if job.file.dispatch.is_some() || job.file.draw.is_some() {
        return Err(rays_err(
            "a job has one of `[dispatch]`, `[draw]` and `[rays]`".into(),
        ));
    }
    let p = &job.file.program;
    let others = [
        ("cs", p.cs.is_some()),
        ("vs", p.vs.is_some()),
        ("ps", p.ps.is_some()),
        ("gs", p.gs.is_some()),
        ("hs", p.hs.is_some()),
        ("ds", p.ds.is_some()),
        ("ms", p.ms.is_some()),
        ("as", p.amplification.is_some()),
        ("entry", p.entry.is_some()),
    ];
    if let Some((k, _)) = others.iter().find(|(_, set)| *set) {
        return Err(program_err(format!(
            "`{k}`: a `[rays]` job runs the exports of `library` or `libraries`, named in `[rays]`"
        )));
    }
    let mut pipeline =
        read_pipeline(&job, p.library.as_ref(), p.libraries.as_ref(), &rs).map_err(|w| {
            w.into_job(|part, m| match part {
                Part::Program => program_err(m),
                Part::Rays => rays_err(m),
            })
        })?;
    let o = &job.file.options;
    let plan = resolve_plan(&job, opts)?;
    for (s, _) in &pipeline.programs {
        plan.wave_size_of(s).map_err(|e| wave_err(&e, &s.entry))?;
    }
    let resource_limit = o.max_memory.unwrap_or(DEFAULT_MAX_RESOURCE_BYTES);
    let mut bound = bind::bind_job(&job.file, &job.dir, resource_limit)?;
    let gate = output_gate(&job, opts);
    place_outputs(&mut bound, &gate)?;
    let memory = resource_memory(&bound, resource_limit)?;
    super::run::check_outputs(&bound)?;
    let expects = check_expects(&job, &bound, None)?;
    read_tables(&mut pipeline, &rs, &job, &bound).map_err(rays_err)?;
    let (max_recursion_depth, pipeline_flags, dims) = (
        pipeline.max_recursion_depth,
        pipeline.pipeline_flags,
        pipeline.dims,
    );
    let named = |n: &str| {
        job.file
            .resources
            .iter()
            .position(|e| e.name.as_deref() == Some(n))
            .and_then(|i| bound.resources.get(i))
            .or_else(|| shader_table::heap_slot_of(n).and_then(|s| bound.heap.get(s)))
    };
    let resource_index = |n: &str| {
        job.file
            .resources
            .iter()
            .position(|e| e.name.as_deref() == Some(n))
    };
    let mut f = fit_pipeline(pipeline, &bound, &named, &resource_index).map_err(|w| {
        w.into_job(|part, m| match part {
            Part::Program => program_err(m),
            Part::Rays => rays_err(m),
        })
    })?;
    let work = f.work(max_recursion_depth, pipeline_flags, dims);
    // A buffer a shader table is read from is used through the table.
    let tables: Vec<String> = [
        &rs.ray_generation_record,
        &rs.miss_table,
        &rs.hit_group_table,
        &rs.callable_table,
    ]
    .into_iter()
    .flatten()
    .filter_map(|r| named(&r.buffer).map(|e| format!("{}: ", e.name)))
    .collect();
    let infos = f.infos;
    let warnings: Vec<String> = f
        .warnings
        .into_iter()
        .filter(|w| !tables.iter().any(|t| w.starts_with(t.as_str())))
        .collect();
    let summary = summary_place(&job, opts, &gate)?;
    Ok(Prepared {
        work: Work::Rays(Box::new(work)),
        plan,
        programs: infos,
        bound,
        targets: Vec::new(),
        depth: None,
        so_buffers: Vec::new(),
        draw_queries: Vec::new(),
        warnings,
        expects,
        gate,
        memory,
        summary,
        job,
    })
}

/// A program's wave size refused under the plan, naming the program.
pub(crate) fn wave_err(e: &ExecError, program: &str) -> JobError {
    match e {
        ExecError::WaveSize { size, message } => JobError::Section {
            section: "[options]",
            message: format!("`wave_size` {size}: {message} (program \"{program}\")"),
        },
        e => JobError::Section {
            section: "[options]",
            message: format!("`wave_size`: {e}"),
        },
    }
}

/// `[rays] dispatch`, checked.
fn check_dispatch(rs: &RaysSection) -> Result<[u32; 3], String> {
    let d = rs.dispatch.ok_or_else(|| {
        "missing `dispatch = [width, height, depth]` (DispatchRays' size)".to_string()
    })?;
    if d.contains(&0) {
        return Err(format!(
            "`dispatch` {d:?}: a dimension of 0 launches no ray (D3D12), so nothing would run; give each at least 1"
        ));
    }
    let total = u64::from(d[0]) * u64::from(d[1]) * u64::from(d[2]);
    if total > MAX_DISPATCH_RAYS {
        return Err(format!(
            "`dispatch` {d:?}: {total} rays; DispatchRays allows width × height × depth of at most 2^30"
        ));
    }
    Ok(d)
}

/// The `D3D12_RAYTRACING_PIPELINE_FLAGS` dxlane takes: `SKIP_TRIANGLES` (0x100),
/// `SKIP_PROCEDURAL_PRIMITIVES` (0x200) and `ALLOW_OPACITY_MICROMAPS` (0x400, which
/// changes nothing: there are no opacity micromaps).
pub const PIPELINE_FLAGS: u32 = 0x700;

/// The pipeline's configuration: the job's values and the libraries' subobjects, checked
/// to agree.
struct Config {
    global: Option<LocalRecord>,
    max_recursion_depth: Option<u32>,
    max_payload_size: Option<u32>,
    max_attribute_size: Option<u32>,
    pipeline_flags: u32,
}

/// The job's hit groups with what the libraries' `HitGroup` subobjects of the same name
/// define filled in. An entry naming a library hit group may omit its programs and kind;
/// what it states must agree with the library's. An entry with a name, no programs and
/// no library hit group of that name is refused (it would run nothing).
fn resolve_hit_groups(
    entries: &[HitGroupEntry],
    state: &StateObject<'_>,
) -> Result<Vec<HitGroupEntry>, String> {
    let mut out = Vec::with_capacity(entries.len());
    for (i, g) in entries.iter().enumerate() {
        let key = group_key(i, g);
        let found = g.name.as_deref().and_then(|n| state.hit_group(n));
        let Some(f) = found else {
            if let Some(n) = &g.name
                && g.closest_hit.is_none()
                && g.any_hit.is_none()
                && g.intersection.is_none()
                && g.kind.is_none()
            {
                return Err(format!(
                    "`{key}`: names no programs, and no library defines a hit group \"{n}\" (give `closest_hit`, `any_hit` or `intersection`, or the name of a library's TriangleHitGroup / ProceduralPrimitiveHitGroup)"
                ));
            }
            out.push(g.clone());
            continue;
        };
        let SubobjectDesc::HitGroup {
            kind,
            any_hit,
            closest_hit,
            intersection,
        } = &f.desc
        else {
            out.push(g.clone());
            continue;
        };
        let lib_kind = match kind {
            0 => "triangles",
            1 => "procedural",
            k => {
                return Err(format!(
                    "`{key}`: {} has hit-group type {k}, which is neither 0 (triangles) nor 1 (procedural primitive) (D3D12_HIT_GROUP_TYPE)",
                    f.label()
                ));
            }
        };
        let some = |s: &String| (!s.is_empty()).then(|| s.clone());
        let mut r = g.clone();
        for (field, mine, theirs) in [
            ("kind", &mut r.kind, Some(lib_kind.to_string())),
            ("closest_hit", &mut r.closest_hit, some(closest_hit)),
            ("any_hit", &mut r.any_hit, some(any_hit)),
            ("intersection", &mut r.intersection, some(intersection)),
        ] {
            match (mine.as_ref(), theirs.as_ref()) {
                (Some(m), Some(t)) if m != t => {
                    return Err(format!(
                        "`{key}.{field}` \"{m}\" disagrees with the library's {}: {field} \"{t}\" (where a job restates a library's hit group, the two must agree)",
                        f.label()
                    ));
                }
                (Some(m), None) => {
                    return Err(format!(
                        "`{key}.{field}` \"{m}\" disagrees with the library's {}, which has no {field} (where a job restates a library's hit group, the two must agree)",
                        f.label()
                    ));
                }
                _ => *mine = theirs.or_else(|| mine.clone()),
            }
        }
        out.push(r);
    }
    Ok(out)
}

/// The subobjects of type `ty` associated with the pipeline's exports, which must all
/// have one definition (DXR spec "Subobject association requirements": shader and
/// pipeline configuration are required and matching for all exports).
fn pipeline_subobject(
    rs: &RaysSection,
    groups: &[HitGroupEntry],
    state: &StateObject<'_>,
    ty: Associated,
) -> Result<Option<(Found, String)>, String> {
    let mut seen: Option<(Found, String)> = None;
    let mut check = |export: String, f: Option<Found>| -> Result<(), String> {
        let Some(f) = f else { return Ok(()) };
        match &seen {
            Some((s, e)) if s.desc != f.desc => Err(format!(
                "\"{e}\" is associated with {}, but \"{export}\" with {} (a pipeline takes one shader configuration and one pipeline configuration for all its exports)",
                s.label(),
                f.label()
            )),
            Some(_) => Ok(()),
            None => {
                seen = Some((f, export));
                Ok(())
            }
        }
    };
    let singles = rs.raygen.iter().chain(&rs.miss).chain(&rs.callable);
    for e in singles.map(TableEntry::export) {
        check(e.to_string(), state.associated(e, ty)?)?;
    }
    for (i, g) in groups.iter().enumerate() {
        let programs: Vec<&str> = [&g.closest_hit, &g.any_hit, &g.intersection]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect();
        let name = g.name.clone().unwrap_or_else(|| format!("hit_groups[{i}]"));
        let f = state
            .associated_to_group(&name, &programs, ty)
            .map_err(|e| format!("`{}`: {e}", group_key(i, g)))?;
        check(name, f)?;
    }
    Ok(seen)
}

/// The pipeline's configuration from the job's keys and the libraries' subobjects (see
/// the module doc): each value from either, and where both give one they must agree.
/// Root signature associations are resolved too, so that conflicts are refused.
fn resolve_config(
    rs: &RaysSection,
    groups: &[HitGroupEntry],
    state: &StateObject<'_>,
) -> Result<Config, String> {
    let shader = pipeline_subobject(rs, groups, state, Associated::ShaderConfig)?;
    let pipeline = pipeline_subobject(rs, groups, state, Associated::PipelineConfig)?;
    let global = global_record(
        rs,
        pipeline_subobject(rs, groups, state, Associated::GlobalRootSignature)?,
    )?;
    pipeline_subobject_each(rs, groups, state)?;
    let agree = |key: &str, job: Option<u32>, lib: Option<(u32, &Found, &str)>| match (job, lib) {
        (Some(j), Some((l, f, field))) if j != l => Err(format!(
            "`{key}` {j} disagrees with {f}'s {field} {l} (the job's and the library's configuration must agree)",
            f = f.label()
        )),
        (j, l) => Ok(j.or(l.map(|(v, _, _)| v))),
    };
    let (mut payload, mut attributes, mut depth, mut flags) = (None, None, None, 0);
    if let Some((f, _)) = &shader
        && let SubobjectDesc::ShaderConfig {
            max_payload_size,
            max_attribute_size,
        } = f.desc
    {
        payload = Some((max_payload_size, f, "MaxPayloadSizeInBytes"));
        attributes = Some((max_attribute_size, f, "MaxAttributeSizeInBytes"));
    }
    if let Some((f, _)) = &pipeline
        && let SubobjectDesc::PipelineConfig {
            max_recursion_depth,
            flags: fl,
        } = f.desc
    {
        depth = Some((max_recursion_depth, f, "MaxTraceRecursionDepth"));
        flags = fl.unwrap_or(0);
        if flags & !PIPELINE_FLAGS != 0 {
            return Err(format!(
                "{}: Flags 0x{flags:x} has bits D3D12_RAYTRACING_PIPELINE_FLAGS does not define (it has SKIP_TRIANGLES 0x100, SKIP_PROCEDURAL_PRIMITIVES 0x200, ALLOW_OPACITY_MICROMAPS 0x400)",
                f.label()
            ));
        }
    }
    Ok(Config {
        global,
        max_recursion_depth: agree("max_recursion_depth", rs.max_recursion_depth, depth)?,
        max_payload_size: agree("max_payload_size", rs.max_payload_size, payload)?,
        max_attribute_size: agree("max_attribute_size", rs.max_attribute_size, attributes)?,
        pipeline_flags: flags,
    })
}

/// The pipeline's global root signature — the libraries' association `lib` or the job's
/// `global_root_signature` (both is an error) — with the job's `global` arguments
/// checked against it (`job::local_root`). Without `global`, the programs' registers
/// bind the job's resources as before (nothing else supplies the arguments); `global`
/// without a signature is an error.
fn global_record(
    rs: &RaysSection,
    lib: Option<(Found, String)>,
) -> Result<Option<LocalRecord>, String> {
    let sig = match (lib, rs.global_root_signature.as_deref()) {
        (Some((f, _)), Some(_)) => {
            return Err(format!(
                "`global_root_signature`: the libraries already associate {} with the pipeline's exports; give one or the other",
                f.label()
            ));
        }
        (Some((f, _)), None) => {
            let SubobjectDesc::GlobalRootSignature { bytes } = &f.desc else {
                return Ok(None);
            };
            let sig = RootSignature::parse(bytes, FourCc::RTS0)
                .map_err(|e| format!("{}: cannot read the root signature: {e}", f.label()))?;
            Some((sig, f.label()))
        }
        (None, Some(params)) => Some((
            local_root::job_signature("global", params)
                .map_err(|m| m.replace("global.local_root_signature", "global_root_signature"))?,
            "`global_root_signature`".to_string(),
        )),
        (None, None) => None,
    };
    match (sig, rs.global.as_deref()) {
        (Some((sig, from)), Some(args)) => {
            let args = local_root::check_arguments("global", &from, &sig, Some(args))?;
            Ok(Some(LocalRecord {
                key: "global".into(),
                signature: sig,
                args,
            }))
        }
        (None, Some(_)) => Err(
            "`global`: the pipeline has no global root signature (give `global_root_signature`, or associate a GlobalRootSignature subobject in a library)".into(),
        ),
        (_, None) => Ok(None),
    }
}

/// Every export's local root signature association, resolved so that conflicts are
/// refused (local root signatures may differ between exports, unlike the rest).
fn pipeline_subobject_each(
    rs: &RaysSection,
    groups: &[HitGroupEntry],
    state: &StateObject<'_>,
) -> Result<(), String> {
    for e in rs
        .raygen
        .iter()
        .chain(&rs.miss)
        .chain(&rs.callable)
        .map(TableEntry::export)
    {
        if let Some(f) = state.associated(e, Associated::LocalRootSignature)? {
            local_record_size(&f).map_err(|m| format!("\"{e}\": {m}"))?;
        }
    }
    for (i, g) in groups.iter().enumerate() {
        let programs: Vec<&str> = [&g.closest_hit, &g.any_hit, &g.intersection]
            .into_iter()
            .flatten()
            .map(String::as_str)
            .collect();
        let name = g.name.clone().unwrap_or_else(|| format!("hit_groups[{i}]"));
        if let Some(f) = state
            .associated_to_group(&name, &programs, Associated::LocalRootSignature)
            .map_err(|e| format!("`{}`: {e}", group_key(i, g)))?
        {
            local_record_size(&f).map_err(|m| format!("`{}`: {m}", group_key(i, g)))?;
        }
    }
    Ok(())
}

/// The shader record size a local root signature subobject's arguments need
/// (`container::rts0`): refused when its bytes do not decode or its arguments pass the
/// 4096-byte record (DXR spec "Local root signatures vs global root signatures").
fn local_record_size(f: &Found) -> Result<u32, String> {
    let SubobjectDesc::LocalRootSignature { bytes } = &f.desc else {
        return Ok(SHADER_IDENTIFIER_SIZE);
    };
    let rs = RootSignature::parse(bytes, FourCc::RTS0)
        .map_err(|e| format!("{}: cannot read the root signature: {e}", f.label()))?;
    rs.local_arguments().map(|(_, size)| size).ok_or_else(|| {
        format!(
            "{}: its local root arguments pass the {MAX_SHADER_RECORD_STRIDE}-byte shader record (at most {} bytes after the identifier)",
            f.label(),
            MAX_SHADER_RECORD_STRIDE.saturating_sub(SHADER_IDENTIFIER_SIZE)
        )
    })
}

/// `hit_groups[i] ("name")`, or `hit_groups[i]`.
fn group_key(i: usize, g: &HitGroupEntry) -> String {
    match &g.name {
        Some(n) => format!("hit_groups[{i}] (\"{n}\")"),
        None => format!("hit_groups[{i}]"),
    }
}

/// Whether each hit group is procedural, checked against its intersection program
/// (`D3D12_HIT_GROUP_TYPE`).
fn hit_group_kinds(groups: &[HitGroupEntry]) -> Result<Vec<bool>, String> {
    let mut out = Vec::with_capacity(groups.len());
    for (i, g) in groups.iter().enumerate() {
        let key = group_key(i, g);
        let procedural = match g.kind.as_deref() {
            None | Some("triangles") => false,
            Some("procedural") => true,
            Some(k) => {
                return Err(format!(
                    "`{key}.kind` \"{k}\": give \"triangles\" or \"procedural\""
                ));
            }
        };
        match (procedural, &g.intersection) {
            (false, Some(x)) => {
                return Err(format!(
                    "`{key}`: a triangles hit group has no intersection program (\"{x}\"); give `kind = \"procedural\"` for procedural primitives (D3D12_HIT_GROUP_TYPE)"
                ));
            }
            (true, None) => {
                return Err(format!(
                    "`{key}`: a procedural hit group needs an `intersection` program (D3D12_HIT_GROUP_TYPE_PROCEDURAL_PRIMITIVE)"
                ));
            }
            _ => {}
        }
        out.push(procedural);
    }
    Ok(out)
}

/// The library exporting `slot`'s name, with the stage the slot needs.
fn find_export<'l>(libs: &'l [Library], slot: &Slot<'_>) -> Result<&'l Library, String> {
    let mut found = libs.iter().filter_map(|l| {
        l.exports
            .iter()
            .find(|e| e.name == slot.name)
            .map(|e| (l, e))
    });
    let Some((lib, export)) = found.next() else {
        let all: Vec<&str> = libs
            .iter()
            .flat_map(|l| l.exports.iter().map(|e| e.name.as_str()))
            .collect();
        let hint = match super::closest(slot.name, all.iter().copied()) {
            Some(c) => format!(" (did you mean \"{c}\"?)"),
            None => String::new(),
        };
        let list = if all.is_empty() {
            "nothing".to_string()
        } else {
            all.join(", ")
        };
        return Err(format!(
            "`{}`: no library exports \"{}\"{hint}; they export {list}",
            slot.key, slot.name
        ));
    };
    if let Some((other, _)) = found.next() {
        return Err(format!(
            "`{}`: \"{}\" is exported by both `{}` and `{}` (export names are unique in a D3D12 state object)",
            slot.key, slot.name, lib.key, other.key
        ));
    }
    if export.stage != Some(slot.stage) {
        let is = match export.stage {
            Some(s) => stage_words(s),
            None => "not a shader program".to_string(),
        };
        return Err(format!(
            "`{}`: \"{}\" is {is}, not {}",
            slot.key,
            slot.name,
            stage_words(slot.stage)
        ));
    }
    Ok(lib)
}

/// An operation's HLSL name and the bytes of the payload or attributes it passes.
type OpBytes = (&'static str, u32);

/// The payload sizes of the operations of `s` that pass a payload (`TraceRay`,
/// `HitObject::TraceRay`, `HitObject::Invoke`) and the attribute sizes of those that
/// pass attributes (`ReportHit`, `HitObject::FromRayQuery` with attributes,
/// `HitObject::GetAttributes`), each with the operation's HLSL name for messages.
fn call_sizes(s: &Shader) -> (Vec<OpBytes>, Vec<OpBytes>) {
    let mut trace = Vec::new();
    let mut report = Vec::new();
    for i in &s.insts {
        match i {
            Inst::RayTrace { bytes, .. } => trace.push(("TraceRay", *bytes)),
            Inst::HitObjectTrace { bytes, .. } => trace.push(("HitObject::TraceRay", *bytes)),
            Inst::HitObjectInvoke { bytes, .. } => trace.push(("HitObject::Invoke", *bytes)),
            Inst::RayReportHit { bytes, .. } => report.push(("ReportHit", *bytes)),
            Inst::HitObjectFromQueryAttrs { bytes, .. } => {
                report.push(("HitObject::FromRayQuery", *bytes));
            }
            Inst::HitObjectAttributes { bytes, .. } => {
                report.push(("HitObject::GetAttributes", *bytes));
            }
            _ => {}
        }
    }
    (trace, report)
}

/// The shader configuration against every program (see the module doc).
fn check_sizes(
    loaded: &[(Shader, ProgramInfo)],
    slots: &[Slot<'_>],
    index: &BTreeMap<&str, usize>,
    max_payload: u32,
    max_attributes: u32,
) -> Result<(), String> {
    let mut seen = vec![false; loaded.len()];
    for slot in slots {
        let Some(&i) = index.get(slot.name) else {
            continue;
        };
        let (Some((s, _)), Some(done)) = (loaded.get(i), seen.get_mut(i)) else {
            continue;
        };
        if *done {
            continue;
        }
        *done = true;
        let name = slot.name;
        let ray = s.ray.unwrap_or(crate::ir::RayState {
            payload: None,
            attributes: None,
        });
        if s.stage != Stage::Callable
            && let Some((_, bytes)) = ray.payload
            && bytes > max_payload
        {
            return Err(format!(
                "`max_payload_size` {max_payload}: \"{name}\" ({}) declares a payload of {bytes} bytes",
                slot.key
            ));
        }
        if let Some((_, bytes)) = ray.attributes
            && bytes > max_attributes
        {
            return Err(format!(
                "`max_attribute_size` {max_attributes}: \"{name}\" ({}) declares attributes of {bytes} bytes",
                slot.key
            ));
        }
        let (trace, report) = call_sizes(s);
        // The message names the operation whose operand fixed the size.
        if let Some((op, b)) = trace.iter().find(|(_, b)| *b > max_payload) {
            return Err(format!(
                "`max_payload_size` {max_payload}: \"{name}\" ({}) calls {op} with a payload of {b} bytes",
                slot.key
            ));
        }
        if let Some((op, b)) = report.iter().find(|(_, b)| *b > max_attributes) {
            return Err(format!(
                "`max_attribute_size` {max_attributes}: \"{name}\" ({}) calls {op} with attributes of {b} bytes",
                slot.key
            ));
        }
    }
    Ok(())
}

/// Each hit group's closest-hit and any-hit attributes against what its hits carry:
/// barycentrics for triangles, the intersection program's `ReportHit` attributes for
/// procedural primitives.
fn check_hit_attributes(
    groups: &[HitGroupEntry],
    procedural: &[bool],
    loaded: &[(Shader, ProgramInfo)],
    index: &BTreeMap<&str, usize>,
) -> Result<(), String> {
    let shader = |n: &Option<String>| {
        n.as_deref()
            .and_then(|n| index.get(n))
            .and_then(|&i| loaded.get(i))
            .map(|(s, _)| s)
    };
    for (i, g) in groups.iter().enumerate() {
        let key = group_key(i, g);
        let is_procedural = procedural.get(i).copied().unwrap_or(false);
        let (want, from) = if is_procedural {
            let Some(x) = shader(&g.intersection) else {
                continue;
            };
            let (_, report) = call_sizes(x);
            let Some(&(_, first)) = report.first() else {
                continue;
            };
            if let Some(&(_, other)) = report.iter().find(|(_, b)| *b != first) {
                return Err(format!(
                    "`{key}.intersection`: \"{}\" reports hits with attributes of {first} and of {other} bytes; a hit group's programs take one attribute structure",
                    x.entry
                ));
            }
            (
                first,
                format!("its intersection program \"{}\" reports", x.entry),
            )
        } else {
            (
                TRIANGLE_ATTRIBUTE_BYTES,
                "triangle hits carry (BuiltInTriangleIntersectionAttributes)".to_string(),
            )
        };
        for (field, n) in [("closest_hit", &g.closest_hit), ("any_hit", &g.any_hit)] {
            let Some(s) = shader(n) else { continue };
            if let Some((_, bytes)) = s.ray.and_then(|r| r.attributes)
                && bytes != want
            {
                return Err(format!(
                    "`{key}.{field}`: \"{}\" takes attributes of {bytes} bytes, but {from} {want} bytes",
                    s.entry
                ));
            }
        }
    }
    Ok(())
}
