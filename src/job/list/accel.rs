//! `build_raytracing_acceleration_structure` commands: D3D12's build inputs
//! (`D3D12_BUILD_RAYTRACING_ACCELERATION_STRUCTURE_INPUTS`) over named buffers, checked
//! before the list runs and read when the command runs (`pipeline::accel_build`).
//!
//! # Rules (D3D12 / DXR functional spec)
//!
//! - `dst` is a named `[[resource]]` of kind `acceleration_structure` without a
//!   job-built structure (`DestAccelerationStructureData`); `level` is `bottom` or `top`
//!   (`D3D12_RAYTRACING_ACCELERATION_STRUCTURE_TYPE`).
//! - A bottom level's `geometry` entries are `D3D12_RAYTRACING_GEOMETRY_DESC`s: all
//!   `triangles` or all `aabbs` ("Geometry and acceleration structures"). Their buffers
//!   are `{ buffer, offset }` of named buffers; each range lies inside its buffer, with
//!   counts and strides multiplied without overflow.
//! - Alignments (`D3D12_RAYTRACING_GEOMETRY_TRIANGLES_DESC`,
//!   `…_AABBS_DESC`): a vertex buffer's start and stride are multiples of its format's
//!   component size (4 for `R10G10B10A2_UNORM`); an index buffer's start of its index
//!   size; a transform's start of 16 (`D3D12_RAYTRACING_TRANSFORM3X4_BYTE_ALIGNMENT`);
//!   AABBs' start and stride of 8 (`D3D12_RAYTRACING_AABB_BYTE_ALIGNMENT`).
//! - Without indices, `vertex_count` is a multiple of 3; with them, `index_count` is.
//! - A top level reads `instance_count` descriptions from `instances`, laid out as
//!   `array` (64 bytes each, the start a multiple of 16:
//!   `D3D12_RAYTRACING_INSTANCE_DESC_BYTE_ALIGNMENT`) or `array_of_pointers` (8-byte
//!   addresses, the start a multiple of 8) (`D3D12_ELEMENTS_LAYOUT`).
//! - A structure is bound (`bind`) only after a command built it as a top level, in list
//!   order (dxlane's choice: D3D leaves tracing an unbuilt structure undefined).
//! - The build counts against the job's memory: its input bytes twice (the copy it reads
//!   and the structure, which is of the order of its input).

use std::sync::Arc;

use serde::{Deserialize, Serialize};

use super::{CommandEntry, Ctx};
use crate::pipeline::accel_build::{
    AccelBuild, AddressTarget, Addresses, BufferRange, BuildGeometry, BuildInputs,
    INSTANCE_DESC_ALIGNMENT, InstanceLayout,
};
use crate::pipeline::commands::Command;
use crate::raytracing::{GeometryFlags, IndexFormat, MAX_INSTANCES, MAX_PRIMITIVES, VertexFormat};
use crate::resources::{Descriptor, Memory};

/// A GPU virtual address as a named buffer and a byte offset in it.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct BufferAt {
    /// The named buffer.
    pub buffer: String,
    /// The first byte (default 0).
    #[serde(default)]
    pub offset: u64,
}

