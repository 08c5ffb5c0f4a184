//! The job file's TOML schema, as serde types. The contract is DESIGN's "Job file":
//! extend it, never break it. Unknown keys are refused, so a misspelt key is an error
//! rather than a silently ignored setting.

use std::path::PathBuf;

use serde::{Deserialize, Serialize};

/// A whole job file.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct JobFile {
    /// The program(s) to run (a command list names them per command instead).
    #[serde(default)]
    pub program: ProgramSection,
    /// A compute dispatch.
    pub dispatch: Option<DispatchSection>,
    /// A draw (`[program] vs`/`ps`): see `job::draw`.
    pub draw: Option<super::draw::DrawSection>,
    /// Run options.
    #[serde(default)]
    pub options: OptionsSection,
    /// Bound resources.
    #[serde(default, rename = "resource")]
    pub resources: Vec<ResourceEntry>,
    /// SM 6.6 `ResourceDescriptorHeap` entries, in heap order (`descriptor` set, no
    /// `reg`/`space`).
    #[serde(default, rename = "heap")]
    pub heap: Vec<ResourceEntry>,
    /// SM 6.6 `SamplerDescriptorHeap` entries, in heap order.
    #[serde(default, rename = "sampler_heap")]
    pub sampler_heap: Vec<SamplerEntry>,
    /// Expected output values.
    #[serde(default, rename = "expect")]
    pub expects: Vec<ExpectEntry>,
    /// A command list (`[[command]]`, in order): see `job::list`.
    #[serde(default, rename = "command")]
    pub commands: Vec<super::list::CommandEntry>,
    /// A command list's query heaps (`[[query_heap]]`): see `job::list`.
    #[serde(default, rename = "query_heap")]
    pub query_heaps: Vec<super::list::QueryHeapEntry>,
    /// Ray tracing acceleration structures, bottom- and top-level, by name: see
    /// `job::accel`. A `[[resource]]` of kind `acceleration_structure` binds a top-level one.
    #[serde(default, rename = "acceleration_structure")]
    pub acceleration_structures: Vec<AccelEntry>,
    /// A ray-tracing pipeline's `DispatchRays` over `[program] library` or `libraries`:
    /// see `job::rays`.
    pub rays: Option<RaysSection>,
}

/// `[rays]`: a ray-tracing pipeline state (its programs by export name, hit groups,
/// shader and pipeline configuration) and its shader table, as lists in record order,
/// and the `DispatchRays` size.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct RaysSection {
    /// `D3D12_DISPATCH_RAYS_DESC` `Width`, `Height`, `Depth`.
    pub dispatch: Option<[u32; 3]>,
    /// The ray-generation record: its export name, or `{ export, local, … }`.
    pub raygen: Option<TableEntry>,
    /// The miss table: export names (or `{ export, local, … }` records), in
    /// `MissShaderIndex` order.
    #[serde(default)]
    pub miss: Vec<TableEntry>,
    /// The hit-group table, in hit-group index order.
    #[serde(default)]
    pub hit_groups: Vec<HitGroupEntry>,
    /// The callable table: export names (or `{ export, local, … }` records), in
    /// `CallShader` index order.
    #[serde(default)]
    pub callable: Vec<TableEntry>,
    /// `D3D12_RAYTRACING_PIPELINE_CONFIG::MaxTraceRecursionDepth` (0 to 31).
    pub max_recursion_depth: Option<u32>,
    /// `D3D12_RAYTRACING_SHADER_CONFIG::MaxPayloadSizeInBytes`.
    pub max_payload_size: Option<u32>,
    /// `D3D12_RAYTRACING_SHADER_CONFIG::MaxAttributeSizeInBytes` (at most 32).
    pub max_attribute_size: Option<u32>,
    /// Tables in buffers: the pipeline's exports (`D3D12_EXPORT_DESC`), names or
    /// `{ export, local_root_signature }`; default every export of the libraries.
    pub exports: Option<Vec<TableEntry>>,
    /// Tables in buffers: `RayGenerationShaderRecord` (`{ buffer, offset, size }`).
    pub ray_generation_record: Option<TableRange>,
    /// Tables in buffers: `MissShaderTable` (`{ buffer, offset, size, stride }`).
    pub miss_table: Option<TableRange>,
    /// Tables in buffers: `HitGroupTable`.
    pub hit_group_table: Option<TableRange>,
    /// Tables in buffers: `CallableShaderTable`.
    pub callable_table: Option<TableRange>,
    /// The pipeline's global root signature declared by the job, one entry per
    /// parameter (as a record's `local_root_signature`); a library may associate one
    /// instead.
    pub global_root_signature: Option<Vec<LocalParameterEntry>>,
    /// The global root arguments (`SetComputeRootSignature` and its `SetComputeRoot…`
    /// calls), one per parameter of the global root signature, in the form of a
    /// record's `local`.
    pub global: Option<Vec<LocalArgumentEntry>>,
}

