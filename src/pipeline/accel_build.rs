//! `BuildRaytracingAccelerationStructure` as a command of a list: the build inputs are
//! read from buffer memory when the command runs, so an earlier copy or dispatch of the
//! list can write the vertices, indices, transforms, AABBs or instance descriptions.
//!
//! Owns: reading a build's inputs from memory at run time, resolving GPU virtual
//! addresses inside the memory (an instance's bottom-level structure, the array of
//! pointers' instance descriptions) through [`Addresses`], and storing the result in the
//! destination's [`AccelerationStructureBuffer`]. Does not own: the build's rules
//! (`raytracing::accel`), checking the command's fields before the list runs (buffers,
//! ranges, alignments, formats: `job::list`), or which address a resource has (the job's
//! scheme, handed over as [`Addresses`]).
//!
//! # Rules (D3D12 `BuildRaytracingAccelerationStructure`, DXR spec "Acceleration
//! structure update constraints", `D3D12_BUILD_RAYTRACING_ACCELERATION_STRUCTURE_INPUTS`)
//!
//! - The inputs are read whole when the command runs; the structure keeps no reference to
//!   them (DXR spec "Data rules"), so writing them afterwards changes nothing built.
//! - A top level reads `count` 64-byte `D3D12_RAYTRACING_INSTANCE_DESC`s, each from
//!   `D3D12_ELEMENTS_LAYOUT_ARRAY` (one after another) or `…_ARRAY_OF_POINTERS` (an
//!   array of 8-byte GPU addresses, each of a description in some buffer, a multiple of
//!   16: `D3D12_RAYTRACING_INSTANCE_DESC_BYTE_ALIGNMENT`).
//! - An instance's `AccelerationStructure` address is 0 (an inactive instance: DXR spec
//!   "Inactive primitives and instances") or the address of an acceleration-structure
//!   buffer that holds a bottom level now; anything else is an error naming the
//!   instance and the address (D3D: undefined).
//! - The destination holds the new structure from the end of the command on; a later
//!   build replaces it (DXR: a build overwrites the destination).

use std::sync::Arc;

use crate::raytracing::{
    AabbsDesc, BottomLevel, BuildOptions, Geometry, GeometryDesc, GeometryFlags, IndexFormat,
    InstanceDesc, TopLevel, TrianglesDesc, VertexFormat,
};
use crate::resources::{AccelerationStructureBuffer, BuiltStructure, Memory};

/// `D3D12_RAYTRACING_INSTANCE_DESC_BYTE_ALIGNMENT`.
pub const INSTANCE_DESC_ALIGNMENT: u64 = 16;

/// A byte range of a buffer, checked to lie inside it when the list was made.
#[derive(Debug, Clone)]
pub struct BufferRange {
    /// The buffer.
    pub memory: Memory,
    /// The first byte.
    pub offset: u64,
    /// Bytes.
    pub size: u64,
}

impl BufferRange {
    /// The range's bytes now.
    fn read(&self, what: &str) -> Result<Vec<u8>, String> {
        let n = usize::try_from(self.size)
            .map_err(|_| format!("{what}: {} bytes are more than memory holds", self.size))?;
        let mut v = Vec::new();
        v.try_reserve_exact(n)
            .map_err(|_| format!("{what}: out of memory reading {n} bytes"))?;
        v.resize(n, 0);
        if !self.memory.read_bytes(self.offset, &mut v) {
            return Err(format!(
                "{what}: bytes {}..{} are past the buffer's {} bytes",
                self.offset,
                self.offset.saturating_add(self.size),
                self.memory.len()
            ));
        }
        Ok(v)
    }
}