/// One `D3D12_RAYTRACING_GEOMETRY_DESC` of a build command.
#[derive(Debug, Clone, Deserialize, Serialize, Default)]
#[serde(deny_unknown_fields)]
pub struct BuildGeometryEntry {
    /// `triangles` or `aabbs`.
    #[serde(rename = "type")]
    pub kind: String,
    /// Triangles: `VertexBuffer.StartAddress`.
    pub vertices: Option<BufferAt>,
    /// Triangles: `VertexFormat` (DXGI name; default `R32G32B32_FLOAT`).
    pub vertex_format: Option<String>,
    /// Triangles: `VertexBuffer.StrideInBytes` (default: the format's size).
    pub vertex_stride: Option<u64>,
    /// Triangles: `VertexCount`.
    pub vertex_count: Option<u32>,
    /// Triangles: `IndexBuffer` (none: every three vertices are a triangle).
    pub indices: Option<BufferAt>,
    /// Triangles: `IndexFormat`, `R16_UINT` or `R32_UINT` (default `R32_UINT`).
    pub index_format: Option<String>,
    /// Triangles: `IndexCount`.
    pub index_count: Option<u32>,
    /// Triangles: `Transform3x4`, 12 floats of a row-major 3×4 matrix.
    pub transform: Option<BufferAt>,
    /// AABBs: `AABBs.StartAddress`.
    pub aabbs: Option<BufferAt>,
    /// AABBs: `AABBCount`.
    pub aabb_count: Option<u64>,
    /// AABBs: `AABBs.StrideInBytes` (default 24).
    pub aabb_stride: Option<u64>,
    /// `D3D12_RAYTRACING_GEOMETRY_FLAG_OPAQUE`.
    #[serde(default)]
    pub opaque: bool,
    /// `D3D12_RAYTRACING_GEOMETRY_FLAG_NO_DUPLICATE_ANYHIT_INVOCATION`.
    #[serde(default)]
    pub no_duplicate_any_hit: bool,
}

/// The keys a build command takes.
pub const BUILD_KEYS: &[&str] = &[
    "dst",
    "level",
    "geometry",
    "instances",
    "instance_count",
    "instance_layout",
];

/// Finds the named buffer `name` for key `key` (the key is `…vertices.buffer`): its
/// memory, or an error naming the key and the name. A command list looks in its named
/// resources, a job's `[[acceleration_structure]]` in its named `[[resource]]` entries.
pub(crate) type Buffers<'a> = dyn Fn(&str, &str) -> Result<Memory, String> + 'a;

/// `key`'s range of `size` bytes at `at`, whose start is a multiple of `align`.
pub(crate) fn range(
    buffers: &Buffers<'_>,
    key: &str,
    at: &BufferAt,
    size: Option<u64>,
    align: u64,
) -> Result<BufferRange, String> {
    let memory = buffers(&format!("{key}.buffer"), &at.buffer)?;
    if at.offset % align != 0 {
        return Err(format!(
            "`{key}.offset` {}: the address must be a multiple of {align}",
            at.offset
        ));
    }
    let size = size.ok_or_else(|| format!("`{key}`: the range's size overflows 64 bits"))?;
    if at
        .offset
        .checked_add(size)
        .is_none_or(|end| end > memory.len())
    {
        return Err(format!(
            "`{key}`: {size} bytes from offset {} pass the end of \"{}\" ({} bytes)",
            at.offset,
            at.buffer,
            memory.len()
        ));
    }
    Ok(BufferRange {
        memory,
        offset: at.offset,
        size,
    })
}