/// A shader table in a buffer (`D3D12_GPU_VIRTUAL_ADDRESS_RANGE_AND_STRIDE`, or
/// `D3D12_GPU_VIRTUAL_ADDRESS_RANGE` without `stride`): a named `[[resource]]` buffer
/// and the range's byte offset in it.
#[derive(Debug, Clone, Deserialize, Serialize, Default, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct TableRange {
    /// The named `[[resource]]` buffer holding the table.
    pub buffer: String,
    /// The table's first byte in the buffer (default 0).
    pub offset: Option<u64>,
    /// `SizeInBytes`.
    pub size: u64,
    /// `StrideInBytes` (tables other than the ray-generation record).
    pub stride: Option<u64>,
}

/// One shader record a `data = { records = [...] }` form writes: its identifier, then
/// its local root arguments laid out as a record takes them.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq)]
#[serde(deny_unknown_fields)]
pub struct RecordWrite {
    /// The record's first byte in the resource.
    pub offset: u64,
    /// The export or hit group whose identifier starts the record; none leaves the
    /// 32 bytes zero (a NULL identifier).
    pub identifier: Option<String>,
    /// The local root arguments, in parameter order.
    #[serde(default)]
    pub local: Vec<RecordArgument>,
}

/// One local root argument in a record's bytes: exactly one of `constants`,
/// `resource` (a GPU virtual address, with `offset`) and `heap` (a GPU descriptor
/// handle).
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct RecordArgument {
    /// Root constants: 4 bytes each.
    pub constants: Option<Vec<ConstantValue>>,
    /// A root descriptor: the named `[[resource]]` whose GPU virtual address is written.
    pub resource: Option<String>,
    /// Bytes added to the resource's address (default 0).
    pub offset: Option<u64>,
    /// A descriptor table: the GPU descriptor handle of this `[[heap]]` slot.
    pub heap: Option<u32>,
}

/// One hit group (`D3D12_HIT_GROUP_DESC`): its programs by export name.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct HitGroupEntry {
    /// The group's name (`HitGroupExport`), for messages.
    pub name: Option<String>,
    /// `triangles` (default) or `procedural` (`D3D12_HIT_GROUP_TYPE`).
    pub kind: Option<String>,
    /// The closest-hit program's export name.
    pub closest_hit: Option<String>,
    /// The any-hit program's export name.
    pub any_hit: Option<String>,
    /// The intersection program's export name (procedural groups only).
    pub intersection: Option<String>,
    /// The record's local root arguments, one per parameter of its local root
    /// signature, in parameter order (see `job::local_root`).
    pub local: Option<Vec<LocalArgumentEntry>>,
    /// A local root signature declared by the job for this record, one entry per
    /// parameter (see `job::local_root`).
    pub local_root_signature: Option<Vec<LocalParameterEntry>>,
}

/// One record of a ray-generation, miss or callable table: an export's name, or a
/// table naming the export with its local root arguments (and, optionally, the local
/// root signature the job declares for it).
#[derive(Debug, Clone, Serialize, PartialEq)]
#[serde(untagged)]
pub enum TableEntry {
    /// `"miss"`: the export, without local root arguments.
    Name(String),
    /// `{ export = "miss", local = [...] }`.
    Record(RecordEntry),
}

/// A table record with local root arguments.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct RecordEntry {
    /// The export's name.
    pub export: String,
    /// Its local root arguments, in parameter order.
    pub local: Option<Vec<LocalArgumentEntry>>,
    /// A local root signature declared by the job for this record.
    pub local_root_signature: Option<Vec<LocalParameterEntry>>,
}

