//! `[[acceleration_structure]]` entries: bottom-level structures of triangle or AABB
//! geometries and top-level structures of instances, built into `raytracing`'s
//! structures before any resource is bound, so that a `[[resource]]` (or `[[heap]]`) of
//! kind `acceleration_structure` can view a top-level one by name.
//!
//! Owns: reading the entries' keys into `raytracing`'s build inputs and naming the entry
//! and key in every error. Does not own: the build's rules (vertex formats, index checks,
//! inactive and degenerate primitives: `raytracing::accel`).
//!
//! # Rules
//!
//! - Names are unique; `level` is `bottom` or `top`. A bottom level has `[[…geometry]]`
//!   entries, all `triangles` or all `aabbs` (D3D12: one type per bottom-level
//!   structure), and no instances; a top level has instances only.
//! - An instance's `blas` names a bottom-level entry (in any order in the file); without
//!   `blas` it is a NULL instance (DXR spec "Inactive primitives and instances").
//! - Byte counts: every `data` form is read with the memory budget's remaining bytes as
//!   its limit, and counted against it while the structure is built; counts and strides
//!   are checked by the build before it allocates (`BuildOptions::max_primitives`).
//! - A geometry's vertices, indices and transform (or its AABBs) may instead be a named
//!   `[[resource]]` buffer from an offset (`{ buffer = "verts", offset = 0 }`), read
//!   when the job is bound, before anything runs. Such a geometry is a build command's
//!   `D3D12_RAYTRACING_GEOMETRY_DESC`: the command's checks apply (`list::accel`: each
//!   range inside its buffer, the alignments, `vertex_count`, `index_count` and
//!   `aabb_count` given, as D3D12 takes them) and its reading (`pipeline::accel_build`).
//!   A geometry's buffers are all named or all data forms.
//! - `mask` has 8 bits, `id` and `contribution` 24 (`D3D12_RAYTRACING_INSTANCE_DESC`'s
//!   bit fields); a wider value is an error, not truncated.
//! - A transform is 12 floats, row-major 3×4 (`D3D12_RAYTRACING_INSTANCE_DESC::Transform`).

use std::collections::BTreeMap;
use std::path::Path;
use std::sync::Arc;

use super::limits::MemoryBudget as Budget;
use super::list::accel::{BufferAt, Buffers, BuildGeometryEntry};
use super::schema::{
    AccelEntry, DataSpec, FloatValue, GeometryData, GeometryEntry, GeometryTransform,
    InstanceEntry, JobFile,
};
use super::{JobError, closest, data};
use crate::pipeline::accel_build::{BuildGeometry, ReadGeometry};
use crate::raytracing::{
    AabbsDesc, BottomLevel, BuildOptions, Geometry, GeometryDesc, GeometryFlags, IndexFormat,
    InstanceDesc, InstanceFlags, TopLevel, Transform3x4, TrianglesDesc, VertexFormat,
};

/// The job's built top-level structures, by name.
#[derive(Debug, Clone, Default)]
pub struct Built {
    tops: BTreeMap<String, Arc<TopLevel>>,
    bottoms: Vec<String>,
}

impl Built {
    /// The top-level structure named `name`, or an error saying what the name is.
    pub fn top(&self, name: &str) -> Result<Arc<TopLevel>, String> {
        if let Some(t) = self.tops.get(name) {
            return Ok(t.clone());
        }
        if self.bottoms.iter().any(|b| b == name) {
            return Err(format!(
                "`acceleration_structure` \"{name}\" is a bottom-level structure; a descriptor views a top-level one"
            ));
        }
        let hint = closest(name, self.tops.keys().map(String::as_str))
            .map(|k| format!(" (did you mean \"{k}\"?)"))
            .unwrap_or_default();
        Err(format!(
            "`acceleration_structure` \"{name}\" names no top-level [[acceleration_structure]]{hint}"
        ))
    }
}

/// Whether a geometry of `job` reads the named buffer `name`.
pub(crate) fn reads_buffer(job: &JobFile, name: &str) -> bool {
    let named =
        |d: &Option<GeometryData>| matches!(d, Some(GeometryData::Buffer(b)) if b.buffer == name);
    job.acceleration_structures
        .iter()
        .flat_map(|a| &a.geometries)
        .any(|g| {
            named(&g.vertices)
                || named(&g.indices)
                || named(&g.aabbs)
                || matches!(&g.transform, Some(GeometryTransform::Buffer(b)) if b.buffer == name)
        })
}

