//! Acceleration structures in D3D12's terms: bottom-level structures of triangle or
//! procedural (AABB) geometries and top-level structures of instances, built on the CPU
//! into the hierarchies of [`super::bvh`].
//!
//! The inputs are plain data: vertex, index and AABB bytes with their formats and strides,
//! as `D3D12_RAYTRACING_GEOMETRY_DESC` points at them, and instance descriptions; a
//! structure keeps no reference to them once built (DXR spec "Data rules"). Inputs are
//! untrusted: every length and index is checked, errors name the field, and the
//! primitive count is checked against [`BuildOptions::max_primitives`] before anything
//! is allocated for it.

use std::sync::Arc;

use thiserror::Error;

use super::bvh::{self, Aabb, Bvh, Child, Wide};
use super::flags::{GeometryFlags, InstanceFlags};
use super::math::Transform3x4;

/// The most geometries in one bottom-level structure (DXR spec "Geometry limits").
pub const MAX_GEOMETRIES: usize = 1 << 24;

/// The most primitives in one bottom-level structure, inactive and degenerate ones
/// included (DXR spec "Geometry limits").
pub const MAX_PRIMITIVES: u64 = 1 << 29;

/// The most instances in one top-level structure (DXR spec "Geometry limits").
pub const MAX_INSTANCES: usize = 1 << 24;

/// Triangles per leaf of a bottom-level hierarchy.
const LEAF_TRIANGLES: usize = 4;

/// AABBs per leaf: each one is a candidate handed to the caller, so keep them apart.
const LEAF_AABBS: usize = 1;

/// Instances per leaf of a top-level hierarchy.
const LEAF_INSTANCES: usize = 1;

/// A build that cannot be done, naming the input field.
#[derive(Debug, Error, Clone, PartialEq, Eq)]
pub enum AccelError {
    /// A field holds a value the build refuses.
    #[error("{field}: {message}")]
    Invalid {
        /// The field, as `geometries[2].triangles.index_count`.
        field: String,
        /// What is wrong with it.
        message: String,
    },
    /// A count over a limit.
    #[error("{field}: {count} is more than the limit of {limit}")]
    TooMany {
        /// The field.
        field: String,
        /// The count asked for.
        count: u64,
        /// The limit.
        limit: u64,
    },
    /// Memory for the structure could not be reserved.
    #[error("{what}: out of memory reserving {bytes} bytes")]
    OutOfMemory {
        /// What was being built.
        what: String,
        /// The bytes asked for.
        bytes: usize,
    },
}

fn invalid(field: impl Into<String>, message: impl Into<String>) -> AccelError {
    AccelError::Invalid {
        field: field.into(),
        message: message.into(),
    }
}

fn oom(what: &str, e: bvh::OutOfMemory) -> AccelError {
    AccelError::OutOfMemory {
        what: what.to_string(),
        bytes: e.bytes,
    }
}

fn reserve<T>(v: &mut Vec<T>, n: usize, what: &str) -> Result<(), AccelError> {
    v.try_reserve_exact(n).map_err(|_| AccelError::OutOfMemory {
        what: what.to_string(),
        bytes: n.saturating_mul(std::mem::size_of::<T>()),
    })
}

/// How to build.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BuildOptions {
    /// Worker threads; 0 = one per core. The result is the same for any count.
    pub threads: usize,
    /// The most primitives a bottom-level build accepts (at most [`MAX_PRIMITIVES`]).
    pub max_primitives: u64,
}

impl Default for BuildOptions {
    fn default() -> Self {
        BuildOptions {
            threads: 0,
            max_primitives: MAX_PRIMITIVES,
        }
    }
}

/// The vertex position formats of `D3D12_RAYTRACING_GEOMETRY_TRIANGLES_DESC` (DXR spec):
/// the first six for every tier, the rest from tier 1.1. Two-component formats have
/// `z = 0`; the fourth component of four-component formats is ignored (and not read).
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum VertexFormat {
    /// `DXGI_FORMAT_R32G32_FLOAT`.
    R32G32_FLOAT,
    /// `DXGI_FORMAT_R32G32B32_FLOAT`.
    R32G32B32_FLOAT,
    /// `DXGI_FORMAT_R16G16_FLOAT`.
    R16G16_FLOAT,
    /// `DXGI_FORMAT_R16G16B16A16_FLOAT`.
    R16G16B16A16_FLOAT,
    /// `DXGI_FORMAT_R16G16_SNORM`.
    R16G16_SNORM,
    /// `DXGI_FORMAT_R16G16B16A16_SNORM`.
    R16G16B16A16_SNORM,
    /// `DXGI_FORMAT_R16G16B16A16_UNORM` (tier 1.1).
    R16G16B16A16_UNORM,
    /// `DXGI_FORMAT_R16G16_UNORM` (tier 1.1).
    R16G16_UNORM,
    /// `DXGI_FORMAT_R10G10B10A2_UNORM` (tier 1.1).
    R10G10B10A2_UNORM,
    /// `DXGI_FORMAT_R8G8B8A8_UNORM` (tier 1.1).
    R8G8B8A8_UNORM,
    /// `DXGI_FORMAT_R8G8_UNORM` (tier 1.1).
    R8G8_UNORM,
    /// `DXGI_FORMAT_R8G8B8A8_SNORM` (tier 1.1).
    R8G8B8A8_SNORM,
    /// `DXGI_FORMAT_R8G8_SNORM` (tier 1.1).
    R8G8_SNORM,
}

impl VertexFormat {
    /// Every format.
    pub const ALL: [VertexFormat; 13] = [
        Self::R32G32_FLOAT,
        Self::R32G32B32_FLOAT,
        Self::R16G16_FLOAT,
        Self::R16G16B16A16_FLOAT,
        Self::R16G16_SNORM,
        Self::R16G16B16A16_SNORM,
        Self::R16G16B16A16_UNORM,
        Self::R16G16_UNORM,
        Self::R10G10B10A2_UNORM,
        Self::R8G8B8A8_UNORM,
        Self::R8G8_UNORM,
        Self::R8G8B8A8_SNORM,
        Self::R8G8_SNORM,
    ];