impl TableEntry {
    /// The export's name.
    pub fn export(&self) -> &str {
        match self {
            TableEntry::Name(n) => n,
            TableEntry::Record(r) => &r.export,
        }
    }

    /// The local root arguments, when given.
    pub fn local(&self) -> Option<&[LocalArgumentEntry]> {
        match self {
            TableEntry::Name(_) => None,
            TableEntry::Record(r) => r.local.as_deref(),
        }
    }

    /// The job's local root signature, when given.
    pub fn local_root_signature(&self) -> Option<&[LocalParameterEntry]> {
        match self {
            TableEntry::Name(_) => None,
            TableEntry::Record(r) => r.local_root_signature.as_deref(),
        }
    }
}

impl<'de> Deserialize<'de> for TableEntry {
    // By hand rather than `untagged`, so that a mistake inside a record's table keeps
    // its own message (an unknown key, a wrong type) instead of "matched no variant".
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl<'de> serde::de::Visitor<'de> for Visitor {
            type Value = TableEntry;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str("an export's name, or a table { export = \"name\", local = [...] }")
            }
            fn visit_str<E: serde::de::Error>(self, v: &str) -> Result<TableEntry, E> {
                Ok(TableEntry::Name(v.to_string()))
            }
            fn visit_map<A: serde::de::MapAccess<'de>>(self, m: A) -> Result<TableEntry, A::Error> {
                RecordEntry::deserialize(serde::de::value::MapAccessDeserializer::new(m))
                    .map(TableEntry::Record)
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// One local root argument (`local = [...]`, in the local root signature's parameter
/// order): exactly one of `constants`, `resource` (with `offset`) and `table`.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct LocalArgumentEntry {
    /// Root constants: one value per 32-bit constant; integers are stored as their
    /// 32-bit pattern, floats as `f32`.
    pub constants: Option<Vec<ConstantValue>>,
    /// A root descriptor: the named `[[resource]]` whose memory the GPU virtual address
    /// points into.
    pub resource: Option<String>,
    /// A root descriptor's byte offset into the resource's memory (default 0).
    pub offset: Option<u64>,
    /// A descriptor table: the named `[[resource]]` entries its handle points at, one
    /// per descriptor of its ranges, in order.
    pub table: Option<Vec<String>>,
}

/// A root constant's value.
#[derive(Debug, Clone, Copy, Deserialize, Serialize, PartialEq)]
#[serde(untagged)]
pub enum ConstantValue {
    /// Stored as its 32-bit two's-complement pattern (`-1` is `0xffffffff`).
    Integer(i64),
    /// Stored as the nearest `f32`.
    Float(f64),
}

/// One parameter of a local root signature the job declares (`local_root_signature =
/// [...]`): exactly one of `constants` (with `reg`), `descriptor` and `table`.
#[derive(Debug, Clone, Deserialize, Serialize, PartialEq, Default)]
#[serde(deny_unknown_fields)]
pub struct LocalParameterEntry {
    /// Root constants: how many 32-bit values, read as constant buffer `reg`.
    pub constants: Option<u32>,
    /// The root constants' register (`b0`).
    pub reg: Option<String>,
    /// A root descriptor's register: `b1` (CBV), `t2` (SRV) or `u3` (UAV).
    pub descriptor: Option<String>,
    /// A descriptor table's ranges: one register each (`["u0", "t1"]`), one descriptor
    /// per register.
    pub table: Option<Vec<String>>,
    /// The register space of the parameter's registers (default 0).
    pub space: Option<u32>,
}

/// One `[[acceleration_structure]]`: a bottom-level structure of `[[…geometry]]`
/// entries or a top-level one of `[[…instance]]` entries (D3D12's build inputs).
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct AccelEntry {
    /// The name instances and `[[resource]]` entries refer to it by.
    pub name: String,
    /// `bottom` or `top`.
    pub level: String,
    /// Bottom level: its geometries, in `GeometryIndex()` order.
    #[serde(default, rename = "geometry")]
    pub geometries: Vec<GeometryEntry>,
    /// Top level: its instances, in `InstanceIndex()` order.
    #[serde(default, rename = "instance")]
    pub instances: Vec<InstanceEntry>,
}