/// The name of an entry in messages: `[[acceleration_structure]] #2 ("scene")`.
fn entry_name(i: usize, e: &AccelEntry) -> String {
    format!("[[acceleration_structure]] #{} (\"{}\")", i + 1, e.name)
}

/// Builds every `[[acceleration_structure]]` of `job` (paths relative to `dir`);
/// `buffers` finds the named `[[resource]]` buffers a geometry may read.
pub fn build(
    job: &JobFile,
    dir: &Path,
    budget: &mut Budget,
    buffers: &Buffers<'_>,
) -> Result<Built, JobError> {
    let mut out = Built::default();
    let entries = &job.acceleration_structures;
    let options = BuildOptions {
        threads: job.options.threads.unwrap_or(0),
        ..BuildOptions::default()
    };
    let mut bottoms: BTreeMap<&str, Arc<BottomLevel>> = BTreeMap::new();
    // Bottom levels first: instances may name one written later in the file.
    for (i, e) in entries.iter().enumerate() {
        let name = entry_name(i, e);
        let err = |m: String| JobError::entry(&name, m);
        if e.name.is_empty() {
            return Err(err("`name` is empty".into()));
        }
        if let Some(j) = entries[..i].iter().position(|p| p.name == e.name) {
            return Err(err(format!(
                "`name` \"{}\" is already used by {}",
                e.name,
                entry_name(j, &entries[j])
            )));
        }
        match e.level.trim().to_ascii_lowercase().as_str() {
            "bottom" => {
                if !e.instances.is_empty() {
                    return Err(err(
                        "a bottom-level structure has geometries, not `instance` entries".into(),
                    ));
                }
                let blas = build_bottom(e, &name, dir, budget, &options, buffers)?;
                bottoms.insert(e.name.as_str(), Arc::new(blas));
                out.bottoms.push(e.name.clone());
            }
            "top" => {
                if !e.geometries.is_empty() {
                    return Err(err(
                        "a top-level structure has instances, not `geometry` entries".into(),
                    ));
                }
            }
            other => {
                return Err(err(format!(
                    "unknown `level` \"{other}\" (known: \"bottom\", \"top\")"
                )));
            }
        }
    }
    for (i, e) in entries.iter().enumerate() {
        if !e.level.trim().eq_ignore_ascii_case("top") {
            continue;
        }
        let name = entry_name(i, e);
        let mut descs = Vec::new();
        descs
            .try_reserve_exact(e.instances.len())
            .map_err(|_| JobError::entry(&name, "out of memory for its instances"))?;
        for (k, inst) in e.instances.iter().enumerate() {
            descs.push(
                instance_desc(inst, &bottoms, entries)
                    .map_err(|m| JobError::entry(&name, format!("instance[{k}].{m}")))?,
            );
        }
        budget.take(
            &name,
            (descs.len() as u64).saturating_mul(InstanceDesc::SIZE as u64),
        )?;
        let tlas =
            TopLevel::build(&descs, &options).map_err(|x| JobError::entry(&name, x.to_string()))?;
        out.tops.insert(e.name.clone(), Arc::new(tlas));
    }
    Ok(out)
}