    /// The `DXGI_FORMAT` value.
    pub fn dxgi(self) -> u32 {
        match self {
            Self::R32G32B32_FLOAT => 6,
            Self::R16G16B16A16_FLOAT => 10,
            Self::R16G16B16A16_UNORM => 11,
            Self::R16G16B16A16_SNORM => 13,
            Self::R32G32_FLOAT => 16,
            Self::R10G10B10A2_UNORM => 24,
            Self::R8G8B8A8_UNORM => 28,
            Self::R8G8B8A8_SNORM => 31,
            Self::R16G16_FLOAT => 34,
            Self::R16G16_UNORM => 35,
            Self::R16G16_SNORM => 37,
            Self::R8G8_UNORM => 49,
            Self::R8G8_SNORM => 51,
        }
    }

    /// The format of a `DXGI_FORMAT` value, if it is a vertex format.
    pub fn from_dxgi(v: u32) -> Option<Self> {
        Self::ALL.into_iter().find(|f| f.dxgi() == v)
    }

    /// Bytes read per vertex (the ignored fourth component is not read, so a stride of 6
    /// works for `R16G16B16A16_*` as the spec allows).
    pub fn bytes_read(self) -> usize {
        match self {
            Self::R32G32B32_FLOAT => 12,
            Self::R32G32_FLOAT => 8,
            Self::R16G16B16A16_FLOAT | Self::R16G16B16A16_SNORM | Self::R16G16B16A16_UNORM => 6,
            Self::R16G16_FLOAT
            | Self::R16G16_SNORM
            | Self::R16G16_UNORM
            | Self::R10G10B10A2_UNORM => 4,
            Self::R8G8B8A8_UNORM | Self::R8G8B8A8_SNORM => 3,
            Self::R8G8_UNORM | Self::R8G8_SNORM => 2,
        }
    }

    /// What the stride must be a multiple of: the component size (DXR spec
    /// `VertexBuffer`), 4 for `R10G10B10A2_UNORM`.
    pub fn stride_alignment(self) -> u64 {
        match self {
            Self::R32G32_FLOAT | Self::R32G32B32_FLOAT | Self::R10G10B10A2_UNORM => 4,
            Self::R8G8B8A8_UNORM | Self::R8G8_UNORM | Self::R8G8B8A8_SNORM | Self::R8G8_SNORM => 1,
            _ => 2,
        }
    }

    /// Decodes one position from `b` (at least [`Self::bytes_read`] bytes). SNORM follows
    /// D3D's rule (`max(c / (2^(n-1) - 1), -1)`), UNORM divides by `2^n - 1`.
    fn decode(self, b: &[u8]) -> [f32; 3] {
        let u16_at = |i: usize| u16::from_le_bytes([b[2 * i], b[2 * i + 1]]);
        let f32_at =
            |i: usize| f32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]]);
        let snorm16 = |v: u16| (f32::from(v as i16) / 32767.0).max(-1.0);
        let unorm16 = |v: u16| f32::from(v) / 65535.0;
        let snorm8 = |v: u8| (f32::from(v as i8) / 127.0).max(-1.0);
        let unorm8 = |v: u8| f32::from(v) / 255.0;
        match self {
            Self::R32G32B32_FLOAT => [f32_at(0), f32_at(1), f32_at(2)],
            Self::R32G32_FLOAT => [f32_at(0), f32_at(1), 0.0],
            Self::R16G16B16A16_FLOAT => [0, 1, 2].map(|i| f16_to_f32(u16_at(i))),
            Self::R16G16_FLOAT => [f16_to_f32(u16_at(0)), f16_to_f32(u16_at(1)), 0.0],
            Self::R16G16B16A16_SNORM => [0, 1, 2].map(|i| snorm16(u16_at(i))),
            Self::R16G16_SNORM => [snorm16(u16_at(0)), snorm16(u16_at(1)), 0.0],
            Self::R16G16B16A16_UNORM => [0, 1, 2].map(|i| unorm16(u16_at(i))),
            Self::R16G16_UNORM => [unorm16(u16_at(0)), unorm16(u16_at(1)), 0.0],
            Self::R10G10B10A2_UNORM => {
                let w = u32::from_le_bytes([b[0], b[1], b[2], b[3]]);
                [0, 10, 20].map(|s| ((w >> s) & 0x3ff) as f32 / 1023.0)
            }
            Self::R8G8B8A8_UNORM => [unorm8(b[0]), unorm8(b[1]), unorm8(b[2])],
            Self::R8G8_UNORM => [unorm8(b[0]), unorm8(b[1]), 0.0],
            Self::R8G8B8A8_SNORM => [snorm8(b[0]), snorm8(b[1]), snorm8(b[2])],
            Self::R8G8_SNORM => [snorm8(b[0]), snorm8(b[1]), 0.0],
        }
    }
}

/// An IEEE half to single conversion (exact).
fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h >> 15) << 31;
    let exp = u32::from((h >> 10) & 0x1f);
    let man = u32::from(h & 0x3ff);
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, m) => {
            // Subnormal: m · 2^-24.
            let v = m as f32 * (1.0 / 16_777_216.0);
            return if sign != 0 { -v } else { v };
        }
        (31, 0) => sign | 0x7f80_0000,
        (31, m) => sign | 0x7fc0_0000 | (m << 13),
        (e, m) => sign | ((e + 112) << 23) | (m << 13),
    };
    f32::from_bits(bits)
}

/// The index formats of `D3D12_RAYTRACING_GEOMETRY_TRIANGLES_DESC`.
#[allow(non_camel_case_types)]
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash, Default)]
pub enum IndexFormat {
    /// `DXGI_FORMAT_UNKNOWN`: no index buffer; vertices `3k, 3k+1, 3k+2` form triangle `k`.
    #[default]
    None,
    /// `DXGI_FORMAT_R16_UINT`.
    R16_UINT,
    /// `DXGI_FORMAT_R32_UINT`.
    R32_UINT,
}