/// One geometry of a bottom-level structure (`D3D12_RAYTRACING_GEOMETRY_DESC`).
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct GeometryEntry {
    /// `triangles` or `aabbs`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Triangles: the vertex positions' bytes (`{ f32 = [...] }`, `{ file = ... }`, …),
    /// or a named buffer's from an offset (`{ buffer = "verts", offset = 0 }`).
    pub vertices: Option<GeometryData>,
    /// Triangles: the positions' format (DXGI name; default `R32G32B32_FLOAT`).
    pub vertex_format: Option<String>,
    /// Triangles: bytes from one vertex to the next (default: the format's size).
    pub vertex_stride: Option<u64>,
    /// Triangles: vertices read (default: as many as the bytes hold).
    pub vertex_count: Option<u32>,
    /// Triangles: the index buffer's bytes (none: every three vertices are a triangle),
    /// a data form or a named buffer's.
    pub indices: Option<GeometryData>,
    /// Triangles: `R16_UINT` or `R32_UINT` (default `R32_UINT`).
    pub index_format: Option<String>,
    /// Triangles: indices read (default: as many as the bytes hold).
    pub index_count: Option<u32>,
    /// Triangles: a 3×4 row-major transform applied to the vertices during the build:
    /// 12 floats, or a named buffer's 48 bytes from an offset.
    pub transform: Option<GeometryTransform>,
    /// AABBs: six floats each (min x, y, z, max x, y, z), a data form or a named
    /// buffer's.
    pub aabbs: Option<GeometryData>,
    /// AABBs: how many (default: as many as the bytes hold at `aabb_stride`).
    pub aabb_count: Option<u64>,
    /// AABBs: bytes from one to the next (default 24).
    pub aabb_stride: Option<u64>,
    /// `D3D12_RAYTRACING_GEOMETRY_FLAG_OPAQUE`.
    #[serde(default)]
    pub opaque: bool,
    /// `D3D12_RAYTRACING_GEOMETRY_FLAG_NO_DUPLICATE_ANYHIT_INVOCATION`.
    #[serde(default)]
    pub no_duplicate_any_hit: bool,
}

/// A geometry's bytes: a data form, or the bytes of a named `[[resource]]` buffer from
/// an offset, spelled as a list's build command spells a GPU address
/// (`{ buffer = "name", offset = 0 }`). A table with a `buffer` key is the second.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum GeometryData {
    /// A named buffer from an offset.
    Buffer(super::list::accel::BufferAt),
    /// A data form.
    Data(DataSpec),
}

impl<'de> Deserialize<'de> for GeometryData {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        // Decided by the `buffer` key, so that each form's own errors (unknown keys,
        // bad values) reach the user rather than "matches no form".
        let v = toml::Value::deserialize(d)?;
        if v.as_table().is_some_and(|t| t.contains_key("buffer")) {
            super::list::accel::BufferAt::deserialize(v)
                .map(GeometryData::Buffer)
                .map_err(D::Error::custom)
        } else {
            DataSpec::deserialize(v)
                .map(GeometryData::Data)
                .map_err(D::Error::custom)
        }
    }
}

/// A geometry's transform: 12 floats, or a named buffer's 48 bytes from an offset.
#[derive(Debug, Clone, Serialize)]
#[serde(untagged)]
pub enum GeometryTransform {
    /// A named buffer from an offset.
    Buffer(super::list::accel::BufferAt),
    /// 12 floats, row-major 3×4.
    Values(Vec<FloatValue>),
}

impl<'de> Deserialize<'de> for GeometryTransform {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        use serde::de::Error;
        let v = toml::Value::deserialize(d)?;
        if v.is_table() {
            super::list::accel::BufferAt::deserialize(v)
                .map(GeometryTransform::Buffer)
                .map_err(D::Error::custom)
        } else {
            Vec::<FloatValue>::deserialize(v)
                .map(GeometryTransform::Values)
                .map_err(D::Error::custom)
        }
    }
}