/// One instance's description; errors start with the key (`blas: …`).
fn instance_desc(
    e: &InstanceEntry,
    bottoms: &BTreeMap<&str, Arc<BottomLevel>>,
    entries: &[AccelEntry],
) -> Result<InstanceDesc, String> {
    let blas = match &e.blas {
        None => None,
        Some(b) => match bottoms.get(b.as_str()) {
            Some(x) => Some(x.clone()),
            None if entries.iter().any(|x| &x.name == b) => {
                return Err(format!(
                    "blas: \"{b}\" is a top-level structure; an instance names a bottom-level one"
                ));
            }
            None => {
                let hint = closest(b, bottoms.keys().copied())
                    .map(|k| format!(" (did you mean \"{k}\"?)"))
                    .unwrap_or_default();
                return Err(format!(
                    "blas: \"{b}\" names no bottom-level [[acceleration_structure]]{hint}"
                ));
            }
        },
    };
    let transform = match &e.transform {
        Some(t) => transform(t).map_err(|m| format!("transform: {m}"))?,
        None => Transform3x4::IDENTITY,
    };
    let mask = e.mask.unwrap_or(0xff);
    if mask > 0xff {
        return Err(format!("mask: {mask:#x} has more than 8 bits"));
    }
    if e.id > 0x00ff_ffff {
        return Err(format!("id: {:#x} has more than 24 bits", e.id));
    }
    if e.contribution > 0x00ff_ffff {
        return Err(format!(
            "contribution: {:#x} has more than 24 bits",
            e.contribution
        ));
    }
    let mut flags = InstanceFlags::NONE;
    for f in &e.flags {
        flags |= match f.trim().to_ascii_lowercase().as_str() {
            "triangle_cull_disable" => InstanceFlags::TRIANGLE_CULL_DISABLE,
            "triangle_front_counterclockwise" => InstanceFlags::TRIANGLE_FRONT_COUNTERCLOCKWISE,
            "force_opaque" => InstanceFlags::FORCE_OPAQUE,
            "force_non_opaque" => InstanceFlags::FORCE_NON_OPAQUE,
            // DXR 1.2's opacity micromap flags: accepted; no geometry of a job has an
            // opacity micromap, so they change nothing (docs/raytracing.md).
            "force_omm_2_state" => InstanceFlags::FORCE_OMM_2_STATE,
            "disable_omms" => InstanceFlags::DISABLE_OMMS,
            other => {
                return Err(format!(
                    "flags: unknown flag \"{other}\" (known: triangle_cull_disable, triangle_front_counterclockwise, force_opaque, force_non_opaque, force_omm_2_state, disable_omms)"
                ));
            }
        };
    }
    Ok(InstanceDesc {
        transform,
        instance_id: e.id,
        instance_mask: mask as u8,
        contribution_to_hit_group_index: e.contribution,
        flags,
        blas,
    })
}

/// A 3×4 transform from 12 floats.
fn transform(v: &[FloatValue]) -> Result<Transform3x4, String> {
    if v.len() != 12 {
        return Err(format!(
            "{} values; a 3×4 transform has 12 (row-major)",
            v.len()
        ));
    }
    Ok(Transform3x4(std::array::from_fn(|i| {
        f32::from_bits(v[i].bits())
    })))
}

/// The bytes of one `data` form, counted against the budget while held.
fn bytes_of(
    spec: &DataSpec,
    key: &str,
    dir: &Path,
    budget: &Budget,
    name: &str,
) -> Result<Vec<u8>, JobError> {
    if spec.fill_u32.is_some() {
        return Err(JobError::entry(
            name,
            format!("`{key}`: fill_u32 needs a size; list the values or name a file"),
        ));
    }
    let b = data::bytes(spec, dir, budget.left())
        .map_err(|m| JobError::entry(name, format!("`{key}`: {m}")))?;
    budget.transient(name, b.len() as u64, key)?;
    Ok(b)
}

/// The geometries' bytes, held while the structure is built.
enum GeometryBytes {
    Triangles {
        vertices: Vec<u8>,
        indices: Vec<u8>,
    },
    Aabbs(Vec<u8>),
    /// Read from named buffers, with the checked geometry that reads them.
    Named(Box<(BuildGeometry, ReadGeometry)>),
}

/// A data form's bytes, or `None` for a named buffer (the caller checked the forms).
fn data_form(d: Option<&GeometryData>) -> Option<&DataSpec> {
    match d {
        Some(GeometryData::Data(x)) => Some(x),
        _ => None,
    }
}

/// The geometry as a build command's, when its buffers are named; an error naming the
/// key when named buffers and data forms are mixed.
fn named_geometry(geo: &GeometryEntry) -> Result<Option<BuildGeometryEntry>, String> {
    let buffer = |d: &Option<GeometryData>| match d {
        Some(GeometryData::Buffer(b)) => Some(b.clone()),
        _ => None,
    };
    let transform: Option<BufferAt> = match &geo.transform {
        Some(GeometryTransform::Buffer(b)) => Some(b.clone()),
        _ => None,
    };
    let keys = [
        (
            "vertices",
            geo.vertices.is_some(),
            buffer(&geo.vertices).is_some(),
        ),
        (
            "indices",
            geo.indices.is_some(),
            buffer(&geo.indices).is_some(),
        ),
        ("transform", geo.transform.is_some(), transform.is_some()),
        ("aabbs", geo.aabbs.is_some(), buffer(&geo.aabbs).is_some()),
    ];
    let Some(named) = keys.iter().find(|k| k.2) else {
        return Ok(None);
    };
    if let Some(inline) = keys.iter().find(|k| k.1 && !k.2) {
        return Err(format!(
            "{}: a data form, but `{}` names a buffer: a geometry's buffers are all named [[resource]] buffers or all data forms",
            inline.0, named.0
        ));
    }
    Ok(Some(BuildGeometryEntry {
        kind: geo.kind.clone(),
        vertices: buffer(&geo.vertices),
        vertex_format: geo.vertex_format.clone(),
        vertex_stride: geo.vertex_stride,
        vertex_count: geo.vertex_count,
        indices: buffer(&geo.indices),
        index_format: geo.index_format.clone(),
        index_count: geo.index_count,
        transform,
        aabbs: buffer(&geo.aabbs),
        aabb_count: geo.aabb_count,
        aabb_stride: geo.aabb_stride,
        opaque: geo.opaque,
        no_duplicate_any_hit: geo.no_duplicate_any_hit,
    }))
}