impl IndexFormat {
    /// The `DXGI_FORMAT` value.
    pub fn dxgi(self) -> u32 {
        match self {
            Self::None => 0,
            Self::R16_UINT => 57,
            Self::R32_UINT => 42,
        }
    }

    /// The format of a `DXGI_FORMAT` value, if it is an index format.
    pub fn from_dxgi(v: u32) -> Option<Self> {
        [Self::None, Self::R16_UINT, Self::R32_UINT]
            .into_iter()
            .find(|f| f.dxgi() == v)
    }

    /// Bytes per index (0 without an index buffer).
    pub fn size(self) -> usize {
        match self {
            Self::None => 0,
            Self::R16_UINT => 2,
            Self::R32_UINT => 4,
        }
    }
}

/// `D3D12_RAYTRACING_GEOMETRY_TRIANGLES_DESC`, with the buffers as bytes.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct TrianglesDesc<'a> {
    /// Applied to the vertices during the build (`None`: the identity). A negative
    /// determinant flips the winding, as the spec says.
    pub transform: Option<Transform3x4>,
    /// The format of `indices`.
    pub index_format: IndexFormat,
    /// Indices read (a multiple of 3; 0 without an index buffer).
    pub index_count: u32,
    /// The index buffer, from its first index.
    pub indices: &'a [u8],
    /// The format of the positions.
    pub vertex_format: VertexFormat,
    /// Vertices in `vertices` (a multiple of 3 without an index buffer).
    pub vertex_count: u32,
    /// The vertex buffer, from its first vertex.
    pub vertices: &'a [u8],
    /// Bytes from one vertex to the next.
    pub vertex_stride: u64,
}

/// `D3D12_RAYTRACING_GEOMETRY_AABBS_DESC`: `count` `D3D12_RAYTRACING_AABB`s (six
/// little-endian `f32`: min x, y, z, max x, y, z) `stride` bytes apart.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct AabbsDesc<'a> {
    /// AABBs to read.
    pub count: u64,
    /// The buffer, from its first AABB.
    pub aabbs: &'a [u8],
    /// Bytes from one AABB to the next (a multiple of 8; 0 repeats the first).
    pub stride: u64,
}

/// The geometry of one `D3D12_RAYTRACING_GEOMETRY_DESC`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub enum Geometry<'a> {
    /// `D3D12_RAYTRACING_GEOMETRY_TYPE_TRIANGLES`.
    Triangles(TrianglesDesc<'a>),
    /// `D3D12_RAYTRACING_GEOMETRY_TYPE_PROCEDURAL_PRIMITIVE_AABBS`.
    Aabbs(AabbsDesc<'a>),
}

/// `D3D12_RAYTRACING_GEOMETRY_DESC`.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct GeometryDesc<'a> {
    /// Opaque and no-duplicate-any-hit.
    pub flags: GeometryFlags,
    /// The primitives.
    pub geometry: Geometry<'a>,
}

/// What a bottom-level structure holds (one kind only: DXR spec "Geometry and
/// acceleration structures").
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum GeometryType {
    /// Triangle meshes.
    Triangles,
    /// Procedural primitives bounded by AABBs.
    ProceduralPrimitiveAabbs,
}

/// One geometry of a built structure.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GeometryInfo {
    /// Its flags.
    pub flags: GeometryFlags,
    /// Primitives, inactive and degenerate ones included (they keep their
    /// `PrimitiveIndex()` places: DXR spec "Inactive primitives and instances").
    pub primitive_count: u32,
}

/// A leaf item's place in the input.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) struct PrimRef {
    pub geometry: u32,
    pub primitive: u32,
}

/// A built bottom-level acceleration structure.
///
/// Inactive primitives (a NaN coordinate: DXR spec "Inactive primitives and instances";
/// the spec makes only a NaN x coordinate inactive and leaves other NaNs undefined, and
/// dxlane treats them alike) and degenerate triangles (collinear vertices after the
/// geometry transform, decided exactly: "Degenerate primitives and instances") are left
/// out of the hierarchy, so they are never hit, and still count in `PrimitiveIndex()`.
/// Triangles with an infinite coordinate are left out too (no ray can hit them at a
/// finite distance); infinite AABB bounds are kept, clamped to `±f32::MAX`.
#[derive(Clone, Debug)]
pub struct BottomLevel {
    pub(crate) kind: Option<GeometryType>,
    pub(crate) geometries: Vec<GeometryInfo>,
    pub(crate) bvh: Bvh,
    /// The same hierarchy two levels to a node, which the traversal walks (`bvh::Wide`).
    pub(crate) wide: Vec<Wide>,
    /// Where the traversal starts: the first wide node, or the root leaf.
    pub(crate) wide_root: Option<Child>,
    /// Triangles in leaf order, transformed.
    pub(crate) tris: Vec<[[f32; 3]; 3]>,
    /// AABBs in leaf order.
    pub(crate) boxes: Vec<Aabb>,
    /// Leaf item → geometry and primitive index.
    pub(crate) refs: Vec<PrimRef>,
    /// The largest coordinate magnitude (sets the traversal's box padding).
    pub(crate) magnitude: f32,
}