impl Ctx<'_> {
    /// The list's resources by GPU virtual address (`job::shader_table`'s scheme), made
    /// once.
    fn addresses(&mut self) -> Arc<Addresses> {
        if let Some(a) = &self.addresses {
            return a.clone();
        }
        let mut a = Addresses::default();
        for (i, r) in self.bound.resources.iter().enumerate() {
            let name = self
                .names
                .iter()
                .find(|(_, k)| **k == i)
                .map_or_else(|| r.name.clone(), |(n, _)| (*n).to_string());
            let base = crate::job::shader_table::resource_address(i);
            match (&r.descriptor, r.memory()) {
                (Descriptor::AccelerationStructureBuffer(s), _) => {
                    a.add(base, 1, &name, AddressTarget::Structure(s.clone()));
                }
                (_, Some(m)) if matches!(r.storage, super::Storage::Buffer(_)) => {
                    a.add(base, m.len(), &name, AddressTarget::Buffer(m.clone()));
                }
                _ => a.add(base, r.storage_bytes(), &name, AddressTarget::Other),
            }
        }
        let a = Arc::new(a);
        self.addresses = Some(a.clone());
        a
    }

    /// The named buffer lookup the shared checks take: the list's named resources.
    fn buffers(&self) -> impl Fn(&str, &str) -> Result<Memory, String> + '_ {
        move |key: &str, name: &str| self.buffer(key, name).map(|(_, m)| m)
    }

    /// Makes a `build_raytracing_acceleration_structure` command (`name` leads memory
    /// errors).
    pub(super) fn build_accel(&mut self, name: &str, e: &CommandEntry) -> Result<Command, String> {
        let d = e
            .dst
            .as_ref()
            .ok_or("missing `dst` (the named acceleration_structure resource the build writes)")?;
        let dst = match &self.named("dst", d)?.descriptor {
            Descriptor::AccelerationStructureBuffer(s) => s.clone(),
            Descriptor::AccelerationStructure(_) => {
                return Err(format!(
                    "`dst`: \"{d}\" views a job-built [[acceleration_structure]]; a build writes a named acceleration_structure resource without one"
                ));
            }
            _ => {
                return Err(format!(
                    "`dst`: \"{d}\" is not an acceleration_structure resource"
                ));
            }
        };
        let level = e
            .level
            .as_deref()
            .ok_or("missing `level` (\"bottom\" or \"top\")")?;
        let (inputs, bytes) = match level.trim().to_ascii_lowercase().as_str() {
            "bottom" => {
                if let Some(k) = [
                    ("instances", e.instances.is_some()),
                    ("instance_count", e.instance_count.is_some()),
                    ("instance_layout", e.instance_layout.is_some()),
                ]
                .iter()
                .find(|(_, set)| *set)
                {
                    return Err(format!(
                        "`{}` is for a top level; a bottom level has `geometry`",
                        k.0
                    ));
                }
                bottom(&self.buffers(), e.geometry.as_deref().unwrap_or_default())?
            }
            "top" => {
                if e.geometry.is_some() {
                    return Err(
                        "`geometry` is for a bottom level; a top level has `instances`".into(),
                    );
                }
                self.top(e)?
            }
            other => {
                return Err(format!(
                    "`level` \"{other}\": a structure is \"bottom\" or \"top\""
                ));
            }
        };
        self.memory
            .take(name, bytes.saturating_mul(2))
            .map_err(|x| x.to_string())?;
        let top = matches!(inputs, BuildInputs::Top { .. });
        self.built_accel.insert(d.clone(), top);
        Ok(Command::BuildAccelerationStructure(Box::new(AccelBuild {
            dst,
            inputs,
            addresses: self.addresses(),
            threads: self.job.file.options.threads.unwrap_or(0),
        })))
    }

    /// A top level's instances, and the bytes they read.
    fn top(&self, e: &CommandEntry) -> Result<(BuildInputs, u64), String> {
        let count = e
            .instance_count
            .ok_or("missing `instance_count` (NumDescs)")?;
        if count as usize > MAX_INSTANCES {
            return Err(format!(
                "`instance_count` {count}: more than the limit of {MAX_INSTANCES} (DXR spec \"Geometry limits\")"
            ));
        }
        let layout = match e.instance_layout.as_deref().map(str::trim) {
            None | Some("array") => InstanceLayout::Array,
            Some("array_of_pointers") => InstanceLayout::ArrayOfPointers,
            Some(other) => {
                return Err(format!(
                    "`instance_layout` \"{other}\": \"array\" or \"array_of_pointers\" (D3D12_ELEMENTS_LAYOUT)"
                ));
            }
        };
        let at = e
            .instances
            .as_ref()
            .ok_or("missing `instances` (the instance descriptions' buffer)")?;
        let (each, align) = match layout {
            InstanceLayout::Array => (64, INSTANCE_DESC_ALIGNMENT),
            InstanceLayout::ArrayOfPointers => (8, 8),
        };
        let instances = range(
            &self.buffers(),
            "instances",
            at,
            u64::from(count).checked_mul(each),
            align,
        )?;
        let bytes = u64::from(count) * 64;
        Ok((
            BuildInputs::Top {
                instances,
                count,
                layout,
            },
            bytes,
        ))
    }
}