/// Builds one bottom-level entry.
fn build_bottom(
    e: &AccelEntry,
    name: &str,
    dir: &Path,
    budget: &mut Budget,
    options: &BuildOptions,
    buffers: &Buffers<'_>,
) -> Result<BottomLevel, JobError> {
    let mut held = Vec::new();
    let mut total = 0u64;
    for (g, geo) in e.geometries.iter().enumerate() {
        let at = |m: String| JobError::entry(name, format!("geometry[{g}].{m}"));
        let named = named_geometry(geo).map_err(at)?;
        let b = match named {
            Some(entry) => {
                // The list build's checks and reading, on the buffers' first contents.
                let checked = super::list::accel::geometry(buffers, g, &entry)
                    .map_err(|m| JobError::entry(name, m))?;
                let read = checked.read(g).map_err(|m| JobError::entry(name, m))?;
                GeometryBytes::Named(Box::new((checked, read)))
            }
            None => match geo.kind.trim().to_ascii_lowercase().as_str() {
                "triangles" => {
                    if geo.aabbs.is_some() || geo.aabb_count.is_some() || geo.aabb_stride.is_some()
                    {
                        return Err(at("aabbs: does not apply to triangles".into()));
                    }
                    let v = data_form(geo.vertices.as_ref())
                        .ok_or_else(|| at("vertices: missing (the positions' bytes)".into()))?;
                    let vertices =
                        bytes_of(v, &format!("geometry[{g}].vertices"), dir, budget, name)?;
                    let indices = match data_form(geo.indices.as_ref()) {
                        Some(i) => {
                            bytes_of(i, &format!("geometry[{g}].indices"), dir, budget, name)?
                        }
                        None => Vec::new(),
                    };
                    GeometryBytes::Triangles { vertices, indices }
                }
                "aabbs" => {
                    if geo.vertices.is_some() || geo.indices.is_some() || geo.transform.is_some() {
                        return Err(at(
                            "vertices: vertices, indices and transform are for triangles".into(),
                        ));
                    }
                    let a = data_form(geo.aabbs.as_ref())
                        .ok_or_else(|| at("aabbs: missing (six floats per box)".into()))?;
                    GeometryBytes::Aabbs(bytes_of(
                        a,
                        &format!("geometry[{g}].aabbs"),
                        dir,
                        budget,
                        name,
                    )?)
                }
                other => {
                    return Err(at(format!(
                        "type: unknown geometry type \"{other}\" (known: \"triangles\", \"aabbs\")"
                    )));
                }
            },
        };
        total = total.saturating_add(match &b {
            GeometryBytes::Triangles { vertices, indices } => {
                (vertices.len() as u64).saturating_add(indices.len() as u64)
            }
            GeometryBytes::Aabbs(a) => a.len() as u64,
            GeometryBytes::Named(n) => n.1.bytes(),
        });
        budget.transient(name, total, "its geometries' bytes")?;
        held.push(b);
    }
    let mut descs = Vec::with_capacity(held.len());
    for (g, (geo, b)) in e.geometries.iter().zip(&held).enumerate() {
        let at = |m: String| JobError::entry(name, format!("geometry[{g}].{m}"));
        let mut flags = GeometryFlags::NONE;
        if geo.opaque {
            flags |= GeometryFlags::OPAQUE;
        }
        if geo.no_duplicate_any_hit {
            flags |= GeometryFlags::NO_DUPLICATE_ANYHIT_INVOCATION;
        }
        let geometry = match b {
            GeometryBytes::Named(n) => {
                descs.push(n.0.desc(&n.1));
                continue;
            }
            GeometryBytes::Triangles { vertices, indices } => {
                let fmt_name = geo.vertex_format.as_deref().unwrap_or("R32G32B32_FLOAT");
                let vertex_format = VertexFormat::ALL
                    .into_iter()
                    .find(|f| format!("{f:?}").eq_ignore_ascii_case(fmt_name.trim()))
                    .ok_or_else(|| {
                        at(format!(
                            "vertex_format: \"{fmt_name}\" is not a vertex format of D3D12_RAYTRACING_GEOMETRY_TRIANGLES_DESC"
                        ))
                    })?;
                let stride = geo
                    .vertex_stride
                    .unwrap_or(match vertex_format {
                        VertexFormat::R16G16B16A16_FLOAT
                        | VertexFormat::R16G16B16A16_SNORM
                        | VertexFormat::R16G16B16A16_UNORM => 8,
                        f => f.bytes_read() as u64,
                    })
                    .max(1);
                let vertex_count = match geo.vertex_count {
                    Some(n) => n,
                    None => u32::try_from(vertices.len() as u64 / stride).map_err(|_| {
                        at("vertices: more vertices than a geometry can hold".into())
                    })?,
                };
                let index_format = match (&geo.indices, geo.index_format.as_deref()) {
                    (None, Some(_)) => {
                        return Err(at("index_format: goes with `indices`".into()));
                    }
                    (None, None) => IndexFormat::None,
                    (Some(_), None) => IndexFormat::R32_UINT,
                    (Some(_), Some(f)) => match f.trim().to_ascii_uppercase().as_str() {
                        "R16_UINT" => IndexFormat::R16_UINT,
                        "R32_UINT" => IndexFormat::R32_UINT,
                        _ => {
                            return Err(at(format!(
                                "index_format: \"{f}\" is not an index format (R16_UINT or R32_UINT)"
                            )));
                        }
                    },
                };
                let index_count = match (geo.index_count, index_format) {
                    (Some(n), _) => n,
                    (None, IndexFormat::None) => 0,
                    (None, f) => u32::try_from(indices.len() as u64 / f.size() as u64)
                        .map_err(|_| at("indices: more indices than a geometry can hold".into()))?,
                };
                let transform = match &geo.transform {
                    Some(GeometryTransform::Values(t)) => {
                        Some(transform(t).map_err(|m| at(format!("transform: {m}")))?)
                    }
                    // Named buffers make a `GeometryBytes::Named`.
                    Some(GeometryTransform::Buffer(_)) | None => None,
                };
                Geometry::Triangles(TrianglesDesc {
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
            GeometryBytes::Aabbs(a) => {
                let stride = geo.aabb_stride.unwrap_or(24);
                let count = match geo.aabb_count {
                    Some(n) => n,
                    None if stride == 0 => u64::from(a.len() >= 24),
                    None => (a.len() as u64).saturating_sub(24) / stride + u64::from(a.len() >= 24),
                };
                Geometry::Aabbs(AabbsDesc {
                    count,
                    aabbs: a,
                    stride,
                })
            }
        };
        descs.push(GeometryDesc { flags, geometry });
    }
    // What the build keeps is of the order of its input; count the input once more.
    budget.take(name, total)?;
    BottomLevel::build(&descs, options).map_err(|x| JobError::entry(name, x.to_string()))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::raytracing::{CommittedStatus, Ray, RayFlags, RayQuery};

    const BLAS: &str = r#"
[[acceleration_structure]]
name = "quad"
level = "bottom"
[[acceleration_structure.geometry]]
type = "triangles"
vertices = { f32 = [0, 0, 0,  1, 0, 0,  0, 1, 0,  1, 1, 0] }
indices = { u32 = [0, 1, 2,  2, 1, 3] }
opaque = true
"#;

    fn built(text: &str) -> Result<Built, String> {
        built_with(text, &[])
    }

    /// `text` built with named buffers `named` (name and bytes).
    fn built_with(text: &str, named: &[(&str, Vec<u8>)]) -> Result<Built, String> {
        let job = crate::job::parse(text).map_err(|e| e.to_string())?;
        let mut budget = Budget::new(1 << 30);
        let memories: Vec<(&str, crate::resources::Memory)> = named
            .iter()
            .map(|(n, b)| (*n, crate::resources::Memory::from_bytes(b).unwrap()))
            .collect();
        let buffers = |key: &str, n: &str| {
            memories
                .iter()
                .find(|(m, _)| *m == n)
                .map(|(_, m)| m.clone())
                .ok_or_else(|| format!("`{key}`: no resource is named \"{n}\""))
        };
        build(&job, Path::new("."), &mut budget, &buffers).map_err(|e| e.to_string())
    }

    fn f32_bytes(v: &[f32]) -> Vec<u8> {
        v.iter().flat_map(|x| x.to_le_bytes()).collect()
    }

    /// The procedural candidate a ray from `(o.x, o.y, -1)` along +z meets first, as
    /// (instance ID, primitive index), committed at its own entry.
    fn box_hit(tlas: &Arc<TopLevel>, o: [f32; 2]) -> Option<(u32, u32)> {
        let mut q = RayQuery::new();
        let ray = Ray {
            origin: [o[0], o[1], -1.0],
            t_min: 0.0,
            direction: [0.0, 0.0, 1.0],
            t_max: 100.0,
        };
        q.trace_ray_inline(Some(tlas.clone()), RayFlags::NONE, 0xff, ray);
        while q.proceed() {
            q.commit_procedural_primitive_hit(1.0);
        }
        (q.committed_status() == CommittedStatus::ProceduralPrimitiveHit)
            .then(|| q.committed().map(|h| (h.instance_id, h.primitive_index)))
            .flatten()
    }

    /// A geometry's vertices, indices and transform, or its AABBs, from named buffers at
    /// an offset give the structure the same geometry in data forms gives (D3D12's
    /// `D3D12_RAYTRACING_GEOMETRY_TRIANGLES_DESC` and `…_AABBS_DESC` read GPU
    /// addresses; a job names a buffer and an offset).
    #[test]
    fn named_buffers_build_what_data_forms_build() {
        let top = "\n[[acceleration_structure]]\nname = \"scene\"\nlevel = \"top\"\n[[acceleration_structure.instance]]\nblas = \"quad\"\nid = 7\n";
        // The quad moved by +10 in x by its geometry transform.
        let inline = built(&format!(
            "{}{top}",
            BLAS.replace(
                "opaque = true",
                "opaque = true\ntransform = [1, 0, 0, 10,  0, 1, 0, 0,  0, 0, 1, 0]"
            )
        ))
        .unwrap();
        let mut verts = vec![0u8; 16];
        verts.extend(f32_bytes(&[0., 0., 0., 1., 0., 0., 0., 1., 0., 1., 1., 0.]));
        let idx: Vec<u8> = [0u32, 1, 2, 2, 1, 3]
            .iter()
            .flat_map(|i| i.to_le_bytes())
            .collect();
        let mut xf = vec![0u8; 32];
        xf.extend(f32_bytes(&[
            1., 0., 0., 10., 0., 1., 0., 0., 0., 0., 1., 0.,
        ]));
        let named_blas = "[[acceleration_structure]]\nname = \"quad\"\nlevel = \"bottom\"\n[[acceleration_structure.geometry]]\ntype = \"triangles\"\nopaque = true\nvertices = { buffer = \"v\", offset = 16 }\nvertex_count = 4\nindices = { buffer = \"i\" }\nindex_count = 6\ntransform = { buffer = \"x\", offset = 32 }\n";
        let bufs = [("v", verts), ("i", idx), ("x", xf)];
        let named = built_with(&format!("{named_blas}{top}"), &bufs).unwrap();
        let (a, b) = (inline.top("scene").unwrap(), named.top("scene").unwrap());
        for o in [
            [10.25, 0.25],
            [10.75, 0.75],
            [0.25, 0.25],
            [10.9, 0.9],
            [11.5, 0.5],
        ] {
            assert_eq!(
                hit(&a, [o[0], o[1], 0.0]),
                hit(&b, [o[0], o[1], 0.0]),
                "{o:?}"
            );
        }
        assert_eq!(hit(&b, [10.75, 0.75, 0.0]), Some((7, 1)));

        // Two boxes, 32 bytes apart, after 8 bytes.
        let boxes = [
            0., 0., 0., 1., 1., 1., 0., 0., 0., 0., 0., 0., 0., 0., 0., 0.,
        ];
        let second = [2., 0., 0., 3., 1., 1.];
        let mut aabbs = vec![0u8; 8];
        aabbs.extend(f32_bytes(&boxes[..8]));
        aabbs.extend(f32_bytes(&second));
        let data_boxes: Vec<String> = boxes[..8]
            .iter()
            .chain(&second)
            .map(|v| v.to_string())
            .collect();
        let aabb_blas = |src: &str| {
            format!(
                "[[acceleration_structure]]\nname = \"quad\"\nlevel = \"bottom\"\n[[acceleration_structure.geometry]]\ntype = \"aabbs\"\naabbs = {src}\naabb_count = 2\naabb_stride = 32\n{top}"
            )
        };
        let inline = built(&aabb_blas(&format!(
            "{{ f32 = [{}] }}",
            data_boxes.join(", ")
        )))
        .unwrap();
        let named = built_with(
            &aabb_blas("{ buffer = \"a\", offset = 8 }"),
            &[("a", aabbs)],
        )
        .unwrap();
        let (a, b) = (inline.top("scene").unwrap(), named.top("scene").unwrap());
        for o in [[0.5, 0.5], [2.5, 0.5], [1.5, 0.5]] {
            assert_eq!(box_hit(&a, o), box_hit(&b, o), "{o:?}");
        }
        assert_eq!(box_hit(&b, [2.5, 0.5]), Some((7, 1)));
        assert_eq!(box_hit(&b, [1.5, 0.5]), None);
    }

    /// Named buffers are checked as a build command checks them, the errors naming the
    /// structure and the key (`list::accel`): a missing buffer, a range past its end, a
    /// misaligned start, a missing count, and named buffers beside data forms.
    #[test]
    fn named_buffer_errors_name_the_entry_and_key() {
        let blas = |geo: &str| {
            format!(
                "[[acceleration_structure]]\nname = \"quad\"\nlevel = \"bottom\"\n[[acceleration_structure.geometry]]\ntype = \"triangles\"\n{geo}\n"
            )
        };
        let bufs = [("v", vec![0u8; 40])];
        let e = built_with(
            &blas("vertices = { buffer = \"w\" }\nvertex_count = 3"),
            &bufs,
        )
        .unwrap_err();
        assert!(
            e.contains("[[acceleration_structure]] #1 (\"quad\")")
                && e.contains("`geometry[0].vertices.buffer`: no resource is named \"w\""),
            "{e}"
        );
        let e = built_with(
            &blas("vertices = { buffer = \"v\", offset = 8 }\nvertex_count = 3"),
            &bufs,
        )
        .unwrap_err();
        assert!(
            e.contains("(\"quad\")")
                && e.contains("`geometry[0].vertices`: 36 bytes from offset 8 pass the end of \"v\" (40 bytes)"),
            "{e}"
        );
        let e = built_with(
            &blas("vertices = { buffer = \"v\", offset = 2 }\nvertex_count = 3"),
            &bufs,
        )
        .unwrap_err();
        assert!(
            e.contains("`geometry[0].vertices.offset` 2: the address must be a multiple of 4"),
            "{e}"
        );
        let e = built_with(&blas("vertices = { buffer = \"v\" }"), &bufs).unwrap_err();
        assert!(e.contains("missing `geometry[0].vertex_count`"), "{e}");
        let e = built_with(
            &blas("vertices = { buffer = \"v\" }\nvertex_count = 3\nindices = { u32 = [0, 1, 2] }"),
            &bufs,
        )
        .unwrap_err();
        assert!(
            e.contains("geometry[0].indices: a data form, but `vertices` names a buffer"),
            "{e}"
        );
        let e = built_with(
            &blas("vertices = { buffer = \"v\" }\nvertex_count = 3\ntransform = { buffer = \"v\", offset = 4 }"),
            &bufs,
        )
        .unwrap_err();
        assert!(
            e.contains("`geometry[0].transform.offset` 4: the address must be a multiple of 16"),
            "{e}"
        );
    }

    fn hit(tlas: &Arc<TopLevel>, o: [f32; 3]) -> Option<(u32, u32)> {
        let mut q = RayQuery::new();
        // From z = -1 towards +z: a triangle at z = 0 is at t = 1, inside (TMin, TMax).
        let ray = Ray {
            origin: [o[0], o[1], -1.0],
            t_min: 0.0,
            direction: [0.0, 0.0, 1.0],
            t_max: 100.0,
        };
        q.trace_ray_inline(Some(tlas.clone()), RayFlags::NONE, 0xff, ray);
        while q.proceed() {
            q.commit_non_opaque_triangle_hit();
        }
        (q.committed_status() == CommittedStatus::TriangleHit)
            .then(|| q.committed().map(|h| (h.instance_id, h.primitive_index)))
            .flatten()
    }

    /// A bottom level of two triangles under a translated instance: the instance's
    /// transform, ID and the triangles' order reach the built structure (DXR spec
    /// "D3D12_RAYTRACING_INSTANCE_DESC").
    #[test]
    fn instances_place_bottom_levels() {
        let b = built(&format!(
            "{BLAS}
[[acceleration_structure]]
name = \"scene\"
level = \"top\"
[[acceleration_structure.instance]]
blas = \"quad\"
id = 7
transform = [1, 0, 0, 10,  0, 1, 0, 0,  0, 0, 1, 5]
"
        ))
        .unwrap();
        let t = b.top("scene").unwrap();
        assert_eq!(hit(&t, [10.25, 0.25, 0.0]), Some((7, 0)));
        assert_eq!(hit(&t, [10.75, 0.75, 0.0]), Some((7, 1)));
        assert_eq!(hit(&t, [0.25, 0.25, 0.0]), None);
        assert!(b.top("quad").unwrap_err().contains("bottom-level"));
        assert!(
            b.top("scen")
                .unwrap_err()
                .contains("did you mean \"scene\"")
        );
    }

    /// Bad input names the structure and the field: an unknown bottom level, an index
    /// past the vertices, a mask wider than 8 bits, a transform of the wrong size.
    #[test]
    fn errors_name_the_structure_and_field() {
        let top = |inst: &str| {
            format!(
                "{BLAS}\n[[acceleration_structure]]\nname = \"scene\"\nlevel = \"top\"\n[[acceleration_structure.instance]]\n{inst}\n"
            )
        };
        let e = built(&top("blas = \"qaud\"")).unwrap_err();
        assert!(
            e.contains("[[acceleration_structure]] #2 (\"scene\")")
                && e.contains("instance[0].blas")
                && e.contains("did you mean \"quad\""),
            "{e}"
        );
        let e = built(&top("blas = \"quad\"\nmask = 256")).unwrap_err();
        assert!(e.contains("instance[0].mask"), "{e}");
        let e = built(&top("blas = \"quad\"\ntransform = [1, 0, 0]")).unwrap_err();
        assert!(e.contains("instance[0].transform: 3 values"), "{e}");
        let e = built(&top("blas = \"scene\"")).unwrap_err();
        assert!(e.contains("is a top-level structure"), "{e}");
        let e = built(&BLAS.replace("2,  2, 1, 3", "2,  2, 1, 4")).unwrap_err();
        assert!(
            e.contains("[[acceleration_structure]] #1 (\"quad\")") && e.contains("indices[5]"),
            "{e}"
        );
        let e = built(
            &BLAS
                .replace("R32", "")
                .replace("opaque = true", "vertex_format = \"R8_UNORM\""),
        )
        .unwrap_err();
        assert!(e.contains("geometry[0].vertex_format"), "{e}");
        let e = built(&format!("{BLAS}{BLAS}")).unwrap_err();
        assert!(e.contains("already used"), "{e}");
    }

    /// A triangle with a NaN vertex is inactive: never hit, and the next triangle keeps
    /// its primitive index (DXR spec "Inactive primitives and instances").
    #[test]
    fn nan_vertices_are_never_hit() {
        let b = built(&format!(
            "{}
[[acceleration_structure]]
name = \"scene\"
level = \"top\"
[[acceleration_structure.instance]]
blas = \"quad\"
",
            BLAS.replace("0, 0, 0,  1, 0, 0", "\"NaN\", 0, 0,  1, 0, 0")
        ))
        .unwrap();
        let t = b.top("scene").unwrap();
        assert_eq!(hit(&t, [0.25, 0.25, 0.0]), None);
        assert_eq!(hit(&t, [0.75, 0.75, 0.0]), Some((0, 1)));
    }

    /// Geometry bytes count against the job's memory budget before the build.
    #[test]
    fn geometry_bytes_count_against_the_budget() {
        let job = crate::job::parse(&format!(
            "{BLAS}\n[[acceleration_structure]]\nname = \"s\"\nlevel = \"top\"\n"
        ))
        .unwrap();
        let mut budget = Budget::new(40);
        let e = build(
            &job,
            Path::new("."),
            &mut budget,
            &|k, _| Err(k.to_string()),
        )
        .unwrap_err()
        .to_string();
        assert!(e.contains("(\"quad\")") && e.contains("max_memory"), "{e}");
    }
}