/// One `D3D12_RAYTRACING_GEOMETRY_DESC` whose buffers are ranges of memory.
#[derive(Debug, Clone)]
pub enum BuildGeometry {
    /// `D3D12_RAYTRACING_GEOMETRY_TYPE_TRIANGLES`.
    Triangles {
        /// `Flags`.
        flags: GeometryFlags,
        /// `Transform3x4`: 48 bytes of a row-major 3×4 matrix, or none.
        transform: Option<BufferRange>,
        /// `IndexFormat`.
        index_format: IndexFormat,
        /// `IndexCount`.
        index_count: u32,
        /// `IndexBuffer` (none without indices).
        indices: Option<BufferRange>,
        /// `VertexFormat`.
        vertex_format: VertexFormat,
        /// `VertexCount`.
        vertex_count: u32,
        /// `VertexBuffer`: from the first vertex to the end of the last.
        vertices: BufferRange,
        /// `VertexBuffer.StrideInBytes`.
        vertex_stride: u64,
    },
    /// `D3D12_RAYTRACING_GEOMETRY_TYPE_PROCEDURAL_PRIMITIVE_AABBS`.
    Aabbs {
        /// `Flags`.
        flags: GeometryFlags,
        /// `AABBCount`.
        count: u64,
        /// `AABBs`: from the first box to the end of the last.
        aabbs: BufferRange,
        /// `AABBs.StrideInBytes`.
        stride: u64,
    },
}

/// A geometry's bytes as read from its buffers: the transform's, the indices' and the
/// vertices' (or the boxes').
#[derive(Debug, Clone, Default)]
pub struct ReadGeometry {
    transform: Option<Vec<u8>>,
    indices: Vec<u8>,
    data: Vec<u8>,
}

impl ReadGeometry {
    /// Bytes held.
    pub fn bytes(&self) -> u64 {
        (self.transform.as_ref().map_or(0, Vec::len) + self.indices.len() + self.data.len()) as u64
    }
}

impl BuildGeometry {
    /// Reads the geometry's ranges now; errors name `geometry[g].…` (`g`: its index in
    /// the structure).
    pub fn read(&self, g: usize) -> Result<ReadGeometry, String> {
        Ok(match self {
            BuildGeometry::Triangles {
                transform,
                indices,
                vertices,
                ..
            } => ReadGeometry {
                transform: match transform {
                    Some(r) => Some(r.read(&format!("geometry[{g}].transform"))?),
                    None => None,
                },
                indices: match indices {
                    Some(r) => r.read(&format!("geometry[{g}].indices"))?,
                    None => Vec::new(),
                },
                data: vertices.read(&format!("geometry[{g}].vertices"))?,
            },
            BuildGeometry::Aabbs { aabbs, .. } => ReadGeometry {
                data: aabbs.read(&format!("geometry[{g}].aabbs"))?,
                ..ReadGeometry::default()
            },
        })
    }

    /// The build's description of the geometry over `read`, what [`BuildGeometry::read`]
    /// read of it.
    pub fn desc<'a>(&self, read: &'a ReadGeometry) -> GeometryDesc<'a> {
        match self {
            BuildGeometry::Triangles {
                flags,
                index_format,
                index_count,
                vertex_format,
                vertex_count,
                vertex_stride,
                ..
            } => GeometryDesc {
                flags: *flags,
                geometry: Geometry::Triangles(TrianglesDesc {
                    transform: read.transform.as_deref().map(transform_of),
                    index_format: *index_format,
                    index_count: *index_count,
                    indices: &read.indices,
                    vertex_format: *vertex_format,
                    vertex_count: *vertex_count,
                    vertices: &read.data,
                    vertex_stride: *vertex_stride,
                }),
            },
            BuildGeometry::Aabbs {
                flags,
                count,
                stride,
                ..
            } => GeometryDesc {
                flags: *flags,
                geometry: Geometry::Aabbs(AabbsDesc {
                    count: *count,
                    aabbs: &read.data,
                    stride: *stride,
                }),
            },
        }
    }

    /// Primitives the geometry holds (triangles, or boxes).
    pub fn primitives(&self) -> u64 {
        match self {
            BuildGeometry::Triangles {
                index_format,
                index_count,
                vertex_count,
                ..
            } => u64::from(if *index_format == IndexFormat::None {
                *vertex_count / 3
            } else {
                *index_count / 3
            }),
            BuildGeometry::Aabbs { count, .. } => *count,
        }
    }
}