/// One instance of a top-level structure (`D3D12_RAYTRACING_INSTANCE_DESC`).
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct InstanceEntry {
    /// The bottom-level structure's name; none: a NULL address (an inactive instance).
    pub blas: Option<String>,
    /// A 3×4 row-major object-to-world transform (default: the identity).
    pub transform: Option<Vec<FloatValue>>,
    /// `InstanceID()` (24 bits).
    #[serde(default)]
    pub id: u32,
    /// `InstanceMask` (8 bits; default 0xff).
    pub mask: Option<u32>,
    /// `InstanceContributionToHitGroupIndex` (24 bits).
    #[serde(default)]
    pub contribution: u32,
    /// `D3D12_RAYTRACING_INSTANCE_FLAGS` names without the prefix, lower case:
    /// `triangle_cull_disable`, `triangle_front_counterclockwise`, `force_opaque`,
    /// `force_non_opaque`.
    #[serde(default)]
    pub flags: Vec<String>,
}

/// `[program]`: paths are relative to the job file.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ProgramSection {
    /// Compute program.
    pub cs: Option<PathBuf>,
    /// Vertex program (draws; not run by compute jobs).
    pub vs: Option<PathBuf>,
    /// Pixel program (draws).
    pub ps: Option<PathBuf>,
    /// Geometry program (draws): between the vertex program and the rasterizer.
    pub gs: Option<PathBuf>,
    /// Mesh program (mesh draws, `draw.dispatch_mesh`): replaces the vertex stage.
    pub ms: Option<PathBuf>,
    /// Amplification program (mesh draws, optional): launches the mesh groups.
    #[serde(rename = "as")]
    pub amplification: Option<PathBuf>,
    /// Hull program (draws): reads the patches of a `n_control_point_patchlist`
    /// topology; needs `ds`.
    pub hs: Option<PathBuf>,
    /// Domain program (draws): runs on the points the tessellator makes of each patch;
    /// needs `hs`.
    pub ds: Option<PathBuf>,
    /// Entry point name (libraries, several entry points).
    pub entry: Option<String>,
    /// A DXIL library (`lib_6_3` and later) whose exports a `[rays]` pipeline names.
    pub library: Option<PathBuf>,
    /// Several DXIL libraries (an export is looked up in each, in order).
    pub libraries: Option<Vec<PathBuf>>,
}

/// `[dispatch]`.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DispatchSection {
    /// Thread groups in x, y, z.
    pub groups: [u32; 3],
}

/// `[options]`.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct OptionsSection {
    /// Lanes per wave, 4..=128 (a program's `[WaveSize]` wins). Default 8, WARP's.
    pub wave_size: Option<u32>,
    /// Worker threads; 0 = all cores.
    pub threads: Option<usize>,
    /// The WARP profile whose version-dependent rules apply (default: the newest known).
    pub profile: Option<String>,
    /// Instruction budget per lane.
    pub max_lane_instructions: Option<u64>,
    /// Memory budget for the job's resources and the run, in bytes.
    pub max_memory: Option<u64>,
    /// Budget of the whole run: lane-instructions over every thread (default 10¹²).
    pub max_total_lane_instructions: Option<u64>,
    /// Time limit of the run, in seconds of wall clock (default: none).
    pub max_seconds: Option<f64>,
    /// Where to write the JSON summary (relative to the job file).
    pub summary: Option<PathBuf>,
    /// `jit` (native code for arithmetic; the default) or `interp` (the interpreter only).
    pub engine: Option<String>,
}

/// Initial contents of a buffer or texture.
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct DataSpec {
    /// 32-bit unsigned words.
    pub u32: Option<Vec<u32>>,
    /// 32-bit signed words.
    pub i32: Option<Vec<i32>>,
    /// 32-bit floats; `"NaN"`, `"inf"`, `"-inf"`, `"-0"` as strings.
    pub f32: Option<Vec<FloatValue>>,
    /// Hex bytes, whitespace allowed (`"00ff 10 20"`).
    pub hex: Option<String>,
    /// Fill every word with this value.
    pub fill_u32: Option<u32>,
    /// Raw bytes from a file (relative to the job file); a `.png` file fills mip 0 of
    /// slice 0 of a texture as `images` does.
    pub file: Option<PathBuf>,
    /// Image files (any format the `image` crate reads here: PNG), one per subresource in
    /// D3D12 subresource order (mips of slice 0, then of slice 1, …), each the size of its
    /// subresource; subresources without one stay zero. Textures only.
    pub images: Option<Vec<PathBuf>>,
    /// Shader records (identifiers and local root arguments) at byte offsets of a
    /// buffer, zeros elsewhere. Buffers only.
    pub records: Option<Vec<RecordWrite>>,
}