impl BottomLevel {
    /// Builds a bottom-level structure from `geometries` (all triangles or all AABBs).
    pub fn build(
        geometries: &[GeometryDesc<'_>],
        options: &BuildOptions,
    ) -> Result<BottomLevel, AccelError> {
        if geometries.len() > MAX_GEOMETRIES {
            return Err(AccelError::TooMany {
                field: "geometries".into(),
                count: geometries.len() as u64,
                limit: MAX_GEOMETRIES as u64,
            });
        }
        let limit = options.max_primitives.min(MAX_PRIMITIVES);
        let mut kind = None;
        let mut total: u64 = 0;
        let mut counts = Vec::with_capacity(geometries.len());
        for (g, desc) in geometries.iter().enumerate() {
            let this = match desc.geometry {
                Geometry::Triangles(_) => GeometryType::Triangles,
                Geometry::Aabbs(_) => GeometryType::ProceduralPrimitiveAabbs,
            };
            match kind {
                None => kind = Some(this),
                Some(k) if k != this => {
                    return Err(invalid(
                        format!("geometries[{g}]"),
                        format!(
                            "a bottom-level structure holds one geometry type; geometry 0 is {k:?}, this one {this:?}"
                        ),
                    ));
                }
                Some(_) => {}
            }
            let n = match &desc.geometry {
                Geometry::Triangles(t) => check_triangles(g, t)?,
                Geometry::Aabbs(a) => check_aabbs(g, a)?,
            };
            total = total.saturating_add(n);
            if total > limit {
                return Err(AccelError::TooMany {
                    field: format!("geometries[{g}]: primitives in the structure"),
                    count: total,
                    limit,
                });
            }
            counts.push(n as u32);
        }
        let n = total as usize;
        let mut boxes: Vec<Aabb> = Vec::new();
        let mut refs: Vec<PrimRef> = Vec::new();
        let mut tris: Vec<[[f32; 3]; 3]> = Vec::new();
        reserve(&mut boxes, n, "primitive boxes")?;
        reserve(&mut refs, n, "primitive references")?;
        let mut infos = Vec::with_capacity(geometries.len());
        for (g, desc) in geometries.iter().enumerate() {
            infos.push(GeometryInfo {
                flags: desc.flags,
                primitive_count: counts[g],
            });
            match &desc.geometry {
                Geometry::Triangles(t) => {
                    if tris.capacity() == 0 {
                        reserve(&mut tris, n, "triangles")?;
                    }
                    gather_triangles(g as u32, t, counts[g], &mut tris, &mut boxes, &mut refs);
                }
                Geometry::Aabbs(a) => gather_aabbs(g as u32, a, &mut boxes, &mut refs),
            }
        }
        let bvh = bvh::build(&boxes, leaf_size(kind), options.threads)
            .map_err(|e| oom("bottom-level hierarchy", e))?;
        let (wide, wide_root) =
            bvh::widen(&bvh).map_err(|e| oom("bottom-level hierarchy (wide nodes)", e))?;
        // Put the primitives in leaf order.
        let mut o_tris = Vec::new();
        let mut o_boxes = Vec::new();
        let mut o_refs = Vec::new();
        reserve(&mut o_refs, refs.len(), "primitive references")?;
        if kind == Some(GeometryType::Triangles) {
            reserve(&mut o_tris, tris.len(), "triangles")?;
        } else {
            reserve(&mut o_boxes, boxes.len(), "AABBs")?;
        }
        for &k in &bvh.order {
            let k = k as usize;
            o_refs.push(refs[k]);
            if kind == Some(GeometryType::Triangles) {
                o_tris.push(tris[k]);
            } else {
                o_boxes.push(boxes[k]);
            }
        }
        let magnitude = bvh.bounds.map_or(0.0, |b| b.magnitude());
        Ok(BottomLevel {
            kind,
            geometries: infos,
            bvh,
            wide,
            wide_root,
            tris: o_tris,
            boxes: o_boxes,
            refs: o_refs,
            magnitude,
        })
    }

    /// What the structure holds (`None` when it has no geometry).
    pub fn geometry_type(&self) -> Option<GeometryType> {
        self.kind
    }

    /// Geometries, in input order (`GeometryIndex()`).
    pub fn geometries(&self) -> &[GeometryInfo] {
        &self.geometries
    }

    /// Primitives the hierarchy holds (active and not degenerate).
    pub fn active_primitive_count(&self) -> usize {
        self.refs.len()
    }

    /// Inner nodes of the hierarchy.
    pub fn node_count(&self) -> usize {
        self.bvh.nodes.len()
    }

    /// The bounds of the active primitives, `(min, max)`.
    pub fn bounds(&self) -> Option<([f32; 3], [f32; 3])> {
        self.bvh.bounds.map(|b| (b.min, b.max))
    }
}

fn leaf_size(kind: Option<GeometryType>) -> usize {
    match kind {
        Some(GeometryType::ProceduralPrimitiveAabbs) => LEAF_AABBS,
        _ => LEAF_TRIANGLES,
    }
}

/// Checks a triangle geometry's fields and returns its triangle count.
fn check_triangles(g: usize, t: &TrianglesDesc<'_>) -> Result<u64, AccelError> {
    let f = |name: &str| format!("geometries[{g}].triangles.{name}");
    let fmt = t.vertex_format;
    if t.vertex_stride % fmt.stride_alignment() != 0 {
        return Err(invalid(
            f("vertex_stride"),
            format!(
                "{} is not a multiple of {} for {fmt:?}",
                t.vertex_stride,
                fmt.stride_alignment()
            ),
        ));
    }
    if t.vertex_count > 0 {
        let need = u64::from(t.vertex_count - 1)
            .checked_mul(t.vertex_stride)
            .and_then(|v| v.checked_add(fmt.bytes_read() as u64));
        if need.is_none_or(|need| need > t.vertices.len() as u64) {
            return Err(invalid(
                f("vertices"),
                format!(
                    "{} vertices of {fmt:?} {} bytes apart need {} bytes, the buffer has {}",
                    t.vertex_count,
                    t.vertex_stride,
                    need.map_or("more than 2^64".to_string(), |n| n.to_string()),
                    t.vertices.len()
                ),
            ));
        }
    }
    match t.index_format {
        IndexFormat::None => {
            if t.index_count != 0 {
                return Err(invalid(
                    f("index_count"),
                    "must be 0 without an index format",
                ));
            }
            if t.vertex_count % 3 != 0 {
                return Err(invalid(
                    f("vertex_count"),
                    format!(
                        "{} is not a multiple of 3 (a triangle list without indices)",
                        t.vertex_count
                    ),
                ));
            }
            Ok(u64::from(t.vertex_count / 3))
        }
        fmt => {
            if t.index_count % 3 != 0 {
                return Err(invalid(
                    f("index_count"),
                    format!("{} is not a multiple of 3 (a triangle list)", t.index_count),
                ));
            }
            let need = u64::from(t.index_count) * fmt.size() as u64;
            if need > t.indices.len() as u64 {
                return Err(invalid(
                    f("indices"),
                    format!(
                        "{} indices of {fmt:?} need {need} bytes, the buffer has {}",
                        t.index_count,
                        t.indices.len()
                    ),
                ));
            }
            for k in 0..t.index_count as usize {
                let i = index_at(fmt, t.indices, k);
                if i >= t.vertex_count {
                    return Err(invalid(
                        format!("geometries[{g}].triangles.indices[{k}]"),
                        format!("index {i} is not below vertex_count {}", t.vertex_count),
                    ));
                }
            }
            Ok(u64::from(t.index_count / 3))
        }
    }
}

fn index_at(fmt: IndexFormat, b: &[u8], k: usize) -> u32 {
    match fmt {
        IndexFormat::R16_UINT => u32::from(u16::from_le_bytes([b[2 * k], b[2 * k + 1]])),
        IndexFormat::R32_UINT => {
            u32::from_le_bytes([b[4 * k], b[4 * k + 1], b[4 * k + 2], b[4 * k + 3]])
        }
        IndexFormat::None => k as u32,
    }
}

fn check_aabbs(g: usize, a: &AabbsDesc<'_>) -> Result<u64, AccelError> {
    let f = |name: &str| format!("geometries[{g}].aabbs.{name}");
    if a.stride % 8 != 0 {
        return Err(invalid(
            f("stride"),
            format!("{} is not a multiple of 8", a.stride),
        ));
    }
    if a.count > MAX_PRIMITIVES {
        return Err(AccelError::TooMany {
            field: f("count"),
            count: a.count,
            limit: MAX_PRIMITIVES,
        });
    }
    if a.count > 0 {
        let need = (a.count - 1)
            .checked_mul(a.stride)
            .and_then(|v| v.checked_add(24));
        if need.is_none_or(|need| need > a.aabbs.len() as u64) {
            return Err(invalid(
                f("aabbs"),
                format!(
                    "{} AABBs {} bytes apart need more than the buffer's {} bytes",
                    a.count,
                    a.stride,
                    a.aabbs.len()
                ),
            ));
        }
    }
    Ok(a.count)
}

/// Whether three points are collinear, decided exactly: the differences of `f32` values
/// and their products are exact in `f64`, so each cross-product component is zero
/// exactly when the true one is.
fn collinear(v: &[[f32; 3]; 3]) -> bool {
    let d = |a: [f32; 3], b: [f32; 3]| [0, 1, 2].map(|k| f64::from(a[k]) - f64::from(b[k]));
    let e1 = d(v[1], v[0]);
    let e2 = d(v[2], v[0]);
    e1[1] * e2[2] - e1[2] * e2[1] == 0.0
        && e1[2] * e2[0] - e1[0] * e2[2] == 0.0
        && e1[0] * e2[1] - e1[1] * e2[0] == 0.0
}

fn gather_triangles(
    g: u32,
    t: &TrianglesDesc<'_>,
    count: u32,
    tris: &mut Vec<[[f32; 3]; 3]>,
    boxes: &mut Vec<Aabb>,
    refs: &mut Vec<PrimRef>,
) {
    let fmt = t.vertex_format;
    let stride = t.vertex_stride as usize;
    let vertex = |i: u32| {
        let at = i as usize * stride;
        let p = fmt.decode(&t.vertices[at..at + fmt.bytes_read()]);
        match &t.transform {
            Some(m) => m.transform_point(p),
            None => p,
        }
    };
    for p in 0..count {
        let ids = [0, 1, 2].map(|c| {
            let k = 3 * p as usize + c;
            index_at(t.index_format, t.indices, k)
        });
        let v = ids.map(vertex);
        if v.iter().flatten().any(|c| !c.is_finite()) || collinear(&v) {
            continue;
        }
        let mut b = Aabb::EMPTY;
        for q in v {
            b.grow_point(q);
        }
        tris.push(v);
        boxes.push(b);
        refs.push(PrimRef {
            geometry: g,
            primitive: p,
        });
    }
}

fn gather_aabbs(g: u32, a: &AabbsDesc<'_>, boxes: &mut Vec<Aabb>, refs: &mut Vec<PrimRef>) {
    for p in 0..a.count {
        let at = (p * a.stride) as usize;
        let b = &a.aabbs[at..at + 24];
        let v: [f32; 6] = std::array::from_fn(|i| {
            f32::from_le_bytes([b[4 * i], b[4 * i + 1], b[4 * i + 2], b[4 * i + 3]])
        });
        if v.iter().any(|c| c.is_nan()) {
            continue;
        }
        let v = v.map(|c| c.clamp(-f32::MAX, f32::MAX));
        let mut min = [v[0], v[1], v[2]];
        let mut max = [v[3], v[4], v[5]];
        // DXR spec "Degenerate primitives and instances": inverted bounds become a point at
        // the centre of the input bounds.
        if (0..3).any(|k| min[k] > max[k]) {
            let c = [0, 1, 2].map(|k| 0.5 * min[k] + 0.5 * max[k]);
            min = c;
            max = c;
        }
        boxes.push(Aabb { min, max });
        refs.push(PrimRef {
            geometry: g,
            primitive: p as u32,
        });
    }
}

/// `D3D12_RAYTRACING_INSTANCE_DESC`, with the bottom-level structure as a shared
/// reference (`None`: a NULL address, an inactive instance).
#[derive(Clone, Debug)]
pub struct InstanceDesc {
    /// Object to world.
    pub transform: Transform3x4,
    /// `InstanceID()` (24 bits).
    pub instance_id: u32,
    /// Ray `InstanceInclusionMask`s that meet this mask include the instance.
    pub instance_mask: u8,
    /// `InstanceContributionToHitGroupIndex` (24 bits).
    pub contribution_to_hit_group_index: u32,
    /// Culling, winding and opacity overrides.
    pub flags: InstanceFlags,
    /// The instanced structure.
    pub blas: Option<Arc<BottomLevel>>,
}

impl InstanceDesc {
    /// The size of a `D3D12_RAYTRACING_INSTANCE_DESC` in memory.
    pub const SIZE: usize = 64;