/// A bottom level's geometries, and the bytes they read.
fn bottom(
    buffers: &Buffers<'_>,
    geos: &[BuildGeometryEntry],
) -> Result<(BuildInputs, u64), String> {
    let mut out = Vec::with_capacity(geos.len());
    let (mut bytes, mut prims) = (0u64, 0u64);
    for (g, geo) in geos.iter().enumerate() {
        let key = |k: &str| format!("geometry[{g}].{k}");
        let kind = geo.kind.trim().to_ascii_lowercase();
        if let Some(first) = geos.first()
            && first.kind.trim().to_ascii_lowercase() != kind
        {
            return Err(format!(
                "`{}` \"{}\": a bottom level holds one geometry type, and geometry[0] is \"{}\"",
                key("type"),
                geo.kind,
                first.kind
            ));
        }
        let b = geometry(buffers, g, geo)?;
        let (n, read) = match &b {
            BuildGeometry::Triangles {
                index_format,
                index_count,
                vertex_count,
                vertices,
                indices,
                transform,
                ..
            } => (
                u64::from(if *index_format == IndexFormat::None {
                    *vertex_count
                } else {
                    *index_count
                }) / 3,
                vertices.size
                    + indices.as_ref().map_or(0, |r| r.size)
                    + transform.as_ref().map_or(0, |r| r.size),
            ),
            BuildGeometry::Aabbs { count, aabbs, .. } => (*count, aabbs.size),
        };
        prims = prims.saturating_add(n);
        if prims > MAX_PRIMITIVES {
            return Err(format!(
                "`{}`: the structure's primitives pass the limit of {MAX_PRIMITIVES} (DXR spec \"Geometry limits\")",
                key("type")
            ));
        }
        bytes = bytes.saturating_add(read);
        out.push(b);
    }
    Ok((BuildInputs::Bottom(out), bytes))
}

/// One `D3D12_RAYTRACING_GEOMETRY_DESC` over named buffers, checked: its buffers'
/// ranges inside them and aligned, its counts, strides and formats. Errors name
/// `geometry[g].key`.
pub(crate) fn geometry(
    buffers: &Buffers<'_>,
    g: usize,
    geo: &BuildGeometryEntry,
) -> Result<BuildGeometry, String> {
    let key = |k: &str| format!("geometry[{g}].{k}");
    let mut flags = GeometryFlags::NONE;
    if geo.opaque {
        flags |= GeometryFlags::OPAQUE;
    }
    if geo.no_duplicate_any_hit {
        flags |= GeometryFlags::NO_DUPLICATE_ANYHIT_INVOCATION;
    }
    let kind = geo.kind.trim().to_ascii_lowercase();
    Ok(match kind.as_str() {
        "triangles" => {
            if geo.aabbs.is_some() || geo.aabb_count.is_some() || geo.aabb_stride.is_some() {
                return Err(format!("`{}`: does not apply to triangles", key("aabbs")));
            }
            triangles(buffers, g, geo, flags)?
        }
        "aabbs" => {
            if let Some(k) = [
                ("vertices", geo.vertices.is_some()),
                ("vertex_format", geo.vertex_format.is_some()),
                ("vertex_stride", geo.vertex_stride.is_some()),
                ("vertex_count", geo.vertex_count.is_some()),
                ("indices", geo.indices.is_some()),
                ("index_format", geo.index_format.is_some()),
                ("index_count", geo.index_count.is_some()),
                ("transform", geo.transform.is_some()),
            ]
            .iter()
            .find(|(_, set)| *set)
            {
                return Err(format!("`{}`: is for triangles", key(k.0)));
            }
            let at = geo
                .aabbs
                .as_ref()
                .ok_or_else(|| format!("missing `{}` (the boxes' buffer)", key("aabbs")))?;
            let count = geo
                .aabb_count
                .ok_or_else(|| format!("missing `{}`", key("aabb_count")))?;
            let stride = geo.aabb_stride.unwrap_or(24);
            if stride % 8 != 0 {
                return Err(format!(
                    "`{}` {stride}: a multiple of 8 (D3D12_RAYTRACING_AABB_BYTE_ALIGNMENT)",
                    key("aabb_stride")
                ));
            }
            let size = if count == 0 {
                Some(0)
            } else {
                (count - 1)
                    .checked_mul(stride)
                    .and_then(|v| v.checked_add(24))
            };
            let aabbs = range(buffers, &key("aabbs"), at, size, 8)?;
            BuildGeometry::Aabbs {
                flags,
                count,
                aabbs,
                stride,
            }
        }
        other => {
            return Err(format!(
                "`{}` \"{other}\": a geometry is \"triangles\" or \"aabbs\"",
                key("type")
            ));
        }
    })
}