/// One subresource of a texture written to a file (`outputs = [{ file, mip, slice }]`).
#[derive(Debug, Clone, Deserialize, Serialize)]
#[serde(deny_unknown_fields)]
pub struct SubresourceOutput {
    /// The file (relative to the job file): `.png` for 8- and 16-bit UNORM and sRGB
    /// formats, `.bin` for any (the subresource's tightly packed rows).
    pub file: PathBuf,
    /// The mip (default 0).
    #[serde(default)]
    pub mip: u32,
    /// The array slice, cube face (6 per cube) or 3D plane (default 0).
    #[serde(default)]
    pub slice: u32,
}

/// A float in a job file: a number, or a string for the values TOML cannot spell
/// portably (`"NaN"`, `"-NaN"`, `"inf"`, `"-inf"`, `"-0"`, or `"0x7fc00000"` bits).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
#[serde(untagged)]
pub enum FloatValue {
    /// A plain number.
    Number(f64),
    /// A spelled value.
    Text(FloatText),
}

/// A float spelled as text (see [`FloatValue`]).
#[derive(Debug, Clone, Copy, PartialEq, Serialize)]
pub struct FloatText {
    /// The bits.
    pub bits: u32,
    /// Spelled as hex bits (so a NaN names one exact pattern).
    pub hex: bool,
}

impl<'de> Deserialize<'de> for FloatText {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        let s = String::deserialize(d)?;
        parse_float_text(&s).map(|(bits, hex)| FloatText { bits, hex }).ok_or_else(|| {
            serde::de::Error::custom(format!(
                "`{s}` is not a float: use a number, \"NaN\", \"-NaN\", \"inf\", \"-inf\", \"-0\" or \"0x…\" bits"
            ))
        })
    }
}

impl<'de> Deserialize<'de> for FloatValue {
    fn deserialize<D: serde::Deserializer<'de>>(d: D) -> Result<Self, D::Error> {
        struct Visitor;
        impl serde::de::Visitor<'_> for Visitor {
            type Value = FloatValue;
            fn expecting(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
                f.write_str(
                    "a number, or \"NaN\", \"-NaN\", \"inf\", \"-inf\", \"-0\" or \"0x…\" bits",
                )
            }
            fn visit_f64<E>(self, v: f64) -> Result<FloatValue, E> {
                Ok(FloatValue::Number(v))
            }
            fn visit_i64<E>(self, v: i64) -> Result<FloatValue, E> {
                Ok(FloatValue::Number(v as f64))
            }
            fn visit_u64<E>(self, v: u64) -> Result<FloatValue, E> {
                Ok(FloatValue::Number(v as f64))
            }
            fn visit_str<E: serde::de::Error>(self, s: &str) -> Result<FloatValue, E> {
                parse_float_text(s)
                    .map(|(bits, hex)| FloatValue::Text(FloatText { bits, hex }))
                    .ok_or_else(|| {
                        E::custom(format!(
                            "`{s}` is not a float: use a number, \"NaN\", \"-NaN\", \"inf\", \"-inf\", \"-0\" or \"0x…\" bits"
                        ))
                    })
            }
        }
        d.deserialize_any(Visitor)
    }
}

/// The bits of a float spelled as text, and whether it was spelled as hex bits.
pub fn parse_float_text(s: &str) -> Option<(u32, bool)> {
    let t = s.trim();
    let bits = match t.to_ascii_lowercase().as_str() {
        "nan" | "+nan" => 0x7fc0_0000,
        "-nan" => 0xffc0_0000,
        "inf" | "+inf" | "infinity" => f32::INFINITY.to_bits(),
        "-inf" | "-infinity" => f32::NEG_INFINITY.to_bits(),
        "-0" | "-0.0" => 0x8000_0000,
        _ => {
            if let Some(h) = t.strip_prefix("0x").or_else(|| t.strip_prefix("0X")) {
                return u32::from_str_radix(&h.replace('_', ""), 16)
                    .ok()
                    .map(|b| (b, true));
            }
            t.parse::<f32>().ok()?.to_bits()
        }
    };
    Some((bits, false))
}