    /// Reads a `D3D12_RAYTRACING_INSTANCE_DESC` from its 64 bytes, resolving the
    /// `AccelerationStructure` address with `resolve` (0 is NULL and is not passed).
    pub fn decode(
        bytes: &[u8; 64],
        resolve: impl FnOnce(u64) -> Option<Arc<BottomLevel>>,
    ) -> InstanceDesc {
        let word = |i: usize| {
            u32::from_le_bytes([
                bytes[4 * i],
                bytes[4 * i + 1],
                bytes[4 * i + 2],
                bytes[4 * i + 3],
            ])
        };
        let transform = Transform3x4(std::array::from_fn(|i| f32::from_bits(word(i))));
        let w12 = word(12);
        let w13 = word(13);
        let address = u64::from(word(14)) | (u64::from(word(15)) << 32);
        InstanceDesc {
            transform,
            instance_id: w12 & 0x00ff_ffff,
            instance_mask: (w12 >> 24) as u8,
            contribution_to_hit_group_index: w13 & 0x00ff_ffff,
            flags: InstanceFlags((w13 >> 24) as u8),
            blas: if address == 0 { None } else { resolve(address) },
        }
    }
}

/// One instance of a built top-level structure.
#[derive(Clone, Debug)]
pub struct Instance {
    pub(crate) object_to_world: Transform3x4,
    /// Whether the transform is the identity (the world ray is the object ray).
    pub(crate) identity: bool,
    /// `None` when the transform has no finite inverse.
    pub(crate) world_to_object: Option<Transform3x4>,
    pub(crate) instance_id: u32,
    pub(crate) mask: u8,
    pub(crate) contribution: u32,
    pub(crate) flags: InstanceFlags,
    pub(crate) blas: Option<Arc<BottomLevel>>,
}

impl Instance {
    /// `ObjectToWorld3x4()`.
    pub fn object_to_world(&self) -> Transform3x4 {
        self.object_to_world
    }