/// One triangle geometry.
fn triangles(
    buffers: &Buffers<'_>,
    g: usize,
    geo: &BuildGeometryEntry,
    flags: GeometryFlags,
) -> Result<BuildGeometry, String> {
    let key = |k: &str| format!("geometry[{g}].{k}");
    let fmt_name = geo.vertex_format.as_deref().unwrap_or("R32G32B32_FLOAT");
    let vertex_format = VertexFormat::ALL
        .into_iter()
        .find(|f| format!("{f:?}").eq_ignore_ascii_case(fmt_name.trim()))
        .ok_or_else(|| {
            format!(
                "`{}` \"{fmt_name}\" is not a vertex format of D3D12_RAYTRACING_GEOMETRY_TRIANGLES_DESC",
                key("vertex_format")
            )
        })?;
    let stride = geo.vertex_stride.unwrap_or(match vertex_format {
        VertexFormat::R16G16B16A16_FLOAT
        | VertexFormat::R16G16B16A16_SNORM
        | VertexFormat::R16G16B16A16_UNORM => 8,
        f => f.bytes_read() as u64,
    });
    let align = vertex_format.stride_alignment();
    if stride % align != 0 {
        return Err(format!(
            "`{}` {stride}: a multiple of {align} for {vertex_format:?}",
            key("vertex_stride")
        ));
    }
    let vertex_count = geo
        .vertex_count
        .ok_or_else(|| format!("missing `{}`", key("vertex_count")))?;
    let at = geo
        .vertices
        .as_ref()
        .ok_or_else(|| format!("missing `{}` (the positions' buffer)", key("vertices")))?;
    let size = if vertex_count == 0 {
        Some(0)
    } else {
        u64::from(vertex_count - 1)
            .checked_mul(stride)
            .and_then(|v| v.checked_add(vertex_format.bytes_read() as u64))
    };
    let vertices = range(buffers, &key("vertices"), at, size, align)?;
    let (index_format, index_count, indices) = match &geo.indices {
        None => {
            if let Some(k) = [
                ("index_format", geo.index_format.is_some()),
                ("index_count", geo.index_count.is_some()),
            ]
            .iter()
            .find(|(_, set)| *set)
            {
                return Err(format!("`{}`: goes with `indices`", key(k.0)));
            }
            if vertex_count % 3 != 0 {
                return Err(format!(
                    "`{}` {vertex_count}: a multiple of 3 without indices (a triangle list)",
                    key("vertex_count")
                ));
            }
            (IndexFormat::None, 0, None)
        }
        Some(at) => {
            let f = match geo
                .index_format
                .as_deref()
                .map(|f| f.trim().to_ascii_uppercase())
            {
                None => IndexFormat::R32_UINT,
                Some(f) if f == "R32_UINT" => IndexFormat::R32_UINT,
                Some(f) if f == "R16_UINT" => IndexFormat::R16_UINT,
                Some(f) => {
                    return Err(format!(
                        "`{}` \"{f}\": an index format is R16_UINT or R32_UINT",
                        key("index_format")
                    ));
                }
            };
            let n = geo
                .index_count
                .ok_or_else(|| format!("missing `{}`", key("index_count")))?;
            if n % 3 != 0 {
                return Err(format!(
                    "`{}` {n}: a multiple of 3 (a triangle list)",
                    key("index_count")
                ));
            }
            let size = u64::from(n).checked_mul(f.size() as u64);
            let r = range(buffers, &key("indices"), at, size, f.size() as u64)?;
            (f, n, Some(r))
        }
    };
    let transform = match &geo.transform {
        Some(at) => Some(range(buffers, &key("transform"), at, Some(48), 16)?),
        None => None,
    };
    Ok(BuildGeometry::Triangles {
        flags,
        transform,
        index_format,
        index_count,
        indices,
        vertex_format,
        vertex_count,
        vertices,
        vertex_stride: stride,
    })
}