/// `D3D12_ELEMENTS_LAYOUT` of a top level's instance descriptions.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum InstanceLayout {
    /// `D3D12_ELEMENTS_LAYOUT_ARRAY`: the descriptions one after another.
    Array,
    /// `D3D12_ELEMENTS_LAYOUT_ARRAY_OF_POINTERS`: 8-byte addresses of descriptions.
    ArrayOfPointers,
}

/// What a build reads.
#[derive(Debug, Clone)]
pub enum BuildInputs {
    /// `D3D12_RAYTRACING_ACCELERATION_STRUCTURE_TYPE_BOTTOM_LEVEL`.
    Bottom(Vec<BuildGeometry>),
    /// `D3D12_RAYTRACING_ACCELERATION_STRUCTURE_TYPE_TOP_LEVEL`.
    Top {
        /// `InstanceDescs`: `count` × 64 bytes (array) or × 8 bytes (pointers).
        instances: BufferRange,
        /// `NumDescs`.
        count: u32,
        /// `DescsLayout`.
        layout: InstanceLayout,
    },
}

/// What lies at a GPU virtual address range.
#[derive(Debug, Clone)]
pub enum AddressTarget {
    /// A buffer's memory.
    Buffer(Memory),
    /// An acceleration-structure buffer a list builds.
    Structure(AccelerationStructureBuffer),
    /// A resource neither of the above (a texture, an acceleration structure the job
    /// file builds).
    Other,
}

/// The GPU virtual addresses of a list's resources: for each, its first address, its
/// size, its name (for messages) and what lies there.
#[derive(Debug, Clone, Default)]
pub struct Addresses {
    ranges: Vec<(u64, u64, String, AddressTarget)>,
}

impl Addresses {
    /// Adds a resource at `base` of `size` bytes (an acceleration structure: 1 byte, as
    /// only its first address names it).
    pub fn add(&mut self, base: u64, size: u64, name: &str, target: AddressTarget) {
        self.ranges.push((base, size, name.to_string(), target));
    }

    /// The resource holding `address`: its name, what it is, and the byte offset in it.
    fn find(&self, address: u64) -> Option<(&str, &AddressTarget, u64)> {
        self.ranges.iter().find_map(|(b, n, name, t)| {
            let off = address.checked_sub(*b)?;
            (off < (*n).max(1)).then_some((name.as_str(), t, off))
        })
    }
}

/// A `BuildRaytracingAccelerationStructure` command.
#[derive(Debug, Clone)]
pub struct AccelBuild {
    /// `DestAccelerationStructureData`.
    pub dst: AccelerationStructureBuffer,
    /// `Inputs`.
    pub inputs: BuildInputs,
    /// The list's resources by address.
    pub addresses: Arc<Addresses>,
    /// Worker threads for the build (0: one per core; the result is the same for any).
    pub threads: usize,
}

/// Work a build did, for the list's summary.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq)]
pub struct BuildReport {
    /// Primitives (bottom level) or instances (top level) read.
    pub items: u64,
}

impl AccelBuild {
    /// Runs the build: reads the inputs now and stores the structure in `dst`. Errors
    /// name the field (`geometry[0].triangles.indices[5]: …`, `instance[2]: …`).
    pub fn run(&self) -> Result<BuildReport, String> {
        let options = BuildOptions {
            threads: self.threads,
            ..BuildOptions::default()
        };
        match &self.inputs {
            BuildInputs::Bottom(geos) => {
                let mut held = Vec::with_capacity(geos.len());
                for (g, geo) in geos.iter().enumerate() {
                    held.push(geo.read(g)?);
                }
                let descs: Vec<GeometryDesc<'_>> =
                    geos.iter().zip(&held).map(|(geo, r)| geo.desc(r)).collect();
                let items = geos.iter().map(BuildGeometry::primitives).sum();
                let blas = BottomLevel::build(&descs, &options)
                    .map_err(|e| e.to_string().replacen("geometries[", "geometry[", 1))?;
                self.dst.set(BuiltStructure::Bottom(Arc::new(blas)));
                Ok(BuildReport { items })
            }
            BuildInputs::Top {
                instances,
                count,
                layout,
            } => {
                let bytes = instances.read("instances")?;
                let mut descs = Vec::new();
                descs
                    .try_reserve_exact(*count as usize)
                    .map_err(|_| format!("instances: out of memory for {count} instances"))?;
                for k in 0..*count as usize {
                    let raw = match layout {
                        InstanceLayout::Array => {
                            let at = k * InstanceDesc::SIZE;
                            let mut d = [0u8; 64];
                            d.copy_from_slice(bytes.get(at..at + InstanceDesc::SIZE).ok_or_else(
                                || format!("instance[{k}]: past the instances' bytes"),
                            )?);
                            d
                        }
                        InstanceLayout::ArrayOfPointers => self.pointed(&bytes, k)?,
                    };
                    descs.push(self.instance(&raw, k)?);
                }
                let tlas = TopLevel::build(&descs, &options).map_err(|e| e.to_string())?;
                self.dst.set(BuiltStructure::Top(Arc::new(tlas)));
                Ok(BuildReport {
                    items: u64::from(*count),
                })
            }
        }
    }