    /// `WorldToObject3x4()` (the identity's zero matrix when the transform is singular;
    /// such an instance is never hit).
    pub fn world_to_object(&self) -> Transform3x4 {
        self.world_to_object.unwrap_or(Transform3x4([0.0; 12]))
    }

    /// `InstanceID()`.
    pub fn instance_id(&self) -> u32 {
        self.instance_id
    }

    /// The 8-bit instance mask.
    pub fn mask(&self) -> u8 {
        self.mask
    }

    /// `InstanceContributionToHitGroupIndex`.
    pub fn contribution_to_hit_group_index(&self) -> u32 {
        self.contribution
    }

    /// The instance flags.
    pub fn flags(&self) -> InstanceFlags {
        self.flags
    }

    /// The instanced structure (`None` for a NULL one).
    pub fn blas(&self) -> Option<&Arc<BottomLevel>> {
        self.blas.as_ref()
    }

    /// Whether a ray can hit the instance: a structure with active primitives and an
    /// invertible transform (DXR spec "Inactive primitives and instances", "Degenerate
    /// primitives and instances").
    pub fn is_active(&self) -> bool {
        self.world_to_object.is_some()
            && self
                .blas
                .as_ref()
                .is_some_and(|b| b.active_primitive_count() > 0)
    }
}

/// A built top-level acceleration structure.
#[derive(Clone, Debug)]
pub struct TopLevel {
    pub(crate) instances: Vec<Instance>,
    pub(crate) bvh: Bvh,
    /// Leaf item → instance index.
    pub(crate) leaf_instances: Vec<u32>,
    /// Box padding scale for world-space rays (see `traverse`).
    pub(crate) magnitude: f32,
}

impl TopLevel {
    /// Builds a top-level structure over `instances`; `InstanceIndex()` is the position in
    /// this slice, inactive instances included.
    pub fn build(
        instances: &[InstanceDesc],
        options: &BuildOptions,
    ) -> Result<TopLevel, AccelError> {
        if instances.len() > MAX_INSTANCES {
            return Err(AccelError::TooMany {
                field: "instances".into(),
                count: instances.len() as u64,
                limit: MAX_INSTANCES as u64,
            });
        }
        let mut out = Vec::new();
        reserve(&mut out, instances.len(), "instances")?;
        let mut boxes = Vec::new();
        let mut active = Vec::new();
        let mut cond: f64 = 1.0;
        for (i, d) in instances.iter().enumerate() {
            if d.instance_id > 0x00ff_ffff {
                return Err(invalid(
                    format!("instances[{i}].instance_id"),
                    format!("{:#x} does not fit in 24 bits", d.instance_id),
                ));
            }
            if d.contribution_to_hit_group_index > 0x00ff_ffff {
                return Err(invalid(
                    format!("instances[{i}].contribution_to_hit_group_index"),
                    format!(
                        "{:#x} does not fit in 24 bits",
                        d.contribution_to_hit_group_index
                    ),
                ));
            }
            let inst = Instance {
                object_to_world: d.transform,
                identity: d.transform == Transform3x4::IDENTITY,
                world_to_object: d.transform.inverse(),
                instance_id: d.instance_id,
                mask: d.instance_mask,
                contribution: d.contribution_to_hit_group_index,
                flags: d.flags,
                blas: d.blas.clone(),
            };
            if inst.is_active()
                && let (Some(blas), Some(w2o)) = (&inst.blas, inst.world_to_object)
                && let Some(b) = blas.bvh.bounds
            {
                let wb = world_box(&d.transform, &b);
                if !wb.is_empty() && wb.magnitude().is_finite() {
                    boxes.push(wb);
                    active.push(i as u32);
                    cond = cond.max(d.transform.linear_norm() * w2o.linear_norm());
                }
            }
            out.push(inst);
        }
        let bvh = bvh::build(&boxes, LEAF_INSTANCES, options.threads)
            .map_err(|e| oom("top-level hierarchy", e))?;
        let leaf_instances = bvh.order.iter().map(|&k| active[k as usize]).collect();
        let magnitude = bvh.bounds.map_or(0.0, |b| b.magnitude()) * cond.min(65536.0) as f32;
        Ok(TopLevel {
            instances: out,
            bvh,
            leaf_instances,
            magnitude,
        })
    }