impl FloatValue {
    /// Whether the value is a NaN that matches any NaN (spelled "NaN", not as bits).
    pub fn any_nan(&self) -> bool {
        f32::from_bits(self.bits()).is_nan()
            && !matches!(self, FloatValue::Text(FloatText { hex: true, .. }))
    }

    /// The value's f32 bits (numbers are rounded to the nearest f32).
    pub fn bits(&self) -> u32 {
        match self {
            FloatValue::Number(n) => (*n as f32).to_bits(),
            FloatValue::Text(t) => t.bits,
        }
    }
}

/// One `[[resource]]` (a view bound at a register) or `[[heap]]` entry (a view in a
/// descriptor heap slot). One struct serves both, because serde cannot flatten a shared
/// part and still refuse unknown keys; which keys each form allows is checked when the
/// job is bound.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ResourceEntry {
    /// The resource's name, by which a command list's commands, bindings and
    /// expectations refer to it (`[[resource]]` only; a named resource of a command list
    /// has no `reg`).
    pub name: Option<String>,
    /// `t3`, `u0`, `b1`, `s0` (`[[resource]]` only).
    pub reg: Option<String>,
    /// The programs that see the binding (`D3D12_SHADER_VISIBILITY`: `all`, the default,
    /// `vertex`, `hull`, `domain`, `geometry`, `pixel`, `amplification`, `mesh`;
    /// `[[resource]]` entries with `reg` only).
    pub visibility: Option<String>,
    /// Register space (`[[resource]]` only; default 0).
    pub space: Option<u32>,
    /// `srv`, `uav` or `cbv` (`[[heap]]` only).
    pub descriptor: Option<String>,
    /// `raw_buffer`, `structured_buffer`, `typed_buffer`, `cbuffer`, `texture1d`,
    /// `texture1darray`, `texture2d`, `texture2darray`, `texture2dms`, `texture2dmsarray`,
    /// `texture3d`, `texturecube`, `texturecubearray`, `sampler`, `acceleration_structure`,
    /// `feedback_texture2d`, `feedback_texture2darray`.
    pub kind: String,
    /// Structured buffer stride in bytes.
    pub stride: Option<u32>,
    /// DXGI format (without `DXGI_FORMAT_`).
    pub format: Option<String>,
    /// Buffer size in bytes (unlisted bytes are zero).
    pub size: Option<u64>,
    /// First element of the view.
    pub first_element: Option<u64>,
    /// Number of elements of the view.
    pub num_elements: Option<u64>,
    /// Initial UAV counter (and makes the view carry a counter).
    pub counter: Option<u32>,
    /// Initial contents.
    pub data: Option<DataSpec>,
    /// Write the final contents here (relative to the job file).
    pub output: Option<PathBuf>,
    /// Write the final counter here (4 bytes, little-endian).
    pub counter_output: Option<PathBuf>,
    /// Textures: write single subresources here (`.png` or `.bin` each).
    pub outputs: Option<Vec<SubresourceOutput>>,
    /// Textures: the view's format when it differs from the texture's (a typed format of
    /// a typeless texture, an sRGB view; same texel size, same BC family).
    pub view_format: Option<String>,
    /// Textures: the view's mips, `[most detailed, count]` (default: all).
    pub view_mips: Option<[u32; 2]>,
    /// Textures: the view's array slices, `[first, count]` (faces for cubes; default all).
    pub view_slices: Option<[u32; 2]>,
    /// A null descriptor of this kind.
    #[serde(default)]
    pub null: bool,
    /// Texture width.
    pub width: Option<u32>,
    /// Texture height.
    pub height: Option<u32>,
    /// 3D texture depth.
    pub depth: Option<u32>,
    /// Texture array size (cubes: number of cubes × 6 faces is implied).
    pub array_size: Option<u32>,
    /// Mip levels.
    pub mips: Option<u32>,
    /// Samples (multisampled textures).
    pub samples: Option<u32>,
    /// Sampler filter, `D3D12_FILTER` names without the prefix.
    pub filter: Option<String>,
    /// Sampler address modes (u, v, w), `D3D12_TEXTURE_ADDRESS_MODE` names without the prefix.
    pub address: Option<Vec<String>>,
    /// Sampler mip LOD bias.
    pub mip_lod_bias: Option<f32>,
    /// Sampler maximum anisotropy.
    pub max_anisotropy: Option<u32>,
    /// Sampler comparison function (`D3D12_COMPARISON_FUNC` names without the prefix).
    pub comparison: Option<String>,
    /// Sampler border colour.
    pub border_color: Option<[f32; 4]>,
    /// Sampler minimum LOD.
    pub min_lod: Option<f32>,
    /// Sampler maximum LOD.
    pub max_lod: Option<f32>,
    /// `acceleration_structure`: the name of the top-level `[[acceleration_structure]]`
    /// the SRV views.
    pub acceleration_structure: Option<String>,
    /// Feedback maps: the paired texture, by its register (`"t0"`, in the entry's space)
    /// or its `name`.
    pub paired: Option<String>,
    /// Feedback maps: `min_mip` or `mip_region_used`.
    pub feedback: Option<String>,
    /// Feedback maps: the mip region `[width, height]` in texels of the paired texture.
    pub mip_region: Option<[u32; 2]>,
}