    /// The description pointer `k` of an array of pointers points at.
    fn pointed(&self, bytes: &[u8], k: usize) -> Result<[u8; 64], String> {
        let p = bytes
            .get(k * 8..k * 8 + 8)
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .ok_or_else(|| format!("instance[{k}]: past the pointers' bytes"))?;
        let address = u64::from_le_bytes(p);
        let here = format!("instance[{k}]: the pointer {address:#x}");
        if address % INSTANCE_DESC_ALIGNMENT != 0 {
            return Err(format!(
                "{here} is not a multiple of {INSTANCE_DESC_ALIGNMENT} (D3D12_RAYTRACING_INSTANCE_DESC_BYTE_ALIGNMENT)"
            ));
        }
        let Some((name, target, off)) = self.addresses.find(address) else {
            return Err(format!("{here} points into no resource"));
        };
        let AddressTarget::Buffer(m) = target else {
            return Err(format!(
                "{here} points into \"{name}\", which is not a buffer"
            ));
        };
        let mut d = [0u8; 64];
        if !m.read_bytes(off, &mut d) {
            return Err(format!(
                "{here}: the 64 bytes at offset {off} of \"{name}\" pass its end ({} bytes)",
                m.len()
            ));
        }
        Ok(d)
    }

    /// Instance `k` from its 64 bytes, its bottom level resolved now.
    fn instance(&self, raw: &[u8; 64], k: usize) -> Result<InstanceDesc, String> {
        let address = raw
            .get(56..64)
            .and_then(|b| <[u8; 8]>::try_from(b).ok())
            .map_or(0, u64::from_le_bytes);
        let blas = if address == 0 {
            None
        } else {
            let here = format!("instance[{k}].AccelerationStructure: {address:#x}");
            let Some((name, target, off)) = self.addresses.find(address) else {
                return Err(format!("{here} is the address of no resource"));
            };
            let AddressTarget::Structure(s) = target else {
                return Err(format!(
                    "{here} points into \"{name}\", which is not an acceleration structure a command builds"
                ));
            };
            if off != 0 {
                return Err(format!(
                    "{here} is byte {off} of \"{name}\"; a structure starts at its resource's address"
                ));
            }
            match s.get() {
                Some(BuiltStructure::Bottom(b)) => Some(b),
                Some(BuiltStructure::Top(_)) => {
                    return Err(format!(
                        "{here}: \"{name}\" holds a top-level structure; an instance names a bottom-level one"
                    ));
                }
                None => {
                    return Err(format!(
                        "{here}: \"{name}\" is not built (no earlier build command has run into it)"
                    ));
                }
            }
        };
        Ok(InstanceDesc::decode(raw, |_| blas))
    }
}

/// A 3×4 row-major transform from its 48 bytes.
fn transform_of(b: &[u8]) -> crate::raytracing::Transform3x4 {
    crate::raytracing::Transform3x4(std::array::from_fn(|i| {
        b.get(4 * i..4 * i + 4)
            .and_then(|w| <[u8; 4]>::try_from(w).ok())
            .map_or(0.0, f32::from_le_bytes)
    }))
}