    /// Instances, in input order.
    pub fn instances(&self) -> &[Instance] {
        &self.instances
    }

    /// Inner nodes of the top-level hierarchy.
    pub fn node_count(&self) -> usize {
        self.bvh.nodes.len()
    }
}

/// The world box of object box `b`: its eight corners transformed in `f64` and rounded
/// outwards.
fn world_box(m: &Transform3x4, b: &Aabb) -> Aabb {
    let r = m.rows();
    let mut out = Aabb::EMPTY;
    for corner in 0..8 {
        let p = [0, 1, 2].map(|k| {
            f64::from(if corner >> k & 1 == 0 {
                b.min[k]
            } else {
                b.max[k]
            })
        });
        for (k, row) in r.iter().enumerate() {
            let v = f64::from(row[0]) * p[0]
                + f64::from(row[1]) * p[1]
                + f64::from(row[2]) * p[2]
                + f64::from(row[3]);
            let lo = v as f32;
            let lo = if f64::from(lo) > v {
                next_toward_neg(lo)
            } else {
                lo
            };
            let hi = v as f32;
            let hi = if f64::from(hi) < v {
                -next_toward_neg(-hi)
            } else {
                hi
            };
            out.min[k] = out.min[k].min(lo);
            out.max[k] = out.max[k].max(hi);
        }
    }
    out
}

/// The next `f32` below finite `x`.
fn next_toward_neg(x: f32) -> f32 {
    if x == 0.0 {
        return -f32::from_bits(1);
    }
    let b = x.to_bits();
    f32::from_bits(if x > 0.0 { b - 1 } else { b + 1 })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tri_bytes(v: &[[f32; 3]]) -> Vec<u8> {
        v.iter().flatten().flat_map(|f| f.to_le_bytes()).collect()
    }

    fn one(desc: TrianglesDesc<'_>) -> Result<BottomLevel, AccelError> {
        BottomLevel::build(
            &[GeometryDesc {
                flags: GeometryFlags::NONE,
                geometry: Geometry::Triangles(desc),
            }],
            &BuildOptions::default(),
        )
    }

    fn plain(bytes: &[u8], count: u32) -> TrianglesDesc<'_> {
        TrianglesDesc {
            transform: None,
            index_format: IndexFormat::None,
            index_count: 0,
            indices: &[],
            vertex_format: VertexFormat::R32G32B32_FLOAT,
            vertex_count: count,
            vertices: bytes,
            vertex_stride: 12,
        }
    }