/// One `[[sampler_heap]]` entry (`SamplerDescriptorHeap[i]`): sampler keys only.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct SamplerEntry {
    /// `sampler` (default) or `none`.
    #[serde(default = "sampler_kind")]
    pub kind: String,
    /// Filter.
    pub filter: Option<String>,
    /// Address modes.
    pub address: Option<Vec<String>>,
    /// Mip LOD bias.
    pub mip_lod_bias: Option<f32>,
    /// Maximum anisotropy.
    pub max_anisotropy: Option<u32>,
    /// Comparison function.
    pub comparison: Option<String>,
    /// Border colour.
    pub border_color: Option<[f32; 4]>,
    /// Minimum LOD.
    pub min_lod: Option<f32>,
    /// Maximum LOD.
    pub max_lod: Option<f32>,
}

fn sampler_kind() -> String {
    "sampler".into()
}

/// How an expected value may differ from the actual one: a value comparison's rule, kept
/// with the formats so that `capture` compares by it without reading the job file's types.
pub use crate::resources::format::Tolerance;

/// One `[[expect]]`: values expected in an output after the run.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct ExpectEntry {
    /// The resource's register (`u0`); or use `heap`.
    pub reg: Option<String>,
    /// The register space.
    #[serde(default)]
    pub space: u32,
    /// A resource descriptor heap slot instead of a register.
    pub heap: Option<u32>,
    /// A draw's render target (index into `[[draw.render_target]]`) instead of a register:
    /// its texels as the target's format stores them.
    pub render_target: Option<u32>,
    /// A draw's depth-stencil buffer instead of a register.
    pub depth_stencil: Option<bool>,
    /// A single draw's stream-output buffer (index into `[[draw.stream_output_buffer]]`)
    /// instead of a register: its bytes from the buffer's start, or with `counter` its
    /// filled size after the draw.
    pub stream_output_buffer: Option<u32>,
    /// A command list's named resource (`[[resource]] name`) instead of a register: its
    /// contents after the list.
    pub resource: Option<String>,
    /// Byte offset of the first value within the resource.
    #[serde(default)]
    pub offset: u64,
    /// Expected 32-bit words.
    pub u32: Option<Vec<u32>>,
    /// Expected signed words.
    pub i32: Option<Vec<i32>>,
    /// Expected floats (strings for NaN, ±inf, -0).
    pub f32: Option<Vec<FloatValue>>,
    /// Expected bytes in hex.
    pub hex: Option<String>,
    /// The UAV counter's expected value instead of contents.
    pub counter: Option<u32>,
    /// Tolerance for floats: `"exact"` (default), `{ ulp = N }`, `{ abs = X }`.
    #[serde(default)]
    pub tolerance: Tolerance,
}