    /// Bad fields are refused with an error naming them.
    #[test]
    fn errors_name_the_field() {
        let b = tri_bytes(&[[0.0; 3]; 3]);
        let e = one(plain(&b, 6)).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("geometries[0].triangles.vertices:"),
            "{e}"
        );
        let e = one(plain(&b, 2)).unwrap_err();
        assert!(
            e.to_string()
                .starts_with("geometries[0].triangles.vertex_count:"),
            "{e}"
        );
        let idx: Vec<u8> = [0u16, 1, 3].iter().flat_map(|i| i.to_le_bytes()).collect();
        let e = one(TrianglesDesc {
            index_format: IndexFormat::R16_UINT,
            index_count: 3,
            indices: &idx,
            ..plain(&b, 3)
        })
        .unwrap_err();
        assert_eq!(
            e.to_string(),
            "geometries[0].triangles.indices[2]: index 3 is not below vertex_count 3"
        );
        let e = one(TrianglesDesc {
            vertex_stride: 13,
            ..plain(&b, 3)
        })
        .unwrap_err();
        assert!(e.to_string().contains("vertex_stride"), "{e}");
        // A huge count with a zero stride over a tiny buffer is refused before anything is
        // allocated for it.
        let e = BottomLevel::build(
            &[GeometryDesc {
                flags: GeometryFlags::NONE,
                geometry: Geometry::Triangles(TrianglesDesc {
                    vertex_stride: 0,
                    ..plain(&b, 3 * 1_000_000)
                }),
            }],
            &BuildOptions {
                max_primitives: 1000,
                ..BuildOptions::default()
            },
        )
        .unwrap_err();
        assert!(matches!(e, AccelError::TooMany { limit: 1000, .. }), "{e}");
        // Mixed geometry types.
        let aabb = [0u8; 24];
        let e = BottomLevel::build(
            &[
                GeometryDesc {
                    flags: GeometryFlags::NONE,
                    geometry: Geometry::Triangles(plain(&b, 3)),
                },
                GeometryDesc {
                    flags: GeometryFlags::NONE,
                    geometry: Geometry::Aabbs(AabbsDesc {
                        count: 1,
                        aabbs: &aabb,
                        stride: 24,
                    }),
                },
            ],
            &BuildOptions::default(),
        )
        .unwrap_err();
        assert!(e.to_string().starts_with("geometries[1]:"), "{e}");
        let e = TopLevel::build(
            &[InstanceDesc {
                transform: Transform3x4::IDENTITY,
                instance_id: 1 << 24,
                instance_mask: 0xff,
                contribution_to_hit_group_index: 0,
                flags: InstanceFlags::NONE,
                blas: None,
            }],
            &BuildOptions::default(),
        )
        .unwrap_err();
        assert!(
            e.to_string().starts_with("instances[0].instance_id:"),
            "{e}"
        );
    }

    /// DXR spec "D3D12_RAYTRACING_GEOMETRY_TRIANGLES_DESC": every vertex format decodes
    /// to the same position (two-component formats give z = 0).
    #[test]
    fn vertex_formats_decode() {
        let cases: Vec<(VertexFormat, Vec<u8>, [f32; 3])> = vec![
            (
                VertexFormat::R32G32_FLOAT,
                tri_bytes(&[[0.5, -2.0, 0.0]])[..8].to_vec(),
                [0.5, -2.0, 0.0],
            ),
            (
                VertexFormat::R16G16B16A16_FLOAT,
                vec![0x00, 0x38, 0x00, 0xc0, 0x00, 0x3c],
                [0.5, -2.0, 1.0],
            ),
            (
                VertexFormat::R16G16_FLOAT,
                vec![0x00, 0x38, 0x01, 0x00],
                [0.5, 1.0 / 16_777_216.0, 0.0],
            ),
            (
                VertexFormat::R16G16B16A16_SNORM,
                vec![0xff, 0x7f, 0x00, 0x80, 0x01, 0x80],
                [1.0, -1.0, -1.0],
            ),
            (
                VertexFormat::R16G16_SNORM,
                vec![0x00, 0x00, 0xff, 0x7f],
                [0.0, 1.0, 0.0],
            ),
            (
                VertexFormat::R16G16B16A16_UNORM,
                vec![0xff, 0xff, 0, 0, 0xff, 0xff],
                [1.0, 0.0, 1.0],
            ),
            (
                VertexFormat::R16G16_UNORM,
                vec![0xff, 0xff, 0, 0],
                [1.0, 0.0, 0.0],
            ),
            (
                VertexFormat::R10G10B10A2_UNORM,
                0x3ff_u32.to_le_bytes().to_vec(),
                [1.0, 0.0, 0.0],
            ),
            (
                VertexFormat::R8G8B8A8_UNORM,
                vec![255, 0, 255],
                [1.0, 0.0, 1.0],
            ),
            (VertexFormat::R8G8_UNORM, vec![0, 255], [0.0, 1.0, 0.0]),
            (
                VertexFormat::R8G8B8A8_SNORM,
                vec![127, 0x80, 0x81],
                [1.0, -1.0, -1.0],
            ),
            (VertexFormat::R8G8_SNORM, vec![0x81, 127], [-1.0, 1.0, 0.0]),
        ];
        for (f, bytes, want) in cases {
            assert_eq!(f.decode(&bytes), want, "{f:?}");
            assert_eq!(VertexFormat::from_dxgi(f.dxgi()), Some(f));
        }
        assert_eq!(
            VertexFormat::R32G32B32_FLOAT.decode(&tri_bytes(&[[1.0, 2.0, 3.0]])),
            [1.0, 2.0, 3.0]
        );
        assert_eq!(f16_to_f32(0x7c00), f32::INFINITY);
        assert!(f16_to_f32(0x7e00).is_nan());
        assert_eq!(IndexFormat::from_dxgi(57), Some(IndexFormat::R16_UINT));
    }

    /// DXR spec "Inactive primitives and instances" and "Degenerate primitives and
    /// instances": NaN and degenerate triangles stay out of the hierarchy but keep their
    /// primitive index.
    #[test]
    fn inactive_and_degenerate_triangles_keep_their_index() {
        let v = [
            [f32::NAN, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
            [0.0, 0.0, 0.0],
            [1.0, 1.0, 0.0],
            [2.0, 2.0, 0.0],
            [0.0, 0.0, 0.0],
            [1.0, 0.0, 0.0],
            [0.0, 1.0, 0.0],
        ];
        let b = tri_bytes(&v);
        let blas = one(plain(&b, 9)).unwrap();
        assert_eq!(blas.active_primitive_count(), 1);
        assert_eq!(blas.refs[0].primitive, 2);
        assert_eq!(blas.geometries()[0].primitive_count, 3);
    }

    /// DXR spec "Degenerate primitives and instances": inverted AABB bounds become the
    /// centre point; NaN MinX makes an AABB inactive.
    #[test]
    fn aabb_rules() {
        let vals: [f32; 12] = [
            2.0,
            0.0,
            0.0,
            0.0,
            1.0,
            1.0,
            f32::NAN,
            0.0,
            0.0,
            1.0,
            1.0,
            1.0,
        ];
        let bytes: Vec<u8> = vals.iter().flat_map(|f| f.to_le_bytes()).collect();
        let blas = BottomLevel::build(
            &[GeometryDesc {
                flags: GeometryFlags::NONE,
                geometry: Geometry::Aabbs(AabbsDesc {
                    count: 2,
                    aabbs: &bytes,
                    stride: 24,
                }),
            }],
            &BuildOptions::default(),
        )
        .unwrap();
        assert_eq!(blas.active_primitive_count(), 1);
        assert_eq!(
            blas.boxes[0],
            Aabb {
                min: [1.0, 0.5, 0.5],
                max: [1.0, 0.5, 0.5]
            }
        );
    }

    #[test]
    fn instance_desc_decodes_the_d3d12_layout() {
        let mut b = [0u8; 64];
        for (i, f) in Transform3x4::IDENTITY.0.iter().enumerate() {
            b[4 * i..4 * i + 4].copy_from_slice(&f.to_le_bytes());
        }
        b[48..52].copy_from_slice(&(0xab00_0123u32).to_le_bytes());
        b[52..56].copy_from_slice(&(0x0500_0007u32).to_le_bytes());
        b[56..64].copy_from_slice(&0x1000u64.to_le_bytes());
        let d = InstanceDesc::decode(&b, |a| {
            assert_eq!(a, 0x1000);
            None
        });
        assert_eq!(d.instance_id, 0x123);
        assert_eq!(d.instance_mask, 0xab);
        assert_eq!(d.contribution_to_hit_group_index, 7);
        assert_eq!(
            d.flags,
            InstanceFlags::TRIANGLE_CULL_DISABLE | InstanceFlags::FORCE_OPAQUE
        );
        assert_eq!(d.transform, Transform3x4::IDENTITY);
    }
}
